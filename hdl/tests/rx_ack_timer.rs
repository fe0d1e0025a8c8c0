//! The ACK-delay timer (`rx::ack_timer`, MR-REL-16): deadlines written at random (bursts that fill it, gaps
//! that drain it) with a random-ready consumer; every trigger must leave in order, not before the cycle after
//! the one in which `now` reached its deadline (the block's comparison is registered) and in that cycle when
//! the consumer is ready (or within two cycles of the previous trigger, the head's refill), with the armed connection's fields, and `arm_room` must
//! be low exactly when the FIFO holds `2^ACK_TIMER_LOG` deadlines. Time crosses 2^32 ns. Seed:
//! `RX_ACK_TIMER_SEED` (printed).

use metaroce_hdl::records::PktMeta;
use metaroce_hdl::rx::ack_timer::{AckArm, AckTimer, ACK_TIMER_LOG};
use rust_hdl::prelude::*;
use std::collections::VecDeque;

mod support;
use support::{env, Rng};

/// The run's generator, seeded from `RX_ACK_TIMER_SEED` (printed, so that a run replays).
fn rng_from_env() -> Rng {
    let seed = env("RX_ACK_TIMER_SEED", 0x71e_u64);
    println!("RX_ACK_TIMER_SEED={seed}");
    Rng(seed)
}

fn b<const N: usize>(v: u64) -> Bits<N> {
    v.into()
}

fn edge(uut: &mut AckTimer) {
    assert!(simulate(uut, 100));
    uut.clk.next = Clock { clk: true };
    assert!(simulate(uut, 100));
    uut.clk.next = Clock { clk: false };
    assert!(simulate(uut, 100));
}

/// The trigger an arming must produce.
fn trigger_of(a: &AckArm) -> PktMeta {
    PktMeta {
        ack_timer: true,
        ptype: b(4),
        conn: a.conn,
        ts: a.deadline,
        peer_mac: a.peer_mac,
        peer_ip: a.peer_ip,
        ipv6: a.ipv6,
        vlan: a.vlan,
        tci: a.tci,
        dcid: a.dcid,
        scid: a.scid,
        ..Default::default()
    }
}

#[test]
fn mr_rel_16_triggers_leave_in_order_at_their_deadline() {
    const DELAY: u64 = 200;
    let cap = 1usize << ACK_TIMER_LOG;
    let mut rng = rng_from_env();
    let mut uut = AckTimer::default();
    uut.connect_all();
    uut.rst.next = true;
    edge(&mut uut);
    uut.rst.next = false;
    // (arming, the cycle its deadline is reached)
    let mut queued: VecDeque<(AckArm, u64)> = VecDeque::new();
    let mut now = (1u64 << 32) - 40_000;
    let (mut written, mut fired, mut full_seen) = (0usize, 0usize, 0usize);
    let mut burst = false;
    let mut last_pop = 0u64;
    for cycle in 0..40_000u64 {
        // `now` of the cycle before: the block's registered comparison saw it.
        let prev_now = now;
        now += 3;
        if rng.below(500) == 0 {
            burst = !burst;
        }
        uut.now.next = b(now);
        let want = rng.below(if burst { 1 } else { 40 }) == 0;
        let arm = AckArm {
            conn: b(rng.below(1 << 16)),
            deadline: b((now + DELAY) & 0xFFFF_FFFF),
            peer_mac: b(rng.next() >> 16),
            peer_ip: b(rng.next()),
            ipv6: rng.below(2) == 1,
            vlan: rng.below(2) == 1,
            tci: b(rng.below(1 << 16)),
            dcid: b(rng.below(1 << 24)),
            scid: b(rng.below(1 << 24)),
        };
        uut.arm_wr_data.next = arm;
        uut.m_axis_trig_tready.next = rng.below(4) != 0;
        assert!(simulate(&mut uut, 100));
        // The room flag against the FIFO's content (queued ones not yet out).
        assert_eq!(
            uut.arm_room.val(),
            queued.len() < cap,
            "cycle {cycle}: room with {} queued",
            queued.len()
        );
        let room = uut.arm_room.val();
        full_seen += usize::from(!room);
        uut.arm_wr_en.next = want && room;
        assert!(simulate(&mut uut, 100));
        if uut.m_axis_trig_tvalid.val() {
            let (a, due_at) = queued.front().copied().expect("trigger with nothing armed");
            assert!(
                prev_now >= due_at,
                "cycle {cycle}: trigger at {now} (the cycle before: {prev_now}) before deadline {due_at}"
            );
            assert_eq!(uut.m_axis_trig_tdata.val(), trigger_of(&a));
            if uut.m_axis_trig_tready.val() {
                queued.pop_front();
                fired += 1;
                last_pop = cycle;
            }
        } else if let Some(&(_, due_at)) = queued.front() {
            // A reached deadline waits only for the head's refill (two cycles after the previous one left).
            assert!(
                prev_now < due_at || cycle <= last_pop + 2,
                "cycle {cycle}: deadline {due_at} reached at {now}, no trigger"
            );
        }
        if want && room {
            queued.push_back((arm, now + DELAY));
            written += 1;
        }
        edge(&mut uut);
    }
    println!("written {written} fired {fired} full cycles {full_seen}");
    assert!(written > 2_000 && fired + cap >= written && full_seen > 100);
}
