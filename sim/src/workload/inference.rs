//! `inference`: latency-sensitive messages with Poisson arrivals, measured by their completion times.

use super::{Rng, SizeDist};
use crate::config::HostId;
use crate::flow::{Actions, FlowClass, FlowRecord, Workload};

/// Every host sends `messages` messages, with exponential inter-arrival times of mean `1 / rate` to uniformly
/// random other hosts, sizes from `sizes`. Each host draws from its own generator. Done (when measured) once
/// every message has completed; as a background workload it never ends the run.
pub struct Inference {
    hosts: u32,
    messages: u32,
    per_us: f64,
    sizes: SizeDist,
    rngs: Vec<Rng>,
    sent: Vec<u32>,
    class: FlowClass,
    left: u64,
    measured: bool,
}

impl Inference {
    /// `messages` per host at `per_us` messages per microsecond per host.
    pub fn new(
        hosts: u32,
        messages: u32,
        per_us: f64,
        sizes: SizeDist,
        seed: u64,
        class: FlowClass,
        measured: bool,
    ) -> Inference {
        let active = hosts >= 2 && per_us > 0.0 && per_us.is_finite();
        Inference {
            hosts,
            messages,
            per_us,
            sizes,
            rngs: (0..hosts)
                .map(|h| Rng::new(super::component_seed(seed, u64::from(h))))
                .collect(),
            sent: vec![0; hosts as usize],
            class,
            left: if active {
                u64::from(hosts) * u64::from(messages)
            } else {
                0
            },
            measured,
        }
    }

    fn arm(&mut self, now_ns: u64, h: HostId, act: &mut Actions) {
        if self.sent[h as usize] < self.messages {
            let gap = self.rngs[h as usize].exp_ns(1_000.0 / self.per_us);
            act.set_timer(now_ns.saturating_add(gap), u64::from(h));
        }
    }
}

impl Workload for Inference {
    fn name(&self) -> String {
        format!(
            "inference {} msgs/host at {:.3}/us",
            self.messages, self.per_us
        )
    }

    fn start(&mut self, act: &mut Actions) {
        if self.left == 0 {
            return;
        }
        for h in 0..self.hosts {
            self.arm(0, h, act);
        }
    }

    fn on_flow_done(&mut self, _now_ns: u64, _flow: &FlowRecord, _act: &mut Actions) {
        self.left = self.left.saturating_sub(1);
    }

    fn on_timer(&mut self, now_ns: u64, token: u64, act: &mut Actions) {
        if token >= u64::from(self.hosts) {
            return;
        }
        let h = token as HostId;
        let tag = self.sent[h as usize] % super::TAG_LIMIT;
        let flow = self.rngs[h as usize].random_flow(self.hosts, h, &self.sizes, self.class, tag);
        act.start_flow(now_ns, flow);
        self.sent[h as usize] += 1;
        self.arm(now_ns, h, act);
    }

    fn is_done(&self) -> bool {
        self.measured && self.left == 0
    }
}
