//! The transmit frame builder (`metaroce_tx_frame_build`): a [`PktMeta`] header record plus, for DATA, its
//! payload stream in, a complete MetaRoCE frame out (spec section 3, MR-ENC-1..-17, MR-WIRE-*, MR-WIRE-ICV).
//!
//! Frame: Ethernet (destination `peer_mac`, source `cfg_mac`; an 802.1Q tag with `tci` when `vlan`), IPv4
//! (`ipv6 == 0`: IHL 5, `dscp`/`ecn`, identification 0, DF, TTL `cfg_ttl`, protocol 17, header checksum,
//! source `cfg_ipv4`, destination `peer_ip[31:0]`) or IPv6 (`dscp`/`ecn`, flow label 0, next header 17, hop
//! limit `cfg_ttl`, source `cfg_ipv6`, destination `peer_ip`), UDP (source port `0xC000 | ev`, destination
//! `cfg_udp_port`, checksum 0), MBH (`ptype`, flags: SYN = `ox`, AR/RTX from `mbh_flags`, reserved bits 0;
//! `payload_len`; `hlen` derived), the type header of `ptype` (DATA with the immediate for WRITE_IMM /
//! SEND_IMM), the Open extension when `ox`, the payload, the ICV (big-endian). Addresses are big-endian
//! numbers (`peer_mac` 0x020000000001 is 02:00:00:00:00:01). Every header field is written at the position
//! given by `metaroce_proto::wire::layout`; the bytes are the bytes `metaroce_proto::wire::emit_frame` writes
//! for the same fields (`tests/tx_frame_build.rs`).
//!
//! Ports: `s_axis_hdr_{tdata: PktMeta, tvalid, tready}`; `s_axis_pay_{tdata, tkeep, tlast, tvalid, tready}`:
//! exactly `payload_len` bytes per DATA packet, none for the others (the builder counts bytes with
//! `payload_len`; `tkeep`/`tlast` are not used); `m_axis_tx_{tdata, tkeep, tlast, tuser (0), tvalid, tready}`;
//! config `cfg_mac`, `cfg_ipv4`, `cfg_ipv6`, `cfg_udp_port`, `cfg_ttl`.
//!
//! Pipeline: header record → H1 (registered) → H2 (lengths, IPv4 checksum; the frame being formed) →
//! formation (header bytes and payload realigned to the header length, one frame beat per cycle) → F register
//! → output FIFO (16 beats) and the ICV CRC ([`crate::common::crc`]) → the ICV is ORed into its beat(s) at the
//! FIFO output from a 16-entry ICV FIFO. Throughput: one frame beat per cycle, back-to-back frames with no idle
//! beat between them; a frame's ICV beat waits for its CRC (latency 6 cycles at 512 bits) only while the output FIFO holds
//! fewer beats than that latency (after a pause), after which the stream runs at one beat per cycle. Latency
//! from header to first output beat: 4 cycles when the FIFO is empty (plus the ICV wait for one-beat frames).

use crate::blocks::BlockSpec;
use crate::common::crc::{crc_pipeline, crc_prep, lb};
use crate::common::netlist::{Net, N};
use crate::records::PktMeta;
use crate::rx::parse_meta::{meta_bits, meta_get, HdrWriter};
use metaroce_proto::wire::layout as lay;
use metaroce_proto::wire::{ethernet, ipv4, ipv6, mbh, udp, AckFlags, DataFlags, MbhFlags};
use rust_hdl::prelude::*;

/// Largest MetaRoCE header (Ethernet with tag, IPv6, UDP, MBH, ACK, Open extension).
pub const MAX_HDR: usize = 18 + 40 + 8 + 16 + 48 + 12;

/// Depth of the output and ICV FIFOs.
pub const OUT_FIFO: usize = 16;

/// The frame builder (see the module docs).
#[derive(LogicBlock)]
pub struct FrameBuild<const DW: usize, const KW: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// Header record.
    pub s_axis_hdr_tdata: Signal<In, PktMeta>,
    /// Header valid.
    pub s_axis_hdr_tvalid: Signal<In, Bit>,
    /// Header ready.
    pub s_axis_hdr_tready: Signal<Out, Bit>,
    /// Payload data, packed from byte 0.
    pub s_axis_pay_tdata: Signal<In, Bits<DW>>,
    /// Payload keep (not used: `payload_len` counts the bytes).
    pub s_axis_pay_tkeep: Signal<In, Bits<KW>>,
    /// Payload last (not used).
    pub s_axis_pay_tlast: Signal<In, Bit>,
    /// Payload valid.
    pub s_axis_pay_tvalid: Signal<In, Bit>,
    /// Payload ready.
    pub s_axis_pay_tready: Signal<Out, Bit>,
    /// Frame data (byte 0 in bits 7:0).
    pub m_axis_tx_tdata: Signal<Out, Bits<DW>>,
    /// Frame keep.
    pub m_axis_tx_tkeep: Signal<Out, Bits<KW>>,
    /// Last beat of a frame.
    pub m_axis_tx_tlast: Signal<Out, Bit>,
    /// Always 0.
    pub m_axis_tx_tuser: Signal<Out, Bit>,
    /// Frame valid.
    pub m_axis_tx_tvalid: Signal<Out, Bit>,
    /// Frame ready.
    pub m_axis_tx_tready: Signal<In, Bit>,
    /// Our MAC address.
    pub cfg_mac: Signal<In, Bits<48>>,
    /// Our IPv4 address.
    pub cfg_ipv4: Signal<In, Bits<32>>,
    /// Our IPv6 address.
    pub cfg_ipv6: Signal<In, Bits<128>>,
    /// MetaRoCE UDP destination port (4792).
    pub cfg_udp_port: Signal<In, Bits<16>>,
    /// IPv4 TTL / IPv6 hop limit (64).
    pub cfg_ttl: Signal<In, Bits<8>>,
    _net: Net,
}

impl<const DW: usize, const KW: usize> Default for FrameBuild<DW, KW> {
    fn default() -> Self {
        Self::new()
    }
}

/// Bit position of a one-bit flag mask within its byte.
fn flag_bit(mask: u8) -> usize {
    mask.trailing_zeros() as usize
}

/// The 4 layer-2/3 layouts: (vlan, ipv6).
const LAYOUTS: [(bool, bool); 4] = [(false, false), (true, false), (false, true), (true, true)];

fn eth_len(vlan: bool) -> usize {
    if vlan {
        ethernet::field::VLAN_HEADER_LEN
    } else {
        ethernet::field::HEADER_LEN
    }
}

fn ip_len(v6: bool) -> usize {
    if v6 {
        ipv6::field::HEADER_LEN
    } else {
        ipv4::field::HEADER_LEN
    }
}

/// Frame positions of the bytes the ICV masks to 0xFF (whole bytes) and of the IPv6 byte whose low nibble it
/// masks, for one layout (spec 3.11).
pub fn icv_masked(vlan: bool, v6: bool) -> (Vec<usize>, Vec<usize>) {
    let ip = eth_len(vlan);
    let u = ip + ip_len(v6);
    let mut ones = Vec::new();
    let mut nib = Vec::new();
    if v6 {
        // Traffic class + flow label: the low nibble of byte 0 and bytes 1..4; the hop limit.
        let f = lay::IPV6.field("version").expect("ipv6 version");
        nib.push(ip + f.offset);
        for k in 1..f.len {
            ones.push(ip + f.offset + k);
        }
        ones.push(ip + lay::IPV6.field("hop_limit").expect("hop").offset);
    } else {
        ones.push(ip + lay::IPV4.field("dscp").expect("dscp").offset);
        ones.push(ip + lay::IPV4.field("ttl").expect("ttl").offset);
        let c = lay::IPV4.field("checksum").expect("checksum");
        ones.extend((0..c.len).map(|k| ip + c.offset + k));
    }
    let c = lay::UDP.field("checksum").expect("udp checksum");
    ones.extend((0..c.len).map(|k| u + c.offset + k));
    (ones, nib)
}

/// Constant per-beat byte masks (KW bits) of `positions` for beats `0..nb`, selected by layout and beat.
pub fn beat_masks(
    net: &mut Net,
    kw: usize,
    nb: usize,
    layout: N,
    beat: N,
    pick: impl Fn(bool, bool) -> Vec<usize>,
) -> N {
    let mut per_layout = Vec::new();
    for &(vl, v6) in &LAYOUTS {
        let pos = pick(vl, v6);
        let mut beats = Vec::new();
        for b in 0..nb {
            let mut w = vec![0u64; kw.div_ceil(64)];
            for &p in &pos {
                if p / kw == b {
                    w[(p % kw) / 64] |= 1 << ((p % kw) % 64);
                }
            }
            beats.push(net.lit_words(kw, w));
        }
        per_layout.push(net.sel(beat, &beats));
    }
    net.sel(layout, &per_layout)
}

/// ORs 0x0F into the bytes of `data` selected by `nib`.
pub fn or_nibbles(net: &mut Net, kw: usize, data: N, nib: N) -> N {
    let z4 = net.lit(4, 0);
    let parts: Vec<N> = (0..kw)
        .flat_map(|i| {
            let b = net.bit(nib, i);
            let r = net.rep(b, 4);
            [r, z4]
        })
        .collect();
    let m = net.cat(&parts);
    net.or(data, m)
}

/// Per-byte `frame position < x` for beat `beat`: all bytes if `beat < x / KW`, bytes `i < x % KW` if equal.
pub fn byte_lt(net: &mut Net, kw: usize, beat: N, x: N) -> N {
    let l = lb(kw);
    let xw = net.width(x);
    let bw = net.width(beat);
    let xb = net.slice(x, l, xw - l);
    let xb = net.resize(xb, bw.max(xw - l));
    let bb = net.resize(beat, bw.max(xw - l));
    let lo = net.slice(x, 0, l);
    let th = net.thermo(lo, kw);
    let lt = net.ult(bb, xb);
    let eq = net.eq(bb, xb);
    let all = net.rep(lt, kw);
    let eqm = net.rep(eq, kw);
    let th2 = net.and(th, eqm);
    net.or(all, th2)
}

impl<const DW: usize, const KW: usize> FrameBuild<DW, KW> {
    /// Builds the block.
    pub fn new() -> Self {
        assert_eq!(DW, KW * 8);
        FrameBuild {
            clk: Default::default(),
            rst: Default::default(),
            s_axis_hdr_tdata: Default::default(),
            s_axis_hdr_tvalid: Default::default(),
            s_axis_hdr_tready: Default::default(),
            s_axis_pay_tdata: Default::default(),
            s_axis_pay_tkeep: Default::default(),
            s_axis_pay_tlast: Default::default(),
            s_axis_pay_tvalid: Default::default(),
            s_axis_pay_tready: Default::default(),
            m_axis_tx_tdata: Default::default(),
            m_axis_tx_tkeep: Default::default(),
            m_axis_tx_tlast: Default::default(),
            m_axis_tx_tuser: Default::default(),
            m_axis_tx_tvalid: Default::default(),
            m_axis_tx_tready: Default::default(),
            cfg_mac: Default::default(),
            cfg_ipv4: Default::default(),
            cfg_ipv6: Default::default(),
            cfg_udp_port: Default::default(),
            cfg_ttl: Default::default(),
            _net: Self::build(),
        }
    }

    /// The IPv4 header bytes of a frame (checksum field = `csum`).
    fn ipv4_bytes(n: &mut Net, m: N, udp_len: N, cfg_ttl: N, cfg_ipv4: N, csum: N) -> Vec<N> {
        let h = &lay::IPV4;
        let mut w = HdrWriter::new(h.len);
        w.put_k(n, h, 0, "version", 4);
        w.put_k(n, h, 0, "ihl", (ipv4::field::HEADER_LEN / 4) as u64);
        let dscp = meta_get(n, m, "dscp");
        w.put(n, h, 0, "dscp", dscp);
        let ecn = meta_get(n, m, "ecn");
        w.put(n, h, 0, "ecn", ecn);
        let tl = n.addk(udp_len, ipv4::field::HEADER_LEN as u64);
        w.put(n, h, 0, "total_len", tl);
        w.put_k(n, h, 0, "ident", 0);
        w.put_k(n, h, 0, "df", 1);
        w.put(n, h, 0, "ttl", cfg_ttl);
        w.put_k(n, h, 0, "protocol", ipv4::PROTOCOL_UDP as u64);
        w.put(n, h, 0, "checksum", csum);
        w.put(n, h, 0, "src", cfg_ipv4);
        let dst = meta_get(n, m, "peer_ip");
        w.put(n, h, 0, "dst", dst);
        w.bytes(n)
    }

    /// The block's netlist.
    pub fn build() -> Net {
        let l = lb(KW);
        let nh = MAX_HDR.div_ceil(KW);
        let mb = meta_bits();
        let mut n = Net::new();
        let hdr = n.input("s_axis_hdr_tdata", mb);
        let hdr_v = n.input("s_axis_hdr_tvalid", 1);
        let pay = n.input("s_axis_pay_tdata", DW);
        let pay_v = n.input("s_axis_pay_tvalid", 1);
        let tx_rdy = n.input("m_axis_tx_tready", 1);
        let cfg_mac = n.input("cfg_mac", 48);
        let cfg_ipv4 = n.input("cfg_ipv4", 32);
        let cfg_ipv6 = n.input("cfg_ipv6", 128);
        let cfg_port = n.input("cfg_udp_port", 16);
        let cfg_ttl = n.input("cfg_ttl", 8);

        // ---- H1: the registered header record.
        let h1_v = n.reg(1, 0);
        let h1_m = n.reg(mb, 0);
        let h2_v = n.reg(1, 0);
        let fire_last = n.wire(1);

        // ---- derived lengths from H1.
        let m1 = h1_m;
        let vlan1 = meta_get(&mut n, m1, "vlan");
        let v61 = meta_get(&mut n, m1, "ipv6");
        let ptype1 = meta_get(&mut n, m1, "ptype");
        let op1 = meta_get(&mut n, m1, "opcode");
        let ox1 = meta_get(&mut n, m1, "ox");
        let plen1 = meta_get(&mut n, m1, "payload_len");
        let data_hl = lay::DATA.field("imm").expect("imm").offset as u64;
        let data_hl_imm = lay::DATA.len as u64;
        let is_imm_a = n.eqk(op1, metaroce_proto::wire::Opcode::WriteImm as u64);
        let is_imm_b = n.eqk(op1, metaroce_proto::wire::Opcode::SendImm as u64);
        let is_imm = n.or(is_imm_a, is_imm_b);
        let c_d = n.lit(8, data_hl);
        let c_di = n.lit(8, data_hl_imm);
        let c_ack = n.lit(8, lay::ACK.len as u64);
        let c_nack = n.lit(8, lay::NACK.len as u64);
        let c_ctrl = n.lit(8, lay::CTRL.len as u64);
        let ty_d = n.mux(is_imm, c_di, c_d);
        // ptype 1..4 (metaroce_proto::wire::PacketType): DATA, ACK, NACK, CTRL.
        let ty_len = n.sel(ptype1, &[c_d, ty_d, c_ack, c_nack, c_ctrl]);
        let c_ox = n.lit(8, lay::OPEN.len as u64);
        let z8 = n.lit(8, 0);
        let oxl = n.mux(ox1, c_ox, z8);
        let mr0 = n.addk(ty_len, mbh::field::HEADER_LEN as u64);
        let mr_len = n.add(mr0, oxl);
        let c_e14 = n.lit(8, eth_len(false) as u64);
        let c_e18 = n.lit(8, eth_len(true) as u64);
        let el = n.mux(vlan1, c_e18, c_e14);
        let c_i20 = n.lit(8, ip_len(false) as u64);
        let c_i40 = n.lit(8, ip_len(true) as u64);
        let il = n.mux(v61, c_i40, c_i20);
        let l_len0 = n.add(el, il);
        let l_len = n.addk(l_len0, udp::field::HEADER_LEN as u64);
        let hl = n.add(l_len, mr_len);
        let mr16 = n.resize(mr_len, 16);
        let u0 = n.add(mr16, plen1);
        let udp_len = n.addk(u0, (udp::field::HEADER_LEN + 4) as u64);
        // IPv4 checksum over the header with checksum 0 (MR-ENC-9).
        let z16 = n.lit(16, 0);
        let v4b = Self::ipv4_bytes(&mut n, m1, udp_len, cfg_ttl, cfg_ipv4, z16);
        let mut acc: Option<N> = None;
        for k in 0..v4b.len() / 2 {
            let word = n.cat(&[v4b[2 * k + 1], v4b[2 * k]]);
            let w20 = n.resize(word, 20);
            acc = Some(match acc {
                None => w20,
                Some(a) => n.add(a, w20),
            });
        }
        let sum = acc.expect("ipv4 words");
        let lo = n.slice(sum, 0, 16);
        let hi = n.slice(sum, 16, 4);
        let f1 = n.resize(lo, 17);
        let f1b = n.resize(hi, 17);
        let s1 = n.add(f1, f1b);
        let s1lo = n.slice(s1, 0, 16);
        let s1c = n.slice(s1, 16, 1);
        let s1c16 = n.resize(s1c, 16);
        let s2 = n.add(s1lo, s1c16);
        let csum1 = n.not(s2);
        let plen17 = n.resize(plen1, 17);
        let hl17 = n.resize(hl, 17);
        let end1 = n.add(hl17, plen17);

        // ---- H2: the frame being formed.
        let h2_m = n.reg(mb, 0);
        let h2_csum = n.reg(16, 0);
        let h2_hl = n.reg(8, 0);
        let h2_udp = n.reg(16, 0);
        let h2_end = n.reg(17, 0);
        let nh2 = n.not(h2_v);
        let free2 = n.or(nh2, fire_last);
        let h1_take = n.and(h1_v, free2);
        n.set_d(h2_m, h1_m, Some(h1_take));
        n.set_d(h2_csum, csum1, Some(h1_take));
        n.set_d(h2_hl, hl, Some(h1_take));
        n.set_d(h2_udp, udp_len, Some(h1_take));
        n.set_d(h2_end, end1, Some(h1_take));
        let h2_next = n.mux(free2, h1_v, h2_v);
        n.set_d(h2_v, h2_next, None);
        let nh1 = n.not(h1_v);
        let hdr_rdy = n.or(nh1, h1_take);
        n.output("s_axis_hdr_tready", hdr_rdy);
        let h1_next = n.mux(hdr_rdy, hdr_v, h1_v);
        n.set_d(h1_v, h1_next, None);
        let h1_load = n.and(hdr_rdy, hdr_v);
        n.set_d(h1_m, hdr, Some(h1_load));

        // ---- header bytes of the H2 frame.
        let m = h2_m;
        let vlan = meta_get(&mut n, m, "vlan");
        let v6 = meta_get(&mut n, m, "ipv6");
        let layout = n.cat(&[vlan, v6]);
        let ptype = meta_get(&mut n, m, "ptype");
        let op = meta_get(&mut n, m, "opcode");
        let ox = meta_get(&mut n, m, "ox");
        let ia = n.eqk(op, metaroce_proto::wire::Opcode::WriteImm as u64);
        let ib = n.eqk(op, metaroce_proto::wire::Opcode::SendImm as u64);
        let imm = n.or(ia, ib);
        let hlen_w = n.slice(h2_hl, 0, 8);
        let l_len_w = {
            let e = n.mux(vlan, c_e18, c_e14);
            let i = n.mux(v6, c_i40, c_i20);
            let s = n.add(e, i);
            n.addk(s, udp::field::HEADER_LEN as u64)
        };
        let mr_len_w = n.sub(hlen_w, l_len_w);
        let hlen_words = n.slice(mr_len_w, 2, 6);
        let hlen_field = n.name(hlen_words, "hlen");

        // MetaRoCE part: one variant per type header (DATA, DATA+imm, ACK, NACK, CTRL), OX after it.
        let flags = meta_get(&mut n, m, "mbh_flags");
        let mut variants = Vec::new();
        let mr_max = mbh::field::HEADER_LEN + lay::ACK.len + lay::OPEN.len;
        for (ty, tlen, pt) in [
            (&lay::DATA, data_hl as usize, 1u64),
            (&lay::DATA, data_hl_imm as usize, 1),
            (&lay::ACK, lay::ACK.len, 2),
            (&lay::NACK, lay::NACK.len, 3),
            (&lay::CTRL, lay::CTRL.len, 4),
        ] {
            let mut w = HdrWriter::new(mr_max);
            let mh = &lay::MBH;
            w.put_k(&mut n, mh, 0, "ver", mbh::VERSION as u64);
            w.put_k(&mut n, mh, 0, "type", pt);
            w.put(&mut n, mh, 0, "syn", ox);
            let ar = n.bit(flags, flag_bit(MbhFlags::AR.0));
            w.put(&mut n, mh, 0, "ar", ar);
            let rtx = n.bit(flags, flag_bit(MbhFlags::RTX.0));
            w.put(&mut n, mh, 0, "rtx", rtx);
            for f in ["payload_len", "dcid", "psn", "ts"] {
                let v = meta_get(&mut n, m, f);
                w.put(&mut n, mh, 0, f, v);
            }
            w.put(&mut n, mh, 0, "hlen", hlen_field);
            let tb = mbh::field::HEADER_LEN;
            match pt {
                1 => {
                    for (f, mf) in [
                        ("opcode", "opcode"),
                        ("msn", "msn"),
                        ("addr", "addr"),
                        ("key", "key"),
                        ("msg_len", "msg_len"),
                    ] {
                        let v = meta_get(&mut n, m, mf);
                        w.put(&mut n, ty, tb, f, v);
                    }
                    let df = meta_get(&mut n, m, "dflags");
                    for (f, mask) in [
                        ("first", DataFlags::FIRST.0),
                        ("last", DataFlags::LAST.0),
                        ("se", DataFlags::SE.0),
                    ] {
                        let b = n.bit(df, flag_bit(mask));
                        w.put(&mut n, ty, tb, f, b);
                    }
                    if tlen == lay::DATA.len {
                        let v = meta_get(&mut n, m, "imm");
                        w.put(&mut n, ty, tb, "imm", v);
                    }
                }
                2 => {
                    for (f, mf) in [
                        ("scid", "scid"),
                        ("echo_ts", "echo_ts"),
                        ("sack_base", "sack_base"),
                        ("echo_ev", "echo_ev"),
                        ("ce_count", "ce_count"),
                    ] {
                        let v = meta_get(&mut n, m, mf);
                        w.put(&mut n, ty, tb, f, v);
                    }
                    let af = meta_get(&mut n, m, "aflags");
                    for (f, mask) in [("ece", AckFlags::ECE.0), ("dup", AckFlags::DUP.0)] {
                        let b = n.bit(af, flag_bit(mask));
                        w.put(&mut n, ty, tb, f, b);
                    }
                }
                _ => {
                    for f in ["scid", "code", "echo_ts", "aux"] {
                        let v = meta_get(&mut n, m, f);
                        w.put(&mut n, ty, tb, f, v);
                    }
                }
            }
            let ob = tb + tlen;
            for (f, mf) in [
                ("scid", "ox_scid"),
                ("wlog", "wlog"),
                ("isn", "isn"),
                ("target_qpn", "target_qpn"),
                ("mtu_log", "mtu_log"),
            ] {
                let v = meta_get(&mut n, m, mf);
                let z = n.lit(n.width(v), 0);
                let vv = n.mux(ox, v, z);
                w.put(&mut n, &lay::OPEN, ob, f, vv);
            }
            let mut bytes = w.bytes(&mut n);
            if pt == 2 {
                // The SACK bitmap: bit i in byte i / 8, mask 1 << (i % 8) (little-endian bytes).
                let sf = lay::ACK.field("sack").expect("sack");
                let sack = meta_get(&mut n, m, "sack");
                for k in 0..sf.len {
                    bytes[tb + sf.offset + k] = n.slice(sack, 8 * k, 8);
                }
            }
            variants.push(n.cat(&bytes));
        }
        // Variant index: DATA 0/1 (imm), ACK 2, NACK 3, CTRL 4.
        let imm3 = n.resize(imm, 3);
        let isdata = n.eqk(ptype, 1);
        let p3 = n.resize(ptype, 3);
        let vsel = n.mux(isdata, imm3, p3);
        let mr_all = n.sel(vsel, &variants);
        let mr_bytes: Vec<N> = (0..mr_max).map(|k| n.slice(mr_all, 8 * k, 8)).collect();

        // Layer 2-4 per layout, then the whole header per layout.
        let csum = h2_csum;
        let udp_l = h2_udp;
        let mut hdrs = Vec::new();
        for &(vl, six) in &LAYOUTS {
            let e = if vl {
                &lay::ETHERNET_VLAN
            } else {
                &lay::ETHERNET
            };
            let ll = eth_len(vl) + ip_len(six) + udp::field::HEADER_LEN;
            let mut w = HdrWriter::new(ll);
            let pm = meta_get(&mut n, m, "peer_mac");
            w.put(&mut n, e, 0, "dst", pm);
            w.put(&mut n, e, 0, "src", cfg_mac);
            if vl {
                w.put_k(&mut n, e, 0, "tpid", ethernet::EtherType::VLAN as u64);
                let t = meta_get(&mut n, m, "tci");
                w.put(&mut n, e, 0, "tci", t);
            }
            let et = if six {
                ethernet::EtherType::IPV6
            } else {
                ethernet::EtherType::IPV4
            };
            w.put_k(&mut n, e, 0, "ethertype", et as u64);
            let ib = eth_len(vl);
            let mut bytes = w.bytes(&mut n);
            if six {
                let h = &lay::IPV6;
                let mut w6 = HdrWriter::new(h.len);
                w6.put_k(&mut n, h, 0, "version", 6);
                let d = meta_get(&mut n, m, "dscp");
                w6.put(&mut n, h, 0, "dscp", d);
                let ec = meta_get(&mut n, m, "ecn");
                w6.put(&mut n, h, 0, "ecn", ec);
                w6.put_k(&mut n, h, 0, "flow_label", 0);
                w6.put(&mut n, h, 0, "payload_len", udp_l);
                w6.put_k(&mut n, h, 0, "next_header", ipv4::PROTOCOL_UDP as u64);
                w6.put(&mut n, h, 0, "hop_limit", cfg_ttl);
                w6.put(&mut n, h, 0, "src", cfg_ipv6);
                let pi = meta_get(&mut n, m, "peer_ip");
                w6.put(&mut n, h, 0, "dst", pi);
                let b6 = w6.bytes(&mut n);
                bytes[ib..ib + h.len].copy_from_slice(&b6);
            } else {
                let b4 = Self::ipv4_bytes(&mut n, m, udp_l, cfg_ttl, cfg_ipv4, csum);
                bytes[ib..ib + ipv4::field::HEADER_LEN].copy_from_slice(&b4);
            }
            let ub = ib + ip_len(six);
            let mut wu = HdrWriter::new(udp::field::HEADER_LEN);
            let ev = meta_get(&mut n, m, "ev");
            let ev16 = n.resize(ev, 16);
            let c000 = n.lit(16, 0xC000);
            let sp = n.or(ev16, c000);
            wu.put(&mut n, &lay::UDP, 0, "src_port", sp);
            wu.put(&mut n, &lay::UDP, 0, "dst_port", cfg_port);
            wu.put(&mut n, &lay::UDP, 0, "length", udp_l);
            wu.put_k(&mut n, &lay::UDP, 0, "checksum", 0);
            let bu = wu.bytes(&mut n);
            bytes[ub..ub + udp::field::HEADER_LEN].copy_from_slice(&bu);
            let z = n.lit(8, 0);
            let mut full = bytes.clone();
            full.extend(mr_bytes.iter().copied());
            full.resize(nh * KW, z);
            hdrs.push(n.cat(&full));
        }
        let hdr_all = n.sel(layout, &hdrs);

        // ---- formation: one frame beat per cycle.
        let fb = n.reg(12, 0);
        let prev = n.reg(DW, 0);
        let end = h2_end;
        let hl8 = h2_hl;
        let hlm = n.slice(hl8, 0, l);
        let hb = n.slice(hl8, l, 8 - l);
        let hb12 = n.resize(hb, 12);
        let plen = meta_get(&mut n, m, "payload_len");
        let pl17 = n.resize(plen, 17);
        let pl_r = n.addk(pl17, (KW - 1) as u64);
        let npay = n.slice(pl_r, l, 17 - l);
        let npay12 = n.resize(npay, 12);
        let kidx = n.sub(fb, hb12);
        let ge_hb = {
            let lt = n.ult(fb, hb12);
            n.not(lt)
        };
        let k_lt = n.ult(kidx, npay12);
        let need_pay = n.and(ge_hb, k_lt);
        let e4 = n.addk(end, 4);
        let e4r = n.addk(e4, (KW - 1) as u64);
        let nbeats = n.slice(e4r, l, 17 - l);
        let nbeats12 = n.resize(nbeats, 12);
        let nbm1 = n.addk(nbeats12, 0xFFF);
        let is_last = n.eq(fb, nbm1);
        // Room: the FIFO holds at most OUT_FIFO beats; one may be in the F register.
        let cnt_w = n.wire(OUT_FIFO.trailing_zeros() as usize + 1);
        let room = n.ultk(cnt_w, (OUT_FIFO - 1) as u64);
        let npv = n.not(need_pay);
        let pay_ok = n.or(npv, pay_v);
        let go = n.and(h2_v, room);
        let fire = n.and(go, pay_ok);
        let pay_rdy = n.and(go, need_pay);
        n.output("s_axis_pay_tready", pay_rdy);
        let pop_pay = n.and(fire, need_pay);
        n.set_d(prev, pay, Some(pop_pay));
        let fl = n.and(fire, is_last);
        n.drive(fire_last, fl);
        let fb1 = n.addk(fb, 1);
        let z12 = n.lit(12, 0);
        let fb_next = n.mux(is_last, z12, fb1);
        n.set_d(fb, fb_next, Some(fire));

        // Payload realigned to the header length.
        let sh_w = l + 4;
        let hlm_x = n.resize(hlm, sh_w);
        let z3 = n.lit(3, 0);
        let sh_cur = n.cat(&[z3, hlm_x]);
        let sh_cur = n.slice(sh_cur, 0, sh_w);
        let kwc = n.lit(sh_w, KW as u64);
        let inv = n.sub(kwc, hlm_x);
        let sh_prev = n.cat(&[z3, inv]);
        let sh_prev = n.slice(sh_prev, 0, sh_w);
        let a = n.shl(pay, sh_cur);
        let b = n.shr(prev, sh_prev);
        let merged = n.or(a, b);
        // Header bytes of this beat.
        let hbeats: Vec<N> = (0..nh).map(|i| n.slice(hdr_all, i * DW, DW)).collect();
        let hbeat = n.sel(fb, &hbeats);
        let hl17b = n.resize(hl8, 17);
        let is_hdr = byte_lt(&mut n, KW, fb, hl17b);
        let is_pay = byte_lt(&mut n, KW, fb, end);
        let keep = byte_lt(&mut n, KW, fb, e4);
        let bytes: Vec<N> = (0..KW)
            .map(|i| {
                let h = n.slice(hbeat, 8 * i, 8);
                let p = n.slice(merged, 8 * i, 8);
                let ih = n.bit(is_hdr, i);
                let ip = n.bit(is_pay, i);
                let zb = n.lit(8, 0);
                let pz = n.mux(ip, p, zb);
                n.mux(ih, h, pz)
            })
            .collect();
        let beat = n.cat(&bytes);
        // ICV position in this beat.
        let end_b = n.slice(end, l, 17 - l);
        let end_b12 = n.resize(end_b, 12);
        let e3 = n.addk(end, 3);
        let e3_b = n.slice(e3, l, 17 - l);
        let e3_b12 = n.resize(e3_b, 12);
        let lt_eb = n.ult(fb, end_b12);
        let ge_eb = n.not(lt_eb);
        let gt_e3 = n.ult(e3_b12, fb);
        let le_e3 = n.not(gt_e3);
        let has_icv = n.and(ge_eb, le_e3);
        let fb17 = n.resize(fb, 17);
        let lsh = n.lit(17, l as u64);
        let fbs = n.shl(fb17, lsh);
        let rel = n.sub(e4, fbs);
        let relp4 = n.slice(rel, 0, l + 2);
        // CRC framing of this beat.
        let em1 = n.addk(end, (1u64 << 17) - 1);
        let lcb = n.slice(em1, l, 17 - l);
        let lcb12 = n.resize(lcb, 12);
        let gt_l = n.ult(lcb12, fb);
        let crc_v = n.not(gt_l);
        let crc_last = n.eq(fb, lcb12);
        let lcb17 = n.resize(lcb, 17);
        let lcbs = n.shl(lcb17, lsh);
        let eib = n.sub(end, lcbs);
        let eib = n.slice(eib, 0, l + 1);
        let kwl = n.lit(l + 1, KW as u64);
        let crc_end = n.mux(crc_last, eib, kwl);
        let crc_first = n.eqk(fb, 0);
        let c14 = n.lit(l + 1, eth_len(false) as u64);
        let c18 = n.lit(l + 1, eth_len(true) as u64);
        let start = n.mux(vlan, c18, c14);
        let ones = beat_masks(&mut n, KW, nh, layout, fb, |a, b| icv_masked(a, b).0);
        let nib = beat_masks(&mut n, KW, nh, layout, fb, |a, b| icv_masked(a, b).1);

        // ---- F register.
        let f_v = n.dff(fire, None, 0);
        let f_data = n.dff(beat, None, 0);
        let f_keep = n.dff(keep, None, 0);
        let f_last = n.dff(is_last, None, 0);
        let f_icv = n.dff(has_icv, None, 0);
        let f_rel = n.dff(relp4, None, 0);
        let cv = n.and(fire, crc_v);
        let f_cv = n.dff(cv, None, 0);
        let f_cfirst = n.dff(crc_first, None, 0);
        let f_clast = n.dff(crc_last, None, 0);
        let f_cend = n.dff(crc_end, None, 0);
        let f_start = n.dff(start, None, 0);
        let f_ones = n.dff(ones, None, 0);
        let f_nib = n.dff(nib, None, 0);

        // ---- ICV CRC.
        let cd = or_nibbles(&mut n, KW, f_data, f_nib);
        let (pd, zeros) = crc_prep(&mut n, KW, f_cfirst, f_start, f_cend, f_ones, cd);
        let (icv_v, icv) = crc_pipeline(&mut n, KW, f_cv, f_cfirst, f_clast, zeros, pd);

        // ---- output FIFO + ICV FIFO.
        let entry = n.cat(&[f_data, f_keep, f_last, f_icv, f_rel]);
        let pop = n.wire(1);
        let (head, cnt) = n.reg_fifo(OUT_FIFO, entry, f_v, pop);
        n.drive(cnt_w, cnt);
        let icv_pop = n.wire(1);
        let (icv_head, icv_cnt) = n.reg_fifo(OUT_FIFO, icv, icv_v, icv_pop);
        let h_data = n.slice(head, 0, DW);
        let h_keep = n.slice(head, DW, KW);
        let h_last = n.bit(head, DW + KW);
        let h_icv = n.bit(head, DW + KW + 1);
        let h_rel = n.slice(head, DW + KW + 2, l + 2);
        let nonempty = n.any(cnt);
        let icv_ready = n.any(icv_cnt);
        let nicv = n.not(h_icv);
        let icv_ok = n.or(nicv, icv_ready);
        let out_v = n.and(nonempty, icv_ok);
        let p = n.and(out_v, tx_rdy);
        n.drive(pop, p);
        let ip = n.and(p, h_last);
        n.drive(icv_pop, ip);
        // ICV bytes big-endian at relp4 - 4 .. relp4 - 1 of the beat.
        let icv_bytes: Vec<N> = (0..4).map(|j| n.slice(icv_head, 24 - 8 * j, 8)).collect();
        let icv_le = n.cat(&icv_bytes);
        let icv_x = n.resize(icv_le, DW + 32);
        let rel_w = l + 5;
        let relx = n.resize(h_rel, rel_w);
        let z3b = n.lit(3, 0);
        let rsh = n.cat(&[z3b, relx]);
        let rsh = n.slice(rsh, 0, rel_w);
        let placed = n.shl(icv_x, rsh);
        let placed = n.slice(placed, 32, DW);
        let zdw = n.lit(DW, 0);
        let placed = n.mux(h_icv, placed, zdw);
        let out_data = n.or(h_data, placed);
        n.output("m_axis_tx_tdata", out_data);
        n.output("m_axis_tx_tkeep", h_keep);
        n.output("m_axis_tx_tlast", h_last);
        let zero1 = n.lit(1, 0);
        n.output("m_axis_tx_tuser", zero1);
        n.output("m_axis_tx_tvalid", out_v);
        n
    }
}

crate::net_logic!(
    FrameBuild,
    inputs: [rst, s_axis_hdr_tdata, s_axis_hdr_tvalid, s_axis_pay_tdata, s_axis_pay_tvalid, m_axis_tx_tready,
             cfg_mac, cfg_ipv4, cfg_ipv6, cfg_udp_port, cfg_ttl],
    outputs: [s_axis_hdr_tready, s_axis_pay_tready, m_axis_tx_tdata, m_axis_tx_tkeep, m_axis_tx_tlast,
              m_axis_tx_tuser, m_axis_tx_tvalid]
);

/// The frame builder at both widths.
pub fn blocks() -> Vec<BlockSpec> {
    vec![
        BlockSpec {
            name: "metaroce_tx_frame_build",
            area: "tx",
            description: "frame builder: PktMeta + payload -> Ethernet/IP/UDP/MetaRoCE frame with ICV (512-bit)",
            verilog: |_cfg| crate::gen::verilog("metaroce_tx_frame_build", FrameBuild::<512, 64>::new()),
        },
        BlockSpec {
            name: "metaroce_tx_frame_build_w1024",
            area: "tx",
            description: "frame builder at 1024 bits",
            verilog: |_cfg| {
                crate::gen::verilog("metaroce_tx_frame_build_w1024", FrameBuild::<1024, 128>::new())
            },
        },
    ]
}
