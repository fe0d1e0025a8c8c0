//! The terminal table of a run's summary.

use crate::metrics::Summary;
use std::fmt::Write as _;

/// A duration in ns as text (`850 ns`, `12.3 us`, `4.56 ms`, `1.234 s`).
pub fn fmt_ns(ns: u64) -> String {
    let v = ns as f64;
    if ns < 1_000 {
        format!("{ns} ns")
    } else if ns < 1_000_000 {
        format!("{:.2} us", v / 1e3)
    } else if ns < 1_000_000_000 {
        format!("{:.3} ms", v / 1e6)
    } else {
        format!("{:.3} s", v / 1e9)
    }
}

/// A byte count as text (`512 B`, `64.0 KiB`, `1.50 MiB`, `2.00 GiB`).
pub fn fmt_bytes(b: u64) -> String {
    let v = b as f64;
    if b < 1024 {
        format!("{b} B")
    } else if b < 1 << 20 {
        format!("{:.1} KiB", v / 1024.0)
    } else if b < 1 << 30 {
        format!("{:.2} MiB", v / (1u64 << 20) as f64)
    } else {
        format!("{:.2} GiB", v / (1u64 << 30) as f64)
    }
}

/// A rate as text with an SI prefix (`4.21 M/s`).
pub fn fmt_rate(x: f64) -> String {
    if x >= 1e9 {
        format!("{:.2} G/s", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.2} M/s", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.2} k/s", x / 1e3)
    } else {
        format!("{x:.0} /s")
    }
}

/// Renders `s` as an aligned two-column table with an FCT sub-table.
pub fn render(s: &Summary) -> String {
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut row = |k: &str, v: String| rows.push((k.to_string(), v));
    row("workload", s.workload.clone());
    row("hosts", s.hosts.to_string());
    row(
        "completion",
        if s.finished {
            fmt_ns(s.completion_ns)
        } else {
            {
                let open: u64 = s
                    .fct
                    .iter()
                    .filter(|(class, _)| class.as_str() != "background")
                    .map(|(_, c)| c.flows - c.completed)
                    .sum();
                format!(
                    "{} (NOT finished: {open} measured flows incomplete, at stop_at_ns or failed)",
                    fmt_ns(s.completion_ns)
                )
            }
        },
    );
    if s.ideal_ns > 0 {
        row(
            "ideal / ratio",
            format!("{} / {:.3}x", fmt_ns(s.ideal_ns), s.completion_ratio),
        );
    }
    let g = &s.goodput;
    row(
        "goodput",
        format!(
            "{:.1} Gb/s total; per host mean {:.2}, min {:.2} Gb/s ({:.1}% of line rate)",
            g.aggregate_gbps, g.per_host_mean_gbps, g.per_host_min_gbps, g.percent_of_line_rate
        ),
    );
    let r = &s.retransmits;
    row(
        "retransmissions",
        format!(
            "{} (trim {}, time {}, distance {}, rto {}, rnr {}, no-context {}, go-back-n {})",
            r.total, r.trim, r.time, r.distance, r.rto, r.rnr, r.no_context, r.go_back_n
        ),
    );
    row("timeouts", s.timeouts.to_string());
    let d = &s.drops;
    row(
        "drops",
        format!(
            "overflow {}, random loss {}, link down {}, NIC rx {} (duplicates {})",
            d.overflow, d.random_loss, d.link_down, d.nic_rx, d.nic_duplicate
        ),
    );
    row(
        "trimmed / ECN CE",
        format!("{} / {}", d.trimmed, d.ecn_marked),
    );
    let q: Vec<String> = s
        .peak_queue_bytes
        .iter()
        .map(|(k, v)| format!("{k} {}", fmt_bytes(*v)))
        .collect();
    row("peak queue", q.join(", "));
    row(
        "PFC",
        format!(
            "paused {} in total, {} pause frames",
            fmt_ns(s.pfc_pause_ns),
            s.pfc_pauses_sent
        ),
    );
    for (tier, p) in &s.path_load {
        row(
            &format!("path load ({tier})"),
            format!(
                "{} links, min {} / mean {} / max {}, Jain {:.3}",
                p.links,
                fmt_bytes(p.min_bytes),
                fmt_bytes(p.mean_bytes as u64),
                fmt_bytes(p.max_bytes),
                p.jain
            ),
        );
    }
    row(
        "simulator",
        format!(
            "{} events, {} hops in {:.2} s ({} events, {} hops); simulated {}",
            s.events,
            s.packet_hops,
            s.wall_s,
            fmt_rate(s.events_per_s),
            fmt_rate(s.hops_per_s),
            fmt_ns(s.sim_end_ns)
        ),
    );
    if s.peak_rss_bytes > 0 {
        row("peak RSS", fmt_bytes(s.peak_rss_bytes));
    }
    if s.data_errors > 0 {
        row("DATA ERRORS", s.data_errors.to_string());
    }
    let kw = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    let mut out = String::new();
    for (k, v) in &rows {
        let _ = writeln!(out, "  {k:<kw$}  {v}");
    }
    if !s.fct.is_empty() {
        let _ = writeln!(
            out,
            "\n  {:<11} {:>8} {:>8} {:>11} {:>11} {:>11} {:>11} {:>11} {:>9} {:>9}",
            "FCT", "flows", "done", "p50", "p90", "p99", "p99.9", "max", "slow p50", "slow p99"
        );
        for (class, c) in &s.fct {
            let _ = writeln!(
                out,
                "  {:<11} {:>8} {:>8} {:>11} {:>11} {:>11} {:>11} {:>11} {:>9.2} {:>9.2}",
                class,
                c.flows,
                c.completed,
                fmt_ns(c.p50_ns),
                fmt_ns(c.p90_ns),
                fmt_ns(c.p99_ns),
                fmt_ns(c.p999_ns),
                fmt_ns(c.max_ns),
                c.slowdown_p50,
                c.slowdown_p99
            );
        }
    }
    out
}
