//! The control-processor block: the host's handle on the RISC-V core that runs the firmware
//! (`metaroce-firmware`). The host loads the firmware image into the processor's RAM through the image window
//! while the processor is held in reset, then lets it run and waits for its boot status:
//!
//! 1. Write `CTRL` with `run = 0` (the processor stops; its RAM keeps its contents), and `SEED` with a
//!    random word from the host's entropy source.
//! 2. Write the image, word by word, at `IMAGE_OFFSET + 4 * i` (word `i` = image bytes `4i..4i+3`,
//!    little-endian); at most `IMAGE_BYTES` bytes. The window is write-only and only writable while the
//!    processor is stopped: writes while it runs are ignored.
//! 3. Write `CTRL` with `run = 1`: the processor starts at address 0, runs its self-test and publishes its
//!    stage in `BOOT` ([`crate::fwbus::BootStatus`]): READY, or FAILED with the check that failed.
//! 4. Commands go through the mailbox ([`crate::mailbox`]).

use crate::block::{type_reg, version, version_reg, BlockLayout, BlockType, NEXT_REG};
use crate::field::{Access, Register};

/// Register offsets of the control-processor block.
pub mod reg {
    /// `CTRL`.
    pub const CTRL: u32 = 0x0C;
    /// `BOOT`.
    pub const BOOT: u32 = 0x10;
    /// `IMAGE_OFFSET`.
    pub const IMAGE_OFFSET: u32 = 0x14;
    /// `IMAGE_BYTES`.
    pub const IMAGE_BYTES: u32 = 0x18;
    /// `SEED`.
    pub const SEED: u32 = 0x1C;
}

/// Fields of the control-processor registers.
pub mod field {
    use crate::field::Field;
    /// `CTRL.run`.
    pub const RUN: Field = Field::new(
        "run",
        0,
        0,
        1,
        "1: the processor runs; 0: held in reset, the image window is writable",
    );
    /// `BOOT.stage`.
    pub const STAGE: Field =
        Field::new("stage", 0, 0, 8, "0 reset, 1 self-test, 2 ready, 3 failed");
    /// `BOOT.check`.
    pub const CHECK: Field = Field::new("check", 0, 8, 8, "the failed self-test check");
    /// `BOOT.version`.
    pub const FW_VERSION: Field =
        Field::new("version", 0, 16, 16, "firmware version, major << 8 | minor");
}

/// Byte offset of the image window in the register space (BAR 0) of the reference design.
pub const IMAGE_WINDOW: u32 = 0x4_0000;

/// Layout version of this block.
pub const VERSION: u32 = version(1, 0);

/// The control-processor block's layout.
pub const BLOCK: BlockLayout = BlockLayout {
    kind: BlockType::Control,
    version: VERSION,
    bytes: 0x100,
    doc: "Control processor: run/stop, boot status and the firmware image window.",
    regs: &[
        type_reg(BlockType::Control),
        version_reg(VERSION),
        NEXT_REG,
        Register::new(
            "CTRL",
            reg::CTRL,
            Access::Rw,
            0,
            "run or stop the processor",
            &[field::RUN],
        ),
        Register::new(
            "BOOT",
            reg::BOOT,
            Access::Ro,
            0,
            "the firmware's boot status (metaroce_regmap::fwbus::BootStatus)",
            &[field::STAGE, field::CHECK, field::FW_VERSION],
        ),
        Register::new(
            "IMAGE_OFFSET",
            reg::IMAGE_OFFSET,
            Access::Ro,
            IMAGE_WINDOW,
            "register-space offset of the image window",
            &[],
        ),
        Register::new(
            "IMAGE_BYTES",
            reg::IMAGE_BYTES,
            Access::Ro,
            crate::fwbus::RAM_BYTES,
            "bytes of the image window (the processor's RAM)",
            &[],
        ),
        Register::new(
            "SEED",
            reg::SEED,
            Access::Rw,
            0,
            "a random word the host writes before starting the processor; the firmware seeds its ISNs, EV-set seeds and CID generations with it (the core's clock alone repeats from one reset to the next)",
            &[],
        ),
    ],
};
