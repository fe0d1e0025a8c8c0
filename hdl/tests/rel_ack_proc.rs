//! The ACK processor (rust-hdl simulator) against `metaroce_proto::transport::loss::SendWindow`
//! (MR-REL-20..25, MR-REL-34..39, MR-REL-59): random transmissions, retransmissions (declared PSNs first, in
//! declaration order), ACKs (cumulative acks behind, at and beyond snd_nxt, SACK blocks at random bases,
//! random ECE), NACKs (TRIMMED with a current or stale echo, RNR), detection runs with random srtt, reo_wnd
//! and reordering multiplier, timeout runs and record look-ups on three connections sharing two window slots
//! (a connection without PSNs outstanding sends only while a slot is free, as the gate lets it; full ACKs empty
//! windows so slots are released and taken again), PSNs and times crossing the 2^32 wrap, with random
//! back-pressure on every output. The free-slot count is checked after every operation, and the block must
//! never miss a slot. Every ACK's newly acknowledged count and bytes, CACK
//! advance, validity, snd_una and in-flight bytes, the clean-ACK words (the entries of the packets a clean ACK
//! newly covers, MR-PATH-3), the PSNs each run or NACK declares lost (order and cause), the RACK deadline
//! (MR-REL-37) and the look-ups must equal the model's. Seed: `REL_ACK_SEED` (printed); operations:
//! `REL_ACK_OPS` (default 4000); `REL_ACK_TRACE=1` prints the operations.

use metaroce_hdl::records::{PktMeta, TxSent};
use metaroce_hdl::rel::ack_proc::{
    AckProc, LaneWord, LossCmd, CAUSE_LOSS, CAUSE_NONE, CAUSE_RTO, CAUSE_TRIM, CMD_DETECT,
    CMD_NACK, CMD_PEEK, CMD_RTO,
};
use metaroce_hdl::rel::records::ConnOpen;
use metaroce_proto::transport::loss::{LossCause, SendWindow, SentPkt, F_LOST};
use rust_hdl::prelude::*;

mod support;
use support::{env, Rng};

/// The block, its output collectors and the back-pressure generator.
struct Tb {
    u: Box<AckProc>,
    bp: Rng,
    /// Declared PSNs: (psn, cause, path, ev).
    lost: Vec<(u32, u64, u8, u16)>,
    /// Clean-ACK entries: (path, ev).
    clean: Vec<(u8, u16)>,
    /// The lost and clean outputs are always ready (no back-pressure).
    always_ready: bool,
}

/// The `cause` a test records for lane `k` of a lost word: the word's cause, or [`BY_DISTANCE`] for a lane its
/// `far` mask marks.
fn lane_cause(w: &LaneWord, k: u32) -> u64 {
    if w.far.to_u64() & (1 << k) != 0 {
        BY_DISTANCE
    } else {
        w.cause.to_u64()
    }
}

/// The recorded cause of a PSN a detection run declared by the reorder distance (`CAUSE_LOSS` with its lane
/// in the word's `far` mask).
const BY_DISTANCE: u64 = 8;

fn lanes(w: &LaneWord) -> Vec<(u32, u8, u16)> {
    let mask = w.mask.to_u64();
    let pe = [
        (w.p0.to_u64(), w.e0.to_u64()),
        (w.p1.to_u64(), w.e1.to_u64()),
        (w.p2.to_u64(), w.e2.to_u64()),
        (w.p3.to_u64(), w.e3.to_u64()),
    ];
    (0..4)
        .filter(|k| mask & (1 << k) != 0)
        .map(|k| {
            (
                (w.psn.to_u64() as u32).wrapping_add(k as u32),
                pe[k].0 as u8,
                pe[k].1 as u16,
            )
        })
        .collect()
}

impl Tb {
    /// Evaluates until nothing changes (rust-hdl's `update_all` is one pass).
    fn settle(&mut self) {
        for _ in 0..1000 {
            self.u.update_all();
            if !self.u.has_changed() {
                return;
            }
        }
        panic!("combinational loop");
    }

    fn tick(&mut self) {
        assert!(
            !self.u.slot_miss.val(),
            "a new transmission missed a window slot"
        );
        self.u.m_axis_lost_tready.next = self.bp.below(3) != 0 || self.always_ready;
        self.u.m_axis_clean_tready.next = self.bp.below(3) != 0 || self.always_ready;
        self.settle();
        if self.u.m_axis_lost_tvalid.val() && self.u.m_axis_lost_tready.val() {
            let w = self.u.m_axis_lost_tdata.val();
            assert_ne!(w.mask.to_u64(), 0, "empty lost word");
            for (psn, p, e) in lanes(&w) {
                let k = psn.wrapping_sub(w.psn.to_u64() as u32);
                self.lost.push((psn, lane_cause(&w, k), p, e));
            }
        }
        if self.u.m_axis_clean_tvalid.val() && self.u.m_axis_clean_tready.val() {
            let w = self.u.m_axis_clean_tdata.val();
            assert_ne!(w.mask.to_u64(), 0, "empty clean word");
            for (_, p, e) in lanes(&w) {
                self.clean.push((p, e));
            }
        }
        self.u.clk.next = true.into();
        self.settle();
        self.u.clk.next = false.into();
        self.settle();
    }

    /// Holds `valid` until the block takes the transfer.
    fn push(&mut self, set: impl Fn(&mut AckProc, bool), ready: impl Fn(&AckProc) -> bool) {
        set(&mut self.u, true);
        for _ in 0..400 {
            self.settle();
            if ready(&self.u) {
                self.tick();
                set(&mut self.u, false);
                return;
            }
            self.tick();
        }
        panic!("stream never ready");
    }

    fn sent(&mut self, t: TxSent) {
        self.push(
            |u, v| {
                u.s_axis_sent_tdata.next = t;
                u.s_axis_sent_tvalid.next = v;
            },
            |u| u.s_axis_sent_tready.val(),
        );
    }

    /// Presents an ACK until it is taken and waits for its result (left on `m_axis_res_*`); returns the
    /// cycles from the one it was taken in to the result's.
    fn ack(&mut self, meta: PktMeta) -> u64 {
        self.push(
            |u, v| {
                u.s_axis_ack_tdata.next = meta;
                u.s_axis_ack_tvalid.next = v;
            },
            |u| u.s_axis_ack_tready.val(),
        );
        let mut cycles = 1;
        while !self.u.m_axis_res_tvalid.val() {
            self.tick();
            cycles += 1;
            assert!(cycles < 1000, "no ACK result");
        }
        cycles
    }

    /// Runs a command and waits for its result (every lost word drained).
    fn cmd(&mut self, c: LossCmd) -> metaroce_hdl::rel::ack_proc::LossRes {
        self.push(
            |u, v| {
                u.s_axis_cmd_tdata.next = c;
                u.s_axis_cmd_tvalid.next = v;
            },
            |u| u.s_axis_cmd_tready.val(),
        );
        let mut waited = 0;
        loop {
            self.settle();
            if self.u.m_axis_cres_tvalid.val() {
                break;
            }
            self.tick();
            waited += 1;
            assert!(waited < 2000, "no command result");
        }
        let r = self.u.m_axis_cres_tdata.val();
        self.u.m_axis_cres_tready.next = true;
        self.tick();
        self.u.m_axis_cres_tready.next = false;
        for _ in 0..8 {
            self.tick();
        }
        assert!(
            !self.u.m_axis_lost_tvalid.val(),
            "lost word after the result"
        );
        r
    }
}

fn b<const N: usize>(v: u64) -> Bits<N> {
    v.to_bits()
}

#[test]
fn mr_rel_20_39_ack_and_loss_processing_match_send_window() {
    let seed = env("REL_ACK_SEED", 0xac0c_2026);
    let ops = env("REL_ACK_OPS", 4000);
    let trace = std::env::var("REL_ACK_TRACE").is_ok();
    println!("REL_ACK_SEED={seed} REL_ACK_OPS={ops}");
    let mut rng = Rng(seed);
    // Three connections, two window slots.
    let conns = [1u64, 2, 3];
    let slots = 2usize;
    let isns: Vec<u32> = conns
        .iter()
        .map(|_| u32::MAX - 300 + rng.below(100) as u32)
        .collect();
    let mut ms: Vec<SendWindow> = isns.iter().map(|&i| SendWindow::new(8, i, 3)).collect();
    // Whether each connection has had a valid ACK since its open (the end of its SYN phase).
    let mut answered = vec![false; conns.len()];
    let mut tb = Tb {
        u: Box::new(AckProc::new(2, 1)),
        bp: Rng(seed ^ 0x5a5a),
        lost: Vec::new(),
        clean: Vec::new(),
        always_ready: false,
    };
    tb.u.connect_all();
    tb.u.m_axis_res_tready.next = true;
    tb.u.m_axis_una_tready.next = true;
    tb.u.rst.next = true;
    tb.tick();
    tb.u.rst.next = false;
    for (&conn, &isn) in conns.iter().zip(&isns) {
        let open = ConnOpen {
            conn: b(conn),
            isn: b(isn as u64),
            ..Default::default()
        };
        tb.push(
            |u, v| {
                u.s_axis_open_tdata.next = open;
                u.s_axis_open_tvalid.next = v;
            },
            |u| u.s_axis_open_tready.val(),
        );
    }
    // Times cross 2^32 (the hardware keeps ns mod 2^32).
    let mut now: u64 = (1u64 << 32) - 150_000;
    let (mut acks, mut newly_total, mut invalid_seen, mut sack_only) = (0, 0, 0, 0);
    let (mut by_time, mut by_distance, mut by_rto, mut by_nack, mut stale_nack, mut peeks_found) =
        (0, 0, 0, 0, 0, 0);
    let (mut slot_waits, mut slot_takes, mut holes_seen) = (0, 0, 0);
    let base_cmd = |conn: u64, now: u64| LossCmd {
        conn: b(conn),
        now32: b(now as u32 as u64),
        ..Default::default()
    };
    for op in 0..ops {
        now += 1 + rng.below(500);
        let k = rng.below(conns.len() as u64) as usize;
        let conn = conns[k];
        let busy = ms.iter().filter(|m| m.outstanding() > 0).count();
        let m = &mut ms[k];
        let outst = m.outstanding();
        let r = rng.below(100);
        let ctx = format!(
            "seed {seed} op {op}: conn {conn} una {} nxt {}",
            m.una(),
            m.nxt()
        );
        if r < 40 && outst == 0 && busy == slots {
            // No window slot free: the gate holds the packet.
            slot_waits += 1;
        } else if r < 40 && outst < 250 {
            slot_takes += usize::from(outst == 0);
            let charged = 64 + rng.below(4097);
            let path = rng.below(64);
            let ev = rng.below(1 << 14);
            if trace {
                eprintln!("op {op} send {}", m.nxt());
            }
            let psn = m.on_send(
                now,
                SentPkt {
                    len: (charged - 64) as u32,
                    path: path as u8,
                    ev: ev as u16,
                    ..Default::default()
                },
                1_000_000,
            );
            tb.sent(TxSent {
                conn: b(conn),
                psn: b(psn as u64),
                ts: b(now as u32 as u64),
                charged: b(charged),
                path: b(path),
                ev: b(ev),
                rtx: false,
            });
        } else if r < 46 && outst > 0 {
            // MR-REL-43: declared PSNs first, in declaration order.
            let psn = match m.pop_lost() {
                Some(p) => p,
                None => m.una().wrapping_add(rng.below(outst as u64) as u32),
            };
            let path = rng.below(64);
            let ev = rng.below(1 << 14);
            m.on_retransmit(now, psn, path as u8, ev as u16, 1_000_000);
            if trace {
                eprintln!("op {op} rtx {psn}");
            }
            tb.sent(TxSent {
                conn: b(conn),
                psn: b(psn as u64),
                ts: b(now as u32 as u64),
                charged: b(0),
                path: b(path),
                ev: b(ev),
                rtx: true,
            });
        } else if r < 58 {
            // A detection run (MR-REL-36..38) with the reordering multiplier of MR-REL-59.
            let span = [1_000, 4_000, 40_000][rng.below(3) as usize];
            let srtt = 100 + rng.below(span);
            let reo_wnd = 100 + rng.below(3_000);
            m.on_reordering_signal(now, srtt, rng.below(25) == 0);
            let mult = u64::from(m.reo_mult());
            let mut want = Vec::new();
            m.detect_losses(now, srtt, reo_wnd, |psn, rec, c| {
                let cause = if c == LossCause::Distance {
                    BY_DISTANCE
                } else {
                    CAUSE_LOSS
                };
                want.push((psn, cause, rec.path, rec.ev));
                match c {
                    LossCause::Time => by_time += 1,
                    LossCause::Distance => by_distance += 1,
                    _ => unreachable!(),
                }
            });
            let c = LossCmd {
                op: b(CMD_DETECT),
                srtt_reo: b(srtt + mult * reo_wnd),
                distance: b((16 * mult).min(256)),
                ..base_cmd(conn, now)
            };
            tb.lost.clear();
            let res = tb.cmd(c);
            if trace {
                eprintln!("op {op} detect mult {mult} -> {want:?}");
            }
            assert_eq!(tb.lost, want, "declared PSNs, {ctx}");
            assert_eq!(res.nlost.to_u64(), want.len() as u64, "count, {ctx}");
            assert_eq!(
                res.rack_armed,
                m.rack_deadline.is_some(),
                "RACK timer, {ctx}"
            );
            if let Some(d) = m.rack_deadline {
                assert_eq!(
                    res.rack_at.to_u64(),
                    d as u32 as u64,
                    "RACK deadline, {ctx}"
                );
            }
        } else if r < 60 {
            // A timeout run (MR-REL-39).
            let rto = 500 + rng.below(20_000);
            let mut want = Vec::new();
            m.on_rto(now, rto, |psn, rec| {
                want.push((psn, CAUSE_RTO, rec.path, rec.ev));
            });
            by_rto += want.len();
            let c = LossCmd {
                op: b(CMD_RTO),
                rto: b(rto),
                ..base_cmd(conn, now)
            };
            tb.lost.clear();
            let res = tb.cmd(c);
            assert_eq!(tb.lost, want, "declared PSNs, {ctx}");
            let queued = (0..m.outstanding())
                .map(|i| m.una().wrapping_add(i))
                .any(|p| !m.is_acked(p) && m.get(p).is_some_and(|e| e.flags & F_LOST != 0));
            assert_eq!(res.queued, queued, "declared PSNs queued, {ctx}");
            assert_eq!(res.outstanding, m.outstanding() > 0, "outstanding, {ctx}");
        } else if r < 66 && outst > 0 {
            // A NACK (MR-REL-34, MR-REL-35, MR-REL-50): TRIMMED with the current or a stale echo, or RNR;
            // sometimes for a PSN outside the window.
            let psn = m
                .una()
                .wrapping_sub(2)
                .wrapping_add(rng.below(outst as u64 + 4) as u32);
            let trim = rng.below(4) != 0;
            let cur = m.get(psn).map(|e| e.sent as u32).unwrap_or(0);
            let echo = if rng.below(4) == 0 {
                cur.wrapping_sub(1 + rng.below(100) as u32)
            } else {
                cur
            };
            let ok = m.get(psn).is_some()
                && !m.is_acked(psn)
                && (!trim || m.get(psn).is_some_and(|e| e.sent as u32 == echo));
            let rec = if ok { m.mark_lost(psn) } else { None };
            let want: Vec<_> = rec
                .iter()
                .map(|e| {
                    let cause = if trim { CAUSE_TRIM } else { CAUSE_NONE };
                    (psn, cause, e.path, e.ev)
                })
                .collect();
            by_nack += want.len();
            stale_nack += usize::from(!ok);
            let c = LossCmd {
                op: b(CMD_NACK),
                psn: b(psn as u64),
                echo_ts: b(echo as u64),
                trim,
                ..base_cmd(conn, now)
            };
            tb.lost.clear();
            let res = tb.cmd(c);
            assert_eq!(tb.lost, want, "NACK psn {psn} trim {trim}, {ctx}");
            assert_eq!(res.found, rec.is_some(), "NACK found, {ctx}");
        } else if r < 70 && outst > 0 {
            // Look-up of a PSN to retransmit.
            let psn = m
                .una()
                .wrapping_sub(2)
                .wrapping_add(rng.below(outst as u64 + 4) as u32);
            let e = m.get(psn).copied();
            let found = e.is_some_and(|e| e.flags & F_LOST != 0) && !m.is_acked(psn);
            let res = tb.cmd(LossCmd {
                op: b(CMD_PEEK),
                psn: b(psn as u64),
                ..base_cmd(conn, now)
            });
            assert_eq!(res.found, found, "peek {psn}, {ctx}");
            if let Some(e) = e {
                assert_eq!(res.path.to_u64(), u64::from(e.path), "peek path, {ctx}");
                assert_eq!(res.ev.to_u64(), u64::from(e.ev), "peek ev, {ctx}");
            }
            peeks_found += usize::from(found);
        } else {
            // An ACK: CACK from 3 behind snd_una to 2 beyond snd_nxt; SACK block at a base near snd_una.
            // Most leave snd_una where it is (SACK only), so holes persist below later PSNs.
            let full = rng.below(6) == 0;
            let cack = if full {
                m.nxt()
            } else if rng.below(8) != 0 {
                m.una()
            } else {
                m.una()
                    .wrapping_sub(3)
                    .wrapping_add(rng.below(outst as u64 + 6) as u32)
            };
            let base = m.una().wrapping_sub(8).wrapping_add(rng.below(24) as u32);
            let ece = rng.below(4) == 0;
            let mut bytes = [0u8; 32];
            let mut bits = Bits::<256>::default();
            let density = rng.below(4);
            for i in 0..256 {
                if rng.below(4) < density && rng.below(3) == 0 {
                    bytes[i / 8] |= 1 << (i % 8);
                    bits = bits.replace_bit(i, true);
                }
            }
            let una0 = m.una();
            let mut credited = Vec::new();
            let res = m.on_ack(now, cack, base, &bytes, 1_000_000, |e| {
                credited.push((e.path, e.ev))
            });
            if trace {
                eprintln!("op {op} ack una0 {una0} cack {cack} base {base} -> {res:?}");
            }
            let meta = PktMeta {
                conn: b(conn),
                psn: b(cack as u64),
                sack_base: b(base as u64),
                sack: bits,
                aflags: b(if ece { 0x80 } else { 0 }),
                ..Default::default()
            };
            tb.clean.clear();
            tb.ack(meta);
            let o = tb.u.m_axis_res_tdata.val();
            let ctx = format!(
                "seed {seed} op {op}: cack {cack} base {base} una {} nxt {}",
                m.una(),
                m.nxt()
            );
            assert_eq!(o.invalid, res.invalid, "invalid, {ctx}");
            assert_eq!(
                o.newly.to_u64(),
                u64::from(res.newly_acked),
                "newly acked, {ctx}"
            );
            assert_eq!(o.bytes.to_u64(), res.acked_bytes, "acked bytes, {ctx}");
            assert_eq!(o.cack_advanced, res.cack_advanced, "cack advanced, {ctx}");
            assert_eq!(o.snd_una.to_u64(), u64::from(m.una()), "snd_una, {ctx}");
            assert_eq!(o.inflight.to_u64(), m.inflight_bytes(), "inflight, {ctx}");
            assert_eq!(o.idle, m.outstanding() == 0, "idle, {ctx}");
            assert_eq!(o.holes, m.below_highest_acked(), "holes, {ctx}");
            holes_seen += usize::from(o.holes);
            // MR-REL-22: every advance of snd_una is reported with the result, and so is the first valid
            // ACK since the open (MR-CONN-6, MR-CONN-7).
            let first = !res.invalid && !answered[k];
            answered[k] |= !res.invalid;
            assert_eq!(
                tb.u.m_axis_una_tvalid.val(),
                res.cack_advanced || first,
                "una update, {ctx}"
            );
            if res.cack_advanced || first {
                assert_eq!(
                    tb.u.m_axis_una_tdata.val().snd_una.to_u64(),
                    u64::from(m.una())
                );
            }
            tb.tick();
            for _ in 0..50 {
                if !tb.u.m_axis_clean_tvalid.val() {
                    break;
                }
                tb.tick();
            }
            assert!(!tb.u.m_axis_clean_tvalid.val(), "clean word never taken");
            // MR-PATH-3: a clean ACK reports the entries of every packet it newly covers, in PSN order.
            let want: Vec<(u8, u16)> = if ece { Vec::new() } else { credited };
            assert_eq!(tb.clean, want, "clean entries, {ctx}");
            acks += 1;
            newly_total += res.newly_acked;
            invalid_seen += usize::from(res.invalid);
            sack_only += usize::from(!res.cack_advanced && res.newly_acked > 0);
        }
        // A connection holds a window slot exactly while it has PSNs outstanding.
        for _ in 0..6 {
            tb.tick();
        }
        let busy = ms.iter().filter(|m| m.outstanding() > 0).count();
        assert_eq!(
            tb.u.free_slots.val().to_u64(),
            (slots - busy) as u64,
            "free window slots, seed {seed} op {op}"
        );
    }
    println!(
        "{slot_takes} window slots taken, {slot_waits} new packets held for a slot; \
         {acks} ACKs, {newly_total} packets acknowledged, {invalid_seen} invalid, {sack_only} SACK-only, \
         {holes_seen} leaving PSNs below the highest acknowledged; \
         declared lost: {by_time} by time, {by_distance} by distance, {by_rto} by timeout, {by_nack} by NACK \
         ({stale_nack} NACKs ignored); {peeks_found} look-ups found"
    );
    assert!(acks > 100 && newly_total > 200 && invalid_seen > 5 && sack_only > 5);
    assert!(by_time > 5 && by_distance > 0 && by_rto > 5 && by_nack > 5 && stale_nack > 5);
    assert!(peeks_found > 0);
    assert!(slot_takes > 10 && slot_waits > 10);
    assert!(holes_seen > 5 && holes_seen < acks);
}

/// The ACK scan ends after the last word the ACK changes (at least two words), not at snd_nxt: with 64 PSNs
/// outstanding (16 words), an in-order ACK of one PSN scans 2 words, an ACK with a SACK bit for the 61st PSN 16
/// (as many as the whole window), one acknowledging PSNs up to the 41st cumulatively 11, one whose only SACK
/// bit is for the 62nd PSN, acknowledged already, 6 (snd_una in the 42nd PSN's word); the ACK takes
/// `words + 9` cycles from the cycle it is taken to its result (module docs).
#[test]
fn ack_scan_ends_after_the_last_word_the_ack_changes() {
    let isn: u32 = 4000;
    let mut m = SendWindow::new(8, isn, 3);
    let mut tb = Tb {
        u: Box::new(AckProc::new(2, 1)),
        bp: Rng(1),
        lost: Vec::new(),
        clean: Vec::new(),
        always_ready: true,
    };
    tb.u.connect_all();
    tb.u.m_axis_res_tready.next = true;
    tb.u.m_axis_una_tready.next = true;
    tb.u.rst.next = true;
    tb.tick();
    tb.u.rst.next = false;
    let open = ConnOpen {
        conn: b(1),
        isn: b(isn as u64),
        ..Default::default()
    };
    tb.push(
        |u, v| {
            u.s_axis_open_tdata.next = open;
            u.s_axis_open_tvalid.next = v;
        },
        |u| u.s_axis_open_tready.val(),
    );
    for k in 0..64u64 {
        let psn = m.on_send(
            100 + k,
            SentPkt {
                len: 4096,
                ..Default::default()
            },
            1_000_000,
        );
        tb.sent(TxSent {
            conn: b(1),
            psn: b(psn as u64),
            ts: b(100 + k),
            charged: b(4160),
            rtx: false,
            ..Default::default()
        });
    }
    // (cack, SACK bit offset from cack, expected words scanned)
    let cases: [(u32, Option<u32>, u64); 4] = [
        (isn + 1, None, 2),
        (isn + 1, Some(60), 16),
        (isn + 41, None, 11),
        (isn + 41, Some(20), 6),
    ];
    for (cack, bit, words) in cases {
        let mut bits = Bits::<256>::default();
        let mut bytes = [0u8; 32];
        if let Some(i) = bit {
            bits = bits.replace_bit(i as usize, true);
            bytes[i as usize / 8] |= 1 << (i % 8);
        }
        let res = m.on_ack(1000, cack, cack, &bytes, 1_000_000, |_| {});
        let meta = PktMeta {
            conn: b(1),
            psn: b(cack as u64),
            sack_base: b(cack as u64),
            sack: bits,
            ..Default::default()
        };
        let cycles = tb.ack(meta);
        let o = tb.u.m_axis_res_tdata.val();
        assert_eq!(o.newly.to_u64(), u64::from(res.newly_acked), "cack {cack}");
        assert_eq!(o.snd_una.to_u64(), u64::from(m.una()), "cack {cack}");
        assert_eq!(
            cycles,
            words + 9,
            "ACK latency, cack {cack} SACK {bit:?}: {words} words expected"
        );
        for _ in 0..12 {
            tb.tick();
        }
    }
}
