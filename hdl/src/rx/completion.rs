//! Receive completions in message order (MR-SEM-18..22, MR-SEM-33, MR-SEM-36, spec 8.5, 8.9): the receive
//! message table of every connection, the final verdict of every DATA packet, and the in-order completion of
//! messages.
//!
//! Message table: per connection `2^MB` slots indexed by `msn mod 2^MB` (the model's `rx_msgs`, with
//! `max_outstanding_msgs = 2^MB`), each `{ state: EMPTY / ACTIVE / FAILED(code), opcode, msg_len, got, imm, addr,
//! key, se, owes_wqe }`, plus per connection `base_msn` (next MSN to complete) and the receive direction's error
//! state `rx_failed = (msn, code)` (MR-SEM-36). Cleared by `s_axis_open_*`.
//!
//! Examined packets: untrimmed DATA packets with `drop == 0`, and those that an earlier stage failed (`tuser.nack`
//! and `tuser.fail` with `drop` ACCESS / INVALID, as `rx::recv_queue` and `rx::mr_check` emit them: the model's
//! `fail_msg` of those checks). Every other packet passes unchanged and touches nothing.
//!
//! Verdict of an examined packet (in the model's order; the earlier stages' verdicts in `tuser` rank below the
//! message-table checks): `rx_failed` and `msn` after it → NACK its code, aux = failed MSN, drop INVALID;
//! `msn - base_msn >= 2^MB` → drop INVALID (no NACK); slot FAILED → NACK its code, aux = MSN, drop INVALID
//! (the model counts every packet of a failed message as `invalid`); slot ACTIVE with another opcode or
//! `msg_len` → fail INVALID; then the upstream verdict (`tuser.nack`, marking the slot FAILED (`fail_msg`:
//! the error state when it is the earliest failed MSN, `owes_wqe` kept, drop ACCESS for code ACCESS, else
//! INVALID) when `tuser.fail`); then WRITE_IMM with an EMPTY slot and an empty RQ → NACK RNR.
//! A packet that passes is accepted: the slot becomes ACTIVE (first packet) and counts `payload_len` bytes.
//! The packet leaves on `m_axis_pkt_*` with its final `drop` / `tuser` (the ACK generator NACKs when
//! `tuser.nack`; the window accepts when `drop == 0 && !tuser.nack`; placement places when `tuser.place`).
//!
//! Position: the model classifies duplicates and PSNs beyond the window (`RecvWindow::classify`) before the
//! message table. This stage keeps no window state: every DATA packet it examines must be new in the window.
//! At `rx::rx_engine`'s check point that holds: the window's pre-classification marks duplicates and PSNs
//! beyond the window (`drop` DUPLICATE / OUT_OF_WINDOW) before the checks, so they are not examined and touch
//! nothing (no bytes counted twice, no failed message from a copy that a check rejects).
//!
//! Completion (after the packet has left): while the slot of `base_msn` is ACTIVE and complete (the model's
//! `RecvMsg::complete`: `got >= msg_len`, a READ_REQ when it arrived):
//! WRITE → nothing; SEND / SEND_IMM / WRITE_IMM → pop the QP's next RQE (`m_axis_pop_*` / `s_axis_popped_*`;
//! none posted: stop and wait for a `s_axis_kick_*` of the connection) and emit a [`Completion`] (`Recv` or
//! `RecvWriteImm`, `byte_len = msg_len`, `imm`, flags: imm_valid 1, solicited 2) on `m_axis_rcpl_*`, whose
//! `tuser` is `{ packet number (31:16), wqe_index (15:0) }` (the packet number lets the CQ writer wait for the
//! payload writes, see [`crate::rx::placement`]); READ_REQ → a [`ReadReq`] on `m_axis_readreq_*` (MR-SEM-21;
//! back-pressure holds it and later completions); READ_RESP → a [`ReadDone`] on `m_axis_rdone_*` for the
//! requester's READ, with the packet number in `tuser` (the core passes it on once placement has written the
//! READ's data, so the READ's CQE follows its data); then the slot is cleared and `base_msn` advances. A
//! FAILED slot with `owes_wqe` pops its RQE and completes it with `LocalLength`, `byte_len` 0 (MR-SEM-33);
//! completion stops at a FAILED slot.
//!
//! One packet at a time (about 6 cycles plus the completions it triggers): the packet's slot and connection
//! words are read in the cycle it is taken, P1 compares them (registered), P2 gives the verdict and writes the
//! slot, the packet then leaves; the delivery states re-read the connection state and the slot of `base_msn`.

use crate::common::ram::SdpRam;
use crate::common::zext::Zext;
use crate::records::{Completion, ConnIdx, PktMeta};
use crate::rel::records::ConnOpen;
use crate::rx::mr_check::{Lit, RxCheck};
use crate::rx::records::ReadReq;
use crate::rx::recv_queue::RqePop;
use metaroce_proto::wire::{DataFlags, NackCode, Opcode, PacketType};
use metaroce_regmap::descriptor::cqe::{CqeOpcode, CqeStatus};
use rust_hdl::prelude::*;

pub use rec::{ConnRx, MsgSlot, ReadDone};

// `LogicStruct` generates public accessor methods without docs; the record and its fields are documented.
#[allow(missing_docs)]
mod rec {
    use crate::records::ConnIdx;
    use rust_hdl::prelude::*;

    /// A READ_RESP message was received completely, in order (the requester's READ WR may complete, MR-SEM-24).
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct ReadDone {
        /// Connection.
        pub conn: ConnIdx,
        /// MSN of the READ_REQ answered (the responses' `key`).
        pub msn: Bits<32>,
        /// Bytes received.
        pub bytes: Bits<32>,
    }

    /// Receive-direction state of a connection.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct ConnRx {
        /// Next MSN to complete.
        pub base: Bits<32>,
        /// The receive direction is in the error state of MR-SEM-36.
        pub failed: Bit,
        /// The failed message's MSN.
        pub fmsn: Bits<32>,
        /// Its NACK code.
        pub fcode: Bits<8>,
    }

    /// One receive message-table slot (the model's `RecvMsg`).
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct MsgSlot {
        /// 0 EMPTY, 1 ACTIVE, 2 FAILED.
        pub state: Bits<2>,
        /// Opcode.
        pub opcode: Bits<8>,
        /// Message length.
        pub len: Bits<32>,
        /// Payload bytes accepted.
        pub got: Bits<32>,
        /// Immediate.
        pub imm: Bits<32>,
        /// READ_REQ: the address to read.
        pub addr: Bits<64>,
        /// READ_REQ: R_Key; SEND: SSN; READ_RESP: MSN of the request.
        pub key: Bits<32>,
        /// The LAST packet had SE.
        pub se: Bit,
        /// FAILED: the RQE is owed a LocalLength completion.
        pub owes: Bit,
        /// FAILED: the NACK code.
        pub fcode: Bits<8>,
    }
}

/// The completion stage: `2^CB` connections, `2^MB` message slots per connection, `SA = CB + MB`.
#[derive(LogicBlock)]
pub struct RxCompletion<const CB: usize, const MB: usize, const SA: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// Connection opened (clears its table).
    pub s_axis_open_tdata: Signal<In, ConnOpen>,
    /// Valid.
    pub s_axis_open_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_open_tready: Signal<Out, Bit>,
    /// Packet in.
    pub s_axis_pkt_tdata: Signal<In, PktMeta>,
    /// Verdict so far.
    pub s_axis_pkt_tuser: Signal<In, RxCheck>,
    /// Valid.
    pub s_axis_pkt_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_pkt_tready: Signal<Out, Bit>,
    /// Packet out (final verdict).
    pub m_axis_pkt_tdata: Signal<Out, PktMeta>,
    /// Final verdict.
    pub m_axis_pkt_tuser: Signal<Out, RxCheck>,
    /// Valid.
    pub m_axis_pkt_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_pkt_tready: Signal<In, Bit>,
    /// RQE pop request.
    pub m_axis_pop_tdata: Signal<Out, ConnIdx>,
    /// Valid.
    pub m_axis_pop_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_pop_tready: Signal<In, Bit>,
    /// Pop answer.
    pub s_axis_popped_tdata: Signal<In, RqePop>,
    /// Valid.
    pub s_axis_popped_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_popped_tready: Signal<Out, Bit>,
    /// RQ doorbell for a connection's QP.
    pub s_axis_kick_tdata: Signal<In, ConnIdx>,
    /// Valid.
    pub s_axis_kick_tvalid: Signal<In, Bit>,
    /// Receive completion.
    pub m_axis_rcpl_tdata: Signal<Out, Completion>,
    /// `{ packet number, wqe_index }`.
    pub m_axis_rcpl_tuser: Signal<Out, Bits<32>>,
    /// Valid.
    pub m_axis_rcpl_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_rcpl_tready: Signal<In, Bit>,
    /// READ_REQ to execute (to the transmit path).
    pub m_axis_readreq_tdata: Signal<Out, ReadReq>,
    /// Valid.
    pub m_axis_readreq_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_readreq_tready: Signal<In, Bit>,
    /// READ_RESP message complete (to the transmit path).
    pub m_axis_rdone_tdata: Signal<Out, ReadDone>,
    /// The packet number of the packet after which it completed (as in `m_axis_rcpl_tuser` 31:16): the READ's
    /// completion may be written only once placement's `safe_count` has reached it.
    pub m_axis_rdone_tuser: Signal<Out, Bits<16>>,
    /// Valid.
    pub m_axis_rdone_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_rdone_tready: Signal<In, Bit>,
    cst: SdpRam<ConnRx, CB>,
    slots: SdpRam<MsgSlot, SA>,
    state: DFF<Bits<4>>,
    conn_r: DFF<Bits<CB>>,
    idx_r: DFF<Bits<MB>>,
    meta: DFF<PktMeta>,
    chk: DFF<RxCheck>,
    cur: DFF<MsgSlot>,
    cs: DFF<ConnRx>,
    pkts: DFF<Bits<16>>,
    clr: DFF<Bits<MB>>,
    rcpl: DFF<Completion>,
    rcpl_user: DFF<Bits<32>>,
    readreq: DFF<ReadReq>,
    rdone: DFF<ReadDone>,
    rdone_user: DFF<Bits<16>>,
    kpend: DFF<Bit>,
    kconn_r: DFF<Bits<CB>>,
    // the packet's comparisons with its slot and connection state (P1, for P2)
    fnack2: DFF<Bit>,
    fneg2: DFF<Bit>,
    far2: DFF<Bit>,
    sfail2: DFF<Bit>,
    sempty2: DFF<Bit>,
    mism2: DFF<Bit>,
    exam2: DFF<Bit>,
    rd_conn: Signal<Local, Bits<CB>>,
    rd_idx: Signal<Local, Bits<MB>>,
    x_rconn: Zext<CB, SA>,
    x_ridx: Zext<MB, SA>,
    sl: Signal<Local, MsgSlot>,
    cr: Signal<Local, ConnRx>,
    nsl: Signal<Local, MsgSlot>,
    ncr: Signal<Local, ConnRx>,
    op: Signal<Local, Bits<8>>,
    msn: Signal<Local, Bits<32>>,
    dm: Signal<Local, Bits<32>>,
    fd: Signal<Local, Bits<32>>,
    examined: Signal<Local, Bit>,
    do_fail: Signal<Local, Bit>,
    fcode: Signal<Local, Bits<8>>,
    facc: Signal<Local, Bit>,
    fowes: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    idle: Signal<Local, Bit>,
    take_o: Signal<Local, Bit>,
    take_k: Signal<Local, Bit>,
    take_p: Signal<Local, Bit>,
    oconn: Signal<Local, ConnIdx>,
    kconn: Signal<Local, ConnIdx>,
    pconn: Signal<Local, ConnIdx>,
    x_conn: Zext<CB, SA>,
    x_idx: Zext<MB, SA>,
    x_cout: Zext<CB, 16>,
    x_plen: Zext<16, 32>,
    x_user: Zext<16, 32>,
    x_pkts: Zext<16, 32>,
    k_mb: Constant<Bits<8>>,
    k_slots: Constant<Bits<32>>,
    k_data: Lit<4, { PacketType::Data as u64 }>,
    k_op_write: Lit<8, { Opcode::Write as u64 }>,
    k_op_write_imm: Lit<8, { Opcode::WriteImm as u64 }>,
    k_op_send: Lit<8, { Opcode::Send as u64 }>,
    k_op_send_imm: Lit<8, { Opcode::SendImm as u64 }>,
    k_op_read_req: Lit<8, { Opcode::ReadReq as u64 }>,
    k_op_read_resp: Lit<8, { Opcode::ReadResp as u64 }>,
    k_nack_access: Lit<8, { NackCode::Access as u64 }>,
    k_nack_invalid: Lit<8, { NackCode::Invalid as u64 }>,
    k_nack_rnr: Lit<8, { NackCode::Rnr as u64 }>,
    k_drop_access: Lit<8, { crate::rx::drop::ACCESS as u64 }>,
    k_drop_invalid: Lit<8, { crate::rx::drop::INVALID as u64 }>,
    k_se: Lit<8, { DataFlags::SE.0 as u64 }>,
    k_last: Lit<8, { DataFlags::LAST.0 as u64 }>,
    k_cqe_recv: Lit<8, { CqeOpcode::Recv as u64 }>,
    k_cqe_recv_imm: Lit<8, { CqeOpcode::RecvWriteImm as u64 }>,
    k_st_local_length: Lit<8, { CqeStatus::LocalLength as u64 }>,
    k_zero8: Lit<8, 0>,
    k_zero16_b: Lit<16, 0>,
    k_f_imm: Lit<8, 1>,
    k_f_se: Lit<8, 2>,
    k_f_both: Lit<8, 3>,
    k_zero32: Lit<32, 0>,
    k_zero64: Lit<64, 0>,
    k_one16: Lit<16, 1>,
    k_one32: Lit<32, 1>,
    k_one_mb: Lit<MB, 1>,
    k_zero_mb: Lit<MB, 0>,
    k_empty: Lit<2, 0>,
    k_active: Lit<2, 1>,
    k_failed: Lit<2, 2>,
    k_s_idle: Lit<4, 0>,
    k_s_clr: Lit<4, 1>,
    k_s_p1: Lit<4, 2>,
    k_s_p2: Lit<4, 3>,
    k_s_out: Lit<4, 4>,
    k_s_d1: Lit<4, 5>,
    k_s_d2: Lit<4, 6>,
    k_s_pop: Lit<4, 7>,
    k_s_popw: Lit<4, 8>,
    k_s_cpl: Lit<4, 9>,
    k_s_rr: Lit<4, 10>,
    k_s_rd: Lit<4, 11>,
    k_s_adv: Lit<4, 12>,
    k_s_d3: Lit<4, 14>,
}

impl<const CB: usize, const MB: usize, const SA: usize> RxCompletion<CB, MB, SA> {
    /// The stage for `2^CB` connections (`cfg.conn_bits`) and `2^MB` message slots per connection
    /// (`SA = CB + MB`).
    pub fn new() -> Self {
        assert!(SA == CB + MB && (1..=8).contains(&MB) && CB <= 16);
        RxCompletion {
            clk: Default::default(),
            rst: Default::default(),
            s_axis_open_tdata: Default::default(),
            s_axis_open_tvalid: Default::default(),
            s_axis_open_tready: Default::default(),
            s_axis_pkt_tdata: Default::default(),
            s_axis_pkt_tuser: Default::default(),
            s_axis_pkt_tvalid: Default::default(),
            s_axis_pkt_tready: Default::default(),
            m_axis_pkt_tdata: Default::default(),
            m_axis_pkt_tuser: Default::default(),
            m_axis_pkt_tvalid: Default::default(),
            m_axis_pkt_tready: Default::default(),
            m_axis_pop_tdata: Default::default(),
            m_axis_pop_tvalid: Default::default(),
            m_axis_pop_tready: Default::default(),
            s_axis_popped_tdata: Default::default(),
            s_axis_popped_tvalid: Default::default(),
            s_axis_popped_tready: Default::default(),
            s_axis_kick_tdata: Default::default(),
            s_axis_kick_tvalid: Default::default(),
            m_axis_rcpl_tdata: Default::default(),
            m_axis_rcpl_tuser: Default::default(),
            m_axis_rcpl_tvalid: Default::default(),
            m_axis_rcpl_tready: Default::default(),
            m_axis_readreq_tdata: Default::default(),
            m_axis_readreq_tvalid: Default::default(),
            m_axis_readreq_tready: Default::default(),
            m_axis_rdone_tdata: Default::default(),
            m_axis_rdone_tuser: Default::default(),
            m_axis_rdone_tvalid: Default::default(),
            m_axis_rdone_tready: Default::default(),
            cst: SdpRam::new(1 << CB),
            slots: SdpRam::new(1 << SA),
            state: Default::default(),
            conn_r: Default::default(),
            idx_r: Default::default(),
            meta: Default::default(),
            chk: Default::default(),
            cur: Default::default(),
            cs: Default::default(),
            pkts: Default::default(),
            clr: Default::default(),
            rcpl: Default::default(),
            rcpl_user: Default::default(),
            readreq: Default::default(),
            rdone: Default::default(),
            rdone_user: Default::default(),
            kpend: Default::default(),
            kconn_r: Default::default(),
            fnack2: Default::default(),
            fneg2: Default::default(),
            far2: Default::default(),
            sfail2: Default::default(),
            sempty2: Default::default(),
            mism2: Default::default(),
            exam2: Default::default(),
            rd_conn: Default::default(),
            rd_idx: Default::default(),
            x_rconn: Default::default(),
            x_ridx: Default::default(),
            sl: Default::default(),
            cr: Default::default(),
            nsl: Default::default(),
            ncr: Default::default(),
            op: Default::default(),
            msn: Default::default(),
            dm: Default::default(),
            fd: Default::default(),
            examined: Default::default(),
            do_fail: Default::default(),
            fcode: Default::default(),
            facc: Default::default(),
            fowes: Default::default(),
            accept: Default::default(),
            idle: Default::default(),
            take_o: Default::default(),
            take_k: Default::default(),
            take_p: Default::default(),
            oconn: Default::default(),
            kconn: Default::default(),
            pconn: Default::default(),
            x_conn: Default::default(),
            x_idx: Default::default(),
            x_cout: Default::default(),
            x_plen: Default::default(),
            x_user: Default::default(),
            x_pkts: Default::default(),
            k_mb: Constant::new((MB as u64).to_bits()),
            k_slots: Constant::new((1u64 << MB).to_bits()),
            k_data: Default::default(),
            k_op_write: Default::default(),
            k_op_write_imm: Default::default(),
            k_op_send: Default::default(),
            k_op_send_imm: Default::default(),
            k_op_read_req: Default::default(),
            k_op_read_resp: Default::default(),
            k_nack_access: Default::default(),
            k_nack_invalid: Default::default(),
            k_nack_rnr: Default::default(),
            k_drop_access: Default::default(),
            k_drop_invalid: Default::default(),
            k_se: Default::default(),
            k_last: Default::default(),
            k_cqe_recv: Default::default(),
            k_cqe_recv_imm: Default::default(),
            k_st_local_length: Default::default(),
            k_zero8: Default::default(),
            k_zero16_b: Default::default(),
            k_f_imm: Default::default(),
            k_f_se: Default::default(),
            k_f_both: Default::default(),
            k_zero32: Default::default(),
            k_zero64: Default::default(),
            k_one16: Default::default(),
            k_one32: Default::default(),
            k_one_mb: Default::default(),
            k_zero_mb: Default::default(),
            k_empty: Default::default(),
            k_active: Default::default(),
            k_failed: Default::default(),
            k_s_idle: Default::default(),
            k_s_clr: Default::default(),
            k_s_p1: Default::default(),
            k_s_p2: Default::default(),
            k_s_out: Default::default(),
            k_s_d1: Default::default(),
            k_s_d2: Default::default(),
            k_s_pop: Default::default(),
            k_s_popw: Default::default(),
            k_s_cpl: Default::default(),
            k_s_rr: Default::default(),
            k_s_rd: Default::default(),
            k_s_adv: Default::default(),
            k_s_d3: Default::default(),
        }
    }
}

impl<const CB: usize, const MB: usize, const SA: usize> Default for RxCompletion<CB, MB, SA> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const CB: usize, const MB: usize, const SA: usize> Logic for RxCompletion<CB, MB, SA> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, state, conn_r, idx_r, meta, chk, cur, cs, pkts, clr, rcpl, rcpl_user,
            readreq, rdone, rdone_user, kpend, kconn_r, fnack2, fneg2, far2, sfail2, sempty2,
            mism2, exam2
        );
        self.cst.clk.next = self.clk.val();
        self.slots.clk.next = self.clk.val();
        self.idle.next = self.state.q.val() == self.k_s_idle.v.val();
        self.oconn.next = self.s_axis_open_tdata.val().conn;
        self.kconn.next = self.s_axis_kick_tdata.val();
        self.pconn.next = self.s_axis_pkt_tdata.val().conn;
        if self.s_axis_kick_tvalid.val() {
            self.kpend.d.next = true;
            self.kconn_r.d.next = self.kconn.val().get_bits::<CB>(0);
        }
        self.take_o.next = self.idle.val() & self.s_axis_open_tvalid.val();
        self.take_k.next = self.idle.val() & !self.s_axis_open_tvalid.val() & self.kpend.q.val();
        self.take_p.next = self.idle.val()
            & !self.s_axis_open_tvalid.val()
            & !self.kpend.q.val()
            & self.s_axis_pkt_tvalid.val();
        self.s_axis_open_tready.next = self.take_o.val();
        self.s_axis_pkt_tready.next = self.take_p.val();
        if self.take_o.val() {
            self.conn_r.d.next = self.oconn.val().get_bits::<CB>(0);
            self.clr.d.next = self.k_zero_mb.v.val();
            self.state.d.next = self.k_s_clr.v.val();
        }
        if self.take_k.val() {
            self.kpend.d.next = false;
            self.conn_r.d.next = self.kconn_r.q.val();
            self.state.d.next = self.k_s_d1.v.val();
        }
        if self.take_p.val() {
            self.conn_r.d.next = self.pconn.val().get_bits::<CB>(0);
            self.idx_r.d.next = self.s_axis_pkt_tdata.val().msn.get_bits::<MB>(0);
            self.meta.d.next = self.s_axis_pkt_tdata.val();
            self.chk.d.next = self.s_axis_pkt_tuser.val();
            self.state.d.next = self.k_s_p1.v.val();
        }

        // RAM ports: the connection's state and the slot (conn, idx).
        self.x_conn.i.next = self.conn_r.q.val();
        if self.state.q.val() == self.k_s_clr.v.val() {
            self.x_idx.i.next = self.clr.q.val();
        } else {
            self.x_idx.i.next = self.idx_r.q.val();
        }
        // A packet's words are read in the cycle it is taken (addressed from the input), so that P1 can
        // compare them; no write happens in that cycle.
        if self.idle.val() {
            self.rd_conn.next = self.pconn.val().get_bits::<CB>(0);
            self.rd_idx.next = self.s_axis_pkt_tdata.val().msn.get_bits::<MB>(0);
        } else {
            self.rd_conn.next = self.conn_r.q.val();
            self.rd_idx.next = self.x_idx.i.val();
        }
        self.x_rconn.i.next = self.rd_conn.val();
        self.x_ridx.i.next = self.rd_idx.val();
        self.cst.rd_addr.next = self.rd_conn.val();
        self.cst.wr_addr.next = self.conn_r.q.val();
        self.slots.rd_addr.next = (self.x_rconn.o.val() << self.k_mb.val()) | self.x_ridx.o.val();
        self.slots.wr_addr.next = (self.x_conn.o.val() << self.k_mb.val()) | self.x_idx.o.val();
        self.sl.next = self.slots.rd_data.val();
        self.cr.next = self.cst.rd_data.val();
        self.nsl.next = self.sl.val();
        self.ncr.next = self.cs.q.val();
        self.slots.wr_en.next = false;
        self.cst.wr_en.next = false;

        // Open: clear the connection's slots and state.
        if self.state.q.val() == self.k_s_clr.v.val() {
            self.nsl.next.state = self.k_empty.v.val();
            self.nsl.next.owes = false;
            self.nsl.next.got = self.k_zero32.v.val();
            self.slots.wr_en.next = true;
            self.ncr.next.base = self.k_zero32.v.val();
            self.ncr.next.failed = false;
            self.cst.wr_en.next = true;
            self.clr.d.next = self.clr.q.val() + self.k_one_mb.v.val();
            if self.clr.q.val() == !self.k_zero_mb.v.val() {
                self.state.d.next = self.k_s_idle.v.val();
            }
        }

        // Packet: P1 compares the slot and the connection state (on the RAM outputs since the take), P2 gives
        // the verdict and updates the message table.
        if self.state.q.val() == self.k_s_p1.v.val() {
            self.state.d.next = self.k_s_p2.v.val();
        }
        self.op.next = self.meta.q.val().opcode;
        self.msn.next = self.meta.q.val().msn;
        self.dm.next = self.msn.val() - self.cr.val().base;
        self.fd.next = self.msn.val() - self.cr.val().fmsn;
        self.fnack2.d.next =
            self.cr.val().failed & !self.fd.val().get_bit(31) & self.fd.val().any();
        self.fneg2.d.next = self.fd.val().get_bit(31);
        self.far2.d.next = self.dm.val() >= self.k_slots.val();
        self.sfail2.d.next = self.sl.val().state == self.k_failed.v.val();
        self.sempty2.d.next = self.sl.val().state == self.k_empty.v.val();
        self.mism2.d.next = (self.sl.val().state == self.k_active.v.val())
            & ((self.sl.val().opcode != self.op.val())
                | (self.sl.val().len != self.meta.q.val().msg_len));
        self.x_plen.i.next = self.meta.q.val().payload_len;
        self.examined.next = (!self.meta.q.val().drop.any()
            | (self.chk.q.val().nack
                & self.chk.q.val().fail
                & ((self.meta.q.val().drop == self.k_drop_access.v.val())
                    | (self.meta.q.val().drop == self.k_drop_invalid.v.val()))))
            & (self.meta.q.val().ptype == self.k_data.v.val())
            & !self.meta.q.val().trimmed;
        self.do_fail.next = false;
        self.accept.next = false;
        self.fcode.next = self.chk.q.val().code;
        self.facc.next = self.chk.q.val().code == self.k_nack_access.v.val();
        self.fowes.next = false;
        // `meta` and `chk` hold from the take to the end of P2: decided in P1, registered for P2.
        self.exam2.d.next = self.examined.val();
        if (self.state.q.val() == self.k_s_p2.v.val()) & self.exam2.q.val() {
            self.ncr.next = self.cr.val();
            if self.fnack2.q.val() {
                self.chk.d.next.nack = true;
                self.chk.d.next.fail = false;
                self.chk.d.next.code = self.cr.val().fcode;
                self.chk.d.next.aux = self.cr.val().fmsn;
                self.chk.d.next.place = false;
                self.meta.d.next.drop = self.k_drop_invalid.v.val();
            } else if self.far2.q.val() {
                self.chk.d.next.nack = false;
                self.chk.d.next.fail = false;
                self.chk.d.next.place = false;
                self.meta.d.next.drop = self.k_drop_invalid.v.val();
            } else if self.sfail2.q.val() {
                self.chk.d.next.nack = true;
                self.chk.d.next.fail = false;
                self.chk.d.next.code = self.sl.val().fcode;
                self.chk.d.next.aux = self.msn.val();
                self.chk.d.next.place = false;
                self.meta.d.next.drop = self.k_drop_invalid.v.val();
            } else if self.mism2.q.val() {
                self.do_fail.next = true;
                self.fcode.next = self.k_nack_invalid.v.val();
                self.facc.next = false;
            } else if self.chk.q.val().nack {
                if self.chk.q.val().fail {
                    self.do_fail.next = true;
                    self.fowes.next = self.chk.q.val().owes_wqe;
                }
            } else if (self.op.val() == self.k_op_write_imm.v.val())
                & self.sempty2.q.val()
                & self.chk.q.val().rq_empty
            {
                self.chk.d.next.nack = true;
                self.chk.d.next.code = self.k_nack_rnr.v.val();
                self.chk.d.next.place = false;
            } else {
                self.accept.next = true;
            }
            if self.accept.val() {
                if self.sempty2.q.val() {
                    self.nsl.next.state = self.k_active.v.val();
                    self.nsl.next.opcode = self.op.val();
                    self.nsl.next.len = self.meta.q.val().msg_len;
                    self.nsl.next.got = self.x_plen.o.val();
                    self.nsl.next.imm = self.meta.q.val().imm;
                    self.nsl.next.addr = self.meta.q.val().addr;
                    self.nsl.next.key = self.meta.q.val().key;
                    self.nsl.next.owes = false;
                    self.nsl.next.se = false;
                } else {
                    self.nsl.next.got = self.sl.val().got + self.x_plen.o.val();
                }
                if (self.meta.q.val().dflags & self.k_last.v.val()).any() {
                    self.nsl.next.se = (self.meta.q.val().dflags & self.k_se.v.val()).any();
                }
                self.slots.wr_en.next = true;
            }
            if self.do_fail.val() {
                self.nsl.next.state = self.k_failed.v.val();
                self.nsl.next.fcode = self.fcode.val();
                self.nsl.next.owes = self.fowes.val();
                self.nsl.next.opcode = self.op.val();
                self.nsl.next.len = self.meta.q.val().msg_len;
                self.slots.wr_en.next = true;
                if !self.cr.val().failed | self.fneg2.q.val() {
                    self.ncr.next.failed = true;
                    self.ncr.next.fmsn = self.msn.val();
                    self.ncr.next.fcode = self.fcode.val();
                    self.cst.wr_en.next = true;
                }
                self.chk.d.next.nack = true;
                self.chk.d.next.fail = true;
                self.chk.d.next.code = self.fcode.val();
                self.chk.d.next.aux = self.msn.val();
                self.chk.d.next.owes_wqe = self.fowes.val();
                self.chk.d.next.place = false;
                if self.facc.val() {
                    self.meta.d.next.drop = self.k_drop_access.v.val();
                } else {
                    self.meta.d.next.drop = self.k_drop_invalid.v.val();
                }
            }
        }
        if self.state.q.val() == self.k_s_p2.v.val() {
            self.state.d.next = self.k_s_out.v.val();
        }
        self.m_axis_pkt_tdata.next = self.meta.q.val();
        self.m_axis_pkt_tuser.next = self.chk.q.val();
        self.m_axis_pkt_tvalid.next = self.state.q.val() == self.k_s_out.v.val();
        if (self.state.q.val() == self.k_s_out.v.val()) & self.m_axis_pkt_tready.val() {
            self.pkts.d.next = self.pkts.q.val() + self.k_one16.v.val();
            self.state.d.next = self.k_s_d1.v.val();
        }

        // Delivery: complete messages from base_msn on, in order.
        if self.state.q.val() == self.k_s_d1.v.val() {
            self.state.d.next = self.k_s_d2.v.val();
        }
        if self.state.q.val() == self.k_s_d2.v.val() {
            self.cs.d.next = self.cr.val();
            self.idx_r.d.next = self.cr.val().base.get_bits::<MB>(0);
            self.state.d.next = self.k_s_d3.v.val();
        }
        if self.state.q.val() == self.k_s_d3.v.val() {
            self.state.d.next = self.k_s_adv.v.val();
        }
        self.x_cout.i.next = self.conn_r.q.val();
        if self.state.q.val() == self.k_s_adv.v.val() {
            self.cur.d.next = self.sl.val();
            self.readreq.d.next.conn = self.x_cout.o.val();
            self.readreq.d.next.msn = self.cs.q.val().base;
            self.readreq.d.next.local_addr = self.sl.val().addr;
            self.readreq.d.next.remote_addr = self.k_zero64.v.val();
            self.readreq.d.next.len = self.sl.val().len;
            self.rdone.d.next.conn = self.x_cout.o.val();
            self.rdone.d.next.msn = self.sl.val().key;
            self.rdone.d.next.bytes = self.sl.val().got;
            self.rdone_user.d.next = self.pkts.q.val();
            self.state.d.next = self.k_s_idle.v.val();
            if (self.sl.val().state == self.k_active.v.val())
                & ((self.sl.val().opcode == self.k_op_read_req.v.val())
                    | (self.sl.val().got >= self.sl.val().len))
            {
                if self.sl.val().opcode == self.k_op_write.v.val() {
                    self.nsl.next.state = self.k_empty.v.val();
                    self.slots.wr_en.next = true;
                    self.ncr.next.base = self.cs.q.val().base + self.k_one32.v.val();
                    self.cst.wr_en.next = true;
                    self.state.d.next = self.k_s_d1.v.val();
                } else if (self.sl.val().opcode == self.k_op_send.v.val())
                    | (self.sl.val().opcode == self.k_op_send_imm.v.val())
                    | (self.sl.val().opcode == self.k_op_write_imm.v.val())
                {
                    self.state.d.next = self.k_s_pop.v.val();
                } else if self.sl.val().opcode == self.k_op_read_req.v.val() {
                    self.state.d.next = self.k_s_rr.v.val();
                } else if self.sl.val().opcode == self.k_op_read_resp.v.val() {
                    self.state.d.next = self.k_s_rd.v.val();
                }
            } else if (self.sl.val().state == self.k_failed.v.val()) & self.sl.val().owes {
                self.state.d.next = self.k_s_pop.v.val();
            }
        }
        self.m_axis_pop_tdata.next = self.x_cout.o.val();
        self.m_axis_pop_tvalid.next = self.state.q.val() == self.k_s_pop.v.val();
        if (self.state.q.val() == self.k_s_pop.v.val()) & self.m_axis_pop_tready.val() {
            self.state.d.next = self.k_s_popw.v.val();
        }
        self.s_axis_popped_tready.next = self.state.q.val() == self.k_s_popw.v.val();
        self.x_user.i.next = self.s_axis_popped_tdata.val().index;
        self.x_pkts.i.next = self.pkts.q.val();
        if (self.state.q.val() == self.k_s_popw.v.val()) & self.s_axis_popped_tvalid.val() {
            self.rcpl.d.next.cqn = self.s_axis_popped_tdata.val().cqn;
            self.rcpl.d.next.qpn = self.s_axis_popped_tdata.val().qpn;
            self.rcpl.d.next.wr_id = self.s_axis_popped_tdata.val().wr_id;
            self.rcpl_user.d.next = (self.x_pkts.o.val() << 16u64) | self.x_user.o.val();
            if self.cur.q.val().opcode == self.k_op_write_imm.v.val() {
                self.rcpl.d.next.opcode = self.k_cqe_recv_imm.v.val();
            } else {
                self.rcpl.d.next.opcode = self.k_cqe_recv.v.val();
            }
            if self.cur.q.val().state == self.k_failed.v.val() {
                self.rcpl.d.next.status = self.k_st_local_length.v.val();
                self.rcpl.d.next.byte_len = self.k_zero32.v.val();
                self.rcpl.d.next.imm = self.k_zero32.v.val();
                self.rcpl.d.next.flags = self.k_zero8.v.val();
            } else {
                self.rcpl.d.next.status = self.k_zero8.v.val();
                self.rcpl.d.next.byte_len = self.cur.q.val().len;
                if self.cur.q.val().opcode == self.k_op_send.v.val() {
                    self.rcpl.d.next.imm = self.k_zero32.v.val();
                    if self.cur.q.val().se {
                        self.rcpl.d.next.flags = self.k_f_se.v.val();
                    } else {
                        self.rcpl.d.next.flags = self.k_zero8.v.val();
                    }
                } else {
                    self.rcpl.d.next.imm = self.cur.q.val().imm;
                    if self.cur.q.val().se {
                        self.rcpl.d.next.flags = self.k_f_both.v.val();
                    } else {
                        self.rcpl.d.next.flags = self.k_f_imm.v.val();
                    }
                }
            }
            if self.s_axis_popped_tdata.val().ok {
                self.state.d.next = self.k_s_cpl.v.val();
            } else {
                self.state.d.next = self.k_s_idle.v.val();
            }
        }
        self.m_axis_rcpl_tdata.next = self.rcpl.q.val();
        self.m_axis_rcpl_tuser.next = self.rcpl_user.q.val();
        self.m_axis_rcpl_tvalid.next = self.state.q.val() == self.k_s_cpl.v.val();
        self.m_axis_readreq_tdata.next = self.readreq.q.val();
        self.m_axis_readreq_tvalid.next = self.state.q.val() == self.k_s_rr.v.val();
        self.m_axis_rdone_tdata.next = self.rdone.q.val();
        self.m_axis_rdone_tuser.next = self.rdone_user.q.val();
        self.m_axis_rdone_tvalid.next = self.state.q.val() == self.k_s_rd.v.val();
        if ((self.state.q.val() == self.k_s_cpl.v.val()) & self.m_axis_rcpl_tready.val())
            | ((self.state.q.val() == self.k_s_rr.v.val()) & self.m_axis_readreq_tready.val())
            | ((self.state.q.val() == self.k_s_rd.v.val()) & self.m_axis_rdone_tready.val())
        {
            self.nsl.next = self.cur.q.val();
            self.slots.wr_en.next = true;
            if self.cur.q.val().state == self.k_failed.v.val() {
                self.nsl.next.owes = false;
                self.state.d.next = self.k_s_idle.v.val();
            } else {
                self.nsl.next.state = self.k_empty.v.val();
                self.ncr.next.base = self.cs.q.val().base + self.k_one32.v.val();
                self.cst.wr_en.next = true;
                self.state.d.next = self.k_s_d1.v.val();
            }
        }
        // The RAM write data: the locals after every modification above.
        self.slots.wr_data.next = self.nsl.val();
        self.cst.wr_data.next = self.ncr.val();
        if self.rst.val() {
            self.state.d.next = self.k_s_idle.v.val();
            self.pkts.d.next = self.k_zero16_b.v.val();
            self.kpend.d.next = false;
        }
    }
}

/// The block list entries of this file.
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![crate::blocks::BlockSpec {
        name: "metaroce_rx_completion",
        area: "rx",
        description:
            "receive message table: final verdict, in-order completions, READ_REQ execution",
        verilog: |_cfg| {
            crate::gen::verilog("metaroce_rx_completion", RxCompletion::<14, 3, 17>::new())
        },
    }]
}
