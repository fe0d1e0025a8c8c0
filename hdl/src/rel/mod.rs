//! Reliability: ACK, SACK and NACK processing over the per-PSN sender state, loss detection, the
//! retransmission-timer wheel, the READ-response timer, the EV set, and the sender engine that joins them with
//! congestion control and the gate (spec sections 4, 5 and 6).

pub mod ack_proc;
pub mod loss_detect;
pub mod path_select;
pub mod psn_state;
pub mod records;
pub mod resp_timer;
pub mod sender_engine;
pub mod timer_wheel;

use crate::blocks::BlockSpec;

/// The blocks of this pipeline.
pub fn blocks() -> Vec<BlockSpec> {
    let mut v = Vec::new();
    v.extend(ack_proc::blocks());
    v.extend(path_select::blocks());
    v.extend(resp_timer::blocks());
    v.extend(sender_engine::blocks());
    v.extend(timer_wheel::blocks());
    v
}
