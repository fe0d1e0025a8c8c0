//! The firmware's side of the packet port ([`metaroce_regmap::fwbus::pkt`]): the exception packets the core
//! hands over, and the control packets the firmware sends, as [`metaroce_regmap::pktrec`] records.

use crate::bus::Bus;
use metaroce_regmap::fwbus::{pkt, PKT_BASE};
use metaroce_regmap::pktrec::{self, field as f};

/// Polls of `TX_STATUS` before a transmit path that does not take the record is declared hung.
pub const SEND_POLLS: u32 = 10_000;

/// MetaRoCE packet types and codes the firmware reads and writes (`metaroce_proto::wire`; the firmware's
/// tests check these against it).
pub mod wire {
    /// MBH type DATA.
    pub const DATA: u8 = 1;
    /// MBH type ACK.
    pub const ACK: u8 = 2;
    /// MBH type NACK.
    pub const NACK: u8 = 3;
    /// MBH type CTRL.
    pub const CTRL: u8 = 4;
    /// MBH flag SYN.
    pub const SYN: u8 = 0x80;
    /// CTRL code OPEN.
    pub const CTRL_OPEN: u8 = 1;
    /// IP ECN codepoint ECT(0).
    pub const ECT0: u8 = 0b10;
}

/// The Open extension of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Open {
    /// The sender's CID.
    pub scid: u32,
    /// The sender's receive window, log2 packets.
    pub wlog: u8,
    /// The sender's ISN.
    pub isn: u32,
    /// The QP it targets.
    pub target_qpn: u32,
    /// Its log2 MTU.
    pub mtu_log: u8,
}

/// One packet record, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Packet {
    /// MBH type.
    pub ptype: u8,
    /// MBH flags.
    pub flags: u8,
    /// MBH destination CID.
    pub dcid: u32,
    /// MBH PSN.
    pub psn: u32,
    /// MBH TS.
    pub ts: u32,
    /// ACK/NACK/CTRL source CID.
    pub scid: u32,
    /// NACK/CTRL code.
    pub code: u8,
    /// ACK/NACK/CTRL echoed TS.
    pub echo_ts: u32,
    /// NACK/CTRL auxiliary value.
    pub aux: u32,
    /// Entropy value.
    pub ev: u16,
    /// IP DSCP.
    pub dscp: u8,
    /// IP ECN.
    pub ecn: u8,
    /// Peer MAC, network order.
    pub peer_mac: [u8; 6],
    /// Peer IP, network order (IPv4 in the first 4 bytes).
    pub peer_ip: [u8; 16],
    /// Carried over IPv6.
    pub ipv6: bool,
    /// Classified as trimmed by the receive path.
    pub trimmed: bool,
    /// The Open extension, if present.
    pub open: Option<Open>,
}

fn get(buf: &[u8; 64], field: &metaroce_regmap::Field) -> u64 {
    field.get(buf).unwrap_or(0)
}

fn put(buf: &mut [u8; 64], field: &metaroce_regmap::Field, v: u64) {
    // Every field lies inside the 64-byte record and `v` is masked to its width.
    let _ = field.set(buf, v & field.max());
}

impl Packet {
    /// Decodes a record.
    pub fn from_record(buf: &[u8; 64]) -> Packet {
        let ipv6 = get(buf, &f::IPV6) == 1;
        let mut ip = [0u8; 16];
        ip.copy_from_slice(&buf[f::PEER_IP.byte as usize..f::PEER_IP.byte as usize + 16]);
        let open = (get(buf, &f::OX) == 1).then(|| Open {
            scid: get(buf, &f::OX_SCID) as u32,
            wlog: get(buf, &f::WLOG) as u8,
            isn: get(buf, &f::ISN) as u32,
            target_qpn: get(buf, &f::TARGET_QPN) as u32,
            mtu_log: get(buf, &f::MTU_LOG) as u8,
        });
        Packet {
            ptype: get(buf, &f::PTYPE) as u8,
            flags: get(buf, &f::MBH_FLAGS) as u8,
            dcid: get(buf, &f::DCID) as u32,
            psn: get(buf, &f::PSN) as u32,
            ts: get(buf, &f::TS) as u32,
            scid: get(buf, &f::SCID) as u32,
            code: get(buf, &f::CODE) as u8,
            echo_ts: get(buf, &f::ECHO_TS) as u32,
            aux: get(buf, &f::AUX) as u32,
            ev: get(buf, &f::EV) as u16,
            dscp: get(buf, &f::DSCP) as u8,
            ecn: get(buf, &f::ECN) as u8,
            peer_mac: pktrec::mac_from_record(get(buf, &f::PEER_MAC)),
            peer_ip: pktrec::ip_from_record(&ip, ipv6),
            ipv6,
            trimmed: get(buf, &f::TRIMMED) == 1,
            open,
        }
    }

    /// Encodes the record (`ts` is the core's on transmit; `trimmed` is ignored there).
    pub fn to_record(&self) -> [u8; 64] {
        let mut buf = [0u8; 64];
        put(&mut buf, &f::PTYPE, u64::from(self.ptype));
        put(&mut buf, &f::MBH_FLAGS, u64::from(self.flags));
        put(&mut buf, &f::DCID, u64::from(self.dcid));
        put(&mut buf, &f::PSN, u64::from(self.psn));
        put(&mut buf, &f::TS, u64::from(self.ts));
        put(&mut buf, &f::SCID, u64::from(self.scid));
        put(&mut buf, &f::CODE, u64::from(self.code));
        put(&mut buf, &f::ECHO_TS, u64::from(self.echo_ts));
        put(&mut buf, &f::AUX, u64::from(self.aux));
        put(&mut buf, &f::EV, u64::from(self.ev));
        put(&mut buf, &f::DSCP, u64::from(self.dscp));
        put(&mut buf, &f::ECN, u64::from(self.ecn));
        put(
            &mut buf,
            &f::PEER_MAC,
            pktrec::mac_to_record(&self.peer_mac),
        );
        put(&mut buf, &f::IPV6, u64::from(self.ipv6));
        put(&mut buf, &f::TRIMMED, u64::from(self.trimmed));
        let ip = pktrec::ip_to_record(&self.peer_ip, self.ipv6);
        let b = f::PEER_IP.byte as usize;
        buf[b..b + 16].copy_from_slice(&ip);
        if let Some(o) = self.open {
            put(&mut buf, &f::OX, 1);
            put(&mut buf, &f::OX_SCID, u64::from(o.scid));
            put(&mut buf, &f::WLOG, u64::from(o.wlog));
            put(&mut buf, &f::ISN, u64::from(o.isn));
            put(&mut buf, &f::TARGET_QPN, u64::from(o.target_qpn));
            put(&mut buf, &f::MTU_LOG, u64::from(o.mtu_log));
        }
        buf
    }

    /// SYN is set and the packet was not trimmed (its Open extension, if any, is intact).
    pub fn is_open_syn(&self) -> bool {
        self.flags & wire::SYN != 0 && !self.trimmed && self.open.is_some()
    }
}

/// The exception packets dropped by the port because its queue was full (`RX_STATUS.lost`).
pub fn lost(bus: &mut impl Bus) -> u16 {
    (bus.read(PKT_BASE + pkt::RX_STATUS) >> pkt::STATUS_LOST_LSB) as u16
}

/// The held exception packet, if any and not being replayed. It stays held until [`release`].
pub fn held(bus: &mut impl Bus) -> Option<[u8; 64]> {
    let status = bus.read(PKT_BASE + pkt::RX_STATUS);
    if status & pkt::STATUS_BUSY == 0 || status & pkt::STATUS_REPLAYING != 0 {
        return None;
    }
    let mut buf = [0u8; 64];
    for (k, w) in buf.chunks_exact_mut(4).enumerate() {
        w.copy_from_slice(
            &bus.read(PKT_BASE + pkt::RX_REC + 4 * k as u32)
                .to_le_bytes(),
        );
    }
    Some(buf)
}

/// What becomes of the held record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Release {
    /// Dropped (`RX_POP`).
    Pop,
    /// Handed back to the receive path (`RX_REPLAY`), which processes it as a packet from the wire without
    /// payload; the port releases it when the receive path takes it.
    Replay,
}

/// Releases the held record.
pub fn release(bus: &mut impl Bus, how: Release) {
    let reg = match how {
        Release::Pop => pkt::RX_POP,
        Release::Replay => pkt::RX_REPLAY,
    };
    bus.write(PKT_BASE + reg, 1);
}

/// The transmit path did not take the previous record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendHung;

/// Sends `rec`: waits until the previous record was taken, writes the record, offers it.
pub fn send(bus: &mut impl Bus, rec: &[u8; 64]) -> Result<(), SendHung> {
    let mut free = false;
    for _ in 0..SEND_POLLS {
        if bus.read(PKT_BASE + pkt::TX_STATUS) & pkt::STATUS_BUSY == 0 {
            free = true;
            break;
        }
    }
    if !free {
        return Err(SendHung);
    }
    for (k, w) in rec.chunks_exact(4).enumerate() {
        bus.write(
            PKT_BASE + pkt::TX_REC + 4 * k as u32,
            u32::from_le_bytes([w[0], w[1], w[2], w[3]]),
        );
    }
    bus.write(PKT_BASE + pkt::TX_SEND, 1);
    Ok(())
}
