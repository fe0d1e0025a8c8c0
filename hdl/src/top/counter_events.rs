//! Turns the core's events into the register file's counter increments (`cnt_inc`, one 16-bit lane per
//! counter of `metaroce_regmap::counters`, by the counter's index), so that every counter the hardware keeps
//! is named by regmap and counted where the event happens:
//!
//! * frames and bytes at the MAC interfaces (`tx_packets`, `tx_bytes`, `rx_packets`, `rx_bytes`);
//! * DATA packets and retransmissions sent (`tx_data_packets`, `tx_payload_bytes`), ACKs sent (`tx_acks`);
//! * DATA packets accepted by the receive window and their payload (`rx_data_packets`, `rx_payload_bytes`), ACKs
//!   handed to the sender state (`rx_acks`), as the model counts them;
//! * every receive drop by its reason (`drop_<reason>`, MR-ENC-41): two drop reporters (the parser's verdicts
//!   and the receive engine's), each a valid bit and a code of `crate::rx::drop`;
//! * connections opened (`connections_opened`);
//! * new packets held for a window slot (`window_slot_waits`);
//! * frames the parser discarded for lack of buffer room (`rx_overflows`);
//! * NACKs sent and NACKs handed to the sender state, by code (`nack_tx_<code>`, `nack_rx_<code>`), ACKs with
//!   ECE handed to it (`ece_received`), and RTO expiries (`timeouts`);
//! * DATA packets accepted out of order (`ooo_arrivals`), CE-marked DATA of a live connection
//!   (`ecn_ce_received`) and trimmed DATA of a live connection (`trimmed_received`), where the receive engine
//!   hands them to placement;
//! * PSNs declared lost by cause (`rtx_trim`, `rtx_time`, `rtx_distance`, `rtx_rto`, `rtx_rnr`: the sender
//!   engine's `stat_lost`, one per declared PSN, as the model counts them).
//!
//! A custom block because the lane positions come from regmap's counter table at generation time.
//!
//! Bytes per beat: `tkeep` is contiguous from bit 0 on every stream of the core, so the byte count is the
//! thermometer code's value; bit `j` of it is the XOR of `keep[k * 2^j - 1]` over `k >= 1` ([`keep_bytes`]),
//! at most a 64-input XOR (three LUT levels) where a population count would chain adders. The model in
//! `update` computes the same function, so the two agree for any `keep`.

use crate::rel::sender_engine::{LOST_DISTANCE, LOST_RNR, LOST_RTO, LOST_TIME, LOST_TRIM};
use crate::rx::drop;
use crate::top::regfile::CNT_INC_BITS;
use metaroce_proto::wire::NackCode;
use metaroce_regmap::counters::COUNTERS;
use rust_hdl::prelude::*;

/// NACK codes and the suffix of their counters (`nack_tx_<suffix>`, `nack_rx_<suffix>`).
pub const NACK_COUNTERS: [(NackCode, &str); 6] = [
    (NackCode::Trimmed, "trimmed"),
    (NackCode::NoContext, "no_context"),
    (NackCode::Rnr, "rnr"),
    (NackCode::Access, "access"),
    (NackCode::Invalid, "invalid"),
    (NackCode::Unsupported, "unsupported"),
];

/// Loss causes of the sender engine (`stat_lost_cause`) and their retransmission counters (the model counts a
/// retransmission by cause when it declares the PSN lost).
pub const RTX_COUNTERS: [(u64, &str); 5] = [
    (LOST_TRIM, "rtx_trim"),
    (LOST_TIME, "rtx_time"),
    (LOST_DISTANCE, "rtx_distance"),
    (LOST_RTO, "rtx_rto"),
    (LOST_RNR, "rtx_rnr"),
];

/// Lane of the counter called `name`.
pub fn lane(name: &str) -> Option<usize> {
    COUNTERS.iter().position(|c| c.name == name)
}

/// Counter event mapper.
#[derive(LogicBlock, Default)]
pub struct CounterEvents<const KW: usize> {
    /// A frame beat was transmitted (handshake on the MAC transmit stream).
    pub tx_beat: Signal<In, Bit>,
    /// Its keep.
    pub tx_keep: Signal<In, Bits<KW>>,
    /// It was the frame's last beat.
    pub tx_last: Signal<In, Bit>,
    /// A frame beat was received.
    pub rx_beat: Signal<In, Bit>,
    /// Its keep.
    pub rx_keep: Signal<In, Bits<KW>>,
    /// It was the frame's last beat.
    pub rx_last: Signal<In, Bit>,
    /// A DATA packet was sent.
    pub data_sent: Signal<In, Bit>,
    /// Its payload bytes.
    pub data_bytes: Signal<In, Bits<16>>,
    /// An ACK was sent.
    pub ack_sent: Signal<In, Bit>,
    /// A DATA packet was accepted (new PSN).
    pub rx_data: Signal<In, Bit>,
    /// Its payload bytes.
    pub rx_data_bytes: Signal<In, Bits<16>>,
    /// An ACK was received for the sender state.
    pub rx_ack: Signal<In, Bit>,
    /// Drop reporter A: valid.
    pub drop_a: Signal<In, Bit>,
    /// Drop reporter A: reason.
    pub drop_a_code: Signal<In, Bits<8>>,
    /// Drop reporter B: valid.
    pub drop_b: Signal<In, Bit>,
    /// Drop reporter B: reason.
    pub drop_b_code: Signal<In, Bits<8>>,
    /// A connection was opened.
    pub conn_opened: Signal<In, Bit>,
    /// The gate held a new packet for a window slot.
    pub slot_wait: Signal<In, Bit>,
    /// The parser discarded a frame for lack of buffer room.
    pub rx_overflow: Signal<In, Bit>,
    /// A NACK was sent.
    pub nack_tx: Signal<In, Bit>,
    /// Its code.
    pub nack_tx_code: Signal<In, Bits<8>>,
    /// A NACK was handed to the sender state.
    pub nack_rx: Signal<In, Bit>,
    /// Its code.
    pub nack_rx_code: Signal<In, Bits<8>>,
    /// An ACK with ECE was handed to the sender state.
    pub ece_rx: Signal<In, Bit>,
    /// An RTO expired.
    pub timeout: Signal<In, Bit>,
    /// A DATA packet was accepted out of order (a new PSN beyond the expected one).
    pub ooo_rx: Signal<In, Bit>,
    /// An untrimmed DATA packet of a live connection arrived CE-marked.
    pub ce_rx: Signal<In, Bit>,
    /// A trimmed DATA packet of a live connection arrived.
    pub trim_rx: Signal<In, Bit>,
    /// A PSN was declared lost (queued for retransmission).
    pub lost: Signal<In, Bit>,
    /// Why (`crate::rel::sender_engine::LOST_*`).
    pub lost_cause: Signal<In, Bits<3>>,
    /// The increments.
    pub cnt_inc: Signal<Out, Bits<CNT_INC_BITS>>,
}

/// The number of bytes a contiguous `keep` of `kw` bits marks, computed as the hardware does (see the module
/// docs): bit `j` is the XOR of `keep[k * 2^j - 1]` for `k = 1 ..= kw / 2^j`.
pub fn keep_bytes(keep: impl Fn(usize) -> bool, kw: usize) -> u64 {
    let mut n = 0;
    let mut j = 0;
    while (1usize << j) <= kw {
        let step = 1usize << j;
        let parity = (1..=kw / step).fold(false, |p, k| p ^ keep(k * step - 1));
        n |= u64::from(parity) << j;
        j += 1;
    }
    n
}

fn add(v: &mut [u64; 64], name: &str, n: u64) {
    if let Some(l) = lane(name) {
        v[l] += n;
    }
}

impl<const KW: usize> Logic for CounterEvents<KW> {
    fn update(&mut self) {
        let mut v = [0u64; 64];
        let ones = |k: Bits<KW>| keep_bytes(|i| k.get_bit(i), KW);
        if self.tx_beat.val() {
            add(&mut v, "tx_bytes", ones(self.tx_keep.val()));
            add(&mut v, "tx_packets", u64::from(self.tx_last.val()));
        }
        if self.rx_beat.val() {
            add(&mut v, "rx_bytes", ones(self.rx_keep.val()));
            add(&mut v, "rx_packets", u64::from(self.rx_last.val()));
        }
        if self.data_sent.val() {
            add(&mut v, "tx_data_packets", 1);
            add(
                &mut v,
                "tx_payload_bytes",
                self.data_bytes.val().index() as u64,
            );
        }
        add(&mut v, "tx_acks", u64::from(self.ack_sent.val()));
        if self.rx_data.val() {
            add(&mut v, "rx_data_packets", 1);
            add(
                &mut v,
                "rx_payload_bytes",
                self.rx_data_bytes.val().index() as u64,
            );
        }
        add(&mut v, "rx_acks", u64::from(self.rx_ack.val()));
        add(
            &mut v,
            "connections_opened",
            u64::from(self.conn_opened.val()),
        );
        add(&mut v, "window_slot_waits", u64::from(self.slot_wait.val()));
        add(&mut v, "rx_overflows", u64::from(self.rx_overflow.val()));
        add(&mut v, "ece_received", u64::from(self.ece_rx.val()));
        add(&mut v, "timeouts", u64::from(self.timeout.val()));
        add(&mut v, "ooo_arrivals", u64::from(self.ooo_rx.val()));
        add(&mut v, "ecn_ce_received", u64::from(self.ce_rx.val()));
        add(&mut v, "trimmed_received", u64::from(self.trim_rx.val()));
        for (code, name) in RTX_COUNTERS {
            if self.lost.val() && self.lost_cause.val().index() as u64 == code {
                add(&mut v, name, 1);
            }
        }
        for (code, suffix) in NACK_COUNTERS {
            let c = code as u64;
            if self.nack_tx.val() && self.nack_tx_code.val().index() as u64 == c {
                add(&mut v, &format!("nack_tx_{suffix}"), 1);
            }
            if self.nack_rx.val() && self.nack_rx_code.val().index() as u64 == c {
                add(&mut v, &format!("nack_rx_{suffix}"), 1);
            }
        }
        for (valid, code) in [
            (self.drop_a.val(), self.drop_a_code.val().index()),
            (self.drop_b.val(), self.drop_b_code.val().index()),
        ] {
            if valid && code != 0 && code < drop::COUNT {
                add(&mut v, &format!("drop_{}", drop::NAMES[code]), 1);
            }
        }
        let mut out = Bits::<CNT_INC_BITS>::default();
        for (i, n) in v.iter().enumerate() {
            out = out | (bits::<CNT_INC_BITS>(n & 0xFFFF) << (16 * i) as u64);
        }
        self.cnt_inc.next = out;
    }

    fn connect(&mut self) {
        self.cnt_inc.connect();
    }

    fn hdl(&self) -> Verilog {
        use std::fmt::Write;
        let mut s = String::new();
        let kb = usize::BITS as usize - KW.leading_zeros() as usize;
        let _ = writeln!(
            s,
            "reg [{}:0] tx_ones;\nreg [{}:0] rx_ones;",
            kb - 1,
            kb - 1
        );
        let _ = writeln!(s, "always @(*) begin");
        for j in 0..kb {
            let step = 1usize << j;
            let taps = |v: &str| {
                (1..=KW / step)
                    .map(|k| format!("{v}[{}]", k * step - 1))
                    .collect::<Vec<_>>()
                    .join(" ^ ")
            };
            let _ = writeln!(s, "   tx_ones[{j}] = {};", taps("tx_keep"));
            let _ = writeln!(s, "   rx_ones[{j}] = {};", taps("rx_keep"));
        }
        let _ = writeln!(s, "   cnt_inc = {CNT_INC_BITS}'d0;");
        let lane_expr = |name: &str, e: &str, s: &mut String| {
            if let Some(l) = lane(name) {
                let _ = writeln!(s, "   cnt_inc[{} +: 16] = {e};", 16 * l);
            }
        };
        lane_expr(
            "tx_bytes",
            &format!("tx_beat ? {{{}'d0, tx_ones}} : 16'd0", 16 - kb),
            &mut s,
        );
        lane_expr("tx_packets", "{15'd0, tx_beat & tx_last}", &mut s);
        lane_expr(
            "rx_bytes",
            &format!("rx_beat ? {{{}'d0, rx_ones}} : 16'd0", 16 - kb),
            &mut s,
        );
        lane_expr("rx_packets", "{15'd0, rx_beat & rx_last}", &mut s);
        lane_expr("tx_data_packets", "{15'd0, data_sent}", &mut s);
        lane_expr("tx_payload_bytes", "data_sent ? data_bytes : 16'd0", &mut s);
        lane_expr("tx_acks", "{15'd0, ack_sent}", &mut s);
        lane_expr("rx_data_packets", "{15'd0, rx_data}", &mut s);
        lane_expr(
            "rx_payload_bytes",
            "rx_data ? rx_data_bytes : 16'd0",
            &mut s,
        );
        lane_expr("rx_acks", "{15'd0, rx_ack}", &mut s);
        lane_expr("connections_opened", "{15'd0, conn_opened}", &mut s);
        lane_expr("window_slot_waits", "{15'd0, slot_wait}", &mut s);
        lane_expr("rx_overflows", "{15'd0, rx_overflow}", &mut s);
        lane_expr("ece_received", "{15'd0, ece_rx}", &mut s);
        lane_expr("timeouts", "{15'd0, timeout}", &mut s);
        lane_expr("ooo_arrivals", "{15'd0, ooo_rx}", &mut s);
        lane_expr("ecn_ce_received", "{15'd0, ce_rx}", &mut s);
        lane_expr("trimmed_received", "{15'd0, trim_rx}", &mut s);
        for (code, name) in RTX_COUNTERS {
            lane_expr(
                name,
                &format!("{{15'd0, lost && lost_cause == 3'd{code}}}"),
                &mut s,
            );
        }
        for (code, suffix) in NACK_COUNTERS {
            let c = code as u8;
            lane_expr(
                &format!("nack_tx_{suffix}"),
                &format!("{{15'd0, nack_tx && nack_tx_code == 8'd{c}}}"),
                &mut s,
            );
            lane_expr(
                &format!("nack_rx_{suffix}"),
                &format!("{{15'd0, nack_rx && nack_rx_code == 8'd{c}}}"),
                &mut s,
            );
        }
        for code in 1..drop::COUNT {
            lane_expr(
                &format!("drop_{}", drop::NAMES[code]),
                &format!(
                    "{{14'd0, drop_a && drop_a_code == 8'd{code}}} + {{14'd0, drop_b && drop_b_code == 8'd{code}}}"
                ),
                &mut s,
            );
        }
        let _ = writeln!(s, "end");
        Verilog::Custom(s)
    }
}

#[cfg(test)]
mod tests {
    use super::keep_bytes;

    #[test]
    fn keep_bytes_counts_every_contiguous_keep() {
        for kw in [64usize, 128] {
            for n in 0..=kw {
                assert_eq!(keep_bytes(|i| i < n, kw), n as u64, "kw {kw} n {n}");
            }
        }
    }
}
