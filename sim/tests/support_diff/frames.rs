//! Random MetaRoCE packets built from the model's wire types (spec section 3, MR-ENC-*), their damaged
//! variants, and the header records (`PktMeta`) the parser must produce and the frame builder consumes.

// PktMeta has many fields; a packet type sets the few it uses on a default record.
#![allow(clippy::field_reassign_with_default)]

use super::{b, be};
use metaroce_hdl::common::netlist::{words_from_bytes, ToWords};
use metaroce_hdl::records::PktMeta;
use metaroce_hdl::rx::drop;
pub use metaroce_proto::harness::packets::Dir;
use metaroce_proto::harness::packets::{self, TEST_LOCAL};
use metaroce_proto::harness::rng::Rng;
use metaroce_proto::wire::{
    parse_frame, Error, IpRepr, MbhFlags, MetaRoceRepr, PacketType, TypeRepr, L2L3,
};
use rust_hdl::prelude::Bits;

/// Our MAC address.
pub const MAC: [u8; 6] = TEST_LOCAL.mac;
/// The trim DSCP.
pub const TRIM: u8 = TEST_LOCAL.trim_dscp;
/// Our IPv4 address.
pub const IP4: [u8; 4] = TEST_LOCAL.ip4;
/// Our IPv6 address.
pub const IP6: [u8; 16] = TEST_LOCAL.ip6;
/// The builder's TTL / hop limit.
pub const TTL: u8 = TEST_LOCAL.ttl;
/// The MetaRoCE UDP port.
pub const PORT: u16 = TEST_LOCAL.port;

/// A random MetaRoCE packet of any type to or from the block under test (the harness's generator).
pub fn random_packet(r: &mut Rng, max_pay: usize, dir: Dir) -> (L2L3, MetaRoceRepr, Vec<u8>) {
    packets::random_packet(r, &TEST_LOCAL, max_pay, dir)
}

/// The fields of the MetaRoCE headers in a header record (both directions use the same fields).
fn put_metaroce(p: &mut PktMeta, m: &MetaRoceRepr) {
    p.ptype = b(m.mbh.ptype as u128);
    p.mbh_flags = b(u128::from(m.mbh.flags.0));
    p.payload_len = b(u128::from(m.mbh.payload_len));
    p.dcid = b(u128::from(m.mbh.dcid));
    p.psn = b(u128::from(m.mbh.psn));
    p.ts = b(u128::from(m.mbh.ts));
    match &m.ty {
        TypeRepr::Data(d) => {
            p.opcode = b(d.opcode as u128);
            p.dflags = b(u128::from(d.flags.0));
            p.msn = b(u128::from(d.msn));
            p.addr = b(u128::from(d.addr));
            p.key = b(u128::from(d.key));
            p.msg_len = b(u128::from(d.msg_len));
            p.imm = b(u128::from(d.imm.unwrap_or(0)));
        }
        TypeRepr::Ack(a) => {
            p.scid = b(u128::from(a.scid));
            p.aflags = b(u128::from(a.flags.0));
            p.echo_ts = b(u128::from(a.echo_ts));
            p.sack_base = b(u128::from(a.sack_base));
            p.echo_ev = b(u128::from(a.echo_ev));
            p.ce_count = b(u128::from(a.ce_count));
            p.sack = Bits::<256>::from_words(&words_from_bytes(&a.sack.0, 256));
        }
        TypeRepr::Nack(x) => {
            p.scid = b(u128::from(x.scid));
            p.code = b(x.code as u128);
            p.echo_ts = b(u128::from(x.echo_ts));
            p.aux = b(u128::from(x.aux));
        }
        TypeRepr::Ctrl(x) => {
            p.scid = b(u128::from(x.scid));
            p.code = b(x.code as u128);
            p.echo_ts = b(u128::from(x.echo_ts));
            p.aux = b(u128::from(x.aux));
        }
    }
    if let Some(o) = &m.open {
        p.ox = true;
        p.ox_scid = b(u128::from(o.scid));
        p.wlog = b(u128::from(o.wlog));
        p.isn = b(u128::from(o.isn));
        p.target_qpn = b(u128::from(o.target_qpn));
        p.mtu_log = b(u128::from(o.mtu_log));
    }
}

/// The peer's addresses, DSCP, ECN, VLAN and entropy value of a header record; `peer` is the far end's MAC
/// and IP (the source of a received frame, the destination of a sent one).
fn put_l2l3(p: &mut PktMeta, l: &L2L3, received: bool) {
    p.peer_mac = b(be(if received { &l.eth_src } else { &l.eth_dst }));
    match l.ip {
        IpRepr::V4 {
            src,
            dst,
            dscp,
            ecn,
            ..
        } => {
            p.peer_ip = b(be(if received { &src } else { &dst }));
            p.dscp = b(u128::from(dscp));
            p.ecn = b(u128::from(ecn));
        }
        IpRepr::V6 {
            src,
            dst,
            dscp,
            ecn,
            ..
        } => {
            p.peer_ip = b(be(if received { &src } else { &dst }));
            p.ipv6 = true;
            p.dscp = b(u128::from(dscp));
            p.ecn = b(u128::from(ecn));
        }
    }
    p.vlan = l.vlan.is_some();
    p.tci = b(u128::from(l.vlan.unwrap_or(0)));
    p.ev = b(u128::from(l.udp_src & 0x3FFF));
}

/// The header record the transmit path hands the frame builder for this packet.
pub fn tx_meta(l: &L2L3, m: &MetaRoceRepr) -> PktMeta {
    let mut p = PktMeta::default();
    put_l2l3(&mut p, l, false);
    put_metaroce(&mut p, m);
    p
}

/// The model's verdict on a received frame (MR-WIRE-*, MR-WIRE-ICV): the parse error's drop code, else a bad
/// ICV, else a destination address that is not ours, else the record the parser must produce and the payload
/// it must pass on (that of an untrimmed DATA packet).
pub fn rx_verdict(f: &[u8]) -> (u8, Option<PktMeta>, Vec<u8>) {
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
    put_l2l3(&mut m, &p.l, true);
    put_metaroce(&mut m, &p.m);
    m.hlen = b(u128::from(p.m.mbh.hlen));
    m.trimmed = p.trimmed;
    let pay = if !p.trimmed && p.m.mbh.ptype == PacketType::Data {
        p.payload.to_vec()
    } else {
        Vec::new()
    };
    (0, Some(m), pay)
}

/// Offset of the IP header.
pub fn ip_off(f: &[u8]) -> usize {
    if f.len() >= 14 && f[12] == 0x81 && f[13] == 0x00 {
        18
    } else {
        14
    }
}

/// Recomputes the IPv4 header checksum of an IPv4 frame.
pub fn fix_csum(f: &mut [u8]) {
    let o = ip_off(f);
    if f.len() < o + 20 || f[o] >> 4 != 4 {
        return;
    }
    f[o + 10] = 0;
    f[o + 11] = 0;
    let mut s: u32 = (0..10)
        .map(|k| u32::from(u16::from_be_bytes([f[o + 2 * k], f[o + 2 * k + 1]])))
        .sum();
    while s > 0xFFFF {
        s = (s & 0xFFFF) + (s >> 16);
    }
    let c = !(s as u16);
    f[o + 10..o + 12].copy_from_slice(&c.to_be_bytes());
}

/// Recomputes the ICV where the MBH says it is (MR-WIRE-ICV).
pub fn fix_icv(f: &mut [u8]) {
    let o = ip_off(f);
    if f.len() <= o {
        return;
    }
    let u = o + if f[o] >> 4 == 4 { 20 } else { 40 };
    let mr = u + 8;
    if f.len() < mr + 16 {
        return;
    }
    let end = mr + f[mr + 7] as usize * 4 + usize::from(u16::from_be_bytes([f[mr + 2], f[mr + 3]]));
    if end + 4 <= f.len() {
        if let Ok(c) = metaroce_proto::wire::crc::icv(f, end) {
            f[end..end + 4].copy_from_slice(&c.to_be_bytes());
        }
    }
}

/// How a received frame was damaged (for the verdict histogram and failure messages).
pub const DAMAGE: [&str; 10] = [
    "none",
    "bit flip",
    "header byte, valid IPv4 checksum",
    "truncated",
    "trimmed by length",
    "padding",
    "MAC error",
    "ethertype/port/protocol/version",
    "hlen or payload_len off",
    "type header, valid ICV",
];

/// A received frame built by proto's emitter and then damaged one way or none (one in three left intact):
/// bytes, the MAC error flag (`tuser` on the last beat) and the damage's index in [`DAMAGE`].
pub fn random_rx_frame(r: &mut Rng, max_pay: usize) -> (Vec<u8>, bool, usize) {
    let (l, m, pay) = random_packet(r, max_pay, Dir::Received);
    let mut f = Vec::new();
    metaroce_proto::wire::emit_frame(&l, &m, &pay, &mut f).expect("proto emits its own packets");
    let o = ip_off(&f);
    let v4 = f[o] >> 4 == 4;
    let u = o + if v4 { 20 } else { 40 };
    let mut user = false;
    let how = match r.below(18) {
        0 | 1 => {
            let i = r.below(f.len() as u64) as usize;
            f[i] ^= 1 << r.below(8);
            if r.below(2) == 0 {
                fix_csum(&mut f);
            }
            1
        }
        2 => {
            let i = r.below((u + 8 + 48).min(f.len()) as u64) as usize;
            f[i] = r.next_u32() as u8;
            fix_csum(&mut f);
            2
        }
        3 => {
            // At least one byte: an empty frame is not a stream packet.
            let n = 1 + r.below(f.len() as u64 - 1) as usize;
            f.truncate(n);
            3
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
            4
        }
        5 => {
            // Padding after the datagram (MR-ENC-4).
            for _ in 0..r.below(70) {
                f.push(r.next_u32() as u8);
            }
            5
        }
        6 => {
            user = true;
            6
        }
        7 => {
            match r.below(4) {
                0 => f[12] = 0x88,
                1 => f[u + 3] ^= 1,
                2 if v4 => f[o + 9] = 6,
                _ => f[u + 8] = (f[u + 8] & 0x0F) | 0x20,
            }
            fix_csum(&mut f);
            7
        }
        8 => {
            let i = if r.below(2) == 0 {
                u + 8 + 7
            } else {
                u + 8 + 3
            };
            f[i] = f[i].wrapping_add(1 + r.below(3) as u8);
            8
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
                        f[ox + k] = if k == 0 { 0 } else { r.next_u32() as u8 & 0x1F };
                        if k == 0 {
                            f[ox + 1] = 0;
                            f[ox + 2] = 0;
                        }
                    }
                }
                _ => f[tb] = r.next_u32() as u8,
            }
            fix_icv(&mut f);
            9
        }
        _ => 0,
    };
    (f, user, how)
}

/// A record as 32-bit port words.
pub fn meta_w32(m: &PktMeta) -> Vec<u32> {
    super::w32(&m.to_words())
}

/// A record from 32-bit port words.
pub fn meta_of_w32(w: &[u32]) -> PktMeta {
    PktMeta::from_words(&super::w64(w))
}
