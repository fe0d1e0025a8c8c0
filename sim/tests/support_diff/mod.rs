//! Helpers of the Verilator block differential tests (`cosim_diff.rs`): the seed and iteration knobs, a
//! cycle driver for a block with stream agents, conversions between the blocks' records and port words, and
//! random MetaRoCE packets built from the model's wire types.

// Each test uses the helpers it needs.
#![allow(dead_code)]

pub mod frames;

use metaroce_hdl::common::netlist::ToWords;
use metaroce_hdl::CoreConfig;
use metaroce_sim::cosim::bus::{StreamSink, StreamSource};
use metaroce_sim::cosim::core::block_model;
use metaroce_sim::cosim::{Model, ModelKind, PortId};
use rust_hdl::prelude::Bits;

/// The seed of a test: `METAROCE_SEED`, else `default`; printed with the test's name so that a run replays.
pub fn seed(test: &str, default: u64) -> u64 {
    let s = std::env::var("METAROCE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    println!("{test}: seed {s} (replay with METAROCE_SEED={s})");
    s
}

/// The iteration count of a test: `METAROCE_ITERS`, else `default`.
pub fn iters(default: u64) -> u64 {
    std::env::var("METAROCE_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The model of block `name` (built once per test binary, cached on disk), with a wall-clock note of how
/// long getting it took (a build or a cache hit).
pub fn model(name: &str, cfg: &CoreConfig) -> ModelKind {
    let t = std::time::Instant::now();
    let k = block_model(name, cfg, false).unwrap_or_else(|e| panic!("{name}: {e}"));
    println!("{name}: model ready in {:.1} s", t.elapsed().as_secs_f64());
    k
}

/// The port `name` of `kind` (a missing port is a testbench bug).
pub fn port(kind: &ModelKind, name: &str) -> PortId {
    kind.port(name).unwrap_or_else(|e| panic!("{e}"))
}

/// Holds `rst` high for 4 cycles, then low.
pub fn reset(m: &mut Model, rst: PortId) {
    m.set_bit(rst, true);
    m.steps(4);
    m.set_bit(rst, false);
    m.eval();
}

/// One clock cycle of a block with stream agents: the agents drive, the model settles, the agents sample,
/// the clock steps. Fails on a handshake violation a sink saw.
pub fn cycle(m: &mut Model, srcs: &mut [&mut StreamSource], sinks: &mut [&mut StreamSink]) {
    for s in srcs.iter_mut() {
        s.drive(m);
    }
    for s in sinks.iter_mut() {
        s.drive(m);
    }
    m.eval();
    for s in srcs.iter_mut() {
        s.sample(m);
    }
    for s in sinks.iter_mut() {
        s.sample(m);
        if let Some(v) = &s.violation {
            panic!("handshake violation: {v}");
        }
    }
    m.step();
}

/// 64-bit words as 32-bit words, least significant first.
pub fn w32(v: &[u64]) -> Vec<u32> {
    v.iter()
        .flat_map(|x| [*x as u32, (*x >> 32) as u32])
        .collect()
}

/// 32-bit words as 64-bit words, least significant first.
pub fn w64(v: &[u32]) -> Vec<u64> {
    v.chunks(2)
        .map(|c| u64::from(c[0]) | (u64::from(c.get(1).copied().unwrap_or(0)) << 32))
        .collect()
}

/// `x` as a `Bits<N>` (up to 128 bits).
pub fn b<const N: usize>(x: u128) -> Bits<N> {
    Bits::<N>::from_words(&[x as u64, (x >> 64) as u64])
}

/// A big-endian byte string as a number.
pub fn be(x: &[u8]) -> u128 {
    x.iter().fold(0u128, |a, &y| (a << 8) | u128::from(y))
}

/// Bytes as 32-bit words, byte 0 in bits 7:0 (`words` words, zero filled).
pub fn bytes_to_w32(bytes: &[u8], words: usize) -> Vec<u32> {
    let mut w = vec![0u32; words];
    for (i, x) in bytes.iter().enumerate().take(words * 4) {
        w[i / 4] |= u32::from(*x) << (8 * (i % 4));
    }
    w
}

/// `Bits<N>` (a record packed by rust-hdl, first field in the low bits) as 32-bit words.
pub fn bits_w32<const N: usize>(x: Bits<N>) -> Vec<u32> {
    w32(&x.to_words())
}
