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
    arg, CcParams, Command, CreateCq, CreateMr, CreateQp, DeviceInfo, Event, EventType, Moderation,
    ModifyQp, QpState, Remote, Request, ResponseData, Status, CMD_BYTES,
};
use metaroce_regmap::context::mr::MrAccess;
use metaroce_regmap::counters::{self, CounterId};
use metaroce_regmap::descriptor::cqe::{CqeOpcode, CqeStatus};
use metaroce_regmap::descriptor::rqe::RqeRepr;
use metaroce_regmap::descriptor::sqe::{SqOp, SqeRepr};
use metaroce_regmap::endpoint as ep;
use metaroce_regmap::fwbus::{BootStage, PortStatus};
use metaroce_regmap::irq;
use metaroce_sim::cosim::core::{core_model, cosim_config, BenchTiming, CoreBench};
use metaroce_sim::cosim::demo::PERIOD_PS;
use metaroce_sim::cosim::firmware;
use metaroce_sim::cosim::host;
use metaroce_sim::cosim::module::Module;
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

    let (r, cycles) = run(&mut b, 10, Command::ReadEvents);
    println!("READ_EVENTS (none queued): {cycles} cycles");
    let ResponseData::Events(e) = r.data else {
        panic!("{r:?}")
    };
    assert_eq!((e.count, e.pending, e.lost), (0, 0, 0), "nothing happened");

    // The congestion-control parameters: set through the firmware, then held by the endpoint block.
    let cc = CcParams {
        line_rate_mbps: 400_000,
        base_rtt_ns: 4_000,
        rto_min_ns: 100_000_000,
        rto_init_ns: 150_000_000,
        rto_max_ns: 200_000_000,
        ack_delay_ns: 1_000,
        ack_ratio: 4,
        retry_limit: 3,
        reorder_distance: 64,
    };
    let (r, cycles) = run(&mut b, 11, Command::SetCc(cc));
    println!("SET_CC: {cycles} cycles");
    assert_eq!(r.status, Status::Ok);
    let (r, cycles) = run(&mut b, 12, Command::QueryCc);
    println!("QUERY_CC: {cycles} cycles");
    let ResponseData::Cc(got) = r.data else {
        panic!("{r:?}")
    };
    assert_eq!(got.params, cc);
    let e = base(BlockType::Endpoint);
    let rd = |b: &mut CoreBench, off| b.read(e + off).expect("endpoint");
    assert_eq!(
        [ep::reg::LINE_RATE, ep::reg::RTO_MIN, ep::reg::RTO_MAX].map(|o| rd(&mut b, o)),
        [400_000, 100_000_000, 200_000_000],
        "the endpoint block holds them"
    );
    let (r, _) = run(&mut b, 13, Command::SetCc(CcParams { ack_ratio: 0, ..cc }));
    assert_eq!(r.status, Status::BadParam);
    assert_eq!(
        rd(&mut b, ep::reg::ACK) & 0x7F,
        4,
        "a refused set changes nothing"
    );

    // The transceiver module's memory over its management bus, driven by the firmware bit by bit.
    let module = |page, offset, length| Command::ReadModule {
        page,
        offset,
        length,
    };
    let bytes = |r: &metaroce_regmap::command::Response| match r.data {
        ResponseData::Module { count, data } => data[..count as usize].to_vec(),
        _ => panic!("{r:?}"),
    };
    let (r, cycles) = run(&mut b, 14, module(0, 0, 16));
    println!("READ_MODULE (16 bytes of the lower page): {cycles} cycles");
    assert_eq!(bytes(&r), Module::reference().lower[..16]);
    let (r, cycles) = run(&mut b, 15, module(0, 129, 16));
    println!("READ_MODULE (16 bytes of page 0, page select first): {cycles} cycles");
    assert_eq!(bytes(&r), b"METAROCE        ", "the vendor name");
    let (r, _) = run(&mut b, 16, module(1, 128, 2));
    assert_eq!(bytes(&r), [0x10, 0x02], "page 1");
    let transfers = b.module.as_ref().map_or(0, |m| m.transfers);
    assert_eq!(transfers, 2 + 3 + 3, "every read went over the bus");
    let (r, _) = run(&mut b, 17, module(0, 250, 7));
    assert_eq!(
        (r.status, r.bad_offset),
        (Status::BadParam, Some(arg::MOD_LENGTH.byte as u16))
    );
    // A module that does not answer, then no module in the cage.
    b.module.as_mut().expect("module").answers = false;
    let (r, cycles) = run(&mut b, 18, module(0, 0, 1));
    println!("READ_MODULE (address not acknowledged): {cycles} cycles");
    assert_eq!(r.status, Status::DeviceError);
    b.module.as_mut().expect("module").answers = true;
    b.set_port_status(PortStatus::LINK_UP.0);
    let (r, _) = run(&mut b, 19, module(0, 0, 1));
    assert_eq!(r.status, Status::BadState);
    assert_eq!(
        b.module.as_ref().map_or(0, |m| m.transfers),
        transfers,
        "nothing went over the bus"
    );
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

const MACS: [[u8; 6]; 2] = [[2, 0, 0, 0, 0, 0x0a], [2, 0, 0, 0, 0, 0x0b]];
const IPS: [Ipv4Addr; 2] = [Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2)];
const BUFS: [u64; 2] = [0x10_0000, 0x20_0000];

/// Two booted cores on a 4-path link, each with a CQ, a QP and a 1 MiB region its host made through the
/// firmware, the QPs READY towards each other.
fn two_cores() -> (NicPair, [firmware::Created; 2]) {
    two_cores_with(|_, _, _| {})
}

/// [`two_cores`], calling `in_init` for each core (index 0 is A) between the creation of its objects (its QP
/// in INIT) and the move to READY.
fn two_cores_with(
    mut in_init: impl FnMut(usize, &mut CoreBench, &mut firmware::Created),
) -> (NicPair, [firmware::Created; 2]) {
    let cfg = cosim_config();
    let kind = core_model(&cfg, false).unwrap_or_else(|e| panic!("{e}"));
    let mut cores = [1u64, 2].map(|seed| {
        let mut b = CoreBench::new(&kind, &cfg, BenchTiming::default(), seed)
            .unwrap_or_else(|e| panic!("{e}"));
        let (st, _) = firmware::boot(&mut b).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(st.stage, BootStage::Ready, "{st:?}");
        b
    });
    let mut made = [0, 1].map(|i| {
        firmware::create(&mut cores[i], MACS[i], IPS[i], (BUFS[i], 1 << 20))
            .unwrap_or_else(|e| panic!("{e}"))
    });
    for i in 0..2 {
        in_init(i, &mut cores[i], &mut made[i]);
    }
    for i in 0..2 {
        let peer = 1 - i;
        firmware::ready(
            &mut cores[i],
            made[i].qp.qpn,
            Remote {
                qpn: u32::from(made[peer].qp.qpn),
                mac: MACS[peer],
                ip: IpAddr::V4(IPS[peer]),
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }
    let [a, b] = cores;
    let p = NicPair::new(
        a,
        b,
        LinkConfig::multipath(200_000_000_000, 4, 1_000, 200),
        PERIOD_PS,
        7,
    );
    (p, made)
}

#[test]
fn a_write_moves_between_two_cores_whose_qps_the_firmware_opened() {
    let (mut p, made) = two_cores();
    let (macs, ips, bufs) = (MACS, IPS, BUFS);
    let mut qps = [made[0].qp, made[1].qp];
    let mut cqs = [made[0].cq, made[1].cq];

    // A WRITE of three and a bit packets from A to B, a second one on the open connection, then one from B to A.
    let mut seen = [Seen::default(), Seen::default()];
    let mut syn_after = Vec::new();
    // When A's first SYN DATA left and when B's firmware answered it with its CTRL OPEN (64-cycle resolution).
    let (mut first_syn, mut first_open) = (None, None);
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
            // A's firmware takes about 21K cycles to bind a connection (see docs/firmware.md): give it the time
            // to act on B's CTRL OPEN before B's first WRITE, so that B's packets find A's side bound and B has
            // A's answer.
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
            if first_syn.is_none() && seen[0].syn_data > 0 {
                first_syn = Some(p.a.m.cycle());
            }
            if first_open.is_none() && !seen[1].ctrl_open.is_empty() {
                first_open = Some(p.a.m.cycle());
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
    let (syn, open) = (
        first_syn.expect("A sent SYN DATA"),
        first_open.expect("B sent a CTRL OPEN"),
    );
    println!(
        "B's firmware announced itself {} cycles after A's first SYN DATA left A (the flight to B included)",
        open - syn
    );
    // B's firmware bound its connection to A and announced itself to A's CID and addresses with its Open
    // extension (MR-CONN-14).
    assert!(!seen[1].ctrl_open.is_empty(), "B sent a CTRL OPEN");
    let (dcid, ox, mac, ip) = seen[1].ctrl_open[0];
    assert_eq!(
        dcid & 0xFFFF,
        u32::from(made[0].qp.qpn),
        "to A's CID (its QPN and a generation)"
    );
    assert_eq!((mac, ip), (macs[0], ips[0].octets()), "to A's addresses");
    let ox = ox.expect("the Open extension");
    assert_eq!(
        (ox.scid & 0xFFFF, ox.target_qpn),
        (u32::from(made[1].qp.qpn), u32::from(made[0].qp.qpn))
    );
    // A's firmware bound A's receive side on that CTRL OPEN (MR-CONN-16) and handed it back to A's receive
    // path, whose ACK (MR-REL-17) ended B's SYN phase (MR-CONN-6, MR-CONN-7): B's WRITE of round 2 went out
    // without SYN, reached the connection at once, and A never announced itself.
    assert!(seen[0].ctrl_open.is_empty(), "A sent no CTRL OPEN");
    assert_eq!(seen[1].syn_data, 0, "B's WRITE: no SYN after A's answer");
    assert!(!p.a.fw_trap().expect("trap") && !p.b.fw_trap().expect("trap"));
    // The opening flight carried SYN; A's second WRITE went out without: A left its SYN phase on B's first ACK
    // (MR-CONN-6, MR-CONN-7).
    assert!(syn_after[0] >= 4, "{syn_after:?}");
    assert_eq!(syn_after[1], syn_after[0], "no SYN after the first ACK");
    // What each firmware did, as its host reads it: B bound on A's first SYN and announced itself; A bound on
    // B's CTRL OPEN and announced nothing. A SYN DATA of A's opening flight that B's firmware takes after the
    // binding (MR-CONN-11) is answered with the announcement again once `ANNOUNCE_GAP` cycles have passed since
    // the last one: how many of the flight's later packets come that late depends on the firmware's speed, so
    // B announces at least once and at most once per exception.
    for (name, core, announced) in [("A", &mut p.a, 0), ("B", &mut p.b, 1)] {
        let (r, _) = run(core, 0x300, Command::QueryDevice);
        let ResponseData::Device(d) = r.data else {
            panic!("{r:?}")
        };
        println!(
            "{name}: {} exceptions, {} bound, {} CTRL OPENs, {} replayed, {} refused, {} dropped at the port",
            d.exceptions, d.bound, d.announced, d.replayed, d.refused, d.exc_lost
        );
        // A handed B's CTRL OPEN back to its receive path; B had no CTRL OPEN to answer.
        assert_eq!(
            (d.bound, d.announced.min(1), d.replayed, d.refused),
            (1, announced, 1 - announced, 0),
            "{name}"
        );
        assert!(
            d.exceptions >= 1 && d.announced <= announced * d.exceptions,
            "{name}"
        );
    }
    // QUERY_QP: each side's connection is bound to the other's CID and ISN; a CID is the connection's index
    // (the QP's number) with a generation above it (MR-CONN-2).
    let mut info = Vec::new();
    for (name, core, me) in [("A", &mut p.a, 0), ("B", &mut p.b, 1)] {
        let (r, cycles) = run(
            core,
            0x301,
            Command::QueryQp {
                qpn: u32::from(made[me].qp.qpn),
            },
        );
        println!("{name}: QUERY_QP {cycles} cycles");
        let ResponseData::QpInfo(q) = r.data else {
            panic!("{r:?}")
        };
        assert_eq!(q.state, QpState::Ready, "{name}");
        assert_eq!(q.cid & 0xFFFF, u32::from(made[me].qp.qpn), "{name}");
        assert_ne!(q.cid >> 16, 0, "{name}: a CID generation");
        assert_ne!(q.peer_isn, 0, "{name}: the peer's ISN is known");
        info.push(q);
    }
    assert_eq!(
        (info[0].peer_cid, info[1].peer_cid),
        (info[1].cid, info[0].cid)
    );
    assert_eq!(
        (info[0].peer_isn, info[1].peer_isn),
        (info[1].isn, info[0].isn)
    );
    assert_eq!(
        (dcid, ox.scid),
        (info[0].cid, info[1].cid),
        "B's CTRL OPEN named both CIDs"
    );
}

/// Runs the pair until `done` holds, checking every 64 cycles; panics after `limit` cycles.
fn run_until(
    p: &mut NicPair,
    limit: u64,
    what: &str,
    mut done: impl FnMut(&mut NicPair) -> bool,
) -> u64 {
    let start = p.a.m.cycle();
    loop {
        p.run(64).unwrap_or_else(|e| panic!("{e}"));
        if done(p) {
            return p.a.m.cycle() - start;
        }
        let traps = (p.a.fw_trap().unwrap_or(true), p.b.fw_trap().unwrap_or(true));
        assert!(
            p.a.m.cycle() - start < limit,
            "{what}: not within {limit} cycles (traps {traps:?})"
        );
    }
}

/// Runs the pair until core A (`a`) or B has raised ASYNC_EVENT (the cause is cleared), then takes that core's
/// events with READ_EVENTS: the events, the number it lost, and the cycles waited.
fn next_events(p: &mut NicPair, a: bool, limit: u64, what: &str) -> (Vec<Event>, u32, u64) {
    let cycles = run_until(p, limit, what, |p| {
        take_async_cause(if a { &mut p.a } else { &mut p.b })
    });
    let core = if a { &mut p.a } else { &mut p.b };
    let (events, lost) = firmware::read_events(core).unwrap_or_else(|e| panic!("{e}"));
    (events, lost, cycles)
}

/// `IRQ.CAUSE.async_event` of a core; clears it when set.
fn take_async_cause(b: &mut CoreBench) -> bool {
    let cause = base(BlockType::Irq) + irq::reg::CAUSE;
    let set = b.read(cause).expect("CAUSE") & irq::Cause::ASYNC_EVENT.0 != 0;
    if set {
        b.write(cause, irq::Cause::ASYNC_EVENT.0).expect("CAUSE");
    }
    set
}

fn device(b: &mut CoreBench) -> DeviceInfo {
    let (r, _) = run(b, 0x310, Command::QueryDevice);
    let ResponseData::Device(d) = r.data else {
        panic!("{r:?}")
    };
    d
}

/// MR-SEM-38 with the firmware in the loop: A's WRITE with a key that names nothing at B is answered NACK
/// ACCESS, A's core fails the QP, and A's firmware closes its connection and reports it to A's host as an
/// event. Work requests posted later complete FLUSHED; B's opening towards the closed QP is refused, so B's
/// QP fails at its retry limit and B's firmware reports that. A change of A's port status is an event too.
#[test]
fn qp_errors_and_port_changes_reach_the_host_as_events() {
    let (mut p, made) = two_cores();
    let (mut qa, mut ca) = (made[0].qp, made[0].cq);
    let (mut qb, mut cb) = (made[1].qp, made[1].cq);
    let before = device(&mut p.a);
    assert_eq!(
        before.port,
        PortStatus::LINK_UP.0 | PortStatus::MODULE_PRESENT.0
    );
    assert!(!take_async_cause(&mut p.a), "nothing raised yet");
    let bad_rkey = made[1].rkey ^ 0x100; // another MR slot, never registered
    let write = |wr_id: u64, rkey: u32, to: u64| SqeRepr {
        wr_id,
        op: SqOp::Write,
        local_addr: BUFS[0],
        length: 2 * 4096,
        lkey: made[0].lkey,
        remote_addr: to,
        rkey,
        solicited: false,
    };
    p.a.dma.mem.write(BUFS[0], &pattern(5, 2 * 4096));
    host::post_send(&mut p.a, &mut qa, &write(0x90, bad_rkey, BUFS[1])).expect("post");
    let mut cqe = None;
    let cycles = run_until(&mut p, 4_000_000, "A's failed WRITE", |p| {
        cqe = host::poll_cq(&mut p.a, &mut ca).unwrap_or_else(|e| panic!("{e}"));
        cqe.is_some()
    });
    let c = cqe.expect("a CQE");
    println!(
        "A's WRITE with a bad rkey completed {:?} after {cycles} cycles",
        c.status
    );
    assert_eq!((c.wr_id, c.status), (0x90, CqeStatus::RemoteAccess));
    // The firmware takes the core's report, closes the connection, queues the event and raises ASYNC_EVENT.
    let (events, lost, cycles) = next_events(&mut p, true, 400_000, "A's ASYNC_EVENT");
    println!("ASYNC_EVENT raised {cycles} cycles later");
    assert_eq!(lost, 0);
    assert_eq!(
        events,
        [Event {
            kind: EventType::QpError,
            status: CqeStatus::RemoteAccess as u8,
            has_msn: true,
            qpn: u32::from(qa.qpn),
            msn: 0,
        }]
    );
    assert!(
        p.a.conn_err.got.is_empty(),
        "the report went to the firmware, not out of the core"
    );
    let after = device(&mut p.a);
    assert_eq!(after.qp_errors, 1);
    let (r, _) = run(
        &mut p.a,
        0x311,
        Command::QueryQp {
            qpn: u32::from(qa.qpn),
        },
    );
    let ResponseData::QpInfo(q) = r.data else {
        panic!("{r:?}")
    };
    assert_eq!(
        (q.state, q.cid),
        (QpState::Error, 0),
        "ERROR, connection closed"
    );
    assert_eq!(
        after.free_conns,
        before.free_conns + 1,
        "the connection was closed"
    );

    // A later WRITE (with a good key) completes FLUSHED at once and sends nothing.
    let sent = p.a.tx.beats;
    host::post_send(&mut p.a, &mut qa, &write(0x91, made[1].rkey, BUFS[1])).expect("post");
    let mut cqe = None;
    run_until(&mut p, 200_000, "A's flushed WRITE", |p| {
        cqe = host::poll_cq(&mut p.a, &mut ca).unwrap_or_else(|e| panic!("{e}"));
        cqe.is_some()
    });
    let c = cqe.expect("a CQE");
    assert_eq!(
        (c.wr_id, c.status, c.byte_len),
        (0x91, CqeStatus::Flushed, 0)
    );
    assert_eq!(p.a.tx.beats, sent, "A sent nothing for it");

    // B writes to A. B's SYN phase ended with A's answer to its CTRL OPEN (MR-REL-17, MR-CONN-6), so its DATA
    // names A's CID, whose connection is closed: A's core drops each packet as an unknown connection (no
    // exception for the firmware), nothing is placed, and B's QP fails at its retry limit (2 here: 20 + 40 +
    // 80 us).
    let unknown_before = counter(&mut p.a, CounterId::DropUnknownConnection);
    let retry = base(BlockType::Endpoint) + ep::reg::RETRY;
    let w = p.b.read(retry).expect("RETRY");
    p.b.write(
        retry,
        ep::field::RETRY_LIMIT.insert(w, 2).expect("in range"),
    )
    .expect("RETRY");
    let target = BUFS[0] + 0x8_0000;
    p.b.dma.mem.write(BUFS[1], &pattern(6, 3000));
    let sqe = SqeRepr {
        wr_id: 0xB0,
        op: SqOp::Write,
        local_addr: BUFS[1],
        length: 3000,
        lkey: made[1].lkey,
        remote_addr: target,
        rkey: made[0].rkey,
        solicited: false,
    };
    host::post_send(&mut p.b, &mut qb, &sqe).expect("post");
    let mut cqe = None;
    let cycles = run_until(&mut p, 2_000_000, "B's WRITE to the closed QP", |p| {
        cqe = host::poll_cq(&mut p.b, &mut cb).unwrap_or_else(|e| panic!("{e}"));
        cqe.is_some()
    });
    let c = cqe.expect("a CQE");
    println!(
        "B's WRITE to A's QP in ERROR completed {:?} after {cycles} cycles",
        c.status
    );
    assert_eq!((c.wr_id, c.status), (0xB0, CqeStatus::RetryExceeded));
    assert_eq!(
        p.a.dma.mem.read(target, 3000),
        vec![0; 3000],
        "nothing placed at A"
    );
    let (events, _, _) = next_events(&mut p, false, 400_000, "B's ASYNC_EVENT");
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(
        (events[0].kind, events[0].status, events[0].qpn),
        (
            EventType::QpError,
            CqeStatus::RetryExceeded as u8,
            u32::from(qb.qpn)
        )
    );
    let a_now = device(&mut p.a);
    println!(
        "A: {} exceptions, {} refused, {} dropped at the port",
        a_now.exceptions, a_now.refused, a_now.exc_lost
    );
    assert_eq!(
        (a_now.exceptions, a_now.refused),
        (after.exceptions, after.refused),
        "no exception at A"
    );
    let unknown = counter(&mut p.a, CounterId::DropUnknownConnection) - unknown_before;
    println!("A dropped {unknown} packets of B's as an unknown connection");
    assert!(
        unknown >= 3,
        "B's first transmission and its two retries: {unknown}"
    );

    // ERROR → RESET through the mailbox.
    let (r, _) = run(
        &mut p.a,
        0x320,
        Command::ModifyQp(ModifyQp {
            qpn: u32::from(qa.qpn),
            state: QpState::Reset,
            remote: None,
        }),
    );
    assert_eq!(r.status, Status::Ok);

    // The port: link down, module still present.
    p.a.set_port_status(PortStatus::MODULE_PRESENT.0);
    let (events, _, cycles) = next_events(&mut p, true, 400_000, "A's port event");
    println!("link down seen {cycles} cycles after it changed");
    assert_eq!(
        events
            .iter()
            .map(|e| (e.kind, e.status))
            .collect::<Vec<_>>(),
        [(EventType::PortChange, PortStatus::MODULE_PRESENT.0)]
    );
    assert_eq!(device(&mut p.a).port, PortStatus::MODULE_PRESENT.0);

    // The module raises its interrupt (a temperature high alarm, CMIS byte 9 bit 0): the firmware reads its
    // state and flags, which clears them, and reports a MODULE_ALARM; the interrupt makes no PORT_CHANGE.
    p.a.module.as_mut().expect("module").raise(9, 0x01);
    let (events, _, cycles) = next_events(&mut p, true, 1_000_000, "A's module alarm");
    println!("a module alarm reported {cycles} cycles after the module raised it");
    assert_eq!(
        events
            .iter()
            .map(|e| (e.kind, e.status, e.msn))
            .collect::<Vec<_>>(),
        [(EventType::ModuleAlarm, 3, 0x0000_0100)],
        "ModuleReady, temperature high alarm"
    );
    let m = p.a.module.as_ref().expect("module");
    assert!(!m.interrupt(), "the read cleared the flag");
    assert!(!p.a.fw_trap().expect("trap") && !p.b.fw_trap().expect("trap"));
}

/// Receive buffers posted in INIT survive the firmware's move to READY (`rq_keep`) and take SENDs.
#[test]
fn receive_buffers_posted_in_init_take_sends_after_the_move_to_ready() {
    // A posts two receive buffers while its QP is in INIT; the firmware's move to READY keeps them (`rq_keep`).
    let (mut p, made) = two_cores_with(|i, core, m| {
        if i == 0 {
            for n in 0..2 {
                let rqe = recv_buf(m, 0xC0 + n, n);
                host::post_recv(core, &mut m.qp, &rqe).expect("post");
            }
        }
    });
    let (mut qb, mut ca, mut cb) = (made[1].qp, made[0].cq, made[1].cq);
    let lens = [3000usize, 4096];
    for (n, len) in lens.into_iter().enumerate() {
        let data = pattern(90 + n as u64, len);
        let src = BUFS[1] + 0x1_0000 * n as u64;
        p.b.dma.mem.write(src, &data);
        let sqe = SqeRepr {
            wr_id: 0xB0 + n as u64,
            op: SqOp::Send,
            local_addr: src,
            length: len as u32,
            lkey: made[1].lkey,
            remote_addr: 0,
            rkey: 0,
            solicited: false,
        };
        host::post_send(&mut p.b, &mut qb, &sqe).unwrap_or_else(|e| panic!("{e}"));
    }
    let mut sent = Vec::new();
    let (got, cycles) = {
        let mut got = Vec::new();
        let cycles = run_until(&mut p, 1_000_000, "the SENDs into A's buffers", |p| {
            while let Some(c) = host::poll_cq(&mut p.a, &mut ca).unwrap_or_else(|e| panic!("{e}")) {
                got.push((c.wr_id, c.opcode, c.status, c.byte_len, c.wqe_index));
            }
            while let Some(c) = host::poll_cq(&mut p.b, &mut cb).unwrap_or_else(|e| panic!("{e}")) {
                sent.push((c.wr_id, c.status));
            }
            got.len() == 2 && sent.len() == 2
        });
        (got, cycles)
    };
    println!("two SENDs into receive buffers posted in INIT completed after {cycles} cycles");
    assert_eq!(
        got,
        [
            (0xC0, CqeOpcode::Recv, CqeStatus::Success, 3000, 0),
            (0xC1, CqeOpcode::Recv, CqeStatus::Success, 4096, 1)
        ],
        "each SEND took the next buffer posted in INIT"
    );
    assert_eq!(
        sent,
        [(0xB0, CqeStatus::Success), (0xB1, CqeStatus::Success)]
    );
    for (n, len) in lens.into_iter().enumerate() {
        let data = pattern(90 + n as u64, len);
        assert_eq!(
            p.a.dma.mem.read(recv_buf(&made[0], 0, n as u64).addr, len),
            data,
            "SEND {n} placed byte-exact"
        );
    }
}

/// One of A's receive buffers: 4 KiB at `n` KiB into its region.
fn recv_buf(made: &firmware::Created, wr_id: u64, n: u64) -> RqeRepr {
    RqeRepr {
        wr_id,
        addr: BUFS[0] + 0x8_0000 + 0x1000 * n,
        length: 0x1000,
        lkey: made.lkey,
    }
}

/// A completion as `(wr_id, opcode, status, byte_len, wqe_index)`.
type Cqe = (u64, CqeOpcode, CqeStatus, u32, u16);

/// The CQEs on A's `cq` until `n` have come, and the cycles that took.
fn cqes(p: &mut NicPair, cq: &mut host::Cq, n: usize, what: &str) -> (Vec<Cqe>, u64) {
    let mut got = Vec::new();
    let cycles = run_until(p, 400_000, what, |p| {
        while let Some(c) = host::poll_cq(&mut p.a, cq).unwrap_or_else(|e| panic!("{e}")) {
            got.push((c.wr_id, c.opcode, c.status, c.byte_len, c.wqe_index));
        }
        got.len() >= n
    });
    assert_eq!(got.len(), n, "{what}: {got:x?}");
    (got, cycles)
}

/// A host's MODIFY_QP from READY to ERROR (verbs' move to ERR): the firmware asks the core to fail the QP, the
/// core flushes the started WRITE and the queued one (FLUSHED, in posting order), the firmware closes the
/// connection and confirms with a QP_ERROR event (status FLUSHED); the posted receive buffers complete FLUSHED in
/// ring order; a WR and a receive buffer posted later complete FLUSHED too.
#[test]
fn a_host_move_to_error_flushes_the_send_and_receive_queues() {
    let (mut p, made) = two_cores();
    let (mut qa, mut ca) = (made[0].qp, made[0].cq);
    // Three receive buffers posted on A: none is consumed (B sends nothing).
    for n in 0..3 {
        host::post_recv(&mut p.a, &mut qa, &recv_buf(&made[0], 0xD0 + n, n)).expect("post");
    }
    let write = |wr_id: u64, off: u64| SqeRepr {
        wr_id,
        op: SqOp::Write,
        local_addr: BUFS[0] + off,
        length: 16 * 4096,
        lkey: made[0].lkey,
        remote_addr: BUFS[1] + off,
        rkey: made[1].rkey,
        solicited: false,
    };
    host::post_send(&mut p.a, &mut qa, &write(0xE0, 0)).expect("post");
    host::post_send(&mut p.a, &mut qa, &write(0xE1, 0x2_0000)).expect("post");
    // Every DATA frame from A is lost, so neither WRITE can complete; let A start the first.
    let cfg = metaroce_proto::transport::EndpointConfig::default();
    let mut drop_data = |from_a: bool, f: &[u8]| {
        !(from_a
            && matches!(
                parse_frame(f, cfg.udp_port, cfg.dscp_trim, true).map(|x| x.m.mbh.ptype),
                Ok(PacketType::Data)
            ))
    };
    for _ in 0..5_000 {
        p.step_filtered(&mut drop_data)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(p.a.tx.beats > 0, "A started sending");
    assert!(host::poll_cq(&mut p.a, &mut ca).expect("cq").is_none());
    let (r, cycles) = run(
        &mut p.a,
        0x330,
        Command::ModifyQp(ModifyQp {
            qpn: u32::from(qa.qpn),
            state: QpState::Error,
            remote: None,
        }),
    );
    println!("MODIFY_QP READY to ERROR: {cycles} cycles");
    assert_eq!(r.status, Status::Ok);
    // One CQ takes both queues' completions: each queue's in its own order.
    let (got, _) = cqes(&mut p, &mut ca, 5, "the flushed WRITEs and receive buffers");
    let (sends, recvs): (Vec<Cqe>, Vec<Cqe>) =
        got.into_iter().partition(|c| c.1 == CqeOpcode::Write);
    assert_eq!(
        sends,
        [
            (0xE0, CqeOpcode::Write, CqeStatus::Flushed, 0, 0),
            (0xE1, CqeOpcode::Write, CqeStatus::Flushed, 0, 1)
        ],
        "both WRITEs flushed in posting order"
    );
    let want: Vec<Cqe> = (0..3u16)
        .map(|n| {
            (
                0xD0 + u64::from(n),
                CqeOpcode::Recv,
                CqeStatus::Flushed,
                0,
                n,
            )
        })
        .collect();
    assert_eq!(
        recvs, want,
        "the three receive buffers flushed in ring order"
    );
    let (events, _, _) = next_events(&mut p, true, 400_000, "A's ASYNC_EVENT");
    assert_eq!(
        events
            .iter()
            .map(|e| (e.kind, e.qpn, e.status))
            .collect::<Vec<_>>(),
        [(
            EventType::QpError,
            u32::from(qa.qpn),
            CqeStatus::Flushed as u8
        )]
    );
    assert_eq!(device(&mut p.a).qp_errors, 1);
    // Work posted in ERROR: the WRITE completes FLUSHED at once, the receive buffer when the firmware's
    // sweep comes to the QP.
    host::post_send(&mut p.a, &mut qa, &write(0xE2, 0)).expect("post");
    host::post_recv(&mut p.a, &mut qa, &recv_buf(&made[0], 0xD3, 3)).expect("post");
    let (mut got, cycles) = cqes(
        &mut p,
        &mut ca,
        2,
        "the WRITE and the receive buffer posted in ERROR",
    );
    println!("a receive buffer posted in ERROR flushed within {cycles} cycles");
    got.sort_by_key(|c| c.0);
    assert_eq!(
        got,
        [
            (0xD3, CqeOpcode::Recv, CqeStatus::Flushed, 0, 3),
            (0xE2, CqeOpcode::Write, CqeStatus::Flushed, 0, 2)
        ]
    );
    assert_eq!(
        p.b.dma.mem.read(BUFS[1], 0x4_0000),
        vec![0; 0x4_0000],
        "nothing reached B's memory"
    );
    assert_eq!(
        p.a.dma.mem.read(BUFS[0] + 0x8_0000, 0x4000),
        vec![0; 0x4000],
        "nothing written into A's receive buffers"
    );
}

/// A peer restart, which the firmware counts but does not reopen (MR-CONN-18, MR-CONN-35; docs/firmware.md,
/// Limitations): after a WRITE has bound both sides, B's NIC is replaced by a fresh one (its core reset, the
/// firmware booted with another seed, its objects created again and its QP moved to READY towards A's). A's
/// DATA still names B's old CID and is answered NACK NO_CONTEXT; B's opening names a new CID and A's firmware
/// counts it as a restart and refuses it. Both QPs end at their retry limit (2) with RETRY_EXCEEDED and a
/// QP_ERROR event, nothing is placed on either side, and nothing hangs.
#[test]
fn a_peer_restart_ends_both_qps_at_their_retry_limit() {
    let (mut p, made) = two_cores();
    let (mut qa, mut ca) = (made[0].qp, made[0].cq);
    p.a.dma.mem.write(BUFS[0], &pattern(70, 5000));
    let write = |wr_id: u64, lkey: u32, local: u64, rkey: u32, remote: u64| SqeRepr {
        wr_id,
        op: SqOp::Write,
        local_addr: local,
        length: 5000,
        lkey,
        remote_addr: remote,
        rkey,
        solicited: false,
    };
    host::post_send(
        &mut p.a,
        &mut qa,
        &write(0xA0, made[0].lkey, BUFS[0], made[1].rkey, BUFS[1]),
    )
    .expect("post");
    let (got, _) = cqes(&mut p, &mut ca, 1, "A's first WRITE");
    assert_eq!((got[0].0, got[0].2), (0xA0, CqeStatus::Success));
    let old = device_qp(&mut p.b, made[1].qp.qpn);

    // B restarts.
    let cfg = cosim_config();
    let kind = core_model(&cfg, false).unwrap_or_else(|e| panic!("{e}"));
    let mut b =
        CoreBench::new(&kind, &cfg, BenchTiming::default(), 99).unwrap_or_else(|e| panic!("{e}"));
    let (st, _) = firmware::boot(&mut b).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(st.stage, BootStage::Ready);
    let mb = firmware::create(&mut b, MACS[1], IPS[1], (BUFS[1], 1 << 20))
        .unwrap_or_else(|e| panic!("{e}"));
    firmware::ready(
        &mut b,
        mb.qp.qpn,
        Remote {
            qpn: u32::from(made[0].qp.qpn),
            mac: MACS[0],
            ip: IpAddr::V4(IPS[0]),
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    p.b = b;
    let new = device_qp(&mut p.b, mb.qp.qpn);
    assert_ne!(new.cid, old.cid, "B's new connection has a new CID");
    for core in [&mut p.a, &mut p.b] {
        let retry = base(BlockType::Endpoint) + ep::reg::RETRY;
        let w = core.read(retry).expect("RETRY");
        core.write(
            retry,
            ep::field::RETRY_LIMIT.insert(w, 2).expect("in range"),
        )
        .expect("RETRY");
    }
    let before = device(&mut p.a);

    // Both write to the other.
    let (mut qb, mut cb) = (mb.qp, mb.cq);
    p.b.dma.mem.write(BUFS[1], &pattern(71, 5000));
    host::post_send(
        &mut p.a,
        &mut qa,
        &write(
            0xA1,
            made[0].lkey,
            BUFS[0],
            made[1].rkey,
            BUFS[1] + 0x2_0000,
        ),
    )
    .expect("post");
    host::post_send(
        &mut p.b,
        &mut qb,
        &write(0xB1, mb.lkey, BUFS[1], made[0].rkey, BUFS[0] + 0x2_0000),
    )
    .expect("post");
    let (mut ga, mut gb) = (None, None);
    let cycles = run_until(&mut p, 4_000_000, "both WRITEs after B's restart", |p| {
        if ga.is_none() {
            ga = host::poll_cq(&mut p.a, &mut ca).unwrap_or_else(|e| panic!("{e}"));
        }
        if gb.is_none() {
            gb = host::poll_cq(&mut p.b, &mut cb).unwrap_or_else(|e| panic!("{e}"));
        }
        ga.is_some() && gb.is_some()
    });
    let (ca_, cb_) = (ga.expect("A's CQE"), gb.expect("B's CQE"));
    println!(
        "after B's restart: A's WRITE {:?}, B's WRITE {:?}, both within {cycles} cycles",
        ca_.status, cb_.status
    );
    assert_eq!((ca_.wr_id, ca_.status), (0xA1, CqeStatus::RetryExceeded));
    assert_eq!((cb_.wr_id, cb_.status), (0xB1, CqeStatus::RetryExceeded));
    assert_eq!(
        p.b.dma.mem.read(BUFS[1] + 0x2_0000, 5000),
        vec![0; 5000],
        "nothing placed at B"
    );
    assert_eq!(
        p.a.dma.mem.read(BUFS[0] + 0x2_0000, 5000),
        vec![0; 5000],
        "nothing placed at A"
    );
    for (name, a, qpn) in [("A", true, qa.qpn), ("B", false, qb.qpn)] {
        let (events, _, _) = next_events(&mut p, a, 400_000, name);
        assert_eq!(
            events
                .iter()
                .map(|e| (e.kind, e.status, e.qpn))
                .collect::<Vec<_>>(),
            [(
                EventType::QpError,
                CqeStatus::RetryExceeded as u8,
                u32::from(qpn)
            )],
            "{name}"
        );
    }
    let after = device(&mut p.a);
    assert!(
        after.refused > before.refused,
        "A's firmware counted B's opening as a restart: {} -> {}",
        before.refused,
        after.refused
    );
    assert!(!p.a.fw_trap().expect("trap") && !p.b.fw_trap().expect("trap"));
}

/// QUERY_QP of `qpn`.
fn device_qp(b: &mut CoreBench, qpn: u16) -> metaroce_regmap::command::QpInfo {
    let (r, _) = run(
        b,
        0x340,
        Command::QueryQp {
            qpn: u32::from(qpn),
        },
    );
    let ResponseData::QpInfo(q) = r.data else {
        panic!("{r:?}")
    };
    q
}
