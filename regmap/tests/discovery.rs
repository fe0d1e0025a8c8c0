//! The discovery walk over a fake register space: the reference chain, a loop in `NEXT`, a pointer out of
//! range or misaligned, a too-long chain, and version checks.

use metaroce_regmap::block::{
    layout_of, walk, write_chain, BlockType, WalkError, DEFAULT_MAP, DEFAULT_SPACE_BYTES,
    MAX_BLOCKS, NEXT_OFFSET,
};
use metaroce_regmap::caps::CapsRepr;
use metaroce_regmap::id::IdRepr;
use metaroce_regmap::queues::{Doorbell, QueuesRepr};

/// A register space backed by words; counts reads outside it (there must be none).
struct Fake {
    words: Vec<u32>,
    stray_reads: u32,
}

impl Fake {
    fn new(bytes: u32) -> Fake {
        Fake {
            words: vec![0; bytes as usize / 4],
            stray_reads: 0,
        }
    }
    fn reference() -> Fake {
        let mut f = Fake::new(DEFAULT_SPACE_BYTES);
        write_chain(&DEFAULT_MAP, &mut |o, v| f.set(o, v));
        let id = IdRepr {
            board: 7,
            variant: 1,
            hw_version: (1, 2, 3),
            spec_version: (0, 1),
            git_hash: 0xDEAD_BEEF,
            build_time: 1_700_000_000,
        };
        id.write(&mut |o, v| f.set(o, v), 0).unwrap();
        CapsRepr::REFERENCE
            .write(&mut |o, v| f.set(o, v), 0x100)
            .unwrap();
        let q = QueuesRepr::REFERENCE;
        let qb = 0x800;
        for (off, v) in [
            (0x0C, q.qp_db_base),
            (0x10, q.qp_db_stride),
            (0x14, q.qp_db_count),
            (0x18, q.cq_db_base),
            (0x1C, q.cq_db_stride),
            (0x20, q.cq_db_count),
        ] {
            f.set(qb + off, v);
        }
        f
    }
    fn set(&mut self, off: u32, v: u32) {
        self.words[off as usize / 4] = v;
    }
    fn read(&mut self, off: u32) -> u32 {
        match self.words.get(off as usize / 4) {
            Some(v) => *v,
            None => {
                self.stray_reads += 1;
                0
            }
        }
    }
    fn space(&self) -> u32 {
        self.words.len() as u32 * 4
    }
}

#[test]
fn reference_chain_is_discovered() {
    let mut f = Fake::reference();
    let space = f.space();
    let d = walk(&mut |o| f.read(o), space).expect("walk");
    assert_eq!(d.blocks().len(), DEFAULT_MAP.len());
    for ((kind, base), b) in DEFAULT_MAP.iter().zip(d.blocks()) {
        assert_eq!(b.kind(), Some(*kind));
        assert_eq!(b.base, *base);
        assert_eq!(b.version, layout_of(*kind).version);
        assert_eq!(d.require_current(*kind), Ok(*b));
    }
    let id = IdRepr::read(&mut |o| f.read(o), 0).expect("id");
    assert_eq!(id.git_hash, 0xDEAD_BEEF);
    assert_eq!(id.hw_version, (1, 2, 3));
    let caps_at = d.require_current(BlockType::Caps).unwrap().base;
    let caps = CapsRepr::read(&mut |o| f.read(o), caps_at).expect("caps");
    assert_eq!(caps, CapsRepr::REFERENCE);
    assert!(caps.entries_match());
    let q_at = d.require_current(BlockType::Queues).unwrap().base;
    let q = QueuesRepr::read(&mut |o| f.read(o), q_at, space).expect("queues");
    assert_eq!(q, QueuesRepr::REFERENCE);
    let db = Doorbell::CqArm {
        cqn: 5,
        ci: 0x1234,
        solicited: true,
    };
    let (off, v) = q.encode(db).unwrap();
    assert_eq!(q.decode(off, v), Ok(Some(db)));
    assert_eq!(f.stray_reads, 0);
}

#[test]
fn blocks_can_be_anywhere_and_unknown_types_are_kept() {
    let mut f = Fake::new(0x2000);
    write_chain(
        &[
            (BlockType::Id, 0),
            (BlockType::Mailbox, 0x1800),
            (BlockType::Caps, 0x400),
        ],
        &mut |o, v| f.set(o, v),
    );
    // An unknown block type between caps and the end.
    f.set(0x400 + NEXT_OFFSET, 0x600);
    f.set(0x600, 0x1234_5678);
    f.set(0x604, 0x0001_0000);
    let space = f.space();
    let d = walk(&mut |o| f.read(o), space).unwrap();
    let bases: Vec<_> = d.blocks().iter().map(|b| b.base).collect();
    assert_eq!(bases, [0, 0x1800, 0x400, 0x600]);
    assert_eq!(d.blocks()[3].kind(), None);
    assert_eq!(d.find(BlockType::Caps).map(|b| b.base), Some(0x400));
    assert_eq!(
        d.require_current(BlockType::Irq),
        Err(WalkError::Missing(BlockType::Irq))
    );
}

#[test]
fn loop_in_next_is_reported() {
    let mut f = Fake::reference();
    // The queues block (last) points back to caps.
    f.set(0x800 + NEXT_OFFSET, 0x100);
    let space = f.space();
    assert_eq!(
        walk(&mut |o| f.read(o), space),
        Err(WalkError::Loop {
            from: 0x800,
            at: 0x100
        })
    );
    // A block pointing at itself.
    f.set(0x100 + NEXT_OFFSET, 0x100);
    assert_eq!(
        walk(&mut |o| f.read(o), space),
        Err(WalkError::Loop {
            from: 0x100,
            at: 0x100
        })
    );
    assert_eq!(f.stray_reads, 0);
}

#[test]
fn out_of_range_and_misaligned_next_are_reported() {
    let mut f = Fake::reference();
    let space = f.space();
    f.set(0x200 + NEXT_OFFSET, space);
    let e = walk(&mut |o| f.read(o), space).unwrap_err();
    assert_eq!(
        e,
        WalkError::OutOfRange {
            from: 0x200,
            at: space,
            space
        }
    );
    assert!(e.to_string().contains("outside"), "{e}");
    // A header that starts inside but does not fit.
    f.set(0x200 + NEXT_OFFSET, space - 8);
    assert!(matches!(
        walk(&mut |o| f.read(o), space),
        Err(WalkError::OutOfRange { .. })
    ));
    // Near u32::MAX: no overflow.
    f.set(0x200 + NEXT_OFFSET, u32::MAX - 3);
    assert!(matches!(
        walk(&mut |o| f.read(o), space),
        Err(WalkError::OutOfRange { .. })
    ));
    f.set(0x200 + NEXT_OFFSET, 0x302);
    assert_eq!(
        walk(&mut |o| f.read(o), space),
        Err(WalkError::Misaligned {
            from: 0x200,
            at: 0x302
        })
    );
    assert_eq!(f.stray_reads, 0);
    // A space too small for even the first header.
    let mut tiny = Fake::new(8);
    assert!(matches!(
        walk(&mut |o| tiny.read(o), 8),
        Err(WalkError::OutOfRange { from: 0, at: 0, .. })
    ));
}

#[test]
fn chain_must_start_with_id_and_is_bounded() {
    let mut f = Fake::new(0x4000);
    let space = f.space();
    f.set(0, 0xFFFF_FFFF);
    assert_eq!(
        walk(&mut |o| f.read(o), space),
        Err(WalkError::NotAnIdBlock {
            type_id: 0xFFFF_FFFF
        })
    );
    let chain: Vec<_> = (0..=MAX_BLOCKS as u32)
        .map(|i| {
            (
                if i == 0 {
                    BlockType::Id
                } else {
                    BlockType::Counters
                },
                i * 0x100,
            )
        })
        .collect();
    write_chain(&chain, &mut |o, v| f.set(o, v));
    assert_eq!(
        walk(&mut |o| f.read(o), space),
        Err(WalkError::TooManyBlocks)
    );
}

#[test]
fn version_compatibility() {
    let mut f = Fake::reference();
    let space = f.space();
    f.set(0x200 + 4, 0x0002_0000); // irq block major 2
    f.set(0x300 + 4, 0x0001_0003); // mailbox 1.3
    let d = walk(&mut |o| f.read(o), space).unwrap();
    assert!(matches!(
        d.require_current(BlockType::Irq),
        Err(WalkError::Version { .. })
    ));
    assert!(d.require_current(BlockType::Mailbox).is_ok());
    assert!(d.require(BlockType::Mailbox, 0x0001_0004).is_err());
}

#[test]
fn id_block_rejects_bad_magic() {
    let mut f = Fake::reference();
    f.set(0x0C, 0);
    assert!(IdRepr::read(&mut |o| f.read(o), 0).is_err());
}
