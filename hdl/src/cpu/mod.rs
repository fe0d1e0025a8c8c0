//! The control processor that runs the NIC's firmware (`metaroce-firmware`): a PicoRV32 core from its pinned
//! package, its RAM, and its address decoder.

pub mod control_cpu;
pub mod picorv32;
pub mod ram;

use crate::blocks::BlockSpec;

/// The blocks of the control processor.
pub fn blocks() -> Vec<BlockSpec> {
    control_cpu::blocks()
}
