//! Work queue and completion queue entries, as the host writes (SQE, RQE) and the device writes (CQE) them in
//! host memory. Ring semantics: [`crate::queues`].

pub mod cqe;
pub mod rqe;
pub mod sqe;
