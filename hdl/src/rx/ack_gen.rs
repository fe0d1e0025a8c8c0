//! The acknowledgement generator of the receive path (spec 4.4, 3.8, 4.10): turns the window's decision on
//! every packet into ACK and NACK requests for the transmit path (`m_axis_ctl_*`, complete `PktMeta`s of the
//! packets to send), and keeps the per-connection ACK state (a RAM of [`AckState`]: packets accepted since the
//! last ACK, CE count, ECE and DUP flags).
//!
//! Per packet (after the receive window, with its [`WinInfo`]):
//! * trimmed DATA of a live connection: NACK TRIMMED, `aux` 0 (MR-REL-48); no other effect;
//! * a candidate (untrimmed DATA of a live connection): CE-marked → `ce_count` += 1 (saturating at 65535) and
//!   ECE (MR-REL-18, MR-REL-57); duplicate → DUP, ACK now (MR-REL-10); beyond the window → ACK now (MR-REL-11);
//!   upstream NACK verdict → that NACK (`code`, `aux`), no ACK; dropped upstream without a NACK → ACK now (the
//!   model's message-slot check); accepted → `unacked` += 1, and the ACK is due now when AR, LAST, CE, out of
//!   order or `unacked >= cfg_ack_ratio` (MR-REL-14, MR-REL-15);
//! * CTRL OPEN or PROBE of a live connection: ACK now with `sack_base` = CACK, ECE also when it is CE-marked
//!   (MR-REL-17);
//! * the ACK-delay timer's trigger of a live connection: see below;
//! * anything else: nothing.
//!
//! An ACK (MR-WIRE-32..35) carries `MBH.PSN` = CACK (the window's `rcv_nxt` after the packet), `DCID` = the
//! peer's CID (the packet's `scid`: set to the peer CID by the connection lookup for DATA), `SCID` = own CID
//! (the packet's DCID), `echo_ts` = the packet's TS, `echo_ev` = `0xC000 | ev`, `sack_base` by MR-WIRE-33
//! (`metaroce_proto::transport::bitmap::sack_base` of CACK and the trigger's PSN; CACK for a CTRL trigger), the
//! bitmap rotated from the circular window ([`Rotate`]) with the 32-bit words at or beyond CACK + 256 cleared
//! (MR-WIRE-34), the accumulated ECE / DUP flags and `ce_count`; then the connection's ACK state restarts at 0. A
//! NACK carries `MBH.PSN` = the packet's PSN, `echo_ts` its TS, `code`, `aux`. Both go back to the packet's
//! source (encapsulation fields and EV of the trigger), DSCP `cfg_dscp_ctrl`, ECN ECT(0), `TS` = now mod 2^32,
//! `conn` = the local connection.
//!
//! The ACK delay (MR-REL-16): an accepted packet whose ACK is not due arms the connection when it is not armed
//! yet: the state records the deadline (`now + cfg_ack_delay_ns`, mod 2^32) and the generator writes it with
//! the packet's addresses into the ACK-delay timer ([`crate::rx::ack_timer`], `arm_wr_*`); when the timer is
//! full (`arm_room` low) the ACK is due now instead. Every accepted packet not acknowledged at once records
//! its TS and EV (the model's `note_ack`). The timer's trigger (`ack_timer` set; it passes the window like a
//! PROBE) makes the ACK due iff the connection is still armed with the trigger's deadline (its `ts`); that ACK
//! echoes the last packet's TS and EV, with `sack_base` = CACK (the covered packets were all in order, so CACK
//! is past them, where MR-WIRE-33 gives CACK). Any ACK disarms the connection, so the trigger of an older
//! deadline finds it disarmed or armed with a newer one, and does nothing. Every due ACK is sent (the model
//! coalesces ACKs that became due before the connection's next transmit opportunity into one; the hardware
//! leaves coalescing to the transmit path).
//!
//! Pipeline: S0 reads the ACK state and, from the packet's PSN and CACK alone, forms the SACK window (base and
//! word mask, [`SackBase`]) and rotates the bitmap by the base's low 5 bits (which are CACK's, [`RotLow`]); S1
//! updates the state (written at the end of S1), builds the request and rotates the rest of the way; S2 (the
//! output registers) holds it. Hazard rule: the state written at the end of S1 is kept in a forwarding register,
//! and a flag records whether that write went to the word the RAM read in the same cycle (same connection); the
//! packet that read it (in S1 one cycle later, its RAM word being the old one) uses the forwarded state instead,
//! so back-to-back packets of one connection flow at one per cycle. Latency 3 cycles. The packet also leaves
//! unchanged on `m_axis_pkt_*` (with its `WinInfo`); a packet leaves when both outputs it goes to are free.
//!
//! Ports: `s_axis_pkt_{tdata: PktMeta, tuser: WinInfo}` → `m_axis_pkt_*` (same) + `m_axis_ctl_*` (PktMeta);
//! `s_axis_open_*` (`ConnOpen`: clears the connection's ACK state), `arm_wr_en` / `arm_wr_data` / `arm_room`
//! (the timer's write port), `cfg_dscp_ctrl`, `cfg_ack_ratio` (1..=64), `cfg_ack_delay_ns`, `now`. Construct with [`AckGen::new`]`(conn_bits)`.

// `LogicStruct` generates public accessor methods without docs; the records and their fields are documented.
#![allow(missing_docs)]

use crate::common::bitscan::Rotate;
use crate::common::ram::SdpRam;
use crate::common::zext::Zext;
use crate::records::PktMeta;
use crate::rel::records::ConnOpen;
use crate::rx::ack_timer::AckArm;
use crate::rx::psn_window::WinInfo;
use metaroce_proto::wire::{AckFlags, CtrlCode, DataFlags, MbhFlags, NackCode, PacketType};
use rust_hdl::prelude::*;

/// Per-connection ACK state (what the next ACK covers).
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct AckState {
    /// Accepted DATA packets not yet acknowledged.
    pub unacked: Bits<7>,
    /// CE-marked DATA packets since the last ACK (saturating).
    pub ce_count: Bits<16>,
    /// A covered packet was CE-marked.
    pub ece: Bit,
    /// A covered DATA packet was a duplicate.
    pub dup: Bit,
    /// An ACK-delay deadline is pending (MR-REL-16; the timer holds it).
    pub armed: Bit,
    /// That deadline, ns mod 2^32 (it also tells the timer's trigger from older, stale ones).
    pub dl: Bits<32>,
    /// TS of the last packet covered (the delayed ACK's `echo_ts`).
    pub lts: Bits<32>,
    /// EV of the last packet covered (the delayed ACK's `echo_ev`).
    pub lev: Bits<14>,
}

/// The SACK window of an ACK (MR-WIRE-33, MR-WIRE-34): `base` = `sack_base(cack, psn)`, and `wmask` bit j set iff
/// the bitmap's 32-bit word j (PSNs `base + 32j ..`) lies below `cack + 256`. Combinational.
#[derive(LogicBlock, Default)]
pub struct SackBase {
    /// CACK.
    pub cack: Signal<In, Bits<32>>,
    /// The triggering PSN.
    pub psn: Signal<In, Bits<32>>,
    /// The SACK base.
    pub base: Signal<Out, Bits<32>>,
    /// Valid 32-bit words of the bitmap.
    pub wmask: Signal<Out, Bits<8>>,
}

impl Logic for SackBase {
    fn update(&mut self) {
        let cack = self.cack.val().to_u128() as u32;
        let psn = self.psn.val().to_u128() as u32;
        let base = metaroce_proto::transport::bitmap::sack_base(cack, psn);
        let k = base.wrapping_sub(cack);
        let mut m = 0u64;
        for j in 0..8u32 {
            if k < 256 && 32 * j + k < 256 {
                m |= 1 << j;
            }
        }
        self.base.next = (base as u64).into();
        self.wmask.next = m.into();
    }
    fn connect(&mut self) {
        self.base.connect();
        self.wmask.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::from(
            "// d = psn - cack; far: 256 <= d < 2^31; base = cack + 32 * (d / 32 - 7) when far, formed from the\n\
             // operands beside the subtraction: cack + 32 * (d / 32) = psn - d[4:0] = {psn[31:5], cack[4:0]}, less 32\n\
             // when the low 5 bits borrow\n\
             /* verilator lint_off UNUSEDSIGNAL */ // d[4:0]: only whole 32-PSN words matter\n\
             wire [31:0] d = psn - cack;\n\
             /* verilator lint_on UNUSEDSIGNAL */\n\
             wire far = ~d[31] & (|d[30:8]);\n\
             wire [31:0] pw = {psn[31:5], cack[4:0]};\n\
             wire [31:0] b_far = (psn[4:0] < cack[4:0]) ? pw - 32'd256 : pw - 32'd224;\n\
             // word j lies below cack + 256 iff d / 32 - 7 + j <= 7, i.e. d / 32 <= 14 - j (d / 32 >= 8 when far)\n\
             always @(*) begin\n\
             \x20  base = far ? b_far : cack;\n",
        );
        for j in 0..8 {
            v.push_str(&format!(
                "   wmask[{j}] = ~far | ((d[30:9] == 22'd0) & (d[8:5] <= 4'd{}));\n",
                14 - j
            ));
        }
        v.push_str("end\n");
        Verilog::Custom(v)
    }
}

/// `out` = `word` with 32-bit word j cleared unless `wmask[j]`. Combinational.
#[derive(LogicBlock, Default)]
pub struct MaskWords {
    /// The word.
    pub word: Signal<In, Bits<256>>,
    /// Word mask.
    pub wmask: Signal<In, Bits<8>>,
    /// The result.
    pub out: Signal<Out, Bits<256>>,
}

impl Logic for MaskWords {
    fn update(&mut self) {
        let w = self.word.val();
        let m = self.wmask.val();
        let mut o = w;
        for j in 0..8 {
            if !m.get_bit(j) {
                for b in 0..32 {
                    o = o.replace_bit(32 * j + b, false);
                }
            }
        }
        self.out.next = o;
    }
    fn connect(&mut self) {
        self.out.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::from("always @(*) begin\n");
        for j in 0..8 {
            v.push_str(&format!(
                "   out[{}:{}] = word[{}:{}] & {{32{{wmask[{j}]}}}};\n",
                32 * j + 31,
                32 * j,
                32 * j + 31,
                32 * j
            ));
        }
        v.push_str("end\n");
        Verilog::Custom(v)
    }
}

/// The low part of the SACK rotation: `out[i] = word[(i + amount) mod 256]` for a 5-bit `amount` (the SACK
/// base's low 5 bits are CACK's, known before the base is). Combinational.
#[derive(LogicBlock, Default)]
pub struct RotLow {
    /// The word.
    pub word: Signal<In, Bits<256>>,
    /// Rotation amount (0..=31).
    pub amount: Signal<In, Bits<5>>,
    /// The rotated word.
    pub out: Signal<Out, Bits<256>>,
}

impl Logic for RotLow {
    fn update(&mut self) {
        let w = self.word.val();
        let a = self.amount.val().index();
        let mut o = Bits::<256>::default();
        for i in 0..256 {
            if w.get_bit((i + a) % 256) {
                o = o.replace_bit(i, true);
            }
        }
        self.out.next = o;
    }
    fn connect(&mut self) {
        self.out.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::from("wire [255:0] r0 = word;\n");
        for k in 0..5 {
            let s = 1usize << k;
            v.push_str(&format!(
                "wire [255:0] r{} = amount[{k}] ? {{r{k}[{}:0], r{k}[255:{s}]}} : r{k};\n",
                k + 1,
                s - 1
            ));
        }
        v.push_str("always @(*) out = r5;\n");
        Verilog::Custom(v)
    }
}

/// The acknowledgement generator (see the module docs).
#[derive(LogicBlock)]
pub struct AckGen {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// Current time, ns.
    pub now: Signal<In, Bits<64>>,
    /// DSCP of ACK / NACK packets.
    pub cfg_dscp_ctrl: Signal<In, Bits<6>>,
    /// ACK every this many accepted packets (1..=64; 1 = every packet).
    pub cfg_ack_ratio: Signal<In, Bits<7>>,
    /// Longest ACK delay when `cfg_ack_ratio` > 1, ns (MR-REL-16).
    pub cfg_ack_delay_ns: Signal<In, Bits<16>>,
    /// Connection opens.
    pub s_axis_open_tdata: Signal<In, ConnOpen>,
    /// Valid.
    pub s_axis_open_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_open_tready: Signal<Out, Bit>,
    /// Packets from the window.
    pub s_axis_pkt_tdata: Signal<In, PktMeta>,
    /// The window's decision.
    pub s_axis_pkt_tuser: Signal<In, WinInfo>,
    /// Valid.
    pub s_axis_pkt_tvalid: Signal<In, Bit>,
    /// Ready.
    pub s_axis_pkt_tready: Signal<Out, Bit>,
    /// Packets out (unchanged).
    pub m_axis_pkt_tdata: Signal<Out, PktMeta>,
    /// The window's decision.
    pub m_axis_pkt_tuser: Signal<Out, WinInfo>,
    /// Valid.
    pub m_axis_pkt_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_pkt_tready: Signal<In, Bit>,
    /// ACK / NACK requests.
    pub m_axis_ctl_tdata: Signal<Out, PktMeta>,
    /// Valid.
    pub m_axis_ctl_tvalid: Signal<Out, Bit>,
    /// Ready.
    pub m_axis_ctl_tready: Signal<In, Bit>,
    /// Arms the ACK-delay timer (a write into its FIFO, only while `arm_room`).
    pub arm_wr_en: Signal<Out, Bit>,
    /// The deadline and the ACK's addresses.
    pub arm_wr_data: Signal<Out, AckArm>,
    /// The timer has a free entry.
    pub arm_room: Signal<In, Bit>,
    ram: SdpRam<AckState, 16>,
    rot: Rotate<256, 8>,
    rlo: RotLow,
    sb: SackBase,
    mw: MaskWords,
    x_ev: Zext<14, 16>,
    x_lev: Zext<14, 16>,
    x_delay: Zext<16, 32>,
    v1: DFF<Bit>,
    p1: DFF<PktMeta>,
    w1: DFF<WinInfo>,
    fwd_hit: DFF<Bit>,
    fwd_st: DFF<AckState>,
    probe1: DFF<Bit>,
    timer1: DFF<Bit>,
    base1: DFF<Bits<32>>,
    wm1: DFF<Bits<8>>,
    bm1: DFF<Bits<256>>,
    pv: DFF<Bit>,
    pm: DFF<PktMeta>,
    pw: DFF<WinInfo>,
    cv: DFF<Bit>,
    cm: DFF<PktMeta>,
    cwm: DFF<Bits<8>>,
    en: Signal<Local, Bit>,
    p: Signal<Local, PktMeta>,
    w: Signal<Local, WinInfo>,
    st: Signal<Local, AckState>,
    ns: Signal<Local, AckState>,
    ce: Signal<Local, Bit>,
    is_data: Signal<Local, Bit>,
    probe: Signal<Local, Bit>,
    iprobe: Signal<Local, Bit>,
    itimer: Signal<Local, Bit>,
    fire: Signal<Local, Bit>,
    fire_ram: Signal<Local, Bit>,
    fire_fwd: Signal<Local, Bit>,
    due: Signal<Local, Bit>,
    arm: Signal<Local, Bit>,
    dl: Signal<Local, Bits<32>>,
    ip: Signal<Local, PktMeta>,
    iw: Signal<Local, WinInfo>,
    rd_a: Signal<Local, Bits<16>>,
    eq_ip_p: Signal<Local, Bit>,
    eq_ip_o: Signal<Local, Bit>,
    eq_p_o: Signal<Local, Bit>,
    wr_a: Signal<Local, Bits<16>>,
    trim_nack: Signal<Local, Bit>,
    send_nack: Signal<Local, Bit>,
    ack_now: Signal<Local, Bit>,
    unacked1: Signal<Local, Bits<7>>,
    writes: Signal<Local, Bit>,
    req: Signal<Local, PktMeta>,
    zst: Signal<Local, AckState>,
    c_data: Constant<Bits<4>>,
    c_ack: Constant<Bits<4>>,
    c_nack: Constant<Bits<4>>,
    c_ctrl: Constant<Bits<4>>,
    c_ce: Constant<Bits<2>>,
    c_ect0: Constant<Bits<2>>,
    c_ar: Constant<Bits<8>>,
    c_last: Constant<Bits<8>>,
    c_open: Constant<Bits<8>>,
    c_probe: Constant<Bits<8>>,
    c_trimmed: Constant<Bits<8>>,
    c_ece: Constant<Bits<8>>,
    c_dupf: Constant<Bits<8>>,
    c_ev_hi: Constant<Bits<16>>,
    c_mask: Constant<Bits<16>>,
    c_z7: Constant<Bits<7>>,
    c_one7: Constant<Bits<7>>,
    c_sat16: Constant<Bits<16>>,
    c_one16: Constant<Bits<16>>,
    c_z8: Constant<Bits<8>>,
    c_z14: Constant<Bits<14>>,
    c_hi3: Constant<Bits<8>>,
    c_ff8: Constant<Bits<8>>,
    c_z16: Constant<Bits<16>>,
    c_z24: Constant<Bits<24>>,
    c_z32: Constant<Bits<32>>,
    c_z64: Constant<Bits<64>>,
    c_z256: Constant<Bits<256>>,
}

fn c8(v: u8) -> Constant<Bits<8>> {
    Constant::new((v as u64).into())
}

fn c4(v: u8) -> Constant<Bits<4>> {
    Constant::new((v as u64).into())
}

impl AckGen {
    /// An ACK generator for `2^conn_bits` connections (`conn_bits` ≤ 16).
    pub fn new(conn_bits: u32) -> Self {
        assert!((1..=16).contains(&conn_bits));
        let depth = 1usize << conn_bits;
        AckGen {
            clk: Default::default(),
            rst: Default::default(),
            now: Default::default(),
            cfg_dscp_ctrl: Default::default(),
            cfg_ack_ratio: Default::default(),
            cfg_ack_delay_ns: Default::default(),
            s_axis_open_tdata: Default::default(),
            s_axis_open_tvalid: Default::default(),
            s_axis_open_tready: Default::default(),
            s_axis_pkt_tdata: Default::default(),
            s_axis_pkt_tuser: Default::default(),
            s_axis_pkt_tvalid: Default::default(),
            s_axis_pkt_tready: Default::default(),
            m_axis_pkt_tdata: Default::default(),
            m_axis_pkt_tuser: Default::default(),
            m_axis_pkt_tvalid: Default::default(),
            m_axis_pkt_tready: Default::default(),
            m_axis_ctl_tdata: Default::default(),
            m_axis_ctl_tvalid: Default::default(),
            m_axis_ctl_tready: Default::default(),
            arm_wr_en: Default::default(),
            arm_wr_data: Default::default(),
            arm_room: Default::default(),
            ram: SdpRam::new(depth),
            rot: Default::default(),
            rlo: Default::default(),
            sb: Default::default(),
            mw: Default::default(),
            x_ev: Default::default(),
            x_lev: Default::default(),
            x_delay: Default::default(),
            v1: Default::default(),
            p1: Default::default(),
            w1: Default::default(),
            fwd_hit: Default::default(),
            fwd_st: Default::default(),
            probe1: Default::default(),
            timer1: Default::default(),
            base1: Default::default(),
            wm1: Default::default(),
            bm1: Default::default(),
            pv: Default::default(),
            pm: Default::default(),
            pw: Default::default(),
            cv: Default::default(),
            cm: Default::default(),
            cwm: Default::default(),
            en: Default::default(),
            p: Default::default(),
            w: Default::default(),
            st: Default::default(),
            ns: Default::default(),
            ce: Default::default(),
            is_data: Default::default(),
            probe: Default::default(),
            iprobe: Default::default(),
            itimer: Default::default(),
            fire: Default::default(),
            fire_ram: Default::default(),
            fire_fwd: Default::default(),
            due: Default::default(),
            arm: Default::default(),
            dl: Default::default(),
            ip: Default::default(),
            iw: Default::default(),
            rd_a: Default::default(),
            eq_ip_p: Default::default(),
            eq_ip_o: Default::default(),
            eq_p_o: Default::default(),
            wr_a: Default::default(),
            trim_nack: Default::default(),
            send_nack: Default::default(),
            ack_now: Default::default(),
            unacked1: Default::default(),
            writes: Default::default(),
            req: Default::default(),
            zst: Default::default(),
            c_data: c4(PacketType::Data as u8),
            c_ack: c4(PacketType::Ack as u8),
            c_nack: c4(PacketType::Nack as u8),
            c_ctrl: c4(PacketType::Ctrl as u8),
            c_ce: Constant::new(3u64.into()),
            c_ect0: Constant::new(2u64.into()),
            c_ar: c8(MbhFlags::AR.bits()),
            c_last: c8(DataFlags::LAST.bits()),
            c_open: c8(CtrlCode::Open as u8),
            c_probe: c8(CtrlCode::Probe as u8),
            c_trimmed: c8(NackCode::Trimmed as u8),
            c_ece: c8(AckFlags::ECE.bits()),
            c_dupf: c8(AckFlags::DUP.bits()),
            c_ev_hi: Constant::new(0xC000u64.into()),
            c_mask: Constant::new(((depth - 1) as u64).into()),
            c_z7: Constant::new(0u64.into()),
            c_one7: Constant::new(1u64.into()),
            c_sat16: Constant::new(0xFFFFu64.into()),
            c_one16: Constant::new(1u64.into()),
            c_z8: Constant::new(0u64.into()),
            c_z14: Constant::new(0u64.into()),
            c_hi3: Constant::new(0xE0u64.into()),
            c_ff8: Constant::new(0xFFu64.into()),
            c_z16: Constant::new(0u64.into()),
            c_z24: Constant::new(0u64.into()),
            c_z32: Constant::new(0u64.into()),
            c_z64: Constant::new(0u64.into()),
            c_z256: Constant::new(0u64.into()),
        }
    }
}

impl Logic for AckGen {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, v1, p1, w1, fwd_hit, fwd_st, probe1, timer1, base1, wm1, bm1, pv, pm, pw,
            cv, cm, cwm
        );
        self.ram.clk.next = self.clk.val();
        self.rot.clk.next = self.clk.val();

        self.en.next = (!self.pv.q.val() | self.m_axis_pkt_tready.val())
            & (!self.cv.q.val() | self.m_axis_ctl_tready.val());
        self.rot.en.next = self.en.val();
        self.s_axis_pkt_tready.next = self.en.val();

        // S0: read the connection's ACK state; classify a CTRL trigger and form the SACK window (MR-WIRE-33)
        // from the packet's PSN and CACK, both known on input.
        self.ip.next = self.s_axis_pkt_tdata.val();
        self.iw.next = self.s_axis_pkt_tuser.val();
        self.iprobe.next = self.iw.val().conn_ok
            & (self.ip.val().ptype == self.c_ctrl.val())
            & ((self.ip.val().code == self.c_open.val())
                | (self.ip.val().code == self.c_probe.val()));
        // The ACK-delay timer's trigger (a live connection's): its ACK's base is CACK too (the packets it
        // covers were all accepted in order, so CACK is past every one of them).
        self.itimer.next = self.iw.val().conn_ok & self.ip.val().ack_timer;
        // For a CTRL trigger the PSN is CACK itself: base CACK, every word valid.
        self.sb.cack.next = self.iw.val().cack;
        self.sb.psn.next = self.ip.val().psn;
        // The rotation by the base's low 5 bits (= CACK's) is done here, the rest in S1.
        self.rlo.word.next = self.iw.val().bitmap;
        self.rlo.amount.next = self.iw.val().cack.get_bits::<5>(0);
        if self.en.val() {
            self.rd_a.next = self.ip.val().conn & self.c_mask.val();
            self.v1.d.next = self.s_axis_pkt_tvalid.val();
            self.p1.d.next = self.ip.val();
            self.w1.d.next = self.iw.val();
            self.probe1.d.next = self.iprobe.val();
            self.timer1.d.next = self.itimer.val();
            if self.iprobe.val() | self.itimer.val() {
                self.base1.d.next = self.iw.val().cack;
                self.wm1.d.next = self.c_ff8.val();
            } else {
                self.base1.d.next = self.sb.base.val();
                self.wm1.d.next = self.sb.wmask.val();
            }
            self.bm1.d.next = self.rlo.out.val();
        } else {
            self.rd_a.next = self.p1.q.val().conn & self.c_mask.val();
        }
        self.ram.rd_addr.next = self.rd_a.val();

        // S1: update the state, decide, build the request.
        self.p.next = self.p1.q.val();
        self.w.next = self.w1.q.val();
        if self.fwd_hit.q.val() {
            self.st.next = self.fwd_st.q.val();
        } else {
            self.st.next = self.ram.rd_data.val();
        }
        self.ce.next = self.p.val().ecn == self.c_ce.val();
        self.is_data.next = self.p.val().ptype == self.c_data.val();
        self.probe.next = self.probe1.q.val();
        self.trim_nack.next = self.w.val().conn_ok & self.is_data.val() & self.p.val().trimmed;
        self.ns.next = self.st.val();
        self.send_nack.next = self.trim_nack.val();
        self.ack_now.next = false;
        self.unacked1.next = self.st.val().unacked + self.c_one7.val();
        // A timer trigger fires when its connection is still armed with its deadline (MR-REL-16); compared on
        // both candidate words (the RAM's and the forwarded one) before the forwarding mux, to keep it shallow.
        self.fire_ram.next =
            self.ram.rd_data.val().armed & (self.ram.rd_data.val().dl == self.p1.q.val().ts);
        self.fire_fwd.next =
            self.fwd_st.q.val().armed & (self.fwd_st.q.val().dl == self.p1.q.val().ts);
        self.fire.next = self.timer1.q.val()
            & ((self.fwd_hit.q.val() & self.fire_fwd.val())
                | (!self.fwd_hit.q.val() & self.fire_ram.val()));
        self.x_delay.i.next = self.cfg_ack_delay_ns.val();
        self.dl.next = self.now.val().get_bits::<32>(0) + self.x_delay.o.val();
        self.due.next = false;
        self.arm.next = false;
        if self.w.val().cand {
            if self.ce.val() {
                self.ns.next.ece = true;
                if self.st.val().ce_count != self.c_sat16.val() {
                    self.ns.next.ce_count = self.st.val().ce_count + self.c_one16.val();
                }
            }
            if self.w.val().dup {
                self.ns.next.dup = true;
                self.ack_now.next = true;
            } else if self.w.val().oow {
                self.ack_now.next = true;
            } else if self.w.val().nack {
                self.send_nack.next = true;
            } else if !self.w.val().accepted {
                self.ack_now.next = true;
            } else {
                self.ns.next.unacked = self.unacked1.val();
                self.ns.next.lts = self.p.val().ts;
                self.ns.next.lev = self.p.val().ev;
                self.due.next = (self.p.val().mbh_flags & self.c_ar.val()).any()
                    | (self.p.val().dflags & self.c_last.val()).any()
                    | self.ce.val()
                    | !self.w.val().in_order
                    | (self.unacked1.val() >= self.cfg_ack_ratio.val());
                if self.due.val() {
                    self.ack_now.next = true;
                } else if !self.st.val().armed {
                    // Not due: arm the timer, or acknowledge now when it is full.
                    if self.arm_room.val() {
                        self.arm.next = true;
                        self.ns.next.armed = true;
                        self.ns.next.dl = self.dl.val();
                    } else {
                        self.ack_now.next = true;
                    }
                }
            }
        }
        if self.fire.val() {
            self.ack_now.next = true;
        }
        if self.probe.val() {
            if self.ce.val() {
                self.ns.next.ece = true;
            }
            self.ack_now.next = true;
        }
        self.writes.next =
            self.v1.q.val() & (self.w.val().cand | self.probe.val() | self.fire.val());
        self.zst.next.unacked = self.c_z7.val();
        self.zst.next.ce_count = self.c_z16.val();
        self.zst.next.ece = false;
        self.zst.next.dup = false;
        self.zst.next.armed = false;
        self.zst.next.dl = self.c_z32.val();
        self.zst.next.lts = self.c_z32.val();
        self.zst.next.lev = self.c_z14.val();

        // Arming: the deadline and what the ACK goes out with (the packet's addresses after the lookup).
        self.arm_wr_en.next = self.v1.q.val() & self.en.val() & self.arm.val();
        self.arm_wr_data.next.conn = self.p.val().conn;
        self.arm_wr_data.next.deadline = self.dl.val();
        self.arm_wr_data.next.peer_mac = self.p.val().peer_mac;
        self.arm_wr_data.next.peer_ip = self.p.val().peer_ip;
        self.arm_wr_data.next.ipv6 = self.p.val().ipv6;
        self.arm_wr_data.next.vlan = self.p.val().vlan;
        self.arm_wr_data.next.tci = self.p.val().tci;
        self.arm_wr_data.next.dcid = self.p.val().dcid;
        self.arm_wr_data.next.scid = self.p.val().scid;

        // The SACK window (formed in S0): rotate the circular bitmap to start at its base.
        self.x_ev.i.next = self.p.val().ev;
        self.x_lev.i.next = self.st.val().lev;
        self.rot.word.next = self.bm1.q.val();
        self.rot.amount.next = self.base1.q.val().get_bits::<8>(0) & self.c_hi3.val();

        // The request: the trigger's encapsulation fields, everything else set here.
        self.req.next = self.p.val();
        self.req.next.dscp = self.cfg_dscp_ctrl.val();
        self.req.next.ecn = self.c_ect0.val();
        self.req.next.mbh_flags = self.c_z8.val();
        self.req.next.payload_len = self.c_z16.val();
        self.req.next.dcid = self.p.val().scid;
        self.req.next.hlen = self.c_z8.val();
        self.req.next.ts = self.now.val().get_bits::<32>(0);
        self.req.next.opcode = self.c_z8.val();
        self.req.next.dflags = self.c_z8.val();
        self.req.next.msn = self.c_z32.val();
        self.req.next.addr = self.c_z64.val();
        self.req.next.key = self.c_z32.val();
        self.req.next.msg_len = self.c_z32.val();
        self.req.next.imm = self.c_z32.val();
        self.req.next.scid = self.p.val().dcid;
        self.req.next.echo_ts = self.p.val().ts;
        if self.fire.val() {
            self.req.next.echo_ts = self.st.val().lts;
        }
        self.req.next.sack = self.c_z256.val();
        self.req.next.ox = false;
        self.req.next.ox_scid = self.c_z24.val();
        self.req.next.wlog = self.c_z8.val();
        self.req.next.isn = self.c_z32.val();
        self.req.next.target_qpn = self.c_z24.val();
        self.req.next.mtu_log = self.c_z8.val();
        self.req.next.trimmed = false;
        self.req.next.ack_timer = false;
        self.req.next.drop = self.c_z8.val();
        self.req.next.local_addr = self.c_z64.val();
        if self.send_nack.val() {
            self.req.next.ptype = self.c_nack.val();
            self.req.next.psn = self.p.val().psn;
            self.req.next.aflags = self.c_z8.val();
            self.req.next.sack_base = self.c_z32.val();
            self.req.next.echo_ev = self.c_z16.val();
            self.req.next.ce_count = self.c_z16.val();
            if self.trim_nack.val() {
                self.req.next.code = self.c_trimmed.val();
                self.req.next.aux = self.c_z32.val();
            } else {
                self.req.next.code = self.w.val().code;
                self.req.next.aux = self.w.val().aux;
            }
        } else {
            self.req.next.ptype = self.c_ack.val();
            self.req.next.psn = self.w.val().cack;
            self.req.next.aflags = self.c_z8.val();
            if self.ns.val().ece & self.ns.val().dup {
                self.req.next.aflags = self.c_ece.val() | self.c_dupf.val();
            } else if self.ns.val().ece {
                self.req.next.aflags = self.c_ece.val();
            } else if self.ns.val().dup {
                self.req.next.aflags = self.c_dupf.val();
            }
            self.req.next.sack_base = self.base1.q.val();
            self.req.next.echo_ev = self.x_ev.o.val() | self.c_ev_hi.val();
            if self.fire.val() {
                self.req.next.echo_ev = self.x_lev.o.val() | self.c_ev_hi.val();
            }
            self.req.next.ce_count = self.ns.val().ce_count;
            self.req.next.code = self.c_z8.val();
            self.req.next.aux = self.c_z32.val();
        }

        // State write (end of S1) and its forwarding copy; connection opens when S1 does not write. The
        // forwarding flag is set when the word written now is the one read now (the RAM returns the old word).
        self.s_axis_open_tready.next = !(self.en.val() & self.writes.val());
        if self.en.val() & self.writes.val() {
            self.wr_a.next = self.p.val().conn & self.c_mask.val();
        } else {
            self.wr_a.next = self.s_axis_open_tdata.val().conn & self.c_mask.val();
        }
        self.ram.wr_addr.next = self.wr_a.val();
        // The address comparisons for the forwarding flag, ahead of the enable that picks one.
        self.eq_ip_p.next =
            (self.ip.val().conn & self.c_mask.val()) == (self.p.val().conn & self.c_mask.val());
        self.eq_ip_o.next = (self.ip.val().conn & self.c_mask.val())
            == (self.s_axis_open_tdata.val().conn & self.c_mask.val());
        self.eq_p_o.next = (self.p.val().conn & self.c_mask.val())
            == (self.s_axis_open_tdata.val().conn & self.c_mask.val());
        self.fwd_hit.d.next = false;
        if self.en.val() & self.writes.val() {
            self.ram.wr_en.next = true;
            if self.ack_now.val() {
                self.ram.wr_data.next = self.zst.val();
                self.fwd_st.d.next = self.zst.val();
            } else {
                self.ram.wr_data.next = self.ns.val();
                self.fwd_st.d.next = self.ns.val();
            }
            self.fwd_hit.d.next = self.eq_ip_p.val();
        } else {
            self.ram.wr_en.next = self.s_axis_open_tvalid.val();
            self.ram.wr_data.next = self.zst.val();
            if self.s_axis_open_tvalid.val() {
                if self.en.val() {
                    self.fwd_hit.d.next = self.eq_ip_o.val();
                } else {
                    self.fwd_hit.d.next = self.eq_p_o.val();
                }
                self.fwd_st.d.next = self.zst.val();
            }
        }

        // S2: output registers; the bitmap is rotated on the way (Rotate registers it).
        if self.m_axis_pkt_tready.val() {
            self.pv.d.next = false;
        }
        if self.m_axis_ctl_tready.val() {
            self.cv.d.next = false;
        }
        if self.en.val() {
            self.pv.d.next = self.v1.q.val();
            self.pm.d.next = self.p.val();
            self.pw.d.next = self.w.val();
            self.cv.d.next = self.v1.q.val() & (self.ack_now.val() | self.send_nack.val());
            self.cm.d.next = self.req.val();
            if self.send_nack.val() {
                self.cwm.d.next = self.c_z8.val();
            } else {
                self.cwm.d.next = self.wm1.q.val();
            }
        }
        self.mw.word.next = self.rot.rotated.val();
        self.mw.wmask.next = self.cwm.q.val();
        self.m_axis_pkt_tvalid.next = self.pv.q.val();
        self.m_axis_pkt_tdata.next = self.pm.q.val();
        self.m_axis_pkt_tuser.next = self.pw.q.val();
        self.m_axis_ctl_tvalid.next = self.cv.q.val();
        self.m_axis_ctl_tdata.next = self.cm.q.val();
        self.m_axis_ctl_tdata.next.sack = self.mw.out.val();
        if self.rst.val() {
            self.v1.d.next = false;
            self.fwd_hit.d.next = false;
            self.pv.d.next = false;
            self.cv.d.next = false;
        }
    }
}

/// This block at the core's configuration.
pub fn blocks() -> Vec<crate::blocks::BlockSpec> {
    vec![crate::blocks::BlockSpec {
        name: "metaroce_rx_ack_gen",
        area: "rx",
        description:
            "ACK / NACK requests: ack ratio and ack-now rules, SACK base and bitmap, CE count (4.4)",
        verilog: |cfg| crate::gen::verilog("metaroce_rx_ack_gen", AckGen::new(cfg.conn_bits)),
    }]
}
