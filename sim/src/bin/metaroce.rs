//! `metaroce`: run, sweep and check fabric-simulator scenarios, and run the two-NIC RTL co-simulation.
//!
//! ```text
//! metaroce demo [--loss-ppm 1000 --messages 64 --max-bytes 32768 --mix 2,1,1,1 --seed 1]
//! metaroce run [SCENARIO] [--hosts N --transport rocev2 --workload all-to-all --bytes 262144 ...]
//! metaroce sweep SCENARIO --set transport.kind=metaroce,rocev2 --set faults.0.ppm=0,100 \
//!     --plot completion_ratio --x faults.0.ppm --group transport.kind --out out/sweep
//! metaroce validate SCENARIO
//! ```
//! Flags override the scenario file; without a file, flags alone define the run on top of a small default
//! scenario (16 hosts on a 2-leaf, 8-spine 400G leaf-spine, a 1 MiB permutation). Bad input exits with
//! status 2 and a `file:line: field: reason` message; a run whose received data was corrupted exits with 3.

use clap::{Args, Parser, Subcommand};
use metaroce_hdl::DataWidth;
use metaroce_sim::output::progress::{ProgressBar, ProgressMode};
use metaroce_sim::scenario::{self, Scenario, ScenarioError};
use metaroce_sim::{output, sweep};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "metaroce", version, about = "MetaRoCE fabric simulator")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run one scenario (a file, flags, or both: flags override the file).
    Run(Box<RunArgs>),
    /// Run a scenario over a grid of overrides; write one CSV row per run and a plot.
    Sweep(SweepArgs),
    /// Run the experiments of docs/evaluation.md and rewrite their tables, CSV files and plots.
    Eval(EvalArgs),
    /// Two RTL NICs in Verilator over a lossy multipath link: goodput, retransmissions, latency, data check.
    Demo(DemoArgs),
    /// Check a scenario file without running it.
    Validate {
        /// The scenario file.
        scenario: PathBuf,
    },
}

#[derive(Args)]
struct DemoArgs {
    /// Messages to send from NIC A to NIC B.
    #[arg(long, default_value_t = 64)]
    messages: usize,
    /// Smallest message, bytes.
    #[arg(long, default_value_t = 1)]
    min_bytes: u32,
    /// Largest message, bytes.
    #[arg(long, default_value_t = 32 * 1024)]
    max_bytes: u32,
    /// Weights of WRITE, WRITE with immediate, SEND and READ, e.g. `2,1,1,1`.
    #[arg(long, default_value = "2,1,1,1")]
    mix: String,
    /// Random loss on the link in parts per million (1000 = 0.1 %), both directions.
    #[arg(long, default_value_t = 1_000)]
    loss_ppm: u32,
    /// DATA frames the link trims at random, parts per million, both directions (answered by NACK TRIMMED).
    #[arg(long, default_value_t = 0)]
    trim_ppm: u32,
    /// Parallel paths of the link (each 200 ns slower than the previous: packets arrive reordered).
    #[arg(long, default_value_t = 4)]
    paths: usize,
    /// One-way delay of the fastest path, ns.
    #[arg(long, default_value_t = 1_000)]
    delay_ns: u64,
    /// Work requests in flight at most.
    #[arg(long, default_value_t = 16)]
    window: usize,
    /// Seed of the message mix, the link's faults and the idle cycles.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Line rate of both endpoints, Gb/s (NSCC's pacing; 322 MHz x 512 bits is 165 Gb/s of datapath).
    #[arg(long, default_value_t = 100)]
    line_rate_gbps: u32,
    /// ACK ratio of both endpoints (1..=64): an ACK at least every this many packets, and no later than 2 µs
    /// after the first unacknowledged one (MR-REL-14, MR-REL-16).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=64))]
    ack_ratio: u8,
    /// Give up after this many clock cycles.
    #[arg(long, default_value_t = 5_000_000)]
    max_cycles: u64,
    /// Print both cores' non-zero counters at the end.
    #[arg(long)]
    counters: bool,
    /// Write both cores' waveforms (a.vcd, b.vcd) into this folder (builds the model with waveform support).
    #[arg(long)]
    vcd: Option<PathBuf>,
    /// With --vcd: start the waveforms this many cycles after the traffic started (0: from the cores' reset).
    #[arg(long, default_value_t = 0, requires = "vcd")]
    vcd_from: u64,
    /// Datapath width of both cores, bits: 512 or 1024.
    #[arg(long, default_value_t = 512)]
    width: u32,
}

#[derive(Args)]
struct RunArgs {
    /// Scenario file (TOML); without it the flags define the run.
    scenario: Option<PathBuf>,
    /// Topology kind: leaf-spine, fat-tree or multi-dc (replaces the file's `[topology]` table).
    #[arg(long)]
    topology: Option<String>,
    /// Total hosts (leaf-spine: hosts per leaf = hosts / leaves; fat-tree: k^3/4 = hosts).
    #[arg(long)]
    hosts: Option<u32>,
    /// Leaf switches.
    #[arg(long)]
    leaves: Option<u32>,
    /// Spine switches.
    #[arg(long)]
    spines: Option<u32>,
    /// Fat-tree radix.
    #[arg(long)]
    k: Option<u32>,
    /// Rate of every tier, Gbit/s.
    #[arg(long)]
    rate_gbps: Option<f64>,
    /// Transport: metaroce or rocev2.
    #[arg(long)]
    transport: Option<String>,
    /// Congestion control: nscc, dcqcn or fixed.
    #[arg(long)]
    cc: Option<String>,
    /// Workload kind (replaces the file's `[workload]` table): permutation, all-to-all, ring-allreduce, incast.
    #[arg(long)]
    workload: Option<String>,
    /// Bytes per flow (ring-allreduce: buffer size); 1 MiB when --workload is given without it.
    #[arg(long)]
    bytes: Option<u64>,
    /// Incast senders.
    #[arg(long)]
    senders: Option<u32>,
    /// Random loss on every link, parts per million (adds a fault).
    #[arg(long)]
    loss_ppm: Option<u32>,
    /// Seed.
    #[arg(long)]
    seed: Option<u64>,
    /// Stop at this simulated time, ns.
    #[arg(long)]
    stop_at_ns: Option<u64>,
    /// Carry and check real payload bytes.
    #[arg(long)]
    verify_data: bool,
    /// Write the JSON summary here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Include every flow in the JSON file.
    #[arg(long)]
    json_flows: bool,
    /// Write CSV files with this prefix.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Write SVG plots with this prefix.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Write a pcap of the --pcap-pair flows here.
    #[arg(long)]
    pcap: Option<PathBuf>,
    /// Host pair to capture, SRC:DST (repeatable).
    #[arg(long, value_name = "SRC:DST")]
    pcap_pair: Vec<String>,
    /// Any scenario key, PATH=VALUE (repeatable; applied after the other flags).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    set: Vec<String>,
    /// No table and no progress line.
    #[arg(long, short)]
    quiet: bool,
    /// Draw the progress line even when stderr is not a terminal.
    #[arg(long)]
    progress: bool,
}

#[derive(Args)]
struct EvalArgs {
    /// Experiments to run, by id or number (default: all).
    experiments: Vec<String>,
    /// Small sizes that run in seconds; the document is left alone and files go to target/eval-quick.
    #[arg(long)]
    quick: bool,
    /// Directory of the experiments' scenario files.
    #[arg(long, default_value = "sim/scenarios/eval")]
    scenarios: PathBuf,
    /// Where the CSV files and plots go (default docs/eval, or target/eval-quick with --quick).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The evaluation document whose marked blocks are rewritten (not with --quick).
    #[arg(long, default_value = "docs/evaluation.md")]
    doc: PathBuf,
    /// No progress line.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Args)]
struct SweepArgs {
    /// Scenario file (TOML).
    scenario: PathBuf,
    /// A swept parameter, PATH=V1,V2,... (repeatable; the grid is every combination).
    #[arg(long = "set", value_name = "PATH=V1,V2", required = true)]
    set: Vec<String>,
    /// Summary figure to plot (e.g. completion_ns, completion_ratio, fct.collective.p99_ns).
    #[arg(long, default_value = "completion_ratio")]
    plot: String,
    /// Parameter on the x axis (default: the first --set).
    #[arg(long)]
    x: Option<String>,
    /// Parameter whose values make separate lines (default: the second --set, if any).
    #[arg(long)]
    group: Option<String>,
    /// Output directory (sweep.csv, sweep.svg).
    #[arg(long, default_value = "sweep-out")]
    out: PathBuf,
    /// No per-run lines and no progress line.
    #[arg(long, short)]
    quiet: bool,
}

const DEFAULT_SCENARIO: &str = r#"
[topology]
kind = "leaf-spine"
leaves = 2
hosts_per_leaf = 8
spines = 8
host = { rate_gbps = 400, latency_ns = 500 }
fabric = { rate_gbps = 400, latency_ns = 500 }
[workload]
kind = "permutation"
bytes = 1048576
"#;

fn default_topology(kind: &str) -> &'static str {
    match kind {
        "fat-tree" => {
            r#"{ kind = "fat-tree", k = 4, host = { rate_gbps = 400, latency_ns = 500 }, fabric = { rate_gbps = 400, latency_ns = 500 }, core = { rate_gbps = 400, latency_ns = 500 } }"#
        }
        "multi-dc" => {
            r#"{ kind = "multi-dc", dcs = 2, leaves = 2, hosts_per_leaf = 4, spines = 2, borders = 2, host = { rate_gbps = 400, latency_ns = 500 }, fabric = { rate_gbps = 400, latency_ns = 500 }, long_haul = { rate_gbps = 400, latency_ns = 1000000 } }"#
        }
        _ => {
            r#"{ kind = "leaf-spine", leaves = 2, hosts_per_leaf = 8, spines = 8, host = { rate_gbps = 400, latency_ns = 500 }, fabric = { rate_gbps = 400, latency_ns = 500 } }"#
        }
    }
}

fn bad(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}

/// The flags as scenario overrides, in order.
fn overrides(a: &RunArgs, text: &str) -> Result<Vec<(String, String)>, String> {
    let mut o: Vec<(String, String)> = Vec::new();
    let mut set = |p: &str, v: String| o.push((p.to_string(), v));
    let doc: toml::Table = text.parse().unwrap_or_default();
    let topo_kind = a.topology.clone().or_else(|| {
        doc.get("topology")
            .and_then(|t| t.get("kind"))
            .and_then(|k| k.as_str())
            .map(str::to_string)
    });
    if let Some(kind) = &a.topology {
        set("topology", default_topology(kind).to_string());
        set("topology.kind", format!("{kind:?}"));
    }
    if let Some(k) = a.k {
        set("topology.k", k.to_string());
    }
    if let Some(l) = a.leaves {
        set("topology.leaves", l.to_string());
    }
    if let Some(s) = a.spines {
        set("topology.spines", s.to_string());
    }
    if let Some(h) = a.hosts {
        set("topology.hosts", h.to_string());
    }
    if let Some(r) = a.rate_gbps {
        let mut tiers = vec!["host", "fabric"];
        match topo_kind.as_deref() {
            Some("fat-tree") => tiers.push("core"),
            Some("multi-dc") => tiers.push("long_haul"),
            _ => {}
        }
        for t in tiers {
            o.push((format!("topology.{t}.rate_gbps"), r.to_string()));
        }
    }
    let mut set = |p: &str, v: String| o.push((p.to_string(), v));
    if let Some(t) = &a.transport {
        set("transport.kind", format!("{t:?}"));
    }
    if let Some(c) = &a.cc {
        set("transport.cc", format!("{c:?}"));
    }
    if let Some(w) = &a.workload {
        set("workload", format!("{{ kind = {w:?} }}"));
        if a.bytes.is_none() && w != "uniform-random" && w != "inference" {
            set("workload.bytes", "1048576".into());
        }
    }
    if let Some(b) = a.bytes {
        set("workload.bytes", b.to_string());
    }
    if let Some(s) = a.senders {
        set("workload.senders", s.to_string());
    }
    if let Some(ppm) = a.loss_ppm {
        let n = doc
            .get("faults")
            .and_then(|f| f.as_array())
            .map_or(0, |f| f.len());
        set(
            &format!("faults.{n}"),
            format!("{{ kind = \"loss\", links = \"all\", ppm = {ppm} }}"),
        );
    }
    if let Some(s) = a.seed {
        set("seed", s.to_string());
    }
    if let Some(s) = a.stop_at_ns {
        set("stop_at_ns", s.to_string());
    }
    if a.verify_data {
        set("verify_data", "true".into());
    }
    if let Some(p) = &a.json {
        set("output.json", format!("{:?}", p.display().to_string()));
    }
    if a.json_flows {
        set("output.json_flows", "true".into());
    }
    if let Some(p) = &a.csv {
        set("output.csv", format!("{:?}", p.display().to_string()));
    }
    if let Some(p) = &a.svg {
        set("output.svg", format!("{:?}", p.display().to_string()));
    }
    if let Some(p) = &a.pcap {
        set("output.pcap.path", format!("{:?}", p.display().to_string()));
    }
    if !a.pcap_pair.is_empty() {
        let mut pairs = Vec::new();
        for pp in &a.pcap_pair {
            let (s, d) = pp
                .split_once(':')
                .and_then(|(s, d)| {
                    Some((s.trim().parse::<u32>().ok()?, d.trim().parse::<u32>().ok()?))
                })
                .ok_or_else(|| format!("--pcap-pair {pp}: expected SRC:DST host ids"))?;
            pairs.push(format!("[{s}, {d}]"));
        }
        set("output.pcap.pairs", format!("[{}]", pairs.join(", ")));
    }
    for s in &a.set {
        let (p, v) = s
            .split_once('=')
            .ok_or_else(|| format!("--set {s}: expected PATH=VALUE"))?;
        set(p.trim(), v.trim().to_string());
    }
    Ok(o)
}

fn read(path: &PathBuf) -> Result<String, ScenarioError> {
    std::fs::read_to_string(path).map_err(|e| ScenarioError {
        origin: path.display().to_string(),
        line: None,
        field: "file".into(),
        reason: format!("cannot read: {e}"),
    })
}

fn run(a: RunArgs) -> ExitCode {
    let (text, origin) = match &a.scenario {
        Some(p) => match read(p) {
            Ok(t) => (t, p.display().to_string()),
            Err(e) => return bad(e),
        },
        None => (
            DEFAULT_SCENARIO.to_string(),
            "built-in defaults".to_string(),
        ),
    };
    let o = match overrides(&a, &text) {
        Ok(o) => o,
        Err(e) => return bad(e),
    };
    let sc: Scenario = match scenario::parse_with(&text, &origin, &o) {
        Ok(s) => s,
        Err(e) => return bad(e),
    };
    let mode = if a.quiet {
        ProgressMode::Never
    } else if a.progress {
        ProgressMode::Always
    } else {
        ProgressMode::Auto
    };
    let mut bar = ProgressBar::new(mode, sc.sim.stop_at_ns);
    let res = sc.run(&mut |p| bar.update(p));
    bar.finish();
    let (results, summary) = match res {
        Ok(r) => r,
        Err(e) => return bad(format!("{origin}: {e}")),
    };
    if !a.quiet {
        print!("{}", output::table::render(&summary));
    }
    match output::write_all(&sc.output, &results, &summary) {
        Ok(paths) => {
            if !a.quiet {
                for p in paths {
                    eprintln!("wrote {}", p.display());
                }
            }
        }
        Err(e) => {
            eprintln!("error: writing output: {e}");
            return ExitCode::from(1);
        }
    }
    if summary.data_errors > 0 {
        eprintln!(
            "error: {} payload bytes arrived corrupted",
            summary.data_errors
        );
        return ExitCode::from(3);
    }
    ExitCode::SUCCESS
}

fn run_sweep(a: SweepArgs) -> ExitCode {
    let text = match read(&a.scenario) {
        Ok(t) => t,
        Err(e) => return bad(e),
    };
    let origin = a.scenario.display().to_string();
    let mut params = Vec::new();
    for s in &a.set {
        match sweep::parse_set(s) {
            Ok(p) => params.push(p),
            Err(e) => return bad(format!("--set {e}")),
        }
    }
    let x = a.x.clone().unwrap_or_else(|| params[0].path.clone());
    let group = a
        .group
        .clone()
        .or_else(|| params.get(1).map(|p| p.path.clone()));
    for p in std::iter::once(&x).chain(group.as_ref()) {
        if !params.iter().any(|q| &q.path == p) {
            return bad(format!("{p}: not one of the --set parameters"));
        }
    }
    let mode = if a.quiet {
        ProgressMode::Never
    } else {
        ProgressMode::Auto
    };
    let mut bar = ProgressBar::new(mode, None);
    let quiet = a.quiet;
    let metric = a.plot.clone();
    let runs = sweep::run(
        &text,
        &origin,
        &params,
        &mut |p| bar.update(p),
        &mut |i, n, r| {
            if !quiet {
                let o: Vec<String> = r
                    .overrides
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect();
                let m = r
                    .summary
                    .metric(&metric)
                    .map_or("-".to_string(), |v| format!("{v}"));
                eprintln!(
                    "\r\x1b[Krun {}/{n}: {} -> {metric} = {m}",
                    i + 1,
                    o.join(" ")
                );
            }
        },
    );
    bar.finish();
    let runs = match runs {
        Ok(r) => r,
        Err(e) => return bad(e),
    };
    if let Err(e) = std::fs::create_dir_all(&a.out) {
        eprintln!("error: {}: {e}", a.out.display());
        return ExitCode::from(1);
    }
    let csv_path = a.out.join("sweep.csv");
    let svg = match sweep::plot(&runs, &a.plot, &x, group.as_deref()) {
        Ok(s) => s,
        Err(e) => return bad(e),
    };
    let svg_path = a.out.join("sweep.svg");
    if let Err(e) =
        std::fs::write(&csv_path, sweep::csv(&runs)).and_then(|_| std::fs::write(&svg_path, svg))
    {
        eprintln!("error: writing output: {e}");
        return ExitCode::from(1);
    }
    if !a.quiet {
        eprintln!("wrote {} and {}", csv_path.display(), svg_path.display());
    }
    ExitCode::SUCCESS
}

fn validate(path: PathBuf) -> ExitCode {
    match scenario::load(&path) {
        Ok(sc) => {
            let topo = match metaroce_sim::topology::Topology::build(&sc.sim.topology) {
                Ok(t) => t,
                Err(e) => return bad(e),
            };
            println!(
                "{}: ok: {} hosts, workload {}, {} background, ideal {}",
                path.display(),
                topo.hosts(),
                sc.workload.kind(),
                sc.background.len(),
                output::table::fmt_ns(sc.workload.ideal_ns(&topo, &sc.sim))
            );
            ExitCode::SUCCESS
        }
        Err(e) => bad(e),
    }
}

fn run_eval(a: EvalArgs) -> ExitCode {
    use metaroce_sim::eval::{self, Scale};
    let mut chosen = Vec::new();
    for name in &a.experiments {
        match eval::find(name) {
            Some(e) => chosen.push(e),
            None => {
                let ids: Vec<&str> = eval::EXPERIMENTS.iter().map(|e| e.id).collect();
                return bad(format!(
                    "{name}: no such experiment (one of {})",
                    ids.join(", ")
                ));
            }
        }
    }
    if chosen.is_empty() {
        chosen.extend(eval::EXPERIMENTS.iter());
    }
    let scale = if a.quick { Scale::Quick } else { Scale::Full };
    let out = a.out.clone().unwrap_or_else(|| {
        PathBuf::from(if a.quick {
            "target/eval-quick"
        } else {
            "docs/eval"
        })
    });
    let mode = if a.quiet {
        ProgressMode::Never
    } else {
        ProgressMode::Auto
    };
    for exp in chosen {
        let mut bar = ProgressBar::new(mode, None);
        let quiet = a.quiet;
        let runs = eval::run(
            exp,
            &a.scenarios,
            scale,
            &mut |i, n, label| {
                if !quiet {
                    eprintln!(
                        "\r\x1b[Kexperiment {} ({}), run {}/{n}: {label}",
                        exp.number,
                        exp.id,
                        i + 1
                    );
                }
            },
            &mut |p| bar.update(p),
        );
        bar.finish();
        let runs = match runs {
            Ok(r) => r,
            Err(e) => return bad(e),
        };
        if runs.iter().any(|r| r.summary.data_errors > 0) {
            eprintln!("experiment {}: delivered data was corrupted", exp.id);
            return ExitCode::from(3);
        }
        let report = (exp.report)(&runs);
        println!("## {}. {}\n\n{}", exp.number, exp.title, report.markdown);
        match eval::write_files(exp, &report, &out) {
            Ok(files) => {
                for f in files {
                    eprintln!("wrote {}", f.display());
                }
            }
            Err(e) => {
                eprintln!("{}: {e}", out.display());
                return ExitCode::from(1);
            }
        }
        if !a.quick {
            let body = match std::fs::read_to_string(&a.doc)
                .map_err(|e| format!("{}: {e}", a.doc.display()))
                .and_then(|doc| eval::splice(&doc, exp.id, &report.markdown))
            {
                Ok(b) => b,
                Err(e) => return bad(e),
            };
            if let Err(e) = std::fs::write(&a.doc, body) {
                eprintln!("{}: {e}", a.doc.display());
                return ExitCode::from(1);
            }
            eprintln!("updated {}", a.doc.display());
        }
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Run(a) => run(*a),
        Cmd::Sweep(a) => run_sweep(a),
        Cmd::Eval(a) => run_eval(a),
        Cmd::Demo(a) => demo(a),
        Cmd::Validate { scenario } => validate(scenario),
    }
}

/// Cycles of waveform written before the failure of a failed demo run.
const WAVE_TAIL: u64 = 10_000;

fn demo(a: DemoArgs) -> ExitCode {
    use metaroce_sim::cosim::demo::{self, DemoConfig};
    use std::io::Write;
    let mix: Vec<u32> = a
        .mix
        .split(',')
        .filter_map(|w| w.trim().parse().ok())
        .collect();
    if mix.len() != 4 || mix.iter().sum::<u32>() == 0 {
        eprintln!(
            "--mix {}: expected four weights (WRITE, WRITE_IMM, SEND, READ), e.g. 2,1,1,1",
            a.mix
        );
        return ExitCode::from(2);
    }
    let width = match a.width {
        512 => DataWidth::W512,
        1024 => DataWidth::W1024,
        w => {
            eprintln!("--width {w}: the core's datapath is 512 or 1024 bits");
            return ExitCode::from(2);
        }
    };
    if a.min_bytes > a.max_bytes || a.max_bytes > 1 << 20 {
        eprintln!("--min-bytes/--max-bytes: need min <= max <= 1 MiB");
        return ExitCode::from(2);
    }
    let cfg = DemoConfig {
        messages: a.messages,
        min_bytes: a.min_bytes,
        max_bytes: a.max_bytes,
        mix: [mix[0], mix[1], mix[2], mix[3]],
        loss_ppm: a.loss_ppm,
        trim_ppm: a.trim_ppm,
        paths: a.paths.max(1),
        delay_ns: a.delay_ns,
        window: a.window,
        seed: a.seed,
        line_rate_gbps: a.line_rate_gbps.max(1),
        ack_ratio: a.ack_ratio,
        max_cycles: a.max_cycles,
        vcd: a.vcd.clone(),
        vcd_from: a.vcd_from,
        width,
    };
    eprintln!(
        "building the core's Verilator model (cached after the first run), then {} messages of {}..{} bytes at {} ppm loss over {} paths (seed {})",
        cfg.messages, cfg.min_bytes, cfg.max_bytes, cfg.loss_ppm, cfg.paths, cfg.seed
    );
    let t0 = std::time::Instant::now();
    let mut progress = |done: usize, total: usize, cycle: u64| {
        let width = 40;
        let filled = done * width / total.max(1);
        let rate = cycle as f64 / t0.elapsed().as_secs_f64().max(1e-9);
        eprint!(
            "\r[{}{}] {done}/{total} messages, cycle {cycle}, {:.0} cycles/s ",
            "=".repeat(filled),
            " ".repeat(width - filled),
            rate
        );
        let _ = std::io::stderr().flush();
    };
    // A failed run is replayed (same seed) with waveforms of its last cycles, unless they were asked for.
    let waves_dir = demo::failure_dir("demo", cfg.seed);
    let outcome = if cfg.vcd.is_some() {
        demo::Outcome {
            result: demo::run(&cfg, &mut progress),
            waves: None,
        }
    } else {
        demo::run_with_waves_on_failure(&cfg, &mut progress, &waves_dir, WAVE_TAIL)
    };
    let waves_note = |w: &Option<Result<PathBuf, String>>| {
        match w {
        Some(Ok(d)) => eprintln!(
            "waveforms of the last {WAVE_TAIL} cycles before the failure (replay of seed {}): {}/a.vcd, b.vcd",
            cfg.seed,
            d.display()
        ),
        Some(Err(e)) => eprintln!("no waveforms: {e}"),
        None => {}
    }
    };
    let r = match outcome.result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("\ndemo failed: {e}");
            waves_note(&outcome.waves);
            return ExitCode::from(1);
        }
    };
    waves_note(&outcome.waves);
    eprintln!();
    println!(
        "two RTL NICs (metaroce_core, {}-bit, Verilator) over {} paths at {} ppm loss, line rate {} Gb/s",
        a.width, cfg.paths, cfg.loss_ppm, cfg.line_rate_gbps
    );
    println!("  messages        {} ({} bytes)", r.messages, r.bytes);
    println!(
        "  cycles          {} at {:.1} MHz",
        r.cycles,
        1e6 / demo::PERIOD_PS as f64
    );
    println!(
        "  goodput         {:.2} bytes/cycle = {:.1} Gb/s",
        r.bytes_per_cycle(),
        r.gbps()
    );
    println!(
        "  datapath        A transmits a beat in {:.1} % of the cycles from its first to its last ({} beats), B in {:.1} % ({}); frames discarded at receive for lack of room A {}, B {}",
        100.0 * r.tx_occupancy[0],
        r.tx_beats[0],
        100.0 * r.tx_occupancy[1],
        r.tx_beats[1],
        r.rx_overflows[0],
        r.rx_overflows[1]
    );
    println!(
        "  retransmissions {} of {} DATA packets ({} frames lost on the link)",
        r.retransmissions, r.data_packets, r.link_lost
    );
    println!(
        "  latency         median {} cycles, p99 {} cycles (post to completion)",
        r.latency(0.5),
        r.latency(0.99)
    );
    println!(
        "  speed           {:.0} cycles/s of the pair ({:.1} s)",
        r.cycles_per_s(),
        r.wall_s
    );
    let ok = r.corrupt == 0 && r.bad_completions == 0;
    println!(
        "  data check      {} ({} messages corrupt, {} bad completions)",
        if ok { "PASS" } else { "FAIL" },
        r.corrupt,
        r.bad_completions
    );
    // The same scenario on two reference-model endpoints (the model decides in zero time).
    match metaroce_sim::cosim::model_twin::run_model(&cfg) {
        Ok(m) => {
            println!(
                "  model           {:.2} bytes/cycle = {:.1} Gb/s in the same scenario (the RTL reaches {:.0} % of it), {} retransmissions of {} DATA packets, latency median {} / p99 {} cycles{}",
                m.bytes_per_cycle(),
                m.gbps(),
                100.0 * r.bytes_per_cycle() / m.bytes_per_cycle().max(1e-9),
                m.retransmissions,
                m.data_packets,
                m.latency_cycles(0.5),
                m.latency_cycles(0.99),
                if m.passed() { "" } else { " (MODEL DATA CHECK FAILED)" }
            );
        }
        Err(e) => println!("  model           not run: {e}"),
    }
    if a.counters {
        println!("  counters A      {}", r.counters[0]);
        println!("  counters B      {}", r.counters[1]);
    }
    if let Some(b) = &r.first_bad {
        println!("  first bad       {b}");
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    }
}
