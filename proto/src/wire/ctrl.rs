//! CTRL header (CH), 12 bytes (spec 3.10, MR-WIRE-38). CTRL packets consume no PSN; MBH.PSN carries the sender's next PSN.

use super::{bytes, u8_enum, view, Error, Result};

/// Byte offsets of the CTRL header.
pub mod field {
    use crate::wire::Field;
    /// The sender's connection id, 24 bits.
    pub const SCID: Field = 0..3;
    /// CTRL code.
    pub const CODE: usize = 3;
    /// MBH.TS of the triggering packet.
    pub const ECHO_TS: Field = 4..8;
    /// Code-specific value (CLOSE: the closer's next PSN).
    pub const AUX: Field = 8..12;
    /// Length.
    pub const HEADER_LEN: usize = 12;
}

u8_enum!(
    /// CTRL code (spec 3.10). Other values are reserved: drop (MR-WIRE-39).
    CtrlCode {
        /// Explicit open; SYN and the Open extension are present.
        Open = 1,
        /// Close; `aux` = the closer's next PSN.
        Close = 2,
        /// Acknowledges a CLOSE.
        CloseAck = 3,
        /// Elicits an ACK whose `echo_ev` is this probe's entropy value.
        Probe = 4,
        /// Receiver credit grant; `aux` = bytes granted (increment).
        Credit = 5,
        /// Credit request; `aux` = bytes wanted.
        CreditReq = 6,
    }
);

view!(
    /// A view of the CTRL header.
    CtrlHeader,
    field::HEADER_LEN
);

impl<T: AsRef<[u8]>> CtrlHeader<T> {
    /// Sender's connection id.
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

impl<T: AsRef<[u8]> + AsMut<[u8]>> CtrlHeader<T> {
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

/// High-level CTRL header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CtrlRepr {
    /// Sender's connection id (24 bits).
    pub scid: u32,
    /// Code.
    pub code: CtrlCode,
    /// Echoed timestamp.
    pub echo_ts: u32,
    /// Code-specific value.
    pub aux: u32,
}

impl CtrlRepr {
    /// Parses a CTRL header; a reserved code is `Unsupported`.
    #[inline(always)]
    pub fn parse<T: AsRef<[u8]> + ?Sized>(h: &CtrlHeader<&T>) -> Result<Self> {
        h.check_len()?;
        let code = CtrlCode::from_u8(h.code()).ok_or(Error::Unsupported)?;
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
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]> + ?Sized>(&self, h: &mut CtrlHeader<&mut T>) {
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
            let r = CtrlRepr::parse(&CtrlHeader::new_unchecked(&b[..]));
            assert_eq!(r.is_ok(), (1..=6).contains(&c), "code {c}");
        }
    }
}
