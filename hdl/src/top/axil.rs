//! AXI4-Lite slave (32-bit data, 24-bit byte address) to the core's internal register bus.
//!
//! The internal bus is the one every block with registers takes: a write is one cycle of `bus_wr_en` with
//! `bus_wr_addr` / `bus_wr_data`; a read is one cycle of `bus_rd_en` with `bus_rd_addr`, answered by
//! `bus_rd_valid` with `bus_rd_data` one or more cycles later. The bridge takes one transaction at a time
//! (writes first when both arrive together), which is what a register bus of doorbells and configuration
//! needs. A read that no block answers within 255 cycles completes with SLVERR and data 0xFFFF_FFFF, so a
//! host never hangs on the bus. Byte strobes other than all-ones are rejected with SLVERR (every register is a
//! 32-bit word).
//!
//! A second master, the control processor, shares the bus through `cpu_*`: it holds `cpu_req` (with `cpu_we`,
//! `cpu_addr`, `cpu_wdata`) until `cpu_ack`, which comes with `cpu_rdata` for a read (all ones after the same
//! timeout). When both masters wait, the bridge alternates between them, so neither starves.

use rust_hdl::prelude::*;

/// Bridge state.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum AxilState {
    /// Waiting for a request.
    Idle,
    /// Write done, response pending.
    WriteResp,
    /// Read issued, waiting for the data.
    ReadWait,
    /// Read data held until accepted.
    ReadResp,
    /// The control processor's read issued, waiting for the data.
    CpuReadWait,
    /// The control processor's access done (`cpu_ack`).
    CpuAck,
}

/// AXI4-Lite slave to internal register bus.
#[derive(LogicBlock)]
pub struct AxilBridge {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// Write address.
    pub s_axil_awaddr: Signal<In, Bits<24>>,
    /// Write address valid.
    pub s_axil_awvalid: Signal<In, Bit>,
    /// Write address ready.
    pub s_axil_awready: Signal<Out, Bit>,
    /// Write data.
    pub s_axil_wdata: Signal<In, Bits<32>>,
    /// Write strobes.
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    /// Write data valid.
    pub s_axil_wvalid: Signal<In, Bit>,
    /// Write data ready.
    pub s_axil_wready: Signal<Out, Bit>,
    /// Write response (0 OKAY, 2 SLVERR).
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    /// Write response valid.
    pub s_axil_bvalid: Signal<Out, Bit>,
    /// Write response ready.
    pub s_axil_bready: Signal<In, Bit>,
    /// Read address.
    pub s_axil_araddr: Signal<In, Bits<24>>,
    /// Read address valid.
    pub s_axil_arvalid: Signal<In, Bit>,
    /// Read address ready.
    pub s_axil_arready: Signal<Out, Bit>,
    /// Read data.
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    /// Read response (0 OKAY, 2 SLVERR).
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    /// Read data valid.
    pub s_axil_rvalid: Signal<Out, Bit>,
    /// Read data ready.
    pub s_axil_rready: Signal<In, Bit>,
    /// Internal bus: write strobe.
    pub bus_wr_en: Signal<Out, Bit>,
    /// Internal bus: write address.
    pub bus_wr_addr: Signal<Out, Bits<24>>,
    /// Internal bus: write data.
    pub bus_wr_data: Signal<Out, Bits<32>>,
    /// Internal bus: read strobe.
    pub bus_rd_en: Signal<Out, Bit>,
    /// Internal bus: read address.
    pub bus_rd_addr: Signal<Out, Bits<24>>,
    /// Internal bus: read data.
    pub bus_rd_data: Signal<In, Bits<32>>,
    /// Internal bus: read data valid.
    pub bus_rd_valid: Signal<In, Bit>,
    /// Control processor: access request (held until `cpu_ack`).
    pub cpu_req: Signal<In, Bit>,
    /// Control processor: 1 for a write.
    pub cpu_we: Signal<In, Bit>,
    /// Control processor: byte address.
    pub cpu_addr: Signal<In, Bits<24>>,
    /// Control processor: write data.
    pub cpu_wdata: Signal<In, Bits<32>>,
    /// Control processor: the access is done (one cycle).
    pub cpu_ack: Signal<Out, Bit>,
    /// Control processor: read data (with `cpu_ack`).
    pub cpu_rdata: Signal<Out, Bits<32>>,
    /// Data returned by a read that timed out (all ones, like a PCIe read of a device that is gone).
    pub bus_error_data: Constant<Bits<32>>,
    state: DFF<AxilState>,
    resp: DFF<Bits<2>>,
    rdata: DFF<Bits<32>>,
    timer: DFF<Bits<8>>,
    wr_en: DFF<Bit>,
    rd_en: DFF<Bit>,
    addr: DFF<Bits<24>>,
    wdata: DFF<Bits<32>>,
    /// The control processor goes first when both masters wait.
    cpu_turn: DFF<Bit>,
}

impl Logic for AxilBridge {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, state, resp, rdata, timer, wr_en, rd_en, addr, wdata, cpu_turn);
        self.wr_en.d.next = false;
        self.rd_en.d.next = false;
        self.s_axil_awready.next = false;
        self.s_axil_wready.next = false;
        self.s_axil_arready.next = false;
        match self.state.q.val() {
            AxilState::Idle => {
                if self.cpu_req.val()
                    & (self.cpu_turn.q.val()
                        | !((self.s_axil_awvalid.val() & self.s_axil_wvalid.val())
                            | self.s_axil_arvalid.val()))
                {
                    self.cpu_turn.d.next = false;
                    self.addr.d.next = self.cpu_addr.val();
                    self.wdata.d.next = self.cpu_wdata.val();
                    if self.cpu_we.val() {
                        self.wr_en.d.next = true;
                        self.resp.d.next = 0.into();
                        self.state.d.next = AxilState::CpuAck;
                    } else {
                        self.rd_en.d.next = true;
                        self.timer.d.next = 0.into();
                        self.state.d.next = AxilState::CpuReadWait;
                    }
                } else if self.s_axil_awvalid.val() & self.s_axil_wvalid.val() {
                    self.cpu_turn.d.next = true;
                    self.s_axil_awready.next = true;
                    self.s_axil_wready.next = true;
                    self.addr.d.next = self.s_axil_awaddr.val();
                    self.wdata.d.next = self.s_axil_wdata.val();
                    if self.s_axil_wstrb.val() == 15 {
                        self.wr_en.d.next = true;
                        self.resp.d.next = 0.into();
                    } else {
                        self.resp.d.next = 2.into();
                    }
                    self.state.d.next = AxilState::WriteResp;
                } else if self.s_axil_arvalid.val() {
                    self.cpu_turn.d.next = true;
                    self.s_axil_arready.next = true;
                    self.addr.d.next = self.s_axil_araddr.val();
                    self.rd_en.d.next = true;
                    self.timer.d.next = 0.into();
                    self.state.d.next = AxilState::ReadWait;
                }
            }
            AxilState::WriteResp => {
                if self.s_axil_bready.val() {
                    self.state.d.next = AxilState::Idle;
                }
            }
            AxilState::ReadWait => {
                if self.bus_rd_valid.val() {
                    self.rdata.d.next = self.bus_rd_data.val();
                    self.resp.d.next = 0.into();
                    self.state.d.next = AxilState::ReadResp;
                } else if self.timer.q.val() == 255 {
                    self.rdata.d.next = self.bus_error_data.val();
                    self.resp.d.next = 2.into();
                    self.state.d.next = AxilState::ReadResp;
                } else {
                    self.timer.d.next = self.timer.q.val() + 1;
                }
            }
            AxilState::ReadResp => {
                if self.s_axil_rready.val() {
                    self.state.d.next = AxilState::Idle;
                }
            }
            AxilState::CpuReadWait => {
                if self.bus_rd_valid.val() {
                    self.rdata.d.next = self.bus_rd_data.val();
                    self.resp.d.next = 0.into();
                    self.state.d.next = AxilState::CpuAck;
                } else if self.timer.q.val() == 255 {
                    self.rdata.d.next = self.bus_error_data.val();
                    self.resp.d.next = 2.into();
                    self.state.d.next = AxilState::CpuAck;
                } else {
                    self.timer.d.next = self.timer.q.val() + 1;
                }
            }
            AxilState::CpuAck => {
                self.state.d.next = AxilState::Idle;
            }
            _ => {
                self.state.d.next = AxilState::Idle;
            }
        }
        if self.rst.val() {
            self.state.d.next = AxilState::Idle;
            self.wr_en.d.next = false;
            self.rd_en.d.next = false;
        }
        self.cpu_ack.next = self.state.q.val() == AxilState::CpuAck;
        self.cpu_rdata.next = self.rdata.q.val();
        self.s_axil_bvalid.next = self.state.q.val() == AxilState::WriteResp;
        self.s_axil_bresp.next = self.resp.q.val();
        self.s_axil_rvalid.next = self.state.q.val() == AxilState::ReadResp;
        self.s_axil_rresp.next = self.resp.q.val();
        self.s_axil_rdata.next = self.rdata.q.val();
        self.bus_wr_en.next = self.wr_en.q.val();
        self.bus_rd_en.next = self.rd_en.q.val();
        self.bus_wr_addr.next = self.addr.q.val();
        self.bus_rd_addr.next = self.addr.q.val();
        self.bus_wr_data.next = self.wdata.q.val();
    }
}

impl Default for AxilBridge {
    fn default() -> Self {
        AxilBridge {
            clk: Default::default(),
            rst: Default::default(),
            s_axil_awaddr: Default::default(),
            s_axil_awvalid: Default::default(),
            s_axil_awready: Default::default(),
            s_axil_wdata: Default::default(),
            s_axil_wstrb: Default::default(),
            s_axil_wvalid: Default::default(),
            s_axil_wready: Default::default(),
            s_axil_bresp: Default::default(),
            s_axil_bvalid: Default::default(),
            s_axil_bready: Default::default(),
            s_axil_araddr: Default::default(),
            s_axil_arvalid: Default::default(),
            s_axil_arready: Default::default(),
            s_axil_rdata: Default::default(),
            s_axil_rresp: Default::default(),
            s_axil_rvalid: Default::default(),
            s_axil_rready: Default::default(),
            bus_wr_en: Default::default(),
            bus_wr_addr: Default::default(),
            bus_wr_data: Default::default(),
            bus_rd_en: Default::default(),
            bus_rd_addr: Default::default(),
            bus_rd_data: Default::default(),
            bus_rd_valid: Default::default(),
            cpu_req: Default::default(),
            cpu_we: Default::default(),
            cpu_addr: Default::default(),
            cpu_wdata: Default::default(),
            cpu_ack: Default::default(),
            cpu_rdata: Default::default(),
            bus_error_data: Constant::new(bits::<32>(0xFFFF_FFFF)),
            state: Default::default(),
            resp: Default::default(),
            rdata: Default::default(),
            timer: Default::default(),
            wr_en: Default::default(),
            rd_en: Default::default(),
            addr: Default::default(),
            wdata: Default::default(),
            cpu_turn: Default::default(),
        }
    }
}
