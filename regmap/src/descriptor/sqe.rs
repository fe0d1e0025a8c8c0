//! Send queue entry (SQE), 64 bytes: one beat of the 512-bit datapath. Written by the host, read by the device
//! (MR-SEM-8: the device validates it again before sending anything).

use crate::field::{Error, Field, Layout};

/// Fields of an SQE.
pub mod field {
    use crate::field::Field;
    /// `opcode`.
    pub const OPCODE: Field = Field::new(
        "opcode",
        0,
        0,
        8,
        "1 WRITE, 2 WRITE_IMM, 3 SEND, 4 SEND_IMM, 5 READ (the DATA header's opcode numbers)",
    );
    /// `solicited`.
    pub const SOLICITED: Field = Field::new(
        "solicited",
        1,
        0,
        1,
        "solicited event (SEND, SEND_IMM, WRITE_IMM only)",
    );
    /// `imm`.
    pub const IMM: Field = Field::new(
        "imm",
        4,
        0,
        32,
        "immediate data (WRITE_IMM, SEND_IMM; else 0)",
    );
    /// `wr_id`.
    pub const WR_ID: Field = Field::new("wr_id", 8, 0, 64, "caller's id, returned in the CQE");
    /// `local_addr`.
    pub const LOCAL_ADDR: Field = Field::new(
        "local_addr",
        16,
        0,
        64,
        "local buffer: source (WRITE, SEND) or destination (READ)",
    );
    /// `length`.
    pub const LENGTH: Field = Field::new("length", 24, 0, 32, "message length in bytes");
    /// `lkey`.
    pub const LKEY: Field =
        Field::new("lkey", 28, 0, 32, "local key of the buffer's memory region");
    /// `remote_addr`.
    pub const REMOTE_ADDR: Field = Field::new(
        "remote_addr",
        32,
        0,
        64,
        "remote virtual address (WRITE*, READ; else 0)",
    );
    /// `rkey`.
    pub const RKEY: Field = Field::new("rkey", 40, 0, 32, "remote key (WRITE*, READ; else 0)");
}

/// The SQE layout.
pub const LAYOUT: Layout = Layout {
    name: "sqe",
    bytes: 64,
    doc: "Send queue entry: one send work request. Host writes, device reads.",
    fields: &[
        field::OPCODE,
        field::SOLICITED,
        field::IMM,
        field::WR_ID,
        field::LOCAL_ADDR,
        field::LENGTH,
        field::LKEY,
        field::REMOTE_ADDR,
        field::RKEY,
    ],
};

/// The operation of an SQE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqOp {
    /// RDMA WRITE.
    Write,
    /// RDMA WRITE with immediate data.
    WriteImm(u32),
    /// SEND.
    Send,
    /// SEND with immediate data.
    SendImm(u32),
    /// RDMA READ.
    Read,
}

impl SqOp {
    /// The `opcode` value.
    pub const fn code(self) -> u8 {
        match self {
            SqOp::Write => 1,
            SqOp::WriteImm(_) => 2,
            SqOp::Send => 3,
            SqOp::SendImm(_) => 4,
            SqOp::Read => 5,
        }
    }

    fn imm(self) -> u32 {
        match self {
            SqOp::WriteImm(i) | SqOp::SendImm(i) => i,
            _ => 0,
        }
    }

    fn has_remote(self) -> bool {
        !matches!(self, SqOp::Send | SqOp::SendImm(_))
    }

    fn may_solicit(self) -> bool {
        matches!(self, SqOp::Send | SqOp::SendImm(_) | SqOp::WriteImm(_))
    }
}

/// A decoded SQE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SqeRepr {
    /// Caller's id.
    pub wr_id: u64,
    /// Operation (with its immediate data).
    pub op: SqOp,
    /// Local buffer address.
    pub local_addr: u64,
    /// Message length.
    pub length: u32,
    /// Local key.
    pub lkey: u32,
    /// Remote address (0 for SEND*).
    pub remote_addr: u64,
    /// Remote key (0 for SEND*).
    pub rkey: u32,
    /// Solicited event.
    pub solicited: bool,
}

fn invalid(f: &Field) -> Error {
    Error::Invalid { field: f.name }
}

impl SqeRepr {
    /// Checks the combinations the layout forbids: remote address and key on SEND*, solicited on WRITE or READ.
    pub fn validate(&self) -> Result<(), Error> {
        if !self.op.has_remote() && self.remote_addr != 0 {
            return Err(invalid(&field::REMOTE_ADDR));
        }
        if !self.op.has_remote() && self.rkey != 0 {
            return Err(invalid(&field::RKEY));
        }
        if self.solicited && !self.op.may_solicit() {
            return Err(invalid(&field::SOLICITED));
        }
        Ok(())
    }

    /// Decodes an SQE; any reserved bit, unknown opcode or forbidden combination is an error.
    pub fn parse(buf: &[u8]) -> Result<SqeRepr, Error> {
        LAYOUT.check_reserved(buf)?;
        let imm = field::IMM.get(buf)? as u32;
        let op = match field::OPCODE.get(buf)? {
            1 => SqOp::Write,
            2 => SqOp::WriteImm(imm),
            3 => SqOp::Send,
            4 => SqOp::SendImm(imm),
            5 => SqOp::Read,
            _ => return Err(invalid(&field::OPCODE)),
        };
        if op.imm() != imm {
            return Err(invalid(&field::IMM));
        }
        let r = SqeRepr {
            wr_id: field::WR_ID.get(buf)?,
            op,
            local_addr: field::LOCAL_ADDR.get(buf)?,
            length: field::LENGTH.get(buf)? as u32,
            lkey: field::LKEY.get(buf)? as u32,
            remote_addr: field::REMOTE_ADDR.get(buf)?,
            rkey: field::RKEY.get(buf)? as u32,
            solicited: field::SOLICITED.get(buf)? != 0,
        };
        r.validate()?;
        Ok(r)
    }

    /// Encodes into the first 64 bytes of `buf` (reserved bytes zeroed).
    pub fn emit(&self, buf: &mut [u8]) -> Result<(), Error> {
        self.validate()?;
        LAYOUT.clear(buf)?;
        field::OPCODE.set(buf, self.op.code() as u64)?;
        field::SOLICITED.set(buf, self.solicited as u64)?;
        field::IMM.set(buf, self.op.imm() as u64)?;
        field::WR_ID.set(buf, self.wr_id)?;
        field::LOCAL_ADDR.set(buf, self.local_addr)?;
        field::LENGTH.set(buf, self.length as u64)?;
        field::LKEY.set(buf, self.lkey as u64)?;
        field::REMOTE_ADDR.set(buf, self.remote_addr)?;
        field::RKEY.set(buf, self.rkey as u64)?;
        Ok(())
    }
}
