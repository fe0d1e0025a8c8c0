//! Parameter sweeps: one scenario run over a grid of overrides, one CSV row per run and a line plot of a chosen
//! metric against a chosen parameter, one line per value of another.

use crate::metrics::Summary;
use crate::output::csv::{field, value_field};
use crate::output::svg::{line_plot, Series};
use crate::scenario::{parse_with, ScenarioError};

/// One swept parameter: a dotted scenario path and its values (`transport.kind=metaroce,rocev2`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SweepParam {
    /// Dotted path, as in scenario errors and `--set`.
    pub path: String,
    /// Values, TOML or bare strings.
    pub values: Vec<String>,
}

/// Splits at top-level commas (not inside brackets, braces or quotes).
fn split_values(s: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth, mut quote) = (Vec::new(), String::new(), 0i32, None::<char>);
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '{') => depth += 1,
            (None, ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                out.push(std::mem::take(&mut cur).trim().to_string());
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur.trim().to_string());
    out
}

/// Parses `path=v1,v2,...` (commas inside `[...]`, `{...}` or quotes do not split).
pub fn parse_set(arg: &str) -> Result<SweepParam, String> {
    let (path, values) = arg
        .split_once('=')
        .ok_or_else(|| format!("`{arg}`: expected PATH=VALUE[,VALUE...]"))?;
    let path = path.trim().to_string();
    if path.is_empty() {
        return Err(format!("`{arg}`: empty path"));
    }
    let values = split_values(values);
    if values.iter().any(|v| v.is_empty()) {
        return Err(format!("`{arg}`: empty value"));
    }
    Ok(SweepParam { path, values })
}

/// Every combination of the parameters' values (the first parameter varies slowest).
pub fn grid(params: &[SweepParam]) -> Vec<Vec<(String, String)>> {
    let mut out = vec![Vec::new()];
    for p in params {
        let mut next = Vec::new();
        for combo in &out {
            for v in &p.values {
                let mut c = combo.clone();
                c.push((p.path.clone(), v.clone()));
                next.push(c);
            }
        }
        out = next;
    }
    out
}

/// One finished run of a sweep.
#[derive(Debug, Clone)]
pub struct SweepRun {
    /// The overrides of this grid point.
    pub overrides: Vec<(String, String)>,
    /// Its figures.
    pub summary: Summary,
}

/// Checks every grid point of `text` (from `origin`) before anything runs, then runs them in order, calling
/// `on_run(index, count, run)` after each.
pub fn run(
    text: &str,
    origin: &str,
    params: &[SweepParam],
    progress: &mut dyn FnMut(&crate::fabric::Progress),
    on_run: &mut dyn FnMut(usize, usize, &SweepRun),
) -> Result<Vec<SweepRun>, ScenarioError> {
    let points = grid(params);
    let mut scenarios = Vec::new();
    for o in &points {
        scenarios.push(parse_with(text, origin, o)?);
    }
    let mut runs = Vec::new();
    for (i, (sc, o)) in scenarios.iter().zip(&points).enumerate() {
        let (_, summary) = sc.run(progress).map_err(|e| ScenarioError {
            origin: origin.to_string(),
            line: None,
            field: e.field,
            reason: e.reason,
        })?;
        let r = SweepRun {
            overrides: o.clone(),
            summary,
        };
        on_run(i, points.len(), &r);
        runs.push(r);
    }
    Ok(runs)
}

/// One row per run: the swept parameters, then every [`Summary::flatten`] figure.
pub fn csv(runs: &[SweepRun]) -> String {
    let Some(first) = runs.first() else {
        return String::new();
    };
    let mut head: Vec<String> = first.overrides.iter().map(|(p, _)| field(p)).collect();
    head.extend(first.summary.flatten().into_iter().map(|(k, _)| field(&k)));
    let mut out = head.join(",") + "\n";
    for r in runs {
        let mut row: Vec<String> = r.overrides.iter().map(|(_, v)| field(v)).collect();
        row.extend(r.summary.flatten().iter().map(|(_, v)| value_field(v)));
        out += &(row.join(",") + "\n");
    }
    out
}

/// An SVG line plot of `metric` (a [`Summary::flatten`] name) against the swept parameter `x`, one line per
/// value of `group` (if any). Non-numeric `x` values are placed at their position in the sweep (0, 1, ...).
pub fn plot(
    runs: &[SweepRun],
    metric: &str,
    x: &str,
    group: Option<&str>,
) -> Result<String, String> {
    let value_of = |r: &SweepRun, p: &str| {
        r.overrides
            .iter()
            .find(|(k, _)| k == p)
            .map(|(_, v)| v.clone())
    };
    let mut xs: Vec<String> = Vec::new();
    for r in runs {
        let v = value_of(r, x).ok_or_else(|| format!("--x {x}: not a swept parameter"))?;
        if !xs.contains(&v) {
            xs.push(v);
        }
    }
    let numeric = xs.iter().all(|v| v.parse::<f64>().is_ok());
    let mut series: Vec<Series> = Vec::new();
    for r in runs {
        let name = match group {
            Some(g) => {
                let v =
                    value_of(r, g).ok_or_else(|| format!("--group {g}: not a swept parameter"))?;
                format!("{g}={v}")
            }
            None => metric.to_string(),
        };
        let xv = value_of(r, x).unwrap_or_default();
        let xf = if numeric {
            xv.parse::<f64>().unwrap_or(0.0)
        } else {
            xs.iter().position(|v| *v == xv).unwrap_or(0) as f64
        };
        let y = r
            .summary
            .metric(metric)
            .ok_or_else(|| format!("--plot {metric}: not a numeric summary figure"))?;
        match series.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push((xf, y)),
            None => series.push(Series {
                name,
                points: vec![(xf, y)],
            }),
        }
    }
    for s in &mut series {
        s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    let x_label = if numeric {
        x.to_string()
    } else {
        format!(
            "{x} ({})",
            xs.iter()
                .enumerate()
                .map(|(i, v)| format!("{i}={v}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    Ok(line_plot(
        &format!("{metric} vs {x}"),
        &x_label,
        metric,
        &series,
        false,
    ))
}
