//! MetaRoCE responder / receiver side (MR-REL-9..18, MR-SEM-*): window check and bitmap, exactly-once placement
//! after the memory-region check (before memory is touched), SEND placement into the SSN-th receive WQE, RNR
//! when it is missing, per-message byte counting, completions strictly in message order, READ execution,
//! ACK generation (with the specification's SACK-base rule, ECE and CE count), NACKs for trimmed packets and the
//! error NACKs (ACCESS / INVALID / UNSUPPORTED) that are repeated for every retransmission of a failed message.

use super::super::bitmap::{sack_base, Accept};
use super::super::endpoint::{Ctx, QpSlot};
use super::super::memory::Memory;
use super::super::plan::{PlanHeaders, TransmitPlan};
use super::super::qp::{MsgKind, QpCore, QpState, SendMsg};
use super::super::verbs::{Access, Completion, Event, Sge, WcOpcode, WcStatus};
use super::super::Instant;
use super::conn::{Conn, ConnState, PendingNack, RecvMsg, SlotState, MAX_PENDING_NACKS};
use super::{ecn_of, l2l3_from, CE};
use crate::wire::packet::{MetaRoceRepr, ParsedFrame, TypeRepr};
use crate::wire::{
    AckFlags, AckRepr, DataFlags, DataRepr, MbhFlags, MbhRepr, NackCode, Opcode, PacketType,
    SackBitmap,
};

/// Queues a NACK (bounded; excess is dropped and recovered by the sender's timers).
pub(crate) fn queue_nack(
    conn: &mut Conn,
    psn: u32,
    code: NackCode,
    echo_ts: u32,
    aux: u32,
    ev: u16,
) {
    if conn.nacks.len() < MAX_PENDING_NACKS {
        conn.nacks.push_back(PendingNack {
            psn,
            code,
            echo_ts,
            aux,
            ev,
        });
    }
}

/// Records the packet that an ACK will answer.
fn note_ack(conn: &mut Conn, psn: u32, ts: u32, port: u16, dup: bool, now_flag: bool) {
    conn.ack_pending = true;
    conn.ack_psn = psn;
    conn.ack_ts = ts;
    conn.ack_ev_port = port;
    conn.ack_dup |= dup;
    conn.ack_now |= now_flag;
}

/// What the receive side uses of a DATA frame besides its DATA header.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RxData<'a> {
    /// Base header.
    pub mbh: MbhRepr,
    /// UDP source port (the EV the ACK/NACK goes back on).
    pub port: u16,
    /// ECN codepoint.
    pub ecn: u8,
    /// Trimmed (MR-ENC-33): only `mbh` is valid.
    pub trimmed: bool,
    /// Payload.
    pub payload: &'a [u8],
}

impl<'a> RxData<'a> {
    /// The parts of a parsed frame.
    #[inline]
    pub(crate) fn of(p: &ParsedFrame<'a>) -> Self {
        RxData {
            mbh: p.m.mbh,
            port: p.l.udp_src,
            ecn: ecn_of(&p.l.ip),
            trimmed: p.trimmed,
            payload: p.payload,
        }
    }
}

/// Processes a DATA packet for an open connection.
#[inline]
pub(crate) fn on_data<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    core: &mut QpCore,
    conn: &mut Conn,
    now: Instant,
    p: &RxData<'_>,
    d: &DataRepr,
) {
    let mbh = &p.mbh;
    let psn = mbh.psn;
    let port = p.port;
    conn.last_activity = now;
    super::send::on_peer_data(conn, ctx.cfg, now);
    if conn.state == ConnState::Closing {
        conn.state = ConnState::Open; // the peer is not idle after all
        conn.ctrl = super::conn::PendingCtrl::None;
        conn.close_deadline = None;
    }
    if p.trimmed {
        // MR-REL-48 / MR-ENC-34, MR-ENC-37: only the base header is trusted.
        ctx.stats.trimmed_received += 1;
        queue_nack(conn, psn, NackCode::Trimmed, mbh.ts, 0, port);
        return;
    }
    if !conn.rcv_init || core.state == QpState::Error {
        ctx.stats.drops.unknown_connection += 1;
        return;
    }
    let ce = p.ecn == CE;
    if ce {
        ctx.stats.ecn_ce_received += 1;
        conn.ce_count = conn.ce_count.saturating_add(1);
        conn.ack_ece = true;
    }
    let payload = p.payload;
    let plen = payload.len() as u32;
    match conn.rcv.classify(psn) {
        Accept::Duplicate => {
            ctx.stats.drops.duplicate += 1;
            note_ack(conn, psn, mbh.ts, port, true, true);
            return;
        }
        Accept::OutOfWindow => {
            ctx.stats.drops.out_of_window += 1;
            note_ack(conn, psn, mbh.ts, port, false, true);
            return;
        }
        Accept::InOrder | Accept::OutOfOrder => {}
    }
    // After a failed message nothing later is placed (responder error state); the error is repeated.
    if let Some((fmsn, code)) = conn.rx_failed {
        if (d.msn.wrapping_sub(fmsn) as i32) > 0 {
            ctx.stats.drops.invalid += 1;
            queue_nack(conn, psn, code, mbh.ts, fmsn, port);
            return;
        }
    }
    // Message slot (MR-SEM-18, MR-SEM-40).
    let dm = d.msn.wrapping_sub(conn.rx_base_msn);
    if dm as usize >= conn.rx_msgs.len() {
        ctx.stats.drops.invalid += 1;
        note_ack(conn, psn, mbh.ts, port, false, true);
        return;
    }
    let Some(slot) = conn.rx_slot(d.msn).copied() else {
        return;
    };
    if let SlotState::Failed(code) = slot.state {
        // Every retransmission of a failed message gets the error again (MR-SEM-36).
        ctx.stats.drops.invalid += 1;
        queue_nack(conn, psn, code, mbh.ts, d.msn, port);
        return;
    }
    if slot.state == SlotState::Active && (slot.opcode != d.opcode || slot.len != d.msg_len) {
        fail_msg(ctx, conn, d, psn, mbh.ts, port, NackCode::Invalid, false);
        return;
    }
    if plen > ctx.cfg.mtu.max(super::FIRST_FLIGHT_MTU) {
        // MR-WIRE-31: every receiver takes payloads up to the 4096-byte domain baseline (a peer's first flight,
        // MR-WIRE-30) or its own larger advertisement; anything larger is answered with NACK INVALID.
        fail_msg(ctx, conn, d, psn, mbh.ts, port, NackCode::Invalid, false);
        return;
    }
    // Validate and compute the placement address before touching memory (MR-SEM-13..17).
    let place: Option<u64> = match d.opcode {
        Opcode::Write | Opcode::WriteImm => {
            if ctx
                .mrs
                .check_remote(d.key, d.addr, plen as u64, Access::REMOTE_WRITE)
                .is_err()
            {
                fail_msg(ctx, conn, d, psn, mbh.ts, port, NackCode::Access, false);
                return;
            }
            if d.opcode == Opcode::WriteImm && slot.state == SlotState::Empty && core.rq.is_empty()
            {
                rnr(ctx, conn, psn, mbh.ts, port);
                return;
            }
            Some(d.addr)
        }
        Opcode::Send | Opcode::SendImm => {
            let k = d.key.wrapping_sub(conn.rx_ssn_consumed) as usize;
            if d.addr.saturating_add(plen as u64) > d.msg_len as u64 {
                fail_msg(ctx, conn, d, psn, mbh.ts, port, NackCode::Invalid, false);
                return;
            }
            let Some(wqe) = core.rq.get(k).copied() else {
                if k > core.max_recv_wr as usize + ctx.cfg.max_outstanding_msgs as usize {
                    fail_msg(ctx, conn, d, psn, mbh.ts, port, NackCode::Invalid, false);
                } else {
                    rnr(ctx, conn, psn, mbh.ts, port);
                }
                return;
            };
            if d.msg_len > wqe.sge.len {
                // MR-SEM-33: too-small WQE: NACK INVALID, the WQE completes LocalLength.
                fail_msg(ctx, conn, d, psn, mbh.ts, port, NackCode::Invalid, true);
                deliver(ctx, core, conn, now);
                return;
            }
            let a = wqe.sge.addr.wrapping_add(d.addr);
            if ctx
                .mrs
                .check_local(wqe.sge.lkey, a, plen as u64, Access::LOCAL_WRITE)
                .is_err()
            {
                fail_msg(ctx, conn, d, psn, mbh.ts, port, NackCode::Access, false);
                return;
            }
            Some(a)
        }
        Opcode::ReadReq => {
            if plen != 0
                || ctx
                    .mrs
                    .check_remote(d.key, d.addr, d.msg_len as u64, Access::REMOTE_READ)
                    .is_err()
            {
                let code = if plen != 0 {
                    NackCode::Invalid
                } else {
                    NackCode::Access
                };
                fail_msg(ctx, conn, d, psn, mbh.ts, port, code, false);
                return;
            }
            None
        }
        Opcode::ReadResp => {
            let target = core
                .msg_index(d.key)
                .map(|i| core.sq[i])
                .filter(|m: &SendMsg| {
                    m.kind == MsgKind::Read
                        && m.len == d.msg_len
                        && d.addr.saturating_add(plen as u64) <= m.len as u64
                });
            let Some(m) = target else {
                // MR-SEM-34: an invalid response fails the READ (RemoteOperation) and the QP.
                fail_msg(ctx, conn, d, psn, mbh.ts, port, NackCode::Invalid, false);
                let msn = core
                    .msg_index(d.key)
                    .filter(|&i| core.sq[i].kind == MsgKind::Read)
                    .map(|i| core.sq[i].msn)
                    .or_else(|| {
                        core.sq
                            .iter()
                            .find(|m| m.kind == MsgKind::Read && m.started && !m.done())
                            .map(|m| m.msn)
                    });
                super::send::fail_qp(ctx, core, conn, msn, WcStatus::RemoteOperation);
                return;
            };
            let a = m.local.addr.wrapping_add(d.addr);
            if ctx
                .mrs
                .check_local(m.local.lkey, a, plen as u64, Access::LOCAL_WRITE)
                .is_err()
            {
                // MR-SEM-34: the local buffer is no longer valid: LocalProtection, QP to ERROR.
                fail_msg(ctx, conn, d, psn, mbh.ts, port, NackCode::Access, false);
                super::send::fail_qp(ctx, core, conn, Some(m.msn), WcStatus::LocalProtection);
                return;
            }
            Some(a)
        }
        Opcode::FetchAdd | Opcode::CmpSwap | Opcode::Experimental => {
            // Atomics are deferred in v0.1; experimental opcodes are not implemented (MR-WIRE-16).
            fail_msg(
                ctx,
                conn,
                d,
                psn,
                mbh.ts,
                port,
                NackCode::Unsupported,
                false,
            );
            return;
        }
        Opcode::Reserved => {
            fail_msg(ctx, conn, d, psn, mbh.ts, port, NackCode::Invalid, false);
            return;
        }
    };
    // Accept exactly once (MR-REL-9, MR-REL-52) and place.
    let acc = conn.rcv.accept(psn);
    if acc == Accept::OutOfOrder {
        ctx.stats.ooo_arrivals += 1;
    }
    if let Some(a) = place {
        if plen > 0 {
            ctx.mem.write(a, payload);
        }
    }
    ctx.stats.rx_data_packets += 1;
    ctx.stats.rx_payload_bytes += plen as u64;
    let Some(s) = conn.rx_slot(d.msn) else { return };
    if s.state == SlotState::Empty {
        *s = RecvMsg {
            state: SlotState::Active,
            opcode: d.opcode,
            len: d.msg_len,
            got: 0,
            imm: d.imm,
            addr: d.addr,
            key: d.key,
            owes_wqe: false,
        };
    }
    s.got = s.got.saturating_add(plen);
    let complete = s.complete();
    // ACK policy (MR-REL-14, MR-REL-15, MR-REL-16): every ack_ratio packets; immediately on AR, CE, out-of-order, LAST.
    conn.unacked_pkts = conn.unacked_pkts.saturating_add(1);
    let immediate = mbh.flags.contains(MbhFlags::AR)
        || d.flags.contains(DataFlags::LAST)
        || ce
        || acc == Accept::OutOfOrder
        || conn.unacked_pkts >= ctx.cfg.ack_ratio;
    note_ack(conn, psn, mbh.ts, port, false, immediate);
    if !immediate && conn.ack_deadline.is_none() {
        conn.ack_deadline = Some(now + ctx.cfg.ack_delay_ns);
    }
    if complete && d.msn == conn.rx_base_msn {
        deliver(ctx, core, conn, now);
    }
}

fn rnr<M: Memory>(ctx: &mut Ctx<'_, M>, conn: &mut Conn, psn: u32, ts: u32, port: u16) {
    queue_nack(conn, psn, NackCode::Rnr, ts, ctx.cfg.rnr_timer_us, port);
}

/// Marks message `d.msn` failed with `code` and NACKs this PSN (aux = MSN). Nothing is written.
#[allow(clippy::too_many_arguments)]
fn fail_msg<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    conn: &mut Conn,
    d: &DataRepr,
    psn: u32,
    ts: u32,
    port: u16,
    code: NackCode,
    owes_wqe: bool,
) {
    match code {
        NackCode::Access => ctx.stats.drops.access += 1,
        _ => ctx.stats.drops.invalid += 1,
    }
    let earlier = conn
        .rx_failed
        .is_none_or(|(f, _)| (d.msn.wrapping_sub(f) as i32) < 0);
    if earlier {
        conn.rx_failed = Some((d.msn, code));
    }
    if let Some(s) = conn.rx_slot(d.msn) {
        *s = RecvMsg {
            state: SlotState::Failed(code),
            opcode: d.opcode,
            len: d.msg_len,
            got: 0,
            imm: d.imm,
            addr: d.addr,
            key: d.key,
            owes_wqe,
        };
    }
    queue_nack(conn, psn, code, ts, d.msn, port);
}

/// Completes received messages strictly in MSN order (MR-SEM-18..22): SEND and WRITE_IMM consume the receive
/// WQE at the head of the RQ now; a READ_REQ turns into a READ response queued in this side's send direction;
/// a READ_RESP finishes the local READ WR.
pub(crate) fn deliver<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    core: &mut QpCore,
    conn: &mut Conn,
    now: Instant,
) {
    let _ = now;
    let qpn = core.qpn;
    loop {
        let mask = conn.rx_msgs.len() - 1;
        let idx = conn.rx_base_msn as usize & mask;
        let s = conn.rx_msgs[idx];
        if let SlotState::Failed(_) = s.state {
            if s.owes_wqe {
                if let Some(w) = core.rq.pop_front() {
                    conn.rx_ssn_consumed = conn.rx_ssn_consumed.wrapping_add(1);
                    ctx.events.push_back(Event::Completion(Completion {
                        qpn,
                        wr_id: w.wr_id,
                        opcode: WcOpcode::Recv,
                        status: WcStatus::LocalLength,
                        byte_len: 0,
                        imm: None,
                    }));
                }
                conn.rx_msgs[idx].owes_wqe = false;
            }
            return;
        }
        if !s.complete() {
            return;
        }
        match s.opcode {
            Opcode::Write => {}
            Opcode::WriteImm | Opcode::Send | Opcode::SendImm => {
                let Some(w) = core.rq.pop_front() else { return };
                conn.rx_ssn_consumed = conn.rx_ssn_consumed.wrapping_add(1);
                let opcode = if s.opcode == Opcode::WriteImm {
                    WcOpcode::RecvWriteImm
                } else {
                    WcOpcode::Recv
                };
                ctx.events.push_back(Event::Completion(Completion {
                    qpn,
                    wr_id: w.wr_id,
                    opcode,
                    status: WcStatus::Success,
                    byte_len: s.len,
                    imm: s.imm,
                }));
            }
            Opcode::ReadReq => {
                if core.sq_internal >= ctx.cfg.max_outstanding_msgs {
                    return; // no room for the response yet; retried when a message retires
                }
                core.sq.push_back(SendMsg {
                    wr_id: 0,
                    kind: MsgKind::ReadResp,
                    // The READ_REQ's R_Key travels with the response: the source is re-checked for
                    // REMOTE_READ before every (re)transmission (MR-SEM-14).
                    local: Sge {
                        addr: s.addr,
                        len: s.len,
                        lkey: s.key,
                    },
                    remote_addr: 0,
                    rkey: conn.rx_base_msn,
                    imm: None,
                    solicited: false,
                    len: s.len,
                    npkts: s.len.div_ceil(ctx.cfg.mtu).max(1),
                    seg_size: 0,
                    msn: 0,
                    ssn: 0,
                    started: false,
                    seg_off: 0,
                    seg_done: false,
                    acked_pkts: 0,
                    read_done: false,
                    resp_bytes: 0,
                    first_psn: 0,
                });
                core.sq_internal += 1;
            }
            Opcode::ReadResp => {
                if let Some(i) = core.msg_index(s.key) {
                    core.sq[i].read_done = true;
                    core.sq[i].resp_bytes = s.got;
                }
                core.retire_done(ctx.events);
            }
            Opcode::FetchAdd | Opcode::CmpSwap | Opcode::Experimental | Opcode::Reserved => return,
        }
        conn.rx_msgs[idx] = RecvMsg::EMPTY;
        conn.rx_base_msn = conn.rx_base_msn.wrapping_add(1);
    }
}

/// Entry point after a receive WQE was posted: completions stalled for a WQE may proceed.
pub(crate) fn deliver_in_order<M: Memory>(ctx: &mut Ctx<'_, M>, slot: &mut QpSlot, now: Instant) {
    let QpSlot { core, meta, .. } = slot;
    if let Some(conn) = meta.as_deref_mut() {
        if conn.state != ConnState::Closed && conn.rcv_init {
            deliver(ctx, core, conn, now);
        }
    }
}

/// Builds the owed ACK (MR-WIRE-32..35, MR-REL-18, MR-REL-57): CACK, SACK block at the specification's base, ECE/DUP, echoed TS and EV, CE
/// count. Clears the ACK state.
#[inline]
pub(crate) fn build_ack<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    core: &QpCore,
    conn: &mut Conn,
    now: Instant,
) -> Option<TransmitPlan> {
    let remote = core.remote?;
    let cack = conn.rcv.expected();
    let base = sack_base(cack, conn.ack_psn);
    let mut sack = [0u8; 32];
    conn.rcv.sack_block(base, &mut sack);
    let mut flags = AckFlags::EMPTY;
    if conn.ack_ece {
        flags |= AckFlags::ECE;
    }
    if conn.ack_dup {
        flags |= AckFlags::DUP;
    }
    let m = MetaRoceRepr {
        mbh: MbhRepr {
            ptype: PacketType::Ack,
            flags: MbhFlags::EMPTY,
            payload_len: 0,
            dcid: conn.peer_cid,
            hlen: 0,
            psn: cack,
            ts: now as u32,
        },
        ty: TypeRepr::Ack(AckRepr {
            scid: conn.cid,
            flags,
            echo_ts: conn.ack_ts,
            sack_base: base,
            echo_ev: conn.ack_ev_port,
            ce_count: conn.ce_count,
            sack: SackBitmap(sack),
        }),
        open: None,
    };
    conn.ack_pending = false;
    conn.ack_now = false;
    conn.ack_deadline = None;
    conn.unacked_pkts = 0;
    conn.ce_count = 0;
    conn.ack_ece = false;
    conn.ack_dup = false;
    ctx.stats.tx_acks += 1;
    ctx.stats.tx_bytes += super::frame_bytes(ctx.cfg, remote.ip.is_ipv6(), 48, false, 0);
    Some(TransmitPlan {
        qpn: core.qpn,
        l: l2l3_from(&core.l2?, ctx.cfg.dscp_ctrl, conn.ack_ev_port),
        headers: PlanHeaders::MetaRoce(m),
        payload_addr: 0,
        payload_len: 0,
        zero_payload: false,
    })
}
