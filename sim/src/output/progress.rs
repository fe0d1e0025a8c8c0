//! A one-line progress display on stderr for long runs.

use crate::fabric::Progress;
use std::io::{IsTerminal, Write};
use std::time::Instant;

/// When to draw the progress line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressMode {
    /// Only when stderr is a terminal.
    Auto,
    /// Always (e.g. into a log).
    Always,
    /// Never.
    Never,
}

/// Draws `[#####.....] sim 1.234 ms | flows 120/128 done | 4.1 M events (2.0 M/s)` on stderr, rewriting one
/// line; the bar shows flows done over flows started, or simulated time over `stop_at_ns` when given.
pub struct ProgressBar {
    enabled: bool,
    start: Instant,
    stop_at_ns: Option<u64>,
    drew: bool,
}

impl ProgressBar {
    /// A progress line in `mode`; `stop_at_ns` (if any) scales the bar.
    pub fn new(mode: ProgressMode, stop_at_ns: Option<u64>) -> ProgressBar {
        let enabled = match mode {
            ProgressMode::Auto => std::io::stderr().is_terminal(),
            ProgressMode::Always => true,
            ProgressMode::Never => false,
        };
        ProgressBar {
            enabled,
            start: Instant::now(),
            stop_at_ns,
            drew: false,
        }
    }

    /// The line for `p` (without drawing it).
    pub fn line(&self, p: &Progress) -> String {
        let frac = match self.stop_at_ns {
            Some(stop) if stop > 0 => p.now_ns as f64 / stop as f64,
            _ if p.flows_started > 0 => p.flows_done as f64 / p.flows_started as f64,
            _ => 0.0,
        }
        .clamp(0.0, 1.0);
        let filled = (frac * 20.0).round() as usize;
        let wall = self.start.elapsed().as_secs_f64();
        let rate = if wall > 0.0 {
            p.events as f64 / wall
        } else {
            0.0
        };
        format!(
            "[{}{}] sim {} | flows {}/{} done | {} events ({}) | {:.1} s",
            "#".repeat(filled),
            ".".repeat(20 - filled),
            super::table::fmt_ns(p.now_ns),
            p.flows_done,
            p.flows_started,
            p.events,
            super::table::fmt_rate(rate),
            wall
        )
    }

    /// Redraws the line for `p`.
    pub fn update(&mut self, p: &Progress) {
        if !self.enabled {
            return;
        }
        let mut e = std::io::stderr().lock();
        let _ = write!(e, "\r{}\x1b[K", self.line(p));
        let _ = e.flush();
        self.drew = true;
    }

    /// Ends the line (call once after the run).
    pub fn finish(&mut self) {
        if self.enabled && self.drew {
            let _ = writeln!(std::io::stderr());
            self.drew = false;
        }
    }
}
