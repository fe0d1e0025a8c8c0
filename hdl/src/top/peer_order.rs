//! Converts the peer addresses of the transmit engine's headers from the QP context's byte order (little-endian
//! entry fields: the first wire byte in the low bits, `metaroce_regmap::context::qp` `remote_mac` / `remote_ip`)
//! to the `PktMeta` convention the frame builder and the receive path use (big-endian numbers: the first wire
//! byte in the high bits; IPv4 in the low 32 bits). Only the headers the transmit engine builds from the QP
//! context (DATA and CTRL) are converted; ACK and NACK headers come from the receive path, whose addresses are
//! already in `PktMeta` order. Combinational; the handshake passes through.

use crate::records::PktMeta;
use rust_hdl::prelude::*;

/// Peer-address byte order of transmit headers.
#[derive(LogicBlock, Default)]
pub struct PeerOrder {
    /// Header from the transmit engine.
    pub hdr_in: Signal<In, PktMeta>,
    /// The same header with big-endian peer addresses.
    pub hdr_out: Signal<Out, PktMeta>,
}

fn offsets() -> (usize, usize) {
    let m = PktMeta::default();
    (m.get_my_offset_peer_mac(), m.get_my_offset_peer_ip())
}

/// Reverses the order of the first `n` bytes of `x` (little-endian bytes) into a big-endian number.
fn reverse(x: u128, n: usize) -> u128 {
    (0..n).fold(0, |acc, k| (acc << 8) | ((x >> (8 * k)) & 0xFF))
}

impl Logic for PeerOrder {
    fn update(&mut self) {
        let mut m = self.hdr_in.val();
        let ptype = m.ptype.index();
        if ptype == 2 || ptype == 3 {
            self.hdr_out.next = m;
            return;
        }
        let mac = m.peer_mac.to_u64() as u128;
        m.peer_mac = bits(reverse(mac, 6) as u64);
        let ip_lo = m.peer_ip.get_bits::<64>(0).to_u64() as u128;
        let ip_hi = m.peer_ip.get_bits::<64>(64).to_u64() as u128;
        let ip = ip_lo | ip_hi << 64;
        let out = if m.ipv6 {
            reverse(ip, 16)
        } else {
            reverse(ip, 4)
        };
        m.peer_ip = (bits::<128>((out >> 64) as u64) << 64) | bits::<128>(out as u64);
        self.hdr_out.next = m;
    }

    fn connect(&mut self) {
        self.hdr_out.connect();
    }

    fn hdl(&self) -> Verilog {
        let (mac, ip) = offsets();
        let pt = PktMeta::default().get_my_offset_ptype();
        let mut s = format!(
            "always @(*) begin\n   hdr_out = hdr_in;\n   if (hdr_in[{pt} +: 4] != 4'd2 && hdr_in[{pt} +: 4] != 4'd3) begin\n"
        );
        for k in 0..6 {
            s.push_str(&format!(
                "   hdr_out[{} +: 8] = hdr_in[{} +: 8];\n",
                mac + 8 * (5 - k),
                mac + 8 * k
            ));
        }
        s.push_str("   if (hdr_in[");
        s.push_str(&PktMeta::default().get_my_offset_ipv6().to_string());
        s.push_str("]) begin\n");
        for k in 0..16 {
            s.push_str(&format!(
                "      hdr_out[{} +: 8] = hdr_in[{} +: 8];\n",
                ip + 8 * (15 - k),
                ip + 8 * k
            ));
        }
        s.push_str("   end else begin\n");
        s.push_str(&format!("      hdr_out[{} +: 96] = 96'd0;\n", ip + 32));
        for k in 0..4 {
            s.push_str(&format!(
                "      hdr_out[{} +: 8] = hdr_in[{} +: 8];\n",
                ip + 8 * (3 - k),
                ip + 8 * k
            ));
        }
        s.push_str("   end\n   end\nend\n");
        Verilog::Custom(s)
    }
}
