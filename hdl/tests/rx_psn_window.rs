//! The receive window (`rx::psn_window`, MR-REL-9..13) against the reference model's
//! `metaroce_proto::transport::bitmap::RecvWindow` on random PSN sequences: in order, out of order, duplicates,
//! beyond the window, across the 2^32 wrap, with upstream NACK verdicts, several connections interleaved
//! (back-to-back packets of one connection exercise the hazard rule) and a randomly stalled output.
//! Seed: `RX_WINDOW_SEED` (printed).

use metaroce_hdl::records::PktMeta;
use metaroce_hdl::rel::records::ConnOpen;
use metaroce_hdl::rx::drop;
use metaroce_hdl::rx::psn_window::{NackReq, PsnWindow, WinInfo};
use metaroce_proto::transport::bitmap::{Accept, RecvWindow};
use rust_hdl::prelude::*;

struct Rng(u64);

impl Rng {
    fn from_env(var: &str) -> Rng {
        let seed = std::env::var(var)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0x77_1d0e_u64);
        println!("{var}={seed}");
        Rng(seed)
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn edge(uut: &mut PsnWindow) {
    // settle the inputs set since the last edge before the rising edge samples them
    assert!(simulate(uut, 100));
    uut.clk.next = Clock { clk: true };
    assert!(simulate(uut, 100));
    uut.clk.next = Clock { clk: false };
    assert!(simulate(uut, 100));
}

#[derive(Clone, Copy)]
struct In {
    conn: u16,
    psn: u32,
    nack: bool,
    ctrl: bool,
}

fn meta(i: &In) -> PktMeta {
    PktMeta {
        ptype: (if i.ctrl { 4u64 } else { 1 }).into(),
        psn: (i.psn as u64).into(),
        conn: (i.conn as u64).into(),
        ..Default::default()
    }
}

/// Connections driven.
const CONNS: usize = 3;

/// Bitmap bit of PSN `p` in the model: set iff `p` in `(cack, cack + 256)` was received.
fn model_bit(w: &RecvWindow, p: u32) -> bool {
    w.classify(p) == Accept::Duplicate && p.wrapping_sub(w.expected()) < 256
}

/// The sender side of each connection: a moving frontier, with reordering, duplicates and far PSNs.
fn gen(rng: &mut Rng, models: &[RecvWindow], next_new: &mut [u32]) -> In {
    let c = if rng.below(4) == 0 {
        rng.below(CONNS as u64) as usize
    } else {
        0
    };
    let exp = models[c].expected();
    let r = rng.below(100);
    let psn = if r < 45 {
        let p = next_new[c];
        next_new[c] = p.wrapping_add(1);
        p
    } else if r < 70 {
        // a retransmission / reorder near rcv_nxt
        exp.wrapping_add(rng.below(40) as u32)
    } else if r < 80 {
        exp.wrapping_sub(rng.below(300) as u32) // old duplicates
    } else if r < 90 {
        exp.wrapping_add(240 + rng.below(40) as u32) // around the window's edge
    } else if r < 95 {
        rng.next() as u32 // anywhere
    } else {
        exp
    };
    if next_new[c].wrapping_sub(exp) > 200 {
        next_new[c] = exp;
    }
    In {
        conn: c as u16 + 5,
        psn,
        nack: rng.below(10) == 0,
        ctrl: rng.below(25) == 0,
    }
}

#[test]
fn mr_rel_9_to_13_window_matches_recv_window_model() {
    let mut rng = Rng::from_env("RX_WINDOW_SEED");
    let mut uut = PsnWindow::new(4);
    uut.connect_all();
    uut.rst.next = true;
    edge(&mut uut);
    uut.rst.next = false;
    // Open the connections with ISNs near the 2^32 wrap.
    let isns: Vec<u32> = (0..CONNS)
        .map(|_| u32::MAX - 300 + rng.below(200) as u32)
        .collect();
    let mut models: Vec<RecvWindow> = isns.iter().map(|&i| RecvWindow::new(8, i)).collect();
    for (c, &isn) in isns.iter().enumerate() {
        uut.s_axis_open_tdata.next = ConnOpen {
            conn: (c as u64 + 5).into(),
            peer_isn: (isn as u64).into(),
            ..Default::default()
        };
        uut.s_axis_open_tvalid.next = true;
        assert!(simulate(&mut uut, 100));
        assert!(uut.s_axis_open_tready.val());
        edge(&mut uut);
    }
    uut.s_axis_open_tvalid.next = false;

    let mut next_new: Vec<u32> = isns.clone();

    let total = 4000;
    let mut sent: std::collections::VecDeque<In> = Default::default();
    let mut pending: Option<In> = None;
    let mut n_in = 0;
    let mut n_out = 0;
    let (mut acc, mut dups, mut oows, mut nacked, mut stalls_seen) = (0, 0, 0, 0, 0);
    let mut cycles = 0;
    while n_out < total {
        cycles += 1;
        assert!(cycles < 40 * total, "pipeline stuck");
        if pending.is_none() && n_in < total && rng.below(8) != 0 {
            pending = Some(gen(&mut rng, &models, &mut next_new));
        }
        if let Some(i) = &pending {
            uut.s_axis_pkt_tdata.next = meta(i);
            uut.s_axis_pkt_tuser.next = NackReq {
                nack: i.nack,
                code: 4u64.into(),
                aux: 9u64.into(),
            };
            uut.s_axis_pkt_tvalid.next = true;
        } else {
            uut.s_axis_pkt_tvalid.next = false;
        }
        uut.m_axis_pkt_tready.next = rng.below(5) != 0;
        assert!(simulate(&mut uut, 100));
        let in_fire = uut.s_axis_pkt_tvalid.val() && uut.s_axis_pkt_tready.val();
        if uut.s_axis_pkt_tvalid.val() && !uut.s_axis_pkt_tready.val() {
            stalls_seen += 1;
        }
        if uut.m_axis_pkt_tvalid.val() && uut.m_axis_pkt_tready.val() {
            let i = sent.pop_front().expect("output without input");
            let m: PktMeta = uut.m_axis_pkt_tdata.val();
            let w: WinInfo = uut.m_axis_pkt_tuser.val();
            let model = &mut models[i.conn as usize - 5];
            let ctx = format!(
                "packet {n_out}: conn {} psn {:#x} nack {} ctrl {}",
                i.conn, i.psn, i.nack, i.ctrl
            );
            assert_eq!(m.psn.to_u128() as u32, i.psn, "{ctx}");
            if i.ctrl {
                assert!(!w.cand && !w.accepted && !w.dup && !w.oow, "{ctx}");
                assert_eq!(m.drop.to_u128(), 0, "{ctx}");
            } else {
                let cls = model.classify(i.psn);
                let a = match cls {
                    Accept::InOrder | Accept::OutOfOrder if !i.nack => model.accept(i.psn),
                    other => other,
                };
                assert!(w.cand, "{ctx}");
                match a {
                    Accept::Duplicate => {
                        dups += 1;
                        assert!(w.dup && !w.accepted && !w.nack, "{ctx}");
                        assert_eq!(m.drop.to_u128() as u8, drop::DUPLICATE, "{ctx}");
                    }
                    Accept::OutOfWindow => {
                        oows += 1;
                        assert!(w.oow && !w.accepted && !w.nack, "{ctx}");
                        assert_eq!(m.drop.to_u128() as u8, drop::OUT_OF_WINDOW, "{ctx}");
                    }
                    Accept::InOrder | Accept::OutOfOrder if i.nack => {
                        nacked += 1;
                        assert!(!w.accepted && !w.dup && !w.oow && w.nack, "{ctx}");
                        assert_eq!(m.drop.to_u128(), 0, "{ctx}");
                    }
                    Accept::InOrder | Accept::OutOfOrder => {
                        acc += 1;
                        assert!(w.accepted && !w.dup && !w.oow, "{ctx}");
                        assert_eq!(w.in_order, a == Accept::InOrder, "{ctx}");
                        assert_eq!(m.drop.to_u128(), 0, "{ctx}");
                    }
                }
            }
            let cack = model.expected();
            assert_eq!(w.cack.to_u128() as u32, cack, "{ctx}");
            for k in 0..256u32 {
                let p = cack.wrapping_add(k);
                assert_eq!(
                    w.bitmap.get_bit((p % 256) as usize),
                    model_bit(model, p),
                    "{ctx}: bitmap bit of psn {p:#x}"
                );
            }
            n_out += 1;
        }
        edge(&mut uut);
        if in_fire {
            sent.push_back(pending.take().unwrap());
            n_in += 1;
        }
    }
    println!("accepted {acc} duplicate {dups} beyond {oows} nacked {nacked} hazard/stall cycles {stalls_seen} cycles {cycles}");
    assert!(acc > 500 && dups > 300 && oows > 100 && nacked > 50 && stalls_seen > 100);
}
