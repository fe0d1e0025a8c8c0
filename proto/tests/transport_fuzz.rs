//! Robustness: mutated frames (random byte flips, truncation, field rewrites, replays) fed to MetaRoCE and
//! RoCEv2 endpoints never panic, and the endpoints keep working. ICV checking is switched off on the receiver
//! so that mutated transport fields reach the engine. Seeded: `TRANSPORT_FUZZ_SEED=<n>` replays one seed,
//! `TRANSPORT_FUZZ_ITERS=<n>` runs longer.

use metaroce_proto::transport::*;
use metaroce_proto::wire::Ipv4Packet;

mod transport_common;
use transport_common::*;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn endpoints(mode: Mode) -> (Endpoint, Endpoint, Qpn, Qpn, u32, u32) {
    let mk = |mac, ip| {
        let base = match mode {
            Mode::MetaRoce => EndpointConfig::metaroce(mac, ip),
            Mode::RoceV2 => EndpointConfig::rocev2(mac, ip),
        };
        EndpointConfig {
            verify_icv: false,
            cc: CcKind::None,
            ..base
        }
    };
    let (mut a, mut b, qa, qb) = connected(mk(MAC_A, IP_A), mk(MAC_B, IP_B));
    let ka = a.register_mr(0x1000, 1 << 20, Access::LOCAL_WRITE).unwrap();
    let kb = b
        .register_mr(
            0x1000,
            1 << 20,
            Access::LOCAL_WRITE | Access::REMOTE_WRITE | Access::REMOTE_READ,
        )
        .unwrap();
    for i in 0..8 {
        b.post_recv(
            qb,
            RecvWr {
                wr_id: i,
                sge: Sge {
                    addr: 0x1000 + i * 0x1000,
                    len: 0x1000,
                    lkey: kb.lkey,
                },
            },
        )
        .unwrap();
    }
    (a, b, qa, qb, ka.lkey, kb.rkey)
}

fn post_mix(a: &mut Endpoint, qa: Qpn, now: u64, lkey: u32, rkey: u32, id: u64) {
    let ops = [
        SendOp::Write,
        SendOp::WriteImm(7),
        SendOp::Send,
        SendOp::Read,
        SendOp::SendImm(9),
    ];
    let op = ops[(id % 5) as usize];
    let len = [0u32, 1, 600, 5000, 9000][(id % 5) as usize];
    let _ = a.post_send(
        now,
        qa,
        SendWr {
            wr_id: id,
            op,
            local: Sge {
                addr: 0x1000,
                len,
                lkey,
            },
            remote_addr: 0x1000,
            rkey,
            solicited: id.is_multiple_of(2),
        },
    );
}

fn mutate(rng: &mut Rng, f: &[u8]) -> Vec<u8> {
    let mut v = f.to_vec();
    match rng.below(6) {
        0 => {
            let n = rng.below(v.len() as u64 + 1) as usize;
            v.truncate(n);
        }
        1 | 2 => {
            // Flip bytes beyond the IP header, then fix the IPv4 checksum so the packet reaches the engine.
            for _ in 0..1 + rng.below(4) {
                if v.len() > 34 {
                    let i = 34 + rng.below(v.len() as u64 - 34) as usize;
                    v[i] ^= 1 << rng.below(8);
                }
            }
        }
        // Random 32-bit field rewrite in the transport headers.
        3 if v.len() > 50 => {
            let i = 42 + rng.below((v.len() - 46).min(60) as u64) as usize;
            let x = rng.next() as u32;
            v[i..i + 4].copy_from_slice(&x.to_be_bytes());
        }
        4 => {
            for b in v.iter_mut().skip(14) {
                if rng.below(10) == 0 {
                    *b = rng.next() as u8;
                }
            }
        }
        _ => {} // replay unchanged
    }
    if v.len() >= 34 && rng.below(4) != 0 {
        let mut ip = Ipv4Packet::new_unchecked(&mut v[14..34]);
        ip.fill_checksum();
    }
    v
}

fn fuzz(mode: Mode, seed: u64, iters: u64) {
    println!("transport_fuzz {mode:?} seed {seed}");
    let mut rng = Rng(seed | 1);
    let (mut a, mut b, mut qa, mut _qb, mut lkey, mut rkey) = endpoints(mode);
    let mut restarts = 0;
    let mut total = 0u64;
    let mut now = 1_000_000u64;
    let mut captured: Vec<(bool, Vec<u8>)> = Vec::new();
    let mut buf = Vec::new();
    let mut id = 0;
    for it in 0..iters {
        if a.qp_state(qa) == Some(QpState::Error) || b.qp_state(_qb) == Some(QpState::Error) {
            // A mutated frame legitimately failed the QP (e.g. a forged NACK): start over to keep fuzzing.
            restarts += 1;
            (a, b, qa, _qb, lkey, rkey) = endpoints(mode);
            captured.clear();
        }
        if it % 16 == 0 {
            post_mix(&mut a, qa, now, lkey, rkey, id);
            id += 1;
        }
        // Deliver real traffic (mostly) and mutated copies of earlier frames.
        for _ in 0..4 {
            if a.poll_transmit(now, &mut buf) {
                total += 1;
                if captured.len() < 256 {
                    captured.push((true, buf.clone()));
                }
                if rng.below(10) != 0 {
                    b.handle_frame(now, &buf);
                }
            }
            if b.poll_transmit(now, &mut buf) {
                total += 1;
                if captured.len() < 256 {
                    captured.push((false, buf.clone()));
                }
                if rng.below(10) != 0 {
                    a.handle_frame(now, &buf);
                }
            }
        }
        if !captured.is_empty() {
            let (to_b, f) = &captured[rng.below(captured.len() as u64) as usize];
            let m = mutate(&mut rng, f);
            if *to_b {
                b.handle_frame(now, &m);
            } else {
                a.handle_frame(now, &m);
            }
        }
        now += 1 + rng.below(20_000);
        a.handle_timeout(now);
        b.handle_timeout(now);
        let trace = std::env::var("FUZZ_TRACE").is_ok();
        while let Some(e) = a.poll_event() {
            if let (true, Event::QpError { status, .. }) = (trace, e) {
                println!("a error {status:?} at it {it}");
            }
        }
        let trace = std::env::var("FUZZ_TRACE").is_ok();
        while let Some(e) = b.poll_event() {
            if let (true, Event::QpError { status, .. }) = (trace, e) {
                println!("b error {status:?} at it {it}");
            }
        }
    }
    // The fuzzer really exercised the engines (frames were produced and mutated copies delivered).
    assert!(total > iters / 10, "seed {seed}: only {total} frames");
    println!("  restarts {restarts}; a: {:?}", a.stats().drops);
    println!(
        "  b: {:?} rx {} placed {}",
        b.stats().drops,
        b.stats().rx_packets,
        b.stats().rx_payload_bytes
    );
}

#[test]
fn transport_never_panics_on_mutated_frames() {
    let iters: u64 = std::env::var("TRANSPORT_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3_000);
    let seeds: Vec<u64> = match std::env::var("TRANSPORT_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        Some(s) => vec![s],
        None => vec![11, 22, 33],
    };
    for &s in &seeds {
        fuzz(Mode::MetaRoce, s, iters);
        fuzz(Mode::RoceV2, s, iters);
    }
}
