//! The sender engine (rust-hdl simulator) against the model's rules: a connection is opened (MR-CC-7:
//! `cwnd = bdp`), the transmit side asks the gate for new PSNs until refused (MR-REL-4 window, MR-CC-1 cwnd,
//! MR-CC-2 pacing with the NSCC gap of MR-CC-14), reports every allowed packet (`TxSent`), and cumulative ACKs
//! with an `echo_ts` of a covered packet (MR-REL-26 sample) and random ECE come back. Every gate answer
//! (allow, `retry_at`) must equal the decision computed from `metaroce_proto`'s `Nscc` fed with the same
//! ACK sequence (`on_ack(now, acked payload bytes, sample, ece)`, MR-CC-4), and every snd_una advance must
//! appear on `m_axis_una_*`. Seed: `REL_SE_SEED` (printed); rounds: `REL_SE_ROUNDS` (default 16).

use metaroce_hdl::records::{PktMeta, TxSent};
use metaroce_hdl::rel::records::{ConnOpen, GateReq};
use metaroce_hdl::rel::sender_engine::SenderEngine;
use metaroce_proto::transport::cc::{CcParams, CongestionControl, Nscc};
use rust_hdl::prelude::*;
use std::collections::VecDeque;

mod support;
use support::{env, Rng};

struct Tb {
    u: Box<SenderEngine>,
    una_log: Vec<(u64, u32)>,
}

impl Tb {
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
        if self.u.m_axis_una_tvalid.val() && self.u.m_axis_una_tready.val() {
            let d = self.u.m_axis_una_tdata.val();
            self.una_log
                .push((d.conn.index() as u64, d.snd_una.index() as u32));
        }
        assert!(!self.u.m_axis_rtx_tvalid.val() && !self.u.m_axis_err_tvalid.val());
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
        for _ in 0..500 {
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
        self.push(
            |u, v| {
                u.s_axis_gate_req_tdata.next = req;
                u.s_axis_gate_req_tvalid.next = v;
            },
            |u| u.s_axis_gate_req_tready.val(),
        );
        for _ in 0..50 {
            self.settle();
            if self.u.m_axis_gate_resp_tvalid.val() {
                let r = self.u.m_axis_gate_resp_tdata.val();
                assert_eq!(r.conn, req.conn);
                assert_eq!(r.psn, req.psn);
                self.u.m_axis_gate_resp_tready.next = true;
                self.tick();
                self.u.m_axis_gate_resp_tready.next = false;
                return (r.allow, r.retry_at.index() as u32);
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
    let mut u = Box::new(SenderEngine::new(2));
    u.connect_all();
    u.cfg_mtu.next = p.mtu.to_bits();
    u.cfg_bdp.next = p.bdp_bytes().to_bits();
    u.cfg_target_ns.next = p.target_qdelay_ns.to_bits();
    u.cfg_base_rtt_ns.next = p.base_rtt_ns.to_bits();
    u.cfg_min_rtt_window_ns.next = p.min_rtt_window_ns.to_bits();
    u.cfg_line_rate_bps.next = p.line_rate_bps.to_bits();
    u.cfg_rto_min_ns.next = 100_000u64.to_bits();
    u.cfg_rto_init_ns.next = 1_000_000u64.to_bits();
    u.cfg_rto_max_ns.next = 100_000_000u64.to_bits();
    u.cfg_retry_limit.next = 7u64.to_bits();
    u.cfg_reorder_distance.next = 3u64.to_bits();
    u.m_axis_una_tready.next = true;
    u.m_axis_rtx_tready.next = true;
    u.m_axis_err_tready.next = true;
    let mut now: u64 = (1 << 32) - 2_000_000 + rng.below(1_000_000);
    u.now.next = now.to_bits();
    let mut tb = Tb { u, una_log: vec![] };
    tb.u.rst.next = true;
    tb.tick();
    tb.u.rst.next = false;
    let open = ConnOpen {
        conn: conn.to_bits(),
        isn: (isn as u64).to_bits(),
        paths: 8u64.to_bits(),
        seed: 1u64.to_bits(),
        ..Default::default()
    };
    tb.push(
        |u, v| {
            u.s_axis_open_tdata.next = open;
            u.s_axis_open_tvalid.next = v;
        },
        |u| u.s_axis_open_tready.val(),
    );
    tb.drain(4);
    // Model state.
    let (mut una, mut nxt) = (isn, isn);
    let mut inflight = 0u64;
    let mut next_send_at = 0u64;
    let mut out: VecDeque<(u32, u64, u64)> = VecDeque::new(); // psn, charged, sent time
    let mut expect_una = vec![];
    let (mut allowed, mut refused_cwnd, mut refused_pace, mut refused_win, mut eces) =
        (0, 0, 0, 0, 0);
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
            tb.push(
                |u, v| {
                    u.s_axis_sent_tdata.next = t;
                    u.s_axis_sent_tvalid.next = v;
                },
                |u| u.s_axis_sent_tready.val(),
            );
            m.on_send(now, charged);
            let gap = m.pacing_gap_ns(charged);
            next_send_at = if gap == 0 { 0 } else { now + gap };
            out.push_back((nxt, charged, now));
            nxt = nxt.wrapping_add(1);
            inflight += charged;
            tb.drain(60);
        }
        // A few cumulative ACKs.
        for _ in 0..1 + rng.below(3) {
            if out.is_empty() {
                break;
            }
            now += p.base_rtt_ns / 2 + rng.below(3 * p.target_qdelay_ns);
            tb.u.now.next = now.to_bits();
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
            tb.push(
                |u, v| {
                    u.s_axis_fb_tdata.next = ack;
                    u.s_axis_fb_tvalid.next = v;
                },
                |u| u.s_axis_fb_tready.val(),
            );
            tb.drain(200);
        }
    }
    assert_eq!(tb.una_log, expect_una, "snd_una advances");
    println!(
        "allowed {allowed}, refused: window {refused_win}, cwnd {refused_cwnd}, pacing {refused_pace}; \
         ACKs {} (ECE {eces}); final cwnd {}",
        expect_una.len(),
        m.cwnd()
    );
    assert!(allowed > 100 && refused_cwnd + refused_win > 0 && refused_pace > 0);
    assert!(!expect_una.is_empty());
}
