//! The EV-set unit (rust-hdl simulator) against `metaroce_proto::transport::path::PathSet` (MR-PATH-1..4,
//! MR-PATH-7..10, MR-PATH-18): several connections opened with random sizes (1 included) and seeds, then a
//! random mix of CHOOSE (with and without an entry to avoid), clean-acknowledgement beats with random lane masks
//! (current, stale and invalid entry/EV pairs, lanes naming one entry twice), ECE/trim/loss recycles (current,
//! stale and unknown EVs), srtt updates and re-opens, with time jumping across freezes and random backpressure on
//! the result stream. Every CHOOSE answer must equal the model's. Bursts of clean beats for the cached
//! connection must be taken one per cycle, and the unit must report `idle` after every settled stretch.
//! A directed test opens 64-entry sets whose generation redraws duplicate EVs (MR-PATH-1, MR-PATH-2) and checks
//! every EV and the generator state after them; another checks the documented CHOOSE and OPEN latencies.
//! Seed: `HDL_SEED` (printed); operations: `HDL_ITERS` (default 2500 for 64 entries, 1500 for 8).

use metaroce_hdl::rel::path_select::{
    word_bits, PathClean, PathCmd, PathSelect, PathSelect64, OP_CHOOSE, OP_OPEN, OP_RECYCLE_ECE,
    OP_RECYCLE_LOSS, OP_RECYCLE_TRIM, OP_SET_SRTT,
};
use metaroce_proto::transport::path::{PathSet, Prng, RecycleCause};
use rust_hdl::prelude::*;

mod support;
use support::{iters, seed, Rng};

/// Evaluates until nothing changes (rust-hdl's `update_all` is one pass).
fn settle<const W: usize>(u: &mut PathSelect<W>) {
    for _ in 0..1000 {
        u.update_all();
        if !u.has_changed() {
            return;
        }
    }
    panic!("combinational loop");
}

struct Tb<const W: usize> {
    u: PathSelect<W>,
    rng: Rng,
    cycles: u64,
    /// Probability (percent) that `m_axis_res_tready` is low in a cycle.
    stall: u64,
}

impl<const W: usize> Tb<W> {
    fn tick(&mut self) {
        settle(&mut self.u);
        self.u.clk.next = true.into();
        settle(&mut self.u);
        self.u.clk.next = false.into();
        self.u.m_axis_res_tready.next = self.rng.below(100) >= self.stall;
        settle(&mut self.u);
        self.cycles += 1;
    }

    /// Presents a command until it is taken; returns the cycles it waited.
    fn cmd(&mut self, c: PathCmd) -> u64 {
        self.u.s_axis_cmd_tdata.next = c;
        self.u.s_axis_cmd_tvalid.next = true;
        for w in 0..5000 {
            settle(&mut self.u);
            if self.u.s_axis_cmd_tready.val() {
                self.tick();
                self.u.s_axis_cmd_tvalid.next = false;
                return w;
            }
            self.tick();
        }
        panic!("command never taken");
    }

    /// Presents a clean beat until it is taken; returns the cycles it waited.
    fn clean(&mut self, c: PathClean) -> u64 {
        self.u.s_axis_clean_tdata.next = c;
        self.u.s_axis_clean_tvalid.next = true;
        for w in 0..5000 {
            settle(&mut self.u);
            if self.u.s_axis_clean_tready.val() {
                self.tick();
                self.u.s_axis_clean_tvalid.next = false;
                return w;
            }
            self.tick();
        }
        panic!("clean beat never taken");
    }

    /// Waits for the CHOOSE answer (taken under random backpressure).
    fn result(&mut self) -> (u8, u16) {
        for _ in 0..5000 {
            settle(&mut self.u);
            if self.u.m_axis_res_tvalid.val() && self.u.m_axis_res_tready.val() {
                let r = self.u.m_axis_res_tdata.val();
                self.tick();
                return (r.path.to_u64() as u8, r.ev.to_u64() as u16);
            }
            self.tick();
        }
        panic!("no CHOOSE result");
    }

    fn wait_idle(&mut self) {
        for _ in 0..5000 {
            settle(&mut self.u);
            if self.u.idle.val() {
                return;
            }
            self.tick();
        }
        panic!("never idle");
    }
}

fn cmd(conn: usize, op: u64) -> PathCmd {
    PathCmd {
        conn: (conn as u64).to_bits(),
        op: op.to_bits(),
        ..Default::default()
    }
}

/// An (entry, EV) pair to report: a current one, a stale one from the history, or garbage.
fn pair(rng: &mut Rng, m: &PathSet, hist: &[(u8, u16)]) -> (u8, u16) {
    match rng.below(10) {
        0..=3 => {
            let i = rng.below(m.len() as u64) as u8;
            (i, m.ev(i))
        }
        4..=7 if !hist.is_empty() => hist[rng.below(hist.len() as u64) as usize],
        8 => (rng.below(80) as u8, rng.below(1 << 14) as u16),
        _ => (rng.below(256) as u8, rng.below(1 << 14) as u16),
    }
}

fn run<const W: usize>(conns: usize, ops: usize, seed: u64) {
    let max_paths = PathSelect::<W>::MAX_PATHS;
    let mut rng = Rng(seed);
    let mut u = PathSelect::<W>::new(3);
    u.connect_all();
    let mut tb = Tb {
        u,
        rng: Rng(seed ^ 0x5eed),
        cycles: 0,
        stall: 30,
    };
    tb.u.rst.next = true;
    tb.tick();
    tb.u.rst.next = false;
    tb.tick();
    let mut now: u64 = rng.next() >> 20;
    let mut models: Vec<Option<PathSet>> = vec![None; conns];
    let mut hist: Vec<Vec<(u8, u16)>> = vec![Vec::new(); conns];
    let mut cur = 0usize;
    // The connection the unit has cached (the one of the latest command or beat).
    let mut last_conn: Option<usize> = None;
    let (mut chooses, mut explored, mut reused, mut burst_beats) = (0u64, 0u64, 0u64, 0u64);
    for op in 0..ops {
        now = match rng.below(40) {
            0..=2 => now.wrapping_add(rng.below(1 << 20)),
            3 => now.wrapping_add(rng.below(1 << 36)),
            4 => u64::MAX - rng.below(1 << 16),
            5 => rng.below(1 << 40),
            _ => now.saturating_add(rng.below(400)),
        };
        tb.u.now.next = now.to_bits();
        if rng.below(10) < 3 {
            cur = rng.below(conns as u64) as usize;
        }
        let open_now = models[cur].is_none() || rng.below(200) == 0;
        if open_now {
            let n = match rng.below(6) {
                0 => 1,
                1 => 0,
                2 => rng.below(max_paths as u64 + 1),
                3 if max_paths == 64 => 60 + rng.below(11),
                _ => 1 + rng.below(max_paths.min(16) as u64),
            };
            let s = rng.next();
            let mut c = cmd(cur, OP_OPEN);
            c.n = n.to_bits();
            c.seed = s.to_bits();
            tb.cmd(c);
            last_conn = Some(cur);
            let m = PathSet::new(n as u8, s);
            hist[cur] = (0..m.len() as u8).map(|i| (i, m.ev(i))).collect();
            models[cur] = Some(m);
            continue;
        }
        let Some(m) = models[cur].as_mut() else {
            continue;
        };
        let h = &mut hist[cur];
        let last = last_conn.replace(cur);
        let r = rng.below(100);
        if r < 40 {
            let avoid = rng.below(3) == 0;
            let idx = if rng.below(4) == 0 {
                rng.below(256)
            } else {
                rng.below(m.len() as u64 + 1)
            };
            let mut c = cmd(cur, OP_CHOOSE);
            c.avoid = avoid;
            c.idx = idx.to_bits();
            let fifo_hint = m.clone();
            let want = m.choose(avoid.then_some(idx as u8), now);
            tb.cmd(c);
            let got = tb.result();
            assert_eq!(
                got,
                want,
                "op {op}: CHOOSE conn {cur} avoid {avoid} idx {idx} now {now} n {}",
                m.len()
            );
            chooses += 1;
            if fifo_hint.ev(want.0) == want.1 {
                reused += 1;
            } else {
                explored += 1;
            }
            h.push(want);
            if h.len() > 64 {
                h.remove(0);
            }
        } else if r < 65 {
            // A burst of clean beats for this connection, back to back.
            let cached = last == Some(cur);
            let longest = if rng.below(4) == 0 { 8 } else { 3 };
            let beats = 1 + rng.below(longest);
            for k in 0..beats {
                let mask = rng.below(16);
                let mut lanes = [(0u8, 0u16); 4];
                for l in 0..4 {
                    lanes[l] = if l > 0 && rng.below(6) == 0 {
                        lanes[rng.below(l as u64) as usize]
                    } else {
                        pair(&mut rng, m, h)
                    };
                }
                for (l, &(i, e)) in lanes.iter().enumerate() {
                    if mask >> l & 1 == 1 {
                        m.on_clean_ack(i, e);
                    }
                }
                let c = PathClean {
                    conn: (cur as u64).to_bits(),
                    mask: mask.to_bits(),
                    idx0: (lanes[0].0 as u64).to_bits(),
                    idx1: (lanes[1].0 as u64).to_bits(),
                    idx2: (lanes[2].0 as u64).to_bits(),
                    idx3: (lanes[3].0 as u64).to_bits(),
                    ev0: (lanes[0].1 as u64).to_bits(),
                    ev1: (lanes[1].1 as u64).to_bits(),
                    ev2: (lanes[2].1 as u64).to_bits(),
                    ev3: (lanes[3].1 as u64).to_bits(),
                };
                let waited = tb.clean(c);
                // After the first beat the connection is cached (the first one may have waited for the load).
                if k > 1 || (k == 1 && cached) {
                    // MR-PATH-3 at line rate: the cached connection takes a beat every cycle.
                    assert_eq!(waited, 0, "op {op}: clean beat {k} of a burst waited");
                    burst_beats += 1;
                }
            }
        } else if r < 75 {
            let ev = pair(&mut rng, m, h).1;
            let mut c = cmd(cur, OP_RECYCLE_ECE);
            c.ev = (ev as u64).to_bits();
            tb.cmd(c);
            if let Some(i) = m.index_of(ev) {
                m.recycle(i, ev, RecycleCause::Ece, now);
            }
        } else if r < 90 {
            let (i, ev) = pair(&mut rng, m, h);
            let loss = rng.below(2) == 0;
            let op = if loss {
                OP_RECYCLE_LOSS
            } else {
                OP_RECYCLE_TRIM
            };
            let mut c = cmd(cur, op);
            c.idx = (i as u64).to_bits();
            c.ev = (ev as u64).to_bits();
            tb.cmd(c);
            let cause = if loss {
                RecycleCause::Loss
            } else {
                RecycleCause::Trim
            };
            m.recycle(i, ev, cause, now);
        } else if r < 97 {
            let srtt = match rng.below(16) {
                0 => u32::MAX as u64 - rng.below(4),
                1 => rng.below(1 << 32),
                2..=4 => 0,
                _ => rng.below(4000),
            };
            let mut c = cmd(cur, OP_SET_SRTT);
            c.srtt = srtt.to_bits();
            tb.cmd(c);
            m.set_srtt(srtt);
        } else {
            tb.wait_idle();
            last_conn = last;
        }
        if rng.below(50) == 0 {
            tb.wait_idle();
        }
    }
    tb.wait_idle();
    // Every connection answers from its own state after all the switching.
    for (c, m) in models.iter_mut().enumerate() {
        if let Some(m) = m {
            let want = m.choose(None, now);
            tb.cmd(cmd(c, OP_CHOOSE));
            assert_eq!(tb.result(), want, "final CHOOSE conn {c}");
        }
    }
    println!(
        "max_paths {max_paths}: {ops} ops, {} cycles, {chooses} CHOOSE ({reused} same EV, {explored} new EV), \
         {burst_beats} burst beats at one per cycle",
        tb.cycles
    );
    assert!(chooses > 0 && explored > 0 && reused > 0 && burst_beats > 0);
}

#[test]
fn mr_path_1_3_10_18_path_select_matches_path_set_64() {
    let s = seed();
    run::<{ word_bits(64) }>(5, iters(2500), s);
}

#[test]
fn mr_path_1_3_10_18_path_select_matches_path_set_8() {
    let s = seed() ^ 0x8;
    run::<{ word_bits(8) }>(4, iters(1500), s);
}

/// The most draws `PathSet::new(n, seed)` needs for one entry (MR-PATH-1: redrawn while equal to an entry of
/// the set, at most 4 draws).
fn most_draws(n: usize, seed: u64) -> usize {
    let mut rng = Prng::new(seed);
    let mut evs: Vec<u16> = Vec::new();
    let mut most = 0;
    for _ in 0..n {
        let mut ev = 0;
        for d in 1..=4 {
            ev = (rng.next_u32() & 0x3FFF) as u16;
            most = most.max(d);
            if !evs.contains(&ev) {
                break;
            }
        }
        evs.push(ev);
    }
    most
}

#[test]
fn mr_path_1_2_duplicate_evs_are_redrawn() {
    // A seed whose 64-entry set needs a third draw for some entry, then one needing a second draw only.
    let base = seed();
    let mut u = PathSelect64::new(2);
    u.connect_all();
    let mut tb = Tb {
        u,
        rng: Rng(base),
        cycles: 0,
        stall: 0,
    };
    tb.u.rst.next = true;
    tb.tick();
    tb.u.rst.next = false;
    let mut checked = 0;
    for want_draws in [3, 2] {
        let s = (base..)
            .take(1_000_000)
            .find(|&s| most_draws(64, s) == want_draws)
            .expect("a seed with redraws");
        let mut m = PathSet::new(64, s);
        let mut c = cmd(1, OP_OPEN);
        c.n = 64u64.to_bits();
        c.seed = s.to_bits();
        tb.cmd(c);
        // Queue every entry with the model's EVs: the unit queues an entry only if its EV is the same, and
        // then answers the 64 CHOOSEs from the ready FIFO with the set's EVs in order.
        for k in 0..16u64 {
            let e = |i: u64| (m.ev((4 * k + i) as u8) as u64).to_bits();
            let beat = PathClean {
                conn: 1u64.to_bits(),
                mask: 15u64.to_bits(),
                idx0: (4 * k).to_bits(),
                idx1: (4 * k + 1).to_bits(),
                idx2: (4 * k + 2).to_bits(),
                idx3: (4 * k + 3).to_bits(),
                ev0: e(0),
                ev1: e(1),
                ev2: e(2),
                ev3: e(3),
            };
            tb.clean(beat);
            for i in 0..4 {
                m.on_clean_ack((4 * k + i) as u8, m.ev((4 * k + i) as u8));
            }
        }
        // 64 from the FIFO, then two rounds of round robin with fresh EVs (the generator state after the
        // redraws: a generator lagging by the redrawn draws would repeat values no longer in the set).
        for _ in 0..192 {
            let want = m.choose(None, 1);
            tb.cmd(cmd(1, OP_CHOOSE));
            assert_eq!(tb.result(), want, "seed {s}");
            checked += 1;
        }
    }
    assert_eq!(checked, 384);
}

/// Cycles from a CHOOSE's transfer to its result being valid (the connection cached, result taken at once).
fn choose_latency(tb: &mut Tb<{ word_bits(64) }>, conn: usize, m: &mut PathSet) -> u64 {
    let want = m.choose(None, 5);
    tb.cmd(cmd(conn, OP_CHOOSE));
    // The transfer was the last clock edge; count the edges until the result is valid.
    let mut lat = 0;
    loop {
        settle(&mut tb.u);
        if tb.u.m_axis_res_tvalid.val() {
            break;
        }
        tb.tick();
        lat += 1;
        assert!(lat < 100, "no result");
    }
    assert_eq!(tb.result(), want);
    lat
}

#[test]
fn mr_path_3_choose_latencies_as_documented() {
    let mut u = PathSelect64::new(2);
    u.connect_all();
    let mut tb = Tb {
        u,
        rng: Rng(1),
        cycles: 0,
        stall: 0,
    };
    tb.u.now.next = 5u64.to_bits();
    tb.u.rst.next = true;
    tb.tick();
    tb.u.rst.next = false;
    let mut c = cmd(0, OP_OPEN);
    c.n = 4u64.to_bits();
    c.seed = 7u64.to_bits();
    let t0 = tb.cycles;
    tb.cmd(c);
    tb.wait_idle();
    // OPEN: 2 cycles, then 9 per entry (no redraw with this seed), then the write-back.
    assert_eq!(tb.cycles - t0, 1 + 2 + 9 * 4 + 1);
    let mut m = PathSet::new(4, 7);
    // Round robin with a fresh EV (MR-PATH-3) right after the OPEN, before the next draws were made ahead:
    // 13 cycles.
    assert_eq!(choose_latency(&mut tb, 0, &mut m), 13);
    // With the next draws made ahead (the unit had time since the last fresh EV): 5 cycles.
    for _ in 0..16 {
        tb.tick();
    }
    assert_eq!(choose_latency(&mut tb, 0, &mut m), 5);
    // From the ready FIFO: 4 cycles.
    let (i, e) = (0u8, m.ev(0));
    m.on_clean_ack(i, e);
    tb.clean(PathClean {
        conn: 0u64.to_bits(),
        mask: 1u64.to_bits(),
        idx0: (i as u64).to_bits(),
        ev0: (e as u64).to_bits(),
        ..Default::default()
    });
    tb.wait_idle();
    assert_eq!(choose_latency(&mut tb, 0, &mut m), 4);
    // One entry (MR-PATH-4): round robin without a fresh EV, 5 cycles.
    let mut c = cmd(1, OP_OPEN);
    c.n = 1u64.to_bits();
    c.seed = 9u64.to_bits();
    tb.cmd(c);
    tb.wait_idle();
    let mut m1 = PathSet::new(1, 9);
    assert_eq!(choose_latency(&mut tb, 1, &mut m1), 5);
    // Another connection (not cached) costs one more cycle.
    assert_eq!(choose_latency(&mut tb, 0, &mut m), 14);
}
