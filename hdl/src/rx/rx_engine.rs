//! The receive engine: joins the connection lookup, the receive window and the acknowledgement generator with
//! the attachment points of the message-level stages (receive queue, memory-region check, completion) and of
//! placement, and routes what the receive path hands to the other pipelines.
//!
//! ```text
//! s_axis_meta ─▶ ConnLookup ─┬─ ACK / NACK of a live connection ─────────────────────────────▶ m_axis_fb
//!                            ├─ exception (opens, restarts, NACK NO_CONTEXT with DCID 0) ───────▶ m_axis_exc
//!                            ├─ NACK NO_CONTEXT requests ───────────────┐
//!                            └─ every other packet ─┐                    │
//!   AckTimer (due triggers, first) ─────────────────┴▶ PsnWindow          │
//!                                 (pre-classification) ─▶ m_axis_chk    │
//!   (receive queue → MR check → completion checks, outside) ─▶ s_axis_chk │
//!        ─▶ PsnWindow ─▶ AckGen ─┬─ ACK / NACK requests ──────────────────┴─ (arbiter) ─▶ m_axis_ctl
//!                                ├─ ACK-delay deadlines ─▶ AckTimer
//!                                ├─ every packet with its WinInfo ──────────────────────▶ m_axis_place
//!                                └─ accepted READ_REQ ─────────────────────────────────▶ m_axis_readreq
//! s_axis_pay ───────────────────────────────────────────────────────────────────────────▶ m_axis_pay
//! ```
//!
//! * `m_axis_chk_*` / `s_axis_chk_*`: the attachment point of the message-level checks (`rx::recv_queue`,
//!   `rx::mr_check`, the checks of `rx::completion`). They must return every packet, in order, with `drop` and a
//!   [`NackReq`] verdict (`tuser`; the `nack`, `code`, `aux` fields of their `RxCheck`); with nothing attached,
//!   loop `m_axis_chk` back to `s_axis_chk` with `tuser` = 0. Duplicates and PSNs beyond the window leave on
//!   `m_axis_chk` already marked (`drop` DUPLICATE / OUT_OF_WINDOW, the window's pre-classification, see
//!   `rx::psn_window`), so the checks and the message table pass them unchanged, as the reference model
//!   classifies before the message table (MR-REL-10, MR-REL-11); they are acknowledged, not NACKed.
//! * `m_axis_place_*` (PktMeta + [`WinInfo`]): every packet that went through the window, for placement
//!   (`WinInfo.accepted` = place the payload) and the completion stage's message-table update. The payload of
//!   every packet arriving on `s_axis_meta` leaves on `m_axis_pay` unchanged and in the same order (placement
//!   discards the payload of dropped and exception packets).
//! * `m_axis_readreq_*` ([`ReadReq`]): an accepted READ_REQ (`local_addr` = its address, `remote_addr` 0 (the
//!   responses' placement offset), `len` = its message length, `msn` = its MSN). Limitation: handed over at
//!   acceptance, not at in-order completion of the message (the model queues the response when the message is
//!   delivered in MSN order, section 8.5).
//! * The ACK-delay timer (`rx::ack_timer`, MR-REL-16): the ACK generator arms it with a connection's deadline;
//!   a due trigger (a `PktMeta` with `ack_timer` set, CTRL, no payload) enters the window ahead of the lookup's
//!   packets and travels the whole path like a PROBE (the checks pass it, placement places nothing), so that
//!   every packet-numbering stage sees it; the ACK generator answers it.
//! * `drop_valid` / `drop_code`: one pulse per dropped packet with its `rx::drop` code (counted where the
//!   packet leaves on `m_axis_place`; exception packets are not drops).
//! * The ACK generator's two outputs each pass a skid register (the control requests also an output
//!   register), so its stage enable depends on registers only, not on `m_axis_place_tready` or
//!   `m_axis_ctl_tready`.
//!
//! Latency: lookup 3 + pre-classification 3 + window 6 + ACK generator 3 cycles plus the attached stages; one
//! packet per cycle (see the blocks' hazard rules for back-to-back packets of one connection; the
//! pre-classification waits only for a duplicate or out-of-window PSN of a connection with packets in flight). Construct with
//! [`RxEngine::new`]`(conn_bits)`; `DW`/`KW` is the payload datapath width.

use crate::records::{CtxWrite, PktMeta};
use crate::rel::records::ConnOpen;
use crate::rx::ack_gen::AckGen;
use crate::rx::ack_timer::AckTimer;
use crate::rx::conn_lookup::{ConnLookup, EXCEPTION};
use crate::rx::psn_window::{NackReq, PsnWindow, WinInfo};
use crate::rx::records::ReadReq;
use metaroce_proto::wire::{Opcode, PacketType};
use rust_hdl::prelude::*;

/// The receive engine (see the module docs).
#[derive(LogicBlock)]
pub struct RxEngine<const DW: usize, const KW: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// Current time, ns.
    pub now: Signal<In, Bits<64>>,
    /// DSCP of ACK / NACK packets.
    pub cfg_dscp_ctrl: Signal<In, Bits<6>>,
    /// ACK ratio (1..=64).
    pub cfg_ack_ratio: Signal<In, Bits<7>>,
    /// Longest ACK delay when the ratio is above 1, ns.
    pub cfg_ack_delay_ns: Signal<In, Bits<16>>,
    /// NACK NO_CONTEXT retry hint, µs.
    pub cfg_no_ctx_retry_us: Signal<In, Bits<32>>,
    /// Context writes.
    pub s_axis_ctxw_tdata: Signal<In, CtxWrite>,
    /// Valid.
    pub s_axis_ctxw_tvalid: Signal<In, Bit>,
    /// Connection opens.
    pub s_axis_open_tdata: Signal<In, ConnOpen>,
    /// Valid.
    pub s_axis_open_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_open_tready: Signal<Out, Bit>,
    /// Packets from the parser.
    pub s_axis_meta_tdata: Signal<In, PktMeta>,
    /// Valid.
    pub s_axis_meta_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_meta_tready: Signal<Out, Bit>,
    /// Payload from the parser.
    pub s_axis_pay_tdata: Signal<In, Bits<DW>>,
    /// Keep.
    pub s_axis_pay_tkeep: Signal<In, Bits<KW>>,
    /// Last beat of a packet.
    pub s_axis_pay_tlast: Signal<In, Bit>,
    /// Valid.
    pub s_axis_pay_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_pay_tready: Signal<Out, Bit>,
    /// Payload to placement.
    pub m_axis_pay_tdata: Signal<Out, Bits<DW>>,
    /// Keep.
    pub m_axis_pay_tkeep: Signal<Out, Bits<KW>>,
    /// Last beat of a packet.
    pub m_axis_pay_tlast: Signal<Out, Bit>,
    /// Valid.
    pub m_axis_pay_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_pay_tready: Signal<In, Bit>,
    /// To the message-level checks.
    pub m_axis_chk_tdata: Signal<Out, PktMeta>,
    /// Valid.
    pub m_axis_chk_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_chk_tready: Signal<In, Bit>,
    /// From the message-level checks.
    pub s_axis_chk_tdata: Signal<In, PktMeta>,
    /// Their verdict.
    pub s_axis_chk_tuser: Signal<In, NackReq>,
    /// Valid.
    pub s_axis_chk_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_chk_tready: Signal<Out, Bit>,
    /// To placement / completion.
    pub m_axis_place_tdata: Signal<Out, PktMeta>,
    /// The window's decision.
    pub m_axis_place_tuser: Signal<Out, WinInfo>,
    /// Valid.
    pub m_axis_place_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_place_tready: Signal<In, Bit>,
    /// Received ACK / NACK for the sender side.
    pub m_axis_fb_tdata: Signal<Out, PktMeta>,
    /// Valid.
    pub m_axis_fb_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_fb_tready: Signal<In, Bit>,
    /// Packets for the firmware.
    pub m_axis_exc_tdata: Signal<Out, PktMeta>,
    /// Valid.
    pub m_axis_exc_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_exc_tready: Signal<In, Bit>,
    /// ACK / NACK requests to the transmit path.
    pub m_axis_ctl_tdata: Signal<Out, PktMeta>,
    /// Valid.
    pub m_axis_ctl_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_ctl_tready: Signal<In, Bit>,
    /// READ requests to answer.
    pub m_axis_readreq_tdata: Signal<Out, ReadReq>,
    /// Valid.
    pub m_axis_readreq_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_readreq_tready: Signal<In, Bit>,
    /// A packet was dropped (one-cycle pulse).
    pub drop_valid: Signal<Out, Bit>,
    /// Its drop code.
    pub drop_code: Signal<Out, Bits<8>>,
    lookup: ConnLookup,
    window: PsnWindow,
    ackgen: AckGen,
    timer: AckTimer,
    cv: DFF<Bit>,
    cm: DFF<PktMeta>,
    sv: DFF<Bit>,
    sm: DFF<PktMeta>,
    kv: DFF<Bit>,
    km: DFF<PktMeta>,
    ku: DFF<WinInfo>,
    rv: DFF<Bit>,
    pre_hold: DFF<Bit>,
    rr: DFF<ReadReq>,
    dv: DFF<Bit>,
    dc: DFF<Bits<8>>,
    is_fb: Signal<Local, Bit>,
    trig_go: Signal<Local, Bit>,
    cl_m: Signal<Local, PktMeta>,
    ag_m: Signal<Local, PktMeta>,
    ag_u: Signal<Local, WinInfo>,
    ag_v: Signal<Local, Bit>,
    is_rr: Signal<Local, Bit>,
    place_go: Signal<Local, Bit>,
    ctl_in: Signal<Local, Bit>,
    ctl_m: Signal<Local, PktMeta>,
    rreq: Signal<Local, ReadReq>,
    c_ack: Constant<Bits<4>>,
    c_nack: Constant<Bits<4>>,
    c_data: Constant<Bits<4>>,
    c_read_req: Constant<Bits<8>>,
    c_exception: Constant<Bits<8>>,
    c_z64: Constant<Bits<64>>,
}

impl<const DW: usize, const KW: usize> RxEngine<DW, KW> {
    /// An engine for `2^conn_bits` connections.
    pub fn new(conn_bits: u32) -> Self {
        assert_eq!(DW, 8 * KW);
        RxEngine {
            clk: Default::default(),
            rst: Default::default(),
            now: Default::default(),
            cfg_dscp_ctrl: Default::default(),
            cfg_ack_ratio: Default::default(),
            cfg_ack_delay_ns: Default::default(),
            cfg_no_ctx_retry_us: Default::default(),
            s_axis_ctxw_tdata: Default::default(),
            s_axis_ctxw_tvalid: Default::default(),
            s_axis_open_tdata: Default::default(),
            s_axis_open_tvalid: Default::default(),
            s_axis_open_tready: Default::default(),
            s_axis_meta_tdata: Default::default(),
            s_axis_meta_tvalid: Default::default(),
            s_axis_meta_tready: Default::default(),
            s_axis_pay_tdata: Default::default(),
            s_axis_pay_tkeep: Default::default(),
            s_axis_pay_tlast: Default::default(),
            s_axis_pay_tvalid: Default::default(),
            s_axis_pay_tready: Default::default(),
            m_axis_pay_tdata: Default::default(),
            m_axis_pay_tkeep: Default::default(),
            m_axis_pay_tlast: Default::default(),
            m_axis_pay_tvalid: Default::default(),
            m_axis_pay_tready: Default::default(),
            m_axis_chk_tdata: Default::default(),
            m_axis_chk_tvalid: Default::default(),
            m_axis_chk_tready: Default::default(),
            s_axis_chk_tdata: Default::default(),
            s_axis_chk_tuser: Default::default(),
            s_axis_chk_tvalid: Default::default(),
            s_axis_chk_tready: Default::default(),
            m_axis_place_tdata: Default::default(),
            m_axis_place_tuser: Default::default(),
            m_axis_place_tvalid: Default::default(),
            m_axis_place_tready: Default::default(),
            m_axis_fb_tdata: Default::default(),
            m_axis_fb_tvalid: Default::default(),
            m_axis_fb_tready: Default::default(),
            m_axis_exc_tdata: Default::default(),
            m_axis_exc_tvalid: Default::default(),
            m_axis_exc_tready: Default::default(),
            m_axis_ctl_tdata: Default::default(),
            m_axis_ctl_tvalid: Default::default(),
            m_axis_ctl_tready: Default::default(),
            m_axis_readreq_tdata: Default::default(),
            m_axis_readreq_tvalid: Default::default(),
            m_axis_readreq_tready: Default::default(),
            drop_valid: Default::default(),
            drop_code: Default::default(),
            lookup: ConnLookup::new(conn_bits),
            window: PsnWindow::new(conn_bits),
            ackgen: AckGen::new(conn_bits),
            timer: Default::default(),
            cv: Default::default(),
            cm: Default::default(),
            sv: Default::default(),
            sm: Default::default(),
            kv: Default::default(),
            km: Default::default(),
            ku: Default::default(),
            rv: Default::default(),
            pre_hold: Default::default(),
            rr: Default::default(),
            dv: Default::default(),
            dc: Default::default(),
            is_fb: Default::default(),
            trig_go: Default::default(),
            cl_m: Default::default(),
            ag_m: Default::default(),
            ag_u: Default::default(),
            ag_v: Default::default(),
            is_rr: Default::default(),
            place_go: Default::default(),
            ctl_in: Default::default(),
            ctl_m: Default::default(),
            rreq: Default::default(),
            c_ack: Constant::new((PacketType::Ack as u64).into()),
            c_nack: Constant::new((PacketType::Nack as u64).into()),
            c_data: Constant::new((PacketType::Data as u64).into()),
            c_read_req: Constant::new((Opcode::ReadReq as u64).into()),
            c_exception: Constant::new((EXCEPTION as u64).into()),
            c_z64: Constant::new(0u64.into()),
        }
    }
}

impl<const DW: usize, const KW: usize> Logic for RxEngine<DW, KW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, cv, cm, sv, sm, kv, km, ku, rv, rr, pre_hold, dv, dc);
        // Shared inputs.
        self.lookup.clk.next = self.clk.val();
        self.window.clk.next = self.clk.val();
        self.ackgen.clk.next = self.clk.val();
        self.timer.clk.next = self.clk.val();
        self.timer.rst.next = self.rst.val();
        self.timer.now.next = self.now.val();
        self.lookup.rst.next = self.rst.val();
        self.window.rst.next = self.rst.val();
        self.ackgen.rst.next = self.rst.val();
        self.lookup.now.next = self.now.val();
        self.ackgen.now.next = self.now.val();
        self.lookup.cfg_dscp_ctrl.next = self.cfg_dscp_ctrl.val();
        self.ackgen.cfg_dscp_ctrl.next = self.cfg_dscp_ctrl.val();
        self.lookup.cfg_no_ctx_retry_us.next = self.cfg_no_ctx_retry_us.val();
        self.ackgen.cfg_ack_ratio.next = self.cfg_ack_ratio.val();
        self.ackgen.cfg_ack_delay_ns.next = self.cfg_ack_delay_ns.val();
        // The ACK-delay timer: armed by the ACK generator, its triggers enter the window below.
        self.timer.arm_wr_en.next = self.ackgen.arm_wr_en.val();
        self.timer.arm_wr_data.next = self.ackgen.arm_wr_data.val();
        self.ackgen.arm_room.next = self.timer.arm_room.val();
        self.lookup.s_axis_ctxw_tdata.next = self.s_axis_ctxw_tdata.val();
        self.lookup.s_axis_ctxw_tvalid.next = self.s_axis_ctxw_tvalid.val();

        // Connection opens go to the window and the ACK generator together.
        self.window.s_axis_open_tdata.next = self.s_axis_open_tdata.val();
        self.ackgen.s_axis_open_tdata.next = self.s_axis_open_tdata.val();
        self.window.s_axis_open_tvalid.next =
            self.s_axis_open_tvalid.val() & self.ackgen.s_axis_open_tready.val();
        self.ackgen.s_axis_open_tvalid.next =
            self.s_axis_open_tvalid.val() & self.window.s_axis_open_tready.val();
        self.s_axis_open_tready.next =
            self.window.s_axis_open_tready.val() & self.ackgen.s_axis_open_tready.val();

        // Payload: straight through to placement.
        self.m_axis_pay_tdata.next = self.s_axis_pay_tdata.val();
        self.m_axis_pay_tkeep.next = self.s_axis_pay_tkeep.val();
        self.m_axis_pay_tlast.next = self.s_axis_pay_tlast.val();
        self.m_axis_pay_tvalid.next = self.s_axis_pay_tvalid.val();
        self.s_axis_pay_tready.next = self.m_axis_pay_tready.val();

        // Lookup; ACK / NACK of live connections to the sender side, the rest to the checks.
        self.lookup.s_axis_meta_tdata.next = self.s_axis_meta_tdata.val();
        self.lookup.s_axis_meta_tvalid.next = self.s_axis_meta_tvalid.val();
        self.s_axis_meta_tready.next = self.lookup.s_axis_meta_tready.val();
        self.cl_m.next = self.lookup.m_axis_meta_tdata.val();
        self.is_fb.next = !self.cl_m.val().drop.any()
            & ((self.cl_m.val().ptype == self.c_ack.val())
                | (self.cl_m.val().ptype == self.c_nack.val()));
        self.m_axis_fb_tdata.next = self.cl_m.val();
        self.m_axis_fb_tvalid.next = self.lookup.m_axis_meta_tvalid.val() & self.is_fb.val();
        // Into the window: a due timer trigger first, then the lookup's packets; a lookup packet already
        // offered and not yet taken stays offered (`pre_hold`), so the window's input never changes while
        // stalled. (A trigger, once due, stays valid until taken.)
        self.trig_go.next = self.timer.m_axis_trig_tvalid.val() & !self.pre_hold.q.val();
        self.timer.m_axis_trig_tready.next =
            self.window.s_axis_pre_tready.val() & !self.pre_hold.q.val();
        if self.trig_go.val() {
            self.window.s_axis_pre_tdata.next = self.timer.m_axis_trig_tdata.val();
            self.window.s_axis_pre_tvalid.next = true;
        } else {
            self.window.s_axis_pre_tdata.next = self.cl_m.val();
            self.window.s_axis_pre_tvalid.next =
                self.lookup.m_axis_meta_tvalid.val() & !self.is_fb.val();
        }
        if self.is_fb.val() {
            self.lookup.m_axis_meta_tready.next = self.m_axis_fb_tready.val();
        } else {
            self.lookup.m_axis_meta_tready.next =
                self.window.s_axis_pre_tready.val() & !self.trig_go.val();
        }
        self.pre_hold.d.next = !self.trig_go.val()
            & self.lookup.m_axis_meta_tvalid.val()
            & !self.is_fb.val()
            & !self.window.s_axis_pre_tready.val();
        // The window's pre-classification (duplicates, beyond the window) before the checks.
        self.m_axis_chk_tdata.next = self.window.m_axis_pre_tdata.val();
        self.m_axis_chk_tvalid.next = self.window.m_axis_pre_tvalid.val();
        self.window.m_axis_pre_tready.next = self.m_axis_chk_tready.val();
        self.m_axis_exc_tdata.next = self.lookup.m_axis_exc_tdata.val();
        self.m_axis_exc_tvalid.next = self.lookup.m_axis_exc_tvalid.val();
        self.lookup.m_axis_exc_tready.next = self.m_axis_exc_tready.val();

        // Window and ACK generator.
        self.window.s_axis_pkt_tdata.next = self.s_axis_chk_tdata.val();
        self.window.s_axis_pkt_tuser.next = self.s_axis_chk_tuser.val();
        self.window.s_axis_pkt_tvalid.next = self.s_axis_chk_tvalid.val();
        self.s_axis_chk_tready.next = self.window.s_axis_pkt_tready.val();
        self.ackgen.s_axis_pkt_tdata.next = self.window.m_axis_pkt_tdata.val();
        self.ackgen.s_axis_pkt_tuser.next = self.window.m_axis_pkt_tuser.val();
        self.ackgen.s_axis_pkt_tvalid.next = self.window.m_axis_pkt_tvalid.val();
        self.window.m_axis_pkt_tready.next = self.ackgen.s_axis_pkt_tready.val();

        // Control requests: the lookup's NACK NO_CONTEXT first, then the ACK generator's. Two registers, the
        // output and a skid behind it, so the sources' ready is a register (`!sv`): it does not pass the
        // output's ready into the ACK generator's stage enable.
        self.lookup.m_axis_nctx_tready.next = !self.sv.q.val();
        self.ackgen.m_axis_ctl_tready.next =
            !self.sv.q.val() & !self.lookup.m_axis_nctx_tvalid.val();
        self.ctl_in.next = !self.sv.q.val()
            & (self.lookup.m_axis_nctx_tvalid.val() | self.ackgen.m_axis_ctl_tvalid.val());
        if self.lookup.m_axis_nctx_tvalid.val() {
            self.ctl_m.next = self.lookup.m_axis_nctx_tdata.val();
        } else {
            self.ctl_m.next = self.ackgen.m_axis_ctl_tdata.val();
        }
        if !self.cv.q.val() | self.m_axis_ctl_tready.val() {
            // The output register is free (or leaves now): the skid's request, else a new one.
            if self.sv.q.val() {
                self.cv.d.next = true;
                self.cm.d.next = self.sm.q.val();
                self.sv.d.next = false;
            } else {
                self.cv.d.next = self.ctl_in.val();
                self.cm.d.next = self.ctl_m.val();
            }
        } else if self.ctl_in.val() {
            self.sv.d.next = true;
            self.sm.d.next = self.ctl_m.val();
        }
        self.m_axis_ctl_tvalid.next = self.cv.q.val();
        self.m_axis_ctl_tdata.next = self.cm.q.val();

        // To placement, READ_REQ hand-off (registered; a packet leaves when the READ register is free). The
        // ACK generator's packets pass through a skid register: its ready is the register's emptiness, so the
        // placement's ready does not reach the ACK generator's stage enable; a packet the output does not take
        // at once waits in the skid and goes first.
        self.ackgen.m_axis_pkt_tready.next = !self.kv.q.val();
        self.ag_v.next = self.kv.q.val() | self.ackgen.m_axis_pkt_tvalid.val();
        if self.kv.q.val() {
            self.ag_m.next = self.km.q.val();
            self.ag_u.next = self.ku.q.val();
        } else {
            self.ag_m.next = self.ackgen.m_axis_pkt_tdata.val();
            self.ag_u.next = self.ackgen.m_axis_pkt_tuser.val();
        }
        self.is_rr.next = self.ag_u.val().accepted
            & (self.ag_m.val().ptype == self.c_data.val())
            & (self.ag_m.val().opcode == self.c_read_req.val());
        self.m_axis_place_tdata.next = self.ag_m.val();
        self.m_axis_place_tuser.next = self.ag_u.val();
        self.m_axis_place_tvalid.next = self.ag_v.val() & !self.rv.q.val();
        self.place_go.next = self.ag_v.val() & self.m_axis_place_tready.val() & !self.rv.q.val();
        if self.kv.q.val() {
            if self.place_go.val() {
                self.kv.d.next = false;
            }
        } else if self.ackgen.m_axis_pkt_tvalid.val() & !self.place_go.val() {
            self.kv.d.next = true;
            self.km.d.next = self.ackgen.m_axis_pkt_tdata.val();
            self.ku.d.next = self.ackgen.m_axis_pkt_tuser.val();
        }
        self.rreq.next.conn = self.ag_m.val().conn;
        self.rreq.next.msn = self.ag_m.val().msn;
        self.rreq.next.local_addr = self.ag_m.val().addr;
        self.rreq.next.remote_addr = self.c_z64.val();
        self.rreq.next.len = self.ag_m.val().msg_len;
        if self.m_axis_readreq_tready.val() {
            self.rv.d.next = false;
        }
        if self.place_go.val() & self.is_rr.val() {
            self.rv.d.next = true;
            self.rr.d.next = self.rreq.val();
        }
        self.m_axis_readreq_tvalid.next = self.rv.q.val();
        self.m_axis_readreq_tdata.next = self.rr.q.val();

        // Drop pulses.
        self.dv.d.next = self.place_go.val()
            & self.ag_m.val().drop.any()
            & (self.ag_m.val().drop != self.c_exception.val());
        self.dc.d.next = self.ag_m.val().drop;
        self.drop_valid.next = self.dv.q.val();
        self.drop_code.next = self.dc.q.val();
        if self.rst.val() {
            self.cv.d.next = false;
            self.sv.d.next = false;
            self.kv.d.next = false;
            self.rv.d.next = false;
            self.pre_hold.d.next = false;
            self.dv.d.next = false;
        }
    }
}

/// The engine at the core's configuration (512- and 1024-bit payload paths).
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![
        crate::blocks::BlockSpec {
            name: "metaroce_rx_engine",
            area: "rx",
            description:
                "receive engine: lookup, window, ACK generator, routing to fb / ctl / readreq / exc",
            verilog: |cfg| {
                crate::gen::verilog(
                    "metaroce_rx_engine",
                    RxEngine::<512, 64>::new(cfg.conn_bits),
                )
            },
        },
        crate::blocks::BlockSpec {
            name: "metaroce_rx_engine_w1024",
            area: "rx",
            description: "receive engine, 1024-bit payload path",
            verilog: |cfg| {
                crate::gen::verilog(
                    "metaroce_rx_engine_w1024",
                    RxEngine::<1024, 128>::new(cfg.conn_bits),
                )
            },
        },
    ]
}
