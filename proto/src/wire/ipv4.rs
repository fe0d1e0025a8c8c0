//! IPv4 header without options (MR-ENC-5..-10: IHL 5, DF set, protocol 17, valid header checksum).

use super::{bytes, view, Error, Result};

/// Byte offsets, masks and shifts of the IPv4 header.
pub mod field {
    use crate::wire::Field;
    /// Version (bits 7..4) and IHL (bits 3..0).
    pub const VER_IHL: usize = 0;
    /// Mask of the version in [`VER_IHL`].
    pub const VER_MASK: u8 = 0xF0;
    /// Shift of the version in [`VER_IHL`].
    pub const VER_SHIFT: u32 = 4;
    /// Mask of the IHL in [`VER_IHL`].
    pub const IHL_MASK: u8 = 0x0F;
    /// Shift of the IHL in [`VER_IHL`].
    pub const IHL_SHIFT: u32 = 0;
    /// DSCP (bits 7..2) and ECN (bits 1..0).
    pub const DSCP_ECN: usize = 1;
    /// Mask of the DSCP in [`DSCP_ECN`].
    pub const DSCP_MASK: u8 = 0xFC;
    /// Shift of the DSCP in [`DSCP_ECN`].
    pub const DSCP_SHIFT: u32 = 2;
    /// Mask of the ECN in [`DSCP_ECN`].
    pub const ECN_MASK: u8 = 0x03;
    /// Shift of the ECN in [`DSCP_ECN`].
    pub const ECN_SHIFT: u32 = 0;
    /// Total length (header + payload).
    pub const LENGTH: Field = 2..4;
    /// Identification.
    pub const IDENT: Field = 4..6;
    /// Flags (bits 15..13: reserved, DF, MF) and fragment offset (bits 12..0).
    pub const FLG_OFF: Field = 6..8;
    /// Mask of the reserved flag in [`FLG_OFF`] (as a big-endian u16).
    pub const FLAG_RESERVED_MASK: u16 = 0x8000;
    /// Mask of DF in [`FLG_OFF`].
    pub const FLAG_DF_MASK: u16 = 0x4000;
    /// Mask of MF in [`FLG_OFF`].
    pub const FLAG_MF_MASK: u16 = 0x2000;
    /// Mask of the fragment offset in [`FLG_OFF`].
    pub const FRAG_OFF_MASK: u16 = 0x1FFF;
    /// Time to live.
    pub const TTL: usize = 8;
    /// Protocol (17 = UDP).
    pub const PROTOCOL: usize = 9;
    /// Header checksum.
    pub const CHECKSUM: Field = 10..12;
    /// Source address.
    pub const SRC: Field = 12..16;
    /// Destination address.
    pub const DST: Field = 16..20;
    /// Header length (no options).
    pub const HEADER_LEN: usize = 20;
}

/// IP protocol number of UDP.
pub const PROTOCOL_UDP: u8 = 17;

view!(
    /// A view of an IPv4 header (20 bytes; options are not supported).
    Ipv4Packet,
    field::HEADER_LEN
);

/// The Internet checksum (RFC 1071) of `data`: the ones' complement of the ones' complement sum.
#[inline]
pub fn checksum(data: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        sum += u32::from(u16::from_be_bytes(bytes::get(c, 0)));
    }
    if let [b] = chunks.remainder() {
        sum += u32::from(*b) << 8;
    }
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    !(sum as u16)
}

impl<T: AsRef<[u8]>> Ipv4Packet<T> {
    /// IP version (4).
    #[inline]
    pub fn version(&self) -> u8 {
        (bytes::u8_at(self.buffer.as_ref(), field::VER_IHL) & field::VER_MASK) >> field::VER_SHIFT
    }
    /// Header length in 32-bit words.
    #[inline]
    pub fn ihl(&self) -> u8 {
        (bytes::u8_at(self.buffer.as_ref(), field::VER_IHL) & field::IHL_MASK) >> field::IHL_SHIFT
    }
    /// DSCP (6 bits).
    #[inline]
    pub fn dscp(&self) -> u8 {
        (bytes::u8_at(self.buffer.as_ref(), field::DSCP_ECN) & field::DSCP_MASK)
            >> field::DSCP_SHIFT
    }
    /// ECN (2 bits).
    #[inline]
    pub fn ecn(&self) -> u8 {
        (bytes::u8_at(self.buffer.as_ref(), field::DSCP_ECN) & field::ECN_MASK) >> field::ECN_SHIFT
    }
    /// Total length.
    #[inline]
    pub fn total_len(&self) -> u16 {
        bytes::u16_at(self.buffer.as_ref(), field::LENGTH.start)
    }
    /// Identification.
    #[inline]
    pub fn ident(&self) -> u16 {
        bytes::u16_at(self.buffer.as_ref(), field::IDENT.start)
    }
    /// Don't-fragment flag.
    #[inline]
    pub fn dont_frag(&self) -> bool {
        bytes::u16_at(self.buffer.as_ref(), field::FLG_OFF.start) & field::FLAG_DF_MASK != 0
    }
    /// More-fragments flag.
    #[inline]
    pub fn more_frags(&self) -> bool {
        bytes::u16_at(self.buffer.as_ref(), field::FLG_OFF.start) & field::FLAG_MF_MASK != 0
    }
    /// Fragment offset in 8-byte units.
    #[inline]
    pub fn frag_offset(&self) -> u16 {
        bytes::u16_at(self.buffer.as_ref(), field::FLG_OFF.start) & field::FRAG_OFF_MASK
    }
    /// Time to live.
    #[inline]
    pub fn ttl(&self) -> u8 {
        bytes::u8_at(self.buffer.as_ref(), field::TTL)
    }
    /// Protocol.
    #[inline]
    pub fn protocol(&self) -> u8 {
        bytes::u8_at(self.buffer.as_ref(), field::PROTOCOL)
    }
    /// Header checksum as stored.
    #[inline]
    pub fn checksum(&self) -> u16 {
        bytes::u16_at(self.buffer.as_ref(), field::CHECKSUM.start)
    }
    /// Source address.
    #[inline]
    pub fn src_addr(&self) -> [u8; 4] {
        bytes::get(self.buffer.as_ref(), field::SRC.start)
    }
    /// Destination address.
    #[inline]
    pub fn dst_addr(&self) -> [u8; 4] {
        bytes::get(self.buffer.as_ref(), field::DST.start)
    }
    /// True if the header checksum (over the 20-byte header) is valid.
    #[inline]
    pub fn verify_checksum(&self) -> bool {
        let h: [u8; 20] = bytes::get(self.buffer.as_ref(), 0);
        checksum20(&h) == 0
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv4Packet<T> {
    /// Sets version and IHL together (`0x45` for MetaRoCE).
    #[inline]
    pub fn set_version_ihl(&mut self, version: u8, ihl: u8) {
        let d = self.buffer.as_mut();
        bytes::set_bits(
            d,
            field::VER_IHL,
            field::VER_MASK,
            field::VER_SHIFT,
            version,
        );
        bytes::set_bits(d, field::VER_IHL, field::IHL_MASK, field::IHL_SHIFT, ihl);
    }
    /// Sets the DSCP.
    #[inline]
    pub fn set_dscp(&mut self, v: u8) {
        bytes::set_bits(
            self.buffer.as_mut(),
            field::DSCP_ECN,
            field::DSCP_MASK,
            field::DSCP_SHIFT,
            v,
        )
    }
    /// Sets the ECN codepoint.
    #[inline]
    pub fn set_ecn(&mut self, v: u8) {
        bytes::set_bits(
            self.buffer.as_mut(),
            field::DSCP_ECN,
            field::ECN_MASK,
            field::ECN_SHIFT,
            v,
        )
    }
    /// Sets the total length.
    #[inline]
    pub fn set_total_len(&mut self, v: u16) {
        bytes::set_u16(self.buffer.as_mut(), field::LENGTH.start, v)
    }
    /// Sets the identification.
    #[inline]
    pub fn set_ident(&mut self, v: u16) {
        bytes::set_u16(self.buffer.as_mut(), field::IDENT.start, v)
    }
    /// Sets the flags and fragment offset: DF as given, MF clear, offset 0.
    #[inline]
    pub fn set_flags_no_frag(&mut self, dont_frag: bool) {
        let v = if dont_frag { field::FLAG_DF_MASK } else { 0 };
        bytes::set_u16(self.buffer.as_mut(), field::FLG_OFF.start, v)
    }
    /// Sets the raw flags + fragment offset field.
    #[inline]
    pub fn set_flags_frag_raw(&mut self, v: u16) {
        bytes::set_u16(self.buffer.as_mut(), field::FLG_OFF.start, v)
    }
    /// Sets the TTL.
    #[inline]
    pub fn set_ttl(&mut self, v: u8) {
        bytes::set_u8(self.buffer.as_mut(), field::TTL, v)
    }
    /// Sets the protocol.
    #[inline]
    pub fn set_protocol(&mut self, v: u8) {
        bytes::set_u8(self.buffer.as_mut(), field::PROTOCOL, v)
    }
    /// Sets the stored checksum.
    #[inline]
    pub fn set_checksum(&mut self, v: u16) {
        bytes::set_u16(self.buffer.as_mut(), field::CHECKSUM.start, v)
    }
    /// Sets the source address.
    #[inline]
    pub fn set_src_addr(&mut self, v: [u8; 4]) {
        bytes::put(self.buffer.as_mut(), field::SRC.start, v)
    }
    /// Sets the destination address.
    #[inline]
    pub fn set_dst_addr(&mut self, v: [u8; 4]) {
        bytes::put(self.buffer.as_mut(), field::DST.start, v)
    }
    /// Computes and stores the header checksum.
    #[inline]
    pub fn fill_checksum(&mut self) {
        self.set_checksum(0);
        let h: [u8; 20] = bytes::get(self.buffer.as_ref(), 0);
        self.set_checksum(checksum20(&h));
    }
}

/// High-level IPv4 header (no options, never fragmented).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ipv4Repr {
    /// Source address.
    pub src: [u8; 4],
    /// Destination address.
    pub dst: [u8; 4],
    /// DSCP (6 bits).
    pub dscp: u8,
    /// ECN (2 bits).
    pub ecn: u8,
    /// TTL.
    pub ttl: u8,
    /// Identification (MetaRoCE sends 0: DF is set).
    pub ident: u16,
    /// Don't-fragment flag (MetaRoCE sets it).
    pub dont_frag: bool,
    /// Protocol (17).
    pub protocol: u8,
    /// Payload length (total length - 20).
    pub payload_len: usize,
}

impl Ipv4Repr {
    /// Parses and validates a header: version 4 (`BadVersion`), IHL 5 (`Unsupported`), no fragments
    /// (`Unsupported`), valid checksum (`BadChecksum`), total length within the buffer (`BadLength` /
    /// `Truncated`).
    #[inline]
    pub fn parse<T: AsRef<[u8]> + ?Sized>(p: &Ipv4Packet<&T>) -> Result<Self> {
        p.check_len()?;
        if p.version() != 4 {
            return Err(Error::BadVersion);
        }
        if p.ihl() != 5 {
            return Err(Error::Unsupported);
        }
        if !p.verify_checksum() {
            return Err(Error::BadChecksum);
        }
        if p.more_frags() || p.frag_offset() != 0 {
            return Err(Error::Unsupported);
        }
        let total = p.total_len() as usize;
        if total < field::HEADER_LEN {
            return Err(Error::BadLength);
        }
        if total > p.buffer.as_ref().len() {
            return Err(Error::Truncated);
        }
        Ok(Self {
            src: p.src_addr(),
            dst: p.dst_addr(),
            dscp: p.dscp(),
            ecn: p.ecn(),
            ttl: p.ttl(),
            ident: p.ident(),
            dont_frag: p.dont_frag(),
            protocol: p.protocol(),
            payload_len: total - field::HEADER_LEN,
        })
    }

    /// Header length (20).
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        field::HEADER_LEN
    }

    /// Writes the 20-byte header including the checksum. A `payload_len` above 65515 is written modulo 2^16;
    /// the packet layer checks lengths before emitting.
    ///
    /// The header is assembled in registers and stored at once, and the checksum is computed from the field
    /// values, not read back from the buffer (fast path of the transmit side).
    #[inline]
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]> + ?Sized>(&self, p: &mut Ipv4Packet<&mut T>) {
        let tos = ((self.dscp << field::DSCP_SHIFT) & field::DSCP_MASK)
            | ((self.ecn << field::ECN_SHIFT) & field::ECN_MASK);
        let total = self.payload_len.wrapping_add(field::HEADER_LEN) as u16;
        let flags = if self.dont_frag {
            field::FLAG_DF_MASK
        } else {
            0
        };
        let [s0, s1, s2, s3] = self.src;
        let [d0, d1, d2, d3] = self.dst;
        let words = [
            u32::from_be_bytes([0x45, tos, 0, 0]) | u32::from(total),
            (u32::from(self.ident) << 16) | u32::from(flags),
            (u32::from(self.ttl) << 24) | (u32::from(self.protocol) << 16),
            u32::from_be_bytes(self.src),
            u32::from_be_bytes(self.dst),
        ];
        let csum = fold_checksum(words.iter().map(|&w| u64::from(w)).sum());
        let [t0, t1] = total.to_be_bytes();
        let [i0, i1] = self.ident.to_be_bytes();
        let [f0, f1] = flags.to_be_bytes();
        let [c0, c1] = csum.to_be_bytes();
        let h = [
            0x45,
            tos,
            t0,
            t1,
            i0,
            i1,
            f0,
            f1,
            self.ttl,
            self.protocol,
            c0,
            c1,
            s0,
            s1,
            s2,
            s3,
            d0,
            d1,
            d2,
            d3,
        ];
        bytes::put(p.buffer.as_mut(), 0, h);
    }
}

/// Folds a sum of big-endian 32-bit words into the 16-bit ones' complement checksum.
#[inline(always)]
fn fold_checksum(mut sum: u64) -> u16 {
    sum = (sum & 0xFFFF_FFFF) + (sum >> 32);
    sum = (sum & 0xFFFF) + (sum >> 16);
    sum = (sum & 0xFFFF) + (sum >> 16);
    sum = (sum & 0xFFFF) + (sum >> 16);
    !(sum as u16)
}

/// The header checksum of a 20-byte header (0 if the stored checksum is valid), summing 32-bit words.
#[inline(always)]
pub fn checksum20(h: &[u8; 20]) -> u16 {
    let mut sum = 0u64;
    for c in h.chunks_exact(4) {
        sum += u64::from(u32::from_be_bytes(bytes::get(c, 0)));
    }
    fold_checksum(sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_rfc1071_example() {
        // RFC 1071 section 3 example: sum of 0001 f203 f4f5 f6f7 = ddf2, complement 220d.
        assert_eq!(
            checksum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]),
            0x220d
        );
        assert_eq!(checksum(&[0xff]), 0x00ff);
    }

    #[test]
    fn checksum20_matches_rfc1071() {
        let mut h = [0u8; 20];
        for seed in 0u32..200 {
            for (i, b) in h.iter_mut().enumerate() {
                *b = (seed.wrapping_mul(2654435761).rotate_left(i as u32) >> 7) as u8;
            }
            assert_eq!(checksum20(&h), checksum(&h), "seed {seed}");
        }
        assert_eq!(checksum20(&[0xFF; 20]), checksum(&[0xFF; 20]));
    }

    #[test]
    fn emit_matches_setters() {
        let r = Ipv4Repr {
            src: [192, 168, 255, 1],
            dst: [10, 255, 0, 2],
            dscp: 63,
            ecn: 3,
            ttl: 255,
            ident: 0xFFFF,
            dont_frag: false,
            protocol: 6,
            payload_len: 65515,
        };
        let mut a = [0xA5u8; 20];
        r.emit(&mut Ipv4Packet::new_unchecked(&mut a[..]));
        let mut p = Ipv4Packet::new_unchecked([0u8; 20]);
        p.set_version_ihl(4, 5);
        p.set_dscp(63);
        p.set_ecn(3);
        p.set_total_len(65535);
        p.set_ident(0xFFFF);
        p.set_flags_no_frag(false);
        p.set_ttl(255);
        p.set_protocol(6);
        p.set_src_addr(r.src);
        p.set_dst_addr(r.dst);
        p.fill_checksum();
        assert_eq!(&a, p.as_ref());
        assert!(Ipv4Packet::new_unchecked(&a[..]).verify_checksum());
    }

    #[test]
    fn parse_rejects() {
        let r = Ipv4Repr {
            src: [10, 0, 0, 1],
            dst: [10, 0, 0, 2],
            dscp: 26,
            ecn: 2,
            ttl: 64,
            ident: 0,
            dont_frag: true,
            protocol: 17,
            payload_len: 0,
        };
        let mut b = [0u8; 20];
        r.emit(&mut Ipv4Packet::new_unchecked(&mut b[..]));
        assert_eq!(Ipv4Repr::parse(&Ipv4Packet::new_unchecked(&b[..])), Ok(r));
        let mut bad = b;
        bad[15] ^= 1;
        assert_eq!(
            Ipv4Repr::parse(&Ipv4Packet::new_unchecked(&bad[..])),
            Err(Error::BadChecksum)
        );
        let mut opt = b;
        opt[0] = 0x46;
        assert_eq!(
            Ipv4Repr::parse(&Ipv4Packet::new_unchecked(&opt[..])),
            Err(Error::Unsupported)
        );
        let mut v = b;
        v[0] = 0x65;
        assert_eq!(
            Ipv4Repr::parse(&Ipv4Packet::new_unchecked(&v[..])),
            Err(Error::BadVersion)
        );
        let mut frag = Ipv4Packet::new_unchecked(b);
        frag.set_flags_frag_raw(0x2000);
        frag.fill_checksum();
        assert_eq!(
            Ipv4Repr::parse(&Ipv4Packet::new_unchecked(&frag.into_inner()[..])),
            Err(Error::Unsupported)
        );
        let mut long = Ipv4Packet::new_unchecked(b);
        long.set_total_len(21);
        long.fill_checksum();
        assert_eq!(
            Ipv4Repr::parse(&Ipv4Packet::new_unchecked(&long.into_inner()[..])),
            Err(Error::Truncated)
        );
    }
}
