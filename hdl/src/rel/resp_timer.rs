//! The READ-response timer of a requester (MR-REL-58): a READ whose request the responder acknowledged must
//! not wait forever for a response that stopped coming (the responder failed, or every path back is dead).
//!
//! **Inputs.**
//! * `s_axis_wait_*` ([`RespWait`]): from the transmit scheduler, which sees the acknowledgement of a READ's
//!   request and the completion of its response: `wait = 1` when a connection starts having a READ whose
//!   request is acknowledged and whose response is incomplete, `wait = 0` when it stops having one (and on
//!   every open of the connection).
//! * `s_axis_data_*` (the connection index, no back-pressure): every DATA packet received from the peer on a
//!   connection (accepted or not). Its time goes into a per-connection RAM (`rx_ram`), one write per packet.
//!
//! **Timer.** Per connection (`st_ram`, [`RespState`]): `armed`, the expiry count `k` and the time `t0` the
//! current deadline counts from. `wait = 1` on an unarmed connection arms it (`k = 0`, `t0 = now`) at
//! `t0 + timeout(0)`; `wait = 0` disarms it. The deadlines live in a [`TimerWheel`] (fired at most one tick,
//! 1.024 µs, late, never early). When one fires:
//! * if DATA arrived from the peer after `t0` (the peer's send direction is alive), the count restarts: `k = 0`,
//!   `t0` = the newest DATA's time, re-armed at `t0 + timeout(0)` (the model re-arms at every DATA packet;
//!   re-arming lazily at the fire gives the same deadline without a wheel operation per packet);
//! * otherwise the expiry counts: `k + 1` beyond `cfg_retry_limit` fails the connection (its index on
//!   `m_axis_err_*`, as the sender engine's retry limit does, MR-REL-55: the control processor moves the QP to
//!   ERROR, completing the READ with RetryExceeded and flushing the rest); else `k += 1`, `t0 = now`, re-armed
//!   at `t0 + timeout(k)`.
//!
//! `timeout(k) = min(base << k, max(cfg_rto_max_ns, base))` with `base = cfg_rto_min_ns`, both clamped to
//! 2^31 − 1 ns (the wheel's horizon). *Difference from the model:* the model's base is the connection's
//! current RTO (MR-REL-29), which the RTT estimator clamps to `rto_min` from below; with datacentre RTTs (far
//! below `rto_min`) the two are equal. The scheduler sees an acknowledged READ only at the head of the
//! connection's message list (it releases messages in order), so a READ whose request is selectively
//! acknowledged behind an unacknowledged message is timed from that message's acknowledgement on; the
//! sender's own RTO covers the time before.
//!
//! **Operation.** One command at a time: in idle a fire (taken only while the error register is empty) before
//! a wait event; the RAM read (1 cycle, the decision's comparisons registered with the words), the decision
//! and state write, the timeout's shift, its cap and deadline, then the arm or disarm handed to the wheel.
//! After a reset both RAMs are cleared (`1 << conn_bits` cycles, `s_axis_wait_tready` low). Ports: see the
//! fields. Construct with [`RespTimer::new`]`(conn_bits)`.

use crate::common::ram::SdpRam;
use crate::common::zext::Zext;
use crate::rel::timer_wheel::{TimerArm, TimerWheel};
use rust_hdl::prelude::*;

pub use rec::{RespState, RespWait};

// `LogicStruct` generates public accessor methods without docs; the records and their fields are documented.
#[allow(missing_docs)]
mod rec {
    use crate::records::ConnIdx;
    use rust_hdl::prelude::*;

    /// A connection starts (`wait = 1`) or stops (`wait = 0`) waiting for a READ response.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct RespWait {
        /// Connection.
        pub conn: ConnIdx,
        /// A READ whose request is acknowledged waits for its response.
        pub wait: Bit,
    }

    /// A connection's READ-response timer.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct RespState {
        /// A deadline is pending in the wheel.
        pub armed: Bit,
        /// Expiries since the last DATA from the peer (or since arming).
        pub k: Bits<8>,
        /// The time the pending deadline counts from, ns.
        pub t0: Bits<64>,
    }
}

/// The largest timeout, ns (the wheel's horizon is 2^31 ns).
pub const TIMEOUT_MAX_NS: u64 = (1 << 31) - 1;

/// The READ-response timer (see the module docs).
#[derive(LogicBlock)]
pub struct RespTimer {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset: clears every timer (then `1 << conn_bits` cycles of clearing).
    pub rst: Signal<In, Bit>,
    /// Current time, ns.
    pub now: Signal<In, Bits<64>>,
    /// Wait events from the scheduler.
    pub s_axis_wait_tdata: Signal<In, RespWait>,
    /// Valid.
    pub s_axis_wait_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_wait_tready: Signal<Out, Bit>,
    /// The connection of a DATA packet received from the peer (taken every cycle).
    pub s_axis_data_tdata: Signal<In, Bits<16>>,
    /// Valid.
    pub s_axis_data_tvalid: Signal<In, Bit>,
    /// A connection whose READ response timed out beyond the retry limit.
    pub m_axis_err_tdata: Signal<Out, Bits<16>>,
    /// Valid (registered).
    pub m_axis_err_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_err_tready: Signal<In, Bit>,
    /// Base timeout, ns (`rto_min`).
    pub cfg_rto_min_ns: Signal<In, Bits<64>>,
    /// Largest timeout, ns (`rto_max`).
    pub cfg_rto_max_ns: Signal<In, Bits<64>>,
    /// Expiries allowed without DATA from the peer.
    pub cfg_retry_limit: Signal<In, Bits<8>>,
    wheel: TimerWheel,
    st_ram: SdpRam<RespState, 16>,
    rx_ram: SdpRam<Bits<64>, 16>,
    state: DFF<Bits<3>>,
    clr: DFF<Bits<17>>,
    base: DFF<Bits<64>>,
    cap: DFF<Bits<64>>,
    x_conn: DFF<Bits<16>>,
    x_fire: DFF<Bit>,
    x_wait: DFF<Bit>,
    x_st: DFF<RespState>,
    x_rx: DFF<Bits<64>>,
    x_k: DFF<Bits<8>>,
    x_tb: DFF<Bits<64>>,
    x_sh: DFF<Bits<64>>,
    x_big: DFF<Bit>,
    /// `x_rx - t0` is positive (DATA from the peer since `t0`), and `k + 1 > cfg_retry_limit`: registered
    /// with the words in `s_rd` for `s_dec`.
    x_new: DFF<Bit>,
    x_over: DFF<Bit>,
    /// `x_tb + cap`, registered in `s_sh`: `s_cap` chooses between it and `x_tb + x_sh`.
    x_tbc: DFF<Bits<64>>,
    at_sh: Signal<Local, Bits<64>>,
    arm: DFF<TimerArm>,
    arm_v: DFF<Bit>,
    err_v: DFF<Bit>,
    err_c: DFF<Bits<16>>,
    z_k: Zext<8, 9>,
    z_lim: Zext<8, 9>,
    z_sh: Zext<5, 64>,
    since: Signal<Local, Bits<64>>,
    k1: Signal<Local, Bits<9>>,
    at64: Signal<Local, Bits<64>>,
    st_we: Signal<Local, Bit>,
    st_w: Signal<Local, RespState>,
    s_clr: Constant<Bits<3>>,
    s_idle: Constant<Bits<3>>,
    s_rd: Constant<Bits<3>>,
    s_dec: Constant<Bits<3>>,
    s_sh: Constant<Bits<3>>,
    s_cap: Constant<Bits<3>>,
    s_arm: Constant<Bits<3>>,
    k_cmask: Constant<Bits<16>>,
    k_clr_last: Constant<Bits<17>>,
    k_one17: Constant<Bits<17>>,
    k_zero17: Constant<Bits<17>>,
    k_one8: Constant<Bits<8>>,
    k_one9: Constant<Bits<9>>,
    k_zero8: Constant<Bits<8>>,
    k_zero64: Constant<Bits<64>>,
    k_tmax: Constant<Bits<64>>,
    k_big: Constant<Bits<8>>,
    k_st0: Constant<RespState>,
    _conn_bits: u32,
}

impl RespTimer {
    /// A timer for `1 << conn_bits` connections (1..=16, clamped).
    pub fn new(conn_bits: u32) -> Self {
        let conn_bits = conn_bits.clamp(1, 16);
        RespTimer {
            clk: Default::default(),
            rst: Default::default(),
            now: Default::default(),
            s_axis_wait_tdata: Default::default(),
            s_axis_wait_tvalid: Default::default(),
            s_axis_wait_tready: Default::default(),
            s_axis_data_tdata: Default::default(),
            s_axis_data_tvalid: Default::default(),
            m_axis_err_tdata: Default::default(),
            m_axis_err_tvalid: Default::default(),
            m_axis_err_tready: Default::default(),
            cfg_rto_min_ns: Default::default(),
            cfg_rto_max_ns: Default::default(),
            cfg_retry_limit: Default::default(),
            wheel: TimerWheel::new(conn_bits, 10),
            st_ram: SdpRam::new(1 << conn_bits),
            rx_ram: SdpRam::new(1 << conn_bits),
            state: Default::default(),
            clr: Default::default(),
            base: Default::default(),
            cap: Default::default(),
            x_conn: Default::default(),
            x_fire: Default::default(),
            x_wait: Default::default(),
            x_st: Default::default(),
            x_rx: Default::default(),
            x_k: Default::default(),
            x_tb: Default::default(),
            x_sh: Default::default(),
            x_big: Default::default(),
            x_new: Default::default(),
            x_over: Default::default(),
            x_tbc: Default::default(),
            at_sh: Default::default(),
            arm: Default::default(),
            arm_v: Default::default(),
            err_v: Default::default(),
            err_c: Default::default(),
            z_k: Default::default(),
            z_lim: Default::default(),
            z_sh: Default::default(),
            since: Default::default(),
            k1: Default::default(),
            at64: Default::default(),
            st_we: Default::default(),
            st_w: Default::default(),
            s_clr: Constant::new(0u64.to_bits()),
            s_idle: Constant::new(1u64.to_bits()),
            s_rd: Constant::new(2u64.to_bits()),
            s_dec: Constant::new(3u64.to_bits()),
            s_sh: Constant::new(4u64.to_bits()),
            s_cap: Constant::new(5u64.to_bits()),
            s_arm: Constant::new(6u64.to_bits()),
            k_cmask: Constant::new(((1u64 << conn_bits) - 1).to_bits()),
            k_clr_last: Constant::new(((1u64 << conn_bits) - 1).to_bits()),
            k_one17: Constant::new(1u64.to_bits()),
            k_zero17: Constant::new(0u64.to_bits()),
            k_one8: Constant::new(1u64.to_bits()),
            k_one9: Constant::new(1u64.to_bits()),
            k_zero8: Constant::new(0u64.to_bits()),
            k_zero64: Constant::new(0u64.to_bits()),
            k_tmax: Constant::new(TIMEOUT_MAX_NS.to_bits()),
            k_big: Constant::new(32u64.to_bits()),
            k_st0: Constant::new(RespState::default()),
            _conn_bits: conn_bits,
        }
    }

    /// Cycles of clearing after a reset (`1 << conn_bits`; the wheel clears in the same time).
    pub fn clear_cycles(&self) -> usize {
        (1usize << self._conn_bits).max(self.wheel.clear_cycles())
    }
}

impl Logic for RespTimer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, state, clr, base, cap, x_conn, x_fire, x_wait, x_st, x_rx, x_k, x_tb, x_sh,
            x_big, x_new, x_over, x_tbc, arm, arm_v, err_v, err_c
        );
        self.wheel.clk.next = self.clk.val();
        self.wheel.rst.next = self.rst.val();
        self.wheel.now.next = self.now.val();
        self.st_ram.clk.next = self.clk.val();
        self.rx_ram.clk.next = self.clk.val();

        // The timeout's bounds (static configuration, registered).
        self.base.d.next = self.cfg_rto_min_ns.val();
        if self.cfg_rto_min_ns.val() > self.k_tmax.val() {
            self.base.d.next = self.k_tmax.val();
        }
        self.cap.d.next = self.cfg_rto_max_ns.val();
        if self.cfg_rto_max_ns.val() > self.k_tmax.val() {
            self.cap.d.next = self.k_tmax.val();
        }
        if self.cap.q.val() < self.base.q.val() {
            self.cap.d.next = self.base.q.val();
        }

        // DATA from the peer: its time, one write per packet (the clear uses the port after a reset).
        self.rx_ram.wr_addr.next = self.s_axis_data_tdata.val() & self.k_cmask.val();
        self.rx_ram.wr_data.next = self.now.val();
        self.rx_ram.wr_en.next = self.s_axis_data_tvalid.val();

        // Defaults.
        self.s_axis_wait_tready.next = false;
        self.wheel.m_axis_fire_tready.next = false;
        self.wheel.s_axis_arm_tdata.next = self.arm.q.val();
        self.wheel.s_axis_arm_tvalid.next = self.arm_v.q.val();
        self.m_axis_err_tdata.next = self.err_c.q.val();
        self.m_axis_err_tvalid.next = self.err_v.q.val();
        if self.m_axis_err_tready.val() {
            self.err_v.d.next = false;
        }
        self.st_ram.rd_addr.next = self.s_axis_wait_tdata.val().conn & self.k_cmask.val();
        self.rx_ram.rd_addr.next = self.s_axis_wait_tdata.val().conn & self.k_cmask.val();
        self.st_we.next = false;
        self.st_w.next = self.k_st0.val();
        self.st_ram.wr_addr.next = self.x_conn.q.val();
        self.since.next = self.rx_ram.rd_data.val() - self.st_ram.rd_data.val().t0;
        self.z_k.i.next = self.st_ram.rd_data.val().k;
        self.z_lim.i.next = self.cfg_retry_limit.val();
        self.k1.next = self.z_k.o.val() + self.k_one9.val();
        self.z_sh.i.next = self.x_k.q.val().get_bits::<5>(0);
        // The deadline `x_tb + min(x_sh, cap)` (`cap` when the shift overflowed): both sums side by side with
        // the comparison.
        self.at_sh.next = self.x_tb.q.val() + self.x_sh.q.val();
        self.at64.next = self.at_sh.val();
        if self.x_big.q.val() | (self.x_sh.q.val() > self.cap.q.val()) {
            self.at64.next = self.x_tbc.q.val();
        }

        if self.state.q.val() == self.s_clr.val() {
            self.st_we.next = true;
            self.st_ram.wr_addr.next = self.clr.q.val().get_bits::<16>(0);
            self.rx_ram.wr_addr.next = self.clr.q.val().get_bits::<16>(0);
            self.rx_ram.wr_data.next = self.k_zero64.val();
            self.rx_ram.wr_en.next = true;
            self.clr.d.next = self.clr.q.val() + self.k_one17.val();
            if self.clr.q.val() == self.k_clr_last.val() {
                self.state.d.next = self.s_idle.val();
            }
        } else if self.state.q.val() == self.s_idle.val() {
            if self.wheel.m_axis_fire_tvalid.val() & !self.err_v.q.val() {
                self.wheel.m_axis_fire_tready.next = true;
                self.st_ram.rd_addr.next = self.wheel.m_axis_fire_tdata.val() & self.k_cmask.val();
                self.rx_ram.rd_addr.next = self.wheel.m_axis_fire_tdata.val() & self.k_cmask.val();
                self.x_conn.d.next = self.wheel.m_axis_fire_tdata.val() & self.k_cmask.val();
                self.x_fire.d.next = true;
                self.state.d.next = self.s_rd.val();
            } else if self.s_axis_wait_tvalid.val() {
                self.s_axis_wait_tready.next = true;
                self.x_conn.d.next = self.s_axis_wait_tdata.val().conn & self.k_cmask.val();
                self.x_wait.d.next = self.s_axis_wait_tdata.val().wait;
                self.x_fire.d.next = false;
                self.state.d.next = self.s_rd.val();
            }
        } else if self.state.q.val() == self.s_rd.val() {
            self.x_st.d.next = self.st_ram.rd_data.val();
            self.x_rx.d.next = self.rx_ram.rd_data.val();
            // The decision's comparisons, on the words read, registered.
            self.x_new.d.next =
                !self.since.val().get_bit(63) & (self.since.val() != self.k_zero64.val());
            self.x_over.d.next = self.k1.val() > self.z_lim.o.val();
            self.state.d.next = self.s_dec.val();
        } else if self.state.q.val() == self.s_dec.val() {
            self.state.d.next = self.s_idle.val();
            self.arm.d.next.conn = self.x_conn.q.val();
            self.arm.d.next.en = false;
            self.arm.d.next.at = self.k_zero64.val().get_bits::<32>(0);
            if self.x_fire.q.val() {
                if self.x_st.q.val().armed {
                    if self.x_new.q.val() {
                        // DATA from the peer since t0: the count restarts from that packet.
                        self.st_we.next = true;
                        self.st_w.next.armed = true;
                        self.st_w.next.k = self.k_zero8.val();
                        self.st_w.next.t0 = self.x_rx.q.val();
                        self.x_k.d.next = self.k_zero8.val();
                        self.x_tb.d.next = self.x_rx.q.val();
                        self.state.d.next = self.s_sh.val();
                    } else if self.x_over.q.val() {
                        // Beyond the retry limit: the connection fails (MR-REL-55).
                        self.st_we.next = true;
                        self.err_v.d.next = true;
                        self.err_c.d.next = self.x_conn.q.val();
                    } else {
                        self.st_we.next = true;
                        self.st_w.next.armed = true;
                        self.st_w.next.k = self.x_st.q.val().k + self.k_one8.val();
                        self.st_w.next.t0 = self.now.val();
                        self.x_k.d.next = self.x_st.q.val().k + self.k_one8.val();
                        self.x_tb.d.next = self.now.val();
                        self.state.d.next = self.s_sh.val();
                    }
                }
            } else if self.x_wait.q.val() & !self.x_st.q.val().armed {
                self.st_we.next = true;
                self.st_w.next.armed = true;
                self.st_w.next.k = self.k_zero8.val();
                self.st_w.next.t0 = self.now.val();
                self.x_k.d.next = self.k_zero8.val();
                self.x_tb.d.next = self.now.val();
                self.state.d.next = self.s_sh.val();
            } else if !self.x_wait.q.val() & self.x_st.q.val().armed {
                self.st_we.next = true;
                self.arm_v.d.next = true;
                self.state.d.next = self.s_arm.val();
            }
        } else if self.state.q.val() == self.s_sh.val() {
            self.x_sh.d.next = self.base.q.val() << self.z_sh.o.val();
            self.x_big.d.next = self.x_k.q.val() >= self.k_big.val();
            self.x_tbc.d.next = self.x_tb.q.val() + self.cap.q.val();
            self.state.d.next = self.s_cap.val();
        } else if self.state.q.val() == self.s_cap.val() {
            self.arm.d.next.conn = self.x_conn.q.val();
            self.arm.d.next.en = true;
            self.arm.d.next.at = self.at64.val().get_bits::<32>(0);
            self.arm_v.d.next = true;
            self.state.d.next = self.s_arm.val();
        } else if self.state.q.val() == self.s_arm.val() {
            if self.wheel.s_axis_arm_tready.val() {
                self.arm_v.d.next = false;
                self.state.d.next = self.s_idle.val();
            }
        } else {
            self.state.d.next = self.s_idle.val();
        }
        self.st_ram.wr_en.next = self.st_we.val();
        self.st_ram.wr_data.next = self.st_w.val();

        if self.rst.val() {
            self.state.d.next = self.s_clr.val();
            self.clr.d.next = self.k_zero17.val();
            self.arm_v.d.next = false;
            self.err_v.d.next = false;
        }
    }
}

/// The core's timer: `cfg.conn_bits` connections.
fn verilog(cfg: &crate::CoreConfig) -> String {
    crate::gen::verilog("metaroce_rel_resp_timer", RespTimer::new(cfg.conn_bits))
}

/// This file's blocks.
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![crate::blocks::BlockSpec {
        name: "metaroce_rel_resp_timer",
        area: "rel",
        description: "READ-response timer (MR-REL-58): armed while an acknowledged READ waits for its response, \
                      restarted by DATA from the peer, fails the connection beyond the retry limit",
        verilog,
    }]
}
