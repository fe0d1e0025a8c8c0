//! Summary figures from hand-built run results: percentiles, goodput, completion ratio, counters, path load.

use metaroce_sim::flow::{FlowClass, FlowRecord, FlowSpec};
use metaroce_sim::metrics::{is_upward, jain, percentile, Summary};
use metaroce_sim::results::{LinkReport, LinkTier, RunResults};

#[test]
fn percentile_is_nearest_rank() {
    let v: Vec<u64> = (1..=100).collect();
    assert_eq!(percentile(&v, 50.0), 50);
    assert_eq!(percentile(&v, 90.0), 90);
    assert_eq!(percentile(&v, 99.0), 99);
    assert_eq!(percentile(&v, 99.9), 100);
    assert_eq!(percentile(&v, 100.0), 100);
    assert_eq!(percentile(&v, 0.0), 1);
    let w = [10, 20, 30, 40];
    assert_eq!(percentile(&w, 50.0), 20);
    assert_eq!(percentile(&w, 50.1), 30);
    assert_eq!(percentile(&w, 75.0), 30);
    assert_eq!(percentile(&w, 99.0), 40);
    assert_eq!(percentile(&[7], 99.9), 7);
    assert_eq!(percentile(&[], 50.0), 0);
    let thousand: Vec<u64> = (1..=1000).collect();
    assert_eq!(percentile(&thousand, 99.9), 999);
}

#[test]
fn jain_index() {
    assert!((jain(&[5, 5, 5, 5]) - 1.0).abs() < 1e-12);
    assert!((jain(&[1, 0, 0, 0]) - 0.25).abs() < 1e-12);
    // (1+2+3)^2 / (3 * 14) = 36 / 42
    assert!((jain(&[1, 2, 3]) - 36.0 / 42.0).abs() < 1e-12);
}

#[test]
fn upward_link_directions() {
    assert!(is_upward("leaf0>spine1"));
    assert!(!is_upward("spine1>leaf0"));
    assert!(is_upward("leaf3>spine0#2"));
    assert!(is_upward("p1.edge0.1>p1.agg0.0"));
    assert!(is_upward("agg2.1>core3"));
    assert!(!is_upward("core3>agg2.1"));
    assert!(is_upward("dc1.spine0>dc1.border1"));
    assert!(!is_upward("dc0.border0>dc1.border0"));
    assert!(is_upward("h5>leaf0"));
}

fn flow(
    id: u32,
    src: u32,
    dst: u32,
    bytes: u64,
    class: FlowClass,
    start: u64,
    end: Option<u64>,
) -> FlowRecord {
    FlowRecord {
        id,
        spec: FlowSpec {
            src,
            dst,
            bytes,
            class,
            tag: 0,
        },
        start_ns: start,
        end_ns: end,
    }
}

fn link(name: &str, tier: LinkTier, tx_bytes: u64, peak: u64) -> LinkReport {
    LinkReport {
        name: name.into(),
        tier,
        plane: 0,
        tx_packets: tx_bytes / 1000,
        tx_bytes,
        peak_queue_bytes: peak,
        drops_overflow: 1,
        drops_loss: 2,
        drops_down: 3,
        ecn_marked: 4,
        trimmed: 5,
        paused_ns: 100,
        pauses_sent: 1,
    }
}

fn results() -> RunResults {
    let mut nic = metaroce_proto::transport::Stats::default();
    nic.retransmits.trim = 3;
    nic.retransmits.rto = 2;
    nic.retransmits.time = 1;
    nic.timeouts = 2;
    nic.drops.duplicate = 4;
    nic.drops.out_of_window = 1;
    RunResults {
        workload: "test".into(),
        end_ns: 12_000,
        finished: true,
        wall_ns: 2_000_000_000,
        events: 1_000_000,
        packet_hops: 400_000,
        flows: vec![
            // Host 0 sends 10_000 B and 30_000 B, host 1 sends 20_000 B; the last ends at 10 us.
            flow(0, 0, 1, 10_000, FlowClass::Collective, 0, Some(4_000)),
            flow(1, 1, 0, 20_000, FlowClass::Collective, 0, Some(8_000)),
            flow(2, 0, 2, 30_000, FlowClass::Collective, 1_000, Some(10_000)),
            // Background flows never count towards completion or goodput.
            flow(3, 2, 3, 1_000_000, FlowClass::Background, 0, Some(11_000)),
            flow(4, 3, 2, 1_000_000, FlowClass::Background, 0, None),
        ],
        links: vec![
            link("h0>leaf0", LinkTier::Host, 40_000, 9_000),
            link("leaf0>spine0", LinkTier::Fabric, 100, 500),
            link("leaf0>spine1", LinkTier::Fabric, 300, 700),
            link("spine0>leaf0", LinkTier::Fabric, 1_000_000, 800),
        ],
        nic,
        hosts: 4,
        qps: 8,
        peak_rss_bytes: Some(1 << 30),
        data_errors: 0,
        host_rate_bps: 100_000_000_000,
        down_drops: Vec::new(),
    }
}

#[test]
fn summary_figures_from_results() {
    let r = results();
    let s = Summary::from(&r, 5_000);
    assert!(s.finished);
    assert_eq!(s.completion_ns, 10_000);
    assert!((s.completion_ratio - 2.0).abs() < 1e-12);
    // 60_000 B in 10 us = 48 Gbit/s; host 0: 40_000 B = 32 Gbit/s, host 1: 16 Gbit/s.
    assert!((s.goodput.aggregate_gbps - 48.0).abs() < 1e-9);
    assert!((s.goodput.per_host_mean_gbps - 24.0).abs() < 1e-9);
    assert!((s.goodput.per_host_min_gbps - 16.0).abs() < 1e-9);
    assert!((s.goodput.percent_of_line_rate - 24.0).abs() < 1e-9);
    let c = &s.fct["collective"];
    assert_eq!((c.flows, c.completed), (3, 3));
    assert_eq!((c.p50_ns, c.p99_ns, c.max_ns), (8_000, 9_000, 9_000));
    // Unloaded FCT of 10_000 B at 100G is 800 ns: slowdown 5; 20_000 B -> 1600 ns: 5; 30_000 -> 2400: 3.75.
    assert!((c.slowdown_p50 - 5.0).abs() < 1e-9);
    let b = &s.fct["background"];
    assert_eq!((b.flows, b.completed, b.max_ns), (2, 1, 11_000));
    assert!(!s.fct.contains_key("latency"));
    assert_eq!(s.retransmits.total, 6);
    assert_eq!(s.retransmits.trim, 3);
    assert_eq!(s.timeouts, 2);
    assert_eq!(s.drops.overflow, 4);
    assert_eq!(s.drops.random_loss, 8);
    assert_eq!(s.drops.link_down, 12);
    assert_eq!(s.drops.nic_rx, 5);
    assert_eq!(s.drops.trimmed, 20);
    assert_eq!(s.peak_queue_bytes["host"], 9_000);
    assert_eq!(s.peak_queue_bytes["fabric"], 800);
    assert_eq!(s.pfc_pause_ns, 400);
    // Only the two upward fabric links count as paths.
    let p = &s.path_load["fabric"];
    assert_eq!((p.links, p.min_bytes, p.max_bytes), (2, 100, 300));
    assert!((p.mean_bytes - 200.0).abs() < 1e-9);
    assert!((p.jain - 0.8).abs() < 1e-12);
    assert!((s.events_per_s - 500_000.0).abs() < 1e-6);
    assert!((s.hops_per_s - 200_000.0).abs() < 1e-6);
    assert_eq!(s.peak_rss_bytes, 1 << 30);
}

#[test]
fn unfinished_runs_report_the_stop_time_and_no_ideal_means_no_ratio() {
    let mut r = results();
    r.finished = false;
    let s = Summary::from(&r, 0);
    assert!(!s.finished);
    assert_eq!(s.completion_ns, 12_000);
    assert_eq!(s.completion_ratio, 0.0);
}

#[test]
fn metrics_are_addressable_by_dotted_name() {
    let s = Summary::from(&results(), 5_000);
    assert_eq!(s.metric("completion_ns"), Some(10_000.0));
    assert_eq!(s.metric("fct.collective.p50_ns"), Some(8_000.0));
    assert_eq!(s.metric("path_load.fabric.max_bytes"), Some(300.0));
    assert_eq!(s.metric("finished"), Some(1.0));
    assert_eq!(s.metric("workload"), None);
    assert_eq!(s.metric("no.such.thing"), None);
    let names: Vec<String> = s.flatten().into_iter().map(|(k, _)| k).collect();
    assert!(names.contains(&"retransmits.rto".to_string()));
    assert!(names.contains(&"goodput.aggregate_gbps".to_string()));
}
