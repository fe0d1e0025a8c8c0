//! Fuzz target bodies, kept in one place: the libFuzzer targets in `proto/fuzz/` call them, and the stable-Rust
//! replay test `proto/tests/fuzz_replay.rs` runs them over the seed corpus plus a seeded mutation loop.
//!
//! Every body must not panic on any input; beyond that each checks an invariant:
//! * [`parse_frame`]: a frame `wire::parse_frame` accepts (untrimmed, ICV good) re-emits and re-parses to the same
//!   representation and payload (MR-WIRE-*, MR-ENC-*).
//! * [`parse_roce_frame`]: the same for RoCEv2 frames.
//! * [`headers`]: every header view's `new_checked` + `Repr::parse`; what parses, emits and parses back equal.
//! * [`endpoint_sequence`]: a structured sequence of posts, steps, injected (mutated, replayed or raw) frames
//!   and link changes into a pair of endpoints; checks that every memory write lands in a registered writable
//!   region and that send completions come exactly once and in posting order per QP (MR-SEM-*).
//!
//! [`seed_corpus`] produces the seed corpus (valid frames of every type from the wire emitters, plus truncated
//! and mutated ones, and short operation sequences).

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::link::LinkConfig;
use super::pair::Side;
use super::rng::Rng;
use super::scenario::connected_pair;
use super::verify::RegionSpec;
use crate::transport::{
    Access, Event, Memory, Mode, MrKeys, RecvWr, SendOp, SendWr, Sge, WcOpcode,
};
use crate::wire::{self, packet, roce_packet};

/// The fuzz targets by name (the directory names under `proto/fuzz/corpus/`).
pub const TARGETS: [&str; 4] = [
    "parse_frame",
    "parse_roce_frame",
    "headers",
    "endpoint_sequence",
];

/// Runs target `name` on `data`. Unknown names do nothing.
pub fn run_target(name: &str, data: &[u8]) {
    match name {
        "parse_frame" => parse_frame(data),
        "parse_roce_frame" => parse_roce_frame(data),
        "headers" => headers(data),
        "endpoint_sequence" => {
            endpoint_sequence(data);
        }
        _ => {}
    }
}

/// `wire::parse_frame` on arbitrary bytes (ICV verified and not, two trim code points); accepted frames round
/// trip through `emit_frame`.
pub fn parse_frame(data: &[u8]) {
    for (verify, dscp_trim) in [(true, 10u8), (false, 10), (true, 0)] {
        let Ok(p) = packet::parse_frame(data, wire::DEFAULT_UDP_PORT, dscp_trim, verify) else {
            continue;
        };
        if p.trimmed {
            assert!(p.payload.is_empty(), "trimmed frame with payload");
            continue;
        }
        assert_eq!(
            p.payload.len(),
            usize::from(p.m.mbh.payload_len),
            "payload length disagrees with MBH"
        );
        if !p.icv_ok {
            continue;
        }
        let mut out = Vec::new();
        if packet::emit_frame(&p.l, &p.m, p.payload, &mut out).is_err() {
            continue;
        }
        let q = packet::parse_frame(&out, wire::DEFAULT_UDP_PORT, dscp_trim, true)
            .unwrap_or_else(|e| panic!("re-emitted frame does not parse: {e:?}"));
        assert!(q.icv_ok, "re-emitted frame has a bad ICV");
        assert_eq!(q.l, p.l, "L2L3 round trip");
        assert_eq!(q.m, p.m, "MetaRoCE headers round trip");
        assert_eq!(q.payload, p.payload, "payload round trip");
    }
}

/// `wire::parse_roce_frame` on arbitrary bytes; accepted frames round trip through `emit_roce_frame`.
pub fn parse_roce_frame(data: &[u8]) {
    for verify in [true, false] {
        let Ok(p) = roce_packet::parse_roce_frame(data, verify) else {
            continue;
        };
        if !p.icrc_ok {
            continue;
        }
        let mut out = Vec::new();
        if roce_packet::emit_roce_frame(&p.l, &p.r, p.payload, &mut out).is_err() {
            continue;
        }
        let q = roce_packet::parse_roce_frame(&out, true)
            .unwrap_or_else(|e| panic!("re-emitted RoCEv2 frame does not parse: {e:?}"));
        assert!(q.icrc_ok, "re-emitted RoCEv2 frame has a bad ICRC");
        assert_eq!(q.l, p.l);
        // PadCnt is derived from the payload length on emit; a received frame may carry a pad count that does
        // not align its payload (accepted by the parser), so compare everything else.
        let mut pr = p.r;
        pr.bth.pad_cnt = q.r.bth.pad_cnt;
        assert_eq!(q.r, pr);
        assert_eq!(q.payload, p.payload);
    }
}

/// Parses `data` with header view `$view` and repr `$repr`; a parsed repr must emit and parse back equal.
macro_rules! header_round_trip {
    ($data:expr, $view:ident, $repr:ident) => {{
        if let Ok(v) = wire::$view::new_checked($data) {
            if let Ok(r) = wire::$repr::parse(&v) {
                let mut buf = vec![0xA5u8; r.buffer_len().max($data.len())];
                r.emit(&mut wire::$view::new_unchecked(&mut buf[..]));
                let v2 = wire::$view::new_checked(&buf[..]).unwrap_or_else(|e| {
                    panic!("{}: emitted header too short: {e:?}", stringify!($view))
                });
                let r2 = wire::$repr::parse(&v2).unwrap_or_else(|e| {
                    panic!(
                        "{}: emitted header does not parse: {e:?}",
                        stringify!($view)
                    )
                });
                assert_eq!(r, r2, "{} round trip", stringify!($repr));
            }
        }
    }};
}

/// Every header's `new_checked` + `parse` on `data` (and on `data` without its first byte, so that one input
/// exercises two alignments); parsed headers round trip.
pub fn headers(data: &[u8]) {
    for d in [data, data.get(1..).unwrap_or(&[])] {
        header_round_trip!(d, EthernetFrame, EthernetRepr);
        header_round_trip!(d, Ipv4Packet, Ipv4Repr);
        header_round_trip!(d, Ipv6Packet, Ipv6Repr);
        header_round_trip!(d, UdpPacket, UdpRepr);
        header_round_trip!(d, MbhHeader, MbhRepr);
        header_round_trip!(d, DataHeader, DataRepr);
        header_round_trip!(d, OpenExt, OpenRepr);
        header_round_trip!(d, AckHeader, AckRepr);
        header_round_trip!(d, NackHeader, NackRepr);
        header_round_trip!(d, CtrlHeader, CtrlRepr);
        header_round_trip!(d, Bth, BthRepr);
        header_round_trip!(d, Reth, RethRepr);
        header_round_trip!(d, Aeth, AethRepr);
        let _ = roce_packet::RoceRepr::parse(d);
    }
}

/// A cursor over fuzz input that yields zeros once exhausted.
struct Input<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Input<'_> {
    fn done(&self) -> bool {
        self.pos >= self.data.len()
    }
    fn u8(&mut self) -> u8 {
        let v = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        v
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    fn bytes(&mut self, n: usize) -> &[u8] {
        let start = self.pos.min(self.data.len());
        let end = (self.pos + n).min(self.data.len());
        self.pos += n;
        &self.data[start..end]
    }
}

/// Memory layout of the sequence target (the same on both endpoints).
mod seq_layout {
    /// Local sources (LOCAL_WRITE, prefilled).
    pub const SRC: u64 = 0x10_0000;
    /// READ sinks (LOCAL_WRITE).
    pub const SINK: u64 = 0x20_0000;
    /// REMOTE_WRITE region.
    pub const W: u64 = 0x100_0000;
    /// REMOTE_READ region (prefilled).
    pub const R: u64 = 0x200_0000;
    /// Receive buffers (LOCAL_WRITE).
    pub const L: u64 = 0x300_0000;
    /// Length of every region.
    pub const LEN: u64 = 64 * 1024;
}

/// Keys of one side's regions.
#[derive(Clone, Copy, Default)]
struct SideKeys {
    src: Option<MrKeys>,
    sink: Option<MrKeys>,
    w: Option<MrKeys>,
    r: Option<MrKeys>,
    l: Option<MrKeys>,
}

/// What an [`endpoint_sequence`] run did (for tests of the target itself).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SequenceSummary {
    /// Send WRs accepted by `post_send`, both sides.
    pub posted: usize,
    /// Send completions, both sides.
    pub completed: usize,
    /// Frames delivered by the links.
    pub delivered: u64,
    /// Bytes the transport wrote into memory, both sides.
    pub bytes_written: u64,
}

/// A structured operation sequence into a connected pair. See the module docs for the invariants.
///
/// Input layout: a flags byte (bit 0: RoCEv2, bits 1..3: paths - 1, bits 4..7: jitter / 100 ns), a 16-bit
/// seed, then operations: an opcode byte (bit 7 picks the side) followed by its arguments.
pub fn endpoint_sequence(data: &[u8]) -> SequenceSummary {
    use seq_layout::*;
    let mut inp = Input { data, pos: 0 };
    let flags = inp.u8();
    let mode = if flags & 1 == 0 {
        Mode::MetaRoce
    } else {
        Mode::RoceV2
    };
    let paths = usize::from((flags >> 1) & 7) + 1;
    let mut link = LinkConfig::multipath(100_000_000_000, paths, 1_000, 250);
    link.jitter_ns = u64::from(flags >> 4) * 100;
    let Ok((mut pair, qa, qb)) = connected_pair(mode, u64::from(inp.u16()), link.clone(), link)
    else {
        return SequenceSummary::default();
    };
    pair.enable_tap();
    pair.set_time_limit(50_000_000);
    let mut regions: [Vec<RegionSpec>; 2] = [Vec::new(), Vec::new()];
    let mut keys = [SideKeys::default(); 2];
    for (i, side) in [Side::A, Side::B].into_iter().enumerate() {
        let ep = pair.endpoint_mut(side);
        let mut reg = |addr: u64, access: Access| {
            let k = ep.register_mr(addr, LEN, access).ok();
            if k.is_some() {
                regions[i].push(RegionSpec {
                    addr,
                    len: LEN,
                    access,
                });
            }
            k
        };
        keys[i] = SideKeys {
            src: reg(SRC, Access::LOCAL_WRITE),
            sink: reg(SINK, Access::LOCAL_WRITE),
            w: reg(W, Access::REMOTE_WRITE),
            r: reg(R, Access::REMOTE_READ),
            l: reg(L, Access::LOCAL_WRITE),
        };
        let mut fill = vec![0u8; LEN as usize];
        Rng::new(i as u64 + 1).fill_bytes(&mut fill);
        ep.memory_mut().write(SRC, &fill);
        ep.memory_mut().write(R, &fill);
        ep.memory_mut().start_recording();
    }
    let qpn = |s: Side| if s == Side::A { qa } else { qb };
    let idx = |s: Side| if s == Side::A { 0 } else { 1 };
    let mut posted: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
    let mut completed: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
    let mut frames: Vec<(Side, Vec<u8>)> = Vec::new();
    let mut next_wr = 1u64;
    let mut ops = 0;
    // Bound on pair steps per input, so that one input never runs long.
    let mut budget: u32 = 20_000;

    let collect = |pair: &mut super::pair::Pair<super::workload::HarnessMemory>,
                   frames: &mut Vec<(Side, Vec<u8>)>,
                   completed: &mut [Vec<u64>; 2]| {
        for (_, side, f) in pair.take_tap() {
            if frames.len() >= 64 {
                frames.remove(0);
            }
            frames.push((side, f));
        }
        for side in [Side::A, Side::B] {
            for (_, ev) in pair.take_events(side) {
                if let Event::Completion(c) = ev {
                    if !matches!(c.opcode, WcOpcode::Recv | WcOpcode::RecvWriteImm) {
                        completed[idx(side)].push(c.wr_id);
                    }
                }
            }
        }
    };

    while !inp.done() && ops < 256 {
        ops += 1;
        let op = inp.u8();
        let side = if op & 0x80 == 0 { Side::A } else { Side::B };
        let k = keys[idx(side)];
        let pk = keys[idx(side.peer())];
        let now = pair.now();
        match op % 10 {
            0 | 9 => {
                let kind = inp.u8();
                let len = u32::from(inp.u16()) % 20_000;
                let off = u64::from(inp.u16());
                let bad_key = kind & 0x80 != 0;
                let (sop, local, remote, rkey) = match kind % 5 {
                    0 => (SendOp::Write, (SRC, k.src), W + off, pk.w),
                    1 => (
                        SendOp::WriteImm(u32::from(kind)),
                        (SRC, k.src),
                        W + off,
                        pk.w,
                    ),
                    2 => (SendOp::Send, (SRC, k.src), 0, None),
                    3 => (SendOp::SendImm(7), (SRC, k.src), 0, None),
                    _ => (SendOp::Read, (SINK, k.sink), R + off, pk.r),
                };
                let rkey = rkey.map_or(0, |x| x.rkey) ^ if bad_key { 0x10_0000 } else { 0 };
                let wr = SendWr {
                    wr_id: next_wr,
                    op: sop,
                    local: Sge {
                        addr: local.0 + off % 1024,
                        len,
                        lkey: local.1.map_or(0, |x| x.lkey),
                    },
                    remote_addr: remote,
                    rkey,
                    solicited: kind & 0x40 != 0,
                };
                next_wr += 1;
                if pair
                    .endpoint_mut(side)
                    .post_send(now, qpn(side), wr)
                    .is_ok()
                {
                    posted[idx(side)].push(wr.wr_id);
                }
            }
            1 => {
                let len = u32::from(inp.u16()) % 20_000;
                let off = u64::from(inp.u8()) * 64;
                let wr = RecvWr {
                    wr_id: next_wr,
                    sge: Sge {
                        addr: L + off,
                        len,
                        lkey: k.l.map_or(0, |x| x.lkey),
                    },
                };
                next_wr += 1;
                let _ = pair.endpoint_mut(side).post_recv(qpn(side), wr);
            }
            2 => {
                for _ in 0..(inp.u8() % 32 + 1) {
                    if budget == 0 || pair.step() != super::pair::StepOutcome::Advanced {
                        break;
                    }
                    budget -= 1;
                }
            }
            3 | 6 => {
                // Replay a captured frame (6), or mutate it and (if asked) fix its ICV (3).
                if frames.is_empty() {
                    continue;
                }
                let pick = usize::from(inp.u8()) % frames.len();
                let (to, mut f) = frames[pick].clone();
                if op % 10 == 3 {
                    let fix = inp.u8();
                    let hdr = packet::parse_frame(&f, wire::DEFAULT_UDP_PORT, 10, false)
                        .ok()
                        .map(|p| (p.l.header_len() + p.m.header_len(), p.payload.len()));
                    for _ in 0..(fix % 4 + 1) {
                        let pos = usize::from(inp.u16());
                        let x = inp.u8();
                        if !f.is_empty() {
                            let n = f.len();
                            f[pos % n] ^= x;
                        }
                    }
                    if fix & 0x80 != 0 {
                        if let Some((h, pl)) = hdr {
                            let _ = packet::finish_icv(&mut f, h, pl);
                        }
                    }
                }
                pair.endpoint_mut(to).handle_frame(now, &f);
            }
            4 => {
                let n = usize::from(inp.u8());
                let raw = inp.bytes(n).to_vec();
                pair.endpoint_mut(side).handle_frame(now, &raw);
            }
            5 => {
                let until = now + u64::from(inp.u16()) * 16;
                let lim = pair.time_limit();
                pair.set_time_limit(until.min(lim));
                pair.run_until(|p| {
                    budget = budget.saturating_sub(1);
                    p.now() >= until || budget == 0
                });
                pair.set_time_limit(lim);
            }
            7 => {
                // Deregister the peer's write region or this side's receive region.
                let which = inp.u8();
                let (ep_side, key) = if which & 1 == 0 {
                    (side.peer(), pk.w)
                } else {
                    (side, k.l)
                };
                if let Some(key) = key {
                    let _ = pair.endpoint_mut(ep_side).deregister_mr(key.lkey);
                }
            }
            _ => {
                let loss = u32::from(inp.u8()) * 2000;
                pair.ab.config_mut().loss_ppm = loss;
                pair.ba.config_mut().loss_ppm = loss;
            }
        }
        collect(&mut pair, &mut frames, &mut completed);
    }
    // Let it settle (bounded).
    for _ in 0..budget.min(5_000) {
        if pair.step() != super::pair::StepOutcome::Advanced {
            break;
        }
    }
    collect(&mut pair, &mut frames, &mut completed);

    for s in [Side::A, Side::B] {
        let i = idx(s);
        // Completions: each posted WR at most once, in posting order.
        assert!(
            completed[i].len() <= posted[i].len(),
            "side {s:?}: {} completions for {} posted WRs: {:?} vs {:?}",
            completed[i].len(),
            posted[i].len(),
            completed[i],
            posted[i]
        );
        assert_eq!(
            completed[i][..],
            posted[i][..completed[i].len()],
            "side {s:?}: completions out of posting order or duplicated"
        );
        // Writes only inside writable registered regions.
        for w in pair.endpoint(s).memory().writes() {
            if w.len == 0 {
                continue;
            }
            let ok = regions[i].iter().any(|r| {
                w.addr >= r.addr
                    && w.addr
                        .checked_add(w.len)
                        .is_some_and(|e| e <= r.addr + r.len)
                    && (r.access.contains(Access::REMOTE_WRITE)
                        || r.access.contains(Access::LOCAL_WRITE))
            });
            assert!(ok, "side {s:?}: write {w:?} outside every writable region");
        }
    }
    SequenceSummary {
        posted: posted[0].len() + posted[1].len(),
        completed: completed[0].len() + completed[1].len(),
        delivered: pair.stats().frames_delivered,
        bytes_written: [Side::A, Side::B]
            .iter()
            .flat_map(|&s| pair.endpoint(s).memory().writes().iter().map(|w| w.len))
            .sum(),
    }
}

/// Seed corpus: `(target, file name, bytes)`. Valid frames of every MetaRoCE type (IPv4, IPv6, VLAN, with and
/// without the Open extension), RoCEv2 frames of every opcode, each header alone, truncated and bit-flipped
/// variants, and short operation sequences.
pub fn seed_corpus() -> Vec<(&'static str, String, Vec<u8>)> {
    use wire::*;
    let mut out: Vec<(&'static str, String, Vec<u8>)> = Vec::new();
    let v4 = |dscp: u8| L2L3 {
        eth_src: [2, 0, 0, 0, 0, 0x0A],
        eth_dst: [2, 0, 0, 0, 0, 0x0B],
        vlan: None,
        ip: IpRepr::V4 {
            src: [10, 0, 0, 1],
            dst: [10, 0, 0, 2],
            dscp,
            ecn: ECN_ECT0,
            ttl: 64,
        },
        udp_src: 0xC123,
        udp_dst: DEFAULT_UDP_PORT,
    };
    let mut v6 = v4(26);
    v6.ip = IpRepr::V6 {
        src: [0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        dst: [0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2],
        dscp: 26,
        ecn: ECN_ECT0,
        flow_label: 0x12345,
        hop_limit: 64,
    };
    let mut vlan = v4(26);
    vlan.vlan = Some(0x2064);
    let mbh = |psn: u32| MbhRepr {
        ptype: PacketType::Data,
        flags: MbhFlags::EMPTY,
        payload_len: 0,
        dcid: 0x00AB_CDEF,
        hlen: 0,
        psn,
        ts: 0x1234_5678,
    };
    let open = OpenRepr {
        scid: 0x0012_3456,
        wlog: 12,
        isn: 1000,
        target_qpn: 7,
        mtu_log: 12,
    };
    let data = |op: Opcode, imm: Option<u32>| DataRepr {
        opcode: op,
        flags: DataFlags(DataFlags::FIRST.0 | DataFlags::LAST.0),
        msn: 3,
        addr: 0x1000_0040,
        key: 0x0000_0102,
        msg_len: 200,
        imm,
    };
    let payload: Vec<u8> = (0..200u32).map(|i| (i * 7) as u8).collect();
    let mut frames: Vec<(String, L2L3, MetaRoceRepr, Vec<u8>)> = Vec::new();
    for (name, op, imm, pl) in [
        ("write", Opcode::Write, None, payload.clone()),
        (
            "write_imm",
            Opcode::WriteImm,
            Some(0xDEAD_BEEF),
            payload.clone(),
        ),
        ("send", Opcode::Send, None, payload.clone()),
        ("send_imm", Opcode::SendImm, Some(1), payload.clone()),
        ("read_req", Opcode::ReadReq, None, Vec::new()),
        ("read_resp", Opcode::ReadResp, None, payload.clone()),
        ("fetch_add", Opcode::FetchAdd, None, vec![0; 8]),
    ] {
        let m = MetaRoceRepr {
            mbh: mbh(1000),
            ty: TypeRepr::Data(data(op, imm)),
            open: None,
        };
        frames.push((format!("data_{name}"), v4(26), m, pl.clone()));
        let mut syn = m;
        syn.open = Some(open);
        frames.push((format!("data_{name}_syn"), v4(26), syn, pl));
    }
    let mut sack = SackBitmap::EMPTY;
    for i in [0u32, 3, 5, 200, 255] {
        sack.set(i, true);
    }
    let mut ack_mbh = mbh(1001);
    ack_mbh.ptype = PacketType::Ack;
    frames.push((
        "ack".into(),
        v4(46),
        MetaRoceRepr {
            mbh: ack_mbh,
            ty: TypeRepr::Ack(AckRepr {
                scid: 0x0000_0777,
                flags: AckFlags::ECE,
                echo_ts: 0x1234_5678,
                sack_base: 1001,
                echo_ev: 0xC123,
                ce_count: 2,
                sack,
            }),
            open: None,
        },
        Vec::new(),
    ));
    for (i, code) in [
        NackCode::Trimmed,
        NackCode::NoContext,
        NackCode::Rnr,
        NackCode::Access,
        NackCode::Invalid,
        NackCode::Unsupported,
    ]
    .into_iter()
    .enumerate()
    {
        let mut m = mbh(1000);
        m.ptype = PacketType::Nack;
        frames.push((
            format!("nack_{i}"),
            v4(46),
            MetaRoceRepr {
                mbh: m,
                ty: TypeRepr::Nack(NackRepr {
                    scid: 5,
                    code,
                    echo_ts: 9,
                    aux: 3,
                }),
                open: None,
            },
            Vec::new(),
        ));
    }
    for (i, code) in [
        CtrlCode::Open,
        CtrlCode::Close,
        CtrlCode::CloseAck,
        CtrlCode::Probe,
        CtrlCode::Credit,
        CtrlCode::CreditReq,
    ]
    .into_iter()
    .enumerate()
    {
        let mut m = mbh(1000);
        m.ptype = PacketType::Ctrl;
        frames.push((
            format!("ctrl_{i}"),
            v4(46),
            MetaRoceRepr {
                mbh: m,
                ty: TypeRepr::Ctrl(CtrlRepr {
                    scid: 5,
                    code,
                    echo_ts: 9,
                    aux: 4096,
                }),
                open: (code == CtrlCode::Open).then_some(open),
            },
            Vec::new(),
        ));
    }
    let base = MetaRoceRepr {
        mbh: mbh(5),
        ty: TypeRepr::Data(data(Opcode::Write, None)),
        open: None,
    };
    frames.push(("data_write_ipv6".into(), v6, base, payload.clone()));
    frames.push(("data_write_vlan".into(), vlan, base, payload.clone()));

    let mut rng = Rng::new(0xC0FFEE);
    for (name, l, m, pl) in &frames {
        let mut f = Vec::new();
        if packet::emit_frame(l, m, pl, &mut f).is_err() {
            continue;
        }
        out.push(("parse_frame", format!("{name}.bin"), f.clone()));
        let hl = l.header_len();
        // Every header alone, for the header target.
        out.push(("headers", format!("{name}_l2.bin"), f.clone()));
        out.push((
            "headers",
            format!("{name}_ip.bin"),
            f.get(l.eth_len()..).unwrap_or(&[]).to_vec(),
        ));
        out.push((
            "headers",
            format!("{name}_mbh.bin"),
            f.get(hl..).unwrap_or(&[]).to_vec(),
        ));
        out.push((
            "headers",
            format!("{name}_type.bin"),
            f.get(hl + 16..).unwrap_or(&[]).to_vec(),
        ));
        // Trimmed (as the link model trims: cut and re-mark) and truncated, and one flipped bit.
        if name == "data_write" {
            let mut t = f.clone();
            t.truncate(hl + 16);
            out.push(("parse_frame", format!("{name}_cut.bin"), t));
            for cut in [1usize, 14, 20, 33, 41, 57] {
                out.push((
                    "parse_frame",
                    format!("{name}_trunc{cut}.bin"),
                    f[..cut.min(f.len())].to_vec(),
                ));
            }
        }
        let mut flip = f.clone();
        let pos = rng.below(flip.len() as u64) as usize;
        flip[pos] ^= 1 << rng.below(8);
        out.push(("parse_frame", format!("{name}_flip.bin"), flip));
    }

    // RoCEv2.
    let rl = {
        let mut l = v4(26);
        l.udp_dst = ROCE_UDP_PORT;
        l
    };
    for op in [
        RoceOpcode::SendOnly,
        RoceOpcode::SendFirst,
        RoceOpcode::SendMiddle,
        RoceOpcode::SendLast,
        RoceOpcode::SendOnlyImm,
        RoceOpcode::SendLastImm,
        RoceOpcode::WriteFirst,
        RoceOpcode::WriteMiddle,
        RoceOpcode::WriteLast,
        RoceOpcode::WriteLastImm,
        RoceOpcode::WriteOnly,
        RoceOpcode::WriteOnlyImm,
        RoceOpcode::ReadRequest,
        RoceOpcode::ReadResponseFirst,
        RoceOpcode::ReadResponseMiddle,
        RoceOpcode::ReadResponseLast,
        RoceOpcode::ReadResponseOnly,
        RoceOpcode::Acknowledge,
        RoceOpcode::Cnp,
    ] {
        let r = roce_packet::RoceRepr {
            bth: BthRepr {
                opcode: op,
                se: false,
                mig_req: false,
                pad_cnt: 0,
                tver: 0,
                pkey: 0xFFFF,
                fecn: false,
                becn: false,
                dest_qp: 0x11,
                ack_req: true,
                psn: 0x00_1234,
            },
            reth: op.has_reth().then_some(RethRepr {
                va: 0x1000,
                rkey: 0x22,
                dma_len: 123,
            }),
            aeth: op.has_aeth().then_some(AethRepr {
                syndrome: 0x1F,
                msn: 4,
            }),
            imm: op.has_imm().then_some(0xABCD),
        };
        let pl: &[u8] = match op {
            RoceOpcode::ReadRequest | RoceOpcode::Acknowledge => &[],
            RoceOpcode::Cnp => &[0; 16],
            _ => &payload[..123],
        };
        let mut f = Vec::new();
        if roce_packet::emit_roce_frame(&rl, &r, pl, &mut f).is_ok() {
            let hl = rl.header_len();
            out.push((
                "parse_roce_frame",
                format!("roce_{:02x}.bin", op as u8),
                f.clone(),
            ));
            out.push((
                "headers",
                format!("roce_{:02x}_bth.bin", op as u8),
                f.get(hl..).unwrap_or(&[]).to_vec(),
            ));
            out.push((
                "headers",
                format!("roce_{:02x}_ext.bin", op as u8),
                f.get(hl + 12..).unwrap_or(&[]).to_vec(),
            ));
            let mut flip = f.clone();
            let pos = rng.below(flip.len() as u64) as usize;
            flip[pos] ^= 1 << rng.below(8);
            out.push((
                "parse_roce_frame",
                format!("roce_{:02x}_flip.bin", op as u8),
                flip,
            ));
        }
    }

    // Operation sequences: flags, seed (2), then ops (see `endpoint_sequence`).
    let post = |side_b: bool, kind: u8, len: u16, off: u16| {
        let mut v = vec![if side_b { 130u8 } else { 0 }, kind];
        v.extend_from_slice(&len.to_le_bytes());
        v.extend_from_slice(&off.to_le_bytes());
        v
    };
    let recv = |side_b: bool, len: u16, slot: u8| {
        let mut v = vec![if side_b { 0x81u8 } else { 1 }];
        v.extend_from_slice(&len.to_le_bytes());
        v.push(slot);
        v
    };
    let steps: [u8; 6] = [2, 31, 2, 31, 5, 0xFF];
    let cat = |parts: &[&[u8]]| parts.concat();
    let seqs: [(&str, Vec<u8>); 8] = [
        ("empty_metaroce", vec![0x0E, 1, 0]),
        (
            "write_read_metaroce",
            cat(&[
                &[0x0E, 2, 0],
                &post(false, 0, 5000, 64),
                &post(false, 4, 3000, 8),
                &steps,
            ]),
        ),
        (
            "send_recv_rocev2",
            cat(&[
                &[0x01, 3, 0],
                &recv(true, 4000, 0),
                &post(false, 2, 3000, 0),
                &steps,
            ]),
        ),
        (
            "all_kinds_both_sides_metaroce",
            cat(&[
                &[0x3E, 4, 0],
                &recv(true, 9000, 0),
                &recv(true, 9000, 80),
                &recv(false, 100, 0),
                &post(false, 0, 9000, 1),
                &post(false, 1, 700, 2),
                &post(false, 3, 8000, 3),
                &post(false, 4, 12000, 4),
                &post(true, 0, 300, 5),
                &post(true, 2, 100, 6),
                &steps,
            ]),
        ),
        (
            "mutate_replay_metaroce",
            cat(&[
                &[0x0E, 5, 0],
                &post(false, 0, 8192, 0),
                &[2, 3],
                &[3, 0, 0x81, 60, 0, 0x10],
                &[6, 1],
                &[4, 8, 1, 2, 3, 4, 5, 6, 7, 8],
                &steps,
            ]),
        ),
        (
            "bad_key_metaroce",
            cat(&[
                &[0x08, 6, 0],
                &post(false, 0x80, 100, 0),
                &post(false, 0, 100, 0),
                &steps,
            ]),
        ),
        (
            "lossy_dereg_metaroce",
            cat(&[
                &[0x0E, 7, 0],
                &[8, 60],
                &post(false, 0, 20000, 0),
                &post(false, 4, 9000, 0),
                &[2, 31],
                &[7, 0],
                &post(false, 0, 100, 0),
                &steps,
            ]),
        ),
        (
            "rnr_rocev2",
            cat(&[
                &[0x01, 8, 0],
                &post(false, 2, 100, 0),
                &[5, 0x00, 0x10],
                &recv(true, 200, 1),
                &steps,
            ]),
        ),
    ];
    for (name, s) in seqs {
        out.push(("endpoint_sequence", format!("{name}.bin"), s));
    }
    out
}

/// One mutation of `data` for the replay loop: bit flip, byte set, truncation, insertion, duplication of a
/// span, or splicing with `other`.
pub fn mutate(rng: &mut Rng, data: &[u8], other: &[u8]) -> Vec<u8> {
    let mut d = data.to_vec();
    let rounds = 1 + rng.below(4);
    for _ in 0..rounds {
        let n = d.len() as u64;
        match rng.below(7) {
            0 if n > 0 => {
                let i = rng.below(n) as usize;
                d[i] ^= 1 << rng.below(8);
            }
            1 if n > 0 => {
                let i = rng.below(n) as usize;
                d[i] = *rng.pick(&[0u8, 0xFF, 0x7F, 0x80, 1]).unwrap_or(&0);
            }
            2 => d.truncate(rng.below(n + 1) as usize),
            3 => {
                let i = rng.below(n + 1) as usize;
                d.insert(i, rng.next_u32() as u8);
            }
            4 if n > 1 => {
                let a = rng.below(n) as usize;
                let b = (a + 1 + rng.below(16) as usize).min(d.len());
                let span = d[a..b].to_vec();
                let at = rng.below(d.len() as u64 + 1) as usize;
                d.splice(at..at, span);
            }
            5 if !other.is_empty() => {
                let cut = rng.below(n + 1) as usize;
                let from = rng.below(other.len() as u64) as usize;
                d.truncate(cut);
                d.extend_from_slice(&other[from..]);
            }
            _ => {
                if n >= 2 {
                    let i = rng.below(n - 1) as usize;
                    let v = rng.next_u32() as u16;
                    d[i..i + 2].copy_from_slice(&v.to_be_bytes());
                }
            }
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Encodes one `post_send` operation of the sequence target (opcode 0 for side a, 130 = 0x80 | 2 with
    /// 130 % 10 == 0 for side b).
    fn post(side_b: bool, kind: u8, len: u16, off: u16) -> Vec<u8> {
        let mut v = vec![if side_b { 130 } else { 0 }, kind];
        v.extend_from_slice(&len.to_le_bytes());
        v.extend_from_slice(&off.to_le_bytes());
        v
    }

    #[test]
    fn sequence_target_moves_data_in_both_modes() {
        for flags in [0x0Eu8, 0x01] {
            let mut input = vec![flags, 9, 0];
            input.extend(post(false, 0, 5000, 64)); // WRITE a -> b
            input.extend(post(false, 4, 3000, 128)); // READ by a
            input.extend(post(true, 0, 100, 0)); // WRITE b -> a
            input.extend([2, 31, 2, 31, 5, 0xFF, 0x20]);
            let s = endpoint_sequence(&input);
            assert_eq!(s.posted, 3, "flags {flags:#x}: {s:?}");
            assert_eq!(s.completed, 3, "flags {flags:#x}: {s:?}");
            assert_eq!(
                s.bytes_written,
                5000 + 3000 + 100,
                "flags {flags:#x}: {s:?}"
            );
            assert!(s.delivered > 0);
        }
    }

    #[test]
    fn seed_corpus_covers_every_target_and_parses() {
        let c = seed_corpus();
        for t in TARGETS {
            assert!(c.iter().any(|(x, _, _)| *x == t), "no seed for {t}");
        }
        // The valid frames among the seeds parse (with their ICV).
        let ok = c
            .iter()
            .filter(|(t, n, _)| {
                *t == "parse_frame"
                    && !n.contains("flip")
                    && !n.contains("trunc")
                    && !n.contains("cut")
            })
            .all(|(_, _, f)| {
                packet::parse_frame(f, wire::DEFAULT_UDP_PORT, 10, true).is_ok_and(|p| p.icv_ok)
            });
        assert!(ok);
        for (t, name, data) in &c {
            run_target(t, data);
            let _ = name;
        }
    }
}
