//! Seed handling shared by the harness test files.
#![allow(dead_code)]

use metaroce_proto::harness::rng::splitmix64;
use metaroce_proto::harness::scenario::Outcome;

/// FNV-1a of a name: the default seed base of a scenario, so default runs are reproducible.
fn name_hash(name: &str) -> u64 {
    let mut h = 0xCBF2_9CE4_8422_2325u64;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

/// The seeds to run for scenario `name`: `METAROCE_SEED=s` -> just `s`; `METAROCE_SEEDS=n` -> `n` seeds from
/// `METAROCE_SEED_BASE` (or the clock); otherwise `default_n` fixed seeds derived from the name.
pub fn seeds_for(name: &str, default_n: usize) -> Vec<u64> {
    if let Some(s) = std::env::var("METAROCE_SEED")
        .ok()
        .and_then(|v| parse_u64(&v))
    {
        return vec![s];
    }
    let (n, mut base) = match std::env::var("METAROCE_SEEDS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        Some(n) => {
            let base = std::env::var("METAROCE_SEED_BASE")
                .ok()
                .and_then(|v| parse_u64(&v))
                .unwrap_or_else(|| {
                    std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map(|d| d.as_nanos() as u64)
                        .unwrap_or(1)
                });
            (n, base ^ name_hash(name))
        }
        None => (default_n, name_hash(name)),
    };
    (0..n)
        .map(|_| splitmix64(&mut base) & 0xFFFF_FFFF_FFFF)
        .collect()
}

/// Parses a decimal or `0x` hexadecimal u64.
pub fn parse_u64(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// Runs `f` for every seed of scenario `name`, printing the seed first and a one-line summary after, and
/// fails with the seed on the first failing run.
pub fn run_seeds(name: &str, default_n: usize, f: impl Fn(u64) -> Outcome) {
    for seed in seeds_for(name, default_n) {
        println!("{name}: seed {seed} (replay: METAROCE_SEED={seed})");
        let out = f(seed);
        out.assert_ok(name);
        println!(
            "{name}: seed {seed} ok: {} msgs, {} B, {} ns virtual, trace {:016x}, {} steps ({} stuck timers), links a->b {:?}",
            out.messages,
            out.payload_bytes,
            out.end_ns - out.start_ns,
            out.trace_hash,
            out.pair.steps,
            out.pair.stuck_timers,
            out.links.0
        );
    }
}
