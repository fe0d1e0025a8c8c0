//! The capabilities block: limits and features a driver reads before it sizes anything, and the limits the
//! firmware validates mailbox commands against ([`Limits`]).

use crate::block::{
    type_reg, version, version_reg, BlockLayout, BlockType, RegisterRead, RegisterWrite, NEXT_REG,
};
use crate::field::{Access, Error, Field, Register};

/// Largest ring size exponent: ring indices are free-running 16-bit counters, so a ring holds at most 2^15
/// entries (then `producer - consumer` tells a full ring from an empty one).
pub const MAX_RING_LOG: u8 = 15;
/// Smallest ring size exponent (2 entries).
pub const MIN_RING_LOG: u8 = 1;

/// Register offsets of the capabilities block.
pub mod reg {
    /// `MAX_QPS`.
    pub const MAX_QPS: u32 = 0x0C;
    /// `MAX_CQS`.
    pub const MAX_CQS: u32 = 0x10;
    /// `MAX_MRS`.
    pub const MAX_MRS: u32 = 0x14;
    /// `MAX_CONNS`.
    pub const MAX_CONNS: u32 = 0x18;
    /// `QUEUE_LOG`.
    pub const QUEUE_LOG: u32 = 0x1C;
    /// `ENTRY_BYTES`.
    pub const ENTRY_BYTES: u32 = 0x20;
    /// `DATAPATH`.
    pub const DATAPATH: u32 = 0x24;
    /// `FEATURES`.
    pub const FEATURES: u32 = 0x28;
    /// `MSIX`.
    pub const MSIX: u32 = 0x2C;
    /// `TRANSPORT`.
    pub const TRANSPORT: u32 = 0x30;
}

/// Fields of the capability registers.
pub mod field {
    use crate::field::Field;
    /// `QUEUE_LOG.sq`.
    pub const SQ_LOG: Field = Field::new("sq", 0, 0, 8, "log2 of the largest send queue (entries)");
    /// `QUEUE_LOG.rq`.
    pub const RQ_LOG: Field = Field::new("rq", 0, 8, 8, "log2 of the largest receive queue");
    /// `QUEUE_LOG.cq`.
    pub const CQ_LOG: Field = Field::new("cq", 0, 16, 8, "log2 of the largest completion queue");
    /// `ENTRY_BYTES.sqe`.
    pub const SQE: Field = Field::new("sqe", 0, 0, 8, "bytes per send queue entry");
    /// `ENTRY_BYTES.rqe`.
    pub const RQE: Field = Field::new("rqe", 0, 8, 8, "bytes per receive queue entry");
    /// `ENTRY_BYTES.cqe`.
    pub const CQE: Field = Field::new("cqe", 0, 16, 8, "bytes per completion queue entry");
    /// `ENTRY_BYTES.conn_ctx`.
    pub const CONN_CTX: Field = Field::new("conn_ctx", 0, 24, 8, "bytes of connection hot state");
    /// `DATAPATH.width`.
    pub const WIDTH: Field = Field::new("width", 0, 0, 16, "datapath width in bits");
    /// `DATAPATH.ports`.
    pub const PORTS: Field = Field::new("ports", 0, 16, 8, "Ethernet ports");
    /// `DATAPATH.max_mtu_log`.
    pub const MAX_MTU_LOG: Field = Field::new(
        "max_mtu_log",
        0,
        24,
        8,
        "log2 of the largest payload per packet",
    );
    /// `MSIX.vectors`.
    pub const VECTORS: Field = Field::new("vectors", 0, 0, 16, "MSI-X vectors");
    /// `TRANSPORT.max_paths`.
    pub const MAX_PATHS: Field = Field::new("max_paths", 0, 0, 8, "largest EV set per connection");
    /// `TRANSPORT.max_wlog`.
    pub const MAX_WLOG: Field =
        Field::new("max_wlog", 0, 8, 8, "largest receive window, log2 packets");
    /// `TRANSPORT.max_outstanding`.
    pub const MAX_OUTSTANDING: Field = Field::new(
        "max_outstanding",
        0,
        16,
        16,
        "largest `max_outstanding_msgs`",
    );
}

/// Feature bits of the `FEATURES` register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Features(pub u32);

impl Features {
    /// RoCEv2 baseline mode (MR-ROCE).
    pub const ROCEV2: Features = Features(1 << 0);
    /// NSCC congestion control (MR-CC).
    pub const NSCC: Features = Features(1 << 1);
    /// DCQCN congestion control.
    pub const DCQCN: Features = Features(1 << 2);
    /// Receiver-granted credit (MR-CC, section 6.4).
    pub const CREDIT: Features = Features(1 << 3);
    /// IPv6 encapsulation (MR-ENC).
    pub const IPV6: Features = Features(1 << 4);
    /// One 802.1Q VLAN tag.
    pub const VLAN: Features = Features(1 << 5);
    /// Every defined bit.
    pub const ALL: Features = Features(0x3F);

    /// True if every bit of `other` is set.
    pub const fn contains(self, other: Features) -> bool {
        self.0 & other.0 == other.0
    }
}

/// Fields of `FEATURES`.
const FEATURE_FIELDS: &[Field] = &[
    Field::new("rocev2", 0, 0, 1, "RoCEv2 baseline mode"),
    Field::new("nscc", 0, 1, 1, "NSCC congestion control"),
    Field::new("dcqcn", 0, 2, 1, "DCQCN congestion control"),
    Field::new("credit", 0, 3, 1, "receiver-granted credit"),
    Field::new("ipv6", 0, 4, 1, "IPv6 encapsulation"),
    Field::new("vlan", 0, 5, 1, "one 802.1Q tag"),
];

/// Layout version of this block.
pub const VERSION: u32 = version(1, 0);

/// The capabilities block's layout.
pub const BLOCK: BlockLayout = BlockLayout {
    kind: BlockType::Caps,
    version: VERSION,
    bytes: 0x40,
    doc: "Capabilities and limits. Read-only; the values shown are the reference design's.",
    regs: &[
        type_reg(BlockType::Caps),
        version_reg(VERSION),
        NEXT_REG,
        Register::new(
            "MAX_QPS",
            reg::MAX_QPS,
            Access::Ro,
            16384,
            "QP numbers 1..MAX_QPS-1 are valid",
            &[],
        ),
        Register::new(
            "MAX_CQS",
            reg::MAX_CQS,
            Access::Ro,
            16384,
            "CQ numbers 0..MAX_CQS-1 are valid",
            &[],
        ),
        Register::new(
            "MAX_MRS",
            reg::MAX_MRS,
            Access::Ro,
            65536,
            "memory-region context slots",
            &[],
        ),
        Register::new(
            "MAX_CONNS",
            reg::MAX_CONNS,
            Access::Ro,
            16384,
            "connection contexts (hot state entries), at most 2^24-1 (MR-CONN-1)",
            &[],
        ),
        Register::new(
            "QUEUE_LOG",
            reg::QUEUE_LOG,
            Access::Ro,
            0x000F_0F0F,
            "largest ring sizes, log2 entries (at most 15)",
            &[field::SQ_LOG, field::RQ_LOG, field::CQ_LOG],
        ),
        Register::new(
            "ENTRY_BYTES",
            reg::ENTRY_BYTES,
            Access::Ro,
            0x4020_2040,
            "entry sizes of this layout version",
            &[field::SQE, field::RQE, field::CQE, field::CONN_CTX],
        ),
        Register::new(
            "DATAPATH",
            reg::DATAPATH,
            Access::Ro,
            0x0D01_0200,
            "datapath width, ports, largest MTU",
            &[field::WIDTH, field::PORTS, field::MAX_MTU_LOG],
        ),
        Register::new(
            "FEATURES",
            reg::FEATURES,
            Access::Ro,
            0x3F,
            "optional features present",
            FEATURE_FIELDS,
        ),
        Register::new(
            "MSIX",
            reg::MSIX,
            Access::Ro,
            64,
            "MSI-X vectors",
            &[field::VECTORS],
        ),
        Register::new(
            "TRANSPORT",
            reg::TRANSPORT,
            Access::Ro,
            0x0040_1040,
            "transport limits",
            &[field::MAX_PATHS, field::MAX_WLOG, field::MAX_OUTSTANDING],
        ),
    ],
};

/// The contents of the capabilities block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CapsRepr {
    /// QP numbers `1..max_qps` are valid.
    pub max_qps: u32,
    /// CQ numbers `0..max_cqs` are valid.
    pub max_cqs: u32,
    /// Memory-region slots.
    pub max_mrs: u32,
    /// Connection contexts.
    pub max_conns: u32,
    /// Largest send queue, log2 entries.
    pub max_sq_log: u8,
    /// Largest receive queue, log2 entries.
    pub max_rq_log: u8,
    /// Largest completion queue, log2 entries.
    pub max_cq_log: u8,
    /// Bytes per SQE.
    pub sqe_bytes: u8,
    /// Bytes per RQE.
    pub rqe_bytes: u8,
    /// Bytes per CQE.
    pub cqe_bytes: u8,
    /// Bytes of connection hot state.
    pub conn_ctx_bytes: u8,
    /// Datapath width in bits.
    pub datapath_bits: u16,
    /// Ethernet ports.
    pub ports: u8,
    /// Largest payload per packet, log2 bytes.
    pub max_mtu_log: u8,
    /// Optional features.
    pub features: Features,
    /// MSI-X vectors.
    pub msix_vectors: u16,
    /// Largest EV set.
    pub max_paths: u8,
    /// Largest receive window, log2 packets.
    pub max_wlog: u8,
    /// Largest `max_outstanding_msgs`.
    pub max_outstanding: u16,
}

impl CapsRepr {
    /// The reference design: 16K QPs, CQs and connections, 64 KiB MR slots, 2^15-entry rings, 512-bit datapath,
    /// one port, 8 KiB MTU, every feature, 64 MSI-X vectors.
    pub const REFERENCE: CapsRepr = CapsRepr {
        max_qps: 16384,
        max_cqs: 16384,
        max_mrs: 65536,
        max_conns: 16384,
        max_sq_log: MAX_RING_LOG,
        max_rq_log: MAX_RING_LOG,
        max_cq_log: MAX_RING_LOG,
        sqe_bytes: crate::descriptor::sqe::LAYOUT.bytes as u8,
        rqe_bytes: crate::descriptor::rqe::LAYOUT.bytes as u8,
        cqe_bytes: crate::descriptor::cqe::LAYOUT.bytes as u8,
        conn_ctx_bytes: crate::context::conn::LAYOUT.bytes as u8,
        datapath_bits: 512,
        ports: 1,
        max_mtu_log: 13,
        features: Features::ALL,
        msix_vectors: 64,
        max_paths: 64,
        max_wlog: 16,
        max_outstanding: 64,
    };

    /// Reads the block at `base`, rejecting set reserved bits, ring exponents above [`MAX_RING_LOG`], more than
    /// 2^24 − 1 QPs or connections, and more than 2^24 MR slots (keys carry a 24-bit slot).
    pub fn read(regs: &mut impl RegisterRead, base: u32) -> Result<CapsRepr, Error> {
        let mut rd = |name: &'static str, off: u32| -> Result<u32, Error> {
            let w = regs.read32(base + off);
            let r = BLOCK.reg(name).ok_or(Error::Invalid { field: name })?;
            if w & r.reserved_mask() != 0 {
                return Err(Error::Invalid { field: name });
            }
            Ok(w)
        };
        let q = rd("QUEUE_LOG", reg::QUEUE_LOG)?;
        let e = rd("ENTRY_BYTES", reg::ENTRY_BYTES)?;
        let d = rd("DATAPATH", reg::DATAPATH)?;
        let t = rd("TRANSPORT", reg::TRANSPORT)?;
        let c = CapsRepr {
            max_qps: rd("MAX_QPS", reg::MAX_QPS)?,
            max_cqs: rd("MAX_CQS", reg::MAX_CQS)?,
            max_mrs: rd("MAX_MRS", reg::MAX_MRS)?,
            max_conns: rd("MAX_CONNS", reg::MAX_CONNS)?,
            max_sq_log: field::SQ_LOG.extract(q) as u8,
            max_rq_log: field::RQ_LOG.extract(q) as u8,
            max_cq_log: field::CQ_LOG.extract(q) as u8,
            sqe_bytes: field::SQE.extract(e) as u8,
            rqe_bytes: field::RQE.extract(e) as u8,
            cqe_bytes: field::CQE.extract(e) as u8,
            conn_ctx_bytes: field::CONN_CTX.extract(e) as u8,
            datapath_bits: field::WIDTH.extract(d) as u16,
            ports: field::PORTS.extract(d) as u8,
            max_mtu_log: field::MAX_MTU_LOG.extract(d) as u8,
            features: Features(rd("FEATURES", reg::FEATURES)?),
            msix_vectors: field::VECTORS.extract(rd("MSIX", reg::MSIX)?) as u16,
            max_paths: field::MAX_PATHS.extract(t) as u8,
            max_wlog: field::MAX_WLOG.extract(t) as u8,
            max_outstanding: field::MAX_OUTSTANDING.extract(t) as u16,
        };
        c.validate()?;
        Ok(c)
    }

    /// Checks the ranges [`CapsRepr::read`] enforces.
    pub fn validate(&self) -> Result<(), Error> {
        let logs = [
            (self.max_sq_log, "sq"),
            (self.max_rq_log, "rq"),
            (self.max_cq_log, "cq"),
        ];
        for (l, name) in logs {
            if !(MIN_RING_LOG..=MAX_RING_LOG).contains(&l) {
                return Err(Error::Invalid { field: name });
            }
        }
        if self.max_qps >= 1 << 24 || self.max_qps < 2 {
            return Err(Error::Invalid { field: "MAX_QPS" });
        }
        if self.max_conns >= 1 << 24 {
            return Err(Error::Invalid { field: "MAX_CONNS" });
        }
        if self.max_mrs > 1 << 24 {
            return Err(Error::Invalid { field: "MAX_MRS" });
        }
        if self.features.0 & !Features::ALL.0 != 0 {
            return Err(Error::Invalid { field: "FEATURES" });
        }
        Ok(())
    }

    /// True if the device's entry sizes are the ones this crate encodes.
    pub fn entries_match(&self) -> bool {
        let r = &CapsRepr::REFERENCE;
        self.sqe_bytes == r.sqe_bytes
            && self.rqe_bytes == r.rqe_bytes
            && self.cqe_bytes == r.cqe_bytes
            && self.conn_ctx_bytes == r.conn_ctx_bytes
    }

    /// Writes the block's registers (header excluded) at `base`.
    pub fn write(&self, regs: &mut impl RegisterWrite, base: u32) -> Result<(), Error> {
        self.validate()?;
        let q = field::CQ_LOG.insert(
            field::RQ_LOG.insert(
                field::SQ_LOG.insert(0, self.max_sq_log as u32)?,
                self.max_rq_log as u32,
            )?,
            self.max_cq_log as u32,
        )?;
        let mut e = field::SQE.insert(0, self.sqe_bytes as u32)?;
        e = field::RQE.insert(e, self.rqe_bytes as u32)?;
        e = field::CQE.insert(e, self.cqe_bytes as u32)?;
        e = field::CONN_CTX.insert(e, self.conn_ctx_bytes as u32)?;
        let mut d = field::WIDTH.insert(0, self.datapath_bits as u32)?;
        d = field::PORTS.insert(d, self.ports as u32)?;
        d = field::MAX_MTU_LOG.insert(d, self.max_mtu_log as u32)?;
        let mut t = field::MAX_PATHS.insert(0, self.max_paths as u32)?;
        t = field::MAX_WLOG.insert(t, self.max_wlog as u32)?;
        t = field::MAX_OUTSTANDING.insert(t, self.max_outstanding as u32)?;
        regs.write32(base + reg::MAX_QPS, self.max_qps);
        regs.write32(base + reg::MAX_CQS, self.max_cqs);
        regs.write32(base + reg::MAX_MRS, self.max_mrs);
        regs.write32(base + reg::MAX_CONNS, self.max_conns);
        regs.write32(base + reg::QUEUE_LOG, q);
        regs.write32(base + reg::ENTRY_BYTES, e);
        regs.write32(base + reg::DATAPATH, d);
        regs.write32(base + reg::FEATURES, self.features.0);
        regs.write32(
            base + reg::MSIX,
            field::VECTORS.insert(0, self.msix_vectors as u32)?,
        );
        regs.write32(base + reg::TRANSPORT, t);
        Ok(())
    }

    /// The limits mailbox commands are validated against.
    pub fn limits(&self) -> Limits {
        Limits {
            max_qps: self.max_qps,
            max_cqs: self.max_cqs,
            max_mrs: self.max_mrs,
            max_sq_log: self.max_sq_log,
            max_rq_log: self.max_rq_log,
            max_cq_log: self.max_cq_log,
            msix_vectors: self.msix_vectors,
            counters: crate::counters::COUNT,
        }
    }
}

/// The device limits a mailbox command is checked against ([`crate::command::Request::parse`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// QP numbers `1..max_qps` are valid.
    pub max_qps: u32,
    /// CQ numbers `0..max_cqs` are valid.
    pub max_cqs: u32,
    /// MR slots: a key's slot (`key >> 8`) must be below this.
    pub max_mrs: u32,
    /// Largest send queue, log2.
    pub max_sq_log: u8,
    /// Largest receive queue, log2.
    pub max_rq_log: u8,
    /// Largest completion queue, log2.
    pub max_cq_log: u8,
    /// MSI-X vectors: a CQ's vector must be below this.
    pub msix_vectors: u16,
    /// Counters: `first + count` must not exceed this.
    pub counters: u16,
}
