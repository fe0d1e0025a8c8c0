//! The acknowledgement generator (`rx::ack_gen`, MR-REL-14..18, MR-REL-48, MR-WIRE-33..35) against the
//! reference model's ACK building: window decisions from `metaroce_proto::transport::bitmap::RecvWindow`, the
//! SACK block from `RecvWindow::sack_block` at `bitmap::sack_base`, the ACK-now rules and CE / DUP accounting of
//! `transport::metaroce::recv` (ack ratio 1 and 3), and the ACK-delay deadline of MR-REL-16 (`ack_deadline` in
//! the model): the test plays the timer (a FIFO of a few entries fed by the generator's arm writes, whose
//! triggers it offers at random, stale ones included, plus triggers of a closed connection). Seed:
//! `RX_ACK_SEED` (printed).

use metaroce_hdl::records::PktMeta;
use metaroce_hdl::rel::records::ConnOpen;
use metaroce_hdl::rx::ack_gen::AckGen;
use metaroce_hdl::rx::psn_window::WinInfo;
use metaroce_proto::transport::bitmap::{sack_base, Accept, RecvWindow};
use rust_hdl::prelude::*;

mod support;
use support::{env, Rng};

/// The run's generator, seeded from `RX_ACK_SEED` (printed, so that a run replays).
fn rng_from_env() -> Rng {
    let seed = env("RX_ACK_SEED", 0xac4_u64);
    println!("RX_ACK_SEED={seed}");
    Rng(seed)
}

fn edge(uut: &mut AckGen) {
    // settle the inputs set since the last edge before the rising edge samples them
    assert!(simulate(uut, 100));
    uut.clk.next = Clock { clk: true };
    assert!(simulate(uut, 100));
    uut.clk.next = Clock { clk: false };
    assert!(simulate(uut, 100));
}

fn b<const N: usize>(v: u64) -> Bits<N> {
    v.into()
}

/// The expected control packet (fields checked).
#[derive(Debug, Clone, PartialEq)]
struct Ctl {
    ptype: u8,
    psn: u32,
    dcid: u32,
    scid: u32,
    echo_ts: u32,
    aflags: u8,
    sack_base: u32,
    echo_ev: u16,
    ce_count: u16,
    sack: [u8; 32],
    code: u8,
    aux: u32,
}

fn got(m: &PktMeta) -> Ctl {
    let mut sack = [0u8; 32];
    for (i, byte) in sack.iter_mut().enumerate() {
        for k in 0..8 {
            if m.sack.get_bit(8 * i + k) {
                *byte |= 1 << k;
            }
        }
    }
    Ctl {
        ptype: m.ptype.to_u128() as u8,
        psn: m.psn.to_u128() as u32,
        dcid: m.dcid.to_u128() as u32,
        scid: m.scid.to_u128() as u32,
        echo_ts: m.echo_ts.to_u128() as u32,
        aflags: m.aflags.to_u128() as u8,
        sack_base: m.sack_base.to_u128() as u32,
        echo_ev: m.echo_ev.to_u128() as u16,
        ce_count: m.ce_count.to_u128() as u16,
        sack,
        code: m.code.to_u128() as u8,
        aux: m.aux.to_u128() as u32,
    }
}

/// Entries of the test's timer FIFO.
const TIMER_SLOTS: usize = 3;
/// The configured ACK delay, ns.
const DELAY: u64 = 2_000;

/// Counts of what a run produced.
#[derive(Debug, Default)]
struct Counts {
    acks: usize,
    nacks: usize,
    /// Arm writes.
    arms: usize,
    /// ACKs sent by a timer trigger.
    fired: usize,
    /// Triggers that found their deadline stale.
    stale: usize,
    /// Packets acknowledged at once because the timer was full.
    full: usize,
}

/// Runs `total` packets and triggers at ACK ratio `ratio`. `calm`: mostly in-order packets, few CE-marked or
/// LAST (so that ACKs wait for the ratio or the deadline), instead of the adversarial mix.
fn run(ratio: u8, calm: bool, rng: &mut Rng, total: usize) -> Counts {
    const CONN: u64 = 3;
    const OWN: u32 = 0x30003;
    const PEER: u32 = 0x0a0b0c;
    let isn = u32::MAX - 100;
    let mut uut = AckGen::new(4);
    uut.connect_all();
    uut.cfg_ack_ratio.next = b(ratio as u64);
    uut.cfg_ack_delay_ns.next = b(DELAY);
    uut.cfg_dscp_ctrl.next = b(46);
    uut.rst.next = true;
    edge(&mut uut);
    uut.rst.next = false;
    uut.s_axis_open_tdata.next = ConnOpen {
        conn: b(CONN),
        peer_isn: b(isn as u64),
        ..Default::default()
    };
    uut.s_axis_open_tvalid.next = true;
    edge(&mut uut);
    uut.s_axis_open_tvalid.next = false;
    uut.m_axis_pkt_tready.next = true;

    let mut win = RecvWindow::new(8, isn);
    let mut next_new = isn;
    // The model's ACK state (recv.rs: unacked_pkts, ce_count, ack_ece, ack_dup; ack_deadline as the id of
    // the arming that set it, ack_ts and ack_ev_port of the last packet covered).
    let (mut unacked, mut ce_count, mut ece, mut dup) = (0u32, 0u16, false, false);
    let mut armed: Option<u64> = None;
    let (mut last_ts, mut last_ev) = (0u32, 0u16);
    // Armings predicted so far (in order; the n-th write the generator makes is arming n) and those the test's
    // FIFO has seen; the FIFO holds arming ids.
    let mut predicted_arms = 0u64;
    let mut timer = Timer::default();
    // The FIFO length the generator sees when the next offered item reaches its S1: writes of earlier items
    // minus triggers offered before it.
    let mut model_len = 0usize;
    let mut c = Counts::default();
    let mut expect: std::collections::VecDeque<Ctl> = Default::default();
    let mut n = 0;
    let mut cycles = 0u64;
    while n < total || !expect.is_empty() {
        cycles += 1;
        assert!(
            cycles < 20 * total as u64 + 100,
            "stuck; {} expected left",
            expect.len()
        );
        uut.m_axis_ctl_tready.next = rng.below(4) != 0;
        let mut offer = None;
        // Triggers: often while the FIFO holds one (so that some find their connection still armed), rarely
        // otherwise.
        let p_trig = if timer.fifo.is_empty() { 20 } else { 3 };
        if n < total && ratio > 1 && rng.below(p_trig) == 0 {
            // A timer trigger: the FIFO's head (stale or not), or one of a closed connection, or (FIFO empty)
            // one with a deadline no arming has.
            let live = rng.below(6) != 0;
            // The FIFO's head leaves when the trigger is taken; until then it still takes room.
            let id = match timer.fifo.front() {
                Some(&id) if live => {
                    timer.fifo.pop_front();
                    timer.leaving = 1;
                    model_len -= 1;
                    id
                }
                _ => u64::MAX,
            };
            let m = PktMeta {
                ptype: b(4),
                ack_timer: true,
                ts: b(timer.deadline(id)),
                dcid: b(OWN as u64),
                scid: b(PEER as u64),
                conn: b(CONN),
                ..Default::default()
            };
            let cack = win.expected();
            let w = WinInfo {
                conn_ok: live,
                cack: b(cack as u64),
                bitmap: circular(&win),
                ..Default::default()
            };
            if live && armed == Some(id) {
                let mut sack = [0u8; 32];
                win.sack_block(cack, &mut sack);
                let flags = (if ece { 0x80 } else { 0 }) | (if dup { 0x40 } else { 0 });
                expect.push_back(Ctl {
                    ptype: 2,
                    psn: cack,
                    dcid: PEER,
                    scid: OWN,
                    echo_ts: last_ts,
                    aflags: flags,
                    sack_base: cack,
                    echo_ev: 0xC000 | last_ev,
                    ce_count,
                    sack,
                    code: 0,
                    aux: 0,
                });
                (unacked, ce_count, ece, dup) = (0, 0, false, false);
                armed = None;
                c.fired += 1;
            } else if live {
                c.stale += 1;
            }
            offer = Some((m, w));
        } else if n < total && rng.below(3) != 0 {
            let kind = if calm && rng.below(10) != 0 {
                50
            } else {
                rng.below(100)
            };
            let exp = win.expected();
            // (calm: nine in ten are a new PSN of a plain DATA packet)
            let plain = calm && rng.below(10) != 0;
            let psn = match if plain { 0 } else { rng.below(10) } {
                0..=5 => {
                    let p = next_new;
                    next_new = next_new.wrapping_add(1);
                    p
                }
                6 | 7 => exp.wrapping_add(rng.below(30) as u32),
                8 => exp.wrapping_sub(rng.below(50) as u32),
                _ => exp.wrapping_add(200 + rng.below(1000) as u32),
            };
            if next_new.wrapping_sub(exp) > 200 {
                next_new = exp;
            }
            let ce = rng.below(if calm { 40 } else { 6 }) == 0;
            let ts = rng.next() as u32;
            let ev = rng.below(1 << 14) as u16;
            let mut m = PktMeta {
                ptype: b(1),
                psn: b(psn as u64),
                ts: b(ts as u64),
                ev: b(ev as u64),
                ecn: b(if ce { 3 } else { 2 }),
                dcid: b(OWN as u64),
                scid: b(PEER as u64),
                conn: b(CONN),
                ..Default::default()
            };
            let mut w = WinInfo {
                conn_ok: true,
                ..Default::default()
            };
            let ack = |win: &RecvWindow, trig: u32, aflags: u8, ce_count: u16| {
                let cack = win.expected();
                let base = sack_base(cack, trig);
                let mut sack = [0u8; 32];
                win.sack_block(base, &mut sack);
                Ctl {
                    ptype: 2,
                    psn: cack,
                    dcid: PEER,
                    scid: OWN,
                    echo_ts: ts,
                    aflags,
                    sack_base: base,
                    echo_ev: 0xC000 | ev,
                    ce_count,
                    sack,
                    code: 0,
                    aux: 0,
                }
            };
            let nack = |code: u8, aux: u32| Ctl {
                ptype: 3,
                psn,
                dcid: PEER,
                scid: OWN,
                echo_ts: ts,
                aflags: 0,
                sack_base: 0,
                echo_ev: 0,
                ce_count: 0,
                sack: [0; 32],
                code,
                aux,
            };
            let flags =
                |ece: bool, dup: bool| (if ece { 0x80 } else { 0 }) | (if dup { 0x40 } else { 0 });
            if kind < 5 {
                // MR-REL-48: trimmed DATA: NACK TRIMMED, nothing else.
                m.trimmed = true;
                expect.push_back(nack(1, 0));
            } else if kind < 10 {
                // MR-REL-17: CTRL PROBE: ACK, sack_base = CACK.
                m.ptype = b(4);
                m.code = b(4);
                ece |= ce;
                w.cack = b(win.expected() as u64);
                expect.push_back(ack(&win, win.expected(), flags(ece, dup), ce_count));
                (unacked, ce_count, ece, dup) = (0, 0, false, false);
                armed = None;
            } else {
                w.cand = true;
                if ce {
                    ce_count = ce_count.saturating_add(1);
                    ece = true;
                }
                let nacked = kind < 20;
                let a = match win.classify(psn) {
                    Accept::InOrder | Accept::OutOfOrder if !nacked => win.accept(psn),
                    other => other,
                };
                match a {
                    Accept::Duplicate | Accept::OutOfWindow => {
                        w.dup = a == Accept::Duplicate;
                        w.oow = a == Accept::OutOfWindow;
                        dup |= w.dup;
                        expect.push_back(ack(&win, psn, flags(ece, dup), ce_count));
                        (unacked, ce_count, ece, dup) = (0, 0, false, false);
                        armed = None;
                    }
                    _ if nacked => {
                        w.nack = true;
                        w.code = b(5);
                        w.aux = b(77);
                        expect.push_back(nack(5, 77));
                    }
                    _ => {
                        w.accepted = true;
                        w.in_order = a == Accept::InOrder;
                        unacked += 1;
                        let last = rng.below(if calm { 40 } else { 8 }) == 0;
                        if last {
                            m.dflags = b(0x40);
                        }
                        (last_ts, last_ev) = (ts, ev);
                        let due = last || ce || !w.in_order || unacked >= ratio as u32;
                        // MR-REL-16: the first packet owing a not-yet-due ACK arms the timer; a full timer
                        // makes the ACK due now.
                        let full = !due && armed.is_none() && model_len >= TIMER_SLOTS;
                        if due || full {
                            expect.push_back(ack(&win, psn, flags(ece, dup), ce_count));
                            (unacked, ce_count, ece, dup) = (0, 0, false, false);
                            armed = None;
                            c.full += usize::from(full);
                        } else if armed.is_none() {
                            armed = Some(predicted_arms);
                            predicted_arms += 1;
                            model_len += 1;
                        }
                    }
                }
                w.cack = b(win.expected() as u64);
            }
            w.bitmap = circular(&win);
            offer = Some((m, w));
        }
        // Offer the packet until it is taken.
        if let Some((m, w)) = offer {
            uut.s_axis_pkt_tdata.next = m;
            uut.s_axis_pkt_tuser.next = w;
            uut.s_axis_pkt_tvalid.next = true;
            loop {
                let now = cycles * 3;
                uut.now.next = b(now);
                uut.arm_room.next = timer.room();
                assert!(simulate(&mut uut, 100));
                let fire = uut.s_axis_pkt_tready.val();
                check_out(&mut uut, &mut expect, &mut c);
                timer.check(&mut uut, now);
                edge(&mut uut);
                if fire {
                    break;
                }
                cycles += 1;
                uut.m_axis_ctl_tready.next = rng.below(4) != 0;
            }
            uut.s_axis_pkt_tvalid.next = false;
            timer.leaving = 0;
            n += 1;
        } else {
            uut.s_axis_pkt_tvalid.next = false;
            let now = cycles * 3;
            uut.now.next = b(now);
            uut.arm_room.next = timer.room();
            assert!(simulate(&mut uut, 100));
            check_out(&mut uut, &mut expect, &mut c);
            timer.check(&mut uut, now);
            edge(&mut uut);
        }
    }
    // Drain: every predicted arming was written.
    for _ in 0..4 {
        let now = cycles * 3;
        uut.now.next = b(now);
        assert!(simulate(&mut uut, 100));
        timer.check(&mut uut, now);
        edge(&mut uut);
        cycles += 1;
    }
    assert_eq!(
        timer.deadlines.len() as u64,
        predicted_arms,
        "arm writes against the model's armings"
    );
    c.arms = predicted_arms as usize;
    c
}

/// The generator's arm writes as the test's timer FIFO sees them.
#[derive(Default)]
struct Timer {
    /// Arming ids queued (the n-th write is arming n).
    fifo: std::collections::VecDeque<u64>,
    /// The deadline of every arming, by id.
    deadlines: Vec<u64>,
    /// 1 while the trigger of the entry last taken off `fifo` is offered but not yet taken.
    leaving: usize,
}

impl Timer {
    /// A free entry (what the timer's `arm_room` says).
    fn room(&self) -> bool {
        self.fifo.len() + self.leaving < TIMER_SLOTS
    }

    /// The deadline a trigger of arming `id` carries (`u64::MAX`: one that no arming has; deadlines are
    /// multiples of 3 ns plus `DELAY` here, never `2^32 - 1`).
    fn deadline(&self, id: u64) -> u64 {
        self.deadlines
            .get(id as usize)
            .copied()
            .unwrap_or(0xFFFF_FFFF)
    }

    /// Checks an arm write of this cycle (deadline `now + DELAY`, the connection's addresses) and queues it.
    fn check(&mut self, uut: &mut AckGen, now: u64) {
        if !uut.arm_wr_en.val() {
            return;
        }
        assert!(self.room(), "arm write without room");
        let a = uut.arm_wr_data.val();
        assert_eq!(a.deadline.to_u128() as u64, (now + DELAY) & 0xFFFF_FFFF);
        assert_eq!(a.conn.to_u128(), 3);
        assert_eq!(a.dcid.to_u128(), 0x30003);
        assert_eq!(a.scid.to_u128(), 0x0a0b0c);
        self.fifo.push_back(self.deadlines.len() as u64);
        self.deadlines.push(a.deadline.to_u128() as u64);
    }
}

/// The circular window (bit p mod 256 for p in (cack, cack + 256) received), as the window block gives it.
fn circular(win: &RecvWindow) -> Bits<256> {
    let cack = win.expected();
    let mut bm = Bits::<256>::default();
    for k in 1..256u32 {
        let p = cack.wrapping_add(k);
        if win.classify(p) == Accept::Duplicate {
            bm = bm.replace_bit((p % 256) as usize, true);
        }
    }
    bm
}

fn check_out(uut: &mut AckGen, expect: &mut std::collections::VecDeque<Ctl>, c: &mut Counts) {
    if uut.m_axis_ctl_tvalid.val() && uut.m_axis_ctl_tready.val() {
        let g = got(&uut.m_axis_ctl_tdata.val());
        let e = expect.pop_front().expect("unexpected control packet");
        assert_eq!(g, e);
        if g.ptype == 2 {
            c.acks += 1;
        } else {
            c.nacks += 1;
        }
    }
}

#[test]
fn mr_rel_14_18_acks_match_model_ratio_1() {
    let mut rng = rng_from_env();
    let c = run(1, false, &mut rng, 2500);
    println!("{c:?}");
    assert!(c.acks > 1000 && c.nacks > 150);
    assert_eq!(
        c.arms, 0,
        "ratio 1: every accepted packet is acknowledged at once"
    );
}

#[test]
fn mr_rel_14_16_acks_and_delay_deadlines_match_model_ratio_3() {
    let mut rng = rng_from_env();
    let c = run(3, false, &mut rng, 1500);
    println!("adversarial {c:?}");
    assert!(c.acks > 300 && c.nacks > 100, "{c:?}");
    let c = run(3, true, &mut rng, 2500);
    println!("calm {c:?}");
    assert!(
        c.arms > 100 && c.fired > 20 && c.stale > 20 && c.full > 0,
        "{c:?}"
    );
}
