//! Ethernet II header with at most one 802.1Q tag (MR-ENC-1..-3).

use super::{bytes, view, Error, Result};

/// Ethertype values used by MetaRoCE.
pub struct EtherType;

impl EtherType {
    /// IPv4.
    pub const IPV4: u16 = 0x0800;
    /// IPv6.
    pub const IPV6: u16 = 0x86DD;
    /// 802.1Q VLAN tag protocol identifier.
    pub const VLAN: u16 = 0x8100;
}

/// Byte offsets of the Ethernet header.
pub mod field {
    use crate::wire::Field;
    /// Destination MAC address.
    pub const DST: Field = 0..6;
    /// Source MAC address.
    pub const SRC: Field = 6..12;
    /// Ethertype, or the 802.1Q TPID 0x8100 when tagged.
    pub const ETHERTYPE: Field = 12..14;
    /// 802.1Q tag control information (PCP 3, DEI 1, VID 12); only when tagged.
    pub const TCI: Field = 14..16;
    /// Inner ethertype; only when tagged.
    pub const INNER_ETHERTYPE: Field = 16..18;
    /// Length of an untagged header.
    pub const HEADER_LEN: usize = 14;
    /// Length of a header with one 802.1Q tag.
    pub const VLAN_HEADER_LEN: usize = 18;
}

view!(
    /// A view of an Ethernet II header with an optional single 802.1Q tag. `LEN` is the untagged length;
    /// [`EthernetFrame::header_len`] gives the real one and [`EthernetFrame::l3_payload`] the bytes after it
    /// (`payload()` starts at byte 14 whether or not the frame is tagged).
    EthernetFrame,
    field::HEADER_LEN
);

impl<T: AsRef<[u8]>> EthernetFrame<T> {
    /// Like [`Self::check_len`], additionally requiring the tag bytes when the frame is tagged.
    #[inline]
    pub fn check_len_tagged(&self) -> Result<()> {
        if self.buffer.as_ref().len() < self.header_len() {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }

    /// Wraps a buffer after checking it holds the whole header, including a VLAN tag if present.
    #[inline]
    pub fn new_checked_tagged(buffer: T) -> Result<Self> {
        let f = Self::new_checked(buffer)?;
        f.check_len_tagged()?;
        Ok(f)
    }

    /// Destination MAC address.
    #[inline]
    pub fn dst_addr(&self) -> [u8; 6] {
        bytes::get(self.buffer.as_ref(), field::DST.start)
    }

    /// Source MAC address.
    #[inline]
    pub fn src_addr(&self) -> [u8; 6] {
        bytes::get(self.buffer.as_ref(), field::SRC.start)
    }

    /// The ethertype at offset 12 (0x8100 if tagged).
    #[inline]
    pub fn outer_ethertype(&self) -> u16 {
        bytes::u16_at(self.buffer.as_ref(), field::ETHERTYPE.start)
    }

    /// True if the frame carries an 802.1Q tag.
    #[inline]
    pub fn is_tagged(&self) -> bool {
        self.outer_ethertype() == EtherType::VLAN
    }

    /// The 802.1Q TCI, if tagged.
    #[inline]
    pub fn vlan_tci(&self) -> Option<u16> {
        if self.is_tagged() {
            Some(bytes::u16_at(self.buffer.as_ref(), field::TCI.start))
        } else {
            None
        }
    }

    /// The ethertype of the payload (after the tag, if any).
    #[inline]
    pub fn ethertype(&self) -> u16 {
        if self.is_tagged() {
            bytes::u16_at(self.buffer.as_ref(), field::INNER_ETHERTYPE.start)
        } else {
            self.outer_ethertype()
        }
    }

    /// Header length: 14, or 18 if tagged.
    #[inline]
    pub fn header_len(&self) -> usize {
        if self.is_tagged() {
            field::VLAN_HEADER_LEN
        } else {
            field::HEADER_LEN
        }
    }

    /// The bytes after the header (after the tag, if any).
    #[inline]
    pub fn l3_payload(&self) -> &[u8] {
        let d = self.buffer.as_ref();
        bytes::slice(d, self.header_len(), d.len())
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> EthernetFrame<T> {
    /// Sets the destination MAC address.
    #[inline]
    pub fn set_dst_addr(&mut self, v: [u8; 6]) {
        bytes::put(self.buffer.as_mut(), field::DST.start, v)
    }

    /// Sets the source MAC address.
    #[inline]
    pub fn set_src_addr(&mut self, v: [u8; 6]) {
        bytes::put(self.buffer.as_mut(), field::SRC.start, v)
    }

    /// Sets the ethertype at offset 12 (write 0x8100 to tag the frame).
    #[inline]
    pub fn set_outer_ethertype(&mut self, v: u16) {
        bytes::set_u16(self.buffer.as_mut(), field::ETHERTYPE.start, v)
    }

    /// Sets the TCI (only meaningful when tagged).
    #[inline]
    pub fn set_vlan_tci(&mut self, v: u16) {
        bytes::set_u16(self.buffer.as_mut(), field::TCI.start, v)
    }

    /// Sets the inner ethertype (only meaningful when tagged).
    #[inline]
    pub fn set_inner_ethertype(&mut self, v: u16) {
        bytes::set_u16(self.buffer.as_mut(), field::INNER_ETHERTYPE.start, v)
    }
}

/// High-level Ethernet header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct EthernetRepr {
    /// Source MAC.
    pub src: [u8; 6],
    /// Destination MAC.
    pub dst: [u8; 6],
    /// The 802.1Q TCI (PCP, DEI, VID) if the frame is tagged.
    pub vlan: Option<u16>,
    /// Ethertype of the payload.
    pub ethertype: u16,
}

impl EthernetRepr {
    /// Parses a header (checking the tag length too).
    pub fn parse<T: AsRef<[u8]> + ?Sized>(f: &EthernetFrame<&T>) -> Result<Self> {
        f.check_len_tagged()?;
        Ok(Self {
            src: f.src_addr(),
            dst: f.dst_addr(),
            vlan: f.vlan_tci(),
            ethertype: f.ethertype(),
        })
    }

    /// Header length: 14, or 18 with a tag.
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        if self.vlan.is_some() {
            field::VLAN_HEADER_LEN
        } else {
            field::HEADER_LEN
        }
    }

    /// Writes the header (all `buffer_len()` bytes).
    #[inline]
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]> + ?Sized>(&self, f: &mut EthernetFrame<&mut T>) {
        f.set_dst_addr(self.dst);
        f.set_src_addr(self.src);
        match self.vlan {
            Some(tci) => {
                f.set_outer_ethertype(EtherType::VLAN);
                f.set_vlan_tci(tci);
                f.set_inner_ethertype(self.ethertype);
            }
            None => f.set_outer_ethertype(self.ethertype),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tagged_needs_18_bytes() {
        let mut b = [0u8; 16];
        b[12] = 0x81;
        let f = EthernetFrame::new_checked(&b[..]).unwrap();
        assert_eq!(f.check_len_tagged(), Err(Error::Truncated));
        assert_eq!(EthernetRepr::parse(&f), Err(Error::Truncated));
    }

    #[test]
    fn roundtrip_vlan() {
        let r = EthernetRepr {
            src: [1; 6],
            dst: [2; 6],
            vlan: Some(0x2064),
            ethertype: EtherType::IPV6,
        };
        let mut b = [0u8; 18];
        r.emit(&mut EthernetFrame::new_unchecked(&mut b[..]));
        let f = EthernetFrame::new_checked(&b[..]).unwrap();
        assert_eq!(f.header_len(), 18);
        assert_eq!(EthernetRepr::parse(&f).unwrap(), r);
    }
}
