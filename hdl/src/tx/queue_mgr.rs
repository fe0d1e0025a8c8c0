//! Queue manager: send-queue doorbells, per-QP ring state and the round-robin choice of the next QP with work.
//!
//! * Doorbells arrive on the internal register bus (`cfg_wr_*`, byte address within this block's window =
//!   the QP doorbell array of `metaroce_regmap::queues`: page `n` of QP `n` at `n * DEFAULT_DB_STRIDE`,
//!   `SQ_PI` at `page::SQ_PI`). A write to `SQ_PI` of QP 1..N with reserved bits clear is queued in a doorbell
//!   FIFO (512 entries; the bus has no back-pressure: a doorbell arriving on a full FIFO is dropped and
//!   `stat_db_drop` is set, sticky; doorbells carry absolute indices, so the next doorbell of that QP repairs
//!   it). Other offsets (the `RQ_PI` doorbells belong to the receive side) are ignored.
//! * Ring state per QP in RAM ([`QpRing`]: state, base, log size, pi, ci, connection, queued), initialised
//!   by every `CtxWrite` of table QP (`metaroce_regmap::context::qp` fields `state`, `sq_base`, `sq_log`,
//!   `sq_pi`, `sq_ci`, `cid`). Ring arithmetic is `metaroce_regmap::queues::Ring`'s: free-running 16-bit
//!   indices, slot `i & (size - 1)`, a doorbell whose `pi - ci` exceeds the ring size is rejected (ignored).
//! * A QP in READY with `pi != ci` is in the work list (a FIFO of QP numbers in RAM, one place per QP):
//!   taking the head, fetching one SQE ([`SqFetch`] on `m_axis_fetch_*`, address `base + slot * 64`) and
//!   putting the QP back at the tail while it has more work gives round-robin over QPs, one SQE per turn.
//!
//! Per-QP updates are serial (one doorbell or one fetch at a time, each read-modify-write finished before the
//! next starts), so no forwarding is needed; a `CtxWrite` of table QP always wins the RAM write port, and an
//! operation on the same QP that was in progress is abandoned (the firmware's entry is authoritative).
//! Throughput: a doorbell every 4 cycles, an SQE fetch every 5 cycles plus the downstream handshake.

use crate::common::zext::Zext;
use crate::ctx::table;
use crate::records::CtxWrite;
use crate::tx::records::{DbEntry, QpRing, Slice, SqFetch};
use metaroce_regmap::context::qp::field as qf;
use metaroce_regmap::queues::{page, DEFAULT_DB_STRIDE};
use rust_hdl::prelude::*;

/// log2 of the doorbell FIFO depth.
pub const DB_FIFO_LOG: usize = 9;

/// The queue manager.
#[derive(LogicBlock)]
pub struct QueueMgr {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Reset.
    pub rst: Signal<In, Bit>,
    /// Register write strobe.
    pub cfg_wr_en: Signal<In, Bit>,
    /// Byte address within the doorbell window.
    pub cfg_wr_addr: Signal<In, Bits<24>>,
    /// Write data.
    pub cfg_wr_data: Signal<In, Bits<32>>,
    /// Context-table writes.
    pub s_axis_ctxw_tdata: Signal<In, CtxWrite>,
    /// Valid.
    pub s_axis_ctxw_tvalid: Signal<In, Bit>,
    /// SQE fetch requests.
    pub m_axis_fetch_tdata: Signal<Out, SqFetch>,
    /// Valid.
    pub m_axis_fetch_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_fetch_tready: Signal<In, Bit>,
    /// A doorbell was dropped (FIFO full); sticky until reset.
    pub stat_db_drop: Signal<Out, Bit>,
    ring: crate::common::ram::SdpRam<QpRing, 16>,
    dbq: crate::common::ram::SdpRam<DbEntry, DB_FIFO_LOG>,
    work: crate::common::ram::SdpRam<Bits<16>, 16>,
    state: DFF<Bits<3>>,
    db_wp: DFF<Bits<DB_FIFO_LOG>>,
    db_rp: DFF<Bits<DB_FIFO_LOG>>,
    db_cnt: DFF<Bits<10>>,
    w_wp: DFF<Bits<16>>,
    w_rp: DFF<Bits<16>>,
    w_cnt: DFF<Bits<17>>,
    qpn: DFF<Bits<16>>,
    pi: DFF<Bits<16>>,
    is_fetch: DFF<Bit>,
    r: DFF<QpRing>,
    push: DFF<Bit>,
    drop: DFF<Bit>,
    fetch: DFF<SqFetch>,
    db_hit: Signal<Local, Bit>,
    db_page: Signal<Local, Bits<24>>,
    db_push: Signal<Local, Bit>,
    db_pop: Signal<Local, Bit>,
    w_push: Signal<Local, Bit>,
    w_pop: Signal<Local, Bit>,
    ctx_qp: Signal<Local, Bit>,
    occ: Signal<Local, Bits<16>>,
    size: Signal<Local, Bits<16>>,
    slot: Signal<Local, Bits<16>>,
    x_base: Slice<512, 64>,
    x_pi: Slice<512, 16>,
    x_ci: Slice<512, 16>,
    x_cid: Slice<512, 16>,
    x_state: Slice<512, 2>,
    x_log: Slice<512, 4>,
    z_slot: Zext<16, 64>,
    c_table_qp: Constant<Bits<4>>,
    c_shift: Constant<Bits<24>>,
    c_off_mask: Constant<Bits<24>>,
    c_sq_pi: Constant<Bits<24>>,
    c_nqp: Constant<Bits<24>>,
    c_qmask: Constant<Bits<16>>,
    c_z24: Constant<Bits<24>>,
    c_z16: Constant<Bits<16>>,
    c_one16: Constant<Bits<16>>,
    c_ones16: Constant<Bits<16>>,
    c_z2: Constant<Bits<2>>,
    c_z9: Constant<Bits<DB_FIFO_LOG>>,
    c_one9: Constant<Bits<DB_FIFO_LOG>>,
    c_z10: Constant<Bits<10>>,
    c_one10: Constant<Bits<10>>,
    c_z17: Constant<Bits<17>>,
    c_one17: Constant<Bits<17>>,
    c_s_out: Constant<Bits<3>>,
    z_qpn: Zext<16, 24>,
    c_ready: Constant<Bits<2>>,
    c_sqe_shift: Constant<Bits<64>>,
    c_db_full: Constant<Bits<10>>,
    c_s_idle: Constant<Bits<3>>,
    c_s_dbgot: Constant<Bits<3>>,
    c_s_qrd: Constant<Bits<3>>,
    c_s_qgot: Constant<Bits<3>>,
    c_s_fetch: Constant<Bits<3>>,
    c_s_qwr: Constant<Bits<3>>,
    c_s_wgot: Constant<Bits<3>>,
}

impl QueueMgr {
    /// A queue manager for `1 << qp_bits` QPs (`qp_bits` <= 16).
    pub fn new(qp_bits: u32) -> Self {
        assert!(qp_bits <= 16 && DEFAULT_DB_STRIDE.is_power_of_two() && DEFAULT_DB_STRIDE >= 8);
        let sqe_bytes = metaroce_regmap::descriptor::sqe::LAYOUT.bytes;
        assert!(sqe_bytes.is_power_of_two());
        let s3 = |v: u64| Constant::new(Bits::<3>::from(v));
        QueueMgr {
            clk: Default::default(),
            rst: Default::default(),
            cfg_wr_en: Default::default(),
            cfg_wr_addr: Default::default(),
            cfg_wr_data: Default::default(),
            s_axis_ctxw_tdata: Default::default(),
            s_axis_ctxw_tvalid: Default::default(),
            m_axis_fetch_tdata: Default::default(),
            m_axis_fetch_tvalid: Default::default(),
            m_axis_fetch_tready: Default::default(),
            stat_db_drop: Default::default(),
            ring: crate::common::ram::SdpRam::new(1 << qp_bits),
            dbq: crate::common::ram::SdpRam::new(1 << DB_FIFO_LOG),
            work: crate::common::ram::SdpRam::new(1 << qp_bits),
            state: Default::default(),
            db_wp: Default::default(),
            db_rp: Default::default(),
            db_cnt: Default::default(),
            w_wp: Default::default(),
            w_rp: Default::default(),
            w_cnt: Default::default(),
            qpn: Default::default(),
            pi: Default::default(),
            is_fetch: Default::default(),
            r: Default::default(),
            push: Default::default(),
            drop: Default::default(),
            fetch: Default::default(),
            db_hit: Default::default(),
            db_page: Default::default(),
            db_push: Default::default(),
            db_pop: Default::default(),
            w_push: Default::default(),
            w_pop: Default::default(),
            ctx_qp: Default::default(),
            occ: Default::default(),
            size: Default::default(),
            slot: Default::default(),
            x_base: Slice::field(&qf::SQ_BASE),
            x_pi: Slice::field(&qf::SQ_PI),
            x_ci: Slice::field(&qf::SQ_CI),
            x_cid: Slice::new(qf::CID.lsb() as usize),
            x_state: Slice::field(&qf::STATE),
            x_log: Slice::field(&qf::SQ_LOG),
            z_slot: Default::default(),
            c_table_qp: Constant::new((table::QP as u64).into()),
            c_shift: Constant::new((DEFAULT_DB_STRIDE.trailing_zeros() as u64).into()),
            c_off_mask: Constant::new(((DEFAULT_DB_STRIDE - 1) as u64).into()),
            c_sq_pi: Constant::new((page::SQ_PI as u64).into()),
            c_nqp: Constant::new((1u64 << qp_bits).into()),
            c_qmask: Constant::new(((1u64 << qp_bits) - 1).into()),
            c_z24: Constant::new(0.into()),
            c_z16: Constant::new(0.into()),
            c_one16: Constant::new(1.into()),
            c_ones16: Constant::new(0xffffu64.into()),
            c_z2: Constant::new(0.into()),
            c_z9: Constant::new(0.into()),
            c_one9: Constant::new(1.into()),
            c_z10: Constant::new(0.into()),
            c_one10: Constant::new(1.into()),
            c_z17: Constant::new(0.into()),
            c_one17: Constant::new(1.into()),
            c_s_out: s3(7),
            z_qpn: Default::default(),
            c_ready: Constant::new((metaroce_regmap::command::QpState::Ready as u8 as u64).into()),
            c_sqe_shift: Constant::new((sqe_bytes.trailing_zeros() as u64).into()),
            c_db_full: Constant::new((1u64 << DB_FIFO_LOG).into()),
            c_s_idle: s3(0),
            c_s_dbgot: s3(1),
            c_s_qrd: s3(2),
            c_s_qgot: s3(3),
            c_s_fetch: s3(4),
            c_s_qwr: s3(5),
            c_s_wgot: s3(6),
        }
    }
}

impl Logic for QueueMgr {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, state, db_wp, db_rp, db_cnt, w_wp, w_rp, w_cnt, qpn, pi, is_fetch, r, push,
            drop, fetch
        );
        self.ring.clk.next = self.clk.val();
        self.dbq.clk.next = self.clk.val();
        self.work.clk.next = self.clk.val();
        // Context writes of table QP own the ring RAM's write port.
        self.ctx_qp.next = self.s_axis_ctxw_tvalid.val()
            & (self.s_axis_ctxw_tdata.val().table == self.c_table_qp.val());
        self.x_base.inp.next = self.s_axis_ctxw_tdata.val().data;
        self.x_pi.inp.next = self.s_axis_ctxw_tdata.val().data;
        self.x_ci.inp.next = self.s_axis_ctxw_tdata.val().data;
        self.x_cid.inp.next = self.s_axis_ctxw_tdata.val().data;
        self.x_state.inp.next = self.s_axis_ctxw_tdata.val().data;
        self.x_log.inp.next = self.s_axis_ctxw_tdata.val().data;
        self.ring.wr_en.next = false;
        self.ring.wr_addr.next = self.qpn.q.val();
        self.ring.wr_data.next = self.r.q.val();
        if self.ctx_qp.val() {
            self.ring.wr_en.next = true;
            self.ring.wr_addr.next = self.s_axis_ctxw_tdata.val().index;
            self.ring.wr_data.next.state = self.x_state.out.val();
            self.ring.wr_data.next.base = self.x_base.out.val();
            self.ring.wr_data.next.log = self.x_log.out.val();
            self.ring.wr_data.next.pi = self.x_pi.out.val();
            self.ring.wr_data.next.ci = self.x_ci.out.val();
            self.ring.wr_data.next.conn = self.x_cid.out.val();
            self.ring.wr_data.next.queued = false;
        }
        self.ring.rd_addr.next = self.qpn.q.val();
        // Doorbell decode and FIFO.
        self.db_page.next = self.cfg_wr_addr.val() >> self.c_shift.val();
        self.db_hit.next = self.cfg_wr_en.val()
            & ((self.cfg_wr_addr.val() & self.c_off_mask.val()) == self.c_sq_pi.val())
            & (self.db_page.val() != self.c_z24.val())
            & (self.db_page.val() < self.c_nqp.val())
            & (self.cfg_wr_data.val().get_bits::<16>(16) == self.c_z16.val());
        self.db_push.next = self.db_hit.val() & (self.db_cnt.q.val() != self.c_db_full.val());
        if self.db_hit.val() & !self.db_push.val() {
            self.drop.d.next = true;
        }
        self.dbq.wr_en.next = self.db_push.val();
        self.dbq.wr_addr.next = self.db_wp.q.val();
        self.dbq.wr_data.next.qpn = self.db_page.val().get_bits::<16>(0);
        self.dbq.wr_data.next.pi = self.cfg_wr_data.val().get_bits::<16>(0);
        self.dbq.rd_addr.next = self.db_rp.q.val();
        self.work.rd_addr.next = self.w_rp.q.val();
        self.work.wr_addr.next = self.w_wp.q.val();
        self.work.wr_data.next = self.qpn.q.val();
        self.db_pop.next = false;
        self.w_pop.next = false;
        self.w_push.next = false;
        // Ring arithmetic (regmap::queues::Ring).
        self.size.next = self.c_one16.val() << self.r.q.val().log;
        self.occ.next = self.pi.q.val() - self.r.q.val().ci;
        // (the ring's mask `size - 1` as the complement of all-ones shifted by `log`: no carry chain before the
        // address adder)
        self.slot.next = self.r.q.val().ci & !(self.c_ones16.val() << self.r.q.val().log);
        self.z_slot.i.next = self.slot.val();
        self.z_qpn.i.next = self.qpn.q.val();
        self.m_axis_fetch_tvalid.next = false;
        self.m_axis_fetch_tdata.next = self.fetch.q.val();
        if self.state.q.val() == self.c_s_idle.val() {
            if self.db_cnt.q.val().any() {
                self.db_pop.next = true;
                self.state.d.next = self.c_s_dbgot.val();
            } else if self.w_cnt.q.val().any() {
                self.w_pop.next = true;
                self.state.d.next = self.c_s_wgot.val();
            }
        } else if self.state.q.val() == self.c_s_dbgot.val() {
            self.qpn.d.next = self.dbq.rd_data.val().qpn;
            self.pi.d.next = self.dbq.rd_data.val().pi;
            self.is_fetch.d.next = false;
            self.state.d.next = self.c_s_qrd.val();
        } else if self.state.q.val() == self.c_s_wgot.val() {
            self.qpn.d.next = self.work.rd_data.val();
            self.is_fetch.d.next = true;
            self.state.d.next = self.c_s_qrd.val();
        } else if self.state.q.val() == self.c_s_qrd.val() {
            self.state.d.next = self.c_s_qgot.val();
        } else if self.state.q.val() == self.c_s_qgot.val() {
            self.r.d.next = self.ring.rd_data.val();
            self.push.d.next = false;
            if self.is_fetch.q.val() {
                self.pi.d.next = self.ring.rd_data.val().pi;
            }
            self.state.d.next = self.c_s_fetch.val();
        } else if self.state.q.val() == self.c_s_fetch.val() {
            // r holds the entry, pi the new (doorbell) or current (fetch) producer index.
            if !self.is_fetch.q.val() {
                if (self.r.q.val().state != self.c_z2.val()) & (self.occ.val() <= self.size.val()) {
                    self.r.d.next.pi = self.pi.q.val();
                    if (self.r.q.val().state == self.c_ready.val())
                        & (self.occ.val() != self.c_z16.val())
                        & !self.r.q.val().queued
                    {
                        self.r.d.next.queued = true;
                        self.push.d.next = true;
                    }
                }
                self.state.d.next = self.c_s_qwr.val();
            } else if self.r.q.val().queued
                & (self.r.q.val().state == self.c_ready.val())
                & (self.occ.val() != self.c_z16.val())
            {
                self.fetch.d.next.qpn = self.z_qpn.o.val();
                self.fetch.d.next.conn = self.r.q.val().conn;
                self.fetch.d.next.addr =
                    self.r.q.val().base + (self.z_slot.o.val() << self.c_sqe_shift.val());
                self.fetch.d.next.wqe_index = self.r.q.val().ci;
                self.state.d.next = self.c_s_out.val();
            } else {
                self.r.d.next.queued = false;
                self.state.d.next = self.c_s_qwr.val();
            }
        } else if self.state.q.val() == self.c_s_out.val() {
            self.m_axis_fetch_tvalid.next = true;
            if self.m_axis_fetch_tready.val() {
                self.r.d.next.ci = self.r.q.val().ci + self.c_one16.val();
                if self.occ.val() == self.c_one16.val() {
                    self.r.d.next.queued = false;
                } else {
                    self.push.d.next = true;
                }
                self.state.d.next = self.c_s_qwr.val();
            }
        } else if self.state.q.val() == self.c_s_qwr.val() {
            if self.ctx_qp.val() {
                if self.s_axis_ctxw_tdata.val().index == self.qpn.q.val() {
                    self.state.d.next = self.c_s_idle.val();
                }
            } else {
                self.ring.wr_en.next = true;
                if self.push.q.val() {
                    self.w_push.next = true;
                }
                self.state.d.next = self.c_s_idle.val();
            }
        }
        self.work.wr_en.next = self.w_push.val();
        // FIFO pointers.
        if self.db_push.val() {
            self.db_wp.d.next = self.db_wp.q.val() + self.c_one9.val();
        }
        if self.db_pop.val() {
            self.db_rp.d.next = self.db_rp.q.val() + self.c_one9.val();
        }
        if self.db_push.val() & !self.db_pop.val() {
            self.db_cnt.d.next = self.db_cnt.q.val() + self.c_one10.val();
        }
        if !self.db_push.val() & self.db_pop.val() {
            self.db_cnt.d.next = self.db_cnt.q.val() - self.c_one10.val();
        }
        if self.w_push.val() {
            self.w_wp.d.next = (self.w_wp.q.val() + self.c_one16.val()) & self.c_qmask.val();
        }
        if self.w_pop.val() {
            self.w_rp.d.next = (self.w_rp.q.val() + self.c_one16.val()) & self.c_qmask.val();
        }
        if self.w_push.val() & !self.w_pop.val() {
            self.w_cnt.d.next = self.w_cnt.q.val() + self.c_one17.val();
        }
        if !self.w_push.val() & self.w_pop.val() {
            self.w_cnt.d.next = self.w_cnt.q.val() - self.c_one17.val();
        }
        self.stat_db_drop.next = self.drop.q.val();
        if self.rst.val() {
            self.state.d.next = self.c_s_idle.val();
            self.db_wp.d.next = self.c_z9.val();
            self.db_rp.d.next = self.c_z9.val();
            self.db_cnt.d.next = self.c_z10.val();
            self.w_wp.d.next = self.c_z16.val();
            self.w_rp.d.next = self.c_z16.val();
            self.w_cnt.d.next = self.c_z17.val();
            self.drop.d.next = false;
        }
    }
}
