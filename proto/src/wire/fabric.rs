//! Frame operations of a switch in the fabric, defined once for the test harness and the fabric simulator:
//! locating the IP and UDP headers, the ECMP hash of the 5-tuple (so the UDP source port, MetaRoCE's entropy
//! value, steers the path: MR-ENC-17), ECN CE marking (MR-ENC-22), and payload trimming with the DSCP re-mark
//! and length fixes a trimming switch performs (MR-ENC-28, MR-ENC-33).
//!
//! Every function reads and writes through checked accesses only: a frame too short for an operation is left
//! unchanged (the function reports it), never a panic. The functions work on a prefix of a frame too (the
//! headers only, as the simulator keeps them), with the frame's real length passed separately where it matters.

use super::ipv4;

/// Ethernet header length without a VLAN tag.
const ETH_LEN: usize = 14;
/// 802.1Q tag length.
const VLAN_LEN: usize = 4;
/// UDP header length.
pub const UDP_LEN: usize = 8;
/// Smallest UDP payload a trim keeps: the MetaRoCE base header (MR-ENC trimming).
pub const MIN_TRIM_KEEP: usize = 16;
/// UDP payload bytes a trim keeps by default: a trimmed untagged IPv4 frame is 64 bytes (MR-ENC trimming).
pub const DEFAULT_TRIM_KEEP: usize = 22;

/// Where the headers of an IP/UDP frame lie, and the fields switches act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameInfo {
    /// Offset of the IP header (14, or 18 behind one 802.1Q tag).
    pub ip_off: usize,
    /// IPv6 (else IPv4).
    pub v6: bool,
    /// IP header length (IPv4: IHL * 4; IPv6: 40).
    pub ip_hdr_len: usize,
    /// Offset of the UDP header.
    pub udp_off: usize,
    /// DSCP.
    pub dscp: u8,
    /// ECN codepoint.
    pub ecn: u8,
    /// UDP source port.
    pub udp_src: u16,
    /// UDP destination port.
    pub udp_dst: u16,
}

impl FrameInfo {
    /// Offset and length of the source + destination addresses in the frame.
    fn addrs(&self) -> (usize, usize) {
        if self.v6 {
            (self.ip_off + 8, 32)
        } else {
            (self.ip_off + 12, 8)
        }
    }
}

fn be16(b: &[u8], off: usize) -> Option<u16> {
    let s = b.get(off..off.checked_add(2)?)?;
    Some(u16::from_be_bytes([s[0], s[1]]))
}

fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

/// The splitmix64 finalizer (one step from `state`).
fn mix64(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Locates the IP and UDP headers of an Ethernet frame (at most one 802.1Q tag; IPv4 or IPv6). `None` if the
/// frame is not IP/UDP or too short for its headers.
pub fn parse_info(frame: &[u8]) -> Option<FrameInfo> {
    let mut ethertype = be16(frame, 12)?;
    let mut ip_off = ETH_LEN;
    if ethertype == 0x8100 {
        ethertype = be16(frame, 16)?;
        ip_off = ETH_LEN + VLAN_LEN;
    }
    let (v6, ip_hdr_len, proto, tc) = match ethertype {
        0x0800 => {
            let vihl = *frame.get(ip_off)?;
            let ihl = usize::from(vihl & 0x0F) * 4;
            if vihl >> 4 != 4 || ihl < 20 {
                return None;
            }
            (false, ihl, *frame.get(ip_off + 9)?, *frame.get(ip_off + 1)?)
        }
        0x86DD => {
            let b0 = *frame.get(ip_off)?;
            let b1 = *frame.get(ip_off + 1)?;
            (true, 40, *frame.get(ip_off + 6)?, (b0 << 4) | (b1 >> 4))
        }
        _ => return None,
    };
    if proto != 17 {
        return None;
    }
    let udp_off = ip_off + ip_hdr_len;
    let info = FrameInfo {
        ip_off,
        v6,
        ip_hdr_len,
        udp_off,
        dscp: tc >> 2,
        ecn: tc & 3,
        udp_src: be16(frame, udp_off)?,
        udp_dst: be16(frame, udp_off + 2)?,
    };
    let (a, n) = info.addrs();
    frame.get(a..a + n)?;
    Some(info)
}

/// ECMP hash of the frame's 5-tuple (IP addresses, protocol 17, UDP ports) with a per-switch `salt`: FNV-1a
/// over the fields, then a splitmix64 avalanche so that neighbouring source ports spread over the paths.
/// `info` must come from [`parse_info`] on the same bytes (else the addresses read as absent and hash as empty).
pub fn ecmp_hash(frame: &[u8], info: &FrameInfo, salt: u64) -> u64 {
    let (a, n) = info.addrs();
    let addrs = frame.get(a..a + n).unwrap_or(&[]);
    let mut h = fnv1a(0xCBF2_9CE4_8422_2325 ^ salt, addrs);
    h = fnv1a(h, &[17]);
    h = fnv1a(h, &info.udp_src.to_be_bytes());
    h = fnv1a(h, &info.udp_dst.to_be_bytes());
    mix64(h)
}

/// Rewrites the IPv4 header checksum (nothing for IPv6 or a frame shorter than its IP header).
pub fn fix_ipv4_checksum(frame: &mut [u8], info: &FrameInfo) {
    let end = info.ip_off + info.ip_hdr_len;
    if info.v6 {
        return;
    }
    let Some(hdr) = frame.get_mut(info.ip_off..end) else {
        return;
    };
    hdr[10] = 0;
    hdr[11] = 0;
    let c = ipv4::checksum(hdr);
    hdr[10..12].copy_from_slice(&c.to_be_bytes());
}

/// Writes DSCP and ECN into the IP header and fixes the IPv4 checksum. Returns false (frame untouched) if the
/// frame is shorter than its IP header.
pub fn set_tos(frame: &mut [u8], info: &FrameInfo, dscp: u8, ecn: u8) -> bool {
    let tc = (dscp << 2) | (ecn & 3);
    if frame.len() < info.ip_off + info.ip_hdr_len {
        return false;
    }
    if info.v6 {
        frame[info.ip_off] = (frame[info.ip_off] & 0xF0) | (tc >> 4);
        frame[info.ip_off + 1] = (frame[info.ip_off + 1] & 0x0F) | (tc << 4);
    } else {
        frame[info.ip_off + 1] = tc;
        fix_ipv4_checksum(frame, info);
    }
    true
}

/// Marks an ECN-capable frame CE (MR-ENC-22). Returns false (untouched) for a Not-ECT frame or one too short.
pub fn mark_ce(frame: &mut [u8], info: &mut FrameInfo) -> bool {
    if info.ecn == 0 {
        return false;
    }
    if set_tos(frame, info, info.dscp, super::ECN_CE) {
        info.ecn = super::ECN_CE;
        true
    } else {
        false
    }
}

/// Cuts the UDP payload of a frame of `frame_len` bytes to `keep` bytes (at least [`MIN_TRIM_KEEP`]), fixing
/// the IP and UDP lengths, the DSCP (set to `dscp_trim`, ECN kept) and the IPv4 checksum (MR-ENC trimming).
/// `frame` holds at least the IP and UDP headers (it may be only a prefix of the frame). Returns the new frame
/// length, or `None` (frame untouched) when the frame is too short to trim or its headers are missing. The
/// caller drops the bytes beyond the returned length.
pub fn trim_frame(
    frame: &mut [u8],
    frame_len: usize,
    info: &mut FrameInfo,
    keep: usize,
    dscp_trim: u8,
) -> Option<usize> {
    let keep = keep.max(MIN_TRIM_KEEP);
    let new_len = info.udp_off + UDP_LEN + keep;
    if frame_len <= new_len || frame.len() < info.udp_off + UDP_LEN {
        return None;
    }
    let udp_len = u16::try_from(UDP_LEN + keep).ok()?;
    frame[info.udp_off + 4..info.udp_off + 6].copy_from_slice(&udp_len.to_be_bytes());
    if info.v6 {
        frame[info.ip_off + 4..info.ip_off + 6].copy_from_slice(&udp_len.to_be_bytes());
    } else {
        let total = u16::try_from(info.ip_hdr_len + UDP_LEN + keep).ok()?;
        frame[info.ip_off + 2..info.ip_off + 4].copy_from_slice(&total.to_be_bytes());
    }
    set_tos(frame, info, dscp_trim, info.ecn);
    info.dscp = dscp_trim;
    Some(new_len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;

    fn frame(v6: bool, vlan: bool, payload: usize) -> Vec<u8> {
        let mut f = vec![0u8; 12];
        if vlan {
            f.extend_from_slice(&[0x81, 0x00, 0x00, 0x05]);
        }
        let ip_hdr = if v6 { 40 } else { 20 };
        f.extend_from_slice(if v6 { &[0x86, 0xDD] } else { &[0x08, 0x00] });
        let ip = f.len();
        f.resize(ip + ip_hdr + UDP_LEN + payload, 0);
        if v6 {
            f[ip] = 0x60 | (26 >> 2);
            f[ip + 1] = ((26 << 2 | 2) & 0x0F) << 4;
            f[ip + 4..ip + 6].copy_from_slice(&((UDP_LEN + payload) as u16).to_be_bytes());
            f[ip + 6] = 17;
        } else {
            f[ip] = 0x45;
            f[ip + 1] = 26 << 2 | 2;
            f[ip + 2..ip + 4].copy_from_slice(&((20 + UDP_LEN + payload) as u16).to_be_bytes());
            f[ip + 9] = 17;
            f[ip + 12..ip + 20].copy_from_slice(&[10, 0, 0, 1, 10, 0, 0, 2]);
        }
        let u = ip + ip_hdr;
        f[u..u + 2].copy_from_slice(&0xC123u16.to_be_bytes());
        f[u + 2..u + 4].copy_from_slice(&4792u16.to_be_bytes());
        f[u + 4..u + 6].copy_from_slice(&((UDP_LEN + payload) as u16).to_be_bytes());
        let info = parse_info(&f).unwrap();
        fix_ipv4_checksum(&mut f, &info);
        f
    }

    #[test]
    fn mr_enc_trimming_fixes_lengths_dscp_and_checksum_on_a_header_prefix() {
        for (v6, vlan) in [(false, false), (false, true), (true, false), (true, true)] {
            let f = frame(v6, vlan, 1000);
            let mut info = parse_info(&f).unwrap();
            assert_eq!((info.v6, info.dscp, info.ecn), (v6, 26, 2));
            // Only the first 100 bytes are kept by the caller (headers-only frame).
            let mut hdr = f[..100].to_vec();
            let n = trim_frame(&mut hdr, f.len(), &mut info, DEFAULT_TRIM_KEEP, 10).unwrap();
            assert_eq!(n, info.udp_off + UDP_LEN + DEFAULT_TRIM_KEEP);
            let again = parse_info(&hdr).unwrap();
            assert_eq!((again.dscp, again.ecn), (10, 2), "DSCP re-marked, ECN kept");
            assert_eq!(be16(&hdr, info.udp_off + 4), Some((UDP_LEN + 22) as u16));
            if !v6 {
                assert_eq!(n, if vlan { 68 } else { 64 });
                assert_eq!(ipv4::checksum(&hdr[info.ip_off..info.ip_off + 20]), 0);
            }
            // Too short to trim again.
            assert_eq!(trim_frame(&mut hdr, n, &mut info, 22, 10), None);
        }
    }

    #[test]
    fn mr_enc_22_ce_marking_only_for_ect_frames() {
        let mut f = frame(false, false, 10);
        let mut info = parse_info(&f).unwrap();
        assert!(mark_ce(&mut f, &mut info));
        assert_eq!(parse_info(&f).unwrap().ecn, 3);
        assert_eq!(ipv4::checksum(&f[14..34]), 0);
        let mut f = frame(false, false, 10);
        let mut info = parse_info(&f).unwrap();
        info.ecn = 0;
        set_tos(&mut f, &info, 26, 0);
        assert!(!mark_ce(&mut f, &mut info));
    }

    #[test]
    fn mr_enc_17_hash_follows_the_source_port_and_the_salt() {
        let f = frame(false, false, 10);
        let info = parse_info(&f).unwrap();
        let h = ecmp_hash(&f, &info, 1);
        assert_eq!(h, ecmp_hash(&f, &info, 1));
        assert_ne!(h, ecmp_hash(&f, &info, 2));
        let mut g = f.clone();
        g[34] ^= 1;
        let gi = parse_info(&g).unwrap();
        assert_ne!(h, ecmp_hash(&g, &gi, 1));
    }

    #[test]
    fn garbage_and_short_frames_do_not_panic() {
        let f = frame(true, true, 10);
        for n in 0..f.len() {
            if let Some(mut i) = parse_info(&f[..n]) {
                let mut b = f[..n].to_vec();
                let _ = ecmp_hash(&b, &i, 0);
                let _ = mark_ce(&mut b, &mut i);
                let _ = trim_frame(&mut b, 10_000, &mut i, 22, 10);
            }
        }
        let mut b = vec![0xFFu8; 3];
        let mut i = parse_info(&frame(false, false, 0)).unwrap();
        assert!(!set_tos(&mut b, &i, 1, 1));
        assert!(!mark_ce(&mut b, &mut i));
        assert_eq!(trim_frame(&mut b, 1000, &mut i, 22, 10), None);
    }
}
