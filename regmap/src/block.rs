//! Self-describing register blocks and the discovery walk.
//!
//! The device's register space (BAR 0, a 32-bit AXI-Lite bus inside the FPGA) is a chain of blocks. Every block
//! starts with the same three registers:
//!
//! | offset | register | meaning |
//! |---|---|---|
//! | 0x00 | `TYPE` | what the block is ([`BlockType`]) |
//! | 0x04 | `VERSION` | layout version of the block, `major << 16 \| minor` |
//! | 0x08 | `NEXT` | BAR offset of the next block's header, 0 at the end of the chain |
//!
//! The chain starts at offset 0 with the [`BlockType::Id`] block. A driver walks it ([`walk`]) and finds each block
//! it needs by type ([`Discovered::require`]); it hard-codes no block offset, ignores block types it does not
//! know, and accepts a block whose major version it knows and whose minor version is at least the one it needs
//! (minor versions only add registers at offsets unused before). The walk is bounded: it reports a `NEXT`
//! pointer that is misaligned, points outside the register space, or points back into the chain, instead of
//! looping or reading out of range.

use crate::field::{Access, Field, Register};

/// Reads 32-bit registers by byte offset from the start of the register space.
///
/// Implemented for every `FnMut(u32) -> u32`, so a driver passes a closure over its mapped BAR and a test a
/// closure over an array.
pub trait RegisterRead {
    /// Reads the 32-bit register at byte offset `offset`.
    fn read32(&mut self, offset: u32) -> u32;
}

impl<F: FnMut(u32) -> u32> RegisterRead for F {
    fn read32(&mut self, offset: u32) -> u32 {
        self(offset)
    }
}

/// Writes 32-bit registers by byte offset from the start of the register space.
pub trait RegisterWrite {
    /// Writes `value` to the 32-bit register at byte offset `offset`.
    fn write32(&mut self, offset: u32, value: u32);
}

impl<F: FnMut(u32, u32)> RegisterWrite for F {
    fn write32(&mut self, offset: u32, value: u32) {
        self(offset, value)
    }
}

/// Offset of the `TYPE` register in every block.
pub const TYPE_OFFSET: u32 = 0x00;
/// Offset of the `VERSION` register in every block.
pub const VERSION_OFFSET: u32 = 0x04;
/// Offset of the `NEXT` register in every block.
pub const NEXT_OFFSET: u32 = 0x08;
/// Bytes of the common block header.
pub const HEADER_BYTES: u32 = 12;
/// Most blocks a walk accepts; a longer chain is reported as [`WalkError::TooManyBlocks`].
pub const MAX_BLOCKS: usize = 32;

/// The `TYPE` register of a block of type `kind` (its reset value is the type).
pub const fn type_reg(kind: BlockType) -> Register {
    Register::new(
        "TYPE",
        TYPE_OFFSET,
        Access::Ro,
        kind as u32,
        "block type",
        &[],
    )
}

/// Fields of every block's `VERSION` register.
pub const VERSION_FIELDS: &[Field] = &[
    Field::new(
        "minor",
        0,
        0,
        16,
        "minor version: adds registers, never moves one",
    ),
    Field::new(
        "major",
        0,
        16,
        16,
        "major version: incompatible layout change",
    ),
];

/// The `VERSION` register of a block of layout version `version`.
pub const fn version_reg(version: u32) -> Register {
    Register::new(
        "VERSION",
        VERSION_OFFSET,
        Access::Ro,
        version,
        "block layout version",
        VERSION_FIELDS,
    )
}

/// The `NEXT` register of every block (its value depends on the chain; 0 at the end).
pub const NEXT_REG: Register = Register::new(
    "NEXT",
    NEXT_OFFSET,
    Access::Ro,
    0,
    "register-space offset of the next block header; 0 ends the chain",
    &[],
);

/// Version word `major << 16 | minor`.
pub const fn version(major: u16, minor: u16) -> u32 {
    (major as u32) << 16 | minor as u32
}

macro_rules! block_types {
    ($($(#[doc = $doc:literal])* $name:ident = $val:literal, $text:literal;)*) => {
        /// The block types of this version (value of the `TYPE` register). `0x4D52` ("MR") in the upper half.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u32)]
        pub enum BlockType {
            $($(#[doc = $doc])* $name = $val,)*
        }

        impl BlockType {
            /// Every block type.
            pub const ALL: &'static [BlockType] = &[$(BlockType::$name,)*];

            /// The block type with `TYPE` value `v`, if this version knows it.
            pub const fn from_u32(v: u32) -> Option<BlockType> {
                match v {
                    $($val => Some(BlockType::$name),)*
                    _ => None,
                }
            }

            /// Name used in documents.
            pub const fn name(self) -> &'static str {
                match self {
                    $(BlockType::$name => $text,)*
                }
            }
        }
    };
}

block_types! {
    /// Identification: magic, board, hardware and specification versions, build stamp.
    Id = 0x4D52_0001, "id";
    /// Capabilities and limits: queue, connection and memory-region counts, entry sizes, features.
    Caps = 0x4D52_0002, "caps";
    /// Interrupts: MSI-X vector count, cause status and enable, moderation.
    Irq = 0x4D52_0003, "irq";
    /// Firmware command mailbox.
    Mailbox = 0x4D52_0004, "mailbox";
    /// Statistics counters.
    Counters = 0x4D52_0005, "counters";
    /// Queue doorbells: where the per-QP and per-CQ doorbell pages are.
    Queues = 0x4D52_0006, "queues";
    /// Endpoint addresses and transport parameters.
    Endpoint = 0x4D52_0007, "endpoint";
    /// Control processor: run/stop, boot status, firmware image window.
    Control = 0x4D52_0008, "control";
}

/// The static description of one block type: its registers and current version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockLayout {
    /// Block type.
    pub kind: BlockType,
    /// Version this crate defines.
    pub version: u32,
    /// Bytes the block occupies in the register space (its registers lie below this).
    pub bytes: u32,
    /// What the block is for.
    pub doc: &'static str,
    /// Its registers, header included, in offset order.
    pub regs: &'static [Register],
}

impl BlockLayout {
    /// The register called `name`.
    pub fn reg(&self, name: &str) -> Option<&'static Register> {
        self.regs.iter().find(|r| r.name == name)
    }
}

/// Every block layout, in the order of the default map.
pub fn layouts() -> [&'static BlockLayout; 8] {
    [
        &crate::id::BLOCK,
        &crate::caps::BLOCK,
        &crate::irq::BLOCK,
        &crate::mailbox::BLOCK,
        &crate::counters::BLOCK,
        &crate::queues::BLOCK,
        &crate::endpoint::BLOCK,
        &crate::control::BLOCK,
    ]
}

/// The layout of block type `kind`.
pub fn layout_of(kind: BlockType) -> &'static BlockLayout {
    match kind {
        BlockType::Id => &crate::id::BLOCK,
        BlockType::Caps => &crate::caps::BLOCK,
        BlockType::Irq => &crate::irq::BLOCK,
        BlockType::Mailbox => &crate::mailbox::BLOCK,
        BlockType::Counters => &crate::counters::BLOCK,
        BlockType::Queues => &crate::queues::BLOCK,
        BlockType::Endpoint => &crate::endpoint::BLOCK,
        BlockType::Control => &crate::control::BLOCK,
    }
}

/// Where the reference design places each block (the HDL and the simulator build their register space from
/// this; a driver never relies on it, it walks the chain).
pub const DEFAULT_MAP: [(BlockType, u32); 8] = [
    (BlockType::Id, 0x0000),
    (BlockType::Caps, 0x0100),
    (BlockType::Irq, 0x0200),
    (BlockType::Mailbox, 0x0300),
    (BlockType::Counters, 0x0400),
    (BlockType::Queues, 0x0800),
    (BlockType::Endpoint, 0x0900),
    (BlockType::Control, 0x0A00),
];

/// Where the reference design places blocks of `kind` ([`DEFAULT_MAP`]); `None` for a kind it has not.
pub fn default_base(kind: BlockType) -> Option<u32> {
    DEFAULT_MAP.iter().find(|(k, _)| *k == kind).map(|b| b.1)
}

/// Size of the reference design's register space (BAR 0), doorbell pages included.
pub const DEFAULT_SPACE_BYTES: u32 = 0x8_0000;

/// One block found by the walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockInfo {
    /// Register-space offset of the block header.
    pub base: u32,
    /// Raw `TYPE` value.
    pub type_id: u32,
    /// Raw `VERSION` value.
    pub version: u32,
}

impl BlockInfo {
    /// The block type, if this version knows it.
    pub fn kind(&self) -> Option<BlockType> {
        BlockType::from_u32(self.type_id)
    }

    /// Major version.
    pub fn major(&self) -> u16 {
        (self.version >> 16) as u16
    }

    /// Minor version.
    pub fn minor(&self) -> u16 {
        self.version as u16
    }
}

/// Why a discovery walk or a block look-up failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalkError {
    /// A block header (at `at`, reached from the block at `from`; `from == at == 0` for the first) does not fit in
    /// the register space of `space` bytes.
    OutOfRange {
        /// Offset of the block whose `NEXT` pointed there.
        from: u32,
        /// The offending pointer.
        at: u32,
        /// Size of the register space.
        space: u32,
    },
    /// A `NEXT` pointer is not a multiple of 4.
    Misaligned {
        /// Offset of the block whose `NEXT` pointed there.
        from: u32,
        /// The offending pointer.
        at: u32,
    },
    /// A `NEXT` pointer leads back to a block already visited: the chain has a loop.
    Loop {
        /// Offset of the block whose `NEXT` closes the loop.
        from: u32,
        /// The block it points back to.
        at: u32,
    },
    /// More than [`MAX_BLOCKS`] blocks.
    TooManyBlocks,
    /// The first block is not an ID block (or the space is not a MetaRoCE device).
    NotAnIdBlock {
        /// The `TYPE` value found at offset 0.
        type_id: u32,
    },
    /// A required block type is absent.
    Missing(BlockType),
    /// A block has a major version this crate does not know, or a minor version below the one required.
    Version {
        /// The block.
        kind: BlockType,
        /// Its `VERSION` value.
        found: u32,
        /// The version required.
        required: u32,
    },
}

impl core::fmt::Display for WalkError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            WalkError::OutOfRange { from, at, space } => write!(
                f,
                "block at {from:#x}: NEXT {at:#x} points outside the {space:#x}-byte register space"
            ),
            WalkError::Misaligned { from, at } => {
                write!(f, "block at {from:#x}: NEXT {at:#x} is not 4-byte aligned")
            }
            WalkError::Loop { from, at } => write!(
                f,
                "block at {from:#x}: NEXT {at:#x} points back into the chain (loop)"
            ),
            WalkError::TooManyBlocks => write!(f, "more than {MAX_BLOCKS} blocks in the chain"),
            WalkError::NotAnIdBlock { type_id } => {
                write!(
                    f,
                    "offset 0 holds block type {type_id:#010x}, not the ID block"
                )
            }
            WalkError::Missing(k) => write!(f, "no `{}` block", k.name()),
            WalkError::Version {
                kind,
                found,
                required,
            } => write!(
                f,
                "`{}` block version {found:#x} is not compatible with {required:#x}",
                kind.name()
            ),
        }
    }
}

/// The blocks found by a walk, in chain order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Discovered {
    blocks: [BlockInfo; MAX_BLOCKS],
    len: usize,
}

impl Discovered {
    /// The blocks in chain order.
    pub fn blocks(&self) -> &[BlockInfo] {
        self.blocks.get(..self.len).unwrap_or(&[])
    }

    /// The first block of type `kind`.
    pub fn find(&self, kind: BlockType) -> Option<BlockInfo> {
        self.blocks()
            .iter()
            .copied()
            .find(|b| b.type_id == kind as u32)
    }

    /// The first block of type `kind`, checked to be compatible with version `required` (same major, minor at
    /// least the required one).
    pub fn require(&self, kind: BlockType, required: u32) -> Result<BlockInfo, WalkError> {
        let b = self.find(kind).ok_or(WalkError::Missing(kind))?;
        if b.version >> 16 != required >> 16 || (b.version & 0xFFFF) < (required & 0xFFFF) {
            return Err(WalkError::Version {
                kind,
                found: b.version,
                required,
            });
        }
        Ok(b)
    }

    /// [`Discovered::require`] with the version this crate defines for `kind`.
    pub fn require_current(&self, kind: BlockType) -> Result<BlockInfo, WalkError> {
        self.require(kind, layout_of(kind).version)
    }
}

/// Walks the block chain of a register space of `space` bytes, starting at offset 0.
///
/// Reads only inside `0..space`; never loops. Unknown block types are kept (their `kind()` is `None`).
pub fn walk(regs: &mut impl RegisterRead, space: u32) -> Result<Discovered, WalkError> {
    let empty = BlockInfo {
        base: 0,
        type_id: 0,
        version: 0,
    };
    let mut found = Discovered {
        blocks: [empty; MAX_BLOCKS],
        len: 0,
    };
    let mut at = 0u32;
    let mut from = 0u32;
    loop {
        if !at.is_multiple_of(4) {
            return Err(WalkError::Misaligned { from, at });
        }
        if at.checked_add(HEADER_BYTES).is_none_or(|end| end > space) {
            return Err(WalkError::OutOfRange { from, at, space });
        }
        if found.blocks().iter().any(|b| b.base == at) {
            return Err(WalkError::Loop { from, at });
        }
        let info = BlockInfo {
            base: at,
            type_id: regs.read32(at + TYPE_OFFSET),
            version: regs.read32(at + VERSION_OFFSET),
        };
        if found.len == 0 && info.type_id != BlockType::Id as u32 {
            return Err(WalkError::NotAnIdBlock {
                type_id: info.type_id,
            });
        }
        let slot = found
            .blocks
            .get_mut(found.len)
            .ok_or(WalkError::TooManyBlocks)?;
        *slot = info;
        found.len += 1;
        let next = regs.read32(at + NEXT_OFFSET);
        if next == 0 {
            return Ok(found);
        }
        from = at;
        at = next;
    }
}

/// Writes the headers of a chain of blocks at `bases` (in chain order) through `w`: the reference design's
/// read-only header values, for the HDL register ROM and for simulated devices.
pub fn write_chain(chain: &[(BlockType, u32)], w: &mut impl RegisterWrite) {
    for (i, (kind, base)) in chain.iter().enumerate() {
        let next = chain.get(i + 1).map_or(0, |(_, b)| *b);
        w.write32(base + TYPE_OFFSET, *kind as u32);
        w.write32(base + VERSION_OFFSET, layout_of(*kind).version);
        w.write32(base + NEXT_OFFSET, next);
    }
}
