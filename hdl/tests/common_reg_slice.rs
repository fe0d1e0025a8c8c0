//! The register slice passes every transfer once and in order under random valid and ready on both sides,
//! holds its output (valid and data) while stalled, keeps at most two transfers, and moves one transfer per
//! cycle when both sides are always ready. Seed: `HDL_SEED` (printed).

mod support;

use metaroce_hdl::common::reg_slice::RegSlice;
use rust_hdl::prelude::*;
use support::{seed, Rng};

type Slice = RegSlice<Bits<20>>;

fn tick(s: &mut Slice) {
    s.clk.next = Clock { clk: true };
    assert!(simulate(s, 50));
    s.clk.next = Clock { clk: false };
    assert!(simulate(s, 50));
}

/// `cycles` cycles with a source offering with probability `p_valid` % and a sink ready with `p_ready` %;
/// returns (transfers in, transfers out).
fn run(rng: &mut Rng, p_valid: u64, p_ready: u64, cycles: usize) -> (u64, u64) {
    let mut s = Slice::default();
    s.connect_all();
    s.rst.next = true;
    tick(&mut s);
    s.rst.next = false;
    let (mut sent, mut got) = (0u64, 0u64);
    let mut offered = false;
    let mut held: Option<u64> = None;
    for cycle in 0..cycles {
        // The source keeps an offer until it is taken.
        offered = offered || rng.below(100) < p_valid;
        let ready = rng.below(100) < p_ready;
        s.s_axis_tvalid.next = offered;
        s.s_axis_tdata.next = bits(sent & 0xF_FFFF);
        s.m_axis_tready.next = ready;
        assert!(simulate(&mut s, 50));
        let out = s.m_axis_tdata.val().to_u64();
        if let Some(h) = held {
            assert!(
                s.m_axis_tvalid.val(),
                "cycle {cycle}: valid dropped while stalled"
            );
            assert_eq!(out, h, "cycle {cycle}: output changed while stalled");
        }
        held = None;
        if s.m_axis_tvalid.val() {
            if ready {
                assert_eq!(out, got & 0xF_FFFF, "cycle {cycle}: transfer {got}");
                got += 1;
            } else {
                held = Some(out);
            }
        }
        if offered && s.s_axis_tready.val() {
            sent += 1;
            offered = false;
        }
        assert!(
            got <= sent && sent - got <= 2,
            "cycle {cycle}: {sent} in, {got} out"
        );
        tick(&mut s);
    }
    (sent, got)
}

#[test]
fn every_transfer_passes_once_in_order_under_random_handshakes() {
    let mut rng = Rng(seed());
    for (p_valid, p_ready) in [(50, 50), (90, 30), (30, 90), (100, 70), (70, 100)] {
        let (sent, got) = run(&mut rng, p_valid, p_ready, 3_000);
        assert!(
            got > 300,
            "valid {p_valid} %, ready {p_ready} %: only {got} transfers"
        );
        assert!(sent - got <= 2);
    }
}

#[test]
fn one_transfer_per_cycle_when_both_sides_are_always_ready() {
    let mut rng = Rng(1);
    let (sent, got) = run(&mut rng, 100, 100, 1_000);
    // The first transfer leaves a cycle after it entered.
    assert_eq!((sent, got), (1_000, 999));
}
