//! Test harness: two endpoints over a lossy multipath link model on a virtual clock (feature `harness`).
//!
//! * [`rng`]: seeded splitmix64 / xoshiro256** (no dependencies).
//! * [`link`]: one link direction: line-rate serialization, ECMP paths with their own delays, loss,
//!   duplication, corruption, jitter, trimming, ECN marking, bounded queues, link down/up.
//! * [`pair`]: two endpoints + two links + a virtual clock, stepping from event to event, with a trace hash.
//! * [`workload`]: seeded message mixes over registered regions with guard gaps, with a shadow of the memory.
//! * [`verify`]: a write-recording memory and the end-of-run checks (completions, memory, placement).
//! * [`scenario`]: one complete, checked run from a config and a seed.
//! * [`memory`]: a memory that copies nothing (benchmarks).
//! * [`fuzz`]: the fuzz target bodies and their seed corpus (shared by `proto/fuzz` and the replay test).
//! * [`packets`]: random packets of every type for the hardware's parser and frame-builder tests.

pub mod fuzz;
pub mod link;
pub mod memory;
pub mod packets;
pub mod pair;
pub mod rng;
pub mod scenario;
pub mod verify;
pub mod workload;
