//! Random MetaRoCE packets for the parser and frame-builder tests, built from the model's wire types.

use super::Rng;
use metaroce_proto::wire::{
    AckFlags, AckRepr, CtrlCode, CtrlRepr, DataFlags, DataRepr, IpRepr, MbhFlags, MbhRepr,
    MetaRoceRepr, NackCode, NackRepr, Opcode, OpenRepr, PacketType, SackBitmap, TypeRepr, L2L3,
};

/// Our MAC address.
pub const MAC: [u8; 6] = [2, 0, 0, 0, 0, 0x11];
/// The trim DSCP.
pub const TRIM: u8 = 1;
/// Our IPv4 address.
pub const IP4: [u8; 4] = [10, 0, 0, 1];
/// Our IPv6 address.
pub const IP6: [u8; 16] = [0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
/// The builder's TTL / hop limit.
pub const TTL: u8 = 64;
/// The MetaRoCE UDP port.
pub const PORT: u16 = 4792;

/// Which way a random packet travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// To us (parser tests).
    Received,
    /// From us (builder tests).
    Sent,
}

/// A random MetaRoCE packet of every type (payload up to `max_pay` bytes), addressed as `dir` says: received
/// packets come from random sources to our addresses (one in ten to a foreign one, one in eight with the trim
/// DSCP, random TTL and flow label); sent packets go from our addresses to random destinations with the
/// builder's TTL and flow label 0.
pub fn random_packet(r: &mut Rng, max_pay: usize, dir: Dir) -> (L2L3, MetaRoceRepr, Vec<u8>) {
    let rx = dir == Dir::Received;
    let foreign = rx && r.below(10) == 0;
    let vlan = (r.below(3) == 0).then(|| r.next() as u16);
    let v6 = r.below(2) == 0;
    let dscp = if rx && r.below(8) == 0 {
        TRIM
    } else {
        r.below(64) as u8
    };
    let ecn = r.below(4) as u8;
    let ip = if v6 {
        IpRepr::V6 {
            src: if rx { r.bytes() } else { IP6 },
            dst: if rx && !foreign { IP6 } else { r.bytes() },
            dscp,
            ecn,
            flow_label: if rx { r.next() as u32 & 0xF_FFFF } else { 0 },
            hop_limit: if rx { r.next() as u8 } else { TTL },
        }
    } else {
        IpRepr::V4 {
            src: if rx { r.bytes() } else { IP4 },
            dst: if rx && !foreign { IP4 } else { r.bytes() },
            dscp,
            ecn,
            ttl: if rx { r.next() as u8 } else { TTL },
        }
    };
    let l = L2L3 {
        eth_src: if rx { r.bytes() } else { MAC },
        eth_dst: if rx { MAC } else { r.bytes() },
        vlan,
        ip,
        udp_src: 0xC000 | (r.next() as u16 & 0x3FFF),
        udp_dst: PORT,
    };
    let kind = r.below(4);
    let ops = [
        Opcode::Write,
        Opcode::WriteImm,
        Opcode::Send,
        Opcode::SendImm,
        Opcode::ReadReq,
        Opcode::ReadResp,
        Opcode::FetchAdd,
        Opcode::CmpSwap,
    ];
    let (ty, ptype, payload) = match kind {
        0 => {
            let opcode = ops[r.below(8) as usize];
            let n = match r.below(4) {
                0 => 0,
                1 => r.below(8) as usize,
                _ => r.below(max_pay as u64 + 1) as usize,
            };
            let d = DataRepr {
                opcode,
                flags: DataFlags(r.next() as u8 & DataFlags::ALL.0),
                msn: r.next() as u32,
                addr: r.next(),
                key: r.next() as u32,
                msg_len: r.next() as u32,
                imm: opcode.has_imm().then(|| r.next() as u32),
            };
            (
                TypeRepr::Data(d),
                PacketType::Data,
                (0..n).map(|_| r.next() as u8).collect(),
            )
        }
        1 => (
            TypeRepr::Ack(AckRepr {
                scid: r.next() as u32 & 0xFF_FFFF,
                flags: AckFlags(r.next() as u8 & AckFlags::ALL.0),
                echo_ts: r.next() as u32,
                sack_base: r.next() as u32,
                echo_ev: r.next() as u16,
                ce_count: r.next() as u16,
                sack: SackBitmap(r.bytes()),
            }),
            PacketType::Ack,
            Vec::new(),
        ),
        2 => (
            TypeRepr::Nack(NackRepr {
                scid: r.next() as u32 & 0xFF_FFFF,
                code: NackCode::from_u8(1 + r.below(6) as u8).unwrap(),
                echo_ts: r.next() as u32,
                aux: r.next() as u32,
            }),
            PacketType::Nack,
            Vec::new(),
        ),
        _ => (
            TypeRepr::Ctrl(CtrlRepr {
                scid: r.next() as u32 & 0xFF_FFFF,
                code: CtrlCode::from_u8(1 + r.below(6) as u8).unwrap(),
                echo_ts: r.next() as u32,
                aux: r.next() as u32,
            }),
            PacketType::Ctrl,
            Vec::new(),
        ),
    };
    let open = match &ty {
        TypeRepr::Ctrl(c) => c.code == CtrlCode::Open,
        TypeRepr::Nack(_) => false,
        _ => r.below(4) == 0,
    }
    .then(|| OpenRepr {
        scid: 1 + r.below(0xFF_FFFE) as u32,
        wlog: 8 + r.below(9) as u8,
        isn: r.next() as u32,
        target_qpn: r.next() as u32 & 0xFF_FFFF,
        mtu_log: 9 + r.below(5) as u8,
    });
    let mut flags = MbhFlags(r.next() as u8 & (MbhFlags::AR.0 | MbhFlags::RTX.0));
    if open.is_some() {
        flags.0 |= MbhFlags::SYN.0;
    }
    let m = MetaRoceRepr {
        mbh: MbhRepr {
            ptype,
            flags,
            payload_len: payload.len() as u16,
            dcid: r.next() as u32 & 0xFF_FFFF,
            hlen: 0,
            psn: r.next() as u32,
            ts: r.next() as u32,
        },
        ty,
        open,
    };
    (l, m, payload)
}
