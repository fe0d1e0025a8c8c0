//! The DMA multiplexers in rust-hdl's simulator: two requesters with random descriptors, random idle cycles
//! and random back-pressure on every side; every requester must get exactly its own answers, in its order.
//! Seeds are printed; `METAROCE_SEED=<n>` replays one.

use metaroce_hdl::dma::DmaDesc;
use metaroce_hdl::top::dma_mux::{DmaReadMux, DmaWriteMux};
use rust_hdl::prelude::*;
use std::collections::VecDeque;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn chance(&mut self, pct: u64) -> bool {
        self.next() % 100 < pct
    }
}

fn seeds() -> Vec<u64> {
    match std::env::var("METAROCE_SEED") {
        Ok(s) => vec![s.parse().expect("METAROCE_SEED must be a number")],
        Err(_) => vec![1, 2, 3],
    }
}

fn settle<B: Block>(uut: &mut B) {
    assert!(simulate(uut, 200), "the design did not settle");
}

fn desc(tag: u16, beats: u32) -> DmaDesc {
    DmaDesc {
        addr: bits(u64::from(tag) * 4096),
        len: bits(u64::from(beats) * 64),
        tag: bits(u64::from(tag)),
    }
}

#[test]
fn read_answers_go_back_to_their_requester_in_order() {
    for seed in seeds() {
        println!("seed {seed}");
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut m = DmaReadMux::<512, 64>::default();
        m.connect_all();
        m.rst.next = true;
        settle(&mut m);
        m.clk.next = Clock { clk: true };
        settle(&mut m);
        m.clk.next = Clock { clk: false };
        m.rst.next = false;
        settle(&mut m);
        // Each requester issues 20 reads of 1..4 beats; tag = requester * 1000 + n.
        let mut todo: [VecDeque<(u16, u32)>; 2] = [VecDeque::new(), VecDeque::new()];
        for (r, q) in todo.iter_mut().enumerate() {
            for n in 0..20u16 {
                q.push_back((r as u16 * 1000 + n, 1 + (rng.next() % 4) as u32));
            }
        }
        let mut expect: [VecDeque<(u16, u32)>; 2] = [todo[0].clone(), todo[1].clone()];
        let mut shell: VecDeque<(u16, u32)> = VecDeque::new(); // accepted descriptors, answered in order
        let mut beat = 0u32;
        let mut got = [0usize; 2];
        let mut cycles = 0;
        while got[0] + got[1] < 40 {
            cycles += 1;
            assert!(cycles < 20_000, "seed {seed}: stuck");
            let va = !todo[0].is_empty() && rng.chance(60);
            let vb = !todo[1].is_empty() && rng.chance(60);
            if let Some(&(t, b)) = todo[0].front() {
                m.s_axis_a_desc_tdata.next = desc(t, b);
            }
            if let Some(&(t, b)) = todo[1].front() {
                m.s_axis_b_desc_tdata.next = desc(t, b);
            }
            m.s_axis_a_desc_tvalid.next = va;
            m.s_axis_b_desc_tvalid.next = vb;
            m.m_axis_desc_tready.next = rng.chance(70);
            let answering = shell.front().copied();
            let dv = answering.is_some() && rng.chance(70);
            if let Some((t, b)) = answering {
                m.s_axis_tdata.next = bits(u64::from(t) << 8 | u64::from(beat));
                m.s_axis_tkeep.next = !Bits::<64>::default();
                m.s_axis_tlast.next = beat + 1 == b;
                m.s_axis_tuser.next = bits(u64::from(t));
            }
            m.s_axis_tvalid.next = dv;
            m.m_axis_a_tready.next = rng.chance(70);
            m.m_axis_b_tready.next = rng.chance(70);
            settle(&mut m);
            // Sample handshakes before the edge.
            if m.m_axis_desc_tvalid.val() && m.m_axis_desc_tready.val() {
                let d = m.m_axis_desc_tdata.val();
                let t = d.tag.index() as u16;
                let beats = (d.len.index() / 64) as u32;
                shell.push_back((t, beats));
                let r = usize::from(t >= 1000);
                assert_eq!(todo[r].pop_front(), Some((t, beats)), "seed {seed}");
                assert!(
                    (r == 0 && m.s_axis_a_desc_tready.val())
                        || (r == 1 && m.s_axis_b_desc_tready.val())
                );
            }
            for r in 0..2 {
                let (v, rd, data, last, user) = if r == 0 {
                    (
                        m.m_axis_a_tvalid.val(),
                        m.m_axis_a_tready.val(),
                        m.m_axis_a_tdata.val(),
                        m.m_axis_a_tlast.val(),
                        m.m_axis_a_tuser.val(),
                    )
                } else {
                    (
                        m.m_axis_b_tvalid.val(),
                        m.m_axis_b_tready.val(),
                        m.m_axis_b_tdata.val(),
                        m.m_axis_b_tlast.val(),
                        m.m_axis_b_tuser.val(),
                    )
                };
                if v && rd {
                    let (t, b) = *expect[r]
                        .front()
                        .expect("data for a requester with nothing outstanding");
                    assert_eq!(
                        user.index() as u16,
                        t,
                        "seed {seed}: requester {r} got another's data"
                    );
                    assert_eq!(
                        data.get_bits::<32>(0).index() as u32,
                        u32::from(t) << 8 | beat
                    );
                    assert_eq!(last, beat + 1 == b);
                    if last {
                        expect[r].pop_front();
                        got[r] += 1;
                    }
                }
            }
            let took = m.s_axis_tvalid.val() && m.s_axis_tready.val();
            if took {
                let (_, b) = shell[0];
                beat += 1;
                if beat == b {
                    beat = 0;
                    shell.pop_front();
                }
            }
            m.clk.next = Clock { clk: true };
            settle(&mut m);
            m.clk.next = Clock { clk: false };
            settle(&mut m);
        }
        println!("seed {seed}: 40 reads in {cycles} cycles");
    }
}

/// One write requester or the shell: writes whose descriptor has been taken and whose data has not ended
/// (tag, beats, beats sent).
type InFlight = VecDeque<(u16, u32, u32)>;

/// A write multiplexer between two requesters and a shell. In each cycle ([`WriteBench::cycle`]) a requester
/// offers its next descriptor while it has fewer than `ahead` writes in flight, and the data of its oldest; the
/// shell takes descriptors while it holds fewer than `ahead`, and data of its oldest, which must be the data of
/// the oldest granted write; done tags go back to their requester in order.
struct WriteBench {
    m: DmaWriteMux<512, 64>,
    todo: [VecDeque<(u16, u32)>; 2],
    sending: [InFlight; 2],
    shell: InFlight,
    shell_done: VecDeque<u16>,
    done_expect: [VecDeque<u16>; 2],
    done: usize,
}

impl WriteBench {
    fn new(todo: [VecDeque<(u16, u32)>; 2]) -> WriteBench {
        let mut m = DmaWriteMux::<512, 64>::default();
        m.connect_all();
        m.rst.next = true;
        settle(&mut m);
        m.clk.next = Clock { clk: true };
        settle(&mut m);
        m.clk.next = Clock { clk: false };
        m.rst.next = false;
        settle(&mut m);
        WriteBench {
            m,
            todo,
            sending: [VecDeque::new(), VecDeque::new()],
            shell: VecDeque::new(),
            shell_done: VecDeque::new(),
            done_expect: [VecDeque::new(), VecDeque::new()],
            done: 0,
        }
    }

    /// One cycle; `chance(p)` decides each random offer and ready with probability p percent.
    fn cycle(&mut self, seed: u64, ahead: usize, mut chance: impl FnMut(u64) -> bool) {
        let m = &mut self.m;
        for r in 0..2 {
            let (dv, dd) = match self.todo[r].front() {
                Some(&(t, b)) if self.sending[r].len() < ahead => (chance(60), desc(t, b)),
                _ => (false, DmaDesc::default()),
            };
            let (v, data, last) = match self.sending[r].front() {
                Some(&(t, b, beat)) => (
                    chance(70),
                    bits::<512>(u64::from(t) << 8 | u64::from(beat)),
                    beat + 1 == b,
                ),
                None => (false, Bits::default(), false),
            };
            if r == 0 {
                m.s_axis_a_desc_tvalid.next = dv;
                m.s_axis_a_desc_tdata.next = dd;
                m.s_axis_a_tvalid.next = v;
                m.s_axis_a_tdata.next = data;
                m.s_axis_a_tlast.next = last;
                m.s_axis_a_tkeep.next = !Bits::<64>::default();
            } else {
                m.s_axis_b_desc_tvalid.next = dv;
                m.s_axis_b_desc_tdata.next = dd;
                m.s_axis_b_tvalid.next = v;
                m.s_axis_b_tdata.next = data;
                m.s_axis_b_tlast.next = last;
                m.s_axis_b_tkeep.next = !Bits::<64>::default();
            }
        }
        m.m_axis_desc_tready.next = self.shell.len() < ahead && chance(70);
        m.m_axis_tready.next = !self.shell.is_empty() && chance(70);
        let dvalid = !self.shell_done.is_empty() && chance(50);
        m.s_axis_done_tvalid.next = dvalid;
        m.s_axis_done_tdata.next = bits(u64::from(self.shell_done.front().copied().unwrap_or(0)));
        settle(m);
        // The shell sees data before descriptors within a cycle: data never runs ahead of its descriptor.
        if m.m_axis_tvalid.val() && m.m_axis_tready.val() {
            let (t, b, beat) = *self.shell.front().expect("data without a descriptor");
            assert_eq!(
                m.m_axis_tdata.val().get_bits::<32>(0).index() as u32,
                u32::from(t) << 8 | beat,
                "seed {seed}: data of another write"
            );
            assert_eq!(m.m_axis_tlast.val(), beat + 1 == b);
            let r = usize::from(t >= 1000);
            assert_eq!(
                self.sending[r].front().map(|w| w.0),
                Some(t),
                "seed {seed}: order"
            );
            if beat + 1 == b {
                self.shell.pop_front();
                self.sending[r].pop_front();
                self.shell_done.push_back(t);
                self.done_expect[r].push_back(t);
            } else {
                self.shell[0].2 += 1;
                self.sending[r][0].2 += 1;
            }
        }
        if m.m_axis_desc_tvalid.val() && m.m_axis_desc_tready.val() {
            let d = m.m_axis_desc_tdata.val();
            let t = d.tag.index() as u16;
            let b = (d.len.index() / 64) as u32;
            let r = usize::from(t >= 1000);
            assert_eq!(self.todo[r].pop_front(), Some((t, b)));
            self.sending[r].push_back((t, b, 0));
            self.shell.push_back((t, b, 0));
        }
        if m.m_axis_a_done_tvalid.val() {
            assert_eq!(
                self.done_expect[0].pop_front(),
                Some(m.m_axis_a_done_tdata.val().index() as u16)
            );
            self.done += 1;
        }
        if m.m_axis_b_done_tvalid.val() {
            assert_eq!(
                self.done_expect[1].pop_front(),
                Some(m.m_axis_b_done_tdata.val().index() as u16)
            );
            self.done += 1;
        }
        if dvalid {
            self.shell_done.pop_front();
        }
        m.clk.next = Clock { clk: true };
        settle(m);
        m.clk.next = Clock { clk: false };
        settle(m);
    }
}

#[test]
fn write_descriptors_keep_their_data_and_done_tags_go_back() {
    for seed in seeds() {
        println!("seed {seed}");
        let mut rng = Rng(seed.wrapping_mul(0xD1B5_4A32_D192_ED03) | 1);
        let mut todo: [VecDeque<(u16, u32)>; 2] = [VecDeque::new(), VecDeque::new()];
        for (r, q) in todo.iter_mut().enumerate() {
            for n in 0..15u16 {
                q.push_back((r as u16 * 1000 + n, 1 + (rng.next() % 4) as u32));
            }
        }
        let mut b = WriteBench::new(todo);
        let mut cycles = 0;
        while b.done < 30 {
            cycles += 1;
            assert!(cycles < 20_000, "seed {seed}: stuck");
            // Requesters and the shell hold up to three writes each: the multiplexer must keep the order.
            b.cycle(seed, 3, |p| rng.chance(p));
        }
        println!("seed {seed}: 30 writes in {cycles} cycles");
    }
}

/// Writes offered back to back by one requester, the shell always ready: the next descriptor is granted while
/// the data before it passes, so the data beats follow each other without a gap.
#[test]
fn back_to_back_writes_pass_without_a_gap() {
    let todo = [(0..10u16).map(|n| (n, 4)).collect(), VecDeque::new()];
    let mut b = WriteBench::new(todo);
    let mut last_beat = 0;
    let mut cycles = 0;
    while b.done < 10 {
        cycles += 1;
        assert!(cycles < 1_000, "stuck");
        let before = b.shell_done.len() + b.done;
        b.cycle(0, 2, |_| true);
        if b.shell_done.len() + b.done > before {
            last_beat = cycles;
        }
    }
    // Descriptor in cycle 1, its data from cycle 2: 40 beats end in cycle 41.
    println!("10 writes of 4 beats: last beat in cycle {last_beat}");
    assert!(
        last_beat <= 41,
        "last beat in cycle {last_beat}, 41 without gaps"
    );
}
