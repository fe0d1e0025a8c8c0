//! Random message workloads with a shadow of the memory they must produce.
//!
//! A [`Flow`] is one requester QP talking to one responder QP. Planning it (from a seeded [`Rng`]):
//! * draws a mix of WRITE, WRITE_IMM, SEND, SEND_IMM and READ messages with sizes from 0 to a few MTUs and,
//!   occasionally, up to [`WorkloadConfig::big_size`] (256 KiB by default);
//! * lays out memory with distinct, non-overlapping targets so that the final contents are exactly defined
//!   whatever order packets are placed in: WRITE targets in REMOTE_WRITE regions separated by unregistered
//!   guard gaps (some messages end exactly at a region's last byte), READ sources in a prefilled REMOTE_READ
//!   region, READ sinks and receive buffers (with slack that must stay untouched) in LOCAL_WRITE regions;
//! * registers the regions, prefills the source data, and records the [`Expectations`] of both endpoints.
//!
//! [`Flow::pump`] then posts receives and sends as the queues accept them.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use alloc::{format, string::ToString};

use super::rng::Rng;
use super::verify::{
    CheckedMemory, Expectations, ExpectedRecv, ExpectedSend, RegionSpec, WriteTarget,
};
use crate::transport::{
    Access, Endpoint, Instant, Memory, MrKeys, Qpn, RecvWr, SendOp, SendWr, Sge, SparseMemory,
    VerbsError, WcOpcode, WcStatus,
};

/// The memory type the harness runs endpoints on.
pub type HarnessMemory = CheckedMemory<SparseMemory>;

/// Message kinds a workload draws from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// RDMA WRITE.
    Write,
    /// RDMA WRITE with immediate (consumes a receive WQE).
    WriteImm,
    /// SEND into a posted receive.
    Send,
    /// SEND with immediate.
    SendImm,
    /// RDMA READ.
    Read,
}

impl OpKind {
    /// All kinds.
    pub const ALL: [OpKind; 5] = [
        OpKind::Write,
        OpKind::WriteImm,
        OpKind::Send,
        OpKind::SendImm,
        OpKind::Read,
    ];

    /// Parses `write`, `write_imm`, `send`, `send_imm`, `read`.
    pub fn parse(s: &str) -> Option<OpKind> {
        Some(match s {
            "write" => OpKind::Write,
            "write_imm" | "writeimm" => OpKind::WriteImm,
            "send" => OpKind::Send,
            "send_imm" | "sendimm" => OpKind::SendImm,
            "read" => OpKind::Read,
            _ => return None,
        })
    }

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Write => "write",
            OpKind::WriteImm => "write_imm",
            OpKind::Send => "send",
            OpKind::SendImm => "send_imm",
            OpKind::Read => "read",
        }
    }
}

/// What to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkloadConfig {
    /// Messages per flow.
    pub messages: usize,
    /// Kinds to draw from, uniformly (repeat a kind to weight it).
    pub mix: Vec<OpKind>,
    /// Usual sizes are uniform in `0..=max_size` bytes.
    pub max_size: u32,
    /// Every message has exactly this size (overrides the random sizes).
    pub fixed_size: Option<u32>,
    /// Size of an occasional big message.
    pub big_size: u32,
    /// Chance of a big message, per mille.
    pub big_per_mille: u32,
    /// Chance of a zero-length message, per mille.
    pub zero_per_mille: u32,
}

impl Default for WorkloadConfig {
    fn default() -> Self {
        WorkloadConfig {
            messages: 300,
            mix: OpKind::ALL.to_vec(),
            max_size: 3 * 4096 + 100,
            fixed_size: None,
            big_size: 256 * 1024,
            big_per_mille: 10,
            zero_per_mille: 20,
        }
    }
}

/// Base of a flow's address space in both endpoints (flows use disjoint 64 GiB windows).
pub const FLOW_WINDOW: u64 = 0x10_0000_0000;
/// Offsets of the areas inside a flow's window.
pub mod area {
    /// Requester: WRITE/SEND source buffers (prefilled).
    pub const SRC: u64 = 0x1_0000_0000;
    /// Requester: READ sinks.
    pub const SINK: u64 = 0x2_0000_0000;
    /// Responder: WRITE targets (several regions with guard gaps).
    pub const WRITE: u64 = 0x3_0000_0000;
    /// Responder: READ source (prefilled).
    pub const READ_SRC: u64 = 0x4_0000_0000;
    /// Responder: receive buffers.
    pub const RECV: u64 = 0x5_0000_0000;
}
/// Unregistered gap between two WRITE target regions.
pub const GUARD_GAP: u64 = 64 * 1024;

/// One planned message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedOp {
    /// Kind.
    pub kind: OpKind,
    /// Length in bytes.
    pub len: u32,
    /// The send WR (keys filled in).
    pub wr: SendWr,
}

/// One requester QP -> responder QP flow with its remaining work.
#[derive(Clone, Debug)]
pub struct Flow {
    /// Requester QP.
    pub req_qpn: Qpn,
    /// Responder QP.
    pub resp_qpn: Qpn,
    /// The messages, in posting order.
    pub ops: Vec<PlannedOp>,
    /// Receive WQEs for the responder, in posting order.
    pub recvs: Vec<RecvWr>,
    /// Index of the next op to post.
    pub next_op: usize,
    /// Index of the next receive to post.
    pub next_recv: usize,
    /// Post time of each op (index = op index), `None` until posted.
    pub posted_at: Vec<Option<Instant>>,
    /// Payload bytes in the flow.
    pub total_bytes: u64,
}

/// Where one op's data lives, before keys are known.
#[derive(Clone, Copy, Debug)]
struct Placement {
    kind: OpKind,
    len: u32,
    local: u64,
    remote: u64,
    region: usize,
    recv_buf: u64,
    recv_len: u32,
    imm: u32,
    solicited: bool,
}

fn draw_len(rng: &mut Rng, cfg: &WorkloadConfig) -> u32 {
    if let Some(f) = cfg.fixed_size {
        return f;
    }
    let r = rng.below(1000) as u32;
    if r < cfg.zero_per_mille {
        0
    } else if r < cfg.zero_per_mille + cfg.big_per_mille {
        // Big: between half and the whole big size.
        rng.range_inclusive(u64::from(cfg.big_size / 2), u64::from(cfg.big_size)) as u32
    } else {
        rng.range_inclusive(1, u64::from(cfg.max_size.max(1))) as u32
    }
}

fn reg<M: Memory>(
    ep: &mut Endpoint<M>,
    addr: u64,
    len: u64,
    access: Access,
    regions: &mut Vec<RegionSpec>,
) -> Result<MrKeys, String> {
    let keys = ep
        .register_mr(addr, len.max(1), access)
        .map_err(|e| format!("register_mr({addr:#x}, {len}) failed: {e:?}"))?;
    regions.push(RegionSpec {
        addr,
        len: len.max(1),
        access,
    });
    Ok(keys)
}

impl Flow {
    /// Plans flow number `index` from `req` (QP `req_qpn`) to `resp` (QP `resp_qpn`): registers its regions,
    /// prefills memory and appends to both sides' expectations. WR ids are `(index << 32) | n`.
    #[allow(clippy::too_many_arguments)]
    pub fn plan(
        rng: &mut Rng,
        cfg: &WorkloadConfig,
        index: u32,
        req: &mut Endpoint<HarnessMemory>,
        req_qpn: Qpn,
        exp_req: &mut Expectations,
        resp: &mut Endpoint<HarnessMemory>,
        resp_qpn: Qpn,
        exp_resp: &mut Expectations,
    ) -> Result<Flow, String> {
        let base = FLOW_WINDOW * (u64::from(index) + 1);
        let mix = if cfg.mix.is_empty() {
            OpKind::ALL.to_vec()
        } else {
            cfg.mix.clone()
        };
        let max_len = cfg.fixed_size.unwrap_or(cfg.max_size.max(cfg.big_size));
        let region_size = (u64::from(max_len) + 64).next_power_of_two().max(1 << 20);
        let read_src_size = region_size;

        // Pass 1: placements.
        let mut src = base + area::SRC;
        let mut sink = base + area::SINK;
        let mut recv = base + area::RECV;
        let mut region = 0usize;
        let mut w_off = 0u64;
        let region_addr = |i: usize| base + area::WRITE + i as u64 * (region_size + GUARD_GAP);
        let mut pl = Vec::with_capacity(cfg.messages);
        for _ in 0..cfg.messages {
            let kind = *rng.pick(&mix).unwrap_or(&OpKind::Write);
            let len = draw_len(rng, cfg);
            let l = u64::from(len);
            let mut p = Placement {
                kind,
                len,
                local: 0,
                remote: 0,
                region: 0,
                recv_buf: 0,
                recv_len: 0,
                imm: rng.next_u32(),
                solicited: rng.chance(1, 4),
            };
            match kind {
                OpKind::Write | OpKind::WriteImm => {
                    p.local = src + rng.below(64);
                    src = p.local + l;
                    let mut off = w_off + rng.below(64);
                    if off + l > region_size {
                        region += 1;
                        off = rng.below(64);
                    }
                    // Sometimes end exactly at the last byte of the region (bounds edge).
                    if rng.chance(1, 16) && l <= region_size - off {
                        let end_aligned = region_size - l;
                        if end_aligned >= off {
                            off = end_aligned;
                        }
                    }
                    p.region = region;
                    p.remote = region_addr(region) + off;
                    w_off = off + l;
                    if w_off >= region_size {
                        region += 1;
                        w_off = 0;
                    }
                    if kind == OpKind::WriteImm {
                        p.recv_buf = recv;
                        p.recv_len = 16;
                        recv += 64;
                    }
                }
                OpKind::Send | OpKind::SendImm => {
                    p.local = src + rng.below(64);
                    src = p.local + l;
                    p.recv_buf = recv + rng.below(64);
                    p.recv_len = len + rng.below(64) as u32;
                    recv = p.recv_buf + u64::from(p.recv_len) + 1;
                }
                OpKind::Read => {
                    let len = len.min(read_src_size as u32);
                    p.len = len;
                    p.remote =
                        base + area::READ_SRC + rng.below(read_src_size - u64::from(len) + 1);
                    p.local = sink + rng.below(64);
                    sink = p.local + u64::from(len);
                }
            }
            pl.push(p);
        }

        // Pass 2: register regions, prefill.
        let src_len = src - (base + area::SRC) + 1;
        let sink_len = sink - (base + area::SINK) + 1;
        let recv_len = recv - (base + area::RECV) + 1;
        let src_keys = reg(
            req,
            base + area::SRC,
            src_len,
            Access::LOCAL_WRITE,
            &mut exp_req.regions,
        )?;
        let sink_keys = reg(
            req,
            base + area::SINK,
            sink_len,
            Access::LOCAL_WRITE,
            &mut exp_req.regions,
        )?;
        let mut write_keys = Vec::new();
        for i in 0..=region {
            write_keys.push(reg(
                resp,
                region_addr(i),
                region_size,
                Access::REMOTE_WRITE,
                &mut exp_resp.regions,
            )?);
        }
        let read_keys = reg(
            resp,
            base + area::READ_SRC,
            read_src_size,
            Access::REMOTE_READ,
            &mut exp_resp.regions,
        )?;
        let recv_keys = reg(
            resp,
            base + area::RECV,
            recv_len,
            Access::LOCAL_WRITE,
            &mut exp_resp.regions,
        )?;
        let mut read_src = vec![0u8; read_src_size as usize];
        rng.fill_bytes(&mut read_src);
        resp.memory_mut().write(base + area::READ_SRC, &read_src);

        // Pass 3: WRs, data, expectations.
        let mut flow = Flow {
            req_qpn,
            resp_qpn,
            ops: Vec::with_capacity(pl.len()),
            recvs: Vec::new(),
            next_op: 0,
            next_recv: 0,
            posted_at: vec![None; pl.len()],
            total_bytes: 0,
        };
        let mut recv_n = 0u64;
        for (n, p) in pl.iter().enumerate() {
            let wr_id = (u64::from(index) << 32) | n as u64;
            let len = p.len as usize;
            flow.total_bytes += u64::from(p.len);
            let mut data = vec![0u8; len];
            let (op, local_key, opcode) = match p.kind {
                OpKind::Write => (SendOp::Write, src_keys.lkey, WcOpcode::Write),
                OpKind::WriteImm => (SendOp::WriteImm(p.imm), src_keys.lkey, WcOpcode::Write),
                OpKind::Send => (SendOp::Send, src_keys.lkey, WcOpcode::Send),
                OpKind::SendImm => (SendOp::SendImm(p.imm), src_keys.lkey, WcOpcode::Send),
                OpKind::Read => (SendOp::Read, sink_keys.lkey, WcOpcode::Read),
            };
            let mut rkey = 0;
            match p.kind {
                OpKind::Write | OpKind::WriteImm | OpKind::Send | OpKind::SendImm => {
                    rng.fill_bytes(&mut data);
                    req.memory_mut().write(p.local, &data);
                }
                OpKind::Read => {}
            }
            match p.kind {
                OpKind::Write | OpKind::WriteImm => {
                    rkey = write_keys.get(p.region).map_or(0, |k| k.rkey);
                    exp_resp.write_targets.push(WriteTarget {
                        addr: p.remote,
                        len: u64::from(p.len),
                        right: Access::REMOTE_WRITE,
                    });
                    exp_resp.memory.push((p.remote, data.clone()));
                }
                OpKind::Send | OpKind::SendImm => {
                    exp_resp.write_targets.push(WriteTarget {
                        addr: p.recv_buf,
                        len: u64::from(p.len),
                        right: Access::LOCAL_WRITE,
                    });
                    exp_resp.memory.push((p.recv_buf, data.clone()));
                    // The slack after the message must stay zero.
                    let slack = (p.recv_len - p.len) as usize;
                    exp_resp
                        .memory
                        .push((p.recv_buf + u64::from(p.len), vec![0u8; slack]));
                }
                OpKind::Read => {
                    rkey = read_keys.rkey;
                    let off = (p.remote - (base + area::READ_SRC)) as usize;
                    let want = read_src.get(off..off + len).unwrap_or(&[]).to_vec();
                    exp_req.write_targets.push(WriteTarget {
                        addr: p.local,
                        len: u64::from(p.len),
                        right: Access::LOCAL_WRITE,
                    });
                    exp_req.memory.push((p.local, want));
                }
            }
            if matches!(p.kind, OpKind::WriteImm | OpKind::Send | OpKind::SendImm) {
                let rwr = RecvWr {
                    wr_id: (u64::from(index) << 32) | (1 << 31) | recv_n,
                    sge: Sge {
                        addr: p.recv_buf,
                        len: p.recv_len,
                        lkey: recv_keys.lkey,
                    },
                };
                recv_n += 1;
                exp_resp.recvs.push(ExpectedRecv {
                    qpn: resp_qpn,
                    wr_id: rwr.wr_id,
                    opcode: if p.kind == OpKind::WriteImm {
                        WcOpcode::RecvWriteImm
                    } else {
                        WcOpcode::Recv
                    },
                    byte_len: p.len,
                    imm: match p.kind {
                        OpKind::WriteImm | OpKind::SendImm => Some(p.imm),
                        _ => None,
                    },
                });
                flow.recvs.push(rwr);
            }
            let wr = SendWr {
                wr_id,
                op,
                local: Sge {
                    addr: p.local,
                    len: p.len,
                    lkey: local_key,
                },
                remote_addr: p.remote,
                rkey,
                solicited: p.solicited,
            };
            exp_req.sends.push(ExpectedSend {
                qpn: req_qpn,
                wr_id,
                opcode,
                allowed: vec![WcStatus::Success],
            });
            flow.ops.push(PlannedOp {
                kind: p.kind,
                len: p.len,
                wr,
            });
        }
        Ok(flow)
    }

    /// Posts as many receives (on `resp`) and sends (on `req`) as the queues take at `now`. Returns the number
    /// of send WRs posted, or an error for anything but a full queue.
    pub fn pump<M: Memory>(
        &mut self,
        now: Instant,
        req: &mut Endpoint<M>,
        resp: &mut Endpoint<M>,
    ) -> Result<usize, String> {
        while let Some(r) = self.recvs.get(self.next_recv) {
            match resp.post_recv(self.resp_qpn, *r) {
                Ok(()) => self.next_recv += 1,
                Err(VerbsError::QueueFull) => break,
                Err(e) => return Err(format!("post_recv {:?}: {e:?}", r.wr_id)),
            }
        }
        let mut posted = 0;
        while let Some(op) = self.ops.get(self.next_op) {
            match req.post_send(now, self.req_qpn, op.wr) {
                Ok(()) => {
                    if let Some(t) = self.posted_at.get_mut(self.next_op) {
                        *t = Some(now);
                    }
                    self.next_op += 1;
                    posted += 1;
                }
                Err(VerbsError::QueueFull) => break,
                Err(e) => {
                    return Err(format!(
                        "post_send wr_id {:#x} ({} {} B): {e:?}",
                        op.wr.wr_id,
                        op.kind.name(),
                        op.len
                    ))
                }
            }
        }
        Ok(posted)
    }

    /// Whether every op and receive has been posted.
    pub fn all_posted(&self) -> bool {
        self.next_op >= self.ops.len() && self.next_recv >= self.recvs.len()
    }

    /// Index of the op with `wr_id` in this flow, if it is one.
    pub fn op_index(&self, index: u32, wr_id: u64) -> Option<usize> {
        if wr_id >> 32 != u64::from(index) || wr_id & (1 << 31) != 0 {
            return None;
        }
        let i = (wr_id & 0x7FFF_FFFF) as usize;
        (i < self.ops.len()).then_some(i)
    }

    /// A short description of the mix, e.g. `write:40 read:38 ...`.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        for k in OpKind::ALL {
            let n = self.ops.iter().filter(|o| o.kind == k).count();
            if n > 0 {
                if !s.is_empty() {
                    s.push(' ');
                }
                s.push_str(k.name());
                s.push(':');
                s.push_str(&n.to_string());
            }
        }
        s
    }
}
