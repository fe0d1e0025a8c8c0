//! The transmit gate of a MetaRoCE sender: may a DATA packet of a connection leave now? Pure functions of the
//! sender's state, so that the sender ([`super::send`]) and every other implementation's tests (the hardware's
//! gate among them) use one statement of the rules:
//!
//! * a new PSN needs room in the receive window (MR-REL-4), in the congestion window (MR-CC-1) and its pacing
//!   time (MR-CC-2);
//! * a retransmission (MR-REL-43) needs its pacing time and the end of an RNR back-off, and room in the
//!   congestion window unless it is the first retransmission after an RTO expiry (MR-REL-45).

use super::super::Instant;

/// MR-CC-1: a packet fits the congestion window when nothing is in flight or the bytes in flight are below
/// `cwnd` (so one packet may overshoot it).
pub fn cwnd_allows(inflight: u64, cwnd: u64) -> bool {
    inflight == 0 || inflight < cwnd
}

/// MR-CC-2: the connection's pacing time has come (`next_send_at` 0: no pacing).
pub fn paced(now: Instant, next_send_at: Instant) -> bool {
    now >= next_send_at
}

/// A new PSN may be sent: `window_ok` is the receive-window test of MR-REL-4 (outstanding PSNs below the
/// peer's window and the sender's capacity).
pub fn new_allowed(
    window_ok: bool,
    inflight: u64,
    cwnd: u64,
    now: Instant,
    next_send_at: Instant,
) -> bool {
    window_ok && cwnd_allows(inflight, cwnd) && paced(now, next_send_at)
}

/// A declared PSN may be retransmitted: `rto_rtx` marks the first retransmission after an RTO expiry, which
/// the congestion window does not hold back (MR-REL-45); `rnr_until` is the end of an RNR back-off.
pub fn rtx_allowed(
    rto_rtx: bool,
    inflight: u64,
    cwnd: u64,
    now: Instant,
    next_send_at: Instant,
    rnr_until: Instant,
) -> bool {
    now >= rnr_until && paced(now, next_send_at) && (rto_rtx || cwnd_allows(inflight, cwnd))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mr_cc_1_one_packet_may_overshoot_the_window() {
        assert!(cwnd_allows(0, 0));
        assert!(cwnd_allows(4095, 4096));
        assert!(!cwnd_allows(4096, 4096));
    }

    #[test]
    fn mr_rel_45_the_first_retransmission_after_an_rto_ignores_the_window() {
        assert!(!rtx_allowed(false, 10, 5, 100, 0, 0));
        assert!(rtx_allowed(true, 10, 5, 100, 0, 0));
        // Pacing and the RNR back-off still apply.
        assert!(!rtx_allowed(true, 10, 5, 100, 101, 0));
        assert!(!rtx_allowed(true, 10, 5, 100, 0, 101));
        assert!(!new_allowed(true, 0, 5, 100, 101));
        assert!(!new_allowed(false, 0, 5, 100, 0));
        assert!(new_allowed(true, 0, 5, 100, 100));
    }
}
