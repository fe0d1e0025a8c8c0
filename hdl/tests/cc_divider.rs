//! The iterative divider against Rust's `/` and `%` on random operands (rust-hdl simulator).
//! Seed: `CC_DIVIDER_SEED` (printed).

use metaroce_hdl::cc::divider::Divider;
use rust_hdl::prelude::*;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A value of a random bit length (so that small and large operands both occur).
    fn sized(&mut self) -> u64 {
        let len = self.next() % 65;
        if len == 0 {
            0
        } else {
            self.next() >> (64 - len)
        }
    }
}

fn seed() -> u64 {
    let s = std::env::var("CC_DIVIDER_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed_d1d0);
    println!("CC_DIVIDER_SEED={s}");
    s
}

/// Evaluates until nothing changes (rust-hdl's `update_all` is one pass).
fn settle<L: Block>(uut: &mut L) {
    for _ in 0..1000 {
        uut.update_all();
        if !uut.has_changed() {
            return;
        }
    }
    panic!("combinational loop");
}

fn clock<L: Block>(uut: &mut L, clk: impl Fn(&mut L) -> &mut Signal<In, Clock>) {
    settle(uut);
    clk(uut).next = true.into();
    settle(uut);
    clk(uut).next = false.into();
    settle(uut);
}

fn run<const N: usize, const M: usize>(r: usize, cases: usize, rng: &mut Rng) {
    let mut uut = Divider::<N, M>::new(r);
    uut.connect_all();
    uut.rst.next = true;
    clock(&mut uut, |u| &mut u.clk);
    uut.rst.next = false;
    let nmask = if N >= 64 { u64::MAX } else { (1u64 << N) - 1 };
    let mmask = if M >= 64 { u64::MAX } else { (1u64 << M) - 1 };
    for i in 0..cases {
        let a = rng.sized() & nmask;
        let mut b = rng.sized() & mmask;
        if b == 0 && i % 7 != 0 {
            b = (1 + (rng.next() & 0xff)) & mmask.max(1);
        }
        uut.dividend.next = (a as u128).to_bits();
        uut.divisor.next = (b as u128).to_bits();
        uut.start.next = true;
        clock(&mut uut, |u| &mut u.clk);
        uut.start.next = false;
        let mut cycles = 1;
        while !uut.done.val() {
            assert!(uut.busy.val(), "busy must stay high until done");
            clock(&mut uut, |u| &mut u.clk);
            cycles += 1;
            assert!(cycles <= uut.max_latency());
        }
        // The early finish: exactly the iterations the dividend's significant groups need.
        assert_eq!(
            cycles,
            uut.latency_for(a as u128, b as u128),
            "{a} / {b}: latency"
        );
        let q = uut.quotient.val().to_u128() as u64;
        let rem = uut.remainder.val().to_u128() as u64;
        match (a.checked_div(b), a.checked_rem(b)) {
            (Some(eq), Some(er)) => assert_eq!((q, rem), (eq, er), "{a} / {b}"),
            _ => assert_eq!(q, nmask, "division by zero gives all ones"),
        }
        assert!(!uut.busy.val());
    }
}

#[test]
fn divider_64_by_64_two_bits_per_cycle_matches_rust() {
    let mut rng = Rng(seed());
    run::<64, 64>(2, 600, &mut rng);
}

#[test]
fn divider_narrow_divisor_and_radix_variants_match_rust() {
    let mut rng = Rng(seed() ^ 1);
    run::<64, 40>(4, 300, &mut rng);
    run::<48, 33>(1, 300, &mut rng);
}
