//! Receive drop reasons: the value of [`PktMeta::drop`](crate::records::PktMeta), one code per counter of
//! `metaroce_proto::transport::Drops` (MR-ENC-41). 0 means "not dropped". The counter block keeps one counter per
//! code, in this order, and the register map's counter block names them.

/// Not dropped.
pub const NONE: u8 = 0;
/// ICV mismatch (MR-WIRE-40).
pub const BAD_ICV: u8 = 1;
/// Frame ends before a header or a declared length (MR-ENC-31, MR-ENC-32).
pub const TRUNCATED: u8 = 2;
/// MetaRoCE or IP version mismatch (MR-WIRE-6).
pub const BAD_VERSION: u8 = 3;
/// Reserved MetaRoCE packet type (MR-WIRE-7).
pub const BAD_TYPE: u8 = 4;
/// Inconsistent lengths (MR-ENC-31, MR-ENC-38, MR-WIRE-10, MR-WIRE-11).
pub const BAD_LENGTH: u8 = 5;
/// Bad IPv4 header checksum (MR-ENC-9).
pub const BAD_IP_CHECKSUM: u8 = 6;
/// IPv4 options, fragments, IPv6 next header not UDP, reserved codes.
pub const UNSUPPORTED: u8 = 7;
/// A field value the format forbids.
pub const MALFORMED: u8 = 8;
/// Another ethertype, IP protocol or UDP destination port.
pub const NOT_OURS: u8 = 9;
/// A trimmed packet that is not DATA or has DCID 0 (MR-ENC-35, MR-ENC-36).
pub const BAD_TRIM: u8 = 10;
/// Source address differs from the connection's peer (MR-CONN-3).
pub const WRONG_PEER: u8 = 11;
/// No context for the connection id (miss path, section 7.8).
pub const UNKNOWN_CONNECTION: u8 = 12;
/// PSN beyond the receive window (MR-REL-11).
pub const OUT_OF_WINDOW: u8 = 13;
/// Already received PSN (MR-REL-10).
pub const DUPLICATE: u8 = 14;
/// Memory-region check failed (MR-SEM-13..17).
pub const ACCESS: u8 = 15;
/// Packet of a failed message or otherwise invalid request.
pub const INVALID: u8 = 16;
/// Stale NACK (MR-REL-35, MR-REL-50).
pub const STALE_NACK: u8 = 17;
/// Not addressed to this endpoint (MAC / IP).
pub const NOT_FOR_US: u8 = 18;
/// Number of codes (counters), `NONE` included.
pub const COUNT: usize = 19;

/// Counter names, indexed by code (the names of `metaroce_proto::transport::Drops`' fields).
pub const NAMES: [&str; COUNT] = [
    "none",
    "bad_icv",
    "truncated",
    "bad_version",
    "bad_type",
    "bad_length",
    "bad_ip_checksum",
    "unsupported",
    "malformed",
    "not_ours",
    "bad_trim",
    "wrong_peer",
    "unknown_connection",
    "out_of_window",
    "duplicate",
    "access",
    "invalid",
    "stale_nack",
    "not_for_us",
];
