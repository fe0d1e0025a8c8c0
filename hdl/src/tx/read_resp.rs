//! READ responder intake: a READ_REQ accepted by the receive pipeline ([`ReadReq`]) becomes a READ_RESP
//! message of the same connection ([`WorkReq`] with opcode READ_RESP), which the scheduler appends to the
//! connection's message list behind the send WRs already posted (spec 8.5, MR-SEM-21, MR-SEM-22) and sends
//! like new data: MTU segmentation, `addr` = byte offset in the response, `key` = the answered MSN
//! (spec 3.4), payload read from `local_addr` (MR-REL-46 for retransmissions). No completion is produced.
//! `ReadReq::remote_addr` is not needed (the requester places by offset) and is left unused.
//!
//! Ports: `s_axis_readreq_*` → `m_axis_wr_*`. One register stage that accepts only when empty (half
//! throughput, ample for READ responses, each a whole message; the scheduler's acceptance does not reach the
//! input's ready). Latency 1 cycle.

use crate::rx::records::ReadReq;
use crate::tx::records::{WorkReq, OPCODE_READ_RESP};
use rust_hdl::prelude::*;

/// READ_REQ to READ_RESP work request.
#[derive(LogicBlock)]
pub struct ReadResp {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Reset.
    pub rst: Signal<In, Bit>,
    /// READ requests to answer.
    pub s_axis_readreq_tdata: Signal<In, ReadReq>,
    /// Valid.
    pub s_axis_readreq_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_readreq_tready: Signal<Out, Bit>,
    /// READ_RESP work requests.
    pub m_axis_wr_tdata: Signal<Out, WorkReq>,
    /// Valid.
    pub m_axis_wr_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_wr_tready: Signal<In, Bit>,
    wr: DFF<WorkReq>,
    wr_v: DFF<Bit>,
    c_zero: Constant<WorkReq>,
    c_op: Constant<Bits<8>>,
}

impl Default for ReadResp {
    fn default() -> Self {
        Self::new()
    }
}

impl ReadResp {
    /// A READ responder intake.
    pub fn new() -> Self {
        ReadResp {
            clk: Default::default(),
            rst: Default::default(),
            s_axis_readreq_tdata: Default::default(),
            s_axis_readreq_tvalid: Default::default(),
            s_axis_readreq_tready: Default::default(),
            m_axis_wr_tdata: Default::default(),
            m_axis_wr_tvalid: Default::default(),
            m_axis_wr_tready: Default::default(),
            wr: Default::default(),
            wr_v: Default::default(),
            c_zero: Constant::new(WorkReq::default()),
            c_op: Constant::new((OPCODE_READ_RESP as u64).into()),
        }
    }
}

impl Logic for ReadResp {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, wr, wr_v);
        // Ready while the register is empty (not when the scheduler takes the word in the same cycle): one
        // READ response every other cycle at most, and the scheduler's decision reaches only `wr_v`.
        self.s_axis_readreq_tready.next = !self.wr_v.q.val();
        if self.m_axis_wr_tready.val() {
            self.wr_v.d.next = false;
        }
        if self.s_axis_readreq_tvalid.val() & self.s_axis_readreq_tready.val() {
            self.wr.d.next = self.c_zero.val();
            self.wr.d.next.conn = self.s_axis_readreq_tdata.val().conn;
            self.wr.d.next.opcode = self.c_op.val();
            self.wr.d.next.local_addr = self.s_axis_readreq_tdata.val().local_addr;
            self.wr.d.next.len = self.s_axis_readreq_tdata.val().len;
            self.wr.d.next.rkey = self.s_axis_readreq_tdata.val().msn;
            self.wr_v.d.next = true;
        }
        if self.rst.val() {
            self.wr_v.d.next = false;
        }
        self.m_axis_wr_tdata.next = self.wr.q.val();
        self.m_axis_wr_tvalid.next = self.wr_v.q.val();
    }
}
