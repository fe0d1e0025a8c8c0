//! The transmit scheduler: the one sequencer of all per-connection send-side state.
//!
//! Operations, one at a time, chosen in this order when idle:
//! 1. `ConnOpen` (`s_axis_open_*`): initialise the connection (snd_una = snd_nxt = ISN, MSN/SSN 0, empty list,
//!    SYN phase on, MR-CONN-1/6).
//! 2. `UnaUpdate` (`s_axis_una_*`): snd_una advances (serial arithmetic), the SYN phase ends (the peer
//!    answered, MR-CONN-6/7), a pacing/window wait of the connection ends, and messages whose last PSN is
//!    below snd_una are released from the head in posting order, each signalled one reported on
//!    `m_axis_done_*` for its completion (spec 8.10; the model's `retire_done`). A READ is released only
//!    when, besides its request's acknowledgement, its response is complete (MR-SEM-24): a `ReadDone`
//!    (`s_axis_rdone_*`, from the receive path when a READ response message completed in order, taken after
//!    the `UnaUpdate`s) advances the connection's count of completed responses (responses complete in request
//!    order, so the count names the oldest started READ) and runs the same release.
//! 3. A work request (`s_axis_wr_*`, SQEs and READ responses): appended to its connection's list; the
//!    connection joins the new-data round-robin list. At the per-connection limit (`cfg_conn_msgs`) or with
//!    the pool empty it is held (back-pressure) and retried after the next acknowledgement or packet.
//! 4. A retransmission (`s_axis_rtx_*`, in declaration order, MR-REL-43): the PSN is looked up in the message
//!    list (stale PSNs outside `[snd_una, snd_nxt)` are dropped) and rebuilt by [`Segment`] with RTX set; a
//!    gate answer with `skip` (acknowledged meanwhile) drops it too.
//! 5. New data, round-robin over connections (a FIFO of connection indices): the connection at the head sends
//!    one packet of its current message and goes back to the tail while it has more. The MSN, SSN, first PSN
//!    and segment size of a message are fixed when its first packet leaves (MR-WIRE-30). A message starts
//!    only while its connection has fewer than `cfg_max_started` started, unreleased messages (MR-SEM-11;
//!    otherwise the connection waits as after a gate refusal, until a release or `cfg_poll_ns`). When a READ's
//!    request is first committed, its destination ([`ReadRec`]) goes to the receive path on `m_axis_rdrec_*`
//!    (MR-SEM-24). A rejected work request (non-zero status) takes no PSN and completes in order.
//!
//! 6. A QP error (`s_axis_fail_*`, [`ConnFail`], taken after the snd_una and READ-response updates): the
//!    failing message is the one the cause names by MSN when it is started and unreleased (MSNs in
//!    `[rel_msn, msn)`); a fatal NACK naming none is ignored (MR-SEM-35); any other cause fails the oldest
//!    started, unreleased message, if any. A connection not open or already in ERROR ignores it. Otherwise
//!    the connection enters ERROR: one [`QpError`] on `m_axis_qperr_*` (the `QpError` event), its connection
//!    on `m_axis_stop_*` to the sender engine, and the send queue is flushed in posting order (MR-SEM-38):
//!    the failing message completes with the cause's status, a rejected one with its own, every other one
//!    (signalled or not) `Flushed`, all with length 0; queued READ responses are dropped. A work request
//!    for a connection in ERROR completes `Flushed` at once; its retransmissions are dropped; an open ends the
//!    state. The receive queue is not flushed here: that is the control plane's answer to the report.
//!
//! Every DATA packet asks the gate (`m_axis_gate_req_*` → `s_axis_gate_resp_*`, MR-REL-4, MR-CC-1/2). When
//! allowed it is reported (`m_axis_sent_*`), its payload request (`m_axis_payreq_*`, when payload_len > 0) and
//! header (`m_axis_hdr_*`, the gate's EV) are issued, in that order, and the state is committed. When
//! refused, nothing is committed: a new packet's connection waits until `retry_at` (0: `now + cfg_poll_ns`,
//! or the next `UnaUpdate`; tried `cfg_retry_lead_ns` early) and goes back to the round-robin tail, so other connections go on; a refused
//! retransmission is parked and retried at its `retry_at` while new data of other connections continues.
//! Control packets (ACK/NACK/CTRL) never pass here: the transmit engine sends them first (MR-REL-19).
//!
//! Hazards: all state is in RAMs of the message table with a 1-cycle registered read; each operation reads
//! after the previous one's writes have completed (writes happen in the cycle before `Idle`, reads are
//! issued from `Idle` on), so back-to-back packets of one connection always see each other's updates without
//! forwarding. Throughput: a new packet takes 12 cycles plus the gate's latency and the output handshakes.
//!
//! Continuation: when a connection's packet is committed, the connection has more to send, no other
//! connection waits in the round-robin and no other operation is pending (nor a context write since its
//! destination was read), the round-robin would pick the same connection next. Its state is then in
//! registers (`cs_n`, and `m_n` for the same message), so `WrConn` goes on to its next packet at once
//! (`Seg1`, or `RdMsg` for its next message) instead of through `Idle` and the table reads: 5 cycles plus the
//! gate's latency and the handshakes for a packet of the same message, 7 for the first of the next one. The
//! connection state is still written back in `WrConn`, so the tables stay current.
//! Ports: see the fields.

use crate::common::zext::Zext;
use crate::dma::DmaDesc;
use crate::records::{ConnIdx, CtxWrite, PktMeta, RtxReq, TxSent};
use crate::rel::records::{ConnFail, ConnOpen, GateReq, GateResp, QpError, UnaUpdate};
use crate::rel::resp_timer::RespWait;
use crate::rx::completion::ReadDone;
use crate::tx::msg_table::MsgTable;
use crate::tx::records::{ConnPeer, ConnTx, MsgDone, MsgEntry, ReadRec, WorkReq};
use crate::tx::segment::Segment;
use metaroce_proto::wire::Opcode;
use metaroce_regmap::descriptor::cqe::CqeStatus;
use rust_hdl::prelude::*;

/// The scheduler's states (`st`).
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum SchedState {
    Idle,
    RrGot,
    RdConn,
    GotConn,
    Dispatch,
    RdMsg,
    GotMsg,
    ErrWr,
    Seg1,
    Seg2,
    Seg3,
    GateReq,
    GateWait,
    SentOut,
    HdrOut,
    PayOut,
    Commit,
    WrConn,
    CplOut,
    RelChk,
    OpenWr,
    RtxChk,
}

/// The scheduler with its message table and segmentation function.
#[derive(LogicBlock)]
pub struct Scheduler {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Reset.
    pub rst: Signal<In, Bit>,
    /// Current time (ns).
    pub now: Signal<In, Bits<64>>,
    /// Messages per connection (1..=65535).
    pub cfg_conn_msgs: Signal<In, Bits<16>>,
    /// Re-poll interval (ns) after a gate refusal without a pacing time.
    pub cfg_poll_ns: Signal<In, Bits<32>>,
    /// A waiting connection's next new packet is tried this long before its `retry_at` (ns, < 2^31; 0: at
    /// `retry_at`), so that with a gate that holds a request refused by pacing alone for a short time (the
    /// sender engine's `cfg_pace_hold_ns`) the packet is decided right at its pacing time.
    pub cfg_retry_lead_ns: Signal<In, Bits<32>>,
    /// DSCP of DATA packets.
    pub cfg_dscp_data: Signal<In, Bits<6>>,
    /// Own log2 MTU (Open extension).
    pub cfg_mtu_log: Signal<In, Bits<8>>,
    /// Context-table writes (QP entries: destinations).
    pub s_axis_ctxw_tdata: Signal<In, CtxWrite>,
    /// Valid.
    pub s_axis_ctxw_tvalid: Signal<In, Bit>,
    /// Connection opens.
    pub s_axis_open_tdata: Signal<In, ConnOpen>,
    /// Valid.
    pub s_axis_open_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_open_tready: Signal<Out, Bit>,
    /// snd_una advances.
    pub s_axis_una_tdata: Signal<In, UnaUpdate>,
    /// Valid.
    pub s_axis_una_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_una_tready: Signal<Out, Bit>,
    /// READ responses received completely, in order (from the receive path through its READ table).
    pub s_axis_rdone_tdata: Signal<In, ReadDone>,
    /// Valid.
    pub s_axis_rdone_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_rdone_tready: Signal<Out, Bit>,
    /// Work requests.
    pub s_axis_wr_tdata: Signal<In, WorkReq>,
    /// Valid.
    pub s_axis_wr_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_wr_tready: Signal<Out, Bit>,
    /// Retransmission requests.
    pub s_axis_rtx_tdata: Signal<In, RtxReq>,
    /// Valid.
    pub s_axis_rtx_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_rtx_tready: Signal<Out, Bit>,
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
    /// DATA packet headers.
    pub m_axis_hdr_tdata: Signal<Out, PktMeta>,
    /// Valid.
    pub m_axis_hdr_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_hdr_tready: Signal<In, Bit>,
    /// Payload read requests.
    pub m_axis_payreq_tdata: Signal<Out, DmaDesc>,
    /// Valid.
    pub m_axis_payreq_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_payreq_tready: Signal<In, Bit>,
    /// READs whose request was sent (one per READ, when its first transmission is committed; no
    /// back-pressure: the READ table takes a record every cycle).
    pub m_axis_rdrec_tdata: Signal<Out, ReadRec>,
    /// Valid.
    pub m_axis_rdrec_tvalid: Signal<Out, Bit>,
    /// Changes of a connection's READ-response wait (MR-REL-58): `wait = 1` when its oldest unreleased message
    /// becomes a READ whose request is acknowledged and whose response is incomplete, `wait = 0` when that ends
    /// and on every open.
    pub m_axis_rwait_tdata: Signal<Out, RespWait>,
    /// Valid.
    pub m_axis_rwait_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_rwait_tready: Signal<In, Bit>,
    /// Started, unreleased messages per connection (the model's `max_outstanding_msgs`, MR-SEM-11; at most the
    /// receive path's READ-table slots per connection).
    pub cfg_max_started: Signal<In, Bits<16>>,
    /// Finished signalled messages.
    pub m_axis_done_tdata: Signal<Out, MsgDone>,
    /// Valid.
    pub m_axis_done_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_done_tready: Signal<In, Bit>,
    /// A work request for a closed connection was discarded (sticky).
    pub stat_wr_closed: Signal<Out, Bit>,
    /// Causes for a connection's QP to enter ERROR (see the module docs).
    pub s_axis_fail_tdata: Signal<In, ConnFail>,
    /// Valid.
    pub s_axis_fail_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_fail_tready: Signal<Out, Bit>,
    /// QPs that entered ERROR (the `QpError` event of MR-SEM-38), one record per failure.
    pub m_axis_qperr_tdata: Signal<Out, QpError>,
    /// Valid.
    pub m_axis_qperr_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_qperr_tready: Signal<In, Bit>,
    /// The same connections, to the sender engine, whose send direction stops.
    pub m_axis_stop_tdata: Signal<Out, ConnIdx>,
    /// Valid.
    pub m_axis_stop_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_stop_tready: Signal<In, Bit>,
    fl: DFF<ConnFail>,
    qerr: DFF<QpError>,
    qerr_v: DFF<Bit>,
    stop_c: DFF<ConnIdx>,
    stop_v: DFF<Bit>,
    d_fm: Signal<Local, Bits<32>>,
    n_st: Signal<Local, Bits<32>>,
    f_tgt: Signal<Local, Bits<32>>,
    f_has: Signal<Local, Bit>,
    f_go: Signal<Local, Bit>,
    c_op_fail: Constant<Bits<3>>,
    c_op_flush: Constant<Bits<3>>,
    c_flushed: Constant<Bits<8>>,
    c_read_resp: Constant<Bits<8>>,
    mtab: MsgTable,
    seg: Segment,
    rdrec: DFF<ReadRec>,
    rdrec_v: DFF<Bit>,
    rwait: DFF<RespWait>,
    rwait_v: DFF<Bit>,
    rw_end: DFF<Bit>,
    x_maxst: Zext<16, 32>,
    rd_ok: Signal<Local, Bit>,
    /// `msn - rel_msn` and `fl.msn - rel_msn` of the connection word, registered in `GotConn` for a
    /// failure's decisions in `Dispatch`.
    n_st_g: DFF<Bits<32>>,
    d_fm_g: DFF<Bits<32>>,
    /// `cs.msn - cs.rel_msn`, registered every cycle for MR-SEM-11's test in `GotMsg` (`cs` holds its word
    /// from `RdMsg` on, written in `GotConn` or `WrConn`).
    n_st_q: DFF<Bits<32>>,
    /// An appended message's packets - 1 (`(len - 1) >> mtu_log`, 0 for a READ or an empty message).
    npk_a: Signal<Local, Bits<32>>,
    st_full: Signal<Local, Bit>,
    z_mtu: Zext<4, 32>,
    st: DFF<SchedState>,
    op: DFF<Bits<3>>,
    c: DFF<ConnIdx>,
    cs: DFF<ConnTx>,
    cs_n: DFF<ConnTx>,
    peer: DFF<ConnPeer>,
    m: DFF<MsgEntry>,
    m_n: DFF<MsgEntry>,
    m_new: DFF<Bit>,
    mi: DFF<Bits<16>>,
    nx: DFF<Bits<16>>,
    psn: DFF<Bits<32>>,
    una_v: DFF<Bits<32>>,
    una_peer: DFF<Bits<24>>,
    wr: DFF<WorkReq>,
    wr_hold: DFF<Bit>,
    wr_backoff: DFF<Bit>,
    rtx_c: DFF<ConnIdx>,
    rtx_psn: DFF<Bits<32>>,
    rtx_hold: DFF<Bit>,
    rtx_wait: DFF<Bit>,
    rtx_retry: DFF<Bits<32>>,
    rtx_due: DFF<Bit>,
    is_rtx: DFF<Bit>,
    resp: DFF<GateResp>,
    pm: DFF<PktMeta>,
    pay_len: DFF<Bits<16>>,
    charged: DFF<Bits<16>>,
    last: DFF<Bit>,
    rr_push: DFF<Bit>,
    /// The packet just committed leaves its connection with more to send (it goes back to the round-robin).
    cont: DFF<Bit>,
    /// A context write arrived since the connection's destination was read (`GotConn`).
    ctxw_seen: DFF<Bit>,
    /// In the previous cycle the round-robin was empty and no context write, held WR or held retransmission
    /// was there: the part of the continuation's test that needs no input of this cycle, registered so that
    /// the test adds no logic levels in front of the registers it loads.
    quiet: DFF<Bit>,
    open_rec: DFF<ConnOpen>,
    closed: DFF<Bit>,
    rr: crate::common::ram::SdpRam<Bits<16>, 16>,
    rr_wp: DFF<Bits<16>>,
    rr_rp: DFF<Bits<16>>,
    rr_ne: DFF<Bit>,
    rr_last: Signal<Local, Bit>,
    rr_pop: Signal<Local, Bit>,
    rr_wr: Signal<Local, Bit>,
    now32: Signal<Local, Bits<32>>,
    d_una: Signal<Local, Bits<32>>,
    /// A retransmission's `psn - snd_una` and the window's `snd_nxt - snd_una`, registered in `GotConn` from the
    /// connection word (Dispatch compares them: one carry chain).
    d_win: DFF<Bits<32>>,
    w_len: DFF<Bits<32>>,
    d_rel: Signal<Local, Bits<32>>,
    d_first: DFF<Bits<32>>,
    m_span: DFF<Bits<32>>,
    d_now: Signal<Local, Bits<32>>,
    d_rnow: Signal<Local, Bits<32>>,
    npk: Signal<Local, Bits<32>>,
    retry: Signal<Local, Bits<32>>,
    consumes: Signal<Local, Bit>,
    m_done: Signal<Local, Bit>,
    z_pay: Zext<16, 32>,
    c_op_una: Constant<Bits<3>>,
    c_op_append: Constant<Bits<3>>,
    c_op_rtx: Constant<Bits<3>>,
    c_op_new: Constant<Bits<3>>,
    c_op_rel: Constant<Bits<3>>,
    c_op_rdn: Constant<Bits<3>>,
    c_z8: Constant<Bits<8>>,
    c_z16: Constant<Bits<16>>,
    c_one16: Constant<Bits<16>>,
    c_one8: Constant<Bits<8>>,
    c_z32: Constant<Bits<32>>,
    c_z24: Constant<Bits<24>>,
    c_one32: Constant<Bits<32>>,
    c_rrmask: Constant<Bits<16>>,
    c_zero_cs: Constant<ConnTx>,
    c_zero_m: Constant<MsgEntry>,
    c_read: Constant<Bits<8>>,
    c_send: Constant<Bits<8>>,
    c_send_imm: Constant<Bits<8>>,
    c_write_imm: Constant<Bits<8>>,
    c_tag: Constant<Bits<16>>,
}

/// Scheduler state codes (`st`), in the order of a new packet's path.
pub const STATES: [&str; 21] = [
    "idle",
    "rr_got",
    "rd_conn",
    "got_conn",
    "dispatch",
    "rd_msg",
    "got_msg",
    "err_wr",
    "seg1",
    "seg2",
    "seg3",
    "gate_req",
    "gate_wait",
    "sent_out",
    "hdr_out",
    "pay_out",
    "commit",
    "wr_conn",
    "cpl_out",
    "rel_chk",
    "open_wr",
];

impl Scheduler {
    /// A scheduler for `1 << conn_bits` connections with a pool of `1 << pool_bits` messages.
    pub fn new(conn_bits: u32, pool_bits: u32) -> Self {
        let b8 = |v: u8| Constant::new(Bits::<8>::from(v as u64));
        let o3 = |v: u64| Constant::new(Bits::<3>::from(v));
        Scheduler {
            clk: Default::default(),
            rst: Default::default(),
            now: Default::default(),
            cfg_conn_msgs: Default::default(),
            cfg_poll_ns: Default::default(),
            cfg_retry_lead_ns: Default::default(),
            cfg_dscp_data: Default::default(),
            cfg_mtu_log: Default::default(),
            s_axis_ctxw_tdata: Default::default(),
            s_axis_ctxw_tvalid: Default::default(),
            s_axis_open_tdata: Default::default(),
            s_axis_open_tvalid: Default::default(),
            s_axis_open_tready: Default::default(),
            s_axis_una_tdata: Default::default(),
            s_axis_una_tvalid: Default::default(),
            s_axis_una_tready: Default::default(),
            s_axis_rdone_tdata: Default::default(),
            s_axis_rdone_tvalid: Default::default(),
            s_axis_rdone_tready: Default::default(),
            s_axis_wr_tdata: Default::default(),
            s_axis_wr_tvalid: Default::default(),
            s_axis_wr_tready: Default::default(),
            s_axis_rtx_tdata: Default::default(),
            s_axis_rtx_tvalid: Default::default(),
            s_axis_rtx_tready: Default::default(),
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
            m_axis_payreq_tdata: Default::default(),
            m_axis_payreq_tvalid: Default::default(),
            m_axis_payreq_tready: Default::default(),
            m_axis_done_tdata: Default::default(),
            m_axis_done_tvalid: Default::default(),
            m_axis_done_tready: Default::default(),
            m_axis_rdrec_tdata: Default::default(),
            m_axis_rdrec_tvalid: Default::default(),
            m_axis_rwait_tdata: Default::default(),
            m_axis_rwait_tvalid: Default::default(),
            m_axis_rwait_tready: Default::default(),
            cfg_max_started: Default::default(),
            stat_wr_closed: Default::default(),
            s_axis_fail_tdata: Default::default(),
            s_axis_fail_tvalid: Default::default(),
            s_axis_fail_tready: Default::default(),
            m_axis_qperr_tdata: Default::default(),
            m_axis_qperr_tvalid: Default::default(),
            m_axis_qperr_tready: Default::default(),
            m_axis_stop_tdata: Default::default(),
            m_axis_stop_tvalid: Default::default(),
            m_axis_stop_tready: Default::default(),
            fl: Default::default(),
            qerr: Default::default(),
            qerr_v: Default::default(),
            stop_c: Default::default(),
            stop_v: Default::default(),
            d_fm: Default::default(),
            n_st: Default::default(),
            f_tgt: Default::default(),
            f_has: Default::default(),
            f_go: Default::default(),
            c_op_fail: o3(7),
            c_op_flush: o3(0),
            c_flushed: b8(CqeStatus::Flushed as u8),
            c_read_resp: b8(Opcode::ReadResp as u8),
            mtab: MsgTable::new(conn_bits, pool_bits),
            seg: Segment::new(),
            rdrec: Default::default(),
            rdrec_v: Default::default(),
            rwait: Default::default(),
            rwait_v: Default::default(),
            rw_end: Default::default(),
            x_maxst: Default::default(),
            rd_ok: Default::default(),
            n_st_g: Default::default(),
            d_fm_g: Default::default(),
            n_st_q: Default::default(),
            npk_a: Default::default(),
            st_full: Default::default(),
            z_mtu: Default::default(),
            st: Default::default(),
            op: Default::default(),
            c: Default::default(),
            cs: Default::default(),
            cs_n: Default::default(),
            peer: Default::default(),
            m: Default::default(),
            m_n: Default::default(),
            m_new: Default::default(),
            mi: Default::default(),
            nx: Default::default(),
            psn: Default::default(),
            una_v: Default::default(),
            una_peer: Default::default(),
            wr: Default::default(),
            wr_hold: Default::default(),
            wr_backoff: Default::default(),
            rtx_c: Default::default(),
            rtx_psn: Default::default(),
            rtx_hold: Default::default(),
            rtx_wait: Default::default(),
            rtx_retry: Default::default(),
            rtx_due: Default::default(),
            is_rtx: Default::default(),
            resp: Default::default(),
            pm: Default::default(),
            pay_len: Default::default(),
            charged: Default::default(),
            last: Default::default(),
            rr_push: Default::default(),
            cont: Default::default(),
            ctxw_seen: Default::default(),
            quiet: Default::default(),
            open_rec: Default::default(),
            closed: Default::default(),
            rr: crate::common::ram::SdpRam::new(1 << conn_bits),
            rr_wp: Default::default(),
            rr_rp: Default::default(),
            rr_ne: Default::default(),
            rr_last: Default::default(),
            rr_pop: Default::default(),
            rr_wr: Default::default(),
            now32: Default::default(),
            d_una: Default::default(),
            d_win: Default::default(),
            w_len: Default::default(),
            d_rel: Default::default(),
            d_first: Default::default(),
            m_span: Default::default(),
            d_now: Default::default(),
            d_rnow: Default::default(),
            npk: Default::default(),
            retry: Default::default(),
            consumes: Default::default(),
            m_done: Default::default(),
            z_pay: Default::default(),
            c_op_una: o3(1),
            c_op_append: o3(2),
            c_op_rtx: o3(3),
            c_op_new: o3(4),
            c_op_rel: o3(5),
            c_op_rdn: o3(6),
            c_z8: b8(0),
            c_z16: Constant::new(0.into()),
            c_one16: Constant::new(1.into()),
            c_one8: Constant::new(1.into()),
            c_z32: Constant::new(0.into()),
            c_z24: Constant::new(0.into()),
            c_one32: Constant::new(1.into()),
            c_rrmask: Constant::new(((1u64 << conn_bits) - 1).into()),
            c_zero_cs: Constant::new(ConnTx::default()),
            c_zero_m: Constant::new(MsgEntry::default()),
            c_read: b8(Opcode::ReadReq as u8),
            c_send: b8(Opcode::Send as u8),
            c_send_imm: b8(Opcode::SendImm as u8),
            c_write_imm: b8(Opcode::WriteImm as u8),
            c_tag: Constant::new(0.into()),
        }
    }
}

impl Logic for Scheduler {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, st, op, c, cs, cs_n, peer, m, m_n, m_new, mi, nx, psn, una_v, una_peer, wr,
            wr_hold, wr_backoff, rtx_c, rtx_psn, rtx_hold, rtx_wait, rtx_retry, rtx_due, d_win,
            w_len, is_rtx, resp, pm, pay_len, charged, last, rr_push, open_rec, closed, rr_wp,
            rr_rp, rr_ne, rdrec, rwait, rwait_v, rw_end, rdrec_v, fl, qerr, qerr_v, stop_c, stop_v
        );
        dff_setup!(self, clk, cont, ctxw_seen, quiet, d_first, m_span);
        dff_setup!(self, clk, n_st_g, d_fm_g, n_st_q);
        self.mtab.clk.next = self.clk.val();
        self.mtab.rst.next = self.rst.val();
        self.seg.clk.next = self.clk.val();
        self.rr.clk.next = self.clk.val();
        self.mtab.s_axis_ctxw_tdata.next = self.s_axis_ctxw_tdata.val();
        self.mtab.s_axis_ctxw_tvalid.next = self.s_axis_ctxw_tvalid.val();
        // RAM addresses come from registers.
        self.mtab.conn_rd_addr.next = self.c.q.val();
        self.mtab.msg_rd_addr.next = self.mi.q.val();
        self.mtab.conn_wr_en.next = false;
        self.mtab.conn_wr_addr.next = self.c.q.val();
        self.mtab.conn_wr_data.next = self.cs_n.q.val();
        self.mtab.msg_wr_en.next = false;
        self.mtab.msg_wr_addr.next = self.mi.q.val();
        self.mtab.msg_wr_data.next = self.m_n.q.val();
        self.mtab.next_wr_en.next = false;
        self.mtab.next_wr_addr.next = self.cs.q.val().tail;
        self.mtab.next_wr_data.next = self.mtab.alloc_idx.val();
        self.mtab.alloc_take.next = false;
        self.mtab.free_en.next = false;
        self.mtab.free_idx.next = self.mi.q.val();
        self.rr.rd_addr.next = self.rr_rp.q.val();
        self.rr.wr_addr.next = self.rr_wp.q.val();
        self.rr.wr_data.next = self.c.q.val();
        self.rr_pop.next = false;
        self.rr_wr.next = false;
        self.cont.d.next = false;
        if self.s_axis_ctxw_tvalid.val() {
            self.ctxw_seen.d.next = true;
        }
        // None of these changes in the cycle before `WrConn` (the round-robin moves only in `Idle` and
        // `WrConn`, the holds are taken only in `Idle`), so the registered value is that cycle's.
        self.quiet.d.next = !self.rr_ne.q.val()
            & !self.ctxw_seen.q.val()
            & !self.s_axis_ctxw_tvalid.val()
            & !self.wr_hold.q.val()
            & !self.rtx_hold.q.val();
        // Segmentation inputs (held in registers during `Seg1`..`Seg3`).
        self.seg.msg.next = self.m_n.q.val();
        self.seg.peer.next = self.peer.q.val();
        self.seg.cs.next = self.cs.q.val();
        self.seg.conn.next = self.c.q.val();
        self.seg.psn.next = self.psn.q.val();
        self.seg.rtx.next = self.is_rtx.q.val();
        self.seg.now.next = self.now.val();
        self.seg.cfg_dscp_data.next = self.cfg_dscp_data.val();
        self.seg.cfg_mtu_log.next = self.cfg_mtu_log.val();
        self.z_mtu.i.next = self.cs.q.val().mtu_log;
        // Serial arithmetic.
        self.now32.next = self.now.val().get_bits::<32>(0);
        self.d_una.next = self.una_v.q.val() - self.cs.q.val().una;
        // una - last_psn - 1 as una + !last_psn: one carry chain.
        self.d_rel.next = self.cs_n.q.val().una + !self.mtab.msg_rd_data.val().last_psn;
        // The retransmission's PSN against the message just read, registered for `RtxChk`.
        self.d_first.d.next = self.psn.q.val() - self.mtab.msg_rd_data.val().first_psn;
        self.m_span.d.next =
            self.mtab.msg_rd_data.val().last_psn - self.mtab.msg_rd_data.val().first_psn;
        self.d_now.next =
            self.now32.val() + self.cfg_retry_lead_ns.val() - self.cs.q.val().retry_at;
        self.d_rnow.next = self.now32.val() - self.rtx_retry.q.val();
        // A waiting retransmission is due (`now >= rtx_retry`), registered: a cycle late, and not in the
        // cycle after `rtx_retry` is written (below), so that the test never sees a stale deadline.
        self.rtx_due.d.next = !self.d_rnow.val().get_bit(31);
        // A message's packets - 1, computed when it is appended (its connection's `mtu_log` is fixed while it
        // is open) and kept in `last_psn` until it starts.
        self.npk_a.next = (self.wr.q.val().len - self.c_one32.val()) >> self.z_mtu.o.val();
        if (self.wr.q.val().opcode == self.c_read.val()) | (self.wr.q.val().len == self.c_z32.val())
        {
            self.npk_a.next = self.c_z32.val();
        }
        self.npk.next = self.mtab.msg_rd_data.val().last_psn;
        self.retry.next = self.s_axis_gate_resp_tdata.val().retry_at;
        if self.s_axis_gate_resp_tdata.val().retry_at == self.c_z32.val() {
            self.retry.next = self.now32.val() + self.cfg_poll_ns.val();
        }
        self.consumes.next = (self.mtab.msg_rd_data.val().opcode == self.c_send.val())
            | (self.mtab.msg_rd_data.val().opcode == self.c_send_imm.val())
            | (self.mtab.msg_rd_data.val().opcode == self.c_write_imm.val());
        // A READ is released only when its response is complete too (MR-SEM-24): READ responses complete in
        // request order, so the count of completed responses decides.
        self.rd_ok.next = (self.mtab.msg_rd_data.val().opcode != self.c_read.val())
            | (self.cs_n.q.val().rd_done != self.cs_n.q.val().rd_rel);
        self.m_done.next = self.mtab.msg_rd_data.val().started
            & ((self.mtab.msg_rd_data.val().status != self.c_z8.val())
                | (!self.d_rel.val().get_bit(31) & self.rd_ok.val()));
        // The connection has `cfg_max_started` started, unreleased messages (MR-SEM-11).
        self.x_maxst.i.next = self.cfg_max_started.val();
        self.n_st_q.d.next = self.cs.q.val().msn - self.cs.q.val().rel_msn;
        self.st_full.next = self.n_st_q.q.val() >= self.x_maxst.o.val();
        self.rdrec_v.d.next = false;
        self.m_axis_rdrec_tdata.next = self.rdrec.q.val();
        self.m_axis_rdrec_tvalid.next = self.rdrec_v.q.val();
        self.s_axis_rdone_tready.next = false;
        self.m_axis_rwait_tdata.next = self.rwait.q.val();
        self.m_axis_rwait_tvalid.next = self.rwait_v.q.val();
        if self.m_axis_rwait_tready.val() {
            self.rwait_v.d.next = false;
        }
        // QP errors: which message fails (MR-SEM-35: a fatal NACK naming no started, unreleased message is
        // ignored; otherwise the oldest started one, if any). Started, unreleased messages hold the MSNs
        // [rel_msn, msn).
        self.d_fm.next = self.d_fm_g.q.val();
        self.n_st.next = self.n_st_g.q.val();
        self.f_tgt.next = self.cs.q.val().rel_msn;
        self.f_has.next = self.n_st.val() != self.c_z32.val();
        self.f_go.next = !self.fl.q.val().strict;
        if self.fl.q.val().by_msn & (self.d_fm.val() < self.n_st.val()) {
            self.f_tgt.next = self.fl.q.val().msn;
            self.f_has.next = true;
            self.f_go.next = true;
        }
        self.s_axis_fail_tready.next = false;
        self.m_axis_qperr_tdata.next = self.qerr.q.val();
        self.m_axis_qperr_tvalid.next = self.qerr_v.q.val();
        if self.m_axis_qperr_tready.val() {
            self.qerr_v.d.next = false;
        }
        self.m_axis_stop_tdata.next = self.stop_c.q.val();
        self.m_axis_stop_tvalid.next = self.stop_v.q.val();
        if self.m_axis_stop_tready.val() {
            self.stop_v.d.next = false;
        }
        // Outputs.
        self.s_axis_open_tready.next = false;
        self.s_axis_una_tready.next = false;
        self.s_axis_wr_tready.next = false;
        self.s_axis_rtx_tready.next = false;
        self.s_axis_gate_resp_tready.next = false;
        self.m_axis_gate_req_tvalid.next = false;
        self.m_axis_gate_req_tdata.next.conn = self.c.q.val();
        self.m_axis_gate_req_tdata.next.psn = self.psn.q.val();
        self.m_axis_gate_req_tdata.next.charged = self.charged.q.val();
        self.m_axis_gate_req_tdata.next.rtx = self.is_rtx.q.val();
        self.m_axis_sent_tvalid.next = false;
        self.m_axis_sent_tdata.next.conn = self.c.q.val();
        self.m_axis_sent_tdata.next.psn = self.psn.q.val();
        self.m_axis_sent_tdata.next.ts = self.pm.q.val().ts;
        self.m_axis_sent_tdata.next.charged = self.charged.q.val();
        self.m_axis_sent_tdata.next.path = self.resp.q.val().path;
        self.m_axis_sent_tdata.next.ev = self.resp.q.val().ev;
        self.m_axis_sent_tdata.next.rtx = self.is_rtx.q.val();
        self.m_axis_hdr_tvalid.next = false;
        self.m_axis_hdr_tdata.next = self.pm.q.val();
        self.m_axis_hdr_tdata.next.ev = self.resp.q.val().ev;
        self.m_axis_payreq_tvalid.next = false;
        self.m_axis_payreq_tdata.next.addr = self.pm.q.val().local_addr;
        self.m_axis_payreq_tdata.next.len = self.z_pay.o.val();
        self.m_axis_payreq_tdata.next.tag = self.c_tag.val();
        self.z_pay.i.next = self.pay_len.q.val();
        self.m_axis_done_tvalid.next = false;
        self.m_axis_done_tdata.next.qpn = self.peer.q.val().qpn;
        self.m_axis_done_tdata.next.cqn = self.peer.q.val().send_cqn;
        self.m_axis_done_tdata.next.wr_id = self.m.q.val().wr_id;
        self.m_axis_done_tdata.next.opcode = self.m.q.val().opcode;
        self.m_axis_done_tdata.next.len = self.m.q.val().len;
        self.m_axis_done_tdata.next.status = self.m.q.val().status;
        self.m_axis_done_tdata.next.wqe_index = self.m.q.val().wqe_index;
        self.stat_wr_closed.next = self.closed.q.val();

        match self.st.q.val() {
            SchedState::Idle => {
                self.rr_push.d.next = false;
                self.m_new.d.next = false;
                if self.s_axis_open_tvalid.val() & !self.rwait_v.q.val() {
                    self.s_axis_open_tready.next = true;
                    self.open_rec.d.next = self.s_axis_open_tdata.val();
                    self.c.d.next = self.s_axis_open_tdata.val().conn;
                    self.st.d.next = SchedState::OpenWr;
                } else if self.s_axis_una_tvalid.val() & !self.rwait_v.q.val() {
                    self.s_axis_una_tready.next = true;
                    self.c.d.next = self.s_axis_una_tdata.val().conn;
                    self.una_v.d.next = self.s_axis_una_tdata.val().snd_una;
                    self.una_peer.d.next = self.s_axis_una_tdata.val().peer_cid;
                    self.op.d.next = self.c_op_una.val();
                    self.wr_backoff.d.next = false;
                    self.st.d.next = SchedState::RdConn;
                } else if self.s_axis_rdone_tvalid.val() & !self.rwait_v.q.val() {
                    self.s_axis_rdone_tready.next = true;
                    self.c.d.next = self.s_axis_rdone_tdata.val().conn;
                    self.op.d.next = self.c_op_rdn.val();
                    self.wr_backoff.d.next = false;
                    self.st.d.next = SchedState::RdConn;
                } else if self.s_axis_fail_tvalid.val()
                    & !self.rwait_v.q.val()
                    & !self.qerr_v.q.val()
                    & !self.stop_v.q.val()
                {
                    self.s_axis_fail_tready.next = true;
                    self.fl.d.next = self.s_axis_fail_tdata.val();
                    self.c.d.next = self.s_axis_fail_tdata.val().conn;
                    self.op.d.next = self.c_op_fail.val();
                    self.st.d.next = SchedState::RdConn;
                } else if self.wr_hold.q.val() & !self.wr_backoff.q.val() {
                    self.c.d.next = self.wr.q.val().conn;
                    self.op.d.next = self.c_op_append.val();
                    self.st.d.next = SchedState::RdConn;
                } else if !self.wr_hold.q.val() & self.s_axis_wr_tvalid.val() {
                    self.s_axis_wr_tready.next = true;
                    self.wr.d.next = self.s_axis_wr_tdata.val();
                    self.wr_hold.d.next = true;
                    self.wr_backoff.d.next = false;
                    self.c.d.next = self.s_axis_wr_tdata.val().conn;
                    self.op.d.next = self.c_op_append.val();
                    self.st.d.next = SchedState::RdConn;
                } else if self.rtx_hold.q.val() & (!self.rtx_wait.q.val() | self.rtx_due.q.val()) {
                    self.c.d.next = self.rtx_c.q.val();
                    self.psn.d.next = self.rtx_psn.q.val();
                    self.is_rtx.d.next = true;
                    self.op.d.next = self.c_op_rtx.val();
                    self.st.d.next = SchedState::RdConn;
                } else if !self.rtx_hold.q.val() & self.s_axis_rtx_tvalid.val() {
                    self.s_axis_rtx_tready.next = true;
                    self.rtx_c.d.next = self.s_axis_rtx_tdata.val().conn;
                    self.rtx_psn.d.next = self.s_axis_rtx_tdata.val().psn;
                    self.rtx_hold.d.next = true;
                    self.rtx_wait.d.next = false;
                    self.c.d.next = self.s_axis_rtx_tdata.val().conn;
                    self.psn.d.next = self.s_axis_rtx_tdata.val().psn;
                    self.is_rtx.d.next = true;
                    self.op.d.next = self.c_op_rtx.val();
                    self.st.d.next = SchedState::RdConn;
                } else if self.rr_ne.q.val() {
                    self.rr_pop.next = true;
                    self.is_rtx.d.next = false;
                    self.op.d.next = self.c_op_new.val();
                    self.st.d.next = SchedState::RrGot;
                }
            }
            SchedState::OpenWr => {
                self.mtab.conn_wr_en.next = true;
                self.mtab.conn_wr_data.next = self.c_zero_cs.val();
                self.mtab.conn_wr_data.next.open = true;
                self.mtab.conn_wr_data.next.una = self.open_rec.q.val().isn;
                self.mtab.conn_wr_data.next.nxt = self.open_rec.q.val().isn;
                self.mtab.conn_wr_data.next.isn = self.open_rec.q.val().isn;
                self.mtab.conn_wr_data.next.mtu_log = self.open_rec.q.val().mtu_log;
                self.mtab.conn_wr_data.next.own_wlog = self.open_rec.q.val().own_wlog;
                self.mtab.conn_wr_data.next.peer_cid = self.open_rec.q.val().peer_cid;
                self.mtab.conn_wr_data.next.syn = true;
                // A READ-response timer of an earlier incarnation stops.
                self.rwait.d.next.conn = self.c.q.val();
                self.rwait.d.next.wait = false;
                self.rwait_v.d.next = true;
                self.st.d.next = SchedState::Idle;
            }
            SchedState::RrGot => {
                self.c.d.next = self.rr.rd_data.val();
                self.st.d.next = SchedState::RdConn;
            }
            SchedState::RdConn => {
                self.st.d.next = SchedState::GotConn;
            }
            SchedState::GotConn => {
                self.ctxw_seen.d.next = self.s_axis_ctxw_tvalid.val();
                self.cs.d.next = self.mtab.conn_rd_data.val();
                self.cs_n.d.next = self.mtab.conn_rd_data.val();
                self.peer.d.next = self.mtab.peer_rd_data.val();
                self.d_win.d.next = self.psn.q.val() - self.mtab.conn_rd_data.val().una;
                self.w_len.d.next =
                    self.mtab.conn_rd_data.val().nxt - self.mtab.conn_rd_data.val().una;
                self.n_st_g.d.next =
                    self.mtab.conn_rd_data.val().msn - self.mtab.conn_rd_data.val().rel_msn;
                self.d_fm_g.d.next = self.fl.q.val().msn - self.mtab.conn_rd_data.val().rel_msn;
                self.st.d.next = SchedState::Dispatch;
            }
            SchedState::Dispatch => {
                if self.op.q.val() == self.c_op_una.val() {
                    if self.cs.q.val().open {
                        if (self.d_una.val() != self.c_z32.val()) & !self.d_una.val().get_bit(31) {
                            self.cs_n.d.next.una = self.una_v.q.val();
                        }
                        self.cs_n.d.next.syn = false;
                        // MR-CONN-7: a connection opened without the peer's CID (0-RTT) takes it from the ACK.
                        if self.cs.q.val().peer_cid == self.c_z24.val() {
                            self.cs_n.d.next.peer_cid = self.una_peer.q.val();
                        }
                        self.cs_n.d.next.wait = false;
                        self.op.d.next = self.c_op_rel.val();
                        self.st.d.next = SchedState::RelChk;
                    } else {
                        self.st.d.next = SchedState::Idle;
                    }
                } else if self.op.q.val() == self.c_op_rdn.val() {
                    if self.cs.q.val().open {
                        self.cs_n.d.next.rd_done = self.cs.q.val().rd_done + self.c_one8.val();
                        self.cs_n.d.next.wait = false;
                        self.op.d.next = self.c_op_rel.val();
                        self.st.d.next = SchedState::RelChk;
                    } else {
                        self.st.d.next = SchedState::Idle;
                    }
                } else if self.op.q.val() == self.c_op_fail.val() {
                    if !self.cs.q.val().open | self.cs.q.val().err | !self.f_go.val() {
                        self.st.d.next = SchedState::Idle;
                    } else {
                        // The QP enters ERROR: one report, the sender engine stops the connection, and the
                        // send queue is flushed from its head (MR-SEM-38).
                        self.qerr.d.next.conn = self.c.q.val();
                        self.qerr.d.next.status = self.fl.q.val().status;
                        self.qerr.d.next.msn = self.f_tgt.val();
                        self.qerr.d.next.has_msn = self.f_has.val();
                        self.qerr_v.d.next = true;
                        self.stop_c.d.next = self.c.q.val();
                        self.stop_v.d.next = true;
                        self.cs_n.d.next.err = true;
                        self.cs_n.d.next.seg_v = false;
                        self.cs_n.d.next.in_rr = false;
                        self.cs_n.d.next.wait = false;
                        self.op.d.next = self.c_op_flush.val();
                        self.st.d.next = SchedState::RelChk;
                    }
                } else if self.op.q.val() == self.c_op_append.val() {
                    if !self.cs.q.val().open {
                        self.wr_hold.d.next = false;
                        self.closed.d.next = true;
                        self.st.d.next = SchedState::Idle;
                    } else if self.cs.q.val().err {
                        // MR-SEM-38: a WR posted to a QP in ERROR completes Flushed; a READ response is dropped.
                        self.wr_hold.d.next = false;
                        self.m.d.next.wr_id = self.wr.q.val().wr_id;
                        self.m.d.next.opcode = self.wr.q.val().opcode;
                        self.m.d.next.len = self.wr.q.val().len;
                        self.m.d.next.wqe_index = self.wr.q.val().wqe_index;
                        self.m.d.next.status = self.c_flushed.val();
                        self.st.d.next = SchedState::CplOut;
                        if self.wr.q.val().opcode == self.c_read_resp.val() {
                            self.st.d.next = SchedState::Idle;
                        }
                    } else if (self.cs.q.val().count >= self.cfg_conn_msgs.val())
                        | !self.mtab.alloc_v.val()
                    {
                        self.wr_backoff.d.next = true;
                        self.st.d.next = SchedState::Idle;
                    } else {
                        self.mtab.alloc_take.next = true;
                        self.mi.d.next = self.mtab.alloc_idx.val();
                        self.mtab.msg_wr_en.next = true;
                        self.mtab.msg_wr_addr.next = self.mtab.alloc_idx.val();
                        self.mtab.msg_wr_data.next = self.c_zero_m.val();
                        self.mtab.msg_wr_data.next.wqe_index = self.wr.q.val().wqe_index;
                        self.mtab.msg_wr_data.next.opcode = self.wr.q.val().opcode;
                        self.mtab.msg_wr_data.next.solicited = self.wr.q.val().solicited;
                        self.mtab.msg_wr_data.next.imm = self.wr.q.val().imm;
                        self.mtab.msg_wr_data.next.wr_id = self.wr.q.val().wr_id;
                        self.mtab.msg_wr_data.next.local_addr = self.wr.q.val().local_addr;
                        self.mtab.msg_wr_data.next.lkey = self.wr.q.val().lkey;
                        self.mtab.msg_wr_data.next.len = self.wr.q.val().len;
                        self.mtab.msg_wr_data.next.remote_addr = self.wr.q.val().remote_addr;
                        self.mtab.msg_wr_data.next.rkey = self.wr.q.val().rkey;
                        self.mtab.msg_wr_data.next.status = self.wr.q.val().status;
                        self.mtab.msg_wr_data.next.signaled = self.wr.q.val().signaled;
                        self.mtab.msg_wr_data.next.last_psn = self.npk_a.val();
                        if self.cs.q.val().count != self.c_z16.val() {
                            self.mtab.next_wr_en.next = true;
                        } else {
                            self.cs_n.d.next.head = self.mtab.alloc_idx.val();
                        }
                        self.cs_n.d.next.tail = self.mtab.alloc_idx.val();
                        self.cs_n.d.next.count = self.cs.q.val().count + self.c_one16.val();
                        if !self.cs.q.val().seg_v {
                            self.cs_n.d.next.seg = self.mtab.alloc_idx.val();
                            self.cs_n.d.next.seg_v = true;
                            self.cs_n.d.next.seg_off = self.c_z32.val();
                        }
                        if !self.cs.q.val().in_rr {
                            self.cs_n.d.next.in_rr = true;
                            self.rr_push.d.next = true;
                        }
                        self.wr_hold.d.next = false;
                        self.st.d.next = SchedState::WrConn;
                    }
                } else if self.op.q.val() == self.c_op_rtx.val() {
                    if !self.cs.q.val().open
                        | (self.d_win.q.val() >= self.w_len.q.val())
                        | (self.cs.q.val().count == self.c_z16.val())
                    {
                        self.rtx_hold.d.next = false;
                        self.st.d.next = SchedState::Idle;
                    } else {
                        self.mi.d.next = self.cs.q.val().head;
                        self.st.d.next = SchedState::RdMsg;
                    }
                } else {
                    // New data.
                    if !self.cs.q.val().in_rr {
                        self.st.d.next = SchedState::Idle;
                    } else if !self.cs.q.val().open | !self.cs.q.val().seg_v {
                        self.cs_n.d.next.in_rr = false;
                        self.st.d.next = SchedState::WrConn;
                    } else if self.cs.q.val().wait & self.d_now.val().get_bit(31) {
                        self.rr_push.d.next = true;
                        self.st.d.next = SchedState::WrConn;
                    } else {
                        self.mi.d.next = self.cs.q.val().seg;
                        self.psn.d.next = self.cs.q.val().nxt;
                        self.st.d.next = SchedState::RdMsg;
                    }
                }
            }
            SchedState::RelChk => {
                if self.cs_n.q.val().count == self.c_z16.val() {
                    self.cs_n.d.next.rd_wait = false;
                    self.rw_end.d.next = true;
                    self.st.d.next = SchedState::WrConn;
                } else {
                    self.mi.d.next = self.cs_n.q.val().head;
                    self.st.d.next = SchedState::RdMsg;
                }
            }
            SchedState::RdMsg => {
                self.st.d.next = SchedState::GotMsg;
            }
            SchedState::GotMsg => {
                self.m.d.next = self.mtab.msg_rd_data.val();
                self.m_n.d.next = self.mtab.msg_rd_data.val();
                self.nx.d.next = self.mtab.next_rd_data.val();
                if self.op.q.val() == self.c_op_flush.val() {
                    // Every message completes: the failing one with the cause's status, a rejected one with
                    // its own, the others Flushed; READ responses (the peer's READs) are dropped.
                    self.mtab.free_en.next = true;
                    self.cs_n.d.next.head = self.mtab.next_rd_data.val();
                    self.cs_n.d.next.count = self.cs_n.q.val().count - self.c_one16.val();
                    if self.mtab.msg_rd_data.val().status == self.c_z8.val() {
                        self.m.d.next.status = self.c_flushed.val();
                        if self.mtab.msg_rd_data.val().started
                            & self.qerr.q.val().has_msn
                            & (self.mtab.msg_rd_data.val().msn == self.qerr.q.val().msn)
                        {
                            self.m.d.next.status = self.qerr.q.val().status;
                        }
                    }
                    self.st.d.next = SchedState::CplOut;
                    if self.mtab.msg_rd_data.val().opcode == self.c_read_resp.val() {
                        self.st.d.next = SchedState::RelChk;
                    }
                } else if self.op.q.val() == self.c_op_rel.val() {
                    if self.m_done.val() {
                        self.mtab.free_en.next = true;
                        self.cs_n.d.next.head = self.mtab.next_rd_data.val();
                        self.cs_n.d.next.count = self.cs_n.q.val().count - self.c_one16.val();
                        if self.mtab.msg_rd_data.val().status == self.c_z8.val() {
                            self.cs_n.d.next.rel_msn =
                                self.mtab.msg_rd_data.val().msn + self.c_one32.val();
                            if self.mtab.msg_rd_data.val().opcode == self.c_read.val() {
                                self.cs_n.d.next.rd_rel =
                                    self.cs_n.q.val().rd_rel + self.c_one8.val();
                            }
                        }
                        if self.mtab.msg_rd_data.val().signaled {
                            self.st.d.next = SchedState::CplOut;
                        } else {
                            self.st.d.next = SchedState::RelChk;
                        }
                    } else {
                        // The release stops here: at a READ waiting for its response (MR-REL-58) or not.
                        self.cs_n.d.next.rd_wait = self.mtab.msg_rd_data.val().started
                            & (self.mtab.msg_rd_data.val().status == self.c_z8.val())
                            & !self.d_rel.val().get_bit(31)
                            & !self.rd_ok.val();
                        self.rw_end.d.next = true;
                        self.st.d.next = SchedState::WrConn;
                    }
                } else if self.op.q.val() == self.c_op_rtx.val() {
                    // Is the PSN in this message? Decided on registered differences in `RtxChk`.
                    self.st.d.next = SchedState::RtxChk;
                } else if !self.mtab.msg_rd_data.val().started {
                    // New data: the message starts now (MR-WIRE-30).
                    self.m_n.d.next.started = true;
                    self.m_n.d.next.first_psn = self.cs.q.val().nxt;
                    self.m_n.d.next.seg_log = self.cs.q.val().mtu_log;
                    self.m_new.d.next = true;
                    if self.mtab.msg_rd_data.val().status != self.c_z8.val() {
                        // A rejected request: no PSN, completes in order.
                        self.m_n.d.next.last_psn = self.cs.q.val().nxt - self.c_one32.val();
                        if self.mi.q.val() == self.cs.q.val().tail {
                            self.cs_n.d.next.seg_v = false;
                            self.cs_n.d.next.in_rr = false;
                        } else {
                            self.cs_n.d.next.seg = self.mtab.next_rd_data.val();
                            self.rr_push.d.next = true;
                        }
                        self.st.d.next = SchedState::ErrWr;
                    } else if self.st_full.val() {
                        // MR-SEM-11: the connection waits (round-robin tail) until a message is released.
                        self.cs_n.d.next = self.cs.q.val();
                        self.cs_n.d.next.wait = true;
                        self.cs_n.d.next.retry_at = self.now32.val() + self.cfg_poll_ns.val();
                        self.rr_push.d.next = true;
                        self.st.d.next = SchedState::WrConn;
                    } else {
                        self.m_n.d.next.msn = self.cs.q.val().msn;
                        self.cs_n.d.next.msn = self.cs.q.val().msn + self.c_one32.val();
                        if self.consumes.val() {
                            self.m_n.d.next.ssn = self.cs.q.val().ssn;
                            self.cs_n.d.next.ssn = self.cs.q.val().ssn + self.c_one32.val();
                        }
                        self.m_n.d.next.last_psn = self.cs.q.val().nxt + self.npk.val();
                        self.st.d.next = SchedState::Seg1;
                    }
                } else {
                    self.st.d.next = SchedState::Seg1;
                }
            }
            SchedState::RtxChk => {
                // `m` and `nx` hold the message word and its successor read in `GotMsg`.
                if self.m.q.val().started
                    & (self.m.q.val().status == self.c_z8.val())
                    & (self.d_first.q.val() <= self.m_span.q.val())
                {
                    self.st.d.next = SchedState::Seg1;
                } else if self.mi.q.val() == self.cs.q.val().tail {
                    self.rtx_hold.d.next = false;
                    self.st.d.next = SchedState::Idle;
                } else {
                    self.mi.d.next = self.nx.q.val();
                    self.st.d.next = SchedState::RdMsg;
                }
            }
            SchedState::ErrWr => {
                self.mtab.msg_wr_en.next = true;
                if self.cs.q.val().head == self.mi.q.val() {
                    self.op.d.next = self.c_op_rel.val();
                    self.st.d.next = SchedState::RelChk;
                } else {
                    self.st.d.next = SchedState::WrConn;
                }
            }
            SchedState::Seg1 => {
                self.st.d.next = SchedState::Seg2;
            }
            SchedState::Seg2 => {
                self.st.d.next = SchedState::Seg3;
            }
            SchedState::Seg3 => {
                self.pm.d.next = self.seg.meta.val();
                self.pay_len.d.next = self.seg.pay_len.val();
                self.charged.d.next = self.seg.charged.val();
                self.last.d.next = self.seg.last.val();
                self.st.d.next = SchedState::GateReq;
            }
            SchedState::GateReq => {
                self.m_axis_gate_req_tvalid.next = true;
                if self.m_axis_gate_req_tready.val() {
                    self.st.d.next = SchedState::GateWait;
                }
            }
            SchedState::GateWait => {
                self.s_axis_gate_resp_tready.next = true;
                if self.s_axis_gate_resp_tvalid.val() {
                    self.resp.d.next = self.s_axis_gate_resp_tdata.val();
                    if self.s_axis_gate_resp_tdata.val().allow {
                        self.st.d.next = SchedState::SentOut;
                    } else if self.is_rtx.q.val() && self.s_axis_gate_resp_tdata.val().skip {
                        // No longer needed: dropped.
                        self.rtx_hold.d.next = false;
                        self.rtx_wait.d.next = false;
                        self.st.d.next = SchedState::Idle;
                    } else if self.is_rtx.q.val() {
                        self.rtx_wait.d.next = true;
                        self.rtx_retry.d.next = self.retry.val();
                        self.rtx_due.d.next = false;
                        self.st.d.next = SchedState::Idle;
                    } else {
                        // Nothing of the attempt is committed; the connection waits (round-robin tail).
                        self.cs_n.d.next = self.cs.q.val();
                        self.cs_n.d.next.wait = true;
                        self.cs_n.d.next.retry_at = self.retry.val();
                        self.rr_push.d.next = true;
                        self.st.d.next = SchedState::WrConn;
                    }
                }
            }
            SchedState::SentOut => {
                self.m_axis_sent_tvalid.next = true;
                if self.m_axis_sent_tready.val() {
                    // The payload is requested before the header is offered: the frame builder takes a header
                    // only when it has room, and the DMA read's latency then runs while earlier frames are sent.
                    // Both go out in packet order, so the payload stream stays in DATA-header order.
                    if self.pay_len.q.val() != self.c_z16.val() {
                        self.st.d.next = SchedState::PayOut;
                    } else {
                        self.st.d.next = SchedState::HdrOut;
                    }
                }
            }
            SchedState::PayOut => {
                self.m_axis_payreq_tvalid.next = true;
                if self.m_axis_payreq_tready.val() {
                    self.st.d.next = SchedState::HdrOut;
                }
            }
            SchedState::HdrOut => {
                self.m_axis_hdr_tvalid.next = true;
                if self.m_axis_hdr_tready.val() {
                    self.st.d.next = SchedState::Commit;
                }
            }
            SchedState::Commit => {
                self.wr_backoff.d.next = false;
                if self.is_rtx.q.val() {
                    self.rtx_hold.d.next = false;
                    self.rtx_wait.d.next = false;
                    self.st.d.next = SchedState::Idle;
                } else {
                    self.mtab.msg_wr_en.next = self.m_new.q.val();
                    if self.m_new.q.val() & (self.m_n.q.val().opcode == self.c_read.val()) {
                        self.rdrec_v.d.next = true;
                        self.rdrec.d.next.conn = self.c.q.val();
                        self.rdrec.d.next.msn = self.m_n.q.val().msn;
                        self.rdrec.d.next.addr = self.m_n.q.val().local_addr;
                        self.rdrec.d.next.lkey = self.m_n.q.val().lkey;
                        self.rdrec.d.next.len = self.m_n.q.val().len;
                    }
                    self.cs_n.d.next.nxt = self.cs.q.val().nxt + self.c_one32.val();
                    self.cs_n.d.next.wait = false;
                    self.rr_push.d.next = true;
                    self.cont.d.next = true;
                    if self.last.q.val() {
                        if self.mi.q.val() == self.cs.q.val().tail {
                            self.cs_n.d.next.seg_v = false;
                            self.cs_n.d.next.in_rr = false;
                            self.rr_push.d.next = false;
                            self.cont.d.next = false;
                        } else {
                            self.cs_n.d.next.seg = self.nx.q.val();
                        }
                    }
                    self.st.d.next = SchedState::WrConn;
                }
            }
            SchedState::CplOut => {
                self.m_axis_done_tvalid.next = true;
                if self.m_axis_done_tready.val() {
                    self.st.d.next = SchedState::RelChk;
                }
            }
            SchedState::WrConn => {
                self.mtab.conn_wr_en.next = true;
                self.rw_end.d.next = false;
                if self.rw_end.q.val() & (self.cs_n.q.val().rd_wait != self.cs.q.val().rd_wait) {
                    self.rwait.d.next.conn = self.c.q.val();
                    self.rwait.d.next.wait = self.cs_n.q.val().rd_wait;
                    self.rwait_v.d.next = true;
                }
                self.rr_wr.next = self.rr_push.q.val();
                self.st.d.next = SchedState::Idle;
                // Continuation: the connection just sent a packet and has more, no other connection waits in the
                // round-robin and no other operation is pending, so the round-robin would pick it again. Its
                // state is in registers (`cs_n`, `m_n`, written back in this cycle), so its next packet is
                // prepared at once instead of being read back from the tables.
                if self.cont.q.val()
                    & self.quiet.q.val()
                    & !self.s_axis_ctxw_tvalid.val()
                    & !self.s_axis_open_tvalid.val()
                    & !self.s_axis_una_tvalid.val()
                    & !self.s_axis_rdone_tvalid.val()
                    & !self.s_axis_fail_tvalid.val()
                    & !self.s_axis_wr_tvalid.val()
                    & !self.s_axis_rtx_tvalid.val()
                {
                    self.rr_wr.next = false;
                    self.rr_push.d.next = false;
                    self.cs.d.next = self.cs_n.q.val();
                    self.psn.d.next = self.cs_n.q.val().nxt;
                    self.mi.d.next = self.cs_n.q.val().seg;
                    self.m_new.d.next = false;
                    self.st.d.next = SchedState::Seg1;
                    if self.last.q.val() {
                        // The next message: read from the table, started in `GotMsg` as from `Dispatch`.
                        self.st.d.next = SchedState::RdMsg;
                    }
                }
            }
            _ => {
                self.st.d.next = SchedState::Idle;
            }
        }
        self.rr.wr_en.next = self.rr_wr.val();
        if self.rr_wr.val() {
            self.rr_wp.d.next = (self.rr_wp.q.val() + self.c_one16.val()) & self.c_rrmask.val();
        }
        if self.rr_pop.val() {
            self.rr_rp.d.next = (self.rr_rp.q.val() + self.c_one16.val()) & self.c_rrmask.val();
        }
        // The ring holds an entry: set by a write, cleared by popping its only entry (`rp + 1 = wp`: the ring
        // holds at most its size, so one entry is the only count with that difference). A flag instead of a
        // count, so that the pop decision reaches no carry chain.
        self.rr_last.next =
            ((self.rr_rp.q.val() + self.c_one16.val()) & self.c_rrmask.val()) == self.rr_wp.q.val();
        if self.rr_wr.val() {
            self.rr_ne.d.next = true;
        } else if self.rr_pop.val() & self.rr_last.val() {
            self.rr_ne.d.next = false;
        }
        if self.rst.val() {
            self.rdrec_v.d.next = false;
            self.rwait_v.d.next = false;
            self.qerr_v.d.next = false;
            self.stop_v.d.next = false;
            self.rw_end.d.next = false;
            self.st.d.next = SchedState::Idle;
            self.wr_hold.d.next = false;
            self.wr_backoff.d.next = false;
            self.rtx_hold.d.next = false;
            self.rtx_wait.d.next = false;
            self.closed.d.next = false;
            self.rr_push.d.next = false;
            self.rr_wp.d.next = self.c_z16.val();
            self.rr_rp.d.next = self.c_z16.val();
            self.rr_ne.d.next = false;
        }
    }
}
