//! The transmit gate's decision (MR-REL-4, MR-CC-1, MR-CC-2, MR-CC-15, MR-REL-45): may the packet of a
//! [`GateReq`] leave now? One decision per cycle, registered (1 cycle latency), given the connection's send
//! state that the caller read from its RAM.
//!
//! * Window (MR-REL-4, new PSNs only): `snd_nxt - snd_una < 256` (the hardware window W = 256; the model's
//!   `outstanding < min(peer window, capacity)` with both at least 256; larger windows (MR-REL-8) are a named
//!   limitation of the hardware).
//! * Congestion window (MR-CC-1): `inflight == 0 || inflight < cwnd`; a retransmission passes regardless
//!   while the connection is in the first retransmission after an RTO expiry (`rto_rtx`, MR-REL-45).
//! * Pacing (MR-CC-2): `now >= next_tx` when `pace_armed` (the model's `next_send_at`; `pace_armed = 0` is
//!   its `next_send_at = 0`). `next_tx` is kept as ns mod 2^32 and compared with wrap-around (serial
//!   arithmetic), which equals the model's 64-bit comparison while `|now - next_tx| < 2^31` ns; the caller
//!   disarms pacing once `now` has passed `next_tx` (every ACK or gate request does) so an idle connection
//!   never sees a stale value.
//!
//! Output: a [`GateResp`] with `allow`, and when refused by pacing alone `retry_at = next_tx` (else 0: wait
//! for an ACK). `ev` / `path` are passed through from the caller (the EV set, `rel::path_select`).

use crate::rel::records::{GateReq, GateResp};
use rust_hdl::prelude::*;

/// The gate decision unit (see the module docs). Construct with `Default`.
#[derive(LogicBlock)]
pub struct GateUnit {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// A request with its connection state (below).
    pub in_valid: Signal<In, Bit>,
    /// The request.
    pub req: Signal<In, GateReq>,
    /// Oldest unacknowledged PSN.
    pub snd_una: Signal<In, Bits<32>>,
    /// Next new PSN.
    pub snd_nxt: Signal<In, Bits<32>>,
    /// Charged bytes in flight.
    pub inflight: Signal<In, Bits<32>>,
    /// Congestion window, bytes.
    pub cwnd: Signal<In, Bits<32>>,
    /// First retransmission after an RTO expiry (MR-REL-45).
    pub rto_rtx: Signal<In, Bit>,
    /// Pacing release time is set.
    pub pace_armed: Signal<In, Bit>,
    /// Pacing release time, ns mod 2^32.
    pub next_tx: Signal<In, Bits<32>>,
    /// EV chosen for the packet.
    pub ev: Signal<In, Bits<14>>,
    /// Its EV-set entry.
    pub path: Signal<In, Bits<8>>,
    /// Current time, ns (low 32 bits used).
    pub now32: Signal<In, Bits<32>>,
    /// Response valid (1 cycle after `in_valid`).
    pub out_valid: Signal<Out, Bit>,
    /// The response.
    pub resp: Signal<Out, GateResp>,
    /// The window test failed (for statistics).
    pub out_win_block: Signal<Out, Bit>,
    v: DFF<Bit>,
    r: DFF<GateResp>,
    wb: DFF<Bit>,
    win_ok: Signal<Local, Bit>,
    cwnd_ok: Signal<Local, Bit>,
    pace_ok: Signal<Local, Bit>,
    outst: Signal<Local, Bits<32>>,
    since: Signal<Local, Bits<32>>,
    k_w: Constant<Bits<32>>,
    k_zero32: Constant<Bits<32>>,
    k_half: Constant<Bits<32>>,
}

impl Default for GateUnit {
    fn default() -> Self {
        GateUnit {
            clk: Default::default(),
            rst: Default::default(),
            in_valid: Default::default(),
            req: Default::default(),
            snd_una: Default::default(),
            snd_nxt: Default::default(),
            inflight: Default::default(),
            cwnd: Default::default(),
            rto_rtx: Default::default(),
            pace_armed: Default::default(),
            next_tx: Default::default(),
            ev: Default::default(),
            path: Default::default(),
            now32: Default::default(),
            out_valid: Default::default(),
            resp: Default::default(),
            out_win_block: Default::default(),
            v: Default::default(),
            r: Default::default(),
            wb: Default::default(),
            win_ok: Default::default(),
            cwnd_ok: Default::default(),
            pace_ok: Default::default(),
            outst: Default::default(),
            since: Default::default(),
            k_w: Constant::new(256u64.to_bits()),
            k_zero32: Constant::new(0u64.to_bits()),
            k_half: Constant::new((1u64 << 31).to_bits()),
        }
    }
}

impl Logic for GateUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, v, r, wb);
        self.outst.next = self.snd_nxt.val() - self.snd_una.val();
        self.win_ok.next = self.req.val().rtx || self.outst.val() < self.k_w.val();
        self.cwnd_ok.next = self.inflight.val() == self.k_zero32.val()
            || self.inflight.val() < self.cwnd.val()
            || (self.req.val().rtx && self.rto_rtx.val());
        // now - next_tx as a signed 32-bit value >= 0.
        self.since.next = self.now32.val() - self.next_tx.val();
        self.pace_ok.next = !self.pace_armed.val() || self.since.val() < self.k_half.val();
        self.v.d.next = self.in_valid.val();
        self.r.d.next.conn = self.req.val().conn;
        self.r.d.next.psn = self.req.val().psn;
        self.r.d.next.allow = self.win_ok.val() && self.cwnd_ok.val() && self.pace_ok.val();
        self.r.d.next.ev = self.ev.val();
        self.r.d.next.path = self.path.val();
        self.r.d.next.retry_at = self.k_zero32.val();
        self.r.d.next.skip = false;
        if self.win_ok.val() && self.cwnd_ok.val() && !self.pace_ok.val() {
            self.r.d.next.retry_at = self.next_tx.val();
        }
        self.wb.d.next = !self.win_ok.val();
        if self.rst.val() {
            self.v.d.next = false;
        }
        self.out_valid.next = self.v.q.val();
        self.resp.next = self.r.q.val();
        self.out_win_block.next = self.wb.q.val();
    }
}

/// This file's blocks.
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![crate::blocks::BlockSpec {
        name: "metaroce_cc_gate",
        area: "cc",
        description:
            "transmit gate decision: window, congestion window (with the RTO exception), pacing",
        verilog: |_cfg| crate::gen::verilog("metaroce_cc_gate", GateUnit::default()),
    }]
}
