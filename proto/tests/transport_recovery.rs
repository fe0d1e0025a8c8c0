//! Loss recovery when feedback is scarce: RTO expiries whose retransmission is held back by the collapsed
//! congestion window (MR-REL-39, MR-REL-45), acknowledgements lost on the way back (MR-REL-31, MR-PATH-11,
//! MR-PATH-14: the PROBEs of an RTO expiry bring the receiver's whole CACK + SACK state back), and a READ whose
//! response stops coming (MR-REL-55, MR-SEM: every WR completes exactly once). Two endpoints over a direct
//! link; a filter decides the fate of every frame, so every test is deterministic.

use metaroce_proto::transport::*;
use metaroce_proto::wire::packet::{parse_frame, TypeRepr};
use metaroce_proto::wire::{CtrlCode, PacketType};

mod transport_common;
use transport_common::*;

/// What the test sees of a frame.
#[derive(Clone, Copy, Debug)]
struct Seen {
    now: u64,
    dir: Dir,
    ptype: PacketType,
    psn: u32,
    probe: bool,
    sport: u16,
}

fn seen(now: u64, dir: Dir, fr: &[u8]) -> Seen {
    let p = parse_frame(fr, 4792, 10, true).expect("parse");
    Seen {
        now,
        dir,
        ptype: p.m.mbh.ptype,
        psn: p.m.mbh.psn,
        probe: matches!(p.m.ty, TypeRepr::Ctrl(c) if c.code == CtrlCode::Probe),
        sport: p.l.udp_src,
    }
}

struct Pair {
    a: Endpoint,
    b: Endpoint,
    qa: Qpn,
    now: u64,
    wire: Vec<(u64, Dir, Vec<u8>)>,
    ev_a: Vec<Event>,
    ev_b: Vec<Event>,
    /// Every frame sent, delivered or not.
    log: Vec<Seen>,
}

impl Pair {
    fn new(cc: CcKind) -> Self {
        let (mut a, mut b, qa, _) = connected(cfg_cc(MAC_A, IP_A, cc), cfg_cc(MAC_B, IP_B, cc));
        let data: Vec<u8> = (0..1u32 << 16).map(|i| (i * 7 + 3) as u8).collect();
        a.memory_mut().write(SRC, &data);
        b.memory_mut().write(DST, &data);
        Pair {
            a,
            b,
            qa,
            now: 1_000_000,
            wire: Vec::new(),
            ev_a: Vec::new(),
            ev_b: Vec::new(),
            log: Vec::new(),
        }
    }

    /// Registers A's buffer and B's region; returns (lkey at A, rkey at B).
    fn keys(&mut self) -> (u32, u32) {
        let ka = self
            .a
            .register_mr(SRC, 1 << 20, Access::LOCAL_WRITE)
            .unwrap();
        let kb = self
            .b
            .register_mr(
                DST,
                1 << 20,
                Access::LOCAL_WRITE | Access::REMOTE_WRITE | Access::REMOTE_READ,
            )
            .unwrap();
        (ka.lkey, kb.rkey)
    }

    fn post(&mut self, id: u64, op: SendOp, len: u32, (lk, rk): (u32, u32)) {
        let wr = SendWr {
            wr_id: id,
            op,
            local: Sge {
                addr: SRC,
                len,
                lkey: lk,
            },
            remote_addr: DST,
            rkey: rk,
            solicited: false,
        };
        self.a.post_send(self.now, self.qa, wr).unwrap();
    }

    /// Runs until `until` or until nothing is in flight and no timer is armed; `keep` decides for every frame
    /// whether it is delivered (after `LINK_NS`).
    fn run(&mut self, until: u64, keep: &mut dyn FnMut(&Seen) -> bool) {
        let mut buf = Vec::new();
        for _ in 0..1_000_000 {
            for dir in [Dir::AtoB, Dir::BtoA] {
                loop {
                    let ep = match dir {
                        Dir::AtoB => &mut self.a,
                        Dir::BtoA => &mut self.b,
                    };
                    if !ep.poll_transmit(self.now, &mut buf) {
                        break;
                    }
                    let s = seen(self.now, dir, &buf);
                    self.log.push(s);
                    if keep(&s) {
                        self.wire.push((self.now + LINK_NS, dir, buf.clone()));
                    }
                }
            }
            collect_events(&mut self.a, &mut self.b, &mut self.ev_a, &mut self.ev_b);
            let Some(next) = next_deadline(&self.a, &self.b, &self.wire) else {
                return;
            };
            if next > until {
                self.now = until;
                return;
            }
            self.now = self.now.max(next);
            deliver_due(&mut self.a, &mut self.b, &mut self.wire, self.now);
        }
        panic!("run did not converge");
    }

    fn run_for(&mut self, dur: u64, keep: &mut dyn FnMut(&Seen) -> bool) {
        let until = self.now + dur;
        self.run(until, keep);
    }

    /// Send-side completions of A as (wr_id, status).
    fn done_a(&self) -> Vec<(u64, WcStatus)> {
        self.ev_a
            .iter()
            .filter_map(|e| match e {
                Event::Completion(c) if c.opcode != WcOpcode::Recv => Some((c.wr_id, c.status)),
                _ => None,
            })
            .collect()
    }

    /// A's DATA transmissions of `psn`, with their times.
    fn data_tx(&self, psn: u32) -> Vec<u64> {
        self.log
            .iter()
            .filter(|s| s.dir == Dir::AtoB && s.ptype == PacketType::Data && s.psn == psn)
            .map(|s| s.now)
            .collect()
    }
}

fn all(_: &Seen) -> bool {
    true
}

/// Opens the connection with a 1-byte WRITE run to completion (RTT sampled, SYN phases over).
fn warm_up(p: &mut Pair, keys: (u32, u32)) {
    p.post(0, SendOp::Write, 1, keys);
    p.run_for(100_000, &mut all);
    assert_eq!(p.done_a(), [(0, WcStatus::Success)]);
}

/// MR-REL-39, MR-REL-45, MR-CC-13: PSN p0 is lost; p1, sent 10 µs later, arrives but every frame back is lost
/// for a while. At the RTO expiry p0 is declared lost, p1 (sent within the timeout) is not, and NSCC's window
/// falls to one MTU, which the full-size p1 still fills. The expiry's retransmission of p0 must leave at the
/// expiry anyway: an expiry that retransmits nothing would still count towards `retry_limit`, and here p0 would
/// wait a whole backed-off timeout.
#[test]
fn mr_rel_39_45_rto_expiry_retransmits_although_recent_packets_fill_the_window() {
    let mut p = Pair::new(CcKind::Nscc);
    let keys = p.keys();
    warm_up(&mut p, keys);
    let t0 = p.now;
    p.post(1, SendOp::Write, 4096, keys);
    let mut p0 = None;
    p.run_for(10_000, &mut |s| {
        if s.dir == Dir::AtoB && s.ptype == PacketType::Data {
            p0.get_or_insert(s.psn);
            return false;
        }
        true
    });
    let p0 = p0.expect("p0 sent");
    assert_eq!(p.data_tx(p0).len(), 1);
    p.post(2, SendOp::Write, 4096, keys);
    // Nothing comes back until well after the first expiry (t0 + 20 µs): neither ACKs nor PROBE replies.
    let quiet_until = t0 + 35_000;
    p.run(quiet_until, &mut |s| s.dir == Dir::AtoB && s.psn != p0);
    assert_eq!(p.a.stats().timeouts, 1, "exactly one expiry so far");
    let tx = p.data_tx(p0);
    assert_eq!(
        tx.len(),
        2,
        "p0 must be retransmitted at the first expiry, before the next one: {tx:?}"
    );
    assert!(tx[1] >= t0 + 20_000 && tx[1] < t0 + 21_000, "{tx:?}");
    p.run_for(2_000_000, &mut all);
    assert_eq!(
        p.done_a(),
        [
            (0, WcStatus::Success),
            (1, WcStatus::Success),
            (2, WcStatus::Success)
        ]
    );
}

/// MR-PATH-11, MR-REL-31, MR-REL-55: the receiver holds the only PSN; every ACK of it and every DATA
/// retransmission is lost (a return path and the retransmissions' paths are dead), so the retransmissions' ACKs
/// can never report progress. The PROBE of the RTO expiry, sent on the EV of the latest round trip that
/// worked, is answered by an ACK carrying the CACK: the WR completes after one expiry instead of failing with
/// `RetryExceeded` after `retry_limit` of them.
#[test]
fn mr_path_11_probe_after_rto_recovers_from_lost_acks() {
    let mut p = Pair::new(CcKind::None);
    let keys = p.keys();
    warm_up(&mut p, keys);
    p.post(1, SendOp::Write, 512, keys);
    let t0 = p.now;
    let mut first_data = true;
    p.run_for(20_000_000, &mut |s| match (s.dir, s.ptype) {
        (Dir::AtoB, PacketType::Data) => std::mem::replace(&mut first_data, false),
        // Every ACK of the DATA (they echo its EV) is lost; only PROBE replies come back.
        (Dir::BtoA, PacketType::Ack) => s.now > t0 + 15_000,
        _ => true,
    });
    assert_eq!(
        p.done_a(),
        [(0, WcStatus::Success), (1, WcStatus::Success)],
        "events: {:?}",
        p.ev_a
    );
    let st = p.a.stats();
    assert!(st.probes_sent >= 1, "{st:?}");
    assert!(
        st.timeouts <= 2,
        "recovered at the first expiries: {}",
        st.timeouts
    );
    // The PROBE did not go out on the EV of the lost transmission.
    let data_port = p
        .log
        .iter()
        .find(|s| s.dir == Dir::AtoB && s.ptype == PacketType::Data && s.now >= t0)
        .map(|s| s.sport)
        .unwrap();
    let probe_ports: Vec<u16> = p.log.iter().filter(|s| s.probe).map(|s| s.sport).collect();
    assert!(!probe_ports.is_empty() && !probe_ports.contains(&data_port));
}

/// MR-PATH-9, MR-PATH-11, MR-REL-55: the whole link is down for 150 µs (the backed-off expiries burn part of
/// the retry budget), then half of all EVs stay dead in each direction, as failed ECMP members would make them.
/// Every expiry after the outage sends, besides its one retransmission, PROBEs on further EVs of the set (which
/// the expiries' losses have recycled), so the sender learns the receiver's state through whichever round trip
/// works and completes every WR.
#[test]
fn mr_path_11_rto_probes_find_live_evs_after_an_outage() {
    let mut p = Pair::new(CcKind::Nscc);
    let keys = p.keys();
    warm_up(&mut p, keys);
    for i in 1..=8 {
        p.post(i, SendOp::Write, 8192, keys);
    }
    let t0 = p.now;
    let up_at = t0 + 150_000;
    // A fixed "ECMP hash" per direction: an EV is dead if its hash lands in bucket 0 of 2.
    let dead = |port: u16, salt: u32| {
        let h = (port as u32 ^ salt).wrapping_mul(0x9E37_79B1);
        (h >> 16) & 1 == 0
    };
    p.run_for(30_000_000, &mut |s| {
        if s.now >= t0 + 2_000 && s.now < up_at {
            return false; // everything is down
        }
        match s.dir {
            Dir::AtoB => !(s.now >= up_at && dead(s.sport, 0x5EED)),
            Dir::BtoA => !(s.now >= up_at && dead(s.sport, 0xABCD)),
        }
    });
    let done = p.done_a();
    assert_eq!(done.len(), 9, "{done:?}");
    assert!(
        done.iter().all(|d| d.1 == WcStatus::Success),
        "{done:?}; stats {:?}",
        p.a.stats()
    );
    // Probes after the outage used several distinct EVs.
    let mut ports: Vec<u16> = p
        .log
        .iter()
        .filter(|s| s.probe && s.now >= up_at)
        .map(|s| s.sport)
        .collect();
    ports.sort_unstable();
    ports.dedup();
    assert!(ports.len() >= 2, "{ports:?}");
}

/// MR-REL-55, MR-SEM (every WR completes exactly once): B acknowledges A's READ request, but no READ response
/// (and nothing else) ever gets back to A. B's QP fails with `RetryExceeded`; A must not wait forever: its
/// READ-response timer completes the READ with `RetryExceeded` within the retry budget.
#[test]
fn mr_rel_55_read_whose_response_never_arrives_fails_instead_of_hanging() {
    let mut p = Pair::new(CcKind::None);
    let keys = p.keys();
    warm_up(&mut p, keys);
    p.post(1, SendOp::Read, 4096, keys);
    p.post(2, SendOp::Write, 100, keys);
    let t0 = p.now;
    // The READ_REQ and its ACK pass; B's READ response DATA is always lost.
    p.run_for(100_000_000, &mut |s| {
        !(s.dir == Dir::BtoA && s.ptype == PacketType::Data)
    });
    assert_eq!(
        p.done_a(),
        [
            (0, WcStatus::Success),
            (1, WcStatus::RetryExceeded),
            (2, WcStatus::Flushed)
        ],
        "A: {:?}",
        p.ev_a
    );
    assert!(p.ev_b.iter().any(|e| matches!(
        e,
        Event::QpError {
            status: WcStatus::RetryExceeded,
            ..
        }
    )));
    assert_eq!(p.a.stats().response_timeouts, 1);
    // Bounded by the retry budget (8 expiries of a timeout doubling from rto_min, 20 µs: 5.1 ms): the run
    // ended, with no timer left armed, long before its 100 ms limit.
    assert!(p.now - t0 < 20_000_000, "{} ns", p.now - t0);
    assert!(p.a.poll_timeout().is_none(), "nothing left armed");
}

/// MR-REL-55: the READ-response timer leaves the responder its whole retry budget: the response is held up by
/// five lost transmissions (the responder's RTO backs off to 320 µs, 620 µs in all) and still completes.
#[test]
fn mr_rel_55_read_response_timer_leaves_the_responder_its_retries() {
    let mut p = Pair::new(CcKind::None);
    let keys = p.keys();
    warm_up(&mut p, keys);
    p.post(1, SendOp::Read, 4096, keys);
    let mut lost = 0;
    p.run_for(100_000_000, &mut |s| {
        if s.dir == Dir::BtoA && s.ptype == PacketType::Data && lost < 5 {
            lost += 1;
            return false;
        }
        true
    });
    assert_eq!(
        p.done_a(),
        [(0, WcStatus::Success), (1, WcStatus::Success)],
        "{:?}",
        p.ev_a
    );
    assert_eq!(p.a.stats().response_timeouts, 0);
}
