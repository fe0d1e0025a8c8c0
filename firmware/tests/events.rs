//! QP errors, the port's status and the event queue against a model of the register space: what the firmware
//! commits for a QP the core moved to ERROR, the events it queues and raises, and what READ_EVENTS returns.

mod common;

use common::{caps, exec, two_qps, RegSpace};
use metaroce_firmware::events::QUEUE;
use metaroce_firmware::qp_errors::Outcome;
use metaroce_firmware::Firmware;
use metaroce_regmap::command::{
    Command, Event, EventType, Events, ModifyQp, QpState, Remote, Request, ResponseData, Status,
    MAX_EVENTS_PER_READ,
};
use metaroce_regmap::ctxport::table;
use metaroce_regmap::descriptor::cqe::CqeStatus;
use metaroce_regmap::fwbus::{evt, PortStatus};
use std::net::{IpAddr, Ipv4Addr};

const UP: u32 = PortStatus::LINK_UP.0 as u32 | PortStatus::MODULE_PRESENT.0 as u32;

/// A booted firmware (port up) with QP `a` READY and QP `b` in INIT.
fn setup() -> (Firmware, RegSpace, u32, u32) {
    let mut regs = RegSpace::new(&caps());
    regs.port = UP;
    let (fw, a, b) = two_qps(
        &mut regs,
        Remote {
            qpn: 7,
            mac: [2, 0, 0, 0, 0, 0xB],
            ip: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)),
        },
    );
    (fw, regs, a, b)
}

fn report(conn: u32, status: CqeStatus, msn: Option<u32>) -> (u32, u32) {
    let info = conn | (status as u32) << 16 | if msn.is_some() { evt::INFO_HAS_MSN } else { 0 };
    (info, msn.unwrap_or(0))
}

fn read_events(fw: &mut Firmware, regs: &mut RegSpace) -> Events {
    match exec(fw, regs, Command::ReadEvents) {
        ResponseData::Events(e) => e,
        d => panic!("READ_EVENTS answered {d:?}"),
    }
}

fn device(fw: &mut Firmware, regs: &mut RegSpace) -> metaroce_regmap::command::DeviceInfo {
    match exec(fw, regs, Command::QueryDevice) {
        ResponseData::Device(d) => d,
        d => panic!("QUERY_DEVICE answered {d:?}"),
    }
}

#[test]
fn a_qp_error_closes_the_connection_and_is_reported_once() {
    let (mut fw, mut regs, a, _) = setup();
    let before = device(&mut fw, &mut regs);
    let commits = regs.commits.len();
    regs.qperr
        .push_back(report(a, CqeStatus::RemoteAccess, Some(3)));
    let out = fw.poll_errors(&mut regs).expect("a report was held");
    assert_eq!(
        out,
        Outcome::Reported {
            qpn: a,
            closed: true
        }
    );
    assert!(regs.qperr.is_empty(), "the report was released");
    // One commit: the connection closed. The QP's entry keeps the hardware's ring state.
    let new = &regs.commits[commits..];
    assert_eq!(new.len(), 1, "{new:?}");
    assert_eq!((new[0].table, new[0].index), (table::CONN, a as u16));
    assert_eq!(new[0].entry, [0u8; 64]);
    assert_eq!(fw.objects().qp(a).unwrap().state, QpState::Error);
    assert_eq!(regs.raised, 1, "the host's interrupt was raised");
    assert_eq!(regs.flushes, vec![a], "the QP's receive queue flushed");
    assert_eq!(fw.poll_errors(&mut regs), None);

    let ev = read_events(&mut fw, &mut regs);
    assert_eq!((ev.count, ev.pending, ev.lost), (1, 0, 0));
    assert_eq!(
        ev.events[0],
        Some(Event {
            kind: EventType::QpError,
            status: CqeStatus::RemoteAccess as u8,
            has_msn: true,
            qpn: a,
            msn: 3,
        })
    );
    assert_eq!(read_events(&mut fw, &mut regs).count, 0, "taken once");
    let ResponseData::QpInfo(q) = exec(&mut fw, &mut regs, Command::QueryQp { qpn: a }) else {
        panic!("no QP info")
    };
    assert_eq!(
        (q.state, q.cid),
        (QpState::Error, 0),
        "in ERROR, its connection closed"
    );
    assert_eq!(q.remote.map(|r| r.qpn), Some(7), "the remote QP is kept");
    let after = device(&mut fw, &mut regs);
    assert_eq!(after.qp_errors, before.qp_errors + 1);
    assert_eq!(after.free_conns, before.free_conns + 1);
    assert_eq!(after.port, UP as u8);

    // ERROR may only go to RESET; that writes the QP entry and closes nothing more.
    regs.submit(&Request {
        tag: 9,
        command: Command::ModifyQp(ModifyQp {
            qpn: a,
            state: QpState::Ready,
            remote: None,
        }),
    });
    fw.serve(&mut regs);
    assert_ne!(
        regs.response(metaroce_regmap::command::Opcode::ModifyQp, 0)
            .1
            .status,
        Status::Ok
    );
    let commits = regs.commits.len();
    exec(
        &mut fw,
        &mut regs,
        Command::ModifyQp(ModifyQp {
            qpn: a,
            state: QpState::Reset,
            remote: None,
        }),
    );
    let new = &regs.commits[commits..];
    assert_eq!(new.len(), 1, "{new:?}");
    assert_eq!(new[0].table, table::QP);
    assert_eq!(device(&mut fw, &mut regs).free_conns, after.free_conns);
}

#[test]
fn a_flush_without_a_failing_wr_reports_no_msn() {
    let (mut fw, mut regs, a, _) = setup();
    regs.qperr
        .push_back((report(a, CqeStatus::Flushed, None).0, 0xDEAD));
    fw.poll_errors(&mut regs).expect("a report was held");
    let ev = read_events(&mut fw, &mut regs).events[0].unwrap();
    assert_eq!(
        (ev.has_msn, ev.msn, ev.status),
        (false, 0, CqeStatus::Flushed as u8)
    );
}

#[test]
fn reports_no_live_qp_owns_are_stray_and_change_nothing() {
    let (mut fw, mut regs, a, b) = setup();
    let commits = regs.commits.len();
    // b is in INIT (no connection), 0 is never a QP, 300 is beyond every QP created.
    for conn in [b, 0, 300] {
        regs.qperr
            .push_back(report(conn, CqeStatus::RetryExceeded, None));
        assert_eq!(
            fw.poll_errors(&mut regs),
            Some(Outcome::Stray),
            "conn {conn}"
        );
    }
    // A second report of a QP already in ERROR (its connection closed) is stray too.
    regs.qperr
        .push_back(report(a, CqeStatus::RetryExceeded, None));
    assert!(matches!(
        fw.poll_errors(&mut regs),
        Some(Outcome::Reported { .. })
    ));
    regs.qperr
        .push_back(report(a, CqeStatus::RetryExceeded, None));
    assert_eq!(fw.poll_errors(&mut regs), Some(Outcome::Stray));
    assert_eq!(regs.commits.len(), commits + 1);
    assert_eq!(fw.error_stats().stray, 4);
    assert_eq!(fw.error_stats().reported, 1);
    assert_eq!(read_events(&mut fw, &mut regs).count, 1);
    assert_eq!(fw.objects().qp(b).unwrap().state, QpState::Init);
}

#[test]
fn a_hung_context_port_still_reports_the_error() {
    let (mut fw, mut regs, a, _) = setup();
    regs.faults.port_hangs = true;
    regs.reg_busy_for_test();
    regs.qperr
        .push_back(report(a, CqeStatus::RetryExceeded, None));
    let out = fw.poll_errors(&mut regs).expect("a report was held");
    assert_eq!(
        out,
        Outcome::Reported {
            qpn: a,
            closed: false
        }
    );
    assert_eq!(fw.error_stats().failed, 1);
    assert_eq!(fw.objects().qp(a).unwrap().state, QpState::Error);
    assert_eq!(fw.events().len(), 1);
}

#[test]
fn the_sweep_flushes_the_receive_queue_of_each_qp_in_error_until_it_is_reset() {
    let (mut fw, mut regs, a, b) = setup();
    let max = fw.limits().max_qps as usize;
    // Nothing in ERROR: a whole round of the sweep asks for nothing.
    for _ in 0..max {
        assert_eq!(fw.poll_flush(&mut regs), None);
    }
    assert!(regs.flushes.is_empty());
    regs.qperr
        .push_back(report(a, CqeStatus::RetryExceeded, None));
    fw.poll_errors(&mut regs).expect("a report was held");
    assert_eq!(regs.flushes, vec![a], "flushed at the error");
    // Two rounds: QP a (in ERROR) asked for once per round, QP b (INIT) never.
    let asked: Vec<u32> = (0..2 * max)
        .filter_map(|_| fw.poll_flush(&mut regs))
        .collect();
    assert_eq!(asked, vec![a, a]);
    assert_eq!(regs.flushes, vec![a, a, a]);
    assert_eq!(fw.error_stats().flushes, 3);
    // A receive queue that does not take the request: the sweep never waits for it.
    regs.faults.flush_hangs = true;
    let polls = regs.status_reads;
    assert!((0..max).all(|_| fw.poll_flush(&mut regs).is_none()));
    assert_eq!(
        regs.status_reads - polls,
        1,
        "one look at QPERR_STATUS for the QP in ERROR"
    );
    regs.faults.flush_hangs = false;
    // Moved to RESET: no longer flushed.
    let reset = ModifyQp {
        qpn: a,
        state: QpState::Reset,
        remote: None,
    };
    exec(&mut fw, &mut regs, Command::ModifyQp(reset));
    assert!((0..2 * max).all(|_| fw.poll_flush(&mut regs).is_none()));
    assert_eq!(regs.flushes.len(), 3);
    assert_eq!(fw.objects().qp(b).unwrap().state, QpState::Init);
}

#[test]
fn a_flush_request_the_core_does_not_take_is_counted_and_the_error_still_reported() {
    let (mut fw, mut regs, a, _) = setup();
    regs.faults.flush_hangs = true;
    regs.qperr
        .push_back(report(a, CqeStatus::RetryExceeded, None));
    fw.poll_errors(&mut regs).expect("a report was held");
    assert_eq!(fw.error_stats().flush_hung, 1);
    assert!(regs.flushes.is_empty());
    assert_eq!(fw.objects().qp(a).unwrap().state, QpState::Error);
    assert_eq!(fw.events().len(), 1, "the QP_ERROR event is queued");
}

#[test]
fn the_module_interrupt_is_read_at_most_once_per_gap_and_is_no_port_change() {
    let (mut fw, mut regs, _, _) = setup();
    assert_eq!(fw.poll_port(&mut regs), None);
    assert_eq!(fw.poll_module(&mut regs), None, "no interrupt, no read");
    assert_eq!(regs.i2c_writes, 0);
    // The interrupt asserted, with nothing on the bus but its pull-ups: the read fails (no event), counted.
    regs.port = UP | PortStatus::MODULE_INT.0 as u32;
    assert_eq!(
        fw.poll_port(&mut regs),
        None,
        "the interrupt is no port change"
    );
    assert_eq!(fw.poll_module(&mut regs), None);
    assert!(regs.i2c_writes > 9, "the module was addressed");
    assert_eq!(fw.module_stats().errors, 1);
    // Within the gap the bus is left alone; after it the firmware reads again.
    let writes = regs.i2c_writes;
    assert_eq!(fw.poll_module(&mut regs), None);
    assert_eq!(regs.i2c_writes, writes, "no read within the gap");
    regs.time += metaroce_firmware::port::ALARM_GAP;
    assert_eq!(fw.poll_module(&mut regs), None);
    assert!(regs.i2c_writes > writes, "read again after the gap");
    assert_eq!(fw.module_stats().errors, 2);
    assert_eq!(fw.module_stats().alarms, 0);
    assert_eq!(fw.events().len(), 0, "a failed read is no event");
    // Without a module present the interrupt bit is ignored.
    regs.port = PortStatus::LINK_UP.0 as u32 | PortStatus::MODULE_INT.0 as u32;
    regs.time += metaroce_firmware::port::ALARM_GAP;
    let writes = regs.i2c_writes;
    assert_eq!(fw.poll_module(&mut regs), None);
    assert_eq!(regs.i2c_writes, writes);
}

#[test]
fn nothing_is_taken_before_boot() {
    let mut regs = RegSpace::new(&caps());
    regs.qperr
        .push_back(report(1, CqeStatus::RetryExceeded, None));
    regs.port = UP;
    let mut fw = Firmware::new();
    assert_eq!(fw.poll_errors(&mut regs), None);
    assert_eq!(fw.poll_port(&mut regs), None);
    assert_eq!(fw.poll_flush(&mut regs), None);
    regs.port = UP | PortStatus::MODULE_INT.0 as u32;
    assert_eq!(fw.poll_module(&mut regs), None);
    assert_eq!(regs.i2c_writes, 0, "the module is not read");
    assert_eq!(regs.qperr.len(), 1, "the report stays held");
    assert_eq!(regs.raised, 0);
}

#[test]
fn port_changes_are_events_and_query_device_shows_the_status() {
    let (mut fw, mut regs, _, _) = setup();
    assert_eq!(
        fw.poll_port(&mut regs),
        None,
        "the status at boot is no change"
    );
    assert_eq!(device(&mut fw, &mut regs).port, UP as u8);
    regs.port = PortStatus::MODULE_PRESENT.0 as u32 | 0xF0; // undefined bits are not status
    assert_eq!(fw.poll_port(&mut regs), Some(PortStatus::MODULE_PRESENT));
    assert_eq!(fw.poll_port(&mut regs), None);
    regs.port = UP;
    assert_eq!(fw.poll_port(&mut regs), Some(PortStatus(UP as u8)));
    let ev = read_events(&mut fw, &mut regs);
    assert_eq!(ev.count, 2);
    let kinds: Vec<_> = ev.events[..2]
        .iter()
        .map(|e| e.map(|e| (e.kind, e.status, e.qpn)))
        .collect();
    assert_eq!(
        kinds,
        [
            Some((EventType::PortChange, PortStatus::MODULE_PRESENT.0, 0)),
            Some((EventType::PortChange, UP as u8, 0))
        ]
    );
    assert_eq!(regs.raised, 2);
}

#[test]
fn a_full_queue_counts_what_it_drops_and_keeps_the_order() {
    let (mut fw, mut regs, _, _) = setup();
    let changes = QUEUE + 5;
    for i in 0..changes {
        regs.port = if i % 2 == 0 { 0 } else { UP };
        assert!(fw.poll_port(&mut regs).is_some());
    }
    assert_eq!(
        regs.raised as usize, changes,
        "every event raises, kept or not"
    );
    let mut got = Vec::new();
    loop {
        let ev = read_events(&mut fw, &mut regs);
        assert_eq!(ev.lost, 5);
        assert!(ev.count as usize <= MAX_EVENTS_PER_READ);
        assert_eq!(ev.pending as usize, QUEUE - got.len() - ev.count as usize);
        if ev.count == 0 {
            break;
        }
        got.extend(ev.events.iter().flatten().map(|e| e.status));
    }
    let want: Vec<u8> = (0..QUEUE)
        .map(|i| if i % 2 == 0 { 0 } else { UP as u8 })
        .collect();
    assert_eq!(got, want, "the oldest are kept, in order");
}

#[test]
fn a_host_move_to_error_asks_the_core_and_the_report_confirms_it() {
    let (mut fw, mut regs, a, b) = setup();
    let commits = regs.commits.len();
    exec(
        &mut fw,
        &mut regs,
        Command::ModifyQp(ModifyQp {
            qpn: a,
            state: QpState::Error,
            remote: None,
        }),
    );
    assert_eq!(regs.fails, [a], "the core was asked to fail the QP");
    assert_eq!(
        regs.commits.len(),
        commits,
        "nothing committed: the entry stays the hardware's"
    );
    assert_eq!(fw.objects().qp(a).unwrap().state, QpState::Error);
    assert!(
        fw.events().is_empty(),
        "the event waits for the core's report"
    );
    // The core flushes and reports; the firmware closes the connection and tells the host.
    regs.qperr.push_back(report(a, CqeStatus::Flushed, None));
    assert_eq!(
        fw.poll_errors(&mut regs),
        Some(Outcome::Reported {
            qpn: a,
            closed: true
        })
    );
    let ev = read_events(&mut fw, &mut regs).events[0].unwrap();
    assert_eq!(
        (ev.kind, ev.qpn, ev.status),
        (EventType::QpError, a, CqeStatus::Flushed as u8)
    );
    // A QP in INIT has nothing in flight: its entry is written ERROR, the core is not asked.
    exec(
        &mut fw,
        &mut regs,
        Command::ModifyQp(ModifyQp {
            qpn: b,
            state: QpState::Error,
            remote: None,
        }),
    );
    assert_eq!(regs.fails, [a]);
    assert_eq!(regs.commits.last().unwrap().table, table::QP);
}

#[test]
fn a_reset_before_the_report_makes_the_report_stray() {
    let (mut fw, mut regs, a, _) = setup();
    let before = device(&mut fw, &mut regs).free_conns;
    for state in [QpState::Error, QpState::Reset] {
        exec(
            &mut fw,
            &mut regs,
            Command::ModifyQp(ModifyQp {
                qpn: a,
                state,
                remote: None,
            }),
        );
    }
    assert_eq!(
        device(&mut fw, &mut regs).free_conns,
        before + 1,
        "RESET closed it"
    );
    regs.qperr.push_back(report(a, CqeStatus::Flushed, None));
    assert_eq!(fw.poll_errors(&mut regs), Some(Outcome::Stray));
    assert_eq!(
        device(&mut fw, &mut regs).free_conns,
        before + 1,
        "closed once"
    );
}

#[test]
fn a_scheduler_that_never_takes_the_request_gives_internal() {
    let (mut fw, mut regs, a, _) = setup();
    regs.faults.fail_hangs = true;
    regs.submit(&Request {
        tag: 4,
        command: Command::ModifyQp(ModifyQp {
            qpn: a,
            state: QpState::Error,
            remote: None,
        }),
    });
    fw.serve(&mut regs).expect("served");
    let (_, r) = regs.response(metaroce_regmap::command::Opcode::ModifyQp, 0);
    assert_eq!(r.status, Status::Internal);
    assert_eq!(
        fw.objects().qp(a).unwrap().state,
        QpState::Ready,
        "nothing changed"
    );
}
