//! DCQCN rate control (spec section 6.5, MR-CC-27 .. MR-CC-29), after Zhu et al., "Congestion Control for
//! Large-Scale RDMA Deployments", SIGCOMM 2015, in integer arithmetic.
//!
//! Reaction point (sender), per flow. Rates are bit/s (`u64`), alpha is Q16 (`ALPHA_ONE` = 1.0), g is Q16
//! (default 256 = 1/256); all divisions truncate:
//!
//! * On a CNP: `Rt = Rc; Rc = max(Rc - Rc * alpha / 2^17, min_rate); alpha = alpha * (2^16 - g) / 2^16 + g`
//!   (for g = 1/256 this is the spec's `(alpha * 255 + ALPHA_ONE) / 256`); `T = BC = bytes = 0`; both timers
//!   restart at `now + 55 µs` and the alpha timer's next expiry is marked as "CNP seen".
//! * Alpha timer (every `alpha_timer` ns): if no CNP arrived since the previous expiry,
//!   `alpha = alpha * (2^16 - g) / 2^16`; the mark is cleared.
//! * Rate-increase events, while `Rc < line_rate`: the rate timer (every `rate_timer` ns; `T += 1`) and the byte
//!   counter (every `byte_counter` bytes sent; `BC += 1`). Then:
//!   - fast recovery if `max(T, BC) < F`: `Rt` unchanged;
//!   - hyper increase if `min(T, BC) >= F`: `Rt = min(Rt + R_HAI, line_rate)`;
//!   - additive increase otherwise: `Rt = min(Rt + R_AI, line_rate)`;
//!
//!   and in every case `Rc = (Rt + Rc + 1) / 2`. `R_AI`/`R_HAI` are the configured 25 Gb/s values times
//!   `line_rate / 25 Gb/s` (at least 1 bit/s).
//! * Timers are idle until the first CNP. A timer's next deadline is its previous deadline plus its period, so the
//!   result does not depend on how late `handle_timeout` is called; when both are due at the same instant the
//!   alpha timer runs first. Two shortcuts that do not change any observable value: the alpha timer stops once
//!   alpha is 0 with no CNP pending (its expiries could only recompute 0), and the rate timer stops while
//!   `Rc == line_rate` (its expiries do nothing then); the next CNP restarts both.
//! * In MetaRoCE mode an ACK with ECE set acts as a CNP if no CNP was taken in the previous
//!   `cnp_interval_ns` (MR-CC-29); RoCEv2 ACKs carry no ECE, so this never fires there.
//!
//! The flow is paced at `Rc`: `pacing_gap_ns(b) = b * 8e9 / Rc`. The window is unlimited (`cwnd() == u64::MAX`).
//!
//! Notification point (receiver): [`CnpLimiter`], at most one CNP per `cnp_interval_ns` per QP (MR-CC-28).

use super::{CcParams, CongestionControl, DCQCN_REFERENCE_RATE_BPS, NS_PER_SEC};

/// 1.0 in the Q16 fixed point used for DCQCN's alpha and g.
pub const ALPHA_ONE: u64 = 1 << 16;

/// At most this many timer events are processed per `handle_timeout` call; leftover due timers stay due
/// (`poll_timeout` returns a time in the past) so the caller simply calls again.
const MAX_TIMER_EVENTS_PER_CALL: u32 = 4096;

/// At most this many byte-counter events are processed per `on_send` call (one call would have to report more than
/// 2^16 byte-counter units, 640 GiB at the default, to reach it); further whole units in that call are dropped.
const MAX_BYTE_EVENTS_PER_CALL: u64 = 1 << 16;

/// DCQCN reaction-point state. All integers; units per field.
#[derive(Clone, Debug)]
pub struct Dcqcn {
    /// Line rate, bit/s (>= 1).
    line_rate_bps: u64,
    /// Lowest current rate, bit/s, in [1, line_rate].
    min_rate_bps: u64,
    /// Current rate Rc, bit/s, in [min_rate, line_rate].
    rc_bps: u64,
    /// Target rate Rt, bit/s, in [Rc, line_rate].
    rt_bps: u64,
    /// Alpha, Q16, in [0, ALPHA_ONE].
    alpha_q16: u64,
    /// g, Q16, in [0, ALPHA_ONE].
    g_q16: u64,
    /// Alpha timer period, ns (>= 1).
    alpha_timer_ns: u64,
    /// Rate-increase timer period, ns (>= 1).
    rate_timer_ns: u64,
    /// Byte-counter threshold, bytes (>= 1).
    byte_counter: u64,
    /// Fast-recovery stages F.
    f: u32,
    /// Additive-increase step, bit/s (scaled to the line rate).
    rai_bps: u64,
    /// Hyper-increase step, bit/s (scaled to the line rate).
    rhai_bps: u64,
    /// Minimum spacing between two ECE-triggered CNP reactions, ns (MR-CC-29).
    cnp_interval_ns: u64,
    /// Next alpha timer expiry, ns; None = idle.
    next_alpha: Option<u64>,
    /// Next rate-increase timer expiry, ns; None = idle.
    next_rate: Option<u64>,
    /// A CNP arrived since the last alpha timer expiry.
    cnp_since_alpha: bool,
    /// Time of the last CNP taken (real or ECE-triggered), ns.
    last_cnp: Option<u64>,
    /// Bytes sent since the last byte-counter event (counted while Rc < line rate).
    bytes_since: u64,
    /// Rate-timer events since the last CNP (T).
    t_count: u32,
    /// Byte-counter events since the last CNP (BC).
    bc_count: u32,
    /// CNPs taken (statistics).
    cnps: u64,
}

impl Dcqcn {
    /// A new flow at line rate, alpha = 1.0, timers idle.
    pub fn new(p: &CcParams) -> Self {
        let line = p.line_rate_bps.max(1);
        let scale = |v: u64| -> u64 {
            let s = v as u128 * line as u128 / DCQCN_REFERENCE_RATE_BPS as u128;
            u64::try_from(s).unwrap_or(u64::MAX).max(1)
        };
        Dcqcn {
            line_rate_bps: line,
            min_rate_bps: p.dcqcn_min_rate_bps.clamp(1, line),
            rc_bps: line,
            rt_bps: line,
            alpha_q16: ALPHA_ONE,
            g_q16: u64::from(p.dcqcn_g_q16).min(ALPHA_ONE),
            alpha_timer_ns: p.dcqcn_alpha_timer_ns.max(1),
            rate_timer_ns: p.dcqcn_rate_timer_ns.max(1),
            byte_counter: p.dcqcn_byte_counter.max(1),
            f: p.dcqcn_fast_recovery,
            rai_bps: scale(p.dcqcn_rai_bps),
            rhai_bps: scale(p.dcqcn_rhai_bps),
            cnp_interval_ns: p.cnp_interval_ns,
            next_alpha: None,
            next_rate: None,
            cnp_since_alpha: false,
            last_cnp: None,
            bytes_since: 0,
            t_count: 0,
            bc_count: 0,
            cnps: 0,
        }
    }

    /// Current rate Rc, bit/s.
    pub fn rate_bps(&self) -> u64 {
        self.rc_bps
    }

    /// Target rate Rt, bit/s.
    pub fn target_rate_bps(&self) -> u64 {
        self.rt_bps
    }

    /// Alpha in Q16 ([`ALPHA_ONE`] = 1.0).
    pub fn alpha_q16(&self) -> u64 {
        self.alpha_q16
    }

    /// Additive-increase step after line-rate scaling, bit/s.
    pub fn rai_bps(&self) -> u64 {
        self.rai_bps
    }

    /// Hyper-increase step after line-rate scaling, bit/s.
    pub fn rhai_bps(&self) -> u64 {
        self.rhai_bps
    }

    /// Minimum rate, bit/s.
    pub fn min_rate_bps(&self) -> u64 {
        self.min_rate_bps
    }

    /// Rate-timer (T) and byte-counter (BC) events since the last CNP.
    pub fn stages(&self) -> (u32, u32) {
        (self.t_count, self.bc_count)
    }

    /// CNPs taken so far (including ECE-triggered ones).
    pub fn cnp_count(&self) -> u64 {
        self.cnps
    }

    /// `true` while the rate-increase timer runs (the flow is below line rate).
    pub fn is_limited(&self) -> bool {
        self.next_rate.is_some()
    }

    /// One rate-increase event, after its counter was advanced.
    fn increase(&mut self) {
        let hi = self.t_count.max(self.bc_count);
        let lo = self.t_count.min(self.bc_count);
        if hi < self.f {
            // Fast recovery: Rt unchanged.
        } else if lo >= self.f {
            self.rt_bps = self
                .rt_bps
                .saturating_add(self.rhai_bps)
                .min(self.line_rate_bps);
        } else {
            self.rt_bps = self
                .rt_bps
                .saturating_add(self.rai_bps)
                .min(self.line_rate_bps);
        }
        // (Rt + Rc + 1) / 2 without overflow: rounding up lets Rc reach Rt (and line rate) exactly, so the
        // rate timer stops once the flow is back at line rate.
        let (a, b) = (self.rt_bps, self.rc_bps);
        self.rc_bps = a / 2 + b / 2 + (a % 2 + b % 2).div_ceil(2);
        if self.rc_bps >= self.line_rate_bps {
            self.next_rate = None;
        }
    }

    fn alpha_tick(&mut self, deadline: u64) {
        if !self.cnp_since_alpha {
            self.alpha_q16 = self.alpha_q16 * (ALPHA_ONE - self.g_q16) / ALPHA_ONE;
        }
        self.cnp_since_alpha = false;
        self.next_alpha = if self.alpha_q16 == 0 {
            None
        } else {
            Some(deadline.saturating_add(self.alpha_timer_ns))
        };
    }
}

impl CongestionControl for Dcqcn {
    /// MR-CC-29: in MetaRoCE mode an ECE-marked ACK stands for a CNP, at most once per `cnp_interval_ns`.
    fn on_ack(&mut self, now: u64, _acked_bytes: u64, _rtt_sample_ns: Option<u64>, ece: bool) {
        if ece
            && self
                .last_cnp
                .is_none_or(|t| now.saturating_sub(t) >= self.cnp_interval_ns)
        {
            self.on_cnp(now);
        }
    }

    /// MR-CC-27: rate cut `Rt = Rc; Rc = Rc - Rc * alpha / 2^17`, then `alpha = (1-g) alpha + g`.
    fn on_cnp(&mut self, now: u64) {
        self.cnps = self.cnps.saturating_add(1);
        self.last_cnp = Some(now);
        self.rt_bps = self.rc_bps;
        let cut = (self.rc_bps as u128 * self.alpha_q16 as u128) >> 17;
        // cut <= Rc / 2, fits u64.
        self.rc_bps = (self.rc_bps - cut as u64).max(self.min_rate_bps);
        self.alpha_q16 = self.alpha_q16 * (ALPHA_ONE - self.g_q16) / ALPHA_ONE + self.g_q16;
        self.t_count = 0;
        self.bc_count = 0;
        self.bytes_since = 0;
        self.cnp_since_alpha = true;
        self.next_alpha = Some(now.saturating_add(self.alpha_timer_ns));
        self.next_rate = if self.rc_bps >= self.line_rate_bps {
            None
        } else {
            Some(now.saturating_add(self.rate_timer_ns))
        };
    }

    /// Byte counter: one rate-increase event per `byte_counter` bytes sent while below line rate.
    fn on_send(&mut self, _now: u64, bytes: u64) {
        if self.rc_bps >= self.line_rate_bps {
            return;
        }
        self.bytes_since = self.bytes_since.saturating_add(bytes);
        let events = self.bytes_since / self.byte_counter;
        self.bytes_since %= self.byte_counter;
        for _ in 0..events.min(MAX_BYTE_EVENTS_PER_CALL) {
            self.bc_count = self.bc_count.saturating_add(1);
            self.increase();
        }
    }

    fn cwnd(&self) -> u64 {
        u64::MAX
    }

    /// `pkt_bytes * 8e9 / Rc` (truncating, saturating).
    fn pacing_gap_ns(&self, pkt_bytes: u64) -> u64 {
        let g = pkt_bytes as u128 * 8 * NS_PER_SEC as u128 / self.rc_bps.max(1) as u128;
        u64::try_from(g).unwrap_or(u64::MAX)
    }

    fn poll_timeout(&self) -> Option<u64> {
        match (self.next_alpha, self.next_rate) {
            (Some(a), Some(r)) => Some(a.min(r)),
            (a, r) => a.or(r),
        }
    }

    fn handle_timeout(&mut self, now: u64) {
        for _ in 0..MAX_TIMER_EVENTS_PER_CALL {
            let alpha_due = self.next_alpha.filter(|&t| t <= now);
            let rate_due = self.next_rate.filter(|&t| t <= now);
            match (alpha_due, rate_due) {
                (Some(a), r) if r.is_none_or(|r| a <= r) => self.alpha_tick(a),
                (_, Some(r)) => {
                    self.next_rate = Some(r.saturating_add(self.rate_timer_ns));
                    self.t_count = self.t_count.saturating_add(1);
                    self.increase();
                }
                _ => return,
            }
        }
    }
}

/// Receiver-side (notification point) CNP pacing: at most one CNP per `interval_ns` per QP (MR-CC-28).
/// Keep one per QP; call [`CnpLimiter::try_send`] for every CE-marked packet received.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CnpLimiter {
    /// Minimum spacing between two CNPs, ns.
    interval_ns: u64,
    /// Time of the last CNP sent, ns.
    last: Option<u64>,
}

impl CnpLimiter {
    /// A limiter with the given spacing in ns.
    pub fn new(interval_ns: u64) -> Self {
        CnpLimiter {
            interval_ns,
            last: None,
        }
    }

    /// A limiter with [`CcParams::cnp_interval_ns`].
    pub fn from_params(p: &CcParams) -> Self {
        Self::new(p.cnp_interval_ns)
    }

    /// A CE-marked packet arrived at `now`: returns `true` (and records the time) if a CNP may be sent, i.e.
    /// no CNP was sent yet or the last one is at least `interval_ns` old.
    pub fn try_send(&mut self, now: u64) -> bool {
        match self.last {
            Some(t) if now.saturating_sub(t) < self.interval_ns => false,
            _ => {
                self.last = Some(now);
                true
            }
        }
    }

    /// Time of the last CNP allowed, ns.
    pub fn last_sent(&self) -> Option<u64> {
        self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mr_cc_dcqcn_starts_at_line_rate_without_timers() {
        let d = Dcqcn::new(&CcParams::default());
        assert_eq!(d.rate_bps(), 100_000_000_000);
        assert_eq!(d.alpha_q16(), ALPHA_ONE);
        assert_eq!(d.poll_timeout(), None);
        // 4096 B at line rate (100 Gb/s): 327.68 ns, truncated.
        assert_eq!(d.pacing_gap_ns(4096), 327);
        assert_eq!(d.cwnd(), u64::MAX);
        // 5 Mb/s and 50 Mb/s at 25G scale by 4 at 100G.
        assert_eq!(d.rai_bps(), 20_000_000);
        assert_eq!(d.rhai_bps(), 200_000_000);
    }

    #[test]
    fn mr_cc_dcqcn_first_cut_halves_with_alpha_one() {
        let mut d = Dcqcn::new(&CcParams::default());
        d.on_cnp(1000);
        assert_eq!(d.rate_bps(), 50_000_000_000);
        assert_eq!(d.target_rate_bps(), 100_000_000_000);
        // (1 - 1/256) * 1 + 1/256 = 1.0
        assert_eq!(d.alpha_q16(), ALPHA_ONE);
        assert_eq!(d.poll_timeout(), Some(56_000));
        // 4096 B at 50 Gb/s = 655.36 ns, truncated.
        assert_eq!(d.pacing_gap_ns(4096), 655);
    }

    #[test]
    fn mr_cc_cnp_limiter_spacing() {
        let mut l = CnpLimiter::new(50_000);
        assert!(l.try_send(10));
        assert!(!l.try_send(10));
        assert!(!l.try_send(50_009));
        assert!(l.try_send(50_010));
        assert_eq!(l.last_sent(), Some(50_010));
    }
}
