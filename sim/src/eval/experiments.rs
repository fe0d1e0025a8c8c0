//! The eight experiments of `docs/evaluation.md`: their runs and their reports.

use super::{csv, table, verdict, Experiment, Report, RunOut, RunSpec, Scale};
use crate::config::TopologySpec;
use crate::metrics::percentile_f64;
use crate::output::svg::{line_plot, Series};
use crate::output::table::fmt_ns;
use crate::results::LinkTier;
use crate::topology::Topology;

/// Every experiment, in the document's order.
pub static EXPERIMENTS: [Experiment; 8] = [
    Experiment {
        id: "loss-sweep",
        number: 1,
        title: "Goodput under random loss",
        file: "01-loss-sweep.toml",
        runs: loss_runs,
        report: loss_report,
    },
    Experiment {
        id: "ecmp",
        number: 2,
        title: "ECMP collisions in a permutation",
        file: "02-ecmp-permutation.toml",
        runs: ecmp_runs,
        report: ecmp_report,
    },
    Experiment {
        id: "incast",
        number: 3,
        title: "Incast",
        file: "03-incast.toml",
        runs: incast_runs,
        report: incast_report,
    },
    Experiment {
        id: "link-failure",
        number: 4,
        title: "A spine link fails during an all-to-all",
        file: "04-link-failure.toml",
        runs: failure_runs,
        report: failure_report,
    },
    Experiment {
        id: "collectives",
        number: 5,
        title: "Collectives at scale",
        file: "05-collectives.toml",
        runs: collective_runs,
        report: collective_report,
    },
    Experiment {
        id: "multi-dc",
        number: 6,
        title: "A collective across two data centers",
        file: "06-multi-dc.toml",
        runs: dc_runs,
        report: dc_report,
    },
    Experiment {
        id: "inference",
        number: 7,
        title: "Inference messages under collective load",
        file: "07-inference.toml",
        runs: inference_runs,
        report: inference_report,
    },
    Experiment {
        id: "irn",
        number: 8,
        title: "Selective repeat without PFC against go-back-N with PFC",
        file: "08-irn.toml",
        runs: irn_runs,
        report: irn_report,
    },
];

/// Overrides that turn a scenario into the RoCEv2 baseline on a lossless fabric: PFC, DCQCN, no trimming, and
/// 16 MiB per egress port, so that every ingress of a 32-port switch can reach Xoff with a link's worth of
/// headroom (32 x (256 KiB + 50 KB) < 16 MiB) and no queue ever overflows, as a shared-buffer switch would
/// give.
const ROCE_PFC: [&str; 6] = [
    "transport.kind=rocev2",
    "transport.cc=dcqcn",
    "switch.trimming=false",
    "switch.buffer_bytes=16777216",
    "switch.pfc.xoff_bytes=262144",
    "switch.pfc.xon_bytes=196608",
];

fn with(base: &[&str], more: &[&str]) -> Vec<String> {
    base.iter().chain(more).map(|s| s.to_string()).collect()
}

fn spec(label: impl Into<String>, overrides: &[String]) -> RunSpec {
    let o: Vec<&str> = overrides.iter().map(String::as_str).collect();
    RunSpec::new(label, &o)
}

fn f1(x: f64) -> String {
    format!("{x:.1}")
}

fn f2(x: f64) -> String {
    format!("{x:.2}")
}

/// Goodput as a percentage of one host's line rate.
fn pct_of_line(r: &RunOut, gbps: f64) -> f64 {
    gbps * 1e11 / r.results.host_rate_bps.max(1) as f64
}

/// Per-flow goodput of the measured flows (bytes over each flow's completion time) as percentages of one host's
/// line rate: `(min, median)`; unfinished flows count as 0.
fn per_flow_pct(r: &RunOut) -> (f64, f64) {
    let rate = r.results.host_rate_bps.max(1) as f64;
    let mut v: Vec<f64> = r
        .results
        .flows
        .iter()
        .filter(|f| f.spec.class != crate::flow::FlowClass::Background)
        .map(|f| match f.fct_ns() {
            Some(t) if t > 0 => f.spec.bytes as f64 * 8.0 * 1e9 / t as f64 / rate * 100.0,
            _ => 0.0,
        })
        .collect();
    v.sort_by(f64::total_cmp);
    (v.first().copied().unwrap_or(0.0), percentile_f64(&v, 50.0))
}

/// A report: the table, then the goal line and one bullet per verdict, the CSV of the same rows, and the plot.
fn goal_report(
    head: &[&str],
    rows: &[Vec<String>],
    goal: &str,
    verdicts: &[String],
    svg: Option<String>,
) -> Report {
    let mut md = table(head, rows);
    md += &format!("\nGoal: {goal}\n");
    for v in verdicts {
        md += &format!("- {v}.\n");
    }
    Report {
        markdown: md,
        csv: csv(head, rows),
        svg,
    }
}

/// Adds point `(x, y)` to the series named `name`, creating it if needed.
fn add_point(series: &mut Vec<Series>, name: &str, x: f64, y: f64) {
    match series.iter_mut().find(|s| s.name == name) {
        Some(s) => s.points.push((x, y)),
        None => series.push(Series {
            name: name.to_string(),
            points: vec![(x, y)],
        }),
    }
}

/// An empirical CDF of `values` (at most 200 points), as a series named `name`.
fn cdf_series(name: &str, mut values: Vec<f64>) -> Series {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    let step = n.div_ceil(200).max(1);
    let mut points: Vec<(f64, f64)> = values
        .iter()
        .enumerate()
        .filter(|(i, _)| i % step == 0 || *i + 1 == n)
        .map(|(i, &v)| (v, (i + 1) as f64 * 100.0 / n as f64))
        .collect();
    points.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
    Series {
        name: name.to_string(),
        points,
    }
}

/// FCTs (µs) of the flows of `class` that completed.
fn fcts_us(r: &RunOut, class: crate::flow::FlowClass) -> Vec<f64> {
    r.results
        .flows
        .iter()
        .filter(|f| f.spec.class == class)
        .filter_map(|f| f.fct_ns())
        .map(|t| t as f64 / 1e3)
        .collect()
}

/// The transport a run used, for tables.
fn transport(r: &RunOut) -> String {
    let t = r.spec.get("transport.kind").unwrap_or("metaroce");
    match (t, r.scenario.sim.switch.pfc.is_some()) {
        ("rocev2", true) => "RoCEv2 + PFC".into(),
        ("rocev2", false) => "RoCEv2".into(),
        _ => "MetaRoCE".into(),
    }
}

fn finished(r: &RunOut) -> String {
    if r.summary.finished {
        "yes".into()
    } else {
        format!("no (stopped at {})", fmt_ns(r.summary.sim_end_ns))
    }
}

/// Unloaded round trip between the two farthest hosts for a full data frame, ns.
fn base_rtt_ns(r: &RunOut) -> u64 {
    let Ok(topo) = Topology::build(&r.scenario.sim.topology) else {
        return 1;
    };
    let frame = u64::from(r.scenario.sim.transport.mtu) + 110;
    let last = topo.hosts().saturating_sub(1);
    (topo.one_way_ns(0, last, frame) + topo.one_way_ns(last, 0, 128)).max(1)
}

// ---------------------------------------------------------------------------------------------------------
// 1. Loss sweep

const LOSS_PPM: [u32; 5] = [0, 100, 1_000, 10_000, 50_000];

fn loss_runs(scale: Scale) -> Vec<RunSpec> {
    let bytes = match scale {
        Scale::Full => "workload.bytes=16777216",
        Scale::Quick => "workload.bytes=524288",
    };
    let mut v = Vec::new();
    for t in ["metaroce", "rocev2"] {
        for ppm in LOSS_PPM {
            let o = [
                format!("transport.kind={t}"),
                format!("faults.0.ppm={ppm}"),
                bytes.to_string(),
            ];
            v.push(spec(format!("{t} {ppm} ppm"), &o));
        }
    }
    v
}

fn loss_report(runs: &[RunOut]) -> Report {
    let head = [
        "transport",
        "loss",
        "goodput (% of line)",
        "slowest flow (% of line)",
        "completion / ideal",
        "retransmissions",
        "timeouts",
        "finished",
    ];
    let mut rows = Vec::new();
    let mut series: Vec<Series> = Vec::new();
    let mut goal = None;
    for r in runs {
        let ppm: f64 = r
            .spec
            .get("faults.0.ppm")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0.0);
        // The permutation's goodput: all bytes over the completion time of the slowest flow, per host.
        let mean = pct_of_line(r, r.summary.goodput.per_host_mean_gbps);
        let (min, _) = per_flow_pct(r);
        let t = transport(r);
        if t == "MetaRoCE" && ppm == 10_000.0 {
            goal = Some(mean);
        }
        rows.push(vec![
            t.clone(),
            format!("{}%", ppm / 1e4),
            f1(mean),
            f1(min),
            f2(r.summary.completion_ratio),
            r.summary.retransmits.total.to_string(),
            r.summary.timeouts.to_string(),
            finished(r),
        ]);
        match series.iter_mut().find(|s| s.name == t) {
            Some(s) => s.points.push((ppm / 1e4, mean)),
            None => series.push(Series {
                name: t,
                points: vec![(ppm / 1e4, mean)],
            }),
        }
    }
    let mut md = table(&head, &rows);
    if let Some(g) = goal {
        md += &format!(
            "\nGoal: MetaRoCE at least 90% of line rate at 1% loss: {:.1}%, {}.\n",
            g,
            verdict(g >= 90.0)
        );
    }
    Report {
        markdown: md,
        csv: csv(&head, &rows),
        svg: Some(line_plot(
            "Goodput under random loss (16-host permutation, 400 Gb/s)",
            "loss rate, %",
            "goodput, % of line rate",
            &series,
            false,
        )),
    }
}

// ---------------------------------------------------------------------------------------------------------
// 2. ECMP collisions

fn ecmp_runs(scale: Scale) -> Vec<RunSpec> {
    let (bytes, seeds): (&str, &[u64]) = match scale {
        Scale::Full => ("workload.bytes=8388608", &[1, 2, 3]),
        Scale::Quick => ("workload.bytes=262144", &[1]),
    };
    let mut v = Vec::new();
    for t in ["metaroce", "rocev2"] {
        for &s in seeds {
            let o = [
                format!("transport.kind={t}"),
                format!("seed={s}"),
                bytes.to_string(),
            ];
            v.push(spec(format!("{t} seed {s}"), &o));
        }
    }
    v
}

fn ecmp_report(runs: &[RunOut]) -> Report {
    let head = [
        "transport",
        "seed",
        "slowest flow (% of line)",
        "median flow (% of line)",
        "uplink load Jain index",
        "uplink load max/mean",
        "completion / ideal",
        "retransmissions",
    ];
    let mut rows = Vec::new();
    let mut worst_meta = f64::MAX;
    let mut series = Vec::new();
    for r in runs {
        let (min, median) = per_flow_pct(r);
        add_point(
            &mut series,
            &format!("{}, slowest flow", transport(r)),
            r.scenario.sim.seed as f64,
            min,
        );
        add_point(
            &mut series,
            &format!("{}, median flow", transport(r)),
            r.scenario.sim.seed as f64,
            median,
        );
        let (jain, maxmean) = r
            .summary
            .path_load
            .get("fabric")
            .map(|p| (p.jain, p.max_bytes as f64 / p.mean_bytes.max(1.0)))
            .unwrap_or((0.0, 0.0));
        if transport(r) == "MetaRoCE" {
            worst_meta = worst_meta.min(min);
        }
        rows.push(vec![
            transport(r),
            r.scenario.sim.seed.to_string(),
            f1(min),
            f1(median),
            format!("{jain:.3}"),
            f2(maxmean),
            f2(r.summary.completion_ratio),
            r.summary.retransmits.total.to_string(),
        ]);
    }
    let mut md = table(&head, &rows);
    if worst_meta < f64::MAX {
        md += &format!(
            "\nGoal: MetaRoCE at least 95% of line rate per flow: slowest flow {:.1}%, {}.\n",
            worst_meta,
            verdict(worst_meta >= 95.0)
        );
    }
    Report {
        markdown: md,
        csv: csv(&head, &rows),
        svg: Some(line_plot(
            "Per-flow goodput in a 128-host permutation",
            "seed",
            "goodput, % of line rate",
            &series,
            false,
        )),
    }
}

// ---------------------------------------------------------------------------------------------------------
// 3. Incast

fn incast_runs(scale: Scale) -> Vec<RunSpec> {
    let (senders, bytes): (&[u32], &str) = match scale {
        Scale::Full => (&[64, 256], "workload.bytes=262144"),
        Scale::Quick => (&[16], "workload.bytes=65536"),
    };
    let mut v = Vec::new();
    for &n in senders {
        for t in ["metaroce", "rocev2"] {
            let o = [
                format!("transport.kind={t}"),
                format!("workload.senders={n}"),
                bytes.to_string(),
            ];
            v.push(spec(format!("{n}:1 {t}"), &o));
        }
    }
    v
}

fn incast_report(runs: &[RunOut]) -> Report {
    let head = [
        "incast",
        "transport",
        "receiver goodput (% of line)",
        "timeouts",
        "retransmissions (trim / time / rto / go-back-N)",
        "trimmed",
        "queue drops",
        "peak receiver-port queue",
    ];
    let mut rows = Vec::new();
    let mut goals = Vec::new();
    let mut series = Vec::new();
    for r in runs {
        let n = r.spec.get("workload.senders").unwrap_or("?").to_string();
        let gp = pct_of_line(r, r.summary.goodput.aggregate_gbps);
        add_point(&mut series, &transport(r), n.parse().unwrap_or(0.0), gp);
        let rt = &r.summary.retransmits;
        if transport(r) == "MetaRoCE" {
            goals.push(format!(
                "{n}:1: {} timeouts, receiver goodput {:.1}%: {}",
                r.summary.timeouts,
                gp,
                verdict(r.summary.timeouts == 0 && gp >= 95.0)
            ));
        }
        rows.push(vec![
            format!("{n}:1"),
            transport(r),
            f1(gp),
            r.summary.timeouts.to_string(),
            format!("{} / {} / {} / {}", rt.trim, rt.time, rt.rto, rt.go_back_n),
            r.summary.drops.trimmed.to_string(),
            r.summary.drops.overflow.to_string(),
            crate::output::table::fmt_bytes(
                r.summary.peak_queue_bytes.get("host").copied().unwrap_or(0),
            ),
        ]);
    }
    goal_report(
        &head,
        &rows,
        "zero retransmission timeouts and at least 95% goodput on the receiver's link.",
        &goals,
        Some(line_plot(
            "Incast: goodput on the receiver's link",
            "senders",
            "goodput, % of line rate",
            &series,
            false,
        )),
    )
}

// ---------------------------------------------------------------------------------------------------------
// 4. Link failure

fn failure_runs(scale: Scale) -> Vec<RunSpec> {
    let size: &[&str] = match scale {
        Scale::Full => &[],
        Scale::Quick => &["workload.bytes=32768", "faults.0.at_ns=20000"],
    };
    vec![
        spec("MetaRoCE", &with(size, &[])),
        spec(
            "MetaRoCE, no failure",
            &with(size, &["faults.0.at_ns=1000000000000"]),
        ),
        spec(
            "RoCEv2 + PFC, routing converges after 1 ms",
            &with(
                size,
                &[ROCE_PFC.as_slice(), &["switch.reroute_after_ns=1000000"]].concat(),
            ),
        ),
    ]
}

/// Re-path times in base RTTs (MR-PATH-16): for every (host pair, entropy value) that lost packets on the failed
/// link, the time from its first such loss to its last (how long the sender kept using that EV after the link
/// had failed under it); `(EVs hit, p50, p99, max, share of data packets lost there)`.
fn repath_rtts(r: &RunOut) -> Option<(usize, f64, f64, f64, f64)> {
    let rtt = base_rtt_ns(r) as f64;
    let mut span: std::collections::BTreeMap<(u32, u32, u16), (u64, u64)> = Default::default();
    for d in &r.results.down_drops {
        let e = span
            .entry((d.src, d.dst, d.sport))
            .or_insert((d.at_ns, d.at_ns));
        e.0 = e.0.min(d.at_ns);
        e.1 = e.1.max(d.at_ns);
    }
    if span.is_empty() {
        return None;
    }
    let mut v: Vec<f64> = span.values().map(|&(a, b)| (b - a) as f64 / rtt).collect();
    v.sort_by(f64::total_cmp);
    let share =
        r.results.down_drops.len() as f64 * 100.0 / r.results.nic.tx_data_packets.max(1) as f64;
    Some((
        v.len(),
        percentile_f64(&v, 50.0),
        percentile_f64(&v, 99.0),
        v.last().copied().unwrap_or(0.0),
        share,
    ))
}

fn failure_report(runs: &[RunOut]) -> Report {
    let head = [
        "run",
        "completion",
        "ideal (degraded fabric)",
        "completion / ideal",
        "packets lost on the dead link (% of data packets)",
        "EVs hit",
        "EV kept on the dead link p50 / p99 / max (base RTTs)",
        "timeouts",
        "finished",
    ];
    let mut rows = Vec::new();
    let mut md_goal = String::new();
    for r in runs {
        let rp = repath_rtts(r);
        let rp_s = rp.map_or("-".into(), |(_, a, b, c, _)| {
            format!("{} / {} / {}", f1(a), f1(b), f1(c))
        });
        if r.spec.label == "MetaRoCE" {
            let ratio = r.summary.completion_ratio;
            md_goal += &format!(
                "\nGoals: completion within 1.05x the ideal of the degraded topology: {:.3}x, {}; re-path within 2 \
                 base RTTs: p99 {}, {}.\n",
                ratio,
                verdict(ratio <= 1.05 && r.summary.finished),
                rp.map_or("-".into(), |x| f1(x.2)),
                verdict(rp.is_some_and(|x| x.2 <= 2.0))
            );
        }
        rows.push(vec![
            r.spec.label.clone(),
            fmt_ns(r.summary.completion_ns),
            fmt_ns(r.summary.ideal_ns),
            f2(r.summary.completion_ratio),
            format!(
                "{} ({})",
                r.summary.drops.link_down,
                rp.map_or("0".into(), |x| format!("{:.2}%", x.4))
            ),
            rp.map_or("0".into(), |x| x.0.to_string()),
            rp_s,
            r.summary.timeouts.to_string(),
            finished(r),
        ]);
    }
    let mut md = table(&head, &rows);
    md += &md_goal;
    Report {
        markdown: md,
        csv: csv(&head, &rows),
        svg: None,
    }
}

// ---------------------------------------------------------------------------------------------------------
// 5. Collectives at scale

fn collective_runs(scale: Scale) -> Vec<RunSpec> {
    // (hosts, leaves) with 16 hosts per leaf and 16 spines: 1:1.
    let sizes: &[(u32, u32)] = match scale {
        Scale::Full => &[(128, 8), (256, 16), (512, 32)],
        Scale::Quick => &[(32, 2)],
    };
    let (a2a, ring) = match scale {
        Scale::Full => ("workload.bytes=262144", "workload.bytes=67108864"),
        Scale::Quick => ("workload.bytes=16384", "workload.bytes=1048576"),
    };
    let mut v = Vec::new();
    for &(hosts, leaves) in sizes {
        let topo = [format!("topology.leaves={leaves}")];
        for (kind, bytes) in [("all-to-all", a2a), ("ring-allreduce", ring)] {
            let wl = [format!("workload.kind={kind}"), bytes.to_string()];
            let meta: Vec<String> = topo.iter().chain(&wl).cloned().collect();
            v.push(spec(format!("{hosts} {kind} MetaRoCE"), &meta));
            let roce: Vec<String> = meta
                .iter()
                .cloned()
                .chain(ROCE_PFC.iter().map(|s| s.to_string()))
                .collect();
            v.push(spec(format!("{hosts} {kind} RoCEv2+PFC"), &roce));
        }
    }
    v
}

fn collective_report(runs: &[RunOut]) -> Report {
    let head = [
        "hosts",
        "collective",
        "transport",
        "completion",
        "ideal",
        "completion / ideal",
        "retransmissions",
        "timeouts",
        "PFC pause (sum over links)",
        "events/s",
        "wall",
        "peak RSS of the process so far",
    ];
    let mut rows = Vec::new();
    let mut series = Vec::new();
    for r in runs {
        add_point(
            &mut series,
            &format!(
                "{} {}",
                r.spec.get("workload.kind").unwrap_or("?"),
                transport(r)
            ),
            f64::from(r.results.hosts),
            r.summary.completion_ratio,
        );
        rows.push(vec![
            r.results.hosts.to_string(),
            r.spec.get("workload.kind").unwrap_or("?").to_string(),
            transport(r),
            fmt_ns(r.summary.completion_ns),
            fmt_ns(r.summary.ideal_ns),
            f2(r.summary.completion_ratio),
            r.summary.retransmits.total.to_string(),
            r.summary.timeouts.to_string(),
            fmt_ns(r.summary.pfc_pause_ns),
            crate::output::table::fmt_rate(r.summary.events_per_s),
            format!("{:.1} s", r.summary.wall_s),
            crate::output::table::fmt_bytes(r.summary.peak_rss_bytes),
        ]);
    }
    Report {
        markdown: table(&head, &rows),
        csv: csv(&head, &rows),
        svg: Some(line_plot(
            "Collectives: completion time over the ideal",
            "hosts",
            "completion / ideal",
            &series,
            false,
        )),
    }
}

// ---------------------------------------------------------------------------------------------------------
// 6. Two data centers

fn dc_runs(scale: Scale) -> Vec<RunSpec> {
    let (lat, bytes): (&[u64], &str) = match scale {
        Scale::Full => (&[500_000, 2_500_000], "workload.bytes=4194304"),
        Scale::Quick => (&[500_000], "workload.bytes=65536"),
    };
    let mut v = Vec::new();
    for &l in lat {
        let o = [
            format!("topology.long_haul.latency_ns={l}"),
            bytes.to_string(),
        ];
        v.push(spec(format!("{} ms RTT MetaRoCE", 2 * l / 1_000_000), &o));
    }
    v
}

/// Long-haul bytes over the completion time against the long-haul capacity of both directions.
fn long_haul_use(r: &RunOut) -> f64 {
    let TopologySpec::MultiDc {
        long_haul,
        borders,
        long_haul_links,
        dcs,
        ..
    } = &r.scenario.sim.topology
    else {
        return 0.0;
    };
    let dirs =
        2 * u64::from(*borders) * u64::from(*long_haul_links) * u64::from(dcs.saturating_sub(1));
    let bytes: u64 = r
        .results
        .links
        .iter()
        .filter(|l| l.tier == LinkTier::LongHaul)
        .map(|l| l.tx_bytes)
        .sum();
    let secs = r.summary.completion_ns.max(1) as f64 / 1e9;
    let cap = (dirs * long_haul.rate_bps) as f64 * secs / 8.0;
    100.0 * bytes as f64 / cap.max(1.0)
}

fn dc_report(runs: &[RunOut]) -> Report {
    let head = [
        "run",
        "completion",
        "ideal",
        "completion / ideal",
        "long-haul use (% of capacity)",
        "retransmissions",
        "timeouts",
        "finished",
    ];
    let mut rows = Vec::new();
    let mut goals = Vec::new();
    let mut series = Vec::new();
    for r in runs {
        let u = long_haul_use(r);
        let rtt_ms = match &r.scenario.sim.topology {
            TopologySpec::MultiDc { long_haul, .. } => 2.0 * long_haul.latency_ns as f64 / 1e6,
            _ => 0.0,
        };
        add_point(&mut series, &transport(r), rtt_ms, u);
        goals.push(format!(
            "{}: {:.1}% of the long-haul capacity, {}",
            r.spec.label,
            u,
            verdict(u >= 90.0)
        ));
        rows.push(vec![
            r.spec.label.clone(),
            fmt_ns(r.summary.completion_ns),
            fmt_ns(r.summary.ideal_ns),
            f2(r.summary.completion_ratio),
            f1(u),
            r.summary.retransmits.total.to_string(),
            r.summary.timeouts.to_string(),
            finished(r),
        ]);
    }
    goal_report(
        &head,
        &rows,
        "at least 90% of the long-haul capacity at 0.1% loss.",
        &goals,
        Some(line_plot(
            "Two data centers: long-haul use",
            "long-haul RTT, ms",
            "% of long-haul capacity",
            &series,
            false,
        )),
    )
}

// ---------------------------------------------------------------------------------------------------------
// 7. Inference under load

fn inference_runs(scale: Scale) -> Vec<RunSpec> {
    let quick: &[&str] = match scale {
        Scale::Full => &[],
        Scale::Quick => &["workload.messages=20"],
    };
    let mut v = Vec::new();
    for t in ["metaroce", "rocev2"] {
        let base = [format!("transport.kind={t}")];
        let base: Vec<String> = base
            .into_iter()
            .chain(quick.iter().map(|s| s.to_string()))
            .collect();
        v.push(spec(format!("{t} unloaded"), &base));
        let mut loaded = base.clone();
        loaded.extend(
            [
                "background.0.kind=uniform-random",
                "background.0.load_percent=60",
                "background.0.sizes={ kind = \"fixed\", bytes = 4194304 }",
            ]
            .map(String::from),
        );
        v.push(spec(format!("{t} loaded"), &loaded));
    }
    v
}

fn inference_report(runs: &[RunOut]) -> Report {
    let head = [
        "transport",
        "background",
        "p50 FCT",
        "p99 FCT",
        "p99.9 FCT",
        "p99 / unloaded p99",
        "background FCT p50",
    ];
    let mut rows = Vec::new();
    let mut goals = Vec::new();
    let mut series = Vec::new();
    for r in runs {
        series.push(cdf_series(
            &r.spec.label,
            fcts_us(r, crate::flow::FlowClass::Latency),
        ));
        let lat = r.summary.fct.get("latency").cloned().unwrap_or_default();
        let loaded = r.spec.label.ends_with("loaded") && !r.spec.label.ends_with("unloaded");
        let t = transport(r);
        let unloaded_p99 = runs
            .iter()
            .find(|u| transport(u) == t && u.spec.label.ends_with("unloaded"))
            .and_then(|u| u.summary.fct.get("latency").map(|c| c.p99_ns))
            .unwrap_or(0);
        let ratio = lat.p99_ns as f64 / unloaded_p99.max(1) as f64;
        if loaded && t == "MetaRoCE" {
            goals.push(format!(
                "MetaRoCE p99 under load is {:.2}x the unloaded p99: {}",
                ratio,
                verdict(ratio <= 2.0)
            ));
        }
        let bg = r
            .summary
            .fct
            .get("background")
            .map_or("-".into(), |c| fmt_ns(c.p50_ns));
        rows.push(vec![
            t,
            if loaded {
                "60% load".into()
            } else {
                "none".into()
            },
            fmt_ns(lat.p50_ns),
            fmt_ns(lat.p99_ns),
            fmt_ns(lat.p999_ns),
            f2(ratio),
            bg,
        ]);
    }
    goal_report(
        &head,
        &rows,
        "p99 at most 2x the unloaded value.",
        &goals,
        Some(line_plot(
            "Inference messages: FCT distribution",
            "FCT, us (log)",
            "% of messages",
            &series,
            true,
        )),
    )
}

// ---------------------------------------------------------------------------------------------------------
// 8. IRN comparison

fn irn_runs(scale: Scale) -> Vec<RunSpec> {
    let quick: &[&str] = match scale {
        Scale::Full => &[],
        Scale::Quick => &["workload.duration_ns=50000"],
    };
    vec![
        spec("MetaRoCE (sprayed, NSCC, trimming)", &with(quick, &[])),
        spec(
            "selective repeat, 1 path, DCQCN, no PFC",
            &with(
                quick,
                &[
                    "transport.paths=1",
                    "transport.cc=dcqcn",
                    "switch.trimming=false",
                ],
            ),
        ),
        spec("RoCEv2 go-back-N + PFC", &with(quick, &ROCE_PFC)),
    ]
}

fn irn_report(runs: &[RunOut]) -> Report {
    let head = [
        "variant",
        "flows done",
        "FCT p50",
        "FCT p99",
        "FCT p99.9",
        "slowdown p50",
        "slowdown p99",
        "queue drops",
        "PFC pause (sum over links)",
    ];
    let mut rows = Vec::new();
    let mut series = Vec::new();
    for r in runs {
        series.push(cdf_series(
            &r.spec.label,
            fcts_us(r, crate::flow::FlowClass::Background),
        ));
        let c = r.summary.fct.get("background").cloned().unwrap_or_default();
        rows.push(vec![
            r.spec.label.clone(),
            format!("{}/{}", c.completed, c.flows),
            fmt_ns(c.p50_ns),
            fmt_ns(c.p99_ns),
            fmt_ns(c.p999_ns),
            f2(c.slowdown_p50),
            f2(c.slowdown_p99),
            r.summary.drops.overflow.to_string(),
            fmt_ns(r.summary.pfc_pause_ns),
        ]);
    }
    Report {
        markdown: table(&head, &rows),
        csv: csv(&head, &rows),
        svg: Some(line_plot(
            "Random flows at 70% load: FCT distribution",
            "FCT, us (log)",
            "% of flows",
            &series,
            true,
        )),
    }
}
