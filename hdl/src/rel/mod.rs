//! Reliability: ACK, SACK and NACK processing, per-PSN sender state, loss detection, the timer wheel and the
//! EV set.

pub mod records;

use crate::blocks::BlockSpec;

/// The blocks of this pipeline.
pub fn blocks() -> Vec<BlockSpec> {
    Vec::new()
}
