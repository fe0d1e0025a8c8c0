//! The firmware on the RTL core's control processor in Verilator: the `metaroce-fw` image built for RISC-V,
//! loaded through the image window, booted (self-test over the real register bus), and commanded through the
//! mailbox by the host exactly as the driver does it; refusals change nothing and are counted. End to end: two
//! cores whose QPs, CQs and memory regions the host created through their firmware, the firmware binding the
//! responder's connection to the initiator's 0-RTT open and announcing it, an RDMA WRITE moving byte-exact.

use metaroce_proto::harness::link::LinkConfig;
use metaroce_proto::wire::{
    parse_frame, CtrlCode, IpRepr, MbhFlags, OpenRepr, PacketType, TypeRepr,
};
use metaroce_regmap::block::{BlockType, DEFAULT_MAP};
use metaroce_regmap::command::{
    Command, CreateCq, CreateMr, CreateQp, Moderation, ModifyQp, QpState, Remote, Request,
    ResponseData, Status, CMD_BYTES,
};
use metaroce_regmap::context::mr::MrAccess;
use metaroce_regmap::counters::{self, CounterId};
use metaroce_regmap::descriptor::cqe::{CqeOpcode, CqeStatus};
use metaroce_regmap::descriptor::sqe::{SqOp, SqeRepr};
use metaroce_regmap::fwbus::BootStage;
use metaroce_sim::cosim::core::{core_model, cosim_config, BenchTiming, CoreBench};
use metaroce_sim::cosim::demo::PERIOD_PS;
use metaroce_sim::cosim::firmware;
use metaroce_sim::cosim::host;
use metaroce_sim::cosim::pair::NicPair;
use std::net::{IpAddr, Ipv4Addr};

fn base(kind: BlockType) -> u32 {
    DEFAULT_MAP
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|b| b.1)
        .expect("block in the default map")
}

fn booted_bench() -> CoreBench {
    let cfg = cosim_config();
    let kind = core_model(&cfg, false).unwrap_or_else(|e| panic!("{e}"));
    let mut b =
        CoreBench::new(&kind, &cfg, BenchTiming::default(), 1).unwrap_or_else(|e| panic!("{e}"));
    let words = firmware::image().unwrap_or_else(|e| panic!("{e}"));
    println!("firmware image: {} bytes", 4 * words.len());
    let (st, cycles) = firmware::boot(&mut b).unwrap_or_else(|e| panic!("{e}"));
    println!("boot: {st:?} after {cycles} cycles");
    println!("console: {:?}", String::from_utf8_lossy(&b.console));
    assert_eq!(st.stage, BootStage::Ready, "{st:?}");
    assert_eq!(st.version, 0x0001);
    assert_eq!(
        String::from_utf8_lossy(&b.console),
        format!(
            "metaroce-fw {}.{}: self-test passed\n",
            metaroce_firmware::VERSION_MAJOR,
            metaroce_firmware::VERSION_MINOR
        )
    );
    b
}

fn run(b: &mut CoreBench, tag: u16, command: Command) -> (metaroce_regmap::command::Response, u64) {
    let (r, cycles) = firmware::command(b, &Request { tag, command })
        .unwrap_or_else(|e| panic!("{command:?}: {e}"));
    assert_eq!(r.tag, tag);
    (r, cycles)
}

fn counter(b: &mut CoreBench, id: CounterId) -> u64 {
    let c = base(BlockType::Counters);
    b.write(c + counters::reg::SNAPSHOT, 1).expect("snapshot");
    let lo = b.read(c + counters::value_offset(id)).expect("lo");
    let hi = b.read(c + counters::value_offset(id) + 4).expect("hi");
    u64::from(hi) << 32 | u64::from(lo)
}

#[test]
fn firmware_boots_on_the_core_and_serves_the_mailbox() {
    let mut b = booted_bench();
    let cfg = cosim_config();

    let (r, cycles) = run(&mut b, 1, Command::QueryDevice);
    println!("QUERY_DEVICE: {cycles} cycles");
    let ResponseData::Device(d) = r.data else {
        panic!("{r:?}")
    };
    assert_eq!(d.fw_version, metaroce_firmware::FW_VERSION);
    assert_eq!(d.free_qps, (1 << cfg.qp_bits) - 1, "QPN 0 is never used");
    assert_eq!(d.free_cqs, 1 << cfg.qp_bits);
    assert_eq!(d.free_conns, 1 << cfg.conn_bits);

    let (r, cycles) = run(
        &mut b,
        2,
        Command::CreateCq(CreateCq {
            ring_addr: 0x8000,
            log_size: 7,
            msix_vector: 0,
            moderation: Moderation::default(),
        }),
    );
    println!("CREATE_CQ: {cycles} cycles");
    assert_eq!(r.data, ResponseData::Cq(0));
    let (r, cycles) = run(
        &mut b,
        3,
        Command::CreateQp(CreateQp {
            sq_addr: 0x1_0000,
            rq_addr: 0x2_0000,
            send_cqn: 0,
            recv_cqn: 0,
            sq_log: 6,
            rq_log: 6,
        }),
    );
    println!("CREATE_QP: {cycles} cycles");
    assert_eq!(r.data, ResponseData::Qp(1));
    let (r, cycles) = run(
        &mut b,
        4,
        Command::ModifyQp(ModifyQp {
            qpn: 1,
            state: QpState::Ready,
            remote: Some(Remote {
                qpn: 1,
                mac: [2, 0, 0, 0, 0, 2],
                ip: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)),
            }),
        }),
    );
    println!("MODIFY_QP to READY (connection open and QP entry): {cycles} cycles");
    assert_eq!(r.status, Status::Ok);
    let (r, cycles) = run(
        &mut b,
        5,
        Command::CreateMr(CreateMr {
            addr: 0x10_0000,
            length: 1 << 20,
            access: MrAccess::ALL,
        }),
    );
    println!("CREATE_MR: {cycles} cycles");
    let ResponseData::Mr { lkey, rkey } = r.data else {
        panic!("{r:?}")
    };
    assert_eq!(lkey >> 8, 1);
    assert_ne!(lkey, rkey);

    // Refusals: a bad state move, a destroyed CQ still in use, an unknown opcode; none changes anything.
    let ctx_commits = |b: &mut CoreBench| {
        b.read(metaroce_regmap::ctxport::WINDOW + metaroce_regmap::ctxport::reg::STATUS)
            .expect("ctx status")
            >> 16
    };
    let commits = ctx_commits(&mut b);
    let (r, _) = run(
        &mut b,
        6,
        Command::ModifyQp(ModifyQp {
            qpn: 1,
            state: QpState::Init,
            remote: None,
        }),
    );
    assert_eq!(r.status, Status::BadState);
    let (r, _) = run(&mut b, 7, Command::DestroyCq { cqn: 0 });
    assert_eq!(r.status, Status::BadState);
    let mut bad = [0u8; CMD_BYTES];
    bad[0] = 0x7E;
    bad[1] = 1;
    let (st, _, _) = firmware::submit(&mut b, &bad, 8).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(st.status, Status::BadOpcode as u8);
    assert_eq!(
        ctx_commits(&mut b),
        commits,
        "refused commands commit nothing"
    );
    assert_eq!(counter(&mut b, CounterId::CmdRejected), 3);

    let (r, cycles) = run(
        &mut b,
        9,
        Command::ReadCounters {
            first: CounterId::CmdRejected as u16,
            count: 1,
        },
    );
    println!("READ_COUNTERS: {cycles} cycles");
    let ResponseData::Counters { values, .. } = r.data else {
        panic!("{r:?}")
    };
    assert_eq!(values[0], 3, "the firmware reads the same counter");
    assert!(!b.fw_trap().expect("trap"), "the processor never trapped");
}

fn pattern(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// DCID, Open extension, destination MAC and IPv4 address of a CTRL OPEN.
type CtrlOpen = (u32, Option<OpenRepr>, [u8; 6], [u8; 4]);

/// The CTRL OPENs and SYN DATA packets a core put on the link.
#[derive(Debug, Default)]
struct Seen {
    /// Each CTRL OPEN.
    ctrl_open: Vec<CtrlOpen>,
    syn_data: u64,
}

fn look(seen: &mut Seen, frame: &[u8]) {
    let cfg = metaroce_proto::transport::EndpointConfig::default();
    let Ok(parsed) = parse_frame(frame, cfg.udp_port, cfg.dscp_trim, true) else {
        return;
    };
    let m = parsed.m;
    match (m.mbh.ptype, &m.ty) {
        (PacketType::Ctrl, TypeRepr::Ctrl(c)) if c.code == CtrlCode::Open => {
            let ip = match parsed.l.ip {
                IpRepr::V4 { dst, .. } => dst,
                IpRepr::V6 { .. } => [0; 4],
            };
            seen.ctrl_open
                .push((m.mbh.dcid, m.open, parsed.l.eth_dst, ip));
        }
        (PacketType::Data, _) if m.mbh.flags.contains(MbhFlags::SYN) => seen.syn_data += 1,
        _ => {}
    }
}

#[test]
fn a_write_moves_between_two_cores_whose_qps_the_firmware_opened() {
    let cfg = cosim_config();
    let kind = core_model(&cfg, false).unwrap_or_else(|e| panic!("{e}"));
    let mut cores = [1u64, 2].map(|seed| {
        let mut b = CoreBench::new(&kind, &cfg, BenchTiming::default(), seed)
            .unwrap_or_else(|e| panic!("{e}"));
        let (st, _) = firmware::boot(&mut b).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(st.stage, BootStage::Ready, "{st:?}");
        b
    });
    let macs = [[2, 0, 0, 0, 0, 0x0a], [2, 0, 0, 0, 0, 0x0b]];
    let ips = [Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2)];
    let bufs = [0x10_0000u64, 0x20_0000];
    let made: Vec<_> = (0..2)
        .map(|i| {
            firmware::create(&mut cores[i], macs[i], ips[i], (bufs[i], 1 << 20))
                .unwrap_or_else(|e| panic!("{e}"))
        })
        .collect();
    for i in 0..2 {
        let peer = 1 - i;
        firmware::ready(
            &mut cores[i],
            made[i].qp.qpn,
            Remote {
                qpn: u32::from(made[peer].qp.qpn),
                mac: macs[peer],
                ip: IpAddr::V4(ips[peer]),
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }
    let [a, b] = cores;
    let mut p = NicPair::new(
        a,
        b,
        LinkConfig::multipath(200_000_000_000, 4, 1_000, 200),
        PERIOD_PS,
        7,
    );
    let mut qps = [made[0].qp, made[1].qp];
    let mut cqs = [made[0].cq, made[1].cq];

    // A WRITE of three and a bit packets from A to B, a second one on the open connection, then one from B to A.
    let mut seen = [Seen::default(), Seen::default()];
    let mut syn_after = Vec::new();
    for (round, from, len) in [
        (0u64, 0usize, 3 * 4096 + 100),
        (1, 0, 2 * 4096),
        (2, 1, 5000),
    ] {
        let to = 1 - from;
        let data = pattern(42 + round, len);
        let src = bufs[from] + 0x1_0000 * round;
        let dst = bufs[to] + 64 + 0x1_0000 * round;
        let sqe = SqeRepr {
            wr_id: 0x70 + round,
            op: SqOp::Write,
            local_addr: src,
            length: len as u32,
            lkey: made[from].lkey,
            remote_addr: dst,
            rkey: made[to].rkey,
            solicited: false,
        };
        if round == 2 {
            // A's firmware takes about 40K cycles to bind a connection (see docs/firmware.md): give it the time
            // to act on B's CTRL OPEN before B's first WRITE, so that B's opening flight finds A's side bound.
            p.run(200_000).unwrap_or_else(|e| panic!("{e}"));
        }
        let wqe = {
            let core = if from == 0 { &mut p.a } else { &mut p.b };
            core.dma.mem.write(src, &data);
            host::post_send(core, &mut qps[from], &sqe).unwrap_or_else(|e| panic!("{e}"))
        };
        let start = p.a.m.cycle();
        let c = loop {
            for _ in 0..64 {
                p.step_filtered(|from_a, f| {
                    look(&mut seen[usize::from(!from_a)], f);
                    true
                })
                .unwrap_or_else(|e| panic!("{e}"));
            }
            let core = if from == 0 { &mut p.a } else { &mut p.b };
            if let Some(c) = host::poll_cq(core, &mut cqs[from]).unwrap_or_else(|e| panic!("{e}")) {
                break c;
            }
            if p.a.m.cycle() - start >= 4_000_000 {
                let traps = (p.a.fw_trap().unwrap_or(true), p.b.fw_trap().unwrap_or(true));
                panic!(
                    "round {round}: no completion (A sent {} beats, B sent {}; A saw {:?}, B {:?}; traps {traps:?})",
                    p.a.tx.beats, p.b.tx.beats, seen[0], seen[1],
                );
            }
        };
        println!(
            "round {round}: WRITE of {len} B from {} completed after {} cycles; SYN DATA sent by A {}, by B {}; CTRL OPEN sent by A {}, by B {}",
            ["A", "B"][from],
            p.a.m.cycle() - start,
            seen[0].syn_data,
            seen[1].syn_data,
            seen[0].ctrl_open.len(),
            seen[1].ctrl_open.len()
        );
        syn_after.push(seen[0].syn_data);
        assert_eq!(
            (c.wr_id, c.opcode, c.status, c.wqe_index),
            (0x70 + round, CqeOpcode::Write, CqeStatus::Success, wqe)
        );
        let target = if to == 0 { &p.a } else { &p.b };
        assert_eq!(
            target.dma.mem.read(dst, len),
            data,
            "round {round}: target memory"
        );
        assert_eq!(
            target.dma.mem.read(dst - 64, 64),
            vec![0; 64],
            "nothing before"
        );
        assert_eq!(
            target.dma.mem.read(dst + len as u64, 64),
            vec![0; 64],
            "nothing after"
        );
    }
    // B's firmware bound its connection to A and announced itself to A's CID and addresses with its Open
    // extension (MR-CONN-14).
    assert!(!seen[1].ctrl_open.is_empty(), "B sent a CTRL OPEN");
    let (dcid, ox, mac, ip) = seen[1].ctrl_open[0];
    assert_eq!(dcid, u32::from(made[0].qp.qpn), "to A's CID (= its QPN)");
    assert_eq!((mac, ip), (macs[0], ips[0].octets()), "to A's addresses");
    let ox = ox.expect("the Open extension");
    assert_eq!(
        (ox.scid, ox.target_qpn),
        (u32::from(made[1].qp.qpn), u32::from(made[0].qp.qpn))
    );
    // A's firmware bound A's receive side on that CTRL OPEN (MR-CONN-16), so B's opening flight of round 2 (two
    // SYN DATA packets) reached the connection at once, without a retransmission, and A never announced itself.
    assert!(seen[0].ctrl_open.is_empty(), "A sent no CTRL OPEN");
    assert_eq!(seen[1].syn_data, 2, "B's WRITE: two packets, sent once");
    assert!(!p.a.fw_trap().expect("trap") && !p.b.fw_trap().expect("trap"));
    // The opening flight carried SYN; A's second WRITE went out without: A left its SYN phase on B's first ACK
    // (MR-CONN-6, MR-CONN-7).
    assert!(syn_after[0] >= 4, "{syn_after:?}");
    assert_eq!(syn_after[1], syn_after[0], "no SYN after the first ACK");
    // What each firmware did, as its host reads it: B bound on A's first SYN and announced once; A bound on
    // B's CTRL OPEN and announced nothing.
    for (name, core, announced) in [("A", &mut p.a, 0), ("B", &mut p.b, 1)] {
        let (r, _) = run(core, 0x300, Command::QueryDevice);
        let ResponseData::Device(d) = r.data else {
            panic!("{r:?}")
        };
        println!(
            "{name}: {} exceptions, {} bound, {} CTRL OPENs, {} refused, {} dropped at the port",
            d.exceptions, d.bound, d.announced, d.refused, d.exc_lost
        );
        assert_eq!(
            (d.bound, d.announced, d.refused),
            (1, announced, 0),
            "{name}"
        );
        assert!(d.exceptions >= 1, "{name}");
    }
}
