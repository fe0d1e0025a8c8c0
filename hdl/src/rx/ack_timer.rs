//! The ACK-delay timer of the receive path (MR-REL-16): when `ack_ratio > 1`, a connection's accepted but
//! unacknowledged packets are acknowledged no later than `ack_delay_ns` after the first of them arrived.
//!
//! The acknowledgement generator ([`crate::rx::ack_gen`]) *arms* a connection when an accepted packet leaves
//! it owing an ACK that is not yet due and no deadline is pending: it records the deadline (`now +
//! ack_delay_ns`, low 32 bits) in the connection's ACK state and writes an [`AckArm`] here (`arm_wr_*`).
//! The delay is one value for every connection, so deadlines arrive in time order and a FIFO of
//! `2^`[`ACK_TIMER_LOG`] entries holds them: the head leaves as a *trigger* (`m_axis_trig_*`) once `now` has
//! reached its deadline. A trigger is a [`PktMeta`] that no frame can produce (`ack_timer` = 1, type CTRL,
//! `conn`, the connection's addresses and CIDs as the arming packet had them after the lookup, `ts` = the
//! deadline, every other field 0). The receive engine sends it through the window, which reads the
//! connection's CACK and bitmap as for a PROBE, to the acknowledgement generator, which sends the ACK if the
//! connection is still armed with that deadline (an ACK sent in between disarms it, so a stale trigger does
//! nothing). The trigger then goes on to placement like a PROBE (nothing placed, no payload, not counted), so
//! that the packet numbers of the completion stage and placement stay in step.
//!
//! When the FIFO is full `arm_room` is low and the generator makes that packet's ACK due at once
//! instead (an early ACK is always allowed), so a burst of connections arming at once costs ACKs, never a
//! late one.
//!
//! Timing: a deadline is compared with the low 32 bits of `now` modulo 2^32 (`now - deadline` below 2^31:
//! reached), so deadlines up to 2.1 s ahead compare correctly. The comparison is registered: the head leaves
//! in the cycle after the one in which `now` reached its deadline (a head is compared in the cycle it is
//! loaded), then takes the window's and the generator's latency.
//!
//! Ports: `arm_wr_en` / `arm_wr_data` (`AckArm`) / `arm_room` (a FIFO write port: `arm_room` comes from
//! registers, and the generator writes only while it is high) → `m_axis_trig_{tdata: PktMeta, tvalid, tready}`
//! (from the head register and the comparison); `now`.

use crate::common::ram::SdpRam;
use crate::records::PktMeta;
use metaroce_proto::wire::PacketType;
use rust_hdl::prelude::*;

pub use rec::AckArm;

/// log2 of the deadlines the timer holds.
pub const ACK_TIMER_LOG: usize = 6;

// `LogicStruct` generates public accessor methods without docs; the record and its fields are documented.
#[allow(missing_docs)]
mod rec {
    use crate::records::ConnIdx;
    use rust_hdl::prelude::*;

    /// One armed ACK deadline: the connection and what its ACK is sent with.
    #[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
    pub struct AckArm {
        /// Connection.
        pub conn: ConnIdx,
        /// Deadline, ns (low 32 bits of the time base).
        pub deadline: Bits<32>,
        /// Peer MAC address.
        pub peer_mac: Bits<48>,
        /// Peer IP address.
        pub peer_ip: Bits<128>,
        /// Over IPv6.
        pub ipv6: Bit,
        /// With an 802.1Q tag.
        pub vlan: Bit,
        /// Its TCI.
        pub tci: Bits<16>,
        /// Own CID (the arming packet's DCID).
        pub dcid: Bits<24>,
        /// The peer's CID (the arming packet's SCID after the lookup).
        pub scid: Bits<24>,
    }
}

/// The ACK-delay timer (see the module docs).
#[derive(LogicBlock)]
pub struct AckTimer {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// Current time, ns.
    pub now: Signal<In, Bits<64>>,
    /// Writes a deadline from the acknowledgement generator (only while `arm_room`).
    pub arm_wr_en: Signal<In, Bit>,
    /// The deadline.
    pub arm_wr_data: Signal<In, AckArm>,
    /// An entry is free (from registers).
    pub arm_room: Signal<Out, Bit>,
    /// Triggers whose deadline was reached.
    pub m_axis_trig_tdata: Signal<Out, PktMeta>,
    /// Valid.
    pub m_axis_trig_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_trig_tready: Signal<In, Bit>,
    ram: SdpRam<AckArm, ACK_TIMER_LOG>,
    wp: DFF<Bits<7>>,
    rp: DFF<Bits<7>>,
    rd: DFF<Bit>,
    occ: DFF<Bits<7>>,
    hv: DFF<Bit>,
    h: DFF<AckArm>,
    cnt: Signal<Local, Bits<7>>,
    push: Signal<Local, Bit>,
    nd: Signal<Local, Bits<32>>,
    late: Signal<Local, Bits<32>>,
    reached: DFF<Bit>,
    due: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    trig: Signal<Local, PktMeta>,
    occ_p1: Signal<Local, Bits<7>>,
    occ_m1: Signal<Local, Bits<7>>,
    m_inc: Signal<Local, Bits<7>>,
    m_dec: Signal<Local, Bits<7>>,
    m_keep: Signal<Local, Bits<7>>,
    k_ones: Constant<Bits<7>>,
    k_full: Constant<Bits<7>>,
    k_one: Constant<Bits<7>>,
    k_zero: Constant<Bits<7>>,
    k_ctrl: Constant<Bits<4>>,
    k_meta0: Constant<PktMeta>,
}

impl Default for AckTimer {
    fn default() -> Self {
        AckTimer {
            clk: Default::default(),
            rst: Default::default(),
            now: Default::default(),
            arm_wr_en: Default::default(),
            arm_wr_data: Default::default(),
            arm_room: Default::default(),
            m_axis_trig_tdata: Default::default(),
            m_axis_trig_tvalid: Default::default(),
            m_axis_trig_tready: Default::default(),
            ram: SdpRam::new(1 << ACK_TIMER_LOG),
            wp: Default::default(),
            rp: Default::default(),
            rd: Default::default(),
            occ: Default::default(),
            hv: Default::default(),
            h: Default::default(),
            cnt: Default::default(),
            push: Default::default(),
            nd: Default::default(),
            late: Default::default(),
            reached: Default::default(),
            due: Default::default(),
            pop: Default::default(),
            trig: Default::default(),
            occ_p1: Default::default(),
            occ_m1: Default::default(),
            m_inc: Default::default(),
            m_dec: Default::default(),
            m_keep: Default::default(),
            k_ones: Constant::new(0x7fu64.into()),
            k_full: Constant::new((1u64 << ACK_TIMER_LOG).into()),
            k_one: Constant::new(1u64.into()),
            k_zero: Constant::new(0u64.into()),
            k_ctrl: Constant::new((PacketType::Ctrl as u64).into()),
            k_meta0: Constant::new(PktMeta::default()),
        }
    }
}

impl Logic for AckTimer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, wp, rp, rd, occ, hv, h, reached);
        self.ram.clk.next = self.clk.val();

        // Write side: one deadline per cycle while fewer than 2^ACK_TIMER_LOG are held (RAM, read in flight
        // and head together: `occ`).
        self.cnt.next = self.wp.q.val() - self.rp.q.val();
        self.arm_room.next = self.occ.q.val() != self.k_full.val();
        self.push.next = self.arm_wr_en.val() & (self.occ.q.val() != self.k_full.val());
        self.ram.wr_addr.next = self.wp.q.val().get_bits::<ACK_TIMER_LOG>(0);
        self.ram.wr_data.next = self.arm_wr_data.val();
        self.ram.wr_en.next = self.push.val();
        if self.push.val() {
            self.wp.d.next = self.wp.q.val() + self.k_one.val();
        }

        // Head: due when `now` had reached its deadline (mod 2^32) in the cycle before. The comparison is
        // registered, made on the next cycle's head (the word loaded, else the head as it is), so that the
        // trigger's valid is not behind a 32-bit subtraction.
        if self.rd.q.val() {
            self.nd.next = self.ram.rd_data.val().deadline;
        } else {
            self.nd.next = self.h.q.val().deadline;
        }
        self.late.next = self.now.val().get_bits::<32>(0) - self.nd.val();
        self.reached.d.next = !self.late.val().get_bit(31);
        self.due.next = self.hv.q.val() & self.reached.q.val();
        self.pop.next = self.due.val() & self.m_axis_trig_tready.val();
        if self.pop.val() {
            self.hv.d.next = false;
        }
        if self.rd.q.val() {
            self.h.d.next = self.ram.rd_data.val();
            self.hv.d.next = true;
        }
        // Refill the head: one read in flight at most, issued when the head is empty or leaves now.
        self.ram.rd_addr.next = self.rp.q.val().get_bits::<ACK_TIMER_LOG>(0);
        self.rd.d.next = false;
        if (self.cnt.val() != self.k_zero.val())
            & !self.rd.q.val()
            & (!self.hv.q.val() | self.pop.val())
        {
            self.rd.d.next = true;
            self.rp.d.next = self.rp.q.val() + self.k_one.val();
        }

        // `occ + 1` and `occ - 1` from the register, chosen by masks (an AND-OR, not a multiplexer, so that
        // synthesis does not share one adder behind the push and pop decisions).
        self.occ_p1.next = self.occ.q.val() + self.k_one.val();
        self.occ_m1.next = self.occ.q.val() - self.k_one.val();
        self.m_inc.next = self.k_zero.val();
        self.m_dec.next = self.k_zero.val();
        self.m_keep.next = self.k_zero.val();
        if self.push.val() & !self.pop.val() {
            self.m_inc.next = self.k_ones.val();
        } else if !self.push.val() & self.pop.val() {
            self.m_dec.next = self.k_ones.val();
        } else {
            self.m_keep.next = self.k_ones.val();
        }
        self.occ.d.next = (self.occ_p1.val() & self.m_inc.val())
            | (self.occ_m1.val() & self.m_dec.val())
            | (self.occ.q.val() & self.m_keep.val());

        // The trigger.
        self.trig.next = self.k_meta0.val();
        self.trig.next.ack_timer = true;
        self.trig.next.ptype = self.k_ctrl.val();
        self.trig.next.conn = self.h.q.val().conn;
        self.trig.next.ts = self.h.q.val().deadline;
        self.trig.next.peer_mac = self.h.q.val().peer_mac;
        self.trig.next.peer_ip = self.h.q.val().peer_ip;
        self.trig.next.ipv6 = self.h.q.val().ipv6;
        self.trig.next.vlan = self.h.q.val().vlan;
        self.trig.next.tci = self.h.q.val().tci;
        self.trig.next.dcid = self.h.q.val().dcid;
        self.trig.next.scid = self.h.q.val().scid;
        self.m_axis_trig_tdata.next = self.trig.val();
        self.m_axis_trig_tvalid.next = self.due.val();
        if self.rst.val() {
            self.wp.d.next = self.k_zero.val();
            self.rp.d.next = self.k_zero.val();
            self.rd.d.next = false;
            self.occ.d.next = self.k_zero.val();
            self.hv.d.next = false;
        }
    }
}

/// This block.
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![crate::blocks::BlockSpec {
        name: "metaroce_rx_ack_timer",
        area: "rx",
        description:
            "ACK-delay deadlines (MR-REL-16): a FIFO of armed connections, triggers when due",
        verilog: |_cfg| crate::gen::verilog("metaroce_rx_ack_timer", AckTimer::default()),
    }]
}
