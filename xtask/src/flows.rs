//! The project's flows: demo, the full test run, benchmarks, golden vectors.

use crate::bootstrap;
use crate::util::{cargo, repo_root, run, target_dir};
use std::process::Command;

/// Features the reference model is tested and demonstrated with.
const PROTO_FEATURES: &str = "harness,std";

/// The README's main command: two RTL NICs in the Verilator co-simulation over a lossy multipath link
/// (`metaroce demo`); `--model` runs the reference-model demonstration instead.
pub fn demo(args: &[String]) -> Result<(), String> {
    if args.first().map(String::as_str) == Some("--model") {
        return run(cargo()
            .args(["run", "--quiet", "--release", "-p", "metaroce-proto"])
            .args(["--features", PROTO_FEATURES, "--example", "demo", "--"])
            .args(&args[1..]));
    }
    let tools = bootstrap::cosim()?;
    run(cargo()
        .args([
            "run",
            "--quiet",
            "--release",
            "-p",
            "metaroce-sim",
            "--bin",
            "metaroce",
            "--",
        ])
        .arg("demo")
        .args(args)
        .env("METAROCE_VERILATOR_ROOT", &tools.verilator_root))
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
    firmware()?;
    let tests = || {
        let mut cmd = cargo();
        cmd.args(["test", "--workspace", "--release", "--all-features"])
            .env("METAROCE_PYTHON", &tools.python)
            .env("METAROCE_VERILATOR_ROOT", &tools.verilator_root);
        cmd
    };
    // The test build first: it makes the Verilog generator too, with the features the tests unify, so
    // `metaroce-hdl` (minutes in release) is compiled once, not once more for `cargo run -p metaroce-hdl`.
    run(tests().arg("--no-run"))?;
    crate::hdl::check(
        &tools,
        &target_dir().join("release").join(crate::hdl::GENERATOR),
    )?;
    let totals = run_tests(&mut tests())?;
    println!(
        "tests: {} passed, {} failed, {} skipped",
        totals.passed, totals.failed, totals.ignored
    );
    Ok(())
}

/// The firmware image for the control processor: clippy on its target, the release build, and its size
/// against the image area (`metaroce_regmap::fwbus::IMAGE_BYTES`).
pub fn firmware() -> Result<(), String> {
    let target = crate::bootstrap::FIRMWARE_TARGET;
    let args = [
        "-p",
        "metaroce-firmware",
        "--features",
        "image",
        "--profile",
        metaroce_firmware::image::PROFILE,
        "--target",
        target,
    ];
    run(cargo()
        .arg("clippy")
        .args(args)
        .args(["--", "-D", "warnings"]))?;
    run(cargo().arg("build").args(args))?;
    let elf = target_dir()
        .join(target)
        .join(metaroce_firmware::image::PROFILE)
        .join("metaroce-fw");
    let bytes = std::fs::read(&elf).map_err(|e| format!("{}: {e}", elf.display()))?;
    let size = metaroce_firmware::image::words(&bytes, |_, _| {})
        .map_err(|e| format!("{}: {e}", elf.display()))?;
    let limit = metaroce_regmap::fwbus::IMAGE_BYTES;
    println!(
        "firmware image: {size} bytes of {limit} ({})",
        elf.display()
    );
    if size > limit {
        return Err(format!("the firmware image is {size} bytes, over {limit}"));
    }
    Ok(())
}

/// Sums of cargo's per-binary `test result:` lines.
#[derive(Default)]
struct Totals {
    passed: u64,
    failed: u64,
    ignored: u64,
}

/// Runs `cargo test`, echoing its output, and adds up its per-binary results so the run ends with one summary
/// line covering every test binary.
fn run_tests(cmd: &mut Command) -> Result<Totals, String> {
    use std::io::{BufRead, BufReader};
    eprintln!("+ cargo test (summarised at the end)");
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start cargo test: {e}"))?;
    let mut totals = Totals::default();
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines() {
            let line = line.map_err(|e| format!("reading cargo test output: {e}"))?;
            println!("{line}");
            if let Some(rest) = line.strip_prefix("test result: ") {
                for part in rest.split([';', '.']) {
                    let mut words = part.split_whitespace();
                    if let (Some(n), Some(what)) = (words.next(), words.next()) {
                        if let Ok(n) = n.parse::<u64>() {
                            match what {
                                "passed" => totals.passed += n,
                                "failed" => totals.failed += n,
                                "ignored" => totals.ignored += n,
                                _ => {}
                            }
                        }
                    }
                }
            }
        }
    }
    let status = child
        .wait()
        .map_err(|e| format!("waiting for cargo test: {e}"))?;
    if !status.success() {
        return Err(format!(
            "cargo test failed with {status} ({} passed, {} failed)",
            totals.passed, totals.failed
        ));
    }
    if totals.passed == 0 {
        return Err("cargo test ran no test".to_string());
    }
    Ok(totals)
}

/// Criterion benchmarks; extra arguments go to criterion.
pub fn bench(args: &[String]) -> Result<(), String> {
    run(cargo()
        .args(["bench", "-p", "metaroce-proto", "--all-features"])
        .args(["--bench", "transport", "--"])
        .args(args))?;
    run(cargo()
        .args(["bench", "-p", "metaroce-sim", "--bench", "fabric", "--"])
        .args(args))
}

/// The evaluation: every experiment of docs/evaluation.md (or those named), run from the repository root (as
/// every cargo call here) so that the scenario files, the CSV and plot directory and the document are found.
pub fn eval(args: &[String]) -> Result<(), String> {
    run(cargo()
        .args(["run", "--quiet", "--release", "-p", "metaroce-sim"])
        .args(["--bin", "metaroce", "--", "eval"])
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
