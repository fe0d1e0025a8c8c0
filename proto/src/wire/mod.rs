//! Wire formats: typed views over bytes and high-level representations of every header MetaRoCE and its RoCEv2
//! baseline put on the wire (MR-ENC-*, MR-WIRE-*).
//!
//! Each header module `x` follows one pattern:
//!
//! * `x::field`: the byte offsets of every field (`Field` ranges and single-byte offsets, plus masks and shifts
//!   for sub-byte fields). This is the one place a layout is written down; [`layout`] republishes it as
//!   data for the HDL, dissector and documentation generators.
//! * a view `X<T: AsRef<[u8]>>` with `new_unchecked`, `new_checked` (length-checked, for untrusted input),
//!   `check_len`, getters and (under `T: AsMut<[u8]>`) setters. Views never panic: a getter whose bytes lie
//!   beyond the buffer reads zeros and such a setter writes nothing, so use `new_checked` on untrusted input.
//! * a representation `XRepr` with `parse`, `buffer_len` and `emit`.
//!
//! [`packet`] assembles whole MetaRoCE frames (Ethernet .. ICV), [`roce_packet`] whole RoCEv2 frames, and
//! [`crc`] holds the CRC-32 used by both integrity checks.

use core::fmt;

pub mod ack;
pub mod crc;
pub mod ctrl;
pub mod data;
pub mod ethernet;
pub mod fabric;
pub mod ipv4;
pub mod ipv6;
pub mod layout;
pub mod mbh;
pub mod nack;
pub mod open;
pub mod packet;
pub mod roce;
pub mod roce_packet;
pub mod udp;

pub use ack::{sack_base, AckFlags, AckHeader, AckRepr, SackBitmap};
pub use crc::{crc32, Crc32};
pub use ctrl::{CtrlCode, CtrlHeader, CtrlRepr};
pub use data::{DataFlags, DataHeader, DataRepr, Opcode};
pub use ethernet::{EtherType, EthernetFrame, EthernetRepr};
pub use ipv4::{Ipv4Packet, Ipv4Repr};
pub use ipv6::{Ipv6Packet, Ipv6Repr};
pub use mbh::{MbhFlags, MbhHeader, MbhRepr, PacketType};
pub use nack::{NackCode, NackHeader, NackRepr};
pub use open::{OpenExt, OpenRepr};
pub use packet::{
    emit_frame, emit_headers, finish_icv, parse_frame, IpRepr, MetaRoceRepr, ParsedFrame, TypeRepr,
    L2L3,
};
pub use roce::{Aeth, AethRepr, Bth, BthRepr, ImmDt, Reth, RethRepr, RoceOpcode};
pub use roce_packet::{emit_roce_frame, parse_roce_frame, ParsedRoceFrame, RoceRepr};
pub use udp::{UdpPacket, UdpRepr};

/// A field of a header: a range of byte offsets from the start of that header.
pub type Field = core::ops::Range<usize>;

/// The bytes from an offset to the end of a buffer.
pub type Rest = core::ops::RangeFrom<usize>;

/// Default MetaRoCE UDP destination port (MR-ENC-15). Not IANA-assigned; distinct from RoCEv2 (4791) and
/// UET (4793).
pub const DEFAULT_UDP_PORT: u16 = 4792;

/// RoCEv2 UDP destination port.
pub const ROCE_UDP_PORT: u16 = 4791;

/// The ECN codepoint every MetaRoCE packet is sent with: ECT(0) (MR-ENC-22).
pub const ECN_ECT0: u8 = 0b10;

/// The ECN codepoint a congested switch writes: CE.
pub const ECN_CE: u8 = 0b11;

/// Default DSCP of DATA packets (MR-ENC-21).
pub const DEFAULT_DSCP_DATA: u8 = 26;

/// Default DSCP of control, ACK and NACK packets (MR-ENC-21).
pub const DEFAULT_DSCP_CTRL: u8 = 46;

/// Default DSCP a trimming switch writes into a trimmed packet (MR-ENC-28).
pub const DEFAULT_DSCP_TRIM: u8 = 10;

/// Why bytes could not be parsed or emitted. Small and `Copy` so that a receiver can count drops by reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Error {
    /// The buffer ends before the header (or a length it declares) does.
    Truncated,
    /// MetaRoCE version other than 1, or an IP version that does not match the ethertype.
    BadVersion,
    /// A reserved MetaRoCE packet type (0, 5..=15).
    BadType,
    /// Inconsistent length fields (hlen, payload_len, IP/UDP lengths) or a length that does not fit a field.
    BadLength,
    /// The IPv4 header checksum is wrong.
    BadChecksum,
    /// A well-formed value this version does not support: IPv4 options or fragments, IPv6 extension headers,
    /// reserved opcodes and codes.
    Unsupported,
    /// A field holds a value the format forbids: an Open extension with SCID 0 or a window or MTU out of range,
    /// SYN where it is not allowed, a CTRL OPEN without SYN (MR-WIRE-14, -29, -39).
    Malformed,
    /// Not a packet of this protocol: another ethertype, IP protocol or UDP destination port.
    NotOurs,
    /// A trimmed packet that cannot be NACKed: not DATA, or DATA with DCID 0 (MR-ENC-35, MR-ENC-36).
    BadTrim,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Error::Truncated => "truncated",
            Error::BadVersion => "bad version",
            Error::BadType => "reserved packet type",
            Error::BadLength => "inconsistent length",
            Error::BadChecksum => "bad checksum",
            Error::Unsupported => "unsupported",
            Error::Malformed => "malformed field",
            Error::NotOurs => "not a packet of this protocol",
            Error::BadTrim => "trimmed packet without a usable base header",
        };
        f.write_str(s)
    }
}

/// The result type of the wire layer.
pub type Result<T> = core::result::Result<T, Error>;

/// Non-panicking big-endian accessors shared by the views. Out-of-range reads give zeros, out-of-range writes
/// are dropped; views check lengths up front with `check_len`, so these never lose data on checked views.
pub(crate) mod bytes {
    /// `N` bytes at `off`, or zeros if the buffer is too short.
    #[inline(always)]
    pub(crate) fn get<const N: usize>(d: &[u8], off: usize) -> [u8; N] {
        match d.get(off..off.saturating_add(N)) {
            Some(s) => {
                let mut a = [0u8; N];
                a.copy_from_slice(s);
                a
            }
            None => [0u8; N],
        }
    }

    /// Writes `v` at `off` if the buffer is long enough.
    #[inline(always)]
    pub(crate) fn put<const N: usize>(d: &mut [u8], off: usize, v: [u8; N]) {
        if let Some(s) = d.get_mut(off..off.saturating_add(N)) {
            s.copy_from_slice(&v);
        }
    }

    #[inline(always)]
    pub(crate) fn u8_at(d: &[u8], off: usize) -> u8 {
        d.get(off).copied().unwrap_or(0)
    }

    #[inline(always)]
    pub(crate) fn set_u8(d: &mut [u8], off: usize, v: u8) {
        if let Some(b) = d.get_mut(off) {
            *b = v;
        }
    }

    /// Replaces the bits of `mask` in byte `off` with `v << shift` (masked).
    #[inline(always)]
    pub(crate) fn set_bits(d: &mut [u8], off: usize, mask: u8, shift: u32, v: u8) {
        if let Some(b) = d.get_mut(off) {
            *b = (*b & !mask) | ((v << shift) & mask);
        }
    }

    #[inline(always)]
    pub(crate) fn u16_at(d: &[u8], off: usize) -> u16 {
        u16::from_be_bytes(get(d, off))
    }

    #[inline(always)]
    pub(crate) fn set_u16(d: &mut [u8], off: usize, v: u16) {
        put(d, off, v.to_be_bytes())
    }

    /// A 24-bit big-endian value.
    #[inline(always)]
    pub(crate) fn u24_at(d: &[u8], off: usize) -> u32 {
        let [a, b, c] = get::<3>(d, off);
        u32::from_be_bytes([0, a, b, c])
    }

    /// Writes the low 24 bits of `v` big-endian.
    #[inline(always)]
    pub(crate) fn set_u24(d: &mut [u8], off: usize, v: u32) {
        let [_, a, b, c] = v.to_be_bytes();
        put(d, off, [a, b, c])
    }

    #[inline(always)]
    pub(crate) fn u32_at(d: &[u8], off: usize) -> u32 {
        u32::from_be_bytes(get(d, off))
    }

    #[inline(always)]
    pub(crate) fn set_u32(d: &mut [u8], off: usize, v: u32) {
        put(d, off, v.to_be_bytes())
    }

    #[inline(always)]
    pub(crate) fn u64_at(d: &[u8], off: usize) -> u64 {
        u64::from_be_bytes(get(d, off))
    }

    #[inline(always)]
    pub(crate) fn set_u64(d: &mut [u8], off: usize, v: u64) {
        put(d, off, v.to_be_bytes())
    }

    /// The bytes from `off` to `end` (clamped to the buffer), empty if `off` is beyond it.
    #[inline(always)]
    pub(crate) fn slice(d: &[u8], off: usize, end: usize) -> &[u8] {
        let end = end.min(d.len());
        d.get(off..end).unwrap_or(&[])
    }

    /// Mutable version of [`slice`].
    #[inline(always)]
    pub(crate) fn slice_mut(d: &mut [u8], off: usize, end: usize) -> &mut [u8] {
        let end = end.min(d.len());
        d.get_mut(off..end).unwrap_or(&mut [])
    }
}

/// Defines a view struct over a buffer with the standard constructors. `$len` is the fixed header length.
macro_rules! view {
    ($(#[$m:meta])* $name:ident, $len:expr) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct $name<T: AsRef<[u8]>> {
            buffer: T,
        }

        impl<T: AsRef<[u8]>> $name<T> {
            /// The fixed length of this header in bytes.
            pub const LEN: usize = $len;

            /// Wraps a buffer without checking its length (getters then read zeros past its end).
            #[inline]
            pub const fn new_unchecked(buffer: T) -> Self {
                Self { buffer }
            }

            /// Wraps a buffer after checking it holds the whole header.
            #[inline]
            pub fn new_checked(buffer: T) -> $crate::wire::Result<Self> {
                let v = Self::new_unchecked(buffer);
                v.check_len()?;
                Ok(v)
            }

            /// `Err(Truncated)` if the buffer is shorter than the header.
            #[inline]
            pub fn check_len(&self) -> $crate::wire::Result<()> {
                if self.buffer.as_ref().len() < Self::LEN {
                    Err($crate::wire::Error::Truncated)
                } else {
                    Ok(())
                }
            }

            /// Gives the buffer back.
            #[inline]
            pub fn into_inner(self) -> T {
                self.buffer
            }

            /// The bytes after this header.
            #[inline]
            pub fn payload(&self) -> &[u8] {
                let d = self.buffer.as_ref();
                $crate::wire::bytes::slice(d, Self::LEN, d.len())
            }
        }

        impl<T: AsRef<[u8]> + AsMut<[u8]>> $name<T> {
            /// The bytes after this header, mutably.
            #[inline]
            pub fn payload_mut(&mut self) -> &mut [u8] {
                let d = self.buffer.as_mut();
                let n = d.len();
                $crate::wire::bytes::slice_mut(d, Self::LEN, n)
            }
        }

        impl<T: AsRef<[u8]>> AsRef<[u8]> for $name<T> {
            fn as_ref(&self) -> &[u8] {
                self.buffer.as_ref()
            }
        }
    };
}
pub(crate) use view;

/// Defines a `#[repr(u8)]` enum with `from_u8`, `TryFrom<u8>` (error [`Error::Unsupported`]) and `From<X> for u8`.
macro_rules! u8_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident = $n:expr),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum $name {
            $($(#[$vm])* $v = $n),+
        }

        impl $name {
            /// The enum value of a wire byte, `None` for reserved values.
            #[inline]
            pub const fn from_u8(v: u8) -> Option<Self> {
                match v {
                    $($n => Some(Self::$v),)+
                    _ => None,
                }
            }
        }

        impl TryFrom<u8> for $name {
            type Error = $crate::wire::Error;
            #[inline]
            fn try_from(v: u8) -> $crate::wire::Result<Self> {
                Self::from_u8(v).ok_or($crate::wire::Error::Unsupported)
            }
        }

        impl From<$name> for u8 {
            #[inline]
            fn from(v: $name) -> u8 {
                v as u8
            }
        }
    };
}
pub(crate) use u8_enum;

/// Defines a flag-set newtype over `u8` with named constants, `contains`, `set` and bit operators.
macro_rules! flags_u8 {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident = $n:expr),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name(pub u8);

        impl $name {
            $($(#[$vm])* pub const $v: Self = Self($n);)+
            /// No flag set.
            pub const EMPTY: Self = Self(0);
            /// Every defined flag; the other bits are reserved.
            pub const ALL: Self = Self(0 $(| $n)+);

            /// The raw byte.
            #[inline]
            pub const fn bits(self) -> u8 {
                self.0
            }

            /// True if every flag of `other` is set.
            #[inline]
            pub const fn contains(self, other: Self) -> bool {
                self.0 & other.0 == other.0
            }

            /// Sets or clears the flags of `other`.
            #[inline]
            pub fn set(&mut self, other: Self, on: bool) {
                if on {
                    self.0 |= other.0
                } else {
                    self.0 &= !other.0
                }
            }

            /// Only the defined flags (reserved bits cleared).
            #[inline]
            pub const fn defined(self) -> Self {
                Self(self.0 & Self::ALL.0)
            }
        }

        impl core::ops::BitOr for $name {
            type Output = Self;
            #[inline]
            fn bitor(self, o: Self) -> Self {
                Self(self.0 | o.0)
            }
        }

        impl core::ops::BitOrAssign for $name {
            #[inline]
            fn bitor_assign(&mut self, o: Self) {
                self.0 |= o.0
            }
        }

        impl core::ops::BitAnd for $name {
            type Output = Self;
            #[inline]
            fn bitand(self, o: Self) -> Self {
                Self(self.0 & o.0)
            }
        }
    };
}
pub(crate) use flags_u8;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_helpers_never_panic() {
        let mut b = [1u8, 2, 3];
        assert_eq!(bytes::u32_at(&b, 0), 0);
        assert_eq!(bytes::u16_at(&b, 1), 0x0203);
        assert_eq!(bytes::u24_at(&b, 0), 0x010203);
        assert_eq!(bytes::u64_at(&b, usize::MAX), 0);
        bytes::set_u32(&mut b, 1, 0xFFFF_FFFF);
        assert_eq!(b, [1, 2, 3]);
        bytes::set_u24(&mut b, 0, 0xAABBCC);
        assert_eq!(b, [0xAA, 0xBB, 0xCC]);
        assert_eq!(bytes::slice(&b, 5, 2), &[] as &[u8]);
        assert_eq!(bytes::slice(&b, 1, 9), &[0xBB, 0xCC]);
    }

    #[test]
    fn error_display() {
        extern crate alloc;
        use alloc::string::ToString;
        assert_eq!(Error::BadChecksum.to_string(), "bad checksum");
    }
}
