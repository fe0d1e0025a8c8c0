//! Context tables (connections, queue pairs, memory regions) and their programming port.

pub mod ctx_port;
pub mod mr_table;

use crate::blocks::BlockSpec;

/// Table ids of [`CtxWrite::table`](crate::records::CtxWrite).
pub mod table {
    /// Connection hot state (`metaroce_regmap::context::conn`).
    pub const CONN: u8 = 0;
    /// Queue pair (`metaroce_regmap::context::qp`).
    pub const QP: u8 = 1;
    /// Memory region (`metaroce_regmap::context::mr`).
    pub const MR: u8 = 2;
}

/// The blocks of this pipeline.
pub fn blocks() -> Vec<BlockSpec> {
    let mut v = Vec::new();
    v.extend(ctx_port::blocks());
    v.extend(mr_table::blocks());
    v
}
