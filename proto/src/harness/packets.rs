//! Random MetaRoCE packets of every type built from the model's wire types (spec section 3, MR-ENC-*), for the
//! tests of the hardware's frame parser and frame builder (rust-hdl's simulator and Verilator), addressed to or
//! from the block under test.

use super::rng::Rng;
use crate::wire::{
    AckFlags, AckRepr, CtrlCode, CtrlRepr, DataFlags, DataRepr, IpRepr, MbhFlags, MbhRepr,
    MetaRoceRepr, NackCode, NackRepr, Opcode, OpenRepr, PacketType, SackBitmap, TypeRepr, L2L3,
};
use alloc::vec;
use alloc::vec::Vec;

/// The addresses and header constants of the block under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Local {
    /// Its MAC address.
    pub mac: [u8; 6],
    /// Its IPv4 address.
    pub ip4: [u8; 4],
    /// Its IPv6 address.
    pub ip6: [u8; 16],
    /// The TTL / hop limit it sends with.
    pub ttl: u8,
    /// The DSCP of trimmed packets.
    pub trim_dscp: u8,
    /// The MetaRoCE UDP port.
    pub port: u16,
}

/// The configuration the hardware tests give a block: MAC 02:00:00:00:00:11, 10.0.0.1, fd00::1, TTL 64,
/// trim DSCP 1, UDP port 4792.
pub const TEST_LOCAL: Local = Local {
    mac: [2, 0, 0, 0, 0, 0x11],
    ip4: [10, 0, 0, 1],
    ip6: [0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
    ttl: 64,
    trim_dscp: 1,
    port: 4792,
};

/// Which way a random packet travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// To the block (parser tests).
    Received,
    /// From the block (builder tests).
    Sent,
}

fn arr<const K: usize>(r: &mut Rng) -> [u8; K] {
    let mut a = [0u8; K];
    r.fill_bytes(&mut a);
    a
}

/// A random MetaRoCE packet of any type (payload up to `max_pay` bytes) addressed as `dir` says: received
/// packets come from random sources to our addresses (one in ten to a foreign one, one in eight with the trim
/// DSCP); sent packets go from our addresses to random destinations with the builder's TTL and flow label 0.
pub fn random_packet(
    r: &mut Rng,
    local: &Local,
    max_pay: usize,
    dir: Dir,
) -> (L2L3, MetaRoceRepr, Vec<u8>) {
    let rx = dir == Dir::Received;
    let foreign = rx && r.below(10) == 0;
    let vlan = (r.below(3) == 0).then(|| r.next_u32() as u16);
    let v6 = r.below(2) == 0;
    let dscp = if rx && r.below(8) == 0 {
        local.trim_dscp
    } else {
        r.below(64) as u8
    };
    let ecn = r.below(4) as u8;
    let ip = if v6 {
        IpRepr::V6 {
            src: if rx { arr(r) } else { local.ip6 },
            dst: if rx && !foreign { local.ip6 } else { arr(r) },
            dscp,
            ecn,
            flow_label: if rx { r.next_u32() & 0xF_FFFF } else { 0 },
            hop_limit: if rx { r.next_u32() as u8 } else { local.ttl },
        }
    } else {
        IpRepr::V4 {
            src: if rx { arr(r) } else { local.ip4 },
            dst: if rx && !foreign { local.ip4 } else { arr(r) },
            dscp,
            ecn,
            ttl: if rx { r.next_u32() as u8 } else { local.ttl },
        }
    };
    let l = L2L3 {
        eth_src: if rx { arr(r) } else { local.mac },
        eth_dst: if rx { local.mac } else { arr(r) },
        vlan,
        ip,
        udp_src: 0xC000 | (r.next_u32() as u16 & 0x3FFF),
        udp_dst: local.port,
    };
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
    let (ty, ptype, payload) = match r.below(4) {
        0 => {
            let opcode = ops[r.below(8) as usize];
            let n = match r.below(4) {
                0 => 0,
                1 => r.below(8) as usize,
                _ => r.below(max_pay as u64 + 1) as usize,
            };
            let d = DataRepr {
                opcode,
                flags: DataFlags(r.next_u32() as u8 & DataFlags::ALL.0),
                msn: r.next_u32(),
                addr: r.next_u64(),
                key: r.next_u32(),
                msg_len: r.next_u32(),
                imm: opcode.has_imm().then(|| r.next_u32()),
            };
            let mut pay = vec![0u8; n];
            r.fill_bytes(&mut pay);
            (TypeRepr::Data(d), PacketType::Data, pay)
        }
        1 => (
            TypeRepr::Ack(AckRepr {
                scid: r.next_u32() & 0xFF_FFFF,
                flags: AckFlags(r.next_u32() as u8 & AckFlags::ALL.0),
                echo_ts: r.next_u32(),
                sack_base: r.next_u32(),
                echo_ev: r.next_u32() as u16,
                ce_count: r.next_u32() as u16,
                sack: SackBitmap(arr(r)),
            }),
            PacketType::Ack,
            Vec::new(),
        ),
        2 => (
            TypeRepr::Nack(NackRepr {
                scid: r.next_u32() & 0xFF_FFFF,
                code: NackCode::from_u8(1 + r.below(6) as u8).expect("NACK codes 1..=6"),
                echo_ts: r.next_u32(),
                aux: r.next_u32(),
            }),
            PacketType::Nack,
            Vec::new(),
        ),
        _ => (
            TypeRepr::Ctrl(CtrlRepr {
                scid: r.next_u32() & 0xFF_FFFF,
                code: CtrlCode::from_u8(1 + r.below(6) as u8).expect("CTRL codes 1..=6"),
                echo_ts: r.next_u32(),
                aux: r.next_u32(),
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
        isn: r.next_u32(),
        target_qpn: r.next_u32() & 0xFF_FFFF,
        mtu_log: 9 + r.below(5) as u8,
    });
    let mut flags = MbhFlags(r.next_u32() as u8 & (MbhFlags::AR.0 | MbhFlags::RTX.0));
    if open.is_some() {
        flags.0 |= MbhFlags::SYN.0;
    }
    let m = MetaRoceRepr {
        mbh: MbhRepr {
            ptype,
            flags,
            payload_len: payload.len() as u16,
            dcid: r.next_u32() & 0xFF_FFFF,
            hlen: 0,
            psn: r.next_u32(),
            ts: r.next_u32(),
        },
        ty,
        open,
    };
    (l, m, payload)
}
