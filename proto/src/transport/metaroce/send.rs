//! MetaRoCE requester / sender side (MR-REL-*, MR-PATH-*, MR-CC-*): segmentation of the send queue into
//! packets that each carry full placement information, retransmissions before new data, the receive-window
//! and congestion-window gates, pacing, EV choice per packet, ACK and NACK processing, and the timers.

use super::super::cc::{Cc, CongestionControl};
use super::super::endpoint::Ctx;
use super::super::loss::{LossCause, SentPkt};
use super::super::memory::Memory;
use super::super::mr::MrTable;
use super::super::path::PathSet;
use super::super::path::{ev_to_port, port_to_ev, RecycleCause};
use super::super::plan::{PlanHeaders, TransmitPlan};
use super::super::qp::{MsgKind, QpCore, QpState, SendMsg};
use super::super::stats::Stats;
use super::super::verbs::{Access, WcStatus};
use super::super::{EndpointConfig, Instant};
use super::conn::{Conn, ConnState, PendingCtrl};
use super::{close_conn, gate, l2l3_from, open_conn, recv};
use crate::wire::packet::{MetaRoceRepr, TypeRepr};
use crate::wire::{
    AckRepr, CtrlCode, CtrlRepr, DataFlags, DataRepr, MbhFlags, MbhRepr, NackCode, NackRepr,
    Opcode, OpenRepr, PacketType,
};

/// Wire opcode of a message kind.
fn opcode_of(k: MsgKind) -> Opcode {
    match k {
        MsgKind::Write => Opcode::Write,
        MsgKind::WriteImm => Opcode::WriteImm,
        MsgKind::Send => Opcode::Send,
        MsgKind::SendImm => Opcode::SendImm,
        MsgKind::Read => Opcode::ReadReq,
        MsgKind::ReadResp => Opcode::ReadResp,
    }
}

/// Number of started (MSN-assigned) messages at the head of the send queue.
fn started_msgs(core: &QpCore) -> usize {
    core.seg_idx + core.sq.get(core.seg_idx).map_or(0, |m| m.started as usize)
}

/// True if the sender may start or continue new data now (window, cwnd, pacing, message limit).
fn can_send_new(cfg: &EndpointConfig, core: &QpCore, conn: &Conn, now: Instant) -> bool {
    let Some(m) = core.sq.get(core.seg_idx) else {
        return false;
    };
    if !m.started && started_msgs(core) as u32 >= cfg.max_outstanding_msgs {
        return false;
    }
    gate::new_allowed(
        conn.snd.can_send_new(conn.peer_window()),
        conn.snd.inflight_bytes(),
        conn.cc.cwnd(),
        now,
        conn.next_send_at,
    )
}

/// True if a PSN declared lost may be retransmitted now (MR-REL-43, MR-REL-45): the congestion window, pacing
/// and an RNR back-off apply, except that the first retransmission after an RTO expiry is not held back by the
/// window (see [`Conn::rto_rtx`]).
fn can_retransmit(conn: &Conn, now: Instant) -> bool {
    conn.snd.has_lost()
        && gate::rtx_allowed(
            conn.rto_rtx,
            conn.snd.inflight_bytes(),
            conn.cc.cwnd(),
            now,
            conn.next_send_at,
            conn.rnr_until,
        )
}

/// True if the QP has a frame to send at `now`.
#[inline]
/// New data counts only when [`can_send_new`] allows it (window, cwnd, pacing and the `max_outstanding_msgs`
/// limit of MR-SEM-11): a QP that reported a frame must produce one when polled.
pub(crate) fn wants_tx(cfg: &EndpointConfig, core: &QpCore, conn: &Conn, now: Instant) -> bool {
    if conn.state == ConnState::Closed {
        return false;
    }
    if conn.ack_now
        || conn.announce
        || !conn.nacks.is_empty()
        || conn.ctrl == PendingCtrl::Close && conn.close_deadline.is_none()
    {
        return true;
    }
    if core.state != QpState::Rts || conn.state != ConnState::Open || conn.reopen_at.is_some() {
        return false;
    }
    conn.probe_due(now) || can_retransmit(conn, now) || can_send_new(cfg, core, conn, now)
}

/// Earliest deadline among the QP's timers.
#[inline]
pub(crate) fn next_deadline(
    cfg: &EndpointConfig,
    core: &QpCore,
    conn: &Conn,
    now: Instant,
) -> Option<Instant> {
    match conn.state {
        ConnState::Closed => None,
        ConnState::Closing => conn.close_deadline,
        ConnState::Open => {
            // Branch-light minimum: `None` is `u64::MAX` with `any` false (a real deadline may be `u64::MAX`).
            #[inline(always)]
            fn v(t: Option<Instant>) -> (Instant, bool) {
                (t.unwrap_or(Instant::MAX), t.is_some())
            }
            let (a, aa) = v(conn.snd.rto_deadline);
            let (b, ba) = v(conn.snd.rack_deadline);
            let (c, ca) = v(conn.ack_deadline);
            let (e, ea) = v(conn.reopen_at);
            let (f, fa) = v(conn.cc.poll_timeout());
            let (g, ga) = v(conn.resp_deadline);
            let mut d = a.min(b).min(c).min(e).min(f).min(g);
            let mut any = aa | ba | ca | ea | fa | ga;
            if core.state == QpState::Rts
                && conn.probe_at > now
                && (conn.probe_evs[0].is_some() || conn.probe_evs[1].is_some())
            {
                // The release time of the owed RTO PROBEs (once due, `wants_tx` reports them).
                d = d.min(conn.probe_at);
                any = true;
            }
            let has_lost = conn.snd.has_lost();
            let has_work = has_lost || core.seg_idx < core.sq.len();
            if has_work && core.state == QpState::Rts {
                // Release times only matter while they are in the future.
                if conn.next_send_at > now {
                    d = d.min(conn.next_send_at);
                    any = true;
                }
                if has_lost && conn.rnr_until > now {
                    d = d.min(conn.rnr_until);
                    any = true;
                }
            }
            if conn.is_quiet(core.sq.is_empty()) {
                d = d.min(conn.last_activity.saturating_add(cfg.idle_close_ns));
                any = true;
            }
            any.then_some(d)
        }
    }
}

/// Builds a DATA packet plan for `len` bytes at `offset` of message `m` with PSN `psn`.
#[allow(clippy::too_many_arguments)]
#[inline]
fn data_plan(
    cfg: &EndpointConfig,
    stats: &mut Stats,
    core: &QpCore,
    conn: &Conn,
    m: &SendMsg,
    offset: u32,
    len: u32,
    psn: u32,
    ev: u16,
    rtx: bool,
    now: Instant,
) -> Option<TransmitPlan> {
    let remote = core.remote?;
    let mut dflags = DataFlags::EMPTY;
    if offset == 0 {
        dflags |= DataFlags::FIRST;
    }
    let last = m.kind == MsgKind::Read || offset.saturating_add(len) >= m.len;
    if last {
        dflags |= DataFlags::LAST;
        if m.solicited {
            dflags |= DataFlags::SE;
        }
    }
    let (addr, key, payload_addr) = match m.kind {
        MsgKind::Write | MsgKind::WriteImm => (
            m.remote_addr.wrapping_add(offset as u64),
            m.rkey,
            m.local.addr,
        ),
        MsgKind::Send | MsgKind::SendImm => (offset as u64, m.ssn, m.local.addr),
        MsgKind::Read => (m.remote_addr, m.rkey, 0),
        MsgKind::ReadResp => (offset as u64, m.rkey, m.local.addr),
    };
    let mut flags = MbhFlags::EMPTY;
    if rtx {
        flags |= MbhFlags::RTX;
    }
    if last {
        flags |= MbhFlags::AR;
    }
    let open = if conn.syn_pending {
        flags |= MbhFlags::SYN;
        Some(OpenRepr {
            scid: conn.cid,
            wlog: cfg.window_log2,
            isn: conn.snd_isn,
            target_qpn: remote.qpn,
            mtu_log: cfg.mtu_log2(),
        })
    } else {
        None
    };
    let m_repr = MetaRoceRepr {
        mbh: MbhRepr {
            ptype: PacketType::Data,
            flags,
            payload_len: len as u16,
            dcid: conn.peer_cid,
            hlen: 0,
            psn,
            ts: now as u32,
        },
        ty: TypeRepr::Data(DataRepr {
            opcode: opcode_of(m.kind),
            flags: dflags,
            msn: m.msn,
            addr,
            key,
            msg_len: m.len,
            imm: if matches!(m.kind, MsgKind::WriteImm | MsgKind::SendImm) {
                Some(m.imm.unwrap_or(0))
            } else {
                None
            },
        }),
        open,
    };
    let v6 = remote.ip.is_ipv6();
    let ty_len = if matches!(m.kind, MsgKind::WriteImm | MsgKind::SendImm) {
        28
    } else {
        24
    };
    let plen = if m.kind == MsgKind::Read { 0 } else { len };
    stats.tx_bytes += super::frame_bytes(cfg, v6, ty_len, conn.syn_pending, plen);
    Some(TransmitPlan {
        qpn: core.qpn,
        l: l2l3_from(&core.l2?, cfg.dscp_data, ev_to_port(ev)),
        headers: PlanHeaders::MetaRoce(m_repr),
        payload_addr: payload_addr.wrapping_add(offset as u64),
        payload_len: if m.kind == MsgKind::Read { 0 } else { len },
        zero_payload: false,
    })
}

/// Re-checks, right before a (re)transmission, that the payload source of `len` bytes at `offset` of message
/// `m` is still readable (MR-SEM-7, MR-SEM-31): the local MR of a WRITE or SEND, and for a READ_RESP the
/// REMOTE_READ right of the READ_REQ's R_Key (MR-SEM-14). Zero-length payloads always pass.
fn source_ok(mrs: &MrTable, m: &SendMsg, offset: u32, len: u32) -> bool {
    let addr = m.local.addr.wrapping_add(offset as u64);
    match m.kind {
        MsgKind::Write | MsgKind::WriteImm | MsgKind::Send | MsgKind::SendImm => mrs
            .check_local(m.local.lkey, addr, len as u64, Access::NONE)
            .is_ok(),
        MsgKind::ReadResp => mrs
            .check_remote(m.local.lkey, addr, len as u64, Access::REMOTE_READ)
            .is_ok(),
        MsgKind::Read => true,
    }
}

/// The segment size of a message started now (MR-WIRE-30): `2^min(own, peer mtu_log)` once the peer's Open
/// extension has been received, else `min(own mtu, 4096)`.
pub(crate) fn mtu_eff(cfg: &EndpointConfig, conn: &Conn) -> u32 {
    match conn.peer_mtu_log {
        Some(p) => 1u32 << cfg.mtu_log2().min(p.clamp(9, 13)),
        None => cfg.mtu.min(super::FIRST_FLIGHT_MTU),
    }
}

/// A CTRL packet of `conn` to its peer (MR-WIRE-38); an Open extension sets SYN (MR-WIRE-14).
fn ctrl_repr(
    conn: &Conn,
    now: Instant,
    code: CtrlCode,
    echo_ts: u32,
    aux: u32,
    open: Option<OpenRepr>,
) -> MetaRoceRepr {
    MetaRoceRepr {
        mbh: MbhRepr {
            ptype: PacketType::Ctrl,
            flags: if open.is_some() {
                MbhFlags::SYN
            } else {
                MbhFlags::EMPTY
            },
            payload_len: 0,
            dcid: conn.peer_cid,
            hlen: 0,
            psn: conn.snd.nxt(),
            ts: now as u32,
        },
        ty: TypeRepr::Ctrl(CtrlRepr {
            scid: conn.cid,
            code,
            echo_ts,
            aux,
        }),
        open,
    }
}

fn ctrl_plan(
    cfg: &EndpointConfig,
    stats: &mut Stats,
    core: &QpCore,
    conn: &Conn,
    m: MetaRoceRepr,
    sport: u16,
) -> Option<TransmitPlan> {
    let remote = core.remote?;
    if conn.state == ConnState::Closed {
        return None;
    }
    stats.tx_bytes += super::frame_bytes(cfg, remote.ip.is_ipv6(), m.ty.buffer_len(), false, 0);
    Some(TransmitPlan {
        qpn: core.qpn,
        l: l2l3_from(&core.l2?, cfg.dscp_ctrl, sport),
        headers: PlanHeaders::MetaRoce(m),
        payload_addr: 0,
        payload_len: 0,
        zero_payload: false,
    })
}

/// Produces the next frame of this connection: ACK, NACK, CLOSE, retransmission, new data — in that order.
#[inline]
pub(crate) fn poll_transmit<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    core: &mut QpCore,
    conn: &mut Conn,
    qp_idx: u32,
    now: Instant,
) -> Option<TransmitPlan> {
    let _ = qp_idx;
    if conn.state == ConnState::Closed {
        return None;
    }
    if conn.ack_now {
        let plan = recv::build_ack(ctx, core, conn, now);
        if plan.is_some() {
            return plan;
        }
    }
    if conn.announce {
        // CTRL OPEN: tells the opener this side's window (ACKs do not carry it), CID and ISN.
        conn.announce = false;
        let remote = core.remote?;
        let open = OpenRepr {
            scid: conn.cid,
            wlog: ctx.cfg.window_log2,
            isn: conn.snd_isn,
            target_qpn: remote.qpn,
            mtu_log: ctx.cfg.mtu_log2(),
        };
        let m = ctrl_repr(conn, now, CtrlCode::Open, conn.ack_ts, 0, Some(open));
        let sport = ev_to_port(conn.paths.ev(0));
        ctx.stats.tx_bytes += 12; // the Open extension
        return ctrl_plan(ctx.cfg, ctx.stats, core, conn, m, sport);
    }
    if let Some(n) = conn.nacks.pop_front() {
        ctx.stats.nacks_sent[n.code as usize] += 1;
        let m = MetaRoceRepr {
            mbh: MbhRepr {
                ptype: PacketType::Nack,
                flags: MbhFlags::EMPTY,
                payload_len: 0,
                dcid: conn.peer_cid,
                hlen: 0,
                psn: n.psn,
                ts: now as u32,
            },
            ty: TypeRepr::Nack(NackRepr {
                scid: conn.cid,
                code: n.code,
                echo_ts: n.echo_ts,
                aux: n.aux,
            }),
            open: None,
        };
        return ctrl_plan(ctx.cfg, ctx.stats, core, conn, m, n.ev);
    }
    if conn.ctrl == PendingCtrl::Close && conn.close_deadline.is_none() {
        conn.close_deadline = Some(now + ctx.cfg.close_rto_ns);
        conn.close_tries = conn.close_tries.saturating_add(1);
        let m = ctrl_repr(conn, now, CtrlCode::Close, 0, conn.snd.nxt(), None);
        let sport = ev_to_port(conn.paths.ev(0));
        return ctrl_plan(ctx.cfg, ctx.stats, core, conn, m, sport);
    }
    if core.state != QpState::Rts || conn.state != ConnState::Open || conn.reopen_at.is_some() {
        return None;
    }
    // The PROBEs owed by an RTO expiry; not counted in the congestion window (MR-PATH-14).
    let probe = if conn.probe_due(now) {
        conn.probe_evs.iter_mut().find_map(|p| p.take())
    } else {
        None
    };
    if let Some(ev) = probe {
        ctx.stats.probes_sent += 1;
        let m = ctrl_repr(conn, now, CtrlCode::Probe, 0, 0, None);
        return ctrl_plan(ctx.cfg, ctx.stats, core, conn, m, ev_to_port(ev));
    }
    // Retransmissions first (MR-REL-43).
    if can_retransmit(conn, now) {
        while let Some(psn) = conn.snd.pop_lost() {
            let Some(rec) = conn.snd.get(psn).copied() else {
                continue;
            };
            let Some(i) = core.msg_index(rec.msn) else {
                continue;
            };
            if !source_ok(ctx.mrs, &core.sq[i], rec.offset, rec.len) {
                // MR-SEM-31: the source MR is gone; never read it, fail the QP instead.
                let msn = core.sq[i].msn;
                fail_qp(ctx, core, conn, Some(msn), WcStatus::LocalProtection);
                return None;
            }
            let (path, ev) = conn.paths.choose(Some(rec.path), now);
            let rto = conn.rtt.rto();
            conn.rto_rtx = false;
            conn.snd.on_retransmit(now, psn, path, ev, rto);
            let plan = data_plan(
                ctx.cfg,
                ctx.stats,
                core,
                conn,
                &core.sq[i],
                rec.offset,
                rec.len,
                psn,
                ev,
                true,
                now,
            );
            after_data_sent(ctx, conn, rec.len, now);
            return plan;
        }
    }
    if !can_send_new(ctx.cfg, core, conn, now) {
        return None;
    }
    let i = core.seg_idx;
    let seg_size = mtu_eff(ctx.cfg, conn);
    let m = core.sq.get_mut(i)?;
    if !m.started {
        m.started = true;
        // MR-WIRE-30, MR-SEM-10: the segment size is fixed when the first packet is sent.
        m.seg_size = seg_size;
        if m.kind != MsgKind::Read {
            m.npkts = m.len.div_ceil(seg_size).max(1);
        }
        m.msn = conn.next_msn;
        conn.next_msn = conn.next_msn.wrapping_add(1);
        if m.kind.consumes_wqe() {
            m.ssn = conn.next_ssn;
            conn.next_ssn = conn.next_ssn.wrapping_add(1);
        }
        m.first_psn = conn.snd.nxt();
    }
    let off = m.seg_off;
    let len = if m.kind == MsgKind::Read {
        0
    } else {
        (m.len - off).min(m.seg_size.max(1))
    };
    if !source_ok(ctx.mrs, m, off, len) {
        // MR-SEM-31: the source MR is gone; never read it, fail the QP instead.
        let msn = m.msn;
        fail_qp(ctx, core, conn, Some(msn), WcStatus::LocalProtection);
        return None;
    }
    m.seg_off = off + len;
    if m.kind == MsgKind::Read || m.seg_off >= m.len {
        m.seg_done = true;
        core.seg_idx += 1;
    }
    let msn = m.msn;
    let (path, ev) = conn.paths.choose(None, now);
    let rto = conn.rtt.rto();
    let psn = conn.snd.on_send(
        now,
        SentPkt {
            msn,
            offset: off,
            len,
            path,
            ev,
            ..Default::default()
        },
        rto,
    );
    let plan = data_plan(
        ctx.cfg,
        ctx.stats,
        core,
        conn,
        &core.sq[i],
        off,
        len,
        psn,
        ev,
        false,
        now,
    );
    after_data_sent(ctx, conn, len, now);
    plan
}

/// Duration of the READ-response timer after `resp_retries` expiries: the base RTO doubled per expiry, capped
/// at `rto_max_ns` (the schedule of MR-REL-30 with a backoff of its own).
fn resp_timeout(cfg: &EndpointConfig, conn: &Conn) -> u64 {
    let b = conn.rtt.base_rto();
    b.checked_shl(conn.resp_retries as u32)
        .filter(|v| v >> conn.resp_retries == b)
        .unwrap_or(u64::MAX)
        .min(cfg.rto_max_ns.max(b))
}

/// True if a started READ has its request acknowledged and its response not yet completely received.
fn awaiting_read_resp(core: &QpCore) -> bool {
    core.sq
        .iter()
        .take_while(|m| m.started)
        .any(|m| m.kind == MsgKind::Read && m.acked_pkts >= m.npkts && !m.read_done)
}

/// DATA arrived from the peer: its send direction is alive, so the READ-response timer starts over.
#[inline]
pub(crate) fn on_peer_data(conn: &mut Conn, cfg: &EndpointConfig, now: Instant) {
    if conn.resp_deadline.is_some() {
        conn.resp_retries = 0;
        conn.resp_deadline = Some(now.saturating_add(resp_timeout(cfg, conn)));
    }
}

/// Expiry of the READ-response timer (MR-REL-55, MR-SEM completion guarantee): a READ whose request the
/// responder acknowledged must not wait forever for a response that stopped coming (the responder may have
/// failed, or every path back may be dead). Each expiry without DATA from the peer counts like an RTO expiry;
/// when the count exceeds `retry_limit` the QP moves to ERROR, the oldest started, unfinished WR completes with
/// `RetryExceeded` and the others `Flushed`.
fn on_resp_timeout<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    core: &mut QpCore,
    conn: &mut Conn,
    now: Instant,
) {
    if !awaiting_read_resp(core) {
        conn.resp_deadline = None;
        conn.resp_retries = 0;
        return;
    }
    conn.resp_retries = conn.resp_retries.saturating_add(1);
    if conn.resp_retries > ctx.cfg.retry_limit {
        ctx.stats.response_timeouts += 1;
        conn.resp_deadline = None;
        let msn = oldest_started_msn(core);
        fail_qp(ctx, core, conn, msn, WcStatus::RetryExceeded);
        return;
    }
    conn.resp_deadline = Some(now.saturating_add(resp_timeout(ctx.cfg, conn)));
}

fn after_data_sent<M: Memory>(ctx: &mut Ctx<'_, M>, conn: &mut Conn, len: u32, now: Instant) {
    let bytes = len as u64 + super::super::loss::PKT_OVERHEAD;
    conn.cc.on_send(now, bytes);
    let gap = conn.cc.pacing_gap_ns(bytes);
    conn.next_send_at = if gap == 0 { 0 } else { now + gap };
    conn.last_activity = now;
    ctx.stats.tx_data_packets += 1;
    ctx.stats.tx_payload_bytes += len as u64;
}

/// Moves the QP to error because of message `msn` (MR-SEM-35, MR-SEM-38) and stops all retransmission.
pub(crate) fn fail_qp<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    core: &mut QpCore,
    conn: &mut Conn,
    msn: Option<u32>,
    status: WcStatus,
) {
    if core.enter_error(msn, status, ctx.events) {
        let nxt = conn.snd.nxt();
        conn.snd.reset(nxt);
        conn.rto_rtx = false;
        conn.probe_evs = [None; 2];
        conn.resp_deadline = None;
    }
}

/// MSN of the oldest unfinished started message.
fn oldest_started_msn(core: &QpCore) -> Option<u32> {
    core.sq
        .iter()
        .find(|m| m.started && !m.done())
        .map(|m| m.msn)
}

/// Processes an ACK for this connection's send direction (MR-REL-20..31, MR-PATH-7, MR-CC-4).
pub(crate) fn on_ack<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    core: &mut QpCore,
    conn: &mut Conn,
    now: Instant,
    mbh: &MbhRepr,
    a: &AckRepr,
) {
    ctx.stats.rx_acks += 1;
    conn.syn_pending = false; // MR-CONN-6, MR-CONN-7: any ACK ends the SYN phase of this direction.
    if conn.peer_cid == 0 {
        conn.peer_cid = a.scid;
    }
    if conn.state == ConnState::Closing && conn.snd.outstanding() > 0 {
        conn.state = ConnState::Open;
    }
    let sample = (now as u32).wrapping_sub(a.echo_ts) as u64;
    let sample_ok = sample < (1 << 31);
    if sample_ok {
        conn.rtt.on_sample(now, sample.max(1));
    }
    let ece = a.flags.contains(crate::wire::AckFlags::ECE);
    let dup = a.flags.contains(crate::wire::AckFlags::DUP);
    conn.snd.on_reordering_signal(now, conn.rtt.srtt(), dup);
    let rto = conn.rtt.rto();
    let mut read_req_acked = false;
    let res = conn.snd.on_ack(
        now,
        mbh.psn,
        a.sack_base,
        &a.sack.0,
        rto,
        |pkt: &SentPkt| {
            if let Some(i) = core.msg_index(pkt.msn) {
                core.sq[i].acked_pkts += 1;
                read_req_acked |= core.sq[i].kind == MsgKind::Read;
            }
            if !ece {
                // MR-PATH-3: every packet this clean ACK newly covers frees its entry for reuse.
                conn.paths.on_clean_ack(pkt.path, pkt.ev);
            }
        },
    );
    if res.invalid {
        ctx.stats.drops.invalid += 1;
        return;
    }
    if res.newly_acked > 0 {
        // Progress: the window governs retransmissions again.
        conn.rto_rtx = false;
        conn.rto_retries = 0;
        conn.reopens = 0;
        conn.last_activity = now;
    }
    if res.cack_advanced {
        conn.rnr_count = 0;
    }
    if res.newly_acked > 0 {
        // This EV just completed a round trip in both directions: the next RTO probe goes on it.
        conn.good_ev = Some(port_to_ev(a.echo_ev));
    }
    if read_req_acked && conn.resp_deadline.is_none() {
        // A READ now waits for its response: bound the wait (MR-REL-55, see `on_timeout`).
        conn.resp_retries = 0;
        conn.resp_deadline = Some(now.saturating_add(resp_timeout(ctx.cfg, conn)));
    }
    conn.paths.set_srtt(conn.rtt.srtt());
    if ece {
        ctx.stats.ece_received += 1;
        let ev = port_to_ev(a.echo_ev);
        if let Some(idx) = conn.paths.index_of(ev) {
            if conn.paths.recycle(idx, ev, RecycleCause::Ece, now) {
                ctx.stats.path_recycles += 1;
            }
        }
    }
    if res.newly_acked > 0 || ece {
        conn.cc
            .on_ack(now, res.acked_bytes, sample_ok.then_some(sample), ece);
    }
    detect(ctx, conn, now);
    core.retire_done(ctx.events);
    if conn.rcv_init && conn.rx_head_used() {
        // A retired READ response may make room for a stalled READ request. (`deliver` does nothing while the
        // head slot of the receive message table is empty.)
        recv::deliver(ctx, core, conn, now);
    }
}

fn on_lost(
    stats: &mut Stats,
    paths: &mut PathSet,
    cc: &mut Cc,
    rec: &SentPkt,
    cause: LossCause,
    now: Instant,
) {
    let r = &mut stats.retransmits;
    match cause {
        LossCause::Trim => r.trim += 1,
        LossCause::Time => r.time += 1,
        LossCause::Distance => r.distance += 1,
        LossCause::Rto => r.rto += 1,
        LossCause::Rnr => r.rnr += 1,
    }
    let rc = match cause {
        LossCause::Trim => Some(RecycleCause::Trim),
        LossCause::Rnr => None,
        _ => Some(RecycleCause::Loss),
    };
    if let Some(rc) = rc {
        if paths.recycle(rec.path, rec.ev, rc, now) {
            stats.path_recycles += 1;
        }
    }
    match cause {
        LossCause::Trim => cc.on_nack_trim(now),
        LossCause::Time | LossCause::Distance => cc.on_loss(now),
        _ => {}
    }
}

fn detect<M: Memory>(ctx: &mut Ctx<'_, M>, conn: &mut Conn, now: Instant) {
    let srtt = conn.rtt.srtt();
    let reo = conn.rtt.reo_wnd();
    let Conn { snd, paths, cc, .. } = conn;
    let stats = &mut *ctx.stats;
    snd.detect_losses(now, srtt, reo, |_, rec, c| {
        on_lost(stats, paths, cc, rec, c, now)
    });
}

/// Processes a NACK (MR-REL-34, MR-REL-35, MR-REL-50, MR-SEM-29, MR-SEM-30, MR-SEM-35, MR-CONN-35).
pub(crate) fn on_nack<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    core: &mut QpCore,
    conn: &mut Conn,
    qp_idx: u32,
    now: Instant,
    mbh: &MbhRepr,
    n: &NackRepr,
) {
    ctx.stats.nacks_received[n.code as usize] += 1;
    if conn.peer_cid == 0 {
        conn.peer_cid = n.scid;
    }
    let psn = mbh.psn;
    match n.code {
        NackCode::Trimmed => {
            // MR-REL-34/35, MR-REL-50: only a NACK for an outstanding, unacknowledged PSN that echoes the TS of its
            // latest transmission declares it lost; a NACK for an older copy is ignored.
            let fresh = conn
                .snd
                .get(psn)
                .is_some_and(|r| r.sent as u32 == n.echo_ts)
                && !conn.snd.is_acked(psn);
            if !fresh {
                ctx.stats.drops.stale_nack += 1;
                return;
            }
            if let Some(rec) = conn.snd.mark_lost(psn) {
                on_lost(
                    ctx.stats,
                    &mut conn.paths,
                    &mut conn.cc,
                    &rec,
                    LossCause::Trim,
                    now,
                );
            }
        }
        NackCode::Rnr => {
            if conn.snd.get(psn).is_none() || conn.snd.is_acked(psn) {
                ctx.stats.drops.stale_nack += 1; // MR-REL-50
                return;
            }
            if let Some(rec) = conn.snd.mark_lost(psn) {
                if now >= conn.rnr_until {
                    conn.rnr_count = conn.rnr_count.saturating_add(1);
                }
                conn.rnr_until = now.saturating_add((n.aux as u64).max(1) * 1000);
                on_lost(
                    ctx.stats,
                    &mut conn.paths,
                    &mut conn.cc,
                    &rec,
                    LossCause::Rnr,
                    now,
                );
                if conn.rnr_count > ctx.cfg.rnr_retry {
                    fail_qp(ctx, core, conn, Some(rec.msn), WcStatus::RnrRetryExceeded);
                }
            }
        }
        NackCode::Access | NackCode::Invalid | NackCode::Unsupported => {
            // MR-SEM-35: matched by aux = MSN to a started message; a NACK naming none is ignored.
            if core.msg_index(n.aux).is_none() {
                ctx.stats.drops.stale_nack += 1;
                return;
            }
            let status = if n.code == NackCode::Access {
                WcStatus::RemoteAccess
            } else {
                WcStatus::RemoteInvalidRequest
            };
            fail_qp(ctx, core, conn, Some(n.aux), status);
        }
        NackCode::NoContext => {
            conn.reopen_at = Some(now.saturating_add(n.aux as u64 * 1000));
            let _ = qp_idx;
        }
    }
}

/// Reopens the connection after the peer lost its context or restarted (MR-CONN-18, MR-CONN-35, MR-REL-56): new CID and ISN, every unfinished
/// message restarts from its first byte; outstanding READ responses are dropped (the peer re-requests).
pub(crate) fn reopen<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    core: &mut QpCore,
    conn: &mut Conn,
    qp_idx: u32,
    now: Instant,
) {
    let reopens = conn.reopens.saturating_add(1);
    if reopens > ctx.cfg.retry_limit {
        let msn = oldest_started_msn(core);
        fail_qp(ctx, core, conn, msn, WcStatus::RetryExceeded);
        return;
    }
    ctx.stats.retransmits.no_context += conn.snd.unacked().count() as u64;
    close_conn(ctx, core, conn);
    let mut kept = alloc::collections::VecDeque::with_capacity(core.sq.len());
    for mut m in core.sq.drain(..) {
        if m.kind == MsgKind::ReadResp {
            continue;
        }
        m.started = false;
        m.seg_off = 0;
        m.seg_done = false;
        m.acked_pkts = 0;
        m.read_done = false;
        m.resp_bytes = 0;
        kept.push_back(m);
    }
    core.sq = kept;
    core.sq_internal = 0;
    core.seg_idx = 0;
    let opened = open_conn(ctx, core, conn, qp_idx, now);
    conn.reopens = reopens;
    if !opened {
        fail_qp(ctx, core, conn, None, WcStatus::RetryExceeded);
    }
}

/// Runs the connection's due timers: delayed ACK, RACK, RTO (with retry limit), idle close, CLOSE
/// retransmission, reopen after NO_CONTEXT, CC timers.
pub(crate) fn on_timeout<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    core: &mut QpCore,
    conn: &mut Conn,
    qp_idx: u32,
    now: Instant,
) {
    match conn.state {
        ConnState::Closed => return,
        ConnState::Closing => {
            if conn.close_deadline.is_some_and(|d| d <= now) {
                if conn.close_tries > ctx.cfg.retry_limit {
                    close_conn(ctx, core, conn);
                } else {
                    conn.close_deadline = None; // poll_transmit re-sends CLOSE
                }
            }
            return;
        }
        ConnState::Open => {}
    }
    if conn.reopen_at.is_some_and(|t| t <= now) {
        conn.reopen_at = None;
        reopen(ctx, core, conn, qp_idx, now);
        return;
    }
    if conn.ack_deadline.is_some_and(|t| t <= now) {
        conn.ack_deadline = None;
        if conn.ack_pending {
            conn.ack_now = true;
        }
    }
    if conn.cc.poll_timeout().is_some_and(|t| t <= now) {
        conn.cc.handle_timeout(now);
    }
    if conn.snd.rack_deadline.is_some_and(|t| t <= now) {
        detect(ctx, conn, now);
    }
    if conn.snd.rto_deadline.is_some_and(|t| t <= now) {
        ctx.stats.timeouts += 1;
        conn.rto_retries = conn.rto_retries.saturating_add(1);
        if conn.rto_retries > ctx.cfg.retry_limit {
            let msn = oldest_started_msn(core);
            fail_qp(ctx, core, conn, msn, WcStatus::RetryExceeded);
        } else {
            let rto = conn.rtt.rto();
            let Conn {
                snd,
                paths,
                cc,
                good_ev,
                ..
            } = conn;
            let stats = &mut *ctx.stats;
            snd.on_rto(now, rto, |_, rec| {
                // The round trip that last worked does not vouch for its EV once a later packet on it was lost
                // (MR-PATH-3 reuses that EV first, MR-PATH-17).
                if *good_ev == Some(rec.ev) {
                    *good_ev = None;
                }
                on_lost(stats, paths, cc, rec, LossCause::Rto, now)
            });
            // Each expiry also sends CTRL PROBEs, half an RTT after its retransmission so that they reach the
            // receiver after it: a PROBE's ACK carries the receiver's whole CACK + SACK state, so PSNs that did
            // arrive but whose ACKs were lost count as progress (MR-REL-31) even when the retransmission's own
            // ACK is lost too. One goes on the EV of the latest round trip that acknowledged something (used
            // once: a later progress ACK renews it); from the second consecutive expiry on, another goes on the
            // EVs of the set in turn, which the losses of the expiries have recycled (MR-PATH-9, MR-PATH-11).
            let rotating = if conn.rto_retries >= 2 {
                let n = conn.paths.len().max(1);
                conn.probe_idx = ((conn.probe_idx as usize + 1) % n) as u8;
                Some(conn.paths.ev(conn.probe_idx))
            } else {
                None
            };
            conn.probe_evs = [conn.good_ev.take(), rotating];
            conn.probe_at = now.saturating_add((conn.rtt.srtt() / 2).max(1_000));
            // The expiry's retransmission must leave even though packets sent within the last timeout are still
            // counted in flight against the window that `on_timeout` collapses to one MTU: otherwise an expiry
            // can retransmit nothing and still count towards `retry_limit` (MR-REL-39, MR-REL-45).
            conn.rto_rtx = conn.snd.has_lost();
            conn.rtt.on_timeout();
            conn.cc.on_timeout(now);
            if conn.snd.outstanding() > 0 {
                conn.snd.rto_deadline = Some(now + conn.rtt.rto());
            }
        }
    }
    if conn.resp_deadline.is_some_and(|t| t <= now) {
        on_resp_timeout(ctx, core, conn, now);
        if core.state == QpState::Error {
            return;
        }
    }
    if conn.is_quiet(core.sq.is_empty())
        && now >= conn.last_activity.saturating_add(ctx.cfg.idle_close_ns)
    {
        // MR-CONN-19: idle close.
        conn.state = ConnState::Closing;
        conn.ctrl = PendingCtrl::Close;
        conn.close_deadline = None;
        conn.close_tries = 0;
    }
}
