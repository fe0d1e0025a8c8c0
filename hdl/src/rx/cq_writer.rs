//! The completion-queue writer (MR-SEM-2, MR-SEM-19..25, MR-SEM-37, `metaroce_regmap::queues` ring semantics):
//! writes receive completions (`s_axis_rcpl_*`, from the completion stage) and send completions
//! (`s_axis_scpl_*`, from the transmit path) as CQEs (`metaroce_regmap::descriptor::cqe`, 32 bytes) into the CQ
//! rings in host memory, keeps each CQ's producer index and phase, takes the CQ doorbells and raises interrupts.
//!
//! CQ table: `2^QB` entries written by [`CtxWrite`]s of table [`CQ_TABLE`]; an entry is the CREATE_CQ argument
//! block as laid out in `metaroce_regmap::command::arg` (`ring_addr` at byte 8, `log_size` 16, `msix_vector`
//! 18; `mod_usec` / `mod_count` are not used: no interrupt moderation). Writing an entry resets the CQ's `pi`,
//! `ci` and arm state (a CQ with `log_size` 0 is not in use: its completions are dropped and counted).
//!
//! A CQE for completion `c` goes to slot `pi mod 2^log_size` at `ring_addr + 32 * slot`, fields from `c`
//! (`wr_id`, `byte_len`, `imm`, `qpn`, `opcode`, `status`, `imm_valid` = flags bit 0, `solicited` = flags bit 1,
//! `wqe_index` from `tuser`) and `phase` = `Ring::phase(pi)` (1 on even passes), written as one 32-byte DMA
//! write (the phase byte is the last byte of the write). A CQ that is full (`pi - ci == 2^log_size`) is not
//! written: `cq_error` pulses with the CQN (the async-event cause) and the completion is dropped. Receive
//! completions wait until the placement block's `rx_safe_count` has reached their packet number (`tuser`
//! 31:16), so a CQE is written only after the payload it reports (`queues` ordering rule). Send completions have
//! priority when both are waiting.
//!
//! Doorbells (`cfg_wr_*`, the CQ doorbell window: page n of CQ n at `n * 8`): `CQ_CI` (+0) sets `ci`; `CQ_ARM`
//! (+4) arms the CQ for the first CQE at or after index `ci` (`solicited` bit 16: only a solicited or error
//! CQE). An armed CQ that writes a matching CQE is disarmed and pulses `irq_req` with `irq_vector` =
//! its `msix_vector` (`metaroce_regmap::irq`: one interrupt per arm), after the CQE write is reported done.
//!
//! Per completion: IDLE takes it and reads the CQ's table entry, state, `ci` and arm words (addressed straight
//! from the input, so a doorbell or table write in that same cycle counts for the next completion), READ derives
//! the slot, the fill and the arm decision from them (registered), CHECK drops or builds the CQE and its
//! descriptor, DESC and DATA hand them to the DMA (the state word is written with the data beat), DONE waits for
//! the write's completion when it interrupts: 5 cycles per CQE without back-pressure.

use crate::common::ram::SdpRam;
use crate::common::zext::Zext;
use crate::dma::DmaDesc;
use crate::records::{Completion, CtxWrite};
use crate::rx::mr_check::Lit;
use metaroce_regmap::command::arg as cqa;
use metaroce_regmap::descriptor::cqe::field as qf;
use metaroce_regmap::queues::{field as dbf, page};
use rust_hdl::prelude::*;

pub use rec::{CqArm, CqEntry, CqState};

// `LogicStruct` generates public accessor methods without docs; the records and their fields are documented.
#[allow(missing_docs)]
mod rec {
    use rust_hdl::prelude::*;

    /// What the writer keeps of a CQ's table entry.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct CqEntry {
        /// Ring base address.
        pub ring: Bits<64>,
        /// log2 of the ring entries (0: CQ not in use).
        pub log: Bits<4>,
        /// MSI-X vector.
        pub vector: Bits<16>,
        /// Generation of the entry (counts CQ-table writes; a state word of another generation is stale).
        pub gen: Bits<8>,
    }

    /// The writer's own state of a CQ.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct CqState {
        /// Producer index.
        pub pi: Bits<16>,
        /// Token of the last arm that fired.
        pub fired: Bits<16>,
        /// An arm has fired in this generation.
        pub fired_v: Bit,
        /// Generation this state belongs to.
        pub gen: Bits<8>,
    }

    /// An arm doorbell.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct CqArm {
        /// Armed (cleared by a CQ-table write).
        pub valid: Bit,
        /// First index that may interrupt.
        pub ci: Bits<16>,
        /// Only solicited or error CQEs interrupt.
        pub sol: Bit,
        /// Unique token of this arm doorbell.
        pub tok: Bits<16>,
    }
}

/// The CQE encoder: the fields of a CQE placed at their `metaroce_regmap::descriptor::cqe` offsets in the low
/// 32 bytes of a `DW`-bit beat (custom block: the offsets come from the regmap when the Verilog is generated).
#[derive(LogicBlock, Default)]
pub struct CqeEncode<const DW: usize> {
    /// `wr_id`.
    pub wr_id: Signal<In, Bits<64>>,
    /// `byte_len`.
    pub byte_len: Signal<In, Bits<32>>,
    /// `imm`.
    pub imm: Signal<In, Bits<32>>,
    /// `qpn`.
    pub qpn: Signal<In, Bits<24>>,
    /// `opcode`.
    pub opcode: Signal<In, Bits<8>>,
    /// `status`.
    pub status: Signal<In, Bits<8>>,
    /// `imm_valid`.
    pub imm_valid: Signal<In, Bit>,
    /// `solicited`.
    pub solicited: Signal<In, Bit>,
    /// `wqe_index`.
    pub wqe_index: Signal<In, Bits<16>>,
    /// `phase`.
    pub phase: Signal<In, Bit>,
    /// The beat.
    pub o: Signal<Out, Bits<DW>>,
}

impl<const DW: usize> Logic for CqeEncode<DW> {
    fn update(&mut self) {
        let mut v = Bits::<DW>::default();
        let mut put = |lsb: u32, width: usize, val: u64| {
            for i in 0..width {
                v = v.replace_bit(lsb as usize + i, (val >> i) & 1 != 0);
            }
        };
        put(qf::WR_ID.lsb(), 64, self.wr_id.val().to_u64());
        put(qf::BYTE_LEN.lsb(), 32, self.byte_len.val().to_u64());
        put(qf::IMM.lsb(), 32, self.imm.val().to_u64());
        put(qf::QPN.lsb(), 24, self.qpn.val().to_u64());
        put(qf::OPCODE.lsb(), 8, self.opcode.val().to_u64());
        put(qf::STATUS.lsb(), 8, self.status.val().to_u64());
        put(qf::IMM_VALID.lsb(), 1, self.imm_valid.val() as u64);
        put(qf::SOLICITED.lsb(), 1, self.solicited.val() as u64);
        put(qf::WQE_INDEX.lsb(), 16, self.wqe_index.val().to_u64());
        put(qf::PHASE.lsb(), 1, self.phase.val() as u64);
        self.o.next = v;
    }

    fn connect(&mut self) {
        self.o.connect();
    }

    fn hdl(&self) -> Verilog {
        let f = |fl: &metaroce_regmap::field::Field, name: &str| {
            format!("   o[{} +: {}] = {};\n", fl.lsb(), fl.width, name)
        };
        let mut t = format!("always @(*) begin\n   o = {}'d0;\n", DW);
        t += &f(&qf::WR_ID, "wr_id");
        t += &f(&qf::BYTE_LEN, "byte_len");
        t += &f(&qf::IMM, "imm");
        t += &f(&qf::QPN, "qpn");
        t += &f(&qf::OPCODE, "opcode");
        t += &f(&qf::STATUS, "status");
        t += &f(&qf::IMM_VALID, "imm_valid");
        t += &f(&qf::SOLICITED, "solicited");
        t += &f(&qf::WQE_INDEX, "wqe_index");
        t += &f(&qf::PHASE, "phase");
        t += "end\n";
        Verilog::Custom(t)
    }
}

/// Table id of CQ entries in [`CtxWrite::table`] (after `ctx::table::{CONN, QP, MR}`).
pub const CQ_TABLE: u8 = metaroce_regmap::ctxport::table::CQ;

/// The CQ writer: `DW`/`KW` DMA write width, `2^QB` CQs.
#[derive(LogicBlock)]
pub struct CqWriter<const DW: usize, const KW: usize, const QB: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// Context writes (CQ table).
    pub s_axis_ctxw_tdata: Signal<In, CtxWrite>,
    /// Context write valid.
    pub s_axis_ctxw_tvalid: Signal<In, Bit>,
    /// Receive completion.
    pub s_axis_rcpl_tdata: Signal<In, Completion>,
    /// `{ packet number (31:16), wqe_index (15:0) }`.
    pub s_axis_rcpl_tuser: Signal<In, Bits<32>>,
    /// Valid.
    pub s_axis_rcpl_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_rcpl_tready: Signal<Out, Bit>,
    /// Send completion.
    pub s_axis_scpl_tdata: Signal<In, Completion>,
    /// `wqe_index` of the SQE.
    pub s_axis_scpl_tuser: Signal<In, Bits<16>>,
    /// Valid.
    pub s_axis_scpl_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_scpl_tready: Signal<Out, Bit>,
    /// Placement's `safe_count`.
    pub rx_safe_count: Signal<In, Bits<16>>,
    /// Doorbell write strobe (CQ doorbell window).
    pub cfg_wr_en: Signal<In, Bit>,
    /// Doorbell byte address.
    pub cfg_wr_addr: Signal<In, Bits<24>>,
    /// Doorbell value.
    pub cfg_wr_data: Signal<In, Bits<32>>,
    /// CQE write descriptor.
    pub m_axis_dma_wr_desc_tdata: Signal<Out, DmaDesc>,
    /// Valid.
    pub m_axis_dma_wr_desc_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_dma_wr_desc_tready: Signal<In, Bit>,
    /// CQE data (32 bytes, one beat).
    pub m_axis_dma_wr_tdata: Signal<Out, Bits<DW>>,
    /// Keep.
    pub m_axis_dma_wr_tkeep: Signal<Out, Bits<KW>>,
    /// Last.
    pub m_axis_dma_wr_tlast: Signal<Out, Bit>,
    /// Valid.
    pub m_axis_dma_wr_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_dma_wr_tready: Signal<In, Bit>,
    /// Finished write (tag).
    pub s_axis_dma_wr_done_tdata: Signal<In, Bits<16>>,
    /// Valid.
    pub s_axis_dma_wr_done_tvalid: Signal<In, Bit>,
    /// Interrupt request (one-cycle pulse).
    pub irq_req: Signal<Out, Bit>,
    /// Its MSI-X vector.
    pub irq_vector: Signal<Out, Bits<16>>,
    /// A completion was dropped: its CQ is full or not in use (one-cycle pulse).
    pub cq_error: Signal<Out, Bit>,
    /// The CQ.
    pub cq_error_cqn: Signal<Out, Bits<24>>,
    cqt: SdpRam<CqEntry, QB>,
    cqs: SdpRam<CqState, QB>,
    ciram: SdpRam<Bits<16>, QB>,
    armram: SdpRam<CqArm, QB>,
    enc: CqeEncode<DW>,
    state: DFF<Bits<3>>,
    gen: DFF<Bits<8>>,
    tok: DFF<Bits<16>>,
    cur: DFF<Completion>,
    cur_idx: DFF<Bits<16>>,
    desc: DFF<DmaDesc>,
    beat: DFF<Bits<DW>>,
    nst: DFF<CqState>,
    cqn_r: DFF<Bits<QB>>,
    fire: DFF<Bit>,
    vec_r: DFF<Bits<16>>,
    irq: DFF<Bit>,
    err: DFF<Bit>,
    ecqn: DFF<Bits<24>>,
    // what READ derives from the CQ's entry and state, for CHECK
    ent_r: DFF<CqEntry>,
    st_r: DFF<CqState>,
    tok_r: DFF<Bits<16>>,
    same_r: DFF<Bit>,
    pi_r: DFF<Bits<16>>,
    slot_r: DFF<Bits<16>>,
    full_r: DFF<Bit>,
    armed_r: DFF<Bit>,
    sol_r: DFF<Bit>,
    phase_r: DFF<Bit>,
    ctx_data: Signal<Local, Bits<512>>,
    ctx_index: Signal<Local, Bits<16>>,
    ctx_cq: Signal<Local, Bit>,
    wa: Signal<Local, Bits<24>>,
    db_cqn: Signal<Local, Bits<QB>>,
    db_ci: Signal<Local, Bit>,
    db_arm: Signal<Local, Bit>,
    rd_cqn: Signal<Local, Bits<QB>>,
    rdiff: Signal<Local, Bits<16>>,
    rsafe: Signal<Local, Bit>,
    idle: Signal<Local, Bit>,
    take_s: Signal<Local, Bit>,
    take_r: Signal<Local, Bit>,
    scqn: Signal<Local, Bits<24>>,
    rcqn: Signal<Local, Bits<24>>,
    ent: Signal<Local, CqEntry>,
    st: Signal<Local, CqState>,
    arm: Signal<Local, CqArm>,
    ci: Signal<Local, Bits<16>>,
    cflags: Signal<Local, Bits<8>>,
    same_gen: Signal<Local, Bit>,
    pi: Signal<Local, Bits<16>>,
    size: Signal<Local, Bits<16>>,
    slot: Signal<Local, Bits<16>>,
    adiff: Signal<Local, Bits<16>>,
    slot64: Zext<16, 64>,
    log16: Zext<4, 16>,
    armed: Signal<Local, Bit>,
    want: Signal<Local, Bit>,
    k_cq: Lit<4, { CQ_TABLE as u64 }>,
    k_off_ring: Lit<9, { cqa::CQ_RING.lsb() as u64 }>,
    k_off_log: Lit<9, { cqa::CQ_LOG.lsb() as u64 }>,
    k_off_vec: Lit<9, { cqa::CQ_VECTOR.lsb() as u64 }>,
    k_ci: Lit<3, { page::CQ_CI as u64 }>,
    k_arm: Lit<3, { page::CQ_ARM as u64 }>,
    k_sol_bit: Lit<5, { dbf::ARM_SOLICITED.lsb() as u64 }>,
    k_one8: Lit<8, 1>,
    k_one16: Lit<16, 1>,
    k_zero16: Lit<16, 0>,
    k_zero8: Lit<8, 0>,
    k_len32: Lit<32, 32>,
    k_keep32: Lit<KW, 0xFFFF_FFFF>,
    k_s_idle: Lit<3, 0>,
    k_s_read: Lit<3, 1>,
    k_s_check: Lit<3, 2>,
    k_s_desc: Lit<3, 3>,
    k_s_data: Lit<3, 4>,
    k_s_done: Lit<3, 5>,
}

impl<const DW: usize, const KW: usize, const QB: usize> CqWriter<DW, KW, QB> {
    /// The writer for `2^QB` CQs (`cfg.qp_bits`); `DW >= 256`.
    pub fn new() -> Self {
        assert!(DW >= 256 && KW * 8 == DW && (1..=16).contains(&QB));
        CqWriter {
            clk: Default::default(),
            rst: Default::default(),
            s_axis_ctxw_tdata: Default::default(),
            s_axis_ctxw_tvalid: Default::default(),
            s_axis_rcpl_tdata: Default::default(),
            s_axis_rcpl_tuser: Default::default(),
            s_axis_rcpl_tvalid: Default::default(),
            s_axis_rcpl_tready: Default::default(),
            s_axis_scpl_tdata: Default::default(),
            s_axis_scpl_tuser: Default::default(),
            s_axis_scpl_tvalid: Default::default(),
            s_axis_scpl_tready: Default::default(),
            rx_safe_count: Default::default(),
            cfg_wr_en: Default::default(),
            cfg_wr_addr: Default::default(),
            cfg_wr_data: Default::default(),
            m_axis_dma_wr_desc_tdata: Default::default(),
            m_axis_dma_wr_desc_tvalid: Default::default(),
            m_axis_dma_wr_desc_tready: Default::default(),
            m_axis_dma_wr_tdata: Default::default(),
            m_axis_dma_wr_tkeep: Default::default(),
            m_axis_dma_wr_tlast: Default::default(),
            m_axis_dma_wr_tvalid: Default::default(),
            m_axis_dma_wr_tready: Default::default(),
            s_axis_dma_wr_done_tdata: Default::default(),
            s_axis_dma_wr_done_tvalid: Default::default(),
            irq_req: Default::default(),
            irq_vector: Default::default(),
            cq_error: Default::default(),
            cq_error_cqn: Default::default(),
            cqt: SdpRam::new(1 << QB),
            cqs: SdpRam::new(1 << QB),
            ciram: SdpRam::new(1 << QB),
            armram: SdpRam::new(1 << QB),
            enc: Default::default(),
            state: Default::default(),
            gen: Default::default(),
            tok: Default::default(),
            cur: Default::default(),
            cur_idx: Default::default(),
            desc: Default::default(),
            beat: Default::default(),
            nst: Default::default(),
            cqn_r: Default::default(),
            fire: Default::default(),
            vec_r: Default::default(),
            irq: Default::default(),
            err: Default::default(),
            ecqn: Default::default(),
            ent_r: Default::default(),
            st_r: Default::default(),
            tok_r: Default::default(),
            same_r: Default::default(),
            pi_r: Default::default(),
            slot_r: Default::default(),
            full_r: Default::default(),
            armed_r: Default::default(),
            sol_r: Default::default(),
            phase_r: Default::default(),
            ctx_data: Default::default(),
            ctx_index: Default::default(),
            ctx_cq: Default::default(),
            wa: Default::default(),
            db_cqn: Default::default(),
            db_ci: Default::default(),
            db_arm: Default::default(),
            rd_cqn: Default::default(),
            rdiff: Default::default(),
            rsafe: Default::default(),
            idle: Default::default(),
            take_s: Default::default(),
            take_r: Default::default(),
            scqn: Default::default(),
            rcqn: Default::default(),
            ent: Default::default(),
            st: Default::default(),
            arm: Default::default(),
            ci: Default::default(),
            cflags: Default::default(),
            same_gen: Default::default(),
            pi: Default::default(),
            size: Default::default(),
            slot: Default::default(),
            adiff: Default::default(),
            slot64: Default::default(),
            log16: Default::default(),
            armed: Default::default(),
            want: Default::default(),
            k_cq: Default::default(),
            k_off_ring: Default::default(),
            k_off_log: Default::default(),
            k_off_vec: Default::default(),
            k_ci: Default::default(),
            k_arm: Default::default(),
            k_sol_bit: Default::default(),
            k_one8: Default::default(),
            k_one16: Default::default(),
            k_zero16: Default::default(),
            k_zero8: Default::default(),
            k_len32: Default::default(),
            k_keep32: Default::default(),
            k_s_idle: Default::default(),
            k_s_read: Default::default(),
            k_s_check: Default::default(),
            k_s_desc: Default::default(),
            k_s_data: Default::default(),
            k_s_done: Default::default(),
        }
    }
}

impl<const DW: usize, const KW: usize, const QB: usize> Default for CqWriter<DW, KW, QB> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const DW: usize, const KW: usize, const QB: usize> Logic for CqWriter<DW, KW, QB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, state, gen, tok, cur, cur_idx, desc, beat, nst, cqn_r, fire, vec_r, irq,
            err, ecqn, ent_r, st_r, tok_r, same_r, pi_r, slot_r, full_r, armed_r, sol_r, phase_r
        );
        self.cqt.clk.next = self.clk.val();
        self.cqs.clk.next = self.clk.val();
        self.ciram.clk.next = self.clk.val();
        self.armram.clk.next = self.clk.val();

        // CQ-table writes: the entry (with a new generation), ci and arm reset.
        self.ctx_data.next = self.s_axis_ctxw_tdata.val().data;
        self.ctx_index.next = self.s_axis_ctxw_tdata.val().index;
        self.ctx_cq.next = self.s_axis_ctxw_tvalid.val()
            & (self.s_axis_ctxw_tdata.val().table == self.k_cq.v.val());
        self.cqt.wr_en.next = self.ctx_cq.val();
        self.cqt.wr_addr.next = self.ctx_index.val().get_bits::<QB>(0);
        self.cqt.wr_data.next.ring = self
            .ctx_data
            .val()
            .get_bits::<64>(self.k_off_ring.v.val().index());
        self.cqt.wr_data.next.log = self
            .ctx_data
            .val()
            .get_bits::<4>(self.k_off_log.v.val().index());
        self.cqt.wr_data.next.vector = self
            .ctx_data
            .val()
            .get_bits::<16>(self.k_off_vec.v.val().index());
        self.cqt.wr_data.next.gen = self.gen.q.val() + self.k_one8.v.val();
        if self.ctx_cq.val() {
            self.gen.d.next = self.gen.q.val() + self.k_one8.v.val();
        }

        // Doorbells (page n at n * 8): CQ_CI and CQ_ARM write their RAMs directly.
        self.wa.next = self.cfg_wr_addr.val();
        self.db_cqn.next = self.wa.val().get_bits::<QB>(3);
        self.db_ci.next =
            self.cfg_wr_en.val() & (self.wa.val().get_bits::<3>(0) == self.k_ci.v.val());
        self.db_arm.next =
            self.cfg_wr_en.val() & (self.wa.val().get_bits::<3>(0) == self.k_arm.v.val());
        self.ciram.wr_en.next = self.db_ci.val() | self.ctx_cq.val();
        self.armram.wr_en.next = self.db_arm.val() | self.ctx_cq.val();
        if self.ctx_cq.val() {
            self.ciram.wr_addr.next = self.ctx_index.val().get_bits::<QB>(0);
            self.ciram.wr_data.next = self.k_zero16.v.val();
            self.armram.wr_addr.next = self.ctx_index.val().get_bits::<QB>(0);
            self.armram.wr_data.next.valid = false;
            self.armram.wr_data.next.ci = self.k_zero16.v.val();
            self.armram.wr_data.next.sol = false;
            self.armram.wr_data.next.tok = self.tok.q.val();
        } else {
            self.ciram.wr_addr.next = self.db_cqn.val();
            self.ciram.wr_data.next = self.cfg_wr_data.val().get_bits::<16>(0);
            self.armram.wr_addr.next = self.db_cqn.val();
            self.armram.wr_data.next.valid = true;
            self.armram.wr_data.next.ci = self.cfg_wr_data.val().get_bits::<16>(0);
            self.armram.wr_data.next.sol = self
                .cfg_wr_data
                .val()
                .get_bit(self.k_sol_bit.v.val().index());
            self.armram.wr_data.next.tok = self.tok.q.val();
        }
        if self.db_arm.val() {
            self.tok.d.next = self.tok.q.val() + self.k_one16.v.val();
        }

        // Input selection: send completions first; a receive completion once its payload is written.
        self.rdiff.next =
            self.rx_safe_count.val() - self.s_axis_rcpl_tuser.val().get_bits::<16>(16);
        self.rsafe.next = !self.rdiff.val().get_bit(15);
        self.idle.next = self.state.q.val() == self.k_s_idle.v.val();
        self.take_s.next = self.idle.val() & self.s_axis_scpl_tvalid.val();
        self.take_r.next = self.idle.val()
            & !self.s_axis_scpl_tvalid.val()
            & self.s_axis_rcpl_tvalid.val()
            & self.rsafe.val();
        self.s_axis_scpl_tready.next = self.take_s.val();
        self.s_axis_rcpl_tready.next = self.take_r.val();
        self.scqn.next = self.s_axis_scpl_tdata.val().cqn;
        self.rcqn.next = self.s_axis_rcpl_tdata.val().cqn;
        if self.take_s.val() {
            self.cur.d.next = self.s_axis_scpl_tdata.val();
            self.cur_idx.d.next = self.s_axis_scpl_tuser.val();
            self.cqn_r.d.next = self.scqn.val().get_bits::<QB>(0);
            self.state.d.next = self.k_s_read.v.val();
        }
        if self.take_r.val() {
            self.cur.d.next = self.s_axis_rcpl_tdata.val();
            self.cur_idx.d.next = self.s_axis_rcpl_tuser.val().get_bits::<16>(0);
            self.cqn_r.d.next = self.rcqn.val().get_bits::<QB>(0);
            self.state.d.next = self.k_s_read.v.val();
        }
        // The CQ's entry and state are read when the completion is taken (the address straight from the
        // input), so that READ can derive what CHECK needs from them.
        if self.idle.val() {
            if self.s_axis_scpl_tvalid.val() {
                self.rd_cqn.next = self.scqn.val().get_bits::<QB>(0);
            } else {
                self.rd_cqn.next = self.rcqn.val().get_bits::<QB>(0);
            }
        } else {
            self.rd_cqn.next = self.cqn_r.q.val();
        }
        self.cqt.rd_addr.next = self.rd_cqn.val();
        self.cqs.rd_addr.next = self.rd_cqn.val();
        self.ciram.rd_addr.next = self.rd_cqn.val();
        self.armram.rd_addr.next = self.rd_cqn.val();

        // READ: the CQ's entry and state are on the RAM outputs; derive the slot, fill and arm state.
        self.ent.next = self.cqt.rd_data.val();
        self.st.next = self.cqs.rd_data.val();
        self.arm.next = self.armram.rd_data.val();
        self.ci.next = self.ciram.rd_data.val();
        self.same_gen.next = self.st.val().gen == self.ent.val().gen;
        if self.same_gen.val() {
            self.pi.next = self.st.val().pi;
        } else {
            self.pi.next = self.k_zero16.v.val();
        }
        self.log16.i.next = self.ent.val().log;
        self.size.next = self.k_one16.v.val() << self.log16.o.val();
        self.slot.next = self.pi.val() & (self.size.val() - self.k_one16.v.val());
        self.adiff.next = self.pi.val() - self.arm.val().ci;
        self.armed.next = self.arm.val().valid
            & !(self.same_gen.val()
                & self.st.val().fired_v
                & (self.st.val().fired == self.arm.val().tok))
            & !self.adiff.val().get_bit(15);
        self.ent_r.d.next = self.ent.val();
        self.st_r.d.next = self.st.val();
        self.tok_r.d.next = self.arm.val().tok;
        self.same_r.d.next = self.same_gen.val();
        self.pi_r.d.next = self.pi.val();
        self.slot_r.d.next = self.slot.val();
        self.full_r.d.next = (self.pi.val() - self.ci.val()) == self.size.val();
        self.armed_r.d.next = self.armed.val();
        self.sol_r.d.next = self.arm.val().sol;
        self.phase_r.d.next = !(self.pi.val() & self.size.val()).any();

        // CHECK: the CQE, its descriptor and the new state.
        self.cflags.next = self.cur.q.val().flags;
        self.slot64.i.next = self.slot_r.q.val();
        self.want.next =
            !self.sol_r.q.val() | self.cflags.val().get_bit(1) | self.cur.q.val().status.any();
        self.enc.wr_id.next = self.cur.q.val().wr_id;
        self.enc.byte_len.next = self.cur.q.val().byte_len;
        self.enc.imm.next = self.cur.q.val().imm;
        self.enc.qpn.next = self.cur.q.val().qpn;
        self.enc.opcode.next = self.cur.q.val().opcode;
        self.enc.status.next = self.cur.q.val().status;
        self.enc.imm_valid.next = self.cflags.val().get_bit(0);
        self.enc.solicited.next = self.cflags.val().get_bit(1);
        self.enc.wqe_index.next = self.cur_idx.q.val();
        self.enc.phase.next = self.phase_r.q.val();

        self.irq.d.next = false;
        self.err.d.next = false;
        if self.state.q.val() == self.k_s_read.v.val() {
            self.state.d.next = self.k_s_check.v.val();
        }
        if self.state.q.val() == self.k_s_check.v.val() {
            self.ecqn.d.next = self.cur.q.val().cqn;
            if !self.ent_r.q.val().log.any() | self.full_r.q.val() {
                self.err.d.next = true;
                self.state.d.next = self.k_s_idle.v.val();
            } else {
                self.desc.d.next.addr = self.ent_r.q.val().ring + (self.slot64.o.val() << 5u64);
                self.desc.d.next.len = self.k_len32.v.val();
                self.desc.d.next.tag = self.pi_r.q.val();
                self.beat.d.next = self.enc.o.val();
                self.nst.d.next.pi = self.pi_r.q.val() + self.k_one16.v.val();
                self.nst.d.next.gen = self.ent_r.q.val().gen;
                self.vec_r.d.next = self.ent_r.q.val().vector;
                if self.armed_r.q.val() & self.want.val() {
                    self.fire.d.next = true;
                    self.nst.d.next.fired = self.tok_r.q.val();
                    self.nst.d.next.fired_v = true;
                } else {
                    self.fire.d.next = false;
                    self.nst.d.next.fired = self.st_r.q.val().fired;
                    self.nst.d.next.fired_v = self.st_r.q.val().fired_v & self.same_r.q.val();
                }
                self.state.d.next = self.k_s_desc.v.val();
            }
        }
        self.m_axis_dma_wr_desc_tdata.next = self.desc.q.val();
        self.m_axis_dma_wr_desc_tvalid.next = self.state.q.val() == self.k_s_desc.v.val();
        if (self.state.q.val() == self.k_s_desc.v.val()) & self.m_axis_dma_wr_desc_tready.val() {
            self.state.d.next = self.k_s_data.v.val();
        }
        self.m_axis_dma_wr_tdata.next = self.beat.q.val();
        self.m_axis_dma_wr_tkeep.next = self.k_keep32.v.val();
        self.m_axis_dma_wr_tlast.next = true;
        self.m_axis_dma_wr_tvalid.next = self.state.q.val() == self.k_s_data.v.val();
        self.cqs.wr_en.next = false;
        self.cqs.wr_addr.next = self.cqn_r.q.val();
        self.cqs.wr_data.next = self.nst.q.val();
        if (self.state.q.val() == self.k_s_data.v.val()) & self.m_axis_dma_wr_tready.val() {
            self.cqs.wr_en.next = true;
            if self.fire.q.val() {
                self.state.d.next = self.k_s_done.v.val();
            } else {
                self.state.d.next = self.k_s_idle.v.val();
            }
        }
        if (self.state.q.val() == self.k_s_done.v.val()) & self.s_axis_dma_wr_done_tvalid.val() {
            self.irq.d.next = true;
            self.state.d.next = self.k_s_idle.v.val();
        }
        self.irq_req.next = self.irq.q.val();
        self.irq_vector.next = self.vec_r.q.val();
        self.cq_error.next = self.err.q.val();
        self.cq_error_cqn.next = self.ecqn.q.val();
        if self.rst.val() {
            self.state.d.next = self.k_s_idle.v.val();
            self.gen.d.next = self.k_zero8.v.val();
            self.tok.d.next = self.k_zero16.v.val();
            self.irq.d.next = false;
            self.err.d.next = false;
            self.fire.d.next = false;
        }
    }
}

/// The block list entries of this file.
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![crate::blocks::BlockSpec {
        name: "metaroce_rx_cq_writer",
        area: "rx",
        description: "CQE writes into CQ rings (phase bit), CQ doorbells, interrupt requests",
        verilog: |_cfg| {
            crate::gen::verilog("metaroce_rx_cq_writer", CqWriter::<512, 64, 12>::new())
        },
    }]
}
