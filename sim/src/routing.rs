//! Shortest-path routing computed generically for every topology kind: one BFS per destination leaf (edge)
//! switch over the switch graph gives, for every switch of that leaf's plane, the set of outgoing directions
//! one hop closer to it. Switches spread packets over that set by the ECMP hash of the 5-tuple.

use crate::topology::Topology;
use std::collections::VecDeque;

/// Next hops of every switch towards every leaf.
#[derive(Debug, Clone)]
pub struct Routes {
    hosts: u32,
    leaves: u32,
    /// `span[(node - hosts) * leaves + leaf]` = (offset, count) into `hops`.
    span: Vec<(u32, u32)>,
    hops: Vec<u32>,
}

impl Routes {
    /// Computes routes avoiding the links for which `excluded(link)` is true.
    pub fn compute(t: &Topology, excluded: &dyn Fn(u32) -> bool) -> Routes {
        let hosts = t.hosts();
        let n = t.nodes().len();
        let switches = n - hosts as usize;
        let leaves = t.leaves();
        let mut span = vec![(0u32, 0u32); switches * leaves as usize];
        let mut hops = Vec::new();
        let mut dist = vec![u32::MAX; n];
        let mut queue = VecDeque::new();
        for plane in 0..t.planes() {
            for leaf in 0..leaves {
                let target = t.leaf_node(plane, leaf);
                dist.iter_mut().for_each(|d| *d = u32::MAX);
                dist[target as usize] = 0;
                queue.clear();
                queue.push_back(target);
                // Links are symmetric: walking outgoing directions from the target finds the distance of
                // every switch to it.
                while let Some(u) = queue.pop_front() {
                    for &d in t.ports_of(u) {
                        let v = t.dir_dst(d);
                        if t.is_host(v) || excluded(d / 2) || dist[v as usize] != u32::MAX {
                            continue;
                        }
                        dist[v as usize] = dist[u as usize] + 1;
                        queue.push_back(v);
                    }
                }
                for s in hosts..n as u32 {
                    if t.nodes()[s as usize].plane != plane || s == target {
                        continue;
                    }
                    let ds = dist[s as usize];
                    if ds == u32::MAX {
                        continue;
                    }
                    let off = hops.len() as u32;
                    for &d in t.ports_of(s) {
                        let v = t.dir_dst(d);
                        if !t.is_host(v) && !excluded(d / 2) && dist[v as usize] + 1 == ds {
                            hops.push(d);
                        }
                    }
                    let idx = (s - hosts) as usize * leaves as usize + leaf as usize;
                    span[idx] = (off, hops.len() as u32 - off);
                }
            }
        }
        Routes {
            hosts,
            leaves,
            span,
            hops,
        }
    }

    /// Directions out of switch `node` one hop closer to leaf `leaf` (of the switch's plane); empty if the leaf
    /// is unreachable or `node` is that leaf.
    #[inline]
    pub fn next_hops(&self, node: u32, leaf: u32) -> &[u32] {
        let idx = (node - self.hosts) as usize * self.leaves as usize + leaf as usize;
        match self.span.get(idx) {
            Some(&(off, cnt)) => self
                .hops
                .get(off as usize..(off + cnt) as usize)
                .unwrap_or(&[]),
            None => &[],
        }
    }
}
