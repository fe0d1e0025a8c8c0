//! NACK header (NH), 12 bytes (spec 3.9, MR-WIRE-36). MBH.PSN carries the nacked PSN.

use super::{bytes, u8_enum, view, Error, Result};

/// Byte offsets of the NACK header.
pub mod field {
    use crate::wire::Field;
    /// The nacker's connection id, 24 bits.
    pub const SCID: Field = 0..3;
    /// NACK code.
    pub const CODE: usize = 3;
    /// MBH.TS of the triggering packet.
    pub const ECHO_TS: Field = 4..8;
    /// Code-specific value.
    pub const AUX: Field = 8..12;
    /// Length.
    pub const HEADER_LEN: usize = 12;
}

u8_enum!(
    /// NACK code (spec 3.9). Other values are reserved: drop (MR-WIRE-37).
    NackCode {
        /// The packet was trimmed by a switch: retransmit.
        Trimmed = 1,
        /// The receiver has no context: retry after `aux` µs with SYN.
        NoContext = 2,
        /// No receive WQE: retry after `aux` µs.
        Rnr = 3,
        /// Key, bounds or rights violation; `aux` = MSN.
        Access = 4,
        /// Bad opcode, length or state; `aux` = MSN.
        Invalid = 5,
        /// Unsupported operation; `aux` = MSN.
        Unsupported = 6,
    }
);

view!(
    /// A view of the NACK header.
    NackHeader,
    field::HEADER_LEN
);

impl<T: AsRef<[u8]>> NackHeader<T> {
    /// Nacker's connection id.
    #[inline]
    pub fn scid(&self) -> u32 {
        bytes::u24_at(self.buffer.as_ref(), field::SCID.start)
    }
    /// Raw code byte.
    #[inline]
    pub fn code(&self) -> u8 {
        bytes::u8_at(self.buffer.as_ref(), field::CODE)
    }
    /// Echoed timestamp.
    #[inline]
    pub fn echo_ts(&self) -> u32 {
        bytes::u32_at(self.buffer.as_ref(), field::ECHO_TS.start)
    }
    /// Auxiliary value.
    #[inline]
    pub fn aux(&self) -> u32 {
        bytes::u32_at(self.buffer.as_ref(), field::AUX.start)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> NackHeader<T> {
    /// Sets the connection id (low 24 bits).
    #[inline]
    pub fn set_scid(&mut self, v: u32) {
        bytes::set_u24(self.buffer.as_mut(), field::SCID.start, v)
    }
    /// Sets the raw code byte.
    #[inline]
    pub fn set_code(&mut self, v: u8) {
        bytes::set_u8(self.buffer.as_mut(), field::CODE, v)
    }
    /// Sets the echoed timestamp.
    #[inline]
    pub fn set_echo_ts(&mut self, v: u32) {
        bytes::set_u32(self.buffer.as_mut(), field::ECHO_TS.start, v)
    }
    /// Sets the auxiliary value.
    #[inline]
    pub fn set_aux(&mut self, v: u32) {
        bytes::set_u32(self.buffer.as_mut(), field::AUX.start, v)
    }
}

/// High-level NACK header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NackRepr {
    /// Nacker's connection id (24 bits).
    pub scid: u32,
    /// Code.
    pub code: NackCode,
    /// Echoed timestamp.
    pub echo_ts: u32,
    /// Code-specific value.
    pub aux: u32,
}

impl NackRepr {
    /// Parses a NACK header; a reserved code is `Unsupported`.
    #[inline(always)]
    pub fn parse<T: AsRef<[u8]> + ?Sized>(h: &NackHeader<&T>) -> Result<Self> {
        h.check_len()?;
        let code = NackCode::from_u8(h.code()).ok_or(Error::Unsupported)?;
        Ok(Self {
            scid: h.scid(),
            code,
            echo_ts: h.echo_ts(),
            aux: h.aux(),
        })
    }

    /// Length (12).
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        field::HEADER_LEN
    }

    /// Writes all 12 bytes.
    #[inline]
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]> + ?Sized>(&self, h: &mut NackHeader<&mut T>) {
        h.set_scid(self.scid);
        h.set_code(self.code as u8);
        h.set_echo_ts(self.echo_ts);
        h.set_aux(self.aux);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_codes_rejected() {
        let mut b = [0u8; 12];
        for c in 0..=255u8 {
            b[3] = c;
            let r = NackRepr::parse(&NackHeader::new_unchecked(&b[..]));
            assert_eq!(r.is_ok(), (1..=6).contains(&c), "code {c}");
        }
    }
}
