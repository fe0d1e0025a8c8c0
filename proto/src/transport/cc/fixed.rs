//! Constant window, no pacing: the "no congestion control" choice (`cc = None`, MR-CC-6).

use super::CongestionControl;

/// A constant congestion window (bytes) and no pacing; every event hook is a no-op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedWindow {
    /// Window, bytes (`u64::MAX` = unlimited: only the peer's receive window bounds the sender).
    window_bytes: u64,
}

impl FixedWindow {
    /// A window of `window_bytes` bytes.
    pub fn new(window_bytes: u64) -> Self {
        FixedWindow { window_bytes }
    }
}

impl CongestionControl for FixedWindow {
    fn cwnd(&self) -> u64 {
        self.window_bytes
    }
}
