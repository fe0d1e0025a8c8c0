//! PicoRV32 (RV32IM), the control processor's core, wrapped as an external module.
//!
//! The core's Verilog is not part of this repository: it is the pinned PyPI package
//! `pythondata-cpu-picorv32` (see `tests/scripts/requirements.txt`), which `cargo xtask bootstrap` installs into
//! the project's virtual environment. [`source`] finds `picorv32.v` there (or at `METAROCE_PICORV32_V`), and
//! the generated Verilog carries it after the project's own modules, between Verilator lint waivers: it is
//! third-party code, linted by its authors, not by this project's `-Wall` rules.
//!
//! Configuration: multiply and divide (the `riscv32im` target the firmware is built for), a barrel shifter, no
//! compressed instructions (PicoRV32's decoder of them put the processor's longest path at 9 LUT levels; it is
//! 6 without them, and the firmware is built for size instead: profile `firmware`), no interrupts, no cycle
//! counters (the firmware reads the clock from its own registers), traps on misaligned accesses and illegal
//! instructions (`trap`), reset at address 0. rust-hdl's
//! own simulator cannot run the processor: its outputs stay 0 there; Verilator runs it.

use rust_hdl::prelude::*;
use std::path::{Path, PathBuf};

/// The pinned package version (also in `tests/scripts/requirements.txt`).
pub const PACKAGE: &str = "pythondata-cpu-picorv32==1.0.post218";

/// Verilator warnings the third-party text raises, waived for it alone (`lint_off` / `lint_on` around it).
const WAIVED: &[&str] = &[
    "WIDTH",
    "UNUSED",
    "CASEINCOMPLETE",
    "BLKSEQ",
    "UNDRIVEN",
    "PINCONNECTEMPTY",
    "DECLFILENAME",
    "GENUNNAMED",
    "VARHIDDEN",
    "SYNCASYNCNET",
    "MULTIDRIVEN",
    "LATCH",
    "COMBDLY",
    "BLKANDNBLK",
    "UNOPTFLAT",
    "CASEOVERLAP",
    "IMPLICIT",
    "PROCASSINIT",
];

/// Where `picorv32.v` is: `METAROCE_PICORV32_V`, else the project's virtual environment.
pub fn path() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("METAROCE_PICORV32_V") {
        let p = PathBuf::from(p);
        return if p.exists() {
            Ok(p)
        } else {
            Err(format!(
                "METAROCE_PICORV32_V={} does not exist",
                p.display()
            ))
        };
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let lib = root.join(".venv").join("lib");
    let entries = std::fs::read_dir(&lib)
        .map_err(|e| format!("{}: {e}; run `cargo xtask bootstrap`", lib.display()))?;
    for e in entries.flatten() {
        let p = e
            .path()
            .join("site-packages")
            .join("pythondata_cpu_picorv32")
            .join("verilog")
            .join("picorv32.v");
        if p.exists() {
            return Ok(p);
        }
    }
    Err(format!(
        "no picorv32.v under {} ({PACKAGE}); run `cargo xtask bootstrap`",
        lib.display()
    ))
}

/// The core's Verilog, wrapped in lint waivers; an error names what is missing.
pub fn source() -> Result<String, String> {
    let p = path()?;
    let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
    let mut s = String::from(
        "\n// PicoRV32 from the pinned package pythondata-cpu-picorv32 (third-party; not linted by this project)\n",
    );
    for w in WAIVED {
        s.push_str(&format!("/* verilator lint_off {w} */\n"));
    }
    // Its `timescale directive would give its modules a time unit the project's modules lack (the design has no
    // delays, so nothing depends on it).
    for line in text.lines() {
        if line.trim_start().starts_with("`timescale") {
            s.push_str("// (timescale directive removed)\n");
        } else {
            s.push_str(line);
            s.push('\n');
        }
    }
    s.push('\n');
    for w in WAIVED {
        s.push_str(&format!("/* verilator lint_on {w} */\n"));
    }
    Ok(s)
}

/// The processor's native memory interface.
#[derive(LogicBlock, Default)]
pub struct PicoRv32 {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Active-low reset.
    pub resetn: Signal<In, Bit>,
    /// The processor stopped on a trap (illegal instruction, misaligned access).
    pub trap: Signal<Out, Bit>,
    /// An access is requested (held until `mem_ready`).
    pub mem_valid: Signal<Out, Bit>,
    /// The access is done.
    pub mem_ready: Signal<In, Bit>,
    /// Byte address (word aligned).
    pub mem_addr: Signal<Out, Bits<32>>,
    /// Write data.
    pub mem_wdata: Signal<Out, Bits<32>>,
    /// Byte write strobes (0: a read).
    pub mem_wstrb: Signal<Out, Bits<4>>,
    /// Read data (with `mem_ready`).
    pub mem_rdata: Signal<In, Bits<32>>,
}

impl Logic for PicoRv32 {
    fn update(&mut self) {}

    fn connect(&mut self) {
        self.trap.connect();
        self.mem_valid.connect();
        self.mem_addr.connect();
        self.mem_wdata.connect();
        self.mem_wstrb.connect();
    }

    fn hdl(&self) -> Verilog {
        let cores = source().unwrap_or_else(|e| {
            // A generator that checked `source()` first never gets here; one that did not gets Verilog that
            // fails to build with the reason in it.
            format!(
                "\n`error \"picorv32.v not found: {}\"\n",
                e.replace('"', "'")
            )
        });
        Verilog::Wrapper(Wrapper {
            code: r#"
// The core's look-ahead, co-processor, interrupt and trace outputs are not used.
/* verilator lint_off PINCONNECTEMPTY */
picorv32 #(
    .ENABLE_COUNTERS(0),
    .ENABLE_COUNTERS64(0),
    .BARREL_SHIFTER(1),
    .COMPRESSED_ISA(0),
    .ENABLE_MUL(1),
    .ENABLE_DIV(1),
    .ENABLE_IRQ(0),
    .CATCH_MISALIGN(1),
    .CATCH_ILLINSN(1),
    .PROGADDR_RESET(32'h0000_0000),
    .STACKADDR(32'h0002_0000)
) core (
    .clk(clk),
    .resetn(resetn),
    .trap(trap),
    .mem_valid(mem_valid),
    .mem_instr(),
    .mem_ready(mem_ready),
    .mem_addr(mem_addr),
    .mem_wdata(mem_wdata),
    .mem_wstrb(mem_wstrb),
    .mem_rdata(mem_rdata),
    .mem_la_read(),
    .mem_la_write(),
    .mem_la_addr(),
    .mem_la_wdata(),
    .mem_la_wstrb(),
    .pcpi_valid(),
    .pcpi_insn(),
    .pcpi_rs1(),
    .pcpi_rs2(),
    .pcpi_wr(1'b0),
    .pcpi_rd(32'd0),
    .pcpi_wait(1'b0),
    .pcpi_ready(1'b0),
    .irq(32'd0),
    .eoi(),
    .trace_valid(),
    .trace_data()
);
/* verilator lint_on PINCONNECTEMPTY */
"#
            .into(),
            cores,
        })
    }
}
