//! Integer RTT estimation and retransmission timeout (MR-REL-26..31).
//!
//! Jacobson/Karels with integer arithmetic: `srtt += (s - srtt)/8`, `rttvar += (|s - srtt| - rttvar)/4`;
//! `RTO = clamp(srtt + 4*rttvar, rto_min, rto_max)`, `rto_init` before the first sample, doubled per consecutive
//! timeout (capped at `rto_max`). `min_rtt` is the minimum over a sliding time window.

use super::Instant;

/// RTT estimator and RTO computation.
#[derive(Debug, Clone)]
pub struct RttEstimator {
    srtt: u64,
    rttvar: u64,
    latest: u64,
    has_sample: bool,
    min_rtt: u64,
    min_stamp: Instant,
    min_window_ns: u64,
    rto_min: u64,
    rto_init: u64,
    rto_max: u64,
    backoff: u32,
    /// `rto()` cached: recomputed on every sample and timeout (the per-packet path only reads it).
    rto: u64,
}

impl RttEstimator {
    /// A fresh estimator with the given RTO bounds and min-RTT window.
    pub fn new(rto_min: u64, rto_init: u64, rto_max: u64, min_window_ns: u64) -> Self {
        RttEstimator {
            srtt: 0,
            rttvar: 0,
            latest: 0,
            has_sample: false,
            min_rtt: u64::MAX,
            min_stamp: 0,
            min_window_ns,
            rto_min,
            rto_init,
            rto_max: rto_max.max(rto_min),
            backoff: 0,
            rto: 0,
        }
        .recomputed()
    }

    fn recomputed(mut self) -> Self {
        self.recompute();
        self
    }

    #[inline]
    fn recompute(&mut self) {
        let b = self.base_rto();
        self.rto = b
            .checked_shl(self.backoff)
            .filter(|v| v >> self.backoff == b)
            .unwrap_or(u64::MAX)
            .min(self.rto_max);
    }

    /// Feeds one sample (ns) taken at `now`. Clears the timeout backoff.
    #[inline]
    pub fn on_sample(&mut self, now: Instant, sample: u64) {
        self.latest = sample;
        if !self.has_sample {
            self.srtt = sample;
            self.rttvar = sample / 2;
            self.has_sample = true;
        } else {
            let srtt = self.srtt as i64;
            let e = sample as i64 - srtt;
            self.srtt = (srtt + e / 8).max(0) as u64;
            let var = self.rttvar as i64;
            self.rttvar = (var + (e.abs() - var) / 4).max(0) as u64;
        }
        if sample <= self.min_rtt || now.saturating_sub(self.min_stamp) > self.min_window_ns {
            self.min_rtt = sample;
            self.min_stamp = now;
        }
        self.backoff = 0;
        self.recompute();
    }

    /// Smoothed RTT (0 before any sample).
    #[inline]
    pub fn srtt(&self) -> u64 {
        self.srtt
    }

    /// RTT variation.
    #[inline]
    pub fn rttvar(&self) -> u64 {
        self.rttvar
    }

    /// Latest sample.
    #[inline]
    pub fn latest(&self) -> u64 {
        self.latest
    }

    /// Windowed minimum RTT (`u64::MAX` before any sample).
    #[inline]
    pub fn min_rtt(&self) -> u64 {
        self.min_rtt
    }

    /// True once a sample was taken.
    #[inline]
    pub fn has_sample(&self) -> bool {
        self.has_sample
    }

    /// The base RTO without backoff.
    #[inline]
    pub fn base_rto(&self) -> u64 {
        if !self.has_sample {
            return self.rto_init.clamp(self.rto_min, self.rto_max);
        }
        (self.srtt + 4 * self.rttvar).clamp(self.rto_min, self.rto_max)
    }

    /// The RTO including the exponential backoff, capped at `rto_max`.
    #[inline]
    pub fn rto(&self) -> u64 {
        self.rto
    }

    /// Doubles the RTO (one more consecutive timeout).
    pub fn on_timeout(&mut self) {
        self.backoff = (self.backoff + 1).min(32);
        self.recompute();
    }

    /// Consecutive timeouts since the last sample.
    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// RACK reordering window: `max(srtt/4, 2*rttvar, 1 µs)` (MR-REL-36), before the reordering multiplier
    /// (MR-REL-59).
    #[inline]
    pub fn reo_wnd(&self) -> u64 {
        (self.srtt / 4).max(2 * self.rttvar).max(1_000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mr_rel_27_jacobson_integer() {
        let mut r = RttEstimator::new(20_000, 200_000, 64_000_000, 1_000_000);
        assert_eq!(r.rto(), 200_000);
        r.on_sample(0, 10_000);
        assert_eq!((r.srtt(), r.rttvar()), (10_000, 5_000));
        assert_eq!(r.rto(), 30_000);
        r.on_sample(1, 18_000);
        // e = 8000: srtt = 10000 + 1000; rttvar = 5000 + (8000-5000)/4 = 5750
        assert_eq!((r.srtt(), r.rttvar()), (11_000, 5_750));
        assert_eq!(r.rto(), 11_000 + 23_000);
        r.on_sample(2, 3_000);
        // e = -8000: srtt = 10000; rttvar = 5750 + (8000-5750)/4 = 6312
        assert_eq!((r.srtt(), r.rttvar()), (10_000, 6_312));
        assert_eq!(r.min_rtt(), 3_000);
        // MR-REL-36: reo_wnd = max(srtt/4, 2*rttvar, 1 us) = max(2500, 12624, 1000).
        assert_eq!(r.reo_wnd(), 12_624);
        let mut steady = RttEstimator::new(20_000, 200_000, 64_000_000, 1_000_000);
        for t in 0..64 {
            steady.on_sample(t, 10_000);
        }
        // A steady RTT drives rttvar to 0 and leaves srtt/4.
        assert_eq!(steady.reo_wnd(), 2_500);
    }

    #[test]
    fn mr_rel_29_30_rto_clamp_and_backoff() {
        let mut r = RttEstimator::new(20_000, 200_000, 1_000_000, 1_000);
        r.on_sample(0, 1_000);
        assert_eq!(r.rto(), 20_000); // clamped up to rto_min
        r.on_timeout();
        assert_eq!(r.rto(), 40_000);
        for _ in 0..10 {
            r.on_timeout();
        }
        assert_eq!(r.rto(), 1_000_000); // capped
        for _ in 0..40 {
            r.on_timeout();
        }
        assert_eq!(r.rto(), 1_000_000);
        r.on_sample(10, 1_000);
        assert_eq!(r.rto(), 20_000); // sample resets backoff
                                     // Windowed min: an old minimum expires.
        r.on_sample(5_000, 4_000);
        assert_eq!(r.min_rtt(), 4_000);
    }
}
