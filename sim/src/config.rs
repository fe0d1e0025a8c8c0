//! What to simulate: the fabric, the transport every NIC runs, switch behaviour and faults. All times are
//! nanoseconds and all rates bits per second; [`SimConfig::validate`] rejects impossible values before a run.

use metaroce_proto::transport::CcKind;

/// A simulated host (one NIC, possibly with one port per plane).
pub type HostId = u32;

/// Rate and one-way propagation latency of the links of one tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tier {
    /// Line rate, bits per second.
    pub rate_bps: u64,
    /// One-way propagation latency, ns.
    pub latency_ns: u64,
}

/// The fabric's shape. With `planes > 1` the whole switch fabric is replicated `planes` times and every NIC has
/// one port on each plane (a multi-plane fabric).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TopologySpec {
    /// Two tiers: `leaves` leaf switches with `hosts_per_leaf` hosts each, every leaf linked to every one of
    /// `spines` spine switches by `uplinks_per_spine` parallel links. Oversubscription is
    /// `hosts_per_leaf * host.rate / (spines * uplinks_per_spine * fabric.rate)`.
    LeafSpine {
        /// Leaf (top-of-rack) switches.
        leaves: u32,
        /// Hosts under each leaf.
        hosts_per_leaf: u32,
        /// Spine switches.
        spines: u32,
        /// Parallel links between each leaf and each spine.
        uplinks_per_spine: u32,
        /// Parallel planes.
        planes: u32,
        /// Host to leaf links.
        host: Tier,
        /// Leaf to spine links.
        fabric: Tier,
    },
    /// Three-tier k-ary fat tree: k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 core switches,
    /// k^3/4 hosts (k even, 4..=64).
    FatTree {
        /// Switch radix.
        k: u32,
        /// Parallel planes.
        planes: u32,
        /// Host to edge links.
        host: Tier,
        /// Edge to aggregation links.
        fabric: Tier,
        /// Aggregation to core links.
        core: Tier,
    },
    /// Data centers joined by long-haul links: each is the given leaf-spine (planes must be 1); in each, every
    /// spine links to each of `borders` border switches at the leaf-spine fabric tier, and border `i` of data
    /// center `d` links to border `i` of data center `d + 1` by `long_haul_links` parallel long-haul links.
    MultiDc {
        /// Number of data centers (2..=8), joined in a chain.
        dcs: u32,
        /// The topology of each data center (a `LeafSpine`).
        dc: Box<TopologySpec>,
        /// Border switches per data center.
        borders: u32,
        /// Parallel long-haul links per border pair.
        long_haul_links: u32,
        /// The long-haul links.
        long_haul: Tier,
    },
}

/// Transport every NIC runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// MetaRoCE v0.1 (selective repeat, spraying, NSCC by default).
    MetaRoce,
    /// The RoCEv2 baseline (go-back-N, one path per QP, DCQCN by default).
    RoceV2,
}

/// Transport parameters; `None` keeps the reference model's default for the transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransportSpec {
    /// Which transport.
    pub kind: Transport,
    /// Max payload per packet, bytes.
    pub mtu: u32,
    /// MetaRoCE EV-set size (paths per connection).
    pub paths: Option<u8>,
    /// Congestion control.
    pub cc: Option<CcKind>,
    /// Receive window, log2 packets.
    pub window_log2: Option<u8>,
    /// Min RTO, ns.
    pub rto_min_ns: Option<u64>,
    /// A flow larger than this is posted as several WRITE messages of at most this size.
    pub max_msg_bytes: u32,
}

impl TransportSpec {
    /// `kind` with the defaults of scenario files: 4 KiB MTU, messages of at most 1 MiB, and the reference
    /// model's own defaults for everything else.
    pub fn new(kind: Transport) -> TransportSpec {
        TransportSpec {
            kind,
            mtu: 4096,
            paths: None,
            cc: None,
            window_log2: None,
            rto_min_ns: None,
            max_msg_bytes: 1 << 20,
        }
    }
}

/// ECN marking on a switch egress queue: probability 0 below `kmin_bytes`, rising linearly to `pmax_percent`
/// at `kmax_bytes`, 100% above.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EcnConfig {
    /// Lower threshold, bytes.
    pub kmin_bytes: u64,
    /// Upper threshold, bytes.
    pub kmax_bytes: u64,
    /// Marking probability at `kmax_bytes`, percent (1..=100).
    pub pmax_percent: u32,
}

/// Priority flow control on the data class (lossless fabric for the RoCEv2 baseline).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PfcConfig {
    /// An ingress port whose buffered bytes exceed this pauses its upstream.
    pub xoff_bytes: u64,
    /// It resumes the upstream when they fall below this.
    pub xon_bytes: u64,
}

/// Behaviour of every switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwitchConfig {
    /// Buffer per egress port (data class), bytes; beyond it packets are tail-dropped (or trimmed).
    pub buffer_bytes: u64,
    /// ECN marking, if any.
    pub ecn: Option<EcnConfig>,
    /// Trim MetaRoCE data packets to their headers instead of dropping them (MR-ENC trimming).
    pub trimming: bool,
    /// PFC, if any.
    pub pfc: Option<PfcConfig>,
    /// Time after a link goes down before routing stops using it (None: never; the transport must route
    /// around it by itself).
    pub reroute_after_ns: Option<u64>,
}

impl Default for SwitchConfig {
    /// The defaults of scenario files: 1 MiB per egress port, trimming on, no ECN, no PFC, no rerouting.
    fn default() -> SwitchConfig {
        SwitchConfig {
            buffer_bytes: 1 << 20,
            ecn: None,
            trimming: true,
            pfc: None,
            reroute_after_ns: None,
        }
    }
}

/// Which links a fault or a loss rate applies to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkSel {
    /// Every link.
    All,
    /// Switch-to-switch links only.
    Fabric,
    /// Links by name (both directions), e.g. `leaf0-spine1`; see the topology's naming.
    Named(Vec<String>),
}

/// A fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// Random, independent loss on the selected links, parts per million of packets.
    Loss {
        /// Links.
        links: LinkSel,
        /// Loss rate, ppm.
        ppm: u32,
    },
    /// The selected links go down at `at_ns` (packets on them are lost).
    Down {
        /// Links.
        links: LinkSel,
        /// When, ns.
        at_ns: u64,
    },
    /// The selected links come back up at `at_ns`.
    Up {
        /// Links.
        links: LinkSel,
        /// When, ns.
        at_ns: u64,
    },
    /// The selected links run at `rate_bps` from `at_ns` on (a degraded link).
    Degrade {
        /// Links.
        links: LinkSel,
        /// When, ns.
        at_ns: u64,
        /// New rate, bits per second.
        rate_bps: u64,
    },
}

/// Packet capture of chosen flows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PcapSpec {
    /// Output file.
    pub path: std::path::PathBuf,
    /// Host pairs (source, destination) whose packets (both directions) are captured, at the source NIC.
    pub pairs: Vec<(HostId, HostId)>,
    /// Stop after this many packets.
    pub max_packets: u64,
}

/// Everything one run needs besides its workload.
#[derive(Debug, Clone, PartialEq)]
pub struct SimConfig {
    /// The fabric.
    pub topology: TopologySpec,
    /// The transport.
    pub transport: TransportSpec,
    /// Switch behaviour.
    pub switch: SwitchConfig,
    /// Faults.
    pub faults: Vec<Fault>,
    /// Seed of every random choice (same seed, same run).
    pub seed: u64,
    /// Stop the run at this simulated time even if the workload is not done, ns.
    pub stop_at_ns: Option<u64>,
    /// Carry real payload bytes and check every byte placed at the receivers (slower; off for large runs,
    /// where payloads are not materialized and ICVs are not computed).
    pub verify_data: bool,
    /// Optional packet capture.
    pub pcap: Option<PcapSpec>,
}

/// An impossible or inconsistent parameter, found before the run starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The field, as named in scenario files (e.g. `topology.hosts_per_leaf`).
    pub field: String,
    /// What is wrong with it.
    pub reason: String,
}

impl core::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}: {}", self.field, self.reason)
    }
}

impl std::error::Error for ConfigError {}
