//! CQ writer (MR-SEM-19, MR-SEM-37, regmap `queues` ring semantics): CQE layout and address, phase bit over ring
//! passes, full-ring error, CQ_CI doorbell, CQ_ARM interrupt, receive completions held until their payload is
//! placed; random back-pressure on the DMA ports. Expected values from `metaroce_regmap` encoders/decoders.
//! Seed: `METAROCE_SEED` (printed).

use metaroce_hdl::records::{Completion, CtxWrite};
use metaroce_hdl::rx::cq_writer::{CqWriter, CQ_TABLE};
use metaroce_regmap::command::arg as cqa;
use metaroce_regmap::descriptor::cqe::{CqeOpcode, CqeRepr, CqeStatus};
use metaroce_regmap::queues::{page, Ring, DEFAULT_DB_STRIDE};
use rust_hdl::prelude::*;

type Uut = CqWriter<512, 64, 4>;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn chance(&mut self, pct: u64) -> bool {
        self.next() % 100 < pct
    }
}

fn seed() -> u64 {
    let s = std::env::var("METAROCE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed_c0de);
    println!("METAROCE_SEED={s}");
    s | 1
}

fn bits512(buf: &[u8]) -> Bits<512> {
    let mut v = Bits::<512>::default();
    for (i, b) in buf.iter().enumerate().take(64) {
        for k in 0..8 {
            v = v.replace_bit(8 * i + k, (b >> k) & 1 != 0);
        }
    }
    v
}

fn bytes_of(v: Bits<512>, n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| (0..8).fold(0u8, |a, k| a | ((v.get_bit(8 * i + k) as u8) << k)))
        .collect()
}

fn step(u: &mut Uut) {
    u.clk.next = Clock { clk: true };
    assert!(simulate(u, 500));
    u.clk.next = Clock { clk: false };
    assert!(simulate(u, 500));
}

/// What the host side sees.
#[derive(Default)]
struct Host {
    writes: Vec<(u64, Vec<u8>)>,
    pending_addr: Option<u64>,
    done_next: bool,
    irqs: Vec<u16>,
    errors: Vec<u32>,
}

/// One cycle with random readiness; records the DMA writes, returns nothing.
fn cycle(u: &mut Uut, h: &mut Host, rng: &mut Rng) {
    u.m_axis_dma_wr_desc_tready.next = rng.chance(70);
    u.m_axis_dma_wr_tready.next = rng.chance(70);
    u.s_axis_dma_wr_done_tvalid.next = h.done_next;
    h.done_next = false;
    assert!(simulate(u, 500));
    if u.m_axis_dma_wr_desc_tvalid.val() && u.m_axis_dma_wr_desc_tready.val() {
        let d = u.m_axis_dma_wr_desc_tdata.val();
        assert_eq!(d.len.to_u64(), 32);
        assert!(h.pending_addr.is_none());
        h.pending_addr = Some(d.addr.to_u64());
    }
    if u.m_axis_dma_wr_tvalid.val() && u.m_axis_dma_wr_tready.val() {
        assert!(u.m_axis_dma_wr_tlast.val());
        assert_eq!(u.m_axis_dma_wr_tkeep.val().to_u64(), 0xFFFF_FFFF);
        let a = h.pending_addr.take().expect("data before descriptor");
        h.writes
            .push((a, bytes_of(u.m_axis_dma_wr_tdata.val(), 32)));
        h.done_next = true;
    }
    if u.irq_req.val() {
        h.irqs.push(u.irq_vector.val().to_u64() as u16);
    }
    if u.cq_error.val() {
        h.errors.push(u.cq_error_cqn.val().to_u64() as u32);
    }
    step(u);
}

fn send_cpl(wr: u64, qpn: u32, cqn: u32) -> Completion {
    Completion {
        cqn: (cqn as u64).to_bits(),
        qpn: (qpn as u64).to_bits(),
        wr_id: wr.to_bits(),
        status: 0u64.to_bits(),
        opcode: (CqeOpcode::Send as u64).to_bits(),
        byte_len: 100u64.to_bits(),
        imm: 0u64.to_bits(),
        flags: 0u64.to_bits(),
    }
}

fn setup() -> (Uut, Rng) {
    let mut u = Uut::new();
    u.connect_all();
    u.rst.next = true;
    step(&mut u);
    step(&mut u);
    u.rst.next = false;
    step(&mut u);
    (u, Rng(seed()))
}

fn create_cq(u: &mut Uut, cqn: u32, ring: u64, log: u8, vector: u16) {
    let mut buf = [0u8; 64];
    cqa::CQ_RING.set(&mut buf, ring).unwrap();
    cqa::CQ_LOG.set(&mut buf, log as u64).unwrap();
    cqa::CQ_VECTOR.set(&mut buf, vector as u64).unwrap();
    u.s_axis_ctxw_tdata.next = CtxWrite {
        table: (CQ_TABLE as u64).to_bits(),
        index: (cqn as u64).to_bits(),
        data: bits512(&buf),
    };
    u.s_axis_ctxw_tvalid.next = true;
    step(u);
    u.s_axis_ctxw_tvalid.next = false;
}

fn doorbell(u: &mut Uut, cqn: u32, off: u32, val: u32) {
    u.cfg_wr_en.next = true;
    u.cfg_wr_addr.next = ((cqn * DEFAULT_DB_STRIDE + off) as u64).to_bits();
    u.cfg_wr_data.next = (val as u64).to_bits();
    step(u);
    u.cfg_wr_en.next = false;
}

/// Offers a send completion until taken, then runs until the writer is idle again.
fn post(u: &mut Uut, h: &mut Host, rng: &mut Rng, c: Completion, idx: u16) {
    u.s_axis_scpl_tdata.next = c;
    u.s_axis_scpl_tuser.next = (idx as u64).to_bits();
    u.s_axis_scpl_tvalid.next = true;
    let mut n = 0;
    loop {
        assert!(simulate(u, 500));
        let taken = u.s_axis_scpl_tready.val();
        cycle(u, h, rng);
        if taken {
            break;
        }
        n += 1;
        assert!(n < 100, "completion not taken");
    }
    u.s_axis_scpl_tvalid.next = false;
    for _ in 0..40 {
        cycle(u, h, rng);
    }
}

#[test]
fn cqe_layout_phase_full_and_doorbells() {
    let (mut u, mut rng) = setup();
    let mut h = Host::default();
    let (cqn, ring_addr, log) = (5u32, 0x7_0000u64, 2u8);
    create_cq(&mut u, cqn, ring_addr, log, 9);
    let ring = Ring::new(log).unwrap();
    // Fill the ring: 4 CQEs, phase 1 (first pass).
    for i in 0..4u16 {
        post(
            &mut u,
            &mut h,
            &mut rng,
            send_cpl(1000 + i as u64, 77, cqn),
            10 + i,
        );
    }
    assert_eq!(h.writes.len(), 4);
    for (i, (a, b)) in h.writes.iter().enumerate() {
        assert_eq!(*a, ring_addr + 32 * ring.slot(i as u16) as u64);
        let c = CqeRepr::parse(b).unwrap();
        assert_eq!(c.wr_id, 1000 + i as u64);
        assert_eq!(c.qpn, 77);
        assert_eq!(c.byte_len, 100);
        assert_eq!(c.opcode, CqeOpcode::Send);
        assert_eq!(c.status, CqeStatus::Success);
        assert_eq!(c.wqe_index, 10 + i as u16);
        assert_eq!(c.phase as u8, ring.phase(i as u16));
        assert_eq!(c.imm, None);
    }
    // Full: the fifth is dropped with cq_error.
    post(&mut u, &mut h, &mut rng, send_cpl(2000, 77, cqn), 0);
    assert_eq!(h.writes.len(), 4);
    assert_eq!(h.errors, vec![cqn]);
    // The host returns two slots; the next CQE goes to slot 0 with phase 0 (second pass).
    doorbell(&mut u, cqn, page::CQ_CI, 2);
    post(&mut u, &mut h, &mut rng, send_cpl(3000, 77, cqn), 3);
    assert_eq!(h.writes.len(), 5);
    assert_eq!(h.writes[4].0, ring_addr);
    let c = CqeRepr::parse(&h.writes[4].1).unwrap();
    assert_eq!((c.wr_id, c.phase as u8), (3000, ring.phase(4)));
    assert!(h.irqs.is_empty());
    // Arm for index 5 (the next CQE): one interrupt on vector 9, then none until re-armed.
    doorbell(&mut u, cqn, page::CQ_ARM, 5);
    post(&mut u, &mut h, &mut rng, send_cpl(3001, 77, cqn), 4);
    assert_eq!(h.irqs, vec![9]);
    doorbell(&mut u, cqn, page::CQ_CI, 6);
    post(&mut u, &mut h, &mut rng, send_cpl(3002, 77, cqn), 5);
    assert_eq!(h.irqs, vec![9]);
    // Solicited-only arm: an unsolicited success does not interrupt, a solicited receive does.
    doorbell(&mut u, cqn, page::CQ_ARM, 7 | (1 << 16));
    let mut r = send_cpl(4000, 77, cqn);
    r.opcode = (CqeOpcode::Recv as u64).to_bits();
    post(&mut u, &mut h, &mut rng, r, 1);
    assert_eq!(h.irqs, vec![9]);
    r.flags = 3u64.to_bits();
    r.imm = 0xABCDu64.to_bits();
    post(&mut u, &mut h, &mut rng, r, 2);
    assert_eq!(h.irqs, vec![9, 9]);
    let c = CqeRepr::parse(&h.writes.last().unwrap().1).unwrap();
    assert_eq!((c.imm, c.solicited), (Some(0xABCD), true));
    assert_eq!(h.writes.len(), 9);
}

#[test]
fn receive_completion_waits_for_placement() {
    let (mut u, mut rng) = setup();
    let mut h = Host::default();
    create_cq(&mut u, 3, 0x1000, 3, 1);
    let mut c = send_cpl(55, 9, 3);
    c.opcode = (CqeOpcode::Recv as u64).to_bits();
    u.rx_safe_count.next = 6u64.to_bits();
    u.s_axis_rcpl_tdata.next = c;
    u.s_axis_rcpl_tuser.next = ((7u64 << 16) | 4).to_bits();
    u.s_axis_rcpl_tvalid.next = true;
    for _ in 0..30 {
        assert!(simulate(&mut u, 500));
        assert!(
            !u.s_axis_rcpl_tready.val(),
            "taken before its payload was placed"
        );
        cycle(&mut u, &mut h, &mut rng);
    }
    u.rx_safe_count.next = 7u64.to_bits();
    let mut taken = false;
    for _ in 0..60 {
        assert!(simulate(&mut u, 500));
        let now = u.s_axis_rcpl_tready.val();
        cycle(&mut u, &mut h, &mut rng);
        if now {
            assert!(!taken, "taken twice");
            taken = true;
            u.s_axis_rcpl_tvalid.next = false;
        }
    }
    assert!(taken);
    assert!(h.errors.is_empty(), "errors {:?}", h.errors);
    assert_eq!(h.writes.len(), 1);
    let cq = CqeRepr::parse(&h.writes[0].1).unwrap();
    assert_eq!(
        (cq.wr_id, cq.wqe_index, cq.opcode),
        (55, 4, CqeOpcode::Recv)
    );
}
