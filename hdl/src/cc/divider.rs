//! Iterative unsigned integer divider (restoring, `R` quotient bits per cycle) for the congestion-control
//! arithmetic (NSCC MR-CC-8..14 and the pacing gap): `quotient = dividend / divisor` and
//! `remainder = dividend % divisor`, exact and truncating, as Rust's `/` and `%` on unsigned integers.
//!
//! Ports: `start` with `dividend: Bits<N>` and `divisor: Bits<M>` is taken in a cycle where `busy` is low;
//! `busy` is high from the cycle after `start` until the result; in the cycle after the last iteration
//! `done` is high for one cycle (and `busy` low) and `quotient` / `remainder` hold the result (they keep it
//! until the next result). A `start` while `busy` is ignored.
//!
//! Early finish: three normalisation cycles after `start` skip what the restoring recurrence would spend on
//! quotient bits that are known to be 0. With `na` the dividend's significant nibbles (4-bit groups) and `hd`
//! the index of the divisor's highest non-zero nibble, the dividend's top `na - hd` nibbles are below the
//! divisor (`< 2^(4 hd)`, which is at most the divisor), so the recurrence would shift them into the remainder
//! producing quotient bits 0: they are loaded into the remainder at once, and the iterations process the
//! remaining `k = max(na - hd, 0)` nibbles: `4k / R` iterations, latency `4k / R + 4` cycles from `start` to
//! `done` ([`Divider::latency_for`]), at most `N / R + 4`. With `k = 0` (a dividend below `2^(4 hd)`) the
//! quotient is 0 and the remainder the dividend, four cycles after `start`. The quotient has at most `4k`
//! significant bits, so the latency follows the quotient's size, not the operands': the NSCC instance
//! (`N = 64, M = 64, R = 2`) divides `4 KiB x 10 us` by a window of 64 KiB (a 12-bit quotient) in 10 cycles.
//!
//! Division by zero (never requested by NSCC, whose divisors are >= 1): nothing is skipped (`k = N / 4`), the
//! quotient is all ones and the remainder is the low `M` bits of the dividend (what the recurrence gives).
//!
//! Logic depth: one `(M+3)`-bit radix-4 compare-subtract step per cycle with `R` = 2 (three subtractions side
//! by side, see the Verilog), else `R` chained `(M+1)`-bit compare-subtract steps (a carry chain each); the
//! normalisation steps are two flat nibble priority encoders, then a comparison and a subtraction, then two
//! shifts by a multiple of 4 (17-way selects).

use rust_hdl::prelude::*;

/// The divider (see the module docs). `4 <= N <= 128` a multiple of 4, `1 <= M <= N`, `R` 1, 2 or 4.
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
    /// First normalisation cycle: the operand sizes.
    size: bool,
    /// Second normalisation cycle: the nibbles to iterate over.
    sub: bool,
    /// Third normalisation cycle: the operands aligned.
    align: bool,
    busy: bool,
    /// Nibbles of the dividend left for the iterations (`k` of the module docs).
    nib: usize,
    cnt: usize,
    rem: u128,
    quo: u128,
    dv: u128,
    done: bool,
    q_out: u128,
    r_out: u128,
}

impl<const N: usize, const M: usize> Divider<N, M> {
    /// A divider producing `bits_per_cycle` quotient bits per cycle (1, 2 or 4).
    pub fn new(bits_per_cycle: usize) -> Self {
        assert!((4..=128).contains(&N) && N.is_multiple_of(4) && (1..=N).contains(&M));
        assert!(matches!(bits_per_cycle, 1 | 2 | 4));
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

    /// Nibbles of the dividend that the iterations process (`k` of the module docs): `N / 4` for a zero
    /// divisor, else the dividend's significant nibbles less the divisor's whole nibbles below its top bit.
    fn nibbles(dividend: u128, divisor: u128) -> usize {
        if divisor == 0 {
            return N / 4;
        }
        let na = (128 - dividend.leading_zeros() as usize).div_ceil(4);
        let hd = (127 - divisor.leading_zeros() as usize) / 4;
        na.saturating_sub(hd)
    }

    /// Iterations for `dividend / divisor` (see the module docs).
    fn iterations(&self, dividend: u128, divisor: u128) -> usize {
        Self::nibbles(dividend, divisor) * 4 / self._r
    }

    /// Cycles from `start` to `done` for these operands.
    pub fn latency_for(&self, dividend: u128, divisor: u128) -> usize {
        self.iterations(dividend, divisor) + 4
    }

    /// The longest latency (a zero divisor, or a dividend with its top nibble non-zero and a divisor below
    /// 16).
    pub fn max_latency(&self) -> usize {
        N / self._r + 4
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
            } else if s.size {
                s.size = false;
                s.sub = true;
            } else if s.sub {
                s.sub = false;
                s.align = true;
                s.nib = Self::nibbles(s.quo, s.dv);
            } else if s.align {
                // The leading nibbles go into the remainder at once (they are below the divisor), the rest
                // is left-aligned for the iterations.
                s.align = false;
                let bits = 4 * s.nib;
                if bits == 0 {
                    s.done = true;
                    s.q_out = 0;
                    s.r_out = s.quo & Self::mask(M);
                } else {
                    s.busy = true;
                    s.cnt = bits / self._r;
                    s.rem = if bits >= 128 { 0 } else { s.quo >> bits };
                    s.quo = (s.quo << (N - bits)) & Self::mask(N);
                }
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
                s.size = true;
                s.rem = 0;
                s.quo = self.dividend.val().to_u128();
                s.dv = self.divisor.val().to_u128();
            }
            self._st = s;
        }
        self.busy.next = self._st.busy || self._st.size || self._st.sub || self._st.align;
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
        let nibs = N / 4;
        // Width of a nibble count 0..=N/4.
        let kw = usize::BITS as usize - nibs.leading_zeros() as usize;
        let dnibs = M.div_ceil(4);
        // Flat priority encoders (a one-hot of the highest non-zero nibble, then an OR per index bit), so the
        // mapper builds a shallow tree: `na` = the dividend's significant nibbles, `hd` = the index of the
        // divisor's highest non-zero nibble.
        // The nibble flags (`*_z`, one bit per non-zero nibble) are registered with the operands.
        let mut enc = String::new();
        let mut zload = String::new();
        let hot = |name: &str, src: &str, n: usize, enc: &mut String, zload: &mut String| {
            let z: Vec<String> = (0..n)
                .rev()
                .map(|i| format!("|{src}[{}:{}]", 4 * i + 3, 4 * i))
                .collect();
            enc.push_str(&format!("reg [{}:0] {name}_z;\n", n - 1));
            zload.push_str(&format!("      {name}_z <= {{{}}};\n", z.join(", ")));
            enc.push_str(&format!("wire [{}:0] {name}_h;\n", n - 1));
            for i in 0..n {
                if i + 1 == n {
                    enc.push_str(&format!("assign {name}_h[{i}] = {name}_z[{i}];\n"));
                } else {
                    enc.push_str(&format!(
                        "assign {name}_h[{i}] = {name}_z[{i}] & ~(|{name}_z[{}:{}]);\n",
                        n - 1,
                        i + 1
                    ));
                }
            }
        };
        let or_bits = |name: &str, n: usize, val: &dyn Fn(usize) -> usize, enc: &mut String| {
            for bit in 0..kw {
                let mask: String = (0..n)
                    .rev()
                    .map(|i| if val(i) >> bit & 1 == 1 { '1' } else { '0' })
                    .collect();
                enc.push_str(&format!(
                    "assign {name}_n[{bit}] = |({name}_h & {n}'b{mask});\n"
                ));
            }
        };
        hot("na", "dividend", nibs, &mut enc, &mut zload);
        enc.push_str(&format!("wire [{}:0] na_n;\n", kw - 1));
        or_bits("na", nibs, &|i| i + 1, &mut enc);
        hot("hd", "dv_pad", dnibs, &mut enc, &mut zload);
        enc.push_str(&format!("wire [{}:0] hd_n;\n", kw - 1));
        or_bits("hd", dnibs, &|i| i, &mut enc);
        let zext = |w: usize, from: usize, e: &str| {
            if w > from {
                format!("{{{}'d0, {e}}}", w - from)
            } else {
                e.to_string()
            }
        };
        let dv_pad = zext(4 * dnibs, M, "divisor");
        let nib_c = zext(cw, kw, "nib_q");
        let rem_al = if M + 1 > N {
            zext(M + 1, N, "rem_al")
        } else {
            format!("rem_al[{M}:0]")
        };
        // The iteration. Two bits per cycle: one radix-4 step, `t = 4 rem + next two bits` compared with
        // the divisor times 1, 2 and 3 side by side (3 x divisor registered in the first normalisation
        // step), the largest multiple not above `t` subtracted: the two restoring steps' quotient bits and
        // remainder (`rem < divisor` after every step, so `t < 4 x divisor`), with one carry chain in a
        // cycle's path instead of two in series. A zero divisor gives digit 3 and `rem` shifted, as the
        // restoring steps do. Otherwise `R` chained restoring steps.
        let (iter, dv3_decl, dv3_load) = if r == 2 {
            (
                format!(
                    "\
wire [{m1p1}:0] t4 = {{rem_q[{m1}:0], quo_q[{n1}], quo_q[{n2}]}};
wire [{m2}:0] s1 = {{1'b0, t4}} - {{3'b000, dv_q}};
wire [{m2}:0] s2 = {{1'b0, t4}} - {{2'b00, dv_q, 1'b0}};
wire [{m2}:0] s3 = {{1'b0, t4}} - {{1'b0, dv3_q}};
always @(*) begin
   quo_n = {{quo_q[{n3}:0], ~s2[{m2}], ~s3[{m2}] | (s2[{m2}] & ~s1[{m2}])}};
   if (~s3[{m2}])
      rem_n = s3[{m}:0];
   else if (~s2[{m2}])
      rem_n = s2[{m}:0];
   else if (~s1[{m2}])
      rem_n = s1[{m}:0];
   else
      rem_n = t4[{m}:0];
end
",
                    m = M,
                    m1 = M - 1,
                    m1p1 = M + 1,
                    m2 = M + 2,
                    n1 = N - 1,
                    n2 = N - 2,
                    n3 = N - 3,
                ),
                format!("reg [{}:0] dv3_q;\n", M + 1),
                "      dv3_q <= {1'b0, dv_q, 1'b0} + {2'b00, dv_q};\n".to_string(),
            )
        } else {
            (
                format!(
                    "\
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
",
                    m1 = M - 1,
                    n1 = N - 1,
                    n2 = N - 2,
                ),
                String::new(),
                String::new(),
            )
        };
        Verilog::Custom(format!(
            "\
// Restoring division, {r} quotient bit(s) per cycle, at most {steps} iterations after three normalisation steps.
reg [{m}:0] rem_q;
reg [{n1}:0] quo_q;
reg [{m1}:0] dv_q;
reg [{c1}:0] cnt_q;
reg [{k1}:0] nib_q;
reg busy_q;
reg size_q;
reg sub_q;
reg align_q;
reg [{k1}:0] na_q;
reg [{k1}:0] hd_q;
reg dz_q;
reg [{m}:0] rem_n;
reg [{n1}:0] quo_n;
{dv3_decl}wire [{dn4}:0] dv_pad = {dv_pad};
{iter}// Significant nibbles of the dividend; index of the divisor's highest non-zero nibble.
{enc}// The dividend with its leading nibbles (below the divisor) as the first remainder.
wire [{n1}:0] rem_al = quo_q >> {{nib_q, 2'b00}};
always @(posedge clk) begin
   done <= 1'b0;
   if (rst) begin
      size_q <= 1'b0;
      sub_q <= 1'b0;
      align_q <= 1'b0;
      busy_q <= 1'b0;
      na_q <= {kw}'d0;
      hd_q <= {kw}'d0;
      dz_q <= 1'b0;
      cnt_q <= {cw}'d0;
      nib_q <= {kw}'d0;
      rem_q <= {m1p1}'d0;
      quo_q <= {n}'d0;
      dv_q <= {m}'d0;
      quotient <= {n}'d0;
      remainder <= {m}'d0;
   end else if (size_q) begin
      // Normalisation, first step: the operands' sizes.
      size_q <= 1'b0;
      sub_q <= 1'b1;
      na_q <= na_n;
      hd_q <= hd_n;
      dz_q <= ~|hd_z;
{dv3_load}   end else if (sub_q) begin
      // Second step: the nibbles the iterations need (all for a zero divisor).
      sub_q <= 1'b0;
      align_q <= 1'b1;
      if (dz_q)
         nib_q <= {kw}'d{nibs};
      else if (na_q > hd_q)
         nib_q <= na_q - hd_q;
      else
         nib_q <= {kw}'d0;
   end else if (align_q) begin
      // Third step: the leading nibbles (below the divisor) into the remainder, the rest left-aligned.
      align_q <= 1'b0;
      if (nib_q == {kw}'d0) begin
         done <= 1'b1;
         quotient <= {n}'d0;
         remainder <= quo_q[{m1}:0];
      end else begin
         busy_q <= 1'b1;
         cnt_q <= {nib_c} * {cw}'d{mul};
         rem_q <= {rem_al};
         quo_q <= quo_q << ({nb}'d{n} - {{nib_q, 2'b00}});
      end
   end else if (busy_q) begin
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
      size_q <= 1'b1;
      rem_q <= {m1p1}'d0;
      quo_q <= dividend;
      dv_q <= divisor;
{zload}   end
end
always @(*) busy = busy_q | size_q | sub_q | align_q;
",
            m = M,
            m1 = M - 1,
            m1p1 = M + 1,
            n = N,
            n1 = N - 1,
            c1 = cw - 1,
            k1 = kw - 1,
            dn4 = 4 * dnibs - 1,
            mul = 4 / r,
            nb = kw + 2,
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
