//! Congestion control (spec section 6, MR-CC-*).
//!
//! Every algorithm implements [`CongestionControl`]: a set of integer-only event hooks (`on_ack`, `on_nack_trim`,
//! `on_loss`, `on_timeout`, `on_cnp`, `on_send`) and three outputs the transport consults before it sends:
//! [`CongestionControl::cwnd`] (bytes that may be in flight), [`CongestionControl::pacing_gap_ns`] (minimum spacing
//! between packet starts) and the timer pair [`CongestionControl::poll_timeout`] /
//! [`CongestionControl::handle_timeout`] (sans-I/O timers, used by DCQCN).
//!
//! All arithmetic is integer (u64 with u128 intermediates where a product could overflow), exactly as the spec
//! writes it, so that a hardware implementation can be compared with this model bit for bit (MR-CC-3).
//! Times are `u64` nanoseconds of the model's clock; byte counts are the unit the transport passes in
//! `acked_bytes` / `on_send` (MetaRoCE counts payload bytes) and must match [`CcParams::mtu`].
//!
//! Algorithms:
//! * [`Nscc`]: window-based, ECN x delay quadrants (section 6.2, MR-CC-7 .. MR-CC-14), for MetaRoCE.
//! * [`Dcqcn`]: rate-based, reacts to CNPs (section 6.5, MR-CC-27 .. MR-CC-29), for the RoCEv2 baseline (and
//!   usable with MetaRoCE, where an ECE-marked ACK stands for a CNP). [`CnpLimiter`] is its receiver-side
//!   (notification point) CNP spacing.
//! * [`FixedWindow`]: no congestion control; a constant window (default unlimited) and no pacing (MR-CC-6).
//!
//! [`Cc`] is an enum over the three that implements the trait by `match`, so the per-packet path needs no
//! dynamic dispatch or allocation.

mod dcqcn;
mod fixed;
mod nscc;

pub use dcqcn::{CnpLimiter, Dcqcn, ALPHA_ONE};
pub use fixed::FixedWindow;
pub use nscc::{Nscc, Quadrant};

/// One second in nanoseconds.
pub const NS_PER_SEC: u64 = 1_000_000_000;

/// The line rate DCQCN's published increase steps refer to (25 Gb/s); [`CcParams::dcqcn_rai_bps`] and
/// [`CcParams::dcqcn_rhai_bps`] are scaled by `line_rate_bps / DCQCN_REFERENCE_RATE_BPS`.
pub const DCQCN_REFERENCE_RATE_BPS: u64 = 25_000_000_000;

/// Congestion-control event hooks and outputs (MR-CC-4).
///
/// Every hook has a no-op default, so an algorithm implements only the events it reacts to. `now` is the model's
/// clock in nanoseconds; the algorithms tolerate a clock that does not advance but assume it never goes back.
pub trait CongestionControl {
    /// An ACK acknowledged `acked_bytes` new bytes. `rtt_sample_ns` is the RTT measured from the echoed
    /// timestamp (ns), `None` when the sample was discarded (MR-REL-26; `Some(0)` is treated the same); `ece` is
    /// the ACK's ECN-echo flag.
    fn on_ack(&mut self, now: u64, acked_bytes: u64, rtt_sample_ns: Option<u64>, ece: bool) {
        let _ = (now, acked_bytes, rtt_sample_ns, ece);
    }
    /// A NACK TRIMMED arrived: a switch cut one of our packets.
    fn on_nack_trim(&mut self, now: u64) {
        let _ = now;
    }
    /// The loss detector declared a packet lost (RACK time or reorder distance, MR-REL-*).
    fn on_loss(&mut self, now: u64) {
        let _ = now;
    }
    /// The retransmission timer expired (MR-REL-*).
    fn on_timeout(&mut self, now: u64) {
        let _ = now;
    }
    /// A congestion notification packet (RoCEv2 CNP, BTH opcode 0x81) arrived for this flow (MR-ROCE-27).
    fn on_cnp(&mut self, now: u64) {
        let _ = now;
    }
    /// `bytes` were put on the wire (DCQCN's byte counter).
    fn on_send(&mut self, now: u64, bytes: u64) {
        let _ = (now, bytes);
    }
    /// Congestion window in bytes: the sender keeps at most this many bytes unacknowledged.
    /// `u64::MAX` for rate-only algorithms.
    fn cwnd(&self) -> u64 {
        u64::MAX
    }
    /// Minimum time in ns between the starts of two DATA packets after one of `pkt_bytes` bytes (the whole frame,
    /// Ethernet header to ICV, MR-CC-2); 0 = no pacing.
    fn pacing_gap_ns(&self, pkt_bytes: u64) -> u64 {
        let _ = pkt_bytes;
        0
    }
    /// The next time (ns) [`CongestionControl::handle_timeout`] must be called, if any.
    fn poll_timeout(&self) -> Option<u64> {
        None
    }
    /// Runs every timer due at or before `now`.
    fn handle_timeout(&mut self, now: u64) {
        let _ = now;
    }
    /// `true` iff the most recent [`CongestionControl::on_ack`] fell in NSCC's "ECE with low delay" quadrant:
    /// the window is left unchanged and the caller should recycle the entropy value (path) the acknowledged
    /// packet used (MR-CC-11, MR-PATH-*). Each `on_ack` overwrites it, so it never goes stale.
    fn wants_repath(&self) -> bool {
        false
    }
}

/// Parameters of all algorithms, with documented units. `CcParams::default()` gives the specification's defaults
/// (anchors for DCQCN) for a 100 Gb/s link with a 10 µs base RTT and 4096-byte packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CcParams {
    /// Bytes per full packet, in the same unit as `acked_bytes` (MetaRoCE: payload bytes). Lower bound of the
    /// NSCC window and the NSCC fair-increase step. Values below 1 are treated as 1.
    pub mtu: u64,
    /// Line rate in bits per second. Values below 1 are treated as 1.
    pub line_rate_bps: u64,
    /// Base (unloaded) round-trip time in ns; with the line rate it defines the BDP. Values below 1 are treated as 1.
    pub base_rtt_ns: u64,
    /// NSCC target queueing delay in ns (default 5 000): the border between "low" (`d < target`) and "high" delay.
    /// Values below 1 are treated as 1.
    pub target_qdelay_ns: u64,
    /// min-RTT window in ns (default 10 ms, `min_rtt_win_ns` of MR-REL-28): a sample replaces `min_rtt` when it
    /// is not larger, or when the current minimum is older than this.
    pub min_rtt_window_ns: u64,
    /// [`FixedWindow`] window in bytes (default `u64::MAX`: no limit beyond the peer's receive window).
    pub fixed_window_bytes: u64,
    /// DCQCN g in Q16 (default 256 = 1/256): the weight of a new observation in alpha.
    pub dcqcn_g_q16: u32,
    /// DCQCN alpha update period in ns (default 55 000): alpha decays by (1-g) every period without a CNP.
    pub dcqcn_alpha_timer_ns: u64,
    /// DCQCN rate-increase timer period in ns (default 55 000).
    pub dcqcn_rate_timer_ns: u64,
    /// DCQCN byte counter in bytes (default 10 MiB): one rate-increase event per this many bytes sent.
    pub dcqcn_byte_counter: u64,
    /// DCQCN fast-recovery stages F (default 5).
    pub dcqcn_fast_recovery: u32,
    /// DCQCN additive-increase step in bit/s at 25 Gb/s (default 5 Mb/s); scaled by line_rate / 25 Gb/s.
    pub dcqcn_rai_bps: u64,
    /// DCQCN hyper-increase step in bit/s at 25 Gb/s (default 50 Mb/s); scaled by line_rate / 25 Gb/s.
    pub dcqcn_rhai_bps: u64,
    /// DCQCN minimum rate in bit/s (default 100 Mb/s; clamped to at most the line rate and at least 1).
    pub dcqcn_min_rate_bps: u64,
    /// Minimum spacing between two CNPs of one QP in ns (default 50 000): the receiver's [`CnpLimiter`]
    /// (MR-CC-28) and the spacing of ECE-triggered reactions in [`Dcqcn`] (MR-CC-29).
    pub cnp_interval_ns: u64,
}

impl Default for CcParams {
    fn default() -> Self {
        CcParams {
            mtu: 4096,
            line_rate_bps: 100_000_000_000,
            base_rtt_ns: 10_000,
            target_qdelay_ns: 5_000,
            min_rtt_window_ns: 10_000_000,
            fixed_window_bytes: u64::MAX,
            dcqcn_g_q16: 256,
            dcqcn_alpha_timer_ns: 55_000,
            dcqcn_rate_timer_ns: 55_000,
            dcqcn_byte_counter: 10 * 1024 * 1024,
            dcqcn_fast_recovery: 5,
            dcqcn_rai_bps: 5_000_000,
            dcqcn_rhai_bps: 50_000_000,
            dcqcn_min_rate_bps: 100_000_000,
            cnp_interval_ns: 50_000,
        }
    }
}

impl CcParams {
    /// Bandwidth-delay product in bytes: `max(line_rate_bps * base_rtt_ns / 8e9, mtu)`, truncating (u128
    /// intermediate: exact for any u64 inputs; saturates at `u64::MAX`).
    pub fn bdp_bytes(&self) -> u64 {
        let rate = self.line_rate_bps.max(1) as u128;
        let rtt = self.base_rtt_ns.max(1) as u128;
        let bdp = rate * rtt / (8 * NS_PER_SEC as u128);
        let bdp = u64::try_from(bdp).unwrap_or(u64::MAX);
        bdp.max(self.mtu.max(1))
    }
}

/// Which algorithm [`Cc::new`] builds. The transport maps its configuration (`CcKind`) onto this.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CcChoice {
    /// [`Nscc`] (MetaRoCE default).
    Nscc,
    /// [`Dcqcn`] (RoCEv2 default).
    Dcqcn,
    /// [`FixedWindow`] with [`CcParams::fixed_window_bytes`] (no congestion control).
    Fixed,
}

/// One congestion controller of any supported kind; dispatches by `match` (no allocation, no vtable).
#[derive(Clone, Debug)]
pub enum Cc {
    /// NSCC window control.
    Nscc(Nscc),
    /// DCQCN rate control.
    Dcqcn(Dcqcn),
    /// Constant window.
    Fixed(FixedWindow),
}

impl Cc {
    /// Builds the controller `kind` from `params`, starting at time 0.
    pub fn new(kind: CcChoice, params: &CcParams) -> Self {
        match kind {
            CcChoice::Nscc => Cc::Nscc(Nscc::new(params)),
            CcChoice::Dcqcn => Cc::Dcqcn(Dcqcn::new(params)),
            CcChoice::Fixed => Cc::Fixed(FixedWindow::new(params.fixed_window_bytes)),
        }
    }

    /// Which kind this is.
    pub fn choice(&self) -> CcChoice {
        match self {
            Cc::Nscc(_) => CcChoice::Nscc,
            Cc::Dcqcn(_) => CcChoice::Dcqcn,
            Cc::Fixed(_) => CcChoice::Fixed,
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            Cc::Nscc($c) => $e,
            Cc::Dcqcn($c) => $e,
            Cc::Fixed($c) => $e,
        }
    };
}

impl CongestionControl for Cc {
    #[inline]
    fn on_ack(&mut self, now: u64, acked_bytes: u64, rtt_sample_ns: Option<u64>, ece: bool) {
        dispatch!(self, c => c.on_ack(now, acked_bytes, rtt_sample_ns, ece))
    }
    #[inline]
    fn on_nack_trim(&mut self, now: u64) {
        dispatch!(self, c => c.on_nack_trim(now))
    }
    #[inline]
    fn on_loss(&mut self, now: u64) {
        dispatch!(self, c => c.on_loss(now))
    }
    #[inline]
    fn on_timeout(&mut self, now: u64) {
        dispatch!(self, c => c.on_timeout(now))
    }
    #[inline]
    fn on_cnp(&mut self, now: u64) {
        dispatch!(self, c => c.on_cnp(now))
    }
    #[inline]
    fn on_send(&mut self, now: u64, bytes: u64) {
        dispatch!(self, c => c.on_send(now, bytes))
    }
    #[inline]
    fn cwnd(&self) -> u64 {
        dispatch!(self, c => c.cwnd())
    }
    #[inline]
    fn pacing_gap_ns(&self, pkt_bytes: u64) -> u64 {
        dispatch!(self, c => c.pacing_gap_ns(pkt_bytes))
    }
    #[inline]
    fn poll_timeout(&self) -> Option<u64> {
        dispatch!(self, c => c.poll_timeout())
    }
    #[inline]
    fn handle_timeout(&mut self, now: u64) {
        dispatch!(self, c => c.handle_timeout(now))
    }
    #[inline]
    fn wants_repath(&self) -> bool {
        dispatch!(self, c => c.wants_repath())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mr_cc_bdp_is_exact_and_does_not_overflow() {
        let p = CcParams {
            line_rate_bps: 100_000_000_000,
            base_rtt_ns: 10_000,
            ..CcParams::default()
        };
        assert_eq!(p.bdp_bytes(), 125_000);
        let big = CcParams {
            line_rate_bps: 800_000_000_000,
            base_rtt_ns: 10_000_000,
            ..CcParams::default()
        };
        assert_eq!(big.bdp_bytes(), 1_000_000_000);
        let huge = CcParams {
            line_rate_bps: u64::MAX,
            base_rtt_ns: u64::MAX,
            ..CcParams::default()
        };
        assert_eq!(huge.bdp_bytes(), u64::MAX);
        let tiny = CcParams {
            line_rate_bps: 1,
            base_rtt_ns: 1,
            mtu: 1000,
            ..CcParams::default()
        };
        assert_eq!(tiny.bdp_bytes(), 1000);
    }

    #[test]
    fn cc_enum_dispatches_to_the_chosen_algorithm() {
        let p = CcParams::default();
        let n = Cc::new(CcChoice::Nscc, &p);
        assert_eq!(n.choice(), CcChoice::Nscc);
        assert_eq!(n.cwnd(), p.bdp_bytes());
        let d = Cc::new(CcChoice::Dcqcn, &p);
        assert_eq!(d.choice(), CcChoice::Dcqcn);
        assert_eq!(d.cwnd(), u64::MAX);
        let f = Cc::new(
            CcChoice::Fixed,
            &CcParams {
                fixed_window_bytes: 12_345,
                ..p
            },
        );
        assert_eq!(f.choice(), CcChoice::Fixed);
        assert_eq!(f.cwnd(), 12_345);
        assert_eq!(f.pacing_gap_ns(4096), 0);
        assert_eq!(f.poll_timeout(), None);
    }

    #[test]
    fn fixed_window_ignores_every_event() {
        let mut f = Cc::new(
            CcChoice::Fixed,
            &CcParams {
                fixed_window_bytes: 65_536,
                ..CcParams::default()
            },
        );
        f.on_ack(1, 4096, Some(1_000_000), true);
        f.on_nack_trim(2);
        f.on_loss(3);
        f.on_timeout(4);
        f.on_cnp(5);
        f.on_send(6, 1 << 30);
        f.handle_timeout(u64::MAX);
        assert_eq!(f.cwnd(), 65_536);
        assert_eq!(f.pacing_gap_ns(9000), 0);
        assert_eq!(f.poll_timeout(), None);
        assert!(!f.wants_repath());
    }

    #[test]
    fn per_flow_state_stays_small() {
        // Regression guard on the per-connection cost of the model's controllers (configuration copies
        // included; measured 120 / 176 / 176 bytes on 64-bit targets).
        assert!(core::mem::size_of::<Nscc>() <= 128);
        assert!(core::mem::size_of::<Dcqcn>() <= 192);
        assert!(core::mem::size_of::<Cc>() <= 192);
    }
}
