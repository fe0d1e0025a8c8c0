//! QP errors, the firmware's half of MR-SEM-38: the transmit scheduler reports each QP it moved to ERROR on the
//! event port ([`metaroce_regmap::fwbus::evt`]) after it has stopped the connection's sender and flushed the send
//! queue (the failing WR completes with its status, every other one `Flushed`; later WRs complete `Flushed` at
//! once). The firmware then:
//!
//! 1. records the QP as ERROR (MODIFY_QP may then only move it to RESET, Table 7.10). The QP's context entry
//!    is left as it is: its ring state stays the hardware's, so WRs the host posts later are still fetched
//!    and completed `Flushed`;
//! 2. closes the QP's connection (its context entry is written CLOSED): the receive path no longer places
//!    anything for it, and the peer's DATA is answered NACK NO_CONTEXT (MR-CONN-32), as for any unknown
//!    connection;
//! 3. asks the core to flush the QP's receive queue (`RQ_FLUSH`, [`request_rq_flush`]): every receive WR
//!    posted and not consumed completes `Flushed` into the QP's receive CQ, in ring order, after the receive
//!    completions the core made before;
//! 4. reports a QP_ERROR event ([`crate::events`]) with the QP, the status and the failing WR's MSN.
//!
//! Receive WRs the host posts while the QP is in ERROR are flushed too: the service loop asks for the flush of
//! one QP in ERROR per turn, going round the QP table ([`sweep`]), until the host moves the QP to RESET.
//!
//! A host's MODIFY_QP from READY to ERROR goes the same way: the firmware asks the core to fail the QP
//! ([`request_fail`], status `Flushed`), records the QP as ERROR and answers; the core flushes the send queue and
//! reports the QP, and the steps above follow, so the QP_ERROR event (status `Flushed`) confirms the flush.
//!
//! A report of a connection no QP owns (the QP was destroyed or reset after the error, before the report was
//! taken) is counted `stray` and dropped.

use crate::bus::Bus;
use crate::ctx::commit;
use crate::Firmware;
use metaroce_regmap::command::{Event, EventType, QpState};
use metaroce_regmap::ctxport::table;
use metaroce_regmap::fwbus::{evt, EVT_BASE};

/// One QP error report of the core (`QPERR_INFO`, `QPERR_MSN`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Report {
    /// The connection (index).
    pub conn: u16,
    /// The failing WR's completion status (`CqeStatus`).
    pub status: u8,
    /// A started WR failed with `status` (else every WR completed `Flushed`).
    pub has_msn: bool,
    /// The failing WR's MSN.
    pub msn: u32,
}

impl Report {
    /// Decodes `QPERR_INFO` and `QPERR_MSN`.
    pub const fn from_words(info: u32, msn: u32) -> Report {
        Report {
            conn: info as u16,
            status: (info >> 16) as u8,
            has_msn: info & evt::INFO_HAS_MSN != 0,
            msn,
        }
    }
}

/// What the firmware did with QP error reports, since boot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ErrorStats {
    /// QPs moved to ERROR and reported to the host.
    pub reported: u32,
    /// Reports of a connection no QP owns.
    pub stray: u32,
    /// Connection closes that failed (the context port stayed busy); the event was still reported.
    pub failed: u32,
    /// RQ flush requests the core took (the first of each error and the sweep's repeats).
    pub flushes: u32,
    /// RQ flush requests the core did not take in time (the sweep asks again).
    pub flush_hung: u32,
}

/// What one report came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// QP `qpn` is in ERROR, its connection closed and the host told; `closed` false if the close failed.
    Reported {
        /// The QP.
        qpn: u32,
        /// The connection's entry was written CLOSED.
        closed: bool,
    },
    /// No QP owns the connection.
    Stray,
}

/// Polls of `QPERR_STATUS` before a fail request the scheduler does not take is declared hung.
pub const FAIL_POLLS: u32 = 10_000;

/// The core did not take a fail request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FailHung;

/// Asks the core to fail the QP of connection `conn` (`QP_FAIL`), after the previous request was taken.
pub fn request_fail(bus: &mut impl Bus, conn: u16) -> Result<(), FailHung> {
    for _ in 0..FAIL_POLLS {
        if bus.read(EVT_BASE + evt::QPERR_STATUS) & evt::STATUS_FAIL_PENDING == 0 {
            bus.write(EVT_BASE + evt::QP_FAIL, u32::from(conn));
            return Ok(());
        }
    }
    Err(FailHung)
}

/// Asks the core to flush the receive queue of QP `qpn` (`RQ_FLUSH`), once the previous request was taken.
pub fn request_rq_flush(bus: &mut impl Bus, qpn: u32) -> Result<(), FailHung> {
    for _ in 0..FAIL_POLLS {
        if bus.read(EVT_BASE + evt::QPERR_STATUS) & evt::STATUS_FLUSH_PENDING == 0 {
            bus.write(EVT_BASE + evt::RQ_FLUSH, qpn);
            return Ok(());
        }
    }
    Err(FailHung)
}

/// One step of the flush sweep: looks at QP `cursor` and, if it is in ERROR and no flush request is pending,
/// asks for its RQ flush. Returns the QP asked for, if any. Never waits.
pub fn sweep(fw: &mut Firmware, bus: &mut impl Bus, cursor: u32) -> Option<u32> {
    let qp = fw.objects.qp(cursor)?;
    if qp.state != QpState::Error
        || bus.read(EVT_BASE + evt::QPERR_STATUS) & evt::STATUS_FLUSH_PENDING != 0
    {
        return None;
    }
    bus.write(EVT_BASE + evt::RQ_FLUSH, cursor);
    fw.errors.flushes += 1;
    Some(cursor)
}

/// Takes the held report, if any, and releases it.
pub fn take(bus: &mut impl Bus) -> Option<Report> {
    if bus.read(EVT_BASE + evt::QPERR_STATUS) & evt::STATUS_HELD == 0 {
        return None;
    }
    let info = bus.read(EVT_BASE + evt::QPERR_INFO);
    let msn = bus.read(EVT_BASE + evt::QPERR_MSN);
    bus.write(EVT_BASE + evt::QPERR_POP, 1);
    Some(Report::from_words(info, msn))
}

/// Handles one report (see the module documentation).
pub fn handle(fw: &mut Firmware, bus: &mut impl Bus, r: &Report) -> Outcome {
    // QP n owns connection n (crate::exec).
    let qpn = u32::from(r.conn);
    let mut qp = match fw.objects.qp(qpn) {
        Some(q) if r.conn != 0 && q.conn == r.conn && q.state != QpState::Reset => *q,
        _ => {
            fw.errors.stray += 1;
            return Outcome::Stray;
        }
    };
    let closed = commit(bus, table::CONN, r.conn, &[0u8; 64], None).is_ok();
    if closed {
        fw.objects.conns = fw.objects.conns.saturating_sub(1);
        qp.conn = 0;
        qp.cid = 0;
    } else {
        fw.errors.failed += 1;
    }
    qp.state = QpState::Error;
    fw.objects.set_qp(qpn, qp);
    fw.errors.reported += 1;
    match request_rq_flush(bus, qpn) {
        Ok(()) => fw.errors.flushes += 1,
        Err(FailHung) => fw.errors.flush_hung += 1,
    }
    fw.events.push(
        bus,
        Event {
            kind: EventType::QpError,
            status: r.status,
            has_msn: r.has_msn,
            qpn,
            msn: if r.has_msn { r.msn } else { 0 },
        },
    );
    Outcome::Reported { qpn, closed }
}
