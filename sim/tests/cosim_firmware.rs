//! The firmware on the RTL core's control processor in Verilator: the `metaroce-fw` image built for RISC-V,
//! loaded through the image window, booted (self-test over the real register bus), and commanded through the
//! mailbox by the host exactly as the driver does it; refusals change nothing and are counted.

use metaroce_regmap::block::{BlockType, DEFAULT_MAP};
use metaroce_regmap::command::{
    Command, CreateCq, CreateMr, CreateQp, Moderation, ModifyQp, QpState, Remote, Request,
    ResponseData, Status, CMD_BYTES,
};
use metaroce_regmap::context::mr::MrAccess;
use metaroce_regmap::counters::{self, CounterId};
use metaroce_regmap::fwbus::BootStage;
use metaroce_sim::cosim::core::{core_model, cosim_config, BenchTiming, CoreBench};
use metaroce_sim::cosim::firmware;
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
        "metaroce-fw 0.1: self-test passed\n"
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
