//! Flows and workloads. A flow is `bytes` from one host to another, moved as RDMA WRITE messages on a QP the
//! simulator keeps per (source, destination, class); a [`Workload`] starts flows and reacts to their completion,
//! which is how dependent steps (ring all-reduce) are expressed.

use crate::config::HostId;

/// Index of a flow in [`crate::results::RunResults::flows`] (flows are numbered in the order they start).
pub type FlowId = u32;

/// What a flow is for; each class has its own QPs, so classes do not queue behind each other on a QP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FlowClass {
    /// Part of the measured collective.
    Collective,
    /// Background load (not part of the metric; abandoned when the workload is done).
    Background,
    /// Latency-sensitive messages (inference), measured by their completion times.
    Latency,
}

/// One flow to start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowSpec {
    /// Sender.
    pub src: HostId,
    /// Receiver.
    pub dst: HostId,
    /// Bytes to move (>= 1).
    pub bytes: u64,
    /// Class.
    pub class: FlowClass,
    /// Workload-defined tag (e.g. the collective step), reported back with the flow.
    pub tag: u32,
}

/// What a workload asks the simulator to do; collected during a callback and applied after it.
#[derive(Debug, Default)]
pub struct Actions {
    /// Flows to start: (start time ns, flow). A time in the past means now.
    pub flows: Vec<(u64, FlowSpec)>,
    /// Timers to set: (time ns, token); the workload's [`Workload::on_timer`] gets the token back.
    pub timers: Vec<(u64, u64)>,
}

impl Actions {
    /// Starts `spec` at `at_ns`.
    pub fn start_flow(&mut self, at_ns: u64, spec: FlowSpec) {
        self.flows.push((at_ns, spec));
    }

    /// Calls back [`Workload::on_timer`] with `token` at `at_ns`.
    pub fn set_timer(&mut self, at_ns: u64, token: u64) {
        self.timers.push((at_ns, token));
    }
}

/// A flow that has started, and when it finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowRecord {
    /// Its id.
    pub id: FlowId,
    /// What it was.
    pub spec: FlowSpec,
    /// When it was posted, ns.
    pub start_ns: u64,
    /// When its last message completed at the sender (acknowledged), ns; `None` if it never did.
    pub end_ns: Option<u64>,
}

impl FlowRecord {
    /// Completion time, ns.
    pub fn fct_ns(&self) -> Option<u64> {
        self.end_ns.map(|e| e.saturating_sub(self.start_ns))
    }
}

/// Traffic: starts flows and reacts to completions. Implementations must be deterministic given their seed.
pub trait Workload {
    /// A short name for reports.
    fn name(&self) -> String;
    /// Called once at time 0.
    fn start(&mut self, act: &mut Actions);
    /// Called when a flow completes.
    fn on_flow_done(&mut self, now_ns: u64, flow: &FlowRecord, act: &mut Actions);
    /// Called when a timer set through [`Actions::set_timer`] fires.
    fn on_timer(&mut self, _now_ns: u64, _token: u64, _act: &mut Actions) {}
    /// True once the measured part is over; the run then ends (background flows are abandoned).
    fn is_done(&self) -> bool;
}
