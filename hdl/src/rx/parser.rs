//! The receive frame parser (`metaroce_rx_parser`): MAC frame stream in, one [`PktMeta`] per frame (with its
//! drop reason) and the realigned payload of accepted DATA packets out (spec sections 2 and 3: MR-ENC-1..-41,
//! MR-WIRE-4..-40, MR-WIRE-ICV).
//!
//! Checks, in the order of `metaroce_proto::wire::parse_frame` followed by the receive entry point
//! (`transport::metaroce::on_frame`: ICV verdict, then the destination address), each failure giving the drop
//! code of the model's counter ([`crate::rx::drop`]):
//! MAC error (`tuser`, [`drop::BAD_ICV`]; the model never sees such frames) → Ethernet length, tag and
//! ethertype (`TRUNCATED`, `NOT_OURS`) → IPv4 (length, version, IHL 5, header checksum, fragments, protocol,
//! total length) or IPv6 (length, version, next header: extension headers `UNSUPPORTED`, others `NOT_OURS`) →
//! UDP length present, destination port `cfg_udp_port` (`NOT_OURS`) → datagram length `L` present
//! (`TRUNCATED`), UDP length == `L`, `L >= 24` (`BAD_LENGTH`) → MBH version (`BAD_VERSION`), type
//! (`BAD_TYPE`), hlen ≥ 4 (`BAD_LENGTH`) → trimmed (DSCP == `cfg_dscp_trim` or `L` short of the declared
//! lengths, MR-ENC-33): not DATA or DCID 0 is `BAD_TRIM`, else accepted without ICV → hlen / payload_len
//! consistency (`BAD_LENGTH`) → ICV (`BAD_ICV`) → NACK/CTRL code (`UNSUPPORTED`), SYN placement and Open
//! extension (`MALFORMED`) → destination IP (`NOT_FOR_US`: the IPv4 address when `cfg_ip_en[0]`, the IPv6
//! address when `cfg_ip_en[1]`; the model checks no MAC address, so neither does this block).
//! Every field position comes from `metaroce_proto::wire::layout` (see [`crate::rx::parse_meta`]).
//!
//! Ports: `s_axis_rx_{tdata, tkeep, tlast, tuser, tvalid, tready}`; `m_axis_meta_{tdata: PktMeta, tvalid,
//! tready}` (one per frame, after its end and ICV verdict; `drop` = code or 0; trimmed packets carry only the
//! MBH and the encapsulation, `trimmed` = 1); `m_axis_pay_{tdata, tkeep, tlast, tvalid, tready}`: the payload
//! of every accepted untrimmed DATA packet with `payload_len > 0`, from byte 0, exactly `payload_len` bytes, in
//! meta order (a meta record may be delivered before or while its payload streams). Config: `cfg_udp_port`,
//! `cfg_dscp_trim`, `cfg_ipv4`, `cfg_ipv6`, `cfg_ip_en` (which of the two addresses are ours).
//!
//! Structure: every accepted beat is written into the frame FIFO (`SdpRam`-style block RAM of `fifo_beats`
//! beats, a constructor parameter: default two 4 KiB-MTU frames rounded up to a power of two) and into the
//! stream pipeline: S (one cycle after acceptance: the frame's end decoded from the header register, whose
//! layout flags are decoded from the first beat as it is stored), S2 (the beat's CRC framing and ICV byte
//! positions from the registered end), S3 (the ICV capture and the CRC input,
//! [`crate::common::crc::crc_pipeline`], the arithmetic of [`crate::common::crc`]); the first
//! `MAX_HDR` bytes of the frame are kept in a header register. At the frame's end the header is snapshotted
//! (V0) and a verdict pipeline of registered steps decodes it: VA realigns it to its layout, VB runs every
//! check (one registered bit each), VC encodes the check groups and builds the record, VD folds the IPv4
//! checksum, VE picks the code for either ICV verdict, VF whether the payload is emitted; delay stages follow
//! until the final stage, `3 + latency` cycles after S, where the CRC of the frame is at the head of its FIFO
//! and the ICV verdict selects the code. The descriptor (meta + payload job) enters a 64-entry queue (a RAM
//! read ahead into a 4-entry register stage, [`DESC_FIFO`]). The
//! payload reader then reads the frame's payload beats back from the RAM (frames that are dropped or carry no
//! payload only release their space), realigns them to byte 0 and streams them out (MR-ENC-39: nothing of a
//! frame leaves before its verdict). Frames longer than half the FIFO are dropped as `BAD_LENGTH` (their
//! excess beats are not stored). Throughput: the input accepts one beat per cycle with back-to-back frames (a
//! new frame may start on any beat). A MAC cannot wait, so `tready` is always 1: a frame is admitted at its
//! first beat when the RAM holds at most half its beats (an admitted frame then always fits) and the
//! descriptor queue has room for it and the `latency + 5` frames that may be in the pipeline; a frame that
//! finds no room is discarded whole (nothing of it enters the pipeline) and reported on `stat_overflow`, which
//! the core counts as `rx_overflows`. The payload reader spends
//! `ceil(payload_len / KW) + 1` cycles per DATA packet and 1 per other frame, i.e. never more than the frame's
//! own beat count, so it keeps up with the input. Latency from a frame's last beat to its meta record: about
//! `7 + crc latency` cycles (13 at 512 bits, 14 at 1024). Every register-to-register path is at most 8 LUT
//! levels on UltraScale+ (`cargo xtask synth`).

use crate::blocks::BlockSpec;
use crate::common::crc::{crc_pipeline, crc_prep, latency, lb};
use crate::common::netlist::{Net, N};
use crate::records::PktMeta;
use crate::rx::drop;
use crate::rx::parse_meta::{field_get, meta_bits, meta_pack};
use crate::tx::frame_build::{beat_masks, icv_masked, or_nibbles, MAX_HDR};
use metaroce_proto::wire::layout as lay;
use metaroce_proto::wire::{
    ethernet, ipv4, ipv6, mbh, open, udp, AckFlags, DataFlags, MbhFlags, Opcode,
};
use rust_hdl::prelude::*;

/// Depth of the descriptor queue (frames parsed and waiting for the record output and the payload reader).
pub const DESC_FIFO: usize = 64;

/// Entries of the register stage at the descriptor queue's head.
const DESC_HEAD: usize = 4;

/// The descriptor queue: [`DESC_FIFO`] entries in a RAM (`push` writes `data`; the caller guarantees room),
/// read ahead into a [`DESC_HEAD`]-entry register FIFO whose head the consumer sees (`pop` removes it; the
/// caller guarantees an entry). One descriptor per cycle in and out; a descriptor reaches the head two cycles
/// after its push. Returns (head, head-stage occupancy, total occupancy with `log2(DESC_FIFO) + 1` bits).
fn desc_queue(n: &mut Net, data: N, push: N, pop: N) -> (N, N, N) {
    let ab = DESC_FIFO.trailing_zeros() as usize;
    let ram = n.mem(n.width(data), DESC_FIFO);
    let wp = n.reg(ab + 1, 0);
    let rp = n.reg(ab + 1, 0);
    let wa = n.slice(wp, 0, ab);
    n.mem_write(ram, push, wa, data);
    let wp1 = n.addk(wp, 1);
    n.set_d(wp, wp1, Some(push));
    let inram = n.sub(wp, rp);
    let infl = n.reg(1, 0);
    let ra = n.slice(rp, 0, ab);
    let rd = n.mem_read(ram, ra);
    let (head, hcnt) = n.reg_fifo(DESC_HEAD, rd, infl, pop);
    // Read ahead while the head stage has room for the reads in flight.
    let hw = n.width(hcnt);
    let fl = n.resize(infl, hw);
    let held = n.add(hcnt, fl);
    let hroom = n.ultk(held, DESC_HEAD as u64);
    let ne = n.any(inram);
    let issue = n.and(ne, hroom);
    let rp1 = n.addk(rp, 1);
    n.set_d(rp, rp1, Some(issue));
    n.set_d(infl, issue, None);
    let held7 = n.resize(held, ab + 1);
    let total = n.add(inram, held7);
    (head, hcnt, total)
}

/// The receive parser (see the module docs).
#[derive(LogicBlock)]
pub struct Parser<const DW: usize, const KW: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// Frame data, byte 0 in bits 7:0.
    pub s_axis_rx_tdata: Signal<In, Bits<DW>>,
    /// Frame keep (contiguous from bit 0; only the last beat partial).
    pub s_axis_rx_tkeep: Signal<In, Bits<KW>>,
    /// Last beat of a frame.
    pub s_axis_rx_tlast: Signal<In, Bit>,
    /// MAC error (bad FCS etc.), on any beat of the frame.
    pub s_axis_rx_tuser: Signal<In, Bit>,
    /// Frame valid.
    pub s_axis_rx_tvalid: Signal<In, Bit>,
    /// Frame ready: always 1 (a MAC cannot wait; a frame without room is discarded, `stat_overflow`).
    pub s_axis_rx_tready: Signal<Out, Bit>,
    /// Packet record.
    pub m_axis_meta_tdata: Signal<Out, PktMeta>,
    /// Record valid.
    pub m_axis_meta_tvalid: Signal<Out, Bit>,
    /// Record ready.
    pub m_axis_meta_tready: Signal<In, Bit>,
    /// Payload data.
    pub m_axis_pay_tdata: Signal<Out, Bits<DW>>,
    /// Payload keep.
    pub m_axis_pay_tkeep: Signal<Out, Bits<KW>>,
    /// Last payload beat of a packet.
    pub m_axis_pay_tlast: Signal<Out, Bit>,
    /// Payload valid.
    pub m_axis_pay_tvalid: Signal<Out, Bit>,
    /// Payload ready.
    pub m_axis_pay_tready: Signal<In, Bit>,
    /// MetaRoCE UDP port (4792).
    pub cfg_udp_port: Signal<In, Bits<16>>,
    /// DSCP of trimmed packets (MR-ENC-33).
    pub cfg_dscp_trim: Signal<In, Bits<6>>,
    /// Our IPv4 address.
    pub cfg_ipv4: Signal<In, Bits<32>>,
    /// Our IPv6 address.
    pub cfg_ipv6: Signal<In, Bits<128>>,
    /// Bit 0: `cfg_ipv4` is ours; bit 1: `cfg_ipv6` is ours.
    pub cfg_ip_en: Signal<In, Bits<2>>,
    /// A frame was discarded whole for lack of buffer room (one cycle after its first beat).
    pub stat_overflow: Signal<Out, Bit>,
    _net: Net,
}

impl<const DW: usize, const KW: usize> Default for Parser<DW, KW> {
    fn default() -> Self {
        Self::new(Self::default_fifo_beats())
    }
}

/// Priority encoder: the code of the first true condition, 0 if none.
fn priority(n: &mut Net, conds: &[(N, u8)]) -> N {
    let mut firsts = Vec::new();
    let mut prev: Vec<N> = Vec::new();
    for &(c, code) in conds {
        let f = if prev.is_empty() {
            c
        } else {
            let any = n.or_all(&prev);
            let na = n.not(any);
            n.and(c, na)
        };
        firsts.push((f, code));
        prev.push(c);
    }
    let bits: Vec<N> = (0..8)
        .map(|b| {
            let set: Vec<N> = firsts
                .iter()
                .filter(|(_, code)| code >> b & 1 == 1)
                .map(|(f, _)| *f)
                .collect();
            n.or_all(&set)
        })
        .collect();
    n.cat(&bits)
}

impl<const DW: usize, const KW: usize> Parser<DW, KW> {
    /// Frame FIFO depth (beats) holding two frames of a 4 KiB MTU (headers and ICV included), rounded up to a
    /// power of two: 256 at 512 bits, 128 at 1024.
    pub fn default_fifo_beats() -> usize {
        (2 * (4096 + MAX_HDR + 4).div_ceil(KW)).next_power_of_two()
    }

    /// Builds the block with a frame FIFO of `fifo_beats` beats (a power of two, at least 16).
    pub fn new(fifo_beats: usize) -> Self {
        assert_eq!(DW, KW * 8);
        Parser {
            clk: Default::default(),
            rst: Default::default(),
            s_axis_rx_tdata: Default::default(),
            s_axis_rx_tkeep: Default::default(),
            s_axis_rx_tlast: Default::default(),
            s_axis_rx_tuser: Default::default(),
            s_axis_rx_tvalid: Default::default(),
            s_axis_rx_tready: Default::default(),
            m_axis_meta_tdata: Default::default(),
            m_axis_meta_tvalid: Default::default(),
            m_axis_meta_tready: Default::default(),
            m_axis_pay_tdata: Default::default(),
            m_axis_pay_tkeep: Default::default(),
            m_axis_pay_tlast: Default::default(),
            m_axis_pay_tvalid: Default::default(),
            m_axis_pay_tready: Default::default(),
            cfg_udp_port: Default::default(),
            cfg_dscp_trim: Default::default(),
            cfg_ipv4: Default::default(),
            cfg_ipv6: Default::default(),
            cfg_ip_en: Default::default(),
            stat_overflow: Default::default(),
            _net: Self::build(fifo_beats),
        }
    }

    /// The block's netlist.
    pub fn build(fifo_beats: usize) -> Net {
        assert!(fifo_beats.is_power_of_two() && fifo_beats >= 16);
        let mut n = Net::new();
        let p = PBuild::<DW, KW>::new(&mut n, fifo_beats);
        p.finish(&mut n);
        n
    }
}

/// Builder state of the parser netlist.
struct PBuild<const DW: usize, const KW: usize> {
    aw: usize,
    depth: usize,
}

impl<const DW: usize, const KW: usize> PBuild<DW, KW> {
    fn new(_n: &mut Net, depth: usize) -> Self {
        PBuild {
            aw: depth.trailing_zeros() as usize,
            depth,
        }
    }

    fn finish(&self, n: &mut Net) {
        let l = lb(KW);
        let nh = MAX_HDR.div_ceil(KW);
        let aw = self.aw;
        let pw = aw + 1;
        let d = self.depth;
        let lat = latency(KW);

        let rx_d = n.input("s_axis_rx_tdata", DW);
        let rx_k = n.input("s_axis_rx_tkeep", KW);
        let rx_l = n.input("s_axis_rx_tlast", 1);
        let rx_u = n.input("s_axis_rx_tuser", 1);
        let rx_v = n.input("s_axis_rx_tvalid", 1);
        let meta_rdy = n.input("m_axis_meta_tready", 1);
        let pay_rdy = n.input("m_axis_pay_tready", 1);
        let cfg_port = n.input("cfg_udp_port", 16);
        let cfg_trim = n.input("cfg_dscp_trim", 6);
        let cfg_ipv4 = n.input("cfg_ipv4", 32);
        let cfg_ipv6 = n.input("cfg_ipv6", 128);
        let cfg_en = n.input("cfg_ip_en", 2);

        // ================= input side =================
        // The MAC is never held back (`tready` is 1). A frame is admitted at its first beat when the RAM holds
        // at most `d - fmax` beats (a frame stores at most `fmax`, so it always fits) and the descriptor FIFO
        // has room for it and the frames still in the pipeline; otherwise the whole frame is discarded and
        // counted on `stat_overflow` (one cycle after its first beat).
        let fmax = d / 2;
        let wptr = n.reg(pw, 0);
        let rfree = n.wire(pw);
        let desc_cnt = n.wire(DESC_FIFO.trailing_zeros() as usize + 1);
        let occ = n.sub(wptr, rfree);
        let ram_room = n.ultk(occ, (d - fmax + 1) as u64);
        let desc_room = n.ultk(desc_cnt, (DESC_FIFO - lat - 5) as u64);
        let room = n.and(ram_room, desc_room);
        let rdy = n.lit(1, 1);
        n.output("s_axis_rx_tready", rdy);
        let bi = n.reg(12, 0);
        let skip = n.reg(1, 0);
        let at_first = n.eqk(bi, 0);
        let nskip = n.not(skip);
        let fresh = n.and_all(&[rx_v, nskip, at_first]);
        let refuse = {
            let nroom = n.not(room);
            n.and(fresh, nroom)
        };
        let ovf_stat = n.dff(refuse, None, 0);
        n.output("stat_overflow", ovf_stat);
        let nl = n.not(rx_l);
        let skip_set = n.and(refuse, nl);
        let skip_end = n.and_all(&[rx_v, skip, rx_l]);
        let one_s = n.lit(1, 1);
        let zero_s = n.lit(1, 0);
        let sk1 = n.mux(skip_end, zero_s, skip);
        let sk2 = n.mux(skip_set, one_s, sk1);
        n.set_d(skip, sk2, None);
        let acc = {
            let nref = n.not(refuse);
            n.and_all(&[rx_v, nskip, nref])
        };
        let bi1 = n.addk(bi, 1);
        let z12 = n.lit(12, 0);
        let bi_sat = n.eqk(bi, 0xFFF);
        let bi_inc = n.mux(bi_sat, bi, bi1);
        let bi_next = n.mux(rx_l, z12, bi_inc);
        n.set_d(bi, bi_next, Some(acc));
        // Beats beyond `fmax` of one frame are not stored (the frame is dropped).
        let fits = n.ultk(bi, fmax as u64);
        let we = n.and(acc, fits);
        let wp1 = n.addk(wptr, 1);
        n.set_d(wptr, wp1, Some(we));
        let ram = n.mem(DW, d);
        let wa = n.slice(wptr, 0, aw);
        n.mem_write(ram, we, wa, rx_d);
        let first_beat = n.eqk(bi, 0);
        let fstart = n.reg(pw, 0);
        let fs_en = n.and(acc, first_beat);
        n.set_d(fstart, wptr, Some(fs_en));
        let cur_start = n.mux(first_beat, wptr, fstart);
        let uacc = n.reg(1, 0);
        let z1 = n.lit(1, 0);
        let prev_u = n.mux(first_beat, z1, uacc);
        let u_now = n.or(prev_u, rx_u);
        n.set_d(uacc, u_now, Some(acc));
        // Header register: the first nh beats of the frame.
        let hr: Vec<N> = (0..nh)
            .map(|i| {
                let here = n.eqk(bi, i as u64);
                let en = n.and(acc, here);
                n.dff(rx_d, Some(en), 0)
            })
            .collect();
        // The layout flags of the frame, decoded from its first beat as it is stored in `hr[0]`.
        let fl_en = {
            let here = n.eqk(bi, 0);
            n.and(acc, here)
        };
        let rx_bytes: Vec<N> = (0..ethernet::field::VLAN_HEADER_LEN)
            .map(|k| n.slice(rx_d, 8 * k, 8))
            .collect();
        let (hr_tagged, hr_v4, hr_v6) = Aligned::flags(n, &rx_bytes);
        let hr_flags = n.cat(&[hr_tagged, hr_v4, hr_v6]);
        let hr_flags = n.dff(hr_flags, Some(fl_en), 0);
        // Bytes of the beat: the position after the last kept byte.
        let cnt_bits: Vec<N> = (0..=l)
            .map(|j| {
                let mut terms = Vec::new();
                for i in 0..KW {
                    if ((i + 1) >> j) & 1 == 1 {
                        let ki = n.bit(rx_k, i);
                        let t = if i + 1 < KW {
                            let kn = n.bit(rx_k, i + 1);
                            let nk = n.not(kn);
                            n.and(ki, nk)
                        } else {
                            ki
                        };
                        terms.push(t);
                    }
                }
                n.or_all(&terms)
            })
            .collect();
        let bcnt = n.cat(&cnt_bits);

        // ================= S stage (one cycle after acceptance) =================
        // The frame's end is decoded from the header register here and registered (S2); S2 derives the CRC
        // framing and the ICV byte positions of the beat from it and registers them (S3); S3 feeds the CRC and
        // captures the stored ICV bytes. The beat's data is delayed along.
        let s_v = n.dff(acc, None, 0);
        let s_data = n.dff(rx_d, None, 0);
        let s_last = n.dff(rx_l, None, 0);
        let s_bi = n.dff(bi, None, 0);
        let s_user = n.dff(u_now, None, 0);
        let s_start = n.dff(cur_start, None, 0);
        let s_cnt = n.dff(bcnt, None, 0);
        let hr_all = n.cat(&hr);
        let hb_bytes: Vec<N> = (0..MAX_HDR).map(|k| n.slice(hr_all, 8 * k, 8)).collect();
        let flags_s = [0, 1, 2].map(|i| n.bit(hr_flags, i));
        let al_s = Aligned::with_flags(n, &hb_bytes, flags_s);
        let v_s = Views::from_aligned(n, &al_s);
        // The byte after the payload, where the ICV starts (frame offset).
        let end = {
            let hl = n.resize(v_s.hlen, 17);
            let hl4 = n.shlk(hl, 2);
            let mro = n.resize(v_s.mr_off, 17);
            let pl = n.resize(v_s.plen, 17);
            let a = n.add(mro, hl4);
            n.add(a, pl)
        };
        let s_end = n.and(s_v, s_last);
        let layout_s = n.cat(&[v_s.vlan, v_s.v6]);

        // ================= S2 stage =================
        let s2_v = n.dff(s_v, None, 0);
        let s2_data = n.dff(s_data, None, 0);
        let s2_last = n.dff(s_last, None, 0);
        let s2_bi = n.dff(s_bi, None, 0);
        let end = n.dff(end, None, 0);
        let s2_vlan = n.dff(v_s.vlan, None, 0);
        let layout = n.dff(layout_s, None, 0);
        // The MBH length fields lie within the first `need` bytes.
        let need = ethernet::field::VLAN_HEADER_LEN
            + ipv6::field::HEADER_LEN
            + udp::field::HEADER_LEN
            + mbh::field::HLEN
            + 1;
        let tb = need.div_ceil(KW) - 1;
        let trusted = if tb == 0 {
            n.lit(1, 1)
        } else {
            let lt = n.ultk(s2_bi, tb as u64);
            n.not(lt)
        };
        let em1 = n.addk(end, (1 << 17) - 1);
        let lcb = n.slice(em1, l, 17 - l);
        let lcb12 = n.resize(lcb, 12);
        let crc_done = n.reg(1, 0);
        let ndone = n.not(crc_done);
        let crc_v = n.and(s2_v, ndone);
        let lt_l = n.ult(s2_bi, lcb12);
        let ge_l = n.not(lt_l);
        let tr_end = n.and(trusted, ge_l);
        let crc_last = n.or(s2_last, tr_end);
        let at_l = n.eq(s2_bi, lcb12);
        let tr_at = n.and(trusted, at_l);
        let lcb17 = n.resize(lcb, 17);
        let lsh = n.lit(17, l as u64);
        let lcbs = n.shl(lcb17, lsh);
        let eib = n.sub(end, lcbs);
        let eib = n.slice(eib, 0, l + 1);
        let kwl = n.lit(l + 1, KW as u64);
        let crc_end = n.mux(tr_at, eib, kwl);
        let crc_first = n.eqk(s2_bi, 0);
        let c14 = n.lit(l + 1, ethernet::field::HEADER_LEN as u64);
        let c18 = n.lit(l + 1, ethernet::field::VLAN_HEADER_LEN as u64);
        let start = n.mux(s2_vlan, c18, c14);
        let ones = beat_masks(n, KW, nh, layout, s2_bi, |a, b| icv_masked(a, b).0);
        let nib = beat_masks(n, KW, nh, layout, s2_bi, |a, b| icv_masked(a, b).1);
        let cl = n.and(crc_v, crc_last);
        let nsl = n.not(s2_last);
        let set_done = n.and(cl, nsl);
        let s2_end = n.and(s2_v, s2_last);
        let one1 = n.lit(1, 1);
        let zero1 = n.lit(1, 0);
        let dn1 = n.mux(set_done, one1, crc_done);
        let dn2 = n.mux(s2_end, zero1, dn1);
        n.set_d(crc_done, dn2, None);
        // Stored ICV bytes (big-endian): where byte j of the ICV lies in this beat.
        let s2_bi17 = n.resize(s2_bi, 17);
        let bstart = n.shl(s2_bi17, lsh);
        let rel = n.sub(end, bstart);
        let mut icv_at = Vec::new();
        for j in 0..4u64 {
            let diff = n.addk(rel, j);
            let inb = n.ultk(diff, KW as u64);
            let cap = n.and_all(&[s2_v, trusted, inb]);
            let idx = n.slice(diff, 0, l);
            icv_at.push((n.dff(cap, None, 0), n.dff(idx, None, 0)));
        }

        // ================= S3 stage: CRC input, ICV capture =================
        let s3_data = n.dff(s2_data, None, 0);
        let s3_cv = n.dff(crc_v, None, 0);
        let s3_first = n.dff(crc_first, None, 0);
        let s3_clast = n.dff(crc_last, None, 0);
        let s3_cend = n.dff(crc_end, None, 0);
        let s3_start = n.dff(start, None, 0);
        let s3_ones = n.dff(ones, None, 0);
        let s3_nib = n.dff(nib, None, 0);
        let cd = or_nibbles(n, KW, s3_data, s3_nib);
        let (pd, zeros) = crc_prep(n, KW, s3_first, s3_start, s3_cend, s3_ones, cd);
        let (crc_ov, crc_val) = crc_pipeline(n, KW, s3_cv, s3_first, s3_clast, zeros, pd);
        let sbytes: Vec<N> = (0..KW).map(|i| n.slice(s3_data, 8 * i, 8)).collect();
        let mut icv_now = Vec::new();
        for &(cap, idx) in &icv_at {
            let b = n.sel(idx, &sbytes);
            let r = n.reg(8, 0);
            n.set_d(r, b, Some(cap));
            icv_now.push(n.mux(cap, b, r));
        }
        let icv_stored = n.cat(&[icv_now[3], icv_now[2], icv_now[1], icv_now[0]]);
        // The ICV of a frame is complete at its last beat's S3 stage, two cycles after its S stage: it is
        // delayed to the final verdict stage (S + 3 + lat) by a plain register chain.
        let mut st_icv = n.dff(icv_stored, None, 0);
        for _ in 0..lat {
            st_icv = n.dff(st_icv, None, 0);
        }
        // ================= verdict pipeline =================
        // V0: snapshot at the frame's last beat (S stage).
        let v0_v = n.dff(s_end, None, 0);
        let v0_fh = n.dff(hr_all, Some(s_end), 0);
        let v0_fh = n.slice(v0_fh, 0, MAX_HDR * 8);
        let s_bi16 = n.resize(s_bi, 17);
        let fbase = n.shl(s_bi16, lsh);
        let cnt17 = n.resize(s_cnt, 17);
        let flen = n.add(fbase, cnt17);
        let v0_flen = n.dff(flen, Some(s_end), 0);
        let v0_user = n.dff(s_user, Some(s_end), 0);
        let v0_start = n.dff(s_start, Some(s_end), 0);
        let fits_s = n.ultk(s_bi, fmax as u64);
        let ovf = n.not(fits_s);
        let v0_ovf = n.dff(ovf, Some(s_end), 0);
        let nb = n.addk(s_bi, 1);
        let cap_nb = n.lit(12, fmax as u64);
        let nb_c = n.mux(ovf, cap_nb, nb);
        let v0_nb = n.dff(nb_c, Some(s_end), 0);
        let r = |n: &mut Net, x: N| n.dff(x, None, 0);

        // VA: the header realigned to its layout (IP and layer-4 bytes at fixed positions), registered.
        let fhb: Vec<N> = (0..MAX_HDR).map(|k| n.slice(v0_fh, 8 * k, 8)).collect();
        let al0 = Aligned::new(n, &fhb);
        let al = al0.registered(n);
        let va_v = r(n, v0_v);
        let va_flen = r(n, v0_flen);
        let va_user = r(n, v0_user);
        let va_ovf = r(n, v0_ovf);
        let va_start = r(n, v0_start);
        let va_nb = r(n, v0_nb);

        // VB: decode and compare (every check a registered bit).
        let v = Views::from_aligned(n, &al);
        let f = va_flen;
        let lt = |n: &mut Net, x: usize| n.ultk(f, x as u64);
        let t_eth = lt(n, ethernet::field::HEADER_LEN);
        let t_tag0 = lt(n, ethernet::field::VLAN_HEADER_LEN);
        let t_tag = n.and(v.tagged, t_tag0);
        let not_ip = {
            let a = n.or(v.v4, v.v6);
            n.not(a)
        };
        let ipo17 = n.resize(v.ip_off, 17);
        let ipl17 = n.resize(v.ip_hl, 17);
        let ipend = n.add(ipo17, ipl17);
        let t_ip = n.ult(f, ipend);
        let ver_bad = {
            let v4b = n.eqk(v.ip_ver, 4);
            let v6b = n.eqk(v.ip_ver, 6);
            let a = n.mux(v.v6, v6b, v4b);
            n.not(a)
        };
        let ihl_bad = {
            let x = n.eqk(v.ihl, (ipv4::field::HEADER_LEN / 4) as u64);
            let nx = n.not(x);
            n.and(v.v4, nx)
        };
        // IPv4 checksum: partial sums registered here, folded in V2.
        let mut sums = Vec::new();
        for g in 0..2 {
            let mut acc: Option<N> = None;
            for k in (g * 5)..(g * 5 + 5) {
                let w = n.cat(&[v.ipb[2 * k + 1], v.ipb[2 * k]]);
                let w19 = n.resize(w, 19);
                acc = Some(match acc {
                    None => w19,
                    Some(a) => n.add(a, w19),
                });
            }
            sums.push(acc.expect("words"));
        }
        let frag_bad = {
            let mf = n.any(v.mf);
            let fo = n.any(v.frag_off);
            let x = n.or(mf, fo);
            n.and(v.v4, x)
        };
        let proto_udp = n.eqk(v.protocol, ipv4::PROTOCOL_UDP as u64);
        let proto_bad = {
            let np = n.not(proto_udp);
            n.and(v.v4, np)
        };
        let tl_bad = {
            let x = n.ultk(v.total_len, ipv4::field::HEADER_LEN as u64);
            n.and(v.v4, x)
        };
        let nh_udp = n.eqk(v.next_header, ipv4::PROTOCOL_UDP as u64);
        let ext: Vec<N> = [0u64, 43, 44, 50, 51, 60, 135, 139, 140, 253, 254]
            .iter()
            .map(|&x| n.eqk(v.next_header, x))
            .collect();
        let is_ext = n.or_all(&ext);
        let nh_bad = {
            let x = n.not(nh_udp);
            n.and(v.v6, x)
        };
        let nh_unsup = n.and(nh_bad, is_ext);
        let uo17 = n.resize(v.udp_off, 17);
        let uend = n.addk(uo17, udp::field::HEADER_LEN as u64);
        let t_udp = n.ult(f, uend);
        let port_bad = {
            let x = n.eq(v.dst_port, cfg_port);
            n.not(x)
        };
        let l_len = v.l_len; // 16 bits
        let l17 = n.resize(l_len, 17);
        let lend = n.add(uo17, l17);
        let t_l = n.ult(f, lend);
        let ulen_bad = {
            let x = n.eq(v.udp_len, l_len);
            n.not(x)
        };
        let l_small = n.ultk(
            l_len,
            (udp::field::HEADER_LEN + mbh::field::HEADER_LEN) as u64,
        );
        let mver_bad = {
            let x = n.eqk(v.mver, mbh::VERSION as u64);
            n.not(x)
        };
        let ptype_ok = {
            let a = n.ultk(v.ptype, 5);
            let z = n.eqk(v.ptype, 0);
            let nz = n.not(z);
            n.and(a, nz)
        };
        let ptype_bad = n.not(ptype_ok);
        let hlen_small = n.ultk(v.hlen, (mbh::field::HEADER_LEN / 4) as u64);
        let hl18 = n.resize(v.hlen, 18);
        let hlb = n.shlk(hl18, 2);
        let pl18 = n.resize(v.plen, 18);
        let e0 = n.add(hlb, pl18);
        let expected = n.addk(e0, (udp::field::HEADER_LEN + 4) as u64);
        let l18 = n.resize(l_len, 18);
        let l_short = n.ult(l18, expected);
        let dscp_trim = n.eq(v.dscp, cfg_trim);
        let trimmed = n.or(dscp_trim, l_short);
        let is_data = n.eqk(v.ptype, 1);
        let is_ack = n.eqk(v.ptype, 2);
        let is_nack = n.eqk(v.ptype, 3);
        let is_ctrl = n.eqk(v.ptype, 4);
        let dcid0 = n.eqk(v.dcid, 0);
        let trim_bad = {
            let nd = n.not(is_data);
            let x = n.or(nd, dcid0);
            n.and(trimmed, x)
        };
        let want = {
            let c16 = n.lit(8, mbh::field::HEADER_LEN as u64);
            let t = n.add(c16, v.ty_len);
            let c12 = n.lit(8, lay::OPEN.len as u64);
            let z8 = n.lit(8, 0);
            let o = n.mux(v.syn, c12, z8);
            n.add(t, o)
        };
        let hl10 = n.resize(v.hlen, 10);
        let hbytes = n.shlk(hl10, 2);
        let want10 = n.resize(want, 10);
        let hl_ne = {
            let x = n.eq(hbytes, want10);
            n.not(x)
        };
        let exp_ne = {
            let x = n.eq(l18, expected);
            n.not(x)
        };
        let pl_nz = n.any(v.plen);
        let nd = n.not(is_data);
        let pl_bad = n.and(nd, pl_nz);
        let len_bad = n.or_all(&[hl_ne, exp_ne, pl_bad]);
        // Type-specific (after the ICV).
        let nack_ok = {
            let a = n.ultk(v.code, 7);
            let z = n.eqk(v.code, 0);
            let nz = n.not(z);
            n.and(a, nz)
        };
        let code_bad = {
            let nok = n.not(nack_ok);
            let b = n.or(is_nack, is_ctrl);
            n.and(b, nok)
        };
        let is_open = n.eqk(v.code, metaroce_proto::wire::CtrlCode::Open as u64);
        let syn_bad = {
            let a = n.and(is_nack, v.syn);
            let neq = n.xor(v.syn, is_open);
            let b = n.and(is_ctrl, neq);
            n.or(a, b)
        };
        let ox_bad = {
            let wl_lo = n.ultk(v.ox_wlog, open::WLOG_MIN as u64);
            let wl_hi = n.ultk(v.ox_wlog, open::WLOG_MAX as u64 + 1);
            let nwh = n.not(wl_hi);
            let mt_lo = n.ultk(v.ox_mtu, open::MTU_LOG_MIN as u64);
            let mt_hi = n.ultk(v.ox_mtu, open::MTU_LOG_MAX as u64 + 1);
            let nmh = n.not(mt_hi);
            let sc0 = n.eqk(v.ox_scid, 0);
            let bad = n.or_all(&[wl_lo, nwh, mt_lo, nmh, sc0]);
            n.and(v.syn, bad)
        };
        let ours = {
            let e4 = n.bit(cfg_en, 0);
            let e6 = n.bit(cfg_en, 1);
            let m4 = n.eq(v.dst4, cfg_ipv4);
            let m6 = n.eq(v.dst6, cfg_ipv6);
            let a4 = n.and(e4, m4);
            let a6 = n.and(e6, m6);
            n.mux(v.v6, a6, a4)
        };
        let nfu = n.not(ours);
        let pl_nz_b = pl_nz;
        // Register VB.
        let vb_v = r(n, va_v);
        let conds_a = [
            (va_user, drop::BAD_ICV),
            (va_ovf, drop::BAD_LENGTH),
            (t_eth, drop::TRUNCATED),
            (t_tag, drop::TRUNCATED),
            (not_ip, drop::NOT_OURS),
            (t_ip, drop::TRUNCATED),
            (ver_bad, drop::BAD_VERSION),
            (ihl_bad, drop::UNSUPPORTED),
        ];
        let conds_b = [
            (frag_bad, drop::UNSUPPORTED),
            (proto_bad, drop::NOT_OURS),
            (tl_bad, drop::BAD_LENGTH),
            (nh_unsup, drop::UNSUPPORTED),
            (nh_bad, drop::NOT_OURS),
            (t_udp, drop::TRUNCATED),
            (port_bad, drop::NOT_OURS),
            (t_l, drop::TRUNCATED),
            (ulen_bad, drop::BAD_LENGTH),
            (l_small, drop::BAD_LENGTH),
            (mver_bad, drop::BAD_VERSION),
            (ptype_bad, drop::BAD_TYPE),
            (hlen_small, drop::BAD_LENGTH),
            (trim_bad, drop::BAD_TRIM),
        ];
        let conds_post = [
            (code_bad, drop::UNSUPPORTED),
            (syn_bad, drop::MALFORMED),
            (ox_bad, drop::MALFORMED),
        ];
        let reg_conds = |n: &mut Net, cs: &[(N, u8)]| -> Vec<(N, u8)> {
            cs.iter()
                .map(|&(c, code)| (n.dff(c, None, 0), code))
                .collect()
        };
        let vb_a = reg_conds(n, &conds_a);
        let vb_b = reg_conds(n, &conds_b);
        let vb_post = reg_conds(n, &conds_post);
        let vb_len = r(n, len_bad);
        let vb_trim = r(n, trimmed);
        let vb_nfu = r(n, nfu);
        let vb_v4 = r(n, v.v4);
        let vb_sum0 = r(n, sums[0]);
        let vb_sum1 = r(n, sums[1]);
        let vb_is = [is_data, is_ack, is_nack, is_ctrl].map(|x| n.dff(x, None, 0));
        let vb_plnz = r(n, pl_nz_b);
        let vb_al = al.registered(n);
        let vb_start = r(n, va_start);
        let vb_nb = r(n, va_nb);
        let hl8 = n.resize(hbytes, 8);
        let mro8 = n.resize(v.mr_off, 8);
        let poff = n.add(mro8, hl8);
        let vb_poff = r(n, poff);
        let vb_plen = r(n, v.plen);

        // VC: the codes of the check groups, the record, the checksum sum, the payload job.
        let vc_v = r(n, vb_v);
        let pre_a = priority(n, &vb_a);
        let vc_pre_a = r(n, pre_a);
        let pre_b = priority(n, &vb_b);
        let vc_pre_b = r(n, pre_b);
        let post = priority(n, &vb_post);
        let vc_post = r(n, post);
        let vc_len = r(n, vb_len);
        let vc_trim = r(n, vb_trim);
        let vc_nfu = r(n, vb_nfu);
        let vc_v4 = r(n, vb_v4);
        let s0 = n.resize(vb_sum0, 20);
        let s1 = n.resize(vb_sum1, 20);
        let sum = n.add(s0, s1);
        let vc_sum = r(n, sum);
        // Record fields (trimmed packets: MBH and encapsulation only).
        let v2 = Views::from_aligned(n, &vb_al);
        let [is_data, is_ack, is_nack, is_ctrl] = vb_is;
        let ntr = n.not(vb_trim);
        let meta = v2.meta(n, is_data, is_ack, is_nack, is_ctrl, vb_trim);
        let vc_meta = r(n, meta);
        let emit_pl = n.and_all(&[is_data, ntr, vb_plnz]);
        let vc_emit = r(n, emit_pl);
        // Payload job.
        let hb = n.slice(vb_poff, l, 8 - l);
        let hb_p = n.resize(hb, pw);
        let hlm = n.slice(vb_poff, 0, l);
        let pl17 = n.resize(vb_plen, 17);
        let plr = n.addk(pl17, (KW - 1) as u64);
        let nout = n.slice(plr, l, 17 - l);
        let nout12 = n.resize(nout, 12);
        let lastc = {
            let m = n.slice(vb_plen, 0, l);
            let z = n.eqk(m, 0);
            let ml = n.resize(m, l + 1);
            let kwc = n.lit(l + 1, KW as u64);
            n.mux(z, kwc, ml)
        };
        let rd0 = n.add(vb_start, hb_p);
        let nbp = n.resize(vb_nb, pw);
        let jend = n.add(vb_start, nbp);
        let job_rest = n.cat(&[rd0, jend, nout12, hlm, lastc]);
        let vc_job = r(n, job_rest);

        // VD: the IPv4 checksum fold; which codes are set.
        let vd_v = r(n, vc_v);
        let lo = n.slice(vc_sum, 0, 16);
        let hi = n.slice(vc_sum, 16, 4);
        let lo17 = n.resize(lo, 17);
        let hi17 = n.resize(hi, 17);
        let f1 = n.add(lo17, hi17);
        let f1lo = n.slice(f1, 0, 16);
        let f1c = n.slice(f1, 16, 1);
        let f1c16 = n.resize(f1c, 16);
        let f2 = n.add(f1lo, f1c16);
        let ck_ok = n.eqk(f2, 0xFFFF);
        let ck_bad0 = n.not(ck_ok);
        let ck_bad = n.and(vc_v4, ck_bad0);
        let vd_ck = r(n, ck_bad);
        let a_nz = n.any(vc_pre_a);
        let vd_anz = r(n, a_nz);
        let b_nz = n.any(vc_pre_b);
        let vd_bnz = r(n, b_nz);
        let p_nz = n.any(vc_post);
        let vd_pnz = r(n, p_nz);
        let vd_pre_a = r(n, vc_pre_a);
        let vd_pre_b = r(n, vc_pre_b);
        let vd_post = r(n, vc_post);
        let vd_len = r(n, vc_len);
        let vd_trim = r(n, vc_trim);
        let vd_nfu = r(n, vc_nfu);
        let vd_meta = r(n, vc_meta);
        let vd_emit = r(n, vc_emit);
        let vd_job = r(n, vc_job);

        // VE: the code before the ICV verdict (checks in order; untrimmed packets: the length check next), and
        // the final code for either ICV verdict.
        let ve_v = r(n, vd_v);
        let c_ck = n.lit(8, drop::BAD_IP_CHECKSUM as u64);
        let ck_code = n.mux(vd_ck, c_ck, vd_pre_b);
        let pre = n.mux(vd_anz, vd_pre_a, ck_code);
        let pre_nz = n.or_all(&[vd_anz, vd_ck, vd_bnz]);
        let ntr1 = n.not(vd_trim);
        let npre = n.not(pre_nz);
        let use_len = n.and_all(&[ntr1, vd_len, npre]);
        let c_bl = n.lit(8, drop::BAD_LENGTH as u64);
        let pre2 = n.mux(use_len, c_bl, pre);
        let pre2_nz = n.or(pre_nz, use_len);
        let z8 = n.lit(8, 0);
        let c_icv = n.lit(8, drop::BAD_ICV as u64);
        let c_nfu = n.lit(8, drop::NOT_FOR_US as u64);
        let nfu_code = n.mux(vd_nfu, c_nfu, z8);
        let untr_good = n.mux(vd_pnz, vd_post, nfu_code);
        let after_good = n.mux(vd_trim, nfu_code, untr_good);
        let after_bad = n.mux(vd_trim, nfu_code, c_icv);
        let code_good = n.mux(pre2_nz, pre2, after_good);
        let code_bad = n.mux(pre2_nz, pre2, after_bad);
        let ve_cg = r(n, code_good);
        let ve_cb = r(n, code_bad);
        let ve_meta = r(n, vd_meta);
        let ve_emit = r(n, vd_emit);
        let ve_job = r(n, vd_job);

        // VF: which of the two would emit the payload.
        let ok_g = n.eqk(ve_cg, 0);
        let ok_b = n.eqk(ve_cb, 0);
        let eg = n.and(ok_g, ve_emit);
        let eb = n.and(ok_b, ve_emit);
        let mut st_v = r(n, ve_v);
        let mut st_cg = r(n, ve_cg);
        let mut st_cb = r(n, ve_cb);
        let mut st_eg = r(n, eg);
        let mut st_eb = r(n, eb);
        let mut st_meta = r(n, ve_meta);
        let mut st_job = r(n, ve_job);
        // Delay to the CRC: VF is stage 7 after the S stage; the frame's CRC is at its FIFO's head at
        // stage `lat + 3`.
        assert!(lat >= 4);
        for _ in 7..lat + 3 {
            st_v = r(n, st_v);
            st_cg = r(n, st_cg);
            st_cb = r(n, st_cb);
            st_eg = r(n, st_eg);
            st_eb = r(n, st_eb);
            st_meta = r(n, st_meta);
            st_job = r(n, st_job);
        }
        // Final stage: the ICV verdict picks the code.
        let crc_pop = n.wire(1);
        let (crc_head, _crc_cnt) = n.shift_fifo(16, crc_val, crc_ov, crc_pop);
        n.drive(crc_pop, st_v);
        let icv_ok = n.eq(crc_head, st_icv);
        let code = n.mux(icv_ok, st_cg, st_cb);
        let emit = n.mux(icv_ok, st_eg, st_eb);
        let (dofs, dw) = crate::rx::parse_meta::meta_field("drop");
        let meta_lo = n.slice(st_meta, 0, dofs);
        let mb = meta_bits();
        let meta_f = if dofs + dw < mb {
            let hi = n.slice(st_meta, dofs + dw, mb - dofs - dw);
            n.cat(&[meta_lo, code, hi])
        } else {
            n.cat(&[meta_lo, code])
        };
        let job = n.cat(&[emit, st_job]);
        let desc = n.cat(&[meta_f, job]);
        // ================= descriptor FIFO, meta output =================
        let dpop = n.wire(1);
        let (dhead, dcnt, dtotal) = desc_queue(n, desc, st_v, dpop);
        n.drive(desc_cnt, dtotal);
        let m_v = n.reg(1, 0);
        let m_d = n.reg(mb, 0);
        let jpop = n.wire(1);
        let jw = n.width(job);
        let jpush = n.wire(1);
        let jhead_data = n.slice(dhead, mb, jw);
        let (jhead, jcnt) = n.reg_fifo(4, jhead_data, jpush, jpop);
        let dne = n.any(dcnt);
        let nmv = n.not(m_v);
        let mfree = n.or(nmv, meta_rdy);
        let jroom = n.ultk(jcnt, 4);
        let dp = n.and_all(&[dne, mfree, jroom]);
        n.drive(dpop, dp);
        n.drive(jpush, dp);
        let dmeta = n.slice(dhead, 0, mb);
        n.set_d(m_d, dmeta, Some(dp));
        let mv1 = n.mux(meta_rdy, zero1, m_v);
        let mv2 = n.mux(dp, one1, mv1);
        n.set_d(m_v, mv2, None);
        n.output("m_axis_meta_tdata", m_d);
        n.output("m_axis_meta_tvalid", m_v);

        // ================= payload reader =================
        let mut o = 0;
        let mut take = |n: &mut Net, w: usize| {
            let x = n.slice(jhead, o, w);
            o += w;
            x
        };
        let j_emit = take(n, 1);
        let j_rd = take(n, pw);
        let j_end = take(n, pw);
        let j_nout = take(n, 12);
        let j_hlm = take(n, l);
        let j_lastc = take(n, l + 1);
        let act = n.reg(1, 0);
        let rd = n.reg(pw, 0);
        let left = n.reg(12, 0);
        let c_end = n.reg(pw, 0);
        let c_hlm = n.reg(l, 0);
        let c_lastc = n.reg(l + 1, 0);
        let c_first = n.reg(1, 0);
        let ocnt = n.wire(3);
        let oroom = n.ultk(ocnt, 3);
        let iss = n.and(act, oroom);
        let left1 = n.eqk(left, 1);
        let last_iss = n.and(iss, left1);
        let nact = n.not(act);
        let can_new = n.or(nact, last_iss);
        let jne = n.any(jcnt);
        let newj = n.and(can_new, jne);
        n.drive(jpop, newj);
        let start_emit = n.and(newj, j_emit);
        let nje = n.not(j_emit);
        let release_now = n.and(newj, nje);
        // Frame space release: a dropped job at once, an emitted one at its last read.
        let rf = n.reg(pw, 0);
        n.drive(rfree, rf);
        let rf1 = n.mux(last_iss, c_end, rf);
        let rf2 = n.mux(release_now, j_end, rf1);
        n.set_d(rf, rf2, None);
        let act1 = n.mux(last_iss, zero1, act);
        let act2 = n.mux(start_emit, one1, act1);
        n.set_d(act, act2, None);
        let rd1 = n.addk(rd, 1);
        let rdn = n.mux(start_emit, j_rd, rd1);
        let rd_en = n.or(start_emit, iss);
        n.set_d(rd, rdn, Some(rd_en));
        let jn1 = n.addk(j_nout, 1);
        let lm1 = n.addk(left, 0xFFF);
        let ln = n.mux(start_emit, jn1, lm1);
        n.set_d(left, ln, Some(rd_en));
        n.set_d(c_end, j_end, Some(start_emit));
        n.set_d(c_hlm, j_hlm, Some(start_emit));
        n.set_d(c_lastc, j_lastc, Some(start_emit));
        let cf1 = n.mux(iss, zero1, c_first);
        let cf2 = n.mux(start_emit, one1, cf1);
        n.set_d(c_first, cf2, None);
        let ra = n.slice(rd, 0, aw);
        let rdata = n.mem_read(ram, ra);
        let r_v = n.dff(iss, None, 0);
        let r_first = n.dff(c_first, None, 0);
        let r_last = n.dff(last_iss, None, 0);
        let r_hlm = n.dff(c_hlm, None, 0);
        let r_lastc = n.dff(c_lastc, None, 0);
        let hold = n.reg(DW, 0);
        n.set_d(hold, rdata, Some(r_v));
        let shw = l + 4;
        let hx = n.resize(r_hlm, shw);
        let sh1 = n.shlk(hx, 3);
        let kwc = n.lit(shw, KW as u64);
        let inv = n.sub(kwc, hx);
        let sh2 = n.shlk(inv, 3);
        let a = n.shr(hold, sh1);
        let b = n.shl(rdata, sh2);
        let od = n.or(a, b);
        let th = n.thermo(r_lastc, KW);
        let all = n.lit_words(KW, vec![u64::MAX; KW.div_ceil(64)]);
        let okeep = n.mux(r_last, th, all);
        let kbytes: Vec<N> = (0..KW)
            .map(|i| {
                let kb = n.bit(okeep, i);
                n.rep(kb, 8)
            })
            .collect();
        let kmask = n.cat(&kbytes);
        let odm = n.and(od, kmask);
        let nrf = n.not(r_first);
        let opush = n.and(r_v, nrf);
        let oentry = n.cat(&[odm, okeep, r_last]);
        let opop = n.wire(1);
        let (ohead, oc) = n.reg_fifo(4, oentry, opush, opop);
        n.drive(ocnt, oc);
        let one = n.any(oc);
        let op = n.and(one, pay_rdy);
        n.drive(opop, op);
        let o_d = n.slice(ohead, 0, DW);
        let o_k = n.slice(ohead, DW, KW);
        let o_l = n.bit(ohead, DW + KW);
        n.output("m_axis_pay_tdata", o_d);
        n.output("m_axis_pay_tkeep", o_k);
        n.output("m_axis_pay_tlast", o_l);
        n.output("m_axis_pay_tvalid", one);
    }
}

/// Header fields of a frame decoded from its first `MAX_HDR` bytes, for every layout (Ethernet with or without
/// tag, IPv4 or IPv6), positions from the proto layout tables.
struct Views {
    tagged: N,
    vlan: N,
    v4: N,
    v6: N,
    ip_off: N,
    ip_hl: N,
    udp_off: N,
    mr_off: N,
    ipb: Vec<N>,
    l4: Vec<N>,
    ip_ver: N,
    ihl: N,
    mf: N,
    frag_off: N,
    protocol: N,
    total_len: N,
    next_header: N,
    dscp: N,
    ecn: N,
    src4: N,
    dst4: N,
    src6: N,
    dst6: N,
    l_len: N,
    dst_port: N,
    src_port: N,
    udp_len: N,
    mver: N,
    ptype: N,
    syn: N,
    hlen: N,
    plen: N,
    dcid: N,
    ty_len: N,
    code: N,
    ox: Vec<N>,
    ox_wlog: N,
    ox_mtu: N,
    ox_scid: N,
    fh: Vec<N>,
}

/// A frame header realigned to its layout: the layout flags, the IP header bytes and the layer-4 bytes at fixed
/// positions, and the Ethernet header bytes.
struct Aligned {
    tagged: N,
    v4: N,
    v6: N,
    ipb: Vec<N>,
    l4: Vec<N>,
    fh: Vec<N>,
}

impl Aligned {
    /// The layout flags (tagged, IPv4, IPv6) from the Ethernet header bytes.
    fn flags(n: &mut Net, fh: &[N]) -> (N, N, N) {
        let e = &lay::ETHERNET;
        let et = field_get(n, fh, e, 0, "ethertype");
        let tagged = n.eqk(et, ethernet::EtherType::VLAN as u64);
        let inner = field_get(n, fh, &lay::ETHERNET_VLAN, 0, "ethertype");
        let et2 = n.mux(tagged, inner, et);
        let v4 = n.eqk(et2, ethernet::EtherType::IPV4 as u64);
        let v6 = n.eqk(et2, ethernet::EtherType::IPV6 as u64);
        (tagged, v4, v6)
    }

    fn new(n: &mut Net, fh: &[N]) -> Self {
        let (tagged, v4, v6) = Self::flags(n, fh);
        Self::with_flags(n, fh, [tagged, v4, v6])
    }

    /// The realignment with the layout flags given (decoded earlier).
    fn with_flags(n: &mut Net, fh: &[N], flags: [N; 3]) -> Self {
        let [tagged, v4, v6] = flags;
        let vlan = tagged;
        let e14 = ethernet::field::HEADER_LEN;
        let e18 = ethernet::field::VLAN_HEADER_LEN;
        let nip = MAX_HDR - e18;
        let ipb: Vec<N> = (0..nip)
            .map(|k| n.mux(vlan, fh[e18 + k], fh[e14 + k]))
            .collect();
        let nl4 = nip - ipv6::field::HEADER_LEN;
        let l4: Vec<N> = (0..nl4)
            .map(|k| {
                n.mux(
                    v6,
                    ipb[ipv6::field::HEADER_LEN + k],
                    ipb[ipv4::field::HEADER_LEN + k],
                )
            })
            .collect();
        Aligned {
            tagged,
            v4,
            v6,
            ipb,
            l4,
            fh: fh[..e18].to_vec(),
        }
    }

    /// The same, registered (one cycle later).
    fn registered(&self, n: &mut Net) -> Self {
        let mut r = |xs: &[N]| -> Vec<N> { xs.iter().map(|&x| n.dff(x, None, 0)).collect() };
        let flags = r(&[self.tagged, self.v4, self.v6]);
        Aligned {
            tagged: flags[0],
            v4: flags[1],
            v6: flags[2],
            ipb: r(&self.ipb),
            l4: r(&self.l4),
            fh: r(&self.fh),
        }
    }
}

impl Views {
    fn from_aligned(n: &mut Net, a: &Aligned) -> Self {
        let (tagged, v4, v6) = (a.tagged, a.v4, a.v6);
        let vlan = tagged;
        let (ipb, l4, fh) = (a.ipb.clone(), a.l4.clone(), a.fh.clone());
        let e14 = ethernet::field::HEADER_LEN;
        let e18 = ethernet::field::VLAN_HEADER_LEN;
        let c14 = n.lit(8, e14 as u64);
        let c18 = n.lit(8, e18 as u64);
        let ip_off = n.mux(vlan, c18, c14);
        let i20 = n.lit(8, ipv4::field::HEADER_LEN as u64);
        let i40 = n.lit(8, ipv6::field::HEADER_LEN as u64);
        let ip_hl = n.mux(v6, i40, i20);
        let udp_off = n.add(ip_off, ip_hl);
        let mr_off = n.addk(udp_off, udp::field::HEADER_LEN as u64);
        let (h4, h6) = (&lay::IPV4, &lay::IPV6);
        let ver4 = field_get(n, &ipb, h4, 0, "version");
        let ver6 = field_get(n, &ipb, h6, 0, "version");
        let ip_ver = n.mux(v6, ver6, ver4);
        let ihl = field_get(n, &ipb, h4, 0, "ihl");
        let mf = field_get(n, &ipb, h4, 0, "mf");
        let frag_off = field_get(n, &ipb, h4, 0, "frag_offset");
        let protocol = field_get(n, &ipb, h4, 0, "protocol");
        let total_len = field_get(n, &ipb, h4, 0, "total_len");
        let next_header = field_get(n, &ipb, h6, 0, "next_header");
        let d4 = field_get(n, &ipb, h4, 0, "dscp");
        let d6 = field_get(n, &ipb, h6, 0, "dscp");
        let dscp = n.mux(v6, d6, d4);
        let c4 = field_get(n, &ipb, h4, 0, "ecn");
        let c6 = field_get(n, &ipb, h6, 0, "ecn");
        let ecn = n.mux(v6, c6, c4);
        let src4 = field_get(n, &ipb, h4, 0, "src");
        let dst4 = field_get(n, &ipb, h4, 0, "dst");
        let src6 = field_get(n, &ipb, h6, 0, "src");
        let dst6 = field_get(n, &ipb, h6, 0, "dst");
        let pl6 = field_get(n, &ipb, h6, 0, "payload_len");
        let tl20 = n.addk(total_len, 0x10000 - ipv4::field::HEADER_LEN as u64);
        let l_len = n.mux(v6, pl6, tl20);
        let u = &lay::UDP;
        let dst_port = field_get(n, &l4, u, 0, "dst_port");
        let src_port = field_get(n, &l4, u, 0, "src_port");
        let udp_len = field_get(n, &l4, u, 0, "length");
        let mb = udp::field::HEADER_LEN;
        let m = &lay::MBH;
        let mver = field_get(n, &l4, m, mb, "ver");
        let ptype = field_get(n, &l4, m, mb, "type");
        let syn = field_get(n, &l4, m, mb, "syn");
        let hlen = field_get(n, &l4, m, mb, "hlen");
        let plen = field_get(n, &l4, m, mb, "payload_len");
        let dcid = field_get(n, &l4, m, mb, "dcid");
        let tb = mb + mbh::field::HEADER_LEN;
        let opb = field_get(n, &l4, &lay::DATA, tb, "opcode");
        let ia = n.eqk(opb, Opcode::WriteImm as u64);
        let ib = n.eqk(opb, Opcode::SendImm as u64);
        let imm = n.or(ia, ib);
        let dl = lay::DATA.field("imm").expect("imm").offset as u64;
        let c_d = n.lit(8, dl);
        let c_di = n.lit(8, lay::DATA.len as u64);
        let c_a = n.lit(8, lay::ACK.len as u64);
        let c_n = n.lit(8, lay::NACK.len as u64);
        let c_c = n.lit(8, lay::CTRL.len as u64);
        let tyd = n.mux(imm, c_di, c_d);
        let ty_len = n.sel(ptype, &[c_d, tyd, c_a, c_n, c_c]);
        let code = field_get(n, &l4, &lay::NACK, tb, "code");
        // The Open extension after the type header (the four possible positions).
        let ol = lay::OPEN.len;
        let ox: Vec<N> = (0..ol)
            .map(|k| {
                let at = |len: usize| l4[tb + len + k];
                let d = n.mux(imm, at(lay::DATA.len), at(dl as usize));
                let nn = at(lay::NACK.len);
                let opts = [d, d, at(lay::ACK.len), nn, at(lay::CTRL.len)];
                n.sel(ptype, &opts)
            })
            .collect();
        let ox_wlog = field_get(n, &ox, &lay::OPEN, 0, "wlog");
        let ox_mtu = field_get(n, &ox, &lay::OPEN, 0, "mtu_log");
        let ox_scid = field_get(n, &ox, &lay::OPEN, 0, "scid");
        Views {
            tagged,
            vlan,
            v4,
            v6,
            ip_off,
            ip_hl,
            udp_off,
            mr_off,
            ipb,
            l4,
            ip_ver,
            ihl,
            mf,
            frag_off,
            protocol,
            total_len,
            next_header,
            dscp,
            ecn,
            src4,
            dst4,
            src6,
            dst6,
            l_len,
            dst_port,
            src_port,
            udp_len,
            mver,
            ptype,
            syn,
            hlen,
            plen,
            dcid,
            ty_len,
            code,
            ox,
            ox_wlog,
            ox_mtu,
            ox_scid,
            fh,
        }
    }

    /// The packed [`PktMeta`] of the frame (drop = 0; the caller inserts it).
    fn meta(&self, n: &mut Net, is_data: N, is_ack: N, is_nack: N, is_ctrl: N, trimmed: N) -> N {
        let l4 = &self.l4;
        let mb = udp::field::HEADER_LEN;
        let tb = mb + mbh::field::HEADER_LEN;
        let m = &lay::MBH;
        let ntr = n.not(trimmed);
        let gate = |n: &mut Net, c: N, x: N| {
            let z = n.lit(n.width(x), 0);
            n.mux(c, x, z)
        };
        let peer_mac = field_get(n, &self.fh, &lay::ETHERNET, 0, "src");
        let s4 = n.resize(self.src4, 128);
        let peer_ip = n.mux(self.v6, self.src6, s4);
        let tci0 = field_get(n, &self.fh, &lay::ETHERNET_VLAN, 0, "tci");
        let tci = gate(n, self.vlan, tci0);
        let ev = n.slice(self.src_port, 0, 14);
        let flags_raw = field_get(n, l4, m, mb, "syn");
        let ar = field_get(n, l4, m, mb, "ar");
        let rtx = field_get(n, l4, m, mb, "rtx");
        let _ = flags_raw;
        let mut fl = vec![n.lit(1, 0); 8];
        fl[MbhFlags::SYN.0.trailing_zeros() as usize] = self.syn;
        fl[MbhFlags::AR.0.trailing_zeros() as usize] = ar;
        fl[MbhFlags::RTX.0.trailing_zeros() as usize] = rtx;
        let flags = n.cat(&fl);
        let psn = field_get(n, l4, m, mb, "psn");
        let ts = field_get(n, l4, m, mb, "ts");
        let dv = n.and(is_data, ntr);
        let av = n.and(is_ack, ntr);
        let nv = n.or(is_nack, is_ctrl);
        let nv = n.and(nv, ntr);
        let dh = &lay::DATA;
        let opb = field_get(n, l4, dh, tb, "opcode");
        // Opcode::from_wire: defined values, else Experimental (>= 0x80) or Reserved (0).
        let defined: Vec<N> = (0u64..=255)
            .filter(|&x| Opcode::from_u8(x as u8).is_some())
            .map(|x| n.eqk(opb, x))
            .collect();
        let is_def = n.or_all(&defined);
        let hi = n.bit(opb, 7);
        let exp = n.lit(8, Opcode::Experimental as u64);
        let res = n.lit(8, Opcode::Reserved as u64);
        let other = n.mux(hi, exp, res);
        let opc = n.mux(is_def, opb, other);
        let ia = n.eqk(opb, Opcode::WriteImm as u64);
        let ib = n.eqk(opb, Opcode::SendImm as u64);
        let has_imm = n.or(ia, ib);
        let mut df = vec![n.lit(1, 0); 8];
        for (name, mask) in [
            ("first", DataFlags::FIRST.0),
            ("last", DataFlags::LAST.0),
            ("se", DataFlags::SE.0),
        ] {
            df[mask.trailing_zeros() as usize] = field_get(n, l4, dh, tb, name);
        }
        let dflags = n.cat(&df);
        let msn = field_get(n, l4, dh, tb, "msn");
        let addr = field_get(n, l4, dh, tb, "addr");
        let key = field_get(n, l4, dh, tb, "key");
        let msg_len = field_get(n, l4, dh, tb, "msg_len");
        let imm0 = field_get(n, l4, dh, tb, "imm");
        let imm_v = n.and(dv, has_imm);
        let ah = &lay::ACK;
        let mut af = vec![n.lit(1, 0); 8];
        for (name, mask) in [("ece", AckFlags::ECE.0), ("dup", AckFlags::DUP.0)] {
            af[mask.trailing_zeros() as usize] = field_get(n, l4, ah, tb, name);
        }
        let aflags = n.cat(&af);
        let sf = ah.field("sack").expect("sack");
        let sack_b: Vec<N> = (0..sf.len).map(|k| l4[tb + sf.offset + k]).collect();
        let sack = n.cat(&sack_b);
        let a_scid = field_get(n, l4, ah, tb, "scid");
        let n_scid = field_get(n, l4, &lay::NACK, tb, "scid");
        let scid = n.mux(av, a_scid, n_scid);
        let scid_v = n.or(av, nv);
        let a_ets = field_get(n, l4, ah, tb, "echo_ts");
        let n_ets = field_get(n, l4, &lay::NACK, tb, "echo_ts");
        let echo_ts = n.mux(av, a_ets, n_ets);
        let sack_base = field_get(n, l4, ah, tb, "sack_base");
        let echo_ev = field_get(n, l4, ah, tb, "echo_ev");
        let ce_count = field_get(n, l4, ah, tb, "ce_count");
        let aux = field_get(n, l4, &lay::NACK, tb, "aux");
        let oxv = n.and(self.syn, ntr);
        let isn = field_get(n, &self.ox, &lay::OPEN, 0, "isn");
        let tq = field_get(n, &self.ox, &lay::OPEN, 0, "target_qpn");
        let fields: Vec<(&str, N)> = vec![
            ("peer_mac", peer_mac),
            ("peer_ip", peer_ip),
            ("ipv6", self.v6),
            ("vlan", self.vlan),
            ("tci", tci),
            ("dscp", self.dscp),
            ("ecn", self.ecn),
            ("ev", ev),
            ("ptype", self.ptype),
            ("mbh_flags", flags),
            ("payload_len", self.plen),
            ("dcid", self.dcid),
            ("hlen", self.hlen),
            ("psn", psn),
            ("ts", ts),
            ("opcode", gate(n, dv, opc)),
            ("dflags", gate(n, dv, dflags)),
            ("msn", gate(n, dv, msn)),
            ("addr", gate(n, dv, addr)),
            ("key", gate(n, dv, key)),
            ("msg_len", gate(n, dv, msg_len)),
            ("imm", gate(n, imm_v, imm0)),
            ("scid", gate(n, scid_v, scid)),
            ("aflags", gate(n, av, aflags)),
            ("echo_ts", gate(n, scid_v, echo_ts)),
            ("sack_base", gate(n, av, sack_base)),
            ("echo_ev", gate(n, av, echo_ev)),
            ("ce_count", gate(n, av, ce_count)),
            ("sack", gate(n, av, sack)),
            ("code", gate(n, nv, self.code)),
            ("aux", gate(n, nv, aux)),
            ("ox", oxv),
            ("ox_scid", gate(n, oxv, self.ox_scid)),
            ("wlog", gate(n, oxv, self.ox_wlog)),
            ("isn", gate(n, oxv, isn)),
            ("target_qpn", gate(n, oxv, tq)),
            ("mtu_log", gate(n, oxv, self.ox_mtu)),
            ("trimmed", trimmed),
        ];
        meta_pack(n, &fields)
    }
}

crate::net_logic!(
    Parser,
    inputs: [rst, s_axis_rx_tdata, s_axis_rx_tkeep, s_axis_rx_tlast, s_axis_rx_tuser, s_axis_rx_tvalid,
             m_axis_meta_tready, m_axis_pay_tready, cfg_udp_port, cfg_dscp_trim, cfg_ipv4, cfg_ipv6, cfg_ip_en],
    outputs: [s_axis_rx_tready, m_axis_meta_tdata, m_axis_meta_tvalid, m_axis_pay_tdata, m_axis_pay_tkeep,
              m_axis_pay_tlast, m_axis_pay_tvalid, stat_overflow]
);

/// The frame parser at both widths.
pub fn blocks() -> Vec<BlockSpec> {
    vec![
        BlockSpec {
            name: "metaroce_rx_parser",
            area: "rx",
            description: "frame parser: checks, ICV, store-and-forward FIFO, PktMeta + realigned payload (512-bit)",
            verilog: |_cfg| crate::gen::verilog("metaroce_rx_parser", Parser::<512, 64>::default()),
        },
        BlockSpec {
            name: "metaroce_rx_parser_w1024",
            area: "rx",
            description: "frame parser at 1024 bits",
            verilog: |_cfg| crate::gen::verilog("metaroce_rx_parser_w1024", Parser::<1024, 128>::default()),
        },
    ]
}
