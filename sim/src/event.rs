//! The event queue: a binary min-heap of compact events ordered by (time in picoseconds, sequence number), so
//! two events at the same time run in the order they were scheduled and every run is deterministic.
//!
//! Every event is addressed to one node (the receiving node of a direction, a host, or the global controller
//! for workload and fault events). That is what lets the fabric be cut into partitions run in parallel with
//! conservative lookahead: an event for another partition is always scheduled at least one link latency ahead
//! (see `docs/simulator.md`).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Packet `b` has fully arrived at the receiving node of direction `a`.
    Arrive,
    /// The egress port feeding direction `a` finished serializing a frame.
    TxDone,
    /// Endpoint timer of host `a`.
    Timer,
    /// PFC: the data class of the egress port of direction `a` is paused (`b` = 1) or resumed (`b` = 0).
    Pfc,
    /// Pending flow `a` starts.
    FlowStart,
    /// Workload timer `a` fires.
    WlTimer,
    /// Scheduled fault `a` takes effect.
    Fault,
    /// Routing is recomputed around links down for at least `reroute_after_ns`.
    Reroute,
}

/// One event (24 bytes of payload besides its key).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    /// Time, ps.
    pub t: u64,
    /// Scheduling order.
    pub seq: u64,
    /// What.
    pub kind: Kind,
    /// First argument.
    pub a: u32,
    /// Second argument.
    pub b: u32,
}

impl Ord for Event {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap.
        other.t.cmp(&self.t).then_with(|| other.seq.cmp(&self.seq))
    }
}

impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// log2 of a calendar bucket's width in ps (about 0.5 ns).
const BUCKET_SHIFT: u32 = 9;
/// Buckets in the calendar ring (a horizon of about 4.2 us).
const RING: u64 = 1 << 13;

/// The queue: a calendar of ~0.5 ns buckets covering the next ~4 us (almost every packet event lands there),
/// a small binary heap for the bucket being drained, and a binary heap for events beyond the horizon (long
/// timers). Pushing is O(1) for near events, popping is a heap operation on one bucket's few events, and the
/// order is exactly (time, sequence) whatever the bucketing.
#[derive(Debug)]
pub struct EventQueue {
    /// Events of buckets up to `cur_bucket`.
    cur: BinaryHeap<Event>,
    /// Absolute bucket being drained.
    cur_bucket: u64,
    /// Slot `b % RING` holds the events of absolute bucket `b` in `cur_bucket + 1 .. cur_bucket + RING`.
    ring: Vec<Vec<Event>>,
    ring_count: usize,
    /// Events at or beyond `cur_bucket + RING` when pushed.
    far: BinaryHeap<Event>,
    seq: u64,
    len: usize,
    peak: usize,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            cur: BinaryHeap::new(),
            cur_bucket: 0,
            ring: (0..RING).map(|_| Vec::new()).collect(),
            ring_count: 0,
            far: BinaryHeap::new(),
            seq: 0,
            len: 0,
            peak: 0,
        }
    }
}

impl EventQueue {
    /// An empty queue.
    pub fn new() -> EventQueue {
        EventQueue::default()
    }

    /// Schedules an event at `t` ps.
    #[inline]
    pub fn push(&mut self, t: u64, kind: Kind, a: u32, b: u32) {
        self.seq += 1;
        let e = Event {
            t,
            seq: self.seq,
            kind,
            a,
            b,
        };
        let bucket = t >> BUCKET_SHIFT;
        if bucket <= self.cur_bucket {
            self.cur.push(e);
        } else if bucket < self.cur_bucket + RING {
            self.ring[(bucket % RING) as usize].push(e);
            self.ring_count += 1;
        } else {
            self.far.push(e);
        }
        self.len += 1;
        if self.len > self.peak {
            self.peak = self.len;
        }
    }

    /// The earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<Event> {
        loop {
            if let Some(e) = self.cur.pop() {
                self.len -= 1;
                return Some(e);
            }
            if self.ring_count == 0 {
                let t = self.far.peek()?.t;
                self.cur_bucket = (self.cur_bucket + 1).max(t >> BUCKET_SHIFT);
            } else {
                self.cur_bucket += 1;
                let slot = &mut self.ring[(self.cur_bucket % RING) as usize];
                self.ring_count -= slot.len();
                self.cur.extend(slot.drain(..));
            }
            while self
                .far
                .peek()
                .is_some_and(|e| e.t >> BUCKET_SHIFT <= self.cur_bucket)
            {
                if let Some(e) = self.far.pop() {
                    self.cur.push(e);
                }
            }
        }
    }

    /// Events waiting.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing is waiting.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Most events ever waiting at once.
    pub fn peak(&self) -> usize {
        self.peak
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_then_sequence_order() {
        let mut q = EventQueue::new();
        q.push(5, Kind::Timer, 1, 0);
        q.push(3, Kind::Timer, 2, 0);
        q.push(5, Kind::Timer, 3, 0);
        q.push(3, Kind::Timer, 4, 0);
        let order: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|e| e.a).collect();
        assert_eq!(order, [2, 4, 1, 3]);
    }

    #[test]
    fn calendar_matches_a_plain_heap_on_random_schedules() {
        let mut rng = metaroce_proto::harness::rng::Rng::new(3);
        let mut q = EventQueue::new();
        let mut reference = BinaryHeap::new();
        let mut now = 0u64;
        let mut seq = 0u64;
        let mut popped = 0;
        for i in 0..200_000u32 {
            if rng.below(3) != 0 || reference.is_empty() {
                // Mostly near events, some far ones and some at `now` exactly.
                let dt = match rng.below(10) {
                    0 => rng.below(1 << 40),
                    1 => 0,
                    _ => rng.below(20_000_000),
                };
                seq += 1;
                q.push(now + dt, Kind::Arrive, i, 0);
                reference.push(Event {
                    t: now + dt,
                    seq,
                    kind: Kind::Arrive,
                    a: i,
                    b: 0,
                });
            } else {
                let a = q.pop().unwrap();
                let b = reference.pop().unwrap();
                assert_eq!((a.t, a.a), (b.t, b.a));
                now = a.t;
                popped += 1;
            }
            assert_eq!(q.len(), reference.len());
        }
        while let Some(b) = reference.pop() {
            assert_eq!(q.pop().map(|e| (e.t, e.a)), Some((b.t, b.a)));
        }
        assert!(q.pop().is_none() && q.is_empty() && popped > 1000);
    }
}
