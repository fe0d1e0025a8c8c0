//! Workloads: what traffic a run carries, built from the `[workload]` and `[[background]]` tables of a scenario.
//!
//! Every kind is a [`Workload`] that starts flows and reacts to their completions; [`build`] makes the measured
//! one and [`build_composite`] joins it with background workloads (the run ends when the measured one is done,
//! background flows still in flight are abandoned). [`WorkloadSpec::ideal_ns`] is the completion time of the
//! measured workload on an unloaded fabric, the denominator of the reported completion ratio.
//!
//! Tags and timer tokens: a workload may use flow tags below 2^28 and timer tokens below 2^56; the composite
//! keeps the component's index in the bits above.

pub mod all_to_all;
pub mod incast;
pub mod inference;
pub mod permutation;
pub mod ring;
pub mod sizes;
pub mod uniform;

use crate::config::{ConfigError, HostId, SimConfig, TopologySpec, Transport};
use crate::flow::{Actions, FlowClass, FlowRecord, Workload};
use crate::topology::Topology;
use serde::{Deserialize, Serialize};
pub use sizes::SizeDist;

/// Flow tags a component workload may use are below this.
pub const TAG_LIMIT: u32 = 1 << 28;
const TOKEN_SHIFT: u32 = 56;

/// One workload table of a scenario file (`[workload]` or one `[[background]]`), selected by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum WorkloadSpec {
    /// Every host sends `bytes` to one other host, along a seeded derangement (no host sends to itself and every
    /// host receives exactly one flow).
    Permutation {
        /// Bytes per flow.
        bytes: u64,
    },
    /// Every ordered pair of the first `hosts` hosts exchanges `bytes`.
    AllToAll {
        /// Bytes per ordered pair.
        bytes: u64,
        /// Only the first `hosts` hosts take part (default: all).
        #[serde(default)]
        hosts: Option<u32>,
        /// Peers a host sends to at once, in rotated order `h+1, h+2, ...` (default: all at once).
        #[serde(default)]
        concurrency: Option<u32>,
    },
    /// Ring all-reduce of a `bytes` buffer over all hosts: `2(N-1)` dependent steps of `bytes / (N * rings)` per
    /// host and ring; host `i`'s step `k+1` starts once its own step-`k` send has completed and the step-`k`
    /// chunk from its predecessor has completed at its sender.
    RingAllreduce {
        /// Buffer size, bytes.
        bytes: u64,
        /// Parallel rings (each its own QPs: ring `r` uses the `r`-th stride coprime with N, in the order
        /// 1, N-1, 2, 3, ...); the buffer is split evenly among them. Default 1, at most 4095.
        #[serde(default)]
        rings: Option<u32>,
    },
    /// `senders` hosts send `bytes` each to `receiver` at once (the senders are `receiver+1, receiver+2, ...`
    /// modulo the host count).
    Incast {
        /// Number of senders.
        senders: u32,
        /// Bytes per sender.
        bytes: u64,
        /// The receiving host (default 0).
        #[serde(default)]
        receiver: u32,
    },
    /// Open-loop random traffic: every host starts flows with Poisson arrivals at `load_percent` of its line
    /// rate (payload bytes), to uniformly random other hosts, sizes drawn from `sizes`. As a background workload it
    /// never ends; as the measured workload it stops starting flows at `duration_ns` and is done when they finish.
    UniformRandom {
        /// Offered load, percent of each host's line rate (0 < load <= 100).
        load_percent: f64,
        /// Flow sizes.
        sizes: SizeDist,
        /// Arrivals stop at this time, ns (required when measured).
        #[serde(default)]
        duration_ns: Option<u64>,
    },
    /// Latency-sensitive messages: every host sends `messages` messages to uniformly random other hosts with
    /// Poisson arrivals at `rate_per_host_per_us` messages per microsecond, or at `load_percent` of its line rate
    /// (exactly one of the two), sizes drawn from `sizes`. Done when every message has completed.
    Inference {
        /// Messages per host.
        messages: u32,
        /// Arrival rate per host, messages per microsecond.
        #[serde(default)]
        rate_per_host_per_us: Option<f64>,
        /// Arrival rate as a share of the line rate, percent.
        #[serde(default)]
        load_percent: Option<f64>,
        /// Message sizes.
        sizes: SizeDist,
    },
}

/// A small, fast, seedable PRNG (SplitMix64): the workloads' only source of randomness.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x6a09_e667_f3bc_c908)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Exponentially distributed with the given mean, rounded to ns (>= 1).
    pub fn exp_ns(&mut self, mean_ns: f64) -> u64 {
        let u = 1.0 - self.unit(); // (0, 1]
        ((-u.ln() * mean_ns).round() as u64).max(1)
    }

    /// A flow from `src` to a uniformly random other host of `0..hosts`, its size drawn from `sizes` (the
    /// open-loop workloads' arrivals).
    pub fn random_flow(
        &mut self,
        hosts: u32,
        src: HostId,
        sizes: &SizeDist,
        class: FlowClass,
        tag: u32,
    ) -> crate::flow::FlowSpec {
        let dst = self.other_host(hosts, src);
        let bytes = sizes.sample(self);
        crate::flow::FlowSpec {
            src,
            dst,
            bytes,
            class,
            tag,
        }
    }

    /// A uniformly random host of `0..hosts` other than `not` (`not` itself if it is the only host).
    pub fn other_host(&mut self, hosts: u32, not: HostId) -> HostId {
        if hosts < 2 {
            return not;
        }
        let d = self.below(u64::from(hosts - 1)) as u32;
        if d >= not {
            d + 1
        } else {
            d
        }
    }
}

/// Derives the seed of component `index` of a run seeded with `seed`.
pub fn component_seed(seed: u64, index: u64) -> u64 {
    let mut r = Rng::new(seed.wrapping_add(index.wrapping_mul(0xd1b5_4a32_d192_ed03)));
    r.next_u64()
}

impl WorkloadSpec {
    /// The `kind` string of this workload, as in scenario files.
    pub fn kind(&self) -> &'static str {
        match self {
            WorkloadSpec::Permutation { .. } => "permutation",
            WorkloadSpec::AllToAll { .. } => "all-to-all",
            WorkloadSpec::RingAllreduce { .. } => "ring-allreduce",
            WorkloadSpec::Incast { .. } => "incast",
            WorkloadSpec::UniformRandom { .. } => "uniform-random",
            WorkloadSpec::Inference { .. } => "inference",
        }
    }

    /// The class of its flows when it is the measured workload (background workloads always use
    /// [`FlowClass::Background`]).
    pub fn measured_class(&self) -> FlowClass {
        match self {
            WorkloadSpec::Inference { .. } => FlowClass::Latency,
            WorkloadSpec::UniformRandom { .. } => FlowClass::Background,
            _ => FlowClass::Collective,
        }
    }

    /// Checks the parameters against the topology; `field` is the table's scenario path (`workload` or
    /// `background.N`) and errors name `field.key`. `measured` is false for background workloads.
    pub fn validate(
        &self,
        topo: &Topology,
        field: &str,
        measured: bool,
    ) -> Result<(), ConfigError> {
        let err = |key: &str, reason: String| {
            Err(ConfigError {
                field: format!("{field}.{key}"),
                reason,
            })
        };
        let hosts = topo.hosts();
        if hosts < 2 {
            return err(
                "kind",
                format!("needs at least 2 hosts, the topology has {hosts}"),
            );
        }
        match self {
            WorkloadSpec::Permutation { bytes } => {
                if *bytes == 0 {
                    return err("bytes", "must be >= 1".into());
                }
            }
            WorkloadSpec::AllToAll {
                bytes,
                hosts: sub,
                concurrency,
            } => {
                if *bytes == 0 {
                    return err("bytes", "must be >= 1".into());
                }
                if let Some(n) = sub {
                    if *n < 2 || *n > hosts {
                        return err(
                            "hosts",
                            format!("must be within 2..={hosts} (the topology's hosts)"),
                        );
                    }
                }
                if *concurrency == Some(0) {
                    return err("concurrency", "must be >= 1".into());
                }
            }
            WorkloadSpec::RingAllreduce { bytes, rings } => {
                let r = rings.unwrap_or(1);
                let strides = ring::strides(hosts, r).len() as u32;
                if r == 0 || r > 4095 || strides < r {
                    return err(
                        "rings",
                        format!(
                            "must be within 1..={} for {hosts} hosts",
                            ring::strides(hosts, 4095).len()
                        ),
                    );
                }
                if *bytes < u64::from(hosts) * u64::from(r) {
                    return err(
                        "bytes",
                        format!(
                            "must be at least hosts * rings = {} (one byte per chunk)",
                            u64::from(hosts) * u64::from(r)
                        ),
                    );
                }
                if 2 * (u64::from(hosts) - 1) >= u64::from(1u32 << 16) {
                    return err("kind", "at most 32768 hosts".into());
                }
            }
            WorkloadSpec::Incast {
                senders,
                bytes,
                receiver,
            } => {
                if *bytes == 0 {
                    return err("bytes", "must be >= 1".into());
                }
                if *receiver >= hosts {
                    return err(
                        "receiver",
                        format!("must be < {hosts} (the topology's hosts)"),
                    );
                }
                if *senders == 0 || *senders >= hosts {
                    return err("senders", format!("must be within 1..={}", hosts - 1));
                }
            }
            WorkloadSpec::UniformRandom {
                load_percent,
                sizes,
                duration_ns,
            } => {
                if !(*load_percent > 0.0 && *load_percent <= 100.0) {
                    return err("load_percent", "must be within (0, 100]".into());
                }
                sizes.validate(&format!("{field}.sizes"))?;
                if measured && duration_ns.is_none() {
                    return err(
                        "duration_ns",
                        "required when uniform-random is the measured workload".into(),
                    );
                }
            }
            WorkloadSpec::Inference {
                messages,
                rate_per_host_per_us,
                load_percent,
                sizes,
            } => {
                if *messages == 0 {
                    return err("messages", "must be >= 1".into());
                }
                sizes.validate(&format!("{field}.sizes"))?;
                match (rate_per_host_per_us, load_percent) {
                    (Some(r), None) if *r > 0.0 && r.is_finite() => {}
                    (Some(_), None) => return err("rate_per_host_per_us", "must be > 0".into()),
                    (None, Some(l)) if *l > 0.0 && *l <= 100.0 => {}
                    (None, Some(_)) => {
                        return err("load_percent", "must be within (0, 100]".into())
                    }
                    _ => {
                        return err(
                            "rate_per_host_per_us",
                            "give exactly one of rate_per_host_per_us and load_percent".into(),
                        )
                    }
                }
            }
        }
        Ok(())
    }

    /// The completion time of this workload on an unloaded fabric, ns, or 0 where none is defined (open-loop
    /// `uniform-random` and `inference`). With `W(b) = b + ceil(b / mtu) * O` the wire bytes of a `b`-byte
    /// flow (`O` = per-packet overhead: Ethernet, IPv4, UDP, transport headers, ICV/ICRC, FCS, preamble and gap;
    /// 110 B for MetaRoCE, 82 B for RoCEv2) and a *phase* a set of flows started together, a phase lasts
    /// `B + L`, where `L` is the largest unloaded one-way latency ([`Topology::one_way_ns`]) of its flows for a
    /// frame of `min(b, mtu)` payload and `B` the largest of
    /// - each host's transmitted and received `8 * sum W / host_rate`,
    /// - each leaf's bytes to and from other leaves over [`Topology::leaf_uplink_bps`] (faults applied),
    /// - in a fat-tree, each pod's bytes to and from other pods over [`Topology::pod_uplink_bps`],
    /// - in a multi-DC fabric, the bytes crossing each DC boundary in each direction over
    ///   [`Topology::long_haul_bps`].
    ///
    /// `permutation`, `all-to-all` (whatever the concurrency) and `incast` are one phase; `ring-allreduce` is
    /// `2(N-1)` phases, each every host sending one chunk to its successor on every ring.
    pub fn ideal_ns(&self, topo: &Topology, cfg: &SimConfig) -> u64 {
        let mut flows = Vec::new();
        match self {
            WorkloadSpec::Permutation { .. }
            | WorkloadSpec::AllToAll { .. }
            | WorkloadSpec::Incast { .. } => {
                let mut wl = build(self, topo, cfg.seed);
                let mut act = Actions::default();
                wl.start(&mut act);
                match self {
                    WorkloadSpec::AllToAll { bytes, hosts, .. } => {
                        let n = hosts.unwrap_or(topo.hosts()).min(topo.hosts());
                        for s in 0..n {
                            for d in 0..n {
                                if s != d {
                                    flows.push((s, d, *bytes));
                                }
                            }
                        }
                    }
                    _ => flows.extend(act.flows.iter().map(|(_, f)| (f.src, f.dst, f.bytes))),
                }
                phase_ns(topo, cfg, &flows)
            }
            WorkloadSpec::RingAllreduce { bytes, rings } => {
                let n = topo.hosts();
                let rings = rings.unwrap_or(1).max(1);
                let chunk = ring::chunk_bytes(*bytes, n, rings);
                for s in ring::strides(n, rings) {
                    for h in 0..n {
                        flows.push((h, (h + s) % n, chunk));
                    }
                }
                phase_ns(topo, cfg, &flows).saturating_mul(2 * u64::from(n.saturating_sub(1)))
            }
            WorkloadSpec::UniformRandom { .. } | WorkloadSpec::Inference { .. } => 0,
        }
    }
}

/// Per-packet bytes on the wire besides the payload for `t` (see [`WorkloadSpec::ideal_ns`]).
pub fn packet_overhead_bytes(t: Transport) -> u64 {
    // Ethernet 14 + IPv4 20 + UDP 8 + FCS 4 + preamble and inter-frame gap 20 = 66, then
    // MetaRoCE: base header 16 + DATA header 24 + ICV 4; RoCEv2: BTH 12 + ICRC 4.
    match t {
        Transport::MetaRoce => 66 + 16 + 24 + 4,
        Transport::RoceV2 => 66 + 12 + 4,
    }
}

/// Wire bytes of a `bytes`-byte flow (see [`WorkloadSpec::ideal_ns`]).
pub fn wire_bytes(cfg: &SimConfig, bytes: u64) -> u64 {
    let mtu = u64::from(cfg.transport.mtu.max(1));
    bytes + bytes.div_ceil(mtu) * packet_overhead_bytes(cfg.transport.kind)
}

/// Time to move `bytes` at `rate_bps`, ns, rounded up (0 when the rate is 0: no bound).
fn ser_ns(bytes: u64, rate_bps: u64) -> u64 {
    if rate_bps == 0 {
        return 0;
    }
    let ns = (u128::from(bytes) * 8 * 1_000_000_000).div_ceil(u128::from(rate_bps));
    u64::try_from(ns).unwrap_or(u64::MAX)
}

/// Duration of one phase of `(src, dst, bytes)` flows started together on an unloaded fabric, ns
/// (see [`WorkloadSpec::ideal_ns`]).
pub fn phase_ns(topo: &Topology, cfg: &SimConfig, flows: &[(HostId, HostId, u64)]) -> u64 {
    let hosts = topo.hosts() as usize;
    let leaves = topo.leaves() as usize;
    let fat_tree = matches!(cfg.topology, TopologySpec::FatTree { .. });
    let dcs = match cfg.topology {
        TopologySpec::MultiDc { dcs, .. } => dcs as usize,
        _ => 1,
    };
    let mut tx = vec![0u64; hosts];
    let mut rx = vec![0u64; hosts];
    let mut leaf_out = vec![0u64; leaves];
    let mut leaf_in = vec![0u64; leaves];
    let mut pod_out: Vec<u64> = Vec::new();
    let mut pod_in: Vec<u64> = Vec::new();
    let mut fwd = vec![0u64; dcs.saturating_sub(1)];
    let mut back = vec![0u64; dcs.saturating_sub(1)];
    let mtu = u64::from(cfg.transport.mtu);
    let hdr = packet_overhead_bytes(cfg.transport.kind) - 20;
    let mut latency = 0u64;
    for &(s, d, b) in flows {
        let (si, di) = (s as usize, d as usize);
        if si >= hosts || di >= hosts || s == d {
            continue;
        }
        let w = wire_bytes(cfg, b);
        tx[si] += w;
        rx[di] += w;
        let (ls, ld) = (topo.leaf_of(s) as usize, topo.leaf_of(d) as usize);
        if ls != ld && ls < leaves && ld < leaves {
            leaf_out[ls] += w;
            leaf_in[ld] += w;
        }
        if fat_tree {
            let (ps, pd) = (topo.pod_of(s) as usize, topo.pod_of(d) as usize);
            if ps != pd {
                let need = ps.max(pd) + 1;
                if pod_out.len() < need {
                    pod_out.resize(need, 0);
                    pod_in.resize(need, 0);
                }
                pod_out[ps] += w;
                pod_in[pd] += w;
            }
        }
        let (ds, dd) = (topo.dc_of(s) as usize, topo.dc_of(d) as usize);
        for boundary in ds.min(dd)..ds.max(dd) {
            if boundary < fwd.len() {
                if ds < dd {
                    fwd[boundary] += w;
                } else {
                    back[boundary] += w;
                }
            }
        }
        latency = latency.max(topo.one_way_ns(s, d, b.min(mtu) + hdr));
    }
    let rate = topo.host_rate_bps();
    let mut bound = 0u64;
    for h in 0..hosts {
        bound = bound.max(ser_ns(tx[h], rate)).max(ser_ns(rx[h], rate));
    }
    for l in 0..leaves {
        let cap = topo.leaf_uplink_bps(l as u32, &cfg.faults);
        bound = bound
            .max(ser_ns(leaf_out[l], cap))
            .max(ser_ns(leaf_in[l], cap));
    }
    for p in 0..pod_out.len() {
        let cap = topo.pod_uplink_bps(p as u32, &cfg.faults);
        bound = bound
            .max(ser_ns(pod_out[p], cap))
            .max(ser_ns(pod_in[p], cap));
    }
    for b in 0..fwd.len() {
        let cap = topo.long_haul_bps(b as u32, &cfg.faults);
        bound = bound.max(ser_ns(fwd[b], cap)).max(ser_ns(back[b], cap));
    }
    bound.saturating_add(latency)
}

/// Builds the measured workload `spec` for `topo` (call [`WorkloadSpec::validate`] first: out-of-range
/// parameters are clamped here, never a panic).
pub fn build(spec: &WorkloadSpec, topo: &Topology, seed: u64) -> Box<dyn Workload> {
    build_with_class(spec, topo, seed, spec.measured_class(), true)
}

/// Builds `spec` as a background workload: its flows are [`FlowClass::Background`] and it never ends the run.
pub fn build_background(spec: &WorkloadSpec, topo: &Topology, seed: u64) -> Box<dyn Workload> {
    build_with_class(spec, topo, seed, FlowClass::Background, false)
}

fn build_with_class(
    spec: &WorkloadSpec,
    topo: &Topology,
    seed: u64,
    class: FlowClass,
    measured: bool,
) -> Box<dyn Workload> {
    let hosts = topo.hosts();
    match spec {
        WorkloadSpec::Permutation { bytes } => {
            Box::new(permutation::Permutation::new(hosts, *bytes, seed, class))
        }
        WorkloadSpec::AllToAll {
            bytes,
            hosts: sub,
            concurrency,
        } => Box::new(all_to_all::AllToAll::new(
            sub.unwrap_or(hosts).min(hosts),
            *bytes,
            *concurrency,
            class,
        )),
        WorkloadSpec::RingAllreduce { bytes, rings } => Box::new(ring::RingAllreduce::new(
            hosts,
            *bytes,
            rings.unwrap_or(1),
            class,
        )),
        WorkloadSpec::Incast {
            senders,
            bytes,
            receiver,
        } => Box::new(incast::Incast::new(
            hosts, *senders, *bytes, *receiver, class,
        )),
        WorkloadSpec::UniformRandom {
            load_percent,
            sizes,
            duration_ns,
        } => Box::new(uniform::UniformRandom::new(
            hosts,
            topo.host_rate_bps(),
            *load_percent,
            sizes.clone(),
            if measured {
                *duration_ns
            } else {
                duration_ns.or(Some(u64::MAX))
            },
            seed,
            class,
        )),
        WorkloadSpec::Inference {
            messages,
            rate_per_host_per_us,
            load_percent,
            sizes,
        } => {
            let per_us = match (rate_per_host_per_us, load_percent) {
                (Some(r), _) => *r,
                (None, Some(l)) => {
                    topo.host_rate_bps() as f64 * (l / 100.0) / 8.0 / sizes.mean().max(1.0) / 1e6
                }
                (None, None) => 1.0,
            };
            Box::new(inference::Inference::new(
                hosts,
                *messages,
                per_us,
                sizes.clone(),
                seed,
                class,
                measured,
            ))
        }
    }
}

/// The measured workload plus background ones, built from a scenario's tables. Component `i` gets the seed
/// [`component_seed`]`(seed, i)` (0 = measured).
pub fn build_composite(
    measured: &WorkloadSpec,
    background: &[WorkloadSpec],
    topo: &Topology,
    seed: u64,
) -> Box<dyn Workload> {
    let first = build(measured, topo, component_seed(seed, 0));
    if background.is_empty() {
        return first;
    }
    let mut parts = vec![first];
    for (i, b) in background.iter().enumerate() {
        parts.push(build_background(
            b,
            topo,
            component_seed(seed, i as u64 + 1),
        ));
    }
    Box::new(Composite::new(parts))
}

/// Several workloads in one run: the first is measured (the run is done when it is), the others are
/// background. Component `i`'s flows carry tag `i << 28 | tag` and its timers token `i << 56 | token`;
/// completions and timers are routed back with the component's own tag or token.
pub struct Composite {
    parts: Vec<Box<dyn Workload>>,
    scratch: Actions,
}

impl Composite {
    /// Joins `parts` (at most 16; the first is measured).
    pub fn new(parts: Vec<Box<dyn Workload>>) -> Composite {
        Composite {
            parts,
            scratch: Actions::default(),
        }
    }

    fn forward(&mut self, i: usize, act: &mut Actions) {
        for (t, mut f) in self.scratch.flows.drain(..) {
            f.tag = (f.tag & (TAG_LIMIT - 1)) | ((i as u32) << 28);
            act.start_flow(t, f);
        }
        for (t, tok) in self.scratch.timers.drain(..) {
            act.set_timer(
                t,
                (tok & ((1u64 << TOKEN_SHIFT) - 1)) | ((i as u64) << TOKEN_SHIFT),
            );
        }
    }
}

impl Workload for Composite {
    fn name(&self) -> String {
        let names: Vec<String> = self.parts.iter().map(|p| p.name()).collect();
        names.join(" + ")
    }

    fn start(&mut self, act: &mut Actions) {
        for i in 0..self.parts.len() {
            self.parts[i].start(&mut self.scratch);
            self.forward(i, act);
        }
    }

    fn on_flow_done(&mut self, now_ns: u64, flow: &FlowRecord, act: &mut Actions) {
        let i = (flow.spec.tag >> 28) as usize;
        let mut rec = *flow;
        rec.spec.tag &= TAG_LIMIT - 1;
        if let Some(p) = self.parts.get_mut(i) {
            p.on_flow_done(now_ns, &rec, &mut self.scratch);
            self.forward(i, act);
        }
    }

    fn on_timer(&mut self, now_ns: u64, token: u64, act: &mut Actions) {
        let i = (token >> TOKEN_SHIFT) as usize;
        if let Some(p) = self.parts.get_mut(i) {
            p.on_timer(
                now_ns,
                token & ((1u64 << TOKEN_SHIFT) - 1),
                &mut self.scratch,
            );
            self.forward(i, act);
        }
    }

    fn is_done(&self) -> bool {
        self.parts.first().is_none_or(|p| p.is_done())
    }
}
