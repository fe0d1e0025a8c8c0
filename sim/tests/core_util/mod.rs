//! Helpers shared by the core tests: small configurations and a workload that starts a fixed list of flows.
#![allow(dead_code)]

use metaroce_sim::config::*;
use metaroce_sim::flow::{Actions, FlowClass, FlowRecord, FlowSpec, Workload};

/// 100 Gb/s, 1 us tiers.
pub fn tier(gbps: u64, latency_ns: u64) -> Tier {
    Tier {
        rate_bps: gbps * 1_000_000_000,
        latency_ns,
    }
}

/// A leaf-spine of `leaves` x `hpl` hosts with `spines` spines at 100G / 1 us.
pub fn leaf_spine(leaves: u32, hpl: u32, spines: u32) -> TopologySpec {
    TopologySpec::LeafSpine {
        leaves,
        hosts_per_leaf: hpl,
        spines,
        uplinks_per_spine: 1,
        planes: 1,
        host: tier(100, 1000),
        fabric: tier(100, 1000),
    }
}

/// A MetaRoCE configuration over `topology` with 4 KiB MTU, 1 MiB buffers, trimming on.
pub fn config(topology: TopologySpec) -> SimConfig {
    SimConfig {
        topology,
        transport: TransportSpec::new(Transport::MetaRoce),
        switch: SwitchConfig::default(),
        faults: Vec::new(),
        seed: 1,
        stop_at_ns: Some(1_000_000_000),
        verify_data: false,
        pcap: None,
    }
}

/// The same for the RoCEv2 baseline (no trimming).
pub fn rocev2(topology: TopologySpec) -> SimConfig {
    let mut c = config(topology);
    c.transport.kind = Transport::RoceV2;
    c.switch.trimming = false;
    c
}

/// Starts a fixed list of (time, flow) at once; done when every flow completed.
#[derive(Debug, Default)]
pub struct ListWorkload {
    pub flows: Vec<(u64, FlowSpec)>,
    pub done: usize,
}

impl ListWorkload {
    /// Flows of `bytes` for every (src, dst) in `pairs`, all at time 0.
    pub fn pairs(pairs: &[(u32, u32)], bytes: u64) -> ListWorkload {
        ListWorkload {
            flows: pairs
                .iter()
                .map(|&(src, dst)| {
                    (
                        0,
                        FlowSpec {
                            src,
                            dst,
                            bytes,
                            class: FlowClass::Collective,
                            tag: 0,
                        },
                    )
                })
                .collect(),
            done: 0,
        }
    }

    /// All-to-all among `hosts` hosts, `bytes` per ordered pair.
    pub fn all_to_all(hosts: u32, bytes: u64) -> ListWorkload {
        let pairs: Vec<(u32, u32)> = (0..hosts)
            .flat_map(|s| (0..hosts).filter(move |&d| d != s).map(move |d| (s, d)))
            .collect();
        ListWorkload::pairs(&pairs, bytes)
    }
}

impl Workload for ListWorkload {
    fn name(&self) -> String {
        "list".into()
    }
    fn start(&mut self, act: &mut Actions) {
        for &(t, f) in &self.flows {
            act.start_flow(t, f);
        }
    }
    fn on_flow_done(&mut self, _now_ns: u64, _flow: &FlowRecord, _act: &mut Actions) {
        self.done += 1;
    }
    fn is_done(&self) -> bool {
        self.done == self.flows.len()
    }
}
