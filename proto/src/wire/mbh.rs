//! MetaRoCE base header (MBH), 16 bytes (spec 3.2, MR-WIRE-4..-14).

use super::{bytes, flags_u8, u8_enum, view, Error, Result};

/// Byte offsets, masks and shifts of the MBH.
pub mod field {
    use crate::wire::Field;
    /// Version (bits 7..4) and packet type (bits 3..0).
    pub const VER_TYPE: usize = 0;
    /// Mask of the version in [`VER_TYPE`].
    pub const VER_MASK: u8 = 0xF0;
    /// Shift of the version in [`VER_TYPE`].
    pub const VER_SHIFT: u32 = 4;
    /// Mask of the type in [`VER_TYPE`].
    pub const TYPE_MASK: u8 = 0x0F;
    /// Shift of the type in [`VER_TYPE`].
    pub const TYPE_SHIFT: u32 = 0;
    /// Flags: SYN 0x80, AR 0x40, RTX 0x20, 0x1F reserved.
    pub const FLAGS: usize = 1;
    /// Payload bytes after all headers, before the ICV.
    pub const PAYLOAD_LEN: Field = 2..4;
    /// Destination (receiver's) connection id, 24 bits.
    pub const DCID: Field = 4..7;
    /// Total MetaRoCE header length in 4-byte words.
    pub const HLEN: usize = 7;
    /// Packet sequence number (meaning depends on the type).
    pub const PSN: Field = 8..12;
    /// Sender's transmit timestamp, ns mod 2^32.
    pub const TS: Field = 12..16;
    /// Header length.
    pub const HEADER_LEN: usize = 16;
}

/// The MetaRoCE version this crate speaks.
pub const VERSION: u8 = 1;

u8_enum!(
    /// MetaRoCE packet type (MBH bits 3..0). 0 and 5..=15 are reserved: receivers drop them.
    PacketType {
        /// DATA: carries payload, consumes a PSN.
        Data = 1,
        /// ACK: cumulative + selective acknowledgement.
        Ack = 2,
        /// NACK: negative acknowledgement of one PSN.
        Nack = 3,
        /// CTRL: connection control.
        Ctrl = 4,
    }
);

flags_u8!(
    /// MBH flags (spec 3.2, MR-WIRE-13, -14). Bits 0x1F are reserved: sent as 0, ignored on receive.
    MbhFlags {
        /// An Open extension follows the type header.
        SYN = 0x80,
        /// Acknowledge immediately.
        AR = 0x40,
        /// This packet is a retransmission.
        RTX = 0x20,
    }
);

view!(
    /// A view of the MetaRoCE base header.
    MbhHeader,
    field::HEADER_LEN
);

impl<T: AsRef<[u8]>> MbhHeader<T> {
    /// Version (1).
    #[inline]
    pub fn version(&self) -> u8 {
        (bytes::u8_at(self.buffer.as_ref(), field::VER_TYPE) & field::VER_MASK) >> field::VER_SHIFT
    }
    /// Raw packet type nibble.
    #[inline]
    pub fn ptype(&self) -> u8 {
        (bytes::u8_at(self.buffer.as_ref(), field::VER_TYPE) & field::TYPE_MASK)
            >> field::TYPE_SHIFT
    }
    /// Raw flags byte, reserved bits included.
    #[inline]
    pub fn flags(&self) -> MbhFlags {
        MbhFlags(bytes::u8_at(self.buffer.as_ref(), field::FLAGS))
    }
    /// Payload length.
    #[inline]
    pub fn payload_len(&self) -> u16 {
        bytes::u16_at(self.buffer.as_ref(), field::PAYLOAD_LEN.start)
    }
    /// Destination connection id (24 bits).
    #[inline]
    pub fn dcid(&self) -> u32 {
        bytes::u24_at(self.buffer.as_ref(), field::DCID.start)
    }
    /// Header length in 4-byte words.
    #[inline]
    pub fn hlen(&self) -> u8 {
        bytes::u8_at(self.buffer.as_ref(), field::HLEN)
    }
    /// PSN.
    #[inline]
    pub fn psn(&self) -> u32 {
        bytes::u32_at(self.buffer.as_ref(), field::PSN.start)
    }
    /// Transmit timestamp.
    #[inline]
    pub fn ts(&self) -> u32 {
        bytes::u32_at(self.buffer.as_ref(), field::TS.start)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> MbhHeader<T> {
    /// Sets the version.
    #[inline]
    pub fn set_version(&mut self, v: u8) {
        bytes::set_bits(
            self.buffer.as_mut(),
            field::VER_TYPE,
            field::VER_MASK,
            field::VER_SHIFT,
            v,
        )
    }
    /// Sets the raw packet type nibble.
    #[inline]
    pub fn set_ptype(&mut self, v: u8) {
        bytes::set_bits(
            self.buffer.as_mut(),
            field::VER_TYPE,
            field::TYPE_MASK,
            field::TYPE_SHIFT,
            v,
        )
    }
    /// Sets the flags byte as given.
    #[inline]
    pub fn set_flags(&mut self, v: MbhFlags) {
        bytes::set_u8(self.buffer.as_mut(), field::FLAGS, v.0)
    }
    /// Sets the payload length.
    #[inline]
    pub fn set_payload_len(&mut self, v: u16) {
        bytes::set_u16(self.buffer.as_mut(), field::PAYLOAD_LEN.start, v)
    }
    /// Sets the destination connection id (low 24 bits).
    #[inline]
    pub fn set_dcid(&mut self, v: u32) {
        bytes::set_u24(self.buffer.as_mut(), field::DCID.start, v)
    }
    /// Sets the header length in words.
    #[inline]
    pub fn set_hlen(&mut self, v: u8) {
        bytes::set_u8(self.buffer.as_mut(), field::HLEN, v)
    }
    /// Sets the PSN.
    #[inline]
    pub fn set_psn(&mut self, v: u32) {
        bytes::set_u32(self.buffer.as_mut(), field::PSN.start, v)
    }
    /// Sets the timestamp.
    #[inline]
    pub fn set_ts(&mut self, v: u32) {
        bytes::set_u32(self.buffer.as_mut(), field::TS.start, v)
    }
}

/// High-level MBH. In whole-packet emit ([`crate::wire::packet::emit_headers`]) `ptype`, the SYN flag,
/// `payload_len` and `hlen` are derived from the rest of the packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MbhRepr {
    /// Packet type.
    pub ptype: PacketType,
    /// Flags (reserved bits are cleared by `parse` and `emit`).
    pub flags: MbhFlags,
    /// Payload length.
    pub payload_len: u16,
    /// Destination connection id (24 bits).
    pub dcid: u32,
    /// Header length in words (MBH + type header + extensions).
    pub hlen: u8,
    /// PSN.
    pub psn: u32,
    /// Timestamp.
    pub ts: u32,
}

impl MbhRepr {
    /// Parses an MBH: version 1 (`BadVersion`), defined type (`BadType`), hlen >= 4 (`BadLength`). Reserved flag
    /// bits are ignored.
    #[inline(always)]
    pub fn parse<T: AsRef<[u8]> + ?Sized>(h: &MbhHeader<&T>) -> Result<Self> {
        h.check_len()?;
        if h.version() != VERSION {
            return Err(Error::BadVersion);
        }
        let ptype = PacketType::from_u8(h.ptype()).ok_or(Error::BadType)?;
        let hlen = h.hlen();
        if (hlen as usize) * 4 < field::HEADER_LEN {
            return Err(Error::BadLength);
        }
        Ok(Self {
            ptype,
            flags: h.flags().defined(),
            payload_len: h.payload_len(),
            dcid: h.dcid(),
            hlen,
            psn: h.psn(),
            ts: h.ts(),
        })
    }

    /// Header length (16).
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        field::HEADER_LEN
    }

    /// Writes all 16 bytes (reserved flag bits as 0).
    #[inline]
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]> + ?Sized>(&self, h: &mut MbhHeader<&mut T>) {
        bytes::set_u8(
            h.buffer.as_mut(),
            field::VER_TYPE,
            (VERSION << field::VER_SHIFT) | self.ptype as u8,
        );
        h.set_flags(self.flags.defined());
        h.set_payload_len(self.payload_len);
        h.set_dcid(self.dcid);
        h.set_hlen(self.hlen);
        h.set_psn(self.psn);
        h.set_ts(self.ts);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mr_wire_mbh_rejects_reserved() {
        let r = MbhRepr {
            ptype: PacketType::Data,
            flags: MbhFlags::SYN | MbhFlags::AR,
            payload_len: 7,
            dcid: 0xABCDEF,
            hlen: 10,
            psn: 1,
            ts: 2,
        };
        let mut b = [0u8; 16];
        r.emit(&mut MbhHeader::new_unchecked(&mut b[..]));
        assert_eq!(MbhRepr::parse(&MbhHeader::new_unchecked(&b[..])), Ok(r));
        for t in [0u8, 5, 15] {
            let mut x = b;
            x[0] = 0x10 | t;
            assert_eq!(
                MbhRepr::parse(&MbhHeader::new_unchecked(&x[..])),
                Err(Error::BadType)
            );
        }
        let mut x = b;
        x[0] = 0x21;
        assert_eq!(
            MbhRepr::parse(&MbhHeader::new_unchecked(&x[..])),
            Err(Error::BadVersion)
        );
        let mut x = b;
        x[7] = 3;
        assert_eq!(
            MbhRepr::parse(&MbhHeader::new_unchecked(&x[..])),
            Err(Error::BadLength)
        );
        let mut x = b;
        x[1] |= 0x1F;
        assert_eq!(
            MbhRepr::parse(&MbhHeader::new_unchecked(&x[..])),
            Ok(r),
            "reserved flags ignored"
        );
        assert_eq!(
            MbhRepr::parse(&MbhHeader::new_unchecked(&b[..15])),
            Err(Error::Truncated)
        );
    }
}
