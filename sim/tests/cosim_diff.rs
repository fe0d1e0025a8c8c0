//! Block-level differential tests in Verilator: each block of the generated Verilog driven with randomized
//! input, random idle cycles on its inputs and random back-pressure on its outputs (stream sources and sinks
//! of `metaroce_sim::cosim::bus`, whose monitors fail a run on any handshake violation), and its outputs
//! compared with the `metaroce-proto` function it implements:
//!
//! - the frame parser against `wire::parse_frame` (MR-ENC-*, MR-WIRE-*, MR-WIRE-ICV);
//! - the frame builder against `wire::emit_frame` and, back, `wire::parse_frame` (MR-ENC-*, MR-WIRE-ICV);
//! - the NSCC unit against `transport::cc::Nscc`, bit-exact (MR-CC-7..14);
//! - the receive PSN window against `transport::bitmap::RecvWindow` (MR-REL-9..13);
//! - the ACK processor against `transport::loss::SendWindow` (MR-REL-20..39);
//! - the ACK generator against `RecvWindow`'s SACK block and the ACK rules (MR-REL-14..18);
//! - path selection against `transport::path::PathSet` (MR-PATH-1..18);
//! - the transmit gate against `transport::metaroce::gate` (MR-REL-4, MR-CC-1, MR-CC-2, MR-REL-45).
//!
//! Every test prints its seed; `METAROCE_SEED` replays a run and `METAROCE_ITERS` lengthens it (frames,
//! events or packets per test). Each block's model is built once per test binary and cached on disk
//! (`METAROCE_COSIM_DIR`).

// PktMeta has many fields; a test sets the few a packet uses on a default record.
#![allow(clippy::field_reassign_with_default)]

mod support_diff;

use metaroce_hdl::cc::nscc::{self, NsccState};
use metaroce_hdl::common::netlist::ToWords;
use metaroce_hdl::records::{PktMeta, TxSent};
use metaroce_hdl::rel::ack_proc::{
    AckRes, LaneWord, LossCmd, LossRes, CAUSE_LOSS, CAUSE_NONE, CAUSE_RTO, CAUSE_TRIM, CMD_DETECT,
    CMD_NACK, CMD_PEEK, CMD_RTO,
};
use metaroce_hdl::rel::path_select::{
    PathClean, PathCmd, PathRes, OP_CHOOSE, OP_OPEN, OP_RECYCLE_ECE, OP_RECYCLE_LOSS,
    OP_RECYCLE_TRIM, OP_SET_SRTT,
};
use metaroce_hdl::rel::records::{ConnOpen, UnaUpdate};
use metaroce_hdl::rx::drop;
use metaroce_hdl::rx::psn_window::{NackReq, WinInfo};
use metaroce_hdl::CoreConfig;
use metaroce_proto::harness::rng::Rng;
use metaroce_proto::transport::bitmap::{sack_base, Accept, RecvWindow};
use metaroce_proto::transport::cc::{CcParams, CongestionControl, Nscc, Quadrant};
use metaroce_proto::transport::loss::{LossCause, SendWindow, SentPkt, F_LOST};
use metaroce_proto::transport::path::{PathSet, RecycleCause};
use metaroce_proto::wire::{emit_frame, parse_frame};
use metaroce_sim::cosim::bus::{bits, Beat, Idle, StreamPorts, StreamSink, StreamSource};
use metaroce_sim::cosim::core::cosim_config;
use metaroce_sim::cosim::Model;
use rust_hdl::prelude::{Bits, Synth, TypeKind};
use support_diff::frames::{
    meta_of_w32, meta_w32, random_packet, random_rx_frame, rx_verdict, tx_meta, Dir, DAMAGE, IP4,
    IP6, MAC, PORT, TRIM, TTL,
};
use support_diff::{be, bits_w32, bytes_to_w32, cycle, iters, model, port, reset, seed};

/// Sets a port of up to 128 bits.
fn set128(m: &mut Model, p: metaroce_sim::cosim::PortId, v: u128) {
    m.set_words(
        p,
        &[
            v as u32,
            (v >> 32) as u32,
            (v >> 64) as u32,
            (v >> 96) as u32,
        ],
    );
}

// ---------------------------------------------------------------------------------------------------------
// Frame parser

/// The receive parser (`metaroce_rx_parser`, 512 bits) against the model's wire parsing (MR-ENC-*,
/// MR-WIRE-*, MR-WIRE-ICV): random frames of every packet type (DATA with and without immediate, payload and
/// Open extension, ACK, NACK, CTRL; IPv4/IPv6; with and without VLAN) built by proto's emitter, one in three
/// intact and the others damaged (bit flips, header bytes with a valid checksum, truncation, trimming by
/// length or DSCP, padding, MAC errors, foreign ethertype/protocol/port/version, wrong lengths, type-header
/// fields with a valid ICV, foreign destinations). For every frame the record's drop code equals the model's
/// verdict, every field of an accepted record equals proto's parse, and the payload stream carries exactly
/// the payload bytes of the accepted DATA packets, one packet per accepted DATA packet with a payload. The MAC
/// side is never held back; a frame the parser reports on `stat_overflow` (after its first beat, for lack of
/// room while the outputs are held back) must produce nothing.
fn parser_run(block: &str, kw: usize, seed: u64, count: usize) {
    let mut rng = Rng::new(seed);
    let kind = model(block, &CoreConfig::default());
    let mut m = kind.instance();
    let rst = port(&kind, "rst");
    m.set(port(&kind, "cfg_udp_port"), u64::from(PORT));
    m.set(port(&kind, "cfg_dscp_trim"), u64::from(TRIM));
    set128(&mut m, port(&kind, "cfg_ipv4"), be(&IP4));
    set128(&mut m, port(&kind, "cfg_ipv6"), be(&IP6));
    m.set(port(&kind, "cfg_ip_en"), 3);
    reset(&mut m, rst);
    let sp = |n: &str| StreamPorts::new(&kind, n).unwrap_or_else(|e| panic!("{e}"));
    let mut src = StreamSource::new(sp("s_axis_rx"), Idle::percent(25), seed ^ 1);
    let mut meta = StreamSink::new(
        sp("m_axis_meta"),
        "m_axis_meta",
        Idle::percent(25),
        seed ^ 2,
    );
    let mut pay = StreamSink::new(sp("m_axis_pay"), "m_axis_pay", Idle::percent(25), seed ^ 3);
    // (drop code, record, damage, frame) per frame, in order.
    let mut want = Vec::new();
    let mut want_pay: Vec<Vec<u8>> = Vec::new();
    let mut beats = 0usize;
    // The index of each frame's first beat, and the frame.
    let mut firsts = std::collections::HashMap::new();
    for _ in 0..count {
        let (f, user, how) = random_rx_frame(&mut rng, 3 * kw);
        firsts.insert(beats as u64, want.len());
        let (code, rec, p) = if user {
            (drop::BAD_ICV, None, Vec::new())
        } else {
            rx_verdict(&f)
        };
        want_pay.push(p);
        let n = f.len().div_ceil(kw);
        beats += n;
        for i in 0..n {
            let c = &f[i * kw..((i + 1) * kw).min(f.len())];
            src.push(Beat {
                data: bytes_to_w32(c, kw / 4),
                keep: u128::MAX >> (128 - c.len()),
                last: i + 1 == n,
                // A MAC error is flagged on the frame's last beat.
                user: u64::from(user && i + 1 == n),
            });
        }
        want.push((code, rec, how, f));
    }
    let ovf = port(&kind, "stat_overflow");
    let mut discarded = vec![false; want.len()];
    let mut got_meta = Vec::new();
    let mut got_pay: Vec<Vec<u8>> = Vec::new();
    let mut cycles = 0usize;
    let limit = 30 * beats + 4_000;
    // Records, payload packets and payload bytes still expected: every frame's, less the discarded ones'.
    let mut n_meta = want.len();
    let mut n_pay = want_pay.iter().filter(|p| !p.is_empty()).count();
    let mut n_bytes: usize = want_pay.iter().map(Vec::len).sum();
    let mut got_bytes = 0usize;
    loop {
        if src.pending() == 0 && got_meta.len() >= n_meta && got_bytes >= n_bytes {
            break;
        }
        cycles += 1;
        assert!(
            cycles < limit,
            "stuck after {cycles} cycles: {} of {n_meta} records, {} of {n_pay} payload packets (seed {seed})",
            got_meta.len(),
            got_pay.len(),
        );
        let b0 = src.beats;
        cycle(&mut m, &mut [&mut src], &mut [&mut meta, &mut pay]);
        // The overflow report of a frame whose first beat was just taken.
        let started = (src.beats > b0).then(|| firsts.get(&b0)).flatten();
        match started {
            Some(&fi) => {
                if m.get(ovf) == 1 {
                    discarded[fi] = true;
                    n_meta -= 1;
                    n_pay -= usize::from(!want_pay[fi].is_empty());
                    n_bytes -= want_pay[fi].len();
                }
            }
            None => assert_eq!(
                m.get(ovf),
                0,
                "overflow report without a frame start (seed {seed})"
            ),
        }
        while let Some(b) = meta.got.pop_front() {
            got_meta.push(meta_of_w32(&b.data));
        }
        while let Some((bytes, _)) = pay.pop_frame() {
            got_bytes += bytes.len();
            got_pay.push(bytes);
        }
    }
    assert_eq!(src.stalls, 0, "the MAC side was held back (seed {seed})");
    // Nothing more comes out.
    meta.set_idle(Idle::NONE);
    pay.set_idle(Idle::NONE);
    for _ in 0..64 {
        cycle(&mut m, &mut [&mut src], &mut [&mut meta, &mut pay]);
    }
    assert!(
        meta.got.is_empty() && pay.got.is_empty(),
        "output beyond the frames sent (seed {seed})"
    );
    let n_disc = discarded.iter().filter(|&&d| d).count();
    let want: Vec<_> = want
        .into_iter()
        .zip(&discarded)
        .filter(|(_, &d)| !d)
        .map(|(w, _)| w)
        .collect();
    let want_pay: Vec<Vec<u8>> = want_pay
        .into_iter()
        .zip(&discarded)
        .filter(|(p, &d)| !d && !p.is_empty())
        .map(|(p, _)| p)
        .collect();
    let mut compared = 0usize;
    let mut hist = vec![[0usize; drop::COUNT]; DAMAGE.len()];
    for (i, (g, (code, rec, how, f))) in got_meta.iter().zip(&want).enumerate() {
        let gc = g.drop.to_u64() as usize;
        assert_eq!(
            gc,
            usize::from(*code),
            "frame {i} ({}): drop {} want {} ({} bytes: {:02x?}) (seed {seed})",
            DAMAGE[*how],
            drop::NAMES.get(gc).unwrap_or(&"?"),
            drop::NAMES[usize::from(*code)],
            f.len(),
            &f[..f.len().min(128)]
        );
        if let Some(r) = rec {
            assert_eq!(
                g,
                r,
                "frame {i} ({}): record (seed {seed}), frame {:02x?}",
                DAMAGE[*how],
                &f[..f.len().min(128)]
            );
        }
        hist[*how][usize::from(*code)] += 1;
        compared += 1;
    }
    assert_eq!(
        got_pay.len(),
        want_pay.len(),
        "payload packets (seed {seed})"
    );
    for (i, (g, w)) in got_pay.iter().zip(&want_pay).enumerate() {
        assert_eq!(g, w, "payload of accepted DATA packet {i} (seed {seed})");
        compared += 1;
    }
    println!(
        "{block}: {} frames admitted, {n_disc} discarded for lack of room ({beats} beats) in {cycles} cycles, \
         {compared} comparisons, {} payload packets",
        want.len(),
        want_pay.len()
    );
    for (d, row) in hist.iter().enumerate() {
        let v: Vec<String> = row
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(k, c)| format!("{}={c}", drop::NAMES[k]))
            .collect();
        if !v.is_empty() {
            println!("  {:<34} {}", DAMAGE[d], v.join(" "));
        }
    }
    assert!(compared > 0);
    // The mix must have reached the accept path and several drop causes for the comparison to mean much.
    let by_code = |c: u8| hist.iter().map(|r| r[usize::from(c)]).sum::<usize>();
    assert!(by_code(drop::NONE) > 0 && by_code(drop::BAD_ICV) > 0 && by_code(drop::TRUNCATED) > 0);
}

#[test]
fn mr_wire_parser_matches_proto_parse_frame_under_idle_and_backpressure() {
    let seed = seed("parser", 0x9a25_e001);
    parser_run("metaroce_rx_parser", 64, seed, iters(5_000) as usize);
}

/// The same at the 1024-bit datapath (`metaroce_rx_parser_w1024`).
#[test]
fn mr_wire_parser_w1024_matches_proto_parse_frame_under_idle_and_backpressure() {
    let seed = seed("parser_w1024", 0x9a25_e101);
    parser_run("metaroce_rx_parser_w1024", 128, seed, iters(3_000) as usize);
}

// ---------------------------------------------------------------------------------------------------------
// Frame builder

/// The frame builder (`metaroce_tx_frame_build`, 512 bits) against proto's emitter (MR-ENC-*, MR-WIRE-ICV):
/// random header records and payloads of every packet type (DATA with and without immediate and payload,
/// ACK with a SACK bitmap, NACK, CTRL, Open extension; IPv4/IPv6; VLAN) with random idle cycles on both
/// inputs and back-pressure on the output. Every frame is byte-identical to `emit_frame`'s, and proto's
/// parser reads back the same fields and payload from it with a valid ICV.
fn builder_run(block: &str, kw: usize, seed: u64, count: usize) {
    let mut rng = Rng::new(seed);
    let kind = model(block, &CoreConfig::default());
    let mut m = kind.instance();
    let rst = port(&kind, "rst");
    set128(&mut m, port(&kind, "cfg_mac"), be(&MAC));
    set128(&mut m, port(&kind, "cfg_ipv4"), be(&IP4));
    set128(&mut m, port(&kind, "cfg_ipv6"), be(&IP6));
    m.set(port(&kind, "cfg_udp_port"), u64::from(PORT));
    m.set(port(&kind, "cfg_ttl"), u64::from(TTL));
    reset(&mut m, rst);
    let sp = |n: &str| StreamPorts::new(&kind, n).unwrap_or_else(|e| panic!("{e}"));
    let mut hdr = StreamSource::new(sp("s_axis_hdr"), Idle::percent(25), seed ^ 1);
    let mut pays = StreamSource::new(sp("s_axis_pay"), Idle::percent(25), seed ^ 2);
    let mut tx = StreamSink::new(sp("m_axis_tx"), "m_axis_tx", Idle::percent(25), seed ^ 3);
    let mut want = Vec::new();
    let mut beats = 0;
    for _ in 0..count {
        let (l, mr, pay) = random_packet(&mut rng, 3 * kw, Dir::Sent);
        let mut f = Vec::new();
        emit_frame(&l, &mr, &pay, &mut f).expect("proto emits its own packets");
        beats += f.len().div_ceil(kw);
        hdr.push(Beat::record(meta_w32(&tx_meta(&l, &mr))));
        for c in pay.chunks(kw) {
            pays.push(Beat::record(bytes_to_w32(c, kw / 4)));
        }
        want.push((l, mr, pay, f));
    }
    let mut got = Vec::new();
    let mut cycles = 0usize;
    while got.len() < want.len() {
        cycles += 1;
        assert!(
            cycles < 40 * beats + 4_000,
            "stuck after {cycles} cycles: {} of {} frames (seed {seed})",
            got.len(),
            want.len()
        );
        cycle(&mut m, &mut [&mut hdr, &mut pays], &mut [&mut tx]);
        while let Some((f, user)) = tx.pop_frame() {
            assert_eq!(
                user,
                0,
                "frame {} flagged in tuser (seed {seed})",
                got.len()
            );
            got.push(f);
        }
    }
    tx.set_idle(Idle::NONE);
    for _ in 0..64 {
        cycle(&mut m, &mut [&mut hdr, &mut pays], &mut [&mut tx]);
    }
    assert!(
        tx.got.is_empty(),
        "output beyond the frames sent (seed {seed})"
    );
    assert_eq!(
        hdr.pending() + pays.pending(),
        0,
        "inputs left (seed {seed})"
    );
    let mut compared = 0;
    for (i, (g, (l, mr, pay, f))) in got.iter().zip(&want).enumerate() {
        if g != f {
            let first = g
                .iter()
                .zip(f)
                .position(|(a, b)| a != b)
                .unwrap_or(g.len().min(f.len()));
            panic!(
                "frame {i}: {} bytes, proto's {}; first difference at byte {first}: got {:02x?} want {:02x?} \
                 (seed {seed})",
                g.len(),
                f.len(),
                &g[first.min(g.len())..(first + 8).min(g.len())],
                &f[first.min(f.len())..(first + 8).min(f.len())]
            );
        }
        // And back: proto's parser reads the fields the builder was given. The trim DSCP is set to one no
        // 6-bit DSCP equals, so that no sent packet reads as trimmed.
        let p = parse_frame(g, PORT, 0xFF, true)
            .unwrap_or_else(|e| panic!("frame {i}: proto rejects it: {e:?} (seed {seed})"));
        assert!(p.icv_ok && !p.trimmed, "frame {i}: ICV (seed {seed})");
        assert_eq!(&p.l, l, "frame {i}: layers 2-4 (seed {seed})");
        let mut mw = *mr;
        mw.mbh.hlen = p.m.mbh.hlen;
        assert_eq!(p.m, mw, "frame {i}: MetaRoCE headers (seed {seed})");
        assert_eq!(p.payload, &pay[..], "frame {i}: payload (seed {seed})");
        compared += 1;
    }
    println!(
        "{block}: {count} frames ({beats} beats) in {cycles} cycles, {compared} compared byte for byte"
    );
    assert!(compared > 0);
}

#[test]
fn mr_enc_frame_builder_matches_proto_emit_frame_under_idle_and_backpressure() {
    let seed = seed("frame_build", 0xf2a3_e002);
    builder_run("metaroce_tx_frame_build", 64, seed, iters(3_000) as usize);
}

/// The same at the 1024-bit datapath (`metaroce_tx_frame_build_w1024`).
#[test]
fn mr_enc_frame_builder_w1024_matches_proto_emit_frame_under_idle_and_backpressure() {
    let seed = seed("frame_build_w1024", 0xf2a3_e102);
    builder_run(
        "metaroce_tx_frame_build_w1024",
        128,
        seed,
        iters(2_000) as usize,
    );
}

// ---------------------------------------------------------------------------------------------------------
// NSCC

/// The NSCC unit's ports.
struct NsccPorts {
    start: metaroce_sim::cosim::PortId,
    kind: metaroce_sim::cosim::PortId,
    now: metaroce_sim::cosim::PortId,
    acked: metaroce_sim::cosim::PortId,
    sample: metaroce_sim::cosim::PortId,
    ece: metaroce_sim::cosim::PortId,
    bytes: metaroce_sim::cosim::PortId,
    st_in: metaroce_sim::cosim::PortId,
    ready: metaroce_sim::cosim::PortId,
    done: metaroce_sim::cosim::PortId,
    st_out: metaroce_sim::cosim::PortId,
    quadrant: metaroce_sim::cosim::PortId,
    repath: metaroce_sim::cosim::PortId,
    gap: metaroce_sim::cosim::PortId,
}

/// The state record's fields read from `st_out` words.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
struct St {
    cwnd: u64,
    srtt: u64,
    min_rtt: u64,
    last_d: u64,
    min_stamp: u64,
    last_md: u64,
    md_valid: bool,
}

fn st_of(w: &[u32]) -> St {
    let d = NsccState::default();
    let f = |o: usize, n: usize| bits(w, o, n);
    St {
        cwnd: f(d.get_my_offset_cwnd(), d.get_my_width_cwnd()),
        srtt: f(d.get_my_offset_srtt(), d.get_my_width_srtt()),
        min_rtt: f(d.get_my_offset_min_rtt(), d.get_my_width_min_rtt()),
        last_d: f(d.get_my_offset_last_d(), d.get_my_width_last_d()),
        min_stamp: f(d.get_my_offset_min_stamp(), d.get_my_width_min_stamp()),
        last_md: f(d.get_my_offset_last_md(), d.get_my_width_last_md()),
        md_valid: f(d.get_my_offset_md_valid(), 1) == 1,
    }
}

fn quad(q: Option<Quadrant>) -> u64 {
    match q {
        None => 0,
        Some(Quadrant::ProportionalIncrease) => nscc::quadrant::PROPORTIONAL_INCREASE,
        Some(Quadrant::FairIncrease) => nscc::quadrant::FAIR_INCREASE,
        Some(Quadrant::MultiplicativeDecrease) => nscc::quadrant::MULTIPLICATIVE_DECREASE,
        Some(Quadrant::Repath) => nscc::quadrant::REPATH,
        Some(Quadrant::Timeout) => nscc::quadrant::TIMEOUT,
    }
}

/// Runs one event through the unit after `idle` idle cycles; the state written back after `back` more.
/// Returns the cycles from start to done.
#[allow(clippy::too_many_arguments)]
fn nscc_event(
    m: &mut Model,
    p: &NsccPorts,
    idle: u64,
    back: u64,
    kind: u64,
    now: u64,
    acked: u64,
    sample: u64,
    ece: bool,
    bytes: u64,
) -> u64 {
    m.set_bit(p.start, false);
    // Idle inputs wander while start is low: the unit must sample them only with start.
    for _ in 0..idle {
        m.set(p.kind, now & 7);
        m.set(p.now, now ^ 0x5555);
        m.step();
    }
    m.eval();
    assert!(m.get_bit(p.ready), "unit not ready for an event");
    m.set_bit(p.start, true);
    m.set(p.kind, kind);
    m.set(p.now, now);
    m.set(p.acked, acked);
    m.set(p.sample, sample);
    m.set_bit(p.ece, ece);
    m.set(p.bytes, bytes);
    m.step();
    m.set_bit(p.start, false);
    m.eval();
    let mut n = 1;
    while !m.get_bit(p.done) {
        m.step();
        n += 1;
        assert!(n < 200, "no done");
    }
    let mut w = Vec::new();
    m.get_words(p.st_out, &mut w);
    // The state goes back into the connection's table some cycles later; until then st_in holds the old
    // state, as in the core.
    m.steps(back);
    m.set_words(p.st_in, &w);
    m.step();
    m.eval();
    n
}

/// One NSCC sequence: random parameters in the hardware ranges, `events` random events.
fn nscc_sequence(
    kind: &metaroce_sim::cosim::ModelKind,
    rng: &mut Rng,
    seed: u64,
    events: u64,
    seen: &mut [usize; 6],
) -> usize {
    let mtu = [1024u64, 4096, 4160, 9000][rng.below(4) as usize];
    let p = CcParams {
        mtu,
        line_rate_bps: [
            25_000_000_000u64,
            100_000_000_000,
            400_000_000_000,
            1 + rng.below(1 << 40),
        ][rng.below(4) as usize],
        base_rtt_ns: 1 + rng.below(50_000),
        target_qdelay_ns: 1 + rng.below(20_000),
        min_rtt_window_ns: rng.below(2_000_000),
        ..CcParams::default()
    };
    if p.bdp_bytes() >= 1 << 31 {
        return 0;
    }
    let mut mdl = Nscc::new(&p);
    let mut m = kind.instance();
    let pt = |n: &str| port(kind, n);
    let ports = NsccPorts {
        start: pt("start"),
        kind: pt("kind"),
        now: pt("now"),
        acked: pt("acked"),
        sample: pt("sample"),
        ece: pt("ece"),
        bytes: pt("bytes"),
        st_in: pt("st_in"),
        ready: pt("ready"),
        done: pt("done"),
        st_out: pt("st_out"),
        quadrant: pt("quadrant"),
        repath: pt("repath"),
        gap: pt("gap"),
    };
    m.set(pt("cfg_mtu"), p.mtu);
    m.set(pt("cfg_max_cwnd"), mdl.max_cwnd());
    m.set(pt("cfg_target_ns"), p.target_qdelay_ns);
    m.set(pt("cfg_base_rtt_ns"), p.base_rtt_ns);
    m.set(pt("cfg_min_rtt_window_ns"), p.min_rtt_window_ns);
    m.set(pt("cfg_line_rate_bps"), p.line_rate_bps);
    let init = NsccState {
        cwnd: Bits::<32>::from(mdl.cwnd()),
        ..Default::default()
    };
    let init: Bits<{ NsccState::BITS }> = init.into();
    m.set_words(ports.st_in, &bits_w32(init));
    reset(&mut m, pt("rst"));
    m.step();
    let mut now = rng.below(1 << 40);
    let base = p.base_rtt_ns;
    let mut compared = 0;
    for i in 0..events {
        now += rng.below(4 * base);
        let (idle, back) = (rng.below(4), rng.below(4));
        let r = rng.below(100);
        let what;
        if r < 70 {
            let acked = rng.below(256) * (1 + rng.below(mtu + 64));
            let sample = match rng.below(10) {
                0 => 0,
                1 => rng.below(1 << 31),
                _ => base + rng.below(3 * p.target_qdelay_ns + 1),
            };
            let ece = rng.below(4) == 0;
            mdl.on_ack(now, acked, (sample != 0).then_some(sample), ece);
            nscc_event(
                &mut m,
                &ports,
                idle,
                back,
                nscc::EV_ACK,
                now,
                acked,
                sample,
                ece,
                0,
            );
            assert_eq!(
                m.get_bit(ports.repath),
                mdl.wants_repath(),
                "repath at event {i} (seed {seed})"
            );
            compared += 1;
            what = format!("ack(acked {acked}, sample {sample}, ece {ece})");
        } else if r < 82 {
            mdl.on_nack_trim(now);
            nscc_event(
                &mut m,
                &ports,
                idle,
                back,
                nscc::EV_TRIM,
                now,
                0,
                0,
                false,
                0,
            );
            what = "trim".into();
        } else if r < 94 {
            mdl.on_loss(now);
            nscc_event(
                &mut m,
                &ports,
                idle,
                back,
                nscc::EV_LOSS,
                now,
                0,
                0,
                false,
                0,
            );
            what = "loss".into();
        } else {
            mdl.on_timeout(now);
            nscc_event(
                &mut m,
                &ports,
                idle,
                back,
                nscc::EV_TIMEOUT,
                now,
                0,
                0,
                false,
                0,
            );
            what = "timeout".into();
        }
        let mut w = Vec::new();
        m.get_words(ports.st_out, &mut w);
        let s = st_of(&w);
        let ctx = format!("event {i} {what} at {now}, {p:?} (seed {seed})");
        assert_eq!(s.cwnd, mdl.cwnd(), "cwnd, {ctx}");
        assert_eq!(s.srtt, mdl.srtt_ns().unwrap_or(0), "srtt, {ctx}");
        assert_eq!(s.min_rtt, mdl.min_rtt_ns().unwrap_or(0), "min_rtt, {ctx}");
        assert_eq!(s.last_d, mdl.last_delay_ns(), "last delay, {ctx}");
        assert_eq!(
            s.md_valid.then_some(s.last_md),
            mdl.last_decrease_ns(),
            "last decrease, {ctx}"
        );
        assert_eq!(
            m.get(ports.quadrant),
            quad(mdl.last_quadrant()),
            "quadrant, {ctx}"
        );
        compared += 6;
        seen[quad(mdl.last_quadrant()) as usize] += 1;
        if i % 4 == 0 {
            let bytes = 64 + rng.below(65_536 - 64);
            nscc_event(
                &mut m,
                &ports,
                rng.below(3),
                rng.below(3),
                nscc::EV_PACE,
                now,
                0,
                0,
                false,
                bytes,
            );
            assert_eq!(
                m.get(ports.gap),
                mdl.pacing_gap_ns(bytes),
                "gap({bytes}), {ctx}"
            );
            m.get_words(ports.st_out, &mut w);
            assert_eq!(st_of(&w), s, "pacing leaves the state unchanged, {ctx}");
            compared += 2;
        }
    }
    compared
}

/// The NSCC unit (`metaroce_cc_nscc`) bit-exact with the model's integer NSCC (MR-CC-7..14, MR-REL-26..28)
/// over random event sequences (ACKs with and without RTT samples and ECN echo, trims, losses, timeouts,
/// pacing-gap queries) under random parameters, with random idle cycles before each event and a random
/// delay before the new state is written back: after every event the window, srtt, min_rtt, last delay,
/// last decrease time, quadrant and repath flag equal the model's, and so does the pacing gap.
#[test]
fn mr_cc_7_14_nscc_unit_is_bit_exact_with_proto_nscc() {
    let seed = seed("nscc", 0x6e5c_c003);
    let mut rng = Rng::new(seed);
    let kind = model("metaroce_cc_nscc", &CoreConfig::default());
    let events = iters(3_000);
    let mut seen = [0usize; 6];
    let mut compared = 0;
    let mut seqs = 0;
    while seqs < 6 {
        let c = nscc_sequence(&kind, &mut rng, seed, events, &mut seen);
        if c > 0 {
            seqs += 1;
            compared += c;
        }
    }
    println!(
        "nscc: {seqs} sequences of {events} events, {compared} comparisons; quadrants (none, PI, FI, MD, \
         repath, timeout): {seen:?}"
    );
    assert!(compared > 0);
    assert!(
        seen[1..].iter().all(|&n| n > 0),
        "every quadrant exercised: {seen:?}"
    );
}

// ---------------------------------------------------------------------------------------------------------
// Receive PSN window

/// One packet into the window.
#[derive(Clone, Copy, Debug)]
struct WinIn {
    conn: usize,
    psn: u32,
    nack: bool,
    ctrl: bool,
}

/// Bitmap bit of PSN `p` in the model: set iff `p` in `(cack, cack + 256)` was received.
fn model_bit(w: &RecvWindow, p: u32) -> bool {
    w.classify(p) == Accept::Duplicate && p.wrapping_sub(w.expected()) < 256
}

/// The window's output side-band record, field by field.
struct Win {
    cand: bool,
    accepted: bool,
    in_order: bool,
    dup: bool,
    oow: bool,
    nack: bool,
    cack: u32,
    bitmap: Vec<u32>,
}

fn win_of(w: &[u32]) -> Win {
    let d = WinInfo::default();
    let f = |o: usize| bits(w, o, 1) == 1;
    let o = d.get_my_offset_bitmap();
    let mut bitmap = vec![0u32; 8];
    for (k, x) in bitmap.iter_mut().enumerate() {
        *x = bits(w, o + 32 * k, 32) as u32;
    }
    Win {
        cand: f(d.get_my_offset_cand()),
        accepted: f(d.get_my_offset_accepted()),
        in_order: f(d.get_my_offset_in_order()),
        dup: f(d.get_my_offset_dup()),
        oow: f(d.get_my_offset_oow()),
        nack: f(d.get_my_offset_nack()),
        cack: bits(w, d.get_my_offset_cack(), 32) as u32,
        bitmap,
    }
}

/// The receive PSN window (`metaroce_rx_psn_window`, the co-simulation's 256 connections) against the model's
/// `RecvWindow` (MR-REL-9..13): packets of several interleaved connections opened with ISNs near the 2^32
/// wrap, in order, out of order, duplicated, old, around and beyond the window's edge and anywhere, some
/// with an upstream NACK verdict and some CTRL packets (no window candidates), back-to-back packets of one
/// connection (the hazard rule), random idle input cycles and output back-pressure. Every output's class,
/// drop code, cumulative ack and all 256 bitmap bits equal the model's.
#[test]
fn mr_rel_9_13_psn_window_matches_proto_recv_window() {
    psn_window_run(false);
}

/// The same through the window's pre-classification port (MR-REL-10, MR-REL-11 before the message-level
/// checks): packets enter `s_axis_pre`, leave `m_axis_pre` marked, and come back on `s_axis_pkt` after a
/// random delay with the checks' verdict, as the receive engine loops them; every mark must be the window's
/// final decision on that packet (DUPLICATE, OUT_OF_WINDOW, or none), and the window's outputs are checked
/// as above.
#[test]
fn mr_rel_10_11_pre_classification_marks_the_window_decision() {
    psn_window_run(true);
}

/// One run of the window test; `via_pre`: through the pre-classification port.
fn psn_window_run(via_pre: bool) {
    let seed = seed("psn_window", 0x77_1d0e_0004);
    let mut rng = Rng::new(seed);
    let cfg = cosim_config();
    let kind = model("metaroce_rx_psn_window", &cfg);
    let mut m = kind.instance();
    reset(&mut m, port(&kind, "rst"));
    let sp = |n: &str| StreamPorts::new(&kind, n).unwrap_or_else(|e| panic!("{e}"));
    let mut open = StreamSource::new(sp("s_axis_open"), Idle::percent(30), seed ^ 1);
    let mut pkt = StreamSource::new(sp("s_axis_pkt"), Idle::percent(15), seed ^ 2);
    let mut out = StreamSink::new(sp("m_axis_pkt"), "m_axis_pkt", Idle::percent(20), seed ^ 3);
    let mut pre = StreamSource::new(sp("s_axis_pre"), Idle::percent(15), seed ^ 4);
    let mut pre_out = StreamSink::new(sp("m_axis_pre"), "m_axis_pre", Idle::percent(20), seed ^ 5);
    // The marks the pre-classification gave, in packet order, and the checks' verdicts waiting for them.
    let mut marks: std::collections::VecDeque<u64> = Default::default();
    let mut verdicts: std::collections::VecDeque<u64> = Default::default();
    let mut premarked = 0;
    let user_port = port(&kind, "m_axis_pkt_tuser");
    // Four connections at random indices, one of them busy (the hazard rule), ISNs near the wrap.
    let nconn = 4;
    let mut ids: Vec<u64> = Vec::new();
    while ids.len() < nconn {
        let c = rng.below(1 << cfg.conn_bits);
        if !ids.contains(&c) {
            ids.push(c);
        }
    }
    let isns: Vec<u32> = (0..nconn)
        .map(|_| u32::MAX - 300 + rng.below(200) as u32)
        .collect();
    let mut models: Vec<RecvWindow> = isns.iter().map(|&i| RecvWindow::new(8, i)).collect();
    for (c, &isn) in isns.iter().enumerate() {
        let o = ConnOpen {
            conn: Bits::<16>::from(ids[c]),
            peer_isn: Bits::<32>::from(u64::from(isn)),
            ..Default::default()
        };
        let o: Bits<{ ConnOpen::BITS }> = o.into();
        open.push(Beat::record(bits_w32(o)));
    }
    let mut guard = 0;
    while open.pending() > 0 {
        cycle(
            &mut m,
            &mut [&mut open, &mut pkt, &mut pre],
            &mut [&mut out, &mut pre_out],
        );
        guard += 1;
        assert!(guard < 1_000, "opens not taken");
    }
    let total = iters(20_000) as usize;
    let mut next_new = isns.clone();
    let mut sent = std::collections::VecDeque::new();
    let (mut acc, mut dups, mut oows, mut nacked, mut ctrls, mut compared) = (0, 0, 0, 0, 0, 0);
    let (mut n_out, mut generated) = (0, 0);
    let mut cycles = 0;
    let mut stalled: Option<Vec<u32>> = None;
    let mut w = Vec::new();
    while n_out < total {
        cycles += 1;
        assert!(
            cycles < 40 * total,
            "stuck: {n_out} of {total} packets out (seed {seed})"
        );
        // Keep a few packets queued so that back-to-back packets happen.
        while generated < total
            && (if via_pre {
                pre.pending()
            } else {
                pkt.pending()
            }) < 3
        {
            generated += 1;
            let c = if rng.below(4) == 0 {
                rng.below(nconn as u64) as usize
            } else {
                0
            };
            // The sender's frontier, in the model's terms (the model is ahead of the packets in flight: the
            // generator only picks PSNs; every verdict is taken when the packet comes out).
            let exp = models[c].expected();
            let r = rng.below(100);
            let psn = if r < 45 {
                let p = next_new[c];
                next_new[c] = p.wrapping_add(1);
                p
            } else if r < 70 {
                exp.wrapping_add(rng.below(40) as u32)
            } else if r < 80 {
                exp.wrapping_sub(rng.below(300) as u32)
            } else if r < 90 {
                exp.wrapping_add(240 + rng.below(40) as u32)
            } else if r < 95 {
                rng.next_u32()
            } else {
                exp
            };
            if next_new[c].wrapping_sub(exp) > 200 {
                next_new[c] = exp;
            }
            let i = WinIn {
                conn: c,
                psn,
                nack: rng.below(10) == 0,
                ctrl: rng.below(25) == 0,
            };
            let mut meta = PktMeta::default();
            meta.ptype = Bits::<4>::from(if i.ctrl { 4u64 } else { 1 });
            meta.psn = Bits::<32>::from(u64::from(i.psn));
            meta.conn = Bits::<16>::from(ids[c]);
            let nr = NackReq {
                nack: i.nack,
                code: Bits::<8>::from(4u64),
                aux: Bits::<32>::from(9u64),
            };
            let nr: Bits<{ NackReq::BITS }> = nr.into();
            if via_pre {
                // The checks' verdict goes with the packet when it comes back.
                verdicts.push_back(nr.to_u64());
                pre.push(Beat {
                    data: meta_w32(&meta),
                    keep: u128::MAX,
                    last: false,
                    user: 0,
                });
            } else {
                pkt.push(Beat {
                    data: meta_w32(&meta),
                    keep: u128::MAX,
                    last: false,
                    user: nr.to_u64(),
                });
            }
            sent.push_back(i);
        }
        // Pre-classified packets go back to the window (one at a time, after a random delay).
        if via_pre && pkt.pending() == 0 && rng.below(3) != 0 {
            if let Some(b) = pre_out.got.pop_front() {
                marks.push_back(meta_of_w32(&b.data).drop.to_u64());
                pkt.push(Beat {
                    user: verdicts.pop_front().expect("verdict"),
                    ..b
                });
            }
        }
        for s in [&mut open, &mut pkt, &mut pre] {
            s.drive(&mut m);
        }
        out.drive(&mut m);
        pre_out.drive(&mut m);
        m.eval();
        // The side-band record is wider than the sink's `tuser` sample: check it in full here (held while
        // stalled, read when taken).
        let before = out.got.len();
        pkt.sample(&mut m);
        open.sample(&mut m);
        out.sample(&mut m);
        pre.sample(&mut m);
        pre_out.sample(&mut m);
        if let Some(v) = [&out.violation, &pre_out.violation]
            .into_iter()
            .flatten()
            .next()
        {
            panic!("handshake violation: {v} (seed {seed})");
        }
        let valid = m.get_bit(port(&kind, "m_axis_pkt_tvalid"));
        if valid {
            m.get_words(user_port, &mut w);
            if let Some(s) = &stalled {
                assert_eq!(
                    s, &w,
                    "m_axis_pkt_tuser changed while stalled (seed {seed})"
                );
            }
        }
        stalled = (valid && out.got.len() == before).then(|| w.clone());
        if out.got.len() > before {
            let beat = out.got.pop_front().expect("beat");
            let g = meta_of_w32(&beat.data);
            let wi = win_of(&w);
            let i = sent.pop_front().expect("output without input");
            let mdl = &mut models[i.conn];
            let ctx = format!("packet {n_out}: {i:?} (seed {seed})");
            let mark = if via_pre {
                marks
                    .pop_front()
                    .expect("a pre-classified packet came out unmarked")
            } else {
                0
            };
            assert_eq!(g.psn.to_u64() as u32, i.psn, "{ctx}");
            assert_eq!(g.conn.to_u64(), ids[i.conn], "{ctx}");
            if i.ctrl {
                ctrls += 1;
                assert!(!wi.cand && !wi.accepted && !wi.dup && !wi.oow, "{ctx}");
                assert_eq!(g.drop.to_u64(), 0, "{ctx}");
                assert_eq!(mark, 0, "CTRL marked by the pre-classification, {ctx}");
            } else {
                let a = match mdl.classify(i.psn) {
                    Accept::InOrder | Accept::OutOfOrder if !i.nack => mdl.accept(i.psn),
                    other => other,
                };
                assert!(wi.cand, "{ctx}");
                if via_pre {
                    let want = match a {
                        Accept::Duplicate => u64::from(drop::DUPLICATE),
                        Accept::OutOfWindow => u64::from(drop::OUT_OF_WINDOW),
                        _ => 0,
                    };
                    assert_eq!(mark, want, "pre-classification mark against {a:?}, {ctx}");
                    premarked += usize::from(want != 0);
                }
                match a {
                    Accept::Duplicate => {
                        dups += 1;
                        assert!(wi.dup && !wi.accepted && !wi.nack, "duplicate, {ctx}");
                        assert_eq!(g.drop.to_u64(), u64::from(drop::DUPLICATE), "{ctx}");
                    }
                    Accept::OutOfWindow => {
                        oows += 1;
                        assert!(wi.oow && !wi.accepted && !wi.nack, "beyond, {ctx}");
                        assert_eq!(g.drop.to_u64(), u64::from(drop::OUT_OF_WINDOW), "{ctx}");
                    }
                    Accept::InOrder | Accept::OutOfOrder if i.nack => {
                        nacked += 1;
                        assert!(
                            !wi.accepted && !wi.dup && !wi.oow && wi.nack,
                            "NACKed, {ctx}"
                        );
                        assert_eq!(g.drop.to_u64(), 0, "{ctx}");
                    }
                    Accept::InOrder | Accept::OutOfOrder => {
                        acc += 1;
                        assert!(wi.accepted && !wi.dup && !wi.oow, "accepted, {ctx}");
                        assert_eq!(wi.in_order, a == Accept::InOrder, "in order, {ctx}");
                        assert_eq!(g.drop.to_u64(), 0, "{ctx}");
                    }
                }
            }
            let cack = mdl.expected();
            assert_eq!(wi.cack, cack, "cumulative ack, {ctx}");
            for k in 0..256u32 {
                let p = cack.wrapping_add(k);
                let bit = (wi.bitmap[(p % 256) as usize / 32] >> (p % 32)) & 1 == 1;
                assert_eq!(bit, model_bit(mdl, p), "bitmap bit of PSN {p:#x}, {ctx}");
            }
            compared += 1;
            n_out += 1;
        }
        m.step();
    }
    println!(
        "psn_window: {total} packets in {cycles} cycles, {compared} compared (window and 256 bitmap bits): \
         accepted {acc} duplicate {dups} beyond {oows} NACKed {nacked} CTRL {ctrls}; through the \
         pre-classification: {via_pre}, {premarked} marked there"
    );
    assert!(compared > 0);

    if total >= 2_000 {
        assert!(
            acc > 200 && dups > 100 && oows > 50 && nacked > 20 && (!via_pre || premarked > 150),
            "mix too thin"
        );
    }
}

// ---------------------------------------------------------------------------------------------------------
// ACK processing and loss detection

/// Field `name` (up to 64 bits) of a record of type `T` packed by rust-hdl (first field in the low bits).
fn field<T: Synth>(w: &[u32], name: &str) -> u64 {
    fn width(k: &TypeKind) -> usize {
        match k {
            TypeKind::Bits(n) | TypeKind::Signed(n) => *n,
            TypeKind::Composite(fs) => fs.iter().map(|f| width(&f.kind.kind)).sum(),
            TypeKind::Enum(v) => v.len().next_power_of_two().trailing_zeros() as usize,
        }
    }
    let TypeKind::Composite(fs) = T::descriptor().kind else {
        panic!("not a record")
    };
    let mut off = 0;
    for f in &fs {
        let n = width(&f.kind.kind);
        if f.fieldname == name {
            return bits(w, off, n);
        }
        off += n;
    }
    panic!("no field {name}")
}

/// A record as 32-bit port words.
macro_rules! rec_w32 {
    ($t:ty, $v:expr) => {{
        let b: Bits<{ <$t as Synth>::BITS }> = $v.into();
        bits_w32(b)
    }};
}

/// The ACK processor's bench: its stream agents, the outputs collected, the slot ports.
/// The recorded cause of a PSN a detection run declared by the reorder distance (`CAUSE_LOSS` with its lane in
/// the word's `far` mask).
const BY_DISTANCE: u64 = 8;

struct AckBench {
    m: Model,
    open: StreamSource,
    sent: StreamSource,
    ack: StreamSource,
    cmd: StreamSource,
    res: StreamSink,
    una: StreamSink,
    cres: StreamSink,
    lost: StreamSink,
    clean: StreamSink,
    slot_miss: metaroce_sim::cosim::PortId,
    free_slots: metaroce_sim::cosim::PortId,
    /// The outputs' `tvalid`s.
    out_valid: Vec<metaroce_sim::cosim::PortId>,
    /// Declared PSNs: (psn, cause or [`BY_DISTANCE`], path, ev).
    lost_got: Vec<(u32, u64, u8, u16)>,
    /// Clean-ACK entries: (path, ev).
    clean_got: Vec<(u8, u16)>,
    cycles: u64,
}

/// The PSNs of a lane word's set lanes with their path and entropy value.
fn lanes(w: &[u32]) -> Vec<(u32, u8, u16)> {
    let mask = field::<LaneWord>(w, "mask");
    let psn = field::<LaneWord>(w, "psn") as u32;
    (0..4u32)
        .filter(|k| mask & (1 << k) != 0)
        .map(|k| {
            (
                psn.wrapping_add(k),
                field::<LaneWord>(w, &format!("p{k}")) as u8,
                field::<LaneWord>(w, &format!("e{k}")) as u16,
            )
        })
        .collect()
}

impl AckBench {
    fn tick(&mut self) {
        let m = &mut self.m;
        for s in [&mut self.open, &mut self.sent, &mut self.ack, &mut self.cmd] {
            s.drive(m);
        }
        for s in [
            &mut self.res,
            &mut self.una,
            &mut self.cres,
            &mut self.lost,
            &mut self.clean,
        ] {
            s.drive(m);
        }
        m.eval();
        assert!(
            !m.get_bit(self.slot_miss),
            "a new transmission missed a window slot"
        );
        for s in [&mut self.open, &mut self.sent, &mut self.ack, &mut self.cmd] {
            s.sample(m);
        }
        for s in [
            &mut self.res,
            &mut self.una,
            &mut self.cres,
            &mut self.lost,
            &mut self.clean,
        ] {
            s.sample(m);
            if let Some(v) = &s.violation {
                panic!("handshake violation: {v}");
            }
        }
        m.step();
        self.cycles += 1;
        while let Some(b) = self.lost.got.pop_front() {
            assert_ne!(field::<LaneWord>(&b.data, "mask"), 0, "empty lost word");
            let cause = field::<LaneWord>(&b.data, "cause");
            let (base, far) = (
                field::<LaneWord>(&b.data, "psn") as u32,
                field::<LaneWord>(&b.data, "far"),
            );
            for (psn, p, e) in lanes(&b.data) {
                // A lane the detection run declared by the reorder distance is marked in `far`.
                let by_far = far & (1 << psn.wrapping_sub(base)) != 0;
                let c = if by_far { BY_DISTANCE } else { cause };
                self.lost_got.push((psn, c, p, e));
            }
        }
        while let Some(b) = self.clean.got.pop_front() {
            assert_ne!(field::<LaneWord>(&b.data, "mask"), 0, "empty clean word");
            for (_, p, e) in lanes(&b.data) {
                self.clean_got.push((p, e));
            }
        }
    }

    /// Runs until every input was taken, `done` holds, and no output has been valid for 8 cycles.
    fn settle(&mut self, done: impl Fn(&AckBench) -> bool) {
        let mut quiet = 0;
        for _ in 0..20_000 {
            self.tick();
            let pending =
                self.open.pending() + self.sent.pending() + self.ack.pending() + self.cmd.pending();
            let valid = self.out_valid.iter().any(|&v| self.m.get_bit(v));
            quiet = if pending == 0 && !valid && done(self) {
                quiet + 1
            } else {
                0
            };
            if quiet >= 8 {
                return;
            }
        }
        panic!("the block did not settle");
    }

    /// Runs a loss command to its result (every lost word taken).
    fn cmd(&mut self, c: LossCmd) -> Vec<u32> {
        self.cmd.push(Beat::record(rec_w32!(LossCmd, c)));
        self.settle(|b| !b.cres.got.is_empty());
        let r = self.cres.got.pop_front().expect("result").data;
        assert!(self.cres.got.is_empty(), "one result per command");
        r
    }
}

/// The ACK processor (`metaroce_rel_ack_proc`, 4 connections and 2 window slots) against the model's
/// `SendWindow` (MR-REL-20..25, MR-REL-34..39, MR-REL-59, MR-PATH-3): random transmissions and
/// retransmissions (declared PSNs first), ACKs (cumulative acks behind, at and beyond snd_nxt, SACK blocks at
/// random bases, random ECE), NACKs (TRIMMED with a current or stale echo, RNR), detection runs with random
/// srtt, reordering window and multiplier, timeout runs and look-ups, on three connections sharing two
/// window slots, PSNs and times across the 2^32 wrap, with random idle cycles on every input and random
/// back-pressure on every output. Every ACK's newly acknowledged count and bytes, CACK advance, validity,
/// snd_una update and in-flight bytes, the clean-ACK entries, the PSNs each run or NACK declares lost (order
/// and cause), the RACK deadline, the look-ups and the free window slots equal the model's.
#[test]
fn mr_rel_20_39_ack_processor_matches_proto_send_window() {
    let seed = seed("ack_proc", 0xac0c_0005);
    let mut rng = Rng::new(seed);
    let cfg = CoreConfig {
        conn_bits: 2,
        send_slot_bits: 1,
        ..cosim_config()
    };
    let kind = model("metaroce_rel_ack_proc", &cfg);
    let mut m = kind.instance();
    reset(&mut m, port(&kind, "rst"));
    let sp = |n: &str| StreamPorts::new(&kind, n).unwrap_or_else(|e| panic!("{e}"));
    let src = |n: &str, k: u64| StreamSource::new(sp(n), Idle::percent(30), seed ^ k);
    let sink = |n: &str, k: u64| StreamSink::new(sp(n), n, Idle::percent(33), seed ^ k);
    let mut tb = AckBench {
        m,
        open: src("s_axis_open", 1),
        sent: src("s_axis_sent", 2),
        ack: src("s_axis_ack", 3),
        cmd: src("s_axis_cmd", 4),
        res: sink("m_axis_res", 5),
        una: sink("m_axis_una", 6),
        cres: sink("m_axis_cres", 7),
        lost: sink("m_axis_lost", 8),
        clean: sink("m_axis_clean", 9),
        slot_miss: port(&kind, "slot_miss"),
        free_slots: port(&kind, "free_slots"),
        out_valid: ["res", "una", "cres", "lost", "clean"]
            .iter()
            .map(|n| port(&kind, &format!("m_axis_{n}_tvalid")))
            .collect(),
        lost_got: Vec::new(),
        clean_got: Vec::new(),
        cycles: 0,
    };
    let conns = [1u64, 2, 3];
    let slots = 2usize;
    let isns: Vec<u32> = conns
        .iter()
        .map(|_| u32::MAX - 300 + rng.below(100) as u32)
        .collect();
    let mut ms: Vec<SendWindow> = isns.iter().map(|&i| SendWindow::new(8, i, 3)).collect();
    // Whether each connection has had a valid ACK since its open (the end of its SYN phase).
    let mut answered = vec![false; conns.len()];
    for (&conn, &isn) in conns.iter().zip(&isns) {
        let o = ConnOpen {
            conn: Bits::<16>::from(conn),
            isn: Bits::<32>::from(u64::from(isn)),
            ..Default::default()
        };
        tb.open.push(Beat::record(rec_w32!(ConnOpen, o)));
    }
    tb.settle(|_| true);
    let ops = iters(10_000);
    let mut now: u64 = (1u64 << 32) - 150_000;
    let (mut acks, mut newly_total, mut invalid_seen, mut sack_only) = (0, 0, 0, 0);
    let (mut by_time, mut by_distance, mut by_rto, mut by_nack, mut stale_nack, mut peeks_found) =
        (0, 0, 0, 0, 0, 0);
    let (mut slot_waits, mut slot_takes, mut compared) = (0, 0, 0usize);
    let base_cmd = |conn: u64, now: u64| LossCmd {
        conn: Bits::<16>::from(conn),
        now32: Bits::<32>::from(u64::from(now as u32)),
        ..Default::default()
    };
    let b32 = |v: u32| Bits::<32>::from(u64::from(v));
    for op in 0..ops {
        now += 1 + rng.below(500);
        let k = rng.below(conns.len() as u64) as usize;
        let conn = conns[k];
        let busy = ms.iter().filter(|m| m.outstanding() > 0).count();
        let m = &mut ms[k];
        let outst = m.outstanding();
        let r = rng.below(100);
        tb.lost_got.clear();
        let mut runs = false;
        let ctx = format!(
            "seed {seed} op {op}: conn {conn} una {} nxt {}",
            m.una(),
            m.nxt()
        );
        if r < 40 && outst == 0 && busy == slots {
            // No window slot free: the gate holds the packet.
            slot_waits += 1;
        } else if r < 40 && outst < 250 {
            slot_takes += usize::from(outst == 0);
            let charged = 64 + rng.below(4097);
            let path = rng.below(64);
            let ev = rng.below(1 << 14);
            let psn = m.on_send(
                now,
                SentPkt {
                    len: (charged - 64) as u32,
                    path: path as u8,
                    ev: ev as u16,
                    ..Default::default()
                },
                1_000_000,
            );
            let t = TxSent {
                conn: Bits::<16>::from(conn),
                psn: b32(psn),
                ts: b32(now as u32),
                charged: charged.into(),
                path: path.into(),
                ev: ev.into(),
                rtx: false,
            };
            tb.sent.push(Beat::record(rec_w32!(TxSent, t)));
            tb.settle(|_| true);
        } else if r < 46 && outst > 0 {
            // MR-REL-43: declared PSNs first, in declaration order.
            let psn = match m.pop_lost() {
                Some(p) => p,
                None => m.una().wrapping_add(rng.below(u64::from(outst)) as u32),
            };
            let path = rng.below(64);
            let ev = rng.below(1 << 14);
            m.on_retransmit(now, psn, path as u8, ev as u16, 1_000_000);
            let t = TxSent {
                conn: Bits::<16>::from(conn),
                psn: b32(psn),
                ts: b32(now as u32),
                charged: 0u64.into(),
                path: path.into(),
                ev: ev.into(),
                rtx: true,
            };
            tb.sent.push(Beat::record(rec_w32!(TxSent, t)));
            tb.settle(|_| true);
        } else if r < 58 {
            // A detection run (MR-REL-36..38) with the reordering multiplier of MR-REL-59.
            let span = [1_000, 4_000, 40_000][rng.below(3) as usize];
            let srtt = 100 + rng.below(span);
            let reo_wnd = 100 + rng.below(3_000);
            m.on_reordering_signal(now, srtt, rng.below(25) == 0);
            let mult = u64::from(m.reo_mult());
            let mut want = Vec::new();
            m.detect_losses(now, srtt, reo_wnd, |psn, rec, c| {
                let cause = if c == LossCause::Distance {
                    BY_DISTANCE
                } else {
                    CAUSE_LOSS
                };
                want.push((psn, cause, rec.path, rec.ev));
                match c {
                    LossCause::Time => by_time += 1,
                    LossCause::Distance => by_distance += 1,
                    other => panic!("detection declared {other:?}, {ctx}"),
                }
            });
            let c = LossCmd {
                op: CMD_DETECT.into(),
                srtt_reo: (srtt + mult * reo_wnd).into(),
                distance: (16 * mult).min(256).into(),
                ..base_cmd(conn, now)
            };
            runs = true;
            let res = tb.cmd(c);
            assert_eq!(tb.lost_got, want, "declared PSNs, {ctx}");
            assert_eq!(
                field::<LossRes>(&res, "nlost"),
                want.len() as u64,
                "count, {ctx}"
            );
            assert_eq!(
                field::<LossRes>(&res, "rack_armed") == 1,
                m.rack_deadline.is_some(),
                "RACK timer, {ctx}"
            );
            if let Some(d) = m.rack_deadline {
                assert_eq!(
                    field::<LossRes>(&res, "rack_at"),
                    u64::from(d as u32),
                    "RACK deadline, {ctx}"
                );
            }
            compared += 1;
        } else if r < 60 {
            // A timeout run (MR-REL-39).
            let rto = 500 + rng.below(20_000);
            let mut want = Vec::new();
            m.on_rto(now, rto, |psn, rec| {
                want.push((psn, CAUSE_RTO, rec.path, rec.ev));
            });
            by_rto += want.len();
            let c = LossCmd {
                op: CMD_RTO.into(),
                rto: rto.into(),
                ..base_cmd(conn, now)
            };
            runs = true;
            let res = tb.cmd(c);
            assert_eq!(tb.lost_got, want, "declared PSNs, {ctx}");
            let queued = (0..m.outstanding())
                .map(|i| m.una().wrapping_add(i))
                .any(|p| !m.is_acked(p) && m.get(p).is_some_and(|e| e.flags & F_LOST != 0));
            assert_eq!(
                field::<LossRes>(&res, "queued") == 1,
                queued,
                "queued, {ctx}"
            );
            assert_eq!(
                field::<LossRes>(&res, "outstanding") == 1,
                m.outstanding() > 0,
                "outstanding, {ctx}"
            );
            compared += 1;
        } else if r < 66 && outst > 0 {
            // A NACK (MR-REL-34, MR-REL-35, MR-REL-50): TRIMMED with the current or a stale echo, or RNR;
            // sometimes for a PSN outside the window.
            let psn = m
                .una()
                .wrapping_sub(2)
                .wrapping_add(rng.below(u64::from(outst) + 4) as u32);
            let trim = rng.below(4) != 0;
            let cur = m.get(psn).map(|e| e.sent as u32).unwrap_or(0);
            let echo = if rng.below(4) == 0 {
                cur.wrapping_sub(1 + rng.below(100) as u32)
            } else {
                cur
            };
            let ok = m.get(psn).is_some()
                && !m.is_acked(psn)
                && (!trim || m.get(psn).is_some_and(|e| e.sent as u32 == echo));
            let rec = if ok { m.mark_lost(psn) } else { None };
            let cause = if trim { CAUSE_TRIM } else { CAUSE_NONE };
            let want: Vec<_> = rec.iter().map(|e| (psn, cause, e.path, e.ev)).collect();
            by_nack += want.len();
            stale_nack += usize::from(!ok);
            let c = LossCmd {
                op: CMD_NACK.into(),
                psn: b32(psn),
                echo_ts: b32(echo),
                trim,
                ..base_cmd(conn, now)
            };
            runs = true;
            let res = tb.cmd(c);
            assert_eq!(tb.lost_got, want, "NACK psn {psn} trim {trim}, {ctx}");
            assert_eq!(
                field::<LossRes>(&res, "found") == 1,
                rec.is_some(),
                "NACK found, {ctx}"
            );
            compared += 1;
        } else if r < 70 && outst > 0 {
            // Look-up of a PSN to retransmit.
            let psn = m
                .una()
                .wrapping_sub(2)
                .wrapping_add(rng.below(u64::from(outst) + 4) as u32);
            let e = m.get(psn).copied();
            let found = e.is_some_and(|e| e.flags & F_LOST != 0) && !m.is_acked(psn);
            let res = tb.cmd(LossCmd {
                op: CMD_PEEK.into(),
                psn: b32(psn),
                ..base_cmd(conn, now)
            });
            assert_eq!(
                field::<LossRes>(&res, "found") == 1,
                found,
                "peek {psn}, {ctx}"
            );
            if let Some(e) = e {
                assert_eq!(
                    field::<LossRes>(&res, "path"),
                    u64::from(e.path),
                    "peek path, {ctx}"
                );
                assert_eq!(
                    field::<LossRes>(&res, "ev"),
                    u64::from(e.ev),
                    "peek ev, {ctx}"
                );
            }
            peeks_found += usize::from(found);
            compared += 1;
        } else {
            // An ACK: CACK from 3 behind snd_una to 2 beyond snd_nxt; SACK block at a base near snd_una.
            // Most leave snd_una where it is (SACK only), so holes persist below later PSNs.
            let full = rng.below(6) == 0;
            let cack = if full {
                m.nxt()
            } else if rng.below(8) != 0 {
                m.una()
            } else {
                m.una()
                    .wrapping_sub(3)
                    .wrapping_add(rng.below(u64::from(outst) + 6) as u32)
            };
            let base = m.una().wrapping_sub(8).wrapping_add(rng.below(24) as u32);
            let ece = rng.below(4) == 0;
            let mut bytes = [0u8; 32];
            let density = rng.below(4);
            for i in 0..256 {
                if rng.below(4) < density && rng.below(3) == 0 {
                    bytes[i / 8] |= 1 << (i % 8);
                }
            }
            let mut credited = Vec::new();
            let res = m.on_ack(now, cack, base, &bytes, 1_000_000, |e| {
                credited.push((e.path, e.ev))
            });
            let mut meta = PktMeta::default();
            meta.conn = Bits::<16>::from(conn);
            meta.psn = b32(cack);
            meta.sack_base = b32(base);
            meta.sack = Bits::<256>::from_words(&support_diff::w64(&bytes_to_w32(&bytes, 8)));
            meta.aflags = Bits::<8>::from(if ece { 0x80u64 } else { 0 });
            tb.clean_got.clear();
            tb.ack.push(Beat::record(meta_w32(&meta)));
            tb.settle(|b| !b.res.got.is_empty());
            let o = tb.res.got.pop_front().expect("result").data;
            assert!(tb.res.got.is_empty(), "one result per ACK, {ctx}");
            let ctx = format!("{ctx}: cack {cack} base {base}");
            let f = |n: &str| field::<AckRes>(&o, n);
            assert_eq!(f("invalid") == 1, res.invalid, "invalid, {ctx}");
            assert_eq!(f("newly"), u64::from(res.newly_acked), "newly acked, {ctx}");
            assert_eq!(f("bytes"), res.acked_bytes, "acked bytes, {ctx}");
            assert_eq!(
                f("cack_advanced") == 1,
                res.cack_advanced,
                "cack advanced, {ctx}"
            );
            assert_eq!(f("snd_una"), u64::from(m.una()), "snd_una, {ctx}");
            assert_eq!(f("inflight"), m.inflight_bytes(), "inflight, {ctx}");
            assert_eq!(f("idle") == 1, m.outstanding() == 0, "idle, {ctx}");
            // MR-REL-22: every advance of snd_una is reported, once, and so is the first valid ACK since
            // the open (MR-CONN-6, MR-CONN-7).
            let first = !res.invalid && !answered[k];
            answered[k] |= !res.invalid;
            let una: Vec<u64> = tb
                .una
                .got
                .drain(..)
                .map(|b| field::<UnaUpdate>(&b.data, "snd_una"))
                .collect();
            let want_una: Vec<u64> = if res.cack_advanced || first {
                vec![u64::from(m.una())]
            } else {
                Vec::new()
            };
            assert_eq!(una, want_una, "snd_una updates, {ctx}");
            // MR-PATH-3: a clean ACK reports the entries of every packet it newly covers, in PSN order.
            let want: Vec<(u8, u16)> = if ece { Vec::new() } else { credited };
            assert_eq!(tb.clean_got, want, "clean entries, {ctx}");
            acks += 1;
            newly_total += res.newly_acked;
            invalid_seen += usize::from(res.invalid);
            sack_only += usize::from(!res.cack_advanced && res.newly_acked > 0);
            compared += 1;
        }
        if !runs {
            tb.settle(|_| true);
            assert!(
                tb.lost_got.is_empty(),
                "PSNs declared lost outside a run or NACK, {ctx}"
            );
        }
        // A connection holds a window slot exactly while it has PSNs outstanding.
        tb.m.eval();
        let busy = ms.iter().filter(|m| m.outstanding() > 0).count();
        assert_eq!(
            tb.m.get(tb.free_slots),
            (slots - busy) as u64,
            "free window slots, seed {seed} op {op}"
        );
    }
    println!(
        "ack_proc: {ops} operations in {} cycles, {compared} results compared; {slot_takes} window slots taken, \
         {slot_waits} new packets held for a slot; {acks} ACKs, {newly_total} packets acknowledged, \
         {invalid_seen} invalid, {sack_only} SACK-only; declared lost: {by_time} by time, {by_distance} by \
         distance, {by_rto} by timeout, {by_nack} by NACK ({stale_nack} NACKs ignored); {peeks_found} look-ups \
         found",
        tb.cycles
    );
    assert!(compared > 0);
    if ops >= 2_000 {
        assert!(acks > 100 && newly_total > 200 && invalid_seen > 5 && sack_only > 5);
        assert!(by_time > 5 && by_distance > 0 && by_rto > 5 && by_nack > 5 && stale_nack > 5);
        assert!(peeks_found > 0 && slot_takes > 10 && slot_waits > 10);
    }
}

// ---------------------------------------------------------------------------------------------------------
// ACK generation

/// An expected control packet (the fields the generator sets).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Ctl {
    ptype: u64,
    psn: u64,
    dcid: u64,
    scid: u64,
    echo_ts: u64,
    aflags: u64,
    sack_base: u64,
    echo_ev: u64,
    ce_count: u64,
    sack: Vec<u32>,
    code: u64,
    aux: u64,
}

fn ctl_of(m: &PktMeta) -> Ctl {
    Ctl {
        ptype: m.ptype.to_u64(),
        psn: m.psn.to_u64(),
        dcid: m.dcid.to_u64(),
        scid: m.scid.to_u64(),
        echo_ts: m.echo_ts.to_u64(),
        aflags: m.aflags.to_u64(),
        sack_base: m.sack_base.to_u64(),
        echo_ev: m.echo_ev.to_u64(),
        ce_count: m.ce_count.to_u64(),
        sack: support_diff::w32(&m.sack.to_words()),
        code: m.code.to_u64(),
        aux: m.aux.to_u64(),
    }
}

/// One ACK-generator run at ACK ratio `ratio`: returns (ACKs, NACKs) compared.
fn ack_gen_run(
    kind: &metaroce_sim::cosim::ModelKind,
    rng: &mut Rng,
    seed: u64,
    ratio: u8,
    total: usize,
) -> (usize, usize) {
    const CONN: u64 = 3;
    const OWN: u32 = 0x30003;
    const PEER: u32 = 0x0a0b0c;
    let isn = u32::MAX - 100;
    let mut m = kind.instance();
    m.set(port(kind, "cfg_ack_ratio"), u64::from(ratio));
    m.set(port(kind, "cfg_dscp_ctrl"), 46);
    // The ACK-delay timer always has room and never triggers here: the deadlines are the rust-hdl test's
    // subject (`hdl/tests/rx_ack_gen.rs`); an ACK not yet due waits for the ratio.
    m.set(port(kind, "arm_room"), 1);
    reset(&mut m, port(kind, "rst"));
    let sp = |n: &str| StreamPorts::new(kind, n).unwrap_or_else(|e| panic!("{e}"));
    let mut open = StreamSource::new(sp("s_axis_open"), Idle::percent(30), seed ^ 11);
    let mut pkt = StreamSource::new(sp("s_axis_pkt"), Idle::percent(33), seed ^ 12);
    let mut fwd = StreamSink::new(sp("m_axis_pkt"), "m_axis_pkt", Idle::percent(20), seed ^ 13);
    let mut ctl = StreamSink::new(sp("m_axis_ctl"), "m_axis_ctl", Idle::percent(25), seed ^ 14);
    let pkt_user = port(kind, "s_axis_pkt_tuser");
    let o = ConnOpen {
        conn: Bits::<16>::from(CONN),
        peer_isn: Bits::<32>::from(u64::from(isn)),
        ..Default::default()
    };
    open.push(Beat::record(rec_w32!(ConnOpen, o)));
    let mut win = RecvWindow::new(8, isn);
    let mut next_new = isn;
    // The model's ACK state (MR-REL-14..18: packets not yet acknowledged, CE count, ECE and DUP flags).
    let (mut unacked, mut ce_count, mut ece, mut dup) = (0u32, 0u16, false, false);
    let mut expect: std::collections::VecDeque<Ctl> = Default::default();
    // The side-band records of the packets queued in the source (wider than its `tuser`), and the PSNs
    // expected on the pass-through output.
    let mut users: std::collections::VecDeque<Vec<u32>> = Default::default();
    let mut fwd_want: std::collections::VecDeque<u64> = Default::default();
    let (mut acks, mut nacks, mut passed) = (0, 0, 0);
    let mut n = 0;
    let mut cycles = 0;
    while n < total || !expect.is_empty() || !fwd_want.is_empty() || open.pending() > 0 {
        cycles += 1;
        assert!(
            cycles < 40 * total + 1_000,
            "stuck: {} control packets and {} packets expected (seed {seed})",
            expect.len(),
            fwd_want.len()
        );
        if n < total && pkt.pending() < 2 && open.pending() == 0 {
            n += 1;
            let kind = rng.below(100);
            let exp = win.expected();
            let psn = match rng.below(10) {
                0..=5 => {
                    let p = next_new;
                    next_new = next_new.wrapping_add(1);
                    p
                }
                6 | 7 => exp.wrapping_add(rng.below(30) as u32),
                8 => exp.wrapping_sub(rng.below(50) as u32),
                _ => exp.wrapping_add(200 + rng.below(1000) as u32),
            };
            if next_new.wrapping_sub(exp) > 200 {
                next_new = exp;
            }
            let ce = rng.below(6) == 0;
            let ts = rng.next_u32();
            let ev = rng.below(1 << 14) as u16;
            let mut pm = PktMeta::default();
            pm.ptype = Bits::<4>::from(1u64);
            pm.psn = Bits::<32>::from(u64::from(psn));
            pm.ts = Bits::<32>::from(u64::from(ts));
            pm.ev = Bits::<14>::from(u64::from(ev));
            pm.ecn = Bits::<2>::from(if ce { 3u64 } else { 2 });
            pm.dcid = Bits::<24>::from(u64::from(OWN));
            pm.scid = Bits::<24>::from(u64::from(PEER));
            pm.conn = Bits::<16>::from(CONN);
            let mut w = WinInfo {
                conn_ok: true,
                ..Default::default()
            };
            let ack = |win: &RecvWindow, trig: u32, aflags: u64, ce_count: u16| {
                let cack = win.expected();
                let base = sack_base(cack, trig);
                let mut sack = [0u8; 32];
                win.sack_block(base, &mut sack);
                Ctl {
                    ptype: 2,
                    psn: u64::from(cack),
                    dcid: u64::from(PEER),
                    scid: u64::from(OWN),
                    echo_ts: u64::from(ts),
                    aflags,
                    sack_base: u64::from(base),
                    echo_ev: 0xC000 | u64::from(ev),
                    ce_count: u64::from(ce_count),
                    sack: bytes_to_w32(&sack, 8),
                    code: 0,
                    aux: 0,
                }
            };
            let nack = |code: u64, aux: u64| Ctl {
                ptype: 3,
                psn: u64::from(psn),
                dcid: u64::from(PEER),
                scid: u64::from(OWN),
                echo_ts: u64::from(ts),
                aflags: 0,
                sack_base: 0,
                echo_ev: 0,
                ce_count: 0,
                sack: vec![0; 8],
                code,
                aux,
            };
            let flags =
                |ece: bool, dup: bool| (if ece { 0x80 } else { 0 }) | (if dup { 0x40 } else { 0 });
            if kind < 5 {
                // MR-REL-48: trimmed DATA: NACK TRIMMED, nothing else.
                pm.trimmed = true;
                expect.push_back(nack(1, 0));
            } else if kind < 10 {
                // MR-REL-17: CTRL PROBE: ACK with sack_base = CACK.
                pm.ptype = Bits::<4>::from(4u64);
                pm.code = Bits::<8>::from(4u64);
                ece |= ce;
                w.cack = Bits::<32>::from(u64::from(win.expected()));
                expect.push_back(ack(&win, win.expected(), flags(ece, dup), ce_count));
                (unacked, ce_count, ece, dup) = (0, 0, false, false);
            } else {
                w.cand = true;
                if ce {
                    ce_count = ce_count.saturating_add(1);
                    ece = true;
                }
                let nacked = kind < 20;
                let a = match win.classify(psn) {
                    Accept::InOrder | Accept::OutOfOrder if !nacked => win.accept(psn),
                    other => other,
                };
                match a {
                    Accept::Duplicate | Accept::OutOfWindow => {
                        w.dup = a == Accept::Duplicate;
                        w.oow = a == Accept::OutOfWindow;
                        dup |= w.dup;
                        expect.push_back(ack(&win, psn, flags(ece, dup), ce_count));
                        (unacked, ce_count, ece, dup) = (0, 0, false, false);
                    }
                    _ if nacked => {
                        w.nack = true;
                        w.code = Bits::<8>::from(5u64);
                        w.aux = Bits::<32>::from(77u64);
                        expect.push_back(nack(5, 77));
                    }
                    _ => {
                        w.accepted = true;
                        w.in_order = a == Accept::InOrder;
                        unacked += 1;
                        // MR-REL-15: the last packet of a message is acknowledged at once.
                        let last = rng.below(8) == 0;
                        if last {
                            pm.dflags = Bits::<8>::from(0x40u64);
                        }
                        if last || ce || !w.in_order || unacked >= u32::from(ratio) {
                            expect.push_back(ack(&win, psn, flags(ece, dup), ce_count));
                            (unacked, ce_count, ece, dup) = (0, 0, false, false);
                        }
                    }
                }
                w.cack = Bits::<32>::from(u64::from(win.expected()));
            }
            // The circular window after the packet (bit p mod 256 for p in (cack, cack + 256)).
            let cack = win.expected();
            let mut bm = Bits::<256>::default();
            for k in 1..256u32 {
                let p = cack.wrapping_add(k);
                if win.classify(p) == Accept::Duplicate {
                    bm = bm.replace_bit((p % 256) as usize, true);
                }
            }
            w.bitmap = bm;
            pkt.push(Beat::record(meta_w32(&pm)));
            users.push_back(rec_w32!(WinInfo, w));
            fwd_want.push_back(u64::from(psn));
        }
        open.drive(&mut m);
        pkt.drive(&mut m);
        // The source drives the low 64 bits of `tuser`; the whole record of the packet it offers goes here.
        if let Some(u) = users.front() {
            m.set_words(pkt_user, u);
        }
        fwd.drive(&mut m);
        ctl.drive(&mut m);
        m.eval();
        let before = pkt.beats;
        open.sample(&mut m);
        pkt.sample(&mut m);
        if pkt.beats > before {
            users.pop_front();
        }
        for s in [&mut fwd, &mut ctl] {
            s.sample(&mut m);
            if let Some(v) = &s.violation {
                panic!("handshake violation: {v} (seed {seed})");
            }
        }
        m.step();
        while let Some(b) = ctl.got.pop_front() {
            let g = ctl_of(&meta_of_w32(&b.data));
            let e = expect
                .pop_front()
                .unwrap_or_else(|| panic!("unexpected control packet {g:?} (seed {seed})"));
            assert_eq!(
                g,
                e,
                "control packet {} (ratio {ratio}, seed {seed})",
                acks + nacks
            );
            if g.ptype == 2 {
                acks += 1;
            } else {
                nacks += 1;
            }
        }
        while let Some(b) = fwd.got.pop_front() {
            let g = meta_of_w32(&b.data);
            let e = fwd_want
                .pop_front()
                .expect("a packet passed on without input");
            assert_eq!(g.psn.to_u64(), e, "packet passed on {passed} (seed {seed})");
            assert_eq!(
                g.conn.to_u64(),
                CONN,
                "packet passed on {passed} (seed {seed})"
            );
            passed += 1;
        }
    }
    assert_eq!(passed, total, "every packet passed on (seed {seed})");
    (acks, nacks)
}

/// The ACK generator (`metaroce_rx_ack_gen`) against the model's ACK building (MR-REL-14..18, MR-REL-48,
/// MR-WIRE-33..35): window verdicts from `RecvWindow`, the SACK block from `RecvWindow::sack_block` at
/// `bitmap::sack_base`, the ACK-now rules (last packet of a message, CE mark, out of order, duplicate,
/// beyond the window, probe) and the CE / DUP accounting of the receiver, at ACK ratios 1 and 3, with random
/// idle input cycles and back-pressure on both outputs. Every ACK's CACK, SACK base, 256-bit SACK block,
/// flags, CE count and echoes and every NACK's code and PSN equal the model's, in order.
#[test]
fn mr_rel_14_18_ack_generator_matches_proto_recv_window_sack() {
    let seed = seed("ack_gen", 0xac4_0006);
    let mut rng = Rng::new(seed);
    let kind = model("metaroce_rx_ack_gen", &cosim_config());
    let total = iters(5_000) as usize;
    let (a1, n1) = ack_gen_run(&kind, &mut rng, seed, 1, total);
    let (a3, n3) = ack_gen_run(&kind, &mut rng, seed, 3, total);
    println!(
        "ack_gen: {total} packets per ratio; ratio 1: {a1} ACKs {n1} NACKs; ratio 3: {a3} ACKs {n3} NACKs"
    );
    assert!(a1 + n1 + a3 + n3 > 0);
    if total >= 2_000 {
        assert!(a1 > total / 3 && n1 > total / 20 && a3 > total / 10 && n3 > total / 20);
    }
}

// ---------------------------------------------------------------------------------------------------------
// Path selection

/// The EV-set unit's bench.
struct PathBench {
    m: Model,
    cmd: StreamSource,
    clean: StreamSource,
    res: StreamSink,
    now: metaroce_sim::cosim::PortId,
    idle: metaroce_sim::cosim::PortId,
    cycles: u64,
}

impl PathBench {
    fn tick(&mut self) {
        cycle(
            &mut self.m,
            &mut [&mut self.cmd, &mut self.clean],
            &mut [&mut self.res],
        );
        self.cycles += 1;
    }

    fn cmd(&mut self, c: PathCmd) {
        self.cmd
            .push(Beat::record(support_diff::w32(&c.to_words())));
        for _ in 0..5_000 {
            if self.cmd.pending() == 0 {
                return;
            }
            self.tick();
        }
        panic!("command never taken");
    }

    /// Offers clean beats back to back; returns the cycle each was taken in.
    fn clean_burst(&mut self, beats: &[PathClean]) -> Vec<u64> {
        for c in beats {
            self.clean
                .push(Beat::record(support_diff::w32(&c.to_words())));
        }
        let mut taken = Vec::new();
        for _ in 0..5_000 {
            if self.clean.pending() == 0 {
                return taken;
            }
            let before = self.clean.beats;
            self.tick();
            if self.clean.beats > before {
                taken.push(self.cycles);
            }
        }
        panic!("clean beats never taken");
    }

    /// The CHOOSE answer: (entry, EV).
    fn result(&mut self) -> (u8, u16) {
        for _ in 0..5_000 {
            if let Some(b) = self.res.got.pop_front() {
                assert!(self.res.got.is_empty(), "one answer per CHOOSE");
                let r = PathRes::from_words(&support_diff::w64(&b.data));
                return (r.path.to_u64() as u8, r.ev.to_u64() as u16);
            }
            self.tick();
        }
        panic!("no CHOOSE answer");
    }

    fn wait_idle(&mut self) {
        for _ in 0..5_000 {
            self.m.eval();
            if self.cmd.pending() + self.clean.pending() == 0 && self.m.get_bit(self.idle) {
                return;
            }
            self.tick();
        }
        panic!("never idle");
    }
}

fn path_cmd(conn: u64, op: u64) -> PathCmd {
    PathCmd {
        conn: conn.into(),
        op: op.into(),
        ..Default::default()
    }
}

/// An (entry, EV) pair to report: a current one, a stale one from the history, or garbage.
fn path_pair(rng: &mut Rng, m: &PathSet, hist: &[(u8, u16)]) -> (u8, u16) {
    match rng.below(10) {
        0..=3 => {
            let i = rng.below(m.len() as u64) as u8;
            (i, m.ev(i))
        }
        4..=7 if !hist.is_empty() => hist[rng.below(hist.len() as u64) as usize],
        8 => (rng.below(80) as u8, rng.below(1 << 14) as u16),
        _ => (rng.below(256) as u8, rng.below(1 << 14) as u16),
    }
}

/// The EV-set unit (`metaroce_rel_path_select`, 64 entries, the co-simulation's 256 connections) against the
/// model's `PathSet` (MR-PATH-1..4, MR-PATH-7..10, MR-PATH-18): five connections opened with random sizes
/// (0, 1 and up to 64 entries) and seeds, then a random mix of CHOOSE (with and without an entry to avoid),
/// bursts of clean-acknowledgement beats with random lane masks (current, stale and invalid entry/EV pairs,
/// lanes naming one entry twice), ECE / trim / loss recycles (current, stale and unknown EVs), srtt updates
/// and re-opens, with time jumping across freezes, random idle cycles on the commands and back-pressure on
/// the answers. Every CHOOSE answer equals the model's; a burst of clean beats for the cached connection is
/// taken one per cycle (MR-PATH-3 at line rate).
#[test]
fn mr_path_1_3_10_18_path_select_matches_proto_path_set() {
    let seed = seed("path_select", 0x9a75_e007);
    let mut rng = Rng::new(seed);
    let cfg = cosim_config();
    let kind = model("metaroce_rel_path_select", &cfg);
    let mut m = kind.instance();
    reset(&mut m, port(&kind, "rst"));
    let sp = |n: &str| StreamPorts::new(&kind, n).unwrap_or_else(|e| panic!("{e}"));
    let mut tb = PathBench {
        m,
        cmd: StreamSource::new(sp("s_axis_cmd"), Idle::percent(30), seed ^ 1),
        clean: StreamSource::new(sp("s_axis_clean"), Idle::NONE, seed ^ 2),
        res: StreamSink::new(sp("m_axis_res"), "m_axis_res", Idle::percent(30), seed ^ 3),
        now: port(&kind, "now"),
        idle: port(&kind, "idle"),
        cycles: 0,
    };
    let max_paths = 64u64;
    let conns = 5usize;
    let mut ids: Vec<u64> = Vec::new();
    while ids.len() < conns {
        let c = rng.below(1 << cfg.conn_bits);
        if !ids.contains(&c) {
            ids.push(c);
        }
    }
    let ops = iters(5_000);
    let mut now: u64 = rng.next_u64() >> 20;
    let mut models: Vec<Option<PathSet>> = vec![None; conns];
    let mut hist: Vec<Vec<(u8, u16)>> = vec![Vec::new(); conns];
    let mut cur = 0usize;
    // The connection the unit has cached (the one of the latest command or beat).
    let mut last_conn: Option<usize> = None;
    let (mut chooses, mut explored, mut reused, mut burst_beats) = (0u64, 0u64, 0u64, 0u64);
    for op in 0..ops {
        now = match rng.below(40) {
            0..=2 => now.wrapping_add(rng.below(1 << 20)),
            3 => now.wrapping_add(rng.below(1 << 36)),
            4 => u64::MAX - rng.below(1 << 16),
            5 => rng.below(1 << 40),
            _ => now.saturating_add(rng.below(400)),
        };
        tb.m.set(tb.now, now);
        if rng.below(10) < 3 {
            cur = rng.below(conns as u64) as usize;
        }
        let conn = ids[cur];
        let open_now = models[cur].is_none() || rng.below(200) == 0;
        if open_now {
            let n = match rng.below(6) {
                0 => 1,
                1 => 0,
                2 => rng.below(max_paths + 1),
                3 => 60 + rng.below(5),
                _ => 1 + rng.below(16),
            };
            let s = rng.next_u64();
            let mut c = path_cmd(conn, OP_OPEN);
            c.n = n.into();
            c.seed = s.into();
            tb.cmd(c);
            last_conn = Some(cur);
            let m = PathSet::new(n as u8, s);
            hist[cur] = (0..m.len() as u8).map(|i| (i, m.ev(i))).collect();
            models[cur] = Some(m);
            continue;
        }
        let Some(m) = models[cur].as_mut() else {
            continue;
        };
        let h = &mut hist[cur];
        let last = last_conn.replace(cur);
        let r = rng.below(100);
        if r < 40 {
            let avoid = rng.below(3) == 0;
            let idx = if rng.below(4) == 0 {
                rng.below(256)
            } else {
                rng.below(m.len() as u64 + 1)
            };
            let mut c = path_cmd(conn, OP_CHOOSE);
            c.avoid = avoid;
            c.idx = idx.into();
            let before = m.clone();
            let want = m.choose(avoid.then_some(idx as u8), now);
            tb.cmd(c);
            let got = tb.result();
            assert_eq!(
                got,
                want,
                "op {op}: CHOOSE conn {conn} avoid {avoid} idx {idx} now {now} n {} (seed {seed})",
                m.len()
            );
            chooses += 1;
            if before.ev(want.0) == want.1 {
                reused += 1;
            } else {
                explored += 1;
            }
            h.push(want);
            if h.len() > 64 {
                h.remove(0);
            }
        } else if r < 65 {
            // A burst of clean beats for this connection, back to back.
            let cached = last == Some(cur);
            let longest = if rng.below(4) == 0 { 8 } else { 3 };
            let n = 1 + rng.below(longest) as usize;
            let mut beats = Vec::new();
            for _ in 0..n {
                let mask = rng.below(16);
                let mut lanes = [(0u8, 0u16); 4];
                for l in 0..4 {
                    lanes[l] = if l > 0 && rng.below(6) == 0 {
                        lanes[rng.below(l as u64) as usize]
                    } else {
                        path_pair(&mut rng, m, h)
                    };
                }
                for (l, &(i, e)) in lanes.iter().enumerate() {
                    if mask >> l & 1 == 1 {
                        m.on_clean_ack(i, e);
                    }
                }
                let ix = |l: usize| u64::from(lanes[l].0).into();
                let ev = |l: usize| u64::from(lanes[l].1).into();
                beats.push(PathClean {
                    conn: conn.into(),
                    mask: mask.into(),
                    idx0: ix(0),
                    idx1: ix(1),
                    idx2: ix(2),
                    idx3: ix(3),
                    ev0: ev(0),
                    ev1: ev(1),
                    ev2: ev(2),
                    ev3: ev(3),
                });
            }
            let taken = tb.clean_burst(&beats);
            for k in 1..n {
                // After the first beat the connection is cached (the first one may wait for the load).
                if k > 1 || cached {
                    assert_eq!(
                        taken[k] - taken[k - 1],
                        1,
                        "op {op}: clean beat {k} of a burst waited (seed {seed})"
                    );
                    burst_beats += 1;
                }
            }
        } else if r < 75 {
            let ev = path_pair(&mut rng, m, h).1;
            let mut c = path_cmd(conn, OP_RECYCLE_ECE);
            c.ev = u64::from(ev).into();
            tb.cmd(c);
            if let Some(i) = m.index_of(ev) {
                m.recycle(i, ev, RecycleCause::Ece, now);
            }
        } else if r < 90 {
            let (i, ev) = path_pair(&mut rng, m, h);
            let loss = rng.below(2) == 0;
            let mut c = path_cmd(
                conn,
                if loss {
                    OP_RECYCLE_LOSS
                } else {
                    OP_RECYCLE_TRIM
                },
            );
            c.idx = u64::from(i).into();
            c.ev = u64::from(ev).into();
            tb.cmd(c);
            let cause = if loss {
                RecycleCause::Loss
            } else {
                RecycleCause::Trim
            };
            m.recycle(i, ev, cause, now);
        } else if r < 97 {
            let srtt = match rng.below(16) {
                0 => u64::from(u32::MAX) - rng.below(4),
                1 => rng.below(1 << 32),
                2..=4 => 0,
                _ => rng.below(4000),
            };
            let mut c = path_cmd(conn, OP_SET_SRTT);
            c.srtt = srtt.into();
            tb.cmd(c);
            m.set_srtt(srtt);
        } else {
            tb.wait_idle();
            last_conn = last;
        }
        if rng.below(50) == 0 {
            tb.wait_idle();
        }
    }
    tb.wait_idle();
    // Every connection answers from its own state after all the switching.
    for (c, m) in models.iter_mut().enumerate() {
        if let Some(m) = m {
            let want = m.choose(None, now);
            tb.cmd(path_cmd(ids[c], OP_CHOOSE));
            assert_eq!(
                tb.result(),
                want,
                "final CHOOSE conn {} (seed {seed})",
                ids[c]
            );
            chooses += 1;
        }
    }
    println!(
        "path_select: {ops} operations in {} cycles, {chooses} CHOOSE answers compared ({reused} same EV, \
         {explored} new EV), {burst_beats} burst beats at one per cycle",
        tb.cycles
    );
    assert!(chooses > 0);
    if ops >= 2_000 {
        assert!(explored > 0 && reused > 0 && burst_beats > 0);
    }
}

// ---------------------------------------------------------------------------------------------------------
// Transmit gate

/// The transmit gate (`metaroce_cc_gate`) against the model's rules (`transport::metaroce::gate`: MR-REL-4,
/// MR-CC-1, MR-CC-2, MR-REL-43, MR-REL-45) on random connection states, new PSNs and retransmissions, with
/// random idle cycles between requests: every answer comes one cycle after its request, for its connection,
/// allowed exactly when the model allows it, and, when only pacing refuses, with the pacing time as its retry
/// time (0 otherwise: wait for an ACK). The hardware's receive window is 256 PSNs; times are 64-bit ns in the
/// model, 32-bit with wrap-around in the hardware (pacing times within ±2^30 ns of now).
#[test]
fn mr_rel_4_mr_cc_1_2_gate_matches_the_model_rules() {
    use metaroce_hdl::rel::records::{GateReq, GateResp};
    use metaroce_proto::transport::metaroce::gate;
    let seed = seed("gate", 0x6a7e_d1ff);
    let n = iters(3_000);
    let kind = model("metaroce_cc_gate", &cosim_config());
    let pt = |name: &str| port(&kind, name);
    let mut m = kind.instance();
    reset(&mut m, pt("rst"));
    let mut rng = Rng::new(seed);
    let (mut counts, mut w) = ([0usize; 4], Vec::new());
    for i in 0..n {
        // Idle cycles: no request, no answer.
        for _ in 0..rng.below(3) {
            m.set_bit(pt("in_valid"), false);
            m.step();
            assert_eq!(m.get(pt("out_valid")), 0, "an answer without a request");
        }
        let una = rng.next_u32();
        let nxt = una.wrapping_add(rng.below(300) as u32);
        let cwnd = rng.below(1 << 20);
        let inflight = match rng.below(4) {
            0 => 0,
            1 => cwnd,
            _ => rng.below(1 << 20),
        };
        let rtx = rng.below(3) == 0;
        let rto_rtx = rng.below(3) == 0;
        let now = (1u64 << 33) + rng.below(1 << 40);
        let next_send_at = if rng.below(4) == 0 {
            0
        } else {
            now + rng.below(1 << 31) - (1 << 30)
        };
        let win = rtx || nxt.wrapping_sub(una) < 256;
        let allow = if rtx {
            gate::rtx_allowed(rto_rtx, inflight, cwnd, now, next_send_at, 0)
        } else {
            gate::new_allowed(win, inflight, cwnd, now, next_send_at)
        };
        let cw = gate::cwnd_allows(inflight, cwnd) || (rtx && rto_rtx);
        let retry = if win && cw && !gate::paced(now, next_send_at) {
            next_send_at as u32
        } else {
            0
        };
        let conn = i & 0xffff;
        let psn = if rtx {
            una.wrapping_add(rng.below(256) as u32)
        } else {
            nxt
        };
        let req = GateReq {
            conn: Bits::<16>::from(conn),
            psn: Bits::<32>::from(u64::from(psn)),
            charged: Bits::<16>::from(4160u64),
            rtx,
        };
        m.set_words(pt("req"), &rec_w32!(GateReq, req));
        m.set_bit(pt("in_valid"), true);
        m.set(pt("snd_una"), u64::from(una));
        m.set(pt("snd_nxt"), u64::from(nxt));
        m.set(pt("inflight"), inflight);
        m.set(pt("cwnd"), cwnd);
        m.set_bit(pt("rto_rtx"), rto_rtx);
        m.set_bit(pt("pace_armed"), next_send_at != 0);
        m.set(pt("next_tx"), u64::from(next_send_at as u32));
        m.set(pt("ev"), i & 0x3fff);
        m.set(pt("path"), i & 0x3f);
        m.set(pt("now32"), u64::from(now as u32));
        m.step();
        m.set_bit(pt("in_valid"), false);
        m.eval();
        assert_eq!(m.get(pt("out_valid")), 1, "request {i}: no answer");
        m.get_words(pt("resp"), &mut w);
        let ctx = format!("request {i} (seed {seed}): rtx {rtx}, window {win}, inflight {inflight} / cwnd {cwnd}, rto_rtx {rto_rtx}, now {now}, next_send_at {next_send_at}");
        assert_eq!(field::<GateResp>(&w, "allow") == 1, allow, "allow, {ctx}");
        assert_eq!(
            field::<GateResp>(&w, "retry_at") as u32,
            retry,
            "retry_at, {ctx}"
        );
        assert_eq!(field::<GateResp>(&w, "conn"), conn, "conn, {ctx}");
        assert_eq!(field::<GateResp>(&w, "psn") as u32, psn, "psn, {ctx}");
        assert_eq!(field::<GateResp>(&w, "ev"), i & 0x3fff, "ev, {ctx}");
        counts[usize::from(win) * 2 + usize::from(allow)] += 1;
    }
    // Index: 2 * window_ok + allow.
    println!("gate: (window ok, allow) counts {counts:?}");
    assert!(
        counts[1] == 0
            && counts[0] > n as usize / 100
            && counts[2] > n as usize / 20
            && counts[3] > n as usize / 20,
        "{counts:?}"
    );
}

#[test]
fn mr_cc_14_divider_matches_rust_division_and_its_stated_latency() {
    use metaroce_hdl::cc::divider::Divider;
    let seed = seed("divider", 0xd1_71de);
    let n = iters(4_000);
    let kind = model("metaroce_cc_divider", &cosim_config());
    let pt = |name: &str| port(&kind, name);
    let mut m = kind.instance();
    reset(&mut m, pt("rst"));
    let reference = Divider::<64, 64>::new(2);
    let mut rng = Rng::new(seed);
    // An operand of a random bit length, so that every normalisation case occurs.
    let sized = |rng: &mut Rng| {
        let len = rng.below(65);
        if len == 0 {
            0
        } else {
            rng.next_u64() >> (64 - len)
        }
    };
    let mut zero_divisors = 0;
    for i in 0..n {
        let a = sized(&mut rng);
        let b = if i % 97 == 0 {
            0
        } else {
            sized(&mut rng).max(1)
        };
        zero_divisors += usize::from(b == 0);
        m.set(pt("dividend"), a);
        m.set(pt("divisor"), b);
        m.set_bit(pt("start"), true);
        m.step();
        m.set_bit(pt("start"), false);
        m.eval();
        let mut cycles = 1;
        while m.get(pt("done")) == 0 {
            assert_eq!(
                m.get(pt("busy")),
                1,
                "{a} / {b} (seed {seed}): busy low before done"
            );
            m.step();
            m.eval();
            cycles += 1;
            assert!(
                cycles <= reference.max_latency(),
                "{a} / {b} (seed {seed}): no result"
            );
        }
        let want = a.checked_div(b).map_or((u64::MAX, a), |q| (q, a % b));
        assert_eq!(
            (m.get(pt("quotient")), m.get(pt("remainder"))),
            want,
            "{a} / {b} (seed {seed})"
        );
        assert_eq!(
            cycles,
            reference.latency_for(u128::from(a), u128::from(b)),
            "{a} / {b} (seed {seed}): latency"
        );
        // Idle cycles between divisions.
        for _ in 0..rng.below(3) {
            m.step();
        }
    }
    assert!(zero_divisors > 0);
}
