//! Random MetaRoCE packets for the parser and frame-builder tests: the harness's generator
//! (`metaroce_proto::harness::packets`), addressed to or from the block's test configuration.

use super::Rng;
pub use metaroce_proto::harness::packets::Dir;
use metaroce_proto::harness::packets::{self, TEST_LOCAL};
use metaroce_proto::wire::{MetaRoceRepr, L2L3};

/// Our MAC address.
pub const MAC: [u8; 6] = TEST_LOCAL.mac;
/// The trim DSCP.
pub const TRIM: u8 = TEST_LOCAL.trim_dscp;
/// Our IPv4 address.
pub const IP4: [u8; 4] = TEST_LOCAL.ip4;
/// Our IPv6 address.
pub const IP6: [u8; 16] = TEST_LOCAL.ip6;
/// The builder's TTL / hop limit.
pub const TTL: u8 = TEST_LOCAL.ttl;
/// The MetaRoCE UDP port.
pub const PORT: u16 = TEST_LOCAL.port;

/// A random MetaRoCE packet of every type (payload up to `max_pay` bytes), addressed as `dir` says (see
/// `metaroce_proto::harness::packets::random_packet`), drawn from a generator seeded by `r`.
pub fn random_packet(r: &mut Rng, max_pay: usize, dir: Dir) -> (L2L3, MetaRoceRepr, Vec<u8>) {
    let mut g = metaroce_proto::harness::rng::Rng::new(r.next());
    packets::random_packet(&mut g, &TEST_LOCAL, max_pay, dir)
}
