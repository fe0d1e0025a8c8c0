//! Simulator throughput: packet hops per second of a fabric-heavy run (a 3-tier fat tree where most packets
//! cross five switches) and events per second of a full protocol run (an all-to-all on a leaf-spine), plus
//! memory per host and per connection measured from the process's resident size.
//!
//! `cargo bench -p metaroce-sim --bench fabric`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use metaroce_sim::config::*;
use metaroce_sim::fabric::{rss_bytes, Simulator};
use metaroce_sim::flow::{Actions, FlowClass, FlowRecord, FlowSpec, Workload};
use metaroce_sim::results::RunResults;

fn tier(gbps: u64, latency_ns: u64) -> Tier {
    Tier {
        rate_bps: gbps * 1_000_000_000,
        latency_ns,
    }
}

fn config(topology: TopologySpec) -> SimConfig {
    SimConfig {
        topology,
        transport: TransportSpec {
            window_log2: Some(8),
            ..TransportSpec::new(Transport::MetaRoce)
        },
        switch: SwitchConfig {
            ecn: Some(EcnConfig {
                kmin_bytes: 100_000,
                kmax_bytes: 400_000,
                pmax_percent: 20,
            }),
            ..SwitchConfig::default()
        },
        faults: Vec::new(),
        seed: 1,
        stop_at_ns: None,
        verify_data: false,
        pcap: None,
    }
}

struct Flows {
    flows: Vec<FlowSpec>,
    done: usize,
}

impl Flows {
    fn new(pairs: impl Iterator<Item = (u32, u32)>, bytes: u64) -> Flows {
        Flows {
            flows: pairs
                .map(|(src, dst)| FlowSpec {
                    src,
                    dst,
                    bytes,
                    class: FlowClass::Collective,
                    tag: 0,
                })
                .collect(),
            done: 0,
        }
    }
}

impl Workload for Flows {
    fn name(&self) -> String {
        "bench".into()
    }
    fn start(&mut self, act: &mut Actions) {
        for f in &self.flows {
            act.start_flow(0, *f);
        }
    }
    fn on_flow_done(&mut self, _: u64, _: &FlowRecord, _: &mut Actions) {
        self.done += 1;
    }
    fn is_done(&self) -> bool {
        self.done == self.flows.len()
    }
}

fn fat_tree_run() -> RunResults {
    let cfg = config(TopologySpec::FatTree {
        k: 4,
        planes: 1,
        host: tier(100, 500),
        fabric: tier(100, 500),
        core: tier(100, 500),
    });
    let mut sim = Simulator::new(cfg).expect("valid");
    // Host h sends to h + 8: every packet crosses the core (5 switches, 6 links).
    let mut wl = Flows::new((0..16).map(|h| (h, (h + 8) % 16)), 1 << 20);
    sim.run(&mut wl, &mut |_| {})
}

fn all_to_all_run() -> RunResults {
    let cfg = config(TopologySpec::LeafSpine {
        leaves: 4,
        hosts_per_leaf: 8,
        spines: 4,
        uplinks_per_spine: 1,
        planes: 1,
        host: tier(100, 500),
        fabric: tier(100, 500),
    });
    let mut sim = Simulator::new(cfg).expect("valid");
    let pairs = (0..32u32).flat_map(|s| (0..32).filter(move |&d| d != s).map(move |d| (s, d)));
    let mut wl = Flows::new(pairs, 64 * 1024);
    sim.run(&mut wl, &mut |_| {})
}

/// Resident bytes added by building `hosts` NICs, and by opening connections among them (1-byte flows).
fn memory_report() {
    let hosts = 256u32;
    let before = rss_bytes().unwrap_or(0);
    let cfg = config(TopologySpec::LeafSpine {
        leaves: hosts / 16,
        hosts_per_leaf: 16,
        spines: 16,
        uplinks_per_spine: 1,
        planes: 1,
        host: tier(100, 500),
        fabric: tier(100, 500),
    });
    let mut sim = Simulator::new(cfg).expect("valid");
    let built = rss_bytes().unwrap_or(0);
    let pairs = (0..hosts).flat_map(|s| (0..hosts).filter(move |&d| d > s).map(move |d| (s, d)));
    let mut wl = Flows::new(pairs, 1);
    let r = sim.run(&mut wl, &mut |_| {});
    let after = rss_bytes().unwrap_or(0);
    println!(
        "memory: {} bytes per host ({hosts} hosts), {} bytes per QP ({} QPs, window 2^8, both sides counted)",
        built.saturating_sub(before) / u64::from(hosts),
        after.saturating_sub(built) / r.qps.max(1),
        r.qps
    );
}

fn bench(c: &mut Criterion) {
    memory_report();
    let probe = fat_tree_run();
    assert!(probe.finished);
    let mut g = c.benchmark_group("fabric");
    g.sample_size(10);
    g.throughput(Throughput::Elements(probe.packet_hops));
    g.bench_function("fat_tree_permutation_packet_hops", |b| {
        b.iter(|| fat_tree_run().packet_hops)
    });
    let probe = all_to_all_run();
    assert!(probe.finished);
    g.throughput(Throughput::Elements(probe.events));
    g.bench_function("leaf_spine_all_to_all_events", |b| {
        b.iter(|| all_to_all_run().events)
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
