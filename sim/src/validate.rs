//! [`SimConfig::validate`]: every impossible or inconsistent value is rejected before a run starts, naming the
//! field by its scenario-file path (`topology.hosts_per_leaf`, `faults.2.rate_gbps`, ...).

use crate::config::{ConfigError, Fault, LinkSel, SimConfig, Transport};
use crate::topology::{sel_matches, Topology};

fn err(field: impl Into<String>, reason: impl Into<String>) -> ConfigError {
    ConfigError {
        field: field.into(),
        reason: reason.into(),
    }
}

/// Headers + ICV of the largest MetaRoCE / RoCEv2 data frame besides its payload, bytes (Ethernet + IPv4 + UDP
/// + MBH + DATA header with immediate + Open extension + ICV).
const MAX_FRAME_OVERHEAD: u64 = 14 + 20 + 8 + 16 + 28 + 12 + 4;

impl SimConfig {
    /// Checks every parameter; the error names the first offending field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.validate_and_build().map(|_| ())
    }

    /// [`SimConfig::validate`], returning the topology it had to build for the checks.
    pub(crate) fn validate_and_build(&self) -> Result<Topology, ConfigError> {
        let topo = Topology::build(&self.topology)?;
        let t = &self.transport;
        let mtu_ok = match t.kind {
            Transport::MetaRoce => (512..=8192).contains(&t.mtu),
            Transport::RoceV2 => (256..=4096).contains(&t.mtu),
        };
        if !mtu_ok || !t.mtu.is_power_of_two() {
            return Err(err(
                "transport.mtu",
                match t.kind {
                    Transport::MetaRoce => "must be a power of two in 512..=8192",
                    Transport::RoceV2 => "must be a power of two in 256..=4096",
                },
            ));
        }
        if let Some(p) = t.paths {
            if !(1..=64).contains(&p) {
                return Err(err("transport.paths", "must be 1..=64"));
            }
        }
        if let Some(w) = t.window_log2 {
            if !(8..=16).contains(&w) {
                return Err(err("transport.window_log2", "must be 8..=16"));
            }
        }
        if t.rto_min_ns == Some(0) {
            return Err(err("transport.rto_min_ns", "must be positive"));
        }
        if t.max_msg_bytes == 0 || t.max_msg_bytes > 1 << 31 {
            return Err(err("transport.max_msg_bytes", "must be 1..=2^31"));
        }
        let s = &self.switch;
        let frame = u64::from(t.mtu) + MAX_FRAME_OVERHEAD;
        if s.buffer_bytes < frame {
            return Err(err(
                "switch.buffer_bytes",
                format!("must hold at least one {frame}-byte frame"),
            ));
        }
        if let Some(e) = s.ecn {
            if e.kmax_bytes < e.kmin_bytes {
                return Err(err("switch.ecn.kmax_bytes", "must be at least kmin_bytes"));
            }
            if !(1..=100).contains(&e.pmax_percent) {
                return Err(err("switch.ecn.pmax_percent", "must be 1..=100"));
            }
        }
        if let Some(p) = s.pfc {
            if p.xoff_bytes == 0 {
                return Err(err("switch.pfc.xoff_bytes", "must be positive"));
            }
            if p.xon_bytes >= p.xoff_bytes {
                return Err(err("switch.pfc.xon_bytes", "must be below xoff_bytes"));
            }
            if p.xoff_bytes > s.buffer_bytes {
                return Err(err(
                    "switch.pfc.xoff_bytes",
                    "must not exceed switch.buffer_bytes",
                ));
            }
        }
        for (i, f) in self.faults.iter().enumerate() {
            let links = match f {
                Fault::Loss { links, ppm } => {
                    if *ppm > 1_000_000 {
                        return Err(err(format!("faults.{i}.ppm"), "must be at most 1000000"));
                    }
                    links
                }
                Fault::Down { links, .. } | Fault::Up { links, .. } => links,
                Fault::Degrade {
                    links, rate_bps, ..
                } => {
                    if *rate_bps == 0 {
                        return Err(err(
                            format!("faults.{i}.rate_gbps"),
                            "rate must be positive (use kind = \"down\" for a failed link)",
                        ));
                    }
                    links
                }
            };
            if let LinkSel::Named(names) = links {
                if names.is_empty() {
                    return Err(err(format!("faults.{i}.links"), "no link named"));
                }
                for n in names {
                    let one = LinkSel::Named(vec![n.clone()]);
                    if !topo.links().iter().any(|l| sel_matches(&one, l)) {
                        return Err(err(
                            format!("faults.{i}.links"),
                            format!("no link or direction named `{n}`"),
                        ));
                    }
                }
            }
        }
        if self.stop_at_ns == Some(0) {
            return Err(err("stop_at_ns", "must be positive"));
        }
        if let Some(p) = &self.pcap {
            for &(a, b) in &p.pairs {
                if a >= topo.hosts() || b >= topo.hosts() {
                    return Err(err(
                        "output.pcap.pairs",
                        format!("host pair ({a}, {b}) outside 0..{}", topo.hosts()),
                    ));
                }
            }
        }
        Ok(topo)
    }
}
