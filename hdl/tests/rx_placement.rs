//! Payload placement in rust-hdl's simulator: random packets (placed, discarded by the checks or by a drop
//! code, and without payload) with random idle cycles on both inputs, random back-pressure on the DMA
//! descriptor and data outputs and write completions after random delays. Every placed payload must leave as
//! one DMA write of exactly its bytes at its address, in order; every other payload is consumed and dropped;
//! `safe_count` never counts a packet before its payload is consumed and all writes up to it are done. A
//! second test measures the cycles of back-to-back 4 KiB packets. `HDL_SEED` replays a run.

mod support;

use metaroce_hdl::records::PktMeta;
use metaroce_hdl::rx::mr_check::RxCheck;
use metaroce_hdl::rx::placement::Placement;
use rust_hdl::prelude::*;
use std::collections::VecDeque;
use support::{iters, seed, Rng};

type Uut = Placement<512, 64>;

/// Beat width, bytes.
const BEAT: usize = 64;

/// One packet of a run.
#[derive(Clone, Debug)]
struct Pkt {
    len: usize,
    placed: bool,
    /// Why an unplaced packet is not placed: 0 the check's `place` clear, 1 a NACK, 2 a drop code.
    how: u8,
    addr: u64,
    bytes: Vec<u8>,
}

fn settle(u: &mut Uut) {
    assert!(simulate(u, 200), "the design did not settle");
}

fn clock(u: &mut Uut) {
    settle(u);
    u.clk.next = Clock { clk: true };
    settle(u);
    u.clk.next = Clock { clk: false };
    settle(u);
}

fn fresh() -> Uut {
    let mut u = Uut::default();
    u.connect_all();
    u.rst.next = true;
    clock(&mut u);
    u.rst.next = false;
    settle(&mut u);
    u
}

fn beat_words(bytes: &[u8]) -> (Bits<512>, Bits<64>) {
    let mut d = Bits::<512>::default();
    for (i, b) in bytes.iter().enumerate() {
        d = d | (Bits::<512>::from(u64::from(*b)) << (8 * i as u64));
    }
    let keep = if bytes.len() >= 64 {
        u64::MAX
    } else {
        (1u64 << bytes.len()) - 1
    };
    (d, keep.to_bits())
}

fn beat_bytes(d: Bits<512>, keep: u64) -> Vec<u8> {
    (0..BEAT)
        .filter(|i| keep >> i & 1 == 1)
        .map(|i| (d.get_bits::<8>(8 * i).index() & 0xff) as u8)
        .collect()
}

/// Idle and back-pressure probabilities of a run, percent.
#[derive(Clone, Copy)]
struct Timing {
    pkt_idle: u64,
    pay_idle: u64,
    desc_busy: u64,
    data_busy: u64,
}

/// What a run saw: the writes (address, bytes, tag), in order, and the cycle of the last write's last beat.
struct Seen {
    writes: Vec<(u64, Vec<u8>, u64)>,
    last_beat: u64,
}

fn run(pkts: &[Pkt], t: Timing, rng: &mut Rng) -> Seen {
    let mut u = fresh();
    let mut recs: VecDeque<usize> = (0..pkts.len()).collect();
    // Payload beats of every packet in order (none for a packet without payload).
    let mut beats: VecDeque<(usize, Vec<u8>, bool)> = VecDeque::new();
    for (i, p) in pkts.iter().enumerate() {
        let chunks: Vec<&[u8]> = p.bytes.chunks(BEAT).collect();
        for (k, c) in chunks.iter().enumerate() {
            beats.push_back((i, c.to_vec(), k + 1 == chunks.len()));
        }
    }
    let mut descs: VecDeque<(u64, u64, u64)> = VecDeque::new();
    let mut writes: Vec<(u64, Vec<u8>, u64)> = Vec::new();
    let mut cur: Vec<u8> = Vec::new();
    // Write completions due: (cycle, tag).
    let mut dones: VecDeque<(u64, u64)> = VecDeque::new();
    // Per packet: payload consumed, write done.
    let mut consumed = vec![false; pkts.len()];
    let mut done = vec![false; pkts.len()];
    let mut taken = 0usize;
    let (mut pkt_on, mut pay_on) = (false, false);
    let mut cycle = 0u64;
    let mut last_beat = 0;
    while writes.len() < pkts.iter().filter(|p| p.placed).count()
        || !beats.is_empty()
        || !recs.is_empty()
        || !dones.is_empty()
        || u.safe_count.val().index() as usize != pkts.len()
    {
        cycle += 1;
        assert!(cycle < 200_000, "stuck: {taken} packets taken");
        // Inputs: a valid offer stays until taken (AXI-Stream).
        if !pkt_on && !recs.is_empty() && rng.below(100) >= t.pkt_idle {
            pkt_on = true;
        }
        if let (true, Some(&i)) = (pkt_on, recs.front()) {
            let p = &pkts[i];
            let m = PktMeta {
                payload_len: (p.len as u64).to_bits(),
                drop: u64::from(p.how == 2 && !p.placed).to_bits(),
                ..Default::default()
            };
            let c = RxCheck {
                place: p.placed || p.how != 0,
                nack: !p.placed && p.how == 1,
                place_addr: p.addr.to_bits(),
                ..Default::default()
            };
            u.s_axis_pkt_tdata.next = m;
            u.s_axis_pkt_tuser.next = c;
        }
        u.s_axis_pkt_tvalid.next = pkt_on;
        if !pay_on && !beats.is_empty() && rng.below(100) >= t.pay_idle {
            pay_on = true;
        }
        if let (true, Some((_, b, last))) = (pay_on, beats.front()) {
            let (d, k) = beat_words(b);
            u.s_axis_pay_tdata.next = d;
            u.s_axis_pay_tkeep.next = k;
            u.s_axis_pay_tlast.next = *last;
        }
        u.s_axis_pay_tvalid.next = pay_on;
        u.m_axis_dma_wr_desc_tready.next = rng.below(100) >= t.desc_busy;
        u.m_axis_dma_wr_tready.next = rng.below(100) >= t.data_busy;
        let fin = dones.front().is_some_and(|&(at, _)| at <= cycle);
        u.s_axis_dma_wr_done_tvalid.next = fin;
        if fin {
            u.s_axis_dma_wr_done_tdata.next = dones[0].1.to_bits();
        }
        settle(&mut u);
        // Handshakes of this cycle.
        if pkt_on && u.s_axis_pkt_tready.val() {
            recs.pop_front();
            pkt_on = false;
            taken += 1;
        }
        if pay_on && u.s_axis_pay_tready.val() {
            let (i, _, last) = beats.pop_front().expect("a beat was offered");
            if last {
                consumed[i] = true;
            }
            pay_on = false;
        }
        if u.m_axis_dma_wr_desc_tvalid.val() && u.m_axis_dma_wr_desc_tready.val() {
            let d = u.m_axis_dma_wr_desc_tdata.val();
            descs.push_back((d.addr.to_u64(), d.len.to_u64(), d.tag.to_u64()));
        }
        if u.m_axis_dma_wr_tvalid.val() && u.m_axis_dma_wr_tready.val() {
            assert!(
                !descs.is_empty(),
                "cycle {cycle}: write data before its descriptor"
            );
            cur.extend(beat_bytes(
                u.m_axis_dma_wr_tdata.val(),
                u.m_axis_dma_wr_tkeep.val().to_u64(),
            ));
            if u.m_axis_dma_wr_tlast.val() {
                let (addr, len, tag) = descs.pop_front().expect("checked above");
                assert_eq!(cur.len() as u64, len, "cycle {cycle}: write length");
                writes.push((addr, std::mem::take(&mut cur), tag));
                last_beat = cycle;
                dones.push_back((cycle + 1 + rng.below(40), tag));
            }
        }
        if fin {
            let (_, tag) = dones.pop_front().expect("checked above");
            // The tag is the packet number (16 bits).
            let i = (0..pkts.len())
                .find(|&i| pkts[i].placed && !done[i] && i as u64 & 0xffff == tag)
                .expect("a completion for a write that was issued");
            done[i] = true;
        }
        clock(&mut u);
        // safe_count: only packets whose payload is consumed and all of whose writes (and those before) are done.
        let safe_max = (0..pkts.len())
            .take_while(|&i| (consumed[i] || pkts[i].len == 0) && (!pkts[i].placed || done[i]))
            .count();
        let safe = u.safe_count.val().index();
        assert!(
            safe <= safe_max,
            "cycle {cycle}: safe_count {safe}, but only {safe_max} packets are consumed and written"
        );
        assert_eq!(u.pkt_count.val().index(), taken, "cycle {cycle}: pkt_count");
    }
    Seen { writes, last_beat }
}

fn random_pkts(rng: &mut Rng, n: usize) -> Vec<Pkt> {
    (0..n)
        .map(|i| {
            let len = match rng.below(6) {
                0 => 0,
                1 => 4096,
                _ => 1 + rng.below(300) as usize,
            };
            let placed = rng.below(3) != 0;
            Pkt {
                len,
                placed: placed && len > 0,
                how: rng.below(3) as u8,
                addr: 0x1000_0000 + (i as u64) * 0x2000 + rng.below(64),
                bytes: (0..len).map(|_| rng.next() as u8).collect(),
            }
        })
        .collect()
}

#[test]
fn mr_sem_12_placed_payloads_are_written_exactly_and_others_dropped() {
    let mut rng = Rng(seed());
    let n = iters(300);
    for t in [
        Timing {
            pkt_idle: 0,
            pay_idle: 0,
            desc_busy: 0,
            data_busy: 0,
        },
        Timing {
            pkt_idle: 30,
            pay_idle: 20,
            desc_busy: 30,
            data_busy: 20,
        },
        Timing {
            pkt_idle: 70,
            pay_idle: 5,
            desc_busy: 60,
            data_busy: 50,
        },
    ] {
        let pkts = random_pkts(&mut rng, n);
        let seen = run(&pkts, t, &mut rng);
        let want: Vec<(u64, Vec<u8>, u64)> = pkts
            .iter()
            .enumerate()
            .filter(|(_, p)| p.placed)
            .map(|(i, p)| (p.addr, p.bytes.clone(), i as u64 & 0xffff))
            .collect();
        assert_eq!(seen.writes.len(), want.len(), "writes");
        for (k, (got, want)) in seen.writes.iter().zip(&want).enumerate() {
            assert_eq!(got, want, "write {k}");
        }
    }
}

/// Back-to-back 4 KiB packets, always offered and always taken: after the first packet's descriptor cycle, 64
/// beats each (the next packet's descriptor leaves while the payload before it passes), so placement keeps up
/// with frames of 66 beats at 512 bits (and of 33 beats with its 32 at 1024).
#[test]
fn back_to_back_4k_packets_take_64_cycles_each() {
    let mut rng = Rng(seed());
    let n = 32;
    let pkts: Vec<Pkt> = (0..n)
        .map(|i| Pkt {
            len: 4096,
            placed: true,
            how: 0,
            addr: 0x2000_0000 + i as u64 * 4096,
            bytes: (0..4096).map(|_| rng.next() as u8).collect(),
        })
        .collect();
    let t = Timing {
        pkt_idle: 0,
        pay_idle: 0,
        desc_busy: 0,
        data_busy: 0,
    };
    let seen = run(&pkts, t, &mut rng);
    assert_eq!(seen.writes.len(), n);
    // The first packet is taken in cycle 1, its descriptor leaves in cycle 2 and its data from cycle 4.
    let budget = n as u64 * 64 + 3;
    println!("last beat of {n} packets in cycle {}", seen.last_beat);
    assert!(
        seen.last_beat <= budget,
        "{n} packets ended in cycle {}, budget {budget}",
        seen.last_beat
    );
}
