//! Connection opening, the firmware's half (spec 7.3 and 7.4): the exception packets the core hands over
//! ([`crate::packets`]) that carry an Open extension.
//!
//! Every READY QP has a connection, opened 0-RTT by MODIFY_QP with the peer's CID unknown
//! ([`crate::exec`]); the core finds it for the peer's SYNs at entry `OX.target_qpn` once it is bound
//! (`rx::conn_lookup`). An untrimmed SYN with an Open extension (a SYN DATA packet or a CTRL OPEN) reaches
//! the firmware when the core cannot place it:
//!
//! | QP `OX.target_qpn` | what the firmware does |
//! |---|---|
//! | missing, not READY, or connected to another address | nothing; the packet is counted `refused` (MR-CONN-13) |
//! | peer CID not known yet | binds the connection: its receive direction opens with `rcv_nxt = OX.ISN`, peer CID `OX.SCID`, the peer's window (an `rx_only` commit: the send direction goes on, MR-CONN-16, MR-CONN-17); for SYN DATA it then announces itself (MR-CONN-14) |
//! | peer CID = `OX.SCID` | a repeat (MR-CONN-11: the SYN crossed the binding); a SYN DATA with `DCID = 0` is answered with the announcement again, at most once per [`ANNOUNCE_GAP`] |
//! | another peer CID | a peer restart (MR-CONN-18): not handled by this firmware, counted `restarts` |
//!
//! The announcement is a CTRL OPEN (SYN and the firmware's Open extension: its own CID, window
//! 2^[`WLOG`], the connection's ISN, the peer's QP, the MTU) to the peer's CID, echoing the SYN's TS. The
//! packet that caused a binding is not placed (the core dropped its payload); the initiator retransmits it,
//! and the retransmission reaches the connection.
//!
//! A CTRL OPEN the firmware bound its connection for, or a repeat of it that was queued behind it in the
//! packet port, is handed back to the receive path ([`answered_by_core`]): it now finds a live connection,
//! and the core answers it with the ACK of MR-REL-17 (CACK, the OPEN's TS and UDP source port, ECE if it
//! was CE-marked), which ends the peer's SYN phase (MR-CONN-6). Every other record is released.
//!
//! Not handled yet, counted in `other`: NACK NO_CONTEXT with `DCID = 0` (MR-CONN-34, MR-CONN-35).

use crate::bus::Bus;
use crate::ctx::{commit, OpenParam};
use crate::exec::{MTU_LOG, PATHS, WLOG};
use crate::objects::Qp;
use crate::packets::{self, wire, Open, Packet};
use crate::Firmware;
use metaroce_regmap::command::QpState;
use metaroce_regmap::context::conn::{ConnFlags, ConnHot};
use metaroce_regmap::ctxport::table;
use metaroce_regmap::endpoint;

/// Least time between two announcements of one connection in answer to repeated SYNs, core cycles (about
/// 100 µs at 322 MHz).
pub const ANNOUNCE_GAP: u64 = 32_768;

/// What the firmware did with exception packets, since boot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OpenStats {
    /// Exception packets taken.
    pub exceptions: u32,
    /// Connections bound to their peer.
    pub bound: u32,
    /// CTRL OPENs sent.
    pub announced: u32,
    /// Repeated SYNs of a bound connection.
    pub repeated: u32,
    /// Opening packets refused (MR-CONN-13).
    pub refused: u32,
    /// Peer restarts (MR-CONN-18), not handled.
    pub restarts: u32,
    /// Other exception packets, not handled.
    pub other: u32,
    /// Commits or sends that failed (the port stayed busy).
    pub failed: u32,
    /// Records handed back to the receive path (CTRL OPENs of bound connections, MR-REL-17).
    pub replayed: u32,
}

/// What one exception packet came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Bound QP `qpn`'s connection to its peer; `announced` if a CTRL OPEN went out.
    Bound {
        /// The QP.
        qpn: u32,
        /// A CTRL OPEN was sent.
        announced: bool,
    },
    /// A repeated SYN; `announced` if the CTRL OPEN was sent again.
    Repeated {
        /// The QP.
        qpn: u32,
        /// A CTRL OPEN was sent.
        announced: bool,
    },
    /// Refused (MR-CONN-13).
    Refused,
    /// A peer restart (MR-CONN-18), not handled.
    Restart,
    /// Not an opening packet, not handled.
    Other,
    /// The context port or the transmit path did not answer.
    Failed,
}

/// The record goes back to the receive path instead of being dropped: a CTRL OPEN whose connection is bound
/// to its sender now (`out` is [`Outcome::Bound`] or [`Outcome::Repeated`]). The core answers it with an
/// ACK like any CTRL OPEN of a live connection (MR-REL-17). A SYN DATA packet is never handed back: the core
/// did not keep its payload.
pub fn answered_by_core(p: &Packet, out: &Outcome) -> bool {
    matches!(out, Outcome::Bound { .. } | Outcome::Repeated { .. })
        && p.ptype == wire::CTRL
        && p.code == wire::CTRL_OPEN
}

/// Handles one exception packet, decoded from its record (see the module documentation).
pub fn handle(fw: &mut Firmware, bus: &mut impl Bus, p: &Packet) -> Outcome {
    fw.opens.exceptions += 1;
    let opening = p.is_open_syn()
        && (p.ptype == wire::DATA || (p.ptype == wire::CTRL && p.code == wire::CTRL_OPEN));
    let ox = match p.open {
        Some(ox) if opening => ox,
        _ => {
            fw.opens.other += 1;
            return Outcome::Other;
        }
    };
    let qpn = ox.target_qpn;
    let mut qp = match fw.objects.qp(qpn) {
        Some(q)
            if q.state == QpState::Ready
                && q.connected
                && q.remote_v6 == p.ipv6
                && q.remote_ip == p.peer_ip =>
        {
            *q
        }
        _ => {
            fw.opens.refused += 1;
            return Outcome::Refused;
        }
    };
    let outcome = if qp.peer_cid == 0 {
        if bind(fw, bus, qpn, &qp, &ox).is_err() {
            fw.opens.failed += 1;
            return Outcome::Failed;
        }
        qp.peer_cid = ox.scid;
        qp.peer_isn = ox.isn;
        fw.opens.bound += 1;
        let announced = p.ptype == wire::DATA && announce(fw, bus, &mut qp, p.ts);
        Outcome::Bound { qpn, announced }
    } else if qp.peer_cid == ox.scid {
        fw.opens.repeated += 1;
        let due = qp.announced == 0 || bus.now().wrapping_sub(qp.announced) >= ANNOUNCE_GAP;
        let announced =
            p.ptype == wire::DATA && p.dcid == 0 && due && announce(fw, bus, &mut qp, p.ts);
        Outcome::Repeated { qpn, announced }
    } else {
        fw.opens.restarts += 1;
        return Outcome::Restart;
    };
    fw.objects.set_qp(qpn, qp);
    outcome
}

/// Opens the receive direction of QP `qpn`'s connection towards the peer of `ox` (an `rx_only` commit).
fn bind(
    fw: &Firmware,
    bus: &mut impl Bus,
    qpn: u32,
    qp: &Qp,
    ox: &Open,
) -> Result<(), crate::ctx::PortHung> {
    let max_wlog = fw.caps.max_wlog.max(WLOG);
    let hot = ConnHot::opening(
        qp.cid,
        ox.scid,
        ConnFlags::RCV_INIT,
        (WLOG, ox.wlog.clamp(WLOG, max_wlog)),
        qp.isn,
        ox.isn,
    );
    let mut e = [0u8; 64];
    // The hot state of an opening connection always encodes.
    let _ = hot.emit(&mut e);
    let open = OpenParam {
        mtu_log: MTU_LOG.min(fw.caps.max_mtu_log),
        paths: PATHS.min(fw.caps.max_paths),
        rx_only: true,
        seed: 0,
    };
    commit(bus, table::CONN, qpn as u16, &e, Some(open))
}

/// Sends QP `qpn`'s CTRL OPEN to its peer (MR-CONN-14), echoing `echo_ts`. False if the transmit path did not
/// take it.
fn announce(fw: &mut Firmware, bus: &mut impl Bus, qp: &mut Qp, echo_ts: u32) -> bool {
    let dscp = crate::cc::endpoint_base().map_or(0, |b| {
        endpoint::field::DSCP_CTRL.extract(bus.reg_read(b + endpoint::reg::DSCP)) as u8
    });
    let p = Packet {
        ptype: wire::CTRL,
        flags: wire::SYN,
        dcid: qp.peer_cid,
        psn: qp.isn,
        ts: 0,
        scid: qp.cid,
        code: wire::CTRL_OPEN,
        echo_ts,
        aux: 0,
        ev: (fw.random() & 0x3FFF) as u16,
        dscp,
        ecn: wire::ECT0,
        peer_mac: qp.remote_mac,
        peer_ip: qp.remote_ip,
        ipv6: qp.remote_v6,
        trimmed: false,
        open: Some(Open {
            scid: qp.cid,
            wlog: WLOG,
            isn: qp.isn,
            target_qpn: qp.remote_qpn,
            mtu_log: MTU_LOG.min(fw.caps.max_mtu_log),
        }),
    };
    if packets::send(bus, &p.to_record()).is_err() {
        fw.opens.failed += 1;
        return false;
    }
    // 0 means "never announced".
    qp.announced = bus.now().max(1);
    fw.opens.announced += 1;
    true
}
