//! Whole RoCEv2 frames for the baseline: Ethernet / IPv4 or IPv6 / UDP (port 4791) / BTH / optional RETH /
//! optional AETH / optional ImmDt / payload / pad / ICRC (spec 9; spec 9, MR-ROCE-1, -6, -10, -11).
//!
//! ICRC byte order: the value is the CRC-32 of [`crc::roce_icrc`] and goes on the wire least-significant byte
//! first, as the Linux soft-RoCE driver stores it (a native little-endian `u32`).

use super::crc;
use super::packet::{parse_l2l3, L2L3Parsed, L2L3};
use super::roce::{
    aeth_field, imm_field, reth_field, Aeth, AethRepr, Bth, BthRepr, Reth, RethRepr,
};
use super::{bytes, udp, Error, Result, ROCE_UDP_PORT};

/// Length of the ICRC.
pub const ICRC_LEN: usize = 4;

/// The transport headers of a RoCEv2 packet. Which extension headers are present follows from `bth.opcode`
/// ([`super::RoceOpcode::has_reth`] etc.): `parse` sets exactly those, `emit` writes exactly those (a missing
/// value is written as zeros, an extra one is ignored). A CNP's 16 reserved bytes are its payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RoceRepr {
    /// Base transport header. On emit `pad_cnt` is derived from the payload length.
    pub bth: BthRepr,
    /// RDMA extended transport header.
    pub reth: Option<RethRepr>,
    /// ACK extended transport header.
    pub aeth: Option<AethRepr>,
    /// Immediate data.
    pub imm: Option<u32>,
}

impl RoceRepr {
    /// Length of BTH + extension headers.
    #[inline]
    pub const fn header_len(&self) -> usize {
        super::roce::field::HEADER_LEN + self.bth.opcode.ext_len()
    }

    /// Writes the transport headers at the start of `out` with the given pad count.
    #[inline]
    fn emit(&self, pad_cnt: u8, out: &mut [u8]) {
        let mut bth = self.bth;
        bth.pad_cnt = pad_cnt;
        let mut off = super::roce::field::HEADER_LEN;
        bth.emit(&mut Bth::new_unchecked(bytes::slice_mut(out, 0, off)));
        let op = self.bth.opcode;
        if op.has_reth() {
            let end = off + reth_field::HEADER_LEN;
            self.reth
                .unwrap_or_default()
                .emit(&mut Reth::new_unchecked(bytes::slice_mut(out, off, end)));
            off = end;
        }
        if op.has_aeth() {
            let end = off + aeth_field::HEADER_LEN;
            self.aeth
                .unwrap_or_default()
                .emit(&mut Aeth::new_unchecked(bytes::slice_mut(out, off, end)));
            off = end;
        }
        if op.has_imm() {
            bytes::set_u32(out, off + imm_field::IMM.start, self.imm.unwrap_or(0));
        }
    }

    /// Parses the transport headers at the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Self> {
        let bth = BthRepr::parse(&Bth::new_checked(buf)?)?;
        let op = bth.opcode;
        let mut off = super::roce::field::HEADER_LEN;
        let mut r = RoceRepr {
            bth,
            reth: None,
            aeth: None,
            imm: None,
        };
        if op.has_reth() {
            r.reth = Some(RethRepr::parse(&Reth::new_checked(bytes::slice(
                buf,
                off,
                buf.len(),
            ))?)?);
            off += reth_field::HEADER_LEN;
        }
        if op.has_aeth() {
            r.aeth = Some(AethRepr::parse(&Aeth::new_checked(bytes::slice(
                buf,
                off,
                buf.len(),
            ))?)?);
            off += aeth_field::HEADER_LEN;
        }
        if op.has_imm() {
            if buf.len() < off + imm_field::HEADER_LEN {
                return Err(Error::Truncated);
            }
            r.imm = Some(bytes::u32_at(buf, off));
        }
        Ok(r)
    }
}

/// Pad bytes that bring `payload_len` to a multiple of 4.
#[inline]
pub const fn pad_len(payload_len: usize) -> usize {
    (4 - payload_len % 4) % 4
}

/// Total frame length of a RoCEv2 packet.
#[inline]
pub const fn roce_frame_len(l: &L2L3, r: &RoceRepr, payload_len: usize) -> usize {
    l.header_len() + r.header_len() + payload_len + pad_len(payload_len) + ICRC_LEN
}

/// Writes Ethernet..extension headers for a packet with `payload_len` payload bytes; returns the header length.
/// `l.udp_dst` is written as given (normally [`ROCE_UDP_PORT`]). Does not allocate.
pub fn emit_roce_headers(
    l: &L2L3,
    r: &RoceRepr,
    payload_len: usize,
    out: &mut [u8],
) -> Result<usize> {
    let l_len = l.header_len();
    let hdr_len = l_len + r.header_len();
    let pad = pad_len(payload_len);
    if payload_len > u16::MAX as usize {
        return Err(Error::BadLength);
    }
    let udp_payload = r.header_len() + payload_len + pad + ICRC_LEN;
    if udp_payload + udp::field::HEADER_LEN + l.ip.header_len() > u16::MAX as usize {
        return Err(Error::BadLength);
    }
    let out = out.get_mut(..hdr_len).ok_or(Error::Truncated)?;
    l.emit_l2l3(udp_payload, out);
    r.emit(pad as u8, bytes::slice_mut(out, l_len, hdr_len));
    Ok(hdr_len)
}

/// After the payload has been written at `frame[hdr_len..hdr_len + payload_len]`, writes the zero pad and the ICRC
/// (least-significant byte first); returns the frame length.
pub fn finish_icrc(frame: &mut [u8], hdr_len: usize, payload_len: usize) -> Result<usize> {
    let end = hdr_len.checked_add(payload_len).ok_or(Error::BadLength)?;
    let padded = end
        .checked_add(pad_len(payload_len))
        .ok_or(Error::BadLength)?;
    let total = padded.checked_add(ICRC_LEN).ok_or(Error::BadLength)?;
    if frame.len() < total {
        return Err(Error::Truncated);
    }
    bytes::slice_mut(frame, end, padded).fill(0);
    let ip_off = super::packet::ip_offset(frame);
    let ip = frame.get(ip_off..).ok_or(Error::Truncated)?;
    let icrc = crc::roce_icrc(ip, padded.checked_sub(ip_off).ok_or(Error::BadLength)?)?;
    bytes::put(frame, padded, icrc.to_le_bytes());
    Ok(total)
}

/// Writes a whole RoCEv2 frame into `out` (cleared first). Leaves `out` empty on error.
pub fn emit_roce_frame(
    l: &L2L3,
    r: &RoceRepr,
    payload: &[u8],
    out: &mut alloc::vec::Vec<u8>,
) -> Result<()> {
    super::packet::emit_whole(
        out,
        payload,
        |n| roce_frame_len(l, r, n),
        |buf, n| emit_roce_headers(l, r, n, buf),
        finish_icrc,
    )
}

/// A parsed RoCEv2 frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParsedRoceFrame<'a> {
    /// Layers 2-4.
    pub l: L2L3,
    /// Transport headers (as on the wire, including `bth.pad_cnt`).
    pub r: RoceRepr,
    /// The payload without pad.
    pub payload: &'a [u8],
    /// True if the ICRC matched, or verification was skipped.
    pub icrc_ok: bool,
}

/// Parses a RoCEv2 frame (UDP destination port 4791). Never panics. Layers 2-4 are checked as for MetaRoCE
/// ([`super::parse_frame`]: the UDP length must equal the IP-derived datagram length and all of it must be
/// present, MR-ROCE-4); an opcode the baseline does not use parses as [`super::RoceOpcode::Other`] with no
/// extension headers; a datagram with no room for the headers, pad and ICRC is `BadLength`. An ICRC mismatch is
/// not an error: `icrc_ok` is false (the receiver drops the packet, MR-ROCE-12).
pub fn parse_roce_frame(frame: &[u8], verify_icrc: bool) -> Result<ParsedRoceFrame<'_>> {
    let L2L3Parsed {
        l,
        ip_off,
        udp_off,
        udp_len,
    } = parse_l2l3(frame, ROCE_UDP_PORT)?;
    let tp = bytes::slice(frame, udp_off + udp::field::HEADER_LEN, udp_off + udp_len);
    let r = RoceRepr::parse(tp)?;
    let hl = r.header_len();
    let pad = r.bth.pad_cnt as usize;
    let body_end = tp.len().checked_sub(ICRC_LEN).ok_or(Error::BadLength)?;
    let payload_end = body_end.checked_sub(pad).ok_or(Error::BadLength)?;
    if payload_end < hl {
        return Err(Error::BadLength);
    }
    let payload = bytes::slice(tp, hl, payload_end);
    let icrc_ok = if verify_icrc {
        let stored = u32::from_le_bytes(bytes::get(tp, body_end));
        let ip = bytes::slice(frame, ip_off, frame.len());
        let end = udp_off + udp::field::HEADER_LEN + body_end - ip_off;
        matches!(crc::roce_icrc(ip, end), Ok(c) if c == stored)
    } else {
        true
    };
    Ok(ParsedRoceFrame {
        l,
        r,
        payload,
        icrc_ok,
    })
}

#[cfg(test)]
mod tests {
    use super::super::packet::IpRepr;
    use super::super::RoceOpcode;
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn roundtrip_with_pad() {
        let l = L2L3 {
            eth_src: [2, 0, 0, 0, 0, 1],
            eth_dst: [2, 0, 0, 0, 0, 2],
            vlan: None,
            ip: IpRepr::V4 {
                src: [10, 0, 0, 1],
                dst: [10, 0, 0, 2],
                dscp: 26,
                ecn: 2,
                ttl: 64,
            },
            udp_src: 0xC000,
            udp_dst: ROCE_UDP_PORT,
        };
        let r = RoceRepr {
            bth: BthRepr {
                opcode: RoceOpcode::WriteOnlyImm,
                se: false,
                mig_req: true,
                pad_cnt: 3,
                tver: 0,
                pkey: 0xFFFF,
                fecn: false,
                becn: false,
                dest_qp: 0x12,
                ack_req: true,
                psn: 5,
            },
            reth: Some(RethRepr {
                va: 0x1000,
                rkey: 0x77,
                dma_len: 5,
            }),
            aeth: None,
            imm: Some(0xAABBCCDD),
        };
        let mut f = Vec::new();
        emit_roce_frame(&l, &r, b"hello", &mut f).unwrap();
        assert_eq!(f.len(), 14 + 20 + 8 + 12 + 16 + 4 + 8 + 4);
        let p = parse_roce_frame(&f, true).unwrap();
        assert_eq!(
            (p.l, p.r, p.payload, p.icrc_ok),
            (l, r, &b"hello"[..], true)
        );
        let mut g = f.clone();
        g[14 + 20 + 8 + 4] = 0x80; // FECN is masked by the ICRC
        assert!(parse_roce_frame(&g, true).unwrap().icrc_ok);
        g[60] ^= 1;
        assert!(!parse_roce_frame(&g, true).unwrap().icrc_ok);
        // Absurd parameters are errors, not panics.
        let mut buf = [0u8; 100];
        assert_eq!(
            emit_roce_headers(&l, &r, usize::MAX, &mut buf),
            Err(Error::BadLength)
        );
        assert_eq!(finish_icrc(&mut buf, usize::MAX, 0), Err(Error::BadLength));
        assert_eq!(
            finish_icrc(&mut buf, 10, usize::MAX - 12),
            Err(Error::BadLength)
        );
        assert_eq!(
            emit_roce_frame(&l, &r, &[0u8; 70000], &mut f),
            Err(Error::BadLength)
        );
    }
}
