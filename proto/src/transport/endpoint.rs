//! The [`Endpoint`]: verbs API, QP and connection tables, timers, transmit scheduling, and dispatch of received
//! frames to the MetaRoCE or RoCEv2 engine.
//!
//! Per-packet work is O(1) in the number of QPs: QPs and connections live in `Vec`-indexed slabs (QPN and CID
//! carry the slot index and a generation), QPs with something to send sit in a FIFO ready queue (round robin),
//! and timers live in a binary heap keyed by QP with lazy deletion (an entry is pushed only when a QP's
//! deadline moves earlier; a QP whose deadline moved later is re-armed when its stale entry pops).

use super::config::{ConfigError, EndpointConfig, Mode};
use super::memory::{Memory, SparseMemory};
use super::metaroce::{self, conn::CidTable, conn::Conn};
use super::mr::MrTable;
use super::path::Prng;
use super::plan::TransmitPlan;
use super::qp::{MsgKind, QpCore, QpState, SendMsg};
use super::rocev2::{self, RoceQp};
use super::stats::Stats;
use super::verbs::{Access, Event, MrKeys, Qpn, RecvWr, RemoteQp, SendOp, SendWr, VerbsError};
use super::Instant;
use alloc::boxed::Box;
use alloc::collections::{BinaryHeap, VecDeque};
use alloc::vec::Vec;
use core::cmp::Reverse;

/// Bound of the endpoint-level control queue (NO_CONTEXT NACKs, CLOSE_ACKs of closed connections).
pub const MAX_CTL_QUEUE: usize = 256;

/// One QP slot.
#[derive(Debug)]
pub(crate) struct QpSlot {
    pub core: QpCore,
    pub meta: Option<Box<Conn>>,
    pub roce: Option<Box<RoceQp>>,
}

/// Everything an engine may touch besides its own QP.
pub(crate) struct Ctx<'a, M: Memory> {
    pub cfg: &'a EndpointConfig,
    pub mem: &'a mut M,
    pub mrs: &'a MrTable,
    pub stats: &'a mut Stats,
    pub events: &'a mut VecDeque<Event>,
    pub cids: &'a mut CidTable,
    pub rng: &'a mut Prng,
    pub ctl: &'a mut VecDeque<TransmitPlan>,
}

/// Borrows the endpoint's shared parts as an engine context, leaving `qps` free for the engine to borrow.
macro_rules! ctx_of {
    ($ep:expr) => {
        Ctx {
            cfg: &$ep.cfg,
            mem: &mut $ep.mem,
            mrs: &$ep.mrs,
            stats: &mut $ep.stats,
            events: &mut $ep.events,
            cids: &mut $ep.cids,
            rng: &mut $ep.rng,
            ctl: &mut $ep.ctl,
        }
    };
}

/// When each QP is next due: the timer heap, the data-ready FIFO and the acknowledgement-ready FIFO (served first,
/// MR-REL-19).
#[derive(Debug, Default)]
struct Sched {
    timers: BinaryHeap<Reverse<(Instant, u32)>>,
    ready: VecDeque<u32>,
    ctl_ready: VecDeque<u32>,
}

/// A transport endpoint (one NIC port): the sans-I/O state machine.
pub struct Endpoint<M: Memory = SparseMemory> {
    cfg: EndpointConfig,
    mem: M,
    mrs: MrTable,
    qps: Vec<Option<QpSlot>>,
    qp_gen: Vec<u8>,
    qp_free: Vec<u32>,
    qp_live: u32,
    cids: CidTable,
    stats: Stats,
    events: VecDeque<Event>,
    rng: Prng,
    sched: Sched,
    ctl: VecDeque<TransmitPlan>,
}

impl<M: Memory> core::fmt::Debug for Endpoint<M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Endpoint")
            .field("config", &self.cfg)
            .field("qps", &self.qp_live)
            .finish()
    }
}

/// Replaces every out-of-range parameter by its default (so [`Endpoint::new`] never fails or panics).
fn sanitize(mut c: EndpointConfig) -> EndpointConfig {
    let d = match c.mode {
        Mode::MetaRoce => EndpointConfig::metaroce(c.mac, c.ip),
        Mode::RoceV2 => EndpointConfig::rocev2(c.mac, c.ip),
    };
    for _ in 0..32 {
        match c.validate() {
            Ok(()) => break,
            Err(ConfigError { field }) => match field {
                "mtu" => c.mtu = d.mtu,
                "window_log2" => c.window_log2 = d.window_log2,
                "paths" => c.paths = d.paths,
                "line_rate_bps" => c.line_rate_bps = d.line_rate_bps,
                "max_qps" => c.max_qps = d.max_qps,
                "max_connections" => c.max_connections = d.max_connections,
                "max_outstanding_msgs" => c.max_outstanding_msgs = d.max_outstanding_msgs,
                "max_msg_len" => c.max_msg_len = d.max_msg_len,
                "max_queue_depth" => c.max_queue_depth = d.max_queue_depth,
                "max_mrs" => c.max_mrs = d.max_mrs,
                "rto" => {
                    c.rto_min_ns = d.rto_min_ns;
                    c.rto_init_ns = d.rto_init_ns;
                    c.rto_max_ns = d.rto_max_ns;
                }
                "ack_ratio" => c.ack_ratio = d.ack_ratio,
                "reorder_distance" => c.reorder_distance = d.reorder_distance,
                "dscp" | "dscp_trim" => {
                    c.dscp_data = d.dscp_data;
                    c.dscp_ctrl = d.dscp_ctrl;
                    c.dscp_trim = d.dscp_trim;
                }
                "idle_close_ns" => {
                    c.idle_close_ns = d.idle_close_ns;
                    c.close_rto_ns = d.close_rto_ns;
                }
                "udp_port" => c.udp_port = d.udp_port,
                "retry_limit" => c.retry_limit = d.retry_limit,
                "rnr_retry" => c.rnr_retry = d.rnr_retry,
                _ => return d,
            },
        }
    }
    c
}

impl<M: Memory> Endpoint<M> {
    /// An endpoint with configuration `config` over memory `mem`. Out-of-range parameters are replaced by their
    /// defaults; use [`Endpoint::try_new`] to reject them instead.
    pub fn new(config: EndpointConfig, mem: M) -> Self {
        Self::build(sanitize(config), mem)
    }

    /// Like [`Endpoint::new`] but fails on the first out-of-range parameter.
    pub fn try_new(config: EndpointConfig, mem: M) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(Self::build(config, mem))
    }

    fn build(cfg: EndpointConfig, mem: M) -> Self {
        Endpoint {
            mrs: MrTable::new(cfg.max_mrs),
            cids: CidTable::new(cfg.max_connections),
            rng: Prng::new(cfg.seed),
            cfg,
            mem,
            qps: Vec::new(),
            qp_gen: Vec::new(),
            qp_free: Vec::new(),
            qp_live: 0,
            stats: Stats::default(),
            events: VecDeque::new(),
            sched: Sched::default(),
            ctl: VecDeque::new(),
        }
    }

    /// The configuration in force.
    pub fn config(&self) -> &EndpointConfig {
        &self.cfg
    }

    /// The memory.
    pub fn memory(&self) -> &M {
        &self.mem
    }

    /// The memory, mutably.
    pub fn memory_mut(&mut self) -> &mut M {
        &mut self.mem
    }

    /// Counters.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Registers a memory region.
    pub fn register_mr(
        &mut self,
        addr: u64,
        len: u64,
        access: Access,
    ) -> Result<MrKeys, VerbsError> {
        self.mrs.register(addr, len, access)
    }

    /// Deregisters a memory region; its keys fail from now on (MR-SEM-7).
    pub fn deregister_mr(&mut self, lkey: u32) -> Result<(), VerbsError> {
        self.mrs.deregister(lkey)
    }

    fn slot_of(&self, qpn: Qpn) -> Option<usize> {
        let idx = (qpn & 0xFFFF).checked_sub(1)? as usize;
        let gen = *self.qp_gen.get(idx)?;
        (qpn >> 16 == gen as u32 && self.qps.get(idx)?.is_some()).then_some(idx)
    }

    /// Creates a QP with the given queue depths (each 1..=`max_queue_depth`).
    pub fn create_qp(&mut self, max_send_wr: u32, max_recv_wr: u32) -> Result<Qpn, VerbsError> {
        let lim = self.cfg.max_queue_depth;
        if max_send_wr == 0 || max_send_wr > lim || max_recv_wr > lim {
            return Err(VerbsError::Invalid);
        }
        if self.qp_live >= self.cfg.max_qps {
            return Err(VerbsError::Limit);
        }
        let idx = match self.qp_free.pop() {
            Some(i) => i as usize,
            None => {
                self.qps.push(None);
                self.qp_gen.push(0);
                self.qps.len() - 1
            }
        };
        let gen = self.qp_gen[idx].wrapping_add(1);
        self.qp_gen[idx] = gen;
        let qpn = ((gen as u32) << 16) | (idx as u32 + 1);
        self.qps[idx] = Some(QpSlot {
            core: QpCore::new(qpn, max_send_wr, max_recv_wr),
            meta: None,
            roce: None,
        });
        self.qp_live += 1;
        Ok(qpn)
    }

    /// Connects a QP to its peer; the QP becomes ready to send. (MetaRoCE opens the transport connection 0-RTT
    /// with the first WR, MR-CONN-4.)
    pub fn connect_qp(&mut self, qpn: Qpn, remote: RemoteQp) -> Result<(), VerbsError> {
        let idx = self.slot_of(qpn).ok_or(VerbsError::InvalidQp)?;
        if remote.ip.is_ipv4() != self.cfg.ip.is_ipv4() || remote.qpn == 0 || remote.qpn > 0xFF_FFFF
        {
            return Err(VerbsError::Invalid);
        }
        let Some(slot) = self.qps[idx].as_mut() else {
            return Err(VerbsError::InvalidQp);
        };
        if slot.core.state != QpState::Init {
            return Err(VerbsError::InvalidState);
        }
        slot.core.remote = Some(remote);
        slot.core.l2 = Some(metaroce::l2l3(&self.cfg, remote.mac, remote.ip, 0, 0));
        slot.core.state = QpState::Rts;
        if self.cfg.mode == Mode::RoceV2 {
            slot.roce = Some(Box::new(RoceQp::new(&self.cfg, qpn, remote.qpn)));
        }
        Ok(())
    }

    /// Destroys a QP: every outstanding WR (send and receive) completes `Flushed`; its connection id is released
    /// without a close handshake.
    pub fn destroy_qp(&mut self, qpn: Qpn) -> Result<(), VerbsError> {
        let idx = self.slot_of(qpn).ok_or(VerbsError::InvalidQp)?;
        let Some(mut slot) = self.qps[idx].take() else {
            return Err(VerbsError::InvalidQp);
        };
        slot.core
            .flush(None, super::verbs::WcStatus::Flushed, &mut self.events);
        if let Some(c) = slot.meta.as_mut() {
            if c.cid != 0 {
                self.cids.release(c.cid);
                self.stats.connections_closed += 1;
                self.events
                    .push_back(Event::ConnectionClosed { qpn, cid: c.cid });
            }
        }
        self.qp_free.push(idx as u32);
        self.qp_live -= 1;
        Ok(())
    }

    /// State of a QP.
    pub fn qp_state(&self, qpn: Qpn) -> Option<QpState> {
        Some(self.qps[self.slot_of(qpn)?].as_ref()?.core.state)
    }

    /// Current MetaRoCE connection id of a QP (None if closed or RoCEv2).
    pub fn connection_id(&self, qpn: Qpn) -> Option<u32> {
        let c = self.qps[self.slot_of(qpn)?].as_ref()?.meta.as_ref()?;
        (c.cid != 0).then_some(c.cid)
    }

    /// Open connection contexts.
    pub fn open_connections(&self) -> u32 {
        self.cids.live()
    }

    /// Posts a send WR. Validated up front (MR-SEM-8): QP state, queue depth, message size, local buffer key,
    /// bounds and access (READ needs LOCAL_WRITE).
    pub fn post_send(&mut self, now: Instant, qpn: Qpn, wr: SendWr) -> Result<(), VerbsError> {
        let idx = self.slot_of(qpn).ok_or(VerbsError::InvalidQp)?;
        let cfg = &self.cfg;
        let Some(slot) = self.qps[idx].as_mut() else {
            return Err(VerbsError::InvalidQp);
        };
        if slot.core.state != QpState::Rts {
            return Err(VerbsError::InvalidState);
        }
        if slot.core.sq_user >= slot.core.max_send_wr {
            return Err(VerbsError::QueueFull);
        }
        if wr.local.len > cfg.max_msg_len {
            return Err(VerbsError::TooLarge);
        }
        let (kind, imm, needed) = match wr.op {
            SendOp::Write => (MsgKind::Write, None, Access::NONE),
            SendOp::WriteImm(i) => (MsgKind::WriteImm, Some(i), Access::NONE),
            SendOp::Send => (MsgKind::Send, None, Access::NONE),
            SendOp::SendImm(i) => (MsgKind::SendImm, Some(i), Access::NONE),
            SendOp::Read => (MsgKind::Read, None, Access::LOCAL_WRITE),
        };
        self.mrs
            .check_local(wr.local.lkey, wr.local.addr, wr.local.len as u64, needed)?;
        let len = wr.local.len;
        let npkts = if kind == MsgKind::Read {
            1
        } else {
            len.div_ceil(cfg.mtu).max(1)
        };
        slot.core.sq.push_back(SendMsg {
            wr_id: wr.wr_id,
            kind,
            local: wr.local,
            remote_addr: wr.remote_addr,
            rkey: wr.rkey,
            imm,
            solicited: wr.solicited,
            len,
            npkts,
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
        slot.core.sq_user += 1;
        self.with_qp(idx, now, |ctx, slot, qp_idx| match ctx.cfg.mode {
            Mode::MetaRoce => metaroce::on_posted(ctx, slot, qp_idx, now),
            Mode::RoceV2 => {}
        });
        Ok(())
    }

    /// Posts a receive WR (validated: state, queue depth, buffer key/bounds/LOCAL_WRITE).
    pub fn post_recv(&mut self, qpn: Qpn, wr: RecvWr) -> Result<(), VerbsError> {
        let idx = self.slot_of(qpn).ok_or(VerbsError::InvalidQp)?;
        let Some(slot) = self.qps[idx].as_mut() else {
            return Err(VerbsError::InvalidQp);
        };
        if slot.core.state == QpState::Error {
            return Err(VerbsError::InvalidState);
        }
        if slot.core.rq.len() as u32 >= slot.core.max_recv_wr {
            return Err(VerbsError::QueueFull);
        }
        self.mrs.check_local(
            wr.sge.lkey,
            wr.sge.addr,
            wr.sge.len as u64,
            Access::LOCAL_WRITE,
        )?;
        slot.core.rq.push_back(wr);
        // Completions stalled for a WQE (WRITE_IMM) may proceed now.
        let now = slot.meta.as_ref().map_or(0, |c| c.last_activity);
        self.with_qp(idx, now, |ctx, slot, _| {
            if ctx.cfg.mode == Mode::MetaRoce {
                metaroce::recv::deliver_in_order(ctx, slot, now);
            }
        });
        Ok(())
    }

    /// Runs `f` on QP slot `idx` with a context, then updates its timer and ready state.
    fn with_qp<R>(
        &mut self,
        idx: usize,
        now: Instant,
        f: impl FnOnce(&mut Ctx<'_, M>, &mut QpSlot, u32) -> R,
    ) -> Option<R> {
        let slot = self.qps.get_mut(idx)?.as_mut()?;
        let mut ctx = ctx_of!(self);
        let r = f(&mut ctx, slot, idx as u32);
        Self::reschedule(&self.cfg, slot, idx as u32, now, &mut self.sched);
        Some(r)
    }

    #[inline]
    fn reschedule(
        cfg: &EndpointConfig,
        slot: &mut QpSlot,
        idx: u32,
        now: Instant,
        sched: &mut Sched,
    ) {
        let Sched {
            timers,
            ready,
            ctl_ready,
        } = sched;
        // `wants_tx` is only asked when the QP is not already queued (it has no side effects).
        let queued = slot.core.in_ready;
        let (deadline, can_tx, ctl) = match cfg.mode {
            Mode::MetaRoce => match slot.meta.as_ref() {
                Some(c) => (
                    metaroce::next_deadline(cfg, &slot.core, c, now),
                    !queued && metaroce::wants_tx(cfg, &slot.core, c, now),
                    metaroce::wants_ctl(c),
                ),
                None => (None, false, false),
            },
            Mode::RoceV2 => match slot.roce.as_ref() {
                Some(r) => (
                    rocev2::next_deadline(&slot.core, r, now),
                    !queued && rocev2::wants_tx(&slot.core, r, now),
                    rocev2::wants_ctl(r),
                ),
                None => (None, false, false),
            },
        };
        // MR-REL-19: a QP that owes an acknowledgement is served before every QP's data.
        if ctl && !slot.core.in_ctl_ready {
            slot.core.in_ctl_ready = true;
            ctl_ready.push_back(idx);
        }
        if let Some(d) = deadline {
            // A deadline that is already due is handled at the next nanosecond (never a busy loop at `now`).
            let d = d.max(now + 1);
            if slot.core.timer.is_none_or(|t| d < t) {
                slot.core.timer = Some(d);
                timers.push(Reverse((d, idx)));
            }
        }
        if can_tx && !slot.core.in_ready {
            slot.core.in_ready = true;
            ready.push_back(idx);
        }
    }

    /// Processes one received frame. Never panics; drops are counted in [`Stats::drops`].
    pub fn handle_frame(&mut self, now: Instant, frame: &[u8]) {
        self.stats.rx_packets += 1;
        self.stats.rx_bytes += frame.len() as u64;
        let target = match self.cfg.mode {
            Mode::MetaRoce => {
                let mut ctx = ctx_of!(self);
                metaroce::on_frame(&mut ctx, &mut self.qps, &self.qp_gen, now, frame)
            }
            Mode::RoceV2 => {
                let mut ctx = ctx_of!(self);
                rocev2::on_frame(&mut ctx, &mut self.qps, &self.qp_gen, now, frame)
            }
        };
        if let Some(idx) = target {
            if let Some(Some(slot)) = self.qps.get_mut(idx as usize) {
                Self::reschedule(&self.cfg, slot, idx, now, &mut self.sched);
            }
        }
    }

    /// Runs every timer due at or before `now`.
    pub fn handle_timeout(&mut self, now: Instant) {
        while let Some(Reverse((t, idx))) = self.sched.timers.peek().copied() {
            if t > now {
                break;
            }
            self.sched.timers.pop();
            let Some(Some(slot)) = self.qps.get_mut(idx as usize) else {
                continue;
            };
            if slot.core.timer != Some(t) {
                continue; // superseded by an earlier entry that already ran
            }
            slot.core.timer = None;
            self.with_qp(idx as usize, now, |ctx, slot, qp_idx| match ctx.cfg.mode {
                Mode::MetaRoce => metaroce::on_timeout(ctx, slot, qp_idx, now),
                Mode::RoceV2 => rocev2::on_timeout(ctx, slot, now),
            });
        }
    }

    /// The earliest time [`Endpoint::handle_timeout`] should be called (may be slightly early: a spurious call
    /// is harmless).
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.sched.timers.peek().map(|Reverse((t, _))| *t)
    }

    /// The next frame to transmit as a plan (headers + payload reference, no copy), or `None` if nothing can be
    /// sent at `now` (see [`Endpoint::poll_timeout`] for when that may change).
    pub fn poll_transmit_plan(&mut self, now: Instant) -> Option<TransmitPlan> {
        if let Some(p) = self.ctl.pop_front() {
            self.count_tx(&p);
            return Some(p);
        }
        loop {
            // Acknowledgements first (MR-REL-19), then data round robin.
            let (idx, ctl) = match self.sched.ctl_ready.pop_front() {
                Some(i) => (i, true),
                None => match self.sched.ready.pop_front() {
                    Some(i) => (i, false),
                    None => break,
                },
            };
            let Some(Some(slot)) = self.qps.get_mut(idx as usize) else {
                continue;
            };
            if ctl {
                slot.core.in_ctl_ready = false;
                let owed = match self.cfg.mode {
                    Mode::MetaRoce => slot.meta.as_deref().is_some_and(metaroce::wants_ctl),
                    Mode::RoceV2 => slot.roce.as_deref().is_some_and(rocev2::wants_ctl),
                };
                if !owed {
                    continue;
                }
            } else {
                slot.core.in_ready = false;
            }
            let mut ctx = ctx_of!(self);
            // Called directly (not through `with_qp`) so that the plan is not copied through extra layers.
            let plan = match self.cfg.mode {
                Mode::MetaRoce => metaroce::poll_transmit(&mut ctx, slot, idx, now),
                Mode::RoceV2 => rocev2::poll_transmit(&mut ctx, slot, now),
            };
            Self::reschedule(&self.cfg, slot, idx, now, &mut self.sched);
            if plan.is_some() {
                // `tx_bytes` was counted by the engine from scalars (re-reading the fresh plan is slow).
                self.stats.tx_packets += 1;
                if let (Mode::RoceV2, Some(p)) = (self.cfg.mode, &plan) {
                    self.stats.tx_bytes += p.frame_len() as u64;
                }
                return plan;
            }
        }
        None
    }

    fn count_tx(&mut self, p: &TransmitPlan) {
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += p.frame_len() as u64;
    }

    /// Writes the next frame into `buf` (cleared first); false if nothing can be sent now.
    pub fn poll_transmit(&mut self, now: Instant, buf: &mut Vec<u8>) -> bool {
        buf.clear();
        let Some(p) = self.poll_transmit_plan(now) else {
            return false;
        };
        p.emit(&self.mem, buf).is_ok()
    }

    /// Next event (completion, QP error, connection opened/closed).
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }
}
