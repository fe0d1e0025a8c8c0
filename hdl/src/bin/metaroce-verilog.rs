//! Writes the Verilog of every block of the core (or the named ones), one file per top module named after it,
//! with a `<module>.ports.json` port list beside each for co-simulation shims.
//!
//! `metaroce-verilog [--out DIR] [--width 512|1024] [--conn-bits N] [--qp-bits N] [--send-slot-bits N] [--list] [BLOCK...]`

use metaroce_hdl::{blocks, gen, CoreConfig, DataWidth};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str =
    "usage: metaroce-verilog [--out DIR] [--width 512|1024] [--conn-bits N] [--qp-bits N] [--send-slot-bits N] [--list] [BLOCK...]";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("metaroce-verilog: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let mut cfg = CoreConfig::default();
    let mut out = PathBuf::from("target/hdl/verilog");
    let mut names = Vec::new();
    let mut list = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--out" => out = args.next().ok_or("--out needs a directory")?.into(),
            "--width" => {
                let w = args.next().ok_or("--width needs 512 or 1024")?;
                cfg.width =
                    DataWidth::parse(&w).ok_or(format!("--width {w}: expected 512 or 1024"))?;
            }
            "--conn-bits" => {
                let v = args.next().ok_or("--conn-bits needs a number")?;
                cfg.conn_bits = v
                    .parse()
                    .ok()
                    .filter(|b| (4..=16).contains(b))
                    .ok_or(format!("--conn-bits {v}: expected 4..=16"))?;
                cfg.send_slot_bits = cfg.send_slot_bits.min(cfg.conn_bits);
            }
            "--qp-bits" => {
                let v = args.next().ok_or("--qp-bits needs a number")?;
                cfg.qp_bits = v
                    .parse()
                    .ok()
                    .filter(|b| (4..=16).contains(b))
                    .ok_or(format!("--qp-bits {v}: expected 4..=16"))?;
            }
            "--send-slot-bits" => {
                let v = args.next().ok_or("--send-slot-bits needs a number")?;
                cfg.send_slot_bits = v
                    .parse()
                    .ok()
                    .filter(|b| (1..=cfg.conn_bits).contains(b))
                    .ok_or(format!(
                        "--send-slot-bits {v}: expected 1..=conn-bits (give --conn-bits first)"
                    ))?;
            }
            "--list" => list = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            s if s.starts_with('-') => return Err(format!("unknown option {s}\n{USAGE}")),
            s => names.push(s.to_string()),
        }
    }
    let all = blocks::all();
    if list {
        for b in &all {
            println!("{:<40} {:<7} {}", b.name, b.area, b.description);
        }
        return Ok(());
    }
    let chosen: Vec<_> = if names.is_empty() {
        all
    } else {
        names
            .iter()
            .map(|n| blocks::find(n).ok_or(format!("unknown block `{n}` (try --list)")))
            .collect::<Result<_, _>>()?
    };
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    for b in chosen {
        let text = (b.verilog)(&cfg);
        let ports = gen::ports(&text, b.name);
        if ports.is_empty() {
            return Err(format!(
                "block {}: no module `{}` in its Verilog",
                b.name, b.name
            ));
        }
        let v = out.join(format!("{}.v", b.name));
        std::fs::write(&v, &text).map_err(|e| format!("{}: {e}", v.display()))?;
        let j = out.join(format!("{}.ports.json", b.name));
        std::fs::write(&j, gen::ports_json(b.name, &ports))
            .map_err(|e| format!("{}: {e}", j.display()))?;
        println!(
            "{} ({} ports, {} modules)",
            v.display(),
            ports.len(),
            gen::module_names(&text).len()
        );
    }
    Ok(())
}
