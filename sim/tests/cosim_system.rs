//! Two RTL cores in Verilator joined by the harness's link model, programmed by the host side exactly as the
//! driver and firmware will (endpoint registers, context entries, rings in host memory, doorbells), moving
//! data: byte-exact memory and completions.

use metaroce_hdl::DataWidth;
use metaroce_proto::harness::link::LinkConfig;
use metaroce_proto::wire::{parse_frame, PacketType};
use metaroce_regmap::block::BlockType;
use metaroce_regmap::counters::CounterId;
use metaroce_regmap::descriptor::cqe::{CqeOpcode, CqeRepr, CqeStatus};
use metaroce_regmap::descriptor::sqe::{SqOp, SqeRepr};
use metaroce_regmap::endpoint as ep;
use metaroce_sim::cosim::core::{core_model, cosim_config, BenchTiming, CoreBench};
use metaroce_sim::cosim::demo::{self, DemoConfig, DemoReport};
use metaroce_sim::cosim::host::{self, Cq, Endpoint, Qp};
use metaroce_sim::cosim::pair::NicPair;
use std::net::Ipv4Addr;

const A: Endpoint = Endpoint {
    mac: [0x02, 0, 0, 0, 0, 0x0a],
    ip: Ipv4Addr::new(10, 0, 0, 1),
    conn: 5,
    isn: 1000,
    key: 0x0000_0111,
    buf: 0x10_0000,
    buf_len: 1 << 20,
};
const B: Endpoint = Endpoint {
    mac: [0x02, 0, 0, 0, 0, 0x0b],
    ip: Ipv4Addr::new(10, 0, 0, 2),
    conn: 9,
    isn: 70_000,
    key: 0x0000_0222,
    buf: 0x20_0000,
    buf_len: 1 << 20,
};

fn setup(b: &mut CoreBench, me: &Endpoint, peer: &Endpoint) -> (Qp, Cq) {
    host::connect(b, me, peer).unwrap_or_else(|e| panic!("{e}"))
}

/// Compares memory with the expected bytes, reporting the first difference and the DMA writes seen.
fn check_mem(b: &CoreBench, addr: u64, want: &[u8], what: &str) {
    let got = b.dma.mem.read(addr, want.len());
    if let Some(i) = got.iter().zip(want).position(|(g, w)| g != w) {
        let bad = got.iter().zip(want).filter(|(g, w)| g != w).count();
        panic!(
            "{what}: {bad} of {} bytes differ, the first at {:#x} (got {:#04x}, want {:#04x}); recent DMA writes: {:x?}",
            want.len(),
            addr + i as u64,
            got[i],
            want[i],
            b.dma.write_log
        );
    }
}

fn pattern(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn pair(link: LinkConfig) -> NicPair {
    let cfg = cosim_config();
    let kind = core_model(&cfg, false).unwrap_or_else(|e| panic!("{e}"));
    let a =
        CoreBench::new(&kind, &cfg, BenchTiming::default(), 1).unwrap_or_else(|e| panic!("{e}"));
    let b =
        CoreBench::new(&kind, &cfg, BenchTiming::default(), 2).unwrap_or_else(|e| panic!("{e}"));
    NicPair::new(a, b, link, metaroce_sim::cosim::demo::PERIOD_PS, 7)
}

/// Runs until `cq` on `side` yields a CQE, or fails after `limit` cycles.
fn wait_cqe(p: &mut NicPair, on_a: bool, cq: &mut Cq, limit: u64) -> CqeRepr {
    let start = p.a.m.cycle();
    loop {
        p.run(50).unwrap_or_else(|e| panic!("{e}"));
        let b = if on_a { &mut p.a } else { &mut p.b };
        if let Some(c) = host::poll_cq(b, cq).unwrap_or_else(|e| panic!("{e}")) {
            return c;
        }
        assert!(
            p.a.m.cycle() - start < limit,
            "no completion within {limit} cycles (A sent {} beats, B sent {}, A DMA {:?}, B DMA {:?})",
            p.a.tx.beats,
            p.b.tx.beats,
            p.a.dma.stats,
            p.b.dma.stats
        );
    }
}

#[test]
fn rdma_write_between_two_rtl_cores_on_a_clean_link() {
    let mut p = pair(LinkConfig::multipath(200_000_000_000, 4, 1_000, 200));
    let (mut qa, mut ca) = setup(&mut p.a, &A, &B);
    let (_qb, _cb) = setup(&mut p.b, &B, &A);
    let len = 3 * 4096 + 100;
    let data = pattern(42, len);
    p.a.dma.mem.write(A.buf, &data);
    let wqe = host::post_send(
        &mut p.a,
        &mut qa,
        &SqeRepr {
            wr_id: 0x77,
            op: SqOp::Write,
            local_addr: A.buf,
            length: len as u32,
            lkey: A.key,
            remote_addr: B.buf + 64,
            rkey: host::rkey_of(B.key),
            solicited: false,
        },
    )
    .expect("post");
    let c = wait_cqe(&mut p, true, &mut ca, 200_000);
    assert_eq!(
        (c.wr_id, c.opcode, c.status, c.wqe_index),
        (0x77, CqeOpcode::Write, CqeStatus::Success, wqe)
    );
    assert_eq!(
        p.b.dma.mem.read(B.buf + 64, len),
        data,
        "B's memory holds the data"
    );
    assert_eq!(
        p.b.dma.mem.read(B.buf, 64),
        vec![0; 64],
        "nothing before the target"
    );
    assert_eq!(
        p.b.dma.mem.read(B.buf + 64 + len as u64, 64),
        vec![0; 64],
        "nothing after it"
    );
}

fn post_recv(p: &mut NicPair, q: &mut Qp, wr_id: u64, addr: u64, len: u32, key: u32) -> u16 {
    host::post_recv(
        &mut p.b,
        q,
        &metaroce_regmap::descriptor::rqe::RqeRepr {
            wr_id,
            addr,
            length: len,
            lkey: key,
        },
    )
    .expect("post recv")
}

#[test]
fn send_and_write_imm_between_two_rtl_cores() {
    let mut p = pair(LinkConfig::multipath(200_000_000_000, 4, 1_000, 200));
    let (mut qa, mut ca) = setup(&mut p.a, &A, &B);
    let (mut qb, mut cb) = setup(&mut p.b, &B, &A);
    let start = p.a.m.cycle();
    // SEND into a posted receive buffer.
    let send = pattern(1, 5000);
    p.a.dma.mem.write(A.buf, &send);
    let rq = post_recv(&mut p, &mut qb, 0xB1, B.buf + 0x1_0000, 8192, B.key);
    let sq = host::post_send(
        &mut p.a,
        &mut qa,
        &SqeRepr {
            wr_id: 0xA1,
            op: SqOp::Send,
            local_addr: A.buf,
            length: send.len() as u32,
            lkey: A.key,
            remote_addr: 0,
            rkey: 0,
            solicited: true,
        },
    )
    .expect("post");
    let r = wait_cqe(&mut p, false, &mut cb, 200_000);
    assert_eq!(
        (
            r.wr_id,
            r.opcode,
            r.status,
            r.byte_len,
            r.wqe_index,
            r.solicited
        ),
        (0xB1, CqeOpcode::Recv, CqeStatus::Success, 5000, rq, true)
    );
    check_mem(
        &p.b,
        B.buf + 0x1_0000,
        &send,
        "the SEND's bytes in the receive buffer",
    );
    let s = wait_cqe(&mut p, true, &mut ca, 200_000);
    assert_eq!(
        (s.wr_id, s.opcode, s.status, s.wqe_index),
        (0xA1, CqeOpcode::Send, CqeStatus::Success, sq)
    );
    // WRITE with immediate: the data at the target, a RECV_WRITE_IMM completion with the immediate.
    let wi = pattern(2, 700);
    p.a.dma.mem.write(A.buf + 0x8000, &wi);
    let rq = post_recv(&mut p, &mut qb, 0xB2, B.buf + 0x2_0000, 64, B.key);
    host::post_send(
        &mut p.a,
        &mut qa,
        &SqeRepr {
            wr_id: 0xA2,
            op: SqOp::WriteImm(0xDEAD_BEEF),
            local_addr: A.buf + 0x8000,
            length: wi.len() as u32,
            lkey: A.key,
            remote_addr: B.buf + 0x3_0000,
            rkey: host::rkey_of(B.key),
            solicited: false,
        },
    )
    .expect("post");
    let r = wait_cqe(&mut p, false, &mut cb, 200_000);
    assert_eq!(
        (r.wr_id, r.opcode, r.status, r.imm, r.wqe_index),
        (
            0xB2,
            CqeOpcode::RecvWriteImm,
            CqeStatus::Success,
            Some(0xDEAD_BEEF),
            rq
        )
    );
    check_mem(&p.b, B.buf + 0x3_0000, &wi, "the WRITE_IMM's bytes");
    let s = wait_cqe(&mut p, true, &mut ca, 200_000);
    assert_eq!(
        (s.wr_id, s.opcode, s.status),
        (0xA2, CqeOpcode::Write, CqeStatus::Success)
    );
    println!("two operations in {} cycles", p.a.m.cycle() - start);
}

#[test]
fn read_between_two_rtl_cores() {
    let mut p = pair(LinkConfig::multipath(200_000_000_000, 4, 1_000, 200));
    let (mut qa, mut ca) = setup(&mut p.a, &A, &B);
    let (_qb, _cb) = setup(&mut p.b, &B, &A);
    // B's bytes into A's buffer.
    let rd = pattern(3, 9000);
    p.b.dma.mem.write(B.buf + 0x4_0000, &rd);
    host::post_send(
        &mut p.a,
        &mut qa,
        &SqeRepr {
            wr_id: 0xA3,
            op: SqOp::Read,
            local_addr: A.buf + 0x4_0000,
            length: rd.len() as u32,
            lkey: A.key,
            remote_addr: B.buf + 0x4_0000,
            rkey: host::rkey_of(B.key),
            solicited: false,
        },
    )
    .expect("post");
    let s = wait_cqe(&mut p, true, &mut ca, 300_000);
    assert_eq!(
        (s.wr_id, s.opcode, s.status),
        (0xA3, CqeOpcode::Read, CqeStatus::Success)
    );
    check_mem(&p.a, A.buf + 0x4_0000, &rd, "A's memory holds B's bytes");
}

#[test]
fn mr_rel_58_a_read_whose_response_never_comes_fails_its_connection() {
    let mut p = pair(LinkConfig::multipath(200_000_000_000, 4, 1_000, 200));
    let (mut qa, mut ca) = setup(&mut p.a, &A, &B);
    let (_qb, _cb) = setup(&mut p.b, &B, &A);
    // A's retry limit 2: with the 20 us minimum RTO, the response timer fails the connection 20 + 40 + 80 us
    // after the READ's request was acknowledged, if no DATA comes from B meanwhile.
    let retry = host::block_base(BlockType::Endpoint) + ep::reg::RETRY;
    let w = p.a.read(retry).unwrap_or_else(|e| panic!("{e}"));
    let w = ep::field::RETRY_LIMIT.insert(w, 2).expect("in range");
    p.a.write(retry, w).unwrap_or_else(|e| panic!("{e}"));
    host::post_send(
        &mut p.a,
        &mut qa,
        &SqeRepr {
            wr_id: 0xA4,
            op: SqOp::Read,
            local_addr: A.buf + 0x4_0000,
            length: 6000,
            lkey: A.key,
            remote_addr: B.buf + 0x4_0000,
            rkey: host::rkey_of(B.key),
            solicited: false,
        },
    )
    .expect("post");
    // B acknowledges the request and sends the response, which never arrives: every DATA frame from B is
    // lost (ACKs pass).
    let cfg = metaroce_proto::transport::EndpointConfig::default();
    let (mut lost, mut acks) = (0u64, 0u64);
    let mut ack_seen_at = None;
    let start = p.a.m.cycle();
    while p.a.conn_err.got.is_empty() {
        p.step_filtered(|from_a, f| {
            if from_a {
                return true;
            }
            match parse_frame(f, cfg.udp_port, cfg.dscp_trim, true).map(|x| x.m.mbh.ptype) {
                Ok(PacketType::Data) => {
                    lost += 1;
                    false
                }
                Ok(PacketType::Ack) => {
                    acks += 1;
                    true
                }
                _ => true,
            }
        })
        .unwrap_or_else(|e| panic!("{e}"));
        if acks > 0 {
            ack_seen_at.get_or_insert(p.now_ns());
        }
        assert!(
            p.a.m.cycle() - start < 200_000,
            "no connection failure (B's DATA frames lost: {lost})"
        );
    }
    let acked = ack_seen_at.expect("B acknowledged the READ's request");
    let failed = p.now_ns();
    let e = host::take_qp_error(&mut p.a).expect("one failure");
    assert_eq!(
        e,
        host::QpErrorEvent {
            conn: A.conn,
            status: Some(CqeStatus::RetryExceeded),
            msn: Some(0),
        },
        "the READ's connection, status and MSN"
    );
    assert!(lost >= 2, "B sent the response ({lost} DATA frames)");
    // Never early; late by at most a wheel tick and a few cycles per expiry, plus the ACK's flight.
    let total = 20_000 + 40_000 + 80_000;
    println!(
        "B's DATA frames lost {lost}; the connection failed {} ns after B's ACK (timeouts {total} ns)",
        failed - acked
    );
    assert!(
        failed >= acked + total && failed <= acked + total + 3 * 2_000 + 5_000,
        "failed {} ns after the acknowledgement (timeouts {total} ns)",
        failed - acked
    );
    // The READ completes RetryExceeded (MR-SEM-38); nothing else fails, and the failure is reported once.
    let c = wait_cqe(&mut p, true, &mut ca, 2_000);
    assert_eq!(
        (c.wr_id, c.status, c.opcode),
        (0xA4, CqeStatus::RetryExceeded, CqeOpcode::Read)
    );
    p.run(2_000).unwrap_or_else(|e| panic!("{e}"));
    assert!(p.a.conn_err.got.is_empty() && p.b.conn_err.got.is_empty());
}

/// MR-REL-18, MR-WIRE-35: a 50 Gb/s path behind a 100 Gb/s sender queues, and marks CE on the DATA frames that
/// find more than 16 KiB queued. The receiver counts every CE-marked DATA packet (`ecn_ce_received`, equal to
/// the frames the link marked: nothing is lost) and its ACKs echo the marks, which the sender counts
/// (`ece_received`); the data arrives byte-exact.
#[test]
fn ce_marked_data_is_counted_and_echoed_in_ece_acks() {
    let mut link = LinkConfig::multipath(200_000_000_000, 1, 1_000, 0);
    link.paths[0].rate_bps = 50_000_000_000;
    link.ecn_threshold_bytes = 16 * 1024;
    let mut p = pair(link);
    let (mut qa, mut ca) = setup(&mut p.a, &A, &B);
    let (_qb, _cb) = setup(&mut p.b, &B, &A);
    let len = 256 * 1024;
    let data = pattern(11, len);
    p.a.dma.mem.write(A.buf, &data);
    host::post_send(
        &mut p.a,
        &mut qa,
        &SqeRepr {
            wr_id: 0xEC,
            op: SqOp::Write,
            local_addr: A.buf,
            length: len as u32,
            lkey: A.key,
            remote_addr: B.buf,
            rkey: host::rkey_of(B.key),
            solicited: false,
        },
    )
    .expect("post");
    let c = wait_cqe(&mut p, true, &mut ca, 1_000_000);
    assert_eq!(
        (c.wr_id, c.status),
        (0xEC, CqeStatus::Success),
        "the WRITE completes"
    );
    check_mem(&p.b, B.buf, &data, "B's memory holds the data");
    let stats = *p.ab.stats();
    let cb = demo::read_counters(&mut p.b).unwrap_or_else(|e| panic!("{e}"));
    let ca = demo::read_counters(&mut p.a).unwrap_or_else(|e| panic!("{e}"));
    let ce = cb[CounterId::EcnCeReceived as usize];
    let ece = ca[CounterId::EceReceived as usize];
    println!(
        "link A->B marked {} of {} frames; B counted {ce} CE-marked packets, A {ece} ACKs with ECE",
        stats.ecn_marked, stats.sent
    );
    assert_eq!(stats.dropped(), 0, "the link lost nothing");
    assert!(stats.ecn_marked > 0, "the queue never passed the threshold");
    assert_eq!(
        ce, stats.ecn_marked,
        "B counts every CE-marked packet the link delivered"
    );
    assert!(ece > 0, "B's ACKs echo the marks");
}

/// Runs the demo with `cfg`; a failed run (an error, a corrupt message, a bad completion) is replayed with
/// waveforms of its last 10,000 cycles, and the test fails naming them.
fn run_or_waves(name: &str, cfg: &DemoConfig) -> DemoReport {
    let dir = demo::failure_dir(name, cfg.seed);
    let o = demo::run_with_waves_on_failure(cfg, &mut |_, _, _| {}, &dir, 10_000);
    let waves = match &o.waves {
        Some(Ok(d)) => format!("; waveforms in {}", d.display()),
        Some(Err(e)) => format!("; no waveforms: {e}"),
        None => String::new(),
    };
    match o.result {
        Ok(r) if r.passed() => r,
        Ok(r) => panic!(
            "{} corrupt, {} bad completions ({:?}){waves}",
            r.corrupt, r.bad_completions, r.first_bad
        ),
        Err(e) => panic!("{e}{waves}"),
    }
}

/// The seed of a randomized run (printed; `METAROCE_SEED` replays it).
fn seed() -> u64 {
    let s = std::env::var("METAROCE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    println!("seed {s} (replay with METAROCE_SEED={s})");
    s
}

#[test]
fn writes_recover_from_one_percent_loss_byte_exact() {
    let cfg = DemoConfig {
        messages: 60,
        mix: [1, 0, 0, 0],
        loss_ppm: 10_000,
        seed: seed(),
        max_cycles: 2_000_000,
        ..DemoConfig::default()
    };
    let r = run_or_waves("writes_1pct", &cfg);
    println!(
        "{} messages, {} bytes in {} cycles: {:.1} Gb/s, {} retransmissions, {} frames lost",
        r.messages,
        r.bytes,
        r.cycles,
        r.gbps(),
        r.retransmissions,
        r.link_lost
    );
    assert_eq!(
        (r.messages, r.corrupt, r.bad_completions),
        (60, 0, 0),
        "{:?}",
        r.first_bad
    );
    assert!(
        r.link_lost > 0,
        "the link lost nothing: the test would not exercise recovery"
    );
    assert!(
        r.retransmissions > 0,
        "frames were lost but nothing was retransmitted"
    );
    // Every retransmission was declared lost first, counted by its cause (one that an ACK overtook is
    // declared but not sent again).
    let a = &r.counters[0];
    let declared: u64 = ["rtx_trim", "rtx_time", "rtx_distance", "rtx_rto", "rtx_rnr"]
        .iter()
        .map(|n| counter(a, n))
        .sum();
    assert!(
        declared >= r.retransmissions,
        "{declared} PSNs declared lost by cause, {} retransmitted ({a})",
        r.retransmissions
    );
    // A lost DATA packet makes its successors arrive out of order (and four paths reorder them too).
    let b = &r.counters[1];
    let (ooo, data) = (counter(b, "ooo_arrivals"), counter(b, "rx_data_packets"));
    assert!(
        ooo > 0 && ooo < data,
        "{ooo} out-of-order arrivals of {data} DATA packets"
    );
}

#[test]
fn the_demo_mix_of_writes_write_imm_sends_and_reads_at_one_percent_loss() {
    let cfg = DemoConfig {
        messages: 100,
        loss_ppm: 10_000,
        seed: seed(),
        ..DemoConfig::default()
    };
    let r = run_or_waves("demo_mix_1pct", &cfg);
    assert_eq!(
        (r.messages, r.corrupt, r.bad_completions),
        (100, 0, 0),
        "{:?}",
        r.first_bad
    );
    // Every byte is accepted exactly once at its target (duplicates and retransmissions are not counted).
    assert_eq!(
        r.rx_payload_bytes, r.target_bytes,
        "rx_payload_bytes counters of A and B against the bytes each was the target of"
    );
    assert!(r.target_bytes[0] > 0, "the mix had no READ");
}

/// The datapath at 1024 bits (the other configuration the core is built for): the demo's mix of WRITE,
/// WRITE with immediate, SEND and READ through 1 % loss between two 1024-bit cores, byte-exact, each byte
/// accepted once at its target.
#[test]
fn the_demo_mix_between_two_1024_bit_cores_at_one_percent_loss() {
    let cfg = DemoConfig {
        messages: 40,
        loss_ppm: 10_000,
        seed: seed(),
        width: DataWidth::W1024,
        ..DemoConfig::default()
    };
    let r = run_or_waves("demo_mix_1024", &cfg);
    println!(
        "{} messages, {} bytes in {} cycles: {:.2} bytes/cycle, {} retransmissions, {} frames lost",
        r.messages,
        r.bytes,
        r.cycles,
        r.bytes_per_cycle(),
        r.retransmissions,
        r.link_lost
    );
    assert_eq!(
        (r.messages, r.corrupt, r.bad_completions),
        (40, 0, 0),
        "{:?}",
        r.first_bad
    );
    assert_eq!(
        r.rx_payload_bytes, r.target_bytes,
        "rx_payload_bytes counters of A and B against the bytes each was the target of"
    );
    assert!(r.target_bytes[0] > 0, "the mix had no READ");
}

/// A counter's value in a report's `name=value ...` list (0 when absent: only non-zero counters are listed).
fn counter(list: &str, name: &str) -> u64 {
    list.split_whitespace()
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == name)
        .map_or(0, |(_, v)| v.parse().expect("counter value"))
}

/// MR-REL-48, MR-REL-34: DATA packets trimmed by the link (2 %, both directions, no loss) are answered with
/// NACK TRIMMED and retransmitted, byte-exact; every NACK one core sends is counted by the other as received
/// (`nack_tx_trimmed`, `nack_rx_trimmed`), core A retransmits once per NACK it receives, and no RTO expires.
#[test]
fn trimmed_data_is_nacked_and_retransmitted_byte_exact() {
    let cfg = DemoConfig {
        messages: 80,
        loss_ppm: 0,
        trim_ppm: 20_000,
        seed: seed(),
        ..DemoConfig::default()
    };
    let r = run_or_waves("trim_2pct", &cfg);
    assert_eq!(
        (r.messages, r.corrupt, r.bad_completions),
        (80, 0, 0),
        "{:?}",
        r.first_bad
    );
    assert_eq!(r.rx_payload_bytes, r.target_bytes);
    let [a, b] = &r.counters;
    println!("A: {a}\nB: {b}");
    let (a_tx, a_rx) = (counter(a, "nack_tx_trimmed"), counter(a, "nack_rx_trimmed"));
    let (b_tx, b_rx) = (counter(b, "nack_tx_trimmed"), counter(b, "nack_rx_trimmed"));
    assert!(b_tx > 0, "no DATA packet of A was trimmed");
    assert_eq!(
        (
            counter(a, "trimmed_received"),
            counter(b, "trimmed_received")
        ),
        (a_tx, b_tx),
        "trimmed DATA received against NACK TRIMMED sent"
    );
    assert_eq!(
        (a_rx, b_rx),
        (b_tx, a_tx),
        "NACKs sent against NACKs received"
    );
    assert_eq!(
        r.retransmissions, a_rx,
        "one retransmission per NACK TRIMMED"
    );
    assert_eq!(
        counter(a, "rtx_trim"),
        a_rx,
        "one PSN declared lost by trimming per NACK TRIMMED"
    );
    assert_eq!(
        (counter(a, "timeouts"), counter(b, "timeouts")),
        (0, 0),
        "trimmed packets are recovered without a timeout"
    );
}

/// MR-REL-14, MR-REL-16: at ACK ratio 64 over one path (no reordering, so no ACK is due early) a message of 64
/// packets is more than the initial window (the 100 Gb/s x 8 µs BDP, 25 packets), so the sender stops and waits
/// for an ACK that the ratio alone would never make due: the receiver's ACK-delay timer must send it within
/// 2 µs. Every message arrives byte-exact, no RTO expires (a missing delayed ACK would wait for the 20 µs RTO),
/// and far fewer ACKs than packets are sent.
#[test]
fn ack_ratio_64_the_delay_timer_acknowledges_a_stalled_window() {
    let cfg = DemoConfig {
        messages: 4,
        min_bytes: 256 * 1024,
        max_bytes: 256 * 1024,
        mix: [1, 0, 0, 0],
        loss_ppm: 0,
        paths: 1,
        ack_ratio: 64,
        seed: seed(),
        ..DemoConfig::default()
    };
    let r = run_or_waves("ack_delay", &cfg);
    assert_eq!(
        (r.messages, r.corrupt, r.bad_completions),
        (4, 0, 0),
        "{:?}",
        r.first_bad
    );
    let [a, b] = &r.counters;
    println!("A: {a}\nB: {b}");
    assert_eq!(
        (counter(a, "timeouts"), counter(b, "timeouts")),
        (0, 0),
        "a delayed ACK came later than the RTO"
    );
    let (data, acks) = (counter(b, "rx_data_packets"), counter(b, "tx_acks"));
    assert!(data >= 256, "{data} DATA packets");
    assert!(4 * acks < data, "{acks} ACKs for {data} DATA packets");
}

/// MR-SEM-27 at line rate: SEND-only traffic (64 messages of 1 B..32 KiB over four reordering paths, no loss)
/// is received without a frame discarded (`rx_overflows`) and without a retransmission. The receive queue
/// prefetches each message's RQE and the later packets find it cached; when every SEND packet waited for a DMA
/// read of its RQE, B's receive pipeline fell behind the link and its parser discarded frames, which A then
/// retransmitted.
#[test]
fn send_only_traffic_is_received_without_a_discard_or_a_retransmission() {
    let cfg = DemoConfig {
        messages: 64,
        mix: [0, 0, 1, 0],
        loss_ppm: 0,
        seed: seed(),
        ..DemoConfig::default()
    };
    let r = run_or_waves("send_only", &cfg);
    assert_eq!(
        (r.messages, r.corrupt, r.bad_completions),
        (64, 0, 0),
        "{:?}",
        r.first_bad
    );
    assert_eq!(r.rx_payload_bytes, r.target_bytes);
    println!("A: {}\nB: {}", r.counters[0], r.counters[1]);
    assert_eq!(r.rx_overflows, [0, 0], "frames discarded at receive (A, B)");
    assert_eq!(r.retransmissions, 0, "retransmissions on a lossless link");
}

#[test]
fn a_failed_run_is_replayed_with_waveforms_of_its_last_cycles() {
    // Four messages cannot complete in 3,000 cycles (a message takes about 10,000): a timeout at cycle 3,000.
    let cfg = DemoConfig {
        messages: 4,
        max_cycles: 3_000,
        seed: 5,
        ..DemoConfig::default()
    };
    let dir = demo::failure_dir("forced_timeout", cfg.seed);
    let tail = 1_000;
    let o = demo::run_with_waves_on_failure(&cfg, &mut |_, _, _| {}, &dir, tail);
    let e = o.result.expect_err("the run cannot finish");
    assert!(
        matches!(e.error, metaroce_sim::cosim::core::BenchError::Timeout(_)),
        "{e}"
    );
    let d = o
        .waves
        .expect("a failed run is replayed")
        .unwrap_or_else(|e| panic!("{e}"));
    for f in ["a.vcd", "b.vcd"] {
        let text = std::fs::read_to_string(d.join(f)).expect("waveform");
        assert!(text.contains("$enddefinitions"), "{f}: not a VCD");
        // Two time steps per cycle over about `tail` cycles: the waveform opens at the first 64-cycle step (plus
        // its completion polls) at or after the tail's start and closes at the failure.
        let steps = text.lines().filter(|l| l.starts_with('#')).count() as u64;
        assert!(
            (2 * (tail - 100)..=2 * (tail + 200)).contains(&steps),
            "{f}: {steps} time steps for a tail of {tail} cycles"
        );
    }
}

/// The long randomized tier (`cargo test -p metaroce-sim --release --test cosim_system -- --ignored`):
/// `METAROCE_ITERS` runs (default 6) of 300 messages with a random mix, loss of 0.1 to 3 %, 1 to 8 paths and
/// a random window, every seed printed; each must deliver byte-exact with correct completions and counters.
#[test]
#[ignore = "long randomized tier: run with --ignored"]
fn long_randomized_mixes_through_loss() {
    let base = seed();
    let runs: u64 = std::env::var("METAROCE_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6);
    for i in 0..runs {
        let mut rng = metaroce_proto::harness::rng::Rng::new(base.wrapping_add(i));
        let w = |rng: &mut metaroce_proto::harness::rng::Rng| rng.below(4) as u32;
        let mut mix = [w(&mut rng), w(&mut rng), w(&mut rng), w(&mut rng)];
        if mix.iter().sum::<u32>() == 0 {
            mix[0] = 1;
        }
        let cfg = DemoConfig {
            messages: 300,
            mix,
            loss_ppm: 1_000 + rng.below(29_000) as u32,
            paths: 1 + rng.below(8) as usize,
            window: 1 + rng.below(32) as usize,
            max_bytes: 1 + rng.below(64 * 1024) as u32,
            seed: base.wrapping_add(i),
            max_cycles: 20_000_000,
            ..DemoConfig::default()
        };
        println!(
            "run {i}: {cfg:?} (replay with METAROCE_SEED={} METAROCE_ITERS=1)",
            cfg.seed
        );
        let r = run_or_waves("long", &cfg);
        assert_eq!(r.messages, 300);
        assert_eq!(r.rx_payload_bytes, r.target_bytes, "run {i}: counters");
        println!(
            "  {:.1} Gb/s, {} retransmissions, {} frames lost",
            r.gbps(),
            r.retransmissions,
            r.link_lost
        );
    }
}

/// Runs until `side`'s core reports a QP error, or fails after `limit` cycles.
fn wait_qp_error(p: &mut NicPair, on_a: bool, limit: u64) -> host::QpErrorEvent {
    let start = p.a.m.cycle();
    loop {
        let b = if on_a { &mut p.a } else { &mut p.b };
        if let Some(e) = host::take_qp_error(b) {
            return e;
        }
        assert!(
            p.a.m.cycle() - start < limit,
            "no QP error within {limit} cycles"
        );
        p.run(50).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// MR-SEM-32, MR-SEM-35, MR-SEM-38: a WRITE with a wrong rkey is answered with NACK ACCESS; A's QP enters
/// ERROR at once (one report, with the status and the MSN of the failing WR), the WR completes
/// `RemoteAccess`, the WR queued behind it and a WR posted afterwards complete `Flushed`, B's memory is
/// untouched, and A sends nothing more for the connection (no retransmission, no second report).
#[test]
fn mr_sem_35_38_a_wrong_rkey_fails_the_qp_and_flushes_its_send_queue() {
    let mut p = pair(LinkConfig::multipath(200_000_000_000, 4, 1_000, 200));
    let (mut qa, mut ca) = setup(&mut p.a, &A, &B);
    let (_qb, _cb) = setup(&mut p.b, &B, &A);
    let len = 3 * 4096 + 100;
    p.a.dma.mem.write(A.buf, &pattern(42, len));
    let write = |wr_id: u64, rkey: u32| SqeRepr {
        wr_id,
        op: SqOp::Write,
        local_addr: A.buf,
        length: len as u32,
        lkey: A.key,
        remote_addr: B.buf + 64,
        rkey,
        solicited: false,
    };
    let good = host::rkey_of(B.key);
    let w0 = host::post_send(&mut p.a, &mut qa, &write(0x70, good ^ 0x100)).expect("post");
    let w1 = host::post_send(&mut p.a, &mut qa, &write(0x71, good)).expect("post");
    let e = wait_qp_error(&mut p, true, 100_000);
    assert_eq!(
        e,
        host::QpErrorEvent {
            conn: A.conn,
            status: Some(CqeStatus::RemoteAccess),
            msn: Some(0),
        }
    );
    let c0 = wait_cqe(&mut p, true, &mut ca, 20_000);
    let c1 = wait_cqe(&mut p, true, &mut ca, 20_000);
    assert_eq!(
        (c0.wr_id, c0.status, c0.byte_len, c0.wqe_index, c0.opcode),
        (0x70, CqeStatus::RemoteAccess, 0, w0, CqeOpcode::Write)
    );
    assert_eq!(
        (c1.wr_id, c1.status, c1.wqe_index),
        (0x71, CqeStatus::Flushed, w1)
    );
    let w2 = host::post_send(&mut p.a, &mut qa, &write(0x72, good)).expect("post");
    let c2 = wait_cqe(&mut p, true, &mut ca, 20_000);
    assert_eq!(
        (c2.wr_id, c2.status, c2.wqe_index),
        (0x72, CqeStatus::Flushed, w2)
    );
    // Nothing more leaves A for the connection, across several RTOs.
    let beats = p.a.tx.beats;
    p.run(100_000).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.a.tx.beats, beats, "A sent after its QP entered ERROR");
    assert!(host::take_qp_error(&mut p.a).is_none(), "one report");
    assert!(
        host::take_qp_error(&mut p.b).is_none(),
        "B's QP stays READY"
    );
    assert_eq!(
        p.b.dma.mem.read(B.buf, len + 128),
        vec![0; len + 128],
        "B's memory untouched"
    );
}

/// MR-SEM-34: a READ whose local buffer lies partly outside the lkey's memory region: the response fails the
/// requester's check (NACK ACCESS to the responder), nothing is written at A, and A's QP enters ERROR with the
/// READ completing `LocalProtection`.
#[test]
fn mr_sem_34_a_read_into_a_buffer_outside_its_region_fails_the_qp() {
    let mut p = pair(LinkConfig::multipath(200_000_000_000, 4, 1_000, 200));
    let (mut qa, mut ca) = setup(&mut p.a, &A, &B);
    let (_qb, _cb) = setup(&mut p.b, &B, &A);
    let len = 6000usize;
    p.b.dma.mem.write(B.buf + 0x4_0000, &pattern(7, len));
    let local = A.buf + A.buf_len - 4096;
    let wqe = host::post_send(
        &mut p.a,
        &mut qa,
        &SqeRepr {
            wr_id: 0xA5,
            op: SqOp::Read,
            local_addr: local,
            length: len as u32,
            lkey: A.key,
            remote_addr: B.buf + 0x4_0000,
            rkey: host::rkey_of(B.key),
            solicited: false,
        },
    )
    .expect("post");
    let e = wait_qp_error(&mut p, true, 100_000);
    assert_eq!(
        e,
        host::QpErrorEvent {
            conn: A.conn,
            status: Some(CqeStatus::LocalProtection),
            msn: Some(0),
        }
    );
    let c = wait_cqe(&mut p, true, &mut ca, 20_000);
    assert_eq!(
        (c.wr_id, c.status, c.byte_len, c.wqe_index, c.opcode),
        (0xA5, CqeStatus::LocalProtection, 0, wqe, CqeOpcode::Read)
    );
    assert_eq!(
        p.a.dma.mem.read(local, len),
        vec![0; len],
        "nothing written at A"
    );
    p.run(20_000).unwrap_or_else(|e| panic!("{e}"));
    assert!(host::take_qp_error(&mut p.a).is_none(), "one report");
}
