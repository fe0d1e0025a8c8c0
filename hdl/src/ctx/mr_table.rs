//! The memory-region table (MR-SEM-3..7, MR-SEM-13, MR-SEM-14): `2^bits` entries of [`MrEntry`] in a simple
//! dual-port RAM, written by [`CtxWrite`]s of table [`table::MR`](crate::ctx::table::MR) and read by key.
//!
//! Layout: an entry is the first 32 bytes of `metaroce_regmap::context::mr` (`addr`, `length`, `lkey`, `rkey`,
//! `access`, `valid`); the field offsets are taken from the regmap's field table when the block is built. Only
//! those fields are stored (197 bits per entry).
//!
//! Key format: both keys of a region carry its slot in bits 31..8 (`metaroce_regmap::context::mr::key_slot`);
//! the table is indexed by key bits `8 + A - 1 .. 8` and the caller compares the whole 32-bit key with the entry's
//! `lkey` or `rkey`, so a stale key (other generation byte, or other high slot bits) fails (MR-SEM-7). The
//! reference model's keys (`rkey = lkey ^ 0x5A00_0000`, `slot = lkey >> 8`) index the same entry from both keys
//! as long as `A <= 16` (the XOR constant only touches key bits 25..31).
//!
//! Ports: `s_axis_ctxw_*` (the context-write broadcast, one entry per cycle, no back-pressure),
//! `lookup_key` → `lookup_entry` one cycle later (index bits above `bits` are masked off) (registered RAM output; holding `lookup_key` holds the entry,
//! and a write to the entry being looked up shows on the next cycle). Throughput: one lookup per cycle.
//! Table size: `2^bits` entries, `bits = cfg.mr_bits` (default 12: 4096 regions), address width `A = bits` in
//! the generated block (8..=16). Constructor: `MrTable::<A>::new(cfg.mr_bits)`.

use crate::common::ram::SdpRam;
use crate::records::CtxWrite;
use metaroce_regmap::context::mr::field as mrf;
use rust_hdl::prelude::*;

pub use entry::MrEntry;

// `LogicStruct` generates public accessor methods without docs; the record and its fields are documented.
#[allow(missing_docs)]
mod entry {
    use rust_hdl::prelude::*;

    /// The fields of an MR context entry that the placement checks use.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct MrEntry {
        /// Start address of the region.
        pub addr: Bits<64>,
        /// Length in bytes.
        pub length: Bits<64>,
        /// Local key.
        pub lkey: Bits<32>,
        /// Remote key.
        pub rkey: Bits<32>,
        /// Access rights (LOCAL_WRITE 1, REMOTE_WRITE 2, REMOTE_READ 4, REMOTE_ATOMIC 8).
        pub access: Bits<4>,
        /// The entry is a live registration.
        pub valid: Bit,
    }
}

/// Decodes the MR fields of a 64-byte context-write payload (the regmap layout) in Rust, for tests and models.
pub fn decode_entry(data: &[u8]) -> MrEntry {
    let g = |f: &metaroce_regmap::field::Field| f.get(data).unwrap_or(0);
    MrEntry {
        addr: g(&mrf::ADDR).to_bits(),
        length: g(&mrf::LENGTH).to_bits(),
        lkey: g(&mrf::LKEY).to_bits(),
        rkey: g(&mrf::RKEY).to_bits(),
        access: g(&mrf::ACCESS).to_bits(),
        valid: g(&mrf::VALID) != 0,
    }
}

/// The memory-region table with up to `2^A` entries (`2^bits` used).
#[derive(LogicBlock)]
pub struct MrTable<const A: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Context write (the entry, when `table` is MR).
    pub s_axis_ctxw_tdata: Signal<In, CtxWrite>,
    /// Context write valid.
    pub s_axis_ctxw_tvalid: Signal<In, Bit>,
    /// Key to look up (index: bits `8 + A - 1 .. 8`).
    pub lookup_key: Signal<In, Bits<32>>,
    /// The entry at the key's index, one cycle after `lookup_key`.
    pub lookup_entry: Signal<Out, MrEntry>,
    ram: SdpRam<MrEntry, A>,
    wdata: Signal<Local, Bits<512>>,
    windex: Signal<Local, Bits<16>>,
    wentry: Signal<Local, MrEntry>,
    c_mask: Constant<Bits<A>>,
    c_table: Constant<Bits<4>>,
    c_addr: Constant<Bits<9>>,
    c_length: Constant<Bits<9>>,
    c_lkey: Constant<Bits<9>>,
    c_rkey: Constant<Bits<9>>,
    c_access: Constant<Bits<9>>,
    c_valid: Constant<Bits<9>>,
}

impl<const A: usize> MrTable<A> {
    /// A table of `2^bits` entries (`bits <= A <= 16`, see the key format), all invalid.
    pub fn new(bits: u32) -> Self {
        assert!(A <= 16 && (1..=A as u32).contains(&bits));
        let c = |f: &metaroce_regmap::field::Field| Constant::new((f.lsb() as u64).to_bits::<9>());
        MrTable {
            clk: Default::default(),
            s_axis_ctxw_tdata: Default::default(),
            s_axis_ctxw_tvalid: Default::default(),
            lookup_key: Default::default(),
            lookup_entry: Default::default(),
            ram: SdpRam::new(1 << bits),
            c_mask: Constant::new(((1u64 << bits) - 1).to_bits()),
            wdata: Default::default(),
            windex: Default::default(),
            wentry: Default::default(),
            c_table: Constant::new((crate::ctx::table::MR as u64).to_bits()),
            c_addr: c(&mrf::ADDR),
            c_length: c(&mrf::LENGTH),
            c_lkey: c(&mrf::LKEY),
            c_rkey: c(&mrf::RKEY),
            c_access: c(&mrf::ACCESS),
            c_valid: c(&mrf::VALID),
        }
    }
}

impl<const A: usize> Logic for MrTable<A> {
    #[hdl_gen]
    fn update(&mut self) {
        self.ram.clk.next = self.clk.val();
        self.wdata.next = self.s_axis_ctxw_tdata.val().data;
        self.windex.next = self.s_axis_ctxw_tdata.val().index;
        self.wentry.next.addr = self.wdata.val().get_bits::<64>(self.c_addr.val().index());
        self.wentry.next.length = self.wdata.val().get_bits::<64>(self.c_length.val().index());
        self.wentry.next.lkey = self.wdata.val().get_bits::<32>(self.c_lkey.val().index());
        self.wentry.next.rkey = self.wdata.val().get_bits::<32>(self.c_rkey.val().index());
        self.wentry.next.access = self.wdata.val().get_bits::<4>(self.c_access.val().index());
        self.wentry.next.valid = self.wdata.val().get_bit(self.c_valid.val().index());
        self.ram.wr_en.next = self.s_axis_ctxw_tvalid.val()
            & (self.s_axis_ctxw_tdata.val().table == self.c_table.val());
        self.ram.wr_addr.next = self.windex.val().get_bits::<A>(0) & self.c_mask.val();
        self.ram.wr_data.next = self.wentry.val();
        self.ram.rd_addr.next = self.lookup_key.val().get_bits::<A>(8) & self.c_mask.val();
        self.lookup_entry.next = self.ram.rd_data.val();
    }
}

/// The block list entry of this file.
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![crate::blocks::BlockSpec {
        name: "metaroce_ctx_mr_table",
        area: "ctx",
        description:
            "memory-region table (2^mr_bits entries), written by context writes, looked up by key",
        verilog: |cfg| {
            let n = "metaroce_ctx_mr_table";
            match cfg.mr_bits {
                8 => crate::gen::verilog(n, MrTable::<8>::new(8)),
                9 => crate::gen::verilog(n, MrTable::<9>::new(9)),
                10 => crate::gen::verilog(n, MrTable::<10>::new(10)),
                11 => crate::gen::verilog(n, MrTable::<11>::new(11)),
                13 => crate::gen::verilog(n, MrTable::<13>::new(13)),
                14 => crate::gen::verilog(n, MrTable::<14>::new(14)),
                15 => crate::gen::verilog(n, MrTable::<15>::new(15)),
                16 => crate::gen::verilog(n, MrTable::<16>::new(16)),
                _ => crate::gen::verilog(n, MrTable::<12>::new(12)),
            }
        },
    }]
}
