//! The MetaRoCE engine: connection lifecycle ([`conn`]), requester / sender side ([`send`], with its transmit
//! [`gate`]) and responder / receiver side ([`recv`]). This file routes received frames to a QP and holds the per-QP entry points the
//! [`Endpoint`](super::Endpoint) calls.

pub mod conn;
pub mod gate;
pub mod recv;
pub mod send;

use super::endpoint::{Ctx, QpSlot, MAX_CTL_QUEUE};
use super::memory::Memory;
use super::plan::{PlanHeaders, TransmitPlan};
use super::qp::{QpCore, QpState};
use super::stats::Stats;
use super::verbs::{Event, RemoteQp};
use super::Instant;
use crate::wire;
use crate::wire::packet::{
    parse_frame, parse_frame_fast, FastFrame, FastType, IpRepr, MetaRoceRepr, ParsedFrame,
    TypeRepr, L2L3,
};
use crate::wire::{CtrlCode, CtrlRepr, MbhFlags, MbhRepr, NackCode, NackRepr, PacketType};
use alloc::boxed::Box;
use conn::{Conn, ConnState};
use core::net::IpAddr;

/// ECN codepoint every packet is sent with (ECT(0), MR-ENC-22).
pub const ECT0: u8 = 0b10;
/// ECN codepoint CE.
pub const CE: u8 = 0b11;

/// The MetaRoCE domain's baseline payload size (MR-WIRE-30/31): a sender's first flight to a peer whose Open
/// extension it has not seen uses at most this much, and every receiver accepts at least this much.
pub const FIRST_FLIGHT_MTU: u32 = 4096;

/// Counts a parse error under its own drop reason (MR-ENC-41).
pub(crate) fn count_parse_error(stats: &mut Stats, e: wire::Error) {
    stats.drops.count_parse_error(e);
}

/// Layers 2-4 for a packet to `remote` with DSCP `dscp` and UDP source port `sport`.
pub(crate) fn l2l3(
    cfg: &super::EndpointConfig,
    remote_mac: [u8; 6],
    remote_ip: IpAddr,
    dscp: u8,
    sport: u16,
) -> L2L3 {
    let ip = match (cfg.ip, remote_ip) {
        (IpAddr::V6(s), IpAddr::V6(d)) => IpRepr::V6 {
            src: s.octets(),
            dst: d.octets(),
            dscp,
            ecn: ECT0,
            flow_label: 0,
            hop_limit: cfg.ttl,
        },
        (s, d) => IpRepr::V4 {
            src: v4(s),
            dst: v4(d),
            dscp,
            ecn: ECT0,
            ttl: cfg.ttl,
        },
    };
    L2L3 {
        eth_src: cfg.mac,
        eth_dst: remote_mac,
        vlan: cfg.vlan,
        ip,
        udp_src: sport,
        udp_dst: cfg.udp_port,
    }
}

/// `t` (a QP's layer 2-4 template, see [`QpCore::l2`]) with DSCP `dscp` and UDP source port `sport`.
#[inline(always)]
pub(crate) fn l2l3_from(t: &L2L3, dscp: u8, sport: u16) -> L2L3 {
    let mut l = *t;
    match &mut l.ip {
        IpRepr::V4 { dscp: d, .. } | IpRepr::V6 { dscp: d, .. } => *d = dscp,
    }
    l.udp_src = sport;
    l
}

fn v4(a: IpAddr) -> [u8; 4] {
    match a {
        IpAddr::V4(a) => a.octets(),
        IpAddr::V6(a) => a.to_ipv4_mapped().map_or([0; 4], |x| x.octets()),
    }
}

/// Source IP of a parsed frame.
pub(crate) fn src_ip(ip: &IpRepr) -> IpAddr {
    match ip {
        IpRepr::V4 { src, .. } => IpAddr::from(*src),
        IpRepr::V6 { src, .. } => IpAddr::from(*src),
    }
}

/// True if the frame is addressed to `ours`.
pub(crate) fn dst_is(ip: &IpRepr, ours: IpAddr) -> bool {
    match (ip, ours) {
        (IpRepr::V4 { dst, .. }, IpAddr::V4(o)) => *dst == o.octets(),
        (IpRepr::V6 { dst, .. }, IpAddr::V6(o)) => *dst == o.octets(),
        _ => false,
    }
}

/// ECN bits of a parsed frame.
pub(crate) fn ecn_of(ip: &IpRepr) -> u8 {
    match ip {
        IpRepr::V4 { ecn, .. } | IpRepr::V6 { ecn, .. } => *ecn,
    }
}

/// Frame length of a MetaRoCE packet computed from scalars: Ethernet (+VLAN), IP, UDP, MBH, type header `ty_len`,
/// Open extension if `syn`, payload, ICV.
#[inline]
pub(crate) fn frame_bytes(
    cfg: &super::EndpointConfig,
    v6: bool,
    ty_len: usize,
    syn: bool,
    payload: u32,
) -> u64 {
    let eth = if cfg.vlan.is_some() { 18 } else { 14 };
    let ip = if v6 { 40 } else { 20 };
    (eth + ip + 8 + 16 + ty_len + if syn { 12 } else { 0 } + 4) as u64 + payload as u64
}

/// A control-class frame (ACK/NACK/CTRL) back to the sender of `p`, for the endpoint-level queue.
fn reply_plan(cfg: &super::EndpointConfig, p: &ParsedFrame<'_>, m: MetaRoceRepr) -> TransmitPlan {
    let mut l = l2l3(
        cfg,
        p.l.eth_src,
        src_ip(&p.l.ip),
        cfg.dscp_ctrl,
        p.l.udp_src,
    );
    l.udp_src = p.l.udp_src;
    TransmitPlan {
        qpn: 0,
        l,
        headers: PlanHeaders::MetaRoce(m),
        payload_addr: 0,
        payload_len: 0,
        zero_payload: false,
    }
}

fn push_ctl(ctx: &mut Ctx<'_, impl Memory>, plan: TransmitPlan) {
    if ctx.ctl.len() < MAX_CTL_QUEUE {
        ctx.ctl.push_back(plan);
    }
}

/// Finds the QP slot of `qpn`.
fn slot_of_qpn(qps: &[Option<QpSlot>], qp_gen: &[u8], qpn: u32) -> Option<usize> {
    let idx = (qpn & 0xFFFF).checked_sub(1)? as usize;
    (qpn >> 16 == *qp_gen.get(idx)? as u32 && qps.get(idx)?.is_some() && qpn <= 0xFF_FFFF)
        .then_some(idx)
}

/// Opens a fresh connection on `conn` for QP slot `qp_idx` (MR-CONN-1, MR-CONN-4, MR-CONN-8). Returns false if the connection
/// limit is reached.
pub(crate) fn open_conn(
    ctx: &mut Ctx<'_, impl Memory>,
    core: &QpCore,
    conn: &mut Conn,
    qp_idx: u32,
    now: Instant,
) -> bool {
    let Some(cid) = ctx.cids.alloc(qp_idx) else {
        return false;
    };
    conn.reset_for_open(ctx.cfg, cid, now, ctx.rng);
    ctx.stats.connections_opened += 1;
    ctx.events
        .push_back(Event::ConnectionOpened { qpn: core.qpn, cid });
    true
}

/// Closes the connection (releases the CID, emits `ConnectionClosed`).
pub(crate) fn close_conn(ctx: &mut Ctx<'_, impl Memory>, core: &QpCore, conn: &mut Conn) {
    if conn.state == ConnState::Closed {
        return;
    }
    ctx.cids.release(conn.cid);
    ctx.stats.connections_closed += 1;
    ctx.events.push_back(Event::ConnectionClosed {
        qpn: core.qpn,
        cid: conn.cid,
    });
    conn.mark_closed();
}

/// Called after a WR was queued: opens the connection if there is none (0-RTT, MR-CONN-4).
pub(crate) fn on_posted(
    ctx: &mut Ctx<'_, impl Memory>,
    slot: &mut QpSlot,
    qp_idx: u32,
    now: Instant,
) {
    let conn = slot
        .meta
        .get_or_insert_with(|| Box::new(Conn::new(ctx.cfg, ctx.rng.next_u64())));
    if conn.state == ConnState::Closed {
        open_conn(ctx, &slot.core, conn, qp_idx, now);
    } else if conn.state == ConnState::Closing {
        // New work cancels an idle close; the peer's CLOSE_ACK (if any) then finds us open and is ignored.
        conn.state = ConnState::Open;
        conn.ctrl = conn::PendingCtrl::None;
        conn.close_deadline = None;
    }
    conn.last_activity = now;
}

/// Routes one received frame (MR-WIRE-*, MR-CONN-*). Returns the QP slot that was touched.
pub(crate) fn on_frame<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    qps: &mut [Option<QpSlot>],
    qp_gen: &[u8],
    now: Instant,
    frame: &[u8],
) -> Option<u32> {
    if let Some(f) = parse_frame_fast(
        frame,
        ctx.cfg.udp_port,
        ctx.cfg.dscp_trim,
        ctx.cfg.verify_icv,
    ) {
        if let Some(r) = on_frame_fast(ctx, qps, now, &f) {
            return r;
        }
    }
    // Matched by reference: moving the parsed frame out of the `Result` would copy it.
    let parsed = parse_frame(
        frame,
        ctx.cfg.udp_port,
        ctx.cfg.dscp_trim,
        ctx.cfg.verify_icv,
    );
    let p = match &parsed {
        Ok(p) => p,
        Err(e) => {
            count_parse_error(ctx.stats, *e);
            return None;
        }
    };
    if !p.trimmed && !p.icv_ok {
        ctx.stats.drops.bad_icv += 1;
        return None;
    }
    if !dst_is(&p.l.ip, ctx.cfg.ip) {
        ctx.stats.drops.not_for_us += 1;
        return None;
    }
    let mbh = p.m.mbh;
    let by_cid = if mbh.dcid != 0 {
        ctx.cids.lookup(mbh.dcid)
    } else {
        None
    };
    if let Some(idx) = by_cid {
        let slot = qps.get_mut(idx as usize)?.as_mut()?;
        if slot.core.remote.is_none_or(|r| r.ip != src_ip(&p.l.ip)) {
            // MR-CONN-3: a packet naming a live connection must come from that connection's peer.
            ctx.stats.drops.wrong_peer += 1;
            return None;
        }
        let conn = slot.meta.as_deref_mut()?;
        if let (false, Some(ox)) = (p.trimmed, &p.m.open) {
            accept_open(ctx, &mut slot.core, conn, idx, now, ox);
        }
        dispatch(ctx, slot, idx, now, p);
        return Some(idx);
    }
    // No context for the DCID.
    match (&p.m.ty, p.m.open, p.trimmed) {
        (TypeRepr::Data(_), Some(ox), false) | (TypeRepr::Ctrl(_), Some(ox), false)
            if mbh.flags.contains(MbhFlags::SYN) =>
        {
            let Some(idx) = slot_of_qpn(qps, qp_gen, ox.target_qpn) else {
                ctx.stats.drops.unknown_connection += 1;
                return None;
            };
            let slot = qps.get_mut(idx)?.as_mut()?;
            let peer_ok = slot.core.state == QpState::Rts
                && slot
                    .core
                    .remote
                    .is_some_and(|r: RemoteQp| r.ip == src_ip(&p.l.ip));
            if !peer_ok {
                ctx.stats.drops.unknown_connection += 1;
                return None;
            }
            let conn = slot
                .meta
                .get_or_insert_with(|| Box::new(Conn::new(ctx.cfg, ctx.rng.next_u64())));
            if conn.state == ConnState::Closed {
                if !open_conn(ctx, &slot.core, conn, idx as u32, now) {
                    ctx.stats.drops.unknown_connection += 1;
                    return None;
                }
                conn.announce = true;
            }
            accept_open(ctx, &mut slot.core, conn, idx as u32, now, &ox);
            dispatch(ctx, slot, idx as u32, now, p);
            Some(idx as u32)
        }
        (TypeRepr::Data(_), _, true) if mbh.dcid == 0 || mbh.flags.contains(MbhFlags::SYN) => {
            // A trimmed opening packet: its Open extension is gone, so the connection cannot be identified.
            // Dropped; the sender recovers by loss detection.
            ctx.stats.trimmed_received += 1;
            ctx.stats.drops.unknown_connection += 1;
            None
        }
        (TypeRepr::Data(_), _, _) => {
            // MR-CONN-32, MR-CONN-33: NACK NO_CONTEXT; DCID 0, SCID = the unknown CID the packet carried.
            ctx.stats.drops.unknown_connection += 1;
            ctx.stats.nacks_sent[NackCode::NoContext as usize] += 1;
            let m = MetaRoceRepr {
                mbh: MbhRepr {
                    ptype: PacketType::Nack,
                    flags: MbhFlags::EMPTY,
                    payload_len: 0,
                    dcid: 0,
                    hlen: 0,
                    psn: mbh.psn,
                    ts: now as u32,
                },
                ty: TypeRepr::Nack(NackRepr {
                    scid: mbh.dcid,
                    code: NackCode::NoContext,
                    echo_ts: mbh.ts,
                    aux: ctx.cfg.no_context_retry_us,
                }),
                open: None,
            };
            let plan = reply_plan(ctx.cfg, p, m);
            push_ctl(ctx, plan);
            None
        }
        (TypeRepr::Nack(n), _, _) if n.code == NackCode::NoContext && mbh.dcid == 0 => {
            let from = src_ip(&p.l.ip);
            let idx = qps.iter().position(|s| {
                s.as_ref().is_some_and(|s| {
                    s.core.remote.is_some_and(|r| r.ip == from)
                        && s.meta.as_ref().is_some_and(|c| {
                            c.state != ConnState::Closed && n.scid != 0 && c.peer_cid == n.scid
                        })
                })
            });
            ctx.stats.nacks_received[NackCode::NoContext as usize] += 1;
            let Some(idx) = idx else {
                ctx.stats.drops.unknown_connection += 1;
                return None;
            };
            let slot = qps.get_mut(idx)?.as_mut()?;
            let conn = slot.meta.as_deref_mut()?;
            conn.reopen_at = Some(now.saturating_add(n.aux as u64 * 1000));
            Some(idx as u32)
        }
        _ => {
            ctx.stats.drops.unknown_connection += 1;
            None
        }
    }
}

/// The receive fast path for a frame accepted by [`parse_frame_fast`] (DATA or ACK without SYN, for a known
/// connection): the same processing as the general path of [`on_frame`] without building a `ParsedFrame`.
/// `None` means "not handled, nothing changed": the caller takes the general path.
#[inline(always)]
fn on_frame_fast<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    qps: &mut [Option<QpSlot>],
    now: Instant,
    f: &FastFrame<'_>,
) -> Option<Option<u32>> {
    // Decoded first: a malformed type header must reach the general path before anything is looked up.
    let ty = f.ty()?;
    let IpAddr::V4(ours) = ctx.cfg.ip else {
        return None;
    };
    if f.ip_dst != ours.octets() || f.mbh.dcid == 0 {
        return None;
    }
    let idx = ctx.cids.lookup(f.mbh.dcid)?;
    let Some(Some(slot)) = qps.get_mut(idx as usize) else {
        return Some(None);
    };
    let QpSlot { core, meta, .. } = slot;
    if core.remote.is_none_or(|r| r.ip != IpAddr::from(f.ip_src)) {
        // MR-CONN-3: a packet naming a live connection must come from that connection's peer.
        ctx.stats.drops.wrong_peer += 1;
        return Some(None);
    }
    let Some(conn) = meta.as_deref_mut() else {
        return Some(None);
    };
    match &ty {
        FastType::Data(d) => {
            let rx = recv::RxData {
                mbh: f.mbh,
                port: f.udp_src,
                ecn: f.ecn,
                trimmed: false,
                payload: f.payload,
            };
            recv::on_data(ctx, core, conn, now, &rx, d);
        }
        FastType::Ack(a) => send::on_ack(ctx, core, conn, now, &f.mbh, a),
    }
    Some(Some(idx))
}

/// Applies a received Open extension to a connection (MR-CONN-7, MR-CONN-15, MR-CONN-16, MR-CONN-18): learns the peer's CID, window and ISN;
/// a different SCID than the known peer CID means the peer restarted, so this side reopens as well.
fn accept_open(
    ctx: &mut Ctx<'_, impl Memory>,
    core: &mut QpCore,
    conn: &mut Conn,
    qp_idx: u32,
    now: Instant,
    ox: &wire::OpenRepr,
) {
    if conn.peer_cid != 0 && conn.peer_cid != ox.scid {
        send::reopen(ctx, core, conn, qp_idx, now);
    }
    if conn.peer_cid == 0 {
        conn.peer_cid = ox.scid;
    }
    conn.peer_wlog = ox.wlog.clamp(8, 16);
    if conn.peer_mtu_log.is_none() {
        // MR-CONN-7, MR-WIRE-30: the peer's MTU from its first Open extension.
        conn.peer_mtu_log = Some(ox.mtu_log.clamp(9, 13));
    }
    if !conn.rcv_init {
        conn.reset_receive(ox.isn);
    }
}

fn dispatch<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    slot: &mut QpSlot,
    qp_idx: u32,
    now: Instant,
    p: &ParsedFrame<'_>,
) {
    let QpSlot { core, meta, .. } = slot;
    let Some(conn) = meta.as_deref_mut() else {
        return;
    };
    match &p.m.ty {
        TypeRepr::Data(d) => recv::on_data(ctx, core, conn, now, &recv::RxData::of(p), d),
        TypeRepr::Ack(a) => send::on_ack(ctx, core, conn, now, &p.m.mbh, a),
        TypeRepr::Nack(n) => send::on_nack(ctx, core, conn, qp_idx, now, &p.m.mbh, n),
        TypeRepr::Ctrl(c) => on_ctrl(ctx, core, conn, now, p, c),
    }
}

fn on_ctrl<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    core: &mut QpCore,
    conn: &mut Conn,
    now: Instant,
    p: &ParsedFrame<'_>,
    c: &CtrlRepr,
) {
    match c.code {
        CtrlCode::Open | CtrlCode::Probe => {
            // Explicit open or path probe: answer with an ACK that echoes this packet's EV.
            conn.ack_pending = true;
            conn.ack_now = true;
            conn.ack_psn = conn.rcv.expected();
            conn.ack_ts = p.m.mbh.ts;
            conn.ack_ev_port = p.l.udp_src;
            if ecn_of(&p.l.ip) == CE {
                // MR-REL-17, MR-ENC-23: a CE-marked PROBE or OPEN sets the answering ACK's ECE.
                conn.ack_ece = true;
            }
            conn.last_activity = now;
        }
        CtrlCode::Close => {
            // MR-CONN-21, MR-CONN-22: accept only if this side is quiet and has received everything the peer sent.
            let quiet = conn.is_quiet(core.sq.is_empty())
                && (!conn.rcv_init || conn.rcv.expected() == c.aux);
            if !quiet {
                return;
            }
            let m = MetaRoceRepr {
                mbh: MbhRepr {
                    ptype: PacketType::Ctrl,
                    flags: MbhFlags::EMPTY,
                    payload_len: 0,
                    dcid: c.scid,
                    hlen: 0,
                    psn: conn.snd.nxt(),
                    ts: now as u32,
                },
                ty: TypeRepr::Ctrl(CtrlRepr {
                    scid: conn.cid,
                    code: CtrlCode::CloseAck,
                    echo_ts: p.m.mbh.ts,
                    aux: 0,
                }),
                open: None,
            };
            let plan = reply_plan(ctx.cfg, p, m);
            push_ctl(ctx, plan);
            close_conn(ctx, core, conn);
        }
        CtrlCode::CloseAck => {
            if conn.state == ConnState::Closing {
                close_conn(ctx, core, conn);
            }
        }
        CtrlCode::Credit | CtrlCode::CreditReq => {}
    }
}

/// Runs the QP's due timers.
pub(crate) fn on_timeout<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    slot: &mut QpSlot,
    qp_idx: u32,
    now: Instant,
) {
    let QpSlot { core, meta, .. } = slot;
    let Some(conn) = meta.as_deref_mut() else {
        return;
    };
    send::on_timeout(ctx, core, conn, qp_idx, now);
}

/// The next frame of this QP, if any can be sent now.
#[inline]
pub(crate) fn poll_transmit<M: Memory>(
    ctx: &mut Ctx<'_, M>,
    slot: &mut QpSlot,
    qp_idx: u32,
    now: Instant,
) -> Option<TransmitPlan> {
    let QpSlot { core, meta, .. } = slot;
    let conn = meta.as_deref_mut()?;
    send::poll_transmit(ctx, core, conn, qp_idx, now)
}

/// The earliest deadline of this QP's timers.
#[inline]
pub(crate) fn next_deadline(
    cfg: &super::EndpointConfig,
    core: &QpCore,
    conn: &Conn,
    now: Instant,
) -> Option<Instant> {
    send::next_deadline(cfg, core, conn, now)
}

/// True if the QP owes a control frame (ACK, CTRL OPEN or NACK), which the endpoint sends before any data
/// (MR-REL-19).
#[inline]
pub(crate) fn wants_ctl(conn: &Conn) -> bool {
    conn.state != super::metaroce::conn::ConnState::Closed
        && (conn.ack_now || conn.announce || !conn.nacks.is_empty())
}

/// True if the QP has a frame to send at `now`.
#[inline]
pub(crate) fn wants_tx(
    cfg: &crate::transport::EndpointConfig,
    core: &QpCore,
    conn: &Conn,
    now: Instant,
) -> bool {
    send::wants_tx(cfg, core, conn, now)
}
