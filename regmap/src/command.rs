//! Mailbox command and response formats, and the validation every command goes through.
//!
//! A request and a response are 64 bytes each (the mailbox's `REQ` and `RESP` buffers, [`crate::mailbox`]).
//! Both start with an 8-byte header; the arguments follow at byte 8. [`Request::parse`] is the firmware's
//! validation: it checks, in this order, the version, the opcode, that every reserved bit is zero, and every
//! argument's range against the device [`Limits`], and returns the first failure as a [`CmdError`] with a
//! [`Status`] and the byte offset of the offending field. Checks that need the device's state (does the QP exist,
//! is the transition allowed, is the CQ still used) are the firmware's, with [`Status::BadHandle`],
//! [`Status::BadState`] and [`Status::NoResources`]; [`QpState::modify_allowed`] is the transition rule.

use crate::caps::{Limits, MAX_RING_LOG, MIN_RING_LOG};
use crate::context::mr::MrAccess;
use crate::descriptor::cqe::code_enum;
use crate::field::{Error, Field, Layout};
use crate::mailbox::BUF_BYTES;
use crate::queues::RING_ALIGN;
use core::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Size of a request or response buffer.
pub const CMD_BYTES: usize = BUF_BYTES as usize;
/// Version of the command format (the header's `version` byte).
pub const CMD_VERSION: u8 = 1;
/// Counters one `READ_COUNTERS` returns at most.
pub const MAX_COUNTERS_PER_READ: u8 = 7;
/// Events one `READ_EVENTS` returns at most.
pub const MAX_EVENTS_PER_READ: usize = 4;
/// Bytes one `READ_MODULE` returns at most.
pub const MAX_MODULE_BYTES: usize = 48;

/// Request header fields.
pub mod hdr {
    use crate::field::Field;
    /// `opcode`.
    pub const OPCODE: Field = Field::new("opcode", 0, 0, 8, "command opcode");
    /// `version`.
    pub const VERSION: Field = Field::new("version", 1, 0, 8, "command format version, 1");
    /// `tag`.
    pub const TAG: Field = Field::new("tag", 2, 0, 16, "caller's tag, echoed in the response");
    /// Response `status`.
    pub const STATUS: Field = Field::new("status", 0, 0, 8, "status code");
    /// Response `bad_offset`.
    pub const BAD_OFFSET: Field = Field::new(
        "bad_offset",
        4,
        0,
        16,
        "byte offset of the first invalid request field; 0xFFFF if none",
    );
}

/// Argument fields (byte offsets within the 64-byte request or response).
pub mod arg {
    use crate::field::Field;
    /// CREATE_CQ `ring_addr`.
    pub const CQ_RING: Field =
        Field::new("ring_addr", 8, 0, 64, "CQ ring base address, 4 KiB aligned");
    /// CREATE_CQ `log_size`.
    pub const CQ_LOG: Field = Field::new(
        "log_size",
        16,
        0,
        8,
        "log2 of the ring entries, 1..=QUEUE_LOG.cq",
    );
    /// CREATE_CQ `msix_vector`.
    pub const CQ_VECTOR: Field = Field::new(
        "msix_vector",
        18,
        0,
        16,
        "interrupt vector, below MSIX.vectors",
    );
    /// CREATE_CQ `mod_usec`.
    pub const CQ_USEC: Field = Field::new("mod_usec", 20, 0, 16, "interrupt holdoff, microseconds");
    /// CREATE_CQ `mod_count`.
    pub const CQ_COUNT: Field = Field::new(
        "mod_count",
        22,
        0,
        16,
        "CQEs that end the holdoff (0: time only)",
    );
    /// `cqn` (MODIFY_CQ, DESTROY_CQ, responses).
    pub const CQN: Field = Field::new("cqn", 8, 0, 32, "CQ number, below MAX_CQS");
    /// MODIFY_CQ `mod_usec`.
    pub const MCQ_USEC: Field =
        Field::new("mod_usec", 12, 0, 16, "interrupt holdoff, microseconds");
    /// MODIFY_CQ `mod_count`.
    pub const MCQ_COUNT: Field = Field::new(
        "mod_count",
        14,
        0,
        16,
        "CQEs that end the holdoff (0: time only)",
    );
    /// CREATE_QP `sq_addr`.
    pub const SQ_ADDR: Field =
        Field::new("sq_addr", 8, 0, 64, "send queue ring base, 4 KiB aligned");
    /// CREATE_QP `rq_addr`.
    pub const RQ_ADDR: Field = Field::new(
        "rq_addr",
        16,
        0,
        64,
        "receive queue ring base, 4 KiB aligned",
    );
    /// CREATE_QP `send_cqn`.
    pub const SEND_CQN: Field = Field::new("send_cqn", 24, 0, 32, "CQ of send completions");
    /// CREATE_QP `recv_cqn`.
    pub const RECV_CQN: Field = Field::new("recv_cqn", 28, 0, 32, "CQ of receive completions");
    /// CREATE_QP `sq_log`.
    pub const SQ_LOG: Field = Field::new(
        "sq_log",
        32,
        0,
        8,
        "log2 of the SQ entries, 1..=QUEUE_LOG.sq",
    );
    /// CREATE_QP `rq_log`.
    pub const RQ_LOG: Field = Field::new(
        "rq_log",
        33,
        0,
        8,
        "log2 of the RQ entries, 1..=QUEUE_LOG.rq",
    );
    /// `qpn` (MODIFY_QP, DESTROY_QP, responses).
    pub const QPN: Field = Field::new("qpn", 8, 0, 32, "QP number, 1..MAX_QPS");
    /// MODIFY_QP `state`.
    pub const QP_STATE: Field = Field::new(
        "state",
        12,
        0,
        8,
        "target state: 0 RESET, 1 INIT, 2 READY, 3 ERROR",
    );
    /// MODIFY_QP `ip_version`.
    pub const IP_VERSION: Field = Field::new(
        "ip_version",
        13,
        0,
        8,
        "4 or 6 with state READY (remote fields valid), else 0",
    );
    /// MODIFY_QP `remote_qpn`.
    pub const REMOTE_QPN: Field = Field::new(
        "remote_qpn",
        16,
        0,
        32,
        "peer QP number, 1..2^24-1 (READY only)",
    );
    /// MODIFY_QP `remote_mac`.
    pub const REMOTE_MAC: Field = Field::new(
        "remote_mac",
        20,
        0,
        48,
        "peer (next-hop) MAC, network order",
    );
    /// MODIFY_QP `remote_ip`.
    pub const REMOTE_IP: Field = Field::new(
        "remote_ip",
        28,
        0,
        128,
        "peer IP, network order; IPv4 in the first 4 bytes, the rest 0",
    );
    /// CREATE_MR `addr`.
    pub const MR_ADDR: Field = Field::new("addr", 8, 0, 64, "region start");
    /// CREATE_MR `length`.
    pub const MR_LENGTH: Field = Field::new(
        "length",
        16,
        0,
        64,
        "region length, non-zero, no overflow (MR-SEM-3)",
    );
    /// CREATE_MR `access`.
    pub const MR_ACCESS: Field = Field::new(
        "access",
        24,
        0,
        8,
        "rights: LOCAL_WRITE 1, REMOTE_WRITE 2 (needs LOCAL_WRITE, MR-SEM-4), REMOTE_READ 4, REMOTE_ATOMIC 8",
    );
    /// `lkey` (MODIFY_MR, DESTROY_MR, responses).
    pub const LKEY: Field = Field::new(
        "lkey",
        8,
        0,
        32,
        "local key; slot (lkey >> 8) below MAX_MRS",
    );
    /// MODIFY_MR `access`.
    pub const MMR_ACCESS: Field = Field::new("access", 12, 0, 8, "new rights, as for CREATE_MR");
    /// CREATE_MR response `rkey`.
    pub const RKEY: Field = Field::new("rkey", 12, 0, 32, "remote key");
    /// READ_COUNTERS `first`.
    pub const CTR_FIRST: Field = Field::new("first", 8, 0, 16, "index of the first counter");
    /// READ_COUNTERS `count`.
    pub const CTR_COUNT: Field = Field::new(
        "count",
        10,
        0,
        8,
        "counters to read, 1..=7, first + count <= COUNT",
    );
    /// QUERY_DEVICE response `fw_version`.
    pub const FW_VERSION: Field = Field::new(
        "fw_version",
        8,
        0,
        32,
        "firmware version, major << 16 | minor",
    );
    /// QUERY_DEVICE response `free_qps`.
    pub const FREE_QPS: Field = Field::new("free_qps", 12, 0, 32, "QPs that can still be created");
    /// QUERY_DEVICE response `free_cqs`.
    pub const FREE_CQS: Field = Field::new("free_cqs", 16, 0, 32, "CQs that can still be created");
    /// QUERY_DEVICE response `free_mrs`.
    pub const FREE_MRS: Field = Field::new("free_mrs", 20, 0, 32, "MR slots free");
    /// QUERY_DEVICE response `free_conns`.
    pub const FREE_CONNS: Field = Field::new("free_conns", 24, 0, 32, "connection contexts free");
    /// QUERY_DEVICE response `exceptions`.
    pub const EXCEPTIONS: Field = Field::new(
        "exceptions",
        28,
        0,
        32,
        "exception packets the firmware took since boot",
    );
    /// QUERY_DEVICE response `bound`.
    pub const BOUND: Field = Field::new(
        "bound",
        32,
        0,
        32,
        "connections the firmware bound to their peer since boot",
    );
    /// QUERY_DEVICE response `announced`.
    pub const ANNOUNCED: Field = Field::new("announced", 36, 0, 32, "CTRL OPENs sent since boot");
    /// QUERY_DEVICE response `refused`.
    pub const REFUSED: Field = Field::new(
        "refused",
        40,
        0,
        32,
        "opening packets refused (MR-CONN-13), restarts and other exceptions not handled",
    );
    /// QUERY_DEVICE response `exc_lost`.
    pub const EXC_LOST: Field = Field::new(
        "exc_lost",
        44,
        0,
        16,
        "exception packets dropped because the packet port's queue was full (saturating)",
    );
    /// QUERY_DEVICE response `port`.
    pub const PORT: Field = Field::new(
        "port",
        46,
        0,
        8,
        "the network port's status: bit 0 link up, 1 module present, 2 module fault",
    );
    /// QUERY_DEVICE response `qp_errors`.
    pub const QP_ERRORS: Field = Field::new(
        "qp_errors",
        48,
        0,
        32,
        "QPs the device moved to ERROR since boot (each also an event)",
    );
    /// QUERY_DEVICE response `replayed`.
    pub const REPLAYED: Field = Field::new(
        "replayed",
        52,
        0,
        32,
        "exception packets handed back to the receive path since boot (CTRL OPENs of bound connections, answered by the core, MR-REL-17)",
    );
    /// READ_MODULE `page`.
    pub const MOD_PAGE: Field = Field::new(
        "page",
        8,
        0,
        8,
        "the module's upper page mapped at bytes 128..255 for this read (CMIS page select, byte 127); ignored when the read stays below byte 128",
    );
    /// READ_MODULE `offset`.
    pub const MOD_OFFSET: Field =
        Field::new("offset", 9, 0, 8, "first byte of the module's memory map");
    /// READ_MODULE `length`.
    pub const MOD_LENGTH: Field = Field::new(
        "length",
        10,
        0,
        8,
        "bytes to read, 1..=48, offset + length <= 256",
    );
    /// READ_MODULE response `count`.
    pub const MOD_COUNT: Field =
        Field::new("count", 8, 0, 8, "bytes returned (the request's length)");
    /// READ_MODULE response `data`, 16 bytes per field: the module's bytes `offset..offset + count` in order,
    /// the rest 0.
    pub const MOD_DATA: [Field; 3] = [
        Field::new("data0", 16, 0, 128, "module bytes offset..offset + 16"),
        Field::new("data1", 32, 0, 128, "module bytes offset + 16..offset + 32"),
        Field::new("data2", 48, 0, 128, "module bytes offset + 32..offset + 48"),
    ];
    /// QUERY_QP response `state`.
    pub const QQ_STATE: Field = Field::new(
        "state",
        12,
        0,
        8,
        "current state: 0 RESET, 1 INIT, 2 READY, 3 ERROR",
    );
    /// QUERY_QP response `ip_version`.
    pub const QQ_IP_VERSION: Field = Field::new(
        "ip_version",
        13,
        0,
        8,
        "4 or 6 once the QP was connected (remote fields valid), else 0",
    );
    /// QUERY_QP response `cid`.
    pub const QQ_CID: Field = Field::new(
        "cid",
        44,
        0,
        32,
        "the QP's connection (its own CID); 0 if none (not READY, or closed after an error)",
    );
    /// QUERY_QP response `peer_cid`.
    pub const QQ_PEER_CID: Field = Field::new(
        "peer_cid",
        48,
        0,
        32,
        "the peer's CID once the connection is bound to it, else 0",
    );
    /// QUERY_QP response `isn`.
    pub const QQ_ISN: Field = Field::new("isn", 52, 0, 32, "the send direction's ISN");
    /// QUERY_QP response `peer_isn`.
    pub const QQ_PEER_ISN: Field =
        Field::new("peer_isn", 56, 0, 32, "the peer's ISN once bound, else 0");
    /// SET_CC / QUERY_CC `line_rate_mbps`.
    pub const CC_LINE_RATE: Field =
        Field::new("line_rate_mbps", 8, 0, 32, "line rate, Mb/s (>= 1; spec 6)");
    /// SET_CC / QUERY_CC `base_rtt_ns`.
    pub const CC_BASE_RTT: Field = Field::new(
        "base_rtt_ns",
        12,
        0,
        32,
        "base RTT of the fabric, ns (>= 1; spec 6.2)",
    );
    /// SET_CC / QUERY_CC `rto_min_ns`.
    pub const CC_RTO_MIN: Field =
        Field::new("rto_min_ns", 16, 0, 32, "minimum RTO, ns (>= 1; spec 4.6)");
    /// SET_CC / QUERY_CC `rto_init_ns`.
    pub const CC_RTO_INIT: Field = Field::new(
        "rto_init_ns",
        20,
        0,
        32,
        "RTO before the first RTT sample, ns (>= 1)",
    );
    /// SET_CC / QUERY_CC `rto_max_ns`.
    pub const CC_RTO_MAX: Field =
        Field::new("rto_max_ns", 24, 0, 32, "maximum RTO, ns (>= rto_min_ns)");
    /// SET_CC / QUERY_CC `ack_delay_ns`.
    pub const CC_ACK_DELAY: Field = Field::new(
        "ack_delay_ns",
        28,
        0,
        16,
        "longest ACK delay when ack_ratio > 1, ns (spec 4.4)",
    );
    /// SET_CC / QUERY_CC `ack_ratio`.
    pub const CC_ACK_RATIO: Field = Field::new(
        "ack_ratio",
        30,
        0,
        8,
        "accepted DATA packets per ACK, 1..=64",
    );
    /// SET_CC / QUERY_CC `retry_limit`.
    pub const CC_RETRY_LIMIT: Field = Field::new(
        "retry_limit",
        31,
        0,
        8,
        "timeouts without progress before ERROR, 0..=7 (spec 4.12)",
    );
    /// SET_CC / QUERY_CC `reorder_distance`.
    pub const CC_REORDER: Field = Field::new(
        "reorder_distance",
        32,
        0,
        16,
        "loss-detection distance, packets (>= 16; spec 4.8)",
    );
    /// QUERY_CC response `target_qdelay_ns`.
    pub const CC_TARGET: Field = Field::new(
        "target_qdelay_ns",
        36,
        0,
        32,
        "NSCC queuing-delay target, ns (fixed in v0.1)",
    );
    /// QUERY_CC response `min_rtt_window_ns`.
    pub const CC_MIN_RTT_WINDOW: Field = Field::new(
        "min_rtt_window_ns",
        40,
        0,
        32,
        "min-RTT window, ns (fixed in v0.1)",
    );
    /// READ_EVENTS response `count`.
    pub const EV_COUNT: Field = Field::new("count", 8, 0, 8, "events in this response, 0..=4");
    /// READ_EVENTS response `pending`.
    pub const EV_PENDING: Field = Field::new(
        "pending",
        10,
        0,
        16,
        "events still queued after this response",
    );
    /// READ_EVENTS response `lost`.
    pub const EV_LOST: Field = Field::new(
        "lost",
        12,
        0,
        32,
        "events dropped since boot because the queue was full",
    );
    /// READ_EVENTS response: event k's `type` ([`EventType`](crate::command::EventType)), k = 0..4.
    pub const EV_TYPE: [Field; 4] = [
        Field::new(
            "ev0_type",
            16,
            0,
            8,
            "event 0: type (1 QP_ERROR, 2 PORT_CHANGE, 3 MODULE_ALARM)",
        ),
        Field::new("ev1_type", 28, 0, 8, "event 1: type"),
        Field::new("ev2_type", 40, 0, 8, "event 2: type"),
        Field::new("ev3_type", 52, 0, 8, "event 3: type"),
    ];
    /// READ_EVENTS response: event k's `status`.
    pub const EV_STATUS: [Field; 4] = [
        Field::new(
            "ev0_status",
            17,
            0,
            8,
            "event 0: QP_ERROR the failing WR's completion status; PORT_CHANGE the new port status; MODULE_ALARM the module state (CMIS byte 3 bits 3:1)",
        ),
        Field::new("ev1_status", 29, 0, 8, "event 1: status"),
        Field::new("ev2_status", 41, 0, 8, "event 2: status"),
        Field::new("ev3_status", 53, 0, 8, "event 3: status"),
    ];
    /// READ_EVENTS response: event k's `has_msn` flag.
    pub const EV_HAS_MSN: [Field; 4] = [
        Field::new(
            "ev0_has_msn",
            18,
            0,
            1,
            "event 0: QP_ERROR a started WR (msn) failed with status; else every WR completed FLUSHED",
        ),
        Field::new("ev1_has_msn", 30, 0, 1, "event 1: has_msn"),
        Field::new("ev2_has_msn", 42, 0, 1, "event 2: has_msn"),
        Field::new("ev3_has_msn", 54, 0, 1, "event 3: has_msn"),
    ];
    /// READ_EVENTS response: event k's `qpn`.
    pub const EV_QPN: [Field; 4] = [
        Field::new("ev0_qpn", 20, 0, 32, "event 0: QP_ERROR the QP; else 0"),
        Field::new("ev1_qpn", 32, 0, 32, "event 1: qpn"),
        Field::new("ev2_qpn", 44, 0, 32, "event 2: qpn"),
        Field::new("ev3_qpn", 56, 0, 32, "event 3: qpn"),
    ];
    /// READ_EVENTS response: event k's `msn`.
    pub const EV_MSN: [Field; 4] = [
        Field::new(
            "ev0_msn",
            24,
            0,
            32,
            "event 0: QP_ERROR the failing WR's MSN (has_msn); MODULE_ALARM the module's latched flags, CMIS bytes 8 (bits 7:0) to 11 (31:24)",
        ),
        Field::new("ev1_msn", 36, 0, 32, "event 1: msn"),
        Field::new("ev2_msn", 48, 0, 32, "event 2: msn"),
        Field::new("ev3_msn", 60, 0, 32, "event 3: msn"),
    ];
    /// READ_COUNTERS response values.
    pub const VALUES: [Field; 7] = [
        Field::new("value0", 8, 0, 64, "counter first"),
        Field::new("value1", 16, 0, 64, "counter first + 1"),
        Field::new("value2", 24, 0, 64, "counter first + 2"),
        Field::new("value3", 32, 0, 64, "counter first + 3"),
        Field::new("value4", 40, 0, 64, "counter first + 4"),
        Field::new("value5", 48, 0, 64, "counter first + 5"),
        Field::new("value6", 56, 0, 64, "counter first + 6"),
    ];
}

code_enum! {
    /// Command opcodes.
    Opcode {
        /// Describe the device (free resources, firmware version).
        QueryDevice = 0x01, "QUERY_DEVICE";
        /// Create a completion queue.
        CreateCq = 0x10, "CREATE_CQ";
        /// Change a CQ's interrupt moderation.
        ModifyCq = 0x11, "MODIFY_CQ";
        /// Destroy a CQ (no QP may use it).
        DestroyCq = 0x12, "DESTROY_CQ";
        /// Create a QP (in INIT, MR-CONN-39).
        CreateQp = 0x20, "CREATE_QP";
        /// Move a QP to another state; READY also connects it (Table 7.10).
        ModifyQp = 0x21, "MODIFY_QP";
        /// Destroy a QP: outstanding WRs complete FLUSHED, its connection is freed.
        DestroyQp = 0x22, "DESTROY_QP";
        /// Read a QP's state, its peer and its connection.
        QueryQp = 0x23, "QUERY_QP";
        /// Register a memory region (MR-SEM-3..6).
        CreateMr = 0x30, "CREATE_MR";
        /// Change a memory region's rights.
        ModifyMr = 0x31, "MODIFY_MR";
        /// Deregister a memory region (MR-SEM-7).
        DestroyMr = 0x32, "DESTROY_MR";
        /// Read up to seven counters from one snapshot.
        ReadCounters = 0x40, "READ_COUNTERS";
        /// Take up to four asynchronous events from the firmware's event queue.
        ReadEvents = 0x50, "READ_EVENTS";
        /// Set the congestion-control and loss-recovery parameters (spec Table 10.2).
        SetCc = 0x60, "SET_CC";
        /// Read the congestion-control and loss-recovery parameters the device uses.
        QueryCc = 0x61, "QUERY_CC";
        /// Read bytes of the transceiver module's management memory (CMIS, over its two-wire bus).
        ReadModule = 0x70, "READ_MODULE";
    }
}

code_enum! {
    /// Asynchronous event types (READ_EVENTS).
    EventType {
        /// A QP entered ERROR (MR-SEM-38): its send queue was flushed by the device, its connection closed;
        /// the host flushes the receive WRs it posted and moves the QP to RESET.
        QpError = 1, "QP_ERROR";
        /// The network port's status changed (link, module): `status` holds the new status bits
        /// (`fwbus::PortStatus`: 0 link up, 1 module present, 2 module fault).
        PortChange = 2, "PORT_CHANGE";
        /// The transceiver module raised its interrupt: `status` holds its state (CMIS byte 3 bits 3:1, 5
        /// ModuleFault) and `msn` its latched flags (CMIS bytes 8 to 11: module state changed, temperature and
        /// supply alarms and warnings, auxiliary monitors), which the read cleared.
        ModuleAlarm = 3, "MODULE_ALARM";
    }
}

code_enum! {
    /// Response status codes.
    Status {
        /// The command was executed.
        Ok = 0, "OK";
        /// Unknown opcode.
        BadOpcode = 1, "BAD_OPCODE";
        /// Unknown command format version.
        BadVersion = 2, "BAD_VERSION";
        /// A reserved bit is set (`bad_offset`: its byte).
        BadReserved = 3, "BAD_RESERVED";
        /// An argument is out of range (`bad_offset`: the field).
        BadParam = 4, "BAD_PARAM";
        /// A handle (QPN, CQN, key) names nothing that exists (`bad_offset`: the field).
        BadHandle = 5, "BAD_HANDLE";
        /// The object's state does not allow the command (QP transition not in Table 7.10, CQ still in use).
        BadState = 6, "BAD_STATE";
        /// No free QP, CQ, MR slot or connection context.
        NoResources = 7, "NO_RESOURCES";
        /// The firmware failed; the device may need a reset.
        Internal = 8, "INTERNAL";
        /// A device behind the NIC did not answer: the transceiver module did not acknowledge its address,
        /// held the management bus, or stretched its clock past the firmware's limit (READ_MODULE).
        DeviceError = 9, "DEVICE_ERROR";
    }
}

code_enum! {
    /// QP states (MR-CONN-39, Table 7.10).
    QpState {
        /// Created, not usable.
        Reset = 0, "RESET";
        /// Receive WRs may be posted.
        Init = 1, "INIT";
        /// Connected: send and receive.
        Ready = 2, "READY";
        /// All WRs flushed.
        Error = 3, "ERROR";
    }
}

impl QpState {
    /// True if MODIFY_QP may move a QP from `self` to `to`: RESET → INIT, INIT → READY (with the remote QP),
    /// INIT or READY → ERROR, ERROR → RESET (Table 7.10; the management move to ERROR is the verbs one).
    pub const fn modify_allowed(self, to: QpState) -> bool {
        matches!(
            (self, to),
            (QpState::Reset, QpState::Init)
                | (QpState::Init, QpState::Ready)
                | (QpState::Init, QpState::Error)
                | (QpState::Ready, QpState::Error)
                | (QpState::Error, QpState::Reset)
        )
    }
}

const H: [Field; 3] = [hdr::OPCODE, hdr::VERSION, hdr::TAG];
const R: [Field; 4] = [hdr::STATUS, hdr::VERSION, hdr::TAG, hdr::BAD_OFFSET];

macro_rules! lay {
    ($name:literal, $doc:literal, $h:ident; $($f:expr),*) => {
        Layout { name: $name, bytes: CMD_BYTES as u32, doc: $doc, fields: &[$h[0], $h[1], $h[2], $($f),*] }
    };
}

/// Request layouts, one per opcode (in [`Opcode::ALL`] order).
pub const REQUESTS: [Layout; 16] = [
    lay!("QUERY_DEVICE", "no arguments", H;),
    lay!("CREATE_CQ", "create a completion queue", H; arg::CQ_RING, arg::CQ_LOG, arg::CQ_VECTOR, arg::CQ_USEC, arg::CQ_COUNT),
    lay!("MODIFY_CQ", "change a CQ's moderation", H; arg::CQN, arg::MCQ_USEC, arg::MCQ_COUNT),
    lay!("DESTROY_CQ", "destroy a CQ", H; arg::CQN),
    lay!("CREATE_QP", "create a QP", H; arg::SQ_ADDR, arg::RQ_ADDR, arg::SEND_CQN, arg::RECV_CQN, arg::SQ_LOG, arg::RQ_LOG),
    lay!("MODIFY_QP", "change a QP's state; READY connects it", H;
        arg::QPN, arg::QP_STATE, arg::IP_VERSION, arg::REMOTE_QPN, arg::REMOTE_MAC, arg::REMOTE_IP),
    lay!("DESTROY_QP", "destroy a QP", H; arg::QPN),
    lay!("QUERY_QP", "read a QP's state, peer and connection", H; arg::QPN),
    lay!("CREATE_MR", "register a memory region", H; arg::MR_ADDR, arg::MR_LENGTH, arg::MR_ACCESS),
    lay!("MODIFY_MR", "change a region's rights", H; arg::LKEY, arg::MMR_ACCESS),
    lay!("DESTROY_MR", "deregister a memory region", H; arg::LKEY),
    lay!("READ_COUNTERS", "read counters", H; arg::CTR_FIRST, arg::CTR_COUNT),
    lay!("READ_EVENTS", "take queued asynchronous events, oldest first", H;),
    lay!("SET_CC", "set the congestion-control and loss-recovery parameters", H;
        arg::CC_LINE_RATE, arg::CC_BASE_RTT, arg::CC_RTO_MIN, arg::CC_RTO_INIT, arg::CC_RTO_MAX,
        arg::CC_ACK_DELAY, arg::CC_ACK_RATIO, arg::CC_RETRY_LIMIT, arg::CC_REORDER),
    lay!("QUERY_CC", "no arguments", H;),
    lay!("READ_MODULE", "read the transceiver module's management memory", H; arg::MOD_PAGE, arg::MOD_OFFSET, arg::MOD_LENGTH),
];

/// The 64-byte response layout of a response header alone.
const fn resp(name: &'static str, doc: &'static str, fields: &'static [Field]) -> Layout {
    Layout {
        name,
        bytes: CMD_BYTES as u32,
        doc,
        fields,
    }
}

/// Response layouts, one per opcode (in [`Opcode::ALL`] order). Error responses carry the header only.
pub const RESPONSES: [Layout; 16] = [
    resp(
        "QUERY_DEVICE",
        "free resources and firmware version",
        &[
            R[0],
            R[1],
            R[2],
            R[3],
            arg::FW_VERSION,
            arg::FREE_QPS,
            arg::FREE_CQS,
            arg::FREE_MRS,
            arg::FREE_CONNS,
            arg::EXCEPTIONS,
            arg::BOUND,
            arg::ANNOUNCED,
            arg::REFUSED,
            arg::EXC_LOST,
            arg::PORT,
            arg::QP_ERRORS,
            arg::REPLAYED,
        ],
    ),
    resp(
        "CREATE_CQ",
        "the new CQ",
        &[R[0], R[1], R[2], R[3], arg::CQN],
    ),
    resp("MODIFY_CQ", "header only", &[R[0], R[1], R[2], R[3]]),
    resp("DESTROY_CQ", "header only", &[R[0], R[1], R[2], R[3]]),
    resp(
        "CREATE_QP",
        "the new QP (in INIT)",
        &[R[0], R[1], R[2], R[3], arg::QPN],
    ),
    resp("MODIFY_QP", "header only", &[R[0], R[1], R[2], R[3]]),
    resp("DESTROY_QP", "header only", &[R[0], R[1], R[2], R[3]]),
    resp(
        "QUERY_QP",
        "the QP's state, peer and connection",
        &[
            R[0],
            R[1],
            R[2],
            R[3],
            arg::QPN,
            arg::QQ_STATE,
            arg::QQ_IP_VERSION,
            arg::REMOTE_QPN,
            arg::REMOTE_MAC,
            arg::REMOTE_IP,
            arg::QQ_CID,
            arg::QQ_PEER_CID,
            arg::QQ_ISN,
            arg::QQ_PEER_ISN,
        ],
    ),
    resp(
        "CREATE_MR",
        "the region's keys",
        &[R[0], R[1], R[2], R[3], arg::LKEY, arg::RKEY],
    ),
    resp("MODIFY_MR", "header only", &[R[0], R[1], R[2], R[3]]),
    resp("DESTROY_MR", "header only", &[R[0], R[1], R[2], R[3]]),
    resp(
        "READ_COUNTERS",
        "values of counters first..first+count; the rest 0",
        &[
            R[0],
            R[1],
            R[2],
            R[3],
            arg::VALUES[0],
            arg::VALUES[1],
            arg::VALUES[2],
            arg::VALUES[3],
            arg::VALUES[4],
            arg::VALUES[5],
            arg::VALUES[6],
        ],
    ),
    resp(
        "READ_EVENTS",
        "up to four events, oldest first; the rest 0",
        &[
            R[0],
            R[1],
            R[2],
            R[3],
            arg::EV_COUNT,
            arg::EV_PENDING,
            arg::EV_LOST,
            arg::EV_TYPE[0],
            arg::EV_STATUS[0],
            arg::EV_HAS_MSN[0],
            arg::EV_QPN[0],
            arg::EV_MSN[0],
            arg::EV_TYPE[1],
            arg::EV_STATUS[1],
            arg::EV_HAS_MSN[1],
            arg::EV_QPN[1],
            arg::EV_MSN[1],
            arg::EV_TYPE[2],
            arg::EV_STATUS[2],
            arg::EV_HAS_MSN[2],
            arg::EV_QPN[2],
            arg::EV_MSN[2],
            arg::EV_TYPE[3],
            arg::EV_STATUS[3],
            arg::EV_HAS_MSN[3],
            arg::EV_QPN[3],
            arg::EV_MSN[3],
        ],
    ),
    resp("SET_CC", "header only", &[R[0], R[1], R[2], R[3]]),
    resp(
        "QUERY_CC",
        "the parameters the device uses",
        &[
            R[0],
            R[1],
            R[2],
            R[3],
            arg::CC_LINE_RATE,
            arg::CC_BASE_RTT,
            arg::CC_RTO_MIN,
            arg::CC_RTO_INIT,
            arg::CC_RTO_MAX,
            arg::CC_ACK_DELAY,
            arg::CC_ACK_RATIO,
            arg::CC_RETRY_LIMIT,
            arg::CC_REORDER,
            arg::CC_TARGET,
            arg::CC_MIN_RTT_WINDOW,
        ],
    ),
    resp(
        "READ_MODULE",
        "the bytes read",
        &[
            R[0],
            R[1],
            R[2],
            R[3],
            arg::MOD_COUNT,
            arg::MOD_DATA[0],
            arg::MOD_DATA[1],
            arg::MOD_DATA[2],
        ],
    ),
];

/// The layout index of an opcode.
fn index(op: Opcode) -> usize {
    Opcode::ALL.iter().position(|o| *o == op).unwrap_or(0)
}

/// The request layout of `op`.
pub fn request_layout(op: Opcode) -> &'static Layout {
    &REQUESTS[index(op)]
}

/// The response layout of `op`.
pub fn response_layout(op: Opcode) -> &'static Layout {
    &RESPONSES[index(op)]
}

/// Interrupt moderation of a CQ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Moderation {
    /// Holdoff after an interrupt, microseconds.
    pub usec: u16,
    /// CQEs that end the holdoff early (0: time only).
    pub count: u16,
}

/// CREATE_CQ arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CreateCq {
    /// Ring base address (4 KiB aligned).
    pub ring_addr: u64,
    /// log2 of the ring entries.
    pub log_size: u8,
    /// MSI-X vector.
    pub msix_vector: u16,
    /// Moderation.
    pub moderation: Moderation,
}

/// CREATE_QP arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CreateQp {
    /// SQ ring base (4 KiB aligned).
    pub sq_addr: u64,
    /// RQ ring base (4 KiB aligned).
    pub rq_addr: u64,
    /// CQ of send completions.
    pub send_cqn: u32,
    /// CQ of receive completions.
    pub recv_cqn: u32,
    /// log2 of the SQ entries.
    pub sq_log: u8,
    /// log2 of the RQ entries.
    pub rq_log: u8,
}

/// The peer of a QP moved to READY.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Remote {
    /// Peer QP number (24 bits, non-zero).
    pub qpn: u32,
    /// Next-hop MAC.
    pub mac: [u8; 6],
    /// Peer IP.
    pub ip: IpAddr,
}

/// MODIFY_QP arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModifyQp {
    /// QP number.
    pub qpn: u32,
    /// Target state.
    pub state: QpState,
    /// The peer: present exactly when `state` is READY.
    pub remote: Option<Remote>,
}

/// CREATE_MR arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CreateMr {
    /// Region start.
    pub addr: u64,
    /// Region length.
    pub length: u64,
    /// Rights.
    pub access: MrAccess,
}

/// A decoded command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// QUERY_DEVICE.
    QueryDevice,
    /// CREATE_CQ.
    CreateCq(CreateCq),
    /// MODIFY_CQ.
    ModifyCq {
        /// CQ number.
        cqn: u32,
        /// New moderation.
        moderation: Moderation,
    },
    /// DESTROY_CQ.
    DestroyCq {
        /// CQ number.
        cqn: u32,
    },
    /// CREATE_QP.
    CreateQp(CreateQp),
    /// MODIFY_QP.
    ModifyQp(ModifyQp),
    /// DESTROY_QP.
    DestroyQp {
        /// QP number.
        qpn: u32,
    },
    /// QUERY_QP.
    QueryQp {
        /// QP number.
        qpn: u32,
    },
    /// CREATE_MR.
    CreateMr(CreateMr),
    /// MODIFY_MR.
    ModifyMr {
        /// Local key.
        lkey: u32,
        /// New rights.
        access: MrAccess,
    },
    /// DESTROY_MR.
    DestroyMr {
        /// Local key.
        lkey: u32,
    },
    /// READ_COUNTERS.
    ReadCounters {
        /// First counter index.
        first: u16,
        /// Number of counters (1..=7).
        count: u8,
    },
    /// READ_EVENTS.
    ReadEvents,
    /// SET_CC.
    SetCc(CcParams),
    /// QUERY_CC.
    QueryCc,
    /// READ_MODULE.
    ReadModule {
        /// Upper page for bytes 128..=255.
        page: u8,
        /// First byte.
        offset: u8,
        /// Bytes to read (1..=[`MAX_MODULE_BYTES`]).
        length: u8,
    },
}

impl Command {
    /// The command's opcode.
    pub fn opcode(&self) -> Opcode {
        match self {
            Command::QueryDevice => Opcode::QueryDevice,
            Command::CreateCq(_) => Opcode::CreateCq,
            Command::ModifyCq { .. } => Opcode::ModifyCq,
            Command::DestroyCq { .. } => Opcode::DestroyCq,
            Command::CreateQp(_) => Opcode::CreateQp,
            Command::ModifyQp(_) => Opcode::ModifyQp,
            Command::DestroyQp { .. } => Opcode::DestroyQp,
            Command::QueryQp { .. } => Opcode::QueryQp,
            Command::CreateMr(_) => Opcode::CreateMr,
            Command::ModifyMr { .. } => Opcode::ModifyMr,
            Command::DestroyMr { .. } => Opcode::DestroyMr,
            Command::ReadCounters { .. } => Opcode::ReadCounters,
            Command::ReadEvents => Opcode::ReadEvents,
            Command::SetCc(_) => Opcode::SetCc,
            Command::QueryCc => Opcode::QueryCc,
            Command::ReadModule { .. } => Opcode::ReadModule,
        }
    }
}

/// Why a request was refused: the status to answer with and the byte offset of the offending field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CmdError {
    /// Status code (never [`Status::Ok`]).
    pub status: Status,
    /// Byte offset of the offending field in the request.
    pub offset: u16,
    /// Name of the offending field (for logs).
    pub field: &'static str,
}

impl core::fmt::Display for CmdError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{} at byte {} (`{}`)",
            self.status.name(),
            self.offset,
            self.field
        )
    }
}

fn bad(status: Status, f: &Field) -> CmdError {
    CmdError {
        status,
        offset: f.byte as u16,
        field: f.name,
    }
}

fn get(f: &Field, buf: &[u8]) -> Result<u64, CmdError> {
    f.get(buf).map_err(|_| bad(Status::Internal, f))
}

fn check(ok: bool, f: &Field) -> Result<(), CmdError> {
    if ok {
        Ok(())
    } else {
        Err(bad(Status::BadParam, f))
    }
}

fn ring(addr: u64, log: u8, max_log: u8, fa: &Field, fl: &Field) -> Result<(), CmdError> {
    check(addr != 0 && addr.is_multiple_of(RING_ALIGN), fa)?;
    check(
        (MIN_RING_LOG..=max_log.min(MAX_RING_LOG)).contains(&log),
        fl,
    )
}

fn access(v: u64, f: &Field) -> Result<MrAccess, CmdError> {
    let a = MrAccess(v as u8);
    check(v <= 0xFF && a.is_valid(), f)?;
    Ok(a)
}

/// A mailbox request: a tag and a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// Caller's tag, echoed in the response.
    pub tag: u16,
    /// The command.
    pub command: Command,
}

impl Request {
    /// Validates and decodes a request (the firmware's check of every command). Never panics; the first
    /// failure is returned with its status and the offending byte offset.
    pub fn parse(buf: &[u8; CMD_BYTES], limits: &Limits) -> Result<Request, CmdError> {
        if get(&hdr::VERSION, buf)? != CMD_VERSION as u64 {
            return Err(bad(Status::BadVersion, &hdr::VERSION));
        }
        let op = Opcode::from_u8(get(&hdr::OPCODE, buf)? as u8)
            .ok_or(bad(Status::BadOpcode, &hdr::OPCODE))?;
        request_layout(op)
            .check_reserved(buf)
            .map_err(|e| match e {
                Error::Reserved { byte, .. } => CmdError {
                    status: Status::BadReserved,
                    offset: byte as u16,
                    field: "reserved",
                },
                _ => bad(Status::Internal, &hdr::OPCODE),
            })?;
        let tag = get(&hdr::TAG, buf)? as u16;
        let g = |f: &Field| get(f, buf);
        let cqn = |f: &Field| -> Result<u32, CmdError> {
            let v = g(f)?;
            check(v < limits.max_cqs as u64, f)?;
            Ok(v as u32)
        };
        let qpn = |f: &Field| -> Result<u32, CmdError> {
            let v = g(f)?;
            check(v != 0 && v < limits.max_qps as u64, f)?;
            Ok(v as u32)
        };
        let lkey = |f: &Field| -> Result<u32, CmdError> {
            let v = g(f)?;
            check(crate::context::mr::key_slot(v as u32) < limits.max_mrs, f)?;
            Ok(v as u32)
        };
        let command = match op {
            Opcode::QueryDevice => Command::QueryDevice,
            Opcode::CreateCq => {
                let c = CreateCq {
                    ring_addr: g(&arg::CQ_RING)?,
                    log_size: g(&arg::CQ_LOG)? as u8,
                    msix_vector: g(&arg::CQ_VECTOR)? as u16,
                    moderation: Moderation {
                        usec: g(&arg::CQ_USEC)? as u16,
                        count: g(&arg::CQ_COUNT)? as u16,
                    },
                };
                ring(
                    c.ring_addr,
                    c.log_size,
                    limits.max_cq_log,
                    &arg::CQ_RING,
                    &arg::CQ_LOG,
                )?;
                check(c.msix_vector < limits.msix_vectors, &arg::CQ_VECTOR)?;
                Command::CreateCq(c)
            }
            Opcode::ModifyCq => Command::ModifyCq {
                cqn: cqn(&arg::CQN)?,
                moderation: Moderation {
                    usec: g(&arg::MCQ_USEC)? as u16,
                    count: g(&arg::MCQ_COUNT)? as u16,
                },
            },
            Opcode::DestroyCq => Command::DestroyCq {
                cqn: cqn(&arg::CQN)?,
            },
            Opcode::CreateQp => {
                let c = CreateQp {
                    sq_addr: g(&arg::SQ_ADDR)?,
                    rq_addr: g(&arg::RQ_ADDR)?,
                    send_cqn: cqn(&arg::SEND_CQN)?,
                    recv_cqn: cqn(&arg::RECV_CQN)?,
                    sq_log: g(&arg::SQ_LOG)? as u8,
                    rq_log: g(&arg::RQ_LOG)? as u8,
                };
                ring(
                    c.sq_addr,
                    c.sq_log,
                    limits.max_sq_log,
                    &arg::SQ_ADDR,
                    &arg::SQ_LOG,
                )?;
                ring(
                    c.rq_addr,
                    c.rq_log,
                    limits.max_rq_log,
                    &arg::RQ_ADDR,
                    &arg::RQ_LOG,
                )?;
                Command::CreateQp(c)
            }
            Opcode::ModifyQp => Command::ModifyQp(parse_modify_qp(buf, qpn(&arg::QPN)?)?),
            Opcode::DestroyQp => Command::DestroyQp {
                qpn: qpn(&arg::QPN)?,
            },
            Opcode::QueryQp => Command::QueryQp {
                qpn: qpn(&arg::QPN)?,
            },
            Opcode::CreateMr => {
                let c = CreateMr {
                    addr: g(&arg::MR_ADDR)?,
                    length: g(&arg::MR_LENGTH)?,
                    access: access(g(&arg::MR_ACCESS)?, &arg::MR_ACCESS)?,
                };
                check(
                    c.length != 0 && c.addr.checked_add(c.length).is_some(),
                    &arg::MR_LENGTH,
                )?;
                Command::CreateMr(c)
            }
            Opcode::ModifyMr => Command::ModifyMr {
                lkey: lkey(&arg::LKEY)?,
                access: access(g(&arg::MMR_ACCESS)?, &arg::MMR_ACCESS)?,
            },
            Opcode::DestroyMr => Command::DestroyMr {
                lkey: lkey(&arg::LKEY)?,
            },
            Opcode::ReadCounters => {
                let first = g(&arg::CTR_FIRST)? as u16;
                let count = g(&arg::CTR_COUNT)? as u8;
                check(
                    (1..=MAX_COUNTERS_PER_READ).contains(&count),
                    &arg::CTR_COUNT,
                )?;
                check(
                    first as u32 + count as u32 <= limits.counters as u32,
                    &arg::CTR_FIRST,
                )?;
                Command::ReadCounters { first, count }
            }
            Opcode::ReadEvents => Command::ReadEvents,
            Opcode::SetCc => Command::SetCc(parse_cc(buf)?),
            Opcode::QueryCc => Command::QueryCc,
            Opcode::ReadModule => {
                let offset = g(&arg::MOD_OFFSET)?;
                let length = g(&arg::MOD_LENGTH)?;
                check(
                    (1..=MAX_MODULE_BYTES as u64).contains(&length),
                    &arg::MOD_LENGTH,
                )?;
                check(offset + length <= 256, &arg::MOD_LENGTH)?;
                Command::ReadModule {
                    page: g(&arg::MOD_PAGE)? as u8,
                    offset: offset as u8,
                    length: length as u8,
                }
            }
        };
        Ok(Request { tag, command })
    }

    /// Encodes the request into `buf` (the host side). Values that do not fit their fields are errors; ranges
    /// are the firmware's to check.
    pub fn emit(&self, buf: &mut [u8; CMD_BYTES]) -> Result<(), Error> {
        let op = self.command.opcode();
        request_layout(op).clear(buf)?;
        hdr::OPCODE.set(buf, op as u64)?;
        hdr::VERSION.set(buf, CMD_VERSION as u64)?;
        hdr::TAG.set(buf, self.tag as u64)?;
        match self.command {
            Command::QueryDevice | Command::ReadEvents | Command::QueryCc => {}
            Command::SetCc(c) => c.emit(buf)?,
            Command::CreateCq(c) => {
                arg::CQ_RING.set(buf, c.ring_addr)?;
                arg::CQ_LOG.set(buf, c.log_size as u64)?;
                arg::CQ_VECTOR.set(buf, c.msix_vector as u64)?;
                arg::CQ_USEC.set(buf, c.moderation.usec as u64)?;
                arg::CQ_COUNT.set(buf, c.moderation.count as u64)?;
            }
            Command::ModifyCq { cqn, moderation } => {
                arg::CQN.set(buf, cqn as u64)?;
                arg::MCQ_USEC.set(buf, moderation.usec as u64)?;
                arg::MCQ_COUNT.set(buf, moderation.count as u64)?;
            }
            Command::DestroyCq { cqn } => arg::CQN.set(buf, cqn as u64)?,
            Command::CreateQp(c) => {
                arg::SQ_ADDR.set(buf, c.sq_addr)?;
                arg::RQ_ADDR.set(buf, c.rq_addr)?;
                arg::SEND_CQN.set(buf, c.send_cqn as u64)?;
                arg::RECV_CQN.set(buf, c.recv_cqn as u64)?;
                arg::SQ_LOG.set(buf, c.sq_log as u64)?;
                arg::RQ_LOG.set(buf, c.rq_log as u64)?;
            }
            Command::ModifyQp(m) => {
                arg::QPN.set(buf, m.qpn as u64)?;
                arg::QP_STATE.set(buf, m.state as u64)?;
                if let Some(r) = m.remote {
                    emit_remote(buf, &r)?;
                }
            }
            Command::DestroyQp { qpn } | Command::QueryQp { qpn } => {
                arg::QPN.set(buf, qpn as u64)?
            }
            Command::CreateMr(c) => {
                arg::MR_ADDR.set(buf, c.addr)?;
                arg::MR_LENGTH.set(buf, c.length)?;
                arg::MR_ACCESS.set(buf, c.access.0 as u64)?;
            }
            Command::ModifyMr { lkey, access } => {
                arg::LKEY.set(buf, lkey as u64)?;
                arg::MMR_ACCESS.set(buf, access.0 as u64)?;
            }
            Command::DestroyMr { lkey } => arg::LKEY.set(buf, lkey as u64)?,
            Command::ReadCounters { first, count } => {
                arg::CTR_FIRST.set(buf, first as u64)?;
                arg::CTR_COUNT.set(buf, count as u64)?;
            }
            Command::ReadModule {
                page,
                offset,
                length,
            } => {
                arg::MOD_PAGE.set(buf, page as u64)?;
                arg::MOD_OFFSET.set(buf, offset as u64)?;
                arg::MOD_LENGTH.set(buf, length as u64)?;
            }
        }
        Ok(())
    }
}

fn parse_modify_qp(buf: &[u8], qpn: u32) -> Result<ModifyQp, CmdError> {
    let state = QpState::from_u8(get(&arg::QP_STATE, buf)? as u8)
        .ok_or(bad(Status::BadParam, &arg::QP_STATE))?;
    let ver = get(&arg::IP_VERSION, buf)?;
    let rqpn = get(&arg::REMOTE_QPN, buf)?;
    let mac_b = arg::REMOTE_MAC
        .bytes(buf)
        .map_err(|_| bad(Status::Internal, &arg::REMOTE_MAC))?;
    let ip_b = arg::REMOTE_IP
        .bytes(buf)
        .map_err(|_| bad(Status::Internal, &arg::REMOTE_IP))?;
    let mut mac = [0u8; 6];
    mac.copy_from_slice(mac_b);
    let mut ip16 = [0u8; 16];
    ip16.copy_from_slice(ip_b);
    if state != QpState::Ready {
        // The remote fields mean nothing outside READY and must be zero.
        check(ver == 0, &arg::IP_VERSION)?;
        check(rqpn == 0, &arg::REMOTE_QPN)?;
        check(mac == [0; 6], &arg::REMOTE_MAC)?;
        check(ip16 == [0; 16], &arg::REMOTE_IP)?;
        return Ok(ModifyQp {
            qpn,
            state,
            remote: None,
        });
    }
    check(rqpn != 0 && rqpn < 1 << 24, &arg::REMOTE_QPN)?;
    let ip = match ver {
        4 => {
            check(ip16[4..] == [0; 12], &arg::REMOTE_IP)?;
            IpAddr::V4(Ipv4Addr::new(ip16[0], ip16[1], ip16[2], ip16[3]))
        }
        6 => IpAddr::V6(Ipv6Addr::from(ip16)),
        _ => return Err(bad(Status::BadParam, &arg::IP_VERSION)),
    };
    Ok(ModifyQp {
        qpn,
        state,
        remote: Some(Remote {
            qpn: rqpn as u32,
            mac,
            ip,
        }),
    })
}

/// QUERY_DEVICE response data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DeviceInfo {
    /// Firmware version, `major << 16 | minor`.
    pub fw_version: u32,
    /// QPs that can still be created.
    pub free_qps: u32,
    /// CQs that can still be created.
    pub free_cqs: u32,
    /// MR slots free.
    pub free_mrs: u32,
    /// Connection contexts free.
    pub free_conns: u32,
    /// Exception packets the firmware took since boot.
    pub exceptions: u32,
    /// Connections bound to their peer since boot.
    pub bound: u32,
    /// CTRL OPENs sent since boot.
    pub announced: u32,
    /// Opening packets refused, restarts and other exceptions not handled, since boot.
    pub refused: u32,
    /// Exception packets dropped because the packet port's queue was full (saturating).
    pub exc_lost: u16,
    /// The network port's status bits ([`crate::fwbus::PortStatus`]).
    pub port: u8,
    /// QPs the device moved to ERROR since boot.
    pub qp_errors: u32,
    /// Exception packets handed back to the receive path since boot (MR-REL-17).
    pub replayed: u32,
}

/// QUERY_QP response data: what the firmware records of a QP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QpInfo {
    /// The QP.
    pub qpn: u32,
    /// Its state (ERROR as soon as the firmware took the core's report).
    pub state: QpState,
    /// The remote QP, once the QP was moved to READY.
    pub remote: Option<Remote>,
    /// Its connection's index and own CID; 0 if none.
    pub cid: u32,
    /// The peer's CID once bound, else 0.
    pub peer_cid: u32,
    /// The send direction's ISN.
    pub isn: u32,
    /// The peer's ISN once bound, else 0.
    pub peer_isn: u32,
}

/// The congestion-control and loss-recovery parameters a host may set (SET_CC; spec Table 10.2). The device
/// has one set for all its connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CcParams {
    /// Line rate, Mb/s.
    pub line_rate_mbps: u32,
    /// Base RTT of the fabric, ns.
    pub base_rtt_ns: u32,
    /// Minimum RTO, ns.
    pub rto_min_ns: u32,
    /// RTO before the first RTT sample, ns.
    pub rto_init_ns: u32,
    /// Maximum RTO, ns.
    pub rto_max_ns: u32,
    /// Longest ACK delay when `ack_ratio > 1`, ns.
    pub ack_delay_ns: u16,
    /// Accepted DATA packets per ACK.
    pub ack_ratio: u8,
    /// Timeouts without progress before ERROR.
    pub retry_limit: u8,
    /// Loss-detection distance, packets.
    pub reorder_distance: u16,
}

impl CcParams {
    /// Checks every range of spec Table 10.2: the first field out of range, as [`Status::BadParam`].
    pub fn check(&self) -> Result<(), CmdError> {
        check(self.line_rate_mbps >= 1, &arg::CC_LINE_RATE)?;
        check(self.base_rtt_ns >= 1, &arg::CC_BASE_RTT)?;
        check(self.rto_min_ns >= 1, &arg::CC_RTO_MIN)?;
        check(self.rto_init_ns >= 1, &arg::CC_RTO_INIT)?;
        check(self.rto_max_ns >= self.rto_min_ns, &arg::CC_RTO_MAX)?;
        check((1..=64).contains(&self.ack_ratio), &arg::CC_ACK_RATIO)?;
        check(self.retry_limit <= 7, &arg::CC_RETRY_LIMIT)?;
        check(self.reorder_distance >= 16, &arg::CC_REORDER)
    }

    fn emit(&self, buf: &mut [u8; CMD_BYTES]) -> Result<(), Error> {
        arg::CC_LINE_RATE.set(buf, self.line_rate_mbps as u64)?;
        arg::CC_BASE_RTT.set(buf, self.base_rtt_ns as u64)?;
        arg::CC_RTO_MIN.set(buf, self.rto_min_ns as u64)?;
        arg::CC_RTO_INIT.set(buf, self.rto_init_ns as u64)?;
        arg::CC_RTO_MAX.set(buf, self.rto_max_ns as u64)?;
        arg::CC_ACK_DELAY.set(buf, self.ack_delay_ns as u64)?;
        arg::CC_ACK_RATIO.set(buf, self.ack_ratio as u64)?;
        arg::CC_RETRY_LIMIT.set(buf, self.retry_limit as u64)?;
        arg::CC_REORDER.set(buf, self.reorder_distance as u64)
    }

    fn get(buf: &[u8; CMD_BYTES]) -> Result<CcParams, Error> {
        Ok(CcParams {
            line_rate_mbps: arg::CC_LINE_RATE.get(buf)? as u32,
            base_rtt_ns: arg::CC_BASE_RTT.get(buf)? as u32,
            rto_min_ns: arg::CC_RTO_MIN.get(buf)? as u32,
            rto_init_ns: arg::CC_RTO_INIT.get(buf)? as u32,
            rto_max_ns: arg::CC_RTO_MAX.get(buf)? as u32,
            ack_delay_ns: arg::CC_ACK_DELAY.get(buf)? as u16,
            ack_ratio: arg::CC_ACK_RATIO.get(buf)? as u8,
            retry_limit: arg::CC_RETRY_LIMIT.get(buf)? as u8,
            reorder_distance: arg::CC_REORDER.get(buf)? as u16,
        })
    }
}

/// QUERY_CC response data: the settable parameters and the two that v0.1 fixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CcInfo {
    /// The settable parameters.
    pub params: CcParams,
    /// NSCC queuing-delay target, ns.
    pub target_qdelay_ns: u32,
    /// Min-RTT window, ns.
    pub min_rtt_window_ns: u32,
}

/// One asynchronous event (READ_EVENTS).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    /// What happened.
    pub kind: EventType,
    /// QP_ERROR: the failing WR's completion status (`CqeStatus`); PORT_CHANGE: the new port status;
    /// MODULE_ALARM: the module state.
    pub status: u8,
    /// QP_ERROR: a started WR (`msn`) failed with `status`; otherwise every WR completed `Flushed`.
    pub has_msn: bool,
    /// QP_ERROR: the QP; otherwise 0.
    pub qpn: u32,
    /// QP_ERROR with `has_msn`: the failing WR's MSN; MODULE_ALARM: the module's latched flags (bytes 8 to 11,
    /// byte 8 in bits 7:0); otherwise 0.
    pub msn: u32,
}

impl Event {
    /// An empty slot of a READ_EVENTS response (never a valid event: type 0).
    const fn slot_empty(buf: &[u8; CMD_BYTES], k: usize) -> bool {
        let o = arg::EV_TYPE[k].byte as usize;
        let mut i = 0;
        while i < 12 {
            if buf[o + i] != 0 {
                return false;
            }
            i += 1;
        }
        true
    }
}

/// READ_EVENTS response data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Events {
    /// Events returned (at most [`MAX_EVENTS_PER_READ`]).
    pub count: u8,
    /// The events, oldest first; `None` beyond `count`.
    pub events: [Option<Event>; MAX_EVENTS_PER_READ],
    /// Events still queued after this response.
    pub pending: u16,
    /// Events dropped since boot because the queue was full.
    pub lost: u32,
}

/// The data of a successful response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResponseData {
    /// No data (MODIFY_*, DESTROY_*, and every error response).
    None,
    /// QUERY_DEVICE.
    Device(DeviceInfo),
    /// CREATE_CQ: the new CQ number.
    Cq(u32),
    /// CREATE_QP: the new QP number.
    Qp(u32),
    /// CREATE_MR: the keys.
    Mr {
        /// Local key.
        lkey: u32,
        /// Remote key.
        rkey: u32,
    },
    /// READ_COUNTERS: `count` values (the rest 0).
    Counters {
        /// Values returned.
        count: u8,
        /// The values.
        values: [u64; MAX_COUNTERS_PER_READ as usize],
    },
    /// READ_EVENTS.
    Events(Events),
    /// QUERY_CC.
    Cc(CcInfo),
    /// QUERY_QP.
    QpInfo(QpInfo),
    /// READ_MODULE: `count` bytes (the rest 0).
    Module {
        /// Bytes returned.
        count: u8,
        /// The bytes.
        data: [u8; MAX_MODULE_BYTES],
    },
}

/// A mailbox response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Response {
    /// Tag of the request.
    pub tag: u16,
    /// Status.
    pub status: Status,
    /// Byte offset of the first invalid request field, if the status names one.
    pub bad_offset: Option<u16>,
    /// Data (only with [`Status::Ok`]).
    pub data: ResponseData,
}

impl Response {
    /// The response to a refused request.
    pub fn error(tag: u16, e: CmdError) -> Response {
        Response {
            tag,
            status: e.status,
            bad_offset: Some(e.offset),
            data: ResponseData::None,
        }
    }

    fn data_matches(&self, op: Opcode) -> bool {
        matches!(
            (op, &self.data),
            (Opcode::QueryDevice, ResponseData::Device(_))
                | (Opcode::CreateCq, ResponseData::Cq(_))
                | (Opcode::CreateQp, ResponseData::Qp(_))
                | (Opcode::CreateMr, ResponseData::Mr { .. })
                | (Opcode::ReadCounters, ResponseData::Counters { .. })
                | (Opcode::ReadEvents, ResponseData::Events(_))
                | (Opcode::QueryCc, ResponseData::Cc(_))
                | (Opcode::QueryQp, ResponseData::QpInfo(_))
                | (Opcode::ReadModule, ResponseData::Module { .. })
                | (
                    Opcode::ModifyCq
                        | Opcode::DestroyCq
                        | Opcode::ModifyQp
                        | Opcode::DestroyQp
                        | Opcode::ModifyMr
                        | Opcode::DestroyMr
                        | Opcode::SetCc,
                    ResponseData::None
                )
        )
    }

    /// Encodes the response to a request with opcode `op`. The data must be the kind `op` returns (or `None`
    /// with an error status).
    pub fn emit(&self, op: Opcode, buf: &mut [u8; CMD_BYTES]) -> Result<(), Error> {
        let ok = self.status == Status::Ok;
        if (ok && !self.data_matches(op)) || (!ok && self.data != ResponseData::None) {
            return Err(Error::Invalid { field: "data" });
        }
        if self.bad_offset == Some(0xFFFF) {
            return Err(Error::Invalid {
                field: hdr::BAD_OFFSET.name,
            });
        }
        response_layout(op).clear(buf)?;
        hdr::STATUS.set(buf, self.status as u64)?;
        hdr::VERSION.set(buf, CMD_VERSION as u64)?;
        hdr::TAG.set(buf, self.tag as u64)?;
        hdr::BAD_OFFSET.set(buf, self.bad_offset.unwrap_or(0xFFFF) as u64)?;
        match self.data {
            ResponseData::None => {}
            ResponseData::Device(d) => {
                arg::FW_VERSION.set(buf, d.fw_version as u64)?;
                arg::FREE_QPS.set(buf, d.free_qps as u64)?;
                arg::FREE_CQS.set(buf, d.free_cqs as u64)?;
                arg::FREE_MRS.set(buf, d.free_mrs as u64)?;
                arg::FREE_CONNS.set(buf, d.free_conns as u64)?;
                arg::EXCEPTIONS.set(buf, d.exceptions as u64)?;
                arg::BOUND.set(buf, d.bound as u64)?;
                arg::ANNOUNCED.set(buf, d.announced as u64)?;
                arg::REFUSED.set(buf, d.refused as u64)?;
                arg::EXC_LOST.set(buf, d.exc_lost as u64)?;
                arg::PORT.set(buf, d.port as u64)?;
                arg::QP_ERRORS.set(buf, d.qp_errors as u64)?;
                arg::REPLAYED.set(buf, d.replayed as u64)?;
            }
            ResponseData::Cq(n) => arg::CQN.set(buf, n as u64)?,
            ResponseData::Qp(n) => arg::QPN.set(buf, n as u64)?,
            ResponseData::Mr { lkey, rkey } => {
                arg::LKEY.set(buf, lkey as u64)?;
                arg::RKEY.set(buf, rkey as u64)?;
            }
            ResponseData::Counters { count, values } => {
                if !(1..=MAX_COUNTERS_PER_READ).contains(&count) {
                    return Err(Error::Invalid {
                        field: arg::CTR_COUNT.name,
                    });
                }
                for (i, (f, v)) in arg::VALUES.iter().zip(values).enumerate() {
                    if i >= count as usize && v != 0 {
                        return Err(Error::Invalid { field: f.name });
                    }
                    f.set(buf, v)?;
                }
            }
            ResponseData::QpInfo(q) => {
                arg::QPN.set(buf, q.qpn as u64)?;
                arg::QQ_STATE.set(buf, q.state as u64)?;
                if let Some(r) = q.remote {
                    emit_remote(buf, &r)?;
                }
                arg::QQ_CID.set(buf, q.cid as u64)?;
                arg::QQ_PEER_CID.set(buf, q.peer_cid as u64)?;
                arg::QQ_ISN.set(buf, q.isn as u64)?;
                arg::QQ_PEER_ISN.set(buf, q.peer_isn as u64)?;
            }
            ResponseData::Module { count, data } => {
                if !(1..=MAX_MODULE_BYTES).contains(&(count as usize))
                    || data[count as usize..].iter().any(|b| *b != 0)
                {
                    return Err(Error::Invalid {
                        field: arg::MOD_COUNT.name,
                    });
                }
                arg::MOD_COUNT.set(buf, count as u64)?;
                for (f, d) in arg::MOD_DATA.iter().zip(data.chunks_exact(16)) {
                    f.set_bytes(buf, d)?;
                }
            }
            ResponseData::Cc(c) => {
                c.params.emit(buf)?;
                arg::CC_TARGET.set(buf, c.target_qdelay_ns as u64)?;
                arg::CC_MIN_RTT_WINDOW.set(buf, c.min_rtt_window_ns as u64)?;
            }
            ResponseData::Events(e) => {
                let n = e.count as usize;
                if n > MAX_EVENTS_PER_READ
                    || e.events
                        .iter()
                        .enumerate()
                        .any(|(k, v)| v.is_some() != (k < n))
                {
                    return Err(Error::Invalid {
                        field: arg::EV_COUNT.name,
                    });
                }
                arg::EV_COUNT.set(buf, n as u64)?;
                arg::EV_PENDING.set(buf, e.pending as u64)?;
                arg::EV_LOST.set(buf, e.lost as u64)?;
                for (k, ev) in e.events.iter().enumerate() {
                    if let Some(ev) = ev {
                        arg::EV_TYPE[k].set(buf, ev.kind as u64)?;
                        arg::EV_STATUS[k].set(buf, ev.status as u64)?;
                        arg::EV_HAS_MSN[k].set(buf, ev.has_msn as u64)?;
                        arg::EV_QPN[k].set(buf, ev.qpn as u64)?;
                        arg::EV_MSN[k].set(buf, ev.msn as u64)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Decodes the response to a request with opcode `op` that asked for `count` counters (READ_COUNTERS; else
    /// ignored). Unknown status, wrong version, reserved bits set, or data in an error response are errors.
    pub fn parse(buf: &[u8; CMD_BYTES], op: Opcode, count: u8) -> Result<Response, Error> {
        if hdr::VERSION.get(buf)? != CMD_VERSION as u64 {
            return Err(Error::Invalid {
                field: hdr::VERSION.name,
            });
        }
        let status = Status::from_u8(hdr::STATUS.get(buf)? as u8).ok_or(Error::Invalid {
            field: hdr::STATUS.name,
        })?;
        let layout = if status == Status::Ok {
            response_layout(op)
        } else {
            &RESPONSES[index(Opcode::DestroyQp)] // header only
        };
        layout.check_reserved(buf)?;
        let off = hdr::BAD_OFFSET.get(buf)? as u16;
        let data = if status != Status::Ok {
            ResponseData::None
        } else {
            match op {
                Opcode::QueryDevice => ResponseData::Device(DeviceInfo {
                    fw_version: arg::FW_VERSION.get(buf)? as u32,
                    free_qps: arg::FREE_QPS.get(buf)? as u32,
                    free_cqs: arg::FREE_CQS.get(buf)? as u32,
                    free_mrs: arg::FREE_MRS.get(buf)? as u32,
                    free_conns: arg::FREE_CONNS.get(buf)? as u32,
                    exceptions: arg::EXCEPTIONS.get(buf)? as u32,
                    bound: arg::BOUND.get(buf)? as u32,
                    announced: arg::ANNOUNCED.get(buf)? as u32,
                    refused: arg::REFUSED.get(buf)? as u32,
                    exc_lost: arg::EXC_LOST.get(buf)? as u16,
                    port: arg::PORT.get(buf)? as u8,
                    qp_errors: arg::QP_ERRORS.get(buf)? as u32,
                    replayed: arg::REPLAYED.get(buf)? as u32,
                }),
                Opcode::CreateCq => ResponseData::Cq(arg::CQN.get(buf)? as u32),
                Opcode::CreateQp => ResponseData::Qp(arg::QPN.get(buf)? as u32),
                Opcode::CreateMr => ResponseData::Mr {
                    lkey: arg::LKEY.get(buf)? as u32,
                    rkey: arg::RKEY.get(buf)? as u32,
                },
                Opcode::ReadCounters => {
                    if !(1..=MAX_COUNTERS_PER_READ).contains(&count) {
                        return Err(Error::Invalid {
                            field: arg::CTR_COUNT.name,
                        });
                    }
                    let mut values = [0u64; MAX_COUNTERS_PER_READ as usize];
                    for (i, (v, f)) in values.iter_mut().zip(arg::VALUES.iter()).enumerate() {
                        *v = f.get(buf)?;
                        if i >= count as usize && *v != 0 {
                            return Err(Error::Invalid { field: f.name });
                        }
                    }
                    ResponseData::Counters { count, values }
                }
                Opcode::ReadEvents => ResponseData::Events(parse_events(buf)?),
                Opcode::QueryQp => ResponseData::QpInfo(QpInfo {
                    qpn: arg::QPN.get(buf)? as u32,
                    state: QpState::from_u8(arg::QQ_STATE.get(buf)? as u8).ok_or(
                        Error::Invalid {
                            field: arg::QQ_STATE.name,
                        },
                    )?,
                    remote: parse_remote(buf)?,
                    cid: arg::QQ_CID.get(buf)? as u32,
                    peer_cid: arg::QQ_PEER_CID.get(buf)? as u32,
                    isn: arg::QQ_ISN.get(buf)? as u32,
                    peer_isn: arg::QQ_PEER_ISN.get(buf)? as u32,
                }),
                Opcode::ReadModule => {
                    let count = arg::MOD_COUNT.get(buf)? as usize;
                    let mut data = [0u8; MAX_MODULE_BYTES];
                    for (f, d) in arg::MOD_DATA.iter().zip(data.chunks_exact_mut(16)) {
                        d.copy_from_slice(f.bytes(buf)?);
                    }
                    if !(1..=MAX_MODULE_BYTES).contains(&count)
                        || data[count..].iter().any(|b| *b != 0)
                    {
                        return Err(Error::Invalid {
                            field: arg::MOD_COUNT.name,
                        });
                    }
                    ResponseData::Module {
                        count: count as u8,
                        data,
                    }
                }
                Opcode::QueryCc => ResponseData::Cc(CcInfo {
                    params: CcParams::get(buf)?,
                    target_qdelay_ns: arg::CC_TARGET.get(buf)? as u32,
                    min_rtt_window_ns: arg::CC_MIN_RTT_WINDOW.get(buf)? as u32,
                }),
                _ => ResponseData::None,
            }
        };
        Ok(Response {
            tag: hdr::TAG.get(buf)? as u16,
            status,
            bad_offset: (off != 0xFFFF).then_some(off),
            data,
        })
    }
}

/// Decodes a READ_EVENTS response's data: `count` events of a known type, every slot beyond it zero.
fn parse_events(buf: &[u8; CMD_BYTES]) -> Result<Events, Error> {
    let count = arg::EV_COUNT.get(buf)? as usize;
    if count > MAX_EVENTS_PER_READ {
        return Err(Error::Invalid {
            field: arg::EV_COUNT.name,
        });
    }
    let mut events = [None; MAX_EVENTS_PER_READ];
    for (k, slot) in events.iter_mut().enumerate() {
        if k >= count {
            if !Event::slot_empty(buf, k) {
                return Err(Error::Invalid {
                    field: arg::EV_TYPE[k].name,
                });
            }
            continue;
        }
        let kind = EventType::from_u8(arg::EV_TYPE[k].get(buf)? as u8).ok_or(Error::Invalid {
            field: arg::EV_TYPE[k].name,
        })?;
        *slot = Some(Event {
            kind,
            status: arg::EV_STATUS[k].get(buf)? as u8,
            has_msn: arg::EV_HAS_MSN[k].get(buf)? != 0,
            qpn: arg::EV_QPN[k].get(buf)? as u32,
            msn: arg::EV_MSN[k].get(buf)? as u32,
        });
    }
    Ok(Events {
        count: count as u8,
        events,
        pending: arg::EV_PENDING.get(buf)? as u16,
        lost: arg::EV_LOST.get(buf)? as u32,
    })
}

fn parse_cc(buf: &[u8; CMD_BYTES]) -> Result<CcParams, CmdError> {
    let c = CcParams::get(buf).map_err(|_| bad(Status::Internal, &arg::CC_LINE_RATE))?;
    c.check()?;
    Ok(c)
}

/// Writes a remote QP's fields (`ip_version`, `remote_qpn`, `remote_mac`, `remote_ip`: MODIFY_QP and QUERY_QP).
fn emit_remote(buf: &mut [u8; CMD_BYTES], r: &Remote) -> Result<(), Error> {
    arg::REMOTE_QPN.set(buf, r.qpn as u64)?;
    arg::REMOTE_MAC.set_bytes(buf, &r.mac)?;
    let mut ip = [0u8; 16];
    let ver = match r.ip {
        IpAddr::V4(a) => {
            ip[..4].copy_from_slice(&a.octets());
            4
        }
        IpAddr::V6(a) => {
            ip = a.octets();
            6
        }
    };
    arg::IP_VERSION.set(buf, ver)?;
    arg::REMOTE_IP.set_bytes(buf, &ip)
}

/// Reads a QUERY_QP response's remote QP: none with `ip_version` 0 (every remote field then 0).
fn parse_remote(buf: &[u8; CMD_BYTES]) -> Result<Option<Remote>, Error> {
    let ver = arg::QQ_IP_VERSION.get(buf)?;
    let qpn = arg::REMOTE_QPN.get(buf)? as u32;
    let mut mac = [0u8; 6];
    mac.copy_from_slice(arg::REMOTE_MAC.bytes(buf)?);
    let mut ip16 = [0u8; 16];
    ip16.copy_from_slice(arg::REMOTE_IP.bytes(buf)?);
    let invalid = Err(Error::Invalid {
        field: arg::QQ_IP_VERSION.name,
    });
    match ver {
        0 if qpn == 0 && mac == [0; 6] && ip16 == [0; 16] => Ok(None),
        4 if ip16[4..] == [0; 12] => Ok(Some(Remote {
            qpn,
            mac,
            ip: IpAddr::V4(Ipv4Addr::new(ip16[0], ip16[1], ip16[2], ip16[3])),
        })),
        6 => Ok(Some(Remote {
            qpn,
            mac,
            ip: IpAddr::V6(Ipv6Addr::from(ip16)),
        })),
        _ => invalid,
    }
}
