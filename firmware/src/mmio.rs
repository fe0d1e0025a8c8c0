//! The bus of the RISC-V image: volatile loads and stores.

use crate::bus::Bus;

/// Memory-mapped I/O through the processor's own loads and stores.
pub struct Mmio(());

impl Mmio {
    /// The bus. There is one address space; taking it twice is harmless (every access is a single volatile
    /// word access with no state of its own).
    pub const fn new() -> Mmio {
        Mmio(())
    }
}

impl Default for Mmio {
    fn default() -> Self {
        Mmio::new()
    }
}

impl Bus for Mmio {
    fn read(&mut self, addr: u32) -> u32 {
        // SAFETY: every address the firmware uses is a word-aligned register of `metaroce_regmap::fwbus`'s
        // map, which the processor's bus decodes (unmapped addresses read 0 and never fault); the read has no
        // effect on memory the compiler knows about.
        unsafe { core::ptr::read_volatile(addr as usize as *const u32) }
    }

    fn write(&mut self, addr: u32, value: u32) {
        // SAFETY: as for `read`; the register windows lie outside the image's RAM, so no Rust object is
        // aliased by the store.
        unsafe { core::ptr::write_volatile(addr as usize as *mut u32, value) }
    }
}
