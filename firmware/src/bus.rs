//! The firmware's only way to the device: 32-bit loads and stores in the processor's address space
//! ([`metaroce_regmap::fwbus`]).

use metaroce_regmap::fwbus::{sys, REG_BASE, SYS_BASE};

/// Word access to the processor's address space.
pub trait Bus {
    /// Loads the word at byte address `addr`.
    fn read(&mut self, addr: u32) -> u32;
    /// Stores `value` at byte address `addr`.
    fn write(&mut self, addr: u32, value: u32);

    /// Core clock cycles since reset (`SYS.TIME_LO`, then the latched `SYS.TIME_HI`).
    fn now(&mut self) -> u64 {
        let lo = self.read(SYS_BASE + sys::TIME_LO);
        let hi = self.read(SYS_BASE + sys::TIME_HI);
        u64::from(hi) << 32 | u64::from(lo)
    }

    /// Loads the word at `offset` of the core's register bus (the host's BAR 0 offsets).
    fn reg_read(&mut self, offset: u32) -> u32 {
        self.read(REG_BASE + offset)
    }

    /// Stores `value` at `offset` of the core's register bus.
    fn reg_write(&mut self, offset: u32, value: u32) {
        self.write(REG_BASE + offset, value)
    }
}
