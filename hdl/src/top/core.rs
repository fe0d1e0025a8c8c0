//! `metaroce_core`: the NIC core, joining the pipelines behind one register bus, one DMA interface and the
//! MAC-side streams (see `docs/hardware.md` for the block diagram and the interfaces).
//!
//! Internal register bus windows (byte addresses of the AXI-Lite port, BAR 0):
//!
//! | window | what |
//! |---|---|
//! | `0x00000..0x01000` | the register blocks of `metaroce_regmap::block::DEFAULT_MAP` ([`super::regfile`]) |
//! | `0x10000..0x30000` | QP doorbell pages (`queues::DEFAULT_QP_DB_BASE`): SQ to the transmit engine, RQ to the receive queue |
//! | `0x30000..0x40000` | CQ doorbell pages (`queues::DEFAULT_CQ_DB_BASE`) to the CQ writer |
//! | `0x40000..0x60000` | the control processor's image window (`metaroce_regmap::control`; write-only, while the processor is stopped) |
//! | `0x70000..0x80000` | the context-programming window ([`crate::ctx::ctx_port`]) |
//!
//! Each window's blocks see window-relative addresses. Reads of the doorbell windows answer 0 at once (they are
//! write-only); reads nobody answers end in the bridge's timeout (SLVERR, all ones).

use crate::common::reg_slice::RegSlice;
use crate::common::zext::Zext;
use crate::cpu::control_cpu::ControlCpu;
use crate::dma::DmaDesc;
use crate::records::{Completion, PktMeta};
use crate::rx::records::ReadReq;
use crate::top::axil::AxilBridge;
use crate::top::clock::TimeBase;
use crate::top::counter_events::CounterEvents;
use crate::top::dma_mux::{DmaReadMux, DmaWriteMux};
use crate::top::endpoint_cfg::EndpointCfg;
use crate::top::open_fanout::OpenFanout;
use crate::top::peer_order::PeerOrder;
use crate::top::regfile::{RegFile, CNT_INC_BITS};
use crate::CoreConfig;
use rust_hdl::prelude::*;

/// A packet from the receive engine to placement, with the window's decision on it (the record the
/// placement's register slice carries).
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
struct PlaceRec {
    /// The packet.
    meta: PktMeta,
    /// The receive window's decision.
    win: WinInfo,
}

/// Start of the QP doorbell window.
pub const QP_DB_WINDOW: u32 = metaroce_regmap::queues::DEFAULT_QP_DB_BASE;
/// Start of the CQ doorbell window.
pub const CQ_DB_WINDOW: u32 = metaroce_regmap::queues::DEFAULT_CQ_DB_BASE;
/// Start of the context-programming window.
pub const CTX_WINDOW: u32 = metaroce_regmap::ctxport::WINDOW;
// The image window's literals in `update` (hdl_gen code takes literals) are regmap's.
const _: () = assert!(
    metaroce_regmap::control::IMAGE_WINDOW == 0x4_0000
        && metaroce_regmap::fwbus::RAM_BYTES == 0x2_0000
);

use crate::ctx::ctx_port::CtxPort;
use crate::rel::records::{ConnFail, QpError};
use crate::rel::resp_timer::RespTimer;
use crate::rel::sender_engine::SenderEngine;
use crate::rx::completion::{ReadDone, RxCompletion};
use crate::rx::cq_writer::CqWriter;
use crate::rx::drop;
use crate::rx::mr_check::{MrCheck, RxCheck};
use crate::rx::parser::Parser;
use crate::rx::placement::Placement;
use crate::rx::psn_window::{NackReq, WinInfo};
use crate::rx::read_table::ReadTable;
use crate::rx::recv_queue::RecvQueue;
use crate::rx::rx_engine::RxEngine;
use crate::tx::frame_build::FrameBuild;
use crate::tx::tx_engine::TxEngine;
use metaroce_proto::wire::Opcode;
use metaroce_regmap::descriptor::cqe::{CqeOpcode, CqeStatus};

/// log2 of the receive message slots per connection (the model's `max_outstanding_msgs` in hardware).
pub const MSG_BITS: usize = 3;
// The transmit engine's `cfg_max_started` (a literal in the generated code) is `2^MSG_BITS`.
const _: () = assert!(1 << MSG_BITS == 8);
/// log2 of the memory-region table entries.
pub const MR_BITS: usize = 12;
/// log2 of the transmit engine's message pool.
pub const POOL_BITS: u32 = 12;
/// Bytes of the parser's store-and-forward frame FIFO: a frame is admitted while at most half of it is taken,
/// so frames up to 16 KiB (the 8 KiB largest payload with room to spare) always fit, and 16 KiB of frames
/// waiting for the receive engine are absorbed before the parser discards any (`rx_overflows`).
pub const RX_FIFO_BYTES: usize = 32 * 1024;

/// The NIC core: `DW`-bit datapath (`KW = DW / 8`), `2^CB` connections, `2^QB` queue pairs and CQs, `SA = CB +
/// MSG_BITS`.
#[derive(LogicBlock)]
pub struct MetaroceCore<
    const DW: usize,
    const KW: usize,
    const CB: usize,
    const QB: usize,
    const SA: usize,
> {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// AXI-Lite write address.
    pub s_axil_awaddr: Signal<In, Bits<24>>,
    /// AXI-Lite write address valid.
    pub s_axil_awvalid: Signal<In, Bit>,
    /// AXI-Lite write address ready.
    pub s_axil_awready: Signal<Out, Bit>,
    /// AXI-Lite write data.
    pub s_axil_wdata: Signal<In, Bits<32>>,
    /// AXI-Lite write strobes.
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    /// AXI-Lite write data valid.
    pub s_axil_wvalid: Signal<In, Bit>,
    /// AXI-Lite write data ready.
    pub s_axil_wready: Signal<Out, Bit>,
    /// AXI-Lite write response.
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    /// AXI-Lite write response valid.
    pub s_axil_bvalid: Signal<Out, Bit>,
    /// AXI-Lite write response ready.
    pub s_axil_bready: Signal<In, Bit>,
    /// AXI-Lite read address.
    pub s_axil_araddr: Signal<In, Bits<24>>,
    /// AXI-Lite read address valid.
    pub s_axil_arvalid: Signal<In, Bit>,
    /// AXI-Lite read address ready.
    pub s_axil_arready: Signal<Out, Bit>,
    /// AXI-Lite read data.
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    /// AXI-Lite read response.
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    /// AXI-Lite read data valid.
    pub s_axil_rvalid: Signal<Out, Bit>,
    /// AXI-Lite read data ready.
    pub s_axil_rready: Signal<In, Bit>,
    /// MAC receive data.
    pub s_axis_rx_tdata: Signal<In, Bits<DW>>,
    /// MAC receive keep.
    pub s_axis_rx_tkeep: Signal<In, Bits<KW>>,
    /// MAC receive last.
    pub s_axis_rx_tlast: Signal<In, Bit>,
    /// MAC receive: bad frame.
    pub s_axis_rx_tuser: Signal<In, Bit>,
    /// MAC receive valid.
    pub s_axis_rx_tvalid: Signal<In, Bit>,
    /// MAC receive ready: always 1 (a MAC cannot wait; frames without buffer room are discarded and counted
    /// as `rx_overflows`).
    pub s_axis_rx_tready: Signal<Out, Bit>,
    /// MAC transmit data.
    pub m_axis_tx_tdata: Signal<Out, Bits<DW>>,
    /// MAC transmit keep.
    pub m_axis_tx_tkeep: Signal<Out, Bits<KW>>,
    /// MAC transmit last.
    pub m_axis_tx_tlast: Signal<Out, Bit>,
    /// MAC transmit: abort the frame.
    pub m_axis_tx_tuser: Signal<Out, Bit>,
    /// MAC transmit valid.
    pub m_axis_tx_tvalid: Signal<Out, Bit>,
    /// MAC transmit ready.
    pub m_axis_tx_tready: Signal<In, Bit>,
    /// DMA read descriptor.
    pub m_axis_dma_rd_desc_tdata: Signal<Out, DmaDesc>,
    /// DMA read descriptor valid.
    pub m_axis_dma_rd_desc_tvalid: Signal<Out, Bit>,
    /// DMA read descriptor ready.
    pub m_axis_dma_rd_desc_tready: Signal<In, Bit>,
    /// DMA read data.
    pub s_axis_dma_rd_tdata: Signal<In, Bits<DW>>,
    /// DMA read keep.
    pub s_axis_dma_rd_tkeep: Signal<In, Bits<KW>>,
    /// DMA read last beat of a descriptor.
    pub s_axis_dma_rd_tlast: Signal<In, Bit>,
    /// DMA read tag.
    pub s_axis_dma_rd_tuser: Signal<In, Bits<16>>,
    /// DMA read data valid.
    pub s_axis_dma_rd_tvalid: Signal<In, Bit>,
    /// DMA read data ready.
    pub s_axis_dma_rd_tready: Signal<Out, Bit>,
    /// DMA write descriptor.
    pub m_axis_dma_wr_desc_tdata: Signal<Out, DmaDesc>,
    /// DMA write descriptor valid.
    pub m_axis_dma_wr_desc_tvalid: Signal<Out, Bit>,
    /// DMA write descriptor ready.
    pub m_axis_dma_wr_desc_tready: Signal<In, Bit>,
    /// DMA write data.
    pub m_axis_dma_wr_tdata: Signal<Out, Bits<DW>>,
    /// DMA write keep.
    pub m_axis_dma_wr_tkeep: Signal<Out, Bits<KW>>,
    /// DMA write last beat.
    pub m_axis_dma_wr_tlast: Signal<Out, Bit>,
    /// DMA write data valid.
    pub m_axis_dma_wr_tvalid: Signal<Out, Bit>,
    /// DMA write data ready.
    pub m_axis_dma_wr_tready: Signal<In, Bit>,
    /// DMA write done tag.
    pub s_axis_dma_wr_done_tdata: Signal<In, Bits<16>>,
    /// DMA write done valid.
    pub s_axis_dma_wr_done_tvalid: Signal<In, Bit>,
    /// A CQ interrupt request (one cycle) ...
    pub irq_cq_req: Signal<Out, Bit>,
    /// ... on this MSI-X vector.
    pub irq_cq_vector: Signal<Out, Bits<16>>,
    /// Pending and enabled IRQ causes (the ASYNC_VECTOR interrupt while non-zero).
    pub irq_pending: Signal<Out, Bits<32>>,
    /// ID.GIT_HASH (stamped by the board build).
    pub git_hash: Signal<In, Bits<32>>,
    /// ID.BUILD_TIME (stamped by the board build).
    pub build_time: Signal<In, Bits<32>>,
    /// Exception packets (connection opens, restarts, NO_CONTEXT answers) while the control processor is
    /// stopped (`CONTROL.CTRL.run = 0`), for a control plane outside the core; while it runs, they go to it.
    pub m_axis_exc_tdata: Signal<Out, PktMeta>,
    /// Exception valid.
    pub m_axis_exc_tvalid: Signal<Out, Bit>,
    /// Exception ready.
    pub m_axis_exc_tready: Signal<In, Bit>,
    /// A QP entered ERROR ([`QpError`]: connection, status of the failing WR and its MSN; the send queue was
    /// flushed, MR-SEM-38): retry limit (MR-REL-55), RNR retry limit (MR-SEM-30), a fatal NACK (MR-SEM-35), an
    /// invalid READ response or a READ's local buffer failing its check (MR-SEM-34), a READ response timed out
    /// beyond the retry limit (MR-REL-58). Out of the core while the control processor is stopped; while it
    /// runs, the reports go to it (its event port).
    pub m_axis_conn_err_tdata: Signal<Out, QpError>,
    /// Connection failure valid.
    pub m_axis_conn_err_tvalid: Signal<Out, Bit>,
    /// Connection failure ready.
    pub m_axis_conn_err_tready: Signal<In, Bit>,
    /// The network port's status from the board's MAC and module cage (`metaroce_regmap::fwbus::PortStatus`
    /// bits: link up, module present, module fault), for the firmware.
    pub port_status: Signal<In, Bits<8>>,
    /// The transceiver module's management bus (two-wire, open drain), driven by the firmware: the SCL line as
    /// the board's buffer reads it.
    pub i2c_scl_i: Signal<In, Bit>,
    /// The SDA line.
    pub i2c_sda_i: Signal<In, Bit>,
    /// Pull SCL low (else the buffer releases it; the board's pull-up makes it high).
    pub i2c_scl_oe: Signal<Out, Bit>,
    /// Pull SDA low.
    pub i2c_sda_oe: Signal<Out, Bit>,
    /// The control processor's console: a byte (one cycle).
    pub fw_console_valid: Signal<Out, Bit>,
    /// The byte.
    pub fw_console_data: Signal<Out, Bits<8>>,
    /// The control processor stopped on a trap.
    pub fw_trap: Signal<Out, Bit>,
    /// Sticky: an SQ doorbell was lost because the doorbell FIFO was full.
    pub stat_db_drop: Signal<Out, Bit>,
    /// Sticky: a work request was posted to a closed connection.
    pub stat_wr_closed: Signal<Out, Bit>,
    /// Nanoseconds since reset (the core's time base).
    pub now: Signal<Out, Bits<64>>,
    timebase: TimeBase,
    bridge: AxilBridge,
    regs: RegFile,
    cpu: ControlCpu,
    epc: EndpointCfg,
    ctxp: CtxPort,
    fan: OpenFanout,
    parser: Parser<DW, KW>,
    rxe: RxEngine<DW, KW>,
    rq: RecvQueue<DW, KW, CB, QB>,
    rdt: ReadTable<CB, MSG_BITS, SA>,
    mrc: MrCheck<MR_BITS>,
    cpl: RxCompletion<CB, MSG_BITS, SA>,
    /// The receive engine's packets to placement pass a register slice (no handshake or decision of the one
    /// chains into the other's).
    place_in: RegSlice<PlaceRec>,
    /// The receive engine's exception packets pass a register slice on their way to the control processor or
    /// out of the core (the lookup's decision does not chain into the processor's packet-port queue).
    exc_out: RegSlice<PktMeta>,
    /// ACKs and NACKs from the receive engine to the sender engine pass a register slice (the sender
    /// engine's choice of its next command does not chain into the receive engine's pipeline).
    fb_in: RegSlice<PktMeta>,
    /// The records the firmware replays pass a register slice into the receive path (the receive engine's
    /// stalls do not chain into the control processor's packet-port queue).
    rpl_in: RegSlice<PktMeta>,
    /// The receive engine's ACKs and NACKs to send pass a register slice into the transmit engine (the
    /// transmit datapath's readiness does not chain into the counters or the receive engine).
    ctl_in: RegSlice<PktMeta>,
    /// The READ requests to answer pass a register slice from the receive completions into the transmit
    /// engine (the scheduler's state does not chain into the completion stage's state).
    rreq_in: RegSlice<ReadReq>,
    place: Placement<DW, KW>,
    cqw: CqWriter<DW, KW, QB>,
    txe: TxEngine<DW, KW>,
    snd: SenderEngine,
    rsp: RespTimer,
    order: PeerOrder,
    fb: FrameBuild<DW, KW>,
    rdm_tx: DmaReadMux<DW, KW>,
    rdm: DmaReadMux<DW, KW>,
    /// Read descriptors pass a register slice into the last read multiplexer from each of its inputs (the
    /// multiplexers' grants and order queues do not chain).
    rd_desc_a: RegSlice<DmaDesc>,
    /// See `rd_desc_a`.
    rd_desc_b: RegSlice<DmaDesc>,
    wrm: DmaWriteMux<DW, KW>,
    cnt: CounterEvents<KW>,
    rd_default: DFF<Bit>,
    fw_lock: DFF<Bit>,
    eng_lock: DFF<Bit>,
    /// The parser offered a packet to the receive engine that was not taken: it keeps the input until it is,
    /// so a record the firmware replays waits.
    meta_stall: DFF<Bit>,
    /// The receive engine's input is the firmware's replayed record this cycle.
    rpl_sel: Signal<Local, Bit>,
    ctl_fw: Signal<Local, Bit>,
    /// A READ response that failed its check (MR-SEM-34), waiting for the scheduler.
    rrf: DFF<ConnFail>,
    rrf_v: DFF<Bit>,
    /// The counter increments, registered on their way to the register file (a counter lags its event by a
    /// cycle; the events' sources, deep in their own blocks, do not chain into the counters' adders).
    cnt_q: DFF<Bits<CNT_INC_BITS>>,
    bad_rr: Signal<Local, Bit>,
    /// The receive completion going to the CQ writer: the completion stage's, or a flushed RQE's (registered,
    /// so both sources reach the writer in the order they were taken).
    rc: DFF<Completion>,
    rc_u: DFF<Bits<32>>,
    rc_v: DFF<Bit>,
    c_cqe_recv: Constant<Bits<8>>,
    x_fl_idx: Zext<16, 32>,
    x_fl_pkt: Zext<16, 32>,
    /// Completed READ responses waiting for placement to write their data (a two-entry queue, head `rq0`):
    /// each with the packet number after which it completed.
    rq0: DFF<ReadDone>,
    rq0_n: DFF<Bits<16>>,
    rq0_v: DFF<Bit>,
    rq1: DFF<ReadDone>,
    rq1_n: DFF<Bits<16>>,
    rq1_v: DFF<Bit>,
    /// Placement's safe count minus the head's packet number (bit 15 clear: its data is written).
    rd_diff: Signal<Local, Bits<16>>,
    rd_pop: Signal<Local, Bit>,
    rd_push: Signal<Local, Bit>,
    rd_v0: Signal<Local, Bit>,
    c_op_rresp: Constant<Bits<8>>,
    c_drop_access: Constant<Bits<8>>,
    c_drop_invalid: Constant<Bits<8>>,
    c_st_rop: Constant<Bits<8>>,
    c_st_lprot: Constant<Bits<8>>,
    c_st_retry: Constant<Bits<8>>,
    c_st_flushed: Constant<Bits<8>>,
    in_regs_rd: Signal<Local, Bit>,
    in_ctx_rd: Signal<Local, Bit>,
    img_off: Signal<Local, Bits<24>>,
    chk_meta: Signal<Local, PktMeta>,
    chk_user: Signal<Local, NackReq>,
    chk_rx: Signal<Local, RxCheck>,
    place_user: Signal<Local, RxCheck>,
    win: Signal<Local, WinInfo>,
    place_meta: Signal<Local, PktMeta>,
    has_pay: Signal<Local, Bit>,
    place_go: Signal<Local, Bit>,
    open_rx_only: Signal<Local, Bit>,
}

impl<const DW: usize, const KW: usize, const CB: usize, const QB: usize, const SA: usize>
    MetaroceCore<DW, KW, CB, QB, SA>
{
    /// The core of a configuration (`cfg.conn_bits == CB`, `cfg.qp_bits == QB`, `cfg.mr_bits == MR_BITS`).
    pub fn new(cfg: &CoreConfig) -> Self {
        assert!(cfg.conn_bits as usize == CB && cfg.qp_bits as usize == QB && SA == CB + MSG_BITS);
        MetaroceCore {
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
            s_axis_rx_tdata: Default::default(),
            s_axis_rx_tkeep: Default::default(),
            s_axis_rx_tlast: Default::default(),
            s_axis_rx_tuser: Default::default(),
            s_axis_rx_tvalid: Default::default(),
            s_axis_rx_tready: Default::default(),
            m_axis_tx_tdata: Default::default(),
            m_axis_tx_tkeep: Default::default(),
            m_axis_tx_tlast: Default::default(),
            m_axis_tx_tuser: Default::default(),
            m_axis_tx_tvalid: Default::default(),
            m_axis_tx_tready: Default::default(),
            m_axis_dma_rd_desc_tdata: Default::default(),
            m_axis_dma_rd_desc_tvalid: Default::default(),
            m_axis_dma_rd_desc_tready: Default::default(),
            s_axis_dma_rd_tdata: Default::default(),
            s_axis_dma_rd_tkeep: Default::default(),
            s_axis_dma_rd_tlast: Default::default(),
            s_axis_dma_rd_tuser: Default::default(),
            s_axis_dma_rd_tvalid: Default::default(),
            s_axis_dma_rd_tready: Default::default(),
            m_axis_dma_wr_desc_tdata: Default::default(),
            m_axis_dma_wr_desc_tvalid: Default::default(),
            m_axis_dma_wr_desc_tready: Default::default(),
            m_axis_dma_wr_tdata: Default::default(),
            m_axis_dma_wr_tkeep: Default::default(),
            m_axis_dma_wr_tlast: Default::default(),
            m_axis_dma_wr_tvalid: Default::default(),
            m_axis_dma_wr_tready: Default::default(),
            s_axis_dma_wr_done_tdata: Default::default(),
            s_axis_dma_wr_done_tvalid: Default::default(),
            irq_cq_req: Default::default(),
            irq_cq_vector: Default::default(),
            irq_pending: Default::default(),
            git_hash: Default::default(),
            build_time: Default::default(),
            m_axis_exc_tdata: Default::default(),
            m_axis_exc_tvalid: Default::default(),
            m_axis_exc_tready: Default::default(),
            m_axis_conn_err_tdata: Default::default(),
            m_axis_conn_err_tvalid: Default::default(),
            m_axis_conn_err_tready: Default::default(),
            port_status: Default::default(),
            i2c_scl_i: Default::default(),
            i2c_sda_i: Default::default(),
            i2c_scl_oe: Default::default(),
            i2c_sda_oe: Default::default(),
            fw_console_valid: Default::default(),
            fw_console_data: Default::default(),
            fw_trap: Default::default(),
            stat_db_drop: Default::default(),
            stat_wr_closed: Default::default(),
            now: Default::default(),
            timebase: Default::default(),
            bridge: Default::default(),
            regs: RegFile::new(cfg),
            cpu: ControlCpu::default(),
            epc: Default::default(),
            ctxp: CtxPort::new(),
            fan: Default::default(),
            parser: Parser::new(RX_FIFO_BYTES / KW),
            rxe: RxEngine::new(cfg.conn_bits),
            rq: RecvQueue::new(),
            rdt: ReadTable::new(),
            mrc: MrCheck::new(cfg.mr_bits),
            cpl: RxCompletion::new(),
            place_in: Default::default(),
            exc_out: Default::default(),
            fb_in: Default::default(),
            rpl_in: Default::default(),
            ctl_in: Default::default(),
            rreq_in: Default::default(),
            rd_desc_a: Default::default(),
            rd_desc_b: Default::default(),
            place: Default::default(),
            cqw: CqWriter::new(),
            txe: TxEngine::new(cfg.conn_bits, cfg.qp_bits, POOL_BITS),
            snd: SenderEngine::new(cfg.conn_bits, cfg.send_slot_bits),
            rsp: RespTimer::new(cfg.conn_bits),
            order: Default::default(),
            fb: FrameBuild::new(),
            rdm_tx: Default::default(),
            rdm: Default::default(),
            wrm: Default::default(),
            cnt: Default::default(),
            rd_default: Default::default(),
            fw_lock: Default::default(),
            eng_lock: Default::default(),
            meta_stall: Default::default(),
            rpl_sel: Default::default(),
            ctl_fw: Default::default(),
            rrf: Default::default(),
            rrf_v: Default::default(),
            cnt_q: Default::default(),
            rc: Default::default(),
            rc_u: Default::default(),
            rc_v: Default::default(),
            c_cqe_recv: Constant::new((CqeOpcode::Recv as u64).into()),
            x_fl_idx: Default::default(),
            x_fl_pkt: Default::default(),
            bad_rr: Default::default(),
            rq0: Default::default(),
            rq0_n: Default::default(),
            rq0_v: Default::default(),
            rq1: Default::default(),
            rq1_n: Default::default(),
            rq1_v: Default::default(),
            rd_diff: Default::default(),
            rd_pop: Default::default(),
            rd_push: Default::default(),
            rd_v0: Default::default(),
            c_op_rresp: Constant::new((Opcode::ReadResp as u64).into()),
            c_drop_access: Constant::new((drop::ACCESS as u64).into()),
            c_drop_invalid: Constant::new((drop::INVALID as u64).into()),
            c_st_rop: Constant::new((CqeStatus::RemoteOperation as u64).into()),
            c_st_lprot: Constant::new((CqeStatus::LocalProtection as u64).into()),
            c_st_retry: Constant::new((CqeStatus::RetryExceeded as u64).into()),
            c_st_flushed: Constant::new((CqeStatus::Flushed as u64).into()),
            in_regs_rd: Default::default(),
            in_ctx_rd: Default::default(),
            img_off: Default::default(),
            chk_meta: Default::default(),
            chk_user: Default::default(),
            chk_rx: Default::default(),
            place_user: Default::default(),
            win: Default::default(),
            place_meta: Default::default(),
            has_pay: Default::default(),
            place_go: Default::default(),
            open_rx_only: Default::default(),
        }
    }
}

impl<const DW: usize, const KW: usize, const CB: usize, const QB: usize, const SA: usize> Logic
    for MetaroceCore<DW, KW, CB, QB, SA>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, rd_default, fw_lock, eng_lock, meta_stall, rrf, rrf_v, rq0, rq0_n, rq0_v,
            rq1, rq1_n, rq1_v, cnt_q
        );
        dff_setup!(self, clk, rc, rc_u, rc_v);
        self.timebase.clk.next = self.clk.val();
        self.bridge.clk.next = self.clk.val();
        self.regs.clk.next = self.clk.val();
        self.epc.clk.next = self.clk.val();
        self.ctxp.clk.next = self.clk.val();
        self.fan.clk.next = self.clk.val();
        self.parser.clk.next = self.clk.val();
        self.rxe.clk.next = self.clk.val();
        self.rq.clk.next = self.clk.val();
        self.rdt.clk.next = self.clk.val();
        self.mrc.clk.next = self.clk.val();
        self.cpl.clk.next = self.clk.val();
        self.place_in.clk.next = self.clk.val();
        self.exc_out.clk.next = self.clk.val();
        self.fb_in.clk.next = self.clk.val();
        self.rpl_in.clk.next = self.clk.val();
        self.ctl_in.clk.next = self.clk.val();
        self.rreq_in.clk.next = self.clk.val();
        self.rd_desc_a.clk.next = self.clk.val();
        self.rd_desc_b.clk.next = self.clk.val();
        self.place.clk.next = self.clk.val();
        self.cqw.clk.next = self.clk.val();
        self.txe.clk.next = self.clk.val();
        self.snd.clk.next = self.clk.val();
        self.rsp.clk.next = self.clk.val();
        self.fb.clk.next = self.clk.val();
        self.rdm_tx.clk.next = self.clk.val();
        self.rdm.clk.next = self.clk.val();
        self.wrm.clk.next = self.clk.val();
        // Resets.
        self.timebase.rst.next = self.rst.val();
        self.bridge.rst.next = self.rst.val();
        self.regs.rst.next = self.rst.val();
        self.ctxp.rst.next = self.rst.val();
        self.fan.rst.next = self.rst.val();
        self.parser.rst.next = self.rst.val();
        self.rxe.rst.next = self.rst.val();
        self.rq.rst.next = self.rst.val();
        self.rdt.rst.next = self.rst.val();
        self.mrc.rst.next = self.rst.val();
        self.cpl.rst.next = self.rst.val();
        self.place_in.rst.next = self.rst.val();
        self.exc_out.rst.next = self.rst.val();
        self.fb_in.rst.next = self.rst.val();
        self.rpl_in.rst.next = self.rst.val();
        self.ctl_in.rst.next = self.rst.val();
        self.rreq_in.rst.next = self.rst.val();
        self.rd_desc_a.rst.next = self.rst.val();
        self.rd_desc_b.rst.next = self.rst.val();
        self.place.rst.next = self.rst.val();
        self.cqw.rst.next = self.rst.val();
        self.txe.rst.next = self.rst.val();
        self.snd.rst.next = self.rst.val();
        self.rsp.rst.next = self.rst.val();
        self.fb.rst.next = self.rst.val();
        self.rdm_tx.rst.next = self.rst.val();
        self.rdm.rst.next = self.rst.val();
        self.wrm.rst.next = self.rst.val();

        // Time base and configuration.
        self.timebase.cfg_ns_per_cycle_q16.next = self.epc.cfg_clock_q16.val();
        self.now.next = self.timebase.now.val();
        self.epc.endpoint.next = self.regs.endpoint.val();

        // AXI-Lite and the internal bus.
        self.bridge.s_axil_awaddr.next = self.s_axil_awaddr.val();
        self.bridge.s_axil_awvalid.next = self.s_axil_awvalid.val();
        self.s_axil_awready.next = self.bridge.s_axil_awready.val();
        self.bridge.s_axil_wdata.next = self.s_axil_wdata.val();
        self.bridge.s_axil_wstrb.next = self.s_axil_wstrb.val();
        self.bridge.s_axil_wvalid.next = self.s_axil_wvalid.val();
        self.s_axil_wready.next = self.bridge.s_axil_wready.val();
        self.s_axil_bresp.next = self.bridge.s_axil_bresp.val();
        self.s_axil_bvalid.next = self.bridge.s_axil_bvalid.val();
        self.bridge.s_axil_bready.next = self.s_axil_bready.val();
        self.bridge.s_axil_araddr.next = self.s_axil_araddr.val();
        self.bridge.s_axil_arvalid.next = self.s_axil_arvalid.val();
        self.s_axil_arready.next = self.bridge.s_axil_arready.val();
        self.s_axil_rdata.next = self.bridge.s_axil_rdata.val();
        self.s_axil_rresp.next = self.bridge.s_axil_rresp.val();
        self.s_axil_rvalid.next = self.bridge.s_axil_rvalid.val();
        self.bridge.s_axil_rready.next = self.s_axil_rready.val();
        // Writes: each window's blocks see window-relative addresses.
        self.regs.bus_wr_en.next =
            self.bridge.bus_wr_en.val() & (self.bridge.bus_wr_addr.val() < 0x1000);
        self.regs.bus_wr_addr.next = self.bridge.bus_wr_addr.val();
        self.regs.bus_wr_data.next = self.bridge.bus_wr_data.val();
        self.txe.cfg_wr_en.next = self.bridge.bus_wr_en.val()
            & (self.bridge.bus_wr_addr.val() >= 0x1_0000)
            & (self.bridge.bus_wr_addr.val() < 0x3_0000);
        self.txe.cfg_wr_addr.next = self.bridge.bus_wr_addr.val() - 0x1_0000;
        self.txe.cfg_wr_data.next = self.bridge.bus_wr_data.val();
        self.rq.cfg_wr_en.next = self.txe.cfg_wr_en.val();
        self.rq.cfg_wr_addr.next = self.txe.cfg_wr_addr.val();
        self.rq.cfg_wr_data.next = self.bridge.bus_wr_data.val();
        self.cqw.cfg_wr_en.next = self.bridge.bus_wr_en.val()
            & (self.bridge.bus_wr_addr.val() >= 0x3_0000)
            & (self.bridge.bus_wr_addr.val() < 0x4_0000);
        self.cqw.cfg_wr_addr.next = self.bridge.bus_wr_addr.val() - 0x3_0000;
        self.cqw.cfg_wr_data.next = self.bridge.bus_wr_data.val();
        self.ctxp.cfg_wr_en.next = self.bridge.bus_wr_en.val()
            & (self.bridge.bus_wr_addr.val() >= 0x7_0000)
            & (self.bridge.bus_wr_addr.val() < 0x8_0000);
        self.ctxp.cfg_wr_addr.next = self.bridge.bus_wr_addr.val() - 0x7_0000;
        self.ctxp.cfg_wr_data.next = self.bridge.bus_wr_data.val();
        // Reads: the register file and the context port answer, the doorbell windows read 0 at once; a read
        // of any other address is answered by nobody and ends in the bridge's timeout (SLVERR).
        self.in_regs_rd.next = self.bridge.bus_rd_addr.val() < 0x1000;
        self.in_ctx_rd.next = (self.bridge.bus_rd_addr.val() >= 0x7_0000)
            & (self.bridge.bus_rd_addr.val() < 0x8_0000);
        self.regs.bus_rd_en.next = self.bridge.bus_rd_en.val() & self.in_regs_rd.val();
        self.regs.bus_rd_addr.next = self.bridge.bus_rd_addr.val();
        self.ctxp.cfg_rd_en.next = self.bridge.bus_rd_en.val() & self.in_ctx_rd.val();
        self.ctxp.cfg_rd_addr.next = self.bridge.bus_rd_addr.val() - 0x7_0000;
        self.rd_default.d.next = self.bridge.bus_rd_en.val()
            & (self.bridge.bus_rd_addr.val() >= 0x1_0000)
            & (self.bridge.bus_rd_addr.val() < 0x6_0000);
        self.bridge.bus_rd_valid.next =
            self.regs.bus_rd_valid.val() | self.ctxp.cfg_rd_valid.val() | self.rd_default.q.val();
        self.bridge.bus_rd_data.next = 0.into();
        if self.regs.bus_rd_valid.val() {
            self.bridge.bus_rd_data.next = self.regs.bus_rd_data.val();
        }
        if self.ctxp.cfg_rd_valid.val() {
            self.bridge.bus_rd_data.next = self.ctxp.cfg_rd_data.val();
        }

        // Register file: build stamp, counters, interrupt causes, mailbox.
        self.regs.git_hash.next = self.git_hash.val();
        self.regs.build_time.next = self.build_time.val();
        self.cnt_q.d.next = self.cnt.cnt_inc.val();
        if self.rst.val() {
            self.cnt_q.d.next = 0.into();
        }
        self.regs.cnt_inc.next = self.cnt_q.q.val();
        self.regs.irq_cause_set.next = 0.into();
        // The firmware raises ASYNC_EVENT for the QP errors it takes, once it has queued their events.
        if self.cqw.cq_error.val()
            | (self.txe.m_axis_qperr_tvalid.val() & !self.regs.fw_run.val())
            | self.cpu.async_raise.val()
        {
            // IRQ cause ASYNC_EVENT (metaroce_regmap::irq::Cause::ASYNC_EVENT).
            self.regs.irq_cause_set.next = 2.into();
        }
        self.irq_pending.next = self.regs.irq_pending.val();
        // The control processor: run by CONTROL.CTRL, loaded through the image window while stopped, master of
        // the register bus through the bridge, the firmware side of the mailbox.
        self.cpu.clk.next = self.clk.val();
        self.cpu.rst.next = self.rst.val();
        self.cpu.run.next = self.regs.fw_run.val();
        self.img_off.next = self.bridge.bus_wr_addr.val() - 0x4_0000;
        self.cpu.img_wr_en.next = self.bridge.bus_wr_en.val()
            & (self.bridge.bus_wr_addr.val() >= 0x4_0000)
            & (self.bridge.bus_wr_addr.val() < 0x6_0000);
        self.cpu.img_wr_addr.next = self.img_off.val().get_bits::<15>(2);
        self.cpu.img_wr_data.next = self.bridge.bus_wr_data.val();
        self.bridge.cpu_req.next = self.cpu.bus_req.val();
        self.bridge.cpu_we.next = self.cpu.bus_we.val();
        self.bridge.cpu_addr.next = self.cpu.bus_addr.val();
        self.bridge.cpu_wdata.next = self.cpu.bus_wdata.val();
        self.cpu.bus_ack.next = self.bridge.cpu_ack.val();
        self.cpu.bus_rdata.next = self.bridge.cpu_rdata.val();
        self.cpu.mbox_go.next = self.regs.mbox_go.val();
        self.cpu.mbox_tag.next = self.regs.mbox_tag.val();
        self.regs.fw_rd_addr.next = self.cpu.fw_rd_addr.val();
        self.cpu.fw_rd_data.next = self.regs.fw_rd_data.val();
        self.regs.fw_wr_en.next = self.cpu.fw_wr_en.val();
        self.regs.fw_wr_addr.next = self.cpu.fw_wr_addr.val();
        self.regs.fw_wr_data.next = self.cpu.fw_wr_data.val();
        self.regs.fw_boot.next = self.cpu.boot.val();
        self.fw_console_valid.next = self.cpu.console_valid.val();
        self.fw_console_data.next = self.cpu.console_data.val();
        self.fw_trap.next = self.cpu.trap.val();

        // Context programming: every table hears every write; opens go to the six state holders.
        self.rxe.s_axis_ctxw_tdata.next = self.ctxp.m_axis_ctxw_tdata.val();
        self.rxe.s_axis_ctxw_tvalid.next = self.ctxp.m_axis_ctxw_tvalid.val();
        self.rq.s_axis_ctxw_tdata.next = self.ctxp.m_axis_ctxw_tdata.val();
        self.rq.s_axis_ctxw_tvalid.next = self.ctxp.m_axis_ctxw_tvalid.val();
        self.mrc.s_axis_ctxw_tdata.next = self.ctxp.m_axis_ctxw_tdata.val();
        self.mrc.s_axis_ctxw_tvalid.next = self.ctxp.m_axis_ctxw_tvalid.val();
        self.cqw.s_axis_ctxw_tdata.next = self.ctxp.m_axis_ctxw_tdata.val();
        self.cqw.s_axis_ctxw_tvalid.next = self.ctxp.m_axis_ctxw_tvalid.val();
        self.txe.s_axis_ctxw_tdata.next = self.ctxp.m_axis_ctxw_tdata.val();
        self.txe.s_axis_ctxw_tvalid.next = self.ctxp.m_axis_ctxw_tvalid.val();
        self.snd.s_axis_ctxw_tdata.next = self.ctxp.m_axis_ctxw_tdata.val();
        self.snd.s_axis_ctxw_tvalid.next = self.ctxp.m_axis_ctxw_tvalid.val();
        self.fan.s_axis_open_tdata.next = self.ctxp.m_axis_open_tdata.val();
        self.fan.s_axis_open_tvalid.next = self.ctxp.m_axis_open_tvalid.val();
        self.ctxp.m_axis_open_tready.next = self.fan.s_axis_open_tready.val();
        self.rxe.s_axis_open_tdata.next = self.fan.m_axis_open_tdata.val();
        self.rq.s_axis_open_tdata.next = self.fan.m_axis_open_tdata.val();
        self.cpl.s_axis_open_tdata.next = self.fan.m_axis_open_tdata.val();
        self.txe.s_axis_open_tdata.next = self.fan.m_axis_open_tdata.val();
        self.snd.s_axis_open_tdata.next = self.fan.m_axis_open_tdata.val();
        self.rxe.s_axis_open_tvalid.next = self.fan.m_axis_open0_tvalid.val();
        self.fan.m_axis_open0_tready.next = self.rxe.s_axis_open_tready.val();
        self.rq.s_axis_open_tvalid.next = self.fan.m_axis_open1_tvalid.val();
        self.fan.m_axis_open1_tready.next = self.rq.s_axis_open_tready.val();
        self.cpl.s_axis_open_tvalid.next = self.fan.m_axis_open2_tvalid.val();
        self.fan.m_axis_open2_tready.next = self.cpl.s_axis_open_tready.val();
        // A receive-only open (MR-CONN-16) passes the send side by.
        self.open_rx_only.next = self.fan.m_axis_open_tdata.val().rx_only;
        self.txe.s_axis_open_tvalid.next =
            self.fan.m_axis_open3_tvalid.val() & !self.open_rx_only.val();
        self.fan.m_axis_open3_tready.next =
            self.txe.s_axis_open_tready.val() | self.open_rx_only.val();
        self.snd.s_axis_open_tvalid.next =
            self.fan.m_axis_open4_tvalid.val() & !self.open_rx_only.val();
        self.fan.m_axis_open4_tready.next =
            self.snd.s_axis_open_tready.val() | self.open_rx_only.val();

        // Receive: MAC -> parser -> receive engine.
        self.parser.s_axis_rx_tdata.next = self.s_axis_rx_tdata.val();
        self.parser.s_axis_rx_tkeep.next = self.s_axis_rx_tkeep.val();
        self.parser.s_axis_rx_tlast.next = self.s_axis_rx_tlast.val();
        self.parser.s_axis_rx_tuser.next = self.s_axis_rx_tuser.val();
        self.parser.s_axis_rx_tvalid.next = self.s_axis_rx_tvalid.val();
        self.s_axis_rx_tready.next = self.parser.s_axis_rx_tready.val();
        self.parser.cfg_udp_port.next = self.epc.cfg_udp_port.val();
        self.parser.cfg_dscp_trim.next = self.epc.cfg_dscp_trim.val();
        self.parser.cfg_ipv4.next = self.epc.cfg_ipv4.val();
        self.parser.cfg_ipv6.next = self.epc.cfg_ipv6.val();
        self.parser.cfg_ip_en.next = self.epc.cfg_ip_en.val();
        // A record the firmware replays (a CTRL OPEN after its connection was bound, no payload) enters ahead
        // of the parser's next packet, never in place of one the parser is already offering.
        self.rpl_in.s_axis_tdata.next = self.cpu.m_axis_rpl_tdata.val();
        self.rpl_in.s_axis_tvalid.next = self.cpu.m_axis_rpl_tvalid.val();
        self.cpu.m_axis_rpl_tready.next = self.rpl_in.s_axis_tready.val();
        self.rpl_sel.next = self.rpl_in.m_axis_tvalid.val() & !self.meta_stall.q.val();
        self.rxe.s_axis_meta_tdata.next = self.parser.m_axis_meta_tdata.val();
        self.rxe.s_axis_meta_tvalid.next = self.parser.m_axis_meta_tvalid.val();
        self.parser.m_axis_meta_tready.next = self.rxe.s_axis_meta_tready.val();
        self.rpl_in.m_axis_tready.next = false;
        if self.rpl_sel.val() {
            self.rxe.s_axis_meta_tdata.next = self.rpl_in.m_axis_tdata.val();
            self.rxe.s_axis_meta_tvalid.next = true;
            self.parser.m_axis_meta_tready.next = false;
            self.rpl_in.m_axis_tready.next = self.rxe.s_axis_meta_tready.val();
        }
        self.meta_stall.d.next = self.parser.m_axis_meta_tvalid.val()
            & !self.rpl_sel.val()
            & !self.rxe.s_axis_meta_tready.val();
        self.rxe.s_axis_pay_tdata.next = self.parser.m_axis_pay_tdata.val();
        self.rxe.s_axis_pay_tkeep.next = self.parser.m_axis_pay_tkeep.val();
        self.rxe.s_axis_pay_tlast.next = self.parser.m_axis_pay_tlast.val();
        self.rxe.s_axis_pay_tvalid.next = self.parser.m_axis_pay_tvalid.val();
        self.parser.m_axis_pay_tready.next = self.rxe.s_axis_pay_tready.val();
        self.rxe.now.next = self.timebase.now.val();
        self.rxe.cfg_dscp_ctrl.next = self.epc.cfg_dscp_ctrl.val();
        self.rxe.cfg_ack_ratio.next = self.epc.cfg_ack_ratio.val();
        self.rxe.cfg_ack_delay_ns.next = self.epc.cfg_ack_delay_ns.val();
        self.rxe.cfg_no_ctx_retry_us.next = 0.into();
        // Exception packets: to the control processor while it runs, else out of the core.
        self.exc_out.s_axis_tdata.next = self.rxe.m_axis_exc_tdata.val();
        self.exc_out.s_axis_tvalid.next = self.rxe.m_axis_exc_tvalid.val();
        self.rxe.m_axis_exc_tready.next = self.exc_out.s_axis_tready.val();
        self.cpu.s_axis_exc_tdata.next = self.exc_out.m_axis_tdata.val();
        self.m_axis_exc_tdata.next = self.exc_out.m_axis_tdata.val();
        self.cpu.now.next = self.timebase.now.val();
        if self.regs.fw_run.val() {
            self.cpu.s_axis_exc_tvalid.next = self.exc_out.m_axis_tvalid.val();
            self.m_axis_exc_tvalid.next = false;
            self.exc_out.m_axis_tready.next = self.cpu.s_axis_exc_tready.val();
        } else {
            self.cpu.s_axis_exc_tvalid.next = false;
            self.m_axis_exc_tvalid.next = self.exc_out.m_axis_tvalid.val();
            self.exc_out.m_axis_tready.next = self.m_axis_exc_tready.val();
        }

        // The message-level checks between the engine's classification (duplicates and PSNs beyond the window
        // already marked, so that they pass unchanged) and its window:
        // receive queue -> memory-region check -> message table.
        self.rq.s_axis_pkt_tdata.next = self.rxe.m_axis_chk_tdata.val();
        self.rq.s_axis_pkt_tuser.next.rqe_ok = false;
        self.rq.s_axis_pkt_tuser.next.rqe_index = 0.into();
        self.rq.s_axis_pkt_tuser.next.rqe_addr = 0.into();
        self.rq.s_axis_pkt_tuser.next.rqe_len = 0.into();
        self.rq.s_axis_pkt_tuser.next.rqe_lkey = 0.into();
        self.rq.s_axis_pkt_tuser.next.rq_empty = false;
        self.rq.s_axis_pkt_tuser.next.nack = false;
        self.rq.s_axis_pkt_tuser.next.code = 0.into();
        self.rq.s_axis_pkt_tuser.next.aux = 0.into();
        self.rq.s_axis_pkt_tuser.next.fail = false;
        self.rq.s_axis_pkt_tuser.next.owes_wqe = false;
        self.rq.s_axis_pkt_tuser.next.place = false;
        self.rq.s_axis_pkt_tuser.next.place_addr = 0.into();
        self.rq.s_axis_pkt_tvalid.next = self.rxe.m_axis_chk_tvalid.val();
        self.rxe.m_axis_chk_tready.next = self.rq.s_axis_pkt_tready.val();
        self.rq.cfg_max_msgs.next = 8.into();
        self.rq.cfg_rnr_timer_us.next = 10.into();
        self.rdt.s_axis_pkt_tdata.next = self.rq.m_axis_pkt_tdata.val();
        self.rdt.s_axis_pkt_tuser.next = self.rq.m_axis_pkt_tuser.val();
        self.rdt.s_axis_pkt_tvalid.next = self.rq.m_axis_pkt_tvalid.val();
        self.rq.m_axis_pkt_tready.next = self.rdt.s_axis_pkt_tready.val();
        self.mrc.s_axis_pkt_tdata.next = self.rdt.m_axis_pkt_tdata.val();
        self.mrc.s_axis_pkt_tuser.next = self.rdt.m_axis_pkt_tuser.val();
        self.mrc.s_axis_pkt_tvalid.next = self.rdt.m_axis_pkt_tvalid.val();
        self.rdt.m_axis_pkt_tready.next = self.mrc.s_axis_pkt_tready.val();
        self.mrc.cfg_max_payload.next = 0x2000.into();
        self.cpl.s_axis_pkt_tdata.next = self.mrc.m_axis_pkt_tdata.val();
        self.cpl.s_axis_pkt_tuser.next = self.mrc.m_axis_pkt_tuser.val();
        self.cpl.s_axis_pkt_tvalid.next = self.mrc.m_axis_pkt_tvalid.val();
        self.mrc.m_axis_pkt_tready.next = self.cpl.s_axis_pkt_tready.val();
        // The verdict returns to the window; the placement address rides in the packet's `local_addr` (unused
        // on receive) so that it reaches placement with the packet.
        self.chk_rx.next = self.cpl.m_axis_pkt_tuser.val();
        self.chk_meta.next = self.cpl.m_axis_pkt_tdata.val();
        self.chk_meta.next.local_addr = self.chk_rx.val().place_addr;
        self.chk_user.next.nack = self.chk_rx.val().nack;
        self.chk_user.next.code = self.chk_rx.val().code;
        self.chk_user.next.aux = self.chk_rx.val().aux;
        self.rxe.s_axis_chk_tdata.next = self.chk_meta.val();
        self.rxe.s_axis_chk_tuser.next = self.chk_user.val();
        self.rxe.s_axis_chk_tvalid.next = self.cpl.m_axis_pkt_tvalid.val();
        self.cpl.m_axis_pkt_tready.next = self.rxe.s_axis_chk_tready.val();
        self.cpl.s_axis_popped_tdata.next = self.rq.m_axis_popped_tdata.val();
        self.cpl.s_axis_popped_tvalid.next = self.rq.m_axis_popped_tvalid.val();
        self.rq.m_axis_popped_tready.next = self.cpl.s_axis_popped_tready.val();
        self.rq.s_axis_pop_tdata.next = self.cpl.m_axis_pop_tdata.val();
        self.rq.s_axis_pop_tvalid.next = self.cpl.m_axis_pop_tvalid.val();
        self.cpl.m_axis_pop_tready.next = self.rq.s_axis_pop_tready.val();
        self.cpl.s_axis_kick_tdata.next = self.rq.m_axis_kick_tdata.val();
        self.cpl.s_axis_kick_tvalid.next = self.rq.m_axis_kick_tvalid.val();

        // Placement: the window's accepted packets are placed at the address the checks computed.
        self.place_in.s_axis_tdata.next.meta = self.rxe.m_axis_place_tdata.val();
        self.place_in.s_axis_tdata.next.win = self.rxe.m_axis_place_tuser.val();
        self.place_in.s_axis_tvalid.next = self.rxe.m_axis_place_tvalid.val();
        self.rxe.m_axis_place_tready.next = self.place_in.s_axis_tready.val();
        self.win.next = self.place_in.m_axis_tdata.val().win;
        self.place_meta.next = self.place_in.m_axis_tdata.val().meta;
        self.place_user.next.rqe_ok = false;
        self.place_user.next.rqe_index = 0.into();
        self.place_user.next.rqe_addr = 0.into();
        self.place_user.next.rqe_len = 0.into();
        self.place_user.next.rqe_lkey = 0.into();
        self.place_user.next.rq_empty = false;
        self.place_user.next.nack = false;
        self.place_user.next.code = 0.into();
        self.place_user.next.aux = 0.into();
        self.place_user.next.fail = false;
        self.place_user.next.owes_wqe = false;
        self.place_user.next.place = false;
        self.place_user.next.place_addr = 0.into();
        self.place_user.next.place = self.win.val().accepted;
        self.place_user.next.place_addr = self.place_meta.val().local_addr;
        // The parser streams a payload only for DATA packets it accepted untrimmed with payload_len > 0; a packet
        // dropped later (codes 11..=17 of rx::drop, or the exception code) still has its payload in the
        // stream. Placement consumes `payload_len` bytes per packet, so the others present length 0.
        self.has_pay.next = (self.place_meta.val().ptype == 1)
            & !self.place_meta.val().trimmed
            & ((self.place_meta.val().drop == 0)
                | ((self.place_meta.val().drop >= 11) & (self.place_meta.val().drop <= 17))
                | (self.place_meta.val().drop == 0xFF));
        if !self.has_pay.val() {
            self.place_meta.next.payload_len = 0.into();
        }
        self.place.s_axis_pkt_tdata.next = self.place_meta.val();
        self.place.s_axis_pkt_tuser.next = self.place_user.val();
        // Placement pauses while a failed READ response waits for the scheduler (`rrf_v`).
        self.place.s_axis_pkt_tvalid.next = self.place_in.m_axis_tvalid.val() & !self.rrf_v.q.val();
        self.place_in.m_axis_tready.next = self.place.s_axis_pkt_tready.val() & !self.rrf_v.q.val();
        self.place_go.next = self.place_in.m_axis_tvalid.val()
            & self.place.s_axis_pkt_tready.val()
            & !self.rrf_v.q.val();
        // MR-SEM-34: a READ response that failed the requester's check (NACK INVALID: no matching READ, or
        // ACCESS: the READ's local buffer) fails the QP; `key` carries the READ's MSN.
        self.bad_rr.next = (self.place_meta.val().ptype == 1)
            & (self.place_meta.val().opcode == self.c_op_rresp.val())
            & ((self.place_meta.val().drop == self.c_drop_access.val())
                | (self.place_meta.val().drop == self.c_drop_invalid.val()));
        if self.place_go.val() & self.bad_rr.val() {
            self.rrf_v.d.next = true;
            self.rrf.d.next.conn = self.place_meta.val().conn;
            self.rrf.d.next.status = self.c_st_rop.val();
            if self.place_meta.val().drop == self.c_drop_access.val() {
                self.rrf.d.next.status = self.c_st_lprot.val();
            }
            self.rrf.d.next.msn = self.place_meta.val().key;
            self.rrf.d.next.by_msn = true;
            self.rrf.d.next.strict = false;
        }
        self.place.s_axis_pay_tdata.next = self.rxe.m_axis_pay_tdata.val();
        self.place.s_axis_pay_tkeep.next = self.rxe.m_axis_pay_tkeep.val();
        self.place.s_axis_pay_tlast.next = self.rxe.m_axis_pay_tlast.val();
        self.place.s_axis_pay_tvalid.next = self.rxe.m_axis_pay_tvalid.val();
        self.rxe.m_axis_pay_tready.next = self.place.s_axis_pay_tready.val();

        // Completions: receive side from the message table and the receive queue's flushes (MR-SEM-38),
        // through one register (the completion stage first); send side from the transmit engine. A flushed
        // RQE completes `Flushed` with the packet number placement has reached, so the writer does not hold it.
        self.cqw.s_axis_rcpl_tdata.next = self.rc.q.val();
        self.cqw.s_axis_rcpl_tuser.next = self.rc_u.q.val();
        self.cqw.s_axis_rcpl_tvalid.next = self.rc_v.q.val();
        self.cpl.m_axis_rcpl_tready.next = !self.rc_v.q.val();
        self.rq.m_axis_flushed_tready.next =
            !self.rc_v.q.val() & !self.cpl.m_axis_rcpl_tvalid.val();
        self.x_fl_idx.i.next = self.rq.m_axis_flushed_tdata.val().index;
        self.x_fl_pkt.i.next = self.place.safe_count.val();
        if self.rc_v.q.val() & self.cqw.s_axis_rcpl_tready.val() {
            self.rc_v.d.next = false;
        }
        if !self.rc_v.q.val() & self.cpl.m_axis_rcpl_tvalid.val() {
            self.rc_v.d.next = true;
            self.rc.d.next = self.cpl.m_axis_rcpl_tdata.val();
            self.rc_u.d.next = self.cpl.m_axis_rcpl_tuser.val();
        } else if !self.rc_v.q.val() & self.rq.m_axis_flushed_tvalid.val() {
            self.rc_v.d.next = true;
            self.rc.d.next.cqn = self.rq.m_axis_flushed_tdata.val().cqn;
            self.rc.d.next.qpn = self.rq.m_axis_flushed_tdata.val().qpn;
            self.rc.d.next.wr_id = self.rq.m_axis_flushed_tdata.val().wr_id;
            self.rc.d.next.status = self.c_st_flushed.val();
            self.rc.d.next.opcode = self.c_cqe_recv.val();
            self.rc.d.next.byte_len = 0.into();
            self.rc.d.next.imm = 0.into();
            self.rc.d.next.flags = 0.into();
            self.rc_u.d.next = (self.x_fl_pkt.o.val() << 16u64) | self.x_fl_idx.o.val();
        }
        if self.rst.val() {
            self.rc_v.d.next = false;
        }
        self.cqw.s_axis_scpl_tdata.next = self.txe.m_axis_scpl_tdata.val();
        self.cqw.s_axis_scpl_tuser.next = self.txe.m_axis_scpl_tuser.val();
        self.cqw.s_axis_scpl_tvalid.next = self.txe.m_axis_scpl_tvalid.val();
        self.txe.m_axis_scpl_tready.next = self.cqw.s_axis_scpl_tready.val();
        self.cqw.rx_safe_count.next = self.place.safe_count.val();
        self.irq_cq_req.next = self.cqw.irq_req.val();
        self.irq_cq_vector.next = self.cqw.irq_vector.val();

        // Receive to transmit: ACK/NACK requests, READ requests (in message order, from the message table).
        self.ctl_in.s_axis_tdata.next = self.rxe.m_axis_ctl_tdata.val();
        self.ctl_in.s_axis_tvalid.next = self.rxe.m_axis_ctl_tvalid.val();
        self.rxe.m_axis_ctl_tready.next = self.ctl_in.s_axis_tready.val();
        self.txe.s_axis_ctl_tdata.next = self.ctl_in.m_axis_tdata.val();
        self.txe.s_axis_ctl_tvalid.next = self.ctl_in.m_axis_tvalid.val();
        self.ctl_in.m_axis_tready.next = self.txe.s_axis_ctl_tready.val();
        self.rreq_in.s_axis_tdata.next = self.cpl.m_axis_readreq_tdata.val();
        self.rreq_in.s_axis_tvalid.next = self.cpl.m_axis_readreq_tvalid.val();
        self.cpl.m_axis_readreq_tready.next = self.rreq_in.s_axis_tready.val();
        self.txe.s_axis_readreq_tdata.next = self.rreq_in.m_axis_tdata.val();
        self.txe.s_axis_readreq_tvalid.next = self.rreq_in.m_axis_tvalid.val();
        self.rreq_in.m_axis_tready.next = self.txe.s_axis_readreq_tready.val();
        self.rxe.m_axis_readreq_tready.next = true;
        // READs: where their responses go (transmit to receive), and their completed responses (receive, through
        // the READ table, to the transmit scheduler, which then releases and completes the READ).
        self.rdt.s_axis_rec_tdata.next = self.txe.m_axis_rdrec_tdata.val();
        self.rdt.s_axis_rec_tvalid.next = self.txe.m_axis_rdrec_tvalid.val();
        // A completed READ response is passed on once placement has written its data (as the CQ writer waits
        // for a receive completion's), so the READ's CQE is written after the data it reports. It waits in a
        // two-entry queue, so the completion stage goes on meanwhile.
        self.rd_diff.next = self.place.safe_count.val() - self.rq0_n.q.val();
        self.rdt.s_axis_rdone_tdata.next = self.rq0.q.val();
        self.rdt.s_axis_rdone_tvalid.next = self.rq0_v.q.val() & !self.rd_diff.val().get_bit(15);
        self.rd_pop.next = self.rq0_v.q.val()
            & !self.rd_diff.val().get_bit(15)
            & self.rdt.s_axis_rdone_tready.val();
        self.cpl.m_axis_rdone_tready.next = !self.rq1_v.q.val();
        self.rd_push.next = self.cpl.m_axis_rdone_tvalid.val() & !self.rq1_v.q.val();
        // After the pop, the head is the second entry (if any).
        self.rd_v0.next = self.rq0_v.q.val();
        if self.rd_pop.val() {
            self.rq0.d.next = self.rq1.q.val();
            self.rq0_n.d.next = self.rq1_n.q.val();
            self.rq0_v.d.next = self.rq1_v.q.val();
            self.rq1_v.d.next = false;
            self.rd_v0.next = self.rq1_v.q.val();
        }
        if self.rd_push.val() {
            if self.rd_v0.val() {
                self.rq1.d.next = self.cpl.m_axis_rdone_tdata.val();
                self.rq1_n.d.next = self.cpl.m_axis_rdone_tuser.val();
                self.rq1_v.d.next = true;
            } else {
                self.rq0.d.next = self.cpl.m_axis_rdone_tdata.val();
                self.rq0_n.d.next = self.cpl.m_axis_rdone_tuser.val();
                self.rq0_v.d.next = true;
            }
        }
        if self.rst.val() {
            self.rq0_v.d.next = false;
            self.rq1_v.d.next = false;
        }
        self.txe.s_axis_rdone_tdata.next = self.rdt.m_axis_rdone_tdata.val();
        self.txe.s_axis_rdone_tvalid.next = self.rdt.m_axis_rdone_tvalid.val();
        self.rdt.m_axis_rdone_tready.next = self.txe.s_axis_rdone_tready.val();

        // Receive to the sender state: ACKs and NACKs of our transmissions.
        self.fb_in.s_axis_tdata.next = self.rxe.m_axis_fb_tdata.val();
        self.fb_in.s_axis_tvalid.next = self.rxe.m_axis_fb_tvalid.val();
        self.rxe.m_axis_fb_tready.next = self.fb_in.s_axis_tready.val();
        self.snd.s_axis_fb_tdata.next = self.fb_in.m_axis_tdata.val();
        self.snd.s_axis_fb_tvalid.next = self.fb_in.m_axis_tvalid.val();
        self.fb_in.m_axis_tready.next = self.snd.s_axis_fb_tready.val();

        // Transmit engine <-> sender state.
        self.txe.now.next = self.timebase.now.val();
        self.txe.cfg_dscp_data.next = self.epc.cfg_dscp_data.val();
        self.txe.cfg_mtu_log.next = self.epc.cfg_mtu_log.val();
        self.txe.cfg_max_msg_len.next = 0x4000_0000.into();
        self.txe.cfg_conn_msgs.next = 64.into();
        // 2^MSG_BITS: the READ table's and the receive message table's slots per connection.
        self.txe.cfg_max_started.next = 8.into();
        self.txe.cfg_poll_ns.next = 1000.into();
        // A paced connection's next packet is tried 48 ns before its pacing time and the sender engine holds
        // a request refused by pacing alone for up to 64 ns, so it is decided at its pacing time (the
        // scheduler waits at most 64 ns for it: less than a 4 KiB packet's 66 beats at 322 MHz).
        self.txe.cfg_retry_lead_ns.next = 48.into();
        self.stat_db_drop.next = self.txe.stat_db_drop.val();
        self.stat_wr_closed.next = self.txe.stat_wr_closed.val();
        self.snd.now.next = self.timebase.now.val();
        self.snd.s_axis_gate_req_tdata.next = self.txe.m_axis_gate_req_tdata.val();
        self.snd.s_axis_gate_req_tvalid.next = self.txe.m_axis_gate_req_tvalid.val();
        self.txe.m_axis_gate_req_tready.next = self.snd.s_axis_gate_req_tready.val();
        self.txe.s_axis_gate_resp_tdata.next = self.snd.m_axis_gate_resp_tdata.val();
        self.txe.s_axis_gate_resp_tvalid.next = self.snd.m_axis_gate_resp_tvalid.val();
        self.snd.m_axis_gate_resp_tready.next = self.txe.s_axis_gate_resp_tready.val();
        self.snd.s_axis_sent_tdata.next = self.txe.m_axis_sent_tdata.val();
        self.snd.s_axis_sent_tvalid.next = self.txe.m_axis_sent_tvalid.val();
        self.txe.m_axis_sent_tready.next = self.snd.s_axis_sent_tready.val();
        self.txe.s_axis_rtx_tdata.next = self.snd.m_axis_rtx_tdata.val();
        self.txe.s_axis_rtx_tvalid.next = self.snd.m_axis_rtx_tvalid.val();
        self.snd.m_axis_rtx_tready.next = self.txe.s_axis_rtx_tready.val();
        self.txe.s_axis_una_tdata.next = self.snd.m_axis_una_tdata.val();
        self.txe.s_axis_una_tvalid.next = self.snd.m_axis_una_tvalid.val();
        self.snd.m_axis_una_tready.next = self.txe.s_axis_una_tready.val();
        // The READ-response timer (MR-REL-58): wait changes from the scheduler, DATA from the peer.
        self.rsp.now.next = self.timebase.now.val();
        self.rsp.s_axis_wait_tdata.next = self.txe.m_axis_rwait_tdata.val();
        self.rsp.s_axis_wait_tvalid.next = self.txe.m_axis_rwait_tvalid.val();
        self.txe.m_axis_rwait_tready.next = self.rsp.s_axis_wait_tready.val();
        self.rsp.s_axis_data_tdata.next = self.place_meta.val().conn;
        self.rsp.s_axis_data_tvalid.next = self.place_go.val()
            & (self.place_meta.val().ptype == 1)
            & (self.place_meta.val().drop == 0);
        self.rsp.cfg_rto_min_ns.next = self.epc.cfg_rto_min_ns.val();
        self.rsp.cfg_rto_max_ns.next = self.epc.cfg_rto_max_ns.val();
        self.rsp.cfg_retry_limit.next = self.epc.cfg_retry_limit.val();
        // QP errors: the causes (the sender engine's limits and fatal NACKs, the READ-response timer's limit,
        // a failed READ response, the firmware's request), in that priority, go to the scheduler, which decides
        // each, flushes the send queue, stops the sender engine's connection and reports the QP.
        self.txe.s_axis_fail_tdata.next = self.rrf.q.val();
        self.txe.s_axis_fail_tvalid.next = self.rrf_v.q.val();
        self.snd.m_axis_err_tready.next = false;
        self.rsp.m_axis_err_tready.next = false;
        self.cpu.m_axis_fail_tready.next = false;
        if self.snd.m_axis_err_tvalid.val() {
            self.txe.s_axis_fail_tdata.next = self.snd.m_axis_err_tdata.val();
            self.txe.s_axis_fail_tvalid.next = true;
            self.snd.m_axis_err_tready.next = self.txe.s_axis_fail_tready.val();
        } else if self.rsp.m_axis_err_tvalid.val() {
            self.txe.s_axis_fail_tdata.next.conn = self.rsp.m_axis_err_tdata.val();
            self.txe.s_axis_fail_tdata.next.status = self.c_st_retry.val();
            self.txe.s_axis_fail_tdata.next.msn = 0.into();
            self.txe.s_axis_fail_tdata.next.by_msn = false;
            self.txe.s_axis_fail_tdata.next.strict = false;
            self.txe.s_axis_fail_tvalid.next = true;
            self.rsp.m_axis_err_tready.next = self.txe.s_axis_fail_tready.val();
        } else if self.rrf_v.q.val() {
            if self.txe.s_axis_fail_tready.val() {
                self.rrf_v.d.next = false;
            }
        } else if self.cpu.m_axis_fail_tvalid.val() {
            // The firmware fails a QP (a host's MODIFY_QP to ERROR): every WR completes FLUSHED.
            self.txe.s_axis_fail_tdata.next.conn = self.cpu.m_axis_fail_tdata.val();
            self.txe.s_axis_fail_tdata.next.status = self.c_st_flushed.val();
            self.txe.s_axis_fail_tdata.next.msn = 0.into();
            self.txe.s_axis_fail_tdata.next.by_msn = false;
            self.txe.s_axis_fail_tdata.next.strict = false;
            self.txe.s_axis_fail_tvalid.next = true;
            self.cpu.m_axis_fail_tready.next = self.txe.s_axis_fail_tready.val();
        }
        // RQ flushes of QPs in ERROR: the control processor's requests.
        self.rq.s_axis_flush_tdata.next = self.cpu.m_axis_rqf_tdata.val();
        self.rq.s_axis_flush_tvalid.next = self.cpu.m_axis_rqf_tvalid.val();
        self.cpu.m_axis_rqf_tready.next = self.rq.s_axis_flush_tready.val();
        // QP error reports: to the control processor while it runs, else out of the core.
        self.m_axis_conn_err_tdata.next = self.txe.m_axis_qperr_tdata.val();
        self.cpu.s_axis_qperr_tdata.next = self.txe.m_axis_qperr_tdata.val();
        self.cpu.port_status.next = self.port_status.val();
        self.cpu.i2c_scl_i.next = self.i2c_scl_i.val();
        self.cpu.i2c_sda_i.next = self.i2c_sda_i.val();
        self.i2c_scl_oe.next = self.cpu.i2c_scl_oe.val();
        self.i2c_sda_oe.next = self.cpu.i2c_sda_oe.val();
        if self.regs.fw_run.val() {
            self.cpu.s_axis_qperr_tvalid.next = self.txe.m_axis_qperr_tvalid.val();
            self.m_axis_conn_err_tvalid.next = false;
            self.txe.m_axis_qperr_tready.next = self.cpu.s_axis_qperr_tready.val();
        } else {
            self.cpu.s_axis_qperr_tvalid.next = false;
            self.m_axis_conn_err_tvalid.next = self.txe.m_axis_qperr_tvalid.val();
            self.txe.m_axis_qperr_tready.next = self.m_axis_conn_err_tready.val();
        }
        self.snd.s_axis_stop_tdata.next = self.txe.m_axis_stop_tdata.val();
        self.snd.s_axis_stop_tvalid.next = self.txe.m_axis_stop_tvalid.val();
        self.txe.m_axis_stop_tready.next = self.snd.s_axis_stop_tready.val();
        self.snd.cfg_mtu.next = self.epc.cfg_mtu.val();
        self.snd.cfg_bdp.next = self.epc.cfg_bdp.val();
        self.snd.cfg_target_ns.next = self.epc.cfg_target_ns.val();
        self.snd.cfg_base_rtt_ns.next = self.epc.cfg_base_rtt_ns.val();
        self.snd.cfg_min_rtt_window_ns.next = self.epc.cfg_min_rtt_window_ns.val();
        self.snd.cfg_line_rate_bps.next = self.epc.cfg_line_rate_bps.val();
        self.snd.cfg_rto_min_ns.next = self.epc.cfg_rto_min_ns.val();
        self.snd.cfg_rto_init_ns.next = self.epc.cfg_rto_init_ns.val();
        self.snd.cfg_rto_max_ns.next = self.epc.cfg_rto_max_ns.val();
        self.snd.cfg_retry_limit.next = self.epc.cfg_retry_limit.val();
        // The model's default RNR retry count (`EndpointConfig::rnr_retry`).
        self.snd.cfg_rnr_retry.next = 7.into();
        self.snd.cfg_reorder_distance.next = self.epc.cfg_reorder_distance.val();
        self.snd.cfg_pace_hold_ns.next = 64.into();

        // Transmit: engine -> frame builder -> MAC.
        // The firmware's control packets (already in PktMeta order) join between two of the engine's headers:
        // first, unless an engine header is already offered; an offered header is kept until taken.
        self.order.hdr_in.next = self.txe.m_axis_hdr_tdata.val();
        self.ctl_fw.next =
            self.fw_lock.q.val() | (!self.eng_lock.q.val() & self.cpu.m_axis_ctl_tvalid.val());
        self.fw_lock.d.next =
            self.ctl_fw.val() & self.cpu.m_axis_ctl_tvalid.val() & !self.fb.s_axis_hdr_tready.val();
        self.eng_lock.d.next = !self.ctl_fw.val()
            & self.txe.m_axis_hdr_tvalid.val()
            & !self.fb.s_axis_hdr_tready.val();
        if self.ctl_fw.val() {
            self.fb.s_axis_hdr_tdata.next = self.cpu.m_axis_ctl_tdata.val();
            self.fb.s_axis_hdr_tvalid.next = self.cpu.m_axis_ctl_tvalid.val();
            self.txe.m_axis_hdr_tready.next = false;
            self.cpu.m_axis_ctl_tready.next = self.fb.s_axis_hdr_tready.val();
        } else {
            self.fb.s_axis_hdr_tdata.next = self.order.hdr_out.val();
            self.fb.s_axis_hdr_tvalid.next = self.txe.m_axis_hdr_tvalid.val();
            self.txe.m_axis_hdr_tready.next = self.fb.s_axis_hdr_tready.val();
            self.cpu.m_axis_ctl_tready.next = false;
        }
        self.fb.s_axis_pay_tdata.next = self.txe.m_axis_pay_tdata.val();
        self.fb.s_axis_pay_tkeep.next = self.txe.m_axis_pay_tkeep.val();
        self.fb.s_axis_pay_tlast.next = self.txe.m_axis_pay_tlast.val();
        self.fb.s_axis_pay_tvalid.next = self.txe.m_axis_pay_tvalid.val();
        self.txe.m_axis_pay_tready.next = self.fb.s_axis_pay_tready.val();
        self.fb.cfg_mac.next = self.epc.cfg_mac.val();
        self.fb.cfg_ipv4.next = self.epc.cfg_ipv4.val();
        self.fb.cfg_ipv6.next = self.epc.cfg_ipv6.val();
        self.fb.cfg_udp_port.next = self.epc.cfg_udp_port.val();
        self.fb.cfg_ttl.next = self.epc.cfg_ttl.val();
        self.m_axis_tx_tdata.next = self.fb.m_axis_tx_tdata.val();
        self.m_axis_tx_tkeep.next = self.fb.m_axis_tx_tkeep.val();
        self.m_axis_tx_tlast.next = self.fb.m_axis_tx_tlast.val();
        self.m_axis_tx_tuser.next = self.fb.m_axis_tx_tuser.val();
        self.m_axis_tx_tvalid.next = self.fb.m_axis_tx_tvalid.val();
        self.fb.m_axis_tx_tready.next = self.m_axis_tx_tready.val();

        // DMA reads: (payload, SQE) of the transmit engine, then the receive queue's RQE reads.
        self.rdm_tx.s_axis_a_desc_tdata.next = self.txe.m_axis_dma_rd_desc_tdata.val();
        self.rdm_tx.s_axis_a_desc_tvalid.next = self.txe.m_axis_dma_rd_desc_tvalid.val();
        self.txe.m_axis_dma_rd_desc_tready.next = self.rdm_tx.s_axis_a_desc_tready.val();
        self.txe.s_axis_dma_rd_tdata.next = self.rdm_tx.m_axis_a_tdata.val();
        self.txe.s_axis_dma_rd_tkeep.next = self.rdm_tx.m_axis_a_tkeep.val();
        self.txe.s_axis_dma_rd_tlast.next = self.rdm_tx.m_axis_a_tlast.val();
        self.txe.s_axis_dma_rd_tuser.next = self.rdm_tx.m_axis_a_tuser.val();
        self.txe.s_axis_dma_rd_tvalid.next = self.rdm_tx.m_axis_a_tvalid.val();
        self.rdm_tx.m_axis_a_tready.next = self.txe.s_axis_dma_rd_tready.val();
        self.rdm_tx.s_axis_b_desc_tdata.next = self.txe.m_axis_sqe_rd_desc_tdata.val();
        self.rdm_tx.s_axis_b_desc_tvalid.next = self.txe.m_axis_sqe_rd_desc_tvalid.val();
        self.txe.m_axis_sqe_rd_desc_tready.next = self.rdm_tx.s_axis_b_desc_tready.val();
        self.txe.s_axis_sqe_rd_tdata.next = self.rdm_tx.m_axis_b_tdata.val();
        self.txe.s_axis_sqe_rd_tkeep.next = self.rdm_tx.m_axis_b_tkeep.val();
        self.txe.s_axis_sqe_rd_tlast.next = self.rdm_tx.m_axis_b_tlast.val();
        self.txe.s_axis_sqe_rd_tuser.next = self.rdm_tx.m_axis_b_tuser.val();
        self.txe.s_axis_sqe_rd_tvalid.next = self.rdm_tx.m_axis_b_tvalid.val();
        self.rdm_tx.m_axis_b_tready.next = self.txe.s_axis_sqe_rd_tready.val();
        self.rd_desc_a.s_axis_tdata.next = self.rdm_tx.m_axis_desc_tdata.val();
        self.rd_desc_a.s_axis_tvalid.next = self.rdm_tx.m_axis_desc_tvalid.val();
        self.rdm_tx.m_axis_desc_tready.next = self.rd_desc_a.s_axis_tready.val();
        self.rdm.s_axis_a_desc_tdata.next = self.rd_desc_a.m_axis_tdata.val();
        self.rdm.s_axis_a_desc_tvalid.next = self.rd_desc_a.m_axis_tvalid.val();
        self.rd_desc_a.m_axis_tready.next = self.rdm.s_axis_a_desc_tready.val();
        self.rdm_tx.s_axis_tdata.next = self.rdm.m_axis_a_tdata.val();
        self.rdm_tx.s_axis_tkeep.next = self.rdm.m_axis_a_tkeep.val();
        self.rdm_tx.s_axis_tlast.next = self.rdm.m_axis_a_tlast.val();
        self.rdm_tx.s_axis_tuser.next = self.rdm.m_axis_a_tuser.val();
        self.rdm_tx.s_axis_tvalid.next = self.rdm.m_axis_a_tvalid.val();
        self.rdm.m_axis_a_tready.next = self.rdm_tx.s_axis_tready.val();
        self.rd_desc_b.s_axis_tdata.next = self.rq.m_axis_dma_rd_desc_tdata.val();
        self.rd_desc_b.s_axis_tvalid.next = self.rq.m_axis_dma_rd_desc_tvalid.val();
        self.rq.m_axis_dma_rd_desc_tready.next = self.rd_desc_b.s_axis_tready.val();
        self.rdm.s_axis_b_desc_tdata.next = self.rd_desc_b.m_axis_tdata.val();
        self.rdm.s_axis_b_desc_tvalid.next = self.rd_desc_b.m_axis_tvalid.val();
        self.rd_desc_b.m_axis_tready.next = self.rdm.s_axis_b_desc_tready.val();
        self.rq.s_axis_dma_rd_tdata.next = self.rdm.m_axis_b_tdata.val();
        self.rq.s_axis_dma_rd_tkeep.next = self.rdm.m_axis_b_tkeep.val();
        self.rq.s_axis_dma_rd_tlast.next = self.rdm.m_axis_b_tlast.val();
        self.rq.s_axis_dma_rd_tuser.next = self.rdm.m_axis_b_tuser.val();
        self.rq.s_axis_dma_rd_tvalid.next = self.rdm.m_axis_b_tvalid.val();
        self.rdm.m_axis_b_tready.next = self.rq.s_axis_dma_rd_tready.val();
        self.m_axis_dma_rd_desc_tdata.next = self.rdm.m_axis_desc_tdata.val();
        self.m_axis_dma_rd_desc_tvalid.next = self.rdm.m_axis_desc_tvalid.val();
        self.rdm.m_axis_desc_tready.next = self.m_axis_dma_rd_desc_tready.val();
        self.rdm.s_axis_tdata.next = self.s_axis_dma_rd_tdata.val();
        self.rdm.s_axis_tkeep.next = self.s_axis_dma_rd_tkeep.val();
        self.rdm.s_axis_tlast.next = self.s_axis_dma_rd_tlast.val();
        self.rdm.s_axis_tuser.next = self.s_axis_dma_rd_tuser.val();
        self.rdm.s_axis_tvalid.next = self.s_axis_dma_rd_tvalid.val();
        self.s_axis_dma_rd_tready.next = self.rdm.s_axis_tready.val();

        // DMA writes: placement and the CQ writer.
        self.wrm.s_axis_a_desc_tdata.next = self.place.m_axis_dma_wr_desc_tdata.val();
        self.wrm.s_axis_a_desc_tvalid.next = self.place.m_axis_dma_wr_desc_tvalid.val();
        self.place.m_axis_dma_wr_desc_tready.next = self.wrm.s_axis_a_desc_tready.val();
        self.wrm.s_axis_a_tdata.next = self.place.m_axis_dma_wr_tdata.val();
        self.wrm.s_axis_a_tkeep.next = self.place.m_axis_dma_wr_tkeep.val();
        self.wrm.s_axis_a_tlast.next = self.place.m_axis_dma_wr_tlast.val();
        self.wrm.s_axis_a_tvalid.next = self.place.m_axis_dma_wr_tvalid.val();
        self.place.m_axis_dma_wr_tready.next = self.wrm.s_axis_a_tready.val();
        self.place.s_axis_dma_wr_done_tdata.next = self.wrm.m_axis_a_done_tdata.val();
        self.place.s_axis_dma_wr_done_tvalid.next = self.wrm.m_axis_a_done_tvalid.val();
        self.wrm.s_axis_b_desc_tdata.next = self.cqw.m_axis_dma_wr_desc_tdata.val();
        self.wrm.s_axis_b_desc_tvalid.next = self.cqw.m_axis_dma_wr_desc_tvalid.val();
        self.cqw.m_axis_dma_wr_desc_tready.next = self.wrm.s_axis_b_desc_tready.val();
        self.wrm.s_axis_b_tdata.next = self.cqw.m_axis_dma_wr_tdata.val();
        self.wrm.s_axis_b_tkeep.next = self.cqw.m_axis_dma_wr_tkeep.val();
        self.wrm.s_axis_b_tlast.next = self.cqw.m_axis_dma_wr_tlast.val();
        self.wrm.s_axis_b_tvalid.next = self.cqw.m_axis_dma_wr_tvalid.val();
        self.cqw.m_axis_dma_wr_tready.next = self.wrm.s_axis_b_tready.val();
        self.cqw.s_axis_dma_wr_done_tdata.next = self.wrm.m_axis_b_done_tdata.val();
        self.cqw.s_axis_dma_wr_done_tvalid.next = self.wrm.m_axis_b_done_tvalid.val();
        self.m_axis_dma_wr_desc_tdata.next = self.wrm.m_axis_desc_tdata.val();
        self.m_axis_dma_wr_desc_tvalid.next = self.wrm.m_axis_desc_tvalid.val();
        self.wrm.m_axis_desc_tready.next = self.m_axis_dma_wr_desc_tready.val();
        self.m_axis_dma_wr_tdata.next = self.wrm.m_axis_tdata.val();
        self.m_axis_dma_wr_tkeep.next = self.wrm.m_axis_tkeep.val();
        self.m_axis_dma_wr_tlast.next = self.wrm.m_axis_tlast.val();
        self.m_axis_dma_wr_tvalid.next = self.wrm.m_axis_tvalid.val();
        self.wrm.m_axis_tready.next = self.m_axis_dma_wr_tready.val();
        self.wrm.s_axis_done_tdata.next = self.s_axis_dma_wr_done_tdata.val();
        self.wrm.s_axis_done_tvalid.next = self.s_axis_dma_wr_done_tvalid.val();

        // Counters.
        self.cnt.tx_beat.next = self.fb.m_axis_tx_tvalid.val() & self.m_axis_tx_tready.val();
        self.cnt.tx_keep.next = self.fb.m_axis_tx_tkeep.val();
        self.cnt.tx_last.next = self.fb.m_axis_tx_tlast.val();
        self.cnt.rx_beat.next = self.s_axis_rx_tvalid.val() & self.parser.s_axis_rx_tready.val();
        self.cnt.rx_keep.next = self.s_axis_rx_tkeep.val();
        self.cnt.rx_last.next = self.s_axis_rx_tlast.val();
        self.cnt.data_sent.next =
            self.txe.m_axis_sent_tvalid.val() & self.snd.s_axis_sent_tready.val();
        self.cnt.data_bytes.next = self.txe.m_axis_sent_tdata.val().charged - 64;
        self.cnt.ack_sent.next = self.rxe.m_axis_ctl_tvalid.val()
            & self.ctl_in.s_axis_tready.val()
            & (self.rxe.m_axis_ctl_tdata.val().ptype == 2);
        self.cnt.rx_data.next =
            self.place_go.val() & self.win.val().accepted & (self.place_meta.val().ptype == 1);
        self.cnt.rx_data_bytes.next = self.place_meta.val().payload_len;
        self.cnt.rx_ack.next = self.rxe.m_axis_fb_tvalid.val()
            & self.fb_in.s_axis_tready.val()
            & (self.rxe.m_axis_fb_tdata.val().ptype == 2);
        self.cnt.drop_a.next = self.rxe.drop_valid.val();
        self.cnt.drop_a_code.next = self.rxe.drop_code.val();
        self.cnt.drop_b.next = false;
        self.cnt.drop_b_code.next = 0.into();
        self.cnt.conn_opened.next = self.ctxp.m_axis_open_tvalid.val()
            & self.fan.s_axis_open_tready.val()
            & !self.ctxp.m_axis_open_tdata.val().rx_only;
        self.cnt.slot_wait.next = self.snd.stat_slot_wait.val();
        self.cnt.rx_overflow.next = self.parser.stat_overflow.val();
        self.cnt.nack_tx.next = self.rxe.m_axis_ctl_tvalid.val()
            & self.ctl_in.s_axis_tready.val()
            & (self.rxe.m_axis_ctl_tdata.val().ptype == 3);
        self.cnt.nack_tx_code.next = self.rxe.m_axis_ctl_tdata.val().code;
        self.cnt.nack_rx.next = self.rxe.m_axis_fb_tvalid.val()
            & self.fb_in.s_axis_tready.val()
            & (self.rxe.m_axis_fb_tdata.val().ptype == 3);
        self.cnt.nack_rx_code.next = self.rxe.m_axis_fb_tdata.val().code;
        self.cnt.ece_rx.next = self.rxe.m_axis_fb_tvalid.val()
            & self.fb_in.s_axis_tready.val()
            & (self.rxe.m_axis_fb_tdata.val().ptype == 2)
            & self.rxe.m_axis_fb_tdata.val().aflags.get_bit(7);
        self.cnt.timeout.next = self.snd.stat_timeout.val();
        self.cnt.lost.next = self.snd.stat_lost.val();
        self.cnt.lost_cause.next = self.snd.stat_lost_cause.val();
        // Receive events where the engine hands the packet to placement (the model's order: a trimmed packet
        // of a live connection, then CE on an untrimmed one whatever the window decides, then out of order).
        self.cnt.ooo_rx.next = self.place_go.val()
            & self.win.val().accepted
            & !self.win.val().in_order
            & (self.place_meta.val().ptype == 1);
        self.cnt.ce_rx.next =
            self.place_go.val() & self.win.val().cand & (self.place_meta.val().ecn == 3);
        self.cnt.trim_rx.next = self.place_go.val()
            & self.win.val().conn_ok
            & self.place_meta.val().trimmed
            & (self.place_meta.val().ptype == 1);
    }
}

/// The core's Verilog for a configuration (the supported connection / QP table sizes: 2^14 / 2^12, the
/// default, and 2^8 / 2^6 for quick checks).
pub fn verilog(cfg: &CoreConfig) -> String {
    use crate::DataWidth::{W1024, W512};
    const N: &str = "metaroce_core";
    match (cfg.width, cfg.conn_bits, cfg.qp_bits) {
        (W512, 14, 12) => crate::gen::verilog(N, MetaroceCore::<512, 64, 14, 12, 17>::new(cfg)),
        (W1024, 14, 12) => crate::gen::verilog(N, MetaroceCore::<1024, 128, 14, 12, 17>::new(cfg)),
        (W512, 8, 6) => crate::gen::verilog(N, MetaroceCore::<512, 64, 8, 6, 11>::new(cfg)),
        (W1024, 8, 6) => crate::gen::verilog(N, MetaroceCore::<1024, 128, 8, 6, 11>::new(cfg)),
        other => {
            panic!("metaroce_core is generated for conn_bits/qp_bits 14/12 and 8/6, not {other:?}")
        }
    }
}
