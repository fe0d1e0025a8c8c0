//! The objects the firmware owns: QPs, CQs, memory regions and the connections of connected QPs. The hardware
//! keeps the hot copies (its context tables); these records are what the firmware needs to validate commands
//! and to rewrite an entry, since the context port cannot be read back.
//!
//! Capacities are the firmware's: the device may have larger tables ([`clamp`] takes the smaller of the two,
//! and QUERY_DEVICE reports what can still be created). They keep the firmware's data within the second half
//! of the processor's RAM ([`metaroce_regmap::fwbus::RAM_BYTES`]).

use core::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use metaroce_regmap::caps::Limits;
use metaroce_regmap::command::{Moderation, QpState, Remote};
use metaroce_regmap::context::mr::MrAccess;

/// QP numbers `1..QPS` (QP 0 is never created).
pub const QPS: usize = 256;
/// CQ numbers `0..CQS`.
pub const CQS: usize = 256;
/// MR slots `1..MRS` (slot 0 is never used, so no key is 0).
pub const MRS: usize = 1024;

/// `limits` clamped to the firmware's tables.
pub fn clamp(limits: Limits) -> Limits {
    Limits {
        max_qps: limits.max_qps.min(QPS as u32),
        max_cqs: limits.max_cqs.min(CQS as u32),
        max_mrs: limits.max_mrs.min(MRS as u32),
        ..limits
    }
}

/// A QP. All-zero is a free slot ([`Qp::FREE`]), so the firmware's tables start in zeroed memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Qp {
    /// The slot holds a QP.
    pub live: bool,
    /// State (Table 7.10).
    pub state: QpState,
    /// Send queue ring base and log2 entries.
    pub sq: (u64, u8),
    /// Receive queue ring base and log2 entries.
    pub rq: (u64, u8),
    /// CQ of send completions.
    pub send_cqn: u32,
    /// CQ of receive completions.
    pub recv_cqn: u32,
    /// The remote QP is known (the QP was moved to READY).
    pub connected: bool,
    /// Remote QP number.
    pub remote_qpn: u32,
    /// Remote (next-hop) MAC.
    pub remote_mac: [u8; 6],
    /// Remote IP: IPv4 in the first 4 bytes unless `remote_v6`.
    pub remote_ip: [u8; 16],
    /// The remote IP is IPv6.
    pub remote_v6: bool,
    /// The connection opened when the QP became READY (its index, the QP's number), 0 if none.
    pub conn: u16,
    /// That connection's own CID ([`cid_of`]), 0 if none.
    pub cid: u32,
    /// The ISN of the connection's send direction.
    pub isn: u32,
    /// The peer's CID once the connection is bound to it ([`crate::responder`]), else 0.
    pub peer_cid: u32,
    /// The peer's ISN once bound.
    pub peer_isn: u32,
    /// Core time of the last CTRL OPEN sent for the connection, cycles; 0 if none.
    pub announced: u64,
}

impl Qp {
    /// A free slot.
    pub const FREE: Qp = Qp {
        live: false,
        state: QpState::Reset,
        sq: (0, 0),
        rq: (0, 0),
        send_cqn: 0,
        recv_cqn: 0,
        connected: false,
        remote_qpn: 0,
        remote_mac: [0; 6],
        remote_ip: [0; 16],
        remote_v6: false,
        conn: 0,
        cid: 0,
        isn: 0,
        peer_cid: 0,
        peer_isn: 0,
        announced: 0,
    };

    /// Records the remote QP.
    pub fn set_remote(&mut self, r: &Remote) {
        self.connected = true;
        self.remote_qpn = r.qpn;
        self.remote_mac = r.mac;
        match r.ip {
            IpAddr::V4(a) => {
                self.remote_ip = [0; 16];
                self.remote_ip[..4].copy_from_slice(&a.octets());
                self.remote_v6 = false;
            }
            IpAddr::V6(a) => {
                self.remote_ip = a.octets();
                self.remote_v6 = true;
            }
        }
    }

    /// The remote QP, if known.
    pub fn remote(&self) -> Option<Remote> {
        self.connected.then(|| {
            let ip = if self.remote_v6 {
                IpAddr::V6(Ipv6Addr::from(self.remote_ip))
            } else {
                let b = self.remote_ip;
                IpAddr::V4(Ipv4Addr::new(b[0], b[1], b[2], b[3]))
            };
            Remote {
                qpn: self.remote_qpn,
                mac: self.remote_mac,
                ip,
            }
        })
    }
}

/// The CID of connection slot `conn` in generation `gen`: the generation above the slot's index, which the
/// core's blocks take from the CID's low 16 bits (`metaroce_hdl`'s connection lookup compares all 24).
pub const fn cid_of(gen: u8, conn: u16) -> u32 {
    (gen as u32) << 16 | conn as u32
}

/// A CQ. All-zero is a free slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cq {
    /// The slot holds a CQ.
    pub live: bool,
    /// Ring base.
    pub ring: u64,
    /// log2 entries.
    pub log: u8,
    /// MSI-X vector.
    pub vector: u16,
    /// Interrupt moderation (recorded; the hardware has none, see [`crate::exec`]).
    pub moderation: Moderation,
    /// QPs that complete into it.
    pub users: u16,
}

impl Cq {
    /// A free slot.
    pub const FREE: Cq = Cq {
        live: false,
        ring: 0,
        log: 0,
        vector: 0,
        moderation: Moderation { usec: 0, count: 0 },
        users: 0,
    };
}

/// A memory region. All-zero is a free slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mr {
    /// The slot holds a region.
    pub live: bool,
    /// Start.
    pub addr: u64,
    /// Bytes.
    pub length: u64,
    /// Rights.
    pub access: MrAccess,
    /// Random bits of its rkey above the slot bits.
    pub salt: u32,
}

impl Mr {
    /// A free slot.
    pub const FREE: Mr = Mr {
        live: false,
        addr: 0,
        length: 0,
        access: MrAccess(0),
        salt: 0,
    };
}

/// The tables. All-zero is the empty state ([`Objects::new`]). Slots change through [`Objects::set_qp`],
/// [`Objects::set_cq`] and [`Objects::set_mr`], which keep the counts of live objects.
pub struct Objects {
    qps: [Qp; QPS],
    cqs: [Cq; CQS],
    mrs: [Mr; MRS],
    /// Live QPs, CQs and MRs.
    live: (u32, u32, u32),
    /// Key generation of each MR slot (the low byte of its keys), advanced when the slot is freed, so a stale
    /// key names nothing.
    pub key_gen: [u8; MRS],
    /// Connections open.
    pub conns: u32,
    /// CID generation of each connection slot, advanced at every connection the slot opens (MR-CONN-2); 0
    /// for a slot that has opened none since boot.
    pub cid_gen: [u8; QPS],
}

impl Objects {
    /// Empty tables.
    pub const fn new() -> Objects {
        Objects {
            qps: [Qp::FREE; QPS],
            cqs: [Cq::FREE; CQS],
            mrs: [Mr::FREE; MRS],
            key_gen: [0; MRS],
            cid_gen: [0; QPS],
            conns: 0,
            live: (0, 0, 0),
        }
    }

    /// The QP slots (slot 0 is never used).
    pub fn qps(&self) -> &[Qp; QPS] {
        &self.qps
    }

    /// The CQ slots.
    pub fn cqs(&self) -> &[Cq; CQS] {
        &self.cqs
    }

    /// The MR slots (slot 0 is never used).
    pub fn mrs(&self) -> &[Mr; MRS] {
        &self.mrs
    }

    /// Replaces QP slot `n` (out-of-range slots are ignored).
    pub fn set_qp(&mut self, n: u32, qp: Qp) {
        if let Some(s) = self.qps.get_mut(n as usize) {
            self.live.0 = self.live.0 + u32::from(qp.live) - u32::from(s.live);
            *s = qp;
        }
    }

    /// Replaces CQ slot `n` (out-of-range slots are ignored).
    pub fn set_cq(&mut self, n: u32, cq: Cq) {
        if let Some(s) = self.cqs.get_mut(n as usize) {
            self.live.1 = self.live.1 + u32::from(cq.live) - u32::from(s.live);
            *s = cq;
        }
    }

    /// Replaces MR slot `n` (out-of-range slots are ignored).
    pub fn set_mr(&mut self, n: usize, mr: Mr) {
        if let Some(s) = self.mrs.get_mut(n) {
            self.live.2 = self.live.2 + u32::from(mr.live) - u32::from(s.live);
            *s = mr;
        }
    }

    /// Empties every table (key generations are kept, so keys of a previous boot stay invalid). Tables that
    /// are already empty are not rewritten (after reset the start-up code has zeroed them).
    pub fn clear(&mut self) {
        if self.live != (0, 0, 0) {
            self.qps.fill(Qp::FREE);
            self.cqs.fill(Cq::FREE);
            self.mrs.fill(Mr::FREE);
            self.live = (0, 0, 0);
        }
        self.conns = 0;
    }

    /// The CID of the next connection of slot `conn` (MR-CONN-2): the slot's generation advanced, 1 to 255
    /// and round again, starting at 1 + `random` mod 255 after boot, so that a CID recurs only after 255 other
    /// connections of the slot and a restarted device does not start where it left off.
    pub fn next_cid(&mut self, conn: u16, random: u32) -> u32 {
        let Some(g) = self.cid_gen.get_mut(usize::from(conn)) else {
            return 0;
        };
        *g = match *g {
            0 => 1 + (random % 255) as u8,
            255 => 1,
            n => n + 1,
        };
        cid_of(*g, conn)
    }

    /// QP `qpn`, if it exists.
    pub fn qp(&self, qpn: u32) -> Option<&Qp> {
        self.qps.get(qpn as usize).filter(|q| q.live)
    }

    /// CQ `cqn`, if it exists.
    pub fn cq(&self, cqn: u32) -> Option<&Cq> {
        self.cqs.get(cqn as usize).filter(|c| c.live)
    }

    /// CQ `cqn`, if it exists (its `live` flag must stay set: use [`Objects::set_cq`] to free it).
    pub fn cq_mut(&mut self, cqn: u32) -> Option<&mut Cq> {
        self.cqs.get_mut(cqn as usize).filter(|c| c.live)
    }

    /// MR slot `slot`, if it holds a region.
    pub fn mr(&self, slot: usize) -> Option<&Mr> {
        self.mrs.get(slot).filter(|m| m.live)
    }

    /// The lowest free QPN below `limit`.
    pub fn free_qpn(&self, limit: u32) -> Option<u32> {
        (1..limit.min(QPS as u32)).find(|&n| !self.qps[n as usize].live)
    }

    /// The lowest free CQN below `limit`.
    pub fn free_cqn(&self, limit: u32) -> Option<u32> {
        (0..limit.min(CQS as u32)).find(|&n| !self.cqs[n as usize].live)
    }

    /// The lowest free MR slot below `limit`.
    pub fn free_mr_slot(&self, limit: u32) -> Option<u32> {
        (1..limit.min(MRS as u32)).find(|&n| !self.mrs[n as usize].live)
    }

    /// Free QPs, CQs and MR slots below the limits (objects are only created below them).
    pub fn free(&self, limits: &Limits) -> (u32, u32, u32) {
        let q = limits.max_qps.min(QPS as u32).saturating_sub(1);
        let c = limits.max_cqs.min(CQS as u32);
        let m = limits.max_mrs.min(MRS as u32).saturating_sub(1);
        (
            q.saturating_sub(self.live.0),
            c.saturating_sub(self.live.1),
            m.saturating_sub(self.live.2),
        )
    }
}

impl Default for Objects {
    fn default() -> Self {
        Objects::new()
    }
}
