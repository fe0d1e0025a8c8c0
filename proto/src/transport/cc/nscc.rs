//! NSCC-style window control on ECN x queueing delay quadrants (spec section 6.2, MR-CC-7 .. MR-CC-14).
//!
//! Per ACK, with `d = sample - min_rtt` (queueing delay, ns; the previous ACK's `d` when the ACK carried no
//! sample) and `t = target_qdelay_ns`; "low delay" means `d < t`, "high delay" `d >= t`:
//!
//! | ECE | delay | action (all integer, products in u128, divisions truncate) |
//! |---|---|---|
//! | no  | low  | proportional increase: `cwnd += acked * (t - d) / t` (MR-CC-8) |
//! | no  | high | fair increase: `cwnd += mtu * acked / cwnd` (MR-CC-9) |
//! | yes | high | multiplicative decrease, unless one happened less than `srtt` ago: `cwnd -= cwnd * (d - t) / (2 * d)` (MR-CC-10) |
//! | yes | low  | no window change (MR-CC-11); [`CongestionControl::wants_repath`] turns true: recycle the path |
//!
//! After every event `cwnd` is clamped to `[mtu, 2 * BDP]`; it starts at `BDP = max(line_rate * base_rtt / 8e9, mtu)`
//! (MR-CC-7). A trim NACK and a declared loss are ECE with high delay using `d = max(last_d, 2 * t)` (MR-CC-12). A
//! retransmission timeout sets `cwnd = mtu` and counts as the last decrease (MR-CC-13).
//!
//! `srtt` and `min_rtt` follow MR-REL-27 and MR-REL-28 (this module keeps its own copy): the first sample sets
//! `srtt = s`, later ones `srtt += (s - srtt) / 8` (magnitude truncated); `min_rtt` takes a sample that is `<=` it
//! or arrives more than `min_rtt_window_ns` after the current minimum was taken. A sample of 0 counts as none
//! (MR-REL-26 discards it). Before the first sample the once-per-`srtt` rule uses the configured base RTT.
//!
//! Pacing (MR-CC-14): `gap = b * 8e9 / line_rate`, and once `srtt` is known `gap = max(gap, b * srtt / cwnd)`.

use super::{CcParams, CongestionControl, NS_PER_SEC};

/// Which quadrant (or event) an [`Nscc`] evaluated last; for tests, statistics and traces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quadrant {
    /// No ECE, low delay: proportional increase (MR-CC-8).
    ProportionalIncrease,
    /// No ECE, high delay: fair increase (MR-CC-9).
    FairIncrease,
    /// ECE (or trim, or loss) with high delay: multiplicative decrease (MR-CC-10, MR-CC-12). Applies at most once
    /// per `srtt`; this is reported even when the decrease was suppressed by that rule.
    MultiplicativeDecrease,
    /// ECE with low delay: no window change, recycle the path (MR-CC-11, MR-PATH-*).
    Repath,
    /// Retransmission timeout: window back to one `mtu` (MR-CC-13).
    Timeout,
}

/// NSCC sender state. All fields are integers; units are given per field.
#[derive(Clone, Debug)]
pub struct Nscc {
    /// Bytes per full packet (minimum window, fair-increase step), >= 1.
    mtu: u64,
    /// Bandwidth-delay product, bytes (initial window), >= mtu.
    bdp: u64,
    /// Maximum window, bytes (2 * BDP, saturating).
    max_cwnd: u64,
    /// Target queueing delay, ns (>= 1).
    target_ns: u64,
    /// Configured base RTT, ns (stands in for `srtt` in the once-per-srtt rule before the first sample).
    base_rtt_ns: u64,
    /// Line rate, bit/s (>= 1), for the serialization term of the pacing gap.
    line_rate_bps: u64,
    /// min_rtt window, ns.
    min_rtt_window_ns: u64,
    /// Congestion window, bytes, in `[mtu, max_cwnd]`.
    cwnd: u64,
    /// Smoothed RTT, ns; 0 = no sample yet.
    srtt_ns: u64,
    /// Windowed minimum RTT, ns; 0 = no sample yet.
    min_rtt_ns: u64,
    /// Time the current `min_rtt` was taken, ns.
    min_rtt_stamp: u64,
    /// Queueing delay of the last ACK that carried a sample, ns.
    last_d_ns: u64,
    /// Time of the last multiplicative decrease (or timeout), ns.
    last_md: Option<u64>,
    /// Latest `on_ack` was ECE with low delay.
    repath: bool,
    /// Latest quadrant/event that was evaluated.
    last_quadrant: Option<Quadrant>,
}

impl Nscc {
    /// A new controller with `cwnd = BDP` (MR-CC-7).
    pub fn new(p: &CcParams) -> Self {
        let mtu = p.mtu.max(1);
        let bdp = p.bdp_bytes();
        Nscc {
            mtu,
            bdp,
            max_cwnd: bdp.saturating_mul(2),
            target_ns: p.target_qdelay_ns.max(1),
            base_rtt_ns: p.base_rtt_ns.max(1),
            line_rate_bps: p.line_rate_bps.max(1),
            min_rtt_window_ns: p.min_rtt_window_ns,
            cwnd: bdp,
            srtt_ns: 0,
            min_rtt_ns: 0,
            min_rtt_stamp: 0,
            last_d_ns: 0,
            last_md: None,
            repath: false,
            last_quadrant: None,
        }
    }

    /// Bandwidth-delay product in bytes (the initial window).
    pub fn bdp(&self) -> u64 {
        self.bdp
    }

    /// Smallest window, bytes (`mtu`).
    pub fn min_cwnd(&self) -> u64 {
        self.mtu
    }

    /// Largest window, bytes (2 * BDP).
    pub fn max_cwnd(&self) -> u64 {
        self.max_cwnd
    }

    /// Smoothed RTT in ns, once a sample was seen.
    pub fn srtt_ns(&self) -> Option<u64> {
        (self.srtt_ns != 0).then_some(self.srtt_ns)
    }

    /// Windowed minimum RTT in ns, once a sample was seen.
    pub fn min_rtt_ns(&self) -> Option<u64> {
        (self.min_rtt_ns != 0).then_some(self.min_rtt_ns)
    }

    /// Queueing delay (ns) of the last ACK that carried a sample (`last_d`; 0 before any).
    pub fn last_delay_ns(&self) -> u64 {
        self.last_d_ns
    }

    /// The quadrant or event most recently evaluated.
    pub fn last_quadrant(&self) -> Option<Quadrant> {
        self.last_quadrant
    }

    /// Time (ns) of the last applied multiplicative decrease or timeout.
    pub fn last_decrease_ns(&self) -> Option<u64> {
        self.last_md
    }

    /// `srtt` for the once-per-RTT rule: the smoothed RTT, or the base RTT before any sample.
    fn srtt_or_base(&self) -> u64 {
        if self.srtt_ns == 0 {
            self.base_rtt_ns
        } else {
            self.srtt_ns
        }
    }

    /// Feeds one (non-zero) RTT sample: MR-REL-27 smoothing and the MR-REL-28 windowed minimum.
    fn take_sample(&mut self, now: u64, s: u64) {
        if self.srtt_ns == 0 {
            self.srtt_ns = s;
        } else if s >= self.srtt_ns {
            self.srtt_ns += (s - self.srtt_ns) / 8;
        } else {
            self.srtt_ns -= (self.srtt_ns - s) / 8;
        }
        if self.min_rtt_ns == 0
            || s <= self.min_rtt_ns
            || now.saturating_sub(self.min_rtt_stamp) > self.min_rtt_window_ns
        {
            self.min_rtt_ns = s;
            self.min_rtt_stamp = now;
        }
    }

    fn clamp(&mut self) {
        self.cwnd = self.cwnd.clamp(self.mtu, self.max_cwnd);
    }

    /// Multiplicative decrease by `(d - t) / (2d)` unless one happened less than `srtt` ago (MR-CC-10).
    /// Requires `d >= t`.
    fn decrease(&mut self, now: u64, d: u64) {
        self.last_quadrant = Some(Quadrant::MultiplicativeDecrease);
        if let Some(t0) = self.last_md {
            if now.saturating_sub(t0) < self.srtt_or_base() {
                return;
            }
        }
        let excess = d.saturating_sub(self.target_ns) as u128;
        let cut = (self.cwnd as u128 * excess) / (2 * d.max(1) as u128);
        // excess < d, so cut < cwnd / 2: it fits u64 and the subtraction cannot underflow.
        self.cwnd -= cut as u64;
        self.last_md = Some(now);
    }

    /// Trim NACK or loss: ECE with high delay, `d = max(last_d, 2t)` (MR-CC-12).
    fn congestion_signal(&mut self, now: u64) {
        let d = self.last_d_ns.max(self.target_ns.saturating_mul(2));
        self.decrease(now, d);
        self.clamp();
    }
}

impl CongestionControl for Nscc {
    /// One quadrant step per ACK (MR-CC-8 .. MR-CC-11).
    fn on_ack(&mut self, now: u64, acked_bytes: u64, rtt_sample_ns: Option<u64>, ece: bool) {
        let d = match rtt_sample_ns.filter(|&s| s != 0) {
            Some(s) => {
                self.take_sample(now, s);
                self.last_d_ns = s.saturating_sub(self.min_rtt_ns);
                self.last_d_ns
            }
            None => self.last_d_ns,
        };
        let t = self.target_ns;
        self.repath = false;
        if !ece && d < t {
            self.last_quadrant = Some(Quadrant::ProportionalIncrease);
            let inc = acked_bytes as u128 * (t - d) as u128 / t as u128;
            self.cwnd = self
                .cwnd
                .saturating_add(u64::try_from(inc).unwrap_or(u64::MAX));
        } else if !ece {
            self.last_quadrant = Some(Quadrant::FairIncrease);
            let inc = self.mtu as u128 * acked_bytes as u128 / self.cwnd.max(1) as u128;
            self.cwnd = self
                .cwnd
                .saturating_add(u64::try_from(inc).unwrap_or(u64::MAX));
        } else if d >= t {
            self.decrease(now, d);
        } else {
            self.last_quadrant = Some(Quadrant::Repath);
            self.repath = true;
        }
        self.clamp();
    }

    /// MR-CC-12: a trimmed packet counts as ECE with high delay.
    fn on_nack_trim(&mut self, now: u64) {
        self.congestion_signal(now);
    }

    /// MR-CC-12: a declared loss counts as ECE with high delay.
    fn on_loss(&mut self, now: u64) {
        self.congestion_signal(now);
    }

    /// MR-CC-13: `cwnd = mtu`, recorded as the last decrease.
    fn on_timeout(&mut self, now: u64) {
        self.last_quadrant = Some(Quadrant::Timeout);
        self.cwnd = self.mtu;
        self.last_md = Some(now);
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    /// MR-CC-14: `max(b * 8e9 / line_rate, b * srtt / cwnd)` (truncating; the second term once `srtt` is known;
    /// saturates at `u64::MAX`).
    fn pacing_gap_ns(&self, pkt_bytes: u64) -> u64 {
        let b = pkt_bytes as u128;
        let mut gap = b * 8 * NS_PER_SEC as u128 / self.line_rate_bps as u128;
        if self.srtt_ns != 0 {
            gap = gap.max(b * self.srtt_ns as u128 / self.cwnd.max(1) as u128);
        }
        u64::try_from(gap).unwrap_or(u64::MAX)
    }

    fn wants_repath(&self) -> bool {
        self.repath
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> CcParams {
        CcParams {
            mtu: 4096,
            line_rate_bps: 100_000_000_000,
            base_rtt_ns: 10_000,
            target_qdelay_ns: 5_000,
            ..CcParams::default()
        }
    }

    #[test]
    fn mr_cc_7_initial_window_is_bdp() {
        let n = Nscc::new(&params());
        assert_eq!(n.cwnd(), 125_000);
        assert_eq!(n.max_cwnd(), 250_000);
        assert_eq!(n.min_cwnd(), 4096);
        assert_eq!(n.srtt_ns(), None);
        assert_eq!(n.min_rtt_ns(), None);
        // Before any sample only the serialization term: 4096 B at 100 Gb/s = 327.68 ns.
        assert_eq!(n.pacing_gap_ns(4096), 327);
    }

    #[test]
    fn mr_rel_28_min_rtt_is_windowed() {
        let mut n = Nscc::new(&CcParams {
            min_rtt_window_ns: 1_000_000,
            ..params()
        });
        n.on_ack(0, 0, Some(10_000), false);
        n.on_ack(100, 0, Some(20_000), false);
        assert_eq!(n.min_rtt_ns(), Some(10_000));
        // Exactly one window after the minimum was taken it still holds ...
        n.on_ack(1_000_000, 0, Some(30_000), false);
        assert_eq!(n.min_rtt_ns(), Some(10_000));
        // ... and one ns later the next sample replaces it.
        n.on_ack(1_000_001, 0, Some(40_000), false);
        assert_eq!(n.min_rtt_ns(), Some(40_000));
        // An equal or smaller sample refreshes it at any time.
        n.on_ack(1_500_000, 0, Some(40_000), false);
        n.on_ack(2_400_000, 0, Some(45_000), false);
        assert_eq!(n.min_rtt_ns(), Some(40_000));
    }

    #[test]
    fn mr_rel_27_srtt_is_jacobson_integer() {
        let mut n = Nscc::new(&params());
        n.on_ack(0, 0, Some(10_000), false);
        assert_eq!(n.srtt_ns(), Some(10_000));
        n.on_ack(1, 0, Some(18_007), false);
        assert_eq!(n.srtt_ns(), Some(10_000 + 8_007 / 8));
        n.on_ack(2, 0, Some(0), false); // a zero sample is no sample (MR-REL-26)
        assert_eq!(n.srtt_ns(), Some(11_000));
        n.on_ack(3, 0, Some(1), false);
        assert_eq!(n.srtt_ns(), Some(11_000 - (11_000 - 1) / 8));
    }
}
