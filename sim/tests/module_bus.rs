//! The firmware's management-bus master ([`metaroce_firmware::module`]) against the bench's transceiver module
//! ([`metaroce_sim::cosim::module`]), natively: the firmware's `SYS.I2C` accesses drive the lines, and every
//! access takes a few clock cycles in which the module sees them (the lines are the wired AND of both sides).
//! The co-simulation runs the same pair with the firmware on the core's processor (`cosim_firmware`). The
//! random reads print their seed; `METAROCE_SEED` replays them.

use metaroce_firmware::bus::Bus;
use metaroce_firmware::module::{self, ModuleError};
use metaroce_proto::harness::rng::Rng;
use metaroce_regmap::command::MAX_MODULE_BYTES;
use metaroce_regmap::endpoint;
use metaroce_regmap::fwbus::{evt, sys, PortStatus, EVT_BASE, REG_BASE, SYS_BASE};
use metaroce_sim::cosim::module::Module;

/// Clock cycles one access of the firmware takes.
const ACCESS_CYCLES: u64 = 5;

/// The processor's view: time, the port's status, the clock period, and the bus with the module on it.
struct Wire {
    module: Module,
    drive: u32,
    time: u64,
    port: u32,
    /// SCL and SDA as the firmware reads them.
    lines: (bool, bool),
    /// Changes of SDA while SCL was high: STARTs and STOPs (a master that let one slip would show here).
    starts_stops: u32,
}

impl Wire {
    fn new(module: Module) -> Wire {
        Wire {
            module,
            drive: 0,
            time: 0,
            port: u32::from(PortStatus::LINK_UP.0 | PortStatus::MODULE_PRESENT.0),
            lines: (true, true),
            starts_stops: 0,
        }
    }

    fn tick(&mut self) {
        for _ in 0..ACCESS_CYCLES {
            let scl = self.drive & sys::I2C_SCL_LOW == 0 && !self.module.stuck_scl;
            let sda = self.drive & sys::I2C_SDA_LOW == 0 && !self.module.pulls_sda();
            if scl && self.lines.0 && sda != self.lines.1 {
                self.starts_stops += 1;
            }
            self.module.clock(scl, sda);
            self.lines = (scl, sda);
            self.time += 1;
        }
    }
}

impl Bus for Wire {
    fn read(&mut self, addr: u32) -> u32 {
        self.tick();
        let ep = metaroce_firmware::cc::endpoint_base().expect("endpoint block");
        match addr {
            a if a == SYS_BASE + sys::TIME_LO => self.time as u32,
            a if a == SYS_BASE + sys::TIME_HI => (self.time >> 32) as u32,
            a if a == SYS_BASE + sys::I2C => {
                self.drive
                    | if self.lines.0 { sys::I2C_SCL_IN } else { 0 }
                    | if self.lines.1 { sys::I2C_SDA_IN } else { 0 }
            }
            a if a == EVT_BASE + evt::PORT => self.port,
            a if a == REG_BASE + ep + endpoint::reg::CLOCK_PERIOD => {
                endpoint::DEFAULT_CLOCK_PERIOD_Q16
            }
            a => panic!("the module read touched {a:#x}"),
        }
    }

    fn write(&mut self, addr: u32, value: u32) {
        self.tick();
        assert_eq!(addr, SYS_BASE + sys::I2C, "the module read wrote {addr:#x}");
        assert_eq!(value & !3, 0, "only bits 1:0 of SYS.I2C are written");
        self.drive = value;
    }
}

fn read(w: &mut Wire, page: u8, offset: u8, len: usize) -> Result<Vec<u8>, ModuleError> {
    let mut out = vec![0u8; len];
    let r = module::read(w, page, offset, &mut out);
    assert_eq!(w.drive, 0, "the bus is released after a read");
    r.map(|_| out)
}

fn expect(m: &Module, page: u8, offset: u8, len: usize) -> Vec<u8> {
    let mut m = m.clone();
    m.lower[127] = page;
    (0..len).map(|k| m.byte(offset + k as u8)).collect()
}

#[test]
fn reads_the_lower_page_and_upper_pages() {
    let mut w = Wire::new(Module::reference());
    let lower = read(&mut w, 0, 0, 16).expect("lower page");
    assert_eq!(lower, Module::reference().lower[..16]);
    assert_eq!((lower[0], lower[1], lower[3]), (0x1E, 0x50, 0x07));
    let t = w.time;
    let name = read(&mut w, 0, 129, 16).expect("vendor name");
    println!(
        "16 bytes of page 0: {} cycles (page select and read)",
        w.time - t
    );
    assert_eq!(&name, b"METAROCE        ");
    assert_eq!(read(&mut w, 1, 128, 2).expect("page 1"), [0x10, 0x02]);
    assert_eq!(w.module.lower[127], 1, "page 1 is selected");
    // Across the page boundary: the lower page's last bytes (127: the page), then the selected page.
    assert_eq!(
        read(&mut w, 0, 120, 16).expect("across"),
        expect(&Module::reference(), 0, 120, 16)
    );
    // A page the module does not have reads 0.
    assert_eq!(read(&mut w, 0x20, 200, 4).expect("missing page"), [0; 4]);
    // Five reads, four of them above byte 127 (a page select first): 2 + 4 * 3 addressed transfers; a START,
    // a repeated START and a STOP per read and a START and a STOP per page select.
    assert_eq!(w.module.transfers, 2 + 4 * 3);
    assert_eq!(w.starts_stops, 3 + 4 * 5, "nothing but STARTs and STOPs");
}

#[test]
fn random_reads_match_the_map() {
    let seed = std::env::var("METAROCE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x12c_0001);
    println!("seed {seed} (replay with METAROCE_SEED={seed})");
    let mut rng = Rng::new(seed);
    let mut m = Module::reference();
    let mut p = [0u8; 128];
    rng.fill_bytes(&mut p);
    m.pages.insert(0x11, p);
    rng.fill_bytes(&mut m.lower[20..100]);
    let reference = m.clone();
    let mut w = Wire::new(m);
    for _ in 0..24 {
        let len = rng.range_inclusive(1, MAX_MODULE_BYTES as u64) as usize;
        let offset = rng.below(257 - len as u64) as u8;
        let page = [0x00, 0x01, 0x11, 0x7F][rng.below(4) as usize];
        let got = read(&mut w, page, offset, len).expect("read");
        assert_eq!(
            got,
            expect(&reference, page, offset, len),
            "page {page:#x}, bytes {offset}..+{len}"
        );
    }
}

#[test]
fn faults_are_errors_not_hangs() {
    // No module in the cage: nothing on the bus.
    let mut w = Wire::new(Module::reference());
    w.port = u32::from(PortStatus::LINK_UP.0);
    assert_eq!(read(&mut w, 0, 0, 4), Err(ModuleError::Absent));
    assert_eq!(
        (w.module.transfers, w.starts_stops, w.time),
        (0, 0, ACCESS_CYCLES),
        "one access: the port's status"
    );
    // A module that does not answer: its address is not acknowledged.
    let mut m = Module::reference();
    m.answers = false;
    let mut w = Wire::new(m);
    assert_eq!(read(&mut w, 0, 0, 4), Err(ModuleError::Nak(0)));
    // SDA held low: nine clock pulses do not free it.
    let mut m = Module::reference();
    m.stuck_sda = true;
    let mut w = Wire::new(m);
    assert_eq!(read(&mut w, 0, 0, 4), Err(ModuleError::BusStuck));
    // SCL held low: the stretch limit ends the wait (1 ms at the default clock, twice: the read and the
    // STOP that releases the bus).
    let mut m = Module::reference();
    m.stuck_scl = true;
    let mut w = Wire::new(m);
    assert_eq!(read(&mut w, 0, 0, 4), Err(ModuleError::Stretched));
    let limit = (u64::from(module::STRETCH_LIMIT_NS) << 16)
        .div_ceil(u64::from(endpoint::DEFAULT_CLOCK_PERIOD_Q16));
    assert!(
        (2 * limit..3 * limit).contains(&w.time),
        "{} cycles",
        w.time
    );
    // A range outside the map is refused before the bus is touched.
    let mut w = Wire::new(Module::reference());
    assert_eq!(read(&mut w, 0, 250, 7), Err(ModuleError::Range));
    assert_eq!(read(&mut w, 0, 0, 0), Err(ModuleError::Range));
    assert_eq!(read(&mut w, 0, 0, 49), Err(ModuleError::Range));
    assert_eq!(w.time, 0);
    // After a failed read the bus works again.
    let mut w = Wire::new(Module::reference());
    w.module.answers = false;
    assert!(read(&mut w, 0, 0, 1).is_err());
    w.module.answers = true;
    assert_eq!(read(&mut w, 0, 0, 1).expect("read after a failure"), [0x1E]);
}

#[test]
fn an_alarm_reads_the_state_and_the_latched_flags_and_clears_them() {
    let mut w = Wire::new(Module::reference());
    assert!(!w.module.interrupt());
    assert_eq!(
        module::alarm(&mut w).expect("alarm"),
        module::Alarm { state: 3, flags: 0 },
        "ModuleReady, no flag"
    );
    // A temperature high alarm (byte 9 bit 0) and an auxiliary monitor warning (byte 11 bit 6).
    w.module.raise(9, 0x01);
    w.module.raise(11, 0x40);
    assert!(w.module.interrupt());
    assert_eq!(
        read(&mut w, 0, 3, 1).expect("state byte"),
        [0x06],
        "byte 3 bit 0 clear: interrupt asserted"
    );
    let t = w.time;
    let a = module::alarm(&mut w).expect("alarm");
    println!("the module's state and flags: {} cycles", w.time - t);
    assert_eq!(
        a,
        module::Alarm {
            state: 3,
            flags: 0x4000_0100
        }
    );
    assert_eq!(w.drive, 0, "the bus is released");
    assert!(!w.module.interrupt(), "the read cleared the flags");
    assert_eq!(
        module::alarm(&mut w).expect("alarm").flags,
        0,
        "cleared on read"
    );
    // A module in ModuleFault.
    w.module.lower[3] = 5 << 1 | 1;
    w.module.raise(8, 0x01);
    assert_eq!(
        module::alarm(&mut w).expect("alarm"),
        module::Alarm { state: 5, flags: 1 }
    );
}
