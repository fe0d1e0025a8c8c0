//! Receive completion stage (MR-SEM-18..22, MR-SEM-33, MR-SEM-36, spec 8.5 and 8.9) in rust-hdl's simulator,
//! against a reference of the model's receive message table (`metaroce_proto::transport::metaroce::recv`:
//! `on_data`'s message-table checks, `fail_msg` and `deliver` over `rx_msgs`, `rx_base_msn`, `rx_failed`).
//! Every packet's final verdict and every completion, READ hand-off and READ_RESP report is compared with the
//! reference as it leaves; the directed tests also assert the spec outcome of each step explicitly. Every
//! output stream gets random back-pressure and is checked to hold its data while `valid && !ready`; the RQE
//! pop answers come after a random delay. Seed: `METAROCE_SEED` (printed); `METAROCE_ITERS` sets the packet
//! count of the random test (default 1500).
//!
//! Regression tests hold the bugs this bench found, one each: RAM writes storing the table words before their
//! update, a READ_REQ with a length never completing, an upstream failure with `drop` set (as the MR check and
//! the receive queue emit it) not failing the message, and a failed message's retransmission dropped as ACCESS
//! where the model counts INVALID.

use metaroce_hdl::records::{Completion, PktMeta};
use metaroce_hdl::rel::records::ConnOpen;
use metaroce_hdl::rx::completion::{ReadDone, RxCompletion};
use metaroce_hdl::rx::drop;
use metaroce_hdl::rx::mr_check::RxCheck;
use metaroce_hdl::rx::records::ReadReq;
use metaroce_hdl::rx::recv_queue::RqePop;
use metaroce_proto::wire::{DataFlags, NackCode, Opcode, PacketType};
use metaroce_regmap::descriptor::cqe::{CqeOpcode, CqeStatus};
use rust_hdl::prelude::*;
use std::collections::VecDeque;

mod support;
use support::{env, Rng};

/// 4 connections, 8 message slots each.
type Uut = RxCompletion<2, 3, 5>;
const NCONN: usize = 4;
const SLOTS: u32 = 8;
/// The receive queue's `cfg_rnr_timer_us`, preset in `tuser.aux` of every examined WRITE_IMM (recv_queue docs).
const RNR_TIMER: u32 = 0x0123;
/// Payload bytes per packet in the generated messages.
const MTU: u32 = 256;

const WRITE: u8 = Opcode::Write as u8;
const WRITE_IMM: u8 = Opcode::WriteImm as u8;
const SEND: u8 = Opcode::Send as u8;
const SEND_IMM: u8 = Opcode::SendImm as u8;
const READ_REQ: u8 = Opcode::ReadReq as u8;
const READ_RESP: u8 = Opcode::ReadResp as u8;
const FIRST: u8 = DataFlags::FIRST.0;
const LAST: u8 = DataFlags::LAST.0;
const SE: u8 = DataFlags::SE.0;

fn seed() -> u64 {
    let s = env("METAROCE_SEED", 0x00c0_ffee_1234);
    println!("METAROCE_SEED={s}");
    s
}

// ---------------------------------------------------------------------------------------------------------
// Reference: the model's receive message table.

#[derive(Clone, Copy, Debug, PartialEq)]
enum St {
    Empty,
    Active,
    Failed(u8),
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    st: St,
    op: u8,
    len: u32,
    got: u32,
    imm: u32,
    addr: u64,
    key: u32,
    /// The LAST packet carried SE (the completion's solicited flag).
    se: bool,
    owes: bool,
}

const EMPTY: Slot = Slot {
    st: St::Empty,
    op: 0,
    len: 0,
    got: 0,
    imm: 0,
    addr: 0,
    key: 0,
    se: false,
    owes: false,
};

/// One posted receive WQE as the receive queue reports it when consumed.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Rqe {
    wr_id: u64,
    index: u16,
    qpn: u32,
    cqn: u32,
}

struct RefConn {
    base: u32,
    failed: Option<(u32, u8)>,
    slots: [Slot; SLOTS as usize],
    rq: VecDeque<Rqe>,
}

/// How the reference decided a packet (for coverage counts).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Why {
    Passed,
    ErrorState,
    Far,
    FailedSlot,
    Mismatch,
    UpstreamFail,
    UpstreamNack,
    Rnr,
    Accepted,
}

#[derive(Default)]
struct Model {
    c: Vec<RefConn>,
    /// Packets that left so far (the completion's packet number).
    pkts_out: u16,
    exp_pkt: VecDeque<(PktMeta, RxCheck, Why)>,
    exp_rcpl: VecDeque<(Completion, u32)>,
    exp_rr: VecDeque<ReadReq>,
    /// With the packet number after which it completed (`tuser`).
    exp_rd: VecDeque<(ReadDone, u16)>,
}

impl Model {
    fn new() -> Self {
        Model {
            c: (0..NCONN)
                .map(|_| RefConn {
                    base: 0,
                    failed: None,
                    slots: [EMPTY; SLOTS as usize],
                    rq: VecDeque::new(),
                })
                .collect(),
            ..Default::default()
        }
    }

    /// `reset_receive`: the connection's table, base MSN and error state (its QP's RQ stays).
    fn open(&mut self, ci: usize) {
        let c = &mut self.c[ci];
        c.base = 0;
        c.failed = None;
        c.slots = [EMPTY; SLOTS as usize];
    }

    /// An RQE posted, then the doorbell's retry of stalled completions (`deliver_in_order`).
    fn post(&mut self, ci: usize, r: Rqe) {
        self.c[ci].rq.push_back(r);
        self.deliver(ci);
    }

    /// A packet through the stage: its final verdict, then in-order delivery.
    fn packet(&mut self, m: &PktMeta, c: &RxCheck) -> (PktMeta, RxCheck, Why) {
        let (mut om, mut oc) = (*m, *c);
        let ci = m.conn.to_u64() as usize % NCONN;
        // DATA that passed the earlier stages, or that they failed (`fail_msg` of the MR / RQ checks: nack and
        // fail with drop ACCESS / INVALID, or drop 0 as the block also accepts).
        let d = m.drop.to_u64();
        let upstream_failed =
            c.nack && c.fail && (d == drop::ACCESS as u64 || d == drop::INVALID as u64);
        let examined = (d == 0 || upstream_failed)
            && m.ptype.to_u64() == PacketType::Data as u64
            && !m.trimmed;
        let why = if examined {
            self.verdict(ci, &mut om, &mut oc)
        } else {
            Why::Passed
        };
        self.pkts_out = self.pkts_out.wrapping_add(1);
        self.exp_pkt.push_back((om, oc, why));
        self.deliver(ci);
        (om, oc, why)
    }

    /// `on_data`'s message-table checks in the model's order (the earlier stages' verdict in `c`).
    fn verdict(&mut self, ci: usize, om: &mut PktMeta, oc: &mut RxCheck) -> Why {
        let conn = &mut self.c[ci];
        let msn = om.msn.to_u64() as u32;
        let op = om.opcode.to_u64() as u8;
        let mlen = om.msg_len.to_u64() as u32;
        let plen = om.payload_len.to_u64() as u32;
        // After a failed message nothing later is accepted; the error is repeated (MR-SEM-36).
        if let Some((f, code)) = conn.failed {
            if (msn.wrapping_sub(f) as i32) > 0 {
                nack(oc, code, f, false);
                om.drop = (drop::INVALID as u64).to_bits();
                return Why::ErrorState;
            }
        }
        // Outside the message table: dropped, acknowledged, not NACKed.
        if msn.wrapping_sub(conn.base) >= SLOTS {
            oc.nack = false;
            oc.fail = false;
            oc.place = false;
            om.drop = (drop::INVALID as u64).to_bits();
            return Why::Far;
        }
        let idx = (msn % SLOTS) as usize;
        let s = conn.slots[idx];
        if let St::Failed(code) = s.st {
            // The model counts these under `drops.invalid` whatever the code.
            nack(oc, code, msn, false);
            om.drop = (drop::INVALID as u64).to_bits();
            return Why::FailedSlot;
        }
        let fail =
            |conn: &mut RefConn, om: &mut PktMeta, oc: &mut RxCheck, code: u8, owes: bool| {
                if conn
                    .failed
                    .is_none_or(|(f, _)| (msn.wrapping_sub(f) as i32) < 0)
                {
                    conn.failed = Some((msn, code));
                }
                conn.slots[idx] = Slot {
                    st: St::Failed(code),
                    op,
                    len: mlen,
                    got: 0,
                    owes,
                    ..EMPTY
                };
                nack(oc, code, msn, true);
                oc.owes_wqe = owes;
                om.drop = (if code == NackCode::Access as u8 {
                    drop::ACCESS
                } else {
                    drop::INVALID
                } as u64)
                    .to_bits();
            };
        if s.st == St::Active && (s.op != op || s.len != mlen) {
            fail(conn, om, oc, NackCode::Invalid as u8, false);
            return Why::Mismatch;
        }
        if oc.nack {
            if oc.fail {
                let (code, owes) = (oc.code.to_u64() as u8, oc.owes_wqe);
                fail(conn, om, oc, code, owes);
                return Why::UpstreamFail;
            }
            return Why::UpstreamNack;
        }
        if op == WRITE_IMM && s.st == St::Empty && oc.rq_empty {
            // MR-SEM-20: no RQE for the immediate; `aux` keeps the preset RNR timer.
            oc.nack = true;
            oc.code = (NackCode::Rnr as u64).to_bits();
            oc.place = false;
            return Why::Rnr;
        }
        let sl = &mut conn.slots[idx];
        if sl.st == St::Empty {
            *sl = Slot {
                st: St::Active,
                op,
                len: mlen,
                got: 0,
                imm: om.imm.to_u64() as u32,
                addr: om.addr.to_u64(),
                key: om.key.to_u64() as u32,
                se: false,
                owes: false,
            };
        }
        sl.got = sl.got.wrapping_add(plen);
        let fl = om.dflags.to_u64() as u8;
        if fl & LAST != 0 {
            sl.se = fl & SE != 0;
        }
        Why::Accepted
    }

    /// `deliver`: completes messages strictly in MSN order from the base.
    fn deliver(&mut self, ci: usize) {
        loop {
            let user_hi = (self.pkts_out as u32) << 16;
            let conn = &mut self.c[ci];
            let idx = (conn.base % SLOTS) as usize;
            let s = conn.slots[idx];
            match s.st {
                St::Empty => return,
                St::Failed(_) => {
                    // MR-SEM-33: the WQE of a too-small SEND completes LocalLength, byte_len 0.
                    if s.owes {
                        if let Some(w) = conn.rq.pop_front() {
                            self.exp_rcpl.push_back((
                                cpl(&w, CqeOpcode::Recv, CqeStatus::LocalLength, 0, 0, 0),
                                user_hi | w.index as u32,
                            ));
                        }
                        conn.slots[idx].owes = false;
                    }
                    return;
                }
                St::Active => {}
            }
            // `RecvMsg::complete`: every byte arrived (a READ_REQ: the request arrived).
            if !(s.op == READ_REQ || s.got >= s.len) {
                return;
            }
            match s.op {
                WRITE => {}
                WRITE_IMM | SEND | SEND_IMM => {
                    let Some(w) = conn.rq.pop_front() else { return };
                    let (opc, imm, fimm) = match s.op {
                        WRITE_IMM => (CqeOpcode::RecvWriteImm, s.imm, 1),
                        SEND_IMM => (CqeOpcode::Recv, s.imm, 1),
                        _ => (CqeOpcode::Recv, 0, 0),
                    };
                    let flags = fimm | if s.se { 2 } else { 0 };
                    self.exp_rcpl.push_back((
                        cpl(&w, opc, CqeStatus::Success, s.len, imm, flags),
                        user_hi | w.index as u32,
                    ));
                }
                READ_REQ => self.exp_rr.push_back(ReadReq {
                    conn: (ci as u64).to_bits(),
                    msn: (conn.base as u64).to_bits(),
                    local_addr: s.addr.to_bits(),
                    remote_addr: 0u64.to_bits(),
                    len: (s.len as u64).to_bits(),
                }),
                READ_RESP => self.exp_rd.push_back((
                    ReadDone {
                        conn: (ci as u64).to_bits(),
                        msn: (s.key as u64).to_bits(),
                        bytes: (s.got as u64).to_bits(),
                    },
                    (user_hi >> 16) as u16,
                )),
                _ => return,
            }
            conn.slots[idx] = EMPTY;
            conn.base = conn.base.wrapping_add(1);
        }
    }
}

fn nack(oc: &mut RxCheck, code: u8, aux: u32, fail: bool) {
    oc.nack = true;
    oc.fail = fail;
    oc.code = (code as u64).to_bits();
    oc.aux = (aux as u64).to_bits();
    oc.place = false;
}

fn cpl(w: &Rqe, op: CqeOpcode, st: CqeStatus, len: u32, imm: u32, flags: u8) -> Completion {
    Completion {
        cqn: (w.cqn as u64).to_bits(),
        qpn: (w.qpn as u64).to_bits(),
        wr_id: w.wr_id.to_bits(),
        status: (st as u64).to_bits(),
        opcode: (op as u64).to_bits(),
        byte_len: (len as u64).to_bits(),
        imm: (imm as u64).to_bits(),
        flags: (flags as u64).to_bits(),
    }
}

// ---------------------------------------------------------------------------------------------------------
// Test bench.

struct Tb {
    u: Box<Uut>,
    rng: Rng,
    /// Percent of cycles an output is ready.
    ready_pct: u64,
    /// Percent of cycles the packet source idles before offering the next packet.
    idle_pct: u64,
    m: Model,
    /// The receive queues the pop port answers from.
    rq: Vec<VecDeque<Rqe>>,
    next_wr: u64,
    /// The pop answer being presented and its remaining delay.
    popped: Option<(RqePop, u64)>,
    offer: Option<(PktMeta, RxCheck)>,
    open_req: Option<u16>,
    kick: Option<u16>,
    /// Outputs stalled last cycle (data that must be held).
    st_pkt: Option<(PktMeta, RxCheck)>,
    st_rcpl: Option<(Completion, Bits<32>)>,
    st_rr: Option<ReadReq>,
    st_rd: Option<(ReadDone, u16)>,
    st_pop: Option<Bits<16>>,
    /// Observed outputs.
    pkts: Vec<(PktMeta, RxCheck)>,
    rcpl: Vec<(Completion, u32)>,
    rr: Vec<ReadReq>,
    rd: Vec<(ReadDone, u16)>,
    /// Per taken packet: input, reference verdict.
    taken: Vec<(PktMeta, RxCheck, Why)>,
    cycles: u64,
}

impl Tb {
    fn new(seed: u64, ready_pct: u64, idle_pct: u64) -> Self {
        let mut u = Box::new(Uut::new());
        u.connect_all();
        let mut tb = Tb {
            u,
            rng: Rng(seed),
            ready_pct,
            idle_pct,
            m: Model::new(),
            rq: vec![VecDeque::new(); NCONN],
            next_wr: 0x1000,
            popped: None,
            offer: None,
            open_req: None,
            kick: None,
            st_pkt: None,
            st_rcpl: None,
            st_rr: None,
            st_rd: None,
            st_pop: None,
            pkts: Vec::new(),
            rcpl: Vec::new(),
            rr: Vec::new(),
            rd: Vec::new(),
            taken: Vec::new(),
            cycles: 0,
        };
        tb.u.rst.next = true;
        tb.clock();
        tb.clock();
        tb.u.rst.next = false;
        // Reset leaves the RAMs as they are: open every connection, as the core does before use.
        for c in 0..NCONN {
            tb.open(c);
        }
        tb
    }

    fn clock(&mut self) {
        self.u.clk.next = Clock { clk: true };
        assert!(simulate(&mut *self.u, 500));
        self.u.clk.next = Clock { clk: false };
        assert!(simulate(&mut *self.u, 500));
    }

    fn chance(&mut self, pct: u64) -> bool {
        self.rng.below(100) < pct
    }

    /// One cycle: drive the inputs, check and record every handshake, clock.
    fn tick(&mut self) {
        self.cycles += 1;
        assert!(self.cycles < 5_000_000, "runaway");
        let rp = self.ready_pct;
        self.u.m_axis_pkt_tready.next = self.chance(rp);
        self.u.m_axis_pop_tready.next = self.chance(rp);
        self.u.m_axis_rcpl_tready.next = self.chance(rp);
        self.u.m_axis_readreq_tready.next = self.chance(rp);
        self.u.m_axis_rdone_tready.next = self.chance(rp);
        match self.popped {
            Some((p, 0)) => {
                self.u.s_axis_popped_tdata.next = p;
                self.u.s_axis_popped_tvalid.next = true;
            }
            _ => self.u.s_axis_popped_tvalid.next = false,
        }
        if let Some((m, c)) = self.offer {
            self.u.s_axis_pkt_tdata.next = m;
            self.u.s_axis_pkt_tuser.next = c;
        }
        self.u.s_axis_pkt_tvalid.next = self.offer.is_some();
        self.u.s_axis_open_tvalid.next = self.open_req.is_some();
        self.u.s_axis_open_tdata.next = ConnOpen {
            conn: (self.open_req.unwrap_or(0) as u64).to_bits(),
            isn: 0x55u64.to_bits(),
            ..Default::default()
        };
        self.u.s_axis_kick_tvalid.next = self.kick.is_some();
        self.u.s_axis_kick_tdata.next = (self.kick.take().unwrap_or(0) as u64).to_bits();
        assert!(simulate(&mut *self.u, 500));
        self.observe();
        if let Some((_, d)) = &mut self.popped {
            *d = d.saturating_sub(1);
        }
        self.clock();
    }

    fn observe(&mut self) {
        let u = &*self.u;
        // Inputs taken.
        if u.s_axis_open_tvalid.val() && u.s_axis_open_tready.val() {
            let c = self.open_req.take().expect("open") as usize;
            self.m.open(c);
        }
        if u.s_axis_pkt_tvalid.val() && u.s_axis_pkt_tready.val() {
            let (m, c) = self.offer.take().expect("packet");
            let (_, _, why) = self.m.packet(&m, &c);
            self.taken.push((m, c, why));
        }
        if u.s_axis_popped_tvalid.val() && u.s_axis_popped_tready.val() {
            self.popped = None;
        }
        // Packet out.
        let (v, r) = (u.m_axis_pkt_tvalid.val(), u.m_axis_pkt_tready.val());
        let d = (u.m_axis_pkt_tdata.val(), u.m_axis_pkt_tuser.val());
        if let Some(h) = self.st_pkt {
            assert!(v && h == d, "packet output changed while stalled");
        }
        self.st_pkt = (v && !r).then_some(d);
        if v && r {
            let (em, ec, why) = self
                .m
                .exp_pkt
                .pop_front()
                .expect("packet out without input");
            let (om, oc) = d;
            assert!(
                om == em && oc == ec,
                "packet {} (conn {} msn {} op {} why {why:?}):\n got drop {} {}\nwant drop {} {}",
                self.pkts.len(),
                em.conn.to_u64(),
                em.msn.to_u64(),
                em.opcode.to_u64(),
                om.drop.to_u64(),
                brief(&oc),
                em.drop.to_u64(),
                brief(&ec)
            );
            self.pkts.push(d);
        }
        // Completion out.
        let (v, r) = (u.m_axis_rcpl_tvalid.val(), u.m_axis_rcpl_tready.val());
        let d = (u.m_axis_rcpl_tdata.val(), u.m_axis_rcpl_tuser.val());
        if let Some(h) = self.st_rcpl {
            assert!(v && h == d, "completion output changed while stalled");
        }
        self.st_rcpl = (v && !r).then_some(d);
        if v && r {
            let got = (d.0, d.1.to_u64() as u32);
            let want = self.m.exp_rcpl.pop_front();
            assert_eq!(Some(got), want, "completion {}", self.rcpl.len());
            self.rcpl.push(got);
        }
        // READ hand-off.
        let (v, r) = (u.m_axis_readreq_tvalid.val(), u.m_axis_readreq_tready.val());
        let d = u.m_axis_readreq_tdata.val();
        if let Some(h) = self.st_rr {
            assert!(v && h == d, "readreq output changed while stalled");
        }
        self.st_rr = (v && !r).then_some(d);
        if v && r {
            assert_eq!(
                Some(d),
                self.m.exp_rr.pop_front(),
                "readreq {}",
                self.rr.len()
            );
            self.rr.push(d);
        }
        // READ_RESP done.
        let (v, r) = (u.m_axis_rdone_tvalid.val(), u.m_axis_rdone_tready.val());
        let d = (
            u.m_axis_rdone_tdata.val(),
            u.m_axis_rdone_tuser.val().to_u64() as u16,
        );
        if let Some(h) = self.st_rd {
            assert!(v && h == d, "rdone output changed while stalled");
        }
        self.st_rd = (v && !r).then_some(d);
        if v && r {
            assert_eq!(
                Some(d),
                self.m.exp_rd.pop_front(),
                "rdone {}",
                self.rd.len()
            );
            self.rd.push(d);
        }
        // RQE pop: answered from the harness's queue after a random delay.
        let (v, r) = (u.m_axis_pop_tvalid.val(), u.m_axis_pop_tready.val());
        let d = u.m_axis_pop_tdata.val();
        if let Some(h) = self.st_pop {
            assert!(v && h == d, "pop request changed while stalled");
        }
        self.st_pop = (v && !r).then_some(d);
        if v && r {
            assert!(self.popped.is_none(), "pop while an answer is pending");
            let c = d.to_u64() as usize;
            assert!(c < NCONN);
            let p = match self.rq[c].pop_front() {
                Some(w) => RqePop {
                    ok: true,
                    qpn: (w.qpn as u64).to_bits(),
                    cqn: (w.cqn as u64).to_bits(),
                    wr_id: w.wr_id.to_bits(),
                    index: (w.index as u64).to_bits(),
                },
                None => RqePop::default(),
            };
            let delay = self.rng.below(4);
            self.popped = Some((p, delay));
        }
    }

    /// Offers one packet (after random idle cycles) and runs until it is taken.
    fn send(&mut self, m: PktMeta, c: RxCheck) {
        let ip = self.idle_pct;
        while self.chance(ip) {
            self.tick();
        }
        self.offer = Some((m, c));
        let n = self.taken.len();
        while self.taken.len() == n {
            self.tick();
        }
    }

    /// Runs until every expected output has left and the block has been idle for a while.
    fn quiesce(&mut self) {
        let mut quiet = 0;
        let mut n = 0;
        while quiet < 12 {
            self.tick();
            n += 1;
            assert!(n < 20_000, "outputs missing: {}", self.pending());
            let busy = !self.m.exp_pkt.is_empty()
                || !self.m.exp_rcpl.is_empty()
                || !self.m.exp_rr.is_empty()
                || !self.m.exp_rd.is_empty()
                || self.popped.is_some()
                || self.open_req.is_some()
                || self.u.m_axis_pop_tvalid.val()
                || self.u.m_axis_rcpl_tvalid.val()
                || self.u.m_axis_readreq_tvalid.val()
                || self.u.m_axis_rdone_tvalid.val();
            quiet = if busy { 0 } else { quiet + 1 };
        }
    }

    /// Runs `n` cycles.
    fn run(&mut self, n: usize) {
        for _ in 0..n {
            self.tick();
        }
    }

    fn pending(&self) -> String {
        format!(
            "pkt {} rcpl {} readreq {} rdone {}",
            self.m.exp_pkt.len(),
            self.m.exp_rcpl.len(),
            self.m.exp_rr.len(),
            self.m.exp_rd.len()
        )
    }

    /// Opens a connection (at a quiet point).
    fn open(&mut self, c: usize) {
        self.open_req = Some(c as u16);
        self.quiesce();
    }

    /// Posts `n` RQEs to the connection's QP and rings its doorbell (at a quiet point).
    fn post(&mut self, c: usize, n: usize) {
        self.quiesce();
        for _ in 0..n {
            let r = Rqe {
                wr_id: self.next_wr,
                index: self.next_wr as u16,
                qpn: 0x100 + c as u32,
                cqn: 0x20 + c as u32,
            };
            self.next_wr += 1;
            self.rq[c].push_back(r);
            self.m.post(c, r);
        }
        self.kick = Some(c as u16);
        self.quiesce();
    }

    /// The reference's view of a connection's next MSN to complete.
    fn base(&self, c: usize) -> u32 {
        self.m.c[c].base
    }
}

fn brief(c: &RxCheck) -> String {
    format!(
        "nack {} fail {} code {} aux {:#x} owes {} place {}",
        c.nack,
        c.fail,
        c.code.to_u64(),
        c.aux.to_u64(),
        c.owes_wqe,
        c.place
    )
}

/// A DATA packet of message `msn`: `off` bytes into it, `plen` payload bytes.
#[allow(clippy::too_many_arguments)]
fn data(conn: usize, msn: u32, op: u8, msg_len: u32, off: u32, plen: u32, se: bool) -> PktMeta {
    let mut fl = 0;
    if off == 0 {
        fl |= FIRST;
    }
    if off + plen >= msg_len {
        fl |= LAST;
        if se {
            fl |= SE;
        }
    }
    let addr = if op == WRITE || op == WRITE_IMM || op == READ_REQ {
        0x7000_0000 + off as u64
    } else {
        off as u64
    };
    PktMeta {
        ptype: (PacketType::Data as u64).to_bits(),
        opcode: (op as u64).to_bits(),
        dflags: (fl as u64).to_bits(),
        msn: (msn as u64).to_bits(),
        psn: (0x9000u32
            .wrapping_add(msn.wrapping_mul(64))
            .wrapping_add(off / MTU) as u64)
            .to_bits(),
        addr: addr.to_bits(),
        key: (0x5A00_0100u32.wrapping_add(msn) as u64).to_bits(),
        msg_len: (msg_len as u64).to_bits(),
        payload_len: (plen as u64).to_bits(),
        imm: (0xA000_0000u32.wrapping_add(msn) as u64).to_bits(),
        conn: (conn as u64).to_bits(),
        ..Default::default()
    }
}

/// The earlier stages' verdict for a packet that passed them (place for WRITE / SEND payloads; WRITE_IMM's aux
/// preset to the RNR timer).
fn pass(m: &PktMeta, rq_empty: bool) -> RxCheck {
    let op = m.opcode.to_u64() as u8;
    RxCheck {
        rqe_ok: op == SEND || op == SEND_IMM,
        rqe_index: 7u64.to_bits(),
        rqe_addr: 0x4000_0000u64.to_bits(),
        rqe_len: 0x10000u64.to_bits(),
        rqe_lkey: 0x300u64.to_bits(),
        rq_empty,
        aux: (if op == WRITE_IMM { RNR_TIMER } else { 0 } as u64).to_bits(),
        place: op != READ_REQ,
        place_addr: (0x4000_0000 + m.addr.to_u64()).to_bits(),
        ..Default::default()
    }
}

/// An upstream verdict failing the message (`nack` and `fail`; the packet's `drop` stays 0, a form the block also
/// accepts; see [`mr_check_fail`] for the form the real stages emit).
fn upstream_fail(m: &PktMeta, code: NackCode, owes: bool) -> RxCheck {
    let mut c = pass(m, false);
    nack(&mut c, code as u8, m.msn.to_u64() as u32, true);
    c.owes_wqe = owes;
    c
}

/// A failure as `mr_check` / `recv_queue` emit it: the verdict of [`upstream_fail`] and `drop` ACCESS for code
/// ACCESS, else INVALID.
fn mr_check_fail(m: &mut PktMeta, code: NackCode, owes: bool) -> RxCheck {
    m.drop = (if code == NackCode::Access {
        drop::ACCESS
    } else {
        drop::INVALID
    } as u64)
        .to_bits();
    upstream_fail(m, code, owes)
}

/// Sends a whole message, packets in the order `order` (indices of its MTU-sized packets), every packet passing
/// the earlier stages.
fn message(tb: &mut Tb, conn: usize, msn: u32, op: u8, len: u32, order: &[u32], se: bool) {
    for &k in order {
        let off = k * MTU;
        let plen = len.saturating_sub(off).min(MTU);
        let m = data(conn, msn, op, len, off, plen, se);
        let rq_empty = tb.rq[conn].is_empty();
        tb.send(m, pass(&m, rq_empty));
    }
}

fn last_out(tb: &Tb) -> (PktMeta, RxCheck) {
    *tb.pkts.last().expect("no packet out")
}

fn accepted(o: &(PktMeta, RxCheck)) -> bool {
    o.0.drop.to_u64() == 0 && !o.1.nack
}

// ---------------------------------------------------------------------------------------------------------
// Directed tests.

#[test]
fn mr_sem_18_multi_packet_write_completes_silently_and_advances_base() {
    let mut tb = Tb::new(seed(), 60, 30);
    tb.post(0, 4);
    // WRITE MSN 0 in 3 packets, out of order; WRITE MSN 1 in one.
    message(&mut tb, 0, 0, WRITE, 600, &[2, 0, 1], false);
    message(&mut tb, 0, 1, WRITE, 40, &[0], true);
    tb.quiesce();
    assert!(tb.pkts.iter().all(accepted));
    assert!(tb.rcpl.is_empty() && tb.rr.is_empty() && tb.rd.is_empty());
    assert_eq!(tb.rq[0].len(), 4, "a WRITE consumed an RQE");
    assert_eq!(tb.base(0), 2);
    // base_msn is 2: MSN 2 + 7 is inside the table, MSN 2 + 8 beyond it (dropped, no NACK).
    message(&mut tb, 0, 9, WRITE, 10, &[0], false);
    tb.quiesce();
    assert!(accepted(&last_out(&tb)));
    let m = data(0, 10, WRITE, 10, 0, 10, false);
    tb.send(m, pass(&m, false));
    tb.quiesce();
    let (om, oc) = last_out(&tb);
    assert_eq!(om.drop.to_u64(), drop::INVALID as u64);
    assert!(!oc.nack && !oc.place);
    // A one-packet WRITE of length 0 completes too.
    for msn in 2..9 {
        message(
            &mut tb,
            0,
            msn,
            WRITE,
            if msn == 4 { 0 } else { 100 },
            &[0],
            false,
        );
    }
    tb.quiesce();
    assert_eq!(tb.base(0), 10);
    assert!(tb.rcpl.is_empty());
    // An MSN behind the base is beyond the table too.
    message(&mut tb, 0, 9, WRITE, 10, &[0], false);
    tb.quiesce();
    let (om, oc) = last_out(&tb);
    assert_eq!(om.drop.to_u64(), drop::INVALID as u64);
    assert!(!oc.nack);
}

#[test]
fn mr_sem_19_send_and_write_imm_complete_in_msn_order() {
    let mut tb = Tb::new(seed(), 50, 20);
    tb.post(1, 3);
    let first = tb.rq[1][0];
    // MSN 1 (WRITE_IMM, 2 packets, SE) arrives complete before MSN 0 (SEND, 3 packets).
    message(&mut tb, 1, 1, WRITE_IMM, 300, &[1, 0], true);
    message(&mut tb, 1, 0, SEND, 700, &[0, 2], false);
    tb.quiesce();
    assert!(tb.rcpl.is_empty(), "a completion overtook MSN 0");
    assert_eq!(tb.base(1), 0);
    message(&mut tb, 1, 0, SEND, 700, &[1], false);
    tb.quiesce();
    assert_eq!(tb.rcpl.len(), 2);
    let (c0, u0) = tb.rcpl[0];
    let (c1, u1) = tb.rcpl[1];
    // MSN 0: the first RQE, RECV, 700 bytes, no immediate; packet number = the 5th packet out.
    assert_eq!(c0.wr_id.to_u64(), first.wr_id);
    assert_eq!(c0.opcode.to_u64(), CqeOpcode::Recv as u64);
    assert_eq!(c0.status.to_u64(), CqeStatus::Success as u64);
    assert_eq!((c0.byte_len.to_u64(), c0.flags.to_u64()), (700, 0));
    assert_eq!(u0, (5 << 16) | first.index as u32);
    // MSN 1: the next RQE, RECV_WRITE_IMM with its immediate, imm_valid | solicited.
    assert_eq!(c1.wr_id.to_u64(), first.wr_id + 1);
    assert_eq!(c1.opcode.to_u64(), CqeOpcode::RecvWriteImm as u64);
    assert_eq!((c1.byte_len.to_u64(), c1.imm.to_u64()), (300, 0xA000_0001));
    assert_eq!(c1.flags.to_u64(), 3);
    assert_eq!(u1 >> 16, 5);
    assert_eq!(tb.base(1), 2);
    // SEND_IMM without SE: imm_valid only.
    message(&mut tb, 1, 2, SEND_IMM, 64, &[0], false);
    tb.quiesce();
    let (c2, _) = tb.rcpl[2];
    assert_eq!(
        (c2.opcode.to_u64(), c2.imm.to_u64(), c2.flags.to_u64()),
        (CqeOpcode::Recv as u64, 0xA000_0002, 1)
    );
    assert_eq!(tb.rq[1].len(), 0);
}

#[test]
fn mr_sem_20_write_imm_rnr_nack_with_empty_rq() {
    let mut tb = Tb::new(seed(), 60, 20);
    // Empty RQ: a WRITE_IMM's first packet is NACKed RNR (aux = the RNR timer), not accepted.
    let m = data(2, 0, WRITE_IMM, 100, 0, 100, false);
    tb.send(m, pass(&m, true));
    tb.quiesce();
    let (om, oc) = last_out(&tb);
    assert_eq!(om.drop.to_u64(), 0);
    assert!(oc.nack && !oc.fail && !oc.place);
    assert_eq!(oc.code.to_u64(), NackCode::Rnr as u64);
    assert_eq!(oc.aux.to_u64(), RNR_TIMER as u64);
    assert!(tb.rcpl.is_empty());
    // With the slot EMPTY and an RQE seen upstream, the same packet is accepted.
    let m1 = data(3, 0, WRITE_IMM, 100, 0, 100, false);
    tb.send(m1, pass(&m1, false));
    tb.quiesce();
    assert!(accepted(&last_out(&tb)));
}

#[test]
fn mr_sem_20_write_imm_completes_after_rqe_post_and_kick() {
    let mut tb = Tb::new(seed(), 60, 20);
    let m = data(2, 0, WRITE_IMM, 100, 0, 100, false);
    tb.send(m, pass(&m, true));
    tb.quiesce();
    assert!(last_out(&tb).1.nack);
    // The RQE is posted; the retransmission is accepted and completes.
    tb.post(2, 1);
    tb.send(m, pass(&m, false));
    tb.quiesce();
    assert!(accepted(&last_out(&tb)));
    assert_eq!(tb.rcpl.len(), 1);
    assert_eq!(tb.base(2), 1);
    // An accepted 2-packet WRITE_IMM (the RQ looked non-empty upstream) whose RQE is gone when it completes:
    // it waits for the doorbell.
    let a = data(2, 1, WRITE_IMM, 400, 0, MTU, false);
    let b = data(2, 1, WRITE_IMM, 400, MTU, 400 - MTU, false);
    tb.send(b, pass(&b, false));
    tb.send(a, pass(&a, false));
    // And a SEND behind it, also complete.
    message(&mut tb, 2, 2, SEND, 50, &[0], false);
    tb.quiesce();
    assert_eq!(tb.rcpl.len(), 1, "completed without an RQE");
    assert_eq!(tb.base(2), 1);
    // Another packet does not help while the RQ is empty.
    message(&mut tb, 2, 3, WRITE, 50, &[0], false);
    tb.quiesce();
    assert_eq!(tb.rcpl.len(), 1);
    // Two RQEs + kick: both complete in order; then the WRITE retires silently.
    tb.post(2, 2);
    assert_eq!(tb.rcpl.len(), 3);
    assert_eq!(tb.rcpl[1].0.opcode.to_u64(), CqeOpcode::RecvWriteImm as u64);
    assert_eq!(tb.rcpl[1].0.byte_len.to_u64(), 400);
    assert_eq!(tb.rcpl[2].0.opcode.to_u64(), CqeOpcode::Recv as u64);
    assert_eq!(tb.rcpl[2].1 >> 16, tb.pkts.len() as u32);
    assert_eq!(tb.base(2), 4);
    // WRITE_IMM RNR is decided on the first accepted packet only: with the slot ACTIVE, rq_empty is ignored.
    let a = data(2, 4, WRITE_IMM, 400, 0, MTU, false);
    let b = data(2, 4, WRITE_IMM, 400, MTU, 400 - MTU, false);
    tb.send(a, pass(&a, false));
    tb.send(b, pass(&b, true));
    tb.quiesce();
    assert!(accepted(&last_out(&tb)));
    assert_eq!(tb.rcpl.len(), 3);
    tb.post(2, 1);
    assert_eq!(tb.rcpl.len(), 4);
}

#[test]
fn mr_sem_36_mismatch_fails_message_and_error_state_nacks_later_msns() {
    let mut tb = Tb::new(seed(), 60, 20);
    tb.post(3, 4);
    // MSN 0 ACTIVE (WRITE, 2 packets); its second packet claims another length: fail INVALID.
    let a = data(3, 0, WRITE, 500, 0, MTU, false);
    tb.send(a, pass(&a, false));
    let mut b = data(3, 0, WRITE, 500, MTU, 500 - MTU, false);
    b.msg_len = 501u64.to_bits();
    tb.send(b, pass(&b, false));
    tb.quiesce();
    let (om, oc) = last_out(&tb);
    assert_eq!(om.drop.to_u64(), drop::INVALID as u64);
    assert!(oc.nack && oc.fail && !oc.place && !oc.owes_wqe);
    assert_eq!(
        (oc.code.to_u64(), oc.aux.to_u64()),
        (NackCode::Invalid as u64, 0)
    );
    // A later MSN: NACK with the failed MSN as aux, not accepted.
    message(&mut tb, 3, 2, SEND, 10, &[0], false);
    tb.quiesce();
    let (om, oc) = last_out(&tb);
    assert_eq!(om.drop.to_u64(), drop::INVALID as u64);
    assert!(oc.nack && !oc.fail);
    assert_eq!(
        (oc.code.to_u64(), oc.aux.to_u64()),
        (NackCode::Invalid as u64, 0)
    );
    // The failed message's retransmission: NACK its code, aux = its MSN.
    tb.send(b, pass(&b, false));
    tb.quiesce();
    let (_, oc) = last_out(&tb);
    assert!(oc.nack && !oc.fail);
    assert_eq!(
        (oc.code.to_u64(), oc.aux.to_u64()),
        (NackCode::Invalid as u64, 0)
    );
    assert!(tb.rcpl.is_empty() && tb.base(3) == 0);

    // Connection 0: opcode mismatch at MSN 2 after MSN 0 completed; an earlier MSN failing later (MSN 1, by
    // an ACCESS verdict upstream) becomes the error state, so MSN 2 is then NACKed with aux 1 and code ACCESS.
    message(&mut tb, 0, 0, WRITE, 10, &[0], false);
    let a = data(0, 2, WRITE, 600, 0, MTU, false);
    tb.send(a, pass(&a, false));
    let b = data(0, 2, SEND, 600, MTU, MTU, false);
    tb.send(b, pass(&b, false));
    tb.quiesce();
    let (_, oc) = last_out(&tb);
    assert!(oc.nack && oc.fail);
    assert_eq!(
        (oc.code.to_u64(), oc.aux.to_u64()),
        (NackCode::Invalid as u64, 2)
    );
    let m = data(0, 1, WRITE, 10, 0, 10, false);
    tb.send(m, upstream_fail(&m, NackCode::Access, false));
    tb.quiesce();
    let (om, oc) = last_out(&tb);
    assert_eq!(om.drop.to_u64(), drop::ACCESS as u64);
    assert!(oc.nack && oc.fail);
    assert_eq!(
        (oc.code.to_u64(), oc.aux.to_u64()),
        (NackCode::Access as u64, 1)
    );
    let c = data(0, 2, WRITE, 600, 2 * MTU, 88, false);
    tb.send(c, pass(&c, false));
    tb.quiesce();
    let (_, oc) = last_out(&tb);
    assert!(oc.nack && !oc.fail);
    assert_eq!(
        (oc.code.to_u64(), oc.aux.to_u64()),
        (NackCode::Access as u64, 1)
    );
    assert_eq!(tb.base(0), 1);
    assert_eq!(tb.pkts.iter().filter(|o| accepted(o)).count(), 3);
}

#[test]
fn mr_sem_18_msn_beyond_the_table_dropped_without_nack_and_others_pass_unchanged() {
    let mut tb = Tb::new(seed(), 60, 20);
    for (msn, want_far) in [
        (8u32, true),
        (7, false),
        (0x8000_0000, true),
        (u32::MAX, true),
    ] {
        let m = data(1, msn, SEND, 10, 0, 10, false);
        // An upstream RNR verdict does not survive the table check (the model checks the table first).
        let mut c = pass(&m, false);
        nack(&mut c, NackCode::Rnr as u8, RNR_TIMER, false);
        tb.send(m, c);
        tb.quiesce();
        let (om, oc) = last_out(&tb);
        if want_far {
            assert_eq!(om.drop.to_u64(), drop::INVALID as u64, "msn {msn}");
            assert!(!oc.nack && !oc.fail && !oc.place, "msn {msn}");
        } else {
            assert_eq!(om.drop.to_u64(), 0);
            assert!(oc.nack && oc.code.to_u64() == NackCode::Rnr as u64);
        }
    }
    // Dropped, trimmed and non-DATA packets pass unchanged and touch nothing.
    let mut m = data(1, 2, WRITE, 10, 0, 10, false);
    m.drop = (drop::DUPLICATE as u64).to_bits();
    tb.send(m, pass(&m, false));
    let mut t = data(1, 2, WRITE_IMM, 10, 0, 10, false);
    t.trimmed = true;
    tb.send(t, pass(&t, true));
    let mut k = data(1, 2, SEND, 10, 0, 10, false);
    k.ptype = (PacketType::Ack as u64).to_bits();
    tb.send(k, pass(&k, false));
    tb.quiesce();
    let n = tb.pkts.len();
    for (o, i) in tb.pkts[n - 3..].iter().zip(&tb.taken[n - 3..]) {
        assert_eq!((o.0, o.1), (i.0, i.1));
    }
    assert_eq!(tb.base(1), 0);
}

#[test]
fn mr_sem_33_failed_slot_with_owes_wqe_completes_local_length() {
    let mut tb = Tb::new(seed(), 50, 20);
    tb.post(0, 3);
    let w = tb.rq[0].clone();
    // MSN 0 incomplete (SEND, 2 packets, one arrived); MSN 1, a SEND too long for its RQE, fails and owes it.
    message(&mut tb, 0, 0, SEND, 400, &[0], true);
    let m = data(0, 1, SEND, 9000, 0, MTU, false);
    tb.send(m, upstream_fail(&m, NackCode::Invalid, true));
    tb.quiesce();
    let (om, oc) = last_out(&tb);
    assert_eq!(om.drop.to_u64(), drop::INVALID as u64);
    assert!(oc.nack && oc.fail && oc.owes_wqe);
    assert!(tb.rcpl.is_empty(), "LocalLength before MSN 0 completed");
    // MSN 0 completes (first RQE), then MSN 1's RQE completes LocalLength with byte_len 0.
    message(&mut tb, 0, 0, SEND, 400, &[1], true);
    tb.quiesce();
    assert_eq!(tb.rcpl.len(), 2);
    let (c0, _) = tb.rcpl[0];
    assert_eq!(
        (c0.wr_id.to_u64(), c0.byte_len.to_u64(), c0.flags.to_u64()),
        (w[0].wr_id, 400, 2)
    );
    let (c1, u1) = tb.rcpl[1];
    assert_eq!(c1.wr_id.to_u64(), w[1].wr_id);
    assert_eq!(c1.status.to_u64(), CqeStatus::LocalLength as u64);
    assert_eq!(c1.opcode.to_u64(), CqeOpcode::Recv as u64);
    assert_eq!(
        (c1.byte_len.to_u64(), c1.imm.to_u64(), c1.flags.to_u64()),
        (0, 0, 0)
    );
    assert_eq!(u1 & 0xFFFF, w[1].index as u32);
    // Completion stops at the FAILED slot; the RQE is completed once only.
    assert_eq!(tb.base(0), 1);
    tb.post(0, 1);
    tb.send(m, pass(&m, false));
    tb.quiesce();
    assert_eq!(tb.rcpl.len(), 2);
    assert!(last_out(&tb).1.nack);
    // A failed message at the base completes its RQE at once.
    tb.open(0);
    let m = data(0, 0, SEND_IMM, 9000, 0, MTU, false);
    tb.send(m, upstream_fail(&m, NackCode::Invalid, true));
    tb.quiesce();
    assert_eq!(tb.rcpl.len(), 3);
    assert_eq!(tb.rcpl[2].0.status.to_u64(), CqeStatus::LocalLength as u64);
    assert_eq!(tb.rcpl[2].0.byte_len.to_u64(), 0);
}

#[test]
fn mr_sem_21_read_req_hand_off_and_read_resp_done() {
    let mut tb = Tb::new(seed(), 50, 20);
    // MSN 0: READ_RESP (answering our READ of MSN 0x77) in 3 packets; MSN 1: a zero-length READ_REQ;
    // MSN 2: a READ_RESP in one packet.
    let mut k = 0;
    for (msn, op, len, key) in [
        (0u32, READ_RESP, 700u32, 0x77u32),
        (1, READ_REQ, 0, 0),
        (2, READ_RESP, 5, 0x78),
    ] {
        let n = len.div_ceil(MTU).max(1);
        for p in (0..n).rev() {
            let mut m = data(
                3,
                msn,
                op,
                len,
                p * MTU,
                len.saturating_sub(p * MTU).min(MTU),
                false,
            );
            m.key = (key as u64).to_bits();
            if op == READ_REQ {
                m.payload_len = 0u64.to_bits();
            }
            tb.send(m, pass(&m, false));
            k += 1;
        }
    }
    tb.quiesce();
    assert_eq!(k, 5);
    assert!(tb.pkts.iter().all(accepted));
    assert_eq!(tb.rd.len(), 2);
    assert_eq!(
        (
            tb.rd[0].0.conn.to_u64(),
            tb.rd[0].0.msn.to_u64(),
            tb.rd[0].0.bytes.to_u64()
        ),
        (3, 0x77, 700)
    );
    assert_eq!(
        (tb.rd[1].0.msn.to_u64(), tb.rd[1].0.bytes.to_u64()),
        (0x78, 5)
    );
    assert_eq!(tb.rr.len(), 1);
    let r = tb.rr[0];
    assert_eq!((r.conn.to_u64(), r.msn.to_u64(), r.len.to_u64()), (3, 1, 0));
    assert_eq!(
        (r.local_addr.to_u64(), r.remote_addr.to_u64()),
        (0x7000_0000, 0)
    );
    assert_eq!(tb.base(3), 3);
    assert!(tb.rcpl.is_empty());
}

#[test]
fn mr_conn_open_clears_the_connection() {
    let mut tb = Tb::new(seed(), 60, 20);
    tb.post(1, 2);
    tb.post(2, 2);
    // Connection 1: base 2, MSN 3 ACTIVE, MSN 4 failed (error state). Connection 2: MSN 0 ACTIVE.
    message(&mut tb, 1, 0, WRITE, 10, &[0], false);
    message(&mut tb, 1, 1, WRITE, 10, &[0], false);
    message(&mut tb, 1, 3, WRITE, 600, &[0], false);
    let m = data(1, 4, WRITE, 10, 0, 10, false);
    tb.send(m, upstream_fail(&m, NackCode::Access, false));
    message(&mut tb, 2, 0, SEND, 600, &[0], false);
    tb.quiesce();
    assert_eq!(tb.base(1), 2);
    tb.open(1);
    assert_eq!((tb.base(1), tb.m.c[1].failed), (0, None));
    // MSN 0 is a new message again; MSN 3 with another opcode and length is no mismatch; MSN 5 (after the
    // old failed MSN 4) is not NACKed.
    message(&mut tb, 1, 0, SEND, 10, &[0], false);
    message(&mut tb, 1, 3, SEND, 20, &[0], false);
    message(&mut tb, 1, 5, WRITE, 10, &[0], false);
    tb.quiesce();
    let n = tb.pkts.len();
    assert!(tb.pkts[n - 3..].iter().all(accepted));
    assert_eq!(tb.rcpl.len(), 1);
    assert_eq!(tb.rcpl[0].0.byte_len.to_u64(), 10);
    assert_eq!(tb.base(1), 1);
    // Connection 2 kept its state: its MSN 0 completes with the rest of its packets.
    message(&mut tb, 2, 0, SEND, 600, &[1, 2], false);
    tb.quiesce();
    assert_eq!(tb.rcpl.len(), 2);
    assert_eq!(tb.rcpl[1].0.byte_len.to_u64(), 600);
    assert_eq!(tb.rcpl[1].0.qpn.to_u64(), 0x102);
}

// ---------------------------------------------------------------------------------------------------------
// Regressions: one test per bug found, each asserting the model's outcome.

#[test]
fn mr_sem_36_regression_message_table_updates_are_written() {
    let mut tb = Tb::new(seed(), 100, 0);
    // MSN 0: a WRITE of 2 packets; the second claims another length, which the ACTIVE slot must reject.
    let a = data(0, 0, WRITE, 500, 0, MTU, false);
    tb.send(a, pass(&a, false));
    let mut b = data(0, 0, WRITE, 500, MTU, 500 - MTU, false);
    b.msg_len = 501u64.to_bits();
    tb.send(b, pass(&b, false));
    tb.run(40);
    let (om, oc) = *tb.pkts.last().expect("no packet out");
    // Was: `slots.wr_data` / `cst.wr_data` were assigned from the locals `nsl` / `ncr` before the code that
    // modifies them, so every RAM write stored the old word and the second packet found the slot EMPTY.
    assert!(
        oc.nack && oc.fail && om.drop.to_u64() == drop::INVALID as u64,
        "length mismatch in an ACTIVE slot accepted: drop {} {}",
        om.drop.to_u64(),
        brief(&oc)
    );
}

#[test]
fn mr_sem_36_regression_failed_slot_retransmission_counts_invalid() {
    let mut tb = Tb::new(seed(), 100, 0);
    let m = data(0, 0, WRITE, 10, 0, 10, false);
    tb.send(m, upstream_fail(&m, NackCode::Access, false));
    tb.send(m, pass(&m, false));
    tb.quiesce();
    let (om, oc) = last_out(&tb);
    assert!(oc.nack && oc.code.to_u64() == NackCode::Access as u64);
    // The model counts every packet of an already failed message in `drops.invalid` (recv.rs `on_data`:
    // `SlotState::Failed` → `drops.invalid += 1`), whatever the slot's code (the block used to drop it ACCESS).
    assert_eq!(om.drop.to_u64(), drop::INVALID as u64);
}

#[test]
fn mr_sem_21_regression_read_req_with_length_completes_on_arrival() {
    let mut tb = Tb::new(seed(), 100, 0);
    let mut m = data(0, 0, READ_REQ, 4096, 0, 0, false);
    m.dflags = ((FIRST | LAST) as u64).to_bits();
    tb.send(m, pass(&m, false));
    tb.run(200);
    assert!(accepted(&last_out(&tb)));
    // The model's `RecvMsg::complete` treats a READ_REQ as complete when it arrived (it carries no payload,
    // got = 0 < msg_len); the block used to require got >= len for every opcode.
    assert_eq!(tb.rr.len(), 1, "READ_REQ of 4096 bytes not handed off");
    assert_eq!((tb.rr[0].msn.to_u64(), tb.rr[0].len.to_u64()), (0, 4096));
    assert_eq!(tb.base(0), 1);
    // The base moved on: the next message completes too.
    let w = data(0, 1, WRITE, 10, 0, 10, false);
    tb.send(w, pass(&w, false));
    tb.quiesce();
    assert!(accepted(&last_out(&tb)));
    assert_eq!(tb.base(0), 2);
}

#[test]
fn mr_sem_33_36_regression_upstream_fail_with_drop_set_enters_error_state() {
    let mut tb = Tb::new(seed(), 100, 0);
    tb.post(0, 2);
    let w0 = tb.rq[0][0];
    // MSN 0: a SEND too long for its RQE as the MR check reports it (MR-SEM-33): drop INVALID, nack, fail, owes.
    let mut m = data(0, 0, SEND, 9000, 0, MTU, false);
    let k = mr_check_fail(&mut m, NackCode::Invalid, true);
    tb.send(m, k);
    let w = data(0, 1, WRITE, 10, 0, 10, false);
    tb.send(w, pass(&w, false));
    tb.run(200);
    let (om, oc) = last_out(&tb);
    // The model's `fail_msg` marks MSN 0 failed and enters the error state (MR-SEM-36), so MSN 1 is NACKed
    // INVALID with aux 0, and MSN 0's RQE completes LocalLength (the block used to examine only drop == 0).
    assert!(
        oc.nack && oc.aux.to_u64() == 0 && om.drop.to_u64() == drop::INVALID as u64,
        "MSN 1 after a failed MSN 0 was not NACKed: drop {} {}",
        om.drop.to_u64(),
        brief(&oc)
    );
    assert_eq!(oc.code.to_u64(), NackCode::Invalid as u64);
    tb.quiesce();
    assert_eq!(tb.rcpl.len(), 1);
    let (c, u) = tb.rcpl[0];
    assert_eq!(c.wr_id.to_u64(), w0.wr_id);
    assert_eq!(c.status.to_u64(), CqeStatus::LocalLength as u64);
    assert_eq!(u & 0xFFFF, w0.index as u32);
    // An ACCESS failure as the MR check emits it keeps drop ACCESS and becomes the connection's error code.
    tb.open(1);
    let mut a = data(1, 0, WRITE, 10, 0, 10, false);
    let k = mr_check_fail(&mut a, NackCode::Access, false);
    tb.send(a, k);
    let b = data(1, 3, WRITE, 10, 0, 10, false);
    tb.send(b, pass(&b, false));
    tb.quiesce();
    let n = tb.pkts.len();
    let (om, oc) = tb.pkts[n - 2];
    assert_eq!(om.drop.to_u64(), drop::ACCESS as u64);
    assert!(oc.nack && oc.fail && oc.code.to_u64() == NackCode::Access as u64);
    let (om, oc) = tb.pkts[n - 1];
    assert_eq!(om.drop.to_u64(), drop::INVALID as u64);
    assert!(oc.nack && !oc.fail);
    assert_eq!(
        (oc.code.to_u64(), oc.aux.to_u64()),
        (NackCode::Access as u64, 0)
    );
    // Other drops with a fail verdict are not upstream failures: they pass unchanged and touch nothing.
    let mut x = data(2, 0, WRITE, 10, 0, 10, false);
    let k = upstream_fail(&x, NackCode::Invalid, false);
    x.drop = (drop::WRONG_PEER as u64).to_bits();
    tb.send(x, k);
    tb.quiesce();
    assert_eq!(last_out(&tb), (x, k));
    assert_eq!(tb.m.c[2].failed, None);
}

// ---------------------------------------------------------------------------------------------------------
// Random traffic.

#[test]
fn random_messages_verdicts_and_completions_match_model() {
    let s = seed();
    let mut g = Rng(s ^ 0x9E37_79B9_7F4A_7C15);
    let total = env("METAROCE_ITERS", 1500) as usize;
    let mut tb = Tb::new(s, 55, 35);
    let mut next_msn = [0u32; NCONN];
    let mut retx: Vec<Vec<PktMeta>> = vec![Vec::new(); NCONN];
    let mut stuck = [0u32; NCONN];
    let mut last_base = [0u32; NCONN];
    let mut opens = 0;
    for c in 0..NCONN {
        tb.post(c, 2);
    }
    let ops = [
        WRITE, WRITE, WRITE_IMM, SEND, SEND, SEND_IMM, READ_REQ, READ_RESP, READ_RESP,
    ];
    while tb.taken.len() < total {
        // Build an epoch: new messages within the table, retransmissions, a few stray packets.
        let mut batch: Vec<(u64, PktMeta)> = Vec::new();
        for c in 0..NCONN {
            let mut made = 0;
            while made < 3 && next_msn[c].wrapping_sub(tb.base(c)) < SLOTS && g.below(100) < 70 {
                let msn = next_msn[c];
                next_msn[c] = msn.wrapping_add(1);
                made += 1;
                let op = ops[g.below(ops.len() as u64) as usize];
                // A READ_REQ of any length (also zero) is one packet without payload.
                let len = if op == READ_REQ && g.below(4) == 0 {
                    0
                } else {
                    g.below(3 * MTU as u64 + 1) as u32
                };
                let se = g.below(3) == 0;
                let n = if op == READ_REQ {
                    1
                } else {
                    len.div_ceil(MTU).max(1)
                };
                for p in 0..n {
                    let off = p * MTU;
                    let mut m = data(c, msn, op, len, off, len.saturating_sub(off).min(MTU), se);
                    if op == READ_REQ {
                        m.payload_len = 0u64.to_bits();
                        m.dflags = ((FIRST | LAST) as u64).to_bits();
                    }
                    if op == READ_RESP {
                        m.key = (g.next() & 0xFFFF_FFFF).to_bits();
                    }
                    m.imm = (g.next() & 0xFFFF_FFFF).to_bits();
                    if g.below(100) < 2 {
                        // A corrupt packet: another length or opcode.
                        let o = ops[g.below(ops.len() as u64) as usize];
                        if g.below(2) == 0 {
                            m.msg_len = (len as u64 + 1).to_bits();
                        } else {
                            m.opcode = (o as u64).to_bits();
                        }
                    }
                    batch.push((0, m));
                }
            }
            for m in retx[c].drain(..) {
                batch.push((0, m));
            }
            if g.below(100) < 4 {
                // Beyond the table (or behind the base).
                let b = tb.base(c);
                let msn = if g.below(2) == 0 {
                    b.wrapping_add(SLOTS + g.below(100) as u32)
                } else {
                    b.wrapping_sub(1 + g.below(4) as u32)
                };
                batch.push((0, data(c, msn, WRITE, 10, 0, 10, false)));
            }
        }
        // Duplicates, trimmed and non-DATA copies.
        for i in 0..batch.len() {
            if g.below(100) < 5 {
                let mut m = batch[i].1;
                match g.below(3) {
                    0 => m.drop = (drop::DUPLICATE as u64).to_bits(),
                    1 => m.trimmed = true,
                    _ => m.ptype = (PacketType::Ack as u64).to_bits(),
                }
                batch.push((0, m));
            }
        }
        // Limited reordering.
        for (i, e) in batch.iter_mut().enumerate() {
            e.0 = i as u64 + g.below(10);
        }
        batch.sort_by_key(|e| e.0);
        let first = tb.taken.len();
        for &(_, mut m) in &batch {
            let c = m.conn.to_u64() as usize;
            let op = m.opcode.to_u64() as u8;
            let mut k = pass(&m, tb.rq[c].is_empty() || g.below(100) < 15);
            // Random upstream fields that must pass unchanged.
            k.rqe_index = (g.next() & 0xFFFF).to_bits();
            k.rqe_addr = g.next().to_bits();
            k.place_addr = g.next().to_bits();
            if op != WRITE_IMM {
                k.aux = (g.next() & 0xFFFF_FFFF).to_bits();
            }
            let r = g.below(1000);
            if r < 15 {
                let code = [NackCode::Access, NackCode::Invalid, NackCode::Unsupported]
                    [g.below(3) as usize];
                // MR-SEM-33 owes only when the RQE surely exists when the base reaches this message.
                let owes = (op == SEND || op == SEND_IMM)
                    && code == NackCode::Invalid
                    && tb.m.c[c].rq.len() > SLOTS as usize
                    && g.below(2) == 0;
                // Mostly as the real stages emit it (drop set), sometimes with drop 0.
                k = if g.below(4) == 0 {
                    upstream_fail(&m, code, owes)
                } else {
                    mr_check_fail(&mut m, code, owes)
                };
            } else if r < 55 && (op == SEND || op == SEND_IMM) {
                nack(&mut k, NackCode::Rnr as u8, RNR_TIMER, false);
            }
            tb.send(m, k);
        }
        tb.quiesce();
        // Retransmit what was refused for now (RNR), as the sender does.
        for (m, _, why) in &tb.taken[first..] {
            if matches!(why, Why::Rnr | Why::UpstreamNack) {
                retx[m.conn.to_u64() as usize].push(*m);
            }
        }
        // Quiet point: reopen failed or stuck connections, post RQEs.
        for c in 0..NCONN {
            if tb.base(c) == last_base[c] && next_msn[c] != tb.base(c) {
                stuck[c] += 1;
            } else {
                stuck[c] = 0;
            }
            last_base[c] = tb.base(c);
            if tb.m.c[c].failed.is_some() || stuck[c] > 4 || g.below(100) < 2 {
                tb.open(c);
                opens += 1;
                next_msn[c] = 0;
                retx[c].clear();
                stuck[c] = 0;
                last_base[c] = 0;
            }
            if g.below(100) < 40 {
                let n = 1 + g.below(4) as usize;
                tb.post(c, n);
            }
        }
    }
    let count = |w: Why| tb.taken.iter().filter(|t| t.2 == w).count();
    let stats = [
        ("accepted", count(Why::Accepted)),
        ("passed", count(Why::Passed)),
        ("error state", count(Why::ErrorState)),
        ("far", count(Why::Far)),
        ("failed slot", count(Why::FailedSlot)),
        ("mismatch", count(Why::Mismatch)),
        ("upstream fail", count(Why::UpstreamFail)),
        ("upstream nack", count(Why::UpstreamNack)),
        ("rnr", count(Why::Rnr)),
    ];
    let local_len = tb
        .rcpl
        .iter()
        .filter(|c| c.0.status.to_u64() == CqeStatus::LocalLength as u64)
        .count();
    println!(
        "{} packets in {} cycles: {stats:?}; {} completions ({local_len} LocalLength), {} readreq, {} rdone, \
         {opens} opens",
        tb.taken.len(),
        tb.cycles,
        tb.rcpl.len(),
        tb.rr.len(),
        tb.rd.len(),
    );
    assert_eq!(tb.pkts.len(), tb.taken.len());
    for (name, n) in stats {
        assert!(n > 0, "no {name} verdict");
    }
    assert!(
        tb.rcpl.len() > 50 && tb.rr.len() > 5 && tb.rd.len() > 20,
        "weak coverage"
    );
}
