//! The ACK processor (rust-hdl simulator) against `metaroce_proto::transport::loss::SendWindow`
//! (MR-REL-20..25): random transmissions, retransmissions and ACKs (cumulative acks behind, at and beyond
//! snd_nxt, SACK blocks at random bases) on one connection, PSNs crossing the 2^32 wrap; every ACK's newly
//! acknowledged count and bytes, CACK advance, validity, snd_una and in-flight bytes must equal the model's.
//! Seed: `REL_ACK_SEED` (printed); operations: `REL_ACK_OPS` (default 1500); `REL_ACK_TRACE=1` prints the
//! operations.

use metaroce_hdl::records::{PktMeta, TxSent};
use metaroce_hdl::rel::ack_proc::AckProc;
use metaroce_hdl::rel::records::ConnOpen;
use metaroce_proto::transport::loss::{SendWindow, SentPkt};
use rust_hdl::prelude::*;

mod support;
use support::{env, Rng};

/// Evaluates until nothing changes (rust-hdl's `update_all` is one pass).
fn settle(u: &mut AckProc) {
    for _ in 0..1000 {
        u.update_all();
        if !u.has_changed() {
            return;
        }
    }
    panic!("combinational loop");
}

fn tick(u: &mut AckProc) {
    settle(u);
    u.clk.next = true.into();
    settle(u);
    u.clk.next = false.into();
    settle(u);
}

/// Holds `valid` until the block takes the transfer.
fn push(u: &mut AckProc, set: impl Fn(&mut AckProc, bool), ready: impl Fn(&AckProc) -> bool) {
    set(u, true);
    for _ in 0..200 {
        settle(u);
        if ready(u) {
            tick(u);
            set(u, false);
            return;
        }
        tick(u);
    }
    panic!("stream never ready");
}

#[test]
fn mr_rel_20_25_ack_processing_matches_send_window() {
    let seed = env("REL_ACK_SEED", 0xac0c_2026);
    let ops = env("REL_ACK_OPS", 1500);
    println!("REL_ACK_SEED={seed} REL_ACK_OPS={ops}");
    let mut rng = Rng(seed);
    let isn = u32::MAX - 300 + rng.below(100) as u32;
    let conn = 2u64;
    let mut m = SendWindow::new(8, isn, 3);
    let mut u = AckProc::new(2);
    u.connect_all();
    u.m_axis_res_tready.next = true;
    u.m_axis_una_tready.next = true;
    u.rst.next = true;
    tick(&mut u);
    u.rst.next = false;
    let open = ConnOpen {
        conn: conn.to_bits(),
        isn: (isn as u64).to_bits(),
        ..Default::default()
    };
    push(
        &mut u,
        |u, v| {
            u.s_axis_open_tdata.next = open;
            u.s_axis_open_tvalid.next = v;
        },
        |u| u.s_axis_open_tready.val(),
    );
    let mut now: u64 = 1_000;
    let (mut acks, mut newly_total, mut invalid_seen, mut sack_only) = (0, 0, 0, 0);
    for op in 0..ops {
        now += 1 + rng.below(500);
        let outst = m.outstanding();
        let r = rng.below(100);
        if r < 45 && outst < 250 {
            let charged = 64 + rng.below(4097);
            let path = rng.below(64);
            if std::env::var("REL_ACK_TRACE").is_ok() {
                eprintln!("op {op} send {}", m.nxt());
            }
            let psn = m.on_send(
                now,
                SentPkt {
                    len: (charged - 64) as u32,
                    path: path as u8,
                    ..Default::default()
                },
                1_000_000,
            );
            let t = TxSent {
                conn: conn.to_bits(),
                psn: (psn as u64).to_bits(),
                ts: (now as u32 as u64).to_bits(),
                charged: charged.to_bits(),
                path: path.to_bits(),
                ev: 0u64.to_bits(),
                rtx: false,
            };
            push(
                &mut u,
                |u, v| {
                    u.s_axis_sent_tdata.next = t;
                    u.s_axis_sent_tvalid.next = v;
                },
                |u| u.s_axis_sent_tready.val(),
            );
        } else if r < 55 && outst > 0 {
            let psn = m.una().wrapping_add(rng.below(outst as u64) as u32);
            let path = rng.below(64);
            m.on_retransmit(now, psn, path as u8, 0, 1_000_000);
            if std::env::var("REL_ACK_TRACE").is_ok() {
                eprintln!("op {op} rtx {psn}");
            }
            let t = TxSent {
                conn: conn.to_bits(),
                psn: (psn as u64).to_bits(),
                ts: (now as u32 as u64).to_bits(),
                charged: 0u64.to_bits(),
                path: path.to_bits(),
                ev: 0u64.to_bits(),
                rtx: true,
            };
            push(
                &mut u,
                |u, v| {
                    u.s_axis_sent_tdata.next = t;
                    u.s_axis_sent_tvalid.next = v;
                },
                |u| u.s_axis_sent_tready.val(),
            );
        } else {
            // An ACK: CACK from 3 behind snd_una to 2 beyond snd_nxt; SACK block at a base near snd_una.
            let cack = m
                .una()
                .wrapping_sub(3)
                .wrapping_add(rng.below(outst as u64 + 6) as u32);
            let base = m.una().wrapping_sub(8).wrapping_add(rng.below(24) as u32);
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
            let res = m.on_ack(now, cack, base, &bytes, 1_000_000, |_| {});
            if std::env::var("REL_ACK_TRACE").is_ok() {
                let set: Vec<u32> = (0..256u32)
                    .filter(|&i| bits.get_bit(i as usize))
                    .map(|i| base.wrapping_add(i))
                    .collect();
                eprintln!("op {op} ack una0 {una0} cack {cack} base {base} set {set:?} -> {res:?}");
            }
            let meta = PktMeta {
                conn: conn.to_bits(),
                psn: (cack as u64).to_bits(),
                sack_base: (base as u64).to_bits(),
                sack: bits,
                ..Default::default()
            };
            push(
                &mut u,
                |u, v| {
                    u.s_axis_ack_tdata.next = meta;
                    u.s_axis_ack_tvalid.next = v;
                },
                |u| u.s_axis_ack_tready.val(),
            );
            let mut waited = 0;
            while !u.m_axis_res_tvalid.val() {
                tick(&mut u);
                waited += 1;
                assert!(waited < 100, "no ACK result");
            }
            let o = u.m_axis_res_tdata.val();
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
            // MR-REL-22: every advance of snd_una is reported with the result.
            assert_eq!(
                u.m_axis_una_tvalid.val(),
                res.cack_advanced,
                "una update, {ctx}"
            );
            if res.cack_advanced {
                assert_eq!(
                    u.m_axis_una_tdata.val().snd_una.to_u64(),
                    u64::from(m.una())
                );
            }
            tick(&mut u);
            acks += 1;
            newly_total += res.newly_acked;
            invalid_seen += usize::from(res.invalid);
            sack_only += usize::from(!res.cack_advanced && res.newly_acked > 0);
        }
    }
    println!("{acks} ACKs, {newly_total} packets acknowledged, {invalid_seen} invalid, {sack_only} SACK-only");
    assert!(acks > 100 && newly_total > 200 && invalid_seen > 5 && sack_only > 5);
}
