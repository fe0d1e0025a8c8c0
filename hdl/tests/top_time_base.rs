//! The time base keeps the fraction: after n cycles `now = floor(n * period_q16 / 65536)`.

use metaroce_hdl::top::clock::TimeBase;
use rust_hdl::prelude::*;

#[test]
fn time_base_does_not_drift() {
    for period in [65_536u64, 203_533, 131_072 + 1] {
        let mut t = TimeBase::default();
        t.connect_all();
        t.cfg_ns_per_cycle_q16.next = bits(period);
        t.rst.next = true;
        for cycle in 0..=2000u64 {
            t.clk.next = Clock { clk: true };
            assert!(simulate(&mut t, 50));
            t.clk.next = Clock { clk: false };
            assert!(simulate(&mut t, 50));
            if cycle == 0 {
                t.rst.next = false;
                assert_eq!(t.now.val().to_u64(), 0);
            } else {
                assert_eq!(
                    t.now.val().to_u64(),
                    cycle * period / 65_536,
                    "period {period}, cycle {cycle}"
                );
            }
        }
    }
}
