//! The demonstration's scenario on two reference-model endpoints (`cosim::model_twin`): the messages of
//! `demo::plan` all complete, in order and successfully, every target is byte-exact, and the goodput is
//! measured. Pure model: no Verilator needed. `METAROCE_SEED` replaces the scenarios' seeds.

use metaroce_sim::cosim::demo::{plan, DemoConfig};
use metaroce_sim::cosim::model_twin::{run_model, ModelReport};

fn seed_or(default: u64) -> u64 {
    std::env::var("METAROCE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Runs `cfg` on the model and checks everything the demonstration checks, plus that the plan was run as
/// planned (MR-SEM-24: send completions in order; MR-REL-10: every byte placed exactly once).
fn run_checked(name: &str, cfg: &DemoConfig) -> ModelReport {
    println!("{name}: seed {} (replay with METAROCE_SEED)", cfg.seed);
    let r = run_model(cfg).unwrap_or_else(|e| panic!("{name} (seed {}): {e}", cfg.seed));
    println!(
        "{name}: {} messages, {} bytes in {} ns ({} cycles): {:.1} bytes/cycle, {:.1} Gb/s; \
         retransmissions {} of {} DATA packets, {} frames lost; latency median {} ns / p99 {} ns",
        r.messages,
        r.bytes,
        r.ns,
        r.cycles(),
        r.bytes_per_cycle(),
        r.gbps(),
        r.retransmissions,
        r.data_packets,
        r.link_lost,
        r.latency_ns(0.5),
        r.latency_ns(0.99),
    );
    assert!(
        r.passed(),
        "{name} (seed {}): {} corrupt, {} strays, {} bad completions, first {:?}",
        cfg.seed,
        r.corrupt,
        r.strays,
        r.bad_completions,
        r.first_bad
    );
    let want = plan(cfg);
    assert_eq!(want.len(), cfg.messages);
    assert_eq!(r.messages, want.len(), "{name}: messages completed");
    assert_eq!(r.completed, want, "{name}: the plan, in completion order");
    let bytes: u64 = want.iter().map(|&(_, len)| u64::from(len)).sum();
    assert_eq!(r.bytes, bytes, "{name}: message bytes");
    assert_eq!(r.target_bytes[0] + r.target_bytes[1], bytes);
    assert_eq!(
        r.rx_payload_bytes, r.target_bytes,
        "{name}: bytes placed exactly once"
    );
    assert_eq!(r.latencies_ns.len(), r.messages);
    assert!(r.ns > 0 && r.bytes_per_cycle() > 0.0 && r.gbps() > 0.0);
    // The demonstration's retransmission count (DATA packets beyond each message's own) is the model's own
    // count of retransmissions, every cause (MR-REL-34..39).
    assert_eq!(
        r.retransmissions,
        r.stats[0].retransmits.total(),
        "{name}: {:?}",
        r.stats[0].retransmits
    );
    r
}

#[test]
fn demo_default_scenario_on_the_model_is_byte_exact() {
    let cfg = DemoConfig {
        seed: seed_or(1),
        ..DemoConfig::default()
    };
    let r = run_checked("default", &cfg);
    // Deterministic: the same seed gives the same run.
    let again = run_model(&cfg).expect("second run");
    assert_eq!(
        (again.ns, again.data_packets, again.latencies_ns),
        (r.ns, r.data_packets, r.latencies_ns)
    );
}

#[test]
fn demo_scenario_at_1_percent_loss_on_the_model_recovers_byte_exact() {
    let cfg = DemoConfig {
        loss_ppm: 10_000,
        messages: 200,
        seed: seed_or(2),
        mix: [1, 1, 1, 2],
        ..DemoConfig::default()
    };
    let r = run_checked("1% loss", &cfg);
    assert!(r.link_lost > 0, "1% loss lost no frame");
}
