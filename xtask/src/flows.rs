//! The project's flows: demo, the full test run, benchmarks, golden vectors.

use crate::bootstrap;
use crate::util::{cargo, repo_root, run};
use std::process::Command;

/// Features the reference model is tested and demonstrated with.
const PROTO_FEATURES: &str = "harness,std";

/// The README's main command: two model endpoints over a lossy multipath link.
pub fn demo(args: &[String]) -> Result<(), String> {
    run(cargo()
        .args(["run", "--quiet", "--release", "-p", "metaroce-proto"])
        .args(["--features", PROTO_FEATURES, "--example", "demo", "--"])
        .args(args))
}

/// The full test run (what `.ci/run` calls).
pub fn test() -> Result<(), String> {
    let tools = bootstrap::all()?;
    run(cargo().args(["fmt", "--all", "--check"]))?;
    run(cargo().args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--all-features",
        "--",
        "-D",
        "warnings",
    ]))?;
    vectors(true)?;
    run(cargo()
        .args(["test", "--workspace", "--release", "--all-features"])
        .env("METAROCE_PYTHON", &tools.python))?;
    Ok(())
}

/// Criterion benchmarks; extra arguments go to criterion.
pub fn bench(args: &[String]) -> Result<(), String> {
    run(cargo()
        .args(["bench", "-p", "metaroce-proto", "--all-features"])
        .args(["--bench", "transport", "--"])
        .args(args))
}

/// Regenerates the golden vectors from the independent Python builder; with `check`, fails when the committed
/// files differ from what the builder produces (stale vectors).
pub fn vectors(check: bool) -> Result<(), String> {
    let root = repo_root();
    let script = root.join("tests").join("vectors").join("gen_vectors.py");
    let mut cmd = Command::new("python3");
    cmd.arg(&script).current_dir(&root);
    if check {
        cmd.arg("--check");
    }
    run(&mut cmd)
}
