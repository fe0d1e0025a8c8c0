//! QP context entry, 64 bytes: what the device keeps per queue pair (MR-CONN-39, Table 7.10): state, ring
//! geometry and indices, the CQs, the current connection and the remote QP. The firmware writes it on
//! CREATE_QP / MODIFY_QP / DESTROY_QP; the doorbell, transmit and completion logic read and update the indices.

use crate::caps::{MAX_RING_LOG, MIN_RING_LOG};
use crate::command::QpState;
use crate::field::{Error, Layout};
use crate::queues::{Ring, RING_ALIGN};
use core::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Fields of a QP context entry.
pub mod field {
    use crate::field::Field;
    /// `sq_base`.
    pub const SQ_BASE: Field =
        Field::new("sq_base", 0, 0, 64, "send queue ring base (4 KiB aligned)");
    /// `rq_base`.
    pub const RQ_BASE: Field = Field::new(
        "rq_base",
        8,
        0,
        64,
        "receive queue ring base (4 KiB aligned)",
    );
    /// `remote_ip`.
    pub const REMOTE_IP: Field = Field::new(
        "remote_ip",
        16,
        0,
        128,
        "peer IP, network order; IPv4 in the first 4 bytes, the rest 0",
    );
    /// `remote_mac`.
    pub const REMOTE_MAC: Field = Field::new(
        "remote_mac",
        32,
        0,
        48,
        "peer (next-hop) MAC, network order",
    );
    /// `sq_pi`.
    pub const SQ_PI: Field = Field::new("sq_pi", 38, 0, 16, "SQ producer index (latest doorbell)");
    /// `sq_ci`.
    pub const SQ_CI: Field = Field::new(
        "sq_ci",
        40,
        0,
        16,
        "SQ consumer index (next SQE the device reads)",
    );
    /// `rq_pi`.
    pub const RQ_PI: Field = Field::new("rq_pi", 42, 0, 16, "RQ producer index (latest doorbell)");
    /// `rq_ci`.
    pub const RQ_CI: Field = Field::new(
        "rq_ci",
        44,
        0,
        16,
        "RQ consumer index (next RQE to consume)",
    );
    /// `send_cqn`.
    pub const SEND_CQN: Field = Field::new("send_cqn", 46, 0, 24, "CQ of send completions");
    /// `recv_cqn`.
    pub const RECV_CQN: Field = Field::new("recv_cqn", 49, 0, 24, "CQ of receive completions");
    /// `cid`.
    pub const CID: Field = Field::new(
        "cid",
        52,
        0,
        24,
        "own CID of the current connection, 0 if none",
    );
    /// `remote_qpn`.
    pub const REMOTE_QPN: Field = Field::new(
        "remote_qpn",
        55,
        0,
        24,
        "peer QP number (non-zero in READY)",
    );
    /// `state`.
    pub const STATE: Field = Field::new("state", 58, 0, 2, "0 RESET, 1 INIT, 2 READY, 3 ERROR");
    /// `ipv6`.
    pub const IPV6: Field = Field::new("ipv6", 58, 2, 1, "remote_ip is IPv6");
    /// `rq_keep`.
    pub const RQ_KEEP: Field = Field::new(
        "rq_keep",
        58,
        3,
        1,
        "the device keeps its RQ indices (rq_pi and rq_ci are 0 and ignored): receive WQEs posted before the write stay posted",
    );
    /// `sq_log`.
    pub const SQ_LOG: Field = Field::new("sq_log", 59, 0, 4, "log2 of the SQ entries (0 in RESET)");
    /// `rq_log`.
    pub const RQ_LOG: Field = Field::new("rq_log", 59, 4, 4, "log2 of the RQ entries (0 in RESET)");
}

/// The QP context layout.
pub const LAYOUT: Layout = Layout {
    name: "qp_ctx",
    bytes: 64,
    doc: "QP context entry. Firmware writes; doorbell, transmit and completion logic read and update indices.",
    fields: &[
        field::SQ_BASE,
        field::RQ_BASE,
        field::REMOTE_IP,
        field::REMOTE_MAC,
        field::SQ_PI,
        field::SQ_CI,
        field::RQ_PI,
        field::RQ_CI,
        field::SEND_CQN,
        field::RECV_CQN,
        field::CID,
        field::REMOTE_QPN,
        field::STATE,
        field::IPV6,
        field::RQ_KEEP,
        field::SQ_LOG,
        field::RQ_LOG,
    ],
};

/// The remote end of a connected QP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QpRemote {
    /// Peer QP number (24 bits, non-zero).
    pub qpn: u32,
    /// Next-hop MAC.
    pub mac: [u8; 6],
    /// Peer IP.
    pub ip: IpAddr,
}

/// A decoded QP context entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QpContext {
    /// State.
    pub state: QpState,
    /// SQ ring base.
    pub sq_base: u64,
    /// RQ ring base.
    pub rq_base: u64,
    /// log2 of the SQ entries.
    pub sq_log: u8,
    /// log2 of the RQ entries.
    pub rq_log: u8,
    /// SQ producer index.
    pub sq_pi: u16,
    /// SQ consumer index.
    pub sq_ci: u16,
    /// RQ producer index.
    pub rq_pi: u16,
    /// RQ consumer index.
    pub rq_ci: u16,
    /// The device keeps the RQ's indices (`rq_pi` and `rq_ci` must be 0): a rewrite of a live QP's entry (its
    /// move from INIT to READY) leaves the receive WQEs posted before it posted.
    pub rq_keep: bool,
    /// Send CQ.
    pub send_cqn: u32,
    /// Receive CQ.
    pub recv_cqn: u32,
    /// Current connection's own CID (0: none).
    pub cid: u32,
    /// The peer, set from READY on (kept in ERROR); `None` before.
    pub remote: Option<QpRemote>,
}

fn invalid(f: &crate::field::Field) -> Error {
    Error::Invalid { field: f.name }
}

impl QpContext {
    /// Checks the entry: a RESET entry is all zero; otherwise ring exponents in 1..=15, bases 4 KiB aligned and
    /// non-zero, indices no further apart than the ring size (both 0 with `rq_keep`), a remote QP in READY
    /// (none in INIT), and every 24-bit number within 24 bits.
    pub fn validate(&self) -> Result<(), Error> {
        if self.state == QpState::Reset {
            let zero = QpContext::reset();
            return if *self == zero {
                Ok(())
            } else {
                Err(invalid(&field::STATE))
            };
        }
        let rings = [
            (
                self.sq_base,
                self.sq_log,
                self.sq_pi,
                self.sq_ci,
                &field::SQ_BASE,
                &field::SQ_LOG,
                &field::SQ_PI,
            ),
            (
                self.rq_base,
                self.rq_log,
                self.rq_pi,
                self.rq_ci,
                &field::RQ_BASE,
                &field::RQ_LOG,
                &field::RQ_PI,
            ),
        ];
        for (base, log, pi, ci, fb, fl, fp) in rings {
            if base == 0 || !base.is_multiple_of(RING_ALIGN) {
                return Err(invalid(fb));
            }
            if !(MIN_RING_LOG..=MAX_RING_LOG).contains(&log) {
                return Err(invalid(fl));
            }
            Ring::new(log)?.occupancy(pi, ci).map_err(|_| invalid(fp))?;
        }
        if self.rq_keep && (self.rq_pi, self.rq_ci) != (0, 0) {
            return Err(invalid(&field::RQ_KEEP));
        }
        let max24 = field::CID.max() as u32;
        if self.send_cqn > max24 {
            return Err(invalid(&field::SEND_CQN));
        }
        if self.recv_cqn > max24 {
            return Err(invalid(&field::RECV_CQN));
        }
        if self.cid > max24 {
            return Err(invalid(&field::CID));
        }
        match (self.state, self.remote) {
            (QpState::Ready, None) => Err(invalid(&field::REMOTE_QPN)),
            (QpState::Init, Some(_)) => Err(invalid(&field::REMOTE_QPN)),
            (QpState::Init, None) if self.cid != 0 => Err(invalid(&field::CID)),
            (_, Some(r)) if r.qpn == 0 || r.qpn > max24 => Err(invalid(&field::REMOTE_QPN)),
            _ => Ok(()),
        }
    }

    /// The all-zero entry of a QP in RESET (or a free slot).
    pub const fn reset() -> QpContext {
        QpContext {
            state: QpState::Reset,
            sq_base: 0,
            rq_base: 0,
            sq_log: 0,
            rq_log: 0,
            sq_pi: 0,
            sq_ci: 0,
            rq_pi: 0,
            rq_ci: 0,
            rq_keep: false,
            send_cqn: 0,
            recv_cqn: 0,
            cid: 0,
            remote: None,
        }
    }

    /// Decodes an entry; reserved bits or an inconsistent entry are errors.
    pub fn parse(buf: &[u8]) -> Result<QpContext, Error> {
        LAYOUT.check_reserved(buf)?;
        let state = QpState::from_u8(field::STATE.get(buf)? as u8).ok_or(invalid(&field::STATE))?;
        let ipv6 = field::IPV6.get(buf)? != 0;
        let rqpn = field::REMOTE_QPN.get(buf)? as u32;
        let mut mac = [0u8; 6];
        mac.copy_from_slice(field::REMOTE_MAC.bytes(buf)?);
        let mut ip = [0u8; 16];
        ip.copy_from_slice(field::REMOTE_IP.bytes(buf)?);
        let remote = if rqpn == 0 {
            if ipv6 || mac != [0; 6] || ip != [0; 16] {
                return Err(invalid(&field::REMOTE_QPN));
            }
            None
        } else {
            let ip = if ipv6 {
                IpAddr::V6(Ipv6Addr::from(ip))
            } else {
                if ip[4..] != [0; 12] {
                    return Err(invalid(&field::REMOTE_IP));
                }
                IpAddr::V4(Ipv4Addr::new(ip[0], ip[1], ip[2], ip[3]))
            };
            Some(QpRemote { qpn: rqpn, mac, ip })
        };
        let c = QpContext {
            state,
            sq_base: field::SQ_BASE.get(buf)?,
            rq_base: field::RQ_BASE.get(buf)?,
            sq_log: field::SQ_LOG.get(buf)? as u8,
            rq_log: field::RQ_LOG.get(buf)? as u8,
            sq_pi: field::SQ_PI.get(buf)? as u16,
            sq_ci: field::SQ_CI.get(buf)? as u16,
            rq_pi: field::RQ_PI.get(buf)? as u16,
            rq_ci: field::RQ_CI.get(buf)? as u16,
            rq_keep: field::RQ_KEEP.get(buf)? != 0,
            send_cqn: field::SEND_CQN.get(buf)? as u32,
            recv_cqn: field::RECV_CQN.get(buf)? as u32,
            cid: field::CID.get(buf)? as u32,
            remote,
        };
        c.validate()?;
        Ok(c)
    }

    /// Encodes into the first 64 bytes of `buf`.
    pub fn emit(&self, buf: &mut [u8]) -> Result<(), Error> {
        self.validate()?;
        LAYOUT.clear(buf)?;
        field::STATE.set(buf, self.state as u64)?;
        field::SQ_BASE.set(buf, self.sq_base)?;
        field::RQ_BASE.set(buf, self.rq_base)?;
        field::SQ_LOG.set(buf, self.sq_log as u64)?;
        field::RQ_LOG.set(buf, self.rq_log as u64)?;
        field::SQ_PI.set(buf, self.sq_pi as u64)?;
        field::SQ_CI.set(buf, self.sq_ci as u64)?;
        field::RQ_PI.set(buf, self.rq_pi as u64)?;
        field::RQ_CI.set(buf, self.rq_ci as u64)?;
        field::RQ_KEEP.set(buf, u64::from(self.rq_keep))?;
        field::SEND_CQN.set(buf, self.send_cqn as u64)?;
        field::RECV_CQN.set(buf, self.recv_cqn as u64)?;
        field::CID.set(buf, self.cid as u64)?;
        if let Some(r) = self.remote {
            field::REMOTE_QPN.set(buf, r.qpn as u64)?;
            field::REMOTE_MAC.set_bytes(buf, &r.mac)?;
            let mut ip = [0u8; 16];
            match r.ip {
                IpAddr::V4(a) => ip[..4].copy_from_slice(&a.octets()),
                IpAddr::V6(a) => {
                    ip = a.octets();
                    field::IPV6.set(buf, 1)?;
                }
            }
            field::REMOTE_IP.set_bytes(buf, &ip)?;
        }
        Ok(())
    }
}
