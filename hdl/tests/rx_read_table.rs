//! The requester's READ table (MR-SEM-24, MR-SEM-34): random READ records from the scheduler, READ_RESP
//! packets that answer them (or not: wrong MSN, wrong length, out of range, finished READs), other packets
//! passing unchanged, completion notices invalidating entries and passing on; random input gaps and output
//! back-pressure. The expected `tuser` comes from a plain map of the pending READs. A packet held in the
//! block while its entry changes may see the entry as it was in any cycle from its entry to its exit (the
//! block re-reads a held packet's entry, and its answer is the read of a cycle or two before the output);
//! the answer must equal the view of one of those cycles exactly. A completion notice invalidates its entry
//! between the cycle the block takes it and the cycle it forwards it: in that window a look-up may still find
//! the entry (both views count), and, as the scheduler does, the test records no new READ in that entry
//! before the notice is forwarded. Seed:
//! `METAROCE_SEED` (printed); the pending READs are an ordered map, so that a seed's choices among them, and
//! with them the run, replay exactly.

use metaroce_hdl::records::PktMeta;
use metaroce_hdl::rx::completion::ReadDone;
use metaroce_hdl::rx::mr_check::RxCheck;
use metaroce_hdl::rx::read_table::ReadTable;
use metaroce_hdl::tx::records::ReadRec;
use metaroce_proto::wire::{Opcode, PacketType};
use rust_hdl::prelude::*;
use std::collections::{BTreeMap, VecDeque};

mod support;
use support::Rng;

const CB: usize = 4;
const MB: usize = 3;
type Uut = ReadTable<CB, MB, { CB + MB }>;

/// A pending READ: (msn, addr, lkey, len).
type Read = (u32, u64, u32, u32);

fn expect(pending: &BTreeMap<(u64, u64), Read>, m: &PktMeta, c: &RxCheck) -> RxCheck {
    let cand = m.drop.to_u64() == 0
        && m.ptype.to_u64() == PacketType::Data as u64
        && !m.trimmed
        && m.opcode.to_u64() == Opcode::ReadResp as u64;
    let mut o = *c;
    if !cand {
        return o;
    }
    let (conn, key) = (m.conn.to_u64(), m.key.to_u64());
    let slot = (conn & ((1 << CB) - 1), key & ((1 << MB) - 1));
    let (ok, ent) = match pending.get(&slot) {
        Some(&r) => {
            let (msn, _, _, len) = r;
            let (addr, plen) = (m.addr.to_u64(), m.payload_len.to_u64());
            let fits = addr <= len as u64 && plen <= len as u64 - addr;
            (
                msn as u64 == key && len as u64 == m.msg_len.to_u64() && fits,
                r,
            )
        }
        None => (false, (0, 0, 0, 0)),
    };
    o.rqe_ok = ok;
    o.rqe_addr = ent.1.to_bits();
    o.rqe_lkey = (ent.2 as u64).to_bits();
    o.rqe_len = (ent.3 as u64).to_bits();
    o
}

#[test]
fn mr_sem_24_34_read_table_finds_the_read_of_each_response() {
    let seed = support::env("METAROCE_SEED", 0x2ead_7ab1e);
    println!("METAROCE_SEED={seed}");
    let mut rng = Rng(seed);
    let mut u = Uut::new();
    u.connect_all();
    let step = |u: &mut Uut| {
        u.clk.next = Clock { clk: true };
        assert!(simulate(u, 500));
        u.clk.next = Clock { clk: false };
        assert!(simulate(u, 500));
    };
    u.rst.next = true;
    step(&mut u);
    u.rst.next = false;
    // The RAM starts zeroed (every entry invalid), as the FPGA's block RAM initialisation.
    let mut pending: BTreeMap<(u64, u64), Read> = BTreeMap::new();
    let mut next_msn = [0u32; 4];
    let mut expected: VecDeque<(PktMeta, RxCheck, Vec<RxCheck>)> = VecDeque::new();
    let mut notices: VecDeque<ReadDone> = VecDeque::new();
    // Entries whose notice the block took and has not forwarded yet (being invalidated).
    let mut closing: BTreeMap<(u64, u64), Read> = BTreeMap::new();
    let mut pkt: Option<(PktMeta, RxCheck)> = None;
    let mut rdone: Option<ReadDone> = None;
    let (mut got, mut found, mut missed, mut fwd) = (0u32, 0u32, 0u32, 0u32);
    let total = 3000;
    let mut cycles = 0;
    while got < total {
        cycles += 1;
        assert!(cycles < 20 * total, "stalled");
        // A record now and then (the scheduler: a READ of a connection with a free slot).
        u.s_axis_rec_tvalid.next = false;
        let c = rng.below(4);
        if rng.below(100) < 10 {
            let msn = next_msn[c as usize];
            let slot = (c, msn as u64 & ((1 << MB) - 1));
            if closing.contains_key(&slot) {
                // The scheduler records no READ in an entry before its notice is forwarded.
            } else if let std::collections::btree_map::Entry::Vacant(e) = pending.entry(slot) {
                let r: Read = (msn, rng.next(), rng.next() as u32, rng.below(20_000) as u32);
                u.s_axis_rec_tdata.next = ReadRec {
                    conn: c.to_bits(),
                    msn: (msn as u64).to_bits(),
                    addr: r.1.to_bits(),
                    lkey: (r.2 as u64).to_bits(),
                    len: (r.3 as u64).to_bits(),
                };
                u.s_axis_rec_tvalid.next = true;
                e.insert(r);
            }
            next_msn[c as usize] = msn.wrapping_add(1 + rng.below(2) as u32);
        }
        // A completion notice for a pending READ (its response finished).
        if rdone.is_none() && rng.below(100) < 4 {
            let keys: Vec<_> = pending.keys().copied().collect();
            if !keys.is_empty() {
                let k = keys[rng.below(keys.len() as u64) as usize];
                let r = pending[&k];
                rdone = Some(ReadDone {
                    conn: k.0.to_bits(),
                    msn: (r.0 as u64).to_bits(),
                    bytes: (r.3 as u64).to_bits(),
                });
            }
        }
        // A packet: mostly READ_RESPs for pending READs, some for nothing, some other packets.
        if pkt.is_none() && rng.below(100) < 70 {
            let mut m = PktMeta {
                ptype: (PacketType::Data as u64).to_bits(),
                opcode: (Opcode::ReadResp as u64).to_bits(),
                conn: rng.below(4).to_bits(),
                ..Default::default()
            };
            let keys: Vec<_> = pending
                .keys()
                .filter(|k| k.0 == m.conn.to_u64())
                .copied()
                .collect();
            if !keys.is_empty() && rng.below(100) < 75 {
                let r = pending[&keys[rng.below(keys.len() as u64) as usize]];
                m.key = (r.0 as u64).to_bits();
                m.msg_len = (r.3 as u64).to_bits();
                let off = rng.below(r.3 as u64 + 2);
                m.addr = off.to_bits();
                m.payload_len = rng
                    .below(4200)
                    .min(r.3 as u64 + 50 - off.min(r.3 as u64))
                    .to_bits();
                match rng.below(20) {
                    0 => m.key = (rng.next() & 0xFFFF_FFFF).to_bits(),
                    1 => m.msg_len = (r.3 as u64 + 1).to_bits(),
                    2 => m.addr = u64::MAX.to_bits(),
                    _ => {}
                }
            } else {
                m.key = (rng.next() & 0xFFFF_FFFF).to_bits();
                m.msg_len = rng.below(20_000).to_bits();
                m.payload_len = rng.below(4096).to_bits();
            }
            match rng.below(20) {
                0 => m.opcode = (Opcode::Write as u64).to_bits(),
                1 => m.drop = 3u64.to_bits(),
                2 => m.trimmed = true,
                3 => m.ptype = (PacketType::Ack as u64).to_bits(),
                _ => {}
            }
            let c = RxCheck {
                rqe_len: rng.below(100).to_bits(),
                ..Default::default()
            };
            pkt = Some((m, c));
        }
        match pkt {
            Some((m, c)) => {
                u.s_axis_pkt_tdata.next = m;
                u.s_axis_pkt_tuser.next = c;
                u.s_axis_pkt_tvalid.next = true;
            }
            None => u.s_axis_pkt_tvalid.next = false,
        }
        match rdone {
            Some(r) => {
                u.s_axis_rdone_tdata.next = r;
                u.s_axis_rdone_tvalid.next = true;
            }
            None => u.s_axis_rdone_tvalid.next = false,
        }
        u.m_axis_pkt_tready.next = rng.below(100) < 60;
        u.m_axis_rdone_tready.next = rng.below(100) < 50;
        assert!(simulate(&mut u, 500));
        // The table as reads see it in this cycle (a record written now is not visible yet).
        let mut visible = pending.clone();
        if u.s_axis_rec_tvalid.val() {
            let r = u.s_axis_rec_tdata.val();
            visible.remove(&(r.conn.to_u64(), r.msn.to_u64() & ((1 << MB) - 1)));
        }
        // The same with the entries being invalidated still there.
        let mut stale = visible.clone();
        stale.extend(closing.iter().map(|(k, r)| (*k, *r)));
        if u.s_axis_pkt_tvalid.val() && u.s_axis_pkt_tready.val() {
            let (m, c) = pkt.take().unwrap();
            expected.push_back((m, c, Vec::new()));
        }
        // Every packet inside may see the table as it is in this cycle.
        for (m, c, views) in expected.iter_mut() {
            for v in [expect(&visible, m, c), expect(&stale, m, c)] {
                if !views.contains(&v) {
                    views.push(v);
                }
            }
        }
        if u.s_axis_rdone_tvalid.val() && u.s_axis_rdone_tready.val() {
            let r = rdone.take().unwrap();
            let slot = (r.conn.to_u64(), r.msn.to_u64() & ((1 << MB) - 1));
            if let Some(old) = pending.remove(&slot) {
                closing.insert(slot, old);
            }
            notices.push_back(r);
        }
        if u.m_axis_rdone_tvalid.val() && u.m_axis_rdone_tready.val() {
            let want = notices.pop_front().expect("notice out without one in");
            closing.remove(&(want.conn.to_u64(), want.msn.to_u64() & ((1 << MB) - 1)));
            assert_eq!(u.m_axis_rdone_tdata.val(), want, "forwarded notice");
            fwd += 1;
        }
        if u.m_axis_pkt_tvalid.val() && u.m_axis_pkt_tready.val() {
            let (em, _, views) = expected.pop_front().expect("output without input");
            let (om, oc) = (u.m_axis_pkt_tdata.val(), u.m_axis_pkt_tuser.val());
            let ec = views.iter().copied().find(|v| *v == oc).unwrap_or(views[0]);
            assert!(
                om == em,
                "packet {got}: metadata changed (op {})",
                em.opcode.to_u64()
            );
            assert!(
                oc == ec,
                "packet {got}: op {} conn {} key {:x} mlen {} addr {:x} plen {}: got ok {} addr {:x} lkey {:x} len {}, want ok {} addr {:x} lkey {:x} len {}",
                em.opcode.to_u64(), em.conn.to_u64(), em.key.to_u64(), em.msg_len.to_u64(),
                em.addr.to_u64(), em.payload_len.to_u64(), oc.rqe_ok, oc.rqe_addr.to_u64(),
                oc.rqe_lkey.to_u64(), oc.rqe_len.to_u64(), ec.rqe_ok, ec.rqe_addr.to_u64(),
                ec.rqe_lkey.to_u64(), ec.rqe_len.to_u64()
            );
            if ec.rqe_ok {
                found += 1;
            } else if em.opcode.to_u64() == Opcode::ReadResp as u64 {
                missed += 1;
            }
            got += 1;
        }
        step(&mut u);
    }
    println!("{got} packets: {found} responses found their READ, {missed} did not; {fwd} notices");
    assert!(
        found > 300 && missed > 100 && fwd > 20,
        "weak run: {found} found, {missed} missed, {fwd} notices"
    );
}
