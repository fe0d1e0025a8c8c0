//! Packet capture of chosen host pairs: frames are recorded when the source NIC starts sending them and when
//! the destination NIC receives them. Without `verify_data` only headers exist, so records are headers-only
//! (captured length below the original length, which pcap readers show as "frame truncated").

use crate::config::{ConfigError, HostId, PcapSpec};
use metaroce_proto::pcap::PcapWriter;
use std::fs::File;
use std::io::BufWriter;

/// An open capture.
#[derive(Debug)]
pub struct Capture {
    writer: PcapWriter<BufWriter<File>>,
    pairs: Vec<(HostId, HostId)>,
    max: u64,
    error: Option<String>,
}

impl Capture {
    /// Creates the capture file.
    pub fn open(spec: &PcapSpec) -> Result<Capture, ConfigError> {
        let e = |r: String| ConfigError {
            field: "output.pcap.path".into(),
            reason: r,
        };
        if let Some(dir) = spec.path.parent() {
            if !dir.as_os_str().is_empty() {
                std::fs::create_dir_all(dir).map_err(|x| e(format!("{}: {x}", dir.display())))?;
            }
        }
        let f = File::create(&spec.path).map_err(|x| e(format!("{}: {x}", spec.path.display())))?;
        let writer = PcapWriter::new(BufWriter::new(f)).map_err(|x| e(x.to_string()))?;
        let mut pairs: Vec<(HostId, HostId)> = spec
            .pairs
            .iter()
            .flat_map(|&(a, b)| [(a, b), (b, a)])
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        Ok(Capture {
            writer,
            pairs,
            max: spec.max_packets,
            error: None,
        })
    }

    /// Whether packets from `src` to `dst` are captured.
    pub fn wants(&self, src: HostId, dst: HostId) -> bool {
        self.writer.packets() < self.max && self.pairs.binary_search(&(src, dst)).is_ok()
    }

    /// Records one frame: `data` are the bytes known (whole frame or headers), `orig_len` its wire length.
    pub fn record(&mut self, t_ns: u64, data: &[u8], orig_len: usize) {
        if self.writer.packets() >= self.max || self.error.is_some() {
            return;
        }
        let orig = u32::try_from(orig_len).unwrap_or(u32::MAX);
        let data = data.get(..orig_len.min(data.len())).unwrap_or(data);
        if let Err(x) = self.writer.write_record(t_ns, data, orig) {
            self.error = Some(x.to_string());
        }
    }

    /// Packets written.
    pub fn packets(&self) -> u64 {
        self.writer.packets()
    }

    /// Flushes the file; returns the first write error, if any.
    pub fn finish(&mut self) -> Result<(), String> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.writer.flush().map_err(|e| e.to_string())
    }
}
