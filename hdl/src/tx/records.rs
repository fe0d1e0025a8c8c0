//! Records of the transmit pipeline (between its own blocks) and the per-connection and per-message state
//! words it keeps in RAM.
//!
//! * [`SqFetch`]: the queue manager asks the SQE fetcher to read one SQE.
//! * [`WorkReq`]: one validated (or rejected) work request, from the SQE fetcher or the READ responder, to the
//!   scheduler, which appends it to its connection's message list.
//! * [`MsgEntry`]: one outstanding send message in the message table (MR-REL-3, MR-REL-46: everything needed
//!   to rebuild any of its packets, payload re-read from host memory).
//! * [`ConnTx`]: the transmit state of one connection (sequence numbers, message-list pointers, pacing retry).
//! * [`ReadRec`]: a READ whose request was sent, for the receive path to place its response.
//! * [`ConnPeer`]: the destination of one connection, from the QP context (`metaroce_regmap::context::qp`).
//! * [`QpRing`]: the send-queue ring of one QP in the queue manager.

// `LogicStruct` generates public accessor methods without docs; the records and their fields are documented.
#![allow(missing_docs)]

use crate::records::ConnIdx;
use rust_hdl::prelude::*;

/// Wire opcode of a READ response message (internal kind; never in an SQE).
pub const OPCODE_READ_RESP: u8 = metaroce_proto::wire::Opcode::ReadResp as u8;

/// Read one SQE (queue manager to SQE fetcher).
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct SqFetch {
    /// QP number.
    pub qpn: Bits<24>,
    /// The QP's connection (low bits of its CID).
    pub conn: ConnIdx,
    /// Host address of the SQE: ring base + slot * 64.
    pub addr: Bits<64>,
    /// Ring index (free-running) of the SQE.
    pub wqe_index: Bits<16>,
}

/// One work request for a connection's send direction.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct WorkReq {
    /// Connection.
    pub conn: ConnIdx,
    /// QP number.
    pub qpn: Bits<24>,
    /// SQ ring index of the SQE (0 for READ responses).
    pub wqe_index: Bits<16>,
    /// Wire DATA opcode: 1 WRITE, 2 WRITE_IMM, 3 SEND, 4 SEND_IMM, 5 READ_REQ, 6 READ_RESP.
    pub opcode: Bits<8>,
    /// Solicited event.
    pub solicited: Bit,
    /// Immediate data.
    pub imm: Bits<32>,
    /// Caller's id.
    pub wr_id: Bits<64>,
    /// Local buffer (payload source; READ: destination of the response).
    pub local_addr: Bits<64>,
    /// Local key of `local_addr` (READ: checked when the response is placed; 0 for READ responses).
    pub lkey: Bits<32>,
    /// Message length in bytes.
    pub len: Bits<32>,
    /// Remote address (WRITE*, READ).
    pub remote_addr: Bits<64>,
    /// Remote key (WRITE*, READ); READ_RESP: MSN of the answered READ_REQ.
    pub rkey: Bits<32>,
    /// 0: a valid request; otherwise the CQE status it completes with, without sending anything.
    pub status: Bits<8>,
    /// A completion is due (every user WR; not READ responses).
    pub signaled: Bit,
}

/// One message of the message table.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct MsgEntry {
    /// SQ ring index.
    pub wqe_index: Bits<16>,
    /// Wire opcode (see [`WorkReq::opcode`]).
    pub opcode: Bits<8>,
    /// Solicited event.
    pub solicited: Bit,
    /// Immediate data.
    pub imm: Bits<32>,
    /// Caller's id.
    pub wr_id: Bits<64>,
    /// Local buffer.
    pub local_addr: Bits<64>,
    /// Local key (see [`WorkReq::lkey`]).
    pub lkey: Bits<32>,
    /// Message length.
    pub len: Bits<32>,
    /// Remote address.
    pub remote_addr: Bits<64>,
    /// Remote key / answered MSN.
    pub rkey: Bits<32>,
    /// Error status (0 = valid).
    pub status: Bits<8>,
    /// Completion due.
    pub signaled: Bit,
    /// Segmentation started: `msn`, `ssn`, `first_psn`, `last_psn`, `seg_log` are set.
    pub started: Bit,
    /// MSN of the message.
    pub msn: Bits<32>,
    /// SSN (SEND, SEND_IMM, WRITE_IMM).
    pub ssn: Bits<32>,
    /// PSN of its first packet.
    pub first_psn: Bits<32>,
    /// PSN of its last packet (`first_psn - 1` for a rejected request, which takes no PSN); until the message
    /// starts, its number of packets - 1 (written when it is appended, so that starting it is one addition).
    pub last_psn: Bits<32>,
    /// log2 of its segment size, fixed when it starts (MR-WIRE-30).
    pub seg_log: Bits<4>,
}

/// A READ that has sent its request: where its response goes (from the scheduler to the receive path's
/// [`crate::rx::read_table`], MR-SEM-24).
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct ReadRec {
    /// Connection.
    pub conn: ConnIdx,
    /// MSN of the READ_REQ (the responses' `key`).
    pub msn: Bits<32>,
    /// Local buffer.
    pub addr: Bits<64>,
    /// Its local key.
    pub lkey: Bits<32>,
    /// READ length.
    pub len: Bits<32>,
}

/// Transmit state of one connection.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct ConnTx {
    /// The connection is open.
    pub open: Bit,
    /// Oldest unacknowledged PSN.
    pub una: Bits<32>,
    /// Next new PSN.
    pub nxt: Bits<32>,
    /// Initial sequence number (Open extension).
    pub isn: Bits<32>,
    /// Next MSN.
    pub msn: Bits<32>,
    /// MSN after the newest released started message: `msn - rel_msn` messages are started and unreleased
    /// (at most `cfg_max_started`, the model's `max_outstanding_msgs`, MR-SEM-11).
    pub rel_msn: Bits<32>,
    /// READ responses received completely (mod 256): a started READ is released only when its response is
    /// complete (MR-SEM-24), i.e. while `rd_done != rd_rel`.
    pub rd_done: Bits<8>,
    /// READs released (mod 256).
    pub rd_rel: Bits<8>,
    /// Next SSN.
    pub ssn: Bits<32>,
    /// Byte offset of the next new packet within the message at `seg`.
    pub seg_off: Bits<32>,
    /// Oldest message (valid when `count` > 0).
    pub head: Bits<16>,
    /// Newest message (valid when `count` > 0).
    pub tail: Bits<16>,
    /// Message being segmented (valid when `seg_v`).
    pub seg: Bits<16>,
    /// `seg` is valid: there is new data to send.
    pub seg_v: Bit,
    /// Messages in the table.
    pub count: Bits<16>,
    /// log2 of the segment size for messages started now.
    pub mtu_log: Bits<4>,
    /// Own wlog − 8 (Open extension).
    pub own_wlog: Bits<4>,
    /// Peer's CID (DCID).
    pub peer_cid: Bits<24>,
    /// SYN phase: DATA packets carry SYN and the Open extension until the peer acknowledged (MR-CONN-6).
    pub syn: Bit,
    /// The connection is in the new-data round-robin list.
    pub in_rr: Bit,
    /// The gate refused the last new packet: wait until `retry_at`.
    pub wait: Bit,
    /// Retry time (ns mod 2^32) when `wait`.
    pub retry_at: Bits<32>,
    /// The oldest unreleased message is a READ whose request is acknowledged and whose response is incomplete
    /// (the READ-response timer runs, MR-REL-58).
    pub rd_wait: Bit,
    /// The QP is in ERROR (MR-SEM-38): its send queue was flushed, new work requests complete `Flushed`,
    /// nothing is sent, until the connection is opened again.
    pub err: Bit,
}

/// Destination of one connection (from its QP's context entry).
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct ConnPeer {
    /// Peer MAC.
    pub peer_mac: Bits<48>,
    /// Peer IP (IPv4 in the low 32 bits), as `PktMeta::peer_ip`.
    pub peer_ip: Bits<128>,
    /// IPv6.
    pub ipv6: Bit,
    /// Peer QP number (Open extension target).
    pub remote_qpn: Bits<24>,
    /// Own QP number.
    pub qpn: Bits<24>,
    /// Own CID (Open extension SCID).
    pub cid: Bits<24>,
    /// CQ of send completions.
    pub send_cqn: Bits<24>,
}

/// Send-queue ring of one QP.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct QpRing {
    /// QP state (`metaroce_regmap::context::qp` `state`: 2 = READY).
    pub state: Bits<2>,
    /// SQ ring base.
    pub base: Bits<64>,
    /// log2 of the SQ entries.
    pub log: Bits<4>,
    /// Producer index (latest doorbell).
    pub pi: Bits<16>,
    /// Consumer index (next SQE to fetch).
    pub ci: Bits<16>,
    /// The QP's connection (low 16 bits of its CID).
    pub conn: Bits<16>,
    /// The QP is in the work list.
    pub queued: Bit,
}

/// Unpacks the 512-bit little-endian context word field `f` (at most 64 bits wide) for tests and models.
pub fn ctx_field(data: &[u8], f: &metaroce_regmap::field::Field) -> u64 {
    f.get(data).unwrap_or(0)
}

/// One queued SQ doorbell (queue manager).
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct DbEntry {
    /// QP number.
    pub qpn: Bits<16>,
    /// New producer index.
    pub pi: Bits<16>,
}

/// A finished message whose completion is due (scheduler to send-completion block).
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct MsgDone {
    /// QP number.
    pub qpn: Bits<24>,
    /// Send CQ.
    pub cqn: Bits<24>,
    /// Caller's id.
    pub wr_id: Bits<64>,
    /// Wire opcode of the message.
    pub opcode: Bits<8>,
    /// Message length.
    pub len: Bits<32>,
    /// 0 or the error status.
    pub status: Bits<8>,
    /// SQ ring index.
    pub wqe_index: Bits<16>,
}

/// `out = inp[lsb +: W]` for a field position known when the block is built (a regmap field offset): a
/// custom block so that the Verilog holds the plain constant index.
#[derive(LogicBlock)]
pub struct Slice<const N: usize, const W: usize> {
    /// The word.
    pub inp: Signal<In, Bits<N>>,
    /// The field.
    pub out: Signal<Out, Bits<W>>,
    _lsb: usize,
}

impl<const N: usize, const W: usize> Slice<N, W> {
    /// The field at bit `lsb` (`lsb + W <= N`).
    pub fn new(lsb: usize) -> Self {
        assert!(lsb + W <= N);
        Slice {
            inp: Default::default(),
            out: Default::default(),
            _lsb: lsb,
        }
    }

    /// The field `f` of a regmap layout (at most `W` bits wide; a narrower field is read with the bits
    /// above it, so callers pick `W` = the field width).
    pub fn field(f: &metaroce_regmap::Field) -> Self {
        assert_eq!(f.width as usize, W, "field {} width", f.name);
        Self::new(f.lsb() as usize)
    }
}

impl<const N: usize, const W: usize> Logic for Slice<N, W> {
    fn update(&mut self) {
        self.out.next = self.inp.val().get_bits::<W>(self._lsb);
    }
    fn connect(&mut self) {
        self.out.connect();
    }
    fn hdl(&self) -> Verilog {
        if W == 1 {
            Verilog::Custom(format!(
                "wire _unused_inp = &{{1'b0, inp}};\nalways @(*) out = inp[{}];",
                self._lsb
            ))
        } else {
            Verilog::Custom(format!(
                "wire _unused_inp = &{{1'b0, inp}};\nalways @(*) out = inp[{}+:{}];",
                self._lsb, W
            ))
        }
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![]
    }
}
