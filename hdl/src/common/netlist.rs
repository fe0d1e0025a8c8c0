//! A word-level netlist that is both the simulation model and the Verilog source of the table-driven blocks
//! (the frame parser, the frame builder, the parallel CRC).
//!
//! Those blocks are full of logic that Rust code generates from tables (header field positions from
//! `metaroce_proto::wire::layout`, CRC matrices from the polynomial, per-byte masks over a beat): loops that
//! `#[hdl_gen]` cannot express. Writing such a block twice (a `update()` model and a Verilog text) invites the
//! two to differ, so these blocks are built once as a [`Net`]: a list of nodes (inputs, constants, registers,
//! RAMs, bitwise/arithmetic operators, slices, concatenations, multiplexers, XOR matrices) created by Rust code.
//! [`Net::eval`] / [`Net::tick`] simulate it cycle by cycle (this is the block's `update()`), and
//! [`Net::verilog`] prints it as a flat Verilog body (one `wire` per node, one `always @(posedge clk)` for the
//! registers, one per RAM), which is the block's `Verilog::Custom` text. Both come from the same node list, so
//! the simulated and the synthesized logic are the same by construction.
//!
//! Semantics: every value is an unsigned bit vector of a fixed width. Registers reset synchronously to their
//! initial value when the net's `rst` input is high. RAMs have one write port and registered read ports
//! (read-first, one cycle latency, no reset: they map to block RAM).

use std::fmt::Write as _;

/// A node handle.
pub type N = usize;

#[derive(Clone, Debug)]
enum Op {
    Input,
    Const(Vec<u64>),
    Reg {
        init: Vec<u64>,
        d: Option<N>,
        en: Option<N>,
    },
    MemRd {
        mem: usize,
        addr: N,
    },
    Not(N),
    And(N, N),
    Or(N, N),
    Xor(N, N),
    Add(N, N),
    Sub(N, N),
    Eq(N, N),
    Ult(N, N),
    Mux(N, N, N),
    Slice(N, usize),
    Cat(Vec<N>),
    RedOr(N),
    RedAnd(N),
    /// Output bit i = XOR of the input bits selected by row i (as a bit mask over the input words).
    Lin(N, Vec<Vec<u64>>),
    Shr(N, N),
    Shl(N, N),
    /// A forward-declared wire, driven later by [`Net::drive`].
    Wire(Option<N>),
}

#[derive(Clone, Debug)]
struct Node {
    op: Op,
    w: usize,
    off: usize,
    name: Option<String>,
}

#[derive(Clone, Debug)]
struct Mem {
    w: usize,
    depth: usize,
    we: Option<N>,
    waddr: Option<N>,
    wdata: Option<N>,
    data: Vec<Vec<u64>>,
}

/// The netlist (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct Net {
    nodes: Vec<Node>,
    vals: Vec<u64>,
    inputs: Vec<(String, N)>,
    outputs: Vec<(String, N)>,
    mems: Vec<Mem>,
    rst: Option<N>,
    order: Vec<N>,
}

fn nw(w: usize) -> usize {
    w.div_ceil(64)
}

fn mask_top(v: &mut [u64], w: usize) {
    let r = w % 64;
    if r != 0 {
        if let Some(last) = v.last_mut() {
            *last &= (1u64 << r) - 1;
        }
    }
}

/// Bit `i` of a word vector.
pub fn bit(v: &[u64], i: usize) -> bool {
    v.get(i / 64).is_some_and(|w| (w >> (i % 64)) & 1 == 1)
}

/// Sets bit `i` of a word vector.
pub fn set_bit(v: &mut [u64], i: usize, b: bool) {
    if let Some(w) = v.get_mut(i / 64) {
        if b {
            *w |= 1 << (i % 64);
        } else {
            *w &= !(1 << (i % 64));
        }
    }
}

/// Reads `w` (≤ 64) bits at `lo`.
pub fn get_field(v: &[u64], lo: usize, w: usize) -> u64 {
    let mut x = 0u64;
    for i in 0..w {
        if bit(v, lo + i) {
            x |= 1 << i;
        }
    }
    x
}

/// Writes `w` (≤ 64) bits at `lo`.
pub fn set_field(v: &mut [u64], lo: usize, w: usize, x: u64) {
    for i in 0..w {
        set_bit(v, lo + i, (x >> i) & 1 == 1);
    }
}

/// Word vector of width `w` from little-endian bytes (byte k = bits 8k..8k+7).
pub fn words_from_bytes(b: &[u8], w: usize) -> Vec<u64> {
    let mut v = vec![0u64; nw(w)];
    for (k, &x) in b.iter().enumerate() {
        if k * 8 < w {
            v[k / 8] |= (x as u64) << ((k % 8) * 8);
        }
    }
    mask_top(&mut v, w);
    v
}

/// Byte `k` of a word vector.
pub fn byte_of(v: &[u64], k: usize) -> u8 {
    v.get(k / 8).map_or(0, |w| (w >> ((k % 8) * 8)) as u8)
}

impl Net {
    /// An empty net with a `rst` input (synchronous reset of every register).
    pub fn new() -> Self {
        let mut n = Net::default();
        let r = n.input("rst", 1);
        n.rst = Some(r);
        n
    }

    fn push(&mut self, op: Op, w: usize) -> N {
        assert!(w > 0, "zero-width node");
        let off = self.vals.len();
        self.vals.resize(off + nw(w), 0);
        if let Op::Const(c) = &op {
            self.vals[off..off + nw(w)].copy_from_slice(c);
        }
        if let Op::Reg { init, .. } = &op {
            self.vals[off..off + nw(w)].copy_from_slice(init);
        }
        self.nodes.push(Node {
            op,
            w,
            off,
            name: None,
        });
        self.nodes.len() - 1
    }

    /// Width of a node.
    pub fn width(&self, a: N) -> usize {
        self.nodes[a].w
    }

    /// Gives a node a readable name in the Verilog (`<name>_<id>`).
    pub fn name(&mut self, a: N, name: &str) -> N {
        self.nodes[a].name = Some(name.to_string());
        a
    }

    /// A wire of width `w` whose value is given later with [`Net::drive`] (for combinational signals used
    /// before the logic that computes them is built).
    pub fn wire(&mut self, w: usize) -> N {
        self.push(Op::Wire(None), w)
    }

    /// Drives a wire created by [`Net::wire`].
    pub fn drive(&mut self, wire: N, src: N) {
        assert_eq!(self.width(wire), self.width(src), "wire width");
        match &mut self.nodes[wire].op {
            Op::Wire(d) => {
                assert!(d.is_none(), "wire driven twice");
                *d = Some(src);
            }
            _ => panic!("drive on a non-wire"),
        }
    }

    fn deps(&self, i: N) -> Vec<N> {
        match &self.nodes[i].op {
            Op::Input | Op::Const(_) | Op::Reg { .. } | Op::MemRd { .. } => vec![],
            Op::Not(a) | Op::Slice(a, _) | Op::RedOr(a) | Op::RedAnd(a) | Op::Lin(a, _) => vec![*a],
            Op::And(a, b)
            | Op::Or(a, b)
            | Op::Xor(a, b)
            | Op::Add(a, b)
            | Op::Sub(a, b)
            | Op::Eq(a, b)
            | Op::Ult(a, b)
            | Op::Shr(a, b)
            | Op::Shl(a, b) => vec![*a, *b],
            Op::Mux(s, a, b) => vec![*s, *a, *b],
            Op::Cat(p) => p.clone(),
            Op::Wire(d) => d.iter().copied().collect(),
        }
    }

    fn compute_order(&mut self) {
        let n = self.nodes.len();
        let mut state = vec![0u8; n];
        let mut order = Vec::with_capacity(n);
        for root in 0..n {
            if state[root] != 0 {
                continue;
            }
            let mut stack = vec![(root, false)];
            while let Some((x, done)) = stack.pop() {
                if done {
                    state[x] = 2;
                    order.push(x);
                    continue;
                }
                if state[x] != 0 {
                    continue;
                }
                state[x] = 1;
                stack.push((x, true));
                for d in self.deps(x) {
                    if state[d] == 0 {
                        stack.push((d, false));
                    } else if state[d] == 1 {
                        panic!("combinational loop through node {d}");
                    }
                }
            }
        }
        self.order = order;
    }

    /// A module input port.
    pub fn input(&mut self, name: &str, w: usize) -> N {
        let n = self.push(Op::Input, w);
        self.inputs.push((name.to_string(), n));
        n
    }

    /// Declares `a` as the module output port `name`.
    pub fn output(&mut self, name: &str, a: N) {
        self.outputs.push((name.to_string(), a));
    }

    /// A constant of width `w` (≤ 64 bits given).
    pub fn lit(&mut self, w: usize, x: u64) -> N {
        let mut v = vec![0u64; nw(w)];
        v[0] = x;
        mask_top(&mut v, w);
        self.push(Op::Const(v), w)
    }

    /// A wide constant.
    pub fn lit_words(&mut self, w: usize, mut v: Vec<u64>) -> N {
        v.resize(nw(w), 0);
        mask_top(&mut v, w);
        self.push(Op::Const(v), w)
    }

    /// A register of width `w` resetting to `init`; its input is given later with [`Net::set_d`].
    pub fn reg(&mut self, w: usize, init: u64) -> N {
        let mut v = vec![0u64; nw(w)];
        v[0] = init;
        mask_top(&mut v, w);
        self.push(
            Op::Reg {
                init: v,
                d: None,
                en: None,
            },
            w,
        )
    }

    /// Connects a register's next value (loaded every cycle, or when `en` is high).
    pub fn set_d(&mut self, r: N, d: N, en: Option<N>) {
        assert_eq!(self.nodes[r].w, self.nodes[d].w, "register width");
        if let Some(e) = en {
            assert_eq!(self.nodes[e].w, 1);
        }
        match &mut self.nodes[r].op {
            Op::Reg { d: dd, en: ee, .. } => {
                assert!(dd.is_none(), "register driven twice");
                *dd = Some(d);
                *ee = en;
            }
            _ => panic!("set_d on a non-register"),
        }
    }

    /// A register loaded with `d` (when `en`), i.e. `reg` + `set_d`.
    pub fn dff(&mut self, d: N, en: Option<N>, init: u64) -> N {
        let r = self.reg(self.width(d), init);
        self.set_d(r, d, en);
        r
    }

    /// A RAM of `depth` words of `w` bits; returns its index.
    pub fn mem(&mut self, w: usize, depth: usize) -> usize {
        self.mems.push(Mem {
            w,
            depth,
            we: None,
            waddr: None,
            wdata: None,
            data: vec![vec![0u64; nw(w)]; depth],
        });
        self.mems.len() - 1
    }

    /// The RAM's write port.
    pub fn mem_write(&mut self, m: usize, we: N, addr: N, data: N) {
        let mm = &mut self.mems[m];
        mm.we = Some(we);
        mm.waddr = Some(addr);
        mm.wdata = Some(data);
    }

    /// A registered read port of the RAM.
    pub fn mem_read(&mut self, m: usize, addr: N) -> N {
        let w = self.mems[m].w;
        self.push(Op::MemRd { mem: m, addr }, w)
    }

    fn bin(&mut self, op: fn(N, N) -> Op, a: N, b: N) -> N {
        assert_eq!(self.width(a), self.width(b), "operand widths");
        let w = self.width(a);
        self.push(op(a, b), w)
    }

    /// `!a`.
    pub fn not(&mut self, a: N) -> N {
        let w = self.width(a);
        self.push(Op::Not(a), w)
    }
    /// `a & b`.
    pub fn and(&mut self, a: N, b: N) -> N {
        self.bin(Op::And, a, b)
    }
    /// `a | b`.
    pub fn or(&mut self, a: N, b: N) -> N {
        self.bin(Op::Or, a, b)
    }
    /// `a ^ b`.
    pub fn xor(&mut self, a: N, b: N) -> N {
        self.bin(Op::Xor, a, b)
    }
    /// `a + b` (same width, wrapping).
    pub fn add(&mut self, a: N, b: N) -> N {
        self.bin(Op::Add, a, b)
    }
    /// `a - b` (same width, wrapping).
    pub fn sub(&mut self, a: N, b: N) -> N {
        self.bin(Op::Sub, a, b)
    }
    /// `a + k`.
    pub fn addk(&mut self, a: N, k: u64) -> N {
        let w = self.width(a);
        let c = self.lit(w, k);
        self.add(a, c)
    }
    /// `a == b` (1 bit).
    pub fn eq(&mut self, a: N, b: N) -> N {
        assert_eq!(self.width(a), self.width(b), "operand widths");
        self.push(Op::Eq(a, b), 1)
    }
    /// `a == k`.
    pub fn eqk(&mut self, a: N, k: u64) -> N {
        let w = self.width(a);
        let c = self.lit(w, k);
        self.eq(a, c)
    }
    /// `a < b` unsigned (1 bit).
    pub fn ult(&mut self, a: N, b: N) -> N {
        assert_eq!(self.width(a), self.width(b), "operand widths");
        self.push(Op::Ult(a, b), 1)
    }
    /// `a < k`.
    pub fn ultk(&mut self, a: N, k: u64) -> N {
        let w = self.width(a);
        let c = self.lit(w, k);
        self.ult(a, c)
    }
    /// `s ? a : b`.
    pub fn mux(&mut self, s: N, a: N, b: N) -> N {
        assert_eq!(self.width(s), 1);
        assert_eq!(self.width(a), self.width(b), "mux widths");
        let w = self.width(a);
        self.push(Op::Mux(s, a, b), w)
    }
    /// `a[lo +: w]`.
    pub fn slice(&mut self, a: N, lo: usize, w: usize) -> N {
        assert!(lo + w <= self.width(a), "slice out of range");
        if lo == 0 && w == self.width(a) {
            return a;
        }
        self.push(Op::Slice(a, lo), w)
    }
    /// Bit `i` of `a`.
    pub fn bit(&mut self, a: N, i: usize) -> N {
        self.slice(a, i, 1)
    }
    /// Concatenation, `parts[0]` in the least significant bits.
    pub fn cat(&mut self, parts: &[N]) -> N {
        if parts.len() == 1 {
            return parts[0];
        }
        let w = parts.iter().map(|&p| self.width(p)).sum();
        self.push(Op::Cat(parts.to_vec()), w)
    }
    /// Zero-extends or truncates to `w` bits.
    pub fn resize(&mut self, a: N, w: usize) -> N {
        let aw = self.width(a);
        if aw == w {
            a
        } else if aw > w {
            self.slice(a, 0, w)
        } else {
            let z = self.lit(w - aw, 0);
            self.cat(&[a, z])
        }
    }
    /// `a << k` for a constant `k`, same width.
    pub fn shlk(&mut self, a: N, k: usize) -> N {
        let w = self.width(a);
        if k == 0 {
            return a;
        }
        if k >= w {
            return self.lit(w, 0);
        }
        let z = self.lit(k, 0);
        let lo = self.slice(a, 0, w - k);
        self.cat(&[z, lo])
    }
    /// `|a`.
    pub fn any(&mut self, a: N) -> N {
        if self.width(a) == 1 {
            return a;
        }
        self.push(Op::RedOr(a), 1)
    }
    /// `&a`.
    pub fn all(&mut self, a: N) -> N {
        if self.width(a) == 1 {
            return a;
        }
        self.push(Op::RedAnd(a), 1)
    }
    /// AND of several 1-bit nodes.
    pub fn and_all(&mut self, xs: &[N]) -> N {
        match xs.len() {
            0 => self.lit(1, 1),
            1 => xs[0],
            _ => {
                let c = self.cat(xs);
                self.all(c)
            }
        }
    }
    /// OR of several 1-bit nodes.
    pub fn or_all(&mut self, xs: &[N]) -> N {
        match xs.len() {
            0 => self.lit(1, 0),
            1 => xs[0],
            _ => {
                let c = self.cat(xs);
                self.any(c)
            }
        }
    }
    /// Replicates a 1-bit node `n` times.
    pub fn rep(&mut self, a: N, n: usize) -> N {
        let v = vec![a; n];
        self.cat(&v)
    }
    /// The linear map over GF(2): output bit i is the XOR of the bits `rows[i]` of `a`.
    pub fn lin(&mut self, a: N, rows: &[Vec<usize>]) -> N {
        let aw = self.width(a);
        let masks = rows
            .iter()
            .map(|r| {
                let mut m = vec![0u64; nw(aw)];
                for &i in r {
                    assert!(i < aw);
                    m[i / 64] ^= 1 << (i % 64);
                }
                m
            })
            .collect::<Vec<_>>();
        self.push(Op::Lin(a, masks), rows.len())
    }
    /// `a >> s` (logical).
    pub fn shr(&mut self, a: N, s: N) -> N {
        let w = self.width(a);
        self.push(Op::Shr(a, s), w)
    }
    /// `a << s`.
    pub fn shl(&mut self, a: N, s: N) -> N {
        let w = self.width(a);
        self.push(Op::Shl(a, s), w)
    }

    /// Selects `opts[idx]` (a binary tree of multiplexers on `idx`'s bits); indices beyond the list give zero.
    pub fn sel(&mut self, idx: N, opts: &[N]) -> N {
        assert!(!opts.is_empty());
        let w = self.width(opts[0]);
        let iw = self.width(idx);
        let mut nb = 0;
        while (1usize << nb) < opts.len() {
            nb += 1;
        }
        let used = nb.min(iw);
        let mut level: Vec<N> = opts.iter().copied().take(1 << used).collect();
        let z = self.lit(w, 0);
        level.resize(1 << used, z);
        for b in 0..used {
            let s = self.bit(idx, b);
            level = level.chunks(2).map(|c| self.mux(s, c[1], c[0])).collect();
        }
        let r = level[0];
        if iw > used {
            let hi = self.slice(idx, used, iw - used);
            let nz = self.any(hi);
            return self.mux(nz, z, r);
        }
        r
    }

    /// The `n`-bit thermometer of `x`: bit i is `i < x`.
    pub fn thermo(&mut self, x: N, n: usize) -> N {
        let w = self.width(x);
        let max = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
        let bits: Vec<N> = (0..n)
            .map(|i| {
                if i as u64 >= max {
                    // `i < x` cannot hold for any x of this width.
                    self.lit(1, 0)
                } else {
                    let c = self.lit(w, i as u64);
                    self.ult(c, x)
                }
            })
            .collect();
        self.cat(&bits)
    }

    /// A FIFO of `depth` (a power of two) register entries: `push` writes `data` (the caller guarantees room),
    /// `pop` removes the head (the caller guarantees an entry). Returns (head entry, occupancy with
    /// `log2(depth) + 1` bits).
    pub fn reg_fifo(&mut self, depth: usize, data: N, push: N, pop: N) -> (N, N) {
        assert!(depth.is_power_of_two() && depth >= 2);
        let pw = depth.trailing_zeros() as usize;
        let w = self.width(data);
        let wp = self.reg(pw, 0);
        let rp = self.reg(pw, 0);
        let cnt = self.reg(pw + 1, 0);
        let wp1 = self.addk(wp, 1);
        self.set_d(wp, wp1, Some(push));
        let rp1 = self.addk(rp, 1);
        self.set_d(rp, rp1, Some(pop));
        let inc = self.addk(cnt, 1);
        let dec = self.addk(cnt, (1u64 << (pw + 1)) - 1);
        let np = self.not(pop);
        let npush = self.not(push);
        let only_push = self.and(push, np);
        let only_pop = self.and(pop, npush);
        let c1 = self.mux(only_pop, dec, cnt);
        let c2 = self.mux(only_push, inc, c1);
        self.set_d(cnt, c2, None);
        let mut entries = Vec::with_capacity(depth);
        for i in 0..depth {
            let here = self.eqk(wp, i as u64);
            let en = self.and(push, here);
            let e = self.reg(w, 0);
            self.set_d(e, data, Some(en));
            entries.push(e);
        }
        let head = self.sel(rp, &entries);
        (head, cnt)
    }

    /// A FIFO of `depth` register entries that shifts towards its head, so that the head is a register (no
    /// read multiplexer in front of it): same interface and behaviour as [`Net::reg_fifo`] (`push` writes
    /// `data`, the caller guarantees room; `pop` removes the head, the caller guarantees an entry; returns
    /// (head entry, occupancy with `log2(depth) + 1` bits)). Every entry is loaded from its successor or from
    /// `data`, a two-input choice behind a registered one-hot position.
    pub fn shift_fifo(&mut self, depth: usize, data: N, push: N, pop: N) -> (N, N) {
        assert!(depth.is_power_of_two() && depth >= 2);
        let pw = depth.trailing_zeros() as usize;
        let w = self.width(data);
        let cnt = self.reg(pw + 1, 0);
        let inc = self.addk(cnt, 1);
        let dec = self.addk(cnt, (1u64 << (pw + 1)) - 1);
        let np = self.not(pop);
        let npush = self.not(push);
        let only_push = self.and(push, np);
        let only_pop = self.and(pop, npush);
        let c1 = self.mux(only_pop, dec, cnt);
        let c2 = self.mux(only_push, inc, c1);
        self.set_d(cnt, c2, None);
        // One-hot of the first free entry (`cnt`) and of the last full one (`cnt - 1`), as registers.
        let at_cnt = self.reg(depth + 1, 1);
        let sh_up = self.shlk(at_cnt, 1);
        let hi = self.slice(at_cnt, 1, depth);
        let sh_dn = self.resize(hi, depth + 1);
        let a1 = self.mux(only_pop, sh_dn, at_cnt);
        let a2 = self.mux(only_push, sh_up, a1);
        self.set_d(at_cnt, a2, None);
        let at_last = self.slice(at_cnt, 1, depth);
        let at_free = self.slice(at_cnt, 0, depth);
        let zero = self.lit(w, 0);
        let entries: Vec<N> = (0..depth).map(|_| self.reg(w, 0)).collect();
        for i in 0..depth {
            let next = if i + 1 < depth { entries[i + 1] } else { zero };
            // Entry i takes `data` when the push lands on it: at `cnt` without a pop, at `cnt - 1` with one.
            let f = self.bit(at_free, i);
            let l = self.bit(at_last, i);
            let here = self.mux(pop, l, f);
            let take = self.and(push, here);
            let d = self.mux(take, data, next);
            let en = self.or(pop, take);
            self.set_d(entries[i], d, Some(en));
        }
        (entries[0], cnt)
    }

    fn v(&self, a: N) -> &[u64] {
        let n = &self.nodes[a];
        &self.vals[n.off..n.off + nw(n.w)]
    }

    fn val_u64(&self, a: N) -> u64 {
        self.v(a)[0]
    }

    /// Sets an input port.
    pub fn set(&mut self, name: &str, v: &[u64]) {
        let n = self
            .inputs
            .iter()
            .find(|(s, _)| s == name)
            .unwrap_or_else(|| panic!("no input {name}"))
            .1;
        let (off, w) = (self.nodes[n].off, self.nodes[n].w);
        for i in 0..nw(w) {
            self.vals[off + i] = v.get(i).copied().unwrap_or(0);
        }
        mask_top(&mut self.vals[off..off + nw(w)], w);
    }

    /// Sets an input port of at most 64 bits.
    pub fn set_u64(&mut self, name: &str, x: u64) {
        self.set(name, &[x]);
    }

    /// Reads an output port (after [`Net::eval`]).
    pub fn get(&self, name: &str) -> Vec<u64> {
        let n = self
            .outputs
            .iter()
            .find(|(s, _)| s == name)
            .unwrap_or_else(|| panic!("no output {name}"))
            .1;
        self.v(n).to_vec()
    }

    /// One line of a port trace: every port's current value in hex, in [`Net::ports`] order, separated by
    /// spaces (for replaying a simulation against the generated Verilog in another simulator).
    pub fn trace_line(&self) -> String {
        let mut s = String::new();
        let all = self.inputs.iter().chain(self.outputs.iter());
        for (k, (_, n)) in all.enumerate() {
            if k > 0 {
                s.push(' ');
            }
            for x in self.v(*n).iter().rev() {
                write!(s, "{x:016x}").ok();
            }
        }
        s
    }

    /// Reads an output port of at most 64 bits.
    pub fn get_u64(&self, name: &str) -> u64 {
        self.get(name)[0]
    }

    /// The input and output ports: (name, width, is_output).
    pub fn ports(&self) -> Vec<(String, usize, bool)> {
        let mut v: Vec<_> = self
            .inputs
            .iter()
            .map(|(s, n)| (s.clone(), self.nodes[*n].w, false))
            .collect();
        v.extend(
            self.outputs
                .iter()
                .map(|(s, n)| (s.clone(), self.nodes[*n].w, true)),
        );
        v
    }

    /// Evaluates the combinational nodes from the inputs and the register state.
    pub fn eval(&mut self) {
        if self.order.len() != self.nodes.len() {
            self.compute_order();
        }
        let mut tmp: Vec<u64> = Vec::new();
        for oi in 0..self.order.len() {
            let i = self.order[oi];
            let w = self.nodes[i].w;
            let k = nw(w);
            tmp.clear();
            tmp.resize(k, 0);
            match &self.nodes[i].op {
                Op::Input | Op::Const(_) | Op::Reg { .. } | Op::MemRd { .. } => continue,
                Op::Not(a) => {
                    for (t, x) in tmp.iter_mut().zip(self.v(*a)) {
                        *t = !x;
                    }
                }
                Op::And(a, b) | Op::Or(a, b) | Op::Xor(a, b) => {
                    let f: fn(u64, u64) -> u64 = match &self.nodes[i].op {
                        Op::And(..) => |x, y| x & y,
                        Op::Or(..) => |x, y| x | y,
                        _ => |x, y| x ^ y,
                    };
                    let (va, vb) = (self.v(*a), self.v(*b));
                    for j in 0..k {
                        tmp[j] = f(va[j], vb[j]);
                    }
                }
                Op::Add(a, b) | Op::Sub(a, b) => {
                    let sub = matches!(self.nodes[i].op, Op::Sub(..));
                    let (va, vb) = (self.v(*a), self.v(*b));
                    let mut carry = sub as u64;
                    for j in 0..k {
                        let y = if sub { !vb[j] } else { vb[j] };
                        let (s1, c1) = va[j].overflowing_add(y);
                        let (s2, c2) = s1.overflowing_add(carry);
                        tmp[j] = s2;
                        carry = (c1 | c2) as u64;
                    }
                }
                Op::Eq(a, b) => tmp[0] = (self.v(*a) == self.v(*b)) as u64,
                Op::Ult(a, b) => {
                    let (va, vb) = (self.v(*a), self.v(*b));
                    let mut lt = false;
                    for j in (0..va.len()).rev() {
                        if va[j] != vb[j] {
                            lt = va[j] < vb[j];
                            break;
                        }
                    }
                    tmp[0] = lt as u64;
                }
                Op::Wire(d) => {
                    let d = d.unwrap_or_else(|| panic!("wire {i} not driven"));
                    tmp.copy_from_slice(self.v(d));
                }
                Op::Mux(s, a, b) => {
                    let src = if self.val_u64(*s) & 1 == 1 { *a } else { *b };
                    tmp.copy_from_slice(self.v(src));
                }
                Op::Slice(a, lo) => {
                    let va = self.v(*a);
                    let (ws, bs) = (lo / 64, lo % 64);
                    for (j, t) in tmp.iter_mut().enumerate() {
                        let x = va.get(ws + j).copied().unwrap_or(0);
                        let y = va.get(ws + j + 1).copied().unwrap_or(0);
                        *t = if bs == 0 {
                            x
                        } else {
                            (x >> bs) | (y << (64 - bs))
                        };
                    }
                }
                Op::Cat(parts) => {
                    let mut pos = 0;
                    for &p in parts {
                        let pw = self.nodes[p].w;
                        let vp = self.v(p);
                        if pos % 64 == 0 {
                            for (j, x) in vp.iter().enumerate() {
                                tmp[pos / 64 + j] |= x;
                            }
                        } else {
                            for q in 0..pw {
                                if bit(vp, q) {
                                    tmp[(pos + q) / 64] |= 1 << ((pos + q) % 64);
                                }
                            }
                        }
                        pos += pw;
                    }
                }
                Op::RedOr(a) => tmp[0] = self.v(*a).iter().any(|&x| x != 0) as u64,
                Op::RedAnd(a) => {
                    let aw = self.nodes[*a].w;
                    let va = self.v(*a);
                    tmp[0] = (0..aw).all(|q| bit(va, q)) as u64;
                }
                Op::Lin(a, masks) => {
                    let va = self.v(*a);
                    for (r, m) in masks.iter().enumerate() {
                        let mut p = 0u32;
                        for (x, y) in va.iter().zip(m) {
                            p ^= (x & y).count_ones();
                        }
                        if p & 1 == 1 {
                            tmp[r / 64] |= 1 << (r % 64);
                        }
                    }
                }
                Op::Shr(a, s) | Op::Shl(a, s) => {
                    let left = matches!(self.nodes[i].op, Op::Shl(..));
                    let sw = self.nodes[*s].w;
                    let vs = self.v(*s);
                    let amt = if sw > 64 && vs[1..].iter().any(|&x| x != 0) {
                        usize::MAX
                    } else {
                        vs[0] as usize
                    };
                    let va = self.v(*a);
                    if amt < w {
                        for q in 0..w {
                            let src = if left {
                                q.checked_sub(amt)
                            } else {
                                Some(q + amt).filter(|&x| x < w)
                            };
                            if let Some(s) = src {
                                if bit(va, s) {
                                    tmp[q / 64] |= 1 << (q % 64);
                                }
                            }
                        }
                    }
                }
            }
            mask_top(&mut tmp, w);
            let off = self.nodes[i].off;
            self.vals[off..off + k].copy_from_slice(&tmp);
        }
    }

    /// One rising clock edge: evaluates, then loads every register and RAM port, then re-evaluates.
    pub fn tick(&mut self) {
        self.eval();
        let rst = self.rst.is_some_and(|r| self.val_u64(r) & 1 == 1);
        let mut updates: Vec<(usize, Vec<u64>)> = Vec::new();
        for n in &self.nodes {
            match &n.op {
                Op::Reg { init, d, en } => {
                    if rst {
                        updates.push((n.off, init.clone()));
                    } else if let Some(d) = d {
                        if en.is_none_or(|e| self.val_u64(e) & 1 == 1) {
                            updates.push((n.off, self.v(*d).to_vec()));
                        }
                    }
                }
                Op::MemRd { mem, addr } => {
                    let m = &self.mems[*mem];
                    let a = self.val_u64(*addr) as usize;
                    let d = m.data.get(a).cloned().unwrap_or_else(|| vec![0; nw(m.w)]);
                    updates.push((n.off, d));
                }
                _ => {}
            }
        }
        let mut mem_writes = Vec::new();
        for (k, m) in self.mems.iter().enumerate() {
            if let (Some(we), Some(a), Some(d)) = (m.we, m.waddr, m.wdata) {
                if self.val_u64(we) & 1 == 1 {
                    mem_writes.push((k, self.val_u64(a) as usize, self.v(d).to_vec()));
                }
            }
        }
        for (off, v) in updates {
            self.vals[off..off + v.len()].copy_from_slice(&v);
        }
        for (k, a, d) in mem_writes {
            if let Some(slot) = self.mems[k].data.get_mut(a) {
                *slot = d;
            }
        }
        self.eval();
    }

    fn nm(&self, a: N) -> String {
        let n = &self.nodes[a];
        if let Op::Input = n.op {
            return self
                .inputs
                .iter()
                .find(|(_, x)| *x == a)
                .map(|(s, _)| s.clone())
                .unwrap_or_default();
        }
        match &n.name {
            Some(s) => format!("{s}_{a}"),
            None => format!("n{a}"),
        }
    }

    fn hex(w: usize, v: &[u64]) -> String {
        let mut s = String::new();
        for x in v.iter().rev() {
            write!(s, "{x:016x}").ok();
        }
        let digits = w.div_ceil(4);
        let s = s.trim_start_matches('0');
        let s = if s.is_empty() { "0" } else { s };
        let s = if s.len() > digits {
            &s[s.len() - digits..]
        } else {
            s
        };
        format!("{w}'h{s}")
    }

    /// The Verilog body of the module (declarations and logic; the ports are declared by rust-hdl from the
    /// block's signals with the same names and widths: inputs `input wire`, outputs `output reg`).
    pub fn verilog(&self) -> String {
        let mut s = String::new();
        s.push_str("// Generated netlist: one wire per node, registers in one clocked block.\n");
        s.push_str(
            "// Internal nodes are sliced into sub-fields; unused bits of them are expected.\n",
        );
        s.push_str("/* verilator lint_off UNUSEDSIGNAL */\n");
        for (i, n) in self.nodes.iter().enumerate() {
            let decl = match n.op {
                Op::Input => continue,
                Op::Reg { .. } | Op::MemRd { .. } => "reg ",
                _ => "wire",
            };
            writeln!(s, "{decl} [{}:0] {};", n.w - 1, self.nm(i)).ok();
        }
        for (k, m) in self.mems.iter().enumerate() {
            writeln!(s, "reg [{}:0] mem{k} [0:{}];", m.w - 1, m.depth - 1).ok();
        }
        s.push_str("/* verilator lint_on UNUSEDSIGNAL */\n");
        for (i, n) in self.nodes.iter().enumerate() {
            let a = |x: &N| self.nm(*x);
            let e = match &n.op {
                Op::Input | Op::Reg { .. } | Op::MemRd { .. } => continue,
                Op::Const(v) => Self::hex(n.w, v),
                Op::Not(x) => format!("~{}", a(x)),
                Op::And(x, y) => format!("{} & {}", a(x), a(y)),
                Op::Or(x, y) => format!("{} | {}", a(x), a(y)),
                Op::Xor(x, y) => format!("{} ^ {}", a(x), a(y)),
                Op::Add(x, y) => format!("{} + {}", a(x), a(y)),
                Op::Sub(x, y) => format!("{} - {}", a(x), a(y)),
                Op::Eq(x, y) => format!("{{{} == {}}}", a(x), a(y)),
                Op::Ult(x, y) => format!("{{{} < {}}}", a(x), a(y)),
                Op::Mux(c, x, y) => format!("{} ? {} : {}", a(c), a(x), a(y)),
                Op::Slice(x, lo) => {
                    if n.w == 1 {
                        format!("{}[{lo}]", a(x))
                    } else {
                        format!("{}[{}:{lo}]", a(x), lo + n.w - 1)
                    }
                }
                Op::Cat(ps) => {
                    let v: Vec<String> = ps.iter().rev().map(a).collect();
                    format!("{{{}}}", v.join(", "))
                }
                Op::RedOr(x) => format!("|{}", a(x)),
                Op::RedAnd(x) => format!("&{}", a(x)),
                Op::Lin(x, masks) => {
                    let aw = self.nodes[*x].w;
                    let ax = a(x);
                    let mut rows = Vec::new();
                    for m in masks.iter().rev() {
                        let terms: Vec<String> = (0..aw)
                            .filter(|&q| bit(m, q))
                            .map(|q| format!("{ax}[{q}]"))
                            .collect();
                        rows.push(match terms.len() {
                            0 => "1'b0".to_string(),
                            1..=LIN_TERMS => xor_tree(&terms),
                            // A reduction of the masked input: the same XOR after synthesis's constant
                            // propagation, and a few word operations per row in Verilator instead of one
                            // per bit.
                            _ => format!("^({ax} & {})", Self::hex(aw, m)),
                        });
                    }
                    if rows.len() == 1 {
                        rows.remove(0)
                    } else {
                        format!("{{\n    {}}}", rows.join(",\n    "))
                    }
                }
                Op::Shr(x, y) => format!("{} >> {}", a(x), a(y)),
                Op::Wire(d) => a(&d.expect("wire driven")),
                Op::Shl(x, y) => format!("{} << {}", a(x), a(y)),
            };
            writeln!(s, "assign {} = {e};", self.nm(i)).ok();
        }
        s.push_str("always @(posedge clk) begin\n");
        let rst = self
            .rst
            .map(|r| self.nm(r))
            .unwrap_or_else(|| "1'b0".into());
        for (i, n) in self.nodes.iter().enumerate() {
            if let Op::Reg {
                init,
                d: Some(d),
                en,
            } = &n.op
            {
                let nm = self.nm(i);
                let load = match en {
                    Some(e) => format!("if ({}) {nm} <= {};", self.nm(*e), self.nm(*d)),
                    None => format!("{nm} <= {};", self.nm(*d)),
                };
                writeln!(
                    s,
                    "  if ({rst}) {nm} <= {}; else {load}",
                    Self::hex(n.w, init)
                )
                .ok();
            }
        }
        s.push_str("end\n");
        for (k, m) in self.mems.iter().enumerate() {
            let aw = m.waddr.map(|x| self.nodes[x].w).unwrap_or(1);
            s.push_str("always @(posedge clk) begin\n");
            if let (Some(we), Some(wa), Some(wd)) = (m.we, m.waddr, m.wdata) {
                writeln!(
                    s,
                    "  if ({}) mem{k}[{}] <= {};",
                    self.nm(we),
                    self.nm(wa),
                    self.nm(wd)
                )
                .ok();
            }
            for (i, n) in self.nodes.iter().enumerate() {
                if let Op::MemRd { mem, addr } = &n.op {
                    if *mem == k {
                        writeln!(s, "  {} <= mem{k}[{}];", self.nm(i), self.nm(*addr)).ok();
                    }
                }
            }
            s.push_str("end\n");
            writeln!(
                s,
                "integer i_mem{k};\ninitial for (i_mem{k} = 0; i_mem{k} < {}; i_mem{k} = i_mem{k} + 1) mem{k}[i_mem{k}] = {}'d0;",
                m.depth, m.w
            )
            .ok();
            let _ = aw;
        }
        s.push_str("always @(*) begin\n");
        for (name, n) in &self.outputs {
            writeln!(s, "  {name} = {};", self.nm(*n)).ok();
        }
        s.push_str("end\n");
        s
    }
}

/// Rows of a linear map with at most this many terms are printed as XOR trees of single bits; wider rows as
/// a reduction XOR of the masked input.
const LIN_TERMS: usize = 8;

/// A balanced XOR expression of `terms` (a flat chain would nest as deep as it is long in a parser).
fn xor_tree(terms: &[String]) -> String {
    if terms.len() <= 4 {
        return terms.join(" ^ ");
    }
    let h = terms.len() / 2;
    format!("({}) ^ ({})", xor_tree(&terms[..h]), xor_tree(&terms[h..]))
}

/// Conversion of port values to and from the netlist's word vectors.
pub trait ToWords: Sized {
    /// The value as little-endian 64-bit words.
    fn to_words(&self) -> Vec<u64>;
    /// The value from little-endian 64-bit words.
    fn from_words(v: &[u64]) -> Self;
}

impl<const W: usize> ToWords for rust_hdl::prelude::Bits<W> {
    fn to_words(&self) -> Vec<u64> {
        let mut v = vec![0u64; nw(W)];
        if W <= 64 {
            v[0] = self.to_u64();
        } else {
            for i in 0..W {
                if self.get_bit(i) {
                    v[i / 64] |= 1 << (i % 64);
                }
            }
        }
        v
    }
    fn from_words(v: &[u64]) -> Self {
        if W <= 64 {
            let x = v.first().copied().unwrap_or(0);
            let x = if W == 64 { x } else { x & ((1u64 << W) - 1) };
            rust_hdl::prelude::Bits::<W>::from(x)
        } else {
            let mut b = rust_hdl::prelude::Bits::<W>::default();
            for i in 0..W {
                if bit(v, i) {
                    b = b.replace_bit(i, true);
                }
            }
            b
        }
    }
}

impl ToWords for bool {
    fn to_words(&self) -> Vec<u64> {
        vec![*self as u64]
    }
    fn from_words(v: &[u64]) -> Self {
        v.first().is_some_and(|x| x & 1 == 1)
    }
}

/// Implements `rust_hdl::core::prelude::Logic` for a block whose logic is the `_net: Net` field: every input
/// port listed is copied into the net's input of the same name, the net is clocked on `clk`'s rising edge,
/// and every output port listed is read from the net's output of the same name. The Verilog is the net's.
#[macro_export]
macro_rules! net_logic {
    ($t:ident, inputs: [$($i:ident),* $(,)?], outputs: [$($o:ident),* $(,)?]) => {
        impl<const DW: usize, const KW: usize> Logic for $t<DW, KW> {
            fn update(&mut self) {
                use $crate::common::netlist::ToWords;
                $( self._net.set(stringify!($i), &self.$i.val().to_words()); )*
                if self.clk.pos_edge() {
                    self._net.tick();
                } else {
                    self._net.eval();
                }
                $( self.$o.next = ToWords::from_words(&self._net.get(stringify!($o))); )*
            }
            fn connect(&mut self) {
                $( self.$o.connect(); )*
            }
            fn hdl(&self) -> Verilog {
                Verilog::Custom(self._net.verilog())
            }
        }
    };
}
