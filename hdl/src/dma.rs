//! The generic DMA interface between the core and a platform shell.
//!
//! A block that reads host memory issues a [`DmaDesc`] on `m_axis_dma_rd_desc_*` and receives the bytes, in
//! order and packed from byte 0 of the first beat, on `s_axis_dma_rd_*` (`tuser` carries the descriptor's tag,
//! `tlast` ends each descriptor's data). A block that writes host memory issues a [`DmaDesc`] on
//! `m_axis_dma_wr_desc_*` followed by exactly `len` bytes, packed from byte 0, on `m_axis_dma_wr_*`; the data of
//! the writes comes in the order of their descriptors, and a descriptor may come before the data of the writes
//! before it has ended (never after its own data has started). The shell reports each finished write's tag on
//! `s_axis_dma_wr_done_*`, in descriptor order. Tags are the issuing block's own.
//! A PCIe DMA engine or the simulated host memory implements the other side; the core does not change.

// `LogicStruct` generates public accessor methods (`get_my_width_*`, `get_my_offset_*`) without docs; the
// records and their fields are documented here.
#![allow(missing_docs)]
use rust_hdl::prelude::*;

/// A read or write request.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct DmaDesc {
    /// Host (IO virtual) address.
    pub addr: Bits<64>,
    /// Length in bytes.
    pub len: Bits<32>,
    /// The requester's tag, returned with the data or the write completion.
    pub tag: Bits<16>,
}
