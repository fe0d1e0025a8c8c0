//! The receive pipeline.

pub mod ack_gen;
pub mod ack_timer;
pub mod completion;
pub mod conn_lookup;
pub mod cq_writer;
pub mod drop;
pub mod mr_check;
pub mod parse_meta;
pub mod parser;
pub mod placement;
pub mod psn_window;
pub mod read_table;
pub mod records;
pub mod recv_queue;
pub mod rx_engine;

use crate::blocks::BlockSpec;

/// The blocks of this pipeline.
pub fn blocks() -> Vec<BlockSpec> {
    let mut v = Vec::new();
    v.extend(parser::blocks());
    v.extend(conn_lookup::blocks());
    v.extend(mr_check::blocks());
    v.extend(psn_window::blocks());
    v.extend(ack_gen::blocks());
    v.extend(ack_timer::blocks());
    v.extend(rx_engine::blocks());
    v.extend(placement::blocks());
    v.extend(recv_queue::blocks());
    v.extend(read_table::blocks());
    v.extend(completion::blocks());
    v.extend(cq_writer::blocks());
    v
}
