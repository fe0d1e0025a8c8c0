//! The receive parser against `metaroce_proto::wire::parse_frame` and the model's receive entry point (spec
//! sections 2 and 3: MR-ENC-*, MR-WIRE-*, MR-WIRE-ICV, MR-ENC-39): frames built with proto's emitters (DATA with
//! and without SYN/immediate/payload, ACK, NACK, CTRL; IPv4/IPv6; VLAN; padding) and then damaged (random byte
//! flips with or without a fixed IPv4 checksum, trimming by DSCP or by length, truncation, other ethertype /
//! protocol / port, foreign destination, MAC errors). For every frame the meta record's drop code equals the
//! model's verdict, every field of an accepted record equals proto's parse, and the payload stream carries
//! exactly the payload bytes of the accepted DATA packets. Random idle input cycles and back-pressure.
//! Seed: `HDL_SEED` (printed); frame count: `HDL_ITERS`.

// PktMeta has 41 fields; the tests set the few a packet type uses on a default record.
#![allow(clippy::field_reassign_with_default)]

use metaroce_hdl::common::netlist::{byte_of, words_from_bytes, Net, ToWords};
use metaroce_hdl::records::PktMeta;
use metaroce_hdl::rx::drop;
use metaroce_hdl::rx::parser::Parser;
use metaroce_proto::wire::{
    emit_frame, parse_frame, Error, IpRepr, MbhFlags, PacketType, TypeRepr,
};
use rust_hdl::prelude::Bits;

mod support;
use support::frames::{random_packet, Dir, IP4, IP6, PORT, TRIM};
use support::{b, be, iters, seed, write_trace, Rng};

/// The model's verdict: the parse error's counter, else the ICV, else the destination address.
fn model_verdict(f: &[u8]) -> (u8, Option<PktMeta>, Vec<u8>) {
    let p = match parse_frame(f, PORT, TRIM, true) {
        Err(e) => {
            let c = match e {
                Error::Truncated => drop::TRUNCATED,
                Error::BadVersion => drop::BAD_VERSION,
                Error::BadType => drop::BAD_TYPE,
                Error::BadLength => drop::BAD_LENGTH,
                Error::BadChecksum => drop::BAD_IP_CHECKSUM,
                Error::Unsupported => drop::UNSUPPORTED,
                Error::Malformed => drop::MALFORMED,
                Error::NotOurs => drop::NOT_OURS,
                Error::BadTrim => drop::BAD_TRIM,
            };
            return (c, None, Vec::new());
        }
        Ok(p) => p,
    };
    if !p.trimmed && !p.icv_ok {
        return (drop::BAD_ICV, None, Vec::new());
    }
    let ours = match p.l.ip {
        IpRepr::V4 { dst, .. } => dst == IP4,
        IpRepr::V6 { dst, .. } => dst == IP6,
    };
    if !ours {
        return (drop::NOT_FOR_US, None, Vec::new());
    }
    let mut m = PktMeta::default();
    m.peer_mac = b(be(&p.l.eth_src));
    match p.l.ip {
        IpRepr::V4 { src, dscp, ecn, .. } => {
            m.peer_ip = b(be(&src));
            m.dscp = b(dscp as u128);
            m.ecn = b(ecn as u128);
        }
        IpRepr::V6 { src, dscp, ecn, .. } => {
            m.peer_ip = b(be(&src));
            m.ipv6 = true;
            m.dscp = b(dscp as u128);
            m.ecn = b(ecn as u128);
        }
    }
    m.vlan = p.l.vlan.is_some();
    m.tci = b(p.l.vlan.unwrap_or(0) as u128);
    m.ev = b((p.l.udp_src & 0x3FFF) as u128);
    let mb = p.m.mbh;
    m.ptype = b(mb.ptype as u128);
    m.mbh_flags = b(mb.flags.0 as u128);
    m.payload_len = b(mb.payload_len as u128);
    m.dcid = b(mb.dcid as u128);
    m.hlen = b(mb.hlen as u128);
    m.psn = b(mb.psn as u128);
    m.ts = b(mb.ts as u128);
    m.trimmed = p.trimmed;
    match &p.m.ty {
        TypeRepr::Data(d) => {
            m.opcode = b(d.opcode as u128);
            m.dflags = b(d.flags.0 as u128);
            m.msn = b(d.msn as u128);
            m.addr = b(d.addr as u128);
            m.key = b(d.key as u128);
            m.msg_len = b(d.msg_len as u128);
            m.imm = b(d.imm.unwrap_or(0) as u128);
        }
        TypeRepr::Ack(a) => {
            m.scid = b(a.scid as u128);
            m.aflags = b(a.flags.0 as u128);
            m.echo_ts = b(a.echo_ts as u128);
            m.sack_base = b(a.sack_base as u128);
            m.echo_ev = b(a.echo_ev as u128);
            m.ce_count = b(a.ce_count as u128);
            m.sack = Bits::<256>::from_words(&words_from_bytes(&a.sack.0, 256));
        }
        TypeRepr::Nack(x) => {
            m.scid = b(x.scid as u128);
            m.code = b(x.code as u128);
            m.echo_ts = b(x.echo_ts as u128);
            m.aux = b(x.aux as u128);
        }
        TypeRepr::Ctrl(x) => {
            m.scid = b(x.scid as u128);
            m.code = b(x.code as u128);
            m.echo_ts = b(x.echo_ts as u128);
            m.aux = b(x.aux as u128);
        }
    }
    if let Some(o) = &p.m.open {
        m.ox = true;
        m.ox_scid = b(o.scid as u128);
        m.wlog = b(o.wlog as u128);
        m.isn = b(o.isn as u128);
        m.target_qpn = b(o.target_qpn as u128);
        m.mtu_log = b(o.mtu_log as u128);
    }
    let pay = if !p.trimmed && mb.ptype == PacketType::Data {
        p.payload.to_vec()
    } else {
        Vec::new()
    };
    (0, Some(m), pay)
}

fn ip_off(f: &[u8]) -> usize {
    if f.len() >= 14 && f[12] == 0x81 && f[13] == 0x00 {
        18
    } else {
        14
    }
}

/// Recomputes the IPv4 header checksum of an IPv4 frame.
fn fix_csum(f: &mut [u8]) {
    let o = ip_off(f);
    if f.len() < o + 20 || f[o] >> 4 != 4 {
        return;
    }
    f[o + 10] = 0;
    f[o + 11] = 0;
    let mut s: u32 = (0..10)
        .map(|k| u16::from_be_bytes([f[o + 2 * k], f[o + 2 * k + 1]]) as u32)
        .sum();
    while s > 0xFFFF {
        s = (s & 0xFFFF) + (s >> 16);
    }
    let c = !(s as u16);
    f[o + 10..o + 12].copy_from_slice(&c.to_be_bytes());
}

/// Recomputes the ICV where the MBH says it is (MR-WIRE-ICV).
fn fix_icv(f: &mut [u8]) {
    let o = ip_off(f);
    let u = o + if f[o] >> 4 == 4 { 20 } else { 40 };
    let mr = u + 8;
    if f.len() < mr + 16 {
        return;
    }
    let end = mr + f[mr + 7] as usize * 4 + u16::from_be_bytes([f[mr + 2], f[mr + 3]]) as usize;
    if end + 4 <= f.len() {
        if let Ok(c) = metaroce_proto::wire::crc::icv(f, end) {
            f[end..end + 4].copy_from_slice(&c.to_be_bytes());
        }
    }
}

/// One received frame: bytes and the MAC error flag.
fn random_frame(r: &mut Rng, kw: usize) -> (Vec<u8>, bool) {
    let (l, m, pay) = random_packet(r, 3 * kw, Dir::Received);
    let mut f = Vec::new();
    emit_frame(&l, &m, &pay, &mut f).expect("emit");
    let o = ip_off(&f);
    let v4 = f[o] >> 4 == 4;
    let u = o + if v4 { 20 } else { 40 };
    let mut user = false;
    match r.below(18) {
        0 | 1 => {
            // Random byte flip (the ICV covers most bytes).
            let i = r.below(f.len() as u64) as usize;
            f[i] ^= 1 << r.below(8);
            if r.below(2) == 0 {
                fix_csum(&mut f);
            }
        }
        2 => {
            // Header byte flip with a valid IPv4 checksum.
            let i = r.below((u + 8 + 48).min(f.len()) as u64) as usize;
            f[i] = r.next() as u8;
            fix_csum(&mut f);
        }
        3 => {
            let n = r.below(f.len() as u64) as usize;
            f.truncate(n);
        }
        4 => {
            // Trimmed by length: the datagram shortened (MR-ENC-33), the frame cut to it.
            let cut = 1 + r.below(60) as usize;
            if f.len() > u + 8 + 16 + cut {
                let ln = |f: &mut Vec<u8>, at: usize| {
                    let v = u16::from_be_bytes([f[at], f[at + 1]]).wrapping_sub(cut as u16);
                    f[at..at + 2].copy_from_slice(&v.to_be_bytes());
                };
                ln(&mut f, if v4 { o + 2 } else { o + 4 });
                ln(&mut f, u + 4);
                let n = f.len() - cut;
                f.truncate(n);
                fix_csum(&mut f);
            }
        }
        5 => {
            // Padding after the datagram (MR-ENC-4).
            for _ in 0..r.below(70) {
                f.push(r.next() as u8);
            }
        }
        6 => user = true,
        7 => {
            let which = r.below(4);
            match which {
                0 => f[12] = 0x88,
                1 => f[u + 3] ^= 1,
                2 if v4 => f[o + 9] = 6,
                _ => f[u + 8] = (f[u + 8] & 0x0F) | 0x20,
            }
            fix_csum(&mut f);
        }
        8 => {
            // hlen or payload_len off by a little.
            let i = if r.below(2) == 0 {
                u + 8 + 7
            } else {
                u + 8 + 3
            };
            f[i] = f[i].wrapping_add(1 + r.below(3) as u8);
        }
        9 | 10 => {
            // Type-header fields the ICV protects, with a valid ICV: NACK/CTRL codes, SYN, Open extension.
            let mr = u + 8;
            let tb = mr + 16;
            match r.below(4) {
                0 => f[tb + 3] = [0u8, 7, 200][r.below(3) as usize],
                1 => f[mr + 1] ^= MbhFlags::SYN.0,
                2 => {
                    let hl = f[mr + 7] as usize * 4;
                    if hl >= 28 && f[mr + 1] & MbhFlags::SYN.0 != 0 {
                        let ox = mr + hl - 12;
                        let k = [0usize, 3, 11][r.below(3) as usize];
                        f[ox + k] = if k == 0 { 0 } else { r.next() as u8 & 0x1F };
                        if k == 0 {
                            f[ox + 1] = 0;
                            f[ox + 2] = 0;
                        }
                    }
                }
                _ => f[tb] = r.next() as u8,
            }
            fix_icv(&mut f);
        }
        _ => {}
    }
    (f, user)
}

/// Drives `count` random frames at the input (valid with probability `1 - stall / 8`, never held back: `tready`
/// must stay 1) while the outputs are ready with the same probability, and not at all during every other
/// `hold` cycles when `hold > 0`. Frames the parser reports on `stat_overflow` (the cycle after their first
/// beat) must produce nothing; every other frame must get the model's verdict, record and payload, in order.
/// Returns the number of discarded frames.
fn run(mut net: Net, kw: usize, r: &mut Rng, count: usize, stall: u64, hold: u64) -> usize {
    // HDL_TRACE_DIR: write the port trace of the run (ports.txt, trace.txt) for a replay against the Verilog.
    let trace_dir = std::env::var("HDL_TRACE_DIR").ok();
    let mut trace: Option<Vec<String>> = trace_dir.as_ref().map(|_| Vec::new());
    net.set_u64("rst", 1);
    net.tick();
    net.set_u64("rst", 0);
    net.set_u64("cfg_udp_port", PORT as u64);
    net.set_u64("cfg_dscp_trim", TRIM as u64);
    net.set("cfg_ipv4", &[be(&IP4) as u64]);
    let ip6 = be(&IP6);
    net.set("cfg_ipv6", &[ip6 as u64, (ip6 >> 64) as u64]);
    net.set_u64("cfg_ip_en", 3);
    let mut frames = Vec::new();
    // Per frame: drop code, record, frame, payload.
    let mut want = Vec::new();
    for _ in 0..count {
        let (f, user) = random_frame(r, kw);
        let (code, meta, pay) = if user {
            (drop::BAD_ICV, None, Vec::new())
        } else {
            model_verdict(&f)
        };
        if f.is_empty() {
            continue;
        }
        want.push((code, meta, f.clone(), pay));
        frames.push((f, user));
    }
    // Beats, with their frame and whether they are its first.
    let mut beats = Vec::new();
    for (fi, (f, user)) in frames.iter().enumerate() {
        let nb = f.len().div_ceil(kw);
        for i in 0..nb {
            let c = &f[i * kw..((i + 1) * kw).min(f.len())];
            beats.push((
                words_from_bytes(c, kw * 8),
                c.len(),
                i == nb - 1,
                *user && i == nb - 1,
                fi,
                i == 0,
            ));
        }
    }
    let mut discarded = vec![false; frames.len()];
    let mut started: Option<usize> = None;
    let mut bi = 0;
    let mut got_meta: Vec<Vec<u64>> = Vec::new();
    let mut got_pay: Vec<u8> = Vec::new();
    let mut got_pkts = 0;
    let mut cycles = 0u64;
    // Records and payload bytes still expected: every frame's, less the discarded ones'.
    let mut want_meta = want.len();
    let mut want_pay: usize = want.iter().map(|w| w.3.len()).sum();
    loop {
        if bi == beats.len()
            && started.is_none()
            && got_meta.len() >= want_meta
            && got_pay.len() >= want_pay
        {
            break;
        }
        cycles += 1;
        assert!(
            cycles < 50 * beats.len() as u64 + 2000 + 4 * hold,
            "stuck: {} of {want_meta} records",
            got_meta.len(),
        );
        let v = bi < beats.len() && r.below(8) >= stall;
        net.set_u64("s_axis_rx_tvalid", v as u64);
        if bi < beats.len() {
            let (d, n, last, user, _, _) = &beats[bi];
            net.set("s_axis_rx_tdata", d);
            let mut k = vec![0u64; kw.div_ceil(64)];
            for i in 0..*n {
                k[i / 64] |= 1 << (i % 64);
            }
            net.set("s_axis_rx_tkeep", &k);
            net.set_u64("s_axis_rx_tlast", *last as u64);
            net.set_u64("s_axis_rx_tuser", *user as u64);
        }
        let held = hold > 0 && (cycles / hold) % 2 == 1;
        let mr = !held && r.below(8) >= stall;
        let pr = !held && r.below(8) >= stall;
        net.set_u64("m_axis_meta_tready", mr as u64);
        net.set_u64("m_axis_pay_tready", pr as u64);
        net.eval();
        if let Some(t) = trace.as_mut() {
            t.push(net.trace_line());
        }
        assert_eq!(
            net.get_u64("s_axis_rx_tready"),
            1,
            "the MAC side was held back"
        );
        // The report of the frame that started in the previous cycle.
        if let Some(fi) = started.take() {
            if net.get_u64("stat_overflow") == 1 {
                discarded[fi] = true;
                want_meta -= 1;
                want_pay -= want[fi].3.len();
            }
        } else {
            assert_eq!(
                net.get_u64("stat_overflow"),
                0,
                "overflow without a frame start"
            );
        }
        if v && beats[bi].5 {
            started = Some(beats[bi].4);
        }
        if mr && net.get_u64("m_axis_meta_tvalid") == 1 {
            got_meta.push(net.get("m_axis_meta_tdata"));
        }
        if pr && net.get_u64("m_axis_pay_tvalid") == 1 {
            let d = net.get("m_axis_pay_tdata");
            let k = net.get("m_axis_pay_tkeep");
            for i in 0..kw {
                if k[i / 64] >> (i % 64) & 1 == 1 {
                    got_pay.push(byte_of(&d, i));
                }
            }
            got_pkts += net.get_u64("m_axis_pay_tlast") as usize;
        }
        net.tick();
        bi += v as usize;
    }
    for _ in 0..40 {
        net.set_u64("s_axis_rx_tvalid", 0);
        net.set_u64("m_axis_meta_tready", 1);
        net.set_u64("m_axis_pay_tready", 1);
        net.eval();
        assert_eq!(net.get_u64("m_axis_meta_tvalid"), 0, "extra record");
        assert_eq!(net.get_u64("m_axis_pay_tvalid"), 0, "extra payload");
        assert_eq!(net.get_u64("stat_overflow"), 0, "overflow without a frame");
        net.tick();
    }
    if let (Some(d), Some(t)) = (&trace_dir, &trace) {
        write_trace(&net, d, t);
    }
    let kept: Vec<_> = want
        .iter()
        .zip(&discarded)
        .filter(|(_, &d)| !d)
        .map(|(w, _)| w)
        .collect();
    let mut counts = [0usize; drop::COUNT];
    for (i, (g, (code, meta, f, _))) in got_meta.iter().zip(&kept).enumerate() {
        let gm = PktMeta::from_words(g);
        let gc = gm.drop.to_u8();
        counts[*code as usize] += 1;
        assert_eq!(
            gc,
            *code,
            "admitted frame {i}: drop {} want {} ({} bytes: {:02x?})",
            drop::NAMES[gc as usize],
            drop::NAMES[*code as usize],
            f.len(),
            &f[..f.len().min(100)]
        );
        if let Some(m) = meta {
            assert_eq!(&gm, m, "admitted frame {i}: record");
        }
    }
    let want_pkts = kept.iter().filter(|w| !w.3.is_empty()).count();
    let want_pay: Vec<u8> = kept.iter().flat_map(|w| w.3.iter().copied()).collect();
    assert_eq!(got_pkts, want_pkts, "payload packets");
    assert_eq!(got_pay, want_pay, "payload bytes");
    let n_disc = discarded.iter().filter(|&&d| d).count();
    println!(
        "{} frames ({} beats) in {cycles} cycles, {n_disc} discarded for lack of room; verdicts: {:?}",
        frames.len(),
        beats.len(),
        counts
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(i, c)| format!("{}={c}", drop::NAMES[i]))
            .collect::<Vec<_>>()
    );
    n_disc
}

#[test]
fn parser_matches_model_512_with_backpressure() {
    let mut r = Rng(seed());
    run(Parser::<512, 64>::build(256), 64, &mut r, iters(300), 2, 0);
}

#[test]
fn parser_matches_model_512_line_rate() {
    let mut r = Rng(seed());
    let n = run(Parser::<512, 64>::build(256), 64, &mut r, iters(200), 0, 0);
    assert_eq!(n, 0, "frames discarded while the outputs were always ready");
}

#[test]
fn parser_matches_model_1024() {
    let mut r = Rng(seed());
    run(
        Parser::<1024, 128>::build(128),
        128,
        &mut r,
        iters(150),
        2,
        0,
    );
}

/// MAC side at line rate while the outputs stop for 150 cycles at a time: the parser never holds the MAC
/// back, discards whole frames for which it has no room, reports each, and every admitted frame still gets the
/// model's verdict, record and payload.
#[test]
fn parser_discards_whole_frames_without_room_and_never_holds_the_mac_back() {
    let mut r = Rng(seed());
    let n = run(
        Parser::<512, 64>::build(256),
        64,
        &mut r,
        iters(300),
        0,
        150,
    );
    assert!(
        n > 0,
        "no frame was discarded: the test did not fill the FIFO"
    );
}
