//! ACK header (AH), 48 bytes, with a 256-bit selective-ack bitmap (spec 3.8). MBH.PSN carries the cumulative
//! ack (CACK): every PSN before it was received.

use super::{bytes, flags_u8, view, Result};

/// Byte offsets of the ACK header.
pub mod field {
    use crate::wire::Field;
    /// The acker's connection id, 24 bits.
    pub const SCID: Field = 0..3;
    /// ACK flags: ECE 0x80, DUP 0x40; others 0.
    pub const AFLAGS: usize = 3;
    /// MBH.TS of the triggering DATA packet.
    pub const ECHO_TS: Field = 4..8;
    /// PSN of bitmap bit 0.
    pub const SACK_BASE: Field = 8..12;
    /// UDP source port of the triggering packet.
    pub const ECHO_EV: Field = 12..14;
    /// CE-marked data packets since the previous ACK (saturating).
    pub const CE_COUNT: Field = 14..16;
    /// 256-bit bitmap: bit i is byte 16 + i/8, mask 1 << (i % 8).
    pub const SACK: Field = 16..48;
    /// Length.
    pub const HEADER_LEN: usize = 48;
}

/// Number of PSNs the SACK bitmap covers.
pub const SACK_BITS: u32 = 256;

flags_u8!(
    /// ACK header flags (spec 3.8, MR-WIRE-35).
    AckFlags {
        /// The triggering packet was CE-marked.
        ECE = 0x80,
        /// The triggering packet was a duplicate.
        DUP = 0x40,
    }
);

/// The 256-bit SACK bitmap: bit `i` means PSN `sack_base + i` was received. Bit `i` lives in byte `i / 8` under
/// mask `1 << (i % 8)` (spec 3.8, MR-WIRE-34).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SackBitmap(pub [u8; 32]);

impl SackBitmap {
    /// All bits clear.
    pub const EMPTY: Self = Self([0; 32]);

    /// Bit `i`; false for `i >= 256`.
    #[inline]
    pub fn get(&self, i: u32) -> bool {
        match self.0.get((i / 8) as usize) {
            Some(b) => b & (1 << (i % 8)) != 0,
            None => false,
        }
    }

    /// Sets bit `i` to `on`; ignored for `i >= 256`.
    #[inline]
    pub fn set(&mut self, i: u32, on: bool) {
        if let Some(b) = self.0.get_mut((i / 8) as usize) {
            let m = 1u8 << (i % 8);
            if on {
                *b |= m
            } else {
                *b &= !m
            }
        }
    }

    /// True if PSN `psn` is marked, given the bitmap's `sack_base` (serial arithmetic).
    #[inline]
    pub fn contains_psn(&self, sack_base: u32, psn: u32) -> bool {
        let d = psn.wrapping_sub(sack_base);
        d < SACK_BITS && self.get(d)
    }

    /// Marks PSN `psn` (if it is within 256 of `sack_base`); returns whether it was in range.
    #[inline]
    pub fn insert_psn(&mut self, sack_base: u32, psn: u32) -> bool {
        let d = psn.wrapping_sub(sack_base);
        if d < SACK_BITS {
            self.set(d, true);
            true
        } else {
            false
        }
    }

    /// Number of bits set.
    #[inline]
    pub fn count(&self) -> u32 {
        self.0.iter().map(|b| b.count_ones()).sum()
    }

    /// True if no bit is set.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&b| b == 0)
    }

    /// Indices of the set bits, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..SACK_BITS).filter(move |&i| self.get(i))
    }
}

/// The SACK base rule (MR-WIRE-33). With cumulative ack `cack`, the triggering DATA packet's PSN `psn` and the
/// acker's receive window `window` (packets), let `d = psn - cack` (mod 2^32): the bitmap starts at `cack` if
/// `d < 256` or `d >= window` (duplicates, whose `d` wraps to at least 2^31, included), else at
/// `cack + 32 * (d / 32) - 224`, which puts `psn` in the bitmap's last 32-bit word (bits 224..255). For an ACK
/// triggered by anything but a DATA packet the base is `cack`.
#[inline]
pub const fn sack_base(cack: u32, psn: u32, window: u32) -> u32 {
    let d = psn.wrapping_sub(cack);
    if d < SACK_BITS || d >= window {
        cack
    } else {
        cack.wrapping_add(32 * (d / 32)).wrapping_sub(224)
    }
}

view!(
    /// A view of the ACK header.
    AckHeader,
    field::HEADER_LEN
);

impl<T: AsRef<[u8]>> AckHeader<T> {
    /// Acker's connection id.
    #[inline]
    pub fn scid(&self) -> u32 {
        bytes::u24_at(self.buffer.as_ref(), field::SCID.start)
    }
    /// Raw flags byte.
    #[inline]
    pub fn aflags(&self) -> AckFlags {
        AckFlags(bytes::u8_at(self.buffer.as_ref(), field::AFLAGS))
    }
    /// Echoed timestamp.
    #[inline]
    pub fn echo_ts(&self) -> u32 {
        bytes::u32_at(self.buffer.as_ref(), field::ECHO_TS.start)
    }
    /// PSN of bitmap bit 0.
    #[inline]
    pub fn sack_base(&self) -> u32 {
        bytes::u32_at(self.buffer.as_ref(), field::SACK_BASE.start)
    }
    /// Echoed entropy value (UDP source port).
    #[inline]
    pub fn echo_ev(&self) -> u16 {
        bytes::u16_at(self.buffer.as_ref(), field::ECHO_EV.start)
    }
    /// CE count.
    #[inline]
    pub fn ce_count(&self) -> u16 {
        bytes::u16_at(self.buffer.as_ref(), field::CE_COUNT.start)
    }
    /// The SACK bitmap.
    #[inline]
    pub fn sack(&self) -> SackBitmap {
        SackBitmap(bytes::get(self.buffer.as_ref(), field::SACK.start))
    }
    /// Bitmap bit `i` (false for `i >= 256`).
    #[inline]
    pub fn sack_bit(&self, i: u32) -> bool {
        if i >= SACK_BITS {
            return false;
        }
        let b = bytes::u8_at(self.buffer.as_ref(), field::SACK.start + (i / 8) as usize);
        b & (1 << (i % 8)) != 0
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> AckHeader<T> {
    /// Sets the acker's connection id (low 24 bits).
    #[inline]
    pub fn set_scid(&mut self, v: u32) {
        bytes::set_u24(self.buffer.as_mut(), field::SCID.start, v)
    }
    /// Sets the flags byte.
    #[inline]
    pub fn set_aflags(&mut self, v: AckFlags) {
        bytes::set_u8(self.buffer.as_mut(), field::AFLAGS, v.0)
    }
    /// Sets the echoed timestamp.
    #[inline]
    pub fn set_echo_ts(&mut self, v: u32) {
        bytes::set_u32(self.buffer.as_mut(), field::ECHO_TS.start, v)
    }
    /// Sets the SACK base.
    #[inline]
    pub fn set_sack_base(&mut self, v: u32) {
        bytes::set_u32(self.buffer.as_mut(), field::SACK_BASE.start, v)
    }
    /// Sets the echoed entropy value.
    #[inline]
    pub fn set_echo_ev(&mut self, v: u16) {
        bytes::set_u16(self.buffer.as_mut(), field::ECHO_EV.start, v)
    }
    /// Sets the CE count.
    #[inline]
    pub fn set_ce_count(&mut self, v: u16) {
        bytes::set_u16(self.buffer.as_mut(), field::CE_COUNT.start, v)
    }
    /// Sets the whole bitmap.
    #[inline]
    pub fn set_sack(&mut self, v: &SackBitmap) {
        bytes::put(self.buffer.as_mut(), field::SACK.start, v.0)
    }
    /// Sets bitmap bit `i` (ignored for `i >= 256`).
    #[inline]
    pub fn set_sack_bit(&mut self, i: u32, on: bool) {
        if i >= SACK_BITS {
            return;
        }
        let off = field::SACK.start + (i / 8) as usize;
        let m = 1u8 << (i % 8);
        let d = self.buffer.as_mut();
        let b = bytes::u8_at(d, off);
        bytes::set_u8(d, off, if on { b | m } else { b & !m });
    }
}

/// High-level ACK header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AckRepr {
    /// Acker's connection id (24 bits).
    pub scid: u32,
    /// Flags (reserved bits cleared).
    pub flags: AckFlags,
    /// Echoed timestamp.
    pub echo_ts: u32,
    /// PSN of bitmap bit 0.
    pub sack_base: u32,
    /// Echoed entropy value.
    pub echo_ev: u16,
    /// CE count.
    pub ce_count: u16,
    /// The bitmap.
    pub sack: SackBitmap,
}

impl AckRepr {
    /// Parses an ACK header (reserved flag bits ignored).
    #[inline(always)]
    pub fn parse<T: AsRef<[u8]> + ?Sized>(h: &AckHeader<&T>) -> Result<Self> {
        h.check_len()?;
        Ok(Self {
            scid: h.scid(),
            flags: h.aflags().defined(),
            echo_ts: h.echo_ts(),
            sack_base: h.sack_base(),
            echo_ev: h.echo_ev(),
            ce_count: h.ce_count(),
            sack: h.sack(),
        })
    }

    /// Length (48).
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        field::HEADER_LEN
    }

    /// Writes all 48 bytes.
    #[inline]
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]> + ?Sized>(&self, h: &mut AckHeader<&mut T>) {
        h.set_scid(self.scid);
        h.set_aflags(self.flags.defined());
        h.set_echo_ts(self.echo_ts);
        h.set_sack_base(self.sack_base);
        h.set_echo_ev(self.echo_ev);
        h.set_ce_count(self.ce_count);
        h.set_sack(&self.sack);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mr_wire_33_sack_base_rule() {
        const W: u32 = 4096;
        assert_eq!(sack_base(100, 100, W), 100);
        assert_eq!(sack_base(100, 355, W), 100);
        // d = 256 -> 100 + 256 - 224 = 132; psn sits at bit 224 (start of the last word).
        assert_eq!(sack_base(100, 356, W), 132);
        assert_eq!(sack_base(100, 387, W), 132);
        assert_eq!(sack_base(100, 388, W), 164);
        // Duplicates (before cack) and triggers at or beyond the window: cack.
        assert_eq!(sack_base(100, 50, W), 100);
        assert_eq!(sack_base(100, 100 + W, W), 100);
        // d = 4095: 100 + 32 * 127 - 224.
        assert_eq!(sack_base(100, 100 + W - 1, W), 3940);
        // A window of 256 never moves the base.
        assert_eq!(sack_base(7, 7 + 300, 256), 7);
        // Wrap-around of the PSN space.
        let cack = u32::MAX - 9;
        assert_eq!(
            sack_base(cack, 300, W),
            cack.wrapping_add(288).wrapping_sub(224)
        );
        // psn always lands in the last 32-bit word when the rule moves the base.
        for d in 256u32..W {
            let cack = 0xFFFF_FF00u32;
            let psn = cack.wrapping_add(d);
            let i = psn.wrapping_sub(sack_base(cack, psn, W));
            assert!((224..256).contains(&i), "d {d} i {i}");
            assert_eq!(i % 32, d % 32);
        }
    }

    #[test]
    fn mr_wire_ack_bitmap_bit_layout() {
        let mut h = AckHeader::new_unchecked([0u8; 48]);
        h.set_sack_bit(0, true);
        h.set_sack_bit(9, true);
        h.set_sack_bit(255, true);
        h.set_sack_bit(256, true);
        let d = h.as_ref();
        assert_eq!((d[16], d[17], d[47]), (0x01, 0x02, 0x80));
        let s = h.sack();
        assert!(s.get(0) && s.get(9) && s.get(255) && !s.get(256) && !s.get(1));
        assert_eq!(s.count(), 3);
        assert_eq!(s.iter().collect::<alloc::vec::Vec<_>>(), [0, 9, 255]);
        let mut s2 = SackBitmap::EMPTY;
        assert!(s2.insert_psn(u32::MAX, 8));
        assert!(!s2.insert_psn(u32::MAX, 300));
        assert!(s2.get(9) && s2.contains_psn(u32::MAX, 8) && !s2.contains_psn(u32::MAX, 7));
        h.set_sack_bit(9, false);
        assert!(!h.sack_bit(9) && h.sack_bit(0));
    }
}
