//! The ID block: first in the chain (offset 0), it tells a driver that this is a MetaRoCE device and which
//! build it is. The build stamps `GIT_HASH` and `BUILD_TIME`.

use crate::block::{
    type_reg, version, version_reg, BlockLayout, BlockType, RegisterRead, RegisterWrite, NEXT_REG,
};
use crate::field::{Access, Error, Register};

/// Value of the `MAGIC` register: "MROC" in ASCII.
pub const MAGIC: u32 = 0x4D52_4F43;

/// Register offsets of the ID block.
pub mod reg {
    /// `MAGIC`.
    pub const MAGIC: u32 = 0x0C;
    /// `BOARD`.
    pub const BOARD: u32 = 0x10;
    /// `HW_VERSION`.
    pub const HW_VERSION: u32 = 0x14;
    /// `SPEC_VERSION`.
    pub const SPEC_VERSION: u32 = 0x18;
    /// `GIT_HASH`.
    pub const GIT_HASH: u32 = 0x1C;
    /// `BUILD_TIME`.
    pub const BUILD_TIME: u32 = 0x20;
}

/// Fields of the ID registers.
pub mod field {
    use crate::field::Field;
    /// `BOARD.board`.
    pub const BOARD: Field = Field::new("board", 0, 0, 16, "board id (one per board folder)");
    /// `BOARD.variant`.
    pub const VARIANT: Field = Field::new("variant", 0, 16, 16, "design variant on that board");
    /// `HW_VERSION.patch`.
    pub const HW_PATCH: Field = Field::new("patch", 0, 0, 8, "hardware patch version");
    /// `HW_VERSION.minor`.
    pub const HW_MINOR: Field = Field::new("minor", 0, 8, 8, "hardware minor version");
    /// `HW_VERSION.major`.
    pub const HW_MAJOR: Field = Field::new("major", 0, 16, 8, "hardware major version");
    /// `SPEC_VERSION.minor`.
    pub const SPEC_MINOR: Field =
        Field::new("minor", 0, 0, 16, "MetaRoCE specification minor version");
    /// `SPEC_VERSION.major`.
    pub const SPEC_MAJOR: Field =
        Field::new("major", 0, 16, 16, "MetaRoCE specification major version");
}

/// Layout version of this block.
pub const VERSION: u32 = version(1, 0);

/// The ID block's layout.
pub const BLOCK: BlockLayout = BlockLayout {
    kind: BlockType::Id,
    version: VERSION,
    bytes: 0x40,
    doc: "Identification. Always at offset 0: the start of the discovery walk.",
    regs: &[
        type_reg(BlockType::Id),
        version_reg(VERSION),
        NEXT_REG,
        Register::new(
            "MAGIC",
            reg::MAGIC,
            Access::Ro,
            MAGIC,
            "0x4D524F43 (\"MROC\")",
            &[],
        ),
        Register::new(
            "BOARD",
            reg::BOARD,
            Access::Ro,
            0,
            "board and design variant",
            &[field::BOARD, field::VARIANT],
        ),
        Register::new(
            "HW_VERSION",
            reg::HW_VERSION,
            Access::Ro,
            0,
            "hardware design version",
            &[field::HW_PATCH, field::HW_MINOR, field::HW_MAJOR],
        ),
        Register::new(
            "SPEC_VERSION",
            reg::SPEC_VERSION,
            Access::Ro,
            version(0, 1),
            "protocol specification implemented (0.1)",
            &[field::SPEC_MINOR, field::SPEC_MAJOR],
        ),
        Register::new(
            "GIT_HASH",
            reg::GIT_HASH,
            Access::Ro,
            0,
            "first 32 bits of the source commit of the build",
            &[],
        ),
        Register::new(
            "BUILD_TIME",
            reg::BUILD_TIME,
            Access::Ro,
            0,
            "build time, seconds since 1970-01-01 UTC",
            &[],
        ),
    ],
};

/// The contents of the ID block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdRepr {
    /// Board id.
    pub board: u16,
    /// Design variant.
    pub variant: u16,
    /// Hardware version (major, minor, patch).
    pub hw_version: (u8, u8, u8),
    /// Specification version (major, minor).
    pub spec_version: (u16, u16),
    /// First 32 bits of the source commit.
    pub git_hash: u32,
    /// Build time, Unix seconds.
    pub build_time: u32,
}

fn reserved(r: &Register, word: u32) -> Result<u32, Error> {
    if word & r.reserved_mask() != 0 {
        return Err(Error::Invalid { field: r.name });
    }
    Ok(word)
}

fn reg_of(name: &str) -> &'static Register {
    // The names passed are those of BLOCK; fall back to TYPE (no fields, no reserved bits) otherwise.
    BLOCK.reg(name).unwrap_or(&BLOCK.regs[0])
}

impl IdRepr {
    /// Reads the ID block at `base`. Fails if `MAGIC` is wrong or a reserved bit is set.
    pub fn read(regs: &mut impl RegisterRead, base: u32) -> Result<IdRepr, Error> {
        if regs.read32(base + reg::MAGIC) != MAGIC {
            return Err(Error::Invalid { field: "MAGIC" });
        }
        let board = reserved(reg_of("BOARD"), regs.read32(base + reg::BOARD))?;
        let hw = reserved(reg_of("HW_VERSION"), regs.read32(base + reg::HW_VERSION))?;
        let spec = regs.read32(base + reg::SPEC_VERSION);
        Ok(IdRepr {
            board: field::BOARD.extract(board) as u16,
            variant: field::VARIANT.extract(board) as u16,
            hw_version: (
                field::HW_MAJOR.extract(hw) as u8,
                field::HW_MINOR.extract(hw) as u8,
                field::HW_PATCH.extract(hw) as u8,
            ),
            spec_version: (
                field::SPEC_MAJOR.extract(spec) as u16,
                field::SPEC_MINOR.extract(spec) as u16,
            ),
            git_hash: regs.read32(base + reg::GIT_HASH),
            build_time: regs.read32(base + reg::BUILD_TIME),
        })
    }

    /// Writes the block's registers (magic included, header excluded) at `base`: the reference values a device
    /// model or the HDL ROM holds.
    pub fn write(&self, regs: &mut impl RegisterWrite, base: u32) -> Result<(), Error> {
        let board = field::VARIANT.insert(
            field::BOARD.insert(0, self.board as u32)?,
            self.variant as u32,
        )?;
        let (ma, mi, pa) = self.hw_version;
        let hw = field::HW_MAJOR.insert(
            field::HW_MINOR.insert(field::HW_PATCH.insert(0, pa as u32)?, mi as u32)?,
            ma as u32,
        )?;
        let spec = version(self.spec_version.0, self.spec_version.1);
        regs.write32(base + reg::MAGIC, MAGIC);
        regs.write32(base + reg::BOARD, board);
        regs.write32(base + reg::HW_VERSION, hw);
        regs.write32(base + reg::SPEC_VERSION, spec);
        regs.write32(base + reg::GIT_HASH, self.git_hash);
        regs.write32(base + reg::BUILD_TIME, self.build_time);
        Ok(())
    }
}
