//! The endpoint decoder: fields land where regmap says, and the bdp divider gives the model's bdp.

use metaroce_hdl::top::endpoint_cfg::EndpointCfg;
use metaroce_hdl::top::regfile::endpoint_bit;
use metaroce_proto::transport::cc::CcParams;
use metaroce_regmap::endpoint::{reg, BLOCK};
use rust_hdl::prelude::*;

fn vector(words: &[(u32, u32)]) -> Bits<1024> {
    let mut v = Bits::<1024>::default();
    // Start from the reset values, then apply the writes.
    for r in BLOCK.regs.iter().filter(|r| r.offset >= reg::MAC_HI) {
        for i in 0..r.count {
            let off = r.offset + 4 * i;
            let val = words
                .iter()
                .find(|(o, _)| *o == off)
                .map_or(r.reset, |(_, w)| *w);
            v = v | (bits::<1024>(u64::from(val)) << endpoint_bit(off) as u64);
        }
    }
    v
}

#[test]
fn fields_decode_and_bdp_matches_the_model() {
    for (mbps, rtt, mtu_log) in [
        (100_000u32, 8_000u32, 12u32),
        (400_000, 20_000, 13),
        (10, 3, 9),
        (800_000, 2_000_000, 12),
    ] {
        let mut e = EndpointCfg::default();
        e.connect_all();
        e.endpoint.next = vector(&[
            (reg::LINE_RATE, mbps),
            (reg::BASE_RTT, rtt),
            (reg::MTU, mtu_log),
            (reg::MAC_HI, 0x0a0b),
            (reg::MAC_LO, 0x0c0d_0e0f),
            (reg::IPV6, 0x2001_0db8),
            (reg::IPV6 + 12, 0x0000_0042),
        ]);
        for _ in 0..140 {
            e.clk.next = Clock { clk: true };
            assert!(simulate(&mut e, 50));
            e.clk.next = Clock { clk: false };
            assert!(simulate(&mut e, 50));
        }
        let model = CcParams {
            mtu: 1 << mtu_log,
            line_rate_bps: u64::from(mbps) * 1_000_000,
            base_rtt_ns: u64::from(rtt),
            ..CcParams::default()
        };
        assert_eq!(
            e.cfg_bdp.val().to_u64(),
            model.bdp_bytes(),
            "{mbps} Mb/s, {rtt} ns"
        );
        assert_eq!(e.cfg_mtu.val().to_u64(), 1 << mtu_log);
        assert_eq!(e.cfg_mac.val().to_u64(), 0x0a0b_0c0d_0e0f);
        assert_eq!(e.cfg_ipv6.val().get_bits::<32>(96).index(), 0x2001_0db8);
        assert_eq!(e.cfg_ipv6.val().get_bits::<32>(0).index(), 0x42);
        assert_eq!(e.cfg_udp_port.val().index(), 4792);
        assert_eq!(e.cfg_dscp_ctrl.val().index(), 46);
        assert_eq!(e.cfg_reorder_distance.val().index(), 128);
        assert_eq!(
            e.cfg_line_rate_bps.val().to_u64(),
            u64::from(mbps) * 1_000_000
        );
    }
}
