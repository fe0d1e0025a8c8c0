//! The register file and the AXI-Lite bridge in rust-hdl's simulator: the driver's discovery walk and
//! capability read (metaroce-regmap's own readers) over the simulated bus, interrupts, counters, the mailbox,
//! and the bridge's timeout of a read nobody answers.

use metaroce_hdl::top::axil::AxilBridge;
use metaroce_hdl::top::regfile::{caps_of, RegFile, CNT_INC_BITS, FW_STATUS, LANE_BITS};
use metaroce_hdl::CoreConfig;
use metaroce_regmap::block::{default_base, walk, BlockType, DEFAULT_MAP, DEFAULT_SPACE_BYTES};
use metaroce_regmap::caps::CapsRepr;
use metaroce_regmap::id::IdRepr;
use metaroce_regmap::{counters, irq, mailbox};
use rust_hdl::prelude::*;

fn settle<B: Block>(uut: &mut B) {
    assert!(simulate(uut, 200), "the design did not settle");
}

fn tick(rf: &mut RegFile) {
    rf.clk.next = Clock { clk: true };
    settle(rf);
    rf.clk.next = Clock { clk: false };
    settle(rf);
}

fn new_rf(cfg: &CoreConfig) -> RegFile {
    let mut rf = RegFile::new(cfg);
    rf.connect_all();
    rf.rst.next = true;
    settle(&mut rf);
    tick(&mut rf);
    rf.rst.next = false;
    settle(&mut rf);
    rf
}

fn read(rf: &mut RegFile, off: u32) -> u32 {
    rf.bus_rd_en.next = true;
    rf.bus_rd_addr.next = bits(u64::from(off));
    tick(rf);
    rf.bus_rd_en.next = false;
    // The answer comes two cycles after the request.
    assert!(!rf.bus_rd_valid.val(), "early answer to a read of {off:#x}");
    tick(rf);
    assert!(rf.bus_rd_valid.val(), "no answer to a read of {off:#x}");
    rf.bus_rd_data.val().index() as u32
}

fn write(rf: &mut RegFile, off: u32, v: u32) {
    rf.bus_wr_en.next = true;
    rf.bus_wr_addr.next = bits(u64::from(off));
    rf.bus_wr_data.next = bits(u64::from(v));
    tick(rf);
    rf.bus_wr_en.next = false;
}

fn base(kind: BlockType) -> u32 {
    default_base(kind).expect("a block of the reference map")
}

#[test]
fn discovery_walk_and_capabilities_read_back_through_the_bus() {
    let cfg = CoreConfig::default();
    let mut rf = new_rf(&cfg);
    rf.git_hash.next = bits(0x1234_abcd);
    let found = walk(&mut |off| read(&mut rf, off), DEFAULT_SPACE_BYTES).expect("walk");
    for (kind, b) in DEFAULT_MAP {
        let info = found.require_current(kind).expect("block present");
        assert_eq!(info.base, b, "{kind:?}");
    }
    let caps = CapsRepr::read(&mut |off| read(&mut rf, off), base(BlockType::Caps)).expect("caps");
    assert_eq!(caps, caps_of(&cfg));
    assert_eq!(caps.max_conns, 1 << cfg.conn_bits);
    let id = IdRepr::read(&mut |off| read(&mut rf, off), base(BlockType::Id)).expect("id");
    assert_eq!(id.git_hash, 0x1234_abcd);
}

#[test]
fn interrupt_cause_is_set_by_hardware_and_cleared_by_writing_one() {
    let mut rf = new_rf(&CoreConfig::default());
    let b = base(BlockType::Irq);
    write(&mut rf, b + irq::reg::CAUSE_ENABLE, 0b10);
    rf.irq_cause_set.next = bits(0b11);
    tick(&mut rf);
    rf.irq_cause_set.next = bits(0);
    tick(&mut rf);
    assert_eq!(read(&mut rf, b + irq::reg::CAUSE), 0b11);
    assert_eq!(
        rf.irq_pending.val().index(),
        0b10,
        "only enabled causes are pending"
    );
    write(&mut rf, b + irq::reg::CAUSE, 0b10);
    assert_eq!(read(&mut rf, b + irq::reg::CAUSE), 0b01);
    assert_eq!(rf.irq_pending.val().index(), 0);
}

#[test]
fn counters_count_lanes_and_read_from_one_snapshot() {
    let mut rf = new_rf(&CoreConfig::default());
    let b = base(BlockType::Counters);
    let mut inc = Bits::<CNT_INC_BITS>::default();
    inc = inc.replace_bit(0, true); // lane 0: +1
    let lane2: Bits<CNT_INC_BITS> = bits::<CNT_INC_BITS>(4000) << (2 * LANE_BITS as u64); // lane 2: +4000
    rf.cnt_inc.next = inc | lane2;
    for _ in 0..10 {
        tick(&mut rf);
    }
    rf.cnt_inc.next = Bits::default();
    tick(&mut rf);
    write(&mut rf, b + counters::reg::SNAPSHOT, 1);
    let v0 = read(&mut rf, b + counters::reg::VALUE);
    let v2 = u64::from(read(&mut rf, b + counters::reg::VALUE + 16))
        | u64::from(read(&mut rf, b + counters::reg::VALUE + 20)) << 32;
    assert_eq!(v0, 10);
    assert_eq!(v2, 40_000);
    assert_eq!(
        read(&mut rf, b + counters::reg::COUNT),
        u32::from(counters::COUNT)
    );
}

#[test]
fn mailbox_submit_pulses_go_and_the_firmware_answers() {
    let mut rf = new_rf(&CoreConfig::default());
    let b = base(BlockType::Mailbox);
    write(&mut rf, b + mailbox::reg::REQ + 8, 0xfeed_0001);
    rf.fw_rd_addr.next = bits(2);
    settle(&mut rf);
    assert_eq!(rf.fw_rd_data.val().index(), 0xfeed_0001);
    rf.bus_wr_en.next = true;
    rf.bus_wr_addr.next = bits(u64::from(b + mailbox::reg::CTRL));
    rf.bus_wr_data.next = bits(u64::from(mailbox::ctrl_go(0x77)));
    tick(&mut rf);
    rf.bus_wr_en.next = false;
    assert!(rf.mbox_go.val());
    assert_eq!(rf.mbox_tag.val().index(), 0x77);
    tick(&mut rf);
    assert!(!rf.mbox_go.val(), "go is a one-cycle pulse");
    assert_eq!(read(&mut rf, b + mailbox::reg::STATUS), 1, "busy, not done");
    // A second submission while busy is ignored and counted.
    rf.bus_wr_en.next = true;
    rf.bus_wr_addr.next = bits(u64::from(b + mailbox::reg::CTRL));
    rf.bus_wr_data.next = bits(u64::from(mailbox::ctrl_go(0x78)));
    tick(&mut rf);
    rf.bus_wr_en.next = false;
    assert!(!rf.mbox_go.val(), "ignored while busy");
    rf.fw_wr_en.next = true;
    rf.fw_wr_addr.next = bits(FW_STATUS as u64);
    rf.fw_wr_data.next = bits(0x0077_0002);
    tick(&mut rf);
    rf.fw_wr_en.next = false;
    assert_eq!(read(&mut rf, b + mailbox::reg::STATUS), 0x0077_0002);
    // A refusal (non-zero status) is counted.
    rf.fw_wr_en.next = true;
    rf.fw_wr_data.next = bits(0x0079_0402);
    tick(&mut rf);
    rf.fw_wr_en.next = false;
    // (the two counts reach their counters a cycle after the write)
    tick(&mut rf);
    let c = base(BlockType::Counters);
    write(&mut rf, c + counters::reg::SNAPSHOT, 1);
    let value =
        |rf: &mut RegFile, id: counters::CounterId| read(rf, c + counters::value_offset(id));
    assert_eq!(value(&mut rf, counters::CounterId::CmdIgnored), 1);
    assert_eq!(value(&mut rf, counters::CounterId::CmdRejected), 1);
}

#[test]
fn control_block_runs_the_processor_and_shows_its_boot_word() {
    let mut rf = new_rf(&CoreConfig::default());
    let b = base(BlockType::Control);
    settle(&mut rf);
    assert!(!rf.fw_run.val(), "stopped after reset");
    rf.fw_boot.next = bits(0x0001_0002);
    write(&mut rf, b + metaroce_regmap::control::reg::CTRL, 1);
    settle(&mut rf);
    assert!(rf.fw_run.val());
    assert_eq!(
        read(&mut rf, b + metaroce_regmap::control::reg::BOOT),
        0x0001_0002
    );
    assert_eq!(
        read(&mut rf, b + metaroce_regmap::control::reg::IMAGE_OFFSET),
        metaroce_regmap::control::IMAGE_WINDOW
    );
}

fn btick(br: &mut AxilBridge) {
    br.clk.next = Clock { clk: true };
    settle(br);
    br.clk.next = Clock { clk: false };
    settle(br);
}

#[test]
fn bridge_writes_once_and_times_out_an_unanswered_read() {
    let mut br = AxilBridge::default();
    br.connect_all();
    br.rst.next = true;
    settle(&mut br);
    btick(&mut br);
    br.rst.next = false;
    // A write: one bus write cycle, then OKAY.
    br.s_axil_awaddr.next = bits(0x10_0008);
    br.s_axil_wdata.next = bits(0xabcd);
    br.s_axil_wstrb.next = bits(0xf);
    br.s_axil_awvalid.next = true;
    br.s_axil_wvalid.next = true;
    settle(&mut br);
    assert!(br.s_axil_awready.val() && br.s_axil_wready.val());
    btick(&mut br);
    br.s_axil_awvalid.next = false;
    br.s_axil_wvalid.next = false;
    settle(&mut br);
    let mut writes = 0;
    for _ in 0..4 {
        if br.bus_wr_en.val() {
            writes += 1;
            assert_eq!(br.bus_wr_addr.val().index(), 0x10_0008);
            assert_eq!(br.bus_wr_data.val().index(), 0xabcd);
        }
        btick(&mut br);
    }
    assert_eq!(writes, 1);
    assert!(br.s_axil_bvalid.val());
    assert_eq!(br.s_axil_bresp.val().index(), 0);
    br.s_axil_bready.next = true;
    btick(&mut br);
    br.s_axil_bready.next = false;
    settle(&mut br);
    assert!(!br.s_axil_bvalid.val());
    // A read nobody answers: SLVERR with all ones after the timeout, never a hang.
    br.s_axil_araddr.next = bits(0x7f_fff0);
    br.s_axil_arvalid.next = true;
    btick(&mut br);
    br.s_axil_arvalid.next = false;
    let mut cycles = 0;
    while !br.s_axil_rvalid.val() {
        btick(&mut br);
        cycles += 1;
        assert!(cycles < 1000, "the read never completed");
    }
    assert!(cycles >= 255, "timed out after {cycles} cycles");
    assert_eq!(br.s_axil_rresp.val().index(), 2);
    assert_eq!(br.s_axil_rdata.val().index(), 0xffff_ffff);
}

#[test]
fn endpoint_registers_reset_to_the_model_defaults_and_reach_the_hardware() {
    use metaroce_hdl::top::regfile::endpoint_bit;
    use metaroce_proto::transport::EndpointConfig as Config;
    use metaroce_regmap::endpoint::{field, reg};
    let mut rf = new_rf(&CoreConfig::default());
    let b = base(BlockType::Endpoint);
    let d = Config::default();
    let mut rd = |off: u32| read(&mut rf, b + off);
    assert_eq!(
        [rd(reg::MAC_HI) >> 8, rd(reg::MAC_HI) & 0xff],
        [u32::from(d.mac[0]), u32::from(d.mac[1])]
    );
    assert_eq!(
        rd(reg::MAC_LO).to_be_bytes(),
        [d.mac[2], d.mac[3], d.mac[4], d.mac[5]]
    );
    match d.ip {
        std::net::IpAddr::V4(ip) => assert_eq!(rd(reg::IPV4).to_be_bytes(), ip.octets()),
        other => panic!("the model's default address is IPv4, not {other:?}"),
    }
    assert_eq!(
        field::PORT.extract(rd(reg::UDP_PORT)),
        u32::from(d.udp_port)
    );
    let dscp = rd(reg::DSCP);
    assert_eq!(field::DSCP_DATA.extract(dscp), u32::from(d.dscp_data));
    assert_eq!(field::DSCP_CTRL.extract(dscp), u32::from(d.dscp_ctrl));
    assert_eq!(field::DSCP_TRIM.extract(dscp), u32::from(d.dscp_trim));
    assert_eq!(field::TTL.extract(rd(reg::TTL)), u32::from(d.ttl));
    assert_eq!(u64::from(rd(reg::LINE_RATE)) * 1_000_000, d.line_rate_bps);
    assert_eq!(u64::from(rd(reg::BASE_RTT)), d.base_rtt_ns);
    assert_eq!(u64::from(rd(reg::RTO_MIN)), d.rto_min_ns);
    assert_eq!(u64::from(rd(reg::RTO_INIT)), d.rto_init_ns);
    assert_eq!(u64::from(rd(reg::RTO_MAX)), d.rto_max_ns);
    let cc = metaroce_proto::transport::cc::CcParams::default();
    assert_eq!(u64::from(rd(reg::TARGET_QDELAY)), cc.target_qdelay_ns);
    assert_eq!(u64::from(rd(reg::MIN_RTT_WINDOW)), cc.min_rtt_window_ns);
    let retry = rd(reg::RETRY);
    assert_eq!(field::RETRY_LIMIT.extract(retry), u32::from(d.retry_limit));
    assert_eq!(field::REORDER_DISTANCE.extract(retry), d.reorder_distance);
    let ack = rd(reg::ACK);
    assert_eq!(field::ACK_RATIO.extract(ack), u32::from(d.ack_ratio));
    assert_eq!(u64::from(field::ACK_DELAY.extract(ack)), d.ack_delay_ns);
    assert_eq!(1u32 << field::MTU_LOG.extract(rd(reg::MTU)), d.mtu);
    // A write reaches the hardware's endpoint vector.
    write(&mut rf, b + reg::UDP_PORT, 4800);
    settle(&mut rf);
    let v = rf
        .endpoint
        .val()
        .get_bits::<32>(endpoint_bit(reg::UDP_PORT));
    assert_eq!(v.index(), 4800);
}

#[test]
fn transmit_peer_addresses_become_big_endian_numbers_except_for_acks() {
    use metaroce_hdl::records::PktMeta;
    use metaroce_hdl::top::peer_order::PeerOrder;
    let mut p = PeerOrder::default();
    p.connect_all();
    // QP-context order: the first wire byte in the low bits. 02:00:00:00:00:01 and 10.0.0.7.
    let mut m = PktMeta {
        ptype: bits(1),
        peer_mac: bits(0x0100_0000_0002),
        peer_ip: bits(0x0700_000a),
        ..PktMeta::default()
    };
    p.hdr_in.next = m;
    settle(&mut p);
    assert_eq!(p.hdr_out.val().peer_mac.to_u64(), 0x0200_0000_0001);
    assert_eq!(
        p.hdr_out.val().peer_ip.get_bits::<32>(0).index(),
        0x0a00_0007
    );
    m.ipv6 = true;
    m.peer_ip = bits::<128>(0x2001) | (bits::<128>(0x42) << 120);
    p.hdr_in.next = m;
    settle(&mut p);
    let ip = p.hdr_out.val().peer_ip;
    assert_eq!(
        ip.get_bits::<16>(112).index(),
        0x0120,
        "first wire byte in the high bits"
    );
    assert_eq!(ip.get_bits::<8>(0).index(), 0x42);
    m.ptype = bits(2);
    p.hdr_in.next = m;
    settle(&mut p);
    assert_eq!(p.hdr_out.val(), m, "ACK headers pass unchanged");
}
