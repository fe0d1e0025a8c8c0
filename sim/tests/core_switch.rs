//! Switch features move their counters when (and only when) they should: ECN marking, trimming, tail drop,
//! PFC, link down and rerouting, random loss; per-plane spraying.

mod core_util;

use core_util::*;
use metaroce_sim::config::*;
use metaroce_sim::fabric::Simulator;
use metaroce_sim::results::RunResults;

fn run(cfg: SimConfig, wl: &mut ListWorkload) -> RunResults {
    let mut sim = Simulator::new(cfg).unwrap();
    sim.run(wl, &mut |_| {})
}

fn sum(r: &RunResults, f: impl Fn(&metaroce_sim::results::LinkReport) -> u64) -> u64 {
    r.links.iter().map(f).sum()
}

fn link<'a>(r: &'a RunResults, name: &str) -> &'a metaroce_sim::results::LinkReport {
    r.links.iter().find(|l| l.name == name).unwrap()
}

/// 8 senders on leaf 0 to one receiver on leaf 1.
fn incast() -> ListWorkload {
    let pairs: Vec<(u32, u32)> = (0..8).map(|s| (s, 8)).collect();
    ListWorkload::pairs(&pairs, 256 * 1024)
}

#[test]
fn mr_enc_22_ecn_marks_only_when_enabled() {
    // One leaf: the only congested port is the receiver's.
    let mut c = config(leaf_spine(1, 9, 1));
    let r = run(c.clone(), &mut incast());
    assert!(r.finished);
    assert_eq!(sum(&r, |l| l.ecn_marked), 0);
    assert_eq!(r.nic.ecn_ce_received, 0);
    c.switch.ecn = Some(EcnConfig {
        kmin_bytes: 20_000,
        kmax_bytes: 100_000,
        pmax_percent: 20,
    });
    let r = run(c, &mut incast());
    assert!(r.finished);
    let marked = link(&r, "leaf0>h8").ecn_marked;
    assert!(marked > 0, "no CE marks on the incast port");
    assert_eq!(
        sum(&r, |l| l.ecn_marked),
        marked,
        "only the congested port marks"
    );
    assert_eq!(r.nic.ecn_ce_received, marked);
}

#[test]
fn mr_enc_trimming_replaces_drops_for_metaroce_only() {
    let mut c = config(leaf_spine(2, 8, 2));
    c.switch.buffer_bytes = 64 * 1024;
    let r = run(c.clone(), &mut incast());
    assert!(r.finished);
    let port = link(&r, "leaf1>h8");
    assert!(port.trimmed > 0, "{port:?}");
    assert_eq!(sum(&r, |l| l.drops_overflow), 0);
    // A trimmed packet of a connection not yet known to the receiver (DCID 0) cannot be NACKed
    // (MR-ENC-36): it is counted as a bad trim instead.
    assert_eq!(
        r.nic.trimmed_received + r.nic.drops.bad_trim,
        sum(&r, |l| l.trimmed)
    );
    assert!(r.nic.retransmits.trim > 0);
    assert!(port.peak_queue_bytes <= 2 * 64 * 1024);
    // Without trimming: tail drops instead.
    c.switch.trimming = false;
    let r = run(c, &mut incast());
    assert!(r.finished);
    assert_eq!(sum(&r, |l| l.trimmed), 0);
    assert!(link(&r, "leaf1>h8").drops_overflow > 0);
    // RoCEv2 packets are never trimmed even with trimming on.
    let mut c = rocev2(leaf_spine(2, 8, 2));
    c.switch.buffer_bytes = 64 * 1024;
    c.switch.trimming = true;
    let r = run(c, &mut incast());
    assert_eq!(sum(&r, |l| l.trimmed), 0);
    assert!(sum(&r, |l| l.drops_overflow) > 0);
}

#[test]
fn pfc_pauses_upstream_and_avoids_drops() {
    let mut c = rocev2(leaf_spine(2, 8, 2));
    // Per-egress buffers: lossless when fan-in x (xoff + in-flight headroom) fits the buffer.
    c.switch.buffer_bytes = 1 << 20;
    c.switch.pfc = Some(PfcConfig {
        xoff_bytes: 64 * 1024,
        xon_bytes: 32 * 1024,
    });
    let r = run(c.clone(), &mut incast());
    assert!(r.finished, "{:?}", r.end_ns);
    assert_eq!(sum(&r, |l| l.drops_overflow), 0);
    assert!(sum(&r, |l| l.pauses_sent) > 0);
    assert!(sum(&r, |l| l.paused_ns) > 0);
    // The receiving leaf pauses the spines feeding it (its ingress from them).
    let spine_down: u64 = r
        .links
        .iter()
        .filter(|l| l.name.starts_with("spine") && l.name.contains(">leaf1"))
        .map(|l| l.paused_ns)
        .sum();
    assert!(spine_down > 0);
    c.switch.pfc = None;
    let r = run(c, &mut incast());
    assert_eq!(sum(&r, |l| l.pauses_sent), 0);
    assert_eq!(sum(&r, |l| l.paused_ns), 0);
}

#[test]
fn link_down_blackholes_until_rerouted() {
    // Hosts 0..4 on leaf 0 send to 4..8 on leaf 1 over 2 spines; leaf0-spine0 fails at 20 us.
    let pairs: Vec<(u32, u32)> = (0..4).map(|s| (s, s + 4)).collect();
    let mut c = config(leaf_spine(2, 4, 2));
    c.faults.push(Fault::Down {
        links: LinkSel::Named(vec!["leaf0-spine0".into()]),
        at_ns: 20_000,
    });
    let r = run(c.clone(), &mut ListWorkload::pairs(&pairs, 1 << 20));
    assert!(r.finished, "MetaRoCE must route around the failed link");
    let blackholed = link(&r, "leaf0>spine0").drops_down;
    assert!(blackholed > 0);
    // With rerouting after 50 us, fewer packets are lost and nothing goes up the dead link afterwards.
    c.switch.reroute_after_ns = Some(50_000);
    let r2 = run(c, &mut ListWorkload::pairs(&pairs, 1 << 20));
    assert!(r2.finished);
    let d2 = link(&r2, "leaf0>spine0").drops_down;
    assert!(d2 > 0 && d2 <= blackholed, "{d2} vs {blackholed}");
}

#[test]
fn random_loss_is_counted_and_recovered_with_verified_data() {
    let mut c = config(leaf_spine(2, 4, 2));
    c.verify_data = true;
    c.faults.push(Fault::Loss {
        links: LinkSel::Fabric,
        ppm: 20_000,
    });
    let pairs: Vec<(u32, u32)> = (0..8).map(|s| (s, (s + 5) % 8)).collect();
    let r = run(c, &mut ListWorkload::pairs(&pairs, 300_000));
    assert!(r.finished);
    let lost = sum(&r, |l| l.drops_loss);
    assert!(lost > 0);
    let host_loss: u64 = r
        .links
        .iter()
        .filter(|l| l.name.starts_with('h') || l.name.contains(">h"))
        .map(|l| l.drops_loss)
        .sum();
    assert_eq!(host_loss, 0, "loss only on fabric links");
    let rtx = r.nic.retransmits;
    assert!(rtx.time + rtx.distance + rtx.rto > 0);
    assert_eq!(r.data_errors, 0);
    assert_eq!(r.nic.drops.bad_icv, 0);
    // Every payload byte arrived: placed bytes cover all flows.
    assert!(r.nic.rx_payload_bytes >= 8 * 300_000);
}

#[test]
fn multi_plane_nic_sprays_over_both_planes() {
    let spec = TopologySpec::LeafSpine {
        leaves: 2,
        hosts_per_leaf: 2,
        spines: 2,
        uplinks_per_spine: 1,
        planes: 2,
        host: tier(100, 1000),
        fabric: tier(100, 1000),
    };
    let r = run(config(spec), &mut ListWorkload::pairs(&[(0, 2)], 4 << 20));
    assert!(r.finished);
    let p0 = link(&r, "h0>p0.leaf0").tx_packets;
    let p1 = link(&r, "h0>p1.leaf0").tx_packets;
    assert!(p0 > 300 && p1 > 300, "{p0} {p1}");
    // Twice the single-plane rate: 4 MiB in well under the single-port time (~340 us).
    assert!(
        r.flows[0].fct_ns().unwrap() < 250_000,
        "{:?}",
        r.flows[0].fct_ns()
    );
}

#[test]
fn mr_cc_rocev2_ecn_marks_trigger_cnps() {
    let mut c = rocev2(leaf_spine(1, 9, 1));
    c.switch.ecn = Some(EcnConfig {
        kmin_bytes: 20_000,
        kmax_bytes: 100_000,
        pmax_percent: 20,
    });
    let r = run(c, &mut incast());
    assert!(r.finished);
    assert!(link(&r, "leaf0>h8").ecn_marked > 0);
    assert!(
        r.nic.cnps_sent > 0 && r.nic.cnps_received > 0,
        "{:?}",
        r.nic
    );
}

#[test]
fn degraded_link_slows_its_flow_and_up_restores_a_down_link() {
    let bytes = 1u64 << 20;
    let base = run(
        config(leaf_spine(1, 2, 1)),
        &mut ListWorkload::pairs(&[(0, 1)], bytes),
    );
    let mut c = config(leaf_spine(1, 2, 1));
    c.faults.push(Fault::Degrade {
        links: LinkSel::Named(vec!["h0>leaf0".into()]),
        at_ns: 0,
        rate_bps: 25_000_000_000,
    });
    let slow = run(c, &mut ListWorkload::pairs(&[(0, 1)], bytes));
    let (f0, f1) = (
        base.flows[0].fct_ns().unwrap(),
        slow.flows[0].fct_ns().unwrap(),
    );
    assert!(f1 > 3 * f0 && f1 < 5 * f0, "{f0} -> {f1}");
    // The other direction (ACKs) kept its rate: only the named direction changed.
    assert_eq!(
        link(&slow, "leaf0>h1").tx_packets,
        link(&base, "leaf0>h1").tx_packets
    );
    // Host link down for 200 us, then up: the flow completes after the outage.
    let mut c = config(leaf_spine(1, 2, 1));
    c.faults.push(Fault::Down {
        links: LinkSel::Named(vec!["h1-leaf0".into()]),
        at_ns: 20_000,
    });
    c.faults.push(Fault::Up {
        links: LinkSel::Named(vec!["h1-leaf0".into()]),
        at_ns: 220_000,
    });
    let r = run(c, &mut ListWorkload::pairs(&[(0, 1)], bytes));
    assert!(r.finished);
    assert!(r.flows[0].fct_ns().unwrap() > 220_000);
    assert!(link(&r, "leaf0>h1").drops_down > 0);
}

#[test]
fn fat_tree_and_multi_dc_transfers_complete() {
    let ft = TopologySpec::FatTree {
        k: 4,
        planes: 2,
        host: tier(100, 500),
        fabric: tier(100, 500),
        core: tier(100, 500),
    };
    let pairs: Vec<(u32, u32)> = (0..16).map(|h| (h, (h + 8) % 16)).collect();
    let r = run(config(ft), &mut ListWorkload::pairs(&pairs, 256 * 1024));
    assert!(r.finished);
    let core_tx: u64 = r
        .links
        .iter()
        .filter(|l| l.name.contains("core"))
        .map(|l| l.tx_packets)
        .sum();
    assert!(core_tx > 16 * 64, "every flow crosses the core");
    let dc = TopologySpec::MultiDc {
        dcs: 2,
        dc: Box::new(leaf_spine(2, 2, 2)),
        borders: 2,
        long_haul_links: 1,
        long_haul: tier(100, 50_000),
    };
    let mut c = config(dc);
    c.faults.push(Fault::Loss {
        links: LinkSel::Named(vec!["dc0.border0-dc1.border0".into()]),
        ppm: 10_000,
    });
    let r = run(c, &mut ListWorkload::pairs(&[(0, 4), (5, 1)], 512 * 1024));
    assert!(r.finished);
    let fct = r.flows[0].fct_ns().unwrap();
    assert!(fct > 2 * 50_000, "a long-haul round trip at least: {fct}");
}

#[test]
fn stop_at_ends_an_unfinished_run() {
    let mut c = config(leaf_spine(1, 2, 1));
    c.stop_at_ns = Some(30_000);
    let r = run(c, &mut ListWorkload::pairs(&[(0, 1)], 16 << 20));
    assert!(!r.finished);
    assert_eq!(r.end_ns, 30_000);
    assert_eq!(r.flows[0].end_ns, None);
}
