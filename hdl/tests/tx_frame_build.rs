//! The frame builder against `metaroce_proto::wire::emit_frame` (spec section 3, MR-ENC-*, MR-WIRE-ICV): every
//! frame the block emits is byte-identical to the frame proto builds from the same fields (DATA with and
//! without immediate and payload, ACK with a SACK bitmap, NACK, CTRL, Open extension, IPv4/IPv6, VLAN), with
//! random idle cycles on the inputs and random back-pressure on the output. Seed: `HDL_SEED` (printed),
//! packet count: `HDL_ITERS`.

// PktMeta has 41 fields; the tests set the few a packet type uses on a default record.
#![allow(clippy::field_reassign_with_default)]

use metaroce_hdl::common::netlist::{words_from_bytes, Net, ToWords};
use metaroce_hdl::records::PktMeta;
use metaroce_hdl::tx::frame_build::FrameBuild;
use metaroce_proto::wire::{emit_frame, IpRepr, MetaRoceRepr, TypeRepr, L2L3};
use rust_hdl::prelude::Bits;

mod support;
use support::frames::{random_packet, Dir, IP4, IP6, MAC, PORT, TTL};
use support::{b, be, iters, seed, write_trace, Rng};

/// The header record the transmit path hands the builder for this packet.
fn meta_of(l: &L2L3, m: &MetaRoceRepr) -> PktMeta {
    let mut p = PktMeta::default();
    p.peer_mac = b(be(&l.eth_dst));
    match l.ip {
        IpRepr::V4 { dst, dscp, ecn, .. } => {
            p.peer_ip = b(be(&dst));
            p.dscp = b(dscp as u128);
            p.ecn = b(ecn as u128);
        }
        IpRepr::V6 { dst, dscp, ecn, .. } => {
            p.peer_ip = b(be(&dst));
            p.ipv6 = true;
            p.dscp = b(dscp as u128);
            p.ecn = b(ecn as u128);
        }
    }
    p.vlan = l.vlan.is_some();
    p.tci = b(l.vlan.unwrap_or(0) as u128);
    p.ev = b((l.udp_src & 0x3FFF) as u128);
    p.ptype = b(m.mbh.ptype as u128);
    p.mbh_flags = b(m.mbh.flags.0 as u128);
    p.payload_len = b(m.mbh.payload_len as u128);
    p.dcid = b(m.mbh.dcid as u128);
    p.psn = b(m.mbh.psn as u128);
    p.ts = b(m.mbh.ts as u128);
    match &m.ty {
        TypeRepr::Data(d) => {
            p.opcode = b(d.opcode as u128);
            p.dflags = b(d.flags.0 as u128);
            p.msn = b(d.msn as u128);
            p.addr = b(d.addr as u128);
            p.key = b(d.key as u128);
            p.msg_len = b(d.msg_len as u128);
            p.imm = b(d.imm.unwrap_or(0) as u128);
        }
        TypeRepr::Ack(a) => {
            p.scid = b(a.scid as u128);
            p.aflags = b(a.flags.0 as u128);
            p.echo_ts = b(a.echo_ts as u128);
            p.sack_base = b(a.sack_base as u128);
            p.echo_ev = b(a.echo_ev as u128);
            p.ce_count = b(a.ce_count as u128);
            p.sack = Bits::<256>::from_words(&words_from_bytes(&a.sack.0, 256));
        }
        TypeRepr::Nack(x) => {
            p.scid = b(x.scid as u128);
            p.code = b(x.code as u128);
            p.echo_ts = b(x.echo_ts as u128);
            p.aux = b(x.aux as u128);
        }
        TypeRepr::Ctrl(x) => {
            p.scid = b(x.scid as u128);
            p.code = b(x.code as u128);
            p.echo_ts = b(x.echo_ts as u128);
            p.aux = b(x.aux as u128);
        }
    }
    if let Some(o) = &m.open {
        p.ox = true;
        p.ox_scid = b(o.scid as u128);
        p.wlog = b(o.wlog as u128);
        p.isn = b(o.isn as u128);
        p.target_qpn = b(o.target_qpn as u128);
        p.mtu_log = b(o.mtu_log as u128);
    }
    p
}

fn run(mut net: Net, kw: usize, r: &mut Rng, count: usize, stall: u64) {
    // HDL_TRACE_DIR: write the port trace of the run (ports.txt, trace.txt) for a replay against the Verilog.
    let trace_dir = std::env::var("HDL_TRACE_DIR").ok();
    let mut trace: Option<Vec<String>> = trace_dir.as_ref().map(|_| Vec::new());
    net.set_u64("rst", 1);
    net.tick();
    net.set_u64("rst", 0);
    net.set("cfg_mac", &[be(&MAC) as u64]);
    net.set("cfg_ipv4", &[be(&IP4) as u64]);
    let ip6 = be(&IP6);
    net.set("cfg_ipv6", &[ip6 as u64, (ip6 >> 64) as u64]);
    net.set_u64("cfg_udp_port", PORT as u64);
    net.set_u64("cfg_ttl", TTL as u64);
    let mut want: Vec<Vec<u8>> = Vec::new();
    let mut hdrs: Vec<Vec<u64>> = Vec::new();
    let mut pays: Vec<Vec<u8>> = Vec::new(); // payload beats
    for _ in 0..count {
        let (l, m, pay) = random_packet(r, 3 * kw, Dir::Sent);
        let mut f = Vec::new();
        emit_frame(&l, &m, &pay, &mut f).expect("emit");
        want.push(f);
        hdrs.push(meta_of(&l, &m).to_words());
        for c in pay.chunks(kw) {
            pays.push(c.to_vec());
        }
    }
    let (mut hi, mut pi) = (0, 0);
    let mut got: Vec<Vec<u8>> = Vec::new();
    let mut cur: Vec<u8> = Vec::new();
    let mut cycles = 0;
    let total_beats: usize = want.iter().map(|f| f.len().div_ceil(kw)).sum();
    while got.len() < want.len() {
        cycles += 1;
        assert!(
            cycles < 100 * total_beats + 1000,
            "stuck: {} of {} frames",
            got.len(),
            want.len()
        );
        let hv = hi < hdrs.len() && r.below(8) >= stall;
        net.set_u64("s_axis_hdr_tvalid", hv as u64);
        if hi < hdrs.len() {
            net.set("s_axis_hdr_tdata", &hdrs[hi]);
        }
        let pv = pi < pays.len() && r.below(8) >= stall;
        net.set_u64("s_axis_pay_tvalid", pv as u64);
        if pi < pays.len() {
            net.set("s_axis_pay_tdata", &words_from_bytes(&pays[pi], kw * 8));
        }
        let tr = r.below(8) >= stall;
        net.set_u64("m_axis_tx_tready", tr as u64);
        net.eval();
        if let Some(t) = trace.as_mut() {
            t.push(net.trace_line());
        }
        let h_go = hv && net.get_u64("s_axis_hdr_tready") == 1;
        let p_go = pv && net.get_u64("s_axis_pay_tready") == 1;
        if tr && net.get_u64("m_axis_tx_tvalid") == 1 {
            let d = net.get("m_axis_tx_tdata");
            let k = net.get("m_axis_tx_tkeep");
            for i in 0..kw {
                if k[i / 64] >> (i % 64) & 1 == 1 {
                    cur.push(metaroce_hdl::common::netlist::byte_of(&d, i));
                }
            }
            assert_eq!(net.get_u64("m_axis_tx_tuser"), 0);
            if net.get_u64("m_axis_tx_tlast") == 1 {
                got.push(std::mem::take(&mut cur));
            }
        }
        net.tick();
        hi += h_go as usize;
        pi += p_go as usize;
    }
    if let (Some(d), Some(t)) = (&trace_dir, &trace) {
        write_trace(&net, d, t);
    }
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.len(), w.len(), "frame {i} length");
        if g != w {
            let first = g.iter().zip(w).position(|(a, b)| a != b).unwrap();
            panic!(
                "frame {i} differs at byte {first}: got {:02x?} want {:02x?}",
                &g[first..(first + 8).min(g.len())],
                &w[first..(first + 8).min(w.len())]
            );
        }
    }
    if stall == 0 {
        println!("{count} frames, {total_beats} beats in {cycles} cycles");
    }
}

#[test]
fn frames_match_proto_emitter_512_with_backpressure() {
    let mut r = Rng(seed());
    run(FrameBuild::<512, 64>::build(), 64, &mut r, iters(120), 2);
}

#[test]
fn frames_match_proto_emitter_512_line_rate() {
    let mut r = Rng(seed());
    run(FrameBuild::<512, 64>::build(), 64, &mut r, iters(60), 0);
}

#[test]
fn frames_match_proto_emitter_1024() {
    let mut r = Rng(seed());
    run(FrameBuild::<1024, 128>::build(), 128, &mut r, iters(60), 2);
}
