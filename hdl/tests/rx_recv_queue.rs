//! Receive queue (MR-SEM-19/20, MR-SEM-27, spec 8.6 and 8.7) in rust-hdl's simulator: the RQE fetch of a SEND
//! and the RQE pop of a completion while the packet output is back-pressured.
//!
//! Regression: the completion stage downstream stops taking packets while it waits for a pop answer; the
//! receive queue used to hold a finished packet in its FSM until the packet left, so a pop that arrived
//! meanwhile was never taken and the receive path stalled for good (found by the two-core co-simulation with
//! back-to-back SEND messages: recv_queue offering a packet, the MR check full, the completion stage in its pop
//! state).
//!
//! The RQ flush of a QP in ERROR (MR-SEM-38): every posted RQE leaves flushed in ring order, from the cache or
//! read, RQEs posted during the flush included, packets interleaved, and nothing is left for a pop.

use metaroce_hdl::dma::DmaDesc;
use metaroce_hdl::records::{CtxWrite, PktMeta};
use metaroce_hdl::rel::records::ConnOpen;
use metaroce_hdl::rx::mr_check::RxCheck;
use metaroce_hdl::rx::recv_queue::{RecvQueue, RqePop};
use metaroce_proto::wire::{Opcode, PacketType};
use metaroce_regmap::command::QpState;
use metaroce_regmap::context::qp::{QpContext, QpRemote};
use metaroce_regmap::descriptor::rqe::RqeRepr;
use metaroce_regmap::queues::page;
use rust_hdl::prelude::*;
use std::net::{IpAddr, Ipv4Addr};

/// 256-bit DMA data, 4 connections, 4 QPs.
type Uut = RecvQueue<256, 32, 2, 2>;

const CONN: u64 = 2;
const QPN: u64 = 1;
const RQ_BASE: u64 = 0x4_0000;
const RQ_LOG: u8 = 4;

fn bits<const N: usize>(buf: &[u8]) -> Bits<N> {
    let mut v = Bits::<N>::default();
    for (i, b) in buf.iter().enumerate().take(N / 8) {
        for k in 0..8 {
            v = v.replace_bit(8 * i + k, (b >> k) & 1 != 0);
        }
    }
    v
}

fn rqe(n: u64) -> RqeRepr {
    RqeRepr {
        wr_id: 0x1111_0000 + n,
        addr: 0x80_0000 + 0x1000 * n,
        length: 0x1000,
        lkey: 0x77,
    }
}

struct Tb {
    u: Box<Uut>,
    cycles: u64,
}

impl Tb {
    fn new() -> Tb {
        let mut u = Box::new(Uut::new());
        u.connect_all();
        let mut tb = Tb { u, cycles: 0 };
        tb.idle_inputs();
        tb.u.rst.next = true;
        tb.clock();
        tb.clock();
        tb.u.rst.next = false;
        tb
    }

    fn idle_inputs(&mut self) {
        let u = &mut *self.u;
        u.s_axis_ctxw_tvalid.next = false;
        u.s_axis_open_tvalid.next = false;
        u.cfg_wr_en.next = false;
        u.cfg_max_msgs.next = 8.into();
        u.cfg_rnr_timer_us.next = 10.into();
        u.s_axis_pkt_tvalid.next = false;
        u.m_axis_pkt_tready.next = false;
        u.m_axis_dma_rd_desc_tready.next = false;
        u.s_axis_dma_rd_tvalid.next = false;
        u.s_axis_pop_tvalid.next = false;
        u.m_axis_popped_tready.next = false;
        u.s_axis_flush_tvalid.next = false;
        u.m_axis_flushed_tready.next = false;
    }

    fn clock(&mut self) {
        self.cycles += 1;
        assert!(self.cycles < 10_000, "runaway");
        self.u.clk.next = Clock { clk: true };
        assert!(simulate(&mut *self.u, 500));
        self.u.clk.next = Clock { clk: false };
        assert!(simulate(&mut *self.u, 500));
    }

    fn settle(&mut self) {
        assert!(simulate(&mut *self.u, 500));
    }

    /// Programs QP `QPN` (connection `CONN`, RQ of 16 entries, nothing posted) and opens the connection.
    fn setup(&mut self) {
        self.write_qp(&qp_ready(false));
        self.open();
    }

    /// Writes QP `QPN`'s context entry.
    fn write_qp(&mut self, ctx: &QpContext) {
        let mut buf = [0u8; 64];
        ctx.emit(&mut buf).expect("QP context");
        self.u.s_axis_ctxw_tdata.next = CtxWrite {
            table: (metaroce_hdl::ctx::table::QP as u64).to_bits(),
            index: QPN.to_bits(),
            data: bits::<512>(&buf),
        };
        self.u.s_axis_ctxw_tvalid.next = true;
        self.clock();
        self.u.s_axis_ctxw_tvalid.next = false;
        self.clock();
    }

    /// Opens connection `CONN`.
    fn open(&mut self) {
        self.u.s_axis_open_tdata.next = ConnOpen {
            conn: CONN.to_bits(),
            ..Default::default()
        };
        self.u.s_axis_open_tvalid.next = true;
        self.wait("open taken", |u| u.s_axis_open_tready.val());
        self.clock();
        self.u.s_axis_open_tvalid.next = false;
        for _ in 0..8 {
            self.clock();
        }
    }

    /// Rings the RQ_PI doorbell of `QPN`.
    fn doorbell(&mut self, pi: u64) {
        self.u.cfg_wr_addr.next = (QPN * 8 + page::RQ_PI as u64).to_bits();
        self.u.cfg_wr_data.next = pi.to_bits();
        self.u.cfg_wr_en.next = true;
        self.clock();
        self.u.cfg_wr_en.next = false;
        for _ in 0..4 {
            self.clock();
        }
    }

    /// Clocks until `f` holds (checked after the inputs settle), at most 64 cycles; does not clock the last.
    fn wait(&mut self, what: &str, f: impl Fn(&Uut) -> bool) {
        for _ in 0..64 {
            self.settle();
            if f(&self.u) {
                return;
            }
            self.clock();
        }
        panic!("timeout waiting for: {what}");
    }

    /// Clocks `cycles` cycles and fails with `what` if a DMA read descriptor is offered in any of them.
    fn no_read(&mut self, cycles: usize, what: &str) {
        for _ in 0..cycles {
            self.settle();
            assert!(!self.u.m_axis_dma_rd_desc_tvalid.val(), "{what}");
            self.clock();
        }
    }

    /// Offers the answer to read `d`: the RQE at its address (one beat, valid until the caller drops it).
    fn answer(&mut self, d: &DmaDesc) {
        let n = (d.addr.to_u64() - RQ_BASE) / 32;
        let mut buf = [0u8; 32];
        rqe(n).emit(&mut buf).expect("RQE");
        self.u.s_axis_dma_rd_tdata.next = bits::<256>(&buf);
        self.u.s_axis_dma_rd_tkeep.next = u32::MAX.to_bits();
        self.u.s_axis_dma_rd_tlast.next = true;
        self.u.s_axis_dma_rd_tuser.next = d.tag;
        self.u.s_axis_dma_rd_tvalid.next = true;
    }

    /// Serves one 32-byte RQE read: takes the descriptor, checks its address, answers with RQE `n`.
    fn serve_rqe(&mut self, n: u64) {
        self.u.m_axis_dma_rd_desc_tready.next = true;
        self.wait("RQE read descriptor", |u| u.m_axis_dma_rd_desc_tvalid.val());
        let d: DmaDesc = self.u.m_axis_dma_rd_desc_tdata.val();
        assert_eq!(d.addr, (RQ_BASE + 32 * n).to_bits::<64>(), "RQE address");
        assert_eq!(d.len, 32u64.to_bits::<32>(), "RQE length");
        self.clock();
        self.u.m_axis_dma_rd_desc_tready.next = false;
        self.answer(&d);
        self.wait("RQE read data taken", |u| u.s_axis_dma_rd_tready.val());
        self.clock();
        self.u.s_axis_dma_rd_tvalid.next = false;
    }
}

/// QP `QPN`'s entry in INIT: RQ of 16 entries, indices 0, no connection.
fn qp_init() -> QpContext {
    QpContext {
        state: QpState::Init,
        cid: 0,
        remote: None,
        ..qp_ready(false)
    }
}

/// QP `QPN`'s entry in READY on connection `CONN`; `rq_keep` as given, indices 0.
fn qp_ready(rq_keep: bool) -> QpContext {
    QpContext {
        state: QpState::Ready,
        sq_base: 0x1_0000,
        rq_base: RQ_BASE,
        sq_log: 4,
        rq_log: RQ_LOG,
        sq_pi: 0,
        sq_ci: 0,
        rq_pi: 0,
        rq_ci: 0,
        rq_keep,
        send_cqn: 3,
        recv_cqn: 3,
        cid: CONN as u32,
        remote: Some(QpRemote {
            qpn: 9,
            mac: [2, 0, 0, 0, 0, 9],
            ip: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 9)),
        }),
    }
}

/// A SEND packet of connection `CONN`: message `ssn`, one packet of 256 bytes.
fn send(ssn: u64) -> PktMeta {
    PktMeta {
        ptype: (PacketType::Data as u64).to_bits(),
        opcode: (Opcode::Send as u64).to_bits(),
        dflags: 3.into(),
        msn: ssn.to_bits(),
        psn: (0x100 + ssn).to_bits(),
        key: ssn.to_bits(),
        msg_len: 256.into(),
        payload_len: 256.into(),
        conn: CONN.to_bits(),
        ..Default::default()
    }
}

#[test]
fn mr_sem_19_27_regression_pop_served_while_packet_output_waits() {
    let mut tb = Tb::new();
    tb.setup();
    tb.doorbell(2);
    // SEND with SSN 0: the RQE at index 0 is read and rides with the packet.
    tb.u.s_axis_pkt_tdata.next = send(0);
    tb.u.s_axis_pkt_tuser.next = RxCheck::default();
    tb.u.s_axis_pkt_tvalid.next = true;
    tb.wait("packet taken", |u| u.s_axis_pkt_tready.val());
    tb.clock();
    // The next packet (SSN 1) is offered at once; it must wait while the first is on the output.
    tb.u.s_axis_pkt_tdata.next = send(1);
    tb.serve_rqe(0);
    tb.wait("packet out", |u| u.m_axis_pkt_tvalid.val());
    let first: RxCheck = tb.u.m_axis_pkt_tuser.val();
    assert!(first.rqe_ok && !first.nack, "RQE found: {first:?}");
    assert_eq!(first.rqe_addr, rqe(0).addr.to_bits::<64>());
    assert_eq!(first.rqe_len, 0x1000u64.to_bits::<32>());
    assert_eq!(first.rqe_lkey, 0x77u64.to_bits::<32>());
    // The output stays back-pressured (the completion stage waits for its pop); the pop must be served.
    tb.u.s_axis_pop_tdata.next = CONN.to_bits();
    tb.u.s_axis_pop_tvalid.next = true;
    tb.wait("pop taken while the packet output waits", |u| {
        assert!(u.m_axis_pkt_tvalid.val(), "the packet stays offered");
        assert!(
            !u.s_axis_pkt_tready.val(),
            "no packet taken while one waits"
        );
        u.s_axis_pop_tready.val()
    });
    tb.clock();
    tb.u.s_axis_pop_tvalid.next = false;
    // RQE 0 is cached from the packet's read: the pop needs no read of its own.
    tb.u.m_axis_popped_tready.next = true;
    tb.wait("pop answered", |u| u.m_axis_popped_tvalid.val());
    let p: RqePop = tb.u.m_axis_popped_tdata.val();
    assert!(p.ok, "RQE consumed: {p:?}");
    assert_eq!(p.wr_id, rqe(0).wr_id.to_bits::<64>());
    assert_eq!(p.index, 0u64.to_bits::<16>());
    assert_eq!(p.qpn, QPN.to_bits::<24>());
    assert_eq!(p.cqn, 3u64.to_bits::<24>());
    tb.clock();
    tb.u.m_axis_popped_tready.next = false;
    // The waiting packet is unchanged and leaves; then the second packet is taken and reads RQE index 1.
    tb.settle();
    assert!(tb.u.m_axis_pkt_tvalid.val());
    assert_eq!(tb.u.m_axis_pkt_tdata.val(), send(0));
    assert_eq!(tb.u.m_axis_pkt_tuser.val(), first);
    tb.u.m_axis_pkt_tready.next = true;
    tb.clock();
    tb.u.m_axis_pkt_tready.next = false;
    tb.wait("second packet taken", |u| u.s_axis_pkt_tready.val());
    tb.clock();
    tb.u.s_axis_pkt_tvalid.next = false;
    tb.serve_rqe(1);
    tb.wait("second packet out", |u| u.m_axis_pkt_tvalid.val());
    let second: RxCheck = tb.u.m_axis_pkt_tuser.val();
    assert_eq!(tb.u.m_axis_pkt_tdata.val(), send(1));
    assert!(second.rqe_ok && !second.nack, "RQE found: {second:?}");
    assert_eq!(second.rqe_addr, rqe(1).addr.to_bits::<64>());
    assert_eq!(second.rqe_index, 1u64.to_bits::<16>());
}

/// Offers `p`, takes it, serves the read of RQE `n` if `read` is `Some(n)` (else asserts that no DMA read is
/// issued: the RQE must come from the cache), waits for the packet on the output, releases it and returns its
/// check record.
fn through(tb: &mut Tb, p: PktMeta, read: Option<u64>) -> RxCheck {
    tb.u.s_axis_pkt_tdata.next = p;
    tb.u.s_axis_pkt_tuser.next = RxCheck::default();
    tb.u.s_axis_pkt_tvalid.next = true;
    tb.wait("packet taken", |u| u.s_axis_pkt_tready.val());
    tb.clock();
    tb.u.s_axis_pkt_tvalid.next = false;
    if let Some(n) = read {
        tb.serve_rqe(n);
    }
    tb.wait("packet out", |u| {
        assert!(
            read.is_some() || !u.m_axis_dma_rd_desc_tvalid.val(),
            "an RQE read was issued"
        );
        u.m_axis_pkt_tvalid.val()
    });
    let c: RxCheck = tb.u.m_axis_pkt_tuser.val();
    assert_eq!(tb.u.m_axis_pkt_tdata.val(), p);
    tb.u.m_axis_pkt_tready.next = true;
    tb.clock();
    tb.u.m_axis_pkt_tready.next = false;
    c
}

/// Pops an RQE of connection `CONN`, serving the read of RQE `n` if `read` is `Some(n)` (else asserting that
/// no DMA read is issued); returns the answer.
fn pop(tb: &mut Tb, read: Option<u64>) -> RqePop {
    tb.u.s_axis_pop_tdata.next = CONN.to_bits();
    tb.u.s_axis_pop_tvalid.next = true;
    tb.wait("pop taken", |u| u.s_axis_pop_tready.val());
    tb.clock();
    tb.u.s_axis_pop_tvalid.next = false;
    if let Some(n) = read {
        tb.serve_rqe(n);
    }
    tb.u.m_axis_popped_tready.next = true;
    tb.wait("pop answered", |u| {
        assert!(
            read.is_some() || !u.m_axis_dma_rd_desc_tvalid.val(),
            "an RQE read was issued"
        );
        u.m_axis_popped_tvalid.val()
    });
    let p: RqePop = tb.u.m_axis_popped_tdata.val();
    tb.clock();
    tb.u.m_axis_popped_tready.next = false;
    p
}

#[test]
fn mr_sem_20_27_send_packets_and_pops_find_their_rqe_cached_or_prefetched_until_the_qp_context_changes(
) {
    let mut tb = Tb::new();
    tb.setup();
    tb.doorbell(2);
    // The first packet of message 0 reads RQE 0.
    let first = through(&mut tb, send(0), Some(0));
    assert!(first.rqe_ok && !first.nack, "RQE found: {first:?}");
    // With nothing offered, the next posted RQE (index 1) is prefetched.
    tb.serve_rqe(1);
    for _ in 0..16 {
        tb.clock();
    }
    // Message 1's first packet finds the prefetched RQE 1.
    let c = through(&mut tb, send(1), None);
    assert!(c.rqe_ok && !c.nack, "prefetched RQE: {c:?}");
    assert_eq!(c.rqe_addr, rqe(1).addr.to_bits::<64>());
    assert_eq!(c.rqe_index, 1u64.to_bits::<16>());
    // A later packet of message 0 (same SSN, another PSN and offset), arriving after message 1 began as
    // multipath reordering makes it, still gets RQE 0 without a read.
    let mut later = send(0);
    later.psn = 0x180u64.to_bits();
    later.dflags = 2u64.to_bits();
    later.msg_len = 512u64.to_bits();
    later.addr = 256u64.to_bits();
    let c = through(&mut tb, later, None);
    assert!(c.rqe_ok && !c.nack, "RQE from the cache: {c:?}");
    assert_eq!(
        (c.rqe_addr, c.rqe_len, c.rqe_lkey, c.rqe_index),
        (
            first.rqe_addr,
            first.rqe_len,
            first.rqe_lkey,
            first.rqe_index
        )
    );
    // Message 0 completes: its pop finds RQE 0 cached and consumes it without a read.
    let p = pop(&mut tb, None);
    assert!(p.ok, "RQE consumed: {p:?}");
    assert_eq!(p.wr_id, rqe(0).wr_id.to_bits::<64>());
    assert_eq!(p.index, 0u64.to_bits::<16>());
    // RQE 2 is not posted: no prefetch.
    tb.no_read(32, "read of an RQE not posted");
    // A QP context write empties the cache: message 1's next packet reads its RQE again.
    tb.setup();
    tb.doorbell(2);
    let c = through(&mut tb, send(1), Some(1));
    assert!(c.rqe_ok && !c.nack, "RQE read again: {c:?}");
    assert_eq!(c.rqe_addr, rqe(1).addr.to_bits::<64>());
    // A pop of an RQE that is not cached (index 0 of the rewritten QP) reads it.
    let p = pop(&mut tb, Some(0));
    assert!(p.ok, "RQE consumed: {p:?}");
    assert_eq!(p.wr_id, rqe(0).wr_id.to_bits::<64>());
    assert_eq!(p.index, 0u64.to_bits::<16>());
    // Every pop schedules a prefetch of the RQE the next pop consumes, so completions of messages whose
    // packets read no RQE (WRITE_IMM) find it cached: RQE 1 (cached), then 2 (prefetched), and each
    // prefetched RQE's answer schedules the next one while it is posted: RQE 3 too, but not 4.
    tb.doorbell(4);
    let p = pop(&mut tb, None);
    assert!(p.ok, "RQE 1 consumed: {p:?}");
    assert_eq!(p.wr_id, rqe(1).wr_id.to_bits::<64>());
    tb.serve_rqe(2);
    tb.serve_rqe(3);
    tb.no_read(32, "read of an RQE not posted");
    // A packet of message 3 that overtook message 2's finds its RQE prefetched.
    let c = through(&mut tb, send(3), None);
    assert!(c.rqe_ok && !c.nack, "prefetched RQE 3: {c:?}");
    assert_eq!(c.rqe_addr, rqe(3).addr.to_bits::<64>());
    assert_eq!(c.rqe_index, 3u64.to_bits::<16>());
    for n in 2..4u64 {
        let p = pop(&mut tb, None);
        assert!(p.ok, "RQE {n} consumed: {p:?}");
        assert_eq!(p.wr_id, rqe(n).wr_id.to_bits::<64>());
        assert_eq!(p.index, n.to_bits::<16>());
    }
}

#[test]
fn mr_sem_27_prefetch_reaches_no_further_than_the_cache_holds() {
    // Eight entries, direct-mapped: RQE i + 8 would evict RQE i, not yet consumed. With 12 RQEs posted and
    // none consumed, the prefetches after RQE 0's read go up to RQE 7 and stop.
    let mut tb = Tb::new();
    tb.setup();
    tb.doorbell(12);
    let first = through(&mut tb, send(0), Some(0));
    assert!(first.rqe_ok && !first.nack, "RQE found: {first:?}");
    for n in 1..8u64 {
        tb.serve_rqe(n);
    }
    tb.no_read(32, "read of an RQE beyond the cache's reach");
    // Every one of them is cached, RQE 0 included.
    for n in (0..8u64).rev() {
        let c = through(&mut tb, send(n), None);
        assert!(c.rqe_ok && !c.nack, "cached RQE {n}: {c:?}");
        assert_eq!(c.rqe_addr, rqe(n).addr.to_bits::<64>());
    }
}

/// Requests a flush of `QPN` and clocks until the request is done, serving every RQE read and taking every
/// flushed RQE; offers `pkt` (if any) from the first flushed RQE on and returns the flushed RQEs' `(index, wr_id)` and the cycle of
/// each, with the cycle the packet was taken.
fn flush(tb: &mut Tb, pkt: Option<PktMeta>) -> (Vec<(u64, u64)>, Vec<u64>, Option<u64>) {
    tb.u.s_axis_flush_tdata.next = QPN.to_bits();
    tb.u.s_axis_flush_tvalid.next = true;
    tb.wait("flush request taken", |u| u.s_axis_flush_tready.val());
    tb.clock();
    tb.u.s_axis_flush_tvalid.next = false;
    tb.u.m_axis_flushed_tready.next = true;
    tb.u.m_axis_pkt_tready.next = true;
    tb.u.m_axis_dma_rd_desc_tready.next = true;
    let (mut out, mut at, mut taken) = (Vec::new(), Vec::new(), None);
    for _ in 0..2_000 {
        tb.settle();
        let u = &tb.u;
        assert!(!u.m_axis_popped_tvalid.val(), "a flush answers no pop");
        let pkt_go = u.s_axis_pkt_tvalid.val() && u.s_axis_pkt_tready.val();
        if pkt_go {
            taken = Some(tb.cycles);
        }
        if u.m_axis_flushed_tvalid.val() {
            let f: RqePop = u.m_axis_flushed_tdata.val();
            assert!(f.ok, "a flushed RQE: {f:?}");
            assert_eq!(f.qpn, QPN.to_bits::<24>());
            assert_eq!(f.cqn, 3u64.to_bits::<24>());
            out.push((f.index.index() as u64, f.wr_id.to_u64()));
            at.push(tb.cycles);
        }
        // An RQE read: its answer is offered from the next cycle until taken.
        let desc = u
            .m_axis_dma_rd_desc_tvalid
            .val()
            .then(|| u.m_axis_dma_rd_desc_tdata.val());
        let data_go = u.s_axis_dma_rd_tvalid.val() && u.s_axis_dma_rd_tready.val();
        let done = u.s_axis_flush_tready.val()
            && !u.m_axis_flushed_tvalid.val()
            && desc.is_none()
            && !u.s_axis_dma_rd_tvalid.val()
            && (pkt.is_none() || taken.is_some());
        if done {
            tb.u.m_axis_flushed_tready.next = false;
            tb.u.m_axis_pkt_tready.next = false;
            tb.u.m_axis_dma_rd_desc_tready.next = false;
            return (out, at, taken);
        }
        let offer = u.m_axis_flushed_tvalid.val() && out.len() == 1;
        tb.clock();
        if pkt_go {
            tb.u.s_axis_pkt_tvalid.next = false;
        }
        if let (Some(p), true) = (pkt, offer) {
            tb.u.s_axis_pkt_tdata.next = p;
            tb.u.s_axis_pkt_tuser.next = RxCheck::default();
            tb.u.s_axis_pkt_tvalid.next = true;
        }
        if data_go {
            tb.u.s_axis_dma_rd_tvalid.next = false;
        }
        if let Some(d) = desc {
            tb.answer(&d);
        }
    }
    panic!("the flush did not end: {out:?}");
}

#[test]
fn mr_sem_38_flush_completes_every_posted_rqe_in_ring_order_and_leaves_none_for_a_pop() {
    let mut tb = Tb::new();
    tb.setup();
    tb.doorbell(3);
    // RQE 0 consumed by a completion; RQE 1 is then prefetched into the cache.
    let p = pop(&mut tb, Some(0));
    assert!(p.ok);
    tb.serve_rqe(1);
    // The flush takes RQE 1 from the cache and reads RQE 2.
    let (out, _, _) = flush(&mut tb, None);
    let want: Vec<(u64, u64)> = (1..3).map(|n| (n, rqe(n).wr_id)).collect();
    assert_eq!(out, want, "RQEs 1 and 2 flushed in ring order");
    // Nothing is left: a pop finds the RQ empty and no RQE is read.
    let p = pop(&mut tb, None);
    assert!(!p.ok, "no RQE left after the flush: {p:?}");
    assert_eq!(p.index, 3u64.to_bits::<16>());
    // RQEs posted after the flush are flushed by the next request (the control processor repeats it while the
    // QP is in ERROR), with a SEND packet of another message offered meanwhile: it is taken between two steps.
    tb.doorbell(9);
    let (out, at, taken) = flush(&mut tb, Some(send(0)));
    let want: Vec<(u64, u64)> = (3..9).map(|n| (n, rqe(n).wr_id)).collect();
    assert_eq!(out, want, "RQEs 3 to 8 flushed in ring order");
    let taken = taken.expect("the packet was taken during the flush");
    assert!(
        at.first().is_some_and(|&c| c < taken) && at.last().is_some_and(|&c| c > taken),
        "the packet went between two flush steps (flushed at {at:?}, packet taken at {taken})"
    );
    let p = pop(&mut tb, None);
    assert!(!p.ok, "no RQE left after the second flush: {p:?}");
    // A flush of an empty RQ ends without output.
    let (out, _, _) = flush(&mut tb, None);
    assert!(out.is_empty(), "nothing to flush: {out:?}");
}

#[test]
fn mr_sem_9_receive_wqes_posted_in_init_stay_posted_when_the_entry_is_rewritten_with_rq_keep() {
    let mut tb = Tb::new();
    tb.write_qp(&qp_init());
    tb.doorbell(2);
    // The move to READY keeps the RQ's indices: both WQEs are still posted.
    tb.write_qp(&qp_ready(true));
    tb.open();
    let p = pop(&mut tb, Some(0));
    assert!(p.ok, "the WQE posted in INIT: {p:?}");
    assert_eq!(
        (p.index, p.wr_id),
        (0u64.to_bits::<16>(), rqe(0).wr_id.to_bits::<64>())
    );
    // Rewritten again with `rq_keep` clear, the entry's indices (0, 0) replace the device's: nothing posted.
    tb.write_qp(&qp_ready(false));
    let p = pop(&mut tb, None);
    assert!(!p.ok, "the RQ emptied by the entry's indices: {p:?}");
    assert_eq!(p.index, 0u64.to_bits::<16>());
}
