//! Transmit plans: a packet's headers plus a reference to its payload in memory (no copy), so that a NIC model
//! (or the RTL) can DMA the payload itself. [`TransmitPlan::emit`] turns a plan into a frame.

use super::memory::Memory;
use super::verbs::Qpn;
use crate::wire;
use crate::wire::packet::{MetaRoceRepr, L2L3};
use crate::wire::roce_packet::RoceRepr;
use alloc::vec::Vec;

/// The transport headers of a planned frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanHeaders {
    /// A MetaRoCE packet.
    MetaRoce(MetaRoceRepr),
    /// A RoCEv2 packet.
    RoceV2(RoceRepr),
}

/// One frame to transmit: headers and where its payload lies in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransmitPlan {
    /// The QP the frame belongs to (0 for endpoint-level control frames).
    pub qpn: Qpn,
    /// Layers 2 to 4.
    pub l: L2L3,
    /// Transport headers.
    pub headers: PlanHeaders,
    /// Payload start address in the endpoint's memory.
    pub payload_addr: u64,
    /// Payload length.
    pub payload_len: u32,
    /// The payload is `payload_len` zero bytes, not read from memory (the reserved bytes of a RoCEv2 CNP,
    /// MR-ROCE-26); `payload_addr` is then unused.
    pub zero_payload: bool,
}

impl TransmitPlan {
    /// Length of the whole frame in bytes.
    #[inline]
    pub fn frame_len(&self) -> usize {
        match &self.headers {
            PlanHeaders::MetaRoce(m) => {
                wire::packet::frame_len(&self.l, m, self.payload_len as usize)
            }
            PlanHeaders::RoceV2(r) => {
                wire::roce_packet::roce_frame_len(&self.l, r, self.payload_len as usize)
            }
        }
    }

    /// Writes the payload into `dst` (zeros for a zero-fill plan, else read from `mem`).
    #[inline]
    fn fill_payload<M: Memory + ?Sized>(
        &self,
        mem: &M,
        dst: Option<&mut [u8]>,
    ) -> wire::Result<()> {
        if self.payload_len == 0 {
            return Ok(());
        }
        let dst = dst.ok_or(wire::Error::Truncated)?;
        if self.zero_payload {
            dst.fill(0);
        } else {
            mem.read(self.payload_addr, dst);
        }
        Ok(())
    }

    /// Writes the whole frame into `buf` (cleared first): headers, the payload read from `mem`, and the
    /// ICV/ICRC. Returns the frame length.
    pub fn emit<M: Memory + ?Sized>(&self, mem: &M, buf: &mut Vec<u8>) -> wire::Result<usize> {
        let plen = self.payload_len as usize;
        buf.clear();
        buf.resize(self.frame_len(), 0);
        let n = match &self.headers {
            PlanHeaders::MetaRoce(m) => {
                let h = wire::packet::emit_headers(&self.l, m, plen, buf)?;
                self.fill_payload(mem, buf.get_mut(h..h + plen))?;
                wire::packet::finish_icv(buf, h, plen)?
            }
            PlanHeaders::RoceV2(r) => {
                let h = wire::roce_packet::emit_roce_headers(&self.l, r, plen, buf)?;
                self.fill_payload(mem, buf.get_mut(h..h + plen))?;
                wire::roce_packet::finish_icrc(buf, h, plen)?
            }
        };
        buf.truncate(n);
        Ok(n)
    }
}
