//! Statistics counters: one 64-bit counter per event the reference model counts (its `Stats`), with a drop
//! counter per drop reason (MR-ENC-41) and a counter of connection reopens (MR-REL-56).
//!
//! In the counters block, counter `i` is `VALUE[2 * i]` (low 32 bits) and `VALUE[2 * i + 1]` (high 32 bits).
//! Writing 1 to `SNAPSHOT` copies every counter into `VALUE` at one instant; the values then stay still until the
//! next snapshot, so the two halves and different counters are consistent with each other. The mailbox command
//! `READ_COUNTERS` returns up to seven counters, also from one instant.

use crate::block::{type_reg, version, version_reg, BlockLayout, BlockType, NEXT_REG};
use crate::field::{Access, Field, Register};

macro_rules! counters {
    ($($(#[doc = $doc:literal])* $name:ident = $text:literal;)*) => {
        /// Counter identifiers; the discriminant is the counter index.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u16)]
        pub enum CounterId {
            $($(#[doc = $doc])* $name,)*
        }

        /// Name and description of every counter, in index order.
        pub const COUNTERS: &[CounterInfo] = &[
            $(CounterInfo { id: CounterId::$name, name: $text, doc: concat!($($doc),*).trim_ascii() },)*
        ];

        impl CounterId {
            /// The counter with index `i`.
            pub fn from_index(i: u16) -> Option<CounterId> {
                COUNTERS.get(i as usize).map(|c| c.id)
            }
        }
    };
}

/// One counter's description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CounterInfo {
    /// Identifier (its discriminant is the index).
    pub id: CounterId,
    /// Name, lower snake case.
    pub name: &'static str,
    /// Description.
    pub doc: &'static str,
}

counters! {
    /// Frames transmitted.
    TxPackets = "tx_packets";
    /// Bytes transmitted (whole frames).
    TxBytes = "tx_bytes";
    /// DATA packets transmitted, retransmissions included.
    TxDataPackets = "tx_data_packets";
    /// Payload bytes transmitted in DATA packets.
    TxPayloadBytes = "tx_payload_bytes";
    /// ACK frames transmitted.
    TxAcks = "tx_acks";
    /// Frames received.
    RxPackets = "rx_packets";
    /// Bytes received (whole frames).
    RxBytes = "rx_bytes";
    /// DATA packets accepted (new PSN).
    RxDataPackets = "rx_data_packets";
    /// Payload bytes placed into memory.
    RxPayloadBytes = "rx_payload_bytes";
    /// ACK frames received.
    RxAcks = "rx_acks";
    /// Retransmissions after a NACK TRIMMED.
    RtxTrim = "rtx_trim";
    /// Retransmissions by time-based loss detection.
    RtxTime = "rtx_time";
    /// Retransmissions by reorder-distance loss detection.
    RtxDistance = "rtx_distance";
    /// Retransmissions after an RTO expiry.
    RtxRto = "rtx_rto";
    /// Retransmissions after a NACK RNR.
    RtxRnr = "rtx_rnr";
    /// Retransmissions after a NACK NO_CONTEXT (connection reopened).
    RtxNoContext = "rtx_no_context";
    /// RoCEv2 go-back-N retransmissions.
    RtxGoBackN = "rtx_go_back_n";
    /// RTO expiries.
    Timeouts = "timeouts";
    /// Drops: ICV / ICRC mismatch (MR-WIRE-40).
    DropBadIcv = "drop_bad_icv";
    /// Drops: frame shorter than a header or a declared length (MR-ENC-31).
    DropTruncated = "drop_truncated";
    /// Drops: MetaRoCE or IP version mismatch (MR-WIRE-6).
    DropBadVersion = "drop_bad_version";
    /// Drops: reserved MetaRoCE packet type (MR-WIRE-7).
    DropBadType = "drop_bad_type";
    /// Drops: inconsistent lengths (MR-ENC-31, MR-WIRE-10).
    DropBadLength = "drop_bad_length";
    /// Drops: bad IPv4 header checksum (MR-ENC-9).
    DropBadIpChecksum = "drop_bad_ip_checksum";
    /// Drops: IPv4 options, fragments, IPv6 extension headers, reserved codes.
    DropUnsupported = "drop_unsupported";
    /// Drops: a field value the format forbids.
    DropMalformed = "drop_malformed";
    /// Drops: another ethertype, IP protocol or UDP port.
    DropNotOurs = "drop_not_ours";
    /// Drops: a trimmed packet that is not DATA or has DCID 0 (MR-ENC-35).
    DropBadTrim = "drop_bad_trim";
    /// Drops: source address differs from the connection's peer (MR-CONN-3).
    DropWrongPeer = "drop_wrong_peer";
    /// Drops: no context for the connection id or QP.
    DropUnknownConnection = "drop_unknown_connection";
    /// Drops: PSN beyond the receive window (MR-REL-11).
    DropOutOfWindow = "drop_out_of_window";
    /// Drops: payload of a PSN already received (MR-REL-10).
    DropDuplicate = "drop_duplicate";
    /// Drops: placement refused by the memory-region check (MR-SEM-13).
    DropAccess = "drop_access";
    /// Drops: packets of a failed message or otherwise invalid requests.
    DropInvalid = "drop_invalid";
    /// Drops: stale NACKs ignored (MR-REL-35).
    DropStaleNack = "drop_stale_nack";
    /// Drops: not addressed to this endpoint.
    DropNotForUs = "drop_not_for_us";
    /// DATA packets that arrived out of order.
    OooArrivals = "ooo_arrivals";
    /// DATA packets received with ECN CE.
    EcnCeReceived = "ecn_ce_received";
    /// ACKs received with ECE.
    EceReceived = "ece_received";
    /// Trimmed packets received.
    TrimmedReceived = "trimmed_received";
    /// NACK TRIMMED sent.
    NackTxTrimmed = "nack_tx_trimmed";
    /// NACK NO_CONTEXT sent.
    NackTxNoContext = "nack_tx_no_context";
    /// NACK RNR sent.
    NackTxRnr = "nack_tx_rnr";
    /// NACK ACCESS sent.
    NackTxAccess = "nack_tx_access";
    /// NACK INVALID sent.
    NackTxInvalid = "nack_tx_invalid";
    /// NACK UNSUPPORTED sent.
    NackTxUnsupported = "nack_tx_unsupported";
    /// NACK TRIMMED received.
    NackRxTrimmed = "nack_rx_trimmed";
    /// NACK NO_CONTEXT received.
    NackRxNoContext = "nack_rx_no_context";
    /// NACK RNR received.
    NackRxRnr = "nack_rx_rnr";
    /// NACK ACCESS received.
    NackRxAccess = "nack_rx_access";
    /// NACK INVALID received.
    NackRxInvalid = "nack_rx_invalid";
    /// NACK UNSUPPORTED received.
    NackRxUnsupported = "nack_rx_unsupported";
    /// CNPs sent (RoCEv2).
    CnpsSent = "cnps_sent";
    /// CNPs received (RoCEv2).
    CnpsReceived = "cnps_received";
    /// Connections opened.
    ConnectionsOpened = "connections_opened";
    /// Connections closed.
    ConnectionsClosed = "connections_closed";
    /// Connection reopens (MR-REL-56).
    Reopens = "reopens";
    /// EV recycles (MR-PATH).
    PathRecycles = "path_recycles";
    /// CTRL PROBEs sent at RTO expiries.
    ProbesSent = "probes_sent";
    /// READs failed for lack of response data (MR-REL-55).
    ResponseTimeouts = "response_timeouts";
    /// Connection-cache misses held while the context was fetched (MR-CONN-30).
    CtxMisses = "ctx_misses";
    /// Mailbox commands rejected with a non-zero status.
    CmdRejected = "cmd_rejected";
    /// Mailbox `CTRL` writes ignored because a command was in progress.
    CmdIgnored = "cmd_ignored";
    /// New DATA packets held by the gate because every window slot of the sender was taken (hardware).
    WindowSlotWaits = "window_slot_waits";
    /// Frames discarded whole at the receive parser because its frame buffer had no room (hardware; the MAC
    /// side is never held back).
    RxOverflows = "rx_overflows";
}

/// Number of counters.
pub const COUNT: u16 = COUNTERS.len() as u16;

/// Register offsets of the counters block.
pub mod reg {
    /// `COUNT`.
    pub const COUNT: u32 = 0x0C;
    /// `SNAPSHOT`.
    pub const SNAPSHOT: u32 = 0x10;
    /// `VALUE[0]`.
    pub const VALUE: u32 = 0x40;
}

/// Register offset (from the block) of the low half of counter `id`; the high half follows at `+ 4`.
pub const fn value_offset(id: CounterId) -> u32 {
    reg::VALUE + 8 * id as u32
}

/// Layout version of this block.
pub const VERSION: u32 = version(1, 0);

/// The counters block's layout.
pub const BLOCK: BlockLayout = BlockLayout {
    kind: BlockType::Counters,
    version: VERSION,
    bytes: 0x400,
    doc: "Statistics counters, 64 bits each, read from a snapshot.",
    regs: &[
        type_reg(BlockType::Counters),
        version_reg(VERSION),
        NEXT_REG,
        Register::new(
            "COUNT",
            reg::COUNT,
            Access::Ro,
            COUNT as u32,
            "number of counters",
            &[Field::new("count", 0, 0, 16, "counters")],
        ),
        Register::new(
            "SNAPSHOT",
            reg::SNAPSHOT,
            Access::Wo,
            0,
            "copy all counters into VALUE at one instant",
            &[Field::new("take", 0, 0, 1, "1: take a snapshot")],
        ),
        Register::array(
            "VALUE",
            reg::VALUE,
            2 * COUNT as u32,
            Access::Ro,
            "snapshot: counter i low half at VALUE[2i], high half at VALUE[2i+1]",
        ),
    ],
};
