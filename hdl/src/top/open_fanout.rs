//! Broadcasts each `ConnOpen` to the five per-connection state holders of the core (receive engine, receive
//! queue, receive completions, transmit engine, sender engine), one transfer per holder. The record is taken
//! into a register with a valid bit per output; each output's valid clears when that holder takes it, and the
//! next record is taken once every output has delivered. Neither an output's valid nor the input's ready
//! depends on any holder's ready in the same cycle (both are registers or a function of registers only), so
//! the holders' handshakes do not chain into the context port. One record per two cycles at most (opens are
//! rare).
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
    data: DFF<ConnOpen>,
    v0: DFF<Bit>,
    v1: DFF<Bit>,
    v2: DFF<Bit>,
    v3: DFF<Bit>,
    v4: DFF<Bit>,
}

impl Logic for OpenFanout {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, data, v0, v1, v2, v3, v4);
        self.m_axis_open_tdata.next = self.data.q.val();
        self.m_axis_open0_tvalid.next = self.v0.q.val();
        self.m_axis_open1_tvalid.next = self.v1.q.val();
        self.m_axis_open2_tvalid.next = self.v2.q.val();
        self.m_axis_open3_tvalid.next = self.v3.q.val();
        self.m_axis_open4_tvalid.next = self.v4.q.val();
        self.s_axis_open_tready.next = !(self.v0.q.val()
            | self.v1.q.val()
            | self.v2.q.val()
            | self.v3.q.val()
            | self.v4.q.val());
        if self.m_axis_open0_tready.val() {
            self.v0.d.next = false;
        }
        if self.m_axis_open1_tready.val() {
            self.v1.d.next = false;
        }
        if self.m_axis_open2_tready.val() {
            self.v2.d.next = false;
        }
        if self.m_axis_open3_tready.val() {
            self.v3.d.next = false;
        }
        if self.m_axis_open4_tready.val() {
            self.v4.d.next = false;
        }
        if self.s_axis_open_tvalid.val() & self.s_axis_open_tready.val() {
            self.data.d.next = self.s_axis_open_tdata.val();
            self.v0.d.next = true;
            self.v1.d.next = true;
            self.v2.d.next = true;
            self.v3.d.next = true;
            self.v4.d.next = true;
        }
        if self.rst.val() {
            self.v0.d.next = false;
            self.v1.d.next = false;
            self.v2.d.next = false;
            self.v3.d.next = false;
            self.v4.d.next = false;
        }
    }
}
