//! MetaRoCE v0.1 reference model.
//!
//! * [`wire`]: typed views and high-level representations of every header MetaRoCE and its RoCEv2 baseline
//!   put on the wire, with the integrity CRC. The field-offset tables are public: the HDL, the dissector and the
//!   documentation take their offsets from them.
//! * [`transport`]: the transport as a sans-I/O state machine. Inputs are `handle_*` calls carrying the current
//!   time; outputs are pulled with `poll_transmit`, `poll_timeout` and `poll_event`.
//!
//! The crate is `no_std` + `alloc` so that firmware and simulators embed the same code. The normative text is
//! `docs/spec/metaroce-v0.1.md`; clause ids such as `MR-REL-4` in comments point into it.
#![no_std]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod transport;
pub mod wire;

#[cfg(feature = "harness")]
pub mod harness;

#[cfg(feature = "std")]
pub mod pcap;
