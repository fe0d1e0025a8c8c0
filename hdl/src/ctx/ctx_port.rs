//! The context-programming port: a register window on the internal bus through which the firmware writes
//! context-table entries (connections, QPs, memory regions, CQs). It stages one 64-byte entry, then a COMMIT
//! broadcasts it as one [`CtxWrite`] to every table (`m_axis_ctxw_*`, no back-pressure) and, for a connection
//! entry whose `state` is OPEN (`metaroce_regmap::context::conn`), also emits a [`ConnOpen`] on `m_axis_open_*`
//! so that every pipeline initialises its per-connection state (MR-CONN-28).
//!
//! Register window (byte offsets within the block's window, 32-bit registers; defined in
//! `metaroce_regmap::ctxport`):
//!
//! | offset | name | access | meaning |
//! |---|---|---|---|
//! | 0x00..0x3C | `STAGE[0..16]` | RW | the entry, word k = bytes 4k..4k+3 (little-endian, the regmap layout) |
//! | 0x40 | `TABLE` | RW | table id, bits 3:0 ([`crate::ctx::table`]; CQ = [`crate::rx::cq_writer::CQ_TABLE`]) |
//! | 0x44 | `INDEX` | RW | entry index, bits 15:0 |
//! | 0x48 | `COMMIT` | WO | any write: broadcast the staged entry to `TABLE[INDEX]` |
//! | 0x4C | `STATUS` | RO | bit 0 `busy` (a commit is waiting for `m_axis_open_tready`); bits 31:16 commits done |
//! | 0x50 | `OPEN_PARAM` | RW | for ConnOpen: `mtu_log` bits 3:0 (reset 12), `paths` bits 14:8 (reset 16), `rx_only` bit 16 (reset 0) |
//! | 0x54 | `OPEN_SEED` | RW | for ConnOpen: the EV-set seed (reset 0) |
//!
//! `ConnOpen` fields: `conn` = INDEX, `isn` = the entry's `snd_nxt`, `peer_isn` = `rcv_nxt`, `peer_wlog` =
//! `peer_wlog_m8`, `own_wlog` = `own_wlog_m8`, `peer_cid` = `peer_cid` (all from the staged CONN entry,
//! regmap offsets), `mtu_log`, `paths` and `rx_only` from OPEN_PARAM, `seed` = OPEN_SEED (the connection entry
//! has no field for them). With `rx_only` the commit opens the receive direction of a connection whose send
//! direction is already open (the firmware's answer to the peer's first Open extension after a 0-RTT open,
//! MR-CONN-16): the receive pipelines initialise it from `rcv_nxt`, the send pipelines ignore it, and the
//! entry's other fields go to the tables as in any commit. The firmware waits for `STATUS.busy == 0` before changing the staging area after a COMMIT.
//! Reads: `cfg_rd_data` / `cfg_rd_valid` one cycle after `cfg_rd_en` (other offsets read 0).
//! Latency: the broadcast leaves one cycle after the COMMIT write (or as soon as the open stream is ready).

use crate::common::zext::Zext;
use crate::records::CtxWrite;
use crate::rel::records::ConnOpen;
use crate::rx::mr_check::Lit;
use metaroce_regmap::context::conn::field as cf;
use rust_hdl::prelude::*;

/// Register offsets of the window (`metaroce_regmap::ctxport`).
pub use metaroce_regmap::ctxport::reg;

/// The staging area: sixteen 32-bit registers written one at a time, read as one 512-bit word (custom block:
/// a word write at a variable index).
#[derive(LogicBlock, Default)]
pub struct StageRegs {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Write enable.
    pub wr_en: Signal<In, Bit>,
    /// Word index.
    pub wr_word: Signal<In, Bits<4>>,
    /// Word value.
    pub wr_data: Signal<In, Bits<32>>,
    /// Read word index.
    pub rd_word: Signal<In, Bits<4>>,
    /// The word at `rd_word` (combinational).
    pub rd_data: Signal<Out, Bits<32>>,
    /// All sixteen words.
    pub all: Signal<Out, Bits<512>>,
    _q: Bits<512>,
}

impl Logic for StageRegs {
    fn update(&mut self) {
        if self.clk.pos_edge() && self.wr_en.val() {
            let k = self.wr_word.val().index() * 32;
            let mut v = self._q;
            for i in 0..32 {
                v = v.replace_bit(k + i, self.wr_data.val().get_bit(i));
            }
            self._q = v;
        }
        self.all.next = self._q;
        self.rd_data.next = self._q.get_bits::<32>(self.rd_word.val().index() * 32);
    }

    fn connect(&mut self) {
        self.rd_data.connect();
        self.all.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "\
initial all = 512'd0;
always @(posedge clk) begin
   if (wr_en) all[{wr_word, 5'd0} +: 32] <= wr_data;
end
always @(*) rd_data = all[{rd_word, 5'd0} +: 32];
"
            .into(),
        )
    }
}

/// The context-programming port.
#[derive(LogicBlock, Default)]
pub struct CtxPort {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// Register write strobe.
    pub cfg_wr_en: Signal<In, Bit>,
    /// Register write byte address (within the window).
    pub cfg_wr_addr: Signal<In, Bits<24>>,
    /// Register write data.
    pub cfg_wr_data: Signal<In, Bits<32>>,
    /// Register read strobe.
    pub cfg_rd_en: Signal<In, Bit>,
    /// Register read byte address.
    pub cfg_rd_addr: Signal<In, Bits<24>>,
    /// Read data.
    pub cfg_rd_data: Signal<Out, Bits<32>>,
    /// Read data valid.
    pub cfg_rd_valid: Signal<Out, Bit>,
    /// Context-write broadcast.
    pub m_axis_ctxw_tdata: Signal<Out, CtxWrite>,
    /// Broadcast valid (one cycle).
    pub m_axis_ctxw_tvalid: Signal<Out, Bit>,
    /// Connection opened.
    pub m_axis_open_tdata: Signal<Out, ConnOpen>,
    /// Valid.
    pub m_axis_open_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_open_tready: Signal<In, Bit>,
    stage: StageRegs,
    x_table: Zext<4, 32>,
    x_index: Zext<16, 32>,
    x_commits: Zext<16, 32>,
    table_r: DFF<Bits<4>>,
    index_r: DFF<Bits<16>>,
    param_r: DFF<Bits<32>>,
    seed_r: DFF<Bits<32>>,
    pend: DFF<Bit>,
    commits: DFF<Bits<16>>,
    ctxw: DFF<CtxWrite>,
    ctxw_v: DFF<Bit>,
    open: DFF<ConnOpen>,
    open_v: DFF<Bit>,
    rdata: DFF<Bits<32>>,
    rvalid: DFF<Bit>,
    data: Signal<Local, Bits<512>>,
    is_open: Signal<Local, Bit>,
    fire: Signal<Local, Bit>,
    wa: Signal<Local, Bits<24>>,
    ra: Signal<Local, Bits<24>>,
    k_table: Lit<24, { reg::TABLE as u64 }>,
    k_index: Lit<24, { reg::INDEX as u64 }>,
    k_commit: Lit<24, { reg::COMMIT as u64 }>,
    k_status: Lit<24, { reg::STATUS as u64 }>,
    k_param: Lit<24, { reg::OPEN_PARAM as u64 }>,
    k_seed: Lit<24, { reg::OPEN_SEED as u64 }>,
    k_stage_end: Lit<24, 0x40>,
    k_param_reset: Lit<32, { reg::OPEN_PARAM_RESET as u64 }>,
    k_conn: Lit<4, { crate::ctx::table::CONN as u64 }>,
    k_open: Lit<2, 1>,
    k_one: Lit<16, 1>,
    k_zero16: Lit<16, 0>,
    k_zero32: Lit<32, 0>,
    k_one32: Lit<32, 1>,
    k_zero4: Lit<4, 0>,
    k_off_state: Lit<9, { cf::STATE.lsb() as u64 }>,
    k_off_snd_nxt: Lit<9, { cf::SND_NXT.lsb() as u64 }>,
    k_off_rcv_nxt: Lit<9, { cf::RCV_NXT.lsb() as u64 }>,
    k_off_peer_wlog: Lit<9, { cf::PEER_WLOG_M8.lsb() as u64 }>,
    k_off_own_wlog: Lit<9, { cf::OWN_WLOG_M8.lsb() as u64 }>,
    k_off_peer_cid: Lit<9, { cf::PEER_CID.lsb() as u64 }>,
}

impl CtxPort {
    /// The port; its registers take their reset values on `rst`.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Logic for CtxPort {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, table_r, index_r, param_r, seed_r, pend, commits, ctxw, ctxw_v, open,
            open_v, rdata, rvalid
        );
        self.stage.clk.next = self.clk.val();
        self.wa.next = self.cfg_wr_addr.val();
        self.ra.next = self.cfg_rd_addr.val();
        self.data.next = self.stage.all.val();
        self.x_table.i.next = self.table_r.q.val();
        self.x_index.i.next = self.index_r.q.val();
        self.x_commits.i.next = self.commits.q.val();

        // Writes.
        self.stage.wr_en.next = self.cfg_wr_en.val() & (self.wa.val() < self.k_stage_end.v.val());
        self.stage.wr_word.next = self.wa.val().get_bits::<4>(2);
        self.stage.wr_data.next = self.cfg_wr_data.val();
        if self.cfg_wr_en.val() {
            if self.wa.val() == self.k_table.v.val() {
                self.table_r.d.next = self.cfg_wr_data.val().get_bits::<4>(0);
            }
            if self.wa.val() == self.k_index.v.val() {
                self.index_r.d.next = self.cfg_wr_data.val().get_bits::<16>(0);
            }
            if self.wa.val() == self.k_param.v.val() {
                self.param_r.d.next = self.cfg_wr_data.val();
            }
            if self.wa.val() == self.k_seed.v.val() {
                self.seed_r.d.next = self.cfg_wr_data.val();
            }
            if self.wa.val() == self.k_commit.v.val() {
                self.pend.d.next = true;
            }
        }

        // Commit: broadcast, and a ConnOpen for an OPEN connection entry.
        self.is_open.next = (self.table_r.q.val() == self.k_conn.v.val())
            & (self
                .data
                .val()
                .get_bits::<2>(self.k_off_state.v.val().index())
                == self.k_open.v.val());
        self.fire.next = self.pend.q.val() & !(self.open_v.q.val() & self.is_open.val());
        self.ctxw_v.d.next = self.fire.val();
        if self.fire.val() {
            self.pend.d.next = false;
            self.commits.d.next = self.commits.q.val() + self.k_one.v.val();
            self.ctxw.d.next.table = self.table_r.q.val();
            self.ctxw.d.next.index = self.index_r.q.val();
            self.ctxw.d.next.data = self.data.val();
            if self.is_open.val() {
                self.open_v.d.next = true;
                self.open.d.next.conn = self.index_r.q.val();
                self.open.d.next.isn = self
                    .data
                    .val()
                    .get_bits::<32>(self.k_off_snd_nxt.v.val().index());
                self.open.d.next.peer_isn = self
                    .data
                    .val()
                    .get_bits::<32>(self.k_off_rcv_nxt.v.val().index());
                self.open.d.next.peer_wlog = self
                    .data
                    .val()
                    .get_bits::<4>(self.k_off_peer_wlog.v.val().index());
                self.open.d.next.own_wlog = self
                    .data
                    .val()
                    .get_bits::<4>(self.k_off_own_wlog.v.val().index());
                self.open.d.next.mtu_log = self.param_r.q.val().get_bits::<4>(0);
                self.open.d.next.paths = self.param_r.q.val().get_bits::<7>(8);
                self.open.d.next.peer_cid = self
                    .data
                    .val()
                    .get_bits::<24>(self.k_off_peer_cid.v.val().index());
                self.open.d.next.seed = self.seed_r.q.val();
                self.open.d.next.rx_only = self.param_r.q.val().get_bit(16);
            }
        }
        if self.open_v.q.val() & self.m_axis_open_tready.val() & !self.fire.val() {
            self.open_v.d.next = false;
        }
        self.m_axis_ctxw_tdata.next = self.ctxw.q.val();
        self.m_axis_ctxw_tvalid.next = self.ctxw_v.q.val();
        self.m_axis_open_tdata.next = self.open.q.val();
        self.m_axis_open_tvalid.next = self.open_v.q.val();

        // Reads.
        self.stage.rd_word.next = self.ra.val().get_bits::<4>(2);
        self.rvalid.d.next = self.cfg_rd_en.val();
        self.rdata.d.next = self.k_zero32.v.val();
        if self.ra.val() < self.k_stage_end.v.val() {
            self.rdata.d.next = self.stage.rd_data.val();
        } else if self.ra.val() == self.k_table.v.val() {
            self.rdata.d.next = self.x_table.o.val();
        } else if self.ra.val() == self.k_index.v.val() {
            self.rdata.d.next = self.x_index.o.val();
        } else if self.ra.val() == self.k_status.v.val() {
            if self.pend.q.val() {
                self.rdata.d.next = (self.x_commits.o.val() << 16u64) | self.k_one32.v.val();
            } else {
                self.rdata.d.next = self.x_commits.o.val() << 16u64;
            }
        } else if self.ra.val() == self.k_param.v.val() {
            self.rdata.d.next = self.param_r.q.val();
        } else if self.ra.val() == self.k_seed.v.val() {
            self.rdata.d.next = self.seed_r.q.val();
        }
        self.cfg_rd_data.next = self.rdata.q.val();
        self.cfg_rd_valid.next = self.rvalid.q.val();

        if self.rst.val() {
            self.table_r.d.next = self.k_zero4.v.val();
            self.index_r.d.next = self.k_zero16.v.val();
            self.param_r.d.next = self.k_param_reset.v.val();
            self.seed_r.d.next = self.k_zero32.v.val();
            self.pend.d.next = false;
            self.commits.d.next = self.k_zero16.v.val();
            self.ctxw_v.d.next = false;
            self.open_v.d.next = false;
            self.rvalid.d.next = false;
        }
    }
}

/// The block list entries of this file.
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![crate::blocks::BlockSpec {
        name: "metaroce_ctx_port",
        area: "ctx",
        description: "context-programming register window: staged 64-byte entry, commit to CtxWrite and ConnOpen",
        verilog: |_cfg| {
            crate::gen::verilog(
                "metaroce_ctx_port",
                CtxPort::new(),
            )
        },
    }]
}
