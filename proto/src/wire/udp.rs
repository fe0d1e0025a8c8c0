//! UDP header (MR-ENC-15..-20: destination port 4792 by default, source port = entropy value, checksum 0).

use super::{bytes, view, Error, Result};

/// Byte offsets of the UDP header.
pub mod field {
    use crate::wire::Field;
    /// Source port (MetaRoCE: the entropy value).
    pub const SRC_PORT: Field = 0..2;
    /// Destination port.
    pub const DST_PORT: Field = 2..4;
    /// Length of header + payload.
    pub const LENGTH: Field = 4..6;
    /// Checksum (MetaRoCE sends 0; receivers ignore it).
    pub const CHECKSUM: Field = 6..8;
    /// Header length.
    pub const HEADER_LEN: usize = 8;
}

/// The UDP source port that carries entropy value `ev` (MR-ENC-17): `0xC000 | (ev & 0x3FFF)`.
#[inline]
pub const fn ev_to_port(ev: u16) -> u16 {
    0xC000 | (ev & 0x3FFF)
}

view!(
    /// A view of a UDP header.
    UdpPacket,
    field::HEADER_LEN
);

impl<T: AsRef<[u8]>> UdpPacket<T> {
    /// Source port.
    #[inline]
    pub fn src_port(&self) -> u16 {
        bytes::u16_at(self.buffer.as_ref(), field::SRC_PORT.start)
    }
    /// Destination port.
    #[inline]
    pub fn dst_port(&self) -> u16 {
        bytes::u16_at(self.buffer.as_ref(), field::DST_PORT.start)
    }
    /// Length field (header + payload).
    #[inline]
    pub fn len(&self) -> u16 {
        bytes::u16_at(self.buffer.as_ref(), field::LENGTH.start)
    }
    /// True if the length field is zero (always malformed).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Checksum as stored.
    #[inline]
    pub fn checksum(&self) -> u16 {
        bytes::u16_at(self.buffer.as_ref(), field::CHECKSUM.start)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> UdpPacket<T> {
    /// Sets the source port.
    #[inline]
    pub fn set_src_port(&mut self, v: u16) {
        bytes::set_u16(self.buffer.as_mut(), field::SRC_PORT.start, v)
    }
    /// Sets the destination port.
    #[inline]
    pub fn set_dst_port(&mut self, v: u16) {
        bytes::set_u16(self.buffer.as_mut(), field::DST_PORT.start, v)
    }
    /// Sets the length field.
    #[inline]
    pub fn set_len(&mut self, v: u16) {
        bytes::set_u16(self.buffer.as_mut(), field::LENGTH.start, v)
    }
    /// Sets the checksum.
    #[inline]
    pub fn set_checksum(&mut self, v: u16) {
        bytes::set_u16(self.buffer.as_mut(), field::CHECKSUM.start, v)
    }
}

/// High-level UDP header. The checksum is not represented: MetaRoCE sends 0 and never verifies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UdpRepr {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Payload length (length field - 8).
    pub payload_len: usize,
}

impl UdpRepr {
    /// Parses a header: length field at least 8 (`BadLength`) and within the buffer (`Truncated`).
    pub fn parse<T: AsRef<[u8]> + ?Sized>(p: &UdpPacket<&T>) -> Result<Self> {
        p.check_len()?;
        let len = p.len() as usize;
        if len < field::HEADER_LEN {
            return Err(Error::BadLength);
        }
        if len > p.buffer.as_ref().len() {
            return Err(Error::Truncated);
        }
        Ok(Self {
            src_port: p.src_port(),
            dst_port: p.dst_port(),
            payload_len: len - field::HEADER_LEN,
        })
    }

    /// Header length (8).
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        field::HEADER_LEN
    }

    /// Writes the header with checksum 0 (MR-ENC-19).
    #[inline]
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]> + ?Sized>(&self, p: &mut UdpPacket<&mut T>) {
        p.set_src_port(self.src_port);
        p.set_dst_port(self.dst_port);
        p.set_len(self.payload_len.wrapping_add(field::HEADER_LEN) as u16);
        p.set_checksum(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ev_port_mr_enc_ev() {
        assert_eq!(ev_to_port(0), 0xC000);
        assert_eq!(ev_to_port(0xFFFF), 0xFFFF);
        assert_eq!(ev_to_port(0x4001), 0xC001);
    }

    #[test]
    fn parse_checks_length() {
        let mut p = UdpPacket::new_unchecked([0u8; 8]);
        p.set_len(7);
        assert_eq!(
            UdpRepr::parse(&UdpPacket::new_unchecked(p.as_ref())),
            Err(Error::BadLength)
        );
        p.set_len(9);
        assert_eq!(
            UdpRepr::parse(&UdpPacket::new_unchecked(p.as_ref())),
            Err(Error::Truncated)
        );
        p.set_len(8);
        assert_eq!(
            UdpRepr::parse(&UdpPacket::new_unchecked(p.as_ref())).map(|r| r.payload_len),
            Ok(0)
        );
    }
}
