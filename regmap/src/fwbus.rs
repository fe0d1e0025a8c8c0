//! The control processor's address space: what the firmware's loads and stores reach.
//!
//! | base | bytes | what |
//! |---|---|---|
//! | [`RAM_BASE`] | [`RAM_BYTES`] | instruction and data memory; the image is loaded at 0 and runs from 0 |
//! | [`MBOX_BASE`] | 0x100 | the firmware's side of the command mailbox ([`mbox`]) |
//! | [`SYS_BASE`] | 0x100 | the processor's own registers ([`sys`]): time, boot status, console, the module's management bus |
//! | [`PKT_BASE`] | 0x100 | the packet port ([`pkt`]): the core's exception packets in, control packets out |
//! | [`EVT_BASE`] | 0x100 | the event port ([`evt`]): QP error reports and the port's status in, the host's event interrupt out |
//! | [`REG_BASE`] | 16 MiB | the core's internal register bus at the host's BAR 0 offsets: the register blocks of [`crate::block::DEFAULT_MAP`] and the context-programming window ([`crate::ctxport`]) |
//!
//! Every access is a 32-bit word; byte and half-word stores are only meaningful in RAM. A load from an unmapped
//! address returns 0, a store to one is ignored; a load from the register bus that nobody answers returns all
//! ones after the bus's timeout.

/// Start of RAM.
pub const RAM_BASE: u32 = 0x0000_0000;
/// Bytes of RAM (code, data and stack).
pub const RAM_BYTES: u32 = 128 * 1024;
/// The largest firmware image (code and initialised data) the loader accepts: the first half of RAM; the second
/// holds the firmware's tables and the stack.
pub const IMAGE_BYTES: u32 = 64 * 1024;
/// Start of the mailbox window.
pub const MBOX_BASE: u32 = 0x1000_0000;
/// Start of the processor's own registers.
pub const SYS_BASE: u32 = 0x1100_0000;
/// Start of the packet port.
pub const PKT_BASE: u32 = 0x1200_0000;
/// Start of the event port.
pub const EVT_BASE: u32 = 0x1300_0000;
/// Start of the core's internal register bus.
pub const REG_BASE: u32 = 0x2000_0000;
/// Bytes of the register-bus window.
pub const REG_BYTES: u32 = 0x0100_0000;

/// The firmware's side of the command mailbox ([`crate::mailbox`] is the host's).
pub mod mbox {
    /// `PENDING` (RO): bit 0 a submitted command waits; bits 31:16 its tag. Set by the host's `CTRL` write
    /// with `go`, cleared by a write of [`STATUS`].
    pub const PENDING: u32 = 0x00;
    /// `STATUS` (WO): the host-visible `MAILBOX.STATUS` word ([`crate::mailbox::MailboxStatus`]); writing it
    /// completes the command (clears `PENDING`).
    pub const STATUS: u32 = 0x04;
    /// `REQ[0..16]` (RO): the request the host wrote.
    pub const REQ: u32 = 0x40;
    /// `RESP[0..16]` (WO): the host-visible `MAILBOX.RESP` words.
    pub const RESP: u32 = 0x80;
    /// `PENDING`'s bit 0.
    pub const PENDING_GO: u32 = 1;
}

/// The processor's own registers.
pub mod sys {
    /// `TIME_LO` (RO): core clock cycles since reset, low word (reading it latches `TIME_HI`).
    pub const TIME_LO: u32 = 0x00;
    /// `TIME_HI` (RO): the high word latched by the last `TIME_LO` read.
    pub const TIME_HI: u32 = 0x04;
    /// `BOOT` (RW): the firmware's boot status ([`BootStatus`](crate::fwbus::BootStatus) word), 0 at reset.
    pub const BOOT: u32 = 0x08;
    /// `CONSOLE` (WO): byte 0 is appended to the firmware's log stream.
    pub const CONSOLE: u32 = 0x0C;
    /// `I2C` (RW): the transceiver module's two-wire management bus, open drain (the core's `i2c_scl_oe` /
    /// `i2c_sda_oe` outputs pull a line low, `i2c_scl_i` / `i2c_sda_i` read it). Write: bit 0
    /// ([`I2C_SCL_LOW`]) pulls SCL low, bit 1 ([`I2C_SDA_LOW`]) pulls SDA low; 0 after reset (both released).
    /// Read: bits 1:0 as written, bit 8 ([`I2C_SCL_IN`]) the SCL line, bit 9 ([`I2C_SDA_IN`]) the SDA line,
    /// each through two synchronising flip-flops (two cycles late).
    pub const I2C: u32 = 0x10;
    /// `I2C` bit 0: pull SCL low.
    pub const I2C_SCL_LOW: u32 = 1 << 0;
    /// `I2C` bit 1: pull SDA low.
    pub const I2C_SDA_LOW: u32 = 1 << 1;
    /// `I2C` bit 8: the SCL line is high.
    pub const I2C_SCL_IN: u32 = 1 << 8;
    /// `I2C` bit 9: the SDA line is high.
    pub const I2C_SDA_IN: u32 = 1 << 9;
}

/// The packet port: records of [`crate::pktrec`] between the core's packet paths and the firmware.
///
/// The receive side holds one record in `RX_REC` and queues up to [`RX_QUEUE`](pkt::RX_QUEUE) more behind it,
/// in arrival order. When the queue is full, further exception packets are dropped and counted in
/// `RX_STATUS.lost` (their senders retransmit them, spec 7.3). The firmware releases the held record with
/// `RX_POP`, or hands it back to the receive path with `RX_REPLAY`: once the firmware has bound a connection,
/// a CTRL OPEN that arrived before the binding passes the receive pipeline again as if it came from the wire,
/// and the pipeline answers it like any CTRL OPEN of a live connection (the ACK of MR-REL-17). A replayed
/// record has no payload, so only payload-less packets (CTRL, ACK, NACK) may be replayed. While the processor
/// is stopped (`CONTROL.CTRL.run = 0`) the core's exception stream leaves on the core's `m_axis_exc` port
/// instead.
pub mod pkt {
    /// `RX_STATUS` (RO): bit 0 a record is held in `RX_REC`; bit 1 the held record is being replayed (it is
    /// released when the receive path takes it); bits 12:8 records queued behind the held one; bits 31:16
    /// exception packets dropped because the queue was full (saturating).
    pub const RX_STATUS: u32 = 0x00;
    /// `RX_POP` (WO): any write releases the held record (the next queued one, if any, takes its place).
    pub const RX_POP: u32 = 0x04;
    /// `TX_STATUS` (RO): bit 0 the record of the last `TX_SEND` has not been taken by the frame builder yet.
    pub const TX_STATUS: u32 = 0x08;
    /// `TX_SEND` (WO): any write offers `TX_REC` to the transmit path (ignored while `TX_STATUS` bit 0 is
    /// set); the core stamps `ts`.
    pub const TX_SEND: u32 = 0x0C;
    /// `RX_REPLAY` (WO): any write hands the held record back to the receive path, ahead of the next frame
    /// from the wire, as a packet without payload; the record is released when the receive path takes it.
    /// Ignored while no record is held or a replay is pending.
    pub const RX_REPLAY: u32 = 0x10;
    /// `RX_REC[0..16]` (RO): the held record, word k = bytes 4k..4k+3.
    pub const RX_REC: u32 = 0x40;
    /// `TX_REC[0..16]` (WO): the record to send.
    pub const TX_REC: u32 = 0x80;
    /// Bit 0 of `RX_STATUS` and `TX_STATUS`.
    pub const STATUS_BUSY: u32 = 1;
    /// `RX_STATUS` bit 1.
    pub const STATUS_REPLAYING: u32 = 2;
    /// The lsb of `RX_STATUS.queued`.
    pub const STATUS_QUEUED_LSB: u32 = 8;
    /// The lsb of `RX_STATUS.lost`.
    pub const STATUS_LOST_LSB: u32 = 16;
    /// Records the port queues behind the held one.
    pub const RX_QUEUE: u32 = 16;
}

/// The event port: what the core reports to the firmware besides packets, and the firmware's interrupt to the
/// host.
///
/// The QP error side holds one report of the transmit scheduler (a QP entered ERROR, MR-SEM-38). While it is
/// held the scheduler keeps the next one (it waits, nothing is lost). While the processor is stopped the reports
/// leave on the core's `m_axis_conn_err` port instead, and the core raises `IRQ.CAUSE.async_event` itself.
pub mod evt {
    /// `QPERR_STATUS` (RO): bit 0 a report is held in `QPERR_INFO` / `QPERR_MSN`; bit 1 a `QP_FAIL` request
    /// has not been taken by the transmit scheduler yet; bit 2 an `RQ_FLUSH` request has not been taken by the
    /// receive queue yet (it takes the next once the previous flush is done).
    pub const QPERR_STATUS: u32 = 0x00;
    /// `QPERR_POP` (WO): any write releases the held report.
    pub const QPERR_POP: u32 = 0x04;
    /// `QPERR_INFO` (RO): connection index bits 15:0, completion status (`CqeStatus`) bits 23:16, `has_msn`
    /// bit 24 (a started WR failed with the status; otherwise every WR completed `Flushed`).
    pub const QPERR_INFO: u32 = 0x08;
    /// `QPERR_MSN` (RO): the MSN of the WR that failed (when `has_msn`).
    pub const QPERR_MSN: u32 = 0x0C;
    /// `RAISE` (WO): any write sets `IRQ.CAUSE.async_event` (the host reads the events with READ_EVENTS).
    pub const RAISE: u32 = 0x10;
    /// `PORT` (RO): the network port's status, the core's `port_status` input ([`PortStatus`](crate::fwbus::PortStatus)).
    pub const PORT: u32 = 0x14;
    /// `QP_FAIL` (WO): bits 15:0 a connection index. The transmit scheduler fails the connection's QP as for
    /// an error the core found, with status `Flushed` (the oldest started WR, if any, and every other one
    /// complete `Flushed`, MR-SEM-38), and reports it like any QP error. A connection not open or already in
    /// ERROR ignores it. A write while the previous request is pending (`QPERR_STATUS` bit 1) is ignored.
    pub const QP_FAIL: u32 = 0x18;
    /// `RQ_FLUSH` (WO): bits 15:0 a QP index. The receive queue consumes every receive WQE posted to the QP and
    /// not consumed, in ring order, and completes each `Flushed` (opcode RECV, `byte_len` 0) into the QP's
    /// receive CQ, after every receive completion the core made before. WQEs posted while the flush runs are
    /// flushed too; those posted after it ends wait for the next request. For a QP in ERROR only (its
    /// connection closed, MR-SEM-38). A write while the previous request is pending (`QPERR_STATUS` bit 2) is
    /// ignored.
    pub const RQ_FLUSH: u32 = 0x1C;
    /// `QPERR_STATUS`'s bit 0.
    pub const STATUS_HELD: u32 = 1;
    /// `QPERR_STATUS`'s bit 1.
    pub const STATUS_FAIL_PENDING: u32 = 2;
    /// `QPERR_STATUS`'s bit 2.
    pub const STATUS_FLUSH_PENDING: u32 = 4;
    /// `QPERR_INFO`'s `has_msn` bit.
    pub const INFO_HAS_MSN: u32 = 1 << 24;
}

/// The network port's status bits, as the board's MAC and module cage report them on the core's
/// `port_status` input (and the firmware in `PORT`, QUERY_DEVICE and port events).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PortStatus(pub u8);

impl PortStatus {
    /// The link is up: the MAC sends and receives frames.
    pub const LINK_UP: PortStatus = PortStatus(1 << 0);
    /// A transceiver module (or cable) is present in the cage.
    pub const MODULE_PRESENT: PortStatus = PortStatus(1 << 1);
    /// The module reports a fault (loss of signal, over-temperature).
    pub const MODULE_FAULT: PortStatus = PortStatus(1 << 2);
    /// The module's interrupt line (IntL) is asserted: a latched flag awaits reading over the management bus.
    /// The firmware reads and clears the flags; this bit makes no PORT_CHANGE.
    pub const MODULE_INT: PortStatus = PortStatus(1 << 3);
    /// Every defined bit.
    pub const ALL: PortStatus = PortStatus(0xF);

    /// True if every bit of `other` is set.
    pub const fn contains(self, other: PortStatus) -> bool {
        self.0 & other.0 == other.0
    }
}

/// Boot stages of [`sys::BOOT`] bits 7:0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum BootStage {
    /// Reset: the firmware has not started.
    Reset = 0,
    /// The firmware runs its self-test.
    SelfTest = 1,
    /// Self-test passed; commands are served.
    Ready = 2,
    /// Self-test failed: `BOOT` bits 15:8 name the check; commands are answered INTERNAL.
    Failed = 3,
}

/// The `BOOT` word: stage (bits 7:0), failed check (bits 15:8), firmware version `major << 8 | minor`
/// (bits 31:16).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BootStatus {
    /// Stage.
    pub stage: BootStage,
    /// The failed self-test check (0 unless [`BootStage::Failed`]).
    pub check: u8,
    /// Firmware version, `major << 8 | minor`.
    pub version: u16,
}

impl BootStatus {
    /// Encodes the word.
    pub const fn to_word(self) -> u32 {
        self.stage as u32 | (self.check as u32) << 8 | (self.version as u32) << 16
    }

    /// Decodes a word; an unknown stage is `None`.
    pub const fn from_word(w: u32) -> Option<BootStatus> {
        let stage = match w & 0xFF {
            0 => BootStage::Reset,
            1 => BootStage::SelfTest,
            2 => BootStage::Ready,
            3 => BootStage::Failed,
            _ => return None,
        };
        Some(BootStatus {
            stage,
            check: (w >> 8) as u8,
            version: (w >> 16) as u16,
        })
    }
}
