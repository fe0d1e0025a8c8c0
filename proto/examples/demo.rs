//! Placeholder until the demo lands.
fn main() {}
