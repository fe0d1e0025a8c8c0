//! The transceiver module's management memory, read over its two-wire bus for READ_MODULE.
//!
//! A QSFP or OSFP module (CMIS; SFF-8636 for older QSFP28 modules) answers at bus address [`ADDRESS`] with a
//! 256-byte map: bytes 0..=127 are the lower page (identifier, module state, monitors), bytes 128..=255 the
//! upper page selected by writing its number to byte [`PAGE_SELECT`]. The firmware is the bus master and
//! drives the lines itself through `SYS.I2C` ([`metaroce_regmap::fwbus::sys::I2C`]), open drain: it only
//! pulls a line low or releases it, and reads the lines back.
//!
//! A read of `offset..offset + length` is, when it reaches byte 128, a page select (START, address + write,
//! 127, page, STOP), then a random read: START, address + write, offset, repeated START, address + read,
//! `length` bytes (each acknowledged but the last), STOP. SCL is low and high for at least
//! [`HALF_PERIOD_NS`] each (fast mode, about 385 kHz), timed from the core's clock (the endpoint block's
//! `CLOCK_PERIOD`); a module may stretch the clock for up to [`STRETCH_LIMIT_NS`]. Errors, each a clear
//! status and never a hang:
//!
//! | condition | error |
//! |---|---|
//! | no module in the cage (`port_status` bit 1 clear) | [`ModuleError::Absent`] |
//! | the address or a byte not acknowledged | [`ModuleError::Nak`] (the bus is released with a STOP) |
//! | SDA still low after nine clock pulses (the recovery of a slave stuck mid-byte) | [`ModuleError::BusStuck`] |
//! | SCL held low longer than [`STRETCH_LIMIT_NS`] | [`ModuleError::Stretched`] |
//!
//! The read runs in the firmware's service loop, about 10,500 core cycles per byte on the bus (33 µs at
//! 322 MHz; 0.8 ms for 16 bytes of an upper page with its page select), during which exception packets wait
//! in the packet port's queue.

use crate::bus::Bus;
use metaroce_regmap::command::MAX_MODULE_BYTES;
use metaroce_regmap::endpoint::{self, DEFAULT_CLOCK_PERIOD_Q16};
use metaroce_regmap::fwbus::{sys, PortStatus, SYS_BASE};

/// The module's management address (7 bits; 0xA0 / 0xA1 on the wire).
pub const ADDRESS: u8 = 0x50;
/// The byte that selects the upper page.
pub const PAGE_SELECT: u8 = 127;
/// Least time SCL stays low, and high, ns.
pub const HALF_PERIOD_NS: u32 = 1_300;
/// Longest clock stretch accepted, ns.
pub const STRETCH_LIMIT_NS: u32 = 1_000_000;
/// Clock pulses given to free a slave that holds SDA low.
const RECOVERY_PULSES: u32 = 9;

/// Why a module read failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModuleError {
    /// No module is present.
    Absent,
    /// The module did not acknowledge the `n`-th byte of a transaction (0: its address).
    Nak(u8),
    /// SDA stayed low: the bus could not be freed.
    BusStuck,
    /// SCL stayed low beyond the stretch limit.
    Stretched,
    /// The bytes asked for are not 1..=[`MAX_MODULE_BYTES`] within the 256-byte map (nothing was read).
    Range,
}

/// The module state byte of the lower page (CMIS: bits 3:1 the state, bit 0 set while the interrupt is
/// deasserted).
pub const STATE_BYTE: u8 = 3;
/// The first of the four latched flag bytes (CMIS bytes 8..=11, cleared by reading them).
pub const FLAGS_BYTE: u8 = 8;

/// What the module reported when its interrupt was asserted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alarm {
    /// The module state (byte 3 bits 3:1; 3 ModuleReady, 5 ModuleFault).
    pub state: u8,
    /// The latched flags, bytes 8 (bits 7:0) to 11 (bits 31:24), as read (the read cleared them).
    pub flags: u32,
}

/// Reads the module state and its latched flags (bytes 3..=11 in one read, about 95,000 cycles): what raised
/// the module's interrupt. Reading the flags clears them, which releases the interrupt.
pub fn alarm(bus: &mut impl Bus) -> Result<Alarm, ModuleError> {
    let mut b = [0u8; (FLAGS_BYTE + 4 - STATE_BYTE) as usize];
    read(bus, 0, STATE_BYTE, &mut b)?;
    let f = (FLAGS_BYTE - STATE_BYTE) as usize;
    Ok(Alarm {
        state: (b[0] >> 1) & 7,
        flags: u32::from_le_bytes([b[f], b[f + 1], b[f + 2], b[f + 3]]),
    })
}

/// Reads `out.len()` bytes (1..=[`MAX_MODULE_BYTES`], `offset + len <= 256`) of the module's map from
/// `offset`, with upper page `page` selected if the read reaches byte 128.
#[inline(never)]
pub fn read(bus: &mut impl Bus, page: u8, offset: u8, out: &mut [u8]) -> Result<(), ModuleError> {
    if out.is_empty() || out.len() > MAX_MODULE_BYTES || offset as usize + out.len() > 256 {
        return Err(ModuleError::Range);
    }
    let present = crate::port::read(bus).0 & PortStatus::MODULE_PRESENT.0 != 0;
    if !present {
        return Err(ModuleError::Absent);
    }
    let mut m = Master::new(bus);
    let r = (|| {
        m.recover()?;
        if offset as usize + out.len() > 128 {
            m.start()?;
            m.send(&[ADDRESS << 1, PAGE_SELECT, page])?;
            m.stop()?;
        }
        m.start()?;
        m.send(&[ADDRESS << 1, offset])?;
        m.start()?;
        m.send(&[ADDRESS << 1 | 1])?;
        let n = out.len();
        for (k, b) in out.iter_mut().enumerate() {
            *b = m.read_byte(k + 1 < n)?;
        }
        m.stop()
    })();
    if r.is_err() {
        // Leave the bus idle whatever happened; the first error is the one reported.
        let _ = m.stop();
        m.release();
    }
    r
}

/// The bus master: the lines it pulls low and the timing.
struct Master<'a, B: Bus> {
    bus: &'a mut B,
    /// `SYS.I2C` bits 1:0 as last written.
    drive: u32,
    half: u64,
    stretch: u64,
}

impl<'a, B: Bus> Master<'a, B> {
    fn new(bus: &'a mut B) -> Master<'a, B> {
        let period = crate::cc::endpoint_base()
            .map(|b| bus.reg_read(b + endpoint::reg::CLOCK_PERIOD))
            .filter(|p| *p != 0 && *p != u32::MAX)
            .unwrap_or(DEFAULT_CLOCK_PERIOD_Q16);
        // Cycles per µs, rounded up, then per ns: 32-bit arithmetic only (the processor has no divider for
        // 64-bit operands).
        let per_us = 65_536_000u32.div_ceil(period);
        let cycles = |ns: u32| u64::from(ns.saturating_mul(per_us).div_ceil(1000));
        let mut m = Master {
            drive: 0,
            half: cycles(HALF_PERIOD_NS),
            stretch: cycles(STRETCH_LIMIT_NS),
            bus,
        };
        m.release();
        m
    }

    fn set(&mut self, scl_low: bool, sda_low: bool) {
        self.drive =
            if scl_low { sys::I2C_SCL_LOW } else { 0 } | if sda_low { sys::I2C_SDA_LOW } else { 0 };
        self.bus.write(SYS_BASE + sys::I2C, self.drive);
    }

    fn release(&mut self) {
        self.set(false, false);
    }

    fn lines(&mut self) -> (bool, bool) {
        let v = self.bus.read(SYS_BASE + sys::I2C);
        (v & sys::I2C_SCL_IN != 0, v & sys::I2C_SDA_IN != 0)
    }

    fn wait(&mut self, cycles: u64) {
        let end = self.bus.now() + cycles;
        while self.bus.now() < end {}
    }

    fn sda_low(&self) -> bool {
        self.drive & sys::I2C_SDA_LOW != 0
    }

    /// Releases SCL and waits until the line is high (a stretching module holds it low).
    fn scl_high(&mut self) -> Result<(), ModuleError> {
        let sda = self.sda_low();
        self.set(false, sda);
        let end = self.bus.now() + self.stretch;
        loop {
            if self.lines().0 {
                return Ok(());
            }
            if self.bus.now() >= end {
                return Err(ModuleError::Stretched);
            }
        }
    }

    /// One clock pulse from SCL low (SDA as it is), then SCL low again; returns SDA sampled at the end of the
    /// high half.
    fn pulse(&mut self) -> Result<bool, ModuleError> {
        self.wait(self.half);
        self.scl_high()?;
        self.wait(self.half);
        let sda = self.lines().1;
        let s = self.sda_low();
        self.set(true, s);
        Ok(sda)
    }

    /// Frees a slave left mid-transfer: clock pulses until SDA is high, then a STOP.
    fn recover(&mut self) -> Result<(), ModuleError> {
        self.scl_high()?;
        if self.lines().1 {
            return Ok(());
        }
        for _ in 0..RECOVERY_PULSES {
            self.set(true, false);
            if self.pulse()? {
                return self.stop();
            }
        }
        Err(ModuleError::BusStuck)
    }

    /// A START, or a repeated START after a byte: SDA falls while SCL is high.
    fn start(&mut self) -> Result<(), ModuleError> {
        let scl_low = self.drive & sys::I2C_SCL_LOW != 0;
        self.set(scl_low, false);
        self.wait(self.half);
        self.scl_high()?;
        self.wait(self.half);
        if !self.lines().1 {
            return Err(ModuleError::BusStuck);
        }
        self.set(false, true);
        self.wait(self.half);
        self.set(true, true);
        Ok(())
    }

    /// A STOP: SDA rises while SCL is high. SCL is pulled low before SDA, so that SDA never falls while SCL
    /// is high (a START).
    fn stop(&mut self) -> Result<(), ModuleError> {
        let sda = self.sda_low();
        self.set(true, sda);
        self.set(true, true);
        self.wait(self.half);
        self.scl_high()?;
        self.wait(self.half);
        self.release();
        self.wait(self.half);
        if self.lines().1 {
            Ok(())
        } else {
            Err(ModuleError::BusStuck)
        }
    }

    /// Sends the bytes of one transaction, each acknowledged by the module.
    fn send(&mut self, bytes: &[u8]) -> Result<(), ModuleError> {
        for (n, b) in bytes.iter().enumerate() {
            for k in (0..8).rev() {
                self.set(true, b >> k & 1 == 0);
                self.pulse()?;
            }
            self.set(true, false);
            if self.pulse()? {
                return Err(ModuleError::Nak(n as u8));
            }
        }
        Ok(())
    }

    /// Receives a byte and acknowledges it if `ack` (every byte but the last).
    fn read_byte(&mut self, ack: bool) -> Result<u8, ModuleError> {
        let mut v = 0u8;
        for _ in 0..8 {
            self.set(true, false);
            v = v << 1 | u8::from(self.pulse()?);
        }
        self.set(true, ack);
        self.pulse()?;
        Ok(v)
    }
}
