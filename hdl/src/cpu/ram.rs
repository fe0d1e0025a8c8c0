//! The control processor's RAM: `2^AW` 32-bit words, one port, byte write strobes, the read data registered
//! (available the cycle after `en`, held while `en` is low). A single port with byte enables maps to block RAM.

use rust_hdl::prelude::*;

/// Single-port RAM of `2^AW` words.
#[derive(LogicBlock)]
pub struct CpuRam<const AW: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Access enable.
    pub en: Signal<In, Bit>,
    /// Byte write strobes (0: a read).
    pub wstrb: Signal<In, Bits<4>>,
    /// Word address.
    pub addr: Signal<In, Bits<AW>>,
    /// Write data.
    pub wdata: Signal<In, Bits<32>>,
    /// The word read at the last enabled edge.
    pub rdata: Signal<Out, Bits<32>>,
    _mem: Vec<u32>,
}

impl<const AW: usize> Default for CpuRam<AW> {
    fn default() -> Self {
        CpuRam {
            clk: Default::default(),
            en: Default::default(),
            wstrb: Default::default(),
            addr: Default::default(),
            wdata: Default::default(),
            rdata: Default::default(),
            _mem: vec![0; 1 << AW],
        }
    }
}

impl<const AW: usize> Logic for CpuRam<AW> {
    fn update(&mut self) {
        if !self.clk.pos_edge() || !self.en.val() {
            return;
        }
        let a = self.addr.val().index();
        let Some(w) = self._mem.get_mut(a) else {
            return;
        };
        self.rdata.next = bits(u64::from(*w));
        let strb = self.wstrb.val().index();
        let d = self.wdata.val().index() as u32;
        for b in 0..4 {
            if strb >> b & 1 == 1 {
                let m = 0xFFu32 << (8 * b);
                *w = (*w & !m) | (d & m);
            }
        }
    }

    fn connect(&mut self) {
        self.rdata.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
reg [31:0] mem [0:{last}];
always @(posedge clk) begin
   if (en) begin
      if (wstrb[0]) mem[addr][7:0] <= wdata[7:0];
      if (wstrb[1]) mem[addr][15:8] <= wdata[15:8];
      if (wstrb[2]) mem[addr][23:16] <= wdata[23:16];
      if (wstrb[3]) mem[addr][31:24] <= wdata[31:24];
      rdata <= mem[addr];
   end
end
",
            last = (1usize << AW) - 1
        ))
    }
}
