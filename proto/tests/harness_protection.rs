//! Memory protection and responder errors over the harness (MR-SEM-*): a bad key, bounds or rights make the
//! responder NACK ACCESS before touching memory; the requester completes the WR with `RemoteAccess`, the QP
//! goes to error and the WRs behind it are flushed. Also: RNR retry, a too-small receive WQE, and local
//! validation of work requests.
#![cfg(all(feature = "harness", feature = "std"))]

mod harness_common;

use harness_common::seeds_for;
use metaroce_proto::harness::link::LinkConfig;
use metaroce_proto::harness::pair::{Pair, Side};
use metaroce_proto::harness::scenario::connected_pair;
use metaroce_proto::harness::workload::HarnessMemory;
use metaroce_proto::transport::{
    Access, Event, Memory, Mode, MrKeys, Qpn, RecvWr, SendOp, SendWr, Sge, VerbsError, WcOpcode,
    WcStatus,
};

const SRC: u64 = 0x10_0000;
const SINK: u64 = 0x20_0000;
const WR_REGION: u64 = 0x1000_0000;
const RD_REGION: u64 = 0x2000_0000;
const LOCAL_REGION: u64 = 0x3000_0000;
const LEN: u64 = 64 * 1024;

struct Fixture {
    pair: Pair<HarnessMemory>,
    qa: Qpn,
    qb: Qpn,
    src: MrKeys,
    sink: MrKeys,
    /// B: REMOTE_WRITE only.
    w: MrKeys,
    /// B: REMOTE_READ only (prefilled 0xCD).
    r: MrKeys,
    /// B: LOCAL_WRITE only (receive buffers).
    l: MrKeys,
}

fn fixture(mode: Mode, seed: u64) -> Fixture {
    let link = LinkConfig::multipath(100_000_000_000, 4, 2_000, 200);
    let (mut pair, qa, qb) = connected_pair(mode, seed, link.clone(), link).expect("pair");
    let src = pair
        .a
        .register_mr(SRC, LEN, Access::LOCAL_WRITE)
        .expect("mr");
    let sink = pair
        .a
        .register_mr(SINK, LEN, Access::LOCAL_WRITE)
        .expect("mr");
    let w = pair
        .b
        .register_mr(WR_REGION, LEN, Access::REMOTE_WRITE)
        .expect("mr");
    let r = pair
        .b
        .register_mr(RD_REGION, LEN, Access::REMOTE_READ)
        .expect("mr");
    let l = pair
        .b
        .register_mr(LOCAL_REGION, LEN, Access::LOCAL_WRITE)
        .expect("mr");
    pair.a.memory_mut().write(SRC, &vec![0xAB; LEN as usize]);
    pair.b
        .memory_mut()
        .write(RD_REGION, &vec![0xCD; LEN as usize]);
    pair.a.memory_mut().start_recording();
    pair.b.memory_mut().start_recording();
    Fixture {
        pair,
        qa,
        qb,
        src,
        sink,
        w,
        r,
        l,
    }
}

impl Fixture {
    fn write(&self, wr_id: u64, remote: u64, rkey: u32, len: u32) -> SendWr {
        SendWr {
            wr_id,
            op: SendOp::Write,
            local: Sge {
                addr: SRC,
                len,
                lkey: self.src.lkey,
            },
            remote_addr: remote,
            rkey,
            solicited: false,
        }
    }

    fn read(&self, wr_id: u64, remote: u64, rkey: u32, len: u32) -> SendWr {
        SendWr {
            wr_id,
            op: SendOp::Read,
            local: Sge {
                addr: SINK,
                len,
                lkey: self.sink.lkey,
            },
            remote_addr: remote,
            rkey,
            solicited: false,
        }
    }

    fn send(&self, wr_id: u64, len: u32) -> SendWr {
        SendWr {
            wr_id,
            op: SendOp::Send,
            local: Sge {
                addr: SRC,
                len,
                lkey: self.src.lkey,
            },
            remote_addr: 0,
            rkey: 0,
            solicited: false,
        }
    }

    /// Posts `wrs` on A and runs until A has one completion per WR (or 20 ms of virtual time).
    /// Returns (A's events, B's events).
    fn run(&mut self, wrs: &[SendWr]) -> (Vec<Event>, Vec<Event>) {
        let now = self.pair.now();
        for wr in wrs {
            self.pair.a.post_send(now, self.qa, *wr).expect("post_send");
        }
        self.wait(wrs.len())
    }

    /// Runs until A has `want` completions (or 20 ms), then 100 µs more. Returns (A's events, B's events).
    fn wait(&mut self, want: usize) -> (Vec<Event>, Vec<Event>) {
        let now = self.pair.now();
        self.pair.set_time_limit(now + 20_000_000);
        let mut ea = Vec::new();
        let mut eb = Vec::new();
        self.pair.run_until(|p| {
            ea.extend(p.take_events(Side::A).into_iter().map(|(_, e)| e));
            eb.extend(p.take_events(Side::B).into_iter().map(|(_, e)| e));
            ea.iter()
                .filter(|e| matches!(e, Event::Completion(_)))
                .count()
                >= want
        });
        // A little longer: nothing more may complete or be written.
        let until = self.pair.now() + 100_000;
        self.pair.set_time_limit(until);
        self.pair.run_until(|p| p.now() >= until);
        ea.extend(self.pair.take_events(Side::A).into_iter().map(|(_, e)| e));
        eb.extend(self.pair.take_events(Side::B).into_iter().map(|(_, e)| e));
        (ea, eb)
    }
}

fn completions(ev: &[Event]) -> Vec<(u64, WcOpcode, WcStatus)> {
    ev.iter()
        .filter_map(|e| match e {
            Event::Completion(c) => Some((c.wr_id, c.opcode, c.status)),
            _ => None,
        })
        .collect()
}

/// The bad WR completes with RemoteAccess, the next one is flushed, the QP reports an error, and the bad WR
/// wrote nothing: the responder (B) may only have written the good WR's target (it was sent before the NACK
/// came back and may even have arrived first: out-of-order placement), and nothing landed in A's sink.
fn assert_access_error(mode: Mode, seed: u64, what: &str, make: impl Fn(&Fixture) -> SendWr) {
    println!("{what} ({mode:?}): seed {seed}");
    let mut fx = fixture(mode, seed);
    let bad = make(&fx);
    let good = fx.write(2, WR_REGION, fx.w.rkey, 128);
    let (ea, _eb) = fx.run(&[bad, good]);
    let c = completions(&ea);
    assert_eq!(c.len(), 2, "{what}: completions {c:?}");
    assert_eq!(c[0].0, 1, "{what}: {c:?}");
    assert_eq!(c[0].2, WcStatus::RemoteAccess, "{what}: {c:?}");
    assert_eq!(c[1].0, 2, "{what}: {c:?}");
    assert_eq!(c[1].2, WcStatus::Flushed, "{what}: {c:?}");
    assert!(
        ea.iter().any(|e| matches!(e, Event::QpError { .. })),
        "{what}: no QpError event: {ea:?}"
    );
    for w in fx.pair.b.memory().writes() {
        assert!(
            w.addr >= WR_REGION && w.addr + w.len <= WR_REGION + 128,
            "{what}: responder memory written outside the good WR's target: {w:?}"
        );
    }
    assert!(
        fx.pair.a.memory().writes().is_empty(),
        "{what}: requester sink written: {:?}",
        fx.pair.a.memory().writes()
    );
    // The READ-only region still holds its prefill.
    let mut buf = vec![0u8; LEN as usize];
    fx.pair.b.memory().read(RD_REGION, &mut buf);
    assert!(
        buf.iter().all(|&b| b == 0xCD),
        "{what}: read-only region changed"
    );
}

fn both_modes() -> Vec<(Mode, u64)> {
    let seeds = seeds_for("protection", 3);
    let mut v = Vec::new();
    for s in seeds {
        v.push((Mode::MetaRoce, s));
        v.push((Mode::RoceV2, s));
    }
    v
}

#[test]
fn mr_sem_wrong_rkey_is_remote_access() {
    for (m, s) in both_modes() {
        assert_access_error(m, s, "wrong rkey", |f| {
            f.write(1, WR_REGION, f.w.rkey ^ 0x5A5A_0000, 256)
        });
    }
}

#[test]
fn mr_sem_write_out_of_bounds_is_remote_access() {
    for (m, s) in both_modes() {
        assert_access_error(m, s, "write past region end", |f| {
            f.write(1, WR_REGION + LEN - 100, f.w.rkey, 200)
        });
        assert_access_error(m, s, "write before region start", |f| {
            f.write(1, WR_REGION - 8, f.w.rkey, 64)
        });
    }
}

#[test]
fn mr_sem_missing_rights_is_remote_access() {
    for (m, s) in both_modes() {
        assert_access_error(m, s, "write into a read-only region", |f| {
            f.write(1, RD_REGION, f.r.rkey, 512)
        });
        assert_access_error(m, s, "write into a local-only region", |f| {
            f.write(1, LOCAL_REGION, f.l.rkey, 512)
        });
        assert_access_error(m, s, "read from a write-only region", |f| {
            f.read(1, WR_REGION, f.w.rkey, 512)
        });
        assert_access_error(m, s, "read past region end", |f| {
            f.read(1, RD_REGION + LEN - 10, f.r.rkey, 100)
        });
    }
}

#[test]
fn mr_sem_deregistered_region_is_remote_access() {
    for (m, s) in both_modes() {
        println!("deregistered ({m:?}): seed {s}");
        let mut fx = fixture(m, s);
        let extra = fx
            .pair
            .b
            .register_mr(0x4000_0000, LEN, Access::REMOTE_WRITE)
            .expect("mr");
        fx.pair.b.deregister_mr(extra.lkey).expect("dereg");
        let bad = fx.write(1, 0x4000_0000, extra.rkey, 64);
        let (ea, _) = fx.run(&[bad]);
        let c = completions(&ea);
        assert_eq!(
            c,
            vec![(1, WcOpcode::Write, WcStatus::RemoteAccess)],
            "{m:?}"
        );
        assert!(fx.pair.b.memory().writes().is_empty());
    }
}

#[test]
fn mr_sem_good_ops_after_fixture_succeed() {
    // Control for the tests above: the same fixture with valid keys succeeds and writes exactly the target.
    for (m, s) in both_modes() {
        println!("control ({m:?}): seed {s}");
        let mut fx = fixture(m, s);
        let wrs = [
            fx.write(1, WR_REGION + 100, fx.w.rkey, 5000),
            fx.read(2, RD_REGION + 7, fx.r.rkey, 3000),
        ];
        let (ea, _) = fx.run(&wrs);
        let c = completions(&ea);
        assert_eq!(
            c,
            vec![
                (1, WcOpcode::Write, WcStatus::Success),
                (2, WcOpcode::Read, WcStatus::Success)
            ],
            "{m:?}"
        );
        let mut buf = vec![0u8; 5000];
        fx.pair.b.memory().read(WR_REGION + 100, &mut buf);
        assert!(buf.iter().all(|&b| b == 0xAB));
        let mut buf = vec![0u8; 3000];
        fx.pair.a.memory().read(SINK, &mut buf);
        assert!(buf.iter().all(|&b| b == 0xCD));
        let total: u64 = fx.pair.b.memory().writes().iter().map(|w| w.len).sum();
        assert_eq!(total, 5000, "responder wrote more than the target");
    }
}

#[test]
fn mr_sem_rnr_then_receive_posted_succeeds() {
    for (m, s) in both_modes() {
        println!("rnr ({m:?}): seed {s}");
        let mut fx = fixture(m, s);
        let now = fx.pair.now();
        fx.pair
            .a
            .post_send(now, fx.qa, fx.send(1, 300))
            .expect("post");
        // Let the SEND hit an empty receive queue, then post the receive.
        let t = now + 15_000;
        fx.pair.set_time_limit(t + 10_000_000);
        fx.pair.run_until(|p| p.now() >= t);
        let early = fx.pair.take_events(Side::A);
        assert!(
            early
                .iter()
                .all(|(_, e)| !matches!(e, Event::Completion(_))),
            "{m:?}: completed without a receive WQE: {early:?}"
        );
        let (qb, lkey) = (fx.qb, fx.l.lkey);
        fx.pair
            .b
            .post_recv(
                qb,
                RecvWr {
                    wr_id: 77,
                    sge: Sge {
                        addr: LOCAL_REGION,
                        len: 1024,
                        lkey,
                    },
                },
            )
            .expect("post_recv");
        let mut ea: Vec<Event> = early.into_iter().map(|(_, e)| e).collect();
        let (ea2, eb) = fx.wait(1);
        ea.extend(ea2);
        assert_eq!(
            completions(&ea),
            vec![(1, WcOpcode::Send, WcStatus::Success)],
            "{m:?}"
        );
        let cb = completions(&eb);
        assert_eq!(cb, vec![(77, WcOpcode::Recv, WcStatus::Success)], "{m:?}");
        let mut buf = vec![0u8; 300];
        fx.pair.b.memory().read(LOCAL_REGION, &mut buf);
        assert!(buf.iter().all(|&b| b == 0xAB));
    }
}

#[test]
fn mr_sem_send_into_small_receive_is_invalid_request() {
    for (m, s) in both_modes() {
        println!("small receive ({m:?}): seed {s}");
        let mut fx = fixture(m, s);
        let (qb, lkey) = (fx.qb, fx.l.lkey);
        fx.pair
            .b
            .post_recv(
                qb,
                RecvWr {
                    wr_id: 9,
                    sge: Sge {
                        addr: LOCAL_REGION,
                        len: 100,
                        lkey,
                    },
                },
            )
            .expect("post_recv");
        let (ea, eb) = fx.run(&[fx.send(1, 5000)]);
        let ca = completions(&ea);
        assert_eq!(
            ca.first().map(|c| (c.0, c.2)),
            Some((1, WcStatus::RemoteInvalidRequest)),
            "{m:?}: {ca:?}"
        );
        let cb = completions(&eb);
        assert_eq!(
            cb.first().map(|c| (c.0, c.2)),
            Some((9, WcStatus::LocalLength)),
            "{m:?}: {cb:?}"
        );
        // Nothing beyond the receive buffer was written.
        for w in fx.pair.b.memory().writes() {
            assert!(
                w.addr >= LOCAL_REGION && w.addr + w.len <= LOCAL_REGION + 100,
                "{w:?}"
            );
        }
    }
}

#[test]
fn mr_sem_local_validation_rejects_bad_wrs() {
    for (m, s) in both_modes() {
        let mut fx = fixture(m, s);
        let now = fx.pair.now();
        let mut bad_lkey = fx.write(1, WR_REGION, fx.w.rkey, 64);
        bad_lkey.local.lkey ^= 0x77_0000;
        assert_eq!(
            fx.pair.a.post_send(now, fx.qa, bad_lkey),
            Err(VerbsError::BadLkey),
            "{m:?}"
        );
        let mut oob = fx.write(2, WR_REGION, fx.w.rkey, 64);
        oob.local.addr = SRC + LEN - 10;
        assert_eq!(
            fx.pair.a.post_send(now, fx.qa, oob),
            Err(VerbsError::OutOfBounds),
            "{m:?}"
        );
        assert_eq!(
            fx.pair
                .a
                .post_send(now, 0xFF_FFFF, fx.write(3, WR_REGION, fx.w.rkey, 64)),
            Err(VerbsError::InvalidQp),
            "{m:?}"
        );
        // READ into a region without LOCAL_WRITE is a local protection error.
        let ro = fx
            .pair
            .a
            .register_mr(0x50_0000, LEN, Access::REMOTE_READ)
            .expect("mr");
        let mut rd = fx.read(4, RD_REGION, fx.r.rkey, 64);
        rd.local = Sge {
            addr: 0x50_0000,
            len: 64,
            lkey: ro.lkey,
        };
        assert_eq!(
            fx.pair.a.post_send(now, fx.qa, rd),
            Err(VerbsError::NoAccess),
            "{m:?}"
        );
        let _ = fx.qb;
    }
}
