//! `ring-allreduce`: reduce-scatter then all-gather around one or more rings, as dependent steps.

use crate::config::HostId;
use crate::flow::{Actions, FlowClass, FlowRecord, FlowSpec, Workload};

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The strides of up to `rings` rings over `n` hosts: integers coprime with `n` (so each ring visits every host)
/// in the order 1, n-1, 2, 3, ... without repeats. Ring `r` sends from host `h` to `(h + strides[r]) % n`.
pub fn strides(n: u32, rings: u32) -> Vec<u32> {
    let mut out = Vec::new();
    if n < 2 {
        return out;
    }
    let push = |s: u32, out: &mut Vec<u32>| {
        if out.len() < rings as usize && s >= 1 && s < n && gcd(s, n) == 1 && !out.contains(&s) {
            out.push(s);
        }
    };
    push(1, &mut out);
    push(n - 1, &mut out);
    let mut s = 2;
    while out.len() < rings as usize && s < n - 1 {
        push(s, &mut out);
        s += 1;
    }
    out
}

/// Bytes of one step's chunk: the buffer split over `n` hosts and `rings` rings (at least 1).
pub fn chunk_bytes(bytes: u64, n: u32, rings: u32) -> u64 {
    (bytes / (u64::from(n.max(1)) * u64::from(rings.max(1)))).max(1)
}

/// Ring all-reduce over `n` hosts: on each ring, `2(N-1)` steps; in step `k` host `h` sends one chunk to its
/// successor. Host `h` starts step `k+1` once (a) its own step-`k` flow has completed and (b) its predecessor's
/// step-`k` flow (the chunk `h` reduces or forwards next) has completed at its sender. Tags are
/// `ring << 16 | step`. Done when every host has completed every step on every ring.
pub struct RingAllreduce {
    n: u32,
    bytes: u64,
    chunk: u64,
    strides: Vec<u32>,
    steps: u32,
    class: FlowClass,
    /// Steps completed (send acknowledged), per ring and host.
    sent: Vec<Vec<u32>>,
    /// Steps started, per ring and host.
    started: Vec<Vec<u32>>,
    left: u64,
}

impl RingAllreduce {
    /// A ring all-reduce of a `bytes` buffer over `n` hosts with `rings` parallel rings (clamped to what `n`
    /// allows, at least 1).
    pub fn new(n: u32, bytes: u64, rings: u32, class: FlowClass) -> RingAllreduce {
        let strides = strides(n, rings.max(1));
        let r = strides.len();
        let steps = 2 * n.saturating_sub(1);
        RingAllreduce {
            n,
            bytes,
            chunk: chunk_bytes(bytes, n, r as u32),
            steps,
            class,
            sent: vec![vec![0; n as usize]; r],
            started: vec![vec![0; n as usize]; r],
            left: r as u64 * u64::from(n) * u64::from(steps),
            strides,
        }
    }

    /// Bytes per step and host.
    pub fn chunk(&self) -> u64 {
        self.chunk
    }

    /// Steps per ring (`2(N-1)`).
    pub fn steps(&self) -> u32 {
        self.steps
    }

    /// Starts host `h`'s next step on ring `r` if its conditions hold.
    fn try_start(&mut self, now_ns: u64, r: usize, h: u32, act: &mut Actions) {
        let n = self.n;
        let stride = self.strides[r];
        let pred = (h + n - stride) % n;
        let k = self.started[r][h as usize];
        if k >= self.steps || self.sent[r][h as usize] < k || self.sent[r][pred as usize] < k {
            return;
        }
        self.started[r][h as usize] = k + 1;
        act.start_flow(
            now_ns,
            FlowSpec {
                src: h,
                dst: (h + stride) % n,
                bytes: self.chunk,
                class: self.class,
                tag: ((r as u32) << 16) | k,
            },
        );
    }
}

impl Workload for RingAllreduce {
    fn name(&self) -> String {
        format!(
            "ring-allreduce {} hosts x {} B, {} ring(s)",
            self.n,
            self.bytes,
            self.strides.len()
        )
    }

    fn start(&mut self, act: &mut Actions) {
        for r in 0..self.strides.len() {
            for h in 0..self.n {
                self.try_start(0, r, h, act);
            }
        }
    }

    fn on_flow_done(&mut self, now_ns: u64, flow: &FlowRecord, act: &mut Actions) {
        let r = (flow.spec.tag >> 16) as usize;
        let h = flow.spec.src;
        if r >= self.strides.len() || h >= self.n {
            return;
        }
        self.sent[r][h as usize] += 1;
        self.left = self.left.saturating_sub(1);
        let succ: HostId = (h + self.strides[r]) % self.n;
        self.try_start(now_ns, r, h, act);
        self.try_start(now_ns, r, succ, act);
    }

    fn is_done(&self) -> bool {
        self.left == 0
    }
}
