//! Installs the pinned external tools the flows need, into project-local places where possible.
//!
//! * `tshark` from the distribution's packages (decodes the RoCEv2 and MetaRoCE pcaps in the tests).
//! * A Python virtual environment at `<repo>/.venv` with the packages pinned in
//!   `tests/scripts/requirements.txt` (scapy: the independent ICRC check).
//!
//! Each step is skipped when its tool is already there, so the command is cheap to repeat.

use crate::util::{have, repo_root, run};
use std::path::PathBuf;
use std::process::Command;

/// What the bootstrap produced, for the flows that need the paths.
pub struct Tools {
    /// The Python interpreter of the project's virtual environment.
    pub python: PathBuf,
}

/// Installs everything.
pub fn all() -> Result<Tools, String> {
    tshark()?;
    let python = python_venv()?;
    Ok(Tools { python })
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
