//! Ideal completion times on hand-computed cases. The bandwidth part of each expected value is worked out
//! below by hand; the latency part is the topology's own unloaded one-way latency.
//! Wire bytes of a flow: payload + ceil(payload / 4096) * 110 (MetaRoCE) or * 82 (RoCEv2).

use metaroce_sim::config::{
    Fault, LinkSel, SimConfig, SwitchConfig, Tier, TopologySpec, Transport, TransportSpec,
};
use metaroce_sim::topology::Topology;
use metaroce_sim::workload::WorkloadSpec;

const G100: u64 = 100_000_000_000;

fn tier(rate_bps: u64) -> Tier {
    Tier {
        rate_bps,
        latency_ns: 500,
    }
}

fn leaf_spine(leaves: u32, hpl: u32, spines: u32) -> TopologySpec {
    TopologySpec::LeafSpine {
        leaves,
        hosts_per_leaf: hpl,
        spines,
        uplinks_per_spine: 1,
        planes: 1,
        host: tier(G100),
        fabric: tier(G100),
    }
}

fn cfg(topology: TopologySpec, kind: Transport, faults: Vec<Fault>) -> SimConfig {
    SimConfig {
        topology,
        transport: TransportSpec::new(kind),
        switch: SwitchConfig::default(),
        faults,
        seed: 1,
        stop_at_ns: None,
        verify_data: false,
        pcap: None,
    }
}

/// Largest one-way latency over `pairs` for a frame carrying `payload` bytes.
fn max_lat(t: &Topology, pairs: &[(u32, u32)], payload: u64, kind: Transport) -> u64 {
    let hdr = match kind {
        Transport::MetaRoce => 90,
        Transport::RoceV2 => 62,
    };
    pairs
        .iter()
        .map(|&(a, b)| t.one_way_ns(a, b, payload.min(4096) + hdr))
        .max()
        .unwrap()
}

fn all_pairs(n: u32) -> Vec<(u32, u32)> {
    (0..n)
        .flat_map(|a| (0..n).filter(move |&b| b != a).map(move |b| (a, b)))
        .collect()
}

#[test]
fn incast_ideal_is_the_receivers_link() {
    // 3 x 1 MiB into one 100G host: 3 * (1_048_576 + 256 * 110) = 3_230_208 B -> 258_416.64 ns -> 258_417.
    let c = cfg(leaf_spine(1, 4, 1), Transport::MetaRoce, vec![]);
    let t = Topology::build(&c.topology).unwrap();
    let w = WorkloadSpec::Incast {
        senders: 3,
        bytes: 1 << 20,
        receiver: 0,
    };
    let lat = max_lat(&t, &[(1, 0), (2, 0), (3, 0)], 1 << 20, Transport::MetaRoce);
    assert_eq!(w.ideal_ns(&t, &c), 258_417 + lat);
}

#[test]
fn all_to_all_ideal_is_bounded_by_leaf_uplinks() {
    // 2 leaves x 4 hosts, 1 spine: each leaf sends 4 hosts * 4 remote peers = 16 flows of 64 KiB up one 100G
    // link. MetaRoCE: 16 * (65_536 + 16 * 110) = 1_076_736 B -> 86_139 ns (a host's own 7 flows: 37_686 ns).
    // RoCEv2: 16 * (65_536 + 16 * 82) = 1_069_568 B -> 85_565.44 -> 85_566 ns.
    let w = WorkloadSpec::AllToAll {
        bytes: 65_536,
        hosts: None,
        concurrency: Some(1),
    };
    for (kind, bw) in [(Transport::MetaRoce, 86_139), (Transport::RoceV2, 85_566)] {
        let c = cfg(leaf_spine(2, 4, 1), kind, vec![]);
        let t = Topology::build(&c.topology).unwrap();
        assert_eq!(
            w.ideal_ns(&t, &c),
            bw + max_lat(&t, &all_pairs(8), 65_536, kind),
            "{kind:?}"
        );
    }
}

#[test]
fn ideal_accounts_for_a_failed_uplink() {
    // With 2 spines a leaf has 200G up: 1_076_736 B -> 43_069.44 -> 43_070 ns. With leaf0-spine0 down,
    // leaf0 has 100G left: 86_139 ns.
    let w = WorkloadSpec::AllToAll {
        bytes: 65_536,
        hosts: None,
        concurrency: None,
    };
    let healthy = cfg(leaf_spine(2, 4, 2), Transport::MetaRoce, vec![]);
    let t = Topology::build(&healthy.topology).unwrap();
    let lat = max_lat(&t, &all_pairs(8), 65_536, Transport::MetaRoce);
    assert_eq!(w.ideal_ns(&t, &healthy), 43_070 + lat);
    let failed = cfg(
        leaf_spine(2, 4, 2),
        Transport::MetaRoce,
        vec![Fault::Down {
            links: LinkSel::Named(vec!["leaf0-spine0".into()]),
            at_ns: 0,
        }],
    );
    assert_eq!(w.ideal_ns(&t, &failed), 86_139 + lat);
}

#[test]
fn ring_ideal_is_2n_minus_2_dependent_steps() {
    // 4 hosts under one leaf, 4 MiB buffer: chunks of 1 MiB, 6 steps of 1_076_736 B at 100G = 86_139 ns each,
    // plus each step's one-way latency.
    let c = cfg(leaf_spine(1, 4, 1), Transport::MetaRoce, vec![]);
    let t = Topology::build(&c.topology).unwrap();
    let w = WorkloadSpec::RingAllreduce {
        bytes: 4 << 20,
        rings: None,
    };
    let lat = max_lat(
        &t,
        &[(0, 1), (1, 2), (2, 3), (3, 0)],
        1 << 20,
        Transport::MetaRoce,
    );
    assert_eq!(w.ideal_ns(&t, &c), 6 * (86_139 + lat));
}

#[test]
fn multi_dc_ideal_is_bounded_by_the_long_haul() {
    // 2 DCs of 2 hosts, one 10G long-haul link: hosts 2 and 3 (DC 1) send 1 MiB each to host 0 (DC 0):
    // 2 * 1_076_736 B over 10G = 1_722_777.6 -> 1_722_778 ns (the receiver's 100G link: 258_417 ns).
    let topo = TopologySpec::MultiDc {
        dcs: 2,
        dc: Box::new(leaf_spine(1, 2, 1)),
        borders: 1,
        long_haul_links: 1,
        long_haul: Tier {
            rate_bps: 10_000_000_000,
            latency_ns: 1_000_000,
        },
    };
    let c = cfg(topo, Transport::MetaRoce, vec![]);
    let t = Topology::build(&c.topology).unwrap();
    assert_eq!(t.hosts(), 4);
    assert_eq!((t.dc_of(1), t.dc_of(2)), (0, 1));
    let w = WorkloadSpec::Incast {
        senders: 3,
        bytes: 1 << 20,
        receiver: 0,
    };
    let lat = max_lat(&t, &[(1, 0), (2, 0), (3, 0)], 1 << 20, Transport::MetaRoce);
    assert!(
        lat >= 1_000_000,
        "the long-haul latency is part of the path"
    );
    assert_eq!(w.ideal_ns(&t, &c), 1_722_778 + lat);
}

#[test]
fn fat_tree_ideal_is_bounded_by_pod_uplinks() {
    // k = 4: 4 pods of 4 hosts; each pod's 2 aggregation switches have 2 core links each at 25G = 100G out of
    // the pod. All-to-all of 64 KiB: a pod sends 4 hosts * 12 remote peers = 48 flows = 3_230_208 B
    // -> 258_416.64 -> 258_417 ns (edge uplinks: 75_372 ns; a host's 15 flows: 80_756 ns).
    let topo = TopologySpec::FatTree {
        k: 4,
        planes: 1,
        host: tier(G100),
        fabric: tier(G100),
        core: tier(25_000_000_000),
    };
    let c = cfg(topo, Transport::MetaRoce, vec![]);
    let t = Topology::build(&c.topology).unwrap();
    assert_eq!(t.hosts(), 16);
    let w = WorkloadSpec::AllToAll {
        bytes: 65_536,
        hosts: None,
        concurrency: None,
    };
    assert_eq!(
        w.ideal_ns(&t, &c),
        258_417 + max_lat(&t, &all_pairs(16), 65_536, Transport::MetaRoce)
    );
}

#[test]
fn open_loop_workloads_have_no_ideal() {
    let c = cfg(leaf_spine(1, 4, 1), Transport::MetaRoce, vec![]);
    let t = Topology::build(&c.topology).unwrap();
    let w = WorkloadSpec::Inference {
        messages: 10,
        rate_per_host_per_us: Some(1.0),
        load_percent: None,
        sizes: metaroce_sim::workload::SizeDist::Fixed { bytes: 4096 },
    };
    assert_eq!(w.ideal_ns(&t, &c), 0);
}
