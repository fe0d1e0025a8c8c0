//! Bit-scanning building blocks over an N-bit word (N = 256 for the receive bitmaps of MR-REL-7): a
//! find-first search ([`FirstFrom`]), a population count ([`PopCount`]) and a variable rotation ([`Rotate`]).
//!
//! Each is a custom block: `update()` is the simulator model in plain Rust (the functions [`first_from`],
//! [`popcount`] and [`rotate_right`], which are also the reference for tests), and `hdl()` returns Verilog that
//! Rust code generates bit by bit (no Verilog loops, explicit widths everywhere). They carry no control state:
//! the data goes through a fixed number of register stages, and the caller carries its own valid bits alongside.
//! None has a reset (pure data pipelines). Every block has a clock enable `en`: its stages hold while `en` is 0, so
//! a stalled pipeline around it keeps its contents (tie `en` to 1 for a free-running pipeline).
//!
//! Timing (yosys `synth_xilinx -family xcup`, `ltp -noff`, N = 256): every stage stays within 8 logic levels.
//!
//! | block | latency | throughput |
//! |---|---|---|
//! | [`FirstFrom`] | 2 enabled cycles | one search per cycle |
//! | [`PopCount`] | 2 enabled cycles | one count per cycle |
//! | [`Rotate`] | 1 enabled cycle | one rotation per cycle |

use rust_hdl::prelude::*;

/// Plain model of [`FirstFrom`]: the lowest index `i >= start` whose bit equals `!zero` (a set bit when
/// `zero` is false, a clear bit when it is true); with `wrap`, the search continues at bit 0 up to `start - 1`
/// (a circular search). `None` when there is no such bit. `word` is given as its bits, index 0 first.
pub fn first_from(word: &[bool], start: usize, zero: bool, wrap: bool) -> Option<usize> {
    let n = word.len();
    let hit = |i: usize| word[i] != zero;
    (start.min(n)..n).find(|&i| hit(i)).or_else(|| {
        if wrap {
            (0..start.min(n)).find(|&i| hit(i))
        } else {
            None
        }
    })
}

/// Plain model of [`PopCount`]: number of set bits.
pub fn popcount(word: &[bool]) -> usize {
    word.iter().filter(|&&b| b).count()
}

/// Plain model of [`Rotate`]: bit `i` of the result is bit `(i + amount) mod N` of `word` (a rotation towards
/// bit 0 by `amount`).
pub fn rotate_right(word: &[bool], amount: usize) -> Vec<bool> {
    let n = word.len();
    (0..n).map(|i| word[(i + amount) % n]).collect()
}

fn to_vec<const N: usize>(x: Bits<N>) -> Vec<bool> {
    (0..N).map(|i| x.get_bit(i)).collect()
}

fn from_vec<const N: usize>(v: &[bool]) -> Bits<N> {
    let mut x = Bits::<N>::default();
    for (i, &b) in v.iter().enumerate().take(N) {
        if b {
            x = x.replace_bit(i, true);
        }
    }
    x
}

/// Bits in a search group of [`FirstFrom`] (the first stage finds the first hit within each group).
const GROUP: usize = 16;

fn check_width(n: usize, l: usize) {
    assert!(
        n >= 2 * GROUP && n.is_power_of_two() && 1usize << l == n,
        "bitscan: N must be a power of two >= 32 and L = log2 N"
    );
}

/// Find-first: the first bit at or after `start` that is set (`zero` = 0) or clear (`zero` = 1), optionally
/// continuing circularly from bit 0 (`wrap` = 1).
///
/// Ports: `word: Bits<N>`, `start: Bits<L>`, `zero`, `wrap` in; `found`, `index: Bits<L>` (the bit's index,
/// 0 when not found) and `skipped: Bits<L>` (`(index - start) mod N`: how many bits were skipped) out, 2 cycles
/// later. `N` is a power of two ≥ 32, `L = log2 N`. The receive window uses it with `zero` = 1 and `wrap` = 1
/// to count the consecutively received PSNs from rcv_nxt (`skipped`, or N when `found` is 0).
///
/// Stage 1 computes, for every 16-bit group, whether it holds a hit at or after `start` and where the first one
/// is, and the same without the `start` bound (for the circular part); stage 2 picks the first group.
#[derive(LogicBlock)]
pub struct FirstFrom<const N: usize, const L: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Clock enable: the stages advance only in cycles with `en` = 1 (tie to 1 for a free-running pipeline).
    pub en: Signal<In, Bit>,
    /// The word searched.
    pub word: Signal<In, Bits<N>>,
    /// First index searched.
    pub start: Signal<In, Bits<L>>,
    /// Search for a clear bit (else a set bit).
    pub zero: Signal<In, Bit>,
    /// Continue at bit 0 after bit N-1, up to `start - 1`.
    pub wrap: Signal<In, Bit>,
    /// A bit was found (2 cycles after the inputs).
    pub found: Signal<Out, Bit>,
    /// Its index (0 when not found).
    pub index: Signal<Out, Bits<L>>,
    /// `(index - start) mod N` (meaningful when `found`).
    pub skipped: Signal<Out, Bits<L>>,
    _stage1: (bool, usize, usize),
}

impl<const N: usize, const L: usize> Default for FirstFrom<N, L> {
    fn default() -> Self {
        check_width(N, L);
        FirstFrom {
            clk: Default::default(),
            en: Default::default(),
            word: Default::default(),
            start: Default::default(),
            zero: Default::default(),
            wrap: Default::default(),
            found: Default::default(),
            index: Default::default(),
            skipped: Default::default(),
            _stage1: (false, 0, 0),
        }
    }
}

impl<const N: usize, const L: usize> Logic for FirstFrom<N, L> {
    fn update(&mut self) {
        if self.clk.pos_edge() && self.en.val() {
            let (found, index, start) = self._stage1;
            self.found.next = found;
            self.index.next = (index as u64).into();
            self.skipped.next = (((index + N - start) % N) as u64).into();
            let start = self.start.val().index();
            let r = first_from(
                &to_vec(self.word.val()),
                start,
                self.zero.val(),
                self.wrap.val(),
            );
            self._stage1 = (r.is_some(), r.unwrap_or(0), start);
        }
    }

    fn connect(&mut self) {
        self.found.connect();
        self.index.connect();
        self.skipped.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(first_from_verilog(N, L))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "first_from".into(),
            clock: "clk".into(),
            inputs: vec!["word".into(), "start".into(), "zero".into(), "wrap".into()],
            outputs: vec!["found".into(), "index".into(), "skipped".into()],
        }]
    }
}

/// A priority chain: `sel[0] ? v0 : sel[1] ? v1 : ... : dflt`.
fn chain(terms: &[(String, String)], dflt: &str) -> String {
    let mut s = String::new();
    for (c, v) in terms {
        s.push_str(&format!("{c} ? {v} : "));
    }
    s.push_str(dflt);
    s
}

fn first_from_verilog(n: usize, l: usize) -> String {
    let ng = n / GROUP;
    let gb = l - 4; // group-index bits
    let mut v = String::new();
    v.push_str(&format!(
        "// stage 1: per 16-bit group, the first hit at or after start (hi) and the first hit at all (all)\n\
         wire [{nm}:0] x = zero ? ~word : word;\n\
         wire [{nm}:0] ge;\n\
         wire [{nm}:0] xm = x & ge;\n\
         reg [{gm}:0] any_hi;\nreg [{gm}:0] any_all;\n\
         reg [{im}:0] idx_hi;\nreg [{im}:0] idx_all;\n\
         reg wrap_q;\nreg [{lm}:0] start_q;\n",
        nm = n - 1,
        gm = ng - 1,
        im = 4 * ng - 1,
        lm = l - 1,
    ));
    for i in 0..n - 1 {
        v.push_str(&format!("assign ge[{i}] = start <= {l}'d{i};\n"));
    }
    v.push_str(&format!("assign ge[{}] = 1'b1;\n", n - 1));
    v.push_str("always @(posedge clk) if (en) begin\n   wrap_q <= wrap;\n   start_q <= start;\n");
    for g in 0..ng {
        let lo = g * GROUP;
        let hi = lo + GROUP - 1;
        v.push_str(&format!(
            "   any_hi[{g}] <= |xm[{hi}:{lo}];\n   any_all[{g}] <= |x[{hi}:{lo}];\n"
        ));
        for (name, src) in [("idx_hi", "xm"), ("idx_all", "x")] {
            let terms: Vec<(String, String)> = (0..GROUP)
                .map(|b| (format!("{src}[{}]", lo + b), format!("4'd{b}")))
                .collect();
            v.push_str(&format!(
                "   {name}[{}:{}] <= {};\n",
                4 * g + 3,
                4 * g,
                chain(&terms, "4'd0")
            ));
        }
    }
    v.push_str("end\n");
    // stage 2: the first group with a bounded hit, else (wrap) the first group with any hit
    let pick = |any: &str, idx: &str| -> String {
        let terms: Vec<(String, String)> = (0..ng)
            .map(|g| {
                (
                    format!("{any}[{g}]"),
                    format!("{{{gb}'d{g}, {idx}[{}:{}]}}", 4 * g + 3, 4 * g),
                )
            })
            .collect();
        chain(&terms, &format!("{l}'d0"))
    };
    v.push_str(&format!(
        "wire [{lm}:0] pos_hi = {};\nwire [{lm}:0] pos_all = {};\n\
         wire hit_hi = |any_hi;\nwire hit_all = wrap_q & (|any_all);\n\
         wire [{lm}:0] pos = hit_hi ? pos_hi : (hit_all ? pos_all : {l}'d0);\n\
         always @(posedge clk) if (en) begin\n   found <= hit_hi | hit_all;\n   index <= pos;\n   skipped <= pos - start_q;\nend\n",
        pick("any_hi", "idx_hi"),
        pick("any_all", "idx_all"),
        lm = l - 1,
    ));
    v
}

/// Population count of an N-bit word: `count = popcount(word)`, 2 cycles later (stage 1 counts each 16-bit
/// group, stage 2 adds the group counts). `L1 = log2 N + 1` (N a power of two ≥ 32).
#[derive(LogicBlock)]
pub struct PopCount<const N: usize, const L1: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Clock enable: the stages advance only in cycles with `en` = 1 (tie to 1 for a free-running pipeline).
    pub en: Signal<In, Bit>,
    /// The word.
    pub word: Signal<In, Bits<N>>,
    /// Number of set bits of `word` two cycles earlier.
    pub count: Signal<Out, Bits<L1>>,
    _stage1: usize,
}

impl<const N: usize, const L1: usize> Default for PopCount<N, L1> {
    fn default() -> Self {
        check_width(N, L1 - 1);
        PopCount {
            clk: Default::default(),
            en: Default::default(),
            word: Default::default(),
            count: Default::default(),
            _stage1: 0,
        }
    }
}

impl<const N: usize, const L1: usize> Logic for PopCount<N, L1> {
    fn update(&mut self) {
        if self.clk.pos_edge() && self.en.val() {
            self.count.next = (self._stage1 as u64).into();
            self._stage1 = popcount(&to_vec(self.word.val()));
        }
    }

    fn connect(&mut self) {
        self.count.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(popcount_verilog(N, L1))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "popcount".into(),
            clock: "clk".into(),
            inputs: vec!["en".into(), "word".into()],
            outputs: vec!["count".into()],
        }]
    }
}

fn popcount_verilog(n: usize, l1: usize) -> String {
    let ng = n / GROUP;
    let mut v = String::new();
    v.push_str(&format!(
        "// stage 1: 5-bit count of each 16-bit group; stage 2: sum of the group counts\n\
         reg [{}:0] gc;\n",
        5 * ng - 1
    ));
    v.push_str("always @(posedge clk) if (en) begin\n");
    for g in 0..ng {
        let terms: Vec<String> = (0..GROUP)
            .map(|b| format!("{{4'd0, word[{}]}}", g * GROUP + b))
            .collect();
        v.push_str(&format!(
            "   gc[{}:{}] <= {};\n",
            5 * g + 4,
            5 * g,
            terms.join(" + ")
        ));
    }
    let sum: Vec<String> = (0..ng)
        .map(|g| format!("{{{}'d0, gc[{}:{}]}}", l1 - 5, 5 * g + 4, 5 * g))
        .collect();
    v.push_str(&format!("   count <= {};\nend\n", sum.join(" + ")));
    v
}

/// Variable rotation of an N-bit word towards bit 0: `out[i] = word[(i + amount) mod N]`, registered (1 cycle).
/// The acknowledgement generator uses it to turn the circular receive bitmap (bit `psn mod 256`) into a SACK
/// bitmap relative to `sack_base` (MR-WIRE-33). `L = log2 N`.
#[derive(LogicBlock)]
pub struct Rotate<const N: usize, const L: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Clock enable: the stages advance only in cycles with `en` = 1 (tie to 1 for a free-running pipeline).
    pub en: Signal<In, Bit>,
    /// The word.
    pub word: Signal<In, Bits<N>>,
    /// Rotation amount.
    pub amount: Signal<In, Bits<L>>,
    /// The rotated word, one cycle later.
    pub rotated: Signal<Out, Bits<N>>,
}

impl<const N: usize, const L: usize> Default for Rotate<N, L> {
    fn default() -> Self {
        check_width(N, L);
        Rotate {
            clk: Default::default(),
            en: Default::default(),
            word: Default::default(),
            amount: Default::default(),
            rotated: Default::default(),
        }
    }
}

impl<const N: usize, const L: usize> Logic for Rotate<N, L> {
    fn update(&mut self) {
        if self.clk.pos_edge() && self.en.val() {
            self.rotated.next = from_vec(&rotate_right(
                &to_vec(self.word.val()),
                self.amount.val().index(),
            ));
        }
    }

    fn connect(&mut self) {
        self.rotated.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(rotate_verilog(N, L))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "rotate".into(),
            clock: "clk".into(),
            inputs: vec!["en".into(), "word".into(), "amount".into()],
            outputs: vec!["rotated".into()],
        }]
    }
}

fn rotate_verilog(n: usize, l: usize) -> String {
    let nm = n - 1;
    let mut v = String::from("// a barrel rotator: step k rotates by 2^k when amount[k] is set\n");
    v.push_str(&format!("wire [{nm}:0] r0 = word;\n"));
    for k in 0..l {
        let s = 1usize << k;
        v.push_str(&format!(
            "wire [{nm}:0] r{k1} = amount[{k}] ? {{r{k}[{sm}:0], r{k}[{nm}:{s}]}} : r{k};\n",
            k1 = k + 1,
            sm = s - 1,
        ));
    }
    v.push_str(&format!(
        "always @(posedge clk) if (en) begin\n   rotated <= r{l};\nend\n"
    ));
    v
}

/// The bit-scanning blocks at the receive-bitmap width (256).
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![
        crate::blocks::BlockSpec {
            name: "metaroce_common_first_from",
            area: "common",
            description:
                "find the first set/clear bit at or after an index in a 256-bit word (2 stages)",
            verilog: |_cfg| {
                crate::gen::verilog("metaroce_common_first_from", FirstFrom::<256, 8>::default())
            },
        },
        crate::blocks::BlockSpec {
            name: "metaroce_common_popcount",
            area: "common",
            description: "population count of a 256-bit word (2 stages)",
            verilog: |_cfg| {
                crate::gen::verilog("metaroce_common_popcount", PopCount::<256, 9>::default())
            },
        },
        crate::blocks::BlockSpec {
            name: "metaroce_common_rotate",
            area: "common",
            description: "variable rotation of a 256-bit word (1 stage)",
            verilog: |_cfg| {
                crate::gen::verilog("metaroce_common_rotate", Rotate::<256, 8>::default())
            },
        },
    ]
}
