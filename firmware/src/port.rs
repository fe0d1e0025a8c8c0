//! The network port's status (link, transceiver module) as the board reports it on the core's `port_status`
//! input ([`metaroce_regmap::fwbus::evt::PORT`]). The firmware samples it on every turn of its service loop;
//! each change is a PORT_CHANGE event ([`crate::events`]) carrying the new status, and QUERY_DEVICE reports
//! the current one. A change that reverts between two samples (a glitch shorter than one turn) is not seen.

use crate::bus::Bus;
use crate::events::EventQueue;
use metaroce_regmap::command::{Event, EventType};
use metaroce_regmap::fwbus::{evt, PortStatus, EVT_BASE};

/// Reads the port's status bits (undefined bits cleared).
pub fn read(bus: &mut impl Bus) -> PortStatus {
    PortStatus(bus.read(EVT_BASE + evt::PORT) as u8 & PortStatus::ALL.0)
}

/// Samples the port; if its status differs from `last`, records it there and queues a PORT_CHANGE event.
/// Returns the change, if any.
pub fn watch(
    bus: &mut impl Bus,
    last: &mut PortStatus,
    events: &mut EventQueue,
) -> Option<PortStatus> {
    let now = read(bus);
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
