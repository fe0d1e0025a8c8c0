//! A register slice for a valid/ready stream: an output register and a skid
//! register, so that neither the data and valid nor the ready crosses it combinationally. One transfer per
//! cycle in steady state; a transfer spends one cycle in it. Where two blocks' handshakes and decisions would
//! chain into one long path (the core's block boundaries), the slice cuts it.
//!
//! Ports: `s_axis_{tdata, tvalid, tready}` in, `m_axis_{tdata, tvalid, tready}` out (a stream with side data
//! carries it in a record with the data). `tready` is the skid register's emptiness; `m_axis_*` are the output
//! register's.

use rust_hdl::prelude::*;

/// The register slice (see the module docs).
#[derive(LogicBlock, Default)]
pub struct RegSlice<T: Synth> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset (empties both registers).
    pub rst: Signal<In, Bit>,
    /// Input data.
    pub s_axis_tdata: Signal<In, T>,
    /// Input valid.
    pub s_axis_tvalid: Signal<In, Bit>,
    /// Input ready (the skid register is empty).
    pub s_axis_tready: Signal<Out, Bit>,
    /// Output data.
    pub m_axis_tdata: Signal<Out, T>,
    /// Output valid.
    pub m_axis_tvalid: Signal<Out, Bit>,
    /// Output ready.
    pub m_axis_tready: Signal<In, Bit>,
    ov: DFF<Bit>,
    od: DFF<T>,
    sv: DFF<Bit>,
    sd: DFF<T>,
}

impl<T: Synth> Logic for RegSlice<T> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, ov, od, sv, sd);
        self.s_axis_tready.next = !self.sv.q.val();
        self.m_axis_tvalid.next = self.ov.q.val();
        self.m_axis_tdata.next = self.od.q.val();
        if !self.ov.q.val() | self.m_axis_tready.val() {
            // The output register is free or hands its transfer on: it takes the skid's, else the input's.
            if self.sv.q.val() {
                self.ov.d.next = true;
                self.od.d.next = self.sd.q.val();
                self.sv.d.next = false;
            } else {
                self.ov.d.next = self.s_axis_tvalid.val();
                self.od.d.next = self.s_axis_tdata.val();
            }
        } else if self.s_axis_tvalid.val() & !self.sv.q.val() {
            // The output is held: the input's transfer waits in the skid register.
            self.sv.d.next = true;
            self.sd.d.next = self.s_axis_tdata.val();
        }
        if self.rst.val() {
            self.ov.d.next = false;
            self.sv.d.next = false;
        }
    }
}
