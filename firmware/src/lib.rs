//! The MetaRoCE NIC's control-plane firmware.
//!
//! Data moves in hardware; control goes through this firmware, running on the RISC-V core inside the NIC
//! design. The host writes a command into the mailbox ([`metaroce_regmap::mailbox`]) and rings it; the
//! firmware validates it ([`metaroce_regmap::command::Request::parse`] plus the checks that need the device's
//! state: handles, states, free resources), programs the hardware's context tables through the
//! context-programming port ([`metaroce_regmap::ctxport`]) and answers. A refused command changes nothing.
//!
//! The crate is `no_std` and talks to the device only through [`bus::Bus`] (32-bit loads and stores in the
//! processor's address space, [`metaroce_regmap::fwbus`]), so the same command logic runs:
//! * natively, in unit tests, against a model of the register space;
//! * on the NIC's core, built as the `metaroce-fw` image for `riscv32im-unknown-none-elf` (feature `image`),
//!   where [`mmio::Mmio`] is the bus.
//!
//! Layout: [`bus`] (the access trait), [`mailbox`] (the firmware's side of the mailbox), [`ctx`] (committing
//! context entries), [`cc`] (the congestion-control parameters), [`objects`] (the QP, CQ, MR and connection tables the firmware owns), [`exec`] (command
//! execution), [`packets`] (the packet port: exception packets in, control packets out), [`responder`]
//! (connection opening: binding a READY QP's connection to its peer and announcing it), [`qp_errors`] (QPs the
//! core moved to ERROR: closed and reported), [`port`] (the network port's status), [`module`] (the transceiver module's management memory), [`events`] (the
//! asynchronous events the host reads with READ_EVENTS), [`selftest`] (the boot checks), [`Firmware`] (boot
//! and the service loop), and for the host side
//! [`image`] (the ELF image as the words the host loads).

#![no_std]
#![deny(missing_docs)]

pub mod bus;
pub mod cc;
pub mod ctx;
pub mod events;
pub mod exec;
pub mod image;
pub mod mailbox;
#[cfg(target_arch = "riscv32")]
pub mod mmio;
pub mod module;
pub mod objects;
pub mod packets;
pub mod port;
pub mod qp_errors;
pub mod responder;
pub mod selftest;

use bus::Bus;
use metaroce_regmap::block::{default_base, BlockType};
use metaroce_regmap::caps::{CapsRepr, Features, Limits};
use metaroce_regmap::command::{Event, EventType, Opcode, Request, Response, Status};
use metaroce_regmap::control;
use metaroce_regmap::fwbus::{sys, BootStage, BootStatus, PortStatus, SYS_BASE};
use objects::Objects;

/// Firmware version, major.
pub const VERSION_MAJOR: u8 = 0;
/// Firmware version, minor.
pub const VERSION_MINOR: u8 = 1;
/// The version as QUERY_DEVICE reports it (`major << 16 | minor`).
pub const FW_VERSION: u32 = (VERSION_MAJOR as u32) << 16 | VERSION_MINOR as u32;

/// The capabilities before boot: none (every field 0, so a firmware that has not booted is all zero and its
/// image's state starts in zeroed memory).
const NO_CAPS: CapsRepr = CapsRepr {
    max_qps: 0,
    max_cqs: 0,
    max_mrs: 0,
    max_conns: 0,
    max_sq_log: 0,
    max_rq_log: 0,
    max_cq_log: 0,
    sqe_bytes: 0,
    rqe_bytes: 0,
    cqe_bytes: 0,
    conn_ctx_bytes: 0,
    datapath_bits: 0,
    ports: 0,
    max_mtu_log: 0,
    features: Features(0),
    msix_vectors: 0,
    max_paths: 0,
    max_wlog: 0,
    max_outstanding: 0,
};

/// What one turn of the service loop did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Served {
    /// The request's tag.
    pub tag: u16,
    /// The request's opcode, if it had a known one.
    pub opcode: Option<Opcode>,
    /// The status answered.
    pub status: Status,
}

/// The firmware: the device's limits, the objects it owns and its boot state.
pub struct Firmware {
    caps: CapsRepr,
    limits: Limits,
    objects: Objects,
    boot: BootStatus,
    seed: u32,
    opens: responder::OpenStats,
    errors: qp_errors::ErrorStats,
    events: events::EventQueue,
    port: PortStatus,
    /// The QP the flush sweep looks at next ([`qp_errors::sweep`]).
    sweep_at: u32,
    /// Module interrupts served, and module reads that failed, since boot; core time of the last read.
    module: ModuleStats,
}

/// What the firmware did with the module's interrupt since boot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ModuleStats {
    /// MODULE_ALARM events queued.
    pub alarms: u32,
    /// Reads of the module's flags that failed (no event).
    pub errors: u32,
    /// Core time of the last read, cycles (0: none yet).
    pub last_read: u64,
}

impl Firmware {
    /// A firmware that has not booted: every command is answered INTERNAL until [`Firmware::boot`] passes.
    pub const fn new() -> Firmware {
        Firmware {
            caps: NO_CAPS,
            limits: Limits {
                max_qps: 0,
                max_cqs: 0,
                max_mrs: 0,
                max_sq_log: 0,
                max_rq_log: 0,
                max_cq_log: 0,
                msix_vectors: 0,
                counters: 0,
            },
            objects: Objects::new(),
            boot: BootStatus {
                stage: BootStage::Reset,
                check: 0,
                version: 0,
            },
            seed: 0,
            opens: responder::OpenStats {
                exceptions: 0,
                bound: 0,
                announced: 0,
                repeated: 0,
                refused: 0,
                restarts: 0,
                other: 0,
                failed: 0,
                replayed: 0,
            },
            errors: qp_errors::ErrorStats {
                reported: 0,
                stray: 0,
                failed: 0,
                flushes: 0,
                flush_hung: 0,
            },
            events: events::EventQueue::new(),
            port: PortStatus(0),
            sweep_at: 0,
            module: ModuleStats {
                alarms: 0,
                errors: 0,
                last_read: 0,
            },
        }
    }

    /// Boot: runs the self-test ([`selftest::run`]), learns the device's limits from its capability block
    /// (clamped to the firmware's own tables, [`objects`]), clears the tables, and publishes the outcome in
    /// `SYS.BOOT`. Returns the boot status.
    pub fn boot(&mut self, bus: &mut impl Bus) -> BootStatus {
        self.boot.version = (VERSION_MAJOR as u16) << 8 | VERSION_MINOR as u16;
        self.boot.stage = BootStage::SelfTest;
        self.boot.check = 0;
        bus.write(SYS_BASE + sys::BOOT, self.boot.to_word());
        match selftest::run(bus) {
            Ok(caps) => {
                self.caps = caps;
                self.limits = objects::clamp(caps.limits());
                self.objects.clear();
                self.opens = responder::OpenStats::default();
                self.errors = qp_errors::ErrorStats::default();
                self.module = ModuleStats::default();
                self.events.clear();
                self.port = port::read(bus);
                // The host's seed (CONTROL.SEED) with the clock: after a reset the clock alone gives the
                // same ISNs and CID generations every boot.
                let host = default_base(BlockType::Control)
                    .map_or(0, |b| bus.reg_read(b + control::reg::SEED));
                self.seed = bus.now() as u32 ^ 0x9E37_79B9 ^ host.rotate_left(13);
                self.boot.stage = BootStage::Ready;
                greet(bus, "self-test passed\n");
            }
            Err(check) => {
                self.boot.stage = BootStage::Failed;
                self.boot.check = check as u8;
                greet(bus, "self-test FAILED\n");
            }
        }
        bus.write(SYS_BASE + sys::BOOT, self.boot.to_word());
        self.boot
    }

    /// The boot status.
    pub fn boot_status(&self) -> BootStatus {
        self.boot
    }

    /// The limits commands are checked against (the device's, clamped to the firmware's tables).
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The objects the firmware owns.
    pub fn objects(&self) -> &Objects {
        &self.objects
    }

    /// One turn of the service loop: if the host has submitted a command, validate and execute it and post the
    /// response. `None` when no command was waiting.
    pub fn serve(&mut self, bus: &mut impl Bus) -> Option<Served> {
        let tag = mailbox::pending(bus)?;
        let buf = mailbox::read_request(bus);
        let opcode = Opcode::from_u8(buf[0]);
        let resp = if self.boot.stage != BootStage::Ready {
            Response {
                tag,
                status: Status::Internal,
                bad_offset: None,
                data: metaroce_regmap::command::ResponseData::None,
            }
        } else {
            match Request::parse(&buf, &self.limits) {
                Ok(req) => exec::execute(self, bus, &req),
                Err(e) => Response::error(tag, e),
            }
        };
        // The response's tag is the one the host wrote into CTRL (the mailbox's), which the request header
        // repeats; the mailbox's is authoritative.
        let resp = Response { tag, ..resp };
        let status = mailbox::respond(bus, opcode, &resp);
        Some(Served {
            tag,
            opcode,
            status,
        })
    }

    /// Takes one exception packet the core handed over, if any, and handles it ([`responder`]). Nothing is
    /// taken before a successful boot.
    pub fn poll_packets(&mut self, bus: &mut impl Bus) -> Option<responder::Outcome> {
        if self.boot.stage != BootStage::Ready {
            return None;
        }
        let p = packets::Packet::from_record(&packets::held(bus)?);
        let out = responder::handle(self, bus, &p);
        let how = if responder::answered_by_core(&p, &out) {
            self.opens.replayed += 1;
            packets::Release::Replay
        } else {
            packets::Release::Pop
        };
        packets::release(bus, how);
        Some(out)
    }

    /// What the firmware did with exception packets since boot.
    pub fn open_stats(&self) -> &responder::OpenStats {
        &self.opens
    }

    /// Takes the core's QP error report, if one is held, and handles it ([`qp_errors`]). Nothing is taken
    /// before a successful boot.
    pub fn poll_errors(&mut self, bus: &mut impl Bus) -> Option<qp_errors::Outcome> {
        if self.boot.stage != BootStage::Ready {
            return None;
        }
        let r = qp_errors::take(bus)?;
        Some(qp_errors::handle(self, bus, &r))
    }

    /// Takes one step of the RQ flush sweep: asks the core to flush the receive queue of the next QP in the
    /// table if it is in ERROR (receive WRs the host posted after the QP's error; [`qp_errors::sweep`]).
    /// Returns the QP asked for. Nothing is asked before a successful boot.
    pub fn poll_flush(&mut self, bus: &mut impl Bus) -> Option<u32> {
        if self.boot.stage != BootStage::Ready {
            return None;
        }
        let at = self.sweep_at;
        self.sweep_at = if at + 1 >= self.limits.max_qps {
            0
        } else {
            at + 1
        };
        qp_errors::sweep(self, bus, at)
    }

    /// Samples the network port's status ([`port`]); a change becomes an event. Returns the new status if it
    /// changed. Nothing is sampled before a successful boot.
    pub fn poll_port(&mut self, bus: &mut impl Bus) -> Option<PortStatus> {
        if self.boot.stage != BootStage::Ready {
            return None;
        }
        port::watch(bus, &mut self.port, &mut self.events)
    }

    /// Serves the module's interrupt ([`port`]): while it is asserted, at most once per [`port::ALARM_GAP`]
    /// cycles, reads the module's state and latched flags and queues a MODULE_ALARM event. Returns the alarm.
    /// Nothing is read before a successful boot.
    pub fn poll_module(&mut self, bus: &mut impl Bus) -> Option<module::Alarm> {
        if self.boot.stage != BootStage::Ready || !port::module_interrupt(bus) {
            return None;
        }
        let now = bus.now();
        if self.module.last_read != 0 && now.wrapping_sub(self.module.last_read) < port::ALARM_GAP {
            return None;
        }
        self.module.last_read = now.max(1);
        match module::alarm(bus) {
            Ok(a) => {
                self.module.alarms += 1;
                self.events.push(
                    bus,
                    Event {
                        kind: EventType::ModuleAlarm,
                        status: a.state,
                        has_msn: false,
                        qpn: 0,
                        msn: a.flags,
                    },
                );
                Some(a)
            }
            Err(_) => {
                self.module.errors += 1;
                None
            }
        }
    }

    /// What the firmware did with the module's interrupt since boot.
    pub fn module_stats(&self) -> &ModuleStats {
        &self.module
    }

    /// What the firmware did with QP error reports since boot.
    pub fn error_stats(&self) -> &qp_errors::ErrorStats {
        &self.errors
    }

    /// The events queued for the host.
    pub fn events(&self) -> &events::EventQueue {
        &self.events
    }

    /// The network port's status as last sampled.
    pub fn port_status(&self) -> PortStatus {
        self.port
    }

    /// Boots, then serves commands, QP error reports, the port and exception packets forever (the image's
    /// main loop).
    pub fn run(&mut self, bus: &mut impl Bus) -> ! {
        self.boot(bus);
        loop {
            self.serve(bus);
            self.poll_errors(bus);
            self.poll_flush(bus);
            self.poll_port(bus);
            self.poll_module(bus);
            self.poll_packets(bus);
        }
    }

    /// The next pseudo-random word (xorshift32, seeded at boot from the host's `CONTROL.SEED` and the clock):
    /// initial sequence numbers, EV-set seeds and CID generations.
    pub(crate) fn random(&mut self) -> u32 {
        let mut x = self.seed | 1;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.seed = x;
        x
    }
}

/// Writes `metaroce-fw <major>.<minor>: ` and `text` to the console.
fn greet(bus: &mut impl Bus, text: &str) {
    console(bus, "metaroce-fw ");
    decimal(bus, VERSION_MAJOR);
    console(bus, ".");
    decimal(bus, VERSION_MINOR);
    console(bus, ": ");
    console(bus, text);
}

/// Writes `v` in decimal to the console.
fn decimal(bus: &mut impl Bus, v: u8) {
    let digits = [v / 100, v / 10 % 10, v % 10];
    let first = digits.iter().position(|&d| d != 0).unwrap_or(2);
    for d in &digits[first..] {
        bus.write(SYS_BASE + sys::CONSOLE, u32::from(b'0' + d));
    }
}

/// Writes `text` to the processor's console (`SYS.CONSOLE`), a byte at a time.
pub fn console(bus: &mut impl Bus, text: &str) {
    for b in text.bytes() {
        bus.write(SYS_BASE + sys::CONSOLE, u32::from(b));
    }
}

impl Default for Firmware {
    fn default() -> Self {
        Firmware::new()
    }
}
