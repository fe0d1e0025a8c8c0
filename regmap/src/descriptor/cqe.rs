//! Completion queue entry (CQE), 32 bytes. Written by the device, read by the host. The `phase` bit is in the
//! last byte; the host tests it before reading anything else (ring semantics: [`crate::queues`]).
//! Opcodes and statuses are those of the verbs interface (MR-SEM-37, Table 8.10).

use crate::field::{Error, Field, Layout};

/// Fields of a CQE.
pub mod field {
    use crate::field::Field;
    /// `wr_id`.
    pub const WR_ID: Field = Field::new("wr_id", 0, 0, 64, "the completed work request's wr_id");
    /// `byte_len`.
    pub const BYTE_LEN: Field = Field::new(
        "byte_len",
        8,
        0,
        32,
        "bytes transferred (receive: bytes placed); 0 on error",
    );
    /// `imm`.
    pub const IMM: Field = Field::new("imm", 12, 0, 32, "immediate data when imm_valid, else 0");
    /// `qpn`.
    pub const QPN: Field = Field::new("qpn", 16, 0, 24, "QP the work request was posted on");
    /// `opcode`.
    pub const OPCODE: Field = Field::new(
        "opcode",
        19,
        0,
        8,
        "0 WRITE, 1 SEND, 2 READ, 3 RECV, 4 RECV_WRITE_IMM",
    );
    /// `status`.
    pub const STATUS: Field = Field::new(
        "status",
        20,
        0,
        8,
        "0 SUCCESS, 1 LOCAL_LENGTH, 2 LOCAL_PROTECTION, 3 REMOTE_ACCESS, 4 REMOTE_INVALID_REQUEST, \
         5 REMOTE_OPERATION, 6 RETRY_EXCEEDED, 7 RNR_RETRY_EXCEEDED, 8 FLUSHED",
    );
    /// `imm_valid`.
    pub const IMM_VALID: Field = Field::new(
        "imm_valid",
        21,
        0,
        1,
        "imm holds immediate data (receive opcodes only)",
    );
    /// `solicited`.
    pub const SOLICITED: Field = Field::new(
        "solicited",
        21,
        1,
        1,
        "the message's LAST packet had SE (receive opcodes only; MR-SEM-25)",
    );
    /// `wqe_index`.
    pub const WQE_INDEX: Field = Field::new(
        "wqe_index",
        22,
        0,
        16,
        "ring index of the SQE (send opcodes) or RQE (receive opcodes) completed: the host frees slots up to it",
    );
    /// `phase`.
    pub const PHASE: Field = Field::new(
        "phase",
        31,
        0,
        1,
        "1 on even passes over the CQ ring, 0 on odd ones; written last",
    );
}

/// The CQE layout.
pub const LAYOUT: Layout = Layout {
    name: "cqe",
    bytes: 32,
    doc: "Completion queue entry. Device writes, host reads.",
    fields: &[
        field::WR_ID,
        field::BYTE_LEN,
        field::IMM,
        field::QPN,
        field::OPCODE,
        field::STATUS,
        field::IMM_VALID,
        field::SOLICITED,
        field::WQE_INDEX,
        field::PHASE,
    ],
};

macro_rules! code_enum {
    ($(#[doc = $d:literal])* $name:ident { $($(#[doc = $vd:literal])* $v:ident = $n:literal, $text:literal;)* }) => {
        $(#[doc = $d])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum $name {
            $($(#[doc = $vd])* $v = $n,)*
        }

        impl $name {
            /// Every value, in code order.
            pub const ALL: &'static [$name] = &[$($name::$v,)*];

            /// The value with code `n`.
            pub const fn from_u8(n: u8) -> Option<$name> {
                match n {
                    $($n => Some($name::$v),)*
                    _ => None,
                }
            }

            /// Name used in documents.
            pub const fn name(self) -> &'static str {
                match self {
                    $($name::$v => $text,)*
                }
            }

            /// Description used in documents.
            pub const fn doc(self) -> &'static str {
                match self {
                    $($name::$v => concat!($($vd),*).trim_ascii(),)*
                }
            }
        }
    };
}
pub(crate) use code_enum;

code_enum! {
    /// Opcode of a completion.
    CqeOpcode {
        /// A WRITE or WRITE_IMM work request completed at the requester.
        Write = 0, "WRITE";
        /// A SEND or SEND_IMM work request completed at the requester.
        Send = 1, "SEND";
        /// A READ work request completed at the requester.
        Read = 2, "READ";
        /// A receive WQE was consumed by a SEND or SEND_IMM.
        Recv = 3, "RECV";
        /// A receive WQE was consumed by a WRITE_IMM.
        RecvWriteImm = 4, "RECV_WRITE_IMM";
    }
}

impl CqeOpcode {
    /// True for completions of receive WQEs.
    pub const fn is_receive(self) -> bool {
        matches!(self, CqeOpcode::Recv | CqeOpcode::RecvWriteImm)
    }
}

code_enum! {
    /// Status of a completion (MR-SEM-37, Table 8.10).
    CqeStatus {
        /// The operation succeeded.
        Success = 0, "SUCCESS";
        /// A received SEND did not fit into the receive WQE.
        LocalLength = 1, "LOCAL_LENGTH";
        /// A local buffer failed the memory-region check.
        LocalProtection = 2, "LOCAL_PROTECTION";
        /// NACK ACCESS received.
        RemoteAccess = 3, "REMOTE_ACCESS";
        /// NACK INVALID or UNSUPPORTED received.
        RemoteInvalidRequest = 4, "REMOTE_INVALID_REQUEST";
        /// Invalid READ response from the peer.
        RemoteOperation = 5, "REMOTE_OPERATION";
        /// Retry limit exceeded.
        RetryExceeded = 6, "RETRY_EXCEEDED";
        /// RNR retry limit exceeded.
        RnrRetryExceeded = 7, "RNR_RETRY_EXCEEDED";
        /// Flushed by the QP entering ERROR or being destroyed.
        Flushed = 8, "FLUSHED";
    }
}

/// A decoded CQE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CqeRepr {
    /// The completed work request's id.
    pub wr_id: u64,
    /// Bytes transferred.
    pub byte_len: u32,
    /// Immediate data (receive opcodes only).
    pub imm: Option<u32>,
    /// QP number (24 bits, non-zero).
    pub qpn: u32,
    /// Opcode.
    pub opcode: CqeOpcode,
    /// Status.
    pub status: CqeStatus,
    /// Solicited event (receive opcodes only).
    pub solicited: bool,
    /// Ring index of the completed SQE or RQE.
    pub wqe_index: u16,
    /// Phase bit.
    pub phase: bool,
}

fn invalid(f: &Field) -> Error {
    Error::Invalid { field: f.name }
}

impl CqeRepr {
    /// Checks the combinations the layout forbids: QPN 0 or wider than 24 bits, immediate data or solicited on a
    /// send completion.
    pub fn validate(&self) -> Result<(), Error> {
        if self.qpn == 0 || self.qpn as u64 > field::QPN.max() {
            return Err(invalid(&field::QPN));
        }
        if self.imm.is_some() && !self.opcode.is_receive() {
            return Err(invalid(&field::IMM_VALID));
        }
        if self.solicited && !self.opcode.is_receive() {
            return Err(invalid(&field::SOLICITED));
        }
        Ok(())
    }

    /// Decodes a CQE; reserved bits, unknown codes and forbidden combinations are errors. (A slot that has not
    /// been written yet is recognised by its phase before decoding.)
    pub fn parse(buf: &[u8]) -> Result<CqeRepr, Error> {
        LAYOUT.check_reserved(buf)?;
        let imm = field::IMM.get(buf)? as u32;
        let imm_valid = field::IMM_VALID.get(buf)? != 0;
        if !imm_valid && imm != 0 {
            return Err(invalid(&field::IMM));
        }
        let r = CqeRepr {
            wr_id: field::WR_ID.get(buf)?,
            byte_len: field::BYTE_LEN.get(buf)? as u32,
            imm: imm_valid.then_some(imm),
            qpn: field::QPN.get(buf)? as u32,
            opcode: CqeOpcode::from_u8(field::OPCODE.get(buf)? as u8)
                .ok_or(invalid(&field::OPCODE))?,
            status: CqeStatus::from_u8(field::STATUS.get(buf)? as u8)
                .ok_or(invalid(&field::STATUS))?,
            solicited: field::SOLICITED.get(buf)? != 0,
            wqe_index: field::WQE_INDEX.get(buf)? as u16,
            phase: field::PHASE.get(buf)? != 0,
        };
        r.validate()?;
        Ok(r)
    }

    /// Reads only the phase bit of a CQE slot.
    pub fn phase_of(buf: &[u8]) -> Result<bool, Error> {
        Ok(field::PHASE.get(buf)? != 0)
    }

    /// Encodes into the first 32 bytes of `buf`.
    pub fn emit(&self, buf: &mut [u8]) -> Result<(), Error> {
        self.validate()?;
        LAYOUT.clear(buf)?;
        field::WR_ID.set(buf, self.wr_id)?;
        field::BYTE_LEN.set(buf, self.byte_len as u64)?;
        field::IMM.set(buf, self.imm.unwrap_or(0) as u64)?;
        field::IMM_VALID.set(buf, self.imm.is_some() as u64)?;
        field::QPN.set(buf, self.qpn as u64)?;
        field::OPCODE.set(buf, self.opcode as u64)?;
        field::STATUS.set(buf, self.status as u64)?;
        field::SOLICITED.set(buf, self.solicited as u64)?;
        field::WQE_INDEX.set(buf, self.wqe_index as u64)?;
        field::PHASE.set(buf, self.phase as u64)?;
        Ok(())
    }
}
