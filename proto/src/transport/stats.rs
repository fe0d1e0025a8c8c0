//! Endpoint counters. Every drop has a reason; every retransmission has a cause.

/// Reasons a received frame was dropped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Drops {
    /// ICV / ICRC mismatch (MR-WIRE-ICV).
    pub bad_icv: u64,
    /// Truncated or inconsistent headers, bad IP checksum, wrong UDP port.
    pub malformed: u64,
    /// Unknown MetaRoCE version or packet type (MR-WIRE-1).
    pub bad_version_or_type: u64,
    /// No context for the connection id / QP (a NO_CONTEXT NACK may have been sent).
    pub unknown_connection: u64,
    /// PSN at or beyond the receive window (MR-REL-2).
    pub out_of_window: u64,
    /// Payload of an already received PSN (MR-REL-2: exactly-once).
    pub duplicate: u64,
    /// Placement refused by the memory-region check (MR-SEM-2).
    pub access: u64,
    /// Packets of a message already failed, or otherwise invalid requests.
    pub invalid: u64,
    /// Not addressed to this endpoint (IP / MAC).
    pub not_for_us: u64,
}

/// Retransmissions by cause (MR-REL-4).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Retransmits {
    /// After a NACK TRIMMED.
    pub trim: u64,
    /// Time-based (RACK) detection.
    pub time: u64,
    /// Reorder-distance detection.
    pub distance: u64,
    /// RTO expiry.
    pub rto: u64,
    /// After an RNR NACK.
    pub rnr: u64,
    /// After a NO_CONTEXT NACK (whole connection reopened).
    pub no_context: u64,
    /// RoCEv2 go-back-N rewinds (packets re-sent).
    pub go_back_n: u64,
}

/// Per-code NACK counters, indexed by the wire code (1 TRIMMED .. 6 UNSUPPORTED; 0 = other).
pub type NackCounts = [u64; 7];

/// All counters of an endpoint.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Frames transmitted.
    pub tx_packets: u64,
    /// Bytes transmitted (whole frames).
    pub tx_bytes: u64,
    /// Data packets transmitted (first transmissions and retransmissions).
    pub tx_data_packets: u64,
    /// Payload bytes transmitted in data packets.
    pub tx_payload_bytes: u64,
    /// ACK frames transmitted.
    pub tx_acks: u64,
    /// Frames received.
    pub rx_packets: u64,
    /// Bytes received (whole frames).
    pub rx_bytes: u64,
    /// Data packets received and accepted (new PSN).
    pub rx_data_packets: u64,
    /// Payload bytes placed into memory.
    pub rx_payload_bytes: u64,
    /// ACK frames received.
    pub rx_acks: u64,
    /// Retransmissions by cause.
    pub retransmits: Retransmits,
    /// RTO expiries.
    pub timeouts: u64,
    /// Drops by reason.
    pub drops: Drops,
    /// Data packets that arrived out of order (new PSN beyond the expected one).
    pub ooo_arrivals: u64,
    /// Data packets received with ECN CE.
    pub ecn_ce_received: u64,
    /// ACKs received with ECE.
    pub ece_received: u64,
    /// Trimmed packets received.
    pub trimmed_received: u64,
    /// NACKs sent, by code.
    pub nacks_sent: NackCounts,
    /// NACKs received, by code.
    pub nacks_received: NackCounts,
    /// CNPs sent (RoCEv2).
    pub cnps_sent: u64,
    /// CNPs received (RoCEv2).
    pub cnps_received: u64,
    /// Connections opened (either side).
    pub connections_opened: u64,
    /// Connections closed.
    pub connections_closed: u64,
    /// EV recycles.
    pub path_recycles: u64,
}
