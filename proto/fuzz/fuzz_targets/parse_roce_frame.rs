//! Fuzz target `parse_roce_frame`: the body lives in `metaroce_proto::harness::fuzz::parse_roce_frame` (shared with the stable replay
//! test `proto/tests/fuzz_replay.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    metaroce_proto::harness::fuzz::parse_roce_frame(data);
});
