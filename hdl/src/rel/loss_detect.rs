//! Loss detection rules for one PSN record (spec 4.8): (b) time / RACK (MR-REL-36, MR-REL-37), (c) reorder
//! distance (MR-REL-38) and (d) timeout (MR-REL-39), exactly as
//! `metaroce_proto::transport::loss::SendWindow::{detect_losses, on_rto}` decide them. [`LossLane`] is
//! combinational; [`crate::rel::ack_proc::AckProc`] runs four of them per cycle over the per-PSN records of
//! a connection (one RAM word) and marks the declared PSNs lost.
//!
//! Inputs per scan (the caller computes them once per run): `now_r = now32 - rto` and `now_m = now32 -
//! srtt_reo` with `srtt_reo = srtt + reo_mult * reo_wnd` (ns, saturated to 32 bits; `now32` is ns mod 2^32),
//! `distance = min(reo_mult * reorder_distance, 256)` (the hardware window) and the run's range length `span`
//! (`hi_acked - snd_una`, or `snd_nxt - snd_una` in a timeout run); per record, its offsets `psn - snd_una`
//! and `hi_acked - psn`, which the caller keeps in
//! registers stepped with the scan, so that every range test is one comparison of registers.
//!
//! * Detection run (`rto_mode = 0`), for `psn` in `[snd_una, hi_acked)` (the model scans `una..highest_acked`,
//!   only when something was acknowledged): a record that is neither acknowledged nor already declared lost and
//!   was sent before the latest acknowledged transmission (`ts < rack_ts`) is declared lost by distance when
//!   `hi_acked - psn >= distance`, else by time when `now >= ts + srtt_reo`; otherwise its deadline
//!   `ts + srtt_reo` is a candidate for the RACK timer (`pend`).
//! * Timeout run (`rto_mode = 1`), for `psn` in `[snd_una, snd_nxt)`: such a record is declared lost when
//!   `now - ts >= rto`.
//!
//! A declared record gets the lost flag and leaves the in-flight bytes (`dec` = its charged bytes when it was
//! in flight). `queued` reports a record in range that is still declared and not retransmitted (the model's
//! non-empty retransmission queue, `has_lost`).
//!
//! Time comparisons are 32-bit serial (ns mod 2^32; the model compares 64-bit times): equal while every
//! outstanding record is younger than 2^31 ns (2.1 s) and deadlines are less than 2^31 ns away (the timeout
//! test `now - ts >= rto` is `now_r - ts` below 2^31, so it also takes `rto` below 2^31 ns, as the timer wheel
//! that fires the run does).

use crate::rel::ack_proc::Zx16;
use rust_hdl::prelude::*;

/// One PSN's loss decision (see the module docs). Construct with `Default`.
#[derive(LogicBlock)]
pub struct LossLane {
    /// Timeout run (rule d) instead of a detection run (rules b and c).
    pub rto_mode: Signal<In, Bit>,
    /// `psn - snd_una` of the record.
    pub off: Signal<In, Bits<32>>,
    /// The run's range length: `hi_acked - snd_una` (detection) or `snd_nxt - snd_una` (timeout).
    pub span: Signal<In, Bits<32>>,
    /// `hi_acked - psn` of the record.
    pub hoff: Signal<In, Bits<32>>,
    /// TS of the latest acknowledged transmission (RACK).
    pub rack_ts: Signal<In, Bits<32>>,
    /// `now32 - srtt_reo` (registered by the caller once per run).
    pub now_m: Signal<In, Bits<32>>,
    /// Reorder distance in packets.
    pub distance: Signal<In, Bits<32>>,
    /// `now32 - rto` with `rto` the effective timeout (ns), registered by the caller once per run.
    pub now_r: Signal<In, Bits<32>>,
    /// The record's TS.
    pub ts: Signal<In, Bits<32>>,
    /// The record's charged bytes.
    pub charged: Signal<In, Bits<16>>,
    /// In-flight flag.
    pub inflight: Signal<In, Bit>,
    /// Acknowledged flag.
    pub acked: Signal<In, Bit>,
    /// Lost (declared, not yet retransmitted) flag.
    pub lost: Signal<In, Bit>,
    /// Declared lost by this run.
    pub declare: Signal<Out, Bit>,
    /// A RACK deadline candidate: its deadline `ts + srtt_reo` is pending.
    pub pend: Signal<Out, Bit>,
    /// Bytes leaving the in-flight count.
    pub dec: Signal<Out, Bits<32>>,
    /// In-flight flag after.
    pub inflight_out: Signal<Out, Bit>,
    /// Lost flag after.
    pub lost_out: Signal<Out, Bit>,
    /// In range, declared and not acknowledged after this run.
    pub queued: Signal<Out, Bit>,
    /// Declared by the reorder distance (rule (c)); a detection-run declaration without it is by time.
    pub by_far: Signal<Out, Bit>,
    in_range: Signal<Local, Bit>,
    cand: Signal<Local, Bit>,
    older: Signal<Local, Bit>,
    rk: Signal<Local, Bits<32>>,
    far: Signal<Local, Bit>,
    due: Signal<Local, Bit>,
    age: Signal<Local, Bits<32>>,
    zx_c: Signal<Local, Zx16>,
    k_half: Constant<Bits<32>>,
    k_half_m1: Constant<Bits<32>>,
    k_zero16: Constant<Bits<16>>,
    k_zero32: Constant<Bits<32>>,
}

impl Default for LossLane {
    fn default() -> Self {
        LossLane {
            rto_mode: Default::default(),
            off: Default::default(),
            span: Default::default(),
            hoff: Default::default(),
            rack_ts: Default::default(),
            now_m: Default::default(),
            distance: Default::default(),
            by_far: Default::default(),
            now_r: Default::default(),
            ts: Default::default(),
            charged: Default::default(),
            inflight: Default::default(),
            acked: Default::default(),
            lost: Default::default(),
            declare: Default::default(),
            pend: Default::default(),
            dec: Default::default(),
            inflight_out: Default::default(),
            lost_out: Default::default(),
            queued: Default::default(),
            in_range: Default::default(),
            cand: Default::default(),
            older: Default::default(),
            rk: Default::default(),
            far: Default::default(),
            due: Default::default(),
            age: Default::default(),
            zx_c: Default::default(),
            k_half: Constant::new(0x8000_0000u64.to_bits()),
            k_half_m1: Constant::new(0x7fff_ffffu64.to_bits()),
            k_zero16: Constant::new(0u64.to_bits()),
            k_zero32: Constant::new(0u64.to_bits()),
        }
    }
}

impl Logic for LossLane {
    #[hdl_gen]
    fn update(&mut self) {
        // Detection: psn in [una, hi); timeout: psn in [una, nxt) (serial arithmetic: psn - una below the span).
        self.in_range.next = self.off.val() < self.span.val();
        self.cand.next = self.in_range.val() && !self.acked.val() && !self.lost.val();
        // ts < rack_ts: rack_ts - ts in [1, 2^31), that is rack_ts - ts - 1 = rack_ts + !ts below 2^31 - 1: its
        // top bit clear and the rest not all ones (one adder, then a reduction, not a second carry chain).
        self.rk.next = self.rack_ts.val() + !self.ts.val();
        self.older.next = !self.rk.val().get_bit(31)
            && (self.rk.val().get_bits::<31>(0) != self.k_half_m1.val().get_bits::<31>(0));
        self.far.next = self.hoff.val() >= self.distance.val();
        // now - ts >= rto, as now - rto - ts (mod 2^32) below 2^31 (serial, as the other time tests).
        self.age.next = self.now_r.val() - self.ts.val();
        // now >= ts + srtt_reo, as now - srtt_reo - ts (mod 2^32, the same value).
        self.due.next = (self.now_m.val() - self.ts.val()) < self.k_half.val();
        self.declare.next = false;
        self.pend.next = false;
        if self.rto_mode.val() {
            self.declare.next = self.cand.val() && !self.age.val().get_bit(31);
        } else if self.cand.val() && self.older.val() {
            if self.far.val() || self.due.val() {
                self.declare.next = true;
            } else {
                self.pend.next = true;
            }
        }
        self.zx_c.next.lo = self.charged.val();
        self.zx_c.next.hi = self.k_zero16.val();
        self.dec.next = self.k_zero32.val();
        self.inflight_out.next = self.inflight.val();
        self.lost_out.next = self.lost.val();
        if self.declare.val() {
            self.lost_out.next = true;
            self.inflight_out.next = false;
            if self.inflight.val() {
                self.dec.next = self.zx_c.val().into();
            }
        }
        self.queued.next = self.in_range.val() && !self.acked.val() && self.lost_out.val();
        self.by_far.next = self.declare.val() && !self.rto_mode.val() && self.far.val();
    }
}
