//! Figures of one run: completion time against the ideal, goodput, FCT percentiles, retransmissions, drops,
//! queues, PFC, per-path load and simulator speed, computed from [`RunResults`].

use crate::flow::{FlowClass, FlowRecord};
use crate::results::{LinkReport, LinkTier, RunResults};
use serde::Serialize;
use std::collections::BTreeMap;

/// The nearest-rank percentile of ascending `sorted` values: the smallest value such that at least `p`
/// percent of the values are at or below it (`sorted[ceil(p/100 * n) - 1]`); 0 for no values.
pub fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let n = sorted.len();
    let rank = nearest_rank(p, n);
    sorted[rank.clamp(1, n) - 1]
}

/// `ceil(p/100 * n)`, tolerant of the rounding of `p` (99.9% of 1000 is rank 999).
fn nearest_rank(p: f64, n: usize) -> usize {
    let x = p * n as f64 / 100.0;
    (x - 1e-9 * x.abs().max(1.0)).ceil().max(0.0) as usize
}

/// Same as [`percentile`] for floating-point values.
pub fn percentile_f64(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let n = sorted.len();
    let rank = nearest_rank(p, n);
    sorted[rank.clamp(1, n) - 1]
}

/// Jain's fairness index of `xs`: `(sum x)^2 / (n * sum x^2)`, 1 when all equal, `1/n` when one takes all
/// (1 for no values or all zero).
pub fn jain(xs: &[u64]) -> f64 {
    let sum: f64 = xs.iter().map(|&x| x as f64).sum();
    let sq: f64 = xs.iter().map(|&x| (x as f64) * (x as f64)).sum();
    if xs.is_empty() || sq == 0.0 {
        return 1.0;
    }
    sum * sum / (xs.len() as f64 * sq)
}

/// The name of a flow class in reports.
pub fn class_name(c: FlowClass) -> &'static str {
    match c {
        FlowClass::Collective => "collective",
        FlowClass::Background => "background",
        FlowClass::Latency => "latency",
    }
}

/// The name of a link tier in reports.
pub fn tier_name(t: LinkTier) -> &'static str {
    match t {
        LinkTier::Host => "host",
        LinkTier::Fabric => "fabric",
        LinkTier::Core => "core",
        LinkTier::Border => "border",
        LinkTier::LongHaul => "long-haul",
    }
}

/// Flow completion times of one class.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ClassFct {
    /// Flows started.
    pub flows: u64,
    /// Flows that completed.
    pub completed: u64,
    /// Median FCT, ns.
    pub p50_ns: u64,
    /// 90th percentile, ns.
    pub p90_ns: u64,
    /// 99th percentile, ns.
    pub p99_ns: u64,
    /// 99.9th percentile, ns.
    pub p999_ns: u64,
    /// Largest, ns.
    pub max_ns: u64,
    /// Mean, ns.
    pub mean_ns: f64,
    /// Median slowdown (FCT over the flow's unloaded FCT).
    pub slowdown_p50: f64,
    /// 99th percentile slowdown.
    pub slowdown_p99: f64,
}

/// Goodput of the measured flows over the completion time.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Goodput {
    /// Sum over hosts, Gbit/s.
    pub aggregate_gbps: f64,
    /// Mean over the hosts that sent measured bytes, Gbit/s.
    pub per_host_mean_gbps: f64,
    /// Smallest of those, Gbit/s.
    pub per_host_min_gbps: f64,
    /// `per_host_mean_gbps` as a percentage of one host's line rate.
    pub percent_of_line_rate: f64,
}

/// Retransmissions by cause (sum over NICs).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RetransmitSummary {
    /// All causes.
    pub total: u64,
    /// After a NACK TRIMMED.
    pub trim: u64,
    /// Time-based (RACK) detection.
    pub time: u64,
    /// Reorder-distance detection.
    pub distance: u64,
    /// RTO expiry.
    pub rto: u64,
    /// After an RNR NACK.
    pub rnr: u64,
    /// After NO_CONTEXT.
    pub no_context: u64,
    /// RoCEv2 go-back-N.
    pub go_back_n: u64,
}

/// Packets lost, by cause.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DropSummary {
    /// Switch or NIC queue full (tail drop).
    pub overflow: u64,
    /// Random link loss.
    pub random_loss: u64,
    /// Sent onto a link that was down.
    pub link_down: u64,
    /// Dropped by receiving NICs, every reason (duplicates, out of window, ...).
    pub nic_rx: u64,
    /// Of which duplicates (already received PSN).
    pub nic_duplicate: u64,
    /// Data packets trimmed by switches (not lost: their headers went on).
    pub trimmed: u64,
    /// Packets marked ECN CE.
    pub ecn_marked: u64,
}

/// Load spread over the upward links of one tier (bytes sent per link): how evenly paths are used.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PathLoad {
    /// Links counted.
    pub links: u64,
    /// Least-loaded link, bytes.
    pub min_bytes: u64,
    /// Mean, bytes.
    pub mean_bytes: f64,
    /// Most-loaded link, bytes.
    pub max_bytes: u64,
    /// Jain's fairness index of the per-link bytes.
    pub jain: f64,
}

/// Everything reported about a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Workload name.
    pub workload: String,
    /// Hosts simulated.
    pub hosts: u32,
    /// The measured workload finished (else the run hit `stop_at_ns`).
    pub finished: bool,
    /// Completion time of the measured workload: the last measured flow's end, ns (the run's end if it did
    /// not finish).
    pub completion_ns: u64,
    /// Ideal completion time on an unloaded fabric, ns (0: none defined).
    pub ideal_ns: u64,
    /// `completion_ns / ideal_ns` (0 when no ideal is defined).
    pub completion_ratio: f64,
    /// Goodput of the measured flows.
    pub goodput: Goodput,
    /// FCTs per class (`collective`, `latency`, `background`; classes with no flow are left out).
    pub fct: BTreeMap<String, ClassFct>,
    /// Retransmissions.
    pub retransmits: RetransmitSummary,
    /// RTO expiries.
    pub timeouts: u64,
    /// Losses and marks.
    pub drops: DropSummary,
    /// Highest egress queue per link tier, bytes.
    pub peak_queue_bytes: BTreeMap<String, u64>,
    /// Sum over link directions of the time their queue was paused by PFC, ns.
    pub pfc_pause_ns: u64,
    /// PFC pause frames sent.
    pub pfc_pauses_sent: u64,
    /// Load over the upward links of each switch tier (`fabric`, `core`, `border`) and the long-haul links.
    pub path_load: BTreeMap<String, PathLoad>,
    /// Events processed.
    pub events: u64,
    /// Packet hops.
    pub packet_hops: u64,
    /// Wall-clock time, s.
    pub wall_s: f64,
    /// Events per wall-clock second.
    pub events_per_s: f64,
    /// Packet hops per wall-clock second.
    pub hops_per_s: f64,
    /// Simulated time at the end, ns.
    pub sim_end_ns: u64,
    /// QPs created.
    pub qps: u64,
    /// Peak resident memory, bytes (0 if unknown).
    pub peak_rss_bytes: u64,
    /// Payload bytes that arrived wrong (`verify_data`; must be 0).
    pub data_errors: u64,
}

/// The rank of a node kind in the hierarchy, from its name (`h3`, `dc1.leaf0`, `p1.spine2`, `agg0.1`): hosts 0,
/// leaf/edge 1, spine/agg 2, core/border 3.
fn rank(node: &str) -> Option<u8> {
    let base = node
        .split('.')
        .find(|p| !is_prefix(p))
        .unwrap_or(node)
        .trim_start_matches(|c: char| !c.is_ascii_alphabetic());
    let kind: String = base
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    match kind.as_str() {
        "h" => Some(0),
        "leaf" | "edge" => Some(1),
        "spine" | "agg" => Some(2),
        "core" | "border" => Some(3),
        _ => None,
    }
}

fn is_prefix(p: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    p.strip_prefix("dc").is_some_and(digits) || p.strip_prefix('p').is_some_and(digits)
}

/// True if the link direction `a>b` goes up the hierarchy (e.g. `leaf0>spine1`, `p1.agg0.1>p1.core2`).
pub fn is_upward(name: &str) -> bool {
    let name = name.split('#').next().unwrap_or(name);
    match name.split_once('>') {
        Some((a, b)) => matches!((rank(a), rank(b)), (Some(x), Some(y)) if x < y),
        None => false,
    }
}

impl Summary {
    /// Figures of `r` with `ideal_ns` from the workload ([`crate::workload::WorkloadSpec::ideal_ns`]); the
    /// unloaded FCT of a flow for slowdowns is its bytes at one host's line rate.
    pub fn from(r: &RunResults, ideal_ns: u64) -> Summary {
        let rate = r.host_rate_bps.max(1);
        Summary::from_with(r, ideal_ns, &|f: &FlowRecord| {
            ((u128::from(f.spec.bytes) * 8 * 1_000_000_000) / u128::from(rate)) as u64
        })
    }

    /// Same as [`Summary::from`] with `unloaded(flow)` the flow's unloaded FCT, ns (e.g. with the path's
    /// latency and header overheads).
    pub fn from_with(
        r: &RunResults,
        ideal_ns: u64,
        unloaded: &dyn Fn(&FlowRecord) -> u64,
    ) -> Summary {
        let measured = |f: &FlowRecord| f.spec.class != FlowClass::Background;
        let last_end = r
            .flows
            .iter()
            .filter(|f| measured(f))
            .filter_map(|f| f.end_ns)
            .max()
            .unwrap_or(0);
        let completion_ns = if r.finished { last_end } else { r.end_ns };

        // Goodput of measured, completed flows.
        let mut per_host = vec![0u64; r.hosts as usize];
        for f in r.flows.iter().filter(|f| measured(f) && f.end_ns.is_some()) {
            if let Some(b) = per_host.get_mut(f.spec.src as usize) {
                *b += f.spec.bytes;
            }
        }
        let gbps = |bytes: u64| {
            if completion_ns == 0 {
                0.0
            } else {
                bytes as f64 * 8.0 / completion_ns as f64
            }
        };
        let senders: Vec<f64> = per_host
            .iter()
            .filter(|&&b| b > 0)
            .map(|&b| gbps(b))
            .collect();
        let mean = if senders.is_empty() {
            0.0
        } else {
            senders.iter().sum::<f64>() / senders.len() as f64
        };
        let goodput = Goodput {
            aggregate_gbps: gbps(per_host.iter().sum()),
            per_host_mean_gbps: mean,
            per_host_min_gbps: if senders.is_empty() {
                0.0
            } else {
                senders.iter().copied().fold(f64::INFINITY, f64::min)
            },
            percent_of_line_rate: mean * 1e9 / r.host_rate_bps.max(1) as f64 * 100.0,
        };

        let mut fct = BTreeMap::new();
        for class in [
            FlowClass::Collective,
            FlowClass::Latency,
            FlowClass::Background,
        ] {
            let flows: Vec<&FlowRecord> =
                r.flows.iter().filter(|f| f.spec.class == class).collect();
            if flows.is_empty() {
                continue;
            }
            let mut t: Vec<u64> = flows.iter().filter_map(|f| f.fct_ns()).collect();
            t.sort_unstable();
            let mut sd: Vec<f64> = flows
                .iter()
                .filter_map(|f| f.fct_ns().map(|x| x as f64 / unloaded(f).max(1) as f64))
                .collect();
            sd.sort_by(f64::total_cmp);
            let c = ClassFct {
                flows: flows.len() as u64,
                completed: t.len() as u64,
                p50_ns: percentile(&t, 50.0),
                p90_ns: percentile(&t, 90.0),
                p99_ns: percentile(&t, 99.0),
                p999_ns: percentile(&t, 99.9),
                max_ns: t.last().copied().unwrap_or(0),
                mean_ns: if t.is_empty() {
                    0.0
                } else {
                    t.iter().map(|&x| x as f64).sum::<f64>() / t.len() as f64
                },
                slowdown_p50: percentile_f64(&sd, 50.0),
                slowdown_p99: percentile_f64(&sd, 99.0),
            };
            fct.insert(class_name(class).to_string(), c);
        }

        let rt = &r.nic.retransmits;
        let retransmits = RetransmitSummary {
            total: rt.total(),
            trim: rt.trim,
            time: rt.time,
            distance: rt.distance,
            rto: rt.rto,
            rnr: rt.rnr,
            no_context: rt.no_context,
            go_back_n: rt.go_back_n,
        };
        let d = &r.nic.drops;
        let nic_rx = d.total();
        let sum = |f: fn(&LinkReport) -> u64| r.links.iter().map(f).sum::<u64>();
        let drops = DropSummary {
            overflow: sum(|l| l.drops_overflow),
            random_loss: sum(|l| l.drops_loss),
            link_down: sum(|l| l.drops_down),
            nic_rx,
            nic_duplicate: d.duplicate,
            trimmed: sum(|l| l.trimmed),
            ecn_marked: sum(|l| l.ecn_marked),
        };

        let mut peak_queue_bytes = BTreeMap::new();
        let mut loads: BTreeMap<String, Vec<u64>> = BTreeMap::new();
        for l in &r.links {
            let e = peak_queue_bytes
                .entry(tier_name(l.tier).to_string())
                .or_insert(0);
            *e = (*e).max(l.peak_queue_bytes);
            let counted = match l.tier {
                LinkTier::Host => false,
                LinkTier::LongHaul => true,
                _ => is_upward(&l.name),
            };
            if counted {
                loads
                    .entry(tier_name(l.tier).to_string())
                    .or_default()
                    .push(l.tx_bytes);
            }
        }
        let path_load = loads
            .into_iter()
            .map(|(k, v)| {
                let p = PathLoad {
                    links: v.len() as u64,
                    min_bytes: v.iter().copied().min().unwrap_or(0),
                    mean_bytes: v.iter().map(|&x| x as f64).sum::<f64>() / v.len().max(1) as f64,
                    max_bytes: v.iter().copied().max().unwrap_or(0),
                    jain: jain(&v),
                };
                (k, p)
            })
            .collect();
        let wall_s = r.wall_ns as f64 / 1e9;
        let per_s = |x: u64| if wall_s > 0.0 { x as f64 / wall_s } else { 0.0 };
        Summary {
            workload: r.workload.clone(),
            hosts: r.hosts,
            finished: r.finished,
            completion_ns,
            ideal_ns,
            completion_ratio: if ideal_ns == 0 {
                0.0
            } else {
                completion_ns as f64 / ideal_ns as f64
            },
            goodput,
            fct,
            retransmits,
            timeouts: r.nic.timeouts,
            drops,
            peak_queue_bytes,
            pfc_pause_ns: sum(|l| l.paused_ns),
            pfc_pauses_sent: sum(|l| l.pauses_sent),
            path_load,
            events: r.events,
            packet_hops: r.packet_hops,
            wall_s,
            events_per_s: per_s(r.events),
            hops_per_s: per_s(r.packet_hops),
            sim_end_ns: r.end_ns,
            qps: r.qps,
            peak_rss_bytes: r.peak_rss_bytes.unwrap_or(0),
            data_errors: r.data_errors,
        }
    }

    /// Every figure as `(dotted name, value)`, in a stable order (e.g. `completion_ns`,
    /// `fct.collective.p99_ns`, `goodput.aggregate_gbps`): the columns of summary CSVs and the metrics a sweep
    /// can plot.
    pub fn flatten(&self) -> Vec<(String, serde_json::Value)> {
        let mut out = Vec::new();
        if let Ok(v) = serde_json::to_value(self) {
            flatten_into("", &v, &mut out);
        }
        out
    }

    /// One figure by its dotted name (see [`Summary::flatten`]), as a number.
    pub fn metric(&self, name: &str) -> Option<f64> {
        self.flatten()
            .into_iter()
            .find(|(k, _)| k == name)
            .and_then(|(_, v)| match v {
                serde_json::Value::Number(n) => n.as_f64(),
                serde_json::Value::Bool(b) => Some(if b { 1.0 } else { 0.0 }),
                _ => None,
            })
    }
}

fn flatten_into(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, serde_json::Value)>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten_into(&p, x, out);
            }
        }
        other => out.push((prefix.to_string(), other.clone())),
    }
}
