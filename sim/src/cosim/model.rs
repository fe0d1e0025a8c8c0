//! A Verilator model behind a safe API: ports by name, values as 32-bit words or integers, clock cycles,
//! waveforms on request.

use super::build::{build, BuildError, ModelSource};
use super::ffi::{Instance, ModelLib};
use metaroce_hdl::gen::{Dir, Port};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

/// A port of a [`Model`]: its index and width, resolved once by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortId {
    id: u32,
    width: usize,
    input: bool,
}

impl PortId {
    /// Width in bits.
    pub fn width(&self) -> usize {
        self.width
    }

    fn words(&self) -> usize {
        self.width.div_ceil(32)
    }

    /// Mask of the top word.
    fn top_mask(&self) -> u32 {
        match self.width % 32 {
            0 => u32::MAX,
            r => (1u32 << r) - 1,
        }
    }
}

/// A built model: the library and its port list; [`ModelKind::instance`] makes runnable [`Model`]s.
#[derive(Clone)]
pub struct ModelKind {
    lib: Arc<ModelLib>,
    top: Arc<str>,
    ports: Arc<HashMap<String, PortId>>,
    clk: PortId,
}

/// Libraries loaded in this process, by path (one load per library, shared by every instance).
fn loaded() -> &'static Mutex<HashMap<std::path::PathBuf, Arc<ModelLib>>> {
    static L: OnceLock<Mutex<HashMap<std::path::PathBuf, Arc<ModelLib>>>> = OnceLock::new();
    L.get_or_init(Default::default)
}

/// A co-simulation error: the build, or a port that does not exist.
#[derive(Debug)]
pub enum ModelError {
    /// The model could not be built.
    Build(BuildError),
    /// The library could not be loaded.
    Load(String),
    /// No port of this name.
    NoPort(String, String),
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModelError::Build(e) => write!(f, "model build: {e}"),
            ModelError::Load(e) => write!(f, "model load: {e}"),
            ModelError::NoPort(m, p) => write!(f, "module `{m}` has no port `{p}`"),
        }
    }
}

impl std::error::Error for ModelError {}

impl From<BuildError> for ModelError {
    fn from(e: BuildError) -> Self {
        ModelError::Build(e)
    }
}

impl ModelKind {
    /// Builds (or reuses) and loads the model of `src`. Builds of one source are serialised in this process.
    pub fn build(src: &ModelSource) -> Result<ModelKind, ModelError> {
        static BUILDING: Mutex<()> = Mutex::new(());
        let path = {
            let _g = BUILDING.lock().unwrap_or_else(|p| p.into_inner());
            build(src)?
        };
        let lib = {
            let mut l = loaded().lock().unwrap_or_else(|p| p.into_inner());
            match l.get(&path) {
                Some(lib) => lib.clone(),
                None => {
                    let lib = ModelLib::load(&path).map_err(ModelError::Load)?;
                    l.insert(path.clone(), lib.clone());
                    lib
                }
            }
        };
        let ports: HashMap<String, PortId> = src
            .ports
            .iter()
            .enumerate()
            .map(|(i, p): (usize, &Port)| {
                (
                    p.name.clone(),
                    PortId {
                        id: i as u32,
                        width: p.width,
                        input: p.dir == Dir::In,
                    },
                )
            })
            .collect();
        let clk = *ports
            .get(&src.clk)
            .ok_or_else(|| ModelError::NoPort(src.top.clone(), src.clk.clone()))?;
        Ok(ModelKind {
            lib,
            top: src.top.as_str().into(),
            ports: Arc::new(ports),
            clk,
        })
    }

    /// A new instance, all inputs zero.
    pub fn instance(&self) -> Model {
        Model {
            inst: Instance::new(self.lib.clone()),
            kind: self.clone(),
            cycle: 0,
            buf: vec![0; 64],
        }
    }

    /// The port called `name`.
    pub fn port(&self, name: &str) -> Result<PortId, ModelError> {
        self.ports
            .get(name)
            .copied()
            .ok_or_else(|| ModelError::NoPort(self.top.to_string(), name.to_string()))
    }

    /// Top module name.
    pub fn top(&self) -> &str {
        &self.top
    }
}

/// One running model instance.
pub struct Model {
    inst: Instance,
    kind: ModelKind,
    cycle: u64,
    buf: Vec<u32>,
}

impl Model {
    /// The port called `name`.
    pub fn port(&self, name: &str) -> Result<PortId, ModelError> {
        self.kind.port(name)
    }

    /// Clock cycles run so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Sets input `p` from 32-bit words, least significant first (missing words are zero, bits above the
    /// width are ignored). Panics if `p` is an output: that is a testbench bug, not a model outcome.
    pub fn set_words(&mut self, p: PortId, words: &[u32]) {
        assert!(p.input, "port {} is an output", p.id);
        let n = p.words();
        self.buf.clear();
        self.buf
            .extend((0..n).map(|i| words.get(i).copied().unwrap_or(0)));
        if let Some(top) = self.buf.last_mut() {
            *top &= p.top_mask();
        }
        self.inst.set(p.id, &self.buf);
    }

    /// Sets input `p` (up to 64 bits; wider ports get zeros above).
    pub fn set(&mut self, p: PortId, v: u64) {
        self.set_words(p, &[v as u32, (v >> 32) as u32]);
    }

    /// Sets a one-bit input.
    pub fn set_bit(&mut self, p: PortId, v: bool) {
        self.set(p, u64::from(v));
    }

    /// Sets input `p` from bytes, byte 0 in bits 7:0 (a stream's `tdata`).
    pub fn set_bytes(&mut self, p: PortId, bytes: &[u8]) {
        let n = p.words();
        let mut w = vec![0u32; n];
        for (i, b) in bytes.iter().enumerate().take(n * 4) {
            w[i / 4] |= u32::from(*b) << (8 * (i % 4));
        }
        self.set_words(p, &w);
    }

    /// Reads port `p` into 32-bit words, least significant first.
    pub fn get_words(&mut self, p: PortId, out: &mut Vec<u32>) {
        out.clear();
        out.resize(p.words(), 0);
        self.inst.get(p.id, out);
    }

    /// Reads port `p`, its low 64 bits.
    pub fn get(&mut self, p: PortId) -> u64 {
        let mut w = [0u32; 2];
        if p.words() <= 2 {
            self.inst.get(p.id, &mut w[..p.words()]);
        } else {
            let mut all = std::mem::take(&mut self.buf);
            self.get_words(p, &mut all);
            w.copy_from_slice(&all[..2]);
            self.buf = all;
        }
        u64::from(w[0]) | (u64::from(w[1]) << 32)
    }

    /// Reads a one-bit port.
    pub fn get_bit(&mut self, p: PortId) -> bool {
        self.get(p) & 1 == 1
    }

    /// Reads port `p` as bytes (byte 0 from bits 7:0), `width / 8` of them.
    pub fn get_bytes(&mut self, p: PortId, out: &mut Vec<u8>) {
        let mut w = std::mem::take(&mut self.buf);
        self.get_words(p, &mut w);
        out.clear();
        out.extend(w.iter().flat_map(|x| x.to_le_bytes()).take(p.width / 8));
        self.buf = w;
    }

    /// Settles combinational logic after inputs changed (outputs that depend on inputs are then current).
    pub fn eval(&mut self) {
        self.inst.eval();
    }

    /// Runs one clock cycle (rising edge, then falling edge).
    pub fn step(&mut self) {
        self.inst.cycles(1);
        self.cycle += 1;
    }

    /// Runs `n` clock cycles with the inputs held.
    pub fn steps(&mut self, n: u64) {
        self.inst.cycles(n);
        self.cycle += n;
    }

    /// Writes a VCD waveform of every signal from now on to `path`.
    pub fn trace(&mut self, path: &Path) -> Result<(), String> {
        match self.inst.trace_open(path) {
            0 => Ok(()),
            1 => Err("a waveform is already being written".into()),
            3 => Err("the model was built without waveform support (`trace`)".into()),
            _ => Err(format!("cannot open the waveform {}", path.display())),
        }
    }

    /// Stops the waveform.
    pub fn trace_close(&mut self) {
        self.inst.trace_close();
    }

    /// The clock port.
    pub fn clock(&self) -> PortId {
        self.kind.clk
    }
}
