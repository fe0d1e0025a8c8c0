//! The firmware's side of the command mailbox ([`metaroce_regmap::fwbus::mbox`]): a pending command, its
//! request words, and the response and status words the host reads.

use crate::bus::Bus;
use metaroce_regmap::command::{Opcode, Response, ResponseData, Status, CMD_BYTES};
use metaroce_regmap::fwbus::{mbox, MBOX_BASE};
use metaroce_regmap::mailbox::{from_words, to_words, MailboxStatus, BUF_WORDS};

/// The tag of the command the host submitted, if one waits.
pub fn pending(bus: &mut impl Bus) -> Option<u16> {
    let w = bus.read(MBOX_BASE + mbox::PENDING);
    (w & mbox::PENDING_GO != 0).then_some((w >> 16) as u16)
}

/// The request buffer.
pub fn read_request(bus: &mut impl Bus) -> [u8; CMD_BYTES] {
    let mut words = [0u32; BUF_WORDS];
    for (i, w) in words.iter_mut().enumerate() {
        *w = bus.read(MBOX_BASE + mbox::REQ + 4 * i as u32);
    }
    from_words(&words)
}

/// Posts `resp` to a request with opcode `op` (`None`: an unknown opcode): the response words, then the
/// status word that completes the command. Returns the status posted: a response that cannot be encoded (the
/// firmware's own bug) is posted as INTERNAL, never left unanswered.
pub fn respond(bus: &mut impl Bus, op: Option<Opcode>, resp: &Response) -> Status {
    let mut buf = [0u8; CMD_BYTES];
    let op = op.unwrap_or(Opcode::QueryDevice);
    let mut status = resp.status;
    if resp.emit(op, &mut buf).is_err() {
        status = Status::Internal;
        buf = [0u8; CMD_BYTES];
        let internal = Response {
            tag: resp.tag,
            status,
            bad_offset: None,
            data: ResponseData::None,
        };
        // An error response with no data always encodes.
        let _ = internal.emit(op, &mut buf);
    }
    for (i, w) in to_words(&buf).iter().enumerate() {
        bus.write(MBOX_BASE + mbox::RESP + 4 * i as u32, *w);
    }
    let st = MailboxStatus {
        busy: false,
        done: true,
        status: status as u8,
        tag: resp.tag,
    };
    bus.write(MBOX_BASE + mbox::STATUS, st.to_word());
    status
}
