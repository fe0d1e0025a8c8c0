//! CRC-32 (IEEE 802.3) and the two integrity checks built on it: the MetaRoCE ICV (MR-WIRE-ICV) and the RoCEv2
//! ICRC.
//!
//! The CRC is the reflected polynomial 0xEDB88320 with initial value 0xFFFFFFFF and final xor 0xFFFFFFFF (the
//! Ethernet FCS function). It is table-driven, slicing-by-8, with the eight 256-entry tables built at compile time,
//! so it needs no allocation and no initialisation; inputs of 512 bytes and more run four slicing-by-8 chains
//! interleaved and join them by linearity.

use super::{bytes, Error, Result};

/// The reflected CRC-32 polynomial.
pub const POLY: u32 = 0xEDB8_8320;

const fn build_tables() -> [[u32; 256]; 8] {
    let mut t = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { (c >> 1) ^ POLY } else { c >> 1 };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut s = 1;
    while s < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = t[s - 1][i];
            t[s][i] = (prev >> 8) ^ t[0][(prev & 0xFF) as usize];
            i += 1;
        }
        s += 1;
    }
    t
}

/// Slicing-by-8 tables: `TABLES[0]` is the classic byte table, `TABLES[k][b]` advances `b` by `k` more zero bytes.
static TABLES: [[u32; 256]; 8] = build_tables();

/// Length of each of the four interleaved blocks of [`update_raw`].
const BLK: usize = 128;

/// Advances a raw CRC register over `n` zero bytes with the byte table (compile-time helper).
const fn advance_zeros(mut crc: u32, n: usize, t0: &[u32; 256]) -> u32 {
    let mut i = 0;
    while i < n {
        crc = t0[(crc & 0xFF) as usize] ^ (crc >> 8);
        i += 1;
    }
    crc
}

/// Tables of the linear map "advance a raw register over `BLK` zero bytes": `SHIFT[j][b]` is the image of the
/// register `b << 8j`, so the image of any register is the xor of four lookups.
const fn build_shift_tables() -> [[u32; 256]; 4] {
    let t0 = build_tables()[0];
    let mut s = [[0u32; 256]; 4];
    let mut j = 0;
    while j < 4 {
        let mut b = 0;
        while b < 256 {
            s[j][b] = advance_zeros((b as u32) << (8 * j), BLK, &t0);
            b += 1;
        }
        j += 1;
    }
    s
}

/// See [`build_shift_tables`].
static SHIFT: [[u32; 256]; 4] = build_shift_tables();

/// The raw register `crc` advanced over `BLK` zero bytes.
#[inline(always)]
fn shift_blk(crc: u32) -> u32 {
    let s = &SHIFT;
    s[0][(crc & 0xFF) as usize]
        ^ s[1][((crc >> 8) & 0xFF) as usize]
        ^ s[2][((crc >> 16) & 0xFF) as usize]
        ^ s[3][(crc >> 24) as usize]
}

/// One slicing-by-8 step over an 8-byte chunk.
#[inline(always)]
fn step8(crc: u32, c: &[u8]) -> u32 {
    let t = &TABLES;
    let [b0, b1, b2, b3, b4, b5, b6, b7] = bytes::get::<8>(c, 0);
    let lo = u32::from_le_bytes([b0, b1, b2, b3]) ^ crc;
    let hi = u32::from_le_bytes([b4, b5, b6, b7]);
    t[7][(lo & 0xFF) as usize]
        ^ t[6][((lo >> 8) & 0xFF) as usize]
        ^ t[5][((lo >> 16) & 0xFF) as usize]
        ^ t[4][(lo >> 24) as usize]
        ^ t[3][(hi & 0xFF) as usize]
        ^ t[2][((hi >> 8) & 0xFF) as usize]
        ^ t[1][((hi >> 16) & 0xFF) as usize]
        ^ t[0][(hi >> 24) as usize]
}

/// Plain slicing-by-8 over `data`.
#[inline]
fn slice8(mut crc: u32, data: &[u8]) -> u32 {
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        crc = step8(crc, c);
    }
    for &b in chunks.remainder() {
        crc = TABLES[0][((crc ^ b as u32) & 0xFF) as usize] ^ (crc >> 8);
    }
    crc
}

/// Advances a raw (not inverted) CRC register over `data`. Every table index is masked to 0..=255, so the
/// lookups cannot go out of bounds.
///
/// Long inputs go in groups of four `BLK`-byte blocks whose slicing-by-8 chains run interleaved (they are
/// independent, so the processor overlaps their table loads), then are joined by linearity:
/// `R(crc, A B C D) = shift(shift(shift(R(crc, A)) ^ R(0, B)) ^ R(0, C)) ^ R(0, D)`, `shift` being [`shift_blk`].
#[inline]
fn update_raw(mut crc: u32, data: &[u8]) -> u32 {
    let mut groups = data.chunks_exact(4 * BLK);
    for g in &mut groups {
        let (mut a, mut b, mut c, mut d) = (crc, 0u32, 0u32, 0u32);
        let blocks = (
            bytes::slice(g, 0, BLK).chunks_exact(8),
            bytes::slice(g, BLK, 2 * BLK).chunks_exact(8),
            bytes::slice(g, 2 * BLK, 3 * BLK).chunks_exact(8),
            bytes::slice(g, 3 * BLK, 4 * BLK).chunks_exact(8),
        );
        for (((x, y), z), w) in blocks.0.zip(blocks.1).zip(blocks.2).zip(blocks.3) {
            a = step8(a, x);
            b = step8(b, y);
            c = step8(c, z);
            d = step8(d, w);
        }
        crc = shift_blk(shift_blk(shift_blk(a) ^ b) ^ c) ^ d;
    }
    slice8(crc, groups.remainder())
}

/// An incremental CRC-32 (IEEE 802.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Crc32 {
    state: u32,
}

impl Default for Crc32 {
    fn default() -> Self {
        Self::new()
    }
}

impl Crc32 {
    /// A fresh CRC (register 0xFFFFFFFF).
    #[inline]
    pub const fn new() -> Self {
        Self { state: 0xFFFF_FFFF }
    }

    /// Feeds bytes.
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        self.state = update_raw(self.state, data);
    }

    /// Feeds `n` bytes of value `b` without a buffer.
    #[inline]
    pub fn update_repeat(&mut self, b: u8, n: usize) {
        let block = [b; 8];
        let mut left = n;
        while left >= 8 {
            self.update(&block);
            left -= 8;
        }
        self.update(bytes::slice(&block, 0, left));
    }

    /// The CRC of everything fed so far (final xor applied); the state is not consumed.
    #[inline]
    pub const fn finish(&self) -> u32 {
        self.state ^ 0xFFFF_FFFF
    }
}

/// CRC-32 (IEEE 802.3) of `data`. `crc32(b"123456789") == 0xCBF43926`.
#[inline]
pub fn crc32(data: &[u8]) -> u32 {
    update_raw(0xFFFF_FFFF, data) ^ 0xFFFF_FFFF
}

/// Feeds the IP header at the start of `ip` with its variant fields set to all ones, then the UDP header with its
/// checksum set to all ones. Returns the offset (from the start of `ip`) of the UDP payload.
#[inline]
fn feed_masked_ip_udp(c: &mut Crc32, ip: &[u8]) -> Result<usize> {
    let version = bytes::u8_at(ip, 0) >> 4;
    let ip_len = match version {
        4 => {
            let ihl = (bytes::u8_at(ip, 0) & 0x0F) as usize * 4;
            if ihl < 20 {
                return Err(Error::Malformed);
            }
            let mut h: [u8; 20] = bytes::get(ip, 0);
            if ip.len() < ihl + 8 {
                return Err(Error::Truncated);
            }
            h[1] = 0xFF; // DSCP/ECN
            h[8] = 0xFF; // TTL
            h[10] = 0xFF; // header checksum
            h[11] = 0xFF;
            c.update(&h);
            c.update(bytes::slice(ip, 20, ihl)); // options (never sent by MetaRoCE)
            ihl
        }
        6 => {
            if ip.len() < 48 {
                return Err(Error::Truncated);
            }
            let mut h: [u8; 40] = bytes::get(ip, 0);
            h[0] |= 0x0F; // traffic class (high nibble)
            h[1] = 0xFF; // traffic class (low nibble), flow label
            h[2] = 0xFF;
            h[3] = 0xFF;
            h[7] = 0xFF; // hop limit
            c.update(&h);
            40
        }
        _ => return Err(Error::BadVersion),
    };
    let mut u: [u8; 8] = bytes::get(ip, ip_len);
    u[6] = 0xFF; // UDP checksum
    u[7] = 0xFF;
    c.update(&u);
    Ok(ip_len + 8)
}

/// MetaRoCE ICV (MR-WIRE-ICV) of an IP datagram: `ip` starts at the IP header, `end` is the offset (from the
/// start of `ip`) where the ICV goes, i.e. the end of the payload. Covers the masked IP header, the masked UDP
/// header and the UDP payload up to `end`.
pub fn metaroce_icv(ip: &[u8], end: usize) -> Result<u32> {
    let mut c = Crc32::new();
    let start = feed_masked_ip_udp(&mut c, ip)?;
    let rest = ip.get(start..end).ok_or(Error::Truncated)?;
    c.update(rest);
    Ok(c.finish())
}

/// RoCEv2 ICRC (MR-ROCE-10) of an IP datagram: `ip` starts at the IP header, `end` is the offset where the ICRC goes (after the
/// payload and its pad). Covers 8 bytes of 0xFF (the masked LRH), the masked IP and UDP headers, the BTH with its
/// byte 4 (FECN, BECN, reserved) set to 0xFF, and the rest up to `end`. The value is the plain CRC-32; it goes on
/// the wire least-significant byte first (see [`super::roce_packet`]).
pub fn roce_icrc(ip: &[u8], end: usize) -> Result<u32> {
    let mut c = Crc32::new();
    c.update(&[0xFF; 8]);
    let start = feed_masked_ip_udp(&mut c, ip)?;
    let mut bth: [u8; 12] = bytes::get(ip, start);
    if ip.len() < start + 12 || end < start + 12 {
        return Err(Error::Truncated);
    }
    bth[4] = 0xFF;
    c.update(&bth);
    let rest = ip.get(start + 12..end).ok_or(Error::Truncated)?;
    c.update(rest);
    Ok(c.finish())
}

/// Offset of the IP header in an Ethernet frame: 14, or 18 with an 802.1Q tag.
#[inline]
fn ip_offset(frame: &[u8]) -> usize {
    super::EthernetFrame::new_unchecked(frame).header_len()
}

/// MetaRoCE ICV (MR-WIRE-ICV) of a whole Ethernet frame: `end` is the offset from the start of the frame where
/// the ICV goes (the end of the payload). Equivalent to [`metaroce_icv`] on the IP datagram.
pub fn icv(frame: &[u8], end: usize) -> Result<u32> {
    let off = ip_offset(frame);
    let ip = frame.get(off..).ok_or(Error::Truncated)?;
    metaroce_icv(ip, end.checked_sub(off).ok_or(Error::Truncated)?)
}

/// RoCEv2 ICRC of a whole Ethernet frame: `end` is the offset from the start of the frame where the ICRC goes.
/// Equivalent to [`roce_icrc`] on the IP datagram.
pub fn icrc(frame: &[u8], end: usize) -> Result<u32> {
    let off = ip_offset(frame);
    let ip = frame.get(off..).ok_or(Error::Truncated)?;
    roce_icrc(ip, end.checked_sub(off).ok_or(Error::Truncated)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bitwise reference implementation.
    fn crc32_bitwise(data: &[u8]) -> u32 {
        let mut c = 0xFFFF_FFFFu32;
        for &b in data {
            c ^= b as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 { (c >> 1) ^ POLY } else { c >> 1 };
            }
        }
        !c
    }

    #[test]
    fn check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"a"), 0xE8B7_BE43);
    }

    #[test]
    fn slicing_matches_bitwise_all_lengths_and_splits() {
        let data: alloc::vec::Vec<u8> = (0..300u32)
            .map(|i| (i.wrapping_mul(131) ^ (i >> 3)) as u8)
            .collect();
        for n in 0..data.len() {
            let want = crc32_bitwise(&data[..n]);
            assert_eq!(crc32(&data[..n]), want, "len {n}");
            let split = n / 3;
            let mut c = Crc32::new();
            c.update(&data[..split]);
            c.update(&data[split..n]);
            assert_eq!(c.finish(), want, "split {split}/{n}");
        }
    }

    #[test]
    fn shift_table_is_zero_advance() {
        for i in 0..1000u32 {
            let v = i.wrapping_mul(0x9E37_79B9) ^ (i << 7);
            assert_eq!(shift_blk(v), slice8(v, &[0u8; BLK]), "v {v:#x}");
        }
    }

    #[test]
    fn interleaved_matches_bitwise_long_inputs() {
        let data: alloc::vec::Vec<u8> = (0..3000u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        for n in (0..data.len())
            .step_by(7)
            .chain([511, 512, 513, 1023, 1024, 1025, 2999])
        {
            let want = crc32_bitwise(&data[..n]);
            assert_eq!(crc32(&data[..n]), want, "len {n}");
            for split in [1, 100, 512, n / 2] {
                let split = split.min(n);
                let mut c = Crc32::new();
                c.update(&data[..split]);
                c.update(&data[split..n]);
                assert_eq!(c.finish(), want, "split {split}/{n}");
            }
        }
        assert_eq!(crc32(&[0xFFu8; 4096]), crc32_bitwise(&[0xFFu8; 4096]));
    }

    #[test]
    fn update_repeat_matches() {
        for n in 0..20 {
            let mut c = Crc32::new();
            c.update_repeat(0xFF, n);
            assert_eq!(c.finish(), crc32(&alloc::vec![0xFFu8; n]));
        }
    }

    #[test]
    fn frame_helpers_skip_ethernet() {
        let mut f = alloc::vec![0u8; 18 + 48 + 4];
        f[12] = 0x81;
        f[18] = 0x60;
        assert_eq!(icv(&f, 18 + 48 + 4), metaroce_icv(&f[18..], 48 + 4));
        assert!(icv(&f, 18 + 48).is_ok());
        assert_eq!(icv(&f, 10), Err(Error::Truncated));
        assert_eq!(icrc(&f, 18 + 60), roce_icrc(&f[18..], 60));
        assert_eq!(icv(&f[..5], 70), Err(Error::Truncated));
    }

    #[test]
    fn icv_rejects_short_and_bad_version() {
        assert_eq!(metaroce_icv(&[0x45; 10], 10), Err(Error::Truncated));
        assert_eq!(metaroce_icv(&[0x15; 60], 60), Err(Error::BadVersion));
        assert_eq!(metaroce_icv(&[0x45; 40], 100), Err(Error::Truncated));
        assert_eq!(roce_icrc(&[0x45; 30], 30), Err(Error::Truncated));
    }
}
