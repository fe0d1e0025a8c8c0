//! End-of-run checks: completions, memory contents and where the transport wrote.
//!
//! [`CheckedMemory`] wraps any [`Memory`] and records every `write` once recording is switched on (after the
//! set-up prefill). [`Expectations`] lists, per endpoint, what must have happened; [`check_side`] compares:
//! * every posted send WR completed exactly once, in posting order per QP (MR-SEM: completions in message
//!   order), with an allowed status and the right opcode;
//! * every receive WQE that a SEND / WRITE_IMM consumes completed once, in order, with the right length and
//!   immediate (and no other receive completed);
//! * memory is byte-exact against the shadow (every expected range);
//! * every recorded write lies inside an expected target range, inside a region registered with the needed
//!   right (MR-SEM: checks before placement), and (optionally) no byte was written twice (MR-REL exactly-once
//!   placement).

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::cell::Cell;

use crate::transport::{Access, Completion, Event, Memory, Qpn, WcOpcode, WcStatus};

/// One recorded `Memory::write`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteRecord {
    /// Start address.
    pub addr: u64,
    /// Length in bytes.
    pub len: u64,
}

/// A memory that records the transport's writes (after [`CheckedMemory::start_recording`]).
#[derive(Clone, Debug, Default)]
pub struct CheckedMemory<M> {
    inner: M,
    recording: bool,
    log: Vec<WriteRecord>,
    reads: Cell<u64>,
}

impl<M: Memory> CheckedMemory<M> {
    /// Wraps `inner`; recording is off (set-up writes are not logged).
    pub fn new(inner: M) -> Self {
        CheckedMemory {
            inner,
            recording: false,
            log: Vec::new(),
            reads: Cell::new(0),
        }
    }

    /// Starts logging writes.
    pub fn start_recording(&mut self) {
        self.recording = true;
    }

    /// The recorded writes, in order.
    pub fn writes(&self) -> &[WriteRecord] {
        &self.log
    }

    /// Number of `read` calls.
    pub fn reads(&self) -> u64 {
        self.reads.get()
    }

    /// The wrapped memory.
    pub fn inner(&self) -> &M {
        &self.inner
    }

    /// Reads `len` bytes into a new vector.
    pub fn read_vec(&self, addr: u64, len: usize) -> Vec<u8> {
        let mut v = vec![0u8; len];
        self.inner.read(addr, &mut v);
        v
    }
}

impl<M: Memory> Memory for CheckedMemory<M> {
    fn read(&self, addr: u64, buf: &mut [u8]) {
        self.reads.set(self.reads.get() + 1);
        self.inner.read(addr, buf);
    }

    fn write(&mut self, addr: u64, data: &[u8]) {
        if self.recording {
            self.log.push(WriteRecord {
                addr,
                len: data.len() as u64,
            });
        }
        self.inner.write(addr, data);
    }
}

/// A registered memory region as the workload registered it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegionSpec {
    /// Start address.
    pub addr: u64,
    /// Length.
    pub len: u64,
    /// Rights it was registered with.
    pub access: Access,
}

impl RegionSpec {
    fn contains(&self, addr: u64, len: u64) -> bool {
        addr >= self.addr
            && addr
                .checked_add(len)
                .is_some_and(|e| e <= self.addr + self.len)
    }
}

/// A range the transport may write, and the access right that write needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteTarget {
    /// Start address.
    pub addr: u64,
    /// Length.
    pub len: u64,
    /// Right the containing region needs: `REMOTE_WRITE` for WRITE targets, `LOCAL_WRITE` for receive
    /// buffers and READ sinks.
    pub right: Access,
}

/// What one send WR must complete with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpectedSend {
    /// QP it was posted on.
    pub qpn: Qpn,
    /// Its id.
    pub wr_id: u64,
    /// Completion opcode.
    pub opcode: WcOpcode,
    /// Acceptable statuses (Success for a clean run; error scenarios list the defined errors).
    pub allowed: Vec<WcStatus>,
}

/// What one receive WQE must complete with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpectedRecv {
    /// QP it was posted on.
    pub qpn: Qpn,
    /// Its id.
    pub wr_id: u64,
    /// `Recv` (SEND) or `RecvWriteImm` (WRITE_IMM).
    pub opcode: WcOpcode,
    /// Bytes the message carried.
    pub byte_len: u32,
    /// Immediate data carried.
    pub imm: Option<u32>,
}

/// Everything one endpoint must show at the end of a run.
#[derive(Clone, Debug, Default)]
pub struct Expectations {
    /// Send WRs posted on this endpoint, in posting order.
    pub sends: Vec<ExpectedSend>,
    /// Receive WQEs of this endpoint that incoming messages consume, in consumption order.
    pub recvs: Vec<ExpectedRecv>,
    /// Receive WQEs posted but not consumed by any message (they must not complete).
    pub spare_recvs: Vec<u64>,
    /// Expected memory contents.
    pub memory: Vec<(u64, Vec<u8>)>,
    /// Ranges the transport may write (READ sinks, WRITE targets, receive buffers), each with the right the
    /// region holding it must have been registered with.
    pub write_targets: Vec<WriteTarget>,
    /// Regions registered on this endpoint.
    pub regions: Vec<RegionSpec>,
    /// Fail if any byte was written twice (exactly-once placement).
    pub exactly_once: bool,
}

/// Summary of a successful check.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckSummary {
    /// Send completions seen.
    pub send_completions: u64,
    /// Send completions with status Success.
    pub send_success: u64,
    /// Receive completions seen.
    pub recv_completions: u64,
    /// Bytes compared against the shadow.
    pub bytes_checked: u64,
    /// Writes recorded.
    pub writes: u64,
}

/// Compares what one endpoint did against `exp`. `events` are all events of that endpoint; `writes` its
/// recorded writes. Returns a one-line description of the first problem found.
pub fn check_side<M: Memory>(
    label: &str,
    exp: &Expectations,
    events: &[Event],
    mem: &M,
    writes: &[WriteRecord],
) -> Result<CheckSummary, String> {
    let mut sum = CheckSummary::default();
    let comps: Vec<&Completion> = events
        .iter()
        .filter_map(|e| match e {
            Event::Completion(c) => Some(c),
            _ => None,
        })
        .collect();
    let is_recv = |c: &Completion| matches!(c.opcode, WcOpcode::Recv | WcOpcode::RecvWriteImm);

    // Send completions: exactly once, in order, per QP.
    let mut qpns: Vec<Qpn> = exp.sends.iter().map(|s| s.qpn).collect();
    qpns.sort_unstable();
    qpns.dedup();
    let send_comps: Vec<&&Completion> = comps.iter().filter(|c| !is_recv(c)).collect();
    for c in &send_comps {
        if !qpns.contains(&c.qpn) {
            return Err(format!("{label}: completion on unexpected QP: {c:?}"));
        }
    }
    for q in qpns {
        let want: Vec<&ExpectedSend> = exp.sends.iter().filter(|s| s.qpn == q).collect();
        let got: Vec<&&&Completion> = send_comps.iter().filter(|c| c.qpn == q).collect();
        for (i, w) in want.iter().enumerate() {
            let Some(c) = got.get(i) else {
                return Err(format!(
                    "{label}: QP {q}: only {} of {} send WRs completed; first missing wr_id {}",
                    got.len(),
                    want.len(),
                    w.wr_id
                ));
            };
            if c.wr_id != w.wr_id {
                return Err(format!(
                    "{label}: QP {q}: completion #{i} is wr_id {} but wr_id {} was posted next (order or duplicate)",
                    c.wr_id, w.wr_id
                ));
            }
            if !w.allowed.contains(&c.status) {
                return Err(format!(
                    "{label}: QP {q}: wr_id {} completed with {:?}, allowed {:?}",
                    c.wr_id, c.status, w.allowed
                ));
            }
            if c.status == WcStatus::Success && c.opcode != w.opcode {
                return Err(format!(
                    "{label}: QP {q}: wr_id {} opcode {:?}, expected {:?}",
                    c.wr_id, c.opcode, w.opcode
                ));
            }
            sum.send_completions += 1;
            if c.status == WcStatus::Success {
                sum.send_success += 1;
            }
        }
        if got.len() > want.len() {
            return Err(format!(
                "{label}: QP {q}: {} send completions for {} WRs (extra: {:?})",
                got.len(),
                want.len(),
                got.get(want.len())
            ));
        }
    }

    // Receive completions: per QP in order, those consumed by messages; the spare ones never (unless flushed).
    let recv_comps: Vec<&&Completion> = comps.iter().filter(|c| is_recv(c)).collect();
    let mut rq: Vec<Qpn> = exp.recvs.iter().map(|r| r.qpn).collect();
    rq.extend(recv_comps.iter().map(|c| c.qpn));
    rq.sort_unstable();
    rq.dedup();
    let all_sends_ok = exp.sends.iter().all(|s| s.allowed == [WcStatus::Success]);
    for q in rq {
        let want: Vec<&ExpectedRecv> = exp.recvs.iter().filter(|r| r.qpn == q).collect();
        let mut next = 0usize;
        for c in recv_comps.iter().filter(|c| c.qpn == q) {
            if c.status == WcStatus::Flushed {
                continue;
            }
            let Some(w) = want.get(next) else {
                return Err(format!("{label}: unexpected receive completion {c:?}"));
            };
            if c.wr_id != w.wr_id {
                return Err(format!(
                    "{label}: receive completion #{next} on QP {q} is {c:?}, expected wr_id {}",
                    w.wr_id
                ));
            }
            if c.status == WcStatus::Success
                && (c.opcode != w.opcode || c.byte_len != w.byte_len || c.imm != w.imm)
            {
                return Err(format!(
                    "{label}: receive completion {c:?} does not match {w:?}"
                ));
            }
            next += 1;
            sum.recv_completions += 1;
        }
        if next != want.len() && all_sends_ok {
            return Err(format!(
                "{label}: QP {q}: {} of {} receive WQEs completed",
                next,
                want.len()
            ));
        }
    }
    for c in &recv_comps {
        if c.status != WcStatus::Flushed && exp.spare_recvs.contains(&c.wr_id) {
            return Err(format!("{label}: spare receive WQE completed: {c:?}"));
        }
    }

    // Memory byte-exact.
    for (addr, want) in &exp.memory {
        let mut got = vec![0u8; want.len()];
        mem.read(*addr, &mut got);
        if let Some(i) = got.iter().zip(want).position(|(a, b)| a != b) {
            return Err(format!(
                "{label}: memory mismatch at {:#x} (offset {i} of a {}-byte range at {addr:#x}): got {:#04x}, want {:#04x}",
                addr + i as u64,
                want.len(),
                got[i],
                want[i]
            ));
        }
        sum.bytes_checked += want.len() as u64;
    }

    // Where the writes went.
    for w in writes {
        if w.len == 0 {
            continue;
        }
        let end = w.addr.checked_add(w.len);
        let Some(t) = exp
            .write_targets
            .iter()
            .find(|t| w.addr >= t.addr && end.is_some_and(|e| e <= t.addr + t.len))
        else {
            return Err(format!(
                "{label}: write of {} bytes at {:#x} outside every expected target",
                w.len, w.addr
            ));
        };
        let in_region = exp
            .regions
            .iter()
            .any(|r| r.contains(w.addr, w.len) && r.access.contains(t.right));
        if !in_region {
            return Err(format!(
                "{label}: write of {} bytes at {:#x} not inside a region registered with {:?}",
                w.len, w.addr, t.right
            ));
        }
    }
    if exp.exactly_once {
        let mut v: Vec<WriteRecord> = writes.iter().copied().filter(|w| w.len > 0).collect();
        v.sort_unstable_by_key(|w| w.addr);
        for pair in v.windows(2) {
            if pair[0].addr + pair[0].len > pair[1].addr {
                return Err(format!(
                    "{label}: bytes written twice: {:?} overlaps {:?} (exactly-once placement)",
                    pair[0], pair[1]
                ));
            }
        }
    }
    sum.writes = writes.len() as u64;
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::SparseMemory;

    fn comp(wr_id: u64, opcode: WcOpcode, status: WcStatus) -> Event {
        Event::Completion(Completion {
            qpn: 1,
            wr_id,
            opcode,
            status,
            byte_len: 0,
            imm: None,
        })
    }

    fn exp_two() -> Expectations {
        Expectations {
            sends: (1..=2)
                .map(|i| ExpectedSend {
                    qpn: 1,
                    wr_id: i,
                    opcode: WcOpcode::Write,
                    allowed: vec![WcStatus::Success],
                })
                .collect(),
            regions: vec![RegionSpec {
                addr: 0x1000,
                len: 0x1000,
                access: Access::REMOTE_WRITE,
            }],
            write_targets: vec![WriteTarget {
                addr: 0x1000,
                len: 0x100,
                right: Access::REMOTE_WRITE,
            }],
            memory: vec![(0x1000, vec![7; 4])],
            exactly_once: true,
            ..Default::default()
        }
    }

    #[test]
    fn verifier_accepts_a_good_run_and_catches_each_fault() {
        let mut m = CheckedMemory::new(SparseMemory::new());
        m.start_recording();
        m.write(0x1000, &[7; 4]);
        let good = [
            comp(1, WcOpcode::Write, WcStatus::Success),
            comp(2, WcOpcode::Write, WcStatus::Success),
        ];
        let e = exp_two();
        assert!(check_side("t", &e, &good, &m, m.writes()).is_ok());
        // Out of order.
        let bad = [good[1], good[0]];
        assert!(check_side("t", &e, &bad, &m, m.writes()).is_err());
        // Duplicate.
        let dup = [good[0], good[1], good[1]];
        assert!(check_side("t", &e, &dup, &m, m.writes()).is_err());
        // Missing.
        assert!(check_side("t", &e, &good[..1], &m, m.writes()).is_err());
        // Wrong status.
        let st = [good[0], comp(2, WcOpcode::Write, WcStatus::RetryExceeded)];
        assert!(check_side("t", &e, &st, &m, m.writes()).is_err());
        // Memory mismatch.
        let mut m2 = CheckedMemory::new(SparseMemory::new());
        m2.write(0x1000, &[7, 7, 6, 7]);
        assert!(check_side("t", &e, &good, &m2, m2.writes()).is_err());
        // Write outside the target, and a double write.
        m.write(0x1800, &[1]);
        assert!(check_side("t", &e, &good, &m, m.writes()).is_err());
        let mut m3 = CheckedMemory::new(SparseMemory::new());
        m3.start_recording();
        m3.write(0x1000, &[7; 4]);
        m3.write(0x1002, &[7; 2]);
        assert!(check_side("t", &e, &good, &m3, m3.writes()).is_err());
        // A target inside a region lacking the needed right.
        let mut e2 = exp_two();
        e2.regions[0].access = Access::REMOTE_READ;
        let mut m4 = CheckedMemory::new(SparseMemory::new());
        m4.start_recording();
        m4.write(0x1000, &[7; 4]);
        assert!(check_side("t", &e2, &good, &m4, m4.writes()).is_err());
        assert!(check_side("t", &e, &good, &m4, m4.writes()).is_ok());
    }
}
