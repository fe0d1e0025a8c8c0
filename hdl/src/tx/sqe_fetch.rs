//! SQE fetch: reads one send queue entry from host memory (`m_axis_dma_rd_desc_*` for 64 bytes at the address
//! the queue manager computed), decodes it with the layout of `metaroce_regmap::descriptor::sqe` and validates
//! it as `SqeRepr::parse` does (MR-SEM-8): reserved bits zero, opcode 1..=5, `imm` only on WRITE_IMM/SEND_IMM,
//! no remote address or key on SEND*, `solicited` only on SEND*/WRITE_IMM; and the length against
//! `cfg_max_msg_len` (the model's `max_msg_len` check). A bad SQE is not dropped (that would hang the QP's
//! completions): it becomes a [`WorkReq`] with a non-zero `status` (LOCAL_PROTECTION for a malformed entry,
//! LOCAL_LENGTH for a too-long message) that the scheduler completes in order without sending anything.
//!
//! Ports: `s_axis_fetch_*` ([`SqFetch`]) → `m_axis_dma_rd_desc_*` (len 64, tag 0) and `s_axis_dma_rd_*`
//! (DW-bit beats, the SQE in the first 64 bytes; beats up to `tlast` are consumed) → `m_axis_wr_*`
//! ([`WorkReq`], `signaled` = 1). One SQE in flight: throughput one SQE per DMA round trip (latency of the
//! host read + 4 cycles).

use crate::dma::DmaDesc;
use crate::tx::records::{Slice, SqFetch, WorkReq};
use metaroce_regmap::descriptor::cqe::CqeStatus;
use metaroce_regmap::descriptor::sqe::{field as sf, SqOp, LAYOUT};
use rust_hdl::prelude::*;

// States: 0 idle, 1 issuing the DMA read, 2 receiving the entry, 3 decoding, 4 presenting the work request.

/// The SQE fetcher.
#[derive(LogicBlock)]
pub struct SqeFetch<const DW: usize, const KW: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Reset.
    pub rst: Signal<In, Bit>,
    /// Longest message accepted (bytes).
    pub cfg_max_msg_len: Signal<In, Bits<32>>,
    /// Fetch requests.
    pub s_axis_fetch_tdata: Signal<In, SqFetch>,
    /// Valid.
    pub s_axis_fetch_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_fetch_tready: Signal<Out, Bit>,
    /// DMA read descriptor.
    pub m_axis_dma_rd_desc_tdata: Signal<Out, DmaDesc>,
    /// Valid.
    pub m_axis_dma_rd_desc_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_dma_rd_desc_tready: Signal<In, Bit>,
    /// DMA read data.
    pub s_axis_dma_rd_tdata: Signal<In, Bits<DW>>,
    /// Keep (unused: the entry is always 64 whole bytes).
    pub s_axis_dma_rd_tkeep: Signal<In, Bits<KW>>,
    /// Last beat.
    pub s_axis_dma_rd_tlast: Signal<In, Bit>,
    /// Tag (unused).
    pub s_axis_dma_rd_tuser: Signal<In, Bits<16>>,
    /// Valid.
    pub s_axis_dma_rd_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_dma_rd_tready: Signal<Out, Bit>,
    /// Decoded work requests.
    pub m_axis_wr_tdata: Signal<Out, WorkReq>,
    /// Valid.
    pub m_axis_wr_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_wr_tready: Signal<In, Bit>,
    state: DFF<Bits<3>>,
    unused_dma: Signal<Local, Bit>,
    c_s_desc: Constant<Bits<3>>,
    c_s_data: Constant<Bits<3>>,
    c_s_decode: Constant<Bits<3>>,
    c_s_out: Constant<Bits<3>>,
    c_s_idle: Constant<Bits<3>>,
    req: DFF<SqFetch>,
    first: DFF<Bit>,
    beat: DFF<Bits<512>>,
    wr: DFF<WorkReq>,
    low: Slice<DW, 512>,
    f_opcode: Slice<512, 8>,
    f_solicited: Slice<512, 1>,
    f_imm: Slice<512, 32>,
    f_wr_id: Slice<512, 64>,
    f_local_addr: Slice<512, 64>,
    f_lkey: Slice<512, 32>,
    f_length: Slice<512, 32>,
    f_remote_addr: Slice<512, 64>,
    f_rkey: Slice<512, 32>,
    bad: Signal<Local, Bit>,
    is_imm: Signal<Local, Bit>,
    is_send: Signal<Local, Bit>,
    c_reserved: Constant<Bits<512>>,
    c_len: Constant<Bits<32>>,
    c_tag: Constant<Bits<16>>,
    c_write: Constant<Bits<8>>,
    c_write_imm: Constant<Bits<8>>,
    c_send: Constant<Bits<8>>,
    c_send_imm: Constant<Bits<8>>,
    c_read: Constant<Bits<8>>,
    c_st_prot: Constant<Bits<8>>,
    c_st_len: Constant<Bits<8>>,
    c_z8: Constant<Bits<8>>,
    c_z32: Constant<Bits<32>>,
    c_z64: Constant<Bits<64>>,
}

impl<const DW: usize, const KW: usize> Default for SqeFetch<DW, KW> {
    fn default() -> Self {
        Self::new()
    }
}

/// Mask of the reserved bits of an SQE (bits no field of `sqe::LAYOUT` covers).
pub fn sqe_reserved_mask() -> Bits<512> {
    let mut m = Bits::<512>::mask();
    for f in LAYOUT.fields {
        for b in f.lsb()..f.end() {
            m = m.replace_bit(b as usize, false);
        }
    }
    m
}

impl<const DW: usize, const KW: usize> SqeFetch<DW, KW> {
    /// An SQE fetcher (`DW` >= 512, `DW` = 8 * `KW`).
    pub fn new() -> Self {
        assert!(DW >= 512 && DW == 8 * KW);
        let b8 = |v: u8| Constant::new(Bits::<8>::from(v as u64));
        SqeFetch {
            clk: Default::default(),
            rst: Default::default(),
            cfg_max_msg_len: Default::default(),
            s_axis_fetch_tdata: Default::default(),
            s_axis_fetch_tvalid: Default::default(),
            s_axis_fetch_tready: Default::default(),
            m_axis_dma_rd_desc_tdata: Default::default(),
            m_axis_dma_rd_desc_tvalid: Default::default(),
            m_axis_dma_rd_desc_tready: Default::default(),
            s_axis_dma_rd_tdata: Default::default(),
            s_axis_dma_rd_tkeep: Default::default(),
            s_axis_dma_rd_tlast: Default::default(),
            s_axis_dma_rd_tuser: Default::default(),
            s_axis_dma_rd_tvalid: Default::default(),
            s_axis_dma_rd_tready: Default::default(),
            m_axis_wr_tdata: Default::default(),
            m_axis_wr_tvalid: Default::default(),
            m_axis_wr_tready: Default::default(),
            state: Default::default(),
            unused_dma: Default::default(),
            c_s_idle: Constant::new(0.into()),
            c_s_desc: Constant::new(1.into()),
            c_s_data: Constant::new(2.into()),
            c_s_decode: Constant::new(3.into()),
            c_s_out: Constant::new(4.into()),
            req: Default::default(),
            first: Default::default(),
            beat: Default::default(),
            wr: Default::default(),
            low: Slice::new(0),
            f_opcode: Slice::field(&sf::OPCODE),
            f_solicited: Slice::field(&sf::SOLICITED),
            f_imm: Slice::field(&sf::IMM),
            f_wr_id: Slice::field(&sf::WR_ID),
            f_local_addr: Slice::field(&sf::LOCAL_ADDR),
            f_lkey: Slice::field(&sf::LKEY),
            f_length: Slice::field(&sf::LENGTH),
            f_remote_addr: Slice::field(&sf::REMOTE_ADDR),
            f_rkey: Slice::field(&sf::RKEY),
            bad: Default::default(),
            is_imm: Default::default(),
            is_send: Default::default(),
            c_reserved: Constant::new(sqe_reserved_mask()),
            c_len: Constant::new((LAYOUT.bytes as u64).into()),
            c_tag: Constant::new(0.into()),
            c_write: b8(SqOp::Write.code()),
            c_write_imm: b8(SqOp::WriteImm(0).code()),
            c_send: b8(SqOp::Send.code()),
            c_send_imm: b8(SqOp::SendImm(0).code()),
            c_read: b8(SqOp::Read.code()),
            c_st_prot: b8(CqeStatus::LocalProtection as u8),
            c_st_len: b8(CqeStatus::LocalLength as u8),
            c_z8: b8(0),
            c_z32: Constant::new(0.into()),
            c_z64: Constant::new(0.into()),
        }
    }
}

impl<const DW: usize, const KW: usize> Logic for SqeFetch<DW, KW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, state, req, first, beat, wr);
        self.low.inp.next = self.s_axis_dma_rd_tdata.val();
        self.f_opcode.inp.next = self.beat.q.val();
        self.f_solicited.inp.next = self.beat.q.val();
        self.f_imm.inp.next = self.beat.q.val();
        self.f_wr_id.inp.next = self.beat.q.val();
        self.f_local_addr.inp.next = self.beat.q.val();
        self.f_lkey.inp.next = self.beat.q.val();
        self.f_length.inp.next = self.beat.q.val();
        self.f_remote_addr.inp.next = self.beat.q.val();
        self.f_rkey.inp.next = self.beat.q.val();
        self.s_axis_fetch_tready.next = false;
        self.m_axis_dma_rd_desc_tvalid.next = false;
        self.m_axis_dma_rd_desc_tdata.next.addr = self.req.q.val().addr;
        self.m_axis_dma_rd_desc_tdata.next.len = self.c_len.val();
        self.m_axis_dma_rd_desc_tdata.next.tag = self.c_tag.val();
        self.s_axis_dma_rd_tready.next = false;
        self.m_axis_wr_tvalid.next = false;
        self.m_axis_wr_tdata.next = self.wr.q.val();
        // Validation (SqeRepr::parse / validate).
        self.is_imm.next = (self.f_opcode.out.val() == self.c_write_imm.val())
            | (self.f_opcode.out.val() == self.c_send_imm.val());
        self.is_send.next = (self.f_opcode.out.val() == self.c_send.val())
            | (self.f_opcode.out.val() == self.c_send_imm.val());
        self.bad.next = (self.beat.q.val() & self.c_reserved.val()).any();
        if !((self.f_opcode.out.val() == self.c_write.val())
            | (self.f_opcode.out.val() == self.c_read.val())
            | self.is_imm.val()
            | self.is_send.val())
        {
            self.bad.next = true;
        }
        if !self.is_imm.val() & (self.f_imm.out.val() != self.c_z32.val()) {
            self.bad.next = true;
        }
        if self.is_send.val()
            & ((self.f_remote_addr.out.val() != self.c_z64.val())
                | (self.f_rkey.out.val() != self.c_z32.val()))
        {
            self.bad.next = true;
        }
        if self.f_solicited.out.val().any()
            & !(self.is_send.val() | (self.f_opcode.out.val() == self.c_write_imm.val()))
        {
            self.bad.next = true;
        }
        self.unused_dma.next =
            self.s_axis_dma_rd_tkeep.val().any() | self.s_axis_dma_rd_tuser.val().any();
        if self.state.q.val() == self.c_s_idle.val() {
            self.s_axis_fetch_tready.next = true;
            if self.s_axis_fetch_tvalid.val() {
                self.req.d.next = self.s_axis_fetch_tdata.val();
                self.state.d.next = self.c_s_desc.val();
            }
        } else if self.state.q.val() == self.c_s_desc.val() {
            self.m_axis_dma_rd_desc_tvalid.next = true;
            if self.m_axis_dma_rd_desc_tready.val() {
                self.first.d.next = true;
                self.state.d.next = self.c_s_data.val();
            }
        } else if self.state.q.val() == self.c_s_data.val() {
            self.s_axis_dma_rd_tready.next = true;
            if self.s_axis_dma_rd_tvalid.val() {
                if self.first.q.val() {
                    self.beat.d.next = self.low.out.val();
                }
                self.first.d.next = false;
                if self.s_axis_dma_rd_tlast.val() {
                    self.state.d.next = self.c_s_decode.val();
                }
            }
        } else if self.state.q.val() == self.c_s_decode.val() {
            self.wr.d.next.conn = self.req.q.val().conn;
            self.wr.d.next.qpn = self.req.q.val().qpn;
            self.wr.d.next.wqe_index = self.req.q.val().wqe_index;
            self.wr.d.next.opcode = self.f_opcode.out.val();
            self.wr.d.next.solicited = self.f_solicited.out.val().any();
            self.wr.d.next.imm = self.f_imm.out.val();
            self.wr.d.next.wr_id = self.f_wr_id.out.val();
            self.wr.d.next.local_addr = self.f_local_addr.out.val();
            self.wr.d.next.lkey = self.f_lkey.out.val();
            self.wr.d.next.len = self.f_length.out.val();
            self.wr.d.next.remote_addr = self.f_remote_addr.out.val();
            self.wr.d.next.rkey = self.f_rkey.out.val();
            self.wr.d.next.signaled = true;
            self.wr.d.next.status = self.c_z8.val();
            if self.f_length.out.val() > self.cfg_max_msg_len.val() {
                self.wr.d.next.status = self.c_st_len.val();
            }
            if self.bad.val() {
                self.wr.d.next.status = self.c_st_prot.val();
            }
            self.state.d.next = self.c_s_out.val();
        } else if self.state.q.val() == self.c_s_out.val() {
            self.m_axis_wr_tvalid.next = true;
            if self.m_axis_wr_tready.val() {
                self.state.d.next = self.c_s_idle.val();
            }
        } else {
            self.state.d.next = self.c_s_idle.val();
        }
        if self.rst.val() {
            self.state.d.next = self.c_s_idle.val();
            self.first.d.next = false;
        }
    }
}
