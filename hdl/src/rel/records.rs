//! Records between the transmit path and the sender's reliability and congestion-control state.

// `LogicStruct` generates public accessor methods without docs; the records and their fields are documented.
#![allow(missing_docs)]

use crate::records::ConnIdx;
use rust_hdl::prelude::*;

/// May this DATA packet leave now? (transmit scheduler to the gate).
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct GateReq {
    /// Connection.
    pub conn: ConnIdx,
    /// PSN of the packet (new: snd_nxt; retransmission: the lost PSN).
    pub psn: Bits<32>,
    /// Charged size, `payload_len + 64` (MR-CC).
    pub charged: Bits<16>,
    /// A retransmission.
    pub rtx: Bit,
}

/// The gate's answer, in request order.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct GateResp {
    /// Connection.
    pub conn: ConnIdx,
    /// PSN asked about.
    pub psn: Bits<32>,
    /// Window (MR-REL-4, new PSNs), congestion window (MR-CC-1, MR-REL-45) and pacing (MR-CC-2) allow it.
    pub allow: Bit,
    /// When allowed: the EV to send with (MR-PATH-3, MR-PATH-10).
    pub ev: Bits<14>,
    /// When allowed: the EV-set entry index.
    pub path: Bits<8>,
    /// When refused by pacing: the time (ns mod 2^32) at which it would pass; 0 = wait for an ACK.
    pub retry_at: Bits<32>,
    /// A retransmission that is no longer needed (the PSN was acknowledged, or is no longer declared lost, or
    /// the connection failed): the caller drops it (the model's `pop_lost` skipping it).
    pub skip: Bit,
}

/// snd_una of a connection advanced (send completions, message-table release).
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct UnaUpdate {
    /// Connection.
    pub conn: ConnIdx,
    /// New snd_una.
    pub snd_una: Bits<32>,
    /// The acknowledging ACK's `AH.SCID`: the peer's CID, which a sender that does not know it yet records
    /// (MR-CONN-7).
    pub peer_cid: Bits<24>,
}

/// Initialises a connection's per-connection state in every pipeline (from the context programming port).
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct ConnOpen {
    /// Connection.
    pub conn: ConnIdx,
    /// Initial sequence number of the send direction.
    pub isn: Bits<32>,
    /// First expected PSN of the receive direction (the peer's ISN).
    pub peer_isn: Bits<32>,
    /// Peer's wlog − 8 (0 until its OX).
    pub peer_wlog: Bits<4>,
    /// Own wlog − 8.
    pub own_wlog: Bits<4>,
    /// log2 MTU (payload bytes per packet).
    pub mtu_log: Bits<4>,
    /// EV-set size (1..=64).
    pub paths: Bits<7>,
    /// Peer's CID (DCID of outgoing packets).
    pub peer_cid: Bits<24>,
    /// Initial EV-set seed (the EV draws of MR-PATH-1 are made from it).
    pub seed: Bits<32>,
    /// Open the receive direction only: the peer's ISN (`peer_isn`, from its first Open extension, MR-CONN-16)
    /// for a connection that was opened before knowing it (0-RTT); the send direction's holders ignore it.
    pub rx_only: Bit,
}

/// A cause for the QP of a connection to enter ERROR (MR-SEM-30, MR-SEM-34, MR-SEM-35, MR-REL-55, MR-REL-58),
/// from the block that detected it to the transmit scheduler, which decides it and flushes the send queue
/// (MR-SEM-38).
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct ConnFail {
    /// Connection.
    pub conn: ConnIdx,
    /// Completion status of the failing WR (`metaroce_regmap::descriptor::cqe::CqeStatus`).
    pub status: Bits<8>,
    /// With `by_msn`: the MSN of the failing message.
    pub msn: Bits<32>,
    /// The cause names its message (`msn`); otherwise the oldest started, unreleased message fails.
    pub by_msn: Bit,
    /// A cause whose `msn` names no started, unreleased message is ignored (a fatal NACK, MR-SEM-35);
    /// otherwise the oldest started message fails instead.
    pub strict: Bit,
}

/// A QP entered ERROR (the `QpError` event of MR-SEM-38), reported to the control processor on the core's
/// `m_axis_conn_err_*`. The connection index is the low 16 bits.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct QpError {
    /// Connection.
    pub conn: ConnIdx,
    /// Completion status of the failing WR (`CqeStatus`).
    pub status: Bits<8>,
    /// MSN of the WR that completed with `status` (when `has_msn`).
    pub msn: Bits<32>,
    /// A started WR failed with `status` (otherwise every WR completed `Flushed`).
    pub has_msn: Bit,
}
