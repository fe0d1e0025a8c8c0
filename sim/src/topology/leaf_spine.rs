//! Two-tier leaf-spine fabric (also the inside of each data center of a multi-dc topology).

use super::{check_tier, err, Builder, NodeKind, Shape, MAX_HOSTS, MAX_SWITCH_PORTS};
use crate::config::{ConfigError, Tier};
use crate::results::LinkTier;

/// Parameters of one leaf-spine fabric.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LeafSpine {
    pub(crate) leaves: u32,
    pub(crate) hosts_per_leaf: u32,
    pub(crate) spines: u32,
    pub(crate) uplinks_per_spine: u32,
    pub(crate) planes: u32,
    pub(crate) host: Tier,
    pub(crate) fabric: Tier,
}

impl LeafSpine {
    /// Rejects impossible values; `prefix` is the scenario path of the table (`topology.`).
    pub(crate) fn check(&self, prefix: &str) -> Result<(), ConfigError> {
        let f = |k: &str| format!("{prefix}{k}");
        if self.leaves == 0 {
            return Err(err(&f("leaves"), "at least one leaf is needed"));
        }
        if self.hosts_per_leaf == 0 {
            return Err(err(
                &f("hosts_per_leaf"),
                "at least one host per leaf is needed",
            ));
        }
        if self.spines == 0 {
            return Err(err(&f("spines"), "at least one spine is needed"));
        }
        if self.uplinks_per_spine == 0 {
            return Err(err(&f("uplinks_per_spine"), "must be at least 1"));
        }
        if !(1..=16).contains(&self.planes) {
            return Err(err(&f("planes"), "must be 1..=16"));
        }
        let hosts = u64::from(self.leaves) * u64::from(self.hosts_per_leaf);
        if hosts > MAX_HOSTS {
            return Err(err(
                &f("hosts_per_leaf"),
                format!("{hosts} hosts exceed the limit of {MAX_HOSTS}"),
            ));
        }
        let leaf_ports = u64::from(self.hosts_per_leaf)
            + u64::from(self.spines) * u64::from(self.uplinks_per_spine);
        if leaf_ports > MAX_SWITCH_PORTS {
            return Err(err(
                &f("hosts_per_leaf"),
                format!(
                    "a leaf needs {} host ports + {} uplinks = {leaf_ports} ports, more than the {MAX_SWITCH_PORTS} of a switch",
                    self.hosts_per_leaf,
                    u64::from(self.spines) * u64::from(self.uplinks_per_spine)
                ),
            ));
        }
        let spine_ports = u64::from(self.leaves) * u64::from(self.uplinks_per_spine);
        if spine_ports > MAX_SWITCH_PORTS {
            return Err(err(
                &f("leaves"),
                format!("a spine needs {spine_ports} ports, more than the {MAX_SWITCH_PORTS} of a switch"),
            ));
        }
        check_tier("host", &self.host)?;
        check_tier("fabric", &self.fabric)
    }
}

/// Switch name prefix: `dc<d>.` for multi-dc, then `p<plane>.` on multi-plane fabrics.
pub(crate) fn prefix(dc: Option<u32>, planes: u32, plane: u32) -> String {
    let mut s = String::new();
    if let Some(d) = dc {
        s.push_str(&format!("dc{d}."));
    }
    if planes > 1 {
        s.push_str(&format!("p{plane}."));
    }
    s
}

/// Adds the switches and links of one leaf-spine whose hosts `host_base..` already exist. Returns the leaf
/// node ids (`[plane][leaf]` flattened), the spine node ids of plane 0..planes, and the host links
/// (`[host - host_base][plane]`).
pub(crate) fn build_into(
    b: &mut Builder,
    ls: &LeafSpine,
    dc: Option<u32>,
    host_base: u32,
    leaf_base: u32,
) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let d = dc.unwrap_or(0);
    let mut leaf_nodes = Vec::new();
    let mut spine_nodes = Vec::new();
    for p in 0..ls.planes {
        let pre = prefix(dc, ls.planes, p);
        for i in 0..ls.leaves {
            leaf_nodes.push(b.node(format!("{pre}leaf{i}"), NodeKind::Leaf, p, d, leaf_base + i));
        }
    }
    for p in 0..ls.planes {
        let pre = prefix(dc, ls.planes, p);
        for j in 0..ls.spines {
            spine_nodes.push(b.node(format!("{pre}spine{j}"), NodeKind::Spine, p, d, 0));
        }
    }
    let nh = ls.leaves * ls.hosts_per_leaf;
    let mut host_links = vec![0u32; (nh * ls.planes) as usize];
    for h in 0..nh {
        for p in 0..ls.planes {
            let leaf = leaf_nodes[(p * ls.leaves + h / ls.hosts_per_leaf) as usize];
            host_links[(h * ls.planes + p) as usize] = b.links.len() as u32;
            b.link(host_base + h, leaf, LinkTier::Host, ls.host, p);
        }
    }
    for p in 0..ls.planes {
        for i in 0..ls.leaves {
            let leaf = leaf_nodes[(p * ls.leaves + i) as usize];
            for j in 0..ls.spines {
                let spine = spine_nodes[(p * ls.spines + j) as usize];
                for _ in 0..ls.uplinks_per_spine {
                    b.link(leaf, spine, LinkTier::Fabric, ls.fabric, p);
                }
            }
        }
    }
    (leaf_nodes, spine_nodes, host_links)
}

/// A whole single leaf-spine fabric.
pub(crate) fn build(b: &mut Builder, ls: &LeafSpine) -> Shape {
    let hosts = ls.leaves * ls.hosts_per_leaf;
    for h in 0..hosts {
        b.node(format!("h{h}"), NodeKind::Host, 0, 0, 0);
    }
    let (leaf_nodes, _, host_links) = build_into(b, ls, None, 0, 0);
    Shape {
        hosts,
        planes: ls.planes,
        hosts_per_leaf: ls.hosts_per_leaf,
        leaves: ls.leaves,
        leaves_per_dc: ls.leaves,
        hosts_per_pod: ls.hosts_per_leaf,
        leaf_nodes,
        host_links,
    }
}
