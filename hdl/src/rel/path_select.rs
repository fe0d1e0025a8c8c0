//! The per-connection EV set (MR-PATH-1..4, MR-PATH-7..10, MR-PATH-18): multipath entropy selection, bit-exact
//! with `metaroce_proto::transport::path::PathSet` (the entry statistics `sent`/`ece`/`trims`/`losses`/
//! `recycles` decide nothing and are not kept).
//!
//! Per connection, one `W`-bit word of a [`SdpRam`] of `1 << conn_bits` words: the EVs (14 bits
//! each), the ready FIFO as a ring of 6-bit entry indices with `head`/`tail`/`cnt`, the `queued` bit per entry,
//! the round-robin pointer `next`, the entry count `n`, the SplitMix64 state (64 bits), `frozen_until` (64-bit
//! ns) and `freeze_span` (`4 * srtt`, 34 bits): `W` = [`word_bits`]`(max_paths)` = `21 * max_paths + 194` bits
//! (530 for 16 entries, 1538 for 64). The unit is generic over `W`, so the RAM is as wide as the set it holds.
//! The logic is a netlist ([`crate::common::netlist`], one description for the simulator and the Verilog)
//! joined to the RAM by `#[hdl_gen]` wiring.
//!
//! Commands on `s_axis_cmd_*` ([`PathCmd`], `now` is sampled in the cycle the command is taken):
//! * [`OP_OPEN`]: `PathSet::new(n, seed)` with `n` clamped to `1..=max_paths` (MR-PATH-1).
//! * [`OP_CHOOSE`]: `choose(avoid.then(idx), now)` (MR-PATH-3, MR-PATH-4, MR-PATH-10): the oldest ready entry
//!   (a ready entry equal to `idx` with `avoid` and `n > 1` is popped and skipped), else the round-robin entry
//!   (skipping `idx` likewise), which gets a fresh EV unless `n == 1` or `now < frozen_until` (MR-PATH-18). One
//!   [`PathRes`] on `m_axis_res_*` per CHOOSE.
//! * [`OP_RECYCLE_ECE`]: `index_of(ev)`, then `recycle(idx, ev, Ece, now)` when found (MR-PATH-7).
//! * [`OP_RECYCLE_TRIM`] / [`OP_RECYCLE_LOSS`]: `recycle(idx, ev, Trim | Loss, now)`: only if entry `idx < n`
//!   still carries `ev` (MR-PATH-8, MR-PATH-9); a loss sets `frozen_until = max(frozen_until, now +sat
//!   freeze_span)` (MR-PATH-18).
//! * [`OP_SET_SRTT`]: `set_srtt(srtt)`: `freeze_span = 4 * srtt` (`FREEZE_SRTTS`).
//! * Other op codes do nothing.
//!
//! Clean acknowledgements on `s_axis_clean_*` ([`PathClean`]): `on_clean_ack(idx_k, ev_k)` for the lanes `k`
//! set in `mask`, in lane order 0..3, in one beat (MR-PATH-3). Lanes naming one entry behave as the model's
//! sequential calls: the first lane whose EV matches queues the entry, later ones find it queued.
//!
//! A fresh EV (MR-PATH-2) is `(next_u32() & 0x3FFF)` of SplitMix64, redrawn while it equals the EV of an entry
//! of the set (the entry about to be replaced included; for OPEN, the entries drawn so far), at most 4 draws.
//! The four draws are issued speculatively on four consecutive cycles into a pipeline (the two 64x64 wrapping
//! multiplications by constants as carry-save adder trees, 3 stages each) whose last stage compares each draw
//! with every entry; the first draw without a duplicate (or the fourth) is taken and the generator state is
//! advanced by the number of draws taken, exactly as the model's sequential loop does.
//!
//! Drawing ahead: while the cached connection's next four draws are not known and the pipeline is free, they
//! are drawn in the background (tagged so they are told apart from a fresh EV's draws) and kept with their
//! duplicate flags against the entries. Only a fresh EV, an OPEN or a cache load changes the entries or the
//! generator state, and each drops the draws made ahead (and stops a background run, whose draws in the
//! pipeline are discarded). A fresh EV for a non-OPEN command then takes the first kept draw without a
//! duplicate (or the fourth) at once, and advances the generator by the draws it took: the same EV and state
//! as drawing then.
//!
//! Connection cache: the state of the connection last used is held in registers. A command or clean beat for
//! another connection first writes the cached state back (if modified) and reads the new one (RAM read, 1
//! cycle, then loaded: 2 cycles). When nothing is in progress a modified cache is written back (one cycle), so
//! `idle` means the RAM holds every connection's state. The RAM is written only from the cache and read only on
//! a miss, so no forwarding is needed. Connections must be opened before use (a never-opened word reads
//! `n = 0`: CHOOSE then answers entry 0 with EV 0). Connection numbers at or beyond `1 << conn_bits` alias.
//!
//! Timing, in clock edges after the transfer (connection cached; `rel_path_select` checks these numbers):
//! * clean beats: one per cycle back to back (stages: EV lookup, EV comparison, queued check and queueing,
//!   FIFO push; a beat's effect is complete 4 cycles after it is taken); a beat of another connection waits
//!   for the stages to drain, then costs 2 more cycles (write-back and read, load);
//! * CHOOSE: result valid after 4 cycles from the ready FIFO (+2 per popped avoided entry), 5 by round robin
//!   without a fresh EV, 5 with a fresh EV drawn ahead (the background run is done within 16 cycles of
//!   the previous fresh EV or cache load), else 13 (+1 per redraw); a command for another connection costs 1 more;
//! * RECYCLE_*: decided after 4 cycles; with a fresh EV the unit is free again after 5 when drawn ahead, else
//!   13 (+1 per redraw);
//! * SET_SRTT: 2 cycles; OPEN: 2 + 9 per entry (+1 per redraw), ~580 cycles for 64 entries.
//!
//! The next command is taken once the previous one has finished and its result (if any) was taken; clean
//! beats are not taken in a cycle where a command is valid. Every output is a register or a small function of
//! registers (`s_axis_clean_tready` also of `s_axis_cmd_tvalid`). Wide comparisons against `now` and
//! `frozen_until` are split in 32-bit halves over two register stages. Mapped for UltraScale+ (`synth_xilinx
//! -family xcup`), the logic without the RAM is about 10.6k LUTs and 3.3k flip-flops (the constant
//! multiplications in LUTs and carry chains, no DSP), with at most 8 LUT/MUXF levels between registers.
//!
//! Ports: `clk`, `rst` (synchronous; the RAM keeps its contents), `now: Bits<64>`,
//! `s_axis_cmd_{tdata: PathCmd, tvalid, tready}`, `s_axis_clean_{tdata: PathClean, tvalid, tready}`,
//! `m_axis_res_{tdata: PathRes, tvalid, tready}`, `idle`.

use crate::blocks::BlockSpec;
use crate::common::netlist::{get_field, set_field, Net, ToWords, N};
use crate::common::ram::SdpRam;
use metaroce_proto::transport::path::FREEZE_SRTTS;
use rust_hdl::prelude::*;

/// Records.
pub mod rec {
    #![allow(missing_docs)]
    use rust_hdl::prelude::*;

    /// A command to the EV set of one connection.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct PathCmd {
        /// Connection.
        pub conn: Bits<16>,
        /// Operation (`OP_*`).
        pub op: Bits<3>,
        /// Entry index (CHOOSE: the entry to avoid; RECYCLE_TRIM/LOSS: the entry).
        pub idx: Bits<8>,
        /// EV (RECYCLE_*).
        pub ev: Bits<14>,
        /// CHOOSE: avoid entry `idx` (a retransmission).
        pub avoid: Bit,
        /// OPEN: number of entries.
        pub n: Bits<7>,
        /// OPEN: PRNG seed.
        pub seed: Bits<64>,
        /// SET_SRTT: smoothed RTT, ns.
        pub srtt: Bits<32>,
    }

    /// Up to four clean acknowledgements of one connection.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct PathClean {
        /// Connection.
        pub conn: Bits<16>,
        /// Lanes present.
        pub mask: Bits<4>,
        pub idx0: Bits<8>,
        pub idx1: Bits<8>,
        pub idx2: Bits<8>,
        pub idx3: Bits<8>,
        pub ev0: Bits<14>,
        pub ev1: Bits<14>,
        pub ev2: Bits<14>,
        pub ev3: Bits<14>,
    }

    /// The answer to a CHOOSE.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct PathRes {
        /// Entry index.
        pub path: Bits<8>,
        /// Its EV.
        pub ev: Bits<14>,
    }
}

pub use rec::{PathClean, PathCmd, PathRes};

/// `PathSet::new(n, seed)`.
pub const OP_OPEN: u64 = 0;
/// `choose(avoid.then(idx), now)`; answers on `m_axis_res_*`.
pub const OP_CHOOSE: u64 = 1;
/// `index_of(ev)` then `recycle(idx, ev, Ece, now)`.
pub const OP_RECYCLE_ECE: u64 = 2;
/// `recycle(idx, ev, Trim, now)`.
pub const OP_RECYCLE_TRIM: u64 = 3;
/// `recycle(idx, ev, Loss, now)`.
pub const OP_RECYCLE_LOSS: u64 = 4;
/// `set_srtt(srtt)`.
pub const OP_SET_SRTT: u64 = 5;

/// SplitMix64 increment.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;
/// SplitMix64 multipliers.
const MIX1: u64 = 0xBF58_476D_1CE4_E5B9;
const MIX2: u64 = 0x94D0_49BB_1331_11EB;

// `freeze_span = srtt << 2` below.
const _: () = assert!(FREEZE_SRTTS == 4);

/// Width of a connection's state word for sets of `max_paths` entries (a power of two, 1..=64).
pub const fn word_bits(max_paths: usize) -> usize {
    21 * max_paths + 194
}

/// The EV-set unit for sets of up to 64 entries (the model's limit).
pub type PathSelect64 = PathSelect<{ word_bits(64) }>;

/// The EV-set unit (see the module docs) for sets of up to `(W - 194) / 21` entries, `W` =
/// [`word_bits`]`(max_paths)`. Construct with [`PathSelect::new`].
#[derive(LogicBlock)]
pub struct PathSelect<const W: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset, active high (the state RAM keeps its contents).
    pub rst: Signal<In, Bit>,
    /// Current time, ns.
    pub now: Signal<In, Bits<64>>,
    /// Command.
    pub s_axis_cmd_tdata: Signal<In, PathCmd>,
    /// Valid.
    pub s_axis_cmd_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_cmd_tready: Signal<Out, Bit>,
    /// Clean acknowledgements.
    pub s_axis_clean_tdata: Signal<In, PathClean>,
    /// Valid.
    pub s_axis_clean_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_clean_tready: Signal<Out, Bit>,
    /// CHOOSE result.
    pub m_axis_res_tdata: Signal<Out, PathRes>,
    /// Valid.
    pub m_axis_res_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_res_tready: Signal<In, Bit>,
    /// No command or clean beat in progress, no result pending, every connection's state in the RAM.
    pub idle: Signal<Out, Bit>,
    core: PathCore<W>,
    ram: SdpRam<Bits<W>, 16>,
}

impl<const W: usize> PathSelect<W> {
    /// Entries per set: `W` must be [`word_bits`] of a power of two in 1..=64 (checked when compiled).
    pub const MAX_PATHS: u32 = {
        let p = (W - 194) / 21;
        assert!(
            W > 194 && word_bits(p) == W && p.is_power_of_two() && p <= 64,
            "W is not word_bits(a power of two up to 64)"
        );
        p as u32
    };

    /// An EV set for `1 << conn_bits` connections (`conn_bits` 1..=16) of up to [`Self::MAX_PATHS`] entries
    /// each (OPEN clamps `n` to it; the model's limit is 64).
    pub fn new(conn_bits: u32) -> Self {
        let cb = conn_bits.clamp(1, 16);
        PathSelect {
            clk: Default::default(),
            rst: Default::default(),
            now: Default::default(),
            s_axis_cmd_tdata: Default::default(),
            s_axis_cmd_tvalid: Default::default(),
            s_axis_cmd_tready: Default::default(),
            s_axis_clean_tdata: Default::default(),
            s_axis_clean_tvalid: Default::default(),
            s_axis_clean_tready: Default::default(),
            m_axis_res_tdata: Default::default(),
            m_axis_res_tvalid: Default::default(),
            m_axis_res_tready: Default::default(),
            idle: Default::default(),
            core: PathCore::new(Self::MAX_PATHS),
            ram: SdpRam::new(1 << cb),
        }
    }
}

impl<const W: usize> Logic for PathSelect<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.core.clk.next = self.clk.val();
        self.ram.clk.next = self.clk.val();
        self.core.rst.next = self.rst.val();
        self.core.now.next = self.now.val();
        self.core.s_axis_cmd_tdata.next = self.s_axis_cmd_tdata.val();
        self.core.s_axis_cmd_tvalid.next = self.s_axis_cmd_tvalid.val();
        self.s_axis_cmd_tready.next = self.core.s_axis_cmd_tready.val();
        self.core.s_axis_clean_tdata.next = self.s_axis_clean_tdata.val();
        self.core.s_axis_clean_tvalid.next = self.s_axis_clean_tvalid.val();
        self.s_axis_clean_tready.next = self.core.s_axis_clean_tready.val();
        self.m_axis_res_tdata.next = self.core.m_axis_res_tdata.val();
        self.m_axis_res_tvalid.next = self.core.m_axis_res_tvalid.val();
        self.core.m_axis_res_tready.next = self.m_axis_res_tready.val();
        self.idle.next = self.core.idle.val();
        self.ram.rd_addr.next = self.core.ram_rd_addr.val();
        self.core.ram_rd_data.next = self.ram.rd_data.val();
        self.ram.wr_addr.next = self.core.ram_wr_addr.val();
        self.ram.wr_data.next = self.core.ram_wr_data.val();
        self.ram.wr_en.next = self.core.ram_wr_en.val();
    }
}

/// The logic of [`PathSelect`] without its state RAM: a netlist ([`crate::common::netlist`]) that is both the
/// simulation model and the Verilog.
#[derive(LogicBlock)]
struct PathCore<const W: usize> {
    clk: Signal<In, Clock>,
    rst: Signal<In, Bit>,
    now: Signal<In, Bits<64>>,
    s_axis_cmd_tdata: Signal<In, PathCmd>,
    s_axis_cmd_tvalid: Signal<In, Bit>,
    s_axis_cmd_tready: Signal<Out, Bit>,
    s_axis_clean_tdata: Signal<In, PathClean>,
    s_axis_clean_tvalid: Signal<In, Bit>,
    s_axis_clean_tready: Signal<Out, Bit>,
    m_axis_res_tdata: Signal<Out, PathRes>,
    m_axis_res_tvalid: Signal<Out, Bit>,
    m_axis_res_tready: Signal<In, Bit>,
    idle: Signal<Out, Bit>,
    ram_rd_addr: Signal<Out, Bits<16>>,
    ram_rd_data: Signal<In, Bits<W>>,
    ram_wr_addr: Signal<Out, Bits<16>>,
    ram_wr_data: Signal<Out, Bits<W>>,
    ram_wr_en: Signal<Out, Bit>,
    _net: Net,
    _last: Vec<u64>,
}

/// A wide `Bits` from little-endian words (`ToWords::from_words` rebuilds a wide value bit by bit).
fn wide<const W: usize>(v: &[u64]) -> Bits<W> {
    if W <= rust_hdl::core::short_bit_vec::SHORT_BITS {
        return Bits::<W>::from_words(v);
    }
    let mut a = [false; W];
    for (i, x) in a.iter_mut().enumerate() {
        *x = crate::common::netlist::bit(v, i);
    }
    Bits::Long(rust_hdl::core::bitvec::BitVec::from(a))
}

/// (offset, width) of every field of a record, by name.
fn cmd_fields() -> Vec<(&'static str, usize, usize)> {
    let c = PathCmd::default();
    vec![
        ("conn", c.get_my_offset_conn(), c.get_my_width_conn()),
        ("op", c.get_my_offset_op(), c.get_my_width_op()),
        ("idx", c.get_my_offset_idx(), c.get_my_width_idx()),
        ("ev", c.get_my_offset_ev(), c.get_my_width_ev()),
        ("avoid", c.get_my_offset_avoid(), c.get_my_width_avoid()),
        ("n", c.get_my_offset_n(), c.get_my_width_n()),
        ("seed", c.get_my_offset_seed(), c.get_my_width_seed()),
        ("srtt", c.get_my_offset_srtt(), c.get_my_width_srtt()),
    ]
}

fn clean_fields() -> Vec<(&'static str, usize, usize)> {
    let c = PathClean::default();
    vec![
        ("conn", c.get_my_offset_conn(), c.get_my_width_conn()),
        ("mask", c.get_my_offset_mask(), c.get_my_width_mask()),
        ("idx0", c.get_my_offset_idx0(), c.get_my_width_idx0()),
        ("idx1", c.get_my_offset_idx1(), c.get_my_width_idx1()),
        ("idx2", c.get_my_offset_idx2(), c.get_my_width_idx2()),
        ("idx3", c.get_my_offset_idx3(), c.get_my_width_idx3()),
        ("ev0", c.get_my_offset_ev0(), c.get_my_width_ev0()),
        ("ev1", c.get_my_offset_ev1(), c.get_my_width_ev1()),
        ("ev2", c.get_my_offset_ev2(), c.get_my_width_ev2()),
        ("ev3", c.get_my_offset_ev3(), c.get_my_width_ev3()),
    ]
}

fn res_fields() -> Vec<(&'static str, usize, usize)> {
    let r = PathRes::default();
    vec![
        ("path", r.get_my_offset_path(), r.get_my_width_path()),
        ("ev", r.get_my_offset_ev(), r.get_my_width_ev()),
    ]
}

fn field(fields: &[(&'static str, usize, usize)], name: &str) -> (usize, usize) {
    fields
        .iter()
        .find(|f| f.0 == name)
        .map(|f| (f.1, f.2))
        .unwrap_or((0, 1))
}

fn put<const W: usize>(v: &mut [u64], f: (usize, usize), b: Bits<W>) {
    let w = b.to_words();
    for i in 0..f.1 {
        crate::common::netlist::set_bit(v, f.0 + i, crate::common::netlist::bit(&w, i));
    }
}

fn take<const W: usize>(v: &[u64], f: (usize, usize)) -> Bits<W> {
    let mut out = vec![0u64; W.div_ceil(64)];
    for i in 0..f.1.min(W) {
        crate::common::netlist::set_bit(&mut out, i, crate::common::netlist::bit(v, f.0 + i));
    }
    Bits::<W>::from_words(&out)
}

impl ToWords for PathCmd {
    fn to_words(&self) -> Vec<u64> {
        let f = cmd_fields();
        let mut v = vec![0u64; PathCmd::BITS.div_ceil(64)];
        put(&mut v, field(&f, "conn"), self.conn);
        put(&mut v, field(&f, "op"), self.op);
        put(&mut v, field(&f, "idx"), self.idx);
        put(&mut v, field(&f, "ev"), self.ev);
        set_field(&mut v, field(&f, "avoid").0, 1, self.avoid as u64);
        put(&mut v, field(&f, "n"), self.n);
        put(&mut v, field(&f, "seed"), self.seed);
        put(&mut v, field(&f, "srtt"), self.srtt);
        v
    }

    fn from_words(v: &[u64]) -> Self {
        let f = cmd_fields();
        PathCmd {
            conn: take(v, field(&f, "conn")),
            op: take(v, field(&f, "op")),
            idx: take(v, field(&f, "idx")),
            ev: take(v, field(&f, "ev")),
            avoid: get_field(v, field(&f, "avoid").0, 1) == 1,
            n: take(v, field(&f, "n")),
            seed: take(v, field(&f, "seed")),
            srtt: take(v, field(&f, "srtt")),
        }
    }
}

impl ToWords for PathClean {
    fn to_words(&self) -> Vec<u64> {
        let f = clean_fields();
        let mut v = vec![0u64; PathClean::BITS.div_ceil(64)];
        put(&mut v, field(&f, "conn"), self.conn);
        put(&mut v, field(&f, "mask"), self.mask);
        put(&mut v, field(&f, "idx0"), self.idx0);
        put(&mut v, field(&f, "idx1"), self.idx1);
        put(&mut v, field(&f, "idx2"), self.idx2);
        put(&mut v, field(&f, "idx3"), self.idx3);
        put(&mut v, field(&f, "ev0"), self.ev0);
        put(&mut v, field(&f, "ev1"), self.ev1);
        put(&mut v, field(&f, "ev2"), self.ev2);
        put(&mut v, field(&f, "ev3"), self.ev3);
        v
    }

    fn from_words(v: &[u64]) -> Self {
        let f = clean_fields();
        PathClean {
            conn: take(v, field(&f, "conn")),
            mask: take(v, field(&f, "mask")),
            idx0: take(v, field(&f, "idx0")),
            idx1: take(v, field(&f, "idx1")),
            idx2: take(v, field(&f, "idx2")),
            idx3: take(v, field(&f, "idx3")),
            ev0: take(v, field(&f, "ev0")),
            ev1: take(v, field(&f, "ev1")),
            ev2: take(v, field(&f, "ev2")),
            ev3: take(v, field(&f, "ev3")),
        }
    }
}

impl ToWords for PathRes {
    fn to_words(&self) -> Vec<u64> {
        let f = res_fields();
        let mut v = vec![0u64; PathRes::BITS.div_ceil(64)];
        put(&mut v, field(&f, "path"), self.path);
        put(&mut v, field(&f, "ev"), self.ev);
        v
    }

    fn from_words(v: &[u64]) -> Self {
        let f = res_fields();
        PathRes {
            path: take(v, field(&f, "path")),
            ev: take(v, field(&f, "ev")),
        }
    }
}

/// A netlist with registers whose next value is given as a list of `(condition, value)` assignments; the last
/// assignment whose condition holds wins, else the register holds (like sequential `if`s in an always block).
struct Build {
    n: Net,
    asg: Vec<(N, Vec<(N, N)>)>,
    /// Registers whose assignment conditions are mutually exclusive: their next value is an AND-OR of the
    /// assignments (a shallow tree) instead of a priority chain.
    excl: Vec<N>,
}

impl Build {
    fn reg(&mut self, w: usize, init: u64) -> N {
        let r = self.n.reg(w, init);
        self.asg.push((r, Vec::new()));
        r
    }

    fn set(&mut self, r: N, c: N, v: N) {
        let v = self.n.resize(v, self.n.width(r));
        if let Some(e) = self.asg.iter_mut().find(|e| e.0 == r) {
            e.1.push((c, v));
        }
    }

    fn setk(&mut self, r: N, c: N, k: u64) {
        let w = self.n.width(r);
        let v = self.n.lit(w, k);
        self.set(r, c, v);
    }

    /// A register loaded with `d` every cycle.
    fn pipe(&mut self, d: N) -> N {
        self.n.dff(d, None, 0)
    }

    fn finish(mut self) -> Net {
        for (r, list) in std::mem::take(&mut self.asg) {
            let d = if self.excl.contains(&r) && !list.is_empty() {
                let w = self.n.width(r);
                let conds: Vec<N> = list.iter().map(|x| x.0).collect();
                let any = self.n.or_all(&conds);
                let hold = self.n.not(any);
                let mut terms = Vec::new();
                for &(c, v) in list.iter().chain(std::iter::once(&(hold, r))) {
                    let m = self.n.rep(c, w);
                    terms.push(self.n.and(m, v));
                }
                let mut d = terms[0];
                for &t in &terms[1..] {
                    d = self.n.or(d, t);
                }
                d
            } else {
                let mut d = r;
                for (c, v) in list {
                    d = self.n.mux(c, v, d);
                }
                d
            };
            self.n.set_d(r, d, None);
        }
        self.n
    }

    fn and3(&mut self, a: N, b: N, c: N) -> N {
        let x = self.n.and(a, b);
        self.n.and(x, c)
    }

    fn andn(&mut self, a: N, b: N) -> N {
        let nb = self.n.not(b);
        self.n.and(a, nb)
    }

    /// Logical right shift by a constant.
    fn shrk(&mut self, a: N, k: usize) -> N {
        let w = self.n.width(a);
        let hi = self.n.slice(a, k, w - k);
        self.n.resize(hi, w)
    }

    /// One level of 3:2 carry-save compression (groups of three; the rest pass).
    fn csa_level(&mut self, terms: &[N]) -> Vec<N> {
        let mut out = Vec::new();
        let mut it = terms.chunks(3);
        for c in &mut it {
            if c.len() < 3 {
                out.extend_from_slice(c);
                continue;
            }
            let (a, b, d) = (c[0], c[1], c[2]);
            let ab = self.n.xor(a, b);
            let s = self.n.xor(ab, d);
            let x = self.n.and(a, b);
            let y = self.n.and(ab, d);
            let cy = self.n.or(x, y);
            let cy = self.n.shlk(cy, 1);
            out.push(s);
            out.push(cy);
        }
        out
    }

    /// `x * k mod 2^64` over three register stages (partial products reduced in a carry-save tree, then one
    /// carry-propagate add); the valid and tag follow. Returns (product, valid, tag): the product is the
    /// carry-propagate sum, which the caller registers (the valid and tag are those of that register).
    fn mulk(&mut self, x: N, k: u64, v: N, t: N, kill: N) -> (N, N, N) {
        let mut terms: Vec<N> = (0..64)
            .filter(|i| (k >> i) & 1 == 1)
            .map(|i| self.n.shlk(x, i))
            .collect();
        let stage = |b: &mut Build, v: N, t: N| {
            let v1 = b.andn(v, kill);
            (b.pipe(v1), b.pipe(t))
        };
        for _ in 0..4 {
            if terms.len() > 2 {
                terms = self.csa_level(&terms);
            }
        }
        terms = terms.into_iter().map(|x| self.pipe(x)).collect();
        let (v, t) = stage(self, v, t);
        while terms.len() > 2 {
            terms = self.csa_level(&terms);
        }
        terms = terms.into_iter().map(|x| self.pipe(x)).collect();
        let (v, t) = stage(self, v, t);
        let sum = if terms.len() == 2 {
            self.n.add(terms[0], terms[1])
        } else {
            terms[0]
        };
        let (v, t) = stage(self, v, t);
        (sum, v, t)
    }

    /// (any bit set, index of the lowest set bit) of 1-bit nodes `bits` (index width 6).
    fn first_set(&mut self, bits: &[N]) -> (N, N) {
        if bits.len() == 1 {
            let z = self.n.lit(6, 0);
            return (bits[0], z);
        }
        let h = bits.len().div_ceil(2);
        let (al, il) = self.first_set(&bits[..h]);
        let (ar, ir) = self.first_set(&bits[h..]);
        let any = self.n.or(al, ar);
        // `bits.len()` is a power of two: the right half's indices are `h + ir` = `h | ir`.
        let off = self.n.lit(6, h as u64);
        let ir = self.n.or(ir, off);
        let idx = self.n.mux(al, il, ir);
        (any, idx)
    }
}

/// States.
const S_RUN: u64 = 0;
const S_CWAIT: u64 = 1;
const S_LOADC: u64 = 2;
const S_LOADB: u64 = 3;
const S_DISP: u64 = 4;
const S_CHPOP: u64 = 5;
const S_CHPOPW: u64 = 6;
const S_CHRR: u64 = 7;
const S_CHRR2: u64 = 8;
const S_CHRES: u64 = 9;
const S_RCW: u64 = 10;
const S_RCCHK: u64 = 11;
const S_OPEN: u64 = 12;
const S_FRSTART: u64 = 13;
const S_FRRUN: u64 = 14;

impl<const W: usize> PathCore<W> {
    fn new(max_paths: u32) -> Self {
        let p = max_paths as usize;
        PathCore {
            clk: Default::default(),
            rst: Default::default(),
            now: Default::default(),
            s_axis_cmd_tdata: Default::default(),
            s_axis_cmd_tvalid: Default::default(),
            s_axis_cmd_tready: Default::default(),
            s_axis_clean_tdata: Default::default(),
            s_axis_clean_tvalid: Default::default(),
            s_axis_clean_tready: Default::default(),
            m_axis_res_tdata: Default::default(),
            m_axis_res_tvalid: Default::default(),
            m_axis_res_tready: Default::default(),
            idle: Default::default(),
            ram_rd_addr: Default::default(),
            ram_rd_data: Default::default(),
            ram_wr_addr: Default::default(),
            ram_wr_data: Default::default(),
            ram_wr_en: Default::default(),
            _net: Self::build(p),
            _last: Vec::new(),
        }
    }

    fn build(p: usize) -> Net {
        let mut b = Build {
            n: Net::new(),
            asg: Vec::new(),
            excl: Vec::new(),
        };
        let pm = (p - 1) as u64;
        let cf = cmd_fields();
        let lf = clean_fields();
        // ---- ports
        let now = b.n.input("now", 64);
        let cmd = b.n.input("s_axis_cmd_tdata", PathCmd::BITS);
        let cmd_v = b.n.input("s_axis_cmd_tvalid", 1);
        let cl = b.n.input("s_axis_clean_tdata", PathClean::BITS);
        let cl_v = b.n.input("s_axis_clean_tvalid", 1);
        let res_rdy = b.n.input("m_axis_res_tready", 1);
        let rd = b.n.input("ram_rd_data", W);
        let cget = |b: &mut Build, name: &str| {
            let (o, w) = field(&cf, name);
            b.n.slice(cmd, o, w)
        };
        let lget = |b: &mut Build, name: &str| {
            let (o, w) = field(&lf, name);
            b.n.slice(cl, o, w)
        };

        // ---- registers
        let st = b.reg(4, S_RUN);
        let c_valid = b.reg(1, 0);
        let c_conn = b.reg(16, 0);
        let dirty = b.reg(1, 0);
        let k_op = b.reg(3, 0);
        let k_conn = b.reg(16, 0);
        let k_idx = b.reg(8, 0);
        let k_ev = b.reg(14, 0);
        let k_avoid = b.reg(1, 0);
        let k_n = b.reg(7, 0);
        let k_seed = b.reg(64, 0);
        let k_srtt = b.reg(32, 0);
        let now_q = b.reg(64, 0);
        let k_hit = b.reg(1, 0);
        let b_v = b.reg(1, 0);
        let b_hit = b.reg(1, 0);
        let b_conn = b.reg(16, 0);
        let b_mask = b.reg(4, 0);
        let b_idx: Vec<N> = (0..4).map(|_| b.reg(8, 0)).collect();
        let b_ev: Vec<N> = (0..4).map(|_| b.reg(14, 0)).collect();
        let res_v = b.reg(1, 0);
        let res_path = b.reg(8, 0);
        let res_ev = b.reg(14, 0);
        // The cached connection state.
        let ev: Vec<N> = (0..p).map(|_| b.reg(14, 0)).collect();
        let slot: Vec<N> = (0..p).map(|_| b.reg(6, 0)).collect();
        let q: Vec<N> = (0..p).map(|_| b.reg(1, 0)).collect();
        let head = b.reg(6, 0);
        let tail = b.reg(6, 0);
        let cnt = b.reg(7, 0);
        let next = b.reg(6, 0);
        let nn = b.reg(7, 0);
        let rng = b.reg(64, 0);
        let frozen = b.reg(64, 0);
        let span = b.reg(34, 0);
        // The entry a command works on (CHOOSE's pick, the recycled entry, OPEN's entry being drawn).
        let ch_i = b.reg(6, 0);
        // Each state assigns these at most once, under conditions that exclude each other.
        b.excl.push(st);
        b.excl.push(ch_i);
        // Fresh-EV control.
        let mz = b.reg(64, 0);
        let mz_v = b.reg(1, 0);
        let mz_t = b.reg(3, 0);
        let iss = b.reg(3, 0);
        let rs = b.reg(64, 0);
        let fr_lim = b.reg(7, 0);
        // Draws made ahead for the cached connection: a run in progress, its results ready, and per draw the
        // EV and whether it duplicates an entry.
        let pre_run = b.reg(1, 0);
        let pre_ok = b.reg(1, 0);
        let pre_ev: Vec<N> = (0..4).map(|_| b.reg(14, 0)).collect();
        let pre_dup: Vec<N> = (0..4).map(|_| b.reg(1, 0)).collect();

        // ---- decode
        let is = |b: &mut Build, s: u64| b.n.eqk(st, s);
        let s_run = is(&mut b, S_RUN);
        let s_cwait = is(&mut b, S_CWAIT);
        let s_loadc = is(&mut b, S_LOADC);
        let s_loadb = is(&mut b, S_LOADB);
        let s_disp = is(&mut b, S_DISP);
        let s_chpop = is(&mut b, S_CHPOP);
        let s_chpopw = is(&mut b, S_CHPOPW);
        let s_chrr = is(&mut b, S_CHRR);
        let s_chrr2 = is(&mut b, S_CHRR2);
        let s_chres = is(&mut b, S_CHRES);
        let s_rcw = is(&mut b, S_RCW);
        let s_rcchk = is(&mut b, S_RCCHK);
        let s_open = is(&mut b, S_OPEN);
        let s_frstart = is(&mut b, S_FRSTART);
        let s_frrun = is(&mut b, S_FRRUN);
        let op_open = b.n.eqk(k_op, OP_OPEN);
        let op_choose = b.n.eqk(k_op, OP_CHOOSE);
        let op_ece = b.n.eqk(k_op, OP_RECYCLE_ECE);
        let op_trim = b.n.eqk(k_op, OP_RECYCLE_TRIM);
        let op_loss = b.n.eqk(k_op, OP_RECYCLE_LOSS);
        let op_srtt = b.n.eqk(k_op, OP_SET_SRTT);
        let nn_hi = b.n.slice(nn, 1, 6);
        let ngt1 = b.n.any(nn_hi);
        let nn8 = b.n.resize(nn, 8);
        let w_v = b.reg(1, 0);
        let x_v = b.reg(1, 0);
        let y_v = b.reg(1, 0);
        let wx = b.n.or(w_v, x_v);
        let busy = b.n.or(wx, y_v);

        // ---- handshakes
        let nbv = b.n.not(b_v);
        let nres = b.n.not(res_v);
        let cmd_rdy = b.and3(s_run, nbv, nres);
        let ncmdv = b.n.not(cmd_v);
        let bfree = b.n.or(nbv, b_hit);
        let cl_rdy = b.and3(s_run, bfree, ncmdv);
        let cmd_fire = b.n.and(cmd_v, cmd_rdy);
        let cl_fire = b.n.and(cl_v, cl_rdy);
        let in_conn = cget(&mut b, "conn");
        let eqc = b.n.eq(in_conn, c_conn);
        let cmd_hit_in = b.n.and(c_valid, eqc);
        for (r, name) in [
            (k_op, "op"),
            (k_conn, "conn"),
            (k_idx, "idx"),
            (k_ev, "ev"),
            (k_avoid, "avoid"),
            (k_n, "n"),
            (k_seed, "seed"),
            (k_srtt, "srtt"),
        ] {
            let v = cget(&mut b, name);
            b.set(r, cmd_fire, v);
        }
        b.set(now_q, cmd_fire, now);
        b.set(k_hit, cmd_fire, cmd_hit_in);
        let l_conn = lget(&mut b, "conn");
        let eql = b.n.eq(l_conn, c_conn);
        let cl_hit_in = b.n.and(c_valid, eql);
        b.set(b_conn, cl_fire, l_conn);
        let l_mask = lget(&mut b, "mask");
        b.set(b_mask, cl_fire, l_mask);
        for k in 0..4 {
            let i = lget(&mut b, &format!("idx{k}"));
            b.set(b_idx[k], cl_fire, i);
            let e = lget(&mut b, &format!("ev{k}"));
            b.set(b_ev[k], cl_fire, e);
        }
        b.set(b_hit, cl_fire, cl_hit_in);
        let b_go = b.and3(s_run, b_v, b_hit);
        let nbh = b.n.not(b_hit);
        let nbusy = b.n.not(busy);
        let bm = b.and3(s_run, b_v, nbh);
        let b_miss = b.n.and(bm, nbusy);
        b.setk(b_v, b_go, 0);
        b.setk(b_v, cl_fire, 1);
        let iw = b.and3(s_run, nbv, nbusy);
        let idle_wb = b.n.and(iw, dirty);
        let cw_go = b.n.and(s_cwait, nbusy);
        let cw_open = b.n.and(cw_go, op_open);
        let cw_rest = b.andn(cw_go, op_open);
        let cw_hit = b.n.and(cw_rest, k_hit);
        let cw_miss = b.andn(cw_rest, k_hit);

        // ---- state RAM port (writes only from the cache, reads only on a miss)
        let cd = b.n.and(c_valid, dirty);
        let w1 = b.n.and(b_miss, cd);
        let w2a = b.n.and(cw_open, cd);
        let w2 = b.andn(w2a, k_hit);
        let w3 = b.n.and(cw_miss, cd);
        let wa = b.n.or(idle_wb, w1);
        let wb_ = b.n.or(w2, w3);
        let wb_en = b.n.or(wa, wb_);
        let mut parts: Vec<N> = Vec::new();
        parts.extend_from_slice(&ev);
        parts.extend_from_slice(&slot);
        parts.extend_from_slice(&q);
        parts.extend_from_slice(&[head, tail, cnt, next, nn, rng, frozen, span]);
        let word = b.n.cat(&parts);
        assert_eq!(b.n.width(word), W);
        b.n.output("ram_wr_en", wb_en);
        b.n.output("ram_wr_addr", c_conn);
        b.n.output("ram_wr_data", word);
        let ra = b.n.mux(s_cwait, k_conn, b_conn);
        b.n.output("ram_rd_addr", ra);
        let ld = b.n.or(s_loadb, s_loadc);
        {
            let mut off = 0;
            let all: Vec<N> = parts.clone();
            for r in all {
                let w = b.n.width(r);
                let f = b.n.slice(rd, off, w);
                b.set(r, ld, f);
                off += w;
            }
        }
        b.set(c_conn, s_loadb, b_conn);
        let lco = b.n.or(s_loadc, s_open);
        b.set(c_conn, lco, k_conn);
        let lo = b.n.or(ld, s_open);
        b.setk(c_valid, lo, 1);
        b.setk(b_hit, s_loadb, 1);
        b.setk(dirty, idle_wb, 0);
        b.setk(dirty, ld, 0);
        let d1 = b.n.or(b_go, s_disp);
        let d2 = b.n.or(d1, s_open);
        b.setk(dirty, d2, 1);

        // ---- lookups (registered every cycle from stable command fields and the cache)
        let kidx6 = b.n.slice(k_idx, 0, 6);
        let ev_k = b.n.sel(kidx6, &ev);
        let ev_at_q = b.pipe(ev_k);
        let sl_h = b.n.sel(head, &slot);
        let slot_at_q = b.pipe(sl_h);
        let nmask = b.n.thermo(nn, p);
        let mt_eq: Vec<N> = (0..p)
            .map(|i| {
                let e = b.n.eq(ev[i], k_ev);
                let m = b.n.bit(nmask, i);
                let a = b.n.and(e, m);
                b.pipe(a)
            })
            .collect();
        let (mt_any, mt_idx) = b.first_set(&mt_eq);
        let mt_found_q = b.pipe(mt_any);
        let mt_first_q = b.pipe(mt_idx);
        // now + freeze_span (saturating) against frozen_until; now against frozen_until.
        let now65 = b.n.resize(now_q, 65);
        let span65 = b.n.resize(span, 65);
        let s65 = b.n.add(now65, span65);
        let sat = b.n.bit(s65, 64);
        let s64 = b.n.slice(s65, 0, 64);
        let ones = b.n.lit(64, u64::MAX);
        let fzs = b.n.mux(sat, ones, s64);
        let fz_sum_q = b.pipe(fzs);
        let fz_hi = b.n.slice(fz_sum_q, 32, 32);
        let fz_lo = b.n.slice(fz_sum_q, 0, 32);
        let fr_hi = b.n.slice(frozen, 32, 32);
        let fr_lo = b.n.slice(frozen, 0, 32);
        let t = b.n.ult(fr_hi, fz_hi);
        let fz_hgt = b.pipe(t);
        let t = b.n.eq(fr_hi, fz_hi);
        let fz_heq = b.pipe(t);
        let t = b.n.ult(fr_lo, fz_lo);
        let fz_lgt = b.pipe(t);
        let t = b.n.and(fz_heq, fz_lgt);
        let fz_gt = b.n.or(fz_hgt, t);
        let nw_hi = b.n.slice(now_q, 32, 32);
        let nw_lo = b.n.slice(now_q, 0, 32);
        let t = b.n.ult(fr_hi, nw_hi);
        let ge_hgt = b.pipe(t);
        let t = b.n.eq(fr_hi, nw_hi);
        let ge_heq = b.pipe(t);
        let t = b.n.ult(nw_lo, fr_lo);
        let t = b.n.not(t);
        let ge_lge = b.pipe(t);
        let t = b.n.and(ge_heq, ge_lge);
        let ge = b.n.or(ge_hgt, t);

        // ---- clean acknowledgements: X (EV check), Y (queued check, queue), then the FIFO push
        let b_mask_bits: Vec<N> = (0..4).map(|k| b.n.bit(b_mask, k)).collect();
        let bi6: Vec<N> = (0..4).map(|k| b.n.slice(b_idx[k], 0, 6)).collect();
        let mut x_ok = Vec::new();
        let mut x_i = Vec::new();
        for k in 0..4 {
            // W: the lane's entry EV and the range check; X: the EV comparison.
            let lt = b.n.ult(b_idx[k], nn8);
            let pre = b.n.and(b_mask_bits[k], lt);
            let pre_q = b.pipe(pre);
            let e = b.n.sel(bi6[k], &ev);
            let e_q = b.pipe(e);
            let lev_q = b.pipe(b_ev[k]);
            let i_q = b.pipe(bi6[k]);
            let m = b.n.eq(e_q, lev_q);
            let ok = b.n.and(pre_q, m);
            x_ok.push(b.pipe(ok));
            x_i.push(b.pipe(i_q));
        }
        // x_eq[k][j]: lanes j < k name the same entry.
        let mut x_eq: Vec<Vec<N>> = Vec::new();
        for k in 0..4 {
            let row: Vec<N> = (0..k)
                .map(|j| {
                    let e = b.n.eq(bi6[j], bi6[k]);
                    let e = b.pipe(e);
                    b.pipe(e)
                })
                .collect();
            x_eq.push(row);
        }
        let one = b.n.lit(1, 1);
        b.set(w_v, one, b_go);
        b.set(x_v, one, w_v);
        let mut acc = Vec::new();
        for k in 0..4 {
            let mut pre = x_ok[k];
            for (j, &d) in x_eq[k].iter().enumerate() {
                let dj = b.n.and(x_ok[j], d);
                pre = b.andn(pre, dj);
            }
            let qk = b.n.sel(x_i[k], &q);
            let a = b.andn(pre, qk);
            let a = b.n.and(a, x_v);
            acc.push(a);
        }
        for (i, &qr) in q.iter().enumerate() {
            let hits: Vec<N> = (0..4)
                .map(|k| {
                    let e = b.n.eqk(x_i[k], i as u64);
                    b.n.and(acc[k], e)
                })
                .collect();
            let s = b.n.or_all(&hits);
            b.setk(qr, s, 1);
        }
        let y_acc: Vec<N> = acc.iter().map(|&a| b.pipe(a)).collect();
        let y_i: Vec<N> = x_i.iter().map(|&a| b.pipe(a)).collect();
        b.set(y_v, one, x_v);
        let a2: Vec<N> = y_acc.iter().map(|&a| b.n.resize(a, 3)).collect();
        let r1 = a2[0];
        let r2 = b.n.add(r1, a2[1]);
        let r3 = b.n.add(r2, a2[2]);
        let tot = b.n.add(r3, a2[3]);
        let zero3 = b.n.lit(3, 0);
        let ranks = [zero3, r1, r2, r3];
        let pmask = b.n.lit(6, pm);
        for (s, &sr) in slot.iter().enumerate() {
            let sk = b.n.lit(6, s as u64);
            let ds = b.n.sub(sk, tail);
            let ds = b.n.and(ds, pmask);
            let mut data = sr;
            let mut hits = Vec::new();
            for k in (0..4).rev() {
                let rk = b.n.resize(ranks[k], 6);
                let e = b.n.eq(ds, rk);
                let h = b.n.and(y_acc[k], e);
                data = b.n.mux(h, y_i[k], data);
                hits.push(h);
            }
            let wen = b.n.or_all(&hits);
            b.set(sr, wen, data);
        }
        let tot6 = b.n.resize(tot, 6);
        let nt = b.n.add(tail, tot6);
        let nt = b.n.and(nt, pmask);
        b.set(tail, y_v, nt);
        let tot7 = b.n.resize(tot, 7);
        let nc = b.n.add(cnt, tot7);
        b.set(cnt, y_v, nc);

        // ---- state machine
        b.setk(st, cmd_fire, S_CWAIT);
        b.setk(st, b_miss, S_LOADB);
        b.setk(st, cw_open, S_OPEN);
        b.setk(st, cw_hit, S_DISP);
        b.setk(st, cw_miss, S_LOADC);
        b.setk(st, s_loadb, S_RUN);
        b.setk(st, s_loadc, S_DISP);
        // DISP
        let cnt_nz = b.n.any(cnt);
        let dch = b.n.and(s_disp, op_choose);
        let dch_pop = b.n.and(dch, cnt_nz);
        let dch_rr = b.andn(dch, cnt_nz);
        let rc1 = b.n.or(op_ece, op_trim);
        let rc = b.n.or(rc1, op_loss);
        let drc = b.n.and(s_disp, rc);
        let dother = b.n.or(op_choose, rc);
        let dother = b.andn(s_disp, dother);
        b.setk(st, dother, S_RUN);
        b.setk(st, dch_pop, S_CHPOP);
        b.setk(st, dch_rr, S_CHRR);
        b.setk(st, drc, S_RCW);
        let dsr = b.n.and(s_disp, op_srtt);
        let z2 = b.n.lit(2, 0);
        let sp = b.n.cat(&[z2, k_srtt]);
        b.set(span, dsr, sp);
        // CHPOP: pop the head entry; use it unless it is the avoided one.
        let pi = slot_at_q;
        let h1 = b.n.addk(head, 1);
        let h1 = b.n.and(h1, pmask);
        b.set(head, s_chpop, h1);
        let c1 = b.n.addk(cnt, 127);
        b.set(cnt, s_chpop, c1);
        for (i, &qr) in q.iter().enumerate() {
            let e = b.n.eqk(pi, i as u64);
            let c = b.n.and(s_chpop, e);
            b.setk(qr, c, 0);
        }
        let pi7 = b.n.resize(pi, 7);
        let plt = b.n.ult(pi7, nn);
        let pi8 = b.n.resize(pi, 8);
        let peq = b.n.eq(k_idx, pi8);
        let pav = b.and3(ngt1, k_avoid, peq);
        let pok = b.andn(plt, pav);
        let pgo = b.n.and(s_chpop, pok);
        b.set(ch_i, pgo, pi);
        let cnt1 = b.n.eqk(cnt, 1);
        let pbad = b.andn(s_chpop, pok);
        let pmore = b.andn(pbad, cnt1);
        let plast = b.n.and(pbad, cnt1);
        b.setk(st, pgo, S_CHRES);
        b.setk(st, pmore, S_CHPOPW);
        b.setk(st, plast, S_CHRR);
        b.setk(st, s_chpopw, S_CHPOP);
        // CHRR: the round-robin entry (skipping the avoided one); CHRR2: advance, explore or not.
        let step = |b: &mut Build, j: N| {
            let j7 = b.n.resize(j, 7);
            let j1 = b.n.addk(j7, 1);
            let lt = b.n.ult(j1, nn);
            let j16 = b.n.slice(j1, 0, 6);
            let z = b.n.lit(6, 0);
            b.n.mux(lt, j16, z)
        };
        let nx8 = b.n.resize(next, 8);
        let neq = b.n.eq(k_idx, nx8);
        let nav = b.and3(ngt1, k_avoid, neq);
        let snext = step(&mut b, next);
        // Registered every cycle (next, n and idx are stable for two cycles before CHRR).
        let pick = b.n.mux(nav, snext, next);
        let pick_q = b.pipe(pick);
        b.set(ch_i, s_chrr, pick_q);
        b.setk(st, s_chrr, S_CHRR2);
        let sch = step(&mut b, ch_i);
        b.set(next, s_chrr2, sch);
        let explore = b.n.and(ngt1, ge);
        let ex = b.n.and(s_chrr2, explore);
        let nex = b.andn(s_chrr2, explore);
        b.setk(st, ex, S_FRSTART);
        b.setk(st, nex, S_CHRES);
        // CHRES: answer with the entry's EV.
        let ev_ch = b.n.sel(ch_i, &ev);
        b.setk(res_v, res_rdy, 0);
        b.setk(res_v, s_chres, 1);
        b.set(res_path, s_chres, ch_i);
        b.set(res_ev, s_chres, ev_ch);
        b.setk(st, s_chres, S_RUN);
        // RCW, RCCHK: recycle decisions.
        b.setk(st, s_rcw, S_RCCHK);
        let tl_lt = b.n.ult(k_idx, nn8);
        let tl_eq = b.n.eq(ev_at_q, k_ev);
        let tl_ok = b.n.and(tl_lt, tl_eq);
        let tl = b.n.or(op_trim, op_loss);
        let g1 = b.n.and(op_ece, mt_found_q);
        let g2 = b.n.and(tl, tl_ok);
        let g = b.n.or(g1, g2);
        let rgo = b.n.and(s_rcchk, g);
        let rno = b.andn(s_rcchk, g);
        let rce = b.n.and(s_rcchk, op_ece);
        let rctl = b.andn(s_rcchk, op_ece);
        b.set(ch_i, rce, mt_first_q);
        b.set(ch_i, rctl, kidx6);
        let lz = b.and3(rgo, op_loss, fz_gt);
        b.set(frozen, lz, fz_sum_q);
        b.setk(st, rgo, S_FRSTART);
        b.setk(st, rno, S_RUN);
        // OPEN: PathSet::new.
        let kn0 = b.n.eqk(k_n, 0);
        let pk = b.n.lit(7, p as u64);
        let big = b.n.ult(pk, k_n);
        let one7 = b.n.lit(7, 1);
        let nc1 = b.n.mux(big, pk, k_n);
        let ncl = b.n.mux(kn0, one7, nc1);
        b.set(nn, s_open, ncl);
        let gk = b.n.lit(64, GAMMA);
        let seed0 = b.n.xor(k_seed, gk);
        b.set(rng, s_open, seed0);
        for &r in ev.iter().chain(slot.iter()).chain(q.iter()) {
            b.setk(r, s_open, 0);
        }
        for r in [head, tail, cnt, next, frozen, span, ch_i] {
            b.setk(r, s_open, 0);
        }
        b.setk(st, s_open, S_FRSTART);
        // FRSTART / FRRUN: a fresh EV for entry ch_i. FRSTART takes the drawn-ahead EVs when they are ready (and
        // not for OPEN, whose entries are drawn against the ones drawn so far); otherwise it draws now.
        let fast0 = b.n.and(s_frstart, pre_ok);
        let fast = b.andn(fast0, op_open);
        let slow = b.andn(s_frstart, fast);
        let g1s = b.n.addk(rng, GAMMA);
        b.set(mz, slow, g1s);
        b.set(rs, slow, g1s);
        b.setk(mz_t, slow, 0);
        b.setk(iss, slow, 1);
        let chi7 = b.n.resize(ch_i, 7);
        let lim = b.n.mux(op_open, chi7, nn);
        b.set(fr_lim, slow, lim);
        b.setk(st, slow, S_FRRUN);
        let iss4 = b.n.eqk(iss, 4);
        let issuing = b.andn(s_frrun, iss4);
        let mzg = b.n.addk(mz, GAMMA);
        b.set(mz, issuing, mzg);
        let it = b.n.slice(iss, 0, 2);
        b.set(mz_t, issuing, it);
        let iss1 = b.n.addk(iss, 1);
        b.set(iss, issuing, iss1);
        // Drawing ahead: while the cached connection's next draws are not known and the mixing pipeline is
        // free, its four next draws go through the pipeline (tagged with bit 2) and are kept with their
        // duplicate flags against the entries; the entries and the generator state change only by a fresh
        // EV, an OPEN or a cache load, which drop what was drawn ahead (and stop a run in progress).
        let busy_fr = b.n.or(s_frstart, s_frrun);
        let ld_any = b.n.or(s_loadb, s_loadc);
        let stop_c = b.n.or(busy_fr, ld_any);
        let stop_c = b.n.or(stop_c, s_open);
        let pre_abort = b.n.and(pre_run, stop_c);
        let npo = b.n.not(pre_ok);
        let npr = b.n.not(pre_run);
        let bg0 = b.and3(s_run, c_valid, npo);
        let bg_go = b.n.and(bg0, npr);
        b.set(mz, bg_go, g1s);
        b.setk(mz_t, bg_go, 4);
        b.setk(iss, bg_go, 1);
        b.set(fr_lim, bg_go, nn);
        b.setk(pre_run, bg_go, 1);
        let bgi = b.andn(pre_run, iss4);
        let bg_iss = b.andn(bgi, stop_c);
        b.set(mz, bg_iss, mzg);
        let four = b.n.lit(1, 1);
        let itb = b.n.cat(&[it, four]);
        b.set(mz_t, bg_iss, itb);
        b.set(iss, bg_iss, iss1);
        let mv = b.n.or(slow, issuing);
        let bgv = b.n.or(bg_go, bg_iss);
        let mv = b.n.or(mv, bgv);
        b.set(mz_v, mv, mv);
        let nmv = b.n.not(mv);
        b.setk(mz_v, nmv, 0);
        // The mixing pipeline.
        let kill = b.n.wire(1);
        let zs = b.shrk(mz, 30);
        let x1 = b.n.xor(mz, zs);
        let (z1, v1, t1) = b.mulk(x1, MIX1, mz_v, mz_t, kill);
        let z1 = b.pipe(z1);
        let zs = b.shrk(z1, 27);
        let x2 = b.n.xor(z1, zs);
        let (z2, v2, t2) = b.mulk(x2, MIX2, v1, t1, kill);
        // EV = bits 45:32 of z2 ^ (z2 >> 31), registered with the product.
        let b32 = b.n.bit(z2, 32);
        let b63 = b.n.bit(z2, 63);
        let e0 = b.n.xor(b32, b63);
        let ehi = b.n.slice(z2, 33, 13);
        let draw = b.n.cat(&[e0, ehi]);
        let draw = b.pipe(draw);
        let lmask = b.n.thermo(fr_lim, p);
        let lmask = b.pipe(lmask);
        let dups: Vec<N> = (0..p)
            .map(|i| {
                let e = b.n.eq(draw, ev[i]);
                let m = b.n.bit(lmask, i);
                b.n.and(e, m)
            })
            .collect();
        let dup = b.n.or_all(&dups);
        let rv = b.andn(v2, kill);
        let r_v = b.pipe(rv);
        let r_t = b.pipe(t2);
        let r_ev = b.pipe(draw);
        let r_dup = b.pipe(dup);
        let last = b.n.eqk(r_t, 3);
        let ndup = b.n.not(r_dup);
        let take_it = b.n.or(ndup, last);
        let r_bg = b.n.bit(r_t, 2);
        let r_fr = b.andn(r_v, r_bg);
        let racc = b.n.and(r_fr, take_it);
        let done = b.n.and(s_frrun, racc);
        let rej = b.andn(r_fr, take_it);
        let rej = b.n.and(s_frrun, rej);
        let kl = b.n.or(done, pre_abort);
        b.n.drive(kill, kl);
        let rsg = b.n.addk(rs, GAMMA);
        b.set(rs, rej, rsg);
        b.set(rng, done, rs);
        // The draws made ahead arrive in order; the fourth completes them.
        let cap0 = b.n.and(r_v, r_bg);
        let cap1 = b.n.and(cap0, pre_run);
        let cap = b.andn(cap1, pre_abort);
        let r_k = b.n.slice(r_t, 0, 2);
        for k in 0..4 {
            let ek = b.n.eqk(r_k, k as u64);
            let c = b.n.and(cap, ek);
            b.set(pre_ev[k], c, r_ev);
            b.set(pre_dup[k], c, r_dup);
        }
        let k3 = b.n.eqk(r_k, 3);
        let cap3 = b.n.and(cap, k3);
        b.setk(pre_ok, cap3, 1);
        b.setk(pre_run, cap3, 0);
        b.setk(pre_run, pre_abort, 0);
        // FRSTART with the draws made ahead: the first without a duplicate (or the fourth) is taken and the
        // generator advances by the draws it took, as the sequential loop does.
        let nd: Vec<N> = pre_dup.iter().map(|&d| b.n.not(d)).collect();
        let g = |k: u64| GAMMA.wrapping_mul(k);
        let e3 = pre_ev[3];
        let i3 = b.n.lit(64, g(4));
        let e2 = b.n.mux(nd[2], pre_ev[2], e3);
        let i2k = b.n.lit(64, g(3));
        let i2 = b.n.mux(nd[2], i2k, i3);
        let e1 = b.n.mux(nd[1], pre_ev[1], e2);
        let i1k = b.n.lit(64, g(2));
        let i1 = b.n.mux(nd[1], i1k, i2);
        let f_ev = b.n.mux(nd[0], pre_ev[0], e1);
        let i0k = b.n.lit(64, g(1));
        let f_inc = b.n.mux(nd[0], i0k, i1);
        let f_rng = b.n.add(rng, f_inc);
        b.set(rng, fast, f_rng);
        for (i, &er) in ev.iter().enumerate() {
            let e = b.n.eqk(ch_i, i as u64);
            let c = b.n.and(done, e);
            b.set(er, c, r_ev);
            let cf = b.n.and(fast, e);
            b.set(er, cf, f_ev);
        }
        b.setk(st, fast, S_RUN);
        let fres = b.n.and(fast, op_choose);
        b.setk(res_v, fres, 1);
        b.set(res_path, fres, ch_i);
        b.set(res_ev, fres, f_ev);
        // Whatever changes the entries or the generator state drops the draws made ahead.
        let inv0 = b.n.or(done, fast);
        let inv1 = b.n.or(ld_any, s_open);
        let inv = b.n.or(inv0, inv1);
        b.setk(pre_ok, inv, 0);
        let c8 = b.n.addk(chi7, 1);
        let more = b.n.ult(c8, nn);
        let omore = b.n.and(op_open, more);
        let dmore = b.n.and(done, omore);
        let dend = b.andn(done, omore);
        let ch1 = b.n.addk(ch_i, 1);
        b.set(ch_i, dmore, ch1);
        b.setk(st, dmore, S_FRSTART);
        b.setk(st, dend, S_RUN);
        let dres = b.n.and(done, op_choose);
        b.setk(res_v, dres, 1);
        b.set(res_path, dres, ch_i);
        b.set(res_ev, dres, r_ev);

        // ---- outputs
        let rf = res_fields();
        let mut rparts = [(field(&rf, "path"), res_path), (field(&rf, "ev"), res_ev)];
        rparts.sort_by_key(|x| x.0 .0);
        let rvec: Vec<N> = rparts.iter().map(|x| x.1).collect();
        let rdata = b.n.cat(&rvec);
        b.n.output("s_axis_cmd_tready", cmd_rdy);
        b.n.output("s_axis_clean_tready", cl_rdy);
        b.n.output("m_axis_res_tdata", rdata);
        b.n.output("m_axis_res_tvalid", res_v);
        let i1 = b.and3(s_run, nbv, nbusy);
        let nd = b.n.not(dirty);
        let i2 = b.and3(i1, nd, nres);
        b.n.output("idle", i2);
        b.finish()
    }
}

impl<const W: usize> Logic for PathCore<W> {
    fn update(&mut self) {
        let mut ins = Vec::with_capacity(8);
        ins.push(self.rst.val() as u64);
        ins.push(self.now.val().to_u64());
        ins.extend(self.s_axis_cmd_tdata.val().to_words());
        ins.push(self.s_axis_cmd_tvalid.val() as u64);
        ins.extend(self.s_axis_clean_tdata.val().to_words());
        ins.push(self.s_axis_clean_tvalid.val() as u64);
        ins.push(self.m_axis_res_tready.val() as u64);
        ins.extend(self.ram_rd_data.val().to_words());
        let edge = self.clk.pos_edge();
        if edge || ins != self._last {
            self._net.set("rst", &[ins[0]]);
            self._net.set("now", &[ins[1]]);
            self._net
                .set("s_axis_cmd_tdata", &self.s_axis_cmd_tdata.val().to_words());
            self._net
                .set("s_axis_cmd_tvalid", &[self.s_axis_cmd_tvalid.val() as u64]);
            self._net.set(
                "s_axis_clean_tdata",
                &self.s_axis_clean_tdata.val().to_words(),
            );
            self._net.set(
                "s_axis_clean_tvalid",
                &[self.s_axis_clean_tvalid.val() as u64],
            );
            self._net
                .set("m_axis_res_tready", &[self.m_axis_res_tready.val() as u64]);
            self._net
                .set("ram_rd_data", &self.ram_rd_data.val().to_words());
            if edge {
                self._net.tick();
            } else {
                self._net.eval();
            }
            self._last = ins;
        }
        self.s_axis_cmd_tready.next = self._net.get_u64("s_axis_cmd_tready") & 1 == 1;
        self.s_axis_clean_tready.next = self._net.get_u64("s_axis_clean_tready") & 1 == 1;
        self.m_axis_res_tdata.next = PathRes::from_words(&self._net.get("m_axis_res_tdata"));
        self.m_axis_res_tvalid.next = self._net.get_u64("m_axis_res_tvalid") & 1 == 1;
        self.idle.next = self._net.get_u64("idle") & 1 == 1;
        self.ram_rd_addr.next = Bits::<16>::from_words(&self._net.get("ram_rd_addr"));
        self.ram_wr_addr.next = Bits::<16>::from_words(&self._net.get("ram_wr_addr"));
        self.ram_wr_data.next = wide(&self._net.get("ram_wr_data"));
        self.ram_wr_en.next = self._net.get_u64("ram_wr_en") & 1 == 1;
    }

    fn connect(&mut self) {
        self.s_axis_cmd_tready.connect();
        self.s_axis_clean_tready.connect();
        self.m_axis_res_tdata.connect();
        self.m_axis_res_tvalid.connect();
        self.idle.connect();
        self.ram_rd_addr.connect();
        self.ram_wr_addr.connect();
        self.ram_wr_data.connect();
        self.ram_wr_en.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(self._net.verilog())
    }
}

/// This file's blocks.
pub fn blocks() -> Vec<BlockSpec> {
    vec![BlockSpec {
        name: "metaroce_rel_path_select",
        area: "rel",
        description: "per-connection EV set: ready FIFO, round robin, SplitMix64 fresh EVs, recycling (MR-PATH)",
        verilog: |cfg| {
            crate::gen::verilog(
                "metaroce_rel_path_select",
                PathSelect64::new(cfg.conn_bits),
            )
        },
    }]
}
