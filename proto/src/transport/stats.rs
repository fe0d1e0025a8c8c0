//! Endpoint counters. Every drop has a reason; every retransmission has a cause.

/// Reasons a received frame was dropped: one counter per drop reason (MR-ENC-41). The frame-level reasons map
/// one-to-one onto the variants of [`wire::Error`](crate::wire::Error) (see [`Drops::count_parse_error`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Drops {
    /// ICV / ICRC mismatch (MR-WIRE-40, MR-ROCE-12).
    pub bad_icv: u64,
    /// `wire::Error::Truncated`: the frame ends before a header or a declared length (MR-ENC-31, MR-ENC-32).
    pub truncated: u64,
    /// `wire::Error::BadVersion`: MetaRoCE version other than 1 or IP version mismatch (MR-WIRE-6).
    pub bad_version: u64,
    /// `wire::Error::BadType`: reserved MetaRoCE packet type (MR-WIRE-7).
    pub bad_type: u64,
    /// Aggregate of [`Drops::bad_version`] and [`Drops::bad_type`], kept for existing readers; not a separate
    /// reason (do not add it to the other counters).
    pub bad_version_or_type: u64,
    /// `wire::Error::BadLength`: inconsistent IP / UDP / `hlen` / `payload_len` lengths (MR-ENC-31, MR-ENC-38,
    /// MR-WIRE-10, MR-WIRE-11).
    pub bad_length: u64,
    /// `wire::Error::BadChecksum`: bad IPv4 header checksum (MR-ENC-9).
    pub bad_ip_checksum: u64,
    /// `wire::Error::Unsupported`: IPv4 options (MR-ENC-8), fragments (MR-ENC-10), IPv6 extension headers
    /// (MR-ENC-14), reserved NACK / CTRL codes (MR-WIRE-37, MR-WIRE-39).
    pub unsupported: u64,
    /// `wire::Error::Malformed`: a field value the format forbids (MR-WIRE-14, MR-WIRE-29, MR-WIRE-39).
    pub malformed: u64,
    /// `wire::Error::NotOurs`: another ethertype, IP protocol or UDP destination port (MR-ENC-3, MR-ENC-16).
    pub not_ours: u64,
    /// `wire::Error::BadTrim`: a trimmed packet that is not DATA or has DCID 0 (MR-ENC-35, MR-ENC-36).
    pub bad_trim: u64,
    /// Source IP address differs from the peer address of the connection named by the DCID (MR-CONN-3).
    pub wrong_peer: u64,
    /// No context for the connection id / QP (a NO_CONTEXT NACK may have been sent).
    pub unknown_connection: u64,
    /// PSN at or beyond the receive window (MR-REL-11).
    pub out_of_window: u64,
    /// Payload of an already received PSN (MR-REL-10: exactly-once).
    pub duplicate: u64,
    /// Placement refused by the memory-region check (MR-SEM-13..17, MR-SEM-32).
    pub access: u64,
    /// Packets of a message already failed, or otherwise invalid requests.
    pub invalid: u64,
    /// NACKs ignored: TRIMMED or RNR for a PSN not outstanding, acknowledged, or (TRIMMED) whose `echo_ts` is not
    /// the latest transmission's TS (MR-REL-35, MR-REL-50); fatal NACKs matching no started message (MR-SEM-35).
    pub stale_nack: u64,
    /// Not addressed to this endpoint (IP / MAC).
    pub not_for_us: u64,
}

impl Drops {
    /// Every dropped frame, each counted once (the aggregate [`Drops::bad_version_or_type`] left out).
    pub fn total(&self) -> u64 {
        self.bad_icv
            + self.truncated
            + self.bad_version
            + self.bad_type
            + self.bad_length
            + self.bad_ip_checksum
            + self.unsupported
            + self.malformed
            + self.not_ours
            + self.bad_trim
            + self.wrong_peer
            + self.unknown_connection
            + self.out_of_window
            + self.duplicate
            + self.access
            + self.invalid
            + self.stale_nack
            + self.not_for_us
    }

    /// Counts a frame the wire parser rejected under the counter of its reason (MR-ENC-41).
    pub fn count_parse_error(&mut self, e: crate::wire::Error) {
        use crate::wire::Error as E;
        match e {
            E::Truncated => self.truncated += 1,
            E::BadVersion => {
                self.bad_version += 1;
                self.bad_version_or_type += 1;
            }
            E::BadType => {
                self.bad_type += 1;
                self.bad_version_or_type += 1;
            }
            E::BadLength => self.bad_length += 1,
            E::BadChecksum => self.bad_ip_checksum += 1,
            E::Unsupported => self.unsupported += 1,
            E::Malformed => self.malformed += 1,
            E::NotOurs => self.not_ours += 1,
            E::BadTrim => self.bad_trim += 1,
        }
    }
}

/// Retransmissions by cause (MR-REL-34..39, MR-SEM-29, MR-CONN-35, MR-ROCE-22).
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

impl Retransmits {
    /// All retransmissions, every cause.
    pub fn total(&self) -> u64 {
        self.trim
            + self.time
            + self.distance
            + self.rto
            + self.rnr
            + self.no_context
            + self.go_back_n
    }
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
    /// CTRL PROBEs sent at RTO expiries (MR-PATH-11, MR-PATH-14).
    pub probes_sent: u64,
    /// Requester READs failed because no response data arrived within the retry budget (MR-REL-55).
    pub response_timeouts: u64,
}
