//! The connection lookup (`rx::conn_lookup`): hits, the peer check (MR-CONN-3), the miss path of spec 7.8
//! (NACK NO_CONTEXT, MR-CONN-32/33), the exception stream (opens, restarts, NACK NO_CONTEXT with DCID 0), with
//! the table programmed through context writes laid out by `metaroce_regmap`.

use metaroce_hdl::records::{CtxWrite, PktMeta};
use metaroce_hdl::rx::conn_lookup::{ConnLookup, EXCEPTION};
use metaroce_hdl::rx::drop;
use metaroce_regmap::context::{conn, qp};
use rust_hdl::prelude::*;

fn edge(uut: &mut ConnLookup) {
    // settle the inputs set since the last edge before the rising edge samples them
    assert!(simulate(uut, 100));
    uut.clk.next = Clock { clk: true };
    assert!(simulate(uut, 100));
    uut.clk.next = Clock { clk: false };
    assert!(simulate(uut, 100));
}

fn b<const N: usize>(v: u64) -> Bits<N> {
    v.into()
}

fn entry(buf: &[u8; 64]) -> Bits<512> {
    let mut x = Bits::<512>::default();
    for (k, byte) in buf.iter().enumerate() {
        for i in 0..8 {
            if byte >> i & 1 == 1 {
                x = x.replace_bit(8 * k + i, true);
            }
        }
    }
    x
}

fn write(uut: &mut ConnLookup, table: u8, index: u64, buf: &[u8; 64]) {
    uut.s_axis_ctxw_tdata.next = CtxWrite {
        table: b(table as u64),
        index: b(index),
        data: entry(buf),
    };
    uut.s_axis_ctxw_tvalid.next = true;
    edge(uut);
    uut.s_axis_ctxw_tvalid.next = false;
}

const PEER_IP: u64 = 0x0a00_0002; // 10.0.0.2

/// Sends one packet and returns (main output, exception output, NACK output).
fn send(uut: &mut ConnLookup, m: PktMeta) -> (PktMeta, Option<PktMeta>, Option<PktMeta>) {
    uut.s_axis_meta_tdata.next = m;
    uut.s_axis_meta_tvalid.next = true;
    assert!(simulate(uut, 100));
    assert!(uut.s_axis_meta_tready.val());
    edge(uut);
    uut.s_axis_meta_tvalid.next = false;
    for _ in 0..4 {
        assert!(simulate(uut, 100));
        if uut.m_axis_meta_tvalid.val() {
            let out = uut.m_axis_meta_tdata.val();
            let exc = uut
                .m_axis_exc_tvalid
                .val()
                .then(|| uut.m_axis_exc_tdata.val());
            let nc = uut
                .m_axis_nctx_tvalid
                .val()
                .then(|| uut.m_axis_nctx_tdata.val());
            edge(uut);
            return (out, exc, nc);
        }
        edge(uut);
    }
    panic!("no output");
}

fn data(dcid: u64, ip: u64) -> PktMeta {
    PktMeta {
        ptype: b(1),
        dcid: b(dcid),
        peer_ip: b(ip),
        psn: b(1234),
        ts: b(99),
        ev: b(0x155),
        ..Default::default()
    }
}

#[test]
fn mr_conn_3_and_7_8_lookup_peer_check_and_miss_path() {
    let mut uut = ConnLookup::new(4);
    uut.connect_all();
    uut.m_axis_meta_tready.next = true;
    uut.m_axis_exc_tready.next = true;
    uut.m_axis_nctx_tready.next = true;
    uut.cfg_dscp_ctrl.next = b(46);
    uut.cfg_no_ctx_retry_us.next = b(10);
    uut.rst.next = true;
    edge(&mut uut);
    uut.rst.next = false;
    // Connection 5: CID 0x010005 (a generation above the index), peer CID 0x777, receive side initialised.
    let mut c = [0u8; 64];
    conn::field::CID.set(&mut c, 0x01_0005).unwrap();
    conn::field::PEER_CID.set(&mut c, 0x777).unwrap();
    conn::field::STATE.set(&mut c, 1).unwrap();
    conn::field::FLAGS.set(&mut c, 0x02).unwrap();
    write(&mut uut, 0, 5, &c);
    // Connection 6: live, receive side not initialised.
    let mut c6 = c;
    conn::field::CID.set(&mut c6, 6).unwrap();
    conn::field::FLAGS.set(&mut c6, 0).unwrap();
    write(&mut uut, 0, 6, &c6);
    // QP 2 is connected to 10.0.0.2 through connection 0x010005; QP 3 through 6.
    let mut q = [0u8; 64];
    qp::field::REMOTE_IP
        .set_bytes(&mut q, &[10, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        .unwrap();
    qp::field::CID.set(&mut q, 0x01_0005).unwrap();
    write(&mut uut, 1, 2, &q);
    qp::field::CID.set(&mut q, 6).unwrap();
    write(&mut uut, 1, 3, &q);

    // Hit: conn set, scid = peer CID for DATA.
    let (o, e, n) = send(&mut uut, data(0x01_0005, PEER_IP));
    assert_eq!((o.drop, o.conn, o.scid), (b(0), b(5), b(0x777)));
    assert!(e.is_none() && n.is_none());
    // MR-CONN-3: wrong source address.
    let (o, _, n) = send(&mut uut, data(0x01_0005, PEER_IP + 1));
    assert_eq!(o.drop, b(drop::WRONG_PEER as u64));
    assert!(n.is_none());
    // Same index, other generation: a miss: NACK NO_CONTEXT (MR-CONN-32, MR-CONN-33).
    let (o, e, n) = send(&mut uut, data(0x02_0005, PEER_IP));
    assert_eq!(o.drop, b(drop::UNKNOWN_CONNECTION as u64));
    assert!(e.is_none());
    let n = n.expect("NACK NO_CONTEXT");
    assert_eq!(
        (n.ptype, n.dcid, n.scid, n.code),
        (b(3), b(0), b(0x02_0005), b(2))
    );
    assert_eq!(
        (n.psn, n.echo_ts, n.aux, n.ev),
        (b(1234), b(99), b(10), b(0x155))
    );
    assert_eq!((n.dscp, n.peer_ip), (b(46), b(PEER_IP)));
    // DCID 0 without SYN: NACK NO_CONTEXT as well.
    let (_, _, n) = send(&mut uut, data(0, PEER_IP));
    assert!(n.is_some());
    // A SYN DATA packet for an unknown connection: an open, to the firmware.
    let mut syn = data(0, PEER_IP);
    syn.mbh_flags = b(0x80);
    syn.ox = true;
    let (o, e, n) = send(&mut uut, syn);
    assert_eq!(o.drop, b(EXCEPTION as u64));
    assert_eq!(e, Some(syn));
    assert!(n.is_none());
    // A trimmed SYN packet cannot be identified: dropped.
    let mut tsyn = syn;
    tsyn.trimmed = true;
    let (o, e, n) = send(&mut uut, tsyn);
    assert_eq!(o.drop, b(drop::UNKNOWN_CONNECTION as u64));
    assert!(e.is_none() && n.is_none());
    // MR-CONN-18: a SYN on a live connection with another SCID: a peer restart, to the firmware.
    let mut restart = data(0x01_0005, PEER_IP);
    restart.mbh_flags = b(0x80);
    restart.ox_scid = b(0x888);
    let (o, e, _) = send(&mut uut, restart);
    assert_eq!(o.drop, b(EXCEPTION as u64));
    assert!(e.is_some());
    // ... and with the known SCID it is processed on the connection.
    restart.ox_scid = b(0x777);
    let (o, e, _) = send(&mut uut, restart);
    assert_eq!((o.drop, o.conn), (b(0), b(5)));
    assert!(e.is_none());
    // MR-CONN-11: a repeated SYN with DCID 0 whose OX names QP 5's connection (entry 5) and its peer CID is
    // processed on that connection; another SCID, another address, or a connection whose receive side is not
    // bound yet (entry 6) is not.
    let mut again = data(0, PEER_IP);
    again.mbh_flags = b(0x80);
    again.ox = true;
    again.target_qpn = b(5);
    again.ox_scid = b(0x777);
    let (o, e, n) = send(&mut uut, again);
    assert_eq!(
        (o.drop, o.conn, o.scid, o.dcid),
        (b(0), b(5), b(0x777), b(0x01_0005))
    );
    assert!(e.is_none() && n.is_none());
    let mut other = again;
    other.ox_scid = b(0x778);
    let (o, e, _) = send(&mut uut, other);
    assert_eq!(o.drop, b(EXCEPTION as u64));
    assert_eq!(e, Some(other));
    let mut moved = again;
    moved.peer_ip = b(PEER_IP + 1);
    let (o, e, _) = send(&mut uut, moved);
    assert_eq!(o.drop, b(drop::WRONG_PEER as u64));
    assert!(e.is_none());
    let mut unbound = again;
    unbound.target_qpn = b(6);
    unbound.ox_scid = b(0);
    let (o, e, _) = send(&mut uut, unbound);
    assert_eq!(o.drop, b(EXCEPTION as u64));
    assert!(e.is_some());
    let mut trimmed = again;
    trimmed.trimmed = true;
    let (o, e, _) = send(&mut uut, trimmed);
    assert_eq!(o.drop, b(drop::UNKNOWN_CONNECTION as u64));
    assert!(e.is_none());
    // Receive side not initialised: untrimmed DATA dropped, trimmed DATA passes (NACK TRIMMED later).
    let (o, _, _) = send(&mut uut, data(6, PEER_IP));
    assert_eq!(o.drop, b(drop::UNKNOWN_CONNECTION as u64));
    let mut t = data(6, PEER_IP);
    t.trimmed = true;
    let (o, _, _) = send(&mut uut, t);
    assert_eq!((o.drop, o.conn), (b(0), b(6)));
    // MR-CONN-34: NACK NO_CONTEXT with DCID 0: to the firmware; other packets for unknown DCIDs: dropped.
    let mut nc = data(0, PEER_IP);
    nc.ptype = b(3);
    nc.code = b(2);
    let (o, e, _) = send(&mut uut, nc);
    assert_eq!(o.drop, b(EXCEPTION as u64));
    assert!(e.is_some());
    let mut ack = data(9, PEER_IP);
    ack.ptype = b(2);
    let (o, e, n) = send(&mut uut, ack);
    assert_eq!(o.drop, b(drop::UNKNOWN_CONNECTION as u64));
    assert!(e.is_none() && n.is_none());
    // An ACK of the live connection passes (its scid untouched).
    ack.dcid = b(0x01_0005);
    ack.scid = b(0x777);
    let (o, _, _) = send(&mut uut, ack);
    assert_eq!((o.drop, o.conn, o.scid), (b(0), b(5), b(0x777)));
}
