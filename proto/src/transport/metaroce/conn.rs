//! MetaRoCE connection state and lifecycle (MR-CONN-*).
//!
//! A QP has at most one connection at a time. The connection is opened 0-RTT by the first DATA packet, which
//! carries SYN + Open extension (and keeps carrying them until any ACK for that direction arrives); the receiver
//! creates its context on the first SYN packet, deduplicated by (peer IP, SCID) — here: the target QP's current
//! connection already has that peer CID — and its ACKs carry its own CID as SCID. After `idle_close_ns` with
//! nothing outstanding either side sends CLOSE (retransmitted every `close_rto_ns`), answered by CLOSE_ACK; the
//! QP stays connected and the next WR opens a new connection with a new CID and ISN. A DATA packet for an
//! unknown CID without SYN is answered with NACK NO_CONTEXT; the sender then reopens and retransmits every
//! unfinished message.
//!
//! # Hot and warm state (hardware: <= 64 bytes of hot state per connection)
//!
//! The hardware layout of the per-connection state is specified, not here: the hot state (512 bits exactly) is
//! spec Table 7.6 (MR-CONN-28, MR-CONN-29) and the warm state is Table 7.7. [`Conn`] is the reference model's
//! software form of the same state; its fields are wider than the table's and it keeps some warm state (the
//! message tables, the NACK queue, the EV set) inline.

use super::super::bitmap::RecvWindow;
use super::super::cc::{Cc, CcChoice, CcParams};
use super::super::config::{CcKind, EndpointConfig};
use super::super::loss::SendWindow;
use super::super::path::{PathSet, Prng};
use super::super::rtt::RttEstimator;
use super::super::Instant;
use crate::wire::{NackCode, Opcode};
use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;

/// Connection state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnState {
    /// No connection (no CID allocated).
    Closed,
    /// Open.
    Open,
    /// CLOSE sent, waiting for CLOSE_ACK.
    Closing,
}

/// Receive-side message slot state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotState {
    /// Unused.
    Empty,
    /// At least one packet arrived.
    Active,
    /// The message failed; every later packet of it is answered with the stored NACK code.
    Failed(NackCode),
}

/// A received message awaiting in-order completion (MR-SEM-18).
#[derive(Debug, Clone, Copy)]
pub struct RecvMsg {
    /// Slot state.
    pub state: SlotState,
    /// Opcode of the message.
    pub opcode: Opcode,
    /// Message length (READ_REQ: bytes to read).
    pub len: u32,
    /// Payload bytes placed so far.
    pub got: u32,
    /// Immediate data.
    pub imm: Option<u32>,
    /// READ_REQ: remote VA; READ_RESP/SEND: unused.
    pub addr: u64,
    /// READ_REQ: R_Key; SEND: SSN; READ_RESP: MSN of the request.
    pub key: u32,
    /// A SEND that failed for a too-small WQE still owes that WQE a LocalLength completion.
    pub owes_wqe: bool,
}

impl RecvMsg {
    /// An unused slot.
    pub const EMPTY: RecvMsg = RecvMsg {
        state: SlotState::Empty,
        opcode: Opcode::Write,
        len: 0,
        got: 0,
        imm: None,
        addr: 0,
        key: 0,
        owes_wqe: false,
    };

    /// True when every byte has arrived (READ_REQ: when the request arrived).
    #[inline]
    pub fn complete(&self) -> bool {
        self.state == SlotState::Active && (self.opcode == Opcode::ReadReq || self.got >= self.len)
    }
}

/// A NACK waiting to be sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PendingNack {
    /// NACKed PSN.
    pub psn: u32,
    /// Code.
    pub code: NackCode,
    /// Echoed TS.
    pub echo_ts: u32,
    /// Aux value.
    pub aux: u32,
    /// EV of the triggering packet (the NACK goes back on it).
    pub ev: u16,
}

/// Bound of the per-connection NACK queue; more NACKs in one burst are dropped (the peer recovers by timeout).
pub const MAX_PENDING_NACKS: usize = 64;

/// CTRL packet waiting to be sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PendingCtrl {
    /// CLOSE (aux = own next PSN).
    Close,
    /// PROBE reply is an ACK; OPEN is implicit in DATA. Nothing else is generated.
    None,
}

/// The per-connection state of a MetaRoCE QP.
#[derive(Debug)]
pub struct Conn {
    /// Lifecycle state.
    pub state: ConnState,
    /// Own connection id (0 if closed).
    pub cid: u32,
    /// Peer's connection id (0 until learned).
    pub peer_cid: u32,
    // ---- send direction ----
    /// Outstanding packets.
    pub snd: SendWindow,
    /// ISN of the send direction.
    pub snd_isn: u32,
    /// Carry SYN + Open extension until an ACK arrives (MR-CONN-6).
    pub syn_pending: bool,
    /// Next MSN to assign.
    pub next_msn: u32,
    /// Next SSN to assign (counts WQE-consuming messages: SEND, SEND_IMM, WRITE_IMM).
    pub next_ssn: u32,
    /// Messages started and not retired.
    pub msgs_in_flight: u32,
    /// Peer's receive window, log2 (8 until learned from its Open extension).
    pub peer_wlog: u8,
    /// Peer's `mtu_log` from its first Open extension (MR-CONN-7); `None` until received (MR-WIRE-30).
    pub peer_mtu_log: Option<u8>,
    /// EV set.
    pub paths: PathSet,
    /// RTT estimator.
    pub rtt: RttEstimator,
    /// Congestion control.
    pub cc: Cc,
    /// Pacing: earliest time of the next data packet.
    pub next_send_at: Instant,
    /// Consecutive RTO expiries without progress.
    pub rto_retries: u8,
    /// RNR back-off: no retransmission before this time.
    pub rnr_until: Instant,
    /// Consecutive RNR rounds without progress.
    pub rnr_count: u8,
    /// The RTO expired and declared PSNs lost: the first retransmission after it may leave although packets
    /// sent within the last timeout still fill the collapsed congestion window (MR-REL-39, MR-REL-45).
    pub rto_rtx: bool,
    /// Deadline of the READ-response timer: armed while a READ whose request was acknowledged waits for its
    /// response, pushed back by every DATA packet received from the peer (MR-REL-55).
    pub resp_deadline: Option<Instant>,
    /// Consecutive READ-response timer expiries without DATA from the peer.
    pub resp_retries: u8,
    /// EV echoed by the latest ACK that acknowledged a new PSN: a round trip on it worked.
    pub good_ev: Option<u16>,
    /// CTRL PROBEs owed by an RTO expiry, on these EVs.
    pub probe_evs: [Option<u16>; 2],
    /// The owed PROBEs leave at or after this time.
    pub probe_at: Instant,
    /// EV-set entry of the latest RTO probe sent without a known-good EV.
    pub probe_idx: u8,
    // ---- receive direction ----
    /// Receive window bitmap.
    pub rcv: RecvWindow,
    /// The peer's ISN is known.
    pub rcv_init: bool,
    /// Received-message table (ring indexed by MSN).
    pub rx_msgs: Vec<RecvMsg>,
    /// MSN of the next message to complete.
    pub rx_base_msn: u32,
    /// Receive WQEs consumed by this connection (SSN of the WQE at the head of the RQ).
    pub rx_ssn_consumed: u32,
    /// The first message that failed (ACCESS / INVALID / UNSUPPORTED) and its code: like an RC responder in the
    /// error state, this side then places nothing of any later message (MR-SEM-36).
    pub rx_failed: Option<(u32, NackCode)>,
    // ---- acknowledgement state ----
    /// An ACK is owed.
    pub ack_pending: bool,
    /// The owed ACK must go out now.
    pub ack_now: bool,
    /// Deadline of a coalesced ACK.
    pub ack_deadline: Option<Instant>,
    /// Data packets since the last ACK.
    pub unacked_pkts: u8,
    /// PSN of the packet that triggered the owed ACK.
    pub ack_psn: u32,
    /// Its TS.
    pub ack_ts: u32,
    /// Its UDP source port.
    pub ack_ev_port: u16,
    /// It was CE-marked.
    pub ack_ece: bool,
    /// It was a duplicate.
    pub ack_dup: bool,
    /// CE-marked data packets since the last ACK.
    pub ce_count: u16,
    /// NACKs to send.
    pub nacks: VecDeque<PendingNack>,
    // ---- lifecycle ----
    /// CLOSE to (re)send.
    pub ctrl: PendingCtrl,
    /// Next CLOSE retransmission.
    pub close_deadline: Option<Instant>,
    /// CLOSE transmissions.
    pub close_tries: u8,
    /// Last send or receive activity.
    pub last_activity: Instant,
    /// Reopen after a NO_CONTEXT NACK at this time.
    pub reopen_at: Option<Instant>,
    /// Reopens (after NO_CONTEXT or a peer restart) since the last acknowledged progress; kept across reopens so
    /// that a peer that never keeps a context cannot make the QP retry forever (limit `retry_limit`).
    pub reopens: u8,
    /// Send a CTRL OPEN (SYN + Open extension) announcing this side's CID, window and ISN: set when the context
    /// was created by a received SYN, because ACKs do not carry the receive window (MR-CONN-14).
    pub announce: bool,
}

/// Congestion-control parameters derived from the endpoint configuration.
pub fn cc_params(cfg: &EndpointConfig) -> CcParams {
    CcParams {
        mtu: cfg.mtu as u64,
        line_rate_bps: cfg.line_rate_bps,
        base_rtt_ns: cfg.base_rtt_ns,
        cnp_interval_ns: cfg.cnp_interval_ns,
        ..CcParams::default()
    }
}

/// The congestion controller configured by `cfg`.
pub fn new_cc(cfg: &EndpointConfig) -> Cc {
    let choice = match cfg.cc {
        CcKind::Nscc => CcChoice::Nscc,
        CcKind::Dcqcn => CcChoice::Dcqcn,
        CcKind::None => CcChoice::Fixed,
    };
    Cc::new(choice, &cc_params(cfg))
}

/// Size of the receive message table: `max_outstanding_msgs` rounded up to a power of two.
pub fn rx_table_size(cfg: &EndpointConfig) -> usize {
    cfg.max_outstanding_msgs.clamp(1, 65536).next_power_of_two() as usize
}

impl Conn {
    /// A closed connection with all buffers allocated.
    pub fn new(cfg: &EndpointConfig, seed: u64) -> Self {
        Conn {
            state: ConnState::Closed,
            cid: 0,
            peer_cid: 0,
            snd: SendWindow::new(cfg.window_log2, 0, cfg.reorder_distance),
            snd_isn: 0,
            syn_pending: false,
            next_msn: 0,
            next_ssn: 0,
            msgs_in_flight: 0,
            peer_wlog: 8,
            peer_mtu_log: None,
            paths: PathSet::new(cfg.paths, seed),
            rtt: RttEstimator::new(
                cfg.rto_min_ns,
                cfg.rto_init_ns,
                cfg.rto_max_ns,
                10 * cfg.rto_max_ns,
            ),
            cc: new_cc(cfg),
            next_send_at: 0,
            rto_retries: 0,
            rnr_until: 0,
            rnr_count: 0,
            rto_rtx: false,
            resp_deadline: None,
            resp_retries: 0,
            good_ev: None,
            probe_evs: [None; 2],
            probe_at: 0,
            probe_idx: 0,
            rcv: RecvWindow::new(cfg.window_log2, 0),
            rcv_init: false,
            rx_msgs: vec![RecvMsg::EMPTY; rx_table_size(cfg)],
            rx_base_msn: 0,
            rx_ssn_consumed: 0,
            rx_failed: None,
            ack_pending: false,
            ack_now: false,
            ack_deadline: None,
            unacked_pkts: 0,
            ack_psn: 0,
            ack_ts: 0,
            ack_ev_port: 0,
            ack_ece: false,
            ack_dup: false,
            ce_count: 0,
            nacks: VecDeque::with_capacity(8),
            ctrl: PendingCtrl::None,
            close_deadline: None,
            close_tries: 0,
            last_activity: 0,
            reopen_at: None,
            reopens: 0,
            announce: false,
        }
    }

    /// (Re)initialises every per-connection field for a new connection with CID `cid` (MR-CONN-1, MR-CONN-4, MR-CONN-26):
    /// fresh ISN and EV set from `rng`, empty windows and tables, receive direction not yet known.
    pub fn reset_for_open(&mut self, cfg: &EndpointConfig, cid: u32, now: Instant, rng: &mut Prng) {
        self.state = ConnState::Open;
        self.cid = cid;
        self.peer_cid = 0;
        self.snd_isn = rng.next_u32();
        self.snd.reset(self.snd_isn);
        self.syn_pending = true;
        self.next_msn = 0;
        self.next_ssn = 0;
        self.msgs_in_flight = 0;
        self.peer_wlog = 8;
        self.peer_mtu_log = None;
        self.paths = PathSet::new(cfg.paths, rng.next_u64());
        self.rtt = RttEstimator::new(
            cfg.rto_min_ns,
            cfg.rto_init_ns,
            cfg.rto_max_ns,
            10 * cfg.rto_max_ns,
        );
        self.cc = new_cc(cfg);
        self.next_send_at = 0;
        self.rto_retries = 0;
        self.rnr_until = 0;
        self.rnr_count = 0;
        self.rto_rtx = false;
        self.resp_deadline = None;
        self.resp_retries = 0;
        self.good_ev = None;
        self.probe_evs = [None; 2];
        self.probe_idx = 0;
        self.reset_receive(0);
        self.rcv_init = false;
        self.ack_pending = false;
        self.ack_now = false;
        self.ack_deadline = None;
        self.unacked_pkts = 0;
        self.ce_count = 0;
        self.nacks.clear();
        self.ctrl = PendingCtrl::None;
        self.close_deadline = None;
        self.close_tries = 0;
        self.last_activity = now;
        self.reopen_at = None;
        self.announce = false;
    }

    /// Restarts the receive direction at the peer's ISN.
    pub fn reset_receive(&mut self, isn: u32) {
        self.rcv.reset(isn);
        self.rcv_init = true;
        self.rx_msgs.fill(RecvMsg::EMPTY);
        self.rx_base_msn = 0;
        self.rx_ssn_consumed = 0;
        self.rx_failed = None;
    }

    /// Marks the connection closed (buffers kept for reuse).
    pub fn mark_closed(&mut self) {
        self.state = ConnState::Closed;
        self.cid = 0;
        self.peer_cid = 0;
        self.ack_pending = false;
        self.ack_now = false;
        self.ack_deadline = None;
        self.nacks.clear();
        self.ctrl = PendingCtrl::None;
        self.close_deadline = None;
        self.reopen_at = None;
        self.announce = false;
        self.rto_rtx = false;
        self.resp_deadline = None;
        self.resp_retries = 0;
        self.good_ev = None;
        self.probe_evs = [None; 2];
        self.snd.reset(0);
    }

    /// True if an RTO PROBE is owed and may leave at `now`.
    #[inline]
    pub fn probe_due(&self, now: Instant) -> bool {
        (self.probe_evs[0].is_some() || self.probe_evs[1].is_some()) && now >= self.probe_at
    }

    /// Peer receive window in packets.
    #[inline]
    pub fn peer_window(&self) -> u32 {
        1u32 << self.peer_wlog.clamp(8, 16)
    }

    /// The receive message slot of `msn`, if inside the table.
    #[inline]
    pub fn rx_slot(&mut self, msn: u32) -> Option<&mut RecvMsg> {
        let d = msn.wrapping_sub(self.rx_base_msn);
        if d as usize >= self.rx_msgs.len() {
            return None;
        }
        let mask = self.rx_msgs.len() - 1;
        Some(&mut self.rx_msgs[msn as usize & mask])
    }

    /// True if the receive message table's head slot (message `rx_base_msn`) is in use.
    #[inline]
    pub fn rx_head_used(&self) -> bool {
        self.rx_msgs[self.rx_base_msn as usize & (self.rx_msgs.len() - 1)].state != SlotState::Empty
    }

    /// Nothing outstanding in either direction and nothing owed to the peer.
    #[inline]
    pub fn is_quiet(&self, sq_empty: bool) -> bool {
        sq_empty
            && self.snd.outstanding() == 0
            && !self.ack_pending
            && self.nacks.is_empty()
            && self.rx_msgs[self.rx_base_msn as usize & (self.rx_msgs.len() - 1)].state
                == SlotState::Empty
            && self.rcv.in_order()
    }
}

/// The table of connection ids: CID -> QP slot, O(1) (MR-CONN-1, MR-CONN-2).
///
/// `cid = (generation << 16) | (slot + 1)`; the generation (8 bits) changes every time a slot is reused, so a
/// stale CID of a closed connection does not reach the slot's next owner.
#[derive(Debug, Clone)]
pub struct CidTable {
    slots: Vec<(u32, u32)>,
    free: Vec<u16>,
    live: u32,
    max: u32,
}

impl CidTable {
    /// A table with at most `max` (<= 65535) live CIDs.
    pub fn new(max: u32) -> Self {
        CidTable {
            slots: Vec::new(),
            free: Vec::new(),
            live: 0,
            max: max.min(0xFFFF),
        }
    }

    /// Allocates a CID for QP slot `qp`; `None` if `max_connections` are open.
    pub fn alloc(&mut self, qp: u32) -> Option<u32> {
        if self.live >= self.max {
            return None;
        }
        let slot = match self.free.pop() {
            Some(s) => s as usize,
            None => {
                self.slots.push((0, u32::MAX));
                self.slots.len() - 1
            }
        };
        let old_gen = (self.slots[slot].0 >> 16) & 0xFF;
        let gen = (old_gen + 1) & 0xFF;
        let gen = if gen == 0 { 1 } else { gen };
        let cid = (gen << 16) | (slot as u32 + 1);
        self.slots[slot] = (cid, qp);
        self.live += 1;
        Some(cid)
    }

    /// The QP slot of `cid`.
    #[inline]
    pub fn lookup(&self, cid: u32) -> Option<u32> {
        let slot = (cid & 0xFFFF).checked_sub(1)? as usize;
        let (c, qp) = *self.slots.get(slot)?;
        (c == cid && qp != u32::MAX).then_some(qp)
    }

    /// Releases `cid`.
    pub fn release(&mut self, cid: u32) {
        if self.lookup(cid).is_some() {
            let slot = (cid & 0xFFFF) as usize - 1;
            self.slots[slot].1 = u32::MAX;
            self.free.push(slot as u16);
            self.live -= 1;
        }
    }

    /// Live CIDs.
    pub fn live(&self) -> u32 {
        self.live
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mr_conn_2_cid_table_generations() {
        let mut t = CidTable::new(2);
        let a = t.alloc(7).unwrap();
        let b = t.alloc(8).unwrap();
        assert!(t.alloc(9).is_none());
        assert_eq!(t.lookup(a), Some(7));
        assert_eq!(t.lookup(b), Some(8));
        assert!(a < 1 << 24 && a != 0);
        t.release(a);
        assert_eq!(t.lookup(a), None);
        let c = t.alloc(9).unwrap();
        assert_ne!(c, a, "reused slot gets a new generation");
        assert_eq!(t.lookup(c), Some(9));
        assert_eq!(t.lookup(0), None);
        assert_eq!(t.lookup(0xFF_FFFF), None);
        assert_eq!(t.live(), 2);
    }
}
