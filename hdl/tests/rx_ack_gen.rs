//! The acknowledgement generator (`rx::ack_gen`, MR-REL-14..18, MR-REL-48, MR-WIRE-33..35) against the
//! reference model's ACK building: window decisions from `metaroce_proto::transport::bitmap::RecvWindow`, the
//! SACK block from `RecvWindow::sack_block` at `bitmap::sack_base`, the ACK-now rules and CE / DUP accounting of
//! `transport::metaroce::recv` (ack ratio 1 and 3). Seed: `RX_ACK_SEED` (printed).

use metaroce_hdl::records::PktMeta;
use metaroce_hdl::rel::records::ConnOpen;
use metaroce_hdl::rx::ack_gen::AckGen;
use metaroce_hdl::rx::psn_window::WinInfo;
use metaroce_proto::transport::bitmap::{sack_base, Accept, RecvWindow};
use rust_hdl::prelude::*;

struct Rng(u64);

impl Rng {
    fn from_env(var: &str) -> Rng {
        let seed = std::env::var(var)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0xac4_u64);
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

fn run(ratio: u8, rng: &mut Rng, total: usize) -> (usize, usize) {
    const CONN: u64 = 3;
    const OWN: u32 = 0x30003;
    const PEER: u32 = 0x0a0b0c;
    let isn = u32::MAX - 100;
    let mut uut = AckGen::new(4);
    uut.connect_all();
    uut.cfg_ack_ratio.next = b(ratio as u64);
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
    // The model's ACK state (recv.rs: unacked_pkts, ce_count, ack_ece, ack_dup).
    let (mut unacked, mut ce_count, mut ece, mut dup) = (0u32, 0u16, false, false);
    let mut expect: std::collections::VecDeque<Ctl> = Default::default();
    let (mut acks, mut nacks) = (0, 0);
    let mut n = 0;
    let mut cycles = 0;
    while n < total || !expect.is_empty() {
        cycles += 1;
        assert!(
            cycles < 20 * total + 100,
            "stuck; {} expected left",
            expect.len()
        );
        uut.m_axis_ctl_tready.next = rng.below(4) != 0;
        let mut offer = None;
        if n < total && rng.below(3) != 0 {
            let kind = rng.below(100);
            let exp = win.expected();
            let psn = match rng.below(10) {
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
            let ce = rng.below(6) == 0;
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
                        let last = rng.below(8) == 0;
                        if last {
                            m.dflags = b(0x40);
                        }
                        if last || ce || !w.in_order || unacked >= ratio as u32 {
                            expect.push_back(ack(&win, psn, flags(ece, dup), ce_count));
                            (unacked, ce_count, ece, dup) = (0, 0, false, false);
                        }
                    }
                }
                w.cack = b(win.expected() as u64);
            }
            // The circular window after the packet (bit p mod 256 for p in (cack, cack + 256)).
            let cack = win.expected();
            let mut bm = Bits::<256>::default();
            for k in 1..256u32 {
                let p = cack.wrapping_add(k);
                if win.classify(p) == Accept::Duplicate {
                    bm = bm.replace_bit((p % 256) as usize, true);
                }
            }
            w.bitmap = bm;
            offer = Some((m, w));
        }
        // Offer the packet until it is taken.
        if let Some((m, w)) = offer {
            uut.s_axis_pkt_tdata.next = m;
            uut.s_axis_pkt_tuser.next = w;
            uut.s_axis_pkt_tvalid.next = true;
            loop {
                assert!(simulate(&mut uut, 100));
                let fire = uut.s_axis_pkt_tready.val();
                check_out(&mut uut, &mut expect, &mut acks, &mut nacks);
                edge(&mut uut);
                if fire {
                    break;
                }
                uut.m_axis_ctl_tready.next = rng.below(4) != 0;
            }
            uut.s_axis_pkt_tvalid.next = false;
            n += 1;
        } else {
            uut.s_axis_pkt_tvalid.next = false;
            assert!(simulate(&mut uut, 100));
            check_out(&mut uut, &mut expect, &mut acks, &mut nacks);
            edge(&mut uut);
        }
    }
    (acks, nacks)
}

fn check_out(
    uut: &mut AckGen,
    expect: &mut std::collections::VecDeque<Ctl>,
    acks: &mut usize,
    nacks: &mut usize,
) {
    if uut.m_axis_ctl_tvalid.val() && uut.m_axis_ctl_tready.val() {
        let g = got(&uut.m_axis_ctl_tdata.val());
        let e = expect.pop_front().expect("unexpected control packet");
        assert_eq!(g, e);
        if g.ptype == 2 {
            *acks += 1;
        } else {
            *nacks += 1;
        }
    }
}

#[test]
fn mr_rel_14_18_acks_match_model_ratio_1() {
    let mut rng = Rng::from_env("RX_ACK_SEED");
    let (acks, nacks) = run(1, &mut rng, 2500);
    println!("acks {acks} nacks {nacks}");
    assert!(acks > 1000 && nacks > 150);
}

#[test]
fn mr_rel_14_acks_match_model_ratio_3() {
    let mut rng = Rng::from_env("RX_ACK_SEED");
    let (acks, nacks) = run(3, &mut rng, 1500);
    println!("acks {acks} nacks {nacks}");
    assert!(acks > 300 && nacks > 100);
}
