//! The evaluation of `docs/evaluation.md`: each experiment is a scenario file in `sim/scenarios/eval/` plus the
//! runs made of it (overrides of that file) and the table, CSV and plot built from their results.
//! `metaroce eval` runs them and rewrites, in the evaluation document, the block between
//! `<!-- eval:<id>:begin -->` and `<!-- eval:<id>:end -->` of each experiment it ran, so every figure in the
//! document comes from one command.
//!
//! [`Scale::Quick`] runs every experiment at a size that takes seconds (the test suite uses it to keep each
//! experiment runnable); the figures of the document come from [`Scale::Full`].

mod experiments;

pub use experiments::EXPERIMENTS;

use crate::fabric::Progress;
use crate::metrics::Summary;
use crate::results::RunResults;
use crate::scenario::{parse_with, Scenario};
use std::path::{Path, PathBuf};

/// How big the runs are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// The sizes of the evaluation document.
    Full,
    /// Small sizes that run in seconds, for tests.
    Quick,
}

/// One run of an experiment: a label and the overrides applied to the experiment's scenario file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunSpec {
    /// Short label for tables.
    pub label: String,
    /// `(dotted.path, value)` overrides, as `metaroce run --set` takes them.
    pub overrides: Vec<(String, String)>,
}

impl RunSpec {
    /// A run labelled `label` with `overrides` given as `path=value` strings.
    pub fn new(label: impl Into<String>, overrides: &[&str]) -> RunSpec {
        RunSpec {
            label: label.into(),
            overrides: overrides
                .iter()
                .filter_map(|o| o.split_once('='))
                .map(|(p, v)| (p.to_string(), v.to_string()))
                .collect(),
        }
    }

    /// The value this run sets for `path`, if any.
    pub fn get(&self, path: &str) -> Option<&str> {
        self.overrides
            .iter()
            .rev()
            .find(|(p, _)| p == path)
            .map(|(_, v)| v.as_str())
    }
}

/// A finished run.
#[derive(Debug, Clone)]
pub struct RunOut {
    /// What was run.
    pub spec: RunSpec,
    /// The scenario after overrides.
    pub scenario: Scenario,
    /// Raw results.
    pub results: RunResults,
    /// Figures.
    pub summary: Summary,
}

/// What an experiment reports.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    /// Markdown: the results table and the goal verdicts.
    pub markdown: String,
    /// CSV, one row per run.
    pub csv: String,
    /// An SVG plot, if the experiment has one.
    pub svg: Option<String>,
}

/// One experiment.
pub struct Experiment {
    /// Identifier (`loss-sweep`), used on the command line and in the document markers.
    pub id: &'static str,
    /// Its number in the evaluation document.
    pub number: u32,
    /// Title.
    pub title: &'static str,
    /// Scenario file name in `sim/scenarios/eval/`.
    pub file: &'static str,
    /// The runs at a scale.
    pub runs: fn(Scale) -> Vec<RunSpec>,
    /// The report of the finished runs.
    pub report: fn(&[RunOut]) -> Report,
}

impl core::fmt::Debug for Experiment {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Experiment").field("id", &self.id).finish()
    }
}

/// Finds an experiment by id or number.
pub fn find(name: &str) -> Option<&'static Experiment> {
    EXPERIMENTS
        .iter()
        .find(|e| e.id == name || e.number.to_string() == name)
}

/// Runs every run of `exp` at `scale`, reading its scenario from `scenario_dir`; `on_run(i, n, label)` is called
/// before each run and `progress` during it.
pub fn run(
    exp: &Experiment,
    scenario_dir: &Path,
    scale: Scale,
    on_run: &mut dyn FnMut(usize, usize, &str),
    progress: &mut dyn FnMut(&Progress),
) -> Result<Vec<RunOut>, String> {
    let path = scenario_dir.join(exp.file);
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{origin}: cannot read: {e}"))?;
    let specs = (exp.runs)(scale);
    // Check every run before the first one starts.
    let mut scenarios = Vec::with_capacity(specs.len());
    for s in &specs {
        scenarios.push(parse_with(&text, &origin, &s.overrides).map_err(|e| e.to_string())?);
    }
    let n = specs.len();
    let mut out = Vec::with_capacity(n);
    for (i, (spec, scenario)) in specs.into_iter().zip(scenarios).enumerate() {
        on_run(i, n, &spec.label);
        let (results, summary) = scenario
            .run(progress)
            .map_err(|e| format!("{origin} ({}): {e}", spec.label))?;
        out.push(RunOut {
            spec,
            scenario,
            results,
            summary,
        });
    }
    Ok(out)
}

/// Writes `<out_dir>/<id>.csv` and `<out_dir>/<id>.svg` (if any); returns the paths written.
pub fn write_files(
    exp: &Experiment,
    report: &Report,
    out_dir: &Path,
) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(out_dir)?;
    let mut written = Vec::new();
    let csv = out_dir.join(format!("{}.csv", exp.id));
    std::fs::write(&csv, &report.csv)?;
    written.push(csv);
    if let Some(svg) = &report.svg {
        let p = out_dir.join(format!("{}.svg", exp.id));
        std::fs::write(&p, svg)?;
        written.push(p);
    }
    Ok(written)
}

/// Replaces the block between the experiment's markers in `doc` by `body`; an error if the markers are
/// missing or out of order.
pub fn splice(doc: &str, id: &str, body: &str) -> Result<String, String> {
    let begin = format!("<!-- eval:{id}:begin -->");
    let end = format!("<!-- eval:{id}:end -->");
    let b = doc
        .find(&begin)
        .ok_or_else(|| format!("marker `{begin}` not found"))?;
    let e = doc[b..]
        .find(&end)
        .map(|i| b + i)
        .ok_or_else(|| format!("marker `{end}` not found after `{begin}`"))?;
    let mut out = String::with_capacity(doc.len() + body.len());
    out.push_str(&doc[..b + begin.len()]);
    out.push('\n');
    out.push_str(body.trim_end());
    out.push('\n');
    out.push_str(&doc[e..]);
    Ok(out)
}

/// A Markdown table.
pub fn table(head: &[&str], rows: &[Vec<String>]) -> String {
    let mut s = format!("| {} |\n", head.join(" | "));
    s += &format!("|{}\n", "---|".repeat(head.len()));
    for r in rows {
        s += &format!("| {} |\n", r.join(" | "));
    }
    s
}

/// CSV of `head` and `rows` (fields quoted when needed).
pub fn csv(head: &[&str], rows: &[Vec<String>]) -> String {
    let f = |s: &str| crate::output::csv::field(s);
    let mut out = head.iter().map(|h| f(h)).collect::<Vec<_>>().join(",") + "\n";
    for r in rows {
        out += &(r.iter().map(|c| f(c)).collect::<Vec<_>>().join(",") + "\n");
    }
    out
}

/// `met` / `NOT met` for a goal.
pub fn verdict(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "NOT met"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_replaces_only_the_block() {
        let doc = "a\n<!-- eval:x:begin -->\nold\n<!-- eval:x:end -->\nb\n";
        let out = splice(doc, "x", "new\n").unwrap();
        assert_eq!(
            out,
            "a\n<!-- eval:x:begin -->\nnew\n<!-- eval:x:end -->\nb\n"
        );
        assert!(splice(doc, "y", "new").is_err());
        assert!(splice("<!-- eval:x:end --><!-- eval:x:begin -->", "x", "n").is_err());
    }

    #[test]
    fn every_experiment_is_found_by_id_and_number() {
        for (i, e) in EXPERIMENTS.iter().enumerate() {
            assert_eq!(e.number as usize, i + 1);
            assert_eq!(find(e.id).map(|f| f.id), Some(e.id));
            assert_eq!(find(&e.number.to_string()).map(|f| f.id), Some(e.id));
        }
        assert!(find("nope").is_none());
    }
}
