//! A complete run: a [`Pair`] of endpoints, a workload on one or both directions, the verifier at the end.
//!
//! [`run`] is what the reliability tests, the demo and the fuzz replay call: it builds everything from a
//! [`ScenarioConfig`] and one seed, drives the pair until every work request has completed (or the time limit
//! says the run hangs), lets stray retransmissions and duplicates drain, and returns an [`Outcome`] with the
//! verdict, the trace hash and the measurements.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::link::{LinkConfig, LinkStats};
use super::pair::{Pair, PairStats, Side, StepOutcome};
use super::rng::{splitmix64, Rng};
use super::verify::{check_side, CheckSummary, CheckedMemory, Expectations};
use super::workload::{Flow, HarnessMemory, OpKind, WorkloadConfig};
use crate::transport::{
    Endpoint, EndpointConfig, Event, Mode, Qpn, RemoteQp, SparseMemory, Stats, WcOpcode, WcStatus,
};

/// MAC of endpoint `a`.
pub const MAC_A: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0A];
/// MAC of endpoint `b`.
pub const MAC_B: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0B];
/// IP of endpoint `a`.
pub const IP_A: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
/// IP of endpoint `b`.
pub const IP_B: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));
/// IPv6 address of endpoint `a` (scenarios with `ipv6`).
pub const IP6_A: IpAddr = IpAddr::V6(Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 1));
/// IPv6 address of endpoint `b`.
pub const IP6_B: IpAddr = IpAddr::V6(Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 2));

/// Everything a run is made of.
#[derive(Clone, Debug)]
pub struct ScenarioConfig {
    /// Transport mode of both endpoints.
    pub mode: Mode,
    /// The seed: endpoints, links and workload all derive from it.
    pub seed: u64,
    /// Link `a -> b`.
    pub link_ab: LinkConfig,
    /// Link `b -> a`.
    pub link_ba: LinkConfig,
    /// The workload of each flow.
    pub workload: WorkloadConfig,
    /// Also run a flow from `b` to `a` at the same time.
    pub bidirectional: bool,
    /// Virtual-time limit (ns): reaching it with work outstanding is a hang.
    pub time_limit_ns: u64,
    /// Extra virtual time (ns) to keep running after the last completion (late duplicates, idle close).
    pub drain_ns: u64,
    /// Base RTT the endpoints are told (ns); their line rate is `link_ab.rate_bps`.
    pub base_rtt_ns: u64,
    /// EV set size of MetaRoCE endpoints (`None`: the endpoint default).
    pub ev_paths: Option<u8>,
    /// Payload MTU of both endpoints (`None`: the endpoint default).
    pub mtu: Option<u32>,
    /// Changes applied to both endpoint configs after everything else (timers, windows...).
    pub tweak: Option<fn(&mut EndpointConfig)>,
    /// Send queue depth of each QP.
    pub max_send_wr: u32,
    /// Receive queue depth of each QP.
    pub max_recv_wr: u32,
    /// QP pairs between the endpoints; each carries its own flow(s) of `workload`.
    pub qps: usize,
    /// Use IPv6 addresses instead of IPv4.
    pub ipv6: bool,
    /// Tag every frame with this 802.1Q TCI.
    pub vlan: Option<u16>,
    /// Record every delivered frame into [`Outcome::capture`] (for a pcap file).
    pub capture: bool,
}

impl ScenarioConfig {
    /// A 100 Gb/s, `paths`-path link in both directions (2 µs base delay, 300 ns between paths), default
    /// workload, 50 ms limit.
    pub fn new(mode: Mode, seed: u64, paths: usize) -> Self {
        let link = LinkConfig::multipath(100_000_000_000, paths, 2_000, 300);
        let mut rev = link.clone();
        rev.ecmp_salt ^= 0xABCD;
        ScenarioConfig {
            mode,
            seed,
            link_ab: link,
            link_ba: rev,
            workload: WorkloadConfig::default(),
            bidirectional: false,
            time_limit_ns: 50_000_000,
            drain_ns: 200_000,
            base_rtt_ns: 2 * (2_000 + 300 * paths.max(1) as u64),
            ev_paths: None,
            mtu: None,
            tweak: None,
            max_send_wr: 64,
            max_recv_wr: 256,
            capture: false,
            qps: 1,
            ipv6: false,
            vlan: None,
        }
    }

    /// Applies `f` to both link directions.
    pub fn links(mut self, f: impl Fn(&mut LinkConfig)) -> Self {
        f(&mut self.link_ab);
        f(&mut self.link_ba);
        self
    }
}

/// The endpoint config the harness uses for `mode` on side `side`.
pub fn endpoint_config(mode: Mode, side: Side, seed: u64) -> EndpointConfig {
    let (mac, ip) = match side {
        Side::A => (MAC_A, IP_A),
        Side::B => (MAC_B, IP_B),
    };
    let mut c = match mode {
        Mode::MetaRoce => EndpointConfig::metaroce(mac, ip),
        Mode::RoceV2 => EndpointConfig::rocev2(mac, ip),
    };
    c.seed = seed;
    c
}

/// Result of a run.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The seed.
    pub seed: u64,
    /// Trace hash (same seed => same hash).
    pub trace_hash: u64,
    /// Verdict of the checks of side `a` and side `b`.
    pub verdict: Result<(CheckSummary, CheckSummary), String>,
    /// Virtual time of the first post.
    pub start_ns: u64,
    /// Virtual time of the last completion.
    pub end_ns: u64,
    /// Payload bytes of all messages.
    pub payload_bytes: u64,
    /// Payload bytes that travel `a -> b` (WRITE/SEND from `a`, READ by `b`); the rest travel `b -> a`.
    pub payload_bytes_ab: u64,
    /// Messages.
    pub messages: u64,
    /// Completion time of every send WR (post -> completion), ns.
    pub latencies_ns: Vec<u64>,
    /// Transport counters of `a` and `b`.
    pub stats: (Stats, Stats),
    /// Link counters `a -> b` and `b -> a`.
    pub links: (LinkStats, LinkStats),
    /// Frames per path `a -> b`.
    pub path_counts_ab: Vec<u64>,
    /// Driver counters.
    pub pair: PairStats,
    /// The op mix actually drawn (flow a->b).
    pub mix: String,
    /// Every delivered frame with its delivery time and receiving side, if [`ScenarioConfig::capture`].
    pub capture: Vec<(u64, Side, Vec<u8>)>,
}

impl Outcome {
    /// Panics with the seed and the reason if the run failed (for tests).
    pub fn assert_ok(&self, name: &str) {
        if let Err(e) = &self.verdict {
            panic!(
                "scenario {name} failed (replay with METAROCE_SEED={}): {e}",
                self.seed
            );
        }
    }

    /// Goodput (both directions together) in bits per second of virtual time, or 0 for an empty run.
    pub fn goodput_bps(&self) -> u64 {
        self.rate_of(self.payload_bytes)
    }

    /// Goodput of the `a -> b` and `b -> a` directions, bits per second of virtual time.
    pub fn goodput_bps_per_direction(&self) -> (u64, u64) {
        (
            self.rate_of(self.payload_bytes_ab),
            self.rate_of(self.payload_bytes - self.payload_bytes_ab),
        )
    }

    fn rate_of(&self, bytes: u64) -> u64 {
        let dt = self.end_ns.saturating_sub(self.start_ns);
        if dt == 0 {
            return 0;
        }
        (u128::from(bytes) * 8 * 1_000_000_000 / u128::from(dt)) as u64
    }

    /// The `p`-th percentile (0..=100) of the message completion times, ns.
    pub fn latency_percentile(&self, p: u64) -> u64 {
        let mut v = self.latencies_ns.clone();
        if v.is_empty() {
            return 0;
        }
        v.sort_unstable();
        let idx = ((v.len() as u64 - 1) * p.min(100)).div_ceil(100) as usize;
        v[idx.min(v.len() - 1)]
    }
}

/// A pair and its connected QP pairs `(QP on a, QP on b)`.
type Connected = (Pair<HarnessMemory>, Vec<(Qpn, Qpn)>);

/// Builds the pair and connects `cfg.qps` QP pairs.
fn setup(cfg: &ScenarioConfig) -> Result<Connected, String> {
    let mut s = cfg.seed;
    let mut ca = endpoint_config(cfg.mode, Side::A, splitmix64(&mut s));
    let mut cb = endpoint_config(cfg.mode, Side::B, splitmix64(&mut s));
    let (ip_a, ip_b) = if cfg.ipv6 {
        (IP6_A, IP6_B)
    } else {
        (IP_A, IP_B)
    };
    ca.ip = ip_a;
    cb.ip = ip_b;
    for c in [&mut ca, &mut cb] {
        c.vlan = cfg.vlan;
        c.line_rate_bps = cfg.link_ab.rate_bps;
        c.base_rtt_ns = cfg.base_rtt_ns;
        if let (Some(p), Mode::MetaRoce) = (cfg.ev_paths, cfg.mode) {
            c.paths = p;
        }
        if let Some(m) = cfg.mtu {
            c.mtu = m;
        }
    }
    if let Some(t) = cfg.tweak {
        t(&mut ca);
        t(&mut cb);
    }
    let mut pair = Pair::new(
        ca,
        CheckedMemory::new(SparseMemory::new()),
        cb,
        CheckedMemory::new(SparseMemory::new()),
        cfg.link_ab.clone(),
        cfg.link_ba.clone(),
        splitmix64(&mut s),
    );
    pair.set_time_limit(cfg.time_limit_ns);
    let mut qps = Vec::new();
    for _ in 0..cfg.qps.max(1) {
        let qa = pair
            .a
            .create_qp(cfg.max_send_wr, cfg.max_recv_wr)
            .map_err(|e| format!("create_qp a: {e:?}"))?;
        let qb = pair
            .b
            .create_qp(cfg.max_send_wr, cfg.max_recv_wr)
            .map_err(|e| format!("create_qp b: {e:?}"))?;
        pair.a
            .connect_qp(
                qa,
                RemoteQp {
                    mac: MAC_B,
                    ip: ip_b,
                    qpn: qb,
                },
            )
            .map_err(|e| format!("connect_qp a: {e:?}"))?;
        pair.b
            .connect_qp(
                qb,
                RemoteQp {
                    mac: MAC_A,
                    ip: ip_a,
                    qpn: qa,
                },
            )
            .map_err(|e| format!("connect_qp b: {e:?}"))?;
        qps.push((qa, qb));
    }
    Ok((pair, qps))
}

/// A flow and which side is its requester.
struct Running {
    flow: Flow,
    index: u32,
    req: Side,
}

/// Runs a scenario to the end and checks it.
pub fn run(cfg: &ScenarioConfig) -> Outcome {
    let mut rng = Rng::new(cfg.seed ^ 0x574F_524B_4C4F_4144);
    let mut exp_a = Expectations {
        exactly_once: true,
        ..Default::default()
    };
    let mut exp_b = exp_a.clone();
    let mut out = Outcome {
        seed: cfg.seed,
        trace_hash: 0,
        verdict: Ok(Default::default()),
        start_ns: 0,
        end_ns: 0,
        payload_bytes: 0,
        payload_bytes_ab: 0,
        messages: 0,
        latencies_ns: Vec::new(),
        stats: (Stats::default(), Stats::default()),
        links: (LinkStats::default(), LinkStats::default()),
        path_counts_ab: Vec::new(),
        pair: PairStats::default(),
        mix: String::new(),
        capture: Vec::new(),
    };
    let (mut pair, qps) = match setup(cfg) {
        Ok(p) => p,
        Err(e) => {
            out.verdict = Err(e);
            return out;
        }
    };
    let mut flows = Vec::new();
    for (n, &(qa, qb)) in qps.iter().enumerate() {
        let Pair { a, b, .. } = &mut pair;
        let index = 2 * n as u32;
        match Flow::plan(
            &mut rng,
            &cfg.workload,
            index,
            a,
            qa,
            &mut exp_a,
            b,
            qb,
            &mut exp_b,
        ) {
            Ok(f) => flows.push(Running {
                flow: f,
                index,
                req: Side::A,
            }),
            Err(e) => {
                out.verdict = Err(e);
                return out;
            }
        }
        if cfg.bidirectional {
            match Flow::plan(
                &mut rng,
                &cfg.workload,
                index + 1,
                b,
                qb,
                &mut exp_b,
                a,
                qa,
                &mut exp_a,
            ) {
                Ok(f) => flows.push(Running {
                    flow: f,
                    index: index + 1,
                    req: Side::B,
                }),
                Err(e) => {
                    out.verdict = Err(e);
                    return out;
                }
            }
        }
    }
    out.mix = flows.first().map(|f| f.flow.describe()).unwrap_or_default();
    for f in &flows {
        out.payload_bytes += f.flow.total_bytes;
        let reads: u64 = f
            .flow
            .ops
            .iter()
            .filter(|o| o.kind == OpKind::Read)
            .map(|o| u64::from(o.len))
            .sum();
        out.payload_bytes_ab += match f.req {
            Side::A => f.flow.total_bytes - reads,
            Side::B => reads,
        };
        out.messages += f.flow.ops.len() as u64;
    }
    pair.a.memory_mut().start_recording();
    pair.b.memory_mut().start_recording();
    if cfg.capture {
        pair.enable_tap();
    }
    let expected_sends = exp_a.sends.len() + exp_b.sends.len();
    let expected_recvs = exp_a.recvs.len() + exp_b.recvs.len();
    let mut events_a: Vec<Event> = Vec::new();
    let mut events_b: Vec<Event> = Vec::new();
    let mut sends_done = 0usize;
    let mut recvs_done = 0usize;
    let mut qp_error = false;
    // The first QP error and the first non-success completion, for the failure message.
    let mut first_error: Option<String> = None;
    out.start_ns = pair.now();
    let mut failure: Option<String> = None;
    loop {
        let now = pair.now();
        for f in flows.iter_mut() {
            let r = {
                let Pair { a, b, .. } = &mut pair;
                match f.req {
                    Side::A => f.flow.pump(now, a, b),
                    Side::B => f.flow.pump(now, b, a),
                }
            };
            if let Err(e) = r {
                failure.get_or_insert(e);
            }
        }
        if failure.is_some() {
            break;
        }
        let st = pair.step();
        for side in [Side::A, Side::B] {
            for (t, ev) in pair.take_events(side) {
                if let Event::Completion(c) = &ev {
                    if matches!(c.opcode, WcOpcode::Recv | WcOpcode::RecvWriteImm) {
                        recvs_done += 1;
                    } else {
                        sends_done += 1;
                        out.end_ns = out.end_ns.max(t);
                        let posted = flows
                            .iter()
                            .filter(|f| f.req == side)
                            .find_map(|f| f.flow.op_index(f.index, c.wr_id).map(|i| (f, i)))
                            .and_then(|(f, i)| f.flow.posted_at.get(i).copied().flatten());
                        if let Some(p) = posted {
                            out.latencies_ns.push(t.saturating_sub(p));
                        }
                    }
                }
                if matches!(ev, Event::QpError { .. }) {
                    qp_error = true;
                }
                let is_error = match &ev {
                    Event::QpError { .. } => true,
                    Event::Completion(c) => c.status != WcStatus::Success,
                    _ => false,
                };
                if is_error && first_error.is_none() {
                    first_error = Some(format!("{side:?} at {t} ns: {ev:?}"));
                }
                match side {
                    Side::A => events_a.push(ev),
                    Side::B => events_b.push(ev),
                }
            }
        }
        let all_posted = flows.iter().all(|f| f.flow.all_posted());
        if all_posted && sends_done >= expected_sends && (recvs_done >= expected_recvs || qp_error)
        {
            break;
        }
        match st {
            StepOutcome::Advanced => {}
            StepOutcome::Idle => {
                failure = Some(format!(
                    "pair went idle at {} ns with {sends_done}/{expected_sends} send and {recvs_done}/{expected_recvs} receive completions",
                    pair.now()
                ));
                break;
            }
            StepOutcome::TimeLimit => {
                failure = Some(format!(
                    "time limit {} ns reached with {sends_done}/{expected_sends} send and {recvs_done}/{expected_recvs} receive completions (hang?)",
                    pair.time_limit()
                ));
                break;
            }
        }
    }
    if let (Some(f), Some(e)) = (failure.as_mut(), first_error.as_ref()) {
        f.push_str("; first error event: ");
        f.push_str(e);
    }
    // Drain: late duplicates and retransmissions must not complete anything twice or write again.
    if failure.is_none() {
        let until = pair.now().saturating_add(cfg.drain_ns);
        pair.set_time_limit(until);
        pair.run_until(|p| p.now() >= until);
        events_a.extend(pair.take_events(Side::A).into_iter().map(|(_, e)| e));
        events_b.extend(pair.take_events(Side::B).into_iter().map(|(_, e)| e));
    }
    out.trace_hash = pair.trace_hash();
    out.stats = (*pair.a.stats(), *pair.b.stats());
    out.links = (*pair.ab.stats(), *pair.ba.stats());
    out.path_counts_ab = pair.ab.path_counts();
    out.pair = *pair.stats();
    out.capture = pair.take_tap();
    out.verdict = match failure {
        Some(e) => Err(e),
        None => {
            let ra = check_side(
                "a",
                &exp_a,
                &events_a,
                pair.a.memory(),
                pair.a.memory().writes(),
            );
            let rb = check_side(
                "b",
                &exp_b,
                &events_b,
                pair.b.memory(),
                pair.b.memory().writes(),
            );
            match (ra, rb) {
                (Ok(x), Ok(y)) => Ok((x, y)),
                (Err(e), _) | (_, Err(e)) => Err(e),
            }
        }
    };
    out
}

/// Builds a connected pair with the given configs (for hand-written scenarios and fuzzing).
pub fn connected_pair(
    mode: Mode,
    seed: u64,
    link_ab: LinkConfig,
    link_ba: LinkConfig,
) -> Result<(Pair<HarnessMemory>, Qpn, Qpn), String> {
    let mut cfg = ScenarioConfig::new(mode, seed, 1);
    cfg.link_ab = link_ab;
    cfg.link_ba = link_ba;
    let (pair, qps) = setup(&cfg)?;
    let (qa, qb) = qps.first().copied().ok_or("no QP")?;
    Ok((pair, qa, qb))
}

/// The endpoint type of the harness.
pub type HarnessEndpoint = Endpoint<HarnessMemory>;
