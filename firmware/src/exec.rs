//! Command execution: the checks that need the device's state, then the context entries that carry the
//! command out. [`Request::parse`](metaroce_regmap::command::Request::parse) has already checked the format and
//! every range; a command refused here changes nothing (no table is written, no record changes).
//!
//! What each command writes (context tables of [`metaroce_regmap::ctxport::table`]):
//!
//! | command | entries | notes |
//! |---|---|---|
//! | CREATE_CQ | CQ `cqn` | the lowest free CQN |
//! | MODIFY_CQ | none | moderation is recorded; the hardware has no interrupt moderation, and rewriting a live CQ's entry would reset its indices |
//! | DESTROY_CQ | CQ `cqn` zeroed (`log_size` 0: not in use) | refused (BAD_STATE) while a QP completes into it |
//! | CREATE_QP | QP `qpn` in INIT (Table 7.10: created through RESET into INIT) | the lowest free QPN; both CQs must exist |
//! | MODIFY_QP | QP `qpn`; to READY also connection `qpn`, opened 0-RTT (MR-CONN-7) with a random ISN and EV-set seed; READY to ERROR nothing: the core is asked to fail the QP ([`crate::qp_errors`]); to RESET the connection is closed | transitions of [`QpState::modify_allowed`]; the entry of a live QP keeps the device's RQ indices (`rq_keep`), so receives posted in INIT stay posted; RESET clears the rings |
//! | DESTROY_QP | QP `qpn` zeroed, its connection closed | the host completes its outstanding WRs as FLUSHED |
//! | QUERY_QP | none | the firmware's record of the QP: state, remote QP, connection, CIDs and ISNs |
//! | CREATE_MR | MR slot | `lkey = slot << 8 | generation`; `rkey` = `lkey` with random bits above the device's slot bits (MR-SEM-5, MR-SEM-6) |
//! | MODIFY_MR | MR slot with the new rights | the key must be live |
//! | DESTROY_MR | MR slot invalid | the slot's generation advances, so its keys name nothing (MR-SEM-7) |
//! | READ_COUNTERS | none | one snapshot of the counter block |
//! | QUERY_DEVICE | none | free QPs, CQs, MR slots and connections; what the firmware did with exception packets ([`crate::responder`]); the port's status ([`crate::port`]); QPs moved to ERROR ([`crate::qp_errors`]) |
//! | READ_EVENTS | none | takes up to four queued events ([`crate::events`]) |
//! | SET_CC | none: the endpoint block's RTO, rate, RTT, retry and ACK registers | read back; a register that does not hold its value gives INTERNAL ([`crate::cc`]) |
//! | QUERY_CC | none | the endpoint block's parameters |
//! | READ_MODULE | none | the transceiver module's bytes over its management bus ([`crate::module`]): BAD_STATE without a module, DEVICE_ERROR when it does not answer |
//!
//! A connection's index is its QP's number, so the firmware needs no connection allocator (the device's
//! connection table, `max_conns`, is larger than the QPs the firmware serves); its own CID carries the slot's
//! generation above the index ([`crate::objects::Objects::next_cid`], MR-CONN-2), so a QP's next connection has
//! a new CID and a stale packet of the previous one is not taken for it.

use crate::bus::Bus;
use crate::ctx::{commit, OpenParam};
use crate::module::ModuleError;
use crate::objects::{Cq, Mr, Qp, MRS};
use crate::{Firmware, FW_VERSION};
use metaroce_regmap::block::{BlockType, DEFAULT_MAP};
use metaroce_regmap::command::{
    arg, CmdError, Command, CreateCq, CreateMr, CreateQp, DeviceInfo, ModifyQp, QpInfo, QpState,
    Request, Response, ResponseData, Status, MAX_COUNTERS_PER_READ, MAX_MODULE_BYTES,
};
use metaroce_regmap::context::conn::{ConnFlags, ConnHot};
use metaroce_regmap::context::mr::{key_slot, MrAccess, MrContext};
use metaroce_regmap::context::qp::{QpContext, QpRemote};
use metaroce_regmap::counters;
use metaroce_regmap::ctxport::table;
use metaroce_regmap::field::Field;

/// The window size, log2, of a connection the firmware opens (both directions until the peer's Open extension
/// says otherwise; MR-REL-7's 256 packets).
pub const WLOG: u8 = 8;
/// Largest EV set the firmware gives a connection.
pub const PATHS: u8 = 16;
/// log2 of the path MTU of the connections the firmware opens (4 KiB).
pub const MTU_LOG: u8 = 12;

fn refuse(status: Status, f: &Field) -> CmdError {
    CmdError {
        status,
        offset: f.byte as u16,
        field: f.name,
    }
}

fn internal() -> CmdError {
    CmdError {
        status: Status::Internal,
        offset: 0,
        field: "device",
    }
}

fn ok(tag: u16, data: ResponseData) -> Response {
    Response {
        tag,
        status: Status::Ok,
        bad_offset: None,
        data,
    }
}

/// Executes a validated request. Never panics; a refusal is an error response with the offending field.
pub fn execute(fw: &mut Firmware, bus: &mut impl Bus, req: &Request) -> Response {
    let r = match req.command {
        Command::QueryDevice => Ok(query(fw, bus)),
        Command::CreateCq(c) => create_cq(fw, bus, &c),
        Command::ModifyCq { cqn, moderation } => match fw.objects.cq_mut(cqn) {
            Some(cq) => {
                cq.moderation = moderation;
                Ok(ResponseData::None)
            }
            None => Err(refuse(Status::BadHandle, &arg::CQN)),
        },
        Command::DestroyCq { cqn } => destroy_cq(fw, bus, cqn),
        Command::CreateQp(c) => create_qp(fw, bus, &c),
        Command::ModifyQp(m) => modify_qp(fw, bus, &m),
        Command::DestroyQp { qpn } => destroy_qp(fw, bus, qpn),
        Command::QueryQp { qpn } => fw
            .objects
            .qp(qpn)
            .map(|q| {
                ResponseData::QpInfo(QpInfo {
                    qpn,
                    state: q.state,
                    remote: q.remote(),
                    cid: q.cid,
                    peer_cid: q.peer_cid,
                    isn: q.isn,
                    peer_isn: q.peer_isn,
                })
            })
            .ok_or(refuse(Status::BadHandle, &arg::QPN)),
        Command::CreateMr(c) => create_mr(fw, bus, &c),
        Command::ModifyMr { lkey, access } => modify_mr(fw, bus, lkey, access),
        Command::DestroyMr { lkey } => destroy_mr(fw, bus, lkey),
        Command::ReadCounters { first, count } => Ok(read_counters(bus, first, count)),
        Command::ReadEvents => Ok(ResponseData::Events(fw.events.take())),
        Command::SetCc(c) => crate::cc::set(bus, &c)
            .map(|_| ResponseData::None)
            .map_err(|_| internal()),
        Command::QueryCc => crate::cc::query(bus)
            .map(ResponseData::Cc)
            .ok_or(internal()),
        Command::ReadModule {
            page,
            offset,
            length,
        } => read_module(bus, page, offset, length),
    };
    match r {
        Ok(data) => ok(req.tag, data),
        Err(e) => Response::error(req.tag, e),
    }
}

/// READ_MODULE: the bytes, or BAD_STATE without a module and DEVICE_ERROR when it does not answer
/// ([`crate::module`]).
fn read_module(
    bus: &mut impl Bus,
    page: u8,
    offset: u8,
    length: u8,
) -> Result<ResponseData, CmdError> {
    let mut data = [0u8; MAX_MODULE_BYTES];
    let dev = |status| CmdError {
        status,
        offset: 0,
        field: "module",
    };
    match crate::module::read(bus, page, offset, &mut data[..length as usize]) {
        Ok(()) => Ok(ResponseData::Module {
            count: length,
            data,
        }),
        Err(ModuleError::Absent) => Err(dev(Status::BadState)),
        Err(ModuleError::Range) => Err(refuse(Status::BadParam, &arg::MOD_LENGTH)),
        Err(_) => Err(dev(Status::DeviceError)),
    }
}

fn query(fw: &Firmware, bus: &mut impl Bus) -> ResponseData {
    let (free_qps, free_cqs, free_mrs) = fw.objects.free(&fw.limits);
    let o = &fw.opens;
    ResponseData::Device(DeviceInfo {
        fw_version: FW_VERSION,
        free_qps,
        free_cqs,
        free_mrs,
        free_conns: fw.caps.max_conns.saturating_sub(fw.objects.conns),
        exceptions: o.exceptions,
        bound: o.bound,
        announced: o.announced,
        refused: o.refused + o.restarts + o.other,
        exc_lost: crate::packets::lost(bus),
        port: fw.port.0,
        qp_errors: fw.errors.reported,
        replayed: fw.opens.replayed,
    })
}

fn create_cq(
    fw: &mut Firmware,
    bus: &mut impl Bus,
    c: &CreateCq,
) -> Result<ResponseData, CmdError> {
    let cqn = fw
        .objects
        .free_cqn(fw.limits.max_cqs)
        .ok_or(refuse(Status::NoResources, &arg::CQ_RING))?;
    let mut e = [0u8; 64];
    let set = |e: &mut [u8; 64], f: &Field, v: u64| f.set(e, v).map_err(|_| internal());
    set(&mut e, &arg::CQ_RING, c.ring_addr)?;
    set(&mut e, &arg::CQ_LOG, u64::from(c.log_size))?;
    set(&mut e, &arg::CQ_VECTOR, u64::from(c.msix_vector))?;
    set(&mut e, &arg::CQ_USEC, u64::from(c.moderation.usec))?;
    set(&mut e, &arg::CQ_COUNT, u64::from(c.moderation.count))?;
    commit(bus, table::CQ, cqn as u16, &e, None).map_err(|_| internal())?;
    fw.objects.set_cq(
        cqn,
        Cq {
            live: true,
            ring: c.ring_addr,
            log: c.log_size,
            vector: c.msix_vector,
            moderation: c.moderation,
            users: 0,
        },
    );
    Ok(ResponseData::Cq(cqn))
}

fn destroy_cq(fw: &mut Firmware, bus: &mut impl Bus, cqn: u32) -> Result<ResponseData, CmdError> {
    let cq = *fw
        .objects
        .cq(cqn)
        .ok_or(refuse(Status::BadHandle, &arg::CQN))?;
    if cq.users != 0 {
        return Err(refuse(Status::BadState, &arg::CQN));
    }
    commit(bus, table::CQ, cqn as u16, &[0u8; 64], None).map_err(|_| internal())?;
    fw.objects.set_cq(cqn, Cq::FREE);
    Ok(ResponseData::None)
}

/// The QP entry of `qp` (ring indices 0). With `keep_rq` the device keeps the RQ's indices
/// (`rq_keep`): the entry rewrites a live QP, whose receive WQEs posted so far stay posted.
fn qp_entry(qp: &Qp, keep_rq: bool) -> Result<[u8; 64], CmdError> {
    let ctx = if qp.state == QpState::Reset {
        QpContext::reset()
    } else {
        QpContext {
            state: qp.state,
            sq_base: qp.sq.0,
            rq_base: qp.rq.0,
            sq_log: qp.sq.1,
            rq_log: qp.rq.1,
            sq_pi: 0,
            sq_ci: 0,
            rq_pi: 0,
            rq_ci: 0,
            rq_keep: keep_rq,
            send_cqn: qp.send_cqn,
            recv_cqn: qp.recv_cqn,
            cid: if qp.state == QpState::Ready {
                qp.cid
            } else {
                0
            },
            remote: if qp.state == QpState::Ready {
                qp.remote().map(|r| QpRemote {
                    qpn: r.qpn,
                    mac: r.mac,
                    ip: r.ip,
                })
            } else {
                None
            },
        }
    };
    let mut e = [0u8; 64];
    ctx.emit(&mut e).map_err(|_| internal())?;
    Ok(e)
}

fn create_qp(
    fw: &mut Firmware,
    bus: &mut impl Bus,
    c: &CreateQp,
) -> Result<ResponseData, CmdError> {
    let cq_ok = |n: u32| fw.objects.cq(n).is_some();
    if !cq_ok(c.send_cqn) {
        return Err(refuse(Status::BadHandle, &arg::SEND_CQN));
    }
    if !cq_ok(c.recv_cqn) {
        return Err(refuse(Status::BadHandle, &arg::RECV_CQN));
    }
    let qpn = fw
        .objects
        .free_qpn(fw.limits.max_qps)
        .ok_or(refuse(Status::NoResources, &arg::SQ_ADDR))?;
    let qp = Qp {
        live: true,
        state: QpState::Init,
        sq: (c.sq_addr, c.sq_log),
        rq: (c.rq_addr, c.rq_log),
        send_cqn: c.send_cqn,
        recv_cqn: c.recv_cqn,
        ..Qp::FREE
    };
    let e = qp_entry(&qp, false)?;
    commit(bus, table::QP, qpn as u16, &e, None).map_err(|_| internal())?;
    fw.objects.set_qp(qpn, qp);
    for n in [c.send_cqn, c.recv_cqn] {
        if let Some(cq) = fw.objects.cq_mut(n) {
            cq.users += 1;
        }
    }
    Ok(ResponseData::Qp(qpn))
}

/// The hot state of a connection opened 0-RTT: own CID `cid`, the peer's unknown (0), the send direction
/// starting at `isn`, every counter and estimate at 0 (MR-CONN-7, MR-CONN-28).
fn open_entry(cid: u32, isn: u32) -> Result<[u8; 64], CmdError> {
    let hot = ConnHot::opening(cid, 0, ConnFlags(0), (WLOG, WLOG), isn, 0);
    let mut e = [0u8; 64];
    hot.emit(&mut e).map_err(|_| internal())?;
    Ok(e)
}

fn close_conn(fw: &mut Firmware, bus: &mut impl Bus, conn: u16) -> Result<(), CmdError> {
    commit(bus, table::CONN, conn, &[0u8; 64], None).map_err(|_| internal())?;
    fw.objects.conns = fw.objects.conns.saturating_sub(1);
    Ok(())
}

fn modify_qp(
    fw: &mut Firmware,
    bus: &mut impl Bus,
    m: &ModifyQp,
) -> Result<ResponseData, CmdError> {
    let mut qp = *fw
        .objects
        .qp(m.qpn)
        .ok_or(refuse(Status::BadHandle, &arg::QPN))?;
    if !qp.state.modify_allowed(m.state) {
        return Err(refuse(Status::BadState, &arg::QP_STATE));
    }
    let conn = m.qpn as u16;
    if m.state == QpState::Error && qp.state == QpState::Ready && qp.conn != 0 {
        // The core flushes the send queue and reports the QP; its entry stays as it is, so that later WRs
        // are completed FLUSHED (crate::qp_errors).
        crate::qp_errors::request_fail(bus, qp.conn).map_err(|_| internal())?;
        qp.state = QpState::Error;
        fw.objects.set_qp(m.qpn, qp);
        return Ok(ResponseData::None);
    }
    if m.state == QpState::Ready {
        let remote = m.remote.ok_or(refuse(Status::BadParam, &arg::REMOTE_QPN))?;
        if m.qpn >= fw.caps.max_conns {
            return Err(refuse(Status::NoResources, &arg::QPN));
        }
        qp.set_remote(&remote);
        // The connection first: once the QP entry is READY its doorbells start transmission on it.
        // The peer's address goes into the ISN, so that devices started in lockstep (same boot time, same
        // random stream) still choose different ISNs for the two directions of a connection.
        let isn = fw.random() ^ remote_hash(&remote);
        let seed = fw.random();
        let r = fw.random();
        let cid = fw.objects.next_cid(conn, r);
        let e = open_entry(cid, isn)?;
        let open = OpenParam {
            mtu_log: MTU_LOG.min(fw.caps.max_mtu_log),
            paths: PATHS.min(fw.caps.max_paths),
            rx_only: false,
            seed,
        };
        commit(bus, table::CONN, conn, &e, Some(open)).map_err(|_| internal())?;
        fw.objects.conns += 1;
        qp.conn = conn;
        qp.cid = cid;
        qp.isn = isn;
        qp.peer_cid = 0;
        qp.peer_isn = 0;
        qp.announced = 0;
    }
    // A live QP keeps its receive WQEs (those posted in INIT, MR-SEM-9, Table 7.10); RESET clears the rings.
    let keep_rq = qp.state != QpState::Reset && m.state != QpState::Reset;
    qp.state = m.state;
    if m.state == QpState::Reset {
        qp.connected = false;
        qp.peer_cid = 0;
    }
    let e = qp_entry(&qp, keep_rq)?;
    commit(bus, table::QP, m.qpn as u16, &e, None).map_err(|_| internal())?;
    if m.state == QpState::Reset && qp.conn != 0 {
        close_conn(fw, bus, qp.conn)?;
        qp.conn = 0;
        qp.cid = 0;
    }
    fw.objects.set_qp(m.qpn, qp);
    Ok(ResponseData::None)
}

/// FNV-1a over the remote QP's number and addresses.
fn remote_hash(r: &metaroce_regmap::command::Remote) -> u32 {
    let mut h: u32 = 0x811C_9DC5;
    let mut eat = |b: u8| {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    };
    r.qpn.to_le_bytes().into_iter().for_each(&mut eat);
    r.mac.into_iter().for_each(&mut eat);
    match r.ip {
        core::net::IpAddr::V4(a) => a.octets().into_iter().for_each(&mut eat),
        core::net::IpAddr::V6(a) => a.octets().into_iter().for_each(&mut eat),
    }
    h
}

fn destroy_qp(fw: &mut Firmware, bus: &mut impl Bus, qpn: u32) -> Result<ResponseData, CmdError> {
    let qp = *fw
        .objects
        .qp(qpn)
        .ok_or(refuse(Status::BadHandle, &arg::QPN))?;
    commit(bus, table::QP, qpn as u16, &[0u8; 64], None).map_err(|_| internal())?;
    if qp.conn != 0 {
        close_conn(fw, bus, qp.conn)?;
    }
    for n in [qp.send_cqn, qp.recv_cqn] {
        if let Some(cq) = fw.objects.cq_mut(n) {
            cq.users = cq.users.saturating_sub(1);
        }
    }
    fw.objects.set_qp(qpn, Qp::FREE);
    Ok(ResponseData::None)
}

/// The slot of a live key, if `lkey` is one.
fn live_slot(fw: &Firmware, lkey: u32) -> Option<usize> {
    let slot = key_slot(lkey) as usize;
    (slot > 0
        && slot < MRS
        && fw.objects.mr(slot).is_some()
        && lkey & 0xFF == u32::from(fw.objects.key_gen[slot]))
    .then_some(slot)
}

/// The keys of MR slot `slot`: `lkey = slot << 8 | generation`; `rkey` adds `salt` above the device's slot
/// bits (the hardware indexes its table with key bits `8 + log2(max_mrs) - 1 .. 8` and compares whole keys).
fn keys(fw: &Firmware, slot: usize, salt: u32) -> (u32, u32) {
    let lkey = (slot as u32) << 8 | u32::from(fw.objects.key_gen[slot]);
    let slot_bits = 32 - fw.caps.max_mrs.saturating_sub(1).leading_zeros();
    let shift = 8 + slot_bits;
    let rkey = if shift >= 32 {
        lkey
    } else {
        lkey | (salt << shift)
    };
    (lkey, rkey)
}

fn mr_entry(lkey: u32, rkey: u32, mr: Option<&Mr>) -> Result<[u8; 64], CmdError> {
    let ctx = match mr {
        Some(m) => MrContext {
            valid: true,
            addr: m.addr,
            length: m.length,
            lkey,
            rkey,
            access: m.access,
        },
        None => MrContext {
            valid: false,
            addr: 0,
            length: 0,
            lkey,
            rkey,
            access: MrAccess(0),
        },
    };
    let mut e = [0u8; 64];
    ctx.emit(&mut e).map_err(|_| internal())?;
    Ok(e)
}

/// The rkey salts of the slots, kept so that MODIFY_MR rewrites the same keys.
fn salt_of(fw: &Firmware, slot: usize) -> u32 {
    fw.objects.mr(slot).map_or(0, |m| m.salt)
}

fn create_mr(
    fw: &mut Firmware,
    bus: &mut impl Bus,
    c: &CreateMr,
) -> Result<ResponseData, CmdError> {
    let slot = fw
        .objects
        .free_mr_slot(fw.limits.max_mrs)
        .ok_or(refuse(Status::NoResources, &arg::MR_ADDR))? as usize;
    let salt = fw.random();
    let mr = Mr {
        live: true,
        addr: c.addr,
        length: c.length,
        access: c.access,
        salt,
    };
    let (lkey, rkey) = keys(fw, slot, salt);
    let e = mr_entry(lkey, rkey, Some(&mr))?;
    commit(bus, table::MR, slot as u16, &e, None).map_err(|_| internal())?;
    fw.objects.set_mr(slot, mr);
    Ok(ResponseData::Mr { lkey, rkey })
}

fn modify_mr(
    fw: &mut Firmware,
    bus: &mut impl Bus,
    lkey: u32,
    access: MrAccess,
) -> Result<ResponseData, CmdError> {
    let slot = live_slot(fw, lkey).ok_or(refuse(Status::BadHandle, &arg::LKEY))?;
    let mut mr = *fw
        .objects
        .mr(slot)
        .ok_or(refuse(Status::BadHandle, &arg::LKEY))?;
    mr.access = access;
    let (lkey, rkey) = keys(fw, slot, salt_of(fw, slot));
    let e = mr_entry(lkey, rkey, Some(&mr))?;
    commit(bus, table::MR, slot as u16, &e, None).map_err(|_| internal())?;
    fw.objects.set_mr(slot, mr);
    Ok(ResponseData::None)
}

fn destroy_mr(fw: &mut Firmware, bus: &mut impl Bus, lkey: u32) -> Result<ResponseData, CmdError> {
    let slot = live_slot(fw, lkey).ok_or(refuse(Status::BadHandle, &arg::LKEY))?;
    let (lkey, rkey) = keys(fw, slot, salt_of(fw, slot));
    let e = mr_entry(lkey, rkey, None)?;
    commit(bus, table::MR, slot as u16, &e, None).map_err(|_| internal())?;
    fw.objects.set_mr(slot, Mr::FREE);
    fw.objects.key_gen[slot] = fw.objects.key_gen[slot].wrapping_add(1);
    Ok(ResponseData::None)
}

fn counters_base() -> u32 {
    DEFAULT_MAP
        .iter()
        .find(|(k, _)| *k == BlockType::Counters)
        .map_or(0, |b| b.1)
}

fn read_counters(bus: &mut impl Bus, first: u16, count: u8) -> ResponseData {
    let base = counters_base();
    bus.reg_write(base + counters::reg::SNAPSHOT, 1);
    let mut values = [0u64; MAX_COUNTERS_PER_READ as usize];
    for (i, v) in values.iter_mut().enumerate().take(count as usize) {
        let off = base + counters::reg::VALUE + 8 * (u32::from(first) + i as u32);
        let lo = bus.reg_read(off);
        let hi = bus.reg_read(off + 4);
        *v = u64::from(hi) << 32 | u64::from(lo);
    }
    ResponseData::Counters { count, values }
}
