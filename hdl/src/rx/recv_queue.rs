//! Receive-queue handling (MR-SEM-9, MR-SEM-20, MR-SEM-26..28, spec 8.6 and 8.7): the RQ state of every QP,
//! RQ doorbells, the RQE fetch for SEND / SEND_IMM packets and the RQE consumption of receive completions.
//!
//! State: per QP (`2^QB` entries, from the QP context `metaroce_regmap::context::qp`, table QP): `rq_base`,
//! `rq_log`, `recv_cqn`, `cid`; the producer index `rq_pi` (RQ_PI doorbells, `metaroce_regmap::queues`, page n
//! of QP n at `n * 8`, RQ_PI at +4 of the page, on `cfg_wr_*`) and the consumer index `rq_ci` (advanced by
//! [`RqePop`]s). A QP-table write sets both indices from the entry, unless the entry's `rq_keep` is set (a
//! live QP's entry rewritten: the receive WQEs posted so far stay posted). Per connection (`2^CB` entries):
//! its QP (from the QP entries' `cid`, whose low `CB` bits are the connection index) and `ssn_base`, the
//! `rq_ci` of its QP when the connection opened (`s_axis_open_*`).
//!
//! SEND / SEND_IMM packet (`drop == 0`, DATA, not trimmed, no verdict yet): the SSN (`key`) names RQE index
//! `ssn_base + ssn` (MR-SEM-27); `k = ssn - consumed` with `consumed = rq_ci - ssn_base`. Verdicts, in the
//! model's order: `addr + payload_len > msg_len` → NACK INVALID (fail, MR-SEM-15); `k >= rq_pi - rq_ci` (not
//! posted) → NACK INVALID (fail) if `k > 2^rq_log + cfg_max_msgs`, else NACK RNR with `aux = cfg_rnr_timer_us`
//! (not placed, no fail, MR-SEM-28); else the RQE is read by DMA (`descriptor::rqe` layout, 32 bytes at
//! `rq_base + 32 * (index mod 2^rq_log)`) into `tuser.rqe_*`. Every packet gets `tuser.rq_empty` (`rq_pi ==
//! rq_ci` of its QP; WRITE_IMM RNR is decided by the completion stage, which knows the message state; for an
//! examined WRITE_IMM `tuser.aux` is preset to `cfg_rnr_timer_us` for that NACK).
//!
//! Pop (`s_axis_pop_*`, from the completion stage when a SEND / SEND_IMM / WRITE_IMM message completes in
//! order, MR-SEM-19/20): if the connection's QP has an unconsumed RQE, it is read (its `wr_id`), `rq_ci`
//! advances, and [`RqePop`] `{ ok: 1, qpn, cqn: recv_cqn, wr_id, index }` is returned; else `{ ok: 0 }`.
//! `m_axis_kick_*` carries the connection of a QP whose RQ_PI doorbell was written, so that stalled
//! completions are retried (the model's `deliver_in_order`).
//!
//! One request (packet or pop) at a time; a packet that needs an RQE waits for its DMA read, unless the RQE is
//! cached. The cache holds eight RQEs, RQE index `i` of a QP in entry `i mod 8` (direct-mapped), as many as a
//! connection has messages in flight (the receive message table's 8), so the RQEs of consecutive messages
//! coexist while packets of one message arrive after those of the next (multipath reordering), and a
//! message's RQE is still cached when the completion consumes it, up to 7 messages later. With four entries,
//! SEND traffic at line rate evicted RQEs before their consumption: each such pop waited for a read (100
//! cycles) while the completion stage took no packet. Every RQE read for a packet is cached; each SEND packet that finds its RQE schedules a prefetch
//! of the following index, which runs once nothing else is offered and reads that RQE if it is posted and not
//! cached. Each prefetched RQE's answer schedules the next index in turn, while it is posted and less than 8
//! ahead of the consumer index (the cache's reach: RQE `i + 8` would evict RQE `i`, not yet consumed), so the
//! RQEs of every message a connection may have in flight are cached before their packets arrive, those of a
//! message that overtook its predecessors included. A QP context write (the RQ may have moved) empties the cache; a pop that finds its RQE cached takes
//! the `wr_id` from there without a read and empties the entry, and every pop schedules a prefetch of the
//! RQE the next pop of its QP consumes (WRITE_IMM packets, which consume an RQE without reading it, and RQEs
//! evicted from the cache otherwise cost each completion a read while the completion stage waits). A SEND packet found in the cache takes 3
//! cycles, as WRITE and READ packets do. A prefetch holds the FSM only until its DMA read is
//! requested: its answer fills the cache beside the other requests (answers come in request order, so while it
//! is in flight the next answer is its own), and packets and pops go on meanwhile. Waiting for it made every
//! SEND packet that arrived in those 100 cycles wait, which at line rate with short SEND messages made the
//! receive path fall behind and discard frames. One prefetch is in flight at a time; its answer is dropped
//! when the cache was emptied meanwhile or a pop read an RQE itself (it may be that RQE, which must not be
//! cached once consumed). A packet whose RQE is the prefetch in flight waits for it (looked up again until
//! the answer fills the cache) instead of reading it a second time. A SEND message whose RQE was not
//! prefetched (the first one, or after an RNR) waits for the DMA read latency once. A packet whose verdict
//! is done waits in the output register (`m_axis_pkt_*`) with the FSM free: pops and opens are served while it
//! waits, and the next packet is taken once it has left. The completion stage downstream stops taking packets
//! while it pops, so a pop must never wait behind an output packet (that was a deadlock of the receive path).
//!
//! Flush (`s_axis_flush_*`, a QP index, from the control processor once the QP is in ERROR, MR-SEM-38): every
//! RQE posted and not consumed is consumed in ring order and leaves on `m_axis_flushed_*` as an [`RqePop`]
//! (`ok: 1`, its `wr_id` from the cache or a DMA read, `index`), which the core completes `Flushed`. The request
//! is held (`s_axis_flush_tready` low) until the QP's consumer index reaches its producer index; each step
//! consumes one RQE and re-reads both indices, so RQEs posted while the flush runs are flushed too. Steps and
//! packets alternate when both wait, so a long flush (a DMA read per RQE not cached) slows the receive path
//! but never stops it.

use crate::common::ram::SdpRam;
use crate::common::zext::Zext;
use crate::dma::DmaDesc;
use crate::records::{ConnIdx, CtxWrite, PktMeta};
use crate::rel::records::ConnOpen;
use crate::rx::mr_check::{Lit, RxCheck};
use metaroce_proto::wire::{NackCode, Opcode, PacketType};
use metaroce_regmap::context::qp::field as qf;
use metaroce_regmap::descriptor::rqe::field as rf;
use metaroce_regmap::queues::page;
use rust_hdl::prelude::*;

pub use rec::{QpRq, RqeEnt, RqePop};

// `LogicStruct` generates public accessor methods without docs; the record and its fields are documented.
#[allow(missing_docs)]
mod rec {
    use rust_hdl::prelude::*;

    /// The answer to a pop request: the consumed RQE.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct RqePop {
        /// An RQE was posted and is now consumed.
        pub ok: Bit,
        /// QP number.
        pub qpn: Bits<24>,
        /// Receive CQ of the QP.
        pub cqn: Bits<24>,
        /// The RQE's `wr_id`.
        pub wr_id: Bits<64>,
        /// Its ring index (the CQE's `wqe_index`).
        pub index: Bits<16>,
    }

    /// An entry of the RQE cache.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct RqeEnt {
        /// Holds an RQE.
        pub v: Bit,
        /// Its QP.
        pub qp: Bits<16>,
        /// Its ring index.
        pub idx: Bits<16>,
        /// The RQE's buffer address.
        pub addr: Bits<64>,
        /// Its length.
        pub len: Bits<32>,
        /// Its lkey.
        pub lkey: Bits<32>,
        /// Its `wr_id`.
        pub wr_id: Bits<64>,
    }

    /// What the block keeps of a QP's context entry.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct QpRq {
        /// RQ ring base.
        pub base: Bits<64>,
        /// log2 of the RQ entries.
        pub log: Bits<4>,
        /// Receive CQ.
        pub cqn: Bits<24>,
    }
}

/// The receive-queue block: `DW`/`KW` DMA read data width, `2^CB` connections, `2^QB` QPs.
#[derive(LogicBlock)]
pub struct RecvQueue<const DW: usize, const KW: usize, const CB: usize, const QB: usize> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// Context writes (QP table).
    pub s_axis_ctxw_tdata: Signal<In, CtxWrite>,
    /// Context write valid.
    pub s_axis_ctxw_tvalid: Signal<In, Bit>,
    /// Connection opened.
    pub s_axis_open_tdata: Signal<In, ConnOpen>,
    /// Valid.
    pub s_axis_open_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_open_tready: Signal<Out, Bit>,
    /// Doorbell write strobe (QP doorbell window).
    pub cfg_wr_en: Signal<In, Bit>,
    /// Doorbell byte address.
    pub cfg_wr_addr: Signal<In, Bits<24>>,
    /// Doorbell value.
    pub cfg_wr_data: Signal<In, Bits<32>>,
    /// `max_outstanding_msgs` (the RNR / INVALID limit of MR-SEM-28).
    pub cfg_max_msgs: Signal<In, Bits<32>>,
    /// NACK RNR aux (`rnr_timer_us`).
    pub cfg_rnr_timer_us: Signal<In, Bits<32>>,
    /// Packet in.
    pub s_axis_pkt_tdata: Signal<In, PktMeta>,
    /// Verdict so far.
    pub s_axis_pkt_tuser: Signal<In, RxCheck>,
    /// Valid.
    pub s_axis_pkt_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_pkt_tready: Signal<Out, Bit>,
    /// Packet out.
    pub m_axis_pkt_tdata: Signal<Out, PktMeta>,
    /// Verdict with the RQE.
    pub m_axis_pkt_tuser: Signal<Out, RxCheck>,
    /// Valid.
    pub m_axis_pkt_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_pkt_tready: Signal<In, Bit>,
    /// RQE read descriptor.
    pub m_axis_dma_rd_desc_tdata: Signal<Out, DmaDesc>,
    /// Valid.
    pub m_axis_dma_rd_desc_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_dma_rd_desc_tready: Signal<In, Bit>,
    /// RQE read data.
    pub s_axis_dma_rd_tdata: Signal<In, Bits<DW>>,
    /// Keep.
    pub s_axis_dma_rd_tkeep: Signal<In, Bits<KW>>,
    /// Last.
    pub s_axis_dma_rd_tlast: Signal<In, Bit>,
    /// Tag.
    pub s_axis_dma_rd_tuser: Signal<In, Bits<16>>,
    /// Valid.
    pub s_axis_dma_rd_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_dma_rd_tready: Signal<Out, Bit>,
    /// Pop request (connection).
    pub s_axis_pop_tdata: Signal<In, ConnIdx>,
    /// Valid.
    pub s_axis_pop_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_pop_tready: Signal<Out, Bit>,
    /// Pop answer.
    pub m_axis_popped_tdata: Signal<Out, RqePop>,
    /// Valid.
    pub m_axis_popped_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_popped_tready: Signal<In, Bit>,
    /// RQ doorbell of the QP of this connection.
    pub m_axis_kick_tdata: Signal<Out, ConnIdx>,
    /// Valid (one cycle; no back-pressure).
    pub m_axis_kick_tvalid: Signal<Out, Bit>,
    /// Flush request: the QP (index, low `QB` bits).
    pub s_axis_flush_tdata: Signal<In, Bits<16>>,
    /// Valid.
    pub s_axis_flush_tvalid: Signal<In, Bit>,
    /// Ready (the previous request's flush is done).
    pub s_axis_flush_tready: Signal<Out, Bit>,
    /// A flushed RQE.
    pub m_axis_flushed_tdata: Signal<Out, RqePop>,
    /// Valid.
    pub m_axis_flushed_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_flushed_tready: Signal<In, Bit>,
    qpt: SdpRam<QpRq, QB>,
    piram: SdpRam<Bits<16>, QB>,
    ciram: SdpRam<Bits<16>, QB>,
    q2c: SdpRam<Bits<CB>, QB>,
    c2q: SdpRam<Bits<QB>, CB>,
    c2qv: SdpRam<Bit, CB>,
    ssnb: SdpRam<Bits<16>, CB>,
    state: DFF<Bits<4>>,
    /// S4's next state (taken at the end of the update).
    ns4: Signal<Local, Bits<4>>,
    kind: DFF<Bits<3>>,
    /// A flush is pending for QP `fl_qp` (taken from `s_axis_flush_*`, held until its RQ is empty).
    fl_pend: DFF<Bit>,
    fl_qp: DFF<Bits<QB>>,
    /// The last request taken was a flush step: a waiting packet goes next.
    fl_turn: DFF<Bit>,
    take_fl: Signal<Local, Bit>,
    pkt_in: Signal<Local, Bit>,
    /// The request's kind decoded, registered with `kind` (a decode of `kind` in front of the cache lookup's
    /// index multiplexer took the block to 11 logic levels): a pop, a flush step, a prefetch, and either of the
    /// first two (whose RQE index is the consumer index).
    is_pop: DFF<Bit>,
    is_fl: DFF<Bit>,
    is_pf: DFF<Bit>,
    is_ci: DFF<Bit>,
    conn_r: DFF<Bits<CB>>,
    qp_r: DFF<Bits<QB>>,
    qv_r: DFF<Bit>,
    base_r: DFF<Bits<16>>,
    meta: DFF<PktMeta>,
    chk: DFF<RxCheck>,
    desc: DFF<DmaDesc>,
    popped: DFF<RqePop>,
    kick: DFF<ConnIdx>,
    kick_v: DFF<Bit>,
    opend: DFF<Bit>,
    ci_wr: DFF<Bit>,
    ci_new: DFF<Bits<16>>,
    ce0: DFF<RqeEnt>,
    ce1: DFF<RqeEnt>,
    ce2: DFF<RqeEnt>,
    ce3: DFF<RqeEnt>,
    ce4: DFF<RqeEnt>,
    ce5: DFF<RqeEnt>,
    ce6: DFF<RqeEnt>,
    ce7: DFF<RqeEnt>,
    pf_v: DFF<Bit>,
    pf_conn: DFF<Bits<CB>>,
    pf_qp: DFF<Bits<QB>>,
    pf_idx: DFF<Bits<16>>,
    /// A prefetch's DMA read is in flight (`pf_fly`), for RQE `pf_fidx` of QP `pf_fqp`; its answer fills the
    /// cache unless it was dropped meanwhile (`pf_drop`: the cache was emptied, or a pop read that RQE itself).
    pf_fly: DFF<Bit>,
    pf_drop: DFF<Bit>,
    pf_fidx: DFF<Bits<16>>,
    pf_fqp: DFF<Bits<16>>,
    /// The connection and QP the prefetch in flight was made for (its answer schedules the next index).
    pf_fconn: DFF<Bits<CB>>,
    pf_fqpb: DFF<Bits<QB>>,
    /// The prefetch's answer was taken in the previous cycle: a lookup made then did not see it.
    pf_done: DFF<Bit>,
    /// The DMA read answer is the in-flight prefetch's, taken now.
    pf_take: Signal<Local, Bit>,
    c_slot: Signal<Local, Bits<3>>,
    c_sel: Signal<Local, RqeEnt>,
    c_hit: Signal<Local, Bit>,
    idx_p: DFF<Bits<16>>,
    hit_p: DFF<Bit>,
    /// S4 of a packet (registered in S3 from the kind and flags that hold through S4): the packet's check
    /// fields are decided under this one bit, not under the state and kind decodes.
    pk4: DFF<Bit>,
    /// `examined & is_send` and `examined & op == WRITE_IMM`, registered every cycle: read in S4, where they
    /// hold S3's values (the packet's `meta` and `chk` change only at its take and from S4 on).
    ex_send: DFF<Bit>,
    ex_wimm: DFF<Bit>,
    c_wr: Signal<Local, Bit>,
    c_wslot: Signal<Local, Bits<3>>,
    c_new: Signal<Local, RqeEnt>,
    c_fill: Signal<Local, RqeEnt>,
    take_f: Signal<Local, Bit>,
    pf_k: Signal<Local, Bits<16>>,
    ctx_data: Signal<Local, Bits<512>>,
    ctx_qp: Signal<Local, Bit>,
    /// A QP-table write that sets the RQ's indices (`rq_keep` clear).
    ctx_rq: Signal<Local, Bit>,
    ctx_index: Signal<Local, Bits<16>>,
    ctx_cid: Signal<Local, Bits<24>>,
    wa: Signal<Local, Bits<24>>,
    db: Signal<Local, Bit>,
    idle: Signal<Local, Bit>,
    take_o: Signal<Local, Bit>,
    take_q: Signal<Local, Bit>,
    take_p: Signal<Local, Bit>,
    pconn: Signal<Local, ConnIdx>,
    oconn: Signal<Local, ConnIdx>,
    qconn: Signal<Local, ConnIdx>,
    ent: Signal<Local, QpRq>,
    pi: Signal<Local, Bits<16>>,
    ci: Signal<Local, Bits<16>>,
    size: Signal<Local, Bits<16>>,
    ssn16: Signal<Local, Bits<16>>,
    consumed: Signal<Local, Bits<16>>,
    k: Signal<Local, Bits<16>>,
    idx: Signal<Local, Bits<16>>,
    op: Signal<Local, Bits<8>>,
    is_send: Signal<Local, Bit>,
    examined: Signal<Local, Bit>,
    too_far: Signal<Local, Bit>,
    bad_off: DFF<Bit>,
    off_gt: DFF<Bit>,
    off_rem: DFF<Bits<64>>,
    rqe: Signal<Local, Bits<256>>,
    log16: Zext<4, 16>,
    slot64: Zext<16, 64>,
    x_mlen: Zext<32, 64>,
    x_plen: Zext<16, 64>,
    x_k: Zext<16, 33>,
    x_size: Zext<16, 33>,
    x_max: Zext<32, 33>,
    x_conn: Zext<CB, 16>,
    k_qp: Lit<4, { crate::ctx::table::QP as u64 }>,
    k_off_base: Lit<9, { qf::RQ_BASE.lsb() as u64 }>,
    k_off_log: Lit<9, { qf::RQ_LOG.lsb() as u64 }>,
    k_off_cqn: Lit<9, { qf::RECV_CQN.lsb() as u64 }>,
    k_off_pi: Lit<9, { qf::RQ_PI.lsb() as u64 }>,
    k_off_ci: Lit<9, { qf::RQ_CI.lsb() as u64 }>,
    k_off_keep: Lit<9, { qf::RQ_KEEP.lsb() as u64 }>,
    k_off_cid: Lit<9, { qf::CID.lsb() as u64 }>,
    k_rq_pi: Lit<3, { page::RQ_PI as u64 }>,
    k_r_wr_id: Lit<8, { rf::WR_ID.lsb() as u64 }>,
    k_r_addr: Lit<8, { rf::ADDR.lsb() as u64 }>,
    k_r_len: Lit<8, { rf::LENGTH.lsb() as u64 }>,
    k_r_lkey: Lit<8, { rf::LKEY.lsb() as u64 }>,
    k_data: Lit<4, { PacketType::Data as u64 }>,
    k_op_send: Lit<8, { Opcode::Send as u64 }>,
    k_op_send_imm: Lit<8, { Opcode::SendImm as u64 }>,
    k_op_write_imm: Lit<8, { Opcode::WriteImm as u64 }>,
    k_nack_rnr: Lit<8, { NackCode::Rnr as u64 }>,
    k_nack_invalid: Lit<8, { NackCode::Invalid as u64 }>,
    k_drop_invalid: Lit<8, { crate::rx::drop::INVALID as u64 }>,
    k_one16: Lit<16, 1>,
    k_ones16: Lit<16, 0xffff>,
    k_len32: Lit<32, 32>,
    /// The cache's entries: a prefetch reads only RQEs less than this many ahead of the consumer index, whose
    /// entries (direct-mapped) hold no unconsumed RQE.
    k_ahead: Lit<16, 8>,
    k_s_idle: Lit<4, 0>,
    k_s_1: Lit<4, 1>,
    k_s_2: Lit<4, 2>,
    k_s_3: Lit<4, 3>,
    k_s_4: Lit<4, 4>,
    k_s_5: Lit<4, 5>,
    k_s_desc: Lit<4, 6>,
    k_s_rd: Lit<4, 7>,
    k_s_pout: Lit<4, 9>,
    k_k_pkt: Lit<3, 0>,
    k_k_pop: Lit<3, 1>,
    k_k_open: Lit<3, 2>,
    k_k_pf: Lit<3, 3>,
    k_k_fl: Lit<3, 4>,
    k_zero16: Lit<16, 0>,
    x_qpn: Zext<QB, 24>,
    x_qp16: Zext<QB, 16>,
}

impl<const DW: usize, const KW: usize, const CB: usize, const QB: usize> RecvQueue<DW, KW, CB, QB> {
    /// The block for `2^CB` connections and `2^QB` QPs (`cfg.conn_bits`, `cfg.qp_bits`); `DW >= 256`.
    pub fn new() -> Self {
        assert!(DW >= 256 && KW * 8 == DW && CB <= 16 && QB <= 16);
        RecvQueue {
            clk: Default::default(),
            rst: Default::default(),
            s_axis_ctxw_tdata: Default::default(),
            s_axis_ctxw_tvalid: Default::default(),
            s_axis_open_tdata: Default::default(),
            s_axis_open_tvalid: Default::default(),
            s_axis_open_tready: Default::default(),
            cfg_wr_en: Default::default(),
            cfg_wr_addr: Default::default(),
            cfg_wr_data: Default::default(),
            cfg_max_msgs: Default::default(),
            cfg_rnr_timer_us: Default::default(),
            s_axis_pkt_tdata: Default::default(),
            s_axis_pkt_tuser: Default::default(),
            s_axis_pkt_tvalid: Default::default(),
            s_axis_pkt_tready: Default::default(),
            m_axis_pkt_tdata: Default::default(),
            m_axis_pkt_tuser: Default::default(),
            m_axis_pkt_tvalid: Default::default(),
            m_axis_pkt_tready: Default::default(),
            m_axis_dma_rd_desc_tdata: Default::default(),
            m_axis_dma_rd_desc_tvalid: Default::default(),
            m_axis_dma_rd_desc_tready: Default::default(),
            s_axis_dma_rd_tdata: Default::default(),
            s_axis_dma_rd_tkeep: Default::default(),
            s_axis_dma_rd_tlast: Default::default(),
            s_axis_dma_rd_tuser: Default::default(),
            s_axis_dma_rd_tvalid: Default::default(),
            s_axis_dma_rd_tready: Default::default(),
            s_axis_pop_tdata: Default::default(),
            s_axis_pop_tvalid: Default::default(),
            s_axis_pop_tready: Default::default(),
            m_axis_popped_tdata: Default::default(),
            m_axis_popped_tvalid: Default::default(),
            m_axis_popped_tready: Default::default(),
            m_axis_kick_tdata: Default::default(),
            m_axis_kick_tvalid: Default::default(),
            s_axis_flush_tdata: Default::default(),
            s_axis_flush_tvalid: Default::default(),
            s_axis_flush_tready: Default::default(),
            m_axis_flushed_tdata: Default::default(),
            m_axis_flushed_tvalid: Default::default(),
            m_axis_flushed_tready: Default::default(),
            qpt: SdpRam::new(1 << QB),
            piram: SdpRam::new(1 << QB),
            ciram: SdpRam::new(1 << QB),
            q2c: SdpRam::new(1 << QB),
            c2q: SdpRam::new(1 << CB),
            c2qv: SdpRam::new(1 << CB),
            ssnb: SdpRam::new(1 << CB),
            state: Default::default(),
            ns4: Default::default(),
            kind: Default::default(),
            fl_pend: Default::default(),
            fl_qp: Default::default(),
            fl_turn: Default::default(),
            take_fl: Default::default(),
            pkt_in: Default::default(),
            is_pop: Default::default(),
            is_fl: Default::default(),
            is_pf: Default::default(),
            is_ci: Default::default(),
            conn_r: Default::default(),
            qp_r: Default::default(),
            qv_r: Default::default(),
            base_r: Default::default(),
            meta: Default::default(),
            chk: Default::default(),
            desc: Default::default(),
            popped: Default::default(),
            kick: Default::default(),
            kick_v: Default::default(),
            opend: Default::default(),
            ci_wr: Default::default(),
            ce0: Default::default(),
            ce1: Default::default(),
            ce2: Default::default(),
            ce3: Default::default(),
            ce4: Default::default(),
            ce5: Default::default(),
            ce6: Default::default(),
            ce7: Default::default(),
            pf_v: Default::default(),
            pf_conn: Default::default(),
            pf_qp: Default::default(),
            pf_idx: Default::default(),
            pf_fly: Default::default(),
            pf_drop: Default::default(),
            pf_fidx: Default::default(),
            pf_fqp: Default::default(),
            pf_fconn: Default::default(),
            pf_fqpb: Default::default(),
            pf_done: Default::default(),
            pf_take: Default::default(),
            c_slot: Default::default(),
            c_sel: Default::default(),
            c_hit: Default::default(),
            idx_p: Default::default(),
            hit_p: Default::default(),
            pk4: Default::default(),
            ex_send: Default::default(),
            ex_wimm: Default::default(),
            c_wr: Default::default(),
            c_wslot: Default::default(),
            c_new: Default::default(),
            c_fill: Default::default(),
            take_f: Default::default(),
            pf_k: Default::default(),
            ci_new: Default::default(),
            ctx_data: Default::default(),
            ctx_qp: Default::default(),
            ctx_rq: Default::default(),
            ctx_index: Default::default(),
            ctx_cid: Default::default(),
            wa: Default::default(),
            db: Default::default(),
            idle: Default::default(),
            take_o: Default::default(),
            take_q: Default::default(),
            take_p: Default::default(),
            pconn: Default::default(),
            oconn: Default::default(),
            qconn: Default::default(),
            ent: Default::default(),
            pi: Default::default(),
            ci: Default::default(),
            size: Default::default(),
            ssn16: Default::default(),
            consumed: Default::default(),
            k: Default::default(),
            idx: Default::default(),
            op: Default::default(),
            is_send: Default::default(),
            examined: Default::default(),
            too_far: Default::default(),
            bad_off: Default::default(),
            off_gt: Default::default(),
            off_rem: Default::default(),
            rqe: Default::default(),
            log16: Default::default(),
            slot64: Default::default(),
            x_mlen: Default::default(),
            x_plen: Default::default(),
            x_k: Default::default(),
            x_size: Default::default(),
            x_max: Default::default(),
            x_conn: Default::default(),
            k_qp: Default::default(),
            k_off_base: Default::default(),
            k_off_log: Default::default(),
            k_off_cqn: Default::default(),
            k_off_pi: Default::default(),
            k_off_ci: Default::default(),
            k_off_keep: Default::default(),
            k_off_cid: Default::default(),
            k_rq_pi: Default::default(),
            k_r_wr_id: Default::default(),
            k_r_addr: Default::default(),
            k_r_len: Default::default(),
            k_r_lkey: Default::default(),
            k_data: Default::default(),
            k_op_send: Default::default(),
            k_op_send_imm: Default::default(),
            k_op_write_imm: Default::default(),
            k_nack_rnr: Default::default(),
            k_nack_invalid: Default::default(),
            k_drop_invalid: Default::default(),
            k_one16: Default::default(),
            k_ones16: Default::default(),
            k_len32: Default::default(),
            k_ahead: Default::default(),
            k_s_idle: Default::default(),
            k_s_1: Default::default(),
            k_s_2: Default::default(),
            k_s_3: Default::default(),
            k_s_4: Default::default(),
            k_s_5: Default::default(),
            k_s_desc: Default::default(),
            k_s_rd: Default::default(),
            k_s_pout: Default::default(),
            k_k_pkt: Default::default(),
            k_k_pf: Default::default(),
            k_k_pop: Default::default(),
            k_k_open: Default::default(),
            k_k_fl: Default::default(),
            k_zero16: Default::default(),
            x_qpn: Default::default(),
            x_qp16: Default::default(),
        }
    }
}

impl<const DW: usize, const KW: usize, const CB: usize, const QB: usize> Default
    for RecvQueue<DW, KW, CB, QB>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const DW: usize, const KW: usize, const CB: usize, const QB: usize> Logic
    for RecvQueue<DW, KW, CB, QB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, state, kind, conn_r, qp_r, qv_r, base_r, meta, chk, desc, popped, kick,
            kick_v, opend, ci_wr, ci_new, ce0, ce1, ce2, ce3, pf_v, pf_conn, idx_p, hit_p, pk4,
            ex_send, ex_wimm, pf_qp, pf_idx
        );
        dff_setup!(self, clk, pf_fly, pf_drop, pf_fidx, pf_fqp, ce4, ce5, ce6, ce7);
        dff_setup!(self, clk, pf_fconn, pf_fqpb, pf_done, fl_pend, fl_qp, fl_turn);
        dff_setup!(self, clk, is_pop, is_fl, is_pf, is_ci, bad_off, off_gt, off_rem);
        self.qpt.clk.next = self.clk.val();
        self.piram.clk.next = self.clk.val();
        self.ciram.clk.next = self.clk.val();
        self.q2c.clk.next = self.clk.val();
        self.c2q.clk.next = self.clk.val();
        self.c2qv.clk.next = self.clk.val();
        self.ssnb.clk.next = self.clk.val();

        // QP-table writes.
        self.ctx_data.next = self.s_axis_ctxw_tdata.val().data;
        self.ctx_index.next = self.s_axis_ctxw_tdata.val().index;
        self.ctx_qp.next = self.s_axis_ctxw_tvalid.val()
            & (self.s_axis_ctxw_tdata.val().table == self.k_qp.v.val());
        self.ctx_cid.next = self
            .ctx_data
            .val()
            .get_bits::<24>(self.k_off_cid.v.val().index());
        self.qpt.wr_en.next = self.ctx_qp.val();
        self.qpt.wr_addr.next = self.ctx_index.val().get_bits::<QB>(0);
        self.qpt.wr_data.next.base = self
            .ctx_data
            .val()
            .get_bits::<64>(self.k_off_base.v.val().index());
        self.qpt.wr_data.next.log = self
            .ctx_data
            .val()
            .get_bits::<4>(self.k_off_log.v.val().index());
        self.qpt.wr_data.next.cqn = self
            .ctx_data
            .val()
            .get_bits::<24>(self.k_off_cqn.v.val().index());
        self.q2c.wr_en.next = self.ctx_qp.val();
        self.q2c.wr_addr.next = self.ctx_index.val().get_bits::<QB>(0);
        self.q2c.wr_data.next = self.ctx_cid.val().get_bits::<CB>(0);
        self.c2q.wr_en.next = self.ctx_qp.val() & self.ctx_cid.val().any();
        self.c2q.wr_addr.next = self.ctx_cid.val().get_bits::<CB>(0);
        self.c2q.wr_data.next = self.ctx_index.val().get_bits::<QB>(0);
        self.c2qv.wr_en.next = self.ctx_qp.val() & self.ctx_cid.val().any();
        self.c2qv.wr_addr.next = self.ctx_cid.val().get_bits::<CB>(0);
        self.c2qv.wr_data.next = true;

        // RQ_PI doorbells (page n at n * 8) and the kick of the QP's connection one cycle later.
        self.wa.next = self.cfg_wr_addr.val();
        self.db.next =
            self.cfg_wr_en.val() & (self.wa.val().get_bits::<3>(0) == self.k_rq_pi.v.val());
        self.q2c.rd_addr.next = self.wa.val().get_bits::<QB>(3);
        self.kick_v.d.next = self.db.val();
        self.x_conn.i.next = self.q2c.rd_data.val();
        self.m_axis_kick_tdata.next = self.x_conn.o.val();
        self.m_axis_kick_tvalid.next = self.kick_v.q.val();
        self.ctx_rq.next =
            self.ctx_qp.val() & !self.ctx_data.val().get_bit(self.k_off_keep.v.val().index());
        self.piram.wr_en.next = self.ctx_rq.val() | self.db.val();
        if self.ctx_rq.val() {
            self.piram.wr_addr.next = self.ctx_index.val().get_bits::<QB>(0);
            self.piram.wr_data.next = self
                .ctx_data
                .val()
                .get_bits::<16>(self.k_off_pi.v.val().index());
        } else {
            self.piram.wr_addr.next = self.wa.val().get_bits::<QB>(3);
            self.piram.wr_data.next = self.cfg_wr_data.val().get_bits::<16>(0);
        }
        self.ciram.wr_en.next = self.ctx_rq.val() | self.ci_wr.q.val();
        if self.ctx_rq.val() {
            self.ciram.wr_addr.next = self.ctx_index.val().get_bits::<QB>(0);
            self.ciram.wr_data.next = self
                .ctx_data
                .val()
                .get_bits::<16>(self.k_off_ci.v.val().index());
        } else {
            self.ciram.wr_addr.next = self.qp_r.q.val();
            self.ciram.wr_data.next = self.ci_new.q.val();
        }
        self.ci_wr.d.next = false;
        // A pop advanced the consumer index (`ci_wr`, pops only): the RQE the QP's next pop consumes is
        // prefetched, unless a prefetch is already scheduled (taken from the registers, not from the pop's
        // adders, which would add logic levels).
        if self.ci_wr.q.val() & !self.pf_v.q.val() & self.is_pop.q.val() {
            self.pf_v.d.next = true;
            self.pf_conn.d.next = self.conn_r.q.val();
            self.pf_qp.d.next = self.qp_r.q.val();
            self.pf_idx.d.next = self.ci_new.q.val();
        }

        // Request selection: open, then pop, then a flush step and a packet in turn.
        self.idle.next = self.state.q.val() == self.k_s_idle.v.val();
        self.take_o.next = self.idle.val() & self.s_axis_open_tvalid.val();
        self.take_q.next =
            self.idle.val() & !self.s_axis_open_tvalid.val() & self.s_axis_pop_tvalid.val();
        self.pkt_in.next = !self.opend.q.val() & self.s_axis_pkt_tvalid.val();
        self.take_fl.next = self.idle.val()
            & self.fl_pend.q.val()
            & !self.s_axis_open_tvalid.val()
            & !self.s_axis_pop_tvalid.val()
            & !(self.pkt_in.val() & self.fl_turn.q.val());
        self.take_p.next = self.idle.val()
            & !self.s_axis_open_tvalid.val()
            & !self.s_axis_pop_tvalid.val()
            & self.pkt_in.val()
            & !(self.fl_pend.q.val() & !self.fl_turn.q.val());
        // A prefetch of the next RQE starts only when nothing else is offered.
        self.take_f.next = self.idle.val()
            & self.pf_v.q.val()
            & !self.pf_fly.q.val()
            & !self.fl_pend.q.val()
            & !self.s_axis_open_tvalid.val()
            & !self.s_axis_pop_tvalid.val()
            & !self.s_axis_pkt_tvalid.val();
        self.s_axis_open_tready.next = self.take_o.val();
        self.s_axis_pop_tready.next = self.take_q.val();
        self.s_axis_pkt_tready.next = self.take_p.val();
        // A flush request is held until its QP's RQ is empty (S4 of a step that finds nothing to consume).
        self.s_axis_flush_tready.next = !self.fl_pend.q.val();
        if !self.fl_pend.q.val() & self.s_axis_flush_tvalid.val() {
            self.fl_pend.d.next = true;
            self.fl_qp.d.next = self.s_axis_flush_tdata.val().get_bits::<QB>(0);
        }
        if self.take_fl.val() {
            self.qp_r.d.next = self.fl_qp.q.val();
            self.qv_r.d.next = true;
            self.kind.d.next = self.k_k_fl.v.val();
            self.fl_turn.d.next = true;
        }
        if self.take_o.val()
            | self.take_q.val()
            | self.take_f.val()
            | self.take_p.val()
            | self.take_fl.val()
        {
            self.is_pop.d.next = self.take_q.val();
            self.is_fl.d.next = self.take_fl.val();
            self.is_pf.d.next = self.take_f.val();
            self.is_ci.d.next = self.take_q.val() | self.take_fl.val();
        }
        self.oconn.next = self.s_axis_open_tdata.val().conn;
        self.qconn.next = self.s_axis_pop_tdata.val();
        self.pconn.next = self.s_axis_pkt_tdata.val().conn;
        if self.take_o.val() {
            self.conn_r.d.next = self.oconn.val().get_bits::<CB>(0);
            self.kind.d.next = self.k_k_open.v.val();
        }
        if self.take_q.val() {
            self.conn_r.d.next = self.qconn.val().get_bits::<CB>(0);
            self.kind.d.next = self.k_k_pop.v.val();
        }
        if self.take_f.val() {
            self.conn_r.d.next = self.pf_conn.q.val();
            self.kind.d.next = self.k_k_pf.v.val();
            self.pf_v.d.next = false;
        }
        if self.take_p.val() {
            self.fl_turn.d.next = false;
            self.conn_r.d.next = self.pconn.val().get_bits::<CB>(0);
            self.meta.d.next = self.s_axis_pkt_tdata.val();
            self.chk.d.next = self.s_axis_pkt_tuser.val();
            self.kind.d.next = self.k_k_pkt.v.val();
        }
        self.c2q.rd_addr.next = self.conn_r.q.val();
        self.c2qv.rd_addr.next = self.conn_r.q.val();
        self.ssnb.rd_addr.next = self.conn_r.q.val();
        self.qpt.rd_addr.next = self.qp_r.q.val();
        self.piram.rd_addr.next = self.qp_r.q.val();
        self.ciram.rd_addr.next = self.qp_r.q.val();
        if self.state.q.val() == self.k_s_1.v.val() {
            self.state.d.next = self.k_s_2.v.val();
        }
        if self.state.q.val() == self.k_s_2.v.val() {
            // A flush step names its QP itself.
            if !self.is_fl.q.val() {
                self.qp_r.d.next = self.c2q.rd_data.val();
                self.qv_r.d.next = self.c2qv.rd_data.val();
            }
            self.base_r.d.next = self.ssnb.rd_data.val();
            self.state.d.next = self.k_s_3.v.val();
        }
        if self.state.q.val() == self.k_s_3.v.val() {
            self.state.d.next = self.k_s_4.v.val();
        }

        // S4: the connection's QP state is on the RAM outputs.
        self.x_qpn.i.next = self.qp_r.q.val();
        self.ent.next = self.qpt.rd_data.val();
        self.pi.next = self.piram.rd_data.val();
        self.ci.next = self.ciram.rd_data.val();
        self.log16.i.next = self.ent.val().log;
        self.size.next = self.k_one16.v.val() << self.log16.o.val();
        self.ssn16.next = self.meta.q.val().key.get_bits::<16>(0);
        if self.state.q.val() == self.k_s_2.v.val() {
            // A packet's RQE index (`ssn_base + ssn`), registered for S3 and S4.
            self.idx_p.d.next = self.ssnb.rd_data.val() + self.ssn16.val();
        }
        self.consumed.next = self.ci.val() - self.base_r.q.val();
        self.k.next = self.ssn16.val() - self.consumed.val();
        self.x_k.i.next = self.k.val();
        self.x_size.i.next = self.size.val();
        self.x_max.i.next = self.cfg_max_msgs.val();
        self.too_far.next = self.x_k.o.val() > (self.x_size.o.val() + self.x_max.o.val());
        self.x_mlen.i.next = self.meta.q.val().msg_len;
        self.x_plen.i.next = self.meta.q.val().payload_len;
        // Registered every cycle in two steps: the packet's fields are in `meta` from S1 on, the test is read at
        // S4 (valid from S3), so neither its two 64-bit carry chains nor their sequence meets the S4 decision.
        self.off_gt.d.next = self.meta.q.val().addr > self.x_mlen.o.val();
        self.off_rem.d.next = self.x_mlen.o.val() - self.meta.q.val().addr;
        self.bad_off.d.next = self.off_gt.q.val() | (self.x_plen.o.val() > self.off_rem.q.val());
        self.op.next = self.meta.q.val().opcode;
        self.is_send.next = (self.op.val() == self.k_op_send.v.val())
            | (self.op.val() == self.k_op_send_imm.v.val());
        self.examined.next = !self.meta.q.val().drop.any()
            & (self.meta.q.val().ptype == self.k_data.v.val())
            & !self.meta.q.val().trimmed
            & !self.chk.q.val().nack;
        if self.is_ci.q.val() {
            self.idx.next = self.ci.val();
        } else if self.is_pf.q.val() {
            self.idx.next = self.pf_idx.q.val();
        } else {
            self.idx.next = self.idx_p.q.val();
        }
        // (the mask `size - 1` as the complement of all-ones shifted by `log`: no carry chain before the address
        // adder)
        self.slot64.i.next = self.idx.val() & !(self.k_ones16.v.val() << self.log16.o.val());
        self.ssnb.wr_en.next = false;
        self.ssnb.wr_addr.next = self.conn_r.q.val();
        if self.qv_r.q.val() {
            self.ssnb.wr_data.next = self.ci.val();
        } else {
            self.ssnb.wr_data.next = self.k_zero16.v.val();
        }
        // The RQE cache: entry `idx mod 8` holds RQE `idx` of QP `qp` if `v`.
        self.x_qp16.i.next = self.qp_r.q.val();
        self.c_slot.next = self.idx.val().get_bits::<3>(0);
        // The slot's entry, selected in parallel (a case on the slot, not a chain of overrides).
        self.c_sel.next = self.ce0.q.val();
        match self.c_slot.val().index() {
            1 => {
                self.c_sel.next = self.ce1.q.val();
            }
            2 => {
                self.c_sel.next = self.ce2.q.val();
            }
            3 => {
                self.c_sel.next = self.ce3.q.val();
            }
            4 => {
                self.c_sel.next = self.ce4.q.val();
            }
            5 => {
                self.c_sel.next = self.ce5.q.val();
            }
            6 => {
                self.c_sel.next = self.ce6.q.val();
            }
            7 => {
                self.c_sel.next = self.ce7.q.val();
            }
            _ => {}
        }
        // A hit: the slot's entry holds this RQE of this QP.
        self.c_hit.next = self.c_sel.val().v
            & (self.c_sel.val().qp == self.x_qp16.o.val())
            & (self.c_sel.val().idx == self.idx.val());
        // The lookup's result, registered: at S3 for a packet or a prefetch (their index is a register), at
        // S4 for a pop or a flush step (their index is the RQ's consumer index, read at S4), used one state
        // later.
        if ((self.state.q.val() == self.k_s_3.v.val()) & !self.is_ci.q.val())
            | ((self.state.q.val() == self.k_s_4.v.val()) & self.is_ci.q.val())
        {
            self.hit_p.d.next = self.c_hit.val();
        }
        self.c_wr.next = false;
        self.c_wslot.next = self.c_slot.val();
        self.c_new.next = self.c_sel.val();
        self.pf_k.next = self.idx.val() - self.ci.val();
        self.ns4.next = self.state.q.val();
        if self.state.q.val() == self.k_s_4.v.val() {
            self.desc.d.next.addr = self.ent.val().base + (self.slot64.o.val() << 5u64);
            self.desc.d.next.len = self.k_len32.v.val();
            self.desc.d.next.tag = self.idx.val();
            if self.kind.q.val() == self.k_k_open.v.val() {
                self.ssnb.wr_en.next = true;
                self.ns4.next = self.k_s_idle.v.val();
            } else if self.is_pf.q.val() {
                // Prefetch: read the RQE if it is posted, within the cache's reach of the consumer index (its
                // entry holds no unconsumed RQE), not cached, and the connection still on that QP.
                self.ns4.next = self.k_s_idle.v.val();
                if self.qv_r.q.val()
                    & (self.qp_r.q.val() == self.pf_qp.q.val())
                    & (self.pf_k.val() < (self.pi.val() - self.ci.val()))
                    & (self.pf_k.val() < self.k_ahead.v.val())
                    & !self.hit_p.q.val()
                {
                    self.ns4.next = self.k_s_desc.v.val();
                    self.pf_fidx.d.next = self.pf_idx.q.val();
                    self.pf_fqp.d.next = self.x_qp16.o.val();
                    self.pf_fconn.d.next = self.conn_r.q.val();
                    self.pf_fqpb.d.next = self.qp_r.q.val();
                }
            } else if self.is_ci.q.val() {
                self.popped.d.next.ok = false;
                self.popped.d.next.qpn = self.x_qpn.o.val();
                self.popped.d.next.cqn = self.ent.val().cqn;
                self.popped.d.next.index = self.ci.val();
                if !self.qv_r.q.val() | (self.pi.val() == self.ci.val()) {
                    self.ns4.next = self.k_s_pout.v.val();
                    if self.is_fl.q.val() {
                        // The flush is done: nothing to answer.
                        self.ns4.next = self.k_s_idle.v.val();
                        self.fl_pend.d.next = false;
                    }
                } else {
                    // S5 looks the RQE up in the cache.
                    self.ns4.next = self.k_s_5.v.val();
                }
            } else {
                // (The packet's check fields: under `pk4`, below.)
                // The packet is done unless it needs its RQE: it waits on the output, the FSM is free.
                self.ns4.next = self.k_s_idle.v.val();
                self.opend.d.next = true;
                if self.ex_send.q.val() {
                    if self.bad_off.q.val() {
                        self.meta.d.next.drop = self.k_drop_invalid.v.val();
                    } else if self.qv_r.q.val() & self.hit_p.q.val() {
                        // Cached (read for an earlier packet of the message, or prefetched: posted and not
                        // consumed); the next RQE is prefetched.
                        self.pf_v.d.next = true;
                        self.pf_conn.d.next = self.conn_r.q.val();
                        self.pf_qp.d.next = self.qp_r.q.val();
                        self.pf_idx.d.next = self.idx.val() + self.k_one16.v.val();
                    } else if !self.qv_r.q.val() | (self.k.val() >= (self.pi.val() - self.ci.val()))
                    {
                        if self.too_far.val() & self.qv_r.q.val() {
                            self.meta.d.next.drop = self.k_drop_invalid.v.val();
                        }
                    } else if (self.pf_fly.q.val() | self.pf_done.q.val())
                        & (self.pf_fqp.q.val() == self.x_qp16.o.val())
                        & (self.pf_fidx.q.val() == self.idx.val())
                    {
                        // Its RQE is the prefetch in flight: looked up again until that fills the cache. Also
                        // when the answer came in the lookup's own cycle (the lookup did not see the fill, and
                        // the prefetch is no longer in flight): a read would fetch the RQE a second time.
                        self.ns4.next = self.k_s_3.v.val();
                        self.opend.d.next = false;
                    } else {
                        self.ns4.next = self.k_s_desc.v.val();
                        self.opend.d.next = false;
                    }
                }
            }
        }
        // S5 (pops): the consumed RQE cached gives its wr_id without a read, and the entry is emptied; else it
        // is read (the descriptor was set at S4; the QP's indices are still on the RAM outputs).
        if self.state.q.val() == self.k_s_5.v.val() {
            if self.hit_p.q.val() {
                self.popped.d.next.ok = true;
                self.popped.d.next.wr_id = self.c_sel.val().wr_id;
                self.c_wr.next = true;
                self.c_new.next.v = false;
                self.ci_wr.d.next = true;
                self.ci_new.d.next = self.ci.val() + self.k_one16.v.val();
                self.state.d.next = self.k_s_pout.v.val();
            } else {
                self.state.d.next = self.k_s_desc.v.val();
                // A prefetch in flight may be of this RQE: its answer must not cache a consumed RQE.
                self.pf_drop.d.next = true;
            }
        }
        self.m_axis_dma_rd_desc_tdata.next = self.desc.q.val();
        self.m_axis_dma_rd_desc_tvalid.next = self.state.q.val() == self.k_s_desc.v.val();
        if (self.state.q.val() == self.k_s_desc.v.val()) & self.m_axis_dma_rd_desc_tready.val() {
            self.state.d.next = self.k_s_rd.v.val();
            if self.is_pf.q.val() {
                // A prefetch does not hold the FSM: its answer is taken beside the other requests.
                self.state.d.next = self.k_s_idle.v.val();
                self.pf_fly.d.next = true;
                self.pf_drop.d.next = false;
            }
        }
        self.rqe.next = self.s_axis_dma_rd_tdata.val().get_bits::<256>(0);
        // What a fill writes into the cache. A fill takes the slot and index from the register that holds them
        // (`pf_idx`, `chk.rqe_index`): the same values as `idx`, whose kind multiplexer would add a logic level
        // in front of the cache's write enables.
        self.c_fill.next.v = true;
        self.c_fill.next.qp = self.x_qp16.o.val();
        self.c_fill.next.idx = self.idx.val();
        self.c_fill.next.addr = self.rqe.val().get_bits::<64>(self.k_r_addr.v.val().index());
        self.c_fill.next.len = self.rqe.val().get_bits::<32>(self.k_r_len.v.val().index());
        self.c_fill.next.lkey = self.rqe.val().get_bits::<32>(self.k_r_lkey.v.val().index());
        self.c_fill.next.wr_id = self
            .rqe
            .val()
            .get_bits::<64>(self.k_r_wr_id.v.val().index());
        // Answers come in request order: while a prefetch is in flight the next answer is its own. It waits
        // while a pop's S5 writes the cache (one write port).
        self.pf_take.next = self.pf_fly.q.val() & (self.state.q.val() != self.k_s_5.v.val());
        self.s_axis_dma_rd_tready.next = self.pf_take.val()
            | ((self.state.q.val() == self.k_s_rd.v.val()) & !self.pf_fly.q.val());
        self.pf_done.d.next = false;
        if self.pf_take.val() & self.s_axis_dma_rd_tvalid.val() {
            self.pf_done.d.next = self.s_axis_dma_rd_tlast.val();
            if !self.pf_drop.q.val() {
                self.c_wr.next = true;
                self.c_wslot.next = self.pf_fidx.q.val().get_bits::<3>(0);
                self.c_new.next = self.c_fill.val();
                self.c_new.next.qp = self.pf_fqp.q.val();
                self.c_new.next.idx = self.pf_fidx.q.val();
            }
            if self.s_axis_dma_rd_tlast.val() {
                self.pf_fly.d.next = false;
                // The prefetch goes on with the next index, so that the RQEs of every message a connection
                // may have in flight are cached before their packets arrive (one overtaking its predecessors
                // included), unless another prefetch is scheduled.
                if !self.pf_drop.q.val() & !self.pf_v.q.val() {
                    self.pf_v.d.next = true;
                    self.pf_conn.d.next = self.pf_fconn.q.val();
                    self.pf_qp.d.next = self.pf_fqpb.q.val();
                    self.pf_idx.d.next = self.pf_fidx.q.val() + self.k_one16.v.val();
                }
            }
        }
        if (self.state.q.val() == self.k_s_rd.v.val())
            & !self.pf_fly.q.val()
            & self.s_axis_dma_rd_tvalid.val()
        {
            if self.is_ci.q.val() {
                self.popped.d.next.ok = true;
                self.popped.d.next.wr_id = self
                    .rqe
                    .val()
                    .get_bits::<64>(self.k_r_wr_id.v.val().index());
                self.ci_wr.d.next = true;
                self.ci_new.d.next = self.popped.q.val().index + self.k_one16.v.val();
                if self.s_axis_dma_rd_tlast.val() {
                    self.state.d.next = self.k_s_pout.v.val();
                }
            } else {
                self.chk.d.next.rqe_ok = true;
                self.chk.d.next.rqe_addr =
                    self.rqe.val().get_bits::<64>(self.k_r_addr.v.val().index());
                self.chk.d.next.rqe_len =
                    self.rqe.val().get_bits::<32>(self.k_r_len.v.val().index());
                self.chk.d.next.rqe_lkey =
                    self.rqe.val().get_bits::<32>(self.k_r_lkey.v.val().index());
                self.c_wr.next = true;
                self.c_wslot.next = self.chk.q.val().rqe_index.get_bits::<3>(0);
                self.c_new.next = self.c_fill.val();
                self.c_new.next.idx = self.chk.q.val().rqe_index;
                self.pf_v.d.next = true;
                self.pf_conn.d.next = self.conn_r.q.val();
                self.pf_qp.d.next = self.qp_r.q.val();
                self.pf_idx.d.next = self.chk.q.val().rqe_index + self.k_one16.v.val();
                if self.s_axis_dma_rd_tlast.val() {
                    self.state.d.next = self.k_s_idle.v.val();
                    self.opend.d.next = true;
                }
            }
        }
        self.m_axis_pkt_tdata.next = self.meta.q.val();
        self.m_axis_pkt_tuser.next = self.chk.q.val();
        self.m_axis_pkt_tvalid.next = self.opend.q.val();
        if self.opend.q.val() & self.m_axis_pkt_tready.val() {
            self.opend.d.next = false;
        }
        // A pop's answer, or a flush step's RQE.
        self.m_axis_popped_tdata.next = self.popped.q.val();
        self.m_axis_popped_tvalid.next =
            (self.state.q.val() == self.k_s_pout.v.val()) & !self.is_fl.q.val();
        self.m_axis_flushed_tdata.next = self.popped.q.val();
        self.m_axis_flushed_tvalid.next =
            (self.state.q.val() == self.k_s_pout.v.val()) & self.is_fl.q.val();
        if (self.state.q.val() == self.k_s_pout.v.val())
            & ((self.m_axis_popped_tready.val() & !self.is_fl.q.val())
                | (self.m_axis_flushed_tready.val() & self.is_fl.q.val()))
        {
            self.state.d.next = self.k_s_idle.v.val();
        }
        // A request taken in IDLE starts the lookup, and S4 goes where it decided (`ns4`). Written last: the
        // other states' transitions are exclusive with them, and their decisions on the cycle's inputs then
        // pass through none of them.
        if self.take_o.val()
            | self.take_q.val()
            | self.take_f.val()
            | self.take_p.val()
            | self.take_fl.val()
        {
            self.state.d.next = self.k_s_1.v.val();
        }
        if self.state.q.val() == self.k_s_4.v.val() {
            self.state.d.next = self.ns4.val();
        }
        self.ex_send.d.next = self.examined.val() & self.is_send.val();
        self.ex_wimm.d.next = self.examined.val() & (self.op.val() == self.k_op_write_imm.v.val());
        // S4 of a packet: its check fields (the same decisions as the packet branch above).
        self.pk4.d.next = (self.state.q.val() == self.k_s_3.v.val())
            & (self.kind.q.val() != self.k_k_open.v.val())
            & !self.is_pf.q.val()
            & !self.is_ci.q.val();
        if self.pk4.q.val() {
            self.chk.d.next.rq_empty = !self.qv_r.q.val() | (self.pi.val() == self.ci.val());
            if self.ex_wimm.q.val() {
                // The completion stage's WRITE_IMM RNR NACK (MR-SEM-20) carries this aux.
                self.chk.d.next.aux = self.cfg_rnr_timer_us.val();
            }
            if self.ex_send.q.val() {
                self.chk.d.next.rqe_index = self.idx.val();
                if self.bad_off.q.val() {
                    self.chk.d.next.nack = true;
                    self.chk.d.next.fail = true;
                    self.chk.d.next.code = self.k_nack_invalid.v.val();
                    self.chk.d.next.aux = self.meta.q.val().msn;
                } else if self.qv_r.q.val() & self.hit_p.q.val() {
                    self.chk.d.next.rqe_ok = true;
                    self.chk.d.next.rqe_addr = self.c_sel.val().addr;
                    self.chk.d.next.rqe_len = self.c_sel.val().len;
                    self.chk.d.next.rqe_lkey = self.c_sel.val().lkey;
                } else if !self.qv_r.q.val() | (self.k.val() >= (self.pi.val() - self.ci.val())) {
                    self.chk.d.next.nack = true;
                    if self.too_far.val() & self.qv_r.q.val() {
                        self.chk.d.next.fail = true;
                        self.chk.d.next.code = self.k_nack_invalid.v.val();
                        self.chk.d.next.aux = self.meta.q.val().msn;
                    } else {
                        self.chk.d.next.code = self.k_nack_rnr.v.val();
                        self.chk.d.next.aux = self.cfg_rnr_timer_us.val();
                    }
                }
            }
        }
        if self.rst.val() {
            self.pk4.d.next = false;
            self.state.d.next = self.k_s_idle.v.val();
            self.kick_v.d.next = false;
            self.opend.d.next = false;
            self.ci_wr.d.next = false;
            self.fl_pend.d.next = false;
            self.fl_turn.d.next = false;
        }
        // The cache's write port.
        if self.c_wr.val() {
            if self.c_wslot.val() == 0 {
                self.ce0.d.next = self.c_new.val();
            }
            if self.c_wslot.val() == 1 {
                self.ce1.d.next = self.c_new.val();
            }
            if self.c_wslot.val() == 2 {
                self.ce2.d.next = self.c_new.val();
            }
            if self.c_wslot.val() == 3 {
                self.ce3.d.next = self.c_new.val();
            }
            if self.c_wslot.val() == 4 {
                self.ce4.d.next = self.c_new.val();
            }
            if self.c_wslot.val() == 5 {
                self.ce5.d.next = self.c_new.val();
            }
            if self.c_wslot.val() == 6 {
                self.ce6.d.next = self.c_new.val();
            }
            if self.c_wslot.val() == 7 {
                self.ce7.d.next = self.c_new.val();
            }
        }
        // A QP context write (the RQ may have moved) empties the RQE cache.
        if self.ctx_qp.val() | self.rst.val() {
            self.ce0.d.next.v = false;
            self.ce1.d.next.v = false;
            self.ce2.d.next.v = false;
            self.ce3.d.next.v = false;
            self.ce4.d.next.v = false;
            self.ce5.d.next.v = false;
            self.ce6.d.next.v = false;
            self.ce7.d.next.v = false;
            self.pf_v.d.next = false;
            self.hit_p.d.next = false;
            self.pf_drop.d.next = true;
        }
        if self.rst.val() {
            self.pf_fly.d.next = false;
        }
    }
}

/// The block list entries of this file.
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![crate::blocks::BlockSpec {
        name: "metaroce_rx_recv_queue",
        area: "rx",
        description:
            "RQ state and doorbells, RQE fetch for SEND (SSN) with an 8-entry cache and prefetch, RNR verdicts, RQE consumption, RQ flush",
        verilog: |_cfg| {
            crate::gen::verilog(
                "metaroce_rx_recv_queue",
                RecvQueue::<512, 64, 14, 12>::new(),
            )
        },
    }]
}
