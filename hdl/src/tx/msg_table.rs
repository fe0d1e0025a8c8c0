//! The send-message table: storage of every connection's outstanding send messages and transmit state.
//!
//! * Per connection (`1 << conn_bits` entries): [`ConnTx`] (sequence numbers, list pointers, SYN phase, pacing
//!   retry) and [`ConnPeer`] (destination from the QP context; written by every `CtxWrite` of table QP whose
//!   `cid` is non-zero, at index `cid & 0xFFFF`, i.e. the connection index).
//! * A pool of `1 << pool_bits` message entries ([`MsgEntry`]) shared by all connections, each connection's
//!   messages a singly linked list in posting order (`next` RAM): head = oldest unreleased, `seg` = the one being
//!   segmented, tail = newest. Any PSN in `[snd_una, snd_nxt)` is found by walking the list from the head
//!   (MR-REL-3, MR-REL-46: the entry has everything to rebuild the packet; payload re-read from host memory).
//!   Entries are released from the head as snd_una passes their last PSN (`UnaUpdate`).
//! * Limits: at most `cfg_conn_msgs` messages per connection and `1 << pool_bits` in total. At either limit the
//!   scheduler stops taking work requests (the SQE fetch path back-pressures to the queue manager, which keeps
//!   the SQEs in host memory): nothing is lost. The limit applies to the single work-request intake, so a full
//!   connection delays other connections' new WRs until it releases one (head-of-line; entries in the table
//!   keep flowing).
//! * Free entries: a counter hands out never-used entries first, then a FIFO (in RAM) of released ones; the
//!   next free entry is always prefetched into `alloc_idx` (`alloc_v`), taken with `alloc_take`. A release
//!   (`free_en`, `free_idx`) is registered before it reaches the FIFO (the scheduler decides it late in its
//!   cycle), so a released entry is handed out again a cycle later at the earliest.
//!
//! Every RAM has one write and one registered read port (1-cycle latency, read-first); the scheduler owns all
//! ports and runs one operation at a time, each read issued after the previous operation's writes, so no
//! forwarding is needed (documented in the scheduler). Only the context-write port is driven from outside.

use crate::common::ram::SdpRam;
use crate::common::zext::Zext;
use crate::ctx::table;
use crate::records::CtxWrite;
use crate::tx::records::{ConnPeer, ConnTx, MsgEntry, Slice};
use metaroce_regmap::context::qp::field as qf;
use rust_hdl::prelude::*;

/// The message table.
#[derive(LogicBlock)]
pub struct MsgTable {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Reset (allocator state only; RAM contents are initialised by `ConnOpen` and allocation).
    pub rst: Signal<In, Bit>,
    /// Context-table writes.
    pub s_axis_ctxw_tdata: Signal<In, CtxWrite>,
    /// Valid.
    pub s_axis_ctxw_tvalid: Signal<In, Bit>,
    /// Connection read address (state and peer).
    pub conn_rd_addr: Signal<In, Bits<16>>,
    /// Connection state, one cycle after the address.
    pub conn_rd_data: Signal<Out, ConnTx>,
    /// Connection destination, one cycle after the address.
    pub peer_rd_data: Signal<Out, ConnPeer>,
    /// Connection state write enable.
    pub conn_wr_en: Signal<In, Bit>,
    /// Address.
    pub conn_wr_addr: Signal<In, Bits<16>>,
    /// Data.
    pub conn_wr_data: Signal<In, ConnTx>,
    /// Message read address.
    pub msg_rd_addr: Signal<In, Bits<16>>,
    /// Message entry, one cycle after the address.
    pub msg_rd_data: Signal<Out, MsgEntry>,
    /// Its successor in the connection's list, one cycle after the address.
    pub next_rd_data: Signal<Out, Bits<16>>,
    /// Message write enable.
    pub msg_wr_en: Signal<In, Bit>,
    /// Address.
    pub msg_wr_addr: Signal<In, Bits<16>>,
    /// Data.
    pub msg_wr_data: Signal<In, MsgEntry>,
    /// Successor write enable.
    pub next_wr_en: Signal<In, Bit>,
    /// Address.
    pub next_wr_addr: Signal<In, Bits<16>>,
    /// Data.
    pub next_wr_data: Signal<In, Bits<16>>,
    /// A free entry is available.
    pub alloc_v: Signal<Out, Bit>,
    /// The free entry.
    pub alloc_idx: Signal<Out, Bits<16>>,
    /// Take it (only while `alloc_v`).
    pub alloc_take: Signal<In, Bit>,
    /// Release an entry.
    pub free_en: Signal<In, Bit>,
    /// The released entry.
    pub free_idx: Signal<In, Bits<16>>,
    conn: SdpRam<ConnTx, 16>,
    peer: SdpRam<ConnPeer, 16>,
    msg: SdpRam<MsgEntry, 16>,
    next: SdpRam<Bits<16>, 16>,
    freeq: SdpRam<Bits<16>, 16>,
    fresh: DFF<Bits<17>>,
    f_wp: DFF<Bits<16>>,
    f_rp: DFF<Bits<16>>,
    f_ne: DFF<Bit>,
    f_last: Signal<Local, Bit>,
    /// A release, registered.
    fr_v: DFF<Bit>,
    /// Its entry.
    fr_i: DFF<Bits<16>>,
    avail: DFF<Bits<16>>,
    avail_v: DFF<Bit>,
    loading: DFF<Bit>,
    f_pop: Signal<Local, Bit>,
    have: Signal<Local, Bit>,
    x_mac: Slice<512, 48>,
    x_ip: Slice<512, 128>,
    x_ipv6: Slice<512, 1>,
    x_rqpn: Slice<512, 24>,
    x_cid: Slice<512, 24>,
    x_cqn: Slice<512, 24>,
    z_qpn: Zext<16, 24>,
    c_table_qp: Constant<Bits<4>>,
    c_pool: Constant<Bits<17>>,
    c_pmask: Constant<Bits<16>>,
    c_z24: Constant<Bits<24>>,
    c_z16: Constant<Bits<16>>,
    c_one16: Constant<Bits<16>>,
    c_z17: Constant<Bits<17>>,
    c_one17: Constant<Bits<17>>,
}

impl MsgTable {
    /// A table for `1 << conn_bits` connections and `1 << pool_bits` messages (both <= 16).
    pub fn new(conn_bits: u32, pool_bits: u32) -> Self {
        assert!(conn_bits <= 16 && pool_bits <= 16);
        MsgTable {
            clk: Default::default(),
            rst: Default::default(),
            s_axis_ctxw_tdata: Default::default(),
            s_axis_ctxw_tvalid: Default::default(),
            conn_rd_addr: Default::default(),
            conn_rd_data: Default::default(),
            peer_rd_data: Default::default(),
            conn_wr_en: Default::default(),
            conn_wr_addr: Default::default(),
            conn_wr_data: Default::default(),
            msg_rd_addr: Default::default(),
            msg_rd_data: Default::default(),
            next_rd_data: Default::default(),
            msg_wr_en: Default::default(),
            msg_wr_addr: Default::default(),
            msg_wr_data: Default::default(),
            next_wr_en: Default::default(),
            next_wr_addr: Default::default(),
            next_wr_data: Default::default(),
            alloc_v: Default::default(),
            alloc_idx: Default::default(),
            alloc_take: Default::default(),
            free_en: Default::default(),
            free_idx: Default::default(),
            conn: SdpRam::new(1 << conn_bits),
            peer: SdpRam::new(1 << conn_bits),
            msg: SdpRam::new(1 << pool_bits),
            next: SdpRam::new(1 << pool_bits),
            freeq: SdpRam::new(1 << pool_bits),
            fresh: Default::default(),
            f_wp: Default::default(),
            f_rp: Default::default(),
            f_ne: Default::default(),
            f_last: Default::default(),
            fr_v: Default::default(),
            fr_i: Default::default(),
            avail: Default::default(),
            avail_v: Default::default(),
            loading: Default::default(),
            f_pop: Default::default(),
            have: Default::default(),
            x_mac: Slice::field(&qf::REMOTE_MAC),
            x_ip: Slice::field(&qf::REMOTE_IP),
            x_ipv6: Slice::field(&qf::IPV6),
            x_rqpn: Slice::field(&qf::REMOTE_QPN),
            x_cid: Slice::field(&qf::CID),
            x_cqn: Slice::field(&qf::SEND_CQN),
            z_qpn: Default::default(),
            c_table_qp: Constant::new((table::QP as u64).into()),
            c_pool: Constant::new((1u64 << pool_bits).into()),
            c_pmask: Constant::new(((1u64 << pool_bits) - 1).into()),
            c_z24: Constant::new(0.into()),
            c_z16: Constant::new(0.into()),
            c_one16: Constant::new(1.into()),
            c_z17: Constant::new(0.into()),
            c_one17: Constant::new(1.into()),
        }
    }
}

impl Logic for MsgTable {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, fresh, f_wp, f_rp, f_ne, avail, avail_v, loading, fr_v, fr_i);
        self.conn.clk.next = self.clk.val();
        self.peer.clk.next = self.clk.val();
        self.msg.clk.next = self.clk.val();
        self.next.clk.next = self.clk.val();
        self.freeq.clk.next = self.clk.val();
        // Connection state and destination.
        self.conn.rd_addr.next = self.conn_rd_addr.val();
        self.peer.rd_addr.next = self.conn_rd_addr.val();
        self.conn_rd_data.next = self.conn.rd_data.val();
        self.peer_rd_data.next = self.peer.rd_data.val();
        self.conn.wr_en.next = self.conn_wr_en.val();
        self.conn.wr_addr.next = self.conn_wr_addr.val();
        self.conn.wr_data.next = self.conn_wr_data.val();
        self.x_mac.inp.next = self.s_axis_ctxw_tdata.val().data;
        self.x_ip.inp.next = self.s_axis_ctxw_tdata.val().data;
        self.x_ipv6.inp.next = self.s_axis_ctxw_tdata.val().data;
        self.x_rqpn.inp.next = self.s_axis_ctxw_tdata.val().data;
        self.x_cid.inp.next = self.s_axis_ctxw_tdata.val().data;
        self.x_cqn.inp.next = self.s_axis_ctxw_tdata.val().data;
        self.z_qpn.i.next = self.s_axis_ctxw_tdata.val().index;
        self.peer.wr_en.next = self.s_axis_ctxw_tvalid.val()
            & (self.s_axis_ctxw_tdata.val().table == self.c_table_qp.val())
            & (self.x_cid.out.val() != self.c_z24.val());
        self.peer.wr_addr.next = self.x_cid.out.val().get_bits::<16>(0);
        self.peer.wr_data.next.peer_mac = self.x_mac.out.val();
        self.peer.wr_data.next.peer_ip = self.x_ip.out.val();
        self.peer.wr_data.next.ipv6 = self.x_ipv6.out.val().any();
        self.peer.wr_data.next.remote_qpn = self.x_rqpn.out.val();
        self.peer.wr_data.next.qpn = self.z_qpn.o.val();
        self.peer.wr_data.next.cid = self.x_cid.out.val();
        self.peer.wr_data.next.send_cqn = self.x_cqn.out.val();
        // Messages.
        self.msg.rd_addr.next = self.msg_rd_addr.val();
        self.next.rd_addr.next = self.msg_rd_addr.val();
        self.msg_rd_data.next = self.msg.rd_data.val();
        self.next_rd_data.next = self.next.rd_data.val();
        self.msg.wr_en.next = self.msg_wr_en.val();
        self.msg.wr_addr.next = self.msg_wr_addr.val();
        self.msg.wr_data.next = self.msg_wr_data.val();
        self.next.wr_en.next = self.next_wr_en.val();
        self.next.wr_addr.next = self.next_wr_addr.val();
        self.next.wr_data.next = self.next_wr_data.val();
        // Allocator.
        self.fr_v.d.next = self.free_en.val();
        self.fr_i.d.next = self.free_idx.val();
        self.freeq.wr_en.next = self.fr_v.q.val();
        self.freeq.wr_addr.next = self.f_wp.q.val();
        self.freeq.wr_data.next = self.fr_i.q.val();
        self.freeq.rd_addr.next = self.f_rp.q.val();
        self.alloc_v.next = self.avail_v.q.val();
        self.alloc_idx.next = self.avail.q.val();
        self.have.next = self.avail_v.q.val() & !self.alloc_take.val();
        self.avail_v.d.next = self.have.val();
        self.f_pop.next = false;
        self.loading.d.next = false;
        if self.loading.q.val() {
            self.avail.d.next = self.freeq.rd_data.val();
            self.avail_v.d.next = true;
        } else if !self.have.val() {
            if self.fresh.q.val() != self.c_pool.val() {
                self.avail.d.next = self.fresh.q.val().get_bits::<16>(0);
                self.avail_v.d.next = true;
                self.fresh.d.next = self.fresh.q.val() + self.c_one17.val();
            } else if self.f_ne.q.val() {
                self.f_pop.next = true;
                self.loading.d.next = true;
            }
        }
        if self.fr_v.q.val() {
            self.f_wp.d.next = (self.f_wp.q.val() + self.c_one16.val()) & self.c_pmask.val();
        }
        if self.f_pop.val() {
            self.f_rp.d.next = (self.f_rp.q.val() + self.c_one16.val()) & self.c_pmask.val();
        }
        // The FIFO holds an entry: set by a release, cleared by popping its only entry (`rp + 1 = wp`; it holds
        // at most the pool, so one entry is the only count with that difference). A flag instead of a count,
        // so that the scheduler's late `alloc_take` reaches no carry chain.
        self.f_last.next =
            ((self.f_rp.q.val() + self.c_one16.val()) & self.c_pmask.val()) == self.f_wp.q.val();
        if self.fr_v.q.val() {
            self.f_ne.d.next = true;
        } else if self.f_pop.val() & self.f_last.val() {
            self.f_ne.d.next = false;
        }
        if self.rst.val() {
            self.fresh.d.next = self.c_z17.val();
            self.f_wp.d.next = self.c_z16.val();
            self.f_rp.d.next = self.c_z16.val();
            self.f_ne.d.next = false;
            self.fr_v.d.next = false;
            self.avail_v.d.next = false;
            self.loading.d.next = false;
        }
    }
}
