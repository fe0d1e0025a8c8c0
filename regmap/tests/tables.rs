//! Checks of the tables themselves: no overlapping fields, every field inside its entry or register, registers
//! inside their blocks, the default map consistent, the connection hot state within 64 bytes (MR-CONN-28).

use metaroce_regmap::block::{
    layout_of, layouts, BlockType, DEFAULT_MAP, DEFAULT_SPACE_BYTES, HEADER_BYTES,
};
use metaroce_regmap::context::conn;
use metaroce_regmap::field::{check_register, Field, Layout, TableError};
use metaroce_regmap::{all_layouts, counters, queues};

#[test]
fn every_layout_is_well_formed() {
    let mut n = 0;
    for l in all_layouts() {
        assert_eq!(l.check(), Ok(()), "layout {}", l.name);
        n += 1;
    }
    assert!(n >= 30, "expected every layout to be listed, got {n}");
}

#[test]
fn layout_check_catches_overlap_and_outside() {
    const OVERLAP: Layout = Layout {
        name: "t",
        bytes: 4,
        doc: "",
        fields: &[Field::new("a", 0, 0, 9, ""), Field::new("b", 1, 0, 8, "")],
    };
    assert_eq!(OVERLAP.check(), Err(TableError::Overlap("a", "b")));
    const OUTSIDE: Layout = Layout {
        name: "t",
        bytes: 4,
        doc: "",
        fields: &[Field::new("a", 3, 4, 5, "")],
    };
    assert_eq!(OUTSIDE.check(), Err(TableError::Outside("a")));
    const WIDE: Layout = Layout {
        name: "t",
        bytes: 16,
        doc: "",
        fields: &[Field::new("a", 0, 1, 65, "")],
    };
    assert_eq!(WIDE.check(), Err(TableError::BadWidth("a")));
}

#[test]
fn blocks_are_well_formed() {
    for b in layouts() {
        assert_eq!(layout_of(b.kind), b);
        let names: Vec<_> = b.regs.iter().map(|r| r.name).collect();
        assert_eq!(
            &names[..3],
            &["TYPE", "VERSION", "NEXT"],
            "block {}",
            b.kind.name()
        );
        for (i, r) in b.regs.iter().enumerate() {
            assert_eq!(check_register(r), Ok(()), "{}.{}", b.kind.name(), r.name);
            assert!(
                r.end() <= b.bytes,
                "{}.{} outside the block",
                b.kind.name(),
                r.name
            );
            for q in &b.regs[..i] {
                assert!(
                    r.offset >= q.end() || q.offset >= r.end(),
                    "{}: {} overlaps {}",
                    b.kind.name(),
                    r.name,
                    q.name
                );
                assert_ne!(r.name, q.name);
            }
            // A register's reset value has no reserved bit set.
            assert_eq!(
                r.reset & r.reserved_mask(),
                0,
                "{}.{}",
                b.kind.name(),
                r.name
            );
        }
    }
    for page in [queues::QP_PAGE, queues::CQ_PAGE] {
        for r in page {
            assert_eq!(check_register(r), Ok(()));
            assert!(r.end() <= queues::DEFAULT_DB_STRIDE);
        }
    }
}

#[test]
fn default_map_is_consistent() {
    let mut spans: Vec<(u32, u32)> = DEFAULT_MAP
        .iter()
        .map(|(k, base)| (*base, base + layout_of(*k).bytes))
        .collect();
    let q = queues::QueuesRepr::REFERENCE;
    assert_eq!(q.validate(DEFAULT_SPACE_BYTES), Ok(()));
    spans.push((q.qp_db_base, q.qp_db_base + q.qp_db_stride * q.qp_db_count));
    spans.push((q.cq_db_base, q.cq_db_base + q.cq_db_stride * q.cq_db_count));
    for (i, a) in spans.iter().enumerate() {
        assert!(a.1 <= DEFAULT_SPACE_BYTES && a.0 + HEADER_BYTES <= a.1);
        for b in &spans[..i] {
            assert!(a.0 >= b.1 || b.0 >= a.1, "{a:?} overlaps {b:?}");
        }
    }
    assert_eq!(DEFAULT_MAP[0], (BlockType::Id, 0));
    let mut kinds: Vec<_> = DEFAULT_MAP.iter().map(|(k, _)| *k as u32).collect();
    kinds.sort();
    kinds.dedup();
    assert_eq!(kinds.len(), BlockType::ALL.len());
}

#[test]
fn counters_fit_their_block() {
    let b = layout_of(BlockType::Counters);
    let value = b.reg("VALUE").expect("VALUE array");
    assert_eq!(value.count, 2 * counters::COUNT as u32);
    assert!(value.end() <= b.bytes);
    for (i, c) in counters::COUNTERS.iter().enumerate() {
        assert_eq!(c.id as usize, i);
        assert!(!c.doc.is_empty());
        assert_eq!(counters::CounterId::from_index(i as u16), Some(c.id));
    }
}

/// MR-CONN-28: the hot state is at most 64 bytes and holds every field of Table 7.6 with its width.
#[test]
fn mr_conn_28_hot_state_fits_64_bytes() {
    const { assert!(conn::LAYOUT.bytes <= 64) };
    let last_bit = conn::LAYOUT
        .fields
        .iter()
        .map(|f| f.end())
        .max()
        .unwrap_or(0);
    assert!(last_bit <= 64 * 8, "hot state uses bits up to {last_bit}");
    let table_7_6: [(&str, u8); 27] = [
        ("cid", 24),
        ("peer_cid", 24),
        ("state", 2),
        ("flags", 8),
        ("own_wlog_m8", 4),
        ("peer_wlog_m8", 4),
        ("ev_rr", 6),
        ("backoff", 5),
        ("retries", 3),
        ("rnr_retries", 3),
        ("ack_count", 7),
        ("snd_una", 32),
        ("snd_nxt", 32),
        ("rcv_nxt", 32),
        ("snd_msn", 32),
        ("rcv_msn", 32),
        ("snd_ssn", 16),
        ("rcv_ssn", 16),
        ("ack_psn", 32),
        ("ack_ts", 32),
        ("ack_ev", 14),
        ("ce_count", 16),
        ("srtt", 24),
        ("rttvar", 24),
        ("cwnd", 32),
        ("inflight", 32),
        ("next_tx", 24),
    ];
    assert_eq!(conn::LAYOUT.fields.len(), table_7_6.len());
    for (name, width) in table_7_6 {
        let f = conn::LAYOUT
            .field(name)
            .unwrap_or_else(|| panic!("missing {name}"));
        assert_eq!(f.width, width, "{name}");
    }
    assert_eq!(conn::LAYOUT.used_bits(), 512);
    // Every 32-bit field is an aligned word.
    for f in conn::LAYOUT.fields.iter().filter(|f| f.width == 32) {
        assert!(f.byte % 4 == 0 && f.bit == 0, "{}", f.name);
    }
}

#[test]
fn reset_values_match_reference_reprs() {
    use metaroce_regmap::caps::CapsRepr;
    let mut space = std::collections::HashMap::new();
    CapsRepr::REFERENCE
        .write(
            &mut |o: u32, v: u32| {
                space.insert(o, v);
            },
            0,
        )
        .expect("reference caps encode");
    for r in &layout_of(BlockType::Caps).regs[3..] {
        assert_eq!(
            space.get(&r.offset).copied(),
            Some(r.reset),
            "CAPS.{}",
            r.name
        );
    }
    let q = layout_of(BlockType::Queues);
    let qr = queues::QueuesRepr::REFERENCE;
    let expect = [
        ("QP_DB_BASE", qr.qp_db_base),
        ("QP_DB_STRIDE", qr.qp_db_stride),
        ("QP_DB_COUNT", qr.qp_db_count),
        ("CQ_DB_BASE", qr.cq_db_base),
        ("CQ_DB_STRIDE", qr.cq_db_stride),
        ("CQ_DB_COUNT", qr.cq_db_count),
    ];
    for (name, v) in expect {
        assert_eq!(q.reg(name).map(|r| r.reset), Some(v), "{name}");
    }
}

/// A set bit is reserved exactly when no field of the layout covers it (every bit of every layout).
#[test]
fn check_reserved_flags_exactly_the_uncovered_bits() {
    for l in metaroce_regmap::all_layouts() {
        let n = l.bytes as usize;
        for bit in 0..8 * n as u32 {
            let mut buf = vec![0u8; n];
            buf[(bit / 8) as usize] = 1 << (bit % 8);
            let covered = l.fields.iter().any(|f| bit >= f.lsb() && bit < f.end());
            let r = l.check_reserved(&buf);
            assert_eq!(r.is_ok(), covered, "{} bit {bit}: {r:?}", l.name);
        }
    }
}
