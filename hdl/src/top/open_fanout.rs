//! Broadcasts each `ConnOpen` to the five per-connection state holders of the core (receive engine, receive
//! queue, receive completions, transmit engine, sender engine), one transfer per holder. An output's valid never
//! depends on any ready: each output is offered the record until it takes it (a per-output done bit), and the
//! input is released in the cycle the last output takes it.

use crate::rel::records::ConnOpen;
use rust_hdl::prelude::*;

/// ConnOpen broadcaster to five consumers.
#[derive(LogicBlock, Default)]
pub struct OpenFanout {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// Input record.
    pub s_axis_open_tdata: Signal<In, ConnOpen>,
    /// Input valid.
    pub s_axis_open_tvalid: Signal<In, Bit>,
    /// Input ready.
    pub s_axis_open_tready: Signal<Out, Bit>,
    /// The record, on every output.
    pub m_axis_open_tdata: Signal<Out, ConnOpen>,
    /// Output 0 valid.
    pub m_axis_open0_tvalid: Signal<Out, Bit>,
    /// Output 0 ready.
    pub m_axis_open0_tready: Signal<In, Bit>,
    /// Output 1 valid.
    pub m_axis_open1_tvalid: Signal<Out, Bit>,
    /// Output 1 ready.
    pub m_axis_open1_tready: Signal<In, Bit>,
    /// Output 2 valid.
    pub m_axis_open2_tvalid: Signal<Out, Bit>,
    /// Output 2 ready.
    pub m_axis_open2_tready: Signal<In, Bit>,
    /// Output 3 valid.
    pub m_axis_open3_tvalid: Signal<Out, Bit>,
    /// Output 3 ready.
    pub m_axis_open3_tready: Signal<In, Bit>,
    /// Output 4 valid.
    pub m_axis_open4_tvalid: Signal<Out, Bit>,
    /// Output 4 ready.
    pub m_axis_open4_tready: Signal<In, Bit>,
    done0: DFF<Bit>,
    done1: DFF<Bit>,
    done2: DFF<Bit>,
    done3: DFF<Bit>,
    done4: DFF<Bit>,
    taken0: Signal<Local, Bit>,
    taken1: Signal<Local, Bit>,
    taken2: Signal<Local, Bit>,
    taken3: Signal<Local, Bit>,
    taken4: Signal<Local, Bit>,
}

impl Logic for OpenFanout {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, done0, done1, done2, done3, done4);
        self.m_axis_open_tdata.next = self.s_axis_open_tdata.val();
        self.m_axis_open0_tvalid.next = self.s_axis_open_tvalid.val() & !self.done0.q.val();
        self.m_axis_open1_tvalid.next = self.s_axis_open_tvalid.val() & !self.done1.q.val();
        self.m_axis_open2_tvalid.next = self.s_axis_open_tvalid.val() & !self.done2.q.val();
        self.m_axis_open3_tvalid.next = self.s_axis_open_tvalid.val() & !self.done3.q.val();
        self.m_axis_open4_tvalid.next = self.s_axis_open_tvalid.val() & !self.done4.q.val();
        self.taken0.next =
            self.done0.q.val() | (self.m_axis_open0_tvalid.val() & self.m_axis_open0_tready.val());
        self.taken1.next =
            self.done1.q.val() | (self.m_axis_open1_tvalid.val() & self.m_axis_open1_tready.val());
        self.taken2.next =
            self.done2.q.val() | (self.m_axis_open2_tvalid.val() & self.m_axis_open2_tready.val());
        self.taken3.next =
            self.done3.q.val() | (self.m_axis_open3_tvalid.val() & self.m_axis_open3_tready.val());
        self.taken4.next =
            self.done4.q.val() | (self.m_axis_open4_tvalid.val() & self.m_axis_open4_tready.val());
        self.s_axis_open_tready.next = self.s_axis_open_tvalid.val()
            & self.taken0.val()
            & self.taken1.val()
            & self.taken2.val()
            & self.taken3.val()
            & self.taken4.val();
        self.done0.d.next = self.taken0.val();
        self.done1.d.next = self.taken1.val();
        self.done2.d.next = self.taken2.val();
        self.done3.d.next = self.taken3.val();
        self.done4.d.next = self.taken4.val();
        if self.s_axis_open_tready.val() | self.rst.val() {
            self.done0.d.next = false;
            self.done1.d.next = false;
            self.done2.d.next = false;
            self.done3.d.next = false;
            self.done4.d.next = false;
        }
    }
}
