//! Context tables (connections, queue pairs, memory regions) and their programming port.

pub mod ctx_port;
pub mod mr_table;

use crate::blocks::BlockSpec;

/// Table ids of [`CtxWrite::table`](crate::records::CtxWrite) (`metaroce_regmap::ctxport::table`).
pub use metaroce_regmap::ctxport::table;

/// The blocks of this pipeline.
pub fn blocks() -> Vec<BlockSpec> {
    let mut v = Vec::new();
    v.extend(ctx_port::blocks());
    v.extend(mr_table::blocks());
    v
}
