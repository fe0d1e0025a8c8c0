//! Queues: ring semantics, doorbell pages and the queues block that locates them.
//!
//! # Rings
//!
//! Send queues (SQ), receive queues (RQ) and completion queues (CQ) are rings of fixed-size entries in host
//! memory: `2^log_size` entries (`1 <= log_size <= 15`), base address 4 KiB aligned. Each ring has a producer
//! index `pi` and a consumer index `ci`, both **free-running 16-bit counters** (they count entries, wrapping
//! at 2^16, and are never reduced modulo the ring size); entry `i` lives in slot `i & (size - 1)`. The ring
//! holds `pi - ci` (wrapping) entries: 0 is empty, `size` is full, and more than `size` is a bad index
//! ([`Ring::occupancy`] rejects it).
//!
//! * **SQ and RQ** — the host produces, the device consumes. The host writes entries at `pi`, advances `pi`,
//!   then rings the queue's doorbell with the new `pi` ([`Doorbell::Sq`], [`Doorbell::Rq`]). The device reads entries up to the
//!   doorbell's `pi` and reports consumption through completions: each CQE carries the `wqe_index` of the entry it
//!   completes, so the host frees SQ/RQ slots up to it.
//! * **CQ** — the device produces, the host consumes. The device writes a CQE whose `phase` bit is
//!   [`Ring::phase`] of the entry's index: 1 on the first pass over the ring, 0 on the second, and so on
//!   alternating. The ring starts zeroed, so a slot whose `phase` differs from the value expected for the host's
//!   `ci` has not been written yet. The host reads `phase` first, then (after an acquire fence) the rest of the
//!   CQE, advances `ci`, and returns slots to the device with a `CQ_CI` doorbell; it writes `CQ_ARM` to request one
//!   interrupt for the next CQE written at or after the armed index. A device never overwrites a slot the host
//!   has not returned: a CQ that would overflow moves the CQ to an error state and raises the async-event cause.
//!
//! # Doorbell write ordering
//!
//! A doorbell is a single 32-bit posted write. The host MUST make every entry it produced visible before the
//! doorbell that publishes it: a release fence (a store barrier ordering normal memory writes before the
//! device write) between the last entry write and the doorbell write. Doorbells of one queue carry absolute
//! indices, not increments, so a coalesced or repeated doorbell is harmless; the device takes the latest value.
//! The device writes a CQE (one DMA write, `phase` in the last byte) only after the data it reports has been
//! written to host memory, and sends the MSI-X message after the CQE.

use crate::block::{
    type_reg, version, version_reg, BlockLayout, BlockType, RegisterRead, NEXT_REG,
};
use crate::caps::{MAX_RING_LOG, MIN_RING_LOG};
use crate::field::{Access, Error, Layout, Register};

/// Alignment required of every ring's base address.
pub const RING_ALIGN: u64 = 4096;

/// A ring's geometry and its index arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ring {
    log_size: u8,
}

impl Ring {
    /// A ring of `2^log_size` entries; `log_size` must be in 1..=15.
    pub fn new(log_size: u8) -> Result<Ring, Error> {
        if !(MIN_RING_LOG..=MAX_RING_LOG).contains(&log_size) {
            return Err(Error::Invalid { field: "log_size" });
        }
        Ok(Ring { log_size })
    }

    /// log2 of the number of entries.
    pub fn log_size(&self) -> u8 {
        self.log_size
    }

    /// Number of entries.
    pub fn size(&self) -> u16 {
        1 << self.log_size
    }

    /// Slot of entry index `idx`.
    pub fn slot(&self, idx: u16) -> u16 {
        idx & (self.size() - 1)
    }

    /// Entries between consumer `ci` and producer `pi`; an error if more than the ring holds (a bad doorbell).
    pub fn occupancy(&self, pi: u16, ci: u16) -> Result<u16, Error> {
        let n = pi.wrapping_sub(ci);
        if n > self.size() {
            return Err(Error::Invalid { field: "pi" });
        }
        Ok(n)
    }

    /// Free entries, or an error as for [`Ring::occupancy`].
    pub fn free(&self, pi: u16, ci: u16) -> Result<u16, Error> {
        Ok(self.size() - self.occupancy(pi, ci)?)
    }

    /// The CQE `phase` value of entry index `idx`: 1 on even passes over the ring (the first is pass 0),
    /// 0 on odd ones.
    pub fn phase(&self, idx: u16) -> u8 {
        (((idx >> self.log_size) & 1) ^ 1) as u8
    }
}

/// Register offsets of the queues block.
pub mod reg {
    /// `QP_DB_BASE`.
    pub const QP_DB_BASE: u32 = 0x0C;
    /// `QP_DB_STRIDE`.
    pub const QP_DB_STRIDE: u32 = 0x10;
    /// `QP_DB_COUNT`.
    pub const QP_DB_COUNT: u32 = 0x14;
    /// `CQ_DB_BASE`.
    pub const CQ_DB_BASE: u32 = 0x18;
    /// `CQ_DB_STRIDE`.
    pub const CQ_DB_STRIDE: u32 = 0x1C;
    /// `CQ_DB_COUNT`.
    pub const CQ_DB_COUNT: u32 = 0x20;
}

/// The reference design's QP doorbell array offset.
pub const DEFAULT_QP_DB_BASE: u32 = 0x1_0000;
/// The reference design's CQ doorbell array offset.
pub const DEFAULT_CQ_DB_BASE: u32 = 0x3_0000;
/// The reference design's doorbell page stride (bytes).
pub const DEFAULT_DB_STRIDE: u32 = 8;

/// Layout version of this block.
pub const VERSION: u32 = version(1, 0);

/// The queues block's layout.
pub const BLOCK: BlockLayout = BlockLayout {
    kind: BlockType::Queues,
    version: VERSION,
    bytes: 0x40,
    doc: "Queue doorbells: where the doorbell pages of QPs and CQs are. Doorbell page n belongs to QP (CQ) \
          number n and is at BASE + n * STRIDE.",
    regs: &[
        type_reg(BlockType::Queues),
        version_reg(VERSION),
        NEXT_REG,
        Register::new(
            "QP_DB_BASE",
            reg::QP_DB_BASE,
            Access::Ro,
            DEFAULT_QP_DB_BASE,
            "register-space offset of QP doorbell page 0",
            &[],
        ),
        Register::new(
            "QP_DB_STRIDE",
            reg::QP_DB_STRIDE,
            Access::Ro,
            DEFAULT_DB_STRIDE,
            "bytes between QP doorbell pages (a multiple of 8)",
            &[],
        ),
        Register::new(
            "QP_DB_COUNT",
            reg::QP_DB_COUNT,
            Access::Ro,
            16384,
            "QP doorbell pages (= MAX_QPS)",
            &[],
        ),
        Register::new(
            "CQ_DB_BASE",
            reg::CQ_DB_BASE,
            Access::Ro,
            DEFAULT_CQ_DB_BASE,
            "register-space offset of CQ doorbell page 0",
            &[],
        ),
        Register::new(
            "CQ_DB_STRIDE",
            reg::CQ_DB_STRIDE,
            Access::Ro,
            DEFAULT_DB_STRIDE,
            "bytes between CQ doorbell pages (a multiple of 8)",
            &[],
        ),
        Register::new(
            "CQ_DB_COUNT",
            reg::CQ_DB_COUNT,
            Access::Ro,
            16384,
            "CQ doorbell pages (= MAX_CQS)",
            &[],
        ),
    ],
};

/// Fields of the doorbell registers.
pub mod field {
    use crate::field::Field;
    /// `SQ_PI.pi` / `RQ_PI.pi`.
    pub const PI: Field = Field::new("pi", 0, 0, 16, "new producer index (free-running)");
    /// `CQ_CI.ci`.
    pub const CI: Field = Field::new("ci", 0, 0, 16, "new consumer index (free-running)");
    /// `CQ_ARM.ci`.
    pub const ARM_CI: Field = Field::new(
        "ci",
        0,
        0,
        16,
        "interrupt for the first CQE at or after this index",
    );
    /// `CQ_ARM.solicited`.
    pub const ARM_SOLICITED: Field = Field::new(
        "solicited",
        0,
        16,
        1,
        "only a CQE with the solicited flag (or an error status) interrupts",
    );
}

/// Offsets within a doorbell page.
pub mod page {
    /// QP page: `SQ_PI`.
    pub const SQ_PI: u32 = 0x0;
    /// QP page: `RQ_PI`.
    pub const RQ_PI: u32 = 0x4;
    /// CQ page: `CQ_CI`.
    pub const CQ_CI: u32 = 0x0;
    /// CQ page: `CQ_ARM`.
    pub const CQ_ARM: u32 = 0x4;
}

/// The registers of one QP doorbell page (offsets from the page).
pub const QP_PAGE: &[Register] = &[
    Register::new(
        "SQ_PI",
        page::SQ_PI,
        Access::Wo,
        0,
        "send queue doorbell",
        &[field::PI],
    ),
    Register::new(
        "RQ_PI",
        page::RQ_PI,
        Access::Wo,
        0,
        "receive queue doorbell",
        &[field::PI],
    ),
];

/// The registers of one CQ doorbell page (offsets from the page).
pub const CQ_PAGE: &[Register] = &[
    Register::new(
        "CQ_CI",
        page::CQ_CI,
        Access::Wo,
        0,
        "returns CQ slots to the device",
        &[field::CI],
    ),
    Register::new(
        "CQ_ARM",
        page::CQ_ARM,
        Access::Wo,
        0,
        "requests one interrupt",
        &[field::ARM_CI, field::ARM_SOLICITED],
    ),
];

/// The doorbell word layouts (as 4-byte entries), for documents and generators.
pub const DOORBELL_LAYOUTS: &[Layout] = &[
    Layout {
        name: "qp_doorbell",
        bytes: 4,
        doc: "value written to SQ_PI or RQ_PI",
        fields: &[field::PI],
    },
    Layout {
        name: "cq_ci_doorbell",
        bytes: 4,
        doc: "value written to CQ_CI",
        fields: &[field::CI],
    },
    Layout {
        name: "cq_arm_doorbell",
        bytes: 4,
        doc: "value written to CQ_ARM",
        fields: &[field::ARM_CI, field::ARM_SOLICITED],
    },
];

/// A decoded doorbell write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Doorbell {
    /// New send queue producer index of a QP.
    Sq {
        /// QP number.
        qpn: u32,
        /// Producer index.
        pi: u16,
    },
    /// New receive queue producer index of a QP.
    Rq {
        /// QP number.
        qpn: u32,
        /// Producer index.
        pi: u16,
    },
    /// New consumer index of a CQ.
    CqCi {
        /// CQ number.
        cqn: u32,
        /// Consumer index.
        ci: u16,
    },
    /// Arm a CQ.
    CqArm {
        /// CQ number.
        cqn: u32,
        /// First index that may interrupt.
        ci: u16,
        /// Only solicited or error CQEs interrupt.
        solicited: bool,
    },
}

/// Where the doorbell pages are (contents of the queues block).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueuesRepr {
    /// Offset of QP doorbell page 0.
    pub qp_db_base: u32,
    /// Bytes between QP pages.
    pub qp_db_stride: u32,
    /// QP pages.
    pub qp_db_count: u32,
    /// Offset of CQ doorbell page 0.
    pub cq_db_base: u32,
    /// Bytes between CQ pages.
    pub cq_db_stride: u32,
    /// CQ pages.
    pub cq_db_count: u32,
}

impl QueuesRepr {
    /// The reference design.
    pub const REFERENCE: QueuesRepr = QueuesRepr {
        qp_db_base: DEFAULT_QP_DB_BASE,
        qp_db_stride: DEFAULT_DB_STRIDE,
        qp_db_count: 16384,
        cq_db_base: DEFAULT_CQ_DB_BASE,
        cq_db_stride: DEFAULT_DB_STRIDE,
        cq_db_count: 16384,
    };

    /// Reads the block at `base` and checks it against a register space of `space` bytes: strides multiples of
    /// 8, both arrays inside the space.
    pub fn read(regs: &mut impl RegisterRead, base: u32, space: u32) -> Result<QueuesRepr, Error> {
        let q = QueuesRepr {
            qp_db_base: regs.read32(base + reg::QP_DB_BASE),
            qp_db_stride: regs.read32(base + reg::QP_DB_STRIDE),
            qp_db_count: regs.read32(base + reg::QP_DB_COUNT),
            cq_db_base: regs.read32(base + reg::CQ_DB_BASE),
            cq_db_stride: regs.read32(base + reg::CQ_DB_STRIDE),
            cq_db_count: regs.read32(base + reg::CQ_DB_COUNT),
        };
        q.validate(space)?;
        Ok(q)
    }

    /// Checks the geometry against a register space of `space` bytes.
    pub fn validate(&self, space: u32) -> Result<(), Error> {
        let arrays = [
            (
                self.qp_db_base,
                self.qp_db_stride,
                self.qp_db_count,
                "QP_DB",
            ),
            (
                self.cq_db_base,
                self.cq_db_stride,
                self.cq_db_count,
                "CQ_DB",
            ),
        ];
        for (b, s, n, name) in arrays {
            let end = (b as u64) + (s as u64) * (n as u64);
            if s < 8 || s % 8 != 0 || b % 8 != 0 || end > space as u64 {
                return Err(Error::Invalid { field: name });
            }
        }
        Ok(())
    }

    /// Register-space offset and value of the doorbell write `db`. Fails if the queue number is out of range.
    pub fn encode(&self, db: Doorbell) -> Result<(u32, u32), Error> {
        let qp = |qpn: u32, off: u32| {
            if qpn == 0 || qpn >= self.qp_db_count {
                return Err(Error::Invalid { field: "qpn" });
            }
            Ok(self.qp_db_base + qpn * self.qp_db_stride + off)
        };
        let cq = |cqn: u32, off: u32| {
            if cqn >= self.cq_db_count {
                return Err(Error::Invalid { field: "cqn" });
            }
            Ok(self.cq_db_base + cqn * self.cq_db_stride + off)
        };
        Ok(match db {
            Doorbell::Sq { qpn, pi } => (qp(qpn, page::SQ_PI)?, field::PI.insert(0, pi as u32)?),
            Doorbell::Rq { qpn, pi } => (qp(qpn, page::RQ_PI)?, field::PI.insert(0, pi as u32)?),
            Doorbell::CqCi { cqn, ci } => (cq(cqn, page::CQ_CI)?, field::CI.insert(0, ci as u32)?),
            Doorbell::CqArm { cqn, ci, solicited } => (
                cq(cqn, page::CQ_ARM)?,
                field::ARM_SOLICITED
                    .insert(field::ARM_CI.insert(0, ci as u32)?, solicited as u32)?,
            ),
        })
    }

    /// Decodes a write of `value` at register-space offset `offset` (the device side). `Ok(None)` if the offset
    /// is not in a doorbell page; an error for a reserved register of a page, QP number 0, or reserved bits set.
    pub fn decode(&self, offset: u32, value: u32) -> Result<Option<Doorbell>, Error> {
        let hit = |base: u32, stride: u32, count: u32| -> Option<(u32, u32)> {
            let rel = offset.checked_sub(base)?;
            let n = rel / stride.max(1);
            (n < count).then_some((n, rel % stride.max(1)))
        };
        if let Some((qpn, off)) = hit(self.qp_db_base, self.qp_db_stride, self.qp_db_count) {
            if qpn == 0 {
                return Err(Error::Invalid { field: "qpn" });
            }
            if value & !(field::PI.max() as u32) != 0 {
                return Err(Error::Invalid { field: "pi" });
            }
            let pi = field::PI.extract(value) as u16;
            return match off {
                page::SQ_PI => Ok(Some(Doorbell::Sq { qpn, pi })),
                page::RQ_PI => Ok(Some(Doorbell::Rq { qpn, pi })),
                _ => Err(Error::Invalid { field: "offset" }),
            };
        }
        if let Some((cqn, off)) = hit(self.cq_db_base, self.cq_db_stride, self.cq_db_count) {
            return match off {
                page::CQ_CI => {
                    if value & !(field::CI.max() as u32) != 0 {
                        return Err(Error::Invalid { field: "ci" });
                    }
                    Ok(Some(Doorbell::CqCi {
                        cqn,
                        ci: field::CI.extract(value) as u16,
                    }))
                }
                page::CQ_ARM => {
                    if value >> field::ARM_SOLICITED.end() != 0 {
                        return Err(Error::Invalid { field: "CQ_ARM" });
                    }
                    Ok(Some(Doorbell::CqArm {
                        cqn,
                        ci: field::ARM_CI.extract(value) as u16,
                        solicited: field::ARM_SOLICITED.extract(value) != 0,
                    }))
                }
                _ => Err(Error::Invalid { field: "offset" }),
            };
        }
        Ok(None)
    }
}

/// The ring and doorbell rules as Markdown, for the generated reference.
pub const RING_RULES: &str = "\
- SQ, RQ and CQ are rings of `2^log_size` entries (`1 <= log_size <= 15`) in host memory, base 4 KiB aligned.\n\
- Producer index `pi` and consumer index `ci` are free-running 16-bit counters; entry `i` is in slot \
`i & (size - 1)`; the ring holds `pi - ci` (mod 2^16) entries, at most `size` (more is a bad doorbell).\n\
- SQ/RQ: the host writes entries, then a release fence, then the queue's doorbell with the new `pi` (absolute, \
not an increment). The device reports consumed entries through CQEs (`wqe_index`).\n\
- CQ: the device writes each CQE in one DMA write after the data it reports, with `phase` (last byte) = 1 on even \
passes over the ring (the first is pass 0) and 0 on odd passes; the ring starts zeroed. The host reads `phase`, \
and only if it is the value expected for its `ci` (acquire fence) the rest; it returns slots with `CQ_CI` and \
asks for one interrupt with `CQ_ARM`. A CQ that would overflow enters an error state (async event).";
