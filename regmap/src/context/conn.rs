//! Connection hot state: the per-packet state of one connection, 64 bytes (512 bits exactly), spec Table 7.6
//! (MR-CONN-28). The fields and widths are the table's; they are ordered here by width (32-, 24-, 16-bit fields,
//! then the small ones) so that every 32-bit field is a naturally aligned little-endian word, which the
//! table allows ("laid out as Table 7.6 or equivalently"). A 512-bit datapath reads or writes an entry in one
//! beat; 16K connections take 1 MiB.
//!
//! *ns24* fields hold nanoseconds saturating at 2^24 − 1 ([`ns24`], MR-CONN-29); `own_wlog_m8` and
//! `peer_wlog_m8` hold `wlog − 8`.

use crate::field::{Error, Layout};

/// Fields of the hot state, in the order of Table 7.6's rows as laid out here.
pub mod field {
    use crate::field::Field;
    /// `snd_una`.
    pub const SND_UNA: Field = Field::new(
        "snd_una",
        0,
        0,
        32,
        "oldest unacknowledged PSN (= last CACK received)",
    );
    /// `snd_nxt`.
    pub const SND_NXT: Field = Field::new("snd_nxt", 4, 0, 32, "next new PSN");
    /// `rcv_nxt`.
    pub const RCV_NXT: Field = Field::new("rcv_nxt", 8, 0, 32, "CACK of the receive direction");
    /// `snd_msn`.
    pub const SND_MSN: Field = Field::new(
        "snd_msn",
        12,
        0,
        32,
        "next MSN to assign in the send direction",
    );
    /// `rcv_msn`.
    pub const RCV_MSN: Field = Field::new(
        "rcv_msn",
        16,
        0,
        32,
        "next MSN to complete in the receive direction",
    );
    /// `ack_psn`.
    pub const ACK_PSN: Field = Field::new(
        "ack_psn",
        20,
        0,
        32,
        "PSN of the triggering packet of the owed ACK",
    );
    /// `ack_ts`.
    pub const ACK_TS: Field = Field::new("ack_ts", 24, 0, 32, "its TS (echoed)");
    /// `cwnd`.
    pub const CWND: Field = Field::new(
        "cwnd",
        28,
        0,
        32,
        "bytes (NSCC); DCQCN keeps rc in Mb/s here",
    );
    /// `inflight`.
    pub const INFLIGHT: Field = Field::new(
        "inflight",
        32,
        0,
        32,
        "charged bytes sent, not acknowledged, not declared lost",
    );
    /// `cid`.
    pub const CID: Field = Field::new("cid", 36, 0, 24, "own CID (SCID of outgoing packets)");
    /// `peer_cid`.
    pub const PEER_CID: Field = Field::new(
        "peer_cid",
        39,
        0,
        24,
        "DCID for outgoing packets (0 while unknown)",
    );
    /// `srtt`.
    pub const SRTT: Field = Field::new("srtt", 42, 0, 24, "smoothed RTT, ns24");
    /// `rttvar`.
    pub const RTTVAR: Field = Field::new("rttvar", 45, 0, 24, "RTT variation, ns24");
    /// `next_tx`.
    pub const NEXT_TX: Field = Field::new("next_tx", 48, 0, 24, "pacing release time, ns mod 2^24");
    /// `snd_ssn`.
    pub const SND_SSN: Field = Field::new("snd_ssn", 51, 0, 16, "next SSN to assign (low bits)");
    /// `rcv_ssn`.
    pub const RCV_SSN: Field = Field::new(
        "rcv_ssn",
        53,
        0,
        16,
        "receive WQEs consumed by the connection (low bits)",
    );
    /// `ce_count`.
    pub const CE_COUNT: Field = Field::new(
        "ce_count",
        55,
        0,
        16,
        "CE-marked DATA packets since the last ACK",
    );
    /// `ack_ev`.
    pub const ACK_EV: Field = Field::new(
        "ack_ev",
        57,
        0,
        14,
        "EV of the owed ACK's triggering packet",
    );
    /// `state`.
    pub const STATE: Field = Field::new(
        "state",
        58,
        6,
        2,
        "0 CLOSED, 1 OPEN, 2 CLOSING (OPENING = OPEN with SYN_OUT)",
    );
    /// `flags`.
    pub const FLAGS: Field = Field::new(
        "flags",
        59,
        0,
        8,
        "SYN_OUT 0x01, RCV_INIT 0x02, ANNOUNCE 0x04, ACK_PENDING 0x08, ACK_NOW 0x10, ACK_ECE 0x20, ACK_DUP 0x40, \
         RX_FAILED 0x80",
    );
    /// `own_wlog_m8`.
    pub const OWN_WLOG_M8: Field = Field::new("own_wlog_m8", 60, 0, 4, "own wlog - 8 (0..8)");
    /// `peer_wlog_m8`.
    pub const PEER_WLOG_M8: Field = Field::new(
        "peer_wlog_m8",
        60,
        4,
        4,
        "peer wlog - 8 (0 until the peer's OX)",
    );
    /// `ev_rr`.
    pub const EV_RR: Field = Field::new("ev_rr", 61, 0, 6, "round-robin pointer into the EV set");
    /// `backoff`.
    pub const BACKOFF: Field = Field::new("backoff", 61, 6, 5, "RTO backoff exponent (MR-REL-30)");
    /// `retries`.
    pub const RETRIES: Field =
        Field::new("retries", 62, 3, 3, "consecutive timeouts without progress");
    /// `rnr_retries`.
    pub const RNR_RETRIES: Field = Field::new(
        "rnr_retries",
        62,
        6,
        3,
        "RNR pauses since CACK last advanced",
    );
    /// `ack_count`.
    pub const ACK_COUNT: Field = Field::new(
        "ack_count",
        63,
        1,
        7,
        "accepted packets not yet acknowledged",
    );
}

/// The hot-state layout.
pub const LAYOUT: Layout = Layout {
    name: "conn_hot",
    bytes: 64,
    doc: "Connection hot state (spec Table 7.6, MR-CONN-28): read and written by the per-packet pipelines; \
          created and destroyed by the firmware.",
    fields: &[
        field::SND_UNA,
        field::SND_NXT,
        field::RCV_NXT,
        field::SND_MSN,
        field::RCV_MSN,
        field::ACK_PSN,
        field::ACK_TS,
        field::CWND,
        field::INFLIGHT,
        field::CID,
        field::PEER_CID,
        field::SRTT,
        field::RTTVAR,
        field::NEXT_TX,
        field::SND_SSN,
        field::RCV_SSN,
        field::CE_COUNT,
        field::ACK_EV,
        field::STATE,
        field::FLAGS,
        field::OWN_WLOG_M8,
        field::PEER_WLOG_M8,
        field::EV_RR,
        field::BACKOFF,
        field::RETRIES,
        field::RNR_RETRIES,
        field::ACK_COUNT,
    ],
};

// MR-CONN-28: at most 64 bytes of hot state per connection.
const _: () = assert!(LAYOUT.bytes <= 64);

/// Largest value of an *ns24* field.
pub const NS24_MAX: u32 = (1 << 24) - 1;

/// Nanoseconds as an *ns24* value, saturating at 2^24 − 1 (MR-CONN-29: a saturated RTT never makes a timer fire
/// earlier).
pub fn ns24(ns: u64) -> u32 {
    ns.min(NS24_MAX as u64) as u32
}

/// Connection state (Table 7.9a/b; OPENING is OPEN with `SYN_OUT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnState {
    /// No connection.
    Closed = 0,
    /// Open (or opening).
    Open = 1,
    /// CLOSE sent.
    Closing = 2,
}

/// The `flags` bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ConnFlags(pub u8);

impl ConnFlags {
    /// Own direction still sends SYN (MR-CONN-6).
    pub const SYN_OUT: ConnFlags = ConnFlags(0x01);
    /// Peer ISN known.
    pub const RCV_INIT: ConnFlags = ConnFlags(0x02);
    /// CTRL OPEN owed (MR-CONN-14).
    pub const ANNOUNCE: ConnFlags = ConnFlags(0x04);
    /// An ACK is owed.
    pub const ACK_PENDING: ConnFlags = ConnFlags(0x08);
    /// The owed ACK goes out now.
    pub const ACK_NOW: ConnFlags = ConnFlags(0x10);
    /// The owed ACK carries ECE.
    pub const ACK_ECE: ConnFlags = ConnFlags(0x20);
    /// The owed ACK carries DUP.
    pub const ACK_DUP: ConnFlags = ConnFlags(0x40);
    /// Receive direction in the error state (MR-SEM-36).
    pub const RX_FAILED: ConnFlags = ConnFlags(0x80);

    /// True if every bit of `other` is set.
    pub const fn contains(self, other: ConnFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

/// Decoded hot state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnHot {
    /// Own CID (24 bits; non-zero unless CLOSED).
    pub cid: u32,
    /// Peer CID (24 bits; 0 while unknown).
    pub peer_cid: u32,
    /// State.
    pub state: ConnState,
    /// Flags.
    pub flags: ConnFlags,
    /// Own receive window, log2 packets (8..=16).
    pub own_wlog: u8,
    /// Peer receive window, log2 packets (8..=16; 8 until the peer's OX).
    pub peer_wlog: u8,
    /// EV set round-robin pointer (0..64).
    pub ev_rr: u8,
    /// RTO backoff exponent (0..=31).
    pub backoff: u8,
    /// Consecutive timeouts (0..=7).
    pub retries: u8,
    /// RNR pauses (0..=7).
    pub rnr_retries: u8,
    /// Unacknowledged accepted packets (0..=127).
    pub ack_count: u8,
    /// Oldest unacknowledged PSN.
    pub snd_una: u32,
    /// Next new PSN.
    pub snd_nxt: u32,
    /// Receive CACK.
    pub rcv_nxt: u32,
    /// Next send MSN.
    pub snd_msn: u32,
    /// Next receive MSN to complete.
    pub rcv_msn: u32,
    /// Next SSN (low 16 bits).
    pub snd_ssn: u16,
    /// Receive WQEs consumed (low 16 bits).
    pub rcv_ssn: u16,
    /// PSN of the owed ACK's trigger.
    pub ack_psn: u32,
    /// Its TS.
    pub ack_ts: u32,
    /// Its EV (14 bits).
    pub ack_ev: u16,
    /// CE-marked packets since the last ACK.
    pub ce_count: u16,
    /// Smoothed RTT, ns24.
    pub srtt: u32,
    /// RTT variation, ns24.
    pub rttvar: u32,
    /// Congestion window (bytes) or DCQCN rate.
    pub cwnd: u32,
    /// Charged bytes in flight.
    pub inflight: u32,
    /// Pacing release time, ns mod 2^24.
    pub next_tx: u32,
}

impl ConnHot {
    /// The hot state of a connection being opened: own CID `cid`, the peer's `peer_cid` (0 while unknown),
    /// `flags` (`RCV_INIT` when the peer's ISN `rcv_isn` is known), the windows `(own_wlog, peer_wlog)`, the
    /// send direction starting at `isn`; every counter, sequence number and estimate at its initial 0
    /// (MR-CONN-28).
    pub const fn opening(
        cid: u32,
        peer_cid: u32,
        flags: ConnFlags,
        (own_wlog, peer_wlog): (u8, u8),
        isn: u32,
        rcv_isn: u32,
    ) -> ConnHot {
        ConnHot {
            cid,
            peer_cid,
            state: ConnState::Open,
            flags,
            own_wlog,
            peer_wlog,
            ev_rr: 0,
            backoff: 0,
            retries: 0,
            rnr_retries: 0,
            ack_count: 0,
            snd_una: isn,
            snd_nxt: isn,
            rcv_nxt: rcv_isn,
            snd_msn: 0,
            rcv_msn: 0,
            snd_ssn: 0,
            rcv_ssn: 0,
            ack_psn: 0,
            ack_ts: 0,
            ack_ev: 0,
            ce_count: 0,
            srtt: 0,
            rttvar: 0,
            cwnd: 0,
            inflight: 0,
            next_tx: 0,
        }
    }

    /// Decodes a hot-state entry; an invalid state, a window exponent outside 8..=16, or a non-CLOSED entry
    /// with CID 0 (MR-CONN-1) is an error.
    pub fn parse(buf: &[u8]) -> Result<ConnHot, Error> {
        LAYOUT.check_len(buf)?;
        use field as f;
        let g = |fl: &crate::field::Field| fl.get(buf);
        let state = match g(&f::STATE)? {
            0 => ConnState::Closed,
            1 => ConnState::Open,
            2 => ConnState::Closing,
            _ => {
                return Err(Error::Invalid {
                    field: f::STATE.name,
                })
            }
        };
        let h = ConnHot {
            cid: g(&f::CID)? as u32,
            peer_cid: g(&f::PEER_CID)? as u32,
            state,
            flags: ConnFlags(g(&f::FLAGS)? as u8),
            own_wlog: g(&f::OWN_WLOG_M8)? as u8 + 8,
            peer_wlog: g(&f::PEER_WLOG_M8)? as u8 + 8,
            ev_rr: g(&f::EV_RR)? as u8,
            backoff: g(&f::BACKOFF)? as u8,
            retries: g(&f::RETRIES)? as u8,
            rnr_retries: g(&f::RNR_RETRIES)? as u8,
            ack_count: g(&f::ACK_COUNT)? as u8,
            snd_una: g(&f::SND_UNA)? as u32,
            snd_nxt: g(&f::SND_NXT)? as u32,
            rcv_nxt: g(&f::RCV_NXT)? as u32,
            snd_msn: g(&f::SND_MSN)? as u32,
            rcv_msn: g(&f::RCV_MSN)? as u32,
            snd_ssn: g(&f::SND_SSN)? as u16,
            rcv_ssn: g(&f::RCV_SSN)? as u16,
            ack_psn: g(&f::ACK_PSN)? as u32,
            ack_ts: g(&f::ACK_TS)? as u32,
            ack_ev: g(&f::ACK_EV)? as u16,
            ce_count: g(&f::CE_COUNT)? as u16,
            srtt: g(&f::SRTT)? as u32,
            rttvar: g(&f::RTTVAR)? as u32,
            cwnd: g(&f::CWND)? as u32,
            inflight: g(&f::INFLIGHT)? as u32,
            next_tx: g(&f::NEXT_TX)? as u32,
        };
        h.validate()?;
        Ok(h)
    }

    /// Checks the ranges the layout and the spec impose (the field widths are checked by [`ConnHot::emit`]).
    pub fn validate(&self) -> Result<(), Error> {
        if !(8..=16).contains(&self.own_wlog) {
            return Err(Error::Invalid {
                field: field::OWN_WLOG_M8.name,
            });
        }
        if !(8..=16).contains(&self.peer_wlog) {
            return Err(Error::Invalid {
                field: field::PEER_WLOG_M8.name,
            });
        }
        if self.state != ConnState::Closed && self.cid == 0 {
            return Err(Error::Invalid {
                field: field::CID.name,
            });
        }
        Ok(())
    }

    /// Encodes into the first 64 bytes of `buf`; a value wider than its field is an error.
    pub fn emit(&self, buf: &mut [u8]) -> Result<(), Error> {
        self.validate()?;
        LAYOUT.clear(buf)?;
        use field as f;
        // One statement per field, so that each constant field's write folds to a few instructions.
        f::CID.set(buf, self.cid as u64)?;
        f::PEER_CID.set(buf, self.peer_cid as u64)?;
        f::STATE.set(buf, self.state as u64)?;
        f::FLAGS.set(buf, self.flags.0 as u64)?;
        f::OWN_WLOG_M8.set(buf, (self.own_wlog - 8) as u64)?;
        f::PEER_WLOG_M8.set(buf, (self.peer_wlog - 8) as u64)?;
        f::EV_RR.set(buf, self.ev_rr as u64)?;
        f::BACKOFF.set(buf, self.backoff as u64)?;
        f::RETRIES.set(buf, self.retries as u64)?;
        f::RNR_RETRIES.set(buf, self.rnr_retries as u64)?;
        f::ACK_COUNT.set(buf, self.ack_count as u64)?;
        f::SND_UNA.set(buf, self.snd_una as u64)?;
        f::SND_NXT.set(buf, self.snd_nxt as u64)?;
        f::RCV_NXT.set(buf, self.rcv_nxt as u64)?;
        f::SND_MSN.set(buf, self.snd_msn as u64)?;
        f::RCV_MSN.set(buf, self.rcv_msn as u64)?;
        f::SND_SSN.set(buf, self.snd_ssn as u64)?;
        f::RCV_SSN.set(buf, self.rcv_ssn as u64)?;
        f::ACK_PSN.set(buf, self.ack_psn as u64)?;
        f::ACK_TS.set(buf, self.ack_ts as u64)?;
        f::ACK_EV.set(buf, self.ack_ev as u64)?;
        f::CE_COUNT.set(buf, self.ce_count as u64)?;
        f::SRTT.set(buf, self.srtt as u64)?;
        f::RTTVAR.set(buf, self.rttvar as u64)?;
        f::CWND.set(buf, self.cwnd as u64)?;
        f::INFLIGHT.set(buf, self.inflight as u64)?;
        f::NEXT_TX.set(buf, self.next_tx as u64)?;
        Ok(())
    }
}
