//! The demonstration's scenario on two reference-model endpoints, for comparing the RTL's goodput with the
//! model's: [`run_model`] runs exactly the messages of [`demo::plan`](super::demo::plan) for a
//! [`DemoConfig`] between two `metaroce_proto` [`Endpoint`](metaroce_proto::transport::Endpoint)s in
//! MetaRoCE mode, joined by the same link as `metaroce demo`, and measures what the demonstration measures.
//!
//! **What is the same as the demonstration.**
//! - The link: [`demo::link_config`](super::demo::link_config) (paths, delay, loss and trimming of `cfg`) in
//!   both directions, each direction seeded as [`NicPair`](super::pair::NicPair) seeds it (`seed ^ 0xA5A5` from A
//!   to B, `seed ^ 0x5A5A` from B to A).
//! - The endpoints' parameters are the core's ([`interop::model_config`](super::interop::model_config)):
//!   MTU 4096, receive window 2^8 packets (MR-REL-7), 8 messages in flight per connection direction
//!   (MR-SEM-11, the core's receive message table), 16 paths in the EV set (MR-PATH-1), ACK ratio 1
//!   (MR-REL-14), NSCC (MR-CC-5) with the endpoint registers' defaults that the demonstration leaves in place
//!   (line rate `cfg.line_rate_gbps`, 100 Gb/s by default, base RTT 8 µs, delay target 5 µs, RTO 20 µs..64 ms), no idle close.
//! - The messages: the kinds, immediates and lengths of `demo::plan(cfg)`, in order; sources packed in A's
//!   buffer (B's for a READ), targets packed in B's (A's for a READ), 64-byte aligned with a gap of at least
//!   64 bytes after each; one memory region over each side's buffer with every right; B keeps one receive
//!   buffer posted per SEND or WRITE_IMM, in message order, at most 64 at once; A keeps at most `cfg.window`
//!   work requests posted (clamped to the send queue's 64); the model starts at most 8 of them (its
//!   `max_outstanding_msgs`, MR-SEM-11) as the core does.
//! - The measurements: goodput is the message bytes over the time from the first post to the last send
//!   completion at A, in bytes per cycle at [`PERIOD_PS`] and in Gb/s; a message's latency runs from its post
//!   (its place in the window) to its send completion at A; retransmissions are A's DATA packets beyond each
//!   message's own (MTU-sized segments, one for an empty message, one request packet for a READ), which is
//!   the model's own count of retransmissions. Every target is checked byte-exact
//!   against its source, with nothing written into the gap after it, and every send and receive completion
//!   for its status, opcode, work-request id, length and immediate.
//!
//! **What differs** (the model's scenario cannot match the RTL's exactly):
//! - Times: the model processes a packet in zero time, where the core spends cycles per packet in its
//!   pipelines and sender engine (docs/hardware.md); that difference is what the comparison measures.
//! - The host: here it acts at the instant of each event (the endpoints and the link step from event to event
//!   on one virtual clock, as the harness's `Pair` steps them), where the demonstration's host polls its
//!   completion queue every 64 cycles and posts through register writes, so the demonstration's latencies
//!   include up to 64 cycles of polling.
//! - Losses: the same link seeds, but the link draws its random numbers per frame, so once the two runs' frame
//!   sequences differ (other timing, another number of ACKs) different frames are lost: the same loss rate,
//!   not the same losses.
//! - Connection set-up: the demonstration's cores start with both connection contexts programmed; the model
//!   opens its connection 0-RTT (MR-CONN-4), its first DATA packets carrying SYN and the Open extension.
//! - Data bytes: `demo::plan` gives kinds and lengths only, so the bytes come from their own seeded stream
//!   (the transport's behaviour does not depend on them).

use super::demo::{link_config, plan, quantile, DemoConfig, PERIOD_PS};
use super::interop::{model_config, ModelSide};
use metaroce_proto::harness::link::Link;
use metaroce_proto::harness::rng::Rng;
use metaroce_proto::transport::{
    Access, Completion, Endpoint, Event, Memory, RecvWr, RemoteQp, SendOp, SendWr, Sge,
    SparseMemory, Stats, WcOpcode, WcStatus,
};
use metaroce_regmap::descriptor::sqe::SqOp;
use std::collections::VecDeque;
use std::net::{IpAddr, Ipv4Addr};

/// Data buffer of each side (the demonstration's).
const BUF: u64 = 0x100_0000;
/// Length of each side's buffer and memory region.
const BUF_LEN: u64 = 64 << 20;
/// Payload bytes per packet (the core's default `mtu_log` 12).
const MTU: u32 = 4096;
/// Send and receive queue depth of each QP (the demonstration's rings, `2^RING_LOG`).
const RING: usize = 1 << super::host::RING_LOG;
/// How long the run goes on after the last send completion for receive completions still on their way, ns.
const DRAIN_NS: u64 = 1_000_000;

/// Side A (the requester): the demonstration's addresses.
const SIDE_A: ModelSide = ModelSide {
    mac: [0x02, 0, 0, 0, 0, 0x0a],
    ip: Ipv4Addr::new(10, 0, 0, 1),
    buf: BUF,
    buf_len: BUF_LEN,
};
/// Side B (the responder).
const SIDE_B: ModelSide = ModelSide {
    mac: [0x02, 0, 0, 0, 0, 0x0b],
    ip: Ipv4Addr::new(10, 0, 0, 2),
    buf: BUF,
    buf_len: BUF_LEN,
};

/// What a run of the demonstration's scenario on the reference model measured. Times are virtual
/// nanoseconds of the model; cycles are those nanoseconds at [`PERIOD_PS`], the cores' clock.
#[derive(Debug, Clone, Default)]
pub struct ModelReport {
    /// Messages completed at A (the sender).
    pub messages: usize,
    /// Message bytes delivered (every kind, READs included).
    pub bytes: u64,
    /// The kind and length of every message in the order A completed them (equal to `demo::plan(cfg)` when
    /// every completion was right).
    pub completed: Vec<(SqOp, u32)>,
    /// Nanoseconds from the first post to the last send completion at A.
    pub ns: u64,
    /// Message latencies, post to the send completion at A, ns (in completion order).
    pub latencies_ns: Vec<u64>,
    /// DATA packets A sent beyond the messages' own packets (the demonstration's definition).
    pub retransmissions: u64,
    /// DATA packets A sent (READ requests and retransmissions included).
    pub data_packets: u64,
    /// Frames the link lost (both directions).
    pub link_lost: u64,
    /// Message bytes each side was the target of: A (READ data), B (the others).
    pub target_bytes: [u64; 2],
    /// Payload bytes each endpoint placed into its memory (`rx_payload_bytes`): every byte accepted exactly
    /// once, so equal to `target_bytes`.
    pub rx_payload_bytes: [u64; 2],
    /// Messages whose target bytes differ from their source (must be 0).
    pub corrupt: usize,
    /// Messages with a byte written into the gap after their target (must be 0).
    pub strays: usize,
    /// Completions with an error status or unexpected fields, and receive completions missing (must be 0).
    pub bad_completions: usize,
    /// The first bad completion and what was expected.
    pub first_bad: Option<String>,
    /// The counters of endpoint A and endpoint B at the end (retransmissions by cause in `retransmits`).
    pub stats: [Stats; 2],
    /// Wall-clock seconds of the run.
    pub wall_s: f64,
}

/// Cycles at [`PERIOD_PS`] in `ns` nanoseconds, rounded to the nearest.
fn cycles_of(ns: u64) -> u64 {
    (ns * 1000 + PERIOD_PS / 2) / PERIOD_PS
}

impl ModelReport {
    /// Cycles from the first post to the last send completion at A (at [`PERIOD_PS`]).
    pub fn cycles(&self) -> u64 {
        cycles_of(self.ns)
    }

    /// Goodput in bytes per cycle at [`PERIOD_PS`].
    pub fn bytes_per_cycle(&self) -> f64 {
        self.bytes as f64 * PERIOD_PS as f64 / (self.ns.max(1) as f64 * 1000.0)
    }

    /// Goodput in Gb/s (of the model's virtual time).
    pub fn gbps(&self) -> f64 {
        self.bytes as f64 * 8.0 / self.ns.max(1) as f64
    }

    /// The `q`-quantile of the latencies (0.5: median), ns; the same rank as `DemoReport::latency`.
    pub fn latency_ns(&self, q: f64) -> u64 {
        quantile(&self.latencies_ns, q)
    }

    /// The `q`-quantile of the latencies in cycles at [`PERIOD_PS`].
    pub fn latency_cycles(&self, q: f64) -> u64 {
        cycles_of(self.latency_ns(q))
    }

    /// Every byte and every completion was right.
    pub fn passed(&self) -> bool {
        self.corrupt == 0 && self.strays == 0 && self.bad_completions == 0
    }
}

/// One message of the run.
struct Msg {
    op: SqOp,
    src: u64,
    dst: u64,
    len: u32,
    posted: u64,
}

/// The model's operation of a send queue entry's kind.
fn send_op(op: SqOp) -> SendOp {
    match op {
        SqOp::Write => SendOp::Write,
        SqOp::WriteImm(imm) => SendOp::WriteImm(imm),
        SqOp::Send => SendOp::Send,
        SqOp::SendImm(imm) => SendOp::SendImm(imm),
        SqOp::Read => SendOp::Read,
    }
}

/// Counts a bad completion, keeping the first one's description.
fn bad(report: &mut ModelReport, what: String) {
    report.bad_completions += 1;
    report.first_bad.get_or_insert(what);
}

/// Whether a message of kind `op` consumes a receive buffer at B (MR-SEM-20).
fn consumes_recv(op: SqOp) -> bool {
    matches!(op, SqOp::Send | SqOp::SendImm(_) | SqOp::WriteImm(_))
}

/// Whether `c` is the right send completion of message `i` (MR-SEM-24: in order, success).
fn send_ok(c: &Completion, i: usize, m: &Msg) -> bool {
    let want = match m.op {
        SqOp::Send | SqOp::SendImm(_) => WcOpcode::Send,
        SqOp::Read => WcOpcode::Read,
        SqOp::Write | SqOp::WriteImm(_) => WcOpcode::Write,
    };
    c.status == WcStatus::Success && c.wr_id == i as u64 && c.opcode == want
}

/// Whether `c` is the right receive completion of message `i` at B.
fn recv_ok(c: &Completion, i: usize, m: &Msg) -> bool {
    let fields = match m.op {
        SqOp::Send => c.opcode == WcOpcode::Recv && c.byte_len == m.len && c.imm.is_none(),
        SqOp::SendImm(imm) => {
            c.opcode == WcOpcode::Recv && c.byte_len == m.len && c.imm == Some(imm)
        }
        SqOp::WriteImm(imm) => c.opcode == WcOpcode::RecvWriteImm && c.imm == Some(imm),
        SqOp::Write | SqOp::Read => false,
    };
    fields && c.status == WcStatus::Success && c.wr_id == i as u64
}

/// Bound on the rounds of work at one instant (an endpoint that kept producing work at the same time forever
/// would otherwise hang the run instead of failing it).
const MAX_ROUNDS_PER_INSTANT: usize = 100_000;

/// The two endpoints and the link between them on one virtual clock, stepped from event to event as the
/// harness's `Pair` does, except that the host acts at the instant of every event (a work request posted
/// after a completion may start at the completion's time).
struct Twin {
    a: Endpoint<SparseMemory>,
    b: Endpoint<SparseMemory>,
    ab: Link,
    ba: Link,
    now: u64,
    blocked: [bool; 2],
    buf: Vec<u8>,
}

impl Twin {
    /// Does everything due now: deliveries, timers, transmissions while the ports are free; returns the
    /// events of A and of B.
    fn drive(&mut self) -> Result<[Vec<Event>; 2], String> {
        let now = self.now;
        let mut events = [Vec::new(), Vec::new()];
        let mut timer_calls = [0u32; 2];
        for _ in 0..MAX_ROUNDS_PER_INSTANT {
            let mut busy = false;
            while let Some(f) = self.ab.pop_due(now) {
                self.b.handle_frame(now, &f);
                busy = true;
            }
            while let Some(f) = self.ba.pop_due(now) {
                self.a.handle_frame(now, &f);
                busy = true;
            }
            for (k, ep) in [&mut self.a, &mut self.b].into_iter().enumerate() {
                // A timer that does not move forward is retried at the next nanosecond.
                if timer_calls[k] < 4 && ep.poll_timeout().is_some_and(|t| t <= now) {
                    ep.handle_timeout(now);
                    timer_calls[k] += 1;
                    busy = true;
                }
            }
            for (k, (ep, link)) in [(&mut self.a, &mut self.ab), (&mut self.b, &mut self.ba)]
                .into_iter()
                .enumerate()
            {
                while link.can_send(now) && ep.poll_transmit(now, &mut self.buf) {
                    link.send(now, self.buf.clone());
                    busy = true;
                }
                self.blocked[k] = !link.can_send(now);
                while let Some(ev) = ep.poll_event() {
                    events[k].push(ev);
                    busy = true;
                }
            }
            if !busy {
                return Ok(events);
            }
        }
        Err(format!(
            "still busy after {MAX_ROUNDS_PER_INSTANT} rounds at {now} ns"
        ))
    }

    /// The next time anything is scheduled, if anything is.
    fn next_time(&self) -> Option<u64> {
        let now = self.now;
        [
            self.ab.next_delivery(),
            self.ba.next_delivery(),
            self.ab.next_link_event(),
            self.ba.next_link_event(),
            self.blocked[0].then(|| self.ab.ready_at()),
            self.blocked[1].then(|| self.ba.ready_at()),
            self.a.poll_timeout(),
            self.b.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        .min()
        .map(|t| t.max(now + 1))
    }
}

/// Runs the scenario of `metaroce demo` with `cfg` on two reference-model endpoints (see the module
/// documentation). `cfg.vcd` and `cfg.vcd_from` do not apply; `cfg.max_cycles` bounds the virtual time at
/// [`PERIOD_PS`]. Fails on a bad configuration, a QP error or a run that does not finish; a wrong byte or
/// completion is reported in the [`ModelReport`] (see [`ModelReport::passed`]).
pub fn run_model(cfg: &DemoConfig) -> Result<ModelReport, String> {
    let t0 = std::time::Instant::now();
    let mut seeds = Rng::new(cfg.seed ^ 0x4D4F_4445_4C00);
    let mut ca = model_config(&SIDE_A, seeds.next_u64());
    let mut cb = model_config(&SIDE_B, seeds.next_u64());
    ca.line_rate_bps = u64::from(cfg.line_rate_gbps).saturating_mul(1_000_000_000);
    cb.line_rate_bps = ca.line_rate_bps;
    ca.ack_ratio = cfg.ack_ratio.clamp(1, 64);
    cb.ack_ratio = ca.ack_ratio;
    let link = link_config(cfg);
    let endpoint = |c, side| {
        Endpoint::try_new(c, SparseMemory::new()).map_err(|e| format!("{side}: config: {e:?}"))
    };
    let mut p = Twin {
        a: endpoint(ca, "A")?,
        b: endpoint(cb, "B")?,
        // Each direction seeded as the co-simulation's pair seeds it.
        ab: Link::new(link.clone(), cfg.seed ^ 0xA5A5),
        ba: Link::new(link, cfg.seed ^ 0x5A5A),
        now: 0,
        blocked: [false; 2],
        buf: Vec::with_capacity(16 * 1024),
    };
    let rights = Access::LOCAL_WRITE | Access::REMOTE_WRITE | Access::REMOTE_READ;
    let ka =
        p.a.register_mr(BUF, BUF_LEN, rights)
            .map_err(|e| format!("A: register_mr: {e:?}"))?;
    let kb =
        p.b.register_mr(BUF, BUF_LEN, rights)
            .map_err(|e| format!("B: register_mr: {e:?}"))?;
    let qa =
        p.a.create_qp(RING as u32, RING as u32)
            .map_err(|e| format!("A: create_qp: {e:?}"))?;
    let qb =
        p.b.create_qp(RING as u32, RING as u32)
            .map_err(|e| format!("B: create_qp: {e:?}"))?;
    for (ep, qpn, peer, peer_qpn) in [(&mut p.a, qa, &SIDE_B, qb), (&mut p.b, qb, &SIDE_A, qa)] {
        ep.connect_qp(
            qpn,
            RemoteQp {
                mac: peer.mac,
                ip: IpAddr::V4(peer.ip),
                qpn: peer_qpn,
            },
        )
        .map_err(|e| format!("connect_qp: {e:?}"))?;
    }
    // The messages, laid out as the demonstration lays them out.
    let mut data_rng = Rng::new(cfg.seed ^ 0xDA7A_DA7A);
    let (mut src, mut dst) = (BUF, BUF);
    let mut msgs = Vec::with_capacity(cfg.messages);
    for (op, len) in plan(cfg) {
        let mut data = vec![0u8; len as usize];
        data_rng.fill_bytes(&mut data);
        if matches!(op, SqOp::Read) {
            p.b.memory_mut().write(dst, &data);
        } else {
            p.a.memory_mut().write(src, &data);
        }
        msgs.push(Msg {
            op,
            src,
            dst,
            len,
            posted: 0,
        });
        src += (u64::from(len) + 127) & !63;
        dst += (u64::from(len) + 127) & !63;
        if dst.max(src) + u64::from(cfg.max_bytes) + 128 > BUF + BUF_LEN {
            return Err("the messages do not fit the buffers".into());
        }
    }
    let recvs: Vec<usize> = (0..msgs.len())
        .filter(|&i| consumes_recv(msgs[i].op))
        .collect();
    let start = p.now;
    let limit = start.saturating_add(cfg.max_cycles.saturating_mul(PERIOD_PS) / 1000);
    let window = cfg.window.clamp(1, RING);
    let mut report = ModelReport::default();
    // Next message to post, next to hand to the QP, next receive buffer to post, receives completed.
    let (mut next, mut next_qp, mut next_recv, mut recv_done) = (0usize, 0usize, 0usize, 0usize);
    // Messages posted and not completed, in order.
    let mut inflight: VecDeque<usize> = VecDeque::new();
    let mut end = start;
    loop {
        let now = p.now;
        let mut acted = false;
        // Keep receive buffers posted, then the window of work requests.
        while next_recv < recvs.len() && next_recv - recv_done < RING {
            let i = recvs[next_recv];
            let m = &msgs[i];
            let wr = RecvWr {
                wr_id: i as u64,
                sge: Sge {
                    addr: m.dst,
                    len: m.len,
                    lkey: kb.lkey,
                },
            };
            p.b.post_recv(qb, wr)
                .map_err(|e| format!("B: post_recv {wr:?}: {e:?}"))?;
            next_recv += 1;
            acted = true;
        }
        while next < msgs.len() && inflight.len() < window {
            msgs[next].posted = now;
            inflight.push_back(next);
            next += 1;
        }
        while next_qp < next {
            let m = &msgs[next_qp];
            let remote = !matches!(m.op, SqOp::Send | SqOp::SendImm(_));
            let wr = SendWr {
                wr_id: next_qp as u64,
                op: send_op(m.op),
                local: Sge {
                    addr: m.src,
                    len: m.len,
                    lkey: ka.lkey,
                },
                remote_addr: if remote { m.dst } else { 0 },
                rkey: if remote { kb.rkey } else { 0 },
                solicited: false,
            };
            p.a.post_send(now, qa, wr)
                .map_err(|e| format!("A: post_send {wr:?}: {e:?}"))?;
            next_qp += 1;
            acted = true;
        }
        let [events_a, events_b] = p.drive()?;
        acted |= !events_a.is_empty() || !events_b.is_empty();
        for ev in events_b {
            match ev {
                Event::Completion(c) => {
                    let i = recvs.get(recv_done).copied();
                    if !i.is_some_and(|i| recv_ok(&c, i, &msgs[i])) {
                        bad(
                            &mut report,
                            format!("B at {now} ns: {c:?}, expected the receive of message {i:?}"),
                        );
                    }
                    recv_done += 1;
                }
                Event::QpError { qpn, status } => {
                    return Err(format!(
                        "B at {now} ns: QP {qpn:#x} entered ERROR ({status:?})"
                    ))
                }
                Event::ConnectionOpened { .. } | Event::ConnectionClosed { .. } => {}
            }
        }
        for ev in events_a {
            match ev {
                Event::Completion(c) => {
                    let Some(i) = inflight.pop_front().filter(|&i| i < next_qp) else {
                        bad(
                            &mut report,
                            format!("A at {now} ns: {c:?} with nothing posted"),
                        );
                        continue;
                    };
                    let m = &msgs[i];
                    if !send_ok(&c, i, m) {
                        bad(
                            &mut report,
                            format!("A at {now} ns: {c:?}, expected message {i} ({:?})", m.op),
                        );
                    }
                    report.messages += 1;
                    report.bytes += u64::from(m.len);
                    report.completed.push((m.op, m.len));
                    report.latencies_ns.push(now - m.posted);
                    end = now;
                }
                Event::QpError { qpn, status } => {
                    return Err(format!(
                        "A at {now} ns: QP {qpn:#x} entered ERROR ({status:?})"
                    ))
                }
                Event::ConnectionOpened { .. } | Event::ConnectionClosed { .. } => {}
            }
        }
        let sent_all = report.messages == msgs.len();
        if sent_all && (recv_done >= recvs.len() || now > end.saturating_add(DRAIN_NS)) {
            break;
        }
        if acted {
            // The host may act again at this instant (a completion freed a place in the window).
            continue;
        }
        match p.next_time() {
            Some(t) if t <= limit => p.now = t,
            Some(_) if sent_all => break,
            None if sent_all => break,
            t => {
                return Err(format!(
                    "{} of {} messages completed, {recv_done} of {} receives, when the model {} at {now} ns",
                    report.messages,
                    msgs.len(),
                    recvs.len(),
                    if t.is_none() {
                        "went idle"
                    } else {
                        "reached the time limit"
                    },
                ))
            }
        }
    }
    report.ns = end - start;
    if recv_done < recvs.len() {
        let missing = recvs.len() - recv_done;
        report.bad_completions += missing;
        report
            .first_bad
            .get_or_insert(format!("B: {missing} receive completions missing"));
    }
    // Both directions: B's target equals A's source (WRITE, WRITE_IMM, SEND), A's target equals B's source
    // (READ); the gap after each target stays untouched.
    let read = |mem: &SparseMemory, addr: u64, len: usize| {
        let mut v = vec![0u8; len];
        mem.read(addr, &mut v);
        v
    };
    for m in &msgs {
        let (from, to) = if matches!(m.op, SqOp::Read) {
            (p.b.memory(), p.a.memory())
        } else {
            (p.a.memory(), p.b.memory())
        };
        let (s, d) = if matches!(m.op, SqOp::Read) {
            (m.dst, m.src)
        } else {
            (m.src, m.dst)
        };
        let len = m.len as usize;
        if read(to, d, len) != read(from, s, len) {
            report.corrupt += 1;
        }
        let gap = ((u64::from(m.len) + 127) & !63) - u64::from(m.len);
        if read(to, d + u64::from(m.len), gap as usize)
            .iter()
            .any(|&b| b != 0)
        {
            report.strays += 1;
        }
        report.target_bytes[usize::from(!matches!(m.op, SqOp::Read))] += u64::from(m.len);
    }
    report.stats = [*p.a.stats(), *p.b.stats()];
    report.rx_payload_bytes = [
        report.stats[0].rx_payload_bytes,
        report.stats[1].rx_payload_bytes,
    ];
    report.data_packets = report.stats[0].tx_data_packets;
    let own: u64 = msgs
        .iter()
        .map(|m| match m.op {
            SqOp::Read => 1,
            _ => u64::from(m.len.div_ceil(MTU)).max(1),
        })
        .sum();
    report.retransmissions = report.data_packets.saturating_sub(own);
    report.link_lost = p.ab.stats().dropped() + p.ba.stats().dropped();
    report.wall_s = t0.elapsed().as_secs_f64();
    Ok(report)
}
