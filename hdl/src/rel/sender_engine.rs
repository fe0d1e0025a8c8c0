//! The sender engine: the send side of one MetaRoCE endpoint's reliability and congestion control, joining
//! ACK/SACK processing and the per-PSN sender state ([`AckProc`]), the RTT estimator ([`RttUnit`]), NSCC
//! ([`NsccUnit`]) and the gate ([`GateUnit`]) (spec sections 4.5-4.9, 6.1-6.3).
//!
//! Ports (the interface to the transmit path, part C, and the receive path, part B):
//! * `s_axis_fb_*` ([`PktMeta`]): received ACK / NACK packets of our send direction, `conn` resolved, checks
//!   passed.
//! * `s_axis_sent_*` ([`TxSent`]): every DATA packet put on the wire (new or retransmission).
//! * `s_axis_gate_req_*` ([`GateReq`]) → `m_axis_gate_resp_*` ([`GateResp`]), in request order.
//! * `m_axis_rtx_*` ([`RtxReq`]): PSNs declared lost, in declaration order (MR-REL-43).
//! * `m_axis_una_*` ([`UnaUpdate`]): every advance of snd_una.
//! * `s_axis_open_*` ([`ConnOpen`]): initialises a connection's send-side state.
//! * `s_axis_ctxw_*` ([`CtxWrite`]): context writes (accepted and ignored: every per-connection field this
//!   engine keeps is initialised by `s_axis_open_*`).
//! * `m_axis_err_*` (`Bits<16>`, the connection index): the retry limit (MR-REL-55) of a connection was
//!   exceeded; the connection's send direction stops.
//! * `now` (ns), `cfg_*` static configuration (see the field docs), `clk`, `rst`.
//!
//! Operation: one command at a time, chosen in idle with the priority open > sent > feedback > gate request,
//! each followed by one idle cycle, so a command always reads the state the previous one wrote (no forwarding
//! is needed). Per-connection state: [`AckProc`]'s RAMs (snd_una / snd_nxt / in-flight bytes, the per-PSN
//! records), a copy of its connection words for the gate (written from its write tap), and this engine's
//! [`EngSt`] RAM (NSCC state, RTT estimator state, pacing release time, the MR-REL-45 flag), each
//! `1 << conn_bits` words.
//! * Open: [`AckProc`] open (`snd_una = snd_nxt = isn`), [`EngSt`] = `cwnd = cfg_bdp` (MR-CC-7), no RTT
//!   sample, no pacing. 2-3 cycles.
//! * Sent: [`AckProc`] sent (new PSN: record, `snd_nxt + 1`, in flight), then NSCC's pacing gap for the charged
//!   size (MR-CC-14): `next_tx = now + gap` when `gap != 0`, else no pacing (the model's
//!   `next_send_at = if gap == 0 { 0 } else { now + gap }`). ~45 cycles.
//! * ACK (`ptype` 2): RTT sample `s = now32 - echo_ts` (MR-REL-26; used when `s < 2^31`), [`AckProc`] ACK
//!   processing (`m_axis_una_*` comes from it), the estimator's `on_sample(max(s, 1))` (before the validity
//!   check, as the model does), then, for a valid ACK that newly acknowledged something or carries ECE (aflags
//!   bit 7), NSCC `on_ack(now, acked bytes, sample, ece)` (MR-CC-4, MR-REL-24). `ACK words + ~60` cycles.
//! * Gate request: the connection's state into [`GateUnit`] (window MR-REL-4, cwnd MR-CC-1 with MR-REL-45,
//!   pacing MR-CC-2); once `now` has passed `next_tx`, pacing is disarmed in the RAM (see [`crate::cc::gate`]).
//!   4 cycles; the response waits in a register until taken, and no new request is taken before.
//!
//! Not yet implemented (the ports exist and are tied off): NACK processing (NACKs are accepted and dropped),
//! loss detection, RTO timer and retry limit (`m_axis_rtx_*`, `m_axis_err_*` never valid, `rto_rtx` stays
//! 0), the EV set (`ev` = `path` = 0 in every response). Pacing gaps are kept as 32-bit ns (gaps < 2^31 ns).
//! An RTT sample of exactly 0 ns reaches NSCC as "no sample" (the unit's encoding; the model passes Some(0)).

use crate::cc::gate::GateUnit;
use crate::cc::nscc::{NsccState, NsccUnit, Zx32, EV_ACK, EV_PACE};
use crate::cc::rtt::{RttState, RttUnit};
use crate::common::ram::SdpRam;
use crate::records::{CtxWrite, PktMeta, RtxReq, TxSent};
use crate::rel::ack_proc::{AckProc, AckRes, ConnSnd};
use crate::rel::records::{ConnOpen, GateReq, GateResp, UnaUpdate};
use rust_hdl::prelude::*;

/// Records of the engine.
pub mod rec {
    #![allow(missing_docs)]
    use rust_hdl::prelude::*;

    /// The engine's per-connection state (344 bits): NSCC's [`crate::cc::nscc::NsccState`] fields, the RTT
    /// estimator's [`crate::cc::rtt::RttState`] fields (`r_*`), pacing and the MR-REL-45 flag.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct EngSt {
        pub cwnd: Bits<32>,
        pub srtt: Bits<32>,
        pub min_rtt: Bits<32>,
        pub last_d: Bits<32>,
        pub min_stamp: Bits<64>,
        pub last_md: Bits<64>,
        pub md_valid: Bit,
        pub r_srtt: Bits<24>,
        pub r_var: Bits<24>,
        pub r_has: Bit,
        pub r_bo: Bits<5>,
        /// Pacing release time set.
        pub pace_armed: Bit,
        /// Pacing release time, ns mod 2^32.
        pub next_tx: Bits<32>,
        /// First retransmission after an RTO expiry (MR-REL-45).
        pub rto_rtx: Bit,
    }

    /// A 16-bit value zero-extended to 64 bits.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct Zx16w {
        pub lo: Bits<16>,
        pub hi: Bits<48>,
    }
}

pub use rec::{EngSt, Zx16w};

/// The sender engine (see the module docs). Construct with [`SenderEngine::new`].
#[derive(LogicBlock)]
pub struct SenderEngine {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Current time, ns.
    pub now: Signal<In, Bits<64>>,
    /// Received ACK / NACK.
    pub s_axis_fb_tdata: Signal<In, PktMeta>,
    /// Valid.
    pub s_axis_fb_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_fb_tready: Signal<Out, Bit>,
    /// Transmitted DATA packet.
    pub s_axis_sent_tdata: Signal<In, TxSent>,
    /// Valid.
    pub s_axis_sent_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_sent_tready: Signal<Out, Bit>,
    /// Gate request.
    pub s_axis_gate_req_tdata: Signal<In, GateReq>,
    /// Valid.
    pub s_axis_gate_req_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_gate_req_tready: Signal<Out, Bit>,
    /// Gate response.
    pub m_axis_gate_resp_tdata: Signal<Out, GateResp>,
    /// Valid.
    pub m_axis_gate_resp_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_gate_resp_tready: Signal<In, Bit>,
    /// Retransmission request.
    pub m_axis_rtx_tdata: Signal<Out, RtxReq>,
    /// Valid.
    pub m_axis_rtx_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_rtx_tready: Signal<In, Bit>,
    /// snd_una advance.
    pub m_axis_una_tdata: Signal<Out, UnaUpdate>,
    /// Valid.
    pub m_axis_una_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_una_tready: Signal<In, Bit>,
    /// Connection open.
    pub s_axis_open_tdata: Signal<In, ConnOpen>,
    /// Valid.
    pub s_axis_open_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_open_tready: Signal<Out, Bit>,
    /// Context write broadcast (no back-pressure).
    pub s_axis_ctxw_tdata: Signal<In, CtxWrite>,
    /// Valid.
    pub s_axis_ctxw_tvalid: Signal<In, Bit>,
    /// Retry limit exceeded (MR-REL-55): the connection index.
    pub m_axis_err_tdata: Signal<Out, Bits<16>>,
    /// Valid.
    pub m_axis_err_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_err_tready: Signal<In, Bit>,
    /// NSCC `mtu` (bytes, 1..2^32): minimum window and fair-increase step (MR-CC-7, MR-CC-9).
    pub cfg_mtu: Signal<In, Bits<64>>,
    /// NSCC initial window = `CcParams::bdp_bytes()` (MR-CC-7), < 2^31 (the window is 32 bits wide).
    pub cfg_bdp: Signal<In, Bits<64>>,
    /// NSCC target queueing delay, ns (1..2^31).
    pub cfg_target_ns: Signal<In, Bits<64>>,
    /// Base RTT, ns (>= 1).
    pub cfg_base_rtt_ns: Signal<In, Bits<64>>,
    /// min-RTT window, ns (MR-REL-28).
    pub cfg_min_rtt_window_ns: Signal<In, Bits<64>>,
    /// Line rate, bit/s (>= 1), for the pacing serialization term (MR-CC-14).
    pub cfg_line_rate_bps: Signal<In, Bits<64>>,
    /// RTO lower bound, ns (MR-REL-29).
    pub cfg_rto_min_ns: Signal<In, Bits<64>>,
    /// RTO before the first sample, ns.
    pub cfg_rto_init_ns: Signal<In, Bits<64>>,
    /// RTO upper bound, ns.
    pub cfg_rto_max_ns: Signal<In, Bits<64>>,
    /// Consecutive timeouts without progress before the connection fails (MR-REL-55).
    pub cfg_retry_limit: Signal<In, Bits<8>>,
    /// Reordering distance in packets (MR-REL-38).
    pub cfg_reorder_distance: Signal<In, Bits<16>>,
    ackp: AckProc,
    rtt: RttUnit,
    nscc: NsccUnit,
    gate: GateUnit,
    eng_ram: SdpRam<EngSt, 16>,
    snd_ram: SdpRam<ConnSnd, 16>,
    state: DFF<Bits<4>>,
    conn: DFF<Bits<16>>,
    est: DFF<EngSt>,
    res: DFF<AckRes>,
    req: DFF<GateReq>,
    charged: DFF<Bits<16>>,
    sample: DFF<Bits<32>>,
    ece: DFF<Bit>,
    started: DFF<Bit>,
    dis: DFF<Bit>,
    resp_valid: DFF<Bit>,
    resp: DFF<GateResp>,
    est_l: Signal<Local, EngSt>,
    init_l: Signal<Local, EngSt>,
    nst_l: Signal<Local, NsccState>,
    rst_l: Signal<Local, RttState>,
    zx_s: Signal<Local, Zx32>,
    s64: Signal<Local, Bits<64>>,
    zx_b: Signal<Local, Zx32>,
    zx_c: Signal<Local, Zx16w>,
    since: Signal<Local, Bits<32>>,
    s_idle: Constant<Bits<4>>,
    s_open: Constant<Bits<4>>,
    s_sent_h: Constant<Bits<4>>,
    s_sent_rd: Constant<Bits<4>>,
    s_sent_p: Constant<Bits<4>>,
    s_ack_h: Constant<Bits<4>>,
    s_ack_w: Constant<Bits<4>>,
    s_rtt: Constant<Bits<4>>,
    s_rtt_w: Constant<Bits<4>>,
    s_cc: Constant<Bits<4>>,
    s_g_rd: Constant<Bits<4>>,
    s_g_ev: Constant<Bits<4>>,
    s_g_out: Constant<Bits<4>>,
    s_wb: Constant<Bits<4>>,
    s_gap: Constant<Bits<4>>,
    k_ptype_ack: Constant<Bits<4>>,
    k_ev_ack: Constant<Bits<3>>,
    k_ev_pace: Constant<Bits<3>>,
    k_zero16: Constant<Bits<16>>,
    k_zero32: Constant<Bits<32>>,
    k_half: Constant<Bits<32>>,
    k_zero48: Constant<Bits<48>>,
    k_zero64: Constant<Bits<64>>,
}

impl SenderEngine {
    /// A sender engine for `1 << conn_bits` connections (1..=16).
    pub fn new(conn_bits: u32) -> Self {
        assert!((1..=16).contains(&conn_bits));
        SenderEngine {
            clk: Default::default(),
            rst: Default::default(),
            now: Default::default(),
            s_axis_fb_tdata: Default::default(),
            s_axis_fb_tvalid: Default::default(),
            s_axis_fb_tready: Default::default(),
            s_axis_sent_tdata: Default::default(),
            s_axis_sent_tvalid: Default::default(),
            s_axis_sent_tready: Default::default(),
            s_axis_gate_req_tdata: Default::default(),
            s_axis_gate_req_tvalid: Default::default(),
            s_axis_gate_req_tready: Default::default(),
            m_axis_gate_resp_tdata: Default::default(),
            m_axis_gate_resp_tvalid: Default::default(),
            m_axis_gate_resp_tready: Default::default(),
            m_axis_rtx_tdata: Default::default(),
            m_axis_rtx_tvalid: Default::default(),
            m_axis_rtx_tready: Default::default(),
            m_axis_una_tdata: Default::default(),
            m_axis_una_tvalid: Default::default(),
            m_axis_una_tready: Default::default(),
            s_axis_open_tdata: Default::default(),
            s_axis_open_tvalid: Default::default(),
            s_axis_open_tready: Default::default(),
            s_axis_ctxw_tdata: Default::default(),
            s_axis_ctxw_tvalid: Default::default(),
            m_axis_err_tdata: Default::default(),
            m_axis_err_tvalid: Default::default(),
            m_axis_err_tready: Default::default(),
            cfg_mtu: Default::default(),
            cfg_bdp: Default::default(),
            cfg_target_ns: Default::default(),
            cfg_base_rtt_ns: Default::default(),
            cfg_min_rtt_window_ns: Default::default(),
            cfg_line_rate_bps: Default::default(),
            cfg_rto_min_ns: Default::default(),
            cfg_rto_init_ns: Default::default(),
            cfg_rto_max_ns: Default::default(),
            cfg_retry_limit: Default::default(),
            cfg_reorder_distance: Default::default(),
            ackp: AckProc::new(conn_bits),
            rtt: Default::default(),
            nscc: Default::default(),
            gate: Default::default(),
            eng_ram: SdpRam::new(1 << conn_bits),
            snd_ram: SdpRam::new(1 << conn_bits),
            state: Default::default(),
            conn: Default::default(),
            est: Default::default(),
            res: Default::default(),
            req: Default::default(),
            charged: Default::default(),
            sample: Default::default(),
            ece: Default::default(),
            started: Default::default(),
            dis: Default::default(),
            resp_valid: Default::default(),
            resp: Default::default(),
            est_l: Default::default(),
            init_l: Default::default(),
            nst_l: Default::default(),
            rst_l: Default::default(),
            zx_s: Default::default(),
            s64: Default::default(),
            zx_b: Default::default(),
            zx_c: Default::default(),
            since: Default::default(),
            s_idle: Constant::new(0u64.to_bits()),
            s_open: Constant::new(1u64.to_bits()),
            s_sent_h: Constant::new(2u64.to_bits()),
            s_sent_rd: Constant::new(3u64.to_bits()),
            s_sent_p: Constant::new(4u64.to_bits()),
            s_ack_h: Constant::new(5u64.to_bits()),
            s_ack_w: Constant::new(6u64.to_bits()),
            s_rtt: Constant::new(7u64.to_bits()),
            s_rtt_w: Constant::new(8u64.to_bits()),
            s_cc: Constant::new(9u64.to_bits()),
            s_g_rd: Constant::new(10u64.to_bits()),
            s_g_ev: Constant::new(11u64.to_bits()),
            s_g_out: Constant::new(12u64.to_bits()),
            s_wb: Constant::new(13u64.to_bits()),
            s_gap: Constant::new(14u64.to_bits()),
            k_ptype_ack: Constant::new(2u64.to_bits()),
            k_ev_ack: Constant::new(EV_ACK.to_bits()),
            k_ev_pace: Constant::new(EV_PACE.to_bits()),
            k_zero16: Constant::new(0u64.to_bits()),
            k_zero32: Constant::new(0u64.to_bits()),
            k_half: Constant::new(0x8000_0000u64.to_bits()),
            k_zero48: Constant::new(0u64.to_bits()),
            k_zero64: Constant::new(0u64.to_bits()),
        }
    }
}

impl Logic for SenderEngine {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, state, conn, est, res, req, charged, sample, ece, started, dis, resp_valid,
            resp
        );
        self.ackp.clk.next = self.clk.val();
        self.rtt.clk.next = self.clk.val();
        self.nscc.clk.next = self.clk.val();
        self.gate.clk.next = self.clk.val();
        self.eng_ram.clk.next = self.clk.val();
        self.snd_ram.clk.next = self.clk.val();
        self.ackp.rst.next = self.rst.val();
        self.rtt.rst.next = self.rst.val();
        self.nscc.rst.next = self.rst.val();
        self.gate.rst.next = self.rst.val();
        // The gate's copy of AckProc's connection words.
        self.snd_ram.wr_en.next = self.ackp.st_wr_en.val();
        self.snd_ram.wr_addr.next = self.ackp.st_wr_conn.val();
        self.snd_ram.wr_data.next = self.ackp.st_wr.val();
        self.snd_ram.rd_addr.next = self.conn.q.val();
        self.eng_ram.rd_addr.next = self.conn.q.val();
        self.eng_ram.wr_addr.next = self.conn.q.val();
        self.eng_ram.wr_en.next = false;
        self.eng_ram.wr_data.next = self.est.q.val();
        // Initial state of an opened connection (MR-CC-7: cwnd = bdp).
        self.init_l.next.cwnd = self.cfg_bdp.val().get_bits::<32>(0);
        self.init_l.next.srtt = self.k_zero32.val();
        self.init_l.next.min_rtt = self.k_zero32.val();
        self.init_l.next.last_d = self.k_zero32.val();
        self.init_l.next.min_stamp = self.k_zero64.val();
        self.init_l.next.last_md = self.k_zero64.val();
        self.init_l.next.md_valid = false;
        self.init_l.next.r_srtt = 0.into();
        self.init_l.next.r_var = 0.into();
        self.init_l.next.r_has = false;
        self.init_l.next.r_bo = 0.into();
        self.init_l.next.pace_armed = false;
        self.init_l.next.next_tx = self.k_zero32.val();
        self.init_l.next.rto_rtx = false;
        // The sub-units' views of the state.
        self.nst_l.next.cwnd = self.est.q.val().cwnd;
        self.nst_l.next.srtt = self.est.q.val().srtt;
        self.nst_l.next.min_rtt = self.est.q.val().min_rtt;
        self.nst_l.next.last_d = self.est.q.val().last_d;
        self.nst_l.next.min_stamp = self.est.q.val().min_stamp;
        self.nst_l.next.last_md = self.est.q.val().last_md;
        self.nst_l.next.md_valid = self.est.q.val().md_valid;
        self.rst_l.next.srtt = self.est.q.val().r_srtt;
        self.rst_l.next.rttvar = self.est.q.val().r_var;
        self.rst_l.next.has = self.est.q.val().r_has;
        self.rst_l.next.backoff = self.est.q.val().r_bo;
        // Zero extensions.
        self.zx_s.next.lo = self.sample.q.val();
        self.zx_s.next.hi = self.k_zero32.val();
        self.s64.next = self.zx_s.val().into();
        self.zx_b.next.lo = self.res.q.val().bytes;
        self.zx_b.next.hi = self.k_zero32.val();
        self.zx_c.next.lo = self.charged.q.val();
        self.zx_c.next.hi = self.k_zero48.val();
        // AckProc: streams pass through in the command's state.
        self.ackp.s_axis_open_tdata.next = self.s_axis_open_tdata.val();
        self.ackp.s_axis_open_tvalid.next = false;
        self.ackp.s_axis_sent_tdata.next = self.s_axis_sent_tdata.val();
        self.ackp.s_axis_sent_tvalid.next = false;
        self.ackp.s_axis_ack_tdata.next = self.s_axis_fb_tdata.val();
        self.ackp.s_axis_ack_tvalid.next = false;
        self.ackp.m_axis_res_tready.next = false;
        self.m_axis_una_tdata.next = self.ackp.m_axis_una_tdata.val();
        self.m_axis_una_tvalid.next = self.ackp.m_axis_una_tvalid.val();
        self.ackp.m_axis_una_tready.next = self.m_axis_una_tready.val();
        self.s_axis_open_tready.next = false;
        self.s_axis_sent_tready.next = false;
        self.s_axis_fb_tready.next = false;
        self.s_axis_gate_req_tready.next = false;
        // RTT estimator.
        self.rtt.in_valid.next = false;
        self.rtt.upd_sample.next = self.sample.q.val() < self.k_half.val();
        self.rtt.upd_timeout.next = false;
        self.rtt.sample.next = self.s64.val();
        if self.sample.q.val() == self.k_zero32.val() {
            self.rtt.sample.next = 1.into();
        }
        self.rtt.st_in.next = self.rst_l.val();
        self.rtt.cfg_rto_min_ns.next = self.cfg_rto_min_ns.val();
        self.rtt.cfg_rto_init_ns.next = self.cfg_rto_init_ns.val();
        self.rtt.cfg_rto_max_ns.next = self.cfg_rto_max_ns.val();
        // NSCC.
        self.nscc.start.next = false;
        self.nscc.kind.next = self.k_ev_ack.val();
        self.nscc.now.next = self.now.val();
        self.nscc.acked.next = self.zx_b.val().into();
        self.nscc.sample.next = self.k_zero64.val();
        if self.sample.q.val() < self.k_half.val() {
            self.nscc.sample.next = self.s64.val();
        }
        self.nscc.ece.next = self.ece.q.val();
        self.nscc.bytes.next = self.zx_c.val().into();
        self.nscc.st_in.next = self.nst_l.val();
        self.nscc.cfg_mtu.next = self.cfg_mtu.val();
        self.nscc.cfg_max_cwnd.next = self.cfg_bdp.val() + self.cfg_bdp.val();
        self.nscc.cfg_target_ns.next = self.cfg_target_ns.val();
        self.nscc.cfg_base_rtt_ns.next = self.cfg_base_rtt_ns.val();
        self.nscc.cfg_min_rtt_window_ns.next = self.cfg_min_rtt_window_ns.val();
        self.nscc.cfg_line_rate_bps.next = self.cfg_line_rate_bps.val();
        // Gate.
        self.est_l.next = self.eng_ram.rd_data.val();
        self.gate.in_valid.next = false;
        self.gate.req.next = self.req.q.val();
        self.gate.snd_una.next = self.snd_ram.rd_data.val().una;
        self.gate.snd_nxt.next = self.snd_ram.rd_data.val().nxt;
        self.gate.inflight.next = self.snd_ram.rd_data.val().inflight;
        self.gate.cwnd.next = self.est_l.val().cwnd;
        self.gate.rto_rtx.next = self.est_l.val().rto_rtx;
        self.gate.pace_armed.next = self.est_l.val().pace_armed;
        self.gate.next_tx.next = self.est_l.val().next_tx;
        self.gate.ev.next = 0.into();
        self.gate.path.next = 0.into();
        self.gate.now32.next = self.now.val().get_bits::<32>(0);
        self.since.next = self.now.val().get_bits::<32>(0) - self.est_l.val().next_tx;
        if self.m_axis_gate_resp_tready.val() {
            self.resp_valid.d.next = false;
        }
        if self.state.q.val() == self.s_idle.val() {
            self.started.d.next = false;
            if self.s_axis_open_tvalid.val() {
                self.conn.d.next = self.s_axis_open_tdata.val().conn;
                self.state.d.next = self.s_open.val();
            } else if self.s_axis_sent_tvalid.val() {
                self.conn.d.next = self.s_axis_sent_tdata.val().conn;
                self.state.d.next = self.s_sent_h.val();
            } else if self.s_axis_fb_tvalid.val() {
                self.conn.d.next = self.s_axis_fb_tdata.val().conn;
                if self.s_axis_fb_tdata.val().ptype == self.k_ptype_ack.val() {
                    self.state.d.next = self.s_ack_h.val();
                } else {
                    // NACK processing is not implemented: dropped.
                    self.s_axis_fb_tready.next = true;
                }
            } else if self.s_axis_gate_req_tvalid.val() && !self.resp_valid.q.val() {
                self.s_axis_gate_req_tready.next = true;
                self.conn.d.next = self.s_axis_gate_req_tdata.val().conn;
                self.req.d.next = self.s_axis_gate_req_tdata.val();
                self.state.d.next = self.s_g_rd.val();
            }
        }
        if self.state.q.val() == self.s_open.val() {
            self.ackp.s_axis_open_tvalid.next = true;
            self.s_axis_open_tready.next = self.ackp.s_axis_open_tready.val();
            if self.ackp.s_axis_open_tready.val() {
                self.eng_ram.wr_data.next = self.init_l.val();
                self.eng_ram.wr_en.next = true;
                self.state.d.next = self.s_gap.val();
            }
        }
        if self.state.q.val() == self.s_sent_h.val() {
            self.ackp.s_axis_sent_tvalid.next = true;
            self.s_axis_sent_tready.next = self.ackp.s_axis_sent_tready.val();
            if self.ackp.s_axis_sent_tready.val() {
                self.charged.d.next = self.s_axis_sent_tdata.val().charged;
                self.state.d.next = self.s_sent_rd.val();
            }
        }
        if self.state.q.val() == self.s_sent_rd.val() {
            self.est.d.next = self.eng_ram.rd_data.val();
            self.state.d.next = self.s_sent_p.val();
        }
        if self.state.q.val() == self.s_sent_p.val() {
            self.nscc.kind.next = self.k_ev_pace.val();
            if !self.started.q.val() && self.nscc.ready.val() {
                self.nscc.start.next = true;
                self.started.d.next = true;
            }
            if self.nscc.done.val() {
                // MR-CC-2: next_send_at = now + gap (gap 0: no pacing).
                self.est.d.next.next_tx =
                    self.now.val().get_bits::<32>(0) + self.nscc.gap.val().get_bits::<32>(0);
                self.est.d.next.pace_armed = self.nscc.gap.val() != self.k_zero64.val();
                self.state.d.next = self.s_wb.val();
            }
        }
        if self.state.q.val() == self.s_ack_h.val() {
            self.ackp.s_axis_ack_tvalid.next = true;
            self.s_axis_fb_tready.next = self.ackp.s_axis_ack_tready.val();
            if self.ackp.s_axis_ack_tready.val() {
                // MR-REL-26: the sample is now - echo_ts (32-bit).
                self.sample.d.next =
                    self.now.val().get_bits::<32>(0) - self.s_axis_fb_tdata.val().echo_ts;
                self.ece.d.next = self.s_axis_fb_tdata.val().aflags.get_bit(7);
                self.state.d.next = self.s_ack_w.val();
            }
        }
        if self.state.q.val() == self.s_ack_w.val() {
            self.ackp.m_axis_res_tready.next = true;
            if self.ackp.m_axis_res_tvalid.val() {
                self.res.d.next = self.ackp.m_axis_res_tdata.val();
                self.est.d.next = self.eng_ram.rd_data.val();
                self.state.d.next = self.s_rtt.val();
            }
        }
        if self.state.q.val() == self.s_rtt.val() {
            self.rtt.in_valid.next = true;
            self.state.d.next = self.s_rtt_w.val();
        }
        if self.state.q.val() == self.s_rtt_w.val() && self.rtt.out_valid.val() {
            self.est.d.next.r_srtt = self.rtt.st_out.val().srtt;
            self.est.d.next.r_var = self.rtt.st_out.val().rttvar;
            self.est.d.next.r_has = self.rtt.st_out.val().has;
            self.est.d.next.r_bo = self.rtt.st_out.val().backoff;
            if self.res.q.val().newly != self.k_zero16.val() {
                self.est.d.next.rto_rtx = false;
            }
            self.state.d.next = self.s_wb.val();
            if !self.res.q.val().invalid
                && (self.res.q.val().newly != self.k_zero16.val() || self.ece.q.val())
            {
                self.state.d.next = self.s_cc.val();
            }
        }
        if self.state.q.val() == self.s_cc.val() {
            if !self.started.q.val() && self.nscc.ready.val() {
                self.nscc.start.next = true;
                self.started.d.next = true;
            }
            if self.nscc.done.val() {
                self.est.d.next.cwnd = self.nscc.st_out.val().cwnd;
                self.est.d.next.srtt = self.nscc.st_out.val().srtt;
                self.est.d.next.min_rtt = self.nscc.st_out.val().min_rtt;
                self.est.d.next.last_d = self.nscc.st_out.val().last_d;
                self.est.d.next.min_stamp = self.nscc.st_out.val().min_stamp;
                self.est.d.next.last_md = self.nscc.st_out.val().last_md;
                self.est.d.next.md_valid = self.nscc.st_out.val().md_valid;
                self.state.d.next = self.s_wb.val();
            }
        }
        if self.state.q.val() == self.s_g_rd.val() {
            self.state.d.next = self.s_g_ev.val();
        }
        if self.state.q.val() == self.s_g_ev.val() {
            self.gate.in_valid.next = true;
            // Disarm pacing once now has passed next_tx (see cc::gate).
            self.est.d.next = self.est_l.val();
            self.est.d.next.pace_armed = false;
            self.dis.d.next = self.est_l.val().pace_armed && self.since.val() < self.k_half.val();
            self.state.d.next = self.s_g_out.val();
        }
        if self.state.q.val() == self.s_g_out.val() {
            self.resp.d.next = self.gate.resp.val();
            self.resp_valid.d.next = true;
            self.state.d.next = self.s_idle.val();
            if self.dis.q.val() {
                self.state.d.next = self.s_wb.val();
            }
        }
        if self.state.q.val() == self.s_wb.val() {
            self.eng_ram.wr_en.next = true;
            self.state.d.next = self.s_gap.val();
        }
        if self.state.q.val() == self.s_gap.val() {
            self.state.d.next = self.s_idle.val();
        }
        if self.rst.val() {
            self.state.d.next = self.s_idle.val();
            self.resp_valid.d.next = false;
            self.started.d.next = false;
        }
        self.m_axis_gate_resp_tdata.next = self.resp.q.val();
        self.m_axis_gate_resp_tvalid.next = self.resp_valid.q.val();
        self.m_axis_rtx_tdata.next.conn = self.k_zero16.val();
        self.m_axis_rtx_tdata.next.psn = self.k_zero32.val();
        self.m_axis_rtx_tvalid.next = false;
        self.m_axis_err_tdata.next = self.k_zero16.val();
        self.m_axis_err_tvalid.next = false;
    }
}

/// Rewrites rust-hdl's sized-literal part-select offsets and bit indices (`x[(64'h10)+:(32)]`,
/// `x[32'h3]`, which Verilator -Wall reports as WIDTHTRUNC) into plain integers (`x[16+:32]`, `x[3]`). The
/// Verilog means the same.
pub fn tidy_part_selects(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('[') {
        out.push_str(&rest[..=i]);
        rest = &rest[i + 1..];
        let paren = rest.starts_with('(');
        let body = if paren { &rest[1..] } else { rest };
        let digits = body.bytes().take_while(|c| c.is_ascii_digit()).count();
        let Some(after_h) = body[digits..].strip_prefix("'h") else {
            continue;
        };
        let hex_len = after_h
            .bytes()
            .take_while(|c| c.is_ascii_hexdigit())
            .count();
        let Ok(v) = u64::from_str_radix(&after_h[..hex_len], 16) else {
            continue;
        };
        let tail = &after_h[hex_len..];
        if paren {
            if let Some(t) = tail.strip_prefix(")+:") {
                out.push_str(&format!("{v}+:"));
                rest = t;
            }
        } else if tail.starts_with(']') && digits > 0 {
            out.push_str(&v.to_string());
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

/// This file's blocks.
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![crate::blocks::BlockSpec {
        name: "metaroce_rel_sender_engine",
        area: "rel",
        description:
            "sender reliability + congestion control: ACK processing, RTT, NSCC, pacing, gate",
        verilog: |cfg| {
            tidy_part_selects(&crate::gen::verilog(
                "metaroce_rel_sender_engine",
                SenderEngine::new(cfg.conn_bits),
            ))
        },
    }]
}

#[cfg(test)]
mod tests {
    use super::tidy_part_selects;

    #[test]
    fn tidy_rewrites_only_literal_selects() {
        let v = "a[(64'h10)+:(32)] = b[32'h3]; c[(x)+:(4)] = d[7:0]; e[(8'hff)+:(2)] = f[i];";
        assert_eq!(
            tidy_part_selects(v),
            "a[16+:(32)] = b[3]; c[(x)+:(4)] = d[7:0]; e[255+:(2)] = f[i];"
        );
    }
}
