//! Segmentation (rust-hdl simulator) against the reference model's packet plans (spec 3.3-3.6,
//! MR-WIRE-30, MR-REL-3/46): a model endpoint posts random WRITE / WRITE_IMM / SEND / SEND_IMM / READ work
//! requests of random lengths at random addresses with a random MTU; every DATA plan it produces (first
//! flight, SYN phase) is rebuilt by the `Segment` block from the message and the PSN alone and compared field
//! by field. Seed: `TX_SEGMENT_SEED` (printed).

use metaroce_hdl::records::PktMeta;
use metaroce_hdl::tx::records::{ConnPeer, ConnTx, MsgEntry};
use metaroce_hdl::tx::segment::Segment;
use metaroce_proto::transport::verbs::{RemoteQp, SendOp, SendWr, Sge};
use metaroce_proto::transport::{CcKind, Endpoint, EndpointConfig, PlanHeaders, SparseMemory};
use metaroce_proto::wire::{MbhFlags, Opcode};
use rust_hdl::prelude::*;
use std::net::{IpAddr, Ipv4Addr};

mod support;
use support::Rng;

fn tick(u: &mut Segment) {
    assert!(simulate(u, 100));
    u.clk.next = true.into();
    assert!(simulate(u, 100));
    u.clk.next = false.into();
    assert!(simulate(u, 100));
}

fn b<const N: usize>(v: u64) -> Bits<N> {
    Bits::<N>::from(v)
}

#[test]
fn mr_wire_30_segment_matches_the_model_plans() {
    let seed = std::env::var("TX_SEGMENT_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5E6_2026u64);
    println!("TX_SEGMENT_SEED={seed}");
    let mut rng = Rng(seed);
    let mut uut = Segment::new();
    uut.connect_all();
    let mut checked = 0u32;
    for round in 0..12 {
        let mtu = 512u32 << rng.below(4);
        let mut cfg =
            EndpointConfig::metaroce([2, 0, 0, 0, 0, 1], IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)));
        cfg.mtu = mtu;
        cfg.cc = CcKind::None;
        let dscp = cfg.dscp_data;
        let wlog = cfg.window_log2;
        let mut ep = Endpoint::new(cfg, SparseMemory::default());
        let base = 0x1000_0000u64 + rng.below(1 << 20);
        let mr = ep
            .register_mr(
                0x1000_0000,
                1 << 24,
                metaroce_proto::transport::verbs::Access::LOCAL_WRITE,
            )
            .expect("mr");
        let qpn = ep.create_qp(64, 16).expect("qp");
        ep.connect_qp(
            qpn,
            RemoteQp {
                mac: [2, 0, 0, 0, 0, 2],
                ip: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)),
                qpn: 7,
            },
        )
        .expect("connect");
        // Post a few messages; remember what the model assigns (MSN and SSN in order).
        let mut msgs = Vec::new();
        let mut ssn = 0u32;
        for msn in 0..3u32 {
            let (op, code) = match rng.below(5) {
                0 => (SendOp::Write, Opcode::Write),
                1 => (SendOp::WriteImm(rng.next() as u32), Opcode::WriteImm),
                2 => (SendOp::Send, Opcode::Send),
                3 => (SendOp::SendImm(rng.next() as u32), Opcode::SendImm),
                _ => (SendOp::Read, Opcode::ReadReq),
            };
            let len = rng.below(3 * mtu as u64 + 2) as u32;
            let is_send = matches!(code, Opcode::Send | Opcode::SendImm);
            let wr = SendWr {
                wr_id: msn as u64,
                op,
                local: Sge {
                    addr: base + rng.below(4096),
                    len,
                    lkey: mr.lkey,
                },
                remote_addr: if is_send { 0 } else { rng.next() },
                rkey: if is_send { 0 } else { rng.next() as u32 },
                solicited: is_send && rng.below(2) == 1,
            };
            ep.post_send(1000, qpn, wr).expect("post");
            let imm = match op {
                SendOp::WriteImm(i) | SendOp::SendImm(i) => i,
                _ => 0,
            };
            let my_ssn = ssn;
            if matches!(code, Opcode::Send | Opcode::SendImm | Opcode::WriteImm) {
                ssn += 1;
            }
            msgs.push((wr, code, imm, msn, my_ssn));
        }
        let mut first_psn: Vec<Option<u32>> = vec![None; msgs.len()];
        let mut now = 1000u64;
        for _ in 0..64 {
            now += 1 + rng.below(3000);
            let Some(plan) = ep.poll_transmit_plan(now) else {
                break;
            };
            let PlanHeaders::MetaRoce(m) = plan.headers else {
                panic!("not MetaRoCE")
            };
            let metaroce_proto::wire::packet::TypeRepr::Data(d) = m.ty else {
                continue;
            };
            let i = d.msn as usize;
            let (wr, code, imm, msn, my_ssn) = msgs[i];
            let fp = *first_psn[i].get_or_insert(m.mbh.psn);
            let open = m.open.expect("first flight carries the Open extension");
            let seg_log = mtu.min(4096).trailing_zeros() as u64;
            let msg = MsgEntry {
                opcode: b(code as u64),
                solicited: wr.solicited,
                imm: b(imm as u64),
                wr_id: b(wr.wr_id),
                local_addr: b(wr.local.addr),
                len: b(wr.local.len as u64),
                remote_addr: b(wr.remote_addr),
                rkey: b(wr.rkey as u64),
                started: true,
                msn: b(msn as u64),
                ssn: b(my_ssn as u64),
                first_psn: b(fp as u64),
                seg_log: b(seg_log),
                ..Default::default()
            };
            let cs = ConnTx {
                syn: m.mbh.flags.contains(MbhFlags::SYN),
                peer_cid: b(m.mbh.dcid as u64),
                isn: b(open.isn as u64),
                own_wlog: b((wlog - 8) as u64),
                ..Default::default()
            };
            let peer = ConnPeer {
                cid: b(open.scid as u64),
                remote_qpn: b(open.target_qpn as u64),
                peer_mac: b(0x0200_0000_0002),
                ..Default::default()
            };
            uut.msg.next = msg;
            uut.cs.next = cs;
            uut.peer.next = peer;
            uut.conn.next = b(round as u64);
            uut.psn.next = b(m.mbh.psn as u64);
            uut.rtx.next = m.mbh.flags.contains(MbhFlags::RTX);
            uut.now.next = b(now);
            uut.cfg_dscp_data.next = b(dscp as u64);
            uut.cfg_mtu_log.next = b(open.mtu_log as u64);
            for _ in 0..3 {
                tick(&mut uut);
            }
            let got: PktMeta = uut.meta.val();
            let ctx = format!("round {round} msg {i} psn {} plan {plan:?}", m.mbh.psn);
            assert_eq!(got.ptype, b(m.mbh.ptype as u64), "{ctx}");
            assert_eq!(
                got.mbh_flags,
                b(m.mbh.flags.bits() as u64),
                "mbh flags {ctx}"
            );
            assert_eq!(
                got.payload_len,
                b(plan.payload_len as u64),
                "payload_len {ctx}"
            );
            assert_eq!(uut.pay_len.val(), b(plan.payload_len as u64), "{ctx}");
            assert_eq!(uut.charged.val(), b(plan.payload_len as u64 + 64), "{ctx}");
            assert_eq!(got.dcid, b(m.mbh.dcid as u64), "{ctx}");
            assert_eq!(got.psn, b(m.mbh.psn as u64), "{ctx}");
            assert_eq!(got.ts, b(m.mbh.ts as u64), "ts {ctx}");
            assert_eq!(got.opcode, b(d.opcode as u64), "{ctx}");
            assert_eq!(got.dflags, b(d.flags.bits() as u64), "dflags {ctx}");
            assert_eq!(got.msn, b(d.msn as u64), "{ctx}");
            assert_eq!(got.addr, b(d.addr), "addr {ctx}");
            assert_eq!(got.key, b(d.key as u64), "key {ctx}");
            assert_eq!(got.msg_len, b(d.msg_len as u64), "{ctx}");
            assert_eq!(got.imm, b(d.imm.unwrap_or(0) as u64), "imm {ctx}");
            assert_eq!(got.local_addr, b(plan.payload_addr), "local_addr {ctx}");
            assert_eq!(got.ox, m.open.is_some(), "{ctx}");
            assert_eq!(got.ox_scid, b(open.scid as u64), "{ctx}");
            assert_eq!(got.wlog, b(open.wlog as u64), "{ctx}");
            assert_eq!(got.isn, b(open.isn as u64), "{ctx}");
            assert_eq!(got.target_qpn, b(open.target_qpn as u64), "{ctx}");
            assert_eq!(got.mtu_log, b(open.mtu_log as u64), "{ctx}");
            assert_eq!(got.dscp, b(dscp as u64), "{ctx}");
            assert_eq!(
                got.ecn,
                b(metaroce_proto::transport::metaroce::ECT0 as u64),
                "{ctx}"
            );
            assert_eq!(got.conn, b(round as u64), "{ctx}");
            let last = d.flags.contains(metaroce_proto::wire::DataFlags::LAST);
            assert_eq!(uut.last.val(), last, "{ctx}");
            checked += 1;
        }
    }
    println!("{checked} packets checked");
    assert!(checked >= 30, "too few packets compared: {checked}");
}
