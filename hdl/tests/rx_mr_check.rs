//! MR check stage (MR-SEM-13..15, MR-SEM-32..34): verdicts and placement addresses of random WRITE, SEND and
//! READ_REQ packets against regions registered in `metaroce_proto::transport::mr::MrTable` (the model's keys:
//! `rkey = lkey ^ 0x5A00_0000`) and written into the hardware table in the `metaroce_regmap::context::mr` layout;
//! random input gaps and output back-pressure. Seed: `METAROCE_SEED` (printed).

use metaroce_hdl::records::{CtxWrite, PktMeta};
use metaroce_hdl::rx::drop;
use metaroce_hdl::rx::mr_check::{MrCheck, RxCheck};
use metaroce_proto::transport::mr::MrTable as ModelMr;
use metaroce_proto::transport::verbs::Access;
use metaroce_proto::wire::{NackCode, Opcode, PacketType};
use metaroce_regmap::context::mr::{MrAccess, MrContext};
use rust_hdl::prelude::*;
use std::collections::VecDeque;

type Uut = MrCheck<8>;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }
}

fn step(u: &mut Uut) {
    u.clk.next = Clock { clk: true };
    assert!(simulate(u, 500));
    u.clk.next = Clock { clk: false };
    assert!(simulate(u, 500));
}

fn bits512(buf: &[u8]) -> Bits<512> {
    let mut v = Bits::<512>::default();
    for (i, b) in buf.iter().enumerate().take(64) {
        for k in 0..8 {
            v = v.replace_bit(8 * i + k, (b >> k) & 1 != 0);
        }
    }
    v
}

fn write_entry(u: &mut Uut, slot: u32, m: &MrContext) {
    let mut buf = [0u8; 64];
    m.emit(&mut buf).unwrap();
    u.s_axis_ctxw_tdata.next = CtxWrite {
        table: 2u64.to_bits(),
        index: (slot as u64).to_bits(),
        data: bits512(&buf),
    };
    u.s_axis_ctxw_tvalid.next = true;
    step(u);
    u.s_axis_ctxw_tvalid.next = false;
}

struct Region {
    lkey: u32,
    rkey: u32,
    addr: u64,
    len: u64,
}

/// The expected verdict (the model's `on_data` order for these checks).
fn expect(mr: &ModelMr, m: &PktMeta, c: &RxCheck, max: u64) -> (u8, RxCheck) {
    let mut o = *c;
    let plen = m.payload_len.to_u64();
    let op = m.opcode.to_u64() as u8;
    let fail = |o: &mut RxCheck, code: NackCode, owes: bool| {
        o.nack = true;
        o.fail = true;
        o.code = (code as u64).to_bits();
        o.aux = m.msn;
        o.owes_wqe = owes;
        o.place = false;
        if code == NackCode::Access {
            drop::ACCESS
        } else {
            drop::INVALID
        }
    };
    if plen > max {
        return (fail(&mut o, NackCode::Invalid, false), o);
    }
    if c.nack {
        return (0, o);
    }
    let addr = m.addr.to_u64();
    let key = m.key.to_u64() as u32;
    if op == Opcode::Write as u8 || op == Opcode::WriteImm as u8 {
        if mr
            .check_remote(key, addr, plen, Access::REMOTE_WRITE)
            .is_err()
        {
            return (fail(&mut o, NackCode::Access, false), o);
        }
        o.place = true;
        o.place_addr = addr.to_bits();
    } else if op == Opcode::Send as u8 || op == Opcode::SendImm as u8 {
        if m.msg_len.to_u64() > c.rqe_len.to_u64() {
            return (fail(&mut o, NackCode::Invalid, true), o);
        }
        let a = c.rqe_addr.to_u64().wrapping_add(addr);
        let lkey = c.rqe_lkey.to_u64() as u32;
        if mr.check_local(lkey, a, plen, Access::LOCAL_WRITE).is_err() {
            return (fail(&mut o, NackCode::Access, false), o);
        }
        o.place = true;
        o.place_addr = a.to_bits();
    } else if op == Opcode::ReadReq as u8 {
        if plen != 0 {
            return (fail(&mut o, NackCode::Invalid, false), o);
        }
        if mr
            .check_remote(key, addr, m.msg_len.to_u64(), Access::REMOTE_READ)
            .is_err()
        {
            return (fail(&mut o, NackCode::Access, false), o);
        }
    } else if op == Opcode::ReadResp as u8 {
        // MR-SEM-34: the READ table found no READ for it (or it does not fit): INVALID; else the READ's
        // local buffer must be writable (MR-SEM-24 placement).
        if !c.rqe_ok {
            return (fail(&mut o, NackCode::Invalid, false), o);
        }
        let a = c.rqe_addr.to_u64().wrapping_add(addr);
        let lkey = c.rqe_lkey.to_u64() as u32;
        if mr.check_local(lkey, a, plen, Access::LOCAL_WRITE).is_err() {
            return (fail(&mut o, NackCode::Access, false), o);
        }
        o.place = true;
        o.place_addr = a.to_bits();
    } else if op == Opcode::FetchAdd as u8 || op >= 0x80 {
        return (fail(&mut o, NackCode::Unsupported, false), o);
    } else {
        return (fail(&mut o, NackCode::Invalid, false), o);
    }
    (0, o)
}

fn near(rng: &mut Rng, r: &Region) -> u64 {
    match rng.below(4) {
        0 => r.addr.wrapping_add(rng.below(r.len + 1)),
        1 => r.addr.wrapping_sub(rng.below(3)),
        2 => r.addr.wrapping_add(r.len).wrapping_sub(rng.below(200)),
        _ => rng.next(),
    }
}

#[test]
fn mr_sem_13_14_15_verdicts_match_model() {
    let seed = std::env::var("METAROCE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x1234_5678u64);
    println!("METAROCE_SEED={seed}");
    let mut rng = Rng(seed | 1);
    let mut u = Uut::new(8);
    u.connect_all();
    u.rst.next = true;
    step(&mut u);
    u.rst.next = false;
    let max = 4096u64;
    u.cfg_max_payload.next = max.to_bits();
    let mut model = ModelMr::new(64);
    let mut regions = Vec::new();
    let rights = [
        Access(3),
        Access(1),
        Access(4),
        Access(7),
        Access(5),
        Access(0),
    ];
    for i in 0..12u64 {
        let addr = if i == 11 {
            u64::MAX - 0x10000
        } else {
            0x10_0000 * (i + 1) + rng.below(4096)
        };
        let len = 1 + rng.below(0x8000);
        let acc = rights[(i % 6) as usize];
        let k = model.register(addr, len, acc).unwrap();
        let ctx = MrContext {
            valid: true,
            addr,
            length: len,
            lkey: k.lkey,
            rkey: k.rkey,
            access: MrAccess(acc.0),
        };
        write_entry(&mut u, k.lkey >> 8, &ctx);
        regions.push(Region {
            lkey: k.lkey,
            rkey: k.rkey,
            addr,
            len,
        });
    }
    // Deregister two regions (MR-SEM-7): the hardware entry becomes invalid, keys kept.
    for i in [2usize, 7] {
        model.deregister(regions[i].lkey).unwrap();
        let ctx = MrContext {
            valid: false,
            addr: 0,
            length: 0,
            lkey: regions[i].lkey,
            rkey: regions[i].rkey,
            access: MrAccess(0),
        };
        write_entry(&mut u, regions[i].lkey >> 8, &ctx);
    }
    let ops = [
        Opcode::Write,
        Opcode::WriteImm,
        Opcode::Send,
        Opcode::SendImm,
        Opcode::ReadReq,
        Opcode::ReadResp,
        Opcode::FetchAdd,
    ];
    let mut expected: VecDeque<(PktMeta, RxCheck)> = VecDeque::new();
    let mut pending: Option<(PktMeta, RxCheck)> = None;
    let (mut sent, mut got, mut fails, mut placed) = (0, 0, 0, 0);
    let total = 1500;
    let mut cycles = 0;
    while got < total {
        cycles += 1;
        assert!(cycles < 20 * total, "stalled");
        if pending.is_none() && sent < total && rng.chance(70) {
            let r = &regions[rng.below(regions.len() as u64) as usize];
            let o = &regions[rng.below(regions.len() as u64) as usize];
            let op = ops[rng.below(ops.len() as u64) as usize];
            let mut m = PktMeta {
                ptype: (PacketType::Data as u64).to_bits(),
                opcode: (op as u64).to_bits(),
                msn: (rng.next() & 0xFFFF_FFFF).to_bits(),
                ..Default::default()
            };
            let plen = match rng.below(10) {
                0 => 0,
                1 => max + 1 + rng.below(100),
                _ => rng.below(max + 1),
            };
            m.payload_len = plen.to_bits();
            m.msg_len = (plen + rng.below(9000)).to_bits();
            let mut c = RxCheck::default();
            match op {
                Opcode::Send | Opcode::SendImm => {
                    m.addr = rng.below(0x4000).to_bits();
                    c.rqe_ok = true;
                    c.rqe_addr = near(&mut rng, r).to_bits();
                    c.rqe_len = (rng.below(0x9000) as u64).to_bits();
                    c.rqe_lkey = (if rng.chance(90) { r.lkey } else { r.rkey } as u64).to_bits();
                    if rng.chance(10) {
                        c.nack = true;
                        c.code = (NackCode::Rnr as u64).to_bits();
                        c.aux = 10u64.to_bits();
                    }
                }
                Opcode::ReadResp => {
                    // As the READ table hands it over: the byte offset in the READ and its local buffer.
                    m.addr = rng.below(0x4000).to_bits();
                    c.rqe_ok = rng.chance(85);
                    c.rqe_addr = near(&mut rng, r).to_bits();
                    c.rqe_len = m.msg_len;
                    c.rqe_lkey = (if rng.chance(90) { r.lkey } else { r.rkey } as u64).to_bits();
                }
                _ => {
                    m.addr = near(&mut rng, r).to_bits();
                    let key = match rng.below(10) {
                        0 => o.lkey,
                        1 => r.rkey ^ 0x100,
                        _ => r.rkey,
                    };
                    m.key = (key as u64).to_bits();
                    if op == Opcode::ReadReq && rng.chance(70) {
                        m.payload_len = 0u64.to_bits();
                        m.msg_len = rng.below(0x9000).to_bits();
                    }
                }
            }
            if rng.chance(5) {
                m.drop = (drop::DUPLICATE as u64).to_bits();
            } else if rng.chance(3) {
                m.trimmed = true;
            }
            pending = Some((m, c));
        }
        if let Some((m, c)) = pending {
            u.s_axis_pkt_tdata.next = m;
            u.s_axis_pkt_tuser.next = c;
            u.s_axis_pkt_tvalid.next = true;
        } else {
            u.s_axis_pkt_tvalid.next = false;
        }
        u.m_axis_pkt_tready.next = rng.chance(60);
        assert!(simulate(&mut u, 500));
        if u.s_axis_pkt_tvalid.val() && u.s_axis_pkt_tready.val() {
            let (m, c) = pending.take().unwrap();
            let examined = m.drop.to_u64() == 0 && !m.trimmed;
            let (dcode, oc) = if examined {
                expect(&model, &m, &c, max)
            } else {
                (0, c)
            };
            let mut om = m;
            if dcode != 0 {
                om.drop = (dcode as u64).to_bits();
            }
            expected.push_back((om, oc));
            sent += 1;
        }
        if u.m_axis_pkt_tvalid.val() && u.m_axis_pkt_tready.val() {
            let (em, ec) = expected.pop_front().expect("output without input");
            let om = u.m_axis_pkt_tdata.val();
            let oc = u.m_axis_pkt_tuser.val();
            let brief = |m: &PktMeta, c: &RxCheck| {
                format!(
                    "op {} plen {} mlen {} addr {:x} key {:x} drop {} | nack {} fail {} code {} owes {} place {} at {:x} rqe {:x}+{} key {:x}",
                    m.opcode.to_u64(), m.payload_len.to_u64(), m.msg_len.to_u64(), m.addr.to_u64(),
                    m.key.to_u64(), m.drop.to_u64(), c.nack, c.fail, c.code.to_u64(), c.owes_wqe,
                    c.place, c.place_addr.to_u64(), c.rqe_addr.to_u64(), c.rqe_len.to_u64(),
                    c.rqe_lkey.to_u64()
                )
            };
            assert!(
                om == em && oc == ec,
                "packet {got}:\n got {}\nwant {}",
                brief(&om, &oc),
                brief(&em, &ec)
            );
            fails += ec.fail as u32;
            placed += ec.place as u32;
            got += 1;
        }
        step(&mut u);
    }
    println!("{got} packets: {fails} failed, {placed} placed");
    assert!(fails > 100 && placed > 100, "weak coverage");
}
