//! The transmit engine (part C of the core): joins the queue manager, the SQE fetcher, the READ responder,
//! the scheduler (with the message table and segmentation), the payload reader and the send-completion
//! stage, and puts control packets first on the header output (MR-REL-19).
//!
//! ```text
//! cfg_wr (SQ doorbells) ─▶ QueueMgr ─ SqFetch ─▶ SqeFetch ◀─▶ m_axis_sqe_rd_desc / s_axis_sqe_rd
//!                                                   │ WorkReq
//! s_axis_readreq ─▶ ReadResp ─ WorkReq ─▶ (READ responses first) ─▶ Scheduler ◀─ s_axis_open, s_axis_una,
//!                                                                      │   ▲      s_axis_rtx, s_axis_ctxw,
//!                                             m_axis_rdrec ◀───────────┤   │      s_axis_rdone
//!                                             m_axis_gate_req ◀────────┤   └── s_axis_gate_resp
//!                                             m_axis_sent ◀────────────┤
//! s_axis_ctl ─▶ (first) ─┬─▶ m_axis_hdr ◀──── data headers ────────────┤
//!                                             PayloadRead ◀─ payreq ───┤ ─▶ m_axis_dma_rd_desc, s_axis_dma_rd
//!                                             m_axis_pay ◀─ PayloadRead│
//!                                             SendCompletion ◀─ done ──┘ ─▶ m_axis_scpl
//! ```
//!
//! Header output: a control header (`s_axis_ctl_*`, ACK/NACK/CTRL from the receive side, no payload) goes
//! before any waiting DATA header; a DATA header already offered and not yet taken is kept until taken (the
//! AXI-Stream rule). DATA headers wait in a queue of two (a register slice) between the scheduler and that
//! choice, so the scheduler goes on to the next packets while the frame builder sends earlier frames. A
//! packet's payload request is issued before its header is queued (the DMA read's latency runs while the frame
//! builder still sends earlier frames); both are in packet order, so the payload stream is in DATA-header
//! order. (Without the queue the scheduler waited for each header to be taken, at the end of the frame before
//! it, so each frame's payload read began only then; a queue of four gained 0.6 points of the 1024-bit datapath
//! over two in the co-simulation, docs/cosim.md.) Work requests: READ responses before SQEs, an offered one kept
//! until taken.
//!
//! Parameters: `TxEngine::<DW, KW>::new(conn_bits, qp_bits, pool_bits)`: `1 << conn_bits` connections,
//! `1 << qp_bits` QPs, a pool of `1 << pool_bits` outstanding messages (at most `cfg_conn_msgs` per
//! connection). Config inputs are static after reset.

use crate::blocks::BlockSpec;
use crate::common::reg_slice::RegSlice;
use crate::dma::DmaDesc;
use crate::records::{Completion, CtxWrite, PktMeta, RtxReq, TxSent};
use crate::rel::records::{ConnFail, ConnOpen, GateReq, GateResp, QpError, UnaUpdate};
use crate::rel::resp_timer::RespWait;
use crate::rx::completion::ReadDone;
use crate::rx::records::ReadReq;
use crate::tx::payload_read::PayloadRead;
use crate::tx::queue_mgr::QueueMgr;
use crate::tx::read_resp::ReadResp;
use crate::tx::records::ReadRec;
use crate::tx::scheduler::Scheduler;
use crate::tx::send_completion::SendCompletion;
use crate::tx::sqe_fetch::SqeFetch;
use crate::DataWidth;
use rust_hdl::prelude::*;

/// The transmit engine.
#[derive(LogicBlock)]
pub struct TxEngine<const DW: usize, const KW: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Reset.
    pub rst: Signal<In, Bit>,
    /// Current time (ns).
    pub now: Signal<In, Bits<64>>,
    /// DSCP of DATA packets.
    pub cfg_dscp_data: Signal<In, Bits<6>>,
    /// Own log2 MTU (Open extension).
    pub cfg_mtu_log: Signal<In, Bits<8>>,
    /// Longest message (bytes); longer SQEs complete LOCAL_LENGTH.
    pub cfg_max_msg_len: Signal<In, Bits<32>>,
    /// Outstanding messages per connection.
    pub cfg_conn_msgs: Signal<In, Bits<16>>,
    /// Started, unreleased messages per connection (MR-SEM-11; see the scheduler).
    pub cfg_max_started: Signal<In, Bits<16>>,
    /// Re-poll interval (ns) after a gate refusal without a pacing time.
    pub cfg_poll_ns: Signal<In, Bits<32>>,
    /// How long before a waiting connection's `retry_at` its next new packet is tried (see the scheduler).
    pub cfg_retry_lead_ns: Signal<In, Bits<32>>,
    /// Register write strobe (SQ doorbell window).
    pub cfg_wr_en: Signal<In, Bit>,
    /// Byte address within the window.
    pub cfg_wr_addr: Signal<In, Bits<24>>,
    /// Write data.
    pub cfg_wr_data: Signal<In, Bits<32>>,
    /// Context-table writes.
    pub s_axis_ctxw_tdata: Signal<In, CtxWrite>,
    /// Valid.
    pub s_axis_ctxw_tvalid: Signal<In, Bit>,
    /// Connection opens.
    pub s_axis_open_tdata: Signal<In, ConnOpen>,
    /// Valid.
    pub s_axis_open_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_open_tready: Signal<Out, Bit>,
    /// ACK/NACK/CTRL headers to send (from the receive side).
    pub s_axis_ctl_tdata: Signal<In, PktMeta>,
    /// Valid.
    pub s_axis_ctl_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_ctl_tready: Signal<Out, Bit>,
    /// PSNs to retransmit.
    pub s_axis_rtx_tdata: Signal<In, RtxReq>,
    /// Valid.
    pub s_axis_rtx_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_rtx_tready: Signal<Out, Bit>,
    /// snd_una advances.
    pub s_axis_una_tdata: Signal<In, UnaUpdate>,
    /// Valid.
    pub s_axis_una_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_una_tready: Signal<Out, Bit>,
    /// READ requests to answer.
    pub s_axis_readreq_tdata: Signal<In, ReadReq>,
    /// Valid.
    pub s_axis_readreq_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_readreq_tready: Signal<Out, Bit>,
    /// READ responses received completely (see the scheduler).
    pub s_axis_rdone_tdata: Signal<In, ReadDone>,
    /// Valid.
    pub s_axis_rdone_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_rdone_tready: Signal<Out, Bit>,
    /// READs whose request was sent, for the receive path's READ table (no back-pressure).
    pub m_axis_rdrec_tdata: Signal<Out, ReadRec>,
    /// Valid.
    pub m_axis_rdrec_tvalid: Signal<Out, Bit>,
    /// Changes of a connection's READ-response wait, for the READ-response timer (see the scheduler).
    pub m_axis_rwait_tdata: Signal<Out, RespWait>,
    /// Valid.
    pub m_axis_rwait_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_rwait_tready: Signal<In, Bit>,
    /// Causes for a connection's QP to enter ERROR (the scheduler decides them and flushes the send queue).
    pub s_axis_fail_tdata: Signal<In, ConnFail>,
    /// Valid.
    pub s_axis_fail_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_fail_tready: Signal<Out, Bit>,
    /// QPs that entered ERROR.
    pub m_axis_qperr_tdata: Signal<Out, QpError>,
    /// Valid.
    pub m_axis_qperr_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_qperr_tready: Signal<In, Bit>,
    /// Their connections, for the sender engine.
    pub m_axis_stop_tdata: Signal<Out, Bits<16>>,
    /// Valid.
    pub m_axis_stop_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_stop_tready: Signal<In, Bit>,
    /// Gate requests.
    pub m_axis_gate_req_tdata: Signal<Out, GateReq>,
    /// Valid.
    pub m_axis_gate_req_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_gate_req_tready: Signal<In, Bit>,
    /// Gate responses.
    pub s_axis_gate_resp_tdata: Signal<In, GateResp>,
    /// Valid.
    pub s_axis_gate_resp_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_gate_resp_tready: Signal<Out, Bit>,
    /// Sent DATA packets.
    pub m_axis_sent_tdata: Signal<Out, TxSent>,
    /// Valid.
    pub m_axis_sent_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_sent_tready: Signal<In, Bit>,
    /// Packet headers (to the frame builder).
    pub m_axis_hdr_tdata: Signal<Out, PktMeta>,
    /// Valid.
    pub m_axis_hdr_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_hdr_tready: Signal<In, Bit>,
    /// Payloads (to the frame builder).
    pub m_axis_pay_tdata: Signal<Out, Bits<DW>>,
    /// Keep.
    pub m_axis_pay_tkeep: Signal<Out, Bits<KW>>,
    /// Last beat.
    pub m_axis_pay_tlast: Signal<Out, Bit>,
    /// Valid.
    pub m_axis_pay_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_pay_tready: Signal<In, Bit>,
    /// Payload DMA read descriptors.
    pub m_axis_dma_rd_desc_tdata: Signal<Out, DmaDesc>,
    /// Valid.
    pub m_axis_dma_rd_desc_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_dma_rd_desc_tready: Signal<In, Bit>,
    /// Payload DMA read data.
    pub s_axis_dma_rd_tdata: Signal<In, Bits<DW>>,
    /// Keep.
    pub s_axis_dma_rd_tkeep: Signal<In, Bits<KW>>,
    /// Last.
    pub s_axis_dma_rd_tlast: Signal<In, Bit>,
    /// Tag.
    pub s_axis_dma_rd_tuser: Signal<In, Bits<16>>,
    /// Valid.
    pub s_axis_dma_rd_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_dma_rd_tready: Signal<Out, Bit>,
    /// SQE DMA read descriptors.
    pub m_axis_sqe_rd_desc_tdata: Signal<Out, DmaDesc>,
    /// Valid.
    pub m_axis_sqe_rd_desc_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_sqe_rd_desc_tready: Signal<In, Bit>,
    /// SQE DMA read data.
    pub s_axis_sqe_rd_tdata: Signal<In, Bits<DW>>,
    /// Keep.
    pub s_axis_sqe_rd_tkeep: Signal<In, Bits<KW>>,
    /// Last.
    pub s_axis_sqe_rd_tlast: Signal<In, Bit>,
    /// Tag.
    pub s_axis_sqe_rd_tuser: Signal<In, Bits<16>>,
    /// Valid.
    pub s_axis_sqe_rd_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_sqe_rd_tready: Signal<Out, Bit>,
    /// Send completions (to the CQ writer).
    pub m_axis_scpl_tdata: Signal<Out, Completion>,
    /// Send completion: the SQE's ring index (`wqe_index`).
    pub m_axis_scpl_tuser: Signal<Out, Bits<16>>,
    /// Valid.
    pub m_axis_scpl_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_scpl_tready: Signal<In, Bit>,
    /// A doorbell was dropped (sticky).
    pub stat_db_drop: Signal<Out, Bit>,
    /// A work request for a closed connection was discarded (sticky).
    pub stat_wr_closed: Signal<Out, Bit>,
    qm: QueueMgr,
    sqe: SqeFetch<DW, KW>,
    rresp: ReadResp,
    sched: Scheduler,
    pay: PayloadRead<DW, KW>,
    cpl: SendCompletion,
    /// DATA headers on their way to the header output (two, a register slice's output and skid registers):
    /// the scheduler goes on to the next packets, and issues their payload reads, while the frame builder
    /// still sends earlier frames, so that the DMA read latency and the sender engine's longer commands (an
    /// ACK) overlap them.
    hdr_q: RegSlice<PktMeta>,
    hdr_lock: DFF<Bit>,
    wr_lock: DFF<Bit>,
    sel_ctl: Signal<Local, Bit>,
    sel_rr: Signal<Local, Bit>,
}

impl<const DW: usize, const KW: usize> TxEngine<DW, KW> {
    /// A transmit engine for `1 << conn_bits` connections, `1 << qp_bits` QPs and `1 << pool_bits` messages.
    pub fn new(conn_bits: u32, qp_bits: u32, pool_bits: u32) -> Self {
        TxEngine {
            clk: Default::default(),
            rst: Default::default(),
            now: Default::default(),
            cfg_dscp_data: Default::default(),
            cfg_mtu_log: Default::default(),
            cfg_max_msg_len: Default::default(),
            cfg_conn_msgs: Default::default(),
            cfg_max_started: Default::default(),
            s_axis_rdone_tdata: Default::default(),
            s_axis_rdone_tvalid: Default::default(),
            s_axis_rdone_tready: Default::default(),
            m_axis_rdrec_tdata: Default::default(),
            m_axis_rdrec_tvalid: Default::default(),
            m_axis_rwait_tdata: Default::default(),
            m_axis_rwait_tvalid: Default::default(),
            m_axis_rwait_tready: Default::default(),
            s_axis_fail_tdata: Default::default(),
            s_axis_fail_tvalid: Default::default(),
            s_axis_fail_tready: Default::default(),
            m_axis_qperr_tdata: Default::default(),
            m_axis_qperr_tvalid: Default::default(),
            m_axis_qperr_tready: Default::default(),
            m_axis_stop_tdata: Default::default(),
            m_axis_stop_tvalid: Default::default(),
            m_axis_stop_tready: Default::default(),
            cfg_poll_ns: Default::default(),
            cfg_retry_lead_ns: Default::default(),
            cfg_wr_en: Default::default(),
            cfg_wr_addr: Default::default(),
            cfg_wr_data: Default::default(),
            s_axis_ctxw_tdata: Default::default(),
            s_axis_ctxw_tvalid: Default::default(),
            s_axis_open_tdata: Default::default(),
            s_axis_open_tvalid: Default::default(),
            s_axis_open_tready: Default::default(),
            s_axis_ctl_tdata: Default::default(),
            s_axis_ctl_tvalid: Default::default(),
            s_axis_ctl_tready: Default::default(),
            s_axis_rtx_tdata: Default::default(),
            s_axis_rtx_tvalid: Default::default(),
            s_axis_rtx_tready: Default::default(),
            s_axis_una_tdata: Default::default(),
            s_axis_una_tvalid: Default::default(),
            s_axis_una_tready: Default::default(),
            s_axis_readreq_tdata: Default::default(),
            s_axis_readreq_tvalid: Default::default(),
            s_axis_readreq_tready: Default::default(),
            m_axis_gate_req_tdata: Default::default(),
            m_axis_gate_req_tvalid: Default::default(),
            m_axis_gate_req_tready: Default::default(),
            s_axis_gate_resp_tdata: Default::default(),
            s_axis_gate_resp_tvalid: Default::default(),
            s_axis_gate_resp_tready: Default::default(),
            m_axis_sent_tdata: Default::default(),
            m_axis_sent_tvalid: Default::default(),
            m_axis_sent_tready: Default::default(),
            m_axis_hdr_tdata: Default::default(),
            m_axis_hdr_tvalid: Default::default(),
            m_axis_hdr_tready: Default::default(),
            m_axis_pay_tdata: Default::default(),
            m_axis_pay_tkeep: Default::default(),
            m_axis_pay_tlast: Default::default(),
            m_axis_pay_tvalid: Default::default(),
            m_axis_pay_tready: Default::default(),
            m_axis_dma_rd_desc_tdata: Default::default(),
            m_axis_dma_rd_desc_tvalid: Default::default(),
            m_axis_dma_rd_desc_tready: Default::default(),
            s_axis_dma_rd_tdata: Default::default(),
            s_axis_dma_rd_tkeep: Default::default(),
            s_axis_dma_rd_tlast: Default::default(),
            s_axis_dma_rd_tuser: Default::default(),
            s_axis_dma_rd_tvalid: Default::default(),
            s_axis_dma_rd_tready: Default::default(),
            m_axis_sqe_rd_desc_tdata: Default::default(),
            m_axis_sqe_rd_desc_tvalid: Default::default(),
            m_axis_sqe_rd_desc_tready: Default::default(),
            s_axis_sqe_rd_tdata: Default::default(),
            s_axis_sqe_rd_tkeep: Default::default(),
            s_axis_sqe_rd_tlast: Default::default(),
            s_axis_sqe_rd_tuser: Default::default(),
            s_axis_sqe_rd_tvalid: Default::default(),
            s_axis_sqe_rd_tready: Default::default(),
            m_axis_scpl_tdata: Default::default(),
            m_axis_scpl_tuser: Default::default(),
            m_axis_scpl_tvalid: Default::default(),
            m_axis_scpl_tready: Default::default(),
            stat_db_drop: Default::default(),
            stat_wr_closed: Default::default(),
            qm: QueueMgr::new(qp_bits),
            sqe: SqeFetch::new(),
            rresp: ReadResp::new(),
            sched: Scheduler::new(conn_bits, pool_bits),
            pay: PayloadRead::new(),
            cpl: SendCompletion::new(),
            hdr_q: Default::default(),
            hdr_lock: Default::default(),
            wr_lock: Default::default(),
            sel_ctl: Default::default(),
            sel_rr: Default::default(),
        }
    }
}

impl<const DW: usize, const KW: usize> Logic for TxEngine<DW, KW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, hdr_lock, wr_lock);
        self.qm.clk.next = self.clk.val();
        self.sqe.clk.next = self.clk.val();
        self.rresp.clk.next = self.clk.val();
        self.sched.clk.next = self.clk.val();
        self.pay.clk.next = self.clk.val();
        self.cpl.clk.next = self.clk.val();
        self.qm.rst.next = self.rst.val();
        self.sqe.rst.next = self.rst.val();
        self.rresp.rst.next = self.rst.val();
        self.sched.rst.next = self.rst.val();
        self.pay.rst.next = self.rst.val();
        self.cpl.rst.next = self.rst.val();
        self.hdr_q.clk.next = self.clk.val();
        self.hdr_q.rst.next = self.rst.val();
        // Queue manager.
        self.qm.cfg_wr_en.next = self.cfg_wr_en.val();
        self.qm.cfg_wr_addr.next = self.cfg_wr_addr.val();
        self.qm.cfg_wr_data.next = self.cfg_wr_data.val();
        self.qm.s_axis_ctxw_tdata.next = self.s_axis_ctxw_tdata.val();
        self.qm.s_axis_ctxw_tvalid.next = self.s_axis_ctxw_tvalid.val();
        self.stat_db_drop.next = self.qm.stat_db_drop.val();
        // SQE fetch.
        self.sqe.cfg_max_msg_len.next = self.cfg_max_msg_len.val();
        self.sqe.s_axis_fetch_tdata.next = self.qm.m_axis_fetch_tdata.val();
        self.sqe.s_axis_fetch_tvalid.next = self.qm.m_axis_fetch_tvalid.val();
        self.qm.m_axis_fetch_tready.next = self.sqe.s_axis_fetch_tready.val();
        self.m_axis_sqe_rd_desc_tdata.next = self.sqe.m_axis_dma_rd_desc_tdata.val();
        self.m_axis_sqe_rd_desc_tvalid.next = self.sqe.m_axis_dma_rd_desc_tvalid.val();
        self.sqe.m_axis_dma_rd_desc_tready.next = self.m_axis_sqe_rd_desc_tready.val();
        self.sqe.s_axis_dma_rd_tdata.next = self.s_axis_sqe_rd_tdata.val();
        self.sqe.s_axis_dma_rd_tkeep.next = self.s_axis_sqe_rd_tkeep.val();
        self.sqe.s_axis_dma_rd_tlast.next = self.s_axis_sqe_rd_tlast.val();
        self.sqe.s_axis_dma_rd_tuser.next = self.s_axis_sqe_rd_tuser.val();
        self.sqe.s_axis_dma_rd_tvalid.next = self.s_axis_sqe_rd_tvalid.val();
        self.s_axis_sqe_rd_tready.next = self.sqe.s_axis_dma_rd_tready.val();
        // READ responses.
        self.rresp.s_axis_readreq_tdata.next = self.s_axis_readreq_tdata.val();
        self.rresp.s_axis_readreq_tvalid.next = self.s_axis_readreq_tvalid.val();
        self.s_axis_readreq_tready.next = self.rresp.s_axis_readreq_tready.val();
        // Work-request merge: READ responses first, an offered request kept until taken.
        self.sel_rr.next = self.rresp.m_axis_wr_tvalid.val();
        if self.wr_lock.q.val() {
            self.sel_rr.next = false;
        }
        self.sched.s_axis_wr_tdata.next = self.sqe.m_axis_wr_tdata.val();
        self.sched.s_axis_wr_tvalid.next = self.sqe.m_axis_wr_tvalid.val();
        self.sqe.m_axis_wr_tready.next = self.sched.s_axis_wr_tready.val();
        self.rresp.m_axis_wr_tready.next = false;
        if self.sel_rr.val() {
            self.sched.s_axis_wr_tdata.next = self.rresp.m_axis_wr_tdata.val();
            self.sched.s_axis_wr_tvalid.next = true;
            self.sqe.m_axis_wr_tready.next = false;
            self.rresp.m_axis_wr_tready.next = self.sched.s_axis_wr_tready.val();
        }
        self.wr_lock.d.next = !self.sel_rr.val()
            & self.sqe.m_axis_wr_tvalid.val()
            & !self.sched.s_axis_wr_tready.val();
        // Scheduler.
        self.sched.now.next = self.now.val();
        self.sched.cfg_conn_msgs.next = self.cfg_conn_msgs.val();
        self.sched.cfg_max_started.next = self.cfg_max_started.val();
        self.sched.s_axis_rdone_tdata.next = self.s_axis_rdone_tdata.val();
        self.sched.s_axis_rdone_tvalid.next = self.s_axis_rdone_tvalid.val();
        self.s_axis_rdone_tready.next = self.sched.s_axis_rdone_tready.val();
        self.m_axis_rdrec_tdata.next = self.sched.m_axis_rdrec_tdata.val();
        self.m_axis_rdrec_tvalid.next = self.sched.m_axis_rdrec_tvalid.val();
        self.m_axis_rwait_tdata.next = self.sched.m_axis_rwait_tdata.val();
        self.m_axis_rwait_tvalid.next = self.sched.m_axis_rwait_tvalid.val();
        self.sched.m_axis_rwait_tready.next = self.m_axis_rwait_tready.val();
        self.sched.s_axis_fail_tdata.next = self.s_axis_fail_tdata.val();
        self.sched.s_axis_fail_tvalid.next = self.s_axis_fail_tvalid.val();
        self.s_axis_fail_tready.next = self.sched.s_axis_fail_tready.val();
        self.m_axis_qperr_tdata.next = self.sched.m_axis_qperr_tdata.val();
        self.m_axis_qperr_tvalid.next = self.sched.m_axis_qperr_tvalid.val();
        self.sched.m_axis_qperr_tready.next = self.m_axis_qperr_tready.val();
        self.m_axis_stop_tdata.next = self.sched.m_axis_stop_tdata.val();
        self.m_axis_stop_tvalid.next = self.sched.m_axis_stop_tvalid.val();
        self.sched.m_axis_stop_tready.next = self.m_axis_stop_tready.val();
        self.sched.cfg_poll_ns.next = self.cfg_poll_ns.val();
        self.sched.cfg_retry_lead_ns.next = self.cfg_retry_lead_ns.val();
        self.sched.cfg_dscp_data.next = self.cfg_dscp_data.val();
        self.sched.cfg_mtu_log.next = self.cfg_mtu_log.val();
        self.sched.s_axis_ctxw_tdata.next = self.s_axis_ctxw_tdata.val();
        self.sched.s_axis_ctxw_tvalid.next = self.s_axis_ctxw_tvalid.val();
        self.sched.s_axis_open_tdata.next = self.s_axis_open_tdata.val();
        self.sched.s_axis_open_tvalid.next = self.s_axis_open_tvalid.val();
        self.s_axis_open_tready.next = self.sched.s_axis_open_tready.val();
        self.sched.s_axis_una_tdata.next = self.s_axis_una_tdata.val();
        self.sched.s_axis_una_tvalid.next = self.s_axis_una_tvalid.val();
        self.s_axis_una_tready.next = self.sched.s_axis_una_tready.val();
        self.sched.s_axis_rtx_tdata.next = self.s_axis_rtx_tdata.val();
        self.sched.s_axis_rtx_tvalid.next = self.s_axis_rtx_tvalid.val();
        self.s_axis_rtx_tready.next = self.sched.s_axis_rtx_tready.val();
        self.m_axis_gate_req_tdata.next = self.sched.m_axis_gate_req_tdata.val();
        self.m_axis_gate_req_tvalid.next = self.sched.m_axis_gate_req_tvalid.val();
        self.sched.m_axis_gate_req_tready.next = self.m_axis_gate_req_tready.val();
        self.sched.s_axis_gate_resp_tdata.next = self.s_axis_gate_resp_tdata.val();
        self.sched.s_axis_gate_resp_tvalid.next = self.s_axis_gate_resp_tvalid.val();
        self.s_axis_gate_resp_tready.next = self.sched.s_axis_gate_resp_tready.val();
        self.m_axis_sent_tdata.next = self.sched.m_axis_sent_tdata.val();
        self.m_axis_sent_tvalid.next = self.sched.m_axis_sent_tvalid.val();
        self.sched.m_axis_sent_tready.next = self.m_axis_sent_tready.val();
        self.stat_wr_closed.next = self.sched.stat_wr_closed.val();
        // Header output: control first (MR-REL-19), an offered DATA header kept until taken.
        self.hdr_q.s_axis_tdata.next = self.sched.m_axis_hdr_tdata.val();
        self.hdr_q.s_axis_tvalid.next = self.sched.m_axis_hdr_tvalid.val();
        self.sched.m_axis_hdr_tready.next = self.hdr_q.s_axis_tready.val();
        self.sel_ctl.next = self.s_axis_ctl_tvalid.val() & !self.hdr_lock.q.val();
        self.m_axis_hdr_tdata.next = self.hdr_q.m_axis_tdata.val();
        self.m_axis_hdr_tvalid.next = self.hdr_q.m_axis_tvalid.val();
        self.hdr_q.m_axis_tready.next = self.m_axis_hdr_tready.val();
        self.s_axis_ctl_tready.next = false;
        if self.sel_ctl.val() {
            self.m_axis_hdr_tdata.next = self.s_axis_ctl_tdata.val();
            self.m_axis_hdr_tvalid.next = true;
            self.hdr_q.m_axis_tready.next = false;
            self.s_axis_ctl_tready.next = self.m_axis_hdr_tready.val();
        }
        self.hdr_lock.d.next =
            !self.sel_ctl.val() & self.hdr_q.m_axis_tvalid.val() & !self.m_axis_hdr_tready.val();
        // Payload reads.
        self.pay.s_axis_req_tdata.next = self.sched.m_axis_payreq_tdata.val();
        self.pay.s_axis_req_tvalid.next = self.sched.m_axis_payreq_tvalid.val();
        self.sched.m_axis_payreq_tready.next = self.pay.s_axis_req_tready.val();
        self.m_axis_dma_rd_desc_tdata.next = self.pay.m_axis_dma_rd_desc_tdata.val();
        self.m_axis_dma_rd_desc_tvalid.next = self.pay.m_axis_dma_rd_desc_tvalid.val();
        self.pay.m_axis_dma_rd_desc_tready.next = self.m_axis_dma_rd_desc_tready.val();
        self.pay.s_axis_dma_rd_tdata.next = self.s_axis_dma_rd_tdata.val();
        self.pay.s_axis_dma_rd_tkeep.next = self.s_axis_dma_rd_tkeep.val();
        self.pay.s_axis_dma_rd_tlast.next = self.s_axis_dma_rd_tlast.val();
        self.pay.s_axis_dma_rd_tuser.next = self.s_axis_dma_rd_tuser.val();
        self.pay.s_axis_dma_rd_tvalid.next = self.s_axis_dma_rd_tvalid.val();
        self.s_axis_dma_rd_tready.next = self.pay.s_axis_dma_rd_tready.val();
        self.m_axis_pay_tdata.next = self.pay.m_axis_pay_tdata.val();
        self.m_axis_pay_tkeep.next = self.pay.m_axis_pay_tkeep.val();
        self.m_axis_pay_tlast.next = self.pay.m_axis_pay_tlast.val();
        self.m_axis_pay_tvalid.next = self.pay.m_axis_pay_tvalid.val();
        self.pay.m_axis_pay_tready.next = self.m_axis_pay_tready.val();
        // Completions.
        self.cpl.s_axis_done_tdata.next = self.sched.m_axis_done_tdata.val();
        self.cpl.s_axis_done_tvalid.next = self.sched.m_axis_done_tvalid.val();
        self.sched.m_axis_done_tready.next = self.cpl.s_axis_done_tready.val();
        self.m_axis_scpl_tdata.next = self.cpl.m_axis_scpl_tdata.val();
        self.m_axis_scpl_tuser.next = self.cpl.m_axis_scpl_tuser.val();
        self.m_axis_scpl_tvalid.next = self.cpl.m_axis_scpl_tvalid.val();
        self.cpl.m_axis_scpl_tready.next = self.m_axis_scpl_tready.val();
        if self.rst.val() {
            self.hdr_lock.d.next = false;
            self.wr_lock.d.next = false;
        }
    }
}

/// log2 of the send-message pool of the reference configuration (4096 outstanding messages).
pub const POOL_BITS: u32 = 12;

/// The transmit engine's blocks (part C), for the block list in `tx/mod.rs`.
pub fn blocks() -> Vec<BlockSpec> {
    vec![
        BlockSpec {
            name: "metaroce_tx_engine",
            area: "tx",
            description:
                "transmit engine: queue manager, SQE fetch, scheduler, payload reads, completions",
            verilog: |cfg| match cfg.width {
                DataWidth::W512 => crate::gen::verilog(
                    "metaroce_tx_engine",
                    TxEngine::<512, 64>::new(cfg.conn_bits, cfg.qp_bits, POOL_BITS),
                ),
                DataWidth::W1024 => crate::gen::verilog(
                    "metaroce_tx_engine",
                    TxEngine::<1024, 128>::new(cfg.conn_bits, cfg.qp_bits, POOL_BITS),
                ),
            },
        },
        BlockSpec {
            name: "metaroce_tx_scheduler",
            area: "tx",
            description: "transmit scheduler with the send-message table and segmentation",
            verilog: |cfg| {
                crate::gen::verilog(
                    "metaroce_tx_scheduler",
                    crate::tx::scheduler::Scheduler::new(cfg.conn_bits, POOL_BITS),
                )
            },
        },
        BlockSpec {
            name: "metaroce_tx_msg_table",
            area: "tx",
            description:
                "send-message table: per-connection state, destinations, message pool and free list",
            verilog: |cfg| {
                crate::gen::verilog(
                    "metaroce_tx_msg_table",
                    crate::tx::msg_table::MsgTable::new(cfg.conn_bits, POOL_BITS),
                )
            },
        },
        BlockSpec {
            name: "metaroce_tx_queue_mgr",
            area: "tx",
            description: "SQ doorbells, per-QP ring state, round-robin SQE fetch requests",
            verilog: |cfg| {
                crate::gen::verilog(
                    "metaroce_tx_queue_mgr",
                    crate::tx::queue_mgr::QueueMgr::new(cfg.qp_bits),
                )
            },
        },
        BlockSpec {
            name: "metaroce_tx_segment",
            area: "tx",
            description:
                "segmentation: message + PSN to one packet's header record (new and retransmitted)",
            verilog: |_cfg| {
                crate::gen::verilog("metaroce_tx_segment", crate::tx::segment::Segment::new())
            },
        },
        BlockSpec {
            name: "metaroce_tx_payload_read",
            area: "tx",
            description: "payload DMA read per DATA packet, data passed on as the payload stream",
            verilog: |cfg| match cfg.width {
                DataWidth::W512 => crate::gen::verilog(
                    "metaroce_tx_payload_read",
                    crate::tx::payload_read::PayloadRead::<512, 64>::new(),
                ),
                DataWidth::W1024 => crate::gen::verilog(
                    "metaroce_tx_payload_read",
                    crate::tx::payload_read::PayloadRead::<1024, 128>::new(),
                ),
            },
        },
        BlockSpec {
            name: "metaroce_tx_read_resp",
            area: "tx",
            description: "READ_REQ to answer -> READ_RESP work request of the connection",
            verilog: |_cfg| {
                crate::gen::verilog(
                    "metaroce_tx_read_resp",
                    crate::tx::read_resp::ReadResp::new(),
                )
            },
        },
        BlockSpec {
            name: "metaroce_tx_send_completion",
            area: "tx",
            description: "finished send message -> send CQE record",
            verilog: |_cfg| {
                crate::gen::verilog(
                    "metaroce_tx_send_completion",
                    crate::tx::send_completion::SendCompletion::new(),
                )
            },
        },
        BlockSpec {
            name: "metaroce_tx_sqe_fetch",
            area: "tx",
            description: "SQE DMA read, decode and validation -> work request",
            verilog: |cfg| match cfg.width {
                DataWidth::W512 => crate::gen::verilog(
                    "metaroce_tx_sqe_fetch",
                    crate::tx::sqe_fetch::SqeFetch::<512, 64>::new(),
                ),
                DataWidth::W1024 => crate::gen::verilog(
                    "metaroce_tx_sqe_fetch",
                    crate::tx::sqe_fetch::SqeFetch::<1024, 128>::new(),
                ),
            },
        },
    ]
}
