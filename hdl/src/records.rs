//! Records passed between the blocks of the core, as packed `LogicStruct`s.
//!
//! [`PktMeta`] is the one description of a MetaRoCE packet inside the core: the receive front end fills it from
//! a frame, the receive pipeline annotates it (connection, drop reason), the transmit and acknowledgement paths
//! fill it for the header builder. Field names follow `metaroce_proto::wire::layout`; widths are the wire
//! widths. A connection is named inside the core by its table index ([`ConnIdx`], the low bits of its CID).

// `LogicStruct` generates public accessor methods (`get_my_width_*`, `get_my_offset_*`) without docs; the
// records and their fields are documented here.
#![allow(missing_docs)]
use rust_hdl::prelude::*;

/// Index of a connection-table entry (up to 2^16 entries; the table size is a build parameter).
pub type ConnIdx = Bits<16>;

/// One MetaRoCE packet's header information.
///
/// Encapsulation fields are the peer's: on receive the source, on transmit the destination. The fields of
/// the type headers that a packet does not carry are zero.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct PktMeta {
    /// Peer MAC address.
    pub peer_mac: Bits<48>,
    /// Peer IP address (IPv4 in the low 32 bits).
    pub peer_ip: Bits<128>,
    /// The packet is (to be) carried over IPv6.
    pub ipv6: Bit,
    /// The frame carries one 802.1Q tag.
    pub vlan: Bit,
    /// The 802.1Q TCI (when `vlan`).
    pub tci: Bits<16>,
    /// IP DSCP.
    pub dscp: Bits<6>,
    /// IP ECN.
    pub ecn: Bits<2>,
    /// Entropy value: the UDP source port & 0x3FFF.
    pub ev: Bits<14>,
    /// MBH type.
    pub ptype: Bits<4>,
    /// MBH flags (SYN 0x80, AR 0x40, RTX 0x20).
    pub mbh_flags: Bits<8>,
    /// MBH payload length.
    pub payload_len: Bits<16>,
    /// MBH destination connection id.
    pub dcid: Bits<24>,
    /// MBH header length in 4-byte words.
    pub hlen: Bits<8>,
    /// MBH PSN (PSN / cumulative ack / nacked PSN / next PSN by type).
    pub psn: Bits<32>,
    /// MBH transmit timestamp.
    pub ts: Bits<32>,
    /// DATA opcode.
    pub opcode: Bits<8>,
    /// DATA flags (FIRST, LAST, SE).
    pub dflags: Bits<8>,
    /// DATA message sequence number.
    pub msn: Bits<32>,
    /// DATA placement address.
    pub addr: Bits<64>,
    /// DATA key (R_Key / SSN / answered MSN).
    pub key: Bits<32>,
    /// DATA message length.
    pub msg_len: Bits<32>,
    /// DATA immediate (WRITE_IMM, SEND_IMM).
    pub imm: Bits<32>,
    /// ACK/NACK/CTRL source connection id.
    pub scid: Bits<24>,
    /// ACK flags (ECE, DUP).
    pub aflags: Bits<8>,
    /// ACK/NACK/CTRL echoed timestamp.
    pub echo_ts: Bits<32>,
    /// ACK SACK base.
    pub sack_base: Bits<32>,
    /// ACK echoed UDP source port.
    pub echo_ev: Bits<16>,
    /// ACK CE count.
    pub ce_count: Bits<16>,
    /// ACK SACK bitmap: bit i is PSN `sack_base + i`.
    pub sack: Bits<256>,
    /// NACK/CTRL code.
    pub code: Bits<8>,
    /// NACK/CTRL auxiliary value.
    pub aux: Bits<32>,
    /// An Open extension is present.
    pub ox: Bit,
    /// OX source connection id.
    pub ox_scid: Bits<24>,
    /// OX receive window, log2 packets.
    pub wlog: Bits<8>,
    /// OX initial sequence number.
    pub isn: Bits<32>,
    /// OX target QP number.
    pub target_qpn: Bits<24>,
    /// OX log2 MTU.
    pub mtu_log: Bits<8>,
    /// Receive: the packet was classified as trimmed (MR-ENC-33).
    pub trimmed: Bit,
    /// Receive: not a packet but the ACK-delay timer's trigger for `conn` (MR-REL-16), made inside the receive
    /// engine ([`crate::rx::ack_timer`]); never set for a frame from the wire.
    pub ack_timer: Bit,
    /// Receive: 0 when the packet passed every check so far, else a drop reason ([`crate::rx::drop`]).
    pub drop: Bits<8>,
    /// The local connection (receive: from the lookup; transmit: the sender).
    pub conn: ConnIdx,
    /// Transmit: host address of the payload (DMA read source).
    pub local_addr: Bits<64>,
}

/// A request to retransmit one PSN of a connection (loss detection to the transmit scheduler).
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct RtxReq {
    /// Connection.
    pub conn: ConnIdx,
    /// PSN declared lost.
    pub psn: Bits<32>,
}

/// One transmitted DATA packet, reported by the transmit path to reliability and congestion control.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct TxSent {
    /// Connection.
    pub conn: ConnIdx,
    /// PSN.
    pub psn: Bits<32>,
    /// Transmit time (the packet's MBH.TS).
    pub ts: Bits<32>,
    /// Charged size (`payload_len + 64`, MR-CC).
    pub charged: Bits<16>,
    /// Index of the EV-set entry used.
    pub path: Bits<8>,
    /// The EV used.
    pub ev: Bits<14>,
    /// A retransmission.
    pub rtx: Bit,
}

/// A completion to be written into a completion queue (layout of the CQE: `metaroce_regmap::descriptor::cqe`).
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct Completion {
    /// Completion queue number.
    pub cqn: Bits<24>,
    /// Queue pair number.
    pub qpn: Bits<24>,
    /// Work-request id (send side) or receive WQE id.
    pub wr_id: Bits<64>,
    /// Status code (spec 8.10).
    pub status: Bits<8>,
    /// Opcode completed.
    pub opcode: Bits<8>,
    /// Bytes placed (receive side).
    pub byte_len: Bits<32>,
    /// Immediate data (WRITE_IMM, SEND_IMM).
    pub imm: Bits<32>,
    /// Flags (immediate present, solicited).
    pub flags: Bits<8>,
}

/// A context-table entry write, broadcast from the context-programming port to every table (no back-pressure:
/// tables accept one per cycle). `table` is one of [`crate::ctx::table`]; `data` is the entry in the layout of
/// `metaroce_regmap::context` (little-endian: byte k of the entry is `data[8k+7:8k]`).
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct CtxWrite {
    /// Which table.
    pub table: Bits<4>,
    /// Entry index.
    pub index: Bits<16>,
    /// The whole entry (64 bytes).
    pub data: Bits<512>,
}
