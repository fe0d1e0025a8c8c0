//! DCQCN (spec section 6.5, MR-CC-27 .. MR-CC-29): the model's trajectory (cut, fast recovery, additive and
//! hyper increase, alpha decay) equals, step by step, a reference written here straight from the spec's integer
//! form of the equations of Zhu et al. (SIGCOMM'15), driven on a 1 µs tick grid (the model instead schedules
//! deadlines). Plus the receiver's CNP spacing and the ECE-as-CNP rule.

use metaroce_proto::transport::cc::{
    Cc, CcChoice, CcParams, CnpLimiter, CongestionControl, Dcqcn, ALPHA_ONE,
};

const G: u64 = 256; // 1/256 in Q16

#[derive(Default, Debug)]
struct Phases {
    fast_recovery: u32,
    additive: u32,
    hyper: u32,
}

/// The reference reaction point: the spec's pseudo-code, evaluated on a tick grid.
struct Reference {
    line: u64,
    min_rate: u64,
    rc: u64,
    rt: u64,
    alpha: u64,
    f: u64,
    rai: u64,
    rhai: u64,
    bc_bytes: u64,
    period: u64,
    last_cnp: Option<u64>,
    cnp_since_alpha: bool,
    t: u64,
    bc: u64,
    bytes: u64,
    phases: Phases,
}

impl Reference {
    fn new(p: &CcParams) -> Self {
        let scale = p.line_rate_bps as u128;
        Reference {
            line: p.line_rate_bps,
            min_rate: p.dcqcn_min_rate_bps,
            rc: p.line_rate_bps,
            rt: p.line_rate_bps,
            alpha: 65536,
            f: p.dcqcn_fast_recovery as u64,
            rai: (p.dcqcn_rai_bps as u128 * scale / 25_000_000_000) as u64,
            rhai: (p.dcqcn_rhai_bps as u128 * scale / 25_000_000_000) as u64,
            bc_bytes: p.dcqcn_byte_counter,
            period: p.dcqcn_rate_timer_ns,
            last_cnp: None,
            cnp_since_alpha: false,
            t: 0,
            bc: 0,
            bytes: 0,
            phases: Phases::default(),
        }
    }

    fn cnp(&mut self, now: u64) {
        self.rt = self.rc;
        self.rc = (self.rc - (self.rc as u128 * self.alpha as u128 / (2 * 65536)) as u64)
            .max(self.min_rate);
        self.alpha = (self.alpha * 255 + 65536) / 256;
        self.t = 0;
        self.bc = 0;
        self.bytes = 0;
        self.cnp_since_alpha = true;
        self.last_cnp = Some(now);
    }

    fn increase(&mut self) {
        let (hi, lo) = (self.t.max(self.bc), self.t.min(self.bc));
        if hi < self.f {
            self.phases.fast_recovery += 1;
        } else if lo >= self.f {
            self.phases.hyper += 1;
            self.rt = (self.rt + self.rhai).min(self.line);
        } else {
            self.phases.additive += 1;
            self.rt = (self.rt + self.rai).min(self.line);
        }
        self.rc = (self.rt + self.rc).div_ceil(2);
    }

    fn send(&mut self, bytes: u64) {
        if self.rc >= self.line {
            return;
        }
        self.bytes += bytes;
        while self.bytes >= self.bc_bytes {
            self.bytes -= self.bc_bytes;
            self.bc += 1;
            self.increase();
        }
    }

    /// Both timers expire every `period` after the last CNP: alpha first, then the rate timer.
    fn tick(&mut self, now: u64) {
        let Some(c) = self.last_cnp else { return };
        if now > c && (now - c).is_multiple_of(self.period) {
            if !self.cnp_since_alpha {
                self.alpha = self.alpha * 255 / 256;
            }
            self.cnp_since_alpha = false;
            if self.rc < self.line {
                self.t += 1;
                self.increase();
            }
        }
    }
}

struct Scenario {
    params: CcParams,
    cnps: Vec<u64>,
    /// (every_ns, bytes): a send of `bytes` at every multiple of `every_ns`.
    sends: Option<(u64, u64)>,
    end: u64,
}

/// Runs the model and the reference side by side on a 1 µs grid and compares them at every tick.
fn run(s: &Scenario) -> (Dcqcn, Phases) {
    let mut m = Dcqcn::new(&s.params);
    let mut r = Reference::new(&s.params);
    assert_eq!(m.rai_bps(), r.rai);
    assert_eq!(m.rhai_bps(), r.rhai);
    let mut t = 0u64;
    while t <= s.end {
        if s.cnps.contains(&t) {
            m.on_cnp(t);
            r.cnp(t);
        }
        if let Some((every, bytes)) = s.sends {
            if t.is_multiple_of(every) {
                m.on_send(t, bytes);
                r.send(bytes);
            }
        }
        r.tick(t);
        if m.poll_timeout().is_some_and(|d| d <= t) {
            m.handle_timeout(t);
        }
        assert!(
            m.poll_timeout().is_none_or(|d| d > t),
            "timer left due at {t}"
        );
        assert_eq!(m.rate_bps(), r.rc, "Rc at {t} ns");
        assert_eq!(m.target_rate_bps(), r.rt, "Rt at {t} ns");
        assert_eq!(m.alpha_q16(), r.alpha, "alpha at {t} ns");
        assert_eq!(m.stages(), (r.t as u32, r.bc as u32), "T/BC at {t} ns");
        assert!(m.rate_bps() >= m.min_rate_bps() && m.rate_bps() <= s.params.line_rate_bps);
        assert_eq!(
            m.pacing_gap_ns(4096),
            (4096u128 * 8_000_000_000 / r.rc as u128) as u64
        );
        t += 1000;
    }
    (m, r.phases)
}

#[test]
fn mr_cc_27_dcqcn_first_steps_by_hand() {
    let mut d = Dcqcn::new(&CcParams::default()); // 100 Gb/s
    d.on_cnp(1_000);
    // Rc = 100G - 100G * 65536 / 2^17; alpha = (65536 * 255 + 65536) / 256
    assert_eq!(
        (d.rate_bps(), d.target_rate_bps(), d.alpha_q16()),
        (50_000_000_000, 100_000_000_000, 65_536)
    );
    assert_eq!(d.poll_timeout(), Some(56_000));
    d.handle_timeout(55_999);
    assert_eq!(d.rate_bps(), 50_000_000_000, "nothing is due yet");
    d.handle_timeout(56_000);
    // First alpha expiry after a CNP: no decay. Fast recovery 1: Rc = (100G + 50G) / 2.
    assert_eq!((d.rate_bps(), d.alpha_q16()), (75_000_000_000, 65_536));
    d.handle_timeout(111_000);
    // alpha = 65536 * 255 / 256 = 65280; Rc = (100G + 75G) / 2
    assert_eq!((d.rate_bps(), d.alpha_q16()), (87_500_000_000, 65_280));
    assert_eq!(d.stages(), (2, 0));
    d.on_cnp(120_000);
    // Rt = 87.5G; cut = 87.5e9 * 65280 / 2^17 = 43579101562; alpha = (65280 * 255 + 65536) / 256 = 65281
    assert_eq!(d.target_rate_bps(), 87_500_000_000);
    assert_eq!(d.rate_bps(), 87_500_000_000 - 43_579_101_562);
    assert_eq!(d.alpha_q16(), 65_281);
    assert_eq!(d.stages(), (0, 0));
    assert_eq!(d.poll_timeout(), Some(175_000));
    // 4096 B at 43920898438 b/s = 746.06 ns, truncated.
    assert_eq!(d.pacing_gap_ns(4096), 746);
    // Four more expiries are fast recovery; the fifth (T = 5 = F) is the first additive increase.
    for k in 1..=4u64 {
        d.handle_timeout(120_000 + k * 55_000);
        assert_eq!(
            d.target_rate_bps(),
            87_500_000_000,
            "fast recovery keeps Rt"
        );
    }
    d.handle_timeout(120_000 + 5 * 55_000);
    assert_eq!(
        d.target_rate_bps(),
        87_500_000_000 + 20_000_000,
        "R_AI at 100G = 20 Mb/s"
    );
}

#[test]
fn mr_cc_27_dcqcn_timer_trajectory_matches_reference() {
    // Timers only: fast recovery, then additive increase towards the (lowered) target, back to line rate
    // exactly (`(Rt + Rc + 1) / 2` rounds up), after which the rate timer stops.
    let s = Scenario {
        params: CcParams::default(),
        cnps: vec![1_000, 100_000, 130_000, 400_000],
        sends: None,
        // Additive increase alone (20 Mb/s per 55 µs at 100G) needs ~200 ms to climb back.
        end: 300_000_000,
    };
    let (m, ph) = run(&s);
    assert!(ph.fast_recovery >= 5 && ph.additive > 3000, "{ph:?}");
    assert_eq!(
        ph.hyper, 0,
        "no byte counter events: hyper increase never starts"
    );
    assert_eq!(m.target_rate_bps(), 100_000_000_000, "Rt back at line rate");
    assert_eq!(m.rate_bps(), 100_000_000_000, "Rc back at line rate");
    assert!(!m.is_limited(), "so the rate timer has stopped");
    assert_eq!(m.cnp_count(), 4);
}

#[test]
fn mr_cc_27_dcqcn_byte_counter_and_hyper_increase_match_reference() {
    // A smaller byte counter so that both counters pass F and hyper increase starts.
    let params = CcParams {
        line_rate_bps: 400_000_000_000,
        dcqcn_byte_counter: 256 * 1024,
        ..CcParams::default()
    };
    let s = Scenario {
        params,
        cnps: vec![2_000, 50_000, 51_000, 90_000, 1_500_000],
        sends: Some((10_000, 64 * 1024)),
        end: 15_000_000,
    };
    let (m, ph) = run(&s);
    assert!(
        ph.fast_recovery > 0 && ph.additive > 0 && ph.hyper > 0,
        "{ph:?}"
    );
    assert_eq!(m.target_rate_bps(), 400_000_000_000);
    assert_eq!(m.rate_bps(), 400_000_000_000, "back at line rate exactly");
    assert!(!m.is_limited());
}

#[test]
fn mr_cc_27_dcqcn_alpha_decays_without_cnps() {
    let s = Scenario {
        params: CcParams::default(),
        cnps: vec![1_000],
        sends: None,
        end: 200_000_000,
    };
    let (m, _) = run(&s);
    assert_eq!(m.alpha_q16(), 0);
    // Strict decay, directly: the first expiry after the CNP keeps alpha (a CNP was seen in that period), then
    // alpha after k more periods is the k-fold integer iteration.
    let mut d = Dcqcn::new(&CcParams::default());
    d.on_cnp(0);
    d.handle_timeout(55_000);
    assert_eq!(d.alpha_q16(), ALPHA_ONE);
    let mut expect = ALPHA_ONE;
    let mut prev = d.alpha_q16();
    for k in 2..=200u64 {
        d.handle_timeout(k * 55_000);
        expect = expect * (ALPHA_ONE - G) / ALPHA_ONE;
        assert_eq!(d.alpha_q16(), expect);
        assert!(d.alpha_q16() < prev);
        prev = d.alpha_q16();
    }
}

#[test]
fn mr_cc_27_dcqcn_late_handle_timeout_catches_up_exactly() {
    // Calling handle_timeout late (or rarely) gives the same state as calling it at every deadline.
    let p = CcParams::default();
    let mut a = Dcqcn::new(&p);
    let mut b = Dcqcn::new(&p);
    a.on_cnp(0);
    b.on_cnp(0);
    a.on_cnp(30_000);
    b.on_cnp(30_000);
    while let Some(t) = a.poll_timeout() {
        if t > 5_000_000 {
            break;
        }
        a.handle_timeout(t);
    }
    b.handle_timeout(5_000_000);
    assert_eq!(a.rate_bps(), b.rate_bps());
    assert_eq!(a.alpha_q16(), b.alpha_q16());
    assert_eq!(a.stages(), b.stages());
}

#[test]
fn mr_cc_27_dcqcn_min_rate_floor_and_scaling() {
    let p = CcParams::default();
    let mut d = Cc::new(CcChoice::Dcqcn, &p);
    for i in 0..40 {
        d.on_cnp(i * 10);
    }
    let Cc::Dcqcn(inner) = &d else {
        panic!("wrong kind")
    };
    assert_eq!(inner.rate_bps(), 100_000_000);
    assert_eq!(d.cwnd(), u64::MAX);
    // 4096 B at 100 Mb/s: 327680 ns.
    assert_eq!(d.pacing_gap_ns(4096), 327_680);
    // Increase steps scale with the line rate: 800G = 32 x 25G.
    let d8 = Dcqcn::new(&CcParams {
        line_rate_bps: 800_000_000_000,
        ..p
    });
    assert_eq!((d8.rai_bps(), d8.rhai_bps()), (160_000_000, 1_600_000_000));
    // No overflow at extreme inputs.
    let mut x = Dcqcn::new(&CcParams {
        line_rate_bps: u64::MAX,
        dcqcn_min_rate_bps: u64::MAX,
        ..p
    });
    x.on_cnp(u64::MAX);
    x.on_send(u64::MAX, u64::MAX);
    x.handle_timeout(u64::MAX);
    let _ = x.pacing_gap_ns(u64::MAX);
}

#[test]
fn mr_cc_29_ece_ack_acts_as_cnp_at_most_every_50us() {
    let mut d = Cc::new(CcChoice::Dcqcn, &CcParams::default());
    let cnps = |c: &Cc| match c {
        Cc::Dcqcn(x) => x.cnp_count(),
        _ => unreachable!(),
    };
    d.on_ack(1_000, 4096, Some(10_000), false);
    assert_eq!(cnps(&d), 0, "no ECE, no reaction");
    d.on_ack(2_000, 4096, Some(10_000), true);
    assert_eq!(cnps(&d), 1);
    let Cc::Dcqcn(x) = &d else { unreachable!() };
    assert_eq!(
        x.rate_bps(),
        50_000_000_000,
        "the ECE cut the rate like a CNP"
    );
    d.on_ack(51_999, 4096, None, true);
    assert_eq!(cnps(&d), 1, "49.999 µs later: ignored");
    d.on_ack(52_000, 4096, None, true);
    assert_eq!(cnps(&d), 2, "50 µs later: taken");
    // A real CNP counts as the last one too.
    d.on_cnp(60_000);
    d.on_ack(100_000, 0, None, true);
    assert_eq!(cnps(&d), 3);
    d.on_ack(110_000, 0, None, true);
    assert_eq!(cnps(&d), 4);
}

#[test]
fn mr_cc_28_cnp_limiter_at_most_one_per_interval() {
    let mut l = CnpLimiter::from_params(&CcParams::default());
    let mut sent: Vec<u64> = Vec::new();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut t = 0u64;
    for _ in 0..10_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        t += x % 20_000;
        let expect = sent.last().is_none_or(|&s| t - s >= 50_000);
        assert_eq!(l.try_send(t), expect, "CE at {t}");
        if expect {
            sent.push(t);
        }
    }
    assert!(sent.len() > 100);
    assert!(sent.windows(2).all(|w| w[1] - w[0] >= 50_000));
}

/// One input event for the random sequences.
#[derive(Clone, Debug)]
enum Ev {
    Cnp,
    Send(u64),
    Timers,
}

fn seeded_runner(cases: u32) -> proptest::test_runner::TestRunner {
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let seed: u64 = std::env::var("METAROCE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x4d52_4343_0005);
    println!("cc_dcqcn random sequences: seed {seed} (replay with METAROCE_SEED={seed})");
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

#[test]
fn mr_cc_27_dcqcn_random_sequences_keep_bounds() {
    use proptest::prelude::*;
    let cases = std::env::var("METAROCE_CC_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256);
    let mut runner = seeded_runner(cases);
    let ev = prop_oneof![
        1 => Just(Ev::Cnp),
        3 => (0u64..(4 << 20)).prop_map(Ev::Send),
        3 => Just(Ev::Timers),
    ];
    let strat = (
        prop_oneof![
            Just(25_000_000_000u64),
            Just(100_000_000_000),
            Just(800_000_000_000)
        ],
        1u64..(16 << 20),
        proptest::collection::vec((0u64..200_000, ev), 1..400),
    );
    let result = runner.run(&strat, |(line, bc, evs)| {
        let p = CcParams {
            line_rate_bps: line,
            dcqcn_byte_counter: bc,
            ..CcParams::default()
        };
        let mut d = Dcqcn::new(&p);
        let mut now = 0u64;
        for (dt, e) in evs {
            now += dt;
            let (rc0, rt0) = (d.rate_bps(), d.target_rate_bps());
            match e {
                Ev::Cnp => {
                    d.on_cnp(now);
                    prop_assert_eq!(d.target_rate_bps(), rc0, "Rt = Rc on a cut");
                    prop_assert!(d.rate_bps() <= rc0);
                    prop_assert!(d.rate_bps() >= rc0 / 2 || d.rate_bps() == d.min_rate_bps());
                }
                Ev::Send(b) => {
                    d.on_send(now, b);
                    prop_assert!(
                        d.rate_bps() >= rc0 && d.target_rate_bps() >= rt0,
                        "increase only"
                    );
                }
                Ev::Timers => {
                    d.handle_timeout(now);
                    prop_assert!(
                        d.rate_bps() >= rc0 && d.target_rate_bps() >= rt0,
                        "increase only"
                    );
                    prop_assert!(d.poll_timeout().is_none_or(|t| t > now), "a timer left due");
                }
            }
            prop_assert!(d.min_rate_bps() <= d.rate_bps());
            prop_assert!(d.rate_bps() <= d.target_rate_bps());
            prop_assert!(d.target_rate_bps() <= line);
            prop_assert!(d.alpha_q16() <= ALPHA_ONE);
            prop_assert_eq!(d.is_limited(), d.rate_bps() < line);
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
