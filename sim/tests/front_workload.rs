//! Workloads: which flows they start, and when (dependencies), driven by a small flow-level stand-in for the
//! fabric that completes each flow after a duration chosen by the test.

use metaroce_sim::config::{Tier, TopologySpec};
use metaroce_sim::flow::{Actions, FlowClass, FlowRecord, FlowSpec, Workload};
use metaroce_sim::topology::Topology;
use metaroce_sim::workload::{self, permutation, ring, Rng, SizeDist, WorkloadSpec};
use std::collections::BTreeMap;

fn leaf_spine(leaves: u32, hpl: u32) -> Topology {
    let t = Tier {
        rate_bps: 100_000_000_000,
        latency_ns: 500,
    };
    Topology::build(&TopologySpec::LeafSpine {
        leaves,
        hosts_per_leaf: hpl,
        spines: 2,
        uplinks_per_spine: 1,
        planes: 1,
        host: t,
        fabric: t,
    })
    .expect("topology")
}

/// Runs `wl` to completion: a flow started at `t` ends at `t + dur(flow)`; timers fire at their time. Events at
/// the same time run in the order they were created. Returns every flow record in start order.
fn drive(
    wl: &mut dyn Workload,
    dur: &mut dyn FnMut(&FlowSpec) -> u64,
    limit_ns: u64,
) -> Vec<FlowRecord> {
    #[derive(Debug)]
    enum Ev {
        Start(FlowSpec),
        End(u32),
        Timer(u64),
    }
    let mut q: BTreeMap<(u64, u64), Ev> = BTreeMap::new();
    let mut seq = 0u64;
    let mut flows: Vec<FlowRecord> = Vec::new();
    let mut act = Actions::default();
    wl.start(&mut act);
    let mut now = 0;
    loop {
        for (t, f) in act.flows.drain(..) {
            q.insert((t.max(now), seq), Ev::Start(f));
            seq += 1;
        }
        for (t, tok) in act.timers.drain(..) {
            q.insert((t.max(now), seq), Ev::Timer(tok));
            seq += 1;
        }
        if wl.is_done() {
            break;
        }
        let Some(((t, _), ev)) = q.pop_first() else {
            break;
        };
        assert!(t <= limit_ns, "workload did not finish by {limit_ns} ns");
        now = t;
        match ev {
            Ev::Start(f) => {
                let id = flows.len() as u32;
                flows.push(FlowRecord {
                    id,
                    spec: f,
                    start_ns: now,
                    end_ns: None,
                });
                q.insert((now + dur(&f), seq), Ev::End(id));
                seq += 1;
            }
            Ev::End(id) => {
                flows[id as usize].end_ns = Some(now);
                let r = flows[id as usize];
                wl.on_flow_done(now, &r, &mut act);
            }
            Ev::Timer(tok) => wl.on_timer(now, tok, &mut act),
        }
    }
    flows
}

#[test]
fn permutation_is_a_seeded_derangement() {
    for n in [2u32, 3, 16, 97] {
        for seed in 0..20 {
            let p = permutation::derangement(n, seed);
            assert_eq!(p.len(), n as usize);
            let mut seen = vec![false; n as usize];
            for (i, &d) in p.iter().enumerate() {
                assert_ne!(i as u32, d, "fixed point n={n} seed={seed}");
                assert!(!seen[d as usize], "not a permutation n={n} seed={seed}");
                seen[d as usize] = true;
            }
            assert_eq!(
                p,
                permutation::derangement(n, seed),
                "same seed, same permutation"
            );
        }
    }
    assert_ne!(
        permutation::derangement(64, 1),
        permutation::derangement(64, 2)
    );
}

#[test]
fn permutation_starts_one_flow_per_host_and_finishes() {
    let topo = leaf_spine(2, 8);
    let mut wl = workload::build(&WorkloadSpec::Permutation { bytes: 4096 }, &topo, 5);
    let flows = drive(&mut *wl, &mut |_| 1000, 10_000);
    assert!(wl.is_done());
    assert_eq!(flows.len(), 16);
    let mut dsts: Vec<u32> = flows.iter().map(|f| f.spec.dst).collect();
    dsts.sort_unstable();
    assert_eq!(dsts, (0..16).collect::<Vec<_>>());
    assert!(flows.iter().all(|f| f.start_ns == 0
        && f.spec.bytes == 4096
        && f.spec.src != f.spec.dst
        && f.spec.class == FlowClass::Collective));
}

#[test]
fn all_to_all_covers_every_ordered_pair_once() {
    let topo = leaf_spine(2, 4);
    let spec = WorkloadSpec::AllToAll {
        bytes: 100,
        hosts: Some(6),
        concurrency: None,
    };
    let mut wl = workload::build(&spec, &topo, 1);
    let flows = drive(&mut *wl, &mut |_| 10, 1_000);
    assert!(wl.is_done());
    assert_eq!(flows.len(), 30);
    let mut pairs: Vec<(u32, u32)> = flows.iter().map(|f| (f.spec.src, f.spec.dst)).collect();
    pairs.sort_unstable();
    pairs.dedup();
    assert_eq!(pairs.len(), 30);
    assert!(
        pairs.iter().all(|&(s, d)| s < 6 && d < 6 && s != d),
        "only the first 6 hosts"
    );
    assert!(
        flows.iter().all(|f| f.start_ns == 0),
        "no concurrency limit: all at once"
    );
}

#[test]
fn all_to_all_concurrency_limits_flows_in_flight_in_rotated_order() {
    let topo = leaf_spine(2, 4);
    let spec = WorkloadSpec::AllToAll {
        bytes: 100,
        hosts: None,
        concurrency: Some(2),
    };
    let mut wl = workload::build(&spec, &topo, 1);
    // Durations differ per pair so completions interleave.
    let flows = drive(
        &mut *wl,
        &mut |f| 100 + u64::from((f.src * 7 + f.dst * 3) % 5) * 37,
        1_000_000,
    );
    assert!(wl.is_done());
    assert_eq!(flows.len(), 8 * 7);
    for h in 0..8u32 {
        let mine: Vec<&FlowRecord> = flows.iter().filter(|f| f.spec.src == h).collect();
        let order: Vec<u32> = mine.iter().map(|f| f.spec.dst).collect();
        let expect: Vec<u32> = (1..8).map(|o| (h + o) % 8).collect();
        assert_eq!(order, expect, "host {h} sends in rotated order");
        // At every start, at most 2 of the host's flows are in flight.
        for f in &mine {
            let in_flight = mine
                .iter()
                .filter(|g| g.start_ns <= f.start_ns && g.end_ns.unwrap() > f.start_ns)
                .count();
            assert!(
                in_flight <= 2,
                "host {h}: {in_flight} flows in flight at {}",
                f.start_ns
            );
        }
        assert_eq!(mine.iter().filter(|f| f.start_ns == 0).count(), 2);
    }
}

/// Ring all-reduce: host i's step k+1 never starts before its own step-k send and its predecessor's step-k
/// send have completed, and always starts right when the later of the two completes.
#[test]
fn ring_step_never_starts_early() {
    let seed: u64 = std::env::var("FRONT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(11);
    println!("ring_step_never_starts_early seed {seed} (replay with FRONT_SEED)");
    for rings in [1u32, 2, 3] {
        let n = 8u32;
        let topo = leaf_spine(2, 4);
        let spec = WorkloadSpec::RingAllreduce {
            bytes: 8 * u64::from(rings) * 1000,
            rings: Some(rings),
        };
        let mut wl = workload::build(&spec, &topo, seed);
        let mut rng = Rng::new(seed);
        let flows = drive(&mut *wl, &mut |_| 50 + rng.below(500), 100_000_000);
        assert!(wl.is_done());
        let steps = 2 * (n - 1);
        assert_eq!(flows.len() as u32, rings * n * steps);
        let strides = ring::strides(n, rings);
        assert_eq!(strides.len() as u32, rings);
        let mut by: BTreeMap<(u32, u32, u32), &FlowRecord> = BTreeMap::new();
        for f in &flows {
            let (r, k) = (f.spec.tag >> 16, f.spec.tag & 0xffff);
            assert_eq!(f.spec.bytes, 1000, "chunk = bytes / (N * rings)");
            assert_eq!(
                f.spec.dst,
                (f.spec.src + strides[r as usize]) % n,
                "successor on ring {r}"
            );
            assert!(by.insert((r, f.spec.src, k), f).is_none(), "each step once");
        }
        for r in 0..rings {
            let s = strides[r as usize];
            for h in 0..n {
                let pred = (h + n - s) % n;
                assert_eq!(by[&(r, h, 0)].start_ns, 0);
                for k in 1..steps {
                    let me = by[&(r, h, k)];
                    let own = by[&(r, h, k - 1)].end_ns.unwrap();
                    let from_pred = by[&(r, pred, k - 1)].end_ns.unwrap();
                    assert_eq!(
                        me.start_ns,
                        own.max(from_pred),
                        "ring {r} host {h} step {k}: starts exactly when both step-{} flows are done",
                        k - 1
                    );
                }
            }
        }
    }
}

#[test]
fn ring_strides_are_coprime_and_distinct() {
    assert_eq!(ring::strides(8, 4), vec![1, 7, 3, 5]);
    assert_eq!(ring::strides(2, 3), vec![1]);
    assert_eq!(ring::strides(9, 3), vec![1, 8, 2]);
    assert_eq!(ring::chunk_bytes(1000, 3, 2), 166);
}

#[test]
fn incast_senders_all_target_the_receiver_at_once() {
    let topo = leaf_spine(2, 8);
    let spec = WorkloadSpec::Incast {
        senders: 15,
        bytes: 777,
        receiver: 3,
    };
    let mut wl = workload::build(&spec, &topo, 1);
    let flows = drive(&mut *wl, &mut |_| 10, 1_000);
    assert!(wl.is_done());
    assert_eq!(flows.len(), 15);
    let mut srcs: Vec<u32> = flows.iter().map(|f| f.spec.src).collect();
    srcs.sort_unstable();
    assert_eq!(srcs, (0..16).filter(|&h| h != 3).collect::<Vec<_>>());
    assert!(flows
        .iter()
        .all(|f| f.spec.dst == 3 && f.start_ns == 0 && f.spec.bytes == 777));
}

#[test]
fn uniform_random_offers_the_configured_load() {
    let topo = leaf_spine(2, 4);
    let spec = WorkloadSpec::UniformRandom {
        load_percent: 40.0,
        sizes: SizeDist::Fixed { bytes: 100_000 },
        duration_ns: Some(2_000_000_000),
    };
    let mut wl = workload::build(&spec, &topo, 9);
    let flows = drive(&mut *wl, &mut |_| 1_000, 3_000_000_000);
    assert!(wl.is_done());
    // 40% of 100 Gbit/s for 2 s with 100 kB flows: 100_000 flows per host expected.
    for h in 0..8u32 {
        let n = flows.iter().filter(|f| f.spec.src == h).count() as f64;
        assert!((n - 100_000.0).abs() < 1_500.0, "host {h}: {n} flows");
    }
    assert!(flows
        .iter()
        .all(|f| f.spec.src != f.spec.dst && f.start_ns < 2_000_000_000));
    let to_zero = flows.iter().filter(|f| f.spec.dst == 0).count() as f64 / flows.len() as f64;
    assert!(
        (to_zero - 1.0 / 8.0).abs() < 0.01,
        "uniform destinations: {to_zero}"
    );
}

#[test]
fn inference_sends_the_messages_at_the_rate_and_finishes() {
    let topo = leaf_spine(2, 4);
    let spec = WorkloadSpec::Inference {
        messages: 2_000,
        rate_per_host_per_us: Some(0.5),
        load_percent: None,
        sizes: SizeDist::Uniform {
            min: 4096,
            max: 65536,
        },
    };
    let mut wl = workload::build(&spec, &topo, 4);
    let flows = drive(&mut *wl, &mut |_| 3_000, u64::MAX);
    assert!(wl.is_done());
    assert_eq!(flows.len(), 8 * 2_000);
    assert!(flows
        .iter()
        .all(|f| f.spec.class == FlowClass::Latency && (4096..=65536).contains(&f.spec.bytes)));
    // Mean inter-arrival 2 us: the last message of a host comes at about 4 ms.
    let last = flows.iter().map(|f| f.start_ns).max().unwrap() as f64;
    assert!((last - 4.0e6).abs() < 0.4e6, "last arrival {last}");
}

#[test]
fn composite_routes_completions_and_ends_with_the_measured_workload() {
    let topo = leaf_spine(2, 4);
    let measured = WorkloadSpec::RingAllreduce {
        bytes: 8000,
        rings: None,
    };
    let bg = WorkloadSpec::UniformRandom {
        load_percent: 10.0,
        sizes: SizeDist::Fixed { bytes: 10_000 },
        duration_ns: None,
    };
    let mut wl = workload::build_composite(&measured, &[bg], &topo, 3);
    let flows = drive(&mut *wl, &mut |_| 2_000, 10_000_000);
    assert!(wl.is_done());
    let coll: Vec<_> = flows
        .iter()
        .filter(|f| f.spec.class == FlowClass::Collective)
        .collect();
    let back: Vec<_> = flows
        .iter()
        .filter(|f| f.spec.class == FlowClass::Background)
        .collect();
    assert_eq!(coll.len(), 8 * 14, "every ring step ran");
    assert!(!back.is_empty(), "background flows ran alongside");
    assert!(coll.iter().all(|f| f.spec.tag >> 28 == 0));
    assert!(back.iter().all(|f| f.spec.tag >> 28 == 1));
    // Ring steps complete in 14 sequential rounds of 2 us.
    let end = coll.iter().filter_map(|f| f.end_ns).max().unwrap();
    assert_eq!(end, 14 * 2_000);
}

#[test]
fn size_distributions_sample_within_range_and_match_their_mean() {
    let mut rng = Rng::new(42);
    let cdf = SizeDist::Cdf {
        points: vec![(1000, 50.0), (3000, 100.0)],
    };
    cdf.validate("sizes").unwrap();
    assert!((cdf.mean() - 1500.0).abs() < 1e-9);
    let n = 200_000;
    let mut sum = 0u64;
    for _ in 0..n {
        let s = cdf.sample(&mut rng);
        assert!((1000..=3000).contains(&s));
        sum += s;
    }
    let mean = sum as f64 / n as f64;
    assert!((mean - 1500.0).abs() < 15.0, "cdf mean {mean}");
    let u = SizeDist::Uniform { min: 10, max: 20 };
    let mut seen = [false; 11];
    for _ in 0..10_000 {
        seen[(u.sample(&mut rng) - 10) as usize] = true;
    }
    assert!(
        seen.iter().all(|&s| s),
        "every size of the uniform range occurs"
    );
    let bad = SizeDist::Cdf {
        points: vec![(1000, 50.0), (500, 100.0)],
    };
    assert_eq!(
        bad.validate("background.0.sizes").unwrap_err().field,
        "background.0.sizes.points.1"
    );
    let bad = SizeDist::Cdf {
        points: vec![(1000, 50.0)],
    };
    assert_eq!(bad.validate("s").unwrap_err().field, "s.points");
}

#[test]
fn validate_names_the_workload_field() {
    let topo = leaf_spine(2, 4);
    let cases = [
        (WorkloadSpec::Permutation { bytes: 0 }, "workload.bytes"),
        (
            WorkloadSpec::Incast {
                senders: 8,
                bytes: 1,
                receiver: 0,
            },
            "workload.senders",
        ),
        (
            WorkloadSpec::Incast {
                senders: 2,
                bytes: 1,
                receiver: 8,
            },
            "workload.receiver",
        ),
        (
            WorkloadSpec::AllToAll {
                bytes: 1,
                hosts: Some(9),
                concurrency: None,
            },
            "workload.hosts",
        ),
        (
            WorkloadSpec::RingAllreduce {
                bytes: 1 << 20,
                rings: Some(5),
            },
            "workload.rings",
        ),
        (
            WorkloadSpec::UniformRandom {
                load_percent: 50.0,
                sizes: SizeDist::Fixed { bytes: 1 },
                duration_ns: None,
            },
            "workload.duration_ns",
        ),
    ];
    for (spec, field) in cases {
        assert_eq!(
            spec.validate(&topo, "workload", true).unwrap_err().field,
            field,
            "{spec:?}"
        );
    }
}
