//! NSCC window control (spec section 6.2, MR-CC-7..14), one event at a time, bit-exact with
//! `metaroce_proto::transport::cc::Nscc`.
//!
//! The unit holds no per-connection memory: the caller reads a connection's [`NsccState`] from its RAM, presents
//! it with one event on `start`, and writes `st_out` back when `done` rises. Events (`kind`):
//! * [`EV_ACK`] (`on_ack(now, acked, sample, ece)`; `sample = 0` means no sample, MR-REL-26): MR-REL-27
//!   srtt, MR-REL-28 windowed min_rtt, `d = sample - min_rtt` (or the previous `d`), then the quadrant: MR-CC-8
//!   proportional increase `cwnd += acked*(t-d)/t`, MR-CC-9 fair increase `cwnd += mtu*acked/cwnd`, MR-CC-10
//!   multiplicative decrease `cwnd -= cwnd*(d-t)/(2d)` at most once per srtt (the configured base RTT before a
//!   sample), MR-CC-11 no change and `repath`; then the clamp to `[mtu, max_cwnd]`.
//! * [`EV_TRIM`], [`EV_LOSS`] (MR-CC-12): the decrease with `d = max(last_d, 2t)`, then the clamp.
//! * [`EV_TIMEOUT`] (MR-CC-13): `cwnd = mtu`, counted as the last decrease.
//! * [`EV_PACE`] (MR-CC-14): `gap = max(bytes*8e9/line_rate, bytes*srtt/cwnd)` (the second term once srtt is
//!   known), on `gap`; the state is returned unchanged.
//!
//! Arithmetic: the model's u64/u128 integer formulas with truncating divisions (an iterative [`Divider`],
//! 64-bit, 2 bits per cycle) of products from a registered 34x34-bit multiplier ([`Mul`]). The results are
//! exactly the model's whenever the hardware ranges hold (the products then fit 64 bits):
//! `mtu, cwnd, max_cwnd < 2^32`, `acked < 2^32` (at most 256 packets of at most 65535 charged bytes per ACK in
//! hardware), `target_ns < 2^31`, RTT samples `< 2^31` (MR-REL-26 discards larger ones), `bytes < 2^16`,
//! `line_rate_bps < 2^34`... `< 2^64` (only a divisor). Times (`now`, stamps) are full 64-bit ns.
//!
//! Latency from `start` to `done` (cycles, as the test measures them): ACK with an increase or decrease 22
//! for a 4 KiB ACK (the divider iterates over the quotient's nibbles only: 8 iterations here; in general 14
//! plus 2 per nibble the divider processes; an ACK's first state, PRE, registers its sample's comparisons
//! and differences with srtt and min_rtt), ACK without a multiplication (repath, suppressed decrease) 7,
//! timeout 3, pacing 18 for a 4 KiB packet (the two divisions run in parallel and the longer one counts);
//! `ready` is high in idle, one cycle after `done`. Rate: one ACK event per ~23 cycles, one pacing event per
//! ~19, i.e. more than one per ACK and per sent packet of >= ~1.3 KiB at 512 bits;
//! smaller packets need the caller to keep the previous gap (see the sender engine).
//!
//! Remembered gap: the unit keeps its last pacing gap with the four inputs it is a function of (packet bytes,
//! srtt, cwnd, line rate; registers, not per connection). A pacing event whose inputs equal them takes that
//! gap without dividing, in 4 cycles: the packets a connection sends between two ACKs, of one size, share
//! one gap. The comparisons are registered in SAMPLE and read in MUL_A; any other event leaves the memory as
//! it is (it holds no connection state), reset clears it.
//!
//! Per-connection state ([`NsccState`]): 257 bits (cwnd, srtt, min_rtt, last_d 32 bits each; the min_rtt
//! stamp and the last-decrease time 64 bits; a valid bit).

use crate::cc::divider::Divider;
use crate::cc::mul::Mul;
use crate::common::zext::Zext;
use rust_hdl::prelude::*;

/// Event: an ACK (`on_ack`).
pub const EV_ACK: u64 = 0;
/// Event: a NACK TRIMMED (`on_nack_trim`).
pub const EV_TRIM: u64 = 1;
/// Event: a declared loss (`on_loss`).
pub const EV_LOSS: u64 = 2;
/// Event: an RTO expiry (`on_timeout`).
pub const EV_TIMEOUT: u64 = 3;
/// Event: compute the pacing gap (`pacing_gap_ns`).
pub const EV_PACE: u64 = 4;

/// Quadrant codes on `quadrant` (0 = none evaluated).
pub mod quadrant {
    /// MR-CC-8.
    pub const PROPORTIONAL_INCREASE: u64 = 1;
    /// MR-CC-9.
    pub const FAIR_INCREASE: u64 = 2;
    /// MR-CC-10 / MR-CC-12 (also when suppressed by the once-per-srtt rule).
    pub const MULTIPLICATIVE_DECREASE: u64 = 3;
    /// MR-CC-11.
    pub const REPATH: u64 = 4;
    /// MR-CC-13.
    pub const TIMEOUT: u64 = 5;
}

/// The unit's records (`LogicStruct` generates undocumented accessors, hence the module-level allow).
pub mod rec {
    #![allow(missing_docs)]
    use rust_hdl::prelude::*;

    /// NSCC state of one connection (see the module docs for the widths).
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct NsccState {
        /// Congestion window, bytes (initialise to `bdp`, MR-CC-7).
        pub cwnd: Bits<32>,
        /// Smoothed RTT, ns (0 = no sample yet).
        pub srtt: Bits<32>,
        /// Windowed minimum RTT, ns (0 = no sample yet).
        pub min_rtt: Bits<32>,
        /// Queueing delay of the last ACK with a sample, ns.
        pub last_d: Bits<32>,
        /// Time the current min_rtt was taken, ns.
        pub min_stamp: Bits<64>,
        /// Time of the last applied decrease or timeout, ns (valid when `md_valid`).
        pub last_md: Bits<64>,
        /// A decrease or timeout happened.
        pub md_valid: Bit,
    }

    /// A 32-bit value zero-extended to 64 bits (a lint-clean zero extension in generated Verilog).
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct Zx32 {
        pub lo: Bits<32>,
        pub hi: Bits<32>,
    }
}

pub use rec::{NsccState, Zx32};

/// The NSCC unit (see the module docs). Construct with `Default`.
#[derive(LogicBlock)]
pub struct NsccUnit {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Start one event (taken when `ready`).
    pub start: Signal<In, Bit>,
    /// Event kind (`EV_*`).
    pub kind: Signal<In, Bits<3>>,
    /// Current time, ns.
    pub now: Signal<In, Bits<64>>,
    /// ACK: newly acknowledged bytes.
    pub acked: Signal<In, Bits<64>>,
    /// ACK: RTT sample, ns (0 = none).
    pub sample: Signal<In, Bits<64>>,
    /// ACK: ECN echo.
    pub ece: Signal<In, Bit>,
    /// PACE: packet bytes.
    pub bytes: Signal<In, Bits<64>>,
    /// The connection's state before the event.
    pub st_in: Signal<In, NsccState>,
    /// `mtu` (>= 1).
    pub cfg_mtu: Signal<In, Bits<64>>,
    /// `2 * bdp`.
    pub cfg_max_cwnd: Signal<In, Bits<64>>,
    /// Target queueing delay `t`, ns (>= 1).
    pub cfg_target_ns: Signal<In, Bits<64>>,
    /// Base RTT, ns (>= 1).
    pub cfg_base_rtt_ns: Signal<In, Bits<64>>,
    /// min-RTT window, ns.
    pub cfg_min_rtt_window_ns: Signal<In, Bits<64>>,
    /// Line rate, bit/s (>= 1).
    pub cfg_line_rate_bps: Signal<In, Bits<64>>,
    /// Idle: `start` is taken.
    pub ready: Signal<Out, Bit>,
    /// One cycle: the outputs below are the event's result.
    pub done: Signal<Out, Bit>,
    /// The state after the event.
    pub st_out: Signal<Out, NsccState>,
    /// Quadrant evaluated ([`quadrant`] codes).
    pub quadrant: Signal<Out, Bits<3>>,
    /// ACK: ECE with low delay (MR-CC-11): recycle the path.
    pub repath: Signal<Out, Bit>,
    /// PACE: the gap, ns.
    pub gap: Signal<Out, Bits<64>>,
    state: DFF<Bits<4>>,
    kind_r: DFF<Bits<3>>,
    ece_r: DFF<Bit>,
    now_r: DFF<Bits<64>>,
    acked_r: DFF<Bits<64>>,
    sample_r: DFF<Bits<64>>,
    bytes_r: DFF<Bits<64>>,
    cwnd: DFF<Bits<64>>,
    srtt: DFF<Bits<64>>,
    /// An ACK's sample against srtt and min_rtt, registered in PRE for SAMPLE: `sample >= srtt`,
    /// `sample - srtt`, `srtt - sample`, `sample <= min_rtt` and `now - min_stamp > window` (saturating).
    s_ge: DFF<Bit>,
    s_up: DFF<Bits<64>>,
    s_dn: DFF<Bits<64>>,
    mr_le: DFF<Bit>,
    /// `srtt == 0`, registered in PRE.
    s_z: DFF<Bit>,
    /// SAMPLE's srtt candidates (`srtt + e/8`, `srtt - e/8`) and the masks that choose one: an AND-OR, so that
    /// synthesis does not share one adder behind the choice.
    srtt_up: Signal<Local, Bits<64>>,
    srtt_dn: Signal<Local, Bits<64>>,
    m_first: Signal<Local, Bits<64>>,
    m_up: Signal<Local, Bits<64>>,
    m_dn: Signal<Local, Bits<64>>,
    mr_old: DFF<Bit>,
    min_rtt: DFF<Bits<64>>,
    last_d: DFF<Bits<64>>,
    min_stamp: DFF<Bits<64>>,
    last_md: DFF<Bits<64>>,
    md_valid: DFF<Bit>,
    dly: DFF<Bits<64>>,
    dec: DFF<Bit>,
    quad: DFF<Bits<3>>,
    repath_r: DFF<Bit>,
    gap_r: DFF<Bits<64>>,
    done_r: DFF<Bit>,
    /// The last pacing gap and the inputs it was computed from (packet bytes, srtt, cwnd, line rate): a
    /// pacing event with the same inputs takes it without dividing (MR-CC-14's gap is a function of them).
    pm_v: DFF<Bit>,
    pm_bytes: DFF<Bits<64>>,
    pm_srtt: DFF<Bits<64>>,
    pm_cwnd: DFF<Bits<64>>,
    pm_lr: DFF<Bits<64>>,
    pm_gap: DFF<Bits<64>>,
    /// The event's inputs against the remembered ones, registered in SAMPLE for MUL_A (bytes, srtt, cwnd,
    /// line rate).
    pm_eq_b: DFF<Bit>,
    pm_eq_s: DFF<Bit>,
    pm_eq_c: DFF<Bit>,
    pm_eq_l: DFF<Bit>,
    op_a0: DFF<Bits<64>>,
    op_b0: DFF<Bits<64>>,
    op_a1: DFF<Bits<64>>,
    op_b1: DFF<Bits<64>>,
    dv0: DFF<Bits<64>>,
    dv1: DFF<Bits<64>>,
    zx_cwnd: Signal<Local, Zx32>,
    zx_srtt: Signal<Local, Zx32>,
    zx_min: Signal<Local, Zx32>,
    zx_lastd: Signal<Local, Zx32>,
    /// `min_stamp + window` (65 bits), registered when an event starts: `now - min_stamp > window`
    /// (saturating at 0) is `now > min_stamp + window`, one comparison in PRE.
    stw: DFF<Bits<65>>,
    x_ms65: Zext<64, 65>,
    x_w65: Zext<64, 65>,
    x_now65: Zext<64, 65>,
    md_ge: DFF<Bit>,
    md_dt: DFF<Bits<64>>,
    md_lt_s: Signal<Local, Bit>,
    md_lt_b: Signal<Local, Bit>,
    md_lt: Signal<Local, Bit>,
    md_nz: Signal<Local, Bit>,
    /// `md_valid && now - last_md < srtt (or the base RTT)`, registered: taken in DECIDE, computed in DELAY
    /// from `md_ge` / `md_dt` (registered in SAMPLE) and `srtt` (set at the end of SAMPLE), none of which
    /// DELAY changes, so it is that cycle's value (MR-CC-10's once per srtt).
    md_recent: DFF<Bit>,
    sum: Signal<Local, Bits<64>>,
    /// `cwnd + quotient` with its carry (65 bits): the overflow test is the carry, not a second comparison.
    sum65: Signal<Local, Bits<65>>,
    x_cw65: Zext<64, 65>,
    x_q65: Zext<64, 65>,
    two_t: Signal<Local, Bits<64>>,
    k_zero64: Constant<Bits<64>>,
    k_max64: Constant<Bits<64>>,
    k_zero32: Constant<Bits<32>>,
    k_ev_ack: Constant<Bits<3>>,
    k_ev_timeout: Constant<Bits<3>>,
    k_ev_pace: Constant<Bits<3>>,
    k_q_none: Constant<Bits<3>>,
    k_q_pi: Constant<Bits<3>>,
    k_q_fi: Constant<Bits<3>>,
    k_q_md: Constant<Bits<3>>,
    k_q_repath: Constant<Bits<3>>,
    k_q_timeout: Constant<Bits<3>>,
    k_8e9: Constant<Bits<64>>,
    s_idle: Constant<Bits<4>>,
    s_sample: Constant<Bits<4>>,
    s_delay: Constant<Bits<4>>,
    s_decide: Constant<Bits<4>>,
    s_mul_a: Constant<Bits<4>>,
    s_div_start: Constant<Bits<4>>,
    s_div_wait: Constant<Bits<4>>,
    s_apply: Constant<Bits<4>>,
    s_clamp: Constant<Bits<4>>,
    s_done: Constant<Bits<4>>,
    s_pre: Constant<Bits<4>>,

    mul0: Mul,
    mul1: Mul,
    div0: Divider<64, 64>,
    div1: Divider<64, 64>,
}

impl Default for NsccUnit {
    fn default() -> Self {
        NsccUnit {
            clk: Default::default(),
            rst: Default::default(),
            start: Default::default(),
            kind: Default::default(),
            now: Default::default(),
            acked: Default::default(),
            sample: Default::default(),
            ece: Default::default(),
            bytes: Default::default(),
            st_in: Default::default(),
            cfg_mtu: Default::default(),
            cfg_max_cwnd: Default::default(),
            cfg_target_ns: Default::default(),
            cfg_base_rtt_ns: Default::default(),
            cfg_min_rtt_window_ns: Default::default(),
            cfg_line_rate_bps: Default::default(),
            ready: Default::default(),
            done: Default::default(),
            st_out: Default::default(),
            quadrant: Default::default(),
            repath: Default::default(),
            gap: Default::default(),
            state: Default::default(),
            kind_r: Default::default(),
            ece_r: Default::default(),
            now_r: Default::default(),
            acked_r: Default::default(),
            sample_r: Default::default(),
            bytes_r: Default::default(),
            cwnd: Default::default(),
            srtt: Default::default(),
            s_ge: Default::default(),
            s_up: Default::default(),
            s_dn: Default::default(),
            mr_le: Default::default(),
            s_z: Default::default(),
            srtt_up: Default::default(),
            srtt_dn: Default::default(),
            m_first: Default::default(),
            m_up: Default::default(),
            m_dn: Default::default(),
            mr_old: Default::default(),
            min_rtt: Default::default(),
            last_d: Default::default(),
            min_stamp: Default::default(),
            last_md: Default::default(),
            md_valid: Default::default(),
            dly: Default::default(),
            dec: Default::default(),
            quad: Default::default(),
            repath_r: Default::default(),
            gap_r: Default::default(),
            done_r: Default::default(),
            pm_v: Default::default(),
            pm_bytes: Default::default(),
            pm_srtt: Default::default(),
            pm_cwnd: Default::default(),
            pm_lr: Default::default(),
            pm_gap: Default::default(),
            pm_eq_b: Default::default(),
            pm_eq_s: Default::default(),
            pm_eq_c: Default::default(),
            pm_eq_l: Default::default(),
            op_a0: Default::default(),
            op_b0: Default::default(),
            op_a1: Default::default(),
            op_b1: Default::default(),
            dv0: Default::default(),
            dv1: Default::default(),
            zx_cwnd: Default::default(),
            zx_srtt: Default::default(),
            zx_min: Default::default(),
            zx_lastd: Default::default(),
            stw: Default::default(),
            x_ms65: Default::default(),
            x_w65: Default::default(),
            x_now65: Default::default(),
            md_ge: Default::default(),
            md_dt: Default::default(),
            md_lt_s: Default::default(),
            md_lt_b: Default::default(),
            md_lt: Default::default(),
            md_nz: Default::default(),
            md_recent: Default::default(),
            sum: Default::default(),
            sum65: Default::default(),
            x_cw65: Default::default(),
            x_q65: Default::default(),
            two_t: Default::default(),
            k_zero64: Constant::new(0u64.to_bits()),
            k_max64: Constant::new(u64::MAX.to_bits()),
            k_zero32: Constant::new(0u64.to_bits()),
            k_ev_ack: Constant::new(EV_ACK.to_bits()),
            k_ev_timeout: Constant::new(EV_TIMEOUT.to_bits()),
            k_ev_pace: Constant::new(EV_PACE.to_bits()),
            k_q_none: Constant::new(0u64.to_bits()),
            k_q_pi: Constant::new(quadrant::PROPORTIONAL_INCREASE.to_bits()),
            k_q_fi: Constant::new(quadrant::FAIR_INCREASE.to_bits()),
            k_q_md: Constant::new(quadrant::MULTIPLICATIVE_DECREASE.to_bits()),
            k_q_repath: Constant::new(quadrant::REPATH.to_bits()),
            k_q_timeout: Constant::new(quadrant::TIMEOUT.to_bits()),
            k_8e9: Constant::new(8_000_000_000u64.to_bits()),
            s_idle: Constant::new(0u64.to_bits()),
            s_sample: Constant::new(1u64.to_bits()),
            s_delay: Constant::new(2u64.to_bits()),
            s_decide: Constant::new(3u64.to_bits()),
            s_mul_a: Constant::new(4u64.to_bits()),
            s_div_start: Constant::new(5u64.to_bits()),
            s_div_wait: Constant::new(6u64.to_bits()),
            s_apply: Constant::new(7u64.to_bits()),
            s_clamp: Constant::new(8u64.to_bits()),
            s_done: Constant::new(9u64.to_bits()),
            s_pre: Constant::new(10u64.to_bits()),

            mul0: Mul::new(34, 34),
            mul1: Mul::new(34, 34),
            div0: Divider::new(2),
            div1: Divider::new(2),
        }
    }
}

impl Logic for NsccUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, state, kind_r, ece_r, now_r, acked_r, sample_r, bytes_r, cwnd, srtt,
            min_rtt, last_d, min_stamp, last_md, md_valid, dly, dec, quad, repath_r, gap_r, done_r,
            op_a0, op_b0, op_a1, op_b1, dv0, dv1
        );
        dff_setup!(self, clk, md_recent, md_ge, md_dt, s_ge, s_up, s_dn, mr_le, mr_old, stw, s_z);
        dff_setup!(
            self, clk, pm_v, pm_bytes, pm_srtt, pm_cwnd, pm_lr, pm_gap, pm_eq_b, pm_eq_s, pm_eq_c,
            pm_eq_l
        );
        self.mul0.clk.next = self.clk.val();
        self.mul1.clk.next = self.clk.val();
        self.div0.clk.next = self.clk.val();
        self.div1.clk.next = self.clk.val();
        self.div0.rst.next = self.rst.val();
        self.div1.rst.next = self.rst.val();
        self.mul0.a.next = self.op_a0.q.val();
        self.mul0.b.next = self.op_b0.q.val();
        self.mul1.a.next = self.op_a1.q.val();
        self.mul1.b.next = self.op_b1.q.val();
        self.div0.dividend.next = self.mul0.p.val();
        self.div1.dividend.next = self.mul1.p.val();
        self.div0.divisor.next = self.dv0.q.val();
        self.div1.divisor.next = self.dv1.q.val();
        self.div0.start.next = self.state.q.val() == self.s_div_start.val();
        // The second divider serves only the pacing gap's second term.
        self.div1.start.next = self.state.q.val() == self.s_div_start.val()
            && self.kind_r.q.val() == self.k_ev_pace.val();
        // Zero extensions of the 32-bit state fields.
        self.zx_cwnd.next.lo = self.st_in.val().cwnd;
        self.zx_cwnd.next.hi = self.k_zero32.val();
        self.zx_srtt.next.lo = self.st_in.val().srtt;
        self.zx_srtt.next.hi = self.k_zero32.val();
        self.zx_min.next.lo = self.st_in.val().min_rtt;
        self.zx_min.next.hi = self.k_zero32.val();
        self.zx_lastd.next.lo = self.st_in.val().last_d;
        self.zx_lastd.next.hi = self.k_zero32.val();
        // MR-REL-28's window test `now - stamp > window`, the difference saturating at 0 (the model's
        // saturating_sub): `now > stamp + window` in 65 bits.
        self.x_ms65.i.next = self.st_in.val().min_stamp;
        self.x_w65.i.next = self.cfg_min_rtt_window_ns.val();
        self.x_now65.i.next = self.now_r.q.val();
        // `now - last_md` (saturating) `< srtt`, in two registered steps: the event's time and `last_md` are
        // set from SAMPLE on, `srtt` at the end of SAMPLE, and DECIDE reads the result. `md_ge` / `md_dt` are
        // `now >= last_md` and `now - last_md` (a cycle behind), `md_recent` the comparison on them.
        self.md_ge.d.next = self.now_r.q.val() >= self.last_md.q.val();
        self.md_dt.d.next = self.now_r.q.val() - self.last_md.q.val();
        // (a saturated difference, 0, is below srtt unless srtt is 0; the difference is compared with srtt and
        // with the base RTT side by side, the zero test on srtt choosing, so no comparison waits for a select)
        self.md_lt_s.next = self.md_dt.q.val() < self.srtt.q.val();
        self.md_lt_b.next = self.md_dt.q.val() < self.cfg_base_rtt_ns.val();
        if self.srtt.q.val() == self.k_zero64.val() {
            self.md_lt.next = self.md_lt_b.val();
            self.md_nz.next = self.cfg_base_rtt_ns.val() != self.k_zero64.val();
        } else {
            self.md_lt.next = self.md_lt_s.val();
            self.md_nz.next = true;
        }
        if self.md_ge.q.val() {
            self.md_recent.d.next = self.md_valid.q.val() && self.md_lt.val();
        } else {
            self.md_recent.d.next = self.md_valid.q.val() && self.md_nz.val();
        }
        self.x_cw65.i.next = self.cwnd.q.val();
        self.x_q65.i.next = self.div0.quotient.val();
        self.sum65.next = self.x_cw65.o.val() + self.x_q65.o.val();
        self.sum.next = self.sum65.val().get_bits::<64>(0);
        self.two_t.next = self.cfg_target_ns.val() + self.cfg_target_ns.val();
        // MR-REL-27's srtt update for SAMPLE (the first sample taken as it is).
        self.srtt_up.next = self.srtt.q.val() + (self.s_up.q.val() >> 3);
        self.srtt_dn.next = self.srtt.q.val() - (self.s_dn.q.val() >> 3);
        self.m_first.next = self.k_zero64.val();
        self.m_up.next = self.k_zero64.val();
        self.m_dn.next = self.k_zero64.val();
        if self.s_z.q.val() {
            self.m_first.next = self.k_max64.val();
        } else if self.s_ge.q.val() {
            self.m_up.next = self.k_max64.val();
        } else {
            self.m_dn.next = self.k_max64.val();
        }
        self.done_r.d.next = false;
        if self.state.q.val() == self.s_idle.val() {
            if self.start.val() {
                self.kind_r.d.next = self.kind.val();
                self.ece_r.d.next = self.ece.val();
                self.now_r.d.next = self.now.val();
                self.acked_r.d.next = self.acked.val();
                self.sample_r.d.next = self.sample.val();
                self.bytes_r.d.next = self.bytes.val();
                self.cwnd.d.next = self.zx_cwnd.val().into();
                self.srtt.d.next = self.zx_srtt.val().into();
                self.min_rtt.d.next = self.zx_min.val().into();
                self.last_d.d.next = self.zx_lastd.val().into();
                self.min_stamp.d.next = self.st_in.val().min_stamp;
                self.stw.d.next = self.x_ms65.o.val() + self.x_w65.o.val();
                self.last_md.d.next = self.st_in.val().last_md;
                self.md_valid.d.next = self.st_in.val().md_valid;
                self.quad.d.next = self.k_q_none.val();
                self.repath_r.d.next = false;
                self.gap_r.d.next = self.k_zero64.val();
                self.state.d.next = self.s_sample.val();
                if self.kind.val() == self.k_ev_ack.val() {
                    self.state.d.next = self.s_pre.val();
                }
            }
        } else if self.state.q.val() == self.s_pre.val() {
            // An ACK's comparisons and differences for SAMPLE, so that its srtt update is one carry chain.
            self.s_ge.d.next = self.sample_r.q.val() >= self.srtt.q.val();
            self.s_up.d.next = self.sample_r.q.val() - self.srtt.q.val();
            self.s_dn.d.next = self.srtt.q.val() - self.sample_r.q.val();
            self.mr_le.d.next = self.sample_r.q.val() <= self.min_rtt.q.val();
            self.s_z.d.next = self.srtt.q.val() == self.k_zero64.val();
            self.mr_old.d.next = self.x_now65.o.val() > self.stw.q.val();
            self.state.d.next = self.s_sample.val();
        } else if self.state.q.val() == self.s_sample.val() {
            self.state.d.next = self.s_delay.val();
            if self.kind_r.q.val() == self.k_ev_ack.val()
                && self.sample_r.q.val() != self.k_zero64.val()
            {
                // MR-REL-27: srtt; MR-REL-28: windowed min_rtt.
                self.srtt.d.next = (self.sample_r.q.val() & self.m_first.val())
                    | (self.srtt_up.val() & self.m_up.val())
                    | (self.srtt_dn.val() & self.m_dn.val());
                if self.min_rtt.q.val() == self.k_zero64.val()
                    || self.mr_le.q.val()
                    || self.mr_old.q.val()
                {
                    self.min_rtt.d.next = self.sample_r.q.val();
                    self.min_stamp.d.next = self.now_r.q.val();
                }
            }
            if self.kind_r.q.val() == self.k_ev_timeout.val() {
                // MR-CC-13.
                self.quad.d.next = self.k_q_timeout.val();
                self.cwnd.d.next = self.cfg_mtu.val();
                self.last_md.d.next = self.now_r.q.val();
                self.md_valid.d.next = true;
                self.state.d.next = self.s_done.val();
            }
            if self.kind_r.q.val() == self.k_ev_pace.val() {
                // MR-CC-14: bytes * 8e9 / line_rate and bytes * srtt / cwnd (or the remembered gap, MUL_A).
                self.pm_eq_b.d.next = self.bytes_r.q.val() == self.pm_bytes.q.val();
                self.pm_eq_s.d.next = self.srtt.q.val() == self.pm_srtt.q.val();
                self.pm_eq_c.d.next = self.cwnd.q.val() == self.pm_cwnd.q.val();
                self.pm_eq_l.d.next = self.cfg_line_rate_bps.val() == self.pm_lr.q.val();
                self.op_a0.d.next = self.bytes_r.q.val();
                self.op_b0.d.next = self.k_8e9.val();
                self.dv0.d.next = self.cfg_line_rate_bps.val();
                self.op_a1.d.next = self.bytes_r.q.val();
                self.op_b1.d.next = self.srtt.q.val();
                self.dv1.d.next = self.cwnd.q.val();
                self.state.d.next = self.s_mul_a.val();
            }
        } else if self.state.q.val() == self.s_delay.val() {
            self.state.d.next = self.s_decide.val();
            if self.kind_r.q.val() == self.k_ev_ack.val() {
                if self.sample_r.q.val() != self.k_zero64.val() {
                    self.last_d.d.next = self.sample_r.q.val() - self.min_rtt.q.val();
                    self.dly.d.next = self.sample_r.q.val() - self.min_rtt.q.val();
                } else {
                    self.dly.d.next = self.last_d.q.val();
                }
            } else if self.last_d.q.val() > self.two_t.val() {
                // MR-CC-12: d = max(last_d, 2t).
                self.dly.d.next = self.last_d.q.val();
            } else {
                self.dly.d.next = self.two_t.val();
            }
        } else if self.state.q.val() == self.s_decide.val() {
            self.state.d.next = self.s_clamp.val();
            self.dec.d.next = false;
            if self.kind_r.q.val() == self.k_ev_ack.val()
                && !self.ece_r.q.val()
                && self.dly.q.val() < self.cfg_target_ns.val()
            {
                // MR-CC-8.
                self.quad.d.next = self.k_q_pi.val();
                self.op_a0.d.next = self.acked_r.q.val();
                self.op_b0.d.next = self.cfg_target_ns.val() - self.dly.q.val();
                self.dv0.d.next = self.cfg_target_ns.val();
                self.state.d.next = self.s_mul_a.val();
            } else if self.kind_r.q.val() == self.k_ev_ack.val() && !self.ece_r.q.val() {
                // MR-CC-9.
                self.quad.d.next = self.k_q_fi.val();
                self.op_a0.d.next = self.cfg_mtu.val();
                self.op_b0.d.next = self.acked_r.q.val();
                self.dv0.d.next = self.cwnd.q.val();
                self.state.d.next = self.s_mul_a.val();
            } else if self.kind_r.q.val() == self.k_ev_ack.val()
                && self.dly.q.val() < self.cfg_target_ns.val()
            {
                // MR-CC-11.
                self.quad.d.next = self.k_q_repath.val();
                self.repath_r.d.next = true;
            } else {
                // MR-CC-10 / MR-CC-12: at most once per srtt.
                self.quad.d.next = self.k_q_md.val();
                if !self.md_recent.q.val() {
                    self.dec.d.next = true;
                    self.op_a0.d.next = self.cwnd.q.val();
                    self.op_b0.d.next = self.dly.q.val() - self.cfg_target_ns.val();
                    self.dv0.d.next = self.dly.q.val() + self.dly.q.val();
                    self.state.d.next = self.s_mul_a.val();
                }
            }
        } else if self.state.q.val() == self.s_mul_a.val() {
            self.state.d.next = self.s_div_start.val();
            if self.kind_r.q.val() == self.k_ev_pace.val()
                && self.pm_v.q.val()
                && self.pm_eq_b.q.val()
                && self.pm_eq_s.q.val()
                && self.pm_eq_c.q.val()
                && self.pm_eq_l.q.val()
            {
                // The same inputs as the last pacing gap: the same gap.
                self.gap_r.d.next = self.pm_gap.q.val();
                self.state.d.next = self.s_done.val();
            }
        } else if self.state.q.val() == self.s_div_start.val() {
            self.state.d.next = self.s_div_wait.val();
        } else if self.state.q.val() == self.s_div_wait.val() {
            // The result(s): the dividers finish early by their dividends' sizes (see `Divider`); the
            // second one runs only for the pacing gap, whose two divisions may end in either order.
            if (self.kind_r.q.val() != self.k_ev_pace.val() && self.div0.done.val())
                || (self.kind_r.q.val() == self.k_ev_pace.val()
                    && !self.div0.busy.val()
                    && !self.div1.busy.val())
            {
                self.state.d.next = self.s_apply.val();
            }
        } else if self.state.q.val() == self.s_apply.val() {
            self.state.d.next = self.s_clamp.val();
            if self.kind_r.q.val() == self.k_ev_pace.val() {
                self.gap_r.d.next = self.div0.quotient.val();
                if self.srtt.q.val() != self.k_zero64.val()
                    && self.div1.quotient.val() > self.div0.quotient.val()
                {
                    self.gap_r.d.next = self.div1.quotient.val();
                }
                self.state.d.next = self.s_done.val();
            } else if self.dec.q.val() {
                self.cwnd.d.next = self.cwnd.q.val() - self.div0.quotient.val();
                self.last_md.d.next = self.now_r.q.val();
                self.md_valid.d.next = true;
            } else if self.sum65.val().get_bit(64) {
                self.cwnd.d.next = self.k_max64.val();
            } else {
                self.cwnd.d.next = self.sum.val();
            }
        } else if self.state.q.val() == self.s_clamp.val() {
            self.state.d.next = self.s_done.val();
            if self.cwnd.q.val() < self.cfg_mtu.val() {
                self.cwnd.d.next = self.cfg_mtu.val();
            } else if self.cwnd.q.val() > self.cfg_max_cwnd.val() {
                self.cwnd.d.next = self.cfg_max_cwnd.val();
            }
        } else if self.state.q.val() == self.s_done.val() {
            self.done_r.d.next = true;
            if self.kind_r.q.val() == self.k_ev_pace.val() {
                // Remember the gap with its inputs (`dv0` holds the line rate the division used).
                self.pm_v.d.next = true;
                self.pm_bytes.d.next = self.bytes_r.q.val();
                self.pm_srtt.d.next = self.srtt.q.val();
                self.pm_cwnd.d.next = self.cwnd.q.val();
                self.pm_lr.d.next = self.dv0.q.val();
                self.pm_gap.d.next = self.gap_r.q.val();
            }
            self.state.d.next = self.s_idle.val();
        } else {
            self.state.d.next = self.s_idle.val();
        }

        if self.rst.val() {
            self.state.d.next = self.s_idle.val();
            self.done_r.d.next = false;
            self.pm_v.d.next = false;
        }
        self.ready.next = self.state.q.val() == self.s_idle.val();
        self.done.next = self.done_r.q.val();
        self.st_out.next.cwnd = self.cwnd.q.val().get_bits::<32>(0);
        self.st_out.next.srtt = self.srtt.q.val().get_bits::<32>(0);
        self.st_out.next.min_rtt = self.min_rtt.q.val().get_bits::<32>(0);
        self.st_out.next.last_d = self.last_d.q.val().get_bits::<32>(0);
        self.st_out.next.min_stamp = self.min_stamp.q.val();
        self.st_out.next.last_md = self.last_md.q.val();
        self.st_out.next.md_valid = self.md_valid.q.val();
        self.quadrant.next = self.quad.q.val();
        self.repath.next = self.repath_r.q.val();
        self.gap.next = self.gap_r.q.val();
    }
}

/// This file's blocks.
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![crate::blocks::BlockSpec {
        name: "metaroce_cc_nscc",
        area: "cc",
        description:
            "NSCC window control and pacing gap per event, bit-exact with the reference model",
        verilog: |_cfg| crate::gen::verilog("metaroce_cc_nscc", NsccUnit::default()),
    }]
}
