//! The network port's status (link, transceiver module) as the board reports it on the core's `port_status`
//! input ([`metaroce_regmap::fwbus::evt::PORT`]). The firmware samples it on every turn of its service loop;
//! each change is a PORT_CHANGE event ([`crate::events`]) carrying the new status, and QUERY_DEVICE reports
//! the current one. A change that reverts between two samples (a glitch shorter than one turn) is not seen.
//!
//! The module's interrupt (`MODULE_INT`) is no port change: while it is asserted the firmware reads the
//! module's state and latched flags ([`crate::module::alarm`], which clears them) and reports a MODULE_ALARM
//! event, at most once per [`ALARM_GAP`] cycles (a module that keeps it asserted, or does not answer, costs
//! the service loop one read per gap).

use crate::bus::Bus;
use crate::events::EventQueue;
use metaroce_regmap::command::{Event, EventType};
use metaroce_regmap::fwbus::{evt, PortStatus, EVT_BASE};

/// Reads the port's status bits (undefined bits cleared).
pub fn read(bus: &mut impl Bus) -> PortStatus {
    PortStatus(bus.read(EVT_BASE + evt::PORT) as u8 & PortStatus::ALL.0)
}

/// Least core cycles between two reads of the module's flags.
pub const ALARM_GAP: u64 = 65_536;

/// The module's interrupt is asserted (and a module present).
pub fn module_interrupt(bus: &mut impl Bus) -> bool {
    let want = PortStatus::MODULE_INT.0 | PortStatus::MODULE_PRESENT.0;
    read(bus).0 & want == want
}

/// Samples the port; if its status (the module's interrupt aside) differs from `last`, records it there and
/// queues a PORT_CHANGE event. Returns the change, if any.
pub fn watch(
    bus: &mut impl Bus,
    last: &mut PortStatus,
    events: &mut EventQueue,
) -> Option<PortStatus> {
    let now = PortStatus(read(bus).0 & !PortStatus::MODULE_INT.0);
    if now == *last {
        return None;
    }
    *last = now;
    events.push(
        bus,
        Event {
            kind: EventType::PortChange,
            status: now.0,
            has_msn: false,
            qpn: 0,
            msn: 0,
        },
    );
    Some(now)
}
