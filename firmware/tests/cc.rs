//! SET_CC and QUERY_CC against a model of the register space: the parameters land in the endpoint block in an
//! order that keeps the RTO clamp's minimum below its maximum, read back as set, and a refused set or a block
//! that does not hold its values is answered without a partial change being reported as done.

mod common;

use common::{caps, exec, RegSpace};
use metaroce_firmware::Firmware;
use metaroce_regmap::command::{
    arg, CcInfo, CcParams, Command, Opcode, Request, ResponseData, Status,
};
use metaroce_regmap::endpoint::reg;
use metaroce_regmap::fwbus::BootStage;

fn booted() -> (Firmware, RegSpace) {
    let mut regs = RegSpace::new(&caps());
    let mut fw = Firmware::new();
    assert_eq!(fw.boot(&mut regs).stage, BootStage::Ready);
    (fw, regs)
}

fn query(fw: &mut Firmware, regs: &mut RegSpace) -> CcInfo {
    match exec(fw, regs, Command::QueryCc) {
        ResponseData::Cc(c) => c,
        d => panic!("QUERY_CC answered {d:?}"),
    }
}

const NEW: CcParams = CcParams {
    line_rate_mbps: 400_000,
    base_rtt_ns: 4_000,
    rto_min_ns: 100_000_000,
    rto_init_ns: 150_000_000,
    rto_max_ns: 200_000_000,
    ack_delay_ns: 1_000,
    ack_ratio: 4,
    retry_limit: 3,
    reorder_distance: 64,
};

#[test]
fn query_cc_reads_the_reset_values() {
    let (mut fw, mut regs) = booted();
    let c = query(&mut fw, &mut regs);
    assert_eq!(
        c,
        CcInfo {
            params: CcParams {
                line_rate_mbps: 100_000,
                base_rtt_ns: 8_000,
                rto_min_ns: 20_000,
                rto_init_ns: 200_000,
                rto_max_ns: 64_000_000,
                ack_delay_ns: 2_000,
                ack_ratio: 1,
                retry_limit: 7,
                reorder_distance: 128,
            },
            target_qdelay_ns: 5_000,
            min_rtt_window_ns: 10_000_000,
        },
        "the spec's defaults (Table 10.2)"
    );
}

#[test]
fn set_cc_writes_every_register_and_keeps_the_rto_clamp_ordered() {
    let (mut fw, mut regs) = booted();
    // The new minimum (100 ms) is above the old maximum (64 ms): the maximum must go first.
    exec(&mut fw, &mut regs, Command::SetCc(NEW));
    let (mut min, mut max) = (20_000u32, 64_000_000u32);
    for (off, v) in &regs.endpoint_writes {
        match *off {
            reg::RTO_MIN => min = *v,
            reg::RTO_MAX => max = *v,
            _ => {}
        }
        assert!(
            min <= max,
            "after writing {v} at {off:#x}: min {min} > max {max}"
        );
    }
    let c = query(&mut fw, &mut regs);
    assert_eq!(c.params, NEW);
    assert_eq!(
        (c.target_qdelay_ns, c.min_rtt_window_ns),
        (5_000, 10_000_000)
    );
    // Back down: now the minimum falls below the old maximum and the maximum shrinks.
    let low = CcParams {
        rto_min_ns: 10_000,
        rto_init_ns: 50_000,
        rto_max_ns: 1_000_000,
        ..NEW
    };
    regs.endpoint_writes.clear();
    exec(&mut fw, &mut regs, Command::SetCc(low));
    let (mut min, mut max) = (NEW.rto_min_ns, NEW.rto_max_ns);
    for (off, v) in &regs.endpoint_writes {
        match *off {
            reg::RTO_MIN => min = *v,
            reg::RTO_MAX => max = *v,
            _ => {}
        }
        assert!(min <= max, "min {min} > max {max}");
    }
    assert_eq!(query(&mut fw, &mut regs).params, low);
}

#[test]
fn out_of_range_parameters_are_refused_with_their_field_and_write_nothing() {
    let (mut fw, mut regs) = booted();
    let cases = [
        (
            CcParams {
                line_rate_mbps: 0,
                ..NEW
            },
            arg::CC_LINE_RATE,
        ),
        (
            CcParams {
                base_rtt_ns: 0,
                ..NEW
            },
            arg::CC_BASE_RTT,
        ),
        (
            CcParams {
                rto_min_ns: 0,
                ..NEW
            },
            arg::CC_RTO_MIN,
        ),
        (
            CcParams {
                rto_init_ns: 0,
                ..NEW
            },
            arg::CC_RTO_INIT,
        ),
        (
            CcParams {
                rto_max_ns: NEW.rto_min_ns - 1,
                ..NEW
            },
            arg::CC_RTO_MAX,
        ),
        (
            CcParams {
                ack_ratio: 0,
                ..NEW
            },
            arg::CC_ACK_RATIO,
        ),
        (
            CcParams {
                ack_ratio: 65,
                ..NEW
            },
            arg::CC_ACK_RATIO,
        ),
        (
            CcParams {
                retry_limit: 8,
                ..NEW
            },
            arg::CC_RETRY_LIMIT,
        ),
        (
            CcParams {
                reorder_distance: 15,
                ..NEW
            },
            arg::CC_REORDER,
        ),
    ];
    for (i, (c, f)) in cases.into_iter().enumerate() {
        regs.submit(&Request {
            tag: 20 + i as u16,
            command: Command::SetCc(c),
        });
        fw.serve(&mut regs).expect("served");
        let (_, r) = regs.response(Opcode::SetCc, 0);
        assert_eq!(
            (r.status, r.bad_offset),
            (Status::BadParam, Some(f.byte as u16)),
            "case {i}: {c:?}"
        );
    }
    assert!(regs.endpoint_writes.is_empty(), "nothing written");
}

#[test]
fn a_block_that_does_not_hold_its_values_gives_internal() {
    let (mut fw, mut regs) = booted();
    regs.faults.endpoint_stuck = true;
    regs.submit(&Request {
        tag: 3,
        command: Command::SetCc(NEW),
    });
    fw.serve(&mut regs).expect("served");
    let (_, r) = regs.response(Opcode::SetCc, 0);
    assert_eq!(r.status, Status::Internal);
}
