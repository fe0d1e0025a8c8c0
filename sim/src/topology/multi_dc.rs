//! Data centers in a chain joined by long-haul links between their border switches. Each data center is a
//! leaf-spine; every spine links to every border switch of its data center at the fabric tier.

use super::leaf_spine::{build_into, LeafSpine};
use super::{check_tier, err, Builder, NodeKind, Shape, MAX_HOSTS};
use crate::config::{ConfigError, Tier, TopologySpec};
use crate::results::LinkTier;

/// Builds the multi-dc fabric, checking its parameters first.
pub(crate) fn build(
    b: &mut Builder,
    dcs: u32,
    dc: &TopologySpec,
    borders: u32,
    long_haul_links: u32,
    long_haul: Tier,
) -> Result<Shape, ConfigError> {
    if !(2..=8).contains(&dcs) {
        return Err(err("topology.dcs", "must be 2..=8"));
    }
    if borders == 0 {
        return Err(err(
            "topology.borders",
            "at least one border switch is needed",
        ));
    }
    if long_haul_links == 0 {
        return Err(err("topology.long_haul_links", "must be at least 1"));
    }
    check_tier("long_haul", &long_haul)?;
    let ls = match dc {
        TopologySpec::LeafSpine {
            leaves,
            hosts_per_leaf,
            spines,
            uplinks_per_spine,
            planes,
            host,
            fabric,
        } => LeafSpine {
            leaves: *leaves,
            hosts_per_leaf: *hosts_per_leaf,
            spines: *spines,
            uplinks_per_spine: *uplinks_per_spine,
            planes: *planes,
            host: *host,
            fabric: *fabric,
        },
        _ => {
            return Err(err(
                "topology.kind",
                "each data center of a multi-dc topology must be a leaf-spine",
            ))
        }
    };
    if ls.planes != 1 {
        return Err(err("topology.planes", "a multi-dc topology has one plane"));
    }
    ls.check("topology.")?;
    let per_dc = ls.leaves * ls.hosts_per_leaf;
    if u64::from(per_dc) * u64::from(dcs) > MAX_HOSTS {
        return Err(err("topology.dcs", format!("more than {MAX_HOSTS} hosts")));
    }
    let hosts = per_dc * dcs;
    for h in 0..hosts {
        let d = h / per_dc;
        b.node(format!("h{h}"), NodeKind::Host, 0, d, 0);
    }
    let mut leaf_nodes = Vec::new();
    let mut host_links = Vec::new();
    let mut border_nodes = Vec::new();
    for d in 0..dcs {
        let (leaves, spines, hl) = build_into(b, &ls, Some(d), d * per_dc, d * ls.leaves);
        leaf_nodes.extend(leaves);
        host_links.extend(hl);
        let first_border = border_nodes.len();
        for i in 0..borders {
            border_nodes.push(b.node(format!("dc{d}.border{i}"), NodeKind::Border, 0, d, 0));
        }
        for &s in &spines {
            for i in 0..borders as usize {
                b.link(
                    s,
                    border_nodes[first_border + i],
                    LinkTier::Border,
                    ls.fabric,
                    0,
                );
            }
        }
    }
    for d in 0..dcs - 1 {
        for i in 0..borders {
            let x = border_nodes[(d * borders + i) as usize];
            let y = border_nodes[((d + 1) * borders + i) as usize];
            for _ in 0..long_haul_links {
                b.link(x, y, LinkTier::LongHaul, long_haul, 0);
            }
        }
    }
    Ok(Shape {
        hosts,
        planes: 1,
        hosts_per_leaf: ls.hosts_per_leaf,
        leaves: ls.leaves * dcs,
        leaves_per_dc: ls.leaves,
        hosts_per_pod: ls.hosts_per_leaf,
        leaf_nodes,
        host_links,
    })
}
