//! Golden byte images written out by hand from the documented bit numbering (little-endian, bit n of an entry
//! is bit n % 8 of byte n / 8): deconstruct (parse the image) and construct (emit into a poisoned buffer).

use metaroce_regmap::command::{Command, CreateMr, Request, CMD_BYTES};
use metaroce_regmap::context::conn::{ConnFlags, ConnHot, ConnState};
use metaroce_regmap::context::mr::MrAccess;
use metaroce_regmap::descriptor::cqe::{CqeOpcode, CqeRepr, CqeStatus};
use metaroce_regmap::descriptor::sqe::{SqOp, SqeRepr};

fn image<const N: usize>(bytes: &[(usize, &[u8])]) -> [u8; N] {
    let mut b = [0u8; N];
    for (at, v) in bytes {
        b[*at..*at + v.len()].copy_from_slice(v);
    }
    b
}

fn construct<const N: usize>(
    emit: impl FnOnce(&mut [u8]) -> Result<(), metaroce_regmap::Error>,
) -> [u8; N] {
    let mut b = [0xA5u8; N];
    emit(&mut b).unwrap();
    b
}

#[test]
fn sqe_golden() {
    let repr = SqeRepr {
        wr_id: 0x0102_0304_0506_0708,
        op: SqOp::WriteImm(0x1122_3344),
        local_addr: 0x1000,
        length: 0x2000,
        lkey: 0x0101,
        remote_addr: 0xAA_BBCC_DD00,
        rkey: 0x5A00_0101,
        solicited: true,
    };
    let golden: [u8; 64] = image(&[
        (0, &[0x02, 0x01]),
        (4, &[0x44, 0x33, 0x22, 0x11]),
        (8, &[0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01]),
        (16, &[0x00, 0x10]),
        (24, &[0x00, 0x20, 0x00, 0x00, 0x01, 0x01]),
        (32, &[0x00, 0xDD, 0xCC, 0xBB, 0xAA]),
        (40, &[0x01, 0x01, 0x00, 0x5A]),
    ]);
    assert_eq!(SqeRepr::parse(&golden), Ok(repr));
    assert_eq!(construct::<64>(|b| repr.emit(b)), golden);
}

#[test]
fn cqe_golden() {
    let repr = CqeRepr {
        wr_id: 0x77,
        byte_len: 100,
        imm: Some(0xCAFE_BABE),
        qpn: 0x12_3456,
        opcode: CqeOpcode::RecvWriteImm,
        status: CqeStatus::Success,
        solicited: true,
        wqe_index: 0x0102,
        phase: true,
    };
    let golden: [u8; 32] = image(&[
        (0, &[0x77]),
        (8, &[100]),
        (12, &[0xBE, 0xBA, 0xFE, 0xCA]),
        (16, &[0x56, 0x34, 0x12, 0x04, 0x00, 0x03, 0x02, 0x01]),
        (31, &[0x01]),
    ]);
    assert_eq!(CqeRepr::parse(&golden), Ok(repr));
    assert_eq!(construct::<32>(|b| repr.emit(b)), golden);
}

/// MR-CONN-28: the packed small fields of the hot state land on the documented bits.
#[test]
fn mr_conn_28_hot_state_golden() {
    let repr = ConnHot {
        cid: 0xAB_CDEF,
        peer_cid: 0,
        state: ConnState::Open,
        flags: ConnFlags::SYN_OUT,
        own_wlog: 12,
        peer_wlog: 16,
        ev_rr: 63,
        backoff: 31,
        retries: 5,
        rnr_retries: 2,
        ack_count: 100,
        snd_una: 0x0102_0304,
        snd_nxt: 0,
        rcv_nxt: 0,
        snd_msn: 0,
        rcv_msn: 0,
        snd_ssn: 0,
        rcv_ssn: 0,
        ack_psn: 0,
        ack_ts: 0,
        ack_ev: 0x3FFF,
        ce_count: 0,
        srtt: 0,
        rttvar: 0,
        cwnd: 0,
        inflight: 0,
        next_tx: 0,
    };
    let golden: [u8; 64] = image(&[
        (0, &[0x04, 0x03, 0x02, 0x01]),
        (36, &[0xEF, 0xCD, 0xAB]),
        // ack_ev 0x3FFF in 57[7:0] + 58[5:0]; state OPEN in 58[7:6]; flags; wlogs 4 | 8 << 4.
        (57, &[0xFF, 0x7F, 0x01, 0x84]),
        // ev_rr 63 and backoff's low bits; backoff's high bits, retries 5 << 3, rnr_retries 2 from bit 6;
        // ack_count 100 << 1.
        (61, &[0xFF, 0xAF, 0xC8]),
    ]);
    assert_eq!(ConnHot::parse(&golden), Ok(repr));
    assert_eq!(construct::<64>(|b| repr.emit(b)), golden);
}

#[test]
fn create_mr_request_golden() {
    let req = Request {
        tag: 0x1234,
        command: Command::CreateMr(CreateMr {
            addr: 0x1000,
            length: 0x1_0000,
            access: MrAccess(7),
        }),
    };
    let golden: [u8; CMD_BYTES] = image(&[
        (0, &[0x30, 0x01, 0x34, 0x12]),
        (8, &[0x00, 0x10]),
        (16, &[0x00, 0x00, 0x01]),
        (24, &[0x07]),
    ]);
    let limits = metaroce_regmap::caps::CapsRepr::REFERENCE.limits();
    assert_eq!(Request::parse(&golden, &limits), Ok(req));
    let mut b = [0xA5u8; CMD_BYTES];
    req.emit(&mut b).unwrap();
    assert_eq!(b, golden);
}
