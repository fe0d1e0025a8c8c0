//! The gate decision (MR-REL-4, MR-CC-1, MR-CC-2, MR-REL-45) against the model's rules
//! (`metaroce_proto::transport::metaroce::gate`, with 64-bit times), on random states, one request per cycle.
//! Seed: `CC_GATE_SEED` (printed).

use metaroce_hdl::cc::gate::GateUnit;
use metaroce_hdl::rel::records::GateReq;
use metaroce_proto::transport::metaroce::gate;
use rust_hdl::prelude::*;

mod support;
use support::Rng;

/// Evaluates until nothing changes (rust-hdl's `update_all` is one pass).
fn settle(u: &mut GateUnit) {
    for _ in 0..1000 {
        u.update_all();
        if !u.has_changed() {
            return;
        }
    }
    panic!("combinational loop");
}

fn tick(u: &mut GateUnit) {
    settle(u);
    u.clk.next = true.into();
    settle(u);
    u.clk.next = false.into();
    settle(u);
}

#[test]
fn mr_rel_4_mr_cc_1_2_mr_rel_45_gate_matches_the_model_rules() {
    let seed = std::env::var("CC_GATE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x6a7e_0001u64);
    println!("CC_GATE_SEED={seed}");
    let mut rng = Rng(seed);
    let mut u = GateUnit::default();
    u.connect_all();
    u.rst.next = true;
    tick(&mut u);
    u.rst.next = false;
    let mut counts = [0usize; 4];
    for i in 0..4000 {
        let una = rng.next() as u32;
        let outst = rng.below(300) as u32;
        let nxt = una.wrapping_add(outst);
        let cwnd = rng.below(1 << 20) as u32;
        let inflight = match rng.below(4) {
            0 => 0,
            1 => cwnd,
            _ => rng.below(1 << 20) as u32,
        };
        let rtx = rng.below(3) == 0;
        let rto_rtx = rng.below(3) == 0;
        let now: u64 = (1u64 << 33) + rng.below(1 << 40);
        // The model's next_send_at: 0 (no pacing) or a time within +-2^31 ns of now.
        let next_send_at: u64 = if rng.below(4) == 0 {
            0
        } else {
            now + rng.below(1 << 31) - (1 << 30)
        };
        // The hardware's window is 256 PSNs; a retransmission is inside it by construction.
        let win = rtx || outst < 256;
        let allow = if rtx {
            gate::rtx_allowed(rto_rtx, inflight.into(), cwnd.into(), now, next_send_at, 0)
        } else {
            gate::new_allowed(win, inflight.into(), cwnd.into(), now, next_send_at)
        };
        // Refused by pacing alone: the answer carries the pacing time.
        let cw = gate::cwnd_allows(inflight.into(), cwnd.into()) || (rtx && rto_rtx);
        let retry = if win && cw && !gate::paced(now, next_send_at) {
            next_send_at as u32
        } else {
            0
        };
        counts[usize::from(win) * 2 + usize::from(allow)] += 1;
        u.in_valid.next = true;
        u.req.next = GateReq {
            conn: (i as u64 & 0xffff).to_bits(),
            psn: (if rtx {
                una.wrapping_add(rng.below(256) as u32)
            } else {
                nxt
            } as u64)
                .to_bits(),
            charged: 4160u64.to_bits(),
            rtx,
        };
        u.snd_una.next = (una as u64).to_bits();
        u.snd_nxt.next = (nxt as u64).to_bits();
        u.inflight.next = (inflight as u64).to_bits();
        u.cwnd.next = (cwnd as u64).to_bits();
        u.rto_rtx.next = rto_rtx;
        u.pace_armed.next = next_send_at != 0;
        u.next_tx.next = (next_send_at as u32 as u64).to_bits();
        u.ev.next = (i as u64 & 0x3fff).to_bits();
        u.path.next = (i as u64 & 0x3f).to_bits();
        u.now32.next = (now as u32 as u64).to_bits();
        // One cycle latency: the response is on the outputs after the clock edge.
        tick(&mut u);
        let (a, r, c) = (allow, retry, i as u32 & 0xffff);
        assert!(u.out_valid.val());
        let resp = u.resp.val();
        assert_eq!(resp.allow, a, "allow, request {i}");
        assert_eq!(resp.retry_at.to_u64() as u32, r, "retry_at, request {i}");
        assert_eq!(resp.conn.to_u64() as u32, c);
        assert_eq!(resp.ev.to_u64() as u32, c & 0x3fff);
    }
    // Index: 2 * window_ok + allow; the window refusing and the gate allowing cannot happen together.
    println!("(window ok, allow) counts: {counts:?}");
    assert!(
        counts[1] == 0 && counts[0] > 100 && counts[2] > 100 && counts[3] > 100,
        "{counts:?}"
    );
}
