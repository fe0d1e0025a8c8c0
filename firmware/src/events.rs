//! Asynchronous events: what the host must hear about without asking (a QP that entered ERROR, a change of the
//! network port's status). The firmware queues them, raises `IRQ.CAUSE.async_event`
//! ([`metaroce_regmap::fwbus::evt::RAISE`]) for each, and the host takes them, oldest first, with READ_EVENTS
//! ([`metaroce_regmap::command::Events`]). A full queue drops the new event and counts it (`lost`); the
//! interrupt is still raised, so the host comes to read.

use crate::bus::Bus;
use metaroce_regmap::command::{Event, EventType, Events, MAX_EVENTS_PER_READ};
use metaroce_regmap::fwbus::{evt, EVT_BASE};

/// Events the queue holds.
pub const QUEUE: usize = 32;

/// A queued event. All-zero is an empty slot, so the queue (inside [`crate::Firmware`]) starts in zeroed
/// memory and adds nothing to the image.
#[derive(Debug, Clone, Copy)]
struct Slot {
    kind: u8,
    status: u8,
    has_msn: bool,
    qpn: u32,
    msn: u32,
}

impl Slot {
    const EMPTY: Slot = Slot {
        kind: 0,
        status: 0,
        has_msn: false,
        qpn: 0,
        msn: 0,
    };

    fn event(&self) -> Option<Event> {
        Some(Event {
            kind: EventType::from_u8(self.kind)?,
            status: self.status,
            has_msn: self.has_msn,
            qpn: self.qpn,
            msn: self.msn,
        })
    }
}

/// The event queue (a ring of [`QUEUE`] events).
#[derive(Debug, Clone, Copy)]
pub struct EventQueue {
    slots: [Slot; QUEUE],
    head: usize,
    len: usize,
    lost: u32,
}

impl EventQueue {
    /// An empty queue.
    pub const fn new() -> EventQueue {
        EventQueue {
            slots: [Slot::EMPTY; QUEUE],
            head: 0,
            len: 0,
            lost: 0,
        }
    }

    /// Empties the queue and clears `lost` (boot).
    pub fn clear(&mut self) {
        *self = EventQueue::new();
    }

    /// Queues `ev` (or counts it lost when the queue is full) and raises the host's interrupt.
    pub fn push(&mut self, bus: &mut impl Bus, ev: Event) {
        if self.len == QUEUE {
            self.lost = self.lost.saturating_add(1);
        } else {
            self.slots[(self.head + self.len) % QUEUE] = Slot {
                kind: ev.kind as u8,
                status: ev.status,
                has_msn: ev.has_msn,
                qpn: ev.qpn,
                msn: ev.msn,
            };
            self.len += 1;
        }
        bus.write(EVT_BASE + evt::RAISE, 1);
    }

    /// Takes up to [`MAX_EVENTS_PER_READ`] events, oldest first (the READ_EVENTS response).
    pub fn take(&mut self) -> Events {
        let mut events = [None; MAX_EVENTS_PER_READ];
        let mut n = 0;
        while n < MAX_EVENTS_PER_READ && self.len > 0 {
            let slot = core::mem::replace(&mut self.slots[self.head], Slot::EMPTY);
            self.head = (self.head + 1) % QUEUE;
            self.len -= 1;
            // Only events of a known type are ever queued.
            if let Some(ev) = slot.event() {
                events[n] = Some(ev);
                n += 1;
            }
        }
        Events {
            count: n as u8,
            events,
            pending: self.len as u16,
            lost: self.lost,
        }
    }

    /// Events queued.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if no event is queued.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Events dropped because the queue was full, since boot.
    pub fn lost(&self) -> u32 {
        self.lost
    }
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue::new()
    }
}
