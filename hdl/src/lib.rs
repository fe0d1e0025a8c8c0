//! The MetaRoCE NIC transport pipelines, written in rust-hdl, generating synthesizable Verilog.
//!
//! The core (`metaroce_core`, [`top::core`]) joins the pipelines, each a set of blocks in a file of its own:
//!
//! * [`rx`]: the receive path, from the MAC-side frame stream to payload writes into host memory, ACK and NACK
//!   requests and completions;
//! * [`tx`]: the transmit path, from doorbells and work requests to MAC-side frames;
//! * [`rel`]: reliability (ACK, SACK and NACK processing over the per-PSN sender state, loss detection, the
//!   retransmission-timer wheel, the EV set and the sender engine that joins them);
//! * [`cc`]: congestion control (NSCC in integer arithmetic, bit-exact with `metaroce-proto`) and the RTT
//!   estimator;
//! * [`ctx`]: the context tables (connections, memory regions) with the register-bus programming port;
//! * [`common`]: building blocks shared by the pipelines (RAMs, the parallel CRC, bit scans, the netlist
//!   builder of the parser and frame builder);
//! * [`top`]: the core top `metaroce_core`, the register file, the AXI-Lite bridge, the DMA multiplexers, the
//!   time base and the endpoint configuration.
//!
//! Records passed between blocks ([`records`]) are packed `LogicStruct`s; the DMA interface ([`dma`]) is a
//! generic descriptor-plus-stream pair that a platform shell implements. Every block is listed in [`blocks`],
//! from which `cargo xtask verilog` writes one Verilog file per block and one for the core, with module names
//! derived from the block names ([`gen`]).
//!
//! Datapath width is a const parameter of the blocks that carry frames (`DW` bits, `KW = DW / 8` keep bits);
//! [`DataWidth`] selects 512 (default) or 1024.

#![deny(missing_docs)]

pub mod blocks;
pub mod cc;
pub mod common;
pub mod cpu;
pub mod ctx;
pub mod dma;
pub mod gen;
pub mod records;
pub mod rel;
pub mod rx;
pub mod top;
pub mod tx;

/// Datapath width of the frame-carrying blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DataWidth {
    /// 512 bits (64 bytes) per cycle: 165 Gb/s at 322 MHz.
    #[default]
    W512,
    /// 1024 bits (128 bytes) per cycle: 409 Gb/s at 400 MHz.
    W1024,
}

impl DataWidth {
    /// Width in bits.
    pub const fn bits(self) -> usize {
        match self {
            DataWidth::W512 => 512,
            DataWidth::W1024 => 1024,
        }
    }

    /// Parses "512" or "1024".
    pub fn parse(s: &str) -> Option<DataWidth> {
        match s {
            "512" => Some(DataWidth::W512),
            "1024" => Some(DataWidth::W1024),
            _ => None,
        }
    }
}

/// Build-time configuration of the core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoreConfig {
    /// Datapath width.
    pub width: DataWidth,
    /// log2 of the connection-table entries (14: 16K connections).
    pub conn_bits: u32,
    /// log2 of the sender's window slots: connections that may have PSNs outstanding at once, each with 256
    /// per-PSN records on chip (13: 8K of the 16K connections; at most `conn_bits`).
    pub send_slot_bits: u32,
    /// log2 of the memory-region-table entries.
    pub mr_bits: u32,
    /// log2 of the queue-pair-table entries.
    pub qp_bits: u32,
}

impl Default for CoreConfig {
    fn default() -> Self {
        CoreConfig {
            width: DataWidth::W512,
            conn_bits: 14,
            send_slot_bits: 13,
            mr_bits: 12,
            qp_bits: 12,
        }
    }
}
