//! The READ-response timer (`rel::resp_timer`, MR-REL-58) against a reference of the rule: a connection that
//! waits for a READ response fails once no DATA came from the peer for `timeout(0) + ... + timeout(limit)`
//! since it started waiting or since the peer's last DATA packet, never earlier, and at most one wheel tick
//! plus a few cycles per expiry later; `wait = 0` cancels it. Random wait events, DATA packets and error
//! back-pressure over 16 connections; the time crosses 2^32 ns. Seed: `REL_RESP_TIMER_SEED` (printed).

use metaroce_hdl::rel::resp_timer::{RespTimer, RespWait};
use metaroce_hdl::rel::timer_wheel::TICK_NS;
use rust_hdl::prelude::*;

mod support;
use support::{b, env, Rng};

const CONN_BITS: u32 = 4;
const STEP_NS: u64 = 64;
const RTO_MIN: u64 = 20_000;
const RTO_MAX: u64 = 100_000;
const LIMIT: u64 = 3;

fn edge(uut: &mut RespTimer) {
    assert!(simulate(uut, 200));
    uut.clk.next = Clock { clk: true };
    assert!(simulate(uut, 200));
    uut.clk.next = Clock { clk: false };
    assert!(simulate(uut, 200));
}

/// The time from the start of a wait (or the last DATA) to the failure: every timeout up to the limit's.
fn total() -> u64 {
    (0..=LIMIT).map(|k| (RTO_MIN << k).min(RTO_MAX)).sum()
}

/// The largest lateness: per expiry one wheel tick, the command's cycles and the fire's queueing.
fn slack() -> u64 {
    (LIMIT + 1) * (TICK_NS + 40 * STEP_NS) + 40 * STEP_NS
}

fn timer(now: u64) -> RespTimer {
    let mut uut = RespTimer::new(CONN_BITS);
    uut.connect_all();
    uut.cfg_rto_min_ns.next = b(u128::from(RTO_MIN));
    uut.cfg_rto_max_ns.next = b(u128::from(RTO_MAX));
    uut.cfg_retry_limit.next = b(u128::from(LIMIT));
    uut.now.next = b(u128::from(now));
    uut.rst.next = true;
    edge(&mut uut);
    uut.rst.next = false;
    let n = uut.clear_cycles() + 4;
    for _ in 0..n {
        edge(&mut uut);
    }
    uut
}

/// The reference's view of one connection: waiting since `base` (the later of the wait's start and the last
/// DATA from the peer).
#[derive(Clone, Copy, Default)]
struct Ref {
    waiting: bool,
    base: u64,
}

#[test]
fn mr_rel_58_a_read_without_response_fails_its_connection_after_the_retries() {
    let mut rng = Rng(env("REL_RESP_TIMER_SEED", 0x58_u64));
    println!("REL_RESP_TIMER_SEED={}", rng.0);
    let mut now = (1u64 << 32) - 3_000_000;
    let mut uut = timer(now);
    let n = 1usize << CONN_BITS;
    let mut r = vec![Ref::default(); n];
    // A wait event handed over and not yet executed: the reference applies it when it is handed over; the
    // timer takes a few cycles, which the slack covers.
    let (mut fails, mut cancels, mut resets) = (0, 0, 0);
    let mut pending: Option<RespWait> = None;
    for cycle in 0..120_000u64 {
        now += STEP_NS;
        uut.now.next = b(u128::from(now));
        // Connections 0..8 get DATA often (they never fail while it comes), the rest rarely.
        let data_conn = rng.below(n as u64) as usize;
        let data = rng.below(if data_conn < 8 { 20 } else { 4000 }) == 0;
        uut.s_axis_data_tvalid.next = data;
        uut.s_axis_data_tdata.next = b(data_conn as u128);
        if pending.is_none() && rng.below(300) == 0 {
            let c = rng.below(n as u64);
            // Mostly starts; a cancel now and then.
            pending = Some(RespWait {
                conn: b(u128::from(c)),
                wait: rng.below(5) != 0,
            });
        }
        uut.s_axis_wait_tvalid.next = pending.is_some();
        uut.s_axis_wait_tdata.next = pending.unwrap_or_default();
        uut.m_axis_err_tready.next = rng.below(3) != 0;
        assert!(simulate(&mut uut, 200));
        if uut.m_axis_err_tvalid.val() && uut.m_axis_err_tready.val() {
            let c = uut.m_axis_err_tdata.val().index();
            let e = r[c];
            assert!(
                e.waiting,
                "cycle {cycle}: connection {c} failed without waiting"
            );
            assert!(
                now >= e.base + total(),
                "cycle {cycle}: connection {c} failed {} ns early",
                e.base + total() - now
            );
            r[c].waiting = false;
            fails += 1;
        }
        if data {
            if r[data_conn].waiting {
                resets += 1;
            }
            r[data_conn].base = r[data_conn].base.max(now);
        }
        if uut.s_axis_wait_tvalid.val() && uut.s_axis_wait_tready.val() {
            let w = pending.take().expect("offered");
            let c = w.conn.index();
            if w.wait && !r[c].waiting {
                r[c] = Ref {
                    waiting: true,
                    base: now,
                };
            } else if !w.wait && r[c].waiting {
                r[c].waiting = false;
                cancels += 1;
            }
        }
        for (c, e) in r.iter().enumerate() {
            assert!(
                !e.waiting || now <= e.base + total() + slack(),
                "cycle {cycle}: connection {c} waits since {} without failing (now {now})",
                e.base
            );
        }
        edge(&mut uut);
    }
    println!("failures {fails}, cancels {cancels}, DATA while waiting {resets}");
    assert!(fails >= 10 && cancels >= 5 && resets >= 100);
}

#[test]
fn mr_rel_58_steady_data_from_the_peer_keeps_a_waiting_read_alive() {
    let mut now = 1_000_000u64;
    let mut uut = timer(now);
    uut.s_axis_wait_tdata.next = RespWait {
        conn: b(5u128),
        wait: true,
    };
    uut.s_axis_wait_tvalid.next = true;
    uut.m_axis_err_tready.next = true;
    let start = now;
    let mut failed_at = None;
    for cycle in 0..40_000u64 {
        now += STEP_NS;
        uut.now.next = b(u128::from(now));
        // DATA every 10 us (half the base timeout) for the first 1.5 ms, then silence.
        let talking = now - start < 1_500_000;
        uut.s_axis_data_tvalid.next = talking && cycle % (10_000 / STEP_NS) == 0;
        uut.s_axis_data_tdata.next = b(5u128);
        assert!(simulate(&mut uut, 200));
        let taken = uut.s_axis_wait_tvalid.val() && uut.s_axis_wait_tready.val();
        if uut.m_axis_err_tvalid.val() {
            assert_eq!(uut.m_axis_err_tdata.val().index(), 5);
            assert!(failed_at.is_none(), "one failure");
            failed_at = Some(now);
        }
        edge(&mut uut);
        if taken {
            uut.s_axis_wait_tvalid.next = false;
        }
    }
    let t = failed_at.expect("the wait fails once the DATA stops");
    let silent = start + 1_500_000 - 10_000;
    assert!(
        t >= silent + total() && t <= start + 1_500_000 + total() + slack(),
        "failed {} ns after the last DATA (timeouts {})",
        t - silent,
        total()
    );
}
