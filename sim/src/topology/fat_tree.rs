//! Three-tier k-ary fat tree: k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 core switches, k^3/4
//! hosts. Aggregation switch `i` of every pod links to core switches `i*k/2 .. (i+1)*k/2`.

use super::leaf_spine::prefix;
use super::{check_tier, err, Builder, NodeKind, Shape};
use crate::config::{ConfigError, Tier};
use crate::results::LinkTier;

/// Rejects impossible values (k even, 4..=64).
pub(crate) fn check(
    k: u32,
    planes: u32,
    host: &Tier,
    fabric: &Tier,
    core: &Tier,
) -> Result<(), ConfigError> {
    if !(4..=64).contains(&k) || !k.is_multiple_of(2) {
        return Err(err(
            "topology.k",
            format!("k must be even and in 4..=64, got {k}"),
        ));
    }
    if !(1..=16).contains(&planes) {
        return Err(err("topology.planes", "must be 1..=16"));
    }
    check_tier("host", host)?;
    check_tier("fabric", fabric)?;
    check_tier("core", core)
}

/// Builds the fat tree.
pub(crate) fn build(
    b: &mut Builder,
    k: u32,
    planes: u32,
    host: Tier,
    fabric: Tier,
    core: Tier,
) -> Shape {
    let half = k / 2;
    let hosts = k * half * half;
    for h in 0..hosts {
        b.node(format!("h{h}"), NodeKind::Host, 0, 0, 0);
    }
    let edges = k * half;
    let mut edge_nodes = Vec::new();
    let mut agg_nodes = Vec::new();
    let mut core_nodes = Vec::new();
    for p in 0..planes {
        let pre = prefix(None, planes, p);
        for pod in 0..k {
            for i in 0..half {
                edge_nodes.push(b.node(format!("{pre}edge{pod}.{i}"), NodeKind::Edge, p, 0, pod));
            }
        }
    }
    for p in 0..planes {
        let pre = prefix(None, planes, p);
        for pod in 0..k {
            for i in 0..half {
                agg_nodes.push(b.node(format!("{pre}agg{pod}.{i}"), NodeKind::Agg, p, 0, pod));
            }
        }
    }
    for p in 0..planes {
        let pre = prefix(None, planes, p);
        for j in 0..half * half {
            core_nodes.push(b.node(format!("{pre}core{j}"), NodeKind::Core, p, 0, 0));
        }
    }
    let mut host_links = vec![0u32; (hosts * planes) as usize];
    for h in 0..hosts {
        for p in 0..planes {
            let e = edge_nodes[(p * edges + h / half) as usize];
            host_links[(h * planes + p) as usize] = b.links.len() as u32;
            b.link(h, e, LinkTier::Host, host, p);
        }
    }
    for p in 0..planes {
        for pod in 0..k {
            for i in 0..half {
                let e = edge_nodes[(p * edges + pod * half + i) as usize];
                for j in 0..half {
                    let a = agg_nodes[(p * edges + pod * half + j) as usize];
                    b.link(e, a, LinkTier::Fabric, fabric, p);
                }
            }
        }
        for pod in 0..k {
            for i in 0..half {
                let a = agg_nodes[(p * edges + pod * half + i) as usize];
                for j in 0..half {
                    let c = core_nodes[(p * half * half + i * half + j) as usize];
                    b.link(a, c, LinkTier::Core, core, p);
                }
            }
        }
    }
    Shape {
        hosts,
        planes,
        hosts_per_leaf: half,
        leaves: edges,
        leaves_per_dc: edges,
        hosts_per_pod: half * half,
        leaf_nodes: edge_nodes,
        host_links,
    }
}
