//! Header field access generated from `metaroce_proto::wire::layout` (the `FieldDesc` tables), shared by the
//! frame parser ([`crate::rx::parser`]) and the frame builder ([`crate::tx::frame_build`]), and the packing of
//! [`PktMeta`] as a netlist vector.
//!
//! A header is a list of byte nodes of a [`Net`]; [`field_get`] reads a field (big-endian bytes, masked and
//! shifted for sub-byte fields) and [`HdrWriter::put`] writes one, both from the field's `offset`, `len` and
//! `bits` in the proto table. No offset is written by hand here or in the blocks.

use crate::common::netlist::{get_field, set_field, Net, ToWords, N};
use crate::records::PktMeta;
use metaroce_proto::wire::layout::{FieldDesc, HeaderLayout};
use rust_hdl::prelude::*;

/// The table field `name` of `h` (a missing name is a bug in the block generator).
pub fn fd(h: &HeaderLayout, name: &str) -> &'static FieldDesc {
    h.field(name)
        .unwrap_or_else(|| panic!("field {name} not in layout {}", h.name))
}

/// Reads field `name` of header `h` starting at byte `base` of `bytes` (8-bit nodes). The result has the
/// field's width (`width_bits`).
pub fn field_get(net: &mut Net, bytes: &[N], h: &HeaderLayout, base: usize, name: &str) -> N {
    let f = fd(h, name);
    let parts: Vec<N> = (0..f.len)
        .rev()
        .map(|k| bytes[base + f.offset + k])
        .collect();
    let be = net.cat(&parts);
    match f.bits {
        None => be,
        Some(bf) => {
            let w = bf.mask.count_ones() as usize;
            net.slice(be, bf.shift as usize, w)
        }
    }
}

/// Builds header bytes from fields: every byte is the OR of the fields written into it (zero if none).
#[derive(Debug, Clone)]
pub struct HdrWriter {
    parts: Vec<Vec<N>>,
}

impl HdrWriter {
    /// A header area of `len` bytes.
    pub fn new(len: usize) -> Self {
        HdrWriter {
            parts: vec![Vec::new(); len],
        }
    }

    /// Writes `v` (zero-extended or truncated to the field's width) into field `name` of `h` at byte `base`.
    pub fn put(&mut self, net: &mut Net, h: &HeaderLayout, base: usize, name: &str, v: N) {
        let f = fd(h, name);
        let total = f.len * 8;
        let x = match f.bits {
            None => net.resize(v, total),
            Some(bf) => {
                let w = bf.mask.count_ones() as usize;
                let vv = net.resize(v, w);
                let mut p = Vec::new();
                if bf.shift > 0 {
                    p.push(net.lit(bf.shift as usize, 0));
                }
                p.push(vv);
                let hi = total - w - bf.shift as usize;
                if hi > 0 {
                    p.push(net.lit(hi, 0));
                }
                net.cat(&p)
            }
        };
        for k in 0..f.len {
            let b = net.slice(x, (f.len - 1 - k) * 8, 8);
            self.parts[base + f.offset + k].push(b);
        }
    }

    /// Writes the constant `c` into field `name`.
    pub fn put_k(&mut self, net: &mut Net, h: &HeaderLayout, base: usize, name: &str, c: u64) {
        let f = fd(h, name);
        let w = f.width_bits() as usize;
        let v = net.lit(w, c);
        self.put(net, h, base, name, v);
    }

    /// The bytes (8-bit nodes).
    pub fn bytes(&self, net: &mut Net) -> Vec<N> {
        let z = net.lit(8, 0);
        self.parts
            .iter()
            .map(|p| match p.len() {
                0 => z,
                1 => p[0],
                _ => {
                    let mut acc = p[0];
                    for &q in &p[1..] {
                        acc = net.or(acc, q);
                    }
                    acc
                }
            })
            .collect()
    }
}

/// (name, bit offset, width) of every [`PktMeta`] field in its packed vector.
pub fn meta_fields() -> Vec<(&'static str, usize, usize)> {
    let m = PktMeta::default();
    vec![
        (
            "peer_mac",
            m.get_my_offset_peer_mac(),
            m.get_my_width_peer_mac(),
        ),
        (
            "peer_ip",
            m.get_my_offset_peer_ip(),
            m.get_my_width_peer_ip(),
        ),
        ("ipv6", m.get_my_offset_ipv6(), m.get_my_width_ipv6()),
        ("vlan", m.get_my_offset_vlan(), m.get_my_width_vlan()),
        ("tci", m.get_my_offset_tci(), m.get_my_width_tci()),
        ("dscp", m.get_my_offset_dscp(), m.get_my_width_dscp()),
        ("ecn", m.get_my_offset_ecn(), m.get_my_width_ecn()),
        ("ev", m.get_my_offset_ev(), m.get_my_width_ev()),
        ("ptype", m.get_my_offset_ptype(), m.get_my_width_ptype()),
        (
            "mbh_flags",
            m.get_my_offset_mbh_flags(),
            m.get_my_width_mbh_flags(),
        ),
        (
            "payload_len",
            m.get_my_offset_payload_len(),
            m.get_my_width_payload_len(),
        ),
        ("dcid", m.get_my_offset_dcid(), m.get_my_width_dcid()),
        ("hlen", m.get_my_offset_hlen(), m.get_my_width_hlen()),
        ("psn", m.get_my_offset_psn(), m.get_my_width_psn()),
        ("ts", m.get_my_offset_ts(), m.get_my_width_ts()),
        ("opcode", m.get_my_offset_opcode(), m.get_my_width_opcode()),
        ("dflags", m.get_my_offset_dflags(), m.get_my_width_dflags()),
        ("msn", m.get_my_offset_msn(), m.get_my_width_msn()),
        ("addr", m.get_my_offset_addr(), m.get_my_width_addr()),
        ("key", m.get_my_offset_key(), m.get_my_width_key()),
        (
            "msg_len",
            m.get_my_offset_msg_len(),
            m.get_my_width_msg_len(),
        ),
        ("imm", m.get_my_offset_imm(), m.get_my_width_imm()),
        ("scid", m.get_my_offset_scid(), m.get_my_width_scid()),
        ("aflags", m.get_my_offset_aflags(), m.get_my_width_aflags()),
        (
            "echo_ts",
            m.get_my_offset_echo_ts(),
            m.get_my_width_echo_ts(),
        ),
        (
            "sack_base",
            m.get_my_offset_sack_base(),
            m.get_my_width_sack_base(),
        ),
        (
            "echo_ev",
            m.get_my_offset_echo_ev(),
            m.get_my_width_echo_ev(),
        ),
        (
            "ce_count",
            m.get_my_offset_ce_count(),
            m.get_my_width_ce_count(),
        ),
        ("sack", m.get_my_offset_sack(), m.get_my_width_sack()),
        ("code", m.get_my_offset_code(), m.get_my_width_code()),
        ("aux", m.get_my_offset_aux(), m.get_my_width_aux()),
        ("ox", m.get_my_offset_ox(), m.get_my_width_ox()),
        (
            "ox_scid",
            m.get_my_offset_ox_scid(),
            m.get_my_width_ox_scid(),
        ),
        ("wlog", m.get_my_offset_wlog(), m.get_my_width_wlog()),
        ("isn", m.get_my_offset_isn(), m.get_my_width_isn()),
        (
            "target_qpn",
            m.get_my_offset_target_qpn(),
            m.get_my_width_target_qpn(),
        ),
        (
            "mtu_log",
            m.get_my_offset_mtu_log(),
            m.get_my_width_mtu_log(),
        ),
        (
            "trimmed",
            m.get_my_offset_trimmed(),
            m.get_my_width_trimmed(),
        ),
        (
            "ack_timer",
            m.get_my_offset_ack_timer(),
            m.get_my_width_ack_timer(),
        ),
        ("drop", m.get_my_offset_drop(), m.get_my_width_drop()),
        ("conn", m.get_my_offset_conn(), m.get_my_width_conn()),
        (
            "local_addr",
            m.get_my_offset_local_addr(),
            m.get_my_width_local_addr(),
        ),
    ]
}

/// (bit offset, width) of the [`PktMeta`] field `name`.
pub fn meta_field(name: &str) -> (usize, usize) {
    meta_fields()
        .into_iter()
        .find(|f| f.0 == name)
        .map(|f| (f.1, f.2))
        .unwrap_or_else(|| panic!("no PktMeta field {name}"))
}

/// Total width of [`PktMeta`].
pub fn meta_bits() -> usize {
    PktMeta::BITS
}

/// Slices field `name` out of a packed [`PktMeta`] node.
pub fn meta_get(net: &mut Net, meta: N, name: &str) -> N {
    let (o, w) = meta_field(name);
    net.slice(meta, o, w)
}

/// Packs a [`PktMeta`] node from (field name, node) pairs; fields not given are zero.
pub fn meta_pack(net: &mut Net, fields: &[(&str, N)]) -> N {
    let all = meta_fields();
    let mut parts = Vec::new();
    for (name, _o, w) in all {
        let v = match fields.iter().find(|f| f.0 == name) {
            Some(&(_, n)) => net.resize(n, w),
            None => net.lit(w, 0),
        };
        parts.push(v);
    }
    net.cat(&parts)
}

fn bits_of<const W: usize>(v: &[u64], name: &str) -> Bits<W> {
    let (o, w) = meta_field(name);
    let mut out = vec![0u64; w.div_ceil(64)];
    for i in 0..w {
        if crate::common::netlist::bit(v, o + i) {
            out[i / 64] |= 1 << (i % 64);
        }
    }
    Bits::<W>::from_words(&out)
}

fn put_bits<const W: usize>(v: &mut [u64], name: &str, b: Bits<W>) {
    let (o, w) = meta_field(name);
    let words = b.to_words();
    for i in 0..w {
        crate::common::netlist::set_bit(v, o + i, crate::common::netlist::bit(&words, i));
    }
}

impl ToWords for PktMeta {
    fn to_words(&self) -> Vec<u64> {
        let mut v = vec![0u64; PktMeta::BITS.div_ceil(64)];
        put_bits(&mut v, "peer_mac", self.peer_mac);
        put_bits(&mut v, "peer_ip", self.peer_ip);
        set_field(&mut v, meta_field("ipv6").0, 1, self.ipv6 as u64);
        set_field(&mut v, meta_field("vlan").0, 1, self.vlan as u64);
        put_bits(&mut v, "tci", self.tci);
        put_bits(&mut v, "dscp", self.dscp);
        put_bits(&mut v, "ecn", self.ecn);
        put_bits(&mut v, "ev", self.ev);
        put_bits(&mut v, "ptype", self.ptype);
        put_bits(&mut v, "mbh_flags", self.mbh_flags);
        put_bits(&mut v, "payload_len", self.payload_len);
        put_bits(&mut v, "dcid", self.dcid);
        put_bits(&mut v, "hlen", self.hlen);
        put_bits(&mut v, "psn", self.psn);
        put_bits(&mut v, "ts", self.ts);
        put_bits(&mut v, "opcode", self.opcode);
        put_bits(&mut v, "dflags", self.dflags);
        put_bits(&mut v, "msn", self.msn);
        put_bits(&mut v, "addr", self.addr);
        put_bits(&mut v, "key", self.key);
        put_bits(&mut v, "msg_len", self.msg_len);
        put_bits(&mut v, "imm", self.imm);
        put_bits(&mut v, "scid", self.scid);
        put_bits(&mut v, "aflags", self.aflags);
        put_bits(&mut v, "echo_ts", self.echo_ts);
        put_bits(&mut v, "sack_base", self.sack_base);
        put_bits(&mut v, "echo_ev", self.echo_ev);
        put_bits(&mut v, "ce_count", self.ce_count);
        put_bits(&mut v, "sack", self.sack);
        put_bits(&mut v, "code", self.code);
        put_bits(&mut v, "aux", self.aux);
        set_field(&mut v, meta_field("ox").0, 1, self.ox as u64);
        put_bits(&mut v, "ox_scid", self.ox_scid);
        put_bits(&mut v, "wlog", self.wlog);
        put_bits(&mut v, "isn", self.isn);
        put_bits(&mut v, "target_qpn", self.target_qpn);
        put_bits(&mut v, "mtu_log", self.mtu_log);
        set_field(&mut v, meta_field("trimmed").0, 1, self.trimmed as u64);
        set_field(&mut v, meta_field("ack_timer").0, 1, self.ack_timer as u64);
        put_bits(&mut v, "drop", self.drop);
        put_bits(&mut v, "conn", self.conn);
        put_bits(&mut v, "local_addr", self.local_addr);
        v
    }

    fn from_words(v: &[u64]) -> Self {
        PktMeta {
            peer_mac: bits_of(v, "peer_mac"),
            peer_ip: bits_of(v, "peer_ip"),
            ipv6: get_field(v, meta_field("ipv6").0, 1) == 1,
            vlan: get_field(v, meta_field("vlan").0, 1) == 1,
            tci: bits_of(v, "tci"),
            dscp: bits_of(v, "dscp"),
            ecn: bits_of(v, "ecn"),
            ev: bits_of(v, "ev"),
            ptype: bits_of(v, "ptype"),
            mbh_flags: bits_of(v, "mbh_flags"),
            payload_len: bits_of(v, "payload_len"),
            dcid: bits_of(v, "dcid"),
            hlen: bits_of(v, "hlen"),
            psn: bits_of(v, "psn"),
            ts: bits_of(v, "ts"),
            opcode: bits_of(v, "opcode"),
            dflags: bits_of(v, "dflags"),
            msn: bits_of(v, "msn"),
            addr: bits_of(v, "addr"),
            key: bits_of(v, "key"),
            msg_len: bits_of(v, "msg_len"),
            imm: bits_of(v, "imm"),
            scid: bits_of(v, "scid"),
            aflags: bits_of(v, "aflags"),
            echo_ts: bits_of(v, "echo_ts"),
            sack_base: bits_of(v, "sack_base"),
            echo_ev: bits_of(v, "echo_ev"),
            ce_count: bits_of(v, "ce_count"),
            sack: bits_of(v, "sack"),
            code: bits_of(v, "code"),
            aux: bits_of(v, "aux"),
            ox: get_field(v, meta_field("ox").0, 1) == 1,
            ox_scid: bits_of(v, "ox_scid"),
            wlog: bits_of(v, "wlog"),
            isn: bits_of(v, "isn"),
            target_qpn: bits_of(v, "target_qpn"),
            mtu_log: bits_of(v, "mtu_log"),
            trimmed: get_field(v, meta_field("trimmed").0, 1) == 1,
            ack_timer: get_field(v, meta_field("ack_timer").0, 1) == 1,
            drop: bits_of(v, "drop"),
            conn: bits_of(v, "conn"),
            local_addr: bits_of(v, "local_addr"),
        }
    }
}
