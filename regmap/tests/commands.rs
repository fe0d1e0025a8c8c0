//! Mailbox command validation: every refused request gets a clear status and the offset of the bad field.

use metaroce_regmap::caps::CapsRepr;
use metaroce_regmap::command::*;
use metaroce_regmap::context::mr::MrAccess;
use metaroce_regmap::mailbox::{ctrl_go, decode_ctrl};
use std::net::{IpAddr, Ipv4Addr};

fn emit(command: Command) -> [u8; CMD_BYTES] {
    let mut b = [0u8; CMD_BYTES];
    Request { tag: 0x77, command }.emit(&mut b).unwrap();
    b
}

fn status(b: &[u8; CMD_BYTES]) -> (Status, u16) {
    let e = Request::parse(b, &CapsRepr::REFERENCE.limits()).unwrap_err();
    assert_ne!(e.status, Status::Ok);
    (e.status, e.offset)
}

fn cq() -> CreateCq {
    CreateCq {
        ring_addr: 0x10_0000,
        log_size: 10,
        msix_vector: 3,
        moderation: Moderation::default(),
    }
}

#[test]
fn header_checks() {
    let mut b = emit(Command::QueryDevice);
    b[1] = 2;
    assert_eq!(status(&b), (Status::BadVersion, 1));
    let mut b = emit(Command::QueryDevice);
    b[0] = 0x7F;
    assert_eq!(status(&b), (Status::BadOpcode, 0));
    let mut b = emit(Command::QueryDevice);
    b[5] = 1;
    assert_eq!(status(&b), (Status::BadReserved, 5));
    let mut b = emit(Command::DestroyQp { qpn: 5 });
    b[63] = 0x80;
    assert_eq!(status(&b), (Status::BadReserved, 63));
}

#[test]
fn cq_and_qp_ranges() {
    let off = |f: &metaroce_regmap::Field| f.byte as u16;
    let cases: Vec<(Command, (Status, u16))> = vec![
        (
            Command::CreateCq(CreateCq {
                ring_addr: 0x1_0800,
                ..cq()
            }),
            (Status::BadParam, off(&arg::CQ_RING)),
        ),
        (
            Command::CreateCq(CreateCq {
                ring_addr: 0,
                ..cq()
            }),
            (Status::BadParam, off(&arg::CQ_RING)),
        ),
        (
            Command::CreateCq(CreateCq {
                log_size: 0,
                ..cq()
            }),
            (Status::BadParam, off(&arg::CQ_LOG)),
        ),
        (
            Command::CreateCq(CreateCq {
                log_size: 16,
                ..cq()
            }),
            (Status::BadParam, off(&arg::CQ_LOG)),
        ),
        (
            Command::CreateCq(CreateCq {
                msix_vector: 64,
                ..cq()
            }),
            (Status::BadParam, off(&arg::CQ_VECTOR)),
        ),
        (
            Command::DestroyCq { cqn: 16384 },
            (Status::BadParam, off(&arg::CQN)),
        ),
        (
            Command::DestroyQp { qpn: 0 },
            (Status::BadParam, off(&arg::QPN)),
        ),
        (
            Command::DestroyQp { qpn: 16384 },
            (Status::BadParam, off(&arg::QPN)),
        ),
        (
            Command::CreateQp(CreateQp {
                sq_addr: 0x1000,
                rq_addr: 0x2000,
                send_cqn: 1,
                recv_cqn: 99999,
                sq_log: 4,
                rq_log: 4,
            }),
            (Status::BadParam, off(&arg::RECV_CQN)),
        ),
        (
            Command::CreateQp(CreateQp {
                sq_addr: 0x1000,
                rq_addr: 0x2000,
                send_cqn: 1,
                recv_cqn: 1,
                sq_log: 4,
                rq_log: 20,
            }),
            (Status::BadParam, off(&arg::RQ_LOG)),
        ),
        (
            Command::ReadCounters { first: 0, count: 0 },
            (Status::BadParam, off(&arg::CTR_COUNT)),
        ),
        (
            Command::ReadCounters { first: 0, count: 8 },
            (Status::BadParam, off(&arg::CTR_COUNT)),
        ),
        (
            Command::ReadCounters {
                first: metaroce_regmap::counters::COUNT - 2,
                count: 3,
            },
            (Status::BadParam, off(&arg::CTR_FIRST)),
        ),
    ];
    for (cmd, want) in cases {
        assert_eq!(status(&emit(cmd)), want, "{cmd:?}");
    }
}

/// MR-SEM-3, MR-SEM-4: zero length, overflow, undefined access bits, REMOTE_WRITE without LOCAL_WRITE.
#[test]
fn mr_sem_3_create_mr_checks() {
    let ok = CreateMr {
        addr: 0x1000,
        length: 0x1000,
        access: MrAccess(7),
    };
    assert!(Request::parse(&emit(Command::CreateMr(ok)), &CapsRepr::REFERENCE.limits()).is_ok());
    let len = arg::MR_LENGTH.byte as u16;
    let acc = arg::MR_ACCESS.byte as u16;
    assert_eq!(
        status(&emit(Command::CreateMr(CreateMr { length: 0, ..ok }))),
        (Status::BadParam, len)
    );
    assert_eq!(
        status(&emit(Command::CreateMr(CreateMr {
            addr: u64::MAX - 10,
            ..ok
        }))),
        (Status::BadParam, len)
    );
    assert_eq!(
        status(&emit(Command::CreateMr(CreateMr {
            access: MrAccess(0x10),
            ..ok
        }))),
        (Status::BadParam, acc)
    );
    assert_eq!(
        status(&emit(Command::CreateMr(CreateMr {
            access: MrAccess::REMOTE_WRITE,
            ..ok
        }))),
        (Status::BadParam, acc)
    );
    // A key whose slot is beyond MAX_MRS.
    assert_eq!(
        status(&emit(Command::DestroyMr { lkey: 65536 << 8 })),
        (Status::BadParam, arg::LKEY.byte as u16)
    );
}

/// MR-CONN-39: MODIFY_QP carries the remote QP exactly when the target is READY.
#[test]
fn mr_conn_39_modify_qp_checks() {
    let remote = Remote {
        qpn: 0x11,
        mac: [2, 0, 0, 0, 0, 1],
        ip: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)),
    };
    let ready = ModifyQp {
        qpn: 5,
        state: QpState::Ready,
        remote: Some(remote),
    };
    let b = emit(Command::ModifyQp(ready));
    assert_eq!(
        Request::parse(&b, &CapsRepr::REFERENCE.limits()).map(|r| r.command),
        Ok(Command::ModifyQp(ready))
    );
    // IPv4 with bytes beyond the first four.
    let mut t = b;
    t[arg::REMOTE_IP.byte as usize + 5] = 1;
    assert_eq!(status(&t), (Status::BadParam, arg::REMOTE_IP.byte as u16));
    // READY without a remote QP.
    let mut t = b;
    t[arg::REMOTE_QPN.byte as usize] = 0;
    assert_eq!(status(&t), (Status::BadParam, arg::REMOTE_QPN.byte as u16));
    // Unknown IP version.
    let mut t = b;
    t[arg::IP_VERSION.byte as usize] = 5;
    assert_eq!(status(&t), (Status::BadParam, arg::IP_VERSION.byte as u16));
    // Remote fields with another target state.
    let mut t = b;
    t[arg::QP_STATE.byte as usize] = QpState::Error as u8;
    assert_eq!(status(&t), (Status::BadParam, arg::IP_VERSION.byte as u16));
    // Unknown state.
    let mut t = emit(Command::ModifyQp(ModifyQp {
        qpn: 5,
        state: QpState::Error,
        remote: None,
    }));
    t[arg::QP_STATE.byte as usize] = 4;
    assert_eq!(status(&t), (Status::BadParam, arg::QP_STATE.byte as u16));
    // Transition rule of Table 7.10.
    assert!(QpState::Init.modify_allowed(QpState::Ready));
    assert!(QpState::Ready.modify_allowed(QpState::Error));
    assert!(QpState::Error.modify_allowed(QpState::Reset));
    assert!(!QpState::Error.modify_allowed(QpState::Ready));
    assert!(!QpState::Reset.modify_allowed(QpState::Ready));
    assert!(!QpState::Ready.modify_allowed(QpState::Init));
}

#[test]
fn error_response_carries_status_and_offset() {
    let mut b = emit(Command::DestroyCq { cqn: 1 << 20 });
    let e = Request::parse(&b, &CapsRepr::REFERENCE.limits()).unwrap_err();
    assert!(e.to_string().contains("BAD_PARAM"), "{e}");
    let r = Response::error(0x77, e);
    r.emit(Opcode::DestroyCq, &mut b).unwrap();
    assert_eq!(b[0], Status::BadParam as u8);
    assert_eq!(Response::parse(&b, Opcode::DestroyCq, 0), Ok(r));
    // An error response cannot carry data.
    let bad = Response {
        data: ResponseData::Cq(1),
        ..r
    };
    assert!(bad.emit(Opcode::CreateCq, &mut b).is_err());
}

#[test]
fn mailbox_ctrl_word() {
    assert_eq!(decode_ctrl(ctrl_go(0xBEEF)), Ok(Some(0xBEEF)));
    assert_eq!(decode_ctrl(0), Ok(None));
    assert!(decode_ctrl(0x2).is_err());
}

#[test]
fn read_events_responses_are_checked() {
    let ev = Event {
        kind: EventType::QpError,
        status: 3,
        has_msn: true,
        qpn: 12,
        msn: 7,
    };
    let ok = |events: Events| Response {
        tag: 5,
        status: Status::Ok,
        bad_offset: None,
        data: ResponseData::Events(events),
    };
    let one = Events {
        count: 1,
        events: [Some(ev), None, None, None],
        pending: 2,
        lost: 9,
    };
    let mut b = [0u8; CMD_BYTES];
    ok(one).emit(Opcode::ReadEvents, &mut b).unwrap();
    assert_eq!(Response::parse(&b, Opcode::ReadEvents, 0).unwrap(), ok(one));
    // A count that disagrees with the events, or above four, does not encode.
    for bad in [
        Events { count: 2, ..one },
        Events { count: 0, ..one },
        Events {
            count: 5,
            events: [Some(ev); 4],
            ..one
        },
    ] {
        assert!(
            ok(bad)
                .emit(Opcode::ReadEvents, &mut [0u8; CMD_BYTES])
                .is_err(),
            "{bad:?}"
        );
    }
    // Decoding: a count above four, an event beyond the count, an unknown type.
    let mut c = b;
    arg::EV_COUNT.set(&mut c, 5).unwrap();
    assert!(Response::parse(&c, Opcode::ReadEvents, 0).is_err());
    let mut c = b;
    arg::EV_QPN[1].set(&mut c, 1).unwrap();
    assert!(Response::parse(&c, Opcode::ReadEvents, 0).is_err());
    let mut c = b;
    arg::EV_TYPE[0].set(&mut c, 9).unwrap();
    assert!(Response::parse(&c, Opcode::ReadEvents, 0).is_err());
    // READ_EVENTS takes no arguments: a set byte is BAD_RESERVED.
    let mut r = emit(Command::ReadEvents);
    r[8] = 1;
    assert_eq!(status(&r), (Status::BadReserved, 8));
}

#[test]
fn read_module_checks() {
    let m = |page, offset, length| Command::ReadModule {
        page,
        offset,
        length,
    };
    let limits = CapsRepr::REFERENCE.limits();
    for ok in [m(0, 0, 1), m(3, 0, 48), m(0, 208, 48), m(0xFF, 255, 1)] {
        assert_eq!(
            Request::parse(&emit(ok), &limits).unwrap().command,
            ok,
            "{ok:?}"
        );
    }
    for bad in [m(0, 0, 0), m(0, 0, 49), m(0, 209, 48), m(0, 255, 2)] {
        assert_eq!(status(&emit(bad)), (Status::BadParam, 10), "{bad:?}");
    }
    let mut b = emit(m(0, 0, 4));
    b[11] = 1;
    assert_eq!(status(&b), (Status::BadReserved, 11));
    // A response carries `count` bytes; a byte beyond them is refused, so is a count of 0 or over 48.
    let ok = |count: u8, data| Response {
        tag: 5,
        status: Status::Ok,
        bad_offset: None,
        data: ResponseData::Module { count, data },
    };
    let mut data = [0u8; MAX_MODULE_BYTES];
    data[..3].copy_from_slice(&[0x1E, 0x50, 0x06]);
    let mut b = [0u8; CMD_BYTES];
    ok(3, data).emit(Opcode::ReadModule, &mut b).unwrap();
    assert_eq!(b[16..19], [0x1E, 0x50, 0x06]);
    assert_eq!(
        Response::parse(&b, Opcode::ReadModule, 0).unwrap(),
        ok(3, data)
    );
    let mut c = b;
    c[19] = 1;
    assert!(Response::parse(&c, Opcode::ReadModule, 0).is_err());
    let mut c = b;
    c[8] = 0;
    assert!(Response::parse(&c, Opcode::ReadModule, 0).is_err());
    let mut c = b;
    c[8] = 49;
    assert!(Response::parse(&c, Opcode::ReadModule, 0).is_err());
    assert!(ok(0, [0; MAX_MODULE_BYTES])
        .emit(Opcode::ReadModule, &mut [0u8; CMD_BYTES])
        .is_err());
    data[40] = 7;
    assert!(ok(3, data)
        .emit(Opcode::ReadModule, &mut [0u8; CMD_BYTES])
        .is_err());
}
