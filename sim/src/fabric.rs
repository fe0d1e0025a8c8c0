//! The [`Simulator`]: the topology, every host's NIC running an unchanged
//! `Endpoint`, the switches, the faults and the workload, driven by one
//! deterministic event queue.
//!
//! A run is a pure function of the configuration, the workload and the seed: events are ordered by (time,
//! sequence), every random choice comes from a per-node generator derived from the seed, and no hash-map
//! iteration order influences anything (maps are only looked up).

use crate::capture::Capture;
use crate::config::ConfigError;
use crate::config::{Fault, HostId, SimConfig};
use crate::event::{EventQueue, Kind};
use crate::flow::{Actions, FlowId, FlowRecord, FlowSpec, Workload};
use crate::link::Port;
use crate::memory::SimMemory;
use crate::nic::Nic;
use crate::packet::Arena;
use crate::results::{DownDrop, LinkReport, RunResults};
use crate::routing::Routes;
use crate::topology::{sel_dirs, sel_matches, Topology};
use metaroce_proto::harness::rng::{splitmix64, Rng};
use metaroce_proto::transport::{Endpoint, Stats};
use std::collections::{HashMap, VecDeque};

/// Progress of a running simulation, reported about every 0.25 s of wall time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Simulated time, ns.
    pub now_ns: u64,
    /// Flows started so far.
    pub flows_started: u64,
    /// Flows completed so far.
    pub flows_done: u64,
    /// Events processed so far.
    pub events: u64,
}

/// Send queue depth of the simulator's QPs (messages posted at once per QP).
pub(crate) const SQ_DEPTH: u32 = 16;

/// One direction of a [`QpPair`]: the messages its sender has not posted yet.
#[derive(Debug, Default)]
pub(crate) struct PairDir {
    /// Base address of this direction's region (the same address on both hosts).
    pub(crate) base: u64,
    /// Next offset in the region.
    pub(crate) cursor: u64,
    /// (flow, bytes not yet posted).
    pub(crate) backlog: VecDeque<(FlowId, u64)>,
    /// Messages posted and not completed.
    pub(crate) outstanding: u32,
}

/// A connected QP pair between two hosts for one flow class. RC QPs are bidirectional, so flows from either
/// host to the other share it: side `i` sends from `hosts[i]` to `hosts[1 - i]`.
#[derive(Debug)]
pub(crate) struct QpPair {
    /// The two hosts (lower id first).
    pub(crate) hosts: [HostId; 2],
    /// Their QP numbers.
    pub(crate) qpn: [u32; 2],
    /// Per sending side.
    pub(crate) dirs: [PairDir; 2],
    /// A QP failed: no more posting on this pair.
    pub(crate) dead: bool,
    /// Flow class.
    pub(crate) class: u8,
    /// Both QPs were destroyed (idle pair evicted from the hosts' QP caches).
    pub(crate) closed: bool,
}

impl QpPair {
    /// Nothing waiting or outstanding in either direction.
    pub(crate) fn idle(&self) -> bool {
        self.dirs
            .iter()
            .all(|d| d.outstanding == 0 && d.backlog.is_empty())
    }
}

/// Default of [`Simulator::set_qp_cache`]: QP pairs a host keeps before idle ones are destroyed.
pub const DEFAULT_QP_CACHE: u32 = 256;

/// Per-flow progress.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FlowState {
    /// Messages not completed yet.
    pub(crate) msgs_left: u32,
    /// A message failed.
    pub(crate) failed: bool,
}

/// The simulator.
pub struct Simulator {
    pub(crate) cfg: SimConfig,
    pub(crate) topo: Topology,
    pub(crate) routes: Routes,
    pub(crate) ports: Vec<Port>,
    pub(crate) nics: Vec<Nic>,
    pub(crate) arena: Arena,
    pub(crate) q: EventQueue,
    /// Per node: ECMP salt.
    pub(crate) salts: Vec<u64>,
    /// Per node: random stream (ECN marking, loss on its egress links).
    pub(crate) rngs: Vec<Rng>,
    /// Current time, ps.
    pub(crate) now: u64,
    pub(crate) events: u64,
    pub(crate) hops: u64,
    /// Packets lost on down links (the first `MAX_DOWN_DROPS`).
    pub(crate) down_drops: Vec<DownDrop>,
    pub(crate) flows: Vec<FlowRecord>,
    pub(crate) flow_state: Vec<FlowState>,
    pub(crate) flows_done: u64,
    /// Flows requested by the workload and not started yet.
    pub(crate) pending: Vec<FlowSpec>,
    pub(crate) wl_tokens: Vec<u64>,
    pub(crate) pairs: Vec<QpPair>,
    pub(crate) pair_of: HashMap<(HostId, HostId, u8), u32>,
    /// (host, QPN) to its pair.
    pub(crate) pair_by_qp: HashMap<(HostId, u32), u32>,
    /// Flows completed during the current event, handed to the workload after it.
    pub(crate) just_done: Vec<FlowId>,
    /// (pair, side) whose completions freed room for more messages.
    pub(crate) repost: Vec<(u32, u8)>,
    pub(crate) scratch: Vec<u8>,
    pub(crate) capture: Option<Capture>,
    pub(crate) qps: u64,
    pub(crate) mtu_frame: u64,
    /// Hosts (node ids below are hosts).
    pub(crate) hosts: u32,
    /// Per direction: sending and receiving node (compact copies of the topology's).
    pub(crate) dsrc: Vec<u32>,
    pub(crate) ddst: Vec<u32>,
    /// Per node: its plane.
    pub(crate) node_plane: Vec<u32>,
    /// DSCP a trimming switch writes.
    pub(crate) dscp_trim: u8,
    /// Events processed per [`Kind`].
    pub(crate) kind_counts: [u64; 8],
    /// Per host: QP pairs it is part of (not destroyed).
    pub(crate) live_pairs: Vec<u32>,
    /// QP pairs a host keeps before destroying idle ones.
    pub(crate) qp_cache: u32,
    /// Pairs that went idle during the current NIC service.
    pub(crate) went_idle: Vec<u32>,
}

impl std::fmt::Debug for Simulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simulator")
            .field("hosts", &self.topo.hosts())
            .field("now_ps", &self.now)
            .field("events", &self.events)
            .finish()
    }
}

/// Adds every counter of `b` into `a`.
pub fn add_stats(a: &mut Stats, b: &Stats) {
    a.tx_packets += b.tx_packets;
    a.tx_bytes += b.tx_bytes;
    a.tx_data_packets += b.tx_data_packets;
    a.tx_payload_bytes += b.tx_payload_bytes;
    a.tx_acks += b.tx_acks;
    a.rx_packets += b.rx_packets;
    a.rx_bytes += b.rx_bytes;
    a.rx_data_packets += b.rx_data_packets;
    a.rx_payload_bytes += b.rx_payload_bytes;
    a.rx_acks += b.rx_acks;
    let (r, s) = (&mut a.retransmits, &b.retransmits);
    r.trim += s.trim;
    r.time += s.time;
    r.distance += s.distance;
    r.rto += s.rto;
    r.rnr += s.rnr;
    r.no_context += s.no_context;
    r.go_back_n += s.go_back_n;
    a.timeouts += b.timeouts;
    let (d, e) = (&mut a.drops, &b.drops);
    d.bad_icv += e.bad_icv;
    d.truncated += e.truncated;
    d.bad_version += e.bad_version;
    d.bad_type += e.bad_type;
    d.bad_version_or_type += e.bad_version_or_type;
    d.bad_length += e.bad_length;
    d.bad_ip_checksum += e.bad_ip_checksum;
    d.unsupported += e.unsupported;
    d.malformed += e.malformed;
    d.not_ours += e.not_ours;
    d.bad_trim += e.bad_trim;
    d.wrong_peer += e.wrong_peer;
    d.unknown_connection += e.unknown_connection;
    d.out_of_window += e.out_of_window;
    d.duplicate += e.duplicate;
    d.access += e.access;
    d.invalid += e.invalid;
    d.stale_nack += e.stale_nack;
    d.not_for_us += e.not_for_us;
    a.ooo_arrivals += b.ooo_arrivals;
    a.ecn_ce_received += b.ecn_ce_received;
    a.ece_received += b.ece_received;
    a.trimmed_received += b.trimmed_received;
    for i in 0..a.nacks_sent.len() {
        a.nacks_sent[i] += b.nacks_sent[i];
        a.nacks_received[i] += b.nacks_received[i];
    }
    a.cnps_sent += b.cnps_sent;
    a.cnps_received += b.cnps_received;
    a.connections_opened += b.connections_opened;
    a.connections_closed += b.connections_closed;
    a.path_recycles += b.path_recycles;
    a.probes_sent += b.probes_sent;
    a.response_timeouts += b.response_timeouts;
}

/// Peak resident memory of this process (Linux `VmHWM`), bytes.
pub fn peak_rss_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Current resident memory of this process (Linux `VmRSS`), bytes.
pub fn rss_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

impl Simulator {
    /// Validates the configuration, builds the topology, its routes, the switches and one NIC per host.
    pub fn new(cfg: SimConfig) -> Result<Simulator, ConfigError> {
        let topo = cfg.validate_and_build()?;
        let routes = Routes::compute(&topo, &|_| false);
        let mut ports: Vec<Port> = (0..topo.dirs())
            .map(|d| {
                let l = topo.dir_link(d);
                Port::new(l.rate_bps, l.latency_ns)
            })
            .collect();
        for f in &cfg.faults {
            if let Fault::Loss { links, ppm } = f {
                for (i, l) in topo.links().iter().enumerate() {
                    if sel_matches(links, l) {
                        let (up, down) = sel_dirs(links, l);
                        if up {
                            ports[2 * i].loss_ppm = *ppm;
                        }
                        if down {
                            ports[2 * i + 1].loss_ppm = *ppm;
                        }
                    }
                }
            }
        }
        let n = topo.nodes().len();
        let mut seed = cfg.seed ^ 0x5EED_F00D_0000_0001;
        let salts: Vec<u64> = (0..n).map(|_| splitmix64(&mut seed)).collect();
        let rngs: Vec<Rng> = (0..n).map(|_| Rng::new(splitmix64(&mut seed))).collect();
        let capture = match &cfg.pcap {
            Some(p) => Some(Capture::open(p)?),
            None => None,
        };
        let mtu_frame = u64::from(cfg.transport.mtu) + 42 + 16 + 28 + 4;
        let mut sim = Simulator {
            arena: Arena::new(cfg.verify_data),
            nics: Vec::new(),
            q: EventQueue::new(),
            salts,
            rngs,
            now: 0,
            events: 0,
            hops: 0,
            down_drops: Vec::new(),
            flows: Vec::new(),
            flow_state: Vec::new(),
            flows_done: 0,
            pending: Vec::new(),
            wl_tokens: Vec::new(),
            pairs: Vec::new(),
            pair_of: HashMap::new(),
            pair_by_qp: HashMap::new(),
            just_done: Vec::new(),
            repost: Vec::new(),
            scratch: Vec::new(),
            capture,
            qps: 0,
            mtu_frame,
            hosts: topo.hosts(),
            dsrc: (0..topo.dirs()).map(|d| topo.dir_src(d)).collect(),
            ddst: (0..topo.dirs()).map(|d| topo.dir_dst(d)).collect(),
            node_plane: topo.nodes().iter().map(|n| n.plane).collect(),
            dscp_trim: metaroce_proto::wire::DEFAULT_DSCP_TRIM,
            kind_counts: [0; 8],
            live_pairs: Vec::new(),
            qp_cache: DEFAULT_QP_CACHE,
            went_idle: Vec::new(),
            routes,
            ports,
            topo,
            cfg,
        };
        sim.nics = (0..sim.topo.hosts()).map(|h| Nic::new(&sim, h)).collect();
        sim.live_pairs = vec![0; sim.topo.hosts() as usize];
        if let Some(n) = sim.nics.first() {
            sim.dscp_trim = n.ep.config().dscp_trim;
        }
        Ok(sim)
    }

    /// The topology.
    pub fn topology(&self) -> &Topology {
        &self.topo
    }

    /// The configuration.
    pub fn config(&self) -> &SimConfig {
        &self.cfg
    }

    /// The endpoint of host `h`.
    pub fn endpoint(&self, h: HostId) -> Option<&Endpoint<SimMemory>> {
        self.nics.get(h as usize).map(|n| &n.ep)
    }

    /// Sets how many QP pairs a host keeps: once a host is part of more, a pair that goes idle (nothing
    /// posted or outstanding either way) is destroyed on both hosts, and the next flow between them opens a
    /// new one. This bounds connection memory when many different pairs talk over a run (random background
    /// traffic); pairs in use are never destroyed. Default [`DEFAULT_QP_CACHE`]; 0 destroys every idle pair.
    pub fn set_qp_cache(&mut self, pairs_per_host: u32) {
        self.qp_cache = pairs_per_host;
    }

    /// Events processed so far by kind: arrivals, transmit completions, NIC timers, PFC, flow starts,
    /// workload timers, faults, reroutes.
    pub fn event_counts(&self) -> [u64; 8] {
        self.kind_counts
    }

    /// Most packets in flight or queued at once, and most events waiting at once.
    pub fn peaks(&self) -> (u32, usize) {
        (self.arena.peak(), self.q.peak())
    }

    /// Current simulated time, ns.
    pub fn now_ns(&self) -> u64 {
        self.now / 1000
    }

    fn apply(&mut self, act: Actions) {
        let now = self.now;
        for (t, spec) in act.flows {
            let idx = self.pending.len() as u32;
            self.pending.push(spec);
            self.q
                .push(t.saturating_mul(1000).max(now), Kind::FlowStart, idx, 0);
        }
        for (t, token) in act.timers {
            let idx = self.wl_tokens.len() as u32;
            self.wl_tokens.push(token);
            self.q
                .push(t.saturating_mul(1000).max(now), Kind::WlTimer, idx, 0);
        }
    }

    /// Runs `wl` to completion (or `stop_at_ns`); calls `progress` about every 0.25 s of wall time. One run per
    /// simulator: a second call continues from where the first stopped.
    pub fn run(
        &mut self,
        wl: &mut dyn Workload,
        progress: &mut dyn FnMut(&Progress),
    ) -> RunResults {
        let wall0 = std::time::Instant::now();
        let mut last_report = wall0;
        let stop_ps = self.cfg.stop_at_ns.map(|s| s.saturating_mul(1000));
        for (i, f) in self.cfg.faults.iter().enumerate() {
            match f {
                Fault::Loss { .. } => {}
                Fault::Down { at_ns, .. }
                | Fault::Up { at_ns, .. }
                | Fault::Degrade { at_ns, .. } => {
                    self.q
                        .push(at_ns.saturating_mul(1000), Kind::Fault, i as u32, 0)
                }
            }
        }
        let mut act = Actions::default();
        wl.start(&mut act);
        self.apply(act);
        let mut finished = wl.is_done();
        while !finished {
            let Some(ev) = self.q.pop() else {
                break;
            };
            if stop_ps.is_some_and(|s| ev.t > s) {
                self.now = stop_ps.unwrap_or(ev.t);
                break;
            }
            self.now = ev.t;
            self.events += 1;
            self.kind_counts[ev.kind as usize] += 1;
            match ev.kind {
                Kind::Arrive => self.on_arrive(ev.a, ev.b),
                Kind::TxDone => self.on_tx_done(ev.a),
                Kind::Timer => self.on_timer(ev.a, ev.t),
                Kind::Pfc => self.on_pfc(ev.a, ev.b != 0),
                Kind::FlowStart => self.start_flow(ev.a),
                Kind::WlTimer => {
                    let token = self.wl_tokens[ev.a as usize];
                    let mut act = Actions::default();
                    wl.on_timer(self.now / 1000, token, &mut act);
                    self.apply(act);
                    finished = wl.is_done();
                }
                Kind::Fault => self.on_fault(ev.a),
                Kind::Reroute => self.reroute(),
            }
            if !self.just_done.is_empty() {
                let done = std::mem::take(&mut self.just_done);
                for f in &done {
                    let rec = self.flows[*f as usize];
                    let mut act = Actions::default();
                    wl.on_flow_done(self.now / 1000, &rec, &mut act);
                    self.apply(act);
                }
                self.just_done = done;
                self.just_done.clear();
                finished = wl.is_done();
            }
            if self.events & 0xFFFF == 0 {
                let t = std::time::Instant::now();
                if t.duration_since(last_report).as_millis() >= 250 {
                    last_report = t;
                    progress(&self.progress());
                }
            }
        }
        progress(&self.progress());
        if let Some(c) = self.capture.as_mut() {
            let _ = c.finish();
        }
        self.results(wl.name(), finished, wall0.elapsed().as_nanos() as u64)
    }

    fn progress(&self) -> Progress {
        Progress {
            now_ns: self.now / 1000,
            flows_started: self.flows.len() as u64,
            flows_done: self.flows_done,
            events: self.events,
        }
    }

    fn results(&self, workload: String, finished: bool, wall_ns: u64) -> RunResults {
        let mut nic = Stats::default();
        let mut data_errors = 0;
        for n in &self.nics {
            add_stats(&mut nic, n.ep.stats());
            data_errors += n.ep.memory().errors;
        }
        let links = (0..self.topo.dirs())
            .map(|d| {
                let l = self.topo.dir_link(d);
                let p = &self.ports[d as usize];
                let s = &p.stats;
                let mut paused = s.paused_ps;
                if p.paused {
                    paused += self.now.saturating_sub(p.paused_since);
                }
                LinkReport {
                    name: self.topo.dir_name(d).to_string(),
                    tier: l.tier,
                    plane: l.plane,
                    tx_packets: s.tx_packets,
                    tx_bytes: s.tx_bytes,
                    peak_queue_bytes: s.peak_queue_bytes,
                    drops_overflow: s.drops_overflow,
                    drops_loss: s.drops_loss,
                    drops_down: s.drops_down,
                    ecn_marked: s.ecn_marked,
                    trimmed: s.trimmed,
                    paused_ns: paused / 1000,
                    pauses_sent: s.pauses_sent,
                }
            })
            .collect();
        RunResults {
            workload,
            end_ns: self.now / 1000,
            finished,
            wall_ns,
            events: self.events,
            packet_hops: self.hops,
            flows: self.flows.clone(),
            links,
            nic,
            hosts: self.topo.hosts(),
            qps: self.qps,
            peak_rss_bytes: peak_rss_bytes(),
            data_errors,
            host_rate_bps: self.topo.host_rate_bps(),
            down_drops: self.down_drops.clone(),
        }
    }

    fn on_fault(&mut self, idx: u32) {
        let Some(f) = self.cfg.faults.get(idx as usize).cloned() else {
            return;
        };
        let now_ns = self.now / 1000;
        let reroute = self.cfg.switch.reroute_after_ns;
        let links = match &f {
            Fault::Down { links, .. } | Fault::Up { links, .. } | Fault::Degrade { links, .. } => {
                links
            }
            Fault::Loss { .. } => return,
        };
        for (i, l) in self.topo.links().iter().enumerate() {
            if !sel_matches(links, l) {
                continue;
            }
            let (up_dir, down_dir) = sel_dirs(links, l);
            for (d, on) in [(2 * i, up_dir), (2 * i + 1, down_dir)] {
                if !on {
                    continue;
                }
                let p = &mut self.ports[d];
                match &f {
                    Fault::Down { .. } => {
                        if p.up {
                            p.up = false;
                            p.down_since_ns = now_ns;
                        }
                    }
                    Fault::Up { .. } => p.up = true,
                    Fault::Degrade { rate_bps, .. } => p.rate_bps = *rate_bps,
                    Fault::Loss { .. } => {}
                }
            }
        }
        match (&f, reroute) {
            (Fault::Down { .. }, Some(r)) => {
                self.q
                    .push(self.now + r.saturating_mul(1000), Kind::Reroute, 0, 0);
            }
            (Fault::Up { .. }, Some(_)) => self.reroute(),
            _ => {}
        }
    }

    /// Recomputes the routes without the links down for at least `reroute_after_ns`.
    fn reroute(&mut self) {
        let Some(after) = self.cfg.switch.reroute_after_ns else {
            return;
        };
        let now_ns = self.now / 1000;
        let ports = &self.ports;
        let excluded = |l: u32| {
            [2 * l, 2 * l + 1].iter().any(|&d| {
                let p = &ports[d as usize];
                !p.up && p.down_since_ns.saturating_add(after) <= now_ns
            })
        };
        self.routes = Routes::compute(&self.topo, &excluded);
    }
}
