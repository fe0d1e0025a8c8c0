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
//! Pipeline: header record → H1 (registered) → HA (lengths from tables of type header, Open extension and
//! layout; the IPv4 checksum's sum of the words other than the total length) → H2 (the frame being formed: its
//! header bytes with the folded checksum, and its per-frame constants: beat positions of the header end, the
//! payload, the ICV, the CRC framing) → formation (header bytes and payload realigned to the header length,
//! one frame beat per cycle; whether the beat is the last and whether it takes a payload beat are registers
//! updated with the beat counter) → F register → output FIFO (16 beats) and the ICV CRC
//! ([`crate::common::crc::crc_pipeline`]) → the ICV is ORed into its beat(s) at the FIFO output from a
//! 16-entry ICV FIFO (both FIFOs shift towards their head, so their heads are registers).
//! Throughput: one frame beat per cycle, back-to-back frames with no idle beat between them (H1 and HA take a
//! new header in the cycle the next stage frees); a frame's ICV beat waits for its CRC (latency 6 cycles at
//! 512 bits) only while the output FIFO holds fewer beats than that latency (after a pause), after which the
//! stream runs at one beat per cycle. Latency from header to first output beat: 5 cycles when the FIFO is
//! empty (plus the ICV wait for one-beat frames). Logic depth (`cargo xtask synth`, UltraScale+): 8 LUT
//! levels at 512 and at 1024 bits: the CRC's data term is summed in 8-byte parts before its register, and the
//! beat's comparisons with the frame's header, payload and frame ends are registers updated with the beat
//! counter, so no comparison lies before the per-byte selects.

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

        // ---- H1: the registered header record; HA: its lengths and partial checksum; H2: the frame being
        // formed (its header bytes and per-frame constants).
        let h1_v = n.reg(1, 0);
        let h1_m = n.reg(mb, 0);
        let ha_v = n.reg(1, 0);
        let h2_v = n.reg(1, 0);
        let fire_last = n.wire(1);

        // ---- H1 -> HA: lengths from tables of (type header, Open extension, layout).
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
        // A value of the type header length (ptype 1..4: DATA with or without immediate, ACK, NACK, CTRL;
        // 0 for others), the Open extension and the layout, as a table of constants.
        let ptype_ok = n.ultk(ptype1, 5);
        let table = |n: &mut Net, f: &dyn Fn(u64, bool, bool, bool) -> u64| -> N {
            let mut per = Vec::new();
            for &(vl, six) in &LAYOUTS {
                for o in [false, true] {
                    let ks: Vec<N> = [
                        data_hl,
                        data_hl_imm,
                        lay::ACK.len as u64,
                        lay::NACK.len as u64,
                        lay::CTRL.len as u64,
                        0,
                    ]
                    .iter()
                    .map(|&t| n.lit(8, f(t, o, vl, six) & 0xFF))
                    .collect();
                    let td = n.mux(is_imm, ks[1], ks[0]);
                    let opts = [ks[0], td, ks[2], ks[3], ks[4]];
                    let s = n.sel(ptype1, &opts);
                    per.push(n.mux(ptype_ok, s, ks[5]));
                }
            }
            let idx = n.cat(&[ox1, vlan1, v61]);
            n.sel(idx, &per)
        };
        let mr_of = |t: u64, o: bool| {
            (mbh::field::HEADER_LEN as u64 + t + if o { lay::OPEN.len as u64 } else { 0 }) & 0xFF
        };
        let l_of =
            |vl: bool, six: bool| (eth_len(vl) + ip_len(six) + udp::field::HEADER_LEN) as u64;
        let mr_len = table(&mut n, &|t, o, _, _| mr_of(t, o));
        let hl = table(&mut n, &|t, o, vl, six| l_of(vl, six) + mr_of(t, o));
        let u12 = table(&mut n, &|t, o, _, _| {
            mr_of(t, o) + (udp::field::HEADER_LEN + 4) as u64
        });
        let t32 = table(&mut n, &|t, o, _, _| {
            mr_of(t, o) + (udp::field::HEADER_LEN + 4 + ipv4::field::HEADER_LEN) as u64
        });
        let u12_16 = n.resize(u12, 16);
        let udp_len = n.add(u12_16, plen1);
        let t32_16 = n.resize(t32, 16);
        let tl1 = n.add(t32_16, plen1);
        let plen17 = n.resize(plen1, 17);
        let hl17 = n.resize(hl, 17);
        let end1 = n.add(hl17, plen17);
        // IPv4 checksum (MR-ENC-9): the words other than the total length summed here (checksum field 0).
        let z16 = n.lit(16, 0);
        let v4b = Self::ipv4_bytes(&mut n, m1, z16, cfg_ttl, cfg_ipv4, z16);
        let tl_word = lay::IPV4.field("total_len").expect("total_len").offset / 2;
        let mut words: Vec<N> = (0..v4b.len() / 2)
            .filter(|&k| k != tl_word)
            .map(|k| {
                let word = n.cat(&[v4b[2 * k + 1], v4b[2 * k]]);
                n.resize(word, 20)
            })
            .collect();
        while words.len() > 1 {
            words = words
                .chunks(2)
                .map(|c| {
                    if c.len() == 2 {
                        n.add(c[0], c[1])
                    } else {
                        c[0]
                    }
                })
                .collect();
        }
        let psum = words[0];

        // ---- HA registers and the handshakes of H1, HA, H2.
        let ha_m = n.reg(mb, 0);
        let nh2 = n.not(h2_v);
        let free2 = n.or(nh2, fire_last);
        let ha_take = n.and(ha_v, free2);
        let nha = n.not(ha_v);
        let ha_free = n.or(nha, free2);
        let h1_take = n.and(h1_v, ha_free);
        let ha_ld = |n: &mut Net, x: N| n.dff(x, Some(h1_take), 0);
        n.set_d(ha_m, h1_m, Some(h1_take));
        let ha_mr = ha_ld(&mut n, mr_len);
        let ha_hl = ha_ld(&mut n, hl);
        let ha_udp = ha_ld(&mut n, udp_len);
        let ha_tl = ha_ld(&mut n, tl1);
        let ha_end = ha_ld(&mut n, end1);
        let ha_psum = ha_ld(&mut n, psum);
        let ha_next = n.mux(ha_free, h1_v, ha_v);
        n.set_d(ha_v, ha_next, None);
        let h2_next = n.mux(free2, ha_v, h2_v);
        n.set_d(h2_v, h2_next, None);
        let nh1 = n.not(h1_v);
        let hdr_rdy = n.or(nh1, ha_free);
        n.output("s_axis_hdr_tready", hdr_rdy);
        let h1_next = n.mux(hdr_rdy, hdr_v, h1_v);
        n.set_d(h1_v, h1_next, None);
        let h1_load = n.and(hdr_rdy, hdr_v);
        n.set_d(h1_m, hdr, Some(h1_load));

        // ---- HA -> H2: the checksum, the header bytes, the per-frame constants of the formation.
        let s20 = n.resize(ha_tl, 20);
        let sum = n.add(ha_psum, s20);
        let lo = n.slice(sum, 0, 16);
        let hi = n.slice(sum, 16, 4);
        let f1 = n.resize(lo, 17);
        let f1b = n.resize(hi, 17);
        // The end-around carry: `lo + hi` and `lo + hi + 1` side by side (at most 0x1000E + 1, so the second
        // carries no further), the first's carry choosing: two carry chains in this stage, not three.
        let s1 = n.add(f1, f1b);
        // hi + 1 (4 to 5 bits) in logic, so that `lo + hi + 1` is one carry chain too.
        let h0 = n.bit(hi, 0);
        let h1 = n.bit(hi, 1);
        let h2 = n.bit(hi, 2);
        let h3 = n.bit(hi, 3);
        let i0 = n.not(h0);
        let i1 = n.xor(h1, h0);
        let a01 = n.and(h0, h1);
        let i2 = n.xor(h2, a01);
        let a012 = n.and(a01, h2);
        let i3 = n.xor(h3, a012);
        let i4 = n.and(a012, h3);
        let hinc = n.cat(&[i0, i1, i2, i3, i4]);
        let hinc17 = n.resize(hinc, 17);
        let s1p = n.add(f1, hinc17);
        let s1lo = n.slice(s1, 0, 16);
        let s1plo = n.slice(s1p, 0, 16);
        let s1c = n.slice(s1, 16, 1);
        let s2 = n.mux(s1c, s1plo, s1lo);
        let csum_a = n.not(s2);
        // ---- header bytes of the frame in HA (registered in H2).
        let m = ha_m;
        let vlan = meta_get(&mut n, m, "vlan");
        let v6 = meta_get(&mut n, m, "ipv6");
        let layout = n.cat(&[vlan, v6]);
        let ptype = meta_get(&mut n, m, "ptype");
        let op = meta_get(&mut n, m, "opcode");
        let ox = meta_get(&mut n, m, "ox");
        let ia = n.eqk(op, metaroce_proto::wire::Opcode::WriteImm as u64);
        let ib = n.eqk(op, metaroce_proto::wire::Opcode::SendImm as u64);
        let imm = n.or(ia, ib);
        let hlen_words = n.slice(ha_mr, 2, 6);
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
        let csum = csum_a;
        let udp_l = ha_udp;
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

        // ---- H2 registers: the header bytes and the per-frame constants (loaded with the frame).
        let h2_ld = |n: &mut Net, x: N| n.dff(x, Some(ha_take), 0);
        let h2_hdr = h2_ld(&mut n, hdr_all);
        let h2_layout = h2_ld(&mut n, layout);
        let h2_vlan = h2_ld(&mut n, vlan);
        let end = ha_end;
        let hl8 = ha_hl;
        let hlm_a = n.slice(hl8, 0, l);
        let h2_hlm = h2_ld(&mut n, hlm_a);
        let b12 = |n: &mut Net, x: N| {
            let w = n.width(x);
            let s = n.slice(x, l, w - l);
            n.resize(s, 12)
        };
        let hb12 = b12(&mut n, hl8);
        let plen = meta_get(&mut n, m, "payload_len");
        let pl17 = n.resize(plen, 17);
        let pl_r = n.addk(pl17, (KW - 1) as u64);
        let npay12 = b12(&mut n, pl_r);
        let e4 = n.addk(end, 4);
        let e3 = n.addk(end, 3);
        let nbm1 = b12(&mut n, e3); // beats - 1 (the last beat index)
        let end_b12 = b12(&mut n, end);
        let em1 = n.addk(end, (1u64 << 17) - 1);
        let lcb12 = b12(&mut n, em1);
        let lcb = n.slice(em1, l, 17 - l);
        let lcb17 = n.resize(lcb, 17);
        let lsh = n.lit(17, l as u64);
        let lcbs = n.shl(lcb17, lsh);
        let eib = n.sub(end, lcbs);
        let eib = n.slice(eib, 0, l + 1);
        let e4_b12 = b12(&mut n, e4);
        let hl_lo = n.slice(hl8, 0, l);
        let end_lo = n.slice(end, 0, l);
        let e4_lo = n.slice(e4, 0, l);
        let th_hl = n.thermo(hl_lo, KW);
        let th_end = n.thermo(end_lo, KW);
        let th_e4 = n.thermo(e4_lo, KW);
        let e4_rel = n.slice(e4, 0, l + 2);
        let pe = n.add(hb12, npay12);
        let pe1 = n.addk(pe, 0xFFF);
        let hb1 = n.addk(hb12, 0xFFF);
        let nbm2 = n.addk(nbm1, 0xFFF);
        let npay_nz = n.any(npay12);
        let hb_z = n.eqk(hb12, 0);
        let np0 = n.and(hb_z, npay_nz);
        let last0 = n.eqk(nbm1, 0);
        let [h2_hb, h2_nbm1, h2_end_b, h2_lcb, h2_e4_b, h2_pe1, h2_hb1, h2_nbm2] =
            [hb12, nbm1, end_b12, lcb12, e4_b12, pe1, hb1, nbm2].map(|x| h2_ld(&mut n, x));
        let [h2_eib, h2_th_hl, h2_th_end, h2_th_e4, h2_e4_rel, h2_npnz] =
            [eib, th_hl, th_end, th_e4, e4_rel, npay_nz].map(|x| h2_ld(&mut n, x));

        // ---- formation: one frame beat per cycle. `last_r` and `pay_r` say whether beat `fb` is the frame's
        // last and whether it takes a payload beat (kept as registers, updated with `fb`).
        let fb = n.reg(12, 0);
        let prev = n.reg(DW, 0);
        let last_r = n.reg(1, 0);
        let pay_r = n.reg(1, 0);
        // Room: the FIFO holds at most OUT_FIFO beats; one may be in the F register.
        let cnt_w = n.wire(OUT_FIFO.trailing_zeros() as usize + 1);
        let room = n.ultk(cnt_w, (OUT_FIFO - 1) as u64);
        let npv = n.not(pay_r);
        let pay_ok = n.or(npv, pay_v);
        let go = n.and(h2_v, room);
        let fire = n.and(go, pay_ok);
        let pay_rdy = n.and(go, pay_r);
        n.output("s_axis_pay_tready", pay_rdy);
        let pop_pay = n.and(fire, pay_r);
        n.set_d(prev, pay, Some(pop_pay));
        let fl = n.and(fire, last_r);
        n.drive(fire_last, fl);
        let fb1 = n.addk(fb, 1);
        let z12 = n.lit(12, 0);
        let fb_next = n.mux(last_r, z12, fb1);
        n.set_d(fb, fb_next, Some(fire));
        let at_nbm2 = n.eq(fb, h2_nbm2);
        let at_hb1 = n.eq(fb, h2_hb1);
        let at_pe1 = n.eq(fb, h2_pe1);
        let n_pe = n.not(at_pe1);
        let stay = n.and(pay_r, n_pe);
        let pay_adv = n.mux(at_hb1, h2_npnz, stay);
        let l1 = n.mux(fire, at_nbm2, last_r);
        let l2 = n.mux(ha_take, last0, l1);
        n.set_d(last_r, l2, None);
        let p1 = n.mux(fire, pay_adv, pay_r);
        let p2 = n.mux(ha_take, np0, p1);
        n.set_d(pay_r, p2, None);

        // Payload realigned to the header length.
        let sh_w = l + 4;
        let hlm_x = n.resize(h2_hlm, sh_w);
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
        let hbeats: Vec<N> = (0..nh).map(|i| n.slice(h2_hdr, i * DW, DW)).collect();
        let hbeat = n.sel(fb, &hbeats);
        // `fb < xb` and `fb == xb` for the beats `xb` of the header end, the payload end and the frame end, kept
        // as registers updated with `fb` (as `last_r`): for the next beat when a beat fires, for beat 0 when H2
        // takes a frame (`xb` then from HA's lengths), so that no beat comparison lies before the byte selects.
        let fb_cmp = |n: &mut Net, x_ha: N, x_h2: N| {
            let lt_r = n.reg(1, 0);
            let eq_r = n.reg(1, 0);
            let lt_n = n.ult(fb_next, x_h2);
            let eq_n = n.eq(fb_next, x_h2);
            let lt_0 = n.any(x_ha);
            let eq_0 = n.not(lt_0);
            for (r, at_next, at_0) in [(lt_r, lt_n, lt_0), (eq_r, eq_n, eq_0)] {
                let d1 = n.mux(fire, at_next, r);
                let d2 = n.mux(ha_take, at_0, d1);
                n.set_d(r, d2, None);
            }
            (lt_r, eq_r)
        };
        let (lt_hb, eq_hb) = fb_cmp(&mut n, hb12, h2_hb);
        let (lt_eb, eq_eb) = fb_cmp(&mut n, end_b12, h2_end_b);
        let (lt_e4b, eq_e4b) = fb_cmp(&mut n, e4_b12, h2_e4_b);
        // Per byte: frame position < x, from the beat comparisons and the thermometer of x's low bits.
        let lt_bytes = |n: &mut Net, lt: N, eq: N, th: N| {
            let all = n.rep(lt, KW);
            let eqm = n.rep(eq, KW);
            let th2 = n.and(th, eqm);
            n.or(all, th2)
        };
        let is_hdr = lt_bytes(&mut n, lt_hb, eq_hb, h2_th_hl);
        let is_pay = lt_bytes(&mut n, lt_eb, eq_eb, h2_th_end);
        let keep = lt_bytes(&mut n, lt_e4b, eq_e4b, h2_th_e4);
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
        let is_last = last_r;
        // ICV position in this beat.
        let ge_eb = n.not(lt_eb);
        let gt_e3 = n.ult(h2_nbm1, fb);
        let le_e3 = n.not(gt_e3);
        let has_icv = n.and(ge_eb, le_e3);
        let fb_lo = n.slice(fb, 0, 2);
        let z_l = n.lit(l, 0);
        let fbs = n.cat(&[z_l, fb_lo]);
        let relp4 = n.sub(h2_e4_rel, fbs);
        // CRC framing of this beat.
        let gt_l = n.ult(h2_lcb, fb);
        let crc_v = n.not(gt_l);
        let crc_last = n.eq(fb, h2_lcb);
        let kwl = n.lit(l + 1, KW as u64);
        let crc_end = n.mux(crc_last, h2_eib, kwl);
        let crc_first = n.eqk(fb, 0);
        let c14 = n.lit(l + 1, eth_len(false) as u64);
        let c18 = n.lit(l + 1, eth_len(true) as u64);
        let start = n.mux(h2_vlan, c18, c14);
        let ones = beat_masks(&mut n, KW, nh, h2_layout, fb, |a, b| icv_masked(a, b).0);
        let nib = beat_masks(&mut n, KW, nh, h2_layout, fb, |a, b| icv_masked(a, b).1);
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
        let (head, cnt) = n.shift_fifo(OUT_FIFO, entry, f_v, pop);
        n.drive(cnt_w, cnt);
        let icv_pop = n.wire(1);
        let (icv_head, icv_cnt) = n.shift_fifo(OUT_FIFO, icv, icv_v, icv_pop);
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
