//! The tx pipeline.

pub mod frame_build;
pub mod msg_table;
pub mod payload_read;
pub mod queue_mgr;
pub mod read_resp;
pub mod records;
pub mod scheduler;
pub mod segment;
pub mod send_completion;
pub mod sqe_fetch;
pub mod tx_engine;

use crate::blocks::BlockSpec;

/// The blocks of this pipeline.
pub fn blocks() -> Vec<BlockSpec> {
    let mut v = Vec::new();
    v.extend(frame_build::blocks());
    v.extend(tx_engine::blocks());
    v
}
