//! Open extension (OX), 12 bytes; follows the type header when MBH.SYN is set (spec 3.7, MR-WIRE-27..-29).

use super::{bytes, view, Error, Result};

/// Byte offsets of the Open extension.
pub mod field {
    use crate::wire::Field;
    /// The sender's own connection id, 24 bits.
    pub const SCID: Field = 0..3;
    /// The sender's receive window, log2 packets (8..=16).
    pub const WLOG: usize = 3;
    /// First PSN the sender uses in this direction.
    pub const ISN: Field = 4..8;
    /// The receiver's QP number this connection attaches to, 24 bits.
    pub const TARGET_QPN: Field = 8..11;
    /// log2 of the sender's max payload per packet (9..=13).
    pub const MTU_LOG: usize = 11;
    /// Length.
    pub const HEADER_LEN: usize = 12;
}

/// Smallest valid `wlog` (256 packets).
pub const WLOG_MIN: u8 = 8;
/// Largest valid `wlog` (65536 packets).
pub const WLOG_MAX: u8 = 16;
/// Smallest valid `mtu_log` (512 bytes).
pub const MTU_LOG_MIN: u8 = 9;
/// Largest valid `mtu_log` (8192 bytes).
pub const MTU_LOG_MAX: u8 = 13;

view!(
    /// A view of the Open extension.
    OpenExt,
    field::HEADER_LEN
);

impl<T: AsRef<[u8]>> OpenExt<T> {
    /// Source connection id.
    #[inline]
    pub fn scid(&self) -> u32 {
        bytes::u24_at(self.buffer.as_ref(), field::SCID.start)
    }
    /// Receive window, log2 packets.
    #[inline]
    pub fn wlog(&self) -> u8 {
        bytes::u8_at(self.buffer.as_ref(), field::WLOG)
    }
    /// Initial sequence number.
    #[inline]
    pub fn isn(&self) -> u32 {
        bytes::u32_at(self.buffer.as_ref(), field::ISN.start)
    }
    /// Target QP number.
    #[inline]
    pub fn target_qpn(&self) -> u32 {
        bytes::u24_at(self.buffer.as_ref(), field::TARGET_QPN.start)
    }
    /// log2 of the max payload per packet.
    #[inline]
    pub fn mtu_log(&self) -> u8 {
        bytes::u8_at(self.buffer.as_ref(), field::MTU_LOG)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> OpenExt<T> {
    /// Sets the source connection id (low 24 bits).
    #[inline]
    pub fn set_scid(&mut self, v: u32) {
        bytes::set_u24(self.buffer.as_mut(), field::SCID.start, v)
    }
    /// Sets the window log.
    #[inline]
    pub fn set_wlog(&mut self, v: u8) {
        bytes::set_u8(self.buffer.as_mut(), field::WLOG, v)
    }
    /// Sets the ISN.
    #[inline]
    pub fn set_isn(&mut self, v: u32) {
        bytes::set_u32(self.buffer.as_mut(), field::ISN.start, v)
    }
    /// Sets the target QPN (low 24 bits).
    #[inline]
    pub fn set_target_qpn(&mut self, v: u32) {
        bytes::set_u24(self.buffer.as_mut(), field::TARGET_QPN.start, v)
    }
    /// Sets the MTU log.
    #[inline]
    pub fn set_mtu_log(&mut self, v: u8) {
        bytes::set_u8(self.buffer.as_mut(), field::MTU_LOG, v)
    }
}

/// High-level Open extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OpenRepr {
    /// Sender's connection id (24 bits, non-zero).
    pub scid: u32,
    /// Sender's receive window, log2 packets (8..=16).
    pub wlog: u8,
    /// Sender's initial PSN.
    pub isn: u32,
    /// Receiver's QP number (24 bits).
    pub target_qpn: u32,
    /// log2 of the sender's max payload per packet (9..=13).
    pub mtu_log: u8,
}

impl OpenRepr {
    /// Parses an Open extension; SCID 0, `wlog` outside 8..=16 or `mtu_log` outside 9..=13 is `Malformed`
    /// (MR-WIRE-29).
    #[inline(always)]
    pub fn parse<T: AsRef<[u8]> + ?Sized>(h: &OpenExt<&T>) -> Result<Self> {
        h.check_len()?;
        let (wlog, mtu_log) = (h.wlog(), h.mtu_log());
        let wlog_ok = (WLOG_MIN..=WLOG_MAX).contains(&wlog);
        let mtu_ok = (MTU_LOG_MIN..=MTU_LOG_MAX).contains(&mtu_log);
        if !wlog_ok || !mtu_ok || h.scid() == 0 {
            return Err(Error::Malformed);
        }
        Ok(Self {
            scid: h.scid(),
            wlog,
            isn: h.isn(),
            target_qpn: h.target_qpn(),
            mtu_log,
        })
    }

    /// Length (12).
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        field::HEADER_LEN
    }

    /// Writes all 12 bytes.
    #[inline]
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]> + ?Sized>(&self, h: &mut OpenExt<&mut T>) {
        h.set_scid(self.scid);
        h.set_wlog(self.wlog);
        h.set_isn(self.isn);
        h.set_target_qpn(self.target_qpn);
        h.set_mtu_log(self.mtu_log);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_enforced() {
        let r = OpenRepr {
            scid: 1,
            wlog: 8,
            isn: 2,
            target_qpn: 3,
            mtu_log: 13,
        };
        let mut b = [0u8; 12];
        r.emit(&mut OpenExt::new_unchecked(&mut b[..]));
        assert_eq!(OpenRepr::parse(&OpenExt::new_unchecked(&b[..])), Ok(r));
        for (i, v) in [(3usize, 7u8), (3, 17), (11, 8), (11, 14), (2, 0)] {
            let mut x = b;
            x[i] = v;
            assert_eq!(
                OpenRepr::parse(&OpenExt::new_unchecked(&x[..])),
                Err(Error::Malformed)
            );
        }
    }
}
