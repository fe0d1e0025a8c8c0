//! Property tests of the wire layer: `parse(emit(x)) == x` for every representation and for whole frames, and no
//! parser panics on arbitrary or mutated input (MR-ENC-*, MR-WIRE-*).
//!
//! The seed is printed; replay a failure with `PROPTEST_RNG_SEED=<seed>` (and `PROPTEST_CASES=<n>` for longer
//! runs).

use metaroce_proto::wire::crc;
use metaroce_proto::wire::layout;
use metaroce_proto::wire::packet::{frame_len, ICV_LEN};
use metaroce_proto::wire::roce_packet::pad_len;
use metaroce_proto::wire::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

/// The proptest configuration: a fixed seed, printed so that a failure can be replayed.
fn config() -> Config {
    let mut c = Config {
        failure_persistence: None,
        ..Config::default()
    };
    let seed = match c.rng_seed {
        RngSeed::Fixed(s) => s,
        RngSeed::Random => {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos());
            t.unwrap_or(0) as u64
        }
    };
    c.rng_seed = RngSeed::Fixed(seed);
    eprintln!(
        "wire_props: seed {seed} (replay: PROPTEST_RNG_SEED={seed}), {} cases",
        c.cases
    );
    c
}

fn u24() -> impl Strategy<Value = u32> {
    0u32..(1 << 24)
}

fn arb_ip() -> impl Strategy<Value = IpRepr> {
    prop_oneof![
        (
            any::<[u8; 4]>(),
            any::<[u8; 4]>(),
            0u8..64,
            0u8..4,
            any::<u8>()
        )
            .prop_map(|(src, dst, dscp, ecn, ttl)| IpRepr::V4 {
                src,
                dst,
                dscp,
                ecn,
                ttl
            }),
        (
            any::<[u8; 16]>(),
            any::<[u8; 16]>(),
            0u8..64,
            0u8..4,
            0u32..(1 << 20),
            any::<u8>()
        )
            .prop_map(|(src, dst, dscp, ecn, flow_label, hop_limit)| IpRepr::V6 {
                src,
                dst,
                dscp,
                ecn,
                flow_label,
                hop_limit
            }),
    ]
}

fn arb_l2l3() -> impl Strategy<Value = L2L3> {
    (
        any::<[u8; 6]>(),
        any::<[u8; 6]>(),
        any::<Option<u16>>(),
        arb_ip(),
        any::<u16>(),
        any::<u16>(),
    )
        .prop_map(|(eth_src, eth_dst, vlan, ip, udp_src, udp_dst)| L2L3 {
            eth_src,
            eth_dst,
            vlan,
            ip,
            udp_src,
            udp_dst,
        })
}

fn arb_ptype() -> impl Strategy<Value = PacketType> {
    prop_oneof![
        Just(PacketType::Data),
        Just(PacketType::Ack),
        Just(PacketType::Nack),
        Just(PacketType::Ctrl)
    ]
}

fn arb_mbh() -> impl Strategy<Value = MbhRepr> {
    (
        arb_ptype(),
        0u8..8,
        any::<u16>(),
        u24(),
        4u8..=255,
        any::<u32>(),
        any::<u32>(),
    )
        .prop_map(|(ptype, f, payload_len, dcid, hlen, psn, ts)| MbhRepr {
            ptype,
            flags: MbhFlags(f << 5),
            payload_len,
            dcid,
            hlen,
            psn,
            ts,
        })
}

fn arb_opcode() -> impl Strategy<Value = Opcode> {
    prop::sample::select(vec![
        Opcode::Reserved,
        Opcode::Experimental,
        Opcode::Write,
        Opcode::WriteImm,
        Opcode::Send,
        Opcode::SendImm,
        Opcode::ReadReq,
        Opcode::ReadResp,
        Opcode::FetchAdd,
        Opcode::CmpSwap,
    ])
}

fn arb_data() -> impl Strategy<Value = DataRepr> {
    (
        arb_opcode(),
        0u8..8,
        any::<u32>(),
        any::<u64>(),
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
    )
        .prop_map(|(opcode, f, msn, addr, key, msg_len, imm)| DataRepr {
            opcode,
            flags: DataFlags(f << 5),
            msn,
            addr,
            key,
            msg_len,
            imm: if opcode.has_imm() { Some(imm) } else { None },
        })
}

fn arb_open() -> impl Strategy<Value = OpenRepr> {
    (1u32..(1 << 24), 8u8..=16, any::<u32>(), u24(), 9u8..=13).prop_map(
        |(scid, wlog, isn, target_qpn, mtu_log)| OpenRepr {
            scid,
            wlog,
            isn,
            target_qpn,
            mtu_log,
        },
    )
}

fn arb_ack() -> impl Strategy<Value = AckRepr> {
    (
        u24(),
        0u8..4,
        any::<u32>(),
        any::<u32>(),
        any::<u16>(),
        any::<u16>(),
        any::<[u8; 32]>(),
    )
        .prop_map(
            |(scid, f, echo_ts, sack_base, echo_ev, ce_count, sack)| AckRepr {
                scid,
                flags: AckFlags(f << 6),
                echo_ts,
                sack_base,
                echo_ev,
                ce_count,
                sack: SackBitmap(sack),
            },
        )
}

fn arb_nack() -> impl Strategy<Value = NackRepr> {
    (u24(), 1u8..=6, any::<u32>(), any::<u32>()).prop_map(|(scid, c, echo_ts, aux)| NackRepr {
        scid,
        code: NackCode::from_u8(c).unwrap_or(NackCode::Trimmed),
        echo_ts,
        aux,
    })
}

fn arb_ctrl() -> impl Strategy<Value = CtrlRepr> {
    (u24(), 1u8..=6, any::<u32>(), any::<u32>()).prop_map(|(scid, c, echo_ts, aux)| CtrlRepr {
        scid,
        code: CtrlCode::from_u8(c).unwrap_or(CtrlCode::Probe),
        echo_ts,
        aux,
    })
}

fn arb_type() -> impl Strategy<Value = TypeRepr> {
    prop_oneof![
        arb_data().prop_map(TypeRepr::Data),
        arb_ack().prop_map(TypeRepr::Ack),
        arb_nack().prop_map(TypeRepr::Nack),
        arb_ctrl().prop_map(TypeRepr::Ctrl),
    ]
}

/// A valid MetaRoCE packet (headers + payload) whose derived MBH fields are already consistent, as parse returns
/// them: payload only on DATA (MR-WIRE-11), SYN only on DATA, ACK and CTRL OPEN, always on CTRL OPEN (MR-WIRE-14,
/// MR-WIRE-39).
fn arb_packet() -> impl Strategy<Value = (MetaRoceRepr, Vec<u8>)> {
    (
        arb_mbh(),
        arb_type(),
        arb_open(),
        any::<bool>(),
        prop::collection::vec(any::<u8>(), 0..1200),
    )
        .prop_map(|(mut mbh, ty, ox, syn, mut payload)| {
            let open = match ty {
                TypeRepr::Data(_) | TypeRepr::Ack(_) => syn.then_some(ox),
                TypeRepr::Nack(_) => None,
                TypeRepr::Ctrl(c) => (c.code == CtrlCode::Open).then_some(ox),
            };
            if !matches!(ty, TypeRepr::Data(_)) {
                payload.clear();
            }
            let mut m = MetaRoceRepr { mbh, ty, open };
            mbh.ptype = ty.ptype();
            mbh.flags.set(MbhFlags::SYN, open.is_some());
            mbh.payload_len = payload.len() as u16;
            mbh.hlen = (m.header_len() / 4) as u8;
            m.mbh = mbh;
            (m, payload)
        })
}

/// Cuts a frame to `n` bytes and rewrites the IP and UDP lengths as a trimming switch must (MR-ENC-27).
fn trim_to(f: &[u8], l: &L2L3, n: usize) -> Vec<u8> {
    let mut t = f[..n].to_vec();
    let ip = l.eth_len();
    let udp = ip + l.ip.header_len();
    let udp_len = (n - udp) as u16;
    match l.ip {
        IpRepr::V4 { .. } => {
            let mut p = Ipv4Packet::new_unchecked(&mut t[ip..]);
            p.set_total_len(udp_len + 20);
            p.fill_checksum();
        }
        IpRepr::V6 { .. } => Ipv6Packet::new_unchecked(&mut t[ip..]).set_payload_len(udp_len),
    }
    UdpPacket::new_unchecked(&mut t[udp..]).set_len(udp_len);
    t
}

fn arb_roce_opcode() -> impl Strategy<Value = RoceOpcode> {
    prop::sample::select(
        (0u8..=0x11)
            .chain([0x81, 0xFF])
            .filter_map(RoceOpcode::from_u8)
            .collect::<Vec<_>>(),
    )
}

fn arb_bth() -> impl Strategy<Value = BthRepr> {
    (
        arb_roce_opcode(),
        any::<[bool; 5]>(),
        0u8..4,
        0u8..16,
        any::<u16>(),
        u24(),
        u24(),
    )
        .prop_map(|(opcode, b, pad_cnt, tver, pkey, dest_qp, psn)| BthRepr {
            opcode,
            se: b[0],
            mig_req: b[1],
            pad_cnt,
            tver,
            pkey,
            fecn: b[2],
            becn: b[3],
            dest_qp,
            ack_req: b[4],
            psn,
        })
}

fn arb_roce() -> impl Strategy<Value = (RoceRepr, Vec<u8>)> {
    (
        arb_bth(),
        any::<(u64, u32, u32)>(),
        (any::<u8>(), u24()),
        any::<u32>(),
        prop::collection::vec(any::<u8>(), 0..300),
    )
        .prop_map(
            |(mut bth, (va, rkey, dma_len), (syndrome, msn), imm, payload)| {
                let op = bth.opcode;
                bth.pad_cnt = pad_len(payload.len()) as u8;
                let r = RoceRepr {
                    bth,
                    reth: op.has_reth().then_some(RethRepr { va, rkey, dma_len }),
                    aeth: op.has_aeth().then_some(AethRepr { syndrome, msn }),
                    imm: op.has_imm().then_some(imm),
                };
                (r, payload)
            },
        )
}

/// Emits `r` with `emit` into a buffer of `len` bytes and parses it back.
macro_rules! roundtrip {
    ($View:ident, $Repr:ident, $r:expr, $len:expr) => {{
        let r = $r;
        let mut buf = vec![0xA5u8; $len];
        r.emit(&mut $View::new_unchecked(&mut buf[..]));
        let back = $Repr::parse(&$View::new_checked(&buf[..]).unwrap()).unwrap();
        prop_assert_eq!(back, r);
    }};
}

proptest! {
    #![proptest_config(config())]

    /// parse(emit(x)) == x for every header representation (MR-WIRE-*).
    #[test]
    fn mr_wire_header_roundtrips(
        mbh in arb_mbh(), data in arb_data(), open in arb_open(), ack in arb_ack(), nack in arb_nack(),
        ctrl in arb_ctrl(), bth in arb_bth(), reth in any::<(u64, u32, u32)>(), aeth in (any::<u8>(), u24()),
    ) {
        roundtrip!(MbhHeader, MbhRepr, mbh, 16);
        roundtrip!(DataHeader, DataRepr, data, data.buffer_len());
        roundtrip!(OpenExt, OpenRepr, open, 12);
        roundtrip!(AckHeader, AckRepr, ack, 48);
        roundtrip!(NackHeader, NackRepr, nack, 12);
        roundtrip!(CtrlHeader, CtrlRepr, ctrl, 12);
        roundtrip!(Bth, BthRepr, bth, 12);
        roundtrip!(Reth, RethRepr, RethRepr { va: reth.0, rkey: reth.1, dma_len: reth.2 }, 16);
        roundtrip!(Aeth, AethRepr, AethRepr { syndrome: aeth.0, msn: aeth.1 }, 4);
    }

    /// parse(emit(x)) == x for the L2-L4 representations (MR-ENC-*).
    #[test]
    fn mr_enc_header_roundtrips(
        src in any::<[u8; 6]>(), dst in any::<[u8; 6]>(), vlan in any::<Option<u16>>(),
        ethertype in any::<u16>().prop_filter("not a VLAN TPID", |&t| t != EtherType::VLAN),
        v4 in (any::<[u8; 4]>(), any::<[u8; 4]>(), 0u8..64, 0u8..4, any::<(u8, u16, bool, u8)>(), 0usize..100),
        v6 in (any::<[u8; 16]>(), any::<[u8; 16]>(), 0u8..64, 0u8..4, 0u32..(1 << 20), any::<(u8, u8)>(), 0usize..100),
        udp in (any::<u16>(), any::<u16>(), 0usize..100),
    ) {
        let e = EthernetRepr { src, dst, vlan, ethertype };
        roundtrip!(EthernetFrame, EthernetRepr, e, e.buffer_len());
        let (s4, d4, dscp, ecn, (ttl, ident, dont_frag, protocol), payload_len) = v4;
        let r4 = Ipv4Repr { src: s4, dst: d4, dscp, ecn, ttl, ident, dont_frag, protocol, payload_len };
        roundtrip!(Ipv4Packet, Ipv4Repr, r4, 20 + payload_len);
        let (s6, d6, dscp, ecn, flow_label, (hop_limit, next_header), payload_len) = v6;
        let r6 = Ipv6Repr { src: s6, dst: d6, dscp, ecn, flow_label, hop_limit, next_header, payload_len };
        roundtrip!(Ipv6Packet, Ipv6Repr, r6, 40 + payload_len);
        let ru = UdpRepr { src_port: udp.0, dst_port: udp.1, payload_len: udp.2 };
        roundtrip!(UdpPacket, UdpRepr, ru, 8 + udp.2);
    }

    /// Whole MetaRoCE frames: v4/v6, with/without VLAN, every type, with/without SYN, random payload.
    #[test]
    fn mr_wire_frame_roundtrip(l in arb_l2l3(), (m, payload) in arb_packet()) {
        let mut f = Vec::new();
        emit_frame(&l, &m, &payload, &mut f).unwrap();
        prop_assert_eq!(f.len(), frame_len(&l, &m, payload.len()));
        let dscp_trim = (l.ip.dscp() + 1) % 64;
        let p = parse_frame(&f, l.udp_dst, dscp_trim, true).unwrap();
        prop_assert_eq!(p.l, l);
        prop_assert_eq!(p.m, m);
        prop_assert_eq!(p.payload, &payload[..]);
        prop_assert!(!p.trimmed && p.icv_ok);
        // The in-place path gives the same bytes.
        let mut buf = vec![0u8; f.len()];
        let hdr = emit_headers(&l, &m, payload.len(), &mut buf).unwrap();
        buf[hdr..hdr + payload.len()].copy_from_slice(&payload);
        prop_assert_eq!(packet::finish_icv(&mut buf, hdr, payload.len()), Ok(f.len()));
        prop_assert_eq!(&buf, &f);
        // MR-ENC-31: a frame cut short of its IP length is dropped, whatever the cut.
        for n in 0..f.len() {
            let r = parse_frame(&f[..n], l.udp_dst, dscp_trim, true);
            prop_assert_eq!(r.err(), Some(Error::Truncated), "cut {}", n);
        }
        // MR-ENC-33..-36: trimmed properly (lengths rewritten) to any length that keeps the MBH, a DATA packet with
        // a known DCID gives exactly its MBH; anything else is dropped; shorter is not a packet (MR-ENC-32).
        let base_end = l.header_len() + 16;
        let nackable = m.mbh.ptype == PacketType::Data && m.mbh.dcid != 0;
        for n in base_end.saturating_sub(3)..f.len() {
            let t = trim_to(&f, &l, n);
            match parse_frame(&t, l.udp_dst, dscp_trim, true) {
                Ok(p) => {
                    prop_assert!(nackable && n >= base_end, "trim to {} accepted", n);
                    prop_assert!(p.trimmed && !p.icv_ok && p.payload.is_empty());
                    prop_assert_eq!(p.m.mbh, m.mbh);
                    prop_assert_eq!(p.m.ty, TypeRepr::placeholder(m.mbh.ptype));
                }
                Err(e) if n < base_end => prop_assert_eq!(e, Error::BadLength),
                Err(e) => {
                    prop_assert!(!nackable, "trim to {} rejected: {}", n, e);
                    prop_assert_eq!(e, Error::BadTrim);
                }
            }
        }
    }

    /// Whole RoCEv2 frames round-trip with a valid ICRC.
    #[test]
    fn roce_frame_roundtrip(mut l in arb_l2l3(), (r, payload) in arb_roce()) {
        l.udp_dst = ROCE_UDP_PORT;
        let mut f = Vec::new();
        emit_roce_frame(&l, &r, &payload, &mut f).unwrap();
        let p = parse_roce_frame(&f, true).unwrap();
        prop_assert_eq!(p.l, l);
        prop_assert_eq!(p.r, r);
        prop_assert_eq!(p.payload, &payload[..]);
        prop_assert!(p.icrc_ok);
        prop_assert_eq!((f.len() - l.header_len()) % 4, 0);
    }

    /// No parser panics on arbitrary bytes (views, reprs, frames, CRCs, layout tables).
    #[test]
    fn parsers_never_panic_on_arbitrary_bytes(
        b in prop::collection::vec(any::<u8>(), 0..200), port in any::<u16>(), dscp in 0u8..64,
        verify in any::<bool>(), end in 0usize..300,
    ) {
        parse_everything(&b, port, dscp, verify, end);
    }

    /// No parser panics on mutated valid frames truncated at every length; a mutated frame that still parses as
    /// intact with a good ICV differs only in fields the ICV does not cover.
    #[test]
    fn parsers_never_panic_on_mutated_frames(
        l in arb_l2l3(), (m, payload) in arb_packet(), (r, rp) in arb_roce(),
        muts in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        verify in any::<bool>(),
    ) {
        let mut f = Vec::new();
        emit_frame(&l, &m, &payload, &mut f).unwrap();
        let mut g = Vec::new();
        let mut lr = l;
        lr.udp_dst = ROCE_UDP_PORT;
        emit_roce_frame(&lr, &r, &rp, &mut g).unwrap();
        for frame in [&mut f, &mut g] {
            for (i, v) in &muts {
                let at = i.index(frame.len());
                frame[at] = *v;
            }
            for n in 0..=frame.len() {
                parse_everything(&frame[..n], l.udp_dst, 10, verify, n);
            }
        }
    }
}

/// Feeds `b` to every parser and checked constructor; none may panic.
fn parse_everything(b: &[u8], port: u16, dscp: u8, verify: bool, end: usize) {
    let _ = parse_frame(b, port, dscp, verify);
    let _ = parse_frame(b, DEFAULT_UDP_PORT, dscp, verify);
    let _ = parse_roce_frame(b, verify);
    let _ = crc::metaroce_icv(b, end);
    let _ = crc::roce_icrc(b, end);
    let _ = crc::crc32(b);
    let _ = EthernetFrame::new_checked(b).and_then(|v| EthernetRepr::parse(&v));
    let _ = Ipv4Packet::new_checked(b).and_then(|v| Ipv4Repr::parse(&v));
    let _ = Ipv6Packet::new_checked(b).and_then(|v| Ipv6Repr::parse(&v));
    let _ = UdpPacket::new_checked(b).and_then(|v| UdpRepr::parse(&v));
    let _ = MbhHeader::new_checked(b).and_then(|v| MbhRepr::parse(&v));
    let _ = DataHeader::new_checked(b).and_then(|v| DataRepr::parse(&v));
    let _ = OpenExt::new_checked(b).and_then(|v| OpenRepr::parse(&v));
    let _ = AckHeader::new_checked(b).and_then(|v| AckRepr::parse(&v));
    let _ = NackHeader::new_checked(b).and_then(|v| NackRepr::parse(&v));
    let _ = CtrlHeader::new_checked(b).and_then(|v| CtrlRepr::parse(&v));
    let _ = Bth::new_checked(b).and_then(|v| BthRepr::parse(&v));
    let _ = Reth::new_checked(b).and_then(|v| RethRepr::parse(&v));
    let _ = Aeth::new_checked(b).and_then(|v| AethRepr::parse(&v));
    let _ = RoceRepr::parse(b);
    for t in [
        PacketType::Data,
        PacketType::Ack,
        PacketType::Nack,
        PacketType::Ctrl,
    ] {
        let _ = TypeRepr::parse(t, b);
    }
    // Unchecked views on short buffers read zeros instead of panicking.
    let e = EthernetFrame::new_unchecked(b);
    let _ = (
        e.ethertype(),
        e.vlan_tci(),
        e.l3_payload().len(),
        e.payload().len(),
    );
    let d = DataHeader::new_unchecked(b);
    let _ = (d.imm(), d.addr(), d.header_len());
    let a = AckHeader::new_unchecked(b);
    let _ = (a.sack(), a.sack_bit(255), a.ce_count());
    let v6 = Ipv6Packet::new_unchecked(b);
    let _ = (v6.flow_label(), v6.dst_addr());
    for h in layout::ALL {
        for fd in h.fields {
            let _ = fd.value(b);
        }
    }
    // Emitting into a buffer of any size never panics either.
    let mut out = b.to_vec();
    let n = out.len();
    let _ = packet::finish_icv(&mut out, end.min(n), end);
    let _ = roce_packet::finish_icrc(&mut out, end.min(n), end);
    let _ = ICV_LEN;
}
