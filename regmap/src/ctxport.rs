//! The context-programming port: the window of the internal register bus through which the firmware writes
//! context-table entries (connections, QPs, memory regions, CQs). The firmware stages one 64-byte entry, names
//! the table and the index, and commits it; the port broadcasts it to every table in one cycle. A connection
//! entry whose `state` is OPEN also initialises every pipeline's per-connection state (MR-CONN-28).
//!
//! | offset | name | access | meaning |
//! |---|---|---|---|
//! | 0x00..0x3C | `STAGE[0..16]` | RW | the entry, word k = bytes 4k..4k+3 (little-endian, the regmap layout) |
//! | 0x40 | `TABLE` | RW | table id, bits 3:0 ([`table`]) |
//! | 0x44 | `INDEX` | RW | entry index, bits 15:0 |
//! | 0x48 | `COMMIT` | WO | any write: broadcast the staged entry to `TABLE[INDEX]` |
//! | 0x4C | `STATUS` | RO | bit 0 `busy` (the broadcast waits for the pipelines); bits 31:16 commits done |
//! | 0x50 | `OPEN_PARAM` | RW | for an OPEN connection entry: `mtu_log` bits 3:0 (reset 12), `paths` bits 14:8 (reset 16), `rx_only` bit 16 (reset 0) |
//! | 0x54 | `OPEN_SEED` | RW | for an OPEN connection entry: the EV-set seed (reset 0) |
//!
//! The writer waits for `STATUS.busy == 0` before it changes the staging area after a COMMIT.

/// Byte address of the window on the internal register bus (the host's BAR 0 offsets).
pub const WINDOW: u32 = 0x7_0000;

/// Register offsets within the window.
pub mod reg {
    /// First staging word (16 words).
    pub const STAGE: u32 = 0x00;
    /// Table id.
    pub const TABLE: u32 = 0x40;
    /// Entry index.
    pub const INDEX: u32 = 0x44;
    /// Commit.
    pub const COMMIT: u32 = 0x48;
    /// Status.
    pub const STATUS: u32 = 0x4C;
    /// ConnOpen parameters (`mtu_log` 3:0, `paths` 14:8, `rx_only` 16).
    pub const OPEN_PARAM: u32 = 0x50;
    /// ConnOpen seed.
    pub const OPEN_SEED: u32 = 0x54;
    /// Reset value of OPEN_PARAM: mtu_log 12, 16 paths.
    pub const OPEN_PARAM_RESET: u32 = 12 | (16 << 8);
    /// OPEN_PARAM's `rx_only` bit: the commit opens the receive direction only.
    pub const OPEN_PARAM_RX_ONLY: u32 = 1 << 16;
    /// STATUS's `busy` bit.
    pub const STATUS_BUSY: u32 = 1;
}

/// Table ids written to `TABLE`.
pub mod table {
    /// Connection hot state ([`crate::context::conn`]).
    pub const CONN: u8 = 0;
    /// Queue pair ([`crate::context::qp`]).
    pub const QP: u8 = 1;
    /// Memory region ([`crate::context::mr`]).
    pub const MR: u8 = 2;
    /// Completion queue (the CREATE_CQ argument block, [`crate::command::arg`] `CQ_*`).
    pub const CQ: u8 = 3;
}
