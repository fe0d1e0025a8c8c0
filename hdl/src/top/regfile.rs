//! The core's register file: the self-describing register blocks of `metaroce_regmap` (ID, capabilities,
//! interrupts, mailbox, counters, queue-doorbell geometry) at the reference design's offsets
//! (`metaroce_regmap::block::DEFAULT_MAP`).
//!
//! Nothing here is typed by hand: the read-only values are the image that regmap's own writers produce
//! (`block::write_chain`, `IdRepr::write`, `CapsRepr::write`, with the capabilities of the build's
//! [`CoreConfig`]), and each register's behaviour follows its regmap access type:
//!
//! * `Ro`: a constant of the image, except `ID.GIT_HASH` / `ID.BUILD_TIME` (inputs stamped by the board build),
//!   `MAILBOX.STATUS` / `MAILBOX.RESP[i]` (written by the firmware port) and `COUNTERS.VALUE[i]` (the snapshot);
//! * `Rw`: storage with the regmap reset value;
//! * `W1c` (`IRQ.CAUSE`): bits set by `irq_cause_set`, cleared by writing 1;
//!   and `CONTROL.BOOT` (the `fw_boot` input);
//! * `Wo`: `MAILBOX.CTRL` with `go` pulses `mbox_go` with the tag and sets `MAILBOX.STATUS` to busy (`done`
//!   cleared), unless a command is in progress (`busy` set): then the write is ignored and counted
//!   (`cmd_ignored`); `COUNTERS.SNAPSHOT` copies every counter into `VALUE`.
//!
//! A firmware write of `MAILBOX.STATUS` with a non-zero status counts `cmd_rejected`. These two counts reach
//! their counters a cycle after the write (registered, so that the bus decode is not in front of a 64-bit
//! carry chain). `fw_run` is bit 0 of
//! `CONTROL.CTRL`.
//!
//! Counters: counter `i` (regmap `CounterId` index) adds lane `i` of `cnt_inc` (16 bits per lane) every cycle.
//! Reads answer two cycles after `bus_rd_en`, with the value at the second edge (before that edge's writes):
//! the first edge registers the address decode (one select bit per readable word), the second an AND-OR of
//! the selected word, so neither stage chains a 24-bit comparison into the wide read multiplexer. Unmapped
//! offsets read 0.

use crate::CoreConfig;
use metaroce_regmap::block::{self as rblock, BlockType, DEFAULT_MAP};
use metaroce_regmap::caps::CapsRepr;
use metaroce_regmap::field::Access;
use metaroce_regmap::id::IdRepr;
use metaroce_regmap::{endpoint, mailbox};
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// Counter lanes of `cnt_inc` (at least regmap's counters; the rest are unused).
pub const COUNTER_LANES: usize = 72;
/// Bits per counter increment lane.
pub const LANE_BITS: usize = 16;
/// Width of `cnt_inc`.
pub const CNT_INC_BITS: usize = COUNTER_LANES * LANE_BITS;
const _: () = assert!(metaroce_regmap::counters::COUNT as usize <= COUNTER_LANES);
/// Bytes of register space the register file decodes (the blocks of `DEFAULT_MAP`).
pub const WINDOW_BYTES: u32 = 0x1000;
/// Board id of the generic core (board builds stamp their own through the ID block's inputs in a later
/// revision of the interface; the generic core reports 0).
pub const GENERIC_BOARD: u16 = 0;

/// What a 32-bit word of the register space does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegKind {
    /// A constant.
    Const(u32),
    /// The `git_hash` input.
    GitHash,
    /// The `build_time` input.
    BuildTime,
    /// Read/write storage `i` with its reset value.
    Rw(usize, u32),
    /// The write-1-to-clear interrupt cause.
    Cause,
    /// Mailbox CTRL: a write pulses `mbox_go`.
    MboxCtrl,
    /// Firmware-written word `i` (0..16 RESP, 16 STATUS).
    Fw(usize),
    /// Counter snapshot: word `i` (counter i/2, low half when even).
    Snapshot(usize),
    /// Counters SNAPSHOT: a write of bit 0 takes a snapshot.
    SnapshotCmd,
    /// Control BOOT: the `fw_boot` input (the firmware's boot word).
    FwBoot,
}

/// Bit offset, in [`RegFile::endpoint`], of the word at endpoint-block offset `offset` (a multiple of 4 from
/// `MAC_HI` on).
pub const fn endpoint_bit(offset: u32) -> usize {
    ((offset - endpoint::reg::MAC_HI) * 8) as usize
}

/// The Rw storage index of every endpoint word, in word order.
fn endpoint_rw(map: &BTreeMap<u32, RegKind>) -> Vec<(usize, usize)> {
    let base = DEFAULT_MAP
        .iter()
        .find(|(t, _)| *t == BlockType::Endpoint)
        .map_or(0, |(_, b)| *b);
    endpoint::words()
        .filter_map(|(off, _, _)| match map.get(&(base + off)) {
            Some(RegKind::Rw(i, _)) => Some((endpoint_bit(off), *i)),
            _ => None,
        })
        .collect()
}

/// Firmware word index of `MAILBOX.STATUS` (after the 16 RESP words).
pub const FW_STATUS: usize = 16;
/// Counter lane the register file itself counts rejected commands on.
const CMD_REJECTED: usize = metaroce_regmap::counters::CounterId::CmdRejected as usize;
/// Counter lane the register file itself counts ignored mailbox submissions on.
const CMD_IGNORED: usize = metaroce_regmap::counters::CounterId::CmdIgnored as usize;

/// The register map of the build: byte offset → behaviour, and the number of Rw words.
pub fn map(cfg: &CoreConfig) -> (BTreeMap<u32, RegKind>, usize) {
    let mut image = BTreeMap::new();
    let mut put = |off: u32, v: u32| {
        image.insert(off, v);
    };
    rblock::write_chain(&DEFAULT_MAP, &mut put);
    let base = |k: BlockType| {
        DEFAULT_MAP
            .iter()
            .find(|(t, _)| *t == k)
            .map_or(0, |(_, b)| *b)
    };
    let id = IdRepr {
        board: GENERIC_BOARD,
        variant: 0,
        hw_version: (0, 1, 0),
        spec_version: (0, 1),
        git_hash: 0,
        build_time: 0,
    };
    // The writers only fail on values out of their fields' ranges, which these are not.
    let _ = id.write(&mut put, base(BlockType::Id));
    let caps = caps_of(cfg);
    let _ = caps.write(&mut put, base(BlockType::Caps));
    let mut kinds = BTreeMap::new();
    let mut rw = 0;
    for (kind, b) in DEFAULT_MAP {
        let layout = rblock::layout_of(kind);
        for r in layout.regs {
            for i in 0..r.count {
                let off = b + r.offset + 4 * i;
                let k = match (kind, r.name, r.access) {
                    (BlockType::Id, "GIT_HASH", _) => RegKind::GitHash,
                    (BlockType::Id, "BUILD_TIME", _) => RegKind::BuildTime,
                    (BlockType::Mailbox, "STATUS", _) => RegKind::Fw(FW_STATUS),
                    (BlockType::Mailbox, "RESP", _) => RegKind::Fw(i as usize),
                    (BlockType::Mailbox, "CTRL", _) => RegKind::MboxCtrl,
                    (BlockType::Control, "BOOT", _) => RegKind::FwBoot,
                    (BlockType::Counters, "VALUE", _) => RegKind::Snapshot(i as usize),
                    (BlockType::Counters, "SNAPSHOT", _) => RegKind::SnapshotCmd,
                    (_, _, Access::Rw) => {
                        rw += 1;
                        RegKind::Rw(rw - 1, r.reset)
                    }
                    (_, _, Access::W1c) => RegKind::Cause,
                    (_, _, Access::Wo) => continue,
                    _ => RegKind::Const(image.get(&off).copied().unwrap_or(r.reset)),
                };
                kinds.insert(off, k);
            }
        }
    }
    (kinds, rw)
}

/// The capabilities this build reports.
pub fn caps_of(cfg: &CoreConfig) -> CapsRepr {
    CapsRepr {
        max_qps: 1 << cfg.qp_bits,
        max_cqs: 1 << cfg.qp_bits,
        max_mrs: 1 << cfg.mr_bits,
        max_conns: 1 << cfg.conn_bits,
        datapath_bits: cfg.width.bits() as u16,
        // The hardware keeps a 256-packet window per connection direction (MR-REL-7).
        max_wlog: 8,
        ..CapsRepr::REFERENCE
    }
}

/// The register file.
#[derive(LogicBlock)]
pub struct RegFile {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// Bus write strobe.
    pub bus_wr_en: Signal<In, Bit>,
    /// Bus write byte address (within the window).
    pub bus_wr_addr: Signal<In, Bits<24>>,
    /// Bus write data.
    pub bus_wr_data: Signal<In, Bits<32>>,
    /// Bus read strobe.
    pub bus_rd_en: Signal<In, Bit>,
    /// Bus read byte address.
    pub bus_rd_addr: Signal<In, Bits<24>>,
    /// Read data (two cycles after `bus_rd_en`).
    pub bus_rd_data: Signal<Out, Bits<32>>,
    /// Read data valid.
    pub bus_rd_valid: Signal<Out, Bit>,
    /// First 32 bits of the source revision (ID.GIT_HASH).
    pub git_hash: Signal<In, Bits<32>>,
    /// Build time, Unix seconds (ID.BUILD_TIME).
    pub build_time: Signal<In, Bits<32>>,
    /// Counter increments: lane i (16 bits) is added to counter i every cycle.
    pub cnt_inc: Signal<In, Bits<CNT_INC_BITS>>,
    /// Interrupt causes to set (IRQ.CAUSE).
    pub irq_cause_set: Signal<In, Bits<32>>,
    /// Pending and enabled causes (IRQ.CAUSE & IRQ.CAUSE_ENABLE).
    pub irq_pending: Signal<Out, Bits<32>>,
    /// A command was submitted (MAILBOX.CTRL written with GO).
    pub mbox_go: Signal<Out, Bit>,
    /// Its tag.
    pub mbox_tag: Signal<Out, Bits<16>>,
    /// The endpoint block's words after its header (`metaroce_regmap::endpoint::words`): word k in bits
    /// `32k+31..32k`, see [`endpoint_bit`].
    pub endpoint: Signal<Out, Bits<1024>>,
    /// Firmware read of MAILBOX.REQ word `fw_rd_addr`.
    pub fw_rd_addr: Signal<In, Bits<4>>,
    /// The word (combinational).
    pub fw_rd_data: Signal<Out, Bits<32>>,
    /// Firmware write strobe.
    pub fw_wr_en: Signal<In, Bit>,
    /// Firmware word: 0..16 RESP, 16 STATUS.
    pub fw_wr_addr: Signal<In, Bits<5>>,
    /// Firmware write data.
    pub fw_wr_data: Signal<In, Bits<32>>,
    /// The firmware's boot word (CONTROL.BOOT).
    pub fw_boot: Signal<In, Bits<32>>,
    /// CONTROL.CTRL.run: the control processor may run.
    pub fw_run: Signal<Out, Bit>,
    _map: BTreeMap<u32, RegKind>,
    _rw_count: usize,
    _rw: Vec<u32>,
    _cause: u32,
    _fw: [u32; 17],
    _cnt: [u64; COUNTER_LANES],
    _snap: [u64; COUNTER_LANES],
    _rd_pend: Option<u32>,
    /// `cmd_rejected` and `cmd_ignored` events of the previous cycle (added now).
    _own: [u64; 2],
}

impl RegFile {
    /// The register file of a build.
    pub fn new(cfg: &CoreConfig) -> Self {
        let (map, rw_count) = map(cfg);
        let mut rf = RegFile {
            clk: Default::default(),
            rst: Default::default(),
            bus_wr_en: Default::default(),
            bus_wr_addr: Default::default(),
            bus_wr_data: Default::default(),
            bus_rd_en: Default::default(),
            bus_rd_addr: Default::default(),
            bus_rd_data: Default::default(),
            bus_rd_valid: Default::default(),
            git_hash: Default::default(),
            build_time: Default::default(),
            cnt_inc: Default::default(),
            irq_cause_set: Default::default(),
            irq_pending: Default::default(),
            mbox_go: Default::default(),
            mbox_tag: Default::default(),
            endpoint: Default::default(),
            fw_rd_addr: Default::default(),
            fw_rd_data: Default::default(),
            fw_wr_en: Default::default(),
            fw_wr_addr: Default::default(),
            fw_wr_data: Default::default(),
            fw_boot: Default::default(),
            fw_run: Default::default(),
            _map: map,
            _rw_count: rw_count,
            _rw: Vec::new(),
            _cause: 0,
            _fw: [0; 17],
            _cnt: [0; COUNTER_LANES],
            _rd_pend: None,
            _snap: [0; COUNTER_LANES],
            _own: [0; 2],
        };
        rf._rw = rf.rw_resets();
        rf
    }

    fn rw_resets(&self) -> Vec<u32> {
        let mut v = vec![0; self._rw_count];
        for k in self._map.values() {
            if let RegKind::Rw(i, reset) = k {
                v[*i] = *reset;
            }
        }
        v
    }

    fn enable_index(&self) -> Option<usize> {
        let base = metaroce_regmap::block::default_base(BlockType::Irq)?;
        match self
            ._map
            .get(&(base + metaroce_regmap::irq::reg::CAUSE_ENABLE))
        {
            Some(RegKind::Rw(i, _)) => Some(*i),
            _ => None,
        }
    }

    /// The Rw storage index of `CONTROL.CTRL`.
    fn run_index(&self) -> Option<usize> {
        let base = DEFAULT_MAP
            .iter()
            .find(|(t, _)| *t == BlockType::Control)?
            .1;
        match self._map.get(&(base + metaroce_regmap::control::reg::CTRL)) {
            Some(RegKind::Rw(i, _)) => Some(*i),
            _ => None,
        }
    }

    fn req_index(&self, word: usize) -> Option<usize> {
        let base = DEFAULT_MAP
            .iter()
            .find(|(t, _)| *t == BlockType::Mailbox)?
            .1;
        match self._map.get(&(base + mailbox::reg::REQ + 4 * word as u32)) {
            Some(RegKind::Rw(i, _)) => Some(*i),
            _ => None,
        }
    }
}

impl Logic for RegFile {
    fn update(&mut self) {
        let en = self.enable_index();
        self.irq_pending.next = bits(u64::from(self._cause & en.map_or(0, |i| self._rw[i])));
        let mut ep = Bits::<1024>::default();
        for (bit, i) in endpoint_rw(&self._map) {
            ep = ep | (bits::<1024>(u64::from(self._rw[i])) << (bit as u64));
        }
        self.endpoint.next = ep;
        self.fw_run.next = self.run_index().is_some_and(|i| self._rw[i] & 1 == 1);
        self.fw_rd_data.next = bits(u64::from(
            self.req_index(self.fw_rd_addr.val().index())
                .map_or(0, |i| self._rw[i]),
        ));
        if !self.clk.pos_edge() {
            return;
        }
        self.mbox_go.next = false;
        self.bus_rd_valid.next = false;
        if self.rst.val() {
            self._rw = self.rw_resets();
            self._cause = 0;
            self._fw = [0; 17];
            self._cnt = [0; COUNTER_LANES];
            self._snap = [0; COUNTER_LANES];
            self._own = [0; 2];
            self._rd_pend = None;
            self.bus_rd_data.next = 0.into();
            return;
        }
        // A read issued at the previous edge answers now, with the state before this edge's writes.
        if let Some(off) = self._rd_pend.take() {
            let v = match self._map.get(&off) {
                Some(RegKind::Const(c)) => *c,
                Some(RegKind::GitHash) => self.git_hash.val().index() as u32,
                Some(RegKind::BuildTime) => self.build_time.val().index() as u32,
                Some(RegKind::FwBoot) => self.fw_boot.val().index() as u32,
                Some(RegKind::Rw(i, _)) => self._rw[*i],
                Some(RegKind::Cause) => self._cause,
                Some(RegKind::Fw(i)) => self._fw[*i],
                Some(RegKind::Snapshot(i)) => {
                    let c = self._snap.get(i / 2).copied().unwrap_or(0);
                    if i % 2 == 0 {
                        c as u32
                    } else {
                        (c >> 32) as u32
                    }
                }
                _ => 0,
            };
            self.bus_rd_data.next = bits(u64::from(v));
            self.bus_rd_valid.next = true;
        }
        if self.bus_rd_en.val() {
            self._rd_pend = Some(self.bus_rd_addr.val().index() as u32);
        }
        let inc = self.cnt_inc.val();
        let mut cause = self._cause | self.irq_cause_set.val().index() as u32;
        let mut snap = false;
        let mut extra = [0u64; 2];
        if self.bus_wr_en.val() {
            let off = self.bus_wr_addr.val().index() as u32;
            let d = self.bus_wr_data.val().index() as u32;
            match self._map.get(&off) {
                Some(RegKind::Rw(i, _)) => self._rw[*i] = d,
                Some(RegKind::Cause) => cause &= !d,
                Some(RegKind::MboxCtrl) if d & 1 != 0 => {
                    if self._fw[FW_STATUS] & 1 == 0 {
                        self.mbox_go.next = true;
                        self.mbox_tag.next = ((d >> 16) as u64).into();
                        self._fw[FW_STATUS] = 1;
                    } else {
                        extra[1] = 1;
                    }
                }
                Some(RegKind::SnapshotCmd) if d & 1 != 0 => snap = true,
                _ => {}
            }
        }
        self._cause = cause;
        if self.fw_wr_en.val() {
            let a = self.fw_wr_addr.val().index();
            let d = self.fw_wr_data.val().index() as u32;
            if a < self._fw.len() {
                self._fw[a] = d;
            }
            if a == FW_STATUS && (d >> 8) & 0xFF != 0 {
                extra[0] = 1;
            }
        }
        for (i, c) in self._cnt.iter_mut().enumerate() {
            if snap {
                self._snap[i] = *c;
            }
            let lane = inc.get_bits::<LANE_BITS>(i * LANE_BITS).index() as u64;
            let own = if i == CMD_REJECTED {
                self._own[0]
            } else if i == CMD_IGNORED {
                self._own[1]
            } else {
                0
            };
            *c = c.wrapping_add(lane + own);
        }
        self._own = extra;
    }

    fn connect(&mut self) {
        self.bus_rd_data.connect();
        self.bus_rd_valid.connect();
        self.irq_pending.connect();
        self.mbox_go.connect();
        self.mbox_tag.connect();
        self.fw_rd_data.connect();
        self.endpoint.connect();
        self.fw_run.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(verilog_body(self))
    }
}

fn verilog_body(rf: &RegFile) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let resets = rf.rw_resets();
    let n = resets.len().max(1);
    let _ = writeln!(s, "reg [31:0] rw [0:{}];", n - 1);
    let _ = writeln!(s, "reg [31:0] cause;\nreg [31:0] fw [0:16];");
    let _ = writeln!(
        s,
        "reg [63:0] cnt [0:{}];\nreg [63:0] snap [0:{}];",
        COUNTER_LANES - 1,
        COUNTER_LANES - 1
    );
    let _ = writeln!(
        s,
        "reg [31:0] rd;\ninteger i;\nreg mbox_submit;\nreg cmd_rejected;\nreg own_rej;\nreg own_ign;"
    );
    let nread = rf
        ._map
        .values()
        .filter(|k| match k {
            RegKind::Snapshot(i) => i / 2 < COUNTER_LANES,
            RegKind::MboxCtrl | RegKind::SnapshotCmd => false,
            _ => true,
        })
        .count()
        .max(1);
    let _ = writeln!(s, "reg [{}:0] rd_sel;\nreg rd_pend;", nread - 1);
    let en = rf
        .enable_index()
        .map_or("32'd0".to_string(), |i| format!("rw[{i}]"));
    let _ = writeln!(s, "always @(*) begin\n   irq_pending = cause & {en};");
    let _ = writeln!(s, "   endpoint = 1024'd0;");
    let _ = writeln!(
        s,
        "   fw_run = {};",
        rf.run_index()
            .map_or("1'b0".to_string(), |i| format!("rw[{i}][0]"))
    );
    let ctrl_off = rf
        ._map
        .iter()
        .find(|(_, k)| **k == RegKind::MboxCtrl)
        .map_or(0xFFFFFF, |(o, _)| *o);
    let _ = writeln!(
        s,
        "   mbox_submit = bus_wr_en && bus_wr_addr == 24'h{ctrl_off:06x} && bus_wr_data[0];\n   \
         cmd_rejected = fw_wr_en && fw_wr_addr == 5'd{FW_STATUS} && fw_wr_data[15:8] != 8'd0;"
    );
    for (bit, i) in endpoint_rw(&rf._map) {
        let _ = writeln!(s, "   endpoint[{} +: 32] = rw[{i}];", bit);
    }
    let _ = writeln!(s, "   case (fw_rd_addr)");
    for w in 0..16 {
        if let Some(i) = rf.req_index(w) {
            let _ = writeln!(s, "      4'd{w}: fw_rd_data = rw[{i}];");
        }
    }
    let _ = writeln!(s, "      default: fw_rd_data = 32'd0;\n   endcase");
    // The readable words, in offset order: (offset, value expression).
    let mut readable: Vec<(u32, String)> = Vec::new();
    for (off, k) in &rf._map {
        let e = match k {
            RegKind::Const(c) => format!("32'h{c:08x}"),
            RegKind::GitHash => "git_hash".into(),
            RegKind::BuildTime => "build_time".into(),
            RegKind::FwBoot => "fw_boot".into(),
            RegKind::Rw(i, _) => format!("rw[{i}]"),
            RegKind::Cause => "cause".into(),
            RegKind::Fw(i) => format!("fw[{i}]"),
            RegKind::Snapshot(i) => {
                if i / 2 >= COUNTER_LANES {
                    continue;
                }
                if i % 2 == 0 {
                    format!("snap[{}][31:0]", i / 2)
                } else {
                    format!("snap[{}][63:32]", i / 2)
                }
            }
            RegKind::MboxCtrl | RegKind::SnapshotCmd => continue,
        };
        readable.push((*off, e));
    }
    // Second read stage: the AND-OR of the selected word.
    let _ = writeln!(s, "   rd = 32'd0;");
    for (k, (_, e)) in readable.iter().enumerate() {
        let _ = writeln!(s, "   rd = rd | ({{32{{rd_sel[{k}]}}}} & {e});");
    }
    let _ = writeln!(s, "end");
    let _ = writeln!(s, "always @(posedge clk) begin");
    let _ = writeln!(s, "   mbox_go <= 1'b0;\n   bus_rd_valid <= 1'b0;");
    let _ = writeln!(s, "   if (rst) begin");
    for (i, r) in resets.iter().enumerate() {
        let _ = writeln!(s, "      rw[{i}] <= 32'h{r:08x};");
    }
    let _ = writeln!(
        s,
        "      cause <= 32'd0;\n      for (i = 0; i < 17; i = i + 1) fw[i] <= 32'd0;\n      \
         for (i = 0; i < {COUNTER_LANES}; i = i + 1) begin\n         cnt[i] <= 64'd0;\n         snap[i] <= 64'd0;\n      end\n      \
         bus_rd_data <= 32'd0;\n      mbox_tag <= 16'd0;\n      rd_pend <= 1'b0;\n      rd_sel <= {{{nread}{{1'b0}}}};\n      own_rej <= 1'b0;\n      own_ign <= 1'b0;\n   end else begin"
    );
    let _ = writeln!(s, "      rd_pend <= bus_rd_en;");
    for (k, (off, _)) in readable.iter().enumerate() {
        let _ = writeln!(s, "      rd_sel[{k}] <= bus_rd_addr == 24'h{off:06x};");
    }
    let _ = writeln!(s, "      if (rd_pend) begin\n         bus_rd_data <= rd;\n         bus_rd_valid <= 1'b1;\n      end");
    let _ = writeln!(s, "      cause <= (cause | irq_cause_set) & ~((bus_wr_en && bus_wr_addr == 24'h{:06x}) ? bus_wr_data : 32'd0);",
        rf._map.iter().find(|(_, k)| **k == RegKind::Cause).map_or(0xFFFFFF, |(o, _)| *o));
    let _ = writeln!(s, "      if (bus_wr_en) begin\n         case (bus_wr_addr)");
    for (off, k) in &rf._map {
        match k {
            RegKind::Rw(i, _) => {
                let _ = writeln!(s, "            24'h{off:06x}: rw[{i}] <= bus_wr_data;");
            }
            RegKind::MboxCtrl => {
                let _ = writeln!(
                    s,
                    "            24'h{off:06x}: if (bus_wr_data[0] && !fw[{FW_STATUS}][0]) begin\n               mbox_go <= 1'b1;\n               mbox_tag <= bus_wr_data[31:16];\n            end"
                );
            }
            _ => {}
        }
    }
    let _ = writeln!(s, "            default: ;\n         endcase\n      end");
    let snap_off = rf
        ._map
        .iter()
        .find(|(_, k)| **k == RegKind::SnapshotCmd)
        .map_or(0xFFFFFF, |(o, _)| *o);
    let _ = writeln!(
        s,
        "      for (i = 0; i < {COUNTER_LANES}; i = i + 1) begin\n         \
         if (bus_wr_en && bus_wr_addr == 24'h{snap_off:06x} && bus_wr_data[0]) snap[i] <= cnt[i];\n         \
         cnt[i] <= cnt[i] + {{48'd0, cnt_inc[i*{LANE_BITS} +: {LANE_BITS}]}}\n            \
         + {{63'd0, (i == {CMD_REJECTED}) && own_rej}} + {{63'd0, (i == {CMD_IGNORED}) && own_ign}};\n      end\n      \
         own_rej <= cmd_rejected;\n      own_ign <= mbox_submit && fw[{FW_STATUS}][0];"
    );
    // A submission marks the mailbox busy; a firmware write of the same word in that cycle wins (the order of the
    // rust-hdl model: bus writes first, then the firmware's).
    let _ = writeln!(
        s,
        "      if (mbox_submit && !fw[{FW_STATUS}][0]) fw[{FW_STATUS}] <= 32'd1;\n      \
         if (fw_wr_en && fw_wr_addr < 5'd17) fw[fw_wr_addr] <= fw_wr_data;"
    );
    let _ = writeln!(s, "   end\nend");
    s
}
