//! Packets in flight, kept in an arena and referred to by `u32` index, so that events and queues stay small
//! and nothing is allocated per packet once the arena has grown to the run's peak.
//!
//! Without `verify_data` a packet carries only its header bytes (at most [`HDR_CAP`]) and its frame length:
//! payload bytes are never materialized. With `verify_data` the whole frame (payload and ICV) is kept in a
//! per-slot buffer whose capacity is reused by later packets.

use metaroce_proto::wire::fabric;

/// Largest header a packet carries inline: Ethernet + one 802.1Q tag + IPv6 + UDP + the largest MetaRoCE
/// header (MBH 16 + ACK 48 + Open extension 12) rounded up.
pub const HDR_CAP: usize = 160;

/// Queue class of a packet in a switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// ACK/NACK/CTRL, RoCEv2 ACK/CNP and trimmed headers: strict priority, never paused.
    Control,
    /// Data: the class that ECN marks, trims, drops and PFC pauses.
    Data,
}

/// One packet.
#[derive(Debug, Clone)]
pub struct Pkt {
    /// Header bytes (`hdr[..hdr_len]`); with `verify_data` the whole frame is kept by the arena instead.
    pub hdr: [u8; HDR_CAP],
    /// Valid header bytes.
    pub hdr_len: u16,
    /// Frame length (without FCS).
    pub frame_len: u16,
    /// Sending host.
    pub src: u32,
    /// Destination host.
    pub dst: u32,
    /// Queue class.
    pub class: Class,
    /// A MetaRoCE DATA packet with payload (trim-eligible).
    pub trimmable: bool,
    /// Recorded by the capture.
    pub capture: bool,
}

impl Pkt {
    fn empty() -> Pkt {
        Pkt {
            hdr: [0; HDR_CAP],
            hdr_len: 0,
            frame_len: 0,
            src: 0,
            dst: 0,
            class: Class::Data,
            trimmable: false,
            capture: false,
        }
    }
}

/// The arena.
#[derive(Debug, Default)]
pub struct Arena {
    pkts: Vec<Pkt>,
    full: Vec<Vec<u8>>,
    free: Vec<u32>,
    live: u32,
    peak: u32,
    verify: bool,
}

impl Arena {
    /// An empty arena; `verify` keeps whole frames.
    pub fn new(verify: bool) -> Arena {
        Arena {
            verify,
            ..Default::default()
        }
    }

    /// A fresh packet slot (contents stale: the caller sets every field).
    pub fn alloc(&mut self) -> u32 {
        self.live += 1;
        self.peak = self.peak.max(self.live);
        if let Some(i) = self.free.pop() {
            return i;
        }
        self.pkts.push(Pkt::empty());
        if self.verify {
            self.full.push(Vec::new());
        }
        self.pkts.len() as u32 - 1
    }

    /// Releases a slot.
    pub fn release(&mut self, id: u32) {
        self.live -= 1;
        self.free.push(id);
    }

    /// The packet.
    #[inline]
    pub fn get(&self, id: u32) -> &Pkt {
        &self.pkts[id as usize]
    }

    /// The packet, mutably.
    #[inline]
    pub fn get_mut(&mut self, id: u32) -> &mut Pkt {
        &mut self.pkts[id as usize]
    }

    /// The packet and its whole-frame buffer (`verify_data` only; `None` otherwise).
    pub fn get_full_mut(&mut self, id: u32) -> (&mut Pkt, Option<&mut Vec<u8>>) {
        (&mut self.pkts[id as usize], self.full.get_mut(id as usize))
    }

    /// The bytes switches operate on: the whole frame with `verify_data`, else the headers.
    pub fn bytes(&self, id: u32) -> &[u8] {
        if self.verify {
            &self.full[id as usize]
        } else {
            let p = &self.pkts[id as usize];
            &p.hdr[..usize::from(p.hdr_len)]
        }
    }

    /// ECMP hash of the packet's 5-tuple with `salt` (0 if it is not IP/UDP).
    pub fn hash(&self, id: u32, salt: u64) -> u64 {
        let b = self.bytes(id);
        match fabric::parse_info(b) {
            Some(i) => fabric::ecmp_hash(b, &i, salt),
            None => 0,
        }
    }

    /// Marks the packet CE if it is ECN-capable; true if marked.
    pub fn mark_ce(&mut self, id: u32) -> bool {
        let b = self.bytes_mut_only(id);
        match fabric::parse_info(b) {
            Some(mut i) => fabric::mark_ce(b, &mut i),
            None => false,
        }
    }

    /// Trims the packet to its base header (MR-ENC trimming); true if trimmed.
    pub fn trim(&mut self, id: u32, dscp_trim: u8) -> bool {
        let len = usize::from(self.pkts[id as usize].frame_len);
        let b = self.bytes_mut_only(id);
        let Some(mut i) = fabric::parse_info(b) else {
            return false;
        };
        let Some(n) = fabric::trim_frame(b, len, &mut i, fabric::DEFAULT_TRIM_KEEP, dscp_trim)
        else {
            return false;
        };
        let p = &mut self.pkts[id as usize];
        p.frame_len = n as u16;
        p.hdr_len = p.hdr_len.min(n as u16);
        if self.verify {
            self.full[id as usize].truncate(n);
        }
        true
    }

    fn bytes_mut_only(&mut self, id: u32) -> &mut [u8] {
        if self.verify {
            self.full[id as usize].as_mut_slice()
        } else {
            let p = &mut self.pkts[id as usize];
            let n = usize::from(p.hdr_len);
            &mut p.hdr[..n]
        }
    }

    /// Packets alive now.
    pub fn live(&self) -> u32 {
        self.live
    }

    /// Most packets alive at once.
    pub fn peak(&self) -> u32 {
        self.peak
    }

    /// Whether whole frames are kept.
    pub fn verify(&self) -> bool {
        self.verify
    }
}
