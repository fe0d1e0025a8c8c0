//! The raw results of one run.

use crate::flow::FlowRecord;
use metaroce_proto::transport::Stats;

/// Which tier a link belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkTier {
    /// Host to first switch.
    Host,
    /// Leaf (edge) to spine (aggregation).
    Fabric,
    /// Aggregation to core.
    Core,
    /// Spine to border switch.
    Border,
    /// Between data centers.
    LongHaul,
}

/// Counters of one direction of one link (the egress queue feeding it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkReport {
    /// Link name and direction, e.g. `leaf0>spine1` (parallel links get `#n`).
    pub name: String,
    /// Tier.
    pub tier: LinkTier,
    /// Plane.
    pub plane: u32,
    /// Packets sent on the link.
    pub tx_packets: u64,
    /// Bytes sent on the link (frames, without preamble and gap).
    pub tx_bytes: u64,
    /// Highest egress queue occupancy, bytes.
    pub peak_queue_bytes: u64,
    /// Packets dropped on a full queue.
    pub drops_overflow: u64,
    /// Packets lost to random loss.
    pub drops_loss: u64,
    /// Packets lost because the link was down.
    pub drops_down: u64,
    /// Packets marked CE.
    pub ecn_marked: u64,
    /// Packets trimmed.
    pub trimmed: u64,
    /// Time the queue was paused by PFC from downstream, ns.
    pub paused_ns: u64,
    /// PFC pause frames this queue's ingress side sent upstream.
    pub pauses_sent: u64,
}

/// A packet lost because the link it was sent onto was down (or left without a route).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DownDrop {
    /// When, ns.
    pub at_ns: u64,
    /// The packet's source host.
    pub src: u32,
    /// The packet's destination host.
    pub dst: u32,
    /// Its UDP source port (the MetaRoCE entropy value, or a RoCEv2 QP's port).
    pub sport: u16,
}

/// At most this many [`DownDrop`]s are recorded per run (the counters keep counting beyond).
pub const MAX_DOWN_DROPS: usize = 1 << 20;

/// Everything a run produced.
#[derive(Debug, Clone)]
pub struct RunResults {
    /// Workload name.
    pub workload: String,
    /// Simulated time at the end, ns.
    pub end_ns: u64,
    /// True if the workload finished; false if the run stopped at `stop_at_ns` first.
    pub finished: bool,
    /// Wall-clock time of the run, ns.
    pub wall_ns: u64,
    /// Events processed.
    pub events: u64,
    /// Packet hops (a packet crossing one link).
    pub packet_hops: u64,
    /// Every flow, indexed by [`crate::flow::FlowId`].
    pub flows: Vec<FlowRecord>,
    /// Every link direction.
    pub links: Vec<LinkReport>,
    /// Sum of every NIC's transport counters.
    pub nic: Stats,
    /// Hosts simulated.
    pub hosts: u32,
    /// QPs created (each side counted).
    pub qps: u64,
    /// Peak resident memory of the process, bytes, if the platform reports it.
    pub peak_rss_bytes: Option<u64>,
    /// Bytes placed at receivers that differed from what was sent (only with `verify_data`; must be 0).
    pub data_errors: u64,
    /// Line rate of one host (sum of its ports), bits per second.
    pub host_rate_bps: u64,
    /// Packets lost on down links, in time order (the first [`MAX_DOWN_DROPS`]); re-path times come from them.
    pub down_drops: Vec<DownDrop>,
}
