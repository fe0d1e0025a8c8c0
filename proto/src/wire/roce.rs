//! RoCEv2 (InfiniBand transport over UDP) headers for the baseline: BTH, RETH, AETH and ImmDt (spec 9;
//! spec 9.2, MR-ROCE-5..-8).

use super::{bytes, u8_enum, view, Result};

u8_enum!(
    /// The RC BTH opcodes the baseline uses (plus CNP). Others are not supported.
    RoceOpcode {
        /// RC SEND First.
        SendFirst = 0x00,
        /// RC SEND Middle.
        SendMiddle = 0x01,
        /// RC SEND Last.
        SendLast = 0x02,
        /// RC SEND Last with Immediate.
        SendLastImm = 0x03,
        /// RC SEND Only.
        SendOnly = 0x04,
        /// RC SEND Only with Immediate.
        SendOnlyImm = 0x05,
        /// RC RDMA WRITE First.
        WriteFirst = 0x06,
        /// RC RDMA WRITE Middle.
        WriteMiddle = 0x07,
        /// RC RDMA WRITE Last.
        WriteLast = 0x08,
        /// RC RDMA WRITE Last with Immediate.
        WriteLastImm = 0x09,
        /// RC RDMA WRITE Only.
        WriteOnly = 0x0A,
        /// RC RDMA WRITE Only with Immediate.
        WriteOnlyImm = 0x0B,
        /// RC RDMA READ Request.
        ReadRequest = 0x0C,
        /// RC RDMA READ Response First.
        ReadResponseFirst = 0x0D,
        /// RC RDMA READ Response Middle.
        ReadResponseMiddle = 0x0E,
        /// RC RDMA READ Response Last.
        ReadResponseLast = 0x0F,
        /// RC RDMA READ Response Only.
        ReadResponseOnly = 0x10,
        /// RC Acknowledge.
        Acknowledge = 0x11,
        /// Congestion notification packet (RoCEv2 annex A17).
        Cnp = 0x81,
        /// Any opcode the baseline does not use (answered with NAK invalid request, MR-ROCE-8); emitted as 0xFF.
        /// [`RoceOpcode::from_u8`] returns it only for 0xFF; [`RoceOpcode::from_wire`] maps every unused value
        /// to it.
        Other = 0xFF,
    }
);

impl RoceOpcode {
    /// The opcode of any wire byte: a used opcode, or [`RoceOpcode::Other`].
    #[inline]
    pub const fn from_wire(v: u8) -> Self {
        match Self::from_u8(v) {
            Some(op) => op,
            None => Self::Other,
        }
    }
}

impl RoceOpcode {
    /// True if a RETH follows the BTH.
    #[inline]
    pub const fn has_reth(self) -> bool {
        matches!(
            self,
            Self::WriteFirst | Self::WriteOnly | Self::WriteOnlyImm | Self::ReadRequest
        )
    }
    /// True if an AETH follows the BTH.
    #[inline]
    pub const fn has_aeth(self) -> bool {
        matches!(
            self,
            Self::ReadResponseFirst
                | Self::ReadResponseLast
                | Self::ReadResponseOnly
                | Self::Acknowledge
        )
    }
    /// True if an ImmDt follows the BTH (and RETH).
    #[inline]
    pub const fn has_imm(self) -> bool {
        matches!(
            self,
            Self::SendLastImm | Self::SendOnlyImm | Self::WriteLastImm | Self::WriteOnlyImm
        )
    }
    /// Length of the extension headers after the BTH.
    #[inline]
    pub const fn ext_len(self) -> usize {
        (if self.has_reth() {
            reth_field::HEADER_LEN
        } else {
            0
        }) + (if self.has_aeth() {
            aeth_field::HEADER_LEN
        } else {
            0
        }) + (if self.has_imm() {
            imm_field::HEADER_LEN
        } else {
            0
        })
    }
}

/// Byte offsets, masks and shifts of the BTH.
pub mod field {
    use crate::wire::Field;
    /// Opcode.
    pub const OPCODE: usize = 0;
    /// SE (bit 7), MigReq (bit 6), PadCnt (bits 5..4), TVer (bits 3..0).
    pub const FLAGS: usize = 1;
    /// Mask of SE in [`FLAGS`].
    pub const SE_MASK: u8 = 0x80;
    /// Shift of SE in [`FLAGS`].
    pub const SE_SHIFT: u32 = 7;
    /// Mask of MigReq in [`FLAGS`].
    pub const MIG_MASK: u8 = 0x40;
    /// Shift of MigReq in [`FLAGS`].
    pub const MIG_SHIFT: u32 = 6;
    /// Mask of PadCnt in [`FLAGS`].
    pub const PAD_MASK: u8 = 0x30;
    /// Shift of PadCnt in [`FLAGS`].
    pub const PAD_SHIFT: u32 = 4;
    /// Mask of TVer in [`FLAGS`].
    pub const TVER_MASK: u8 = 0x0F;
    /// Shift of TVer in [`FLAGS`].
    pub const TVER_SHIFT: u32 = 0;
    /// Partition key.
    pub const PKEY: Field = 2..4;
    /// FECN (bit 7), BECN (bit 6), reserved (bits 5..0). The ICRC masks this byte to 0xFF.
    pub const FECN_BECN: usize = 4;
    /// Mask of FECN in [`FECN_BECN`].
    pub const FECN_MASK: u8 = 0x80;
    /// Shift of FECN in [`FECN_BECN`].
    pub const FECN_SHIFT: u32 = 7;
    /// Mask of BECN in [`FECN_BECN`].
    pub const BECN_MASK: u8 = 0x40;
    /// Shift of BECN in [`FECN_BECN`].
    pub const BECN_SHIFT: u32 = 6;
    /// Mask of the reserved bits in [`FECN_BECN`].
    pub const RESV6_MASK: u8 = 0x3F;
    /// Destination QP, 24 bits.
    pub const DEST_QP: Field = 5..8;
    /// AckReq (bit 7) and reserved (bits 6..0).
    pub const ACKREQ: usize = 8;
    /// Mask of AckReq in [`ACKREQ`].
    pub const ACKREQ_MASK: u8 = 0x80;
    /// Shift of AckReq in [`ACKREQ`].
    pub const ACKREQ_SHIFT: u32 = 7;
    /// Mask of the reserved bits in [`ACKREQ`].
    pub const RESV7_MASK: u8 = 0x7F;
    /// PSN, 24 bits.
    pub const PSN: Field = 9..12;
    /// Length.
    pub const HEADER_LEN: usize = 12;
}

/// Byte offsets of the RETH.
pub mod reth_field {
    use crate::wire::Field;
    /// Virtual address.
    pub const VA: Field = 0..8;
    /// Remote key.
    pub const RKEY: Field = 8..12;
    /// DMA length.
    pub const DMA_LEN: Field = 12..16;
    /// Length.
    pub const HEADER_LEN: usize = 16;
}

/// Byte offsets of the AETH.
pub mod aeth_field {
    use crate::wire::Field;
    /// Syndrome.
    pub const SYNDROME: usize = 0;
    /// Message sequence number, 24 bits.
    pub const MSN: Field = 1..4;
    /// Length.
    pub const HEADER_LEN: usize = 4;
}

/// Byte offsets of the ImmDt header.
pub mod imm_field {
    use crate::wire::Field;
    /// Immediate data.
    pub const IMM: Field = 0..4;
    /// Length.
    pub const HEADER_LEN: usize = 4;
}

/// AETH syndromes used by the baseline.
pub mod syndrome {
    /// ACK (low 5 bits: credit count).
    pub const ACK: u8 = 0x00;
    /// ACK with the credit field "invalid" (no end-to-end credit), as the baseline sends it.
    pub const ACK_NO_CREDIT: u8 = 0x1F;
    /// RNR NAK (low 5 bits: timer).
    pub const RNR_NAK: u8 = 0x20;
    /// NAK: PSN sequence error.
    pub const NAK_PSN_SEQ_ERR: u8 = 0x60;
    /// NAK: invalid request.
    pub const NAK_INVALID_REQUEST: u8 = 0x61;
    /// NAK: remote access error.
    pub const NAK_REMOTE_ACCESS: u8 = 0x62;
    /// NAK: remote operational error.
    pub const NAK_REMOTE_OP_ERR: u8 = 0x63;
    /// Mask of the syndrome's type bits.
    pub const TYPE_MASK: u8 = 0x60;

    /// The InfiniBand RNR NAK timer table in µs, indexed by the 5-bit timer code: code 0 is 655.36 ms, codes 1..31
    /// are 0.01 ms .. 491.52 ms (MR-ROCE-21).
    pub const RNR_TIMER_US: [u32; 32] = [
        655_360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1_280, 1_920, 2_560,
        3_840, 5_120, 7_680, 10_240, 15_360, 20_480, 30_720, 40_960, 61_440, 81_920, 122_880,
        163_840, 245_760, 327_680, 491_520,
    ];

    /// The RNR timer code for a delay of `us` microseconds, rounded up to the next value of
    /// [`RNR_TIMER_US`] (MR-ROCE-21): the smallest of codes 1..=31 that is at least `us`, else code 0
    /// (655.36 ms, the longest), also for delays beyond it.
    pub const fn rnr_timer_code(us: u32) -> u8 {
        let mut c = 1;
        while c < 32 {
            if RNR_TIMER_US[c] >= us {
                return c as u8;
            }
            c += 1;
        }
        0
    }
}

view!(
    /// A view of the base transport header.
    Bth,
    field::HEADER_LEN
);

impl<T: AsRef<[u8]>> Bth<T> {
    #[inline]
    fn bits(&self, off: usize, mask: u8, shift: u32) -> u8 {
        (bytes::u8_at(self.buffer.as_ref(), off) & mask) >> shift
    }
    /// Raw opcode.
    #[inline]
    pub fn opcode(&self) -> u8 {
        bytes::u8_at(self.buffer.as_ref(), field::OPCODE)
    }
    /// Solicited event.
    #[inline]
    pub fn se(&self) -> bool {
        self.bits(field::FLAGS, field::SE_MASK, field::SE_SHIFT) != 0
    }
    /// MigReq.
    #[inline]
    pub fn mig_req(&self) -> bool {
        self.bits(field::FLAGS, field::MIG_MASK, field::MIG_SHIFT) != 0
    }
    /// Pad count (bytes of pad before the ICRC).
    #[inline]
    pub fn pad_cnt(&self) -> u8 {
        self.bits(field::FLAGS, field::PAD_MASK, field::PAD_SHIFT)
    }
    /// Transport header version.
    #[inline]
    pub fn tver(&self) -> u8 {
        self.bits(field::FLAGS, field::TVER_MASK, field::TVER_SHIFT)
    }
    /// Partition key.
    #[inline]
    pub fn pkey(&self) -> u16 {
        bytes::u16_at(self.buffer.as_ref(), field::PKEY.start)
    }
    /// FECN.
    #[inline]
    pub fn fecn(&self) -> bool {
        self.bits(field::FECN_BECN, field::FECN_MASK, field::FECN_SHIFT) != 0
    }
    /// BECN.
    #[inline]
    pub fn becn(&self) -> bool {
        self.bits(field::FECN_BECN, field::BECN_MASK, field::BECN_SHIFT) != 0
    }
    /// Destination QP.
    #[inline]
    pub fn dest_qp(&self) -> u32 {
        bytes::u24_at(self.buffer.as_ref(), field::DEST_QP.start)
    }
    /// AckReq.
    #[inline]
    pub fn ack_req(&self) -> bool {
        self.bits(field::ACKREQ, field::ACKREQ_MASK, field::ACKREQ_SHIFT) != 0
    }
    /// PSN (24 bits).
    #[inline]
    pub fn psn(&self) -> u32 {
        bytes::u24_at(self.buffer.as_ref(), field::PSN.start)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Bth<T> {
    #[inline]
    fn set_bits(&mut self, off: usize, mask: u8, shift: u32, v: u8) {
        bytes::set_bits(self.buffer.as_mut(), off, mask, shift, v)
    }
    /// Sets the opcode byte.
    #[inline]
    pub fn set_opcode(&mut self, v: u8) {
        bytes::set_u8(self.buffer.as_mut(), field::OPCODE, v)
    }
    /// Sets SE.
    #[inline]
    pub fn set_se(&mut self, v: bool) {
        self.set_bits(field::FLAGS, field::SE_MASK, field::SE_SHIFT, v.into())
    }
    /// Sets MigReq.
    #[inline]
    pub fn set_mig_req(&mut self, v: bool) {
        self.set_bits(field::FLAGS, field::MIG_MASK, field::MIG_SHIFT, v.into())
    }
    /// Sets the pad count.
    #[inline]
    pub fn set_pad_cnt(&mut self, v: u8) {
        self.set_bits(field::FLAGS, field::PAD_MASK, field::PAD_SHIFT, v)
    }
    /// Sets TVer.
    #[inline]
    pub fn set_tver(&mut self, v: u8) {
        self.set_bits(field::FLAGS, field::TVER_MASK, field::TVER_SHIFT, v)
    }
    /// Sets the partition key.
    #[inline]
    pub fn set_pkey(&mut self, v: u16) {
        bytes::set_u16(self.buffer.as_mut(), field::PKEY.start, v)
    }
    /// Sets FECN.
    #[inline]
    pub fn set_fecn(&mut self, v: bool) {
        self.set_bits(
            field::FECN_BECN,
            field::FECN_MASK,
            field::FECN_SHIFT,
            v.into(),
        )
    }
    /// Sets BECN.
    #[inline]
    pub fn set_becn(&mut self, v: bool) {
        self.set_bits(
            field::FECN_BECN,
            field::BECN_MASK,
            field::BECN_SHIFT,
            v.into(),
        )
    }
    /// Sets the destination QP (low 24 bits).
    #[inline]
    pub fn set_dest_qp(&mut self, v: u32) {
        bytes::set_u24(self.buffer.as_mut(), field::DEST_QP.start, v)
    }
    /// Sets AckReq.
    #[inline]
    pub fn set_ack_req(&mut self, v: bool) {
        self.set_bits(
            field::ACKREQ,
            field::ACKREQ_MASK,
            field::ACKREQ_SHIFT,
            v.into(),
        )
    }
    /// Sets the PSN (low 24 bits).
    #[inline]
    pub fn set_psn(&mut self, v: u32) {
        bytes::set_u24(self.buffer.as_mut(), field::PSN.start, v)
    }
}

/// High-level BTH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BthRepr {
    /// Opcode.
    pub opcode: RoceOpcode,
    /// Solicited event.
    pub se: bool,
    /// MigReq (the baseline sends 1, as RC QPs in the migrated state do).
    pub mig_req: bool,
    /// Pad count (derived from the payload length by [`crate::wire::roce_packet::emit_roce_frame`]).
    pub pad_cnt: u8,
    /// Transport header version (0).
    pub tver: u8,
    /// Partition key (0xFFFF default).
    pub pkey: u16,
    /// FECN.
    pub fecn: bool,
    /// BECN.
    pub becn: bool,
    /// Destination QP (24 bits).
    pub dest_qp: u32,
    /// AckReq.
    pub ack_req: bool,
    /// PSN (24 bits).
    pub psn: u32,
}

impl BthRepr {
    /// Parses a BTH; an opcode the baseline does not use parses as [`RoceOpcode::Other`] (the receiver answers
    /// it with a NAK, MR-ROCE-8). Reserved bits are ignored (MR-ROCE-7).
    pub fn parse<T: AsRef<[u8]> + ?Sized>(h: &Bth<&T>) -> Result<Self> {
        h.check_len()?;
        let opcode = RoceOpcode::from_wire(h.opcode());
        Ok(Self {
            opcode,
            se: h.se(),
            mig_req: h.mig_req(),
            pad_cnt: h.pad_cnt(),
            tver: h.tver(),
            pkey: h.pkey(),
            fecn: h.fecn(),
            becn: h.becn(),
            dest_qp: h.dest_qp(),
            ack_req: h.ack_req(),
            psn: h.psn(),
        })
    }

    /// Length (12).
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        field::HEADER_LEN
    }

    /// Writes all 12 bytes (reserved bits 0).
    #[inline]
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]> + ?Sized>(&self, h: &mut Bth<&mut T>) {
        let d = h.buffer.as_mut();
        bytes::set_u8(d, field::OPCODE, self.opcode as u8);
        let f = (u8::from(self.se) << field::SE_SHIFT)
            | (u8::from(self.mig_req) << field::MIG_SHIFT)
            | ((self.pad_cnt << field::PAD_SHIFT) & field::PAD_MASK)
            | ((self.tver << field::TVER_SHIFT) & field::TVER_MASK);
        bytes::set_u8(d, field::FLAGS, f);
        bytes::set_u16(d, field::PKEY.start, self.pkey);
        let fb =
            (u8::from(self.fecn) << field::FECN_SHIFT) | (u8::from(self.becn) << field::BECN_SHIFT);
        bytes::set_u8(d, field::FECN_BECN, fb);
        bytes::set_u24(d, field::DEST_QP.start, self.dest_qp);
        bytes::set_u8(
            d,
            field::ACKREQ,
            u8::from(self.ack_req) << field::ACKREQ_SHIFT,
        );
        bytes::set_u24(d, field::PSN.start, self.psn);
    }
}

view!(
    /// A view of the RDMA extended transport header.
    Reth,
    reth_field::HEADER_LEN
);

impl<T: AsRef<[u8]>> Reth<T> {
    /// Virtual address.
    #[inline]
    pub fn va(&self) -> u64 {
        bytes::u64_at(self.buffer.as_ref(), reth_field::VA.start)
    }
    /// Remote key.
    #[inline]
    pub fn rkey(&self) -> u32 {
        bytes::u32_at(self.buffer.as_ref(), reth_field::RKEY.start)
    }
    /// DMA length.
    #[inline]
    pub fn dma_len(&self) -> u32 {
        bytes::u32_at(self.buffer.as_ref(), reth_field::DMA_LEN.start)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Reth<T> {
    /// Sets the virtual address.
    #[inline]
    pub fn set_va(&mut self, v: u64) {
        bytes::set_u64(self.buffer.as_mut(), reth_field::VA.start, v)
    }
    /// Sets the remote key.
    #[inline]
    pub fn set_rkey(&mut self, v: u32) {
        bytes::set_u32(self.buffer.as_mut(), reth_field::RKEY.start, v)
    }
    /// Sets the DMA length.
    #[inline]
    pub fn set_dma_len(&mut self, v: u32) {
        bytes::set_u32(self.buffer.as_mut(), reth_field::DMA_LEN.start, v)
    }
}

/// High-level RETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RethRepr {
    /// Virtual address.
    pub va: u64,
    /// Remote key.
    pub rkey: u32,
    /// DMA length.
    pub dma_len: u32,
}

impl RethRepr {
    /// Parses a RETH.
    pub fn parse<T: AsRef<[u8]> + ?Sized>(h: &Reth<&T>) -> Result<Self> {
        h.check_len()?;
        Ok(Self {
            va: h.va(),
            rkey: h.rkey(),
            dma_len: h.dma_len(),
        })
    }
    /// Length (16).
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        reth_field::HEADER_LEN
    }
    /// Writes all 16 bytes.
    #[inline]
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]> + ?Sized>(&self, h: &mut Reth<&mut T>) {
        h.set_va(self.va);
        h.set_rkey(self.rkey);
        h.set_dma_len(self.dma_len);
    }
}

view!(
    /// A view of the ACK extended transport header.
    Aeth,
    aeth_field::HEADER_LEN
);

impl<T: AsRef<[u8]>> Aeth<T> {
    /// Syndrome.
    #[inline]
    pub fn syndrome(&self) -> u8 {
        bytes::u8_at(self.buffer.as_ref(), aeth_field::SYNDROME)
    }
    /// MSN (24 bits).
    #[inline]
    pub fn msn(&self) -> u32 {
        bytes::u24_at(self.buffer.as_ref(), aeth_field::MSN.start)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Aeth<T> {
    /// Sets the syndrome.
    #[inline]
    pub fn set_syndrome(&mut self, v: u8) {
        bytes::set_u8(self.buffer.as_mut(), aeth_field::SYNDROME, v)
    }
    /// Sets the MSN (low 24 bits).
    #[inline]
    pub fn set_msn(&mut self, v: u32) {
        bytes::set_u24(self.buffer.as_mut(), aeth_field::MSN.start, v)
    }
}

/// High-level AETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AethRepr {
    /// Syndrome (see [`syndrome`]).
    pub syndrome: u8,
    /// MSN (24 bits).
    pub msn: u32,
}

impl AethRepr {
    /// Parses an AETH.
    pub fn parse<T: AsRef<[u8]> + ?Sized>(h: &Aeth<&T>) -> Result<Self> {
        h.check_len()?;
        Ok(Self {
            syndrome: h.syndrome(),
            msn: h.msn(),
        })
    }
    /// Length (4).
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        aeth_field::HEADER_LEN
    }
    /// Writes all 4 bytes.
    #[inline]
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]> + ?Sized>(&self, h: &mut Aeth<&mut T>) {
        h.set_syndrome(self.syndrome);
        h.set_msn(self.msn);
    }
}

view!(
    /// A view of the immediate-data header.
    ImmDt,
    imm_field::HEADER_LEN
);

impl<T: AsRef<[u8]>> ImmDt<T> {
    /// Immediate data.
    #[inline]
    pub fn imm(&self) -> u32 {
        bytes::u32_at(self.buffer.as_ref(), imm_field::IMM.start)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> ImmDt<T> {
    /// Sets the immediate data.
    #[inline]
    pub fn set_imm(&mut self, v: u32) {
        bytes::set_u32(self.buffer.as_mut(), imm_field::IMM.start, v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcode_ext_headers() {
        assert_eq!(RoceOpcode::WriteOnlyImm.ext_len(), 20);
        assert_eq!(RoceOpcode::WriteFirst.ext_len(), 16);
        assert_eq!(RoceOpcode::Acknowledge.ext_len(), 4);
        assert_eq!(RoceOpcode::SendMiddle.ext_len(), 0);
        assert_eq!(RoceOpcode::SendLastImm.ext_len(), 4);
        assert_eq!(RoceOpcode::ReadRequest.ext_len(), 16);
        assert_eq!(RoceOpcode::Cnp.ext_len(), 0);
        assert_eq!(RoceOpcode::from_u8(0x12), None);
        assert_eq!(RoceOpcode::from_wire(0x12), RoceOpcode::Other);
        assert_eq!(RoceOpcode::from_wire(0x81), RoceOpcode::Cnp);
        assert_eq!(RoceOpcode::Other.ext_len(), 0);
        let mut b = [0u8; 12];
        b[0] = 0x64; // a UD opcode
        let r = BthRepr::parse(&Bth::new_unchecked(&b[..]));
        assert_eq!(r.map(|r| r.opcode), Ok(RoceOpcode::Other));
    }

    #[test]
    fn bth_bits() {
        let mut h = Bth::new_unchecked([0u8; 12]);
        h.set_pad_cnt(3);
        h.set_becn(true);
        h.set_ack_req(true);
        h.set_psn(0xFF_FFFF);
        assert_eq!(
            h.as_ref(),
            &[0, 0x30, 0, 0, 0x40, 0, 0, 0, 0x80, 0xFF, 0xFF, 0xFF]
        );
        assert!(h.becn() && !h.fecn() && h.ack_req() && h.pad_cnt() == 3);
    }
}
