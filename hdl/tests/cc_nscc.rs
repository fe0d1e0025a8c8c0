//! The NSCC unit (rust-hdl simulator) against `metaroce_proto::transport::cc::Nscc` on long random event
//! sequences (MR-CC-7..14, MR-REL-26..28): after every event the window, srtt, min_rtt, last delay, last
//! decrease time and quadrant must be equal, and the pacing gap for a random packet size too.
//! Seed: `CC_NSCC_SEED` (printed); events per sequence: `CC_NSCC_EVENTS` (default 600).

use metaroce_hdl::cc::nscc::{self, NsccState, NsccUnit};
use metaroce_proto::transport::cc::{CcParams, CongestionControl, Nscc, Quadrant};
use rust_hdl::prelude::*;

mod support;
use support::{env, Rng};

/// Evaluates until nothing changes (rust-hdl's `update_all` is one pass).
fn settle(u: &mut NsccUnit) {
    for _ in 0..1000 {
        u.update_all();
        if !u.has_changed() {
            return;
        }
    }
    panic!("combinational loop");
}

fn tick(u: &mut NsccUnit) {
    settle(u);
    u.clk.next = true.into();
    settle(u);
    u.clk.next = false.into();
    settle(u);
}

/// Runs one event through the unit; returns the cycles it took.
fn event(
    u: &mut NsccUnit,
    kind: u64,
    now: u64,
    acked: u64,
    sample: u64,
    ece: bool,
    bytes: u64,
) -> usize {
    assert!(u.ready.val());
    u.kind.next = kind.to_bits();
    u.now.next = now.to_bits();
    u.acked.next = acked.to_bits();
    u.sample.next = sample.to_bits();
    u.ece.next = ece;
    u.bytes.next = bytes.to_bits();
    u.start.next = true;
    tick(u);
    u.start.next = false;
    let mut n = 1;
    while !u.done.val() {
        tick(u);
        n += 1;
        assert!(n < 100, "no done");
    }
    u.st_in.next = u.st_out.val();
    tick(u);
    n
}

fn quad(q: Option<Quadrant>) -> u64 {
    match q {
        None => 0,
        Some(Quadrant::ProportionalIncrease) => nscc::quadrant::PROPORTIONAL_INCREASE,
        Some(Quadrant::FairIncrease) => nscc::quadrant::FAIR_INCREASE,
        Some(Quadrant::MultiplicativeDecrease) => nscc::quadrant::MULTIPLICATIVE_DECREASE,
        Some(Quadrant::Repath) => nscc::quadrant::REPATH,
        Some(Quadrant::Timeout) => nscc::quadrant::TIMEOUT,
    }
}

/// Runs one random sequence; returns how many pacing events took the remembered gap (4 cycles).
fn run_sequence(seed: u64, events: usize, seen: &mut [usize; 6]) -> usize {
    let mut rng = Rng(seed);
    // Parameters in the hardware ranges (see cc::nscc).
    let mtu = [1024u64, 4096, 4160, 9000][rng.below(4) as usize];
    let p = CcParams {
        mtu,
        line_rate_bps: [
            25_000_000_000u64,
            100_000_000_000,
            400_000_000_000,
            1 + rng.below(1 << 40),
        ][rng.below(4) as usize],
        base_rtt_ns: 1 + rng.below(50_000),
        target_qdelay_ns: 1 + rng.below(20_000),
        min_rtt_window_ns: rng.below(2_000_000),
        ..CcParams::default()
    };
    if p.bdp_bytes() >= 1 << 31 {
        return 0;
    }
    let mut m = Nscc::new(&p);
    let mut u = NsccUnit::default();
    u.connect_all();
    u.cfg_mtu.next = p.mtu.to_bits();
    u.cfg_max_cwnd.next = m.max_cwnd().to_bits();
    u.cfg_target_ns.next = p.target_qdelay_ns.to_bits();
    u.cfg_base_rtt_ns.next = p.base_rtt_ns.to_bits();
    u.cfg_min_rtt_window_ns.next = p.min_rtt_window_ns.to_bits();
    u.cfg_line_rate_bps.next = p.line_rate_bps.to_bits();
    u.st_in.next = NsccState {
        cwnd: m.cwnd().to_bits(),
        ..Default::default()
    };
    u.rst.next = true;
    tick(&mut u);
    u.rst.next = false;
    tick(&mut u);
    let mut now = rng.below(1 << 40);
    let base = p.base_rtt_ns;
    let mut last_bytes = 4160;
    let mut remembered = 0;
    for i in 0..events {
        now += rng.below(4 * base);
        let r = rng.below(100);
        let what;
        if r < 70 {
            let acked = rng.below(256) * (1 + rng.below(mtu + 64));
            let sample = match rng.below(10) {
                0 => 0,
                1 => rng.below(1 << 31),
                _ => base + rng.below(3 * p.target_qdelay_ns + 1),
            };
            let ece = rng.below(4) == 0;
            m.on_ack(now, acked, (sample != 0).then_some(sample), ece);
            event(&mut u, nscc::EV_ACK, now, acked, sample, ece, 0);
            assert_eq!(u.repath.val(), m.wants_repath(), "repath at event {i}");
            what = format!("ack({acked}, {sample}, {ece})");
        } else if r < 82 {
            m.on_nack_trim(now);
            event(&mut u, nscc::EV_TRIM, now, 0, 0, false, 0);
            what = "trim".into();
        } else if r < 94 {
            m.on_loss(now);
            event(&mut u, nscc::EV_LOSS, now, 0, 0, false, 0);
            what = "loss".into();
        } else {
            m.on_timeout(now);
            event(&mut u, nscc::EV_TIMEOUT, now, 0, 0, false, 0);
            what = "timeout".into();
        }
        let s = u.st_out.val();
        let ctx = format!("seed {seed} event {i} {what} at {now}");
        assert_eq!(s.cwnd.to_u64(), m.cwnd(), "cwnd, {ctx}");
        assert_eq!(s.srtt.to_u64(), m.srtt_ns().unwrap_or(0), "srtt, {ctx}");
        assert_eq!(
            s.min_rtt.to_u64(),
            m.min_rtt_ns().unwrap_or(0),
            "min_rtt, {ctx}"
        );
        assert_eq!(s.last_d.to_u64(), m.last_delay_ns(), "last_d, {ctx}");
        assert_eq!(
            s.md_valid.then(|| s.last_md.to_u64()),
            m.last_decrease_ns(),
            "last decrease, {ctx}"
        );
        assert_eq!(
            u.quadrant.val().to_u64(),
            quad(m.last_quadrant()),
            "quadrant, {ctx}"
        );
        seen[quad(m.last_quadrant()) as usize] += 1;
        if i % 4 == 0 {
            // Half the packets the size of the one before (the unit's remembered gap serves them when the
            // state has not changed since), some paced twice in a row (it must).
            if rng.below(2) == 0 {
                last_bytes = 64 + rng.below(65536 - 64);
            }
            let bytes = last_bytes;
            for _ in 0..1 + rng.below(2) {
                if event(&mut u, nscc::EV_PACE, now, 0, 0, false, bytes) == 4 {
                    remembered += 1;
                }
                assert_eq!(
                    u.gap.val().to_u64(),
                    m.pacing_gap_ns(bytes),
                    "gap({bytes}), {ctx}"
                );
                assert_eq!(
                    u.st_out.val(),
                    s,
                    "pacing leaves the state unchanged, {ctx}"
                );
            }
        }
    }
    remembered
}

#[test]
fn mr_cc_7_14_nscc_unit_is_bit_exact_with_the_model() {
    let seed = env("CC_NSCC_SEED", 0x6e5c_c001);
    let events = env("CC_NSCC_EVENTS", 600) as usize;
    println!("CC_NSCC_SEED={seed} CC_NSCC_EVENTS={events}");
    let mut seen = [0usize; 6];
    let mut remembered = 0;
    for k in 0..4 {
        remembered += run_sequence(seed.wrapping_add(k), events, &mut seen);
    }
    println!("quadrants seen (none, PI, FI, MD, repath, timeout): {seen:?}; remembered gaps {remembered}");
    assert!(remembered > 0, "no pacing event took the remembered gap");
    // Every quadrant must have been exercised for the comparison to mean something.
    assert!(seen[1..].iter().all(|&n| n > 0), "{seen:?}");
}

#[test]
fn mr_cc_13_timeout_and_event_latencies() {
    let p = CcParams::default();
    let m = Nscc::new(&p);
    let mut u = NsccUnit::default();
    u.connect_all();
    u.cfg_mtu.next = p.mtu.to_bits();
    u.cfg_max_cwnd.next = m.max_cwnd().to_bits();
    u.cfg_target_ns.next = p.target_qdelay_ns.to_bits();
    u.cfg_base_rtt_ns.next = p.base_rtt_ns.to_bits();
    u.cfg_min_rtt_window_ns.next = p.min_rtt_window_ns.to_bits();
    u.cfg_line_rate_bps.next = p.line_rate_bps.to_bits();
    u.st_in.next = NsccState {
        cwnd: m.cwnd().to_bits(),
        ..Default::default()
    };
    tick(&mut u);
    let l_ack = event(&mut u, nscc::EV_ACK, 100, 4096, 10_000, false, 0);
    let l_rep = event(&mut u, nscc::EV_ACK, 150, 0, 0, true, 0);
    assert!(u.repath.val());
    let l_to = event(&mut u, nscc::EV_TIMEOUT, 200, 0, 0, false, 0);
    assert_eq!(u.st_out.val().cwnd.to_u64(), 4096);
    let l_pace = event(&mut u, nscc::EV_PACE, 300, 0, 0, false, 4160);
    println!("latencies: ack {l_ack}, repath {l_rep}, timeout {l_to}, pace {l_pace}");
    // The divisions take iterations for their quotients' nibbles only (see `Divider`): the ACK's increase
    // 4096 * (target - delay) / target leaves 4 nibbles (8 iterations), the pacing gap's two divisions
    // 4160 * 8e9 / 100e9 (3 nibbles) and 4160 * 10000 / 4096 (4 nibbles, 8 iterations) run side by side.
    assert_eq!((l_ack, l_rep, l_to, l_pace), (22, 7, 3, 18));
    // 4160 B at 100 Gb/s = 332 ns; 4160 * 10000 / 4096 = 10156 ns.
    assert_eq!(u.gap.val().to_u64(), 10_156);
    // The same packet size, state and line rate again: the remembered gap, without dividing.
    let l_again = event(&mut u, nscc::EV_PACE, 310, 0, 0, false, 4160);
    assert_eq!((l_again, u.gap.val().to_u64()), (4, 10_156));
    // Any input changed: computed again. Another size; another line rate (4096 B at 1 Gb/s = 32,768 ns);
    // another state (cwnd doubled: 4160 * 10000 / 8192 = 5078 ns).
    let l_size = event(&mut u, nscc::EV_PACE, 320, 0, 0, false, 4096);
    assert_eq!((l_size, u.gap.val().to_u64()), (18, 10_000));
    u.cfg_line_rate_bps.next = 1_000_000_000u64.to_bits();
    let l_rate = event(&mut u, nscc::EV_PACE, 330, 0, 0, false, 4096);
    assert!(l_rate > 4, "{l_rate}");
    assert_eq!(u.gap.val().to_u64(), 32_768);
    u.cfg_line_rate_bps.next = p.line_rate_bps.to_bits();
    let l_back = event(&mut u, nscc::EV_PACE, 340, 0, 0, false, 4096);
    assert_eq!((l_back, u.gap.val().to_u64()), (18, 10_000));
    let mut st = u.st_out.val();
    st.cwnd = 8192u64.to_bits();
    u.st_in.next = st;
    let l_state = event(&mut u, nscc::EV_PACE, 350, 0, 0, false, 4160);
    assert_eq!((l_state, u.gap.val().to_u64()), (18, 5_078));
    let l_state2 = event(&mut u, nscc::EV_PACE, 360, 0, 0, false, 4160);
    assert_eq!((l_state2, u.gap.val().to_u64()), (4, 5_078));
}
