//! Context entries the device keeps per connection, per QP and per memory region (on-chip, backed by host
//! memory).

pub mod conn;
pub mod mr;
pub mod qp;
