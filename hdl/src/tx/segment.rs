//! Segmentation: one message of the message table plus a PSN gives that packet's header record
//! ([`PktMeta`]) and payload location, for new packets and retransmissions alike (MR-REL-3, MR-REL-46:
//! nothing is buffered, any PSN of an outstanding message is rebuilt from the message and its PSN).
//!
//! The packet plan is the reference model's (`proto` `metaroce::send::data_plan`, spec 3.3-3.6):
//!
//! * packet index `i = psn - first_psn`, offset `off = i << seg_log` (the segment size is fixed when the
//!   message starts, MR-WIRE-30), payload `min(len - off, 2^seg_log)` bytes (0 for READ_REQ);
//! * DATA flags FIRST when `off == 0`, LAST (and SE when solicited) on the last packet (a READ_REQ is always
//!   LAST); MBH flags AR on the last packet, RTX on retransmissions, SYN (with the Open extension: own CID,
//!   own wlog, ISN, the peer QP, own log2 MTU) while the connection is in its SYN phase (MR-CONN-6);
//! * `addr`: WRITE* `remote_addr + off`, SEND* `off`, READ_REQ `remote_addr`, READ_RESP `off`; `key`: WRITE* and
//!   READ_REQ the R_Key, SEND* the SSN, READ_RESP the answered MSN; `imm` for WRITE_IMM/SEND_IMM; `msg_len`,
//!   `msn` of the message; payload source `local_addr + off` (READ_REQ: 0);
//! * encapsulation from the QP context (peer MAC/IP), DSCP `cfg_dscp_data`, ECN ECT(0), TS `now mod 2^32`,
//!   DCID the peer's CID; `hlen` 0 and `ev` 0 (the frame builder computes the first, the gate gives the second).
//!
//! Ports: inputs `msg`, `peer`, `cs`, `conn`, `psn`, `rtx`, `now`, `cfg_dscp_data`, `cfg_mtu_log`; outputs
//! `meta`, `pay_len`, `last`, `charged` (`pay_len + 64`, MR-CC). Latency: 2 cycles (outputs registered; the
//! inputs must stay stable for those 2 cycles, which the scheduler guarantees by holding them in its
//! registers). Throughput: a new result every cycle for inputs held 2 cycles.

use crate::common::zext::Zext;
use crate::records::{ConnIdx, PktMeta};
use crate::tx::records::{ConnPeer, ConnTx, MsgEntry};
use metaroce_proto::wire::{DataFlags, MbhFlags, Opcode, PacketType};
use rust_hdl::prelude::*;

/// The segmentation function (2-cycle pipeline).
#[derive(LogicBlock)]
pub struct Segment {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// The message.
    pub msg: Signal<In, MsgEntry>,
    /// The connection's destination.
    pub peer: Signal<In, ConnPeer>,
    /// The connection's transmit state (SYN phase, peer CID, ISN, own wlog).
    pub cs: Signal<In, ConnTx>,
    /// The connection.
    pub conn: Signal<In, ConnIdx>,
    /// PSN of the packet.
    pub psn: Signal<In, Bits<32>>,
    /// A retransmission.
    pub rtx: Signal<In, Bit>,
    /// Current time (ns).
    pub now: Signal<In, Bits<64>>,
    /// DSCP of DATA packets.
    pub cfg_dscp_data: Signal<In, Bits<6>>,
    /// Own log2 MTU (Open extension).
    pub cfg_mtu_log: Signal<In, Bits<8>>,
    /// The header record (ev 0).
    pub meta: Signal<Out, PktMeta>,
    /// Payload bytes of the packet.
    pub pay_len: Signal<Out, Bits<16>>,
    /// Last packet of the message.
    pub last: Signal<Out, Bit>,
    /// Charged size `pay_len + 64`.
    pub charged: Signal<Out, Bits<16>>,
    off: DFF<Bits<32>>,
    seg_sz: DFF<Bits<32>>,
    meta_q: DFF<PktMeta>,
    pay_q: DFF<Bits<16>>,
    last_q: DFF<Bit>,
    rem: Signal<Local, Bits<32>>,
    plen: Signal<Local, Bits<32>>,
    is_last: Signal<Local, Bit>,
    mf: Signal<Local, Bits<8>>,
    df: Signal<Local, Bits<8>>,
    c_zero: Constant<PktMeta>,
    c_z8: Constant<Bits<8>>,
    c_z64: Constant<Bits<64>>,
    c_wlog_base: Constant<Bits<8>>,
    z_off: Zext<32, 64>,
    z_wlog: Zext<4, 8>,
    c_write: Constant<Bits<8>>,
    c_write_imm: Constant<Bits<8>>,
    c_send: Constant<Bits<8>>,
    c_send_imm: Constant<Bits<8>>,
    c_read: Constant<Bits<8>>,
    c_first: Constant<Bits<8>>,
    c_last: Constant<Bits<8>>,
    c_se: Constant<Bits<8>>,
    c_syn: Constant<Bits<8>>,
    c_ar: Constant<Bits<8>>,
    c_rtx: Constant<Bits<8>>,
    c_data: Constant<Bits<4>>,
    c_ect0: Constant<Bits<2>>,
    c_overhead: Constant<Bits<16>>,
}

impl Default for Segment {
    fn default() -> Self {
        Self::new()
    }
}

impl Segment {
    /// A segmentation block (no parameters).
    pub fn new() -> Self {
        let b8 = |v: u8| Constant::new(Bits::<8>::from(v as u64));
        Segment {
            clk: Default::default(),
            msg: Default::default(),
            peer: Default::default(),
            cs: Default::default(),
            conn: Default::default(),
            psn: Default::default(),
            rtx: Default::default(),
            now: Default::default(),
            cfg_dscp_data: Default::default(),
            cfg_mtu_log: Default::default(),
            meta: Default::default(),
            pay_len: Default::default(),
            last: Default::default(),
            charged: Default::default(),
            off: Default::default(),
            seg_sz: Default::default(),
            meta_q: Default::default(),
            pay_q: Default::default(),
            last_q: Default::default(),
            rem: Default::default(),
            plen: Default::default(),
            is_last: Default::default(),
            mf: Default::default(),
            df: Default::default(),
            c_zero: Constant::new(PktMeta::default()),
            c_z8: Constant::new(0.into()),
            c_z64: Constant::new(0.into()),
            c_wlog_base: Constant::new(8.into()),
            z_off: Default::default(),
            z_wlog: Default::default(),
            c_write: b8(Opcode::Write as u8),
            c_write_imm: b8(Opcode::WriteImm as u8),
            c_send: b8(Opcode::Send as u8),
            c_send_imm: b8(Opcode::SendImm as u8),
            c_read: b8(Opcode::ReadReq as u8),
            c_first: b8(DataFlags::FIRST.bits()),
            c_last: b8(DataFlags::LAST.bits()),
            c_se: b8(DataFlags::SE.bits()),
            c_syn: b8(MbhFlags::SYN.bits()),
            c_ar: b8(MbhFlags::AR.bits()),
            c_rtx: b8(MbhFlags::RTX.bits()),
            c_data: Constant::new(Bits::<4>::from(PacketType::Data as u8 as u64)),
            c_ect0: Constant::new(Bits::<2>::from(
                metaroce_proto::transport::metaroce::ECT0 as u64,
            )),
            c_overhead: Constant::new(Bits::<16>::from(
                metaroce_proto::transport::loss::PKT_OVERHEAD,
            )),
        }
    }
}

impl Logic for Segment {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, off, seg_sz, meta_q, pay_q, last_q);
        // Stage 1: offset and segment size.
        self.off.d.next = (self.psn.val() - self.msg.val().first_psn) << self.msg.val().seg_log;
        self.seg_sz.d.next = bits::<32>(1) << self.msg.val().seg_log;
        // Stage 2: payload length, flags, fields.
        self.z_off.i.next = self.off.q.val();
        self.z_wlog.i.next = self.cs.val().own_wlog;
        self.rem.next = self.msg.val().len - self.off.q.val();
        self.plen.next = self.rem.val();
        if self.rem.val() > self.seg_sz.q.val() {
            self.plen.next = self.seg_sz.q.val();
        }
        self.is_last.next = self.rem.val() <= self.seg_sz.q.val();
        if self.msg.val().opcode == self.c_read.val() {
            self.plen.next = 0.into();
            self.is_last.next = true;
        }
        self.meta_q.d.next = self.c_zero.val();
        self.meta_q.d.next.peer_mac = self.peer.val().peer_mac;
        self.meta_q.d.next.peer_ip = self.peer.val().peer_ip;
        self.meta_q.d.next.ipv6 = self.peer.val().ipv6;
        self.meta_q.d.next.dscp = self.cfg_dscp_data.val();
        self.meta_q.d.next.ecn = self.c_ect0.val();
        self.meta_q.d.next.ptype = self.c_data.val();
        self.mf.next = self.c_z8.val();
        if self.rtx.val() {
            self.mf.next = self.c_rtx.val();
        }
        if self.is_last.val() {
            self.mf.next = self.c_ar.val() | self.mf.val();
        }
        if self.cs.val().syn {
            self.mf.next = self.c_syn.val() | self.mf.val();
        }
        self.meta_q.d.next.mbh_flags = self.mf.val();
        self.meta_q.d.next.payload_len = self.plen.val().get_bits::<16>(0);
        self.meta_q.d.next.dcid = self.cs.val().peer_cid;
        self.meta_q.d.next.psn = self.psn.val();
        self.meta_q.d.next.ts = self.now.val().get_bits::<32>(0);
        self.meta_q.d.next.opcode = self.msg.val().opcode;
        self.df.next = self.c_z8.val();
        if self.off.q.val() == 0 {
            self.df.next = self.c_first.val();
        }
        if self.is_last.val() {
            self.df.next = self.df.val() | self.c_last.val();
            if self.msg.val().solicited {
                self.df.next = self.df.val() | self.c_se.val();
            }
        }
        self.meta_q.d.next.dflags = self.df.val();
        self.meta_q.d.next.msn = self.msg.val().msn;
        self.meta_q.d.next.msg_len = self.msg.val().len;
        self.meta_q.d.next.imm = 0.into();
        self.meta_q.d.next.key = self.msg.val().rkey;
        self.meta_q.d.next.addr = self.z_off.o.val();
        self.meta_q.d.next.local_addr = self.msg.val().local_addr + self.z_off.o.val();
        if (self.msg.val().opcode == self.c_write.val())
            | (self.msg.val().opcode == self.c_write_imm.val())
        {
            self.meta_q.d.next.addr = self.msg.val().remote_addr + self.z_off.o.val();
        }
        if (self.msg.val().opcode == self.c_send.val())
            | (self.msg.val().opcode == self.c_send_imm.val())
        {
            self.meta_q.d.next.key = self.msg.val().ssn;
        }
        if (self.msg.val().opcode == self.c_write_imm.val())
            | (self.msg.val().opcode == self.c_send_imm.val())
        {
            self.meta_q.d.next.imm = self.msg.val().imm;
        }
        if self.msg.val().opcode == self.c_read.val() {
            self.meta_q.d.next.addr = self.msg.val().remote_addr;
            self.meta_q.d.next.local_addr = self.c_z64.val();
        }
        if self.cs.val().syn {
            self.meta_q.d.next.ox = true;
            self.meta_q.d.next.ox_scid = self.peer.val().cid;
            self.meta_q.d.next.wlog = self.z_wlog.o.val() + self.c_wlog_base.val();
            self.meta_q.d.next.isn = self.cs.val().isn;
            self.meta_q.d.next.target_qpn = self.peer.val().remote_qpn;
            self.meta_q.d.next.mtu_log = self.cfg_mtu_log.val();
        }
        self.meta_q.d.next.conn = self.conn.val();
        self.pay_q.d.next = self.plen.val().get_bits::<16>(0);
        self.last_q.d.next = self.is_last.val();
        self.meta.next = self.meta_q.q.val();
        self.pay_len.next = self.pay_q.q.val();
        self.last.next = self.last_q.q.val();
        self.charged.next = self.pay_q.q.val() + self.c_overhead.val();
    }
}
