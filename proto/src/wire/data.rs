//! DATA header (DH), 24 bytes, plus a 4-byte immediate for `WRITE_IMM` / `SEND_IMM` (spec 3.3, 3.4).

use super::{bytes, flags_u8, view, Error, Result};

/// Byte offsets of the DATA header.
pub mod field {
    use crate::wire::Field;
    /// Opcode.
    pub const OPCODE: usize = 0;
    /// Data flags: FIRST 0x80, LAST 0x40, SE 0x20; others 0.
    pub const DFLAGS: usize = 1;
    /// Reserved, 0.
    pub const RESERVED: Field = 2..4;
    /// Message sequence number.
    pub const MSN: Field = 4..8;
    /// Remote VA / byte offset (see the opcode).
    pub const ADDR: Field = 8..16;
    /// R_Key / SSN / MSN of the answered READ_REQ (see the opcode).
    pub const KEY: Field = 16..20;
    /// Total message length in bytes.
    pub const MSG_LEN: Field = 20..24;
    /// Immediate data; only for WRITE_IMM and SEND_IMM.
    pub const IMM: Field = 24..28;
    /// Length without the immediate.
    pub const HEADER_LEN: usize = 24;
    /// Length with the immediate.
    pub const HEADER_LEN_IMM: usize = 28;
}

/// DATA opcode (MR-WIRE Table 3.4).
///
/// The eight defined operations, plus two classes standing for every value a receiver must answer with a NACK
/// rather than drop: [`Opcode::Reserved`] (0x00, 0x07, 0x0A..=0x7F: NACK INVALID, MR-WIRE-16) and
/// [`Opcode::Experimental`] (0x80..=0xFF: NACK UNSUPPORTED, MR-WIRE-18). [`Opcode::from_u8`] and `TryFrom` accept
/// only the defined operations; [`Opcode::from_wire`] maps every byte. A sender emits the classes as 0x00 and
/// 0x80.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Opcode {
    /// Any reserved value (0x00, 0x07, 0x0A..=0x7F); emitted as 0x00.
    Reserved = 0x00,
    /// RDMA WRITE.
    Write = 0x01,
    /// RDMA WRITE with immediate.
    WriteImm = 0x02,
    /// SEND.
    Send = 0x03,
    /// SEND with immediate.
    SendImm = 0x04,
    /// RDMA READ request (payload_len 0, consumes one PSN).
    ReadReq = 0x05,
    /// RDMA READ response data.
    ReadResp = 0x06,
    /// Atomic fetch-and-add (deferred: receivers NACK UNSUPPORTED, MR-WIRE-17).
    FetchAdd = 0x08,
    /// Atomic compare-and-swap (deferred: receivers NACK UNSUPPORTED, MR-WIRE-15).
    CmpSwap = 0x09,
    /// Any experimental value (0x80..=0xFF); emitted as 0x80.
    Experimental = 0x80,
}

impl Opcode {
    /// The defined operation of a wire byte; `None` for reserved and experimental values.
    #[inline]
    pub const fn from_u8(v: u8) -> Option<Self> {
        match v {
            0x01 => Some(Self::Write),
            0x02 => Some(Self::WriteImm),
            0x03 => Some(Self::Send),
            0x04 => Some(Self::SendImm),
            0x05 => Some(Self::ReadReq),
            0x06 => Some(Self::ReadResp),
            0x08 => Some(Self::FetchAdd),
            0x09 => Some(Self::CmpSwap),
            _ => None,
        }
    }

    /// The opcode of any wire byte: a defined operation, [`Opcode::Reserved`] or [`Opcode::Experimental`].
    #[inline]
    pub const fn from_wire(v: u8) -> Self {
        match Self::from_u8(v) {
            Some(op) => op,
            None if v >= 0x80 => Self::Experimental,
            None => Self::Reserved,
        }
    }

    /// True for the eight defined operations.
    #[inline]
    pub const fn is_defined(self) -> bool {
        !matches!(self, Self::Reserved | Self::Experimental)
    }
}

impl TryFrom<u8> for Opcode {
    type Error = Error;
    /// The defined operation of a wire byte; `Err(Unsupported)` for reserved and experimental values.
    #[inline]
    fn try_from(v: u8) -> Result<Self> {
        Self::from_u8(v).ok_or(Error::Unsupported)
    }
}

impl From<Opcode> for u8 {
    #[inline]
    fn from(v: Opcode) -> u8 {
        v as u8
    }
}

impl Opcode {
    /// True for opcodes whose every packet carries the 4-byte immediate.
    #[inline]
    pub const fn has_imm(self) -> bool {
        matches!(self, Opcode::WriteImm | Opcode::SendImm)
    }

    /// DATA header length for this opcode: 28 with the immediate, else 24 (MR-WIRE Table 3.12).
    #[inline]
    pub const fn header_len(self) -> usize {
        if self.has_imm() {
            field::HEADER_LEN_IMM
        } else {
            field::HEADER_LEN
        }
    }
}

flags_u8!(
    /// DATA header flags (spec 3.3, MR-WIRE-19, -20).
    DataFlags {
        /// First packet of the message.
        FIRST = 0x80,
        /// Last packet of the message.
        LAST = 0x40,
        /// Solicited event.
        SE = 0x20,
    }
);

view!(
    /// A view of the DATA header. `LEN` is the length without the immediate; use
    /// [`DataHeader::check_len_full`] to also require the immediate when the opcode has one, and
    /// [`DataHeader::header_len`] to find the end of the header (`payload()` starts after the fixed 24 bytes).
    DataHeader,
    field::HEADER_LEN
);

impl<T: AsRef<[u8]>> DataHeader<T> {
    /// Header length implied by the opcode byte (28 for WRITE_IMM/SEND_IMM, else 24).
    #[inline]
    pub fn header_len(&self) -> usize {
        Opcode::from_wire(self.opcode()).header_len()
    }
    /// `Err(Truncated)` unless the buffer holds [`Self::header_len`] bytes.
    #[inline]
    pub fn check_len_full(&self) -> Result<()> {
        if self.buffer.as_ref().len() < self.header_len() {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }
    /// Raw opcode byte.
    #[inline]
    pub fn opcode(&self) -> u8 {
        bytes::u8_at(self.buffer.as_ref(), field::OPCODE)
    }
    /// Raw flags byte.
    #[inline]
    pub fn dflags(&self) -> DataFlags {
        DataFlags(bytes::u8_at(self.buffer.as_ref(), field::DFLAGS))
    }
    /// Reserved bytes 2..4.
    #[inline]
    pub fn reserved(&self) -> u16 {
        bytes::u16_at(self.buffer.as_ref(), field::RESERVED.start)
    }
    /// Message sequence number.
    #[inline]
    pub fn msn(&self) -> u32 {
        bytes::u32_at(self.buffer.as_ref(), field::MSN.start)
    }
    /// Address / offset.
    #[inline]
    pub fn addr(&self) -> u64 {
        bytes::u64_at(self.buffer.as_ref(), field::ADDR.start)
    }
    /// Key / SSN / answered MSN.
    #[inline]
    pub fn key(&self) -> u32 {
        bytes::u32_at(self.buffer.as_ref(), field::KEY.start)
    }
    /// Total message length.
    #[inline]
    pub fn msg_len(&self) -> u32 {
        bytes::u32_at(self.buffer.as_ref(), field::MSG_LEN.start)
    }
    /// Immediate (reads 0 if the buffer has no room for it).
    #[inline]
    pub fn imm(&self) -> u32 {
        bytes::u32_at(self.buffer.as_ref(), field::IMM.start)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> DataHeader<T> {
    /// Sets the opcode byte.
    #[inline]
    pub fn set_opcode(&mut self, v: u8) {
        bytes::set_u8(self.buffer.as_mut(), field::OPCODE, v)
    }
    /// Sets the flags byte.
    #[inline]
    pub fn set_dflags(&mut self, v: DataFlags) {
        bytes::set_u8(self.buffer.as_mut(), field::DFLAGS, v.0)
    }
    /// Sets the reserved bytes.
    #[inline]
    pub fn set_reserved(&mut self, v: u16) {
        bytes::set_u16(self.buffer.as_mut(), field::RESERVED.start, v)
    }
    /// Sets the MSN.
    #[inline]
    pub fn set_msn(&mut self, v: u32) {
        bytes::set_u32(self.buffer.as_mut(), field::MSN.start, v)
    }
    /// Sets the address.
    #[inline]
    pub fn set_addr(&mut self, v: u64) {
        bytes::set_u64(self.buffer.as_mut(), field::ADDR.start, v)
    }
    /// Sets the key.
    #[inline]
    pub fn set_key(&mut self, v: u32) {
        bytes::set_u32(self.buffer.as_mut(), field::KEY.start, v)
    }
    /// Sets the message length.
    #[inline]
    pub fn set_msg_len(&mut self, v: u32) {
        bytes::set_u32(self.buffer.as_mut(), field::MSG_LEN.start, v)
    }
    /// Sets the immediate.
    #[inline]
    pub fn set_imm(&mut self, v: u32) {
        bytes::set_u32(self.buffer.as_mut(), field::IMM.start, v)
    }
}

/// High-level DATA header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DataRepr {
    /// Opcode.
    pub opcode: Opcode,
    /// Flags (reserved bits cleared).
    pub flags: DataFlags,
    /// Message sequence number.
    pub msn: u32,
    /// Address / offset.
    pub addr: u64,
    /// Key / SSN / answered MSN.
    pub key: u32,
    /// Total message length.
    pub msg_len: u32,
    /// Immediate: `Some` exactly when `opcode.has_imm()` after `parse`. `emit` writes it (0 if `None`) for
    /// those opcodes and ignores it for the others.
    pub imm: Option<u32>,
}

impl DataRepr {
    /// Parses a DATA header: the immediate must be present when the opcode has one (`Truncated`). Reserved and
    /// experimental opcodes parse as [`Opcode::Reserved`] / [`Opcode::Experimental`] (the receiver answers them
    /// with a NACK, MR-WIRE-16/-18). Reserved bits and bytes are ignored (MR-WIRE-2).
    #[inline(always)]
    pub fn parse<T: AsRef<[u8]> + ?Sized>(h: &DataHeader<&T>) -> Result<Self> {
        h.check_len()?;
        let opcode = Opcode::from_wire(h.opcode());
        h.check_len_full()?;
        Ok(Self {
            opcode,
            flags: h.dflags().defined(),
            msn: h.msn(),
            addr: h.addr(),
            key: h.key(),
            msg_len: h.msg_len(),
            imm: if opcode.has_imm() {
                Some(h.imm())
            } else {
                None
            },
        })
    }

    /// Header length: 28 with the immediate, else 24.
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        self.opcode.header_len()
    }

    /// Writes all `buffer_len()` bytes.
    #[inline]
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]> + ?Sized>(&self, h: &mut DataHeader<&mut T>) {
        h.set_opcode(self.opcode as u8);
        h.set_dflags(self.flags.defined());
        h.set_reserved(0);
        h.set_msn(self.msn);
        h.set_addr(self.addr);
        h.set_key(self.key);
        h.set_msg_len(self.msg_len);
        if self.opcode.has_imm() {
            h.set_imm(self.imm.unwrap_or(0));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mr_wire_opcode_space() {
        for v in 0..=255u8 {
            let defined = matches!(v, 1..=6 | 8 | 9);
            assert_eq!(Opcode::from_u8(v).is_some(), defined, "opcode {v:#x}");
            if let Some(op) = Opcode::from_u8(v) {
                assert_eq!(u8::from(op), v);
                assert_eq!(Opcode::try_from(v), Ok(op));
                assert_eq!(Opcode::from_wire(v), op);
                assert!(op.is_defined());
            } else {
                assert_eq!(Opcode::try_from(v), Err(Error::Unsupported));
                let want = if v >= 0x80 {
                    Opcode::Experimental
                } else {
                    Opcode::Reserved
                };
                assert_eq!(Opcode::from_wire(v), want, "opcode {v:#x}");
                assert!(!want.is_defined());
            }
        }
    }

    #[test]
    fn imm_needs_28_bytes() {
        let mut b = [0u8; 28];
        b[0] = Opcode::SendImm as u8;
        assert_eq!(
            DataRepr::parse(&DataHeader::new_unchecked(&b[..27])),
            Err(Error::Truncated)
        );
        assert_eq!(
            DataRepr::parse(&DataHeader::new_unchecked(&b[..])).map(|r| r.imm),
            Ok(Some(0))
        );
        b[0] = Opcode::Send as u8;
        assert_eq!(
            DataRepr::parse(&DataHeader::new_unchecked(&b[..24])).map(|r| r.imm),
            Ok(None)
        );
        b[0] = 0x07;
        let r = DataRepr::parse(&DataHeader::new_unchecked(&b[..]));
        assert_eq!(r.map(|r| r.opcode), Ok(Opcode::Reserved));
        b[0] = 0xC3;
        let r = DataRepr::parse(&DataHeader::new_unchecked(&b[..24]));
        assert_eq!(r.map(|r| r.opcode), Ok(Opcode::Experimental));
    }
}
