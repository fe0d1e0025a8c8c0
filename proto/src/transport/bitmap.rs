//! Window bitmaps (MR-REL-9, MR-REL-10, MR-WIRE-33, MR-WIRE-34).
//!
//! * [`RecvWindow`]: the receiver's ring of W bits; bit `psn mod W` says whether `psn` in
//!   `[expected, expected + W)` has arrived. Sliding clears the bits it passes so they are clean for `psn + W`.
//! * [`sack_base`]: the specification's rule for the base of the 256-bit SACK block.
//! * [`AckedBits`]: the sender's ring of W bits marking PSNs acknowledged (cumulatively or selectively).

use super::seq::diff32;
use alloc::vec;
use alloc::vec::Vec;

/// Outcome of offering a PSN to the receive window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accept {
    /// First arrival of `psn == expected` (in order).
    InOrder,
    /// First arrival of a PSN beyond `expected` inside the window.
    OutOfOrder,
    /// Already received (below `expected` or bit already set).
    Duplicate,
    /// At or beyond `expected + W`.
    OutOfWindow,
}

/// Receive-window bitmap of `W = 2^log2` bits.
#[derive(Debug, Clone)]
pub struct RecvWindow {
    words: Vec<u64>,
    mask: u32,
    expected: u32,
    /// Set bits beyond `expected` (PSNs received out of order), so `in_order` is O(1).
    ooo: u32,
}

impl RecvWindow {
    /// A window of `2^log2` PSNs (log2 clamped to 8..=16) starting at `isn`.
    pub fn new(log2: u8, isn: u32) -> Self {
        let log2 = log2.clamp(8, 16);
        let w = 1u32 << log2;
        RecvWindow {
            words: vec![0; (w / 64) as usize],
            mask: w - 1,
            expected: isn,
            ooo: 0,
        }
    }

    /// Restarts at `isn` with every bit clear (reuses the allocation).
    pub fn reset(&mut self, isn: u32) {
        self.words.fill(0);
        self.expected = isn;
        self.ooo = 0;
    }

    /// Window size in PSNs.
    #[inline]
    pub fn size(&self) -> u32 {
        self.mask + 1
    }

    /// Next expected PSN (the cumulative ack).
    #[inline]
    pub fn expected(&self) -> u32 {
        self.expected
    }

    /// Classifies `psn` without changing anything.
    #[inline]
    pub fn classify(&self, psn: u32) -> Accept {
        let d = diff32(psn, self.expected);
        if d < 0 {
            Accept::Duplicate
        } else if d as u32 > self.mask {
            Accept::OutOfWindow
        } else if self.bit(psn) {
            Accept::Duplicate
        } else if d == 0 {
            Accept::InOrder
        } else {
            Accept::OutOfOrder
        }
    }

    #[inline]
    fn bit(&self, psn: u32) -> bool {
        let p = psn & self.mask;
        self.words[(p >> 6) as usize] >> (p & 63) & 1 == 1
    }

    /// Marks `psn` received if it is new and in the window, then slides `expected` past every received PSN.
    #[inline]
    pub fn accept(&mut self, psn: u32) -> Accept {
        let a = self.classify(psn);
        if matches!(a, Accept::InOrder | Accept::OutOfOrder) {
            let p = psn & self.mask;
            self.words[(p >> 6) as usize] |= 1 << (p & 63);
            if a == Accept::InOrder {
                let cleared = self.slide();
                self.ooo = self.ooo.saturating_sub(cleared.saturating_sub(1));
            } else {
                self.ooo += 1;
            }
        }
        a
    }

    /// Advances `expected` over the run of set bits starting at it, clearing them (word at a time); returns
    /// how many it cleared.
    #[inline]
    fn slide(&mut self) -> u32 {
        let start = self.expected;
        loop {
            let p = self.expected & self.mask;
            let wi = (p >> 6) as usize;
            let sh = p & 63;
            let run = (self.words[wi] >> sh).trailing_ones().min(64 - sh);
            if run == 0 {
                return self.expected.wrapping_sub(start);
            }
            let clear = if run == 64 {
                u64::MAX
            } else {
                ((1u64 << run) - 1) << sh
            };
            self.words[wi] &= !clear;
            self.expected = self.expected.wrapping_add(run);
            if sh + run < 64 {
                return self.expected.wrapping_sub(start);
            }
        }
    }

    /// 64 bits for PSNs `start..start+64` (bit i = `start + i` received); PSNs outside
    /// `[expected, expected + W)` read as received below and not received above the window.
    fn bits64(&self, start: u32) -> u64 {
        let mut out = 0u64;
        let d = diff32(start, self.expected);
        let w = self.mask as i64 + 1;
        for chunk in 0..2u32 {
            // Two 32-bit halves keep the masking simple at the edges.
            let s = start.wrapping_add(chunk * 32);
            let ds = d as i64 + (chunk * 32) as i64;
            let mut v: u64 = 0;
            for i in 0..32i64 {
                let di = ds + i;
                let bit = if di < 0 {
                    true
                } else if di >= w {
                    false
                } else {
                    self.bit(s.wrapping_add(i as u32))
                };
                v |= (bit as u64) << i;
            }
            out |= v << (chunk * 32);
        }
        out
    }

    /// Fast path of [`bits64`](Self::bits64) when `start..start+64` lies inside the window.
    #[inline]
    fn bits64_fast(&self, start: u32) -> u64 {
        let p = start & self.mask;
        let wi = (p >> 6) as usize;
        let sh = p & 63;
        let lo = self.words[wi] >> sh;
        if sh == 0 {
            lo
        } else {
            let next = self.words[(wi + 1) % self.words.len()];
            lo | next << (64 - sh)
        }
    }

    /// Writes the 256-bit SACK block starting at `base` into `out` (bit i = byte 16+i/8 of the ACK header, i.e.
    /// byte i/8 of `out`, mask `1 << (i % 8)`; MR-WIRE-34).
    #[inline]
    pub fn sack_block(&self, base: u32, out: &mut [u8; 32]) {
        let d = diff32(base, self.expected);
        if self.ooo == 0 && d >= 0 {
            // Nothing received beyond `expected`: the block is empty (the common in-order case).
            *out = [0; 32];
            return;
        }
        for k in 0..4u32 {
            let s = base.wrapping_add(k * 64);
            let ds = d as i64 + (k * 64) as i64;
            let v = if ds >= 0 && ds + 64 <= self.mask as i64 + 1 {
                self.bits64_fast(s)
            } else {
                self.bits64(s)
            };
            out[(k * 8) as usize..(k * 8 + 8) as usize].copy_from_slice(&v.to_le_bytes());
        }
    }

    /// True if no PSN beyond `expected` has been received (nothing out of order pending).
    #[inline]
    pub fn in_order(&self) -> bool {
        self.ooo == 0
    }
}

/// The specification's SACK base rule (MR-WIRE-33): `cack` if `psn - cack < 256`, else
/// `cack + 32*((psn - cack)/32) - 224`.
#[inline]
pub fn sack_base(cack: u32, psn: u32) -> u32 {
    let d = psn.wrapping_sub(cack);
    if (d as i32) < 256 {
        cack
    } else {
        cack.wrapping_add(32 * (d / 32)).wrapping_sub(224)
    }
}

/// Sender-side ring of W bits: bit `psn mod W` set = `psn` acknowledged (selectively); valid for
/// `[una, una + W)`. Bits are cleared as `una` advances.
#[derive(Debug, Clone)]
pub struct AckedBits {
    words: Vec<u64>,
    mask: u32,
}

impl AckedBits {
    /// A ring of `2^log2` bits (clamped to 8..=16).
    pub fn new(log2: u8) -> Self {
        let w = 1u32 << log2.clamp(8, 16);
        AckedBits {
            words: vec![0; (w / 64) as usize],
            mask: w - 1,
        }
    }

    /// Clears every bit.
    pub fn clear_all(&mut self) {
        self.words.fill(0);
    }

    /// Tests the bit of `psn`.
    #[inline]
    pub fn get(&self, psn: u32) -> bool {
        let p = psn & self.mask;
        self.words[(p >> 6) as usize] >> (p & 63) & 1 == 1
    }

    /// Sets the bit of `psn`; returns whether it was clear.
    #[inline]
    pub fn set(&mut self, psn: u32) -> bool {
        let p = psn & self.mask;
        let w = &mut self.words[(p >> 6) as usize];
        let was = *w >> (p & 63) & 1 == 1;
        *w |= 1 << (p & 63);
        !was
    }

    /// Clears the bit of `psn`.
    #[inline]
    pub fn clear(&mut self, psn: u32) {
        let p = psn & self.mask;
        self.words[(p >> 6) as usize] &= !(1 << (p & 63));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mr_rel_9_window_accept_slide_wrap() {
        let isn = 0xFFFF_FF00;
        let mut w = RecvWindow::new(8, isn);
        assert_eq!(w.size(), 256);
        assert_eq!(w.accept(isn + 1), Accept::OutOfOrder);
        assert_eq!(w.accept(isn + 1), Accept::Duplicate);
        assert_eq!(w.expected(), isn);
        assert!(!w.in_order());
        assert_eq!(w.accept(isn), Accept::InOrder);
        assert!(w.in_order());
        assert_eq!(w.expected(), isn + 2);
        assert_eq!(w.accept(isn), Accept::Duplicate);
        assert_eq!(w.accept(isn.wrapping_add(2 + 256)), Accept::OutOfWindow);
        assert_eq!(w.accept(isn.wrapping_add(2 + 255)), Accept::OutOfOrder);
        // Fill everything in between, crossing the 2^32 wrap and several ring words.
        for i in 2..257u32 {
            let _ = w.accept(isn.wrapping_add(i));
        }
        assert_eq!(w.expected(), isn.wrapping_add(258));
        assert!(w.in_order());
        // Bits were cleared: the same ring slots accept the next lap.
        assert_eq!(w.accept(isn.wrapping_add(258 + 3)), Accept::OutOfOrder);
        assert_eq!(w.expected(), isn.wrapping_add(258));
        assert!(!w.in_order());
        w.reset(7);
        assert!(w.in_order());
    }

    #[test]
    fn mr_wire_ack_sack_block_layout() {
        let mut w = RecvWindow::new(12, 1000);
        for p in [1001u32, 1003, 1064, 1255, 1300] {
            w.accept(p);
        }
        let mut b = [0u8; 32];
        w.sack_block(1000, &mut b);
        let get = |i: u32| b[(i / 8) as usize] >> (i % 8) & 1 == 1;
        let set: alloc::vec::Vec<u32> = (0..256).filter(|&i| get(i)).collect();
        assert_eq!(set, alloc::vec![1, 3, 64, 255]);
        // Base beyond the window edge: bits past expected+W read as zero.
        let mut w2 = RecvWindow::new(8, 0);
        w2.accept(250);
        w2.accept(255);
        let mut b2 = [0u8; 32];
        w2.sack_block(200, &mut b2);
        let set2: alloc::vec::Vec<u32> = (0..256)
            .filter(|&i| b2[(i / 8) as usize] >> (i % 8) & 1 == 1)
            .collect();
        assert_eq!(set2, alloc::vec![50, 55]);
    }

    #[test]
    fn mr_wire_ack_sack_base_rule() {
        assert_eq!(sack_base(100, 100), 100);
        assert_eq!(sack_base(100, 355), 100);
        // psn - cack = 256 -> 100 + 256 - 224 = 132; psn sits in the last 32-bit word.
        assert_eq!(sack_base(100, 356), 132);
        let b = sack_base(100, 1000);
        assert!(1000 - b >= 224 && 1000 - b < 256, "b={b}");
        assert_eq!(
            sack_base(u32::MAX - 10, 300),
            (u32::MAX - 10)
                .wrapping_add(32 * (311 / 32))
                .wrapping_sub(224)
        );
    }

    #[test]
    fn acked_bits_ring() {
        let mut a = AckedBits::new(8);
        assert!(a.set(5));
        assert!(!a.set(5));
        assert!(a.get(5 + 256));
        a.clear(5);
        assert!(!a.get(5));
    }
}
