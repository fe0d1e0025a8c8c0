//! Topology shapes, names, queries and routing for every kind.

mod core_util;

use core_util::*;
use metaroce_sim::config::*;
use metaroce_sim::results::LinkTier;
use metaroce_sim::routing::Routes;
use metaroce_sim::topology::{NodeKind, Topology};

fn multi_plane() -> TopologySpec {
    TopologySpec::LeafSpine {
        leaves: 4,
        hosts_per_leaf: 8,
        spines: 2,
        uplinks_per_spine: 2,
        planes: 2,
        host: tier(100, 500),
        fabric: tier(400, 700),
    }
}

fn fat_tree(k: u32) -> TopologySpec {
    TopologySpec::FatTree {
        k,
        planes: 1,
        host: tier(100, 500),
        fabric: tier(100, 600),
        core: tier(100, 700),
    }
}

fn multi_dc() -> TopologySpec {
    TopologySpec::MultiDc {
        dcs: 2,
        dc: Box::new(TopologySpec::LeafSpine {
            leaves: 2,
            hosts_per_leaf: 2,
            spines: 2,
            uplinks_per_spine: 1,
            planes: 1,
            host: tier(100, 500),
            fabric: tier(100, 500),
        }),
        borders: 2,
        long_haul_links: 2,
        long_haul: Tier {
            rate_bps: 400_000_000_000,
            latency_ns: 1_000_000,
        },
    }
}

fn node(t: &Topology, name: &str) -> u32 {
    t.nodes()
        .iter()
        .position(|n| n.name == name)
        .unwrap_or_else(|| panic!("no node {name}")) as u32
}

#[test]
fn leaf_spine_multi_plane_sizes_and_names() {
    let t = Topology::build(&multi_plane()).unwrap();
    assert_eq!((t.hosts(), t.planes(), t.leaves()), (32, 2, 4));
    assert_eq!(t.nodes().len(), 32 + 2 * (4 + 2));
    assert_eq!(t.links().len(), 32 * 2 + 2 * 4 * 2 * 2);
    assert_eq!(t.host_rate_bps(), 200_000_000_000);
    let names = t.link_names();
    for n in [
        "h5-p0.leaf0",
        "h5-p1.leaf0",
        "h31-p1.leaf3",
        "p0.leaf0-p0.spine1",
        "p1.leaf3-p1.spine0#1",
    ] {
        assert!(names.iter().any(|x| x == n), "missing link {n}");
    }
    assert!(!names.iter().any(|x| x.ends_with("#2")));
    assert_eq!(
        t.nodes()[node(&t, "p1.spine0") as usize].kind,
        NodeKind::Spine
    );
    assert_eq!(t.node_name(5), "h5");
    // Direction names.
    let l = t
        .links()
        .iter()
        .position(|l| l.name == "p0.leaf0-p0.spine1")
        .unwrap() as u32;
    assert_eq!(t.dir_name(2 * l), "p0.leaf0>p0.spine1");
    assert_eq!(t.dir_name(2 * l + 1), "p0.spine1>p0.leaf0");
    assert_eq!((t.leaf_of(17), t.pod_of(17), t.dc_of(17)), (2, 2, 0));
    // 2 planes x 2 spines x 2 uplinks x 400G.
    assert_eq!(t.leaf_uplink_bps(1, &[]), 8 * 400_000_000_000);
    let down = [Fault::Down {
        links: LinkSel::Named(vec!["p1.leaf1-p1.spine0#1".into()]),
        at_ns: 5,
    }];
    assert_eq!(t.leaf_uplink_bps(1, &down), 7 * 400_000_000_000);
    let up_again = [
        down[0].clone(),
        Fault::Up {
            links: LinkSel::Named(vec!["p1.leaf1-p1.spine0#1".into()]),
            at_ns: 9,
        },
        Fault::Degrade {
            links: LinkSel::Named(vec!["p0.leaf1>p0.spine0".into()]),
            at_ns: 1,
            rate_bps: 100_000_000_000,
        },
    ];
    assert_eq!(
        t.leaf_uplink_bps(1, &up_again),
        7 * 400_000_000_000 + 100_000_000_000
    );
}

#[test]
fn fat_tree_sizes_names_and_pods() {
    let t = Topology::build(&fat_tree(4)).unwrap();
    assert_eq!((t.hosts(), t.leaves()), (16, 8));
    assert_eq!(t.nodes().len(), 16 + 8 + 8 + 4);
    assert_eq!(t.links().len(), 16 + 16 + 16);
    for n in ["edge0.0", "edge3.1", "agg2.1", "core3"] {
        node(&t, n);
    }
    let names = t.link_names();
    for n in [
        "h0-edge0.0",
        "h15-edge3.1",
        "edge1.0-agg1.1",
        "agg2.1-core3",
    ] {
        assert!(names.iter().any(|x| x == n), "missing link {n}");
    }
    assert_eq!((t.leaf_of(5), t.pod_of(5)), (2, 1));
    assert_eq!(t.pod_uplink_bps(1, &[]), 4 * 100_000_000_000);
    let f = [Fault::Down {
        links: LinkSel::Named(vec!["agg1.0-core0".into()]),
        at_ns: 0,
    }];
    assert_eq!(t.pod_uplink_bps(1, &f), 3 * 100_000_000_000);
    assert_eq!(t.pod_uplink_bps(0, &f), 4 * 100_000_000_000);
    // Edge uplinks: 2 aggregation links.
    assert_eq!(t.leaf_uplink_bps(0, &[]), 2 * 100_000_000_000);
    let big = Topology::build(&fat_tree(16)).unwrap();
    assert_eq!(big.hosts(), 1024);
}

#[test]
fn multi_dc_sizes_names_and_long_haul() {
    let t = Topology::build(&multi_dc()).unwrap();
    assert_eq!((t.hosts(), t.leaves(), t.dcs()), (8, 4, 2));
    assert_eq!((t.dc_of(3), t.dc_of(4), t.leaf_of(5)), (0, 1, 2));
    let names = t.link_names();
    for n in [
        "h4-dc1.leaf0",
        "dc0.leaf1-dc0.spine1",
        "dc1.spine0-dc1.border1",
        "dc0.border0-dc1.border0",
        "dc0.border1-dc1.border1#1",
    ] {
        assert!(names.iter().any(|x| x == n), "missing link {n}");
    }
    assert_eq!(t.long_haul_bps(0, &[]), 4 * 400_000_000_000);
    let f = [Fault::Degrade {
        links: LinkSel::Named(vec!["dc0.border0-dc1.border0".into()]),
        at_ns: 0,
        rate_bps: 100_000_000_000,
    }];
    assert_eq!(
        t.long_haul_bps(0, &f),
        3 * 400_000_000_000 + 100_000_000_000
    );
    let tier_of = |n: &str| t.links().iter().find(|l| l.name == n).unwrap().tier;
    assert_eq!(tier_of("dc0.border0-dc1.border0"), LinkTier::LongHaul);
    assert_eq!(tier_of("dc1.spine0-dc1.border1"), LinkTier::Border);
    // h0 -> h4: host, fabric, border, long haul, border, fabric, host = 500*6 + 1 ms of propagation.
    assert_eq!(
        t.one_way_ns(0, 4, 0)
            - 2 * Topology::ser_ns(0, 100_000_000_000)
            - 4 * Topology::ser_ns(0, 100_000_000_000)
            - Topology::ser_ns(0, 400_000_000_000),
        6 * 500 + 1_000_000
    );
}

#[test]
fn one_way_latency_counts_every_hop() {
    let t = Topology::build(&leaf_spine(2, 2, 2)).unwrap();
    let ser = Topology::ser_ns(4000, 100_000_000_000);
    assert_eq!(ser, ((4000 + 24) * 8u64).div_ceil(100));
    assert_eq!(t.one_way_ns(0, 1, 4000), 2 * 1000 + 2 * ser);
    assert_eq!(t.one_way_ns(0, 2, 4000), 4 * 1000 + 4 * ser);
    assert_eq!(t.one_way_ns(3, 3, 4000), 0);
    let ft = Topology::build(&fat_tree(4)).unwrap();
    let s = |r| Topology::ser_ns(100, r);
    // Different pods: host, edge-agg, agg-core, core-agg, agg-edge, host.
    assert_eq!(
        ft.one_way_ns(0, 15, 100),
        2 * 500 + 2 * 600 + 2 * 700 + 6 * s(100_000_000_000)
    );
    // Same pod, other edge: 4 hops.
    assert_eq!(
        ft.one_way_ns(0, 2, 100),
        2 * 500 + 2 * 600 + 4 * s(100_000_000_000)
    );
}

/// Every switch reaches every host by following next hops (any ECMP choice), in the host's plane.
fn assert_routes_reach_everything(t: &Topology, routes: &Routes) {
    for s in t.hosts()..t.nodes().len() as u32 {
        let plane = t.nodes()[s as usize].plane;
        for h in 0..t.hosts() {
            let leaf = t.leaf_of(h);
            let target = t.leaf_node(plane, leaf);
            // Walk every branch (bounded depth).
            let mut frontier = vec![s];
            let mut steps = 0;
            while !frontier.is_empty() {
                assert!(steps < 16, "routing loop from {} to h{h}", t.node_name(s));
                let mut next = Vec::new();
                for n in frontier {
                    if n == target {
                        continue;
                    }
                    let hops = routes.next_hops(n, leaf);
                    assert!(!hops.is_empty(), "{} has no route to h{h}", t.node_name(n));
                    for &d in hops {
                        assert_eq!(t.dir_src(d), n);
                        next.push(t.dir_dst(d));
                    }
                }
                next.sort_unstable();
                next.dedup();
                frontier = next;
                steps += 1;
            }
        }
    }
}

#[test]
fn routing_reaches_every_host_in_every_kind() {
    for spec in [
        multi_plane(),
        fat_tree(4),
        fat_tree(8),
        multi_dc(),
        leaf_spine(3, 2, 4),
    ] {
        let t = Topology::build(&spec).unwrap();
        let r = Routes::compute(&t, &|_| false);
        assert_routes_reach_everything(&t, &r);
    }
    // ECMP width: a leaf has spines * uplinks next hops towards another leaf.
    let t = Topology::build(&multi_plane()).unwrap();
    let r = Routes::compute(&t, &|_| false);
    let leaf0 = t.leaf_node(1, 0);
    assert_eq!(r.next_hops(leaf0, 3).len(), 4);
    // Without one uplink, routing avoids it and still reaches everything.
    let bad = t
        .links()
        .iter()
        .position(|l| l.name == "p1.leaf0-p1.spine0")
        .unwrap() as u32;
    let r2 = Routes::compute(&t, &|l| l == bad);
    assert_eq!(r2.next_hops(leaf0, 3).len(), 3);
    assert!(r2.next_hops(leaf0, 3).iter().all(|&d| d / 2 != bad));
    assert_routes_reach_everything(&t, &r2);
}
