//! Round trips of every typed layout (parse(emit(x)) == x, emit into poisoned buffers), decoders fed
//! arbitrary bytes never panic, and `Field::get` / `Field::set` equal a bit-at-a-time reference for fields at
//! every position and width (the word-at-a-time paths and the byte path) and buffers ending inside a word. Seeded: the seed is printed and `PROPTEST_RNG_SEED` replays it.

use metaroce_regmap::caps::CapsRepr;
use metaroce_regmap::command::*;
use metaroce_regmap::context::conn::{ConnFlags, ConnHot, ConnState};
use metaroce_regmap::context::mr::{MrAccess, MrContext};
use metaroce_regmap::context::qp::{QpContext, QpRemote};
use metaroce_regmap::descriptor::cqe::{CqeOpcode, CqeRepr, CqeStatus};
use metaroce_regmap::descriptor::rqe::RqeRepr;
use metaroce_regmap::descriptor::sqe::{SqOp, SqeRepr};
use metaroce_regmap::field::{Error, Field};
use metaroce_regmap::mailbox::{from_words, to_words, MailboxStatus};
use metaroce_regmap::queues::{Doorbell, QueuesRepr, Ring};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use std::net::IpAddr;

fn config() -> Config {
    let mut c = Config {
        failure_persistence: None,
        ..Config::default()
    };
    let seed = match c.rng_seed {
        RngSeed::Fixed(s) => s,
        RngSeed::Random => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0),
    };
    c.rng_seed = RngSeed::Fixed(seed);
    eprintln!(
        "regmap roundtrip: seed {seed} (replay: PROPTEST_RNG_SEED={seed}), {} cases",
        c.cases
    );
    c
}

fn bit(buf: &[u8], i: u32) -> u64 {
    u64::from(buf[(i / 8) as usize] >> (i % 8) & 1)
}

fn reference_get(f: &Field, buf: &[u8]) -> u64 {
    (0..u32::from(f.width)).fold(0, |acc, k| acc | bit(buf, f.lsb() + k) << k)
}

fn reference_set(f: &Field, buf: &mut [u8], v: u64) {
    for k in 0..u32::from(f.width) {
        let i = f.lsb() + k;
        let b = &mut buf[(i / 8) as usize];
        *b = (*b & !(1 << (i % 8))) | (((v >> k) & 1) as u8) << (i % 8);
    }
}

fn arb_field_case() -> impl Strategy<Value = (u32, u8, u8, Vec<u8>, u64)> {
    (0u32..24, 0u8..8, 1u8..=64, any::<u64>()).prop_flat_map(|(byte, bit, width, v)| {
        let end = (byte * 8 + u32::from(bit) + u32::from(width)).div_ceil(8) as usize;
        (
            Just(byte),
            Just(bit),
            Just(width),
            proptest::collection::vec(any::<u8>(), end..end + 9),
            Just(v),
        )
    })
}

const POISON: u8 = 0xA5;

fn arb_sqe() -> impl Strategy<Value = SqeRepr> {
    (
        0u8..5,
        any::<u32>(),
        any::<u64>(),
        any::<u64>(),
        any::<u32>(),
        any::<u32>(),
        any::<u64>(),
        any::<u32>(),
        any::<bool>(),
    )
        .prop_map(|(o, imm, wr_id, la, len, lkey, ra, rkey, sol)| {
            let op = [
                SqOp::Write,
                SqOp::WriteImm(imm),
                SqOp::Send,
                SqOp::SendImm(imm),
                SqOp::Read,
            ][o as usize];
            let send = matches!(op, SqOp::Send | SqOp::SendImm(_));
            SqeRepr {
                wr_id,
                op,
                local_addr: la,
                length: len,
                lkey,
                remote_addr: if send { 0 } else { ra },
                rkey: if send { 0 } else { rkey },
                solicited: sol && matches!(op, SqOp::Send | SqOp::SendImm(_) | SqOp::WriteImm(_)),
            }
        })
}

fn arb_cqe() -> impl Strategy<Value = CqeRepr> {
    (
        any::<u64>(),
        any::<u32>(),
        proptest::option::of(any::<u32>()),
        1u32..(1 << 24),
        0usize..5,
        0usize..9,
        any::<bool>(),
        any::<u16>(),
        any::<bool>(),
    )
        .prop_map(|(wr_id, byte_len, imm, qpn, o, s, sol, wqe_index, phase)| {
            let opcode = CqeOpcode::ALL[o];
            CqeRepr {
                wr_id,
                byte_len,
                imm: imm.filter(|_| opcode.is_receive()),
                qpn,
                opcode,
                status: CqeStatus::ALL[s],
                solicited: sol && opcode.is_receive(),
                wqe_index,
                phase,
            }
        })
}

fn arb_conn() -> impl Strategy<Value = ConnHot> {
    let small = (
        0u8..3,
        any::<u8>(),
        8u8..=16,
        8u8..=16,
        0u8..64,
        0u8..32,
        0u8..8,
        0u8..8,
        0u8..128,
        0u16..(1 << 14),
    );
    let words = proptest::array::uniform9(any::<u32>());
    let w24 = proptest::array::uniform5(0u32..(1 << 24));
    let w16 = proptest::array::uniform3(any::<u16>());
    (small, words, w24, w16).prop_map(|(s, w, t, h)| {
        let state = [ConnState::Closed, ConnState::Open, ConnState::Closing][s.0 as usize];
        ConnHot {
            cid: if state != ConnState::Closed && t[0] == 0 {
                1
            } else {
                t[0]
            },
            peer_cid: t[1],
            state,
            flags: ConnFlags(s.1),
            own_wlog: s.2,
            peer_wlog: s.3,
            ev_rr: s.4,
            backoff: s.5,
            retries: s.6,
            rnr_retries: s.7,
            ack_count: s.8,
            snd_una: w[0],
            snd_nxt: w[1],
            rcv_nxt: w[2],
            snd_msn: w[3],
            rcv_msn: w[4],
            snd_ssn: h[0],
            rcv_ssn: h[1],
            ack_psn: w[5],
            ack_ts: w[6],
            ack_ev: s.9,
            ce_count: h[2],
            srtt: t[2],
            rttvar: t[3],
            cwnd: w[7],
            inflight: w[8],
            next_tx: t[4],
        }
    })
}

fn arb_mr() -> impl Strategy<Value = MrContext> {
    (
        any::<bool>(),
        any::<u64>(),
        1u64..(1 << 40),
        any::<u32>(),
        any::<u32>(),
        0u8..16,
    )
        .prop_map(|(valid, addr, length, lkey, rkey, a)| {
            let access = if a & 2 != 0 {
                MrAccess(a | 1)
            } else {
                MrAccess(a)
            };
            if valid {
                MrContext {
                    valid,
                    addr: addr >> 1,
                    length,
                    lkey,
                    rkey,
                    access,
                }
            } else {
                MrContext {
                    valid,
                    addr: 0,
                    length: 0,
                    lkey,
                    rkey,
                    access: MrAccess(0),
                }
            }
        })
}

fn arb_qp() -> impl Strategy<Value = QpContext> {
    let ring = (1u64..(1 << 40), 1u8..=15, any::<u16>(), any::<u16>())
        .prop_map(|(a, log, ci, n)| (a * 4096, log, ci.wrapping_add(n % ((1u16 << log) + 1)), ci));
    let remote = (
        1u32..(1 << 24),
        any::<[u8; 6]>(),
        any::<bool>(),
        any::<[u8; 16]>(),
    )
        .prop_map(|(qpn, mac, v4, ip)| {
            let ip = if v4 {
                IpAddr::from([ip[0], ip[1], ip[2], ip[3]])
            } else {
                IpAddr::from(ip)
            };
            QpRemote { qpn, mac, ip }
        });
    (
        0usize..4,
        ring.clone(),
        ring,
        0u32..(1 << 24),
        0u32..(1 << 24),
        0u32..(1 << 24),
        remote,
    )
        .prop_map(|(s, sq, rq, scq, rcq, cid, remote)| {
            let state = QpState::ALL[s];
            if state == QpState::Reset {
                return QpContext::reset();
            }
            QpContext {
                state,
                sq_base: sq.0,
                sq_log: sq.1,
                sq_pi: sq.2,
                sq_ci: sq.3,
                rq_base: rq.0,
                rq_log: rq.1,
                rq_pi: rq.2,
                rq_ci: rq.3,
                rq_keep: false,
                send_cqn: scq,
                recv_cqn: rcq,
                cid: if state == QpState::Init { 0 } else { cid },
                remote: (state != QpState::Init).then_some(remote),
            }
        })
}

fn limits() -> metaroce_regmap::caps::Limits {
    CapsRepr::REFERENCE.limits()
}

fn arb_command() -> impl Strategy<Value = Command> {
    let l = limits();
    let ring = (1u64..(1 << 40)).prop_map(|a| a * 4096);
    let cqn = 0..l.max_cqs;
    let qpn = 1..l.max_qps;
    let lkey = 0..(l.max_mrs << 8);
    let access = (0u8..16).prop_map(|a| {
        if a & 2 != 0 {
            MrAccess(a | 1)
        } else {
            MrAccess(a)
        }
    });
    let moderation =
        (any::<u16>(), any::<u16>()).prop_map(|(usec, count)| Moderation { usec, count });
    let remote = (
        1u32..(1 << 24),
        any::<[u8; 6]>(),
        any::<bool>(),
        any::<[u8; 16]>(),
    )
        .prop_map(|(q, mac, v4, ip)| {
            let ip = if v4 {
                IpAddr::from([ip[0], ip[1], ip[2], ip[3]])
            } else {
                IpAddr::from(ip)
            };
            Remote { qpn: q, mac, ip }
        });
    prop_oneof![
        Just(Command::QueryDevice),
        (ring.clone(), 1u8..=15, 0u16..64, moderation.clone()).prop_map(|(r, log, v, m)| {
            Command::CreateCq(CreateCq {
                ring_addr: r,
                log_size: log,
                msix_vector: v,
                moderation: m,
            })
        }),
        (cqn.clone(), moderation)
            .prop_map(|(cqn, moderation)| Command::ModifyCq { cqn, moderation }),
        cqn.clone().prop_map(|cqn| Command::DestroyCq { cqn }),
        (ring.clone(), ring, cqn.clone(), cqn, 1u8..=15, 1u8..=15).prop_map(
            |(s, r, sc, rc, sl, rl)| {
                Command::CreateQp(CreateQp {
                    sq_addr: s,
                    rq_addr: r,
                    send_cqn: sc,
                    recv_cqn: rc,
                    sq_log: sl,
                    rq_log: rl,
                })
            }
        ),
        (qpn.clone(), 0usize..4, remote).prop_map(|(qpn, s, r)| {
            let state = QpState::ALL[s];
            Command::ModifyQp(ModifyQp {
                qpn,
                state,
                remote: (state == QpState::Ready).then_some(r),
            })
        }),
        qpn.clone().prop_map(|qpn| Command::DestroyQp { qpn }),
        qpn.clone().prop_map(|qpn| Command::QueryQp { qpn }),
        (any::<u32>(), 1u64..(1 << 48), access.clone()).prop_map(|(a, length, access)| {
            Command::CreateMr(CreateMr {
                addr: a as u64,
                length,
                access,
            })
        }),
        (lkey.clone(), access).prop_map(|(lkey, access)| Command::ModifyMr { lkey, access }),
        lkey.prop_map(|lkey| Command::DestroyMr { lkey }),
        (1u8..=7)
            .prop_flat_map(move |count| (0..=(l.counters - count as u16), Just(count)))
            .prop_map(|(first, count)| Command::ReadCounters { first, count }),
        Just(Command::ReadEvents),
        Just(Command::QueryCc),
        (any::<u8>(), 1usize..=MAX_MODULE_BYTES)
            .prop_flat_map(|(page, length)| (Just(page), 0..=256 - length, Just(length)))
            .prop_map(|(page, offset, length)| Command::ReadModule {
                page,
                offset: offset as u8,
                length: length as u8,
            }),
        (any::<[u32; 5]>(), any::<u16>(), 1u8..=64, 0u8..=7, 16u16..).prop_map(
            |(w, ack_delay_ns, ack_ratio, retry_limit, reorder_distance)| {
                let (lo, hi) = (w[2].min(w[4]).max(1), w[2].max(w[4]).max(1));
                Command::SetCc(CcParams {
                    line_rate_mbps: w[0].max(1),
                    base_rtt_ns: w[1].max(1),
                    rto_min_ns: lo,
                    rto_init_ns: w[3].max(1),
                    rto_max_ns: hi,
                    ack_delay_ns,
                    ack_ratio,
                    retry_limit,
                    reorder_distance,
                })
            }
        ),
    ]
}

fn arb_response() -> impl Strategy<Value = (Opcode, Response)> {
    (
        0usize..Opcode::ALL.len(),
        any::<u16>(),
        0usize..Status::ALL.len(),
        0u16..64,
        any::<[u32; 13]>(),
        1u8..=7,
        any::<[u64; 7]>(),
    )
        .prop_map(|(o, tag, s, off, w, count, vals)| {
            let op = Opcode::ALL[o];
            let status = Status::ALL[s];
            if status != Status::Ok {
                return (
                    op,
                    Response {
                        tag,
                        status,
                        bad_offset: Some(off),
                        data: ResponseData::None,
                    },
                );
            }
            let mut values = [0u64; 7];
            values[..count as usize].copy_from_slice(&vals[..count as usize]);
            let data = match op {
                Opcode::QueryDevice => ResponseData::Device(DeviceInfo {
                    fw_version: w[0],
                    free_qps: w[1],
                    free_cqs: w[2],
                    free_mrs: w[3],
                    free_conns: w[4],
                    exceptions: w[5],
                    bound: w[6],
                    announced: w[7],
                    refused: w[8],
                    exc_lost: w[9] as u16,
                    port: w[10] as u8,
                    qp_errors: w[11],
                    replayed: w[12],
                }),
                Opcode::CreateCq => ResponseData::Cq(w[0]),
                Opcode::CreateQp => ResponseData::Qp(w[0]),
                Opcode::CreateMr => ResponseData::Mr {
                    lkey: w[0],
                    rkey: w[1],
                },
                Opcode::ReadCounters => ResponseData::Counters { count, values },
                Opcode::QueryQp => {
                    let m = w[3].to_le_bytes();
                    let remote = (w[1] & 1 == 1).then(|| Remote {
                        qpn: w[2],
                        mac: [m[0], m[1], m[2], m[3], m[0] ^ 0x5A, m[1]],
                        ip: if w[1] & 2 == 0 {
                            IpAddr::from(w[4].to_be_bytes())
                        } else {
                            IpAddr::from(std::net::Ipv6Addr::from(
                                (u128::from(w[4]) << 96)
                                    | (u128::from(w[5]) << 64)
                                    | (u128::from(w[6]) << 32)
                                    | u128::from(w[7]),
                            ))
                        },
                    });
                    ResponseData::QpInfo(QpInfo {
                        qpn: w[0],
                        state: QpState::ALL[(w[1] >> 2) as usize % 4],
                        remote,
                        cid: w[8],
                        peer_cid: w[9],
                        isn: w[10],
                        peer_isn: w[11],
                    })
                }
                Opcode::QueryCc => ResponseData::Cc(CcInfo {
                    params: CcParams {
                        line_rate_mbps: w[0],
                        base_rtt_ns: w[1],
                        rto_min_ns: w[2],
                        rto_init_ns: w[3],
                        rto_max_ns: w[4],
                        ack_delay_ns: w[5] as u16,
                        ack_ratio: w[6] as u8,
                        retry_limit: w[7] as u8,
                        reorder_distance: w[8] as u16,
                    },
                    target_qdelay_ns: w[9],
                    min_rtt_window_ns: w[10],
                }),
                Opcode::ReadEvents => {
                    // 0..=4 events of either type from the random words.
                    let n = (count as usize - 1).min(MAX_EVENTS_PER_READ);
                    let mut events = [None; MAX_EVENTS_PER_READ];
                    for (k, e) in events.iter_mut().enumerate().take(n) {
                        let x = w[k];
                        *e = Some(Event {
                            kind: EventType::ALL[x as usize % EventType::ALL.len()],
                            status: (x >> 8) as u8,
                            has_msn: x & 1 << 16 != 0,
                            qpn: w[4 + k],
                            msn: w[8 + k],
                        });
                    }
                    ResponseData::Events(Events {
                        count: n as u8,
                        events,
                        pending: w[0] as u16,
                        lost: w[1],
                    })
                }
                Opcode::ReadModule => {
                    // 1..=48 bytes from the random values.
                    let n = w[12] as usize % MAX_MODULE_BYTES + 1;
                    let mut data = [0u8; MAX_MODULE_BYTES];
                    for (k, d) in data.iter_mut().enumerate().take(n) {
                        *d = (vals[k / 8] >> (8 * (k % 8))) as u8;
                    }
                    ResponseData::Module {
                        count: n as u8,
                        data,
                    }
                }
                _ => ResponseData::None,
            };
            (
                op,
                Response {
                    tag,
                    status,
                    bad_offset: None,
                    data,
                },
            )
        })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn get_and_set_match_the_bitwise_reference((byte, bit, width, buf, v) in arb_field_case()) {
        let f = Field::new("f", byte, bit, width, "");
        prop_assert_eq!(f.get(&buf).unwrap(), reference_get(&f, &buf));
        let v = v & f.max();
        let mut got = buf.clone();
        let mut want = buf.clone();
        f.set(&mut got, v).unwrap();
        reference_set(&f, &mut want, v);
        prop_assert_eq!(&got, &want);
        prop_assert!(f.set(&mut got, v).is_ok());
        if width < 64 {
            prop_assert!(f.set(&mut got, f.max() + 1).is_err());
        }
        let short = &buf[..(f.end() as usize - 1) / 8];
        prop_assert!(f.get(short).is_err());
    }

    #[test]
    fn sqe_roundtrip(x in arb_sqe()) {
        let mut b = [POISON; 80];
        x.emit(&mut b).unwrap();
        prop_assert_eq!(SqeRepr::parse(&b).unwrap(), x);
        prop_assert!(b[64..].iter().all(|v| *v == POISON));
    }

    #[test]
    fn rqe_roundtrip(wr_id: u64, addr: u64, length: u32, lkey: u32) {
        let x = RqeRepr { wr_id, addr, length, lkey };
        let mut b = [POISON; 32];
        x.emit(&mut b).unwrap();
        prop_assert_eq!(RqeRepr::parse(&b).unwrap(), x);
    }

    #[test]
    fn cqe_roundtrip(x in arb_cqe()) {
        let mut b = [POISON; 32];
        x.emit(&mut b).unwrap();
        prop_assert_eq!(CqeRepr::parse(&b).unwrap(), x);
        prop_assert_eq!(CqeRepr::phase_of(&b).unwrap(), x.phase);
    }

    #[test]
    fn mr_conn_28_hot_state_roundtrip(x in arb_conn()) {
        let mut b = [POISON; 64];
        x.emit(&mut b).unwrap();
        prop_assert_eq!(ConnHot::parse(&b).unwrap(), x);
    }

    #[test]
    fn mr_sem_3_mr_context_roundtrip(x in arb_mr()) {
        let mut b = [POISON; 32];
        x.emit(&mut b).unwrap();
        prop_assert_eq!(MrContext::parse(&b).unwrap(), x);
    }

    #[test]
    fn mr_conn_39_qp_context_roundtrip(x in arb_qp()) {
        let mut b = [POISON; 64];
        x.emit(&mut b).unwrap();
        prop_assert_eq!(QpContext::parse(&b).unwrap(), x);
    }

    #[test]
    fn request_roundtrip(cmd in arb_command(), tag: u16) {
        let req = Request { tag, command: cmd };
        let mut b = [POISON; CMD_BYTES];
        req.emit(&mut b).unwrap();
        prop_assert_eq!(Request::parse(&b, &limits()), Ok(req));
        // Through the mailbox's word buffer too.
        prop_assert_eq!(from_words(&to_words(&b)), b);
    }

    #[test]
    fn response_roundtrip((op, r) in arb_response()) {
        let mut b = [POISON; CMD_BYTES];
        r.emit(op, &mut b).unwrap();
        let count = match r.data { ResponseData::Counters { count, .. } => count, _ => 1 };
        prop_assert_eq!(Response::parse(&b, op, count).unwrap(), r);
    }

    #[test]
    fn doorbell_roundtrip(kind in 0u8..4, n in 1u32..16384, idx: u16, sol: bool) {
        let q = QueuesRepr::REFERENCE;
        let db = match kind {
            0 => Doorbell::Sq { qpn: n, pi: idx },
            1 => Doorbell::Rq { qpn: n, pi: idx },
            2 => Doorbell::CqCi { cqn: n, ci: idx },
            _ => Doorbell::CqArm { cqn: n, ci: idx, solicited: sol },
        };
        let (off, v) = q.encode(db).unwrap();
        prop_assert_eq!(q.decode(off, v), Ok(Some(db)));
    }

    #[test]
    fn mailbox_status_roundtrip(busy: bool, done: bool, status: u8, tag: u16) {
        let s = MailboxStatus { busy, done, status, tag };
        prop_assert_eq!(MailboxStatus::from_word(s.to_word()), Ok(s));
    }

    #[test]
    fn field_get_set_roundtrip(byte in 0u32..8, bit in 0u8..8, width in 1u8..=64, v: u64, fill: u8) {
        let f = Field::new("f", byte, bit, width, "");
        let mut b = [fill; 24];
        let before = b;
        let v = v & f.max();
        f.set(&mut b, v).unwrap();
        prop_assert_eq!(f.get(&b).unwrap(), v);
        // Bits outside the field are untouched.
        for n in 0..(24 * 8) {
            if n < f.lsb() || n >= f.end() {
                let (i, m) = ((n / 8) as usize, 1u8 << (n % 8));
                prop_assert_eq!(b[i] & m, before[i] & m);
            }
        }
    }

    /// Decoders never panic on arbitrary bytes, whatever the length.
    #[test]
    fn decoders_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..80), op in 0usize..11) {
        let _ = SqeRepr::parse(&bytes);
        let _ = RqeRepr::parse(&bytes);
        let _ = CqeRepr::parse(&bytes);
        let _ = ConnHot::parse(&bytes);
        let _ = MrContext::parse(&bytes);
        let _ = QpContext::parse(&bytes);
        let mut b = [0u8; CMD_BYTES];
        for (d, s) in b.iter_mut().zip(bytes.iter()) { *d = *s; }
        let _ = Request::parse(&b, &limits());
        let _ = Response::parse(&b, Opcode::ALL[op], (bytes.len() % 9) as u8);
        let q = QueuesRepr::REFERENCE;
        let w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let _ = q.decode(w & 0x7FFFF, w);
        let _ = MailboxStatus::from_word(w);
        if let Ok(r) = Ring::new(b[4] % 17) { let _ = r.occupancy(w as u16, (w >> 16) as u16); }
    }
}

#[test]
fn truncated_buffers_are_errors() {
    assert_eq!(
        SqeRepr::parse(&[0; 63]),
        Err(Error::Truncated { need: 64, got: 63 })
    );
    assert!(matches!(
        CqeRepr::parse(&[0; 31]),
        Err(Error::Truncated { .. })
    ));
    assert!(matches!(ConnHot::parse(&[]), Err(Error::Truncated { .. })));
    let x = RqeRepr {
        wr_id: 1,
        addr: 2,
        length: 3,
        lkey: 4,
    };
    assert!(matches!(x.emit(&mut [0; 31]), Err(Error::Truncated { .. })));
}

#[test]
fn bad_values_are_rejected() {
    // SQE: unknown opcode, reserved byte, remote fields on SEND, immediate on WRITE.
    let sqe = SqeRepr {
        wr_id: 9,
        op: SqOp::Write,
        local_addr: 0x1000,
        length: 64,
        lkey: 0x100,
        remote_addr: 0x2000,
        rkey: 0x200,
        solicited: false,
    };
    let mut b = [0u8; 64];
    sqe.emit(&mut b).unwrap();
    let mut t = b;
    t[0] = 6;
    assert_eq!(SqeRepr::parse(&t), Err(Error::Invalid { field: "opcode" }));
    let mut t = b;
    t[50] = 1;
    assert_eq!(
        SqeRepr::parse(&t),
        Err(Error::Reserved {
            layout: "sqe",
            byte: 50
        })
    );
    let mut t = b;
    t[0] = 3;
    assert_eq!(
        SqeRepr::parse(&t),
        Err(Error::Invalid {
            field: "remote_addr"
        })
    );
    let mut t = b;
    t[4] = 1;
    assert_eq!(SqeRepr::parse(&t), Err(Error::Invalid { field: "imm" }));
    assert!(SqeRepr {
        solicited: true,
        ..sqe
    }
    .emit(&mut b)
    .is_err());

    // CQE: unknown status, QPN 0, immediate data on a send completion.
    let cqe = CqeRepr {
        wr_id: 1,
        byte_len: 2,
        imm: None,
        qpn: 3,
        opcode: CqeOpcode::Send,
        status: CqeStatus::Success,
        solicited: false,
        wqe_index: 4,
        phase: true,
    };
    let mut c = [0u8; 32];
    cqe.emit(&mut c).unwrap();
    assert_eq!(c[31], 1, "phase is bit 0 of the last byte");
    let mut t = c;
    t[20] = 9;
    assert_eq!(CqeRepr::parse(&t), Err(Error::Invalid { field: "status" }));
    let mut t = c;
    t[16..19].copy_from_slice(&[0, 0, 0]);
    assert_eq!(CqeRepr::parse(&t), Err(Error::Invalid { field: "qpn" }));
    assert!(CqeRepr {
        imm: Some(5),
        ..cqe
    }
    .emit(&mut c)
    .is_err());

    // Hot state: state 3, window exponent 17, CID 0 while OPEN, CID wider than 24 bits.
    let mut h = [0u8; 64];
    let hot = ConnHot::parse(&h).unwrap();
    assert_eq!(hot.state, ConnState::Closed);
    h[58] = 0xC0;
    assert_eq!(ConnHot::parse(&h), Err(Error::Invalid { field: "state" }));
    h[58] = 0;
    h[60] = 9;
    assert_eq!(
        ConnHot::parse(&h),
        Err(Error::Invalid {
            field: "own_wlog_m8"
        })
    );
    h[60] = 0;
    h[58] = 0x40;
    assert_eq!(ConnHot::parse(&h), Err(Error::Invalid { field: "cid" }));
    let open = ConnHot {
        state: ConnState::Open,
        cid: 1 << 24,
        ..hot
    };
    assert_eq!(open.emit(&mut h), Err(Error::Overflow { field: "cid" }));

    // MR context: zero length, overflow, REMOTE_WRITE without LOCAL_WRITE (MR-SEM-3, MR-SEM-4).
    let mr = MrContext {
        valid: true,
        addr: 0x1000,
        length: 0x100,
        lkey: 0x101,
        rkey: 0x5A00_0101,
        access: MrAccess(3),
    };
    let mut m = [0u8; 32];
    mr.emit(&mut m).unwrap();
    assert!(MrContext { length: 0, ..mr }.emit(&mut m).is_err());
    assert!(MrContext {
        addr: u64::MAX,
        ..mr
    }
    .emit(&mut m)
    .is_err());
    assert!(MrContext {
        access: MrAccess::REMOTE_WRITE,
        ..mr
    }
    .emit(&mut m)
    .is_err());
}

#[test]
fn qp_context_rejects_inconsistent_entries() {
    let ok = QpContext {
        state: QpState::Init,
        sq_base: 0x1000,
        rq_base: 0x2000,
        sq_log: 4,
        rq_log: 4,
        sq_pi: 16,
        sq_ci: 0,
        rq_pi: 0,
        rq_ci: 0,
        rq_keep: false,
        send_cqn: 1,
        recv_cqn: 2,
        cid: 0,
        remote: None,
    };
    let mut b = [0u8; 64];
    ok.emit(&mut b).unwrap();
    assert_eq!(QpContext::parse(&b), Ok(ok));
    // 17 entries in a 16-entry ring.
    assert_eq!(
        QpContext { sq_pi: 17, ..ok }.emit(&mut b),
        Err(Error::Invalid { field: "sq_pi" })
    );
    assert_eq!(
        QpContext {
            rq_base: 0x2100,
            ..ok
        }
        .emit(&mut b),
        Err(Error::Invalid { field: "rq_base" })
    );
    assert_eq!(
        QpContext { sq_log: 0, ..ok }.emit(&mut b),
        Err(Error::Invalid { field: "sq_log" })
    );
    // `rq_keep`: the device's RQ indices are kept, so the entry's are 0.
    let keep = QpContext {
        rq_keep: true,
        ..ok
    };
    keep.emit(&mut b).unwrap();
    assert_eq!(QpContext::parse(&b), Ok(keep));
    assert_eq!(
        QpContext { rq_pi: 1, ..keep }.emit(&mut b),
        Err(Error::Invalid { field: "rq_keep" })
    );
    // READY needs the remote QP; RESET must be all zero.
    assert!(QpContext {
        state: QpState::Ready,
        ..ok
    }
    .emit(&mut b)
    .is_err());
    assert!(QpContext {
        state: QpState::Reset,
        ..ok
    }
    .emit(&mut b)
    .is_err());
    // IPv4 remote with bytes beyond the address.
    let ready = QpContext {
        state: QpState::Ready,
        cid: 0x10001,
        remote: Some(QpRemote {
            qpn: 7,
            mac: [2, 0, 0, 0, 0, 9],
            ip: IpAddr::from([10, 0, 0, 9]),
        }),
        ..ok
    };
    ready.emit(&mut b).unwrap();
    assert_eq!(QpContext::parse(&b), Ok(ready));
    b[16 + 6] = 1;
    assert_eq!(
        QpContext::parse(&b),
        Err(Error::Invalid { field: "remote_ip" })
    );
}

/// MR-SEM-13: the placement check against an MR context entry.
#[test]
fn mr_sem_13_placement_check() {
    use metaroce_regmap::context::mr::MrCheckError as E;
    let mr = MrContext {
        valid: true,
        addr: 0x1000,
        length: 0x100,
        lkey: 0x101,
        rkey: 0x7701,
        access: MrAccess(MrAccess::LOCAL_WRITE.0 | MrAccess::REMOTE_WRITE.0),
    };
    assert_eq!(
        mr.check_remote(0x7701, 0x1000, 0x100, MrAccess::REMOTE_WRITE),
        Ok(())
    );
    assert_eq!(
        mr.check_remote(0x7701, 0x10FF, 2, MrAccess::REMOTE_WRITE),
        Err(E::OutOfBounds)
    );
    assert_eq!(
        mr.check_remote(0x7701, 0xFFF, 1, MrAccess::REMOTE_WRITE),
        Err(E::OutOfBounds)
    );
    assert_eq!(
        mr.check_remote(0x7701, 0x1000, u64::MAX, MrAccess::REMOTE_WRITE),
        Err(E::OutOfBounds)
    );
    assert_eq!(
        mr.check_remote(0x7701, 0x1000, 8, MrAccess::REMOTE_READ),
        Err(E::NoAccess)
    );
    assert_eq!(
        mr.check_remote(0x101, 0x1000, 8, MrAccess::REMOTE_WRITE),
        Err(E::BadKey)
    );
    assert_eq!(
        mr.check_local(0x101, 0x1000, 8, MrAccess::LOCAL_WRITE),
        Ok(())
    );
    let freed = MrContext {
        valid: false,
        addr: 0,
        length: 0,
        access: MrAccess(0),
        ..mr
    };
    assert_eq!(
        freed.check_remote(0x7701, 0, 1, MrAccess(0)),
        Err(E::BadKey)
    );
}

#[test]
fn ring_semantics() {
    let r = Ring::new(3).unwrap();
    assert_eq!(r.size(), 8);
    assert_eq!(r.slot(9), 1);
    assert_eq!(r.occupancy(5, 5), Ok(0));
    assert_eq!(r.occupancy(13, 5), Ok(8));
    assert!(r.occupancy(14, 5).is_err());
    // Wrap of the 16-bit indices.
    assert_eq!(r.occupancy(2, 65534), Ok(4));
    assert_eq!(r.free(2, 65534), Ok(4));
    // Phase: 1 on the first pass, 0 on the second, 1 again on the third.
    assert_eq!((0..8).map(|i| r.phase(i)).collect::<Vec<_>>(), [1; 8]);
    assert_eq!((8..16).map(|i| r.phase(i)).collect::<Vec<_>>(), [0; 8]);
    assert_eq!(r.phase(16), 1);
    assert_eq!(r.phase(65535), 0);
    assert_eq!(r.phase(0), 1, "index 65536 wraps to pass 0");
    assert!(Ring::new(0).is_err() && Ring::new(16).is_err() && Ring::new(15).is_ok());
}

#[test]
fn doorbell_decode_rejects_bad_writes() {
    let q = QueuesRepr::REFERENCE;
    // QPN 0's page does not exist.
    assert!(q.decode(q.qp_db_base, 1).is_err());
    assert!(q.encode(Doorbell::Sq { qpn: 0, pi: 1 }).is_err());
    assert!(q.encode(Doorbell::Sq { qpn: 16384, pi: 1 }).is_err());
    // Reserved bits of a doorbell value.
    assert!(q.decode(q.qp_db_base + 8, 0x1_0000).is_err());
    assert!(q.decode(q.cq_db_base + 4, 0x2_0000).is_err());
    // Outside every page.
    assert_eq!(q.decode(0x100, 1), Ok(None));
    let mut bad = q;
    bad.qp_db_stride = 4;
    assert!(bad.validate(0x8_0000).is_err());
}
