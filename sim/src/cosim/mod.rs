//! Verilator co-simulation of the generated RTL.
//!
//! - [`build`]: verilate generated Verilog and compile it, with its [`shim`], into a cached shared library;
//! - [`model`]: a loaded model behind a safe, port-by-name API ([`model::Model`]), waveforms on request;
//! - [`bus`]: cycle-level testbench agents: the AXI-Lite register master, stream sources and sinks with random
//!   idle and back-pressure, and the stream monitors that fail a run on any handshake violation;
//! - [`host_mem`]: host memory serving the core's DMA interface with latency and back-pressure;
//! - [`module`]: the transceiver module on the core's management bus (a CMIS two-wire target);
//! - [`core`]: the `metaroce_core` model at its co-simulation size and a bench of one core;
//! - [`firmware`]: the firmware image loaded into a core's control processor, booted, and commanded through the
//!   mailbox;
//! - [`host`]: the host side of a core (endpoint, contexts, rings, doorbells, completions), as the driver and
//!   firmware do it;
//! - [`pair`]: two cores joined by the harness's link model;
//! - [`interop`]: one core and one reference-model endpoint joined by the link model, in either role, with the
//!   control processor's connection set-up;
//! - [`model_twin`]: the demonstration's scenario on two reference-model endpoints, for the goodput comparison;
//! - [`demo`]: the two-NIC demonstration behind `metaroce demo`.
//!
//! The only unsafe code is in `ffi` (loading the library and calling its C ABI).

pub mod build;
pub mod bus;
pub mod core;
pub mod demo;
mod ffi;
pub mod firmware;
pub mod host;
pub mod host_mem;
pub mod interop;
pub mod model;
pub mod model_twin;
pub mod module;
pub mod pair;
pub mod shim;

pub use build::{BuildError, ModelSource};
pub use model::{Model, ModelError, ModelKind, PortId};
