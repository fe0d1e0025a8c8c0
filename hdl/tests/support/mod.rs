//! Helpers shared by the hdl test binaries: the seeded generator (the model harness's splitmix64, so a printed
//! seed replays the same values everywhere) and the environment knobs of the randomized tests.

// Each test binary compiles this module and uses the helpers it needs.
#![allow(dead_code)]

pub mod frames;

/// A splitmix64 stream.
pub struct Rng(pub u64);

impl Rng {
    /// The next value.
    pub fn next(&mut self) -> u64 {
        metaroce_proto::harness::rng::splitmix64(&mut self.0)
    }

    /// A value in `0..n` (`n` of 0 counts as 1).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// The number in environment variable `name`, or `default`.
pub fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

impl Rng {
    /// `K` random bytes.
    pub fn bytes<const K: usize>(&mut self) -> [u8; K] {
        core::array::from_fn(|_| self.next() as u8)
    }
}

/// The seed of a randomized netlist test: `HDL_SEED`, else the time; printed so that a run replays.
pub fn seed() -> u64 {
    let s = std::env::var("HDL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
                | 1
        });
    println!("HDL_SEED={s}");
    s
}

/// Iterations of a randomized netlist test: `HDL_ITERS`, else `default`.
pub fn iters(default: usize) -> usize {
    env("HDL_ITERS", default as u64) as usize
}

/// Writes a netlist block's port list and a cycle trace (`HDL_TRACE_DIR`), for replaying on other simulators.
pub fn write_trace(net: &metaroce_hdl::common::netlist::Net, dir: &str, lines: &[String]) {
    let ports: Vec<String> = net
        .ports()
        .iter()
        .map(|(n, w, o)| format!("{n} {w} {}", if *o { "out" } else { "in" }))
        .collect();
    std::fs::write(format!("{dir}/ports.txt"), ports.join("\n") + "\n").expect("write ports");
    std::fs::write(format!("{dir}/trace.txt"), lines.join("\n") + "\n").expect("write trace");
}

/// `x` as a `Bits<N>` (up to 128 bits).
pub fn b<const N: usize>(x: u128) -> rust_hdl::prelude::Bits<N> {
    use metaroce_hdl::common::netlist::ToWords;
    rust_hdl::prelude::Bits::<N>::from_words(&[x as u64, (x >> 64) as u64])
}

/// A big-endian byte string as a number.
pub fn be(x: &[u8]) -> u128 {
    x.iter().fold(0u128, |a, &y| (a << 8) | y as u128)
}
