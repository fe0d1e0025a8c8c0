//! MetaRoCE demo: two model endpoints over a lossy multipath link on a virtual clock.
//!
//! ```text
//! cargo run --release -p metaroce-proto --features harness,std --example demo -- [flags]
//!   --loss <percent>      random loss per direction (default 1)
//!   --paths N             parallel fabric paths (default 8)
//!   --messages N          messages (default 2000)
//!   --size BYTES          fixed message size (default: random mix 0 B .. 12 KiB, some up to 256 KiB)
//!   --mix write,send,...  kinds: write, write_imm, send, send_imm, read (default: all)
//!   --mode metaroce|rocev2  run one mode only (default: both, same loss, side by side)
//!   --seed S              seed (default 1)
//!   --rate-gbps G         line rate (default 100)
//!   --rtt-us U            base round-trip time in µs (default 8)
//!   --qps N               QP pairs, each with its own connection and message stream (default 1)
//!   --pcap FILE           write every delivered frame of the (first) run to a pcap file
//! ```
//! All times are virtual: goodput is payload bits per second of simulated time.

use metaroce_proto::harness::link::LinkConfig;
use metaroce_proto::harness::scenario::{run, Outcome, ScenarioConfig};
use metaroce_proto::harness::workload::OpKind;
use metaroce_proto::transport::Mode;

struct Args {
    loss_ppm: u32,
    paths: usize,
    messages: usize,
    size: Option<u32>,
    mix: Vec<OpKind>,
    modes: Vec<Mode>,
    seed: u64,
    rate_gbps: u64,
    rtt_us: u64,
    pcap: Option<String>,
    qps: usize,
}

fn usage(msg: &str) -> ! {
    if msg.is_empty() {
        println!(
            "usage: demo [--loss PERCENT] [--paths N] [--messages N] [--size BYTES] [--mix write,send,read,...] \
             [--mode metaroce|rocev2] [--seed S] [--rate-gbps G] [--rtt-us U] [--qps N] [--pcap FILE]"
        );
        std::process::exit(0);
    }
    eprintln!("error: {msg}");
    eprintln!(
        "usage: demo [--loss PERCENT] [--paths N] [--messages N] [--size BYTES] [--mix write,send,read,...] \
         [--mode metaroce|rocev2] [--seed S] [--rate-gbps G] [--rtt-us U] [--qps N] [--pcap FILE]"
    );
    std::process::exit(2);
}

/// Parses a percentage with up to 4 decimals ("1", "0.5", "20") into parts per million, without floats.
fn parse_percent_ppm(s: &str) -> Option<u32> {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if frac.len() > 4 || (int.is_empty() && frac.is_empty()) {
        return None;
    }
    let i: u32 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let mut f: u32 = if frac.is_empty() {
        0
    } else {
        frac.parse().ok()?
    };
    for _ in frac.len()..4 {
        f *= 10;
    }
    let ppm = i.checked_mul(10_000)?.checked_add(f)?;
    (ppm <= 1_000_000).then_some(ppm)
}

fn parse_args() -> Args {
    let mut a = Args {
        loss_ppm: 10_000,
        paths: 8,
        messages: 2000,
        size: None,
        mix: OpKind::ALL.to_vec(),
        modes: vec![Mode::MetaRoce, Mode::RoceV2],
        seed: 1,
        rate_gbps: 100,
        rtt_us: 8,
        pcap: None,
        qps: 1,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--help" || flag == "-h" {
            usage("");
        }
        let val = it
            .next()
            .unwrap_or_else(|| usage(&format!("{flag} needs a value")));
        let num = |v: &str| -> u64 {
            v.parse()
                .unwrap_or_else(|_| usage(&format!("{flag}: not a number: {v}")))
        };
        match flag.as_str() {
            "--loss" => {
                a.loss_ppm =
                    parse_percent_ppm(&val).unwrap_or_else(|| usage("--loss: 0..100 percent"))
            }
            "--paths" => a.paths = (num(&val) as usize).clamp(1, 256),
            "--messages" => a.messages = num(&val) as usize,
            "--size" => {
                a.size =
                    Some(u32::try_from(num(&val)).unwrap_or_else(|_| usage("--size too large")))
            }
            "--mix" => {
                a.mix = val
                    .split(',')
                    .map(|k| {
                        OpKind::parse(k.trim())
                            .unwrap_or_else(|| usage(&format!("unknown kind {k}")))
                    })
                    .collect();
            }
            "--mode" => {
                a.modes = vec![match val.as_str() {
                    "metaroce" => Mode::MetaRoce,
                    "rocev2" => Mode::RoceV2,
                    _ => usage("--mode metaroce|rocev2"),
                }]
            }
            "--seed" => a.seed = num(&val),
            "--rate-gbps" => a.rate_gbps = num(&val).max(1),
            "--rtt-us" => a.rtt_us = num(&val).max(1),
            "--pcap" => a.pcap = Some(val),
            "--qps" => a.qps = (num(&val) as usize).clamp(1, 1024),
            _ => usage(&format!("unknown flag {flag}")),
        }
    }
    a
}

fn scenario(a: &Args, mode: Mode) -> ScenarioConfig {
    let rate = a.rate_gbps * 1_000_000_000;
    let rtt_ns = a.rtt_us * 1000;
    // One-way delay of the fastest path: half the RTT minus the spread; paths differ by ~5% of the RTT each.
    let spread = rtt_ns / 40;
    let base = (rtt_ns / 2)
        .saturating_sub(spread * (a.paths as u64 - 1) / 2)
        .max(100);
    let mut cfg = ScenarioConfig::new(mode, a.seed, a.paths);
    let mk = |salt: u64| {
        let mut l = LinkConfig::multipath(rate, a.paths, base, spread);
        l.ecmp_salt ^= salt;
        l.loss_ppm = a.loss_ppm;
        l
    };
    cfg.link_ab = mk(0);
    cfg.link_ba = mk(0xABCD);
    cfg.base_rtt_ns = rtt_ns;
    cfg.workload.messages = a.messages;
    cfg.workload.mix = a.mix.clone();
    cfg.workload.fixed_size = a.size;
    cfg.time_limit_ns = 10_000_000_000;
    cfg.capture = a.pcap.is_some();
    cfg.qps = a.qps;
    cfg
}

fn write_pcap(path: &str, out: &Outcome) -> std::io::Result<u64> {
    let f = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut w = metaroce_proto::pcap::PcapWriter::new(f)?;
    for (t, _, frame) in &out.capture {
        w.write_packet(*t, frame)?;
    }
    w.flush()?;
    Ok(w.packets())
}

fn gbps(bps: u64) -> String {
    format!(
        "{}.{:02}",
        bps / 1_000_000_000,
        (bps % 1_000_000_000) / 10_000_000
    )
}

fn us(ns: u64) -> String {
    format!("{}.{:01}", ns / 1000, (ns % 1000) / 100)
}

fn report(a: &Args, mode: Mode, out: &Outcome, wall: std::time::Duration) {
    let name = match mode {
        Mode::MetaRoce => "MetaRoCE",
        Mode::RoceV2 => "RoCEv2",
    };
    let rate = a.rate_gbps * 1_000_000_000;
    let g = out.goodput_bps();
    println!("=== {name} ===");
    println!(
        "  link            : {} Gb/s, {} path(s), base RTT {} us, loss {}.{:02}% per direction",
        a.rate_gbps,
        a.paths,
        a.rtt_us,
        a.loss_ppm / 10_000,
        (a.loss_ppm % 10_000) / 100
    );
    println!(
        "  workload        : {} messages, {} payload bytes (first QP: {})",
        out.messages, out.payload_bytes, out.mix
    );
    let (gab, gba) = out.goodput_bps_per_direction();
    let pct = |x: u64| format!("{}.{}%", x * 100 / rate, (x * 1000 / rate) % 10);
    println!(
        "  goodput         : {} Gb/s of virtual time in {} us: a->b {} Gb/s = {} of line rate (WRITE/SEND), \
         b->a {} Gb/s = {} (READ responses)",
        gbps(g),
        us(out.end_ns - out.start_ns),
        gbps(gab),
        pct(gab),
        gbps(gba),
        pct(gba)
    );
    println!(
        "  completion time : p50 {} us, p99 {} us, max {} us",
        us(out.latency_percentile(50)),
        us(out.latency_percentile(99)),
        us(out.latency_percentile(100))
    );
    let (sa, sb) = &out.stats;
    println!("  transport a     : {}", stats_line(sa));
    println!("  transport b     : {}", stats_line(sb));
    let (la, lb) = &out.links;
    println!(
        "  link a->b       : sent {} frames, dropped {} (random {}, down {}, queue {}), trimmed {}, ECN marks {}",
        la.sent,
        la.dropped(),
        la.dropped_random,
        la.dropped_down,
        la.dropped_queue,
        la.trimmed,
        la.ecn_marked
    );
    println!(
        "  link b->a       : sent {} frames, dropped {} (random {}, down {}, queue {}), trimmed {}, ECN marks {}",
        lb.sent,
        lb.dropped(),
        lb.dropped_random,
        lb.dropped_down,
        lb.dropped_queue,
        lb.trimmed,
        lb.ecn_marked
    );
    println!("  frames per path : {:?}", out.path_counts_ab);
    match &out.verdict {
        Ok((ca, cb)) => println!(
            "  data check      : OK, byte-exact ({} + {} bytes compared, {} completions, exactly once, in order)",
            ca.bytes_checked,
            cb.bytes_checked,
            ca.send_completions + cb.send_completions + ca.recv_completions + cb.recv_completions
        ),
        Err(e) => println!("  data check      : FAILED: {e}"),
    }
    println!(
        "  seed            : {} (trace {:016x}); simulated in {:.2?}",
        out.seed, out.trace_hash, wall
    );
}

fn stats_line(s: &metaroce_proto::transport::Stats) -> String {
    let r = &s.retransmits;
    let d = &s.drops;
    let rtx = r.total();
    let drops = d.total();
    format!(
        "tx {} data pkts, {} acks; retransmissions {} (trim {}, time {}, distance {}, rto {}, rnr {}, no-context {}, go-back-N {}); \
         timeouts {}; rx drops {} (bad ICV {}, malformed {}, duplicate {}, out-of-window {}, other {}); \
         ECN CE rx {}, ECE rx {}, CNPs {}; trimmed rx {}; path recycles {}",
        s.tx_data_packets,
        s.tx_acks,
        rtx,
        r.trim,
        r.time,
        r.distance,
        r.rto,
        r.rnr,
        r.no_context,
        r.go_back_n,
        s.timeouts,
        drops,
        d.bad_icv,
        d.malformed,
        d.duplicate,
        d.out_of_window,
        drops - d.bad_icv - d.malformed - d.duplicate - d.out_of_window,
        s.ecn_ce_received,
        s.ece_received,
        s.cnps_sent,
        s.trimmed_received,
        s.path_recycles
    )
}

fn main() {
    let a = parse_args();
    let mut results = Vec::new();
    for &mode in &a.modes {
        let cfg = scenario(&a, mode);
        let t0 = std::time::Instant::now();
        let out = run(&cfg);
        let wall = t0.elapsed();
        report(&a, mode, &out, wall);
        if let Some(path) = a.pcap.as_deref().filter(|_| results.is_empty()) {
            match write_pcap(path, &out) {
                Ok(n) => println!("  capture         : {n} frames written to {path}"),
                Err(e) => println!("  capture         : writing {path} failed: {e}"),
            }
        }
        results.push((mode, out));
    }
    if results.len() == 2 {
        let g0 = results[0].1.goodput_bps();
        let g1 = results[1].1.goodput_bps().max(1);
        println!(
            "=== MetaRoCE vs RoCEv2 at the same loss: goodput {} vs {} Gb/s ({}.{}x), p99 {} vs {} us ===",
            gbps(g0),
            gbps(results[1].1.goodput_bps()),
            g0 / g1,
            (g0 * 10 / g1) % 10,
            us(results[0].1.latency_percentile(99)),
            us(results[1].1.latency_percentile(99))
        );
    }
    if results.iter().any(|(_, o)| o.verdict.is_err()) {
        std::process::exit(1);
    }
}
