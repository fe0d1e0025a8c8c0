//! Payload placement (MR-SEM-12, MR-SEM-17, spec 3.5 and 8.4): writes the payload of every accepted DATA packet
//! into host memory with one DMA write, and discards the payload of every other packet.
//!
//! Input: one `s_axis_pkt_*` transfer per packet (the packet's `PktMeta` and its final [`RxCheck`] verdict, in
//! payload order), and its payload on `s_axis_pay_*`: exactly `payload_len` bytes packed from byte 0, `tlast` on
//! the last beat, no beat at all when `payload_len` is 0. A packet is placed when `tuser.place` is set and
//! `tuser.nack` is clear and `tdata.drop` is 0 (the stages before decide; the address is `tuser.place_addr`:
//! WRITE `addr`, SEND `rqe.addr + addr`); its payload goes out unchanged on `m_axis_dma_wr_*` after a
//! [`DmaDesc`] `{ place_addr, payload_len, tag }` on `m_axis_dma_wr_desc_*` (tag = packet number, 16 bits).
//! Any other packet's payload is consumed and dropped. Exactly `payload_len` bytes are consumed either way.
//!
//! Ordering outputs for the CQ writer (a CQE only after the data it reports is in memory, `metaroce_regmap::
//! queues`): `pkt_count` counts packets taken on `s_axis_pkt_*` (free-running, 16 bits) and `safe_count` is the
//! number of packets whose payload has been consumed and whose writes have all been reported done on
//! `s_axis_dma_wr_done_*`: a done tag (the packet number) makes every packet up to it safe, a cycle after it
//! arrives, and `safe_count` follows the consumed packets whenever no write is outstanding. Every packet that
//! passes the completion stage must reach this block, in order, so that the counts agree with the completion
//! stage's.
//!
//! Latency: a packet is taken into a one-entry queue while the payload before it still passes; a placed one
//! offers its descriptor from the next cycle, and its payload follows the previous one's last beat at once once
//! the descriptor is taken (the DMA write multiplexer takes one descriptor ahead of the data it passes). Back to
//! back, a placed or discarded packet costs one cycle per beat and a packet without payload none; a placed
//! packet arriving while nothing passes starts its data two cycles after it was taken (the descriptor's cycle,
//! then the cycle that moves it up). At 512 bits a 4 KiB payload takes 64
//! cycles against the 66 beats of its frame, at 1024 bits 32 against 33.

use crate::dma::DmaDesc;
use crate::records::PktMeta;
use crate::rx::mr_check::RxCheck;
use rust_hdl::prelude::*;

/// What the payload stream carries (2-bit registers): the current payload's and the queued packet's.
pub mod place_state {
    /// No payload: waiting for a packet (current), a packet without payload (queued).
    pub const IDLE: u64 = 0;
    /// A payload placed by a DMA write.
    pub const DATA: u64 = 2;
    /// A payload that is not placed, consumed and dropped.
    pub const DISCARD: u64 = 3;
}

/// The placement block (`DW` bits per beat, `KW = DW / 8`).
#[derive(LogicBlock)]
pub struct Placement<const DW: usize, const KW: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// Packet (final verdict).
    pub s_axis_pkt_tdata: Signal<In, PktMeta>,
    /// Verdict and placement address.
    pub s_axis_pkt_tuser: Signal<In, RxCheck>,
    /// Valid.
    pub s_axis_pkt_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_pkt_tready: Signal<Out, Bit>,
    /// Payload data.
    pub s_axis_pay_tdata: Signal<In, Bits<DW>>,
    /// Payload keep.
    pub s_axis_pay_tkeep: Signal<In, Bits<KW>>,
    /// Payload last beat.
    pub s_axis_pay_tlast: Signal<In, Bit>,
    /// Payload valid.
    pub s_axis_pay_tvalid: Signal<In, Bit>,
    /// Payload ready.
    pub s_axis_pay_tready: Signal<Out, Bit>,
    /// DMA write descriptor.
    pub m_axis_dma_wr_desc_tdata: Signal<Out, DmaDesc>,
    /// Descriptor valid.
    pub m_axis_dma_wr_desc_tvalid: Signal<Out, Bit>,
    /// Descriptor ready.
    pub m_axis_dma_wr_desc_tready: Signal<In, Bit>,
    /// DMA write data.
    pub m_axis_dma_wr_tdata: Signal<Out, Bits<DW>>,
    /// DMA write keep.
    pub m_axis_dma_wr_tkeep: Signal<Out, Bits<KW>>,
    /// DMA write last.
    pub m_axis_dma_wr_tlast: Signal<Out, Bit>,
    /// DMA write valid.
    pub m_axis_dma_wr_tvalid: Signal<Out, Bit>,
    /// DMA write ready.
    pub m_axis_dma_wr_tready: Signal<In, Bit>,
    /// Finished write (tag).
    pub s_axis_dma_wr_done_tdata: Signal<In, Bits<16>>,
    /// Finished write valid.
    pub s_axis_dma_wr_done_tvalid: Signal<In, Bit>,
    /// Packets taken (free-running).
    pub pkt_count: Signal<Out, Bits<16>>,
    /// Packets fully handled, their writes done (free-running).
    pub safe_count: Signal<Out, Bits<16>>,
    /// The current payload's handling (`place_state`).
    cur: DFF<Bits<2>>,
    /// A packet is queued behind the current payload.
    nxt_v: DFF<Bit>,
    /// The queued packet's handling (`IDLE`: no payload).
    nxt_mode: DFF<Bits<2>>,
    c_idle: Constant<Bits<2>>,
    c_data: Constant<Bits<2>>,
    c_discard: Constant<Bits<2>>,
    /// The queued packet's descriptor, offered while `desc_v`.
    desc: DFF<DmaDesc>,
    desc_v: DFF<Bit>,
    count: DFF<Bits<16>>,
    consumed: DFF<Bits<16>>,
    safe: DFF<Bits<16>>,
    outstanding: DFF<Bits<16>>,
    /// A done tag, a cycle late.
    done_v: DFF<Bit>,
    done_tag: DFF<Bits<16>>,
    ready_pkt: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    mv: Signal<Local, Bit>,
    head_free: Signal<Local, Bit>,
    plen: Signal<Local, Bits<16>>,
    issue: Signal<Local, Bit>,
    end_beat: Signal<Local, Bit>,
    zero_len: Signal<Local, Bit>,
    x_len: crate::common::zext::Zext<16, 32>,
    c_one: Constant<Bits<16>>,
    c_two: Constant<Bits<16>>,
    c_zero: Constant<Bits<16>>,
}

impl<const DW: usize, const KW: usize> Default for Placement<DW, KW> {
    fn default() -> Self {
        assert_eq!(DW, KW * 8);
        Placement {
            clk: Default::default(),
            rst: Default::default(),
            s_axis_pkt_tdata: Default::default(),
            s_axis_pkt_tuser: Default::default(),
            s_axis_pkt_tvalid: Default::default(),
            s_axis_pkt_tready: Default::default(),
            s_axis_pay_tdata: Default::default(),
            s_axis_pay_tkeep: Default::default(),
            s_axis_pay_tlast: Default::default(),
            s_axis_pay_tvalid: Default::default(),
            s_axis_pay_tready: Default::default(),
            m_axis_dma_wr_desc_tdata: Default::default(),
            m_axis_dma_wr_desc_tvalid: Default::default(),
            m_axis_dma_wr_desc_tready: Default::default(),
            m_axis_dma_wr_tdata: Default::default(),
            m_axis_dma_wr_tkeep: Default::default(),
            m_axis_dma_wr_tlast: Default::default(),
            m_axis_dma_wr_tvalid: Default::default(),
            m_axis_dma_wr_tready: Default::default(),
            s_axis_dma_wr_done_tdata: Default::default(),
            s_axis_dma_wr_done_tvalid: Default::default(),
            pkt_count: Default::default(),
            safe_count: Default::default(),
            cur: Default::default(),
            nxt_v: Default::default(),
            nxt_mode: Default::default(),
            c_idle: Constant::new(place_state::IDLE.to_bits()),
            c_data: Constant::new(place_state::DATA.to_bits()),
            c_discard: Constant::new(place_state::DISCARD.to_bits()),
            desc: Default::default(),
            desc_v: Default::default(),
            count: Default::default(),
            consumed: Default::default(),
            safe: Default::default(),
            outstanding: Default::default(),
            done_v: Default::default(),
            done_tag: Default::default(),
            ready_pkt: Default::default(),
            take: Default::default(),
            mv: Default::default(),
            head_free: Default::default(),
            plen: Default::default(),
            issue: Default::default(),
            end_beat: Default::default(),
            zero_len: Default::default(),
            x_len: Default::default(),
            c_one: Constant::new(1u64.to_bits()),
            c_two: Constant::new(2u64.to_bits()),
            c_zero: Constant::new(0u64.to_bits()),
        }
    }
}

impl<const DW: usize, const KW: usize> Logic for Placement<DW, KW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clk,
            cur,
            nxt_v,
            nxt_mode,
            desc,
            desc_v,
            count,
            consumed,
            safe,
            outstanding,
            done_v,
            done_tag
        );
        self.plen.next = self.s_axis_pkt_tdata.val().payload_len;
        self.x_len.i.next = self.plen.val();
        self.end_beat.next = false;
        if self.cur.q.val() == self.c_data.val() {
            self.end_beat.next = self.s_axis_pay_tvalid.val()
                & self.m_axis_dma_wr_tready.val()
                & self.s_axis_pay_tlast.val();
        }
        if self.cur.q.val() == self.c_discard.val() {
            self.end_beat.next = self.s_axis_pay_tvalid.val() & self.s_axis_pay_tlast.val();
        }
        // The queued packet's payload comes next: with the current one's last beat, or at once when none
        // passes; a placed one once its descriptor is taken.
        self.head_free.next = (self.cur.q.val() == self.c_idle.val()) | self.end_beat.val();
        self.mv.next = self.nxt_v.q.val() & self.head_free.val() & !self.desc_v.q.val();
        // A packet is taken while the queue is free or being freed.
        self.ready_pkt.next = !self.nxt_v.q.val() | self.mv.val();
        self.s_axis_pkt_tready.next = self.ready_pkt.val();
        self.take.next = self.ready_pkt.val() & self.s_axis_pkt_tvalid.val();
        self.zero_len.next = !self.plen.val().any();

        self.m_axis_dma_wr_desc_tdata.next = self.desc.q.val();
        self.m_axis_dma_wr_desc_tvalid.next = self.desc_v.q.val();
        self.issue.next = self.desc_v.q.val() & self.m_axis_dma_wr_desc_tready.val();
        if self.issue.val() {
            self.desc_v.d.next = false;
        }
        self.m_axis_dma_wr_tdata.next = self.s_axis_pay_tdata.val();
        self.m_axis_dma_wr_tkeep.next = self.s_axis_pay_tkeep.val();
        self.m_axis_dma_wr_tlast.next = self.s_axis_pay_tlast.val();
        self.m_axis_dma_wr_tvalid.next = false;
        self.s_axis_pay_tready.next = false;
        if self.cur.q.val() == self.c_data.val() {
            self.m_axis_dma_wr_tvalid.next = self.s_axis_pay_tvalid.val();
            self.s_axis_pay_tready.next = self.m_axis_dma_wr_tready.val();
        } else if self.cur.q.val() == self.c_discard.val() {
            self.s_axis_pay_tready.next = true;
        }
        if self.end_beat.val() {
            self.cur.d.next = self.c_idle.val();
        }
        if self.mv.val() {
            self.cur.d.next = self.nxt_mode.q.val();
            self.nxt_v.d.next = false;
        }
        if self.take.val() {
            self.nxt_v.d.next = true;
            self.count.d.next = self.count.q.val() + self.c_one.val();
            self.desc.d.next.addr = self.s_axis_pkt_tuser.val().place_addr;
            self.desc.d.next.len = self.x_len.o.val();
            self.desc.d.next.tag = self.count.q.val();
            if self.zero_len.val() {
                self.nxt_mode.d.next = self.c_idle.val();
            } else if self.s_axis_pkt_tuser.val().place
                & !self.s_axis_pkt_tuser.val().nack
                & !self.s_axis_pkt_tdata.val().drop.any()
            {
                self.nxt_mode.d.next = self.c_data.val();
                self.desc_v.d.next = true;
            } else {
                self.nxt_mode.d.next = self.c_discard.val();
            }
        }
        // A payload ended and the queued packet without payload moved up: two packets consumed at once.
        if self.end_beat.val() & self.mv.val() & (self.nxt_mode.q.val() == self.c_idle.val()) {
            self.consumed.d.next = self.consumed.q.val() + self.c_two.val();
        } else if self.end_beat.val()
            | (self.mv.val() & (self.nxt_mode.q.val() == self.c_idle.val()))
        {
            self.consumed.d.next = self.consumed.q.val() + self.c_one.val();
        }
        if self.issue.val() & !self.s_axis_dma_wr_done_tvalid.val() {
            self.outstanding.d.next = self.outstanding.q.val() + self.c_one.val();
        }
        if !self.issue.val() & self.s_axis_dma_wr_done_tvalid.val() {
            self.outstanding.d.next = self.outstanding.q.val() - self.c_one.val();
        }
        // Done tags come in order: every packet up to a done write's is consumed and written.
        self.done_v.d.next = self.s_axis_dma_wr_done_tvalid.val();
        self.done_tag.d.next = self.s_axis_dma_wr_done_tdata.val();
        if self.done_v.q.val() {
            self.safe.d.next = self.done_tag.q.val() + self.c_one.val();
        }
        if !self.outstanding.q.val().any() & !self.issue.val() {
            self.safe.d.next = self.consumed.q.val();
        }
        self.pkt_count.next = self.count.q.val();
        self.safe_count.next = self.safe.q.val();
        if self.rst.val() {
            self.cur.d.next = self.c_idle.val();
            self.nxt_v.d.next = false;
            self.desc_v.d.next = false;
            self.done_v.d.next = false;
            self.count.d.next = self.c_zero.val();
            self.consumed.d.next = self.c_zero.val();
            self.safe.d.next = self.c_zero.val();
            self.outstanding.d.next = self.c_zero.val();
        }
    }
}

/// The block list entries of this file.
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![
        crate::blocks::BlockSpec {
            name: "metaroce_rx_placement",
            area: "rx",
            description:
                "payload of accepted DATA packets to DMA writes, others discarded (512-bit)",
            verilog: |_cfg| {
                crate::gen::verilog("metaroce_rx_placement", Placement::<512, 64>::default())
            },
        },
        crate::blocks::BlockSpec {
            name: "metaroce_rx_placement_w1024",
            area: "rx",
            description:
                "payload of accepted DATA packets to DMA writes, others discarded (1024-bit)",
            verilog: |_cfg| {
                crate::gen::verilog(
                    "metaroce_rx_placement_w1024",
                    Placement::<1024, 128>::default(),
                )
            },
        },
    ]
}
