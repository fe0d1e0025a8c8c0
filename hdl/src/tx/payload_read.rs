//! Payload read: turns one DATA packet's payload location into a DMA read and forwards the returned bytes as
//! the packet's payload stream (MR-REL-46: every (re)transmission re-reads host memory; nothing is buffered).
//!
//! Ports: `s_axis_req_*` ([`DmaDesc`]: `addr` = payload source, `len` = payload_len > 0, `tag` ignored; the
//! scheduler sends a request only for packets with a payload, in header order) → `m_axis_dma_rd_desc_*`
//! (tag 0); `s_axis_dma_rd_*` (data packed from byte 0, `tlast` on the last beat of each read, responses in
//! request order) → `m_axis_pay_*`, exactly `len` bytes per packet with `tlast` on its last beat. The data path
//! is a combinational pass-through (the DMA stream already has the payload stream's form); the descriptor
//! path is a one-entry register stage. Latency: 1 cycle (descriptor), 0 (data). Throughput: one descriptor
//! per cycle, one beat per cycle.

use crate::dma::DmaDesc;
use rust_hdl::prelude::*;

/// Payload DMA read issuer and pass-through.
#[derive(LogicBlock)]
pub struct PayloadRead<const DW: usize, const KW: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Reset.
    pub rst: Signal<In, Bit>,
    /// Payload read requests.
    pub s_axis_req_tdata: Signal<In, DmaDesc>,
    /// Valid.
    pub s_axis_req_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_req_tready: Signal<Out, Bit>,
    /// DMA read descriptor.
    pub m_axis_dma_rd_desc_tdata: Signal<Out, DmaDesc>,
    /// Valid.
    pub m_axis_dma_rd_desc_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_dma_rd_desc_tready: Signal<In, Bit>,
    /// DMA read data.
    pub s_axis_dma_rd_tdata: Signal<In, Bits<DW>>,
    /// Keep.
    pub s_axis_dma_rd_tkeep: Signal<In, Bits<KW>>,
    /// Last beat of a read.
    pub s_axis_dma_rd_tlast: Signal<In, Bit>,
    /// Tag (unused: one reader, responses in order).
    pub s_axis_dma_rd_tuser: Signal<In, Bits<16>>,
    /// Valid.
    pub s_axis_dma_rd_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_dma_rd_tready: Signal<Out, Bit>,
    /// Payload.
    pub m_axis_pay_tdata: Signal<Out, Bits<DW>>,
    /// Keep.
    pub m_axis_pay_tkeep: Signal<Out, Bits<KW>>,
    /// Last beat of a packet's payload.
    pub m_axis_pay_tlast: Signal<Out, Bit>,
    /// Valid.
    pub m_axis_pay_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_pay_tready: Signal<In, Bit>,
    desc: DFF<DmaDesc>,
    desc_v: DFF<Bit>,
    c_tag: Constant<Bits<16>>,
    unused_tag: Signal<Local, Bit>,
}

impl<const DW: usize, const KW: usize> Default for PayloadRead<DW, KW> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const DW: usize, const KW: usize> PayloadRead<DW, KW> {
    /// A payload reader (`DW` = 8 * `KW`).
    pub fn new() -> Self {
        assert_eq!(DW, 8 * KW);
        PayloadRead {
            clk: Default::default(),
            rst: Default::default(),
            s_axis_req_tdata: Default::default(),
            s_axis_req_tvalid: Default::default(),
            s_axis_req_tready: Default::default(),
            m_axis_dma_rd_desc_tdata: Default::default(),
            m_axis_dma_rd_desc_tvalid: Default::default(),
            m_axis_dma_rd_desc_tready: Default::default(),
            s_axis_dma_rd_tdata: Default::default(),
            s_axis_dma_rd_tkeep: Default::default(),
            s_axis_dma_rd_tlast: Default::default(),
            s_axis_dma_rd_tuser: Default::default(),
            s_axis_dma_rd_tvalid: Default::default(),
            s_axis_dma_rd_tready: Default::default(),
            m_axis_pay_tdata: Default::default(),
            m_axis_pay_tkeep: Default::default(),
            m_axis_pay_tlast: Default::default(),
            m_axis_pay_tvalid: Default::default(),
            m_axis_pay_tready: Default::default(),
            desc: Default::default(),
            desc_v: Default::default(),
            c_tag: Constant::new(0.into()),
            unused_tag: Default::default(),
        }
    }
}

impl<const DW: usize, const KW: usize> Logic for PayloadRead<DW, KW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, desc, desc_v);
        // Descriptor stage: accept when empty or when the held descriptor leaves this cycle.
        self.s_axis_req_tready.next = !self.desc_v.q.val() | self.m_axis_dma_rd_desc_tready.val();
        if self.m_axis_dma_rd_desc_tready.val() {
            self.desc_v.d.next = false;
        }
        if self.s_axis_req_tvalid.val() & self.s_axis_req_tready.val() {
            self.desc.d.next = self.s_axis_req_tdata.val();
            self.desc.d.next.tag = self.c_tag.val();
            self.desc_v.d.next = true;
        }
        if self.rst.val() {
            self.desc_v.d.next = false;
        }
        self.m_axis_dma_rd_desc_tdata.next = self.desc.q.val();
        self.m_axis_dma_rd_desc_tvalid.next = self.desc_v.q.val();
        // Data: pass-through (the tag is not needed: one reader, responses in order).
        self.unused_tag.next = self.s_axis_dma_rd_tuser.val().any();
        self.m_axis_pay_tdata.next = self.s_axis_dma_rd_tdata.val();
        self.m_axis_pay_tkeep.next = self.s_axis_dma_rd_tkeep.val();
        self.m_axis_pay_tlast.next = self.s_axis_dma_rd_tlast.val();
        self.m_axis_pay_tvalid.next = self.s_axis_dma_rd_tvalid.val();
        self.s_axis_dma_rd_tready.next = self.m_axis_pay_tready.val();
    }
}
