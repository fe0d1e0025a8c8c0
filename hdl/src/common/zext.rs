//! Zero extension `o = {0, i}` from `I` to `O >= I` bits, written as a concatenation so that the Verilog has no
//! width mismatch (rust-hdl's `bit_cast` widens through a mask, which Verilator flags). Combinational.

use rust_hdl::prelude::*;

/// Zero extension of a `Bits<I>` to `Bits<O>`.
#[derive(LogicBlock, Default)]
pub struct Zext<const I: usize, const O: usize> {
    /// Input.
    pub i: Signal<In, Bits<I>>,
    /// `i` zero-extended.
    pub o: Signal<Out, Bits<O>>,
}

impl<const I: usize, const O: usize> Logic for Zext<I, O> {
    fn update(&mut self) {
        self.o.next = bit_cast::<O, I>(self.i.val());
    }

    fn connect(&mut self) {
        self.o.connect();
    }

    fn hdl(&self) -> Verilog {
        assert!(O >= I, "Zext narrows {I} to {O} bits");
        if O == I {
            Verilog::Custom("always @(*) o = i;\n".into())
        } else {
            Verilog::Custom(format!("always @(*) o = {{{}'d0, i}};\n", O - I))
        }
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![]
    }
}
