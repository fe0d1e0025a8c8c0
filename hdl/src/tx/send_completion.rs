//! Send completions: a finished send message ([`MsgDone`], produced by the scheduler in posting order when
//! snd_una passes the message's last PSN, or at once for a rejected work request) becomes the CQE record
//! [`Completion`] for the QP's send CQ (spec 8.10, MR-SEM-37; the model's `QpCore::retire_done`): opcode
//! WRITE for WRITE/WRITE_IMM, SEND for SEND/SEND_IMM, READ for READ (`metaroce_regmap::descriptor::cqe`),
//! `byte_len` the message length (0 on error), no immediate, no flags.
//!
//! Ports: `s_axis_done_*` → `m_axis_scpl_*` (`tuser` = the SQE's ring index, the CQE's `wqe_index`). One register stage (accepts when empty or when its content
//! leaves). Latency 1 cycle, one completion per cycle.

use crate::records::Completion;
use crate::tx::records::MsgDone;
use metaroce_proto::wire::Opcode;
use metaroce_regmap::descriptor::cqe::CqeOpcode;
use rust_hdl::prelude::*;

/// Finished message to completion record.
#[derive(LogicBlock)]
pub struct SendCompletion {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Reset.
    pub rst: Signal<In, Bit>,
    /// Finished messages (signalled ones only).
    pub s_axis_done_tdata: Signal<In, MsgDone>,
    /// Valid.
    pub s_axis_done_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_done_tready: Signal<Out, Bit>,
    /// Send completions (to the CQ writer).
    pub m_axis_scpl_tdata: Signal<Out, Completion>,
    /// The completed SQE's ring index (the CQE's `wqe_index`).
    pub m_axis_scpl_tuser: Signal<Out, Bits<16>>,
    /// Valid.
    pub m_axis_scpl_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_scpl_tready: Signal<In, Bit>,
    cpl: DFF<Completion>,
    cpl_idx: DFF<Bits<16>>,
    cpl_v: DFF<Bit>,
    c_zero: Constant<Completion>,
    c_send: Constant<Bits<8>>,
    c_send_imm: Constant<Bits<8>>,
    c_read: Constant<Bits<8>>,
    c_cqe_write: Constant<Bits<8>>,
    c_cqe_send: Constant<Bits<8>>,
    c_cqe_read: Constant<Bits<8>>,
    c_z8: Constant<Bits<8>>,
}

impl Default for SendCompletion {
    fn default() -> Self {
        Self::new()
    }
}

impl SendCompletion {
    /// A send-completion stage.
    pub fn new() -> Self {
        let b8 = |v: u8| Constant::new(Bits::<8>::from(v as u64));
        SendCompletion {
            clk: Default::default(),
            rst: Default::default(),
            s_axis_done_tdata: Default::default(),
            s_axis_done_tvalid: Default::default(),
            s_axis_done_tready: Default::default(),
            m_axis_scpl_tdata: Default::default(),
            m_axis_scpl_tuser: Default::default(),
            m_axis_scpl_tvalid: Default::default(),
            m_axis_scpl_tready: Default::default(),
            cpl: Default::default(),
            cpl_idx: Default::default(),
            cpl_v: Default::default(),
            c_zero: Constant::new(Completion::default()),
            c_send: b8(Opcode::Send as u8),
            c_send_imm: b8(Opcode::SendImm as u8),
            c_read: b8(Opcode::ReadReq as u8),
            c_cqe_write: b8(CqeOpcode::Write as u8),
            c_cqe_send: b8(CqeOpcode::Send as u8),
            c_cqe_read: b8(CqeOpcode::Read as u8),
            c_z8: b8(0),
        }
    }
}

impl Logic for SendCompletion {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, cpl, cpl_idx, cpl_v);
        self.s_axis_done_tready.next = !self.cpl_v.q.val() | self.m_axis_scpl_tready.val();
        if self.m_axis_scpl_tready.val() {
            self.cpl_v.d.next = false;
        }
        if self.s_axis_done_tvalid.val() & self.s_axis_done_tready.val() {
            self.cpl.d.next = self.c_zero.val();
            self.cpl.d.next.cqn = self.s_axis_done_tdata.val().cqn;
            self.cpl.d.next.qpn = self.s_axis_done_tdata.val().qpn;
            self.cpl.d.next.wr_id = self.s_axis_done_tdata.val().wr_id;
            self.cpl_idx.d.next = self.s_axis_done_tdata.val().wqe_index;
            self.cpl.d.next.status = self.s_axis_done_tdata.val().status;
            self.cpl.d.next.opcode = self.c_cqe_write.val();
            if (self.s_axis_done_tdata.val().opcode == self.c_send.val())
                | (self.s_axis_done_tdata.val().opcode == self.c_send_imm.val())
            {
                self.cpl.d.next.opcode = self.c_cqe_send.val();
            }
            if self.s_axis_done_tdata.val().opcode == self.c_read.val() {
                self.cpl.d.next.opcode = self.c_cqe_read.val();
            }
            if self.s_axis_done_tdata.val().status == self.c_z8.val() {
                self.cpl.d.next.byte_len = self.s_axis_done_tdata.val().len;
            }
            self.cpl_v.d.next = true;
        }
        if self.rst.val() {
            self.cpl_v.d.next = false;
        }
        self.m_axis_scpl_tdata.next = self.cpl.q.val();
        self.m_axis_scpl_tuser.next = self.cpl_idx.q.val();
        self.m_axis_scpl_tvalid.next = self.cpl_v.q.val();
    }
}
