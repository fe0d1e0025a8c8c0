//! Reliability: ACK and SACK processing, per-PSN sender state and the sender engine that joins them with
//! congestion control and the gate. Loss detection, the retransmission-timer wheel, NACK processing and the EV
//! set are not in this revision (`docs/hardware.md`, limitations).

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
