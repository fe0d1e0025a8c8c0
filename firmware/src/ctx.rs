//! Committing context entries through the context-programming port ([`metaroce_regmap::ctxport`]).

use crate::bus::Bus;
use metaroce_regmap::ctxport::{reg, WINDOW};

/// Polls of `STATUS` before a port that stays busy is declared hung.
pub const COMMIT_POLLS: u32 = 10_000;

/// The port stayed busy: the device needs a reset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortHung;

/// ConnOpen parameters of an OPEN connection entry (`OPEN_PARAM`, `OPEN_SEED`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenParam {
    /// log2 of the path MTU.
    pub mtu_log: u8,
    /// Paths of the EV set.
    pub paths: u8,
    /// Open the receive direction only (MR-CONN-16).
    pub rx_only: bool,
    /// EV-set seed.
    pub seed: u32,
}

impl OpenParam {
    /// The `OPEN_PARAM` word.
    pub const fn word(&self) -> u32 {
        (self.mtu_log as u32 & 0xF)
            | (self.paths as u32 & 0x7F) << 8
            | if self.rx_only {
                reg::OPEN_PARAM_RX_ONLY
            } else {
                0
            }
    }
}

fn wait_idle(bus: &mut impl Bus) -> Result<(), PortHung> {
    for _ in 0..COMMIT_POLLS {
        if bus.reg_read(WINDOW + reg::STATUS) & reg::STATUS_BUSY == 0 {
            return Ok(());
        }
    }
    Err(PortHung)
}

/// Writes `entry` to `table[index]`: waits for the port to be idle, stages the sixteen words, names the table
/// and the index, sets the open parameters when given (restoring their reset value after the commit), commits,
/// and waits until the port has broadcast the entry.
pub fn commit(
    bus: &mut impl Bus,
    table: u8,
    index: u16,
    entry: &[u8; 64],
    open: Option<OpenParam>,
) -> Result<(), PortHung> {
    wait_idle(bus)?;
    for (k, w) in entry.chunks_exact(4).enumerate() {
        let v = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        bus.reg_write(WINDOW + reg::STAGE + 4 * k as u32, v);
    }
    bus.reg_write(WINDOW + reg::TABLE, u32::from(table));
    bus.reg_write(WINDOW + reg::INDEX, u32::from(index));
    if let Some(p) = open {
        bus.reg_write(WINDOW + reg::OPEN_PARAM, p.word());
        bus.reg_write(WINDOW + reg::OPEN_SEED, p.seed);
    }
    bus.reg_write(WINDOW + reg::COMMIT, 1);
    let done = wait_idle(bus);
    if open.is_some() {
        bus.reg_write(WINDOW + reg::OPEN_PARAM, reg::OPEN_PARAM_RESET);
        bus.reg_write(WINDOW + reg::OPEN_SEED, 0);
    }
    done
}
