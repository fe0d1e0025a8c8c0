//! `metaroce-sim`: a deterministic, packet-level discrete-event simulator of AI fabrics whose NICs run the
//! reference model's [`Endpoint`](metaroce_proto::transport::Endpoint)s unchanged.
//!
//! - [`config`]: what to simulate (topology, transport, switches, faults);
//! - [`flow`]: flows and the [`flow::Workload`] trait that starts them;
//! - [`results`]: the raw results of one run, which [`metrics`] turns into figures.
#![deny(missing_docs)]
#![deny(unsafe_code)]

pub mod capture;
pub mod config;
pub mod cosim;
pub mod eval;
pub mod event;
pub mod fabric;
pub mod flow;
pub mod link;
pub mod memory;
pub mod metrics;
pub mod nic;
pub mod output;
pub mod packet;
pub mod results;
pub mod routing;
pub mod scenario;
pub mod sweep;
pub mod switch;
pub mod topology;
pub mod validate;
pub mod workload;
