//! Payload placement (MR-SEM-12, MR-SEM-17, spec 3.5 and 8.4): writes the payload of every accepted DATA packet
//! into host memory with one DMA write, and discards the payload of every other packet.
//!
//! Input: one `s_axis_pkt_*` transfer per packet (the packet's `PktMeta` and its final [`RxCheck`] verdict, in
//! payload order), and its payload on `s_axis_pay_*`: exactly `payload_len` bytes packed from byte 0, `tlast` on
//! the last beat, no beat at all when `payload_len` is 0. A packet is placed when `tuser.place` is set and
//! `tuser.nack` is clear and `tdata.drop` is 0 (the stages before decide; the address is `tuser.place_addr`:
//! WRITE `addr`, SEND `rqe.addr + addr`); its payload goes out unchanged on `m_axis_dma_wr_*` after a
//! [`DmaDesc`] `{ place_addr, payload_len, tag }` on `m_axis_dma_wr_desc_*` (tag = packet number, low 12 bits).
//! Any other packet's payload is consumed and dropped. Exactly `payload_len` bytes are consumed either way.
//!
//! Ordering outputs for the CQ writer (a CQE only after the data it reports is in memory, `metaroce_regmap::
//! queues`): `pkt_count` counts packets taken on `s_axis_pkt_*` (free-running, 16 bits) and `safe_count` is the
//! number of packets whose payload has been consumed and whose writes have all been reported done on
//! `s_axis_dma_wr_done_*` (it follows `pkt_count` whenever no write is outstanding). Every packet that passes the
//! completion stage must reach this block, in order, so that the counts agree with the completion stage's.
//!
//! Latency: the descriptor one cycle after the packet is taken, data from the next cycle. The next packet is
//! taken with the last beat of the current one (its `s_axis_pkt_tready` then follows that beat's handshake),
//! so a placed packet costs its descriptor cycle plus one cycle per beat, a discarded one its beats, and a
//! packet without payload no cycle of its own after a payload: 65 cycles for a 4 KiB payload at 512 bits,
//! against the 66 beats of its frame.

use crate::dma::DmaDesc;
use crate::records::PktMeta;
use crate::rx::mr_check::RxCheck;
use rust_hdl::prelude::*;

/// States of the placement FSM (a 2-bit register).
pub mod place_state {
    /// Waiting for a packet.
    pub const IDLE: u64 = 0;
    /// Offering the DMA descriptor.
    pub const DESC: u64 = 1;
    /// Forwarding the payload.
    pub const DATA: u64 = 2;
    /// Consuming a payload that is not placed.
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
    state: DFF<Bits<2>>,
    c_idle: Constant<Bits<2>>,
    c_desc: Constant<Bits<2>>,
    c_data: Constant<Bits<2>>,
    c_discard: Constant<Bits<2>>,
    desc: DFF<DmaDesc>,
    count: DFF<Bits<16>>,
    consumed: DFF<Bits<16>>,
    safe: DFF<Bits<16>>,
    outstanding: DFF<Bits<16>>,
    ready_pkt: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    plen: Signal<Local, Bits<16>>,
    issue: Signal<Local, Bit>,
    end_beat: Signal<Local, Bit>,
    zero_len: Signal<Local, Bit>,
    x_len: crate::common::zext::Zext<16, 32>,
    c_tagmask: Constant<Bits<16>>,
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
            state: Default::default(),
            c_idle: Constant::new(place_state::IDLE.to_bits()),
            c_desc: Constant::new(place_state::DESC.to_bits()),
            c_data: Constant::new(place_state::DATA.to_bits()),
            c_discard: Constant::new(place_state::DISCARD.to_bits()),
            desc: Default::default(),
            count: Default::default(),
            consumed: Default::default(),
            safe: Default::default(),
            outstanding: Default::default(),
            ready_pkt: Default::default(),
            take: Default::default(),
            plen: Default::default(),
            issue: Default::default(),
            end_beat: Default::default(),
            zero_len: Default::default(),
            x_len: Default::default(),
            c_tagmask: Constant::new(0x0FFFu64.to_bits()),
            c_one: Constant::new(1u64.to_bits()),
            c_two: Constant::new(2u64.to_bits()),
            c_zero: Constant::new(0u64.to_bits()),
        }
    }
}

impl<const DW: usize, const KW: usize> Logic for Placement<DW, KW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, state, desc, count, consumed, safe, outstanding);
        self.plen.next = self.s_axis_pkt_tdata.val().payload_len;
        self.x_len.i.next = self.plen.val();
        self.end_beat.next = false;
        if self.state.q.val() == self.c_data.val() {
            self.end_beat.next = self.s_axis_pay_tvalid.val()
                & self.m_axis_dma_wr_tready.val()
                & self.s_axis_pay_tlast.val();
        }
        if self.state.q.val() == self.c_discard.val() {
            self.end_beat.next = self.s_axis_pay_tvalid.val() & self.s_axis_pay_tlast.val();
        }
        // The next packet is taken in idle or with the last beat of the current one.
        self.ready_pkt.next = (self.state.q.val() == self.c_idle.val()) | self.end_beat.val();
        self.s_axis_pkt_tready.next = self.ready_pkt.val();
        self.take.next = self.ready_pkt.val() & self.s_axis_pkt_tvalid.val();
        self.zero_len.next = self.take.val() & !self.plen.val().any();

        self.m_axis_dma_wr_desc_tdata.next = self.desc.q.val();
        self.m_axis_dma_wr_desc_tvalid.next = self.state.q.val() == self.c_desc.val();
        self.m_axis_dma_wr_tdata.next = self.s_axis_pay_tdata.val();
        self.m_axis_dma_wr_tkeep.next = self.s_axis_pay_tkeep.val();
        self.m_axis_dma_wr_tlast.next = self.s_axis_pay_tlast.val();
        self.m_axis_dma_wr_tvalid.next = false;
        self.s_axis_pay_tready.next = false;
        self.issue.next = false;

        if self.state.q.val() == self.c_desc.val() {
            if self.m_axis_dma_wr_desc_tready.val() {
                self.issue.next = true;
                self.state.d.next = self.c_data.val();
            }
        } else if self.state.q.val() == self.c_data.val() {
            self.m_axis_dma_wr_tvalid.next = self.s_axis_pay_tvalid.val();
            self.s_axis_pay_tready.next = self.m_axis_dma_wr_tready.val();
        } else if self.state.q.val() == self.c_discard.val() {
            self.s_axis_pay_tready.next = true;
        }
        if self.end_beat.val() {
            self.state.d.next = self.c_idle.val();
        }
        if self.take.val() {
            self.count.d.next = self.count.q.val() + self.c_one.val();
            self.desc.d.next.addr = self.s_axis_pkt_tuser.val().place_addr;
            self.desc.d.next.len = self.x_len.o.val();
            self.desc.d.next.tag = self.count.q.val() & self.c_tagmask.val();
            if self.zero_len.val() {
                self.state.d.next = self.c_idle.val();
            } else if self.s_axis_pkt_tuser.val().place
                & !self.s_axis_pkt_tuser.val().nack
                & !self.s_axis_pkt_tdata.val().drop.any()
            {
                self.state.d.next = self.c_desc.val();
            } else {
                self.state.d.next = self.c_discard.val();
            }
        }
        // A payload ended and a packet without payload was taken: two packets consumed at once.
        if self.end_beat.val() & self.zero_len.val() {
            self.consumed.d.next = self.consumed.q.val() + self.c_two.val();
        } else if self.end_beat.val() | self.zero_len.val() {
            self.consumed.d.next = self.consumed.q.val() + self.c_one.val();
        }
        if self.issue.val() & !self.s_axis_dma_wr_done_tvalid.val() {
            self.outstanding.d.next = self.outstanding.q.val() + self.c_one.val();
        }
        if !self.issue.val() & self.s_axis_dma_wr_done_tvalid.val() {
            self.outstanding.d.next = self.outstanding.q.val() - self.c_one.val();
        }
        if !self.outstanding.q.val().any() & !self.issue.val() {
            self.safe.d.next = self.consumed.q.val();
        }
        self.pkt_count.next = self.count.q.val();
        self.safe_count.next = self.safe.q.val();
        if self.rst.val() {
            self.state.d.next = self.c_idle.val();
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
