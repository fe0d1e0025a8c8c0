//! `cargo xtask`: tool bootstrap and project flows.
//!
//! Every flow installs what it needs itself, so a fresh machine (and CI) needs nothing by hand.

mod bootstrap;
mod flows;
mod hdl;
mod util;

use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <command> [args]

commands:
  demo [ARGS]   two RTL NICs in the Verilator co-simulation over a lossy multipath link; ARGS go to
                `metaroce demo` (try --help); `demo --model [ARGS]` runs the reference-model demo
  test          the full test run: bootstrap, fmt, clippy, all tests, vector freshness
  bootstrap     install the pinned external tools (tshark, C++ toolchain, the firmware's Rust target,
                Python venv with scapy, yosys, Verilator and the control processor's PicoRV32)
  firmware      build the control processor's firmware image (riscv32im) and check its size
  bench [ARGS]  criterion benchmarks of the reference model and the fabric simulator
  vectors       regenerate the golden vectors under tests/vectors
  eval [ARGS]   run the experiments of docs/evaluation.md and rewrite its tables (ARGS: experiment ids,
                --quick; see `metaroce eval --help`)
  verilog [ARGS] write the core's Verilog, one file per block, to target/hdl/verilog (ARGS: --width 512|1024,
                --conn-bits N, --send-slot-bits N, --out DIR, block names; --list)
  hdl-check     lint (Verilator -Wall) and synthesize (yosys) every block at 512 and 1024 bits, as CI does
  synth [ARGS]  synthesize every block for UltraScale+ and rewrite the table of docs/hardware.md
                (ARGS: block names; --timeout SECS per block; --core-timeout SECS for the core; --doc
                writes the table for a partial run, keeping the other rows; --width 1024 prints that
                configuration; --wire-delay PS sets ABC9's wire delay (default 600); --paths N prints
                each block's N deepest paths, from where to where, and its 4N slowest by the delays of
                yosys' cell library)
";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let cmd = args.next();
    let rest: Vec<String> = args.collect();
    let result = match cmd.as_deref() {
        Some("demo") => flows::demo(&rest),
        Some("test") => flows::test(),
        Some("bootstrap") => bootstrap::all().map(|_| ()),
        Some("firmware") => bootstrap::riscv_target().and_then(|_| flows::firmware()),
        Some("bench") => flows::bench(&rest),
        Some("vectors") => flows::vectors(false),
        Some("eval") => flows::eval(&rest),
        Some("verilog") => hdl::verilog(&rest),
        Some("hdl-check") => bootstrap::all().and_then(|t| hdl::check_built(&t)),
        Some("synth") => bootstrap::all().and_then(|t| hdl::synth(&t, &rest)),
        Some("help") | Some("--help") | Some("-h") | None => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Some(other) => Err(format!("unknown command `{other}`\n\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: error: {e}");
            ExitCode::FAILURE
        }
    }
}
