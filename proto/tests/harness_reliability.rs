//! Reliability of MetaRoCE (and the RoCEv2 baseline) over the lossy multipath link model.
//!
//! Every scenario runs a random message mix (WRITE, WRITE_IMM, SEND, SEND_IMM, READ; 0 B to 256 KiB) and then
//! checks that every work request completed exactly once and in order, that memory is byte-exact against the
//! shadow, and that every write landed in a registered target (MR-REL-*, MR-SEM-*).
//!
//! Seeds: each scenario runs a few fixed seeds by default; `METAROCE_SEEDS=N` runs N seeds per scenario
//! (base from `METAROCE_SEED_BASE`, else the clock); `METAROCE_SEED=s` replays exactly seed `s`. Every seed is
//! printed (`cargo test -- --nocapture` shows them).
#![cfg(all(feature = "harness", feature = "std"))]

mod harness_common;

use harness_common::{run_seeds, seeds_for};
use metaroce_proto::harness::link::{LinkEvent, TrimConfig};
use metaroce_proto::harness::scenario::{run, ScenarioConfig};
use metaroce_proto::harness::workload::OpKind;
use metaroce_proto::transport::Mode;

const PATHS: usize = 8;

fn meta(seed: u64) -> ScenarioConfig {
    ScenarioConfig::new(Mode::MetaRoce, seed, PATHS)
}

/// MR-REL-9, MR-PATH-3: no loss, but 8 paths with different delays spray and reorder.
#[test]
fn mr_rel_lossless_multipath_reordering() {
    run_seeds("lossless_multipath", 12, |seed| {
        let out = run(&meta(seed).links(|l| l.jitter_ns = 500));
        assert!(
            out.path_counts_ab.iter().filter(|&&c| c > 0).count() >= PATHS / 2,
            "frames should spread over the paths: {:?}",
            out.path_counts_ab
        );
        out
    });
}

/// MR-REL-36..39: 1% random loss plus jitter.
#[test]
fn mr_rel_loss_1_percent() {
    run_seeds("loss_1pct", 15, |seed| {
        run(&meta(seed).links(|l| {
            l.loss_ppm = 10_000;
            l.jitter_ns = 1_000;
        }))
    });
}

/// MR-REL-36..39, MR-WIRE-ICV: 5% loss, duplication and corruption (the ICV must reject every corrupted frame).
#[test]
fn mr_rel_loss_5_percent_dup_corrupt() {
    run_seeds("loss_5pct_dup_corrupt", 15, |seed| {
        let out = run(&meta(seed).links(|l| {
            l.loss_ppm = 50_000;
            l.dup_ppm = 20_000;
            l.corrupt_ppm = 20_000;
            l.jitter_ns = 2_000;
        }));
        assert!(
            out.links.0.corrupted + out.links.1.corrupted > 0,
            "no corruption injected"
        );
        assert!(
            out.links.0.duplicated + out.links.1.duplicated > 0,
            "no duplicate injected"
        );
        // Most flipped bits land in ICV-covered bytes: the receivers must have rejected some frames for it
        // (and the byte-exact memory check proves none was placed).
        let corrupted = out.links.0.corrupted + out.links.1.corrupted;
        let bad_icv = out.stats.0.drops.bad_icv + out.stats.1.drops.bad_icv;
        if corrupted >= 8 {
            assert!(
                bad_icv > 0,
                "{corrupted} corrupted frames, none rejected by the ICV"
            );
        }
        out
    });
}

/// MR-REL-36..39, MR-REL-55, MR-REL-58: 20% loss in both directions (data and acknowledgements).
#[test]
fn mr_rel_loss_20_percent() {
    run_seeds("loss_20pct", 12, |seed| run(&loss_20_percent(seed)));
}

fn loss_20_percent(seed: u64) -> ScenarioConfig {
    let mut cfg = meta(seed).links(|l| l.loss_ppm = 200_000);
    cfg.workload.messages = 150;
    cfg.time_limit_ns = 500_000_000;
    cfg
}

/// MR-REL-45, MR-REL-58: a seed of the long tier on which the responder's QP once gave up (an RTO expiry
/// retransmitted nothing behind a full window, and lost ACKs hid the progress) and left the requester's READ
/// waiting forever.
#[test]
fn mr_rel_loss_20_percent_seed_20079738619157() {
    let seed = 20079738619157;
    println!("seed {seed}");
    run(&loss_20_percent(seed)).assert_ok("loss_20pct");
}

/// MR-ENC-33, MR-REL-34, MR-PATH-8, MR-CC: trimming switch (random trims and trims on queue overflow) with
/// slower paths so queues build and ECN marks appear.
#[test]
fn mr_enc_trimming_and_ecn() {
    run_seeds("trim_ecn", 12, |seed| {
        let cfg = meta(seed).links(|l| {
            l.trim = Some(TrimConfig {
                random_ppm: 20_000,
                keep_udp_payload: 40,
                ..TrimConfig::default()
            });
            for p in l.paths.iter_mut().take(3) {
                p.rate_bps = 10_000_000_000;
            }
            l.queue_capacity_bytes = 64 * 1024;
            l.ecn_threshold_bytes = 16 * 1024;
        });
        let out = run(&cfg);
        assert!(
            out.links.0.trimmed > 0,
            "no trim happened: {:?}",
            out.links.0
        );
        out
    });
}

/// MR-CC-1, MR-CC-2: a fabric slower than the port (8 x 10 Gb/s behind a 100 Gb/s port) with small
/// tail-drop queues: ECN marks and queue drops; the sender must still deliver everything.
#[test]
fn mr_cc_oversubscribed_fabric_ecn_and_tail_drop() {
    run_seeds("oversubscribed", 9, |seed| {
        let cfg = meta(seed).links(|l| {
            for p in l.paths.iter_mut() {
                p.rate_bps = 10_000_000_000;
            }
            l.queue_capacity_bytes = 48 * 1024;
            l.ecn_threshold_bytes = 8 * 1024;
        });
        let out = run(&cfg);
        assert!(out.links.0.ecn_marked > 0, "no ECN mark: {:?}", out.links.0);
        // The congestion control keeps the queues short, so marks are few (and may hit ACKs or duplicates):
        // the receiver can count at most what the fabric marked.
        assert!(
            out.stats.1.ecn_ce_received <= out.links.0.ecn_marked,
            "receiver counted more CE than marked: link {:?}, receiver {:?}",
            out.links.0,
            out.stats.1
        );
        out
    });
}

/// MR-PATH-9, MR-PATH-10, MR-PATH-17: one path black-holes everything from the start; another fails mid-run and comes back; the
/// whole link goes down for 100 µs and comes back.
#[test]
fn mr_path_link_down_and_up() {
    run_seeds("link_down_up", 12, |seed| {
        let cfg = link_down_up(seed);
        let out = run(&cfg);
        assert!(out.links.0.dropped_down > 0, "no frame hit a down path");
        out
    });
}

/// One path black-holed from the start, another failing mid-run, the whole link down for 100 µs.
fn link_down_up(seed: u64) -> ScenarioConfig {
    meta(seed).links(|l| {
        l.events = vec![
            LinkEvent {
                at: 0,
                path: Some(0),
                up: false,
            },
            LinkEvent {
                at: 20_000,
                path: Some(3),
                up: false,
            },
            LinkEvent {
                at: 60_000,
                path: None,
                up: false,
            },
            LinkEvent {
                at: 160_000,
                path: None,
                up: true,
            },
            LinkEvent {
                at: 161_000,
                path: Some(0),
                up: false,
            },
        ];
    })
}

/// MR-PATH-10, MR-PATH-17: a seed of the long tier on which the QP once gave up with seven of eight paths up
/// (RTO-only recovery retransmitted one packet per expiry and ACKs came back over the dead path).
#[test]
fn mr_path_link_down_up_seed_185046169265806() {
    let seed = 185046169265806;
    println!("seed {seed}");
    run(&link_down_up(seed)).assert_ok("link_down_up");
}

/// MR-PATH-16, MR-PATH-3, MR-PATH-18: path 2 of 8 fails 20 µs into a long transfer and stays down. A sender that
/// does not re-path keeps putting one frame in eight on the dead path until the end; a re-pathing sender recycles
/// each entry that lost a frame there and reuses entries whose frames came back, so only exploration with fresh
/// entropy values (frozen for 4 srtt after each loss) finds the dead path again, one draw in eight. Checked: the
/// frames lost on the dead path are at most 4% of the data frames sent (12.5% without re-pathing). Over 200 seeds
/// the share was p50 0.8%, p99 2.1%, max 2.8%.
#[test]
fn mr_path_repath_after_failure() {
    // Some seeds put no entropy value on path 2 at all: count hits over all seeds.
    let hits = std::cell::Cell::new(0u64);
    run_seeds("repath", 6, |seed| {
        let fail_at = 20_000;
        let mut cfg = meta(seed).links(|l| {
            l.events = vec![LinkEvent {
                at: fail_at,
                path: Some(2),
                up: false,
            }];
        });
        cfg.workload.mix = vec![OpKind::Write];
        cfg.workload.fixed_size = Some(64 * 1024);
        cfg.workload.messages = 64;
        let out = run(&cfg);
        let l = out.links.0;
        let sent = out.stats.0.tx_data_packets.max(1);
        let last = l.last_down_drop_ns.saturating_sub(fail_at);
        println!(
            "repath: seed {seed}: {} of {sent} data frames lost on the dead path ({:.2}%), last one {} base RTTs \
             after the failure",
            l.dropped_down,
            l.dropped_down as f64 * 100.0 / sent as f64,
            last / cfg.base_rtt_ns
        );
        hits.set(hits.get() + l.dropped_down);
        assert!(
            l.dropped_down * 100 <= sent * 4,
            "{} of {sent} data frames lost on the dead path: the sender does not re-path",
            l.dropped_down
        );
        out
    });
    if std::env::var("METAROCE_SEED").is_err() {
        assert!(hits.get() > 0, "no seed put a frame on the dead path");
    }
}

/// MR-PATH-9, MR-PATH-10: one path loses 50% and another 100%: spraying must recycle away from them.
#[test]
fn mr_path_bad_paths_recycled() {
    run_seeds("bad_paths", 9, |seed| {
        let cfg = meta(seed).links(|l| {
            l.paths[1].loss_ppm = 1_000_000;
            l.paths[5].loss_ppm = 500_000;
        });
        run(&cfg)
    });
}

/// MR-SEM-2, MR-SEM-18: traffic in both directions at once, 2% loss, reordering.
#[test]
fn mr_sem_bidirectional_lossy() {
    run_seeds("bidirectional", 9, |seed| {
        let mut cfg = meta(seed).links(|l| {
            l.loss_ppm = 20_000;
            l.jitter_ns = 1_500;
        });
        cfg.bidirectional = true;
        cfg.workload.messages = 120;
        run(&cfg)
    });
}

/// MR-CONN-1, MR-SEM-2: eight QP pairs at once (one connection each), both directions, 2% loss: each QP
/// completes in its own order while the QPs interleave on the wire.
#[test]
fn mr_conn_many_qps_interleaved() {
    run_seeds("many_qps", 6, |seed| {
        let mut cfg = meta(seed).links(|l| {
            l.loss_ppm = 20_000;
            l.jitter_ns = 1_000;
        });
        cfg.qps = 8;
        cfg.bidirectional = true;
        cfg.workload.messages = 40;
        cfg.workload.big_per_mille = 0;
        run(&cfg)
    });
}

/// MR-SEM-10, MR-REL-36..39: big messages (up to 256 KiB) with 1% loss: many packets per message in flight.
#[test]
fn mr_rel_big_messages_lossy() {
    run_seeds("big_messages", 9, |seed| {
        let mut cfg = meta(seed).links(|l| l.loss_ppm = 10_000);
        cfg.workload.messages = 24;
        cfg.workload.big_per_mille = 500;
        run(&cfg)
    });
}

/// MR-ENC-3, MR-ENC-11: the same over IPv6 with an 802.1Q tag, 2% loss and trimming.
#[test]
fn mr_enc_ipv6_vlan_lossy() {
    run_seeds("ipv6_vlan", 9, |seed| {
        let mut cfg = meta(seed).links(|l| {
            l.loss_ppm = 20_000;
            l.trim = Some(TrimConfig {
                random_ppm: 20_000,
                ..TrimConfig::default()
            });
        });
        cfg.ipv6 = true;
        cfg.vlan = Some(0x2064);
        cfg.workload.messages = 100;
        run(&cfg)
    });
}

/// Determinism (madsim-style check): the same seed gives the same trace hash twice; another seed differs.
#[test]
fn determinism_same_seed_same_trace() {
    let seeds = seeds_for("determinism", 4);
    for seed in seeds {
        println!("determinism: seed {seed}");
        let cfg = meta(seed).links(|l| {
            l.loss_ppm = 30_000;
            l.dup_ppm = 10_000;
            l.corrupt_ppm = 10_000;
            l.jitter_ns = 1_000;
        });
        let a = run(&cfg);
        let b = run(&cfg);
        a.assert_ok("determinism");
        assert_eq!(
            a.trace_hash, b.trace_hash,
            "seed {seed}: two runs differ (nondeterminism)"
        );
        assert_eq!(a.end_ns, b.end_ns);
        let c = run(&meta(seed ^ 1).links(|l| l.loss_ppm = 30_000));
        assert_ne!(
            a.trace_hash, c.trace_hash,
            "different seeds gave the same trace"
        );
    }
}

/// RoCEv2 baseline over the same harness: single path, 0% and 1% loss, completes correctly.
#[test]
fn rocev2_baseline_single_path() {
    for (name, loss) in [("rocev2_lossless", 0u32), ("rocev2_loss_1pct", 10_000)] {
        run_seeds(name, 9, |seed| {
            let mut cfg = ScenarioConfig::new(Mode::RoceV2, seed, 1).links(|l| l.loss_ppm = loss);
            cfg.workload.messages = 100;
            cfg.time_limit_ns = 500_000_000;
            run(&cfg)
        });
    }
}

/// RoCEv2 baseline over the 8-path fabric: one fixed UDP source port per QP, so every frame of the QP takes
/// the same path (no spraying, no reordering), and go-back-N still completes at 1% loss.
#[test]
fn rocev2_baseline_pins_one_path() {
    run_seeds("rocev2_8paths", 6, |seed| {
        let mut cfg = ScenarioConfig::new(Mode::RoceV2, seed, PATHS).links(|l| l.loss_ppm = 10_000);
        cfg.workload.messages = 100;
        cfg.time_limit_ns = 500_000_000;
        let out = run(&cfg);
        let used = out.path_counts_ab.iter().filter(|&&c| c > 0).count();
        assert_eq!(
            used, 1,
            "RoCEv2 QP used several paths: {:?}",
            out.path_counts_ab
        );
        out
    });
}
