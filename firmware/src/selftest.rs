//! The boot self-test: the checks the firmware runs before it serves commands. Each failure names its
//! [`Check`], which `SYS.BOOT` reports ([`metaroce_regmap::fwbus::BootStatus`]).

use crate::bus::Bus;
use metaroce_regmap::block::{walk, BlockType, RegisterRead, DEFAULT_SPACE_BYTES};
use metaroce_regmap::caps::CapsRepr;
use metaroce_regmap::ctxport::{reg, WINDOW};
use metaroce_regmap::fwbus::{sys, SYS_BASE};

/// The self-test's checks, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Check {
    /// The discovery walk of the register blocks ends cleanly and finds the ID, capability, mailbox and counter
    /// blocks.
    Discovery = 1,
    /// The capability block decodes (no reserved bit set, every value in range).
    Caps = 2,
    /// The context port's staging registers hold what is written (two patterns), and the port is idle.
    CtxPort = 3,
    /// The cycle counter advances.
    Clock = 4,
    /// The firmware's own RAM holds what is written (a scratch buffer, two patterns).
    Ram = 5,
}

struct Regs<'a, B: Bus>(&'a mut B);

impl<B: Bus> RegisterRead for Regs<'_, B> {
    fn read32(&mut self, offset: u32) -> u32 {
        self.0.reg_read(offset)
    }
}

/// Runs every check; the device's capabilities, or the first failed check.
pub fn run(bus: &mut impl Bus) -> Result<CapsRepr, Check> {
    let found = walk(&mut Regs(bus), DEFAULT_SPACE_BYTES).map_err(|_| Check::Discovery)?;
    let mut caps_base = None;
    for kind in [
        BlockType::Id,
        BlockType::Caps,
        BlockType::Mailbox,
        BlockType::Counters,
    ] {
        let b = found.find(kind).ok_or(Check::Discovery)?;
        if kind == BlockType::Caps {
            caps_base = Some(b.base);
        }
    }
    let caps = CapsRepr::read(&mut Regs(bus), caps_base.ok_or(Check::Discovery)?)
        .map_err(|_| Check::Caps)?;
    ctx_port(bus)?;
    let t0 = bus.read(SYS_BASE + sys::TIME_LO);
    let t1 = bus.read(SYS_BASE + sys::TIME_LO);
    if t0 == t1 {
        return Err(Check::Clock);
    }
    ram()?;
    Ok(caps)
}

fn ctx_port(bus: &mut impl Bus) -> Result<(), Check> {
    if bus.reg_read(WINDOW + reg::STATUS) & reg::STATUS_BUSY != 0 {
        return Err(Check::CtxPort);
    }
    for pattern in [0xA5A5_5A5Au32, 0x5A5A_A5A5] {
        for k in 0..16u32 {
            bus.reg_write(WINDOW + reg::STAGE + 4 * k, pattern.rotate_left(k));
        }
        for k in 0..16u32 {
            if bus.reg_read(WINDOW + reg::STAGE + 4 * k) != pattern.rotate_left(k) {
                return Err(Check::CtxPort);
            }
        }
    }
    for k in 0..16u32 {
        bus.reg_write(WINDOW + reg::STAGE + 4 * k, 0);
    }
    Ok(())
}

fn ram() -> Result<(), Check> {
    let mut scratch = [0u32; 64];
    for pattern in [0x0F0F_F0F0u32, 0xF0F0_0F0F] {
        for (i, w) in scratch.iter_mut().enumerate() {
            *w = pattern ^ i as u32;
        }
        let seen = core::hint::black_box(&scratch);
        for (i, w) in seen.iter().enumerate() {
            if *w != pattern ^ i as u32 {
                return Err(Check::Ram);
            }
        }
    }
    Ok(())
}
