//! NSCC window control (spec section 6.2, MR-CC-7 .. MR-CC-14): every quadrant moves the window by the exact
//! integer amount the spec's formula gives, the multiplicative decrease happens at most once per srtt, and the
//! window stays in `[mtu, 2 * BDP]` under random event sequences, where each step is also checked against the
//! formulas (seeded; replay with `METAROCE_SEED=<seed>`, more cases with `METAROCE_CC_CASES=<n>`).

use metaroce_proto::transport::cc::{Cc, CcParams, CongestionControl, Nscc, Quadrant};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

const MTU: u64 = 4096;
const TARGET: u64 = 5_000;
const BDP: u64 = 125_000; // 100 Gb/s * 10 µs / 8

fn params() -> CcParams {
    CcParams {
        mtu: MTU,
        line_rate_bps: 100_000_000_000,
        base_rtt_ns: 10_000,
        target_qdelay_ns: TARGET,
        ..CcParams::default()
    }
}

/// A controller whose min_rtt is 10 µs and srtt exactly 10 µs, window still at the BDP.
fn primed() -> Nscc {
    let mut n = Nscc::new(&params());
    // d = 0 and 0 acked bytes: no window change, but the sample sets srtt and min_rtt.
    n.on_ack(0, 0, Some(10_000), false);
    assert_eq!(n.cwnd(), BDP);
    assert_eq!(n.srtt_ns(), Some(10_000));
    assert_eq!(n.min_rtt_ns(), Some(10_000));
    n
}

#[test]
fn mr_cc_8_proportional_increase_exact() {
    let mut n = primed();
    // d = 2 µs < target: cwnd += 4096 * (5000 - 2000) / 5000 = 2457 (2457.6 truncated).
    n.on_ack(100, 4096, Some(12_000), false);
    assert_eq!(n.last_quadrant(), Some(Quadrant::ProportionalIncrease));
    assert_eq!(n.last_delay_ns(), 2_000);
    assert_eq!(n.cwnd(), BDP + 2457);
    assert!(!n.wants_repath());
    // d = 0: the full acked amount.
    n.on_ack(200, 1000, Some(10_000), false);
    assert_eq!(n.cwnd(), BDP + 2457 + 1000);
    // No sample: the previous ACK's delay (0) is used again.
    n.on_ack(250, 500, None, false);
    assert_eq!(n.cwnd(), BDP + 3957);
    assert_eq!(n.last_quadrant(), Some(Quadrant::ProportionalIncrease));
}

#[test]
fn mr_cc_9_fair_increase_exact() {
    let mut n = primed();
    // d = 10 µs >= target: cwnd += mtu * acked / cwnd = 4096 * 8192 / 125000 = 268 (268.43 truncated).
    n.on_ack(100, 8192, Some(20_000), false);
    assert_eq!(n.last_quadrant(), Some(Quadrant::FairIncrease));
    assert_eq!(n.cwnd(), BDP + 268);
    // d == target is high delay.
    let c = n.cwnd();
    n.on_ack(200, 4096, Some(15_000), false);
    assert_eq!(n.last_quadrant(), Some(Quadrant::FairIncrease));
    assert_eq!(n.cwnd(), c + 4096 * 4096 / c);
    // No sample: the previous delay (5 µs) still counts as high.
    let c = n.cwnd();
    n.on_ack(300, 4096, None, false);
    assert_eq!(n.cwnd(), c + 4096 * 4096 / c);
}

#[test]
fn mr_cc_10_multiplicative_decrease_exact_and_once_per_srtt() {
    let mut n = primed();
    // d = 10 µs: cwnd -= cwnd * (10000 - 5000) / (2 * 10000) = cwnd / 4.
    n.on_ack(1_000, 4096, Some(20_000), true);
    assert_eq!(n.last_quadrant(), Some(Quadrant::MultiplicativeDecrease));
    // srtt moved to 10000 + 10000/8 = 11250 first.
    assert_eq!(n.srtt_ns(), Some(11_250));
    let c1 = BDP - BDP * 5_000 / 20_000;
    assert_eq!(n.cwnd(), c1);
    assert_eq!(n.last_decrease_ns(), Some(1_000));
    // Within one srtt further ECE + high delay does nothing; srtt = 11250 + (30000 - 11250) / 8 = 13593.
    n.on_ack(5_000, 4096, Some(30_000), true);
    assert_eq!(n.cwnd(), c1);
    assert_eq!(n.last_decrease_ns(), Some(1_000));
    assert_eq!(n.srtt_ns(), Some(13_593));
    assert_eq!(n.last_delay_ns(), 20_000);
    // A trim (also ECE + high delay, MR-CC-12) one ns short of an srtt after the decrease is suppressed ...
    n.on_nack_trim(1_000 + 13_593 - 1);
    assert_eq!(n.cwnd(), c1, "one ns short of an srtt");
    // ... and applies exactly one srtt after it, with d = max(last_d, 2 * target) = 20000:
    // cut = cwnd * 15000 / 40000.
    n.on_nack_trim(1_000 + 13_593);
    let c2 = c1 - c1 * 15_000 / 40_000;
    assert_eq!(n.cwnd(), c2);
    assert_eq!(n.last_decrease_ns(), Some(14_593));
    // An ACK-driven decrease one srtt later still: the sample 40000 first moves srtt to
    // 13593 + (40000 - 13593) / 8 = 16893; d = 40000 - 10000 = 30000, cut = cwnd * 25000 / 60000.
    let now = 14_593 + 16_893;
    n.on_ack(now, 4096, Some(40_000), true);
    assert_eq!(n.srtt_ns(), Some(16_893));
    let c3 = c2 - c2 * 25_000 / 60_000;
    assert_eq!(n.cwnd(), c3);
    assert_eq!(n.last_decrease_ns(), Some(now));
}

#[test]
fn mr_cc_10_decrease_is_less_than_half() {
    let mut n = primed();
    // Enormous delay: the cut approaches but never reaches one half.
    n.on_ack(1_000, 0, Some(10_000_000_000), true);
    let d = 10_000_000_000u128 - 10_000;
    let expect = BDP - (BDP as u128 * (d - 5_000) / (2 * d)) as u64;
    assert_eq!(n.cwnd(), expect);
    assert!(n.cwnd() > BDP / 2);
}

#[test]
fn mr_cc_11_ece_low_delay_repaths_without_window_change() {
    let mut n = primed();
    n.on_ack(100, 4096, Some(14_999), true);
    assert_eq!(n.last_quadrant(), Some(Quadrant::Repath));
    assert_eq!(n.cwnd(), BDP);
    assert!(n.wants_repath());
    assert_eq!(n.last_decrease_ns(), None);
    // The signal describes only the latest ACK.
    n.on_ack(200, 0, Some(10_000), false);
    assert!(!n.wants_repath());
    // Through the enum too.
    let mut c = Cc::Nscc(primed());
    c.on_ack(100, 4096, Some(10_500), true);
    assert!(c.wants_repath());
    assert_eq!(c.cwnd(), BDP);
}

#[test]
fn mr_cc_12_trim_and_loss_are_ece_high_delay() {
    let mut n = primed();
    // last_d = 0: d = 2 * target, cut = cwnd * 5000 / 20000 = cwnd / 4.
    n.on_nack_trim(1_000);
    assert_eq!(n.last_quadrant(), Some(Quadrant::MultiplicativeDecrease));
    assert_eq!(n.cwnd(), BDP - BDP / 4);
    // Once per srtt applies to trims and losses as well.
    n.on_nack_trim(2_000);
    n.on_loss(3_000);
    assert_eq!(n.cwnd(), BDP - BDP / 4);
    // A measured delay above 2 * target is used: sample 50000 gives last_d = 40000 (and srtt 15000).
    n.on_ack(20_000, 0, Some(50_000), false);
    assert_eq!(n.last_delay_ns(), 40_000);
    let c = n.cwnd();
    n.on_loss(40_000);
    assert_eq!(n.cwnd(), c - c * 35_000 / 80_000);
}

#[test]
fn mr_cc_13_timeout_resets_to_one_mtu() {
    let mut n = primed();
    n.on_timeout(500);
    assert_eq!(n.last_quadrant(), Some(Quadrant::Timeout));
    assert_eq!(n.cwnd(), MTU);
    assert_eq!(n.last_decrease_ns(), Some(500));
    // It counts as the last decrease: an ECE + high-delay ACK right after it does not cut (cwnd stays >= mtu
    // anyway), and an increase still works.
    n.on_ack(600, 4096, Some(10_000), false);
    assert_eq!(n.cwnd(), MTU + 4096);
}

#[test]
fn mr_cc_7_window_bounds_mtu_and_two_bdp() {
    let mut n = primed();
    for i in 0..1000u64 {
        n.on_ack(1_000 + i, 1 << 20, Some(10_000), false);
    }
    assert_eq!(n.cwnd(), 2 * BDP);
    let mut t = 100_000u64;
    for _ in 0..100 {
        n.on_nack_trim(t);
        t += 1_000_000;
    }
    assert_eq!(n.cwnd(), MTU);
}

#[test]
fn mr_cc_14_pacing_gap() {
    // Before any sample: serialization at line rate only, 4096 B at 100 Gb/s = 327.68 ns.
    let fresh = Nscc::new(&params());
    assert_eq!(fresh.pacing_gap_ns(4096), 327);
    let mut n = primed();
    // srtt 10 µs, cwnd = BDP: 4096 * 10000 / 125000 = 327.68 -> 327; max(327, 327).
    assert_eq!(n.pacing_gap_ns(4096), 327);
    // srtt grows to 10000 + 30000/8 = 13750: 4096 * 13750 / 125000 = 450.56 -> 450.
    n.on_ack(10, 0, Some(40_000), false);
    assert_eq!(n.pacing_gap_ns(4096), 450);
    n.on_timeout(20); // cwnd = 4096: one packet per srtt.
    assert_eq!(n.pacing_gap_ns(4096), 13_750);
    assert_eq!(n.pacing_gap_ns(100), 100 * 13_750 / 4096);
    assert_eq!(n.pacing_gap_ns(0), 0);
}

#[test]
fn mr_cc_3_extreme_rates_do_not_overflow() {
    // 800 Gb/s, 10 ms RTT: BDP = 1e9 bytes.
    let p = CcParams {
        mtu: 9000,
        line_rate_bps: 800_000_000_000,
        base_rtt_ns: 10_000_000,
        ..CcParams::default()
    };
    let mut n = Nscc::new(&p);
    assert_eq!(n.cwnd(), 1_000_000_000);
    n.on_ack(0, u64::MAX, Some(u64::MAX), false);
    n.on_ack(1, u64::MAX, Some(1), false);
    assert_eq!(n.cwnd(), 2_000_000_000);
    n.on_ack(u64::MAX, u64::MAX, Some(u64::MAX), true);
    n.on_ack(u64::MAX, u64::MAX, None, true);
    n.on_nack_trim(u64::MAX);
    assert!(n.cwnd() >= 9000 && n.cwnd() <= 2_000_000_000);
    n.on_timeout(u64::MAX);
    assert_eq!(n.cwnd(), 9000);
    assert!(n.pacing_gap_ns(u64::MAX) > 0);
    // Degenerate parameters are clamped rather than trusted.
    let z = Nscc::new(&CcParams {
        mtu: 0,
        line_rate_bps: 0,
        base_rtt_ns: 0,
        target_qdelay_ns: 0,
        ..CcParams::default()
    });
    assert_eq!((z.min_cwnd(), z.cwnd(), z.max_cwnd()), (1, 1, 2));
    let _ = z.pacing_gap_ns(u64::MAX);
}

/// One input event for the random sequences.
#[derive(Clone, Debug)]
enum Ev {
    Ack {
        dt: u64,
        acked: u64,
        rtt: Option<u64>,
        ece: bool,
    },
    Trim {
        dt: u64,
    },
    Loss {
        dt: u64,
    },
    Timeout {
        dt: u64,
    },
}

fn ev() -> impl Strategy<Value = Ev> {
    prop_oneof![
        6 => (0u64..50_000, 0u64..20_000, proptest::option::weighted(0.9, 1u64..200_000), any::<bool>())
            .prop_map(|(dt, acked, rtt, ece)| Ev::Ack { dt, acked, rtt, ece }),
        1 => (0u64..50_000).prop_map(|dt| Ev::Trim { dt }),
        1 => (0u64..50_000).prop_map(|dt| Ev::Loss { dt }),
        1 => (0u64..500_000).prop_map(|dt| Ev::Timeout { dt }),
    ]
}

fn seeded_runner(cases: u32) -> TestRunner {
    let seed: u64 = std::env::var("METAROCE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x4d52_4343_0001);
    println!("cc_nscc random sequences: seed {seed} (replay with METAROCE_SEED={seed})");
    let mut bytes = [0u8; 32];
    for (i, chunk) in bytes.chunks_mut(8).enumerate() {
        chunk.copy_from_slice(
            &(seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)).to_le_bytes(),
        );
    }
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes))
}

/// The spec's NSCC pseudo-code (section 6.2) with MR-REL-27/28 estimators, written independently of the model.
struct Reference {
    mtu: u64,
    bdp: u64,
    target: u64,
    base_rtt: u64,
    rate: u64,
    win: u64,
    cwnd: u64,
    srtt: Option<u64>,
    min_rtt: Option<(u64, u64)>, // (value, stamp)
    last_d: u64,
    last_md: Option<u64>,
}

impl Reference {
    fn new(p: &CcParams) -> Self {
        let bdp =
            ((p.line_rate_bps as u128 * p.base_rtt_ns as u128 / 8_000_000_000) as u64).max(p.mtu);
        Reference {
            mtu: p.mtu,
            bdp,
            target: p.target_qdelay_ns,
            base_rtt: p.base_rtt_ns,
            rate: p.line_rate_bps,
            win: p.min_rtt_window_ns,
            cwnd: bdp,
            srtt: None,
            min_rtt: None,
            last_d: 0,
            last_md: None,
        }
    }
    fn clamp(&mut self) {
        self.cwnd = self.cwnd.max(self.mtu).min(2 * self.bdp);
    }
    fn md(&mut self, now: u64, d: u64) {
        let srtt = self.srtt.unwrap_or(self.base_rtt);
        if self.last_md.is_none_or(|t| now - t >= srtt) {
            self.cwnd -= (self.cwnd as u128 * (d - self.target) as u128 / (2 * d as u128)) as u64;
            self.last_md = Some(now);
        }
    }
    fn on_ack(&mut self, now: u64, acked: u64, sample: u64, ece: bool) {
        let d = if sample == 0 {
            self.last_d
        } else {
            self.srtt = Some(match self.srtt {
                None => sample,
                Some(s) if sample >= s => s + (sample - s) / 8,
                Some(s) => s - (s - sample) / 8,
            });
            match self.min_rtt {
                Some((m, stamp)) if sample > m && now - stamp <= self.win => {}
                _ => self.min_rtt = Some((sample, now)),
            }
            self.last_d = sample.saturating_sub(self.min_rtt.map_or(0, |m| m.0));
            self.last_d
        };
        if !ece && d < self.target {
            self.cwnd += (acked as u128 * (self.target - d) as u128 / self.target as u128) as u64;
        } else if !ece {
            self.cwnd += (self.mtu as u128 * acked as u128 / self.cwnd as u128) as u64;
        } else if d >= self.target {
            self.md(now, d);
        }
        self.clamp();
    }
    fn on_trim_or_loss(&mut self, now: u64) {
        self.md(now, self.last_d.max(2 * self.target));
        self.clamp();
    }
    fn on_timeout(&mut self, now: u64) {
        self.cwnd = self.mtu;
        self.last_md = Some(now);
    }
    fn gap(&self, b: u64) -> u64 {
        let g = b as u128 * 8_000_000_000 / self.rate as u128;
        match self.srtt {
            Some(s) => g.max(b as u128 * s as u128 / self.cwnd as u128) as u64,
            None => g as u64,
        }
    }
}

#[test]
fn mr_cc_3_random_sequences_match_reference_and_keep_bounds() {
    let cases = std::env::var("METAROCE_CC_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256);
    let mut runner = seeded_runner(cases);
    let strat = (
        prop_oneof![Just(1500u64), Just(4096), Just(9000)],
        prop_oneof![
            Just(25_000_000_000u64),
            Just(100_000_000_000),
            Just(800_000_000_000)
        ],
        1_000u64..100_000,
        prop_oneof![Just(20_000u64), Just(10_000_000)],
        proptest::collection::vec(ev(), 1..300),
    );
    let result = runner.run(&strat, |(mtu, rate, rtt, win, evs)| {
        let p = CcParams {
            mtu,
            line_rate_bps: rate,
            base_rtt_ns: rtt,
            min_rtt_window_ns: win,
            ..CcParams::default()
        };
        let bdp = p.bdp_bytes();
        let mut n = Nscc::new(&p);
        let mut r = Reference::new(&p);
        prop_assert_eq!(n.cwnd(), bdp);
        prop_assert_eq!(r.cwnd, bdp);
        let mut now = 0u64;
        let mut last_dec: Option<u64> = None;
        for e in evs {
            let before = n.cwnd();
            let dt = match e {
                Ev::Ack { dt, .. } | Ev::Trim { dt } | Ev::Loss { dt } | Ev::Timeout { dt } => dt,
            };
            now += dt;
            let is_timeout = matches!(e, Ev::Timeout { .. });
            let is_ack = matches!(e, Ev::Ack { .. });
            match e {
                Ev::Ack {
                    acked, rtt, ece, ..
                } => {
                    n.on_ack(now, acked, rtt, ece);
                    r.on_ack(now, acked, rtt.unwrap_or(0), ece);
                }
                Ev::Trim { .. } => {
                    n.on_nack_trim(now);
                    r.on_trim_or_loss(now);
                }
                Ev::Loss { .. } => {
                    n.on_loss(now);
                    r.on_trim_or_loss(now);
                }
                Ev::Timeout { .. } => {
                    n.on_timeout(now);
                    r.on_timeout(now);
                }
            }
            let after = n.cwnd();
            prop_assert_eq!(
                after,
                r.cwnd,
                "cwnd differs from the spec reference after {:?}",
                e
            );
            prop_assert_eq!(n.srtt_ns(), r.srtt);
            prop_assert_eq!(n.min_rtt_ns(), r.min_rtt.map(|m| m.0));
            prop_assert_eq!(n.last_decrease_ns(), r.last_md);
            prop_assert_eq!(n.pacing_gap_ns(mtu), r.gap(mtu));
            prop_assert!(
                after >= mtu && after <= 2 * bdp,
                "cwnd {} outside [{}, {}]",
                after,
                mtu,
                2 * bdp
            );
            if is_timeout {
                prop_assert_eq!(after, mtu);
                last_dec = Some(now);
            } else if after < before {
                let srtt = n.srtt_ns().unwrap_or(rtt);
                if let Some(t0) = last_dec {
                    prop_assert!(
                        now - t0 >= srtt,
                        "two decreases {} ns apart, srtt {}",
                        now - t0,
                        srtt
                    );
                }
                prop_assert!(after >= before - before / 2, "more than half removed");
                last_dec = Some(now);
            }
            let repath_quadrant = matches!(n.last_quadrant(), Some(Quadrant::Repath));
            if is_ack {
                prop_assert_eq!(n.wants_repath(), repath_quadrant);
                if repath_quadrant {
                    prop_assert_eq!(after, before, "repath quadrant changed the window");
                }
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
