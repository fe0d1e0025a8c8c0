//! ACK processing, the per-PSN sender state and loss detection (MR-REL-20..25, MR-REL-32..39): per-connection
//! `snd_una` / `snd_nxt` / in-flight bytes, the per-PSN records of [`crate::rel::psn_state`] updated by
//! transmissions (`TxSent`), by received ACKs (cumulative ack, then SACK bits for PSNs in `(snd_una, snd_nxt)`),
//! by NACKs and by the loss rules of [`crate::rel::loss_detect`], exactly as
//! `metaroce_proto::transport::loss::SendWindow::{on_send, on_retransmit, on_ack, mark_lost, detect_losses,
//! on_rto}`.
//!
//! Commands (one at a time; priority open > sent > ack > command):
//! * `s_axis_open_*` ([`ConnOpen`]): `snd_una = snd_nxt = isn`, nothing in flight (`SendWindow::new`).
//! * `s_axis_sent_*` ([`TxSent`]): a new PSN (`rtx = 0`, `psn` = `snd_nxt`): its record (TS, charged bytes,
//!   entry index and EV, in flight), `snd_nxt + 1`, `inflight += charged` (`on_send`); a retransmission of a
//!   PSN in `[snd_una, snd_nxt)`: TS, entry and EV, retransmitted flag, no longer declared, and back in flight
//!   (`on_retransmit`, with `pop_lost`'s clearing of the lost flag).
//! * `s_axis_ack_*` ([`PktMeta`] of an ACK, `conn` resolved): `psn` = CACK, `sack_base`, `sack`. A CACK beyond
//!   `snd_nxt` is invalid (ignored, reported). Every newly acknowledged PSN (cumulatively or selectively,
//!   counted once) adds its payload (`charged - 64`) to `acked_bytes` and leaves the in-flight bytes; the
//!   result ([`AckRes`]) goes to congestion control, and an advance of `snd_una` is reported on `m_axis_una_*`
//!   ([`UnaUpdate`]) in the same cycle as the result, as is the connection's first valid ACK since its open
//!   even without an advance (the peer answered: the transmit scheduler ends the SYN phase and takes the
//!   peer's CID, MR-CONN-6, MR-CONN-7; the model ends it on any ACK, also one whose CACK is invalid). The highest acknowledged PSN and the latest TS of a
//!   newly acknowledged packet (RACK, MR-REL-36) are kept in the connection state for loss detection. For an
//!   ACK without ECE (aflags bit 7) the entry index and EV of every newly acknowledged PSN go out on
//!   `m_axis_clean_*` ([`LaneWord`], PSN order) so the EV set can reuse them (MR-PATH-3).
//! * `s_axis_cmd_*` ([`LossCmd`]) → `m_axis_cres_*` ([`LossRes`]):
//!   * [`CMD_DETECT`]: a detection run over `[snd_una, hi_acked)` (rules b and c); the declared PSNs go out on
//!     `m_axis_lost_*` ([`LaneWord`], increasing PSN order, cause [`CAUSE_LOSS`]) and the result carries their
//!     count and the earliest pending RACK deadline (MR-REL-37).
//!   * [`CMD_RTO`]: a timeout run over `[snd_una, snd_nxt)` (rule d); the result says whether declared PSNs
//!     still wait for their retransmission (MR-REL-45) and whether anything is outstanding.
//!   * [`CMD_NACK`]: a NACK TRIMMED whose echo is the TS of the PSN's latest transmission (MR-REL-34, MR-REL-35)
//!     or an RNR declares an outstanding, unacknowledged, not yet declared PSN lost (cause [`CAUSE_TRIM`] /
//!     [`CAUSE_NONE`]); anything else changes nothing (MR-REL-50).
//!   * [`CMD_PEEK`]: is the PSN still to be retransmitted, and on which entry was it last sent.
//!
//! Window slots: the per-PSN records live in `1 << slot_bits` window slots ([`crate::rel::psn_state`]), fewer
//! than the connections. A new transmission of a connection without a slot (nothing outstanding) takes a free
//! one, never-used slots first and then the FIFO of released ones (`fl_ram`); an ACK after which nothing is
//! outstanding releases it, and so does an open. `free_slots` tells the gate how many are free, `slot_alloc`
//! pulses on each allocation; a new transmission that finds none is not recorded and pulses `slot_miss` (the
//! sender engine's gate reserves a slot before it lets such a packet go, so this does not happen there). After
//! reset the block clears its connection states (`1 << conn_bits` cycles, inputs not ready) and every slot is
//! free.
//!
//! Timing: open 3 cycles, sent 5, ACK `words + 9` cycles where `words` (<= 65) is the number of 4-PSN RAM
//! words of `[snd_una, snd_nxt)` it scans (4 PSNs per cycle): from the first, up to the last word holding a
//! PSN the ACK acknowledges cumulatively or has a SACK bit for, and at least two (the scan ends after a word
//! when the words after the next one have neither, a test registered a word ahead; the words after that would
//! change nothing, as the model's `on_ack` touches only those PSNs): 2 for an in-order ACK of up to 8 PSNs,
//! where every word of the window was scanned before. A run takes `words + 8`, a NACK or look-up 7; the clean
//! and lost outputs are registered and a scan stalls (re-reading its word) while they are full. A scanned word is
//! written back in the cycle its lanes decide; what the lanes add up (counts, bytes, the highest acknowledged
//! PSN, the RACK TS, the earliest pending deadline) goes through three accumulation stages (a 4-lane tree, then
//! the fold into the connection or run), and the run ends three cycles after its last word. One idle cycle
//! follows every command so the next command reads the RAM after the write (no forwarding needed: commands are
//! serialised).
//!
//! Differences from the model: TS comparisons for RACK are 32-bit serial (the model compares 64-bit times), and
//! the highest acknowledged PSN, the RACK TS and the earliest deadline are taken over a word's lanes as a tree
//! (the model goes PSN by PSN): the same result while PSNs and times of one window are less than 2^31 apart;
//! in-flight bytes are 32 bits and decremented once per ACK by the sum (the model saturates per packet; equal
//! while the counter is consistent).

use crate::common::ram::SdpRam;
use crate::records::{PktMeta, TxSent};
use crate::rel::loss_detect::LossLane;
use crate::rel::psn_state::{PsnAddr, PsnWord, SackAlign, ALIGNED_BITS};
use crate::rel::records::{ConnOpen, UnaUpdate};
use rust_hdl::prelude::*;

/// The aligned SACK bits from two words on (beyond a scanned word and the next one).
const SR_REST: usize = ALIGNED_BITS - 8;

/// Records.
pub mod rec {
    #![allow(missing_docs)]
    use crate::records::ConnIdx;
    use rust_hdl::prelude::*;

    /// The result of one ACK (to congestion control and the RTT estimator).
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct AckRes {
        /// Connection.
        pub conn: ConnIdx,
        /// Packets newly acknowledged.
        pub newly: Bits<16>,
        /// Their payload bytes.
        pub bytes: Bits<32>,
        /// snd_una advanced.
        pub cack_advanced: Bit,
        /// The ACK was ignored (CACK beyond snd_nxt).
        pub invalid: Bit,
        /// snd_una after the ACK.
        pub snd_una: Bits<32>,
        /// Nothing outstanding after the ACK (the RTO is disarmed).
        pub idle: Bit,
        /// Charged bytes in flight after the ACK.
        pub inflight: Bits<32>,
        /// A detection run would look at PSNs: something was acknowledged and `snd_una` is below the highest
        /// acknowledged PSN (otherwise the run declares nothing and arms no RACK timer, as the model's
        /// `detect_losses` returns at once).
        pub holes: Bit,
    }

    /// A 16-bit value zero-extended to 32 bits.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct Zx16 {
        pub lo: Bits<16>,
        pub hi: Bits<16>,
    }

    /// A PSN split into its lane bits and the rest.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct PsnSplit {
        pub lo2: Bits<2>,
        pub hi: Bits<30>,
    }

    /// A loss-detection or record command (`s_axis_cmd_*`; `op` one of the `CMD_*` constants).
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct LossCmd {
        /// Connection.
        pub conn: ConnIdx,
        /// Operation.
        pub op: Bits<2>,
        /// Peek / NACK: the PSN.
        pub psn: Bits<32>,
        /// NACK TRIMMED: the echoed TS (MR-REL-35).
        pub echo_ts: Bits<32>,
        /// NACK: TRIMMED (1) or RNR (0).
        pub trim: Bit,
        /// Current time, ns mod 2^32.
        pub now32: Bits<32>,
        /// Detection: `srtt + reo_mult * reo_wnd` (ns).
        pub srtt_reo: Bits<32>,
        /// Detection: `min(reo_mult * reorder_distance, 256)`.
        pub distance: Bits<32>,
        /// Timeout run: the effective timeout (ns).
        pub rto: Bits<32>,
    }

    /// The result of a [`LossCmd`] (`m_axis_cres_*`).
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct LossRes {
        /// Connection.
        pub conn: ConnIdx,
        /// Peek: the PSN is outstanding, unacknowledged and declared lost; NACK: it was declared lost now.
        pub found: Bit,
        /// Peek / NACK: the record's EV-set entry index.
        pub path: Bits<8>,
        /// Peek / NACK: the record's EV.
        pub ev: Bits<14>,
        /// Detection / timeout run: PSNs declared lost.
        pub nlost: Bits<16>,
        /// Detection: a RACK deadline is pending (MR-REL-37).
        pub rack_armed: Bit,
        /// Detection: the earliest pending RACK deadline (ns mod 2^32).
        pub rack_at: Bits<32>,
        /// Timeout run: some outstanding PSN is declared and not yet retransmitted.
        pub queued: Bit,
        /// Something is outstanding (`snd_una != snd_nxt`).
        pub outstanding: Bit,
    }

    /// Up to four PSN records of one RAM word (lane k = PSN `psn + k`): the lost PSNs of a run
    /// (`m_axis_lost_*`) or the PSNs newly acknowledged by an ACK without ECE (`m_axis_clean_*`).
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct LaneWord {
        /// Connection.
        pub conn: ConnIdx,
        /// PSN of lane 0 (a multiple of 4).
        pub psn: Bits<32>,
        /// Lanes present.
        pub mask: Bits<4>,
        /// Lost words: why (`CAUSE_*`); clean words: 0.
        pub cause: Bits<2>,
        /// Lost words of a detection run: the lanes declared by the reorder distance (the others by time).
        pub far: Bits<4>,
        pub p0: Bits<8>,
        pub e0: Bits<14>,
        pub p1: Bits<8>,
        pub e1: Bits<14>,
        pub p2: Bits<8>,
        pub e2: Bits<14>,
        pub p3: Bits<8>,
        pub e3: Bits<14>,
    }

    /// Send-side state of one connection (179 bits): `snd_una`, `snd_nxt`, charged bytes in flight, the
    /// highest acknowledged PSN and the RACK TS (MR-REL-36), and the window slot of its per-PSN records.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct ConnSnd {
        pub una: Bits<32>,
        pub nxt: Bits<32>,
        pub inflight: Bits<32>,
        pub highest: Bits<32>,
        pub any_acked: Bit,
        pub rack_ts: Bits<32>,
        /// Window slot (valid when `has_slot`).
        pub slot: Bits<16>,
        /// The connection holds a window slot (it has PSNs outstanding, or had until its last ACK).
        pub has_slot: Bit,
        /// A valid ACK arrived since the open: the peer answered this direction (MR-CONN-6, MR-CONN-7).
        pub answered: Bit,
    }

    /// A 6-bit entry index zero-extended to 8 bits.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct Zx6 {
        pub lo: Bits<6>,
        pub hi: Bits<2>,
    }
}

pub use rec::{AckRes, ConnSnd, LaneWord, LossCmd, LossRes, PsnSplit, Zx16, Zx6};

/// Command: loss detection run, rules (b) and (c) (MR-REL-36..38).
pub const CMD_DETECT: u64 = 0;
/// Command: timeout run, rule (d) (MR-REL-39).
pub const CMD_RTO: u64 = 1;
/// Command: look a PSN's record up (is it still to be retransmitted, on which entry was it sent).
pub const CMD_PEEK: u64 = 2;
/// Command: a NACK TRIMMED (MR-REL-34, MR-REL-35) or RNR for a PSN.
pub const CMD_NACK: u64 = 3;
/// Lost word cause: no path recycle (RNR).
pub const CAUSE_NONE: u64 = 0;
/// Lost word cause: trimmed (the entry is recycled, MR-PATH-2).
pub const CAUSE_TRIM: u64 = 1;
/// Lost word cause: declared lost by time or distance (recycled, and exploration frozen, MR-PATH-18).
pub const CAUSE_LOSS: u64 = 2;
/// Lost word cause: declared lost by a timeout run (recycled and frozen as [`CAUSE_LOSS`]).
pub const CAUSE_RTO: u64 = 3;

/// One lane (PSN) of the ACK scan: combinational.
#[derive(LogicBlock)]
pub struct AckLane {
    /// `psn - una` (una: snd_una before the ACK).
    pub off: Signal<In, Bits<32>>,
    /// `nxt - una` (nxt: snd_nxt).
    pub span_n: Signal<In, Bits<32>>,
    /// `una_new - una` (una_new: snd_una after the cumulative part).
    pub span_c: Signal<In, Bits<32>>,
    /// `psn - una_new - 1`.
    pub noff: Signal<In, Bits<32>>,
    /// `nxt - una_new - 1`.
    pub nspan: Signal<In, Bits<32>>,
    /// `nxt != una_new`.
    pub ne: Signal<In, Bit>,
    /// The SACK bit of the PSN.
    pub sack_bit: Signal<In, Bit>,
    /// Charged bytes of the record.
    pub charged: Signal<In, Bits<16>>,
    /// In-flight flag.
    pub inflight: Signal<In, Bit>,
    /// Acknowledged flag.
    pub acked: Signal<In, Bit>,
    /// Lost flag.
    pub lost: Signal<In, Bit>,
    /// Newly acknowledged.
    pub hit: Signal<Out, Bit>,
    /// Payload bytes newly acknowledged.
    pub bytes: Signal<Out, Bits<32>>,
    /// Bytes leaving the in-flight count.
    pub dec: Signal<Out, Bits<32>>,
    /// Lost flag after (an acknowledgement clears it).
    pub lost_out: Signal<Out, Bit>,
    /// In-flight flag after.
    pub inflight_out: Signal<Out, Bit>,
    /// Acknowledged flag after.
    pub acked_out: Signal<Out, Bit>,
    in_range: Signal<Local, Bit>,
    cum: Signal<Local, Bit>,
    sel: Signal<Local, Bit>,
    zx_c: Signal<Local, Zx16>,
    c32: Signal<Local, Bits<32>>,
    k_64: Constant<Bits<32>>,
    k_zero16: Constant<Bits<16>>,
    k_zero32: Constant<Bits<32>>,
}

impl Default for AckLane {
    fn default() -> Self {
        AckLane {
            off: Default::default(),
            span_n: Default::default(),
            span_c: Default::default(),
            noff: Default::default(),
            nspan: Default::default(),
            ne: Default::default(),
            sack_bit: Default::default(),
            charged: Default::default(),
            inflight: Default::default(),
            acked: Default::default(),
            lost: Default::default(),
            hit: Default::default(),
            bytes: Default::default(),
            dec: Default::default(),
            lost_out: Default::default(),
            inflight_out: Default::default(),
            acked_out: Default::default(),
            in_range: Default::default(),
            cum: Default::default(),
            sel: Default::default(),
            zx_c: Default::default(),
            c32: Default::default(),
            k_64: Constant::new(64u64.to_bits()),
            k_zero16: Constant::new(0u64.to_bits()),
            k_zero32: Constant::new(0u64.to_bits()),
        }
    }
}

impl Logic for AckLane {
    #[hdl_gen]
    fn update(&mut self) {
        // psn in [una, nxt), in [una, una_new), in (una_new, nxt) (serial arithmetic): each one comparison of
        // offsets the caller keeps in registers (psn in (una_new, nxt) is psn - una_new - 1 < nxt - una_new - 1
        // while nxt != una_new).
        self.in_range.next = self.off.val() < self.span_n.val();
        self.cum.next = self.off.val() < self.span_c.val();
        self.sel.next =
            self.sack_bit.val() && self.ne.val() && (self.noff.val() < self.nspan.val());
        self.hit.next =
            self.in_range.val() && !self.acked.val() && (self.cum.val() || self.sel.val());
        self.zx_c.next.lo = self.charged.val();
        self.zx_c.next.hi = self.k_zero16.val();
        self.c32.next = self.zx_c.val().into();
        self.bytes.next = self.k_zero32.val();
        self.dec.next = self.k_zero32.val();
        self.inflight_out.next = self.inflight.val();
        self.acked_out.next = self.acked.val();
        self.lost_out.next = self.lost.val();
        if self.in_range.val() && !self.acked.val() && (self.cum.val() || self.sel.val()) {
            self.bytes.next = self.c32.val() - self.k_64.val();
            if self.inflight.val() {
                self.dec.next = self.c32.val();
            }
            self.inflight_out.next = false;
            self.acked_out.next = true;
            self.lost_out.next = false;
        }
    }
}

/// The ACK processor (see the module docs). Construct with [`AckProc::new`].
#[derive(LogicBlock)]
pub struct AckProc {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset, active high (the RAMs keep their contents; every connection is opened first).
    pub rst: Signal<In, Bit>,
    /// Connection open.
    pub s_axis_open_tdata: Signal<In, ConnOpen>,
    /// Valid.
    pub s_axis_open_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_open_tready: Signal<Out, Bit>,
    /// Transmitted DATA packet.
    pub s_axis_sent_tdata: Signal<In, TxSent>,
    /// Valid.
    pub s_axis_sent_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_sent_tready: Signal<Out, Bit>,
    /// Received ACK.
    pub s_axis_ack_tdata: Signal<In, PktMeta>,
    /// Valid.
    pub s_axis_ack_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_ack_tready: Signal<Out, Bit>,
    /// ACK result.
    pub m_axis_res_tdata: Signal<Out, AckRes>,
    /// Valid.
    pub m_axis_res_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_res_tready: Signal<In, Bit>,
    /// snd_una advance.
    pub m_axis_una_tdata: Signal<Out, UnaUpdate>,
    /// Valid.
    pub m_axis_una_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_una_tready: Signal<In, Bit>,
    /// Loss-detection / record command.
    pub s_axis_cmd_tdata: Signal<In, LossCmd>,
    /// Valid.
    pub s_axis_cmd_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_cmd_tready: Signal<Out, Bit>,
    /// Command result.
    pub m_axis_cres_tdata: Signal<Out, LossRes>,
    /// Valid.
    pub m_axis_cres_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_cres_tready: Signal<In, Bit>,
    /// PSNs declared lost, in increasing PSN order per run.
    pub m_axis_lost_tdata: Signal<Out, LaneWord>,
    /// Valid.
    pub m_axis_lost_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_lost_tready: Signal<In, Bit>,
    /// PSNs newly acknowledged by an ACK without ECE, in increasing PSN order.
    pub m_axis_clean_tdata: Signal<Out, LaneWord>,
    /// Valid.
    pub m_axis_clean_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_clean_tready: Signal<In, Bit>,
    /// Tap of the connection-state write port: a connection's state is written this cycle (open, sent, ACK).
    pub st_wr_en: Signal<Out, Bit>,
    /// The connection written.
    pub st_wr_conn: Signal<Out, Bits<16>>,
    /// The state written (the sender engine keeps a copy for the gate).
    pub st_wr: Signal<Out, ConnSnd>,
    /// Window slots free (never used, or released): what the gate may still hand to connections without one.
    pub free_slots: Signal<Out, Bits<17>>,
    /// A window slot is allocated this cycle (a new transmission of a connection without one).
    pub slot_alloc: Signal<Out, Bit>,
    /// A new transmission found no free window slot and was not recorded (the gate's reservation prevents
    /// it; counted by the caller).
    pub slot_miss: Signal<Out, Bit>,
    conn_ram: SdpRam<ConnSnd, 16>,
    fl_ram: SdpRam<Bits<16>, 16>,
    fl_head: DFF<Bits<16>>,
    fl_tail: DFF<Bits<16>>,
    fl_cnt: DFF<Bits<17>>,
    fresh: DFF<Bits<17>>,
    clr: DFF<Bits<17>>,
    op_isn: DFF<Bits<32>>,
    nowm: DFF<Bits<32>>,
    nowr: DFF<Bits<32>>,
    rtx_in: DFF<Bit>,
    /// Lane k's `psn - snd_una` (both runs' lanes: set in CMD_RD for a detection or timeout run, in ACK_PRE for
    /// an ACK, stepped with the scan), the loss lanes' `hi_acked - psn` and the run's range length.
    d_off0: DFF<Bits<32>>,
    d_off1: DFF<Bits<32>>,
    d_off2: DFF<Bits<32>>,
    d_off3: DFF<Bits<32>>,
    d_hoff0: DFF<Bits<32>>,
    d_hoff1: DFF<Bits<32>>,
    d_hoff2: DFF<Bits<32>>,
    d_hoff3: DFF<Bits<32>>,
    d_span: DFF<Bits<32>>,
    /// ACK lanes' `psn - una_new - 1` per lane, and the ACK run's `nxt - una`, `una_new - una`,
    /// `nxt - una_new - 1` and `nxt != una_new` (set in ACK_PRE).
    a_noff0: DFF<Bits<32>>,
    a_noff1: DFF<Bits<32>>,
    a_noff2: DFF<Bits<32>>,
    a_noff3: DFF<Bits<32>>,
    a_span_n: DFF<Bits<32>>,
    a_span_c: DFF<Bits<32>>,
    a_nspan: DFF<Bits<32>>,
    a_ne: DFF<Bit>,
    /// ACK scan, registered in a word's cycle for the next word's: no SACK bit for the words after the next
    /// (`sr` beyond its second word; false before the first word), and a PSN below `una_new` in them.
    z_sack: DFF<Bit>,
    c_more: DFF<Bit>,
    /// `a_noff0 + 9`: the first PSN two words on, minus `una_new` (negative: cumulatively acknowledged).
    c_more_l: Signal<Local, Bits<32>>,
    k_nine32: Constant<Bits<32>>,
    shift_q: DFF<Bits<10>>,
    far_q: DFF<Bit>,
    off_l: Signal<Local, Bits<32>>,
    r_found: DFF<Bit>,
    r_ok: DFF<Bit>,
    r_i: DFF<Bit>,
    r_c32: DFF<Bits<32>>,
    s_rec2: Constant<Bits<5>>,
    s_ack_pre: Constant<Bits<5>>,
    p1_v: DFF<Bit>,
    p1_ack: DFF<Bit>,
    p1_m: DFF<Bits<4>>,
    p1_dm: DFF<Bits<4>>,
    p1_psn: DFF<Bits<32>>,
    p1_t0: DFF<Bits<32>>,
    p1_t1: DFF<Bits<32>>,
    p1_t2: DFF<Bits<32>>,
    p1_t3: DFF<Bits<32>>,
    p1_b0: DFF<Bits<32>>,
    p1_b1: DFF<Bits<32>>,
    p1_b2: DFF<Bits<32>>,
    p1_b3: DFF<Bits<32>>,
    p1_d0: DFF<Bits<32>>,
    p1_d1: DFF<Bits<32>>,
    p1_d2: DFF<Bits<32>>,
    p1_d3: DFF<Bits<32>>,
    p2_v: DFF<Bit>,
    p2_ack: DFF<Bit>,
    p2_cand: DFF<Bits<32>>,
    p2_x01_v: DFF<Bit>,
    p2_x01: DFF<Bits<32>>,
    p2_x23_v: DFF<Bit>,
    p2_x23: DFF<Bits<32>>,
    p3_v: DFF<Bit>,
    p3_ack: DFF<Bit>,
    p3_cand: DFF<Bits<32>>,
    p3_x_v: DFF<Bit>,
    p3_x: DFF<Bits<32>>,
    hm0: Signal<Local, Bits<4>>,
    hm1: Signal<Local, Bits<4>>,
    hm2: Signal<Local, Bits<4>>,
    hm3: Signal<Local, Bits<4>>,
    pm0: Signal<Local, Bits<4>>,
    pm1: Signal<Local, Bits<4>>,
    pm2: Signal<Local, Bits<4>>,
    pm3: Signal<Local, Bits<4>>,
    q0: Signal<Local, Bits<16>>,
    q1: Signal<Local, Bits<16>>,
    q2: Signal<Local, Bits<16>>,
    q3: Signal<Local, Bits<16>>,
    r0: Signal<Local, Bits<16>>,
    r1: Signal<Local, Bits<16>>,
    r2: Signal<Local, Bits<16>>,
    r3: Signal<Local, Bits<16>>,
    f_cand: Signal<Local, Bits<32>>,
    d01: Signal<Local, Bits<32>>,
    d23: Signal<Local, Bits<32>>,
    dx: Signal<Local, Bits<32>>,
    dh: Signal<Local, Bits<32>>,
    dr: Signal<Local, Bits<32>>,
    x01_v: Signal<Local, Bit>,
    x01: Signal<Local, Bits<32>>,
    x23_v: Signal<Local, Bit>,
    x23: Signal<Local, Bits<32>>,
    x_v: Signal<Local, Bit>,
    x: Signal<Local, Bits<32>>,
    pick1: Signal<Local, Bit>,
    pick3: Signal<Local, Bit>,
    pick23: Signal<Local, Bit>,
    s_ack_drain: Constant<Bits<5>>,
    s_det_drain: Constant<Bits<5>>,
    pop: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    push_slot: Signal<Local, Bits<16>>,
    pop_slot: Signal<Local, Bits<16>>,
    avail: Signal<Local, Bit>,
    zp0: Signal<Local, Zx6>,
    zp1: Signal<Local, Zx6>,
    zp2: Signal<Local, Zx6>,
    zp3: Signal<Local, Zx6>,
    rl_pz: Signal<Local, Zx6>,
    k_nslots: Constant<Bits<17>>,
    k_nconn: Constant<Bits<17>>,
    k_smask: Constant<Bits<16>>,
    k_one17: Constant<Bits<17>>,
    k_zero17: Constant<Bits<17>>,
    s_clear: Constant<Bits<5>>,
    s_open_rd: Constant<Bits<5>>,
    s_sent_rd2: Constant<Bits<5>>,
    s_rec_rd: Constant<Bits<5>>,
    psn_ram: SdpRam<PsnWord, 22>,
    align: SackAlign,
    lane0: AckLane,
    lane1: AckLane,
    lane2: AckLane,
    lane3: AckLane,
    dlane0: LossLane,
    dlane1: LossLane,
    dlane2: LossLane,
    dlane3: LossLane,
    state: DFF<Bits<5>>,
    conn: DFF<Bits<16>>,
    st: DFF<ConnSnd>,
    cmd: DFF<LossCmd>,
    ece: DFF<Bit>,
    cres_pend: DFF<Bit>,
    lost_pend: DFF<Bit>,
    clean_pend: DFF<Bit>,
    lost_w: DFF<LaneWord>,
    clean_w: DFF<LaneWord>,
    nlost: DFF<Bits<16>>,
    rk_armed: DFF<Bit>,
    rk_at: DFF<Bits<32>>,
    queued: DFF<Bit>,
    found: DFF<Bit>,
    fpath: DFF<Bits<8>>,
    fev: DFF<Bits<14>>,
    lw_l: Signal<Local, LaneWord>,
    cw_l: Signal<Local, LaneWord>,
    lost_space: Signal<Local, Bit>,
    clean_space: Signal<Local, Bit>,
    rl_ts: Signal<Local, Bits<32>>,
    rl_c: Signal<Local, Bits<16>>,
    rl_p: Signal<Local, Bits<6>>,
    rl_e: Signal<Local, Bits<14>>,
    rl_i: Signal<Local, Bit>,
    rl_l: Signal<Local, Bit>,
    rl_a: Signal<Local, Bit>,
    rl_in: Signal<Local, Bit>,
    rl_ok: Signal<Local, Bit>,
    rl_zx: Signal<Local, Zx16>,
    rl_c32: Signal<Local, Bits<32>>,
    pb_l: Signal<Local, PsnSplit>,
    det_cnt: Signal<Local, Bits<32>>,
    dm0: Signal<Local, Bits<4>>,
    dm1: Signal<Local, Bits<4>>,
    dm2: Signal<Local, Bits<4>>,
    dm3: Signal<Local, Bits<4>>,
    cm0: Signal<Local, Bits<4>>,
    cm1: Signal<Local, Bits<4>>,
    cm2: Signal<Local, Bits<4>>,
    cm3: Signal<Local, Bits<4>>,
    nm: Signal<Local, Bits<4>>,
    k_b0: Constant<Bits<4>>,
    k_b1: Constant<Bits<4>>,
    k_b2: Constant<Bits<4>>,
    k_b3: Constant<Bits<4>>,
    k_one16b: Constant<Bits<16>>,
    una_new: DFF<Bits<32>>,
    cack: DFF<Bits<32>>,
    sack_base: DFF<Bits<32>>,
    ack_scid: DFF<Bits<24>>,
    sack: DFF<Bits<256>>,
    invalid: DFF<Bit>,
    /// The result's `holes` (registered in ACK_OUT from the connection state after the ACK).
    holes: DFF<Bit>,
    adv: DFF<Bit>,
    /// The ACK is the connection's first valid one since its open: reported on `m_axis_una_*` even without
    /// an advance, so the transmit scheduler ends the SYN phase and learns the peer's CID (MR-CONN-6, MR-CONN-7).
    first: DFF<Bit>,
    sent: DFF<TxSent>,
    cnt: DFF<Bits<8>>,
    widx: DFF<Bits<6>>,
    prev_addr: DFF<Bits<22>>,
    scan_psn: DFF<Bits<32>>,
    sr: DFF<Bits<ALIGNED_BITS>>,
    acc_newly: DFF<Bits<16>>,
    acc_bytes: DFF<Bits<32>>,
    acc_dec: DFF<Bits<32>>,
    res_pend: DFF<Bit>,
    una_pend: DFF<Bit>,
    addr_l: Signal<Local, PsnAddr>,
    word_l: Signal<Local, PsnWord>,
    st_l: Signal<Local, ConnSnd>,
    base_l: Signal<Local, PsnSplit>,
    psn_l: Signal<Local, Bits<32>>,
    rd_st: Signal<Local, ConnSnd>,
    nw_l: Signal<Local, Bits<32>>,
    base32: Signal<Local, Bits<32>>,
    zx_sent: Signal<Local, Zx16>,
    c32_sent: Signal<Local, Bits<32>>,
    zx_rtx: Signal<Local, Zx16>,
    rtx_c32: Signal<Local, Bits<32>>,
    s_idle: Constant<Bits<5>>,
    s_sent_rd: Constant<Bits<5>>,
    s_sent_w: Constant<Bits<5>>,
    s_ack_rd: Constant<Bits<5>>,
    s_ack_align: Constant<Bits<5>>,
    s_ack_scan: Constant<Bits<5>>,
    s_ack_fin: Constant<Bits<5>>,
    s_ack_out: Constant<Bits<5>>,
    s_gap: Constant<Bits<5>>,
    s_cmd_rd: Constant<Bits<5>>,
    s_rec: Constant<Bits<5>>,
    s_det_align: Constant<Bits<5>>,
    s_det_scan: Constant<Bits<5>>,
    s_det_fin: Constant<Bits<5>>,
    s_cres_out: Constant<Bits<5>>,
    k_op_rto: Constant<Bits<2>>,
    k_op_peek: Constant<Bits<2>>,
    k_op_nack: Constant<Bits<2>>,
    k_cause_none: Constant<Bits<2>>,
    k_cause_trim: Constant<Bits<2>>,
    k_cause_loss: Constant<Bits<2>>,
    k_cause_rto: Constant<Bits<2>>,
    k_zero4: Constant<Bits<4>>,
    k_zero32: Constant<Bits<32>>,
    k_one32: Constant<Bits<32>>,
    k_aligned32: Constant<Bits<32>>,
    k_four32: Constant<Bits<32>>,
    k_half: Constant<Bits<32>>,
    k_zero2: Constant<Bits<2>>,
    k_l1: Constant<Bits<2>>,
    k_l2: Constant<Bits<2>>,
    k_l3: Constant<Bits<2>>,
    k_zero8: Constant<Bits<8>>,
    k_one8: Constant<Bits<8>>,
    k_two8: Constant<Bits<8>>,
    k_one6: Constant<Bits<6>>,
    k_zero16: Constant<Bits<16>>,
    k_p2: Constant<Bits<32>>,
    k_p3: Constant<Bits<32>>,
    _conn_bits: u32,
    _slot_bits: u32,
}

impl AckProc {
    /// An ACK processor for `1 << conn_bits` connections and `1 << slot_bits` window slots (the per-PSN RAM has
    /// `1 << (slot_bits + 6)` words).
    pub fn new(conn_bits: u32, slot_bits: u32) -> Self {
        assert!((1..=16).contains(&conn_bits) && (1..=conn_bits).contains(&slot_bits));
        AckProc {
            clk: Default::default(),
            rst: Default::default(),
            s_axis_open_tdata: Default::default(),
            s_axis_open_tvalid: Default::default(),
            s_axis_open_tready: Default::default(),
            s_axis_sent_tdata: Default::default(),
            s_axis_sent_tvalid: Default::default(),
            s_axis_sent_tready: Default::default(),
            s_axis_ack_tdata: Default::default(),
            s_axis_ack_tvalid: Default::default(),
            s_axis_ack_tready: Default::default(),
            m_axis_res_tdata: Default::default(),
            m_axis_res_tvalid: Default::default(),
            m_axis_res_tready: Default::default(),
            m_axis_una_tdata: Default::default(),
            m_axis_una_tvalid: Default::default(),
            m_axis_una_tready: Default::default(),
            s_axis_cmd_tdata: Default::default(),
            s_axis_cmd_tvalid: Default::default(),
            s_axis_cmd_tready: Default::default(),
            m_axis_cres_tdata: Default::default(),
            m_axis_cres_tvalid: Default::default(),
            m_axis_cres_tready: Default::default(),
            m_axis_lost_tdata: Default::default(),
            m_axis_lost_tvalid: Default::default(),
            m_axis_lost_tready: Default::default(),
            m_axis_clean_tdata: Default::default(),
            m_axis_clean_tvalid: Default::default(),
            m_axis_clean_tready: Default::default(),
            st_wr_en: Default::default(),
            st_wr_conn: Default::default(),
            st_wr: Default::default(),
            conn_ram: SdpRam::new(1 << conn_bits),
            psn_ram: SdpRam::new(1 << (slot_bits + 6)),
            fl_ram: SdpRam::new(1 << slot_bits),
            free_slots: Default::default(),
            slot_alloc: Default::default(),
            slot_miss: Default::default(),
            fl_head: Default::default(),
            fl_tail: Default::default(),
            fl_cnt: Default::default(),
            fresh: Default::default(),
            clr: Default::default(),
            op_isn: Default::default(),
            nowm: Default::default(),
            nowr: Default::default(),
            rtx_in: Default::default(),
            d_off0: Default::default(),
            d_off1: Default::default(),
            d_off2: Default::default(),
            d_off3: Default::default(),
            d_hoff0: Default::default(),
            d_hoff1: Default::default(),
            d_hoff2: Default::default(),
            d_hoff3: Default::default(),
            d_span: Default::default(),
            a_noff0: Default::default(),
            a_noff1: Default::default(),
            a_noff2: Default::default(),
            a_noff3: Default::default(),
            a_span_n: Default::default(),
            a_span_c: Default::default(),
            a_nspan: Default::default(),
            a_ne: Default::default(),
            z_sack: Default::default(),
            c_more: Default::default(),
            c_more_l: Default::default(),
            k_nine32: Constant::new(9u64.to_bits()),
            shift_q: Default::default(),
            far_q: Default::default(),
            off_l: Default::default(),
            r_found: Default::default(),
            r_ok: Default::default(),
            r_i: Default::default(),
            r_c32: Default::default(),
            s_rec2: Constant::new(22u64.to_bits()),
            s_ack_pre: Constant::new(21u64.to_bits()),
            p2_v: Default::default(),
            p2_ack: Default::default(),
            p2_cand: Default::default(),
            p2_x01_v: Default::default(),
            p2_x01: Default::default(),
            p2_x23_v: Default::default(),
            p2_x23: Default::default(),
            p3_v: Default::default(),
            p3_ack: Default::default(),
            p3_cand: Default::default(),
            p3_x_v: Default::default(),
            p3_x: Default::default(),
            p1_v: Default::default(),
            p1_ack: Default::default(),
            p1_m: Default::default(),
            p1_dm: Default::default(),
            p1_psn: Default::default(),
            p1_t0: Default::default(),
            p1_t1: Default::default(),
            p1_t2: Default::default(),
            p1_t3: Default::default(),
            p1_b0: Default::default(),
            p1_b1: Default::default(),
            p1_b2: Default::default(),
            p1_b3: Default::default(),
            p1_d0: Default::default(),
            p1_d1: Default::default(),
            p1_d2: Default::default(),
            p1_d3: Default::default(),
            hm0: Default::default(),
            hm1: Default::default(),
            hm2: Default::default(),
            hm3: Default::default(),
            pm0: Default::default(),
            pm1: Default::default(),
            pm2: Default::default(),
            pm3: Default::default(),
            q0: Default::default(),
            q1: Default::default(),
            q2: Default::default(),
            q3: Default::default(),
            r0: Default::default(),
            r1: Default::default(),
            r2: Default::default(),
            r3: Default::default(),
            f_cand: Default::default(),
            d01: Default::default(),
            d23: Default::default(),
            dx: Default::default(),
            dh: Default::default(),
            dr: Default::default(),
            x01_v: Default::default(),
            x01: Default::default(),
            x23_v: Default::default(),
            x23: Default::default(),
            x_v: Default::default(),
            x: Default::default(),
            pick1: Default::default(),
            pick3: Default::default(),
            pick23: Default::default(),
            s_ack_drain: Constant::new(19u64.to_bits()),
            s_det_drain: Constant::new(20u64.to_bits()),
            pop: Default::default(),
            push: Default::default(),
            push_slot: Default::default(),
            pop_slot: Default::default(),
            avail: Default::default(),
            zp0: Default::default(),
            zp1: Default::default(),
            zp2: Default::default(),
            zp3: Default::default(),
            rl_pz: Default::default(),
            k_nslots: Constant::new((1u64 << slot_bits).to_bits()),
            k_nconn: Constant::new((1u64 << conn_bits).to_bits()),
            k_smask: Constant::new(((1u64 << slot_bits) - 1).to_bits()),
            k_one17: Constant::new(1u64.to_bits()),
            k_zero17: Constant::new(0u64.to_bits()),
            s_clear: Constant::new(15u64.to_bits()),
            s_open_rd: Constant::new(16u64.to_bits()),
            s_sent_rd2: Constant::new(17u64.to_bits()),
            s_rec_rd: Constant::new(18u64.to_bits()),
            align: Default::default(),
            lane0: Default::default(),
            lane1: Default::default(),
            lane2: Default::default(),
            lane3: Default::default(),
            dlane0: Default::default(),
            dlane1: Default::default(),
            dlane2: Default::default(),
            dlane3: Default::default(),
            state: Default::default(),
            conn: Default::default(),
            st: Default::default(),
            cmd: Default::default(),
            ece: Default::default(),
            cres_pend: Default::default(),
            lost_pend: Default::default(),
            clean_pend: Default::default(),
            lost_w: Default::default(),
            clean_w: Default::default(),
            nlost: Default::default(),
            rk_armed: Default::default(),
            rk_at: Default::default(),
            queued: Default::default(),
            found: Default::default(),
            fpath: Default::default(),
            fev: Default::default(),
            lw_l: Default::default(),
            cw_l: Default::default(),
            lost_space: Default::default(),
            clean_space: Default::default(),
            rl_ts: Default::default(),
            rl_c: Default::default(),
            rl_p: Default::default(),
            rl_e: Default::default(),
            rl_i: Default::default(),
            rl_l: Default::default(),
            rl_a: Default::default(),
            rl_in: Default::default(),
            rl_ok: Default::default(),
            rl_zx: Default::default(),
            rl_c32: Default::default(),
            pb_l: Default::default(),
            det_cnt: Default::default(),
            dm0: Default::default(),
            dm1: Default::default(),
            dm2: Default::default(),
            dm3: Default::default(),
            cm0: Default::default(),
            cm1: Default::default(),
            cm2: Default::default(),
            cm3: Default::default(),
            nm: Default::default(),
            k_b0: Constant::new(1u64.to_bits()),
            k_b1: Constant::new(2u64.to_bits()),
            k_b2: Constant::new(4u64.to_bits()),
            k_b3: Constant::new(8u64.to_bits()),
            k_one16b: Constant::new(1u64.to_bits()),
            una_new: Default::default(),
            cack: Default::default(),
            ack_scid: Default::default(),
            sack_base: Default::default(),
            sack: Default::default(),
            invalid: Default::default(),
            holes: Default::default(),
            adv: Default::default(),
            first: Default::default(),
            sent: Default::default(),
            cnt: Default::default(),
            widx: Default::default(),
            prev_addr: Default::default(),
            scan_psn: Default::default(),
            sr: Default::default(),
            acc_newly: Default::default(),
            acc_bytes: Default::default(),
            acc_dec: Default::default(),
            res_pend: Default::default(),
            una_pend: Default::default(),
            addr_l: Default::default(),
            word_l: Default::default(),
            st_l: Default::default(),
            base_l: Default::default(),
            psn_l: Default::default(),
            rd_st: Default::default(),
            nw_l: Default::default(),
            base32: Default::default(),
            zx_sent: Default::default(),
            c32_sent: Default::default(),
            zx_rtx: Default::default(),
            rtx_c32: Default::default(),
            s_idle: Constant::new(0u64.to_bits()),
            s_sent_rd: Constant::new(1u64.to_bits()),
            s_sent_w: Constant::new(2u64.to_bits()),
            s_ack_rd: Constant::new(3u64.to_bits()),
            s_ack_align: Constant::new(4u64.to_bits()),
            s_ack_scan: Constant::new(5u64.to_bits()),
            s_ack_fin: Constant::new(6u64.to_bits()),
            s_ack_out: Constant::new(7u64.to_bits()),
            s_gap: Constant::new(8u64.to_bits()),
            s_cmd_rd: Constant::new(9u64.to_bits()),
            s_rec: Constant::new(10u64.to_bits()),
            s_det_align: Constant::new(11u64.to_bits()),
            s_det_scan: Constant::new(12u64.to_bits()),
            s_det_fin: Constant::new(13u64.to_bits()),
            s_cres_out: Constant::new(14u64.to_bits()),
            k_op_rto: Constant::new(CMD_RTO.to_bits()),
            k_op_peek: Constant::new(CMD_PEEK.to_bits()),
            k_op_nack: Constant::new(CMD_NACK.to_bits()),
            k_cause_none: Constant::new(CAUSE_NONE.to_bits()),
            k_cause_trim: Constant::new(CAUSE_TRIM.to_bits()),
            k_cause_loss: Constant::new(CAUSE_LOSS.to_bits()),
            k_cause_rto: Constant::new(CAUSE_RTO.to_bits()),
            k_zero4: Constant::new(0u64.to_bits()),
            k_zero32: Constant::new(0u64.to_bits()),
            k_one32: Constant::new(1u64.to_bits()),
            k_aligned32: Constant::new((ALIGNED_BITS as u64).to_bits()),
            k_four32: Constant::new(4u64.to_bits()),
            k_half: Constant::new(2147483648u64.to_bits()),
            k_zero2: Constant::new(0u64.to_bits()),
            k_l1: Constant::new(1u64.to_bits()),
            k_l2: Constant::new(2u64.to_bits()),
            k_l3: Constant::new(3u64.to_bits()),
            k_zero8: Constant::new(0u64.to_bits()),
            k_one8: Constant::new(1u64.to_bits()),
            k_two8: Constant::new(2u64.to_bits()),
            k_one6: Constant::new(1u64.to_bits()),
            k_zero16: Constant::new(0u64.to_bits()),
            k_p2: Constant::new(2u64.to_bits()),
            k_p3: Constant::new(3u64.to_bits()),
            _conn_bits: conn_bits,
            _slot_bits: slot_bits,
        }
    }
}

impl Logic for AckProc {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, state, conn, st, una_new, cack, sack_base, ack_scid, sack, invalid, adv,
            first, sent, cnt, widx, prev_addr, scan_psn, sr, acc_newly, acc_bytes, acc_dec,
            res_pend, una_pend, cmd, ece, cres_pend, lost_pend, clean_pend, lost_w, clean_w, nlost,
            rk_armed, rk_at, queued, found, fpath, fev, fl_head, fl_tail, fl_cnt, fresh, clr,
            op_isn, nowm, nowr, rtx_in, d_off0, d_off1, d_off2, d_off3, d_hoff0, d_hoff1, d_hoff2,
            d_hoff3, d_span, a_noff0, a_noff1, a_noff2, a_noff3, a_span_n, a_span_c, a_nspan, a_ne,
            shift_q, far_q, r_found, r_ok, r_i, r_c32, p1_v, p1_ack, p1_m, p1_dm, p1_psn, p1_t0,
            p1_t1, p1_t2, p1_t3, p1_b0, p1_b1, p1_b2, p1_b3, p1_d0, p1_d1, p1_d2, p1_d3, p2_v,
            p2_ack, p2_cand, p2_x01_v, p2_x01, p2_x23_v, p2_x23, p3_v, p3_ack, p3_cand, p3_x_v,
            p3_x, z_sack, c_more, holes
        );
        self.p1_v.d.next = false;
        // Free window slots: never-used ones first (`fresh`), then the FIFO of released ones. The FIFO's head
        // is read continuously; a pop comes at least two cycles after the push before it (commands are
        // separated by a gap cycle), so the read data is current.
        self.fl_ram.clk.next = self.clk.val();
        self.fl_ram.rd_addr.next = self.fl_head.q.val();
        self.fl_ram.wr_addr.next = self.fl_tail.q.val();
        self.pop.next = false;
        self.push.next = false;
        self.push_slot.next = self.st.q.val().slot;
        self.avail.next =
            self.fresh.q.val() != self.k_nslots.val() || self.fl_cnt.q.val() != self.k_zero17.val();
        self.pop_slot.next = self.fl_ram.rd_data.val();
        if self.fresh.q.val() != self.k_nslots.val() {
            self.pop_slot.next = self.fresh.q.val().get_bits::<16>(0);
        }
        self.slot_miss.next = false;
        self.conn_ram.clk.next = self.clk.val();
        self.psn_ram.clk.next = self.clk.val();
        self.align.clk.next = self.clk.val();
        self.conn_ram.wr_en.next = false;
        self.conn_ram.wr_addr.next = self.conn.q.val();
        self.conn_ram.rd_addr.next = self.conn.q.val();
        self.psn_ram.wr_en.next = false;
        self.psn_ram.wr_addr.next = self.prev_addr.q.val();
        self.addr_l.next.slot = self.st.q.val().slot;
        self.addr_l.next.word = self.widx.q.val();
        self.psn_ram.rd_addr.next = self.addr_l.val().into();
        self.align.sack.next = self.sack.q.val();
        self.c_more_l.next = self.a_noff0.q.val() + self.k_nine32.val();
        self.rd_st.next = self.conn_ram.rd_data.val();
        self.base_l.next.lo2 = self.k_zero2.val();
        self.base_l.next.hi = self.rd_st.val().una.get_bits::<30>(2);
        self.base32.next = self.base_l.val().into();
        // The aligner's shift, `(snd_una & !3) - sack_base + 260` (registered in ACK_RD).
        self.off_l.next = self.base32.val() - self.sack_base.q.val() + self.k_aligned32.val();
        self.align.shift.next = self.shift_q.q.val();
        self.align.far.next = self.far_q.q.val();
        self.st_l.next.una = self.st.q.val().una;
        self.st_l.next.nxt = self.st.q.val().nxt;
        self.st_l.next.inflight = self.st.q.val().inflight;
        self.st_l.next.highest = self.st.q.val().highest;
        self.st_l.next.any_acked = self.st.q.val().any_acked;
        self.st_l.next.rack_ts = self.st.q.val().rack_ts;
        self.st_l.next.slot = self.st.q.val().slot;
        self.st_l.next.has_slot = self.st.q.val().has_slot;
        self.st_l.next.answered = self.st.q.val().answered;
        self.word_l.next.t0 = self.psn_ram.rd_data.val().t0;
        self.word_l.next.c0 = self.psn_ram.rd_data.val().c0;
        self.word_l.next.p0 = self.psn_ram.rd_data.val().p0;
        self.word_l.next.e0 = self.psn_ram.rd_data.val().e0;
        self.word_l.next.i0 = self.psn_ram.rd_data.val().i0;
        self.word_l.next.l0 = self.psn_ram.rd_data.val().l0;
        self.word_l.next.a0 = self.psn_ram.rd_data.val().a0;
        self.word_l.next.t1 = self.psn_ram.rd_data.val().t1;
        self.word_l.next.c1 = self.psn_ram.rd_data.val().c1;
        self.word_l.next.p1 = self.psn_ram.rd_data.val().p1;
        self.word_l.next.e1 = self.psn_ram.rd_data.val().e1;
        self.word_l.next.i1 = self.psn_ram.rd_data.val().i1;
        self.word_l.next.l1 = self.psn_ram.rd_data.val().l1;
        self.word_l.next.a1 = self.psn_ram.rd_data.val().a1;
        self.word_l.next.t2 = self.psn_ram.rd_data.val().t2;
        self.word_l.next.c2 = self.psn_ram.rd_data.val().c2;
        self.word_l.next.p2 = self.psn_ram.rd_data.val().p2;
        self.word_l.next.e2 = self.psn_ram.rd_data.val().e2;
        self.word_l.next.i2 = self.psn_ram.rd_data.val().i2;
        self.word_l.next.l2 = self.psn_ram.rd_data.val().l2;
        self.word_l.next.a2 = self.psn_ram.rd_data.val().a2;
        self.word_l.next.t3 = self.psn_ram.rd_data.val().t3;
        self.word_l.next.c3 = self.psn_ram.rd_data.val().c3;
        self.word_l.next.p3 = self.psn_ram.rd_data.val().p3;
        self.word_l.next.e3 = self.psn_ram.rd_data.val().e3;
        self.word_l.next.i3 = self.psn_ram.rd_data.val().i3;
        self.word_l.next.l3 = self.psn_ram.rd_data.val().l3;
        self.word_l.next.a3 = self.psn_ram.rd_data.val().a3;
        self.s_axis_open_tready.next = false;
        self.s_axis_sent_tready.next = false;
        self.s_axis_ack_tready.next = false;
        self.psn_l.next = self.sent.q.val().psn;
        self.nw_l.next = self.k_zero32.val();
        self.det_cnt.next = self.k_zero32.val();
        self.zx_sent.next.lo = self.sent.q.val().charged;
        self.zx_sent.next.hi = self.k_zero16.val();
        self.c32_sent.next = self.zx_sent.val().into();
        // Charged bytes of the retransmitted PSN's record.
        self.zx_rtx.next.hi = self.k_zero16.val();
        self.zx_rtx.next.lo = self.psn_ram.rd_data.val().c0;
        if self.psn_l.val().get_bits::<2>(0) == self.k_l1.val() {
            self.zx_rtx.next.lo = self.psn_ram.rd_data.val().c1;
        }
        if self.psn_l.val().get_bits::<2>(0) == self.k_l2.val() {
            self.zx_rtx.next.lo = self.psn_ram.rd_data.val().c2;
        }
        if self.psn_l.val().get_bits::<2>(0) == self.k_l3.val() {
            self.zx_rtx.next.lo = self.psn_ram.rd_data.val().c3;
        }
        self.rtx_c32.next = self.zx_rtx.val().into();
        // The lanes' offsets, kept in registers stepped with the scan (`scan_psn` is a word's first PSN, a
        // multiple of 4: lane k's PSN is `scan_psn | k`).
        self.lane0.off.next = self.d_off0.q.val();
        self.lane1.off.next = self.d_off1.q.val();
        self.lane2.off.next = self.d_off2.q.val();
        self.lane3.off.next = self.d_off3.q.val();
        self.lane0.noff.next = self.a_noff0.q.val();
        self.lane1.noff.next = self.a_noff1.q.val();
        self.lane2.noff.next = self.a_noff2.q.val();
        self.lane3.noff.next = self.a_noff3.q.val();
        self.lane0.span_n.next = self.a_span_n.q.val();
        self.lane1.span_n.next = self.a_span_n.q.val();
        self.lane2.span_n.next = self.a_span_n.q.val();
        self.lane3.span_n.next = self.a_span_n.q.val();
        self.lane0.span_c.next = self.a_span_c.q.val();
        self.lane1.span_c.next = self.a_span_c.q.val();
        self.lane2.span_c.next = self.a_span_c.q.val();
        self.lane3.span_c.next = self.a_span_c.q.val();
        self.lane0.nspan.next = self.a_nspan.q.val();
        self.lane1.nspan.next = self.a_nspan.q.val();
        self.lane2.nspan.next = self.a_nspan.q.val();
        self.lane3.nspan.next = self.a_nspan.q.val();
        self.lane0.ne.next = self.a_ne.q.val();
        self.lane1.ne.next = self.a_ne.q.val();
        self.lane2.ne.next = self.a_ne.q.val();
        self.lane3.ne.next = self.a_ne.q.val();
        self.lane0.sack_bit.next = self.sr.q.val().get_bit(0);
        self.lane1.sack_bit.next = self.sr.q.val().get_bit(1);
        self.lane2.sack_bit.next = self.sr.q.val().get_bit(2);
        self.lane3.sack_bit.next = self.sr.q.val().get_bit(3);
        self.lane0.charged.next = self.psn_ram.rd_data.val().c0;
        self.lane1.charged.next = self.psn_ram.rd_data.val().c1;
        self.lane2.charged.next = self.psn_ram.rd_data.val().c2;
        self.lane3.charged.next = self.psn_ram.rd_data.val().c3;
        self.lane0.inflight.next = self.psn_ram.rd_data.val().i0;
        self.lane1.inflight.next = self.psn_ram.rd_data.val().i1;
        self.lane2.inflight.next = self.psn_ram.rd_data.val().i2;
        self.lane3.inflight.next = self.psn_ram.rd_data.val().i3;
        self.lane0.acked.next = self.psn_ram.rd_data.val().a0;
        self.lane1.acked.next = self.psn_ram.rd_data.val().a1;
        self.lane2.acked.next = self.psn_ram.rd_data.val().a2;
        self.lane3.acked.next = self.psn_ram.rd_data.val().a3;
        self.lane0.lost.next = self.psn_ram.rd_data.val().l0;
        self.lane1.lost.next = self.psn_ram.rd_data.val().l1;
        self.lane2.lost.next = self.psn_ram.rd_data.val().l2;
        self.lane3.lost.next = self.psn_ram.rd_data.val().l3;
        // Loss-detection lanes (detection and timeout runs).
        self.dlane0.rto_mode.next = self.cmd.q.val().op == self.k_op_rto.val();
        self.dlane0.off.next = self.d_off0.q.val();
        self.dlane0.hoff.next = self.d_hoff0.q.val();
        self.dlane0.span.next = self.d_span.q.val();
        self.dlane0.rack_ts.next = self.st.q.val().rack_ts;
        self.dlane0.now_m.next = self.nowm.q.val();
        self.dlane0.distance.next = self.cmd.q.val().distance;
        self.dlane0.now_r.next = self.nowr.q.val();
        self.dlane0.ts.next = self.psn_ram.rd_data.val().t0;
        self.dlane0.charged.next = self.psn_ram.rd_data.val().c0;
        self.dlane0.inflight.next = self.psn_ram.rd_data.val().i0;
        self.dlane0.acked.next = self.psn_ram.rd_data.val().a0;
        self.dlane0.lost.next = self.psn_ram.rd_data.val().l0;
        self.dlane1.rto_mode.next = self.cmd.q.val().op == self.k_op_rto.val();
        self.dlane1.off.next = self.d_off1.q.val();
        self.dlane1.hoff.next = self.d_hoff1.q.val();
        self.dlane1.span.next = self.d_span.q.val();
        self.dlane1.rack_ts.next = self.st.q.val().rack_ts;
        self.dlane1.now_m.next = self.nowm.q.val();
        self.dlane1.distance.next = self.cmd.q.val().distance;
        self.dlane1.now_r.next = self.nowr.q.val();
        self.dlane1.ts.next = self.psn_ram.rd_data.val().t1;
        self.dlane1.charged.next = self.psn_ram.rd_data.val().c1;
        self.dlane1.inflight.next = self.psn_ram.rd_data.val().i1;
        self.dlane1.acked.next = self.psn_ram.rd_data.val().a1;
        self.dlane1.lost.next = self.psn_ram.rd_data.val().l1;
        self.dlane2.rto_mode.next = self.cmd.q.val().op == self.k_op_rto.val();
        self.dlane2.off.next = self.d_off2.q.val();
        self.dlane2.hoff.next = self.d_hoff2.q.val();
        self.dlane2.span.next = self.d_span.q.val();
        self.dlane2.rack_ts.next = self.st.q.val().rack_ts;
        self.dlane2.now_m.next = self.nowm.q.val();
        self.dlane2.distance.next = self.cmd.q.val().distance;
        self.dlane2.now_r.next = self.nowr.q.val();
        self.dlane2.ts.next = self.psn_ram.rd_data.val().t2;
        self.dlane2.charged.next = self.psn_ram.rd_data.val().c2;
        self.dlane2.inflight.next = self.psn_ram.rd_data.val().i2;
        self.dlane2.acked.next = self.psn_ram.rd_data.val().a2;
        self.dlane2.lost.next = self.psn_ram.rd_data.val().l2;
        self.dlane3.rto_mode.next = self.cmd.q.val().op == self.k_op_rto.val();
        self.dlane3.off.next = self.d_off3.q.val();
        self.dlane3.hoff.next = self.d_hoff3.q.val();
        self.dlane3.span.next = self.d_span.q.val();
        self.dlane3.rack_ts.next = self.st.q.val().rack_ts;
        self.dlane3.now_m.next = self.nowm.q.val();
        self.dlane3.distance.next = self.cmd.q.val().distance;
        self.dlane3.now_r.next = self.nowr.q.val();
        self.dlane3.ts.next = self.psn_ram.rd_data.val().t3;
        self.dlane3.charged.next = self.psn_ram.rd_data.val().c3;
        self.dlane3.inflight.next = self.psn_ram.rd_data.val().i3;
        self.dlane3.acked.next = self.psn_ram.rd_data.val().a3;
        self.dlane3.lost.next = self.psn_ram.rd_data.val().l3;
        self.dm0.next = self.k_zero4.val();
        if self.dlane0.declare.val() {
            self.dm0.next = self.k_b0.val();
        }
        self.pm0.next = self.k_zero4.val();
        if self.dlane0.pend.val() {
            self.pm0.next = self.k_b0.val();
        }
        self.hm0.next = self.k_zero4.val();
        self.cm0.next = self.k_zero4.val();
        if self.lane0.hit.val() {
            self.hm0.next = self.k_b0.val();
            if !self.ece.q.val() {
                self.cm0.next = self.k_b0.val();
            }
        }
        self.dm1.next = self.k_zero4.val();
        if self.dlane1.declare.val() {
            self.dm1.next = self.k_b1.val();
        }
        self.pm1.next = self.k_zero4.val();
        if self.dlane1.pend.val() {
            self.pm1.next = self.k_b1.val();
        }
        self.hm1.next = self.k_zero4.val();
        self.cm1.next = self.k_zero4.val();
        if self.lane1.hit.val() {
            self.hm1.next = self.k_b1.val();
            if !self.ece.q.val() {
                self.cm1.next = self.k_b1.val();
            }
        }
        self.dm2.next = self.k_zero4.val();
        if self.dlane2.declare.val() {
            self.dm2.next = self.k_b2.val();
        }
        self.pm2.next = self.k_zero4.val();
        if self.dlane2.pend.val() {
            self.pm2.next = self.k_b2.val();
        }
        self.hm2.next = self.k_zero4.val();
        self.cm2.next = self.k_zero4.val();
        if self.lane2.hit.val() {
            self.hm2.next = self.k_b2.val();
            if !self.ece.q.val() {
                self.cm2.next = self.k_b2.val();
            }
        }
        self.dm3.next = self.k_zero4.val();
        if self.dlane3.declare.val() {
            self.dm3.next = self.k_b3.val();
        }
        self.pm3.next = self.k_zero4.val();
        if self.dlane3.pend.val() {
            self.pm3.next = self.k_b3.val();
        }
        self.hm3.next = self.k_zero4.val();
        self.cm3.next = self.k_zero4.val();
        if self.lane3.hit.val() {
            self.hm3.next = self.k_b3.val();
            if !self.ece.q.val() {
                self.cm3.next = self.k_b3.val();
            }
        }
        // Lost and clean words.
        self.lw_l.next.conn = self.conn.q.val();
        self.lw_l.next.psn = self.scan_psn.q.val();
        self.lw_l.next.mask = self.dm0.val() | self.dm1.val() | self.dm2.val() | self.dm3.val();
        self.lw_l.next.cause = self.k_cause_loss.val();
        if self.cmd.q.val().op == self.k_op_rto.val() {
            self.lw_l.next.cause = self.k_cause_rto.val();
        }
        self.lw_l.next.far = self.k_zero4.val();
        if self.dlane0.by_far.val() {
            self.lw_l.next.far = self.k_b0.val();
        }
        if self.dlane1.by_far.val() {
            self.lw_l.next.far = self.lw_l.val().far | self.k_b1.val();
        }
        if self.dlane2.by_far.val() {
            self.lw_l.next.far = self.lw_l.val().far | self.k_b2.val();
        }
        if self.dlane3.by_far.val() {
            self.lw_l.next.far = self.lw_l.val().far | self.k_b3.val();
        }
        self.cw_l.next.conn = self.conn.q.val();
        self.cw_l.next.psn = self.scan_psn.q.val();
        self.cw_l.next.mask = self.cm0.val() | self.cm1.val() | self.cm2.val() | self.cm3.val();
        self.cw_l.next.cause = self.k_cause_none.val();
        self.cw_l.next.far = self.k_zero4.val();
        self.zp0.next.lo = self.psn_ram.rd_data.val().p0;
        self.zp0.next.hi = 0.into();
        self.lw_l.next.p0 = self.zp0.val().into();
        self.lw_l.next.e0 = self.psn_ram.rd_data.val().e0;
        self.cw_l.next.p0 = self.zp0.val().into();
        self.cw_l.next.e0 = self.psn_ram.rd_data.val().e0;
        self.zp1.next.lo = self.psn_ram.rd_data.val().p1;
        self.zp1.next.hi = 0.into();
        self.lw_l.next.p1 = self.zp1.val().into();
        self.lw_l.next.e1 = self.psn_ram.rd_data.val().e1;
        self.cw_l.next.p1 = self.zp1.val().into();
        self.cw_l.next.e1 = self.psn_ram.rd_data.val().e1;
        self.zp2.next.lo = self.psn_ram.rd_data.val().p2;
        self.zp2.next.hi = 0.into();
        self.lw_l.next.p2 = self.zp2.val().into();
        self.lw_l.next.e2 = self.psn_ram.rd_data.val().e2;
        self.cw_l.next.p2 = self.zp2.val().into();
        self.cw_l.next.e2 = self.psn_ram.rd_data.val().e2;
        self.zp3.next.lo = self.psn_ram.rd_data.val().p3;
        self.zp3.next.hi = 0.into();
        self.lw_l.next.p3 = self.zp3.val().into();
        self.lw_l.next.e3 = self.psn_ram.rd_data.val().e3;
        self.cw_l.next.p3 = self.zp3.val().into();
        self.cw_l.next.e3 = self.psn_ram.rd_data.val().e3;
        // The record of a peeked / nacked PSN (lane psn[1:0]).
        self.rl_ts.next = self.psn_ram.rd_data.val().t0;
        self.rl_c.next = self.psn_ram.rd_data.val().c0;
        self.rl_p.next = self.psn_ram.rd_data.val().p0;
        self.rl_e.next = self.psn_ram.rd_data.val().e0;
        self.rl_i.next = self.psn_ram.rd_data.val().i0;
        self.rl_l.next = self.psn_ram.rd_data.val().l0;
        self.rl_a.next = self.psn_ram.rd_data.val().a0;
        self.nm.next = self.k_b0.val();
        if self.cmd.q.val().psn.get_bits::<2>(0) == self.k_l1.val() {
            self.rl_ts.next = self.psn_ram.rd_data.val().t1;
            self.rl_c.next = self.psn_ram.rd_data.val().c1;
            self.rl_p.next = self.psn_ram.rd_data.val().p1;
            self.rl_e.next = self.psn_ram.rd_data.val().e1;
            self.rl_i.next = self.psn_ram.rd_data.val().i1;
            self.rl_l.next = self.psn_ram.rd_data.val().l1;
            self.rl_a.next = self.psn_ram.rd_data.val().a1;
            self.nm.next = self.k_b1.val();
        }
        if self.cmd.q.val().psn.get_bits::<2>(0) == self.k_l2.val() {
            self.rl_ts.next = self.psn_ram.rd_data.val().t2;
            self.rl_c.next = self.psn_ram.rd_data.val().c2;
            self.rl_p.next = self.psn_ram.rd_data.val().p2;
            self.rl_e.next = self.psn_ram.rd_data.val().e2;
            self.rl_i.next = self.psn_ram.rd_data.val().i2;
            self.rl_l.next = self.psn_ram.rd_data.val().l2;
            self.rl_a.next = self.psn_ram.rd_data.val().a2;
            self.nm.next = self.k_b2.val();
        }
        if self.cmd.q.val().psn.get_bits::<2>(0) == self.k_l3.val() {
            self.rl_ts.next = self.psn_ram.rd_data.val().t3;
            self.rl_c.next = self.psn_ram.rd_data.val().c3;
            self.rl_p.next = self.psn_ram.rd_data.val().p3;
            self.rl_e.next = self.psn_ram.rd_data.val().e3;
            self.rl_i.next = self.psn_ram.rd_data.val().i3;
            self.rl_l.next = self.psn_ram.rd_data.val().l3;
            self.rl_a.next = self.psn_ram.rd_data.val().a3;
            self.nm.next = self.k_b3.val();
        }
        self.rl_zx.next.lo = self.rl_c.val();
        self.rl_zx.next.hi = self.k_zero16.val();
        self.rl_c32.next = self.rl_zx.val().into();
        self.rl_pz.next.lo = self.rl_p.val();
        self.rl_pz.next.hi = 0.into();
        self.pb_l.next.lo2 = self.k_zero2.val();
        self.pb_l.next.hi = self.cmd.q.val().psn.get_bits::<30>(2);
        self.rl_in.next = (self.cmd.q.val().psn - self.st.q.val().una)
            < (self.st.q.val().nxt - self.st.q.val().una);
        self.rl_ok.next = self.rl_in.val()
            && !self.rl_a.val()
            && !self.rl_l.val()
            && (!self.cmd.q.val().trim || self.rl_ts.val() == self.cmd.q.val().echo_ts);
        self.s_axis_cmd_tready.next = false;
        self.m_axis_cres_tvalid.next = self.cres_pend.q.val();
        self.m_axis_cres_tdata.next.conn = self.conn.q.val();
        self.m_axis_cres_tdata.next.found = self.found.q.val();
        self.m_axis_cres_tdata.next.path = self.fpath.q.val();
        self.m_axis_cres_tdata.next.ev = self.fev.q.val();
        self.m_axis_cres_tdata.next.nlost = self.nlost.q.val();
        self.m_axis_cres_tdata.next.rack_armed = self.rk_armed.q.val();
        self.m_axis_cres_tdata.next.rack_at = self.rk_at.q.val();
        self.m_axis_cres_tdata.next.queued = self.queued.q.val();
        self.m_axis_cres_tdata.next.outstanding = self.st.q.val().una != self.st.q.val().nxt;
        self.m_axis_lost_tvalid.next = self.lost_pend.q.val();
        self.m_axis_lost_tdata.next = self.lost_w.q.val();
        self.m_axis_clean_tvalid.next = self.clean_pend.q.val();
        self.m_axis_clean_tdata.next = self.clean_w.q.val();
        if self.m_axis_cres_tready.val() {
            self.cres_pend.d.next = false;
        }
        if self.m_axis_lost_tready.val() {
            self.lost_pend.d.next = false;
        }
        if self.m_axis_clean_tready.val() {
            self.clean_pend.d.next = false;
        }
        self.lost_space.next = !self.lost_pend.q.val() || self.m_axis_lost_tready.val();
        self.clean_space.next = !self.clean_pend.q.val() || self.m_axis_clean_tready.val();
        // Outputs.
        self.m_axis_res_tvalid.next = self.res_pend.q.val();
        self.m_axis_una_tvalid.next = self.una_pend.q.val();
        self.m_axis_res_tdata.next.conn = self.conn.q.val();
        self.m_axis_res_tdata.next.newly = self.acc_newly.q.val();
        self.m_axis_res_tdata.next.bytes = self.acc_bytes.q.val();
        self.m_axis_res_tdata.next.cack_advanced = self.adv.q.val();
        self.m_axis_res_tdata.next.invalid = self.invalid.q.val();
        self.m_axis_res_tdata.next.snd_una = self.st.q.val().una;
        self.m_axis_res_tdata.next.idle = self.st.q.val().una == self.st.q.val().nxt;
        self.m_axis_res_tdata.next.inflight = self.st.q.val().inflight;
        self.m_axis_res_tdata.next.holes = self.holes.q.val();
        self.m_axis_una_tdata.next.conn = self.conn.q.val();
        self.m_axis_una_tdata.next.snd_una = self.st.q.val().una;
        self.m_axis_una_tdata.next.peer_cid = self.ack_scid.q.val();
        if self.m_axis_res_tready.val() {
            self.res_pend.d.next = false;
        }
        if self.m_axis_una_tready.val() {
            self.una_pend.d.next = false;
        }
        if self.state.q.val() == self.s_idle.val() {
            if self.s_axis_open_tvalid.val() {
                self.s_axis_open_tready.next = true;
                self.conn.d.next = self.s_axis_open_tdata.val().conn;
                self.op_isn.d.next = self.s_axis_open_tdata.val().isn;
                self.conn_ram.rd_addr.next = self.s_axis_open_tdata.val().conn;
                self.state.d.next = self.s_open_rd.val();
            } else if self.s_axis_sent_tvalid.val() {
                self.s_axis_sent_tready.next = true;
                self.conn.d.next = self.s_axis_sent_tdata.val().conn;
                self.sent.d.next = self.s_axis_sent_tdata.val();
                self.conn_ram.rd_addr.next = self.s_axis_sent_tdata.val().conn;
                self.widx.d.next = self.s_axis_sent_tdata.val().psn.get_bits::<6>(2);
                self.state.d.next = self.s_sent_rd.val();
            } else if self.s_axis_ack_tvalid.val() {
                self.s_axis_ack_tready.next = true;
                self.conn.d.next = self.s_axis_ack_tdata.val().conn;
                self.cack.d.next = self.s_axis_ack_tdata.val().psn;
                self.sack_base.d.next = self.s_axis_ack_tdata.val().sack_base;
                self.ack_scid.d.next = self.s_axis_ack_tdata.val().scid;
                self.sack.d.next = self.s_axis_ack_tdata.val().sack;
                self.ece.d.next = self.s_axis_ack_tdata.val().aflags.get_bit(7);
                self.conn_ram.rd_addr.next = self.s_axis_ack_tdata.val().conn;
                self.state.d.next = self.s_ack_rd.val();
            } else if self.s_axis_cmd_tvalid.val() {
                self.s_axis_cmd_tready.next = true;
                self.conn.d.next = self.s_axis_cmd_tdata.val().conn;
                self.cmd.d.next = self.s_axis_cmd_tdata.val();
                self.conn_ram.rd_addr.next = self.s_axis_cmd_tdata.val().conn;
                self.widx.d.next = self.s_axis_cmd_tdata.val().psn.get_bits::<6>(2);
                self.state.d.next = self.s_cmd_rd.val();
            }
        } else if self.state.q.val() == self.s_open_rd.val() {
            // SendWindow::new: una = nxt = isn; a slot the connection still held is released.
            if self.rd_st.val().has_slot {
                self.push.next = true;
                self.push_slot.next = self.rd_st.val().slot;
            }
            self.st_l.next.una = self.op_isn.q.val();
            self.st_l.next.nxt = self.op_isn.q.val();
            self.st_l.next.inflight = self.k_zero32.val();
            self.st_l.next.highest = self.op_isn.q.val();
            self.st_l.next.any_acked = false;
            self.st_l.next.rack_ts = self.k_zero32.val();
            self.st_l.next.slot = self.k_zero16.val();
            self.st_l.next.has_slot = false;
            self.st_l.next.answered = false;
            self.conn_ram.wr_en.next = true;
            self.state.d.next = self.s_gap.val();
        } else if self.state.q.val() == self.s_clear.val() {
            // After reset: every connection without state or slot (the engine's copy is cleared through the
            // write tap).
            self.st_l.next.una = self.k_zero32.val();
            self.st_l.next.nxt = self.k_zero32.val();
            self.st_l.next.inflight = self.k_zero32.val();
            self.st_l.next.highest = self.k_zero32.val();
            self.st_l.next.any_acked = false;
            self.st_l.next.rack_ts = self.k_zero32.val();
            self.st_l.next.slot = self.k_zero16.val();
            self.st_l.next.has_slot = false;
            self.st_l.next.answered = false;
            self.conn_ram.wr_addr.next = self.clr.q.val().get_bits::<16>(0);
            self.conn_ram.wr_en.next = true;
            self.clr.d.next = self.clr.q.val() + self.k_one17.val();
            if self.clr.q.val() + self.k_one17.val() == self.k_nconn.val() {
                self.state.d.next = self.s_idle.val();
            }
        } else if self.state.q.val() == self.s_sent_rd.val() {
            // The connection state is on rd_data. A new PSN of a connection without a window slot (nothing
            // outstanding) takes one; without a free slot the transmission is not recorded (slot_miss).
            self.st.d.next = self.rd_st.val();
            self.state.d.next = self.s_sent_rd2.val();
            if !self.sent.q.val().rtx && !self.rd_st.val().has_slot {
                if self.avail.val() {
                    self.pop.next = true;
                    self.st.d.next.slot = self.pop_slot.val();
                    self.st.d.next.has_slot = true;
                } else {
                    self.slot_miss.next = true;
                    self.state.d.next = self.s_gap.val();
                }
            }
        } else if self.state.q.val() == self.s_sent_rd2.val() {
            // Read the PSN's word in the connection's slot; a retransmission's PSN is tested against the window
            // here, registered for `s_sent_w`.
            self.prev_addr.d.next = self.addr_l.val().into();
            self.rtx_in.d.next = (self.psn_l.val() - self.st.q.val().una)
                < (self.st.q.val().nxt - self.st.q.val().una);
            self.state.d.next = self.s_sent_w.val();
        } else if self.state.q.val() == self.s_sent_w.val() {
            self.state.d.next = self.s_gap.val();
            if !self.sent.q.val().rtx {
                // on_send: a new record, in flight.
                self.st_l.next.nxt = self.psn_l.val() + self.k_one32.val();
                self.st_l.next.inflight = self.st.q.val().inflight + self.c32_sent.val();
                self.conn_ram.wr_en.next = true;
                self.psn_ram.wr_en.next = true;
                if self.psn_l.val().get_bits::<2>(0) == self.k_zero2.val() {
                    self.word_l.next.t0 = self.sent.q.val().ts;
                    self.word_l.next.c0 = self.sent.q.val().charged;
                    self.word_l.next.p0 = self.sent.q.val().path.get_bits::<6>(0);
                    self.word_l.next.e0 = self.sent.q.val().ev;
                    self.word_l.next.i0 = true;
                    self.word_l.next.l0 = false;
                    self.word_l.next.a0 = false;
                } else if self.psn_l.val().get_bits::<2>(0) == self.k_l1.val() {
                    self.word_l.next.t1 = self.sent.q.val().ts;
                    self.word_l.next.c1 = self.sent.q.val().charged;
                    self.word_l.next.p1 = self.sent.q.val().path.get_bits::<6>(0);
                    self.word_l.next.e1 = self.sent.q.val().ev;
                    self.word_l.next.i1 = true;
                    self.word_l.next.l1 = false;
                    self.word_l.next.a1 = false;
                } else if self.psn_l.val().get_bits::<2>(0) == self.k_l2.val() {
                    self.word_l.next.t2 = self.sent.q.val().ts;
                    self.word_l.next.c2 = self.sent.q.val().charged;
                    self.word_l.next.p2 = self.sent.q.val().path.get_bits::<6>(0);
                    self.word_l.next.e2 = self.sent.q.val().ev;
                    self.word_l.next.i2 = true;
                    self.word_l.next.l2 = false;
                    self.word_l.next.a2 = false;
                } else {
                    self.word_l.next.t3 = self.sent.q.val().ts;
                    self.word_l.next.c3 = self.sent.q.val().charged;
                    self.word_l.next.p3 = self.sent.q.val().path.get_bits::<6>(0);
                    self.word_l.next.e3 = self.sent.q.val().ev;
                    self.word_l.next.i3 = true;
                    self.word_l.next.l3 = false;
                    self.word_l.next.a3 = false;
                }
            } else if self.rtx_in.q.val() {
                // on_retransmit: new TS and path, back in flight.
                self.conn_ram.wr_en.next = true;
                self.psn_ram.wr_en.next = true;
                if self.psn_l.val().get_bits::<2>(0) == self.k_zero2.val() {
                    self.word_l.next.t0 = self.sent.q.val().ts;
                    self.word_l.next.p0 = self.sent.q.val().path.get_bits::<6>(0);
                    self.word_l.next.e0 = self.sent.q.val().ev;
                    self.word_l.next.l0 = false;
                    self.word_l.next.i0 = true;
                    if !self.psn_ram.rd_data.val().i0 {
                        self.st_l.next.inflight = self.st.q.val().inflight + self.rtx_c32.val();
                    }
                } else if self.psn_l.val().get_bits::<2>(0) == self.k_l1.val() {
                    self.word_l.next.t1 = self.sent.q.val().ts;
                    self.word_l.next.p1 = self.sent.q.val().path.get_bits::<6>(0);
                    self.word_l.next.e1 = self.sent.q.val().ev;
                    self.word_l.next.l1 = false;
                    self.word_l.next.i1 = true;
                    if !self.psn_ram.rd_data.val().i1 {
                        self.st_l.next.inflight = self.st.q.val().inflight + self.rtx_c32.val();
                    }
                } else if self.psn_l.val().get_bits::<2>(0) == self.k_l2.val() {
                    self.word_l.next.t2 = self.sent.q.val().ts;
                    self.word_l.next.p2 = self.sent.q.val().path.get_bits::<6>(0);
                    self.word_l.next.e2 = self.sent.q.val().ev;
                    self.word_l.next.l2 = false;
                    self.word_l.next.i2 = true;
                    if !self.psn_ram.rd_data.val().i2 {
                        self.st_l.next.inflight = self.st.q.val().inflight + self.rtx_c32.val();
                    }
                } else {
                    self.word_l.next.t3 = self.sent.q.val().ts;
                    self.word_l.next.p3 = self.sent.q.val().path.get_bits::<6>(0);
                    self.word_l.next.e3 = self.sent.q.val().ev;
                    self.word_l.next.l3 = false;
                    self.word_l.next.i3 = true;
                    if !self.psn_ram.rd_data.val().i3 {
                        self.st_l.next.inflight = self.st.q.val().inflight + self.rtx_c32.val();
                    }
                }
            }
        } else if self.state.q.val() == self.s_ack_rd.val() {
            // The connection state is on rd_data: validity, the new snd_una, the scan range; align the SACK.
            self.st.d.next = self.rd_st.val();
            self.invalid.d.next = (self.cack.q.val() - self.rd_st.val().nxt) < self.k_half.val()
                && self.cack.q.val() != self.rd_st.val().nxt;
            self.adv.d.next = (self.cack.q.val() - self.rd_st.val().una) < self.k_half.val()
                && self.cack.q.val() != self.rd_st.val().una;
            self.first.d.next = !self.rd_st.val().answered;
            self.una_new.d.next = self.rd_st.val().una;
            if (self.cack.q.val() - self.rd_st.val().una) < self.k_half.val() {
                self.una_new.d.next = self.cack.q.val();
            }
            self.scan_psn.d.next = self.base32.val();
            self.widx.d.next = self.rd_st.val().una.get_bits::<6>(2);
            self.nw_l.next = self.rd_st.val().nxt - self.k_one32.val() - self.base32.val();
            self.cnt.d.next = self.nw_l.val().get_bits::<8>(2) + self.k_one8.val();
            if self.rd_st.val().nxt == self.rd_st.val().una {
                self.cnt.d.next = self.k_zero8.val();
            }
            self.acc_newly.d.next = self.k_zero16.val();
            self.acc_bytes.d.next = self.k_zero32.val();
            self.acc_dec.d.next = self.k_zero32.val();
            // The aligner's offset as its shift and range flag (see `SackAlign`), registered; the aligned bitmap
            // is valid in the second cycle after (ACK_ALIGN), held until then.
            self.shift_q.d.next = self.off_l.val().get_bits::<10>(0);
            self.far_q.d.next = self.off_l.val().get_bits::<22>(10).any();
            self.state.d.next = self.s_ack_pre.val();
        } else if self.state.q.val() == self.s_ack_align.val() {
            self.sr.d.next = self.align.aligned.val();
            // The first word does not end the scan early (its stop tests are not known yet).
            self.z_sack.d.next = false;
            self.c_more.d.next = true;
            self.prev_addr.d.next = self.addr_l.val().into();
            self.widx.d.next = self.widx.q.val() + self.k_one6.val();
            if self.invalid.q.val() {
                self.adv.d.next = false;
                self.first.d.next = false;
                self.state.d.next = self.s_ack_out.val();
            } else if self.cnt.q.val() == self.k_zero8.val() {
                self.state.d.next = self.s_ack_fin.val();
            } else {
                self.state.d.next = self.s_ack_scan.val();
            }
        } else if self.state.q.val() == self.s_ack_scan.val() {
            // One word: its 4 PSNs through the lanes, written back; the next word's read is issued. While the
            // clean-word output is full, the word is read again and nothing changes.
            if !self.clean_space.val() {
                self.psn_ram.rd_addr.next = self.prev_addr.q.val();
            } else {
                self.psn_ram.wr_en.next = true;
                if self.cw_l.val().mask != self.k_zero4.val() {
                    self.clean_pend.d.next = true;
                    self.clean_w.d.next = self.cw_l.val();
                }
                self.word_l.next.i0 = self.lane0.inflight_out.val();
                self.word_l.next.a0 = self.lane0.acked_out.val();
                self.word_l.next.l0 = self.lane0.lost_out.val();
                self.word_l.next.i1 = self.lane1.inflight_out.val();
                self.word_l.next.a1 = self.lane1.acked_out.val();
                self.word_l.next.l1 = self.lane1.lost_out.val();
                self.word_l.next.i2 = self.lane2.inflight_out.val();
                self.word_l.next.a2 = self.lane2.acked_out.val();
                self.word_l.next.l2 = self.lane2.lost_out.val();
                self.word_l.next.i3 = self.lane3.inflight_out.val();
                self.word_l.next.a3 = self.lane3.acked_out.val();
                self.word_l.next.l3 = self.lane3.lost_out.val();
                // The word's lanes go to the accumulation stage (folded next cycle).
                self.p1_v.d.next = true;
                self.p1_ack.d.next = true;
                self.p1_m.d.next =
                    self.hm0.val() | self.hm1.val() | self.hm2.val() | self.hm3.val();
                self.p1_psn.d.next = self.scan_psn.q.val();
                self.p1_t0.d.next = self.psn_ram.rd_data.val().t0;
                self.p1_t1.d.next = self.psn_ram.rd_data.val().t1;
                self.p1_t2.d.next = self.psn_ram.rd_data.val().t2;
                self.p1_t3.d.next = self.psn_ram.rd_data.val().t3;
                self.p1_b0.d.next = self.lane0.bytes.val();
                self.p1_b1.d.next = self.lane1.bytes.val();
                self.p1_b2.d.next = self.lane2.bytes.val();
                self.p1_b3.d.next = self.lane3.bytes.val();
                self.p1_d0.d.next = self.lane0.dec.val();
                self.p1_d1.d.next = self.lane1.dec.val();
                self.p1_d2.d.next = self.lane2.dec.val();
                self.p1_d3.d.next = self.lane3.dec.val();
                self.sr.d.next = self.sr.q.val() >> 4;
                self.scan_psn.d.next = self.scan_psn.q.val() + self.k_four32.val();
                self.d_off0.d.next = self.d_off0.q.val() + self.k_four32.val();
                self.d_off1.d.next = self.d_off1.q.val() + self.k_four32.val();
                self.d_off2.d.next = self.d_off2.q.val() + self.k_four32.val();
                self.d_off3.d.next = self.d_off3.q.val() + self.k_four32.val();
                self.a_noff0.d.next = self.a_noff0.q.val() + self.k_four32.val();
                self.a_noff1.d.next = self.a_noff1.q.val() + self.k_four32.val();
                self.a_noff2.d.next = self.a_noff2.q.val() + self.k_four32.val();
                self.a_noff3.d.next = self.a_noff3.q.val() + self.k_four32.val();
                self.prev_addr.d.next = self.addr_l.val().into();
                self.widx.d.next = self.widx.q.val() + self.k_one6.val();
                self.cnt.d.next = self.cnt.q.val() - self.k_one8.val();
                // The words after the next one: any SACK bit, any PSN below `una_new`.
                self.z_sack.d.next = !self.sr.q.val().get_bits::<SR_REST>(8).any();
                self.c_more.d.next = self.c_more_l.val().get_bit(31);
                if self.cnt.q.val() == self.k_one8.val() {
                    self.state.d.next = self.s_ack_drain.val();
                } else if self.z_sack.q.val() && !self.c_more.q.val() {
                    // Nothing after this word changes (no PSN of it is acknowledged cumulatively or
                    // selectively): the scan ends here, as the model's on_ack touches only those PSNs.
                    self.cnt.d.next = self.k_zero8.val();
                    self.state.d.next = self.s_ack_drain.val();
                }
            }
        } else if self.state.q.val() == self.s_ack_pre.val() {
            // The ACK lanes' offsets for the run's first word and its ranges, from the registers of ACK_RD.
            self.d_off0.d.next = self.scan_psn.q.val() - self.st.q.val().una;
            self.d_off1.d.next = (self.scan_psn.q.val() | self.k_one32.val()) - self.st.q.val().una;
            self.d_off2.d.next = (self.scan_psn.q.val() | self.k_p2.val()) - self.st.q.val().una;
            self.d_off3.d.next = (self.scan_psn.q.val() | self.k_p3.val()) - self.st.q.val().una;
            self.a_noff0.d.next = self.scan_psn.q.val() + !self.una_new.q.val();
            self.a_noff1.d.next =
                (self.scan_psn.q.val() | self.k_one32.val()) + !self.una_new.q.val();
            self.a_noff2.d.next = (self.scan_psn.q.val() | self.k_p2.val()) + !self.una_new.q.val();
            self.a_noff3.d.next = (self.scan_psn.q.val() | self.k_p3.val()) + !self.una_new.q.val();
            self.a_span_n.d.next = self.st.q.val().nxt - self.st.q.val().una;
            self.a_span_c.d.next = self.una_new.q.val() - self.st.q.val().una;
            self.a_nspan.d.next = self.st.q.val().nxt + !self.una_new.q.val();
            self.a_ne.d.next = self.st.q.val().nxt != self.una_new.q.val();
            self.state.d.next = self.s_ack_align.val();
        } else if self.state.q.val() == self.s_ack_drain.val() {
            // Three cycles until the last word has passed the accumulation stages (`cnt` is 0 here).
            self.cnt.d.next = self.cnt.q.val() + self.k_one8.val();
            if self.cnt.q.val() == self.k_two8.val() {
                self.state.d.next = self.s_ack_fin.val();
            }
        } else if self.state.q.val() == self.s_det_drain.val() {
            self.cnt.d.next = self.cnt.q.val() + self.k_one8.val();
            if self.cnt.q.val() == self.k_two8.val() {
                self.state.d.next = self.s_det_fin.val();
            }
        } else if self.state.q.val() == self.s_ack_fin.val() {
            self.st_l.next.una = self.una_new.q.val();
            self.st_l.next.answered = true;
            if self.una_new.q.val() == self.st.q.val().nxt && self.st.q.val().has_slot {
                // Everything sent is acknowledged: the records are stale, the slot is released.
                self.push.next = true;
                self.st_l.next.has_slot = false;
            }
            self.st_l.next.inflight = self.k_zero32.val();
            if self.st.q.val().inflight >= self.acc_dec.q.val() {
                self.st_l.next.inflight = self.st.q.val().inflight - self.acc_dec.q.val();
            }
            self.st.d.next = self.st_l.val();
            self.conn_ram.wr_en.next = true;
            self.state.d.next = self.s_ack_out.val();
        } else if self.state.q.val() == self.s_ack_out.val() {
            self.holes.d.next = self.st.q.val().any_acked
                && self.st.q.val().highest != self.st.q.val().una
                && (self.st.q.val().highest - self.st.q.val().una) < self.k_half.val();
            self.res_pend.d.next = true;
            self.una_pend.d.next = self.adv.q.val() | self.first.q.val();
            self.state.d.next = self.s_gap.val();
        } else if self.state.q.val() == self.s_cmd_rd.val() {
            // The connection state is on rd_data; a peek / NACK reads the PSN's word, a run its range.
            self.st.d.next = self.rd_st.val();
            self.prev_addr.d.next = self.addr_l.val().into();
            self.nowm.d.next = self.cmd.q.val().now32 - self.cmd.q.val().srtt_reo;
            self.nowr.d.next = self.cmd.q.val().now32 - self.cmd.q.val().rto;
            // The loss lanes' offsets for the run's first word (`base32` = snd_una rounded down to a word).
            self.d_off0.d.next = self.base32.val() - self.rd_st.val().una;
            self.d_off1.d.next = (self.base32.val() | self.k_one32.val()) - self.rd_st.val().una;
            self.d_off2.d.next = (self.base32.val() | self.k_p2.val()) - self.rd_st.val().una;
            self.d_off3.d.next = (self.base32.val() | self.k_p3.val()) - self.rd_st.val().una;
            self.d_hoff0.d.next = self.rd_st.val().highest - self.base32.val();
            self.d_hoff1.d.next =
                self.rd_st.val().highest - (self.base32.val() | self.k_one32.val());
            self.d_hoff2.d.next = self.rd_st.val().highest - (self.base32.val() | self.k_p2.val());
            self.d_hoff3.d.next = self.rd_st.val().highest - (self.base32.val() | self.k_p3.val());
            self.d_span.d.next = self.rd_st.val().highest - self.rd_st.val().una;
            if self.cmd.q.val().op == self.k_op_rto.val() {
                self.d_span.d.next = self.rd_st.val().nxt - self.rd_st.val().una;
            }
            self.nlost.d.next = self.k_zero16.val();
            self.rk_armed.d.next = false;
            self.rk_at.d.next = self.k_zero32.val();
            self.queued.d.next = false;
            self.found.d.next = false;
            self.acc_dec.d.next = self.k_zero32.val();
            self.scan_psn.d.next = self.base32.val();
            if self.cmd.q.val().op == self.k_op_peek.val()
                || self.cmd.q.val().op == self.k_op_nack.val()
            {
                self.state.d.next = self.s_rec_rd.val();
            } else {
                self.widx.d.next = self.rd_st.val().una.get_bits::<6>(2);
                self.state.d.next = self.s_det_align.val();
                if self.cmd.q.val().op == self.k_op_rto.val() {
                    // [snd_una, snd_nxt).
                    self.nw_l.next = self.rd_st.val().nxt - self.k_one32.val() - self.base32.val();
                    self.cnt.d.next = self.nw_l.val().get_bits::<8>(2) + self.k_one8.val();
                    if self.rd_st.val().nxt == self.rd_st.val().una {
                        self.cnt.d.next = self.k_zero8.val();
                    }
                } else {
                    // [snd_una, hi_acked), when something was acknowledged and snd_una < hi_acked.
                    self.det_cnt.next =
                        self.rd_st.val().highest - self.k_one32.val() - self.base32.val();
                    self.cnt.d.next = self.det_cnt.val().get_bits::<8>(2) + self.k_one8.val();
                    if !self.rd_st.val().any_acked
                        || self.rd_st.val().highest == self.rd_st.val().una
                        || (self.rd_st.val().highest - self.rd_st.val().una) >= self.k_half.val()
                    {
                        self.cnt.d.next = self.k_zero8.val();
                    }
                }
            }
        } else if self.state.q.val() == self.s_rec_rd.val() {
            // Read the PSN's word in the connection's slot.
            self.prev_addr.d.next = self.addr_l.val().into();
            self.state.d.next = self.s_rec.val();
        } else if self.state.q.val() == self.s_rec.val() {
            // The PSN's word is on rd_data (and stays there: the read address does not change): its record's
            // tests are registered.
            self.fpath.d.next = self.rl_pz.val().into();
            self.fev.d.next = self.rl_e.val();
            // Still to be retransmitted: outstanding, unacknowledged, declared.
            self.r_found.d.next = self.rl_in.val() && !self.rl_a.val() && self.rl_l.val();
            self.r_ok.d.next = self.rl_ok.val();
            self.r_i.d.next = self.rl_i.val();
            self.r_c32.d.next = self.rl_c32.val();
            self.state.d.next = self.s_rec2.val();
        } else if self.state.q.val() == self.s_rec2.val() {
            if self.cmd.q.val().op == self.k_op_peek.val() {
                self.found.d.next = self.r_found.q.val();
                self.state.d.next = self.s_cres_out.val();
            } else if !self.r_ok.q.val() {
                // A stale NACK (MR-REL-35, MR-REL-50) or a PSN already declared: nothing changes.
                self.state.d.next = self.s_cres_out.val();
            } else if self.lost_space.val() {
                // mark_lost: lost, out of flight.
                self.found.d.next = true;
                self.psn_ram.wr_en.next = true;
                if self.cmd.q.val().psn.get_bits::<2>(0) == self.k_zero2.val() {
                    self.word_l.next.l0 = true;
                    self.word_l.next.i0 = false;
                } else if self.cmd.q.val().psn.get_bits::<2>(0) == self.k_l1.val() {
                    self.word_l.next.l1 = true;
                    self.word_l.next.i1 = false;
                } else if self.cmd.q.val().psn.get_bits::<2>(0) == self.k_l2.val() {
                    self.word_l.next.l2 = true;
                    self.word_l.next.i2 = false;
                } else {
                    self.word_l.next.l3 = true;
                    self.word_l.next.i3 = false;
                }
                if self.r_i.q.val() {
                    self.st_l.next.inflight = self.k_zero32.val();
                    if self.st.q.val().inflight >= self.r_c32.q.val() {
                        self.st_l.next.inflight = self.st.q.val().inflight - self.r_c32.q.val();
                    }
                }
                self.st.d.next = self.st_l.val();
                self.conn_ram.wr_en.next = true;
                self.lost_pend.d.next = true;
                self.lost_w.d.next = self.lw_l.val();
                self.lost_w.d.next.psn = self.pb_l.val().into();
                self.lost_w.d.next.mask = self.nm.val();
                self.lost_w.d.next.cause = self.k_cause_none.val();
                self.lost_w.d.next.far = self.k_zero4.val();
                if self.cmd.q.val().trim {
                    self.lost_w.d.next.cause = self.k_cause_trim.val();
                }
                self.state.d.next = self.s_cres_out.val();
            }
        } else if self.state.q.val() == self.s_det_align.val() {
            self.prev_addr.d.next = self.addr_l.val().into();
            self.widx.d.next = self.widx.q.val() + self.k_one6.val();
            self.state.d.next = self.s_det_scan.val();
            if self.cnt.q.val() == self.k_zero8.val() {
                self.state.d.next = self.s_det_fin.val();
            }
        } else if self.state.q.val() == self.s_det_scan.val() {
            // One word through the loss lanes; stalls (re-reading the word) while the lost output is full.
            if !self.lost_space.val() {
                self.psn_ram.rd_addr.next = self.prev_addr.q.val();
            } else {
                self.psn_ram.wr_en.next = true;
                self.word_l.next.i0 = self.dlane0.inflight_out.val();
                self.word_l.next.l0 = self.dlane0.lost_out.val();
                self.word_l.next.i1 = self.dlane1.inflight_out.val();
                self.word_l.next.l1 = self.dlane1.lost_out.val();
                self.word_l.next.i2 = self.dlane2.inflight_out.val();
                self.word_l.next.l2 = self.dlane2.lost_out.val();
                self.word_l.next.i3 = self.dlane3.inflight_out.val();
                self.word_l.next.l3 = self.dlane3.lost_out.val();
                // The word's lanes go to the accumulation stage (folded next cycle).
                self.p1_v.d.next = true;
                self.p1_ack.d.next = false;
                self.p1_m.d.next =
                    self.pm0.val() | self.pm1.val() | self.pm2.val() | self.pm3.val();
                self.p1_dm.d.next =
                    self.dm0.val() | self.dm1.val() | self.dm2.val() | self.dm3.val();
                self.p1_t0.d.next = self.psn_ram.rd_data.val().t0;
                self.p1_t1.d.next = self.psn_ram.rd_data.val().t1;
                self.p1_t2.d.next = self.psn_ram.rd_data.val().t2;
                self.p1_t3.d.next = self.psn_ram.rd_data.val().t3;
                self.p1_d0.d.next = self.dlane0.dec.val();
                self.p1_d1.d.next = self.dlane1.dec.val();
                self.p1_d2.d.next = self.dlane2.dec.val();
                self.p1_d3.d.next = self.dlane3.dec.val();
                self.queued.d.next = self.queued.q.val()
                    || self.dlane0.queued.val()
                    || self.dlane1.queued.val()
                    || self.dlane2.queued.val()
                    || self.dlane3.queued.val();
                if self.lw_l.val().mask != self.k_zero4.val() {
                    self.lost_pend.d.next = true;
                    self.lost_w.d.next = self.lw_l.val();
                }
                self.scan_psn.d.next = self.scan_psn.q.val() + self.k_four32.val();
                self.d_off0.d.next = self.d_off0.q.val() + self.k_four32.val();
                self.d_off1.d.next = self.d_off1.q.val() + self.k_four32.val();
                self.d_off2.d.next = self.d_off2.q.val() + self.k_four32.val();
                self.d_off3.d.next = self.d_off3.q.val() + self.k_four32.val();
                self.d_hoff0.d.next = self.d_hoff0.q.val() - self.k_four32.val();
                self.d_hoff1.d.next = self.d_hoff1.q.val() - self.k_four32.val();
                self.d_hoff2.d.next = self.d_hoff2.q.val() - self.k_four32.val();
                self.d_hoff3.d.next = self.d_hoff3.q.val() - self.k_four32.val();
                self.prev_addr.d.next = self.addr_l.val().into();
                self.widx.d.next = self.widx.q.val() + self.k_one6.val();
                self.cnt.d.next = self.cnt.q.val() - self.k_one8.val();
                if self.cnt.q.val() == self.k_one8.val() {
                    self.state.d.next = self.s_det_drain.val();
                }
            }
        } else if self.state.q.val() == self.s_det_fin.val() {
            // The RACK deadline of the earliest pending TS.
            if self.rk_armed.q.val() {
                self.rk_at.d.next = self.rk_at.q.val() + self.cmd.q.val().srtt_reo;
            }
            self.st_l.next.inflight = self.k_zero32.val();
            if self.st.q.val().inflight >= self.acc_dec.q.val() {
                self.st_l.next.inflight = self.st.q.val().inflight - self.acc_dec.q.val();
            }
            self.st.d.next = self.st_l.val();
            self.conn_ram.wr_en.next = true;
            self.state.d.next = self.s_cres_out.val();
        } else if self.state.q.val() == self.s_cres_out.val() {
            self.cres_pend.d.next = true;
            self.state.d.next = self.s_gap.val();
        } else {
            // gap: wait until the results were taken.
            if !self.res_pend.q.val() && !self.una_pend.q.val() && !self.cres_pend.q.val() {
                self.state.d.next = self.s_idle.val();
            }
            if (self.m_axis_res_tready.val() || !self.res_pend.q.val())
                && (self.m_axis_una_tready.val() || !self.una_pend.q.val())
                && (self.m_axis_cres_tready.val() || !self.cres_pend.q.val())
            {
                self.state.d.next = self.s_idle.val();
            }
        }
        // Accumulation stages for the lanes of each scanned word (`p1_*`, captured when the word is written
        // back). Stage 2 (from p1): ACK: newly acknowledged count, bytes and in-flight decrement into the
        // run's sums; detection: the declared count and in-flight decrement; both: the first level of the
        // 4-lane TS tree (ACK: newest TS of a hit lane; detection: earliest TS of a pending lane) and the
        // last hit lane's PSN. Stage 3 (from p2): the tree's second level. Stage 4 (from p3): the fold into
        // the connection (ACK: highest acknowledged PSN and RACK TS, serial order as the model's per-PSN
        // updates) or the run (detection: earliest pending TS; the RACK deadline is that TS + srtt_reo, added
        // at the end of the run). Min and max are order-independent for values less than 2^31 apart.
        self.q0.next = self.k_zero16.val();
        self.q1.next = self.k_zero16.val();
        self.q2.next = self.k_zero16.val();
        self.q3.next = self.k_zero16.val();
        self.r0.next = self.k_zero16.val();
        self.r1.next = self.k_zero16.val();
        self.r2.next = self.k_zero16.val();
        self.r3.next = self.k_zero16.val();
        self.f_cand.next = self.p1_psn.q.val();
        if self.p1_m.q.val().get_bit(0) {
            self.q0.next = self.k_one16b.val();
        }
        if self.p1_m.q.val().get_bit(1) {
            self.q1.next = self.k_one16b.val();
            self.f_cand.next = self.p1_psn.q.val() + self.k_one32.val();
        }
        if self.p1_m.q.val().get_bit(2) {
            self.q2.next = self.k_one16b.val();
            self.f_cand.next = self.p1_psn.q.val() + self.k_p2.val();
        }
        if self.p1_m.q.val().get_bit(3) {
            self.q3.next = self.k_one16b.val();
            self.f_cand.next = self.p1_psn.q.val() + self.k_p3.val();
        }
        if self.p1_dm.q.val().get_bit(0) {
            self.r0.next = self.k_one16b.val();
        }
        if self.p1_dm.q.val().get_bit(1) {
            self.r1.next = self.k_one16b.val();
        }
        if self.p1_dm.q.val().get_bit(2) {
            self.r2.next = self.k_one16b.val();
        }
        if self.p1_dm.q.val().get_bit(3) {
            self.r3.next = self.k_one16b.val();
        }
        // pick: the second operand wins (ACK: strictly newer; detection: strictly earlier).
        self.d01.next = self.p1_t1.q.val() - self.p1_t0.q.val();
        self.pick1.next = self.d01.val() >= self.k_half.val();
        if self.p1_ack.q.val() {
            self.pick1.next =
                self.d01.val() < self.k_half.val() && self.p1_t1.q.val() != self.p1_t0.q.val();
        }
        self.x01_v.next = self.p1_m.q.val().get_bit(0) || self.p1_m.q.val().get_bit(1);
        self.x01.next = self.p1_t0.q.val();
        if self.p1_m.q.val().get_bit(1) && (!self.p1_m.q.val().get_bit(0) || self.pick1.val()) {
            self.x01.next = self.p1_t1.q.val();
        }
        self.d23.next = self.p1_t3.q.val() - self.p1_t2.q.val();
        self.pick3.next = self.d23.val() >= self.k_half.val();
        if self.p1_ack.q.val() {
            self.pick3.next =
                self.d23.val() < self.k_half.val() && self.p1_t3.q.val() != self.p1_t2.q.val();
        }
        self.x23_v.next = self.p1_m.q.val().get_bit(2) || self.p1_m.q.val().get_bit(3);
        self.x23.next = self.p1_t2.q.val();
        if self.p1_m.q.val().get_bit(3) && (!self.p1_m.q.val().get_bit(2) || self.pick3.val()) {
            self.x23.next = self.p1_t3.q.val();
        }
        self.p2_v.d.next = self.p1_v.q.val();
        self.p2_ack.d.next = self.p1_ack.q.val();
        self.p2_cand.d.next = self.f_cand.val();
        self.p2_x01_v.d.next = self.x01_v.val();
        self.p2_x01.d.next = self.x01.val();
        self.p2_x23_v.d.next = self.x23_v.val();
        self.p2_x23.d.next = self.x23.val();
        self.dx.next = self.p2_x23.q.val() - self.p2_x01.q.val();
        self.pick23.next = self.dx.val() >= self.k_half.val();
        if self.p2_ack.q.val() {
            self.pick23.next =
                self.dx.val() < self.k_half.val() && self.p2_x23.q.val() != self.p2_x01.q.val();
        }
        self.x_v.next = self.p2_x01_v.q.val() || self.p2_x23_v.q.val();
        self.x.next = self.p2_x01.q.val();
        if self.p2_x23_v.q.val() && (!self.p2_x01_v.q.val() || self.pick23.val()) {
            self.x.next = self.p2_x23.q.val();
        }
        self.p3_v.d.next = self.p2_v.q.val();
        self.p3_ack.d.next = self.p2_ack.q.val();
        self.p3_cand.d.next = self.p2_cand.q.val();
        self.p3_x_v.d.next = self.x_v.val();
        self.p3_x.d.next = self.x.val();
        self.dh.next = self.p3_cand.q.val() - self.st.q.val().highest;
        self.dr.next = self.p3_x.q.val() - self.st.q.val().rack_ts;
        if self.p1_v.q.val() && self.p1_ack.q.val() {
            self.acc_newly.d.next = self.acc_newly.q.val()
                + self.q0.val()
                + self.q1.val()
                + self.q2.val()
                + self.q3.val();
            self.acc_bytes.d.next = self.acc_bytes.q.val()
                + self.p1_b0.q.val()
                + self.p1_b1.q.val()
                + self.p1_b2.q.val()
                + self.p1_b3.q.val();
            self.acc_dec.d.next = self.acc_dec.q.val()
                + self.p1_d0.q.val()
                + self.p1_d1.q.val()
                + self.p1_d2.q.val()
                + self.p1_d3.q.val();
        }
        if self.p3_v.q.val() && self.p3_ack.q.val() && self.p3_x_v.q.val() {
            self.st.d.next.any_acked = true;
            if !self.st.q.val().any_acked || self.dh.val() < self.k_half.val() {
                self.st.d.next.highest = self.p3_cand.q.val();
            }
            if !self.st.q.val().any_acked
                || (self.dr.val() < self.k_half.val()
                    && self.p3_x.q.val() != self.st.q.val().rack_ts)
            {
                self.st.d.next.rack_ts = self.p3_x.q.val();
            }
        }
        if self.p1_v.q.val() && !self.p1_ack.q.val() {
            self.acc_dec.d.next = self.acc_dec.q.val()
                + self.p1_d0.q.val()
                + self.p1_d1.q.val()
                + self.p1_d2.q.val()
                + self.p1_d3.q.val();
            self.nlost.d.next =
                self.nlost.q.val() + self.r0.val() + self.r1.val() + self.r2.val() + self.r3.val();
        }
        if self.p3_v.q.val()
            && !self.p3_ack.q.val()
            && self.p3_x_v.q.val()
            && (!self.rk_armed.q.val()
                || (self.p3_x.q.val() - self.rk_at.q.val()) >= self.k_half.val())
        {
            self.rk_armed.d.next = true;
            self.rk_at.d.next = self.p3_x.q.val();
        }
        // Free-list bookkeeping (a push and a pop never fall in one cycle).
        self.fl_ram.wr_en.next = self.push.val();
        self.fl_ram.wr_data.next = self.push_slot.val();
        if self.pop.val() {
            if self.fresh.q.val() != self.k_nslots.val() {
                self.fresh.d.next = self.fresh.q.val() + self.k_one17.val();
            } else {
                self.fl_head.d.next =
                    (self.fl_head.q.val() + self.k_one16b.val()) & self.k_smask.val();
                self.fl_cnt.d.next = self.fl_cnt.q.val() - self.k_one17.val();
            }
        }
        if self.push.val() {
            self.fl_tail.d.next = (self.fl_tail.q.val() + self.k_one16b.val()) & self.k_smask.val();
            self.fl_cnt.d.next = self.fl_cnt.q.val() + self.k_one17.val();
        }
        self.free_slots.next = self.fl_cnt.q.val() + (self.k_nslots.val() - self.fresh.q.val());
        self.slot_alloc.next = self.pop.val();
        self.conn_ram.wr_data.next = self.st_l.val();
        self.psn_ram.wr_data.next = self.word_l.val();
        self.st_wr_en.next = self.conn_ram.wr_en.val();
        self.st_wr_conn.next = self.conn_ram.wr_addr.val();
        self.st_wr.next = self.st_l.val();
        if self.rst.val() {
            self.state.d.next = self.s_clear.val();
            self.clr.d.next = self.k_zero17.val();
            self.fresh.d.next = self.k_zero17.val();
            self.fl_head.d.next = self.k_zero16.val();
            self.fl_tail.d.next = self.k_zero16.val();
            self.fl_cnt.d.next = self.k_zero17.val();
            self.res_pend.d.next = false;
            self.una_pend.d.next = false;
            self.cres_pend.d.next = false;
            self.lost_pend.d.next = false;
            self.clean_pend.d.next = false;
        }
    }
}

/// This file's blocks.
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![crate::blocks::BlockSpec {
        name: "metaroce_rel_ack_proc",
        area: "rel",
        description:
            "ACK/SACK processing over the per-PSN sender state (4 PSNs per cycle), snd_una updates",
        verilog: |cfg| {
            crate::rel::sender_engine::tidy_part_selects(&crate::gen::verilog(
                "metaroce_rel_ack_proc",
                AckProc::new(cfg.conn_bits, cfg.send_slot_bits),
            ))
        },
    }]
}
