//! The congestion-control and loss-recovery parameters (SET_CC, QUERY_CC; spec Table 10.2). The core reads
//! them continuously from its endpoint block ([`metaroce_regmap::endpoint`]); the firmware checks a new set as a
//! whole (the ranges in [`CcParams::check`], run by the request parser) and writes it so that the RTO clamp never
//! sees its minimum above its maximum, then reads every register back.
//!
//! The core has one parameter set for all its connections: a change applies to every connection at once (the
//! next RTO computed, the next ACK decision, the next NSCC update).

use crate::bus::Bus;
use metaroce_regmap::block::{default_base, BlockType};
use metaroce_regmap::command::{CcInfo, CcParams};
use metaroce_regmap::endpoint::{field, reg};

/// A register did not hold the value written: the device needs attention.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mismatch {
    /// The register's offset in the endpoint block.
    pub offset: u32,
}

/// The endpoint block's offset on the register bus.
pub fn endpoint_base() -> Option<u32> {
    default_base(BlockType::Endpoint)
}

fn retry_word(c: &CcParams) -> u32 {
    field::RETRY_LIMIT
        .insert(0, c.retry_limit.into())
        .unwrap_or(0)
        | field::REORDER_DISTANCE
            .insert(0, c.reorder_distance.into())
            .unwrap_or(0)
}

fn ack_word(c: &CcParams) -> u32 {
    field::ACK_RATIO.insert(0, c.ack_ratio.into()).unwrap_or(0)
        | field::ACK_DELAY
            .insert(0, c.ack_delay_ns.into())
            .unwrap_or(0)
}

/// Writes `c` (already checked) to the endpoint block and reads it back.
pub fn set(bus: &mut impl Bus, c: &CcParams) -> Result<(), Mismatch> {
    let base = endpoint_base().ok_or(Mismatch { offset: 0 })?;
    let old_max = bus.reg_read(base + reg::RTO_MAX);
    let words = [
        // The maximum first, raised if need be, so that minimum <= maximum after every write.
        (reg::RTO_MAX, old_max.max(c.rto_max_ns)),
        (reg::RTO_MIN, c.rto_min_ns),
        (reg::RTO_INIT, c.rto_init_ns),
        (reg::RTO_MAX, c.rto_max_ns),
        (reg::LINE_RATE, c.line_rate_mbps),
        (reg::BASE_RTT, c.base_rtt_ns),
        (reg::RETRY, retry_word(c)),
        (reg::ACK, ack_word(c)),
    ];
    for (off, v) in words {
        bus.reg_write(base + off, v);
    }
    for (off, v) in &words[1..] {
        if bus.reg_read(base + off) != *v {
            return Err(Mismatch { offset: *off });
        }
    }
    Ok(())
}

/// Reads the parameters the core uses.
pub fn query(bus: &mut impl Bus) -> Option<CcInfo> {
    let base = endpoint_base()?;
    let mut rd = |off: u32| bus.reg_read(base + off);
    let retry = rd(reg::RETRY);
    let ack = rd(reg::ACK);
    Some(CcInfo {
        params: CcParams {
            line_rate_mbps: rd(reg::LINE_RATE),
            base_rtt_ns: rd(reg::BASE_RTT),
            rto_min_ns: rd(reg::RTO_MIN),
            rto_init_ns: rd(reg::RTO_INIT),
            rto_max_ns: rd(reg::RTO_MAX),
            ack_delay_ns: field::ACK_DELAY.extract(ack) as u16,
            ack_ratio: field::ACK_RATIO.extract(ack) as u8,
            retry_limit: field::RETRY_LIMIT.extract(retry) as u8,
            reorder_distance: field::REORDER_DISTANCE.extract(retry) as u16,
        },
        target_qdelay_ns: rd(reg::TARGET_QDELAY),
        min_rtt_window_ns: rd(reg::MIN_RTT_WINDOW),
    })
}
