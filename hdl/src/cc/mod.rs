//! The cc pipeline.

pub mod divider;
pub mod gate;
pub mod mul;
pub mod nscc;
pub mod rtt;

use crate::blocks::BlockSpec;

/// The blocks of this pipeline.
pub fn blocks() -> Vec<BlockSpec> {
    let mut v = Vec::new();
    v.extend(divider::blocks());
    v.extend(gate::blocks());
    v.extend(nscc::blocks());
    v.extend(rtt::blocks());
    v
}
