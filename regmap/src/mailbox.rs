//! The firmware command mailbox block.
//!
//! The host asks the firmware (a RISC-V core next to the datapath) to create, modify and destroy QPs, CQs and
//! memory regions, to describe the device and to read counters, one command at a time:
//!
//! 1. The host reads `STATUS` and waits until `busy` is 0.
//! 2. It writes the 64-byte request ([`crate::command::Request`]) into `REQ[0..16]` (request byte `i` is byte
//!    `i % 4` of `REQ[i / 4]`, little-endian) and then writes `CTRL` with `go = 1` and a `tag` of its choice. A
//!    write of `CTRL` while `busy` is 1 is ignored and counted (`cmd_ignored`).
//! 3. The device sets `busy`, clears `done`, and the firmware validates the request. Every field is checked
//!    (opcode, version, reserved bits, ranges against [`crate::caps::Limits`], handles, states); a request that
//!    fails gets a non-zero status ([`crate::command::Status`]) naming the first bad byte, and changes nothing.
//! 4. The firmware writes the response ([`crate::command::Response`]) into `RESP[0..16]`, then `STATUS` with
//!    `done = 1`, the status and the request's tag, and clears `busy`; if `CAUSE_ENABLE.mailbox_done` is set the
//!    device raises the async interrupt ([`crate::irq`]).
//! 5. The host waits for `done = 1` with its tag (polling or interrupt), then reads `RESP`.

use crate::block::{type_reg, version, version_reg, BlockLayout, BlockType, NEXT_REG};
use crate::field::{Access, Error, Register};

/// Bytes of a request and of a response.
pub const BUF_BYTES: u32 = 64;
/// Words of a request and of a response.
pub const BUF_WORDS: usize = 16;

/// Register offsets of the mailbox block.
pub mod reg {
    /// `CTRL`.
    pub const CTRL: u32 = 0x0C;
    /// `STATUS`.
    pub const STATUS: u32 = 0x10;
    /// `REQ_OFFSET`.
    pub const REQ_OFFSET: u32 = 0x14;
    /// `RESP_OFFSET`.
    pub const RESP_OFFSET: u32 = 0x18;
    /// `BUF_BYTES`.
    pub const BUF_BYTES: u32 = 0x1C;
    /// `REQ[0]`.
    pub const REQ: u32 = 0x40;
    /// `RESP[0]`.
    pub const RESP: u32 = 0x80;
}

/// Fields of the mailbox registers.
pub mod field {
    use crate::field::Field;
    /// `CTRL.go`.
    pub const GO: Field = Field::new("go", 0, 0, 1, "1: submit the request in REQ");
    /// `CTRL.tag`.
    pub const CTRL_TAG: Field = Field::new("tag", 0, 16, 16, "tag echoed in STATUS");
    /// `STATUS.busy`.
    pub const BUSY: Field = Field::new("busy", 0, 0, 1, "a command is being executed");
    /// `STATUS.done`.
    pub const DONE: Field =
        Field::new("done", 0, 1, 1, "the last command completed; RESP is valid");
    /// `STATUS.status`.
    pub const STATUS: Field = Field::new("status", 0, 8, 8, "completion status code (0 = OK)");
    /// `STATUS.tag`.
    pub const TAG: Field = Field::new("tag", 0, 16, 16, "tag of the completed command");
}

/// Layout version of this block.
pub const VERSION: u32 = version(1, 0);

/// The mailbox block's layout.
pub const BLOCK: BlockLayout = BlockLayout {
    kind: BlockType::Mailbox,
    version: VERSION,
    bytes: 0x100,
    doc: "Firmware command mailbox: one 64-byte request and one 64-byte response buffer.",
    regs: &[
        type_reg(BlockType::Mailbox),
        version_reg(VERSION),
        NEXT_REG,
        Register::new(
            "CTRL",
            reg::CTRL,
            Access::Wo,
            0,
            "submit a command",
            &[field::GO, field::CTRL_TAG],
        ),
        Register::new(
            "STATUS",
            reg::STATUS,
            Access::Ro,
            0,
            "command state",
            &[field::BUSY, field::DONE, field::STATUS, field::TAG],
        ),
        Register::new(
            "REQ_OFFSET",
            reg::REQ_OFFSET,
            Access::Ro,
            reg::REQ,
            "block offset of REQ[0]",
            &[],
        ),
        Register::new(
            "RESP_OFFSET",
            reg::RESP_OFFSET,
            Access::Ro,
            reg::RESP,
            "block offset of RESP[0]",
            &[],
        ),
        Register::new(
            "BUF_BYTES",
            reg::BUF_BYTES,
            Access::Ro,
            BUF_BYTES,
            "bytes of REQ and of RESP",
            &[],
        ),
        Register::array(
            "REQ",
            reg::REQ,
            BUF_WORDS as u32,
            Access::Rw,
            "request buffer",
        ),
        Register::array(
            "RESP",
            reg::RESP,
            BUF_WORDS as u32,
            Access::Ro,
            "response buffer",
        ),
    ],
};

/// The value written to `CTRL` to submit a request with `tag`.
pub fn ctrl_go(tag: u16) -> u32 {
    1 | (tag as u32) << 16
}

/// Decodes a `CTRL` write: `Some(tag)` for a submission, `None` for a write without `go`; reserved bits set
/// are an error.
pub fn decode_ctrl(value: u32) -> Result<Option<u16>, Error> {
    if value & 0x0000_FFFE != 0 {
        return Err(Error::Invalid { field: "CTRL" });
    }
    Ok((field::GO.extract(value) != 0).then_some(field::CTRL_TAG.extract(value) as u16))
}

/// The `STATUS` register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MailboxStatus {
    /// A command is being executed.
    pub busy: bool,
    /// The last command completed.
    pub done: bool,
    /// Its status code.
    pub status: u8,
    /// Its tag.
    pub tag: u16,
}

impl MailboxStatus {
    /// Encodes the register.
    pub fn to_word(&self) -> u32 {
        (self.busy as u32)
            | (self.done as u32) << 1
            | (self.status as u32) << 8
            | (self.tag as u32) << 16
    }

    /// Decodes the register; reserved bits set are an error.
    pub fn from_word(w: u32) -> Result<MailboxStatus, Error> {
        if w & 0x0000_00FC != 0 {
            return Err(Error::Invalid { field: "STATUS" });
        }
        Ok(MailboxStatus {
            busy: field::BUSY.extract(w) != 0,
            done: field::DONE.extract(w) != 0,
            status: field::STATUS.extract(w) as u8,
            tag: field::TAG.extract(w) as u16,
        })
    }
}

/// Packs a 64-byte buffer into the 16 little-endian words of `REQ` or `RESP`.
pub fn to_words(buf: &[u8; BUF_BYTES as usize]) -> [u32; BUF_WORDS] {
    let mut w = [0u32; BUF_WORDS];
    for (word, chunk) in w.iter_mut().zip(buf.chunks_exact(4)) {
        *word = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
    w
}

/// Unpacks the 16 words of `REQ` or `RESP` into a 64-byte buffer.
pub fn from_words(words: &[u32; BUF_WORDS]) -> [u8; BUF_BYTES as usize] {
    let mut b = [0u8; BUF_BYTES as usize];
    for (chunk, word) in b.chunks_exact_mut(4).zip(words.iter()) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    b
}
