//! Interoperability: one co-simulated RTL core and one reference-model endpoint (`metaroce_proto`'s
//! [`Endpoint`]) joined by the harness's link model, each direction a [`Link`], on one clock: the core's
//! cycles at [`PERIOD_PS`](super::demo::PERIOD_PS), the model's time in ns derived from them.
//!
//! **Connection set-up.** The model opens its connections 0-RTT (MR-CONN-4): its first DATA packets carry SYN
//! and the Open extension with `DCID = 0` (MR-CONN-5). The core hands such a packet to the control processor
//! (`m_axis_exc`, spec 7.3) without placing it. The bench's [`Firmware`] does what the control processor does
//! with it: it creates the connection context (MR-CONN-12: own CID, `rcv_nxt = OX.ISN`, peer CID `OX.SCID`,
//! the peer's window) through the context-programming window, then announces its own CID, window and ISN in a
//! CTRL OPEN (MR-CONN-14), which it sends on the link itself (the core has no transmit path for the firmware;
//! the announcement is what lets the model use the core's CID as DCID, so that its retransmissions of the
//! opening packets reach the connection instead of the exception path again). A repeated `DCID = 0` SYN of a
//! known peer CID (MR-CONN-11) is answered with the announcement again.
//!
//! When the core's host is the requester, the firmware opens without data (MR-CONN-9): it sends a CTRL OPEN
//! with `DCID = 0`, the model creates its context and announces itself with its own CTRL OPEN (MR-CONN-14),
//! which reaches the firmware as an exception, and the firmware opens the core's connection with the model's
//! CID and ISN. With `zero_rtt` the core opens with peer CID 0 instead and sends its first DATA at once; it
//! takes the model's CID from the first ACK that advances its snd_una (MR-CONN-7), and when the model's CTRL
//! OPEN reaches the firmware, the firmware opens the core's receive direction with the model's ISN through a
//! receive-only open (MR-CONN-16).
//!
//! **The firmware on the core.** [`Interop::with_firmware`] (and [`RunConfig::firmware`]) instead boots the
//! `metaroce-fw` image on the core's control processor and creates the core's objects through its mailbox, as
//! the driver does: the exception packets then go to the processor (`firmware/src/responder.rs`), which binds
//! the connection it opened 0-RTT at MODIFY_QP to the model's and sends its CTRL OPEN through the core's own
//! transmit path; the stand-in is not used.
//!
//! **Configuration.** [`model_config`] sets the model's parameters to the core's: MTU 4096 (the core's
//! `mtu_log` 12), receive window 2^8 packets (the core supports wlog 8 only), 8 outstanding messages per
//! direction (the core's receive message table, `2^MSG_BITS`), 16 paths, ACK ratio 1, and the endpoint
//! register defaults for DSCP, UDP port, RTO and retries. Idle close (MR-CONN-19) is disabled: the core leaves
//! CLOSE to the firmware, which this bench does not implement.

use super::bus::Beat;
use super::core::{core_model, cosim_config, BenchError, BenchTiming, CoreBench};
use super::demo::{read_counters, PERIOD_PS};
use super::firmware;
use super::host::{self, Cq, Endpoint as NicSide, Qp};
use metaroce_hdl::records::PktMeta;
use metaroce_proto::harness::link::{Link, LinkConfig, LinkStats};
use metaroce_proto::harness::rng::Rng;
use metaroce_proto::transport::{
    Access, Completion, Endpoint, EndpointConfig, Event, Memory, MrKeys, Qpn, RecvWr, RemoteQp,
    SendOp, SendWr, Sge, SparseMemory, WcOpcode, WcStatus,
};
use metaroce_proto::wire::{
    emit_frame, CtrlCode, CtrlRepr, IpRepr, MbhFlags, MbhRepr, MetaRoceRepr, OpenRepr, PacketType,
    TypeRepr, L2L3,
};
use metaroce_regmap::context::conn::ConnFlags;
use metaroce_regmap::counters::CounterId;
use metaroce_regmap::descriptor::cqe::{CqeOpcode, CqeRepr, CqeStatus};
use metaroce_regmap::descriptor::rqe::RqeRepr;
use metaroce_regmap::descriptor::sqe::{SqOp, SqeRepr};
use metaroce_regmap::fwbus::BootStage;
use std::collections::VecDeque;
use std::net::{IpAddr, Ipv4Addr};

/// Payload bytes per packet on both sides (the core's default `mtu_log` 12).
pub const MTU: u32 = 4096;
/// Receive window of both sides, log2 packets (the core supports 8 only).
pub const WLOG: u8 = 8;
/// Messages in flight per connection direction (the core's receive message table).
pub const MAX_MSGS: u32 = 1 << metaroce_hdl::top::core::MSG_BITS;
/// The firmware repeats its CTRL OPEN at most this often, ns.
pub const ANNOUNCE_GAP_NS: u64 = 10_000;
/// The requester's CTRL OPEN of [`Interop::open_from_nic`] is repeated after this long without an answer, ns.
pub const OPEN_RETRY_NS: u64 = 50_000;

/// The model's side of the connection: addresses and its one memory region.
#[derive(Debug, Clone, Copy)]
pub struct ModelSide {
    /// MAC address.
    pub mac: [u8; 6],
    /// IPv4 address.
    pub ip: Ipv4Addr,
    /// Start of its memory region.
    pub buf: u64,
    /// Length of its memory region.
    pub buf_len: u64,
}

/// The model's configuration matching the core (see the module documentation); `seed` seeds its CIDs, ISNs
/// and EVs.
pub fn model_config(side: &ModelSide, seed: u64) -> EndpointConfig {
    EndpointConfig {
        mtu: MTU,
        window_log2: WLOG,
        paths: 16,
        max_outstanding_msgs: MAX_MSGS,
        ack_ratio: 1,
        // No idle close (MR-CONN-19): the core leaves CLOSE to the firmware.
        idle_close_ns: 3_600_000_000_000,
        seed,
        ..EndpointConfig::metaroce(side.mac, IpAddr::V4(side.ip))
    }
}

/// A fresh model endpoint for `model` (one memory region over its buffer with every right, one QP connected
/// to the core's QP `nic_qpn` at `nic`'s addresses): the endpoint, its region's keys and its QP.
fn model_endpoint(
    model: &ModelSide,
    seed: u64,
    nic: &NicSide,
    nic_qpn: u32,
) -> Result<(Endpoint<SparseMemory>, MrKeys, Qpn), BenchError> {
    let setup = |what: &str, e: &dyn std::fmt::Debug| BenchError::Setup(format!("{what}: {e:?}"));
    let mut ep = Endpoint::try_new(model_config(model, seed), SparseMemory::new())
        .map_err(|e| setup("model config", &e))?;
    let keys = ep
        .register_mr(
            model.buf,
            model.buf_len,
            Access::LOCAL_WRITE | Access::REMOTE_WRITE | Access::REMOTE_READ,
        )
        .map_err(|e| setup("model mr", &e))?;
    let ring = 1u32 << host::RING_LOG;
    let qpn = ep
        .create_qp(ring, ring)
        .map_err(|e| setup("model qp", &e))?;
    ep.connect_qp(
        qpn,
        RemoteQp {
            mac: nic.mac,
            ip: IpAddr::V4(nic.ip),
            qpn: nic_qpn,
        },
    )
    .map_err(|e| setup("model connect", &e))?;
    Ok((ep, keys, qpn))
}

/// A CTRL OPEN frame (with the model's default UDP port).
fn is_ctrl_open(frame: &[u8]) -> bool {
    let cfg = EndpointConfig::default();
    matches!(
        metaroce_proto::wire::parse_frame(frame, cfg.udp_port, cfg.dscp_trim, false),
        Ok(p) if matches!(p.m.ty, TypeRepr::Ctrl(c) if c.code == CtrlCode::Open)
    )
}

/// A CTRL OPEN's TS and UDP source port: what the ACK answering it echoes (MR-REL-17).
fn ctrl_open_echo(frame: &[u8]) -> Option<(u32, u16)> {
    let cfg = EndpointConfig::default();
    match metaroce_proto::wire::parse_frame(frame, cfg.udp_port, cfg.dscp_trim, false) {
        Ok(p) if matches!(p.m.ty, TypeRepr::Ctrl(c) if c.code == CtrlCode::Open) => {
            Some((p.m.mbh.ts, p.l.udp_src))
        }
        _ => None,
    }
}

/// An ACK with `sack_base` = CACK (the form MR-REL-17 gives the answer to a CTRL OPEN or PROBE): its
/// `echo_ts` and `echo_ev`.
fn cack_ack_echo(frame: &[u8]) -> Option<(u32, u16)> {
    let cfg = EndpointConfig::default();
    match metaroce_proto::wire::parse_frame(frame, cfg.udp_port, cfg.dscp_trim, false) {
        Ok(p) => match p.m.ty {
            TypeRepr::Ack(a) if a.sack_base == p.m.mbh.psn => Some((a.echo_ts, a.echo_ev)),
            _ => None,
        },
        _ => None,
    }
}

/// The fields of a packet the core handed to the control processor (one `PktMeta` record of `m_axis_exc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExcPacket {
    /// MBH type.
    pub ptype: u8,
    /// MBH flags.
    pub flags: u8,
    /// MBH destination CID.
    pub dcid: u32,
    /// MBH PSN.
    pub psn: u32,
    /// MBH timestamp.
    pub ts: u32,
    /// NACK / CTRL code.
    pub code: u8,
    /// ACK / NACK / CTRL source CID.
    pub scid: u32,
    /// Entropy value (UDP source port & 0x3FFF).
    pub ev: u16,
    /// Source IPv4 address.
    pub peer_ip: Ipv4Addr,
    /// Classified as trimmed.
    pub trimmed: bool,
    /// The Open extension, if the packet carried one.
    pub open: Option<OpenRepr>,
}

impl ExcPacket {
    /// Decodes the record of one exception beat (field offsets from `metaroce_hdl::records::PktMeta`).
    pub fn decode(b: &Beat) -> ExcPacket {
        let m = PktMeta::default();
        let f = |off: usize, w: usize| b.field(off, w);
        let ox = f(m.get_my_offset_ox(), 1) == 1;
        ExcPacket {
            ptype: f(m.get_my_offset_ptype(), 4) as u8,
            flags: f(m.get_my_offset_mbh_flags(), 8) as u8,
            dcid: f(m.get_my_offset_dcid(), 24) as u32,
            psn: f(m.get_my_offset_psn(), 32) as u32,
            ts: f(m.get_my_offset_ts(), 32) as u32,
            code: f(m.get_my_offset_code(), 8) as u8,
            scid: f(m.get_my_offset_scid(), 24) as u32,
            ev: f(m.get_my_offset_ev(), 14) as u16,
            peer_ip: Ipv4Addr::from(f(m.get_my_offset_peer_ip(), 32) as u32),
            trimmed: f(m.get_my_offset_trimmed(), 1) == 1,
            open: ox.then(|| OpenRepr {
                scid: f(m.get_my_offset_ox_scid(), 24) as u32,
                wlog: f(m.get_my_offset_wlog(), 8) as u8,
                isn: f(m.get_my_offset_isn(), 32) as u32,
                target_qpn: f(m.get_my_offset_target_qpn(), 24) as u32,
                mtu_log: f(m.get_my_offset_mtu_log(), 8) as u8,
            }),
        }
    }
}

/// What the bench's control processor knows and did.
#[derive(Debug, Clone, Default)]
pub struct Firmware {
    /// Own CID (the connection index of the core's side).
    pub cid: u32,
    /// ISN of the core's send direction.
    pub isn: u32,
    /// The model's QP number (the `target_qpn` of the CTRL OPEN).
    pub peer_qpn: u32,
    /// The peer's CID and ISN, once the core's connection is open.
    pub peer: Option<(u32, u32)>,
    /// Packets handed to the firmware.
    pub exceptions: u64,
    /// CTRL OPENs sent.
    pub announcements: u64,
    /// Exceptions the firmware could not handle (a peer restart, a non-opening packet), described.
    pub unexpected: Vec<String>,
    last_announce: Option<u64>,
}

/// The core, its host side and firmware, the model endpoint and the link between them.
pub struct Interop {
    /// The core.
    pub nic: CoreBench,
    /// The core's side as programmed.
    pub nic_side: NicSide,
    /// The core host's QP rings.
    pub qp: Qp,
    /// The core host's CQ.
    pub cq: Cq,
    /// The core's control processor.
    pub fw: Firmware,
    /// The model endpoint.
    pub model: Endpoint<SparseMemory>,
    /// The model's side.
    pub model_side: ModelSide,
    /// The model's QP.
    pub model_qpn: Qpn,
    /// The keys of the model's memory region.
    pub model_keys: MrKeys,
    /// Link from the model to the core.
    pub to_nic: Link,
    /// Link from the core to the model.
    pub to_model: Link,
    /// Clock period of the core, picoseconds.
    pub period_ps: u64,
    /// The model's events not yet taken, with their time (ns).
    pub events: VecDeque<(u64, Event)>,
    /// The keys of the core host's memory region (local, remote).
    pub nic_keys: (u32, u32),
    /// The control processor runs the firmware image ([`Interop::with_firmware`]); the bench's stand-in
    /// [`Interop::fw`] is then unused.
    pub fw_on_core: bool,
    /// CTRL OPENs the core sent on the link (counted only with [`Interop::fw_on_core`]).
    pub core_ctrl_opens: u64,
    /// CTRL OPENs the model sent to the core.
    pub model_ctrl_opens: u64,
    /// The TS and UDP source port of each of them not answered yet.
    pending_opens: Vec<(u32, u16)>,
    /// The model's CTRL OPENs the core answered with an ACK (MR-REL-17), each counted once.
    pub answered_opens: u64,
    buf: Vec<u8>,
}

impl Interop {
    /// Joins the core of `bench` (programmed here as `nic`: endpoint, memory region, CQ, QP connected to the
    /// model's QP, no connection yet) and a fresh model endpoint for `model` (one memory region over its
    /// buffer with every right, one QP connected to the core's QP [`host::QPN`]) with one link configuration
    /// per direction. `seed` seeds the model and the links.
    pub fn new(
        mut bench: CoreBench,
        nic: &NicSide,
        model: &ModelSide,
        link: LinkConfig,
        period_ps: u64,
        seed: u64,
    ) -> Result<Interop, BenchError> {
        let (ep, keys, qpn) = model_endpoint(model, seed, nic, u32::from(host::QPN))?;
        let (qp, cq) = host::setup_qp(&mut bench, nic, model.mac, model.ip, qpn)?;
        Ok(Interop {
            nic_keys: (nic.key, host::rkey_of(nic.key)),
            fw_on_core: false,
            core_ctrl_opens: 0,
            model_ctrl_opens: 0,
            pending_opens: Vec::new(),
            answered_opens: 0,
            nic: bench,
            nic_side: *nic,
            qp,
            cq,
            fw: Firmware {
                cid: u32::from(nic.conn),
                isn: nic.isn,
                peer_qpn: qpn,
                ..Firmware::default()
            },
            model: ep,
            model_side: *model,
            model_qpn: qpn,
            model_keys: keys,
            to_nic: Link::new(link.clone(), seed ^ 0xA5A5),
            to_model: Link::new(link, seed ^ 0x5A5A),
            period_ps,
            events: VecDeque::new(),
            buf: Vec::with_capacity(16 * 1024),
        })
    }

    /// [`Interop::new`] with the firmware on the core's control processor instead of the bench's stand-in:
    /// the image is booted, the host creates the CQ, the QP and the memory region over `nic.buf` through the
    /// mailbox and moves the QP to READY towards the model's QP (the firmware opens its connection 0-RTT and
    /// handles the model's opening packets itself). `nic.conn`, `nic.isn` and `nic.key` are not used: the
    /// firmware chooses them.
    pub fn with_firmware(
        mut bench: CoreBench,
        nic: &NicSide,
        model: &ModelSide,
        link: LinkConfig,
        period_ps: u64,
        seed: u64,
    ) -> Result<Interop, BenchError> {
        let (st, _) = firmware::boot(&mut bench)?;
        if st.stage != BootStage::Ready {
            return Err(BenchError::Setup(format!("firmware boot: {st:?}")));
        }
        let made = firmware::create(&mut bench, nic.mac, nic.ip, (nic.buf, nic.buf_len))?;
        let (ep, keys, qpn) = model_endpoint(model, seed, nic, u32::from(made.qp.qpn))?;
        firmware::ready(
            &mut bench,
            made.qp.qpn,
            metaroce_regmap::command::Remote {
                qpn,
                mac: model.mac,
                ip: IpAddr::V4(model.ip),
            },
        )?;
        let mut nic_side = *nic;
        nic_side.conn = made.qp.qpn;
        nic_side.key = made.lkey;
        Ok(Interop {
            nic: bench,
            nic_side,
            qp: made.qp,
            cq: made.cq,
            fw: Firmware::default(),
            model: ep,
            model_side: *model,
            model_qpn: qpn,
            model_keys: keys,
            to_nic: Link::new(link.clone(), seed ^ 0xA5A5),
            to_model: Link::new(link, seed ^ 0x5A5A),
            period_ps,
            events: VecDeque::new(),
            nic_keys: (made.lkey, made.rkey),
            fw_on_core: true,
            core_ctrl_opens: 0,
            model_ctrl_opens: 0,
            pending_opens: Vec::new(),
            answered_opens: 0,
            buf: Vec::with_capacity(16 * 1024),
        })
    }

    /// Virtual time now, ns (the core's cycle count at the clock period).
    pub fn now_ns(&self) -> u64 {
        self.nic.m.cycle() * self.period_ps / 1000
    }

    /// One clock cycle of the core; then frames move between the core, the links and the model, the firmware
    /// takes the core's exceptions, and the model does everything due at the new time.
    pub fn step(&mut self) -> Result<(), BenchError> {
        self.nic.step()?;
        let now = self.now_ns();
        while let Some((f, _)) = self.nic.tx.pop_frame() {
            if self.fw_on_core && is_ctrl_open(&f) {
                self.core_ctrl_opens += 1;
            }
            if let Some(echo) = cack_ack_echo(&f) {
                if let Some(k) = self.pending_opens.iter().position(|&o| o == echo) {
                    self.pending_opens.swap_remove(k);
                    self.answered_opens += 1;
                }
            }
            self.to_model.send(now, f);
        }
        while let Some(f) = self.to_nic.pop_due(now) {
            self.nic.rx.push_frame(&f, 0);
        }
        if !self.nic.exc.got.is_empty() {
            self.firmware()?;
        }
        let now = self.now_ns();
        while let Some(f) = self.to_model.pop_due(now) {
            self.model.handle_frame(now, &f);
        }
        if self.model.poll_timeout().is_some_and(|t| t <= now) {
            self.model.handle_timeout(now);
        }
        while self.to_nic.can_send(now) && self.model.poll_transmit(now, &mut self.buf) {
            if let Some(echo) = ctrl_open_echo(&self.buf) {
                self.model_ctrl_opens += 1;
                self.pending_opens.push(echo);
            }
            self.to_nic.send(now, self.buf.clone());
        }
        while let Some(ev) = self.model.poll_event() {
            self.events.push_back((now, ev));
        }
        Ok(())
    }

    /// Runs `n` cycles.
    pub fn run(&mut self, n: u64) -> Result<(), BenchError> {
        for _ in 0..n {
            self.step()?;
        }
        Ok(())
    }

    /// The control processor: takes every packet the core handed over (see the module documentation).
    fn firmware(&mut self) -> Result<(), BenchError> {
        while let Some(beat) = self.nic.exc.got.pop_front() {
            let e = ExcPacket::decode(&beat);
            self.fw.exceptions += 1;
            let opening = matches!(
                PacketType::from_u8(e.ptype),
                Some(PacketType::Data | PacketType::Ctrl)
            ) && e.flags & MbhFlags::SYN.bits() != 0
                && !e.trimmed;
            // MR-CONN-12, MR-CONN-13: an opening packet for this side's QP from the address it is connected to.
            let ours = e.peer_ip == self.model_side.ip;
            let ox = match e.open {
                Some(ox) if opening && ours && ox.target_qpn == u32::from(host::QPN) => ox,
                _ => {
                    self.fw.unexpected.push(format!("{e:?}"));
                    continue;
                }
            };
            match self.fw.peer {
                None => {
                    self.open_nic_conn(&ox)?;
                    if e.dcid == 0 {
                        self.announce(ox.scid, e.ts);
                    }
                }
                Some((peer_cid, _)) if peer_cid == ox.scid => {
                    // MR-CONN-11: the peer repeats its SYN; it does not know this side's CID yet.
                    let due = self
                        .fw
                        .last_announce
                        .is_none_or(|t| self.now_ns() >= t + ANNOUNCE_GAP_NS);
                    if e.dcid == 0 && due {
                        self.announce(ox.scid, e.ts);
                    }
                }
                Some((0, _)) => {
                    // The core opened 0-RTT: the model's CTRL OPEN brings its CID and ISN (MR-CONN-14); the
                    // receive direction opens with them (MR-CONN-16), the send direction goes on.
                    let hot = host::open_hot(
                        self.fw.cid,
                        ox.scid,
                        ConnFlags::RCV_INIT,
                        (WLOG, ox.wlog.clamp(8, 16)),
                        self.fw.isn,
                        ox.isn,
                    );
                    host::open_conn_rx(&mut self.nic, self.nic_side.conn, &hot)?;
                    self.fw.peer = Some((ox.scid, ox.isn));
                }
                Some(_) => self
                    .fw
                    .unexpected
                    .push(format!("peer restart (MR-CONN-18) not handled: {e:?}")),
            }
        }
        Ok(())
    }

    /// Opens the core's connection with the peer's CID, ISN and window from its Open extension (MR-CONN-12,
    /// MR-CONN-16).
    fn open_nic_conn(&mut self, ox: &OpenRepr) -> Result<(), BenchError> {
        let isn = self.fw.isn;
        let hot = host::open_hot(
            self.fw.cid,
            ox.scid,
            ConnFlags::RCV_INIT,
            (WLOG, ox.wlog.clamp(8, 16)),
            isn,
            ox.isn,
        );
        host::open_conn(&mut self.nic, self.nic_side.conn, &hot)?;
        self.fw.peer = Some((ox.scid, ox.isn));
        Ok(())
    }

    /// Sends the firmware's CTRL OPEN (SYN + Open extension: own CID, window, ISN, the model's QP, MTU) to
    /// the model with `dcid` (0 while the model's CID is unknown), echoing `echo_ts`.
    fn announce(&mut self, dcid: u32, echo_ts: u32) {
        let now = self.now_ns();
        let (nic, model) = (self.nic_side, self.model_side);
        let cfg = self.model.config();
        let l = L2L3 {
            eth_src: nic.mac,
            eth_dst: model.mac,
            vlan: None,
            ip: IpRepr::V4 {
                src: nic.ip.octets(),
                dst: model.ip.octets(),
                dscp: cfg.dscp_ctrl,
                ecn: 0b10,
                ttl: cfg.ttl,
            },
            udp_src: 0xC000 | (self.fw.announcements as u16 & 0x3FFF),
            udp_dst: cfg.udp_port,
        };
        let m = MetaRoceRepr {
            mbh: MbhRepr {
                ptype: PacketType::Ctrl,
                flags: MbhFlags::SYN,
                payload_len: 0,
                dcid,
                hlen: 0,
                psn: self.fw.isn,
                ts: now as u32,
            },
            ty: TypeRepr::Ctrl(CtrlRepr {
                scid: self.fw.cid,
                code: CtrlCode::Open,
                echo_ts,
                aux: 0,
            }),
            open: Some(OpenRepr {
                scid: self.fw.cid,
                wlog: WLOG,
                isn: self.fw.isn,
                target_qpn: self.fw.peer_qpn,
                mtu_log: MTU.trailing_zeros() as u8,
            }),
        };
        let mut f = Vec::new();
        match emit_frame(&l, &m, &[], &mut f) {
            Ok(()) => {
                self.to_model.send(now, f);
                self.fw.announcements += 1;
                self.fw.last_announce = Some(now);
            }
            Err(e) => self
                .fw
                .unexpected
                .push(format!("CTRL OPEN not emitted: {e:?}")),
        }
    }

    /// Opens the connection from the core's side before its host posts anything (MR-CONN-9): the firmware's
    /// CTRL OPEN with `DCID = 0` (repeated every [`OPEN_RETRY_NS`]), the model's context and announcement
    /// (MR-CONN-12, MR-CONN-14), then the core's connection with the model's CID and ISN. Fails after
    /// `limit` cycles.
    pub fn open_from_nic(&mut self, limit: u64) -> Result<(), BenchError> {
        let start = self.nic.m.cycle();
        let mut sent_at: Option<u64> = None;
        while self.fw.peer.is_none() {
            let now = self.now_ns();
            if sent_at.is_none_or(|t| now >= t + OPEN_RETRY_NS) {
                self.announce(0, 0);
                sent_at = Some(now);
            }
            self.run(16)?;
            if self.nic.m.cycle() - start > limit {
                return Err(BenchError::Timeout(format!(
                    "no CTRL OPEN from the model within {limit} cycles ({} sent; firmware {:?})",
                    self.fw.announcements, self.fw
                )));
            }
        }
        Ok(())
    }

    /// Opens the core's connection 0-RTT, as the model opens its own (MR-CONN-4, MR-CONN-5): peer CID 0 (DCID 0
    /// until the peer's CID is known) and the peer's ISN unknown (`RCV_INIT` clear); the core is then to take the
    /// model's CID from its first ACK (MR-CONN-7).
    pub fn open_nic_zero_rtt(&mut self) -> Result<(), BenchError> {
        let isn = self.fw.isn;
        let hot = host::open_hot(self.fw.cid, 0, ConnFlags(0), (WLOG, 8), isn, 0);
        host::open_conn(&mut self.nic, self.nic_side.conn, &hot)?;
        self.fw.peer = Some((0, 0));
        Ok(())
    }

    /// Posts a send work request on the core's host.
    pub fn nic_post_send(&mut self, sqe: &SqeRepr) -> Result<u16, BenchError> {
        host::post_send(&mut self.nic, &mut self.qp, sqe)
    }

    /// Posts a receive buffer on the core's host.
    pub fn nic_post_recv(&mut self, rqe: &RqeRepr) -> Result<u16, BenchError> {
        host::post_recv(&mut self.nic, &mut self.qp, rqe)
    }

    /// The core host's next completion, if any.
    pub fn nic_poll_cq(&mut self) -> Result<Option<CqeRepr>, BenchError> {
        host::poll_cq(&mut self.nic, &mut self.cq)
    }

    /// Posts a send work request on the model's QP.
    pub fn model_post_send(&mut self, wr: SendWr) -> Result<(), BenchError> {
        let now = self.now_ns();
        self.model
            .post_send(now, self.model_qpn, wr)
            .map_err(|e| BenchError::Setup(format!("model post_send {wr:?}: {e:?}")))
    }

    /// Posts a receive buffer on the model's QP.
    pub fn model_post_recv(&mut self, wr: RecvWr) -> Result<(), BenchError> {
        self.model
            .post_recv(self.model_qpn, wr)
            .map_err(|e| BenchError::Setup(format!("model post_recv {wr:?}: {e:?}")))
    }

    /// The model's next completion; other events (connection opened, QP error) are left in
    /// [`Interop::events`] except that a QP error is returned as an error.
    pub fn model_poll(&mut self) -> Result<Option<Completion>, BenchError> {
        let mut i = 0;
        while i < self.events.len() {
            match self.events[i].1 {
                Event::Completion(c) => {
                    self.events.remove(i);
                    return Ok(Some(c));
                }
                Event::QpError { qpn, status } => {
                    return Err(BenchError::Setup(format!(
                        "model QP {qpn:#x} entered ERROR ({status:?})"
                    )))
                }
                _ => i += 1,
            }
        }
        Ok(None)
    }

    /// Reads `len` bytes of the model's memory.
    pub fn model_mem(&self, addr: u64, len: usize) -> Vec<u8> {
        let mut v = vec![0u8; len];
        self.model.memory().read(addr, &mut v);
        v
    }
}

/// Which side posts the messages of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Requester {
    /// The model requests, the core responds.
    Model,
    /// The core's host requests, the model responds.
    Nic,
}

/// An operation of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// RDMA WRITE.
    Write,
    /// RDMA WRITE with immediate data.
    WriteImm(u32),
    /// SEND into a posted receive buffer.
    Send,
    /// RDMA READ.
    Read,
}

/// One message of a run: `len` bytes from `src` in the data owner's memory (the requester's, the responder's
/// for READ) to `dst` in the other side's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Message {
    /// Operation.
    pub op: Op,
    /// Source address.
    pub src: u64,
    /// Target address.
    pub dst: u64,
    /// Length in bytes.
    pub len: u32,
}

/// A run of messages between the core and the model.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Who requests.
    pub requester: Requester,
    /// The link (both directions). When the core requests, its CTRL OPEN handshake runs without the link's
    /// loss, duplication, corruption and trimming (the model announces itself once, MR-CONN-14); they apply
    /// from the first message on.
    pub link: LinkConfig,
    /// When the core requests: open its connection 0-RTT ([`Interop::open_nic_zero_rtt`]) instead of the
    /// firmware's CTRL OPEN handshake.
    pub zero_rtt: bool,
    /// Run the firmware on the core's control processor ([`Interop::with_firmware`]); the core's connection
    /// is then always opened 0-RTT by the firmware (`zero_rtt` does not apply).
    pub firmware: bool,
    /// Work requests in flight at most.
    pub window: usize,
    /// Seed of the model, the link and the core bench's idle cycles.
    pub seed: u64,
    /// Give up after this many cycles.
    pub max_cycles: u64,
}

/// What a run observed.
#[derive(Debug, Clone, Default)]
pub struct RunReport {
    /// Messages completed at the requester.
    pub messages: usize,
    /// Message bytes.
    pub bytes: u64,
    /// Cycles from the first post to the last requester completion.
    pub cycles: u64,
    /// DATA packets the requester sent beyond each message's own (retransmissions; READ responses are the
    /// responder's).
    pub retransmissions: u64,
    /// Frames the link lost (both directions).
    pub link_lost: u64,
    /// The link's counters: model to core, core to model.
    pub link_stats: [LinkStats; 2],
    /// Messages whose target bytes differ from the source, or with a byte written in the gap after them.
    pub corrupt: usize,
    /// Completions with an error status or unexpected fields, and missing completions.
    pub bad_completions: usize,
    /// The first bad completion and what was expected.
    pub first_bad: Option<String>,
    /// The core host's completions, in order.
    pub nic_cqes: Vec<CqeRepr>,
    /// The model's completions, in order.
    pub model_completions: Vec<Completion>,
    /// Exceptions the bench's firmware stand-in took, CTRL OPENs it sent, exceptions it could not handle; with
    /// the firmware on the core ([`RunConfig::firmware`]) the same from its QUERY_DEVICE (the CTRL OPENs as the
    /// link saw them, checked against the firmware's count).
    pub firmware: (u64, u64, usize),
    /// CTRL OPENs the model sent to the core, and how many of them the core answered with an ACK echoing the
    /// OPEN's TS and UDP source port, `sack_base` = CACK (MR-REL-17).
    pub ctrl_open_answers: (u64, u64),
    /// The model's non-zero drop counters at the end (`name: value, ...`).
    pub model_drops: String,
    /// Wall-clock seconds.
    pub wall_s: f64,
}

/// The core's side of [`run`].
pub const NIC: NicSide = NicSide {
    mac: [0x02, 0, 0, 0, 0, 0x0a],
    ip: Ipv4Addr::new(10, 0, 0, 1),
    conn: 9,
    isn: 0,
    key: 0x0000_0111,
    buf: 0x100_0000,
    buf_len: 16 << 20,
};
/// The model's side of [`run`].
pub const MODEL: ModelSide = ModelSide {
    mac: [0x02, 0, 0, 0, 0, 0x0b],
    ip: Ipv4Addr::new(10, 0, 0, 2),
    buf: 0x4000_0000,
    buf_len: 16 << 20,
};

/// Lays `ops` with their lengths out in both memories (64-byte aligned, at least 64 bytes apart), with
/// seeded random data at the sources: the requester's buffer for WRITE / WRITE_IMM / SEND, the responder's for
/// READ.
pub fn layout(ops: &[(Op, u32)]) -> Vec<Message> {
    let (mut a, mut b) = (0u64, 0u64);
    ops.iter()
        .map(|&(op, len)| {
            let m = Message {
                op,
                src: a,
                dst: b,
                len,
            };
            a += (u64::from(len) + 127) & !63;
            b += (u64::from(len) + 127) & !63;
            m
        })
        .collect()
}

/// A seeded mix of `n` messages of `min..=max` bytes with weights `[WRITE, WRITE_IMM, SEND, READ]`.
pub fn mix(n: usize, min: u32, max: u32, weights: [u32; 4], seed: u64) -> Vec<(Op, u32)> {
    let mut rng = Rng::new(seed ^ 0x4D49_5845);
    let total = weights.iter().sum::<u32>().max(1);
    (0..n)
        .map(|_| {
            let len = min + rng.range_inclusive(0, u64::from(max.saturating_sub(min))) as u32;
            let w = rng.below(u64::from(total)) as u32;
            let op = if w < weights[0] {
                Op::Write
            } else if w < weights[0] + weights[1] {
                Op::WriteImm(rng.next_u32())
            } else if w < weights[0] + weights[1] + weights[2] {
                Op::Send
            } else {
                Op::Read
            };
            (op, len)
        })
        .collect()
}

/// Counts a bad completion, keeping the first description.
fn bad(report: &mut RunReport, what: String) {
    report.bad_completions += 1;
    report.first_bad.get_or_insert(what);
}

/// The solicited-event flag [`run`] gives message `i` (MR-WIRE-20): every second SEND and WRITE_IMM.
fn solicited(i: usize, m: &Message) -> bool {
    matches!(m.op, Op::Send | Op::WriteImm(_)) && i % 2 == 1
}

/// Per-message run state.
#[derive(Debug, Clone, Copy)]
struct Track {
    /// Ring index of the core's SQE (core requester).
    wqe: u16,
    /// Ring index of the core's RQE (core responder).
    rqe: Option<u16>,
}

/// The base addresses of the data owner and the target of `m` for requester `r`: (source base, target base).
fn bases(r: Requester, m: &Message) -> ((bool, u64), (bool, u64)) {
    // (on the core, base)
    let req_is_nic = r == Requester::Nic;
    let owner_is_nic = req_is_nic != matches!(m.op, Op::Read);
    let base = |nic: bool| (nic, if nic { NIC.buf } else { MODEL.buf });
    (base(owner_is_nic), base(!owner_is_nic))
}

/// Runs `ops` (laid out by [`layout`]) from `cfg.requester` to the other side and checks every byte and
/// every completion on both sides: the requester's (WRITE for WRITE and WRITE_IMM, SEND, READ, with
/// `byte_len` the message length on both sides), the responder's for SEND (RECV, `byte_len`) and WRITE_IMM
/// (RECV_WRITE_IMM, `byte_len`, the immediate; MR-SEM-19, MR-SEM-20), with the solicited indication on the
/// core's (MR-SEM-25), all in posting order; the bytes at every target and the gap after it.
pub fn run(cfg: &RunConfig, ops: &[(Op, u32)]) -> Result<RunReport, BenchError> {
    let t0 = std::time::Instant::now();
    let ccfg = cosim_config();
    let kind = core_model(&ccfg, false)?;
    let bench = CoreBench::new(&kind, &ccfg, BenchTiming::default(), cfg.seed ^ 0x11)?;
    let mut nic = NIC;
    nic.isn = Rng::new(cfg.seed ^ 0x15A).next_u32();
    let req = cfg.requester;
    let first = if req == Requester::Nic {
        LinkConfig {
            loss_ppm: 0,
            dup_ppm: 0,
            corrupt_ppm: 0,
            trim: None,
            ..cfg.link.clone()
        }
    } else {
        cfg.link.clone()
    };
    let mut x = if cfg.firmware {
        Interop::with_firmware(bench, &nic, &MODEL, first, PERIOD_PS, cfg.seed)?
    } else {
        Interop::new(bench, &nic, &MODEL, first, PERIOD_PS, cfg.seed)?
    };
    if req == Requester::Nic {
        // With the firmware on the core the connection opens 0-RTT with the first message.
        if !cfg.firmware {
            if cfg.zero_rtt {
                x.open_nic_zero_rtt()?;
            } else {
                x.open_from_nic(200_000)?;
            }
        }
        *x.to_nic.config_mut() = cfg.link.clone();
        *x.to_model.config_mut() = cfg.link.clone();
    }
    let msgs = layout(ops);
    let mut rng = Rng::new(cfg.seed ^ 0xDA7A);
    for m in &msgs {
        let data: Vec<u8> = (0..m.len).map(|_| rng.next_u32() as u8).collect();
        let ((on_nic, base), _) = bases(req, m);
        if on_nic {
            x.nic.dma.mem.write(base + m.src, &data);
        } else {
            x.model.memory_mut().write(base + m.src, &data);
        }
    }
    let mut report = RunReport::default();
    let recvs: Vec<usize> = msgs
        .iter()
        .enumerate()
        .filter(|(_, m)| matches!(m.op, Op::Send | Op::WriteImm(_)))
        .map(|(i, _)| i)
        .collect();
    let mut track = vec![Track { wqe: 0, rqe: None }; msgs.len()];
    let (mut next_recv, mut recv_done) = (0usize, 0usize);
    let (mut next, mut inflight) = (0usize, VecDeque::<usize>::new());
    let ring = 1usize << host::RING_LOG;
    let start = x.nic.m.cycle();
    while report.messages < msgs.len() {
        // The responder keeps receive buffers posted, in message order.
        while next_recv < recvs.len() && next_recv - recv_done < ring {
            let i = recvs[next_recv];
            let m = &msgs[i];
            let (_, (_, tbase)) = bases(req, m);
            if req == Requester::Model {
                track[i].rqe = Some(x.nic_post_recv(&RqeRepr {
                    wr_id: i as u64,
                    addr: tbase + m.dst,
                    length: m.len,
                    lkey: x.nic_keys.0,
                })?);
            } else {
                x.model_post_recv(RecvWr {
                    wr_id: i as u64,
                    sge: Sge {
                        addr: tbase + m.dst,
                        len: m.len,
                        lkey: x.model_keys.lkey,
                    },
                })?;
            }
            next_recv += 1;
        }
        // The requester keeps its window of work requests posted.
        while next < msgs.len() && inflight.len() < cfg.window.clamp(1, ring) {
            let m = msgs[next];
            let ((_, sbase), (_, tbase)) = bases(req, &m);
            let (local, remote) = if m.op == Op::Read {
                (tbase + m.dst, sbase + m.src)
            } else {
                (sbase + m.src, tbase + m.dst)
            };
            let remote_op = !matches!(m.op, Op::Send);
            if req == Requester::Model {
                let op = match m.op {
                    Op::Write => SendOp::Write,
                    Op::WriteImm(i) => SendOp::WriteImm(i),
                    Op::Send => SendOp::Send,
                    Op::Read => SendOp::Read,
                };
                x.model_post_send(SendWr {
                    wr_id: next as u64,
                    op,
                    local: Sge {
                        addr: local,
                        len: m.len,
                        lkey: x.model_keys.lkey,
                    },
                    remote_addr: if remote_op { remote } else { 0 },
                    rkey: if remote_op { x.nic_keys.1 } else { 0 },
                    solicited: solicited(next, &m),
                })?;
            } else {
                let op = match m.op {
                    Op::Write => SqOp::Write,
                    Op::WriteImm(i) => SqOp::WriteImm(i),
                    Op::Send => SqOp::Send,
                    Op::Read => SqOp::Read,
                };
                let rkey = x.model_keys.rkey;
                track[next].wqe = x.nic_post_send(&SqeRepr {
                    wr_id: next as u64,
                    op,
                    local_addr: local,
                    length: m.len,
                    lkey: x.nic_keys.0,
                    remote_addr: if remote_op { remote } else { 0 },
                    rkey: if remote_op { rkey } else { 0 },
                    solicited: solicited(next, &m),
                })?;
            }
            inflight.push_back(next);
            next += 1;
        }
        x.run(64)?;
        // Completions of the core's host.
        while let Some(c) = x.nic_poll_cq()? {
            report.nic_cqes.push(c);
            if req == Requester::Nic {
                let Some(i) = inflight.pop_front() else {
                    bad(&mut report, format!("core: unexpected {c:?}"));
                    continue;
                };
                let m = &msgs[i];
                let want = match m.op {
                    Op::Write | Op::WriteImm(_) => CqeOpcode::Write,
                    Op::Send => CqeOpcode::Send,
                    Op::Read => CqeOpcode::Read,
                };
                let ok = (c.wr_id, c.opcode, c.status, c.wqe_index, c.byte_len)
                    == (i as u64, want, CqeStatus::Success, track[i].wqe, m.len);
                if !ok {
                    bad(
                        &mut report,
                        format!(
                            "core: {c:?}, expected wr_id {i}, {want:?}, wqe_index {}, {} bytes, success",
                            track[i].wqe, m.len
                        ),
                    );
                }
                report.messages += 1;
                report.bytes += u64::from(m.len);
            } else {
                let i = recvs.get(recv_done).copied();
                recv_done += 1;
                let ok = i.is_some_and(|i| {
                    let m = &msgs[i];
                    let fields = (c.wr_id, c.status, Some(c.wqe_index), c.solicited)
                        == (i as u64, CqeStatus::Success, track[i].rqe, solicited(i, m));
                    fields
                        && match m.op {
                            Op::Send => c.opcode == CqeOpcode::Recv && c.byte_len == m.len,
                            Op::WriteImm(imm) => {
                                c.opcode == CqeOpcode::RecvWriteImm
                                    && c.imm == Some(imm)
                                    && c.byte_len == m.len
                            }
                            _ => false,
                        }
                });
                if !ok {
                    bad(
                        &mut report,
                        format!(
                            "core: {c:?}, expected the receive completion of {:?}",
                            i.map(|i| (i, msgs[i], track[i].rqe))
                        ),
                    );
                }
            }
        }
        // Completions of the model.
        while let Some(c) = x.model_poll()? {
            report.model_completions.push(c);
            if req == Requester::Model {
                let Some(i) = inflight.pop_front() else {
                    bad(&mut report, format!("model: unexpected {c:?}"));
                    continue;
                };
                let m = &msgs[i];
                let want = match m.op {
                    Op::Write | Op::WriteImm(_) => WcOpcode::Write,
                    Op::Send => WcOpcode::Send,
                    Op::Read => WcOpcode::Read,
                };
                let ok = (c.qpn, c.wr_id, c.opcode, c.status, c.byte_len)
                    == (x.model_qpn, i as u64, want, WcStatus::Success, m.len);
                if !ok {
                    bad(
                        &mut report,
                        format!(
                            "model: {c:?}, expected wr_id {i}, {want:?}, {} bytes, success",
                            m.len
                        ),
                    );
                }
                report.messages += 1;
                report.bytes += u64::from(m.len);
            } else {
                let i = recvs.get(recv_done).copied();
                recv_done += 1;
                let ok = i.is_some_and(|i| {
                    let m = &msgs[i];
                    (c.wr_id, c.status, c.byte_len) == (i as u64, WcStatus::Success, m.len)
                        && match m.op {
                            Op::Send => c.opcode == WcOpcode::Recv && c.imm.is_none(),
                            Op::WriteImm(imm) => {
                                c.opcode == WcOpcode::RecvWriteImm && c.imm == Some(imm)
                            }
                            _ => false,
                        }
                });
                if !ok {
                    bad(
                        &mut report,
                        format!(
                            "model: {c:?}, expected the receive completion of {:?}",
                            i.map(|i| (i, msgs[i]))
                        ),
                    );
                }
            }
        }
        if x.nic.m.cycle() - start > cfg.max_cycles {
            return Err(BenchError::Timeout(format!(
                "{} of {} messages completed in {} cycles ({} receive completions of {}; firmware {:?}; model stats {:?}; core DMA {:?})",
                report.messages,
                msgs.len(),
                cfg.max_cycles,
                recv_done,
                recvs.len(),
                x.fw,
                x.model.stats(),
                x.nic.dma.stats
            )));
        }
    }
    report.cycles = x.nic.m.cycle() - start;
    // Receive completions still on their way.
    let drain = x.nic.m.cycle();
    while recv_done < recvs.len() && x.nic.m.cycle() - drain < 100_000 {
        x.run(64)?;
        if req == Requester::Model {
            while let Some(c) = x.nic_poll_cq()? {
                report.nic_cqes.push(c);
                let i = recvs[recv_done];
                if c.status != CqeStatus::Success || c.wr_id != i as u64 {
                    bad(&mut report, format!("core: late {c:?} for message {i}"));
                }
                recv_done += 1;
                if recv_done == recvs.len() {
                    break;
                }
            }
        } else {
            while let Some(c) = x.model_poll()? {
                report.model_completions.push(c);
                let i = recvs[recv_done];
                if c.status != WcStatus::Success || c.wr_id != i as u64 {
                    bad(&mut report, format!("model: late {c:?} for message {i}"));
                }
                recv_done += 1;
                if recv_done == recvs.len() {
                    break;
                }
            }
        }
    }
    if recv_done < recvs.len() {
        bad(
            &mut report,
            format!("{} receive completions missing", recvs.len() - recv_done),
        );
    }
    // Bytes: every target equals its source, and the gap after it is untouched.
    let read = |x: &Interop, nic: bool, addr: u64, len: usize| {
        if nic {
            x.nic.dma.mem.read(addr, len)
        } else {
            x.model_mem(addr, len)
        }
    };
    for (i, m) in msgs.iter().enumerate() {
        let ((sn, sb), (tn, tb)) = bases(req, m);
        let want = read(&x, sn, sb + m.src, m.len as usize);
        let gap = msgs
            .get(i + 1)
            .map_or(64, |n| (n.dst - m.dst - u64::from(m.len)) as usize);
        let got = read(&x, tn, tb + m.dst, m.len as usize + gap);
        if got[..m.len as usize] != want[..] || got[m.len as usize..].iter().any(|&b| b != 0) {
            report.corrupt += 1;
        }
    }
    // Retransmissions of the requester.
    let own: u64 = msgs
        .iter()
        .filter(|m| m.op != Op::Read)
        .map(|m| u64::from(m.len.div_ceil(MTU)).max(1))
        .sum::<u64>()
        + msgs.iter().filter(|m| m.op == Op::Read).count() as u64;
    report.retransmissions = if req == Requester::Model {
        x.model.stats().retransmits.total()
    } else {
        let c = read_counters(&mut x.nic)?;
        c.get(CounterId::TxDataPackets as usize)
            .copied()
            .unwrap_or(0)
            .saturating_sub(own)
    };
    report.link_lost = x.to_nic.stats().dropped() + x.to_model.stats().dropped();
    report.link_stats = [*x.to_nic.stats(), *x.to_model.stats()];
    report.firmware = if x.fw_on_core {
        if x.nic.fw_trap()? {
            return Err(BenchError::Setup("the control processor trapped".into()));
        }
        let q = metaroce_regmap::command::Request {
            tag: 0x301,
            command: metaroce_regmap::command::Command::QueryDevice,
        };
        let r = firmware::command_ok(&mut x.nic, &q)?;
        let metaroce_regmap::command::ResponseData::Device(d) = r.data else {
            return Err(BenchError::Setup(format!("QUERY_DEVICE: {r:?}")));
        };
        // The firmware may still have been answering repeats of the opening flight (MR-CONN-11) after the last
        // message completed: what the core sent while the command ran is counted too.
        while let Some((f, _)) = x.nic.tx.pop_frame() {
            if is_ctrl_open(&f) {
                x.core_ctrl_opens += 1;
            }
        }
        if u64::from(d.announced) != x.core_ctrl_opens {
            return Err(BenchError::Setup(format!(
                "the firmware counts {} CTRL OPENs, the link saw {}",
                d.announced, x.core_ctrl_opens
            )));
        }
        (
            u64::from(d.exceptions),
            x.core_ctrl_opens,
            d.refused as usize,
        )
    } else {
        (x.fw.exceptions, x.fw.announcements, x.fw.unexpected.len())
    };
    report.ctrl_open_answers = (x.model_ctrl_opens, x.answered_opens);
    if let Some(u) = x.fw.unexpected.first() {
        report.first_bad.get_or_insert(format!("firmware: {u}"));
    }
    // `Drops { a: 0, b: 2, .. }` -> `b: 2`.
    report.model_drops = format!("{:?}", x.model.stats().drops)
        .trim_start_matches("Drops {")
        .trim_end_matches('}')
        .split(',')
        .map(str::trim)
        .filter(|f| !f.is_empty() && !f.ends_with(": 0"))
        .collect::<Vec<_>>()
        .join(", ");
    report.wall_s = t0.elapsed().as_secs_f64();
    Ok(report)
}
