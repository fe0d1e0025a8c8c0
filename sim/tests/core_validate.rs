//! Impossible parameters are rejected before a run, naming the scenario field.

mod core_util;

use core_util::*;
use metaroce_sim::config::*;
use metaroce_sim::fabric::Simulator;

fn field_of(cfg: SimConfig) -> String {
    let e = cfg.validate().expect_err("must be rejected");
    let e2 = Simulator::new(cfg).expect_err("the simulator must reject it too");
    assert_eq!(e, e2);
    assert!(!e.reason.is_empty());
    e.field
}

#[test]
fn valid_configuration_passes() {
    config(leaf_spine(2, 4, 2)).validate().unwrap();
    rocev2(leaf_spine(2, 4, 2)).validate().unwrap();
}

#[test]
fn zero_rate_is_rejected_with_its_field() {
    let mut c = config(leaf_spine(2, 4, 2));
    if let TopologySpec::LeafSpine { host, .. } = &mut c.topology {
        host.rate_bps = 0;
    }
    assert_eq!(field_of(c), "topology.host.rate_gbps");
    let mut c = config(leaf_spine(2, 4, 2));
    if let TopologySpec::LeafSpine { fabric, .. } = &mut c.topology {
        fabric.rate_bps = 0;
    }
    assert_eq!(field_of(c), "topology.fabric.rate_gbps");
    let mut c = config(leaf_spine(2, 4, 2));
    c.faults.push(Fault::Degrade {
        links: LinkSel::All,
        at_ns: 0,
        rate_bps: 0,
    });
    assert_eq!(field_of(c), "faults.0.rate_gbps");
}

#[test]
fn more_hosts_than_ports_is_rejected() {
    assert_eq!(
        field_of(config(leaf_spine(2, 2000, 2))),
        "topology.hosts_per_leaf"
    );
    assert_eq!(field_of(config(leaf_spine(2000, 2, 2))), "topology.leaves");
    assert_eq!(field_of(config(leaf_spine(0, 2, 2))), "topology.leaves");
    assert_eq!(
        field_of(config(leaf_spine(2, 0, 2))),
        "topology.hosts_per_leaf"
    );
    assert_eq!(field_of(config(leaf_spine(2, 2, 0))), "topology.spines");
}

#[test]
fn bad_fat_tree_k_is_rejected() {
    for k in [0, 2, 5, 66] {
        let c = config(TopologySpec::FatTree {
            k,
            planes: 1,
            host: tier(100, 1),
            fabric: tier(100, 1),
            core: tier(100, 1),
        });
        assert_eq!(field_of(c), "topology.k", "k = {k}");
    }
}

#[test]
fn transport_switch_fault_and_output_fields() {
    let base = || config(leaf_spine(2, 4, 2));
    let mut c = base();
    c.transport.mtu = 3000;
    assert_eq!(field_of(c), "transport.mtu");
    let mut c = rocev2(leaf_spine(2, 4, 2));
    c.transport.mtu = 8192;
    assert_eq!(field_of(c), "transport.mtu");
    let mut c = base();
    c.transport.window_log2 = Some(20);
    assert_eq!(field_of(c), "transport.window_log2");
    let mut c = base();
    c.transport.paths = Some(0);
    assert_eq!(field_of(c), "transport.paths");
    let mut c = base();
    c.transport.max_msg_bytes = 0;
    assert_eq!(field_of(c), "transport.max_msg_bytes");
    let mut c = base();
    c.switch.buffer_bytes = 1000;
    assert_eq!(field_of(c), "switch.buffer_bytes");
    let mut c = base();
    c.switch.ecn = Some(EcnConfig {
        kmin_bytes: 10,
        kmax_bytes: 20,
        pmax_percent: 0,
    });
    assert_eq!(field_of(c), "switch.ecn.pmax_percent");
    let mut c = base();
    c.switch.pfc = Some(PfcConfig {
        xoff_bytes: 100_000,
        xon_bytes: 200_000,
    });
    assert_eq!(field_of(c), "switch.pfc.xon_bytes");
    let mut c = base();
    c.faults.push(Fault::Loss {
        links: LinkSel::Fabric,
        ppm: 10,
    });
    c.faults.push(Fault::Down {
        links: LinkSel::Named(vec!["leaf0-spine9".into()]),
        at_ns: 1,
    });
    assert_eq!(field_of(c), "faults.1.links");
    let mut c = base();
    c.faults.push(Fault::Loss {
        links: LinkSel::All,
        ppm: 2_000_000,
    });
    assert_eq!(field_of(c), "faults.0.ppm");
    let mut c = base();
    c.pcap = Some(PcapSpec {
        path: "unused.pcap".into(),
        pairs: vec![(0, 8)],
        max_packets: 10,
    });
    assert_eq!(field_of(c), "output.pcap.pairs");
    let mut c = base();
    c.stop_at_ns = Some(0);
    assert_eq!(field_of(c), "stop_at_ns");
    let c = config(TopologySpec::MultiDc {
        dcs: 1,
        dc: Box::new(leaf_spine(2, 2, 2)),
        borders: 1,
        long_haul_links: 1,
        long_haul: tier(100, 1000),
    });
    assert_eq!(field_of(c), "topology.dcs");
}
