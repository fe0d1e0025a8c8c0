//! The verbs-level interface of an [`Endpoint`](super::Endpoint): work requests, completions, events, errors.
//! These mirror the InfiniBand verbs an RDMA user already knows (MR-SEM-*).

use core::net::IpAddr;

/// A queue pair number (24 bits used).
pub type Qpn = u32;

/// Access rights of a memory region (bit set).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Access(pub u8);

impl Access {
    /// No rights beyond local read.
    pub const NONE: Access = Access(0);
    /// The local side may write into the region (receive buffers, READ destinations).
    pub const LOCAL_WRITE: Access = Access(1);
    /// Remote WRITE / WRITE_IMM may place into the region.
    pub const REMOTE_WRITE: Access = Access(2);
    /// Remote READ may read the region.
    pub const REMOTE_READ: Access = Access(4);
    /// Remote atomics (reserved: atomics are not implemented in v0.1).
    pub const REMOTE_ATOMIC: Access = Access(8);

    /// True if every right in `other` is present in `self`.
    pub fn contains(self, other: Access) -> bool {
        self.0 & other.0 == other.0
    }
}

impl core::ops::BitOr for Access {
    type Output = Access;
    fn bitor(self, rhs: Access) -> Access {
        Access(self.0 | rhs.0)
    }
}

/// Keys of a registered memory region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MrKeys {
    /// Local key, used in [`Sge::lkey`].
    pub lkey: u32,
    /// Remote key, handed to the peer for WRITE / READ.
    pub rkey: u32,
}

/// A scatter/gather element: one local buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sge {
    /// Start address.
    pub addr: u64,
    /// Length in bytes.
    pub len: u32,
    /// Local key of the memory region containing the buffer.
    pub lkey: u32,
}

/// The operation of a send work request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendOp {
    /// RDMA WRITE from `local` to `remote_addr`.
    Write,
    /// RDMA WRITE with immediate data: also consumes a receive WQE at the responder.
    WriteImm(u32),
    /// SEND of `local` into the responder's next receive WQE.
    Send,
    /// SEND with immediate data.
    SendImm(u32),
    /// RDMA READ of `remote_addr` into `local`.
    Read,
}

/// A send work request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendWr {
    /// Caller's id, returned in the completion.
    pub wr_id: u64,
    /// Operation.
    pub op: SendOp,
    /// Local buffer (source of WRITE/SEND, destination of READ).
    pub local: Sge,
    /// Remote virtual address (WRITE*/READ).
    pub remote_addr: u64,
    /// Remote key (WRITE*/READ).
    pub rkey: u32,
    /// Solicited event flag for SEND*/WRITE_IMM.
    pub solicited: bool,
}

/// A receive work request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecvWr {
    /// Caller's id, returned in the completion.
    pub wr_id: u64,
    /// Receive buffer.
    pub sge: Sge,
}

/// Opcode of a work completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WcOpcode {
    /// A WRITE or WRITE_IMM work request completed at the requester.
    Write,
    /// A SEND work request completed at the requester.
    Send,
    /// A READ work request completed at the requester.
    Read,
    /// A receive WQE was consumed by a SEND.
    Recv,
    /// A receive WQE was consumed by a WRITE_IMM.
    RecvWriteImm,
}

/// Status of a work completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WcStatus {
    /// The operation succeeded.
    Success,
    /// A received SEND did not fit into the receive WQE.
    LocalLength,
    /// A local buffer failed the memory-region check.
    LocalProtection,
    /// The responder reported a key/bounds/rights violation (NACK ACCESS).
    RemoteAccess,
    /// The responder reported an invalid request (NACK INVALID).
    RemoteInvalidRequest,
    /// The responder could not perform the operation (NACK UNSUPPORTED).
    RemoteOperation,
    /// `retry_limit` consecutive timeouts without progress.
    RetryExceeded,
    /// `rnr_retry` consecutive RNR NACKs.
    RnrRetryExceeded,
    /// The QP entered the error state (or was destroyed) before this WR could complete.
    Flushed,
}

/// A work completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    /// QP the WR was posted on.
    pub qpn: Qpn,
    /// The WR's `wr_id`.
    pub wr_id: u64,
    /// What completed.
    pub opcode: WcOpcode,
    /// Outcome.
    pub status: WcStatus,
    /// Bytes transferred (receive: bytes placed).
    pub byte_len: u32,
    /// Immediate data of SEND_IMM / WRITE_IMM.
    pub imm: Option<u32>,
}

/// Something the application should know about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A work completion.
    Completion(Completion),
    /// A QP entered the error state.
    QpError {
        /// The QP.
        qpn: Qpn,
        /// The status that caused it.
        status: WcStatus,
    },
    /// A transport connection of a QP was opened (MR-CONN-*).
    ConnectionOpened {
        /// The QP.
        qpn: Qpn,
        /// Local connection id.
        cid: u32,
    },
    /// A transport connection of a QP was closed.
    ConnectionClosed {
        /// The QP.
        qpn: Qpn,
        /// Local connection id.
        cid: u32,
    },
}

/// The peer QP a local QP is connected to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RemoteQp {
    /// Peer MAC address (next hop).
    pub mac: [u8; 6],
    /// Peer IP address.
    pub ip: IpAddr,
    /// Peer QP number.
    pub qpn: Qpn,
}

/// Errors returned synchronously by verbs calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerbsError {
    /// No such QP.
    InvalidQp,
    /// The QP is not in a state that allows the call.
    InvalidState,
    /// The work queue is full.
    QueueFull,
    /// Message longer than `max_msg_len`.
    TooLarge,
    /// Unknown or stale local key.
    BadLkey,
    /// Buffer outside its memory region.
    OutOfBounds,
    /// Memory region lacks the needed access right.
    NoAccess,
    /// A configured limit (QPs, MRs, connections) is reached.
    Limit,
    /// Invalid argument.
    Invalid,
}
