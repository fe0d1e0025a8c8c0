//! A one-direction link model on a virtual clock: a line-rate serializer feeding `N` parallel paths of an ECMP
//! fabric, each with its own rate, propagation delay, bounded queue, loss and up/down schedule.
//!
//! The model stands for "NIC egress port -> ECMP fabric -> NIC ingress port":
//! * **Serialization** (line rate): the sender may only start a frame when the previous one has left the wire
//!   ([`Link::ready_at`]); the harness pulls frames from the endpoint only then, like a NIC's transmit engine.
//! * **ECMP** (MR-ENC, MR-PATH): the path is chosen by hashing the frame's 5-tuple (IP addresses, protocol, UDP
//!   ports) with a per-link salt, so a sender that changes the UDP source port (the entropy value) moves to another
//!   path, and a RoCEv2 QP with one fixed source port stays on one path.
//! * **Paths**: each has a propagation delay (different delays make sprayed packets arrive out of order), a
//!   drain rate, a bounded queue with tail drop, an ECN threshold (CE marking like a switch with ECN enabled),
//!   random loss, and a schedule of down/up times (a down path black-holes frames).
//! * **Faults**: random loss, duplication, corruption (one random bit of one random byte flipped; the ICV or
//!   the IPv4 header checksum must catch it), jitter, and trimming (MR-ENC trimming: payload cut, DSCP re-marked
//!   to the trim code point, IP/UDP lengths and the IPv4 checksum fixed, exactly as a trimming switch does).
//!
//! The frame operations (ECMP hash, CE marking, trimming) are the shared switch operations of
//! [`wire::fabric`](crate::wire::fabric), which the fabric simulator uses too.
//!
//! Probabilities are integer parts per million ([`PPM`](super::rng::PPM)); times are `u64` nanoseconds.

use alloc::collections::BinaryHeap;
use alloc::vec::Vec;
use core::cmp::Ordering;

use super::rng::Rng;
use crate::wire::fabric::{ecmp_hash, mark_ce, parse_info, trim_frame, FrameInfo};

/// Ethernet header length without a VLAN tag.
#[cfg(test)]
const ETH_LEN: usize = 14;
/// UDP header length.
#[cfg(test)]
const UDP_LEN: usize = crate::wire::fabric::UDP_LEN;
/// Bytes of Ethernet preamble, SFD, FCS and minimum inter-frame gap counted on the wire for each frame.
pub const WIRE_OVERHEAD_BYTES: u64 = 24;

/// One parallel path of the fabric.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathConfig {
    /// One-way propagation delay (ns), fabric latency included.
    pub delay_ns: u64,
    /// Drain rate of the path's bottleneck queue in bit/s; `0` means "as fast as the line rate".
    pub rate_bps: u64,
    /// Random loss on this path only, in parts per million (added to [`LinkConfig::loss_ppm`]).
    pub loss_ppm: u32,
}

/// A scheduled change of a path's state (link down / up).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkEvent {
    /// Virtual time (ns) at which the change takes effect.
    pub at: u64,
    /// The path index, or `None` for every path (the whole link).
    pub path: Option<usize>,
    /// New state: `true` = up, `false` = down.
    pub up: bool,
}

/// Trimming switch behaviour (MR-ENC trimming).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrimConfig {
    /// UDP payload bytes kept by a trim (clamped to at least the 16-byte MetaRoCE base header). The default
    /// 22 makes a trimmed untagged IPv4 frame 64 bytes long, the specification's trim size (MR-ENC trimming).
    pub keep_udp_payload: usize,
    /// DSCP of trimmed packets (the specification's `dscp_trim`, default 10).
    pub dscp_trim: u8,
    /// Only frames with this UDP destination port are trim-eligible (MetaRoCE's port, default 4792).
    pub udp_port: u16,
    /// Only frames with this DSCP are trim-eligible (the data class, default 26).
    pub dscp_data: u8,
    /// Probability (ppm) that an eligible frame is trimmed at random (a congested hop elsewhere).
    pub random_ppm: u32,
    /// When the path queue would overflow, trim an eligible frame instead of dropping it.
    pub on_overflow: bool,
}

impl Default for TrimConfig {
    fn default() -> Self {
        TrimConfig {
            keep_udp_payload: 22,
            dscp_trim: 10,
            udp_port: 4792,
            dscp_data: 26,
            random_ppm: 0,
            on_overflow: true,
        }
    }
}

/// Configuration of one direction of a link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkConfig {
    /// Line rate of the sender's port, bit/s.
    pub rate_bps: u64,
    /// The parallel paths (at least one; an empty list behaves as one path with zero delay).
    pub paths: Vec<PathConfig>,
    /// Salt of the ECMP hash (different salts = different switches).
    pub ecmp_salt: u64,
    /// Random loss on every path, ppm.
    pub loss_ppm: u32,
    /// Probability (ppm) that a delivered frame is delivered twice.
    pub dup_ppm: u32,
    /// Probability (ppm) that a delivered frame has one bit flipped.
    pub corrupt_ppm: u32,
    /// Extra delay drawn uniformly from `0..=jitter_ns` per frame (reorders within a path too).
    pub jitter_ns: u64,
    /// Trimming, if the fabric trims.
    pub trim: Option<TrimConfig>,
    /// Queue depth (bytes) above which an ECN-capable frame is marked CE; `0` disables marking.
    pub ecn_threshold_bytes: u64,
    /// Queue capacity per path in bytes (tail drop beyond it).
    pub queue_capacity_bytes: u64,
    /// Scheduled down/up changes, in any order.
    pub events: Vec<LinkEvent>,
}

impl LinkConfig {
    /// A clean link: `paths` paths, the first with `base_delay_ns`, each next one `spread_ns` slower, at
    /// `rate_bps`; 1 MiB queues, ECN marking at 100 KiB, no faults.
    pub fn multipath(rate_bps: u64, paths: usize, base_delay_ns: u64, spread_ns: u64) -> Self {
        let n = paths.max(1);
        let paths = (0..n)
            .map(|i| PathConfig {
                delay_ns: base_delay_ns + spread_ns * i as u64,
                rate_bps: 0,
                loss_ppm: 0,
            })
            .collect();
        LinkConfig {
            rate_bps,
            paths,
            ecmp_salt: 0x5EED,
            loss_ppm: 0,
            dup_ppm: 0,
            corrupt_ppm: 0,
            jitter_ns: 0,
            trim: None,
            ecn_threshold_bytes: 100 * 1024,
            queue_capacity_bytes: 1024 * 1024,
            events: Vec::new(),
        }
    }
}

/// Counters of one link direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Frames handed to the link.
    pub sent: u64,
    /// Bytes handed to the link.
    pub sent_bytes: u64,
    /// Frames delivered to the receiver (duplicates included).
    pub delivered: u64,
    /// Bytes delivered.
    pub delivered_bytes: u64,
    /// Frames lost at random.
    pub dropped_random: u64,
    /// Frames dropped because their path was down.
    pub dropped_down: u64,
    /// Frames tail-dropped at a full path queue.
    pub dropped_queue: u64,
    /// Extra copies delivered.
    pub duplicated: u64,
    /// Frames with a flipped bit.
    pub corrupted: u64,
    /// Frames trimmed.
    pub trimmed: u64,
    /// Frames marked CE.
    pub ecn_marked: u64,
    /// Time of the last frame dropped because its path was down (0 if none).
    pub last_down_drop_ns: u64,
}

impl LinkStats {
    /// All drops together.
    pub fn dropped(&self) -> u64 {
        self.dropped_random + self.dropped_down + self.dropped_queue
    }
}

/// A frame in flight.
#[derive(Debug)]
struct InFlight {
    at: u64,
    seq: u64,
    frame: Vec<u8>,
}

impl PartialEq for InFlight {
    fn eq(&self, other: &Self) -> bool {
        self.at == other.at && self.seq == other.seq
    }
}
impl Eq for InFlight {}
impl PartialOrd for InFlight {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for InFlight {
    // Min-heap on (time, sequence): reversed comparison.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .at
            .cmp(&self.at)
            .then_with(|| other.seq.cmp(&self.seq))
    }
}

/// Per-path dynamic state.
#[derive(Clone, Debug)]
struct PathState {
    up: bool,
    /// Time at which the path's queue has drained (its bottleneck is free).
    busy_until: u64,
    sent: u64,
}

/// Trims a whole frame held in a `Vec` (MR-ENC trimming); false (untouched) if it is too short.
fn trim_vec(frame: &mut Vec<u8>, info: &mut FrameInfo, keep: usize, dscp_trim: u8) -> bool {
    let len = frame.len();
    match trim_frame(frame, len, info, keep, dscp_trim) {
        Some(n) => {
            frame.truncate(n);
            true
        }
        None => false,
    }
}

/// One direction of a link. Feed frames with [`Link::send`] when [`Link::ready_at`] has passed; take them out
/// with [`Link::pop_due`] at [`Link::next_delivery`].
#[derive(Debug)]
pub struct Link {
    cfg: LinkConfig,
    rng: Rng,
    paths: Vec<PathState>,
    /// When the sender's port finishes serializing the last frame.
    tx_busy_until: u64,
    heap: BinaryHeap<InFlight>,
    seq: u64,
    next_event: usize,
    events: Vec<LinkEvent>,
    stats: LinkStats,
}

impl Link {
    /// Creates a link direction with its own random stream.
    pub fn new(cfg: LinkConfig, seed: u64) -> Self {
        let n = cfg.paths.len().max(1);
        let mut events = cfg.events.clone();
        events.sort_by_key(|e| e.at);
        Link {
            rng: Rng::new(seed),
            paths: (0..n)
                .map(|_| PathState {
                    up: true,
                    busy_until: 0,
                    sent: 0,
                })
                .collect(),
            tx_busy_until: 0,
            heap: BinaryHeap::new(),
            seq: 0,
            next_event: 0,
            events,
            stats: LinkStats::default(),
            cfg,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &LinkConfig {
        &self.cfg
    }

    /// The configuration, mutably: loss, duplication, corruption, jitter, trimming and ECN knobs take effect
    /// for frames sent afterwards (changing the number of paths has no effect).
    pub fn config_mut(&mut self) -> &mut LinkConfig {
        &mut self.cfg
    }

    /// Counters so far.
    pub fn stats(&self) -> &LinkStats {
        &self.stats
    }

    /// Frames sent per path so far (how evenly the sender sprays).
    pub fn path_counts(&self) -> Vec<u64> {
        self.paths.iter().map(|p| p.sent).collect()
    }

    /// Number of paths.
    pub fn num_paths(&self) -> usize {
        self.paths.len()
    }

    /// The path the ECMP hash picks for `frame` (0 for frames that are not IP/UDP).
    pub fn path_of(&self, frame: &[u8]) -> usize {
        match parse_info(frame) {
            Some(info) => {
                (ecmp_hash(frame, &info, self.cfg.ecmp_salt) % self.paths.len() as u64) as usize
            }
            None => 0,
        }
    }

    /// Earliest time the sender's port can start the next frame.
    pub fn ready_at(&self) -> u64 {
        self.tx_busy_until
    }

    /// Whether a frame can be started at `now`.
    pub fn can_send(&self, now: u64) -> bool {
        now >= self.tx_busy_until
    }

    /// Time of the next scheduled path state change, if any (the harness steps to it so the change is applied
    /// at its exact time).
    pub fn next_link_event(&self) -> Option<u64> {
        self.events.get(self.next_event).map(|e| e.at)
    }

    /// Time of the next delivery, if any frame is in flight.
    pub fn next_delivery(&self) -> Option<u64> {
        self.heap.peek().map(|f| f.at)
    }

    /// Number of frames in flight.
    pub fn in_flight(&self) -> usize {
        self.heap.len()
    }

    /// Whether path `i` is currently up.
    pub fn path_up(&self, i: usize) -> bool {
        self.paths.get(i).is_some_and(|p| p.up)
    }

    fn apply_events(&mut self, now: u64) {
        while let Some(e) = self.events.get(self.next_event).copied() {
            if e.at > now {
                break;
            }
            match e.path {
                Some(i) => {
                    if let Some(p) = self.paths.get_mut(i) {
                        p.up = e.up;
                    }
                }
                None => self.paths.iter_mut().for_each(|p| p.up = e.up),
            }
            self.next_event += 1;
        }
    }

    fn ns_for(bits_bytes: u64, rate_bps: u64) -> u64 {
        if rate_bps == 0 {
            return 0;
        }
        // ceil(bytes * 8 * 1e9 / rate)
        let num = u128::from(bits_bytes) * 8 * 1_000_000_000;
        num.div_ceil(u128::from(rate_bps)) as u64
    }

    /// Puts a frame on the wire at `now` (the caller respects [`Link::ready_at`]; an early frame simply starts
    /// when the port is free). Decides its path and fate.
    pub fn send(&mut self, now: u64, mut frame: Vec<u8>) {
        self.apply_events(now);
        let len = frame.len() as u64;
        self.stats.sent += 1;
        self.stats.sent_bytes += len;
        let start = now.max(self.tx_busy_until);
        let ser = Self::ns_for(len + WIRE_OVERHEAD_BYTES, self.cfg.rate_bps);
        self.tx_busy_until = start + ser;
        let arrive_fabric = start + ser;

        let mut info = parse_info(&frame);
        let npaths = self.paths.len() as u64;
        let pi = info.map_or(0, |i| {
            (ecmp_hash(&frame, &i, self.cfg.ecmp_salt) % npaths) as usize
        });
        self.paths[pi].sent += 1;
        if !self.paths[pi].up {
            self.stats.dropped_down += 1;
            self.stats.last_down_drop_ns = now;
            return;
        }
        let pcfg = self.cfg.paths.get(pi).cloned().unwrap_or(PathConfig {
            delay_ns: 0,
            rate_bps: 0,
            loss_ppm: 0,
        });
        if self
            .rng
            .chance_ppm(self.cfg.loss_ppm.saturating_add(pcfg.loss_ppm))
        {
            self.stats.dropped_random += 1;
            return;
        }
        let trim_cfg = self.cfg.trim;
        let eligible = match (&info, &trim_cfg) {
            (Some(i), Some(t)) => i.udp_dst == t.udp_port && i.dscp == t.dscp_data,
            _ => false,
        };
        let mut trimmed = false;
        if eligible {
            if let (Some(i), Some(t)) = (info.as_mut(), &trim_cfg) {
                if self.rng.chance_ppm(t.random_ppm) {
                    trimmed = trim_vec(&mut frame, i, t.keep_udp_payload, t.dscp_trim);
                }
            }
        }
        // Path queue: the bottleneck drains at the path rate (or the line rate).
        let prate = if pcfg.rate_bps == 0 {
            self.cfg.rate_bps
        } else {
            pcfg.rate_bps
        };
        let p = &mut self.paths[pi];
        let backlog_ns = p.busy_until.saturating_sub(arrive_fabric);
        let queued_bytes = (u128::from(backlog_ns) * u128::from(prate) / 8_000_000_000) as u64;
        let flen = frame.len() as u64;
        if !trimmed && queued_bytes + flen > self.cfg.queue_capacity_bytes {
            let can_trim = eligible && trim_cfg.is_some_and(|t| t.on_overflow);
            let did = match (info.as_mut(), &trim_cfg) {
                (Some(i), Some(t)) if can_trim => {
                    trim_vec(&mut frame, i, t.keep_udp_payload, t.dscp_trim)
                }
                _ => false,
            };
            if !did {
                self.stats.dropped_queue += 1;
                return;
            }
            trimmed = true;
        }
        let leave = if trimmed {
            // Trimmed headers go through a high-priority queue: no queueing behind data.
            arrive_fabric + Self::ns_for(frame.len() as u64 + WIRE_OVERHEAD_BYTES, prate)
        } else {
            let begin = arrive_fabric.max(p.busy_until);
            let done = begin + Self::ns_for(flen + WIRE_OVERHEAD_BYTES, prate);
            p.busy_until = done;
            done
        };
        if trimmed {
            self.stats.trimmed += 1;
        }
        if let Some(i) = info.as_mut() {
            if !trimmed
                && self.cfg.ecn_threshold_bytes > 0
                && queued_bytes > self.cfg.ecn_threshold_bytes
                && mark_ce(&mut frame, i)
            {
                self.stats.ecn_marked += 1;
            }
        }
        if self.rng.chance_ppm(self.cfg.corrupt_ppm) && !frame.is_empty() {
            let byte = self.rng.below(frame.len() as u64) as usize;
            let bit = self.rng.below(8) as u32;
            frame[byte] ^= 1u8 << bit;
            self.stats.corrupted += 1;
        }
        let jitter = self.rng.range_inclusive(0, self.cfg.jitter_ns);
        let at = leave + pcfg.delay_ns + jitter;
        if self.rng.chance_ppm(self.cfg.dup_ppm) {
            let extra = self.rng.range_inclusive(0, self.cfg.jitter_ns.max(1000));
            self.stats.duplicated += 1;
            self.push(at + extra, frame.clone());
        }
        self.push(at, frame);
    }

    fn push(&mut self, at: u64, frame: Vec<u8>) {
        self.seq += 1;
        self.heap.push(InFlight {
            at,
            seq: self.seq,
            frame,
        });
    }

    /// Takes the next frame due at or before `now`.
    pub fn pop_due(&mut self, now: u64) -> Option<Vec<u8>> {
        self.apply_events(now);
        if self.heap.peek()?.at > now {
            return None;
        }
        let f = self.heap.pop()?;
        self.stats.delivered += 1;
        self.stats.delivered_bytes += f.frame.len() as u64;
        Some(f.frame)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn be16(b: &[u8], off: usize) -> Option<u16> {
        let s = b.get(off..off + 2)?;
        Some(u16::from_be_bytes([s[0], s[1]]))
    }

    /// A minimal IPv4/UDP frame with `payload` bytes of UDP payload.
    fn frame(src_port: u16, payload: usize, dscp: u8) -> Vec<u8> {
        let mut f = vec![0u8; ETH_LEN + 20 + UDP_LEN + payload];
        f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
        let ip = ETH_LEN;
        f[ip] = 0x45;
        f[ip + 1] = (dscp << 2) | 0b10;
        let total = (20 + UDP_LEN + payload) as u16;
        f[ip + 2..ip + 4].copy_from_slice(&total.to_be_bytes());
        f[ip + 8] = 64;
        f[ip + 9] = 17;
        f[ip + 12..ip + 16].copy_from_slice(&[10, 0, 0, 1]);
        f[ip + 16..ip + 20].copy_from_slice(&[10, 0, 0, 2]);
        let c = crate::wire::ipv4::checksum(&f[ip..ip + 20]);
        f[ip + 10..ip + 12].copy_from_slice(&c.to_be_bytes());
        let u = ip + 20;
        f[u..u + 2].copy_from_slice(&src_port.to_be_bytes());
        f[u + 2..u + 4].copy_from_slice(&4792u16.to_be_bytes());
        f[u + 4..u + 6].copy_from_slice(&((UDP_LEN + payload) as u16).to_be_bytes());
        for (i, b) in f[u + 8..].iter_mut().enumerate() {
            *b = i as u8;
        }
        f
    }

    fn drain(link: &mut Link) -> Vec<(u64, Vec<u8>)> {
        let mut out = Vec::new();
        while let Some(t) = link.next_delivery() {
            while let Some(f) = link.pop_due(t) {
                out.push((t, f));
            }
        }
        out
    }

    #[test]
    fn serialization_and_delay() {
        let mut l = Link::new(LinkConfig::multipath(100_000_000_000, 1, 1000, 0), 1);
        let f = frame(0xC000, 4096 - 42 - 24 + 24, 26);
        let len = f.len() as u64;
        l.send(0, f);
        let ser = Link::ns_for(len + WIRE_OVERHEAD_BYTES, 100_000_000_000);
        assert_eq!(l.ready_at(), ser);
        let out = drain(&mut l);
        assert_eq!(out.len(), 1);
        // Line rate serializer + same-rate path (store and forward) + 1 us propagation.
        assert_eq!(out[0].0, 2 * ser + 1000);
    }

    #[test]
    fn ecmp_spreads_source_ports_and_pins_one() {
        let l = Link::new(LinkConfig::multipath(100_000_000_000, 8, 1000, 100), 1);
        let mut seen = [0u32; 8];
        for ev in 0..256u16 {
            seen[l.path_of(&frame(0xC000 | ev, 10, 26))] += 1;
        }
        assert!(seen.iter().all(|&c| c > 10), "{seen:?}");
        let p = l.path_of(&frame(0xC123, 10, 26));
        assert_eq!(p, l.path_of(&frame(0xC123, 100, 26)));
    }

    #[test]
    fn spraying_reorders() {
        let mut l = Link::new(LinkConfig::multipath(100_000_000_000, 8, 1000, 2000), 1);
        let mut t = 0;
        for i in 0..64u16 {
            let mut f = frame(0xC000 | i, 64, 26);
            let n = f.len();
            f[n - 1] = i as u8;
            l.send(t, f);
            t = l.ready_at();
        }
        let order: Vec<u8> = drain(&mut l).iter().map(|(_, f)| f[f.len() - 1]).collect();
        assert_eq!(order.len(), 64);
        assert!(
            order.windows(2).any(|w| w[0] > w[1]),
            "no reordering: {order:?}"
        );
    }

    #[test]
    fn loss_rate_roughly_matches() {
        let mut cfg = LinkConfig::multipath(100_000_000_000, 4, 1000, 0);
        cfg.loss_ppm = 100_000;
        let mut l = Link::new(cfg, 3);
        for i in 0..10_000u16 {
            let t = l.ready_at();
            l.send(t, frame(0xC000 | (i & 0x3FFF), 32, 26));
        }
        let lost = l.stats().dropped_random;
        assert!((800..1200).contains(&lost), "lost {lost}");
        assert_eq!(drain(&mut l).len() as u64, 10_000 - lost);
    }

    #[test]
    fn trimming_fixes_lengths_dscp_and_checksum() {
        let mut cfg = LinkConfig::multipath(100_000_000_000, 1, 0, 0);
        cfg.trim = Some(TrimConfig {
            random_ppm: 1_000_000,
            keep_udp_payload: 40,
            ..TrimConfig::default()
        });
        let mut l = Link::new(cfg, 1);
        l.send(0, frame(0xC001, 1000, 26));
        let out = drain(&mut l);
        let f = &out[0].1;
        assert_eq!(f.len(), ETH_LEN + 20 + UDP_LEN + 40);
        let ip = ETH_LEN;
        assert_eq!(f[ip + 1] >> 2, 10, "DSCP re-marked");
        assert_eq!(f[ip + 1] & 3, 0b10, "ECN kept");
        assert_eq!(be16(f, ip + 2), Some((20 + UDP_LEN + 40) as u16));
        assert_eq!(be16(f, ip + 20 + 4), Some((UDP_LEN + 40) as u16));
        assert_eq!(
            crate::wire::ipv4::checksum(&f[ip..ip + 20]),
            0,
            "checksum valid"
        );
        assert_eq!(l.stats().trimmed, 1);
        // Control-class frames are not trimmed.
        l.send(l.ready_at(), frame(0xC001, 1000, 46));
        assert_eq!(drain(&mut l)[0].1.len(), ETH_LEN + 20 + UDP_LEN + 1000);
    }

    #[test]
    fn queue_marks_ecn_then_tail_drops() {
        let mut cfg = LinkConfig::multipath(100_000_000_000, 1, 0, 0);
        cfg.paths[0].rate_bps = 10_000_000_000; // 10x slower than the port: the queue builds
        cfg.ecn_threshold_bytes = 8_000;
        cfg.queue_capacity_bytes = 40_000;
        let mut l = Link::new(cfg, 1);
        for _ in 0..40 {
            let t = l.ready_at();
            l.send(t, frame(0xC001, 2000, 26));
        }
        let s = *l.stats();
        assert!(s.ecn_marked > 0, "{s:?}");
        assert!(s.dropped_queue > 0, "{s:?}");
        let out = drain(&mut l);
        let ce = out.iter().filter(|(_, f)| f[ETH_LEN + 1] & 3 == 3).count() as u64;
        assert_eq!(ce, s.ecn_marked);
        for (_, f) in &out {
            assert_eq!(crate::wire::ipv4::checksum(&f[ETH_LEN..ETH_LEN + 20]), 0);
        }
    }

    #[test]
    fn overflow_trims_instead_of_dropping() {
        let mut cfg = LinkConfig::multipath(100_000_000_000, 1, 0, 0);
        cfg.paths[0].rate_bps = 10_000_000_000;
        cfg.queue_capacity_bytes = 20_000;
        cfg.trim = Some(TrimConfig::default());
        let mut l = Link::new(cfg, 1);
        for _ in 0..40 {
            let t = l.ready_at();
            l.send(t, frame(0xC001, 2000, 26));
        }
        assert_eq!(l.stats().dropped_queue, 0);
        assert!(l.stats().trimmed > 0);
        assert_eq!(drain(&mut l).len(), 40);
    }

    #[test]
    fn link_down_then_up() {
        let mut cfg = LinkConfig::multipath(100_000_000_000, 2, 0, 0);
        cfg.events = vec![
            LinkEvent {
                at: 1000,
                path: None,
                up: false,
            },
            LinkEvent {
                at: 2000,
                path: None,
                up: true,
            },
        ];
        let mut l = Link::new(cfg, 1);
        l.send(0, frame(0xC001, 10, 26));
        l.send(1500, frame(0xC001, 10, 26));
        l.send(2500, frame(0xC001, 10, 26));
        assert_eq!(l.stats().dropped_down, 1);
        assert_eq!(drain(&mut l).len(), 2);
    }

    #[test]
    fn corruption_and_duplication_counted() {
        let mut cfg = LinkConfig::multipath(100_000_000_000, 1, 0, 0);
        cfg.corrupt_ppm = 1_000_000;
        cfg.dup_ppm = 1_000_000;
        let mut l = Link::new(cfg, 1);
        let orig = frame(0xC001, 100, 26);
        l.send(0, orig.clone());
        let out = drain(&mut l);
        assert_eq!(out.len(), 2);
        for (_, f) in &out {
            let diff: u32 = f.iter().zip(&orig).map(|(a, b)| (a ^ b).count_ones()).sum();
            assert_eq!(diff, 1);
        }
    }

    #[test]
    fn garbage_frames_do_not_panic() {
        let mut cfg = LinkConfig::multipath(100_000_000_000, 3, 0, 0);
        cfg.trim = Some(TrimConfig {
            random_ppm: 1_000_000,
            ..TrimConfig::default()
        });
        cfg.corrupt_ppm = 500_000;
        let mut l = Link::new(cfg, 1);
        let mut r = Rng::new(5);
        for n in 0..200usize {
            let mut f = vec![0u8; n];
            r.fill_bytes(&mut f);
            if n > 14 {
                f[12] = 0x08;
                f[13] = 0x00;
            }
            l.send(l.ready_at(), f);
        }
        assert_eq!(drain(&mut l).len(), 200);
    }
}
