//! The firmware's command logic against a model of the register space: boot, every command's effect on the
//! context tables and the response, refusals that change nothing, faults that give errors instead of hangs.

mod common;

use common::{caps, Faults, RegSpace};
use metaroce_firmware::objects::{CQS, MRS, QPS};
use metaroce_firmware::selftest::Check;
use metaroce_firmware::{Firmware, FW_VERSION};
use metaroce_regmap::command::{
    Command, CreateCq, CreateMr, CreateQp, Moderation, ModifyQp, Opcode, QpState, Remote, Request,
    Response, ResponseData, Status, CMD_BYTES,
};
use metaroce_regmap::context::conn::{ConnHot, ConnState};
use metaroce_regmap::context::mr::{MrAccess, MrContext};
use metaroce_regmap::context::qp::QpContext;
use metaroce_regmap::ctxport::table;
use metaroce_regmap::fwbus::{BootStage, BootStatus, PortStatus};
use std::net::{IpAddr, Ipv4Addr};

fn booted() -> (Firmware, RegSpace) {
    let mut regs = RegSpace::new(&caps());
    let mut fw = Firmware::new();
    let b = fw.boot(&mut regs);
    assert_eq!(b.stage, BootStage::Ready, "{b:?} stray {:x?}", regs.stray);
    (fw, regs)
}

/// Creates CQ 0 and QP 1 (INIT, completing into CQ 0).
fn add_qp1(fw: &mut Firmware, regs: &mut RegSpace) {
    assert_eq!(run(fw, regs, 1, cq_cmd()).data, ResponseData::Cq(0));
    assert_eq!(run(fw, regs, 2, qp_cmd(0, 0)).data, ResponseData::Qp(1));
}

/// MODIFY_QP of QP 1.
fn modify(state: QpState, remote: Option<Remote>) -> Command {
    Command::ModifyQp(ModifyQp {
        qpn: 1,
        state,
        remote,
    })
}

/// Runs `command` with `tag`; the mailbox status and the response.
fn run(fw: &mut Firmware, regs: &mut RegSpace, tag: u16, command: Command) -> Response {
    let op = command.opcode();
    regs.submit(&Request { tag, command });
    let served = fw.serve(regs).expect("a command was pending");
    assert_eq!(served.tag, tag);
    assert!(regs.pending.is_none(), "the command was completed");
    let count = match command {
        Command::ReadCounters { count, .. } => count,
        _ => 0,
    };
    let (st, resp) = regs.response(op, count);
    assert!(st.done && !st.busy);
    assert_eq!(st.tag, tag);
    assert_eq!(st.status, resp.status as u8);
    assert_eq!(served.status, resp.status);
    resp
}

fn cq_cmd() -> Command {
    Command::CreateCq(CreateCq {
        ring_addr: 0x8000,
        log_size: 7,
        msix_vector: 1,
        moderation: Moderation { usec: 0, count: 0 },
    })
}

fn qp_cmd(send_cqn: u32, recv_cqn: u32) -> Command {
    Command::CreateQp(CreateQp {
        sq_addr: 0x1_0000,
        rq_addr: 0x2_0000,
        send_cqn,
        recv_cqn,
        sq_log: 6,
        rq_log: 6,
    })
}

fn remote() -> Remote {
    Remote {
        qpn: 7,
        mac: [2, 0, 0, 0, 0, 0xB],
        ip: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)),
    }
}

fn query(fw: &mut Firmware, regs: &mut RegSpace) -> ResponseData {
    run(fw, regs, 1, Command::QueryDevice).data
}

#[test]
fn boot_passes_and_publishes_ready_with_the_version() {
    let (fw, regs) = booted();
    let b = BootStatus::from_word(regs.boot).unwrap();
    assert_eq!(b.stage, BootStage::Ready);
    assert_eq!(b.check, 0);
    assert_eq!(b.version, 0x0001);
    assert_eq!(fw.limits().max_qps, QPS as u32);
    assert_eq!(fw.limits().max_cqs, CQS as u32);
    assert_eq!(fw.limits().max_mrs, MRS as u32);
    assert!(regs.commits.is_empty(), "the self-test commits nothing");
    assert_eq!(
        regs.console,
        format!(
            "metaroce-fw {}.{}: self-test passed\n",
            metaroce_firmware::VERSION_MAJOR,
            metaroce_firmware::VERSION_MINOR
        )
        .as_bytes()
    );
    assert!(regs.stray.is_empty(), "stray accesses {:x?}", regs.stray);
}

#[test]
fn query_device_reports_version_and_free_resources() {
    let (mut fw, mut regs) = booted();
    let ResponseData::Device(d) = query(&mut fw, &mut regs) else {
        panic!("no device data")
    };
    assert_eq!(d.fw_version, FW_VERSION);
    assert_eq!(d.free_qps, QPS as u32 - 1);
    assert_eq!(d.free_cqs, CQS as u32);
    assert_eq!(d.free_mrs, MRS as u32 - 1);
    assert_eq!(d.free_conns, 16384);
}

#[test]
fn a_qp_lives_from_create_to_destroy_and_every_entry_is_what_the_tables_expect() {
    let (mut fw, mut regs) = booted();
    let before = query(&mut fw, &mut regs);

    let r = run(&mut fw, &mut regs, 10, cq_cmd());
    assert_eq!(r.status, Status::Ok);
    assert_eq!(r.data, ResponseData::Cq(0));
    let c = regs.commits.last().unwrap().clone();
    assert_eq!((c.table, c.index), (table::CQ, 0));
    assert_eq!(
        metaroce_regmap::command::arg::CQ_RING
            .get(&c.entry)
            .unwrap(),
        0x8000
    );
    assert_eq!(
        metaroce_regmap::command::arg::CQ_LOG.get(&c.entry).unwrap(),
        7
    );

    let r = run(&mut fw, &mut regs, 11, qp_cmd(0, 0));
    assert_eq!(r.data, ResponseData::Qp(1));
    let c = regs.commits.last().unwrap().clone();
    assert_eq!((c.table, c.index), (table::QP, 1));
    let q = QpContext::parse(&c.entry).unwrap();
    assert_eq!(q.state, QpState::Init);
    assert_eq!(
        (q.sq_base, q.sq_log, q.rq_base, q.rq_log),
        (0x1_0000, 6, 0x2_0000, 6)
    );
    assert_eq!((q.send_cqn, q.recv_cqn, q.cid), (0, 0, 0));
    assert!(q.remote.is_none());
    assert!(!q.rq_keep, "a new QP's rings start empty");

    let n = regs.commits.len();
    let r = run(
        &mut fw,
        &mut regs,
        12,
        Command::ModifyQp(ModifyQp {
            qpn: 1,
            state: QpState::Ready,
            remote: Some(remote()),
        }),
    );
    assert_eq!(r.status, Status::Ok);
    let conn = regs.commits[n].clone();
    let qp = regs.commits[n + 1].clone();
    assert_eq!(
        (conn.table, conn.index),
        (table::CONN, 1),
        "the connection opens first"
    );
    let hot = ConnHot::parse(&conn.entry).unwrap();
    assert_eq!(hot.state, ConnState::Open);
    assert_eq!(
        (hot.cid & 0xFFFF, hot.peer_cid),
        (1, 0),
        "connection 1, 0-RTT: the peer's CID is unknown"
    );
    assert_ne!(hot.cid >> 16, 0, "a CID generation (MR-CONN-2)");
    assert_eq!(hot.snd_una, hot.snd_nxt);
    assert_eq!((hot.own_wlog, hot.peer_wlog), (8, 8));
    assert_eq!(conn.open_param & 0xF, 12, "4 KiB MTU");
    assert_eq!((conn.open_param >> 8) & 0x7F, 16, "16 paths");
    assert_eq!(conn.open_param >> 16, 0, "both directions");
    let q = QpContext::parse(&qp.entry).unwrap();
    assert_eq!((qp.table, qp.index), (table::QP, 1));
    assert_eq!((q.state, q.cid), (QpState::Ready, hot.cid));
    assert!(
        q.rq_keep,
        "the move to READY keeps the receive WQEs posted in INIT"
    );
    let rm = q.remote.unwrap();
    assert_eq!((rm.qpn, rm.mac, rm.ip), (7, remote().mac, remote().ip));

    let r = run(
        &mut fw,
        &mut regs,
        13,
        Command::CreateMr(CreateMr {
            addr: 0x10_0000,
            length: 1 << 20,
            access: MrAccess::ALL,
        }),
    );
    let ResponseData::Mr { lkey, rkey } = r.data else {
        panic!("{r:?}")
    };
    assert_eq!(lkey >> 8, 1, "slot 1");
    assert_ne!(lkey, rkey);
    assert_eq!((rkey >> 8) & 0xFFF, 1, "the rkey indexes the same slot");
    let c = regs.commits.last().unwrap().clone();
    assert_eq!((c.table, c.index), (table::MR, 1));
    let m = MrContext::parse(&c.entry).unwrap();
    assert!(m.valid);
    assert_eq!(
        (m.addr, m.length, m.lkey, m.rkey),
        (0x10_0000, 1 << 20, lkey, rkey)
    );

    let r = run(
        &mut fw,
        &mut regs,
        14,
        Command::ModifyMr {
            lkey,
            access: MrAccess::LOCAL_WRITE,
        },
    );
    assert_eq!(r.status, Status::Ok);
    let m = MrContext::parse(&regs.commits.last().unwrap().entry).unwrap();
    assert_eq!(
        (m.access, m.lkey, m.rkey),
        (MrAccess::LOCAL_WRITE, lkey, rkey)
    );

    let r = run(&mut fw, &mut regs, 15, Command::DestroyMr { lkey });
    assert_eq!(r.status, Status::Ok);
    let m = MrContext::parse(&regs.commits.last().unwrap().entry).unwrap();
    assert!(!m.valid);
    let n = regs.commits.len();
    let r = run(&mut fw, &mut regs, 16, Command::DestroyMr { lkey });
    assert_eq!(r.status, Status::BadHandle, "a destroyed key names nothing");
    assert_eq!(regs.commits.len(), n);
    let r = run(&mut fw, &mut regs, 17, cq_cmd());
    assert_eq!(r.data, ResponseData::Cq(1));
    let r = run(
        &mut fw,
        &mut regs,
        18,
        Command::CreateMr(CreateMr {
            addr: 0x10_0000,
            length: 4096,
            access: MrAccess::ALL,
        }),
    );
    let ResponseData::Mr { lkey: lkey2, .. } = r.data else {
        panic!("{r:?}")
    };
    assert_eq!(lkey2 >> 8, 1, "the slot is reused");
    assert_ne!(lkey2, lkey, "with a new generation");

    let n = regs.commits.len();
    let r = run(&mut fw, &mut regs, 19, Command::DestroyCq { cqn: 0 });
    assert_eq!(r.status, Status::BadState, "QP 1 completes into CQ 0");
    assert_eq!(regs.commits.len(), n);

    let r = run(&mut fw, &mut regs, 20, Command::DestroyQp { qpn: 1 });
    assert_eq!(r.status, Status::Ok);
    let qz = &regs.commits[n];
    let cz = &regs.commits[n + 1];
    assert_eq!((qz.table, qz.index, qz.entry), (table::QP, 1, [0; 64]));
    assert_eq!((cz.table, cz.index, cz.entry), (table::CONN, 1, [0; 64]));
    for (tag, cqn) in [(21, 0), (22, 1)] {
        assert_eq!(
            run(&mut fw, &mut regs, tag, Command::DestroyCq { cqn }).status,
            Status::Ok
        );
    }
    assert_eq!(
        run(&mut fw, &mut regs, 23, Command::DestroyMr { lkey: lkey2 }).status,
        Status::Ok
    );
    assert_eq!(query(&mut fw, &mut regs), before, "every resource is back");
    assert!(regs.stray.is_empty(), "stray accesses {:x?}", regs.stray);
}

#[test]
fn qp_transitions_follow_table_7_10() {
    let (mut fw, mut regs) = booted();
    add_qp1(&mut fw, &mut regs);
    let steps = [
        (QpState::Init, None, Status::BadState),
        (QpState::Reset, None, Status::BadState),
        (QpState::Ready, Some(remote()), Status::Ok),
        (QpState::Ready, Some(remote()), Status::BadState),
        (QpState::Init, None, Status::BadState),
        (QpState::Error, None, Status::Ok),
        (QpState::Ready, Some(remote()), Status::BadState),
        (QpState::Reset, None, Status::Ok),
        (QpState::Init, None, Status::Ok),
    ];
    for (i, (to, rm, want)) in steps.into_iter().enumerate() {
        let n = regs.commits.len();
        let r = run(&mut fw, &mut regs, 10 + i as u16, modify(to, rm));
        assert_eq!(r.status, want, "step {i}: to {to:?}");
        if want != Status::Ok {
            assert_eq!(
                regs.commits.len(),
                n,
                "step {i}: a refused move writes nothing"
            );
        } else {
            let q = QpContext::parse(&regs.commits.last().unwrap().entry);
            match to {
                QpState::Reset => {
                    // RESET: the QP entry is cleared and the connection closed after it.
                    let qe = &regs.commits[n];
                    assert_eq!(QpContext::parse(&qe.entry).unwrap().state, QpState::Reset);
                    let ce = regs.commits.last().unwrap();
                    assert_eq!((ce.table, ce.entry), (table::CONN, [0; 64]));
                }
                QpState::Error => {
                    // READY → ERROR: the core is asked to fail the QP; its entry stays the hardware's.
                    assert_eq!(regs.commits.len(), n, "step {i}: nothing committed");
                    assert_eq!(regs.fails, [1], "step {i}");
                }
                _ => assert_eq!(q.unwrap().state, to, "step {i}"),
            }
        }
        assert_eq!(
            fw.objects().qp(1).unwrap().state,
            if want == Status::Ok {
                to
            } else {
                fw.objects().qp(1).unwrap().state
            }
        );
    }
    let ResponseData::Device(d) = query(&mut fw, &mut regs) else {
        panic!()
    };
    assert_eq!(d.free_conns, 16384, "the connection was closed at RESET");
}

#[test]
fn handles_that_name_nothing_are_refused_with_their_field() {
    let (mut fw, mut regs) = booted();
    let cases = [
        (Command::DestroyCq { cqn: 3 }, 8),
        (
            Command::ModifyCq {
                cqn: 3,
                moderation: Moderation::default(),
            },
            8,
        ),
        (Command::DestroyQp { qpn: 2 }, 8),
        (Command::QueryQp { qpn: 2 }, 8),
        (qp_cmd(0, 0), 24),
        (Command::DestroyMr { lkey: 0x105 }, 8),
        (
            Command::ModifyMr {
                lkey: 0x100,
                access: MrAccess::ALL,
            },
            8,
        ),
        (
            Command::ModifyQp(ModifyQp {
                qpn: 5,
                state: QpState::Error,
                remote: None,
            }),
            8,
        ),
    ];
    for (i, (cmd, offset)) in cases.into_iter().enumerate() {
        let r = run(&mut fw, &mut regs, i as u16, cmd);
        assert_eq!(r.status, Status::BadHandle, "{cmd:?}");
        assert_eq!(r.bad_offset, Some(offset), "{cmd:?}");
    }
    run(&mut fw, &mut regs, 50, cq_cmd());
    let r = run(&mut fw, &mut regs, 51, qp_cmd(0, 9));
    assert_eq!(
        (r.status, r.bad_offset),
        (Status::BadHandle, Some(28)),
        "recv_cqn"
    );
    assert_eq!(regs.commits.len(), 1, "only the CQ was written");
}

#[test]
fn exhausted_tables_answer_no_resources_and_write_nothing() {
    let (mut fw, mut regs) = booted();
    for i in 0..CQS {
        let r = run(&mut fw, &mut regs, i as u16, cq_cmd());
        assert_eq!(r.data, ResponseData::Cq(i as u32));
    }
    let n = regs.commits.len();
    let r = run(&mut fw, &mut regs, 999, cq_cmd());
    assert_eq!(r.status, Status::NoResources);
    assert_eq!(regs.commits.len(), n);
}

#[test]
fn read_counters_returns_one_snapshot() {
    let (mut fw, mut regs) = booted();
    let r = run(
        &mut fw,
        &mut regs,
        3,
        Command::ReadCounters { first: 2, count: 7 },
    );
    assert_eq!(regs.snapshots, 1);
    let ResponseData::Counters { count, values } = r.data else {
        panic!("{r:?}")
    };
    assert_eq!(count, 7);
    for (i, v) in values.iter().enumerate() {
        assert_eq!(*v, regs.counters[2 + i], "counter {}", 2 + i);
    }
}

/// xorshift64* with a printed seed.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

fn seed() -> u64 {
    std::env::var("METAROCE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5EED_F1F0)
}

#[test]
fn corrupted_requests_are_answered_and_a_refusal_changes_nothing() {
    let seed = seed();
    println!("seed {seed} (replay: METAROCE_SEED={seed})");
    let mut rng = Rng(seed | 1);
    let (mut fw, mut regs) = booted();
    run(&mut fw, &mut regs, 1, cq_cmd());
    run(&mut fw, &mut regs, 2, qp_cmd(0, 0));
    let valid = [
        cq_cmd(),
        qp_cmd(0, 0),
        Command::ModifyQp(ModifyQp {
            qpn: 1,
            state: QpState::Ready,
            remote: Some(remote()),
        }),
        Command::CreateMr(CreateMr {
            addr: 0x1000,
            length: 4096,
            access: MrAccess::ALL,
        }),
        Command::DestroyCq { cqn: 0 },
        Command::ReadCounters { first: 0, count: 3 },
    ];
    let (mut refused, mut done) = (0, 0);
    for i in 0..4000u32 {
        let mut buf = [0u8; CMD_BYTES];
        if i % 4 == 0 {
            for b in buf.iter_mut() {
                *b = rng.next() as u8;
            }
        } else {
            let cmd = valid[(rng.next() % valid.len() as u64) as usize];
            Request {
                tag: 5,
                command: cmd,
            }
            .emit(&mut buf)
            .unwrap();
            for _ in 0..1 + rng.next() % 3 {
                let at = (rng.next() % CMD_BYTES as u64) as usize;
                buf[at] ^= 1 << (rng.next() % 8);
            }
        }
        let commits = regs.commits.len();
        let qps = *fw.objects().qps();
        let cqs = *fw.objects().cqs();
        let mrs = *fw.objects().mrs();
        regs.submit_raw(&buf, i as u16);
        let s = fw.serve(&mut regs).expect("pending");
        assert!(regs.pending.is_none(), "seed {seed} case {i}: answered");
        let st = metaroce_regmap::mailbox::MailboxStatus::from_word(regs.status).unwrap();
        assert_eq!(
            (st.done, st.tag, st.status),
            (true, i as u16, s.status as u8)
        );
        assert_ne!(
            s.status,
            Status::Internal,
            "seed {seed} case {i}: {buf:02x?}"
        );
        if s.status != Status::Ok {
            refused += 1;
            assert_eq!(
                regs.commits.len(),
                commits,
                "seed {seed} case {i}: refused, yet written"
            );
            assert!(
                *fw.objects().qps() == qps
                    && *fw.objects().cqs() == cqs
                    && *fw.objects().mrs() == mrs,
                "seed {seed} case {i}: refused, yet the firmware's tables changed"
            );
        } else {
            done += 1;
        }
    }
    println!("{refused} refused, {done} executed");
    assert!(
        refused > 1000 && done > 100,
        "both kinds were exercised: {refused} / {done}"
    );
}

#[test]
fn a_hung_context_port_gives_internal_not_a_hang() {
    let (mut fw, mut regs) = booted();
    regs.faults = Faults {
        port_hangs: true,
        ..Faults::default()
    };
    let r = run(&mut fw, &mut regs, 4, cq_cmd());
    assert_eq!(r.status, Status::Internal);
    assert!(fw.objects().cq(0).is_none(), "the CQ is not recorded");
}

#[test]
fn read_module_needs_a_module_that_answers() {
    let (mut fw, mut regs) = booted();
    let m = Command::ReadModule {
        page: 0,
        offset: 0,
        length: 8,
    };
    // No module in the cage: BAD_STATE, and the bus is not touched.
    regs.port = u32::from(PortStatus::LINK_UP.0);
    let r = run(&mut fw, &mut regs, 5, m);
    assert_eq!(r.status, Status::BadState);
    assert_eq!(regs.i2c_writes, 0);
    // A module present but nothing on the bus (its address is not acknowledged): DEVICE_ERROR, the bus
    // released.
    regs.port = u32::from(PortStatus::LINK_UP.0 | PortStatus::MODULE_PRESENT.0);
    let r = run(&mut fw, &mut regs, 6, m);
    assert_eq!(r.status, Status::DeviceError);
    assert!(regs.i2c_writes > 9, "an address went out bit by bit");
    assert_eq!(regs.i2c, 0, "both lines released");
    assert!(regs.stray.is_empty(), "{:x?}", regs.stray);
    // A range beyond the map is refused by the parser.
    let r = run(
        &mut fw,
        &mut regs,
        7,
        Command::ReadModule {
            page: 0,
            offset: 255,
            length: 2,
        },
    );
    assert_eq!((r.status, r.bad_offset), (Status::BadParam, Some(10)));
}

#[test]
fn each_self_test_failure_is_named_and_commands_get_internal() {
    let cases = [
        (
            Faults {
                no_blocks: true,
                ..Faults::default()
            },
            Check::Discovery,
        ),
        (
            Faults {
                stage_dead: true,
                ..Faults::default()
            },
            Check::CtxPort,
        ),
        (
            Faults {
                port_hangs: true,
                ..Faults::default()
            },
            Check::CtxPort,
        ),
        (
            Faults {
                clock_stopped: true,
                ..Faults::default()
            },
            Check::Clock,
        ),
    ];
    for (faults, check) in cases {
        let mut regs = RegSpace::new(&caps());
        regs.faults = faults;
        if faults.port_hangs {
            // A port that is busy at boot (a commit that never finished).
            regs.submit_raw(&[0; CMD_BYTES], 0);
            regs.pending = None;
            regs.reg_busy_for_test();
        }
        let mut fw = Firmware::new();
        let b = fw.boot(&mut regs);
        assert_eq!(
            (b.stage, b.check),
            (BootStage::Failed, check as u8),
            "{faults:?}"
        );
        assert_eq!(BootStatus::from_word(regs.boot), Some(b));
        assert_eq!(
            regs.console,
            format!(
                "metaroce-fw {}.{}: self-test FAILED\n",
                metaroce_firmware::VERSION_MAJOR,
                metaroce_firmware::VERSION_MINOR
            )
            .as_bytes()
        );
        let r = run(&mut fw, &mut regs, 9, Command::QueryDevice);
        assert_eq!(r.status, Status::Internal, "{faults:?}");
        assert!(regs.commits.is_empty());
    }
}

#[test]
fn the_mailbox_tag_is_echoed_and_unknown_opcodes_are_bad_opcode() {
    let (mut fw, mut regs) = booted();
    let mut buf = [0u8; CMD_BYTES];
    buf[0] = 0x7F;
    buf[1] = 1;
    regs.submit_raw(&buf, 0xBEEF);
    let s = fw.serve(&mut regs).unwrap();
    assert_eq!(
        (s.tag, s.opcode, s.status),
        (0xBEEF, None, Status::BadOpcode)
    );
    let (st, r) = regs.response(Opcode::QueryDevice, 0);
    assert_eq!(
        (st.tag, r.status, r.bad_offset),
        (0xBEEF, Status::BadOpcode, Some(0))
    );
    assert!(fw.serve(&mut regs).is_none(), "nothing else pending");
}

#[test]
fn mr_conn_2_each_connection_of_a_qp_has_a_new_cid() {
    let (mut fw, mut regs) = booted();
    add_qp1(&mut fw, &mut regs);
    // 300 connections of QP 1: READY, ERROR, RESET, INIT, READY, ... Each opens connection 1 with a CID whose
    // generation (bits 23:16) advances 1..255 and round again; a value recurs only after 255 others.
    let mut cids = Vec::new();
    for k in 0..300u32 {
        let n = regs.commits.len();
        let r = run(
            &mut fw,
            &mut regs,
            3,
            modify(QpState::Ready, Some(remote())),
        );
        assert_eq!(r.status, Status::Ok, "connection {k}");
        let hot = ConnHot::parse(&regs.commits[n].entry).unwrap();
        let q = QpContext::parse(&regs.commits[n + 1].entry).unwrap();
        assert_eq!(q.cid, hot.cid, "the QP entry names its connection's CID");
        assert_eq!(hot.cid & 0xFFFF, 1, "connection 1");
        let ResponseData::QpInfo(info) =
            run(&mut fw, &mut regs, 4, Command::QueryQp { qpn: 1 }).data
        else {
            panic!("no QP info")
        };
        assert_eq!(info.cid, hot.cid);
        cids.push(hot.cid);
        for (tag, state) in [(5, QpState::Error), (6, QpState::Reset)] {
            assert_eq!(
                run(&mut fw, &mut regs, tag, modify(state, None)).status,
                Status::Ok
            );
        }
        assert_eq!(
            run(&mut fw, &mut regs, 7, modify(QpState::Init, None)).status,
            Status::Ok
        );
    }
    for (k, w) in cids.windows(2).enumerate() {
        let (g0, g1) = (w[0] >> 16, w[1] >> 16);
        assert!((1..=255).contains(&g0), "generation {g0}");
        assert_eq!(
            g1,
            if g0 == 255 { 1 } else { g0 + 1 },
            "after connection {k}"
        );
    }
    for (k, c) in cids.iter().enumerate() {
        let again = cids[k + 1..].iter().position(|x| x == c);
        assert!(
            again.is_none_or(|d| d + 1 == 255),
            "CID {c:#x} recurs after {again:?} others"
        );
    }
}

/// The connection the firmware opens for QP 1 after a boot with `CONTROL.SEED` = `seed`: its CID and ISN.
fn first_connection(seed: u32) -> (u32, u32) {
    let mut regs = RegSpace::new(&caps());
    let control = metaroce_regmap::block::default_base(metaroce_regmap::block::BlockType::Control)
        .expect("control block");
    regs.blocks
        .insert(control + metaroce_regmap::control::reg::SEED, seed);
    let mut fw = Firmware::new();
    assert_eq!(fw.boot(&mut regs).stage, BootStage::Ready);
    add_qp1(&mut fw, &mut regs);
    let n = regs.commits.len();
    let r = run(
        &mut fw,
        &mut regs,
        3,
        modify(QpState::Ready, Some(remote())),
    );
    assert_eq!(r.status, Status::Ok);
    let hot = ConnHot::parse(&regs.commits[n].entry).unwrap();
    (hot.cid, hot.snd_nxt)
}

#[test]
fn mr_conn_2_4_the_hosts_seed_gives_each_boot_its_own_isns_and_cids() {
    // The register model's clock is the same at every boot, as a device's is after reset: only the host's
    // seed tells two boots apart.
    let a = first_connection(0x1234_5678);
    assert_eq!(first_connection(0x1234_5678), a, "the same seed replays");
    let b = first_connection(0x9ABC_DEF0);
    assert_ne!(a.1, b.1, "another seed, another ISN");
    assert_ne!(a.0, b.0, "another seed, another CID generation");
}
