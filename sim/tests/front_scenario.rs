//! Scenario files: accepted shapes, and errors that name the file, the line and the dotted field.

use metaroce_sim::config::{Fault, LinkSel, TopologySpec, Transport};
use metaroce_sim::scenario::{self, parse_with, ScenarioError};
use metaroce_sim::workload::WorkloadSpec;

const GOOD: &str = r#"seed = 9
stop_at_ns = 50_000_000
[topology]
kind = "leaf-spine"
leaves = 2
hosts_per_leaf = 4
spines = 2
host = { rate_gbps = 12.5, latency_ns = 500 }
fabric = { rate_gbps = 100, latency_ns = 700 }
[transport]
kind = "rocev2"
mtu = 1024
cc = "dcqcn"
[switch]
buffer_bytes = 65536
trimming = false
pfc = { xoff_bytes = 30000, xon_bytes = 20000 }
[[faults]]
kind = "loss"
links = "fabric"
ppm = 100
[[faults]]
kind = "down"
links = ["leaf0-spine1"]
at_ns = 1000
[workload]
kind = "all-to-all"
bytes = 4096
concurrency = 2
[[background]]
kind = "uniform-random"
load_percent = 20
sizes = { kind = "cdf", points = [[1000, 50], [9000, 100]] }
[output]
json = "out/x.json"
csv = "out/x"
"#;

fn err(text: &str) -> ScenarioError {
    match parse_with(text, "t.toml", &[]) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

/// `GOOD` with line `line` (1-based) replaced by `with`.
fn edit(line: usize, with: &str) -> String {
    let mut l: Vec<&str> = GOOD.lines().collect();
    l[line - 1] = with;
    l.join("\n") + "\n"
}

#[test]
fn a_full_scenario_parses_into_the_simulator_types() {
    let sc = scenario::parse(GOOD).unwrap();
    assert_eq!(sc.sim.seed, 9);
    assert_eq!(sc.sim.stop_at_ns, Some(50_000_000));
    match &sc.sim.topology {
        TopologySpec::LeafSpine {
            leaves,
            hosts_per_leaf,
            host,
            fabric,
            uplinks_per_spine,
            ..
        } => {
            assert_eq!((*leaves, *hosts_per_leaf, *uplinks_per_spine), (2, 4, 1));
            assert_eq!(host.rate_bps, 12_500_000_000);
            assert_eq!(fabric.latency_ns, 700);
        }
        t => panic!("{t:?}"),
    }
    assert_eq!(sc.sim.transport.kind, Transport::RoceV2);
    assert_eq!(sc.sim.transport.mtu, 1024);
    assert_eq!(sc.sim.switch.pfc.map(|p| p.xoff_bytes), Some(30000));
    assert!(!sc.sim.switch.trimming);
    assert_eq!(
        sc.sim.faults,
        vec![
            Fault::Loss {
                links: LinkSel::Fabric,
                ppm: 100
            },
            Fault::Down {
                links: LinkSel::Named(vec!["leaf0-spine1".into()]),
                at_ns: 1000
            }
        ]
    );
    assert_eq!(
        sc.workload,
        WorkloadSpec::AllToAll {
            bytes: 4096,
            hosts: None,
            concurrency: Some(2)
        }
    );
    assert_eq!(sc.background.len(), 1);
    assert_eq!(
        sc.output.csv.as_deref(),
        Some(std::path::Path::new("out/x"))
    );
}

#[test]
fn syntax_error_names_line_and_field() {
    let e = err(&edit(7, "spines = "));
    assert_eq!((e.line, e.field.as_str()), (Some(7), "topology.spines"));
    assert!(e.reason.contains("syntax"), "{e}");
    assert!(
        e.to_string().starts_with("t.toml:7: topology.spines: "),
        "{e}"
    );
    let e = err(&edit(22, "[[faults"));
    assert_eq!(e.line, Some(22));
}

#[test]
fn unknown_keys_name_line_and_field() {
    let e = err(&edit(1, "sed = 9"));
    assert_eq!((e.line, e.field.as_str()), (Some(1), "sed"));
    let e = err(&edit(
        9,
        "fabric = { rate_gbps = 100, latency_ns = 700, colour = 1 }",
    ));
    assert_eq!(
        (e.line, e.field.as_str()),
        (Some(9), "topology.fabric.colour")
    );
    let e = err(&edit(28, "bites = 4096"));
    assert_eq!((e.line, e.field.as_str()), (Some(28), "workload.bites"));
    let e = err(&edit(25, "at_nss = 1000"));
    assert_eq!((e.line, e.field.as_str()), (Some(25), "faults.1.at_nss"));
}

#[test]
fn wrong_types_and_values_name_line_and_field() {
    let e = err(&edit(5, "leaves = \"two\""));
    assert_eq!((e.line, e.field.as_str()), (Some(5), "topology.leaves"));
    let e = err(&edit(11, "kind = \"roce\""));
    assert_eq!((e.line, e.field.as_str()), (Some(11), "transport.kind"));
    let e = err(&edit(27, "kind = \"scatter\""));
    assert_eq!((e.line, e.field.as_str()), (Some(27), "workload.kind"));
    let e = err(&edit(25, "# no at_ns"));
    assert_eq!(
        (e.line, e.field.as_str()),
        (Some(22), "faults.1.at_ns"),
        "points at the [[faults]] table"
    );
    let e = err(&edit(
        33,
        "sizes = { kind = \"cdf\", points = [[1000, 50], [900, 100]] }",
    ));
    assert_eq!(
        (e.line, e.field.as_str()),
        (Some(33), "background.0.sizes.points.1")
    );
}

#[test]
fn zero_rate_is_rejected_with_its_field_and_line() {
    let e = err(&edit(8, "host = { rate_gbps = 0, latency_ns = 500 }"));
    assert_eq!(
        (e.line, e.field.as_str()),
        (Some(8), "topology.host.rate_gbps")
    );
    let e = err(&edit(8, "host = { rate_gbps = 10, latency_ns = -1 }"));
    assert_eq!(
        (e.line, e.field.as_str()),
        (Some(8), "topology.host.latency_ns")
    );
    assert!(e.reason.contains("negative"), "{e}");
}

#[test]
fn more_hosts_than_ports_is_rejected_before_the_run() {
    let e = err(&edit(6, "hosts_per_leaf = 100000"));
    assert!(e.field.starts_with("topology."), "{e}");
    // The error points at the line of the field it names.
    let line_of = |key: &str| {
        GOOD.lines()
            .position(|l| l.starts_with(&format!("{key} ")))
            .map(|i| i + 1)
    };
    let key = e
        .field
        .trim_start_matches("topology.")
        .split('.')
        .next()
        .unwrap();
    let expect = if key == "hosts_per_leaf" {
        Some(6)
    } else {
        line_of(key).or(Some(3))
    };
    assert_eq!(e.line, expect, "{e}");
}

#[test]
fn workload_errors_against_the_topology_name_their_field() {
    let text = GOOD.replace(
        "kind = \"all-to-all\"\nbytes = 4096\nconcurrency = 2",
        "kind = \"incast\"\nbytes = 4096\nsenders = 8",
    );
    let e = err(&text);
    assert_eq!((e.line, e.field.as_str()), (Some(29), "workload.senders"));
    let e = err(&GOOD.replace("concurrency = 2", "concurrency = 0"));
    assert_eq!(
        (e.line, e.field.as_str()),
        (Some(29), "workload.concurrency")
    );
}

#[test]
fn missing_tables_are_named() {
    let text: String = GOOD.split("[workload]").next().unwrap().to_string();
    let e = err(&text);
    assert_eq!(e.field, "workload");
    let e = err("seed = 1\n");
    assert_eq!(e.field, "topology");
}

#[test]
fn overrides_apply_and_their_errors_name_the_flag() {
    let o = |p: &str, v: &str| (p.to_string(), v.to_string());
    let sc = parse_with(
        GOOD,
        "t.toml",
        &[
            o("transport.kind", "metaroce"),
            o("transport.mtu", "4096"),
            o("transport.cc", "nscc"),
            o("faults.0.ppm", "0"),
            o(
                "faults.2",
                "{ kind = \"up\", links = [\"leaf0-spine1\"], at_ns = 5000 }",
            ),
            o("topology.hosts", "16"),
        ],
    )
    .unwrap();
    assert_eq!(sc.sim.transport.kind, Transport::MetaRoce);
    assert_eq!(sc.sim.faults.len(), 3);
    assert!(matches!(sc.sim.faults[0], Fault::Loss { ppm: 0, .. }));
    assert!(matches!(
        sc.sim.topology,
        TopologySpec::LeafSpine {
            hosts_per_leaf: 8,
            ..
        }
    ));
    let no_background = GOOD.split("[[background]]").next().unwrap().to_string();
    let sc = parse_with(
        &no_background,
        "t.toml",
        &[
            o("background.0.kind", "inference"),
            o("background.0.messages", "5"),
            o("background.0.load_percent", "10"),
            o("background.0.sizes", "{ kind = \"fixed\", bytes = 4096 }"),
        ],
    )
    .unwrap();
    assert!(matches!(
        sc.background[..],
        [WorkloadSpec::Inference { messages: 5, .. }]
    ));
    let sc = parse_with(GOOD, "t.toml", &[o("background", "[]")]).unwrap();
    assert!(sc.background.is_empty());
    let e = parse_with(GOOD, "t.toml", &[o("topology.host.rate_gbps", "0")]).unwrap_err();
    assert_eq!(e.origin, "--set topology.host.rate_gbps=0");
    assert_eq!(
        (e.line, e.field.as_str()),
        (None, "topology.host.rate_gbps")
    );
    let e = parse_with(GOOD, "t.toml", &[o("workload.nope", "1")]).unwrap_err();
    assert_eq!(e.field, "workload.nope");
    assert!(e.origin.starts_with("--set"), "{e}");
    let e = parse_with(GOOD, "t.toml", &[o("faults.5.ppm", "1")]).unwrap_err();
    assert_eq!(e.field, "faults.5.ppm");
    // An error the override did not cause still points into the file.
    let e = parse_with(
        &edit(8, "host = { rate_gbps = 0, latency_ns = 500 }"),
        "t.toml",
        &[o("seed", "3")],
    )
    .unwrap_err();
    assert_eq!((e.origin.as_str(), e.line), ("t.toml", Some(8)));
}

#[test]
fn overrides_alone_define_a_run() {
    let o = |p: &str, v: &str| (p.to_string(), v.to_string());
    let sc = parse_with(
        "",
        "scenario",
        &[
            o("topology", "{ kind = \"fat-tree\", k = 4, host = { rate_gbps = 100, latency_ns = 500 }, fabric = { rate_gbps = 100, latency_ns = 500 }, core = { rate_gbps = 100, latency_ns = 500 } }"),
            o("workload.kind", "ring-allreduce"),
            o("workload.bytes", "65536"),
        ],
    )
    .unwrap();
    assert!(matches!(
        sc.sim.topology,
        TopologySpec::FatTree { k: 4, .. }
    ));
    let e = parse_with("", "scenario", &[o("workload.kind", "permutation")]).unwrap_err();
    assert_eq!(e.origin, "command line");
}

#[test]
fn example_scenarios_are_valid() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/examples");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "toml") {
            let text = std::fs::read_to_string(&p).unwrap();
            assert!(
                text.starts_with('#'),
                "{}: starts with a comment header",
                p.display()
            );
            scenario::load(&p).unwrap_or_else(|e| panic!("{e}"));
            n += 1;
        }
    }
    assert!(n >= 3);
}
