//! Writing a run's figures: a terminal [`table`], [`json`], [`csv`] files, hand-written [`svg`] plots and a
//! [`progress`] bar.

pub mod csv;
pub mod json;
pub mod progress;
pub mod svg;
pub mod table;

use crate::metrics::Summary;
use crate::results::RunResults;
use crate::scenario::OutputSpec;
use std::path::{Path, PathBuf};

/// `<prefix><suffix>` as a path (`out/run` + `.flows.csv`).
pub fn with_suffix(prefix: &Path, suffix: &str) -> PathBuf {
    let mut s = prefix.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Creates the parent directory of `path` if needed.
pub fn ensure_parent(path: &Path) -> std::io::Result<()> {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => std::fs::create_dir_all(p),
        _ => Ok(()),
    }
}

/// Writes every file `out` asks for; returns the paths written.
pub fn write_all(out: &OutputSpec, r: &RunResults, s: &Summary) -> std::io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    if let Some(p) = &out.json {
        json::write(p, s, if out.json_flows { Some(r) } else { None })?;
        written.push(p.clone());
    }
    if let Some(prefix) = &out.csv {
        written.extend(csv::write_all(prefix, r, s)?);
    }
    if let Some(prefix) = &out.svg {
        let fct = with_suffix(prefix, ".fct.svg");
        ensure_parent(&fct)?;
        std::fs::write(&fct, svg::fct_cdf(r))?;
        let links = with_suffix(prefix, ".links.svg");
        std::fs::write(&links, svg::link_bars(r))?;
        written.push(fct);
        written.push(links);
    }
    Ok(written)
}
