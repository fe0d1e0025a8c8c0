//! The whole `metaroce_core` in Verilator: the register file behind the AXI-Lite bridge as the driver finds it
//! (discovery walk and capabilities through metaroce-regmap's own readers), a read nobody answers, and an
//! idle core's streams.

use metaroce_hdl::top::regfile::caps_of;
use metaroce_regmap::block::{walk, BlockType, DEFAULT_MAP, DEFAULT_SPACE_BYTES};
use metaroce_regmap::caps::CapsRepr;
use metaroce_regmap::id::IdRepr;
use metaroce_sim::cosim::core::{core_model, cosim_config, BenchTiming, CoreBench};

fn base(kind: BlockType) -> u32 {
    DEFAULT_MAP
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|b| b.1)
        .expect("block in the default map")
}

#[test]
fn discovery_walk_and_capabilities_over_axi_lite() {
    let cfg = cosim_config();
    let kind = core_model(&cfg, false).unwrap_or_else(|e| panic!("{e}"));
    let mut b =
        CoreBench::new(&kind, &cfg, BenchTiming::default(), 1).unwrap_or_else(|e| panic!("{e}"));
    let gh = kind.port("git_hash").expect("port");
    b.m.set(gh, 0x1234_abcd);
    let found = walk(
        &mut |off| b.read(off).unwrap_or_else(|e| panic!("read {off:#x}: {e}")),
        DEFAULT_SPACE_BYTES,
    )
    .expect("walk");
    for (kind, at) in DEFAULT_MAP {
        let info = found.require_current(kind).expect("block present");
        assert_eq!(info.base, at, "{kind:?}");
    }
    let caps =
        CapsRepr::read(&mut |off| b.read(off).expect("read"), base(BlockType::Caps)).expect("caps");
    assert_eq!(caps, caps_of(&cfg));
    assert_eq!(caps.max_conns, 1 << cfg.conn_bits);
    let id = IdRepr::read(&mut |off| b.read(off).expect("read"), base(BlockType::Id)).expect("id");
    assert_eq!(id.git_hash, 0x1234_abcd);
    // A read of an address nobody decodes ends in the bridge's timeout: SLVERR and all ones, not a hang.
    let d = b.read_raw(0x6_0000).expect("answered");
    assert_eq!((d.resp, d.data), (2, u32::MAX));
    // Nothing was sent or read while idle.
    assert_eq!(b.tx.beats, 0);
    assert_eq!(b.dma.stats.reads, 0);
}
