//! The `metaroce` command end to end on small scenarios.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_metaroce"))
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/examples")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("metaroce-front-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("metaroce runs");
    eprintln!("stdout:\n{}", String::from_utf8_lossy(&out.stdout));
    eprintln!("stderr:\n{}", String::from_utf8_lossy(&out.stderr));
    out
}

#[test]
fn run_an_example_scenario_and_write_every_output() {
    let d = tmp("run");
    let out = run(bin()
        .arg("run")
        .arg(examples().join("permutation-16.toml"))
        .arg("--json")
        .arg(d.join("run.json"))
        .arg("--json-flows")
        .arg("--csv")
        .arg(d.join("run"))
        .arg("--svg")
        .arg(d.join("run")));
    assert!(out.status.success());
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("completion") && table.contains("collective"),
        "{table}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("run.json")).unwrap()).unwrap();
    let s = &doc["summary"];
    assert_eq!(s["finished"], true);
    assert_eq!(s["hosts"], 16);
    assert_eq!(doc["flows"].as_array().unwrap().len(), 16);
    assert!(s["completion_ns"].as_u64().unwrap() > 0);
    assert!(s["ideal_ns"].as_u64().unwrap() > 0);
    assert_eq!(s["data_errors"], 0);
    for f in [
        "run.flows.csv",
        "run.summary.csv",
        "run.links.csv",
        "run.fct.svg",
        "run.links.svg",
    ] {
        let text = std::fs::read_to_string(d.join(f)).unwrap();
        assert!(!text.is_empty(), "{f}");
    }
    let flows = std::fs::read_to_string(d.join("run.flows.csv")).unwrap();
    assert_eq!(flows.lines().count(), 17);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn flags_alone_define_a_run() {
    let d = tmp("flags");
    let out = run(bin()
        .args([
            "run",
            "--hosts",
            "8",
            "--leaves",
            "2",
            "--spines",
            "2",
            "--workload",
            "incast",
            "--senders",
            "3",
            "--bytes",
            "65536",
            "--seed",
            "4",
            "-q",
            "--json",
        ])
        .arg(d.join("i.json")));
    assert!(out.status.success());
    assert!(out.stdout.is_empty(), "--quiet prints no table");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("i.json")).unwrap()).unwrap();
    assert_eq!(doc["summary"]["hosts"], 8);
    assert_eq!(doc["summary"]["fct"]["collective"]["completed"], 3);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_input_exits_non_zero_with_file_line_and_field() {
    let d = tmp("bad");
    let text = std::fs::read_to_string(examples().join("incast-16to1.toml"))
        .unwrap()
        .replace("senders = 16", "senders = 16\ncolour = \"blue\"");
    let line = text.lines().position(|l| l.starts_with("colour")).unwrap() + 1;
    let p = d.join("bad.toml");
    std::fs::write(&p, text).unwrap();
    for sub in ["validate", "run"] {
        let out = run(bin().arg(sub).arg(&p));
        assert_eq!(out.status.code(), Some(2), "{sub}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("bad.toml:{line}: workload.colour: unknown field")),
            "{sub}: {err}"
        );
    }
    let out = run(bin()
        .arg("run")
        .arg(examples().join("incast-16to1.toml"))
        .args(["--set", "topology.fabric.rate_gbps=0"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("topology.fabric.rate_gbps"));
    let out = run(bin().args(["run", "--hosts", "7", "--leaves", "2"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("topology.hosts"));
    let out = run(bin().arg("validate").arg(d.join("missing.toml")));
    assert_eq!(out.status.code(), Some(2));
    let out = run(bin()
        .arg("validate")
        .arg(examples().join("incast-16to1.toml")));
    assert!(out.status.success());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn sweep_writes_one_row_per_run_and_a_plot() {
    let d = tmp("sweep");
    let out = run(bin()
        .arg("sweep")
        .arg(examples().join("incast-16to1.toml"))
        .args([
            "--set",
            "workload.senders=2,4",
            "--set",
            "transport.kind=metaroce,rocev2",
            "--set",
            "workload.bytes=16384",
            "--plot",
            "completion_ns",
            "-q",
            "--out",
        ])
        .arg(&d));
    assert!(out.status.success());
    let csv = std::fs::read_to_string(d.join("sweep.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 5);
    assert!(lines[0].starts_with("workload.senders,transport.kind,workload.bytes,"));
    assert!(lines[4].starts_with("4,rocev2,16384,"));
    let svg = std::fs::read_to_string(d.join("sweep.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<polyline").count(), 2);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn same_seed_same_figures_and_the_ideal_is_a_lower_bound() {
    let d = tmp("det");
    let mut docs = Vec::new();
    for (i, seed) in [5, 5, 6].iter().enumerate() {
        let p = d.join(format!("r{i}.json"));
        let out = run(bin()
            .arg("run")
            .arg(examples().join("incast-16to1.toml"))
            .args(["-q", "--seed", &seed.to_string(), "--json"])
            .arg(&p));
        assert!(out.status.success());
        let mut doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let s = doc["summary"].as_object_mut().unwrap();
        for wall in ["wall_s", "events_per_s", "hops_per_s", "peak_rss_bytes"] {
            s.remove(wall);
        }
        docs.push(doc);
    }
    assert_eq!(docs[0], docs[1], "same seed, same figures");
    for doc in &docs {
        let ratio = doc["summary"]["completion_ratio"].as_f64().unwrap();
        assert!(ratio >= 1.0, "completion below the ideal: ratio {ratio}");
    }
    let _ = std::fs::remove_dir_all(&d);
}
