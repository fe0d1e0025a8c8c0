//! Cycle-level testbench agents for a [`Model`]: the AXI-Lite register master, AXI-Stream sources and sinks
//! with random idle and back-pressure cycles, and the monitor every sink runs.
//!
//! Every agent works in two phases per clock cycle: `drive` sets the model's inputs from the agent's state,
//! then (after the testbench's `eval`) `sample` reads the outputs and records the transfers that happen at
//! the coming rising edge (valid and ready both high). The testbench then steps the clock.
//!
//! The sink's monitor fails the run on any handshake violation of the source it watches: `tvalid` dropped
//! before `tready`, or `tdata`, `tkeep`, `tlast` or `tuser` changing while stalled, and, for byte streams,
//! `tkeep` not all ones before the last beat or not contiguous from byte 0 on the last beat.

use super::model::{Model, ModelError, ModelKind, PortId};
use metaroce_proto::harness::rng::Rng;
use std::collections::VecDeque;
use std::fmt;

/// A handshake violation seen by a monitor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The stream (port prefix).
    pub stream: String,
    /// Clock cycle.
    pub cycle: u64,
    /// What happened.
    pub what: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at cycle {}: {}", self.stream, self.cycle, self.what)
    }
}

impl std::error::Error for Violation {}

/// One beat of a stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Beat {
    /// `tdata`, 32-bit words, least significant first.
    pub data: Vec<u32>,
    /// `tkeep` (byte streams; all ones otherwise).
    pub keep: u128,
    /// `tlast` (false where the stream has none).
    pub last: bool,
    /// `tuser` (0 where the stream has none).
    pub user: u64,
}

impl Beat {
    /// A record beat (no keep, last or user).
    pub fn record(data: Vec<u32>) -> Beat {
        Beat {
            data,
            keep: u128::MAX,
            last: false,
            user: 0,
        }
    }

    /// The `tdata` bytes (byte 0 from bits 7:0), as many as `keep`'s low contiguous ones.
    pub fn kept_bytes(&self) -> Vec<u8> {
        let n = self.keep.trailing_ones() as usize;
        self.data
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .take(n)
            .collect()
    }

    /// A field of `tdata`: `width` bits from bit `offset` (up to 64 bits).
    pub fn field(&self, offset: usize, width: usize) -> u64 {
        bits(&self.data, offset, width)
    }
}

/// `width` bits (at most 64) of `words` from bit `offset`.
pub fn bits(words: &[u32], offset: usize, width: usize) -> u64 {
    let mut v = 0u64;
    for i in 0..width.min(64) {
        let b = offset + i;
        if words.get(b / 32).is_some_and(|w| (w >> (b % 32)) & 1 == 1) {
            v |= 1 << i;
        }
    }
    v
}

/// Writes `width` bits (at most 64) of `v` into `words` at bit `offset` (growing `words` as needed).
pub fn set_bits(words: &mut Vec<u32>, offset: usize, width: usize, v: u64) {
    for i in 0..width.min(64) {
        let b = offset + i;
        if words.len() <= b / 32 {
            words.resize(b / 32 + 1, 0);
        }
        let m = 1u32 << (b % 32);
        if (v >> i) & 1 == 1 {
            words[b / 32] |= m;
        } else {
            words[b / 32] &= !m;
        }
    }
}

/// The ports of one stream `<prefix>_tdata`, `_tvalid`, `_tready` and, where the module has them, `_tkeep`,
/// `_tlast`, `_tuser`.
#[derive(Debug, Clone, Copy)]
pub struct StreamPorts {
    data: PortId,
    keep: Option<PortId>,
    last: Option<PortId>,
    user: Option<PortId>,
    valid: PortId,
    /// `None` for a stream without back-pressure (every valid beat transfers).
    ready: Option<PortId>,
}

impl StreamPorts {
    /// The stream of `kind` with port prefix `prefix` (e.g. `m_axis_tx`).
    pub fn new(kind: &ModelKind, prefix: &str) -> Result<StreamPorts, ModelError> {
        let p = |s: &str| kind.port(&format!("{prefix}_{s}"));
        Ok(StreamPorts {
            data: p("tdata")?,
            keep: p("tkeep").ok(),
            last: p("tlast").ok(),
            user: p("tuser").ok(),
            valid: p("tvalid")?,
            ready: p("tready").ok(),
        })
    }

    /// `tdata` width in bits.
    pub fn data_width(&self) -> usize {
        self.data.width()
    }
}

/// How often an agent idles: a probability in parts per 65,536 of not offering (source) or not accepting
/// (sink) in a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Idle(pub u32);

impl Idle {
    /// Never idle.
    pub const NONE: Idle = Idle(0);

    /// Idle with probability `pct` percent.
    pub fn percent(pct: u32) -> Idle {
        Idle(pct.min(100) * 65_536 / 100)
    }

    fn now(&self, rng: &mut Rng) -> bool {
        self.0 > 0 && (rng.next_u32() & 0xFFFF) < self.0
    }
}

/// Drives a stream into the model: beats from a queue, with random idle cycles between them.
pub struct StreamSource {
    ports: StreamPorts,
    queue: VecDeque<Beat>,
    cur: Option<Beat>,
    idle: Idle,
    rng: Rng,
    /// Beats transferred.
    pub beats: u64,
    /// Cycles a beat was offered and not taken (the model's back-pressure).
    pub stalls: u64,
}

impl StreamSource {
    /// A source on `ports`.
    pub fn new(ports: StreamPorts, idle: Idle, seed: u64) -> StreamSource {
        StreamSource {
            ports,
            queue: VecDeque::new(),
            cur: None,
            idle,
            rng: Rng::new(seed),
            beats: 0,
            stalls: 0,
        }
    }

    /// Queues a beat.
    pub fn push(&mut self, b: Beat) {
        self.queue.push_back(b);
    }

    /// Queues a frame as beats of the stream's width (byte 0 in bits 7:0, `tlast` on the final beat).
    pub fn push_frame(&mut self, bytes: &[u8], user: u64) {
        let w = self.ports.data.width() / 8;
        let n = bytes.len().div_ceil(w).max(1);
        for i in 0..n {
            let chunk = &bytes[(i * w).min(bytes.len())..((i + 1) * w).min(bytes.len())];
            let mut data = vec![0u32; w / 4];
            for (k, b) in chunk.iter().enumerate() {
                data[k / 4] |= u32::from(*b) << (8 * (k % 4));
            }
            let keep = if chunk.len() >= 128 {
                u128::MAX
            } else {
                (1u128 << chunk.len()) - 1
            };
            self.push(Beat {
                data,
                keep,
                last: i + 1 == n,
                user,
            });
        }
    }

    /// Beats not yet transferred.
    pub fn pending(&self) -> usize {
        self.queue.len() + usize::from(self.cur.is_some())
    }

    /// Sets the inputs for this cycle.
    pub fn drive(&mut self, m: &mut Model) {
        if self.cur.is_none() && !self.queue.is_empty() && !self.idle.now(&mut self.rng) {
            self.cur = self.queue.pop_front();
            if let Some(b) = &self.cur {
                m.set_words(self.ports.data, &b.data);
                if let Some(k) = self.ports.keep {
                    m.set_words(
                        k,
                        &[
                            b.keep as u32,
                            (b.keep >> 32) as u32,
                            (b.keep >> 64) as u32,
                            (b.keep >> 96) as u32,
                        ],
                    );
                }
                if let Some(l) = self.ports.last {
                    m.set_bit(l, b.last);
                }
                if let Some(u) = self.ports.user {
                    m.set(u, b.user);
                }
            }
        }
        m.set_bit(self.ports.valid, self.cur.is_some());
    }

    /// Records the transfer of this cycle.
    pub fn sample(&mut self, m: &mut Model) {
        if self.cur.is_some() {
            if self.ports.ready.is_none_or(|r| m.get_bit(r)) {
                self.cur = None;
                self.beats += 1;
            } else {
                self.stalls += 1;
            }
        }
    }
}

/// Takes a stream out of the model with random back-pressure, and monitors its handshake.
pub struct StreamSink {
    ports: StreamPorts,
    name: String,
    idle: Idle,
    rng: Rng,
    ready: bool,
    /// Whether `tkeep` must be all ones before the last beat and contiguous on it (byte streams).
    check_keep: bool,
    stalled: Option<Beat>,
    /// Beats taken, oldest first.
    pub got: VecDeque<Beat>,
    /// The first handshake violation seen.
    pub violation: Option<Violation>,
    /// Beats transferred.
    pub beats: u64,
    /// Cycles of the first and the last transfer (`None` before the first).
    pub span: Option<(u64, u64)>,
    words: Vec<u32>,
}

impl StreamSink {
    /// A sink on `ports` (`name` in violation reports), not ready with probability `idle`.
    pub fn new(ports: StreamPorts, name: &str, idle: Idle, seed: u64) -> StreamSink {
        StreamSink {
            check_keep: ports.keep.is_some(),
            ports,
            name: name.to_string(),
            idle,
            rng: Rng::new(seed),
            ready: false,
            stalled: None,
            got: VecDeque::new(),
            violation: None,
            beats: 0,
            span: None,
            words: Vec::new(),
        }
    }

    /// Changes the back-pressure.
    pub fn set_idle(&mut self, idle: Idle) {
        self.idle = idle;
    }

    /// Starts counting `beats` and `span` anew.
    pub fn restart_counts(&mut self) {
        self.beats = 0;
        self.span = None;
    }

    /// Share of the cycles from the first to the last transfer that carried a beat (0 before two transfers).
    pub fn occupancy(&self) -> f64 {
        match self.span {
            Some((f, l)) if l > f => self.beats as f64 / (l - f + 1) as f64,
            _ => 0.0,
        }
    }

    /// Sets `tready` for this cycle.
    pub fn drive(&mut self, m: &mut Model) {
        match self.ports.ready {
            Some(r) => {
                self.ready = !self.idle.now(&mut self.rng);
                m.set_bit(r, self.ready);
            }
            None => self.ready = true,
        }
    }

    fn read(&mut self, m: &mut Model) -> Beat {
        m.get_words(self.ports.data, &mut self.words);
        let keep = match self.ports.keep {
            Some(k) => {
                let mut w = Vec::new();
                m.get_words(k, &mut w);
                w.iter()
                    .enumerate()
                    .fold(0u128, |a, (i, x)| a | (u128::from(*x) << (32 * i)))
            }
            None => u128::MAX,
        };
        Beat {
            data: self.words.clone(),
            keep,
            last: self.ports.last.is_some_and(|l| m.get_bit(l)),
            user: self.ports.user.map_or(0, |u| m.get(u)),
        }
    }

    fn fail(&mut self, cycle: u64, what: String) {
        if self.violation.is_none() {
            self.violation = Some(Violation {
                stream: self.name.clone(),
                cycle,
                what,
            });
        }
    }

    /// Observes this cycle: a transfer when valid and ready; the monitor's checks.
    pub fn sample(&mut self, m: &mut Model) {
        let cycle = m.cycle();
        if !m.get_bit(self.ports.valid) {
            if self.stalled.take().is_some() {
                self.fail(cycle, "tvalid dropped before tready".into());
            }
            return;
        }
        let beat = self.read(m);
        if let Some(s) = self.stalled.take() {
            if s != beat {
                let what = if s.data != beat.data {
                    "tdata"
                } else if s.keep != beat.keep {
                    "tkeep"
                } else if s.last != beat.last {
                    "tlast"
                } else {
                    "tuser"
                };
                self.fail(cycle, format!("{what} changed while stalled"));
            }
        }
        if self.check_keep {
            let bytes = self.ports.data.width() / 8;
            let all = if bytes >= 128 {
                u128::MAX
            } else {
                (1u128 << bytes) - 1
            };
            if !beat.last && beat.keep != all {
                self.fail(
                    cycle,
                    format!("tkeep {:#x} before the last beat", beat.keep),
                );
            } else if beat.last && (beat.keep == 0 || beat.keep & (beat.keep + 1) != 0) {
                self.fail(
                    cycle,
                    format!("non-contiguous tkeep {:#x} on the last beat", beat.keep),
                );
            }
        }
        if self.ready {
            self.beats += 1;
            self.span = Some((self.span.map_or(cycle, |(f, _)| f), cycle));
            self.got.push_back(beat);
        } else {
            self.stalled = Some(beat);
        }
    }

    /// Takes the oldest complete frame (beats up to one with `tlast`): its kept bytes and the last beat's
    /// `tuser`.
    pub fn pop_frame(&mut self) -> Option<(Vec<u8>, u64)> {
        let end = self.got.iter().position(|b| b.last)?;
        let mut bytes = Vec::new();
        let mut user = 0;
        for b in self.got.drain(..=end) {
            bytes.extend(b.kept_bytes());
            user = b.user;
        }
        Some((bytes, user))
    }
}

/// The ports of an AXI4-Lite slave `s_axil_*`.
#[derive(Debug, Clone, Copy)]
struct AxilPorts {
    awaddr: PortId,
    awvalid: PortId,
    awready: PortId,
    wdata: PortId,
    wstrb: PortId,
    wvalid: PortId,
    wready: PortId,
    bresp: PortId,
    bvalid: PortId,
    bready: PortId,
    araddr: PortId,
    arvalid: PortId,
    arready: PortId,
    rdata: PortId,
    rresp: PortId,
    rvalid: PortId,
    rready: PortId,
}

/// A register access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AxilOp {
    /// Write `data` at byte address `addr`.
    Write(u32, u32),
    /// Read byte address `addr`.
    Read(u32),
}

/// A finished register access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AxilDone {
    /// The access.
    pub op: AxilOp,
    /// Read data (0 for writes).
    pub data: u32,
    /// `bresp` / `rresp` (0 OKAY, 2 SLVERR).
    pub resp: u8,
}

/// An AXI4-Lite master issuing queued accesses one at a time (the address and data of a write together).
pub struct AxilMaster {
    p: AxilPorts,
    queue: VecDeque<AxilOp>,
    aw: bool,
    w: bool,
    issued: bool,
    /// Finished accesses, oldest first.
    pub done: VecDeque<AxilDone>,
    /// The first protocol violation of the slave (a response before its request was taken).
    pub violation: Option<Violation>,
}

impl AxilMaster {
    /// The master of `kind`'s `s_axil_*` port.
    pub fn new(kind: &ModelKind) -> Result<AxilMaster, ModelError> {
        let p = |s: &str| kind.port(&format!("s_axil_{s}"));
        Ok(AxilMaster {
            p: AxilPorts {
                awaddr: p("awaddr")?,
                awvalid: p("awvalid")?,
                awready: p("awready")?,
                wdata: p("wdata")?,
                wstrb: p("wstrb")?,
                wvalid: p("wvalid")?,
                wready: p("wready")?,
                bresp: p("bresp")?,
                bvalid: p("bvalid")?,
                bready: p("bready")?,
                araddr: p("araddr")?,
                arvalid: p("arvalid")?,
                arready: p("arready")?,
                rdata: p("rdata")?,
                rresp: p("rresp")?,
                rvalid: p("rvalid")?,
                rready: p("rready")?,
            },
            queue: VecDeque::new(),
            aw: false,
            w: false,
            issued: false,
            done: VecDeque::new(),
            violation: None,
        })
    }

    /// Queues an access.
    pub fn push(&mut self, op: AxilOp) {
        self.queue.push_back(op);
    }

    /// Accesses queued or in flight.
    pub fn busy(&self) -> bool {
        !self.queue.is_empty()
    }

    /// Sets the inputs for this cycle.
    pub fn drive(&mut self, m: &mut Model) {
        let p = self.p;
        let (mut awv, mut wv, mut arv) = (false, false, false);
        match self.queue.front() {
            Some(AxilOp::Write(a, d)) => {
                awv = !self.aw;
                wv = !self.w;
                m.set(p.awaddr, u64::from(*a));
                m.set(p.wdata, u64::from(*d));
                m.set(p.wstrb, 0xF);
            }
            Some(AxilOp::Read(a)) => {
                arv = !self.issued;
                m.set(p.araddr, u64::from(*a));
            }
            None => {}
        }
        m.set_bit(p.awvalid, awv);
        m.set_bit(p.wvalid, wv);
        m.set_bit(p.arvalid, arv);
        m.set_bit(p.bready, true);
        m.set_bit(p.rready, true);
    }

    /// Observes this cycle.
    pub fn sample(&mut self, m: &mut Model) {
        let p = self.p;
        let early = |this: &mut AxilMaster, what: &str, cycle: u64| {
            if this.violation.is_none() {
                this.violation = Some(Violation {
                    stream: "s_axil".into(),
                    cycle,
                    what: what.into(),
                });
            }
        };
        let Some(op) = self.queue.front().copied() else {
            if m.get_bit(p.bvalid) || m.get_bit(p.rvalid) {
                early(self, "a response without a request", m.cycle());
            }
            return;
        };
        match op {
            AxilOp::Write(..) => {
                let bvalid = m.get_bit(p.bvalid);
                let b = self.aw && self.w && bvalid;
                if bvalid && !b {
                    early(self, "bvalid before the write was taken", m.cycle());
                }
                if !self.aw && m.get_bit(p.awready) {
                    self.aw = true;
                }
                if !self.w && m.get_bit(p.wready) {
                    self.w = true;
                }
                if b {
                    let resp = m.get(p.bresp) as u8;
                    self.finish(AxilDone { op, data: 0, resp });
                }
            }
            AxilOp::Read(_) => {
                let rvalid = m.get_bit(p.rvalid);
                let r = self.issued && rvalid;
                if rvalid && !r {
                    early(self, "rvalid before the read was taken", m.cycle());
                }
                if !self.issued && m.get_bit(p.arready) {
                    self.issued = true;
                }
                if r {
                    let data = m.get(p.rdata) as u32;
                    let resp = m.get(p.rresp) as u8;
                    self.finish(AxilDone { op, data, resp });
                }
            }
        }
    }

    fn finish(&mut self, d: AxilDone) {
        self.queue.pop_front();
        self.aw = false;
        self.w = false;
        self.issued = false;
        self.done.push_back(d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_fields_round_trip_across_words() {
        let mut w = Vec::new();
        set_bits(&mut w, 30, 40, 0xAB_CDEF_1234);
        assert_eq!(bits(&w, 30, 40), 0xAB_CDEF_1234);
        assert_eq!(bits(&w, 0, 30), 0);
        set_bits(&mut w, 31, 2, 0);
        assert_eq!(bits(&w, 30, 40), 0xAB_CDEF_1234 & !0b110);
    }

    #[test]
    fn kept_bytes_stop_at_the_keep() {
        let b = Beat {
            data: vec![0x4433_2211, 0x8877_6655],
            keep: 0b111,
            last: true,
            user: 0,
        };
        assert_eq!(b.kept_bytes(), vec![0x11, 0x22, 0x33]);
    }
}
