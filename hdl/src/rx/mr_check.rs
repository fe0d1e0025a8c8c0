//! Memory protection of the receive path (MR-SEM-13..17, MR-SEM-32..34, spec 8.4 and 8.9): decides for each
//! DATA packet whether its payload may be placed, and where, before any byte is written.
//!
//! Position in the receive pipeline (the order of the reference model's `on_data` checks, each stage adding
//! to the verdict in [`RxCheck`], the `tuser` sideband of the packet stream):
//! `... → recv_queue (RQE for SEND*) → read_table (READ for READ_RESP) → mr_check → completion (message table) → window accept / ACK → placement`.
//!
//! A packet is examined when `drop == 0`, `ptype == DATA` and it is not trimmed; every other packet passes
//! unchanged. Checks, in priority order (highest first, the model's order):
//! 1. `payload_len > cfg_max_payload` (the model's `max(mtu, 4096)`, MR-WIRE-31): NACK INVALID;
//! 2. a verdict already set upstream (`tuser.nack`: the receive queue's RNR / INVALID) is kept;
//! 3. WRITE, WRITE_IMM: `key` is the rkey of a live MR, `[addr, addr + payload_len)` inside it, REMOTE_WRITE
//!    (MR-SEM-13), else NACK ACCESS; placed at `addr`;
//! 4. SEND, SEND_IMM: `msg_len <= rqe.length` (else NACK INVALID, the WQE is owed a LocalLength completion,
//!    MR-SEM-33), the RQE's lkey names a live MR holding `[rqe.addr + addr, + payload_len)` with LOCAL_WRITE
//!    (else NACK ACCESS, MR-SEM-15/32); placed at `rqe.addr + addr`;
//! 5. READ_REQ: no payload (else NACK INVALID), `[addr, addr + msg_len)` inside the rkey's MR with REMOTE_READ
//!    (MR-SEM-14), else NACK ACCESS; nothing placed;
//! 6. FETCH_ADD, CMP_SWAP, experimental opcodes: NACK UNSUPPORTED; reserved opcodes: NACK INVALID;
//! 7. READ_RESP: the READ it answers was found by [`crate::rx::read_table`] (`tuser.rqe_ok`: the entry of its
//!    `key` is valid with that MSN and length, the packet's range inside it), else NACK INVALID (MR-SEM-34);
//!    the READ's lkey (`tuser.rqe_lkey`) names a live MR holding `[rqe_addr + addr, + payload_len)` with
//!    LOCAL_WRITE, else NACK ACCESS (MR-SEM-34); placed at `rqe_addr + addr` (MR-SEM-24).
//!
//! A zero-length range always passes the MR check (as the model). Bounds are checked in 64 bits without
//! overflow: `addr >= base && len <= length && addr - base <= length - len`. A failed check sets
//! `tuser.{nack, fail}`, `code` (NACK code), `aux` = the packet's MSN (MR-SEM-32) and `tdata.drop` = ACCESS for
//! code ACCESS, INVALID otherwise: the ACK generator sends the NACK, the completion stage marks the message
//! failed (MR-SEM-36).
//!
//! Ports: `s_axis_ctxw_*` (MR table writes), `s_axis_pkt_{tdata: PktMeta, tuser: RxCheck, tvalid, tready}` →
//! `m_axis_pkt_*` (same fields), `cfg_max_payload`. Latency 3 cycles (stage 0 classifies the opcode and reads
//! the MR table, stage 1 checks key, bounds and rights, stage 2 decides into the output registers), one packet
//! per cycle; `s_axis_pkt_tready` follows `m_axis_pkt_tready` combinationally (`!out_valid || m_tready`).
//! Contains its own [`MrTable`] (`2^bits` entries; keys: see [`crate::ctx::mr_table`]).

use crate::common::zext::Zext;
use crate::ctx::mr_table::MrTable;
use crate::records::{CtxWrite, PktMeta};
use metaroce_proto::wire::{NackCode, Opcode, PacketType};
use rust_hdl::prelude::*;

pub use rec::RxCheck;

// `LogicStruct` generates public accessor methods without docs; the record and its fields are documented.
#[allow(missing_docs)]
mod rec {
    use rust_hdl::prelude::*;

    /// The receive-side verdict and placement of one DATA packet, travelling with it as the `tuser` sideband of
    /// the packet streams between the receive queue, the MR check, the completion stage, the ACK generator and
    /// placement. All zero for a packet nothing has been decided about yet.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct RxCheck {
        /// SEND / SEND_IMM: the RQE named by the SSN is posted and was read (`rqe_*` valid). READ_RESP: the
        /// READ it answers was found and the packet fits it (`rqe_addr`, `rqe_len`, `rqe_lkey` are the READ's
        /// local buffer, from [`crate::rx::read_table`]).
        pub rqe_ok: Bit,
        /// Its ring index (free-running 16-bit, `metaroce_regmap::queues`).
        pub rqe_index: Bits<16>,
        /// RQE buffer address.
        pub rqe_addr: Bits<64>,
        /// RQE buffer length.
        pub rqe_len: Bits<32>,
        /// RQE local key.
        pub rqe_lkey: Bits<32>,
        /// The QP's receive queue holds no unconsumed RQE (WRITE_IMM RNR, MR-SEM-20).
        pub rq_empty: Bit,
        /// Answer this packet with a NACK of `code` and `aux` (the packet is not accepted).
        pub nack: Bit,
        /// NACK code (`metaroce_proto::wire::NackCode`).
        pub code: Bits<8>,
        /// NACK aux (the MSN for ACCESS / INVALID / UNSUPPORTED, the RNR timer for RNR).
        pub aux: Bits<32>,
        /// The message fails: the receive direction enters the error state of MR-SEM-36.
        pub fail: Bit,
        /// The failed message still owes its RQE a LocalLength completion (MR-SEM-33).
        pub owes_wqe: Bit,
        /// The payload is placed (at `place_addr`).
        pub place: Bit,
        /// Host address of the first payload byte.
        pub place_addr: Bits<64>,
    }
}

/// The MR check stage, with an MR table of `2^A` entries.
#[derive(LogicBlock)]
pub struct MrCheck<const A: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// Context writes (MR table).
    pub s_axis_ctxw_tdata: Signal<In, CtxWrite>,
    /// Context write valid.
    pub s_axis_ctxw_tvalid: Signal<In, Bit>,
    /// Largest payload accepted (bytes): `max(mtu, 4096)`.
    pub cfg_max_payload: Signal<In, Bits<16>>,
    /// Packet in.
    pub s_axis_pkt_tdata: Signal<In, PktMeta>,
    /// Its verdict so far.
    pub s_axis_pkt_tuser: Signal<In, RxCheck>,
    /// Valid.
    pub s_axis_pkt_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_pkt_tready: Signal<Out, Bit>,
    /// Packet out (`drop` set on a failed check).
    pub m_axis_pkt_tdata: Signal<Out, PktMeta>,
    /// Verdict and placement.
    pub m_axis_pkt_tuser: Signal<Out, RxCheck>,
    /// Valid.
    pub m_axis_pkt_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_pkt_tready: Signal<In, Bit>,
    mrt: MrTable<A>,
    x_mlen: Zext<32, 64>,
    x_plen: Zext<16, 64>,
    // stage 1
    v1: DFF<Bit>,
    meta1: DFF<PktMeta>,
    chk1: DFF<RxCheck>,
    cand1: DFF<Bit>,
    key1: DFF<Bits<32>>,
    a1: DFF<Bits<64>>,
    len1: DFF<Bits<64>>,
    need1: DFF<Bits<4>>,
    lk1: DFF<Bit>,
    // opcode class and input-only comparisons, decided in stage 0
    is_w1: DFF<Bit>,
    is_s1: DFF<Bit>,
    is_rr1: DFF<Bit>,
    is_rresp1: DFF<Bit>,
    rbad1: DFF<Bit>,
    is_unsup1: DFF<Bit>,
    big1: DFF<Bit>,
    mlong1: DFF<Bit>,
    lnz1: DFF<Bit>,
    pnz1: DFF<Bit>,
    // stage 2: the MR check's result with the packet
    vb: DFF<Bit>,
    metab: DFF<PktMeta>,
    chkb: DFF<RxCheck>,
    candb: DFF<Bit>,
    ab: DFF<Bits<64>>,
    is_wb: DFF<Bit>,
    is_sb: DFF<Bit>,
    is_rrb: DFF<Bit>,
    is_rrespb: DFF<Bit>,
    rbadb: DFF<Bit>,
    is_unsupb: DFF<Bit>,
    bigb: DFF<Bit>,
    mlongb: DFF<Bit>,
    pnzb: DFF<Bit>,
    mrfb: DFF<Bit>,
    /// `off`, `room` and the non-empty flag registered: the bounds test `off > room` is made in stage 2, so
    /// that stage 1 does not chain a comparison behind the two subtractions.
    offb: DFF<Bits<64>>,
    roomb: DFF<Bits<64>>,
    lnzb: DFF<Bit>,
    mrf2: Signal<Local, Bit>,
    // stage 3 (output)
    v2: DFF<Bit>,
    meta2: DFF<PktMeta>,
    chk2: DFF<RxCheck>,
    // combinational
    adv: Signal<Local, Bit>,
    imeta: Signal<Local, PktMeta>,
    ichk: Signal<Local, RxCheck>,
    iop: Signal<Local, Bits<8>>,
    isend: Signal<Local, Bit>,
    iresp: Signal<Local, Bit>,
    ilocal: Signal<Local, Bit>,
    ilen: Signal<Local, Bits<64>>,
    key_bad: Signal<Local, Bit>,
    key0: Signal<Local, Bits<32>>,
    ent: Signal<Local, crate::ctx::mr_table::MrEntry>,
    eaddr: Signal<Local, Bits<64>>,
    elen: Signal<Local, Bits<64>>,
    eacc: Signal<Local, Bits<4>>,
    off: Signal<Local, Bits<64>>,
    room: Signal<Local, Bits<64>>,
    mr_fail: Signal<Local, Bit>,
    ometa: Signal<Local, PktMeta>,
    ochk: Signal<Local, RxCheck>,
    do_fail: Signal<Local, Bit>,
    fcode: Signal<Local, Bits<8>>,
    facc: Signal<Local, Bit>,
    c_data: Constant<Bits<4>>,
    c_op_write: Constant<Bits<8>>,
    c_op_write_imm: Constant<Bits<8>>,
    c_op_send: Constant<Bits<8>>,
    c_op_send_imm: Constant<Bits<8>>,
    c_op_read_req: Constant<Bits<8>>,
    c_op_read_resp: Constant<Bits<8>>,
    c_op_fetch_add: Constant<Bits<8>>,
    c_op_cmp_swap: Constant<Bits<8>>,
    c_nack_access: Constant<Bits<8>>,
    c_nack_invalid: Constant<Bits<8>>,
    c_nack_unsupported: Constant<Bits<8>>,
    c_drop_access: Constant<Bits<8>>,
    c_drop_invalid: Constant<Bits<8>>,
    c_acc_rw: Constant<Bits<4>>,
    c_acc_rr: Constant<Bits<4>>,
    c_acc_lw: Constant<Bits<4>>,
}

fn c8(v: u8) -> Constant<Bits<8>> {
    Constant::new((v as u64).to_bits())
}

fn c4(v: u8) -> Constant<Bits<4>> {
    Constant::new((v as u64).to_bits())
}

impl<const A: usize> MrCheck<A> {
    /// The stage with an MR table of `2^mr_bits` entries (`mr_bits <= A`).
    pub fn new(mr_bits: u32) -> Self {
        use crate::rx::drop;
        MrCheck {
            clk: Default::default(),
            rst: Default::default(),
            s_axis_ctxw_tdata: Default::default(),
            s_axis_ctxw_tvalid: Default::default(),
            cfg_max_payload: Default::default(),
            s_axis_pkt_tdata: Default::default(),
            s_axis_pkt_tuser: Default::default(),
            s_axis_pkt_tvalid: Default::default(),
            s_axis_pkt_tready: Default::default(),
            m_axis_pkt_tdata: Default::default(),
            m_axis_pkt_tuser: Default::default(),
            m_axis_pkt_tvalid: Default::default(),
            m_axis_pkt_tready: Default::default(),
            mrt: MrTable::new(mr_bits),
            x_mlen: Default::default(),
            x_plen: Default::default(),
            v1: Default::default(),
            meta1: Default::default(),
            chk1: Default::default(),
            cand1: Default::default(),
            key1: Default::default(),
            a1: Default::default(),
            len1: Default::default(),
            need1: Default::default(),
            lk1: Default::default(),
            is_w1: Default::default(),
            is_s1: Default::default(),
            is_rr1: Default::default(),
            is_rresp1: Default::default(),
            rbad1: Default::default(),
            is_unsup1: Default::default(),
            big1: Default::default(),
            mlong1: Default::default(),
            lnz1: Default::default(),
            pnz1: Default::default(),
            vb: Default::default(),
            metab: Default::default(),
            chkb: Default::default(),
            candb: Default::default(),
            ab: Default::default(),
            is_wb: Default::default(),
            is_sb: Default::default(),
            is_rrb: Default::default(),
            is_rrespb: Default::default(),
            rbadb: Default::default(),
            is_unsupb: Default::default(),
            bigb: Default::default(),
            mlongb: Default::default(),
            pnzb: Default::default(),
            mrfb: Default::default(),
            offb: Default::default(),
            roomb: Default::default(),
            lnzb: Default::default(),
            mrf2: Default::default(),
            v2: Default::default(),
            meta2: Default::default(),
            chk2: Default::default(),
            adv: Default::default(),
            imeta: Default::default(),
            ichk: Default::default(),
            iop: Default::default(),
            isend: Default::default(),
            iresp: Default::default(),
            ilocal: Default::default(),
            ilen: Default::default(),
            key_bad: Default::default(),
            key0: Default::default(),
            ent: Default::default(),
            eaddr: Default::default(),
            elen: Default::default(),
            eacc: Default::default(),
            off: Default::default(),
            room: Default::default(),
            mr_fail: Default::default(),
            ometa: Default::default(),
            ochk: Default::default(),
            do_fail: Default::default(),
            fcode: Default::default(),
            facc: Default::default(),
            c_data: c4(PacketType::Data as u8),
            c_op_write: c8(Opcode::Write as u8),
            c_op_write_imm: c8(Opcode::WriteImm as u8),
            c_op_send: c8(Opcode::Send as u8),
            c_op_send_imm: c8(Opcode::SendImm as u8),
            c_op_read_req: c8(Opcode::ReadReq as u8),
            c_op_read_resp: c8(Opcode::ReadResp as u8),
            c_op_fetch_add: c8(Opcode::FetchAdd as u8),
            c_op_cmp_swap: c8(Opcode::CmpSwap as u8),
            c_nack_access: c8(NackCode::Access as u8),
            c_nack_invalid: c8(NackCode::Invalid as u8),
            c_nack_unsupported: c8(NackCode::Unsupported as u8),
            c_drop_access: c8(drop::ACCESS),
            c_drop_invalid: c8(drop::INVALID),
            c_acc_rw: c4(metaroce_regmap::context::mr::MrAccess::REMOTE_WRITE.0),
            c_acc_rr: c4(metaroce_regmap::context::mr::MrAccess::REMOTE_READ.0),
            c_acc_lw: c4(metaroce_regmap::context::mr::MrAccess::LOCAL_WRITE.0),
        }
    }
}

impl<const A: usize> Logic for MrCheck<A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, v1, meta1, chk1, cand1, key1, a1, len1, need1, lk1, is_w1, is_s1, is_rr1,
            is_rresp1, rbad1, is_unsup1, big1, mlong1, lnz1, pnz1, vb, metab, chkb, candb, ab,
            is_wb, is_sb, is_rrb, is_rrespb, rbadb, is_unsupb, bigb, mlongb, pnzb, mrfb, offb,
            roomb, lnzb, v2, meta2, chk2
        );
        self.mrt.clk.next = self.clk.val();
        self.mrt.s_axis_ctxw_tdata.next = self.s_axis_ctxw_tdata.val();
        self.mrt.s_axis_ctxw_tvalid.next = self.s_axis_ctxw_tvalid.val();

        self.x_mlen.i.next = self.s_axis_pkt_tdata.val().msg_len;
        self.x_plen.i.next = self.s_axis_pkt_tdata.val().payload_len;
        self.adv.next = !self.v2.q.val() | self.m_axis_pkt_tready.val();
        self.s_axis_pkt_tready.next = self.adv.val();

        // Stage 0: select key, address and length; classify the opcode and compare what the input alone decides.
        self.imeta.next = self.s_axis_pkt_tdata.val();
        self.ichk.next = self.s_axis_pkt_tuser.val();
        self.iop.next = self.imeta.val().opcode;
        self.isend.next =
            (self.iop.val() == self.c_op_send.val()) | (self.iop.val() == self.c_op_send_imm.val());
        self.iresp.next = self.iop.val() == self.c_op_read_resp.val();
        self.ilocal.next = self.isend.val() | self.iresp.val();
        if self.ilocal.val() {
            self.key0.next = self.ichk.val().rqe_lkey;
        } else {
            self.key0.next = self.imeta.val().key;
        }
        if self.iop.val() == self.c_op_read_req.val() {
            self.ilen.next = self.x_mlen.o.val();
        } else {
            self.ilen.next = self.x_plen.o.val();
        }
        if self.adv.val() {
            self.mrt.lookup_key.next = self.key0.val();
        } else {
            self.mrt.lookup_key.next = self.key1.q.val();
        }
        if self.adv.val() {
            self.v1.d.next = self.s_axis_pkt_tvalid.val();
            self.meta1.d.next = self.imeta.val();
            self.chk1.d.next = self.ichk.val();
            self.cand1.d.next = !self.imeta.val().drop.any()
                & (self.imeta.val().ptype == self.c_data.val())
                & !self.imeta.val().trimmed;
            self.key1.d.next = self.key0.val();
            self.lk1.d.next = self.ilocal.val();
            if self.ilocal.val() {
                self.a1.d.next = self.ichk.val().rqe_addr + self.imeta.val().addr;
                self.need1.d.next = self.c_acc_lw.val();
            } else {
                self.a1.d.next = self.imeta.val().addr;
                if self.iop.val() == self.c_op_read_req.val() {
                    self.need1.d.next = self.c_acc_rr.val();
                } else {
                    self.need1.d.next = self.c_acc_rw.val();
                }
            }
            self.len1.d.next = self.ilen.val();
            self.lnz1.d.next = self.ilen.val().any();
            self.pnz1.d.next = self.imeta.val().payload_len.any();
            self.is_w1.d.next = (self.iop.val() == self.c_op_write.val())
                | (self.iop.val() == self.c_op_write_imm.val());
            self.is_s1.d.next = self.isend.val();
            self.is_rr1.d.next = self.iop.val() == self.c_op_read_req.val();
            self.is_rresp1.d.next = self.iresp.val();
            self.rbad1.d.next = !self.ichk.val().rqe_ok;
            self.is_unsup1.d.next = (self.iop.val() == self.c_op_fetch_add.val())
                | (self.iop.val() == self.c_op_cmp_swap.val())
                | self.iop.val().get_bit(7);
            self.big1.d.next = self.imeta.val().payload_len > self.cfg_max_payload.val();
            self.mlong1.d.next = self.imeta.val().msg_len > self.ichk.val().rqe_len;
        }

        // Stage 1: the MR entry is on the RAM output; decide.
        self.ent.next = self.mrt.lookup_entry.val();
        self.eaddr.next = self.ent.val().addr;
        self.elen.next = self.ent.val().length;
        self.eacc.next = self.ent.val().access;
        if self.lk1.q.val() {
            self.key_bad.next = self.ent.val().lkey != self.key1.q.val();
        } else {
            self.key_bad.next = self.ent.val().rkey != self.key1.q.val();
        }
        self.off.next = self.a1.q.val() - self.eaddr.val();
        self.room.next = self.elen.val() - self.len1.q.val();
        self.mr_fail.next = self.lnz1.q.val()
            & (!self.ent.val().valid
                | self.key_bad.val()
                | (self.a1.q.val() < self.eaddr.val())
                | (self.len1.q.val() > self.elen.val())
                | ((self.eacc.val() & self.need1.q.val()) != self.need1.q.val()));
        if self.adv.val() {
            self.vb.d.next = self.v1.q.val();
            self.metab.d.next = self.meta1.q.val();
            self.chkb.d.next = self.chk1.q.val();
            self.candb.d.next = self.cand1.q.val();
            self.ab.d.next = self.a1.q.val();
            self.is_wb.d.next = self.is_w1.q.val();
            self.is_sb.d.next = self.is_s1.q.val();
            self.is_rrb.d.next = self.is_rr1.q.val();
            self.is_rrespb.d.next = self.is_rresp1.q.val();
            self.rbadb.d.next = self.rbad1.q.val();
            self.is_unsupb.d.next = self.is_unsup1.q.val();
            self.bigb.d.next = self.big1.q.val();
            self.mlongb.d.next = self.mlong1.q.val();
            self.pnzb.d.next = self.pnz1.q.val();
            self.mrfb.d.next = self.mr_fail.val();
            self.offb.d.next = self.off.val();
            self.roomb.d.next = self.room.val();
            self.lnzb.d.next = self.lnz1.q.val();
        }
        // The MR check's verdict: stage 1's tests and the bounds test `off > room`.
        self.mrf2.next =
            self.mrfb.q.val() | (self.lnzb.q.val() & (self.offb.q.val() > self.roomb.q.val()));

        // Stage 2: decide.
        self.ometa.next = self.metab.q.val();
        self.ochk.next = self.chkb.q.val();
        self.do_fail.next = false;
        self.fcode.next = self.c_nack_invalid.val();
        self.facc.next = false;
        if self.candb.q.val() {
            if self.bigb.q.val() {
                self.do_fail.next = true;
                self.ochk.next.owes_wqe = false;
            } else if self.chkb.q.val().nack {
                // keep the receive queue's verdict
            } else if self.is_wb.q.val() {
                if self.mrf2.val() {
                    self.do_fail.next = true;
                    self.fcode.next = self.c_nack_access.val();
                    self.facc.next = true;
                } else {
                    self.ochk.next.place = true;
                    self.ochk.next.place_addr = self.ab.q.val();
                }
            } else if self.is_sb.q.val() {
                if self.mlongb.q.val() {
                    self.do_fail.next = true;
                    self.ochk.next.owes_wqe = true;
                } else if self.mrf2.val() {
                    self.do_fail.next = true;
                    self.fcode.next = self.c_nack_access.val();
                    self.facc.next = true;
                } else {
                    self.ochk.next.place = true;
                    self.ochk.next.place_addr = self.ab.q.val();
                }
            } else if self.is_rrb.q.val() {
                if self.pnzb.q.val() {
                    self.do_fail.next = true;
                } else if self.mrf2.val() {
                    self.do_fail.next = true;
                    self.fcode.next = self.c_nack_access.val();
                    self.facc.next = true;
                }
            } else if self.is_rrespb.q.val() {
                if self.rbadb.q.val() {
                    self.do_fail.next = true;
                } else if self.mrf2.val() {
                    self.do_fail.next = true;
                    self.fcode.next = self.c_nack_access.val();
                    self.facc.next = true;
                } else {
                    self.ochk.next.place = true;
                    self.ochk.next.place_addr = self.ab.q.val();
                }
            } else if self.is_unsupb.q.val() {
                self.do_fail.next = true;
                self.fcode.next = self.c_nack_unsupported.val();
            } else {
                self.do_fail.next = true;
            }
        }
        if self.do_fail.val() {
            self.ochk.next.nack = true;
            self.ochk.next.fail = true;
            self.ochk.next.code = self.fcode.val();
            self.ochk.next.aux = self.metab.q.val().msn;
            self.ochk.next.place = false;
            if self.facc.val() {
                self.ometa.next.drop = self.c_drop_access.val();
            } else {
                self.ometa.next.drop = self.c_drop_invalid.val();
            }
        }
        if self.adv.val() {
            self.v2.d.next = self.vb.q.val();
            self.meta2.d.next = self.ometa.val();
            self.chk2.d.next = self.ochk.val();
        }
        self.m_axis_pkt_tvalid.next = self.v2.q.val();
        self.m_axis_pkt_tdata.next = self.meta2.q.val();
        self.m_axis_pkt_tuser.next = self.chk2.q.val();
        if self.rst.val() {
            self.v1.d.next = false;
            self.vb.d.next = false;
            self.v2.d.next = false;
        }
    }
}

/// A constant `V` of `N` bits as a block output (a sized Verilog literal), usable in `#[hdl_gen]` code of blocks
/// that derive `Default`.
#[derive(LogicBlock, Default)]
pub struct Lit<const N: usize, const V: u64> {
    /// The value.
    pub v: Signal<Out, Bits<N>>,
}

impl<const N: usize, const V: u64> Logic for Lit<N, V> {
    fn update(&mut self) {
        self.v.next = V.to_bits();
    }

    fn connect(&mut self) {
        self.v.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "wire [{}:0] k = {}'d{};\nalways @(*) v = k;",
            N - 1,
            N,
            V
        ))
    }
}

/// The block list entries of this file.
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![crate::blocks::BlockSpec {
        name: "metaroce_rx_mr_check",
        area: "rx",
        description: "MR check of WRITE/SEND/READ_REQ/READ_RESP packets (key, bounds, rights) and their placement address",
        verilog: |cfg| {
            let n = "metaroce_rx_mr_check";
            match cfg.mr_bits {
                8 => crate::gen::verilog(n, MrCheck::<8>::new(8)),
                10 => crate::gen::verilog(n, MrCheck::<10>::new(10)),
                14 => crate::gen::verilog(n, MrCheck::<14>::new(14)),
                16 => crate::gen::verilog(n, MrCheck::<16>::new(16)),
                _ => crate::gen::verilog(n, MrCheck::<12>::new(12)),
            }
        },
    }]
}
