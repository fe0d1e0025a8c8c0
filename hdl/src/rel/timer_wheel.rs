//! The retransmission-timer wheel: one pending deadline per connection (the RTO of MR-REL-40 or the RACK timer
//! of MR-REL-37, whichever the caller keeps earliest), fired when it has passed, never before (MR-REL-33: a
//! hardware timer may fire up to one tick, 1.024 µs, late, never early).
//!
//! # Interface
//! * `s_axis_arm_*` ([`TimerArm`]): `en = 1` sets the connection's deadline to `at` (ns mod 2^32), replacing
//!   any pending one, earlier or later; `en = 0` disarms it. `at` may lie up to 2^31 ns ahead of `now`; a
//!   deadline at or before `now` (serial comparison mod 2^32, up to 2^31 ns back) is already due and fires
//!   within one tick. `conn` is taken modulo `1 << conn_bits` (the upper bits are ignored).
//! * `m_axis_fire_*` (`Bits<16>`, the connection): a deadline that passed. Each armed deadline fires exactly
//!   once, when `now >= at`; the fire disarms the connection (the caller re-arms if it still needs a timer).
//! * `now: Bits<64>`: the time in ns; its low 32 bits are used (registered once). One tick is 1024 ns
//!   (`now >> 10`).
//!
//! # Structure
//! A timer wheel of `1 << slot_bits` slots (default 1024 slots of one tick: 1.05 ms per revolution), all
//! state in [`SdpRam`]s, no per-connection registers:
//! * `head_ram` (per slot): the head of the slot's doubly linked list (`valid`, `conn`);
//! * `node_ram` (per connection): `armed`, the deadline `at` and the slot whose list holds the connection;
//! * `next_ram` / `prev_ram` (per connection): the list links. A list's head has no valid `prev` (it is
//!   recognised by comparing with the slot's head), so insertion at the head and removal anywhere take one
//!   write per RAM: a re-arm to an earlier or later time unlinks the connection in O(1) and links it into
//!   its new slot.
//!
//! The slot of a deadline is `(at >> 10) mod slots`; a deadline that is already due when its arm operation
//! starts goes into the cursor's slot instead (so it is not left behind the cursor for a revolution); one that
//! is not due then has a tick at or after the cursor's. The cursor `ctick` (a 22-bit tick number) drains the
//! slot of tick `ctick` once that tick has completely passed (registered `now >> 10 > ctick`, serial): it first detaches the slot's list (the head becomes empty and `ctick` advances, so
//! anything inserted meanwhile, including a re-insertion into the same slot, waits for the next revolution),
//! then walks the detached list one entry at a time: an entry with `now >= at` fires; an entry of a later
//! revolution is linked back into its slot and re-checked one revolution later. If the cursor falls behind
//! (many fires, fire back-pressure), it drains the missed ticks one by one: no slot is skipped. A removal of
//! the entry the walk is about to visit moves the walk to that entry's successor.
//!
//! # Operations, arbitration, latency
//! One operation at a time (so every operation reads the RAMs after the previous one's writes: no forwarding
//! is needed), chosen in the idle cycle, which is also the first cycle of the operation (it issues the reads):
//! * arm (an arm or disarm from the one-entry input buffer): 2 cycles (disarm of an unarmed connection),
//!   3 (arm of an unarmed connection: read, link; or disarm: read, unlink), 5 (re-arm: read, unlink, read
//!   the new slot's head, link);
//! * detach (start draining one slot): 2 cycles;
//! * walk step (one entry): 2 cycles if it fires, 3 if it is linked back; a step starts only while the fire
//!   register is empty, so a stream of fires runs at one per 3 cycles.
//!
//! When both an arm and draining work are pending they alternate (a `turn` bit), so neither starves: an arm
//! waits at most for the rest of the operation in progress (3 cycles) and one draining operation (3 cycles).
//! `s_axis_arm_tready` is a register (the one-entry input buffer is empty); an arm handshaken in cycle `h` is
//! buffered, its operation starts at the earliest in `h + 1` and at the latest in `h + 7`, and it takes effect
//! (atomically with respect to fires) within that operation, so at the latest in `h + 11`; `tready` returns
//! high in the cycle after its operation started (at the latest `h + 8`). A fire that becomes visible on
//! `m_axis_fire_*` before `tready` returns high was decided before the arm took effect, one that becomes
//! visible later was decided after it. Sustained arm throughput: one per operation (2 to 5 cycles).
//!
//! # Lateness bound
//! Slots are visited in tick order, one slot per completed tick; within a slot, the most recent insertion
//! first (head insertion). With the fire output ready and the cursor caught up, a deadline `at` whose arm
//! took effect at time `t_a` fires (appears on `m_axis_fire_tvalid`) no later than the first tick boundary
//! after `max(at, t_a)` (at most 1024 ns later), plus `10 + 8 * n` cycles, where `n` is the number of entries the walk visits before it in that slot (3 cycles
//! each, plus at most one interleaved arm of 5 cycles each) and the 10 cover the time register, an arm in
//! progress, the detach and its own step. Ticks missed while the cursor was behind cost 2 cycles each (plus
//! their entries). At 322 MHz one tick is 330 cycles, so a slot drains within its tick unless it holds more
//! than ~40 entries. Fire back-pressure delays fires without bound but loses none.
//!
//! # Races with a re-arm or disarm
//! A fire is decided (the connection disarmed and the fire register loaded) atomically, between operations.
//! A re-arm or disarm that takes effect before that decision replaces the deadline: the old one never fires.
//! One that takes effect after it (the fire is already in the output register, not yet taken, or was just
//! taken) does not recall the fire: the caller receives a fire for a connection whose deadline it has since
//! changed, and re-checks its own deadlines (the fire carries only the connection), so such a fire is
//! harmless; the new deadline is armed afresh and fires on its own. No deadline is lost, none fires early.
//!
//! The due test of a walk step uses the registered time (one cycle old), which can only delay a fire.
//!
//! # Resources and timing
//! `conn_bits` 14, `slot_bits` 10 (yosys `synth_xilinx -family xcup`): 39 RAMB36 + 1 RAMB18 (node RAM
//! 16K x 49 bits, links 16K x 17 and 16K x 16, heads 1K x 17), about 560 LUTs and 274 flip-flops; the longest
//! register-to-register path is one 32-bit subtraction (carry chain) and 3 LUTs.
//!
//! # Reset and limits
//! `rst` (synchronous) clears every connection and slot: the block then writes `1 << max(conn_bits,
//! slot_bits)` RAM words (one per cycle) with `s_axis_arm_tready` low and no fire, and starts the cursor at
//! the current tick. The same clearing runs after configuration without a reset (the state register starts in
//! the clearing state). Deadlines must stay within 2^31 ns of `now` (serial comparison); a fire held back by
//! back-pressure for over 2^31 ns, or a cursor more than 2^21 ticks (2.1 s) behind, is outside the design.

use crate::common::ram::SdpRam;
use rust_hdl::prelude::*;

/// Records.
pub mod rec {
    #![allow(missing_docs)]
    use rust_hdl::prelude::*;

    /// Arm (`en = 1`) or disarm (`en = 0`) a connection's timer.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct TimerArm {
        /// Connection (modulo the wheel's connection count).
        pub conn: Bits<16>,
        /// Deadline, ns mod 2^32 (at most 2^31 ns ahead of `now`).
        pub at: Bits<32>,
        /// Arm (1) or disarm (0).
        pub en: Bit,
    }

    /// A list link: a slot's head or a connection's successor.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct TwLink {
        pub valid: Bit,
        pub conn: Bits<16>,
    }

    /// A connection's timer: armed, its deadline and the slot whose list holds it.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct TwNode {
        pub armed: Bit,
        pub slot: Bits<16>,
        pub at: Bits<32>,
    }
}

pub use rec::{TimerArm, TwLink, TwNode};

/// Nanoseconds per tick (`now >> 10`).
pub const TICK_NS: u64 = 1024;

/// The timer wheel (see the module docs). Construct with [`TimerWheel::new`].
#[derive(LogicBlock)]
pub struct TimerWheel {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset, active high: clears every timer (then `1 << max(conn_bits, slot_bits)` cycles of
    /// clearing with `s_axis_arm_tready` low).
    pub rst: Signal<In, Bit>,
    /// Current time, ns (the low 32 bits are used).
    pub now: Signal<In, Bits<64>>,
    /// Arm or disarm a connection's deadline.
    pub s_axis_arm_tdata: Signal<In, TimerArm>,
    /// Valid.
    pub s_axis_arm_tvalid: Signal<In, Bit>,
    /// Ready (registered: the input buffer is empty).
    pub s_axis_arm_tready: Signal<Out, Bit>,
    /// The connection whose deadline passed.
    pub m_axis_fire_tdata: Signal<Out, Bits<16>>,
    /// Valid (registered).
    pub m_axis_fire_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_fire_tready: Signal<In, Bit>,
    head_ram: SdpRam<TwLink, 16>,
    next_ram: SdpRam<TwLink, 16>,
    prev_ram: SdpRam<Bits<16>, 16>,
    node_ram: SdpRam<TwNode, 16>,
    state: DFF<Bits<3>>,
    clr: DFF<Bits<17>>,
    now32: DFF<Bits<32>>,
    ctick: DFF<Bits<22>>,
    behind: DFF<Bit>,
    wcur: DFF<Bits<16>>,
    wvalid: DFF<Bit>,
    abuf: DFF<TimerArm>,
    abuf_v: DFF<Bit>,
    rdy: DFF<Bit>,
    turn: DFF<Bit>,
    fire_v: DFF<Bit>,
    fire_c: DFF<Bits<16>>,
    x_conn: DFF<Bits<16>>,
    x_at: DFF<Bits<32>>,
    x_en: DFF<Bit>,
    x_due: DFF<Bit>,
    x_slot: DFF<Bits<16>>,
    x_oslot: DFF<Bits<16>>,
    x_next: DFF<TwLink>,
    x_prev: DFF<Bits<16>>,
    take: Signal<Local, Bit>,
    drain_go: Signal<Local, Bit>,
    arm_go: Signal<Local, Bit>,
    buf_n: Signal<Local, Bit>,
    ntick: Signal<Local, Bits<22>>,
    ctick_n: Signal<Local, Bits<22>>,
    /// `ntick` minus the cursor's next tick for each way the cursor can move this cycle (stays, steps by one,
    /// restarts at the clear's tick), computed side by side from registers so that the state's choice selects
    /// a result and does not feed a subtraction.
    lag_stay: Signal<Local, Bits<22>>,
    lag_step: Signal<Local, Bits<22>>,
    lag_clr: Signal<Local, Bits<22>>,
    /// The cursor steps by one / restarts this cycle.
    t_step: Signal<Local, Bit>,
    t_clr: Signal<Local, Bit>,
    cslot: Signal<Local, Bits<16>>,
    aslot: Signal<Local, Bits<16>>,
    nslot: Signal<Local, Bits<16>>,
    dx: Signal<Local, Bits<32>>,
    dn: Signal<Local, Bits<32>>,
    due_n: Signal<Local, Bit>,
    head_w: Signal<Local, TwLink>,
    next_w: Signal<Local, TwLink>,
    node_w: Signal<Local, TwNode>,
    s_clr: Constant<Bits<3>>,
    s_idle: Constant<Bits<3>>,
    s_a1: Constant<Bits<3>>,
    s_a2: Constant<Bits<3>>,
    s_a3: Constant<Bits<3>>,
    s_ins: Constant<Bits<3>>,
    s_w1: Constant<Bits<3>>,
    s_d1: Constant<Bits<3>>,
    k_zero22: Constant<Bits<22>>,
    k_one22: Constant<Bits<22>>,
    k_zero16: Constant<Bits<16>>,
    k_cmask: Constant<Bits<16>>,
    k_smask: Constant<Bits<16>>,
    k_one17: Constant<Bits<17>>,
    k_zero17: Constant<Bits<17>>,
    k_clr_last: Constant<Bits<17>>,
    _conn_bits: u32,
    _slot_bits: u32,
}

impl TimerWheel {
    /// A wheel for `1 << conn_bits` connections (1..=16) with `1 << slot_bits` slots of one tick each
    /// (1..=16; 10 is the default of the core: a 1.05 ms revolution). Out-of-range values are clamped.
    pub fn new(conn_bits: u32, slot_bits: u32) -> Self {
        let conn_bits = conn_bits.clamp(1, 16);
        let slot_bits = slot_bits.clamp(1, 16);
        let clear = 1u64 << conn_bits.max(slot_bits);
        TimerWheel {
            clk: Default::default(),
            rst: Default::default(),
            now: Default::default(),
            s_axis_arm_tdata: Default::default(),
            s_axis_arm_tvalid: Default::default(),
            s_axis_arm_tready: Default::default(),
            m_axis_fire_tdata: Default::default(),
            m_axis_fire_tvalid: Default::default(),
            m_axis_fire_tready: Default::default(),
            head_ram: SdpRam::new(1 << slot_bits),
            next_ram: SdpRam::new(1 << conn_bits),
            prev_ram: SdpRam::new(1 << conn_bits),
            node_ram: SdpRam::new(1 << conn_bits),
            state: Default::default(),
            clr: Default::default(),
            now32: Default::default(),
            ctick: Default::default(),
            behind: Default::default(),
            wcur: Default::default(),
            wvalid: Default::default(),
            abuf: Default::default(),
            abuf_v: Default::default(),
            rdy: Default::default(),
            turn: Default::default(),
            fire_v: Default::default(),
            fire_c: Default::default(),
            x_conn: Default::default(),
            x_at: Default::default(),
            x_en: Default::default(),
            x_due: Default::default(),
            x_slot: Default::default(),
            x_oslot: Default::default(),
            x_next: Default::default(),
            x_prev: Default::default(),
            take: Default::default(),
            drain_go: Default::default(),
            arm_go: Default::default(),
            buf_n: Default::default(),
            ntick: Default::default(),
            ctick_n: Default::default(),
            lag_stay: Default::default(),
            lag_step: Default::default(),
            lag_clr: Default::default(),
            t_step: Default::default(),
            t_clr: Default::default(),
            cslot: Default::default(),
            aslot: Default::default(),
            nslot: Default::default(),
            dx: Default::default(),
            dn: Default::default(),
            due_n: Default::default(),
            head_w: Default::default(),
            next_w: Default::default(),
            node_w: Default::default(),
            s_clr: Constant::new(0u64.to_bits()),
            s_idle: Constant::new(1u64.to_bits()),
            s_a1: Constant::new(2u64.to_bits()),
            s_a2: Constant::new(3u64.to_bits()),
            s_a3: Constant::new(4u64.to_bits()),
            s_ins: Constant::new(5u64.to_bits()),
            s_w1: Constant::new(6u64.to_bits()),
            s_d1: Constant::new(7u64.to_bits()),
            k_zero22: Constant::new(0u64.to_bits()),
            k_one22: Constant::new(1u64.to_bits()),
            k_zero16: Constant::new(0u64.to_bits()),
            k_cmask: Constant::new(((1u64 << conn_bits) - 1).to_bits()),
            k_smask: Constant::new(((1u64 << slot_bits) - 1).to_bits()),
            k_one17: Constant::new(1u64.to_bits()),
            k_zero17: Constant::new(0u64.to_bits()),
            k_clr_last: Constant::new((clear - 1).to_bits()),
            _conn_bits: conn_bits,
            _slot_bits: slot_bits,
        }
    }

    /// Connections (`1 << conn_bits`).
    pub fn conns(&self) -> usize {
        1 << self._conn_bits
    }

    /// Slots (`1 << slot_bits`).
    pub fn slots(&self) -> usize {
        1 << self._slot_bits
    }

    /// Cycles of clearing after a reset (`1 << max(conn_bits, slot_bits)`).
    pub fn clear_cycles(&self) -> usize {
        1 << self._conn_bits.max(self._slot_bits)
    }
}

impl Logic for TimerWheel {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, state, clr, now32, ctick, behind, wcur, wvalid, abuf, abuf_v, rdy, turn,
            fire_v, fire_c, x_conn, x_at, x_en, x_due, x_slot, x_oslot, x_next, x_prev
        );
        self.head_ram.clk.next = self.clk.val();
        self.next_ram.clk.next = self.clk.val();
        self.prev_ram.clk.next = self.clk.val();
        self.node_ram.clk.next = self.clk.val();
        // Time: the registered low word; the cursor's slot; the slot of the deadline in hand.
        self.now32.d.next = self.now.val().get_bits::<32>(0);
        self.ntick.next = self.now.val().get_bits::<22>(10);
        self.cslot.next = self.ctick.q.val().get_bits::<16>(0) & self.k_smask.val();
        self.aslot.next = self.x_at.q.val().get_bits::<16>(10) & self.k_smask.val();
        // Serial comparisons (mod 2^32): `now - at` has its top bit clear when `now >= at`.
        self.dx.next = self.now32.q.val() - self.abuf.q.val().at;
        self.nslot.next = self.aslot.val();
        if self.x_due.q.val() {
            self.nslot.next = self.cslot.val();
        }
        self.dn.next = self.now32.q.val() - self.node_ram.rd_data.val().at;
        self.due_n.next = self.node_ram.rd_data.val().armed && !self.dn.val().get_bit(31);
        self.ctick_n.next = self.ctick.q.val();
        self.t_step.next = false;
        self.t_clr.next = false;
        // Outputs (registers).
        self.m_axis_fire_tvalid.next = self.fire_v.q.val();
        self.m_axis_fire_tdata.next = self.fire_c.q.val();
        self.s_axis_arm_tready.next = self.rdy.q.val();
        if self.m_axis_fire_tready.val() {
            self.fire_v.d.next = false;
        }
        // Arbitration in the idle cycle: draining work is a walk step (the fire register must be empty) or,
        // with no walk in progress, the detach of a completed tick; arms and draining alternate.
        self.drain_go.next = self.behind.q.val();
        if self.wvalid.q.val() {
            self.drain_go.next = !self.fire_v.q.val();
        }
        self.arm_go.next = self.state.q.val() == self.s_idle.val()
            && self.abuf_v.q.val()
            && (self.turn.q.val() || !self.drain_go.val());
        // The one-entry arm buffer; tready is registered (the buffer will be empty).
        self.take.next = self.s_axis_arm_tvalid.val() && self.rdy.q.val();
        self.buf_n.next = self.take.val() || (self.abuf_v.q.val() && !self.arm_go.val());
        self.abuf_v.d.next = self.buf_n.val();
        self.rdy.d.next = !self.buf_n.val() && self.state.q.val() != self.s_clr.val();
        if self.take.val() {
            self.abuf.d.next.conn = self.s_axis_arm_tdata.val().conn & self.k_cmask.val();
            self.abuf.d.next.at = self.s_axis_arm_tdata.val().at;
            self.abuf.d.next.en = self.s_axis_arm_tdata.val().en;
        }
        // RAM defaults: reads for the idle cycle, writes of the link step.
        self.node_ram.rd_addr.next = self.wcur.q.val();
        self.next_ram.rd_addr.next = self.wcur.q.val();
        if self.arm_go.val() {
            self.node_ram.rd_addr.next = self.abuf.q.val().conn;
            self.next_ram.rd_addr.next = self.abuf.q.val().conn;
        }
        self.prev_ram.rd_addr.next = self.abuf.q.val().conn;
        self.head_ram.rd_addr.next = self.cslot.val();
        self.head_ram.wr_en.next = false;
        self.next_ram.wr_en.next = false;
        self.prev_ram.wr_en.next = false;
        self.node_ram.wr_en.next = false;
        self.head_w.next.valid = true;
        self.head_w.next.conn = self.x_conn.q.val();
        self.head_ram.wr_addr.next = self.x_slot.q.val();
        self.next_w.next = self.head_ram.rd_data.val();
        self.next_ram.wr_addr.next = self.x_conn.q.val();
        self.prev_ram.wr_addr.next = self.head_ram.rd_data.val().conn;
        self.prev_ram.wr_data.next = self.x_conn.q.val();
        self.node_w.next.armed = true;
        self.node_w.next.slot = self.x_slot.q.val();
        self.node_w.next.at = self.x_at.q.val();
        self.node_ram.wr_addr.next = self.x_conn.q.val();
        if self.state.q.val() == self.s_clr.val() {
            // Clearing: every connection unarmed, every slot empty; the cursor follows the time.
            self.node_w.next.armed = false;
            self.node_w.next.slot = self.k_zero16.val();
            self.node_w.next.at = self.now32.q.val();
            self.head_w.next.valid = false;
            self.head_w.next.conn = self.k_zero16.val();
            self.node_ram.wr_addr.next = self.clr.q.val().get_bits::<16>(0);
            self.head_ram.wr_addr.next = self.clr.q.val().get_bits::<16>(0);
            self.node_ram.wr_en.next = true;
            self.head_ram.wr_en.next = true;
            self.clr.d.next = self.clr.q.val() + self.k_one17.val();
            self.ctick_n.next = self.now32.q.val().get_bits::<22>(10);
            self.t_clr.next = true;
            self.wvalid.d.next = false;
            if self.clr.q.val() == self.k_clr_last.val() {
                self.state.d.next = self.s_idle.val();
            }
        } else if self.state.q.val() == self.s_idle.val() {
            if self.arm_go.val() {
                self.x_conn.d.next = self.abuf.q.val().conn;
                self.x_at.d.next = self.abuf.q.val().at;
                self.x_en.d.next = self.abuf.q.val().en;
                self.x_due.d.next = !self.dx.val().get_bit(31);
                self.turn.d.next = false;
                self.state.d.next = self.s_a1.val();
            } else if self.drain_go.val() {
                self.turn.d.next = true;
                if self.wvalid.q.val() {
                    self.x_conn.d.next = self.wcur.q.val();
                    self.state.d.next = self.s_w1.val();
                } else {
                    self.state.d.next = self.s_d1.val();
                }
            }
        } else if self.state.q.val() == self.s_a1.val() {
            // The connection's timer and links are on the read ports.
            self.x_next.d.next = self.next_ram.rd_data.val();
            self.x_prev.d.next = self.prev_ram.rd_data.val();
            self.x_oslot.d.next = self.node_ram.rd_data.val().slot;
            self.x_slot.d.next = self.nslot.val();
            if self.node_ram.rd_data.val().armed {
                self.head_ram.rd_addr.next = self.node_ram.rd_data.val().slot;
                self.state.d.next = self.s_a2.val();
            } else if self.x_en.q.val() {
                self.head_ram.rd_addr.next = self.nslot.val();
                self.state.d.next = self.s_ins.val();
            } else {
                self.state.d.next = self.s_idle.val();
            }
        } else if self.state.q.val() == self.s_a2.val() {
            // Unlink: the walk's next entry, a slot's head, or a middle entry.
            self.node_w.next.armed = false;
            self.node_w.next.slot = self.x_oslot.q.val();
            self.node_ram.wr_en.next = true;
            self.next_w.next = self.x_next.q.val();
            self.head_w.next = self.x_next.q.val();
            if self.wvalid.q.val() && self.wcur.q.val() == self.x_conn.q.val() {
                self.wcur.d.next = self.x_next.q.val().conn;
                self.wvalid.d.next = self.x_next.q.val().valid;
            } else if self.head_ram.rd_data.val().valid
                && self.head_ram.rd_data.val().conn == self.x_conn.q.val()
            {
                self.head_ram.wr_addr.next = self.x_oslot.q.val();
                self.head_ram.wr_en.next = true;
            } else {
                self.next_ram.wr_addr.next = self.x_prev.q.val();
                self.next_ram.wr_en.next = true;
            }
            if self.x_next.q.val().valid {
                self.prev_ram.wr_addr.next = self.x_next.q.val().conn;
                self.prev_ram.wr_data.next = self.x_prev.q.val();
                self.prev_ram.wr_en.next = true;
            }
            if self.x_en.q.val() {
                self.state.d.next = self.s_a3.val();
            } else {
                self.state.d.next = self.s_idle.val();
            }
        } else if self.state.q.val() == self.s_a3.val() {
            // Read the new slot's head (after the unlink's writes).
            self.head_ram.rd_addr.next = self.x_slot.q.val();
            self.state.d.next = self.s_ins.val();
        } else if self.state.q.val() == self.s_ins.val() {
            // Link at the head of slot x_slot (its old head is on the read port).
            self.head_ram.wr_en.next = true;
            self.next_ram.wr_en.next = true;
            self.node_ram.wr_en.next = true;
            if self.head_ram.rd_data.val().valid {
                self.prev_ram.wr_en.next = true;
            }
            self.state.d.next = self.s_idle.val();
        } else if self.state.q.val() == self.s_w1.val() {
            // A walk step: the entry's timer and successor are on the read ports.
            self.wcur.d.next = self.next_ram.rd_data.val().conn;
            self.wvalid.d.next = self.next_ram.rd_data.val().valid;
            self.state.d.next = self.s_idle.val();
            self.head_ram.rd_addr.next = self.node_ram.rd_data.val().slot;
            if self.due_n.val() {
                self.fire_v.d.next = true;
                self.fire_c.d.next = self.x_conn.q.val();
                self.node_w.next.armed = false;
                self.node_ram.wr_en.next = true;
            } else if self.node_ram.rd_data.val().armed {
                // A later revolution: back into its slot, for the next visit.
                self.x_at.d.next = self.node_ram.rd_data.val().at;
                self.x_slot.d.next = self.node_ram.rd_data.val().slot;
                self.state.d.next = self.s_ins.val();
            } else {
                // Not reachable (listed entries are armed); end the walk rather than follow a stale link.
                self.wvalid.d.next = false;
            }
        } else {
            // Detach the completed tick's list; the cursor moves on.
            self.wcur.d.next = self.head_ram.rd_data.val().conn;
            self.wvalid.d.next = self.head_ram.rd_data.val().valid;
            self.head_w.next.valid = false;
            self.head_w.next.conn = self.k_zero16.val();
            self.head_ram.wr_addr.next = self.cslot.val();
            self.head_ram.wr_en.next = true;
            self.ctick_n.next = self.ctick.q.val() + self.k_one22.val();
            self.t_step.next = true;
            self.state.d.next = self.s_idle.val();
        }
        self.head_ram.wr_data.next = self.head_w.val();
        self.next_ram.wr_data.next = self.next_w.val();
        self.node_ram.wr_data.next = self.node_w.val();
        // The cursor's tick has completely passed: 0 < now_tick - ctick < 2^21 (serial), for the next cycle.
        self.ctick.d.next = self.ctick_n.val();
        self.lag_stay.next = self.ntick.val() - self.ctick.q.val();
        // ntick - (ctick + 1) = ntick + !ctick: one carry chain.
        self.lag_step.next = self.ntick.val() + !self.ctick.q.val();
        self.lag_clr.next = self.ntick.val() - self.now32.q.val().get_bits::<22>(10);
        self.behind.d.next =
            self.lag_stay.val() != self.k_zero22.val() && !self.lag_stay.val().get_bit(21);
        if self.t_step.val() {
            self.behind.d.next =
                self.lag_step.val() != self.k_zero22.val() && !self.lag_step.val().get_bit(21);
        }
        if self.t_clr.val() {
            self.behind.d.next =
                self.lag_clr.val() != self.k_zero22.val() && !self.lag_clr.val().get_bit(21);
        }
        if self.rst.val() {
            self.state.d.next = self.s_clr.val();
            self.clr.d.next = self.k_zero17.val();
            self.ctick.d.next = self.k_zero22.val();
            self.behind.d.next = false;
            self.wvalid.d.next = false;
            self.abuf_v.d.next = false;
            self.rdy.d.next = false;
            self.turn.d.next = false;
            self.fire_v.d.next = false;
        }
    }
}

/// The core's wheel: `cfg.conn_bits` connections, 1024 slots.
fn verilog(cfg: &crate::CoreConfig) -> String {
    crate::gen::verilog(
        "metaroce_rel_timer_wheel",
        TimerWheel::new(cfg.conn_bits, 10),
    )
}

/// This file's blocks.
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![crate::blocks::BlockSpec {
        name: "metaroce_rel_timer_wheel",
        area: "rel",
        description:
            "retransmission-timer wheel: per-connection deadlines (RTO, RACK) in 1.024 us slots, fired once",
        verilog,
    }]
}
