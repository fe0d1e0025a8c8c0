//! Minimal classic-pcap writer and reader (feature `std`), for captures that Wireshark/tshark, scapy and
//! tcpdump open directly.
//!
//! The writer produces pcap 2.4 with nanosecond timestamps (magic `0xA1B23C4D`, written little-endian) and
//! link type 1 (Ethernet, frames without FCS). The reader accepts both the nanosecond and the microsecond
//! magic in either byte order, and never panics on malformed input.

use std::fmt;
use std::io::{self, Write};
use std::vec::Vec;

/// Magic number of nanosecond-resolution pcap files.
pub const MAGIC_NS: u32 = 0xA1B2_3C4D;
/// Magic number of microsecond-resolution pcap files.
pub const MAGIC_US: u32 = 0xA1B2_C3D4;
/// Link type of Ethernet II frames (LINKTYPE_ETHERNET).
pub const LINKTYPE_ETHERNET: u32 = 1;
/// Snapshot length the writer declares and truncates to, bytes.
pub const DEFAULT_SNAPLEN: u32 = 262_144;
/// Length of the pcap global header, bytes.
pub const GLOBAL_HEADER_LEN: usize = 24;
/// Length of a per-packet record header, bytes.
pub const RECORD_HEADER_LEN: usize = 16;

const NS_PER_SEC: u64 = 1_000_000_000;

/// Writes a pcap stream: the global header on creation, then one record per [`PcapWriter::write_packet`].
#[derive(Debug)]
pub struct PcapWriter<W: Write> {
    out: W,
    snaplen: u32,
    packets: u64,
}

impl<W: Write> PcapWriter<W> {
    /// Starts a nanosecond-resolution Ethernet capture on `out` (writes the global header).
    pub fn new(out: W) -> io::Result<Self> {
        Self::with_linktype(out, LINKTYPE_ETHERNET)
    }

    /// Starts a nanosecond-resolution capture with another link type.
    pub fn with_linktype(mut out: W, linktype: u32) -> io::Result<Self> {
        let mut h = [0u8; GLOBAL_HEADER_LEN];
        h[0..4].copy_from_slice(&MAGIC_NS.to_le_bytes());
        h[4..6].copy_from_slice(&2u16.to_le_bytes());
        h[6..8].copy_from_slice(&4u16.to_le_bytes());
        // thiszone (8..12) and sigfigs (12..16) stay 0.
        h[16..20].copy_from_slice(&DEFAULT_SNAPLEN.to_le_bytes());
        h[20..24].copy_from_slice(&linktype.to_le_bytes());
        out.write_all(&h)?;
        Ok(PcapWriter {
            out,
            snaplen: DEFAULT_SNAPLEN,
            packets: 0,
        })
    }

    /// Appends one frame captured at `ts_ns` (ns since the epoch of the capture). Frames longer than the
    /// snapshot length are truncated (the record keeps the original length). Fails with `InvalidInput` if the
    /// frame is longer than 4 GiB or the time does not fit pcap's 32-bit seconds.
    pub fn write_packet(&mut self, ts_ns: u64, frame: &[u8]) -> io::Result<()> {
        let orig = u32::try_from(frame.len())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "frame longer than 4 GiB"))?;
        self.write_record(ts_ns, frame, orig)
    }

    /// Appends a record of a frame of `orig_len` bytes on the wire of which only `data` was captured (a
    /// headers-only capture: the record's captured length is `data.len()`, at most the snapshot length).
    /// Fails with `InvalidInput` if `data` is longer than `orig_len` or the time does not fit pcap's seconds.
    pub fn write_record(&mut self, ts_ns: u64, data: &[u8], orig_len: u32) -> io::Result<()> {
        let sec = u32::try_from(ts_ns / NS_PER_SEC).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "timestamp beyond pcap's 32-bit seconds",
            )
        })?;
        // < 1e9, always fits.
        let nsec = (ts_ns % NS_PER_SEC) as u32;
        let orig = orig_len;
        let frame = data;
        let have = u32::try_from(frame.len()).unwrap_or(u32::MAX);
        if have > orig {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "captured bytes longer than the frame",
            ));
        }
        let incl = have.min(self.snaplen);
        let mut h = [0u8; RECORD_HEADER_LEN];
        h[0..4].copy_from_slice(&sec.to_le_bytes());
        h[4..8].copy_from_slice(&nsec.to_le_bytes());
        h[8..12].copy_from_slice(&incl.to_le_bytes());
        h[12..16].copy_from_slice(&orig.to_le_bytes());
        self.out.write_all(&h)?;
        self.out
            .write_all(frame.get(..incl as usize).unwrap_or(frame))?;
        self.packets += 1;
        Ok(())
    }

    /// Packets written so far.
    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// Flushes and returns the underlying writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Why a pcap stream could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PcapError {
    /// Shorter than the global header, or a record header / record body is cut off.
    Truncated,
    /// The first four bytes are no pcap magic number.
    BadMagic,
    /// A record claims more captured bytes than the snapshot length or its original length.
    BadRecord,
}

impl fmt::Display for PcapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PcapError::Truncated => "pcap data truncated",
            PcapError::BadMagic => "not a pcap file (bad magic)",
            PcapError::BadRecord => "pcap record length inconsistent",
        })
    }
}

impl std::error::Error for PcapError {}

/// The global header of a pcap stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PcapHeader {
    /// `true` for nanosecond timestamps, `false` for microseconds.
    pub nanosecond: bool,
    /// `true` if the file was written big-endian.
    pub big_endian: bool,
    /// Format version (major, minor), normally (2, 4).
    pub version: (u16, u16),
    /// Snapshot length, bytes.
    pub snaplen: u32,
    /// Link type (1 = Ethernet).
    pub linktype: u32,
}

/// One captured packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PcapPacket {
    /// Capture time in ns (microsecond files are scaled up).
    pub ts_ns: u64,
    /// Length of the frame on the wire, bytes.
    pub orig_len: u32,
    /// The captured bytes (at most the snapshot length).
    pub data: Vec<u8>,
}

fn u16_at(b: &[u8], off: usize, be: bool) -> Result<u16, PcapError> {
    let s: [u8; 2] = b
        .get(off..off + 2)
        .and_then(|s| s.try_into().ok())
        .ok_or(PcapError::Truncated)?;
    Ok(if be {
        u16::from_be_bytes(s)
    } else {
        u16::from_le_bytes(s)
    })
}

fn u32_at(b: &[u8], off: usize, be: bool) -> Result<u32, PcapError> {
    let s: [u8; 4] = b
        .get(off..off + 4)
        .and_then(|s| s.try_into().ok())
        .ok_or(PcapError::Truncated)?;
    Ok(if be {
        u32::from_be_bytes(s)
    } else {
        u32::from_le_bytes(s)
    })
}

/// Parses a whole pcap stream held in memory.
pub fn read_pcap(bytes: &[u8]) -> Result<(PcapHeader, Vec<PcapPacket>), PcapError> {
    let magic_le = u32_at(bytes, 0, false)?;
    let (nanosecond, big_endian) = match magic_le {
        MAGIC_NS => (true, false),
        MAGIC_US => (false, false),
        m if m.swap_bytes() == MAGIC_NS => (true, true),
        m if m.swap_bytes() == MAGIC_US => (false, true),
        _ => return Err(PcapError::BadMagic),
    };
    let be = big_endian;
    let header = PcapHeader {
        nanosecond,
        big_endian,
        version: (u16_at(bytes, 4, be)?, u16_at(bytes, 6, be)?),
        snaplen: u32_at(bytes, 16, be)?,
        linktype: u32_at(bytes, 20, be)?,
    };
    let mut packets = Vec::new();
    let mut off = GLOBAL_HEADER_LEN;
    while off < bytes.len() {
        let sec = u64::from(u32_at(bytes, off, be)?);
        let frac = u64::from(u32_at(bytes, off + 4, be)?);
        let incl = u32_at(bytes, off + 8, be)?;
        let orig_len = u32_at(bytes, off + 12, be)?;
        if incl > orig_len || incl > header.snaplen.max(DEFAULT_SNAPLEN) {
            return Err(PcapError::BadRecord);
        }
        let start = off + RECORD_HEADER_LEN;
        let end = start
            .checked_add(incl as usize)
            .ok_or(PcapError::Truncated)?;
        let data = bytes.get(start..end).ok_or(PcapError::Truncated)?.to_vec();
        let ts_ns = sec * NS_PER_SEC + if nanosecond { frac } else { frac * 1000 };
        packets.push(PcapPacket {
            ts_ns,
            orig_len,
            data,
        });
        off = end;
    }
    Ok((header, packets))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_nanosecond_ethernet() {
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        w.write_packet(1_500_000_123, &[1, 2, 3]).unwrap();
        w.write_packet(2_000_000_000, &[]).unwrap();
        assert_eq!(w.packets(), 2);
        let bytes = w.into_inner().unwrap();
        assert_eq!(&bytes[0..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(bytes.len(), 24 + 16 + 3 + 16);
        let (h, p) = read_pcap(&bytes).unwrap();
        assert!(h.nanosecond && !h.big_endian);
        assert_eq!(
            (h.version, h.linktype, h.snaplen),
            ((2, 4), 1, DEFAULT_SNAPLEN)
        );
        assert_eq!(p.len(), 2);
        assert_eq!(
            (p[0].ts_ns, p[0].orig_len, p[0].data.as_slice()),
            (1_500_000_123, 3, &[1u8, 2, 3][..])
        );
        assert_eq!(
            (p[1].ts_ns, p[1].orig_len, p[1].data.len()),
            (2_000_000_000, 0, 0)
        );
    }

    #[test]
    fn reads_big_endian_microsecond_files() {
        let mut b = Vec::new();
        b.extend_from_slice(&MAGIC_US.to_be_bytes());
        b.extend_from_slice(&2u16.to_be_bytes());
        b.extend_from_slice(&4u16.to_be_bytes());
        b.extend_from_slice(&[0; 8]);
        b.extend_from_slice(&65535u32.to_be_bytes());
        b.extend_from_slice(&1u32.to_be_bytes());
        for v in [7u32, 250, 2, 60] {
            b.extend_from_slice(&v.to_be_bytes());
        }
        b.extend_from_slice(&[0xaa, 0xbb]);
        let (h, p) = read_pcap(&b).unwrap();
        assert!(!h.nanosecond && h.big_endian);
        assert_eq!(p[0].ts_ns, 7_000_250_000);
        assert_eq!(p[0].orig_len, 60);
        assert_eq!(p[0].data, [0xaa, 0xbb]);
    }

    #[test]
    fn malformed_input_is_an_error_not_a_panic() {
        assert_eq!(read_pcap(&[]), Err(PcapError::Truncated));
        assert_eq!(read_pcap(&[0u8; 24]), Err(PcapError::BadMagic));
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        w.write_packet(0, &[9; 40]).unwrap();
        let bytes = w.into_inner().unwrap();
        for cut in 0..bytes.len() {
            assert!(read_pcap(&bytes[..cut]).is_err() || cut == 24, "cut {cut}");
        }
        let mut bad = bytes.clone();
        bad[24 + 8] = 41; // incl_len > orig_len
        assert_eq!(read_pcap(&bad), Err(PcapError::BadRecord));
        let mut huge = bytes;
        huge[24 + 8..24 + 16].copy_from_slice(&[0xff; 8]);
        assert_eq!(read_pcap(&huge), Err(PcapError::BadRecord));
    }

    #[test]
    fn headers_only_records_keep_the_wire_length() {
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        w.write_record(5, &[1, 2, 3, 4], 4200).unwrap();
        assert!(w.write_record(5, &[1, 2, 3], 2).is_err());
        let (_, p) = read_pcap(&w.into_inner().unwrap()).unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!(
            (p[0].orig_len, p[0].data.as_slice()),
            (4200, &[1u8, 2, 3, 4][..])
        );
    }

    #[test]
    fn writer_rejects_unrepresentable_times_and_truncates_to_snaplen() {
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        assert!(w.write_packet(u64::MAX, &[0]).is_err());
        let big = std::vec![0x5a; DEFAULT_SNAPLEN as usize + 10];
        w.write_packet(0, &big).unwrap();
        let (_, p) = read_pcap(&w.into_inner().unwrap()).unwrap();
        assert_eq!(p[0].data.len(), DEFAULT_SNAPLEN as usize);
        assert_eq!(p[0].orig_len, DEFAULT_SNAPLEN + 10);
    }
}
