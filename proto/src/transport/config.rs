//! Endpoint configuration. Every resource limit is explicit and validated (MR-CONN-*, MR-REL-*).

use core::net::{IpAddr, Ipv4Addr};

/// Which transport an endpoint speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// MetaRoCE v0.1.
    MetaRoce,
    /// The RoCEv2 baseline (go-back-N, DCQCN).
    RoceV2,
}

/// Congestion-control algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CcKind {
    /// NSCC (ECN x delay quadrants; MR-CC-5, section 6.2).
    Nscc,
    /// DCQCN (CNP-driven rate control; MR-CC-27).
    Dcqcn,
    /// No congestion control: window limited only by the receive window.
    None,
}

/// A configuration parameter that is out of range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfigError {
    /// The offending field.
    pub field: &'static str,
}

/// Configuration of an [`Endpoint`](super::Endpoint).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointConfig {
    /// Transport.
    pub mode: Mode,
    /// Own MAC address.
    pub mac: [u8; 6],
    /// Own IP address (v4 or v6).
    pub ip: IpAddr,
    /// UDP destination port (4792 MetaRoCE, 4791 RoCEv2).
    pub udp_port: u16,
    /// Max payload bytes per packet: power of two, 512..=8192 (MetaRoCE) / 256..=4096 (RoCEv2).
    pub mtu: u32,
    /// Own receive window, log2 packets (8..=16; MR-REL-4, MR-REL-6).
    pub window_log2: u8,
    /// EV set size per connection (1..=64; MR-PATH-1).
    pub paths: u8,
    /// Congestion control.
    pub cc: CcKind,
    /// Line rate, bits/s.
    pub line_rate_bps: u64,
    /// Base (unloaded) fabric RTT, ns; with the line rate gives the BDP.
    pub base_rtt_ns: u64,
    /// Max QPs.
    pub max_qps: u32,
    /// Max simultaneously open connection contexts (1..=65535).
    pub max_connections: u32,
    /// Max messages in flight per direction of a QP (send WRs being transmitted or awaiting completion,
    /// received messages awaiting in-order completion). Power of two not required; 1..=65536.
    pub max_outstanding_msgs: u32,
    /// Max message length in bytes.
    pub max_msg_len: u32,
    /// Max send / receive queue depth a QP may be created with.
    pub max_queue_depth: u32,
    /// Max memory regions.
    pub max_mrs: u32,
    /// Min RTO, ns.
    pub rto_min_ns: u64,
    /// RTO before the first RTT sample, ns.
    pub rto_init_ns: u64,
    /// Max RTO, ns.
    pub rto_max_ns: u64,
    /// Consecutive timeouts without progress before the QP errors (0..=7; MR-REL-55).
    pub retry_limit: u8,
    /// RNR pauses without progress before RnrRetryExceeded (0..=7; MR-SEM-30).
    pub rnr_retry: u8,
    /// RNR delay advertised in NACK RNR aux, µs.
    pub rnr_timer_us: u32,
    /// Idle time with nothing outstanding after which a connection closes (MR-CONN-19), ns.
    pub idle_close_ns: u64,
    /// Retransmission interval of CLOSE, ns.
    pub close_rto_ns: u64,
    /// NO_CONTEXT retry delay advertised in aux, µs.
    pub no_context_retry_us: u32,
    /// ACK every n data packets (1..=64; MR-REL-14). ACKs are immediate on AR, CE, out-of-order, duplicate, LAST.
    pub ack_ratio: u8,
    /// Max delay of a coalesced ACK, ns.
    pub ack_delay_ns: u64,
    /// Reorder distance for loss detection (c), packets (>= 16; MR-REL-38).
    pub reorder_distance: u32,
    /// DSCP of data packets.
    pub dscp_data: u8,
    /// DSCP of ACK/NACK/CTRL packets.
    pub dscp_ctrl: u8,
    /// DSCP a trimming switch writes into trimmed packets.
    pub dscp_trim: u8,
    /// IPv4 TTL / IPv6 hop limit.
    pub ttl: u8,
    /// Optional 802.1Q TCI for every frame.
    pub vlan: Option<u16>,
    /// Verify the ICV of received frames (false when a NIC offloads it).
    pub verify_icv: bool,
    /// RoCEv2: minimum interval between CNPs per QP, ns (MR-CC-28).
    pub cnp_interval_ns: u64,
    /// RoCEv2 P_Key.
    pub pkey: u16,
    /// Seed of every PRNG (CIDs, ISNs, EVs).
    pub seed: u64,
}

impl Default for EndpointConfig {
    fn default() -> Self {
        EndpointConfig {
            mode: Mode::MetaRoce,
            mac: [0x02, 0, 0, 0, 0, 1],
            ip: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
            udp_port: 4792,
            mtu: 4096,
            window_log2: 12,
            paths: 16,
            cc: CcKind::Nscc,
            line_rate_bps: 100_000_000_000,
            base_rtt_ns: 8_000,
            max_qps: 1024,
            max_connections: 1024,
            max_outstanding_msgs: 256,
            max_msg_len: 1 << 30,
            max_queue_depth: 4096,
            max_mrs: 4096,
            rto_min_ns: 20_000,
            rto_init_ns: 200_000,
            rto_max_ns: 64_000_000,
            retry_limit: 7,
            rnr_retry: 7,
            rnr_timer_us: 10,
            idle_close_ns: 1_000_000,
            close_rto_ns: 200_000,
            no_context_retry_us: 0,
            ack_ratio: 1,
            ack_delay_ns: 2_000,
            reorder_distance: 128,
            dscp_data: 26,
            dscp_ctrl: 46,
            dscp_trim: 10,
            ttl: 64,
            vlan: None,
            verify_icv: true,
            cnp_interval_ns: 50_000,
            pkey: 0xFFFF,
            seed: 1,
        }
    }
}

impl EndpointConfig {
    /// Default MetaRoCE configuration for `mac` / `ip`.
    pub fn metaroce(mac: [u8; 6], ip: IpAddr) -> Self {
        EndpointConfig {
            mac,
            ip,
            ..Default::default()
        }
    }

    /// Default RoCEv2 baseline configuration for `mac` / `ip` (port 4791, DCQCN, MTU 4096).
    pub fn rocev2(mac: [u8; 6], ip: IpAddr) -> Self {
        EndpointConfig {
            mac,
            ip,
            mode: Mode::RoceV2,
            udp_port: 4791,
            cc: CcKind::Dcqcn,
            paths: 1,
            ..Default::default()
        }
    }

    /// Checks every parameter; returns the first one out of range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let e = |field| Err(ConfigError { field });
        let mtu_ok = match self.mode {
            Mode::MetaRoce => (512..=8192).contains(&self.mtu),
            Mode::RoceV2 => (256..=4096).contains(&self.mtu),
        };
        if !mtu_ok || !self.mtu.is_power_of_two() {
            return e("mtu");
        }
        if !(8..=16).contains(&self.window_log2) {
            return e("window_log2");
        }
        if !(1..=64).contains(&self.paths) {
            return e("paths");
        }
        if self.line_rate_bps == 0 {
            return e("line_rate_bps");
        }
        if self.max_qps == 0 || self.max_qps > 0xFFFF {
            return e("max_qps");
        }
        if self.max_connections == 0 || self.max_connections > 0xFFFF {
            return e("max_connections");
        }
        if self.max_outstanding_msgs == 0 || self.max_outstanding_msgs > 65536 {
            return e("max_outstanding_msgs");
        }
        if self.max_msg_len == 0 || self.max_msg_len > 1 << 31 {
            return e("max_msg_len");
        }
        if self.max_queue_depth == 0 || self.max_queue_depth > 1 << 20 {
            return e("max_queue_depth");
        }
        if self.max_mrs == 0 || self.max_mrs > 1 << 23 {
            return e("max_mrs");
        }
        if self.rto_min_ns == 0 || self.rto_max_ns < self.rto_min_ns || self.rto_init_ns == 0 {
            return e("rto");
        }
        if self.ack_ratio == 0 || self.ack_ratio > 64 {
            return e("ack_ratio");
        }
        if self.reorder_distance < 16 {
            return e("reorder_distance");
        }
        if self.dscp_data > 63 || self.dscp_ctrl > 63 || self.dscp_trim > 63 {
            return e("dscp");
        }
        if self.dscp_trim == self.dscp_data {
            return e("dscp_trim");
        }
        if self.idle_close_ns == 0 || self.close_rto_ns == 0 {
            return e("idle_close_ns");
        }
        if self.udp_port == 0 {
            return e("udp_port");
        }
        // Table 10.2 (MR-WIRE-42): both limits fit the 3-bit hot-state counters of Table 7.6.
        if self.retry_limit > 7 {
            return e("retry_limit");
        }
        if self.rnr_retry > 7 {
            return e("rnr_retry");
        }
        Ok(())
    }

    /// Bandwidth-delay product in bytes.
    pub fn bdp_bytes(&self) -> u64 {
        (self.line_rate_bps / 8).saturating_mul(self.base_rtt_ns) / 1_000_000_000
    }

    /// `log2(mtu)`.
    pub fn mtu_log2(&self) -> u8 {
        self.mtu.trailing_zeros() as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validate_and_limits_are_checked() {
        assert_eq!(EndpointConfig::default().validate(), Ok(()));
        let ip = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));
        assert_eq!(EndpointConfig::rocev2([2; 6], ip).validate(), Ok(()));
        let c = EndpointConfig {
            mtu: 3000,
            ..Default::default()
        };
        assert_eq!(c.validate(), Err(ConfigError { field: "mtu" }));
        let c = EndpointConfig {
            window_log2: 17,
            ..Default::default()
        };
        assert_eq!(
            c.validate(),
            Err(ConfigError {
                field: "window_log2"
            })
        );
        let c = EndpointConfig {
            reorder_distance: 15,
            ..Default::default()
        };
        assert_eq!(
            c.validate(),
            Err(ConfigError {
                field: "reorder_distance"
            })
        );
        let c = EndpointConfig {
            max_connections: 70_000,
            ..Default::default()
        };
        assert_eq!(
            c.validate(),
            Err(ConfigError {
                field: "max_connections"
            })
        );
        assert_eq!(EndpointConfig::default().bdp_bytes(), 100_000);
    }

    #[test]
    fn mr_wire_42_retry_limits_range_0_to_7() {
        for v in 0..=7 {
            let c = EndpointConfig {
                retry_limit: v,
                rnr_retry: v,
                ..Default::default()
            };
            assert_eq!(c.validate(), Ok(()));
        }
        let c = EndpointConfig {
            retry_limit: 8,
            ..Default::default()
        };
        assert_eq!(
            c.validate(),
            Err(ConfigError {
                field: "retry_limit"
            })
        );
        let c = EndpointConfig {
            rnr_retry: 255,
            ..Default::default()
        };
        assert_eq!(c.validate(), Err(ConfigError { field: "rnr_retry" }));
    }
}
