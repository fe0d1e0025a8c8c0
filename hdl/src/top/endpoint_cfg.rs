//! Decodes the endpoint register block (`metaroce_regmap::endpoint`, the register file's `endpoint` vector)
//! into the configuration inputs of the pipelines, with the positions taken from regmap's tables, and derives
//! NSCC's `bdp = max(line_rate_bps * base_rtt_ns / 8e9, mtu)` (spec 6.2). With the line rate in Mb/s the
//! quotient is exactly `mbps * base_rtt_ns / 8000`; a radix-2 divider recomputes it continuously (66 cycles per
//! round), so `cfg_bdp` follows a register write within 132 cycles (the maximum with the MTU is taken when a
//! round stores its quotient, so an MTU write also takes effect then). Everything else is wiring.

use crate::top::regfile::endpoint_bit;
use metaroce_regmap::endpoint::{field, reg};
use metaroce_regmap::field::Field;
use rust_hdl::prelude::*;

/// Endpoint configuration decoder.
#[derive(LogicBlock, Default)]
pub struct EndpointCfg {
    /// Clock.
    pub clk: Signal<In, Clock>,
    /// The register file's endpoint vector.
    pub endpoint: Signal<In, Bits<1024>>,
    /// Own MAC address (big-endian number).
    pub cfg_mac: Signal<Out, Bits<48>>,
    /// Own IPv4 address.
    pub cfg_ipv4: Signal<Out, Bits<32>>,
    /// Own IPv6 address.
    pub cfg_ipv6: Signal<Out, Bits<128>>,
    /// Address families in use (bit 0 IPv4, bit 1 IPv6).
    pub cfg_ip_en: Signal<Out, Bits<2>>,
    /// UDP destination port.
    pub cfg_udp_port: Signal<Out, Bits<16>>,
    /// DSCP of DATA.
    pub cfg_dscp_data: Signal<Out, Bits<6>>,
    /// DSCP of ACK/NACK/CTRL.
    pub cfg_dscp_ctrl: Signal<Out, Bits<6>>,
    /// DSCP of trimmed packets.
    pub cfg_dscp_trim: Signal<Out, Bits<6>>,
    /// TTL / hop limit.
    pub cfg_ttl: Signal<Out, Bits<8>>,
    /// Clock period, 1/65536 ns.
    pub cfg_clock_q16: Signal<Out, Bits<32>>,
    /// Line rate, bit/s.
    pub cfg_line_rate_bps: Signal<Out, Bits<64>>,
    /// Base RTT, ns.
    pub cfg_base_rtt_ns: Signal<Out, Bits<64>>,
    /// NSCC delay target, ns.
    pub cfg_target_ns: Signal<Out, Bits<64>>,
    /// RTO bounds and initial value, ns.
    pub cfg_rto_min_ns: Signal<Out, Bits<64>>,
    /// Initial RTO, ns.
    pub cfg_rto_init_ns: Signal<Out, Bits<64>>,
    /// Maximum RTO, ns.
    pub cfg_rto_max_ns: Signal<Out, Bits<64>>,
    /// min-RTT window, ns.
    pub cfg_min_rtt_window_ns: Signal<Out, Bits<64>>,
    /// Retry limit.
    pub cfg_retry_limit: Signal<Out, Bits<8>>,
    /// Reordering distance, packets.
    pub cfg_reorder_distance: Signal<Out, Bits<16>>,
    /// ACK ratio.
    pub cfg_ack_ratio: Signal<Out, Bits<7>>,
    /// ACK delay, ns.
    pub cfg_ack_delay_ns: Signal<Out, Bits<16>>,
    /// log2 MTU.
    pub cfg_mtu_log: Signal<Out, Bits<8>>,
    /// MTU in bytes.
    pub cfg_mtu: Signal<Out, Bits<64>>,
    /// NSCC bdp in bytes.
    pub cfg_bdp: Signal<Out, Bits<64>>,
    _num: u64,
    _rem: u64,
    _quo: u64,
    _step: u32,
    _bdp: u64,
}

/// Bit position and width of a register field inside the endpoint vector.
fn pos(offset: u32, f: &Field) -> (usize, usize) {
    (
        endpoint_bit(offset) + usize::from(f.bit),
        usize::from(f.width),
    )
}

fn word(ep: &Bits<1024>, offset: u32) -> u64 {
    ep.get_bits::<32>(endpoint_bit(offset)).index() as u64
}

fn fieldv(ep: &Bits<1024>, offset: u32, f: &Field) -> u64 {
    f.extract(word(ep, offset) as u32) as u64
}

/// Divisor of the bdp quotient (8e9 bits per byte-second / 1e6 Mb/s).
const BDP_DIVISOR: u64 = 8000;
/// Divider steps per round: load, 64 quotient bits, store.
const ROUND: u32 = 66;

impl Logic for EndpointCfg {
    fn update(&mut self) {
        let ep = self.endpoint.val();
        if self.clk.pos_edge() {
            // The divider: step 0 loads, steps 1..=64 produce quotient bits, step 65 stores.
            match self._step {
                0 => {
                    self._num = word(&ep, reg::LINE_RATE).wrapping_mul(word(&ep, reg::BASE_RTT));
                    self._rem = 0;
                    self._quo = 0;
                }
                1..=64 => {
                    let bit = (self._num >> (64 - self._step)) & 1;
                    let r = (self._rem << 1) | bit;
                    if r >= BDP_DIVISOR {
                        self._rem = r - BDP_DIVISOR;
                        self._quo = (self._quo << 1) | 1;
                    } else {
                        self._rem = r;
                        self._quo <<= 1;
                    }
                }
                _ => {
                    let mtu = 1u64 << fieldv(&ep, reg::MTU, &field::MTU_LOG);
                    self._bdp = self._quo.max(mtu);
                }
            }
            self._step = (self._step + 1) % ROUND;
        }
        let mtu = 1u64 << fieldv(&ep, reg::MTU, &field::MTU_LOG);
        self.cfg_mac.next =
            bits((fieldv(&ep, reg::MAC_HI, &field::MAC_HI) << 32) | word(&ep, reg::MAC_LO));
        self.cfg_ipv4.next = bits(word(&ep, reg::IPV4));
        let mut v6 = Bits::<128>::default();
        for i in 0..4u32 {
            v6 = v6 | (bits::<128>(word(&ep, reg::IPV6 + 4 * i)) << (96 - 32 * i as u64));
        }
        self.cfg_ipv6.next = v6;
        self.cfg_ip_en.next = bits(
            fieldv(&ep, reg::IP_EN, &field::IPV4_EN)
                | fieldv(&ep, reg::IP_EN, &field::IPV6_EN) << 1,
        );
        self.cfg_udp_port.next = bits(fieldv(&ep, reg::UDP_PORT, &field::PORT));
        self.cfg_dscp_data.next = bits(fieldv(&ep, reg::DSCP, &field::DSCP_DATA));
        self.cfg_dscp_ctrl.next = bits(fieldv(&ep, reg::DSCP, &field::DSCP_CTRL));
        self.cfg_dscp_trim.next = bits(fieldv(&ep, reg::DSCP, &field::DSCP_TRIM));
        self.cfg_ttl.next = bits(fieldv(&ep, reg::TTL, &field::TTL));
        self.cfg_clock_q16.next = bits(word(&ep, reg::CLOCK_PERIOD));
        self.cfg_line_rate_bps.next = bits(word(&ep, reg::LINE_RATE) * 1_000_000);
        self.cfg_base_rtt_ns.next = bits(word(&ep, reg::BASE_RTT));
        self.cfg_target_ns.next = bits(word(&ep, reg::TARGET_QDELAY));
        self.cfg_rto_min_ns.next = bits(word(&ep, reg::RTO_MIN));
        self.cfg_rto_init_ns.next = bits(word(&ep, reg::RTO_INIT));
        self.cfg_rto_max_ns.next = bits(word(&ep, reg::RTO_MAX));
        self.cfg_min_rtt_window_ns.next = bits(word(&ep, reg::MIN_RTT_WINDOW));
        self.cfg_retry_limit.next = bits(fieldv(&ep, reg::RETRY, &field::RETRY_LIMIT));
        self.cfg_reorder_distance.next = bits(fieldv(&ep, reg::RETRY, &field::REORDER_DISTANCE));
        self.cfg_ack_ratio.next = bits(fieldv(&ep, reg::ACK, &field::ACK_RATIO));
        self.cfg_ack_delay_ns.next = bits(fieldv(&ep, reg::ACK, &field::ACK_DELAY));
        self.cfg_mtu_log.next = bits(fieldv(&ep, reg::MTU, &field::MTU_LOG));
        self.cfg_mtu.next = bits(mtu);
        self.cfg_bdp.next = bits(self._bdp);
    }

    fn connect(&mut self) {
        self.cfg_mac.connect();
        self.cfg_ipv4.connect();
        self.cfg_ipv6.connect();
        self.cfg_ip_en.connect();
        self.cfg_udp_port.connect();
        self.cfg_dscp_data.connect();
        self.cfg_dscp_ctrl.connect();
        self.cfg_dscp_trim.connect();
        self.cfg_ttl.connect();
        self.cfg_clock_q16.connect();
        self.cfg_line_rate_bps.connect();
        self.cfg_base_rtt_ns.connect();
        self.cfg_target_ns.connect();
        self.cfg_rto_min_ns.connect();
        self.cfg_rto_init_ns.connect();
        self.cfg_rto_max_ns.connect();
        self.cfg_min_rtt_window_ns.connect();
        self.cfg_retry_limit.connect();
        self.cfg_reorder_distance.connect();
        self.cfg_ack_ratio.connect();
        self.cfg_ack_delay_ns.connect();
        self.cfg_mtu_log.connect();
        self.cfg_mtu.connect();
        self.cfg_bdp.connect();
    }

    fn hdl(&self) -> Verilog {
        let w = |off: u32| format!("endpoint[{} +: 32]", endpoint_bit(off));
        let f = |off: u32, fl: &Field| {
            let (b, n) = pos(off, fl);
            format!("endpoint[{b} +: {n}]")
        };
        let z = |off: u32, n: usize| format!("{{{}'d0, {}}}", n - 32, w(off));
        let (mtu_b, mtu_n) = pos(reg::MTU, &field::MTU_LOG);
        let mut v = String::new();
        v.push_str(&format!(
            "\
reg [63:0] num;
/* verilator lint_off UNUSEDSIGNAL */
// rem < 8000 after every step, so its top bit is always 0 and never read.
reg [63:0] rem;
/* verilator lint_on UNUSEDSIGNAL */
reg [63:0] quo;
reg [63:0] bdp;
reg [6:0] step;
wire [5:0] bit_index = 6'd0 - step[5:0];
wire [63:0] shifted = {{rem[62:0], num[bit_index]}};
wire [63:0] mtu = 64'd1 << endpoint[{mtu_b} +: {mtu_n}];
initial begin
   num = 64'd0; rem = 64'd0; quo = 64'd0; bdp = 64'd0; step = 7'd0;
end
always @(posedge clk) begin
   if (step == 7'd0) begin
      num <= {{32'd0, {rate}}} * {{32'd0, {rtt}}};
      rem <= 64'd0;
      quo <= 64'd0;
   end else if (step <= 7'd64) begin
      if (shifted >= 64'd{div}) begin
         rem <= shifted - 64'd{div};
         quo <= {{quo[62:0], 1'b1}};
      end else begin
         rem <= shifted;
         quo <= {{quo[62:0], 1'b0}};
      end
   end else begin
      bdp <= (quo > mtu) ? quo : mtu;
   end
   step <= (step == 7'd{last}) ? 7'd0 : step + 7'd1;
end
always @(*) begin
   cfg_mac = {{{mac_hi}, {mac_lo}}};
   cfg_ipv4 = {ipv4};
   cfg_ipv6 = {{{v6_0}, {v6_1}, {v6_2}, {v6_3}}};
   cfg_ip_en = {{{ip6}, {ip4}}};
   cfg_udp_port = {port};
   cfg_dscp_data = {dd};
   cfg_dscp_ctrl = {dc};
   cfg_dscp_trim = {dt};
   cfg_ttl = {ttl};
   cfg_clock_q16 = {clk_q16};
   cfg_line_rate_bps = {{32'd0, {rate}}} * 64'd1000000;
   cfg_base_rtt_ns = {rtt64};
   cfg_target_ns = {target};
   cfg_rto_min_ns = {rto_min};
   cfg_rto_init_ns = {rto_init};
   cfg_rto_max_ns = {rto_max};
   cfg_min_rtt_window_ns = {minrtt};
   cfg_retry_limit = {retry};
   cfg_reorder_distance = {reorder};
   cfg_ack_ratio = {ratio};
   cfg_ack_delay_ns = {delay};
   cfg_mtu_log = {{{mtu_pad}'d0, endpoint[{mtu_b} +: {mtu_n}]}};
   cfg_mtu = mtu;
   cfg_bdp = bdp;
end
",
            rate = w(reg::LINE_RATE),
            mtu_pad = 8 - mtu_n,
            rtt = w(reg::BASE_RTT),
            div = BDP_DIVISOR,
            last = ROUND - 1,
            mac_hi = f(reg::MAC_HI, &field::MAC_HI),
            mac_lo = w(reg::MAC_LO),
            ipv4 = w(reg::IPV4),
            v6_0 = w(reg::IPV6),
            v6_1 = w(reg::IPV6 + 4),
            v6_2 = w(reg::IPV6 + 8),
            v6_3 = w(reg::IPV6 + 12),
            ip4 = f(reg::IP_EN, &field::IPV4_EN),
            ip6 = f(reg::IP_EN, &field::IPV6_EN),
            port = f(reg::UDP_PORT, &field::PORT),
            dd = f(reg::DSCP, &field::DSCP_DATA),
            dc = f(reg::DSCP, &field::DSCP_CTRL),
            dt = f(reg::DSCP, &field::DSCP_TRIM),
            ttl = f(reg::TTL, &field::TTL),
            clk_q16 = w(reg::CLOCK_PERIOD),
            rtt64 = z(reg::BASE_RTT, 64),
            target = z(reg::TARGET_QDELAY, 64),
            rto_min = z(reg::RTO_MIN, 64),
            rto_init = z(reg::RTO_INIT, 64),
            rto_max = z(reg::RTO_MAX, 64),
            minrtt = z(reg::MIN_RTT_WINDOW, 64),
            retry = f(reg::RETRY, &field::RETRY_LIMIT),
            reorder = f(reg::RETRY, &field::REORDER_DISTANCE),
            ratio = f(reg::ACK, &field::ACK_RATIO),
            delay = f(reg::ACK, &field::ACK_DELAY),
        ));
        Verilog::Custom(v)
    }
}
