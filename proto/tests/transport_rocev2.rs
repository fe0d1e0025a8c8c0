//! The RoCEv2 baseline on the same Endpoint API: two endpoints handing frames to each other directly
//! (MR-ROCE-*: go-back-N, ACK coalescing, READ, CNP/DCQCN).

use metaroce_proto::transport::*;
use metaroce_proto::wire::roce::syndrome;
use metaroce_proto::wire::roce_packet::parse_roce_frame;
use metaroce_proto::wire::{Ipv4Packet, RoceOpcode};

mod transport_common;
use transport_common::write_wr as wr;
use transport_common::*;

/// A pair of RoCEv2 endpoints with congestion control `cc`.
fn rocev2_pair(cc: CcKind) -> Pair {
    let mk = |mac, ip| EndpointConfig {
        cc,
        ..EndpointConfig::rocev2(mac, ip)
    };
    Pair::with(mk(MAC_A, IP_A), mk(MAC_B, IP_B))
}

/// This file's own fill pattern (the MetaRoCE files use another multiplier).
fn pattern(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(13).wrapping_add(seed))
        .collect()
}

fn opcode(fr: &[u8]) -> (RoceOpcode, Option<u8>, u16) {
    let p = parse_roce_frame(fr, true).expect("parse");
    (p.r.bth.opcode, p.r.aeth.map(|a| a.syndrome), p.l.udp_src)
}

fn setup(p: &mut Pair, data: &[u8]) -> (u32, u32) {
    setup_write(p, data, Access::REMOTE_WRITE | Access::REMOTE_READ)
}

#[test]
fn mr_roce_write_send_read_and_fixed_source_port() {
    let mut p = rocev2_pair(CcKind::None);
    let data = pattern(20_000, 1);
    let (lk, rk) = setup(&mut p, &data);
    let kb =
        p.b.register_mr(0x900_0000, 1 << 16, Access::LOCAL_WRITE)
            .unwrap();
    p.b.post_recv(
        p.qb,
        RecvWr {
            wr_id: 77,
            sge: Sge {
                addr: 0x900_0000,
                len: 1 << 16,
                lkey: kb.lkey,
            },
        },
    )
    .unwrap();
    let now = p.now;
    p.a.post_send(now, p.qa, wr(1, SendOp::Write, lk, 20_000, rk))
        .unwrap();
    p.a.post_send(now, p.qa, wr(2, SendOp::SendImm(5), lk, 9000, 0))
        .unwrap();
    let mut ports = std::collections::BTreeSet::new();
    p.run_for(1_000_000, &mut |d, _, fr| {
        if d == Dir::AtoB {
            ports.insert(opcode(fr).2);
        }
        Act::Pass
    });
    assert_eq!(ports.len(), 1, "one fixed UDP source port per QP");
    let mut got = vec![0u8; 20_000];
    p.b.memory().read(DST, &mut got);
    assert_eq!(got, data);
    let cb = comps(&p.ev_b);
    assert_eq!(
        cb.iter()
            .map(|c| (c.wr_id, c.byte_len, c.imm))
            .collect::<Vec<_>>(),
        [(77, 9000, Some(5))]
    );
    // READ back into another local buffer.
    p.b.memory_mut().write(DST + 0x4_0000, &pattern(10_000, 9));
    let mut rd = wr(3, SendOp::Read, lk, 10_000, rk);
    rd.local.addr = SRC + 0x8_0000;
    rd.remote_addr = DST + 0x4_0000;
    let now = p.now;
    p.a.post_send(now, p.qa, rd).unwrap();
    p.run_for(1_000_000, &mut |_, _, _| Act::Pass);
    let mut back = vec![0u8; 10_000];
    p.a.memory().read(SRC + 0x8_0000, &mut back);
    assert_eq!(back, pattern(10_000, 9));
    let ca = comps(&p.ev_a);
    assert_eq!(
        ca.iter().map(|c| (c.wr_id, c.status)).collect::<Vec<_>>(),
        [
            (1, WcStatus::Success),
            (2, WcStatus::Success),
            (3, WcStatus::Success)
        ]
    );
}

#[test]
fn mr_roce_go_back_n_under_a_dropped_packet() {
    let mut p = rocev2_pair(CcKind::None);
    let len = 16 * 4096;
    let data = pattern(len, 3);
    let (lk, rk) = setup(&mut p, &data);
    let now = p.now;
    p.a.post_send(now, p.qa, wr(1, SendOp::Write, lk, len as u32, rk))
        .unwrap();
    let mut naks = 0;
    let mut dropped = false;
    p.run_for(5_000_000, &mut |d, n, fr| {
        if d == Dir::AtoB && n == 3 && !dropped {
            dropped = true;
            return Act::Drop;
        }
        if d == Dir::BtoA && opcode(fr).1 == Some(syndrome::NAK_PSN_SEQ_ERR) {
            naks += 1;
        }
        Act::Pass
    });
    assert!(dropped);
    assert_eq!(naks, 1, "the responder NAKs the gap once");
    let mut got = vec![0u8; len];
    p.b.memory().read(DST, &mut got);
    assert_eq!(got, data);
    // Go-back-N: the 12 packets after the lost one were re-sent too.
    assert_eq!(p.a.stats().retransmits.go_back_n, 13);
    assert_eq!(p.a.stats().tx_data_packets, 16 + 13);
    assert_eq!(comps(&p.ev_a)[0].status, WcStatus::Success);
    assert!(p.b.stats().ooo_arrivals >= 12);
}

#[test]
fn mr_roce_access_error_and_flush() {
    let mut p = rocev2_pair(CcKind::None);
    let (lk, rk) = setup(&mut p, &[1; 100]);
    let now = p.now;
    p.a.post_send(now, p.qa, wr(1, SendOp::Write, lk, 100, rk ^ 0x300))
        .unwrap();
    p.a.post_send(now, p.qa, wr(2, SendOp::Write, lk, 100, rk))
        .unwrap();
    p.run_for(1_000_000, &mut |_, _, _| Act::Pass);
    let ca = comps(&p.ev_a);
    assert_eq!(
        ca.iter().map(|c| (c.wr_id, c.status)).collect::<Vec<_>>(),
        [(1, WcStatus::RemoteAccess), (2, WcStatus::Flushed)]
    );
    assert_eq!(p.b.memory().write_count(), 0);
}

#[test]
fn mr_cc_cnp_on_ce_at_most_once_per_interval() {
    let mut p = rocev2_pair(CcKind::Dcqcn);
    let len = 32 * 4096;
    let (lk, rk) = setup(&mut p, &pattern(len, 4));
    let now = p.now;
    p.a.post_send(now, p.qa, wr(1, SendOp::Write, lk, len as u32, rk))
        .unwrap();
    let mut cnps = 0;
    p.run_for(5_000_000, &mut |d, _, fr| {
        if d == Dir::AtoB {
            // Mark every data packet CE.
            let mut v = fr.to_vec();
            let mut ip = Ipv4Packet::new_unchecked(&mut v[14..34]);
            ip.set_ecn(0b11);
            ip.fill_checksum();
            return Act::Replace(v);
        }
        if opcode(fr).0 == RoceOpcode::Cnp {
            cnps += 1;
        }
        Act::Pass
    });
    assert_eq!(comps(&p.ev_a)[0].status, WcStatus::Success);
    assert!(cnps >= 1);
    assert_eq!(p.a.stats().cnps_received, cnps);
    // The packets all arrive within far less than 50 µs of each other at line rate; DCQCN then slows the
    // sender, but CNPs stay at most one per 50 µs.
    let span = p.now - 1_000_000;
    assert!(cnps <= span / 50_000 + 1, "cnps={cnps} span={span}");
}

#[test]
fn mr_roce_read_response_lost_is_re_requested() {
    let mut p = rocev2_pair(CcKind::None);
    let (lk, rk) = setup(&mut p, &[]);
    let data = pattern(5 * 4096, 7);
    p.b.memory_mut().write(DST, &data);
    let now = p.now;
    p.a.post_send(now, p.qa, wr(1, SendOp::Read, lk, data.len() as u32, rk))
        .unwrap();
    let mut dropped = false;
    p.run_for(10_000_000, &mut |d, _, fr| {
        if d == Dir::BtoA && opcode(fr).0 == RoceOpcode::ReadResponseMiddle && !dropped {
            dropped = true;
            return Act::Drop;
        }
        Act::Pass
    });
    assert!(dropped);
    let mut back = vec![0u8; data.len()];
    p.a.memory().read(SRC, &mut back);
    assert_eq!(back, data);
    assert_eq!(
        comps(&p.ev_a)
            .iter()
            .map(|c| (c.wr_id, c.status))
            .collect::<Vec<_>>(),
        [(1, WcStatus::Success)]
    );
}

#[test]
fn mr_roce_rnr_then_recv_posted_and_retry_exhaustion() {
    let mut p = rocev2_pair(CcKind::None);
    let data = pattern(6000, 2);
    let (lk, _) = setup(&mut p, &data);
    let now = p.now;
    p.a.post_send(now, p.qa, wr(1, SendOp::Send, lk, 6000, 0))
        .unwrap();
    p.run_for(30_000, &mut |_, _, _| Act::Pass);
    assert!(p.b.stats().nacks_sent[3] >= 1, "RNR NAK sent");
    let kb =
        p.b.register_mr(0x900_0000, 8192, Access::LOCAL_WRITE)
            .unwrap();
    p.b.post_recv(
        p.qb,
        RecvWr {
            wr_id: 9,
            sge: Sge {
                addr: 0x900_0000,
                len: 8192,
                lkey: kb.lkey,
            },
        },
    )
    .unwrap();
    p.run_for(5_000_000, &mut |_, _, _| Act::Pass);
    assert_eq!(comps(&p.ev_a)[0].status, WcStatus::Success);
    assert_eq!(
        comps(&p.ev_b)
            .iter()
            .map(|c| (c.wr_id, c.byte_len))
            .collect::<Vec<_>>(),
        [(9, 6000)]
    );
    let mut got = vec![0u8; 6000];
    p.b.memory().read(0x900_0000, &mut got);
    assert_eq!(got, data);
    // Now the peer vanishes: retry exhaustion.
    let now = p.now;
    p.a.post_send(now, p.qa, wr(2, SendOp::Write, lk, 100, 0))
        .unwrap();
    p.a.post_send(now, p.qa, wr(3, SendOp::Write, lk, 100, 0))
        .unwrap();
    p.run_for(1_000_000_000, &mut |d, _, _| {
        if d == Dir::AtoB {
            Act::Drop
        } else {
            Act::Pass
        }
    });
    let ca = comps(&p.ev_a);
    assert_eq!(
        ca[1..]
            .iter()
            .map(|c| (c.wr_id, c.status))
            .collect::<Vec<_>>(),
        [(2, WcStatus::RetryExceeded), (3, WcStatus::Flushed)]
    );
    assert_eq!(p.a.stats().timeouts, 8);
}

#[test]
fn mr_roce_26_cnp_carries_16_zero_bytes() {
    let mut p = rocev2_pair(CcKind::Dcqcn);
    let len = 8 * 4096;
    let (lk, rk) = setup(&mut p, &pattern(len, 5));
    let now = p.now;
    p.a.post_send(now, p.qa, wr(1, SendOp::Write, lk, len as u32, rk))
        .unwrap();
    let mut cnps = Vec::new();
    p.run_for(5_000_000, &mut |d, _, fr| {
        if d == Dir::AtoB {
            let mut v = fr.to_vec();
            let mut ip = Ipv4Packet::new_unchecked(&mut v[14..34]);
            ip.set_ecn(0b11);
            ip.fill_checksum();
            return Act::Replace(v);
        }
        if opcode(fr).0 == RoceOpcode::Cnp {
            cnps.push(fr.to_vec());
        }
        Act::Pass
    });
    assert!(!cnps.is_empty());
    for fr in &cnps {
        let c = parse_roce_frame(fr, true).expect("CNP parses");
        assert!(c.icrc_ok);
        assert!(c.r.bth.becn);
        assert_eq!(c.r.bth.psn, 0);
        // Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + 16 reserved bytes + ICRC 4.
        assert_eq!(fr.len(), 74);
        assert_eq!(c.payload, &[0u8; 16][..]);
    }
    assert_eq!(comps(&p.ev_a)[0].status, WcStatus::Success);
}

#[test]
fn mr_roce_21_rnr_nak_timer_uses_the_infiniband_table() {
    assert_eq!(syndrome::RNR_TIMER_US[1], 10);
    assert_eq!(syndrome::RNR_TIMER_US[31], 491_520);
    assert_eq!(syndrome::RNR_TIMER_US[0], 655_360);
    for (us, code) in [
        (0, 1),
        (10, 1),
        (11, 2),
        (15, 2),
        (100, 7),
        (120, 7),
        (1_000, 14),
        (491_520, 31),
        (491_521, 0),
        (u32::MAX, 0),
    ] {
        assert_eq!(syndrome::rnr_timer_code(us), code, "{us} µs");
    }
    // Every code is the smallest table value at or above the delay (rounded up).
    for us in 1..=491_520u32 {
        let c = syndrome::rnr_timer_code(us) as usize;
        assert!(syndrome::RNR_TIMER_US[c] >= us);
        assert!(c == 1 || syndrome::RNR_TIMER_US[c - 1] < us);
    }
    // On the wire: a SEND without a posted receive WQE gets RNR NAK with the code of rnr_timer_us (10 µs -> 1).
    let mut p = rocev2_pair(CcKind::None);
    let (lk, _) = setup(&mut p, &pattern(100, 1));
    let now = p.now;
    p.a.post_send(now, p.qa, wr(1, SendOp::Send, lk, 100, 0))
        .unwrap();
    let mut rnr = Vec::new();
    p.run_for(30_000, &mut |d, _, fr| {
        if d == Dir::BtoA {
            if let (RoceOpcode::Acknowledge, Some(s), _) = opcode(fr) {
                if s & syndrome::TYPE_MASK == syndrome::RNR_NAK {
                    rnr.push(s);
                }
            }
        }
        Act::Pass
    });
    assert!(!rnr.is_empty());
    assert!(rnr.iter().all(|&s| s == syndrome::RNR_NAK | 1), "{rnr:x?}");
}
