//! A model of the firmware's register space for native tests: the host's and the firmware's sides of the
//! mailbox, the register blocks of the reference map (ID, capabilities, counters, ...), the context port
//! (recording every commit), the processor's clock and boot registers. Faults can be switched on: a context
//! port that never finishes, staging registers that drop writes, a stopped clock, an empty register space, a
//! transmit path that never takes a record. The packet port holds a queue of exception records (the first is
//! the one `RX_REC` shows) and records what the firmware sends. The event port holds a queue of QP error
//! reports (the first is the held one), the port's status, and counts the firmware's interrupt raises.

#![allow(dead_code)]

use metaroce_firmware::bus::Bus;
use metaroce_firmware::Firmware;
use metaroce_regmap::block::{default_base, write_chain, BlockType, DEFAULT_MAP};
use metaroce_regmap::caps::CapsRepr;
use metaroce_regmap::command::{
    Command, CreateCq, CreateQp, Moderation, ModifyQp, Opcode, QpState, Remote, Request, Response,
    ResponseData, CMD_BYTES,
};
use metaroce_regmap::counters;
use metaroce_regmap::ctxport::{reg as ctx, WINDOW};
use metaroce_regmap::fwbus::BootStage;
use metaroce_regmap::fwbus::{
    evt, mbox, pkt, sys, EVT_BASE, MBOX_BASE, PKT_BASE, REG_BASE, SYS_BASE,
};
use metaroce_regmap::id::IdRepr;
use metaroce_regmap::mailbox::{from_words, to_words, MailboxStatus, BUF_WORDS};
use std::collections::{BTreeMap, VecDeque};

/// One commit of the context port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    /// Table id.
    pub table: u8,
    /// Entry index.
    pub index: u16,
    /// The entry.
    pub entry: [u8; 64],
    /// OPEN_PARAM at the commit.
    pub open_param: u32,
    /// OPEN_SEED at the commit.
    pub open_seed: u32,
}

/// Faults of the model.
#[derive(Debug, Clone, Copy, Default)]
pub struct Faults {
    /// The context port stays busy after a commit.
    pub port_hangs: bool,
    /// The staging registers read 0.
    pub stage_dead: bool,
    /// The clock does not advance.
    pub clock_stopped: bool,
    /// The register blocks read 0.
    pub no_blocks: bool,
    /// The transmit path never takes a record.
    pub tx_hangs: bool,
    /// The transmit scheduler never takes a `QP_FAIL` request.
    pub fail_hangs: bool,
    /// The receive queue never takes an `RQ_FLUSH` request.
    pub flush_hangs: bool,
    /// The endpoint block ignores writes.
    pub endpoint_stuck: bool,
}

/// The register space.
pub struct RegSpace {
    /// Register blocks (offset → word).
    pub blocks: BTreeMap<u32, u32>,
    /// A command waits (its tag).
    pub pending: Option<u16>,
    /// REQ words.
    pub req: [u32; BUF_WORDS],
    /// RESP words.
    pub resp: [u32; BUF_WORDS],
    /// MAILBOX.STATUS.
    pub status: u32,
    /// Cycles.
    pub time: u64,
    time_hi: u32,
    /// SYS.BOOT.
    pub boot: u32,
    /// Console bytes.
    pub console: Vec<u8>,
    stage: [u32; 16],
    table: u32,
    index: u32,
    open_param: u32,
    open_seed: u32,
    busy: bool,
    /// Every commit, in order.
    pub commits: Vec<Commit>,
    /// Counter values.
    pub counters: Vec<u64>,
    /// Snapshots taken.
    pub snapshots: u32,
    snap: Vec<u64>,
    /// Faults switched on.
    pub faults: Faults,
    /// Accesses to addresses nothing decodes.
    pub stray: Vec<u32>,
    /// Exception records waiting for the firmware (the first is the held one).
    pub pkt_in: VecDeque<[u8; 64]>,
    /// Records the firmware sent, with the time of the send (the core's `ts`).
    pub pkt_out: Vec<([u8; 64], u64)>,
    /// Records the firmware handed back to the receive path (`RX_REPLAY`).
    pub replayed: Vec<[u8; 64]>,
    tx_rec: [u32; 16],
    tx_busy: bool,
    /// QP error reports waiting for the firmware (the first is the held one): `QPERR_INFO`, `QPERR_MSN`.
    pub qperr: VecDeque<(u32, u32)>,
    /// The port's status (`EVT.PORT`).
    pub port: u32,
    /// `SYS.I2C` as written (the management bus has its pull-ups and nothing else: a line is low only while
    /// the firmware pulls it).
    pub i2c: u32,
    /// Writes of `SYS.I2C`.
    pub i2c_writes: u32,
    /// Writes of `EVT.RAISE` (interrupts raised).
    pub raised: u32,
    /// Connections of the `EVT.QP_FAIL` requests taken.
    pub fails: Vec<u32>,
    /// QPs of the `EVT.RQ_FLUSH` requests taken.
    pub flushes: Vec<u32>,
    /// Writes to the endpoint block, in order: (offset in the block, value).
    pub endpoint_writes: Vec<(u32, u32)>,
    /// Reads of the event port's `QPERR_STATUS`.
    pub status_reads: u64,
}

impl RegSpace {
    /// The reference register space with `caps`.
    pub fn new(caps: &CapsRepr) -> RegSpace {
        let mut blocks = BTreeMap::new();
        let mut put = |off: u32, v: u32| {
            blocks.insert(off, v);
        };
        write_chain(&DEFAULT_MAP, &mut put);
        let base = |k: BlockType| default_base(k).expect("a block of the reference map");
        let id = IdRepr {
            board: 0,
            variant: 0,
            hw_version: (0, 1, 0),
            spec_version: (0, 1),
            git_hash: 0x1234_5678,
            build_time: 0,
        };
        id.write(&mut put, base(BlockType::Id)).unwrap();
        caps.write(&mut put, base(BlockType::Caps)).unwrap();
        for (off, r, _) in metaroce_regmap::endpoint::words() {
            put(base(BlockType::Endpoint) + off, r.reset);
        }
        let n = counters::COUNT as usize;
        RegSpace {
            blocks,
            pending: None,
            req: [0; BUF_WORDS],
            resp: [0; BUF_WORDS],
            status: 0,
            time: 1000,
            time_hi: 0,
            boot: 0,
            console: Vec::new(),
            stage: [0; 16],
            table: 0,
            index: 0,
            open_param: ctx::OPEN_PARAM_RESET,
            open_seed: 0,
            busy: false,
            commits: Vec::new(),
            counters: (0..n as u64).map(|i| 1000 * i + (i << 40)).collect(),
            snapshots: 0,
            snap: vec![0; n],
            faults: Faults::default(),
            stray: Vec::new(),
            pkt_in: VecDeque::new(),
            pkt_out: Vec::new(),
            replayed: Vec::new(),
            tx_rec: [0; 16],
            tx_busy: false,
            qperr: VecDeque::new(),
            port: 0,
            i2c: 0,
            i2c_writes: 0,
            raised: 0,
            fails: Vec::new(),
            flushes: Vec::new(),
            status_reads: 0,
            endpoint_writes: Vec::new(),
        }
    }

    /// The host side: writes `req` into REQ and submits it with `tag` (a CTRL write with `go`).
    pub fn submit_raw(&mut self, buf: &[u8; CMD_BYTES], tag: u16) {
        self.req = to_words(buf);
        let st = MailboxStatus {
            busy: true,
            done: false,
            status: 0,
            tag: 0,
        };
        self.status = st.to_word();
        self.pending = Some(tag);
    }

    /// Encodes and submits `req` with its own tag.
    pub fn submit(&mut self, req: &Request) {
        let mut buf = [0u8; CMD_BYTES];
        req.emit(&mut buf).unwrap();
        self.submit_raw(&buf, req.tag);
    }

    /// The host side: the mailbox status, and the response decoded for `op` (`count` counters).
    pub fn response(&self, op: Opcode, count: u8) -> (MailboxStatus, Response) {
        let st = MailboxStatus::from_word(self.status).unwrap();
        let resp = Response::parse(&from_words(&self.resp), op, count).unwrap();
        (st, resp)
    }

    /// Leaves the context port busy, as after a commit that never finished.
    pub fn reg_busy_for_test(&mut self) {
        self.busy = true;
    }

    fn counters_base() -> u32 {
        default_base(BlockType::Counters).expect("counter block")
    }

    fn reg_read(&mut self, off: u32) -> u32 {
        if (WINDOW..WINDOW + 0x100).contains(&off) {
            let r = off - WINDOW;
            return match r {
                ctx::STAGE..=0x3C if r.is_multiple_of(4) => {
                    if self.faults.stage_dead {
                        0
                    } else {
                        self.stage[(r / 4) as usize]
                    }
                }
                ctx::TABLE => self.table,
                ctx::INDEX => self.index,
                ctx::STATUS => {
                    let b = self.busy;
                    if !self.faults.port_hangs {
                        self.busy = false;
                    }
                    u32::from(b) | (self.commits.len() as u32) << 16
                }
                ctx::OPEN_PARAM => self.open_param,
                ctx::OPEN_SEED => self.open_seed,
                _ => 0,
            };
        }
        if self.faults.no_blocks {
            return 0;
        }
        let cb = Self::counters_base();
        if (cb + counters::reg::VALUE..cb + counters::reg::VALUE + 8 * counters::COUNT as u32)
            .contains(&off)
        {
            let k = ((off - cb - counters::reg::VALUE) / 8) as usize;
            let v = self.snap[k];
            return if off.is_multiple_of(8) {
                v as u32
            } else {
                (v >> 32) as u32
            };
        }
        *self.blocks.get(&off).unwrap_or(&0)
    }

    fn reg_write(&mut self, off: u32, v: u32) {
        if (WINDOW..WINDOW + 0x100).contains(&off) {
            let r = off - WINDOW;
            match r {
                ctx::STAGE..=0x3C if r.is_multiple_of(4) => self.stage[(r / 4) as usize] = v,
                ctx::TABLE => self.table = v & 0xF,
                ctx::INDEX => self.index = v & 0xFFFF,
                ctx::COMMIT => {
                    let mut entry = [0u8; 64];
                    for (k, w) in self.stage.iter().enumerate() {
                        entry[4 * k..4 * k + 4].copy_from_slice(&w.to_le_bytes());
                    }
                    self.commits.push(Commit {
                        table: self.table as u8,
                        index: self.index as u16,
                        entry,
                        open_param: self.open_param,
                        open_seed: self.open_seed,
                    });
                    self.busy = true;
                }
                ctx::OPEN_PARAM => self.open_param = v,
                ctx::OPEN_SEED => self.open_seed = v,
                _ => self.stray.push(REG_BASE + off),
            }
            return;
        }
        let eb = default_base(BlockType::Endpoint).expect("endpoint block");
        if (eb + metaroce_regmap::endpoint::reg::MAC_HI
            ..eb + metaroce_regmap::endpoint::BLOCK.bytes)
            .contains(&off)
        {
            if !self.faults.endpoint_stuck {
                self.blocks.insert(off, v);
            }
            self.endpoint_writes.push((off - eb, v));
            return;
        }
        let cb = Self::counters_base();
        if off == cb + counters::reg::SNAPSHOT && v & 1 == 1 {
            self.snap.clone_from(&self.counters);
            self.snapshots += 1;
            return;
        }
        self.stray.push(REG_BASE + off);
    }
}

impl Bus for RegSpace {
    fn read(&mut self, addr: u32) -> u32 {
        match addr {
            a if a == MBOX_BASE + mbox::PENDING => self
                .pending
                .map_or(0, |t| mbox::PENDING_GO | u32::from(t) << 16),
            a if (MBOX_BASE + mbox::REQ..MBOX_BASE + mbox::REQ + 64).contains(&a) => {
                self.req[((a - MBOX_BASE - mbox::REQ) / 4) as usize]
            }
            a if a == SYS_BASE + sys::TIME_LO => {
                if !self.faults.clock_stopped {
                    self.time += 7;
                }
                self.time_hi = (self.time >> 32) as u32;
                self.time as u32
            }
            a if a == SYS_BASE + sys::TIME_HI => self.time_hi,
            a if a == SYS_BASE + sys::BOOT => self.boot,
            a if a == SYS_BASE + sys::I2C => {
                self.i2c
                    | if self.i2c & sys::I2C_SCL_LOW == 0 {
                        sys::I2C_SCL_IN
                    } else {
                        0
                    }
                    | if self.i2c & sys::I2C_SDA_LOW == 0 {
                        sys::I2C_SDA_IN
                    } else {
                        0
                    }
            }
            a if a == PKT_BASE + pkt::RX_STATUS => {
                let queued = self.pkt_in.len().saturating_sub(1) as u32;
                u32::from(!self.pkt_in.is_empty()) | queued << pkt::STATUS_QUEUED_LSB
            }
            a if a == PKT_BASE + pkt::TX_STATUS => u32::from(self.tx_busy),
            a if (PKT_BASE + pkt::RX_REC..PKT_BASE + pkt::RX_REC + 64).contains(&a) => {
                let k = (a - PKT_BASE - pkt::RX_REC) as usize;
                self.pkt_in.front().map_or(0, |r| {
                    u32::from_le_bytes([r[k], r[k + 1], r[k + 2], r[k + 3]])
                })
            }
            a if a == EVT_BASE + evt::QPERR_STATUS => {
                self.status_reads += 1;
                u32::from(!self.qperr.is_empty())
                    | if self.faults.fail_hangs {
                        evt::STATUS_FAIL_PENDING
                    } else {
                        0
                    }
                    | if self.faults.flush_hangs {
                        evt::STATUS_FLUSH_PENDING
                    } else {
                        0
                    }
            }
            a if a == EVT_BASE + evt::QPERR_INFO => self.qperr.front().map_or(0, |r| r.0),
            a if a == EVT_BASE + evt::QPERR_MSN => self.qperr.front().map_or(0, |r| r.1),
            a if a == EVT_BASE + evt::PORT => self.port,
            a if a >= REG_BASE => self.reg_read(a - REG_BASE),
            a => {
                self.stray.push(a);
                0
            }
        }
    }

    fn write(&mut self, addr: u32, value: u32) {
        match addr {
            a if a == MBOX_BASE + mbox::STATUS => {
                self.status = value;
                self.pending = None;
            }
            a if (MBOX_BASE + mbox::RESP..MBOX_BASE + mbox::RESP + 64).contains(&a) => {
                self.resp[((a - MBOX_BASE - mbox::RESP) / 4) as usize] = value
            }
            a if a == SYS_BASE + sys::BOOT => self.boot = value,
            a if a == SYS_BASE + sys::CONSOLE => self.console.push(value as u8),
            a if a == SYS_BASE + sys::I2C => {
                self.i2c = value & (sys::I2C_SCL_LOW | sys::I2C_SDA_LOW);
                self.i2c_writes += 1;
            }
            a if a == PKT_BASE + pkt::RX_POP => {
                self.pkt_in.pop_front();
            }
            // The receive path takes a replayed record at once.
            a if a == PKT_BASE + pkt::RX_REPLAY => {
                if let Some(r) = self.pkt_in.pop_front() {
                    self.replayed.push(r);
                }
            }
            a if (PKT_BASE + pkt::TX_REC..PKT_BASE + pkt::TX_REC + 64).contains(&a) => {
                self.tx_rec[((a - PKT_BASE - pkt::TX_REC) / 4) as usize] = value
            }
            a if a == PKT_BASE + pkt::TX_SEND => {
                if !self.tx_busy {
                    let mut rec = [0u8; 64];
                    for (k, w) in self.tx_rec.iter().enumerate() {
                        rec[4 * k..4 * k + 4].copy_from_slice(&w.to_le_bytes());
                    }
                    self.pkt_out.push((rec, self.time));
                    self.tx_busy = self.faults.tx_hangs;
                }
            }
            a if a == EVT_BASE + evt::QPERR_POP => {
                self.qperr.pop_front();
            }
            a if a == EVT_BASE + evt::RAISE => self.raised += 1,
            a if a == EVT_BASE + evt::QP_FAIL && !self.faults.fail_hangs => self.fails.push(value),
            a if a == EVT_BASE + evt::RQ_FLUSH && !self.faults.flush_hangs => {
                self.flushes.push(value)
            }
            a if a >= REG_BASE => self.reg_write(a - REG_BASE, value),
            a => self.stray.push(a),
        }
    }
}

/// The reference capabilities of the co-simulated core (4K QPs, CQs and MR slots, 16K connections).
pub fn caps() -> CapsRepr {
    CapsRepr {
        max_qps: 4096,
        max_cqs: 4096,
        max_mrs: 4096,
        max_conns: 16384,
        max_wlog: 8,
        ..CapsRepr::REFERENCE
    }
}

/// Submits `command` (tag 1), lets the firmware serve it, and returns the response's data (a refusal fails the
/// test).
pub fn exec(fw: &mut Firmware, regs: &mut RegSpace, command: Command) -> ResponseData {
    regs.submit(&Request { tag: 1, command });
    fw.serve(regs).expect("a command was pending");
    let (st, resp) = regs.response(command.opcode(), 0);
    assert!(st.done, "{resp:?}");
    resp.data
}

/// Boots a firmware on `regs` and creates one CQ and QPs `a` (moved to READY towards `remote`) and `b` (left in
/// INIT). Returns the firmware and the two QP numbers.
pub fn two_qps(regs: &mut RegSpace, remote: Remote) -> (Firmware, u32, u32) {
    let mut fw = Firmware::new();
    assert_eq!(fw.boot(regs).stage, BootStage::Ready);
    let ResponseData::Cq(cqn) = exec(
        &mut fw,
        regs,
        Command::CreateCq(CreateCq {
            ring_addr: 0x8000,
            log_size: 7,
            msix_vector: 1,
            moderation: Moderation { usec: 0, count: 0 },
        }),
    ) else {
        panic!("no CQ")
    };
    let mut qps = [0u32; 2];
    for q in &mut qps {
        let ResponseData::Qp(n) = exec(
            &mut fw,
            regs,
            Command::CreateQp(CreateQp {
                sq_addr: 0x1_0000,
                rq_addr: 0x2_0000,
                send_cqn: cqn,
                recv_cqn: cqn,
                sq_log: 6,
                rq_log: 6,
            }),
        ) else {
            panic!("no QP")
        };
        *q = n;
    }
    exec(
        &mut fw,
        regs,
        Command::ModifyQp(ModifyQp {
            qpn: qps[0],
            state: QpState::Ready,
            remote: Some(remote),
        }),
    );
    (fw, qps[0], qps[1])
}
