//! The control processor's RAM: `2^AW` 32-bit words, one port, byte write strobes, the read data registered
//! (the word at the address presented one cycle earlier; a write returns the old word). Built from four
//! byte-wide [`SdpRam`]s, one per byte lane, with the read and write addresses tied together, so synthesis
//! maps it to block RAM like the project's other memories.

use crate::common::ram::SdpRam;
use rust_hdl::prelude::*;

/// Single-port RAM of `2^AW` words.
#[derive(LogicBlock)]
pub struct CpuRam<const AW: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Access enable (writes only happen with it).
    pub en: Signal<In, Bit>,
    /// Byte write strobes (0: a read).
    pub wstrb: Signal<In, Bits<4>>,
    /// Word address.
    pub addr: Signal<In, Bits<AW>>,
    /// Write data.
    pub wdata: Signal<In, Bits<32>>,
    /// The word at the address of the previous cycle.
    pub rdata: Signal<Out, Bits<32>>,
    lane0: SdpRam<Bits<8>, AW>,
    lane1: SdpRam<Bits<8>, AW>,
    lane2: SdpRam<Bits<8>, AW>,
    lane3: SdpRam<Bits<8>, AW>,
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
            lane0: SdpRam::new(1 << AW),
            lane1: SdpRam::new(1 << AW),
            lane2: SdpRam::new(1 << AW),
            lane3: SdpRam::new(1 << AW),
        }
    }
}

impl<const AW: usize> Logic for CpuRam<AW> {
    fn update(&mut self) {
        let w = self.wdata.val().index() as u64;
        let s = self.wstrb.val().index();
        let en = self.en.val();
        for (k, lane) in [
            &mut self.lane0,
            &mut self.lane1,
            &mut self.lane2,
            &mut self.lane3,
        ]
        .into_iter()
        .enumerate()
        {
            lane.clk.next = self.clk.val();
            lane.rd_addr.next = self.addr.val();
            lane.wr_addr.next = self.addr.val();
            lane.wr_data.next = bits((w >> (8 * k)) & 0xFF);
            lane.wr_en.next = en & (s >> k & 1 == 1);
        }
        let r = |l: &SdpRam<Bits<8>, AW>| l.rd_data.val().index() as u64;
        self.rdata.next = bits(
            r(&self.lane0) | r(&self.lane1) << 8 | r(&self.lane2) << 16 | r(&self.lane3) << 24,
        );
    }

    fn connect(&mut self) {
        for lane in [
            &mut self.lane0,
            &mut self.lane1,
            &mut self.lane2,
            &mut self.lane3,
        ] {
            lane.clk.connect();
            lane.rd_addr.connect();
            lane.wr_addr.connect();
            lane.wr_data.connect();
            lane.wr_en.connect();
        }
        self.rdata.connect();
    }

    fn hdl(&self) -> Verilog {
        let mut s = String::from("always @(*) begin\n");
        for k in 0..4 {
            s += &format!(
                "   lane{k}$clk = clk;\n   lane{k}$rd_addr = addr;\n   lane{k}$wr_addr = addr;\n   \
                 lane{k}$wr_data = wdata[{hi}:{lo}];\n   lane{k}$wr_en = en & wstrb[{k}];\n",
                hi = 8 * k + 7,
                lo = 8 * k
            );
        }
        s += "   rdata = {lane3$rd_data, lane2$rd_data, lane1$rd_data, lane0$rd_data};\nend\n";
        Verilog::Custom(s)
    }
}
