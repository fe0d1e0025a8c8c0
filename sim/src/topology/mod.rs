//! The fabric as a graph: nodes (hosts first, then switches), links (each with two directions) and the queries
//! workloads and metrics need (leaf of a host, uplink capacity under faults, unloaded one-way latency).
//!
//! Ids: host `h` is node `h`; switches follow. Link `l` has two directions: `2l` from its lower-tier end `a` to
//! `b`, and `2l + 1` back. Every direction is fed by exactly one egress queue (a switch port or a NIC port), so
//! queue state is indexed by direction. Naming follows the simulator contract: `h5`, `leaf0`, `spine1`,
//! `edge2.1`, `agg2.0`, `core7`, `dc1.border0`, `p1.spine0`; links `h5-leaf0`, `leaf0-spine1#1`.

mod fat_tree;
mod leaf_spine;
mod multi_dc;

use crate::config::{ConfigError, Fault, HostId, LinkSel, Tier, TopologySpec};
use crate::results::LinkTier;

/// Largest number of hosts a topology may have (host addresses use 24 bits; memory bounds the rest).
pub const MAX_HOSTS: u64 = 1 << 20;

/// Ports of one switch: a leaf with more hosts plus uplinks than this is rejected ("more hosts than ports").
pub const MAX_SWITCH_PORTS: u64 = 1024;

/// Bytes a frame occupies on the wire besides itself: preamble + SFD (8) and the minimum inter-frame gap (12).
pub const PREAMBLE_IFG_BYTES: u64 = 20;

/// Bytes of the Ethernet FCS, counted in a frame's wire length (the model's frames exclude it).
pub const FCS_BYTES: u64 = 4;

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// A host (NIC).
    Host,
    /// Leaf (top-of-rack) switch of a leaf-spine fabric.
    Leaf,
    /// Spine switch.
    Spine,
    /// Edge switch of a fat tree.
    Edge,
    /// Aggregation switch of a fat tree.
    Agg,
    /// Core switch of a fat tree.
    Core,
    /// Border switch of a data center (multi-dc).
    Border,
}

/// One node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Its name.
    pub name: String,
    /// Its kind.
    pub kind: NodeKind,
    /// Its plane (0 for hosts, which sit on every plane).
    pub plane: u32,
    /// Its data center.
    pub dc: u32,
    /// Fat-tree pod of an edge or aggregation switch; global leaf index of a leaf; else 0.
    pub group: u32,
}

/// One bidirectional link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkDef {
    /// Name, lower tier first (`h5-leaf0`, `leaf0-spine1#1`).
    pub name: String,
    /// Name of the `a > b` direction (`leaf0>spine1#1`).
    pub up_name: String,
    /// Name of the `b > a` direction.
    pub down_name: String,
    /// Lower-tier end.
    pub a: u32,
    /// Upper-tier end.
    pub b: u32,
    /// Tier.
    pub tier: LinkTier,
    /// Rate, bits per second.
    pub rate_bps: u64,
    /// One-way propagation latency, ns.
    pub latency_ns: u64,
    /// Plane.
    pub plane: u32,
}

/// Hop counts per tier and total propagation of one path (used by [`Topology::one_way_ns`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct PathCost {
    latency_ns: u64,
    hops: [u8; 5],
}

fn tier_index(t: LinkTier) -> usize {
    match t {
        LinkTier::Host => 0,
        LinkTier::Fabric => 1,
        LinkTier::Core => 2,
        LinkTier::Border => 3,
        LinkTier::LongHaul => 4,
    }
}

/// The fabric.
#[derive(Debug, Clone)]
pub struct Topology {
    spec: TopologySpec,
    nodes: Vec<Node>,
    links: Vec<LinkDef>,
    hosts: u32,
    planes: u32,
    /// Hosts under each leaf.
    hosts_per_leaf: u32,
    /// Leaves per plane (all data centers).
    leaves: u32,
    /// Leaves per data center.
    leaves_per_dc: u32,
    /// Hosts per pod (fat tree), else hosts per leaf.
    hosts_per_pod: u32,
    /// `leaf_nodes[plane * leaves + leaf]`: node id of a leaf (edge) switch.
    leaf_nodes: Vec<u32>,
    /// `host_links[h * planes + plane]`: link id of host `h`'s link on `plane`.
    host_links: Vec<u32>,
    /// Per node, its outgoing directions (`port_off[n]..port_off[n + 1]` into `ports`).
    port_off: Vec<u32>,
    ports: Vec<u32>,
    /// Rate of each tier (index by `tier_index`), 0 if absent.
    tier_rate: [u64; 5],
    /// `path_cost[la * leaves_per_plane + lb]` for plane 0.
    path_cost: Vec<PathCost>,
}

/// Incremental construction shared by the builders of every kind.
#[derive(Debug, Default)]
pub(crate) struct Builder {
    nodes: Vec<Node>,
    links: Vec<LinkDef>,
    /// Parallel-link counter per (a, b).
    pair_count: std::collections::HashMap<(u32, u32), u32>,
}

impl Builder {
    pub(crate) fn node(
        &mut self,
        name: String,
        kind: NodeKind,
        plane: u32,
        dc: u32,
        group: u32,
    ) -> u32 {
        self.nodes.push(Node {
            name,
            kind,
            plane,
            dc,
            group,
        });
        self.nodes.len() as u32 - 1
    }

    pub(crate) fn link(&mut self, a: u32, b: u32, tier: LinkTier, t: Tier, plane: u32) {
        let n = self.pair_count.entry((a, b)).or_insert(0);
        let suffix = if *n == 0 {
            String::new()
        } else {
            format!("#{n}")
        };
        *n += 1;
        let (an, bn) = (&self.nodes[a as usize].name, &self.nodes[b as usize].name);
        self.links.push(LinkDef {
            name: format!("{an}-{bn}{suffix}"),
            up_name: format!("{an}>{bn}{suffix}"),
            down_name: format!("{bn}>{an}{suffix}"),
            a,
            b,
            tier,
            rate_bps: t.rate_bps,
            latency_ns: t.latency_ns,
            plane,
        });
    }
}

fn err(field: &str, reason: impl Into<String>) -> ConfigError {
    ConfigError {
        field: field.to_string(),
        reason: reason.into(),
    }
}

/// Checks a tier (rate > 0, latency <= 1 s); `name` is the scenario key (`host`, `fabric`, ...).
pub(crate) fn check_tier(name: &str, t: &Tier) -> Result<(), ConfigError> {
    if t.rate_bps == 0 {
        return Err(err(
            &format!("topology.{name}.rate_gbps"),
            "rate must be positive",
        ));
    }
    if t.rate_bps > 100_000_000_000_000 {
        return Err(err(
            &format!("topology.{name}.rate_gbps"),
            "rate above 100 Tb/s",
        ));
    }
    if t.latency_ns > 1_000_000_000 {
        return Err(err(
            &format!("topology.{name}.latency_ns"),
            "latency above 1 s",
        ));
    }
    Ok(())
}

/// Whether `sel` selects link `l` (by link name or either direction's name).
pub(crate) fn sel_matches(sel: &LinkSel, l: &LinkDef) -> bool {
    match sel {
        LinkSel::All => true,
        LinkSel::Fabric => l.tier != LinkTier::Host,
        LinkSel::Named(names) => names
            .iter()
            .any(|n| *n == l.name || *n == l.up_name || *n == l.down_name),
    }
}

/// Which directions of link `l` a selector names: both unless it names one direction.
pub(crate) fn sel_dirs(sel: &LinkSel, l: &LinkDef) -> (bool, bool) {
    match sel {
        LinkSel::Named(names) => {
            let whole = names.contains(&l.name);
            let up = whole || names.contains(&l.up_name);
            let down = whole || names.contains(&l.down_name);
            (up, down)
        }
        _ => (true, true),
    }
}

impl Topology {
    /// Builds the fabric, rejecting impossible shapes with the scenario field at fault.
    pub fn build(spec: &TopologySpec) -> Result<Topology, ConfigError> {
        let mut b = Builder::default();
        let shape = match spec {
            TopologySpec::LeafSpine {
                leaves,
                hosts_per_leaf,
                spines,
                uplinks_per_spine,
                planes,
                host,
                fabric,
            } => {
                let ls = leaf_spine::LeafSpine {
                    leaves: *leaves,
                    hosts_per_leaf: *hosts_per_leaf,
                    spines: *spines,
                    uplinks_per_spine: *uplinks_per_spine,
                    planes: *planes,
                    host: *host,
                    fabric: *fabric,
                };
                ls.check("topology.")?;
                leaf_spine::build(&mut b, &ls)
            }
            TopologySpec::FatTree {
                k,
                planes,
                host,
                fabric,
                core,
            } => {
                fat_tree::check(*k, *planes, host, fabric, core)?;
                fat_tree::build(&mut b, *k, *planes, *host, *fabric, *core)
            }
            TopologySpec::MultiDc {
                dcs,
                dc,
                borders,
                long_haul_links,
                long_haul,
            } => multi_dc::build(&mut b, *dcs, dc, *borders, *long_haul_links, *long_haul)?,
        };
        Ok(Self::finish(spec.clone(), b, shape))
    }

    fn finish(spec: TopologySpec, b: Builder, s: Shape) -> Topology {
        let n = b.nodes.len();
        let mut per: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, l) in b.links.iter().enumerate() {
            per[l.a as usize].push(2 * i as u32);
            per[l.b as usize].push(2 * i as u32 + 1);
        }
        let mut port_off = Vec::with_capacity(n + 1);
        let mut ports = Vec::new();
        for p in &per {
            port_off.push(ports.len() as u32);
            ports.extend_from_slice(p);
        }
        port_off.push(ports.len() as u32);
        let mut tier_rate = [0u64; 5];
        for l in &b.links {
            let t = tier_index(l.tier);
            if tier_rate[t] == 0 {
                tier_rate[t] = l.rate_bps;
            }
        }
        let mut t = Topology {
            spec,
            nodes: b.nodes,
            links: b.links,
            hosts: s.hosts,
            planes: s.planes,
            hosts_per_leaf: s.hosts_per_leaf,
            leaves: s.leaves,
            leaves_per_dc: s.leaves_per_dc,
            hosts_per_pod: s.hosts_per_pod,
            leaf_nodes: s.leaf_nodes,
            host_links: s.host_links,
            port_off,
            ports,
            tier_rate,
            path_cost: Vec::new(),
        };
        t.path_cost = t.compute_path_costs();
        t
    }

    /// One BFS per leaf of plane 0 over the switches: hop counts per tier and latency of one shortest path to
    /// every other leaf.
    fn compute_path_costs(&self) -> Vec<PathCost> {
        let nl = self.leaves as usize;
        let mut out = vec![PathCost::default(); nl * nl];
        let n = self.nodes.len();
        let mut cost: Vec<Option<PathCost>> = vec![None; n];
        let mut queue = std::collections::VecDeque::new();
        for la in 0..nl {
            cost.iter_mut().for_each(|c| *c = None);
            let src = self.leaf_nodes[la];
            cost[src as usize] = Some(PathCost::default());
            queue.clear();
            queue.push_back(src);
            while let Some(u) = queue.pop_front() {
                let cu = cost[u as usize].unwrap_or_default();
                for &d in self.ports_of(u) {
                    let v = self.dir_dst(d);
                    if self.is_host(v) || cost[v as usize].is_some() {
                        continue;
                    }
                    let l = &self.links[(d / 2) as usize];
                    let mut c = cu;
                    c.latency_ns += l.latency_ns;
                    c.hops[tier_index(l.tier)] = c.hops[tier_index(l.tier)].saturating_add(1);
                    cost[v as usize] = Some(c);
                    queue.push_back(v);
                }
            }
            for lb in 0..nl {
                out[la * nl + lb] = cost[self.leaf_nodes[lb] as usize].unwrap_or_default();
            }
        }
        out
    }

    /// The specification it was built from.
    pub fn spec(&self) -> &TopologySpec {
        &self.spec
    }

    /// Number of hosts.
    pub fn hosts(&self) -> u32 {
        self.hosts
    }

    /// Number of parallel planes (ports per NIC).
    pub fn planes(&self) -> u32 {
        self.planes
    }

    /// Line rate of one host: the sum over its ports, bits per second.
    pub fn host_rate_bps(&self) -> u64 {
        self.tier_rate[0] * u64::from(self.planes)
    }

    /// Global leaf (edge) index of host `h` (DC-major).
    pub fn leaf_of(&self, h: HostId) -> u32 {
        h / self.hosts_per_leaf.max(1)
    }

    /// Leaves (edges) per plane, all data centers together.
    pub fn leaves(&self) -> u32 {
        self.leaves
    }

    /// Hosts under one leaf.
    pub fn hosts_per_leaf(&self) -> u32 {
        self.hosts_per_leaf
    }

    /// Data center of host `h` (0 unless multi-dc).
    pub fn dc_of(&self, h: HostId) -> u32 {
        self.leaf_of(h) / self.leaves_per_dc.max(1)
    }

    /// Number of data centers.
    pub fn dcs(&self) -> u32 {
        match &self.spec {
            TopologySpec::MultiDc { dcs, .. } => *dcs,
            _ => 1,
        }
    }

    /// Fat-tree pod of host `h`; for other kinds its leaf.
    pub fn pod_of(&self, h: HostId) -> u32 {
        h / self.hosts_per_pod.max(1)
    }

    /// Every node.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Every link.
    pub fn links(&self) -> &[LinkDef] {
        &self.links
    }

    /// Name of node `node` (empty if out of range).
    pub fn node_name(&self, node: u32) -> &str {
        self.nodes
            .get(node as usize)
            .map_or("", |n| n.name.as_str())
    }

    /// Names of every link, in link order.
    pub fn link_names(&self) -> Vec<String> {
        self.links.iter().map(|l| l.name.clone()).collect()
    }

    /// Name of direction `d` (`leaf0>spine1`).
    pub fn dir_name(&self, d: u32) -> &str {
        let l = &self.links[(d / 2) as usize];
        if d.is_multiple_of(2) {
            &l.up_name
        } else {
            &l.down_name
        }
    }

    /// Number of link directions.
    pub fn dirs(&self) -> u32 {
        2 * self.links.len() as u32
    }

    /// The link of direction `d`.
    pub fn dir_link(&self, d: u32) -> &LinkDef {
        &self.links[(d / 2) as usize]
    }

    /// Sending node of direction `d`.
    pub fn dir_src(&self, d: u32) -> u32 {
        let l = &self.links[(d / 2) as usize];
        if d.is_multiple_of(2) {
            l.a
        } else {
            l.b
        }
    }

    /// Receiving node of direction `d`.
    pub fn dir_dst(&self, d: u32) -> u32 {
        let l = &self.links[(d / 2) as usize];
        if d.is_multiple_of(2) {
            l.b
        } else {
            l.a
        }
    }

    /// Whether node `n` is a host.
    pub fn is_host(&self, n: u32) -> bool {
        n < self.hosts
    }

    /// Outgoing directions of node `n`.
    pub fn ports_of(&self, n: u32) -> &[u32] {
        let a = self.port_off[n as usize] as usize;
        let b = self.port_off[n as usize + 1] as usize;
        &self.ports[a..b]
    }

    /// Node id of leaf `leaf` on `plane`.
    pub fn leaf_node(&self, plane: u32, leaf: u32) -> u32 {
        self.leaf_nodes[(plane * self.leaves + leaf) as usize]
    }

    /// Link id of host `h`'s link on `plane`.
    pub fn host_link(&self, h: HostId, plane: u32) -> u32 {
        self.host_links[(h * self.planes + plane) as usize]
    }

    /// Link rates after applying `faults` in time order (down links at 0 bits/s, degraded at their new rate).
    fn rates_after(&self, faults: &[Fault]) -> Vec<u64> {
        let mut rate: Vec<u64> = self.links.iter().map(|l| l.rate_bps).collect();
        let mut down = vec![false; self.links.len()];
        let mut timed: Vec<(u64, usize)> = faults
            .iter()
            .enumerate()
            .filter_map(|(i, f)| match f {
                Fault::Loss { .. } => None,
                Fault::Down { at_ns, .. } | Fault::Up { at_ns, .. } => Some((*at_ns, i)),
                Fault::Degrade { at_ns, .. } => Some((*at_ns, i)),
            })
            .collect();
        timed.sort();
        for (_, i) in timed {
            for (li, l) in self.links.iter().enumerate() {
                match &faults[i] {
                    Fault::Down { links, .. } if sel_matches(links, l) => down[li] = true,
                    Fault::Up { links, .. } if sel_matches(links, l) => down[li] = false,
                    Fault::Degrade {
                        links, rate_bps, ..
                    } if sel_matches(links, l) => rate[li] = *rate_bps,
                    _ => {}
                }
            }
        }
        rate.iter()
            .zip(&down)
            .map(|(&r, &d)| if d { 0 } else { r })
            .collect()
    }

    /// Capacity leaving leaf `leaf` towards the spines/aggregation (all planes), with links that are down at
    /// the end of `faults` removed and degraded links at their degraded rate.
    pub fn leaf_uplink_bps(&self, leaf: u32, faults: &[Fault]) -> u64 {
        if leaf >= self.leaves {
            return 0;
        }
        let rates = self.rates_after(faults);
        (0..self.planes)
            .map(|p| {
                let n = self.leaf_node(p, leaf);
                self.links
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| l.a == n && l.tier != LinkTier::Host)
                    .map(|(i, _)| rates[i])
                    .sum::<u64>()
            })
            .sum()
    }

    /// Same for the pod's uplinks to the core (fat-tree): capacity out of a pod. Other kinds: the leaf's.
    pub fn pod_uplink_bps(&self, pod: u32, faults: &[Fault]) -> u64 {
        match &self.spec {
            TopologySpec::FatTree { .. } => {
                let rates = self.rates_after(faults);
                self.links
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| {
                        let n = &self.nodes[l.a as usize];
                        l.tier == LinkTier::Core && n.kind == NodeKind::Agg && n.group == pod
                    })
                    .map(|(i, _)| rates[i])
                    .sum()
            }
            _ => self.leaf_uplink_bps(pod, faults),
        }
    }

    /// Total long-haul capacity between DC `d` and `d + 1`, one direction (multi-dc), with faults applied.
    pub fn long_haul_bps(&self, d: u32, faults: &[Fault]) -> u64 {
        let rates = self.rates_after(faults);
        self.links
            .iter()
            .enumerate()
            .filter(|(_, l)| {
                l.tier == LinkTier::LongHaul
                    && self.nodes[l.a as usize].dc == d
                    && self.nodes[l.b as usize].dc == d + 1
            })
            .map(|(i, _)| rates[i])
            .sum()
    }

    /// Serialization time of `bytes` (plus preamble, gap and FCS) at `rate_bps`, ns, rounded up.
    pub fn ser_ns(bytes: u64, rate_bps: u64) -> u64 {
        if rate_bps == 0 {
            return 0;
        }
        let bits = u128::from(bytes + PREAMBLE_IFG_BYTES + FCS_BYTES) * 8 * 1_000_000_000;
        bits.div_ceil(u128::from(rate_bps)) as u64
    }

    /// Unloaded one-way latency from host a to host b: propagation plus store-and-forward serialization of
    /// one frame of `frame_bytes` (without FCS) at every hop.
    pub fn one_way_ns(&self, a: HostId, b: HostId, frame_bytes: u64) -> u64 {
        if a == b || a >= self.hosts || b >= self.hosts {
            return 0;
        }
        let (la, lb) = (self.leaf_of(a), self.leaf_of(b));
        let c = self.path_cost[(la * self.leaves + lb) as usize];
        let hl = &self.links[self.host_link(a, 0) as usize];
        let hl2 = &self.links[self.host_link(b, 0) as usize];
        let mut t = c.latency_ns + hl.latency_ns + hl2.latency_ns;
        t += 2 * Self::ser_ns(frame_bytes, self.tier_rate[0]);
        for (i, &n) in c.hops.iter().enumerate() {
            t += u64::from(n) * Self::ser_ns(frame_bytes, self.tier_rate[i]);
        }
        t
    }

    /// The largest unloaded round trip between two hosts: a `data_frame` one way and an `ack_frame` back.
    pub fn max_rtt_ns(&self, data_frame: u64, ack_frame: u64) -> u64 {
        if self.hosts < 2 {
            return 0;
        }
        let mut best = 0;
        let hpl = self.hosts_per_leaf.max(1);
        for la in 0..self.leaves {
            for lb in 0..self.leaves {
                let (a, b) = (la * hpl, lb * hpl + u32::from(la == lb && hpl > 1));
                if a == b || b >= self.hosts {
                    continue;
                }
                best =
                    best.max(self.one_way_ns(a, b, data_frame) + self.one_way_ns(b, a, ack_frame));
            }
        }
        best
    }
}

/// What a builder reports besides nodes and links.
#[derive(Debug, Clone)]
pub(crate) struct Shape {
    pub(crate) hosts: u32,
    pub(crate) planes: u32,
    pub(crate) hosts_per_leaf: u32,
    pub(crate) leaves: u32,
    pub(crate) leaves_per_dc: u32,
    pub(crate) hosts_per_pod: u32,
    pub(crate) leaf_nodes: Vec<u32>,
    pub(crate) host_links: Vec<u32>,
}
