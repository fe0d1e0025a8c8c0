//! ACK processing and the per-PSN sender state (MR-REL-20..25): per-connection `snd_una` / `snd_nxt` /
//! in-flight bytes, the per-PSN records of [`crate::rel::psn_state`] updated by transmissions (`TxSent`) and
//! by received ACKs (cumulative ack, then SACK bits for PSNs in `(snd_una, snd_nxt)`), exactly as
//! `metaroce_proto::transport::loss::SendWindow::{on_send, on_retransmit, on_ack}`.
//!
//! Commands (one at a time; priority open > sent > ack):
//! * `s_axis_open_*` ([`ConnOpen`]): `snd_una = snd_nxt = isn`, nothing in flight (`SendWindow::new`).
//! * `s_axis_sent_*` ([`TxSent`]): a new PSN (`rtx = 0`, `psn` = `snd_nxt`): its record (TS, charged bytes,
//!   path, in flight), `snd_nxt + 1`, `inflight += charged` (`on_send`); a retransmission of a PSN in
//!   `[snd_una, snd_nxt)`: TS, path, retransmitted flag, and back in flight (`on_retransmit`).
//! * `s_axis_ack_*` ([`PktMeta`] of an ACK, `conn` resolved): `psn` = CACK, `sack_base`, `sack`. A CACK beyond
//!   `snd_nxt` is invalid (ignored, reported). Every newly acknowledged PSN (cumulatively or selectively,
//!   counted once) adds its payload (`charged - 64`) to `acked_bytes` and leaves the in-flight bytes; the
//!   result ([`AckRes`]) goes to congestion control, and an advance of `snd_una` is reported on `m_axis_una_*`
//!   ([`UnaUpdate`]) in the same cycle as the result. The highest acknowledged PSN and the latest TS of a
//!   newly acknowledged packet (RACK, MR-REL-36) are kept in the connection state for loss detection.
//!
//! Timing: open 2 cycles, sent 4, ACK `words + 5` cycles where `words` (<= 65) is the number of 4-PSN RAM
//! words covering `[snd_una, snd_nxt)` (4 PSNs per cycle); one idle cycle follows every command so the next
//! command reads the RAM after the write (no forwarding needed: commands are serialised).
//!
//! Differences from the model: TS comparisons for RACK are 32-bit serial (the model compares 64-bit times);
//! in-flight bytes are 32 bits and decremented once per ACK by the sum (the model saturates per packet; equal
//! while the counter is consistent).

use crate::common::ram::SdpRam;
use crate::records::{PktMeta, TxSent};
use crate::rel::psn_state::{PsnAddr, PsnWord, SackAlign, ALIGNED_BITS};
use crate::rel::records::{ConnOpen, UnaUpdate};
use rust_hdl::prelude::*;

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

    /// Send-side state of one connection (161 bits).
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct ConnSnd {
        pub una: Bits<32>,
        pub nxt: Bits<32>,
        pub inflight: Bits<32>,
        pub highest: Bits<32>,
        pub any_acked: Bit,
        pub rack_ts: Bits<32>,
    }
}

pub use rec::{AckRes, ConnSnd, PsnSplit, Zx16};

/// One lane (PSN) of the ACK scan: combinational.
#[derive(LogicBlock)]
pub struct AckLane {
    /// The lane's PSN.
    pub psn: Signal<In, Bits<32>>,
    /// snd_una before the ACK.
    pub una: Signal<In, Bits<32>>,
    /// snd_una after the cumulative part.
    pub una_new: Signal<In, Bits<32>>,
    /// snd_nxt.
    pub nxt: Signal<In, Bits<32>>,
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
    /// 1 when newly acknowledged.
    pub cnt: Signal<Out, Bits<16>>,
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
    k_one16: Constant<Bits<16>>,
    k_zero32: Constant<Bits<32>>,
}

impl Default for AckLane {
    fn default() -> Self {
        AckLane {
            psn: Default::default(),
            una: Default::default(),
            una_new: Default::default(),
            nxt: Default::default(),
            sack_bit: Default::default(),
            charged: Default::default(),
            inflight: Default::default(),
            acked: Default::default(),
            lost: Default::default(),
            hit: Default::default(),
            cnt: Default::default(),
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
            k_one16: Constant::new(1u64.to_bits()),
            k_zero32: Constant::new(0u64.to_bits()),
        }
    }
}

impl Logic for AckLane {
    #[hdl_gen]
    fn update(&mut self) {
        // psn in [una, nxt), in [una, una_new), in (una_new, nxt) (serial arithmetic).
        self.in_range.next = (self.psn.val() - self.una.val()) < (self.nxt.val() - self.una.val());
        self.cum.next = (self.psn.val() - self.una.val()) < (self.una_new.val() - self.una.val());
        self.sel.next = self.sack_bit.val()
            && self.psn.val() != self.una_new.val()
            && (self.psn.val() - self.una_new.val()) < (self.nxt.val() - self.una_new.val());
        self.hit.next =
            self.in_range.val() && !self.acked.val() && (self.cum.val() || self.sel.val());
        self.zx_c.next.lo = self.charged.val();
        self.zx_c.next.hi = self.k_zero16.val();
        self.c32.next = self.zx_c.val().into();
        self.cnt.next = self.k_zero16.val();
        self.bytes.next = self.k_zero32.val();
        self.dec.next = self.k_zero32.val();
        self.inflight_out.next = self.inflight.val();
        self.acked_out.next = self.acked.val();
        self.lost_out.next = self.lost.val();
        if self.in_range.val() && !self.acked.val() && (self.cum.val() || self.sel.val()) {
            self.cnt.next = self.k_one16.val();
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
    /// Tap of the connection-state write port: a connection's state is written this cycle (open, sent, ACK).
    pub st_wr_en: Signal<Out, Bit>,
    /// The connection written.
    pub st_wr_conn: Signal<Out, Bits<16>>,
    /// The state written (the sender engine keeps a copy for the gate).
    pub st_wr: Signal<Out, ConnSnd>,
    conn_ram: SdpRam<ConnSnd, 16>,
    psn_ram: SdpRam<PsnWord, 22>,
    align: SackAlign,
    lane0: AckLane,
    lane1: AckLane,
    lane2: AckLane,
    lane3: AckLane,
    state: DFF<Bits<4>>,
    conn: DFF<Bits<16>>,
    st: DFF<ConnSnd>,
    una_new: DFF<Bits<32>>,
    cack: DFF<Bits<32>>,
    sack_base: DFF<Bits<32>>,
    sack: DFF<Bits<256>>,
    invalid: DFF<Bit>,
    adv: DFF<Bit>,
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
    dec_sum: Signal<Local, Bits<32>>,
    base32: Signal<Local, Bits<32>>,
    zx_sent: Signal<Local, Zx16>,
    c32_sent: Signal<Local, Bits<32>>,
    zx_rtx: Signal<Local, Zx16>,
    rtx_c32: Signal<Local, Bits<32>>,
    hi0: Signal<Local, Bits<32>>,
    any0: Signal<Local, Bit>,
    rk0: Signal<Local, Bits<32>>,
    hi1: Signal<Local, Bits<32>>,
    any1: Signal<Local, Bit>,
    rk1: Signal<Local, Bits<32>>,
    hi2: Signal<Local, Bits<32>>,
    any2: Signal<Local, Bit>,
    rk2: Signal<Local, Bits<32>>,
    hi3: Signal<Local, Bits<32>>,
    any3: Signal<Local, Bit>,
    rk3: Signal<Local, Bits<32>>,
    hi4: Signal<Local, Bits<32>>,
    any4: Signal<Local, Bit>,
    rk4: Signal<Local, Bits<32>>,
    s_idle: Constant<Bits<4>>,
    s_sent_rd: Constant<Bits<4>>,
    s_sent_w: Constant<Bits<4>>,
    s_ack_rd: Constant<Bits<4>>,
    s_ack_align: Constant<Bits<4>>,
    s_ack_scan: Constant<Bits<4>>,
    s_ack_fin: Constant<Bits<4>>,
    s_ack_out: Constant<Bits<4>>,
    s_gap: Constant<Bits<4>>,
    k_zero32: Constant<Bits<32>>,
    k_one32: Constant<Bits<32>>,
    k_four32: Constant<Bits<32>>,
    k_half: Constant<Bits<32>>,
    k_zero2: Constant<Bits<2>>,
    k_l1: Constant<Bits<2>>,
    k_l2: Constant<Bits<2>>,
    k_l3: Constant<Bits<2>>,
    k_zero8: Constant<Bits<8>>,
    k_one8: Constant<Bits<8>>,
    k_one6: Constant<Bits<6>>,
    k_zero16: Constant<Bits<16>>,
    k_p2: Constant<Bits<32>>,
    k_p3: Constant<Bits<32>>,
    _conn_bits: u32,
}

impl AckProc {
    /// An ACK processor for `1 << conn_bits` connections (the per-PSN RAM has `1 << (conn_bits + 6)` words).
    pub fn new(conn_bits: u32) -> Self {
        assert!((1..=16).contains(&conn_bits));
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
            st_wr_en: Default::default(),
            st_wr_conn: Default::default(),
            st_wr: Default::default(),
            conn_ram: SdpRam::new(1 << conn_bits),
            psn_ram: SdpRam::new(1 << (conn_bits + 6)),
            align: Default::default(),
            lane0: Default::default(),
            lane1: Default::default(),
            lane2: Default::default(),
            lane3: Default::default(),
            state: Default::default(),
            conn: Default::default(),
            st: Default::default(),
            una_new: Default::default(),
            cack: Default::default(),
            sack_base: Default::default(),
            sack: Default::default(),
            invalid: Default::default(),
            adv: Default::default(),
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
            dec_sum: Default::default(),
            base32: Default::default(),
            zx_sent: Default::default(),
            c32_sent: Default::default(),
            zx_rtx: Default::default(),
            rtx_c32: Default::default(),
            hi0: Default::default(),
            any0: Default::default(),
            rk0: Default::default(),
            hi1: Default::default(),
            any1: Default::default(),
            rk1: Default::default(),
            hi2: Default::default(),
            any2: Default::default(),
            rk2: Default::default(),
            hi3: Default::default(),
            any3: Default::default(),
            rk3: Default::default(),
            hi4: Default::default(),
            any4: Default::default(),
            rk4: Default::default(),
            s_idle: Constant::new(0u64.to_bits()),
            s_sent_rd: Constant::new(1u64.to_bits()),
            s_sent_w: Constant::new(2u64.to_bits()),
            s_ack_rd: Constant::new(3u64.to_bits()),
            s_ack_align: Constant::new(4u64.to_bits()),
            s_ack_scan: Constant::new(5u64.to_bits()),
            s_ack_fin: Constant::new(6u64.to_bits()),
            s_ack_out: Constant::new(7u64.to_bits()),
            s_gap: Constant::new(8u64.to_bits()),
            k_zero32: Constant::new(0u64.to_bits()),
            k_one32: Constant::new(1u64.to_bits()),
            k_four32: Constant::new(4u64.to_bits()),
            k_half: Constant::new(2147483648u64.to_bits()),
            k_zero2: Constant::new(0u64.to_bits()),
            k_l1: Constant::new(1u64.to_bits()),
            k_l2: Constant::new(2u64.to_bits()),
            k_l3: Constant::new(3u64.to_bits()),
            k_zero8: Constant::new(0u64.to_bits()),
            k_one8: Constant::new(1u64.to_bits()),
            k_one6: Constant::new(1u64.to_bits()),
            k_zero16: Constant::new(0u64.to_bits()),
            k_p2: Constant::new(2u64.to_bits()),
            k_p3: Constant::new(3u64.to_bits()),
            _conn_bits: conn_bits,
        }
    }
}

impl Logic for AckProc {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, state, conn, st, una_new, cack, sack_base, sack, invalid, adv, sent, cnt,
            widx, prev_addr, scan_psn, sr, acc_newly, acc_bytes, acc_dec, res_pend, una_pend
        );
        self.conn_ram.clk.next = self.clk.val();
        self.psn_ram.clk.next = self.clk.val();
        self.align.clk.next = self.clk.val();
        self.conn_ram.wr_en.next = false;
        self.conn_ram.wr_addr.next = self.conn.q.val();
        self.conn_ram.rd_addr.next = self.conn.q.val();
        self.psn_ram.wr_en.next = false;
        self.psn_ram.wr_addr.next = self.prev_addr.q.val();
        self.addr_l.next.conn = self.conn.q.val();
        self.addr_l.next.word = self.widx.q.val();
        self.psn_ram.rd_addr.next = self.addr_l.val().into();
        self.align.sack.next = self.sack.q.val();
        self.rd_st.next = self.conn_ram.rd_data.val();
        self.base_l.next.lo2 = self.k_zero2.val();
        self.base_l.next.hi = self.rd_st.val().una.get_bits::<30>(2);
        self.base32.next = self.base_l.val().into();
        self.align.off.next = self.base32.val() - self.sack_base.q.val();
        self.st_l.next.una = self.st.q.val().una;
        self.st_l.next.nxt = self.st.q.val().nxt;
        self.st_l.next.inflight = self.st.q.val().inflight;
        self.st_l.next.highest = self.st.q.val().highest;
        self.st_l.next.any_acked = self.st.q.val().any_acked;
        self.st_l.next.rack_ts = self.st.q.val().rack_ts;
        self.word_l.next.t0 = self.psn_ram.rd_data.val().t0;
        self.word_l.next.c0 = self.psn_ram.rd_data.val().c0;
        self.word_l.next.p0 = self.psn_ram.rd_data.val().p0;
        self.word_l.next.i0 = self.psn_ram.rd_data.val().i0;
        self.word_l.next.l0 = self.psn_ram.rd_data.val().l0;
        self.word_l.next.a0 = self.psn_ram.rd_data.val().a0;
        self.word_l.next.r0 = self.psn_ram.rd_data.val().r0;
        self.word_l.next.t1 = self.psn_ram.rd_data.val().t1;
        self.word_l.next.c1 = self.psn_ram.rd_data.val().c1;
        self.word_l.next.p1 = self.psn_ram.rd_data.val().p1;
        self.word_l.next.i1 = self.psn_ram.rd_data.val().i1;
        self.word_l.next.l1 = self.psn_ram.rd_data.val().l1;
        self.word_l.next.a1 = self.psn_ram.rd_data.val().a1;
        self.word_l.next.r1 = self.psn_ram.rd_data.val().r1;
        self.word_l.next.t2 = self.psn_ram.rd_data.val().t2;
        self.word_l.next.c2 = self.psn_ram.rd_data.val().c2;
        self.word_l.next.p2 = self.psn_ram.rd_data.val().p2;
        self.word_l.next.i2 = self.psn_ram.rd_data.val().i2;
        self.word_l.next.l2 = self.psn_ram.rd_data.val().l2;
        self.word_l.next.a2 = self.psn_ram.rd_data.val().a2;
        self.word_l.next.r2 = self.psn_ram.rd_data.val().r2;
        self.word_l.next.t3 = self.psn_ram.rd_data.val().t3;
        self.word_l.next.c3 = self.psn_ram.rd_data.val().c3;
        self.word_l.next.p3 = self.psn_ram.rd_data.val().p3;
        self.word_l.next.i3 = self.psn_ram.rd_data.val().i3;
        self.word_l.next.l3 = self.psn_ram.rd_data.val().l3;
        self.word_l.next.a3 = self.psn_ram.rd_data.val().a3;
        self.word_l.next.r3 = self.psn_ram.rd_data.val().r3;
        self.s_axis_open_tready.next = false;
        self.s_axis_sent_tready.next = false;
        self.s_axis_ack_tready.next = false;
        self.psn_l.next = self.sent.q.val().psn;
        self.nw_l.next = self.k_zero32.val();
        self.dec_sum.next = self.lane0.dec.val()
            + self.lane1.dec.val()
            + self.lane2.dec.val()
            + self.lane3.dec.val();
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
        self.lane0.psn.next = self.scan_psn.q.val();
        self.lane1.psn.next = self.scan_psn.q.val() + self.k_one32.val();
        self.lane2.psn.next = self.scan_psn.q.val() + self.k_p2.val();
        self.lane3.psn.next = self.scan_psn.q.val() + self.k_p3.val();
        self.lane0.una.next = self.st.q.val().una;
        self.lane1.una.next = self.st.q.val().una;
        self.lane2.una.next = self.st.q.val().una;
        self.lane3.una.next = self.st.q.val().una;
        self.lane0.una_new.next = self.una_new.q.val();
        self.lane1.una_new.next = self.una_new.q.val();
        self.lane2.una_new.next = self.una_new.q.val();
        self.lane3.una_new.next = self.una_new.q.val();
        self.lane0.nxt.next = self.st.q.val().nxt;
        self.lane1.nxt.next = self.st.q.val().nxt;
        self.lane2.nxt.next = self.st.q.val().nxt;
        self.lane3.nxt.next = self.st.q.val().nxt;
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
        // Highest acknowledged PSN and RACK TS, lane by lane in PSN order.
        self.hi0.next = self.st.q.val().highest;
        self.any0.next = self.st.q.val().any_acked;
        self.rk0.next = self.st.q.val().rack_ts;
        self.hi1.next = self.hi0.val();
        self.any1.next = self.any0.val();
        self.rk1.next = self.rk0.val();
        if self.lane0.hit.val() {
            if !self.any0.val() || (self.lane0.psn.val() - self.hi0.val()) < self.k_half.val() {
                self.hi1.next = self.lane0.psn.val();
            }
            if !self.any0.val()
                || ((self.psn_ram.rd_data.val().t0 - self.rk0.val()) < self.k_half.val()
                    && self.psn_ram.rd_data.val().t0 != self.rk0.val())
            {
                self.rk1.next = self.psn_ram.rd_data.val().t0;
            }
            self.any1.next = true;
        }
        self.hi2.next = self.hi1.val();
        self.any2.next = self.any1.val();
        self.rk2.next = self.rk1.val();
        if self.lane1.hit.val() {
            if !self.any1.val() || (self.lane1.psn.val() - self.hi1.val()) < self.k_half.val() {
                self.hi2.next = self.lane1.psn.val();
            }
            if !self.any1.val()
                || ((self.psn_ram.rd_data.val().t1 - self.rk1.val()) < self.k_half.val()
                    && self.psn_ram.rd_data.val().t1 != self.rk1.val())
            {
                self.rk2.next = self.psn_ram.rd_data.val().t1;
            }
            self.any2.next = true;
        }
        self.hi3.next = self.hi2.val();
        self.any3.next = self.any2.val();
        self.rk3.next = self.rk2.val();
        if self.lane2.hit.val() {
            if !self.any2.val() || (self.lane2.psn.val() - self.hi2.val()) < self.k_half.val() {
                self.hi3.next = self.lane2.psn.val();
            }
            if !self.any2.val()
                || ((self.psn_ram.rd_data.val().t2 - self.rk2.val()) < self.k_half.val()
                    && self.psn_ram.rd_data.val().t2 != self.rk2.val())
            {
                self.rk3.next = self.psn_ram.rd_data.val().t2;
            }
            self.any3.next = true;
        }
        self.hi4.next = self.hi3.val();
        self.any4.next = self.any3.val();
        self.rk4.next = self.rk3.val();
        if self.lane3.hit.val() {
            if !self.any3.val() || (self.lane3.psn.val() - self.hi3.val()) < self.k_half.val() {
                self.hi4.next = self.lane3.psn.val();
            }
            if !self.any3.val()
                || ((self.psn_ram.rd_data.val().t3 - self.rk3.val()) < self.k_half.val()
                    && self.psn_ram.rd_data.val().t3 != self.rk3.val())
            {
                self.rk4.next = self.psn_ram.rd_data.val().t3;
            }
            self.any4.next = true;
        }
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
        self.m_axis_una_tdata.next.conn = self.conn.q.val();
        self.m_axis_una_tdata.next.snd_una = self.st.q.val().una;
        if self.m_axis_res_tready.val() {
            self.res_pend.d.next = false;
        }
        if self.m_axis_una_tready.val() {
            self.una_pend.d.next = false;
        }
        if self.state.q.val() == self.s_idle.val() {
            if self.s_axis_open_tvalid.val() {
                // SendWindow::new: una = nxt = isn.
                self.s_axis_open_tready.next = true;
                self.conn.d.next = self.s_axis_open_tdata.val().conn;
                self.st_l.next.una = self.s_axis_open_tdata.val().isn;
                self.st_l.next.nxt = self.s_axis_open_tdata.val().isn;
                self.st_l.next.inflight = self.k_zero32.val();
                self.st_l.next.highest = self.s_axis_open_tdata.val().isn;
                self.st_l.next.any_acked = false;
                self.st_l.next.rack_ts = self.k_zero32.val();
                self.conn_ram.wr_addr.next = self.s_axis_open_tdata.val().conn;
                self.conn_ram.wr_en.next = true;
                self.state.d.next = self.s_gap.val();
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
                self.sack.d.next = self.s_axis_ack_tdata.val().sack;
                self.conn_ram.rd_addr.next = self.s_axis_ack_tdata.val().conn;
                self.state.d.next = self.s_ack_rd.val();
            }
        } else if self.state.q.val() == self.s_sent_rd.val() {
            // The connection state is on rd_data; read the PSN's word.
            self.st.d.next = self.rd_st.val();
            self.prev_addr.d.next = self.addr_l.val().into();
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
                    self.word_l.next.p0 = self.sent.q.val().path;
                    self.word_l.next.i0 = true;
                    self.word_l.next.l0 = false;
                    self.word_l.next.a0 = false;
                    self.word_l.next.r0 = false;
                } else if self.psn_l.val().get_bits::<2>(0) == self.k_l1.val() {
                    self.word_l.next.t1 = self.sent.q.val().ts;
                    self.word_l.next.c1 = self.sent.q.val().charged;
                    self.word_l.next.p1 = self.sent.q.val().path;
                    self.word_l.next.i1 = true;
                    self.word_l.next.l1 = false;
                    self.word_l.next.a1 = false;
                    self.word_l.next.r1 = false;
                } else if self.psn_l.val().get_bits::<2>(0) == self.k_l2.val() {
                    self.word_l.next.t2 = self.sent.q.val().ts;
                    self.word_l.next.c2 = self.sent.q.val().charged;
                    self.word_l.next.p2 = self.sent.q.val().path;
                    self.word_l.next.i2 = true;
                    self.word_l.next.l2 = false;
                    self.word_l.next.a2 = false;
                    self.word_l.next.r2 = false;
                } else {
                    self.word_l.next.t3 = self.sent.q.val().ts;
                    self.word_l.next.c3 = self.sent.q.val().charged;
                    self.word_l.next.p3 = self.sent.q.val().path;
                    self.word_l.next.i3 = true;
                    self.word_l.next.l3 = false;
                    self.word_l.next.a3 = false;
                    self.word_l.next.r3 = false;
                }
            } else if (self.psn_l.val() - self.st.q.val().una)
                < (self.st.q.val().nxt - self.st.q.val().una)
            {
                // on_retransmit: new TS and path, back in flight.
                self.conn_ram.wr_en.next = true;
                self.psn_ram.wr_en.next = true;
                if self.psn_l.val().get_bits::<2>(0) == self.k_zero2.val() {
                    self.word_l.next.t0 = self.sent.q.val().ts;
                    self.word_l.next.p0 = self.sent.q.val().path;
                    self.word_l.next.r0 = true;
                    self.word_l.next.i0 = true;
                    if !self.psn_ram.rd_data.val().i0 {
                        self.st_l.next.inflight = self.st.q.val().inflight + self.rtx_c32.val();
                    }
                } else if self.psn_l.val().get_bits::<2>(0) == self.k_l1.val() {
                    self.word_l.next.t1 = self.sent.q.val().ts;
                    self.word_l.next.p1 = self.sent.q.val().path;
                    self.word_l.next.r1 = true;
                    self.word_l.next.i1 = true;
                    if !self.psn_ram.rd_data.val().i1 {
                        self.st_l.next.inflight = self.st.q.val().inflight + self.rtx_c32.val();
                    }
                } else if self.psn_l.val().get_bits::<2>(0) == self.k_l2.val() {
                    self.word_l.next.t2 = self.sent.q.val().ts;
                    self.word_l.next.p2 = self.sent.q.val().path;
                    self.word_l.next.r2 = true;
                    self.word_l.next.i2 = true;
                    if !self.psn_ram.rd_data.val().i2 {
                        self.st_l.next.inflight = self.st.q.val().inflight + self.rtx_c32.val();
                    }
                } else {
                    self.word_l.next.t3 = self.sent.q.val().ts;
                    self.word_l.next.p3 = self.sent.q.val().path;
                    self.word_l.next.r3 = true;
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
            self.state.d.next = self.s_ack_align.val();
        } else if self.state.q.val() == self.s_ack_align.val() {
            self.sr.d.next = self.align.aligned.val();
            self.prev_addr.d.next = self.addr_l.val().into();
            self.widx.d.next = self.widx.q.val() + self.k_one6.val();
            if self.invalid.q.val() {
                self.adv.d.next = false;
                self.state.d.next = self.s_ack_out.val();
            } else if self.cnt.q.val() == self.k_zero8.val() {
                self.state.d.next = self.s_ack_fin.val();
            } else {
                self.state.d.next = self.s_ack_scan.val();
            }
        } else if self.state.q.val() == self.s_ack_scan.val() {
            // One word: its 4 PSNs through the lanes, written back; the next word's read is issued.
            self.psn_ram.wr_en.next = true;
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
            self.acc_newly.d.next = self.acc_newly.q.val()
                + self.lane0.cnt.val()
                + self.lane1.cnt.val()
                + self.lane2.cnt.val()
                + self.lane3.cnt.val();
            self.acc_bytes.d.next = self.acc_bytes.q.val()
                + self.lane0.bytes.val()
                + self.lane1.bytes.val()
                + self.lane2.bytes.val()
                + self.lane3.bytes.val();
            self.acc_dec.d.next = self.acc_dec.q.val() + self.dec_sum.val();
            self.st.d.next.highest = self.hi4.val();
            self.st.d.next.any_acked = self.any4.val();
            self.st.d.next.rack_ts = self.rk4.val();
            self.sr.d.next = self.sr.q.val() >> 4;
            self.scan_psn.d.next = self.scan_psn.q.val() + self.k_four32.val();
            self.prev_addr.d.next = self.addr_l.val().into();
            self.widx.d.next = self.widx.q.val() + self.k_one6.val();
            self.cnt.d.next = self.cnt.q.val() - self.k_one8.val();
            if self.cnt.q.val() == self.k_one8.val() {
                self.state.d.next = self.s_ack_fin.val();
            }
        } else if self.state.q.val() == self.s_ack_fin.val() {
            self.st_l.next.una = self.una_new.q.val();
            self.st_l.next.inflight = self.k_zero32.val();
            if self.st.q.val().inflight >= self.acc_dec.q.val() {
                self.st_l.next.inflight = self.st.q.val().inflight - self.acc_dec.q.val();
            }
            self.st.d.next = self.st_l.val();
            self.conn_ram.wr_en.next = true;
            self.state.d.next = self.s_ack_out.val();
        } else if self.state.q.val() == self.s_ack_out.val() {
            self.res_pend.d.next = true;
            self.una_pend.d.next = self.adv.q.val();
            self.state.d.next = self.s_gap.val();
        } else {
            // gap: wait until the results were taken.
            if !self.res_pend.q.val() && !self.una_pend.q.val() {
                self.state.d.next = self.s_idle.val();
            }
            if self.m_axis_res_tready.val()
                && (self.m_axis_una_tready.val() || !self.una_pend.q.val())
            {
                self.state.d.next = self.s_idle.val();
            }
        }
        self.conn_ram.wr_data.next = self.st_l.val();
        self.psn_ram.wr_data.next = self.word_l.val();
        self.st_wr_en.next = self.conn_ram.wr_en.val();
        self.st_wr_conn.next = self.conn_ram.wr_addr.val();
        self.st_wr.next = self.st_l.val();
        if self.rst.val() {
            self.state.d.next = self.s_idle.val();
            self.res_pend.d.next = false;
            self.una_pend.d.next = false;
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
                AckProc::new(cfg.conn_bits),
            ))
        },
    }]
}
