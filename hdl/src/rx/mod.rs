//! The receive pipeline.

pub mod drop;
pub mod records;

use crate::blocks::BlockSpec;

/// The blocks of this pipeline.
pub fn blocks() -> Vec<BlockSpec> {
    Vec::new()
}
