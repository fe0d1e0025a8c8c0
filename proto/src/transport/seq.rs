//! Serial-number arithmetic for 32-bit MetaRoCE PSNs and 24-bit RoCEv2 PSNs (MR-REL-1).
//!
//! `a < b` iff `(b - a) as i32 > 0`: comparisons stay correct across wrap-around as long as the two numbers are
//! less than half the number space apart, which the window (at most 2^16 packets) guarantees.

/// `b - a` as a signed distance in 32-bit serial arithmetic.
#[inline]
pub fn diff32(b: u32, a: u32) -> i32 {
    b.wrapping_sub(a) as i32
}

/// `a < b` in 32-bit serial arithmetic.
#[inline]
pub fn lt32(a: u32, b: u32) -> bool {
    diff32(b, a) > 0
}

/// `a <= b` in 32-bit serial arithmetic.
#[inline]
pub fn le32(a: u32, b: u32) -> bool {
    diff32(b, a) >= 0
}

/// The later of `a` and `b` in 32-bit serial arithmetic.
#[inline]
pub fn max32(a: u32, b: u32) -> u32 {
    if lt32(a, b) {
        b
    } else {
        a
    }
}

/// Mask of a 24-bit RoCEv2 PSN.
pub const PSN24_MASK: u32 = 0x00FF_FFFF;

/// `a + n` modulo 2^24.
#[inline]
pub fn add24(a: u32, n: u32) -> u32 {
    a.wrapping_add(n) & PSN24_MASK
}

/// `b - a` as a signed distance in 24-bit serial arithmetic (range -2^23..2^23).
#[inline]
pub fn diff24(b: u32, a: u32) -> i32 {
    ((b.wrapping_sub(a) << 8) as i32) >> 8
}

/// `a < b` in 24-bit serial arithmetic.
#[inline]
pub fn lt24(a: u32, b: u32) -> bool {
    diff24(b, a) > 0
}

/// `a <= b` in 24-bit serial arithmetic.
#[inline]
pub fn le24(a: u32, b: u32) -> bool {
    diff24(b, a) >= 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mr_rel_1_serial32_wraps() {
        assert!(lt32(0xFFFF_FFF0, 0x10));
        assert!(!lt32(0x10, 0xFFFF_FFF0));
        assert_eq!(diff32(0x10, 0xFFFF_FFF0), 0x20);
        assert_eq!(diff32(0xFFFF_FFF0, 0x10), -0x20);
        assert!(le32(5, 5));
        assert!(!lt32(5, 5));
        assert_eq!(max32(0xFFFF_FFFF, 0), 0);
        assert_eq!(max32(7, 3), 7);
    }

    #[test]
    fn serial24_wraps() {
        assert_eq!(add24(0xFF_FFFE, 3), 1);
        assert!(lt24(0xFF_FFF0, 0x10));
        assert!(!lt24(0x10, 0xFF_FFF0));
        assert_eq!(diff24(0x10, 0xFF_FFF0), 0x20);
        assert_eq!(diff24(0xFF_FFF0, 0x10), -0x20);
        assert!(le24(0x7, 0x7));
        // Upper byte garbage is ignored.
        assert_eq!(diff24(0xAB00_0005, 0x0000_0003), 2);
    }
}
