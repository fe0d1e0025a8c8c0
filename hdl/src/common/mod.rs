//! Building blocks shared by the pipelines.

pub mod bitscan;
pub mod crc;
pub mod netlist;
pub mod ram;
pub mod reg_slice;
pub mod zext;

use crate::blocks::BlockSpec;
use rust_hdl::prelude::Bits;

/// The shared blocks that are checked on their own.
pub fn blocks() -> Vec<BlockSpec> {
    let mut v = vec![BlockSpec {
        name: "metaroce_sdp_ram",
        area: "common",
        description: "simple dual-port RAM, 16K x 512 bits (a connection-context table)",
        verilog: |_cfg| {
            crate::gen::verilog(
                "metaroce_sdp_ram",
                ram::SdpRam::<Bits<512>, 14>::new(1 << 14),
            )
        },
    }];
    v.extend(bitscan::blocks());
    v.extend(crc::blocks());
    v
}
