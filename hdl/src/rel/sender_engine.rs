//! The sender engine: the send side of one MetaRoCE endpoint's reliability and congestion control. It joins
//! ACK/SACK processing, the per-PSN sender state and loss detection ([`AckProc`] with
//! [`crate::rel::loss_detect`]), the retransmission-timer wheel ([`TimerWheel`]), the EV set
//! ([`PathSelect`]), the RTT estimator ([`RttUnit`]), NSCC ([`NsccUnit`]) and the gate ([`GateUnit`]) (spec
//! sections 4.5-4.9, 5, 6.1-6.3), and makes the decisions of the model's `send.rs` (`on_ack`, `on_nack`,
//! `on_timeout`, `poll_transmit`'s gate and path choice) in the same order.
//!
//! Ports (the interface to the transmit path and the receive path):
//! * `s_axis_fb_*` ([`PktMeta`]): received ACK / NACK packets of our send direction, `conn` resolved, checks
//!   passed.
//! * `s_axis_sent_*` ([`TxSent`]): every DATA packet put on the wire (new or retransmission).
//! * `s_axis_gate_req_*` ([`GateReq`]) → `m_axis_gate_resp_*` ([`GateResp`]), in request order.
//! * `m_axis_rtx_*` ([`RtxReq`]): PSNs declared lost, in declaration order (MR-REL-43).
//! * `m_axis_una_*` ([`UnaUpdate`]): every advance of snd_una, and a connection's first valid ACK (see
//!   [`AckProc`]).
//! * `s_axis_open_*` ([`ConnOpen`]): initialises a connection's send-side state.
//! * `s_axis_ctxw_*` ([`CtxWrite`]): context writes (accepted and ignored: every per-connection field this
//!   engine keeps is initialised by `s_axis_open_*`).
//! * `m_axis_err_*` ([`ConnFail`]): causes for the connection's QP to enter ERROR, for the transmit
//!   scheduler, which decides them: the retry limit (MR-REL-55) or the RNR retry limit (MR-SEM-30) was
//!   exceeded (the connection's send direction stops at once: every later gate request is refused,
//!   retransmissions with `skip`, until it is opened again), or a fatal NACK (ACCESS, INVALID, UNSUPPORTED)
//!   arrived, passed on with its `aux` (the MSN) for the scheduler to match (MR-SEM-35).
//! * `s_axis_stop_*` (`Bits<16>`): the scheduler failed the connection's QP: its send direction stops as at
//!   the retry limit (timers disarmed), without a report.
//! * `now` (ns), `cfg_*` static configuration (see the field docs), `clk`, `rst`.
//!
//! Operation: one command at a time, chosen in idle or in the write-back cycle that ends the previous command
//! (the next command reads the RAM from the following cycle on, after the write), with the priority open >
//! stop > sent > held gate request > gate request > feedback > timer, so a command always reads the state the
//! previous one wrote (no forwarding is needed).
//! Gate requests and sent reports go before feedback because the transmit path waits for them while its
//! datapath drains (an ACK taken a little later is an ACK that arrived a little later); after an allowed gate
//! answer, feedback and timers wait up to 7 cycles for the packet's sent report, so the report is not held
//! behind another command (an ACK takes about 18 cycles with NSCC in the background, see below) while the
//! transmit path waits for its handshake. With an ACK per 4 KiB packet this keeps the 512-bit transmit
//! datapath busy 99.8 % of the cycles.
//! Two computations run beside the commands, and each writes its result into a RAM of its own without a
//! command, at a command boundary (idle, or the write-back cycle that ends a command: no command has then
//! read the connection's words to write them back later, and the next one reads after the write). An allowed
//! packet's pacing gap, in a second NSCC instance (`pacer`): it starts a cycle after the gate's decision when
//! the instance is free, else a cycle after the packet's sent report (taken only once the instance is free);
//! the pacing time `t + gap` goes into the pacing RAM, and a gate request or an open of the paced connection
//! waits until it is there. And the NSCC `on_ack` of an ACK without ECE whose detection run declared nothing
//! lost (*background on_ack*): such an `on_ack` can only raise cwnd (MR-CC-8, MR-CC-9, then the clamp), so
//! once the detection run is done the ACK writes the connection's other state back and ends, and NSCC's
//! result goes into NSCC's RAM when it is known. Until then: a gate decision of the connection answers only an
//! allow, which the model's decision after the ACK also makes (any refusal is held and decided again after the
//! result is written); the pacing gap of a packet of the connection starts only from the result
//! (`pace_defer`); NACKs, timers and opens wait, and so does an ACK until NSCC has run [`BG_NEAR`] cycles:
//! the ACK's steps before its own NSCC event (its ACK processor pass among them) then overlap the rest, the
//! result is written during them (an ACK of the connection takes it into the state it loaded), and the ACK's
//! NSCC event starts after it (no other NSCC event runs meanwhile). Every decision is the one the engine made
//! with the ACK processed to its end; the gate requests and sent reports that arrive during the ~20 cycles of
//! `on_ack` are answered meanwhile. (Before, each result was written by a command of its own, 3 cycles each, a
//! read-modify-write of one RAM holding all of [`EngSt`].)
//! A command never waits on an output the transmit path consumes only when idle: the snd_una advance of an ACK
//! leaves through a two-entry queue, and the declared PSNs through a FIFO of [`RTX_FIFO_LOG`] entries; feedback
//! starts only while the queue's second entry is free and the FIFO has room for a whole window's declarations
//! ([`RTX_ROOM`]), a timer command only with that room. Gate requests and sent reports, which the transmit path
//! waits for, go on meanwhile (without this the transmit path deadlocked when an ACK arrived while a gate
//! request was waiting).
//! The commands to the ACK processor and to the EV set pass a register slice each ([`RegSlice`]): a command
//! reaches its block a cycle after the state machine issues it (in order, and the EV set takes no clean beat
//! while one is in its slice), so the state decode does not run on into the EV set's clean-beat ready and from
//! there into the ACK processor's scan (10 to 11 LUT levels in the mapped engine before).
//! Per-connection state: [`AckProc`]'s RAMs, the EV sets in [`PathSelect`], the wheel's lists, a copy of the
//! fields of [`AckProc`]'s connection words the gate reads ([`GateSnd`], written from its write tap), and this
//! engine's [`EngSt`] (NSCC and RTT estimator state, pacing, the RTO and RACK deadlines, the retry and RNR
//! counters, the reordering multiplier) in three RAMs (NSCC's fields, the pacing time, [`EngRest`]), each
//! `1 << conn_bits` words.
//! * Open: [`AckProc`] open (`snd_una = snd_nxt = isn`), [`EngSt`] initial (`cwnd = cfg_bdp`, MR-CC-7;
//!   `reo_mult = 1`), the EV set drawn from the open's seed (MR-PATH-1), the timer disarmed.
//! * Sent: [`AckProc`] records the transmission (MR-REL-32); the RTO is armed at `now + rto` if it was not
//!   (MR-REL-40). The pacing instance computes NSCC's gap for the charged size (MR-CC-14), with the state the
//!   gate decided on (or, when the instance was busy then, the state at the sent report), and its result
//!   sets the pacing time to `t + gap` (MR-CC-2), `t` the time the gate let the packet go (the packet's
//!   timestamp is older: it is taken when the packet is formed). That time is the packet's eligibility, the
//!   later of the request's arrival at the engine and the connection's pacing time: an engine that decided in
//!   no time would let it go then. The cycles the request waited behind a command in progress and the
//!   decision's own cycles are not charged to the connection; charging them slowed a paced connection by
//!   1.5 % (4 KiB packets) and by up to 40 cycles per packet that arrived during an ACK. Starting the
//!   computation at the decision lets a paced connection's next request wait only for it (18 cycles for
//!   4 KiB, 4 when the NSCC unit reuses its last gap: same size, srtt, cwnd and line rate, as between two
//!   ACKs), not also for the sent report behind it.
//! * ACK (`ptype` 2), as `send::on_ack`: the RTT sample (MR-REL-26); the reordering multiplier (MR-REL-59,
//!   DUP = aflags bit 6); [`AckProc`]'s ACK processing, whose clean words (no ECE, aflags bit 7) make the
//!   entries of the newly covered packets ready for reuse (MR-PATH-3); for a valid ACK: progress resets the
//!   retry counter and the MR-REL-45 flag, a CACK advance re-arms the RTO (`now + rto`, or disarms it with
//!   nothing outstanding, MR-REL-40) and resets the RNR counter; the EV set's freeze span (MR-PATH-18); an ECE
//!   recycles the echoed EV's entry (MR-PATH-2); NSCC `on_ack` (MR-CC-4) and, beside it, a detection run
//!   (rules b and c, MR-REL-36..38; the two touch different state) whose losses recycle their entries, go out
//!   on `m_axis_rtx_*` and then call NSCC `on_loss` once (MR-REL-41: more calls at one instant act as one), and
//!   whose earliest pending deadline is the RACK timer (MR-REL-37); no run is made when the ACK processor's
//!   result says no PSN is below the highest acknowledged one (the run would declare nothing and disarm the
//!   RACK timer, which the engine does itself).
//! * NACK (`ptype` 3): TRIMMED with the echo of the PSN's latest transmission declares it lost (MR-REL-34,
//!   MR-REL-35: a stale one is ignored), recycles its entry and calls NSCC `on_nack_trim`; RNR declares it lost
//!   without a recycle and holds its retransmission until `now + max(aux, 1) µs`, counting consecutive RNRs
//!   (the connection fails beyond `cfg_rnr_retry`). ACCESS, INVALID and UNSUPPORTED go out on `m_axis_err_*`
//!   (see above); NO_CONTEXT is taken and dropped: it concerns the connection layer (the control processor).
//! * Timer (the wheel fires the connection): a due RACK deadline runs detection; a due RTO (MR-REL-39) counts
//!   the expiry (beyond `cfg_retry_limit` the connection fails, MR-REL-55), declares every PSN sent at or before
//!   `now - rto` lost (recycling their entries), sets the MR-REL-45 flag when declared PSNs wait, backs the RTO
//!   off, calls NSCC `on_timeout` (MR-CC-13) and re-arms at `now + rto` while anything is outstanding. The
//!   wheel is armed with the earlier of the two deadlines after every command that changes them; it fires at
//!   most one tick (1.024 µs) late, never early (MR-REL-33).
//! * Gate request: a retransmission is first looked up: a PSN acknowledged meanwhile or no longer declared is
//!   answered with `skip`. Then [`GateUnit`] (window MR-REL-4, cwnd MR-CC-1 with MR-REL-45, pacing MR-CC-2),
//!   the RNR hold for retransmissions, and, when allowed, the EV choice (MR-PATH-3; a retransmission avoids the
//!   entry of its previous transmission, MR-REL-44, MR-PATH-10); an allowed retransmission clears the MR-REL-45
//!   flag. Once `now` has passed the pacing or RNR time, that time is disarmed in the RAM (the pacing time
//!   directly, in the gate's GEv). A new PSN of a connection without a window slot ([`crate::rel::psn_state`]) passes only while a slot is free beyond the
//!   one reserved for an allowed packet not yet reported sent; otherwise it is refused with `retry_at` 0 and
//!   `stat_slot_wait` pulses (the model has no such limit: the one place the decisions can differ).
//!
//! Not implemented: the PROBE packets an RTO expiry sends in the model (MR-REL-31 progress through PROBE
//! ACKs; a retransmission alone recovers here), the READ-response timer, and the reopen after NO_CONTEXT
//! (firmware). Pacing gaps are kept as 32-bit ns (gaps < 2^31 ns); deadlines are ns mod 2^32 (less than 2^31
//! ns ahead: `cfg_rto_max_ns` < 2^31). An RTT sample of exactly 0 ns reaches NSCC as "no sample" (the unit's
//! encoding; the model passes Some(0)). The "declared PSNs wait" test of MR-REL-45 looks at the records (the
//! model's queue may also hold PSNs acknowledged after they were declared).

use crate::cc::gate::GateUnit;
use crate::cc::nscc::{NsccState, NsccUnit, Zx32, EV_ACK, EV_LOSS, EV_PACE, EV_TIMEOUT, EV_TRIM};
use crate::cc::rtt::{RttState, RttUnit};
use crate::common::ram::SdpRam;
use crate::common::reg_slice::RegSlice;
use crate::records::{CtxWrite, PktMeta, RtxReq, TxSent};
use crate::rel::ack_proc::{
    AckProc, AckRes, LaneWord, LossCmd, CAUSE_LOSS, CAUSE_NONE, CAUSE_RTO, CAUSE_TRIM, CMD_DETECT,
    CMD_NACK, CMD_PEEK, CMD_RTO,
};
use crate::rel::path_select::{
    word_bits, PathCmd, PathSelect, OP_CHOOSE, OP_OPEN, OP_RECYCLE_ECE, OP_RECYCLE_LOSS,
    OP_RECYCLE_TRIM, OP_SET_SRTT,
};
use crate::rel::records::{ConnFail, ConnOpen, GateReq, GateResp, UnaUpdate};
use crate::rel::timer_wheel::TimerWheel;
use metaroce_proto::wire::NackCode;
use metaroce_regmap::descriptor::cqe::CqeStatus;
use rust_hdl::prelude::*;

/// `stat_lost_cause`: a NACK TRIMMED (MR-REL-34).
pub const LOST_TRIM: u64 = 0;
/// `stat_lost_cause`: time (RACK, MR-REL-37).
pub const LOST_TIME: u64 = 1;
/// `stat_lost_cause`: reorder distance (MR-REL-38).
pub const LOST_DISTANCE: u64 = 2;
/// `stat_lost_cause`: timeout (MR-REL-39).
pub const LOST_RTO: u64 = 3;
/// `stat_lost_cause`: a NACK RNR (MR-REL-52).
pub const LOST_RNR: u64 = 4;

/// log2 of the retransmission-request FIFO's entries.
pub const RTX_FIFO_LOG: usize = 9;
/// A feedback or timer command starts only while the FIFO holds fewer requests than this, so the up to 256
/// PSNs one command declares (the window) plus a loss word in flight always fit.
pub const RTX_ROOM: u64 = (1 << RTX_FIFO_LOG) - 256 - 8;

/// Cycles a background `on_ack` has run when an ACK may start beside it: the ACK's steps before its own NSCC
/// event (its ACK processor pass among them, about 14 cycles) then end about when NSCC's ~22 cycles do.
pub const BG_NEAR: u64 = 8;

/// EV-set entries per connection in the engine (the model's default `paths`; an open asking for more gets this
/// many). [`PathSelect`] supports up to 64; 16 keeps its per-connection word at 530 bits instead of 1,538 (and
/// the logic around it a quarter of the size).
pub const ENGINE_PATHS: u32 = 16;

/// Records of the engine.
pub mod rec {
    #![allow(missing_docs)]
    use rust_hdl::prelude::*;

    /// The engine's per-connection state: NSCC's [`crate::cc::nscc::NsccState`] fields, the RTT estimator's
    /// [`crate::cc::rtt::RttState`] fields (`r_*`), pacing, the MR-REL-45 flag, the timers and counters.
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
        /// Reordering multiplier (MR-REL-59, 1..=16).
        pub reo_mult: Bits<5>,
        /// Time of its last change, ns.
        pub reo_stamp: Bits<64>,
        /// RTO armed (MR-REL-40).
        pub rto_armed: Bit,
        /// RTO deadline, ns mod 2^32.
        pub rto_at: Bits<32>,
        /// RACK timer armed (MR-REL-37).
        pub rack_armed: Bit,
        /// RACK deadline, ns mod 2^32.
        pub rack_at: Bits<32>,
        /// Consecutive RTO expiries without progress (MR-REL-55).
        pub retries: Bits<8>,
        /// RNR hold armed.
        pub rnr_armed: Bit,
        /// End of the RNR hold, ns mod 2^32.
        pub rnr_until: Bits<32>,
        /// Consecutive RNR NACKs.
        pub rnr_count: Bits<8>,
        /// The connection failed (retry limit): nothing more is sent.
        pub failed: Bit,
    }

    /// The fields of [`EngSt`] in the engine's main RAM: all but NSCC's ([`crate::cc::nscc::NsccState`], a RAM
    /// of their own) and the pacing time ([`PaceSt`], likewise).
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct EngRest {
        pub r_srtt: Bits<24>,
        pub r_var: Bits<24>,
        pub r_has: Bit,
        pub r_bo: Bits<5>,
        pub rto_rtx: Bit,
        pub reo_mult: Bits<5>,
        pub reo_stamp: Bits<64>,
        pub rto_armed: Bit,
        pub rto_at: Bits<32>,
        pub rack_armed: Bit,
        pub rack_at: Bits<32>,
        pub retries: Bits<8>,
        pub rnr_armed: Bit,
        pub rnr_until: Bits<32>,
        pub rnr_count: Bits<8>,
        pub failed: Bit,
    }

    /// The pacing time of [`EngSt`], in a RAM of its own: the pacing instance writes it without a command.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct PaceSt {
        pub pace_armed: Bit,
        pub next_tx: Bits<32>,
    }

    /// The fields of [`crate::rel::ack_proc::ConnSnd`] the gate reads (97 of its 179 bits), copied.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct GateSnd {
        pub una: Bits<32>,
        pub nxt: Bits<32>,
        pub inflight: Bits<32>,
        pub has_slot: Bit,
    }

    /// A 16-bit value zero-extended to 64 bits.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct Zx16w {
        pub lo: Bits<16>,
        pub hi: Bits<48>,
    }

    /// A 9-bit value zero-extended to 32 bits.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct Zx9n {
        pub lo: Bits<9>,
        pub hi: Bits<23>,
    }
}

pub use rec::{EngRest, EngSt, GateSnd, PaceSt, Zx16w, Zx9n};
/// The engine's states (`state`; `nret` and `dret` hold the state a sub-sequence returns to).
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum EngState {
    Idle,
    Open,
    OpenP,
    OpenA,
    SentH,
    SentRd,
    SentQ,
    SentQw,
    SentP,
    AckH,
    AckW,
    Rtt,
    RttW,
    Srtt,
    Ece,
    Nscc,
    Det,
    DetW,
    Nack,
    NackW,
    FireRd,
    FireLd,
    FireQ,
    FireQw,
    FireNext,
    Rto,
    RtoC,
    RtoW,
    RtoT,
    RtoTw,
    Err,
    GRd,
    GPeek,
    GPeekW,
    GEv,
    GDec,
    GCh,
    GChW,
    GOut,
    Arm,
    Wb,
    Gap,
    AckCc,
    AckRt,
    StopRd,
    StopLd,
}

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
    /// A cause for the connection's QP to enter ERROR ([`ConnFail`]): the retry limit (MR-REL-55), the RNR
    /// retry limit (MR-SEM-30), or a fatal NACK (ACCESS, INVALID, UNSUPPORTED; MR-SEM-35) with its MSN.
    pub m_axis_err_tdata: Signal<Out, ConnFail>,
    /// Valid.
    pub m_axis_err_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_err_tready: Signal<In, Bit>,
    /// The connection's QP entered ERROR (the transmit scheduler's decision): its send direction stops as
    /// after the retry limit (`failed`, timers disarmed) until it is opened again.
    pub s_axis_stop_tdata: Signal<In, Bits<16>>,
    /// Valid.
    pub s_axis_stop_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_stop_tready: Signal<Out, Bit>,
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
    /// RTO upper bound, ns (< 2^31: deadlines are kept mod 2^32).
    pub cfg_rto_max_ns: Signal<In, Bits<64>>,
    /// Consecutive timeouts without progress before the connection fails (MR-REL-55).
    pub cfg_retry_limit: Signal<In, Bits<8>>,
    /// Consecutive RNR NACKs before the connection fails.
    pub cfg_rnr_retry: Signal<In, Bits<8>>,
    /// Reordering distance in packets (MR-REL-38; at least 16 is used).
    pub cfg_reorder_distance: Signal<In, Bits<16>>,
    /// A gate request refused by pacing alone whose pacing time is at most this far ahead (ns, < 2^31) is
    /// held instead of answered, and decided again at its pacing time, before any feedback or timer command
    /// (0: never held). The transmit scheduler tries a waiting connection's packet as early
    /// (`cfg_retry_lead_ns`), so a paced connection's packets are decided at their pacing times.
    pub cfg_pace_hold_ns: Signal<In, Bits<32>>,
    /// A new packet was refused because no window slot was free (it waits; see the module docs).
    pub stat_slot_wait: Signal<Out, Bit>,
    /// A new transmission found no window slot and was not recorded (prevented by the gate's reservation).
    pub stat_slot_miss: Signal<Out, Bit>,
    /// An RTO expired (MR-REL-39; one pulse per expiry, the retry limit's count included).
    pub stat_timeout: Signal<Out, Bit>,
    /// A PSN was declared lost and queued for retransmission (one pulse per PSN, the model's `on_lost`).
    pub stat_lost: Signal<Out, Bit>,
    /// Why (`LOST_*`).
    pub stat_lost_cause: Signal<Out, Bits<3>>,
    ackp: AckProc,
    resv: DFF<Bit>,
    resv17: Signal<Local, Bits<17>>,
    spare: DFF<Bit>,
    /// MR-REL-59's tests `now - reo_stamp >= srtt` and `>= 16 srtt`, registered every cycle in two steps
    /// (`since_q`, the time since the stamp of the state loaded in `Rtt`; then the comparisons): `RttW` reads
    /// them as computed in the cycle before, when `srtt_q` already holds its value (`AckW` moves on only once
    /// the estimator's result was registered), so no carry chain follows another and none is chained into the
    /// connection state's update. `now` is that of two cycles before `RttW` (an event's `now` is constant in
    /// the block tests).
    since_q: DFF<Bits<64>>,
    reo_ge: DFF<Bit>,
    reo_ge16: DFF<Bit>,
    slot_ok: Signal<Local, Bit>,
    k_one17: Constant<Bits<17>>,
    k_zero17: Constant<Bits<17>>,
    rtt: RttUnit,
    nscc: NsccUnit,
    /// The pacing instance of NSCC: the gap of a sent packet (MR-CC-14) is computed beside the other commands.
    pacer: NsccUnit,
    /// The pacing computation starts (the pacer's `start`, registered a cycle after the decision to start it,
    /// so that the gate's decision does not run on into the pacer's input registers), and its charged size.
    pace_go: DFF<Bit>,
    pace_ch: DFF<Bits<16>>,
    /// A pacing computation was started and its result is not in the pacing RAM yet.
    pace_busy: DFF<Bit>,
    /// Its result waits for a command boundary to be written.
    pace_res: DFF<Bit>,
    /// Its connection.
    pace_conn: DFF<Bits<16>>,
    /// The time of the transmission it paces (ns mod 2^32).
    pace_t0: DFF<Bits<32>>,
    /// The gap (low 32 bits).
    pace_gap: DFF<Bits<32>>,
    /// The gap is not zero.
    pace_nz: DFF<Bit>,
    /// The pacing computation of the packet the gate allowed last started at the decision, so its sent report
    /// starts none.
    pre_paced: DFF<Bit>,
    /// The pacing computation waits for the background NSCC result of its connection (it starts from that
    /// state when it is known).
    pace_defer: DFF<Bit>,
    /// This cycle's pacer start takes its state from `bg_st`.
    pace_src_bg: DFF<Bit>,
    /// The pacer's view of the state.
    pst_l: Signal<Local, NsccState>,
    /// An ACK's NSCC `on_ack` runs in the background, or its result waits to be written: the ACK (no ECE,
    /// nothing declared lost) ended before it (see the module docs).
    bg_v: DFF<Bit>,
    /// Its result is in `bg_st`.
    bg_done: DFF<Bit>,
    /// Its connection.
    bg_conn: DFF<Bits<16>>,
    /// Its result.
    bg_st: DFF<NsccState>,
    /// The command's connection has a background result pending (registered from `conn`: valid from a
    /// command's second cycle on; `bg_v` changes only in the ACK that starts it and at a command boundary).
    g_bg: DFF<Bit>,
    /// When the gate last let a packet go (ns mod 2^32), and its connection.
    g_t0: DFF<Bits<32>>,
    /// The gate request at the input was first seen (`req_seen_v`) at `req_seen_at` (ns mod 2^32); the
    /// request in `req` arrived at `req_at`.
    req_seen_v: DFF<Bit>,
    req_seen_at: DFF<Bits<32>>,
    req_at: DFF<Bits<32>>,
    /// The time the request in `req` became eligible: the later of its arrival and the connection's pacing
    /// time (taken in `GEv`, before the pacing time is disarmed).
    g_elig: DFF<Bits<32>>,
    /// GEv's `rnr_block` and `pace_near`, read in GDec.
    g_rnr: DFF<Bit>,
    /// (See `g_rnr`.)
    g_near: DFF<Bit>,
    g_conn: DFF<Bits<16>>,
    /// Cycles left for the sent report of the packet the gate just let go to arrive: feedback and timers wait
    /// for it, so the report is not held behind another command (the transmit path
    /// waits for its handshake).
    sent_wait: DFF<Bits<3>>,
    /// A gate request (`req`) is held until its pacing time `held_until` (ns mod 2^32).
    held_v: DFF<Bit>,
    held_until: DFF<Bits<32>>,
    /// The command's NSCC event is done (what `AckCc` waits for; cleared in idle).
    cc_ok: DFF<Bit>,
    /// Its detection run was issued.
    det_iss: DFF<Bit>,
    /// Its detection run is done.
    det_ok: DFF<Bit>,
    /// The run declared losses.
    det_lost: DFF<Bit>,
    gate: GateUnit,
    paths: PathSelect<{ word_bits(ENGINE_PATHS as usize) }>,
    /// The commands to the EV set, registered: the state machine's decisions reach neither the EV set's
    /// handshakes nor, through its clean-beat ready, the ACK processor's scan in the same cycle.
    pcmd_s: RegSlice<PathCmd>,
    /// The commands to the ACK processor, registered likewise.
    acmd_s: RegSlice<LossCmd>,
    wheel: TimerWheel,
    /// The connection's [`EngSt`] in three RAMs, each written on its own: NSCC's fields (`cc_ram`, also by the
    /// background `on_ack`'s result), the pacing time (`pace_ram`, also by the pacing instance's result) and the
    /// rest (`eng_ram`). All three are read at `conn`; `est_l` joins them.
    eng_ram: SdpRam<EngRest, 16>,
    cc_ram: SdpRam<NsccState, 16>,
    pace_ram: SdpRam<PaceSt, 16>,
    /// What a command's write-back writes (`est`; the initial state in `Open`).
    wst: Signal<Local, EngSt>,
    /// The command writes NSCC's fields back (feedback, timers, opens: the commands that may change them; not
    /// the ACK that leaves its `on_ack` to the background). Timers and opens never run while a background
    /// `on_ack` is pending, and an ACK that starts beside one takes its result into the state it loaded when
    /// it is written during the ACK (see `bwin`), or writes before it (the result, written at a later
    /// boundary, then replaces what the ACK wrote).
    cc_wr: DFF<Bit>,
    /// The held gate request was refused while its connection's background `on_ack` was pending: it waits for
    /// the result.
    held_bg: DFF<Bit>,
    /// A command boundary (idle, or the write-back that ends a command): the pacing and background results are
    /// written then, so that no command has read the connection's words before and writes them after.
    bound: Signal<Local, Bit>,
    /// The background result may be written this cycle: at a command boundary, or in an ACK command after its
    /// state was loaded (an ACK may start while the background `on_ack` runs, see `bg_near`).
    bwin: Signal<Local, Bit>,
    /// The background result is written this cycle.
    bg_wr: Signal<Local, Bit>,
    /// Cycles the background `on_ack` has run (saturating), and whether it has run [`BG_NEAR`] cycles: an ACK
    /// may then start, and reaches its own NSCC event (after its ACK processor pass) about when the result is
    /// there.
    bg_cnt: DFF<Bits<5>>,
    bg_near: DFF<Bit>,
    /// The snd_una advances waiting to be taken: the oldest (the output of `m_axis_una_*`) and the next.
    una_r: DFF<UnaUpdate>,
    una_v: DFF<Bit>,
    una_r2: DFF<UnaUpdate>,
    una_v2: DFF<Bit>,
    /// The oldest is taken this cycle.
    una_pop: Signal<Local, Bit>,
    /// The retransmission-request FIFO in front of `m_axis_rtx_*`: RAM, write and read pointers, the read in
    /// flight and the output register.
    rtx_ram: SdpRam<RtxReq, RTX_FIFO_LOG>,
    rtx_wp: DFF<Bits<10>>,
    rtx_rp: DFF<Bits<10>>,
    rtx_rd: DFF<Bit>,
    rtx_o: DFF<RtxReq>,
    rtx_ov: DFF<Bit>,
    rtx_cnt: Signal<Local, Bits<10>>,
    rtx_room: Signal<Local, Bit>,
    lrtx_v: Signal<Local, Bit>,
    k_rtx_full: Constant<Bits<10>>,
    k_rtx_room: Constant<Bits<10>>,
    k_one10: Constant<Bits<10>>,
    k_zero10: Constant<Bits<10>>,
    snd_ram: SdpRam<GateSnd, 16>,
    state: DFF<EngState>,
    conn: DFF<Bits<16>>,
    est: DFF<EngSt>,
    res: DFF<AckRes>,
    req: DFF<GateReq>,
    charged: DFF<Bits<16>>,
    sample: DFF<Bits<32>>,
    ece: DFF<Bit>,
    dup: DFF<Bit>,
    echo_ev: DFF<Bits<14>>,
    started: DFF<Bit>,
    dirty: DFF<Bit>,
    resp_valid: DFF<Bit>,
    resp: DFF<GateResp>,
    open_r: DFF<ConnOpen>,
    srtt_q: DFF<Bits<64>>,
    /// The RTT estimator's state after an ACK's sample, and whether it came.
    rtt_st: DFF<RttState>,
    rtt_ok: DFF<Bit>,
    rto_q: DFF<Bits<32>>,
    reo_q: DFF<Bits<32>>,
    srtt_reo_q: DFF<Bits<32>>,
    rd_q: DFF<Bits<9>>,
    dist_q: DFF<Bits<32>>,
    nk: DFF<Bits<3>>,
    nret: DFF<EngState>,
    dret: DFF<EngState>,
    rto_due: DFF<Bit>,
    rack_due: DFF<Bit>,
    outst: DFF<Bit>,
    peek_path: DFF<Bits<8>>,
    nack_trim: DFF<Bit>,
    nack_aux: DFF<Bits<32>>,
    err_pend: DFF<Bit>,
    /// The cause on offer at `m_axis_err_*`.
    err_rec: DFF<ConnFail>,
    /// The status of a limit the current command found exceeded.
    err_st: DFF<Bits<8>>,
    /// A stop waiting to be applied, and its connection.
    stop_v: DFF<Bit>,
    stop_c: DFF<Bits<16>>,
    /// The feedback on offer is a fatal NACK.
    fatal: Signal<Local, Bit>,
    lbusy: DFF<Bit>,
    lw: DFF<LaneWord>,
    lrem: DFF<Bits<4>>,
    l_rtx_done: DFF<Bit>,
    l_cmd_done: DFF<Bit>,
    est_l: Signal<Local, EngSt>,
    init_l: Signal<Local, EngSt>,
    nst_l: Signal<Local, NsccState>,
    rst_l: Signal<Local, RttState>,
    zx_s: Signal<Local, Zx32>,
    s64: Signal<Local, Bits<64>>,
    zx_b: Signal<Local, Zx32>,
    zx_c: Signal<Local, Zx16w>,
    zx_p: Signal<Local, Zx16w>,
    zx_seed: Signal<Local, Zx32>,
    since: Signal<Local, Bits<32>>,
    now32: Signal<Local, Bits<32>>,
    cmd_l: Signal<Local, LossCmd>,
    cmd_v: Signal<Local, Bit>,
    pcmd_l: Signal<Local, PathCmd>,
    pcmd_v: Signal<Local, Bit>,
    rw0: Signal<Local, Bits<32>>,
    rw1: Signal<Local, Bits<32>>,
    rw2: Signal<Local, Bits<32>>,
    rw3: Signal<Local, Bits<32>>,
    rw4: Signal<Local, Bits<32>>,
    srtt_reo: Signal<Local, Bits<32>>,
    rd_l: Signal<Local, Zx9n>,
    sa1: Signal<Local, Bits<32>>,
    ca1: Signal<Local, Bits<32>>,
    sa2: Signal<Local, Bits<32>>,
    ca2: Signal<Local, Bits<32>>,
    sa3: Signal<Local, Bits<32>>,
    ca3: Signal<Local, Bits<32>>,
    sa4: Signal<Local, Bits<32>>,
    ca4: Signal<Local, Bits<32>>,
    k_sixteen9: Constant<Bits<9>>,
    k_w9: Constant<Bits<9>>,
    k_zero23: Constant<Bits<23>>,
    rd32: Signal<Local, Bits<32>>,
    dw0: Signal<Local, Bits<32>>,
    dw1: Signal<Local, Bits<32>>,
    dw2: Signal<Local, Bits<32>>,
    dw3: Signal<Local, Bits<32>>,
    dw4: Signal<Local, Bits<32>>,
    dist_l: Signal<Local, Bits<32>>,
    since64: Signal<Local, Bits<64>>,
    rnr_ns: Signal<Local, Bits<32>>,
    aux1: Signal<Local, Bits<32>>,
    t_min: Signal<Local, Bits<32>>,
    lk_psn: Signal<Local, Bits<32>>,
    lk_p: Signal<Local, Bits<8>>,
    lk_e: Signal<Local, Bits<14>>,
    lk_bit: Signal<Local, Bits<4>>,
    lk_cause: Signal<Local, Bits<3>>,
    l_rtx_ok: Signal<Local, Bit>,
    l_cmd_ok: Signal<Local, Bit>,
    lost_idle: Signal<Local, Bit>,
    rnr_block: Signal<Local, Bit>,
    pace_near: Signal<Local, Bit>,
    k_code_access: Constant<Bits<8>>,
    k_code_invalid: Constant<Bits<8>>,
    k_code_unsup: Constant<Bits<8>>,
    k_st_raccess: Constant<Bits<8>>,
    k_st_rinvalid: Constant<Bits<8>>,
    k_st_retry: Constant<Bits<8>>,
    k_st_rnr: Constant<Bits<8>>,
    k_ptype_ack: Constant<Bits<4>>,
    k_ptype_nack: Constant<Bits<4>>,
    k_code_trim: Constant<Bits<8>>,
    k_code_rnr: Constant<Bits<8>>,
    k_ev_ack: Constant<Bits<3>>,
    k_ev_pace: Constant<Bits<3>>,
    k_ev_loss: Constant<Bits<3>>,
    k_ev_trim: Constant<Bits<3>>,
    k_ev_timeout: Constant<Bits<3>>,
    k_cmd_detect: Constant<Bits<2>>,
    k_cmd_rto: Constant<Bits<2>>,
    k_cmd_peek: Constant<Bits<2>>,
    k_cmd_nack: Constant<Bits<2>>,
    k_op_open: Constant<Bits<3>>,
    k_op_choose: Constant<Bits<3>>,
    k_op_ece: Constant<Bits<3>>,
    k_op_trim: Constant<Bits<3>>,
    k_op_loss: Constant<Bits<3>>,
    k_op_srtt: Constant<Bits<3>>,
    k_cause_none: Constant<Bits<2>>,
    k_cause_trim: Constant<Bits<2>>,
    k_cause_rto: Constant<Bits<2>>,
    k_cause_loss: Constant<Bits<2>>,
    k_lost_trim: Constant<Bits<3>>,
    k_lost_time: Constant<Bits<3>>,
    k_lost_distance: Constant<Bits<3>>,
    k_lost_rto: Constant<Bits<3>>,
    k_lost_rnr: Constant<Bits<3>>,
    k_zero4: Constant<Bits<4>>,
    k_b0: Constant<Bits<4>>,
    k_b1: Constant<Bits<4>>,
    k_b2: Constant<Bits<4>>,
    k_b3: Constant<Bits<4>>,
    k_zero8: Constant<Bits<8>>,
    k_one8: Constant<Bits<8>>,
    k_max8: Constant<Bits<8>>,
    k_zero16: Constant<Bits<16>>,
    k_sixteen16: Constant<Bits<16>>,
    k_zero32: Constant<Bits<32>>,
    k_one32: Constant<Bits<32>>,
    k_w32: Constant<Bits<32>>,
    k_half: Constant<Bits<32>>,
    k_zero48: Constant<Bits<48>>,
    k_zero64: Constant<Bits<64>>,
    k_one5: Constant<Bits<5>>,
    k_one3: Constant<Bits<3>>,
    k_seven3: Constant<Bits<3>>,
    k_zero3: Constant<Bits<3>>,
    k_sixteen5: Constant<Bits<5>>,
    k_p2: Constant<Bits<32>>,
    k_p3: Constant<Bits<32>>,
}

impl SenderEngine {
    /// A sender engine for `1 << conn_bits` connections (1..=16), `1 << slot_bits` window slots (at most
    /// `conn_bits`), EV sets of up to [`ENGINE_PATHS`] entries and a timer wheel of 1024 slots.
    pub fn new(conn_bits: u32, slot_bits: u32) -> Self {
        assert!((1..=16).contains(&conn_bits) && (1..=conn_bits).contains(&slot_bits));
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
            s_axis_stop_tdata: Default::default(),
            s_axis_stop_tvalid: Default::default(),
            s_axis_stop_tready: Default::default(),
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
            cfg_rnr_retry: Default::default(),
            cfg_reorder_distance: Default::default(),
            cfg_pace_hold_ns: Default::default(),
            stat_slot_wait: Default::default(),
            stat_slot_miss: Default::default(),
            stat_timeout: Default::default(),
            stat_lost: Default::default(),
            stat_lost_cause: Default::default(),
            ackp: AckProc::new(conn_bits, slot_bits),
            resv: Default::default(),
            resv17: Default::default(),
            spare: Default::default(),
            since_q: Default::default(),
            reo_ge: Default::default(),
            reo_ge16: Default::default(),
            slot_ok: Default::default(),
            k_one17: Constant::new(1u64.to_bits()),
            k_zero17: Constant::new(0u64.to_bits()),
            rtt: Default::default(),
            nscc: Default::default(),
            pacer: Default::default(),
            pace_busy: Default::default(),
            pace_res: Default::default(),
            pace_conn: Default::default(),
            pace_t0: Default::default(),
            pace_go: Default::default(),
            pace_ch: Default::default(),
            pace_gap: Default::default(),
            pace_nz: Default::default(),
            pre_paced: Default::default(),
            pace_defer: Default::default(),
            pace_src_bg: Default::default(),
            pst_l: Default::default(),
            bg_v: Default::default(),
            bg_done: Default::default(),
            bg_conn: Default::default(),
            bg_st: Default::default(),
            g_bg: Default::default(),
            g_t0: Default::default(),
            req_seen_v: Default::default(),
            req_seen_at: Default::default(),
            req_at: Default::default(),
            g_elig: Default::default(),
            g_rnr: Default::default(),
            g_near: Default::default(),
            g_conn: Default::default(),
            sent_wait: Default::default(),
            held_v: Default::default(),
            held_until: Default::default(),
            cc_ok: Default::default(),
            det_iss: Default::default(),
            det_ok: Default::default(),
            det_lost: Default::default(),
            gate: Default::default(),
            paths: PathSelect::new(conn_bits),
            pcmd_s: Default::default(),
            acmd_s: Default::default(),
            wheel: TimerWheel::new(conn_bits, 10),
            eng_ram: SdpRam::new(1 << conn_bits),
            cc_ram: SdpRam::new(1 << conn_bits),
            pace_ram: SdpRam::new(1 << conn_bits),
            wst: Default::default(),
            cc_wr: Default::default(),
            held_bg: Default::default(),
            bound: Default::default(),
            bwin: Default::default(),
            bg_wr: Default::default(),
            bg_cnt: Default::default(),
            bg_near: Default::default(),
            una_r: Default::default(),
            una_v: Default::default(),
            una_r2: Default::default(),
            una_v2: Default::default(),
            una_pop: Default::default(),
            rtx_ram: SdpRam::new(1 << RTX_FIFO_LOG),
            rtx_wp: Default::default(),
            rtx_rp: Default::default(),
            rtx_rd: Default::default(),
            rtx_o: Default::default(),
            rtx_ov: Default::default(),
            rtx_cnt: Default::default(),
            rtx_room: Default::default(),
            lrtx_v: Default::default(),
            k_rtx_full: Constant::new((1u64 << RTX_FIFO_LOG).to_bits()),
            k_rtx_room: Constant::new(RTX_ROOM.to_bits()),
            k_one10: Constant::new(1u64.to_bits()),
            k_zero10: Constant::new(0u64.to_bits()),
            snd_ram: SdpRam::new(1 << conn_bits),
            state: Default::default(),
            conn: Default::default(),
            est: Default::default(),
            res: Default::default(),
            req: Default::default(),
            charged: Default::default(),
            sample: Default::default(),
            ece: Default::default(),
            dup: Default::default(),
            echo_ev: Default::default(),
            started: Default::default(),
            dirty: Default::default(),
            resp_valid: Default::default(),
            resp: Default::default(),
            open_r: Default::default(),
            srtt_q: Default::default(),
            rtt_st: Default::default(),
            rtt_ok: Default::default(),
            rto_q: Default::default(),
            reo_q: Default::default(),
            srtt_reo_q: Default::default(),
            rd_q: Default::default(),
            dist_q: Default::default(),
            nk: Default::default(),
            nret: Default::default(),
            dret: Default::default(),
            rto_due: Default::default(),
            rack_due: Default::default(),
            outst: Default::default(),
            peek_path: Default::default(),
            nack_trim: Default::default(),
            nack_aux: Default::default(),
            err_pend: Default::default(),
            err_rec: Default::default(),
            err_st: Default::default(),
            stop_v: Default::default(),
            stop_c: Default::default(),
            fatal: Default::default(),
            lbusy: Default::default(),
            lw: Default::default(),
            lrem: Default::default(),
            l_rtx_done: Default::default(),
            l_cmd_done: Default::default(),
            est_l: Default::default(),
            init_l: Default::default(),
            nst_l: Default::default(),
            rst_l: Default::default(),
            zx_s: Default::default(),
            s64: Default::default(),
            zx_b: Default::default(),
            zx_c: Default::default(),
            zx_p: Default::default(),
            zx_seed: Default::default(),
            since: Default::default(),
            now32: Default::default(),
            cmd_l: Default::default(),
            cmd_v: Default::default(),
            pcmd_l: Default::default(),
            pcmd_v: Default::default(),
            rw0: Default::default(),
            rw1: Default::default(),
            rw2: Default::default(),
            rw3: Default::default(),
            rw4: Default::default(),
            srtt_reo: Default::default(),
            rd_l: Default::default(),
            sa1: Default::default(),
            ca1: Default::default(),
            sa2: Default::default(),
            ca2: Default::default(),
            sa3: Default::default(),
            ca3: Default::default(),
            sa4: Default::default(),
            ca4: Default::default(),
            k_sixteen9: Constant::new((16u64).to_bits()),
            k_w9: Constant::new((256u64).to_bits()),
            k_zero23: Constant::new(0u64.to_bits()),
            rd32: Default::default(),
            dw0: Default::default(),
            dw1: Default::default(),
            dw2: Default::default(),
            dw3: Default::default(),
            dw4: Default::default(),
            dist_l: Default::default(),
            since64: Default::default(),
            rnr_ns: Default::default(),
            aux1: Default::default(),
            t_min: Default::default(),
            lk_psn: Default::default(),
            lk_p: Default::default(),
            lk_e: Default::default(),
            lk_bit: Default::default(),
            lk_cause: Default::default(),
            l_rtx_ok: Default::default(),
            l_cmd_ok: Default::default(),
            lost_idle: Default::default(),
            rnr_block: Default::default(),
            pace_near: Default::default(),
            k_code_access: Constant::new((NackCode::Access as u64).to_bits()),
            k_code_invalid: Constant::new((NackCode::Invalid as u64).to_bits()),
            k_code_unsup: Constant::new((NackCode::Unsupported as u64).to_bits()),
            k_st_raccess: Constant::new((CqeStatus::RemoteAccess as u64).to_bits()),
            k_st_rinvalid: Constant::new((CqeStatus::RemoteInvalidRequest as u64).to_bits()),
            k_st_retry: Constant::new((CqeStatus::RetryExceeded as u64).to_bits()),
            k_st_rnr: Constant::new((CqeStatus::RnrRetryExceeded as u64).to_bits()),
            k_ptype_ack: Constant::new((2u64).to_bits()),
            k_ptype_nack: Constant::new((3u64).to_bits()),
            k_code_trim: Constant::new((1u64).to_bits()),
            k_code_rnr: Constant::new((3u64).to_bits()),
            k_ev_ack: Constant::new((EV_ACK).to_bits()),
            k_ev_pace: Constant::new((EV_PACE).to_bits()),
            k_ev_loss: Constant::new((EV_LOSS).to_bits()),
            k_ev_trim: Constant::new((EV_TRIM).to_bits()),
            k_ev_timeout: Constant::new((EV_TIMEOUT).to_bits()),
            k_cmd_detect: Constant::new((CMD_DETECT).to_bits()),
            k_cmd_rto: Constant::new((CMD_RTO).to_bits()),
            k_cmd_peek: Constant::new((CMD_PEEK).to_bits()),
            k_cmd_nack: Constant::new((CMD_NACK).to_bits()),
            k_op_open: Constant::new((OP_OPEN).to_bits()),
            k_op_choose: Constant::new((OP_CHOOSE).to_bits()),
            k_op_ece: Constant::new((OP_RECYCLE_ECE).to_bits()),
            k_op_trim: Constant::new((OP_RECYCLE_TRIM).to_bits()),
            k_op_loss: Constant::new((OP_RECYCLE_LOSS).to_bits()),
            k_op_srtt: Constant::new((OP_SET_SRTT).to_bits()),
            k_cause_none: Constant::new((CAUSE_NONE).to_bits()),
            k_cause_trim: Constant::new((CAUSE_TRIM).to_bits()),
            k_cause_rto: Constant::new((CAUSE_RTO).to_bits()),
            k_cause_loss: Constant::new((CAUSE_LOSS).to_bits()),
            k_lost_trim: Constant::new(LOST_TRIM.to_bits()),
            k_lost_time: Constant::new(LOST_TIME.to_bits()),
            k_lost_distance: Constant::new(LOST_DISTANCE.to_bits()),
            k_lost_rto: Constant::new(LOST_RTO.to_bits()),
            k_lost_rnr: Constant::new(LOST_RNR.to_bits()),
            k_zero4: Constant::new((0u64).to_bits()),
            k_b0: Constant::new((1u64).to_bits()),
            k_b1: Constant::new((2u64).to_bits()),
            k_b2: Constant::new((4u64).to_bits()),
            k_b3: Constant::new((8u64).to_bits()),
            k_zero8: Constant::new((0u64).to_bits()),
            k_one8: Constant::new((1u64).to_bits()),
            k_max8: Constant::new((255u64).to_bits()),
            k_zero16: Constant::new((0u64).to_bits()),
            k_sixteen16: Constant::new((16u64).to_bits()),
            k_zero32: Constant::new((0u64).to_bits()),
            k_one32: Constant::new((1u64).to_bits()),
            k_w32: Constant::new((256u64).to_bits()),
            k_half: Constant::new((0x8000_0000u64).to_bits()),
            k_zero48: Constant::new((0u64).to_bits()),
            k_zero64: Constant::new((0u64).to_bits()),
            k_one5: Constant::new((1u64).to_bits()),
            k_one3: Constant::new((1u64).to_bits()),
            k_seven3: Constant::new((7u64).to_bits()),
            k_zero3: Constant::new((0u64).to_bits()),
            k_sixteen5: Constant::new((16u64).to_bits()),
            k_p2: Constant::new((2u64).to_bits()),
            k_p3: Constant::new((3u64).to_bits()),
        }
    }
}

// A state's condition stays an `if` inside its arm: rust-hdl's `match` takes no guards.
#[allow(clippy::collapsible_match)]
impl Logic for SenderEngine {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, state, conn, est, res, req, charged, sample, ece, dup, echo_ev, started,
            dirty, resp_valid, resp, open_r, srtt_q, rto_q, reo_q, srtt_reo_q, rd_q, dist_q, nk,
            nret, dret, rto_due, rack_due, outst, peek_path, nack_trim, nack_aux, err_pend,
            err_rec, err_st, stop_v, stop_c, lbusy, lw, lrem, l_rtx_done, l_cmd_done, resv, una_r,
            una_v, rtx_wp, rtx_rp, rtx_rd, rtx_o, rtx_ov, pace_busy, pace_res, pace_conn, pace_t0,
            pace_gap, pace_nz, pre_paced, pace_go, pace_ch, cc_ok, det_iss, det_ok, det_lost, g_t0,
            g_conn, sent_wait, held_v, held_until, rtt_st, rtt_ok
        );
        dff_setup!(
            self,
            clk,
            req_seen_v,
            req_seen_at,
            req_at,
            g_elig,
            g_rnr,
            g_near,
            spare,
            since_q,
            reo_ge,
            reo_ge16,
            pace_defer,
            pace_src_bg,
            bg_v,
            bg_done,
            bg_conn,
            bg_st,
            g_bg,
            cc_wr,
            held_bg,
            bg_cnt,
            bg_near,
            una_r2,
            una_v2
        );
        self.rtx_ram.clk.next = self.clk.val();
        self.ackp.clk.next = self.clk.val();
        self.rtt.clk.next = self.clk.val();
        self.nscc.clk.next = self.clk.val();
        self.pacer.clk.next = self.clk.val();
        self.gate.clk.next = self.clk.val();
        self.paths.clk.next = self.clk.val();
        self.pcmd_s.clk.next = self.clk.val();
        self.acmd_s.clk.next = self.clk.val();
        self.wheel.clk.next = self.clk.val();
        self.eng_ram.clk.next = self.clk.val();
        self.cc_ram.clk.next = self.clk.val();
        self.pace_ram.clk.next = self.clk.val();
        self.snd_ram.clk.next = self.clk.val();
        self.ackp.rst.next = self.rst.val();
        self.rtt.rst.next = self.rst.val();
        self.nscc.rst.next = self.rst.val();
        self.pacer.rst.next = self.rst.val();
        self.gate.rst.next = self.rst.val();
        self.paths.rst.next = self.rst.val();
        self.pcmd_s.rst.next = self.rst.val();
        self.acmd_s.rst.next = self.rst.val();
        self.wheel.rst.next = self.rst.val();
        self.paths.now.next = self.now.val();
        self.wheel.now.next = self.now.val();
        self.now32.next = self.now.val().get_bits::<32>(0);
        // The gate's copy of the fields of AckProc's connection words it reads.
        self.snd_ram.wr_en.next = self.ackp.st_wr_en.val();
        self.snd_ram.wr_addr.next = self.ackp.st_wr_conn.val();
        self.snd_ram.wr_data.next.una = self.ackp.st_wr.val().una;
        self.snd_ram.wr_data.next.nxt = self.ackp.st_wr.val().nxt;
        self.snd_ram.wr_data.next.inflight = self.ackp.st_wr.val().inflight;
        self.snd_ram.wr_data.next.has_slot = self.ackp.st_wr.val().has_slot;
        self.snd_ram.rd_addr.next = self.conn.q.val();
        // Window slots: a new packet of a connection without one passes only while a slot is free beyond the
        // one reserved for an allowed packet not yet reported sent (the transmit scheduler has at most one).
        self.resv17.next = self.k_zero17.val();
        if self.resv.q.val() {
            self.resv17.next = self.k_one17.val();
        }
        // (The count's test is registered. It lags by a cycle: a slot taken clears the reservation in the
        // same cycle, which leaves the test's result as it was; a slot released shows a cycle late, which only
        // delays a request; and a reservation is made in `GDec`, at least three cycles before the next one.)
        self.spare.d.next = self.ackp.free_slots.val() > self.resv17.val();
        self.slot_ok.next = self.snd_ram.rd_data.val().has_slot || self.spare.q.val();
        if self.ackp.slot_alloc.val() {
            self.resv.d.next = false;
        }
        self.stat_slot_wait.next = false;
        self.stat_slot_miss.next = self.ackp.slot_miss.val();
        self.stat_timeout.next = self.state.q.val() == EngState::Rto;
        self.eng_ram.rd_addr.next = self.conn.q.val();
        self.eng_ram.wr_addr.next = self.conn.q.val();
        self.eng_ram.wr_en.next = false;
        self.cc_ram.rd_addr.next = self.conn.q.val();
        self.cc_ram.wr_addr.next = self.conn.q.val();
        self.cc_ram.wr_en.next = false;
        self.pace_ram.rd_addr.next = self.conn.q.val();
        self.pace_ram.wr_addr.next = self.conn.q.val();
        self.pace_ram.wr_en.next = false;
        // Initial state of an opened connection (MR-CC-7: cwnd = bdp; MR-REL-59: reo_mult = 1).
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
        self.init_l.next.reo_mult = self.k_one5.val();
        self.init_l.next.reo_stamp = self.k_zero64.val();
        self.init_l.next.rto_armed = false;
        self.init_l.next.rto_at = self.k_zero32.val();
        self.init_l.next.rack_armed = false;
        self.init_l.next.rack_at = self.k_zero32.val();
        self.init_l.next.retries = self.k_zero8.val();
        self.init_l.next.rnr_armed = false;
        self.init_l.next.rnr_until = self.k_zero32.val();
        self.init_l.next.rnr_count = self.k_zero8.val();
        self.init_l.next.failed = false;
        // The write-back's words: the command's state (the initial one in Open; the pacing time is written only
        // there, by the gate's disarm and by the pacing instance).
        self.wst.next = self.est.q.val();
        if self.state.q.val() == EngState::Open {
            self.wst.next = self.init_l.val();
        }
        self.eng_ram.wr_data.next.r_srtt = self.wst.val().r_srtt;
        self.eng_ram.wr_data.next.r_var = self.wst.val().r_var;
        self.eng_ram.wr_data.next.r_has = self.wst.val().r_has;
        self.eng_ram.wr_data.next.r_bo = self.wst.val().r_bo;
        self.eng_ram.wr_data.next.rto_rtx = self.wst.val().rto_rtx;
        self.eng_ram.wr_data.next.reo_mult = self.wst.val().reo_mult;
        self.eng_ram.wr_data.next.reo_stamp = self.wst.val().reo_stamp;
        self.eng_ram.wr_data.next.rto_armed = self.wst.val().rto_armed;
        self.eng_ram.wr_data.next.rto_at = self.wst.val().rto_at;
        self.eng_ram.wr_data.next.rack_armed = self.wst.val().rack_armed;
        self.eng_ram.wr_data.next.rack_at = self.wst.val().rack_at;
        self.eng_ram.wr_data.next.retries = self.wst.val().retries;
        self.eng_ram.wr_data.next.rnr_armed = self.wst.val().rnr_armed;
        self.eng_ram.wr_data.next.rnr_until = self.wst.val().rnr_until;
        self.eng_ram.wr_data.next.rnr_count = self.wst.val().rnr_count;
        self.eng_ram.wr_data.next.failed = self.wst.val().failed;
        self.cc_ram.wr_data.next.cwnd = self.wst.val().cwnd;
        self.cc_ram.wr_data.next.srtt = self.wst.val().srtt;
        self.cc_ram.wr_data.next.min_rtt = self.wst.val().min_rtt;
        self.cc_ram.wr_data.next.last_d = self.wst.val().last_d;
        self.cc_ram.wr_data.next.min_stamp = self.wst.val().min_stamp;
        self.cc_ram.wr_data.next.last_md = self.wst.val().last_md;
        self.cc_ram.wr_data.next.md_valid = self.wst.val().md_valid;
        self.pace_ram.wr_data.next.pace_armed = self.wst.val().pace_armed;
        self.pace_ram.wr_data.next.next_tx = self.wst.val().next_tx;
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
        self.zx_p.next.lo = self.pace_ch.q.val();
        self.zx_p.next.hi = self.k_zero48.val();
        self.zx_seed.next.lo = self.open_r.q.val().seed;
        self.zx_seed.next.hi = self.k_zero32.val();
        // Detection parameters: srtt + reo_mult * reo_wnd (MR-REL-36) and
        // min(reo_mult * max(reorder_distance, 16), 256) (MR-REL-38), by shifts and adds.
        self.rw0.next = self.k_zero32.val();
        self.rw1.next = self.k_zero32.val();
        self.rw2.next = self.k_zero32.val();
        self.rw3.next = self.k_zero32.val();
        self.rw4.next = self.k_zero32.val();
        // min(max(reorder_distance, 16), 256), registered (a configuration write takes effect a cycle later):
        // with reo_mult >= 1 a distance of 256 or more gives 256 either way, so the product is 13 bits wide.
        self.rd_q.d.next = self.cfg_reorder_distance.val().get_bits::<9>(0);
        if self.cfg_reorder_distance.val() < self.k_sixteen16.val() {
            self.rd_q.d.next = self.k_sixteen9.val();
        }
        if self.cfg_reorder_distance.val().get_bits::<8>(8) != self.k_zero8.val() {
            self.rd_q.d.next = self.k_w9.val();
        }
        self.rd_l.next.lo = self.rd_q.q.val();
        self.rd_l.next.hi = self.k_zero23.val();
        self.rd32.next = self.rd_l.val().into();
        self.dw0.next = self.k_zero32.val();
        self.dw1.next = self.k_zero32.val();
        self.dw2.next = self.k_zero32.val();
        self.dw3.next = self.k_zero32.val();
        self.dw4.next = self.k_zero32.val();
        if self.est.q.val().reo_mult.get_bit(0) {
            self.rw0.next = self.reo_q.q.val();
            self.dw0.next = self.rd32.val();
        }
        if self.est.q.val().reo_mult.get_bit(1) {
            self.rw1.next = self.reo_q.q.val() << 1;
            self.dw1.next = self.rd32.val() << 1;
        }
        if self.est.q.val().reo_mult.get_bit(2) {
            self.rw2.next = self.reo_q.q.val() << 2;
            self.dw2.next = self.rd32.val() << 2;
        }
        if self.est.q.val().reo_mult.get_bit(3) {
            self.rw3.next = self.reo_q.q.val() << 3;
            self.dw3.next = self.rd32.val() << 3;
        }
        if self.est.q.val().reo_mult.get_bit(4) {
            self.rw4.next = self.reo_q.q.val() << 4;
            self.dw4.next = self.rd32.val() << 4;
        }
        // srtt + the five partial products in carry-save form (3:2 compressors, three levels of LUTs), then
        // one carry chain.
        self.sa1.next = self.srtt_q.q.val().get_bits::<32>(0) ^ self.rw0.val() ^ self.rw1.val();
        self.ca1.next = ((self.srtt_q.q.val().get_bits::<32>(0) & self.rw0.val())
            | (self.srtt_q.q.val().get_bits::<32>(0) & self.rw1.val())
            | (self.rw0.val() & self.rw1.val()))
            << 1;
        self.sa2.next = self.rw2.val() ^ self.rw3.val() ^ self.rw4.val();
        self.ca2.next = ((self.rw2.val() & self.rw3.val())
            | (self.rw2.val() & self.rw4.val())
            | (self.rw3.val() & self.rw4.val()))
            << 1;
        self.sa3.next = self.sa1.val() ^ self.ca1.val() ^ self.sa2.val();
        self.ca3.next = ((self.sa1.val() & self.ca1.val())
            | (self.sa1.val() & self.sa2.val())
            | (self.ca1.val() & self.sa2.val()))
            << 1;
        self.sa4.next = self.sa3.val() ^ self.ca3.val() ^ self.ca2.val();
        self.ca4.next = ((self.sa3.val() & self.ca3.val())
            | (self.sa3.val() & self.ca2.val())
            | (self.ca3.val() & self.ca2.val()))
            << 1;
        self.srtt_reo.next = self.sa4.val() + self.ca4.val();
        self.dist_l.next = ((self.dw0.val() + self.dw1.val()) + (self.dw2.val() + self.dw3.val()))
            + self.dw4.val();
        if self.dist_l.val() > self.k_w32.val() {
            self.dist_l.next = self.k_w32.val();
        }
        // Both registered every cycle: a DETECT command (AckCc, Det) is issued at least a cycle after their
        // inputs last changed (srtt and reo_wnd in AckW or FireQw, reo_mult in RttW, then Srtt or FireNext),
        // so the registers hold the values of its connection.
        self.srtt_reo_q.d.next = self.srtt_reo.val();
        self.dist_q.d.next = self.dist_l.val();
        self.since64.next = self.now.val() - self.est.q.val().reo_stamp;
        self.since_q.d.next = self.since64.val();
        self.reo_ge.d.next = self.since_q.q.val() >= self.srtt_q.q.val();
        self.reo_ge16.d.next = self.since_q.q.val() >= (self.srtt_q.q.val() << 4);
        // RNR hold: max(aux, 1) * 1000 ns (mod 2^32).
        self.aux1.next = self.nack_aux.q.val();
        if self.nack_aux.q.val() == self.k_zero32.val() {
            self.aux1.next = self.k_one32.val();
        }
        self.rnr_ns.next =
            (self.aux1.val() << 10) - (self.aux1.val() << 4) - (self.aux1.val() << 3);
        // The wheel's deadline: the earlier armed one.
        self.t_min.next = self.est.q.val().rto_at;
        if self.est.q.val().rack_armed
            && (!self.est.q.val().rto_armed
                || (self.est.q.val().rack_at - self.est.q.val().rto_at) >= self.k_half.val())
        {
            self.t_min.next = self.est.q.val().rack_at;
        }
        // AckProc: streams pass through in the command's state.
        self.ackp.s_axis_open_tdata.next = self.s_axis_open_tdata.val();
        self.ackp.s_axis_open_tvalid.next = false;
        self.ackp.s_axis_sent_tdata.next = self.s_axis_sent_tdata.val();
        self.ackp.s_axis_sent_tvalid.next = false;
        self.ackp.s_axis_ack_tdata.next = self.s_axis_fb_tdata.val();
        self.ackp.s_axis_ack_tvalid.next = false;
        self.ackp.m_axis_res_tready.next = false;
        self.ackp.m_axis_cres_tready.next = false;
        // snd_una advances leave through a two-entry queue that never blocks a command: feedback starts only
        // while its second entry is free (see the idle arbitration), and every earlier command's advance is in
        // the queue by then, so the ACK processor's one advance always fits. (The transmit scheduler takes them
        // between its packets; with one register, each ACK waited for the one before to be taken.)
        self.m_axis_una_tdata.next = self.una_r.q.val();
        self.m_axis_una_tvalid.next = self.una_v.q.val();
        self.ackp.m_axis_una_tready.next = !self.una_v2.q.val();
        self.una_pop.next = self.m_axis_una_tready.val() && self.una_v.q.val();
        if self.una_pop.val() {
            self.una_r.d.next = self.una_r2.q.val();
            self.una_v.d.next = self.una_v2.q.val();
            self.una_v2.d.next = false;
        }
        if self.ackp.m_axis_una_tvalid.val() && !self.una_v2.q.val() {
            if self.una_pop.val() || !self.una_v.q.val() {
                self.una_r.d.next = self.ackp.m_axis_una_tdata.val();
                self.una_v.d.next = true;
            } else {
                self.una_r2.d.next = self.ackp.m_axis_una_tdata.val();
                self.una_v2.d.next = true;
            }
        }
        // AckProc commands.
        self.cmd_v.next = false;
        self.cmd_l.next.conn = self.conn.q.val();
        self.cmd_l.next.op = self.k_cmd_detect.val();
        self.cmd_l.next.psn = self.req.q.val().psn;
        self.cmd_l.next.echo_ts = self.s_axis_fb_tdata.val().echo_ts;
        self.cmd_l.next.trim = self.s_axis_fb_tdata.val().code == self.k_code_trim.val();
        self.cmd_l.next.now32 = self.now32.val();
        self.cmd_l.next.srtt_reo = self.srtt_reo_q.q.val();
        self.cmd_l.next.distance = self.dist_q.q.val();
        self.cmd_l.next.rto = self.rto_q.q.val();
        // EV-set commands (from the main sequence, or the loss handler below).
        self.pcmd_v.next = false;
        self.pcmd_l.next.conn = self.conn.q.val();
        self.pcmd_l.next.op = self.k_op_srtt.val();
        self.pcmd_l.next.idx = self.peek_path.q.val();
        self.pcmd_l.next.ev = self.echo_ev.q.val();
        self.pcmd_l.next.avoid = self.req.q.val().rtx;
        self.pcmd_l.next.n = self.open_r.q.val().paths;
        self.pcmd_l.next.seed = self.zx_seed.val().into();
        self.pcmd_l.next.srtt = self.srtt_q.q.val().get_bits::<32>(0);
        // Clean words go straight to the EV set (MR-PATH-3).
        self.paths.s_axis_clean_tdata.next.conn = self.ackp.m_axis_clean_tdata.val().conn;
        self.paths.s_axis_clean_tdata.next.mask = self.ackp.m_axis_clean_tdata.val().mask;
        self.paths.s_axis_clean_tdata.next.idx0 = self.ackp.m_axis_clean_tdata.val().p0;
        self.paths.s_axis_clean_tdata.next.idx1 = self.ackp.m_axis_clean_tdata.val().p1;
        self.paths.s_axis_clean_tdata.next.idx2 = self.ackp.m_axis_clean_tdata.val().p2;
        self.paths.s_axis_clean_tdata.next.idx3 = self.ackp.m_axis_clean_tdata.val().p3;
        self.paths.s_axis_clean_tdata.next.ev0 = self.ackp.m_axis_clean_tdata.val().e0;
        self.paths.s_axis_clean_tdata.next.ev1 = self.ackp.m_axis_clean_tdata.val().e1;
        self.paths.s_axis_clean_tdata.next.ev2 = self.ackp.m_axis_clean_tdata.val().e2;
        self.paths.s_axis_clean_tdata.next.ev3 = self.ackp.m_axis_clean_tdata.val().e3;
        self.paths.s_axis_clean_tvalid.next = self.ackp.m_axis_clean_tvalid.val();
        self.ackp.m_axis_clean_tready.next = self.paths.s_axis_clean_tready.val();
        self.paths.m_axis_res_tready.next = false;
        // Timer wheel.
        self.wheel.s_axis_arm_tvalid.next = false;
        self.wheel.s_axis_arm_tdata.next.conn = self.conn.q.val();
        self.wheel.s_axis_arm_tdata.next.at = self.t_min.val();
        self.wheel.s_axis_arm_tdata.next.en =
            self.est.q.val().rto_armed || self.est.q.val().rack_armed;
        self.wheel.m_axis_fire_tready.next = false;
        // Loss handler: every declared PSN goes out on m_axis_rtx_* and (trim, loss) recycles its entry
        // (MR-PATH-2), lowest lane first.
        self.lk_bit.next = self.k_b3.val();
        self.lk_p.next = self.lw.q.val().p3;
        self.lk_e.next = self.lw.q.val().e3;
        self.lk_psn.next = self.lw.q.val().psn + self.k_p3.val();
        if self.lrem.q.val().get_bit(2) {
            self.lk_bit.next = self.k_b2.val();
            self.lk_p.next = self.lw.q.val().p2;
            self.lk_e.next = self.lw.q.val().e2;
            self.lk_psn.next = self.lw.q.val().psn + self.k_p2.val();
        }
        if self.lrem.q.val().get_bit(1) {
            self.lk_bit.next = self.k_b1.val();
            self.lk_p.next = self.lw.q.val().p1;
            self.lk_e.next = self.lw.q.val().e1;
            self.lk_psn.next = self.lw.q.val().psn + self.k_one32.val();
        }
        if self.lrem.q.val().get_bit(0) {
            self.lk_bit.next = self.k_b0.val();
            self.lk_p.next = self.lw.q.val().p0;
            self.lk_e.next = self.lw.q.val().e0;
            self.lk_psn.next = self.lw.q.val().psn;
        }
        // Why the lane's PSN was declared (the model's LossCause).
        self.lk_cause.next = self.k_lost_rnr.val();
        if self.lw.q.val().cause == self.k_cause_trim.val() {
            self.lk_cause.next = self.k_lost_trim.val();
        }
        if self.lw.q.val().cause == self.k_cause_rto.val() {
            self.lk_cause.next = self.k_lost_rto.val();
        }
        if self.lw.q.val().cause == self.k_cause_loss.val() {
            self.lk_cause.next = self.k_lost_time.val();
            if (self.lw.q.val().far & self.lk_bit.val()).any() {
                self.lk_cause.next = self.k_lost_distance.val();
            }
        }
        // Declared PSNs go into the retransmission FIFO (never full at a command's start: see `rtx_room`),
        // which feeds m_axis_rtx_* through a registered read and an output register.
        self.rtx_cnt.next = self.rtx_wp.q.val() - self.rtx_rp.q.val();
        self.rtx_room.next = self.rtx_cnt.val() < self.k_rtx_room.val();
        self.lrtx_v.next = self.lbusy.q.val() && !self.l_rtx_done.q.val();
        self.rtx_ram.wr_addr.next = self.rtx_wp.q.val().get_bits::<RTX_FIFO_LOG>(0);
        self.rtx_ram.wr_data.next.conn = self.lw.q.val().conn;
        self.rtx_ram.wr_data.next.psn = self.lk_psn.val();
        self.rtx_ram.wr_en.next = false;
        self.stat_lost.next = false;
        self.stat_lost_cause.next = self.lk_cause.val();
        if self.lrtx_v.val() && (self.rtx_cnt.val() < self.k_rtx_full.val()) {
            self.stat_lost.next = true;
            self.rtx_ram.wr_en.next = true;
            self.rtx_wp.d.next = self.rtx_wp.q.val() + self.k_one10.val();
        }
        self.m_axis_rtx_tdata.next = self.rtx_o.q.val();
        self.m_axis_rtx_tvalid.next = self.rtx_ov.q.val();
        if self.m_axis_rtx_tready.val() {
            self.rtx_ov.d.next = false;
        }
        if self.rtx_rd.q.val() {
            self.rtx_o.d.next = self.rtx_ram.rd_data.val();
            self.rtx_ov.d.next = true;
        }
        self.rtx_ram.rd_addr.next = self.rtx_rp.q.val().get_bits::<RTX_FIFO_LOG>(0);
        self.rtx_rd.d.next = false;
        if (self.rtx_cnt.val() != self.k_zero10.val())
            && !self.rtx_rd.q.val()
            && (!self.rtx_ov.q.val() || self.m_axis_rtx_tready.val())
        {
            self.rtx_rd.d.next = true;
            self.rtx_rp.d.next = self.rtx_rp.q.val() + self.k_one10.val();
        }
        self.ackp.m_axis_lost_tready.next = !self.lbusy.q.val();
        self.l_rtx_ok.next = self.l_rtx_done.q.val()
            || (self.lrtx_v.val() && (self.rtx_cnt.val() < self.k_rtx_full.val()));
        self.l_cmd_ok.next = self.l_cmd_done.q.val()
            || self.lw.q.val().cause == self.k_cause_none.val()
            || (self.pcmd_s.s_axis_tready.val() && !self.l_cmd_done.q.val());
        if self.lbusy.q.val() {
            if self.lw.q.val().cause != self.k_cause_none.val() && !self.l_cmd_done.q.val() {
                self.pcmd_v.next = true;
                self.pcmd_l.next.conn = self.lw.q.val().conn;
                self.pcmd_l.next.op = self.k_op_loss.val();
                if self.lw.q.val().cause == self.k_cause_trim.val() {
                    self.pcmd_l.next.op = self.k_op_trim.val();
                }
                self.pcmd_l.next.idx = self.lk_p.val();
                self.pcmd_l.next.ev = self.lk_e.val();
            }
            if self.l_rtx_ok.val() && self.l_cmd_ok.val() {
                self.l_rtx_done.d.next = false;
                self.l_cmd_done.d.next = false;
                self.lrem.d.next = self.lrem.q.val() & !self.lk_bit.val();
                if (self.lrem.q.val() & !self.lk_bit.val()) == self.k_zero4.val() {
                    self.lbusy.d.next = false;
                }
            } else {
                self.l_rtx_done.d.next = self.l_rtx_ok.val();
                self.l_cmd_done.d.next = self.l_cmd_ok.val();
            }
        } else if self.ackp.m_axis_lost_tvalid.val() {
            self.lw.d.next = self.ackp.m_axis_lost_tdata.val();
            self.lrem.d.next = self.ackp.m_axis_lost_tdata.val().mask;
            self.lbusy.d.next = true;
        }
        self.lost_idle.next = !self.lbusy.q.val() && !self.ackp.m_axis_lost_tvalid.val();
        self.s_axis_open_tready.next = false;
        self.s_axis_sent_tready.next = false;
        self.s_axis_fb_tready.next = false;
        self.s_axis_gate_req_tready.next = false;
        // RTT estimator.
        self.rtt.in_valid.next = false;
        self.rtt.upd_sample.next =
            self.state.q.val() == EngState::AckRt && self.sample.q.val() < self.k_half.val();
        self.rtt.upd_timeout.next = self.state.q.val() == EngState::RtoT;
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
        self.nscc.kind.next = self.nk.q.val();
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
        // The pacing instance: started by a sent command with the connection's state, its result kept in
        // the pace_* registers until a command boundary puts it into the pacing RAM.
        // The computation starts a cycle after the decision; its state (`est`, the connection's) does not
        // change meanwhile: the gate's decision goes on to the EV choice, the sent report to its write-back.
        self.pacer.start.next = self.pace_go.q.val();
        self.pace_go.d.next = false;
        self.pace_src_bg.d.next = false;
        // A computation deferred for a background NSCC result starts from that result, once it is known.
        // (`g_bg`, which defers it in GDec and SentP, lags `bg_v` by a cycle, but the cycles before those states
        // (GEv; SentRd, SentQw) write no background result, so a deferred computation always has one pending.)
        if self.pace_defer.q.val() && self.bg_done.q.val() {
            self.pace_go.d.next = true;
            self.pace_src_bg.d.next = true;
            self.pace_defer.d.next = false;
        }
        self.pst_l.next = self.nst_l.val();
        if self.pace_src_bg.q.val() {
            self.pst_l.next = self.bg_st.q.val();
        }
        self.pacer.kind.next = self.k_ev_pace.val();
        self.pacer.now.next = self.now.val();
        self.pacer.acked.next = self.k_zero64.val();
        self.pacer.sample.next = self.k_zero64.val();
        self.pacer.ece.next = false;
        self.pacer.bytes.next = self.zx_p.val().into();
        self.pacer.st_in.next = self.pst_l.val();
        self.pacer.cfg_mtu.next = self.cfg_mtu.val();
        self.pacer.cfg_max_cwnd.next = self.cfg_bdp.val() + self.cfg_bdp.val();
        self.pacer.cfg_target_ns.next = self.cfg_target_ns.val();
        self.pacer.cfg_base_rtt_ns.next = self.cfg_base_rtt_ns.val();
        self.pacer.cfg_min_rtt_window_ns.next = self.cfg_min_rtt_window_ns.val();
        self.pacer.cfg_line_rate_bps.next = self.cfg_line_rate_bps.val();
        if self.pacer.done.val() {
            self.pace_res.d.next = true;
            self.pace_gap.d.next = self.pacer.gap.val().get_bits::<32>(0);
            self.pace_nz.d.next = self.pacer.gap.val() != self.k_zero64.val();
        }
        // Gate.
        self.est_l.next.cwnd = self.cc_ram.rd_data.val().cwnd;
        self.est_l.next.srtt = self.cc_ram.rd_data.val().srtt;
        self.est_l.next.min_rtt = self.cc_ram.rd_data.val().min_rtt;
        self.est_l.next.last_d = self.cc_ram.rd_data.val().last_d;
        self.est_l.next.min_stamp = self.cc_ram.rd_data.val().min_stamp;
        self.est_l.next.last_md = self.cc_ram.rd_data.val().last_md;
        self.est_l.next.md_valid = self.cc_ram.rd_data.val().md_valid;
        self.est_l.next.pace_armed = self.pace_ram.rd_data.val().pace_armed;
        self.est_l.next.next_tx = self.pace_ram.rd_data.val().next_tx;
        self.est_l.next.r_srtt = self.eng_ram.rd_data.val().r_srtt;
        self.est_l.next.r_var = self.eng_ram.rd_data.val().r_var;
        self.est_l.next.r_has = self.eng_ram.rd_data.val().r_has;
        self.est_l.next.r_bo = self.eng_ram.rd_data.val().r_bo;
        self.est_l.next.rto_rtx = self.eng_ram.rd_data.val().rto_rtx;
        self.est_l.next.reo_mult = self.eng_ram.rd_data.val().reo_mult;
        self.est_l.next.reo_stamp = self.eng_ram.rd_data.val().reo_stamp;
        self.est_l.next.rto_armed = self.eng_ram.rd_data.val().rto_armed;
        self.est_l.next.rto_at = self.eng_ram.rd_data.val().rto_at;
        self.est_l.next.rack_armed = self.eng_ram.rd_data.val().rack_armed;
        self.est_l.next.rack_at = self.eng_ram.rd_data.val().rack_at;
        self.est_l.next.retries = self.eng_ram.rd_data.val().retries;
        self.est_l.next.rnr_armed = self.eng_ram.rd_data.val().rnr_armed;
        self.est_l.next.rnr_until = self.eng_ram.rd_data.val().rnr_until;
        self.est_l.next.rnr_count = self.eng_ram.rd_data.val().rnr_count;
        self.est_l.next.failed = self.eng_ram.rd_data.val().failed;
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
        self.gate.now32.next = self.now32.val();
        self.since.next = self.now32.val() - self.est_l.val().next_tx;
        self.fatal.next = (self.s_axis_fb_tdata.val().ptype == self.k_ptype_nack.val())
            && ((self.s_axis_fb_tdata.val().code == self.k_code_access.val())
                || (self.s_axis_fb_tdata.val().code == self.k_code_invalid.val())
                || (self.s_axis_fb_tdata.val().code == self.k_code_unsup.val()));
        // A retransmission waits for the end of an RNR hold.
        self.rnr_block.next = self.req.q.val().rtx
            && self.est_l.val().rnr_armed
            && (self.now32.val() - self.est_l.val().rnr_until) >= self.k_half.val();
        // The pacing time is at most the hold ahead (`cfg_pace_hold_ns`).
        self.pace_near.next =
            (self.est_l.val().next_tx - self.now32.val()) <= self.cfg_pace_hold_ns.val();
        if self.m_axis_gate_resp_tready.val() {
            self.resp_valid.d.next = false;
        }
        if self.m_axis_err_tready.val() {
            self.err_pend.d.next = false;
        }
        if self.sent_wait.q.val() != self.k_zero3.val() {
            self.sent_wait.d.next = self.sent_wait.q.val() - self.k_one3.val();
        }
        // The arrival time of the gate request waiting at the input (taken with the request below).
        if self.s_axis_gate_req_tvalid.val() && !self.req_seen_v.q.val() {
            self.req_seen_v.d.next = true;
            self.req_seen_at.d.next = self.now32.val();
        }
        // ---- One NSCC event (kind nk) on the loaded state, its result into the connection's state: in `Nscc`
        // (then nret), and in `AckCc` beside the ACK's detection run until it is done (cc_ok).
        if self.state.q.val() == EngState::Nscc
            || (self.state.q.val() == EngState::AckCc && !self.cc_ok.q.val())
        {
            // (After a pending background on_ack's result is written: the event starts from it.)
            if !self.started.q.val() && self.nscc.ready.val() && !self.bg_v.q.val() {
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
                self.started.d.next = false;
                self.cc_ok.d.next = true;
            }
        }
        // ---- The background on_ack's result (no other NSCC event runs while `bg_v`: feedback, timers and
        // opens wait until it is written).
        if self.bg_v.q.val() && !self.bg_done.q.val() && self.nscc.done.val() {
            self.bg_st.d.next = self.nscc.st_out.val();
            self.bg_done.d.next = true;
        }
        self.g_bg.d.next = self.bg_v.q.val() && (self.bg_conn.q.val() == self.conn.q.val());
        // (Cleared by the ACK that starts a background on_ack, below; `8` is BG_NEAR.)
        if self.bg_v.q.val() && !self.bg_done.q.val() && (self.bg_cnt.q.val() != 31) {
            self.bg_cnt.d.next = self.bg_cnt.q.val() + 1;
        }
        self.bg_near.d.next = self.bg_done.q.val() || (self.bg_cnt.q.val() >= 8);
        // Each state's work: one arm per state, so that their assignments select in parallel on the state.
        match self.state.q.val() {
            EngState::Open => {
                // ---- Open.
                self.ackp.s_axis_open_tvalid.next = true;
                self.s_axis_open_tready.next = self.ackp.s_axis_open_tready.val();
                if self.ackp.s_axis_open_tready.val() {
                    self.open_r.d.next = self.s_axis_open_tdata.val();
                    self.est.d.next = self.init_l.val();
                    self.eng_ram.wr_en.next = true;
                    self.cc_ram.wr_en.next = true;
                    self.pace_ram.wr_en.next = true;
                    self.state.d.next = EngState::OpenP;
                }
            }
            EngState::OpenP => {
                // MR-PATH-1: the EV set from the connection's seed.
                self.pcmd_v.next = true;
                self.pcmd_l.next.op = self.k_op_open.val();
                if self.pcmd_s.s_axis_tready.val() {
                    self.state.d.next = EngState::OpenA;
                }
            }
            EngState::OpenA => {
                // Nothing armed (est = initial state).
                self.wheel.s_axis_arm_tvalid.next = true;
                if self.wheel.s_axis_arm_tready.val() {
                    self.state.d.next = EngState::Gap;
                }
            }
            EngState::SentH => {
                // ---- Sent.
                self.ackp.s_axis_sent_tvalid.next = true;
                self.s_axis_sent_tready.next = self.ackp.s_axis_sent_tready.val();
                if self.ackp.s_axis_sent_tready.val() {
                    self.charged.d.next = self.s_axis_sent_tdata.val().charged;
                    // MR-CC-2: the transmission time is when the gate let the packet go (the transmit path
                    // reports it next; its timestamp is older), as for a computation started at the decision.
                    if !self.pre_paced.q.val() {
                        self.pace_t0.d.next = self.s_axis_sent_tdata.val().ts;
                        if self.g_conn.q.val() == self.s_axis_sent_tdata.val().conn {
                            self.pace_t0.d.next = self.g_t0.q.val();
                        }
                    }
                    self.state.d.next = EngState::SentRd;
                }
            }
            EngState::SentRd => {
                self.est.d.next = self.est_l.val();
                self.state.d.next = EngState::SentP;
                if !self.eng_ram.rd_data.val().rto_armed {
                    self.state.d.next = EngState::SentQ;
                }
            }
            EngState::SentQ => {
                self.rtt.in_valid.next = true;
                self.state.d.next = EngState::SentQw;
            }
            EngState::SentQw => {
                if self.rtt.out_valid.val() {
                    // MR-REL-40: a transmission arms the RTO if it is not armed.
                    self.est.d.next.rto_armed = true;
                    self.est.d.next.rto_at =
                        self.now32.val() + self.rtt.rto.val().get_bits::<32>(0);
                    self.dirty.d.next = true;
                    self.state.d.next = EngState::SentP;
                }
            }
            EngState::SentP => {
                // MR-CC-2, MR-CC-14: the pacing gap for the charged size, computed by the pacing instance while
                // the engine goes on; next_send_at = (this time) + gap is written at a command boundary. (Done
                // already when the gate started it.)
                if !self.pre_paced.q.val() {
                    self.pace_go.d.next = !self.g_bg.q.val();
                    self.pace_defer.d.next = self.g_bg.q.val();
                    self.pace_ch.d.next = self.charged.q.val();
                    self.pace_busy.d.next = true;
                    self.pace_conn.d.next = self.conn.q.val();
                }
                self.pre_paced.d.next = false;
                self.state.d.next = EngState::Wb;
                if self.dirty.q.val() {
                    self.state.d.next = EngState::Arm;
                }
            }
            EngState::AckH => {
                // ---- ACK.
                self.ackp.s_axis_ack_tvalid.next = true;
                self.s_axis_fb_tready.next = self.ackp.s_axis_ack_tready.val();
                if self.ackp.s_axis_ack_tready.val() {
                    // MR-REL-26: the sample is now - echo_ts (32-bit).
                    self.sample.d.next = self.now32.val() - self.s_axis_fb_tdata.val().echo_ts;
                    self.ece.d.next = self.s_axis_fb_tdata.val().aflags.get_bit(7);
                    self.dup.d.next = self.s_axis_fb_tdata.val().aflags.get_bit(6);
                    self.echo_ev.d.next = self.s_axis_fb_tdata.val().echo_ev.get_bits::<14>(0);
                    self.state.d.next = EngState::Rtt;
                }
            }
            EngState::Rtt => {
                // The RTT sample runs while the ACK processor scans: the state is loaded, the estimator started, and
                // its outputs kept until the processor's result.
                self.est.d.next = self.est_l.val();
                self.state.d.next = EngState::AckRt;
            }
            EngState::AckRt => {
                self.rtt.in_valid.next = true;
                self.rtt_ok.d.next = false;
                self.state.d.next = EngState::AckW;
            }
            EngState::AckW => {
                if self.rtt.out_valid.val() {
                    self.rtt_st.d.next = self.rtt.st_out.val();
                    self.srtt_q.d.next = self.rtt.srtt.val();
                    self.rto_q.d.next = self.rtt.rto.val().get_bits::<32>(0);
                    self.reo_q.d.next = self.rtt.reo_wnd.val().get_bits::<32>(0);
                    self.rtt_ok.d.next = true;
                }
                // The result, once every clean word reached the EV set.
                if self.rtt_ok.q.val()
                    && self.ackp.m_axis_res_tvalid.val()
                    && !self.ackp.m_axis_clean_tvalid.val()
                {
                    self.ackp.m_axis_res_tready.next = true;
                    self.res.d.next = self.ackp.m_axis_res_tdata.val();
                    self.state.d.next = EngState::RttW;
                }
            }
            EngState::RttW => {
                self.est.d.next.r_srtt = self.rtt_st.q.val().srtt;
                self.est.d.next.r_var = self.rtt_st.q.val().rttvar;
                self.est.d.next.r_has = self.rtt_st.q.val().has;
                self.est.d.next.r_bo = self.rtt_st.q.val().backoff;
                // MR-REL-59: the reordering multiplier, with the srtt after the sample.
                if self.dup.q.val() {
                    if self.reo_ge.q.val() {
                        self.est.d.next.reo_stamp = self.now.val();
                        if self.est.q.val().reo_mult < self.k_sixteen5.val() {
                            self.est.d.next.reo_mult =
                                self.est.q.val().reo_mult + self.k_one5.val();
                        }
                    }
                } else if self.est.q.val().reo_mult > self.k_one5.val() && self.reo_ge16.q.val() {
                    self.est.d.next.reo_stamp = self.now.val();
                    self.est.d.next.reo_mult = self.est.q.val().reo_mult - self.k_one5.val();
                }
                if self.res.q.val().invalid {
                    // Ignored (counted by the model as a drop).
                    self.state.d.next = EngState::Wb;
                } else {
                    if self.res.q.val().newly != self.k_zero16.val() {
                        // Progress: the window governs retransmissions again; the retry count restarts.
                        self.est.d.next.rto_rtx = false;
                        self.est.d.next.retries = self.k_zero8.val();
                    }
                    if self.res.q.val().cack_advanced {
                        // MR-REL-40: re-armed at now + rto, disarmed with nothing outstanding.
                        self.est.d.next.rnr_count = self.k_zero8.val();
                        self.est.d.next.rto_armed = !self.res.q.val().idle;
                        self.est.d.next.rto_at = self.now32.val() + self.rto_q.q.val();
                    }
                    self.state.d.next = EngState::Srtt;
                }
            }
            EngState::Srtt => {
                // MR-PATH-18: the freeze span follows srtt.
                self.pcmd_v.next = !self.lbusy.q.val();
                self.pcmd_l.next.op = self.k_op_srtt.val();
                if self.pcmd_s.s_axis_tready.val() && !self.lbusy.q.val() {
                    self.nk.d.next = self.k_ev_ack.val();
                    self.nret.d.next = EngState::Det;
                    self.dret.d.next = EngState::Arm;
                    if !self.res.q.val().holes {
                        // No PSN below the highest acknowledged one: the detection run would declare nothing
                        // and arm no RACK timer (its result then), so none is made.
                        self.det_iss.d.next = true;
                        self.det_ok.d.next = true;
                        self.det_lost.d.next = false;
                        self.est.d.next.rack_armed = false;
                        self.est.d.next.rack_at = self.k_zero32.val();
                    }
                    if self.ece.q.val() {
                        self.state.d.next = EngState::Ece;
                    } else if self.res.q.val().newly != self.k_zero16.val() {
                        self.state.d.next = EngState::AckCc;
                    } else if self.res.q.val().holes {
                        self.state.d.next = EngState::Det;
                    } else {
                        self.state.d.next = EngState::Arm;
                    }
                }
            }
            EngState::Ece => {
                // MR-PATH-2: the echoed EV's entry is recycled.
                self.pcmd_v.next = !self.lbusy.q.val();
                self.pcmd_l.next.op = self.k_op_ece.val();
                self.pcmd_l.next.ev = self.echo_ev.q.val();
                if self.pcmd_s.s_axis_tready.val() && !self.lbusy.q.val() {
                    self.state.d.next = EngState::AckCc;
                }
            }
            EngState::Nscc => {
                if self.nscc.done.val() {
                    self.state.d.next = self.nret.q.val();
                }
            }
            EngState::AckCc => {
                // ---- An ACK's NSCC on_ack and its detection run side by side (they touch different state: NSCC's
                // fields, and the per-PSN records with the RACK timer); on_loss follows both, as in the model.
                self.cmd_v.next = !self.det_iss.q.val();
                self.cmd_l.next.op = self.k_cmd_detect.val();
                if !self.det_iss.q.val() && self.acmd_s.s_axis_tready.val() {
                    self.det_iss.d.next = true;
                }
                if self.det_iss.q.val()
                    && !self.det_ok.q.val()
                    && self.ackp.m_axis_cres_tvalid.val()
                    && self.lost_idle.val()
                {
                    self.ackp.m_axis_cres_tready.next = true;
                    // MR-REL-37: the RACK timer.
                    self.est.d.next.rack_armed = self.ackp.m_axis_cres_tdata.val().rack_armed;
                    self.est.d.next.rack_at = self.ackp.m_axis_cres_tdata.val().rack_at;
                    self.det_ok.d.next = true;
                    self.det_lost.d.next =
                        self.ackp.m_axis_cres_tdata.val().nlost != self.k_zero16.val();
                }
                if self.cc_ok.q.val() && self.det_ok.q.val() {
                    self.state.d.next = EngState::Arm;
                    if self.det_lost.q.val() {
                        // MR-REL-41: on_loss.
                        self.nk.d.next = self.k_ev_loss.val();
                        self.nret.d.next = EngState::Arm;
                        self.state.d.next = EngState::Nscc;
                    }
                } else if self.det_ok.q.val()
                    && !self.det_lost.q.val()
                    && !self.ece.q.val()
                    && self.started.q.val()
                    && !self.nscc.done.val()
                {
                    // Nothing declared lost and no ECE: on_ack can only raise cwnd, so the command ends here and
                    // NSCC's result is written into its RAM at a command boundary (the connection's other state is
                    // written now, NSCC's fields not: `cc_wr` cleared). Until then a gate decision of the
                    // connection answers only an allow (one under the old cwnd is one under the new), its pacing
                    // gap waits for the result, and feedback, timers and opens wait.
                    self.bg_v.d.next = true;
                    self.bg_done.d.next = false;
                    self.bg_conn.d.next = self.conn.q.val();
                    self.bg_cnt.d.next = 0.into();
                    self.bg_near.d.next = false;
                    self.cc_wr.d.next = false;
                    self.state.d.next = EngState::Arm;
                }
            }
            EngState::Det => {
                // ---- Detection run (rules b, c), then dret.
                self.cmd_v.next = true;
                self.cmd_l.next.op = self.k_cmd_detect.val();
                if self.acmd_s.s_axis_tready.val() {
                    self.state.d.next = EngState::DetW;
                }
            }
            EngState::DetW => {
                if self.ackp.m_axis_cres_tvalid.val() && self.lost_idle.val() {
                    self.ackp.m_axis_cres_tready.next = true;
                    // MR-REL-37: the RACK timer.
                    self.est.d.next.rack_armed = self.ackp.m_axis_cres_tdata.val().rack_armed;
                    self.est.d.next.rack_at = self.ackp.m_axis_cres_tdata.val().rack_at;
                    self.state.d.next = self.dret.q.val();
                    if self.ackp.m_axis_cres_tdata.val().nlost != self.k_zero16.val() {
                        // MR-REL-41: on_loss.
                        self.nk.d.next = self.k_ev_loss.val();
                        self.nret.d.next = self.dret.q.val();
                        self.state.d.next = EngState::Nscc;
                    }
                }
            }
            EngState::Nack => {
                // ---- NACK.
                self.cmd_v.next = true;
                self.cmd_l.next.op = self.k_cmd_nack.val();
                self.cmd_l.next.psn = self.s_axis_fb_tdata.val().psn;
                if self.acmd_s.s_axis_tready.val() {
                    self.s_axis_fb_tready.next = true;
                    self.nack_trim.d.next =
                        self.s_axis_fb_tdata.val().code == self.k_code_trim.val();
                    self.nack_aux.d.next = self.s_axis_fb_tdata.val().aux;
                    self.state.d.next = EngState::NackW;
                }
            }
            EngState::NackW => {
                self.est.d.next = self.est_l.val();
                if self.ackp.m_axis_cres_tvalid.val() && self.lost_idle.val() {
                    self.ackp.m_axis_cres_tready.next = true;
                    self.state.d.next = EngState::Gap;
                    if self.ackp.m_axis_cres_tdata.val().found {
                        if self.nack_trim.q.val() {
                            // MR-REL-41: on_nack_trim.
                            self.nk.d.next = self.k_ev_trim.val();
                            self.nret.d.next = EngState::Wb;
                            self.state.d.next = EngState::Nscc;
                        } else {
                            // RNR: hold the retransmission; count consecutive RNRs.
                            self.state.d.next = EngState::Wb;
                            self.est.d.next.rnr_armed = true;
                            self.est.d.next.rnr_until = self.now32.val() + self.rnr_ns.val();
                            if !self.eng_ram.rd_data.val().rnr_armed
                                || (self.now32.val() - self.eng_ram.rd_data.val().rnr_until)
                                    < self.k_half.val()
                            {
                                if self.eng_ram.rd_data.val().rnr_count != self.k_max8.val() {
                                    self.est.d.next.rnr_count =
                                        self.eng_ram.rd_data.val().rnr_count + self.k_one8.val();
                                }
                                if self.eng_ram.rd_data.val().rnr_count >= self.cfg_rnr_retry.val()
                                {
                                    self.err_st.d.next = self.k_st_rnr.val();
                                    self.state.d.next = EngState::Err;
                                }
                            }
                        }
                    }
                }
            }
            EngState::FireRd => {
                // ---- Timer.
                self.state.d.next = EngState::FireLd;
            }
            EngState::FireLd => {
                self.est.d.next = self.est_l.val();
                self.state.d.next = EngState::FireQ;
            }
            EngState::FireQ => {
                self.rtt.in_valid.next = true;
                self.state.d.next = EngState::FireQw;
            }
            EngState::FireQw => {
                if self.rtt.out_valid.val() {
                    self.srtt_q.d.next = self.rtt.srtt.val();
                    self.rto_q.d.next = self.rtt.rto.val().get_bits::<32>(0);
                    self.reo_q.d.next = self.rtt.reo_wnd.val().get_bits::<32>(0);
                    self.rto_due.d.next = self.est.q.val().rto_armed
                        && (self.now32.val() - self.est.q.val().rto_at) < self.k_half.val();
                    self.rack_due.d.next = self.est.q.val().rack_armed
                        && (self.now32.val() - self.est.q.val().rack_at) < self.k_half.val();
                    self.dret.d.next = EngState::FireNext;
                    self.state.d.next = EngState::FireNext;
                }
            }
            EngState::FireNext => {
                // A due RACK timer's detection run first (its DETECT command a cycle after srtt and reo_wnd
                // were loaded, so that the registered detection parameters are this connection's), then the
                // retransmission timer.
                self.state.d.next = EngState::Arm;
                if self.rack_due.q.val() {
                    self.rack_due.d.next = false;
                    self.state.d.next = EngState::Det;
                } else if self.rto_due.q.val() {
                    self.state.d.next = EngState::Rto;
                }
            }
            EngState::Rto => {
                // MR-REL-39, MR-REL-55: count the expiry first.
                if self.est.q.val().retries != self.k_max8.val() {
                    self.est.d.next.retries = self.est.q.val().retries + self.k_one8.val();
                }
                self.state.d.next = EngState::RtoC;
                if self.est.q.val().retries >= self.cfg_retry_limit.val() {
                    self.err_st.d.next = self.k_st_retry.val();
                    self.state.d.next = EngState::Err;
                }
            }
            EngState::RtoC => {
                self.cmd_v.next = true;
                self.cmd_l.next.op = self.k_cmd_rto.val();
                if self.acmd_s.s_axis_tready.val() {
                    self.state.d.next = EngState::RtoW;
                }
            }
            EngState::RtoW => {
                if self.ackp.m_axis_cres_tvalid.val() && self.lost_idle.val() {
                    self.ackp.m_axis_cres_tready.next = true;
                    // MR-REL-45: the expiry's retransmission passes the window.
                    self.est.d.next.rto_rtx = self.ackp.m_axis_cres_tdata.val().queued;
                    self.outst.d.next = self.ackp.m_axis_cres_tdata.val().outstanding;
                    self.state.d.next = EngState::RtoT;
                }
            }
            EngState::RtoT => {
                // Backoff (upd_timeout).
                self.rtt.in_valid.next = true;
                self.state.d.next = EngState::RtoTw;
            }
            EngState::RtoTw => {
                if self.rtt.out_valid.val() {
                    self.est.d.next.r_srtt = self.rtt.st_out.val().srtt;
                    self.est.d.next.r_var = self.rtt.st_out.val().rttvar;
                    self.est.d.next.r_has = self.rtt.st_out.val().has;
                    self.est.d.next.r_bo = self.rtt.st_out.val().backoff;
                    // MR-REL-40: re-armed after the backoff while anything is outstanding.
                    self.est.d.next.rto_armed = self.outst.q.val();
                    self.est.d.next.rto_at =
                        self.now32.val() + self.rtt.rto.val().get_bits::<32>(0);
                    // MR-CC-13: on_timeout.
                    self.nk.d.next = self.k_ev_timeout.val();
                    self.nret.d.next = EngState::Arm;
                    self.state.d.next = EngState::Nscc;
                }
            }
            EngState::Err => {
                if !self.err_pend.q.val() {
                    // MR-REL-55: the connection fails; its timers stop.
                    self.err_pend.d.next = true;
                    self.err_rec.d.next.conn = self.conn.q.val();
                    self.err_rec.d.next.status = self.err_st.q.val();
                    self.err_rec.d.next.msn = self.k_zero32.val();
                    self.err_rec.d.next.by_msn = false;
                    self.err_rec.d.next.strict = false;
                    self.est.d.next.failed = true;
                    self.est.d.next.rto_armed = false;
                    self.est.d.next.rack_armed = false;
                    self.state.d.next = EngState::Arm;
                }
            }
            EngState::StopRd => {
                // ---- Stop (the QP entered ERROR): as the retry limit, without a report.
                self.state.d.next = EngState::StopLd;
            }
            EngState::StopLd => {
                self.est.d.next = self.est_l.val();
                self.est.d.next.failed = true;
                self.est.d.next.rto_armed = false;
                self.est.d.next.rack_armed = false;
                self.state.d.next = EngState::Arm;
            }
            EngState::GRd => {
                // ---- Gate request.
                self.state.d.next = EngState::GEv;
                if self.req.q.val().rtx {
                    self.state.d.next = EngState::GPeek;
                }
            }
            EngState::GPeek => {
                self.cmd_v.next = true;
                self.cmd_l.next.op = self.k_cmd_peek.val();
                if self.acmd_s.s_axis_tready.val() {
                    self.state.d.next = EngState::GPeekW;
                }
            }
            EngState::GPeekW => {
                if self.ackp.m_axis_cres_tvalid.val() {
                    self.ackp.m_axis_cres_tready.next = true;
                    self.peek_path.d.next = self.ackp.m_axis_cres_tdata.val().path;
                    self.state.d.next = EngState::GEv;
                    if !self.ackp.m_axis_cres_tdata.val().found {
                        // Acknowledged meanwhile or no longer declared: not needed (the model's pop_lost skips it).
                        self.resp.d.next.conn = self.req.q.val().conn;
                        self.resp.d.next.psn = self.req.q.val().psn;
                        self.resp.d.next.allow = false;
                        self.resp.d.next.ev = 0.into();
                        self.resp.d.next.path = 0.into();
                        self.resp.d.next.retry_at = self.k_zero32.val();
                        self.resp.d.next.skip = true;
                        self.state.d.next = EngState::GOut;
                    }
                }
            }
            EngState::GEv => {
                self.gate.in_valid.next = true;
                // MR-CC-2: the eligibility time, the later of the arrival and an armed pacing time.
                self.g_elig.d.next = self.req_at.q.val();
                if self.est_l.val().pace_armed
                    && (self.est_l.val().next_tx - self.req_at.q.val()) < self.k_half.val()
                {
                    self.g_elig.d.next = self.est_l.val().next_tx;
                }
                // GDec's tests on `now`, made here on the same state (the gate's `retry_at` is this `next_tx`
                // when it is not 0), a cycle early, so that GDec's decision does not wait for their carries.
                self.g_rnr.d.next = self.rnr_block.val();
                self.g_near.d.next = self.pace_near.val();
                // Disarm pacing and the RNR hold once now has passed them (see cc::gate).
                self.est.d.next = self.est_l.val();
                if self.est_l.val().pace_armed && self.since.val() < self.k_half.val() {
                    self.est.d.next.pace_armed = false;
                    self.pace_ram.wr_en.next = true;
                    self.pace_ram.wr_data.next.pace_armed = false;
                    self.pace_ram.wr_data.next.next_tx = self.est_l.val().next_tx;
                }
                if self.est_l.val().rnr_armed
                    && (self.now32.val() - self.est_l.val().rnr_until) < self.k_half.val()
                {
                    self.est.d.next.rnr_armed = false;
                    self.dirty.d.next = true;
                }
                self.state.d.next = EngState::GDec;
            }
            EngState::GDec => {
                self.resp.d.next = self.gate.resp.val();
                self.resp.d.next.skip = false;
                self.state.d.next = EngState::GOut;
                if self.est_l.val().failed {
                    self.resp.d.next.allow = false;
                    self.resp.d.next.retry_at = self.k_zero32.val();
                    self.resp.d.next.skip = self.req.q.val().rtx;
                } else if self.g_rnr.q.val() {
                    self.resp.d.next.allow = false;
                    self.resp.d.next.retry_at = self.est_l.val().rnr_until;
                } else if self.gate.resp.val().allow && !self.req.q.val().rtx && !self.slot_ok.val()
                {
                    // No window slot free: wait (re-polled like a refusal that waits for an ACK).
                    self.resp.d.next.allow = false;
                    self.resp.d.next.retry_at = self.k_zero32.val();
                    self.stat_slot_wait.next = true;
                } else if self.gate.resp.val().allow {
                    if !self.req.q.val().rtx && !self.snd_ram.rd_data.val().has_slot {
                        self.resv.d.next = true;
                    }
                    // MR-CC-2: the packet leaves at its eligibility time, the engine's own latency (a command in
                    // progress when the request came, the decision's cycles) not counted.
                    self.g_t0.d.next = self.g_elig.q.val();
                    self.g_conn.d.next = self.conn.q.val();
                    if !self.pace_busy.q.val() && self.pacer.ready.val() {
                        // MR-CC-2, MR-CC-14: the pacing gap starts at the decision, with the state it was made
                        // on, so the connection's next request waits for the computation, not also for the
                        // sent report.
                        // (After the background result of the connection's last ACK, with that state.)
                        self.pace_go.d.next = !self.g_bg.q.val();
                        self.pace_defer.d.next = self.g_bg.q.val();
                        self.pace_ch.d.next = self.req.q.val().charged;
                        self.pace_busy.d.next = true;
                        self.pace_conn.d.next = self.conn.q.val();
                        self.pace_t0.d.next = self.g_elig.q.val();
                        self.pre_paced.d.next = true;
                    }
                    self.state.d.next = EngState::GCh;
                } else if self.g_bg.q.val() {
                    // Refused while the connection's background on_ack, which may raise cwnd, is pending:
                    // held, decided again once the result is written.
                    self.held_v.d.next = true;
                    self.held_bg.d.next = true;
                    self.held_until.d.next = self.now32.val();
                    self.state.d.next = EngState::Idle;
                    if self.dirty.q.val() {
                        self.state.d.next = EngState::Wb;
                    }
                } else if self.gate.resp.val().retry_at != self.k_zero32.val()
                    && self.g_near.q.val()
                {
                    // Refused by pacing alone, and its time is near: held, not answered (MR-CC-2).
                    self.held_v.d.next = true;
                    self.held_bg.d.next = false;
                    self.held_until.d.next = self.gate.resp.val().retry_at;
                    self.state.d.next = EngState::Idle;
                    if self.dirty.q.val() {
                        self.state.d.next = EngState::Wb;
                    }
                }
            }
            EngState::GCh => {
                // MR-PATH-3, MR-PATH-10: the EV; a retransmission avoids its previous entry.
                self.pcmd_v.next = !self.lbusy.q.val();
                self.pcmd_l.next.op = self.k_op_choose.val();
                if self.pcmd_s.s_axis_tready.val() && !self.lbusy.q.val() {
                    self.state.d.next = EngState::GChW;
                }
            }
            EngState::GChW => {
                if self.paths.m_axis_res_tvalid.val() {
                    self.paths.m_axis_res_tready.next = true;
                    self.resp.d.next.ev = self.paths.m_axis_res_tdata.val().ev;
                    self.resp.d.next.path = self.paths.m_axis_res_tdata.val().path;
                    if self.req.q.val().rtx {
                        self.est.d.next.rto_rtx = false;
                        self.dirty.d.next = true;
                    }
                    self.state.d.next = EngState::GOut;
                }
            }
            EngState::GOut => {
                self.resp_valid.d.next = true;
                if self.resp.q.val().allow {
                    self.sent_wait.d.next = self.k_seven3.val();
                }
                self.state.d.next = EngState::Idle;
                if self.dirty.q.val() {
                    self.state.d.next = EngState::Wb;
                }
            }
            EngState::Arm => {
                // ---- Arm the wheel with the earlier deadline, write the state back.
                self.wheel.s_axis_arm_tvalid.next = true;
                if self.wheel.s_axis_arm_tready.val() {
                    self.state.d.next = EngState::Wb;
                }
            }
            EngState::Wb => {
                self.eng_ram.wr_en.next = true;
                self.cc_ram.wr_en.next = self.cc_wr.q.val();
            }
            EngState::Gap => {
                self.state.d.next = EngState::Idle;
            }
            _ => {}
        }
        // A command ends with its write-back, in whose cycle the next one is chosen: the RAM is read from the
        // next cycle on, after the write. (The choice comes after every other state's assignments, which are
        // exclusive with it, so its decision on this cycle's inputs reaches the registers through no further
        // selection.)
        if self.state.q.val() == EngState::Wb {
            self.state.d.next = EngState::Idle;
        }
        if self.state.q.val() == EngState::Idle || self.state.q.val() == EngState::Wb {
            self.started.d.next = false;
            self.dirty.d.next = false;
            self.cc_ok.d.next = false;
            self.det_iss.d.next = false;
            self.det_ok.d.next = false;
            self.det_lost.d.next = false;
            self.cc_wr.d.next = false;
            if self.s_axis_open_tvalid.val()
                && !self.bg_v.q.val()
                && !(self.pace_busy.q.val()
                    && self.s_axis_open_tdata.val().conn == self.pace_conn.q.val())
            {
                // (An open waits for the pacing result of its connection's previous life to be written.)
                self.conn.d.next = self.s_axis_open_tdata.val().conn;
                self.cc_wr.d.next = true;
                self.state.d.next = EngState::Open;
            } else if self.stop_v.q.val() {
                self.stop_v.d.next = false;
                self.conn.d.next = self.stop_c.q.val();
                self.state.d.next = EngState::StopRd;
            } else if self.s_axis_sent_tvalid.val()
                && (self.pre_paced.q.val() || (!self.pace_busy.q.val() && self.pacer.ready.val()))
            {
                // One pacing computation at a time (none to start when the gate started it).
                self.sent_wait.d.next = self.k_zero3.val();
                self.conn.d.next = self.s_axis_sent_tdata.val().conn;
                self.state.d.next = EngState::SentH;
            } else if self.held_v.q.val()
                && (self.now32.val() - self.held_until.q.val()) < self.k_half.val()
                && !(self.held_bg.q.val() && self.bg_v.q.val())
            {
                // The held gate request's pacing time has come (and the background result it waits for is
                // written): decided again (a sent report before it delays the decision, not the packet's pacing
                // time).
                self.held_v.d.next = false;
                self.conn.d.next = self.req.q.val().conn;
                self.state.d.next = EngState::GRd;
            } else if self.s_axis_gate_req_tvalid.val()
                && !self.resp_valid.q.val()
                && !self.held_v.q.val()
                && (!self.pace_busy.q.val()
                    || self.s_axis_gate_req_tdata.val().conn != self.pace_conn.q.val())
            {
                // A gate request waits for its connection's pacing time of the last transmission. It goes
                // before feedback: the transmit path waits for the answer while its datapath drains, and an
                // ACK or NACK taken a little later is the same as one that arrived a little later.
                self.s_axis_gate_req_tready.next = true;
                self.conn.d.next = self.s_axis_gate_req_tdata.val().conn;
                self.req.d.next = self.s_axis_gate_req_tdata.val();
                self.req_seen_v.d.next = false;
                self.req_at.d.next = self.now32.val();
                if self.req_seen_v.q.val() {
                    self.req_at.d.next = self.req_seen_at.q.val();
                }
                self.state.d.next = EngState::GRd;
            } else if self.s_axis_fb_tvalid.val()
                && (!self.bg_v.q.val()
                    || (self.bg_near.q.val()
                        && (self.s_axis_fb_tdata.val().ptype == self.k_ptype_ack.val())))
                && self.sent_wait.q.val() == self.k_zero3.val()
                && !self.held_v.q.val()
                && !self.una_v2.q.val()
                && self.rtx_room.val()
                && !(self.fatal.val() && self.err_pend.q.val())
            {
                // Feedback waits while the snd_una queue has no free entry or the retransmission FIFO
                // could not take a whole window's declarations, so a command never blocks on its outputs
                // (gate requests and sent reports, which the transmit path waits for, go on meanwhile).
                self.conn.d.next = self.s_axis_fb_tdata.val().conn;
                self.cc_wr.d.next = true;
                if self.s_axis_fb_tdata.val().ptype == self.k_ptype_ack.val() {
                    self.state.d.next = EngState::AckH;
                } else if self.s_axis_fb_tdata.val().ptype == self.k_ptype_nack.val()
                    && (self.s_axis_fb_tdata.val().code == self.k_code_trim.val()
                        || self.s_axis_fb_tdata.val().code == self.k_code_rnr.val())
                {
                    self.state.d.next = EngState::Nack;
                } else if self.fatal.val() {
                    // MR-SEM-35: the transmit scheduler matches the MSN (`aux`) and fails the QP.
                    self.s_axis_fb_tready.next = true;
                    self.err_pend.d.next = true;
                    self.err_rec.d.next.conn = self.s_axis_fb_tdata.val().conn;
                    self.err_rec.d.next.status = self.k_st_rinvalid.val();
                    if self.s_axis_fb_tdata.val().code == self.k_code_access.val() {
                        self.err_rec.d.next.status = self.k_st_raccess.val();
                    }
                    self.err_rec.d.next.msn = self.s_axis_fb_tdata.val().aux;
                    self.err_rec.d.next.by_msn = true;
                    self.err_rec.d.next.strict = true;
                } else {
                    // NO_CONTEXT concerns the connection layer (the control processor): dropped here.
                    self.s_axis_fb_tready.next = true;
                }
            } else if self.wheel.m_axis_fire_tvalid.val()
                && !self.bg_v.q.val()
                && self.sent_wait.q.val() == self.k_zero3.val()
                && !self.held_v.q.val()
                && self.rtx_room.val()
            {
                self.wheel.m_axis_fire_tready.next = true;
                self.conn.d.next = self.wheel.m_axis_fire_tdata.val();
                self.cc_wr.d.next = true;
                self.state.d.next = EngState::FireRd;
            }
        }
        // The two results computed beside the commands go into their RAMs at a command boundary, where no
        // command has read the connection's words to write them back later (the next command reads from the
        // next cycle on, after the write). The pacing time (MR-CC-2: the connection's next gate request waits
        // for it):
        self.bound.next =
            (self.state.q.val() == EngState::Idle) || (self.state.q.val() == EngState::Wb);
        if self.bound.val() && self.pace_res.q.val() {
            self.pace_ram.wr_en.next = true;
            self.pace_ram.wr_addr.next = self.pace_conn.q.val();
            self.pace_ram.wr_data.next.next_tx = self.pace_t0.q.val() + self.pace_gap.q.val();
            self.pace_ram.wr_data.next.pace_armed = self.pace_nz.q.val();
            self.pace_res.d.next = false;
            self.pace_busy.d.next = false;
        }
        // And the background on_ack's NSCC fields, unless the write-back ending a command writes NSCC's fields
        // (of a command that does not run while one is pending: the port is free at the next boundary). An ACK
        // that started while the result was pending takes it into its loaded state when it is written (the ACK
        // reads no NSCC field before its own NSCC event, which waits for the result).
        self.bwin.next = self.bound.val()
            || (self.state.q.val() == EngState::AckRt)
            || (self.state.q.val() == EngState::AckW)
            || (self.state.q.val() == EngState::RttW)
            || (self.state.q.val() == EngState::Srtt)
            || (self.state.q.val() == EngState::Ece)
            || (self.state.q.val() == EngState::AckCc);
        self.bg_wr.next = self.bwin.val()
            && self.bg_done.q.val()
            && !((self.state.q.val() == EngState::Wb) && self.cc_wr.q.val());
        if self.bg_wr.val() && !self.bound.val() && self.g_bg.q.val() {
            self.est.d.next.cwnd = self.bg_st.q.val().cwnd;
            self.est.d.next.srtt = self.bg_st.q.val().srtt;
            self.est.d.next.min_rtt = self.bg_st.q.val().min_rtt;
            self.est.d.next.last_d = self.bg_st.q.val().last_d;
            self.est.d.next.min_stamp = self.bg_st.q.val().min_stamp;
            self.est.d.next.last_md = self.bg_st.q.val().last_md;
            self.est.d.next.md_valid = self.bg_st.q.val().md_valid;
        }
        if self.bg_wr.val() {
            self.cc_ram.wr_en.next = true;
            self.cc_ram.wr_addr.next = self.bg_conn.q.val();
            self.cc_ram.wr_data.next = self.bg_st.q.val();
            self.bg_v.d.next = false;
            self.bg_done.d.next = false;
        }
        // Command ports.
        self.acmd_s.s_axis_tdata.next = self.cmd_l.val();
        self.acmd_s.s_axis_tvalid.next = self.cmd_v.val();
        self.ackp.s_axis_cmd_tdata.next = self.acmd_s.m_axis_tdata.val();
        self.ackp.s_axis_cmd_tvalid.next = self.acmd_s.m_axis_tvalid.val();
        self.acmd_s.m_axis_tready.next = self.ackp.s_axis_cmd_tready.val();
        self.pcmd_s.s_axis_tdata.next = self.pcmd_l.val();
        self.pcmd_s.s_axis_tvalid.next = self.pcmd_v.val();
        self.paths.s_axis_cmd_tdata.next = self.pcmd_s.m_axis_tdata.val();
        self.paths.s_axis_cmd_tvalid.next = self.pcmd_s.m_axis_tvalid.val();
        self.pcmd_s.m_axis_tready.next = self.paths.s_axis_cmd_tready.val();
        if self.rst.val() {
            self.cc_wr.d.next = false;
            self.held_bg.d.next = false;
            self.state.d.next = EngState::Idle;
            self.resv.d.next = false;
            self.resp_valid.d.next = false;
            self.started.d.next = false;
            self.err_pend.d.next = false;
            self.stop_v.d.next = false;
            self.lbusy.d.next = false;
            self.l_rtx_done.d.next = false;
            self.l_cmd_done.d.next = false;
            self.una_v.d.next = false;
            self.una_v2.d.next = false;
            self.rtx_wp.d.next = 0.into();
            self.rtx_rp.d.next = 0.into();
            self.rtx_rd.d.next = false;
            self.rtx_ov.d.next = false;
            self.pace_busy.d.next = false;
            self.pace_res.d.next = false;
            self.pre_paced.d.next = false;
            self.pace_go.d.next = false;
            self.pace_defer.d.next = false;
            self.bg_v.d.next = false;
            self.bg_done.d.next = false;
            self.held_v.d.next = false;
            self.req_seen_v.d.next = false;
            self.sent_wait.d.next = self.k_zero3.val();
        }
        self.m_axis_gate_resp_tdata.next = self.resp.q.val();
        self.m_axis_gate_resp_tvalid.next = self.resp_valid.q.val();
        self.m_axis_err_tdata.next = self.err_rec.q.val();
        self.s_axis_stop_tready.next = !self.stop_v.q.val();
        if self.s_axis_stop_tvalid.val() && !self.stop_v.q.val() {
            self.stop_v.d.next = true;
            self.stop_c.d.next = self.s_axis_stop_tdata.val();
        }
        self.m_axis_err_tvalid.next = self.err_pend.q.val();
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
            "sender reliability + congestion control: ACK/NACK processing, loss detection, RTO wheel, EV set, RTT, NSCC, gate",
        verilog: |cfg| {
            tidy_part_selects(&crate::gen::verilog(
                "metaroce_rel_sender_engine",
                SenderEngine::new(cfg.conn_bits, cfg.send_slot_bits),
            ))
        },
    }]
}

#[cfg(test)]
mod tests {
    use super::tidy_part_selects;
    use super::{EngRest, EngSt, NsccState, PaceSt};
    use rust_hdl::prelude::Synth;

    /// `EngSt` is the engine's view of the three RAM words (`est_l` joins them, the write-back splits `est`
    /// into them field by field): a field added to one side only would not be kept.
    #[test]
    fn the_three_ram_words_hold_every_field_of_the_engine_state() {
        assert_eq!(EngSt::BITS, EngRest::BITS + NsccState::BITS + PaceSt::BITS);
    }

    #[test]
    fn tidy_rewrites_only_literal_selects() {
        let v = "a[(64'h10)+:(32)] = b[32'h3]; c[(x)+:(4)] = d[7:0]; e[(8'hff)+:(2)] = f[i];";
        assert_eq!(
            tidy_part_selects(v),
            "a[16+:(32)] = b[3]; c[(x)+:(4)] = d[7:0]; e[255+:(2)] = f[i];"
        );
    }
}
