//! The two-NIC co-simulation demonstration (`metaroce demo`): two RTL cores in Verilator, each with its host
//! memory, joined by a lossy, reordering multipath link; core A's host posts a mix of RDMA WRITE, WRITE with
//! immediate, SEND and READ work requests to core B through the registers and doorbells (a READ moves B's bytes
//! into A's buffer), B's host keeps receive buffers posted; the run reports goodput, retransmissions, message
//! latency and the byte-exact data check.

use super::core::{core_model, cosim_config, BenchError, BenchTiming, CoreBench};
use super::host::{self, block_base, Endpoint, RING_LOG};
use super::pair::NicPair;
use metaroce_hdl::{CoreConfig, DataWidth};
use metaroce_proto::harness::link::{LinkConfig, TrimConfig};
use metaroce_proto::harness::rng::Rng;
use metaroce_regmap::block::BlockType;
use metaroce_regmap::counters::{self, CounterId};
use metaroce_regmap::descriptor::cqe::{CqeOpcode, CqeStatus};
use metaroce_regmap::descriptor::rqe::RqeRepr;
use metaroce_regmap::descriptor::sqe::{SqOp, SqeRepr};
use std::collections::VecDeque;
use std::net::Ipv4Addr;

/// Clock period of the cores in the co-simulation, picoseconds: the endpoint block's default `CLOCK_PERIOD`
/// (1/65536 ns units, 322 MHz), which the core's time base counts with.
pub const PERIOD_PS: u64 =
    metaroce_regmap::endpoint::DEFAULT_CLOCK_PERIOD_Q16 as u64 * 1000 / 65_536;

/// What to run.
#[derive(Debug, Clone)]
pub struct DemoConfig {
    /// Messages to send.
    pub messages: usize,
    /// Smallest and largest message, bytes.
    pub min_bytes: u32,
    /// Largest message, bytes.
    pub max_bytes: u32,
    /// Weights of WRITE, WRITE with immediate, SEND and READ in the mix.
    pub mix: [u32; 4],
    /// Random loss on the link, parts per million (both directions).
    pub loss_ppm: u32,
    /// DATA frames the link trims at random (a congested hop elsewhere), parts per million, both directions
    /// (the receiver answers NACK TRIMMED, MR-REL-48).
    pub trim_ppm: u32,
    /// Parallel paths of the link.
    pub paths: usize,
    /// One-way delay of the fastest path, ns (each next path 200 ns slower).
    pub delay_ns: u64,
    /// Work requests in flight at most (the send queue holds 64).
    pub window: usize,
    /// Seed of the message mix, the link and the idle cycles.
    pub seed: u64,
    /// Line rate of both endpoints, Gb/s (the endpoint register `LINE_RATE`: NSCC's pacing serialization term
    /// and initial window, MR-CC-7, MR-CC-14); the link runs at the larger of this and 200 Gb/s.
    pub line_rate_gbps: u32,
    /// ACK ratio of both endpoints (the endpoint register `ACK`, MR-REL-14): an ACK at least every this many
    /// accepted packets and, with a ratio above 1, no later than 2 µs after the first unacknowledged one
    /// (MR-REL-16).
    pub ack_ratio: u8,
    /// Give up after this many cycles.
    pub max_cycles: u64,
    /// Write both cores' waveforms (`a.vcd`, `b.vcd`) into this folder (the model is then built with
    /// waveform support; a VCD of the whole core grows by megabytes per thousand cycles).
    pub vcd: Option<std::path::PathBuf>,
    /// With `vcd`: start the waveforms this many cycles after the traffic started (0: from the core's reset).
    pub vcd_from: u64,
    /// Datapath width of both cores (the co-simulation configuration otherwise).
    pub width: DataWidth,
}

impl Default for DemoConfig {
    fn default() -> Self {
        DemoConfig {
            messages: 64,
            min_bytes: 1,
            max_bytes: 32 * 1024,
            mix: [2, 1, 1, 1],
            loss_ppm: 1_000,
            trim_ppm: 0,
            paths: 4,
            delay_ns: 1_000,
            window: 16,
            seed: 1,
            line_rate_gbps: 100,
            ack_ratio: 1,
            max_cycles: 5_000_000,
            vcd: None,
            vcd_from: 0,
            width: DataWidth::W512,
        }
    }
}

/// The endpoint register `ACK` for an ACK ratio (1..=64) and the model's default ACK delay.
pub fn ack_register(ratio: u8) -> u32 {
    use metaroce_regmap::endpoint::field::{ACK_DELAY, ACK_RATIO};
    // Both values are in range (ratio 1..=64 in 7 bits, the 2 µs default in 16), so the inserts succeed.
    let delay = metaroce_proto::transport::EndpointConfig::default()
        .ack_delay_ns
        .min(0xFFFF) as u32;
    let word = ACK_RATIO
        .insert(0, u32::from(ratio.clamp(1, 64)))
        .unwrap_or(1);
    ACK_DELAY.insert(word, delay).unwrap_or(word)
}

/// The `q`-quantile of `values` (0.5: the median; the value at rank `round((n - 1) * q)`), 0 when empty.
pub fn quantile(values: &[u64], q: f64) -> u64 {
    let mut v = values.to_vec();
    v.sort_unstable();
    v.get(((v.len().max(1) - 1) as f64 * q).round() as usize)
        .copied()
        .unwrap_or(0)
}

/// What a run measured.
#[derive(Debug, Clone, Default)]
pub struct DemoReport {
    /// Messages completed (at the sender).
    pub messages: usize,
    /// Message bytes delivered.
    pub bytes: u64,
    /// Cycles from the first post to the last completion.
    pub cycles: u64,
    /// Message latencies, post to the sender's completion, cycles (in completion order).
    pub latencies: Vec<u64>,
    /// DATA packets core A sent beyond the messages' own packets (retransmissions, all causes).
    pub retransmissions: u64,
    /// DATA packets core A sent (retransmissions included).
    pub data_packets: u64,
    /// Frames the link lost.
    pub link_lost: u64,
    /// Message bytes each core was the target of: A (READ data), B (the others).
    pub target_bytes: [u64; 2],
    /// Each core's `rx_payload_bytes` counter at the end: every byte accepted exactly once, so equal to
    /// `target_bytes`.
    pub rx_payload_bytes: [u64; 2],
    /// Messages whose target bytes differ from their source (must be 0).
    pub corrupt: usize,
    /// Completions with an error status or unexpected fields (must be 0).
    pub bad_completions: usize,
    /// The first bad completion and what was expected.
    pub first_bad: Option<String>,
    /// Each core's transmit datapath (`m_axis_tx`) during the traffic: beats, and their share of the cycles from
    /// its first to its last beat (1.0: a beat every cycle).
    pub tx_beats: [u64; 2],
    /// See `tx_beats`.
    pub tx_occupancy: [f64; 2],
    /// Frames each core's parser discarded for lack of buffer room (`rx_overflows`: the MAC side is never held
    /// back, so 0 means the receive pipeline kept up with the link).
    pub rx_overflows: [u64; 2],
    /// Wall-clock seconds of the run.
    pub wall_s: f64,
    /// The non-zero counters of core A and core B at the end (`name=value ...`).
    pub counters: [String; 2],
}

impl DemoReport {
    /// Goodput in bytes per cycle.
    pub fn bytes_per_cycle(&self) -> f64 {
        self.bytes as f64 / self.cycles.max(1) as f64
    }

    /// Goodput in Gb/s at the co-simulation's clock.
    pub fn gbps(&self) -> f64 {
        self.bytes_per_cycle() * 8.0 * 1000.0 / PERIOD_PS as f64
    }

    /// The `q`-quantile of the latencies (0.5: median).
    pub fn latency(&self, q: f64) -> u64 {
        quantile(&self.latencies, q)
    }

    /// Simulated cycles per wall-clock second (both cores).
    pub fn cycles_per_s(&self) -> f64 {
        self.cycles as f64 / self.wall_s.max(1e-9)
    }

    /// Every byte and every completion was right.
    pub fn passed(&self) -> bool {
        self.corrupt == 0 && self.bad_completions == 0
    }
}

/// A run that stopped with an error.
#[derive(Debug)]
pub struct DemoError {
    /// What went wrong.
    pub error: BenchError,
    /// Cycles after the start of the traffic at which it was found.
    pub cycle: u64,
}

impl std::fmt::Display for DemoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (at cycle {} of the traffic)", self.error, self.cycle)
    }
}

impl std::error::Error for DemoError {}

/// A run, and for a failed one the waveforms of its replay.
#[derive(Debug)]
pub struct Outcome {
    /// The run's report, or its error.
    pub result: Result<DemoReport, DemoError>,
    /// For a failed run (an error, a corrupt message or a bad completion): the folder with both cores'
    /// waveforms of the replay (`a.vcd`, `b.vcd`), or why they could not be written.
    pub waves: Option<Result<std::path::PathBuf, String>>,
}

/// The folder for the waveforms of a failed run called `name` with `seed`: `failures/<name>-seed-<seed>` in
/// the co-simulation's cache folder (`METAROCE_COSIM_DIR`, else `target/cosim`).
pub fn failure_dir(name: &str, seed: u64) -> std::path::PathBuf {
    super::build::cache_dir()
        .join("failures")
        .join(format!("{name}-seed-{seed}"))
}

/// Runs the demonstration; if it fails, runs it again with waveforms of the last `tail` cycles before the
/// failure into `dir` (the co-simulation is deterministic for a seed: the replay fails the same way).
pub fn run_with_waves_on_failure(
    cfg: &DemoConfig,
    progress: &mut dyn FnMut(usize, usize, u64),
    dir: &std::path::Path,
    tail: u64,
) -> Outcome {
    let result = run(cfg, progress);
    let at = match &result {
        Ok(r) if r.passed() => {
            return Outcome {
                result,
                waves: None,
            }
        }
        Ok(r) => r.cycles,
        Err(e) => e.cycle,
    };
    let replay = DemoConfig {
        vcd: Some(dir.to_path_buf()),
        vcd_from: at.saturating_sub(tail),
        // The replay stops where the run failed (a timeout: at the same cycle).
        max_cycles: cfg.max_cycles.min(at + 1),
        ..cfg.clone()
    };
    let _ = std::fs::remove_dir_all(dir);
    let waves = match run(&replay, &mut |_, _, _| {}) {
        Err(e) if matches!(e.error, BenchError::Model(_) | BenchError::Setup(_)) => {
            Err(format!("the replay with waveforms failed to start: {e}"))
        }
        _ if dir.join("a.vcd").exists() => Ok(dir.to_path_buf()),
        _ => Err(format!(
            "the replay wrote no waveform into {}",
            dir.display()
        )),
    };
    Outcome {
        result,
        waves: Some(waves),
    }
}

const SA: Endpoint = Endpoint {
    mac: [0x02, 0, 0, 0, 0, 0x0a],
    ip: Ipv4Addr::new(10, 0, 0, 1),
    conn: 5,
    isn: 1_000,
    key: 0x0000_0111,
    buf: BUF,
    buf_len: BUF_LEN,
};
const SB: Endpoint = Endpoint {
    mac: [0x02, 0, 0, 0, 0, 0x0b],
    ip: Ipv4Addr::new(10, 0, 0, 2),
    conn: 9,
    isn: 70_000,
    key: 0x0000_0222,
    buf: BUF,
    buf_len: BUF_LEN,
};
/// Data buffer of each side.
const BUF: u64 = 0x100_0000;
const BUF_LEN: u64 = 64 << 20;
/// Payload bytes per packet (the connections' default `mtu_log` 12).
const MTU: u32 = 4096;

/// Reads every counter of a core (one snapshot).
pub fn read_counters(b: &mut CoreBench) -> Result<Vec<u64>, BenchError> {
    let base = block_base(BlockType::Counters);
    b.write(base + counters::reg::SNAPSHOT, 1)?;
    let mut v = Vec::with_capacity(usize::from(counters::COUNT));
    for i in 0..u32::from(counters::COUNT) {
        let lo = b.read(base + counters::reg::VALUE + 8 * i)?;
        let hi = b.read(base + counters::reg::VALUE + 8 * i + 4)?;
        v.push(u64::from(lo) | u64::from(hi) << 32);
    }
    Ok(v)
}

/// The non-zero counters of a core, `name=value` (for failure reports).
pub fn nonzero_counters(b: &mut CoreBench) -> Result<String, BenchError> {
    let v = read_counters(b)?;
    Ok(counters::COUNTERS
        .iter()
        .zip(&v)
        .filter(|(_, x)| **x != 0)
        .map(|(c, x)| format!("{}={x}", c.name))
        .collect::<Vec<_>>()
        .join(" "))
}

/// One message of the run.
struct Msg {
    op: SqOp,
    src: u64,
    dst: u64,
    len: u32,
    posted: u64,
}

/// The next message of the run: its kind and length.
fn draw(cfg: &DemoConfig, weights: u32, rng: &mut Rng) -> (SqOp, u32) {
    let span = u64::from(cfg.max_bytes.max(cfg.min_bytes) - cfg.min_bytes.min(cfg.max_bytes));
    let len = cfg.min_bytes.min(cfg.max_bytes) + rng.range_inclusive(0, span) as u32;
    let w = rng.below(u64::from(weights)) as u32;
    let op = if w < cfg.mix[0] {
        SqOp::Write
    } else if w < cfg.mix[0] + cfg.mix[1] {
        SqOp::WriteImm(rng.next_u32())
    } else if w < cfg.mix[0] + cfg.mix[1] + cfg.mix[2] {
        SqOp::Send
    } else {
        SqOp::Read
    };
    (op, len)
}

/// The messages a run with `cfg` posts, in order: kind (with its immediate) and length (the same draws as
/// [`run`], without the data bytes), for running the same scenario elsewhere.
pub fn plan(cfg: &DemoConfig) -> Vec<(SqOp, u32)> {
    let weights: u32 = cfg.mix.iter().sum::<u32>().max(1);
    let mut rng = Rng::new(cfg.seed);
    (0..cfg.messages)
        .map(|_| {
            let (op, len) = draw(cfg, weights, &mut rng);
            for _ in 0..len {
                rng.next_u32();
            }
            (op, len)
        })
        .collect()
}

/// The link's rate for `cfg`: the larger of its line rate and 200 Gb/s, bits/s.
pub fn link_bps(cfg: &DemoConfig) -> u64 {
    u64::from(cfg.line_rate_gbps)
        .saturating_mul(1_000_000_000)
        .max(200_000_000_000)
}

/// The link of `cfg`: [`link_bps`], `cfg.paths` paths 200 ns apart from `cfg.delay_ns`, `cfg.loss_ppm` random
/// loss and, when `cfg.trim_ppm` > 0, random trimming of DATA frames (the endpoint registers' default DSCPs).
pub fn link_config(cfg: &DemoConfig) -> LinkConfig {
    let mut link = LinkConfig::multipath(link_bps(cfg), cfg.paths, cfg.delay_ns, 200);
    link.loss_ppm = cfg.loss_ppm;
    if cfg.trim_ppm > 0 {
        link.trim = Some(TrimConfig {
            random_ppm: cfg.trim_ppm,
            ..TrimConfig::default()
        });
    }
    link
}

/// Runs the demonstration; `progress(done, total, cycle)` is called as messages complete.
pub fn run(
    cfg: &DemoConfig,
    progress: &mut dyn FnMut(usize, usize, u64),
) -> Result<DemoReport, DemoError> {
    let mut at = 0;
    run_at(cfg, progress, &mut at).map_err(|error| DemoError { error, cycle: at })
}

/// The run; `at` follows the cycle of the traffic.
fn run_at(
    cfg: &DemoConfig,
    progress: &mut dyn FnMut(usize, usize, u64),
    at: &mut u64,
) -> Result<DemoReport, BenchError> {
    let ccfg = CoreConfig {
        width: cfg.width,
        ..cosim_config()
    };
    let kind = core_model(&ccfg, cfg.vcd.is_some())?;
    // The speed counts the simulation, not the model's build.
    let t0 = std::time::Instant::now();
    let a = CoreBench::new(&kind, &ccfg, BenchTiming::default(), cfg.seed ^ 0x11)?;
    let b = CoreBench::new(&kind, &ccfg, BenchTiming::default(), cfg.seed ^ 0x22)?;
    let mut p = NicPair::new(a, b, link_config(cfg), PERIOD_PS, cfg.seed);
    if let Some(dir) = &cfg.vcd {
        std::fs::create_dir_all(dir)
            .map_err(|e| BenchError::Setup(format!("{}: {e}", dir.display())))?;
    }
    let mut tracing = false;
    let mut trace = |p: &mut NicPair| -> Result<(), BenchError> {
        if let (Some(dir), false) = (&cfg.vcd, tracing) {
            p.a.m.trace(&dir.join("a.vcd")).map_err(BenchError::Setup)?;
            p.b.m.trace(&dir.join("b.vcd")).map_err(BenchError::Setup)?;
            tracing = true;
        }
        Ok(())
    };
    if cfg.vcd_from == 0 {
        trace(&mut p)?;
    }
    // The line rate before the connections open (their initial window is the BDP, MR-CC-7).
    let rate = metaroce_regmap::endpoint::reg::LINE_RATE;
    let ep_base = host::block_base(metaroce_regmap::block::BlockType::Endpoint);
    p.a.write(ep_base + rate, cfg.line_rate_gbps.saturating_mul(1000))?;
    p.b.write(ep_base + rate, cfg.line_rate_gbps.saturating_mul(1000))?;
    let ack = ack_register(cfg.ack_ratio);
    p.a.write(ep_base + metaroce_regmap::endpoint::reg::ACK, ack)?;
    p.b.write(ep_base + metaroce_regmap::endpoint::reg::ACK, ack)?;
    let (mut qa, mut ca) = host::connect(&mut p.a, &SA, &SB)?;
    let (mut qb, mut cb) = host::connect(&mut p.b, &SB, &SA)?;
    let mut rng = Rng::new(cfg.seed);
    // The messages: sources packed in A's buffer, targets packed in B's (receive buffers for SENDs).
    let weights: u32 = cfg.mix.iter().sum::<u32>().max(1);
    let (mut src, mut dst) = (BUF, BUF);
    let mut msgs = Vec::with_capacity(cfg.messages);
    for _ in 0..cfg.messages {
        let (op, len) = draw(cfg, weights, &mut rng);
        let data: Vec<u8> = (0..len).map(|_| rng.next_u32() as u8).collect();
        // The source is A's buffer, or B's for a READ (A's buffer then stays empty until the response lands).
        if matches!(op, SqOp::Read) {
            p.b.dma.mem.write(dst, &data);
        } else {
            p.a.dma.mem.write(src, &data);
        }
        msgs.push(Msg {
            op,
            src,
            dst,
            len,
            posted: 0,
        });
        // 64-byte aligned, with a gap so that a stray write shows.
        src += (u64::from(len) + 127) & !63;
        dst += (u64::from(len) + 127) & !63;
        if dst + u64::from(cfg.max_bytes) + 128 > BUF + BUF_LEN {
            return Err(BenchError::Setup(
                "the messages do not fit the buffers".into(),
            ));
        }
    }
    // B's receive buffers, one per SEND or WRITE_IMM, posted in message order as the ring allows.
    let recvs: Vec<usize> = msgs
        .iter()
        .enumerate()
        .filter(|(_, m)| matches!(m.op, SqOp::Send | SqOp::WriteImm(_)))
        .map(|(i, _)| i)
        .collect();
    let mut next_recv = 0;
    let mut recv_done = 0;
    let mut inflight: VecDeque<(u16, usize)> = VecDeque::new();
    let mut next = 0;
    let mut report = DemoReport::default();
    let start = p.a.m.cycle();
    p.a.tx.restart_counts();
    p.b.tx.restart_counts();
    let ring = 1usize << RING_LOG;
    while report.messages < msgs.len() {
        // Keep receive buffers posted.
        while next_recv < recvs.len() && next_recv - recv_done < ring {
            let m = &msgs[recvs[next_recv]];
            host::post_recv(
                &mut p.b,
                &mut qb,
                &RqeRepr {
                    wr_id: recvs[next_recv] as u64,
                    addr: m.dst,
                    length: m.len,
                    lkey: SB.key,
                },
            )?;
            next_recv += 1;
        }
        // Keep the window of work requests posted.
        while next < msgs.len() && inflight.len() < cfg.window.clamp(1, ring) {
            let m = &mut msgs[next];
            m.posted = p.a.m.cycle();
            let remote = !matches!(m.op, SqOp::Send);
            let idx = host::post_send(
                &mut p.a,
                &mut qa,
                &SqeRepr {
                    wr_id: next as u64,
                    op: m.op,
                    local_addr: m.src,
                    length: m.len,
                    lkey: SA.key,
                    remote_addr: if remote { m.dst } else { 0 },
                    rkey: if remote { host::rkey_of(SB.key) } else { 0 },
                    solicited: false,
                },
            )?;
            inflight.push_back((idx, next));
            next += 1;
        }
        p.run(64)?;
        *at = p.a.m.cycle() - start;
        if *at >= cfg.vcd_from {
            trace(&mut p)?;
        }
        while let Some(c) = host::poll_cq(&mut p.b, &mut cb)? {
            let i = c.wr_id as usize;
            let ok = c.status == CqeStatus::Success
                && msgs.get(i).is_some_and(|m| match m.op {
                    SqOp::Send => c.opcode == CqeOpcode::Recv && c.byte_len == m.len,
                    SqOp::WriteImm(imm) => {
                        c.opcode == CqeOpcode::RecvWriteImm && c.imm == Some(imm)
                    }
                    _ => false,
                });
            if !ok {
                report.bad_completions += 1;
                report.first_bad.get_or_insert(format!("B: {c:?}"));
            }
            recv_done += 1;
        }
        while let Some(c) = host::poll_cq(&mut p.a, &mut ca)? {
            let Some(&(idx, i)) = inflight.front() else {
                report.bad_completions += 1;
                continue;
            };
            inflight.pop_front();
            let m = &msgs[i];
            let want_op = match m.op {
                SqOp::Send => CqeOpcode::Send,
                SqOp::Read => CqeOpcode::Read,
                _ => CqeOpcode::Write,
            };
            let ok = c.status == CqeStatus::Success
                && c.wr_id == i as u64
                && c.wqe_index == idx
                && c.opcode == want_op;
            if !ok {
                report.bad_completions += 1;
                report.first_bad.get_or_insert(format!(
                    "A: {c:?}, expected wr_id {i}, wqe_index {idx}, {want_op:?}, success"
                ));
            }
            report.messages += 1;
            report.bytes += u64::from(m.len);
            report.latencies.push(p.a.m.cycle() - m.posted);
            progress(report.messages, msgs.len(), p.a.m.cycle() - start);
        }
        if p.a.m.cycle() - start > cfg.max_cycles {
            // The waveforms end here, before the register reads of the report.
            p.a.m.trace_close();
            p.b.m.trace_close();
            let ca = nonzero_counters(&mut p.a)?;
            let cb = nonzero_counters(&mut p.b)?;
            return Err(BenchError::Timeout(format!(
                "{} of {} messages completed in {} cycles (beats waiting to enter A {}, B {}; A DMA {:?}; B DMA {:?}; A counters {ca}; B counters {cb})",
                report.messages,
                msgs.len(),
                cfg.max_cycles,
                p.a.rx.pending(),
                p.b.rx.pending(),
                p.a.dma.stats,
                p.b.dma.stats
            )));
        }
    }
    report.cycles = p.a.m.cycle() - start;
    report.tx_beats = [p.a.tx.beats, p.b.tx.beats];
    report.tx_occupancy = [p.a.tx.occupancy(), p.b.tx.occupancy()];
    // Receive completions still on their way are drained before the data check.
    let drain = p.a.m.cycle();
    while recv_done < recvs.len() && p.a.m.cycle() - drain < 100_000 {
        p.run(64)?;
        while let Some(c) = host::poll_cq(&mut p.b, &mut cb)? {
            report.bad_completions += usize::from(c.status != CqeStatus::Success);
            recv_done += 1;
        }
    }
    report.bad_completions += recvs.len() - recv_done;
    // Both directions: B's target equals A's source (WRITE, WRITE_IMM, SEND), A's target equals B's source (READ).
    for m in &msgs {
        let want = p.a.dma.mem.read(m.src, m.len as usize);
        if p.b.dma.mem.read(m.dst, m.len as usize) != want {
            report.corrupt += 1;
        }
    }
    report.counters = [nonzero_counters(&mut p.a)?, nonzero_counters(&mut p.b)?];
    let ca_counters = read_counters(&mut p.a)?;
    let cb_counters = read_counters(&mut p.b)?;
    let rx_payload = |c: &[u64]| {
        c.get(CounterId::RxPayloadBytes as usize)
            .copied()
            .unwrap_or(0)
    };
    report.rx_payload_bytes = [rx_payload(&ca_counters), rx_payload(&cb_counters)];
    let overflows = |c: &[u64]| c.get(CounterId::RxOverflows as usize).copied().unwrap_or(0);
    report.rx_overflows = [overflows(&ca_counters), overflows(&cb_counters)];
    for m in &msgs {
        report.target_bytes[usize::from(!matches!(m.op, SqOp::Read))] += u64::from(m.len);
    }
    report.data_packets = ca_counters
        .get(CounterId::TxDataPackets as usize)
        .copied()
        .unwrap_or(0);
    // Retransmissions: DATA packets beyond each message's own (MTU-sized segments; an empty message is one
    // packet; a READ is one request packet from A). The core's per-cause retransmission counters are not
    // wired yet (docs/hardware.md).
    let own: u64 = msgs
        .iter()
        .map(|m| match m.op {
            SqOp::Read => 1,
            _ => u64::from(m.len.div_ceil(MTU)).max(1),
        })
        .sum();
    report.retransmissions = report.data_packets.saturating_sub(own);
    report.link_lost = p.ab.stats().dropped() + p.ba.stats().dropped();
    report.wall_s = t0.elapsed().as_secs_f64();
    Ok(report)
}
