//! RTT estimator and retransmission timeout (MR-REL-26..31, MR-REL-36), in integer arithmetic exactly as
//! `metaroce_proto::transport::rtt::RttEstimator`, one connection's state at a time (the caller keeps the
//! [`RttState`] in its per-connection RAM).
//!
//! Operations (on `in_valid`): `upd_sample` = `on_sample(sample)` (first sample: `srtt = s, rttvar = s/2`;
//! later: `e = s - srtt`, `srtt += e/8`, `rttvar += (|e| - rttvar)/4`, divisions truncating toward zero;
//! backoff cleared), `upd_timeout` = `on_timeout()` (backoff + 1), neither = a query. Every operation outputs
//! the resulting state, `rto = min(clamp(has ? srtt + 4*rttvar : rto_init, rto_min, rto_max) << backoff,
//! rto_max)` (MR-REL-29, MR-REL-30) and `reo_wnd = max(srtt/4, 2*rttvar, 1000)` (MR-REL-36, before the
//! MR-REL-59 multiplier), computed from the unsaturated new values.
//!
//! Storage: `srtt` and `rttvar` are ns24 (regmap `context::conn` SRTT / RTTVAR): stored saturated at 2^24 - 1.
//! For RTT samples below 2^24 ns (16.7 ms) srtt and rttvar stay below 2^24 and every output equals the
//! model's; with larger samples the stored values saturate (the model keeps them exact), so later `rto`,
//! `reo_wnd` may be smaller than the model's. `backoff` is 5 bits (regmap BACKOFF) and saturates at 31 (the
//! model at 32): the `rto` is the same whenever `rto_max <= max(rto_min, 1) * 2^31`. `rto_max` is taken as
//! `max(rto_max, rto_min)` as the model does. The model's windowed `min_rtt` of this estimator decides nothing
//! in the model; the windowed minimum that matters (MR-REL-28) is NSCC's (`cc::nscc`).
//!
//! Pipeline: [`LATENCY`] = 8 cycles from `in_valid` to `out_valid` (eight register stages: the first registers
//! the operation with `|sample - srtt|` and the second `|e| >= rttvar` with both differences, so that the state
//! update does not chain those carries into its own; the base RTO `srtt + 4 rttvar` and `max(srtt / 4,
//! 2 rttvar)` are registered before their clamps; the backoff shift takes three, each step's saturation test
//! made for every value the step before can give, side by side), one operation per cycle. Configuration
//! values `< 2^62`; `max(rto_max, rto_min)` is registered, so a configuration write takes effect a cycle later.

use rust_hdl::prelude::*;

/// Cycles from `in_valid` to `out_valid`.
pub const LATENCY: usize = 8;

/// Records of the estimator.
pub mod rec {
    #![allow(missing_docs)]
    use rust_hdl::prelude::*;

    /// One connection's estimator state (54 bits).
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct RttState {
        /// Smoothed RTT, ns24.
        pub srtt: Bits<24>,
        /// RTT variation, ns24.
        pub rttvar: Bits<24>,
        /// A sample was taken.
        pub has: Bit,
        /// Consecutive timeouts since the last sample (0..=31).
        pub backoff: Bits<5>,
    }

    /// A 24-bit value zero-extended to 64 bits (lint-clean zero extension).
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct Zx24 {
        pub lo: Bits<24>,
        pub hi: Bits<40>,
    }
}

pub use rec::{RttState, Zx24};

/// The estimator (see the module docs). Construct with `Default`.
#[derive(LogicBlock)]
pub struct RttUnit {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// An operation.
    pub in_valid: Signal<In, Bit>,
    /// Take `sample` (MR-REL-27).
    pub upd_sample: Signal<In, Bit>,
    /// One more timeout (MR-REL-30).
    pub upd_timeout: Signal<In, Bit>,
    /// The sample, ns (the caller passes `max(sample, 1)` as the model does).
    pub sample: Signal<In, Bits<64>>,
    /// State before.
    pub st_in: Signal<In, RttState>,
    /// RTO lower bound, ns.
    pub cfg_rto_min_ns: Signal<In, Bits<64>>,
    /// RTO before the first sample, ns.
    pub cfg_rto_init_ns: Signal<In, Bits<64>>,
    /// RTO upper bound, ns.
    pub cfg_rto_max_ns: Signal<In, Bits<64>>,
    /// Result valid ([`LATENCY`] cycles after `in_valid`).
    pub out_valid: Signal<Out, Bit>,
    /// State after.
    pub st_out: Signal<Out, RttState>,
    /// Smoothed RTT after, ns (unsaturated).
    pub srtt: Signal<Out, Bits<64>>,
    /// RTO including backoff, ns.
    pub rto: Signal<Out, Bits<64>>,
    /// RACK reordering window before the multiplier, ns.
    pub reo_wnd: Signal<Out, Bits<64>>,
    // stage 0: the operation and |e|
    v0: DFF<Bit>,
    us0: DFF<Bit>,
    ut0: DFF<Bit>,
    samp0: DFF<Bits<64>>,
    st0: DFF<RttState>,
    ae0: DFF<Bits<64>>,
    ge0: DFF<Bit>,
    // stage 0b: rttvar's comparison and differences
    vp: DFF<Bit>,
    usp: DFF<Bit>,
    utp: DFF<Bit>,
    sampp: DFF<Bits<64>>,
    stp: DFF<RttState>,
    aep: DFF<Bits<64>>,
    gep: DFF<Bit>,
    dge: DFF<Bit>,
    dup: DFF<Bits<64>>,
    ddn: DFF<Bits<64>>,
    zx_var0: Signal<Local, Zx24>,
    v_st0: Signal<Local, Bits<64>>,
    // stage 1
    v1: DFF<Bit>,
    srtt1: DFF<Bits<64>>,
    var1: DFF<Bits<64>>,
    has1: DFF<Bit>,
    bo1: DFF<Bits<5>>,
    // stage 2a
    v2a: DFF<Bit>,
    base2a: DFF<Bits<64>>,
    bo2a: DFF<Bits<5>>,
    reo2a: DFF<Bits<64>>,
    srtt2a: DFF<Bits<64>>,
    st2a: DFF<RttState>,
    // stage 2
    v2: DFF<Bit>,
    base2: DFF<Bits<64>>,
    bo2: DFF<Bits<5>>,
    reo2: DFF<Bits<64>>,
    srtt2: DFF<Bits<64>>,
    st2: DFF<RttState>,
    // stage 3
    v3: DFF<Bit>,
    r3: DFF<Bits<64>>,
    bo3: DFF<Bits<5>>,
    reo3: DFF<Bits<64>>,
    srtt3: DFF<Bits<64>>,
    st3: DFF<RttState>,
    // stage 3b
    v3b: DFF<Bit>,
    r3b: DFF<Bits<64>>,
    bo3b: DFF<Bits<5>>,
    reo3b: DFF<Bits<64>>,
    srtt3b: DFF<Bits<64>>,
    st3b: DFF<RttState>,
    // stage 4 (outputs)
    v4: DFF<Bit>,
    r4: DFF<Bits<64>>,
    reo4: DFF<Bits<64>>,
    srtt4: DFF<Bits<64>>,
    st4: DFF<RttState>,
    zx_srtt: Signal<Local, Zx24>,
    zx_var: Signal<Local, Zx24>,
    zx_old: Signal<Local, Zx24>,
    s_in: Signal<Local, Bits<64>>,
    s_old: Signal<Local, Bits<64>>,
    v_old: Signal<Local, Bits<64>>,
    ae: Signal<Local, Bits<64>>,
    rmax: Signal<Local, Bits<64>>,
    rmax_q: DFF<Bits<64>>,
    g_a1: Signal<Local, Bit>,
    g_b0: Signal<Local, Bit>,
    g_bm: Signal<Local, Bit>,
    g_b2: Signal<Local, Bit>,
    g_b: Signal<Local, Bit>,
    g_c1: Signal<Local, Bit>,
    g_d0: Signal<Local, Bit>,
    g_dm: Signal<Local, Bit>,
    g_d2: Signal<Local, Bit>,
    g_d: Signal<Local, Bit>,
    base: Signal<Local, Bits<64>>,
    sh_a: Signal<Local, Bits<64>>,
    sh_b: Signal<Local, Bits<64>>,
    sh_c: Signal<Local, Bits<64>>,
    sh_d: Signal<Local, Bits<64>>,
    reo: Signal<Local, Bits<64>>,
    k_zero40: Constant<Bits<40>>,
    k_ns24_max: Constant<Bits<64>>,
    k_1000: Constant<Bits<64>>,
    k_bo_max: Constant<Bits<5>>,
    k_bo_zero: Constant<Bits<5>>,
    k_bo_one: Constant<Bits<5>>,
}

impl Default for RttUnit {
    fn default() -> Self {
        RttUnit {
            clk: Default::default(),
            rst: Default::default(),
            in_valid: Default::default(),
            upd_sample: Default::default(),
            upd_timeout: Default::default(),
            sample: Default::default(),
            st_in: Default::default(),
            cfg_rto_min_ns: Default::default(),
            cfg_rto_init_ns: Default::default(),
            cfg_rto_max_ns: Default::default(),
            out_valid: Default::default(),
            st_out: Default::default(),
            srtt: Default::default(),
            rto: Default::default(),
            reo_wnd: Default::default(),
            v1: Default::default(),
            v0: Default::default(),
            us0: Default::default(),
            ut0: Default::default(),
            samp0: Default::default(),
            st0: Default::default(),
            ae0: Default::default(),
            ge0: Default::default(),
            vp: Default::default(),
            usp: Default::default(),
            utp: Default::default(),
            sampp: Default::default(),
            stp: Default::default(),
            aep: Default::default(),
            gep: Default::default(),
            dge: Default::default(),
            dup: Default::default(),
            ddn: Default::default(),
            zx_var0: Default::default(),
            v_st0: Default::default(),
            srtt1: Default::default(),
            var1: Default::default(),
            has1: Default::default(),
            bo1: Default::default(),
            v2a: Default::default(),
            base2a: Default::default(),
            bo2a: Default::default(),
            reo2a: Default::default(),
            srtt2a: Default::default(),
            st2a: Default::default(),
            v2: Default::default(),
            base2: Default::default(),
            bo2: Default::default(),
            reo2: Default::default(),
            srtt2: Default::default(),
            st2: Default::default(),
            v3: Default::default(),
            r3: Default::default(),
            bo3: Default::default(),
            reo3: Default::default(),
            srtt3: Default::default(),
            st3: Default::default(),
            v3b: Default::default(),
            r3b: Default::default(),
            bo3b: Default::default(),
            reo3b: Default::default(),
            srtt3b: Default::default(),
            st3b: Default::default(),
            v4: Default::default(),
            r4: Default::default(),
            reo4: Default::default(),
            srtt4: Default::default(),
            st4: Default::default(),
            zx_srtt: Default::default(),
            zx_var: Default::default(),
            zx_old: Default::default(),
            s_in: Default::default(),
            s_old: Default::default(),
            v_old: Default::default(),
            ae: Default::default(),
            rmax: Default::default(),
            rmax_q: Default::default(),
            g_a1: Default::default(),
            g_b0: Default::default(),
            g_bm: Default::default(),
            g_b2: Default::default(),
            g_b: Default::default(),
            g_c1: Default::default(),
            g_d0: Default::default(),
            g_dm: Default::default(),
            g_d2: Default::default(),
            g_d: Default::default(),
            base: Default::default(),
            sh_a: Default::default(),
            sh_b: Default::default(),
            sh_c: Default::default(),
            sh_d: Default::default(),
            reo: Default::default(),
            k_zero40: Constant::new(0u64.to_bits()),
            k_ns24_max: Constant::new(((1u64 << 24) - 1).to_bits()),
            k_1000: Constant::new(1000u64.to_bits()),
            k_bo_max: Constant::new(31u64.to_bits()),
            k_bo_zero: Constant::new(0u64.to_bits()),
            k_bo_one: Constant::new(1u64.to_bits()),
        }
    }
}

impl Logic for RttUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, rmax_q, v0, us0, ut0, samp0, st0, ae0, ge0, vp, usp, utp, sampp, stp, aep,
            gep, dge, dup, ddn, v1, srtt1, var1, has1, bo1, v2a, base2a, bo2a, reo2a, srtt2a, st2a,
            v2, base2, bo2, reo2, srtt2, st2, v3, r3, bo3, reo3, srtt3, st3, v3b, r3b, bo3b, reo3b,
            srtt3b, st3b, v4, r4, reo4, srtt4, st4
        );
        // Stage 0: the operation, and |e| = |sample - srtt|.
        self.zx_srtt.next.lo = self.st_in.val().srtt;
        self.zx_srtt.next.hi = self.k_zero40.val();
        self.s_in.next = self.zx_srtt.val().into();
        self.v0.d.next = self.in_valid.val();
        self.us0.d.next = self.upd_sample.val();
        self.ut0.d.next = self.upd_timeout.val();
        self.samp0.d.next = self.sample.val();
        self.st0.d.next = self.st_in.val();
        self.ge0.d.next = self.sample.val() >= self.s_in.val();
        if self.sample.val() >= self.s_in.val() {
            self.ae0.d.next = self.sample.val() - self.s_in.val();
        } else {
            self.ae0.d.next = self.s_in.val() - self.sample.val();
        }
        // Stage 0b: `|e| >= rttvar`, `|e| - rttvar` and `rttvar - |e|`, each one carry chain.
        self.zx_var0.next.lo = self.st0.q.val().rttvar;
        self.zx_var0.next.hi = self.k_zero40.val();
        self.v_st0.next = self.zx_var0.val().into();
        self.vp.d.next = self.v0.q.val();
        self.usp.d.next = self.us0.q.val();
        self.utp.d.next = self.ut0.q.val();
        self.sampp.d.next = self.samp0.q.val();
        self.stp.d.next = self.st0.q.val();
        self.aep.d.next = self.ae0.q.val();
        self.gep.d.next = self.ge0.q.val();
        self.dge.d.next = self.ae0.q.val() >= self.v_st0.val();
        self.dup.d.next = self.ae0.q.val() - self.v_st0.val();
        self.ddn.d.next = self.v_st0.val() - self.ae0.q.val();
        // Stage 1: the state update.
        self.zx_old.next.lo = self.stp.q.val().srtt;
        self.zx_old.next.hi = self.k_zero40.val();
        self.zx_var.next.lo = self.stp.q.val().rttvar;
        self.zx_var.next.hi = self.k_zero40.val();
        self.s_old.next = self.zx_old.val().into();
        self.v_old.next = self.zx_var.val().into();
        self.ae.next = self.aep.q.val();
        self.v1.d.next = self.vp.q.val();
        self.srtt1.d.next = self.s_old.val();
        self.var1.d.next = self.v_old.val();
        self.has1.d.next = self.stp.q.val().has;
        self.bo1.d.next = self.stp.q.val().backoff;
        if self.usp.q.val() {
            self.has1.d.next = true;
            self.bo1.d.next = self.k_bo_zero.val();
            if !self.stp.q.val().has {
                self.srtt1.d.next = self.sampp.q.val();
                self.var1.d.next = self.sampp.q.val() >> 1;
            } else {
                if self.gep.q.val() {
                    self.srtt1.d.next = self.s_old.val() + (self.ae.val() >> 3);
                } else {
                    self.srtt1.d.next = self.s_old.val() - (self.ae.val() >> 3);
                }
                if self.dge.q.val() {
                    self.var1.d.next = self.v_old.val() + (self.dup.q.val() >> 2);
                } else {
                    self.var1.d.next = self.v_old.val() - (self.ddn.q.val() >> 2);
                }
            }
        } else if self.utp.q.val() && self.stp.q.val().backoff != self.k_bo_max.val() {
            self.bo1.d.next = self.stp.q.val().backoff + self.k_bo_one.val();
        }
        // Stage 2: base RTO (MR-REL-29), reo_wnd (MR-REL-36), ns24 storage.
        self.rmax.next = self.cfg_rto_max_ns.val();
        if self.cfg_rto_min_ns.val() > self.cfg_rto_max_ns.val() {
            self.rmax.next = self.cfg_rto_min_ns.val();
        }
        self.rmax_q.d.next = self.rmax.val();
        self.base.next = self.cfg_rto_init_ns.val();
        if self.has1.q.val() {
            self.base.next = self.srtt1.q.val() + (self.var1.q.val() << 2);
        }
        self.v2a.d.next = self.v1.q.val();
        self.base2a.d.next = self.base.val();
        self.reo.next = self.srtt1.q.val() >> 2;
        if (self.var1.q.val() << 1) > self.reo.val() {
            self.reo.next = self.var1.q.val() << 1;
        }
        self.reo2a.d.next = self.reo.val();
        self.bo2a.d.next = self.bo1.q.val();
        self.srtt2a.d.next = self.srtt1.q.val();
        // Stage 2b: the base's clamp and reo_wnd's floor, on stage 2a's registered sums.
        self.v2.d.next = self.v2a.q.val();
        self.base2.d.next = self.base2a.q.val();
        if self.base2a.q.val() < self.cfg_rto_min_ns.val() {
            self.base2.d.next = self.cfg_rto_min_ns.val();
        }
        if self.base2a.q.val() > self.rmax_q.q.val() {
            self.base2.d.next = self.rmax_q.q.val();
        }
        self.reo2.d.next = self.reo2a.q.val();
        if self.k_1000.val() > self.reo2a.q.val() {
            self.reo2.d.next = self.k_1000.val();
        }
        self.bo2.d.next = self.bo2a.q.val();
        self.srtt2.d.next = self.srtt2a.q.val();
        self.st2.d.next = self.st2a.q.val();
        self.st2a.d.next.srtt = self.srtt1.q.val().get_bits::<24>(0);
        if self.srtt1.q.val() > self.k_ns24_max.val() {
            self.st2a.d.next.srtt = self.k_ns24_max.val().get_bits::<24>(0);
        }
        self.st2a.d.next.rttvar = self.var1.q.val().get_bits::<24>(0);
        if self.var1.q.val() > self.k_ns24_max.val() {
            self.st2a.d.next.rttvar = self.k_ns24_max.val().get_bits::<24>(0);
        }
        self.st2a.d.next.has = self.has1.q.val();
        self.st2a.d.next.backoff = self.bo1.q.val();
        // Stage 3: backoff shift by 1, 2, saturating at rto_max (MR-REL-30).
        // (the second step's comparison made for each value the first can give, side by side)
        self.g_a1.next = self.base2.q.val() > (self.rmax_q.q.val() >> 1);
        self.g_b0.next = self.base2.q.val() > (self.rmax_q.q.val() >> 2);
        self.g_bm.next = self.rmax_q.q.val() > (self.rmax_q.q.val() >> 2);
        self.g_b2.next = (self.base2.q.val() << 1) > (self.rmax_q.q.val() >> 2);
        self.sh_a.next = self.base2.q.val();
        self.g_b.next = self.g_b0.val();
        if self.bo2.q.val().get_bit(0) {
            if self.g_a1.val() {
                self.sh_a.next = self.rmax_q.q.val();
                self.g_b.next = self.g_bm.val();
            } else {
                self.sh_a.next = self.base2.q.val() << 1;
                self.g_b.next = self.g_b2.val();
            }
        }
        self.sh_b.next = self.sh_a.val();
        if self.bo2.q.val().get_bit(1) {
            if self.g_b.val() {
                self.sh_b.next = self.rmax_q.q.val();
            } else {
                self.sh_b.next = self.sh_a.val() << 2;
            }
        }
        self.r3.d.next = self.sh_b.val();
        self.v3.d.next = self.v2.q.val();
        self.bo3.d.next = self.bo2.q.val();
        self.reo3.d.next = self.reo2.q.val();
        self.srtt3.d.next = self.srtt2.q.val();
        self.st3.d.next = self.st2.q.val();
        // Stage 3b: shift by 4.
        self.r3b.d.next = self.r3.q.val();
        if self.bo3.q.val().get_bit(2) {
            if self.r3.q.val() > (self.rmax_q.q.val() >> 4) {
                self.r3b.d.next = self.rmax_q.q.val();
            } else {
                self.r3b.d.next = self.r3.q.val() << 4;
            }
        }
        self.v3b.d.next = self.v3.q.val();
        self.bo3b.d.next = self.bo3.q.val();
        self.reo3b.d.next = self.reo3.q.val();
        self.srtt3b.d.next = self.srtt3.q.val();
        self.st3b.d.next = self.st3.q.val();
        // Stage 4: shift by 8, 16.
        // (as stage 3: the second step's comparison made for each value the first can give)
        self.g_c1.next = self.r3b.q.val() > (self.rmax_q.q.val() >> 8);
        self.g_d0.next = self.r3b.q.val() > (self.rmax_q.q.val() >> 16);
        self.g_dm.next = self.rmax_q.q.val() > (self.rmax_q.q.val() >> 16);
        self.g_d2.next = (self.r3b.q.val() << 8) > (self.rmax_q.q.val() >> 16);
        self.sh_c.next = self.r3b.q.val();
        self.g_d.next = self.g_d0.val();
        if self.bo3b.q.val().get_bit(3) {
            if self.g_c1.val() {
                self.sh_c.next = self.rmax_q.q.val();
                self.g_d.next = self.g_dm.val();
            } else {
                self.sh_c.next = self.r3b.q.val() << 8;
                self.g_d.next = self.g_d2.val();
            }
        }
        self.sh_d.next = self.sh_c.val();
        if self.bo3b.q.val().get_bit(4) {
            if self.g_d.val() {
                self.sh_d.next = self.rmax_q.q.val();
            } else {
                self.sh_d.next = self.sh_c.val() << 16;
            }
        }
        self.r4.d.next = self.sh_d.val();
        self.v4.d.next = self.v3b.q.val();
        self.reo4.d.next = self.reo3b.q.val();
        self.srtt4.d.next = self.srtt3b.q.val();
        self.st4.d.next = self.st3b.q.val();
        if self.rst.val() {
            self.v0.d.next = false;
            self.v1.d.next = false;
            self.v2a.d.next = false;
            self.v2.d.next = false;
            self.v3.d.next = false;
            self.v3b.d.next = false;
            self.v4.d.next = false;
        }
        self.out_valid.next = self.v4.q.val();
        self.st_out.next = self.st4.q.val();
        self.srtt.next = self.srtt4.q.val();
        self.rto.next = self.r4.q.val();
        self.reo_wnd.next = self.reo4.q.val();
    }
}

/// This file's blocks.
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![crate::blocks::BlockSpec {
        name: "metaroce_cc_rtt",
        area: "cc",
        description:
            "RTT estimator: srtt, rttvar (ns24), RTO with clamp and backoff, RACK reordering window",
        verilog: |_cfg| crate::gen::verilog("metaroce_cc_rtt", RttUnit::default()),
    }]
}
