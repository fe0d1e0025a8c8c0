//! The bit-scanning blocks (`common::bitscan`) against independent plain-Rust computations on random 256-bit
//! words. Seed: `BITSCAN_SEED` (printed).

use metaroce_hdl::common::bitscan::{FirstFrom, PopCount, Rotate};
use rust_hdl::prelude::*;

struct Rng(u64);

impl Rng {
    fn from_env(var: &str) -> Rng {
        let seed = std::env::var(var)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0x5eed_b175_ca11_u64);
        println!("{var}={seed}");
        Rng(seed)
    }
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// A 256-bit word as 4 limbs, with varied densities (sparse, dense, all-zero, all-one runs).
    fn word(&mut self) -> [u64; 4] {
        let mut w = [0u64; 4];
        let kind = self.next() % 6;
        for l in &mut w {
            let a = self.next();
            let b = self.next();
            *l = match kind {
                0 => a & b & self.next(),
                1 => a | b | self.next(),
                2 => 0,
                3 => !0,
                4 => !(1u64 << (a % 64)),
                _ => a,
            };
        }
        w
    }
}

fn bit(w: &[u64; 4], i: usize) -> bool {
    (w[i / 64] >> (i % 64)) & 1 == 1
}

fn to_bits(w: &[u64; 4]) -> Bits<256> {
    let mut x = Bits::<256>::default();
    for i in 0..256 {
        if bit(w, i) {
            x = x.replace_bit(i, true);
        }
    }
    x
}

fn tick<B: Block>(uut: &mut B, clk: impl Fn(&mut B, bool)) {
    clk(uut, true);
    assert!(simulate(uut, 50));
    clk(uut, false);
    assert!(simulate(uut, 50));
}

/// Reference: scan limb by limb with u64 trailing_zeros (independent of the block's bit loop).
fn ref_first(w: &[u64; 4], start: usize, zero: bool, wrap: bool) -> Option<usize> {
    let x: Vec<u64> = w.iter().map(|&l| if zero { !l } else { l }).collect();
    let scan = |lo: usize, hi: usize| -> Option<usize> {
        // first set bit in [lo, hi)
        let mut i = lo;
        while i < hi {
            let limb = x[i / 64] >> (i % 64);
            if limb != 0 {
                let p = i + limb.trailing_zeros() as usize;
                return if p < hi { Some(p) } else { None };
            }
            i = (i / 64 + 1) * 64;
        }
        None
    };
    scan(start, 256).or_else(|| if wrap { scan(0, start) } else { None })
}

#[test]
fn first_from_matches_plain_rust_on_random_words() {
    let mut rng = Rng::from_env("BITSCAN_SEED");
    let mut uut = FirstFrom::<256, 8>::default();
    uut.connect_all();
    uut.en.next = true;
    let set_clk = |u: &mut FirstFrom<256, 8>, c: bool| u.clk.next = Clock { clk: c };
    let mut expect: Vec<(Option<usize>, usize)> = Vec::new();
    let mut checked = 0;
    for n in 0..3000 {
        let w = rng.word();
        let start = (rng.next() % 256) as usize;
        let zero = rng.next() & 1 == 1;
        let wrap = rng.next() & 1 == 1;
        uut.word.next = to_bits(&w);
        uut.start.next = (start as u64).into();
        uut.zero.next = zero;
        uut.wrap.next = wrap;
        expect.push((ref_first(&w, start, zero, wrap), start));
        tick(&mut uut, set_clk);
        // 2-stage pipeline: after this edge the outputs hold the result of the inputs sampled one edge earlier
        if n >= 1 {
            let (e_prev, st_prev) = expect[n - 1];
            assert_eq!(uut.found.val(), e_prev.is_some(), "search {}", n - 1);
            if let Some(p) = e_prev {
                assert_eq!(uut.index.val().index(), p, "search {}", n - 1);
                assert_eq!(uut.skipped.val().index(), (p + 256 - st_prev) % 256);
            } else {
                assert_eq!(uut.index.val().index(), 0);
            }
            checked += 1;
        }
    }
    assert!(checked == 2999);
}

#[test]
fn first_from_edge_cases() {
    // start at the last bit, word all ones/zeros, a single clear bit below start (wrap only)
    let mut uut = FirstFrom::<256, 8>::default();
    uut.connect_all();
    uut.en.next = true;
    let set_clk = |u: &mut FirstFrom<256, 8>, c: bool| u.clk.next = Clock { clk: c };
    let mut w = [!0u64; 4];
    w[0] &= !(1 << 5);
    let cases = [
        (w, 255usize, true, true, Some(5usize)),
        (w, 255, true, false, None),
        (w, 5, true, false, Some(5)),
        (w, 6, false, false, Some(6)),
        ([0; 4], 0, false, true, None),
        ([!0; 4], 17, true, true, None),
        ([0, 0, 0, 1 << 63], 0, false, false, Some(255)),
    ];
    for (w, start, zero, wrap, e) in cases {
        uut.word.next = to_bits(&w);
        uut.start.next = (start as u64).into();
        uut.zero.next = zero;
        uut.wrap.next = wrap;
        tick(&mut uut, set_clk);
        tick(&mut uut, set_clk);
        assert_eq!(uut.found.val(), e.is_some(), "{start} {zero} {wrap}");
        assert_eq!(uut.index.val().index(), e.unwrap_or(0));
    }
}

#[test]
fn popcount_matches_count_ones() {
    let mut rng = Rng::from_env("BITSCAN_SEED");
    let mut uut = PopCount::<256, 9>::default();
    uut.connect_all();
    uut.en.next = true;
    let set_clk = |u: &mut PopCount<256, 9>, c: bool| u.clk.next = Clock { clk: c };
    let mut expect = Vec::new();
    for n in 0..2000 {
        let w = rng.word();
        uut.word.next = to_bits(&w);
        expect.push(w.iter().map(|l| l.count_ones() as usize).sum::<usize>());
        tick(&mut uut, set_clk);
        if n >= 1 {
            assert_eq!(uut.count.val().index(), expect[n - 1], "word {}", n - 1);
        }
    }
}

#[test]
fn rotate_matches_u64_limb_rotation() {
    let mut rng = Rng::from_env("BITSCAN_SEED");
    let mut uut = Rotate::<256, 8>::default();
    uut.connect_all();
    uut.en.next = true;
    let set_clk = |u: &mut Rotate<256, 8>, c: bool| u.clk.next = Clock { clk: c };
    for _ in 0..1500 {
        let w = rng.word();
        let amount = (rng.next() % 256) as usize;
        uut.word.next = to_bits(&w);
        uut.amount.next = (amount as u64).into();
        tick(&mut uut, set_clk);
        // reference: shift the 256-bit value as limbs (rotation right by `amount`)
        let mut r = [0u64; 4];
        for (i, limb) in r.iter_mut().enumerate() {
            for b in 0..64 {
                let src = (i * 64 + b + amount) % 256;
                *limb |= (bit(&w, src) as u64) << b;
            }
        }
        assert_eq!(uut.rotated.val(), to_bits(&r), "amount {amount}");
    }
}

#[test]
fn first_from_holds_its_stages_while_not_enabled() {
    let mut uut = FirstFrom::<256, 8>::default();
    uut.connect_all();
    let set_clk = |u: &mut FirstFrom<256, 8>, c: bool| u.clk.next = Clock { clk: c };
    let w1 = [0u64, 1 << 3, 0, 0]; // first set bit 67
    let w2 = [1u64 << 9, 0, 0, 0]; // first set bit 9
    uut.zero.next = false;
    uut.wrap.next = false;
    uut.start.next = 0u64.into();
    uut.en.next = true;
    uut.word.next = to_bits(&w1);
    tick(&mut uut, set_clk); // w1 in stage 1
    uut.en.next = false;
    uut.word.next = to_bits(&w2);
    for _ in 0..3 {
        tick(&mut uut, set_clk); // held: w2 is not sampled, w1 stays in stage 1
        assert!(!uut.found.val());
    }
    tick(&mut uut, set_clk);
    uut.en.next = true;
    tick(&mut uut, set_clk); // w1 to the outputs, w2 into stage 1
    assert!(uut.found.val());
    assert_eq!(uut.index.val().index(), 67);
    tick(&mut uut, set_clk);
    assert_eq!(uut.index.val().index(), 9);
}
