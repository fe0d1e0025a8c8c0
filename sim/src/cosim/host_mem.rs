//! Simulated host memory serving the core's DMA interface (`hdl/src/dma.rs`): read descriptors answered in
//! order after a latency, with the data packed from byte 0 of each answer's first beat, `tuser` = tag and
//! `tlast` on each answer's last beat; write descriptors followed by exactly `len` bytes, written to memory
//! and acknowledged by their tag after a latency. Random idle cycles and back-pressure come from the stream
//! agents. Every DMA request is checked: a write whose data does not match its descriptor's length is
//! reported, never silently truncated.

use super::bus::{Beat, Idle, StreamPorts, StreamSink, StreamSource, Violation};
use super::model::{Model, ModelError, ModelKind};
use metaroce_hdl::dma::DmaDesc;
use std::collections::{HashMap, VecDeque};

const PAGE: u64 = 4096;

/// Sparse byte-addressed memory (unwritten bytes read as zero).
#[derive(Debug, Default, Clone)]
pub struct HostMemory {
    pages: HashMap<u64, Box<[u8; PAGE as usize]>>,
}

impl HostMemory {
    /// Reads `len` bytes at `addr`.
    pub fn read(&self, addr: u64, len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(len);
        let mut a = addr;
        while out.len() < len {
            let off = (a % PAGE) as usize;
            let n = (PAGE as usize - off).min(len - out.len());
            match self.pages.get(&(a / PAGE)) {
                Some(p) => out.extend_from_slice(&p[off..off + n]),
                None => out.resize(out.len() + n, 0),
            }
            a = a.wrapping_add(n as u64);
        }
        out
    }

    /// Writes `data` at `addr`.
    pub fn write(&mut self, addr: u64, data: &[u8]) {
        let mut a = addr;
        let mut rest = data;
        while !rest.is_empty() {
            let off = (a % PAGE) as usize;
            let n = (PAGE as usize - off).min(rest.len());
            let p = self
                .pages
                .entry(a / PAGE)
                .or_insert_with(|| Box::new([0; PAGE as usize]));
            p[off..off + n].copy_from_slice(&rest[..n]);
            rest = &rest[n..];
            a = a.wrapping_add(n as u64);
        }
    }

    /// Reads a little-endian `u32`.
    pub fn read_u32(&self, addr: u64) -> u32 {
        let b = self.read(addr, 4);
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
}

/// A DMA descriptor decoded from its record bits (the offsets of `metaroce_hdl::dma::DmaDesc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Desc {
    /// Address.
    pub addr: u64,
    /// Length in bytes.
    pub len: u32,
    /// Tag.
    pub tag: u16,
}

impl Desc {
    fn decode(b: &Beat) -> Desc {
        let d = DmaDesc::default();
        Desc {
            addr: b.field(d.get_my_offset_addr(), d.get_my_width_addr()),
            len: b.field(d.get_my_offset_len(), d.get_my_width_len()) as u32,
            tag: b.field(d.get_my_offset_tag(), d.get_my_width_tag()) as u16,
        }
    }
}

/// Host-memory timing and back-pressure.
#[derive(Debug, Clone, Copy)]
pub struct MemTiming {
    /// Cycles from a read descriptor to its first data beat being offered.
    pub read_latency: u64,
    /// Cycles from a write's last data beat to its done tag.
    pub write_latency: u64,
    /// Idle of the read data and done sources, back-pressure of the descriptor and write data sinks.
    pub idle: Idle,
}

impl Default for MemTiming {
    fn default() -> Self {
        MemTiming {
            read_latency: 100,
            write_latency: 50,
            idle: Idle::NONE,
        }
    }
}

/// The DMA server of one core: host memory behind its read and write channels.
pub struct DmaServer {
    /// The memory.
    pub mem: HostMemory,
    timing: MemTiming,
    rd_desc: StreamSink,
    rd_data: StreamSource,
    wr_desc: StreamSink,
    wr_data: StreamSink,
    wr_done: StreamSource,
    reads: VecDeque<(u64, Desc)>,
    writes: VecDeque<Desc>,
    wr_bytes: Vec<u8>,
    dones: VecDeque<(u64, u16)>,
    width_bytes: usize,
    /// Reads and writes served, and their bytes.
    pub stats: DmaStats,
    /// The first DMA protocol error (a write with more or fewer bytes than its descriptor, ...).
    pub error: Option<Violation>,
    /// The most recent write descriptors (up to [`WRITE_LOG`]), oldest first, for failure reports.
    pub write_log: VecDeque<Desc>,
}

/// Write descriptors kept in [`DmaServer::write_log`].
pub const WRITE_LOG: usize = 64;

/// DMA traffic counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DmaStats {
    /// Read descriptors.
    pub reads: u64,
    /// Bytes read.
    pub read_bytes: u64,
    /// Write descriptors completed.
    pub writes: u64,
    /// Bytes written.
    pub write_bytes: u64,
}

impl DmaServer {
    /// The server of `kind`'s `m_axis_dma_*` / `s_axis_dma_*` ports.
    pub fn new(kind: &ModelKind, timing: MemTiming, seed: u64) -> Result<DmaServer, ModelError> {
        let rd_data = StreamPorts::new(kind, "s_axis_dma_rd")?;
        let width_bytes = rd_data.data_width() / 8;
        Ok(DmaServer {
            mem: HostMemory::default(),
            timing,
            rd_desc: StreamSink::new(
                StreamPorts::new(kind, "m_axis_dma_rd_desc")?,
                "m_axis_dma_rd_desc",
                timing.idle,
                seed ^ 1,
            ),
            rd_data: StreamSource::new(rd_data, timing.idle, seed ^ 2),
            wr_desc: StreamSink::new(
                StreamPorts::new(kind, "m_axis_dma_wr_desc")?,
                "m_axis_dma_wr_desc",
                timing.idle,
                seed ^ 3,
            ),
            wr_data: StreamSink::new(
                StreamPorts::new(kind, "m_axis_dma_wr")?,
                "m_axis_dma_wr",
                timing.idle,
                seed ^ 4,
            ),
            wr_done: StreamSource::new(
                StreamPorts::new(kind, "s_axis_dma_wr_done")?,
                Idle::NONE,
                seed ^ 5,
            ),
            reads: VecDeque::new(),
            writes: VecDeque::new(),
            wr_bytes: Vec::new(),
            dones: VecDeque::new(),
            width_bytes,
            stats: DmaStats::default(),
            error: None,
            write_log: VecDeque::new(),
        })
    }

    /// Sets the inputs for this cycle.
    pub fn drive(&mut self, m: &mut Model) {
        self.rd_desc.drive(m);
        self.rd_data.drive(m);
        self.wr_desc.drive(m);
        self.wr_data.drive(m);
        self.wr_done.drive(m);
    }

    /// Observes this cycle and serves what became due.
    pub fn sample(&mut self, m: &mut Model) {
        let now = m.cycle();
        self.rd_desc.sample(m);
        self.rd_data.sample(m);
        self.wr_desc.sample(m);
        self.wr_data.sample(m);
        self.wr_done.sample(m);
        while let Some(b) = self.rd_desc.got.pop_front() {
            self.reads
                .push_back((now + self.timing.read_latency, Desc::decode(&b)));
        }
        // Answer reads in order, one descriptor's beats queued at a time (when the previous has gone).
        if self.rd_data.pending() == 0 {
            if let Some(&(at, d)) = self.reads.front() {
                if at <= now {
                    self.reads.pop_front();
                    self.serve_read(d);
                }
            }
        }
        while let Some(b) = self.wr_desc.got.pop_front() {
            self.writes.push_back(Desc::decode(&b));
        }
        while let Some(b) = self.wr_data.got.pop_front() {
            let Some(d) = self.writes.front().copied() else {
                self.fail(now, "write data before its descriptor".into());
                continue;
            };
            self.wr_bytes.extend(b.kept_bytes());
            if b.last {
                if self.wr_bytes.len() != d.len as usize {
                    let n = self.wr_bytes.len();
                    self.fail(
                        now,
                        format!(
                            "write of {} bytes at {:#x} carried {n} bytes",
                            d.len, d.addr
                        ),
                    );
                }
                let n = self.wr_bytes.len().min(d.len as usize);
                let data = std::mem::take(&mut self.wr_bytes);
                self.mem.write(d.addr, &data[..n]);
                self.writes.pop_front();
                if self.write_log.len() == WRITE_LOG {
                    self.write_log.pop_front();
                }
                self.write_log.push_back(d);
                self.stats.writes += 1;
                self.stats.write_bytes += n as u64;
                self.dones
                    .push_back((now + self.timing.write_latency, d.tag));
            }
        }
        while let Some(&(at, tag)) = self.dones.front() {
            if at > now {
                break;
            }
            self.dones.pop_front();
            self.wr_done.push(Beat::record(vec![u32::from(tag)]));
        }
    }

    fn serve_read(&mut self, d: Desc) {
        let data = self.mem.read(d.addr, d.len as usize);
        self.stats.reads += 1;
        self.stats.read_bytes += u64::from(d.len);
        let w = self.width_bytes;
        let n = data.len().div_ceil(w).max(1);
        for i in 0..n {
            let chunk = &data[(i * w).min(data.len())..((i + 1) * w).min(data.len())];
            let mut words = vec![0u32; w / 4];
            for (k, b) in chunk.iter().enumerate() {
                words[k / 4] |= u32::from(*b) << (8 * (k % 4));
            }
            let keep = if chunk.len() >= 128 {
                u128::MAX
            } else {
                (1u128 << chunk.len()) - 1
            };
            self.rd_data.push(Beat {
                data: words,
                keep,
                last: i + 1 == n,
                user: u64::from(d.tag),
            });
        }
    }

    fn fail(&mut self, cycle: u64, what: String) {
        if self.error.is_none() {
            self.error = Some(Violation {
                stream: "dma".into(),
                cycle,
                what,
            });
        }
    }

    /// The first violation of the DMA streams' handshakes or of the DMA protocol.
    pub fn violation(&self) -> Option<&Violation> {
        self.error
            .as_ref()
            .or(self.rd_desc.violation.as_ref())
            .or(self.wr_desc.violation.as_ref())
            .or(self.wr_data.violation.as_ref())
    }

    /// Nothing in flight.
    pub fn idle(&self) -> bool {
        self.reads.is_empty()
            && self.writes.is_empty()
            && self.dones.is_empty()
            && self.rd_data.pending() == 0
            && self.wr_done.pending() == 0
    }
}
