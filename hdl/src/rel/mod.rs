//! Reliability: ACK, SACK and NACK processing, per-PSN sender state, loss detection, the timer wheel and the
//! EV set.

pub mod ack_proc;
pub mod psn_state;
pub mod records;
pub mod sender_engine;

use crate::blocks::BlockSpec;

/// The blocks of this pipeline.
pub fn blocks() -> Vec<BlockSpec> {
    let mut v = Vec::new();
    v.extend(ack_proc::blocks());
    v.extend(sender_engine::blocks());
    v
}
