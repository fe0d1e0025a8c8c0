//! Two endpoints joined by two [`Link`] directions on one virtual clock.
//!
//! [`Pair::step`] does all the work due at the current time (deliver frames, fire timers, pull frames from the
//! endpoints while their port is free, collect events) and then advances the clock to the next event: the
//! earliest of both endpoints' [`poll_timeout`](crate::transport::Endpoint::poll_timeout), both links' next
//! delivery, the end of a blocked port's current frame, and the next scheduled link change. Nothing reads a real
//! clock, so a run is a pure function of its inputs and seed; [`Pair::trace_hash`] (FNV-1a over every delivered
//! frame and every event, each with its time) lets a test check that the same seed gives the same run twice.

use alloc::vec::Vec;
use core::fmt::Write as _;

use super::link::{Link, LinkConfig};
use crate::transport::{Endpoint, EndpointConfig, Event, Memory};

/// Which endpoint of a [`Pair`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// Endpoint `a` (transmits on link `ab`).
    A,
    /// Endpoint `b` (transmits on link `ba`).
    B,
}

impl Side {
    /// The other side.
    pub fn peer(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }
}

/// Why [`Pair::step`] did not advance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepOutcome {
    /// Work was done and the clock moved to the next event.
    Advanced,
    /// Nothing is scheduled any more: no frame in flight, no timer armed.
    Idle,
    /// The next event lies beyond the time limit (a hang, or a run that is simply too long).
    TimeLimit,
}

/// 64-bit FNV-1a, usable as a `core::fmt::Write` sink.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fnv(pub u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xCBF2_9CE4_8422_2325)
    }
}

impl Fnv {
    /// Mixes `bytes` in.
    pub fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01B3);
        }
    }

    /// Mixes a `u64` in (little-endian bytes).
    pub fn update_u64(&mut self, v: u64) {
        self.update(&v.to_le_bytes());
    }
}

impl core::fmt::Write for Fnv {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.update(s.as_bytes());
        Ok(())
    }
}

/// Counters of the pair driver itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairStats {
    /// Calls to [`Pair::step`] that advanced the clock.
    pub steps: u64,
    /// Frames delivered to an endpoint.
    pub frames_delivered: u64,
    /// `handle_timeout` calls.
    pub timeouts_fired: u64,
    /// Times an endpoint still reported a timeout at or before `now` right after `handle_timeout` (a timer that
    /// does not move forward; the driver then advances 1 ns so that the run cannot spin).
    pub stuck_timers: u64,
}

/// Per-side state kept by the driver.
#[derive(Debug, Default)]
struct SideState {
    /// The port was busy while the endpoint may still have had frames to send.
    blocked: bool,
    /// Events since the last [`Pair::take_events`].
    events: Vec<(u64, Event)>,
}

/// Two endpoints, two links, one clock.
pub struct Pair<M: Memory> {
    /// Endpoint `a`.
    pub a: Endpoint<M>,
    /// Endpoint `b`.
    pub b: Endpoint<M>,
    /// Link from `a` to `b`.
    pub ab: Link,
    /// Link from `b` to `a`.
    pub ba: Link,
    now: u64,
    time_limit: u64,
    trace: Fnv,
    sa: SideState,
    sb: SideState,
    buf: Vec<u8>,
    stats: PairStats,
    /// Optional tap: every delivered frame with its time and receiving side (e.g. for a pcap writer).
    tap: Option<Vec<(u64, Side, Vec<u8>)>>,
}

/// Bound on the work loop at one instant (defensive: an endpoint that keeps producing work at the same time
/// forever would otherwise hang the test instead of failing it).
const MAX_ROUNDS_PER_INSTANT: usize = 100_000;

impl<M: Memory> Pair<M> {
    /// Builds a pair. `seed` seeds both link directions (independent streams); the endpoints' own seeds are in
    /// their configs.
    pub fn new(
        cfg_a: EndpointConfig,
        mem_a: M,
        cfg_b: EndpointConfig,
        mem_b: M,
        link_ab: LinkConfig,
        link_ba: LinkConfig,
        seed: u64,
    ) -> Self {
        let mut s = seed;
        let sab = super::rng::splitmix64(&mut s);
        let sba = super::rng::splitmix64(&mut s);
        Pair {
            a: Endpoint::new(cfg_a, mem_a),
            b: Endpoint::new(cfg_b, mem_b),
            ab: Link::new(link_ab, sab),
            ba: Link::new(link_ba, sba),
            now: 0,
            time_limit: u64::MAX,
            trace: Fnv::default(),
            sa: SideState::default(),
            sb: SideState::default(),
            buf: Vec::with_capacity(16 * 1024),
            stats: PairStats::default(),
            tap: None,
        }
    }

    /// Current virtual time (ns).
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Sets the time limit: [`Pair::step`] returns [`StepOutcome::TimeLimit`] instead of moving past it.
    pub fn set_time_limit(&mut self, limit_ns: u64) {
        self.time_limit = limit_ns;
    }

    /// The time limit.
    pub fn time_limit(&self) -> u64 {
        self.time_limit
    }

    /// Hash of everything delivered and every event so far, with times.
    pub fn trace_hash(&self) -> u64 {
        self.trace.0
    }

    /// Driver counters.
    pub fn stats(&self) -> &PairStats {
        &self.stats
    }

    /// Starts recording every delivered frame (for a capture).
    pub fn enable_tap(&mut self) {
        self.tap = Some(Vec::new());
    }

    /// Takes the recorded frames.
    pub fn take_tap(&mut self) -> Vec<(u64, Side, Vec<u8>)> {
        self.tap.as_mut().map(core::mem::take).unwrap_or_default()
    }

    /// The endpoint on `side`.
    pub fn endpoint(&self, side: Side) -> &Endpoint<M> {
        match side {
            Side::A => &self.a,
            Side::B => &self.b,
        }
    }

    /// The endpoint on `side`, mutably (to post work requests between steps).
    pub fn endpoint_mut(&mut self, side: Side) -> &mut Endpoint<M> {
        match side {
            Side::A => &mut self.a,
            Side::B => &mut self.b,
        }
    }

    /// Takes the events `side` produced since the last call, each with the time it was seen.
    pub fn take_events(&mut self, side: Side) -> Vec<(u64, Event)> {
        match side {
            Side::A => core::mem::take(&mut self.sa.events),
            Side::B => core::mem::take(&mut self.sb.events),
        }
    }

    fn hash_event(trace: &mut Fnv, now: u64, side: Side, ev: &Event) {
        trace.update_u64(now);
        trace.update(&[side as u8 + 10]);
        let _ = write!(trace, "{ev:?}");
    }

    /// Does everything due at the current instant. Returns true if anything happened.
    fn drive_now(&mut self) -> bool {
        let now = self.now;
        let mut any = false;
        let mut timer_calls_a = 0u32;
        let mut timer_calls_b = 0u32;
        for _ in 0..MAX_ROUNDS_PER_INSTANT {
            let mut busy = false;
            // 1. Deliveries.
            while let Some(f) = self.ab.pop_due(now) {
                self.trace.update_u64(now);
                self.trace.update(&[1]);
                self.trace.update(&f);
                self.b.handle_frame(now, &f);
                self.stats.frames_delivered += 1;
                if let Some(t) = self.tap.as_mut() {
                    t.push((now, Side::B, f));
                }
                busy = true;
            }
            while let Some(f) = self.ba.pop_due(now) {
                self.trace.update_u64(now);
                self.trace.update(&[2]);
                self.trace.update(&f);
                self.a.handle_frame(now, &f);
                self.stats.frames_delivered += 1;
                if let Some(t) = self.tap.as_mut() {
                    t.push((now, Side::A, f));
                }
                busy = true;
            }
            // 2. Timers (each at most a few times per instant: see `stuck_timers`).
            if timer_calls_a < 4 && self.a.poll_timeout().is_some_and(|t| t <= now) {
                self.a.handle_timeout(now);
                self.stats.timeouts_fired += 1;
                timer_calls_a += 1;
                busy = true;
            }
            if timer_calls_b < 4 && self.b.poll_timeout().is_some_and(|t| t <= now) {
                self.b.handle_timeout(now);
                self.stats.timeouts_fired += 1;
                timer_calls_b += 1;
                busy = true;
            }
            // 3. Transmissions while the port is free.
            self.sa.blocked = false;
            while self.ab.can_send(now) {
                if !self.a.poll_transmit(now, &mut self.buf) {
                    break;
                }
                self.ab.send(now, self.buf.clone());
                busy = true;
            }
            if !self.ab.can_send(now) {
                self.sa.blocked = true;
            }
            self.sb.blocked = false;
            while self.ba.can_send(now) {
                if !self.b.poll_transmit(now, &mut self.buf) {
                    break;
                }
                self.ba.send(now, self.buf.clone());
                busy = true;
            }
            if !self.ba.can_send(now) {
                self.sb.blocked = true;
            }
            // 4. Events.
            while let Some(ev) = self.a.poll_event() {
                Self::hash_event(&mut self.trace, now, Side::A, &ev);
                self.sa.events.push((now, ev));
                busy = true;
            }
            while let Some(ev) = self.b.poll_event() {
                Self::hash_event(&mut self.trace, now, Side::B, &ev);
                self.sb.events.push((now, ev));
                busy = true;
            }
            any |= busy;
            if !busy {
                break;
            }
        }
        any
    }

    /// The next time anything is scheduled after the current instant's work, if anything is.
    fn next_event_time(&mut self) -> Option<u64> {
        let now = self.now;
        let mut next: Option<u64> = None;
        let mut consider = |t: Option<u64>| {
            if let Some(t) = t {
                next = Some(next.map_or(t, |n: u64| n.min(t)));
            }
        };
        consider(self.ab.next_delivery());
        consider(self.ba.next_delivery());
        consider(self.ab.next_link_event());
        consider(self.ba.next_link_event());
        if self.sa.blocked {
            consider(Some(self.ab.ready_at()));
        }
        if self.sb.blocked {
            consider(Some(self.ba.ready_at()));
        }
        let mut stuck = 0;
        for t in [self.a.poll_timeout(), self.b.poll_timeout()] {
            match t {
                Some(t) if t <= now => {
                    stuck += 1;
                    consider(Some(now + 1));
                }
                other => consider(other),
            }
        }
        self.stats.stuck_timers += stuck;
        next.map(|t| t.max(now + 1))
    }

    /// Does the work due now, then advances the clock to the next event.
    pub fn step(&mut self) -> StepOutcome {
        self.drive_now();
        match self.next_event_time() {
            None => StepOutcome::Idle,
            Some(t) if t > self.time_limit => StepOutcome::TimeLimit,
            Some(t) => {
                self.now = t;
                self.stats.steps += 1;
                StepOutcome::Advanced
            }
        }
    }

    /// Steps until `done(self)` holds (checked before each step), the pair goes idle, or the time limit is hit.
    /// Returns the last outcome (`Advanced` when `done` became true).
    pub fn run_until(&mut self, mut done: impl FnMut(&mut Self) -> bool) -> StepOutcome {
        loop {
            if done(self) {
                return StepOutcome::Advanced;
            }
            match self.step() {
                StepOutcome::Advanced => {}
                other => return other,
            }
        }
    }

    /// Steps until nothing is scheduled any more (or the time limit).
    pub fn run_to_idle(&mut self) -> StepOutcome {
        self.run_until(|_| false)
    }
}
