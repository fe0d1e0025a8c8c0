//! Scenario files (TOML): everything a run needs, with errors that name the file, line and field.
//!
//! A scenario is a [`SimConfig`], a measured [`WorkloadSpec`], optional background workloads and an
//! [`OutputSpec`]. Unknown keys are errors. The keys, with their defaults (no default: required):
//!
//! | key | meaning |
//! |---|---|
//! | `seed` | u64, default 1 |
//! | `stop_at_ns` | stop the run at this simulated time (optional) |
//! | `verify_data` | carry and check real payload bytes, default false |
//! | `[topology]` `kind` | `"leaf-spine"` (default), `"fat-tree"` or `"multi-dc"` |
//! | `leaves`, `hosts_per_leaf`, `spines` | leaf-spine and multi-dc (per data center) |
//! | `hosts` | optional total hosts: replaces `hosts_per_leaf` by `hosts / leaves` (multi-dc: `hosts / dcs / leaves`), or the fat-tree's `k` by the even `k` with `k^3/4 = hosts` |
//! | `uplinks_per_spine`, `planes` | default 1 |
//! | `host`, `fabric`, `core`, `long_haul` | tiers `{ rate_gbps = 400, latency_ns = 500 }` (`rate_gbps` may be fractional; `core` fat-tree only, `long_haul` multi-dc only) |
//! | `k` | fat-tree radix |
//! | `dcs`, `borders`, `long_haul_links` | multi-dc; `borders` and `long_haul_links` default 1 |
//! | `[transport]` `kind` | `"metaroce"` (default) or `"rocev2"` |
//! | `mtu`, `max_msg_bytes` | default 4096 and 1048576 |
//! | `paths`, `cc` (`"nscc"`, `"dcqcn"`, `"fixed"`), `window_log2`, `rto_min_ns` | optional, else the transport's default |
//! | `[switch]` `buffer_bytes`, `trimming` | default 1048576 and true |
//! | `reroute_after_ns`, `ecn = { kmin_bytes, kmax_bytes, pmax_percent }`, `pfc = { xoff_bytes, xon_bytes }` | optional |
//! | `[[faults]]` `kind` | `"loss"` (`ppm`), `"down"` / `"up"` (`at_ns`), `"degrade"` (`at_ns`, `rate_gbps`) |
//! | `links` | `"all"`, `"fabric"`, a link or direction name, or a list of them; default `"all"` for `loss` |
//! | `[workload]`, `[[background]]` | see [`WorkloadSpec`] (`kind = "permutation"`, `"all-to-all"`, `"ring-allreduce"`, `"incast"`, `"uniform-random"`, `"inference"`) |
//! | `[output]` `json`, `csv`, `svg` | file / prefixes (see [`OutputSpec`]) |
//! | `json_flows` | also write every flow into the JSON file, default false |
//! | `pcap = { path, pairs = [[src, dst], ...], max_packets = 10000 }` | capture of chosen host pairs |
//!
//! Every error, from the TOML syntax to [`SimConfig::validate`], [`Topology::build`] and
//! [`WorkloadSpec::validate`], becomes a [`ScenarioError`] shown as `file:line: field: reason`, where `field`
//! is the dotted key path (`faults.2.at_ns`, `topology.host.rate_gbps`) and `line` the line of that key (or
//! of the nearest enclosing table present in the file). Values set from the command line
//! ([`parse_with`] overrides) are reported as `--set field=value: field: reason`.

use crate::config::{
    ConfigError, EcnConfig, Fault, LinkSel, PcapSpec, PfcConfig, SimConfig, SwitchConfig, Tier,
    TopologySpec, Transport, TransportSpec,
};
use crate::topology::Topology;
use crate::workload::WorkloadSpec;
use metaroce_proto::transport::CcKind;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// What to write after a run (all optional; relative paths are relative to the working directory).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutputSpec {
    /// JSON summary file.
    pub json: Option<PathBuf>,
    /// Also write every flow into the JSON file.
    pub json_flows: bool,
    /// CSV prefix: `<prefix>.flows.csv`, `<prefix>.summary.csv`, `<prefix>.links.csv`.
    pub csv: Option<PathBuf>,
    /// SVG prefix: `<prefix>.fct.svg`, `<prefix>.links.svg`.
    pub svg: Option<PathBuf>,
}

/// A parsed and checked scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// The simulator configuration (validated, its topology builds).
    pub sim: SimConfig,
    /// The measured workload.
    pub workload: WorkloadSpec,
    /// Background workloads.
    pub background: Vec<WorkloadSpec>,
    /// Output files.
    pub output: OutputSpec,
}

/// A scenario that cannot run: where and why. Displayed as `origin:line: field: reason` (the line is left
/// out when unknown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file name, `--set field=value` for a command-line override, or `command line`.
    pub origin: String,
    /// 1-based line in the file, when known.
    pub line: Option<usize>,
    /// Dotted field path (`topology.host.rate_gbps`); `syntax` when no field can be named.
    pub field: String,
    /// What is wrong.
    pub reason: String,
}

impl core::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}: {}", self.origin, l, self.field, self.reason),
            None => write!(f, "{}: {}: {}", self.origin, self.field, self.reason),
        }
    }
}

impl std::error::Error for ScenarioError {}

/// Reads and checks the scenario file at `path`.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    load_with(path, &[])
}

/// Reads the scenario file at `path` and applies `overrides` (see [`parse_with`]).
pub fn load_with(path: &Path, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ScenarioError {
        origin: origin.clone(),
        line: None,
        field: "file".into(),
        reason: format!("cannot read: {e}"),
    })?;
    parse_with(&text, &origin, overrides)
}

/// Parses and checks scenario text (errors name the origin `scenario`).
pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    parse_with(text, "scenario", &[])
}

/// Parses scenario text from `origin` and applies `overrides`, each `(dotted.path, value)` where the value is
/// TOML (`100`, `12.5`, `true`, `["leaf0-spine1"]`) or else taken as a string (`rocev2`). An index one past
/// the end of an array of tables (`faults.0.kind` in a file without faults) appends a table. With empty `text`,
/// the overrides alone define the scenario.
pub fn parse_with(
    text: &str,
    origin: &str,
    overrides: &[(String, String)],
) -> Result<Scenario, ScenarioError> {
    let origin = if text.trim().is_empty() && origin == "scenario" {
        "command line".to_string()
    } else {
        origin.to_string()
    };
    let doc = Doc::new(text, &origin)?;
    // The file alone: type errors and unknown keys with their line.
    let raw: RawScenario = toml::from_str(text).map_err(|e| doc.serde_error(&e))?;
    let set_paths: Vec<(String, String)> = overrides.to_vec();
    let raw = if overrides.is_empty() {
        raw
    } else {
        let mut table: toml::Table = text.parse().map_err(|e| doc.serde_error(&e))?;
        for (path, value) in overrides {
            set_path(&mut table, path, parse_value(value)).map_err(|reason| ScenarioError {
                origin: format!("--set {path}={value}"),
                line: None,
                field: path.clone(),
                reason,
            })?;
        }
        // Deserialize the merged document from its TOML text, so errors still carry a field path.
        let merged = toml::to_string(&table).map_err(|e| ScenarioError {
            origin: origin.clone(),
            line: None,
            field: "syntax".into(),
            reason: e.to_string(),
        })?;
        let mdoc = Doc::new(&merged, &origin)?;
        toml::from_str(&merged).map_err(|e| {
            let se = mdoc.serde_error(&e);
            doc.config_error(
                ConfigError {
                    field: se.field,
                    reason: se.reason,
                },
                &set_paths,
            )
        })?
    };
    let located = |e: ConfigError| doc.config_error(e, &set_paths);
    let (sim, workload, background, output) = raw.convert().map_err(located)?;
    sim.validate().map_err(located)?;
    let topo = Topology::build(&sim.topology).map_err(located)?;
    workload
        .validate(&topo, "workload", true)
        .map_err(located)?;
    for (i, b) in background.iter().enumerate() {
        b.validate(&topo, &format!("background.{i}"), false)
            .map_err(located)?;
    }
    if background.len() > 15 {
        return Err(located(ConfigError {
            field: "background".into(),
            reason: "at most 15 background workloads".into(),
        }));
    }
    if let Some(p) = &sim.pcap {
        if p.pairs.is_empty() {
            return Err(located(ConfigError {
                field: "output.pcap.pairs".into(),
                reason: "needs at least one [src, dst] host pair to capture".into(),
            }));
        }
        for (i, &(a, b)) in p.pairs.iter().enumerate() {
            if a >= topo.hosts() || b >= topo.hosts() {
                return Err(located(ConfigError {
                    field: format!("output.pcap.pairs.{i}"),
                    reason: format!(
                        "host out of range (the topology has {} hosts)",
                        topo.hosts()
                    ),
                }));
            }
        }
    }
    Ok(Scenario {
        sim,
        workload,
        background,
        output,
    })
}

impl Scenario {
    /// Runs the scenario: builds the simulator and the workloads, runs to completion (or `stop_at_ns`) calling
    /// `progress` about every 0.25 s of wall time, and summarizes. Slowdowns use each flow's unloaded FCT: its
    /// wire bytes at the host rate (see [`WorkloadSpec::ideal_ns`](crate::workload::WorkloadSpec::ideal_ns)),
    /// plus the one-way latency of a full data frame to the receiver and of the acknowledgement back (a flow
    /// completes when its last message is acknowledged).
    pub fn run(
        &self,
        progress: &mut dyn FnMut(&crate::fabric::Progress),
    ) -> Result<(crate::results::RunResults, crate::metrics::Summary), ConfigError> {
        let mut sim = crate::fabric::Simulator::new(self.sim.clone())?;
        let topo = sim.topology();
        let cfg = sim.config();
        let ideal = self.workload.ideal_ns(topo, cfg);
        let mut wl =
            crate::workload::build_composite(&self.workload, &self.background, topo, cfg.seed);
        let results = sim.run(&mut *wl, progress);
        let topo = sim.topology();
        let cfg = sim.config();
        let rate = topo.host_rate_bps().max(1);
        let mtu = u64::from(cfg.transport.mtu);
        let hdr = crate::workload::packet_overhead_bytes(cfg.transport.kind) - 20;
        let ack = ack_frame_bytes(cfg.transport.kind);
        let unloaded = |f: &crate::flow::FlowRecord| {
            let wire = crate::workload::wire_bytes(cfg, f.spec.bytes);
            let ser = (u128::from(wire) * 8 * 1_000_000_000 / u128::from(rate)) as u64;
            ser + topo.one_way_ns(f.spec.src, f.spec.dst, f.spec.bytes.min(mtu) + hdr)
                + topo.one_way_ns(f.spec.dst, f.spec.src, ack)
        };
        let summary = crate::metrics::Summary::from_with(&results, ideal, &unloaded);
        Ok((results, summary))
    }
}

/// Bytes of an acknowledgement frame (Ethernet, IPv4, UDP, transport ACK headers, ICV/ICRC, FCS): MetaRoCE base
/// header 16 + ACK header 48; RoCEv2 BTH 12 + AETH 4.
fn ack_frame_bytes(t: Transport) -> u64 {
    match t {
        Transport::MetaRoce => 14 + 20 + 8 + 16 + 48 + 4 + 4,
        Transport::RoceV2 => 14 + 20 + 8 + 12 + 4 + 4 + 4,
    }
}

/// A value from the command line: TOML if it parses as one, else a string.
fn parse_value(v: &str) -> toml::Value {
    match format!("v = {v}").parse::<toml::Table>() {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| toml::Value::String(v.into())),
        Err(_) => toml::Value::String(v.to_string()),
    }
}

/// Sets `path` (dotted, numeric parts index arrays) in `root` to `v`, creating tables on the way.
pub fn set_path(root: &mut toml::Table, path: &str, v: toml::Value) -> Result<(), String> {
    let parts: Vec<&str> = path.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err("empty path component".into());
    }
    let mut tree = toml::Value::Table(std::mem::take(root));
    let result = set_in(&mut tree, &parts, v);
    if let toml::Value::Table(t) = tree {
        *root = t;
    }
    result
}

fn set_in(cur: &mut toml::Value, parts: &[&str], v: toml::Value) -> Result<(), String> {
    let Some((first, rest)) = parts.split_first() else {
        *cur = v;
        return Ok(());
    };
    let fresh = || toml::Value::Table(toml::Table::new());
    // A missing key followed by an index becomes an array (`background.0.kind` in a file without one).
    let indexed = rest.first().is_some_and(|p| p.parse::<usize>().is_ok());
    let next = match cur {
        toml::Value::Table(t) => t.entry((*first).to_string()).or_insert_with(|| {
            if indexed {
                toml::Value::Array(Vec::new())
            } else {
                fresh()
            }
        }),
        toml::Value::Array(a) => match first.parse::<usize>() {
            Ok(i) if i < a.len() => &mut a[i],
            Ok(i) if i == a.len() => {
                a.push(fresh());
                &mut a[i]
            }
            _ => return Err(format!("`{first}` is not an index of the array")),
        },
        _ => {
            return Err(format!(
                "cannot set `{first}` inside a value that is not a table"
            ))
        }
    };
    set_in(next, rest, v)
}

/// The parsed file with spans, to turn offsets into lines and field paths into lines.
struct Doc<'a> {
    text: &'a str,
    origin: &'a str,
    root: Spanned<DeTable<'a>>,
}

impl<'a> Doc<'a> {
    fn new(text: &'a str, origin: &'a str) -> Result<Doc<'a>, ScenarioError> {
        match DeTable::parse(text) {
            Ok(root) => Ok(Doc { text, origin, root }),
            Err(e) => {
                let off = e.span().map_or(0, |s| s.start);
                let line = line_of(text, off);
                Err(ScenarioError {
                    origin: origin.to_string(),
                    line: Some(line),
                    field: syntax_field(text, line),
                    reason: format!("TOML syntax error: {}", e.message().trim()),
                })
            }
        }
    }

    fn serde_error(&self, e: &toml::de::Error) -> ScenarioError {
        let msg = e.message().trim().to_string();
        let Some(span) = e.span() else {
            return ScenarioError {
                origin: self.origin.to_string(),
                line: None,
                field: "syntax".into(),
                reason: msg,
            };
        };
        let mut path = String::new();
        let mut best = usize::MAX;
        find_path(self.root.get_ref(), span.start, "", &mut path, &mut best);
        // Errors raised on a whole table name the key in their message: point at it.
        for prefix in ["unknown field `", "missing field `"] {
            if let Some(rest) = msg.strip_prefix(prefix) {
                if let Some(name) = rest.split('`').next() {
                    let table_path = if path.ends_with(&format!(".{name}")) || path == name {
                        path.rsplit_once('.')
                            .map_or(String::new(), |p| p.0.to_string())
                    } else {
                        path.clone()
                    };
                    path = join(&table_path, name);
                }
            }
        }
        let line = self
            .line_of_path(&path)
            .unwrap_or_else(|| line_of(self.text, span.start));
        ScenarioError {
            origin: self.origin.to_string(),
            line: Some(line),
            field: if path.is_empty() {
                "syntax".into()
            } else {
                path
            },
            reason: msg,
        }
    }

    fn config_error(&self, e: ConfigError, set: &[(String, String)]) -> ScenarioError {
        // The last override on this field (or on an enclosing table) wins.
        let hit = set.iter().rev().find(|(p, _)| {
            e.field == *p
                || e.field.starts_with(&format!("{p}."))
                || p.starts_with(&format!("{}.", e.field))
        });
        if let Some((p, v)) = hit {
            return ScenarioError {
                origin: format!("--set {p}={v}"),
                line: None,
                field: e.field,
                reason: e.reason,
            };
        }
        ScenarioError {
            origin: self.origin.to_string(),
            line: self.line_of_path(&e.field),
            field: e.field,
            reason: e.reason,
        }
    }

    /// The line of the deepest key of `path` present in the file.
    fn line_of_path(&self, path: &str) -> Option<usize> {
        let mut cur: &DeValue = &DeValue::Boolean(false);
        let mut table: Option<&DeTable> = Some(self.root.get_ref());
        let mut off = None;
        for part in path.split('.') {
            let next = if let Some(t) = table {
                t.iter().find(|(k, _)| k.get_ref() == part).map(|(k, v)| {
                    off = Some(k.span().start);
                    v
                })
            } else if let DeValue::Array(a) = cur {
                part.parse::<usize>()
                    .ok()
                    .and_then(|i| a.get(i))
                    .inspect(|v| {
                        off = Some(v.span().start);
                    })
            } else {
                None
            };
            let Some(v) = next else { break };
            cur = v.get_ref();
            table = match cur {
                DeValue::Table(t) => Some(t),
                _ => None,
            };
        }
        off.map(|o| line_of(self.text, o))
    }
}

fn join(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else {
        format!("{a}.{b}")
    }
}

/// The most specific key or value whose span holds `off`.
fn find_path(t: &DeTable, off: usize, prefix: &str, out: &mut String, best: &mut usize) {
    for (k, v) in t.iter() {
        let p = join(prefix, k.get_ref());
        for s in [k.span(), v.span()] {
            if s.contains(&off) && s.len() <= *best {
                *best = s.len();
                *out = p.clone();
            }
        }
        find_in_value(v, off, &p, out, best);
    }
}

fn find_in_value(v: &Spanned<DeValue>, off: usize, p: &str, out: &mut String, best: &mut usize) {
    match v.get_ref() {
        DeValue::Table(t) => find_path(t, off, p, out, best),
        DeValue::Array(a) => {
            for (i, e) in a.iter().enumerate() {
                let ep = format!("{p}.{i}");
                if e.span().contains(&off) && e.span().len() <= *best {
                    *best = e.span().len();
                    *out = ep.clone();
                }
                find_in_value(e, off, &ep, out, best);
            }
        }
        _ => {}
    }
}

fn line_of(text: &str, off: usize) -> usize {
    let off = off.min(text.len());
    text.as_bytes()[..off]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// For a syntax error on `line`: the enclosing table header and the key on that line, if any.
fn syntax_field(text: &str, line: usize) -> String {
    let mut table = String::new();
    let mut counts: Vec<(String, usize)> = Vec::new();
    let mut key = String::new();
    for (i, l) in text.lines().enumerate().take(line) {
        let l = l.trim();
        if let Some(h) = l.strip_prefix("[[").and_then(|r| r.split("]]").next()) {
            let h = h.trim().to_string();
            let n = match counts.iter_mut().find(|(k, _)| *k == h) {
                Some((_, c)) => {
                    *c += 1;
                    *c
                }
                None => {
                    counts.push((h.clone(), 0));
                    0
                }
            };
            table = format!("{h}.{n}");
        } else if let Some(h) = l.strip_prefix('[').and_then(|r| r.split(']').next()) {
            table = h.trim().to_string();
        }
        if i + 1 == line {
            if let Some((k, _)) = l.split_once('=') {
                let k = k.trim();
                if !k.is_empty()
                    && k.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
                {
                    key = k.to_string();
                }
            }
        }
    }
    let f = join(&table, &key);
    if f.is_empty() {
        "syntax".into()
    } else {
        f
    }
}

// ---- The file's shape (serde) and its conversion into the simulator's types ----

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    seed: Option<u64>,
    stop_at_ns: Option<u64>,
    verify_data: Option<bool>,
    topology: Option<RawTopology>,
    transport: Option<RawTransport>,
    switch: Option<RawSwitch>,
    #[serde(default)]
    faults: Vec<RawFault>,
    workload: Option<WorkloadSpec>,
    #[serde(default)]
    background: Vec<WorkloadSpec>,
    output: Option<RawOutput>,
}

#[derive(Debug, Default, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTier {
    rate_gbps: f64,
    latency_ns: i64,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTopology {
    kind: Option<String>,
    hosts: Option<u32>,
    leaves: Option<u32>,
    hosts_per_leaf: Option<u32>,
    spines: Option<u32>,
    uplinks_per_spine: Option<u32>,
    planes: Option<u32>,
    host: Option<RawTier>,
    fabric: Option<RawTier>,
    core: Option<RawTier>,
    k: Option<u32>,
    dcs: Option<u32>,
    borders: Option<u32>,
    long_haul_links: Option<u32>,
    long_haul: Option<RawTier>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTransport {
    kind: Option<String>,
    mtu: Option<u32>,
    paths: Option<u8>,
    cc: Option<String>,
    window_log2: Option<u8>,
    rto_min_ns: Option<u64>,
    max_msg_bytes: Option<u32>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEcn {
    kmin_bytes: u64,
    kmax_bytes: u64,
    pmax_percent: u32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPfc {
    xoff_bytes: u64,
    xon_bytes: u64,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSwitch {
    buffer_bytes: Option<u64>,
    trimming: Option<bool>,
    reroute_after_ns: Option<u64>,
    ecn: Option<RawEcn>,
    pfc: Option<RawPfc>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawLinks {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFault {
    kind: String,
    links: Option<RawLinks>,
    ppm: Option<u32>,
    at_ns: Option<u64>,
    rate_gbps: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPcap {
    path: PathBuf,
    #[serde(default)]
    pairs: Vec<(u32, u32)>,
    max_packets: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOutput {
    json: Option<PathBuf>,
    json_flows: Option<bool>,
    csv: Option<PathBuf>,
    svg: Option<PathBuf>,
    pcap: Option<RawPcap>,
}

fn cerr<T>(field: impl Into<String>, reason: impl Into<String>) -> Result<T, ConfigError> {
    Err(ConfigError {
        field: field.into(),
        reason: reason.into(),
    })
}

fn gbps(v: f64, field: &str) -> Result<u64, ConfigError> {
    if v.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) || !v.is_finite() {
        return cerr(field, format!("must be > 0 (got {v})"));
    }
    let bps = (v * 1e9).round();
    if bps >= u64::MAX as f64 {
        return cerr(field, "too large");
    }
    Ok(bps as u64)
}

fn tier(t: &Option<RawTier>, field: &str) -> Result<Tier, ConfigError> {
    let Some(t) = t else {
        return cerr(
            field,
            "missing (e.g. { rate_gbps = 400, latency_ns = 500 })",
        );
    };
    if t.latency_ns < 0 {
        return cerr(
            format!("{field}.latency_ns"),
            format!("a delay cannot be negative (got {})", t.latency_ns),
        );
    }
    Ok(Tier {
        rate_bps: gbps(t.rate_gbps, &format!("{field}.rate_gbps"))?,
        latency_ns: t.latency_ns as u64,
    })
}

fn need<T: Copy>(v: Option<T>, field: &str) -> Result<T, ConfigError> {
    v.ok_or_else(|| ConfigError {
        field: field.into(),
        reason: "missing".into(),
    })
}

fn unused<T>(v: &Option<T>, field: &str, kind: &str) -> Result<(), ConfigError> {
    if v.is_some() {
        return cerr(field, format!("not used by kind \"{kind}\""));
    }
    Ok(())
}

impl RawTopology {
    fn leaf_spine(&self, kind: &str) -> Result<TopologySpec, ConfigError> {
        let leaves = need(self.leaves, "topology.leaves")?;
        let hosts_per_leaf = match (self.hosts, self.hosts_per_leaf) {
            (Some(h), _) => {
                if leaves == 0 || h % leaves != 0 {
                    return cerr(
                        "topology.hosts",
                        format!("must be a multiple of topology.leaves = {leaves}"),
                    );
                }
                h / leaves
            }
            (None, hpl) => need(hpl, "topology.hosts_per_leaf")?,
        };
        unused(&self.k, "topology.k", kind)?;
        unused(&self.core, "topology.core", kind)?;
        Ok(TopologySpec::LeafSpine {
            leaves,
            hosts_per_leaf,
            spines: need(self.spines, "topology.spines")?,
            uplinks_per_spine: self.uplinks_per_spine.unwrap_or(1),
            planes: self.planes.unwrap_or(1),
            host: tier(&self.host, "topology.host")?,
            fabric: tier(&self.fabric, "topology.fabric")?,
        })
    }

    fn convert(&self) -> Result<TopologySpec, ConfigError> {
        let kind = self.kind.as_deref().unwrap_or("leaf-spine");
        let not_multi = |t: &RawTopology| -> Result<(), ConfigError> {
            unused(&t.dcs, "topology.dcs", kind)?;
            unused(&t.borders, "topology.borders", kind)?;
            unused(&t.long_haul_links, "topology.long_haul_links", kind)?;
            unused(&t.long_haul, "topology.long_haul", kind)
        };
        match kind {
            "leaf-spine" => {
                not_multi(self)?;
                self.leaf_spine(kind)
            }
            "fat-tree" => {
                not_multi(self)?;
                for (v, f) in [
                    (self.leaves, "topology.leaves"),
                    (self.hosts_per_leaf, "topology.hosts_per_leaf"),
                    (self.spines, "topology.spines"),
                    (self.uplinks_per_spine, "topology.uplinks_per_spine"),
                ] {
                    unused(&v, f, kind)?;
                }
                let k = match (self.hosts, self.k) {
                    (Some(h), _) => match (2..=64u32).step_by(2).find(|k| k * k * k / 4 == h) {
                        Some(k) => k,
                        None => return cerr("topology.hosts", format!("{h} is not k^3/4 for an even k")),
                    },
                    (None, k) => need(k, "topology.k")?,
                };
                Ok(TopologySpec::FatTree {
                    k,
                    planes: self.planes.unwrap_or(1),
                    host: tier(&self.host, "topology.host")?,
                    fabric: tier(&self.fabric, "topology.fabric")?,
                    core: tier(&self.core, "topology.core")?,
                })
            }
            "multi-dc" => {
                let dcs = need(self.dcs, "topology.dcs")?;
                let mut per_dc = RawTopology {
                    hosts: None,
                    ..Default::default()
                };
                per_dc.leaves = self.leaves;
                per_dc.hosts_per_leaf = self.hosts_per_leaf;
                if let Some(h) = self.hosts {
                    if dcs == 0 || h % dcs != 0 {
                        return cerr("topology.hosts", format!("must be a multiple of topology.dcs = {dcs}"));
                    }
                    per_dc.hosts = Some(h / dcs);
                }
                per_dc.spines = self.spines;
                per_dc.uplinks_per_spine = self.uplinks_per_spine;
                per_dc.planes = self.planes;
                per_dc.host = self.host;
                per_dc.fabric = self.fabric;
                unused(&self.k, "topology.k", kind)?;
                unused(&self.core, "topology.core", kind)?;
                Ok(TopologySpec::MultiDc {
                    dcs,
                    dc: Box::new(per_dc.leaf_spine(kind)?),
                    borders: self.borders.unwrap_or(1),
                    long_haul_links: self.long_haul_links.unwrap_or(1),
                    long_haul: tier(&self.long_haul, "topology.long_haul")?,
                })
            }
            other => cerr(
                "topology.kind",
                format!("unknown kind \"{other}\" (expected \"leaf-spine\", \"fat-tree\" or \"multi-dc\")"),
            ),
        }
    }
}

impl RawScenario {
    #[allow(clippy::type_complexity)]
    fn convert(
        self,
    ) -> Result<(SimConfig, WorkloadSpec, Vec<WorkloadSpec>, OutputSpec), ConfigError> {
        let Some(topology) = &self.topology else {
            return cerr("topology", "missing: a [topology] table is required");
        };
        let topology = topology.convert()?;
        let t = self.transport.unwrap_or_default();
        let kind = match t.kind.as_deref().unwrap_or("metaroce") {
            "metaroce" => Transport::MetaRoce,
            "rocev2" => Transport::RoceV2,
            other => {
                return cerr(
                    "transport.kind",
                    format!("unknown transport \"{other}\" (expected \"metaroce\" or \"rocev2\")"),
                )
            }
        };
        let cc = match t.cc.as_deref() {
            None => None,
            Some("nscc") => Some(CcKind::Nscc),
            Some("dcqcn") => Some(CcKind::Dcqcn),
            Some("fixed") => Some(CcKind::None),
            Some(other) => {
                return cerr(
                    "transport.cc",
                    format!("unknown congestion control \"{other}\" (expected \"nscc\", \"dcqcn\" or \"fixed\")"),
                )
            }
        };
        let td = TransportSpec::new(kind);
        let transport = TransportSpec {
            kind,
            mtu: t.mtu.unwrap_or(td.mtu),
            paths: t.paths,
            cc,
            window_log2: t.window_log2,
            rto_min_ns: t.rto_min_ns,
            max_msg_bytes: t.max_msg_bytes.unwrap_or(td.max_msg_bytes),
        };
        let s = self.switch.unwrap_or_default();
        let sd = SwitchConfig::default();
        let switch = SwitchConfig {
            buffer_bytes: s.buffer_bytes.unwrap_or(sd.buffer_bytes),
            ecn: s.ecn.map(|e| EcnConfig {
                kmin_bytes: e.kmin_bytes,
                kmax_bytes: e.kmax_bytes,
                pmax_percent: e.pmax_percent,
            }),
            trimming: s.trimming.unwrap_or(sd.trimming),
            pfc: s.pfc.map(|p| PfcConfig {
                xoff_bytes: p.xoff_bytes,
                xon_bytes: p.xon_bytes,
            }),
            reroute_after_ns: s.reroute_after_ns,
        };
        let mut faults = Vec::new();
        for (i, f) in self.faults.iter().enumerate() {
            faults.push(convert_fault(f, &format!("faults.{i}"))?);
        }
        let out = self.output.unwrap_or_default();
        let pcap = out.pcap.map(|p| PcapSpec {
            path: p.path,
            pairs: p.pairs,
            max_packets: p.max_packets.unwrap_or(10_000),
        });
        let sim = SimConfig {
            topology,
            transport,
            switch,
            faults,
            seed: self.seed.unwrap_or(1),
            stop_at_ns: self.stop_at_ns,
            verify_data: self.verify_data.unwrap_or(false),
            pcap,
        };
        let Some(workload) = self.workload else {
            return cerr("workload", "missing: a [workload] table is required");
        };
        let output = OutputSpec {
            json: out.json,
            json_flows: out.json_flows.unwrap_or(false),
            csv: out.csv,
            svg: out.svg,
        };
        Ok((sim, workload, self.background, output))
    }
}

fn convert_fault(f: &RawFault, field: &str) -> Result<Fault, ConfigError> {
    let links = match &f.links {
        None if f.kind == "loss" => LinkSel::All,
        None => {
            return cerr(
                format!("{field}.links"),
                "missing (\"all\", \"fabric\" or a list of link names)",
            )
        }
        Some(RawLinks::One(s)) if s == "all" => LinkSel::All,
        Some(RawLinks::One(s)) if s == "fabric" => LinkSel::Fabric,
        Some(RawLinks::One(s)) => LinkSel::Named(vec![s.clone()]),
        Some(RawLinks::Many(v)) => LinkSel::Named(v.clone()),
    };
    let kind = f.kind.as_str();
    let at = |f: &RawFault| need(f.at_ns, &format!("{field}.at_ns"));
    let fault = match kind {
        "loss" => {
            unused(&f.at_ns, &format!("{field}.at_ns"), kind)?;
            unused(&f.rate_gbps, &format!("{field}.rate_gbps"), kind)?;
            Fault::Loss {
                links,
                ppm: need(f.ppm, &format!("{field}.ppm"))?,
            }
        }
        "down" | "up" => {
            unused(&f.ppm, &format!("{field}.ppm"), kind)?;
            unused(&f.rate_gbps, &format!("{field}.rate_gbps"), kind)?;
            let at_ns = at(f)?;
            if kind == "down" {
                Fault::Down { links, at_ns }
            } else {
                Fault::Up { links, at_ns }
            }
        }
        "degrade" => {
            unused(&f.ppm, &format!("{field}.ppm"), kind)?;
            Fault::Degrade {
                links,
                at_ns: at(f)?,
                rate_bps: gbps(
                    need(f.rate_gbps, &format!("{field}.rate_gbps"))?,
                    &format!("{field}.rate_gbps"),
                )?,
            }
        }
        other => {
            return cerr(
                format!("{field}.kind"),
                format!(
                "unknown fault \"{other}\" (expected \"loss\", \"down\", \"up\" or \"degrade\")"
            ),
            )
        }
    };
    Ok(fault)
}
