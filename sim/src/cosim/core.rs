//! The `metaroce_core` model at its co-simulation size, and [`CoreBench`]: one core with its host memory, its
//! register master and its MAC-side streams, stepped cycle by cycle.

use super::build::ModelSource;
use super::bus::{
    AxilDone, AxilMaster, AxilOp, Idle, StreamPorts, StreamSink, StreamSource, Violation,
};
use super::host_mem::{DmaServer, MemTiming};
use super::model::{Model, ModelError, ModelKind, PortId};
use super::module::Module;
use metaroce_hdl::{CoreConfig, DataWidth};
use metaroce_regmap::fwbus::PortStatus;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, OnceLock};

/// The co-simulation configuration: the 512-bit core with 256 connections (64 with packets outstanding at
/// once), 64 queue pairs and CQs, 4K memory regions. The blocks are those of the full-size core; only the
/// table depths differ.
pub fn cosim_config() -> CoreConfig {
    CoreConfig {
        width: DataWidth::W512,
        conn_bits: 8,
        send_slot_bits: 6,
        mr_bits: 12,
        qp_bits: 6,
    }
}

/// The model of block `name` of `metaroce_hdl::blocks` in configuration `cfg` (built once per process, cached
/// on disk); `trace` builds it with waveform support.
pub fn block_model(name: &str, cfg: &CoreConfig, trace: bool) -> Result<ModelKind, ModelError> {
    static KINDS: OnceLock<Mutex<HashMap<String, ModelKind>>> = OnceLock::new();
    let key = format!("{name} {cfg:?} {trace}");
    let mut kinds = KINDS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(k) = kinds.get(&key) {
        return Ok(k.clone());
    }
    let spec = metaroce_hdl::blocks::find(name)
        .ok_or_else(|| ModelError::Load(format!("no block `{name}`")))?;
    let c = *cfg;
    let gen = spec.verilog;
    let verilog = std::thread::Builder::new()
        .stack_size(GEN_STACK)
        .spawn(move || gen(&c))
        .and_then(|h| {
            h.join()
                .map_err(|_| std::io::Error::other("Verilog generation panicked"))
        })
        .map_err(|e| ModelError::Load(format!("generating the Verilog of {name}: {e}")))?;
    let mut src = ModelSource::new(name, verilog)?;
    src.trace = trace;
    let kind = ModelKind::build(&src)?;
    kinds.insert(key, kind.clone());
    Ok(kind)
}

/// Stack of the thread that generates the core's Verilog.
const GEN_STACK: usize = 256 << 20;

/// The core's model for `cfg` (built once per process and configuration, and cached on disk); `trace` builds
/// it with waveform support.
pub fn core_model(cfg: &CoreConfig, trace: bool) -> Result<ModelKind, ModelError> {
    static KINDS: OnceLock<Mutex<HashMap<String, ModelKind>>> = OnceLock::new();
    let key = format!("{cfg:?} {trace}");
    let mut kinds = KINDS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(k) = kinds.get(&key) {
        return Ok(k.clone());
    }
    // The core's rust-hdl description is large and its generation deeply recursive: give it its own stack.
    let c = *cfg;
    let verilog = std::thread::Builder::new()
        .stack_size(GEN_STACK)
        .spawn(move || metaroce_hdl::top::core::verilog(&c))
        .and_then(|h| {
            h.join()
                .map_err(|_| std::io::Error::other("Verilog generation panicked"))
        })
        .map_err(|e| ModelError::Load(format!("generating the core's Verilog: {e}")))?;
    let mut src = ModelSource::new("metaroce_core", verilog)?;
    src.trace = trace;
    let kind = ModelKind::build(&src)?;
    kinds.insert(key, kind.clone());
    Ok(kind)
}

/// A failed bench operation.
#[derive(Debug)]
pub enum BenchError {
    /// The model could not be built or lacks a port.
    Model(ModelError),
    /// A stream handshake or DMA protocol violation.
    Violation(Violation),
    /// The device did not answer within the cycle limit.
    Timeout(String),
    /// A register access answered with an error response.
    BusError(AxilDone),
    /// The bench could not be set up as asked (a layout the regmap rejects, a file that cannot be written).
    Setup(String),
}

impl fmt::Display for BenchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BenchError::Model(e) => write!(f, "{e}"),
            BenchError::Violation(v) => write!(f, "handshake violation: {v}"),
            BenchError::Timeout(what) => write!(f, "timeout: {what}"),
            BenchError::BusError(d) => write!(f, "register access {:?} answered {}", d.op, d.resp),
            BenchError::Setup(what) => write!(f, "setup: {what}"),
        }
    }
}

impl std::error::Error for BenchError {}

impl From<ModelError> for BenchError {
    fn from(e: ModelError) -> Self {
        BenchError::Model(e)
    }
}

/// Back-pressure and idle settings of a bench.
#[derive(Debug, Clone, Copy, Default)]
pub struct BenchTiming {
    /// Host memory.
    pub mem: MemTiming,
    /// Idle cycles between received beats offered to the core.
    pub rx_idle: Idle,
    /// Back-pressure of the MAC transmit side.
    pub tx_idle: Idle,
}

/// Cycles a register access may take before the bench reports the device hung (the bridge answers within
/// 255 cycles even when nobody decodes the address).
pub const REG_TIMEOUT: u64 = 2_000;

/// One core, its host memory and its MAC-side streams.
pub struct CoreBench {
    /// The model.
    pub m: Model,
    /// The seed the bench was made with (its agents' random streams; the firmware's `CONTROL.SEED`).
    pub seed: u64,
    /// The register master.
    pub axil: AxilMaster,
    /// Host memory behind the DMA interface.
    pub dma: DmaServer,
    /// Frames to the core's MAC receive side.
    pub rx: StreamSource,
    /// Frames from the core's MAC transmit side.
    pub tx: StreamSink,
    /// Packets for the embedded control processor.
    pub exc: StreamSink,
    /// Failed connections.
    pub conn_err: StreamSink,
    /// What the control processor wrote to its console.
    pub console: Vec<u8>,
    console_ports: (PortId, PortId),
    trap_port: PortId,
    port_status: PortId,
    /// The `port_status` bits the bench sets, and the module's interrupt as last driven.
    port_bits: u8,
    port_int: bool,
    /// The transceiver module on the core's management bus (`None`: the bus has only its pull-ups).
    pub module: Option<Module>,
    /// The management bus: the core's `i2c_scl_oe`, `i2c_sda_oe`, `i2c_scl_i`, `i2c_sda_i`.
    i2c: [PortId; 4],
}

impl CoreBench {
    /// A bench of a fresh instance of `kind`, held in reset for 4 cycles, then run until the core's
    /// post-reset sweeps are done (`1 << conn_bits` cycles and more).
    pub fn new(
        kind: &ModelKind,
        cfg: &CoreConfig,
        timing: BenchTiming,
        seed: u64,
    ) -> Result<CoreBench, BenchError> {
        let mut m = kind.instance();
        let rst = kind.port("rst")?;
        let mut b = CoreBench {
            seed,
            axil: AxilMaster::new(kind)?,
            dma: DmaServer::new(kind, timing.mem, seed)?,
            rx: StreamSource::new(
                StreamPorts::new(kind, "s_axis_rx")?,
                timing.rx_idle,
                seed ^ 0x10,
            ),
            tx: StreamSink::new(
                StreamPorts::new(kind, "m_axis_tx")?,
                "m_axis_tx",
                timing.tx_idle,
                seed ^ 0x11,
            ),
            exc: StreamSink::new(
                StreamPorts::new(kind, "m_axis_exc")?,
                "m_axis_exc",
                Idle::NONE,
                seed ^ 0x12,
            ),
            conn_err: StreamSink::new(
                StreamPorts::new(kind, "m_axis_conn_err")?,
                "m_axis_conn_err",
                Idle::NONE,
                seed ^ 0x13,
            ),
            console: Vec::new(),
            console_ports: (
                kind.port("fw_console_valid")?,
                kind.port("fw_console_data")?,
            ),
            trap_port: kind.port("fw_trap")?,
            port_status: kind.port("port_status")?,
            port_bits: 0,
            port_int: false,
            module: Some(Module::reference()),
            i2c: [
                kind.port("i2c_scl_oe")?,
                kind.port("i2c_sda_oe")?,
                kind.port("i2c_scl_i")?,
                kind.port("i2c_sda_i")?,
            ],
            m: {
                m.set_bit(rst, true);
                m
            },
        };
        b.set_port_status(PortStatus::LINK_UP.0 | PortStatus::MODULE_PRESENT.0);
        b.m.set_bit(b.i2c[2], true);
        b.m.set_bit(b.i2c[3], true);
        b.m.steps(4);
        b.m.set_bit(rst, false);
        b.run(2 * (1u64 << cfg.conn_bits) + 64)?;
        Ok(b)
    }

    /// One clock cycle of the core and every agent.
    pub fn step(&mut self) -> Result<(), BenchError> {
        let m = &mut self.m;
        self.axil.drive(m);
        self.dma.drive(m);
        self.rx.drive(m);
        self.tx.drive(m);
        self.exc.drive(m);
        self.conn_err.drive(m);
        m.eval();
        self.axil.sample(m);
        self.dma.sample(m);
        self.rx.sample(m);
        self.tx.sample(m);
        self.exc.sample(m);
        self.conn_err.sample(m);
        if m.get_bit(self.console_ports.0) {
            self.console.push(m.get(self.console_ports.1) as u8);
        }
        // The management bus: open drain, each line high unless the core or the module pulls it low. The
        // core's inputs take the lines for the next cycle (it synchronises them anyway).
        let scl = !m.get_bit(self.i2c[0]) && !self.module.as_ref().is_some_and(|d| d.stuck_scl);
        let sda = !m.get_bit(self.i2c[1]) && !self.module.as_ref().is_some_and(|d| d.pulls_sda());
        if let Some(d) = self.module.as_mut() {
            d.clock(scl, sda);
        }
        m.set_bit(self.i2c[2], scl);
        m.set_bit(self.i2c[3], sda);
        // The module's interrupt line, active low on the board, is `port_status`'s MODULE_INT bit.
        let int = self.module.as_ref().is_some_and(|d| d.interrupt());
        if int != self.port_int {
            self.port_int = int;
            m.set(self.port_status, u64::from(port_bits(self.port_bits, int)));
        }
        m.step();
        if let Some(v) = self.violation() {
            return Err(BenchError::Violation(v.clone()));
        }
        Ok(())
    }

    /// Drives the core's `port_status` input (`metaroce_regmap::fwbus::PortStatus` bits; a new bench has its
    /// link up and a module present).
    pub fn set_port_status(&mut self, bits: u8) {
        self.port_bits = bits & !PortStatus::MODULE_INT.0;
        self.drive_port_status();
    }

    /// Drives `port_status`: the bits set by [`CoreBench::set_port_status`] and the module's interrupt.
    fn drive_port_status(&mut self) {
        self.m.set(
            self.port_status,
            u64::from(port_bits(self.port_bits, self.port_int)),
        );
    }

    /// The control processor stopped on a trap.
    pub fn fw_trap(&mut self) -> Result<bool, BenchError> {
        self.m.eval();
        Ok(self.m.get_bit(self.trap_port))
    }

    /// The first handshake violation of any stream.
    pub fn violation(&self) -> Option<&Violation> {
        self.axil
            .violation
            .as_ref()
            .or(self.dma.violation())
            .or(self.tx.violation.as_ref())
            .or(self.exc.violation.as_ref())
            .or(self.conn_err.violation.as_ref())
    }

    /// Runs `n` cycles.
    pub fn run(&mut self, n: u64) -> Result<(), BenchError> {
        for _ in 0..n {
            self.step()?;
        }
        Ok(())
    }

    fn access(&mut self, op: AxilOp) -> Result<AxilDone, BenchError> {
        self.axil.push(op);
        let start = self.m.cycle();
        loop {
            self.step()?;
            if let Some(d) = self.axil.done.pop_front() {
                return if d.resp == 0 {
                    Ok(d)
                } else {
                    Err(BenchError::BusError(d))
                };
            }
            if self.m.cycle() - start > REG_TIMEOUT {
                return Err(BenchError::Timeout(format!("register access {op:?}")));
            }
        }
    }

    /// Writes a register (the other agents keep running meanwhile).
    pub fn write(&mut self, addr: u32, v: u32) -> Result<(), BenchError> {
        self.access(AxilOp::Write(addr, v)).map(|_| ())
    }

    /// Reads a register.
    pub fn read(&mut self, addr: u32) -> Result<u32, BenchError> {
        self.access(AxilOp::Read(addr)).map(|d| d.data)
    }

    /// Reads a register, giving the raw answer even for an error response.
    pub fn read_raw(&mut self, addr: u32) -> Result<AxilDone, BenchError> {
        match self.access(AxilOp::Read(addr)) {
            Ok(d) | Err(BenchError::BusError(d)) => Ok(d),
            Err(e) => Err(e),
        }
    }
}

/// The `port_status` input: the bench's bits, and MODULE_INT while the module's interrupt is asserted.
fn port_bits(bits: u8, int: bool) -> u8 {
    bits | if int { PortStatus::MODULE_INT.0 } else { 0 }
}
