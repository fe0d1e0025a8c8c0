//! The sender engine (rust-hdl simulator) against the model's rules: a connection is opened (MR-CC-7:
//! `cwnd = bdp`), the transmit side asks the gate for new PSNs until refused (MR-REL-4 window, MR-CC-1 cwnd,
//! MR-CC-2 pacing with the NSCC gap of MR-CC-14), reports every allowed packet (`TxSent`), and cumulative ACKs
//! with an `echo_ts` of a covered packet (MR-REL-26 sample) and random ECE come back, one at a time or several
//! at once (each taken while the one before is processed). Every gate answer
//! (allow, `retry_at`) must equal the decision computed from `metaroce_proto`'s `Nscc` fed with the same
//! ACK sequence (`on_ack(now, acked payload bytes, sample, ece)`, MR-CC-4), and every snd_una advance must
//! appear on `m_axis_una_*`. Seed: `REL_SE_SEED` (printed); rounds: `REL_SE_ROUNDS` (default 16).

use metaroce_hdl::records::{PktMeta, TxSent};
use metaroce_hdl::rel::records::{ConnOpen, GateReq, GateResp};
use metaroce_hdl::rel::sender_engine::{
    SenderEngine, LOST_DISTANCE, LOST_RNR, LOST_RTO, LOST_TIME, LOST_TRIM,
};
use metaroce_proto::transport::cc::{CcParams, CongestionControl, Nscc};
use metaroce_proto::transport::loss::{LossCause, SendWindow, SentPkt, F_LOST};
use metaroce_proto::transport::path::{port_to_ev, PathSet, RecycleCause};
use metaroce_proto::transport::rtt::RttEstimator;
use metaroce_proto::wire::{NackCode, PacketType};
use metaroce_regmap::descriptor::cqe::CqeStatus;
use rust_hdl::prelude::*;
use std::collections::VecDeque;

mod support;
use support::{env, Rng};

/// A gate answer as the oracle gives it: (allow, retry_at, skip, entry, EV).
fn answer(r: &GateResp) -> (bool, u32, bool, u8, u16) {
    (
        r.allow,
        r.retry_at.to_u64() as u32,
        r.skip,
        r.path.to_u64() as u8,
        r.ev.to_u64() as u16,
    )
}

/// The engine's timer and retry configuration.
struct Timers {
    rto_min: u64,
    rto_init: u64,
    rto_max: u64,
    retry_limit: u8,
    rnr_retry: u8,
    reorder_distance: u32,
}

struct Tb {
    u: Box<SenderEngine>,
    una_log: Vec<(u64, u32)>,
    /// PSNs on `m_axis_rtx_*`, in order.
    rtx_log: Vec<u32>,
    /// `stat_lost_cause` of every `stat_lost` pulse, in order.
    lost_log: Vec<u64>,
    /// Connections on `m_axis_err_*`.
    err_log: Vec<(u64, u64, bool, u64)>,
    /// Cycles with `stat_slot_wait`.
    slot_waits: usize,
}

impl Tb {
    /// An engine for 4 connections and 4 window slots configured from `p` and `t`, reset at `now` (the timer
    /// wheel clears its slot heads after reset), every output stream ready.
    fn new(p: &CcParams, t: &Timers, now: u64) -> Self {
        Self::with_slots(p, t, now, 2)
    }

    /// The same with `1 << slot_bits` window slots.
    fn with_slots(p: &CcParams, t: &Timers, now: u64, slot_bits: u32) -> Self {
        let mut u = Box::new(SenderEngine::new(2, slot_bits));
        u.connect_all();
        u.cfg_mtu.next = p.mtu.to_bits();
        u.cfg_bdp.next = p.bdp_bytes().to_bits();
        u.cfg_target_ns.next = p.target_qdelay_ns.to_bits();
        u.cfg_base_rtt_ns.next = p.base_rtt_ns.to_bits();
        u.cfg_min_rtt_window_ns.next = p.min_rtt_window_ns.to_bits();
        u.cfg_line_rate_bps.next = p.line_rate_bps.to_bits();
        u.cfg_rto_min_ns.next = t.rto_min.to_bits();
        u.cfg_rto_init_ns.next = t.rto_init.to_bits();
        u.cfg_rto_max_ns.next = t.rto_max.to_bits();
        u.cfg_retry_limit.next = u64::from(t.retry_limit).to_bits();
        u.cfg_rnr_retry.next = u64::from(t.rnr_retry).to_bits();
        u.cfg_reorder_distance.next = u64::from(t.reorder_distance).to_bits();
        u.m_axis_una_tready.next = true;
        u.m_axis_rtx_tready.next = true;
        u.m_axis_err_tready.next = true;
        u.now.next = now.to_bits();
        let mut tb = Tb {
            u,
            una_log: vec![],
            rtx_log: vec![],
            lost_log: vec![],
            err_log: vec![],
            slot_waits: 0,
        };
        tb.u.rst.next = true;
        tb.tick();
        tb.u.rst.next = false;
        tb.drain(1100);
        tb
    }

    fn open(&mut self, o: ConnOpen) {
        self.push(
            |u, v| {
                u.s_axis_open_tdata.next = o;
                u.s_axis_open_tvalid.next = v;
            },
            |u| u.s_axis_open_tready.val(),
        );
    }

    fn sent(&mut self, t: TxSent) {
        self.push(
            |u, v| {
                u.s_axis_sent_tdata.next = t;
                u.s_axis_sent_tvalid.next = v;
            },
            |u| u.s_axis_sent_tready.val(),
        );
    }

    /// Reports a packet the gate allowed (`r`) as transmitted at `now`, and lets the engine take it in.
    fn send_allowed(&mut self, r: &GateResp, now: u64, charged: u64, rtx: bool) {
        self.sent(TxSent {
            conn: r.conn,
            psn: r.psn,
            ts: (now as u32 as u64).to_bits(),
            charged: charged.to_bits(),
            path: r.path,
            ev: r.ev,
            rtx,
        });
        self.drain(60);
    }

    fn feedback(&mut self, m: PktMeta) {
        self.push(
            |u, v| {
                u.s_axis_fb_tdata.next = m;
                u.s_axis_fb_tvalid.next = v;
            },
            |u| u.s_axis_fb_tready.val(),
        );
    }

    fn settle(&mut self) {
        for _ in 0..1000 {
            self.u.update_all();
            if !self.u.has_changed() {
                return;
            }
        }
        panic!("combinational loop");
    }

    fn tick(&mut self) {
        self.settle();
        assert!(
            !self.u.stat_slot_miss.val(),
            "a transmission missed a window slot"
        );
        self.slot_waits += usize::from(self.u.stat_slot_wait.val());
        if self.u.m_axis_una_tvalid.val() && self.u.m_axis_una_tready.val() {
            let d = self.u.m_axis_una_tdata.val();
            self.una_log
                .push((d.conn.index() as u64, d.snd_una.index() as u32));
        }
        if self.u.stat_lost.val() {
            self.lost_log.push(self.u.stat_lost_cause.val().to_u64());
        }
        if self.u.m_axis_rtx_tvalid.val() && self.u.m_axis_rtx_tready.val() {
            self.rtx_log
                .push(self.u.m_axis_rtx_tdata.val().psn.to_u64() as u32);
        }
        if self.u.m_axis_err_tvalid.val() && self.u.m_axis_err_tready.val() {
            let e = self.u.m_axis_err_tdata.val();
            self.err_log.push((
                e.conn.to_u64(),
                e.status.to_u64(),
                e.by_msn && e.strict,
                e.msn.to_u64(),
            ));
        }
        self.u.clk.next = true.into();
        self.settle();
        self.u.clk.next = false.into();
        self.settle();
    }

    fn push(
        &mut self,
        set: impl Fn(&mut SenderEngine, bool),
        ready: impl Fn(&SenderEngine) -> bool,
    ) {
        set(&mut self.u, true);
        for _ in 0..5000 {
            self.settle();
            if ready(&self.u) {
                self.tick();
                set(&mut self.u, false);
                return;
            }
            self.tick();
        }
        panic!("stream never ready");
    }

    /// Runs `n` cycles (the engine finishes a command before `now` changes).
    fn drain(&mut self, n: usize) {
        for _ in 0..n {
            self.tick();
        }
    }

    fn gate(&mut self, req: GateReq) -> (bool, u32) {
        let r = self.gate_full(req);
        (r.allow, r.retry_at.index() as u32)
    }

    fn gate_full(&mut self, req: GateReq) -> GateResp {
        self.push(
            |u, v| {
                u.s_axis_gate_req_tdata.next = req;
                u.s_axis_gate_req_tvalid.next = v;
            },
            |u| u.s_axis_gate_req_tready.val(),
        );
        // An EV set of 64 entries takes up to ~840 cycles to draw after an open.
        for _ in 0..2000 {
            self.settle();
            if self.u.m_axis_gate_resp_tvalid.val() {
                let r = self.u.m_axis_gate_resp_tdata.val();
                assert_eq!(r.conn, req.conn);
                assert_eq!(r.psn, req.psn);
                self.u.m_axis_gate_resp_tready.next = true;
                self.tick();
                self.u.m_axis_gate_resp_tready.next = false;
                return r;
            }
            self.tick();
        }
        panic!("no gate response");
    }
}

#[test]
fn mr_rel_4_mr_cc_1_2_4_7_14_sender_engine_matches_the_model() {
    let seed = env("REL_SE_SEED", 0x5e0d_2026);
    let rounds = env("REL_SE_ROUNDS", 16);
    println!("REL_SE_SEED={seed} REL_SE_ROUNDS={rounds}");
    let mut rng = Rng(seed);
    let p = CcParams {
        mtu: 1024,
        line_rate_bps: [25_000_000_000u64, 100_000_000_000][rng.below(2) as usize],
        base_rtt_ns: 4_000 + rng.below(8_000),
        target_qdelay_ns: 2_000 + rng.below(4_000),
        min_rtt_window_ns: 50_000,
        ..CcParams::default()
    };
    let mut m = Nscc::new(&p);
    assert_eq!(m.max_cwnd(), 2 * p.bdp_bytes());
    let conn = 1u64;
    let isn = u32::MAX - 100;
    let timers = Timers {
        rto_min: 100_000,
        rto_init: 1_000_000,
        rto_max: 100_000_000,
        retry_limit: 7,
        rnr_retry: 7,
        reorder_distance: 3,
    };
    let mut now: u64 = (1 << 32) - 2_000_000 + rng.below(1_000_000);
    let mut tb = Tb::new(&p, &timers, now);
    let open = ConnOpen {
        conn: conn.to_bits(),
        isn: (isn as u64).to_bits(),
        paths: 8u64.to_bits(),
        seed: 1u64.to_bits(),
        ..Default::default()
    };
    tb.open(open);
    tb.drain(4);
    // Model state.
    let (mut una, mut nxt) = (isn, isn);
    let mut inflight = 0u64;
    let mut next_send_at = 0u64;
    let mut out: VecDeque<(u32, u64, u64)> = VecDeque::new(); // psn, charged, sent time
    let mut expect_una = vec![];
    let (mut allowed, mut refused_cwnd, mut refused_pace, mut refused_win, mut eces) =
        (0, 0, 0, 0, 0);
    let mut bursts = 0;
    for round in 0..rounds {
        // Transmissions until the gate refuses.
        loop {
            now += rng.below(400);
            tb.u.now.next = now.to_bits();
            let charged = 64 + rng.below(1025);
            let req = GateReq {
                conn: conn.to_bits(),
                psn: (nxt as u64).to_bits(),
                charged: charged.to_bits(),
                rtx: false,
            };
            let win_ok = nxt.wrapping_sub(una) < 256;
            let cwnd_ok = inflight == 0 || inflight < m.cwnd();
            let pace_ok = now >= next_send_at;
            let (allow, retry_at) = tb.gate(req);
            assert_eq!(
                allow,
                win_ok && cwnd_ok && pace_ok,
                "round {round} psn {nxt}: win {win_ok} cwnd {cwnd_ok} ({inflight} < {}) pace {pace_ok}",
                m.cwnd()
            );
            if !allow {
                let exp_retry = if win_ok && cwnd_ok {
                    next_send_at as u32
                } else {
                    0
                };
                assert_eq!(retry_at, exp_retry, "round {round}: retry_at");
                if !win_ok {
                    refused_win += 1;
                } else if !cwnd_ok {
                    refused_cwnd += 1;
                } else {
                    refused_pace += 1;
                    if round % 2 == 1 || rng.below(10) != 0 {
                        // Wait for pacing and ask again (odd rounds: until window or cwnd refuse).
                        now = next_send_at + rng.below(50);
                        continue;
                    }
                }
                break;
            }
            allowed += 1;
            let t = TxSent {
                conn: conn.to_bits(),
                psn: (nxt as u64).to_bits(),
                ts: (now as u32 as u64).to_bits(),
                charged: charged.to_bits(),
                path: 0u64.to_bits(),
                ev: 0u64.to_bits(),
                rtx: false,
            };
            tb.sent(t);
            m.on_send(now, charged);
            let gap = m.pacing_gap_ns(charged);
            next_send_at = if gap == 0 { 0 } else { now + gap };
            out.push_back((nxt, charged, now));
            nxt = nxt.wrapping_add(1);
            inflight += charged;
            tb.drain(60);
        }
        // A few cumulative ACKs: one at a time, or (every other round, at random) arriving together, each
        // taken while the one before is still processed (its NSCC on_ack in the background).
        let burst = rng.below(2) == 0;
        let n_acks = 1 + rng.below(3);
        if burst {
            now += p.base_rtt_ns / 2 + rng.below(3 * p.target_qdelay_ns);
            tb.u.now.next = now.to_bits();
            if n_acks > 1 && out.len() > 1 {
                bursts += 1;
            }
        }
        for _ in 0..n_acks {
            if out.is_empty() {
                break;
            }
            if !burst {
                now += p.base_rtt_ns / 2 + rng.below(3 * p.target_qdelay_ns);
                tb.u.now.next = now.to_bits();
            }
            let k = 1 + rng.below(out.len() as u64) as usize;
            let echo = out[k - 1].2 as u32;
            let mut bytes = 0;
            for _ in 0..k {
                let (_, c, _) = out.pop_front().unwrap();
                bytes += c - 64;
                inflight -= c;
            }
            una = una.wrapping_add(k as u32);
            expect_una.push((conn, una));
            let ece = rng.below(5) == 0;
            eces += ece as usize;
            let sample = (now as u32).wrapping_sub(echo) as u64;
            assert!(sample != 0 && sample < 1 << 31);
            m.on_ack(now, bytes, Some(sample), ece);
            let ack = PktMeta {
                conn: conn.to_bits(),
                ptype: 2u64.to_bits(),
                psn: (una as u64).to_bits(),
                sack_base: (una as u64).to_bits(),
                echo_ts: (echo as u64).to_bits(),
                aflags: (if ece { 0x80u64 } else { 0 }).to_bits(),
                ..Default::default()
            };
            tb.feedback(ack);
            if !burst {
                tb.drain(200);
            }
        }
        tb.drain(200);
    }
    assert_eq!(tb.una_log, expect_una, "snd_una advances");
    assert!(
        tb.rtx_log.is_empty() && tb.err_log.is_empty(),
        "no loss in this test"
    );
    println!(
        "allowed {allowed}, refused: window {refused_win}, cwnd {refused_cwnd}, pacing {refused_pace}; \
         ACKs {} (ECE {eces}, {bursts} rounds with ACKs arriving together); final cwnd {}",
        expect_una.len(),
        m.cwnd()
    );
    assert!(allowed > 100 && refused_cwnd + refused_win > 0 && refused_pace > 0 && bursts > 0);
    assert!(!expect_una.is_empty());
}

/// The model's sender decisions for one connection, assembled from `metaroce_proto`'s parts exactly as
/// `transport::metaroce::send` combines them (`on_ack`, `on_nack`, `on_timeout`, the gate of
/// `poll_transmit` and `after_data_sent`). PROBEs are not part of the hardware and are left out; MR-REL-45's
/// "declared PSNs wait" looks at the records (see the engine's docs).
struct Oracle {
    w: SendWindow,
    rtt: RttEstimator,
    cc: Nscc,
    paths: PathSet,
    rto_rtx: bool,
    retries: u8,
    retry_limit: u8,
    rnr_until: u64,
    rnr_count: u8,
    rnr_retry: u8,
    next_send_at: u64,
    failed: bool,
    /// The status the failure reports (`CqeStatus`).
    fail_status: u64,
    /// PSNs declared lost, in order.
    declared: Vec<u32>,
    /// Their causes (`LOST_*` of the engine's `stat_lost_cause`).
    causes: Vec<u64>,
}

/// The engine's `stat_lost_cause` for a model loss cause.
fn lost_code(c: LossCause) -> u64 {
    match c {
        LossCause::Trim => LOST_TRIM,
        LossCause::Time => LOST_TIME,
        LossCause::Distance => LOST_DISTANCE,
        LossCause::Rto => LOST_RTO,
        LossCause::Rnr => LOST_RNR,
    }
}

impl Oracle {
    fn detect(&mut self, now: u64) {
        let (srtt, reo) = (self.rtt.srtt(), self.rtt.reo_wnd());
        let Oracle {
            w,
            paths,
            cc,
            declared,
            causes,
            ..
        } = self;
        w.detect_losses(now, srtt, reo, |psn, rec, cause| {
            declared.push(psn);
            causes.push(lost_code(cause));
            paths.recycle(rec.path, rec.ev, RecycleCause::Loss, now);
            cc.on_loss(now);
        });
    }

    #[allow(clippy::too_many_arguments)]
    fn on_ack(
        &mut self,
        now: u64,
        cack: u32,
        base: u32,
        sack: &[u8; 32],
        echo_ts: u32,
        echo_ev: u16,
        ece: bool,
        dup: bool,
    ) {
        let sample = (now as u32).wrapping_sub(echo_ts) as u64;
        let sample_ok = sample < (1 << 31);
        if sample_ok {
            self.rtt.on_sample(now, sample.max(1));
        }
        self.w.on_reordering_signal(now, self.rtt.srtt(), dup);
        let rto = self.rtt.rto();
        let paths = &mut self.paths;
        let res = self.w.on_ack(now, cack, base, sack, rto, |pkt| {
            if !ece {
                paths.on_clean_ack(pkt.path, pkt.ev);
            }
        });
        if res.invalid {
            return;
        }
        if res.newly_acked > 0 {
            self.rto_rtx = false;
            self.retries = 0;
        }
        if res.cack_advanced {
            self.rnr_count = 0;
        }
        self.paths.set_srtt(self.rtt.srtt());
        if ece {
            let ev = port_to_ev(echo_ev);
            if let Some(idx) = self.paths.index_of(ev) {
                self.paths.recycle(idx, ev, RecycleCause::Ece, now);
            }
        }
        if res.newly_acked > 0 || ece {
            self.cc
                .on_ack(now, res.acked_bytes, sample_ok.then_some(sample), ece);
        }
        self.detect(now);
    }

    fn on_nack(&mut self, now: u64, psn: u32, trim: bool, echo: u32, aux: u32) {
        let ok = if trim {
            self.w.get(psn).is_some_and(|r| r.sent as u32 == echo) && !self.w.is_acked(psn)
        } else {
            self.w.get(psn).is_some() && !self.w.is_acked(psn)
        };
        if !ok {
            return;
        }
        if let Some(rec) = self.w.mark_lost(psn) {
            self.declared.push(psn);
            self.causes.push(if trim { LOST_TRIM } else { LOST_RNR });
            if trim {
                self.paths
                    .recycle(rec.path, rec.ev, RecycleCause::Trim, now);
                self.cc.on_nack_trim(now);
            } else {
                if now >= self.rnr_until {
                    self.rnr_count = self.rnr_count.saturating_add(1);
                }
                self.rnr_until = now + u64::from(aux.max(1)) * 1000;
                if self.rnr_count > self.rnr_retry {
                    self.failed = true;
                    self.fail_status = CqeStatus::RnrRetryExceeded as u64;
                }
            }
        }
    }

    fn deadline(&self) -> Option<u64> {
        if self.failed {
            return None;
        }
        match (self.w.rto_deadline, self.w.rack_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn on_timeout(&mut self, now: u64) {
        if self.w.rack_deadline.is_some_and(|t| t <= now) {
            self.detect(now);
        }
        if self.w.rto_deadline.is_some_and(|t| t <= now) {
            self.retries = self.retries.saturating_add(1);
            if self.retries > self.retry_limit {
                self.failed = true;
                self.fail_status = CqeStatus::RetryExceeded as u64;
                return;
            }
            let rto = self.rtt.rto();
            let Oracle {
                w,
                paths,
                declared,
                causes,
                ..
            } = self;
            w.on_rto(now, rto, |psn, rec| {
                declared.push(psn);
                causes.push(LOST_RTO);
                paths.recycle(rec.path, rec.ev, RecycleCause::Loss, now);
            });
            let una = self.w.una();
            self.rto_rtx = (0..self.w.outstanding()).any(|i| {
                let p = una.wrapping_add(i);
                !self.w.is_acked(p) && self.w.get(p).is_some_and(|e| e.flags & F_LOST != 0)
            });
            self.rtt.on_timeout();
            self.cc.on_timeout(now);
            if self.w.outstanding() > 0 {
                self.w.rto_deadline = Some(now + self.rtt.rto());
            }
        }
    }

    fn cwnd_allows(&self) -> bool {
        let f = self.w.inflight_bytes();
        f == 0 || f < self.cc.cwnd()
    }

    /// The gate's answer: (allow, retry_at, skip, path, ev); an allowed packet is also recorded as sent.
    fn gate(&mut self, now: u64, psn: u32, rtx: bool, charged: u64) -> (bool, u32, bool, u8, u16) {
        if self.failed {
            return (false, 0, rtx, 0, 0);
        }
        if rtx {
            let found =
                self.w.get(psn).is_some_and(|e| e.flags & F_LOST != 0) && !self.w.is_acked(psn);
            if !found {
                return (false, 0, true, 0, 0);
            }
            if now < self.rnr_until {
                return (false, self.rnr_until as u32, false, 0, 0);
            }
            let cwnd_ok = self.rto_rtx || self.cwnd_allows();
            let pace_ok = now >= self.next_send_at;
            if !(cwnd_ok && pace_ok) {
                let retry = if cwnd_ok { self.next_send_at as u32 } else { 0 };
                return (false, retry, false, 0, 0);
            }
            // MR-REL-43: the lost queue yields this PSN next (acknowledged ones are skipped).
            loop {
                let p = self.w.pop_lost().expect("declared PSN queued");
                if p == psn {
                    break;
                }
                assert!(
                    self.w.is_acked(p),
                    "retransmission order: got {psn}, queue has {p}"
                );
            }
            let rec = *self.w.get(psn).unwrap();
            let (path, ev) = self.paths.choose(Some(rec.path), now);
            self.rto_rtx = false;
            let rto = self.rtt.rto();
            self.w.on_retransmit(now, psn, path, ev, rto);
            self.after_sent(now, u64::from(rec.len) + 64);
            (true, 0, false, path, ev)
        } else {
            assert_eq!(psn, self.w.nxt());
            let win_ok = self.w.outstanding() < 256;
            let cwnd_ok = self.cwnd_allows();
            let pace_ok = now >= self.next_send_at;
            if !(win_ok && cwnd_ok && pace_ok) {
                let retry = if win_ok && cwnd_ok {
                    self.next_send_at as u32
                } else {
                    0
                };
                return (false, retry, false, 0, 0);
            }
            let (path, ev) = self.paths.choose(None, now);
            let rto = self.rtt.rto();
            self.w.on_send(
                now,
                SentPkt {
                    len: (charged - 64) as u32,
                    path,
                    ev,
                    ..Default::default()
                },
                rto,
            );
            self.after_sent(now, charged);
            (true, 0, false, path, ev)
        }
    }

    fn after_sent(&mut self, now: u64, bytes: u64) {
        self.cc.on_send(now, bytes);
        let gap = self.cc.pacing_gap_ns(bytes);
        self.next_send_at = if gap == 0 { 0 } else { now + gap };
    }
}

/// The engine against [`Oracle`] on a lossy exchange: new packets and retransmissions asked at the gate in
/// the order the engine declares them (MR-REL-43), ACKs that lose some packets and SACK later ones (holes:
/// time and distance rules MR-REL-36..38, DUP MR-REL-59, ECE MR-PATH-2), NACKs TRIMMED with current and
/// stale echoes (MR-REL-34, MR-REL-35) and RNR, and quiet periods in which the RACK timer (MR-REL-37) and the
/// RTO (MR-REL-39, MR-REL-40, backoff, MR-REL-45, retry limit MR-REL-55) fire through the timer wheel. Every
/// gate answer (allow, retry_at, skip, EV-set entry and EV, MR-PATH-3, MR-PATH-10), the PSNs declared lost
/// (`m_axis_rtx_*`, in order) and the failure (`m_axis_err_*`) must equal the oracle's. Time jumps over a
/// deadline land one tick after it (the wheel may fire up to one tick late, MR-REL-33). Seed: `REL_LOSS_SEED`
/// (printed); steps: `REL_LOSS_STEPS` (default 400). A blackout at the end runs the RTO to the retry limit.
#[test]
fn mr_rel_34_55_mr_path_3_losses_timers_and_paths_match_the_model() {
    let seed = env("REL_LOSS_SEED", 0x1055_2026);
    let steps = env("REL_LOSS_STEPS", 400);
    println!("REL_LOSS_SEED={seed} REL_LOSS_STEPS={steps}");
    let mut rng = Rng(seed);
    let p = CcParams {
        mtu: 1024,
        line_rate_bps: 100_000_000_000,
        base_rtt_ns: 4_000 + rng.below(4_000),
        target_qdelay_ns: 2_000 + rng.below(2_000),
        min_rtt_window_ns: 50_000,
        ..CcParams::default()
    };
    let (rto_min, rto_init, rto_max) = (20_000u64, 200_000u64, 2_000_000u64);
    let retry_limit = 3 + rng.below(4) as u8;
    let rnr_retry = 2 + rng.below(4) as u8;
    let reorder_distance = 16 + rng.below(8) as u32;
    let conn = 3u64;
    let isn = u32::MAX - 40 - rng.below(100) as u32;
    let npaths = [1u8, 4, 8, 16][rng.below(4) as usize];
    let pseed = rng.next() as u32;
    let mut o = Oracle {
        w: SendWindow::new(8, isn, reorder_distance),
        rtt: RttEstimator::new(rto_min, rto_init, rto_max, p.min_rtt_window_ns),
        cc: Nscc::new(&p),
        paths: PathSet::new(npaths, u64::from(pseed)),
        rto_rtx: false,
        retries: 0,
        retry_limit,
        rnr_until: 0,
        rnr_count: 0,
        rnr_retry,
        next_send_at: 0,
        failed: false,
        fail_status: 0,
        declared: vec![],
        causes: vec![],
    };
    let timers = Timers {
        rto_min,
        rto_init,
        rto_max,
        retry_limit,
        rnr_retry,
        reorder_distance,
    };
    // Times cross 2^32 (deadlines are kept mod 2^32).
    let mut now: u64 = (1 << 32) - 3_000_000 + rng.below(1_000_000);
    let mut tb = Tb::new(&p, &timers, now);
    let open = ConnOpen {
        conn: conn.to_bits(),
        isn: (isn as u64).to_bits(),
        paths: u64::from(npaths).to_bits(),
        seed: u64::from(pseed).to_bits(),
        ..Default::default()
    };
    tb.open(open);
    tb.drain(20);
    // PSNs the receiver holds (the ACKs' SACK state) and the PSNs of the declared queue taken so far.
    let mut received: std::collections::BTreeSet<u32> = Default::default();
    let mut rtx_taken = 0usize;
    let (mut sent, mut rtx_sent, mut skipped, mut acks, mut nacks, mut fires) = (0, 0, 0, 0, 0, 0);
    // Advances time; a jump over the oracle's deadline lands one tick (1024 ns) after it, and the oracle's
    // timers run at that instant while the engine's wheel fires.
    let trace = std::env::var("REL_LOSS_TRACE").is_ok();
    let advance = |tb: &mut Tb, o: &mut Oracle, now: &mut u64, dt: u64, fires: &mut usize| {
        let t0 = *now;
        let mut t = *now + dt;
        if let Some(d) = o.deadline() {
            if d <= t {
                t = t.max(((d >> 10) + 1) << 10);
            }
        }
        *now = t;
        tb.u.now.next = t.to_bits();
        if o.deadline().is_some_and(|d| d <= t) {
            if std::env::var("REL_LOSS_TRACE").is_ok() {
                eprintln!(
                    "  timers at {t}: rto {:?} rack {:?}",
                    o.w.rto_deadline, o.w.rack_deadline
                );
            }
            o.on_timeout(t);
            *fires += 1;
        }
        // The wheel's cursor catches up one slot (tick) at a time.
        tb.drain(200 + 4 * ((t - t0) >> 10) as usize);
    };
    for step in 0..steps {
        if o.failed {
            break;
        }
        let r = rng.below(100);
        let ctx = format!("seed {seed} step {step}");
        if trace {
            eprintln!(
                "step {step} r {r} now {now} una {} nxt {} declared {:?}",
                o.w.una(),
                o.w.nxt(),
                o.declared.len()
            );
        }
        if r < 55 {
            // Retransmissions first (MR-REL-43), else a new packet.
            let (psn, rtx) = if rtx_taken < tb.rtx_log.len() {
                rtx_taken += 1;
                (tb.rtx_log[rtx_taken - 1], true)
            } else {
                (o.w.nxt(), false)
            };
            let charged = if rtx {
                o.w.get(psn).map_or(64, |e| u64::from(e.len) + 64)
            } else {
                64 + rng.below(1025)
            };
            let req = GateReq {
                conn: conn.to_bits(),
                psn: (psn as u64).to_bits(),
                charged: charged.to_bits(),
                rtx,
            };
            let want = o.gate(now, psn, rtx, charged);
            let got = tb.gate_full(req);
            assert_eq!(answer(&got), want, "gate psn {psn} rtx {rtx}, {ctx}");
            if rtx && !got.allow && !got.skip {
                // Refused: asked again later, in the same order.
                rtx_taken -= 1;
            }
            skipped += usize::from(got.skip);
            if got.allow {
                sent += 1;
                rtx_sent += usize::from(rtx);
                tb.send_allowed(&got, now, charged, rtx);
                // The network: most packets arrive.
                if rng.below(10) < 8 {
                    received.insert(psn);
                }
            } else {
                advance(
                    &mut tb,
                    &mut o,
                    &mut now,
                    200 + rng.below(3_000),
                    &mut fires,
                );
            }
        } else if r < 82 && o.w.outstanding() > 0 {
            // An ACK: CACK = first PSN not received, SACK of the received ones above it; its echo is the
            // latest transmission of a received PSN.
            advance(
                &mut tb,
                &mut o,
                &mut now,
                500 + rng.below(6_000),
                &mut fires,
            );
            let mut cack = o.w.una();
            while received.contains(&cack) && cack != o.w.nxt() {
                cack = cack.wrapping_add(1);
            }
            let mut sack = [0u8; 32];
            let mut bits = Bits::<256>::default();
            let base = cack;
            for i in 0..256u32 {
                let q = base.wrapping_add(i);
                if received.contains(&q) && o.w.get(q).is_some() {
                    sack[(i / 8) as usize] |= 1 << (i % 8);
                    bits = bits.replace_bit(i as usize, true);
                }
            }
            let cands: Vec<u32> = received
                .iter()
                .copied()
                .filter(|&q| o.w.get(q).is_some())
                .collect();
            let (echo, echo_ev) = if cands.is_empty() {
                ((now as u32).wrapping_sub(1 << 31), 0)
            } else {
                let q = cands[rng.below(cands.len() as u64) as usize];
                let e = o.w.get(q).unwrap();
                (e.sent as u32, e.ev)
            };
            let ece = rng.below(6) == 0;
            let dup = rng.below(12) == 0;
            o.on_ack(now, cack, base, &sack, echo, echo_ev, ece, dup);
            let flags = if ece { 0x80u64 } else { 0 } | if dup { 0x40 } else { 0 };
            let ack = PktMeta {
                conn: conn.to_bits(),
                ptype: 2u64.to_bits(),
                psn: (cack as u64).to_bits(),
                sack_base: (base as u64).to_bits(),
                sack: bits,
                echo_ts: (echo as u64).to_bits(),
                echo_ev: (0xC000 | u64::from(echo_ev)).to_bits(),
                aflags: flags.to_bits(),
                ..Default::default()
            };
            tb.feedback(ack);
            tb.drain(300);
            received.retain(|&q| o.w.get(q).is_some());
            acks += 1;
        } else if r < 90 && o.w.outstanding() > 0 {
            // A NACK: TRIMMED (current or stale echo) or RNR, for an outstanding PSN.
            let psn =
                o.w.una()
                    .wrapping_add(rng.below(u64::from(o.w.outstanding())) as u32);
            let trim = rng.below(5) != 0;
            let cur = o.w.get(psn).map_or(0, |e| e.sent as u32);
            let echo = if rng.below(4) == 0 {
                cur.wrapping_sub(7)
            } else {
                cur
            };
            let aux = rng.below(4) as u32;
            o.on_nack(now, psn, trim, echo, aux);
            let nack = PktMeta {
                conn: conn.to_bits(),
                ptype: 3u64.to_bits(),
                psn: (psn as u64).to_bits(),
                code: (if trim { 1u64 } else { 3 }).to_bits(),
                echo_ts: (echo as u64).to_bits(),
                aux: (aux as u64).to_bits(),
                ..Default::default()
            };
            tb.feedback(nack);
            tb.drain(120);
            nacks += 1;
        } else {
            // A quiet period: timers fire.
            let dt = [2_000, 20_000, 300_000][rng.below(3) as usize];
            advance(&mut tb, &mut o, &mut now, rng.below(dt), &mut fires);
        }
        assert_eq!(tb.rtx_log, o.declared, "declared PSNs, {ctx}");
        assert_eq!(tb.lost_log, o.causes, "loss causes, {ctx}");
        let want_err = if o.failed {
            vec![(conn, o.fail_status, false, 0)]
        } else {
            vec![]
        };
        assert_eq!(tb.err_log, want_err, "failure, {ctx}");
    }
    // A blackout: nothing comes back any more. Each RTO expiry declares the outstanding PSNs lost, their
    // retransmissions leave and are lost too, until the retry limit fails the connection (MR-REL-55).
    let mut rounds = 0;
    while !o.failed && rounds < 8 * usize::from(retry_limit) + 16 {
        rounds += 1;
        if o.w.outstanding() == 0 {
            // Something to lose: a new packet when the gate allows it.
            let psn = o.w.nxt();
            let want = o.gate(now, psn, false, 128);
            let got = tb.gate_full(GateReq {
                conn: conn.to_bits(),
                psn: (psn as u64).to_bits(),
                charged: 128u64.to_bits(),
                rtx: false,
            });
            assert_eq!(answer(&got), want, "blackout: new packet, seed {seed}");
            if got.allow {
                tb.send_allowed(&got, now, 128, false);
                sent += 1;
            } else {
                advance(&mut tb, &mut o, &mut now, 5_000, &mut fires);
            }
            continue;
        }
        while rtx_taken < tb.rtx_log.len() && !o.failed {
            let psn = tb.rtx_log[rtx_taken];
            let charged = o.w.get(psn).map_or(64, |e| u64::from(e.len) + 64);
            let want = o.gate(now, psn, true, charged);
            let got = tb.gate_full(GateReq {
                conn: conn.to_bits(),
                psn: (psn as u64).to_bits(),
                charged: charged.to_bits(),
                rtx: true,
            });
            assert_eq!(answer(&got), want, "blackout gate psn {psn}, seed {seed}");
            if !got.allow && !got.skip {
                break;
            }
            rtx_taken += 1;
            if got.allow {
                rtx_sent += 1;
                tb.send_allowed(&got, now, charged, true);
            }
        }
        let d = o.deadline().map_or(0, |d| d.saturating_sub(now));
        advance(&mut tb, &mut o, &mut now, d + 1, &mut fires);
        assert_eq!(
            tb.rtx_log, o.declared,
            "blackout: declared PSNs, seed {seed}"
        );
        assert_eq!(tb.lost_log, o.causes, "blackout: loss causes, seed {seed}");
    }
    assert!(o.failed, "the retry limit ends the blackout, seed {seed}");
    let want_err = vec![(conn, o.fail_status, false, 0)];
    assert_eq!(
        tb.err_log, want_err,
        "failure after the blackout, seed {seed}"
    );
    println!(
        "{sent} sent ({rtx_sent} retransmissions, {skipped} skipped), {acks} ACKs, {nacks} NACKs, \
         {fires} timer instants, {} declared lost, failed {}",
        o.declared.len(),
        o.failed
    );
    assert!(sent > 50 && rtx_sent > 5 && acks > 20 && nacks > 5 && fires > 0);
    let by = |c: u64| o.causes.iter().filter(|&&x| x == c).count();
    let mix = [LOST_TRIM, LOST_TIME, LOST_DISTANCE, LOST_RTO, LOST_RNR].map(by);
    println!("declared by cause (trim, time, distance, rto, rnr): {mix:?}");
    assert!(mix[0] + mix[4] > 0 && mix[3] > 0, "causes {mix:?}");
}

/// MR-REL-7, window slots: four connections share two slots of per-PSN state. A connection with nothing
/// outstanding takes the slot with its first allowed packet (reserved from the gate's answer until the packet
/// is reported sent), keeps it while packets are outstanding, and releases it with the ACK that covers
/// everything; meanwhile another connection's new packets are refused with `retry_at` 0 and counted on
/// `stat_slot_wait`, and no transmission ever misses a slot.
#[test]
fn mr_rel_7_window_slots_are_taken_released_and_waited_for() {
    let p = CcParams {
        mtu: 1024,
        ..CcParams::default()
    };
    let timers = Timers {
        rto_min: 100_000,
        rto_init: 1_000_000,
        rto_max: 100_000_000,
        retry_limit: 7,
        rnr_retry: 7,
        reorder_distance: 3,
    };
    let mut now = 1_000_000u64;
    // Four connections, two window slots.
    let mut tb = Tb::with_slots(&p, &timers, now, 1);
    for (conn, isn) in [(1u64, 100u64), (2, 200), (3, 300)] {
        tb.open(ConnOpen {
            conn: conn.to_bits(),
            isn: isn.to_bits(),
            paths: 8u64.to_bits(),
            seed: conn.to_bits(),
            ..Default::default()
        });
        tb.drain(4);
    }
    let req = |conn: u64, psn: u64| GateReq {
        conn: conn.to_bits(),
        psn: psn.to_bits(),
        charged: 1088u64.to_bits(),
        rtx: false,
    };
    let ack = |conn: u64, cack: u64, echo: u64| PktMeta {
        conn: conn.to_bits(),
        ptype: 2u64.to_bits(),
        psn: cack.to_bits(),
        sack_base: cack.to_bits(),
        echo_ts: echo.to_bits(),
        ..Default::default()
    };
    // Two slots: connections 1 and 2 take them, connection 3 waits.
    let r1 = tb.gate_full(req(1, 100));
    assert!(r1.allow, "conn 1 takes a free slot");
    // The slot is reserved for conn 1's packet until it is reported sent.
    let r2 = tb.gate_full(req(2, 200));
    assert!(r2.allow, "conn 2 takes the second slot");
    tb.send_allowed(&r1, now, 1088, false);
    tb.send_allowed(&r2, now, 1088, false);
    let w = tb.gate_full(req(3, 300));
    assert!(
        !w.allow && !w.skip && w.retry_at.to_u64() == 0,
        "conn 3 waits for a slot: {w:?}"
    );
    assert_eq!(tb.slot_waits, 1);
    // Conn 1 holds its slot: its next packet passes.
    now += 500;
    tb.u.now.next = now.to_bits();
    let r = tb.gate_full(req(1, 101));
    assert!(
        r.allow,
        "conn 1 keeps its slot while packets are outstanding"
    );
    tb.send_allowed(&r, now, 1088, false);
    // An ACK covering part of conn 1's packets keeps the slot; conn 3 still waits.
    now += 5_000;
    tb.u.now.next = now.to_bits();
    tb.feedback(ack(1, 101, 1_000_000));
    tb.drain(200);
    assert!(
        !tb.gate_full(req(3, 300)).allow,
        "conn 1 still has PSN 101 outstanding"
    );
    assert_eq!(tb.slot_waits, 2);
    // The ACK covering everything releases it, and conn 3 takes it.
    tb.feedback(ack(1, 102, 1_000_500));
    tb.drain(200);
    let r3 = tb.gate_full(req(3, 300));
    assert!(r3.allow, "conn 3 takes the released slot");
    // Conn 1 has nothing outstanding and no slot now: reserved for conn 3, so conn 1 waits.
    let w = tb.gate_full(req(1, 102));
    assert!(!w.allow && w.retry_at.to_u64() == 0, "conn 1 waits: {w:?}");
    assert_eq!(tb.slot_waits, 3);
    tb.send_allowed(&r3, now, 1088, false);
    assert!(!tb.gate_full(req(1, 102)).allow);
    assert_eq!(tb.slot_waits, 4);
    assert_eq!(
        tb.una_log,
        vec![(1, 101), (1, 102)],
        "snd_una advances of conn 1"
    );
}

/// The pacing tests' bench: 4 KiB packets (4,160 charged bytes) at 100 Gb/s, connection 1 opened (ISN 1000) at
/// `now` with `cfg_pace_hold_ns` = `hold_ns`; returns it with the pacing gap before the first RTT sample (the
/// serialisation term alone).
fn pacing_bench(now: u64, hold_ns: u64) -> (Tb, u64) {
    let p = CcParams {
        mtu: 4096,
        line_rate_bps: 100_000_000_000,
        ..CcParams::default()
    };
    let timers = Timers {
        rto_min: 100_000,
        rto_init: 1_000_000,
        rto_max: 100_000_000,
        retry_limit: 7,
        rnr_retry: 7,
        reorder_distance: 3,
    };
    let mut tb = Tb::new(&p, &timers, now);
    tb.u.cfg_pace_hold_ns.next = hold_ns.to_bits();
    open_paced(&mut tb, 1, 1000);
    (tb, Nscc::new(&p).pacing_gap_ns(PACED_CHARGED))
}

/// Opens connection `conn` of the pacing tests (ISN `isn`, 8 paths, seed `conn`) and lets it settle.
fn open_paced(tb: &mut Tb, conn: u64, isn: u64) {
    tb.open(ConnOpen {
        conn: conn.to_bits(),
        isn: isn.to_bits(),
        paths: 8u64.to_bits(),
        seed: conn.to_bits(),
        ..Default::default()
    });
    tb.drain(1000);
}

/// Charged bytes of the pacing tests' packets.
const PACED_CHARGED: u64 = 4160;

/// A gate request of the pacing tests: a new PSN of connection 1.
fn paced_req(psn: u64) -> GateReq {
    GateReq {
        conn: 1u64.to_bits(),
        psn: psn.to_bits(),
        charged: PACED_CHARGED.to_bits(),
        rtx: false,
    }
}

/// MR-CC-2 with the transmit path's timing: a packet's timestamp is taken when it is formed, before the gate
/// lets it go (possibly much later, after waiting for the engine). The pacing time of the next packet counts
/// from when the gate let this one go, never from the timestamp (a timestamp after the decision, which the
/// transmit path does not produce, changes nothing either).
#[test]
fn mr_cc_2_pacing_counts_from_the_gate_decision_not_an_earlier_timestamp() {
    let mut now = 5_000_000u64;
    let (mut tb, gap) = pacing_bench(now, 0);
    assert_eq!(gap, 332, "4,160 bytes at 100 Gb/s");
    let (charged, req) = (PACED_CHARGED, paced_req);
    for (psn, ts_offset) in [(1000u64, -70i64), (1001, -1), (1002, 0), (1003, 40)] {
        let r = tb.gate_full(req(psn));
        assert!(r.allow, "psn {psn}: {r:?}");
        let t = now;
        let ts = (t as i64 + ts_offset) as u64;
        tb.send_allowed(&r, ts, charged, false);
        let expect = t + gap;
        // Just before the pacing time: refused, with the retry time.
        now = expect - 1;
        tb.u.now.next = now.to_bits();
        let w = tb.gate_full(req(psn + 1));
        assert!(
            !w.allow && w.retry_at.to_u64() == expect as u32 as u64,
            "psn {psn} (ts {ts_offset:+} ns from the decision): {w:?}, expected retry at {expect}"
        );
        now = expect;
        tb.u.now.next = now.to_bits();
    }
}

/// MR-CC-2 with the engine's latency: a request that arrives after its pacing time while an ACK command (of
/// another connection) is in progress waits for the command, but leaves at its eligibility time, its arrival:
/// the next packet's pacing time counts from then, not from the decision, so the engine's own cycles do not
/// slow the connection.
#[test]
fn mr_cc_2_pacing_counts_from_the_request_arrival_not_the_engine_wait() {
    let mut now = 9_000_000u64;
    let (mut tb, gap) = pacing_bench(now, 0);
    open_paced(&mut tb, 2, 5000);
    let r = tb.gate_full(paced_req(1000));
    assert!(r.allow, "{r:?}");
    tb.send_allowed(&r, now, PACED_CHARGED, false);
    now += gap + 10;
    tb.u.now.next = now.to_bits();
    // An ACK of connection 2 starts while the engine is idle.
    tb.feedback(PktMeta {
        conn: 2u64.to_bits(),
        ptype: 2u64.to_bits(),
        psn: 5000u64.to_bits(),
        sack_base: 5000u64.to_bits(),
        ..Default::default()
    });
    // Connection 1's request arrives now, behind the ACK; time runs on at 3 ns per cycle.
    let arrival = now;
    tb.u.s_axis_gate_req_tdata.next = paced_req(1001);
    tb.u.s_axis_gate_req_tvalid.next = true;
    let mut answer = None;
    for _ in 0..400 {
        tb.settle();
        if tb.u.s_axis_gate_req_tready.val() {
            tb.tick();
            tb.u.s_axis_gate_req_tvalid.next = false;
        } else if tb.u.m_axis_gate_resp_tvalid.val() {
            answer = Some((now, tb.u.m_axis_gate_resp_tdata.val()));
            tb.u.m_axis_gate_resp_tready.next = true;
            tb.tick();
            tb.u.m_axis_gate_resp_tready.next = false;
            break;
        } else {
            tb.tick();
        }
        now += 3;
        tb.u.now.next = now.to_bits();
    }
    let (decided, r) = answer.expect("the request was answered");
    assert!(r.allow, "{r:?}");
    assert!(
        decided >= arrival + 60,
        "the request did not wait for the ACK (decided {} ns after its arrival)",
        decided - arrival
    );
    tb.send_allowed(&r, decided, PACED_CHARGED, false);
    // Refused just after the decision, with the pacing time counted from the arrival.
    now = decided + 1;
    tb.u.now.next = now.to_bits();
    let w = tb.gate_full(paced_req(1002));
    assert!(
        !w.allow && w.retry_at.to_u64() == (arrival + gap) as u32 as u64,
        "{w:?}: expected retry at {} (arrival + gap), decided at {decided}",
        (arrival + gap) as u32
    );
}

/// MR-CC-2 with `cfg_pace_hold_ns`: a gate request refused by pacing alone is held, not answered, when its
/// pacing time is at most the hold ahead; feedback waits meanwhile, and at the pacing time the request is
/// decided again (allowed) before the feedback is taken. A request further ahead is refused with its retry
/// time, as without the hold.
#[test]
fn mr_cc_2_a_request_near_its_pacing_time_is_held_and_decided_at_that_time() {
    let mut now = 7_000_000u64;
    let (mut tb, gap) = pacing_bench(now, 100);
    let (charged, req) = (PACED_CHARGED, paced_req);
    let r = tb.gate_full(req(1000));
    assert!(r.allow);
    tb.send_allowed(&r, now, charged, false);
    let due = now + gap;
    // More than the hold ahead: refused with the pacing time.
    now = due - 101;
    tb.u.now.next = now.to_bits();
    let w = tb.gate_full(req(1001));
    assert!(
        !w.allow && w.retry_at.to_u64() == due as u32 as u64,
        "{w:?}"
    );
    // Within the hold: no answer while now < due, and an ACK waits.
    now = due - 60;
    tb.u.now.next = now.to_bits();
    tb.push(
        |u, v| {
            u.s_axis_gate_req_tdata.next = req(1001);
            u.s_axis_gate_req_tvalid.next = v;
        },
        |u| u.s_axis_gate_req_tready.val(),
    );
    tb.u.s_axis_fb_tdata.next = PktMeta {
        conn: 1u64.to_bits(),
        ptype: 2u64.to_bits(),
        psn: 1001u64.to_bits(),
        sack_base: 1001u64.to_bits(),
        echo_ts: ((now - 2_000) as u32 as u64).to_bits(),
        ..Default::default()
    };
    tb.u.s_axis_fb_tvalid.next = true;
    for step in 0..6 {
        for _ in 0..40 {
            tb.settle();
            assert!(
                !tb.u.m_axis_gate_resp_tvalid.val(),
                "answered {} ns before its pacing time",
                due - now
            );
            assert!(
                !tb.u.s_axis_fb_tready.val(),
                "feedback taken while a request is held"
            );
            tb.tick();
        }
        now = due - 50 + 10 * step;
        tb.u.now.next = now.to_bits();
    }
    now = due;
    tb.u.now.next = now.to_bits();
    let mut answered = None;
    let mut taken = false;
    for c in 0..400 {
        tb.settle();
        if tb.u.s_axis_fb_tready.val() {
            assert!(
                answered.is_some(),
                "feedback taken before the held request was decided"
            );
        }
        if tb.u.m_axis_gate_resp_tvalid.val() && answered.is_none() {
            answered = Some((c, tb.u.m_axis_gate_resp_tdata.val()));
            tb.u.m_axis_gate_resp_tready.next = true;
        }
        if tb.u.s_axis_fb_tready.val() {
            taken = true;
            tb.tick();
            tb.u.s_axis_fb_tvalid.next = false;
            break;
        }
        tb.tick();
        tb.u.m_axis_gate_resp_tready.next = false;
    }
    let (c, r) = answered.expect("the held request is answered at its pacing time");
    assert!(r.allow && r.psn.to_u64() == 1001, "{r:?}");
    assert!(c < 30, "decided {c} cycles after its pacing time");
    assert!(taken, "the ACK is taken after the decision");
}

/// MR-SEM-35: a NACK ACCESS, INVALID or UNSUPPORTED is passed on as a cause for the QP to enter ERROR with its
/// MSN (`aux`) and the status of Table 8.10, matched by the transmit scheduler (`strict`: ignored when it names
/// no started message); NO_CONTEXT is not. A stop (the scheduler's decision) ends the connection's send
/// direction: its timers never fire again and the gate refuses it.
#[test]
fn mr_sem_35_fatal_nacks_are_reported_and_a_stop_ends_the_send_direction() {
    let p = CcParams {
        mtu: 1024,
        ..CcParams::default()
    };
    let timers = Timers {
        rto_min: 20_000,
        rto_init: 50_000,
        rto_max: 1_000_000,
        retry_limit: 3,
        rnr_retry: 3,
        reorder_distance: 16,
    };
    let mut now = 1_000_000u64;
    let mut tb = Tb::new(&p, &timers, now);
    let conn = 2u64;
    tb.open(ConnOpen {
        conn: conn.to_bits(),
        isn: 500u64.to_bits(),
        paths: 4u64.to_bits(),
        seed: 3u64.to_bits(),
        ..Default::default()
    });
    tb.drain(8);
    let req = |psn: u64| GateReq {
        conn: conn.to_bits(),
        psn: psn.to_bits(),
        charged: 1088u64.to_bits(),
        rtx: false,
    };
    let r = tb.gate_full(req(500));
    assert!(r.allow, "the first packet passes");
    tb.send_allowed(&r, now, 1088, false);
    let nack = |code: NackCode, aux: u64| PktMeta {
        conn: conn.to_bits(),
        ptype: (PacketType::Nack as u64).to_bits(),
        psn: 500u64.to_bits(),
        code: (code as u64).to_bits(),
        aux: aux.to_bits(),
        ..Default::default()
    };
    for (code, status) in [
        (NackCode::Access, CqeStatus::RemoteAccess),
        (NackCode::Invalid, CqeStatus::RemoteInvalidRequest),
        (NackCode::Unsupported, CqeStatus::RemoteInvalidRequest),
    ] {
        tb.feedback(nack(code, 7));
        tb.drain(20);
        assert_eq!(
            tb.err_log.pop(),
            Some((conn, status as u64, true, 7)),
            "{code:?}"
        );
        assert!(tb.err_log.is_empty());
    }
    tb.feedback(nack(NackCode::NoContext, 7));
    tb.drain(20);
    assert!(tb.err_log.is_empty(), "NO_CONTEXT is not a QP error");
    // The stop: no RTO fires (the packet stays unacknowledged), nothing is declared, the gate refuses.
    tb.push(
        |u, v| {
            u.s_axis_stop_tdata.next = conn.to_bits();
            u.s_axis_stop_tvalid.next = v;
        },
        |u| u.s_axis_stop_tready.val(),
    );
    tb.drain(20);
    for _ in 0..40 {
        now += 25_000;
        tb.u.now.next = now.to_bits();
        tb.drain(30);
    }
    assert!(
        tb.rtx_log.is_empty(),
        "declared after the stop: {:?}",
        tb.rtx_log
    );
    assert!(
        tb.err_log.is_empty(),
        "reported after the stop: {:?}",
        tb.err_log
    );
    assert!(
        !tb.gate_full(req(501)).allow,
        "the gate refuses a stopped connection"
    );
}
