//! Connection opening against a model of the register space: the exception packets the core hands over,
//! the connection entries the firmware commits for them and the CTRL OPENs it sends (spec 7.3, 7.4).

mod common;

use common::{caps, two_qps, RegSpace};
use metaroce_firmware::packets::{wire, Open, Packet};
use metaroce_firmware::responder::{Outcome, ANNOUNCE_GAP};
use metaroce_firmware::Firmware;
use metaroce_regmap::command::{Command, QpState, Remote, ResponseData};
use metaroce_regmap::context::conn::{ConnFlags, ConnHot};
use metaroce_regmap::ctxport::{reg as ctx, table};
use std::net::{IpAddr, Ipv4Addr};

const PEER_MAC: [u8; 6] = [2, 0, 0, 0, 0, 0xB];
const PEER_IP: [u8; 4] = [10, 0, 0, 2];
const PEER_QPN: u32 = 7;
const PEER_CID: u32 = 0x00_0777;
const PEER_ISN: u32 = 0xFFFF_FF00;

use common::exec as run;

/// A booted firmware with one CQ and QPs `a` (READY, connected to the peer) and `b` (INIT). Returns them and
/// the ISN of `a`'s connection.
fn setup() -> (Firmware, RegSpace, u32, u32, u32) {
    let mut regs = RegSpace::new(&caps());
    let remote = Remote {
        qpn: PEER_QPN,
        mac: PEER_MAC,
        ip: IpAddr::V4(Ipv4Addr::from(PEER_IP)),
    };
    let (fw, a, b) = two_qps(&mut regs, remote);
    let open = regs
        .commits
        .iter()
        .rev()
        .find(|c| c.table == table::CONN)
        .expect("the READY QP's connection");
    let isn = ConnHot::parse(&open.entry).unwrap().snd_nxt;
    (fw, regs, a, b, isn)
}

fn peer_ip16() -> [u8; 16] {
    let mut ip = [0u8; 16];
    ip[..4].copy_from_slice(&PEER_IP);
    ip
}

/// The initiator's SYN DATA packet to `qpn` with DCID 0, as the core hands it over.
fn syn(qpn: u32) -> Packet {
    Packet {
        ptype: wire::DATA,
        flags: wire::SYN,
        dcid: 0,
        psn: PEER_ISN,
        ts: 0x1234_5678,
        ev: 0x155,
        dscp: 26,
        ecn: wire::ECT0,
        peer_mac: PEER_MAC,
        peer_ip: peer_ip16(),
        open: Some(Open {
            scid: PEER_CID,
            wlog: 8,
            isn: PEER_ISN,
            target_qpn: qpn,
            mtu_log: 12,
        }),
        ..Packet::default()
    }
}

fn deliver(fw: &mut Firmware, regs: &mut RegSpace, p: &Packet) -> Outcome {
    regs.pkt_in.push_back(p.to_record());
    let out = fw.poll_packets(regs).expect("a record was held");
    assert!(regs.pkt_in.is_empty(), "the record was released");
    out
}

#[test]
fn wire_constants_are_the_protocols() {
    use metaroce_proto::wire::{CtrlCode, MbhFlags, PacketType};
    assert_eq!(wire::DATA, PacketType::Data as u8);
    assert_eq!(wire::ACK, PacketType::Ack as u8);
    assert_eq!(wire::NACK, PacketType::Nack as u8);
    assert_eq!(wire::CTRL, PacketType::Ctrl as u8);
    assert_eq!(wire::CTRL_OPEN, CtrlCode::Open as u8);
    assert_eq!(wire::SYN, MbhFlags::SYN.bits());
}

#[test]
fn a_record_round_trips_through_its_layout() {
    let mut p = syn(3);
    p.ipv6 = true;
    p.peer_ip = core::array::from_fn(|k| 0x20 + k as u8);
    p.trimmed = true;
    p.scid = 0xAB_CDEF;
    p.code = 9;
    p.echo_ts = 77;
    p.aux = 0xDEAD_BEEF;
    assert_eq!(Packet::from_record(&p.to_record()), p);
    let mut q = syn(3);
    q.open = None;
    assert_eq!(Packet::from_record(&q.to_record()), q);
}

#[test]
fn mr_conn_12_14_17_a_syn_binds_the_ready_qps_connection_and_is_announced() {
    let (mut fw, mut regs, a, _, isn) = setup();
    let before = regs.commits.len();
    let out = deliver(&mut fw, &mut regs, &syn(a));
    assert_eq!(
        out,
        Outcome::Bound {
            qpn: a,
            announced: true
        }
    );
    // One commit: the receive direction of connection `a`, opened rx_only with the peer's CID and ISN.
    assert_eq!(regs.commits.len(), before + 1);
    let c = regs.commits.last().unwrap();
    assert_eq!((c.table, c.index), (table::CONN, a as u16));
    assert_ne!(c.open_param & ctx::OPEN_PARAM_RX_ONLY, 0);
    let hot = ConnHot::parse(&c.entry).unwrap();
    let cid = fw.objects().qp(a).unwrap().cid;
    assert_eq!(cid & 0xFFFF, a, "connection a, with its generation");
    assert_eq!((hot.cid, hot.peer_cid), (cid, PEER_CID));
    assert_eq!((hot.rcv_nxt, hot.snd_nxt), (PEER_ISN, isn));
    assert!(hot.flags.contains(ConnFlags::RCV_INIT));
    // The CTRL OPEN: to the peer's CID, with this side's Open extension.
    assert_eq!(regs.pkt_out.len(), 1);
    let o = Packet::from_record(&regs.pkt_out[0].0);
    assert_eq!(
        (o.ptype, o.flags, o.code),
        (wire::CTRL, wire::SYN, wire::CTRL_OPEN)
    );
    assert_eq!(
        (o.dcid, o.scid, o.psn, o.echo_ts),
        (PEER_CID, cid, isn, 0x1234_5678)
    );
    assert_eq!(
        (o.peer_mac, o.peer_ip, o.ipv6),
        (PEER_MAC, peer_ip16(), false)
    );
    assert_eq!(o.ecn, wire::ECT0);
    assert_eq!(
        o.open,
        Some(Open {
            scid: cid,
            wlog: 8,
            isn,
            target_qpn: PEER_QPN,
            mtu_log: 12
        })
    );
    assert_eq!(fw.open_stats().bound, 1);
    assert_eq!(fw.open_stats().announced, 1);
    // QUERY_QP shows the binding.
    let ResponseData::QpInfo(q) = run(&mut fw, &mut regs, Command::QueryQp { qpn: a }) else {
        panic!("no QP info")
    };
    assert_eq!(
        (q.state, q.cid, q.peer_cid, q.isn, q.peer_isn),
        (QpState::Ready, cid, PEER_CID, isn, PEER_ISN)
    );
    assert_eq!(q.remote.map(|r| (r.qpn, r.mac)), Some((PEER_QPN, PEER_MAC)));
}

#[test]
fn mr_conn_11_repeats_are_announced_again_at_most_once_per_gap() {
    let (mut fw, mut regs, a, _, _) = setup();
    deliver(&mut fw, &mut regs, &syn(a));
    let commits = regs.commits.len();
    let out = deliver(&mut fw, &mut regs, &syn(a));
    assert_eq!(
        out,
        Outcome::Repeated {
            qpn: a,
            announced: false
        }
    );
    regs.time += ANNOUNCE_GAP;
    let out = deliver(&mut fw, &mut regs, &syn(a));
    assert_eq!(
        out,
        Outcome::Repeated {
            qpn: a,
            announced: true
        }
    );
    // A repeat never rewrites the connection; a repeat that names this side's CID is not answered.
    assert_eq!(regs.commits.len(), commits);
    regs.time += ANNOUNCE_GAP;
    let mut named = syn(a);
    named.dcid = fw.objects().qp(a).unwrap().cid;
    assert_eq!(
        deliver(&mut fw, &mut regs, &named),
        Outcome::Repeated {
            qpn: a,
            announced: false
        }
    );
    assert_eq!(regs.pkt_out.len(), 2);
    assert_eq!(fw.open_stats().repeated, 3);
}

#[test]
fn mr_conn_16_rel_17_the_peers_ctrl_open_binds_and_goes_back_to_the_core() {
    let (mut fw, mut regs, a, _, _) = setup();
    let mut open = syn(a);
    open.ptype = wire::CTRL;
    open.code = wire::CTRL_OPEN;
    open.dcid = fw.objects().qp(a).unwrap().cid;
    assert_eq!(
        deliver(&mut fw, &mut regs, &open),
        Outcome::Bound {
            qpn: a,
            announced: false
        }
    );
    // No CTRL OPEN of its own; the record goes back to the receive path, whose ACK answers it (MR-REL-17).
    assert!(regs.pkt_out.is_empty());
    assert_eq!(regs.replayed, vec![open.to_record()]);
    let hot = ConnHot::parse(&regs.commits.last().unwrap().entry).unwrap();
    assert_eq!((hot.peer_cid, hot.rcv_nxt), (PEER_CID, PEER_ISN));
    // A repeat that was queued behind it goes back as well; a SYN DATA never does (its payload is gone), nor
    // a CTRL OPEN the firmware refused.
    assert_eq!(
        deliver(&mut fw, &mut regs, &open),
        Outcome::Repeated {
            qpn: a,
            announced: false
        }
    );
    deliver(&mut fw, &mut regs, &syn(a));
    let mut elsewhere = open;
    elsewhere.peer_ip[3] = 3;
    assert_eq!(deliver(&mut fw, &mut regs, &elsewhere), Outcome::Refused);
    assert_eq!(regs.replayed.len(), 2);
    assert_eq!(fw.open_stats().replayed, 2);
    let ResponseData::Device(d) = run(&mut fw, &mut regs, Command::QueryDevice) else {
        panic!("no device info")
    };
    assert_eq!(d.replayed, 2);
}

#[test]
fn queued_records_are_taken_in_order_one_per_poll() {
    let (mut fw, mut regs, a, b, _) = setup();
    regs.pkt_in.push_back(syn(b).to_record());
    regs.pkt_in.push_back(syn(a).to_record());
    assert_eq!(fw.poll_packets(&mut regs), Some(Outcome::Refused));
    assert_eq!(regs.pkt_in.len(), 1);
    assert_eq!(
        fw.poll_packets(&mut regs),
        Some(Outcome::Bound {
            qpn: a,
            announced: true
        })
    );
    assert_eq!(fw.poll_packets(&mut regs), None);
    assert!(regs.replayed.is_empty());
}

#[test]
fn mr_conn_13_18_refusals_and_restarts_change_nothing() {
    let (mut fw, mut regs, a, b, _) = setup();
    let commits = regs.commits.len();
    // QP b is not READY; QP 999 does not exist; another source address.
    assert_eq!(deliver(&mut fw, &mut regs, &syn(b)), Outcome::Refused);
    assert_eq!(deliver(&mut fw, &mut regs, &syn(999)), Outcome::Refused);
    let mut elsewhere = syn(a);
    elsewhere.peer_ip[3] = 3;
    assert_eq!(deliver(&mut fw, &mut regs, &elsewhere), Outcome::Refused);
    let mut v6 = syn(a);
    v6.ipv6 = true;
    assert_eq!(deliver(&mut fw, &mut regs, &v6), Outcome::Refused);
    // Not opening packets: trimmed, without SYN, without an Open extension, a NACK, a CTRL other than OPEN.
    let mut trimmed = syn(a);
    trimmed.trimmed = true;
    let mut plain = syn(a);
    plain.flags = 0;
    let mut no_ox = syn(a);
    no_ox.open = None;
    let mut nack = syn(a);
    nack.ptype = wire::NACK;
    let mut probe = syn(a);
    probe.ptype = wire::CTRL;
    probe.code = 2;
    for p in [trimmed, plain, no_ox, nack, probe] {
        assert_eq!(deliver(&mut fw, &mut regs, &p), Outcome::Other, "{p:?}");
    }
    assert_eq!(regs.commits.len(), commits);
    assert!(regs.pkt_out.is_empty());
    // Bound, then a SYN with another SCID: a peer restart, not handled, nothing changes.
    deliver(&mut fw, &mut regs, &syn(a));
    let commits = regs.commits.len();
    let mut restart = syn(a);
    restart.open.as_mut().unwrap().scid = PEER_CID + 1;
    assert_eq!(deliver(&mut fw, &mut regs, &restart), Outcome::Restart);
    assert_eq!(regs.commits.len(), commits);
    let s = *fw.open_stats();
    assert_eq!((s.refused, s.other, s.restarts, s.bound), (4, 5, 1, 1));
    // The host reads the same through QUERY_DEVICE.
    let ResponseData::Device(d) = run(&mut fw, &mut regs, Command::QueryDevice) else {
        panic!("no device info")
    };
    assert_eq!(
        (d.exceptions, d.bound, d.announced, d.refused, d.exc_lost),
        (s.exceptions, 1, 1, 4 + 5 + 1, 0)
    );
    assert_eq!(s.exceptions, 11);
}

#[test]
fn a_hung_transmit_path_is_counted_not_a_hang() {
    let (mut fw, mut regs, a, _, _) = setup();
    regs.faults.tx_hangs = true;
    assert_eq!(
        deliver(&mut fw, &mut regs, &syn(a)),
        Outcome::Bound {
            qpn: a,
            announced: true
        }
    );
    // The first record was taken into the (now stuck) path; the next announcement finds it busy.
    regs.time += ANNOUNCE_GAP;
    assert_eq!(
        deliver(&mut fw, &mut regs, &syn(a)),
        Outcome::Repeated {
            qpn: a,
            announced: false
        }
    );
    assert_eq!(fw.open_stats().failed, 1);
}

#[test]
fn nothing_is_taken_before_boot_or_when_no_record_is_held() {
    let mut regs = RegSpace::new(&caps());
    let mut fw = Firmware::new();
    regs.pkt_in.push_back(syn(1).to_record());
    assert_eq!(fw.poll_packets(&mut regs), None);
    assert_eq!(regs.pkt_in.len(), 1);
    fw.boot(&mut regs);
    regs.pkt_in.clear();
    assert_eq!(fw.poll_packets(&mut regs), None);
}
