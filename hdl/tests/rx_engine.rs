//! The receive engine (`rx::rx_engine`) with the completion stage (`rx::completion`) attached at its check
//! point, in rust-hdl's simulator: duplicates and PSNs beyond the window are classified (MR-REL-10, MR-REL-11)
//! before the message table is touched, as the reference model's `on_data` does (`RecvWindow::classify` first).
//! A duplicate of an accepted packet must not count its bytes again (no early completion) and must not fail its
//! message when a check stage would fail it; every drop is counted with the model's code.
//!
//! The random test sends interleaved READ_RESP messages of two connections with duplicates (back-to-back copies
//! still in flight, late copies, copies from before the window), reordering and PSNs beyond the window, under
//! random back-pressure, and compares the pre-classification, every packet's final drop code and every
//! completed message with a reference built from the model's `RecvWindow` and the message table's byte count.
//! Seed: `METAROCE_SEED` (printed); `METAROCE_ITERS` sets the packets per connection (default 160).

use metaroce_hdl::records::{CtxWrite, PktMeta};
use metaroce_hdl::rel::records::ConnOpen;
use metaroce_hdl::rx::completion::RxCompletion;
use metaroce_hdl::rx::drop;
use metaroce_hdl::rx::mr_check::RxCheck;
use metaroce_hdl::rx::psn_window::NackReq;
use metaroce_hdl::rx::rx_engine::RxEngine;
use metaroce_proto::transport::bitmap::{Accept, RecvWindow};
use metaroce_proto::wire::{DataFlags, NackCode, Opcode, PacketType};
use metaroce_regmap::context::{conn, qp};
use rust_hdl::prelude::*;
use std::collections::{HashMap, VecDeque};

mod support;
use support::{env, Rng};

const CONN_BITS: u32 = 4;
const PEER_IP: u64 = 0x0a00_0002;
const READ_RESP: u64 = Opcode::ReadResp as u64;

/// The engine with the completion stage at its check point. A packet whose `code` field is non-zero (unused by
/// DATA) is failed on the way by an MR check (NACK ACCESS, `drop` ACCESS) if that check examines it
/// (`drop == 0`, as `rx::mr_check` does).
#[derive(LogicBlock)]
struct Bench {
    clk: Signal<In, Clock>,
    rst: Signal<In, Bit>,
    rxe: RxEngine<512, 64>,
    cpl: RxCompletion<4, 3, 7>,
}

impl Logic for Bench {
    fn update(&mut self) {
        self.rxe.clk.next = self.clk.val();
        self.cpl.clk.next = self.clk.val();
        self.rxe.rst.next = self.rst.val();
        self.cpl.rst.next = self.rst.val();
        let mut m = self.rxe.m_axis_chk_tdata.val();
        let mut chk = RxCheck::default();
        if m.drop.to_u64() == 0
            && m.ptype.to_u64() == PacketType::Data as u64
            && !m.trimmed
            && m.code.any()
        {
            chk.nack = true;
            chk.fail = true;
            chk.code = (NackCode::Access as u64).into();
            chk.aux = m.msn;
            m.drop = (drop::ACCESS as u64).into();
        }
        self.cpl.s_axis_pkt_tdata.next = m;
        self.cpl.s_axis_pkt_tuser.next = chk;
        self.cpl.s_axis_pkt_tvalid.next = self.rxe.m_axis_chk_tvalid.val();
        self.rxe.m_axis_chk_tready.next = self.cpl.s_axis_pkt_tready.val();
        let c = self.cpl.m_axis_pkt_tuser.val();
        self.rxe.s_axis_chk_tdata.next = self.cpl.m_axis_pkt_tdata.val();
        self.rxe.s_axis_chk_tuser.next = NackReq {
            nack: c.nack,
            code: c.code,
            aux: c.aux,
        };
        self.rxe.s_axis_chk_tvalid.next = self.cpl.m_axis_pkt_tvalid.val();
        self.cpl.m_axis_pkt_tready.next = self.rxe.s_axis_chk_tready.val();
    }
}

fn b<const N: usize>(v: u64) -> Bits<N> {
    v.into()
}

/// What left the bench.
#[derive(Default)]
struct Seen {
    /// (psn, drop) of every packet leaving the pre-classification (`m_axis_chk`).
    pre: Vec<(u32, u8)>,
    /// (conn, psn, drop) of every packet leaving to placement.
    place: Vec<(u16, u32, u8)>,
    /// Drop pulses per code.
    drops: HashMap<u8, u32>,
    /// (conn, READ msn, bytes) of every completed READ_RESP message.
    rdone: Vec<(u16, u32, u32)>,
}

struct Tb {
    uut: Box<Bench>,
    seen: Seen,
    rng: Rng,
    /// Probability (of 4) that placement is ready in a cycle.
    ready4: u64,
}

impl Tb {
    fn new(seed: u64, ready4: u64) -> Tb {
        let mut uut = Box::new(Bench {
            clk: Default::default(),
            rst: Default::default(),
            rxe: RxEngine::new(CONN_BITS),
            cpl: RxCompletion::new(),
        });
        uut.connect_all();
        let r = &mut uut.rxe;
        r.cfg_dscp_ctrl.next = b(46);
        r.cfg_ack_ratio.next = b(1);
        r.cfg_no_ctx_retry_us.next = b(10);
        r.m_axis_pay_tready.next = true;
        r.m_axis_fb_tready.next = true;
        r.m_axis_exc_tready.next = true;
        r.m_axis_ctl_tready.next = true;
        r.m_axis_readreq_tready.next = true;
        let c = &mut uut.cpl;
        c.m_axis_pop_tready.next = true;
        c.m_axis_rcpl_tready.next = true;
        c.m_axis_readreq_tready.next = true;
        c.m_axis_rdone_tready.next = true;
        let mut tb = Tb {
            uut,
            seen: Seen::default(),
            rng: Rng(seed),
            ready4,
        };
        tb.uut.rst.next = true;
        tb.edge();
        tb.uut.rst.next = false;
        tb
    }

    /// One clock: records the transfers of the cycle, then the rising edge.
    fn edge(&mut self) {
        let u = &mut self.uut;
        u.rxe.m_axis_place_tready.next = self.rng.below(4) < self.ready4;
        assert!(simulate(&mut **u, 200));
        let r = &u.rxe;
        if r.m_axis_chk_tvalid.val() && r.m_axis_chk_tready.val() {
            let m = r.m_axis_chk_tdata.val();
            self.seen
                .pre
                .push((m.psn.to_u64() as u32, m.drop.to_u64() as u8));
        }
        if r.m_axis_place_tvalid.val() && r.m_axis_place_tready.val() {
            let m = r.m_axis_place_tdata.val();
            self.seen.place.push((
                m.conn.to_u64() as u16,
                m.psn.to_u64() as u32,
                m.drop.to_u64() as u8,
            ));
        }
        if r.drop_valid.val() {
            *self
                .seen
                .drops
                .entry(r.drop_code.val().to_u64() as u8)
                .or_default() += 1;
        }
        let c = &u.cpl;
        if c.m_axis_rdone_tvalid.val() {
            let d = c.m_axis_rdone_tdata.val();
            self.seen.rdone.push((
                d.conn.to_u64() as u16,
                d.msn.to_u64() as u32,
                d.bytes.to_u64() as u32,
            ));
        }
        u.clk.next = Clock { clk: true };
        assert!(simulate(&mut **u, 200));
        u.clk.next = Clock { clk: false };
        assert!(simulate(&mut **u, 200));
    }

    fn ctxw(&mut self, table: u8, index: u64, buf: &[u8; 64]) {
        let mut x = Bits::<512>::default();
        for (k, byte) in buf.iter().enumerate() {
            for i in 0..8 {
                if byte >> i & 1 == 1 {
                    x = x.replace_bit(8 * k + i, true);
                }
            }
        }
        self.uut.rxe.s_axis_ctxw_tdata.next = CtxWrite {
            table: b(table as u64),
            index: b(index),
            data: x,
        };
        self.uut.rxe.s_axis_ctxw_tvalid.next = true;
        self.edge();
        self.uut.rxe.s_axis_ctxw_tvalid.next = false;
    }

    /// A live connection `c` (CID = `c`) with the peer at `PEER_IP` and peer ISN `isn`.
    fn open(&mut self, c: u16, isn: u32) {
        let mut e = [0u8; 64];
        conn::field::CID.set(&mut e, c as u64).unwrap();
        conn::field::PEER_CID.set(&mut e, 0x700 + c as u64).unwrap();
        conn::field::STATE.set(&mut e, 1).unwrap();
        conn::field::FLAGS.set(&mut e, 0x02).unwrap();
        self.ctxw(0, c as u64, &e);
        let mut q = [0u8; 64];
        qp::field::REMOTE_IP
            .set_bytes(&mut q, &[10, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
            .unwrap();
        qp::field::CID.set(&mut q, c as u64).unwrap();
        self.ctxw(1, c as u64, &q);
        let o = ConnOpen {
            conn: b(c as u64),
            peer_isn: b(isn as u64),
            ..Default::default()
        };
        self.uut.rxe.s_axis_open_tdata.next = o;
        self.uut.cpl.s_axis_open_tdata.next = o;
        for k in 0..2 {
            if k == 0 {
                self.uut.rxe.s_axis_open_tvalid.next = true;
            } else {
                self.uut.cpl.s_axis_open_tvalid.next = true;
            }
            let mut n = 0;
            loop {
                assert!(simulate(&mut *self.uut, 200));
                let ready = if k == 0 {
                    self.uut.rxe.s_axis_open_tready.val()
                } else {
                    self.uut.cpl.s_axis_open_tready.val()
                };
                self.edge();
                if ready {
                    break;
                }
                n += 1;
                assert!(n < 50, "open not taken");
            }
            self.uut.rxe.s_axis_open_tvalid.next = false;
            self.uut.cpl.s_axis_open_tvalid.next = false;
        }
        // the completion stage clears the connection's slots
        self.idle(20);
    }

    /// Offers `m` until it is taken.
    fn send(&mut self, m: PktMeta) {
        self.uut.rxe.s_axis_meta_tdata.next = m;
        self.uut.rxe.s_axis_meta_tvalid.next = true;
        let mut n = 0;
        loop {
            assert!(simulate(&mut *self.uut, 200));
            let ready = self.uut.rxe.s_axis_meta_tready.val();
            self.edge();
            if ready {
                break;
            }
            n += 1;
            assert!(n < 2000, "packet not taken");
        }
        self.uut.rxe.s_axis_meta_tvalid.next = false;
    }

    fn idle(&mut self, n: usize) {
        for _ in 0..n {
            self.edge();
        }
    }
}

/// A DATA packet of a READ_RESP message (`key` = the READ's MSN).
#[derive(Clone, Copy, Debug)]
struct Pkt {
    conn: u16,
    psn: u32,
    msn: u32,
    key: u32,
    msg_len: u32,
    plen: u16,
    last: bool,
    fail: bool,
}

fn meta(p: &Pkt) -> PktMeta {
    PktMeta {
        ptype: b(PacketType::Data as u64),
        dcid: b(p.conn as u64),
        peer_ip: b(PEER_IP),
        psn: b(p.psn as u64),
        ts: b(5),
        ev: b(0x123),
        opcode: b(READ_RESP),
        dflags: b(if p.last { DataFlags::LAST.0 as u64 } else { 0 }),
        msn: b(p.msn as u64),
        key: b(p.key as u64),
        msg_len: b(p.msg_len as u64),
        payload_len: b(p.plen as u64),
        code: b(p.fail as u64),
        ..Default::default()
    }
}

/// Reference: the model's window (`RecvWindow`) and message byte count per connection.
struct Reference {
    win: HashMap<u16, RecvWindow>,
    base: HashMap<u16, u32>,
    /// (conn, msn) -> (msg_len, bytes accepted, key)
    msgs: HashMap<(u16, u32), (u32, u32, u32)>,
    /// Expected drop code of every packet, in order.
    codes: Vec<(u16, u32, u8)>,
    rdone: Vec<(u16, u32, u32)>,
}

impl Reference {
    fn new(conns: &[(u16, u32)]) -> Reference {
        Reference {
            win: conns
                .iter()
                .map(|&(c, isn)| (c, RecvWindow::new(8, isn)))
                .collect(),
            base: conns.iter().map(|&(c, _)| (c, 0)).collect(),
            msgs: HashMap::new(),
            codes: Vec::new(),
            rdone: Vec::new(),
        }
    }

    /// The model's `on_data` order: classify, then the message table (packets here never fail a check unless
    /// `fail`, which the tests give only to duplicates).
    fn packet(&mut self, p: &Pkt) {
        let w = self.win.get_mut(&p.conn).unwrap();
        let code = match w.classify(p.psn) {
            Accept::Duplicate => drop::DUPLICATE,
            Accept::OutOfWindow => drop::OUT_OF_WINDOW,
            Accept::InOrder | Accept::OutOfOrder => {
                assert!(!p.fail, "the tests fail only duplicates");
                let base = self.base[&p.conn];
                if p.msn.wrapping_sub(base) >= 8 {
                    drop::INVALID
                } else {
                    w.accept(p.psn);
                    let e = self
                        .msgs
                        .entry((p.conn, p.msn))
                        .or_insert((p.msg_len, 0, p.key));
                    e.1 += p.plen as u32;
                    // deliver in MSN order
                    let mut base = base;
                    while let Some(&(len, got, key)) = self.msgs.get(&(p.conn, base)) {
                        if got < len {
                            break;
                        }
                        self.rdone.push((p.conn, key, got));
                        self.msgs.remove(&(p.conn, base));
                        base = base.wrapping_add(1);
                    }
                    self.base.insert(p.conn, base);
                    drop::NONE
                }
            }
        };
        self.codes.push((p.conn, p.psn, code));
    }
}

fn count(codes: &[(u16, u32, u8)], code: u8) -> u32 {
    codes.iter().filter(|c| c.2 == code).count() as u32
}

/// MR-REL-10 / MR-REL-11 before the message table: a message of three packets whose first packet arrives again
/// (back to back, after the second, and once more failed by a check) before the message completes; a PSN beyond
/// the window. The message completes once, with its real byte count, after its last packet only.
#[test]
fn mr_rel_10_duplicate_before_completion_does_not_complete_early() {
    let mut tb = Tb::new(1, 4);
    tb.open(1, 100);
    let mut refm = Reference::new(&[(1, 100)]);
    let pk = |psn: u32, plen: u16, last: bool, fail: bool| Pkt {
        conn: 1,
        psn,
        msn: 0,
        key: 7,
        msg_len: 3000,
        plen,
        last,
        fail,
    };
    let p0 = pk(100, 1000, false, false);
    let p1 = pk(101, 1000, false, false);
    let p2 = pk(102, 1000, true, false);
    let dup_failed = pk(100, 1000, false, true);
    let oow = pk(100 + 300, 1000, false, false);
    for p in [p0, p0, p1, dup_failed, oow, p1] {
        tb.send(meta(&p));
        refm.packet(&p);
    }
    tb.idle(200);
    assert_eq!(tb.seen.place.len(), 6, "every packet leaves");
    assert!(
        tb.seen.rdone.is_empty(),
        "the message completed before its last packet: {:?}",
        tb.seen.rdone
    );
    tb.send(meta(&p2));
    refm.packet(&p2);
    tb.idle(200);
    assert_eq!(refm.rdone, vec![(1, 7, 3000)]);
    assert_eq!(tb.seen.rdone, refm.rdone, "one completion with 3000 bytes");
    let got: Vec<(u16, u32, u8)> = tb.seen.place.clone();
    assert_eq!(got, refm.codes, "drop codes (conn, psn, code)");
    assert_eq!(
        got.iter().map(|c| c.2).collect::<Vec<_>>(),
        vec![
            0,
            drop::DUPLICATE,
            0,
            drop::DUPLICATE,
            drop::OUT_OF_WINDOW,
            drop::DUPLICATE,
            0
        ]
    );
    assert_eq!(tb.seen.drops.get(&drop::DUPLICATE), Some(&3));
    assert_eq!(tb.seen.drops.get(&drop::OUT_OF_WINDOW), Some(&1));
    assert_eq!(
        tb.seen.drops.get(&drop::ACCESS),
        None,
        "the failed copy is a duplicate"
    );
    assert_eq!(tb.seen.drops.values().sum::<u32>(), 4);
    // the pre-classification already marked them, before the message table
    let pre: Vec<u8> = tb.seen.pre.iter().map(|p| p.1).collect();
    assert_eq!(
        pre,
        vec![
            0,
            drop::DUPLICATE,
            0,
            drop::DUPLICATE,
            drop::OUT_OF_WINDOW,
            drop::DUPLICATE,
            0
        ]
    );
}

/// MR-REL-10 / MR-REL-11 with a packet in flight: PSN `rcv_nxt + 256` arrives right behind PSN `rcv_nxt`; the
/// word read says beyond the window, but once the first is accepted it is inside (the model accepts it).
#[test]
fn mr_rel_11_window_edge_behind_a_packet_in_flight() {
    let mut tb = Tb::new(2, 4);
    tb.open(2, 100);
    let mut refm = Reference::new(&[(2, 100)]);
    let pk = |psn: u32, msn: u32| Pkt {
        conn: 2,
        psn,
        msn,
        key: 50 + msn,
        msg_len: 10,
        plen: 10,
        last: true,
        fail: false,
    };
    // ... and half the PSN space behind: PSN rcv_nxt + 2^31 reads as a duplicate, but after the packet in
    // flight (rcv_nxt) it is beyond the window.
    let half = 101 + (1u32 << 31);
    for p in [pk(100, 0), pk(356, 1), pk(357, 1), pk(101, 2), pk(half, 3)] {
        tb.send(meta(&p));
        refm.packet(&p);
    }
    tb.idle(200);
    assert_eq!(
        refm.codes,
        vec![
            (2, 100, 0),
            (2, 356, 0),
            (2, 357, drop::OUT_OF_WINDOW),
            (2, 101, 0),
            (2, half, drop::OUT_OF_WINDOW)
        ]
    );
    assert_eq!(tb.seen.place, refm.codes);
    // the pre-classification's labels are the window's too
    let pre: Vec<(u32, u8)> = refm.codes.iter().map(|c| (c.1, c.2)).collect();
    assert_eq!(tb.seen.pre, pre);
    assert_eq!(tb.seen.rdone, vec![(2, 50, 10), (2, 51, 10), (2, 52, 10)]);
    assert_eq!(tb.seen.rdone, refm.rdone);
}

/// Random interleaved messages of two connections with duplicates (in flight and late), reordering, PSNs
/// beyond and before the window, duplicates failed by a check, and a stalled output: every pre-classification,
/// drop code, drop count and completion as the model's.
#[test]
fn mr_rel_9_to_13_random_duplicates_against_model() {
    let seed = env("METAROCE_SEED", 0x5eed_d0b1e);
    println!("METAROCE_SEED={seed}");
    let per_conn = env("METAROCE_ITERS", 160) as usize;
    let mut rng = Rng(seed);
    let conns = [(3u16, 0xffff_ff80u32), (9u16, 5000u32)];
    let mut tb = Tb::new(seed ^ 0x55, 3);
    for &(c, isn) in &conns {
        tb.open(c, isn);
    }
    let mut refm = Reference::new(&conns);
    // Each connection's packets in PSN order: READ_RESP messages of 1..=3 packets.
    let mut streams: Vec<VecDeque<Pkt>> = Vec::new();
    for &(c, isn) in &conns {
        let mut v = VecDeque::new();
        let (mut psn, mut msn) = (isn, 0u32);
        while v.len() < per_conn {
            let k = 1 + rng.below(3) as usize;
            let plens: Vec<u16> = (0..k).map(|_| 1 + rng.below(300) as u16).collect();
            let len: u32 = plens.iter().map(|&l| l as u32).sum();
            for (i, &plen) in plens.iter().enumerate() {
                v.push_back(Pkt {
                    conn: c,
                    psn,
                    msn,
                    key: 1000 + msn,
                    msg_len: len,
                    plen,
                    last: i + 1 == k,
                    fail: false,
                });
                psn = psn.wrapping_add(1);
            }
            msn += 1;
        }
        streams.push(v);
    }
    let mut sent: Vec<Vec<Pkt>> = vec![Vec::new(); conns.len()];
    let mut total = 0;
    while streams.iter().any(|s| !s.is_empty()) {
        let i = rng.below(conns.len() as u64) as usize;
        let r = rng.below(100);
        let p = if r < 20 && !sent[i].is_empty() {
            // a copy of one of the last few sent (back to back when the last), sometimes failed by a check
            let n = sent[i].len();
            let mut p = sent[i][n - 1 - rng.below(n.min(4) as u64) as usize];
            p.fail = rng.below(3) == 0;
            p
        } else if r < 28 && !sent[i].is_empty() {
            // beyond the window, long before it, or at the edges that the packets in flight may move: the
            // window's end and half the PSN space behind (all relative to the model's CACK)
            let mut p = sent[i][sent[i].len() - 1];
            let cack = refm.win[&p.conn].expected();
            p.psn = match rng.below(4) {
                0 => p.psn.wrapping_add(256 + rng.below(2000) as u32),
                1 => p.psn.wrapping_sub(300 + rng.below(2000) as u32),
                2 => cack.wrapping_add(255 + rng.below(4) as u32),
                _ => cack.wrapping_add((1 << 31) + rng.below(3) as u32),
            };
            p
        } else if let Some(mut p) = streams[i].pop_front() {
            // reorder: sometimes the next one first
            if rng.below(5) == 0 {
                if let Some(q) = streams[i].pop_front() {
                    streams[i].push_front(p);
                    p = q;
                }
            }
            sent[i].push(p);
            p
        } else {
            continue;
        };
        // a failed copy is only generated for a duplicate (the model's check outcome is then irrelevant)
        let mut p = p;
        if p.fail && refm.win[&p.conn].classify(p.psn) != Accept::Duplicate {
            p.fail = false;
        }
        refm.packet(&p);
        tb.send(meta(&p));
        total += 1;
        if rng.below(8) == 0 {
            tb.idle(rng.below(30) as usize);
        }
    }
    tb.idle(3000);
    assert_eq!(tb.seen.place.len(), total, "every packet leaves");
    if let Some(k) = (0..total).find(|&k| tb.seen.place[k] != refm.codes[k]) {
        panic!(
            "packet {k}: (conn, psn, drop) {:?}, the model {:?}",
            tb.seen.place[k], refm.codes[k]
        );
    }
    let pre_exp: Vec<(u32, u8)> = refm
        .codes
        .iter()
        .map(|&(_, psn, c)| {
            let pc = if c == drop::DUPLICATE || c == drop::OUT_OF_WINDOW {
                c
            } else {
                0
            };
            (psn, pc)
        })
        .collect();
    assert_eq!(tb.seen.pre, pre_exp, "pre-classification");
    for code in [
        drop::DUPLICATE,
        drop::OUT_OF_WINDOW,
        drop::INVALID,
        drop::ACCESS,
    ] {
        assert_eq!(
            tb.seen.drops.get(&code).copied().unwrap_or(0),
            count(&refm.codes, code),
            "drop count of code {code}"
        );
    }
    assert_eq!(tb.seen.rdone, refm.rdone, "completed messages");
    assert!(
        count(&refm.codes, drop::DUPLICATE) > 10 && count(&refm.codes, drop::OUT_OF_WINDOW) > 2
    );
    assert!(refm.rdone.len() > 40);
}
