//! The control processor: PicoRV32 ([`super::picorv32`]), its 128 KiB RAM ([`super::ram`]) and the decoder of
//! its address space (`metaroce_regmap::fwbus`): RAM, the firmware's side of the mailbox, its own registers
//! (clock, boot word, console) and the core's internal register bus, reached as the AXI-Lite bridge's second
//! master (`bus_*`).
//!
//! * `run` low (`CONTROL.CTRL.run`): the processor is held in reset and the RAM takes the image writes
//!   (`img_wr_*`, from the core's image window); `BOOT` reads 0. The processor's reset is registered: it
//!   leaves reset the cycle after `run` rises (and enters it the cycle after `run` falls, when no access can
//!   start: the decoder starts none while `run` is low).
//! * Each access the processor starts is answered with `mem_ready`: RAM one cycle after the request, with the
//!   RAM's registered read; the mailbox, the packet and event ports and the processor's registers two cycles
//!   after it (the region is registered, then the word selected); the register bus when the bridge
//!   acknowledges (the bridge's timeout bounds it). Unmapped addresses read 0 and ignore writes.
//! * Mailbox: `mbox_go` (a host submission) sets `PENDING` with the tag; the firmware's write of `STATUS`
//!   (firmware word 16 of the register file) clears it. `REQ[i]` reads the register file's request word `i`
//!   (`fw_rd_*`); `RESP[i]` and `STATUS` writes go to its firmware words (`fw_wr_*`).
//! * `CONSOLE` writes pulse `console_valid` with the byte (a log stream for the bench or a UART).
//! * `I2C` drives the transceiver module's management bus: its bits 1:0 are the registered `i2c_scl_oe` /
//!   `i2c_sda_oe` (pull the line low), and it reads back the lines `i2c_scl_i` / `i2c_sda_i` through two
//!   synchronising flip-flops. Both lines are released while the processor is stopped.
//! * Packet port (`fwbus::pkt`): an exception packet (`s_axis_exc_*`, always accepted) is copied into the
//!   `RX_REC` record ([`record_map`]) when none is held, else into a queue of `pkt::RX_QUEUE` records (a
//!   distributed RAM with registered pointers), else counted in `RX_STATUS.lost`; `RX_POP` releases the held
//!   record and moves the queue's head into `RX_REC`. `RX_REPLAY` offers the held record on `m_axis_rpl_*` as
//!   a `PktMeta` (the record's fields, every other field 0: no payload, no connection, no drop) until the
//!   receive path takes it, which releases it like `RX_POP`; `RX_POP` is ignored meanwhile.
//!   `TX_REC` words are written one at a time; `TX_SEND` offers the record on `m_axis_ctl_*` as a `PktMeta`
//!   with `ts` = `now` at the write, until the frame builder takes it.
//! * Event port (`fwbus::evt`): a QP error report (`s_axis_qperr_*`) is taken into `QPERR_INFO` / `QPERR_MSN`
//!   when none is held (`tready` is low while one is, so the scheduler keeps the next); `QPERR_POP` releases
//!   it. A `QP_FAIL` write offers its connection on `m_axis_fail_*` until the scheduler takes it, an `RQ_FLUSH`
//!   write its QP on `m_axis_rqf_*` until the receive queue takes it. A `RAISE`
//!   write pulses `async_raise` (the host's `IRQ.CAUSE.async_event`); `PORT` reads the `port_status` input.
//!
//! rust-hdl's simulator cannot run the processor; this block is simulated with Verilator.

use super::picorv32::PicoRv32;
use super::ram::CpuRam;
use crate::records::PktMeta;
use crate::rel::records::QpError;
use crate::rx::parse_meta::meta_fields;
use metaroce_regmap::fwbus::{self, evt, mbox, pkt, sys};
use metaroce_regmap::pktrec;
use rust_hdl::prelude::*;

/// log2 of the RAM's words (128 KiB).
pub const RAM_WORD_BITS: usize = 15;
const _: () = assert!((4 << RAM_WORD_BITS) as u32 == fwbus::RAM_BYTES);

/// The control processor.
#[derive(LogicBlock, Default)]
pub struct ControlCpu {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// The processor may run (else it is held in reset and the RAM takes image writes).
    pub run: Signal<In, Bit>,
    /// Image write strobe (only while `run` is low).
    pub img_wr_en: Signal<In, Bit>,
    /// Image word address.
    pub img_wr_addr: Signal<In, Bits<RAM_WORD_BITS>>,
    /// Image word.
    pub img_wr_data: Signal<In, Bits<32>>,
    /// Register bus request (held until `bus_ack`).
    pub bus_req: Signal<Out, Bit>,
    /// Register bus: a write.
    pub bus_we: Signal<Out, Bit>,
    /// Register bus: byte address.
    pub bus_addr: Signal<Out, Bits<24>>,
    /// Register bus: write data.
    pub bus_wdata: Signal<Out, Bits<32>>,
    /// Register bus: done.
    pub bus_ack: Signal<In, Bit>,
    /// Register bus: read data (with `bus_ack`).
    pub bus_rdata: Signal<In, Bits<32>>,
    /// A host submission (one cycle).
    pub mbox_go: Signal<In, Bit>,
    /// Its tag.
    pub mbox_tag: Signal<In, Bits<16>>,
    /// Request word read (register file's `MAILBOX.REQ[i]`).
    pub fw_rd_addr: Signal<Out, Bits<4>>,
    /// The word (combinational).
    pub fw_rd_data: Signal<In, Bits<32>>,
    /// Firmware word write strobe.
    pub fw_wr_en: Signal<Out, Bit>,
    /// Firmware word: 0..16 RESP, 16 STATUS.
    pub fw_wr_addr: Signal<Out, Bits<5>>,
    /// Firmware word data.
    pub fw_wr_data: Signal<Out, Bits<32>>,
    /// The firmware's boot word (`SYS.BOOT`; 0 while stopped).
    pub boot: Signal<Out, Bits<32>>,
    /// A console byte (one cycle).
    pub console_valid: Signal<Out, Bit>,
    /// The byte.
    pub console_data: Signal<Out, Bits<8>>,
    /// The processor stopped on a trap.
    pub trap: Signal<Out, Bit>,
    /// Exception packets from the receive path (spec 7.3), always accepted: held in `RX_REC`, queued behind
    /// it, or counted in `RX_STATUS.lost` when the queue is full.
    pub s_axis_exc_tdata: Signal<In, PktMeta>,
    /// Valid.
    pub s_axis_exc_tvalid: Signal<In, Bit>,
    /// Ready (always 1).
    pub s_axis_exc_tready: Signal<Out, Bit>,
    /// Exception records the firmware hands back (`RX_REPLAY`), to the receive path's input.
    pub m_axis_rpl_tdata: Signal<Out, PktMeta>,
    /// Valid.
    pub m_axis_rpl_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_rpl_tready: Signal<In, Bit>,
    /// Control packets the firmware sends (`TX_REC` at `TX_SEND`), to the frame builder's header input.
    pub m_axis_ctl_tdata: Signal<Out, PktMeta>,
    /// Valid.
    pub m_axis_ctl_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_ctl_tready: Signal<In, Bit>,
    /// The core's time, ns (the `ts` of a sent record).
    pub now: Signal<In, Bits<64>>,
    /// QP error reports of the transmit scheduler (`QPERR_*`).
    pub s_axis_qperr_tdata: Signal<In, QpError>,
    /// Valid.
    pub s_axis_qperr_tvalid: Signal<In, Bit>,
    /// Ready (no report held).
    pub s_axis_qperr_tready: Signal<Out, Bit>,
    /// A connection whose QP the firmware fails (`QP_FAIL`: a host's MODIFY_QP to ERROR).
    pub m_axis_fail_tdata: Signal<Out, Bits<16>>,
    /// Valid.
    pub m_axis_fail_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_fail_tready: Signal<In, Bit>,
    /// A QP whose posted receive WQEs the receive queue flushes (`RQ_FLUSH`: the QP is in ERROR).
    pub m_axis_rqf_tdata: Signal<Out, Bits<16>>,
    /// Valid.
    pub m_axis_rqf_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_rqf_tready: Signal<In, Bit>,
    /// The firmware raised the host's asynchronous-event interrupt (one cycle).
    pub async_raise: Signal<Out, Bit>,
    /// The network port's status (`fwbus::PortStatus` bits), read in `PORT`.
    pub port_status: Signal<In, Bits<8>>,
    /// The module management bus's SCL line (`SYS.I2C` bit 8, through two flip-flops).
    pub i2c_scl_i: Signal<In, Bit>,
    /// Its SDA line (`SYS.I2C` bit 9).
    pub i2c_sda_i: Signal<In, Bit>,
    /// Pull SCL low (`SYS.I2C` bit 0, registered); the board's open-drain buffer releases the line otherwise.
    pub i2c_scl_oe: Signal<Out, Bit>,
    /// Pull SDA low (`SYS.I2C` bit 1, registered).
    pub i2c_sda_oe: Signal<Out, Bit>,
    cpu: PicoRv32,
    ram: CpuRam<RAM_WORD_BITS>,
}

impl Logic for ControlCpu {
    fn update(&mut self) {
        // The processor does not run in rust-hdl's simulator; only the image path to the RAM is modelled.
        self.cpu.clk.next = self.clk.val();
        self.cpu.resetn.next = false;
        self.cpu.mem_ready.next = false;
        self.cpu.mem_rdata.next = 0.into();
        self.ram.clk.next = self.clk.val();
        self.ram.en.next = self.img_wr_en.val() & !self.run.val();
        self.ram.wstrb.next = 15.into();
        self.ram.addr.next = self.img_wr_addr.val();
        self.ram.wdata.next = self.img_wr_data.val();
        self.bus_req.next = false;
        self.bus_we.next = false;
        self.bus_addr.next = 0.into();
        self.bus_wdata.next = 0.into();
        self.fw_rd_addr.next = 0.into();
        self.fw_wr_en.next = false;
        self.fw_wr_addr.next = 0.into();
        self.fw_wr_data.next = 0.into();
        self.boot.next = 0.into();
        self.console_valid.next = false;
        self.console_data.next = 0.into();
        self.trap.next = self.cpu.trap.val();
        self.s_axis_exc_tready.next = true;
        self.m_axis_ctl_tdata.next = PktMeta::default();
        self.m_axis_ctl_tvalid.next = false;
        self.m_axis_rpl_tdata.next = PktMeta::default();
        self.m_axis_rpl_tvalid.next = false;
        self.s_axis_qperr_tready.next = false;
        self.async_raise.next = false;
        self.m_axis_fail_tdata.next = 0.into();
        self.m_axis_fail_tvalid.next = false;
        self.m_axis_rqf_tdata.next = 0.into();
        self.m_axis_rqf_tvalid.next = false;
        self.i2c_scl_oe.next = false;
        self.i2c_sda_oe.next = false;
    }

    fn connect(&mut self) {
        self.cpu.clk.connect();
        self.cpu.resetn.connect();
        self.cpu.mem_ready.connect();
        self.cpu.mem_rdata.connect();
        self.ram.clk.connect();
        self.ram.en.connect();
        self.ram.wstrb.connect();
        self.ram.addr.connect();
        self.ram.wdata.connect();
        self.bus_req.connect();
        self.bus_we.connect();
        self.bus_addr.connect();
        self.bus_wdata.connect();
        self.fw_rd_addr.connect();
        self.fw_wr_en.connect();
        self.fw_wr_addr.connect();
        self.fw_wr_data.connect();
        self.boot.connect();
        self.console_valid.connect();
        self.console_data.connect();
        self.trap.connect();
        self.s_axis_exc_tready.connect();
        self.m_axis_ctl_tdata.connect();
        self.m_axis_ctl_tvalid.connect();
        self.m_axis_rpl_tdata.connect();
        self.m_axis_rpl_tvalid.connect();
        self.s_axis_qperr_tready.connect();
        self.async_raise.connect();
        self.m_axis_fail_tdata.connect();
        self.m_axis_fail_tvalid.connect();
        self.m_axis_rqf_tdata.connect();
        self.m_axis_rqf_tvalid.connect();
        self.i2c_scl_oe.connect();
        self.i2c_sda_oe.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(verilog_body())
    }
}

/// The copies between the packet record (`metaroce_regmap::pktrec`, bit `lsb` of the 512-bit record) and the
/// packet metadata (`PktMeta`, bit `off` of its vector): `(name, lsb, off, width)`. Every record field names a
/// metadata field of the same width.
pub fn record_map() -> Vec<(&'static str, usize, usize, usize)> {
    let meta = meta_fields();
    pktrec::LAYOUT
        .fields
        .iter()
        .map(|f| {
            let (_, off, w) = *meta
                .iter()
                .find(|m| m.0 == f.name)
                .unwrap_or_else(|| panic!("pkt_record field {} is not a PktMeta field", f.name));
            assert_eq!(w, f.width as usize, "width of {}", f.name);
            (f.name, f.lsb() as usize, off, w)
        })
        .collect()
}

/// The copies of [`record_map`] as Verilog assignments: the exception packet into `exc_rec`, `TX_REC` into
/// the sent packet (`ts` the core's, `trimmed` 0) and the held record into the replayed packet (as held).
fn record_copies() -> (String, String, String) {
    let mut to_rec = String::new();
    let mut to_meta = String::new();
    let mut replay = String::new();
    for (name, lsb, off, w) in record_map() {
        to_rec +=
            &format!("   exc_rec[{lsb} +: {w}] = s_axis_exc_tdata[{off} +: {w}]; // {name}\n");
        let src = match name {
            "ts" => "tx_ts".to_string(),
            "trimmed" => "1'b0".to_string(),
            _ => format!("tx_rec[{lsb} +: {w}]"),
        };
        to_meta += &format!("   m_axis_ctl_tdata[{off} +: {w}] = {src}; // {name}\n");
        replay += &format!("   m_axis_rpl_tdata[{off} +: {w}] = rx_rec[{lsb} +: {w}]; // {name}\n");
    }
    (to_rec, to_meta, replay)
}

/// The `QPERR_INFO` word and `QPERR_MSN` of a `QpError` vector named `v` (`fwbus::evt`), as Verilog
/// expressions.
fn qperr_words(v: &str) -> (String, String) {
    let e = QpError::default();
    let (c, cw) = (e.get_my_offset_conn(), e.get_my_width_conn());
    let (s, sw) = (e.get_my_offset_status(), e.get_my_width_status());
    let (m, mw) = (e.get_my_offset_msn(), e.get_my_width_msn());
    let h = e.get_my_offset_has_msn();
    assert!(cw == 16 && sw == 8 && mw == 32);
    assert_eq!(evt::INFO_HAS_MSN, 1 << 24);
    (
        format!("{{7'd0, {v}[{h}], {v}[{s} +: 8], {v}[{c} +: 16]}}"),
        format!("{v}[{m} +: 32]"),
    )
}

fn verilog_body() -> String {
    let ram_top = 31 - fwbus::RAM_BYTES.trailing_zeros() as usize + 1;
    let (to_rec, to_meta, replay) = record_copies();
    let queue = pkt::RX_QUEUE as usize;
    assert!(queue.is_power_of_two() && queue <= 16);
    let qbits = queue.trailing_zeros();
    assert_eq!(
        (
            pkt::STATUS_REPLAYING,
            pkt::STATUS_QUEUED_LSB,
            pkt::STATUS_LOST_LSB
        ),
        (2, 8, 16),
        "RX_STATUS as the decoder builds it"
    );
    assert_eq!(
        (
            sys::I2C_SCL_LOW,
            sys::I2C_SDA_LOW,
            sys::I2C_SCL_IN,
            sys::I2C_SDA_IN
        ),
        (1, 2, 1 << 8, 1 << 9),
        "SYS.I2C as the decoder builds it"
    );
    assert_eq!(
        (
            evt::STATUS_HELD,
            evt::STATUS_FAIL_PENDING,
            evt::STATUS_FLUSH_PENDING
        ),
        (1, 2, 4),
        "QPERR_STATUS as the decoder builds it"
    );
    let meta_bits = PktMeta::BITS;
    let (qe_info, qe_msn) = qperr_words("s_axis_qperr_tdata");
    let rx_words: String = (0..16)
        .map(|k| format!("      4'd{k}: rxw <= rx_rec[{lo} +: 32];\n", lo = 32 * k))
        .collect();
    format!(
        "\
localparam S_IDLE = 2'd0, S_RAM = 2'd1, S_BUS = 2'd2, S_LOCAL = 2'd3;
// The processor's reset, registered: `run` and `rst` reach its many reset terms from a flip-flop.
reg cpu_rn;
reg [1:0] state;
// The register a local read selects (mailbox, packet port, event port, own registers), decoded from the address
// at the request, one bit per register: the read data is selected in the next cycle (S_LOCAL) from it, so
// that the address decode and the word selection are not one path. Set only for that cycle.
reg [12:0] rs;
// The same for a local write, one bit per register or strobe: its effects happen in S_LOCAL.
reg [12:0] ws;
// The words of the held record and of the mailbox request at the offset, registered every cycle: during an
// access the address is stable, so in S_LOCAL they are the words at the access's offset.
reg [31:0] rxw;
reg [31:0] mbw;
reg ack;
reg [31:0] rdata;
reg pend;
reg [15:0] pend_tag;
reg [63:0] time_q;
reg [31:0] time_hi;
reg [31:0] boot_q;
// The module bus: the lines driven low (bit 0 SCL, bit 1 SDA), and the lines synchronised.
reg [1:0] i2c_drv;
reg [1:0] i2c_s1;
reg [1:0] i2c_s2;
reg con_v;
reg [7:0] con_d;
reg [511:0] rx_rec;
reg rx_full;
reg [15:0] rx_lost;
reg [511:0] tx_rec;
reg [31:0] tx_ts;
reg tx_v;
reg [511:0] exc_rec;
// The queue behind the held record: a distributed RAM read at its head pointer without a clock.
reg [511:0] exq [0:{qmax}];
reg [{qtop}:0] q_wp;
reg [{qtop}:0] q_rp;
reg [{qbits}:0] q_n;
reg rpl_v;
reg qe_held;
reg [31:0] qe_info;
reg [31:0] qe_msn;
reg raise_q;
reg fail_v;
reg [15:0] fail_conn;
reg rqf_v;
reg [15:0] rqf_qp;
wire [31:0] a = cpu$mem_addr;
wire is_ram = a[31:{ram_lo}] == {ram_top}'d0;
wire is_mbox = a[31:8] == 24'h{mbox:06x};
wire is_sys = a[31:8] == 24'h{sys:06x};
wire is_reg = a[31:24] == 8'h{reg:02x};
wire is_pkt = a[31:8] == 24'h{pktb:06x};
wire is_evt = a[31:8] == 24'h{evtb:06x};
wire [7:0] o = a[7:0];
wire [31:0] local_rdata =
     ({{32{{rs[0]}}}} & {{pend_tag, 15'd0, pend}})
   | ({{32{{rs[1]}}}} & mbw)
   | ({{32{{rs[2]}}}} & {{rx_lost, {qpad}'d0, q_n, 6'd0, rpl_v, rx_full}})
   | ({{32{{rs[3]}}}} & {{31'd0, tx_v}})
   | ({{32{{rs[4]}}}} & rxw)
   | ({{32{{rs[5]}}}} & {{29'd0, rqf_v, fail_v, qe_held}})
   | ({{32{{rs[6]}}}} & qe_info)
   | ({{32{{rs[7]}}}} & qe_msn)
   | ({{32{{rs[8]}}}} & {{24'd0, port_status}})
   | ({{32{{rs[9]}}}} & time_q[31:0])
   | ({{32{{rs[10]}}}} & time_hi)
   | ({{32{{rs[11]}}}} & boot_q)
   | ({{32{{rs[12]}}}} & {{22'd0, i2c_s2, 6'd0, i2c_drv}});
wire we = cpu$mem_wstrb != 4'd0;
wire start = cpu$mem_valid && !ack && state == S_IDLE && run;
wire st_write = ws[0];
wire resp_write = ws[1];
wire rx_pop = ws[2] && !rpl_v;
wire rx_replay = ws[3] && rx_full && !rpl_v;
// The held record leaves: popped, or taken by the receive path.
wire rx_take = rx_pop || (rpl_v && m_axis_rpl_tready);
// An arriving exception packet goes to the queue: a record is held and stays (or the queue's head replaces it).
wire q_in = s_axis_exc_tvalid && rx_full && !(rx_take && q_n == {qw}'d0);
wire q_out = rx_take && q_n != {qw}'d0;
wire q_room = q_n != {qw}'d{queue} || q_out;
wire tx_send = ws[4] && !tx_v;
wire tx_word = ws[5];
wire qe_pop = ws[6];
wire qp_fail = ws[7] && !fail_v;
wire rq_flush = ws[8] && !rqf_v;
always @(*) begin
   exc_rec = 512'd0;
{to_rec}   m_axis_ctl_tdata = {meta_bits}'d0;
{to_meta}   m_axis_ctl_tvalid = tx_v;
   m_axis_rpl_tdata = {meta_bits}'d0;
{replay}   m_axis_rpl_tvalid = rpl_v;
   s_axis_exc_tready = 1'b1;
   s_axis_qperr_tready = !qe_held;
   async_raise = raise_q;
   m_axis_fail_tdata = fail_conn;
   m_axis_fail_tvalid = fail_v;
   m_axis_rqf_tdata = rqf_qp;
   m_axis_rqf_tvalid = rqf_v;
   cpu$clk = clk;
   cpu$resetn = cpu_rn;
   cpu$mem_ready = ack || state == S_RAM;
   cpu$mem_rdata = state == S_RAM ? ram$rdata : rdata;
   ram$clk = clk;
   if (run) begin
      ram$en = start && is_ram;
      ram$wstrb = cpu$mem_wstrb;
      ram$addr = a[{ram_hi}:2];
      ram$wdata = cpu$mem_wdata;
   end else begin
      ram$en = img_wr_en;
      ram$wstrb = 4'hf;
      ram$addr = img_wr_addr;
      ram$wdata = img_wr_data;
   end
   fw_rd_addr = a[5:2];
   fw_wr_en = st_write || resp_write;
   fw_wr_addr = st_write ? 5'd16 : {{1'b0, a[5:2]}};
   fw_wr_data = cpu$mem_wdata;
   bus_req = state == S_BUS;
   bus_we = we;
   bus_addr = a[23:0];
   bus_wdata = cpu$mem_wdata;
   boot = boot_q;
   console_valid = con_v;
   console_data = con_d;
   trap = cpu$trap;
   i2c_scl_oe = i2c_drv[0];
   i2c_sda_oe = i2c_drv[1];
end
always @(posedge clk) begin
   cpu_rn <= run && !rst;
   ack <= 1'b0;
   con_v <= 1'b0;
   raise_q <= 1'b0;
   case (o[5:2])
{rx_words}   endcase
   mbw <= fw_rd_data;
   time_q <= time_q + 64'd1;
   i2c_s1 <= {{i2c_sda_i, i2c_scl_i}};
   i2c_s2 <= i2c_s1;
   if (s_axis_qperr_tvalid && !qe_held) begin
      qe_held <= 1'b1;
      qe_info <= {qe_info};
      qe_msn <= {qe_msn};
   end else if (qe_pop) begin
      qe_held <= 1'b0;
   end
   if (qp_fail) begin
      fail_v <= 1'b1;
      fail_conn <= cpu$mem_wdata[15:0];
   end else if (fail_v && m_axis_fail_tready) begin
      fail_v <= 1'b0;
   end
   if (rq_flush) begin
      rqf_v <= 1'b1;
      rqf_qp <= cpu$mem_wdata[15:0];
   end else if (rqf_v && m_axis_rqf_tready) begin
      rqf_v <= 1'b0;
   end
   if (mbox_go) begin
      pend <= 1'b1;
      pend_tag <= mbox_tag;
   end else if (st_write) begin
      pend <= 1'b0;
   end
   if (q_out) begin
      rx_rec <= exq[q_rp];
      q_rp <= q_rp + {qw1}'d1;
   end else if (s_axis_exc_tvalid && (!rx_full || rx_take)) begin
      rx_rec <= exc_rec;
      rx_full <= 1'b1;
   end else if (rx_take) begin
      rx_full <= 1'b0;
   end
   if (q_in && q_room) begin
      exq[q_wp] <= exc_rec;
      q_wp <= q_wp + {qw1}'d1;
   end else if (q_in && rx_lost != 16'hffff) begin
      rx_lost <= rx_lost + 16'd1;
   end
   if ((q_in && q_room) != q_out) q_n <= q_out ? q_n - {qw}'d1 : q_n + {qw}'d1;
   if (rx_replay) begin
      rpl_v <= 1'b1;
   end else if (rpl_v && m_axis_rpl_tready) begin
      rpl_v <= 1'b0;
   end
   if (tx_word) tx_rec[{{a[5:2], 5'd0}} +: 32] <= cpu$mem_wdata;
   if (tx_send) begin
      tx_v <= 1'b1;
      tx_ts <= now[31:0];
   end else if (tx_v && m_axis_ctl_tready) begin
      tx_v <= 1'b0;
   end
   case (state)
      S_IDLE: if (start) begin
         if (is_ram) begin
            state <= S_RAM;
         end else if (is_reg) begin
            state <= S_BUS;
         end else begin
            state <= S_LOCAL;
            rs <= {{is_sys && !we && o == 8'h{s_i2c:02x},
                   is_sys && !we && o == 8'h{s_boot:02x},
                   is_sys && !we && o == 8'h{s_hi:02x},
                   is_sys && !we && o == 8'h{s_lo:02x},
                   is_evt && !we && o == 8'h{e_port:02x},
                   is_evt && !we && o == 8'h{e_msn:02x},
                   is_evt && !we && o == 8'h{e_info:02x},
                   is_evt && !we && o == 8'h{e_st:02x},
                   is_pkt && !we && o[7:6] == 2'd{p_rxq},
                   is_pkt && !we && o == 8'h{p_txs:02x},
                   is_pkt && !we && o == 8'h{p_rxs:02x},
                   is_mbox && !we && o[7:6] == 2'd{req_q},
                   is_mbox && !we && o == 8'h{m_pending:02x}}};
            ws <= {{is_sys && we && o == 8'h{s_con:02x},
                   is_sys && we && o == 8'h{s_i2c:02x},
                   is_sys && we && o == 8'h{s_boot:02x},
                   is_evt && we && o == 8'h{e_raise:02x},
                   is_evt && we && o == 8'h{e_rqf:02x},
                   is_evt && we && o == 8'h{e_fail:02x},
                   is_evt && we && o == 8'h{e_pop:02x},
                   is_pkt && we && o[7:6] == 2'd{p_txq},
                   is_pkt && we && o == 8'h{p_send:02x},
                   is_pkt && we && o == 8'h{p_rpl:02x},
                   is_pkt && we && o == 8'h{p_pop:02x},
                   is_mbox && we && o[7:6] == 2'd{resp_q},
                   is_mbox && we && o == 8'h{m_status:02x}}};
         end
      end
      S_RAM: state <= S_IDLE;
      S_LOCAL: begin
         // Unmapped offsets read 0: no term of local_rdata selects them.
         ack <= 1'b1;
         rdata <= local_rdata;
         rs <= 13'd0;
         ws <= 13'd0;
         if (rs[9]) time_hi <= time_q[63:32];
         if (ws[9]) raise_q <= 1'b1;
         if (ws[10]) boot_q <= cpu$mem_wdata;
         if (ws[11]) i2c_drv <= cpu$mem_wdata[1:0];
         if (ws[12]) begin
            con_v <= 1'b1;
            con_d <= cpu$mem_wdata[7:0];
         end
         state <= S_IDLE;
      end
      S_BUS: if (bus_ack) begin
         ack <= 1'b1;
         rdata <= bus_rdata;
         state <= S_IDLE;
      end
   endcase
   if (!run) begin
      state <= S_IDLE;
      rs <= 13'd0;
      ws <= 13'd0;
      ack <= 1'b0;
      boot_q <= 32'd0;
      i2c_drv <= 2'd0;
      rx_full <= 1'b0;
      rx_lost <= 16'd0;
      q_wp <= {qw1}'d0;
      q_rp <= {qw1}'d0;
      q_n <= {qw}'d0;
      rpl_v <= 1'b0;
      tx_v <= 1'b0;
      qe_held <= 1'b0;
      raise_q <= 1'b0;
      fail_v <= 1'b0;
      rqf_v <= 1'b0;
   end
   if (rst) begin
      state <= S_IDLE;
      rs <= 13'd0;
      ws <= 13'd0;
      ack <= 1'b0;
      pend <= 1'b0;
      pend_tag <= 16'd0;
      time_q <= 64'd0;
      time_hi <= 32'd0;
      boot_q <= 32'd0;
      i2c_drv <= 2'd0;
      i2c_s1 <= 2'b11;
      i2c_s2 <= 2'b11;
      rdata <= 32'd0;
      rx_full <= 1'b0;
      rx_lost <= 16'd0;
      q_wp <= {qw1}'d0;
      q_rp <= {qw1}'d0;
      q_n <= {qw}'d0;
      rpl_v <= 1'b0;
      tx_v <= 1'b0;
      tx_rec <= 512'd0;
      tx_ts <= 32'd0;
      rx_rec <= 512'd0;
      qe_held <= 1'b0;
      qe_info <= 32'd0;
      qe_msn <= 32'd0;
      raise_q <= 1'b0;
      fail_v <= 1'b0;
      fail_conn <= 16'd0;
      rqf_v <= 1'b0;
      rqf_qp <= 16'd0;
   end
end
",
        ram_lo = fwbus::RAM_BYTES.trailing_zeros(),
        ram_top = ram_top,
        ram_hi = fwbus::RAM_BYTES.trailing_zeros() - 1,
        mbox = fwbus::MBOX_BASE >> 8,
        sys = fwbus::SYS_BASE >> 8,
        reg = fwbus::REG_BASE >> 24,
        m_status = mbox::STATUS,
        m_pending = mbox::PENDING,
        req_q = mbox::REQ >> 6,
        resp_q = mbox::RESP >> 6,
        s_lo = sys::TIME_LO,
        s_hi = sys::TIME_HI,
        s_boot = sys::BOOT,
        s_con = sys::CONSOLE,
        s_i2c = sys::I2C,
        pktb = fwbus::PKT_BASE >> 8,
        p_rxs = pkt::RX_STATUS,
        p_pop = pkt::RX_POP,
        p_rpl = pkt::RX_REPLAY,
        p_txs = pkt::TX_STATUS,
        p_send = pkt::TX_SEND,
        p_rxq = pkt::RX_REC >> 6,
        p_txq = pkt::TX_REC >> 6,
        evtb = fwbus::EVT_BASE >> 8,
        e_st = evt::QPERR_STATUS,
        e_pop = evt::QPERR_POP,
        e_info = evt::QPERR_INFO,
        e_msn = evt::QPERR_MSN,
        e_raise = evt::RAISE,
        e_fail = evt::QP_FAIL,
        e_rqf = evt::RQ_FLUSH,
        e_port = evt::PORT,
        qe_info = qe_info,
        rx_words = rx_words,
        qe_msn = qe_msn,
        to_rec = to_rec,
        to_meta = to_meta,
        replay = replay,
        queue = queue,
        qmax = queue - 1,
        qtop = qbits - 1,
        qbits = qbits,
        qw = qbits + 1,
        qw1 = qbits,
        qpad = 16 - 2 - 6 - (qbits + 1),
        meta_bits = meta_bits,
    )
}

/// The block list entries of this file.
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![crate::blocks::BlockSpec {
        name: "metaroce_cpu_control_cpu",
        area: "cpu",
        description: "control processor: PicoRV32 (RV32IM), 128 KiB RAM, mailbox, packet port, event port, clock and register-bus master for the firmware",
        verilog: |_cfg| crate::gen::verilog("metaroce_cpu_control_cpu", ControlCpu::default()),
    }]
}
