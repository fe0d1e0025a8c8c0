//! Stable-Rust replay of the fuzz targets (`proto/fuzz/`): every file of the committed seed corpus
//! (`proto/fuzz/corpus/<target>/`), the in-memory seed corpus, and a bounded, seeded mutation loop.
//!
//! `METAROCE_FUZZ_SEED=s` replays one mutation seed, `METAROCE_FUZZ_ITERS=n` sets the iterations per target
//! (default 5000 for the parsers, 1000 for `endpoint_sequence`). `METAROCE_WRITE_CORPUS=1` (re)writes the seed
//! corpus files from the wire emitters.
#![cfg(feature = "harness")]

use std::path::PathBuf;

use metaroce_proto::harness::fuzz::{mutate, run_target, seed_corpus, TARGETS};
use metaroce_proto::harness::rng::Rng;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join("corpus")
}

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    let v = v.trim();
    match v.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => v.parse().ok(),
    }
}

/// The committed corpus plus the generated one, per target.
fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = seed_corpus()
        .into_iter()
        .filter(|(t, _, _)| *t == target)
        .map(|(_, n, d)| (format!("generated/{n}"), d))
        .collect();
    if let Ok(rd) = std::fs::read_dir(corpus_dir().join(target)) {
        let mut files: Vec<_> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        files.sort();
        for p in files {
            if let Ok(d) = std::fs::read(&p) {
                v.push((p.display().to_string(), d));
            }
        }
    }
    v
}

#[test]
fn write_seed_corpus_if_asked() {
    if std::env::var("METAROCE_WRITE_CORPUS").is_err() {
        return;
    }
    for (t, name, data) in seed_corpus() {
        let dir = corpus_dir().join(t);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join(name), data).expect("write");
    }
}

#[test]
fn committed_corpus_is_present_for_every_target() {
    for t in TARGETS {
        let n = std::fs::read_dir(corpus_dir().join(t))
            .map(|r| r.count())
            .unwrap_or(0);
        assert!(
            n > 0,
            "no seed corpus files for target {t} in {}",
            corpus_dir().display()
        );
    }
}

fn replay_target(target: &str, default_iters: u64) {
    let inputs = inputs(target);
    assert!(!inputs.is_empty(), "no inputs for {target}");
    for (name, data) in &inputs {
        let r = std::panic::catch_unwind(|| run_target(target, data));
        assert!(r.is_ok(), "{target}: corpus input {name} panicked");
    }
    let iters = env_u64("METAROCE_FUZZ_ITERS").unwrap_or(default_iters);
    let seeds: Vec<u64> = match env_u64("METAROCE_FUZZ_SEED") {
        Some(s) => vec![s],
        None => (0..iters).map(|i| 0x5EED_0000 + i).collect(),
    };
    println!(
        "{target}: {} corpus inputs, {} mutation seeds (first {:#x}; replay one with METAROCE_FUZZ_SEED)",
        inputs.len(),
        seeds.len(),
        seeds.first().copied().unwrap_or(0)
    );
    for seed in seeds {
        let mut rng = Rng::new(seed ^ target.len() as u64);
        let a = &inputs[rng.below(inputs.len() as u64) as usize].1;
        let b = &inputs[rng.below(inputs.len() as u64) as usize].1;
        let m = mutate(&mut rng, a, b);
        let r = std::panic::catch_unwind(|| run_target(target, &m));
        assert!(
            r.is_ok(),
            "{target}: mutation seed {seed:#x} panicked (replay: METAROCE_FUZZ_SEED={seed:#x}); input {m:02x?}"
        );
    }
}

#[test]
fn fuzz_replay_parse_frame() {
    replay_target("parse_frame", 5000);
}

#[test]
fn fuzz_replay_parse_roce_frame() {
    replay_target("parse_roce_frame", 5000);
}

#[test]
fn fuzz_replay_headers() {
    replay_target("headers", 5000);
}

#[test]
fn fuzz_replay_endpoint_sequence() {
    replay_target("endpoint_sequence", 1000);
}
