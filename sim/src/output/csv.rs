//! CSV output: flows, the summary (one header row, one value row) and links.

use crate::metrics::{class_name, tier_name, Summary};
use crate::results::RunResults;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Quotes a field if it holds a comma, quote or line break (RFC 4180).
pub fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A JSON scalar as a CSV field (strings unquoted unless needed, null empty).
pub fn value_field(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => field(s),
        other => field(&other.to_string()),
    }
}

/// Every flow: `id,src,dst,bytes,class,tag,start_ns,end_ns,fct_ns` (end and FCT empty if unfinished).
pub fn flows(r: &RunResults) -> String {
    let mut s = String::from("id,src,dst,bytes,class,tag,start_ns,end_ns,fct_ns\n");
    for f in &r.flows {
        let opt = |x: Option<u64>| x.map_or(String::new(), |v| v.to_string());
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{}",
            f.id,
            f.spec.src,
            f.spec.dst,
            f.spec.bytes,
            class_name(f.spec.class),
            f.spec.tag,
            f.start_ns,
            opt(f.end_ns),
            opt(f.fct_ns())
        );
    }
    s
}

/// The summary: a header row of [`Summary::flatten`] names and one row of values.
pub fn summary(sum: &Summary) -> String {
    let flat = sum.flatten();
    let names: Vec<String> = flat.iter().map(|(k, _)| field(k)).collect();
    let values: Vec<String> = flat.iter().map(|(_, v)| value_field(v)).collect();
    format!("{}\n{}\n", names.join(","), values.join(","))
}

/// Every link direction and its counters.
pub fn links(r: &RunResults) -> String {
    let mut s = String::from(
        "name,tier,plane,tx_packets,tx_bytes,peak_queue_bytes,drops_overflow,drops_loss,drops_down,ecn_marked,trimmed,paused_ns,pauses_sent\n",
    );
    for l in &r.links {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{}",
            field(&l.name),
            tier_name(l.tier),
            l.plane,
            l.tx_packets,
            l.tx_bytes,
            l.peak_queue_bytes,
            l.drops_overflow,
            l.drops_loss,
            l.drops_down,
            l.ecn_marked,
            l.trimmed,
            l.paused_ns,
            l.pauses_sent
        );
    }
    s
}

/// Writes `<prefix>.flows.csv`, `<prefix>.summary.csv` and `<prefix>.links.csv`; returns their paths.
pub fn write_all(prefix: &Path, r: &RunResults, sum: &Summary) -> std::io::Result<Vec<PathBuf>> {
    let files = [
        (".flows.csv", flows(r)),
        (".summary.csv", summary(sum)),
        (".links.csv", links(r)),
    ];
    let mut out = Vec::new();
    for (suffix, text) in files {
        let p = super::with_suffix(prefix, suffix);
        super::ensure_parent(&p)?;
        std::fs::write(&p, text)?;
        out.push(p);
    }
    Ok(out)
}
