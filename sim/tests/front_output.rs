//! Output formats: JSON parses back, CSV rows match their header, SVG is well-formed XML; sweep grids and
//! their CSV and plot.

use metaroce_sim::flow::{FlowClass, FlowRecord, FlowSpec};
use metaroce_sim::metrics::Summary;
use metaroce_sim::output::{csv, json, svg, table};
use metaroce_sim::results::{LinkReport, LinkTier, RunResults};
use metaroce_sim::sweep::{self, SweepRun};

fn results() -> RunResults {
    let mut flows = Vec::new();
    for i in 0..300u32 {
        let class = match i % 3 {
            0 => FlowClass::Collective,
            1 => FlowClass::Latency,
            _ => FlowClass::Background,
        };
        flows.push(FlowRecord {
            id: i,
            spec: FlowSpec {
                src: i % 8,
                dst: (i + 1) % 8,
                bytes: 1000 + u64::from(i) * 37,
                class,
                tag: i,
            },
            start_ns: u64::from(i) * 10,
            end_ns: if i == 299 {
                None
            } else {
                Some(u64::from(i) * 10 + 500 + u64::from(i * i) % 7000)
            },
        });
    }
    let links = (0..12)
        .map(|i| LinkReport {
            name: if i % 2 == 0 {
                format!("leaf{}>spine{}", i / 4, i % 4)
            } else {
                format!("spine{}>leaf{}", i % 4, i / 4)
            },
            tier: if i < 10 {
                LinkTier::Fabric
            } else {
                LinkTier::Host
            },
            plane: 0,
            tx_packets: 10 * i,
            tx_bytes: 10_000 * i,
            peak_queue_bytes: 100 * i,
            drops_overflow: 0,
            drops_loss: i,
            drops_down: 0,
            ecn_marked: 0,
            trimmed: 0,
            paused_ns: 0,
            pauses_sent: 0,
        })
        .collect();
    RunResults {
        workload: "mix <a & b>".into(),
        end_ns: 10_000,
        finished: true,
        wall_ns: 1_000_000,
        events: 5000,
        packet_hops: 2000,
        flows,
        links,
        nic: Default::default(),
        hosts: 8,
        qps: 16,
        peak_rss_bytes: None,
        data_errors: 0,
        host_rate_bps: 100_000_000_000,
        down_drops: Vec::new(),
    }
}

/// A small XML well-formedness check: tags nest and close, attributes are quoted, text has no raw `<` or
/// stray `&`, and there is exactly one root element named `root`.
fn check_xml(doc: &str, root: &str) {
    let mut stack: Vec<String> = Vec::new();
    let mut roots = 0;
    let mut rest = doc;
    while let Some(i) = rest.find('<') {
        let text = &rest[..i];
        check_text(text);
        let end = rest[i..].find('>').expect("unterminated tag") + i;
        let tag = &rest[i + 1..end];
        rest = &rest[end + 1..];
        if tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack
                .pop()
                .unwrap_or_else(|| panic!("closing </{name}> without an opening tag"));
            assert_eq!(open, name.trim(), "mismatched tags");
            continue;
        }
        let self_closing = tag.ends_with('/');
        let body = tag.trim_end_matches('/');
        let name: String = body.chars().take_while(|c| !c.is_whitespace()).collect();
        assert!(
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == ':' || c == '-'),
            "bad tag name {name:?}"
        );
        // attributes: name="value" pairs
        let mut attrs = &body[name.len()..];
        loop {
            attrs = attrs.trim_start();
            if attrs.is_empty() {
                break;
            }
            let eq = attrs
                .find('=')
                .unwrap_or_else(|| panic!("attribute without value in <{tag}>"));
            let q = attrs[eq + 1..].chars().next().expect("attribute value");
            assert!(q == '"' || q == '\'', "unquoted attribute in <{tag}>");
            let close = attrs[eq + 2..].find(q).expect("unterminated attribute") + eq + 2;
            check_text(&attrs[eq + 2..close]);
            attrs = &attrs[close + 1..];
        }
        if stack.is_empty() {
            roots += 1;
            assert_eq!(name, root);
        }
        if !self_closing {
            stack.push(name);
        }
    }
    check_text(rest);
    assert!(stack.is_empty(), "unclosed tags {stack:?}");
    assert_eq!(roots, 1);
}

fn check_text(t: &str) {
    assert!(!t.contains('<'));
    let mut s = t;
    while let Some(i) = s.find('&') {
        let semi = s[i..].find(';').expect("stray &") + i;
        let ent = &s[i + 1..semi];
        assert!(
            ["amp", "lt", "gt", "quot", "apos"].contains(&ent) || ent.starts_with('#'),
            "bad entity &{ent};"
        );
        s = &s[semi + 1..];
    }
}

#[test]
fn json_round_trips_and_holds_the_figures() {
    let r = results();
    let s = Summary::from(&r, 5_000);
    let doc = json::to_value(&s, Some(&r));
    let text = serde_json::to_string_pretty(&doc).unwrap();
    let back: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(back["summary"]["completion_ns"], s.completion_ns);
    assert_eq!(back["summary"]["fct"]["latency"]["flows"], 100);
    assert_eq!(back["flows"].as_array().unwrap().len(), 300);
    assert_eq!(back["flows"][299]["end_ns"], serde_json::Value::Null);
    assert_eq!(back["flows"][1]["class"], "latency");
    let without = json::to_value(&s, None);
    assert!(without.get("flows").is_none());
}

#[test]
fn csv_rows_match_their_headers() {
    let r = results();
    let s = Summary::from(&r, 5_000);
    for (text, rows) in [
        (csv::flows(&r), 300),
        (csv::summary(&s), 1),
        (csv::links(&r), 12),
    ] {
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), rows + 1);
        let cols = lines[0].split(',').count();
        for l in &lines {
            // No field here needs quoting except the workload name.
            assert_eq!(split_csv(l).len(), cols, "{l}");
        }
    }
    let sum = csv::summary(&s);
    let head = split_csv(sum.lines().next().unwrap());
    let vals = split_csv(sum.lines().nth(1).unwrap());
    let i = head.iter().position(|h| h == "completion_ns").unwrap();
    assert_eq!(vals[i], s.completion_ns.to_string());
    let w = head.iter().position(|h| h == "workload").unwrap();
    assert_eq!(vals[w], "mix <a & b>");
    assert_eq!(csv::field("a,\"b\""), "\"a,\"\"b\"\"\"");
}

fn split_csv(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut q) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (q, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            (true, '"') => q = false,
            (false, '"') => q = true,
            (false, ',') => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

#[test]
fn svg_plots_are_well_formed() {
    let r = results();
    let fct = svg::fct_cdf(&r);
    check_xml(&fct, "svg");
    assert_eq!(fct.matches("<polyline").count(), 3, "one CDF per class");
    assert!(fct.contains("mix &lt;a &amp; b&gt;"));
    let bars = svg::link_bars(&r);
    check_xml(&bars, "svg");
    assert_eq!(
        bars.matches("<rect").count(),
        1 + 10,
        "background + one bar per switch link"
    );
    let empty = RunResults {
        flows: vec![],
        links: vec![],
        ..r
    };
    check_xml(&svg::fct_cdf(&empty), "svg");
    check_xml(&svg::link_bars(&empty), "svg");
    let lp = svg::line_plot(
        "t",
        "x",
        "y",
        &[svg::Series {
            name: "a".into(),
            points: vec![(1.0, 2.0), (10.0, 3.0), (1000.0, 1.0)],
        }],
        true,
    );
    check_xml(&lp, "svg");
    assert_eq!(svg::ticks(0.0, 10.0), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
}

#[test]
fn table_shows_the_main_figures() {
    let r = results();
    let s = Summary::from(&r, 5_000);
    let t = table::render(&s);
    for needle in [
        "completion",
        "ideal / ratio",
        "goodput",
        "retransmissions",
        "collective",
        "latency",
        "p99.9",
    ] {
        assert!(t.contains(needle), "{needle} missing from\n{t}");
    }
    assert_eq!(table::fmt_ns(1_500), "1.50 us");
    assert_eq!(table::fmt_bytes(1 << 20), "1.00 MiB");
}

#[test]
fn sweep_grid_csv_and_plot() {
    let a = sweep::parse_set("transport.kind=metaroce,rocev2").unwrap();
    let b = sweep::parse_set("faults.0.links=[\"a\",\"b\"],\"fabric\"").unwrap();
    assert_eq!(
        b.values,
        vec!["[\"a\",\"b\"]".to_string(), "\"fabric\"".to_string()]
    );
    let c = sweep::parse_set("faults.0.ppm=0,100,1000").unwrap();
    assert!(sweep::parse_set("novalue").is_err());
    let g = sweep::grid(&[a.clone(), c.clone()]);
    assert_eq!(g.len(), 6);
    assert_eq!(
        g[0],
        vec![
            ("transport.kind".into(), "metaroce".into()),
            ("faults.0.ppm".into(), "0".into())
        ]
    );
    assert_eq!(g[5][0].1, "rocev2");
    assert_eq!(g[5][1].1, "1000");
    let r = results();
    let runs: Vec<SweepRun> = g
        .iter()
        .enumerate()
        .map(|(i, o)| SweepRun {
            overrides: o.clone(),
            summary: Summary::from(&r, 1_000 * (i as u64 + 1)),
        })
        .collect();
    let text = sweep::csv(&runs);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 7);
    assert!(lines[0].starts_with("transport.kind,faults.0.ppm,"));
    let cols = split_csv(lines[0]).len();
    assert!(lines.iter().all(|l| split_csv(l).len() == cols));
    let plot = sweep::plot(
        &runs,
        "completion_ratio",
        "faults.0.ppm",
        Some("transport.kind"),
    )
    .unwrap();
    check_xml(&plot, "svg");
    assert_eq!(
        plot.matches("<polyline").count(),
        2,
        "one line per transport"
    );
    assert!(plot.contains("transport.kind=rocev2"));
    assert!(sweep::plot(&runs, "no_such_metric", "faults.0.ppm", None).is_err());
    assert!(sweep::plot(&runs, "completion_ns", "seed", None).is_err());
}
