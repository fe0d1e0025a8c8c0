//! Field layout tables of every header, as data (MR-WIRE-*).
//!
//! Each table is built from the same `field` constants the views use, so the HDL parser, the packet dissector
//! and the documentation generators can take offsets from here instead of copying them. A field is `len` bytes at
//! `offset` from the start of its header; a sub-byte field additionally has a [`BitField`]: its value is
//! `(big_endian(bytes) & mask) >> shift`. Every bit of every header belongs to exactly one field (reserved bits
//! are listed as `reserved` fields); the unit tests check that.

use super::{ack, ctrl, data, ethernet, ipv4, ipv6, mbh, nack, open, roce, udp};
use super::{AckFlags, DataFlags, Field, MbhFlags};

/// Mask and shift of a sub-byte field within the big-endian integer formed by its `len` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BitField {
    /// Mask over the big-endian integer of the field's bytes.
    pub mask: u32,
    /// Right shift that brings the masked bits to bit 0 (= `mask.trailing_zeros()`).
    pub shift: u32,
}

/// One field of a header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldDesc {
    /// Short name (snake_case), unique within its header.
    pub name: &'static str,
    /// Byte offset from the start of the header.
    pub offset: usize,
    /// Length in bytes (of the containing bytes, for a sub-byte field).
    pub len: usize,
    /// `Some` for sub-byte fields.
    pub bits: Option<BitField>,
    /// One-line description.
    pub description: &'static str,
}

impl FieldDesc {
    /// A whole-byte field over a `Field` range.
    pub const fn range(name: &'static str, r: Field, description: &'static str) -> Self {
        Self {
            name,
            offset: r.start,
            len: r.end - r.start,
            bits: None,
            description,
        }
    }

    /// A one-byte field at `offset`.
    pub const fn byte(name: &'static str, offset: usize, description: &'static str) -> Self {
        Self {
            name,
            offset,
            len: 1,
            bits: None,
            description,
        }
    }

    /// A sub-byte field of the byte at `offset`.
    pub const fn bits8(
        name: &'static str,
        offset: usize,
        mask: u8,
        description: &'static str,
    ) -> Self {
        Self::bits(name, offset..offset + 1, mask as u32, description)
    }

    /// A sub-byte field of the big-endian integer at `r` (at most 4 bytes).
    pub const fn bits(name: &'static str, r: Field, mask: u32, description: &'static str) -> Self {
        Self {
            name,
            offset: r.start,
            len: r.end - r.start,
            bits: Some(BitField {
                mask,
                shift: mask.trailing_zeros(),
            }),
            description,
        }
    }

    /// The field's bytes within `header`, `None` if `header` is too short.
    pub fn bytes<'a>(&self, header: &'a [u8]) -> Option<&'a [u8]> {
        header.get(self.offset..self.offset.checked_add(self.len)?)
    }

    /// The field's value (for fields of at most 8 bytes), `None` if `header` is too short or the field is longer.
    pub fn value(&self, header: &[u8]) -> Option<u64> {
        let b = self.bytes(header)?;
        if b.len() > 8 {
            return None;
        }
        let raw = b.iter().fold(0u64, |acc, &x| (acc << 8) | u64::from(x));
        Some(match self.bits {
            Some(bf) => (raw & u64::from(bf.mask)) >> bf.shift,
            None => raw,
        })
    }

    /// Width of the field in bits.
    pub const fn width_bits(&self) -> u32 {
        match self.bits {
            Some(bf) => bf.mask.count_ones(),
            None => (self.len * 8) as u32,
        }
    }
}

/// The layout of one header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderLayout {
    /// Header name (as in the golden-vector file names).
    pub name: &'static str,
    /// Rust module that implements it (under `wire`).
    pub module: &'static str,
    /// Length in bytes.
    pub len: usize,
    /// Fields in offset order.
    pub fields: &'static [FieldDesc],
}

impl HeaderLayout {
    /// The field called `name`.
    pub fn field(&self, name: &str) -> Option<&'static FieldDesc> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// Flag masks of MbhFlags, as u8 (for const contexts).
const SYN: u8 = MbhFlags::SYN.0;
const AR: u8 = MbhFlags::AR.0;
const RTX: u8 = MbhFlags::RTX.0;

/// MetaRoCE base header (spec 3.2).
pub static MBH: HeaderLayout = HeaderLayout {
    name: "mbh",
    module: "mbh",
    len: mbh::field::HEADER_LEN,
    fields: &[
        FieldDesc::bits8(
            "ver",
            mbh::field::VER_TYPE,
            mbh::field::VER_MASK,
            "version, 1",
        ),
        FieldDesc::bits8(
            "type",
            mbh::field::VER_TYPE,
            mbh::field::TYPE_MASK,
            "1 DATA, 2 ACK, 3 NACK, 4 CTRL",
        ),
        FieldDesc::bits8("syn", mbh::field::FLAGS, SYN, "Open extension present"),
        FieldDesc::bits8("ar", mbh::field::FLAGS, AR, "ack requested immediately"),
        FieldDesc::bits8("rtx", mbh::field::FLAGS, RTX, "retransmission"),
        FieldDesc::bits8(
            "flags_reserved",
            mbh::field::FLAGS,
            !MbhFlags::ALL.0,
            "reserved, send 0, ignore",
        ),
        FieldDesc::range(
            "payload_len",
            mbh::field::PAYLOAD_LEN,
            "payload bytes after all headers, before ICV",
        ),
        FieldDesc::range(
            "dcid",
            mbh::field::DCID,
            "receiver's 24-bit connection id, 0 = unknown",
        ),
        FieldDesc::byte(
            "hlen",
            mbh::field::HLEN,
            "MetaRoCE header length in 4-byte words",
        ),
        FieldDesc::range(
            "psn",
            mbh::field::PSN,
            "PSN / cumulative ack / nacked PSN / next PSN",
        ),
        FieldDesc::range("ts", mbh::field::TS, "sender's transmit time, ns mod 2^32"),
    ],
};

const FIRST: u8 = DataFlags::FIRST.0;
const LAST: u8 = DataFlags::LAST.0;
const SE: u8 = DataFlags::SE.0;

/// DATA header including the immediate (present only for WRITE_IMM and SEND_IMM) (spec 3.3).
pub static DATA: HeaderLayout = HeaderLayout {
    name: "data_imm",
    module: "data",
    len: data::field::HEADER_LEN_IMM,
    fields: &[
        FieldDesc::byte("opcode", data::field::OPCODE, "operation"),
        FieldDesc::bits8(
            "first",
            data::field::DFLAGS,
            FIRST,
            "first packet of the message",
        ),
        FieldDesc::bits8(
            "last",
            data::field::DFLAGS,
            LAST,
            "last packet of the message",
        ),
        FieldDesc::bits8("se", data::field::DFLAGS, SE, "solicited event"),
        FieldDesc::bits8(
            "dflags_reserved",
            data::field::DFLAGS,
            !DataFlags::ALL.0,
            "reserved, 0",
        ),
        FieldDesc::range("reserved", data::field::RESERVED, "reserved, 0"),
        FieldDesc::range("msn", data::field::MSN, "message sequence number"),
        FieldDesc::range("addr", data::field::ADDR, "remote VA / byte offset"),
        FieldDesc::range("key", data::field::KEY, "R_Key / SSN / answered MSN"),
        FieldDesc::range("msg_len", data::field::MSG_LEN, "total message length"),
        FieldDesc::range(
            "imm",
            data::field::IMM,
            "immediate; only WRITE_IMM and SEND_IMM",
        ),
    ],
};

/// Open extension (spec 3.7).
pub static OPEN: HeaderLayout = HeaderLayout {
    name: "open",
    module: "open",
    len: open::field::HEADER_LEN,
    fields: &[
        FieldDesc::range("scid", open::field::SCID, "sender's connection id"),
        FieldDesc::byte(
            "wlog",
            open::field::WLOG,
            "receive window, log2 packets (8..=16)",
        ),
        FieldDesc::range("isn", open::field::ISN, "first PSN in this direction"),
        FieldDesc::range(
            "target_qpn",
            open::field::TARGET_QPN,
            "receiver's QP number",
        ),
        FieldDesc::byte(
            "mtu_log",
            open::field::MTU_LOG,
            "log2 max payload per packet (9..=13)",
        ),
    ],
};

const ECE: u8 = AckFlags::ECE.0;
const DUP: u8 = AckFlags::DUP.0;

/// ACK header (spec 3.8).
pub static ACK: HeaderLayout = HeaderLayout {
    name: "ack",
    module: "ack",
    len: ack::field::HEADER_LEN,
    fields: &[
        FieldDesc::range("scid", ack::field::SCID, "acker's connection id"),
        FieldDesc::bits8("ece", ack::field::AFLAGS, ECE, "triggering packet was CE"),
        FieldDesc::bits8(
            "dup",
            ack::field::AFLAGS,
            DUP,
            "triggering packet was a duplicate",
        ),
        FieldDesc::bits8(
            "aflags_reserved",
            ack::field::AFLAGS,
            !AckFlags::ALL.0,
            "reserved, 0",
        ),
        FieldDesc::range(
            "echo_ts",
            ack::field::ECHO_TS,
            "MBH.TS of the triggering DATA packet",
        ),
        FieldDesc::range("sack_base", ack::field::SACK_BASE, "PSN of bitmap bit 0"),
        FieldDesc::range(
            "echo_ev",
            ack::field::ECHO_EV,
            "UDP source port of the triggering packet",
        ),
        FieldDesc::range(
            "ce_count",
            ack::field::CE_COUNT,
            "CE-marked packets since the previous ACK",
        ),
        FieldDesc::range(
            "sack",
            ack::field::SACK,
            "bit i: byte 16 + i/8, mask 1 << (i % 8)",
        ),
    ],
};

/// NACK header (spec 3.9).
pub static NACK: HeaderLayout = HeaderLayout {
    name: "nack",
    module: "nack",
    len: nack::field::HEADER_LEN,
    fields: &[
        FieldDesc::range("scid", nack::field::SCID, "nacker's connection id"),
        FieldDesc::byte("code", nack::field::CODE, "1 TRIMMED .. 6 UNSUPPORTED"),
        FieldDesc::range(
            "echo_ts",
            nack::field::ECHO_TS,
            "MBH.TS of the triggering packet",
        ),
        FieldDesc::range("aux", nack::field::AUX, "code-specific"),
    ],
};

/// CTRL header (spec 3.10).
pub static CTRL: HeaderLayout = HeaderLayout {
    name: "ctrl",
    module: "ctrl",
    len: ctrl::field::HEADER_LEN,
    fields: &[
        FieldDesc::range("scid", ctrl::field::SCID, "sender's connection id"),
        FieldDesc::byte("code", ctrl::field::CODE, "1 OPEN .. 6 CREDIT_REQ"),
        FieldDesc::range("echo_ts", ctrl::field::ECHO_TS, "echoed timestamp"),
        FieldDesc::range("aux", ctrl::field::AUX, "code-specific"),
    ],
};

/// Untagged Ethernet II header (MR-ENC-1..-3).
pub static ETHERNET: HeaderLayout = HeaderLayout {
    name: "ethernet",
    module: "ethernet",
    len: ethernet::field::HEADER_LEN,
    fields: &[
        FieldDesc::range("dst", ethernet::field::DST, "destination MAC"),
        FieldDesc::range("src", ethernet::field::SRC, "source MAC"),
        FieldDesc::range(
            "ethertype",
            ethernet::field::ETHERTYPE,
            "0x0800 IPv4, 0x86DD IPv6",
        ),
    ],
};

/// Ethernet II header with one 802.1Q tag (MR-ENC-1..-3).
pub static ETHERNET_VLAN: HeaderLayout = HeaderLayout {
    name: "ethernet_vlan",
    module: "ethernet",
    len: ethernet::field::VLAN_HEADER_LEN,
    fields: &[
        FieldDesc::range("dst", ethernet::field::DST, "destination MAC"),
        FieldDesc::range("src", ethernet::field::SRC, "source MAC"),
        FieldDesc::range("tpid", ethernet::field::ETHERTYPE, "0x8100"),
        FieldDesc::range("tci", ethernet::field::TCI, "PCP 3, DEI 1, VID 12"),
        FieldDesc::range(
            "ethertype",
            ethernet::field::INNER_ETHERTYPE,
            "0x0800 IPv4, 0x86DD IPv6",
        ),
    ],
};

/// IPv4 header without options (MR-ENC-5, MR-ENC-8).
pub static IPV4: HeaderLayout = HeaderLayout {
    name: "ipv4",
    module: "ipv4",
    len: ipv4::field::HEADER_LEN,
    fields: &[
        FieldDesc::bits8("version", ipv4::field::VER_IHL, ipv4::field::VER_MASK, "4"),
        FieldDesc::bits8(
            "ihl",
            ipv4::field::VER_IHL,
            ipv4::field::IHL_MASK,
            "5 (no options)",
        ),
        FieldDesc::bits8(
            "dscp",
            ipv4::field::DSCP_ECN,
            ipv4::field::DSCP_MASK,
            "DSCP; masked in the ICV",
        ),
        FieldDesc::bits8(
            "ecn",
            ipv4::field::DSCP_ECN,
            ipv4::field::ECN_MASK,
            "ECN; masked in the ICV",
        ),
        FieldDesc::range("total_len", ipv4::field::LENGTH, "header + payload"),
        FieldDesc::range("ident", ipv4::field::IDENT, "identification"),
        FieldDesc::bits(
            "flag_reserved",
            ipv4::field::FLG_OFF,
            ipv4::field::FLAG_RESERVED_MASK as u32,
            "reserved, 0",
        ),
        FieldDesc::bits(
            "df",
            ipv4::field::FLG_OFF,
            ipv4::field::FLAG_DF_MASK as u32,
            "don't fragment, 1",
        ),
        FieldDesc::bits(
            "mf",
            ipv4::field::FLG_OFF,
            ipv4::field::FLAG_MF_MASK as u32,
            "more fragments, 0",
        ),
        FieldDesc::bits(
            "frag_offset",
            ipv4::field::FLG_OFF,
            ipv4::field::FRAG_OFF_MASK as u32,
            "0",
        ),
        FieldDesc::byte("ttl", ipv4::field::TTL, "time to live; masked in the ICV"),
        FieldDesc::byte("protocol", ipv4::field::PROTOCOL, "17"),
        FieldDesc::range(
            "checksum",
            ipv4::field::CHECKSUM,
            "header checksum; masked in the ICV",
        ),
        FieldDesc::range("src", ipv4::field::SRC, "source address"),
        FieldDesc::range("dst", ipv4::field::DST, "destination address"),
    ],
};

/// IPv6 fixed header (MR-ENC-11, MR-ENC-14).
pub static IPV6: HeaderLayout = HeaderLayout {
    name: "ipv6",
    module: "ipv6",
    len: ipv6::field::HEADER_LEN,
    fields: &[
        FieldDesc::bits(
            "version",
            ipv6::field::VER_TC_FLOW,
            ipv6::field::VER_MASK,
            "6",
        ),
        FieldDesc::bits(
            "dscp",
            ipv6::field::VER_TC_FLOW,
            ipv6::field::DSCP_MASK,
            "DSCP; masked in the ICV",
        ),
        FieldDesc::bits(
            "ecn",
            ipv6::field::VER_TC_FLOW,
            ipv6::field::ECN_MASK,
            "ECN; masked in the ICV",
        ),
        FieldDesc::bits(
            "flow_label",
            ipv6::field::VER_TC_FLOW,
            ipv6::field::FLOW_MASK,
            "masked in the ICV",
        ),
        FieldDesc::range("payload_len", ipv6::field::LENGTH, "payload length"),
        FieldDesc::byte("next_header", ipv6::field::NXT_HDR, "17"),
        FieldDesc::byte(
            "hop_limit",
            ipv6::field::HOP_LIMIT,
            "hop limit; masked in the ICV",
        ),
        FieldDesc::range("src", ipv6::field::SRC, "source address"),
        FieldDesc::range("dst", ipv6::field::DST, "destination address"),
    ],
};

/// UDP header (MR-ENC-15..-20).
pub static UDP: HeaderLayout = HeaderLayout {
    name: "udp",
    module: "udp",
    len: udp::field::HEADER_LEN,
    fields: &[
        FieldDesc::range(
            "src_port",
            udp::field::SRC_PORT,
            "entropy value: 0xC000 | ev",
        ),
        FieldDesc::range(
            "dst_port",
            udp::field::DST_PORT,
            "4792 (MetaRoCE), 4791 (RoCEv2)",
        ),
        FieldDesc::range("length", udp::field::LENGTH, "header + payload"),
        FieldDesc::range(
            "checksum",
            udp::field::CHECKSUM,
            "0 on send, ignored; masked in the ICV",
        ),
    ],
};

/// RoCEv2 base transport header.
pub static BTH: HeaderLayout = HeaderLayout {
    name: "bth",
    module: "roce",
    len: roce::field::HEADER_LEN,
    fields: &[
        FieldDesc::byte("opcode", roce::field::OPCODE, "RC opcode"),
        FieldDesc::bits8(
            "se",
            roce::field::FLAGS,
            roce::field::SE_MASK,
            "solicited event",
        ),
        FieldDesc::bits8(
            "mig_req",
            roce::field::FLAGS,
            roce::field::MIG_MASK,
            "migration state",
        ),
        FieldDesc::bits8(
            "pad_cnt",
            roce::field::FLAGS,
            roce::field::PAD_MASK,
            "pad bytes before the ICRC",
        ),
        FieldDesc::bits8(
            "tver",
            roce::field::FLAGS,
            roce::field::TVER_MASK,
            "transport version, 0",
        ),
        FieldDesc::range("pkey", roce::field::PKEY, "partition key"),
        FieldDesc::bits8(
            "fecn",
            roce::field::FECN_BECN,
            roce::field::FECN_MASK,
            "forward ECN; masked in ICRC",
        ),
        FieldDesc::bits8(
            "becn",
            roce::field::FECN_BECN,
            roce::field::BECN_MASK,
            "backward ECN; masked in ICRC",
        ),
        FieldDesc::bits8(
            "resv6",
            roce::field::FECN_BECN,
            roce::field::RESV6_MASK,
            "reserved; masked in ICRC",
        ),
        FieldDesc::range("dest_qp", roce::field::DEST_QP, "destination QP"),
        FieldDesc::bits8(
            "ack_req",
            roce::field::ACKREQ,
            roce::field::ACKREQ_MASK,
            "ack requested",
        ),
        FieldDesc::bits8(
            "resv7",
            roce::field::ACKREQ,
            roce::field::RESV7_MASK,
            "reserved",
        ),
        FieldDesc::range("psn", roce::field::PSN, "24-bit PSN"),
    ],
};

/// RoCEv2 RDMA extended transport header.
pub static RETH: HeaderLayout = HeaderLayout {
    name: "reth",
    module: "roce",
    len: roce::reth_field::HEADER_LEN,
    fields: &[
        FieldDesc::range("va", roce::reth_field::VA, "virtual address"),
        FieldDesc::range("rkey", roce::reth_field::RKEY, "remote key"),
        FieldDesc::range("dma_len", roce::reth_field::DMA_LEN, "DMA length"),
    ],
};

/// RoCEv2 ACK extended transport header.
pub static AETH: HeaderLayout = HeaderLayout {
    name: "aeth",
    module: "roce",
    len: roce::aeth_field::HEADER_LEN,
    fields: &[
        FieldDesc::byte(
            "syndrome",
            roce::aeth_field::SYNDROME,
            "ACK / NAK / RNR syndrome",
        ),
        FieldDesc::range("msn", roce::aeth_field::MSN, "24-bit MSN"),
    ],
};

/// RoCEv2 immediate-data header.
pub static IMMDT: HeaderLayout = HeaderLayout {
    name: "immdt",
    module: "roce",
    len: roce::imm_field::HEADER_LEN,
    fields: &[FieldDesc::range(
        "imm",
        roce::imm_field::IMM,
        "immediate data",
    )],
};

/// Every table.
pub static ALL: &[&HeaderLayout] = &[
    &ETHERNET,
    &ETHERNET_VLAN,
    &IPV4,
    &IPV6,
    &UDP,
    &MBH,
    &DATA,
    &OPEN,
    &ACK,
    &NACK,
    &CTRL,
    &BTH,
    &RETH,
    &AETH,
    &IMMDT,
];

#[cfg(test)]
mod tests {
    use super::super::*;
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;

    /// Every bit of every header belongs to exactly one field; sub-byte masks are contiguous, fit their bytes and
    /// have the shift of their lowest bit; names are unique; fields are in offset order.
    #[test]
    fn tables_cover_each_bit_once() {
        for h in ALL {
            let mut owner: Vec<Option<&str>> = vec![None; h.len * 8];
            let mut names: Vec<&str> = Vec::new();
            let mut last_off = 0;
            for f in h.fields {
                assert!(!names.contains(&f.name), "{}: duplicate {}", h.name, f.name);
                names.push(f.name);
                assert!(f.offset >= last_off, "{}: {} out of order", h.name, f.name);
                last_off = f.offset;
                assert!(
                    f.len > 0 && f.offset + f.len <= h.len,
                    "{}: {} outside the header",
                    h.name,
                    f.name
                );
                let width = f.len * 8;
                let mask: u128 = match f.bits {
                    Some(bf) => {
                        assert!(
                            f.len <= 4,
                            "{}: {} sub-byte field wider than 4 bytes",
                            h.name,
                            f.name
                        );
                        assert_ne!(bf.mask, 0, "{}: {}", h.name, f.name);
                        assert_eq!(bf.shift, bf.mask.trailing_zeros(), "{}: {}", h.name, f.name);
                        let m = bf.mask >> bf.shift;
                        assert_eq!(m & (m + 1), 0, "{}: {} mask not contiguous", h.name, f.name);
                        assert!(
                            width == 32 || bf.mask >> width == 0,
                            "{}: {} mask exceeds bytes",
                            h.name,
                            f.name
                        );
                        u128::from(bf.mask)
                    }
                    None => u128::MAX,
                };
                for bit in 0..width {
                    // bit 0 = most significant bit of the field's first byte.
                    let lsb_index = width - 1 - bit;
                    if lsb_index < 128 && mask >> lsb_index & 1 == 0 {
                        continue;
                    }
                    let abs = f.offset * 8 + bit;
                    assert_eq!(
                        owner[abs], None,
                        "{}: bit {abs} in {} and {:?}",
                        h.name, f.name, owner[abs]
                    );
                    owner[abs] = Some(f.name);
                }
            }
            for (i, o) in owner.iter().enumerate() {
                assert!(
                    o.is_some(),
                    "{}: bit {i} (byte {}) belongs to no field",
                    h.name,
                    i / 8
                );
            }
        }
    }

    /// The lengths agree with the views.
    #[test]
    fn tables_match_view_lengths() {
        assert_eq!(MBH.len, MbhHeader::<&[u8]>::LEN);
        assert_eq!(DATA.len, DataHeader::<&[u8]>::LEN + 4);
        assert_eq!(OPEN.len, OpenExt::<&[u8]>::LEN);
        assert_eq!(ACK.len, AckHeader::<&[u8]>::LEN);
        assert_eq!(NACK.len, NackHeader::<&[u8]>::LEN);
        assert_eq!(CTRL.len, CtrlHeader::<&[u8]>::LEN);
        assert_eq!(ETHERNET.len, EthernetFrame::<&[u8]>::LEN);
        assert_eq!(IPV4.len, Ipv4Packet::<&[u8]>::LEN);
        assert_eq!(IPV6.len, Ipv6Packet::<&[u8]>::LEN);
        assert_eq!(UDP.len, UdpPacket::<&[u8]>::LEN);
        assert_eq!(BTH.len, Bth::<&[u8]>::LEN);
        assert_eq!(RETH.len, Reth::<&[u8]>::LEN);
        assert_eq!(AETH.len, Aeth::<&[u8]>::LEN);
        assert_eq!(IMMDT.len, ImmDt::<&[u8]>::LEN);
    }

    /// Checks that reading every field of `h` from `buf` through the table gives `want` (all fields listed).
    fn check(h: &HeaderLayout, buf: &[u8], want: &[(&str, u64)]) {
        for f in h.fields {
            if f.len > 8 {
                continue;
            }
            let w = want.iter().find(|(n, _)| *n == f.name).map(|&(_, v)| v);
            let w = w.unwrap_or_else(|| panic!("{}: no expectation for {}", h.name, f.name));
            assert_eq!(f.value(buf), Some(w), "{}.{}", h.name, f.name);
        }
    }

    /// Values emitted through the views read back identically through the tables, field by field.
    #[test]
    fn tables_agree_with_accessors() {
        let mut b = [0u8; 48];
        let mut m = MbhHeader::new_unchecked(&mut b[..16]);
        m.set_version(1);
        m.set_ptype(3);
        m.set_flags(MbhFlags::AR | MbhFlags(0x05));
        m.set_payload_len(0x1234);
        m.set_dcid(0xABCDEF);
        m.set_hlen(7);
        m.set_psn(0x01020304);
        m.set_ts(0xF0E0D0C0);
        check(
            &MBH,
            &b,
            &[
                ("ver", 1),
                ("type", 3),
                ("syn", 0),
                ("ar", 1),
                ("rtx", 0),
                ("flags_reserved", 5),
                ("payload_len", 0x1234),
                ("dcid", 0xABCDEF),
                ("hlen", 7),
                ("psn", 0x01020304),
                ("ts", 0xF0E0D0C0),
            ],
        );

        let mut b = [0u8; 28];
        let d = DataRepr {
            opcode: Opcode::SendImm,
            flags: DataFlags::LAST | DataFlags::SE,
            msn: 9,
            addr: 0x1122334455667788,
            key: 0x99,
            msg_len: 4096,
            imm: Some(0xCAFEBABE),
        };
        d.emit(&mut DataHeader::new_unchecked(&mut b[..]));
        check(
            &DATA,
            &b,
            &[
                ("opcode", 4),
                ("first", 0),
                ("last", 1),
                ("se", 1),
                ("dflags_reserved", 0),
                ("reserved", 0),
                ("msn", 9),
                ("addr", 0x1122334455667788),
                ("key", 0x99),
                ("msg_len", 4096),
                ("imm", 0xCAFEBABE),
            ],
        );

        let mut b = [0u8; 12];
        OpenRepr {
            scid: 0x10203,
            wlog: 12,
            isn: 77,
            target_qpn: 0x40506,
            mtu_log: 12,
        }
        .emit(&mut OpenExt::new_unchecked(&mut b[..]));
        check(
            &OPEN,
            &b,
            &[
                ("scid", 0x10203),
                ("wlog", 12),
                ("isn", 77),
                ("target_qpn", 0x40506),
                ("mtu_log", 12),
            ],
        );

        let mut b = [0u8; 48];
        let mut sack = SackBitmap::EMPTY;
        sack.set(200, true);
        AckRepr {
            scid: 5,
            flags: AckFlags::DUP,
            echo_ts: 6,
            sack_base: 7,
            echo_ev: 0xC001,
            ce_count: 9,
            sack,
        }
        .emit(&mut AckHeader::new_unchecked(&mut b[..]));
        check(
            &ACK,
            &b,
            &[
                ("scid", 5),
                ("ece", 0),
                ("dup", 1),
                ("aflags_reserved", 0),
                ("echo_ts", 6),
                ("sack_base", 7),
                ("echo_ev", 0xC001),
                ("ce_count", 9),
            ],
        );
        let sack_bytes = ACK.field("sack").and_then(|f| f.bytes(&b)).unwrap();
        assert_eq!(sack_bytes[25], 0x01, "bit 200 = byte 25, mask 1");

        let mut b = [0u8; 12];
        NackRepr {
            scid: 1,
            code: NackCode::Rnr,
            echo_ts: 2,
            aux: 3,
        }
        .emit(&mut NackHeader::new_unchecked(&mut b[..]));
        check(
            &NACK,
            &b,
            &[("scid", 1), ("code", 3), ("echo_ts", 2), ("aux", 3)],
        );
        CtrlRepr {
            scid: 4,
            code: CtrlCode::Close,
            echo_ts: 5,
            aux: 6,
        }
        .emit(&mut CtrlHeader::new_unchecked(&mut b[..]));
        check(
            &CTRL,
            &b,
            &[("scid", 4), ("code", 2), ("echo_ts", 5), ("aux", 6)],
        );

        let mut b = [0u8; 20];
        Ipv4Repr {
            src: [1, 2, 3, 4],
            dst: [5, 6, 7, 8],
            dscp: 46,
            ecn: 3,
            ttl: 63,
            ident: 0x4242,
            dont_frag: true,
            protocol: 17,
            payload_len: 100,
        }
        .emit(&mut Ipv4Packet::new_unchecked(&mut b[..]));
        let csum = Ipv4Packet::new_unchecked(&b[..]).checksum();
        check(
            &IPV4,
            &b,
            &[
                ("version", 4),
                ("ihl", 5),
                ("dscp", 46),
                ("ecn", 3),
                ("total_len", 120),
                ("ident", 0x4242),
                ("flag_reserved", 0),
                ("df", 1),
                ("mf", 0),
                ("frag_offset", 0),
                ("ttl", 63),
                ("protocol", 17),
                ("checksum", u64::from(csum)),
                ("src", 0x01020304),
                ("dst", 0x05060708),
            ],
        );

        let mut b = [0u8; 40];
        Ipv6Repr {
            src: [1; 16],
            dst: [2; 16],
            dscp: 10,
            ecn: 1,
            flow_label: 0xABCDE,
            hop_limit: 9,
            next_header: 17,
            payload_len: 300,
        }
        .emit(&mut Ipv6Packet::new_unchecked(&mut b[..]));
        check(
            &IPV6,
            &b,
            &[
                ("version", 6),
                ("dscp", 10),
                ("ecn", 1),
                ("flow_label", 0xABCDE),
                ("payload_len", 300),
                ("next_header", 17),
                ("hop_limit", 9),
            ],
        );

        let mut b = [0u8; 8];
        UdpRepr {
            src_port: 0xC123,
            dst_port: 4792,
            payload_len: 10,
        }
        .emit(&mut UdpPacket::new_unchecked(&mut b[..]));
        check(
            &UDP,
            &b,
            &[
                ("src_port", 0xC123),
                ("dst_port", 4792),
                ("length", 18),
                ("checksum", 0),
            ],
        );

        let mut b = [0u8; 18];
        EthernetRepr {
            src: [1; 6],
            dst: [2; 6],
            vlan: Some(0x3064),
            ethertype: 0x86DD,
        }
        .emit(&mut EthernetFrame::new_unchecked(&mut b[..]));
        check(
            &ETHERNET_VLAN,
            &b,
            &[
                ("dst", 0x020202020202),
                ("src", 0x010101010101),
                ("tpid", 0x8100),
                ("tci", 0x3064),
                ("ethertype", 0x86DD),
            ],
        );
        EthernetRepr {
            src: [1; 6],
            dst: [2; 6],
            vlan: None,
            ethertype: 0x0800,
        }
        .emit(&mut EthernetFrame::new_unchecked(&mut b[..]));
        check(
            &ETHERNET,
            &b,
            &[
                ("dst", 0x020202020202),
                ("src", 0x010101010101),
                ("ethertype", 0x0800),
            ],
        );

        let mut b = [0u8; 12];
        BthRepr {
            opcode: RoceOpcode::WriteOnly,
            se: true,
            mig_req: false,
            pad_cnt: 2,
            tver: 0,
            pkey: 0xFFFF,
            fecn: true,
            becn: false,
            dest_qp: 0x123456,
            ack_req: true,
            psn: 0xABCDEF,
        }
        .emit(&mut Bth::new_unchecked(&mut b[..]));
        check(
            &BTH,
            &b,
            &[
                ("opcode", 0x0A),
                ("se", 1),
                ("mig_req", 0),
                ("pad_cnt", 2),
                ("tver", 0),
                ("pkey", 0xFFFF),
                ("fecn", 1),
                ("becn", 0),
                ("resv6", 0),
                ("dest_qp", 0x123456),
                ("ack_req", 1),
                ("resv7", 0),
                ("psn", 0xABCDEF),
            ],
        );
        let mut b = [0u8; 16];
        RethRepr {
            va: 0x1000,
            rkey: 0x2000,
            dma_len: 0x3000,
        }
        .emit(&mut Reth::new_unchecked(&mut b[..]));
        check(
            &RETH,
            &b,
            &[("va", 0x1000), ("rkey", 0x2000), ("dma_len", 0x3000)],
        );
        let mut b = [0u8; 4];
        AethRepr {
            syndrome: 0x60,
            msn: 0x10203,
        }
        .emit(&mut Aeth::new_unchecked(&mut b[..]));
        check(&AETH, &b, &[("syndrome", 0x60), ("msn", 0x10203)]);
        ImmDt::new_unchecked(&mut b[..]).set_imm(0xDEADBEEF);
        check(&IMMDT, &b, &[("imm", 0xDEADBEEF)]);
    }

    #[test]
    fn value_out_of_range_is_none() {
        assert_eq!(MBH.field("ts").and_then(|f| f.value(&[0u8; 15])), None);
        assert_eq!(ACK.field("sack").and_then(|f| f.value(&[0u8; 48])), None);
        assert_eq!(MBH.field("nope"), None);
    }
}
