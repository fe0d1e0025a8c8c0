//! The receive window of every connection (spec 4.3, MR-REL-9..13): `rcv_nxt` (the CACK) and a circular
//! 256-bit bitmap in block RAM, bit `psn mod 256` = PSN `psn` of `[rcv_nxt, rcv_nxt + 256)` received.
//!
//! Hardware window: W = 256 packets per connection (`wlog` 8, MR-REL-7); a peer announcing a larger `wlog`
//! (MR-REL-8) is served with 256 (a named limitation: PSNs at `rcv_nxt + 256` and beyond are beyond the window).
//!
//! **Per packet.** A *candidate* is an untrimmed DATA packet that passed the connection lookup (`drop` is 0, or
//! ACCESS / INVALID set by the memory-region and message checks upstream). With `d = psn - rcv_nxt` (mod 2^32),
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
//! **Ports.** `s_axis_pkt_{tdata: PktMeta, tuser: NackReq, tvalid, tready}` → `m_axis_pkt_{tdata: PktMeta,
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
/// or after `start` and the first at all; stage 2: the first group, and `skipped`.
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
         // stage 1: per 16-bit group, the first clear bit at or after start (hi) and the first at all (all)\n\
         wire [255:0] x = ~word;\nwire [255:0] xm = x & ge;\n\
         reg [15:0] any_hi;\nreg [15:0] any_all;\nreg [63:0] idx_hi;\nreg [63:0] idx_all;\nreg [7:0] start_q;\n\
         always @(posedge clk) if (en) begin\n   start_q <= start;\n",
    );
    for g in 0..ng {
        let lo = g * RUN_GROUP;
        let hi = lo + RUN_GROUP - 1;
        v.push_str(&format!(
            "   any_hi[{g}] <= |xm[{hi}:{lo}];\n   any_all[{g}] <= |x[{hi}:{lo}];\n"
        ));
        for (name, src) in [("idx_hi", "xm"), ("idx_all", "x")] {
            v.push_str(&format!(
                "   {name}[{}:{}] <= first16({src}[{}:{lo}]);\n",
                4 * g + 3,
                4 * g,
                hi - 1
            ));
        }
    }
    v.push_str("end\n");
    // stage 2: the first group (one-hot) with a bounded hit, else the first group with any hit
    for k in ["hi", "all"] {
        v.push_str(&format!(
            "wire [15:0] pre_{k};\nassign pre_{k}[0] = 1'b0;\n"
        ));
        for g in 1..ng {
            v.push_str(&format!("assign pre_{k}[{g}] = |any_{k}[{}:0];\n", g - 1));
        }
        v.push_str(&format!(
            "wire [15:0] oh_{k} = any_{k} & ~pre_{k};\nwire [3:0] gi_{k} = first16(any_{k}[14:0]);\nwire [3:0] li_{k};\n"
        ));
        for b in 0..4 {
            let terms: Vec<String> = (0..ng)
                .map(|g| format!("(oh_{k}[{g}] & idx_{k}[{}])", 4 * g + b))
                .collect();
            v.push_str(&format!("assign li_{k}[{b}] = {};\n", terms.join(" | ")));
        }
    }
    v.push_str(
        "wire hit_hi = |any_hi;\nwire hit_all = |any_all;\n\
         wire [7:0] pos = hit_hi ? {gi_hi, li_hi} : {gi_all, li_all};\n\
         always @(posedge clk) if (en) begin\n   found <= hit_hi | hit_all;\n   skipped <= pos - start_q;\nend\n",
    );
    v
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
    ram: SdpRam<WinEntry, 16>,
    scan: RunScan,
    thermo: AtOrAfter,
    tset: BitTestSet,
    rclr: RunClear,
    x_skip: Zext<8, 9>,
    x_adv: Zext<9, 32>,
    // pipeline: valid, packet, verdict, candidate / uses-state flags per stage
    v1: DFF<Bit>,
    p1: DFF<PktMeta>,
    n1: DFF<NackReq>,
    ok1: DFF<Bit>,
    cand1: DFF<Bit>,
    hz1: DFF<Bit>,
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
            ram: SdpRam::new(depth),
            scan: Default::default(),
            thermo: Default::default(),
            tset: Default::default(),
            rclr: Default::default(),
            x_skip: Default::default(),
            x_adv: Default::default(),
            v1: Default::default(),
            p1: Default::default(),
            n1: Default::default(),
            ok1: Default::default(),
            cand1: Default::default(),
            hz1: Default::default(),
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
        }
    }
}

impl Logic for PsnWindow {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, v1, p1, n1, ok1, cand1, hz1, hz2, hz3, hz4, v2, p2, w2, ge2, v3, p3, w3, v4,
            p4, w4, ov, op, ow
        );
        self.ram.clk.next = self.clk.val();
        self.scan.clk.next = self.clk.val();

        // Every stage advances when the output register is free or drained.
        self.en.next = !self.ov.q.val() | self.m_axis_pkt_tready.val();
        self.scan.en.next = self.en.val();

        // S0: classify the incoming packet's kind; hazard against candidates of the same connection in S1..S4.
        self.ip.next = self.s_axis_pkt_tdata.val();
        self.iok.next = (!self.ip.val().drop.any()
            | (self.ip.val().drop == self.c_access.val())
            | (self.ip.val().drop == self.c_invalid.val()))
            & ((self.ip.val().ptype == self.c_data.val())
                | (self.ip.val().ptype == self.c_ctrl.val()));
        self.icand.next =
            self.iok.val() & (self.ip.val().ptype == self.c_data.val()) & !self.ip.val().trimmed;
        // (per stage one registered flag "holds an accepted candidate", and the RAM index compared)
        self.icm.next = self.ip.val().conn & self.c_mask.val();
        self.hazard.next = self.iok.val()
            & ((self.hz1.q.val() & ((self.p1.q.val().conn & self.c_mask.val()) == self.icm.val()))
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
            self.n1.d.next = self.s_axis_pkt_tuser.val();
            self.ok1.d.next = self.iok.val();
            self.cand1.d.next = self.icand.val();
            self.hz1.d.next = self.take.val() & self.icand.val();
        } else {
            self.ram.rd_addr.next = self.p1.q.val().conn & self.c_mask.val();
        }

        // S1: classify (RecvWindow::classify), set the bit of an accepted PSN.
        self.e1.next = self.ram.rd_data.val();
        self.d1.next = self.p1.q.val().psn - self.e1.val().rcv_nxt;
        self.neg1.next = self.d1.val().get_bit(31);
        self.beyond1.next = !self.neg1.val() & self.d1.val().get_bits::<24>(8).any();
        self.tset.word.next = self.e1.val().bm;
        self.tset.idx.next = self.p1.q.val().psn.get_bits::<8>(0);
        self.new1.next =
            self.cand1.q.val() & !self.neg1.val() & !self.beyond1.val() & !self.tset.hit.val();
        self.acc1.next = self.new1.val() & !self.n1.q.val().nack & !self.p1.q.val().drop.any();
        // The bit is set for every new PSN that passes the checks; a duplicate's bit is already set, so the
        // set does not wait for the bit test.
        self.set1.next = self.cand1.q.val()
            & !self.neg1.val()
            & !self.beyond1.val()
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
        self.wi1.next.in_order = self.acc1.val() & !self.d1.val().any();
        self.wi1.next.dup = false;
        self.wi1.next.oow = false;
        self.wi1.next.cack = self.e1.val().rcv_nxt;
        self.wi1.next.bitmap = self.tset.word_set.val();
        if self.cand1.q.val() & (self.neg1.val() | (!self.beyond1.val() & self.tset.hit.val())) {
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
            self.hz1.d.next = false;
            self.hz2.d.next = false;
            self.hz3.d.next = false;
            self.hz4.d.next = false;
            self.v2.d.next = false;
            self.v3.d.next = false;
            self.v4.d.next = false;
            self.ov.d.next = false;
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
