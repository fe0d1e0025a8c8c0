//! `permutation`: every host sends one flow to one other host along a seeded derangement.

use super::Rng;
use crate::config::HostId;
use crate::flow::{Actions, FlowClass, FlowRecord, FlowSpec, Workload};

/// A seeded random derangement of `0..n` (no fixed point; `n >= 2`): a Fisher-Yates shuffle, redrawn until it
/// has no fixed point (about e draws on average). For `n < 2` the identity.
pub fn derangement(n: u32, seed: u64) -> Vec<HostId> {
    let mut rng = Rng::new(seed);
    let mut p: Vec<HostId> = (0..n).collect();
    if n < 2 {
        return p;
    }
    loop {
        for i in (1..n as usize).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            p.swap(i, j);
        }
        if p.iter().enumerate().all(|(i, &d)| i as u32 != d) {
            return p;
        }
    }
}

/// Host `h` sends `bytes` to `dst[h]`; done when every flow has completed.
pub struct Permutation {
    dst: Vec<HostId>,
    bytes: u64,
    class: FlowClass,
    left: usize,
}

impl Permutation {
    /// A permutation of `hosts` hosts drawn from `seed`.
    pub fn new(hosts: u32, bytes: u64, seed: u64, class: FlowClass) -> Permutation {
        let dst = derangement(hosts, seed);
        Permutation {
            left: if hosts < 2 { 0 } else { dst.len() },
            dst,
            bytes: bytes.max(1),
            class,
        }
    }

    /// The destination of every host.
    pub fn destinations(&self) -> &[HostId] {
        &self.dst
    }
}

impl Workload for Permutation {
    fn name(&self) -> String {
        format!("permutation {} hosts x {} B", self.dst.len(), self.bytes)
    }

    fn start(&mut self, act: &mut Actions) {
        if self.left == 0 {
            return;
        }
        for (src, &dst) in self.dst.iter().enumerate() {
            act.start_flow(
                0,
                FlowSpec {
                    src: src as HostId,
                    dst,
                    bytes: self.bytes,
                    class: self.class,
                    tag: 0,
                },
            );
        }
    }

    fn on_flow_done(&mut self, _now_ns: u64, _flow: &FlowRecord, _act: &mut Actions) {
        self.left = self.left.saturating_sub(1);
    }

    fn is_done(&self) -> bool {
        self.left == 0
    }
}
