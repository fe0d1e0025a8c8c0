//! End-to-end transfers through the fabric: completion within serialization bounds, determinism.

mod core_util;

use core_util::*;
use metaroce_sim::fabric::Simulator;
use metaroce_sim::topology::Topology;

#[test]
fn two_hosts_one_leaf_complete_within_serialization_bounds() {
    let cfg = config(leaf_spine(1, 2, 1));
    let mut sim = Simulator::new(cfg).unwrap();
    let bytes = 1u64 << 20;
    let mut wl = ListWorkload::pairs(&[(0, 1)], bytes);
    let r = sim.run(&mut wl, &mut |_| {});
    assert!(r.finished, "{r:?}");
    let fct = r.flows[0].fct_ns().unwrap();
    // Lower bound: payload at line rate (4 KiB packets with their headers) plus one frame's path latency.
    let pkts = bytes / 4096;
    let frame = 4096 + 42 + 16 + 24 + 4;
    let ser = Topology::ser_ns(frame, 100_000_000_000);
    let one_way = sim.topology().one_way_ns(0, 1, frame);
    let lower = pkts * ser + one_way - ser;
    let upper = lower + lower / 10 + 20_000;
    println!("fct {fct} ns, bounds {lower}..{upper}, events {}", r.events);
    assert!(
        fct >= lower && fct <= upper,
        "fct {fct} not in {lower}..{upper}"
    );
    assert_eq!(r.nic.retransmits.rto, 0);
    assert_eq!(r.data_errors, 0);
}

/// Host 0 sends to every other host, then (when all are done) again: with a QP cache of 4 pairs per host,
/// idle pairs are destroyed and reopened for the second round, and every flow still completes.
#[derive(Debug, Default)]
struct TwoRounds {
    peers: u32,
    done: u32,
}

impl metaroce_sim::flow::Workload for TwoRounds {
    fn name(&self) -> String {
        "two-rounds".into()
    }
    fn start(&mut self, act: &mut metaroce_sim::flow::Actions) {
        self.round(act, 0);
    }
    fn on_flow_done(
        &mut self,
        now_ns: u64,
        _flow: &metaroce_sim::flow::FlowRecord,
        act: &mut metaroce_sim::flow::Actions,
    ) {
        self.done += 1;
        if self.done == self.peers {
            self.round(act, now_ns);
        }
    }
    fn is_done(&self) -> bool {
        self.done == 2 * self.peers
    }
}

impl TwoRounds {
    fn round(&self, act: &mut metaroce_sim::flow::Actions, at: u64) {
        for d in 1..=self.peers {
            act.start_flow(
                at,
                metaroce_sim::flow::FlowSpec {
                    src: 0,
                    dst: d,
                    bytes: 50_000,
                    class: metaroce_sim::flow::FlowClass::Background,
                    tag: 0,
                },
            );
        }
    }
}

#[test]
fn idle_qp_pairs_beyond_the_cache_are_destroyed_and_reopened() {
    let run = |cache: Option<u32>| {
        let mut sim = Simulator::new(config(leaf_spine(1, 12, 1))).unwrap();
        if let Some(c) = cache {
            sim.set_qp_cache(c);
        }
        let mut wl = TwoRounds { peers: 11, done: 0 };
        let r = sim.run(&mut wl, &mut |_| {});
        assert!(r.finished);
        assert!(r.flows.iter().all(|f| f.end_ns.is_some()));
        r
    };
    // Default cache: the 11 pairs are kept and reused.
    assert_eq!(run(None).qps, 22);
    // Cache of 4: pairs closed while host 0 was part of more than 4 are reopened in the second round.
    let r = run(Some(4));
    assert_eq!(r.qps, 2 * (11 + 11 - 4), "{}", r.qps);
}
