//! The receive window of every connection (spec 4.3, MR-REL-9..13): `rcv_nxt` (the CACK) and a circular
//! 256-bit bitmap in block RAM, bit `psn mod 256` = PSN `psn` of `[rcv_nxt, rcv_nxt + 256)` received.
//!
//! Hardware window: W = 256 packets per connection (`wlog` 8, MR-REL-7); a peer announcing a larger `wlog`
//! (MR-REL-8) is served with 256 (a named limitation: PSNs at `rcv_nxt + 256` and beyond are beyond the window).
//!
//! **Per packet.** A *candidate* is an untrimmed DATA packet that passed the connection lookup (`drop` is 0, or
//! ACCESS / INVALID set by the memory-region and message checks upstream, or DUPLICATE / OUT_OF_WINDOW set by
//! the pre-classification below). With `d = psn - rcv_nxt` (mod 2^32),
//! exactly as `metaroce_proto::transport::bitmap::RecvWindow::classify`:
//! * `d >= 2^31` (serially before `rcv_nxt`) or the bit is set: **duplicate** (MR-REL-10): `drop` =
//!   `DUPLICATE`, any NACK verdict from upstream is cleared (the reference model classifies first);
//! * `256 <= d < 2^31`: **beyond the window** (MR-REL-11): `drop` = `OUT_OF_WINDOW`, verdict cleared;
//! * otherwise new: it is **accepted** iff upstream set no NACK and no drop (MR-REL-12, MR-REL-13: the bit is set
//!   only after the placement checks passed): its bit is set, and when `d = 0` (in order) `rcv_nxt` advances past
//!   every consecutively received PSN (a circular find-first-zero from `rcv_nxt mod 256`) and the bits it
//!   passes are cleared, so that the ring is clean for the PSNs 256 further on.
//!
//! Other packets pass unchanged; CTRL packets of a live connection read the window (for the ACK answering a
//! PROBE or OPEN). The output's [`WinInfo`] carries the decision, the CACK after the packet and the bitmap after
//! the packet (circular; the acknowledgement generator rotates it, MR-WIRE-33/34).
//!
//! **Pipeline and hazards.** S0 reads the RAM, S1 classifies, sets the bit (for every new PSN that passes the
//! checks, without waiting for the bit test: a duplicate's bit is already set) and forms the search bound (the
//! thermometer of `rcv_nxt mod 256`, [`AtOrAfter`]), S2-S3 find the first clear bit ([`RunScan`], 2 stages), S4
//! advances `rcv_nxt`, clears the passed bits and writes the RAM (and fills the output register). All stages advance together when the output register is free (a stall holds every stage,
//! the scanner through its clock enable). Read-modify-write hazard rule: a packet that uses a connection's
//! state is not taken while a candidate of the same connection is in S1..S4 (its write at the end of S4 is
//! visible to a read issued one cycle later); it waits, and the read then sees every earlier update. So
//! packets of different connections flow at one per cycle, back-to-back packets of one connection at one per 5
//! cycles (a 64-byte-payload packet takes 2 beats of the 512-bit datapath, so one connection alone still
//! reaches 40% of line rate with minimum-size DATA and full rate from ~320-byte payloads).
//!
//! **Pre-classification** (`s_axis_pre_*` → `m_axis_pre_*`, before the message-level checks). The reference
//! model classifies a DATA packet (`RecvWindow::classify`) before anything touches the message table, so a
//! duplicate or a PSN beyond the window must reach the checks already marked. This read-only path classifies
//! every untrimmed DATA packet with `drop` 0 exactly as S1 will and sets `drop` = DUPLICATE / OUT_OF_WINDOW;
//! the checks and the completion stage pass such a packet unchanged, and S1 classifies it again (same result:
//! it never accepts it; its `WinInfo.dup` / `oow` feed the ACK generator as before). It reads its own copy of
//! the window RAM, written with the same data in the same cycles (opens included). Stages: a two-entry input
//! queue (registered `tready`), PB (the word read when the packet enters PB; the comparisons), the output
//! register. Exactness: the word read may miss the updates of earlier packets between the pre-classification
//! and S4's write; those packets are held in order in an [`InFlight`] ring (every packet from its entry into PB
//! until one cycle after it left S4, when its write is visible to the read; PB's own entry is left out of its
//! query), each marked *new* when it is a candidate. The word's verdict is final for those packets' effects
//! can only set bits and advance `rcv_nxt` by at most 256 (the in-flight PSNs were all inside the window of an
//! older word): a duplicate stays a duplicate, a new PSN stays new unless an in-flight candidate of the
//! connection has the same PSN. So PB waits (re-reading the word each cycle) while an in-flight candidate of
//! its connection has its PSN, or has any PSN when the word says beyond the window or within 256 past half
//! the PSN space behind (the earlier packet's acceptance may move it into the window or beyond it); a
//! candidate that turns out a duplicate or beyond the window only makes such waits longer, never a verdict
//! different. Such waits need a duplicate or an out-of-window PSN while an earlier packet of the connection is
//! in flight. The queue advances into PB (and the ring) only when PB is empty or its packet leaves whatever
//! the word says (no in-flight candidate of its connection), so the ring's writes, the queue's advance and the
//! RAM's read address do not wait for the word's test; a packet following one of its own connection still in
//! flight enters a cycle later: one packet per cycle across connections, one per 2 cycles within one (the
//! window itself takes one per 5; the ring holds [`INFLIGHT`] packets, enough to cover the window's latency at
//! full rate; the message-level checks between keep fewer). Every packet sent on `m_axis_pre_*` must come back
//! on `s_axis_pkt_*`, in order, with nothing else in between.
//!
//! **Ports.** `s_axis_pre_{tdata: PktMeta, tvalid, tready}` → `m_axis_pre_*` (latency 3 cycles);
//! `s_axis_pkt_{tdata: PktMeta, tuser: NackReq, tvalid, tready}` → `m_axis_pkt_{tdata: PktMeta,
//! tuser: WinInfo, tvalid, tready}`; `s_axis_open_*` (`ConnOpen`: `rcv_nxt` = `peer_isn`, bitmap cleared;
//! taken in cycles without a pipeline write). Latency 6 cycles. Construct with [`PsnWindow::new`]`(conn_bits)`.

// `LogicStruct` generates public accessor methods without docs; the records and their fields are documented.
#![allow(missing_docs)]

use crate::common::ram::SdpRam;
use crate::common::zext::Zext;
use crate::records::PktMeta;
use crate::rel::records::ConnOpen;
use crate::rx::drop;
use metaroce_proto::wire::PacketType;
use rust_hdl::prelude::*;

/// Upstream verdict on a packet: answer it with a NACK (`code`, `aux`) instead of accepting it.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct NackReq {
    /// Send a NACK; do not accept.
    pub nack: Bit,
    /// NACK code.
    pub code: Bits<8>,
    /// NACK aux.
    pub aux: Bits<32>,
}

/// The window's decision on a packet and the window after it.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct WinInfo {
    /// The packet passed the connection lookup (`conn` is valid).
    pub conn_ok: Bit,
    /// Upstream NACK verdict (cleared for duplicates and packets beyond the window).
    pub nack: Bit,
    /// Its code.
    pub code: Bits<8>,
    /// Its aux.
    pub aux: Bits<32>,
    /// A candidate (untrimmed DATA of a live connection) that was classified.
    pub cand: Bit,
    /// Accepted: the bit was set (payload to be placed).
    pub accepted: Bit,
    /// Accepted with `psn == rcv_nxt` (in order).
    pub in_order: Bit,
    /// Duplicate (MR-REL-10).
    pub dup: Bit,
    /// Beyond the window (MR-REL-11).
    pub oow: Bit,
    /// `rcv_nxt` after the packet (the CACK).
    pub cack: Bits<32>,
    /// The circular bitmap after the packet (bit `p mod 256` for PSN p in `[cack, cack + 256)`).
    pub bitmap: Bits<256>,
}

/// One connection's window as stored.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct WinEntry {
    /// Next expected PSN.
    pub rcv_nxt: Bits<32>,
    /// Circular bitmap.
    pub bm: Bits<256>,
}

/// Bit test and set on a 256-bit word: `hit = word[idx]`, `word_set = word | (set << idx)`. Combinational.
#[derive(LogicBlock, Default)]
pub struct BitTestSet {
    /// The word.
    pub word: Signal<In, Bits<256>>,
    /// Bit index.
    pub idx: Signal<In, Bits<8>>,
    /// Set the bit.
    pub set: Signal<In, Bit>,
    /// `word[idx]`.
    pub hit: Signal<Out, Bit>,
    /// The word with the bit set when `set`.
    pub word_set: Signal<Out, Bits<256>>,
}

impl Logic for BitTestSet {
    fn update(&mut self) {
        let w = self.word.val();
        let i = self.idx.val().index();
        self.hit.next = w.get_bit(i);
        self.word_set.next = if self.set.val() {
            w.replace_bit(i, true)
        } else {
            w
        };
    }
    fn connect(&mut self) {
        self.hit.connect();
        self.word_set.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::from("always @(*) begin\n   hit = word[idx];\n");
        for i in 0..256 {
            v.push_str(&format!(
                "   word_set[{i}] = word[{i}] | (set & (idx == 8'd{i}));\n"
            ));
        }
        v.push_str("end\n");
        Verilog::Custom(v)
    }
}

/// Clears the `len` bits starting at `start`, circularly: bit i is cleared iff `(i - start) mod 256 < len`
/// (`len` ≤ 256). Combinational.
#[derive(LogicBlock, Default)]
pub struct RunClear {
    /// The word.
    pub word: Signal<In, Bits<256>>,
    /// First bit cleared.
    pub start: Signal<In, Bits<8>>,
    /// Number of bits cleared (0..=256).
    pub len: Signal<In, Bits<9>>,
    /// The result.
    pub cleared: Signal<Out, Bits<256>>,
}

impl Logic for RunClear {
    fn update(&mut self) {
        let w = self.word.val();
        let s = self.start.val().index();
        let n = self.len.val().index();
        let mut out = w;
        for k in 0..n.min(256) {
            out = out.replace_bit((s + k) % 256, false);
        }
        self.cleared.next = out;
    }
    fn connect(&mut self) {
        self.cleared.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::from(
            "// offset of bit i from start, mod 256, compared with len\nwire [7:0] off [0:255];\n",
        );
        for i in 0..256 {
            v.push_str(&format!("assign off[{i}] = 8'd{i} - start;\n"));
        }
        v.push_str("always @(*) begin\n");
        for i in 0..256 {
            v.push_str(&format!(
                "   cleared[{i}] = word[{i}] & ({{1'b0, off[{i}]}} >= len);\n"
            ));
        }
        v.push_str("end\n");
        Verilog::Custom(v)
    }
}

/// The thermometer of a bit index: `ge[i] = (start <= i)` for the 256 bits. Combinational.
#[derive(LogicBlock, Default)]
pub struct AtOrAfter {
    /// Bit index.
    pub start: Signal<In, Bits<8>>,
    /// Bit i set iff `start <= i`.
    pub ge: Signal<Out, Bits<256>>,
}

impl Logic for AtOrAfter {
    fn update(&mut self) {
        let s = self.start.val().index();
        let mut g = Bits::<256>::default();
        for i in s..256 {
            g = g.replace_bit(i, true);
        }
        self.ge.next = g;
    }
    fn connect(&mut self) {
        self.ge.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::from("always @(*) begin\n");
        for i in 0..255 {
            v.push_str(&format!("   ge[{i}] = start <= 8'd{i};\n"));
        }
        v.push_str("   ge[255] = 1'b1;\nend\n");
        Verilog::Custom(v)
    }
}

/// Bits in a search group of [`RunScan`].
const RUN_GROUP: usize = 16;

/// The circular search of the window's run of received PSNs: the first clear bit of `word` at or after
/// `start`, else (circularly) the first clear bit at all; `found` and `skipped` = `(index - start) mod 256`,
/// 2 enabled cycles later. Like [`crate::common::bitscan::FirstFrom`] with `zero` = `wrap` = 1, but the
/// bound is the caller's registered thermometer `ge` ([`AtOrAfter`] of `start`, computed a stage earlier), so
/// the first stage is only the per-group priority encoders. Stage 1: per 16-bit group, the first clear bit at
/// or after `start` and the first at all, each as its distance from `start`; stage 2: the first group's
/// distance (a select, no arithmetic after it).
#[derive(LogicBlock, Default)]
pub struct RunScan {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Clock enable: the stages advance only in cycles with `en` = 1.
    pub en: Signal<In, Bit>,
    /// The word searched (for a clear bit).
    pub word: Signal<In, Bits<256>>,
    /// `ge[i] = (start <= i)`.
    pub ge: Signal<In, Bits<256>>,
    /// First index searched.
    pub start: Signal<In, Bits<8>>,
    /// A clear bit was found.
    pub found: Signal<Out, Bit>,
    /// `(index - start) mod 256` of the bit found.
    pub skipped: Signal<Out, Bits<8>>,
    _stage1: (bool, usize, usize),
}

impl Logic for RunScan {
    fn update(&mut self) {
        if self.clk.pos_edge() && self.en.val() {
            let (found, index, start) = self._stage1;
            self.found.next = found;
            self.skipped.next = (((index + 256 - start) % 256) as u64).into();
            let w = self.word.val();
            let g = self.ge.val();
            let hi = (0..256).find(|&i| !w.get_bit(i) && g.get_bit(i));
            let r = hi.or_else(|| (0..256).find(|&i| !w.get_bit(i)));
            self._stage1 = (r.is_some(), r.unwrap_or(0), self.start.val().index());
        }
    }
    fn connect(&mut self) {
        self.found.connect();
        self.skipped.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(run_scan_verilog())
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "run_scan".into(),
            clock: "clk".into(),
            inputs: vec!["word".into(), "ge".into(), "start".into()],
            outputs: vec!["found".into(), "skipped".into()],
        }]
    }
}

fn run_scan_verilog() -> String {
    let ng = 256 / RUN_GROUP;
    let mut v = String::from(
        "// the index of the first set bit of 16 (15 when none of bits 0..14 is set, so bit 15 is not needed):\n\
         // the first quad holding one, then the first bit in it\n\
         function [3:0] first16;\n   input [14:0] y;\n   reg [2:0] a;\n   reg [7:0] q;\n   begin\n\
         \x20     a = {|y[11:8], |y[7:4], |y[3:0]};\n\
         \x20     q[1:0] = {~y[0] & ~y[1], ~y[0] & (y[1] | ~y[2])};\n\
         \x20     q[3:2] = {~y[4] & ~y[5], ~y[4] & (y[5] | ~y[6])};\n\
         \x20     q[5:4] = {~y[8] & ~y[9], ~y[8] & (y[9] | ~y[10])};\n\
         \x20     q[7:6] = {~y[12] & ~y[13], ~y[12] & (y[13] | ~y[14])};\n\
         \x20     first16[3:2] = {~a[0] & ~a[1], ~a[0] & (a[1] | ~a[2])};\n\
         \x20     first16[1:0] = a[0] ? q[1:0] : (a[1] ? q[3:2] : (a[2] ? q[5:4] : q[7:6]));\n\
         \x20  end\n\
         endfunction\n\
         // stage 1: per 16-bit group, the first clear bit at or after start (hi) and the first at all (all), as\n\
         // its distance from start: `(16 g + index in the group - start) mod 256`, so that stage 2 only selects\n\
         wire [255:0] x = ~word;\nwire [255:0] xm = x & ge;\n\
         reg [15:0] any_hi;\nreg [15:0] any_all;\nreg [127:0] sk_hi;\nreg [127:0] sk_all;\n\
         always @(posedge clk) if (en) begin\n",
    );
    for g in 0..ng {
        let lo = g * RUN_GROUP;
        let hi = lo + RUN_GROUP - 1;
        v.push_str(&format!(
            "   any_hi[{g}] <= |xm[{hi}:{lo}];\n   any_all[{g}] <= |x[{hi}:{lo}];\n"
        ));
        for (name, src) in [("sk_hi", "xm"), ("sk_all", "x")] {
            v.push_str(&format!(
                "   {name}[{}:{}] <= {{4'd{g}, first16({src}[{}:{lo}])}} - start;\n",
                8 * g + 7,
                8 * g,
                hi - 1
            ));
        }
    }
    v.push_str("end\n");
    // stage 2: the first group (one-hot) with a bounded hit, else the first group with any hit; its distance
    for k in ["hi", "all"] {
        v.push_str(&format!(
            "wire [15:0] pre_{k};\nassign pre_{k}[0] = 1'b0;\n"
        ));
        for g in 1..ng {
            v.push_str(&format!("assign pre_{k}[{g}] = |any_{k}[{}:0];\n", g - 1));
        }
        v.push_str(&format!(
            "wire [15:0] oh_{k} = any_{k} & ~pre_{k};\nwire [7:0] d_{k};\n"
        ));
        for b in 0..8 {
            let terms: Vec<String> = (0..ng)
                .map(|g| format!("(oh_{k}[{g}] & sk_{k}[{}])", 8 * g + b))
                .collect();
            v.push_str(&format!("assign d_{k}[{b}] = {};\n", terms.join(" | ")));
        }
    }
    v.push_str(
        "wire hit_hi = |any_hi;\nwire hit_all = |any_all;\n\
         always @(posedge clk) if (en) begin\n   found <= hit_hi | hit_all;\n   skipped <= hit_hi ? d_hi : d_all;\nend\n",
    );
    v
}

/// One bit of a 256-bit word: `hit = word[idx]`. Combinational.
#[derive(LogicBlock, Default)]
pub struct BitSel {
    /// The word.
    pub word: Signal<In, Bits<256>>,
    /// Bit index.
    pub idx: Signal<In, Bits<8>>,
    /// `word[idx]`.
    pub hit: Signal<Out, Bit>,
}

impl Logic for BitSel {
    fn update(&mut self) {
        self.hit.next = self.word.val().get_bit(self.idx.val().index());
    }
    fn connect(&mut self) {
        self.hit.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom("always @(*) hit = word[idx];\n".into())
    }
}

/// Entries of [`InFlight`]: packets between the pre-classification and the window's write.
pub const INFLIGHT: usize = 16;

/// The packets between the window's pre-classification and its write stage, in order (a ring of
/// [`INFLIGHT`] entries `{ conn, psn, new }`): `push` appends one (when not `full`), `pop` removes the oldest
/// (ignored when empty). `hit_conn` = some entry marked `new` has connection `q_conn`; `hit_psn` = some entry
/// marked `new` has `q_conn` and PSN `q_psn`; with `skip_last`, the entry appended last is left out of both
/// (the caller's own packet, appended when it became the query).
///
/// The query is a register of the caller whose next value is either itself or `nq_*` (`nq_take`): the
/// entries' connection and PSN are compared in the previous cycle with both candidates (and the entry a push
/// writes with both), and the registered results are selected, so the outputs are a few levels from
/// registers instead of an equality compare and a 16-input OR behind the query (the caller's decision on
/// them is deep already). The caller must keep that contract: `q_*` in a cycle is `nq_*` of the cycle
/// before if `nq_take` was set then, else `q_*` of the cycle before.
#[derive(LogicBlock, Default)]
pub struct InFlight {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset (empties the ring).
    pub rst: Signal<In, Bit>,
    /// Append an entry.
    pub push: Signal<In, Bit>,
    /// Its connection (RAM index).
    pub push_conn: Signal<In, Bits<16>>,
    /// Its PSN.
    pub push_psn: Signal<In, Bits<32>>,
    /// It is marked `new` (the window: a candidate).
    pub push_new: Signal<In, Bit>,
    /// Leave the entry appended last out of the query.
    pub skip_last: Signal<In, Bit>,
    /// Remove the oldest entry.
    pub pop: Signal<In, Bit>,
    /// Connection asked about.
    pub q_conn: Signal<In, Bits<16>>,
    /// PSN asked about.
    pub q_psn: Signal<In, Bits<32>>,
    /// The query of the next cycle is `nq_*` (else it stays).
    pub nq_take: Signal<In, Bit>,
    /// Next query's connection, when `nq_take`.
    pub nq_conn: Signal<In, Bits<16>>,
    /// Next query's PSN, when `nq_take`.
    pub nq_psn: Signal<In, Bits<32>>,
    /// A `new` entry of `q_conn`.
    pub hit_conn: Signal<Out, Bit>,
    /// A `new` entry of `q_conn` with PSN `q_psn`.
    pub hit_psn: Signal<Out, Bit>,
    /// No free entry.
    pub full: Signal<Out, Bit>,
    _e: [(bool, u64, u64, bool); INFLIGHT],
    _wp: usize,
    _rp: usize,
    /// The entry appended last.
    _last: Option<usize>,
    /// The query the contract expects in the coming cycle (checked by this simulation model).
    _next_q: Option<(u64, u64)>,
}

impl Logic for InFlight {
    fn update(&mut self) {
        if self.clk.pos_edge() {
            // The query contract of the Verilog's registered comparisons (see the type's docs).
            let q = (self.q_conn.val().to_u64(), self.q_psn.val().to_u64());
            if let Some(expected) = self._next_q {
                assert_eq!(
                    q, expected,
                    "InFlight: the query broke the nq_take contract"
                );
            }
            self._next_q = Some(if self.nq_take.val() {
                (self.nq_conn.val().to_u64(), self.nq_psn.val().to_u64())
            } else {
                q
            });
            if self.rst.val() {
                self._e = [(false, 0, 0, false); INFLIGHT];
                self._wp = 0;
                self._rp = 0;
                self._last = None;
            } else {
                // both decided on the entries before the edge (as the Verilog's non-blocking writes)
                let push = self.push.val() && !self._e[self._wp].0;
                if self.pop.val() && self._e[self._rp].0 {
                    self._e[self._rp].0 = false;
                    self._rp = (self._rp + 1) % INFLIGHT;
                }
                if push {
                    self._e[self._wp] = (
                        true,
                        self.push_conn.val().to_u64(),
                        self.push_psn.val().to_u64(),
                        self.push_new.val(),
                    );
                    self._last = Some(self._wp);
                    self._wp = (self._wp + 1) % INFLIGHT;
                }
            }
        }
        let qc = self.q_conn.val().to_u64();
        let qp = self.q_psn.val().to_u64();
        let skip = if self.skip_last.val() {
            self._last
        } else {
            None
        };
        let live = |i: usize| Some(i) != skip;
        let m = |e: &(bool, u64, u64, bool)| e.0 && e.3 && e.1 == qc;
        self.hit_conn.next = (0..INFLIGHT).any(|i| live(i) && m(&self._e[i]));
        self.hit_psn.next = (0..INFLIGHT).any(|i| live(i) && m(&self._e[i]) && self._e[i].2 == qp);
        self.full.next = self._e[self._wp].0;
    }
    fn connect(&mut self) {
        self.hit_conn.connect();
        self.hit_psn.connect();
        self.full.connect();
    }
    fn hdl(&self) -> Verilog {
        let n = INFLIGHT;
        let pb = n.trailing_zeros();
        // ceq_h / peq_h: entry i against the query if it stays; ceq_n / peq_n: against `nq_*`; wr: entry i
        // was written by the last push, whose value (the query of its cycle) is compared in pc_n / pp_n
        // (against `nq_*`; it equals a query that stays).
        let mut v = format!(
            "reg [15:0] e_conn [0:{m}];\nreg [31:0] e_psn [0:{m}];\nreg [{m}:0] e_new;\nreg [{m}:0] e_vld;\n\
             reg [{p}:0] wp;\nreg [{p}:0] rp;\nreg [{pb}:0] occ;\nwire [{m}:0] mc;\nwire [{m}:0] mp;\n\
             reg [{m}:0] ceq_h;\nreg [{m}:0] ceq_n;\nreg [{m}:0] peq_h;\nreg [{m}:0] peq_n;\nreg [{m}:0] wr;\nreg [{m}:0] last_oh;\n\
             reg pc_n;\nreg pp_n;\nreg took;\n\
             // the occupancy (0..={n}): full is its highest bit, a register, not the entry at wp through a mux\n\
             wire do_push = push & ~occ[{pb}];\nwire do_pop = pop & (occ != {pb1}'d0);\n\
             always @(posedge clk) begin\n   if (rst) begin\n      e_vld <= {n}'d0;\n      wp <= {pb}'d0;\n\
             \x20     rp <= {pb}'d0;\n      occ <= {pb1}'d0;\n      last_oh <= {n}'d0;\n   end else begin\n      if (do_pop) begin\n\
             \x20        e_vld[rp] <= 1'b0;\n         rp <= rp + {pb}'d1;\n      end\n\
             \x20     if (do_push & ~do_pop) occ <= occ + {pb1}'d1;\n\
             \x20     if (do_pop & ~do_push) occ <= occ - {pb1}'d1;\n\
             \x20     if (do_push) begin\n         last_oh <= {n}'d1 << wp;\n         e_vld[wp] <= 1'b1;\n         e_new[wp] <= push_new;\n\
             \x20        e_conn[wp] <= push_conn;\n         e_psn[wp] <= push_psn;\n         wp <= wp + {pb}'d1;\n\
             \x20     end\n   end\n\
             \x20  took <= nq_take;\n   pc_n <= push_conn == nq_conn;\n   pp_n <= push_psn == nq_psn;\nend\n",
            m = n - 1,
            p = pb - 1,
            pb1 = pb + 1,
        );
        for i in 0..n {
            v.push_str(&format!(
                "always @(posedge clk) begin\n\
                 \x20  ceq_h[{i}] <= e_conn[{i}] == q_conn;\n   ceq_n[{i}] <= e_conn[{i}] == nq_conn;\n\
                 \x20  peq_h[{i}] <= e_psn[{i}] == q_psn;\n   peq_n[{i}] <= e_psn[{i}] == nq_psn;\n\
                 \x20  wr[{i}] <= do_push & (wp == {pb}'d{i});\nend\n\
                 assign mc[{i}] = e_vld[{i}] & e_new[{i}] & ~(skip_last & last_oh[{i}]) & (wr[{i}] ? (~took | pc_n) : (took ? ceq_n[{i}] : ceq_h[{i}]));\n\
                 assign mp[{i}] = mc[{i}] & (wr[{i}] ? (~took | pp_n) : (took ? peq_n[{i}] : peq_h[{i}]));\n"
            ));
        }
        v.push_str(&format!(
            "always @(*) begin\n   hit_conn = |mc;\n   hit_psn = |mp;\n   full = occ[{pb}];\nend\n"
        ));
        Verilog::Custom(v)
    }
}

/// The receive window (see the module docs).
#[derive(LogicBlock)]
pub struct PsnWindow {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// Connection opens.
    pub s_axis_open_tdata: Signal<In, ConnOpen>,
    /// Valid.
    pub s_axis_open_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_open_tready: Signal<Out, Bit>,
    /// Packets in.
    pub s_axis_pkt_tdata: Signal<In, PktMeta>,
    /// Upstream verdict.
    pub s_axis_pkt_tuser: Signal<In, NackReq>,
    /// Valid.
    pub s_axis_pkt_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_pkt_tready: Signal<Out, Bit>,
    /// Packets out (`drop` = DUPLICATE / OUT_OF_WINDOW when so classified).
    pub m_axis_pkt_tdata: Signal<Out, PktMeta>,
    /// Decision and window.
    pub m_axis_pkt_tuser: Signal<Out, WinInfo>,
    /// Valid.
    pub m_axis_pkt_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_pkt_tready: Signal<In, Bit>,
    /// Packets to pre-classify (before the checks).
    pub s_axis_pre_tdata: Signal<In, PktMeta>,
    /// Valid.
    pub s_axis_pre_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_pre_tready: Signal<Out, Bit>,
    /// Pre-classified packets (`drop` = DUPLICATE / OUT_OF_WINDOW when so classified), to the checks.
    pub m_axis_pre_tdata: Signal<Out, PktMeta>,
    /// Valid.
    pub m_axis_pre_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_pre_tready: Signal<In, Bit>,
    ram: SdpRam<WinEntry, 16>,
    ram2: SdpRam<WinEntry, 16>,
    bsel: BitSel,
    infl: InFlight,
    // pre-classification: input queue (head, skid), classify stage, output register
    qa_v: DFF<Bit>,
    qa_p: DFF<PktMeta>,
    qb_v: DFF<Bit>,
    qb_p: DFF<PktMeta>,
    pb_v: DFF<Bit>,
    pb_p: DFF<PktMeta>,
    pb_cand: DFF<Bit>,
    pb_hm: DFF<Bits<24>>,
    po_v: DFF<Bit>,
    po_p: DFF<PktMeta>,
    pop_d: DFF<Bit>,
    pre_take: Signal<Local, Bit>,
    e2: Signal<Local, WinEntry>,
    pd: Signal<Local, Bits<32>>,
    pneg: Signal<Local, Bit>,
    pnear: Signal<Local, Bit>,
    prn_hi: Signal<Local, Bits<24>>,
    pps_hi: Signal<Local, Bits<24>>,
    pps_lo: Signal<Local, Bits<8>>,
    prn_lo: Signal<Local, Bits<8>>,
    pax: Signal<Local, Bits<24>>,
    pheq: Signal<Local, Bit>,
    pinw: Signal<Local, Bit>,
    pbeyond: Signal<Local, Bit>,
    pdup: Signal<Local, Bit>,
    poow: Signal<Local, Bit>,
    phold: Signal<Local, Bit>,
    pb_go: Signal<Local, Bit>,
    pb_free: Signal<Local, Bit>,
    pb_sure: Signal<Local, Bit>,
    qa_cand: Signal<Local, Bit>,
    padv: Signal<Local, Bit>,
    ppm: Signal<Local, PktMeta>,
    scan: RunScan,
    thermo: AtOrAfter,
    tset: BitTestSet,
    rclr: RunClear,
    x_skip: Zext<8, 9>,
    x_adv: Zext<9, 32>,
    // pipeline: valid, packet, verdict, candidate / uses-state flags per stage
    v1: DFF<Bit>,
    p1: DFF<PktMeta>,
    hm1: DFF<Bits<24>>,
    n1: DFF<NackReq>,
    ok1: DFF<Bit>,
    cand1: DFF<Bit>,
    hz2: DFF<Bit>,
    hz3: DFF<Bit>,
    hz4: DFF<Bit>,
    v2: DFF<Bit>,
    p2: DFF<PktMeta>,
    w2: DFF<WinInfo>,
    ge2: DFF<Bits<256>>,
    v3: DFF<Bit>,
    p3: DFF<PktMeta>,
    w3: DFF<WinInfo>,
    v4: DFF<Bit>,
    p4: DFF<PktMeta>,
    w4: DFF<WinInfo>,
    ov: DFF<Bit>,
    op: DFF<PktMeta>,
    ow: DFF<WinInfo>,
    en: Signal<Local, Bit>,
    ip: Signal<Local, PktMeta>,
    iok: Signal<Local, Bit>,
    icand: Signal<Local, Bit>,
    hazard: Signal<Local, Bit>,
    icm: Signal<Local, Bits<16>>,
    take: Signal<Local, Bit>,
    e1: Signal<Local, WinEntry>,
    d1: Signal<Local, Bits<32>>,
    neg1: Signal<Local, Bit>,
    rn_hi1: Signal<Local, Bits<24>>,
    ps_hi1: Signal<Local, Bits<24>>,
    ps_lo1: Signal<Local, Bits<8>>,
    rn_lo1: Signal<Local, Bits<8>>,
    heq1: Signal<Local, Bit>,
    inw1: Signal<Local, Bit>,
    beyond1: Signal<Local, Bit>,
    new1: Signal<Local, Bit>,
    acc1: Signal<Local, Bit>,
    set1: Signal<Local, Bit>,
    wi1: Signal<Local, WinInfo>,
    pm1: Signal<Local, PktMeta>,
    run4: Signal<Local, Bits<9>>,
    adv4: Signal<Local, Bits<9>>,
    wi4: Signal<Local, WinInfo>,
    we4: Signal<Local, Bit>,
    wentry: Signal<Local, WinEntry>,
    oentry: Signal<Local, WinEntry>,
    c_data: Constant<Bits<4>>,
    c_ctrl: Constant<Bits<4>>,
    c_access: Constant<Bits<8>>,
    c_invalid: Constant<Bits<8>>,
    c_dup: Constant<Bits<8>>,
    c_oow: Constant<Bits<8>>,
    c_mask: Constant<Bits<16>>,
    c_w: Constant<Bits<9>>,
    c_z9: Constant<Bits<9>>,
    c_z256: Constant<Bits<256>>,
    c_one24: Constant<Bits<24>>,
}

fn c8(v: u8) -> Constant<Bits<8>> {
    Constant::new((v as u64).into())
}

impl PsnWindow {
    /// A window table of `2^conn_bits` connections (`conn_bits` ≤ 16).
    pub fn new(conn_bits: u32) -> Self {
        assert!((1..=16).contains(&conn_bits));
        let depth = 1usize << conn_bits;
        PsnWindow {
            clk: Default::default(),
            rst: Default::default(),
            s_axis_open_tdata: Default::default(),
            s_axis_open_tvalid: Default::default(),
            s_axis_open_tready: Default::default(),
            s_axis_pkt_tdata: Default::default(),
            s_axis_pkt_tuser: Default::default(),
            s_axis_pkt_tvalid: Default::default(),
            s_axis_pkt_tready: Default::default(),
            m_axis_pkt_tdata: Default::default(),
            m_axis_pkt_tuser: Default::default(),
            m_axis_pkt_tvalid: Default::default(),
            m_axis_pkt_tready: Default::default(),
            s_axis_pre_tdata: Default::default(),
            s_axis_pre_tvalid: Default::default(),
            s_axis_pre_tready: Default::default(),
            m_axis_pre_tdata: Default::default(),
            m_axis_pre_tvalid: Default::default(),
            m_axis_pre_tready: Default::default(),
            ram: SdpRam::new(depth),
            ram2: SdpRam::new(depth),
            bsel: Default::default(),
            infl: Default::default(),
            qa_v: Default::default(),
            qa_p: Default::default(),
            qb_v: Default::default(),
            qb_p: Default::default(),
            pb_v: Default::default(),
            pb_p: Default::default(),
            pb_cand: Default::default(),
            pb_hm: Default::default(),
            pax: Default::default(),
            prn_hi: Default::default(),
            pps_hi: Default::default(),
            pps_lo: Default::default(),
            prn_lo: Default::default(),
            pheq: Default::default(),
            pinw: Default::default(),
            po_v: Default::default(),
            po_p: Default::default(),
            pop_d: Default::default(),
            pre_take: Default::default(),
            e2: Default::default(),
            pd: Default::default(),
            pneg: Default::default(),
            pnear: Default::default(),
            pbeyond: Default::default(),
            pdup: Default::default(),
            poow: Default::default(),
            phold: Default::default(),
            pb_go: Default::default(),
            pb_free: Default::default(),
            pb_sure: Default::default(),
            qa_cand: Default::default(),
            padv: Default::default(),
            ppm: Default::default(),
            scan: Default::default(),
            thermo: Default::default(),
            tset: Default::default(),
            rclr: Default::default(),
            x_skip: Default::default(),
            x_adv: Default::default(),
            v1: Default::default(),
            p1: Default::default(),
            hm1: Default::default(),
            rn_hi1: Default::default(),
            ps_hi1: Default::default(),
            ps_lo1: Default::default(),
            rn_lo1: Default::default(),
            heq1: Default::default(),
            inw1: Default::default(),
            n1: Default::default(),
            ok1: Default::default(),
            cand1: Default::default(),
            hz2: Default::default(),
            hz3: Default::default(),
            hz4: Default::default(),
            v2: Default::default(),
            p2: Default::default(),
            w2: Default::default(),
            ge2: Default::default(),
            v3: Default::default(),
            p3: Default::default(),
            w3: Default::default(),
            v4: Default::default(),
            p4: Default::default(),
            w4: Default::default(),
            ov: Default::default(),
            op: Default::default(),
            ow: Default::default(),
            en: Default::default(),
            ip: Default::default(),
            iok: Default::default(),
            icand: Default::default(),
            hazard: Default::default(),
            icm: Default::default(),
            take: Default::default(),
            e1: Default::default(),
            d1: Default::default(),
            neg1: Default::default(),
            beyond1: Default::default(),
            new1: Default::default(),
            acc1: Default::default(),
            set1: Default::default(),
            wi1: Default::default(),
            pm1: Default::default(),
            run4: Default::default(),
            adv4: Default::default(),
            wi4: Default::default(),
            we4: Default::default(),
            wentry: Default::default(),
            oentry: Default::default(),
            c_data: Constant::new((PacketType::Data as u64).into()),
            c_ctrl: Constant::new((PacketType::Ctrl as u64).into()),
            c_access: c8(drop::ACCESS),
            c_invalid: c8(drop::INVALID),
            c_dup: c8(drop::DUPLICATE),
            c_oow: c8(drop::OUT_OF_WINDOW),
            c_mask: Constant::new(((depth - 1) as u64).into()),
            c_w: Constant::new(256u64.into()),
            c_z9: Constant::new(0u64.into()),
            c_z256: Constant::new(0u64.into()),
            c_one24: Constant::new(1u64.into()),
        }
    }
}

impl Logic for PsnWindow {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, v1, p1, hm1, n1, ok1, cand1, hz2, hz3, hz4, v2, p2, w2, ge2, v3, p3, w3, v4,
            p4, w4, ov, op, ow, qa_v, qa_p, qb_v, qb_p, pb_v, pb_p, pb_cand, pb_hm, po_v, po_p,
            pop_d
        );
        self.ram.clk.next = self.clk.val();
        self.ram2.clk.next = self.clk.val();
        self.infl.clk.next = self.clk.val();
        self.infl.rst.next = self.rst.val();
        self.scan.clk.next = self.clk.val();

        // Every stage advances when the output register is free or drained.
        self.en.next = !self.ov.q.val() | self.m_axis_pkt_tready.val();
        self.scan.en.next = self.en.val();

        // S0: classify the incoming packet's kind; hazard against candidates of the same connection in S1..S4.
        self.ip.next = self.s_axis_pkt_tdata.val();
        self.iok.next = (!self.ip.val().drop.any()
            | (self.ip.val().drop == self.c_access.val())
            | (self.ip.val().drop == self.c_invalid.val())
            | (self.ip.val().drop == self.c_dup.val())
            | (self.ip.val().drop == self.c_oow.val()))
            & ((self.ip.val().ptype == self.c_data.val())
                | (self.ip.val().ptype == self.c_ctrl.val()));
        self.icand.next =
            self.iok.val() & (self.ip.val().ptype == self.c_data.val()) & !self.ip.val().trimmed;
        // (per stage a registered flag "holds an accepted candidate", and the RAM index compared; S1's is its
        // `v1 & cand1`, so that the handshake's `take` feeds no flag of its own)
        self.icm.next = self.ip.val().conn & self.c_mask.val();
        self.hazard.next = self.iok.val()
            & ((self.v1.q.val()
                & self.cand1.q.val()
                & ((self.p1.q.val().conn & self.c_mask.val()) == self.icm.val()))
                | (self.hz2.q.val()
                    & ((self.p2.q.val().conn & self.c_mask.val()) == self.icm.val()))
                | (self.hz3.q.val()
                    & ((self.p3.q.val().conn & self.c_mask.val()) == self.icm.val()))
                | (self.hz4.q.val()
                    & ((self.p4.q.val().conn & self.c_mask.val()) == self.icm.val())));
        self.s_axis_pkt_tready.next = self.en.val() & !self.hazard.val();
        self.take.next = self.s_axis_pkt_tvalid.val() & self.s_axis_pkt_tready.val();
        if self.en.val() {
            self.ram.rd_addr.next = self.ip.val().conn & self.c_mask.val();
            self.v1.d.next = self.take.val();
            self.p1.d.next = self.ip.val();
            self.hm1.d.next = self.ip.val().psn.get_bits::<24>(8) - self.c_one24.val();
            self.n1.d.next = self.s_axis_pkt_tuser.val();
            self.ok1.d.next = self.iok.val();
            self.cand1.d.next = self.icand.val();
        } else {
            self.ram.rd_addr.next = self.p1.q.val().conn & self.c_mask.val();
        }

        // S1: classify (RecvWindow::classify), set the bit of an accepted PSN.
        self.e1.next = self.ram.rd_data.val();
        self.d1.next = self.p1.q.val().psn - self.e1.val().rcv_nxt;
        self.neg1.next = self.d1.val().get_bit(31);
        // In the window (`d < 256`): `d`'s upper 24 bits are zero, i.e. the PSN's upper bits equal rcv_nxt's,
        // less one when the lower byte borrows. Equality tests against the PSN's upper bits and their
        // predecessor (registered with the packet), so acceptance does not wait for the subtraction's carry.
        self.rn_hi1.next = self.e1.val().rcv_nxt.get_bits::<24>(8);
        self.ps_hi1.next = self.p1.q.val().psn.get_bits::<24>(8);
        self.ps_lo1.next = self.p1.q.val().psn.get_bits::<8>(0);
        self.rn_lo1.next = self.e1.val().rcv_nxt.get_bits::<8>(0);
        self.heq1.next = self.ps_hi1.val() == self.rn_hi1.val();
        if self.ps_lo1.val() < self.rn_lo1.val() {
            self.inw1.next = self.hm1.q.val() == self.rn_hi1.val();
        } else {
            self.inw1.next = self.heq1.val();
        }
        self.beyond1.next = !self.neg1.val() & !self.inw1.val();
        self.tset.word.next = self.e1.val().bm;
        self.tset.idx.next = self.ps_lo1.val();
        self.new1.next = self.cand1.q.val() & self.inw1.val() & !self.tset.hit.val();
        self.acc1.next = self.new1.val() & !self.n1.q.val().nack & !self.p1.q.val().drop.any();
        // The bit is set for every new PSN that passes the checks; a duplicate's bit is already set, so the
        // set does not wait for the bit test.
        self.set1.next = self.cand1.q.val()
            & self.inw1.val()
            & !self.n1.q.val().nack
            & !self.p1.q.val().drop.any();
        self.tset.set.next = self.set1.val();
        // The search bound of S2 (bits at or after rcv_nxt mod 256).
        self.thermo.start.next = self.e1.val().rcv_nxt.get_bits::<8>(0);
        self.pm1.next = self.p1.q.val();
        self.wi1.next.conn_ok = self.ok1.q.val();
        self.wi1.next.nack = self.n1.q.val().nack;
        self.wi1.next.code = self.n1.q.val().code;
        self.wi1.next.aux = self.n1.q.val().aux;
        self.wi1.next.cand = self.cand1.q.val();
        self.wi1.next.accepted = self.acc1.val();
        self.wi1.next.in_order =
            self.acc1.val() & self.heq1.val() & (self.ps_lo1.val() == self.rn_lo1.val());
        self.wi1.next.dup = false;
        self.wi1.next.oow = false;
        self.wi1.next.cack = self.e1.val().rcv_nxt;
        self.wi1.next.bitmap = self.tset.word_set.val();
        if self.cand1.q.val() & (self.neg1.val() | (self.inw1.val() & self.tset.hit.val())) {
            self.wi1.next.dup = true;
            self.wi1.next.nack = false;
            self.pm1.next.drop = self.c_dup.val();
        }
        if self.cand1.q.val() & self.beyond1.val() {
            self.wi1.next.oow = true;
            self.wi1.next.nack = false;
            self.pm1.next.drop = self.c_oow.val();
        }
        if self.en.val() {
            self.v2.d.next = self.v1.q.val();
            self.hz2.d.next = self.v1.q.val() & self.acc1.val();
            self.hz3.d.next = self.hz2.q.val();
            self.hz4.d.next = self.hz3.q.val();
            self.p2.d.next = self.pm1.val();
            self.w2.d.next = self.wi1.val();
            self.ge2.d.next = self.thermo.ge.val();
            self.v3.d.next = self.v2.q.val();
            self.p3.d.next = self.p2.q.val();
            self.w3.d.next = self.w2.q.val();
            self.v4.d.next = self.v3.q.val();
            self.p4.d.next = self.p3.q.val();
            self.w4.d.next = self.w3.q.val();
        }

        // S2-S3: the first clear bit at or after rcv_nxt mod 256, circularly.
        self.scan.word.next = self.w2.q.val().bitmap;
        self.scan.start.next = self.w2.q.val().cack.get_bits::<8>(0);
        self.scan.ge.next = self.ge2.q.val();

        // S4: advance rcv_nxt over the run of received PSNs (only for an in-order packet), clear it, write.
        self.x_skip.i.next = self.scan.skipped.val();
        if self.scan.found.val() {
            self.run4.next = self.x_skip.o.val();
        } else {
            self.run4.next = self.c_w.val();
        }
        if self.w4.q.val().in_order {
            self.adv4.next = self.run4.val();
        } else {
            self.adv4.next = self.c_z9.val();
        }
        self.x_adv.i.next = self.adv4.val();
        self.rclr.word.next = self.w4.q.val().bitmap;
        self.rclr.start.next = self.w4.q.val().cack.get_bits::<8>(0);
        self.rclr.len.next = self.adv4.val();
        self.wi4.next = self.w4.q.val();
        self.wi4.next.cack = self.w4.q.val().cack + self.x_adv.o.val();
        self.wi4.next.bitmap = self.rclr.cleared.val();
        self.we4.next = self.en.val() & self.v4.q.val() & self.w4.q.val().accepted;
        self.wentry.next.rcv_nxt = self.wi4.val().cack;
        self.wentry.next.bm = self.wi4.val().bitmap;
        self.oentry.next.rcv_nxt = self.s_axis_open_tdata.val().peer_isn;
        self.oentry.next.bm = self.c_z256.val();
        self.s_axis_open_tready.next = !self.we4.val();
        if self.we4.val() {
            self.ram.wr_en.next = true;
            self.ram.wr_addr.next = self.p4.q.val().conn & self.c_mask.val();
            self.ram.wr_data.next = self.wentry.val();
        } else {
            self.ram.wr_en.next = self.s_axis_open_tvalid.val();
            self.ram.wr_addr.next = self.s_axis_open_tdata.val().conn & self.c_mask.val();
            self.ram.wr_data.next = self.oentry.val();
        }
        // The pre-classification's copy takes the same writes in the same cycle.
        self.ram2.wr_en.next = self.ram.wr_en.val();
        self.ram2.wr_addr.next = self.ram.wr_addr.val();
        self.ram2.wr_data.next = self.ram.wr_data.val();
        // A packet leaving S4 has written (if at all): it leaves the in-flight ring one cycle later, after
        // a read issued in the cycle of the write (read-first: the old word) has been classified.
        self.pop_d.d.next = self.en.val() & self.v4.q.val();
        self.infl.pop.next = self.pop_d.q.val();

        // Pre-classification. Input queue of two (head qa, skid qb): `tready` is a register.
        self.s_axis_pre_tready.next = !self.qb_v.q.val();
        self.pre_take.next = self.s_axis_pre_tvalid.val() & !self.qb_v.q.val();
        // PB: the packet with its connection's word (read when it entered PB, or re-read while it waits).
        self.e2.next = self.ram2.rd_data.val();
        self.pd.next = self.pb_p.q.val().psn - self.e2.val().rcv_nxt;
        self.pneg.next = self.pd.val().get_bit(31);
        // As S1: `d`'s upper 24 bits are zero (in the window) or 0x800000 (`pnear`, `d` in
        // `[2^31, 2^31 + 256)`) when the PSN's upper bits (their predecessor when the lower byte borrows)
        // equal rcv_nxt's, or all but the top one.
        self.prn_hi.next = self.e2.val().rcv_nxt.get_bits::<24>(8);
        self.pps_hi.next = self.pb_p.q.val().psn.get_bits::<24>(8);
        self.pps_lo.next = self.pb_p.q.val().psn.get_bits::<8>(0);
        self.prn_lo.next = self.e2.val().rcv_nxt.get_bits::<8>(0);
        if self.pps_lo.val() < self.prn_lo.val() {
            self.pax.next = self.pb_hm.q.val();
        } else {
            self.pax.next = self.pps_hi.val();
        }
        self.pheq.next = self.pax.val().get_bits::<23>(0) == self.prn_hi.val().get_bits::<23>(0);
        self.pinw.next =
            self.pheq.val() & (self.pax.val().get_bit(23) == self.prn_hi.val().get_bit(23));
        self.pnear.next =
            self.pheq.val() & (self.pax.val().get_bit(23) != self.prn_hi.val().get_bit(23));
        self.pbeyond.next = !self.pneg.val() & !self.pinw.val();
        self.bsel.word.next = self.e2.val().bm;
        self.bsel.idx.next = self.pps_lo.val();
        self.pdup.next =
            self.pb_cand.q.val() & (self.pneg.val() | (self.pinw.val() & self.bsel.hit.val()));
        self.poow.next = self.pb_cand.q.val() & self.pbeyond.val();
        self.infl.q_conn.next = self.pb_p.q.val().conn & self.c_mask.val();
        self.infl.q_psn.next = self.pb_p.q.val().psn;
        // Undecided while an earlier packet of the connection, marked new, has not written: one with the
        // same PSN (it may be accepted or not), or any when the word says beyond the window or just past
        // half the PSN space behind (its acceptance may advance rcv_nxt by up to 256).
        self.phold.next = self.pb_cand.q.val()
            & ((!self.pneg.val() & self.infl.hit_psn.val())
                | ((self.pbeyond.val() | self.pnear.val()) & self.infl.hit_conn.val()));
        self.pb_free.next = !self.po_v.q.val() | self.m_axis_pre_tready.val();
        self.pb_go.next = self.pb_v.q.val() & !self.phold.val() & self.pb_free.val();
        // The queue advances into PB (and into the in-flight ring, when it has room) when PB is empty or leaves
        // for sure without the word: no in-flight packet of its connection marked new (then it cannot wait).
        // A packet that leaves after the word's test leaves a bubble behind it, so that the queue's advance
        // and the RAM's read address are a few levels from registers instead of behind the subtraction
        // (packets of one connection reach the window at most one per 5 cycles anyway).
        self.pb_sure.next = self.pb_v.q.val()
            & !(self.pb_cand.q.val() & self.infl.hit_conn.val())
            & self.pb_free.val();
        self.padv.next =
            self.qa_v.q.val() & (!self.pb_v.q.val() | self.pb_sure.val()) & !self.infl.full.val();
        // The head's kind: a candidate (its ring entry is marked new, see below).
        self.qa_cand.next = !self.qa_p.q.val().drop.any()
            & (self.qa_p.q.val().ptype == self.c_data.val())
            & !self.qa_p.q.val().trimmed;
        // `pb_p` takes `qa_p` when the pre-classification advances, else it stays (the ring's contract).
        self.infl.nq_take.next = self.padv.val();
        self.infl.nq_conn.next = self.qa_p.q.val().conn & self.c_mask.val();
        self.infl.nq_psn.next = self.qa_p.q.val().psn;
        if self.padv.val() {
            self.ram2.rd_addr.next = self.qa_p.q.val().conn & self.c_mask.val();
        } else {
            self.ram2.rd_addr.next = self.pb_p.q.val().conn & self.c_mask.val();
        }
        if self.padv.val() {
            if self.qb_v.q.val() {
                self.qa_p.d.next = self.qb_p.q.val();
                self.qb_v.d.next = false;
            } else {
                self.qa_v.d.next = self.pre_take.val();
                self.qa_p.d.next = self.s_axis_pre_tdata.val();
            }
        } else if self.qa_v.q.val() {
            if self.pre_take.val() {
                self.qb_v.d.next = true;
                self.qb_p.d.next = self.s_axis_pre_tdata.val();
            }
        } else {
            self.qa_v.d.next = self.pre_take.val();
            self.qa_p.d.next = self.s_axis_pre_tdata.val();
        }
        if self.padv.val() {
            self.pb_v.d.next = true;
            self.pb_p.d.next = self.qa_p.q.val();
            self.pb_hm.d.next = self.qa_p.q.val().psn.get_bits::<24>(8) - self.c_one24.val();
            self.pb_cand.d.next = self.qa_cand.val();
        } else if self.pb_go.val() {
            self.pb_v.d.next = false;
        }
        self.ppm.next = self.pb_p.q.val();
        if self.pdup.val() {
            self.ppm.next.drop = self.c_dup.val();
        }
        if self.poow.val() {
            self.ppm.next.drop = self.c_oow.val();
        }
        // A packet joins the in-flight ring as it enters PB (its own entry is left out of its query while it
        // is there), marked `new` when it is a candidate: a duplicate's entry only makes a later packet of its
        // connection wait or leave a bubble, never decide otherwise. So the ring's writes come from registers,
        // not from PB's decision on the word.
        self.infl.push.next = self.padv.val();
        self.infl.push_conn.next = self.qa_p.q.val().conn & self.c_mask.val();
        self.infl.push_psn.next = self.qa_p.q.val().psn;
        self.infl.push_new.next = self.qa_cand.val();
        self.infl.skip_last.next = self.pb_v.q.val();
        if self.m_axis_pre_tready.val() {
            self.po_v.d.next = false;
        }
        // The output register's packet is loaded whenever the register is free (it is valid only with `po_v`),
        // so that its ~600 enables do not wait for the word's decision; only `po_v` does.
        if self.pb_free.val() {
            self.po_p.d.next = self.ppm.val();
        }
        if self.pb_go.val() {
            self.po_v.d.next = true;
        }
        self.m_axis_pre_tvalid.next = self.po_v.q.val();
        self.m_axis_pre_tdata.next = self.po_p.q.val();
        if self.m_axis_pkt_tready.val() {
            self.ov.d.next = false;
        }
        if self.en.val() {
            self.ov.d.next = self.v4.q.val();
            self.op.d.next = self.p4.q.val();
            self.ow.d.next = self.wi4.val();
        }
        self.m_axis_pkt_tvalid.next = self.ov.q.val();
        self.m_axis_pkt_tdata.next = self.op.q.val();
        self.m_axis_pkt_tuser.next = self.ow.q.val();
        if self.rst.val() {
            self.v1.d.next = false;
            self.hz2.d.next = false;
            self.hz3.d.next = false;
            self.hz4.d.next = false;
            self.v2.d.next = false;
            self.v3.d.next = false;
            self.v4.d.next = false;
            self.ov.d.next = false;
            self.qa_v.d.next = false;
            self.qb_v.d.next = false;
            self.pb_v.d.next = false;
            self.po_v.d.next = false;
            self.pop_d.d.next = false;
        }
    }
}

/// This block at the core's configuration.
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![crate::blocks::BlockSpec {
        name: "metaroce_rx_psn_window",
        area: "rx",
        description: "per-connection 256-PSN receive window: accept/duplicate/beyond, bitmap, rcv_nxt (MR-REL-9..13)",
        verilog: |cfg| crate::gen::verilog("metaroce_rx_psn_window", PsnWindow::new(cfg.conn_bits)),
    }]
}
