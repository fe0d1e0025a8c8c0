//! SVG plots written by hand: line plots (FCT CDFs, sweeps) and bar charts (per-link load).

use crate::metrics::class_name;
use crate::results::{LinkTier, RunResults};
use std::fmt::Write as _;

const W: f64 = 860.0;
const H: f64 = 460.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 250.0;
const TOP: f64 = 44.0;
const BOTTOM: f64 = 64.0;
const COLORS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// Escapes text for SVG.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One named line of a plot.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// `(x, y)` points, drawn in order.
    pub points: Vec<(f64, f64)>,
}

/// About five round tick values covering `lo..=hi`.
pub fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    if hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater)
        || !lo.is_finite()
        || !hi.is_finite()
    {
        return vec![lo];
    }
    let raw = (hi - lo) / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + step * 1e-9 && out.len() < 50 {
        out.push(if t.abs() < step * 1e-9 { 0.0 } else { t });
        t += step;
    }
    out
}

fn fmt_num(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if !(1e-3..1e6).contains(&a) {
        format!("{v:.2e}")
    } else if a >= 100.0 || (v.fract() == 0.0) {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.2}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    } else {
        format!("{v:.3}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

fn header(s: &mut String, title: &str) {
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="24" text-anchor="middle" font-size="15">{}</text>"#,
        (LEFT + W - RIGHT) / 2.0,
        escape(title)
    );
}

/// A line plot of `series` (x on a log10 scale if `log_x`; non-positive x are then left out).
pub fn line_plot(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    log_x: bool,
) -> String {
    let tx = |x: f64| if log_x { x.log10() } else { x };
    let pts = || {
        series
            .iter()
            .flat_map(|s| s.points.iter())
            .filter(|p| p.0.is_finite() && p.1.is_finite() && (!log_x || p.0 > 0.0))
    };
    let (mut x0, mut x1, mut y0, mut y1) =
        (f64::INFINITY, f64::NEG_INFINITY, 0.0f64, f64::NEG_INFINITY);
    for &(x, y) in pts() {
        x0 = x0.min(tx(x));
        x1 = x1.max(tx(x));
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if !x0.is_finite() {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    if y1 <= y0 {
        y1 = y0 + 1.0;
    }
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let sx = |x: f64| LEFT + (tx(x) - x0) / (x1 - x0) * pw;
    let sy = |y: f64| TOP + ph - (y - y0) / (y1 - y0) * ph;
    let mut s = String::new();
    header(&mut s, title);
    // Axes, grid and ticks.
    let _ = writeln!(s, r##"<g stroke="#999" stroke-width="1">"##);
    let _ = writeln!(
        s,
        r#"<line x1="{LEFT}" y1="{}" x2="{}" y2="{}"/>"#,
        TOP + ph,
        LEFT + pw,
        TOP + ph
    );
    let _ = writeln!(
        s,
        r#"<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{}"/>"#,
        TOP + ph
    );
    let _ = writeln!(s, "</g>");
    let xt: Vec<f64> = if log_x {
        (x0.floor() as i32..=x1.ceil() as i32)
            .map(|e| 10f64.powi(e))
            .filter(|v| v.log10() >= x0 - 1e-9 && v.log10() <= x1 + 1e-9)
            .collect()
    } else {
        ticks(x0, x1)
    };
    for t in xt {
        let x = sx(t);
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{:.1}" stroke="#eee"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            TOP + ph,
            TOP + ph + 16.0,
            fmt_num(t)
        );
    }
    for t in ticks(y0, y1) {
        let y = sy(t);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#eee"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            LEFT + pw,
            LEFT - 6.0,
            y + 4.0,
            fmt_num(t)
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        LEFT + pw / 2.0,
        H - 20.0,
        escape(x_label)
    );
    let _ = writeln!(
        s,
        r#"<text x="18" y="{:.1}" text-anchor="middle" transform="rotate(-90 18 {:.1})">{}</text>"#,
        TOP + ph / 2.0,
        TOP + ph / 2.0,
        escape(y_label)
    );
    for (i, ser) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let path: Vec<String> = ser
            .points
            .iter()
            .filter(|p| p.0.is_finite() && p.1.is_finite() && (!log_x || p.0 > 0.0))
            .map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y)))
            .collect();
        if !path.is_empty() {
            let _ = writeln!(
                s,
                r#"<polyline fill="none" stroke="{color}" stroke-width="2" points="{}"/>"#,
                path.join(" ")
            );
            if ser.points.len() <= 40 {
                for p in &path {
                    if let Some((x, y)) = p.split_once(',') {
                        let _ = writeln!(s, r#"<circle cx="{x}" cy="{y}" r="3" fill="{color}"/>"#);
                    }
                }
            }
        }
        let ly = TOP + 10.0 + 18.0 * i as f64;
        let lx = W - RIGHT + 14.0;
        let _ = writeln!(
            s,
            r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{color}" stroke-width="3"/><text x="{}" y="{}">{}</text>"#,
            lx + 20.0,
            lx + 26.0,
            ly + 4.0,
            escape(&legend(&ser.name))
        );
    }
    s.push_str("</svg>\n");
    s
}

/// A legend entry, shortened to fit the legend column.
fn legend(name: &str) -> String {
    if name.chars().count() <= 34 {
        name.to_string()
    } else {
        let tail: String = name
            .chars()
            .rev()
            .take(33)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        format!("…{tail}")
    }
}

/// CDF of flow completion times per class (x: FCT in µs, log scale when the range exceeds 100x).
pub fn fct_cdf(r: &RunResults) -> String {
    let mut series = Vec::new();
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for class in [
        crate::flow::FlowClass::Collective,
        crate::flow::FlowClass::Latency,
        crate::flow::FlowClass::Background,
    ] {
        let mut t: Vec<u64> = r
            .flows
            .iter()
            .filter(|f| f.spec.class == class)
            .filter_map(|f| f.fct_ns())
            .collect();
        if t.is_empty() {
            continue;
        }
        t.sort_unstable();
        let n = t.len();
        let step = n.div_ceil(600).max(1);
        let mut points: Vec<(f64, f64)> = (0..n)
            .step_by(step)
            .map(|i| (t[i] as f64 / 1e3, (i + 1) as f64 / n as f64))
            .collect();
        points.push((t[n - 1] as f64 / 1e3, 1.0));
        lo = lo.min(t[0] as f64 / 1e3);
        hi = hi.max(t[n - 1] as f64 / 1e3);
        series.push(Series {
            name: format!("{} ({n})", class_name(class)),
            points,
        });
    }
    let log_x = lo > 0.0 && hi / lo > 100.0;
    line_plot(
        &format!("FCT CDF: {}", r.workload),
        if log_x {
            "FCT (us, log scale)"
        } else {
            "FCT (us)"
        },
        "fraction of flows",
        &series,
        log_x,
    )
}

/// Bars of the bytes sent on each switch-side link direction (host links left out; at most 512 bars).
pub fn link_bars(r: &RunResults) -> String {
    let links: Vec<_> = r
        .links
        .iter()
        .filter(|l| l.tier != LinkTier::Host)
        .collect();
    let shown = &links[..links.len().min(512)];
    let max = shown.iter().map(|l| l.tx_bytes).max().unwrap_or(0).max(1) as f64 / 1e6;
    let (pw, ph) = (W - LEFT - 20.0, H - TOP - BOTTOM);
    let mut s = String::new();
    let title = if shown.len() < links.len() {
        format!("Bytes per link ({} of {} links)", shown.len(), links.len())
    } else {
        format!("Bytes per link ({} links)", links.len())
    };
    header(&mut s, &title);
    for t in ticks(0.0, max) {
        let y = TOP + ph - t / max * ph;
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#eee"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            LEFT + pw,
            LEFT - 6.0,
            y + 4.0,
            fmt_num(t)
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="18" y="{:.1}" text-anchor="middle" transform="rotate(-90 18 {:.1})">MB sent</text>"#,
        TOP + ph / 2.0,
        TOP + ph / 2.0
    );
    let _ = writeln!(
        s,
        r##"<line x1="{LEFT}" y1="{0:.1}" x2="{1:.1}" y2="{0:.1}" stroke="#999"/><line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{0:.1}" stroke="#999"/>"##,
        TOP + ph,
        LEFT + pw
    );
    if shown.len() > 48 {
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">link directions in report order (hover a bar for its name)</text>"#,
            LEFT + pw / 2.0,
            H - 20.0
        );
    }
    let bw = if shown.is_empty() {
        0.0
    } else {
        pw / shown.len() as f64
    };
    for (i, l) in shown.iter().enumerate() {
        let v = l.tx_bytes as f64 / 1e6;
        let h = v / max * ph;
        let x = LEFT + i as f64 * bw;
        let color = match l.tier {
            LinkTier::Fabric => COLORS[0],
            LinkTier::Core => COLORS[2],
            LinkTier::Border => COLORS[3],
            LinkTier::LongHaul => COLORS[1],
            LinkTier::Host => COLORS[5],
        };
        let _ = writeln!(
            s,
            r#"<rect x="{x:.2}" y="{:.2}" width="{:.2}" height="{h:.2}" fill="{color}"><title>{}: {} B</title></rect>"#,
            TOP + ph - h,
            (bw * 0.85).max(0.5),
            escape(&l.name),
            l.tx_bytes
        );
        if shown.len() <= 48 {
            let cx = x + bw / 2.0;
            let cy = TOP + ph + 8.0;
            let _ = writeln!(
                s,
                r#"<text x="{cx:.1}" y="{cy:.1}" font-size="9" text-anchor="end" transform="rotate(-60 {cx:.1} {cy:.1})">{}</text>"#,
                escape(&l.name)
            );
        }
    }
    s.push_str("</svg>\n");
    s
}
