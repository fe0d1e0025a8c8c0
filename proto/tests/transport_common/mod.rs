//! Two-endpoint scaffolding shared by the transport test files: two endpoints handing frames to each other over
//! a direct link, with a per-frame filter deciding each frame's fate.
// Each test binary uses a different subset of these items.
#![allow(dead_code)]

use core::net::{IpAddr, Ipv4Addr};
use metaroce_proto::transport::*;
use metaroce_proto::wire::packet::{parse_frame, TypeRepr};
use metaroce_proto::wire::{NackCode, PacketType};

pub const MAC_A: [u8; 6] = [2, 0, 0, 0, 0, 0xA];
pub const MAC_B: [u8; 6] = [2, 0, 0, 0, 0, 0xB];
pub const IP_A: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
pub const IP_B: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));
pub const LINK_NS: u64 = 1_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    AtoB,
    BtoA,
}

pub enum Act {
    Pass,
    Drop,
    Dup,
    Delay(u64),
    Replace(Vec<u8>),
    ReplaceDelay(Vec<u8>, u64),
}

pub struct Pair {
    pub a: Endpoint,
    pub b: Endpoint,
    pub qa: Qpn,
    pub qb: Qpn,
    pub now: u64,
    pub wire: Vec<(u64, Dir, Vec<u8>)>,
    pub ev_a: Vec<Event>,
    pub ev_b: Vec<Event>,
    pub sent: [usize; 2],
    pub bytes: [u64; 2],
}

/// A MetaRoCE endpoint configuration without congestion control.
pub fn cfg(mac: [u8; 6], ip: IpAddr) -> EndpointConfig {
    cfg_cc(mac, ip, CcKind::None)
}

/// A MetaRoCE endpoint configuration with congestion control `cc`.
pub fn cfg_cc(mac: [u8; 6], ip: IpAddr, cc: CcKind) -> EndpointConfig {
    EndpointConfig {
        cc,
        ..EndpointConfig::metaroce(mac, ip)
    }
}

/// Endpoints A (`ca`) and B (`cb`), each with one QP connected to the other's: (a, b, qpn at A, qpn at B).
pub fn connected(ca: EndpointConfig, cb: EndpointConfig) -> (Endpoint, Endpoint, Qpn, Qpn) {
    let mut a = Endpoint::new(ca, SparseMemory::new());
    let mut b = Endpoint::new(cb, SparseMemory::new());
    let qa = a.create_qp(64, 64).unwrap();
    let qb = b.create_qp(64, 64).unwrap();
    a.connect_qp(
        qa,
        RemoteQp {
            mac: MAC_B,
            ip: IP_B,
            qpn: qb,
        },
    )
    .unwrap();
    b.connect_qp(
        qb,
        RemoteQp {
            mac: MAC_A,
            ip: IP_A,
            qpn: qa,
        },
    )
    .unwrap();
    (a, b, qa, qb)
}

impl Pair {
    pub fn new() -> Self {
        Self::with(cfg(MAC_A, IP_A), cfg(MAC_B, IP_B))
    }

    /// A pair of endpoints configured by `ca` (A) and `cb` (B), e.g. `EndpointConfig::rocev2(..)` ones.
    pub fn with(ca: EndpointConfig, cb: EndpointConfig) -> Self {
        let (a, b, qa, qb) = connected(ca, cb);
        Pair {
            a,
            b,
            qa,
            qb,
            now: 1_000_000,
            wire: Vec::new(),
            ev_a: Vec::new(),
            ev_b: Vec::new(),
            sent: [0; 2],
            bytes: [0; 2],
        }
    }

    /// Runs until nothing is in flight and neither side has a timer before `until`.
    pub fn run(&mut self, until: u64, f: &mut dyn FnMut(Dir, usize, &[u8]) -> Act) {
        let mut buf = Vec::new();
        for _ in 0..200_000 {
            for dir in [Dir::AtoB, Dir::BtoA] {
                loop {
                    let ep = if dir == Dir::AtoB {
                        &mut self.a
                    } else {
                        &mut self.b
                    };
                    if !ep.poll_transmit(self.now, &mut buf) {
                        break;
                    }
                    let k = dir as usize;
                    self.bytes[k] += buf.len() as u64;
                    let n = self.sent[k];
                    if std::env::var("TRACE").is_ok() && n < 300 {
                        // Only MetaRoCE frames are traced (RoCEv2 pairs share this loop).
                        if let Ok(p) = parse_frame(&buf, 4792, 10, true) {
                            eprintln!(
                                "t={} {:?} #{} {:?} psn={} {:?}",
                                self.now, dir, n, p.m.mbh.ptype, p.m.mbh.psn, p.m.ty
                            );
                        }
                    }
                    self.sent[k] += 1;
                    let t = self.now + LINK_NS;
                    match f(dir, n, &buf) {
                        Act::Pass => self.wire.push((t, dir, buf.clone())),
                        Act::Drop => {}
                        Act::Dup => {
                            self.wire.push((t, dir, buf.clone()));
                            self.wire.push((t + 10, dir, buf.clone()));
                        }
                        Act::Delay(d) => self.wire.push((t + d, dir, buf.clone())),
                        Act::Replace(v) => self.wire.push((t, dir, v)),
                        Act::ReplaceDelay(v, d) => self.wire.push((t + d, dir, v)),
                    }
                }
            }
            collect_events(&mut self.a, &mut self.b, &mut self.ev_a, &mut self.ev_b);
            let Some(next) = next_deadline(&self.a, &self.b, &self.wire) else {
                return;
            };
            if next > until {
                return;
            }
            self.now = self.now.max(next);
            deliver_due(&mut self.a, &mut self.b, &mut self.wire, self.now);
        }
        panic!("run did not converge");
    }

    pub fn run_for(&mut self, dur: u64, f: &mut dyn FnMut(Dir, usize, &[u8]) -> Act) {
        let until = self.now + dur;
        self.run(until, f);
    }

    pub fn completions_a(&self) -> Vec<Completion> {
        comps(&self.ev_a)
    }
    pub fn completions_b(&self) -> Vec<Completion> {
        comps(&self.ev_b)
    }
}

/// Moves the pending events of `a` and `b` to `ev_a` and `ev_b`.
pub fn collect_events(
    a: &mut Endpoint,
    b: &mut Endpoint,
    ev_a: &mut Vec<Event>,
    ev_b: &mut Vec<Event>,
) {
    while let Some(e) = a.poll_event() {
        ev_a.push(e);
    }
    while let Some(e) = b.poll_event() {
        ev_b.push(e);
    }
}

/// When something next happens: the earliest frame arrival on `wire` or timer of `a` or `b`.
pub fn next_deadline(a: &Endpoint, b: &Endpoint, wire: &[(u64, Dir, Vec<u8>)]) -> Option<u64> {
    [
        wire.iter().map(|w| w.0).min(),
        a.poll_timeout(),
        b.poll_timeout(),
    ]
    .into_iter()
    .flatten()
    .min()
}

/// Delivers the frames on `wire` due at `now` (in the order they were sent), then fires the timers of `a` and
/// `b` due at `now`.
pub fn deliver_due(
    a: &mut Endpoint,
    b: &mut Endpoint,
    wire: &mut Vec<(u64, Dir, Vec<u8>)>,
    now: u64,
) {
    let (due, rest): (Vec<_>, Vec<_>) = wire.drain(..).partition(|w| w.0 <= now);
    *wire = rest;
    for (_, dir, fr) in due {
        match dir {
            Dir::AtoB => b.handle_frame(now, &fr),
            Dir::BtoA => a.handle_frame(now, &fr),
        }
    }
    if a.poll_timeout().is_some_and(|t| t <= now) {
        a.handle_timeout(now);
    }
    if b.poll_timeout().is_some_and(|t| t <= now) {
        b.handle_timeout(now);
    }
}

pub fn comps(ev: &[Event]) -> Vec<Completion> {
    ev.iter()
        .filter_map(|e| match e {
            Event::Completion(c) => Some(*c),
            _ => None,
        })
        .collect()
}

pub fn pass(_: Dir, _: usize, _: &[u8]) -> Act {
    Act::Pass
}

/// Kind of a frame: (packet type, is data with payload, PSN, nack code).
pub fn kind(fr: &[u8]) -> (PacketType, u32, Option<NackCode>) {
    let p = parse_frame(fr, 4792, 10, true).expect("parse");
    let code = match p.m.ty {
        TypeRepr::Nack(n) => Some(n.code),
        _ => None,
    };
    (p.m.mbh.ptype, p.m.mbh.psn, code)
}

pub fn is_data(fr: &[u8]) -> bool {
    kind(fr).0 == PacketType::Data
}

/// What a trimming switch does to an IPv4 frame without VLAN: cut to 64 bytes (the base header ends at 58),
/// rewrite the IP and UDP lengths, re-mark DSCP `dscp_trim` (10) and fix the IP checksum (MR-ENC-27, MR-ENC-28).
pub fn trim(fr: &[u8]) -> Vec<u8> {
    use metaroce_proto::wire::{Ipv4Packet, UdpPacket};
    let mut v = fr[..64].to_vec();
    {
        let mut ip = Ipv4Packet::new_unchecked(&mut v[14..34]);
        ip.set_total_len(50);
        ip.set_dscp(10);
        ip.fill_checksum();
    }
    UdpPacket::new_unchecked(&mut v[34..42]).set_len(30);
    v
}

pub fn pattern(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

pub const SRC: u64 = 0x10_0000;
pub const DST: u64 = 0x80_0000;

/// Registers a source buffer at A holding `data` and a destination region at B; returns (lkey_a, rkey_b).
pub fn setup_write(p: &mut Pair, data: &[u8], dst_access: Access) -> (u32, u32) {
    p.a.memory_mut().write(SRC, data);
    let ka = p.a.register_mr(SRC, 1 << 20, Access::LOCAL_WRITE).unwrap();
    let kb =
        p.b.register_mr(DST, 1 << 20, dst_access | Access::LOCAL_WRITE)
            .unwrap();
    (ka.lkey, kb.rkey)
}

pub fn write_wr(id: u64, op: SendOp, lkey: u32, len: u32, rkey: u32) -> SendWr {
    SendWr {
        wr_id: id,
        op,
        local: Sge {
            addr: SRC,
            len,
            lkey,
        },
        remote_addr: DST,
        rkey,
        solicited: false,
    }
}

pub fn read_b(p: &Pair, addr: u64, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    p.b.memory().read(addr, &mut v);
    v
}
