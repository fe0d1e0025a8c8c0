//! The host side of a co-simulated core: what the driver and the control firmware do, through the register
//! bus and host memory exactly as they will on a device: the endpoint registers, context entries through the
//! context-programming window (the firmware's path), work requests written into rings in host memory followed
//! by a doorbell, and completions polled from the CQ ring by their phase bit.

use super::core::{BenchError, CoreBench};
use metaroce_hdl::ctx::ctx_port::reg as ctx;
use metaroce_hdl::ctx::table;
use metaroce_hdl::rx::cq_writer::CQ_TABLE;
use metaroce_hdl::top::core::{CQ_DB_WINDOW, CTX_WINDOW, QP_DB_WINDOW};
use metaroce_regmap::block::{default_base, BlockType};
use metaroce_regmap::command::arg;
use metaroce_regmap::command::QpState;
use metaroce_regmap::context::conn::ConnFlags;
use metaroce_regmap::context::conn::ConnHot;
use metaroce_regmap::context::mr::MrAccess;
use metaroce_regmap::context::mr::{key_slot, MrContext};
use metaroce_regmap::context::qp::QpContext;
use metaroce_regmap::context::qp::QpRemote;
use metaroce_regmap::descriptor::cqe::{CqeRepr, CqeStatus};
use metaroce_regmap::descriptor::rqe::RqeRepr;
use metaroce_regmap::descriptor::sqe::SqeRepr;
use metaroce_regmap::endpoint::reg as ep;
use metaroce_regmap::queues::{page, DEFAULT_DB_STRIDE};
use std::net::{IpAddr, Ipv4Addr};

/// Cycles the context port may stay busy after a commit.
const COMMIT_TIMEOUT: u64 = 1_000;

fn regmap_err(what: &str, e: impl std::fmt::Debug) -> BenchError {
    BenchError::Setup(format!("{what}: {e:?}"))
}

/// The register-space base of a block of the default map.
pub fn block_base(kind: BlockType) -> u32 {
    default_base(kind).unwrap_or(0)
}

/// Programs the endpoint's MAC and IPv4 address.
pub fn set_endpoint(b: &mut CoreBench, mac: [u8; 6], ip: Ipv4Addr) -> Result<(), BenchError> {
    let base = block_base(BlockType::Endpoint);
    b.write(
        base + ep::MAC_HI,
        u32::from(mac[0]) << 8 | u32::from(mac[1]),
    )?;
    b.write(
        base + ep::MAC_LO,
        u32::from_be_bytes([mac[2], mac[3], mac[4], mac[5]]),
    )?;
    b.write(base + ep::IPV4, u32::from(ip))
}

/// Writes one context entry (up to 64 bytes) to `table[index]` through the context-programming window and
/// waits until the port has broadcast it.
pub fn write_ctx(b: &mut CoreBench, tbl: u8, index: u16, entry: &[u8]) -> Result<(), BenchError> {
    let mut words = [0u8; 64];
    words[..entry.len().min(64)].copy_from_slice(&entry[..entry.len().min(64)]);
    for (k, w) in words.chunks(4).enumerate() {
        let v = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        b.write(CTX_WINDOW + ctx::STAGE + 4 * k as u32, v)?;
    }
    b.write(CTX_WINDOW + ctx::TABLE, u32::from(tbl))?;
    b.write(CTX_WINDOW + ctx::INDEX, u32::from(index))?;
    b.write(CTX_WINDOW + ctx::COMMIT, 1)?;
    let start = b.m.cycle();
    while b.read(CTX_WINDOW + ctx::STATUS)? & 1 == 1 {
        if b.m.cycle() - start > COMMIT_TIMEOUT {
            return Err(BenchError::Timeout(format!(
                "context commit of table {tbl} entry {index}"
            )));
        }
    }
    Ok(())
}

/// A completion queue in host memory, as the host polls it.
#[derive(Debug, Clone, Copy)]
pub struct Cq {
    /// CQ number.
    pub cqn: u16,
    /// Ring base.
    pub ring: u64,
    /// log2 entries.
    pub log: u8,
    /// Consumer index (free-running).
    pub ci: u16,
}

/// Creates CQ `cqn` with a zeroed ring of `2^log` entries at `ring` (the CREATE_CQ argument block, which
/// the CQ table takes as its entry).
pub fn create_cq(b: &mut CoreBench, cqn: u16, ring: u64, log: u8) -> Result<Cq, BenchError> {
    b.dma.mem.write(ring, &vec![0u8; 32 << log]);
    let mut e = [0u8; 64];
    arg::CQ_RING
        .set(&mut e, ring)
        .map_err(|e| regmap_err("cq ring", e))?;
    arg::CQ_LOG
        .set(&mut e, u64::from(log))
        .map_err(|e| regmap_err("cq log", e))?;
    arg::CQ_VECTOR
        .set(&mut e, 0)
        .map_err(|e| regmap_err("cq vector", e))?;
    write_ctx(b, CQ_TABLE, cqn, &e)?;
    Ok(Cq {
        cqn,
        ring,
        log,
        ci: 0,
    })
}

/// Polls `cq` once: the next CQE if the device has written it (its phase bit is the one expected for `ci`),
/// returning the slot to the device with a CQ_CI doorbell.
pub fn poll_cq(b: &mut CoreBench, cq: &mut Cq) -> Result<Option<CqeRepr>, BenchError> {
    let slot = u64::from(cq.ci & ((1u16 << cq.log) - 1));
    let addr = cq.ring + 32 * slot;
    let raw = b.dma.mem.read(addr, 32);
    let want_phase = (cq.ci >> cq.log) & 1 == 0;
    let phase = CqeRepr::phase_of(&raw).map_err(|e| regmap_err("cqe phase", e))?;
    if phase != want_phase {
        return Ok(None);
    }
    let cqe = CqeRepr::parse(&raw).map_err(|e| regmap_err("cqe", e))?;
    cq.ci = cq.ci.wrapping_add(1);
    b.write(
        CQ_DB_WINDOW + u32::from(cq.cqn) * DEFAULT_DB_STRIDE + page::CQ_CI,
        u32::from(cq.ci),
    )?;
    Ok(Some(cqe))
}

/// Registers a memory region: the entry goes to the table slot its keys name.
pub fn create_mr(b: &mut CoreBench, mr: &MrContext) -> Result<(), BenchError> {
    let mut e = [0u8; 32];
    mr.emit(&mut e).map_err(|e| regmap_err("mr", e))?;
    write_ctx(b, table::MR, key_slot(mr.lkey) as u16, &e)
}

/// A queue pair's rings as the host keeps them.
#[derive(Debug, Clone, Copy)]
pub struct Qp {
    /// QP number.
    pub qpn: u16,
    /// SQ ring base and log2 size.
    pub sq: (u64, u8),
    /// RQ ring base and log2 size.
    pub rq: (u64, u8),
    /// SQ producer index.
    pub sq_pi: u16,
    /// RQ producer index.
    pub rq_pi: u16,
}

/// Creates QP `qpn` from its context entry (rings zeroed).
pub fn create_qp(b: &mut CoreBench, qpn: u16, ctx: &QpContext) -> Result<Qp, BenchError> {
    b.dma.mem.write(ctx.sq_base, &vec![0u8; 64 << ctx.sq_log]);
    b.dma.mem.write(ctx.rq_base, &vec![0u8; 32 << ctx.rq_log]);
    let mut e = [0u8; 64];
    ctx.emit(&mut e).map_err(|e| regmap_err("qp", e))?;
    write_ctx(b, table::QP, qpn, &e)?;
    Ok(Qp {
        qpn,
        sq: (ctx.sq_base, ctx.sq_log),
        rq: (ctx.rq_base, ctx.rq_log),
        sq_pi: ctx.sq_pi,
        rq_pi: ctx.rq_pi,
    })
}

/// Opens connection `index` from its hot-state entry (state OPEN: the port also broadcasts the open).
pub fn open_conn(b: &mut CoreBench, index: u16, hot: &ConnHot) -> Result<(), BenchError> {
    let mut e = [0u8; 64];
    hot.emit(&mut e).map_err(|e| regmap_err("conn", e))?;
    write_ctx(b, table::CONN, index, &e)
}

/// Opens the receive direction of connection `index`, whose send direction is open (a 0-RTT open, MR-CONN-16):
/// `hot` carries the peer's CID and ISN (`rcv_nxt`, `RCV_INIT` set) and the send fields as opened; the commit
/// has OPEN_PARAM's `rx_only` bit set, so the send pipelines keep their state.
pub fn open_conn_rx(b: &mut CoreBench, index: u16, hot: &ConnHot) -> Result<(), BenchError> {
    b.write(
        CTX_WINDOW + ctx::OPEN_PARAM,
        ctx::OPEN_PARAM_RESET | ctx::OPEN_PARAM_RX_ONLY,
    )?;
    let r = open_conn(b, index, hot);
    b.write(CTX_WINDOW + ctx::OPEN_PARAM, ctx::OPEN_PARAM_RESET)?;
    r
}

/// Posts a send work request: the SQE into the ring, then the SQ doorbell with the new producer index.
pub fn post_send(b: &mut CoreBench, qp: &mut Qp, sqe: &SqeRepr) -> Result<u16, BenchError> {
    let mut e = [0u8; 64];
    sqe.emit(&mut e).map_err(|e| regmap_err("sqe", e))?;
    let idx = qp.sq_pi;
    let slot = u64::from(idx & ((1u16 << qp.sq.1) - 1));
    b.dma.mem.write(qp.sq.0 + 64 * slot, &e);
    qp.sq_pi = qp.sq_pi.wrapping_add(1);
    b.write(
        QP_DB_WINDOW + u32::from(qp.qpn) * DEFAULT_DB_STRIDE + page::SQ_PI,
        u32::from(qp.sq_pi),
    )?;
    Ok(idx)
}

/// Posts a receive buffer: the RQE into the ring, then the RQ doorbell.
pub fn post_recv(b: &mut CoreBench, qp: &mut Qp, rqe: &RqeRepr) -> Result<u16, BenchError> {
    let mut e = [0u8; 32];
    rqe.emit(&mut e).map_err(|e| regmap_err("rqe", e))?;
    let idx = qp.rq_pi;
    let slot = u64::from(idx & ((1u16 << qp.rq.1) - 1));
    b.dma.mem.write(qp.rq.0 + 32 * slot, &e);
    qp.rq_pi = qp.rq_pi.wrapping_add(1);
    b.write(
        QP_DB_WINDOW + u32::from(qp.qpn) * DEFAULT_DB_STRIDE + page::RQ_PI,
        u32::from(qp.rq_pi),
    )?;
    Ok(idx)
}

/// QP number of [`connect`] on each side.
pub const QPN: u16 = 1;
/// CQ number of [`connect`] on each side.
pub const CQN: u16 = 1;
/// log2 of the SQ and RQ entries of [`connect`] (the CQ has twice as many).
pub const RING_LOG: u8 = 6;

/// The remote key of a region whose local key is `lkey` (the reference model's convention; the MR table
/// indexes both by key bits `8 + mr_bits - 1 .. 8`).
pub const fn rkey_of(lkey: u32) -> u32 {
    lkey ^ 0x5A00_0000
}

/// One side of a connected pair as [`connect`] programs it.
#[derive(Debug, Clone, Copy)]
pub struct Endpoint {
    /// MAC address.
    pub mac: [u8; 6],
    /// IPv4 address.
    pub ip: Ipv4Addr,
    /// Connection index (= own CID).
    pub conn: u16,
    /// Initial PSN of its send direction.
    pub isn: u32,
    /// Local key of its memory region.
    pub key: u32,
    /// Start of its memory region.
    pub buf: u64,
    /// Length of its memory region.
    pub buf_len: u64,
}

/// The hot state of a connection the firmware opens ([`ConnHot::opening`]).
pub fn open_hot(
    cid: u32,
    peer_cid: u32,
    flags: ConnFlags,
    windows: (u8, u8),
    isn: u32,
    rcv_isn: u32,
) -> ConnHot {
    ConnHot::opening(cid, peer_cid, flags, windows, isn, rcv_isn)
}

/// Programs one side of a connected pair: its endpoint addresses, one memory region over its buffer (all
/// rights; `rkey = lkey ^ 0x5A00_0000`, the reference model's convention), CQ [`CQN`] for both directions
/// (`2^(RING_LOG + 1)` entries at 0x8000), QP [`QPN`] (rings of `2^RING_LOG` entries at 0x1_0000 and 0x2_0000)
/// connected to the peer's QP [`QPN`], and the open connection (both ISNs known): the firmware's work.
pub fn connect(b: &mut CoreBench, me: &Endpoint, peer: &Endpoint) -> Result<(Qp, Cq), BenchError> {
    let (qp, cq) = setup_qp(b, me, peer.mac, peer.ip, u32::from(QPN))?;
    let hot = open_hot(
        u32::from(me.conn),
        u32::from(peer.conn),
        ConnFlags::RCV_INIT,
        (8, 8),
        me.isn,
        peer.isn,
    );
    open_conn(b, me.conn, &hot)?;
    Ok((qp, cq))
}

/// The part of [`connect`] that does not depend on the peer being a core: the endpoint addresses, the memory
/// region, CQ [`CQN`] and QP [`QPN`] connected to QP `peer_qpn` at `peer_mac` / `peer_ip`, with its connection
/// `me.conn` named in the QP but not opened (the firmware opens it once it knows the peer's CID and ISN).
pub fn setup_qp(
    b: &mut CoreBench,
    me: &Endpoint,
    peer_mac: [u8; 6],
    peer_ip: Ipv4Addr,
    peer_qpn: u32,
) -> Result<(Qp, Cq), BenchError> {
    set_endpoint(b, me.mac, me.ip)?;
    create_mr(
        b,
        &MrContext {
            valid: true,
            addr: me.buf,
            length: me.buf_len,
            lkey: me.key,
            rkey: rkey_of(me.key),
            access: MrAccess::ALL,
        },
    )?;
    let cq = create_cq(b, CQN, 0x8000, RING_LOG + 1)?;
    let qp = create_qp(
        b,
        QPN,
        &QpContext {
            state: QpState::Ready,
            sq_base: 0x1_0000,
            rq_base: 0x2_0000,
            sq_log: RING_LOG,
            rq_log: RING_LOG,
            sq_pi: 0,
            sq_ci: 0,
            rq_pi: 0,
            rq_ci: 0,
            rq_keep: false,
            send_cqn: u32::from(CQN),
            recv_cqn: u32::from(CQN),
            cid: u32::from(me.conn),
            remote: Some(QpRemote {
                qpn: peer_qpn,
                mac: peer_mac,
                ip: IpAddr::V4(peer_ip),
            }),
        },
    )?;
    Ok((qp, cq))
}

/// A QP that entered ERROR, as the core reports it on `m_axis_conn_err_*` (`metaroce_hdl::rel::records::QpError`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QpErrorEvent {
    /// The connection.
    pub conn: u16,
    /// The failing WR's completion status (`None`: a code the regmap does not define).
    pub status: Option<CqeStatus>,
    /// The failing WR's MSN, when a started WR failed.
    pub msn: Option<u32>,
}

/// Takes the oldest QP error the core reported, if any.
pub fn take_qp_error(b: &mut CoreBench) -> Option<QpErrorEvent> {
    use metaroce_hdl::rel::records::QpError;
    let beat = b.conn_err.got.pop_front()?;
    let mut v: u128 = 0;
    for (i, w) in beat.data.iter().enumerate().take(4) {
        v |= u128::from(*w) << (32 * i);
    }
    let f = QpError::default();
    let field = |off: usize, width: usize| (v >> off) & ((1u128 << width) - 1);
    let conn = field(f.get_my_offset_conn(), f.get_my_width_conn()) as u16;
    let status = field(f.get_my_offset_status(), f.get_my_width_status()) as u8;
    let msn = field(f.get_my_offset_msn(), f.get_my_width_msn()) as u32;
    let has = field(f.get_my_offset_has_msn(), 1) != 0;
    Some(QpErrorEvent {
        conn,
        status: CqeStatus::from_u8(status),
        msn: has.then_some(msn),
    })
}
