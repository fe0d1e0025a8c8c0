//! Conformance of the MetaRoCE transport to individual clauses of the specification: each test drives two
//! endpoints over a direct link and rewrites, drops or injects frames to reach the clause it is named after.

use metaroce_proto::transport::*;
use metaroce_proto::wire::packet::{emit_frame, parse_frame, IpRepr, MetaRoceRepr, TypeRepr, L2L3};
use metaroce_proto::wire::{AckFlags, AckRepr, CtrlCode, NackCode, NackRepr, PacketType};

mod transport_common;
use transport_common::*;

/// Re-emits `fr` after `f` changed its layers 2-4, MetaRoCE headers or payload (lengths and ICV are recomputed).
fn rewrite(fr: &[u8], f: impl FnOnce(&mut L2L3, &mut MetaRoceRepr, &mut Vec<u8>)) -> Vec<u8> {
    let p = parse_frame(fr, 4792, 10, true).expect("parse");
    let (mut l, mut m, mut pl) = (p.l, p.m, p.payload.to_vec());
    f(&mut l, &mut m, &mut pl);
    let mut out = Vec::new();
    emit_frame(&l, &m, &pl, &mut out).expect("emit");
    out
}

fn set_src_ip(l: &mut L2L3, ip: [u8; 4]) {
    if let IpRepr::V4 { src, .. } = &mut l.ip {
        *src = ip;
    }
}

fn statuses(c: &[Completion]) -> Vec<(u64, WcStatus)> {
    c.iter().map(|c| (c.wr_id, c.status)).collect()
}

fn qp_error(ev: &[Event]) -> Option<WcStatus> {
    ev.iter().find_map(|e| match e {
        Event::QpError { status, .. } => Some(*status),
        _ => None,
    })
}

/// Sends a 1-byte WRITE and runs it to completion: the connection is open and both SYN phases are over.
fn warm_up(p: &mut Pair, lk: u32, rk: u32) {
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(0, SendOp::Write, lk, 1, rk))
        .unwrap();
    p.run_for(50_000, &mut pass);
    assert_eq!(statuses(&p.completions_a()), [(0, WcStatus::Success)]);
}

#[test]
fn mr_conn_3_data_from_another_source_ip_is_dropped() {
    let len = 3 * 4096;
    let mut p = Pair::new();
    let data = pattern(len, 7);
    let (lk, rk) = setup_write(&mut p, &data, Access::REMOTE_WRITE);
    warm_up(&mut p, lk, rk);
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Write, lk, len as u32, rk))
        .unwrap();
    let mut spoofed = 0;
    p.run_for(5_000_000, &mut |d, _, fr| {
        if d == Dir::AtoB && is_data(fr) && spoofed == 0 {
            spoofed += 1;
            // Same DCID and PSN, other payload, from an address that is not the connection's peer.
            return Act::Replace(rewrite(fr, |l, _, pl| {
                set_src_ip(l, [10, 0, 0, 99]);
                pl.fill(0xEE);
            }));
        }
        Act::Pass
    });
    assert_eq!(spoofed, 1);
    assert_eq!(p.b.stats().drops.wrong_peer, 1);
    assert_eq!(read_b(&p, DST, len), data, "the spoofed payload was placed");
    assert_eq!(
        statuses(&p.completions_a()),
        [(0, WcStatus::Success), (1, WcStatus::Success)]
    );
}

#[test]
fn mr_conn_3_nack_from_another_source_ip_is_dropped() {
    let mut p = Pair::new();
    let data = pattern(5000, 3);
    let (lk, rk) = setup_write(&mut p, &data, Access::REMOTE_WRITE);
    warm_up(&mut p, lk, rk);
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Write, lk, 5000, rk))
        .unwrap();
    let mut forged = false;
    p.run_for(5_000_000, &mut |d, _, fr| {
        if d == Dir::BtoA && kind(fr).0 == PacketType::Ack && !forged {
            forged = true;
            // A forged fatal NACK for the running message (MSN 1), naming A's connection, from a third address.
            return Act::Replace(rewrite(fr, |l, m, _| {
                set_src_ip(l, [10, 0, 0, 99]);
                let TypeRepr::Ack(a) = m.ty else {
                    panic!("not an ACK")
                };
                m.mbh.ptype = PacketType::Nack;
                m.ty = TypeRepr::Nack(NackRepr {
                    scid: a.scid,
                    code: NackCode::Access,
                    echo_ts: a.echo_ts,
                    aux: 1,
                });
            }));
        }
        Act::Pass
    });
    assert!(forged);
    assert_eq!(p.a.stats().drops.wrong_peer, 1);
    assert_eq!(p.a.qp_state(p.qa), Some(QpState::Rts));
    assert_eq!(
        statuses(&p.completions_a()),
        [(0, WcStatus::Success), (1, WcStatus::Success)]
    );
    assert_eq!(read_b(&p, DST, 5000), data);
}

#[test]
fn mr_sem_34_invalid_read_response_fails_the_read() {
    let mut p = Pair::new();
    let data = pattern(10_000, 11);
    p.b.memory_mut().write(DST, &data);
    let kb = p.b.register_mr(DST, 1 << 20, Access::REMOTE_READ).unwrap();
    let ka = p.a.register_mr(SRC, 1 << 20, Access::LOCAL_WRITE).unwrap();
    let now = p.now;
    p.a.post_send(
        now,
        p.qa,
        write_wr(9, SendOp::Read, ka.lkey, 10_000, kb.rkey),
    )
    .unwrap();
    let mut bad = false;
    p.run_for(2_000_000, &mut |d, _, fr| {
        if d == Dir::BtoA && is_data(fr) && !bad {
            bad = true;
            // The response claims another total length than the READ asked for (MR-SEM-16).
            return Act::Replace(rewrite(fr, |_, m, _| {
                if let TypeRepr::Data(dd) = &mut m.ty {
                    dd.msg_len += 1;
                }
            }));
        }
        Act::Pass
    });
    assert!(bad);
    assert_eq!(
        statuses(&p.completions_a()),
        [(9, WcStatus::RemoteOperation)]
    );
    assert_eq!(qp_error(&p.ev_a), Some(WcStatus::RemoteOperation));
    assert_eq!(p.a.qp_state(p.qa), Some(QpState::Error));
}

#[test]
fn mr_sem_34_read_into_a_deregistered_buffer_fails_local_protection() {
    let mut p = Pair::new();
    let data = pattern(10_000, 12);
    p.b.memory_mut().write(DST, &data);
    let kb = p.b.register_mr(DST, 1 << 20, Access::REMOTE_READ).unwrap();
    let ka = p.a.register_mr(SRC, 1 << 20, Access::LOCAL_WRITE).unwrap();
    let now = p.now;
    p.a.post_send(
        now,
        p.qa,
        write_wr(9, SendOp::Read, ka.lkey, 10_000, kb.rkey),
    )
    .unwrap();
    p.a.deregister_mr(ka.lkey).unwrap();
    p.run_for(2_000_000, &mut pass);
    assert_eq!(
        statuses(&p.completions_a()),
        [(9, WcStatus::LocalProtection)]
    );
    assert_eq!(p.a.memory().write_count(), 0, "nothing placed");
    assert_eq!(p.a.qp_state(p.qa), Some(QpState::Error));
}

#[test]
fn mr_sem_31_write_source_deregistered_before_transmission() {
    let mut p = Pair::new();
    let data = pattern(3 * 4096, 13);
    let (lk, rk) = setup_write(&mut p, &data, Access::REMOTE_WRITE);
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Write, lk, 3 * 4096, rk))
        .unwrap();
    p.a.post_send(now, p.qa, write_wr(2, SendOp::Write, lk, 10, rk))
        .unwrap();
    p.a.deregister_mr(lk).unwrap();
    p.run_for(2_000_000, &mut pass);
    assert_eq!(p.a.stats().tx_data_packets, 0, "a deregistered MR was read");
    assert_eq!(p.b.memory().write_count(), 0);
    assert_eq!(
        statuses(&p.completions_a()),
        [(1, WcStatus::LocalProtection), (2, WcStatus::Flushed)]
    );
    assert_eq!(qp_error(&p.ev_a), Some(WcStatus::LocalProtection));
}

#[test]
fn mr_sem_7_write_source_deregistered_before_retransmission() {
    let mut p = Pair::new();
    let data = pattern(3 * 4096, 14);
    let (lk, rk) = setup_write(&mut p, &data, Access::REMOTE_WRITE);
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Write, lk, 3 * 4096, rk))
        .unwrap();
    let mut dropped = false;
    // The three packets leave at once; the second is lost. Stop before its loss is detected.
    p.run_for(1_500, &mut |d, _, fr| {
        if d == Dir::AtoB && is_data(fr) && kind(fr).1 != 0 && !dropped {
            dropped = true;
            return Act::Drop;
        }
        Act::Pass
    });
    let _ = dropped;
    assert_eq!(p.a.stats().tx_data_packets, 3);
    p.a.deregister_mr(lk).unwrap();
    p.run_for(5_000_000, &mut pass);
    assert_eq!(
        p.a.stats().tx_data_packets,
        3,
        "the retransmission read a deregistered MR"
    );
    assert_eq!(
        statuses(&p.completions_a()),
        [(1, WcStatus::LocalProtection)]
    );
    assert_eq!(qp_error(&p.ev_a), Some(WcStatus::LocalProtection));
}

#[test]
fn mr_sem_14_read_response_source_rechecked_before_retransmission() {
    let mut p = Pair::new();
    let data = pattern(3 * 4096, 15);
    p.b.memory_mut().write(DST, &data);
    let kb = p.b.register_mr(DST, 1 << 20, Access::REMOTE_READ).unwrap();
    let ka = p.a.register_mr(SRC, 1 << 20, Access::LOCAL_WRITE).unwrap();
    let now = p.now;
    p.a.post_send(
        now,
        p.qa,
        write_wr(9, SendOp::Read, ka.lkey, 3 * 4096, kb.rkey),
    )
    .unwrap();
    let mut resp = 0;
    // READ_REQ reaches B after 1 µs; B's three responses leave at once; the second is lost.
    p.run_for(2_500, &mut |d, _, fr| {
        if d == Dir::BtoA && is_data(fr) {
            resp += 1;
            if resp == 2 {
                return Act::Drop;
            }
        }
        Act::Pass
    });
    assert_eq!(p.b.stats().tx_data_packets, 3);
    p.b.deregister_mr(kb.lkey).unwrap();
    p.run_for(5_000_000, &mut pass);
    assert_eq!(
        p.b.stats().tx_data_packets,
        3,
        "a READ response was re-read from a deregistered MR"
    );
    assert_eq!(qp_error(&p.ev_b), Some(WcStatus::LocalProtection));
    assert_eq!(p.b.qp_state(p.qb), Some(QpState::Error));
    assert!(!p
        .completions_a()
        .iter()
        .any(|c| c.status == WcStatus::Success));
}

#[test]
fn mr_rel_35_trim_nack_with_a_stale_echo_ts_is_ignored() {
    let len = 5 * 4096;
    let mut p = Pair::new();
    let data = pattern(len, 2);
    let (lk, rk) = setup_write(&mut p, &data, Access::REMOTE_WRITE);
    warm_up(&mut p, lk, rk);
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Write, lk, len as u32, rk))
        .unwrap();
    let mut trimmed = false;
    let mut nacks = 0;
    p.run_for(5_000_000, &mut |d, _, fr| {
        if d == Dir::AtoB && is_data(fr) && !trimmed {
            trimmed = true;
            return Act::Replace(trim(fr));
        }
        if d == Dir::BtoA && kind(fr).2 == Some(NackCode::Trimmed) {
            nacks += 1;
            // The NACK echoes a TS that is not the latest transmission's: it refers to an older copy.
            return Act::Replace(rewrite(fr, |_, m, _| {
                if let TypeRepr::Nack(n) = &mut m.ty {
                    n.echo_ts = n.echo_ts.wrapping_sub(1);
                }
            }));
        }
        Act::Pass
    });
    assert_eq!(nacks, 1);
    assert_eq!(
        p.a.stats().retransmits.trim,
        0,
        "stale TRIMMED NACK acted on"
    );
    assert_eq!(p.a.stats().drops.stale_nack, 1);
    assert_eq!(read_b(&p, DST, len), data);
    assert_eq!(
        statuses(&p.completions_a()),
        [(0, WcStatus::Success), (1, WcStatus::Success)]
    );
}

#[test]
fn mr_rel_34_trim_nack_for_a_psn_not_outstanding_is_ignored() {
    let len = 2 * 4096;
    let mut p = Pair::new();
    let data = pattern(len, 6);
    let (lk, rk) = setup_write(&mut p, &data, Access::REMOTE_WRITE);
    warm_up(&mut p, lk, rk);
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Write, lk, len as u32, rk))
        .unwrap();
    let mut forged = false;
    p.run_for(5_000_000, &mut |d, _, fr| {
        if d == Dir::BtoA && kind(fr).2 == Some(NackCode::Trimmed) {
            forged = true;
        }
        if d == Dir::BtoA && kind(fr).0 == PacketType::Ack && !forged {
            forged = true;
            // A TRIMMED NACK for a PSN far beyond anything sent.
            return Act::Replace(rewrite(fr, |_, m, _| {
                let TypeRepr::Ack(a) = m.ty else {
                    panic!("not an ACK")
                };
                m.mbh.ptype = PacketType::Nack;
                m.mbh.psn = m.mbh.psn.wrapping_add(1000);
                m.ty = TypeRepr::Nack(NackRepr {
                    scid: a.scid,
                    code: NackCode::Trimmed,
                    echo_ts: a.echo_ts,
                    aux: 0,
                });
            }));
        }
        Act::Pass
    });
    assert!(forged);
    assert_eq!(p.a.stats().retransmits.trim, 0);
    assert_eq!(p.a.stats().drops.stale_nack, 1);
    assert_eq!(read_b(&p, DST, len), data);
}

fn fatal_nack_case(edit: impl Fn(&mut NackRepr), expect: WcStatus) -> Pair {
    let mut p = Pair::new();
    let (lk, rk) = setup_write(&mut p, &pattern(100, 4), Access::REMOTE_WRITE);
    let now = p.now;
    // WR 1 carries a wrong R_Key; WR 2 is valid and queued behind it.
    p.a.post_send(
        now,
        p.qa,
        write_wr(1, SendOp::Write, lk, 100, rk.wrapping_add(1)),
    )
    .unwrap();
    let mut wr2 = write_wr(2, SendOp::Write, lk, 10, rk);
    wr2.remote_addr = DST + 0x8_0000;
    p.a.post_send(now, p.qa, wr2).unwrap();
    let mut first = true;
    p.run_for(5_000_000, &mut |d, _, fr| {
        if d == Dir::BtoA && kind(fr).2 == Some(NackCode::Access) {
            let only_first = first;
            first = false;
            return Act::Replace(rewrite(fr, |_, m, _| {
                if let TypeRepr::Nack(n) = &mut m.ty {
                    if only_first {
                        edit(n);
                    }
                }
            }));
        }
        Act::Pass
    });
    assert_eq!(
        statuses(&p.completions_a()),
        [(1, expect), (2, WcStatus::Flushed)]
    );
    assert_eq!(p.a.qp_state(p.qa), Some(QpState::Error));
    p
}

#[test]
fn mr_sem_35_unsupported_nack_completes_remote_invalid_request() {
    fatal_nack_case(
        |n| n.code = NackCode::Unsupported,
        WcStatus::RemoteInvalidRequest,
    );
}

#[test]
fn mr_sem_35_fatal_nack_naming_no_started_message_is_ignored() {
    // The first ACCESS NACK names MSN 100 (no such message): ignored; B repeats the NACK for the retransmission
    // (MR-SEM-36) with the right MSN, which then fails WR 1.
    let p = fatal_nack_case(|n| n.aux = n.aux.wrapping_add(100), WcStatus::RemoteAccess);
    assert_eq!(p.a.stats().drops.stale_nack, 1);
}

#[test]
fn mr_rel_17_ce_marked_ctrl_open_sets_the_acks_ece() {
    let mut p = Pair::new();
    let (lk, rk) = setup_write(&mut p, &pattern(100, 8), Access::REMOTE_WRITE);
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Write, lk, 100, rk))
        .unwrap();
    let mut open_ts = None;
    let mut answer = None;
    p.run_for(2_000_000, &mut |d, _, fr| {
        let pf = parse_frame(fr, 4792, 10, true).expect("parse");
        match (d, pf.m.ty) {
            (Dir::BtoA, TypeRepr::Ctrl(c)) if c.code == CtrlCode::Open => {
                open_ts = Some(pf.m.mbh.ts);
                // A switch marks the CTRL OPEN CE (the ICV does not cover ECN).
                return Act::Replace(rewrite(fr, |l, _, _| {
                    if let IpRepr::V4 { ecn, .. } = &mut l.ip {
                        *ecn = 0b11;
                    }
                }));
            }
            (Dir::AtoB, TypeRepr::Ack(a)) if Some(a.echo_ts) == open_ts && answer.is_none() => {
                answer = Some(a);
            }
            _ => {}
        }
        Act::Pass
    });
    assert!(open_ts.is_some(), "no CTRL OPEN seen");
    let a = answer.expect("no ACK answered the CTRL OPEN");
    assert!(a.flags.contains(AckFlags::ECE), "ECE not set: {a:?}");
    assert_eq!(a.sack_base, p_cack_of(&a));
}

/// The CACK an ACK carries is not in the AH; for a CTRL trigger sack_base must equal it, which the bitmap shows
/// as bit 0 clear and every bit clear (nothing beyond CACK is outstanding here).
fn p_cack_of(a: &AckRepr) -> u32 {
    assert!(a.sack.0.iter().all(|&b| b == 0));
    a.sack_base
}

#[test]
fn mr_wire_42_retry_limits_out_of_range_are_replaced_or_rejected() {
    let c = EndpointConfig {
        retry_limit: 9,
        rnr_retry: 200,
        ..cfg(MAC_A, IP_A)
    };
    let e = Endpoint::new(c.clone(), SparseMemory::new());
    assert_eq!(e.config().retry_limit, 7);
    assert_eq!(e.config().rnr_retry, 7);
    assert_eq!(
        Endpoint::try_new(c, SparseMemory::new()).err(),
        Some(ConfigError {
            field: "retry_limit"
        })
    );
    let c = EndpointConfig {
        retry_limit: 0,
        rnr_retry: 0,
        ..cfg(MAC_A, IP_A)
    };
    let e = Endpoint::new(c, SparseMemory::new());
    assert_eq!((e.config().retry_limit, e.config().rnr_retry), (0, 0));
}

#[test]
fn mr_enc_41_one_drop_counter_per_parse_error() {
    use metaroce_proto::wire::{Error as E, Ipv4Packet};
    let mut p = Pair::new();
    let (lk, rk) = setup_write(&mut p, &pattern(200, 1), Access::REMOTE_WRITE);
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Write, lk, 200, rk))
        .unwrap();
    let mut good = Vec::new();
    assert!(p.a.poll_transmit(now, &mut good));
    assert!(is_data(&good));
    let fix_ip = |v: &mut Vec<u8>| {
        let mut ip = Ipv4Packet::new_unchecked(&mut v[14..34]);
        ip.fill_checksum();
    };
    let mut frames: Vec<Vec<u8>> = Vec::new();
    let mut f = good.clone();
    f[42] = 0x21; // MBH version 2
    frames.push(f);
    let mut f = good.clone();
    f[42] = 0x17; // reserved type 7
    frames.push(f);
    let mut f = good.clone();
    f[24] ^= 0xFF; // IPv4 header checksum
    frames.push(f);
    frames.push(good[..50].to_vec()); // cut inside the MBH
    let mut f = good.clone();
    f[36] ^= 0x01; // another UDP destination port
    frames.push(f);
    let mut f = good.clone();
    f[20] |= 0x20; // IPv4 MF: a fragment
    fix_ip(&mut f);
    frames.push(f);
    let mut f = good.clone();
    f[38] = f[38].wrapping_add(1); // UDP length differs from the IP-derived length
    frames.push(f);
    let counter = |d: &Drops, e: E| -> u64 {
        match e {
            E::Truncated => d.truncated,
            E::BadVersion => d.bad_version,
            E::BadType => d.bad_type,
            E::BadLength => d.bad_length,
            E::BadChecksum => d.bad_ip_checksum,
            E::Unsupported => d.unsupported,
            E::Malformed => d.malformed,
            E::NotOurs => d.not_ours,
            E::BadTrim => d.bad_trim,
        }
    };
    let mut seen = Vec::new();
    for f in &frames {
        let Err(e) = parse_frame(f, 4792, 10, true) else {
            panic!("frame must not parse")
        };
        let before = *p.b.stats();
        p.b.handle_frame(p.now, f);
        let after = *p.b.stats();
        assert_eq!(
            counter(&after.drops, e),
            counter(&before.drops, e) + 1,
            "{e:?}"
        );
        // Exactly one per-reason counter moved (the aggregate bad_version_or_type aside).
        let all = |d: &Drops| {
            d.truncated
                + d.bad_version
                + d.bad_type
                + d.bad_length
                + d.bad_ip_checksum
                + d.unsupported
                + d.malformed
                + d.not_ours
                + d.bad_trim
                + d.bad_icv
                + d.not_for_us
                + d.unknown_connection
        };
        assert_eq!(all(&after.drops), all(&before.drops) + 1, "{e:?}");
        seen.push(e);
    }
    seen.sort_by_key(|e| *e as u8);
    seen.dedup();
    assert!(
        seen.len() >= 6,
        "too few distinct reasons exercised: {seen:?}"
    );
}

fn mtu_pair(mtu_a: u32, mtu_b: u32) -> Pair {
    Pair::with(
        EndpointConfig {
            mtu: mtu_a,
            ..cfg(MAC_A, IP_A)
        },
        EndpointConfig {
            mtu: mtu_b,
            ..cfg(MAC_B, IP_B)
        },
    )
}

/// Runs one WRITE of `len` bytes to completion and returns the payload sizes of its transmissions. Runs for
/// less than `idle_close_ns`, so that the connection (and what it learnt of the peer) stays open.
fn write_sizes(p: &mut Pair, id: u64, lk: u32, rk: u32, len: u32) -> Vec<u16> {
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(id, SendOp::Write, lk, len, rk))
        .unwrap();
    let mut sizes = Vec::new();
    p.run_for(200_000, &mut |d, _, fr| {
        if d == Dir::AtoB && is_data(fr) {
            let pf = parse_frame(fr, 4792, 10, true).expect("parse");
            sizes.push(pf.m.mbh.payload_len);
        }
        Act::Pass
    });
    sizes
}

#[test]
fn mr_wire_30_segment_size_capped_before_the_peers_open_then_negotiated() {
    let len = 20_000u32;
    let mut p = mtu_pair(8192, 8192);
    let data = pattern(len as usize, 9);
    let (lk, rk) = setup_write(&mut p, &data, Access::REMOTE_WRITE);
    // Before B's Open extension has arrived: min(8192, 4096).
    assert_eq!(
        write_sizes(&mut p, 1, lk, rk, len),
        [4096, 4096, 4096, 4096, 3616]
    );
    // Afterwards: 2^min(13, 13).
    assert_eq!(write_sizes(&mut p, 2, lk, rk, len), [8192, 8192, 3616]);
    assert_eq!(read_b(&p, DST, len as usize), data);
    assert_eq!(
        statuses(&p.completions_a()),
        [(1, WcStatus::Success), (2, WcStatus::Success)]
    );
}

#[test]
fn mr_sem_10_segment_size_follows_the_smaller_peer_mtu() {
    let mut p = mtu_pair(8192, 1024);
    let data = pattern(5000, 10);
    let (lk, rk) = setup_write(&mut p, &data, Access::REMOTE_WRITE);
    assert_eq!(write_sizes(&mut p, 1, lk, rk, 1), [1]);
    assert_eq!(
        write_sizes(&mut p, 2, lk, rk, 5000),
        [1024, 1024, 1024, 1024, 904]
    );
    assert_eq!(read_b(&p, DST, 5000), data);
    assert_eq!(
        statuses(&p.completions_a()),
        [(1, WcStatus::Success), (2, WcStatus::Success)]
    );
}

#[test]
fn mr_wire_31_first_flight_at_the_baseline_is_accepted_below_the_receivers_mtu() {
    // A's first flight uses min(4096, own) before B's Open extension is known; B advertises only 1024 but
    // every receiver accepts the 4096-byte domain baseline.
    let mut p = mtu_pair(4096, 1024);
    let data = pattern(4096, 12);
    let (lk, rk) = setup_write(&mut p, &data, Access::REMOTE_WRITE);
    assert_eq!(write_sizes(&mut p, 1, lk, rk, 4096), [4096]);
    assert_eq!(read_b(&p, DST, 4096), data);
    assert_eq!(statuses(&p.completions_a()), [(1, WcStatus::Success)]);
}

#[test]
fn mr_wire_31_payload_above_baseline_and_receivers_mtu_is_nacked_invalid() {
    // A frame whose payload exceeds both the baseline and B's MTU (here 8192 > max(1024, 4096)): NACK INVALID,
    // nothing written, the WR fails.
    let mut p = mtu_pair(4096, 1024);
    let data = pattern(4096, 13);
    let (lk, rk) = setup_write(&mut p, &data, Access::REMOTE_WRITE);
    let now = p.now;
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Write, lk, 4096, rk))
        .unwrap();
    let mut invalid = 0;
    let mut grown = false;
    p.run_for(5_000_000, &mut |d, _, fr| {
        if d == Dir::AtoB && is_data(fr) && !grown {
            grown = true;
            let pf = parse_frame(fr, 4792, 10, true).expect("parse");
            let mut m = pf.m;
            if let TypeRepr::Data(ref mut dr) = m.ty {
                dr.msg_len = 8192;
            }
            let payload = vec![0x5Au8; 8192];
            let mut out = Vec::new();
            emit_frame(&pf.l, &m, &payload, &mut out).expect("emit");
            return Act::Replace(out);
        }
        if d == Dir::BtoA && kind(fr).2 == Some(NackCode::Invalid) {
            invalid += 1;
        }
        Act::Pass
    });
    assert!(grown);
    assert!(invalid >= 1);
    assert_eq!(p.b.memory().write_count(), 0);
    assert_eq!(
        statuses(&p.completions_a()),
        [(1, WcStatus::RemoteInvalidRequest)]
    );
}

/// MR-REL-19: an ACK that becomes due on one QP goes out before the DATA another QP of the same endpoint has
/// waiting (acknowledgements are never queued behind other connections' data).
#[test]
fn mr_rel_19_acks_before_any_qps_data() {
    let mut p = Pair::new();
    let (lkey, rkey) = setup_write(&mut p, &pattern(512, 3), Access::REMOTE_WRITE);
    // A second QP pair; B has a 64 KiB WRITE to send on it.
    let qa2 = p.a.create_qp(8, 8).unwrap();
    let qb2 = p.b.create_qp(8, 8).unwrap();
    p.a.connect_qp(
        qa2,
        RemoteQp {
            mac: MAC_B,
            ip: IP_B,
            qpn: qb2,
        },
    )
    .unwrap();
    p.b.connect_qp(
        qb2,
        RemoteQp {
            mac: MAC_A,
            ip: IP_A,
            qpn: qa2,
        },
    )
    .unwrap();
    let kb = p.b.register_mr(SRC, 1 << 20, Access::LOCAL_WRITE).unwrap();
    let ka =
        p.a.register_mr(DST, 1 << 20, Access::REMOTE_WRITE | Access::LOCAL_WRITE)
            .unwrap();
    let now = p.now;
    p.b.post_send(
        now,
        qb2,
        write_wr(9, SendOp::Write, kb.lkey, 65536, ka.rkey),
    )
    .unwrap();
    // A's one-packet WRITE reaches B after B's data is queued.
    p.a.post_send(now, p.qa, write_wr(1, SendOp::Write, lkey, 512, rkey))
        .unwrap();
    let mut frame = Vec::new();
    assert!(p.a.poll_transmit(now, &mut frame));
    assert_eq!(kind(&frame).0, PacketType::Data);
    p.b.handle_frame(now + 1, &frame);
    let first =
        p.b.poll_transmit_plan(now + 1)
            .expect("B has frames to send");
    match first.headers {
        PlanHeaders::MetaRoce(m) => assert_eq!(m.mbh.ptype, PacketType::Ack, "first frame: {m:?}"),
        PlanHeaders::RoceV2(r) => panic!("unexpected RoCEv2 frame {r:?}"),
    }
    // Then the CTRL OPEN B owes A, then B's data (not starved).
    let mut types = Vec::new();
    while let Some(plan) = p.b.poll_transmit_plan(now + 1) {
        if let PlanHeaders::MetaRoce(m) = plan.headers {
            types.push(m.mbh.ptype);
        }
        if types.len() == 4 {
            break;
        }
    }
    let data_at = types.iter().position(|t| *t == PacketType::Data);
    assert!(data_at.is_some(), "B's data never left: {types:?}");
    assert!(
        types[..data_at.unwrap_or(0)]
            .iter()
            .all(|t| *t != PacketType::Data),
        "{types:?}"
    );
}

/// MR-SEM-11: with `max_outstanding_msgs` started messages unfinished, a further posted request waits; the
/// endpoint then has nothing to send and says so (a QP that reported a frame used to be polled forever).
#[test]
fn mr_sem_11_a_request_beyond_the_message_limit_waits_and_polling_ends() {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut ca = cfg(MAC_A, IP_A);
        ca.max_outstanding_msgs = 2;
        let mut p = Pair::with(ca, cfg(MAC_B, IP_B));
        let (lk, rk) = setup_write(&mut p, &pattern(64, 1), Access::REMOTE_WRITE);
        for id in 0..3 {
            p.a.post_send(p.now, p.qa, write_wr(id, SendOp::Write, lk, 64, rk))
                .unwrap();
        }
        // Nothing reaches B: two messages go out, the third waits for one of them to finish.
        let mut buf = Vec::new();
        let mut data = 0;
        while p.a.poll_transmit(p.now, &mut buf) {
            data += usize::from(is_data(&buf));
            assert!(data <= 8, "more frames than the two started messages have");
        }
        tx.send(data).unwrap();
    });
    let data = rx.recv_timeout(std::time::Duration::from_secs(20)).expect(
        "poll_transmit did not return: the endpoint kept offering a frame it could not send",
    );
    assert_eq!(data, 2, "DATA packets of the two started messages");
}
