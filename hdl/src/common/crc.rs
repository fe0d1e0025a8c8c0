//! Parallel CRC-32 of the MetaRoCE ICV (spec 3.11, MR-WIRE-ICV) over one `DW`-bit beat per cycle.
//!
//! The CRC is the reflected polynomial [`POLY`] (`metaroce_proto::wire::crc::POLY`, 0xEDB88320) with initial
//! value and final xor 0xFFFFFFFF. Every matrix below is computed by Rust code from the polynomial and printed
//! as XOR trees into the Verilog (via [`crate::common::netlist`]); the same matrices are the simulation model.
//!
//! Message framing without per-byte-count matrices (the linearity of the raw register `R`):
//! * bytes of a beat outside the covered range are zeroed; bytes that the ICV masks (IPv4 DSCP/ECN, TTL,
//!   checksum; IPv6 traffic class, flow label, hop limit; UDP checksum) are forced to 0xFF (`ones`);
//! * leading zeros do not change a zero register, so a message starting at byte `start` of its first beat
//!   starts from `R = 0` with the initial value folded into its first four bytes (they are inverted);
//!   a message therefore has at least four bytes, all in its first beat (`start <= KW - 4`), which the ICV
//!   (from an IP header on) always has;
//! * trailing zeros after the end in the last beat advance `R` by `x^(8k)`; the result is multiplied back by
//!   `x^(-8k)` in `log2(KW)` conditional steps (`k`'s bits), two steps per register stage.
//!
//! Pipeline ([`crc_pipeline`]): stage 0 registers the prepared beat, stage 1 registers `T = B·D` (the beat's data
//! term) as partial sums over [`CHUNK`]-byte slices of the beat (XOR trees of up to `8 * CHUNK` inputs), stage 2
//! the register `R = A·R ^ ΣT_c` (`R = ΣT_c` on a first beat), then
//! `ceil(log2(KW)/2)` undo registers, then the final inversion (free). One beat per cycle; messages may be back
//! to back (one message per beat). Latency from a beat at the input to the CRC of the message it ends:
//! `3 + ceil(log2(KW)/2)` cycles ([`latency`]).
//!
//! Block [`Crc32Icv`] (`metaroce_common_crc32_icv`): ports `in_valid`, `in_first`, `in_last`, `in_start` (byte
//! where the message starts in its first beat), `in_end` (byte index, exclusive, where it ends in its last beat;
//! `KW` = whole beat), `in_ones` (bytes forced to 0xFF), `in_data`; outputs `out_valid` (one cycle per message)
//! and `out_crc` (the final CRC).

use crate::blocks::BlockSpec;
use crate::common::netlist::{Net, N};
use rust_hdl::prelude::*;

/// The reflected CRC-32 polynomial (the proto constant).
pub const POLY: u32 = metaroce_proto::wire::crc::POLY;

/// Advances a raw register over `bytes`.
pub fn raw(mut r: u32, bytes: &[u8]) -> u32 {
    for &b in bytes {
        r ^= b as u32;
        for _ in 0..8 {
            r = if r & 1 != 0 { (r >> 1) ^ POLY } else { r >> 1 };
        }
    }
    r
}

/// A 32x32 GF(2) matrix as the images of the 32 input bits.
pub(crate) type Mat = [u32; 32];

/// The image of `x` under `m`.
pub(crate) fn apply(m: &Mat, x: u32) -> u32 {
    (0..32)
        .filter(|&i| x >> i & 1 == 1)
        .fold(0, |a, i| a ^ m[i])
}

/// The map "advance a raw register over `n` zero bytes".
pub(crate) fn zero_adv(n: usize) -> Mat {
    let z = vec![0u8; n];
    core::array::from_fn(|i| raw(1 << i, &z))
}

/// Inverse of an invertible matrix (Gauss-Jordan over GF(2)).
pub(crate) fn invert(m: &Mat) -> Mat {
    // Row form: row o of M is the set of inputs i with bit o of m[i].
    let mut a: [u64; 32] = core::array::from_fn(|o| {
        let mut row = 0u64;
        for (i, c) in m.iter().enumerate() {
            if c >> o & 1 == 1 {
                row |= 1 << i;
            }
        }
        row | (1u64 << (32 + o))
    });
    for col in 0..32 {
        let p = (col..32)
            .find(|&r| a[r] >> col & 1 == 1)
            .expect("CRC shift is invertible");
        a.swap(col, p);
        for r in 0..32 {
            if r != col && a[r] >> col & 1 == 1 {
                a[r] ^= a[col];
            }
        }
    }
    // a[o] = [I | M^-1 row o]; convert back to column images.
    core::array::from_fn(|i| {
        (0..32).fold(0u32, |acc, o| acc | (((a[o] >> (32 + i)) & 1) as u32) << o)
    })
}

pub(crate) fn rows_of(cols: &[u32]) -> Vec<Vec<usize>> {
    (0..32)
        .map(|o| (0..cols.len()).filter(|&i| cols[i] >> o & 1 == 1).collect())
        .collect()
}

/// log2 of the beat width in bytes.
pub fn lb(kw: usize) -> usize {
    assert!(kw.is_power_of_two() && kw >= 8);
    kw.trailing_zeros() as usize
}

/// Cycles from a beat at the input of [`crc_pipeline`] to the CRC of the message that it ends.
pub fn latency(kw: usize) -> usize {
    3 + lb(kw).div_ceil(2)
}

/// The per-byte preparation of a beat: zero the bytes outside `[start, end)` (start only on a first beat),
/// force the `ones` bytes (inside the range) to 0xFF, invert the first four bytes of a message (the initial
/// value). `start` and `end` have the same width, at least `lb+1` bits. Returns (prepared data, trailing zero
/// count `KW - end` in that width).
pub fn crc_prep(net: &mut Net, kw: usize, first: N, start: N, end: N, ones: N, data: N) -> (N, N) {
    let w = net.width(start);
    assert!(w > lb(kw) && net.width(end) == w);
    let zero = net.lit(w, 0);
    let st = net.mux(first, start, zero);
    let st4 = net.addk(st, 4);
    let ff = net.lit(8, 0xFF);
    let z8 = net.lit(8, 0);
    let mut bytes = Vec::with_capacity(kw);
    for i in 0..kw {
        let iv = net.lit(w, i as u64);
        let before = net.ult(iv, st);
        let in_end = net.ult(iv, end);
        let nb = net.not(before);
        let keep = net.and(nb, in_end);
        let lt4 = net.ult(iv, st4);
        let init_b = net.and_all(&[first, nb, lt4]);
        let b = net.slice(data, 8 * i, 8);
        let o = net.bit(ones, i);
        let bo = net.mux(o, ff, b);
        let inv = net.not(bo);
        let bi = net.mux(init_b, inv, bo);
        bytes.push(net.mux(keep, bi, z8));
    }
    let d = net.cat(&bytes);
    let kwc = net.lit(w, kw as u64);
    let zeros = net.sub(kwc, end);
    (d, zeros)
}

/// Bytes of the beat per partial sum of the data term (stage 1 of [`crc_pipeline`]).
pub const CHUNK: usize = 8;

/// Stages 0 to 2 of [`crc_pipeline`]: the prepared beat registered; the beat's data term `T = B·D` as one partial
/// sum per [`CHUNK`] bytes of the beat, registered (each an XOR tree of at most `8 * CHUNK` inputs, where the
/// whole term is a tree of up to `DW`); the raw register `R = A·R ^ ΣT_c` (`R = ΣT_c` on a first beat).
/// Returns the raw register's next value registered, with the valid-and-last flag and the zero count beside it.
fn data_stages(net: &mut Net, kw: usize, valid: N, first: N, last: N, zeros: N, d: N) -> (N, N, N) {
    // B: image of every data bit with R = 0.
    let bcols: Vec<u32> = (0..kw * 8)
        .map(|j| {
            let mut bytes = vec![0u8; kw];
            bytes[j / 8] = 1 << (j % 8);
            raw(0, &bytes)
        })
        .collect();
    let a: Mat = zero_adv(kw);
    // Stage 0: the prepared beat is registered (the byte preparation and the XOR tree would not fit one cycle).
    let d = net.dff(d, None, 0);
    let valid = net.dff(valid, None, 0);
    let first = net.dff(first, None, 0);
    let last = net.dff(last, None, 0);
    let zeros = net.dff(zeros, None, 0);
    // Stage 1: the partial sums of the data term.
    let cw = CHUNK * 8;
    let parts: Vec<N> = (0..kw / CHUNK)
        .map(|c| {
            let dc = net.slice(d, c * cw, cw);
            let t = net.lin(dc, &rows_of(&bcols[c * cw..(c + 1) * cw]));
            net.dff(t, None, 0)
        })
        .collect();
    let v1 = net.dff(valid, None, 0);
    let f1 = net.dff(first, None, 0);
    let l1 = net.dff(last, None, 0);
    let z1 = net.dff(zeros, None, 0);
    // Stage 2: the raw register.
    let r = net.reg(32, 0);
    let ar = net.lin(r, &rows_of(&a));
    let zero32 = net.lit(32, 0);
    let mut rn = net.mux(f1, zero32, ar);
    for t in parts {
        rn = net.xor(rn, t);
    }
    net.set_d(r, rn, Some(v1));
    let vl = net.and(v1, l1);
    let cur = net.dff(rn, None, 0);
    let cv = net.dff(vl, None, 0);
    let ck = net.dff(z1, None, 0);
    (cur, cv, ck)
}

/// Adds the CRC pipeline to `net`: `valid`, `first`, `last` (1 bit), `zeros` (at least `lb` bits: trailing zero
/// bytes of a last beat, below `KW`), `d` (the prepared beat). Returns (`out_valid`, `out_crc`), [`latency`]
/// cycles later. The trailing-zero undo steps that share a register stage (multiplications by `x^(-8 * 2^j)`
/// selected by bit `j` of the zero count) are applied as one selection among the precomputed products of their
/// matrices (2 steps: four XOR trees and a 4-way choice), not as two chained multiply-and-select steps.
/// The standalone block, the frame builder and the parser use it.
pub fn crc_pipeline(
    net: &mut Net,
    kw: usize,
    valid: N,
    first: N,
    last: N,
    zeros: N,
    d: N,
) -> (N, N) {
    let l = lb(kw);
    let (mut cur, mut cv, mut ck) = data_stages(net, kw, valid, first, last, zeros, d);
    // Undo stages: steps j (and j + 1) of one register stage as one choice of the matrix product.
    let mut j = 0;
    while j < l {
        let steps: Vec<usize> = (j..(j + 2).min(l)).collect();
        let invs: Vec<Mat> = steps.iter().map(|&s| invert(&zero_adv(1 << s))).collect();
        let opts: Vec<N> = (0..1usize << steps.len())
            .map(|mask| {
                if mask == 0 {
                    return cur;
                }
                let m: Mat = core::array::from_fn(|i| {
                    let mut x = 1u32 << i;
                    for (k, inv) in invs.iter().enumerate() {
                        if mask >> k & 1 == 1 {
                            x = apply(inv, x);
                        }
                    }
                    x
                });
                net.lin(cur, &rows_of(&m))
            })
            .collect();
        let kb = net.slice(ck, j, steps.len());
        cur = net.sel(kb, &opts);
        cur = net.dff(cur, None, 0);
        cv = net.dff(cv, None, 0);
        ck = net.dff(ck, None, 0);
        j += 2;
    }
    let ones = net.lit(32, 0xFFFF_FFFF);
    let fin = net.xor(cur, ones);
    (cv, fin)
}

/// The standalone parallel ICV CRC (see the module docs).
#[derive(LogicBlock)]
pub struct Crc32Icv<const DW: usize, const KW: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// A beat is presented.
    pub in_valid: Signal<In, Bit>,
    /// First beat of a message.
    pub in_first: Signal<In, Bit>,
    /// Last beat of a message.
    pub in_last: Signal<In, Bit>,
    /// Byte where the message starts in its first beat.
    pub in_start: Signal<In, Bits<8>>,
    /// Byte (exclusive) where the message ends in this beat (`KW` unless last).
    pub in_end: Signal<In, Bits<8>>,
    /// Bytes forced to 0xFF (the ICV's masked fields).
    pub in_ones: Signal<In, Bits<KW>>,
    /// Beat data, byte 0 in bits 7:0.
    pub in_data: Signal<In, Bits<DW>>,
    /// The CRC of a message is on `out_crc`.
    pub out_valid: Signal<Out, Bit>,
    /// Final CRC (inverted).
    pub out_crc: Signal<Out, Bits<32>>,
    _net: Net,
}

impl<const DW: usize, const KW: usize> Default for Crc32Icv<DW, KW> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const DW: usize, const KW: usize> Crc32Icv<DW, KW> {
    /// Builds the block.
    pub fn new() -> Self {
        assert_eq!(DW, KW * 8);
        Crc32Icv {
            clk: Default::default(),
            rst: Default::default(),
            in_valid: Default::default(),
            in_first: Default::default(),
            in_last: Default::default(),
            in_start: Default::default(),
            in_end: Default::default(),
            in_ones: Default::default(),
            in_data: Default::default(),
            out_valid: Default::default(),
            out_crc: Default::default(),
            _net: Self::build(),
        }
    }

    /// The block's netlist (for tests and tools).
    pub fn build() -> Net {
        let mut n = Net::new();
        let valid = n.input("in_valid", 1);
        let first = n.input("in_first", 1);
        let last = n.input("in_last", 1);
        let start = n.input("in_start", 8);
        let end = n.input("in_end", 8);
        let ones = n.input("in_ones", KW);
        let data = n.input("in_data", DW);
        let (d, z) = crc_prep(&mut n, KW, first, start, end, ones, data);
        let (v, c) = crc_pipeline(&mut n, KW, valid, first, last, z, d);
        n.output("out_valid", v);
        n.output("out_crc", c);
        n
    }
}

crate::net_logic!(
    Crc32Icv,
    inputs: [rst, in_valid, in_first, in_last, in_start, in_end, in_ones, in_data],
    outputs: [out_valid, out_crc]
);

/// The CRC blocks (both widths).
pub fn blocks() -> Vec<BlockSpec> {
    vec![
        BlockSpec {
            name: "metaroce_common_crc32_icv",
            area: "common",
            description: "parallel CRC-32 of the ICV over a 512-bit beat (offsets, partial beats, masked bytes)",
            verilog: |_cfg| crate::gen::verilog("metaroce_common_crc32_icv", Crc32Icv::<512, 64>::new()),
        },
        BlockSpec {
            name: "metaroce_common_crc32_icv_w1024",
            area: "common",
            description: "parallel CRC-32 of the ICV over a 1024-bit beat",
            verilog: |_cfg| {
                crate::gen::verilog("metaroce_common_crc32_icv_w1024", Crc32Icv::<1024, 128>::new())
            },
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_undoes_zero_advance() {
        for n in [1usize, 2, 4, 8, 32, 64] {
            let z = zero_adv(n);
            let zi = invert(&z);
            for x in [1u32, 0xDEAD_BEEF, 0x8000_0001, 0x1234_5678] {
                assert_eq!(apply(&zi, apply(&z, x)), x, "n {n}");
            }
        }
    }

    #[test]
    fn raw_matches_proto() {
        let data: Vec<u8> = (0..100u32).map(|i| (i * 37 + 5) as u8).collect();
        assert_eq!(
            raw(0xFFFF_FFFF, &data) ^ 0xFFFF_FFFF,
            metaroce_proto::wire::crc::crc32(&data)
        );
    }
}
