//! Co-simulation speed: clock cycles per second of the whole `metaroce_core` in Verilator, bare (inputs held)
//! and inside a [`CoreBench`] with every agent (register master, host memory, MAC streams, monitors) serviced
//! each cycle. Two cores moving data are measured by `metaroce demo`'s own report (docs/benchmarks.md).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use metaroce_sim::cosim::core::{core_model, cosim_config, BenchTiming, CoreBench};

const CYCLES: u64 = 10_000;

fn cosim(c: &mut Criterion) {
    let cfg = cosim_config();
    let kind = core_model(&cfg, false).unwrap_or_else(|e| panic!("{e}"));
    let mut g = c.benchmark_group("cosim_core");
    g.throughput(Throughput::Elements(CYCLES));
    g.sample_size(10);
    let mut bare = kind.instance();
    g.bench_function("model_cycles_idle", |b| b.iter(|| bare.steps(CYCLES)));
    let mut bench =
        CoreBench::new(&kind, &cfg, BenchTiming::default(), 1).unwrap_or_else(|e| panic!("{e}"));
    g.bench_function("bench_cycles_idle", |b| {
        b.iter(|| bench.run(CYCLES).unwrap_or_else(|e| panic!("{e}")))
    });
    g.finish();
}

criterion_group!(benches, cosim);
criterion_main!(benches);
