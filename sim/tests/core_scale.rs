//! Scale runs (ignored by default; run in release with `--ignored --nocapture`): an all-to-all over a
//! leaf-spine of `SIM_SCALE_HOSTS` hosts (default 128) with `SIM_SCALE_BYTES` per ordered pair (default
//! 256 KiB), printing events/s, packet hops/s, wall time and peak RSS. `SIM_SCALE_WINDOW` sets
//! `transport.window_log2`, `SIM_SCALE_RTO_MIN_NS` sets `transport.rto_min_ns`.

mod core_util;

use core_util::*;
use metaroce_sim::fabric::{rss_bytes, Simulator};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
#[ignore]
fn scale_all_to_all() {
    let hosts = env_u64("SIM_SCALE_HOSTS", 128) as u32;
    let bytes = env_u64("SIM_SCALE_BYTES", 256 * 1024);
    let hpl = 16.min(hosts);
    let leaves = hosts / hpl;
    let mut cfg = config(TopologySpec_leaf_spine(leaves, hpl, hpl));
    cfg.stop_at_ns = None;
    if let Ok(w) = std::env::var("SIM_SCALE_WINDOW") {
        cfg.transport.window_log2 = w.parse().ok();
    }
    if let Ok(r) = std::env::var("SIM_SCALE_RTO_MIN_NS") {
        cfg.transport.rto_min_ns = r.parse().ok();
    }
    let rss0 = rss_bytes().unwrap_or(0);
    let mut sim = Simulator::new(cfg).unwrap();
    let rss1 = rss_bytes().unwrap_or(0);
    let mut wl = ListWorkload::all_to_all(hosts, bytes);
    let t0 = std::time::Instant::now();
    let r = sim.run(&mut wl, &mut |p| {
        eprintln!(
            "  t={} us flows {}/{} events {}",
            p.now_ns / 1000,
            p.flows_done,
            p.flows_started,
            p.events
        )
    });
    let wall = t0.elapsed().as_secs_f64();
    let rss2 = rss_bytes().unwrap_or(0);
    println!(
        "hosts {hosts} bytes {bytes}: finished {} sim {} us, wall {wall:.2} s, events {} ({:.2} M/s), hops {} ({:.2} M/s), qps {}",
        r.finished,
        r.end_ns / 1000,
        r.events,
        r.events as f64 / wall / 1e6,
        r.packet_hops,
        r.packet_hops as f64 / wall / 1e6,
        r.qps
    );
    println!(
        "rss: start {} MiB, after build {} MiB, end {} MiB, peak {} MiB; rto {} trims {} drops {}",
        rss0 >> 20,
        rss1 >> 20,
        rss2 >> 20,
        r.peak_rss_bytes.unwrap_or(0) >> 20,
        r.nic.retransmits.rto,
        r.nic.trimmed_received,
        r.links.iter().map(|l| l.drops_overflow).sum::<u64>()
    );
    println!(
        "events by kind {:?}, peaks (packets, events) {:?}",
        sim.event_counts(),
        sim.peaks()
    );
    assert!(r.finished);
}

#[allow(non_snake_case)]
fn TopologySpec_leaf_spine(
    leaves: u32,
    hpl: u32,
    spines: u32,
) -> metaroce_sim::config::TopologySpec {
    leaf_spine(leaves, hpl, spines)
}
