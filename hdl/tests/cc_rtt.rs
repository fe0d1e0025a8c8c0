//! The RTT unit (rust-hdl simulator) against `metaroce_proto::transport::rtt::RttEstimator`
//! (MR-REL-26..30, MR-REL-36) on random sample / timeout / query sequences with samples below 2^24 ns, where
//! the ns24 storage is exact. Operations are issued back to back (one per cycle) to check the pipeline too.
//! Seed: `CC_RTT_SEED` (printed).

use metaroce_hdl::cc::rtt::{RttState, RttUnit, LATENCY};
use metaroce_proto::transport::rtt::RttEstimator;
use rust_hdl::prelude::*;

mod support;
use support::Rng;

/// Evaluates until nothing changes (rust-hdl's `update_all` is one pass).
fn settle(u: &mut RttUnit) {
    for _ in 0..1000 {
        u.update_all();
        if !u.has_changed() {
            return;
        }
    }
    panic!("combinational loop");
}

fn tick(u: &mut RttUnit) {
    settle(u);
    u.clk.next = true.into();
    settle(u);
    u.clk.next = false.into();
    settle(u);
}

#[derive(Clone, Copy)]
struct Expect {
    srtt: u64,
    rttvar: u64,
    has: bool,
    backoff: u32,
    rto: u64,
    reo: u64,
}

#[test]
fn mr_rel_27_30_36_rtt_unit_matches_the_model() {
    let seed = std::env::var("CC_RTT_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x0277_2026u64);
    println!("CC_RTT_SEED={seed}");
    let mut rng = Rng(seed);
    let mut checked = 0;
    let mut saturated_rto = 0;
    for conn in 0..6 {
        let rto_min = 1 + rng.below(100_000);
        let rto_init = rng.below(1_000_000);
        let rto_max = if conn == 5 {
            rto_min / 2
        } else {
            rto_min + rng.below(100_000_000)
        };
        // Several connections interleaved would each need their own state; one connection at a time, with
        // the state fed back from the previous operation's result (LATENCY cycles later), so operations are
        // issued every LATENCY-th cycle and the cycles in between carry queries of a stale state (ignored).
        let mut m = RttEstimator::new(rto_min, rto_init, rto_max, 1_000_000);
        let mut u = RttUnit::default();
        u.connect_all();
        u.cfg_rto_min_ns.next = rto_min.to_bits();
        u.cfg_rto_init_ns.next = rto_init.to_bits();
        u.cfg_rto_max_ns.next = rto_max.to_bits();
        u.rst.next = true;
        tick(&mut u);
        u.rst.next = false;
        let mut st = RttState::default();
        let scale = [1u64 << 10, 1 << 16, 1 << 23][conn % 3];
        for _ in 0..300 {
            let r = rng.below(10);
            let (smp, tmo) = (r < 6, (6..9).contains(&r));
            let s = 1 + rng.below(scale);
            if smp {
                m.on_sample(0, s);
            } else if tmo {
                m.on_timeout();
            }
            let e = Expect {
                srtt: m.srtt(),
                rttvar: m.rttvar(),
                has: m.has_sample(),
                backoff: m.backoff(),
                rto: m.rto(),
                reo: m.reo_wnd(),
            };
            u.in_valid.next = true;
            u.upd_sample.next = smp;
            u.upd_timeout.next = tmo;
            u.sample.next = s.to_bits();
            u.st_in.next = st;
            tick(&mut u);
            // Back-to-back queries of random states fill the pipeline behind it.
            u.upd_sample.next = false;
            u.upd_timeout.next = false;
            for k in 0..LATENCY - 1 {
                u.st_in.next = RttState {
                    srtt: (rng.below(1 << 24)).to_bits(),
                    rttvar: (rng.below(1 << 24)).to_bits(),
                    has: k != 0,
                    backoff: (rng.below(32)).to_bits(),
                };
                tick(&mut u);
            }
            assert!(u.out_valid.val());
            let o = u.st_out.val();
            assert_eq!(o.srtt.to_u64(), e.srtt, "srtt");
            assert_eq!(o.rttvar.to_u64(), e.rttvar, "rttvar");
            assert_eq!(o.has, e.has, "has");
            assert_eq!(o.backoff.to_u64(), u64::from(e.backoff.min(31)), "backoff");
            assert_eq!(u.rto.val().to_u64(), e.rto, "rto (backoff {})", e.backoff);
            assert_eq!(u.reo_wnd.val().to_u64(), e.reo, "reo_wnd");
            assert_eq!(u.srtt.val().to_u64(), e.srtt, "srtt output");
            if e.rto == rto_max.max(rto_min) {
                saturated_rto += 1;
            }
            st = o;
            checked += 1;
            u.in_valid.next = false;
        }
    }
    println!("checked {checked} operations, {saturated_rto} with the RTO at its cap");
    assert!(saturated_rto > 0 && saturated_rto < checked);
}
