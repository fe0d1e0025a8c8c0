//! Receive queue entry (RQE), 32 bytes: one receive work request (MR-SEM-9). Written by the host, read by the
//! device; SEND number SSN consumes the RQE SSN positions after the first one not yet consumed when the
//! connection opened (MR-SEM-27).

use crate::field::{Error, Layout};

/// Fields of an RQE.
pub mod field {
    use crate::field::Field;
    /// `wr_id`.
    pub const WR_ID: Field = Field::new("wr_id", 0, 0, 64, "caller's id, returned in the CQE");
    /// `addr`.
    pub const ADDR: Field = Field::new("addr", 8, 0, 64, "receive buffer address");
    /// `length`.
    pub const LENGTH: Field = Field::new("length", 16, 0, 32, "receive buffer length in bytes");
    /// `lkey`.
    pub const LKEY: Field = Field::new(
        "lkey",
        20,
        0,
        32,
        "local key of the buffer's memory region (needs LOCAL_WRITE)",
    );
}

/// The RQE layout.
pub const LAYOUT: Layout = Layout {
    name: "rqe",
    bytes: 32,
    doc: "Receive queue entry: one receive buffer. Host writes, device reads.",
    fields: &[field::WR_ID, field::ADDR, field::LENGTH, field::LKEY],
};

/// A decoded RQE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RqeRepr {
    /// Caller's id.
    pub wr_id: u64,
    /// Buffer address.
    pub addr: u64,
    /// Buffer length.
    pub length: u32,
    /// Local key.
    pub lkey: u32,
}

impl RqeRepr {
    /// Decodes an RQE; a reserved bit set is an error.
    pub fn parse(buf: &[u8]) -> Result<RqeRepr, Error> {
        LAYOUT.check_reserved(buf)?;
        Ok(RqeRepr {
            wr_id: field::WR_ID.get(buf)?,
            addr: field::ADDR.get(buf)?,
            length: field::LENGTH.get(buf)? as u32,
            lkey: field::LKEY.get(buf)? as u32,
        })
    }

    /// Encodes into the first 32 bytes of `buf`.
    pub fn emit(&self, buf: &mut [u8]) -> Result<(), Error> {
        LAYOUT.clear(buf)?;
        field::WR_ID.set(buf, self.wr_id)?;
        field::ADDR.set(buf, self.addr)?;
        field::LENGTH.set(buf, self.length as u64)?;
        field::LKEY.set(buf, self.lkey as u64)?;
        Ok(())
    }
}
