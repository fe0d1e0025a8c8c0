//! Registered unsigned multiplier for the congestion-control arithmetic: `p = a[A-1:0] * b[B-1:0]` (low 64
//! bits of the product), one cycle latency, one product per cycle. Only the low `A` / `B` bits of the 64-bit
//! operands are used (a `A` x `B` multiplier maps to DSP blocks); callers guarantee the operands fit (NSCC:
//! `A = B = 34`, see `cc::nscc` for the ranges).

use rust_hdl::prelude::*;

/// The multiplier (see the module docs).
#[derive(LogicBlock)]
pub struct Mul {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Operand a (low `A` bits used).
    pub a: Signal<In, Bits<64>>,
    /// Operand b (low `B` bits used).
    pub b: Signal<In, Bits<64>>,
    /// `a * b` (low 64 bits), one cycle after the operands.
    pub p: Signal<Out, Bits<64>>,
    _abits: usize,
    _bbits: usize,
    _p: u64,
}

impl Mul {
    /// A multiplier using the low `a_bits` and `b_bits` of its operands (1..=64 each).
    pub fn new(a_bits: usize, b_bits: usize) -> Self {
        assert!((1..=64).contains(&a_bits) && (1..=64).contains(&b_bits));
        Mul {
            clk: Default::default(),
            a: Default::default(),
            b: Default::default(),
            p: Default::default(),
            _abits: a_bits,
            _bbits: b_bits,
            _p: 0,
        }
    }

    fn low(x: u64, bits: usize) -> u64 {
        if bits >= 64 {
            x
        } else {
            x & ((1u64 << bits) - 1)
        }
    }
}

impl Logic for Mul {
    fn update(&mut self) {
        if self.clk.pos_edge() {
            let a = Self::low(self.a.val().to_u64(), self._abits);
            let b = Self::low(self.b.val().to_u64(), self._bbits);
            self._p = a.wrapping_mul(b);
        }
        self.p.next = self._p.to_bits();
    }

    fn connect(&mut self) {
        self.p.connect();
    }

    fn hdl(&self) -> Verilog {
        let ext = |bits: usize, name: &str| {
            if bits >= 64 {
                name.to_string()
            } else {
                format!("{{{}'d0, {name}[{}:0]}}", 64 - bits, bits - 1)
            }
        };
        Verilog::Custom(format!(
            "\
wire [63:0] prod = {ea} * {eb};
always @(posedge clk) p <= prod;
",
            ea = ext(self._abits, "a"),
            eb = ext(self._bbits, "b"),
        ))
    }
}
