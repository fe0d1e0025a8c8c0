//! Iterative unsigned integer divider (restoring, `R` quotient bits per cycle) for the congestion-control
//! arithmetic (NSCC MR-CC-8..14 and the pacing gap): `quotient = dividend / divisor` and
//! `remainder = dividend % divisor`, exact and truncating, as Rust's `/` and `%` on unsigned integers.
//!
//! Ports: `start` with `dividend: Bits<N>` and `divisor: Bits<M>` is taken in a cycle where `busy` is low;
//! `busy` is high from the cycle after `start` until the result; in the cycle after the last iteration
//! `done` is high for one cycle (and `busy` low) and `quotient` / `remainder` hold the result (they keep it
//! until the next result). A `start` while `busy` is ignored.
//!
//! Early finish: the cycle after `start` (the normalisation step) skips the dividend's leading 16-bit groups
//! that are zero (when `N` is a multiple of 16 and `R` divides 16): a restoring step on a leading zero bit
//! leaves the remainder 0 and adds a quotient bit 0, so skipping them changes nothing but the time. With
//! `s` the significant bits of the dividend rounded up to a whole group (at least one group), the division
//! takes `s / R` iterations: latency `s / R + 2` cycles from `start` to `done` ([`Divider::latency_for`]),
//! at most `N / R + 2`. The NSCC instance uses `N = 64, M = 64, R = 2`: a dividend below 2^32 (the
//! window-increase products of 4 KiB ACKs) takes 18 cycles instead of 34; see `cc::nscc` for the rates.
//!
//! Division by zero (never requested by NSCC, whose divisors are >= 1): nothing is skipped, the quotient is
//! all ones and the remainder is the low `M` bits of the dividend (what the restoring recurrence gives).
//!
//! Logic depth: `R` chained `(M+1)`-bit compare-subtract steps per cycle (a carry chain each); the
//! normalisation is a group OR and a 4-way select.

use rust_hdl::prelude::*;

/// The divider (see the module docs). `2 <= N <= 128`, `M <= 127`, `R` divides `N`.
#[derive(LogicBlock)]
pub struct Divider<const N: usize, const M: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Start a division (taken when `busy` is low).
    pub start: Signal<In, Bit>,
    /// Dividend.
    pub dividend: Signal<In, Bits<N>>,
    /// Divisor.
    pub divisor: Signal<In, Bits<M>>,
    /// A division is in progress.
    pub busy: Signal<Out, Bit>,
    /// One cycle: `quotient` and `remainder` are the new result.
    pub done: Signal<Out, Bit>,
    /// Quotient (truncating).
    pub quotient: Signal<Out, Bits<N>>,
    /// Remainder.
    pub remainder: Signal<Out, Bits<M>>,
    _r: usize,
    _st: DivState,
}

#[derive(Clone, Copy, Default, Debug)]
struct DivState {
    prep: bool,
    busy: bool,
    cnt: usize,
    rem: u128,
    quo: u128,
    dv: u128,
    done: bool,
    q_out: u128,
    r_out: u128,
}

impl<const N: usize, const M: usize> Divider<N, M> {
    /// A divider producing `bits_per_cycle` quotient bits per cycle (`bits_per_cycle` divides `N`).
    pub fn new(bits_per_cycle: usize) -> Self {
        assert!((2..=128).contains(&N) && (1..128).contains(&M));
        assert!(bits_per_cycle >= 1 && N.is_multiple_of(bits_per_cycle));
        Divider {
            clk: Default::default(),
            rst: Default::default(),
            start: Default::default(),
            dividend: Default::default(),
            divisor: Default::default(),
            busy: Default::default(),
            done: Default::default(),
            quotient: Default::default(),
            remainder: Default::default(),
            _r: bits_per_cycle,
            _st: DivState::default(),
        }
    }

    /// Width of the groups of leading zero bits the normalisation skips (`N` when it skips none).
    fn group(&self) -> usize {
        if N.is_multiple_of(16) && 16_usize.is_multiple_of(self._r) {
            16
        } else {
            N
        }
    }

    /// Iterations for `dividend / divisor` (see the module docs).
    fn iterations(&self, dividend: u128, divisor: u128) -> usize {
        let g = self.group();
        let sig = (128 - dividend.leading_zeros()) as usize;
        let bits = if divisor == 0 {
            N
        } else {
            sig.div_ceil(g).max(1) * g
        };
        bits / self._r
    }

    /// Cycles from `start` to `done` for these operands.
    pub fn latency_for(&self, dividend: u128, divisor: u128) -> usize {
        self.iterations(dividend, divisor) + 2
    }

    /// The longest latency (a dividend with its top group non-zero, or a zero divisor).
    pub fn max_latency(&self) -> usize {
        N / self._r + 2
    }

    fn mask(bits: usize) -> u128 {
        if bits >= 128 {
            u128::MAX
        } else {
            (1u128 << bits) - 1
        }
    }

    /// One shift-compare-subtract step of the recurrence (the same as the Verilog).
    fn step(rem: u128, quo: u128, dv: u128) -> (u128, u128) {
        let mut t = ((rem << 1) | ((quo >> (N - 1)) & 1)) & Self::mask(M + 1);
        let mut q = (quo << 1) & Self::mask(N);
        if t >= dv {
            t -= dv;
            q |= 1;
        }
        (t, q)
    }
}

impl<const N: usize, const M: usize> Logic for Divider<N, M> {
    fn update(&mut self) {
        if self.clk.pos_edge() {
            let mut s = self._st;
            s.done = false;
            if self.rst.val() {
                s = DivState::default();
            } else if s.prep {
                // Normalisation: skip the dividend's leading zero groups.
                s.prep = false;
                s.busy = true;
                s.cnt = self.iterations(s.quo, s.dv);
                let shift = N - s.cnt * self._r;
                s.quo = (s.quo << shift) & Self::mask(N);
            } else if s.busy {
                let (mut rem, mut quo) = (s.rem, s.quo);
                for _ in 0..self._r {
                    (rem, quo) = Self::step(rem, quo, s.dv);
                }
                s.rem = rem;
                s.quo = quo;
                s.cnt -= 1;
                if s.cnt == 0 {
                    s.busy = false;
                    s.done = true;
                    s.q_out = quo;
                    s.r_out = rem & Self::mask(M);
                }
            } else if self.start.val() {
                s.prep = true;
                s.rem = 0;
                s.quo = self.dividend.val().to_u128();
                s.dv = self.divisor.val().to_u128();
            }
            self._st = s;
        }
        self.busy.next = self._st.busy || self._st.prep;
        self.done.next = self._st.done;
        self.quotient.next = self._st.q_out.to_bits();
        self.remainder.next = self._st.r_out.to_bits();
    }

    fn connect(&mut self) {
        self.busy.connect();
        self.done.connect();
        self.quotient.connect();
        self.remainder.connect();
    }

    fn hdl(&self) -> Verilog {
        let r = self._r;
        let steps = N / r;
        let cw = usize::BITS as usize - steps.leading_zeros() as usize;
        // The normalisation step: the highest non-zero group of the dividend decides the iterations.
        let g = self.group();
        let mut norm = format!(
            "      if (dv_q == {M}'d0) begin\n         cnt_q <= {cw}'d{steps};\n      end\n"
        );
        for h in (0..N / g).rev() {
            let its = (h + 1) * g / r;
            let shift = N - (h + 1) * g;
            if h == 0 {
                norm.push_str("      else begin\n");
            } else {
                norm.push_str(&format!(
                    "      else if (|quo_q[{}:{}]) begin\n",
                    (h + 1) * g - 1,
                    h * g
                ));
            }
            norm.push_str(&format!("         cnt_q <= {cw}'d{its};\n"));
            if shift != 0 {
                norm.push_str(&format!(
                    "         quo_q <= {{quo_q[{}:0], {shift}'d0}};\n",
                    N - shift - 1
                ));
            }
            norm.push_str("      end\n");
        }
        Verilog::Custom(format!(
            "\
// Restoring division, {r} quotient bit(s) per cycle, at most {steps} iterations after a normalisation step.
reg [{m}:0] rem_q;
reg [{n1}:0] quo_q;
reg [{m1}:0] dv_q;
reg [{c1}:0] cnt_q;
reg busy_q;
reg prep_q;
reg [{m}:0] rem_n;
reg [{n1}:0] quo_n;
integer k;
always @(*) begin
   rem_n = rem_q;
   quo_n = quo_q;
   for (k = 0; k < {r}; k = k + 1) begin
      rem_n = {{rem_n[{m1}:0], quo_n[{n1}]}};
      quo_n = {{quo_n[{n2}:0], 1'b0}};
      if (rem_n >= {{1'b0, dv_q}}) begin
         rem_n = rem_n - {{1'b0, dv_q}};
         quo_n[0] = 1'b1;
      end
   end
end
always @(posedge clk) begin
   done <= 1'b0;
   if (rst) begin
      prep_q <= 1'b0;
      busy_q <= 1'b0;
      cnt_q <= {cw}'d0;
      rem_q <= {m1p1}'d0;
      quo_q <= {n}'d0;
      dv_q <= {m}'d0;
      quotient <= {n}'d0;
      remainder <= {m}'d0;
   end else if (prep_q) begin
      // Normalisation: skip the dividend's leading zero groups.
      prep_q <= 1'b0;
      busy_q <= 1'b1;
{norm}   end else if (busy_q) begin
      rem_q <= rem_n;
      quo_q <= quo_n;
      cnt_q <= cnt_q - {cw}'d1;
      if (cnt_q == {cw}'d1) begin
         busy_q <= 1'b0;
         done <= 1'b1;
         quotient <= quo_n;
         remainder <= rem_n[{m1}:0];
      end
   end else if (start) begin
      prep_q <= 1'b1;
      rem_q <= {m1p1}'d0;
      quo_q <= dividend;
      dv_q <= divisor;
   end
end
always @(*) busy = busy_q | prep_q;
",
            m = M,
            m1 = M - 1,
            m1p1 = M + 1,
            n = N,
            n1 = N - 1,
            n2 = N - 2,
            c1 = cw - 1,
        ))
    }
}

/// This file's blocks: the NSCC configuration (64 / 64 bits, 2 bits per cycle).
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![crate::blocks::BlockSpec {
        name: "metaroce_cc_divider",
        area: "cc",
        description:
            "iterative unsigned divider, 64-bit dividend and divisor, 2 quotient bits per cycle",
        verilog: |_cfg| crate::gen::verilog("metaroce_cc_divider", Divider::<64, 64>::new(2)),
    }]
}
