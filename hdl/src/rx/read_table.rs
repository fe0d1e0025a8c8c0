//! The requester's READ table (MR-SEM-24, MR-SEM-34, spec 8.4 and 8.5): where the data of each READ_RESP
//! packet goes.
//!
//! Position in the receive pipeline: `... → recv_queue → read_table → mr_check → completion → ...`.
//!
//! Table: per connection `2^MB` entries indexed by `msn mod 2^MB` of the READ, each `{ valid, msn, addr, lkey,
//! len }`, written from the transmit scheduler's [`ReadRec`] (`s_axis_rec_*`, no back-pressure: a record is
//! written in the cycle it arrives) when a READ's request is first sent. The scheduler keeps at most
//! `cfg_max_started <= 2^MB` started, unreleased messages per connection and releases a READ only after its
//! response completed, so the MSNs of a connection's pending READs differ by less than `2^MB` and never share
//! an entry. An entry is invalidated when its READ's response completed (`s_axis_rdone_*`, from the
//! completion stage, forwarded on `m_axis_rdone_*` to the scheduler after the invalidation is written, so
//! no later READ of the same entry can be recorded before), so a response for a finished READ finds nothing.
//!
//! A READ_RESP packet (`drop == 0`, DATA, not trimmed) reads the entry of `(conn, key mod 2^MB)`, with `key`
//! the MSN of the READ it answers. It is the READ's (`tuser.rqe_ok = 1`) when the entry is valid, its MSN is
//! `key`, its length is the packet's `msg_len`, and `addr + payload_len <= len` (the packet's `addr` is the
//! byte offset in the READ, checked without overflow). The entry's buffer goes into `tuser.rqe_addr`,
//! `rqe_len` and `rqe_lkey` (for a READ_RESP these fields name the READ's local buffer, as they name the RQE's
//! buffer for a SEND); [`crate::rx::mr_check`] then fails a packet without `rqe_ok` with NACK INVALID
//! (MR-SEM-34) and checks `rqe_lkey` for LOCAL_WRITE over the placed range. Every other packet passes
//! unchanged.
//!
//! Latency 2 cycles (the RAM read, then the check into the output register), one packet per cycle;
//! `s_axis_pkt_tready = !out_valid || m_axis_pkt_tready`. A completion notice (`s_axis_rdone_*`) is taken in
//! a cycle without a record write and held until the scheduler takes it.

use crate::common::ram::{RamStyle, SdpRam};
use crate::common::zext::Zext;
use crate::records::PktMeta;
use crate::rx::completion::ReadDone;
use crate::rx::mr_check::RxCheck;
use crate::tx::records::ReadRec;
use metaroce_proto::wire::{Opcode, PacketType};
use rust_hdl::prelude::*;

pub use rec::ReadEnt;

// `LogicStruct` generates public accessor methods without docs; the record and its fields are documented.
#[allow(missing_docs)]
mod rec {
    use rust_hdl::prelude::*;

    /// One READ table entry.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct ReadEnt {
        /// A READ whose response is not complete.
        pub valid: Bit,
        /// Its MSN.
        pub msn: Bits<32>,
        /// Its local buffer.
        pub addr: Bits<64>,
        /// The buffer's local key.
        pub lkey: Bits<32>,
        /// READ length.
        pub len: Bits<32>,
    }
}

/// The READ table: `2^CB` connections, `2^MB` entries per connection, `SA = CB + MB`.
#[derive(LogicBlock)]
pub struct ReadTable<const CB: usize, const MB: usize, const SA: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// READ records from the scheduler.
    pub s_axis_rec_tdata: Signal<In, ReadRec>,
    /// Valid (always taken).
    pub s_axis_rec_tvalid: Signal<In, Bit>,
    /// Packet in.
    pub s_axis_pkt_tdata: Signal<In, PktMeta>,
    /// Its verdict so far.
    pub s_axis_pkt_tuser: Signal<In, RxCheck>,
    /// Valid.
    pub s_axis_pkt_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_pkt_tready: Signal<Out, Bit>,
    /// Packet out.
    pub m_axis_pkt_tdata: Signal<Out, PktMeta>,
    /// Verdict, with the READ's buffer for a READ_RESP.
    pub m_axis_pkt_tuser: Signal<Out, RxCheck>,
    /// Valid.
    pub m_axis_pkt_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_pkt_tready: Signal<In, Bit>,
    /// READ responses completed (from the completion stage).
    pub s_axis_rdone_tdata: Signal<In, ReadDone>,
    /// Valid.
    pub s_axis_rdone_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_rdone_tready: Signal<Out, Bit>,
    /// The same notices, after their entry was invalidated (to the scheduler).
    pub m_axis_rdone_tdata: Signal<Out, ReadDone>,
    /// Valid.
    pub m_axis_rdone_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_rdone_tready: Signal<In, Bit>,
    tab: SdpRam<ReadEnt, SA>,
    x_rc: Zext<CB, SA>,
    x_ri: Zext<MB, SA>,
    x_wc: Zext<CB, SA>,
    x_wi: Zext<MB, SA>,
    x_plen: Zext<16, 64>,
    x_len: Zext<32, 64>,
    // stage 1 (RAM read in flight)
    v1: DFF<Bit>,
    meta1: DFF<PktMeta>,
    chk1: DFF<RxCheck>,
    // output
    vo: DFF<Bit>,
    meta_o: DFF<PktMeta>,
    chk_o: DFF<RxCheck>,
    // completion notice
    rd_v: DFF<Bit>,
    rd: DFF<ReadDone>,
    // combinational
    adv: Signal<Local, Bit>,
    rconn: Signal<Local, Bits<16>>,
    rmsn: Signal<Local, Bits<32>>,
    ent: Signal<Local, ReadEnt>,
    cand: Signal<Local, Bit>,
    room: Signal<Local, Bits<64>>,
    /// The response's `msg_len - addr` and `addr > msg_len`, registered with the packet (the entry must have
    /// `len = msg_len`, so the bounds need no RAM data: one carry chain per cycle).
    room1: DFF<Bits<64>>,
    agt1: DFF<Bit>,
    ok: Signal<Local, Bit>,
    ochk: Signal<Local, RxCheck>,
    take_rd: Signal<Local, Bit>,
    wconn: Signal<Local, Bits<16>>,
    wmsn: Signal<Local, Bits<32>>,
    went: Signal<Local, ReadEnt>,
    c_mb: Constant<Bits<8>>,
    c_data: Constant<Bits<4>>,
    c_op_read_resp: Constant<Bits<8>>,
    c_zero: Constant<ReadEnt>,
}

impl<const CB: usize, const MB: usize, const SA: usize> ReadTable<CB, MB, SA> {
    /// The table (`SA = CB + MB`, `1 <= MB <= 8`).
    pub fn new() -> Self {
        assert!(SA == CB + MB && (1..=8).contains(&MB) && CB <= 16);
        ReadTable {
            clk: Default::default(),
            rst: Default::default(),
            s_axis_rec_tdata: Default::default(),
            s_axis_rec_tvalid: Default::default(),
            s_axis_pkt_tdata: Default::default(),
            s_axis_pkt_tuser: Default::default(),
            s_axis_pkt_tvalid: Default::default(),
            s_axis_pkt_tready: Default::default(),
            m_axis_pkt_tdata: Default::default(),
            m_axis_pkt_tuser: Default::default(),
            m_axis_pkt_tvalid: Default::default(),
            m_axis_pkt_tready: Default::default(),
            s_axis_rdone_tdata: Default::default(),
            s_axis_rdone_tvalid: Default::default(),
            s_axis_rdone_tready: Default::default(),
            m_axis_rdone_tdata: Default::default(),
            m_axis_rdone_tvalid: Default::default(),
            m_axis_rdone_tready: Default::default(),
            tab: SdpRam::new(1 << SA).with_style(RamStyle::Block),
            x_rc: Default::default(),
            x_ri: Default::default(),
            x_wc: Default::default(),
            x_wi: Default::default(),
            x_plen: Default::default(),
            x_len: Default::default(),
            v1: Default::default(),
            meta1: Default::default(),
            chk1: Default::default(),
            vo: Default::default(),
            meta_o: Default::default(),
            chk_o: Default::default(),
            rd_v: Default::default(),
            rd: Default::default(),
            adv: Default::default(),
            rconn: Default::default(),
            rmsn: Default::default(),
            ent: Default::default(),
            cand: Default::default(),
            room: Default::default(),
            room1: Default::default(),
            agt1: Default::default(),
            ok: Default::default(),
            ochk: Default::default(),
            take_rd: Default::default(),
            wconn: Default::default(),
            wmsn: Default::default(),
            went: Default::default(),
            c_mb: Constant::new((MB as u64).to_bits()),
            c_data: Constant::new((PacketType::Data as u64).to_bits()),
            c_op_read_resp: Constant::new((Opcode::ReadResp as u64).to_bits()),
            c_zero: Constant::new(ReadEnt::default()),
        }
    }
}

impl<const CB: usize, const MB: usize, const SA: usize> Default for ReadTable<CB, MB, SA> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const CB: usize, const MB: usize, const SA: usize> Logic for ReadTable<CB, MB, SA> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, v1, meta1, chk1, vo, meta_o, chk_o, rd_v, rd, room1, agt1);
        self.tab.clk.next = self.clk.val();
        self.adv.next = !self.vo.q.val() | self.m_axis_pkt_tready.val();
        self.s_axis_pkt_tready.next = self.adv.val();

        // Read port: the entering packet's entry, or the held one's while the output waits.
        if self.adv.val() {
            self.rconn.next = self.s_axis_pkt_tdata.val().conn;
            self.rmsn.next = self.s_axis_pkt_tdata.val().key;
        } else {
            self.rconn.next = self.meta1.q.val().conn;
            self.rmsn.next = self.meta1.q.val().key;
        }
        self.x_rc.i.next = self.rconn.val().get_bits::<CB>(0);
        self.x_ri.i.next = self.rmsn.val().get_bits::<MB>(0);
        self.tab.rd_addr.next = (self.x_rc.o.val() << self.c_mb.val()) | self.x_ri.o.val();
        self.x_len.i.next = self.s_axis_pkt_tdata.val().msg_len;
        self.room.next = self.x_len.o.val() - self.s_axis_pkt_tdata.val().addr;
        if self.adv.val() {
            self.v1.d.next = self.s_axis_pkt_tvalid.val();
            self.meta1.d.next = self.s_axis_pkt_tdata.val();
            self.chk1.d.next = self.s_axis_pkt_tuser.val();
            self.room1.d.next = self.room.val();
            self.agt1.d.next = self.s_axis_pkt_tdata.val().addr > self.x_len.o.val();
        }

        // Stage 1: the entry is on the RAM output.
        self.ent.next = self.tab.rd_data.val();
        self.cand.next = !self.meta1.q.val().drop.any()
            & (self.meta1.q.val().ptype == self.c_data.val())
            & !self.meta1.q.val().trimmed
            & (self.meta1.q.val().opcode == self.c_op_read_resp.val());
        self.x_plen.i.next = self.meta1.q.val().payload_len;
        self.ok.next = self.ent.val().valid
            & (self.ent.val().msn == self.meta1.q.val().key)
            & (self.ent.val().len == self.meta1.q.val().msg_len)
            & !self.agt1.q.val()
            & (self.x_plen.o.val() <= self.room1.q.val());
        self.ochk.next = self.chk1.q.val();
        if self.cand.val() {
            self.ochk.next.rqe_ok = self.ok.val();
            self.ochk.next.rqe_addr = self.ent.val().addr;
            self.ochk.next.rqe_len = self.ent.val().len;
            self.ochk.next.rqe_lkey = self.ent.val().lkey;
        }
        if self.adv.val() {
            self.vo.d.next = self.v1.q.val();
            self.meta_o.d.next = self.meta1.q.val();
            self.chk_o.d.next = self.ochk.val();
        }
        self.m_axis_pkt_tvalid.next = self.vo.q.val();
        self.m_axis_pkt_tdata.next = self.meta_o.q.val();
        self.m_axis_pkt_tuser.next = self.chk_o.q.val();

        // Write port: a record, else the invalidation of a completed READ (taken only then).
        self.take_rd.next =
            !self.s_axis_rec_tvalid.val() & !self.rd_v.q.val() & self.s_axis_rdone_tvalid.val();
        self.s_axis_rdone_tready.next = self.take_rd.val();
        if self.take_rd.val() {
            self.rd_v.d.next = true;
            self.rd.d.next = self.s_axis_rdone_tdata.val();
        }
        if self.rd_v.q.val() & self.m_axis_rdone_tready.val() {
            self.rd_v.d.next = false;
        }
        self.m_axis_rdone_tvalid.next = self.rd_v.q.val();
        self.m_axis_rdone_tdata.next = self.rd.q.val();
        self.went.next = self.c_zero.val();
        if self.s_axis_rec_tvalid.val() {
            self.wconn.next = self.s_axis_rec_tdata.val().conn;
            self.wmsn.next = self.s_axis_rec_tdata.val().msn;
            self.went.next.valid = true;
            self.went.next.msn = self.s_axis_rec_tdata.val().msn;
            self.went.next.addr = self.s_axis_rec_tdata.val().addr;
            self.went.next.lkey = self.s_axis_rec_tdata.val().lkey;
            self.went.next.len = self.s_axis_rec_tdata.val().len;
        } else {
            self.wconn.next = self.s_axis_rdone_tdata.val().conn;
            self.wmsn.next = self.s_axis_rdone_tdata.val().msn;
        }
        self.x_wc.i.next = self.wconn.val().get_bits::<CB>(0);
        self.x_wi.i.next = self.wmsn.val().get_bits::<MB>(0);
        self.tab.wr_addr.next = (self.x_wc.o.val() << self.c_mb.val()) | self.x_wi.o.val();
        self.tab.wr_data.next = self.went.val();
        self.tab.wr_en.next = self.s_axis_rec_tvalid.val() | self.take_rd.val();
        if self.rst.val() {
            self.v1.d.next = false;
            self.vo.d.next = false;
            self.rd_v.d.next = false;
        }
    }
}

/// The block list entries of this file.
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![crate::blocks::BlockSpec {
        name: "metaroce_rx_read_table",
        area: "rx",
        description:
            "requester's READ table: the local buffer of each READ_RESP packet (MR-SEM-24)",
        verilog: |_cfg| {
            crate::gen::verilog(
                "metaroce_rx_read_table",
                ReadTable::<14, { crate::top::core::MSG_BITS }, 17>::new(),
            )
        },
    }]
}
