//! Records of the receive pipeline's outputs to other pipelines.

// `LogicStruct` generates public accessor methods without docs; the records and their fields are documented.
#![allow(missing_docs)]

use crate::records::ConnIdx;
use rust_hdl::prelude::*;

/// A READ_REQ accepted by the responder, to be answered with READ_RESP packets by the transmit path.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct ReadReq {
    /// Connection.
    pub conn: ConnIdx,
    /// MSN of the READ (echoed in the responses' `key` field as the answered MSN).
    pub msn: Bits<32>,
    /// Host address of the data to read (local memory, checked against the memory region).
    pub local_addr: Bits<64>,
    /// Requester's placement address (the responses' `addr`).
    pub remote_addr: Bits<64>,
    /// Length in bytes.
    pub len: Bits<32>,
}
