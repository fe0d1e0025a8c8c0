//! The core's time base: nanoseconds since reset, advanced every cycle by the clock period in 1/65536 ns
//! (`cfg_ns_per_cycle_q16`, e.g. 203 533 for 322.265625 MHz), so that timestamps (MBH.TS = `now` mod 2^32),
//! RTT samples, pacing and timers are in the spec's nanoseconds at any clock. The fraction is carried, so the
//! time does not drift: after n cycles `now` is `floor(n * period_q16 / 65536)`. (A custom block: the 80-bit
//! accumulator adds a zero-extended 32-bit input, which `#[hdl_gen]` can only write with a width-mismatched
//! mask.)

use rust_hdl::prelude::*;

/// Nanosecond time base.
#[derive(LogicBlock, Default)]
pub struct TimeBase {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset (time restarts at 0).
    pub rst: Signal<In, Bit>,
    /// Clock period in 1/65536 ns.
    pub cfg_ns_per_cycle_q16: Signal<In, Bits<32>>,
    /// Nanoseconds since reset.
    pub now: Signal<Out, Bits<64>>,
    _acc: u128,
}

impl Logic for TimeBase {
    fn update(&mut self) {
        if self.clk.pos_edge() {
            self._acc = if self.rst.val() {
                0
            } else {
                (self._acc + self.cfg_ns_per_cycle_q16.val().index() as u128) & ((1u128 << 80) - 1)
            };
        }
        self.now.next = bits((self._acc >> 16) as u64);
    }

    fn connect(&mut self) {
        self.now.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "\
reg [79:0] acc;
initial acc = 80'd0;
always @(posedge clk) begin
   if (rst) acc <= 80'd0;
   else acc <= acc + {48'd0, cfg_ns_per_cycle_q16};
end
always @(*) now = acc[79:16];
"
            .into(),
        )
    }
}
