//! The retransmission-timer wheel (rust-hdl simulator) against a plain reference, a map connection →
//! deadline (MR-REL-33, MR-REL-37, MR-REL-40): random arms (re-arms earlier and later, disarms, deadlines in
//! the past, within one revolution, several revolutions ahead and far ahead, connection numbers with stray
//! upper bits), random fire back-pressure, phases where time runs fast (the cursor falls behind and catches
//! up), a reset in the middle, the time crossing 2^32 ns.
//!
//! Checked: every fire is for a connection whose current deadline has passed (never early, never for a
//! disarmed or replaced deadline, never twice); a deadline fires at most `1024 ns + 8 ns * (16 + 8 * conns)`
//! after it passed (or after its arm took effect, for a deadline already past) while there is no
//! back-pressure and time runs at the normal rate; every deadline that passed fires (checked every cycle
//! and at the end). An arm takes effect in the cycle before `s_axis_arm_tready` returns high; a fire visible
//! before then was decided first (the documented race: such a fire carries the old deadline's connection).
//!
//! Seed: `HDL_SEED` (printed); cycles: `HDL_ITERS` (default 500000).

use metaroce_hdl::rel::timer_wheel::{TimerArm, TimerWheel, TICK_NS};
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

mod support;
use support::{iters, seed, Rng};

/// Evaluates until nothing changes (rust-hdl's `update_all` is one pass).
fn settle(u: &mut TimerWheel) {
    for _ in 0..1000 {
        u.update_all();
        if !u.has_changed() {
            return;
        }
    }
    panic!("combinational loop");
}

fn tick(u: &mut TimerWheel) {
    settle(u);
    u.clk.next = true.into();
    settle(u);
    u.clk.next = false.into();
    settle(u);
}

const CONN_BITS: u32 = 5;
const SLOT_BITS: u32 = 4;
const CONNS: u64 = 1 << CONN_BITS;
/// ns per cycle at the normal rate (128 cycles per tick).
const DT: u64 = 8;
const REV_NS: u64 = TICK_NS << SLOT_BITS;
/// The lateness bound checked while undisturbed (the module's bound with every connection in one slot).
const BOUND_NS: u64 = TICK_NS + DT * (16 + 8 * CONNS);
/// How long after a disturbance (back-pressure, fast time) lateness is not checked: the cursor's catch-up.
const CALM_NS: u64 = 4 * TICK_NS;

/// A deadline in the reference: absolute ns, and the time from which lateness counts (max(at, arm effect)).
#[derive(Clone, Copy, Debug)]
struct Dl {
    at: u64,
    base: u64,
}

#[derive(Default, Debug)]
struct Stats {
    arms: u64,
    disarms: u64,
    past: u64,
    rearm_earlier: u64,
    rearm_later: u64,
    fires: u64,
    arms_beyond_rev: u64,
    races: u64,
    max_late: u64,
    max_arm_latency: u64,
    checked: u64,
}

struct Tb {
    u: TimerWheel,
    rng: Rng,
    now: u64,
    /// The armed deadlines (ordered, so that a key drawn by index replays from the seed).
    reference: BTreeMap<u64, Dl>,
    /// Handshaken arm, not yet in effect: (conn masked, absolute deadline, en), and the handshake's cycle.
    pending: Option<(u64, u64, bool)>,
    pending_since: u64,
    /// Arm offered on the input (held until taken).
    offer: Option<(TimerArm, u64, u64, bool)>,
    prev_fire_valid: bool,
    prev_fire_taken: bool,
    /// Conns whose fire is in the output register, not yet taken.
    fire_out: Option<u64>,
    last_disturb: u64,
    stats: Stats,
    seed: u64,
    cycle: u64,
    conns: u64,
}

impl Tb {
    fn ctx(&self) -> String {
        format!(
            "HDL_SEED={} cycle {} now {}",
            self.seed, self.cycle, self.now
        )
    }

    /// One clock cycle: drive `now` and the inputs, observe, clock.
    fn cycle(&mut self, dt: u64, fire_ready: bool, rst: bool) {
        self.now += dt;
        self.cycle += 1;
        self.u.now.next = self.now.to_bits();
        self.u.rst.next = rst;
        self.u.m_axis_fire_tready.next = fire_ready;
        match self.offer {
            Some((a, ..)) if !rst => {
                self.u.s_axis_arm_tdata.next = a;
                self.u.s_axis_arm_tvalid.next = true;
            }
            _ => self.u.s_axis_arm_tvalid.next = false,
        }
        settle(&mut self.u);
        // A new fire (decided before any arm whose tready returns in this cycle).
        let fv = self.u.m_axis_fire_tvalid.val();
        if fv && (!self.prev_fire_valid || self.prev_fire_taken) {
            let c = self.u.m_axis_fire_tdata.val().to_u64();
            let ctx = self.ctx();
            assert!(c < self.conns, "fire of conn {c} out of range, {ctx}");
            let Some(d) = self.reference.remove(&c) else {
                panic!("fire of conn {c} that has no pending deadline (disarmed, replaced or fired), {ctx}");
            };
            assert!(
                self.now >= d.at,
                "conn {c} fired {} ns early (deadline {}), {ctx}",
                d.at - self.now,
                d.at
            );
            let late = self.now - d.base;
            if d.base >= self.last_disturb + CALM_NS {
                assert!(
                    late <= BOUND_NS,
                    "conn {c} fired {late} ns late (deadline {}, base {}), bound {BOUND_NS}, {ctx}",
                    d.at,
                    d.base
                );
                self.stats.max_late = self.stats.max_late.max(late);
                self.stats.checked += 1;
            }
            self.stats.fires += 1;
            self.fire_out = Some(c);
        }
        // An arm takes effect in the cycle before tready returns high.
        let rdy = self.u.s_axis_arm_tready.val();
        if rdy {
            if let Some((c, at, en)) = self.pending.take() {
                // Documented: tready returns at the latest 8 cycles after the handshake.
                let lat = self.cycle - self.pending_since;
                assert!(lat <= 8, "arm took {lat} cycles, {}", self.ctx());
                self.stats.max_arm_latency = self.stats.max_arm_latency.max(lat);
                if self.fire_out == Some(c) {
                    self.stats.races += 1;
                }
                let old = self.reference.remove(&c);
                if en {
                    if let Some(o) = old {
                        if at < o.at {
                            self.stats.rearm_earlier += 1;
                        } else {
                            self.stats.rearm_later += 1;
                        }
                    }
                    if at <= self.now {
                        self.stats.past += 1;
                    }
                    if at > self.now + REV_NS {
                        self.stats.arms_beyond_rev += 1;
                    }
                    self.reference.insert(
                        c,
                        Dl {
                            at,
                            base: at.max(self.now),
                        },
                    );
                }
            }
        }
        // No deadline may stay unfired past the bound while undisturbed.
        for (c, d) in &self.reference {
            if d.base >= self.last_disturb + CALM_NS && self.now > d.base + BOUND_NS {
                panic!(
                    "conn {c} deadline {} (base {}) not fired {} ns after it passed, {}",
                    d.at,
                    d.base,
                    self.now - d.base,
                    self.ctx()
                );
            }
        }
        // Handshakes at this edge.
        let taken_fire = fv && fire_ready;
        if taken_fire {
            self.fire_out = None;
        }
        if !rst && rdy {
            if let Some((_, c, at, en)) = self.offer.take() {
                assert!(self.pending.is_none());
                self.pending = Some((c, at, en));
                self.pending_since = self.cycle;
            }
        }
        self.prev_fire_valid = fv;
        self.prev_fire_taken = taken_fire;
        tick(&mut self.u);
        if rst {
            self.reference.clear();
            self.pending = None;
            self.offer = None;
            self.fire_out = None;
            self.prev_fire_valid = false;
            self.prev_fire_taken = false;
        }
    }

    /// Offers a random arm or disarm.
    fn new_offer(&mut self) {
        let rng = &mut self.rng;
        let c = if !self.reference.is_empty() && rng.below(2) == 0 {
            let keys: Vec<u64> = self.reference.keys().copied().collect();
            keys[rng.below(keys.len() as u64) as usize]
        } else {
            rng.below(CONNS)
        };
        let r = rng.below(100);
        let (at, en) = if r < 10 {
            (self.now + rng.below(1 << 30), false)
        } else if r < 25 {
            (self.now - rng.below(50_000), true)
        } else if r < 35 {
            (self.now + rng.below(2 * TICK_NS), true)
        } else if r < 75 {
            (self.now + rng.below(REV_NS), true)
        } else if r < 95 {
            (self.now + REV_NS + rng.below(5 * REV_NS), true)
        } else {
            (self.now + 100_000 + rng.below((1 << 31) - 200_000), true)
        };
        // Stray upper bits of the connection number are ignored by the wheel.
        let stray = if rng.below(4) == 0 {
            rng.below(1 << (16 - CONN_BITS)) << CONN_BITS
        } else {
            0
        };
        let a = TimerArm {
            conn: (c | stray).to_bits(),
            at: (at as u32 as u64).to_bits(),
            en,
        };
        if en {
            self.stats.arms += 1;
        } else {
            self.stats.disarms += 1;
        }
        self.offer = Some((a, c, at, en));
    }
}

fn new_tb(seed: u64, start: u64) -> Tb {
    let mut u = TimerWheel::new(CONN_BITS, SLOT_BITS);
    u.connect_all();
    Tb {
        u,
        rng: Rng(seed),
        now: start,
        reference: BTreeMap::new(),
        pending: None,
        pending_since: 0,
        offer: None,
        prev_fire_valid: false,
        prev_fire_taken: false,
        fire_out: None,
        last_disturb: 0,
        stats: Stats::default(),
        seed,
        cycle: 0,
        conns: CONNS,
    }
}

/// Resets the wheel and checks the clearing time: tready low, no fire, then ready.
fn reset(tb: &mut Tb) {
    tb.cycle(DT, true, true);
    let clear = tb.u.clear_cycles();
    let mut n = 0;
    while !tb.u.s_axis_arm_tready.val() {
        assert!(!tb.u.m_axis_fire_tvalid.val(), "fire while clearing");
        tb.cycle(DT, true, false);
        n += 1;
        assert!(n <= clear + 4, "not ready {n} cycles after reset");
    }
    assert!(n >= clear, "ready after {n} cycles, clearing needs {clear}");
}

#[test]
fn mr_rel_33_37_40_timer_wheel_matches_reference() {
    let seed = seed();
    let cycles = iters(500_000) as u64;
    // Start ~0.5 ms before the 2^32 ns wrap, with nonzero upper time bits.
    let mut tb = new_tb(seed, (5u64 << 32) - 500_000 - Rng(seed).below(100_000));
    reset(&mut tb);
    let reset_at = cycles / 2;
    let mut c = 0;
    while c < cycles {
        // A phase: normal, back-pressure, random back-pressure, or fast time.
        let kind = tb.rng.below(100);
        let len = 500 + tb.rng.below(3000);
        let arm_rate = 1 + tb.rng.below(12);
        for _ in 0..len {
            let (dt, ready) = match kind {
                0..=59 => (DT, true),
                60..=74 => (DT, false),
                75..=89 => (DT, tb.rng.below(2) == 0),
                _ => (5 * DT, true),
            };
            if kind >= 60 {
                tb.last_disturb = tb.now + dt;
            }
            if tb.offer.is_none() && tb.rng.below(100) < arm_rate {
                tb.new_offer();
            }
            let rst = c == reset_at;
            tb.cycle(dt, ready, rst);
            if rst {
                let clear = tb.u.clear_cycles();
                let mut n = 0;
                while !tb.u.s_axis_arm_tready.val() {
                    assert!(!tb.u.m_axis_fire_tvalid.val(), "fire while clearing");
                    tb.cycle(DT, true, false);
                    n += 1;
                    assert!(n <= clear + 4);
                }
                assert!(n >= clear, "ready after {n} cycles, clearing needs {clear}");
            }
            c += 1;
        }
    }
    // Drain: disarm the far deadlines, then run until everything else fired.
    tb.last_disturb = tb.now;
    loop {
        if tb.offer.is_none() && tb.pending.is_none() {
            let far = tb
                .reference
                .iter()
                .find(|(_, d)| d.at > tb.now + 200_000)
                .map(|(&k, _)| k);
            match far {
                Some(k) => {
                    tb.offer = Some((
                        TimerArm {
                            conn: k.to_bits(),
                            at: 0u64.to_bits(),
                            en: false,
                        },
                        k,
                        0,
                        false,
                    ))
                }
                None => break,
            }
        }
        tb.cycle(DT, true, false);
    }
    let end = tb
        .reference
        .values()
        .map(|d| d.base)
        .max()
        .unwrap_or(tb.now)
        + BOUND_NS
        + DT * 8;
    while tb.now < end || tb.pending.is_some() {
        tb.cycle(DT, true, false);
    }
    assert!(
        tb.reference.is_empty(),
        "deadlines never fired: {:?}, {}",
        tb.reference,
        tb.ctx()
    );
    let s = &tb.stats;
    println!("{s:?}, {} cycles, lateness bound {BOUND_NS} ns", tb.cycle);
    assert!(s.fires > 500 && s.checked > 200, "too few fires: {s:?}");
    assert!(s.rearm_earlier > 20 && s.rearm_later > 20 && s.disarms > 50 && s.past > 50);
    assert!(s.arms_beyond_rev > 50);
}

/// The core's size (16K connections, 1024 slots): clearing after reset, then a few deadlines at the ends of
/// the connection range, one of them re-armed earlier, fire in deadline order within the bound.
#[test]
fn mr_rel_33_timer_wheel_conn_bits_14() {
    let mut tb = new_tb(1, (1u64 << 40) + 12_345);
    tb.u = TimerWheel::new(14, 10);
    tb.u.connect_all();
    tb.conns = 1 << 14;
    let clear = tb.u.clear_cycles();
    assert_eq!(clear, 1 << 14);
    reset(&mut tb);
    let t0 = tb.now;
    let arms = [
        (16383u64, t0 + 30_000),
        (0, t0 + 5_000),
        (1000, t0 + 2_000_000),
        (77, t0 - 10),
        (1000, t0 + 9_000),
    ];
    for (c, at) in arms {
        tb.offer = Some((
            TimerArm {
                conn: c.to_bits(),
                at: (at as u32 as u64).to_bits(),
                en: true,
            },
            c,
            at,
            true,
        ));
        while tb.offer.is_some() || tb.pending.is_some() {
            tb.cycle(DT, true, false);
        }
    }
    let mut order = Vec::new();
    while tb.now < t0 + 40_000 {
        let before = tb.stats.fires;
        tb.cycle(DT, true, false);
        if tb.stats.fires > before {
            order.push(tb.u.m_axis_fire_tdata.val().to_u64());
        }
    }
    assert_eq!(order, vec![77, 0, 1000, 16383]);
    assert!(tb.reference.is_empty());
    assert!(tb.stats.max_late <= BOUND_NS);
}
