//! `incast`: N senders to one receiver at once.

use crate::config::HostId;
use crate::flow::{Actions, FlowClass, FlowRecord, FlowSpec, Workload};

/// Hosts `receiver+1 .. receiver+senders` (modulo the host count) each send `bytes` to `receiver` at time 0;
/// done when every flow has completed.
pub struct Incast {
    hosts: u32,
    senders: u32,
    bytes: u64,
    receiver: HostId,
    class: FlowClass,
    left: u32,
}

impl Incast {
    /// An incast of `senders` (clamped to `hosts - 1`) flows of `bytes` to `receiver` (clamped to a host).
    pub fn new(hosts: u32, senders: u32, bytes: u64, receiver: HostId, class: FlowClass) -> Incast {
        let senders = senders.min(hosts.saturating_sub(1));
        Incast {
            hosts,
            senders,
            bytes: bytes.max(1),
            receiver: receiver.min(hosts.saturating_sub(1)),
            class,
            left: senders,
        }
    }

    /// The senders, in order.
    pub fn senders(&self) -> Vec<HostId> {
        (1..=self.senders)
            .map(|i| (self.receiver + i) % self.hosts.max(1))
            .collect()
    }
}

impl Workload for Incast {
    fn name(&self) -> String {
        format!(
            "incast {}:1 x {} B to h{}",
            self.senders, self.bytes, self.receiver
        )
    }

    fn start(&mut self, act: &mut Actions) {
        for src in self.senders() {
            act.start_flow(
                0,
                FlowSpec {
                    src,
                    dst: self.receiver,
                    bytes: self.bytes,
                    class: self.class,
                    tag: 0,
                },
            );
        }
    }

    fn on_flow_done(&mut self, _now_ns: u64, _flow: &FlowRecord, _act: &mut Actions) {
        self.left = self.left.saturating_sub(1);
    }

    fn is_done(&self) -> bool {
        self.left == 0
    }
}
