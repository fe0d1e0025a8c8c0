//! Per-packet cost of the MetaRoCE transport model, next to the cost of touching the payload once.
//!
//! * (a) requester `poll_transmit_plan` of a 4 KiB WRITE packet;
//! * (b) responder `handle_frame` of that data packet (ICV verification off, as with a NIC that checks it in
//!   hardware; a memory that copies nothing) and producing its ACK (`poll_transmit_plan` + header emit);
//! * (c) requester `handle_frame` of the ACK;
//! * (d) the whole loop a + header emit + b + c, one packet per iteration;
//! * (e) copying a 4 KiB payload (`copy_from_slice`), (f) the ICV CRC over a 4 KiB frame.
//!
//! (a), (b), (c) are timed in batches of [`BATCH`] packets, the other parts of the loop running untimed.
//! Goal: (a)+(b)+(c) at most half of (e), and at least 12 M packets/s per core.
//! Run: `cargo bench -p metaroce-proto --all-features --bench transport -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;
use std::time::{Duration, Instant as WallClock};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use metaroce_proto::harness::memory::NullMemory;
use metaroce_proto::harness::pair::Side;
use metaroce_proto::harness::scenario::{endpoint_config, IP_A, IP_B, MAC_A, MAC_B};
use metaroce_proto::transport::{
    Access, CcKind, Endpoint, Mode, PlanHeaders, Qpn, RemoteQp, SendOp, SendWr, Sge, TransmitPlan,
};
use metaroce_proto::wire;

/// Payload bytes per data packet.
const MTU: u32 = 4096;
/// Packets per timed batch for (a), (b), (c).
const BATCH: usize = 8;
/// Bytes of each WRITE the requester keeps posting.
const MSG: u32 = 64 << 20;
const SRC: u64 = 0x1_0000_0000;
const DST: u64 = 0x2_0000_0000;
/// Virtual time per packet: a 4 KiB frame at 100 Gb/s.
const PKT_NS: u64 = 336;

/// Two endpoints wired back to back, no link model: frames go straight from one to the other.
struct Rig {
    a: Endpoint<NullMemory>,
    b: Endpoint<NullMemory>,
    qa: Qpn,
    now: u64,
    rkey: u32,
    lkey: u32,
    next_wr: u64,
    /// Frame buffers for data packets (payload area never written: no copy).
    data: Vec<Vec<u8>>,
    /// Frame buffers for ACKs.
    acks: Vec<Vec<u8>>,
    stalls: u64,
}

/// Writes the headers of `plan` into `buf` (sized for the whole frame; payload and ICV bytes untouched) and
/// returns the frame length.
fn emit_headers(plan: &TransmitPlan, buf: &mut Vec<u8>) -> usize {
    let len = plan.frame_len();
    if buf.len() < len {
        buf.resize(len, 0);
    }
    let r = match &plan.headers {
        PlanHeaders::MetaRoce(m) => {
            wire::packet::emit_headers(&plan.l, m, plan.payload_len as usize, buf)
        }
        PlanHeaders::RoceV2(r) => {
            wire::roce_packet::emit_roce_headers(&plan.l, r, plan.payload_len as usize, buf)
        }
    };
    r.expect("emit headers");
    len
}

impl Rig {
    fn new(mode: Mode) -> Rig {
        let mut ca = endpoint_config(mode, Side::A, 1);
        let mut cb = endpoint_config(mode, Side::B, 2);
        for c in [&mut ca, &mut cb] {
            c.verify_icv = false;
            c.mtu = MTU;
            c.cc = CcKind::None;
        }
        let mut a = Endpoint::new(ca, NullMemory);
        let mut b = Endpoint::new(cb, NullMemory);
        let src = a
            .register_mr(SRC, u64::from(MSG), Access::LOCAL_WRITE)
            .expect("mr");
        let dst = b
            .register_mr(DST, u64::from(MSG), Access::REMOTE_WRITE)
            .expect("mr");
        let qa = a.create_qp(64, 16).expect("qp");
        let qb = b.create_qp(64, 16).expect("qp");
        a.connect_qp(
            qa,
            RemoteQp {
                mac: MAC_B,
                ip: IP_B,
                qpn: qb,
            },
        )
        .expect("connect");
        b.connect_qp(
            qb,
            RemoteQp {
                mac: MAC_A,
                ip: IP_A,
                qpn: qa,
            },
        )
        .expect("connect");
        let mut rig = Rig {
            a,
            b,
            qa,
            now: 1_000,
            rkey: dst.rkey,
            lkey: src.lkey,
            next_wr: 0,
            data: (0..BATCH).map(|_| vec![0u8; 4096 + 256]).collect(),
            acks: (0..BATCH * 4).map(|_| vec![0u8; 256]).collect(),
            stalls: 0,
        };
        for _ in 0..4 {
            rig.post();
        }
        // Warm up past the connection open (SYN) phase.
        for _ in 0..64 {
            rig.full_packet();
        }
        rig
    }

    fn post(&mut self) {
        let wr = SendWr {
            wr_id: self.next_wr,
            op: SendOp::Write,
            local: Sge {
                addr: SRC,
                len: MSG,
                lkey: self.lkey,
            },
            remote_addr: DST,
            rkey: self.rkey,
            solicited: false,
        };
        if self.a.post_send(self.now, self.qa, wr).is_ok() {
            self.next_wr += 1;
        }
    }

    /// The requester's next data packet plan (advancing time or posting more work when it has none).
    #[inline]
    fn plan(&mut self) -> TransmitPlan {
        loop {
            if let Some(p) = self.a.poll_transmit_plan(self.now) {
                return p;
            }
            self.stalls += 1;
            while self.a.poll_event().is_some() {}
            self.post();
            self.now += 50;
            if self.a.poll_timeout().is_some_and(|t| t <= self.now) {
                self.a.handle_timeout(self.now);
            }
        }
    }

    /// Responder side of one data frame: handle it, emit its ACK(s) into `acks[first..]`; returns how many.
    #[inline]
    fn respond(&mut self, frame_idx: usize, len: usize, first_ack: usize) -> usize {
        let now = self.now;
        self.b.handle_frame(now, &self.data[frame_idx][..len]);
        let mut n = 0;
        while let Some(p) = self.b.poll_transmit_plan(now) {
            let i = (first_ack + n) % self.acks.len();
            let l = emit_headers(&p, &mut self.acks[i]);
            self.acks[i].truncate(l);
            n += 1;
        }
        while self.b.poll_event().is_some() {}
        n
    }

    /// One packet through the whole loop.
    #[inline]
    fn full_packet(&mut self) {
        let p = self.plan();
        let len = emit_headers(&p, &mut self.data[0]);
        let n = self.respond(0, len, 0);
        for i in 0..n {
            let f = std::mem::take(&mut self.acks[i]);
            self.a.handle_frame(self.now, &f);
            self.acks[i] = f;
        }
        self.now += PKT_NS;
    }
}

/// Times part `which` (0 = a, 1 = b, 2 = c) of `iters` packets, in batches.
fn timed_part(rig: &mut Rig, iters: u64, which: usize) -> Duration {
    let mut total = Duration::ZERO;
    let mut left = iters as usize;
    let mut plans: Vec<TransmitPlan> = Vec::with_capacity(BATCH);
    let mut lens = [0usize; BATCH];
    while left > 0 {
        let k = left.min(BATCH);
        left -= k;
        // (a) plans.
        plans.clear();
        let t0 = WallClock::now();
        for _ in 0..k {
            let p = rig.plan();
            plans.push(p);
        }
        let ta = t0.elapsed();
        for (i, p) in plans.iter().enumerate() {
            lens[i] = emit_headers(p, &mut rig.data[i]);
        }
        // (b) responder: every data frame and its ACK(s).
        let t1 = WallClock::now();
        let mut acks = 0;
        for (i, &len) in lens.iter().enumerate().take(k) {
            acks += rig.respond(i, len, acks);
        }
        let tb = t1.elapsed();
        // (c) requester handles the ACKs.
        let t2 = WallClock::now();
        for i in 0..acks.min(rig.acks.len()) {
            let f = std::mem::take(&mut rig.acks[i]);
            rig.a.handle_frame(rig.now, black_box(&f));
            rig.acks[i] = f;
        }
        let tc = t2.elapsed();
        rig.now += PKT_NS * k as u64;
        total += [ta, tb, tc][which];
    }
    total
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("per_packet_4KiB");
    g.throughput(Throughput::Elements(1));
    let mut rig = Rig::new(Mode::MetaRoce);
    g.bench_function("a_requester_poll_transmit_plan", |b| {
        b.iter_custom(|n| timed_part(&mut rig, n, 0))
    });
    let mut rig = Rig::new(Mode::MetaRoce);
    g.bench_function("b_responder_handle_data_and_ack", |b| {
        b.iter_custom(|n| timed_part(&mut rig, n, 1))
    });
    let mut rig = Rig::new(Mode::MetaRoce);
    g.bench_function("c_requester_handle_ack", |b| {
        b.iter_custom(|n| timed_part(&mut rig, n, 2))
    });
    let mut rig = Rig::new(Mode::MetaRoce);
    g.bench_function("d_full_loop_metaroce", |b| b.iter(|| rig.full_packet()));
    let stalls = rig.stalls;
    let mut rig = Rig::new(Mode::RoceV2);
    g.bench_function("d_full_loop_rocev2", |b| b.iter(|| rig.full_packet()));
    eprintln!("(requester had no packet ready {stalls} times in d_full_loop_metaroce)");

    let src = vec![0x5Au8; 4096];
    let mut dst = vec![0u8; 4096];
    g.bench_function("e_copy_4KiB_payload", |b| {
        b.iter(|| {
            dst.copy_from_slice(black_box(&src));
            black_box(&mut dst);
        })
    });
    // A real 4 KiB WRITE frame for the ICV.
    let l = wire::packet::L2L3 {
        eth_src: MAC_A,
        eth_dst: MAC_B,
        vlan: None,
        ip: wire::packet::IpRepr::V4 {
            src: [10, 0, 0, 1],
            dst: [10, 0, 0, 2],
            dscp: 26,
            ecn: 2,
            ttl: 64,
        },
        udp_src: 0xC001,
        udp_dst: wire::DEFAULT_UDP_PORT,
    };
    let m = wire::packet::MetaRoceRepr {
        mbh: wire::MbhRepr {
            ptype: wire::PacketType::Data,
            flags: wire::MbhFlags::EMPTY,
            payload_len: 0,
            dcid: 1,
            hlen: 0,
            psn: 7,
            ts: 0,
        },
        ty: wire::packet::TypeRepr::Data(wire::DataRepr {
            opcode: wire::Opcode::Write,
            flags: wire::DataFlags::EMPTY,
            msn: 0,
            addr: DST,
            key: 1,
            msg_len: 1 << 20,
            imm: None,
        }),
        open: None,
    };
    let mut frame = Vec::new();
    wire::packet::emit_frame(&l, &m, &src, &mut frame).expect("frame");
    let hdr = l.header_len() + m.header_len();
    g.bench_function("f_icv_crc_4KiB_frame", |b| {
        b.iter(|| {
            let f = black_box(&mut frame);
            wire::packet::finish_icv(f, hdr, 4096).expect("icv")
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
