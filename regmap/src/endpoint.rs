//! The endpoint block: the local endpoint's addresses and the transport parameters that spec section 10 makes
//! per-endpoint configuration (addresses, UDP port, DSCP classes, TTL, line rate and base RTT for NSCC, the
//! delay target, the RTO bounds, the retry limit, the reordering distance, the ACK ratio and delay, the MTU)
//! and the core's clock period for its nanosecond time base. The firmware writes them once at start-up; the
//! hardware reads them continuously. The reset values are the reference model's defaults (checked by the HDL
//! crate's tests against `metaroce_proto::transport::Config::default()`).

use crate::block::{type_reg, version, version_reg, BlockLayout, BlockType, NEXT_REG};
use crate::field::{Access, Register};

/// Register offsets of the endpoint block.
pub mod reg {
    /// `MAC_HI`: bytes 0..2 of the MAC address (byte 0 in bits 15..8).
    pub const MAC_HI: u32 = 0x0C;
    /// `MAC_LO`: bytes 2..6 of the MAC address (byte 2 in bits 31..24).
    pub const MAC_LO: u32 = 0x10;
    /// `IPV4`: the IPv4 address, byte 0 in bits 31..24.
    pub const IPV4: u32 = 0x14;
    /// `IPV6[0..4]`: the IPv6 address, 4 bytes per word, byte 0 in bits 31..24 of word 0.
    pub const IPV6: u32 = 0x18;
    /// `IP_EN`: which address families are enabled.
    pub const IP_EN: u32 = 0x28;
    /// `UDP_PORT`: the MetaRoCE UDP destination port (MR-ENC-15).
    pub const UDP_PORT: u32 = 0x2C;
    /// `DSCP`: the DSCP classes (MR-ENC-21, MR-ENC-28).
    pub const DSCP: u32 = 0x30;
    /// `TTL`: IPv4 TTL and IPv6 hop limit of sent packets.
    pub const TTL: u32 = 0x34;
    /// `CLOCK_PERIOD`: core clock period in 1/65536 ns.
    pub const CLOCK_PERIOD: u32 = 0x38;
    /// `LINE_RATE`: line rate in Mb/s (NSCC's bdp and pacing, MR-CC-14).
    pub const LINE_RATE: u32 = 0x3C;
    /// `BASE_RTT`: base RTT in ns (NSCC's bdp).
    pub const BASE_RTT: u32 = 0x40;
    /// `TARGET_QDELAY`: NSCC's queueing-delay target in ns.
    pub const TARGET_QDELAY: u32 = 0x44;
    /// `RTO_MIN`: ns (MR-REL-29).
    pub const RTO_MIN: u32 = 0x48;
    /// `RTO_INIT`: ns.
    pub const RTO_INIT: u32 = 0x4C;
    /// `RTO_MAX`: ns.
    pub const RTO_MAX: u32 = 0x50;
    /// `MIN_RTT_WINDOW`: ns (MR-REL-28).
    pub const MIN_RTT_WINDOW: u32 = 0x54;
    /// `RETRY`: retry limit and reordering distance.
    pub const RETRY: u32 = 0x58;
    /// `ACK`: ACK ratio and delay (MR-REL-14, MR-REL-16).
    pub const ACK: u32 = 0x5C;
    /// `MTU`: log2 of the payload bytes per packet.
    pub const MTU: u32 = 0x60;
}

/// Fields of the endpoint registers.
pub mod field {
    use crate::field::Field;
    /// `MAC_HI.mac_hi`.
    pub const MAC_HI: Field = Field::new("mac_hi", 0, 0, 16, "MAC bytes 0..2");
    /// `IP_EN.ipv4`.
    pub const IPV4_EN: Field = Field::new("ipv4", 0, 0, 1, "accept and send IPv4");
    /// `IP_EN.ipv6`.
    pub const IPV6_EN: Field = Field::new("ipv6", 0, 1, 1, "accept and send IPv6");
    /// `UDP_PORT.port`.
    pub const PORT: Field = Field::new("port", 0, 0, 16, "UDP destination port");
    /// `DSCP.data`.
    pub const DSCP_DATA: Field = Field::new("data", 0, 0, 6, "DSCP of DATA packets");
    /// `DSCP.ctrl`.
    pub const DSCP_CTRL: Field = Field::new("ctrl", 0, 8, 6, "DSCP of ACK, NACK and CTRL packets");
    /// `DSCP.trim`.
    pub const DSCP_TRIM: Field = Field::new("trim", 0, 16, 6, "DSCP that marks a trimmed packet");
    /// `TTL.ttl`.
    pub const TTL: Field = Field::new("ttl", 0, 0, 8, "TTL / hop limit");
    /// `RETRY.retry_limit`.
    pub const RETRY_LIMIT: Field = Field::new(
        "retry_limit",
        0,
        0,
        8,
        "timeouts without progress before ERROR",
    );
    /// `RETRY.reorder_distance`.
    pub const REORDER_DISTANCE: Field = Field::new(
        "reorder_distance",
        0,
        16,
        16,
        "loss-detection distance in packets (>= 16)",
    );
    /// `ACK.ratio`.
    pub const ACK_RATIO: Field =
        Field::new("ratio", 0, 0, 7, "accepted DATA packets per ACK (1..=127)");
    /// `ACK.delay_ns`.
    pub const ACK_DELAY: Field =
        Field::new("delay_ns", 0, 16, 16, "longest ACK delay when ratio > 1");
    /// `MTU.log`.
    pub const MTU_LOG: Field = Field::new("log", 0, 0, 4, "log2 payload bytes per packet (9..=13)");
}

/// Layout version of this block.
pub const VERSION: u32 = version(1, 0);

/// Default clock period: 322.265625 MHz (a 100 GbE MAC's 512-bit clock), in 1/65536 ns.
pub const DEFAULT_CLOCK_PERIOD_Q16: u32 = 203_360;

/// The endpoint block's layout.
pub const BLOCK: BlockLayout = BlockLayout {
    kind: BlockType::Endpoint,
    version: VERSION,
    bytes: 0x80,
    doc: "Endpoint addresses and transport parameters (spec section 10), read continuously by the hardware.",
    regs: &[
        type_reg(BlockType::Endpoint),
        version_reg(VERSION),
        NEXT_REG,
        Register::new("MAC_HI", reg::MAC_HI, Access::Rw, 0x0200, "MAC address, bytes 0..2", &[field::MAC_HI]),
        Register::new("MAC_LO", reg::MAC_LO, Access::Rw, 0x0000_0001, "MAC address, bytes 2..6", &[]),
        Register::new("IPV4", reg::IPV4, Access::Rw, 0x0A00_0001, "IPv4 address", &[]),
        Register::array("IPV6", reg::IPV6, 4, Access::Rw, "IPv6 address, 4 bytes per word"),
        Register::new(
            "IP_EN",
            reg::IP_EN,
            Access::Rw,
            0x1,
            "enabled address families",
            &[field::IPV4_EN, field::IPV6_EN],
        ),
        Register::new("UDP_PORT", reg::UDP_PORT, Access::Rw, 4792, "UDP destination port", &[field::PORT]),
        Register::new(
            "DSCP",
            reg::DSCP,
            Access::Rw,
            26 | 46 << 8 | 10 << 16,
            "DSCP classes",
            &[field::DSCP_DATA, field::DSCP_CTRL, field::DSCP_TRIM],
        ),
        Register::new("TTL", reg::TTL, Access::Rw, 64, "TTL / hop limit", &[field::TTL]),
        Register::new(
            "CLOCK_PERIOD",
            reg::CLOCK_PERIOD,
            Access::Rw,
            DEFAULT_CLOCK_PERIOD_Q16,
            "core clock period, 1/65536 ns",
            &[],
        ),
        Register::new("LINE_RATE", reg::LINE_RATE, Access::Rw, 100_000, "line rate, Mb/s", &[]),
        Register::new("BASE_RTT", reg::BASE_RTT, Access::Rw, 8_000, "base RTT, ns", &[]),
        Register::new("TARGET_QDELAY", reg::TARGET_QDELAY, Access::Rw, 5_000, "NSCC delay target, ns", &[]),
        Register::new("RTO_MIN", reg::RTO_MIN, Access::Rw, 20_000, "minimum RTO, ns", &[]),
        Register::new("RTO_INIT", reg::RTO_INIT, Access::Rw, 200_000, "RTO before the first sample, ns", &[]),
        Register::new("RTO_MAX", reg::RTO_MAX, Access::Rw, 64_000_000, "maximum RTO, ns", &[]),
        Register::new(
            "MIN_RTT_WINDOW",
            reg::MIN_RTT_WINDOW,
            Access::Rw,
            10_000_000,
            "min-RTT window, ns",
            &[],
        ),
        Register::new(
            "RETRY",
            reg::RETRY,
            Access::Rw,
            7 | 128 << 16,
            "retry limit and reordering distance",
            &[field::RETRY_LIMIT, field::REORDER_DISTANCE],
        ),
        Register::new(
            "ACK",
            reg::ACK,
            Access::Rw,
            1 | 2_000 << 16,
            "ACK ratio and delay",
            &[field::ACK_RATIO, field::ACK_DELAY],
        ),
        Register::new("MTU", reg::MTU, Access::Rw, 12, "payload bytes per packet, log2", &[field::MTU_LOG]),
    ],
};

/// Every 32-bit word of the block after its header: `(offset, register, index within an array)`, in offset
/// order, for readers that lay the block's contents out as one vector (the HDL's endpoint outputs).
pub fn words() -> impl Iterator<Item = (u32, &'static Register, u32)> {
    BLOCK
        .regs
        .iter()
        .filter(|r| r.offset >= reg::MAC_HI)
        .flat_map(|r| (0..r.count).map(move |i| (r.offset + 4 * i, r, i)))
}
