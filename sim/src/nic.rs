//! A host's NIC: the unchanged [`Endpoint`] plus one transmit port per plane. The NIC pulls transmit plans
//! from the endpoint whenever a port has room in its small FIFO, turns each into a packet (headers only, or the
//! whole frame with `verify_data`) and sends it on the plane `UDP source port mod planes`. Received packets are
//! rebuilt as frames in one reused scratch buffer and handed to `handle_frame`. Timers use one pending event
//! per NIC, re-armed lazily.

use crate::config::{HostId, Transport};
use crate::event::Kind;
use crate::fabric::{FlowState, PairDir, QpPair, Simulator, SQ_DEPTH};
use crate::flow::FlowRecord;
use crate::memory::SimMemory;
use crate::packet::Class;
use metaroce_proto::transport::{
    Access, Endpoint, EndpointConfig, Event, MrKeys, PlanHeaders, RemoteQp, SendOp, SendWr, Sge,
    TransmitPlan, WcStatus,
};
use metaroce_proto::wire::packet::{emit_headers, IpRepr};
use metaroce_proto::wire::roce_packet::emit_roce_headers;
use metaroce_proto::wire::{RoceOpcode, TypeRepr};
use std::net::{IpAddr, Ipv4Addr};

/// Frames a NIC port holds waiting for the wire before the NIC stops pulling from the endpoint.
pub const NIC_FIFO: usize = 2;

/// The IPv4 address of host `h`: 10.x.y.z with x.y.z = h.
pub fn host_ip(h: HostId) -> Ipv4Addr {
    Ipv4Addr::new(10, (h >> 16) as u8, (h >> 8) as u8, h as u8)
}

/// The MAC address of host `h`.
pub fn host_mac(h: HostId) -> [u8; 6] {
    [0x02, 0x4D, 0x52, (h >> 16) as u8, (h >> 8) as u8, h as u8]
}

/// Host id of an address made by [`host_ip`].
fn host_of(ip: &IpRepr) -> Option<HostId> {
    match ip {
        IpRepr::V4 { dst, .. } if dst[0] == 10 => {
            Some(u32::from(dst[1]) << 16 | u32::from(dst[2]) << 8 | u32::from(dst[3]))
        }
        _ => None,
    }
}

/// One NIC.
#[derive(Debug)]
pub struct Nic {
    /// The endpoint.
    pub ep: Endpoint<SimMemory>,
    /// Time of the pending timer event, ps (`u64::MAX`: none).
    pub timer_at: u64,
    /// Keys of the MR covering the host's address space.
    pub keys: MrKeys,
    /// The endpoint may have a frame to send: false after `poll_transmit_plan` returned `None` until the
    /// next input (frame, timeout, posted WR), since only an input can change that answer.
    pub may_send: bool,
}

/// The endpoint configuration of host `h` in simulator `sim`.
pub fn endpoint_config(sim: &Simulator, h: HostId) -> EndpointConfig {
    let t = &sim.cfg.transport;
    let ip = IpAddr::V4(host_ip(h));
    let mut c = match t.kind {
        Transport::MetaRoce => EndpointConfig::metaroce(host_mac(h), ip),
        Transport::RoceV2 => EndpointConfig::rocev2(host_mac(h), ip),
    };
    c.mtu = t.mtu;
    if let Some(p) = t.paths {
        c.paths = p;
    }
    if let Some(cc) = t.cc {
        c.cc = cc;
    }
    if let Some(w) = t.window_log2 {
        c.window_log2 = w;
    }
    if let Some(r) = t.rto_min_ns {
        c.rto_min_ns = r;
        c.rto_max_ns = c.rto_max_ns.max(r);
    }
    c.line_rate_bps = sim.topo.host_rate_bps();
    c.base_rtt_ns = sim.topo.max_rtt_ns(sim.mtu_frame, 110).max(1);
    let qps = (6 * u64::from(sim.topo.hosts()) + 16).min(0xFFFF) as u32;
    c.max_qps = qps;
    c.max_connections = qps;
    c.max_outstanding_msgs = SQ_DEPTH;
    c.max_msg_len = t.max_msg_bytes;
    c.verify_icv = sim.cfg.verify_data;
    let mut s = sim.cfg.seed ^ (u64::from(h) << 32) ^ 0xE1D0_0000;
    c.seed = metaroce_proto::harness::rng::splitmix64(&mut s);
    c
}

impl Nic {
    /// The NIC of host `h`.
    pub fn new(sim: &Simulator, h: HostId) -> Nic {
        let mut ep = Endpoint::new(endpoint_config(sim, h), SimMemory::new(sim.cfg.verify_data));
        let keys = ep
            .register_mr(
                0,
                1 << 63,
                Access::LOCAL_WRITE | Access::REMOTE_WRITE | Access::REMOTE_READ,
            )
            .unwrap_or(MrKeys { lkey: 0, rkey: 0 });
        Nic {
            ep,
            timer_at: u64::MAX,
            keys,
            may_send: true,
        }
    }
}

impl Simulator {
    /// Direction of host `h`'s port on `plane`.
    #[inline]
    pub(crate) fn nic_dir(&self, h: HostId, plane: u32) -> u32 {
        2 * self.topo.host_link(h, plane)
    }

    /// Whether the NIC may pull another frame: some port has room and none is over twice its FIFO.
    fn nic_room(&self, h: HostId) -> bool {
        let mut any = false;
        for p in 0..self.topo.planes() {
            let n = self.ports[self.nic_dir(h, p) as usize].queued();
            if n >= 2 * NIC_FIFO {
                return false;
            }
            any |= n < NIC_FIFO;
        }
        any
    }

    /// Does everything the NIC of `h` can do now: handle endpoint events, post messages that found room,
    /// pull frames while the ports have room, and re-arm the timer.
    pub(crate) fn service(&mut self, h: HostId) {
        let now_ns = self.now / 1000;
        loop {
            let mut work = false;
            while let Some(ev) = self.nics[h as usize].ep.poll_event() {
                self.on_ep_event(h, ev);
                work = true;
            }
            while let Some((p, side)) = self.repost.pop() {
                self.post_backlog(p, side);
                work = true;
            }
            while let Some(p) = self.went_idle.pop() {
                self.evict_if_over_cache(p);
            }
            while self.nics[h as usize].may_send && self.nic_room(h) {
                let Some(plan) = self.nics[h as usize].ep.poll_transmit_plan(now_ns) else {
                    self.nics[h as usize].may_send = false;
                    break;
                };
                self.nic_send(h, &plan);
                work = true;
            }
            if !work {
                break;
            }
        }
        self.rearm(h);
    }

    fn rearm(&mut self, h: HostId) {
        let nic = &mut self.nics[h as usize];
        if let Some(d) = nic.ep.poll_timeout() {
            let mut t = d.saturating_mul(1000);
            if t <= self.now {
                t = (self.now / 1000 + 1) * 1000;
            }
            if t < nic.timer_at {
                nic.timer_at = t;
                self.q.push(t, Kind::Timer, h, 0);
            }
        }
    }

    /// A NIC timer event.
    pub(crate) fn on_timer(&mut self, h: HostId, t: u64) {
        let nic = &mut self.nics[h as usize];
        if nic.timer_at != t {
            return; // superseded by an earlier event that already ran
        }
        nic.timer_at = u64::MAX;
        nic.ep.handle_timeout(self.now / 1000);
        nic.may_send = true;
        self.service(h);
    }

    /// Turns a plan into a packet and queues it on its plane's port.
    fn nic_send(&mut self, h: HostId, plan: &TransmitPlan) {
        let frame_len = plan.frame_len();
        // Every peer is a host of the fabric; anything else has nowhere to go.
        let Some(dst) = host_of(&plan.l.ip).filter(|&d| d < self.hosts) else {
            return;
        };
        let plen = plan.payload_len as usize;
        let id = self.arena.alloc();
        let verify = self.arena.verify();
        let (pkt, full) = self.arena.get_full_mut(id);
        let hl = match &plan.headers {
            PlanHeaders::MetaRoce(m) => emit_headers(&plan.l, m, plen, &mut pkt.hdr),
            PlanHeaders::RoceV2(r) => emit_roce_headers(&plan.l, r, plen, &mut pkt.hdr),
        };
        let Ok(hl) = hl else {
            self.arena.release(id);
            return;
        };
        if verify {
            if let Some(buf) = full {
                if plan.emit(self.nics[h as usize].ep.memory(), buf).is_err() {
                    self.arena.release(id);
                    return;
                }
            }
        }
        let (class, trimmable) = match &plan.headers {
            PlanHeaders::MetaRoce(m) => match m.ty {
                TypeRepr::Data(_) => (Class::Data, plen > 0),
                _ => (Class::Control, false),
            },
            PlanHeaders::RoceV2(r) => match r.bth.opcode {
                RoceOpcode::Acknowledge | RoceOpcode::Cnp => (Class::Control, false),
                _ => (Class::Data, false),
            },
        };
        let capture = self.capture.as_ref().is_some_and(|c| c.wants(h, dst));
        let pkt = self.arena.get_mut(id);
        pkt.hdr_len = hl as u16;
        pkt.frame_len = frame_len as u16;
        pkt.src = h;
        pkt.dst = dst;
        pkt.class = class;
        pkt.trimmable = trimmable;
        pkt.capture = capture;
        let plane = u32::from(plan.l.udp_src) % self.topo.planes();
        let dir = self.nic_dir(h, plane);
        self.nic_enqueue(dir, id);
    }

    /// A packet fully received by host `h`.
    pub(crate) fn deliver(&mut self, h: HostId, id: u32) {
        let now_ns = self.now / 1000;
        let p = self.arena.get(id);
        let len = usize::from(p.frame_len);
        if self.scratch.len() < len {
            self.scratch.resize(len, 0);
        }
        let bytes = self.arena.bytes(id);
        let n = bytes.len().min(len);
        self.scratch[..n].copy_from_slice(&bytes[..n]);
        if p.capture {
            if let Some(c) = self.capture.as_mut() {
                c.record(now_ns, &self.scratch[..n], len);
            }
        }
        self.arena.release(id);
        let nic = &mut self.nics[h as usize];
        nic.ep.handle_frame(now_ns, &self.scratch[..len]);
        nic.may_send = true;
        self.service(h);
    }

    fn on_ep_event(&mut self, h: HostId, ev: Event) {
        match ev {
            Event::Completion(c) => {
                let pair = (c.wr_id >> 32) as u32;
                let flow = c.wr_id as u32;
                let Some(pr) = self.pairs.get_mut(pair as usize) else {
                    return;
                };
                let side = usize::from(pr.hosts[1] == h && pr.hosts[0] != h);
                if pr.hosts[side] != h || pr.qpn[side] != c.qpn {
                    return;
                }
                let d = &mut pr.dirs[side];
                d.outstanding = d.outstanding.saturating_sub(1);
                let more = !d.backlog.is_empty();
                if c.status != WcStatus::Success {
                    pr.dead = true;
                }
                if let Some(fs) = self.flow_state.get_mut(flow as usize) {
                    if c.status != WcStatus::Success {
                        fs.failed = true;
                    }
                    fs.msgs_left = fs.msgs_left.saturating_sub(1);
                    if fs.msgs_left == 0 && !fs.failed {
                        self.flows[flow as usize].end_ns = Some(self.now / 1000);
                        self.flows_done += 1;
                        self.just_done.push(flow);
                    }
                }
                if more {
                    self.repost.push((pair, side as u8));
                } else if self.pairs[pair as usize].idle() {
                    self.went_idle.push(pair);
                }
            }
            Event::QpError { qpn, .. } => {
                if let Some(&p) = self.pair_by_qp.get(&(h, qpn)) {
                    self.pairs[p as usize].dead = true;
                    self.repost.push((p, 0));
                    self.repost.push((p, 1));
                }
            }
            Event::ConnectionOpened { .. } | Event::ConnectionClosed { .. } => {}
        }
    }

    /// Starts pending flow `idx`.
    pub(crate) fn start_flow(&mut self, idx: u32) {
        let Some(spec) = self.pending.get(idx as usize).copied() else {
            return;
        };
        let id = self.flows.len() as u32;
        let now_ns = self.now / 1000;
        self.flows.push(FlowRecord {
            id,
            spec,
            start_ns: now_ns,
            end_ns: None,
        });
        let max = u64::from(self.cfg.transport.max_msg_bytes.max(1));
        let msgs = spec.bytes.max(1).div_ceil(max);
        self.flow_state.push(FlowState {
            msgs_left: u32::try_from(msgs).unwrap_or(u32::MAX),
            failed: false,
        });
        let hosts = self.topo.hosts();
        if spec.src >= hosts || spec.dst >= hosts || spec.src == spec.dst {
            // Nothing to move across the fabric: a local flow completes at once; a bad host never does.
            if spec.src == spec.dst && spec.src < hosts {
                self.flows[id as usize].end_ns = Some(now_ns);
                self.flows_done += 1;
                self.just_done.push(id);
            } else {
                self.flow_state[id as usize].failed = true;
            }
            return;
        }
        let Some((pair, side)) = self.pair_for(spec.src, spec.dst, spec.class as u8) else {
            self.flow_state[id as usize].failed = true;
            return;
        };
        self.pairs[pair as usize].dirs[side as usize]
            .backlog
            .push_back((id, spec.bytes.max(1)));
        self.post_backlog(pair, side);
        self.service(spec.src);
    }

    /// The live QP pair between `src` and `dst` for `class` and the side `src` sends on, created and
    /// connected if needed.
    fn pair_for(&mut self, src: HostId, dst: HostId, class: u8) -> Option<(u32, u8)> {
        let (lo, hi) = (src.min(dst), src.max(dst));
        let side = u8::from(src == hi);
        if let Some(&p) = self.pair_of.get(&(lo, hi, class)) {
            if !self.pairs[p as usize].dead {
                return Some((p, side));
            }
        }
        let qa = self.nics[lo as usize].ep.create_qp(SQ_DEPTH, 0).ok()?;
        let qb = match self.nics[hi as usize].ep.create_qp(SQ_DEPTH, 0) {
            Ok(q) => q,
            Err(_) => {
                let _ = self.nics[lo as usize].ep.destroy_qp(qa);
                return None;
            }
        };
        let to = |h: HostId, qpn: u32| RemoteQp {
            mac: host_mac(h),
            ip: IpAddr::V4(host_ip(h)),
            qpn,
        };
        self.nics[lo as usize].ep.connect_qp(qa, to(hi, qb)).ok()?;
        self.nics[hi as usize].ep.connect_qp(qb, to(lo, qa)).ok()?;
        self.nics[lo as usize].may_send = true;
        self.nics[hi as usize].may_send = true;
        self.qps += 2;
        let idx = self.pairs.len() as u32;
        let base = |h: HostId| (u64::from(h) + 1) << 43 | u64::from(class) << 41;
        self.pairs.push(QpPair {
            hosts: [lo, hi],
            qpn: [qa, qb],
            dirs: [
                PairDir {
                    base: base(lo),
                    ..Default::default()
                },
                PairDir {
                    base: base(hi),
                    ..Default::default()
                },
            ],
            dead: false,
            class,
            closed: false,
        });
        self.live_pairs[lo as usize] += 1;
        self.live_pairs[hi as usize] += 1;
        self.pair_of.insert((lo, hi, class), idx);
        self.pair_by_qp.insert((lo, qa), idx);
        self.pair_by_qp.insert((hi, qb), idx);
        Some((idx, side))
    }

    /// Destroys an idle pair's QPs on both hosts if either host is part of more pairs than its QP cache holds.
    fn evict_if_over_cache(&mut self, pair: u32) {
        let pr = &self.pairs[pair as usize];
        let [lo, hi] = pr.hosts;
        if pr.closed || !pr.idle() {
            return;
        }
        let cap = self.qp_cache;
        if self.live_pairs[lo as usize] <= cap && self.live_pairs[hi as usize] <= cap {
            return;
        }
        let (qa, qb, class) = (pr.qpn[0], pr.qpn[1], pr.class);
        let _ = self.nics[lo as usize].ep.destroy_qp(qa);
        let _ = self.nics[hi as usize].ep.destroy_qp(qb);
        let pr = &mut self.pairs[pair as usize];
        pr.closed = true;
        pr.dead = true;
        self.live_pairs[lo as usize] -= 1;
        self.live_pairs[hi as usize] -= 1;
        if self.pair_of.get(&(lo, hi, class)) == Some(&pair) {
            self.pair_of.remove(&(lo, hi, class));
        }
        self.pair_by_qp.remove(&(lo, qa));
        self.pair_by_qp.remove(&(hi, qb));
    }

    /// Posts messages of one side's backlog while its send queue has room.
    pub(crate) fn post_backlog(&mut self, pair: u32, side: u8) {
        let max = u64::from(self.cfg.transport.max_msg_bytes.max(1));
        let now_ns = self.now / 1000;
        let side = usize::from(side & 1);
        loop {
            let pr = &mut self.pairs[pair as usize];
            let (src, dst, qpn) = (pr.hosts[side], pr.hosts[1 - side], pr.qpn[side]);
            let dead = pr.dead;
            let d = &mut pr.dirs[side];
            if dead {
                while let Some((f, _)) = d.backlog.pop_front() {
                    if let Some(fs) = self.flow_state.get_mut(f as usize) {
                        fs.failed = true;
                    }
                }
                return;
            }
            if d.outstanding >= SQ_DEPTH {
                return;
            }
            let Some(&(flow, left)) = d.backlog.front() else {
                return;
            };
            let len = left.min(max);
            if d.cursor + len > 1 << 41 {
                d.cursor = 0;
            }
            let addr = d.base + d.cursor;
            let wr = SendWr {
                wr_id: u64::from(pair) << 32 | u64::from(flow),
                op: SendOp::Write,
                local: Sge {
                    addr,
                    len: len as u32,
                    lkey: self.nics[src as usize].keys.lkey,
                },
                remote_addr: addr,
                rkey: self.nics[dst as usize].keys.rkey,
                solicited: false,
            };
            match self.nics[src as usize].ep.post_send(now_ns, qpn, wr) {
                Ok(()) => {
                    self.nics[src as usize].may_send = true;
                    let d = &mut self.pairs[pair as usize].dirs[side];
                    d.outstanding += 1;
                    d.cursor += len;
                    if left == len {
                        d.backlog.pop_front();
                    } else if let Some(front) = d.backlog.front_mut() {
                        front.1 -= len;
                    }
                }
                Err(_) => self.pairs[pair as usize].dead = true,
            }
        }
    }
}
