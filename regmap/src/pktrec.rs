//! The packet record: one MetaRoCE packet's header fields as the control processor sees them, 64 bytes. The
//! core hands the firmware every packet it does not process itself (the exception stream: opening SYNs, peer
//! restarts, NACK NO_CONTEXT with `DCID = 0`, spec 7.3 and 7.8) as one record in `fwbus::pkt::RX_REC`, and the
//! firmware sends a control packet (the CTRL OPEN of MR-CONN-14) by writing one into `fwbus::pkt::TX_REC`; the
//! core's frame builder makes the frame (addresses, UDP port, TTL and the ICV from the core's configuration).
//!
//! Field names are the core's packet-metadata field names; every field is copied bit for bit to and from it.
//! Addresses are numbers, not byte strings: `peer_mac` 0x0200_0000_0001 is 02:00:00:00:00:01, and `peer_ip`
//! holds the address as a little-endian 128-bit number (10.0.0.2 is bytes `02 00 00 0a` then zeros; an IPv6
//! address's first byte is byte 63).
//!
//! On transmit the core writes `ts` itself (the core's time in ns when `TX_SEND` is written) and ignores
//! `trimmed`; the packet carries no payload.

use crate::field::Layout;

/// Fields of the record.
pub mod field {
    use crate::field::Field;
    /// `psn`.
    pub const PSN: Field = Field::new("psn", 0, 0, 32, "MBH PSN");
    /// `ts`.
    pub const TS: Field = Field::new("ts", 4, 0, 32, "MBH TS (on transmit: set by the core)");
    /// `echo_ts`.
    pub const ECHO_TS: Field = Field::new("echo_ts", 8, 0, 32, "ACK/NACK/CTRL echoed TS");
    /// `aux`.
    pub const AUX: Field = Field::new("aux", 12, 0, 32, "NACK/CTRL auxiliary value");
    /// `isn`.
    pub const ISN: Field = Field::new("isn", 16, 0, 32, "OX initial sequence number");
    /// `dcid`.
    pub const DCID: Field = Field::new("dcid", 20, 0, 24, "MBH destination CID");
    /// `mbh_flags`.
    pub const MBH_FLAGS: Field = Field::new(
        "mbh_flags",
        23,
        0,
        8,
        "MBH flags (SYN 0x80, AR 0x40, RTX 0x20)",
    );
    /// `scid`.
    pub const SCID: Field = Field::new("scid", 24, 0, 24, "ACK/NACK/CTRL source CID");
    /// `code`.
    pub const CODE: Field = Field::new("code", 27, 0, 8, "NACK/CTRL code");
    /// `ox_scid`.
    pub const OX_SCID: Field = Field::new("ox_scid", 28, 0, 24, "OX source CID");
    /// `wlog`.
    pub const WLOG: Field = Field::new("wlog", 31, 0, 8, "OX receive window, log2 packets");
    /// `target_qpn`.
    pub const TARGET_QPN: Field = Field::new("target_qpn", 32, 0, 24, "OX target QP number");
    /// `mtu_log`.
    pub const MTU_LOG: Field = Field::new("mtu_log", 35, 0, 8, "OX log2 MTU");
    /// `ev`.
    pub const EV: Field = Field::new("ev", 36, 0, 14, "entropy value: UDP source port & 0x3FFF");
    /// `ecn`.
    pub const ECN: Field = Field::new("ecn", 37, 6, 2, "IP ECN");
    /// `tci`.
    pub const TCI: Field = Field::new("tci", 38, 0, 16, "802.1Q TCI (when `vlan`)");
    /// `peer_mac`.
    pub const PEER_MAC: Field = Field::new("peer_mac", 40, 0, 48, "peer MAC address as a number");
    /// `ptype`.
    pub const PTYPE: Field = Field::new("ptype", 46, 0, 4, "MBH type");
    /// `ox`.
    pub const OX: Field = Field::new("ox", 46, 4, 1, "an Open extension is present");
    /// `trimmed`.
    pub const TRIMMED: Field = Field::new("trimmed", 46, 5, 1, "receive: classified as trimmed");
    /// `ipv6`.
    pub const IPV6: Field = Field::new("ipv6", 46, 6, 1, "carried over IPv6");
    /// `vlan`.
    pub const VLAN: Field = Field::new("vlan", 46, 7, 1, "the frame carries one 802.1Q tag");
    /// `dscp`.
    pub const DSCP: Field = Field::new("dscp", 47, 0, 6, "IP DSCP");
    /// `peer_ip`.
    pub const PEER_IP: Field = Field::new(
        "peer_ip",
        48,
        0,
        128,
        "peer IP address as a little-endian number (IPv4 in bytes 48..52)",
    );
}

/// The record layout.
pub const LAYOUT: Layout = Layout {
    name: "pkt_record",
    bytes: 64,
    doc: "A packet between the core and the control processor: the exception packets the core hands over \
          (`RX_REC`) and the control packets the firmware sends (`TX_REC`).",
    fields: &[
        field::PSN,
        field::TS,
        field::ECHO_TS,
        field::AUX,
        field::ISN,
        field::DCID,
        field::MBH_FLAGS,
        field::SCID,
        field::CODE,
        field::OX_SCID,
        field::WLOG,
        field::TARGET_QPN,
        field::MTU_LOG,
        field::EV,
        field::ECN,
        field::TCI,
        field::PEER_MAC,
        field::PTYPE,
        field::OX,
        field::TRIMMED,
        field::IPV6,
        field::VLAN,
        field::DSCP,
        field::PEER_IP,
    ],
};

/// A peer IP address (network order, IPv4 in the first 4 bytes) as the record holds it.
pub fn ip_to_record(ip: &[u8; 16], v6: bool) -> [u8; 16] {
    let n = if v6 { 16 } else { 4 };
    let mut out = [0u8; 16];
    for k in 0..n {
        out[k] = ip[n - 1 - k];
    }
    out
}

/// The record's peer IP as an address in network order (IPv4 in the first 4 bytes).
pub fn ip_from_record(rec: &[u8; 16], v6: bool) -> [u8; 16] {
    ip_to_record(rec, v6)
}

/// A MAC address (network order) as the record's number.
pub fn mac_to_record(mac: &[u8; 6]) -> u64 {
    mac.iter().fold(0u64, |acc, &b| acc << 8 | u64::from(b))
}

/// The record's MAC number as an address in network order.
pub fn mac_from_record(v: u64) -> [u8; 6] {
    let mut out = [0u8; 6];
    for (k, b) in out.iter_mut().enumerate() {
        *b = (v >> (8 * (5 - k))) as u8;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_consistent_and_addresses_round_trip() {
        LAYOUT.check().unwrap();
        let ip = [10, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        let r = ip_to_record(&ip, false);
        assert_eq!(&r[..4], &[2, 0, 0, 10]);
        assert_eq!(ip_from_record(&r, false), ip);
        let v6: [u8; 16] = core::array::from_fn(|k| k as u8 + 1);
        let r = ip_to_record(&v6, true);
        assert_eq!((r[0], r[15]), (16, 1));
        assert_eq!(ip_from_record(&r, true), v6);
        let mac = [2, 0, 0, 0, 0, 1];
        assert_eq!(mac_to_record(&mac), 0x0200_0000_0001);
        assert_eq!(mac_from_record(0x0200_0000_0001), mac);
    }
}
