//! Multipath spraying over a set of entropy values (MR-PATH-*).
//!
//! Each connection owns `paths` entries `{ev, counters}`. An entry whose packet came back acknowledged without
//! ECE joins a FIFO of ready entries, and each new packet reuses the oldest ready entry; with none ready, the next
//! entry in round-robin order gets a fresh EV and explores a new path (MR-PATH-3, REPS-style). A path with more
//! spare capacity returns its ACKs sooner and so carries more packets. An entry whose packet came back with ECE,
//! was trimmed, or was declared lost is *recycled*: its EV is replaced by a fresh one from a seeded PRNG, so a bad
//! path is left within the RTT that revealed it. The UDP source port of a packet is `0xC000 | (ev & 0x3FFF)`
//! (MR-ENC-17).

use alloc::collections::VecDeque;
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
    /// Entries whose latest packet came back acknowledged without ECE, oldest first: reused before any other.
    ready: VecDeque<u8>,
    /// Per entry: queued in `ready`.
    queued: Vec<bool>,
    /// No exploration before this time (ns): set by a loss (MR-PATH-18).
    frozen_until: u64,
    /// How long a loss stops exploration, ns (`FREEZE_SRTTS * srtt`).
    freeze_span: u64,
}

/// A declared loss stops exploration with fresh EVs for this many smoothed RTTs (MR-PATH-18).
pub const FREEZE_SRTTS: u64 = 4;

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
            ready: VecDeque::with_capacity(n),
            queued: alloc::vec![false; n],
            frozen_until: 0,
            freeze_span: 0,
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

    /// Picks the entry for the next packet; returns `(index, ev)` (MR-PATH-3). An entry whose latest packet was
    /// acknowledged without ECE is reused first, oldest acknowledgement first; when none is, the next entry in
    /// round-robin order gets a fresh EV (it explores a new path). `avoid` (an entry index) is skipped when the set
    /// has more than one entry: retransmissions go out on a different EV (MR-REL-44, MR-PATH-10). While frozen by
    /// a loss (MR-PATH-18) the round-robin entry keeps its EV instead of exploring.
    #[inline]
    pub fn choose(&mut self, avoid: Option<u8>, now: u64) -> (u8, u16) {
        let n = self.entries.len();
        while let Some(i) = self.ready.pop_front() {
            if let Some(q) = self.queued.get_mut(i as usize) {
                *q = false;
            }
            if (i as usize) < n && !(n > 1 && avoid == Some(i)) {
                let e = &mut self.entries[i as usize];
                e.sent = e.sent.wrapping_add(1);
                return (i, e.ev);
            }
        }
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
        if n > 1 && now >= self.frozen_until {
            let fresh = self.fresh_ev();
            self.entries[i].ev = fresh;
        }
        let e = &mut self.entries[i];
        e.sent = e.sent.wrapping_add(1);
        (i as u8, e.ev)
    }

    /// Sets how long a loss freezes exploration from the current smoothed RTT (MR-PATH-18).
    #[inline]
    pub fn set_srtt(&mut self, srtt: u64) {
        self.freeze_span = srtt.saturating_mul(FREEZE_SRTTS);
    }

    /// An ACK without ECE newly acknowledged a packet sent on entry `idx` with `ev`: if the entry still carries
    /// `ev`, it joins the ready FIFO (MR-PATH-3).
    #[inline]
    pub fn on_clean_ack(&mut self, idx: u8, ev: u16) {
        let i = idx as usize;
        if self.entries.get(i).is_some_and(|e| e.ev == ev & 0x3FFF) {
            if let Some(q) = self.queued.get_mut(i) {
                if !*q {
                    *q = true;
                    self.ready.push_back(idx);
                }
            }
        }
    }

    /// The EV of entry `idx` (0 if out of range).
    #[inline]
    pub fn ev(&self, idx: u8) -> u16 {
        self.entries.get(idx as usize).map_or(0, |e| e.ev)
    }

    /// Replaces the EV of entry `idx` with a fresh one (MR-PATH-2). Only recycles if the entry still carries
    /// `ev` (a stale report about an already-recycled slot is ignored). Returns whether it recycled.
    pub fn recycle(&mut self, idx: u8, ev: u16, cause: RecycleCause, now: u64) -> bool {
        let Some(e) = self.entries.get(idx as usize) else {
            return false;
        };
        if e.ev != ev & 0x3FFF {
            return false;
        }
        if cause == RecycleCause::Loss {
            // MR-PATH-18: a loss may be a failed link that fresh EVs would keep finding.
            self.frozen_until = self.frozen_until.max(now.saturating_add(self.freeze_span));
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
        let picks: Vec<u8> = (0..8).map(|_| p.choose(None, 0).0).collect();
        assert_eq!(picks, [0, 1, 2, 3, 0, 1, 2, 3]);
        assert_eq!(p.choose(Some(0), 0).0, 1);
        let one = &mut PathSet::new(1, 1);
        assert_eq!(one.choose(Some(0), 0).0, 0);
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
        assert!(a.recycle(3, old, RecycleCause::Ece, 0));
        assert_ne!(a.ev(3), old);
        assert_eq!(a.entries()[3].ece, 1);
        // A stale report for the old EV does nothing.
        assert!(!a.recycle(3, old, RecycleCause::Loss, 0));
        assert_eq!(a.entries()[3].losses, 0);
        assert!(b.recycle(3, old, RecycleCause::Ece, 0));
        assert_eq!(a.ev(3), b.ev(3));
        assert_eq!(a.index_of(a.ev(3)), Some(3));
        assert!(!a.recycle(200, 0, RecycleCause::Trim, 0));
    }

    #[test]
    fn mr_path_3_clean_acks_are_reused_first_and_exploration_fills_in() {
        let mut p = PathSet::new(4, 9);
        // Nothing ready: each packet explores with a fresh EV on the next entry in turn.
        let first: Vec<(u8, u16)> = (0..4).map(|_| p.choose(None, 0)).collect();
        assert_eq!(first.iter().map(|c| c.0).collect::<Vec<_>>(), [0, 1, 2, 3]);
        // Clean ACKs for entries 2 then 0: those EVs are reused, oldest first, unchanged.
        p.on_clean_ack(first[2].0, first[2].1);
        p.on_clean_ack(first[0].0, first[0].1);
        p.on_clean_ack(first[0].0, first[0].1); // already queued: no second turn
        assert_eq!(p.choose(None, 0), first[2]);
        assert_eq!(p.choose(None, 0), first[0]);
        // FIFO empty again: the round-robin pointer continues at entry 0 with a fresh EV.
        let (i, ev) = p.choose(None, 0);
        assert_eq!(i, 0);
        assert_ne!(ev, first[0].1);
        // MR-PATH-10: a ready entry equal to the lost transmission's entry is dropped, not used.
        p.on_clean_ack(0, ev);
        let (j, _) = p.choose(Some(0), 0);
        assert_ne!(j, 0);
        // An ACK for an EV no entry carries any more changes nothing.
        p.on_clean_ack(1, first[1].1 ^ 0x2000);
        assert_eq!(p.choose(None, 0).0, 2);
        // paths = 1: the only entry is used for everything and never gets a fresh EV by itself.
        let mut one = PathSet::new(1, 3);
        let ev1 = one.ev(0);
        for _ in 0..5 {
            assert_eq!(one.choose(None, 0), (0, ev1));
        }
    }

    #[test]
    fn mr_path_18_a_loss_freezes_exploration() {
        let mut p = PathSet::new(4, 11);
        p.set_srtt(1_000);
        let before: Vec<u16> = (0..4).map(|i| p.ev(i)).collect();
        let (i, ev) = p.choose(None, 0);
        assert!(p.recycle(i, ev, RecycleCause::Loss, 10_000));
        let frozen: Vec<u16> = (0..4).map(|i| p.ev(i)).collect();
        // Until 10 000 + 4 * 1 000 the round robin reuses the set's EVs as they are.
        for t in [10_000u64, 12_000, 13_999] {
            let (j, e) = p.choose(None, t);
            assert_eq!(e, frozen[j as usize], "t {t}");
        }
        let (j, e) = p.choose(None, 14_000);
        assert_ne!(e, frozen[j as usize]);
        assert_ne!(before, frozen);
        // ECE and trims do not freeze.
        let mut q = PathSet::new(4, 11);
        q.set_srtt(1_000);
        let (i, ev) = q.choose(None, 0);
        assert!(q.recycle(i, ev, RecycleCause::Ece, 10_000));
        let (j, e) = q.choose(None, 10_001);
        assert_ne!(e, q.ev(j) ^ 1);
    }
}
