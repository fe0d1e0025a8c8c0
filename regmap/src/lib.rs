//! The MetaRoCE NIC's hardware/software interface, defined once.
//!
//! Every register, doorbell, descriptor, context entry and mailbox command of the device is described here as a
//! field table ([`field::Layout`], [`field::Register`]) with typed encoders and decoders that read and write
//! through those tables. The HDL, the host driver, the firmware, the simulator and the documentation all take
//! their layouts from this crate (generate, don't copy); `docs/hardware-interface.md` is rendered from the tables
//! by [`doc::render`], and [`gen`] renders the same tables as a C header and a SystemVerilog package.
//!
//! * Register space: self-describing blocks (type, version, next) found by a discovery walk ([`block::walk`]):
//!   [`id`], [`caps`], [`irq`], [`mailbox`], [`counters`], [`queues`] (doorbells, ring semantics),
//!   [`endpoint`] (addresses and transport parameters), [`control`] (the control processor: run, boot status,
//!   firmware image).
//! * Host-memory entries: [`descriptor::sqe`], [`descriptor::rqe`], [`descriptor::cqe`].
//! * Device context entries: [`context::conn`] (hot state, ≤ 64 bytes, MR-CONN-28), [`context::qp`],
//!   [`context::mr`].
//! * Firmware commands: [`command`] (formats, status codes, validation).
//! * The firmware's side: its address space ([`fwbus`]) and the context-programming port ([`ctxport`]).
//!
//! Everything is little-endian (the PCIe host's and the 32-bit AXI-Lite register bus's order). Decoders never
//! panic: a bad value is an [`field::Error`] (or a [`command::CmdError`] with a status code for commands).

#![no_std]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod block;
pub mod caps;
pub mod command;
pub mod context;
pub mod control;
pub mod counters;
pub mod ctxport;
pub mod descriptor;
pub mod doc;
pub mod endpoint;
pub mod field;
pub mod fwbus;
pub mod gen;
pub mod id;
pub mod irq;
pub mod mailbox;
pub mod pktrec;
pub mod queues;

pub use field::{Error, Field, Layout, Register};

/// The descriptor and context entry layouts.
pub fn entry_layouts() -> [&'static Layout; 7] {
    [
        &descriptor::sqe::LAYOUT,
        &descriptor::rqe::LAYOUT,
        &descriptor::cqe::LAYOUT,
        &context::conn::LAYOUT,
        &context::mr::LAYOUT,
        &context::qp::LAYOUT,
        &pktrec::LAYOUT,
    ]
}

/// Every entry layout (descriptors, contexts, doorbell words, mailbox requests and responses).
pub fn all_layouts() -> impl Iterator<Item = &'static Layout> {
    entry_layouts()
        .into_iter()
        .chain(queues::DOORBELL_LAYOUTS.iter())
        .chain(command::REQUESTS.iter())
        .chain(command::RESPONSES.iter())
}
