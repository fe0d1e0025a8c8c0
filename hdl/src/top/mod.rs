//! The core top (`metaroce_core`) and the pieces only it uses: the AXI-Lite bridge, the register file and the
//! DMA multiplexers.

pub mod axil;
pub mod clock;
pub mod core;
pub mod counter_events;
pub mod dma_mux;
pub mod endpoint_cfg;
pub mod open_fanout;
pub mod peer_order;
pub mod regfile;

use crate::blocks::BlockSpec;

/// The blocks of the top level.
pub fn blocks() -> Vec<BlockSpec> {
    vec![
        BlockSpec {
            name: "metaroce_core",
            area: "top",
            description: "the NIC core: every pipeline behind the register bus, the DMA interface and the MAC streams",
            verilog: core::verilog,
        },
        BlockSpec {
            name: "metaroce_top_time_base",
            area: "top",
            description: "nanosecond time base (fractional clock period)",
            verilog: |_cfg| crate::gen::verilog("metaroce_top_time_base", clock::TimeBase::default()),
        },
        BlockSpec {
            name: "metaroce_top_axil_bridge",
            area: "top",
            description: "AXI4-Lite slave to the internal register bus",
            verilog: |_cfg| crate::gen::verilog("metaroce_top_axil_bridge", axil::AxilBridge::default()),
        },
        BlockSpec {
            name: "metaroce_top_regfile",
            area: "top",
            description: "register blocks of metaroce-regmap: ID, capabilities, interrupts, mailbox, counters",
            verilog: |cfg| crate::gen::verilog("metaroce_top_regfile", regfile::RegFile::new(cfg)),
        },
        BlockSpec {
            name: "metaroce_top_endpoint_cfg",
            area: "top",
            description: "endpoint register block decoded into the pipelines' configuration; NSCC bdp",
            verilog: |_cfg| crate::gen::verilog("metaroce_top_endpoint_cfg", endpoint_cfg::EndpointCfg::default()),
        },
        BlockSpec {
            name: "metaroce_top_counter_events",
            area: "top",
            description: "core events to counter increments, lanes from regmap's counter table",
            verilog: |cfg| match cfg.width {
                crate::DataWidth::W512 => crate::gen::verilog("metaroce_top_counter_events", counter_events::CounterEvents::<64>::default()),
                crate::DataWidth::W1024 => crate::gen::verilog("metaroce_top_counter_events", counter_events::CounterEvents::<128>::default()),
            },
        },
        BlockSpec {
            name: "metaroce_top_open_fanout",
            area: "top",
            description: "ConnOpen broadcast to the five per-connection state holders (registered: a valid per holder)",
            verilog: |_cfg| crate::gen::verilog("metaroce_top_open_fanout", open_fanout::OpenFanout::default()),
        },
        BlockSpec {
            name: "metaroce_top_peer_order",
            area: "top",
            description: "transmit headers' peer addresses from QP-context byte order to PktMeta's",
            verilog: |_cfg| crate::gen::verilog("metaroce_top_peer_order", peer_order::PeerOrder::default()),
        },
        BlockSpec {
            name: "metaroce_top_dma_read_mux",
            area: "top",
            description: "two-to-one DMA read multiplexer (order-routed answers)",
            verilog: |cfg| match cfg.width {
                crate::DataWidth::W512 => crate::gen::verilog("metaroce_top_dma_read_mux", dma_mux::DmaReadMux::<512, 64>::default()),
                crate::DataWidth::W1024 => crate::gen::verilog("metaroce_top_dma_read_mux", dma_mux::DmaReadMux::<1024, 128>::default()),
            },
        },
        BlockSpec {
            name: "metaroce_top_dma_write_mux",
            area: "top",
            description: "two-to-one DMA write multiplexer (data in descriptor order, one descriptor ahead of the data)",
            verilog: |cfg| match cfg.width {
                crate::DataWidth::W512 => crate::gen::verilog("metaroce_top_dma_write_mux", dma_mux::DmaWriteMux::<512, 64>::default()),
                crate::DataWidth::W1024 => crate::gen::verilog("metaroce_top_dma_write_mux", dma_mux::DmaWriteMux::<1024, 128>::default()),
            },
        },
    ]
}
