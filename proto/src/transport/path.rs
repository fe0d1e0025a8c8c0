//! Multipath spraying over a set of entropy values (MR-PATH-*).
//!
//! Each connection owns `paths` entries `{ev, counters}`. Packets are sprayed round-robin over the entries; an
//! entry whose packet came back with ECE, was trimmed, or was declared lost is *recycled*: its EV is replaced by
//! a fresh one from a seeded PRNG (REPS-style), so a bad path is left within the RTT that revealed it. The UDP
//! source port of a packet is `0xC000 | (ev & 0x3FFF)` (MR-ENC-17).

use alloc::vec::Vec;

/// A small, fast, seedable PRNG (SplitMix64). Deterministic across platforms.
#[derive(Debug, Clone)]
pub struct Prng(u64);

impl Prng {
    /// Seeds the generator.
    pub fn new(seed: u64) -> Self {
        Prng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
}

/// Why an entry was recycled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecycleCause {
    /// An ACK echoed ECE for a packet sent on the entry.
    Ece,
    /// A packet sent on the entry was trimmed.
    Trim,
    /// A packet sent on the entry was declared lost.
    Loss,
}

/// One entropy value and its health counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PathEntry {
    /// Entropy value (14 bits).
    pub ev: u16,
    /// Packets sent on this entry since it was last recycled.
    pub sent: u32,
    /// ECE echoes seen on this entry (lifetime of the slot).
    pub ece: u32,
    /// Trims seen on this entry (lifetime of the slot).
    pub trims: u32,
    /// Losses seen on this entry (lifetime of the slot).
    pub losses: u32,
    /// Times this slot was recycled.
    pub recycles: u32,
}

/// The EV set of one connection.
#[derive(Debug, Clone)]
pub struct PathSet {
    entries: Vec<PathEntry>,
    next: usize,
    rng: Prng,
}

/// UDP source port carrying entropy value `ev` (MR-ENC-17).
#[inline]
pub fn ev_to_port(ev: u16) -> u16 {
    0xC000 | (ev & 0x3FFF)
}

/// Entropy value carried by UDP source port `port`.
#[inline]
pub fn port_to_ev(port: u16) -> u16 {
    port & 0x3FFF
}

impl PathSet {
    /// `n` entries (1..=64) with EVs drawn from a PRNG seeded with `seed`.
    pub fn new(n: u8, seed: u64) -> Self {
        let n = n.clamp(1, 64) as usize;
        let mut s = PathSet {
            entries: Vec::with_capacity(n),
            next: 0,
            rng: Prng::new(seed),
        };
        for _ in 0..n {
            let ev = s.fresh_ev();
            s.entries.push(PathEntry {
                ev,
                ..Default::default()
            });
        }
        s
    }

    fn fresh_ev(&mut self) -> u16 {
        // A few tries to avoid duplicates in the set; a duplicate is harmless, only less diverse.
        let mut ev = 0;
        for _ in 0..4 {
            ev = (self.rng.next_u32() & 0x3FFF) as u16;
            if !self.entries.iter().any(|e| e.ev == ev) {
                break;
            }
        }
        ev
    }

    /// Number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Always false (a set has at least one entry).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries.
    pub fn entries(&self) -> &[PathEntry] {
        &self.entries
    }

    /// Picks the next entry round-robin; returns `(index, ev)`. `avoid` (an entry index) is skipped when the set
    /// has more than one entry: retransmissions go out on a different EV (MR-REL-44, MR-PATH-10).
    #[inline]
    pub fn choose(&mut self, avoid: Option<u8>) -> (u8, u16) {
        let n = self.entries.len();
        // `next` stays below `n`, so stepping wraps with a compare instead of a division.
        let step = |j: usize| if j + 1 >= n { 0 } else { j + 1 };
        let mut i = if self.next < n {
            self.next
        } else {
            self.next % n
        };
        if n > 1 && avoid == Some(i as u8) {
            i = step(i);
        }
        self.next = step(i);
        let e = &mut self.entries[i];
        e.sent = e.sent.wrapping_add(1);
        (i as u8, e.ev)
    }

    /// The EV of entry `idx` (0 if out of range).
    #[inline]
    pub fn ev(&self, idx: u8) -> u16 {
        self.entries.get(idx as usize).map_or(0, |e| e.ev)
    }

    /// Replaces the EV of entry `idx` with a fresh one (MR-PATH-2). Only recycles if the entry still carries
    /// `ev` (a stale report about an already-recycled slot is ignored). Returns whether it recycled.
    pub fn recycle(&mut self, idx: u8, ev: u16, cause: RecycleCause) -> bool {
        let Some(e) = self.entries.get(idx as usize) else {
            return false;
        };
        if e.ev != ev & 0x3FFF {
            return false;
        }
        let fresh = self.fresh_ev();
        let e = &mut self.entries[idx as usize];
        match cause {
            RecycleCause::Ece => e.ece += 1,
            RecycleCause::Trim => e.trims += 1,
            RecycleCause::Loss => e.losses += 1,
        }
        e.recycles += 1;
        e.sent = 0;
        e.ev = fresh;
        true
    }

    /// Finds the entry currently carrying `ev`.
    #[inline]
    pub fn index_of(&self, ev: u16) -> Option<u8> {
        self.entries
            .iter()
            .position(|e| e.ev == ev & 0x3FFF)
            .map(|i| i as u8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mr_path_3_10_round_robin_and_avoid() {
        let mut p = PathSet::new(4, 7);
        let picks: Vec<u8> = (0..8).map(|_| p.choose(None).0).collect();
        assert_eq!(picks, [0, 1, 2, 3, 0, 1, 2, 3]);
        assert_eq!(p.choose(Some(0)).0, 1);
        let one = &mut PathSet::new(1, 1);
        assert_eq!(one.choose(Some(0)).0, 0);
        for e in p.entries() {
            assert!(e.ev <= 0x3FFF);
        }
        assert_eq!(ev_to_port(0x3FFF), 0xFFFF);
        assert_eq!(ev_to_port(0x4001), 0xC001);
        assert_eq!(port_to_ev(0xC123), 0x0123);
    }

    #[test]
    fn mr_path_2_recycle_replaces_ev_deterministically() {
        let mut a = PathSet::new(8, 42);
        let mut b = PathSet::new(8, 42);
        assert_eq!(a.entries(), b.entries());
        let old = a.ev(3);
        assert!(a.recycle(3, old, RecycleCause::Ece));
        assert_ne!(a.ev(3), old);
        assert_eq!(a.entries()[3].ece, 1);
        // A stale report for the old EV does nothing.
        assert!(!a.recycle(3, old, RecycleCause::Loss));
        assert_eq!(a.entries()[3].losses, 0);
        assert!(b.recycle(3, old, RecycleCause::Ece));
        assert_eq!(a.ev(3), b.ev(3));
        assert_eq!(a.index_of(a.ev(3)), Some(3));
        assert!(!a.recycle(200, 0, RecycleCause::Trim));
    }
}
