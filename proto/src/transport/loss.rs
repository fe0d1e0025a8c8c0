//! Sender-side reliability (MR-REL-20..25, MR-REL-32..47): the outstanding-packet ring, ACK (CACK + SACK) processing,
//! loss detection (a) trim NACK, (b) time / RACK, (c) reorder distance, (d) RTO, and the queue of packets to
//! retransmit.
//!
//! The ring holds one [`SentPkt`] per PSN in `[una, nxt)`, indexed by `psn mod ring length`; a packet record
//! holds what a retransmission needs to rebuild the packet from the message table and memory (no payload copy).
//! The ring starts at [`INITIAL_RING`] entries and doubles when full, up to the window (`2^wlog`), so a
//! connection that never has many packets outstanding never pays for a full window of records.

use super::bitmap::AckedBits;
use super::seq::{diff32, lt32};
use super::Instant;
use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;

/// Packet flag: counted in `inflight_bytes`.
pub const F_INFLIGHT: u8 = 0x01;
/// Packet flag: declared lost and queued for retransmission.
pub const F_LOST: u8 = 0x02;
/// Packet flag: retransmitted at least once.
pub const F_RTX: u8 = 0x04;

/// Why a packet was declared lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossCause {
    /// (a) NACK TRIMMED.
    Trim,
    /// (b) time-based: a later-sent packet was acknowledged and `srtt + reo_wnd` passed.
    Time,
    /// (c) the highest acknowledged PSN is `reorder_distance` or more beyond it.
    Distance,
    /// (d) RTO expiry.
    Rto,
    /// RNR NACK: the responder asked for a delayed retry.
    Rnr,
}

/// What the sender remembers about one transmitted packet (32 bytes with padding).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SentPkt {
    /// Time of the latest transmission.
    pub sent: Instant,
    /// Message sequence number of the packet's message.
    pub msn: u32,
    /// Byte offset of the payload in its message.
    pub offset: u32,
    /// Payload length.
    pub len: u32,
    /// EV-set entry index of the latest transmission.
    pub path: u8,
    /// `F_*` flags.
    pub flags: u8,
    /// Number of transmissions.
    pub xmits: u8,
    /// EV of the latest transmission (a recycle report for an EV no longer in the set is ignored).
    pub ev: u16,
}

/// Records a fresh [`SendWindow`] allocates (it doubles on demand up to the window).
pub const INITIAL_RING: u32 = 32;

/// Largest reordering multiplier (MR-REL-59).
pub const MAX_REO_MULT: u8 = 16;

/// Bytes counted in flight per packet on top of its payload (headers, for the congestion window).
pub const PKT_OVERHEAD: u64 = 64;

/// Result of processing one ACK.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AckResult {
    /// Packets newly acknowledged (cumulatively or selectively).
    pub newly_acked: u32,
    /// Their payload bytes.
    pub acked_bytes: u64,
    /// The cumulative ack advanced.
    pub cack_advanced: bool,
    /// The ACK was ignored (CACK beyond what was sent).
    pub invalid: bool,
}

/// Outstanding packets of one direction of a connection.
#[derive(Debug, Clone)]
pub struct SendWindow {
    ring: Vec<SentPkt>,
    /// `ring.len() - 1` (the ring length is a power of two).
    mask: u32,
    /// The window: the most packets that can be outstanding (`2^log2`).
    max_cap: u32,
    una: u32,
    nxt: u32,
    acked: AckedBits,
    lost: VecDeque<u32>,
    highest_acked: u32,
    any_acked: bool,
    rack_sent: Instant,
    inflight_bytes: u64,
    reorder_distance: u32,
    reo_mult: u8,
    reo_stamp: Instant,
    /// RTO deadline, if armed.
    pub rto_deadline: Option<Instant>,
    /// Earliest RACK deadline, if any packet is waiting for one.
    pub rack_deadline: Option<Instant>,
}

impl SendWindow {
    /// A window of `2^log2` packets (8..=16) starting at `isn`.
    pub fn new(log2: u8, isn: u32, reorder_distance: u32) -> Self {
        let log2 = log2.clamp(8, 16);
        let cap = 1u32 << log2;
        let len = INITIAL_RING.min(cap);
        SendWindow {
            ring: vec![SentPkt::default(); len as usize],
            mask: len - 1,
            max_cap: cap,
            una: isn,
            nxt: isn,
            acked: AckedBits::new(log2),
            lost: VecDeque::new(),
            highest_acked: isn,
            any_acked: false,
            rack_sent: 0,
            inflight_bytes: 0,
            reorder_distance: reorder_distance.max(16),
            reo_mult: 1,
            reo_stamp: 0,
            rto_deadline: None,
            rack_deadline: None,
        }
    }

    /// Forgets everything and restarts at `isn` (reuses allocations).
    pub fn reset(&mut self, isn: u32) {
        self.acked.clear_all();
        self.lost.clear();
        self.una = isn;
        self.nxt = isn;
        self.highest_acked = isn;
        self.any_acked = false;
        self.rack_sent = 0;
        self.inflight_bytes = 0;
        self.reo_mult = 1;
        self.reo_stamp = 0;
        self.rto_deadline = None;
        self.rack_deadline = None;
    }

    /// Reordering adaptation (MR-REL-59): an ACK flagged DUP shows that a retransmission was spurious, so the
    /// reordering tolerance of rules (b) and (c) grows by one step, at most once per `srtt` and up to
    /// [`MAX_REO_MULT`]; after `16 * srtt` without such an ACK it shrinks by one step.
    pub fn on_reordering_signal(&mut self, now: Instant, srtt: u64, dup: bool) {
        let since = now.saturating_sub(self.reo_stamp);
        if dup {
            if since >= srtt {
                self.reo_mult = (self.reo_mult + 1).min(MAX_REO_MULT);
                self.reo_stamp = now;
            }
        } else if self.reo_mult > 1 && since >= srtt.saturating_mul(16) {
            self.reo_mult -= 1;
            self.reo_stamp = now;
        }
    }

    /// The current reordering multiplier (1..=[`MAX_REO_MULT`]).
    #[inline]
    pub fn reo_mult(&self) -> u8 {
        self.reo_mult
    }

    /// The window: the most packets that can be outstanding.
    #[inline]
    pub fn capacity(&self) -> u32 {
        self.max_cap
    }

    /// Records currently allocated (grows by doubling up to [`SendWindow::capacity`]).
    #[inline]
    pub fn ring_len(&self) -> u32 {
        self.mask + 1
    }

    /// Doubles the ring, keeping every outstanding record at its new index.
    #[cold]
    fn grow(&mut self) {
        let len = (self.mask + 1).saturating_mul(2).min(self.max_cap);
        let mut ring = vec![SentPkt::default(); len as usize];
        let new_mask = len - 1;
        let mut psn = self.una;
        while lt32(psn, self.nxt) {
            ring[(psn & new_mask) as usize] = self.ring[(psn & self.mask) as usize];
            psn = psn.wrapping_add(1);
        }
        self.ring = ring;
        self.mask = new_mask;
    }

    /// Oldest unacknowledged PSN (the peer's cumulative ack).
    #[inline]
    pub fn una(&self) -> u32 {
        self.una
    }

    /// Next PSN to assign.
    #[inline]
    pub fn nxt(&self) -> u32 {
        self.nxt
    }

    /// Number of PSNs in `[una, nxt)`.
    #[inline]
    pub fn outstanding(&self) -> u32 {
        self.nxt.wrapping_sub(self.una)
    }

    /// Payload + overhead bytes of packets in flight (sent, not acked, not declared lost).
    #[inline]
    pub fn inflight_bytes(&self) -> u64 {
        self.inflight_bytes
    }

    /// True if a new PSN may be assigned under a peer window of `peer_window` packets.
    #[inline]
    pub fn can_send_new(&self, peer_window: u32) -> bool {
        self.outstanding() < peer_window.min(self.capacity())
    }

    /// True if packets wait for retransmission.
    #[inline]
    pub fn has_lost(&self) -> bool {
        !self.lost.is_empty()
    }

    /// The record of `psn` if it is outstanding.
    #[inline]
    pub fn get(&self, psn: u32) -> Option<&SentPkt> {
        let d = diff32(psn, self.una);
        (d >= 0 && lt32(psn, self.nxt)).then(|| &self.ring[(psn & self.mask) as usize])
    }

    /// True if `psn` is outstanding and acknowledged selectively.
    #[inline]
    pub fn is_acked(&self, psn: u32) -> bool {
        self.get(psn).is_some() && self.acked.get(psn)
    }

    /// Records a first transmission; returns its PSN. Arms the RTO if it was not armed.
    #[inline]
    pub fn on_send(&mut self, now: Instant, mut pkt: SentPkt, rto: u64) -> u32 {
        let psn = self.nxt;
        if self.nxt.wrapping_sub(self.una) > self.mask && self.mask + 1 < self.max_cap {
            self.grow();
        }
        pkt.sent = now;
        pkt.flags = F_INFLIGHT;
        pkt.xmits = 1;
        self.inflight_bytes += pkt.len as u64 + PKT_OVERHEAD;
        self.ring[(psn & self.mask) as usize] = pkt;
        self.acked.clear(psn);
        self.nxt = psn.wrapping_add(1);
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + rto);
        }
        psn
    }

    /// Pops the next PSN to retransmit (skipping any acknowledged meanwhile).
    #[inline]
    pub fn pop_lost(&mut self) -> Option<u32> {
        while let Some(psn) = self.lost.pop_front() {
            if self.get(psn).is_some() && !self.acked.get(psn) {
                let e = &mut self.ring[(psn & self.mask) as usize];
                if e.flags & F_LOST != 0 {
                    e.flags &= !F_LOST;
                    return Some(psn);
                }
            }
        }
        None
    }

    /// Puts a PSN back at the head of the retransmission queue (transmission was not possible after all).
    pub fn unpop_lost(&mut self, psn: u32) {
        if let Some(e) = self.get(psn).copied() {
            if e.flags & F_LOST == 0 && !self.acked.get(psn) {
                self.ring[(psn & self.mask) as usize].flags |= F_LOST;
                self.lost.push_front(psn);
            }
        }
    }

    /// Records a retransmission of `psn` on entry `path`. Arms the RTO if needed.
    pub fn on_retransmit(&mut self, now: Instant, psn: u32, path: u8, ev: u16, rto: u64) {
        if self.get(psn).is_none() {
            return;
        }
        let e = &mut self.ring[(psn & self.mask) as usize];
        e.sent = now;
        e.path = path;
        e.ev = ev;
        e.xmits = e.xmits.saturating_add(1);
        e.flags |= F_RTX;
        if e.flags & F_INFLIGHT == 0 {
            e.flags |= F_INFLIGHT;
            self.inflight_bytes += e.len as u64 + PKT_OVERHEAD;
        }
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + rto);
        }
    }

    /// Declares `psn` lost (if outstanding, unacked and not already queued); returns its record if it was.
    pub fn mark_lost(&mut self, psn: u32) -> Option<SentPkt> {
        if self.get(psn).is_none() || self.acked.get(psn) {
            return None;
        }
        let e = &mut self.ring[(psn & self.mask) as usize];
        if e.flags & F_LOST != 0 {
            return None;
        }
        e.flags |= F_LOST;
        if e.flags & F_INFLIGHT != 0 {
            e.flags &= !F_INFLIGHT;
            self.inflight_bytes = self
                .inflight_bytes
                .saturating_sub(e.len as u64 + PKT_OVERHEAD);
        }
        let out = *e;
        self.lost.push_back(psn);
        Some(out)
    }

    #[inline]
    fn ack_one(&mut self, psn: u32, res: &mut AckResult, credit: &mut impl FnMut(&SentPkt)) {
        let e = self.ring[(psn & self.mask) as usize];
        res.newly_acked += 1;
        res.acked_bytes += e.len as u64;
        if e.flags & F_INFLIGHT != 0 {
            self.inflight_bytes = self
                .inflight_bytes
                .saturating_sub(e.len as u64 + PKT_OVERHEAD);
        }
        self.ring[(psn & self.mask) as usize].flags &= !(F_INFLIGHT | F_LOST);
        if e.sent > self.rack_sent {
            self.rack_sent = e.sent;
        }
        if !self.any_acked || lt32(self.highest_acked, psn) {
            self.highest_acked = psn;
            self.any_acked = true;
        }
        credit(&e);
    }

    /// Processes an ACK: cumulative ack `cack`, SACK block `sack` (bit i = `sack_base + i`, byte i/8, mask
    /// `1 << (i%8)`). `credit` is called once per newly acknowledged packet. Re-arms or disarms the RTO.
    #[inline]
    pub fn on_ack(
        &mut self,
        now: Instant,
        cack: u32,
        sack_base: u32,
        sack: &[u8; 32],
        rto: u64,
        mut credit: impl FnMut(&SentPkt),
    ) -> AckResult {
        let mut res = AckResult::default();
        if lt32(self.nxt, cack) {
            res.invalid = true;
            return res;
        }
        // Cumulative part.
        while lt32(self.una, cack) {
            let psn = self.una;
            if !self.acked.get(psn) {
                self.ack_one(psn, &mut res, &mut credit);
            }
            self.acked.clear(psn);
            self.una = psn.wrapping_add(1);
            res.cack_advanced = true;
        }
        // Selective part: only bits for PSNs in (una, nxt). An empty block (the in-order case) is one test.
        let mut words = [0u64; 4];
        for (w, chunk) in words.iter_mut().zip(sack.chunks_exact(8)) {
            *w = u64::from_le_bytes([
                chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7],
            ]);
        }
        let any = (words[0] | words[1] | words[2] | words[3]) != 0;
        for (k, mut w) in words.into_iter().enumerate() {
            if !any {
                break;
            }
            while w != 0 {
                let i = w.trailing_zeros();
                w &= w - 1;
                let psn = sack_base.wrapping_add(k as u32 * 64 + i);
                if diff32(psn, self.una) > 0 && lt32(psn, self.nxt) && self.acked.set(psn) {
                    self.ack_one(psn, &mut res, &mut credit);
                }
            }
        }
        if res.cack_advanced {
            self.rto_deadline = if self.outstanding() > 0 {
                Some(now + rto)
            } else {
                None
            };
        }
        if self.outstanding() == 0 {
            self.rack_deadline = None;
        }
        res
    }

    /// Whether a PSN is below the highest acknowledged one (something was acknowledged and `una` is below it):
    /// only then does [`Self::detect_losses`] look at any PSN.
    pub fn below_highest_acked(&self) -> bool {
        self.any_acked && lt32(self.una, self.highest_acked)
    }

    /// Loss detection (b) and (c) over the holes below the highest acknowledged PSN (MR-REL-36..38). Declared losses
    /// are queued and reported to `on_lost`; the earliest pending time deadline is stored in `rack_deadline`.
    #[inline]
    pub fn detect_losses(
        &mut self,
        now: Instant,
        srtt: u64,
        reo_wnd: u64,
        mut on_lost: impl FnMut(u32, &SentPkt, LossCause),
    ) {
        self.rack_deadline = None;
        if !self.below_highest_acked() {
            return;
        }
        let mult = u64::from(self.reo_mult);
        let reo_wnd = reo_wnd.saturating_mul(mult);
        let distance = self
            .reorder_distance
            .saturating_mul(u32::from(self.reo_mult))
            .min(self.max_cap);
        let mut psn = self.una;
        while lt32(psn, self.highest_acked) {
            let e = self.ring[(psn & self.mask) as usize];
            if !self.acked.get(psn) && e.flags & F_LOST == 0 {
                let dist = self.highest_acked.wrapping_sub(psn);
                // MR-REL-38: the distance rule also requires that a packet sent after p's latest transmission
                // was acknowledged, so a retransmission is not declared lost again by every later ACK.
                let cause = if dist >= distance && e.sent < self.rack_sent {
                    Some(LossCause::Distance)
                } else if e.sent < self.rack_sent {
                    let deadline = e.sent + srtt + reo_wnd;
                    if now >= deadline {
                        Some(LossCause::Time)
                    } else {
                        self.rack_deadline =
                            Some(self.rack_deadline.map_or(deadline, |d| d.min(deadline)));
                        None
                    }
                } else {
                    None
                };
                if let Some(c) = cause {
                    if let Some(rec) = self.mark_lost(psn) {
                        on_lost(psn, &rec, c);
                    }
                }
            }
            psn = psn.wrapping_add(1);
        }
    }

    /// RTO expiry (d): every unacknowledged, not-yet-queued packet sent at or before `now - rto` is declared
    /// lost. Re-arms the RTO for the oldest remaining in-flight packet. Returns the number declared lost.
    pub fn on_rto(
        &mut self,
        now: Instant,
        rto: u64,
        mut on_lost: impl FnMut(u32, &SentPkt),
    ) -> u32 {
        let mut n = 0;
        let mut oldest: Option<Instant> = None;
        let mut psn = self.una;
        while lt32(psn, self.nxt) {
            let e = self.ring[(psn & self.mask) as usize];
            if !self.acked.get(psn) && e.flags & F_LOST == 0 {
                if e.sent.saturating_add(rto) <= now {
                    if let Some(rec) = self.mark_lost(psn) {
                        on_lost(psn, &rec);
                        n += 1;
                    }
                } else {
                    oldest = Some(oldest.map_or(e.sent, |o| o.min(e.sent)));
                }
            }
            psn = psn.wrapping_add(1);
        }
        self.rto_deadline = if n > 0 {
            Some(now + rto)
        } else {
            oldest.map(|o| o + rto).or(if self.outstanding() > 0 {
                Some(now + rto)
            } else {
                None
            })
        };
        n
    }

    /// Iterates the records of all outstanding, unacknowledged packets (error flushing, reopen).
    pub fn unacked(&self) -> impl Iterator<Item = (u32, &SentPkt)> + '_ {
        (0..self.outstanding()).filter_map(move |i| {
            let psn = self.una.wrapping_add(i);
            (!self.acked.get(psn)).then(|| (psn, &self.ring[(psn & self.mask) as usize]))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(msn: u32, len: u32) -> SentPkt {
        SentPkt {
            msn,
            len,
            ..Default::default()
        }
    }

    fn sack_of(base: u32, psns: &[u32]) -> [u8; 32] {
        let mut b = [0u8; 32];
        for &p in psns {
            let i = p.wrapping_sub(base);
            b[(i / 8) as usize] |= 1 << (i % 8);
        }
        b
    }

    fn window_with(n: u32, isn: u32, spacing: u64) -> SendWindow {
        let mut w = SendWindow::new(8, isn, 16);
        for i in 0..n {
            w.on_send(i as u64 * spacing, pkt(0, 100), 1_000_000);
        }
        w
    }

    #[test]
    fn mr_rel_21_22_cack_and_sack_credit_once() {
        let isn = u32::MAX - 2; // wraps during the test
        let mut w = window_with(8, isn, 10);
        let mut credited = Vec::new();
        let r = w.on_ack(
            100,
            isn.wrapping_add(2),
            isn.wrapping_add(2),
            &sack_of(isn.wrapping_add(2), &[isn.wrapping_add(4)]),
            1000,
            |p| credited.push(p.len),
        );
        assert_eq!(r.newly_acked, 3);
        assert!(r.cack_advanced);
        assert_eq!(w.una(), isn.wrapping_add(2));
        assert!(w.is_acked(isn.wrapping_add(4)));
        // The same ACK again credits nothing.
        let r = w.on_ack(
            101,
            isn.wrapping_add(2),
            isn.wrapping_add(2),
            &sack_of(isn.wrapping_add(2), &[isn.wrapping_add(4)]),
            1000,
            |p| credited.push(p.len),
        );
        assert_eq!(r.newly_acked, 0);
        // CACK passing a SACKed PSN does not credit it twice.
        let r = w.on_ack(
            102,
            isn.wrapping_add(5),
            isn.wrapping_add(5),
            &[0; 32],
            1000,
            |p| credited.push(p.len),
        );
        assert_eq!(r.newly_acked, 2);
        assert_eq!(credited.len(), 5);
        // A CACK beyond what was sent is rejected.
        assert!(
            w.on_ack(103, isn.wrapping_add(100), isn, &[0; 32], 1000, |_| {})
                .invalid
        );
        assert_eq!(w.inflight_bytes(), 3 * (100 + PKT_OVERHEAD));
    }

    #[test]
    fn mr_rel_34_trim_nack_marks_lost_and_queues() {
        let mut w = window_with(4, 0, 10);
        assert!(w.mark_lost(2).is_some());
        assert!(w.mark_lost(2).is_none(), "queued once");
        assert!(w.mark_lost(9).is_none(), "not outstanding");
        assert_eq!(w.pop_lost(), Some(2));
        assert_eq!(w.pop_lost(), None);
        w.on_retransmit(50, 2, 3, 0x1234, 1000);
        assert_eq!(w.get(2).unwrap().xmits, 2);
        assert_eq!(w.get(2).unwrap().path, 3);
    }

    #[test]
    fn mr_rel_36_time_based_rack() {
        // Packets 0..4 sent at t=0,10,20,30. ACK at t=40 sacks PSN 3 (sent at 30) with CACK 0.
        let mut w = window_with(4, 0, 10);
        w.on_ack(40, 0, 0, &sack_of(0, &[3]), 1000, |_| {});
        let mut lost = Vec::new();
        // srtt 100, reo 25: P0 deadline 125, P1 135, P2 145.
        w.detect_losses(40, 100, 25, |p, _, c| lost.push((p, c)));
        assert!(lost.is_empty());
        assert_eq!(w.rack_deadline, Some(125));
        w.detect_losses(130, 100, 25, |p, _, c| lost.push((p, c)));
        assert_eq!(lost, [(0, LossCause::Time)]);
        assert_eq!(w.rack_deadline, Some(135));
        w.detect_losses(1000, 100, 25, |p, _, c| lost.push((p, c)));
        assert_eq!(
            lost,
            [
                (0, LossCause::Time),
                (1, LossCause::Time),
                (2, LossCause::Time)
            ]
        );
        assert_eq!(w.rack_deadline, None);
    }

    #[test]
    fn mr_rel_36_not_lost_when_acked_packet_was_sent_earlier() {
        // P0 retransmitted at t=100; P1 (sent t=10) acked: P0 was sent after P1, so (b) must not fire for it.
        let mut w = window_with(3, 0, 10);
        w.mark_lost(0);
        w.pop_lost();
        w.on_retransmit(100, 0, 1, 0, 1000);
        w.on_ack(110, 0, 0, &sack_of(0, &[1]), 1000, |_| {});
        let mut lost = Vec::new();
        w.detect_losses(10_000, 10, 10, |p, _, c| lost.push((p, c)));
        assert!(lost.is_empty());
    }

    #[test]
    fn mr_rel_38_reorder_distance() {
        let mut w = window_with(40, 0, 1);
        // Everything sent at about the same time; ack PSN 20 only. reorder_distance 16: PSNs 0..=4 are lost by
        // distance, 5..=19 are not (yet) lost by distance, but by time only once now >= sent + srtt + reo.
        w.on_ack(50, 0, 0, &sack_of(0, &[20]), 1000, |_| {});
        let mut lost = Vec::new();
        w.detect_losses(50, 1000, 250, |p, _, c| lost.push((p, c)));
        assert_eq!(
            lost.iter().map(|x| x.0).collect::<Vec<_>>(),
            [0, 1, 2, 3, 4]
        );
        assert!(lost.iter().all(|x| x.1 == LossCause::Distance));
    }

    #[test]
    fn mr_rel_38_distance_needs_a_later_sent_packet_acked() {
        // 40 packets sent at t=0..39; PSN 0 is lost by distance, retransmitted at t=100, and later ACKs that only
        // acknowledge packets sent before t=100 must not declare the retransmission lost again.
        let mut w = window_with(40, 0, 1);
        w.on_ack(50, 0, 0, &sack_of(0, &[20]), 1000, |_| {});
        let mut lost = Vec::new();
        w.detect_losses(50, 1000, 250, |p, _, c| lost.push((p, c)));
        assert!(lost.contains(&(0, LossCause::Distance)));
        while w.pop_lost().is_some() {}
        w.on_retransmit(100, 0, 1, 0, 1000);
        lost.clear();
        w.on_ack(110, 0, 0, &sack_of(0, &[20, 30]), 1000, |_| {});
        w.detect_losses(110, 1000, 250, |p, _, c| lost.push((p, c)));
        assert!(
            !lost.iter().any(|x| x.0 == 0),
            "retransmitted PSN 0 declared lost again: {lost:?}"
        );
        assert_eq!(w.get(0).unwrap().flags & F_LOST, 0);
    }

    #[test]
    fn mr_rel_39_rto_marks_old_packets() {
        let mut w = window_with(4, 0, 100); // sent at 0,100,200,300
        assert_eq!(w.rto_deadline, Some(1_000_000));
        let mut lost = Vec::new();
        let n = w.on_rto(250, 100, |p, _| lost.push(p));
        assert_eq!(n, 2);
        assert_eq!(lost, [0, 1]);
        assert_eq!(w.rto_deadline, Some(350));
        // Re-marking does not happen for queued packets.
        let n = w.on_rto(260, 100, |p, _| lost.push(p));
        assert_eq!(n, 0);
        assert_eq!(w.rto_deadline, Some(300)); // oldest remaining in flight sent at 200
        assert_eq!(w.inflight_bytes(), 2 * (100 + PKT_OVERHEAD));
    }

    #[test]
    fn mr_rel_59_reordering_multiplier_widens_on_dup_and_decays() {
        let mut w = SendWindow::new(8, 0, 16);
        let srtt = 1_000;
        assert_eq!(w.reo_mult(), 1);
        w.on_reordering_signal(5_000, srtt, true);
        assert_eq!(w.reo_mult(), 2);
        // At most one step per srtt.
        w.on_reordering_signal(5_500, srtt, true);
        assert_eq!(w.reo_mult(), 2);
        w.on_reordering_signal(6_000, srtt, true);
        assert_eq!(w.reo_mult(), 3);
        for k in 0..40u64 {
            w.on_reordering_signal(7_000 + k * srtt, srtt, true);
        }
        assert_eq!(w.reo_mult(), MAX_REO_MULT);
        // No DUP for 16 srtt: one step down; not earlier.
        let last = 7_000 + 39 * srtt;
        w.on_reordering_signal(last + 15 * srtt, srtt, false);
        assert_eq!(w.reo_mult(), MAX_REO_MULT);
        w.on_reordering_signal(last + 16 * srtt, srtt, false);
        assert_eq!(w.reo_mult(), MAX_REO_MULT - 1);
        // The multiplier scales both the time rule and the distance rule: P0 is a hole, P1..=P20 acknowledged.
        let mut v = SendWindow::new(8, 0, 16);
        for p in 0..21u64 {
            v.on_send(10 + p, pkt(0, 100), 1_000_000);
        }
        let bits: Vec<u32> = (1..21).collect();
        v.on_ack(100, 0, 0, &sack_of(0, &bits), 1_000_000, |_| {});
        v.on_reordering_signal(100, 10, true);
        assert_eq!(v.reo_mult(), 2);
        let mut lost = Vec::new();
        // dist 20 < 2 * 16 and now < 10 + srtt 100 + 2 * reo 50.
        v.detect_losses(150, 100, 50, |p, _, c| lost.push((p, c)));
        assert!(lost.is_empty());
        assert_eq!(v.rack_deadline, Some(210));
        v.detect_losses(210, 100, 50, |p, _, c| lost.push((p, c)));
        assert_eq!(lost, [(0, LossCause::Time)]);
        v.reset(0);
        assert_eq!(v.reo_mult(), 1);
    }

    #[test]
    fn ring_grows_on_demand_and_keeps_every_record() {
        let mut w = SendWindow::new(9, u32::MAX - 40, 16);
        assert_eq!(w.ring_len(), INITIAL_RING);
        assert_eq!(w.capacity(), 512);
        for i in 0..300u32 {
            w.on_send(u64::from(i), pkt(i, 100 + i), 1_000_000);
        }
        assert_eq!(w.ring_len(), 512);
        for i in 0..300u32 {
            let psn = (u32::MAX - 40).wrapping_add(i);
            assert_eq!(
                w.get(psn).map(|p| (p.msn, p.len)),
                Some((i, 100 + i)),
                "psn {psn}"
            );
        }
        let una = (u32::MAX - 40).wrapping_add(200);
        let r = w.on_ack(400, una, una, &[0; 32], 1_000_000, |_| {});
        assert_eq!(r.newly_acked, 200);
        assert_eq!(w.outstanding(), 100);
        assert!(w.can_send_new(u32::MAX));
    }
}
