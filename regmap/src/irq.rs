//! The interrupt block. The device raises MSI-X interrupts (the MSI-X table and pending-bit array are where
//! the PCIe MSI-X capability says, not in this block). Each CQ names its vector when it is created
//! ([`crate::command::CreateCq`]); the mailbox-completion and asynchronous-event causes share the vector in
//! `ASYNC_VECTOR`. A CQ interrupts once per `CQ_ARM` doorbell ([`crate::queues`]), after moderation.

use crate::block::{type_reg, version, version_reg, BlockLayout, BlockType, NEXT_REG};
use crate::field::{Access, Field, Register};

/// Register offsets of the interrupt block.
pub mod reg {
    /// `VECTORS`.
    pub const VECTORS: u32 = 0x0C;
    /// `CAUSE`.
    pub const CAUSE: u32 = 0x10;
    /// `CAUSE_ENABLE`.
    pub const CAUSE_ENABLE: u32 = 0x14;
    /// `ASYNC_VECTOR`.
    pub const ASYNC_VECTOR: u32 = 0x18;
    /// `MODERATION`.
    pub const MODERATION: u32 = 0x1C;
}

/// Interrupt causes (bits of `CAUSE` and `CAUSE_ENABLE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cause(pub u32);

impl Cause {
    /// A mailbox command completed.
    pub const MAILBOX_DONE: Cause = Cause(1 << 0);
    /// An asynchronous event is pending (QP or CQ error, CQ overflow).
    pub const ASYNC_EVENT: Cause = Cause(1 << 1);
    /// The device hit an internal error and stopped; a reset is needed.
    pub const FATAL: Cause = Cause(1 << 2);
    /// Every defined cause.
    pub const ALL: Cause = Cause(0x7);

    /// True if every bit of `other` is set.
    pub const fn contains(self, other: Cause) -> bool {
        self.0 & other.0 == other.0
    }
}

const CAUSE_FIELDS: &[Field] = &[
    Field::new("mailbox_done", 0, 0, 1, "a mailbox command completed"),
    Field::new("async_event", 0, 1, 1, "an asynchronous event is pending"),
    Field::new("fatal", 0, 2, 1, "internal error: the device stopped"),
];

/// Fields of the interrupt registers.
pub mod field {
    use crate::field::Field;
    /// `VECTORS.count`.
    pub const COUNT: Field = Field::new("count", 0, 0, 16, "MSI-X vectors");
    /// `ASYNC_VECTOR.vector`.
    pub const VECTOR: Field = Field::new("vector", 0, 0, 16, "vector for the CAUSE interrupts");
    /// `MODERATION.usec`.
    pub const USEC: Field = Field::new(
        "usec",
        0,
        0,
        16,
        "CQ interrupt holdoff after an interrupt, microseconds (default for new CQs)",
    );
    /// `MODERATION.count`.
    pub const CQES: Field = Field::new(
        "count",
        0,
        16,
        16,
        "CQEs that end the holdoff early (0: time only; default for new CQs)",
    );
}

/// Layout version of this block.
pub const VERSION: u32 = version(1, 0);

/// The interrupt block's layout.
pub const BLOCK: BlockLayout = BlockLayout {
    kind: BlockType::Irq,
    version: VERSION,
    bytes: 0x40,
    doc: "Interrupts (MSI-X): cause status and enable for the non-CQ interrupts, and the default moderation.",
    regs: &[
        type_reg(BlockType::Irq),
        version_reg(VERSION),
        NEXT_REG,
        Register::new("VECTORS", reg::VECTORS, Access::Ro, 64, "MSI-X vectors", &[field::COUNT]),
        Register::new("CAUSE", reg::CAUSE, Access::W1c, 0, "pending causes; write 1 to clear", CAUSE_FIELDS),
        Register::new(
            "CAUSE_ENABLE",
            reg::CAUSE_ENABLE,
            Access::Rw,
            0,
            "causes that send the ASYNC_VECTOR interrupt",
            CAUSE_FIELDS,
        ),
        Register::new(
            "ASYNC_VECTOR",
            reg::ASYNC_VECTOR,
            Access::Rw,
            0,
            "vector of the CAUSE interrupts",
            &[field::VECTOR],
        ),
        Register::new(
            "MODERATION",
            reg::MODERATION,
            Access::Rw,
            0,
            "default CQ interrupt moderation",
            &[field::USEC, field::CQES],
        ),
    ],
};
