//! IPv6 fixed header (MR-ENC-11..-14: 40 bytes, next header 17, no extension headers).

use super::{bytes, view, Error, Result};

/// Byte offsets, masks and shifts of the IPv6 header.
pub mod field {
    use crate::wire::Field;
    /// Version (4 bits), traffic class (8 bits: DSCP 6 + ECN 2), flow label (20 bits), as one big-endian u32.
    pub const VER_TC_FLOW: Field = 0..4;
    /// Mask of the version in [`VER_TC_FLOW`].
    pub const VER_MASK: u32 = 0xF000_0000;
    /// Shift of the version in [`VER_TC_FLOW`].
    pub const VER_SHIFT: u32 = 28;
    /// Mask of the DSCP in [`VER_TC_FLOW`].
    pub const DSCP_MASK: u32 = 0x0FC0_0000;
    /// Shift of the DSCP in [`VER_TC_FLOW`].
    pub const DSCP_SHIFT: u32 = 22;
    /// Mask of the ECN in [`VER_TC_FLOW`].
    pub const ECN_MASK: u32 = 0x0030_0000;
    /// Shift of the ECN in [`VER_TC_FLOW`].
    pub const ECN_SHIFT: u32 = 20;
    /// Mask of the flow label in [`VER_TC_FLOW`].
    pub const FLOW_MASK: u32 = 0x000F_FFFF;
    /// Shift of the flow label in [`VER_TC_FLOW`].
    pub const FLOW_SHIFT: u32 = 0;
    /// Payload length.
    pub const LENGTH: Field = 4..6;
    /// Next header (17 = UDP).
    pub const NXT_HDR: usize = 6;
    /// Hop limit.
    pub const HOP_LIMIT: usize = 7;
    /// Source address.
    pub const SRC: Field = 8..24;
    /// Destination address.
    pub const DST: Field = 24..40;
    /// Header length.
    pub const HEADER_LEN: usize = 40;
}

view!(
    /// A view of the IPv6 fixed header.
    Ipv6Packet,
    field::HEADER_LEN
);

impl<T: AsRef<[u8]>> Ipv6Packet<T> {
    #[inline]
    fn word0(&self) -> u32 {
        bytes::u32_at(self.buffer.as_ref(), field::VER_TC_FLOW.start)
    }
    /// IP version (6).
    #[inline]
    pub fn version(&self) -> u8 {
        ((self.word0() & field::VER_MASK) >> field::VER_SHIFT) as u8
    }
    /// DSCP (6 bits of the traffic class).
    #[inline]
    pub fn dscp(&self) -> u8 {
        ((self.word0() & field::DSCP_MASK) >> field::DSCP_SHIFT) as u8
    }
    /// ECN (2 bits of the traffic class).
    #[inline]
    pub fn ecn(&self) -> u8 {
        ((self.word0() & field::ECN_MASK) >> field::ECN_SHIFT) as u8
    }
    /// Flow label (20 bits).
    #[inline]
    pub fn flow_label(&self) -> u32 {
        (self.word0() & field::FLOW_MASK) >> field::FLOW_SHIFT
    }
    /// Payload length.
    #[inline]
    pub fn payload_len(&self) -> u16 {
        bytes::u16_at(self.buffer.as_ref(), field::LENGTH.start)
    }
    /// Next header.
    #[inline]
    pub fn next_header(&self) -> u8 {
        bytes::u8_at(self.buffer.as_ref(), field::NXT_HDR)
    }
    /// Hop limit.
    #[inline]
    pub fn hop_limit(&self) -> u8 {
        bytes::u8_at(self.buffer.as_ref(), field::HOP_LIMIT)
    }
    /// Source address.
    #[inline]
    pub fn src_addr(&self) -> [u8; 16] {
        bytes::get(self.buffer.as_ref(), field::SRC.start)
    }
    /// Destination address.
    #[inline]
    pub fn dst_addr(&self) -> [u8; 16] {
        bytes::get(self.buffer.as_ref(), field::DST.start)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv6Packet<T> {
    #[inline]
    fn set_word0_bits(&mut self, mask: u32, shift: u32, v: u32) {
        let w = self.word0();
        let w = (w & !mask) | ((v << shift) & mask);
        bytes::set_u32(self.buffer.as_mut(), field::VER_TC_FLOW.start, w)
    }
    /// Sets the version.
    #[inline]
    pub fn set_version(&mut self, v: u8) {
        self.set_word0_bits(field::VER_MASK, field::VER_SHIFT, v.into())
    }
    /// Sets the DSCP.
    #[inline]
    pub fn set_dscp(&mut self, v: u8) {
        self.set_word0_bits(field::DSCP_MASK, field::DSCP_SHIFT, v.into())
    }
    /// Sets the ECN codepoint.
    #[inline]
    pub fn set_ecn(&mut self, v: u8) {
        self.set_word0_bits(field::ECN_MASK, field::ECN_SHIFT, v.into())
    }
    /// Sets the flow label (low 20 bits of `v`).
    #[inline]
    pub fn set_flow_label(&mut self, v: u32) {
        self.set_word0_bits(field::FLOW_MASK, field::FLOW_SHIFT, v)
    }
    /// Sets the payload length.
    #[inline]
    pub fn set_payload_len(&mut self, v: u16) {
        bytes::set_u16(self.buffer.as_mut(), field::LENGTH.start, v)
    }
    /// Sets the next header.
    #[inline]
    pub fn set_next_header(&mut self, v: u8) {
        bytes::set_u8(self.buffer.as_mut(), field::NXT_HDR, v)
    }
    /// Sets the hop limit.
    #[inline]
    pub fn set_hop_limit(&mut self, v: u8) {
        bytes::set_u8(self.buffer.as_mut(), field::HOP_LIMIT, v)
    }
    /// Sets the source address.
    #[inline]
    pub fn set_src_addr(&mut self, v: [u8; 16]) {
        bytes::put(self.buffer.as_mut(), field::SRC.start, v)
    }
    /// Sets the destination address.
    #[inline]
    pub fn set_dst_addr(&mut self, v: [u8; 16]) {
        bytes::put(self.buffer.as_mut(), field::DST.start, v)
    }
}

/// High-level IPv6 fixed header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ipv6Repr {
    /// Source address.
    pub src: [u8; 16],
    /// Destination address.
    pub dst: [u8; 16],
    /// DSCP (6 bits).
    pub dscp: u8,
    /// ECN (2 bits).
    pub ecn: u8,
    /// Flow label (20 bits).
    pub flow_label: u32,
    /// Hop limit.
    pub hop_limit: u8,
    /// Next header (17).
    pub next_header: u8,
    /// Payload length.
    pub payload_len: usize,
}

impl Ipv6Repr {
    /// Parses a header: version 6 (`BadVersion`), payload within the buffer (`Truncated`). The next header is
    /// returned as is; the packet layer rejects anything but UDP.
    pub fn parse<T: AsRef<[u8]> + ?Sized>(p: &Ipv6Packet<&T>) -> Result<Self> {
        p.check_len()?;
        if p.version() != 6 {
            return Err(Error::BadVersion);
        }
        let len = p.payload_len() as usize;
        if len > p.buffer.as_ref().len().saturating_sub(field::HEADER_LEN) {
            return Err(Error::Truncated);
        }
        Ok(Self {
            src: p.src_addr(),
            dst: p.dst_addr(),
            dscp: p.dscp(),
            ecn: p.ecn(),
            flow_label: p.flow_label(),
            hop_limit: p.hop_limit(),
            next_header: p.next_header(),
            payload_len: len,
        })
    }

    /// Header length (40).
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        field::HEADER_LEN
    }

    /// Writes the 40-byte header. `payload_len` above 65535 is written modulo 2^16; the packet layer checks.
    #[inline]
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]> + ?Sized>(&self, p: &mut Ipv6Packet<&mut T>) {
        let w = (6u32 << field::VER_SHIFT)
            | ((u32::from(self.dscp) << field::DSCP_SHIFT) & field::DSCP_MASK)
            | ((u32::from(self.ecn) << field::ECN_SHIFT) & field::ECN_MASK)
            | (self.flow_label & field::FLOW_MASK);
        bytes::set_u32(p.buffer.as_mut(), field::VER_TC_FLOW.start, w);
        p.set_payload_len(self.payload_len as u16);
        p.set_next_header(self.next_header);
        p.set_hop_limit(self.hop_limit);
        p.set_src_addr(self.src);
        p.set_dst_addr(self.dst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setters_touch_only_their_bits() {
        let mut p = Ipv6Packet::new_unchecked([0u8; 40]);
        p.set_version(6);
        p.set_dscp(0x3F);
        assert_eq!(&p.as_ref()[..4], &[0x6F, 0xC0, 0, 0]);
        p.set_ecn(3);
        p.set_flow_label(0xFFFFF);
        assert_eq!(&p.as_ref()[..4], &[0x6F, 0xFF, 0xFF, 0xFF]);
        p.set_dscp(0);
        assert_eq!(&p.as_ref()[..4], &[0x60, 0x3F, 0xFF, 0xFF]);
        assert_eq!((p.version(), p.ecn(), p.flow_label()), (6, 3, 0xFFFFF));
    }

    #[test]
    fn parse_rejects_long_payload() {
        let mut p = Ipv6Packet::new_unchecked([0u8; 40]);
        p.set_version(6);
        p.set_payload_len(1);
        assert_eq!(
            Ipv6Repr::parse(&Ipv6Packet::new_unchecked(p.as_ref())),
            Err(Error::Truncated)
        );
    }
}
