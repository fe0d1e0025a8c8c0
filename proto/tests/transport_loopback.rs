//! Two MetaRoCE endpoints handing frames to each other directly, with per-test fault injection
//! (MR-REL-*, MR-SEM-*, MR-CONN-*, MR-PATH-*).

use core::net::IpAddr;
use metaroce_proto::transport::*;
use metaroce_proto::wire::packet::parse_frame;
use metaroce_proto::wire::{NackCode, PacketType};

mod transport_common;
use transport_common::*;

#[test]
fn mr_sem_write_single_and_multi_packet() {
    for len in [100usize, 4096, 10_000, 70_000] {
        let mut p = Pair::new();
        let data = pattern(len, 3);
        let (lk, rk) = setup_write(&mut p, &data, Access::REMOTE_WRITE);
        let now = p.now;
        p.a.post_send(now, p.qa, write_wr(7, SendOp::Write, lk, len as u32, rk))
            .unwrap();
        p.run_for(500_000, &mut pass);
        assert_eq!(read_b(&p, DST, len), data, "len {len}");
        let c = p.completions_a();
        assert_eq!(c.len(), 1);
        assert_eq!(
            (c[0].wr_id, c[0].status, c[0].opcode, c[0].byte_len),
            (7, WcStatus::Success, WcOpcode::Write, len as u32)
        );
        assert!(
            p.completions_b().is_empty(),
            "plain WRITE completes nothing at the responder"
        );
        assert_eq!(p.a.stats().tx_data_packets, len.div_ceil(4096) as u64);
        assert_eq!(p.b.stats().rx_payload_bytes, len as u64);
        assert!(p
            .ev_a
            .iter()
            .any(|e| matches!(e, Event::ConnectionOpened { .. })));
        assert!(p
            .ev_b
            .iter()
            .any(|e| matches!(e, Event::ConnectionOpened { .. })));
    }
}

#[test]
fn mr_sem_write_imm_consumes_wqe_at_completion() {
    let mut p = Pair::new();
    let data = pattern(9000, 1);
    let (lk, rk) = setup_write(&mut p, &data, Access::REMOTE_WRITE);
    let kb2 =
        p.b.register_mr(0x500_0000, 4096, Access::LOCAL_WRITE)
            .unwrap();
    p.b.post_recv(
        p.qb,
        RecvWr {
            wr_id: 55,
            sge: Sge {
                addr: 0x500_0000,
                len: 16,
                lkey: kb2.lkey,
            },
        },
    )
    .unwrap();
    let now = p.now;
    p.a.post_send(
        now,
        p.qa,
        write_wr(1, SendOp::WriteImm(0xABCD), lk, 9000, rk),
    )
    .unwrap();
    p.run_for(500_000, &mut pass);
    assert_eq!(read_b(&p, DST, 9000), data);
    let cb = p.completions_b();
    assert_eq!(cb.len(), 1);
    assert_eq!(
        (cb[0].wr_id, cb[0].opcode, cb[0].imm, cb[0].status),
        (55, WcOpcode::RecvWriteImm, Some(0xABCD), WcStatus::Success)
    );
    assert_eq!(p.completions_a()[0].status, WcStatus::Success);
}

#[test]
fn mr_sem_send_into_receive_wqes_in_order() {
    let mut p = Pair::new();
    let m1 = pattern(9000, 5);
    let m2 = pattern(300, 9);
    p.a.memory_mut().write(SRC, &m1);
    p.a.memory_mut().write(SRC + 0x10000, &m2);
    let ka = p.a.register_mr(SRC, 1 << 20, Access::NONE).unwrap();
    let kb = p.b.register_mr(DST, 1 << 20, Access::LOCAL_WRITE).unwrap();
    p.b.post_recv(
        p.qb,
        RecvWr {
            wr_id: 100,
            sge: Sge {
                addr: DST,
                len: 10_000,
                lkey: kb.lkey,
            },
        },
    )
    .unwrap();
    p.b.post_recv(
        p.qb,
        RecvWr {
            wr_id: 101,
            sge: Sge {
                addr: DST + 0x10000,
                len: 1000,
                lkey: kb.lkey,
            },
        },
    )
    .unwrap();
    let now = p.now;
    p.a.post_send(
        now,
        p.qa,
        SendWr {
            wr_id: 1,
            op: SendOp::Send,
            local: Sge {
                addr: SRC,
                len: 9000,
                lkey: ka.lkey,
            },
            remote_addr: 0,
            rkey: 0,
            solicited: false,
        },
    )
    .unwrap();
    p.a.post_send(
        now,
        p.qa,
        SendWr {
            wr_id: 2,
            op: SendOp::SendImm(77),
            local: Sge {
                addr: SRC + 0x10000,
                len: 300,
                lkey: ka.lkey,
            },
            remote_addr: 0,
            rkey: 0,
            solicited: true,
        },
    )
    .unwrap();
    // Reorder: hold the first data packet back so the second message arrives first.
    p.run_for(500_000, &mut |d, n, fr| {
        if d == Dir::AtoB && n == 0 && is_data(fr) {
            Act::Delay(20_000)
        } else {
            Act::Pass
        }
    });
    assert_eq!(read_b(&p, DST, 9000), m1);
    assert_eq!(read_b(&p, DST + 0x10000, 300), m2);
    let cb = p.completions_b();
    assert_eq!(
        cb.iter()
            .map(|c| (c.wr_id, c.byte_len, c.imm))
            .collect::<Vec<_>>(),
        [(100, 9000, None), (101, 300, Some(77))]
    );
    let ca = p.completions_a();
    assert_eq!(
        ca.iter()
            .map(|c| (c.wr_id, c.opcode, c.status))
            .collect::<Vec<_>>(),
        [
            (1, WcOpcode::Send, WcStatus::Success),
            (2, WcOpcode::Send, WcStatus::Success)
        ]
    );
    assert!(p.b.stats().ooo_arrivals > 0);
}

#[test]
fn mr_sem_read_multi_packet() {
    let mut p = Pair::new();
    let data = pattern(20_000, 11);
    p.b.memory_mut().write(DST, &data);
    let kb = p.b.register_mr(DST, 1 << 20, Access::REMOTE_READ).unwrap();
    let ka = p.a.register_mr(SRC, 1 << 20, Access::LOCAL_WRITE).unwrap();
    let now = p.now;
    p.a.post_send(
        now,
        p.qa,
        write_wr(9, SendOp::Read, ka.lkey, 20_000, kb.rkey),
    )
    .unwrap();
    // Drop one READ response packet: the responder retransmits it.
    p.run_for(2_000_000, &mut |d, n, fr| {
        if d == Dir::BtoA && n == 2 && is_data(fr) {
            Act::Drop
        } else {
            Act::Pass
        }
    });
    let mut back = vec![0u8; 20_000];
    p.a.memory().read(SRC, &mut back);
    assert_eq!(back, data);
    let ca = p.completions_a();
    assert_eq!(ca.len(), 1);
    assert_eq!(
        (ca[0].wr_id, ca[0].opcode, ca[0].status, ca[0].byte_len),
        (9, WcOpcode::Read, WcStatus::Success, 20_000)
    );
    assert!(
        p.b.stats().retransmits.time
            + p.b.stats().retransmits.rto
            + p.b.stats().retransmits.distance
            >= 1
    );
}

#[test]
fn mr_sem_zero_length_messages() {
    let mut p = Pair::new();
    let (lk, rk) = setup_write(&mut p, &[], Access::REMOTE_WRITE);
    let kb =
        p.b.register_mr(0x900_0000, 64, Access::LOCAL_WRITE)
            .unwrap();
    p.b.post_recv(
        p.qb,
        RecvWr {
            wr_id: 5,
            sge: Sge {
                addr: 0x900_0000,
                len: 64,
                lkey: kb.lkey,
            },
        },
    )
    .unwrap();
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Write, lk, 0, rk))
        .unwrap();
    p.a.post_send(now, p.qa, write_wr(2, SendOp::Send, lk, 0, 0))
        .unwrap();
    p.a.post_send(now, p.qa, write_wr(3, SendOp::Read, lk, 0, 0))
        .unwrap();
    p.run_for(500_000, &mut pass);
    let ca = p.completions_a();
    assert_eq!(
        ca.iter().map(|c| (c.wr_id, c.status)).collect::<Vec<_>>(),
        [
            (1, WcStatus::Success),
            (2, WcStatus::Success),
            (3, WcStatus::Success)
        ]
    );
    let cb = p.completions_b();
    assert_eq!(
        cb.iter().map(|c| (c.wr_id, c.byte_len)).collect::<Vec<_>>(),
        [(5, 0)]
    );
    assert_eq!(p.b.memory().write_count(), 0);
}

#[test]
fn mr_rel_drop_reorder_duplicate_exactly_once() {
    let len = 64 * 4096;
    let mut p = Pair::new();
    let data = pattern(len, 21);
    let (lk, rk) = setup_write(&mut p, &data, Access::REMOTE_WRITE);
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Write, lk, len as u32, rk))
        .unwrap();
    p.run_for(5_000_000, &mut |d, n, fr| {
        if d != Dir::AtoB || !is_data(fr) {
            return Act::Pass;
        }
        match n % 7 {
            1 => Act::Drop,
            3 => Act::Dup,
            5 => Act::Delay(3_000),
            _ => Act::Pass,
        }
    });
    assert_eq!(read_b(&p, DST, len), data);
    assert_eq!(p.completions_a().len(), 1);
    assert_eq!(p.completions_a()[0].status, WcStatus::Success);
    // Each of the 64 PSNs was placed exactly once.
    assert_eq!(p.b.memory().write_count(), 64);
    assert!(p.b.stats().drops.duplicate > 0);
    let r = p.a.stats().retransmits;
    assert!(r.time + r.distance + r.rto >= 9, "{r:?}");
}

#[test]
fn mr_rel_34_48_trimmed_packet_nack_and_retransmit() {
    let len = 5 * 4096;
    let mut p = Pair::new();
    let data = pattern(len, 2);
    let (lk, rk) = setup_write(&mut p, &data, Access::REMOTE_WRITE);
    let now = p.now;
    // Warm-up message: ends the SYN phase, so that the trimmed packet carries a known DCID.
    p.a.post_send(now, p.qa, write_wr(0, SendOp::Write, lk, 1, rk))
        .unwrap();
    p.run_for(20_000, &mut pass);
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Write, lk, len as u32, rk))
        .unwrap();
    let mut nacks = 0;
    let first = p.sent[0];
    p.run_for(2_000_000, &mut |d, n, fr| {
        if d == Dir::AtoB && n == first + 2 && is_data(fr) {
            // A switch trims the payload, keeping the base header (64 bytes of an IPv4 frame).
            return Act::Replace(trim(fr));
        }
        if d == Dir::BtoA && kind(fr).2 == Some(NackCode::Trimmed) {
            nacks += 1;
        }
        Act::Pass
    });
    assert_eq!(nacks, 1);
    assert_eq!(read_b(&p, DST, len), data);
    assert_eq!(p.a.stats().retransmits.trim, 1);
    assert_eq!(p.b.stats().trimmed_received, 1);
    assert!(p
        .completions_a()
        .iter()
        .all(|c| c.status == WcStatus::Success));
    assert_eq!(p.completions_a().len(), 2);
    assert!(p.a.stats().path_recycles >= 1);
}

fn access_case(access: Access, rkey_delta: u32, addr_delta: u64, len: u32, expect: WcStatus) {
    let mut p = Pair::new();
    let data = pattern(len as usize, 4);
    let (lk, rk) = setup_write(&mut p, &data, access);
    let now = p.now;
    let mut wr = write_wr(1, SendOp::Write, lk, len, rk.wrapping_add(rkey_delta));
    wr.remote_addr += addr_delta;
    p.a.post_send(now, p.qa, wr).unwrap();
    // A second, valid WR behind the failing one (it may or may not be placed before the error).
    let mut wr2 = write_wr(2, SendOp::Write, lk, 10, rk);
    wr2.remote_addr = DST + 0x8_0000;
    p.a.post_send(now, p.qa, wr2).unwrap();
    let mut access_nacks = 0;
    p.run_for(2_000_000, &mut |d, _, fr| {
        if d == Dir::BtoA && kind(fr).2 == Some(NackCode::Access) {
            access_nacks += 1;
        }
        Act::Pass
    });
    assert!(access_nacks >= 1);
    // Nothing was written: not the failing WR, and (delivered in order after the failure, like an RC responder
    // in the error state) not the WR behind it either.
    assert_eq!(p.b.memory().write_count(), 0, "memory must stay untouched");
    assert_eq!(
        read_b(&p, DST + addr_delta, len as usize),
        vec![0u8; len as usize],
        "memory must stay untouched"
    );
    let ca = p.completions_a();
    assert_eq!(
        ca.iter().map(|c| (c.wr_id, c.status)).collect::<Vec<_>>(),
        [(1, expect), (2, WcStatus::Flushed)]
    );
    assert!(p.ev_a.iter().any(|e| matches!(
        e,
        Event::QpError {
            status: WcStatus::RemoteAccess,
            ..
        }
    )));
    assert_eq!(p.a.qp_state(p.qa), Some(QpState::Error));
    assert_eq!(
        p.a.post_send(p.now, p.qa, write_wr(3, SendOp::Write, lk, 1, rk)),
        Err(VerbsError::InvalidState)
    );
}

#[test]
fn mr_sem_13_32_wrong_rkey_nack_access() {
    access_case(Access::REMOTE_WRITE, 1, 0, 8192, WcStatus::RemoteAccess);
}

#[test]
fn mr_sem_13_32_out_of_bounds_nack_access() {
    access_case(
        Access::REMOTE_WRITE,
        0,
        (1 << 20) - 100,
        8192,
        WcStatus::RemoteAccess,
    );
}

#[test]
fn mr_sem_13_32_missing_rights_nack_access() {
    access_case(Access::REMOTE_READ, 0, 0, 100, WcStatus::RemoteAccess);
}

#[test]
fn mr_sem_36_access_nack_repeated_for_retransmissions() {
    // The first ACCESS NACK is lost: the retransmission of the failed packet is NACKed again.
    let mut p = Pair::new();
    let (lk, rk) = setup_write(&mut p, &[1; 100], Access::REMOTE_WRITE);
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Write, lk, 100, rk ^ 0x100))
        .unwrap();
    let mut seen = 0;
    p.run_for(5_000_000, &mut |d, _, fr| {
        if d == Dir::BtoA && kind(fr).2 == Some(NackCode::Access) {
            seen += 1;
            if seen == 1 {
                return Act::Drop;
            }
        }
        Act::Pass
    });
    assert_eq!(seen, 2);
    assert_eq!(p.completions_a()[0].status, WcStatus::RemoteAccess);
    assert_eq!(p.b.memory().write_count(), 0);
}

#[test]
fn mr_sem_33_send_too_large_for_wqe() {
    let mut p = Pair::new();
    let (lk, _) = setup_write(&mut p, &[9; 500], Access::NONE);
    let kb =
        p.b.register_mr(0x900_0000, 4096, Access::LOCAL_WRITE)
            .unwrap();
    p.b.post_recv(
        p.qb,
        RecvWr {
            wr_id: 8,
            sge: Sge {
                addr: 0x900_0000,
                len: 100,
                lkey: kb.lkey,
            },
        },
    )
    .unwrap();
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Send, lk, 500, 0))
        .unwrap();
    p.run_for(1_000_000, &mut pass);
    assert_eq!(p.completions_a()[0].status, WcStatus::RemoteInvalidRequest);
    let cb = p.completions_b();
    assert_eq!(
        cb.iter().map(|c| (c.wr_id, c.status)).collect::<Vec<_>>(),
        [(8, WcStatus::LocalLength)]
    );
    assert_eq!(p.b.memory().write_count(), 0);
}

#[test]
fn mr_sem_28_29_rnr_then_recv_posted() {
    let mut p = Pair::new();
    let data = pattern(5000, 8);
    let (lk, _) = setup_write(&mut p, &data, Access::NONE);
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Send, lk, 5000, 0))
        .unwrap();
    p.run_for(25_000, &mut pass);
    assert!(p.b.stats().nacks_sent[NackCode::Rnr as usize] >= 1);
    assert!(p.completions_a().is_empty());
    let kb =
        p.b.register_mr(0x900_0000, 8192, Access::LOCAL_WRITE)
            .unwrap();
    p.b.post_recv(
        p.qb,
        RecvWr {
            wr_id: 3,
            sge: Sge {
                addr: 0x900_0000,
                len: 8192,
                lkey: kb.lkey,
            },
        },
    )
    .unwrap();
    p.run_for(1_000_000, &mut pass);
    assert_eq!(p.completions_a()[0].status, WcStatus::Success);
    assert_eq!(p.completions_b()[0].wr_id, 3);
    assert_eq!(read_b(&p, 0x900_0000, 5000), data);
}

#[test]
fn mr_sem_30_rnr_retry_exceeded() {
    let mut p = Pair::new();
    let (lk, _) = setup_write(&mut p, &[1; 10], Access::NONE);
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Send, lk, 10, 0))
        .unwrap();
    p.a.post_send(now, p.qa, write_wr(2, SendOp::Send, lk, 10, 0))
        .unwrap();
    p.run_for(10_000_000, &mut pass);
    let ca = p.completions_a();
    assert_eq!(
        ca.iter().map(|c| (c.wr_id, c.status)).collect::<Vec<_>>(),
        [(1, WcStatus::RnrRetryExceeded), (2, WcStatus::Flushed)]
    );
}

#[test]
fn mr_conn_32_unknown_cid_gets_no_context() {
    let mut p = Pair::new();
    let (lk, rk) = setup_write(&mut p, &[1; 10], Access::REMOTE_WRITE);
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Write, lk, 10, rk))
        .unwrap();
    p.run_for(100_000, &mut pass);
    // Craft a non-SYN data frame for a CID B does not know: take A's next data frame and rewrite its DCID.
    p.a.post_send(p.now, p.qa, write_wr(2, SendOp::Write, lk, 10, rk))
        .unwrap();
    let mut fr = Vec::new();
    assert!(p.a.poll_transmit(p.now, &mut fr));
    let mut parsed = parse_frame(&fr, 4792, 10, true).unwrap();
    parsed.m.mbh.dcid ^= 0x7777;
    let l = parsed.l;
    let m = parsed.m;
    let payload = parsed.payload.to_vec();
    let mut bad = Vec::new();
    metaroce_proto::wire::packet::emit_frame(&l, &m, &payload, &mut bad).unwrap();
    p.b.handle_frame(p.now, &bad);
    let mut out = Vec::new();
    assert!(p.b.poll_transmit(p.now, &mut out));
    assert_eq!(kind(&out).2, Some(NackCode::NoContext));
    assert_eq!(p.b.stats().drops.unknown_connection, 1);
}

#[test]
fn mr_conn_35_sender_reopens_after_no_context() {
    // B forgets the connection (its CLOSE exchange never reaches A); A's next WR hits NO_CONTEXT, reopens
    // with a new CID and completes.
    let ca = EndpointConfig {
        idle_close_ns: 1_000_000_000,
        ..cfg(MAC_A, IP_A)
    };
    let cb = EndpointConfig {
        idle_close_ns: 100_000,
        ..cfg(MAC_B, IP_B)
    };
    let mut p = Pair::with(ca, cb);
    let data = pattern(3000, 1);
    let (lk, rk) = setup_write(&mut p, &data, Access::REMOTE_WRITE);
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Write, lk, 3000, rk))
        .unwrap();
    p.run_for(50_000, &mut pass);
    let cid1 = p.a.connection_id(p.qa).unwrap();
    // Let B close on idle while dropping everything from B to A.
    p.run_for(3_000_000, &mut |d, _, _| {
        if d == Dir::BtoA {
            Act::Drop
        } else {
            Act::Pass
        }
    });
    assert_eq!(p.b.open_connections(), 0);
    assert_eq!(p.a.connection_id(p.qa), Some(cid1));
    p.b.memory_mut().write(DST, &[0; 3000]);
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(2, SendOp::Write, lk, 3000, rk))
        .unwrap();
    p.run_for(1_000_000, &mut pass);
    assert!(p.a.stats().nacks_received[NackCode::NoContext as usize] >= 1);
    let opened: Vec<u32> = p
        .ev_a
        .iter()
        .filter_map(|e| match e {
            Event::ConnectionOpened { cid, .. } => Some(*cid),
            _ => None,
        })
        .collect();
    assert_eq!(opened.len(), 2);
    assert_eq!(opened[0], cid1);
    assert_ne!(opened[1], cid1, "reopened with a new CID");
    assert_eq!(
        p.completions_a()
            .iter()
            .map(|c| (c.wr_id, c.status))
            .collect::<Vec<_>>(),
        [(1, WcStatus::Success), (2, WcStatus::Success)]
    );
    assert_eq!(read_b(&p, DST, 3000), data);
}

#[test]
fn mr_conn_19_26_idle_close_and_reopen() {
    let mut p = Pair::new();
    let (lk, rk) = setup_write(&mut p, &[5; 100], Access::REMOTE_WRITE);
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Write, lk, 100, rk))
        .unwrap();
    p.run_for(100_000, &mut pass);
    let cid1 = p.a.connection_id(p.qa).unwrap();
    // Drop the first CLOSE: it is retransmitted.
    let mut closes = 0;
    p.run_for(5_000_000, &mut |_, _, fr| {
        let k = kind(fr);
        if k.0 == PacketType::Ctrl {
            closes += 1;
            if closes == 1 {
                return Act::Drop;
            }
        }
        Act::Pass
    });
    assert!(closes >= 2);
    assert_eq!(p.a.connection_id(p.qa), None);
    assert_eq!(p.b.connection_id(p.qb), None);
    assert_eq!(p.a.open_connections() + p.b.open_connections(), 0);
    assert!(p
        .ev_a
        .iter()
        .any(|e| matches!(e, Event::ConnectionClosed { cid, .. } if *cid == cid1)));
    assert!(p
        .ev_b
        .iter()
        .any(|e| matches!(e, Event::ConnectionClosed { .. })));
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(2, SendOp::Write, lk, 100, rk))
        .unwrap();
    p.run_for(100_000, &mut pass);
    let cid2 = p.a.connection_id(p.qa).unwrap();
    assert_ne!(cid1, cid2);
    assert_eq!(p.completions_a().len(), 2);
    assert!(p
        .completions_a()
        .iter()
        .all(|c| c.status == WcStatus::Success));
}

#[test]
fn mr_rel_55_retry_exhaustion_when_peer_vanishes() {
    let mut p = Pair::new();
    let (lk, rk) = setup_write(&mut p, &[5; 100], Access::REMOTE_WRITE);
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Write, lk, 100, rk))
        .unwrap();
    p.a.post_send(now, p.qa, write_wr(2, SendOp::Read, lk, 100, rk))
        .unwrap();
    let kb = p.b.register_mr(0, 1, Access::LOCAL_WRITE).unwrap();
    let _ = kb;
    p.run_for(1_000_000_000, &mut |d, _, _| {
        if d == Dir::AtoB {
            Act::Drop
        } else {
            Act::Pass
        }
    });
    let ca = p.completions_a();
    assert_eq!(
        ca.iter().map(|c| (c.wr_id, c.status)).collect::<Vec<_>>(),
        [(1, WcStatus::RetryExceeded), (2, WcStatus::Flushed)]
    );
    assert_eq!(p.a.stats().timeouts, 8); // retry_limit 7: the 8th consecutive timeout gives up
    assert_eq!(p.a.qp_state(p.qa), Some(QpState::Error));
}

#[test]
fn destroy_qp_flushes_every_wr_once() {
    let mut p = Pair::new();
    let (lk, rk) = setup_write(&mut p, &[5; 100], Access::REMOTE_WRITE);
    let ka =
        p.a.register_mr(0x700_0000, 100, Access::LOCAL_WRITE)
            .unwrap();
    p.a.post_recv(
        p.qa,
        RecvWr {
            wr_id: 50,
            sge: Sge {
                addr: 0x700_0000,
                len: 100,
                lkey: ka.lkey,
            },
        },
    )
    .unwrap();
    let now = p.now;
    for i in 0..3 {
        p.a.post_send(now, p.qa, write_wr(i, SendOp::Write, lk, 100, rk))
            .unwrap();
    }
    p.a.destroy_qp(p.qa).unwrap();
    while let Some(e) = p.a.poll_event() {
        p.ev_a.push(e);
    }
    let ca = p.completions_a();
    assert_eq!(ca.len(), 4);
    assert!(ca.iter().all(|c| c.status == WcStatus::Flushed));
    assert_eq!(p.a.destroy_qp(p.qa), Err(VerbsError::InvalidQp));
    assert_eq!(p.a.open_connections(), 0);
}

#[test]
fn mr_sem_8_9_post_validation() {
    let mut p = Pair::new();
    let ka = p.a.register_mr(SRC, 4096, Access::NONE).unwrap();
    let now = p.now;
    let qa = p.qa;
    let mut wr = write_wr(1, SendOp::Write, ka.lkey, 4097, 0);
    assert_eq!(p.a.post_send(now, qa, wr), Err(VerbsError::OutOfBounds));
    wr.local.len = 10;
    wr.local.lkey ^= 1;
    assert_eq!(p.a.post_send(now, qa, wr), Err(VerbsError::BadLkey));
    let rd = write_wr(1, SendOp::Read, ka.lkey, 10, 0);
    assert_eq!(
        p.a.post_send(now, qa, rd),
        Err(VerbsError::NoAccess),
        "READ needs LOCAL_WRITE"
    );
    assert_eq!(
        p.a.post_recv(
            qa,
            RecvWr {
                wr_id: 1,
                sge: Sge {
                    addr: SRC,
                    len: 10,
                    lkey: ka.lkey
                }
            }
        ),
        Err(VerbsError::NoAccess)
    );
    assert_eq!(
        p.a.post_send(now, qa + 1, write_wr(1, SendOp::Write, ka.lkey, 1, 0)),
        Err(VerbsError::InvalidQp)
    );
    let big = write_wr(1, SendOp::Write, ka.lkey, u32::MAX, 0);
    assert_eq!(p.a.post_send(now, qa, big), Err(VerbsError::TooLarge));
    let q2 = p.a.create_qp(1, 1).unwrap();
    assert_eq!(
        p.a.post_send(now, q2, write_wr(1, SendOp::Write, ka.lkey, 1, 0)),
        Err(VerbsError::InvalidState)
    );
    p.a.connect_qp(
        q2,
        RemoteQp {
            mac: MAC_B,
            ip: IP_B,
            qpn: p.qb,
        },
    )
    .unwrap();
    p.a.post_send(now, q2, write_wr(1, SendOp::Write, ka.lkey, 1, 0))
        .unwrap();
    assert_eq!(
        p.a.post_send(now, q2, write_wr(2, SendOp::Write, ka.lkey, 1, 0)),
        Err(VerbsError::QueueFull)
    );
}

#[test]
fn mr_path_7_ece_recycles_the_path() {
    use metaroce_proto::wire::Ipv4Packet;
    let len = 32 * 4096;
    let mut p = Pair::new();
    let data = pattern(len, 6);
    let (lk, rk) = setup_write(&mut p, &data, Access::REMOTE_WRITE);
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Write, lk, len as u32, rk))
        .unwrap();
    // Packets spaced 5 µs apart, so that each is acknowledged on its own.
    let mut k = 0;
    p.run_for(2_000_000, &mut |d, n, fr| {
        if d == Dir::AtoB && is_data(fr) {
            k += 1;
        }
        if d == Dir::AtoB && is_data(fr) && n % 4 == 0 {
            // A congested switch marks CE (the ICV does not cover ECN).
            let mut v = fr.to_vec();
            let mut ip = Ipv4Packet::new_unchecked(&mut v[14..34]);
            ip.set_ecn(0b11);
            ip.fill_checksum();
            return Act::ReplaceDelay(v, k * 5_000);
        }
        if d == Dir::AtoB && is_data(fr) {
            return Act::Delay(k * 5_000);
        }
        Act::Pass
    });
    assert_eq!(read_b(&p, DST, len), data);
    assert_eq!(p.b.stats().ecn_ce_received, 8);
    assert_eq!(p.a.stats().ece_received, 8);
    assert!(p.a.stats().path_recycles >= 1);
    assert_eq!(
        p.a.stats().retransmits,
        Default::default(),
        "ECE alone causes no retransmission"
    );
}

#[test]
fn mr_enc_ipv6_write_and_read() {
    use core::net::Ipv6Addr;
    let a6 = IpAddr::V6(Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 1));
    let b6 = IpAddr::V6(Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 2));
    let mut a = Endpoint::new(cfg(MAC_A, a6), SparseMemory::new());
    let mut b = Endpoint::new(cfg(MAC_B, b6), SparseMemory::new());
    let qa = a.create_qp(8, 8).unwrap();
    let qb = b.create_qp(8, 8).unwrap();
    assert_eq!(
        a.connect_qp(
            qa,
            RemoteQp {
                mac: MAC_B,
                ip: IP_B,
                qpn: qb
            }
        ),
        Err(VerbsError::Invalid),
        "address family must match"
    );
    a.connect_qp(
        qa,
        RemoteQp {
            mac: MAC_B,
            ip: b6,
            qpn: qb,
        },
    )
    .unwrap();
    b.connect_qp(
        qb,
        RemoteQp {
            mac: MAC_A,
            ip: a6,
            qpn: qa,
        },
    )
    .unwrap();
    let mut p = Pair {
        a,
        b,
        qa,
        qb,
        now: 1_000_000,
        wire: Vec::new(),
        ev_a: Vec::new(),
        ev_b: Vec::new(),
        sent: [0; 2],
        bytes: [0; 2],
    };
    let data = pattern(9000, 7);
    let (lk, rk) = setup_write(&mut p, &data, Access::REMOTE_WRITE | Access::REMOTE_READ);
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Write, lk, 9000, rk))
        .unwrap();
    let mut rd = write_wr(2, SendOp::Read, lk, 9000, rk);
    rd.local.addr = SRC + 0x2_0000;
    p.a.post_send(now, p.qa, rd).unwrap();
    p.run_for(1_000_000, &mut pass);
    assert_eq!(read_b(&p, DST, 9000), data);
    let mut back = vec![0u8; 9000];
    p.a.memory().read(SRC + 0x2_0000, &mut back);
    assert_eq!(back, data, "READ after WRITE sees the written data");
    assert_eq!(
        p.completions_a()
            .iter()
            .map(|c| c.status)
            .collect::<Vec<_>>(),
        [WcStatus::Success; 2]
    );
    assert_eq!(p.a.stats().tx_bytes, p.bytes[0]);
}

#[test]
fn mr_rel_14_16_ack_coalescing_by_ratio() {
    let ca = EndpointConfig {
        ack_ratio: 4,
        ..cfg(MAC_A, IP_A)
    };
    let cb = EndpointConfig {
        ack_ratio: 4,
        ..cfg(MAC_B, IP_B)
    };
    let mut p = Pair::with(ca, cb);
    let len = 16 * 4096;
    let data = pattern(len, 8);
    let (lk, rk) = setup_write(&mut p, &data, Access::REMOTE_WRITE);
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Write, lk, len as u32, rk))
        .unwrap();
    // Space the packets out so that each arrives alone.
    let mut k = 0;
    p.run_for(2_000_000, &mut |d, _, fr| {
        if d == Dir::AtoB && is_data(fr) {
            k += 1;
            return Act::Delay(k * 500);
        }
        Act::Pass
    });
    assert_eq!(read_b(&p, DST, len), data);
    // 16 in-order packets 0.5 µs apart (less than ack_delay_ns): an ACK after every 4th (the 16th is also LAST).
    assert_eq!(p.b.stats().tx_acks, 4);
    assert_eq!(p.completions_a()[0].status, WcStatus::Success);
}

/// Random drop / duplicate / delay in both directions on a mix of operations. The seed is printed and can be
/// replayed with `TRANSPORT_SEED=<n>`; `TRANSPORT_ROUNDS=<n>` runs more seeds.
#[test]
fn mr_rel_randomized_lossy_link() {
    let rounds: u64 = std::env::var("TRANSPORT_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4);
    let fixed: Option<u64> = std::env::var("TRANSPORT_SEED")
        .ok()
        .and_then(|v| v.parse().ok());
    for r in 0..rounds {
        let seed = fixed.unwrap_or(0x5EED_0000 + r);
        println!("mr_rel_randomized_lossy_link seed {seed}");
        let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut p = Pair::new();
        let data = pattern(200_000, seed as u8);
        let (lk, rk) = setup_write(&mut p, &data, Access::REMOTE_WRITE | Access::REMOTE_READ);
        let kb =
            p.b.register_mr(0x900_0000, 1 << 20, Access::LOCAL_WRITE)
                .unwrap();
        for i in 0..4 {
            p.b.post_recv(
                p.qb,
                RecvWr {
                    wr_id: 100 + i,
                    sge: Sge {
                        addr: 0x900_0000 + i * 0x4_0000,
                        len: 0x4_0000,
                        lkey: kb.lkey,
                    },
                },
            )
            .unwrap();
        }
        let now = p.now;
        let mut w = write_wr(1, SendOp::Write, lk, 100_000, rk);
        p.a.post_send(now, p.qa, w).unwrap();
        w.wr_id = 2;
        w.op = SendOp::Send;
        w.local.addr = SRC + 100_000;
        w.local.len = 50_000;
        p.a.post_send(now, p.qa, w).unwrap();
        let mut rd = write_wr(3, SendOp::Read, lk, 60_000, rk);
        rd.local.addr = SRC + 0x8_0000;
        p.a.post_send(now, p.qa, rd).unwrap();
        let mut wi = write_wr(4, SendOp::WriteImm(44), lk, 30_000, rk);
        wi.local.addr = SRC + 150_000;
        wi.remote_addr = DST + 0x4_0000;
        p.a.post_send(now, p.qa, wi).unwrap();
        p.run_for(200_000_000, &mut |_, _, _| match next() % 100 {
            0..=4 => Act::Drop,
            5..=7 => Act::Dup,
            8..=12 => Act::Delay(next() % 20_000),
            _ => Act::Pass,
        });
        assert_eq!(read_b(&p, DST, 100_000), data[..100_000], "seed {seed}");
        assert_eq!(
            read_b(&p, 0x900_0000, 50_000),
            data[100_000..150_000],
            "seed {seed}"
        );
        assert_eq!(
            read_b(&p, DST + 0x4_0000, 30_000),
            data[150_000..180_000],
            "seed {seed}"
        );
        let mut back = vec![0u8; 60_000];
        p.a.memory().read(SRC + 0x8_0000, &mut back);
        assert_eq!(back, data[..60_000], "seed {seed}");
        let ca = p.completions_a();
        assert_eq!(
            ca.iter().map(|c| (c.wr_id, c.status)).collect::<Vec<_>>(),
            [
                (1, WcStatus::Success),
                (2, WcStatus::Success),
                (3, WcStatus::Success),
                (4, WcStatus::Success)
            ],
            "seed {seed}"
        );
        let cb = p.completions_b();
        assert_eq!(
            cb.iter()
                .map(|c| (c.wr_id, c.opcode, c.imm))
                .collect::<Vec<_>>(),
            [
                (100, WcOpcode::Recv, None),
                (101, WcOpcode::RecvWriteImm, Some(44))
            ],
            "seed {seed}"
        );
    }
}

#[test]
fn mr_cc_transfers_complete_under_nscc_and_dcqcn_with_loss() {
    for cc in [CcKind::Nscc, CcKind::Dcqcn] {
        let ca = EndpointConfig {
            cc,
            ..cfg(MAC_A, IP_A)
        };
        let cb = EndpointConfig {
            cc,
            ..cfg(MAC_B, IP_B)
        };
        let mut p = Pair::with(ca, cb);
        let len = 1 << 20;
        let data = pattern(len, 12);
        let (lk, rk) = setup_write(&mut p, &data, Access::REMOTE_WRITE);
        let now = p.now;
        p.a.post_send(now, p.qa, write_wr(1, SendOp::Write, lk, len as u32, rk))
            .unwrap();
        p.run_for(100_000_000, &mut |d, n, fr| {
            if d == Dir::AtoB && is_data(fr) && n % 50 == 7 {
                Act::Drop
            } else {
                Act::Pass
            }
        });
        assert_eq!(read_b(&p, DST, len), data, "{cc:?}");
        assert_eq!(
            p.completions_a()
                .iter()
                .map(|c| c.status)
                .collect::<Vec<_>>(),
            [WcStatus::Success],
            "{cc:?}"
        );
        let r = p.a.stats().retransmits;
        assert!(r.time + r.distance + r.rto >= 5, "{cc:?} {r:?}");
    }
}

#[test]
fn mr_conn_14_responder_announces_its_window() {
    // ACKs are delayed 100 µs: with the minimum window of 256 packets assumed before the peer's Open extension
    // arrives, 2048 packets would need 8 round trips (~800 µs); the responder's CTRL OPEN announces 4096 packets.
    let len = 2048 * 4096;
    let mut p = Pair::new();
    let data = pattern(len, 13);
    p.a.memory_mut().write(SRC, &data);
    let ka = p.a.register_mr(SRC, 1 << 24, Access::LOCAL_WRITE).unwrap();
    let kb = p.b.register_mr(DST, 1 << 24, Access::REMOTE_WRITE).unwrap();
    let now = p.now;
    p.a.post_send(
        now,
        p.qa,
        write_wr(1, SendOp::Write, ka.lkey, len as u32, kb.rkey),
    )
    .unwrap();
    let mut opens = 0;
    p.run_for(400_000, &mut |d, _, fr| {
        if d == Dir::BtoA {
            if kind(fr).0 == PacketType::Ctrl {
                opens += 1;
            }
            return Act::Delay(100_000);
        }
        Act::Pass
    });
    assert_eq!(
        p.completions_a()
            .iter()
            .map(|c| c.status)
            .collect::<Vec<_>>(),
        [WcStatus::Success]
    );
    assert_eq!(opens, 1);
    assert_eq!(read_b(&p, DST, len), data);
}
