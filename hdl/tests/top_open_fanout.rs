//! The open broadcaster hands every record to each of its five outputs exactly once and in order under random
//! source valid and random holder readiness, keeps an output's valid and the record while that output has not
//! taken it, and never makes an output's valid or the input's ready depend on a ready in the same cycle.
//! Seed: `HDL_SEED` (printed).

mod support;

use metaroce_hdl::rel::records::ConnOpen;
use metaroce_hdl::top::open_fanout::OpenFanout;
use rust_hdl::prelude::*;
use support::{seed, Rng};

fn tick(f: &mut OpenFanout) {
    f.clk.next = Clock { clk: true };
    assert!(simulate(f, 50));
    f.clk.next = Clock { clk: false };
    assert!(simulate(f, 50));
}

fn record(n: u64) -> ConnOpen {
    ConnOpen {
        conn: bits(n & 0xFFFF),
        isn: bits(n.wrapping_mul(2_654_435_761) & 0xFFFF_FFFF),
        seed: bits(n ^ 0x5A5A),
        ..Default::default()
    }
}

fn set_readies(f: &mut OpenFanout, r: [bool; 5]) {
    f.m_axis_open0_tready.next = r[0];
    f.m_axis_open1_tready.next = r[1];
    f.m_axis_open2_tready.next = r[2];
    f.m_axis_open3_tready.next = r[3];
    f.m_axis_open4_tready.next = r[4];
}

fn valids(f: &OpenFanout) -> [bool; 5] {
    [
        f.m_axis_open0_tvalid.val(),
        f.m_axis_open1_tvalid.val(),
        f.m_axis_open2_tvalid.val(),
        f.m_axis_open3_tvalid.val(),
        f.m_axis_open4_tvalid.val(),
    ]
}

/// `cycles` cycles, a source offering with `p_valid` % and each holder ready with `p_ready` %; returns the
/// records taken at the input and the count each output delivered.
fn run(rng: &mut Rng, p_valid: u64, p_ready: u64, cycles: usize) -> (u64, [u64; 5]) {
    let mut f = OpenFanout::default();
    f.connect_all();
    f.rst.next = true;
    tick(&mut f);
    f.rst.next = false;
    let mut sent = 0u64;
    let mut got = [0u64; 5];
    let mut offered = false;
    for cycle in 0..cycles {
        offered = offered || rng.below(100) < p_valid;
        let r = [0; 5].map(|_| rng.below(100) < p_ready);
        f.s_axis_open_tvalid.next = offered;
        f.s_axis_open_tdata.next = record(sent);
        // Valids and the input's ready are read with every ready low and then with this cycle's readies:
        // they must not change.
        set_readies(&mut f, [false; 5]);
        assert!(simulate(&mut f, 50));
        let (v, in_ready) = (valids(&f), f.s_axis_open_tready.val());
        set_readies(&mut f, r);
        assert!(simulate(&mut f, 50));
        assert_eq!(v, valids(&f), "cycle {cycle}: a valid follows a ready");
        assert_eq!(
            in_ready,
            f.s_axis_open_tready.val(),
            "cycle {cycle}: the input's ready follows an output's ready"
        );
        for (k, (&valid, &ready)) in v.iter().zip(r.iter()).enumerate() {
            if valid {
                assert_eq!(
                    f.m_axis_open_tdata.val(),
                    record(got[k]),
                    "cycle {cycle}: output {k}, record {}",
                    got[k]
                );
                if ready {
                    got[k] += 1;
                }
            }
        }
        if offered && in_ready {
            // A record is taken only when every output has delivered the previous one.
            assert!(
                got.iter().all(|&g| g == sent),
                "cycle {cycle}: {got:?} of {sent}"
            );
            sent += 1;
            offered = false;
        }
        assert!(
            got.iter().all(|&g| g == sent || g + 1 == sent),
            "cycle {cycle}: {got:?} of {sent}"
        );
        tick(&mut f);
    }
    (sent, got)
}

#[test]
fn every_output_takes_every_record_once_in_order() {
    let mut rng = Rng(seed());
    for (p_valid, p_ready) in [(50, 50), (100, 20), (30, 90), (100, 100)] {
        let (sent, got) = run(&mut rng, p_valid, p_ready, 2_000);
        assert!(
            sent > 50,
            "valid {p_valid} %, ready {p_ready} %: only {sent} records"
        );
        for g in got {
            assert!(g + 1 >= sent && g <= sent);
        }
    }
}

#[test]
fn one_record_per_two_cycles_with_ready_holders() {
    let mut rng = Rng(1);
    let (sent, got) = run(&mut rng, 100, 100, 1_000);
    assert_eq!(sent, 500);
    assert_eq!(got, [500; 5]);
}
