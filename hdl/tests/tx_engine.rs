//! The transmit engine end to end in rust-hdl's simulator: a QP context write, a connection open, SQEs in a
//! simulated host memory, an SQ doorbell; the engine fetches and validates the SQEs, segments the messages,
//! asks the gate (which refuses at random: nothing may be committed then), reads the payloads and emits
//! headers and payloads; the headers and payload bytes are compared with the reference model's plans for the
//! same work requests (spec 3.3-3.6, MR-WIRE-30, MR-REL-4 gate, MR-REL-19 control first, MR-REL-43
//! retransmission by PSN with RTX), then snd_una advances and the send completions must come out in posting
//! order (spec 8.10), a malformed SQE completing with an error in its place. Outputs see random back-pressure.
//! Seed: `TX_ENGINE_SEED` (printed).

use metaroce_hdl::dma::DmaDesc;
use metaroce_hdl::records::{CtxWrite, PktMeta, RtxReq};
use metaroce_hdl::rel::records::{ConnFail, ConnOpen, GateResp, UnaUpdate};
use metaroce_hdl::tx::tx_engine::TxEngine;
use metaroce_proto::transport::verbs::{Access, RemoteQp, SendOp, SendWr, Sge};
use metaroce_proto::transport::{CcKind, Endpoint, EndpointConfig, PlanHeaders, SparseMemory};
use metaroce_proto::wire::packet::TypeRepr;
use metaroce_regmap::command::QpState;
use metaroce_regmap::context::qp::{QpContext, QpRemote};
use metaroce_regmap::descriptor::cqe::{CqeOpcode, CqeStatus};
use metaroce_regmap::descriptor::sqe::{SqOp, SqeRepr};
use metaroce_regmap::queues::{page, DEFAULT_DB_STRIDE};
use rust_hdl::prelude::*;
use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, Ipv4Addr};

mod support;
use support::Rng;

type Eng = TxEngine<512, 64>;

fn b<const N: usize>(v: u64) -> Bits<N> {
    Bits::<N>::from(v)
}

fn bits512(bytes: &[u8]) -> Bits<512> {
    let mut v = Bits::<512>::default();
    for (i, x) in bytes.iter().enumerate().take(64) {
        for k in 0..8 {
            v = v.replace_bit(8 * i + k, (x >> k) & 1 == 1);
        }
    }
    v
}

/// Host memory: bytes by address (unwritten bytes read as a function of the address).
struct Host(HashMap<u64, u8>);
impl Host {
    fn read(&self, a: u64) -> u8 {
        *self
            .0
            .get(&a)
            .unwrap_or(&((a ^ (a >> 8) ^ (a >> 16)) as u8))
    }
    fn write(&mut self, a: u64, d: &[u8]) {
        for (i, x) in d.iter().enumerate() {
            self.0.insert(a + i as u64, *x);
        }
    }
}

#[derive(Default)]
struct Reader {
    q: VecDeque<(u64, u32)>,
    off: u32,
}

struct Bench {
    u: Box<Eng>,
    rng: Rng,
    now: u64,
    host: Host,
    sqe_rd: Reader,
    pay_rd: Reader,
    gate_q: VecDeque<(u32, bool)>,
    refuse_pct: u64,
    hdrs: Vec<PktMeta>,
    pays: Vec<Vec<u8>>,
    cur_pay: Vec<u8>,
    sent: Vec<(u32, u32, u16, bool)>,
    cpls: Vec<metaroce_hdl::records::Completion>,
    cpl_idx: Vec<u64>,
    refused: u32,
    ctl_taken: u32,
    /// READ records (conn, msn, addr, lkey, len) as the scheduler emits them.
    rdrecs: Vec<(u64, u64, u64, u64, u64)>,
    /// READ-response wait changes (conn, wait).
    rwaits: Vec<(u64, bool)>,
    /// QP errors (conn, status, msn if any) and stops (conn).
    qperrs: Vec<(u64, u64, Option<u64>)>,
    stops: Vec<u64>,
}

impl Bench {
    fn settle(&mut self) {
        assert!(simulate(&mut *self.u, 200), "no convergence");
    }

    /// One clock cycle: sample the outputs, drive the inputs, clock.
    fn cycle(&mut self) {
        let u = &mut self.u;
        self.now += 3;
        u.now.next = b(self.now);
        // Responders present their data; the ready signals are random.
        let r = self.rng.next();
        u.m_axis_hdr_tready.next = r & 3 != 0;
        u.m_axis_pay_tready.next = r & 12 != 0;
        u.m_axis_sent_tready.next = r & 16 != 0;
        u.m_axis_scpl_tready.next = r & 32 != 0;
        u.m_axis_gate_req_tready.next = r & 64 != 0;
        u.m_axis_sqe_rd_desc_tready.next = true;
        u.m_axis_dma_rd_desc_tready.next = r & 128 != 0;
        u.m_axis_rwait_tready.next = r & 256 != 0;
        u.m_axis_qperr_tready.next = r & 512 != 0;
        u.m_axis_stop_tready.next = r & 1024 != 0;
        for (rd, sqe) in [(&self.sqe_rd, true), (&self.pay_rd, false)] {
            let (data, keep, last, valid) = match rd.q.front() {
                Some(&(addr, len)) => {
                    let n = (len - rd.off).min(64);
                    let bytes: Vec<u8> = (0..n)
                        .map(|i| self.host.read(addr + (rd.off + i) as u64))
                        .collect();
                    let keep = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
                    (
                        bits512(&bytes),
                        keep,
                        rd.off + n >= len,
                        (r >> 8) & 1 == 1 || sqe,
                    )
                }
                None => (Bits::<512>::default(), 0, false, false),
            };
            if sqe {
                u.s_axis_sqe_rd_tdata.next = data;
                u.s_axis_sqe_rd_tkeep.next = b(keep);
                u.s_axis_sqe_rd_tlast.next = last;
                u.s_axis_sqe_rd_tvalid.next = valid;
            } else {
                u.s_axis_dma_rd_tdata.next = data;
                u.s_axis_dma_rd_tkeep.next = b(keep);
                u.s_axis_dma_rd_tlast.next = last;
                u.s_axis_dma_rd_tvalid.next = valid;
            }
        }
        let gate = self.gate_q.front().copied();
        u.s_axis_gate_resp_tvalid.next = gate.is_some();
        let mut resp = GateResp::default();
        if let Some((psn, allow)) = gate {
            resp.psn = b(psn as u64);
            resp.allow = allow;
            resp.ev = b((psn & 0x3FFF) as u64);
            resp.path = b((psn & 0x3F) as u64);
            resp.retry_at = b(0);
        }
        u.s_axis_gate_resp_tdata.next = resp;
        self.settle();
        let u = &mut self.u;
        // Handshakes of this cycle.
        if u.m_axis_sqe_rd_desc_tvalid.val() && u.m_axis_sqe_rd_desc_tready.val() {
            let d: DmaDesc = u.m_axis_sqe_rd_desc_tdata.val();
            self.sqe_rd
                .q
                .push_back((d.addr.to_u64(), d.len.to_u64() as u32));
        }
        if u.m_axis_dma_rd_desc_tvalid.val() && u.m_axis_dma_rd_desc_tready.val() {
            let d: DmaDesc = u.m_axis_dma_rd_desc_tdata.val();
            assert!(d.len.to_u64() > 0, "zero-length payload read");
            self.pay_rd
                .q
                .push_back((d.addr.to_u64(), d.len.to_u64() as u32));
        }
        for (rd, valid, ready) in [
            (
                &mut self.sqe_rd,
                u.s_axis_sqe_rd_tvalid.val(),
                u.s_axis_sqe_rd_tready.val(),
            ),
            (
                &mut self.pay_rd,
                u.s_axis_dma_rd_tvalid.val(),
                u.s_axis_dma_rd_tready.val(),
            ),
        ] {
            if valid && ready {
                let len = rd.q.front().expect("data without a read").1;
                rd.off += 64;
                if rd.off >= len {
                    rd.q.pop_front();
                    rd.off = 0;
                }
            }
        }
        if u.m_axis_gate_req_tvalid.val() && u.m_axis_gate_req_tready.val() {
            let g = u.m_axis_gate_req_tdata.val();
            let allow = self.rng.below(100) >= self.refuse_pct;
            if !allow {
                self.refused += 1;
            }
            self.gate_q.push_back((g.psn.to_u64() as u32, allow));
        }
        if u.s_axis_gate_resp_tvalid.val() && u.s_axis_gate_resp_tready.val() {
            self.gate_q.pop_front();
        }
        if u.m_axis_hdr_tvalid.val() && u.m_axis_hdr_tready.val() {
            self.hdrs.push(u.m_axis_hdr_tdata.val());
        }
        if u.m_axis_pay_tvalid.val() && u.m_axis_pay_tready.val() {
            let d = u.m_axis_pay_tdata.val();
            let k = u.m_axis_pay_tkeep.val().to_u64();
            for i in 0..64 {
                if (k >> i) & 1 == 1 {
                    self.cur_pay.push(d.get_bits::<8>(8 * i).to_u64() as u8);
                }
            }
            if u.m_axis_pay_tlast.val() {
                self.pays.push(std::mem::take(&mut self.cur_pay));
            }
        }
        if u.m_axis_sent_tvalid.val() && u.m_axis_sent_tready.val() {
            let s = u.m_axis_sent_tdata.val();
            self.sent.push((
                s.psn.to_u64() as u32,
                s.ts.to_u64() as u32,
                s.ev.to_u64() as u16,
                s.rtx,
            ));
        }
        if u.m_axis_rdrec_tvalid.val() {
            let r = u.m_axis_rdrec_tdata.val();
            self.rdrecs.push((
                r.conn.to_u64(),
                r.msn.to_u64(),
                r.addr.to_u64(),
                r.lkey.to_u64(),
                r.len.to_u64(),
            ));
        }
        if u.m_axis_rwait_tvalid.val() && u.m_axis_rwait_tready.val() {
            let w = u.m_axis_rwait_tdata.val();
            self.rwaits.push((w.conn.to_u64(), w.wait));
        }
        if u.m_axis_qperr_tvalid.val() && u.m_axis_qperr_tready.val() {
            let e = u.m_axis_qperr_tdata.val();
            self.qperrs.push((
                e.conn.to_u64(),
                e.status.to_u64(),
                e.has_msn.then(|| e.msn.to_u64()),
            ));
        }
        if u.m_axis_stop_tvalid.val() && u.m_axis_stop_tready.val() {
            self.stops.push(u.m_axis_stop_tdata.val().to_u64());
        }
        if u.m_axis_scpl_tvalid.val() && u.m_axis_scpl_tready.val() {
            self.cpls.push(u.m_axis_scpl_tdata.val());
            self.cpl_idx.push(u.m_axis_scpl_tuser.val().to_u64());
        }
        let ctl_taken = u.s_axis_ctl_tvalid.val() && u.s_axis_ctl_tready.val();
        if ctl_taken {
            self.ctl_taken += 1;
        }
        u.clk.next = true.into();
        self.settle();
        let u = &mut self.u;
        u.clk.next = false.into();
        if ctl_taken {
            u.s_axis_ctl_tvalid.next = false;
        }
        u.cfg_wr_en.next = false;
        u.s_axis_ctxw_tvalid.next = false;
        self.settle();
    }

    /// Offers a record on an input stream until taken.
    fn offer(&mut self, set: impl Fn(&mut Eng, bool), ready: impl Fn(&Eng) -> bool) {
        set(&mut self.u, true);
        for _ in 0..2000 {
            self.settle();
            let taken = ready(&self.u);
            self.cycle();
            if taken {
                set(&mut self.u, false);
                return;
            }
        }
        panic!("input never taken");
    }
}

#[test]
fn mr_rel_19_43_tx_engine_matches_the_model_and_completes_in_order() {
    let seed = std::env::var("TX_ENGINE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x7E_2026u64);
    println!("TX_ENGINE_SEED={seed}");
    let mut refused = 0;
    for round in 0..6 {
        refused += run(seed.wrapping_add(round));
    }
    assert!(refused > 0, "the gate never refused: weak test");
}

/// One run; returns the number of gate refusals.
fn run(seed: u64) -> u32 {
    let mut rng = Rng(seed);
    let mtu = 512u32 << rng.below(2);
    // The model side: the same work requests on a model endpoint.
    let mut cfg =
        EndpointConfig::metaroce([2, 0, 0, 0, 0, 1], IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)));
    cfg.mtu = mtu;
    cfg.cc = CcKind::None;
    let (dscp, wlog) = (cfg.dscp_data, cfg.window_log2);
    let mut ep = Endpoint::new(cfg, SparseMemory::default());
    let mr = ep
        .register_mr(0x100_0000, 1 << 24, Access::LOCAL_WRITE)
        .expect("mr");
    let qpn_m = ep.create_qp(64, 16).expect("qp");
    let peer_mac = [2, 0, 0, 0, 0, 2];
    ep.connect_qp(
        qpn_m,
        RemoteQp {
            mac: peer_mac,
            ip: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)),
            qpn: 7,
        },
    )
    .expect("connect");
    let mut wrs = Vec::new();
    for i in 0..4u64 {
        let (op, sq) = match rng.below(4) {
            0 => (SendOp::Write, SqOp::Write),
            1 => {
                let v = rng.next() as u32;
                (SendOp::WriteImm(v), SqOp::WriteImm(v))
            }
            2 => (SendOp::Send, SqOp::Send),
            _ => (SendOp::Read, SqOp::Read),
        };
        let is_send = matches!(sq, SqOp::Send);
        let len = 1 + rng.below(2 * mtu as u64 + 100) as u32;
        let wr = SendWr {
            wr_id: 100 + i,
            op,
            local: Sge {
                addr: 0x100_0000 + rng.below(1 << 16),
                len,
                lkey: mr.lkey,
            },
            remote_addr: if is_send { 0 } else { rng.next() },
            rkey: if is_send { 0 } else { rng.next() as u32 },
            solicited: false,
        };
        ep.post_send(10, qpn_m, wr).expect("post");
        wrs.push((wr, sq));
    }
    let mut plans = Vec::new();
    for t in 0..200u64 {
        if let Some(p) = ep.poll_transmit_plan(100 + t) {
            if let PlanHeaders::MetaRoce(m) = p.headers {
                if let TypeRepr::Data(_) = m.ty {
                    plans.push(p);
                }
            }
        }
    }
    let PlanHeaders::MetaRoce(m0) = plans[0].headers else {
        unreachable!()
    };
    let open = m0.open.expect("Open extension");
    // The connection index is the CID's low 16 bits (records.rs); the engine here has 16 connections.
    let conn = open.scid & 0xFFFF;
    assert!(conn < 16, "model CID {:#x}", open.scid);

    // The engine side.
    let mut u = Box::new(Eng::new(4, 4, 5));
    u.connect_all();
    let mut bench = Bench {
        u,
        rng: Rng(seed ^ 0x55),
        now: 1000,
        host: Host(HashMap::new()),
        sqe_rd: Reader::default(),
        pay_rd: Reader::default(),
        gate_q: VecDeque::new(),
        refuse_pct: 30,
        hdrs: Vec::new(),
        pays: Vec::new(),
        cur_pay: Vec::new(),
        sent: Vec::new(),
        cpls: Vec::new(),
        cpl_idx: Vec::new(),
        refused: 0,
        ctl_taken: 0,
        rdrecs: Vec::new(),
        rwaits: Vec::new(),
        qperrs: Vec::new(),
        stops: Vec::new(),
    };
    {
        let u = &mut bench.u;
        u.rst.next = true;
        u.cfg_dscp_data.next = b(dscp as u64);
        u.cfg_mtu_log.next = b(open.mtu_log as u64);
        u.cfg_max_msg_len.next = b(1 << 30);
        u.cfg_conn_msgs.next = b(8);
        u.cfg_max_started.next = b(8);
        u.cfg_poll_ns.next = b(50);
    }
    bench.cycle();
    bench.u.rst.next = false;
    bench.cycle();
    // QP 1 with the model's CID.
    let qpn = 1u64;
    let sq_base = 0x4_0000u64;
    let ctx = QpContext {
        state: QpState::Ready,
        sq_base,
        rq_base: 0x8_0000,
        sq_log: 3,
        rq_log: 3,
        sq_pi: 0,
        sq_ci: 0,
        rq_pi: 0,
        rq_ci: 0,
        rq_keep: false,
        send_cqn: 9,
        recv_cqn: 9,
        cid: open.scid,
        remote: Some(QpRemote {
            qpn: 7,
            mac: peer_mac,
            ip: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)),
        }),
    };
    let mut buf = [0u8; 64];
    ctx.emit(&mut buf).expect("qp ctx");
    bench.u.s_axis_ctxw_tdata.next = CtxWrite {
        table: b(metaroce_hdl::ctx::table::QP as u64),
        index: b(qpn),
        data: bits512(&buf),
    };
    bench.u.s_axis_ctxw_tvalid.next = true;
    bench.cycle();
    let co = ConnOpen {
        conn: b(conn as u64),
        isn: b(open.isn as u64),
        own_wlog: b((wlog - 8) as u64),
        mtu_log: b(mtu.min(4096).trailing_zeros() as u64),
        peer_cid: b(0),
        ..Default::default()
    };
    bench.offer(
        move |u, v| {
            u.s_axis_open_tdata.next = co;
            u.s_axis_open_tvalid.next = v;
        },
        |u| u.s_axis_open_tready.val(),
    );
    // SQEs: the four work requests with a malformed one (reserved bit) after the second.
    let mut slot = 0u64;
    for (i, (wr, sq)) in wrs.iter().enumerate() {
        let r = SqeRepr {
            wr_id: wr.wr_id,
            op: *sq,
            local_addr: wr.local.addr,
            length: wr.local.len,
            lkey: wr.local.lkey,
            remote_addr: wr.remote_addr,
            rkey: wr.rkey,
            solicited: wr.solicited,
        };
        let mut e = [0u8; 64];
        r.emit(&mut e).expect("sqe");
        bench.host.write(sq_base + slot * 64, &e);
        slot += 1;
        if i == 1 {
            let mut bad = e;
            bad[2] = 1; // reserved byte
            bench.host.write(sq_base + slot * 64, &bad);
            slot += 1;
        }
    }
    bench.u.cfg_wr_en.next = true;
    bench.u.cfg_wr_addr.next = b(qpn * DEFAULT_DB_STRIDE as u64 + page::SQ_PI as u64);
    bench.u.cfg_wr_data.next = b(slot);
    bench.cycle();
    // An ACK header to send (from the receive side) arrives while data is queued: it goes out first
    // (MR-REL-19) and is never mixed with the DATA headers' payloads.
    let ack = PktMeta {
        ptype: b(metaroce_proto::wire::PacketType::Ack as u64),
        psn: b(0x1234_5678),
        ..Default::default()
    };
    bench.u.s_axis_ctl_tdata.next = ack;
    bench.u.s_axis_ctl_tvalid.next = true;
    // Run until every planned packet left (the gate refuses some at random).
    for _ in 0..20_000 {
        if bench.hdrs.len() > plans.len()
            && bench.pays.len() >= plans.iter().filter(|p| p.payload_len > 0).count()
        {
            break;
        }
        bench.cycle();
    }
    assert_eq!(bench.ctl_taken, 1, "control header");
    let ctl_at = bench
        .hdrs
        .iter()
        .position(|h| h.psn == b(0x1234_5678))
        .expect("ACK header sent");
    assert!(
        ctl_at <= 1,
        "the ACK waited behind DATA headers: position {ctl_at}"
    );
    bench.hdrs.remove(ctl_at);
    assert_eq!(bench.hdrs.len(), plans.len(), "headers sent");
    let mut pay_i = 0;
    for (k, (h, p)) in bench.hdrs.iter().zip(&plans).enumerate() {
        let PlanHeaders::MetaRoce(m) = p.headers else {
            unreachable!()
        };
        let TypeRepr::Data(d) = m.ty else {
            unreachable!()
        };
        let ctx = format!("packet {k}: {h:?} vs {p:?}");
        assert_eq!(h.psn, b(m.mbh.psn as u64), "{ctx}");
        assert_eq!(h.mbh_flags, b(m.mbh.flags.bits() as u64), "{ctx}");
        assert_eq!(h.payload_len, b(p.payload_len as u64), "{ctx}");
        assert_eq!(h.opcode, b(d.opcode as u64), "{ctx}");
        assert_eq!(h.dflags, b(d.flags.bits() as u64), "{ctx}");
        assert_eq!(h.msn, b(d.msn as u64), "{ctx}");
        assert_eq!(h.addr, b(d.addr), "{ctx}");
        assert_eq!(h.key, b(d.key as u64), "{ctx}");
        assert_eq!(h.msg_len, b(d.msg_len as u64), "{ctx}");
        assert_eq!(h.imm, b(d.imm.unwrap_or(0) as u64), "{ctx}");
        assert_eq!(h.isn, b(open.isn as u64), "{ctx}");
        assert_eq!(h.ox_scid, b(open.scid as u64), "{ctx}");
        assert_eq!(h.target_qpn, b(7), "{ctx}");
        assert_eq!(h.ev, b((m.mbh.psn & 0x3FFF) as u64), "{ctx}");
        let (spsn, sts, sev, srtx) = bench.sent[k];
        assert_eq!(
            (spsn, sts, sev, srtx),
            (
                m.mbh.psn,
                h.ts.to_u64() as u32,
                (m.mbh.psn & 0x3FFF) as u16,
                false
            )
        );
        if p.payload_len > 0 {
            let want: Vec<u8> = (0..p.payload_len as u64)
                .map(|i| bench.host.read(p.payload_addr + i))
                .collect();
            assert_eq!(bench.pays[pay_i], want, "payload of {ctx}");
            pay_i += 1;
        }
    }
    assert_eq!(pay_i, bench.pays.len(), "extra payloads");
    // MR-REL-43: a retransmission of a PSN in the middle is rebuilt with RTX.
    let k = plans.len() / 2;
    let PlanHeaders::MetaRoce(mk) = plans[k].headers else {
        unreachable!()
    };
    let rq = RtxReq {
        conn: b(conn as u64),
        psn: b(mk.mbh.psn as u64),
    };
    bench.refuse_pct = 0;
    bench.offer(
        move |u, v| {
            u.s_axis_rtx_tdata.next = rq;
            u.s_axis_rtx_tvalid.next = v;
        },
        |u| u.s_axis_rtx_tready.val(),
    );
    for _ in 0..2000 {
        if bench.hdrs.len() > plans.len() {
            break;
        }
        // (the ACK header was removed above: one more header is the retransmission)
        bench.cycle();
    }
    let h = bench.hdrs.last().expect("rtx header");
    assert_eq!(h.psn, b(mk.mbh.psn as u64));
    assert_eq!(
        h.mbh_flags,
        b((mk.mbh.flags | metaroce_proto::wire::MbhFlags::RTX).bits() as u64)
    );
    assert!(bench.sent.last().expect("sent").3, "TxSent.rtx");
    // snd_una past everything: completions in posting order, the malformed SQE in its place.
    assert!(bench.cpls.is_empty(), "completion before acknowledgement");
    let una = m0.mbh.psn.wrapping_add(plans.len() as u32);
    let uu = UnaUpdate {
        conn: b(conn as u64),
        snd_una: b(una as u64),
        peer_cid: b(0),
    };
    bench.offer(
        move |u, v| {
            u.s_axis_una_tdata.next = uu;
            u.s_axis_una_tvalid.next = v;
        },
        |u| u.s_axis_una_tready.val(),
    );
    for _ in 0..500 {
        bench.cycle();
    }
    // READs: each sent request gave the receive path its destination (MR-SEM-24); a READ completes only
    // after its response did, so the completions stop before the first READ until the responses arrive.
    let reads: Vec<usize> = (0..wrs.len())
        .filter(|&i| matches!(wrs[i].1, SqOp::Read))
        .collect();
    let want_recs: Vec<_> = reads
        .iter()
        .map(|&i| {
            let w = &wrs[i].0;
            (
                conn as u64,
                i as u64,
                w.local.addr,
                w.local.lkey as u64,
                w.local.len as u64,
            )
        })
        .collect();
    assert_eq!(bench.rdrecs, want_recs, "READ records");
    // The READ-response timer (MR-REL-58): stopped on the open; started once snd_una covers a READ that waits
    // for its response.
    let mut want_waits = vec![(conn as u64, false)];
    if !reads.is_empty() {
        want_waits.push((conn as u64, true));
    }
    assert_eq!(
        bench.rwaits, want_waits,
        "READ-response waits after the acknowledgement"
    );
    if let Some(&first) = reads.first() {
        // The malformed SQE (posted after WR 1) completes in its place.
        let before = first + usize::from(first >= 2);
        assert_eq!(
            bench.cpls.len(),
            before,
            "completions beyond a READ without its response"
        );
        for &i in &reads {
            let rd = metaroce_hdl::rx::completion::ReadDone {
                conn: b(conn as u64),
                msn: b(i as u64),
                bytes: b(wrs[i].0.local.len as u64),
            };
            bench.offer(
                move |u, v| {
                    u.s_axis_rdone_tdata.next = rd;
                    u.s_axis_rdone_tvalid.next = v;
                },
                |u| u.s_axis_rdone_tready.val(),
            );
        }
        for _ in 0..500 {
            bench.cycle();
        }
        // Every response arrived: the wait ends.
        want_waits.push((conn as u64, false));
        assert_eq!(
            bench.rwaits, want_waits,
            "READ-response waits after the responses"
        );
    }
    let mut want = Vec::new();
    for (i, (wr, sq)) in wrs.iter().enumerate() {
        let op = match sq {
            SqOp::Write | SqOp::WriteImm(_) => CqeOpcode::Write,
            SqOp::Send | SqOp::SendImm(_) => CqeOpcode::Send,
            SqOp::Read => CqeOpcode::Read,
        };
        want.push((
            wr.wr_id,
            CqeStatus::Success as u64,
            op as u64,
            wr.local.len as u64,
        ));
        if i == 1 {
            want.push((
                wr.wr_id,
                CqeStatus::LocalProtection as u64,
                CqeOpcode::Write as u64,
                0,
            ));
        }
    }
    let got: Vec<_> = bench
        .cpls
        .iter()
        .map(|c| {
            assert_eq!(c.cqn, b(9));
            assert_eq!(c.qpn, b(qpn));
            (
                c.wr_id.to_u64(),
                c.status.to_u64(),
                c.opcode.to_u64(),
                c.byte_len.to_u64(),
            )
        })
        .collect();
    // The malformed entry keeps the wr_id and opcode bytes of the SQE it was copied from.
    let got_fixed: Vec<_> = got
        .iter()
        .zip(&want)
        .map(|(g, w)| if w.1 != 0 { (w.0, g.1, w.2, g.3) } else { *g })
        .collect();
    assert_eq!(got_fixed, want, "completions");
    // Each completion names its SQE's ring index: the ring starts at 0 and completes in posting order.
    let idx: Vec<u64> = (0..want.len() as u64).collect();
    assert_eq!(bench.cpl_idx, idx, "wqe_index of the send completions");
    // MR-SEM-35: a fatal NACK naming a message already completed is ignored.
    let fail = |status: CqeStatus, msn: u64, strict: bool| ConnFail {
        conn: b(conn as u64),
        status: b(status as u64),
        msn: b(msn),
        by_msn: strict,
        strict,
    };
    let f = fail(CqeStatus::RemoteAccess, 1, true);
    bench.offer(
        move |u, v| {
            u.s_axis_fail_tdata.next = f;
            u.s_axis_fail_tvalid.next = v;
        },
        |u| u.s_axis_fail_tready.val(),
    );
    for _ in 0..200 {
        bench.cycle();
    }
    assert!(
        bench.qperrs.is_empty() && bench.stops.is_empty(),
        "a stale fatal NACK failed the QP"
    );
    // The retry limit with nothing outstanding: the QP enters ERROR (no WR fails), once; the sender engine is
    // told; a WR posted afterwards completes Flushed (MR-SEM-38) and sends nothing.
    for f in [fail(CqeStatus::RetryExceeded, 0, false); 2] {
        bench.offer(
            move |u, v| {
                u.s_axis_fail_tdata.next = f;
                u.s_axis_fail_tvalid.next = v;
            },
            |u| u.s_axis_fail_tready.val(),
        );
    }
    for _ in 0..200 {
        bench.cycle();
    }
    assert_eq!(
        bench.qperrs,
        vec![(conn as u64, CqeStatus::RetryExceeded as u64, None)]
    );
    assert_eq!(bench.stops, vec![conn as u64]);
    let (wr, sq) = &wrs[0];
    let mut e = [0u8; 64];
    SqeRepr {
        wr_id: 0xF1,
        op: *sq,
        local_addr: wr.local.addr,
        length: wr.local.len,
        lkey: wr.local.lkey,
        remote_addr: wr.remote_addr,
        rkey: wr.rkey,
        solicited: false,
    }
    .emit(&mut e)
    .expect("sqe");
    bench.host.write(sq_base + slot * 64, &e);
    let (hdrs, ncpl) = (bench.hdrs.len(), bench.cpls.len());
    bench.u.cfg_wr_en.next = true;
    bench.u.cfg_wr_addr.next = b(qpn * DEFAULT_DB_STRIDE as u64 + page::SQ_PI as u64);
    bench.u.cfg_wr_data.next = b(slot + 1);
    bench.cycle();
    for _ in 0..500 {
        bench.cycle();
    }
    assert_eq!(bench.hdrs.len(), hdrs, "sent on a QP in ERROR");
    assert_eq!(bench.cpls.len(), ncpl + 1, "the flushed completion");
    let c = bench.cpls.last().expect("completion");
    assert_eq!(
        (c.wr_id.to_u64(), c.status.to_u64(), c.byte_len.to_u64()),
        (0xF1, CqeStatus::Flushed as u64, 0)
    );
    bench.refused
}
