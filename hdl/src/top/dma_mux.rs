//! Two-to-one multiplexers of the DMA interface (`crate::dma`), cascaded by the core to join every block that
//! reads or writes host memory onto the core's one read and one write port.
//!
//! Descriptors are granted round-robin between the two inputs. The platform shell answers reads (data) and
//! writes (done tags) in descriptor order, so each multiplexer remembers the input of every outstanding
//! descriptor in a 32-entry order queue and routes the answers back by it; tags pass through unchanged. While
//! the order queue is full, no descriptor is granted (back-pressure, never a loss). Write data follows the
//! write descriptors in the order granted: the multiplexer passes the data of the oldest granted write until its
//! `tlast`, and grants one more write descriptor meanwhile (of either input), whose data follows at once, so a
//! source that offers its next descriptor early loses no cycle between two writes.

use crate::dma::DmaDesc;
use rust_hdl::prelude::*;

/// Outstanding descriptors each multiplexer tracks.
pub const ORDER_DEPTH: usize = 32;

/// Read multiplexer: inputs `a` and `b`, output `m`.
#[derive(LogicBlock, Default)]
pub struct DmaReadMux<const DW: usize, const KW: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// Input a: read descriptors.
    pub s_axis_a_desc_tdata: Signal<In, DmaDesc>,
    /// Input a: descriptor valid.
    pub s_axis_a_desc_tvalid: Signal<In, Bit>,
    /// Input a: descriptor ready.
    pub s_axis_a_desc_tready: Signal<Out, Bit>,
    /// Input a: read data.
    pub m_axis_a_tdata: Signal<Out, Bits<DW>>,
    /// Input a: read data keep.
    pub m_axis_a_tkeep: Signal<Out, Bits<KW>>,
    /// Input a: read data last.
    pub m_axis_a_tlast: Signal<Out, Bit>,
    /// Input a: read data tag.
    pub m_axis_a_tuser: Signal<Out, Bits<16>>,
    /// Input a: read data valid.
    pub m_axis_a_tvalid: Signal<Out, Bit>,
    /// Input a: read data ready.
    pub m_axis_a_tready: Signal<In, Bit>,
    /// Input b: read descriptors.
    pub s_axis_b_desc_tdata: Signal<In, DmaDesc>,
    /// Input b: descriptor valid.
    pub s_axis_b_desc_tvalid: Signal<In, Bit>,
    /// Input b: descriptor ready.
    pub s_axis_b_desc_tready: Signal<Out, Bit>,
    /// Input b: read data.
    pub m_axis_b_tdata: Signal<Out, Bits<DW>>,
    /// Input b: read data keep.
    pub m_axis_b_tkeep: Signal<Out, Bits<KW>>,
    /// Input b: read data last.
    pub m_axis_b_tlast: Signal<Out, Bit>,
    /// Input b: read data tag.
    pub m_axis_b_tuser: Signal<Out, Bits<16>>,
    /// Input b: read data valid.
    pub m_axis_b_tvalid: Signal<Out, Bit>,
    /// Input b: read data ready.
    pub m_axis_b_tready: Signal<In, Bit>,
    /// Output: read descriptors.
    pub m_axis_desc_tdata: Signal<Out, DmaDesc>,
    /// Output: descriptor valid.
    pub m_axis_desc_tvalid: Signal<Out, Bit>,
    /// Output: descriptor ready.
    pub m_axis_desc_tready: Signal<In, Bit>,
    /// Output: read data.
    pub s_axis_tdata: Signal<In, Bits<DW>>,
    /// Output: read data keep.
    pub s_axis_tkeep: Signal<In, Bits<KW>>,
    /// Output: read data last.
    pub s_axis_tlast: Signal<In, Bit>,
    /// Output: read data tag.
    pub s_axis_tuser: Signal<In, Bits<16>>,
    /// Output: read data valid.
    pub s_axis_tvalid: Signal<In, Bit>,
    /// Output: read data ready.
    pub s_axis_tready: Signal<Out, Bit>,
    /// Order queue: bit i = input (0 a, 1 b) of the i-th oldest outstanding descriptor.
    order: DFF<Bits<32>>,
    /// Entries in the order queue.
    count: DFF<Bits<6>>,
    /// Round-robin: b had the last grant.
    last_b: DFF<Bit>,
    grant_a: Signal<Local, Bit>,
    grant_b: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    head_b: Signal<Local, Bit>,
    base: Signal<Local, Bits<32>>,
    base_count: Signal<Local, Bits<6>>,
    cnt_m1: Signal<Local, Bits<6>>,
    cnt_p1: Signal<Local, Bits<6>>,
}

impl<const DW: usize, const KW: usize> Logic for DmaReadMux<DW, KW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, order, count, last_b);
        // Grant: round-robin, only while the order queue has room.
        self.grant_a.next = false;
        self.grant_b.next = false;
        if self.count.q.val() < 32 {
            if self.s_axis_a_desc_tvalid.val()
                & (!self.s_axis_b_desc_tvalid.val() | self.last_b.q.val())
            {
                self.grant_a.next = true;
            } else if self.s_axis_b_desc_tvalid.val() {
                self.grant_b.next = true;
            }
        }
        self.m_axis_desc_tdata.next = self.s_axis_a_desc_tdata.val();
        if self.grant_b.val() {
            self.m_axis_desc_tdata.next = self.s_axis_b_desc_tdata.val();
        }
        self.m_axis_desc_tvalid.next = self.grant_a.val() | self.grant_b.val();
        self.s_axis_a_desc_tready.next = self.grant_a.val() & self.m_axis_desc_tready.val();
        self.s_axis_b_desc_tready.next = self.grant_b.val() & self.m_axis_desc_tready.val();
        // Data: routed by the oldest outstanding descriptor's input.
        self.head_b.next = self.order.q.val().get_bit(0);
        self.m_axis_a_tdata.next = self.s_axis_tdata.val();
        self.m_axis_a_tkeep.next = self.s_axis_tkeep.val();
        self.m_axis_a_tlast.next = self.s_axis_tlast.val();
        self.m_axis_a_tuser.next = self.s_axis_tuser.val();
        self.m_axis_b_tdata.next = self.s_axis_tdata.val();
        self.m_axis_b_tkeep.next = self.s_axis_tkeep.val();
        self.m_axis_b_tlast.next = self.s_axis_tlast.val();
        self.m_axis_b_tuser.next = self.s_axis_tuser.val();
        self.m_axis_a_tvalid.next =
            self.s_axis_tvalid.val() & !self.head_b.val() & (self.count.q.val() != 0);
        self.m_axis_b_tvalid.next =
            self.s_axis_tvalid.val() & self.head_b.val() & (self.count.q.val() != 0);
        self.s_axis_tready.next = (self.count.q.val() != 0)
            & ((!self.head_b.val() & self.m_axis_a_tready.val())
                | (self.head_b.val() & self.m_axis_b_tready.val()));
        self.pop.next =
            self.s_axis_tvalid.val() & self.s_axis_tready.val() & self.s_axis_tlast.val();
        // Queue update: pop the head, then push at the (new) tail.
        // (the count's `- 1` and `+ 1` side by side, chosen by pop and push: no carry chain follows another)
        self.cnt_m1.next = self.count.q.val() - 1;
        self.cnt_p1.next = self.count.q.val() + 1;
        self.base.next = self.order.q.val();
        self.base_count.next = self.count.q.val();
        if self.pop.val() {
            self.base.next = self.order.q.val() >> 1;
            self.base_count.next = self.cnt_m1.val();
        }
        self.order.d.next = self.base.val();
        self.count.d.next = self.base_count.val();
        if self.m_axis_desc_tvalid.val() & self.m_axis_desc_tready.val() {
            if self.grant_b.val() {
                self.order.d.next = self.base.val() | (bits::<32>(1) << self.base_count.val());
            }
            self.count.d.next = self.cnt_p1.val();
            if self.pop.val() {
                self.count.d.next = self.count.q.val();
            }
            self.last_b.d.next = self.grant_b.val();
        }
        if self.rst.val() {
            self.order.d.next = 0.into();
            self.count.d.next = 0.into();
            self.last_b.d.next = false;
        }
    }
}

/// Write multiplexer: inputs `a` and `b` (descriptors, each followed by its data), output `m`.
#[derive(LogicBlock, Default)]
pub struct DmaWriteMux<const DW: usize, const KW: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// Input a: write descriptors.
    pub s_axis_a_desc_tdata: Signal<In, DmaDesc>,
    /// Input a: descriptor valid.
    pub s_axis_a_desc_tvalid: Signal<In, Bit>,
    /// Input a: descriptor ready.
    pub s_axis_a_desc_tready: Signal<Out, Bit>,
    /// Input a: write data.
    pub s_axis_a_tdata: Signal<In, Bits<DW>>,
    /// Input a: write data keep.
    pub s_axis_a_tkeep: Signal<In, Bits<KW>>,
    /// Input a: write data last.
    pub s_axis_a_tlast: Signal<In, Bit>,
    /// Input a: write data valid.
    pub s_axis_a_tvalid: Signal<In, Bit>,
    /// Input a: write data ready.
    pub s_axis_a_tready: Signal<Out, Bit>,
    /// Input a: done tags.
    pub m_axis_a_done_tdata: Signal<Out, Bits<16>>,
    /// Input a: done valid.
    pub m_axis_a_done_tvalid: Signal<Out, Bit>,
    /// Input b: write descriptors.
    pub s_axis_b_desc_tdata: Signal<In, DmaDesc>,
    /// Input b: descriptor valid.
    pub s_axis_b_desc_tvalid: Signal<In, Bit>,
    /// Input b: descriptor ready.
    pub s_axis_b_desc_tready: Signal<Out, Bit>,
    /// Input b: write data.
    pub s_axis_b_tdata: Signal<In, Bits<DW>>,
    /// Input b: write data keep.
    pub s_axis_b_tkeep: Signal<In, Bits<KW>>,
    /// Input b: write data last.
    pub s_axis_b_tlast: Signal<In, Bit>,
    /// Input b: write data valid.
    pub s_axis_b_tvalid: Signal<In, Bit>,
    /// Input b: write data ready.
    pub s_axis_b_tready: Signal<Out, Bit>,
    /// Input b: done tags.
    pub m_axis_b_done_tdata: Signal<Out, Bits<16>>,
    /// Input b: done valid.
    pub m_axis_b_done_tvalid: Signal<Out, Bit>,
    /// Output: write descriptors.
    pub m_axis_desc_tdata: Signal<Out, DmaDesc>,
    /// Output: descriptor valid.
    pub m_axis_desc_tvalid: Signal<Out, Bit>,
    /// Output: descriptor ready.
    pub m_axis_desc_tready: Signal<In, Bit>,
    /// Output: write data.
    pub m_axis_tdata: Signal<Out, Bits<DW>>,
    /// Output: write data keep.
    pub m_axis_tkeep: Signal<Out, Bits<KW>>,
    /// Output: write data last.
    pub m_axis_tlast: Signal<Out, Bit>,
    /// Output: write data valid.
    pub m_axis_tvalid: Signal<Out, Bit>,
    /// Output: write data ready.
    pub m_axis_tready: Signal<In, Bit>,
    /// Output: done tags.
    pub s_axis_done_tdata: Signal<In, Bits<16>>,
    /// Output: done valid.
    pub s_axis_done_tvalid: Signal<In, Bit>,
    /// Order queue of outstanding writes (bit i: input of the i-th oldest).
    order: DFF<Bits<32>>,
    /// Entries in the order queue.
    count: DFF<Bits<6>>,
    /// Round-robin: b had the last grant.
    last_b: DFF<Bit>,
    /// A granted descriptor's data is passing (or is next).
    busy: DFF<Bit>,
    /// That data is b's.
    data_b: DFF<Bit>,
    /// A second granted descriptor waits for the data of the first to end.
    busy2: DFF<Bit>,
    /// The second descriptor is b's.
    data_b2: DFF<Bit>,
    pass_last: Signal<Local, Bit>,
    grant_a: Signal<Local, Bit>,
    grant_b: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    base: Signal<Local, Bits<32>>,
    base_count: Signal<Local, Bits<6>>,
    cnt_m1: Signal<Local, Bits<6>>,
    cnt_p1: Signal<Local, Bits<6>>,
}

impl<const DW: usize, const KW: usize> Logic for DmaWriteMux<DW, KW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, order, count, last_b, busy, data_b, busy2, data_b2);
        self.grant_a.next = false;
        self.grant_b.next = false;
        if (self.count.q.val() < 32) & !self.busy2.q.val() {
            if self.s_axis_a_desc_tvalid.val()
                & (!self.s_axis_b_desc_tvalid.val() | self.last_b.q.val())
            {
                self.grant_a.next = true;
            } else if self.s_axis_b_desc_tvalid.val() {
                self.grant_b.next = true;
            }
        }
        self.m_axis_desc_tdata.next = self.s_axis_a_desc_tdata.val();
        if self.grant_b.val() {
            self.m_axis_desc_tdata.next = self.s_axis_b_desc_tdata.val();
        }
        self.m_axis_desc_tvalid.next = self.grant_a.val() | self.grant_b.val();
        self.s_axis_a_desc_tready.next = self.grant_a.val() & self.m_axis_desc_tready.val();
        self.s_axis_b_desc_tready.next = self.grant_b.val() & self.m_axis_desc_tready.val();
        // Data of the granted descriptor.
        self.m_axis_tdata.next = self.s_axis_a_tdata.val();
        self.m_axis_tkeep.next = self.s_axis_a_tkeep.val();
        self.m_axis_tlast.next = self.s_axis_a_tlast.val();
        self.m_axis_tvalid.next =
            self.busy.q.val() & !self.data_b.q.val() & self.s_axis_a_tvalid.val();
        if self.data_b.q.val() {
            self.m_axis_tdata.next = self.s_axis_b_tdata.val();
            self.m_axis_tkeep.next = self.s_axis_b_tkeep.val();
            self.m_axis_tlast.next = self.s_axis_b_tlast.val();
            self.m_axis_tvalid.next = self.busy.q.val() & self.s_axis_b_tvalid.val();
        }
        self.s_axis_a_tready.next =
            self.busy.q.val() & !self.data_b.q.val() & self.m_axis_tready.val();
        self.s_axis_b_tready.next =
            self.busy.q.val() & self.data_b.q.val() & self.m_axis_tready.val();
        // The last beat of the passing write: the second descriptor's data is next.
        self.pass_last.next =
            self.m_axis_tvalid.val() & self.m_axis_tready.val() & self.m_axis_tlast.val();
        if self.pass_last.val() {
            self.busy.d.next = self.busy2.q.val();
            self.data_b.d.next = self.data_b2.q.val();
            self.busy2.d.next = false;
        }
        // Done tags, routed by the order queue.
        self.m_axis_a_done_tdata.next = self.s_axis_done_tdata.val();
        self.m_axis_b_done_tdata.next = self.s_axis_done_tdata.val();
        self.pop.next = self.s_axis_done_tvalid.val() & (self.count.q.val() != 0);
        self.m_axis_a_done_tvalid.next = self.pop.val() & !self.order.q.val().get_bit(0);
        self.m_axis_b_done_tvalid.next = self.pop.val() & self.order.q.val().get_bit(0);
        // (the count's `- 1` and `+ 1` side by side, chosen by pop and push: no carry chain follows another)
        self.cnt_m1.next = self.count.q.val() - 1;
        self.cnt_p1.next = self.count.q.val() + 1;
        self.base.next = self.order.q.val();
        self.base_count.next = self.count.q.val();
        if self.pop.val() {
            self.base.next = self.order.q.val() >> 1;
            self.base_count.next = self.cnt_m1.val();
        }
        self.order.d.next = self.base.val();
        self.count.d.next = self.base_count.val();
        if self.m_axis_desc_tvalid.val() & self.m_axis_desc_tready.val() {
            if self.grant_b.val() {
                self.order.d.next = self.base.val() | (bits::<32>(1) << self.base_count.val());
            }
            self.count.d.next = self.cnt_p1.val();
            if self.pop.val() {
                self.count.d.next = self.count.q.val();
            }
            self.last_b.d.next = self.grant_b.val();
            // (a grant needs the second place free: with a last beat passing, the first is free after it)
            if self.pass_last.val() | !self.busy.q.val() {
                self.busy.d.next = true;
                self.data_b.d.next = self.grant_b.val();
            } else {
                self.busy2.d.next = true;
                self.data_b2.d.next = self.grant_b.val();
            }
        }
        if self.rst.val() {
            self.order.d.next = 0.into();
            self.count.d.next = 0.into();
            self.last_b.d.next = false;
            self.busy.d.next = false;
            self.data_b.d.next = false;
            self.busy2.d.next = false;
            self.data_b2.d.next = false;
        }
    }
}
