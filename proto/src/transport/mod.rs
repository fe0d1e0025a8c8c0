//! The transport: a sans-I/O state machine (MR-REL-*, MR-PATH-*, MR-CC-*, MR-CONN-*, MR-SEM-*).
//!
//! An [`Endpoint`] is one NIC port. The application drives it with verbs (`register_mr`, `create_qp`,
//! `connect_qp`, `post_send`, `post_recv`), feeds it received frames with `handle_frame(now, ..)` and timer
//! expiries with `handle_timeout(now)`, and pulls frames to send (`poll_transmit` / `poll_transmit_plan`),
//! the next deadline (`poll_timeout`) and events (`poll_event`). The model never reads a clock.
//!
//! Each QP runs the MetaRoCE engine ([`metaroce`]) or the RoCEv2 baseline ([`rocev2`]) as configured by
//! [`EndpointConfig::mode`].

pub mod bitmap;
pub mod cc;
pub mod config;
pub mod endpoint;
pub mod loss;
pub mod memory;
pub mod metaroce;
pub mod mr;
pub mod path;
pub mod plan;
pub mod qp;
pub mod rocev2;
pub mod rtt;
pub mod seq;
pub mod stats;
pub mod verbs;

/// Time in the model: nanoseconds since an arbitrary origin.
pub type Instant = u64;

pub use config::{CcKind, ConfigError, EndpointConfig, Mode};
pub use endpoint::Endpoint;
pub use memory::{Memory, SparseMemory};
pub use plan::{PlanHeaders, TransmitPlan};
pub use qp::QpState;
pub use stats::{Drops, Stats};
pub use verbs::{
    Access, Completion, Event, MrKeys, Qpn, RecvWr, RemoteQp, SendOp, SendWr, Sge, VerbsError,
    WcOpcode, WcStatus,
};
