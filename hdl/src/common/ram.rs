//! A simple dual-port RAM (one write port, one registered read port, one clock) whose depth is a build
//! parameter, for the context tables, bitmaps and per-packet state. Yosys maps it to block RAM or UltraRAM
//! ([`RamStyle`] fixes which where it matters).
//!
//! The read returns the word at `rd_addr` one cycle after it is presented (`rd_data` is registered); a write
//! to the same address in the same cycle returns the old word (read-first). The contents start as zero (FPGA
//! block RAM is zeroed by configuration, the simulators zero it); contexts are written before use, so the RAM
//! has no reset. Addresses at or beyond `depth`
//! read zero and ignore writes in the simulator; in hardware they alias (callers check bounds first, which the
//! context-table miss path does).

use rust_hdl::prelude::*;

/// Which FPGA memory a RAM is meant for: written into the generated Verilog as a `ram_style` attribute, which
/// the synthesis tools and the resource report (`cargo xtask synth`) follow.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum RamStyle {
    /// The tool's choice (no attribute).
    #[default]
    Auto,
    /// Block RAM (`ram_style = "block"`): for a deep table that would otherwise take UltraRAM the design
    /// needs elsewhere.
    Block,
    /// UltraRAM (`ram_style = "ultra"`).
    Ultra,
}

impl RamStyle {
    /// The attribute line written before the memory array (empty for [`RamStyle::Auto`]).
    fn attribute(self) -> &'static str {
        match self {
            RamStyle::Auto => "",
            RamStyle::Block => "(* ram_style = \"block\" *)\n",
            RamStyle::Ultra => "(* ram_style = \"ultra\" *)\n",
        }
    }
}

/// Simple dual-port RAM of `depth` words of `D`, addressed by `Bits<A>`.
#[derive(LogicBlock)]
pub struct SdpRam<D: Synth, const A: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Read address.
    pub rd_addr: Signal<In, Bits<A>>,
    /// Read data, one cycle after `rd_addr`.
    pub rd_data: Signal<Out, D>,
    /// Write address.
    pub wr_addr: Signal<In, Bits<A>>,
    /// Write data.
    pub wr_data: Signal<In, D>,
    /// Write enable.
    pub wr_en: Signal<In, Bit>,
    _depth: usize,
    _style: RamStyle,
    _mem: Vec<D>,
}

impl<D: Synth, const A: usize> SdpRam<D, A> {
    /// A RAM of `depth` words (at most `2^A`), all zero.
    pub fn new(depth: usize) -> Self {
        assert!(depth >= 1 && (A >= usize::BITS as usize || depth <= 1usize << A));
        SdpRam {
            clk: Default::default(),
            rd_addr: Default::default(),
            rd_data: Default::default(),
            wr_addr: Default::default(),
            wr_data: Default::default(),
            wr_en: Default::default(),
            _depth: depth,
            _style: RamStyle::Auto,
            _mem: vec![D::default(); depth],
        }
    }

    /// The same RAM, meant for the memory `style`.
    pub fn with_style(mut self, style: RamStyle) -> Self {
        self._style = style;
        self
    }

    /// Number of words.
    pub fn depth(&self) -> usize {
        self._depth
    }
}

impl<D: Synth, const A: usize> Logic for SdpRam<D, A> {
    fn update(&mut self) {
        if self.clk.pos_edge() {
            let ra = self.rd_addr.val().index();
            self.rd_data.next = if ra < self._depth {
                self._mem[ra]
            } else {
                D::default()
            };
            let wa = self.wr_addr.val().index();
            if self.wr_en.val() && wa < self._depth {
                self._mem[wa] = self.wr_data.val();
            }
        }
    }

    fn connect(&mut self) {
        self.rd_data.connect();
    }

    fn hdl(&self) -> Verilog {
        // The RAM decodes only the address bits its depth needs; the port's upper bits (the address width is
        // the caller's index type) are documented as unused with a precise in-source waiver.
        let ab = (usize::BITS - (self._depth - 1).leading_zeros()).max(1) as usize;
        let (rd, wr, unused) = if ab < A {
            (
                format!("rd_addr[{}:0]", ab - 1),
                format!("wr_addr[{}:0]", ab - 1),
                format!(
                    "/* verilator lint_off UNUSEDSIGNAL */\n\
                     // Address bits above the depth's {ab} are not decoded.\n\
                     wire unused_addr_bits = |{{rd_addr[{hi}:{ab}], wr_addr[{hi}:{ab}]}};\n\
                     /* verilator lint_on UNUSEDSIGNAL */\n",
                    hi = A - 1
                ),
            )
        } else {
            ("rd_addr".to_string(), "wr_addr".to_string(), String::new())
        };
        Verilog::Custom(format!(
            "\
{unused}{attr}reg [{dmax}:0] mem [0:{last}];
always @(posedge clk) begin
   rd_data <= mem[{rd}];
   if (wr_en) begin
      mem[{wr}] <= wr_data;
   end
end
",
            attr = self._style.attribute(),
            dmax = D::BITS - 1,
            last = self._depth - 1,
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "sdp_ram".into(),
            clock: "clk".into(),
            inputs: vec![
                "rd_addr".into(),
                "wr_addr".into(),
                "wr_data".into(),
                "wr_en".into(),
            ],
            outputs: vec!["rd_data".into()],
        }]
    }
}
