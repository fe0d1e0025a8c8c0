//! `all-to-all`: every ordered pair of the first N hosts, with an optional per-host concurrency limit.

use crate::config::HostId;
use crate::flow::{Actions, FlowClass, FlowRecord, FlowSpec, Workload};

/// Host `h` sends `bytes` to every other participant in the rotated order `h+1, h+2, ...` (modulo N), at most
/// `concurrency` at once (the next peer starts when one of its flows completes); the flow's tag is the peer's
/// offset `1..N`. Done when all `N(N-1)` flows have completed.
pub struct AllToAll {
    n: u32,
    bytes: u64,
    concurrency: u32,
    class: FlowClass,
    /// Next offset (1..n) each host starts.
    next: Vec<u32>,
    left: u64,
}

impl AllToAll {
    /// An all-to-all among hosts `0..n`; `concurrency` None means all peers at once.
    pub fn new(n: u32, bytes: u64, concurrency: Option<u32>, class: FlowClass) -> AllToAll {
        let peers = n.saturating_sub(1);
        AllToAll {
            n,
            bytes: bytes.max(1),
            concurrency: concurrency.unwrap_or(peers).clamp(1, peers.max(1)),
            class,
            next: vec![1; n as usize],
            left: u64::from(n) * u64::from(peers),
        }
    }

    fn start_next(&mut self, now_ns: u64, src: HostId, act: &mut Actions) {
        let Some(off) = self.next.get_mut(src as usize) else {
            return;
        };
        if *off >= self.n {
            return;
        }
        let tag = *off;
        *off += 1;
        act.start_flow(
            now_ns,
            FlowSpec {
                src,
                dst: (src + tag) % self.n,
                bytes: self.bytes,
                class: self.class,
                tag,
            },
        );
    }
}

impl Workload for AllToAll {
    fn name(&self) -> String {
        format!("all-to-all {} hosts x {} B", self.n, self.bytes)
    }

    fn start(&mut self, act: &mut Actions) {
        if self.n < 2 {
            return;
        }
        // Round-robin over hosts so that every host's first flows are posted before anyone's later ones.
        for _ in 0..self.concurrency {
            for src in 0..self.n {
                self.start_next(0, src, act);
            }
        }
    }

    fn on_flow_done(&mut self, now_ns: u64, flow: &FlowRecord, act: &mut Actions) {
        self.left = self.left.saturating_sub(1);
        self.start_next(now_ns, flow.spec.src, act);
    }

    fn is_done(&self) -> bool {
        self.left == 0
    }
}
