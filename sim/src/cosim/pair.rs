//! Two co-simulated cores joined by an Ethernet link: each direction is the reference harness's link model
//! (`metaroce_proto::harness::link`: paths with their delays, loss, duplication, corruption, jitter that
//! reorders, trimming, ECN), on virtual time derived from the cycle count at the cores' clock period.

use super::core::{BenchError, CoreBench};
use metaroce_proto::harness::link::{Link, LinkConfig};

/// Two cores and the link between them, stepped in lockstep.
pub struct NicPair {
    /// Core A.
    pub a: CoreBench,
    /// Core B.
    pub b: CoreBench,
    /// Link from A to B.
    pub ab: Link,
    /// Link from B to A.
    pub ba: Link,
    /// Clock period, picoseconds.
    pub period_ps: u64,
}

impl NicPair {
    /// Joins `a` and `b` with one link configuration per direction (`seed` makes the two directions'
    /// random streams).
    pub fn new(a: CoreBench, b: CoreBench, link: LinkConfig, period_ps: u64, seed: u64) -> NicPair {
        NicPair {
            a,
            b,
            ab: Link::new(link.clone(), seed ^ 0xA5A5),
            ba: Link::new(link, seed ^ 0x5A5A),
            period_ps,
        }
    }

    /// Virtual time now, ns (core A's cycle count at the clock period).
    pub fn now_ns(&self) -> u64 {
        self.a.m.cycle() * self.period_ps / 1000
    }

    /// One clock cycle of both cores, then frames move between them and the links.
    pub fn step(&mut self) -> Result<(), BenchError> {
        self.step_filtered(|_, _| true)
    }

    /// [`NicPair::step`] with a fault of the test's own: a frame a core sent enters the link only if
    /// `keep(from_a, frame)` (dropped frames are not counted by the link).
    pub fn step_filtered(
        &mut self,
        mut keep: impl FnMut(bool, &[u8]) -> bool,
    ) -> Result<(), BenchError> {
        self.a.step()?;
        self.b.step()?;
        let now = self.now_ns();
        while let Some((f, _)) = self.a.tx.pop_frame() {
            if keep(true, &f) {
                self.ab.send(now, f);
            }
        }
        while let Some((f, _)) = self.b.tx.pop_frame() {
            if keep(false, &f) {
                self.ba.send(now, f);
            }
        }
        while let Some(f) = self.ab.pop_due(now) {
            self.b.rx.push_frame(&f, 0);
        }
        while let Some(f) = self.ba.pop_due(now) {
            self.a.rx.push_frame(&f, 0);
        }
        Ok(())
    }

    /// Runs `n` cycles.
    pub fn run(&mut self, n: u64) -> Result<(), BenchError> {
        for _ in 0..n {
            self.step()?;
        }
        Ok(())
    }
}
