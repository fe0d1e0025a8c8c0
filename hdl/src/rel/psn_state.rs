//! Per-PSN sender state (MR-REL-20..25, MR-REL-33): the layout of the block RAM that holds one record per
//! outstanding PSN, and the SACK aligner that lines an ACK's bitmap up with that RAM's words.
//!
//! Layout: the hardware window is W = 256 PSNs per connection. The RAM is not indexed by connection but by a
//! *window slot* (MR-REL-7: window state is kept on chip while a connection is active): a connection holds a
//! slot while it has PSNs outstanding, from its first new transmission with nothing outstanding until an ACK
//! covers everything it sent ([`crate::rel::ack_proc`] allocates and releases them). A connection without
//! outstanding PSNs has no records to keep: records outside `[snd_una, snd_nxt)` are stale and never read as
//! valid (a new transmission rewrites its record, and the scans only touch PSNs in `[snd_una, snd_nxt)`), so
//! a released slot needs no clearing.
//!
//! A RAM word ([`PsnWord`], 288 bits) holds the records of 4 consecutive PSNs (`psn[1:0]` = lane); the word
//! address is `{slot, psn[7:2]}` (`slot_bits + 6` address bits), so a slot is 64 words = 256 records = 2 304
//! bytes. 2^13 slots (the default for 16K connections) are 144 Mbit (2^20 bits), 512 UltraRAMs at 4 URAM288
//! per 288-bit word. A record (72 bits): TS of the latest transmission (32 bits, ns mod 2^32: the NACK echo
//! check MR-REL-50 needs it exact), charged bytes (16, payload + 64), EV-set entry index (6: up to 64 entries)
//! and EV (14) of the latest transmission (MR-REL-32; a path recycle or reuse names the EV, MR-PATH-3), and the
//! flags in-flight, lost (declared and not yet retransmitted, MR-REL-43) and acknowledged (SACK bit).
//!
//! A scan of the window reads 4 records per cycle: at most 65 words (256 PSNs not aligned to 4), i.e. 65
//! cycles plus the pipeline for a full window.
//!
//! [`SackAlign`]: `aligned[j] = sack[j + off]` for `0 <= j + off < 256`, else 0, with `off` a signed 32-bit
//! offset (`(snd_una & !3) - sack_base`), so that bit `j` of the output is the SACK bit of PSN
//! `(snd_una & !3) + j` (260 bits: 65 words of 4). The aligner takes `off` as the user registers it: the shift
//! `off + 260` modulo 1024 and a flag for `off + 260` outside `0..1024` (no bit lands). Its shift is split over
//! two cycles: the low six bits of the shift in a register stage, the high four and the flag after it, so the
//! output is valid in the second cycle of inputs held for two (and meant to be registered by the user).

use rust_hdl::prelude::*;

/// Records.
pub mod rec {
    #![allow(missing_docs)]
    use rust_hdl::prelude::*;

    /// Four consecutive PSN records (lane k = `psn[1:0]`): TS `tK`, charged bytes `cK`, EV-set entry `pK`, EV
    /// `eK`, flags in-flight `iK`, lost `lK`, acknowledged `aK`.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct PsnWord {
        pub t0: Bits<32>,
        pub c0: Bits<16>,
        pub p0: Bits<6>,
        pub e0: Bits<14>,
        pub i0: Bit,
        pub l0: Bit,
        pub a0: Bit,
        pub t1: Bits<32>,
        pub c1: Bits<16>,
        pub p1: Bits<6>,
        pub e1: Bits<14>,
        pub i1: Bit,
        pub l1: Bit,
        pub a1: Bit,
        pub t2: Bits<32>,
        pub c2: Bits<16>,
        pub p2: Bits<6>,
        pub e2: Bits<14>,
        pub i2: Bit,
        pub l2: Bit,
        pub a2: Bit,
        pub t3: Bits<32>,
        pub c3: Bits<16>,
        pub p3: Bits<6>,
        pub e3: Bits<14>,
        pub i3: Bit,
        pub l3: Bit,
        pub a3: Bit,
    }

    /// Word address in the per-PSN RAM: `{slot, psn[7:2]}`.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct PsnAddr {
        pub word: Bits<6>,
        pub slot: Bits<16>,
    }
}

pub use rec::{PsnAddr, PsnWord};

/// Number of SACK bits after alignment (65 words of 4 PSNs).
pub const ALIGNED_BITS: usize = 260;

/// The SACK aligner (see the module docs).
#[derive(LogicBlock, Default)]
pub struct SackAlign {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// The ACK's bitmap (bit i = PSN `sack_base + i`).
    pub sack: Signal<In, Bits<256>>,
    /// `off + 260` modulo 1024, `off = (snd_una & !3) - sack_base`.
    pub shift: Signal<In, Bits<10>>,
    /// `off + 260` is outside `0..1024`: the output is 0.
    pub far: Signal<In, Bit>,
    /// Bit j = PSN `(snd_una & !3) + j`, valid in the second cycle of `sack`, `shift` and `far` held.
    pub aligned: Signal<Out, Bits<ALIGNED_BITS>>,
    _t3: Bits<516>,
}

impl Logic for SackAlign {
    fn update(&mut self) {
        if self.clk.pos_edge() {
            // First half: big = {sack, 260 zeros} shifted by the shift's low six bits.
            let lo = self.shift.val().get_bits::<6>(0).to_u64() as usize;
            let s = self.sack.val();
            let mut t3 = Bits::<516>::default();
            for i in 0..516 {
                let k = i + lo;
                if (ALIGNED_BITS..516).contains(&k) && s.get_bit(k - ALIGNED_BITS) {
                    t3 = t3.replace_bit(i, true);
                }
            }
            self._t3 = t3;
        }
        // Second half: by the high four bits, unless `far`.
        let hi = self.shift.val().get_bits::<4>(6).to_u64() as usize * 64;
        let mut q = Bits::<ALIGNED_BITS>::default();
        for j in 0..ALIGNED_BITS {
            if !self.far.val() && j + hi < 516 && self._t3.get_bit(j + hi) {
                q = q.replace_bit(j, true);
            }
        }
        self.aligned.next = q;
    }

    fn connect(&mut self) {
        self.aligned.connect();
    }

    fn hdl(&self) -> Verilog {
        // aligned[j] = sack[j + off] = big[j + s] with big = {sack, 260 zeros} and s = off + 260 = `shift`,
        // which is in 0..1023 whenever a bit can land (off in -260..255; beyond, `far` or the shift leaves
        // zeros). The shift is written as five stages of 4-way selections (two bits of s each), the first
        // three before the register.
        Verilog::Custom(
            "\
reg [515:0] t3q;
wire [515:0] big = {sack, 260'd0};
wire [515:0] t1 = big >> shift[1:0];
wire [515:0] t2 = t1 >> {shift[3:2], 2'd0};
wire [515:0] t3 = t2 >> {shift[5:4], 4'd0};
always @(posedge clk) t3q <= t3;
wire [515:0] t4 = t3q >> {shift[7:6], 6'd0};
wire [259:0] t5 = shift[9] ? (shift[8] ? 260'd0 : {256'd0, t4[515:512]}) : (shift[8] ? t4[515:256] : t4[259:0]);
always @(*) aligned = far ? 260'd0 : t5;
"
            .to_string(),
        )
    }
}
