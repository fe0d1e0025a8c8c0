//! The bench's transceiver module: the management interface of a CMIS module (QSFP28 class), a two-wire bus
//! target at address 0x50 on the core's `i2c_*` pins.
//!
//! The map is 256 bytes: the lower page (bytes 0..=127; byte 127 holds the selected page) and the selected
//! upper page at bytes 128..=255 (a page the module does not have reads 0). A write sets the byte pointer with
//! its first data byte; later data bytes are written from there, but only byte 127 (the page select) takes a
//! write. A read returns bytes from the pointer, which advances after every byte and wraps from 255 to 128.
//! The target samples SDA on SCL's rising edge and changes it only while SCL is low; a START or STOP (SDA
//! changing while SCL is high) ends whatever transfer was going on.
//!
//! Flags: bytes 8..=11 are CMIS's latched flags ([`FLAGS`]): [`Module::raise`] sets flag bits, reading a flag
//! byte clears it (clear on read), and while any is set the module asserts its interrupt line IntL
//! ([`Module::interrupt`], which the bench puts on the core's `port_status`) and reads bit 0 of byte 3
//! ("interrupt deasserted") as 0.
//!
//! Faults for the tests: [`Module::answers`] false makes it ignore every transfer (its address is not
//! acknowledged); [`Module::stuck_sda`] holds SDA low for good, [`Module::stuck_scl`] SCL (the bench applies
//! it).

use std::collections::BTreeMap;

/// The module's bus address (7 bits).
pub const ADDRESS: u8 = 0x50;
/// The page-select byte.
pub const PAGE_SELECT: u8 = 127;
/// The module state byte (bits 3:1 the state, bit 0 interrupt deasserted).
pub const STATE: u8 = 3;
/// The latched flag bytes (clear on read).
pub const FLAGS: core::ops::RangeInclusive<u8> = 8..=11;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// No transfer for this target.
    Idle,
    /// Shifting in the address byte.
    Address,
    /// Acknowledging the address (`read`: the master reads next).
    AddressAck { read: bool },
    /// Shifting in a data byte of a write.
    Write,
    /// Acknowledging a written byte.
    WriteAck,
    /// Shifting out a byte; `bit` is the bit on SDA.
    Read { bit: u8 },
    /// The master's acknowledge after a byte.
    ReadAck,
}

/// A CMIS module's management interface.
#[derive(Debug, Clone)]
pub struct Module {
    /// Bytes 0..=127.
    pub lower: [u8; 128],
    /// Upper pages by number.
    pub pages: BTreeMap<u8, [u8; 128]>,
    /// The module acknowledges its address.
    pub answers: bool,
    /// The module holds SDA low.
    pub stuck_sda: bool,
    /// The module holds SCL low (a clock stretch that never ends).
    pub stuck_scl: bool,
    /// Transfers addressed to this module (address acknowledged).
    pub transfers: u32,
    state: State,
    shift: u8,
    bits: u8,
    first: bool,
    ptr: u8,
    byte: u8,
    acked: bool,
    sda_low: bool,
    scl: bool,
    sda: bool,
}

/// Writes `text` into `dst`, padded with spaces (the module's ASCII fields).
fn ascii(dst: &mut [u8], text: &str) {
    dst.fill(b' ');
    for (d, s) in dst.iter_mut().zip(text.bytes()) {
        *d = s;
    }
}

impl Module {
    /// A module with the given lower page and upper pages.
    pub fn new(lower: [u8; 128], pages: BTreeMap<u8, [u8; 128]>) -> Module {
        Module {
            lower,
            pages,
            answers: true,
            stuck_sda: false,
            stuck_scl: false,
            transfers: 0,
            state: State::Idle,
            shift: 0,
            bits: 0,
            first: false,
            ptr: 0,
            byte: 0,
            acked: false,
            sda_low: false,
            scl: true,
            sda: true,
        }
    }

    /// The bench's default: a 100G QSFP28 CMIS 5.0 module, ready, at 26.5 °C and 3.3 V, with vendor
    /// `METAROCE`, part `MR-QSFP28-SR4`, serial `SN0001`, and upper pages 0x00 and 0x01.
    pub fn reference() -> Module {
        let mut lower = [0u8; 128];
        lower[0] = 0x1E; // SFF-8024 identifier: QSFP+ or later with CMIS
        lower[1] = 0x50; // CMIS 5.0
        lower[3] = 3 << 1 | 1; // module state: ModuleReady; interrupt deasserted
        lower[14..16].copy_from_slice(&(26 * 256 + 128i16).to_be_bytes()); // 1/256 °C
        lower[16..18].copy_from_slice(&33_000u16.to_be_bytes()); // 100 µV
        let mut p0 = [0u8; 128];
        p0[0] = 0x1E;
        ascii(&mut p0[1..17], "METAROCE"); // bytes 129..=144: vendor name
        p0[17..20].copy_from_slice(&[0x02, 0x00, 0x00]); // 145..=147: OUI
        ascii(&mut p0[20..36], "MR-QSFP28-SR4"); // 148..=163: part number
        ascii(&mut p0[36..38], "A0"); // 164..=165: revision
        ascii(&mut p0[38..54], "SN0001"); // 166..=181: serial number
        let mut p1 = [0u8; 128];
        p1[0] = 0x10; // 128: module firmware major
        p1[1] = 0x02; // 129: minor
        Module::new(lower, BTreeMap::from([(0x00, p0), (0x01, p1)]))
    }

    /// Sets the bits `mask` of latched flag byte `byte` (one of [`FLAGS`]): the module asserts its interrupt.
    pub fn raise(&mut self, byte: u8, mask: u8) {
        assert!(FLAGS.contains(&byte), "byte {byte} is not a flag byte");
        self.lower[byte as usize] |= mask;
    }

    /// The interrupt line IntL is asserted: a latched flag is set.
    pub fn interrupt(&self) -> bool {
        self.lower[*FLAGS.start() as usize..=*FLAGS.end() as usize]
            .iter()
            .any(|&b| b != 0)
    }

    /// The byte at map address `a` with the current page selected.
    pub fn byte(&self, a: u8) -> u8 {
        if a == STATE {
            (self.lower[a as usize] & !1) | u8::from(!self.interrupt())
        } else if a < 128 {
            self.lower[a as usize]
        } else {
            self.pages
                .get(&self.lower[PAGE_SELECT as usize])
                .map_or(0, |p| p[a as usize - 128])
        }
    }

    /// The module pulls SDA low now.
    pub fn pulls_sda(&self) -> bool {
        self.sda_low || self.stuck_sda
    }

    /// One clock of the bench: the bus lines as they are this cycle (the wired AND of every driver).
    pub fn clock(&mut self, scl: bool, sda: bool) {
        let (scl0, sda0) = (self.scl, self.sda);
        self.scl = scl;
        self.sda = sda;
        if scl && scl0 && sda != sda0 {
            // START (SDA falls) or STOP (SDA rises) while SCL is high.
            self.sda_low = false;
            self.state = if sda { State::Idle } else { State::Address };
            self.shift = 0;
            self.bits = 0;
            return;
        }
        if scl && !scl0 {
            self.rise(sda);
        } else if !scl && scl0 {
            self.fall();
        }
    }

    fn rise(&mut self, sda: bool) {
        match self.state {
            State::Address | State::Write => {
                self.shift = self.shift << 1 | u8::from(sda);
                self.bits += 1;
            }
            State::ReadAck => self.acked = !sda,
            _ => {}
        }
    }

    fn fall(&mut self) {
        match self.state {
            State::Address if self.bits == 8 => {
                if self.shift >> 1 == ADDRESS && self.answers {
                    self.transfers += 1;
                    self.sda_low = true;
                    self.state = State::AddressAck {
                        read: self.shift & 1 == 1,
                    };
                } else {
                    self.state = State::Idle;
                }
            }
            State::AddressAck { read } => {
                self.sda_low = false;
                if read {
                    self.load();
                } else {
                    self.state = State::Write;
                    self.first = true;
                    self.bits = 0;
                    self.shift = 0;
                }
            }
            State::Write if self.bits == 8 => {
                if self.first {
                    self.ptr = self.shift;
                    self.first = false;
                } else {
                    if self.ptr == PAGE_SELECT {
                        self.lower[PAGE_SELECT as usize] = self.shift;
                    }
                    self.advance();
                }
                self.sda_low = true;
                self.state = State::WriteAck;
            }
            State::WriteAck => {
                self.sda_low = false;
                self.state = State::Write;
                self.bits = 0;
                self.shift = 0;
            }
            State::Read { bit: 0 } => {
                self.sda_low = false;
                self.advance();
                self.state = State::ReadAck;
            }
            State::Read { bit } => {
                self.sda_low = self.byte >> (bit - 1) & 1 == 0;
                self.state = State::Read { bit: bit - 1 };
            }
            State::ReadAck => {
                if self.acked {
                    self.load();
                } else {
                    self.state = State::Idle;
                }
            }
            _ => {}
        }
    }

    /// Puts the byte at the pointer on the bus, most significant bit first.
    fn load(&mut self) {
        self.byte = self.byte(self.ptr);
        if FLAGS.contains(&self.ptr) {
            self.lower[self.ptr as usize] = 0;
        }
        self.sda_low = self.byte >> 7 & 1 == 0;
        self.state = State::Read { bit: 7 };
    }

    fn advance(&mut self) {
        self.ptr = if self.ptr == 255 { 128 } else { self.ptr + 1 };
    }
}
