//! Switch behaviour: forwarding by ECMP over the shortest-path next hops, egress queues with two classes
//! (control first), tail drop, trimming of MetaRoCE data on a full queue, RED-style ECN marking on enqueue,
//! and PFC on the data class with per-ingress accounting. The frame operations themselves (hash, CE mark,
//! trim) are the shared ones of `metaroce_proto::wire::fabric`.

use crate::event::Kind;
use crate::fabric::Simulator;
use crate::link::{Port, Queued};
use crate::packet::Class;
use crate::results::{DownDrop, MAX_DOWN_DROPS};

/// Bytes of a packet in a queue: the frame with its FCS.
#[inline]
fn qbytes(frame_len: u16) -> u64 {
    u64::from(frame_len) + crate::topology::FCS_BYTES
}

/// [`qbytes`] of a queue entry's length.
#[inline]
fn qbytes_u32(frame_len: u32) -> u64 {
    u64::from(frame_len) + crate::topology::FCS_BYTES
}

impl Simulator {
    /// Drops packet `id` because link direction `dir` is down (or it has no route): counted on `dir` and
    /// recorded with its hosts for re-path times.
    fn drop_down(&mut self, dir: u32, id: u32) {
        self.ports[dir as usize].stats.drops_down += 1;
        if self.down_drops.len() < MAX_DOWN_DROPS {
            let p = self.arena.get(id);
            let hdr = p.hdr.get(..usize::from(p.hdr_len)).unwrap_or(&[]);
            let sport = metaroce_proto::wire::fabric::parse_info(hdr).map_or(0, |i| i.udp_src);
            self.down_drops.push(DownDrop {
                at_ns: self.now / 1000,
                src: p.src,
                dst: p.dst,
                sport,
            });
        }
        self.arena.release(id);
    }

    /// A packet fully arrived at the receiving node of `dir`.
    pub(crate) fn on_arrive(&mut self, dir: u32, id: u32) {
        if !self.ports[dir as usize].up {
            self.drop_down(dir, id);
            return;
        }
        self.hops += 1;
        let node = self.ddst[dir as usize];
        if node < self.hosts {
            self.deliver(node, id);
        } else {
            self.forward(node, dir, id);
        }
    }

    fn forward(&mut self, node: u32, in_dir: u32, id: u32) {
        let dst = self.arena.get(id).dst;
        let plane = self.node_plane[node as usize];
        let leaf = self.topo.leaf_of(dst);
        let out = if node == self.topo.leaf_node(plane, leaf) {
            2 * self.topo.host_link(dst, plane) + 1
        } else {
            let hops = self.routes.next_hops(node, leaf);
            match hops.len() {
                0 => {
                    // No route left: counted as a down drop on the link it came in on.
                    self.drop_down(in_dir, id);
                    return;
                }
                1 => hops[0],
                n => {
                    let h = self.arena.hash(id, self.salts[node as usize]);
                    hops[(h % n as u64) as usize]
                }
            }
        };
        self.switch_enqueue(node, out, in_dir, id);
    }

    /// Enqueues a packet on a switch egress port.
    fn switch_enqueue(&mut self, node: u32, dir: u32, in_dir: u32, id: u32) {
        let sw = self.cfg.switch;
        if !self.ports[dir as usize].up {
            self.drop_down(dir, id);
            return;
        }
        let port = &mut self.ports[dir as usize];
        let pkt = self.arena.get(id);
        let class = pkt.class;
        let mut len = qbytes(pkt.frame_len);
        if class == Class::Data {
            if port.data_bytes + len > sw.buffer_bytes {
                if sw.trimming && pkt.trimmable && self.arena.trim(id, self.dscp_trim) {
                    let p = self.arena.get_mut(id);
                    p.class = Class::Control;
                    p.trimmable = false;
                    len = qbytes(p.frame_len);
                    port.stats.trimmed += 1;
                } else {
                    port.stats.drops_overflow += 1;
                    self.arena.release(id);
                    return;
                }
            } else {
                if let Some(ecn) = sw.ecn {
                    let q = port.data_bytes;
                    let mark = if q <= ecn.kmin_bytes {
                        false
                    } else if q >= ecn.kmax_bytes {
                        true
                    } else {
                        let span = (ecn.kmax_bytes - ecn.kmin_bytes).max(1);
                        let ppm =
                            u64::from(ecn.pmax_percent) * 10_000 * (q - ecn.kmin_bytes) / span;
                        self.rngs[node as usize].below(1_000_000) < ppm
                    };
                    if mark && self.arena.mark_ce(id) {
                        port.stats.ecn_marked += 1;
                    }
                }
                let frame_len = u32::from(self.arena.get(id).frame_len);
                let mut pfc_in = u32::MAX;
                if sw.pfc.is_some() {
                    pfc_in = in_dir;
                }
                port.data.push_back(Queued {
                    id,
                    frame_len,
                    pfc_in,
                });
                port.data_bytes += len;
                port.note_peak();
                if let Some(pfc) = sw.pfc {
                    let ip = &mut self.ports[in_dir as usize];
                    ip.ingress_bytes += len;
                    if ip.ingress_bytes > pfc.xoff_bytes && !ip.pausing {
                        ip.pausing = true;
                        ip.stats.pauses_sent += 1;
                        let t = self.now + ip.lat_ps;
                        self.q.push(t, Kind::Pfc, in_dir, 1);
                    }
                }
                self.start_tx(dir);
                return;
            }
        }
        let port = &mut self.ports[dir as usize];
        if port.ctrl_bytes + len > sw.buffer_bytes {
            port.stats.drops_overflow += 1;
            self.arena.release(id);
            return;
        }
        port.ctrl.push_back(Queued {
            id,
            frame_len: u32::from(self.arena.get(id).frame_len),
            pfc_in: u32::MAX,
        });
        port.ctrl_bytes += len;
        port.note_peak();
        self.start_tx(dir);
    }

    /// Queues a packet on a NIC port (no buffer limit: the NIC pulls frames only when there is room).
    pub(crate) fn nic_enqueue(&mut self, dir: u32, id: u32) {
        if !self.ports[dir as usize].up {
            self.drop_down(dir, id);
            return;
        }
        let port = &mut self.ports[dir as usize];
        let pkt = self.arena.get(id);
        let len = qbytes(pkt.frame_len);
        let q = Queued {
            id,
            frame_len: u32::from(pkt.frame_len),
            pfc_in: u32::MAX,
        };
        match pkt.class {
            Class::Control => {
                port.ctrl.push_back(q);
                port.ctrl_bytes += len;
            }
            Class::Data => {
                port.data.push_back(q);
                port.data_bytes += len;
            }
        }
        port.note_peak();
        self.start_tx(dir);
    }

    /// Starts the next frame on the egress port of `dir` if it is idle.
    pub(crate) fn start_tx(&mut self, dir: u32) {
        let now = self.now;
        let port: &mut Port = &mut self.ports[dir as usize];
        if port.busy {
            return;
        }
        if now < port.free_at {
            // Still serializing a frame sent without a completion event: come back when it ends.
            port.busy = true;
            let t = port.free_at;
            self.q.push(t, Kind::TxDone, dir, 0);
            return;
        }
        let q = if let Some(q) = port.ctrl.pop_front() {
            port.ctrl_bytes -= qbytes_u32(q.frame_len);
            q
        } else if !port.paused {
            let Some(q) = port.data.pop_front() else {
                return;
            };
            port.data_bytes -= qbytes_u32(q.frame_len);
            q
        } else {
            return;
        };
        let id = q.id;
        let len = qbytes_u32(q.frame_len);
        let in_dir = q.pfc_in;
        let ser = port.ser_ps(u64::from(q.frame_len));
        port.free_at = now + ser;
        port.stats.tx_packets += 1;
        port.stats.tx_bytes += len;
        let lat = port.lat_ps;
        let loss = port.loss_ppm;
        let src = self.dsrc[dir as usize];
        let from_host = src < self.hosts;
        // A completion event is needed only if something waits or a NIC must pull its next frame.
        if port.queued() > 0 || from_host {
            port.busy = true;
            self.q.push(now + ser, Kind::TxDone, dir, 0);
        }
        if in_dir != u32::MAX {
            if let Some(pfc) = self.cfg.switch.pfc {
                let ip = &mut self.ports[in_dir as usize];
                ip.ingress_bytes = ip.ingress_bytes.saturating_sub(len);
                if ip.pausing && ip.ingress_bytes <= pfc.xon_bytes {
                    ip.pausing = false;
                    let t = self.now + ip.lat_ps;
                    self.q.push(t, Kind::Pfc, in_dir, 0);
                }
            }
        }
        if from_host && self.capture.is_some() && self.arena.get(id).capture {
            let now_ns = self.now / 1000;
            if let Some(c) = self.capture.as_mut() {
                c.record(now_ns, self.arena.bytes(id), q.frame_len as usize);
            }
        }
        if loss > 0 && self.rngs[src as usize].chance_ppm(loss) {
            self.ports[dir as usize].stats.drops_loss += 1;
            self.arena.release(id);
            return;
        }
        self.q.push(self.now + ser + lat, Kind::Arrive, dir, id);
    }

    /// The egress port of `dir` finished a frame.
    pub(crate) fn on_tx_done(&mut self, dir: u32) {
        self.ports[dir as usize].busy = false;
        let src = self.dsrc[dir as usize];
        if src < self.hosts {
            self.service(src);
        }
        self.start_tx(dir);
    }

    /// A PFC pause (`on`) or resume reached the sender of `dir`.
    pub(crate) fn on_pfc(&mut self, dir: u32, on: bool) {
        let now = self.now;
        let p = &mut self.ports[dir as usize];
        if on && !p.paused {
            p.paused = true;
            p.paused_since = now;
        } else if !on && p.paused {
            p.paused = false;
            p.stats.paused_ps += now.saturating_sub(p.paused_since);
            self.start_tx(dir);
        }
    }
}
