//! `uniform-random`: open-loop Poisson background traffic between random host pairs.

use super::{Rng, SizeDist};
use crate::config::HostId;
use crate::flow::{Actions, FlowClass, FlowRecord, Workload};

/// Every host starts flows with exponential inter-arrival times of mean `8 * mean_size / (load * rate)` to a
/// uniformly random other host, until `until_ns`. Each host draws from its own generator (seeded from the
/// workload seed and the host id), so arrivals do not depend on the transport. The timer token is the host id.
pub struct UniformRandom {
    hosts: u32,
    load_percent: f64,
    sizes: SizeDist,
    mean_gap_ns: f64,
    until_ns: u64,
    rngs: Vec<Rng>,
    class: FlowClass,
    outstanding: u64,
    generating: u32,
}

impl UniformRandom {
    /// Traffic at `load_percent` of `host_rate_bps`; arrivals stop at `until_ns` (None: never).
    pub fn new(
        hosts: u32,
        host_rate_bps: u64,
        load_percent: f64,
        sizes: SizeDist,
        until_ns: Option<u64>,
        seed: u64,
        class: FlowClass,
    ) -> UniformRandom {
        let bytes_per_ns = host_rate_bps as f64 * (load_percent / 100.0) / 8.0 / 1e9;
        let mean_gap_ns = if bytes_per_ns > 0.0 {
            sizes.mean() / bytes_per_ns
        } else {
            f64::INFINITY
        };
        UniformRandom {
            hosts,
            load_percent,
            sizes,
            mean_gap_ns,
            until_ns: until_ns.unwrap_or(u64::MAX),
            rngs: (0..hosts)
                .map(|h| Rng::new(super::component_seed(seed, u64::from(h))))
                .collect(),
            class,
            outstanding: 0,
            generating: if hosts >= 2 && mean_gap_ns.is_finite() {
                hosts
            } else {
                0
            },
        }
    }

    fn arm(&mut self, now_ns: u64, h: HostId, act: &mut Actions) {
        let rng = &mut self.rngs[h as usize];
        let at = now_ns.saturating_add(rng.exp_ns(self.mean_gap_ns));
        if at < self.until_ns {
            act.set_timer(at, u64::from(h));
        } else {
            self.generating = self.generating.saturating_sub(1);
        }
    }
}

impl Workload for UniformRandom {
    fn name(&self) -> String {
        format!("uniform-random {}% load", self.load_percent)
    }

    fn start(&mut self, act: &mut Actions) {
        if self.generating == 0 {
            return;
        }
        for h in 0..self.hosts {
            self.arm(0, h, act);
        }
    }

    fn on_flow_done(&mut self, _now_ns: u64, _flow: &FlowRecord, _act: &mut Actions) {
        self.outstanding = self.outstanding.saturating_sub(1);
    }

    fn on_timer(&mut self, now_ns: u64, token: u64, act: &mut Actions) {
        let h = token as HostId;
        if token >= u64::from(self.hosts) {
            return;
        }
        let tag = 0;
        let flow = self.rngs[h as usize].random_flow(self.hosts, h, &self.sizes, self.class, tag);
        act.start_flow(now_ns, flow);
        self.outstanding += 1;
        self.arm(now_ns, h, act);
    }

    fn is_done(&self) -> bool {
        self.generating == 0 && self.outstanding == 0
    }
}
