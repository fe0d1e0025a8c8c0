//! The RoCEv2 baseline engine (MR-ROCE-*), on the same [`Endpoint`](super::Endpoint) API: BTH/RETH/AETH
//! headers, 24-bit PSNs, go-back-N (the responder accepts only the expected PSN and NAKs the first gap once; the
//! requester rewinds), ACK coalescing, one fixed UDP source port per QP, RDMA READ with the responses in the
//! requester's PSN space, and DCQCN driven by CNPs that the responder sends at most once per `cnp_interval_ns`
//! per QP when it receives CE-marked packets.
//!
//! Internally PSNs are kept as 32-bit extended numbers (so the shared [`SendWindow`] ring and serial
//! arithmetic apply); only the low 24 bits go on the wire and received PSNs are extended relative to the
//! expected one.

use super::cc::{Cc, CnpLimiter, CongestionControl};
use super::endpoint::{Ctx, QpSlot};
use super::loss::{SendWindow, SentPkt};
use super::memory::Memory;
use super::metaroce::conn::new_cc;
use super::metaroce::{count_parse_error, dst_is, ecn_of, CE};
use super::plan::{PlanHeaders, TransmitPlan};
use super::qp::{MsgKind, QpCore, QpState};
use super::rtt::RttEstimator;
use super::seq::{diff24, lt32, PSN24_MASK};
use super::verbs::{Access, Completion, Event, WcOpcode, WcStatus};
use super::{EndpointConfig, Instant};
use crate::wire::roce::syndrome;
use crate::wire::roce_packet::{parse_roce_frame, ParsedRoceFrame, RoceRepr};
use crate::wire::{AethRepr, BthRepr, RethRepr, RoceOpcode};
use alloc::collections::VecDeque;

/// A READ the responder is answering: responses for PSNs `psn..psn+n` from `va`.
#[derive(Debug, Clone, Copy)]
struct ReadJob {
    psn: u32,
    va: u64,
    len: u32,
    sent: u32,
}

/// Receive-side state of the message in progress (RoCE delivers in order).
#[derive(Debug, Clone, Copy, Default)]
struct RxMsg {
    active: bool,
    va: u64,
    rkey: u32,
    off: u32,
}

/// Per-QP RoCEv2 state.
#[derive(Debug)]
pub struct RoceQp {
    remote_qpn: u32,
    sport: u16,
    // requester
    snd: SendWindow,
    /// Next PSN to (re)transmit (go-back-N cursor, in `[una, nxt]`).
    cursor: u32,
    rtt: RttEstimator,
    cc: Cc,
    next_send_at: Instant,
    retries: u8,
    rnr_until: Instant,
    rnr_count: u8,
    next_msn: u32,
    // responder
    epsn: u32,
    nak_sent: bool,
    msn: u32,
    rx: RxMsg,
    ack_pending: bool,
    ack_now: bool,
    ack_deadline: Option<Instant>,
    unacked: u8,
    nak: Option<(u8, u32)>,
    cnp: CnpLimiter,
    cnp_pending: bool,
    reads: VecDeque<ReadJob>,
    /// READ requests in flight: (first PSN, PSNs consumed).
    read_ranges: VecDeque<(u32, u32)>,
}

/// Deterministic initial PSN of the direction `from -> to` (both sides compute it; RoCE exchanges it out of band).
fn isn(from: u32, to: u32) -> u32 {
    (from.wrapping_mul(0x9E37_79B1) ^ to.wrapping_mul(0x85EB_CA6B)) & PSN24_MASK
}

impl RoceQp {
    /// State for QP `qpn` connected to `remote_qpn`.
    pub(crate) fn new(cfg: &EndpointConfig, qpn: u32, remote_qpn: u32) -> Self {
        let s = isn(qpn, remote_qpn);
        RoceQp {
            remote_qpn,
            sport: 0xC000 | ((qpn.wrapping_mul(0x9E37_79B1) >> 18) as u16 & 0x3FFF),
            snd: SendWindow::new(cfg.window_log2, s, u32::MAX),
            cursor: s,
            rtt: RttEstimator::new(
                cfg.rto_min_ns,
                cfg.rto_init_ns,
                cfg.rto_max_ns,
                10 * cfg.rto_max_ns,
            ),
            cc: new_cc(cfg),
            next_send_at: 0,
            retries: 0,
            rnr_until: 0,
            rnr_count: 0,
            next_msn: 0,
            epsn: isn(remote_qpn, qpn),
            nak_sent: false,
            msn: 0,
            rx: RxMsg::default(),
            ack_pending: false,
            ack_now: false,
            ack_deadline: None,
            unacked: 0,
            nak: None,
            cnp: CnpLimiter::new(cfg.cnp_interval_ns),
            cnp_pending: false,
            reads: VecDeque::new(),
            read_ranges: VecDeque::new(),
        }
    }

    /// Extends a received 24-bit PSN to 32 bits around `reference`.
    fn extend(reference: u32, psn24: u32) -> u32 {
        reference.wrapping_add(diff24(psn24, reference) as u32)
    }
}

fn has_new_or_rtx(core: &QpCore, r: &RoceQp) -> bool {
    lt32(r.cursor, r.snd.nxt())
        || core.sq.get(core.seg_idx).is_some() && r.snd.can_send_new(r.snd.capacity())
}

/// True if the QP has a frame to send at `now`.
/// True if the QP owes a control frame (CNP, NAK or ACK), which the endpoint sends before any data.
#[inline]
pub(crate) fn wants_ctl(r: &RoceQp) -> bool {
    r.cnp_pending || r.nak.is_some() || r.ack_now
}

pub(crate) fn wants_tx(core: &QpCore, r: &RoceQp, now: Instant) -> bool {
    if r.cnp_pending || r.nak.is_some() || r.ack_now || !r.reads.is_empty() {
        return true;
    }
    core.state == QpState::Rts
        && now >= r.next_send_at
        && now >= r.rnr_until
        && has_new_or_rtx(core, r)
}

/// Earliest deadline of the QP's timers.
pub(crate) fn next_deadline(core: &QpCore, r: &RoceQp, now: Instant) -> Option<Instant> {
    let mut d: Option<Instant> = None;
    let mut add = |t: Option<Instant>| {
        if let Some(t) = t {
            d = Some(d.map_or(t, |x: Instant| x.min(t)));
        }
    };
    add(r.snd.rto_deadline);
    add(r.ack_deadline);
    add(r.cc.poll_timeout());
    if core.state == QpState::Rts && has_new_or_rtx(core, r) {
        if r.next_send_at > now {
            add(Some(r.next_send_at));
        }
        if r.rnr_until > now {
            add(Some(r.rnr_until));
        }
    }
    d
}

/// Routes a received RoCEv2 frame to its QP.
pub(crate) fn on_frame<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    qps: &mut [Option<QpSlot>],
    qp_gen: &[u8],
    now: Instant,
    frame: &[u8],
) -> Option<u32> {
    let p = match parse_roce_frame(frame, ctx.cfg.verify_icv) {
        Ok(p) => p,
        Err(e) => {
            count_parse_error(ctx.stats, e);
            return None;
        }
    };
    if !p.icrc_ok {
        ctx.stats.drops.bad_icv += 1;
        return None;
    }
    if !dst_is(&p.l.ip, ctx.cfg.ip) {
        ctx.stats.drops.not_for_us += 1;
        return None;
    }
    let qpn = p.r.bth.dest_qp;
    let idx = (qpn & 0xFFFF).checked_sub(1)? as usize;
    let ok = qp_gen.get(idx).is_some_and(|g| qpn >> 16 == *g as u32);
    let Some(Some(slot)) = qps.get_mut(idx).filter(|_| ok) else {
        ctx.stats.drops.unknown_connection += 1;
        return None;
    };
    let QpSlot { core, roce, .. } = slot;
    let Some(r) = roce.as_deref_mut() else {
        ctx.stats.drops.unknown_connection += 1;
        return None;
    };
    use RoceOpcode as O;
    match p.r.bth.opcode {
        O::Cnp => {
            ctx.stats.cnps_received += 1;
            r.cc.on_cnp(now);
        }
        O::Acknowledge => on_ack(ctx, core, r, now, &p),
        O::ReadResponseFirst
        | O::ReadResponseMiddle
        | O::ReadResponseLast
        | O::ReadResponseOnly => on_read_response(ctx, core, r, now, &p),
        _ => on_request(ctx, core, r, now, &p),
    }
    Some(idx as u32)
}

fn credit(core: &mut QpCore, pkt: &SentPkt) {
    if let Some(i) = core.msg_index(pkt.msn) {
        core.sq[i].acked_pkts += 1;
    }
}

/// The first PSN that an ACK may not cover: the next unanswered READ response (O(1): READ ranges in flight are
/// kept in order).
fn ack_limit(_core: &QpCore, r: &mut RoceQp) -> u32 {
    let una = r.snd.una();
    while let Some(&(first, n)) = r.read_ranges.front() {
        if !lt32(first.wrapping_add(n), una.wrapping_add(1)) {
            return if lt32(una, first) { first } else { una };
        }
        r.read_ranges.pop_front();
    }
    r.snd.nxt()
}

fn ack_through<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    core: &mut QpCore,
    r: &mut RoceQp,
    now: Instant,
    cack: u32,
) {
    let rto = r.rtt.rto();
    let res = r
        .snd
        .on_ack(now, cack, cack, &[0; 32], rto, |pkt| credit(core, pkt));
    if res.cack_advanced {
        r.retries = 0;
        r.rnr_count = 0;
        if lt32(r.cursor, r.snd.una()) {
            r.cursor = r.snd.una();
        }
        r.cc.on_ack(now, res.acked_bytes, None, false);
    }
    core.retire_done(ctx.events);
}

fn on_ack<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    core: &mut QpCore,
    r: &mut RoceQp,
    now: Instant,
    p: &ParsedRoceFrame<'_>,
) {
    ctx.stats.rx_acks += 1;
    let Some(aeth) = p.r.aeth else { return };
    let psn = RoceQp::extend(r.snd.una(), p.r.bth.psn);
    let limit = ack_limit(core, r);
    match aeth.syndrome & syndrome::TYPE_MASK {
        0x00 => {
            // ACK: every PSN up to and including `psn` (but not unanswered READ responses).
            let c = psn.wrapping_add(1);
            let c = if lt32(limit, c) { limit } else { c };
            ack_through(ctx, core, r, now, c);
        }
        0x20 => {
            // RNR NAK: PSNs before `psn` are acknowledged; retry from `psn` after the timer.
            ctx.stats.nacks_received[3] += 1;
            ack_through(
                ctx,
                core,
                r,
                now,
                if lt32(limit, psn) { limit } else { psn },
            );
            r.rnr_count = r.rnr_count.saturating_add(1);
            if r.rnr_count > ctx.cfg.rnr_retry {
                let msn = r.snd.get(psn).map(|x| x.msn);
                fail(ctx, core, r, msn, WcStatus::RnrRetryExceeded);
                return;
            }
            r.rnr_until = now + ctx.cfg.rnr_timer_us as u64 * 1000;
            rewind(ctx, r, psn);
        }
        _ => match aeth.syndrome {
            syndrome::NAK_PSN_SEQ_ERR => {
                ctx.stats.nacks_received[1] += 1;
                ack_through(
                    ctx,
                    core,
                    r,
                    now,
                    if lt32(limit, psn) { limit } else { psn },
                );
                rewind(ctx, r, psn);
            }
            syndrome::NAK_REMOTE_ACCESS => {
                ctx.stats.nacks_received[4] += 1;
                let msn = r.snd.get(psn).map(|x| x.msn);
                fail(ctx, core, r, msn, WcStatus::RemoteAccess);
            }
            _ => {
                ctx.stats.nacks_received[5] += 1;
                let msn = r.snd.get(psn).map(|x| x.msn);
                fail(ctx, core, r, msn, WcStatus::RemoteInvalidRequest);
            }
        },
    }
}

/// Go-back-N: retransmit everything from `psn` (MR-ROCE: the sender rewinds).
fn rewind<M: Memory>(ctx: &mut Ctx<'_, M>, r: &mut RoceQp, psn: u32) {
    if lt32(psn, r.snd.una()) || lt32(r.snd.nxt(), psn) {
        return;
    }
    if lt32(psn, r.cursor) {
        ctx.stats.retransmits.go_back_n += r.cursor.wrapping_sub(psn) as u64;
        r.cursor = psn;
    }
}

fn fail<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    core: &mut QpCore,
    r: &mut RoceQp,
    msn: Option<u32>,
    st: WcStatus,
) {
    if core.enter_error(msn, st, ctx.events) {
        let n = r.snd.nxt();
        r.snd.reset(n);
        r.cursor = n;
        r.read_ranges.clear();
    }
}

fn on_read_response<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    core: &mut QpCore,
    r: &mut RoceQp,
    now: Instant,
    p: &ParsedRoceFrame<'_>,
) {
    let psn = RoceQp::extend(r.snd.una(), p.r.bth.psn);
    if lt32(r.snd.una(), psn) && !lt32(r.snd.nxt(), psn) {
        // A response implies that the responder received every earlier request PSN.
        let limit = ack_limit(core, r);
        ack_through(
            ctx,
            core,
            r,
            now,
            if lt32(limit, psn) { limit } else { psn },
        );
    }
    if psn != r.snd.una() {
        // Duplicate (below) or gap (above): re-request from the first missing response.
        ctx.stats.drops.duplicate += lt32(psn, r.snd.una()) as u64;
        if lt32(r.snd.una(), psn) {
            rewind(ctx, r, r.snd.una());
        }
        return;
    }
    let Some(rec) = r.snd.get(psn).copied() else {
        return;
    };
    let Some(i) = core.msg_index(rec.msn) else {
        return;
    };
    let m = core.sq[i];
    if m.kind != MsgKind::Read {
        return;
    }
    let plen = p.payload.len() as u32;
    let off = rec.offset;
    if off.saturating_add(plen) > m.len {
        ctx.stats.drops.invalid += 1;
        return;
    }
    let a = m.local.addr.wrapping_add(off as u64);
    if ctx
        .mrs
        .check_local(m.local.lkey, a, plen as u64, Access::LOCAL_WRITE)
        .is_err()
    {
        ctx.stats.drops.access += 1;
        return;
    }
    if plen > 0 {
        ctx.mem.write(a, p.payload);
    }
    ctx.stats.rx_data_packets += 1;
    ctx.stats.rx_payload_bytes += plen as u64;
    if off + plen >= m.len {
        core.sq[i].read_done = true;
        core.sq[i].resp_bytes = m.len;
    }
    ack_through(ctx, core, r, now, psn.wrapping_add(1));
}

fn nak<M: Memory>(ctx: &mut Ctx<'_, M>, r: &mut RoceQp, syn: u8, psn: u32) {
    let code = match syn & syndrome::TYPE_MASK {
        0x20 => 3,
        _ => match syn {
            syndrome::NAK_PSN_SEQ_ERR => 1,
            syndrome::NAK_REMOTE_ACCESS => 4,
            _ => 5,
        },
    };
    ctx.stats.nacks_sent[code] += 1;
    r.nak = Some((syn, psn));
}

fn on_request<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    core: &mut QpCore,
    r: &mut RoceQp,
    now: Instant,
    p: &ParsedRoceFrame<'_>,
) {
    use RoceOpcode as O;
    if core.state == QpState::Error {
        ctx.stats.drops.invalid += 1;
        return;
    }
    if ecn_of(&p.l.ip) == CE {
        ctx.stats.ecn_ce_received += 1;
        if r.cnp.try_send(now) {
            r.cnp_pending = true;
        }
    }
    let op = p.r.bth.opcode;
    let psn = RoceQp::extend(r.epsn, p.r.bth.psn);
    let d = psn.wrapping_sub(r.epsn) as i32;
    if d < 0 {
        ctx.stats.drops.duplicate += 1;
        if op == O::ReadRequest {
            // A re-requested READ is executed again (reads are idempotent).
            if let Some(reth) = p.r.reth {
                queue_read(ctx, r, psn, reth);
            }
        } else {
            r.ack_pending = true;
            r.ack_now = true;
        }
        return;
    }
    if d > 0 {
        // Go-back-N: NAK the first gap once, drop everything until the expected PSN arrives.
        ctx.stats.ooo_arrivals += 1;
        if !r.nak_sent {
            r.nak_sent = true;
            nak(ctx, r, syndrome::NAK_PSN_SEQ_ERR, r.epsn);
        }
        return;
    }
    let payload = p.payload;
    let plen = payload.len() as u32;
    let first = matches!(
        op,
        O::SendFirst
            | O::SendOnly
            | O::SendOnlyImm
            | O::WriteFirst
            | O::WriteOnly
            | O::WriteOnlyImm
    );
    let last = matches!(
        op,
        O::SendLast
            | O::SendLastImm
            | O::SendOnly
            | O::SendOnlyImm
            | O::WriteLast
            | O::WriteLastImm
            | O::WriteOnly
            | O::WriteOnlyImm
    );
    let is_send = matches!(
        op,
        O::SendFirst | O::SendMiddle | O::SendLast | O::SendLastImm | O::SendOnly | O::SendOnlyImm
    );
    let is_write = matches!(
        op,
        O::WriteFirst
            | O::WriteMiddle
            | O::WriteLast
            | O::WriteLastImm
            | O::WriteOnly
            | O::WriteOnlyImm
    );
    if op == O::ReadRequest {
        let Some(reth) = p.r.reth else { return };
        if ctx
            .mrs
            .check_remote(reth.rkey, reth.va, reth.dma_len as u64, Access::REMOTE_READ)
            .is_err()
        {
            ctx.stats.drops.access += 1;
            nak(ctx, r, syndrome::NAK_REMOTE_ACCESS, psn);
            return;
        }
        let n = reth.dma_len.div_ceil(ctx.cfg.mtu).max(1);
        queue_read(ctx, r, psn, reth);
        r.epsn = r.epsn.wrapping_add(n);
        r.nak_sent = false;
        r.msn = r.msn.wrapping_add(1);
        return;
    }
    if !is_send && !is_write {
        ctx.stats.drops.invalid += 1;
        nak(ctx, r, syndrome::NAK_INVALID_REQUEST, psn);
        return;
    }
    if first == r.rx.active {
        ctx.stats.drops.invalid += 1;
        nak(ctx, r, syndrome::NAK_INVALID_REQUEST, psn);
        return;
    }
    let target = if is_write {
        if first {
            let Some(reth) = p.r.reth else { return };
            if ctx
                .mrs
                .check_remote(
                    reth.rkey,
                    reth.va,
                    reth.dma_len as u64,
                    Access::REMOTE_WRITE,
                )
                .is_err()
            {
                ctx.stats.drops.access += 1;
                nak(ctx, r, syndrome::NAK_REMOTE_ACCESS, psn);
                return;
            }
            r.rx = RxMsg {
                active: true,
                va: reth.va,
                rkey: reth.rkey,
                off: 0,
            };
        }
        let a = r.rx.va.wrapping_add(r.rx.off as u64);
        if ctx
            .mrs
            .check_remote(r.rx.rkey, a, plen as u64, Access::REMOTE_WRITE)
            .is_err()
        {
            ctx.stats.drops.access += 1;
            nak(ctx, r, syndrome::NAK_REMOTE_ACCESS, psn);
            return;
        }
        if last && matches!(op, O::WriteLastImm | O::WriteOnlyImm) && core.rq.is_empty() {
            nak(
                ctx,
                r,
                syndrome::RNR_NAK | syndrome::rnr_timer_code(ctx.cfg.rnr_timer_us),
                psn,
            );
            return;
        }
        a
    } else {
        let Some(w) = core.rq.front().copied() else {
            nak(
                ctx,
                r,
                syndrome::RNR_NAK | syndrome::rnr_timer_code(ctx.cfg.rnr_timer_us),
                psn,
            );
            return;
        };
        if first {
            r.rx = RxMsg {
                active: true,
                va: w.sge.addr,
                rkey: 0,
                off: 0,
            };
        }
        if r.rx.off.saturating_add(plen) > w.sge.len {
            ctx.stats.drops.invalid += 1;
            core.rq.pop_front();
            ctx.events.push_back(Event::Completion(Completion {
                qpn: core.qpn,
                wr_id: w.wr_id,
                opcode: WcOpcode::Recv,
                status: WcStatus::LocalLength,
                byte_len: 0,
                imm: None,
            }));
            r.rx = RxMsg::default();
            nak(ctx, r, syndrome::NAK_INVALID_REQUEST, psn);
            return;
        }
        w.sge.addr.wrapping_add(r.rx.off as u64)
    };
    if plen > 0 {
        ctx.mem.write(target, payload);
    }
    ctx.stats.rx_data_packets += 1;
    ctx.stats.rx_payload_bytes += plen as u64;
    r.rx.off = r.rx.off.wrapping_add(plen);
    r.epsn = r.epsn.wrapping_add(1);
    r.nak_sent = false;
    if last {
        let imm = p.r.imm;
        let consume = is_send || matches!(op, O::WriteLastImm | O::WriteOnlyImm);
        if consume {
            if let Some(w) = core.rq.pop_front() {
                ctx.events.push_back(Event::Completion(Completion {
                    qpn: core.qpn,
                    wr_id: w.wr_id,
                    opcode: if is_send {
                        WcOpcode::Recv
                    } else {
                        WcOpcode::RecvWriteImm
                    },
                    status: WcStatus::Success,
                    byte_len: r.rx.off,
                    imm,
                }));
            }
        }
        r.rx = RxMsg::default();
        r.msn = r.msn.wrapping_add(1);
    }
    // ACK coalescing: every ack_ratio packets, or at once on AckReq / message end.
    r.ack_pending = true;
    r.unacked = r.unacked.saturating_add(1);
    if p.r.bth.ack_req || last || r.unacked >= ctx.cfg.ack_ratio {
        r.ack_now = true;
    } else if r.ack_deadline.is_none() {
        r.ack_deadline = Some(now + ctx.cfg.ack_delay_ns);
    }
}

fn queue_read<M: Memory>(ctx: &mut Ctx<'_, M>, r: &mut RoceQp, psn: u32, reth: RethRepr) {
    if r.reads.len() < ctx.cfg.max_outstanding_msgs as usize {
        r.reads.push_back(ReadJob {
            psn,
            va: reth.va,
            len: reth.dma_len,
            sent: 0,
        });
    }
}

/// Runs the QP's due timers: coalesced ACK, RTO (go-back-N from the oldest unacknowledged PSN), CC timers.
pub(crate) fn on_timeout<M: Memory>(ctx: &mut Ctx<'_, M>, slot: &mut QpSlot, now: Instant) {
    let QpSlot { core, roce, .. } = slot;
    let Some(r) = roce.as_deref_mut() else { return };
    if r.ack_deadline.is_some_and(|t| t <= now) {
        r.ack_deadline = None;
        if r.ack_pending {
            r.ack_now = true;
        }
    }
    if r.cc.poll_timeout().is_some_and(|t| t <= now) {
        r.cc.handle_timeout(now);
    }
    if r.snd.rto_deadline.is_some_and(|t| t <= now) {
        ctx.stats.timeouts += 1;
        r.retries = r.retries.saturating_add(1);
        if r.retries > ctx.cfg.retry_limit {
            let msn = r.snd.get(r.snd.una()).map(|x| x.msn);
            fail(ctx, core, r, msn, WcStatus::RetryExceeded);
            return;
        }
        ctx.stats.retransmits.rto += 1;
        r.cc.on_timeout(now);
        r.rtt.on_timeout();
        let una = r.snd.una();
        rewind(ctx, r, una);
        r.snd.rto_deadline = if r.snd.outstanding() > 0 {
            Some(now + r.rtt.rto())
        } else {
            None
        };
    }
}

fn bth(r: &RoceQp, op: RoceOpcode, psn: u32, ack_req: bool, se: bool, pkey: u16) -> BthRepr {
    BthRepr {
        opcode: op,
        se,
        mig_req: true,
        pad_cnt: 0,
        tver: 0,
        pkey,
        fecn: false,
        becn: false,
        dest_qp: r.remote_qpn,
        ack_req,
        psn: psn & PSN24_MASK,
    }
}

fn plan(
    cfg: &EndpointConfig,
    core: &QpCore,
    r: &RoceQp,
    rr: RoceRepr,
    dscp: u8,
    addr: u64,
    len: u32,
) -> Option<TransmitPlan> {
    let mut l = super::metaroce::l2l3_from(&core.l2?, dscp, r.sport);
    l.udp_dst = cfg.udp_port;
    Some(TransmitPlan {
        qpn: core.qpn,
        l,
        headers: PlanHeaders::RoceV2(rr),
        payload_addr: addr,
        payload_len: len,
        zero_payload: false,
    })
}

/// Bytes after the BTH of a CNP: 16 reserved bytes, sent as zeros (MR-ROCE-26).
pub const CNP_PAYLOAD_LEN: u32 = 16;

/// The next frame of this QP: CNP, NAK, ACK, READ response, then (re)transmission at the go-back-N cursor.
pub(crate) fn poll_transmit<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    slot: &mut QpSlot,
    now: Instant,
) -> Option<TransmitPlan> {
    use RoceOpcode as O;
    let QpSlot { core, roce, .. } = slot;
    let r = roce.as_deref_mut()?;
    let cfg = ctx.cfg;
    if r.cnp_pending {
        r.cnp_pending = false;
        ctx.stats.cnps_sent += 1;
        let mut cnp_bth = bth(r, O::Cnp, 0, false, false, cfg.pkey);
        cnp_bth.becn = true; // MR-ROCE-26
        let rr = RoceRepr {
            bth: cnp_bth,
            reth: None,
            aeth: None,
            imm: None,
        };
        // MR-ROCE-26: the BTH is followed by 16 reserved zero bytes (no memory is read).
        let mut p = plan(cfg, core, r, rr, cfg.dscp_ctrl, 0, CNP_PAYLOAD_LEN)?;
        p.zero_payload = true;
        return Some(p);
    }
    if let Some((syn, psn)) = r.nak.take() {
        let rr = RoceRepr {
            bth: bth(r, O::Acknowledge, psn, false, false, cfg.pkey),
            reth: None,
            aeth: Some(AethRepr {
                syndrome: syn,
                msn: r.msn & PSN24_MASK,
            }),
            imm: None,
        };
        r.ack_pending = false;
        r.ack_now = false;
        return plan(cfg, core, r, rr, cfg.dscp_ctrl, 0, 0);
    }
    if r.ack_now {
        r.ack_now = false;
        r.ack_pending = false;
        r.ack_deadline = None;
        r.unacked = 0;
        ctx.stats.tx_acks += 1;
        let rr = RoceRepr {
            bth: bth(
                r,
                O::Acknowledge,
                r.epsn.wrapping_sub(1),
                false,
                false,
                cfg.pkey,
            ),
            reth: None,
            aeth: Some(AethRepr {
                syndrome: syndrome::ACK | 0x1F,
                msn: r.msn & PSN24_MASK,
            }),
            imm: None,
        };
        return plan(cfg, core, r, rr, cfg.dscp_ctrl, 0, 0);
    }
    if let Some(job) = r.reads.front_mut() {
        let n = job.len.div_ceil(cfg.mtu).max(1);
        let k = job.sent / cfg.mtu.max(1);
        let off = k * cfg.mtu;
        let len = job.len.saturating_sub(off).min(cfg.mtu);
        let op = match (n, k) {
            (1, _) => O::ReadResponseOnly,
            (_, 0) => O::ReadResponseFirst,
            (n, k) if k + 1 == n => O::ReadResponseLast,
            _ => O::ReadResponseMiddle,
        };
        let aeth = op.has_aeth().then_some(AethRepr {
            syndrome: syndrome::ACK | 0x1F,
            msn: r.msn & PSN24_MASK,
        });
        let psn = job.psn.wrapping_add(k);
        let addr = job.va.wrapping_add(off as u64);
        job.sent = off + len.max(1);
        if k + 1 >= n {
            r.reads.pop_front();
        }
        ctx.stats.tx_data_packets += 1;
        ctx.stats.tx_payload_bytes += len as u64;
        let rr = RoceRepr {
            bth: bth(r, op, psn, false, false, cfg.pkey),
            reth: None,
            aeth,
            imm: None,
        };
        return plan(cfg, core, r, rr, cfg.dscp_data, addr, len);
    }
    if core.state != QpState::Rts || now < r.next_send_at || now < r.rnr_until {
        return None;
    }
    let rtx = lt32(r.cursor, r.snd.nxt());
    let psn = r.cursor;
    let (i, off) = if rtx {
        let rec = r.snd.get(psn).copied()?;
        (core.msg_index(rec.msn)?, rec.offset)
    } else {
        if !r.snd.can_send_new(r.snd.capacity()) {
            return None;
        }
        let i = core.seg_idx;
        let m = core.sq.get_mut(i)?;
        if !m.started {
            m.started = true;
            m.msn = r.next_msn;
            r.next_msn = r.next_msn.wrapping_add(1);
            m.first_psn = psn;
            if m.kind == MsgKind::Read {
                m.npkts = m.len.div_ceil(cfg.mtu).max(1);
            }
        }
        (i, m.seg_off)
    };
    let m = core.sq[i];
    let mtu = cfg.mtu;
    let total = m.npkts;
    let k = off / mtu;
    let (op, len, consumed) = if m.kind == MsgKind::Read {
        (O::ReadRequest, 0, total - k.min(total))
    } else {
        let len = m.len.saturating_sub(off).min(mtu);
        let only = total == 1;
        let lastp = k + 1 >= total;
        let op = match (m.kind, only, k == 0, lastp) {
            (MsgKind::Write, true, _, _) => O::WriteOnly,
            (MsgKind::WriteImm, true, _, _) => O::WriteOnlyImm,
            (MsgKind::Send, true, _, _) => O::SendOnly,
            (MsgKind::SendImm, true, _, _) => O::SendOnlyImm,
            (MsgKind::Write | MsgKind::WriteImm, false, true, _) => O::WriteFirst,
            (MsgKind::Send | MsgKind::SendImm, false, true, _) => O::SendFirst,
            (MsgKind::Write, false, false, true) => O::WriteLast,
            (MsgKind::WriteImm, false, false, true) => O::WriteLastImm,
            (MsgKind::Send, false, false, true) => O::SendLast,
            (MsgKind::SendImm, false, false, true) => O::SendLastImm,
            (MsgKind::Write | MsgKind::WriteImm, _, _, _) => O::WriteMiddle,
            _ => O::SendMiddle,
        };
        (op, len, 1)
    };
    let reth = op.has_reth().then_some(if m.kind == MsgKind::Read {
        RethRepr {
            va: m.remote_addr.wrapping_add(off as u64),
            rkey: m.rkey,
            dma_len: m.len - off.min(m.len),
        }
    } else {
        RethRepr {
            va: m.remote_addr,
            rkey: m.rkey,
            dma_len: m.len,
        }
    });
    let imm = if op.has_imm() { m.imm } else { None };
    let last = m.kind == MsgKind::Read || k + 1 >= total;
    let rr = RoceRepr {
        bth: bth(r, op, psn, last, m.solicited && last, cfg.pkey),
        reth,
        aeth: None,
        imm,
    };
    let rto = r.rtt.rto();
    if rtx {
        for j in 0..consumed {
            let q = psn.wrapping_add(j);
            if let Some(rec) = r.snd.get(q).copied() {
                r.snd.on_retransmit(now, q, 0, 0, rto);
                let _ = rec;
            }
        }
        r.cursor = psn.wrapping_add(consumed);
    } else {
        for j in 0..consumed {
            let o = if m.kind == MsgKind::Read {
                (k + j) * mtu
            } else {
                off
            };
            r.snd.on_send(
                now,
                SentPkt {
                    msn: m.msn,
                    offset: o,
                    len,
                    ..Default::default()
                },
                rto,
            );
        }
        if m.kind == MsgKind::Read {
            r.read_ranges.push_back((psn, consumed));
        }
        r.cursor = r.snd.nxt();
        let mm = &mut core.sq[i];
        mm.seg_off = if m.kind == MsgKind::Read {
            m.len
        } else {
            off + len
        };
        if m.kind == MsgKind::Read || mm.seg_off >= m.len {
            mm.seg_done = true;
            core.seg_idx += 1;
        }
    }
    let bytes = len as u64 + 58;
    r.cc.on_send(now, bytes);
    let gap = r.cc.pacing_gap_ns(bytes);
    r.next_send_at = if gap == 0 { 0 } else { now + gap };
    ctx.stats.tx_data_packets += 1;
    ctx.stats.tx_payload_bytes += len as u64;
    let addr = if m.kind == MsgKind::Read {
        0
    } else {
        m.local.addr.wrapping_add(off as u64)
    };
    plan(cfg, core, r, rr, cfg.dscp_data, addr, len)
}
