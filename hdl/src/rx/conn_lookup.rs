//! Connection lookup of the receive path: names the local connection of every received packet by its DCID,
//! checks the peer (MR-CONN-3) and takes the miss path of spec 7.8.
//!
//! **Table.** Entry `i` of a `2^conn_bits`-entry RAM ([`ConnIdEntry`]) holds the connection identity taken from
//! the context-programming writes (`s_axis_ctxw_*`, table [`CONN`](crate::ctx::table::CONN), fields at the
//! offsets of `metaroce_regmap::context::conn::field`): `live` (`state != CLOSED`), `rcv_init` (flag
//! `RCV_INIT`), the own `cid` and the `peer_cid`. A second RAM ([`PeerEntry`]) holds the peer address, taken
//! from the QP-context writes (table [`QP`](crate::ctx::table::QP)): a QP entry whose `cid` is non-zero names its
//! connection, and its `remote_ip` / `ipv6` become that connection's peer address. `ConnOpen` events carry none
//! of these fields; this block does not take them.
//!
//! **Lookup.** The index is the DCID's low `conn_bits`; a packet *hits* when `DCID != 0`, the entry is live and
//! its `cid` equals the whole 24-bit DCID (a DCID whose high bits are non-zero hits only if the firmware
//! programmed exactly that CID, so CIDs carrying a generation above the index, MR-CONN-2, work as well).
//! An untrimmed packet with `DCID = 0` and an Open extension (a repeated SYN of an initiator that does not know
//! this side's CID yet, MR-CONN-11) is looked up at the index `OX.target_qpn`'s low `conn_bits` (the firmware
//! gives QP n the connection entry n) and hits when that entry is live, its receive direction is initialised
//! and its `peer_cid` equals `OX.SCID`; the peer address is checked as for any hit. Such a packet is then
//! processed on the connection like the same SYN with the connection's CID (its `dcid` is set to that CID, so
//! that the acknowledgement names this side, MR-CONN-7); the first SYN of an open, before
//! the firmware has bound the connection to the peer, misses and goes to the firmware (decision 6).
//!
//! **Decisions** (in this order; `m_axis_meta` always gets the packet, with `drop` and `conn` set):
//! 1. `drop != 0` on input: passed on unchanged.
//! 2. Hit, source address (`peer_ip`, `ipv6`) differs from the connection's peer: drop `WRONG_PEER` (MR-CONN-3).
//! 3. Hit, untrimmed packet with SYN (an Open extension) while the receive direction is not initialised or
//!    `OX.SCID` differs from the recorded peer CID (MR-CONN-15, MR-CONN-16, MR-CONN-18: a peer restart):
//!    handed to the firmware on `m_axis_exc_*`, marked [`EXCEPTION`] on the main stream.
//! 4. Hit, untrimmed DATA while the receive direction is not initialised (`rcv_init` = 0): drop
//!    `UNKNOWN_CONNECTION` (the reference model's `on_data`).
//! 5. Hit otherwise: `conn` = the index, `drop` = 0. For DATA packets the `scid` field (not carried by DATA)
//!    is set to the connection's peer CID, which the acknowledgement generator uses as the DCID of its
//!    ACK / NACK.
//! 6. Miss, untrimmed DATA or CTRL with SYN: a connection open (MR-CONN-11..13, MR-CONN-17, MR-CONN-32):
//!    handed to the firmware on `m_axis_exc_*` (which creates the context, spec 7.3), marked [`EXCEPTION`].
//! 7. Miss, trimmed DATA with `DCID = 0` or SYN (its Open extension is gone): drop `UNKNOWN_CONNECTION`.
//! 8. Miss, other DATA (trimmed or not): a NACK NO_CONTEXT request on `m_axis_nctx_*` (MR-CONN-32, MR-CONN-33:
//!    `MBH.DCID` = 0, `SCID` = the packet's DCID, PSN and `echo_ts` = the packet's PSN and TS, `aux` =
//!    `cfg_no_ctx_retry_us`, back to the packet's source on its EV, DSCP `cfg_dscp_ctrl`), drop
//!    `UNKNOWN_CONNECTION`.
//! 9. Miss, NACK NO_CONTEXT with `DCID = 0` (to be matched by peer address and SCID, MR-CONN-34): handed to the
//!    firmware on `m_axis_exc_*`, marked [`EXCEPTION`].
//! 10. Miss otherwise: drop `UNKNOWN_CONNECTION`.
//!
//! A packet marked [`EXCEPTION`] is not a drop (not counted): the firmware has it; its payload is discarded
//! with the packet by the consumer of the main stream. This is a known limitation: the DATA carried by an
//! opening SYN packet is not placed by the hardware; the sender retransmits it.
//!
//! **Ports.** `s_axis_meta_*` (PktMeta from the parser) → `m_axis_meta_*` (PktMeta), `m_axis_exc_*`
//! (PktMeta, the packet as received), `m_axis_nctx_*` (PktMeta, a NACK request); `s_axis_ctxw_*` (CtxWrite);
//! `cfg_dscp_ctrl`, `cfg_no_ctx_retry_us`, `now` (the NACK's TS = now mod 2^32). Latency 3 cycles (RAM read,
//! comparisons with the entries, decision into the output registers), one packet per cycle; a packet leaves when every output it goes to is
//! free. Table writes take effect for packets read from the next cycle on.
//!
//! Construct with [`ConnLookup::new`]`(conn_bits)`.

// `LogicStruct` generates public accessor methods without docs; the records and their fields are documented.
#![allow(missing_docs)]

use crate::common::ram::SdpRam;
use crate::records::{CtxWrite, PktMeta};
use crate::rx::drop;
use metaroce_proto::wire::{MbhFlags, NackCode, PacketType};
use rust_hdl::prelude::*;

/// Marker `drop` code of a packet handed to the firmware on the exception stream (not a drop; not counted).
pub const EXCEPTION: u8 = 0xFF;

/// Connection identity (one per connection-table entry).
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct ConnIdEntry {
    /// The connection exists (`state != CLOSED`).
    pub live: Bit,
    /// The receive direction is initialised (the peer's ISN is known).
    pub rcv_init: Bit,
    /// Own CID (the DCID of packets for this connection).
    pub cid: Bits<24>,
    /// The peer's CID.
    pub peer_cid: Bits<24>,
}

/// The peer address of a connection (PktMeta encoding: a big-endian number, IPv4 in the low 32 bits).
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct PeerEntry {
    /// IPv6 peer.
    pub ipv6: Bit,
    /// Peer IP address.
    pub ip: Bits<128>,
}

/// Extracts the fields this block uses from a context entry (offsets from `metaroce_regmap`): combinational,
/// generated Verilog.
#[derive(LogicBlock, Default)]
pub struct CtxFields {
    /// The entry (little-endian: byte k = bits 8k+7..8k).
    pub data: Signal<In, Bits<512>>,
    /// CONN `cid`.
    pub conn_cid: Signal<Out, Bits<24>>,
    /// CONN `peer_cid`.
    pub conn_peer_cid: Signal<Out, Bits<24>>,
    /// CONN `state` != CLOSED.
    pub conn_live: Signal<Out, Bit>,
    /// CONN flag RCV_INIT.
    pub conn_rcv_init: Signal<Out, Bit>,
    /// QP `cid`.
    pub qp_cid: Signal<Out, Bits<24>>,
    /// QP `ipv6`.
    pub qp_ipv6: Signal<Out, Bit>,
    /// QP `remote_ip` as a big-endian number (IPv4: the first 4 bytes, in the low 32 bits).
    pub qp_ip: Signal<Out, Bits<128>>,
}

/// The RCV_INIT bit of the CONN `flags` field.
const RCV_INIT_BIT: usize = 1;

fn lsb(f: metaroce_regmap::field::Field) -> usize {
    f.byte as usize * 8 + f.bit as usize
}

impl Logic for CtxFields {
    fn update(&mut self) {
        use metaroce_regmap::context::{conn::field as c, qp::field as q};
        let d = self.data.val();
        self.conn_cid.next = d.get_bits::<24>(lsb(c::CID));
        self.conn_peer_cid.next = d.get_bits::<24>(lsb(c::PEER_CID));
        self.conn_live.next = d.get_bits::<2>(lsb(c::STATE)).any();
        self.conn_rcv_init.next = d.get_bit(lsb(c::FLAGS) + RCV_INIT_BIT);
        self.qp_cid.next = d.get_bits::<24>(lsb(q::CID));
        let v6 = d.get_bit(lsb(q::IPV6));
        self.qp_ipv6.next = v6;
        let base = lsb(q::REMOTE_IP);
        let nbytes = if v6 { 16 } else { 4 };
        let mut ip = Bits::<128>::default();
        for k in 0..nbytes {
            // byte k of the address (network order) is bits 8*(nbytes-1-k).. of the number
            for b in 0..8 {
                if d.get_bit(base + 8 * k + b) {
                    ip = ip.replace_bit(8 * (nbytes - 1 - k) + b, true);
                }
            }
        }
        self.qp_ip.next = ip;
    }

    fn connect(&mut self) {
        self.conn_cid.connect();
        self.conn_peer_cid.connect();
        self.conn_live.connect();
        self.conn_rcv_init.connect();
        self.qp_cid.connect();
        self.qp_ipv6.connect();
        self.qp_ip.connect();
    }

    fn hdl(&self) -> Verilog {
        use metaroce_regmap::context::{conn::field as c, qp::field as q};
        let sl = |lo: usize, w: usize| format!("data[{}:{}]", lo + w - 1, lo);
        let base = lsb(q::REMOTE_IP);
        let be = |n: usize| -> String {
            (0..n)
                .map(|k| sl(base + 8 * k, 8))
                .collect::<Vec<_>>()
                .join(", ")
        };
        Verilog::Custom(format!(
            "always @(*) begin\n\
             \x20  conn_cid = {};\n   conn_peer_cid = {};\n   conn_live = |{};\n   conn_rcv_init = data[{}];\n\
             \x20  qp_cid = {};\n   qp_ipv6 = data[{}];\n\
             \x20  qp_ip = data[{}] ? {{{}}} : {{96'd0, {}}};\nend\n",
            sl(lsb(c::CID), 24),
            sl(lsb(c::PEER_CID), 24),
            sl(lsb(c::STATE), 2),
            lsb(c::FLAGS) + RCV_INIT_BIT,
            sl(lsb(q::CID), 24),
            lsb(q::IPV6),
            lsb(q::IPV6),
            be(16),
            be(4),
        ))
    }
}

/// The connection lookup (see the module docs).
#[derive(LogicBlock)]
pub struct ConnLookup {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// Current time, ns.
    pub now: Signal<In, Bits<64>>,
    /// DSCP of control packets (NACK NO_CONTEXT).
    pub cfg_dscp_ctrl: Signal<In, Bits<6>>,
    /// `aux` of NACK NO_CONTEXT: retry hint in µs (MR-CONN-32; the model's `no_context_retry_us`).
    pub cfg_no_ctx_retry_us: Signal<In, Bits<32>>,
    /// Context writes.
    pub s_axis_ctxw_tdata: Signal<In, CtxWrite>,
    /// Context write valid.
    pub s_axis_ctxw_tvalid: Signal<In, Bit>,
    /// Packets from the parser.
    pub s_axis_meta_tdata: Signal<In, PktMeta>,
    /// Valid.
    pub s_axis_meta_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_meta_tready: Signal<Out, Bit>,
    /// Every packet, `conn` and `drop` set.
    pub m_axis_meta_tdata: Signal<Out, PktMeta>,
    /// Valid.
    pub m_axis_meta_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_meta_tready: Signal<In, Bit>,
    /// Packets for the firmware (opens, restarts, NACK NO_CONTEXT with DCID 0).
    pub m_axis_exc_tdata: Signal<Out, PktMeta>,
    /// Valid.
    pub m_axis_exc_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_exc_tready: Signal<In, Bit>,
    /// NACK NO_CONTEXT requests (complete PktMeta of the NACK to send).
    pub m_axis_nctx_tdata: Signal<Out, PktMeta>,
    /// Valid.
    pub m_axis_nctx_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_nctx_tready: Signal<In, Bit>,
    ids: SdpRam<ConnIdEntry, 16>,
    peers: SdpRam<PeerEntry, 16>,
    fields: CtxFields,
    s1_v: DFF<Bit>,
    s1_meta: DFF<PktMeta>,
    s2_v: DFF<Bit>,
    s2_meta: DFF<PktMeta>,
    hit2: DFF<Bit>,
    pbad2: DFF<Bit>,
    init2: DFF<Bit>,
    oxbad2: DFF<Bit>,
    pcid2: DFF<Bits<24>>,
    cid2: DFF<Bits<24>>,
    mo_v: DFF<Bit>,
    mo_meta: DFF<PktMeta>,
    ex_v: DFF<Bit>,
    ex_meta: DFF<PktMeta>,
    nc_v: DFF<Bit>,
    nc_meta: DFF<PktMeta>,
    adv: Signal<Local, Bit>,
    en2: Signal<Local, Bit>,
    m1: Signal<Local, PktMeta>,
    m: Signal<Local, PktMeta>,
    ent: Signal<Local, ConnIdEntry>,
    peer: Signal<Local, PeerEntry>,
    idx: Signal<Local, Bits<16>>,
    key_in: Signal<Local, Bits<16>>,
    key1: Signal<Local, Bits<16>>,
    hit: Signal<Local, Bit>,
    syn: Signal<Local, Bit>,
    is_data: Signal<Local, Bit>,
    to_exc: Signal<Local, Bit>,
    to_nctx: Signal<Local, Bit>,
    om: Signal<Local, PktMeta>,
    nm: Signal<Local, PktMeta>,
    c_mask: Constant<Bits<16>>,
    c_data: Constant<Bits<4>>,
    c_nack: Constant<Bits<4>>,
    c_ctrl: Constant<Bits<4>>,
    c_syn: Constant<Bits<8>>,
    c_no_context: Constant<Bits<8>>,
    c_tbl_conn: Constant<Bits<4>>,
    c_tbl_qp: Constant<Bits<4>>,
    c_wrong_peer: Constant<Bits<8>>,
    c_unknown: Constant<Bits<8>>,
    c_exception: Constant<Bits<8>>,
    c_ect0: Constant<Bits<2>>,
    c_z8: Constant<Bits<8>>,
    c_z16: Constant<Bits<16>>,
    c_z24: Constant<Bits<24>>,
    c_z32: Constant<Bits<32>>,
    c_z64: Constant<Bits<64>>,
    c_z256: Constant<Bits<256>>,
}

fn c8(v: u8) -> Constant<Bits<8>> {
    Constant::new((v as u64).into())
}

fn c4(v: u8) -> Constant<Bits<4>> {
    Constant::new((v as u64).into())
}

impl ConnLookup {
    /// A lookup over `2^conn_bits` connections (`conn_bits` ≤ 16).
    pub fn new(conn_bits: u32) -> Self {
        assert!((1..=16).contains(&conn_bits));
        let depth = 1usize << conn_bits;
        ConnLookup {
            clk: Default::default(),
            rst: Default::default(),
            now: Default::default(),
            cfg_dscp_ctrl: Default::default(),
            cfg_no_ctx_retry_us: Default::default(),
            s_axis_ctxw_tdata: Default::default(),
            s_axis_ctxw_tvalid: Default::default(),
            s_axis_meta_tdata: Default::default(),
            s_axis_meta_tvalid: Default::default(),
            s_axis_meta_tready: Default::default(),
            m_axis_meta_tdata: Default::default(),
            m_axis_meta_tvalid: Default::default(),
            m_axis_meta_tready: Default::default(),
            m_axis_exc_tdata: Default::default(),
            m_axis_exc_tvalid: Default::default(),
            m_axis_exc_tready: Default::default(),
            m_axis_nctx_tdata: Default::default(),
            m_axis_nctx_tvalid: Default::default(),
            m_axis_nctx_tready: Default::default(),
            ids: SdpRam::new(depth),
            peers: SdpRam::new(depth),
            fields: Default::default(),
            s1_v: Default::default(),
            s1_meta: Default::default(),
            s2_v: Default::default(),
            s2_meta: Default::default(),
            hit2: Default::default(),
            pbad2: Default::default(),
            init2: Default::default(),
            oxbad2: Default::default(),
            pcid2: Default::default(),
            cid2: Default::default(),
            mo_v: Default::default(),
            mo_meta: Default::default(),
            ex_v: Default::default(),
            ex_meta: Default::default(),
            nc_v: Default::default(),
            nc_meta: Default::default(),
            adv: Default::default(),
            en2: Default::default(),
            m1: Default::default(),
            m: Default::default(),
            ent: Default::default(),
            peer: Default::default(),
            idx: Default::default(),
            key_in: Default::default(),
            key1: Default::default(),
            hit: Default::default(),
            syn: Default::default(),
            is_data: Default::default(),
            to_exc: Default::default(),
            to_nctx: Default::default(),
            om: Default::default(),
            nm: Default::default(),
            c_mask: Constant::new(((depth - 1) as u64).into()),
            c_data: c4(PacketType::Data as u8),
            c_nack: c4(PacketType::Nack as u8),
            c_ctrl: c4(PacketType::Ctrl as u8),
            c_syn: c8(MbhFlags::SYN.bits()),
            c_no_context: c8(NackCode::NoContext as u8),
            c_tbl_conn: c4(crate::ctx::table::CONN),
            c_tbl_qp: c4(crate::ctx::table::QP),
            c_wrong_peer: c8(drop::WRONG_PEER),
            c_unknown: c8(drop::UNKNOWN_CONNECTION),
            c_exception: c8(EXCEPTION),
            c_ect0: Constant::new(2u64.into()),
            c_z8: Constant::new(0u64.into()),
            c_z16: Constant::new(0u64.into()),
            c_z24: Constant::new(0u64.into()),
            c_z32: Constant::new(0u64.into()),
            c_z64: Constant::new(0u64.into()),
            c_z256: Constant::new(0u64.into()),
        }
    }
}

impl Logic for ConnLookup {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, s1_v, s1_meta, s2_v, s2_meta, hit2, pbad2, init2, oxbad2, pcid2, cid2, mo_v,
            mo_meta, ex_v, ex_meta, nc_v, nc_meta
        );
        self.ids.clk.next = self.clk.val();
        self.peers.clk.next = self.clk.val();

        // Table writes.
        self.fields.data.next = self.s_axis_ctxw_tdata.val().data;
        self.ids.wr_en.next = self.s_axis_ctxw_tvalid.val()
            & (self.s_axis_ctxw_tdata.val().table == self.c_tbl_conn.val());
        self.ids.wr_addr.next = self.s_axis_ctxw_tdata.val().index & self.c_mask.val();
        self.ent.next.live = self.fields.conn_live.val();
        self.ent.next.rcv_init = self.fields.conn_rcv_init.val();
        self.ent.next.cid = self.fields.conn_cid.val();
        self.ent.next.peer_cid = self.fields.conn_peer_cid.val();
        self.ids.wr_data.next = self.ent.val();
        self.peers.wr_en.next = self.s_axis_ctxw_tvalid.val()
            & (self.s_axis_ctxw_tdata.val().table == self.c_tbl_qp.val())
            & self.fields.qp_cid.val().any();
        self.peers.wr_addr.next = self.fields.qp_cid.val().get_bits::<16>(0) & self.c_mask.val();
        self.peer.next.ipv6 = self.fields.qp_ipv6.val();
        self.peer.next.ip = self.fields.qp_ip.val();
        self.peers.wr_data.next = self.peer.val();

        // Stage 2 leaves when every output register is free or being drained; stage 1 when stage 2 is free or
        // leaving.
        self.adv.next = (!self.mo_v.q.val() | self.m_axis_meta_tready.val())
            & (!self.ex_v.q.val() | self.m_axis_exc_tready.val())
            & (!self.nc_v.q.val() | self.m_axis_nctx_tready.val());
        self.en2.next = !self.s2_v.q.val() | self.adv.val();
        self.s_axis_meta_tready.next = !self.s1_v.q.val() | self.en2.val();

        // Stage 0: read the tables (re-read stage 1's entry while it waits). The key is the DCID, or for an
        // opening packet with DCID 0 the QP its Open extension targets (the connection of QP n is entry n).
        if !self.s_axis_meta_tdata.val().dcid.any() & self.s_axis_meta_tdata.val().ox {
            self.key_in.next =
                self.s_axis_meta_tdata.val().target_qpn.get_bits::<16>(0) & self.c_mask.val();
        } else {
            self.key_in.next =
                self.s_axis_meta_tdata.val().dcid.get_bits::<16>(0) & self.c_mask.val();
        }
        if !self.s1_meta.q.val().dcid.any() & self.s1_meta.q.val().ox {
            self.key1.next = self.s1_meta.q.val().target_qpn.get_bits::<16>(0) & self.c_mask.val();
        } else {
            self.key1.next = self.s1_meta.q.val().dcid.get_bits::<16>(0) & self.c_mask.val();
        }
        if self.s_axis_meta_tready.val() {
            self.ids.rd_addr.next = self.key_in.val();
            self.s1_v.d.next = self.s_axis_meta_tvalid.val();
            self.s1_meta.d.next = self.s_axis_meta_tdata.val();
        } else {
            self.ids.rd_addr.next = self.key1.val();
        }
        self.peers.rd_addr.next = self.ids.rd_addr.val();

        // Stage 1: compare with the entries.
        self.m1.next = self.s1_meta.q.val();
        if self.en2.val() {
            self.s2_v.d.next = self.s1_v.q.val();
            self.s2_meta.d.next = self.m1.val();
            self.hit2.d.next = (self.m1.val().dcid.any()
                & self.ids.rd_data.val().live
                & (self.ids.rd_data.val().cid == self.m1.val().dcid))
                | (!self.m1.val().dcid.any()
                    & self.m1.val().ox
                    & !self.m1.val().trimmed
                    & self.ids.rd_data.val().live
                    & self.ids.rd_data.val().rcv_init
                    & (self.ids.rd_data.val().peer_cid == self.m1.val().ox_scid));
            self.pbad2.d.next = (self.peers.rd_data.val().ipv6 != self.m1.val().ipv6)
                | (self.peers.rd_data.val().ip != self.m1.val().peer_ip);
            self.init2.d.next = self.ids.rd_data.val().rcv_init;
            self.oxbad2.d.next = self.m1.val().ox_scid != self.ids.rd_data.val().peer_cid;
            self.pcid2.d.next = self.ids.rd_data.val().peer_cid;
            self.cid2.d.next = self.ids.rd_data.val().cid;
        }

        // Stage 2: decide.
        self.m.next = self.s2_meta.q.val();
        if !self.m.val().dcid.any() & self.m.val().ox {
            self.idx.next = self.m.val().target_qpn.get_bits::<16>(0) & self.c_mask.val();
        } else {
            self.idx.next = self.m.val().dcid.get_bits::<16>(0) & self.c_mask.val();
        }
        self.hit.next = self.hit2.q.val();
        self.syn.next = (self.m.val().mbh_flags & self.c_syn.val()).any();
        self.is_data.next = self.m.val().ptype == self.c_data.val();
        self.om.next = self.m.val();
        self.to_exc.next = false;
        self.to_nctx.next = false;
        if self.m.val().drop.any() {
            // already dropped upstream
        } else if self.hit.val() {
            if self.pbad2.q.val() {
                self.om.next.drop = self.c_wrong_peer.val();
            } else if self.syn.val()
                & !self.m.val().trimmed
                & (!self.init2.q.val() | self.oxbad2.q.val())
            {
                self.to_exc.next = true;
                self.om.next.drop = self.c_exception.val();
            } else if self.is_data.val() & !self.m.val().trimmed & !self.init2.q.val() {
                self.om.next.drop = self.c_unknown.val();
            } else {
                self.om.next.conn = self.idx.val();
                if self.is_data.val() {
                    self.om.next.scid = self.pcid2.q.val();
                }
                // Found through its Open extension: the connection's own CID, as if the packet had named it
                // (the acknowledgement's SCID).
                self.om.next.dcid = self.cid2.q.val();
            }
        } else if self.syn.val()
            & !self.m.val().trimmed
            & (self.is_data.val() | (self.m.val().ptype == self.c_ctrl.val()))
        {
            self.to_exc.next = true;
            self.om.next.drop = self.c_exception.val();
        } else if self.is_data.val()
            & self.m.val().trimmed
            & (!self.m.val().dcid.any() | self.syn.val())
        {
            self.om.next.drop = self.c_unknown.val();
        } else if self.is_data.val() {
            self.to_nctx.next = true;
            self.om.next.drop = self.c_unknown.val();
        } else if (self.m.val().ptype == self.c_nack.val())
            & (self.m.val().code == self.c_no_context.val())
            & !self.m.val().dcid.any()
        {
            self.to_exc.next = true;
            self.om.next.drop = self.c_exception.val();
        } else {
            self.om.next.drop = self.c_unknown.val();
        }

        // The NACK NO_CONTEXT: the peer fields of the packet, every other field set here.
        self.nm.next = self.m.val();
        self.nm.next.dscp = self.cfg_dscp_ctrl.val();
        self.nm.next.ecn = self.c_ect0.val();
        self.nm.next.ptype = self.c_nack.val();
        self.nm.next.mbh_flags = self.c_z8.val();
        self.nm.next.payload_len = self.c_z16.val();
        self.nm.next.dcid = self.c_z24.val();
        self.nm.next.hlen = self.c_z8.val();
        self.nm.next.ts = self.now.val().get_bits::<32>(0);
        self.nm.next.opcode = self.c_z8.val();
        self.nm.next.dflags = self.c_z8.val();
        self.nm.next.msn = self.c_z32.val();
        self.nm.next.addr = self.c_z64.val();
        self.nm.next.key = self.c_z32.val();
        self.nm.next.msg_len = self.c_z32.val();
        self.nm.next.imm = self.c_z32.val();
        self.nm.next.scid = self.m.val().dcid;
        self.nm.next.aflags = self.c_z8.val();
        self.nm.next.echo_ts = self.m.val().ts;
        self.nm.next.sack_base = self.c_z32.val();
        self.nm.next.echo_ev = self.c_z16.val();
        self.nm.next.ce_count = self.c_z16.val();
        self.nm.next.sack = self.c_z256.val();
        self.nm.next.code = self.c_no_context.val();
        self.nm.next.aux = self.cfg_no_ctx_retry_us.val();
        self.nm.next.ox = false;
        self.nm.next.ox_scid = self.c_z24.val();
        self.nm.next.wlog = self.c_z8.val();
        self.nm.next.isn = self.c_z32.val();
        self.nm.next.target_qpn = self.c_z24.val();
        self.nm.next.mtu_log = self.c_z8.val();
        self.nm.next.trimmed = false;
        self.nm.next.drop = self.c_z8.val();
        self.nm.next.conn = self.c_z16.val();
        self.nm.next.local_addr = self.c_z64.val();

        // Output registers.
        if self.m_axis_meta_tready.val() {
            self.mo_v.d.next = false;
        }
        if self.m_axis_exc_tready.val() {
            self.ex_v.d.next = false;
        }
        if self.m_axis_nctx_tready.val() {
            self.nc_v.d.next = false;
        }
        if self.s2_v.q.val() & self.adv.val() {
            self.mo_v.d.next = true;
            self.mo_meta.d.next = self.om.val();
            if self.to_exc.val() {
                self.ex_v.d.next = true;
                self.ex_meta.d.next = self.m.val();
            }
            if self.to_nctx.val() {
                self.nc_v.d.next = true;
                self.nc_meta.d.next = self.nm.val();
            }
        }
        self.m_axis_meta_tvalid.next = self.mo_v.q.val();
        self.m_axis_meta_tdata.next = self.mo_meta.q.val();
        self.m_axis_exc_tvalid.next = self.ex_v.q.val();
        self.m_axis_exc_tdata.next = self.ex_meta.q.val();
        self.m_axis_nctx_tvalid.next = self.nc_v.q.val();
        self.m_axis_nctx_tdata.next = self.nc_meta.q.val();
        if self.rst.val() {
            self.s1_v.d.next = false;
            self.s2_v.d.next = false;
            self.mo_v.d.next = false;
            self.ex_v.d.next = false;
            self.nc_v.d.next = false;
        }
    }
}

/// This block at the core's configuration.
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![crate::blocks::BlockSpec {
        name: "metaroce_rx_conn_lookup",
        area: "rx",
        description:
            "DCID to connection index, peer check (MR-CONN-3), miss path and NACK NO_CONTEXT (7.8)",
        verilog: |cfg| {
            crate::gen::verilog("metaroce_rx_conn_lookup", ConnLookup::new(cfg.conn_bits))
        },
    }]
}
