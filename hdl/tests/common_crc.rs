//! The parallel ICV CRC (spec 3.11, MR-WIRE-ICV) against `metaroce_proto::wire::crc` on random messages:
//! random lengths, start offsets, masked (0xFF) bytes, back-to-back messages and idle cycles, both widths.
//! Seed: `HDL_SEED` (printed); iterations: `HDL_ITERS`.

use metaroce_hdl::common::crc::{latency, Crc32Icv};
use metaroce_hdl::common::netlist::{words_from_bytes, Net};
use metaroce_proto::wire::crc::crc32;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn seed() -> u64 {
    let s = std::env::var("HDL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    println!("HDL_SEED={s}");
    s
}

fn run(mut net: Net, kw: usize, rng: &mut Rng, msgs: usize) {
    let mut want = Vec::new();
    let mut got = Vec::new();
    net.set_u64("rst", 1);
    net.tick();
    net.set_u64("rst", 0);
    for _ in 0..msgs {
        let start = rng.below(kw as u64 - 4) as usize;
        let len = 4 + rng.below(3 * kw as u64) as usize;
        let mut frame: Vec<u8> = (0..start + len).map(|_| rng.next() as u8).collect();
        let mut ones = vec![false; frame.len()];
        for _ in 0..rng.below(6) {
            let p = start + rng.below(len as u64) as usize;
            ones[p] = true;
        }
        let mut masked = frame[start..].to_vec();
        for (i, b) in masked.iter_mut().enumerate() {
            if ones[start + i] {
                *b = 0xFF;
            }
        }
        want.push(crc32(&masked));
        // Garbage after the end in the last beat must be ignored.
        let total = frame.len().div_ceil(kw) * kw;
        while frame.len() < total {
            frame.push(rng.next() as u8);
            ones.push(rng.next() & 1 == 1);
        }
        let nb = total / kw;
        for b in 0..nb {
            while rng.below(4) == 0 {
                net.set_u64("in_valid", 0);
                net.tick();
                if net.get_u64("out_valid") == 1 {
                    got.push(net.get_u64("out_crc") as u32);
                }
            }
            let last = b == nb - 1;
            net.set_u64("in_valid", 1);
            net.set_u64("in_first", (b == 0) as u64);
            net.set_u64("in_last", last as u64);
            net.set_u64("in_start", start as u64);
            let end = if last { start + len - b * kw } else { kw };
            net.set_u64("in_end", end as u64);
            let mut om = vec![0u64; kw.div_ceil(64)];
            for i in 0..kw {
                if ones[b * kw + i] {
                    om[i / 64] |= 1 << (i % 64);
                }
            }
            net.set("in_ones", &om);
            net.set(
                "in_data",
                &words_from_bytes(&frame[b * kw..(b + 1) * kw], kw * 8),
            );
            net.tick();
            if net.get_u64("out_valid") == 1 {
                got.push(net.get_u64("out_crc") as u32);
            }
        }
    }
    net.set_u64("in_valid", 0);
    for _ in 0..latency(kw) + 2 {
        net.tick();
        if net.get_u64("out_valid") == 1 {
            got.push(net.get_u64("out_crc") as u32);
        }
    }
    assert_eq!(got.len(), want.len(), "one CRC per message");
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "message {i}: got {g:#010x} want {w:#010x}");
    }
}

#[test]
fn icv_crc_random_messages_512() {
    let mut rng = Rng(seed());
    let n = std::env::var("HDL_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(150);
    run(Crc32Icv::<512, 64>::build(), 64, &mut rng, n);
}

#[test]
fn icv_crc_random_messages_1024() {
    let mut rng = Rng(seed());
    run(Crc32Icv::<1024, 128>::build(), 128, &mut rng, 60);
}

#[test]
fn icv_crc_through_rust_hdl_block() {
    use rust_hdl::prelude::*;
    // The rust-hdl wrapper: one message, stepped with the simulator's update loop.
    let mut uut = Crc32Icv::<512, 64>::new();
    uut.connect_all();
    let data: Vec<u8> = (0..64u32).map(|i| (i * 7 + 3) as u8).collect();
    let want = crc32(&data[10..50]);
    let step = |u: &mut Crc32Icv<512, 64>| {
        u.clk.next = Clock::from(true);
        simulate(u, 10);
        u.clk.next = Clock::from(false);
        simulate(u, 10);
    };
    uut.in_valid.next = true;
    uut.in_first.next = true;
    uut.in_last.next = true;
    uut.in_start.next = 10.into();
    uut.in_end.next = 50.into();
    uut.in_data.next =
        metaroce_hdl::common::netlist::ToWords::from_words(&words_from_bytes(&data, 512));
    let mut got = None;
    for c in 0..latency(64) + 2 {
        step(&mut uut);
        if c == 0 {
            uut.in_valid.next = false;
        }
        if uut.out_valid.val() {
            got = Some(uut.out_crc.val().to_u32());
        }
    }
    assert_eq!(got, Some(want));
}
