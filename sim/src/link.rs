//! One direction of a link and the egress port feeding it: two queues with strict priority (control before
//! data), serialization at the link rate, propagation, random loss, up/down state, the PFC state of the data
//! class, and the per-direction counters reported in [`crate::results::LinkReport`].

use crate::topology::{FCS_BYTES, PREAMBLE_IFG_BYTES};
use std::collections::VecDeque;

/// Counters of one direction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PortStats {
    /// Packets put on the wire.
    pub tx_packets: u64,
    /// Frame bytes (with FCS) put on the wire.
    pub tx_bytes: u64,
    /// Highest occupancy of both queues, bytes.
    pub peak_queue_bytes: u64,
    /// Packets dropped on a full queue.
    pub drops_overflow: u64,
    /// Packets lost at random.
    pub drops_loss: u64,
    /// Packets lost because the link was down (or no route remained).
    pub drops_down: u64,
    /// Packets marked CE here.
    pub ecn_marked: u64,
    /// Packets trimmed here.
    pub trimmed: u64,
    /// Time the data class was paused, ps.
    pub paused_ps: u64,
    /// PFC pause frames the receiving end of this direction sent to its sender.
    pub pauses_sent: u64,
}

/// A queued packet with what the port needs to send it without touching the packet itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Queued {
    /// Packet id.
    pub id: u32,
    /// Frame length (without FCS).
    pub frame_len: u32,
    /// Ingress direction charged for PFC (`u32::MAX`: none).
    pub pfc_in: u32,
}

/// The egress port of one direction.
#[derive(Debug, Clone)]
pub struct Port {
    /// Control queue.
    pub ctrl: VecDeque<Queued>,
    /// Data queue.
    pub data: VecDeque<Queued>,
    /// Bytes in the control queue.
    pub ctrl_bytes: u64,
    /// Bytes in the data queue.
    pub data_bytes: u64,
    /// A `TxDone` event is pending for this port.
    pub busy: bool,
    /// When the frame being serialized ends, ps (the port is free from then on).
    pub free_at: u64,
    /// The data class is paused by PFC from the receiving end.
    pub paused: bool,
    /// Since when, ps.
    pub paused_since: u64,
    /// Current rate, bits per second.
    pub rate_bps: u64,
    /// Propagation latency, ps.
    pub lat_ps: u64,
    /// The direction is up.
    pub up: bool,
    /// When it last went down, ns.
    pub down_since_ns: u64,
    /// Random loss, ppm.
    pub loss_ppm: u32,
    /// Data bytes buffered at the receiving switch that arrived through this direction (PFC ingress account).
    pub ingress_bytes: u64,
    /// The receiving switch has paused this direction's sender.
    pub pausing: bool,
    /// Counters.
    pub stats: PortStats,
}

impl Port {
    /// A port of a link at `rate_bps` with `latency_ns` propagation.
    pub fn new(rate_bps: u64, latency_ns: u64) -> Port {
        Port {
            ctrl: VecDeque::new(),
            data: VecDeque::new(),
            ctrl_bytes: 0,
            data_bytes: 0,
            busy: false,
            free_at: 0,
            paused: false,
            paused_since: 0,
            rate_bps,
            lat_ps: latency_ns.saturating_mul(1000),
            up: true,
            down_since_ns: 0,
            loss_ppm: 0,
            ingress_bytes: 0,
            pausing: false,
            stats: PortStats::default(),
        }
    }

    /// Serialization time of a frame of `frame_len` bytes (without FCS) including FCS, preamble and gap, ps.
    #[inline]
    pub fn ser_ps(&self, frame_len: u64) -> u64 {
        let bits = (frame_len + FCS_BYTES + PREAMBLE_IFG_BYTES) * 8;
        // bits * 1e12 / rate, rounded up; fits u64 for frames below 2^20 bytes.
        (bits * 1_000_000_000_000).div_ceil(self.rate_bps.max(1))
    }

    /// Frames waiting in both queues.
    #[inline]
    pub fn queued(&self) -> usize {
        self.ctrl.len() + self.data.len()
    }

    /// Updates the peak occupancy.
    #[inline]
    pub fn note_peak(&mut self) {
        let q = self.ctrl_bytes + self.data_bytes;
        if q > self.stats.peak_queue_bytes {
            self.stats.peak_queue_bytes = q;
        }
    }
}
