#!/usr/bin/env python3
"""Golden byte vectors for the MetaRoCE v0.1 wire formats and the RoCEv2 baseline.

Built straight from the layout tables of the specification (sections 2 and 3) with nothing but the Python
standard library (struct + zlib.crc32), independently of the Rust code. Run from anywhere:

    python3 tests/vectors/gen_vectors.py          # rewrites tests/vectors/*.hex
    python3 tests/vectors/gen_vectors.py --check  # exits 1 if a file would change

Each vector is written as <name>.hex: '#' comment lines describing the field values, then the bytes as lowercase
hex, 16 bytes per line, separated by spaces.
"""

import os
import struct
import sys
import zlib

OUT_DIR = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------------------------------------------
# Canonical field values (the Rust tests in proto/tests/wire_vectors.rs use the same values).

ETH_SRC = bytes([0x02, 0x00, 0x00, 0x00, 0x00, 0x01])
ETH_DST = bytes([0x02, 0x00, 0x00, 0x00, 0x00, 0x02])
VLAN_TCI = 0x6064  # PCP 3, DEI 0, VID 100
IP4_SRC = bytes([10, 0, 0, 1])
IP4_DST = bytes([10, 0, 0, 2])
IP6_SRC = bytes.fromhex("fd000000000000000000000000000001")
IP6_DST = bytes.fromhex("fd000000000000000000000000000002")
DSCP_DATA, DSCP_CTRL, DSCP_TRIM = 26, 46, 10
ECT0 = 0b10
TTL = 64
FLOW_LABEL = 0x12345
UDP_PORT = 4792
ROCE_PORT = 4791
EV = 0x1234
UDP_SRC = 0xC000 | (EV & 0x3FFF)  # MR-ENC-17: 0xd234

# Packet types, flags, opcodes, codes (spec 3.2 .. 3.10)
T_DATA, T_ACK, T_NACK, T_CTRL = 1, 2, 3, 4
F_SYN, F_AR, F_RTX = 0x80, 0x40, 0x20
OP_WRITE, OP_WRITE_IMM, OP_SEND, OP_SEND_IMM = 0x01, 0x02, 0x03, 0x04
DF_FIRST, DF_LAST, DF_SE = 0x80, 0x40, 0x20
A_ECE, A_DUP = 0x80, 0x40
NACK_TRIMMED, NACK_RNR = 1, 3
CTRL_CLOSE = 2

# ---------------------------------------------------------------------------------------------------------------
# Header builders


def ethernet(ethertype, vlan=None, src=ETH_SRC, dst=ETH_DST):
    if vlan is None:
        return dst + src + struct.pack(">H", ethertype)
    return dst + src + struct.pack(">HHH", 0x8100, vlan, ethertype)


def inet_checksum(data):
    if len(data) % 2:
        data += b"\x00"
    s = sum(struct.unpack(">%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def ipv4(payload_len, dscp, ecn=ECT0, ttl=TTL, ident=0, src=IP4_SRC, dst=IP4_DST):
    """IHL 5, DF set, protocol 17, valid checksum (MR-ENC-5)."""
    tos = (dscp << 2) | ecn
    h = struct.pack(">BBHHHBBH4s4s", 0x45, tos, 20 + payload_len, ident, 0x4000, ttl, 17, 0, src, dst)
    return h[:10] + struct.pack(">H", inet_checksum(h)) + h[12:]


def ipv6(payload_len, dscp, ecn=ECT0, flow=FLOW_LABEL, hop=TTL, src=IP6_SRC, dst=IP6_DST):
    """Fixed header, next header 17 (MR-ENC-11)."""
    w0 = (6 << 28) | (dscp << 22) | (ecn << 20) | (flow & 0xFFFFF)
    return struct.pack(">IHBB16s16s", w0, payload_len, 17, hop, src, dst)


def udp(payload_len, sport=UDP_SRC, dport=UDP_PORT):
    """Checksum 0 (MR-ENC-19)."""
    return struct.pack(">HHHH", sport, dport, 8 + payload_len, 0)


def mbh(ptype, flags, payload_len, dcid, hlen, psn, ts):
    """MetaRoCE base header, 16 bytes (spec 3.2)."""
    return struct.pack(">BBH", (1 << 4) | ptype, flags, payload_len) + dcid.to_bytes(3, "big") + struct.pack(
        ">BII", hlen, psn, ts
    )


def data_hdr(opcode, dflags, msn, addr, key, msg_len, imm=None):
    """DATA header, 24 bytes + 4-byte immediate for WRITE_IMM/SEND_IMM (spec 3.3)."""
    h = struct.pack(">BBHIQII", opcode, dflags, 0, msn, addr, key, msg_len)
    if opcode in (OP_WRITE_IMM, OP_SEND_IMM):
        h += struct.pack(">I", imm)
    return h


def open_ext(scid, wlog, isn, target_qpn, mtu_log):
    """Open extension, 12 bytes (spec 3.7)."""
    return scid.to_bytes(3, "big") + struct.pack(">BI", wlog, isn) + target_qpn.to_bytes(3, "big") + bytes([mtu_log])


def sack_bitmap(bits):
    """Bit i is byte i/8, mask 1 << (i % 8) (spec 3.8)."""
    b = bytearray(32)
    for i in bits:
        b[i // 8] |= 1 << (i % 8)
    return bytes(b)


def ack_hdr(scid, aflags, echo_ts, sack_base, echo_ev, ce_count, bits):
    """ACK header, 48 bytes (spec 3.8)."""
    return (
        scid.to_bytes(3, "big")
        + struct.pack(">BIIHH", aflags, echo_ts, sack_base, echo_ev, ce_count)
        + sack_bitmap(bits)
    )


def nack_hdr(scid, code, echo_ts, aux):
    """NACK header, 12 bytes (spec 3.9)."""
    return scid.to_bytes(3, "big") + struct.pack(">BII", code, echo_ts, aux)


ctrl_hdr = nack_hdr  # same layout (spec 3.10)


def bth(opcode, se, mig, pad, tver, pkey, fecn, becn, dest_qp, ack_req, psn):
    """RoCEv2 base transport header, 12 bytes (spec 9)."""
    b1 = (se << 7) | (mig << 6) | (pad << 4) | tver
    b4 = (fecn << 7) | (becn << 6)
    return (
        struct.pack(">BBHB", opcode, b1, pkey, b4)
        + dest_qp.to_bytes(3, "big")
        + bytes([ack_req << 7])
        + psn.to_bytes(3, "big")
    )


def reth(va, rkey, dma_len):
    return struct.pack(">QII", va, rkey, dma_len)


def aeth(syndrome, msn):
    return bytes([syndrome]) + msn.to_bytes(3, "big")


# ---------------------------------------------------------------------------------------------------------------
# Integrity checks


def masked_ip_udp(ip_and_udp, v6):
    """IP header with its variant fields set to all ones, UDP header with the checksum set to all ones."""
    b = bytearray(ip_and_udp)
    if v6:
        b[0] |= 0x0F  # traffic class, high nibble
        b[1] = b[2] = b[3] = 0xFF  # traffic class low nibble + flow label
        b[7] = 0xFF  # hop limit
        u = 40
    else:
        b[1] = 0xFF  # DSCP/ECN
        b[8] = 0xFF  # TTL
        b[10] = b[11] = 0xFF  # header checksum
        u = 20
    b[u + 6] = b[u + 7] = 0xFF  # UDP checksum
    return bytes(b)


def metaroce_icv(ip_datagram_wo_icv, v6):
    """MR-WIRE-ICV: CRC-32 over masked IP + masked UDP + UDP payload before the ICV, written big-endian."""
    hl = 48 if v6 else 28
    covered = masked_ip_udp(ip_datagram_wo_icv[:hl], v6) + ip_datagram_wo_icv[hl:]
    return struct.pack(">I", zlib.crc32(covered) & 0xFFFFFFFF)


def roce_icrc(ip_datagram_wo_icrc, v6):
    """RoCEv2 ICRC: CRC-32 over 8 x 0xFF + masked IP + masked UDP + BTH (byte 4 = 0xFF) + rest.

    Byte order: least-significant byte first, as the Linux rxe driver stores ~crc32_le(...) as a native
    little-endian u32.
    """
    hl = 48 if v6 else 28
    b = bytearray(ip_datagram_wo_icrc)
    b[hl + 4] = 0xFF  # BTH FECN/BECN/resv6
    covered = b"\xff" * 8 + masked_ip_udp(bytes(b[:hl]), v6) + bytes(b[hl:])
    return struct.pack("<I", zlib.crc32(covered) & 0xFFFFFFFF)


# ---------------------------------------------------------------------------------------------------------------
# Frames


def metaroce_frame(mr_headers, payload, dscp, v6=False, vlan=None, sport=UDP_SRC, reverse=False):
    """reverse=True: sent by the second host (02:00:00:00:00:02, 10.0.0.2) to the first."""
    udp_payload_len = len(mr_headers) + len(payload) + 4
    u = udp(udp_payload_len, sport=sport)
    macs = dict(src=ETH_DST, dst=ETH_SRC) if reverse else {}
    if v6:
        ip = ipv6(8 + udp_payload_len, dscp)
        eth = ethernet(0x86DD, vlan, **macs)
    elif reverse:
        ip = ipv4(8 + udp_payload_len, dscp, src=IP4_DST, dst=IP4_SRC)
        eth = ethernet(0x0800, vlan, **macs)
    else:
        ip = ipv4(8 + udp_payload_len, dscp)
        eth = ethernet(0x0800, vlan)
    dgram = ip + u + mr_headers + payload
    return eth + dgram + metaroce_icv(dgram, v6)


def roce_frame(transport_headers, payload, dscp, sport=0xC0DE):
    pad = (4 - len(payload) % 4) % 4
    udp_payload_len = len(transport_headers) + len(payload) + pad + 4
    ip = ipv4(8 + udp_payload_len, dscp)
    dgram = ip + udp(udp_payload_len, sport=sport, dport=ROCE_PORT) + transport_headers + payload + b"\x00" * pad
    return ethernet(0x0800) + dgram + roce_icrc(dgram, False)


PAYLOAD16 = bytes(range(16))
PAYLOAD13 = bytes(range(0xA0, 0xA0 + 13))
SACK_BITS = [0, 1, 9, 31, 100, 255]


def vectors():
    v = {}

    # --- headers alone ---
    v["mbh"] = (
        ["MetaRoCE base header: ver 1, type 1 (DATA), flags 0x60 (AR|RTX), payload_len 1024,",
         "dcid 0x0a0b0c, hlen 10, psn 0x89abcdef, ts 0x01234567"],
        mbh(T_DATA, F_AR | F_RTX, 1024, 0x0A0B0C, 10, 0x89ABCDEF, 0x01234567),
    )
    v["data"] = (
        ["DATA header: opcode 0x01 (WRITE), dflags 0xc0 (FIRST|LAST), reserved 0, msn 5,",
         "addr 0x00007f0012345000, key 0x1234abcd, msg_len 1024"],
        data_hdr(OP_WRITE, DF_FIRST | DF_LAST, 5, 0x00007F0012345000, 0x1234ABCD, 1024),
    )
    v["data_imm"] = (
        ["DATA header with immediate: opcode 0x04 (SEND_IMM), dflags 0x60 (LAST|SE), msn 6,",
         "addr 0x800 (byte offset), key 3 (SSN), msg_len 2048, imm 0xdeadbeef"],
        data_hdr(OP_SEND_IMM, DF_LAST | DF_SE, 6, 0x800, 3, 2048, 0xDEADBEEF),
    )
    v["open"] = (
        ["Open extension: scid 0x00beef, wlog 12, isn 0x89abcdef, target_qpn 0x000011, mtu_log 12"],
        open_ext(0x00BEEF, 12, 0x89ABCDEF, 0x000011, 12),
    )
    v["ack"] = (
        ["ACK header: scid 0x0c0d0e, aflags 0x80 (ECE), echo_ts 0x01234567, sack_base 0x00001000,",
         "echo_ev 0xd234, ce_count 3, sack bits {0, 1, 9, 31, 100, 255}"],
        ack_hdr(0x0C0D0E, A_ECE, 0x01234567, 0x1000, UDP_SRC, 3, SACK_BITS),
    )
    v["nack"] = (
        ["NACK header: scid 0x0c0d0e, code 3 (RNR), echo_ts 0x01234567, aux 100 (retry after 100 us)"],
        nack_hdr(0x0C0D0E, NACK_RNR, 0x01234567, 100),
    )
    v["ctrl"] = (
        ["CTRL header: scid 0x00beef, code 2 (CLOSE), echo_ts 0x76543210, aux 0x89abce00 (closer's next PSN)"],
        ctrl_hdr(0x00BEEF, CTRL_CLOSE, 0x76543210, 0x89ABCE00),
    )
    v["bth"] = (
        ["RoCEv2 BTH: opcode 0x0a (RC RDMA_WRITE_ONLY), se 0, mig_req 1, pad_cnt 0, tver 0, pkey 0xffff,",
         "fecn 0, becn 0, dest_qp 0x000011, ack_req 1, psn 0x123456"],
        bth(0x0A, 0, 1, 0, 0, 0xFFFF, 0, 0, 0x000011, 1, 0x123456),
    )
    v["reth"] = (
        ["RoCEv2 RETH: va 0x00007f0012345000, rkey 0x1234abcd, dma_len 1024"],
        reth(0x00007F0012345000, 0x1234ABCD, 1024),
    )
    v["aeth"] = (
        ["RoCEv2 AETH: syndrome 0x62 (NAK remote access error), msn 0x000042"],
        aeth(0x62, 0x000042),
    )
    v["ipv4"] = (
        ["IPv4: version 4, ihl 5, dscp 26, ecn 2 (ECT0), total_len 120 (payload 100), ident 0, DF,",
         "ttl 64, protocol 17, valid checksum, src 10.0.0.1, dst 10.0.0.2"],
        ipv4(100, DSCP_DATA),
    )
    v["ipv6"] = (
        ["IPv6: version 6, dscp 26, ecn 2, flow_label 0x12345, payload_len 100, next_header 17,",
         "hop_limit 64, src fd00::1, dst fd00::2"],
        ipv6(100, DSCP_DATA),
    )
    v["udp"] = (
        ["UDP: src_port 0xd234 (EV 0x1234), dst_port 4792, length 108 (payload 100), checksum 0"],
        udp(100),
    )
    v["ethernet"] = (
        ["Ethernet II: dst 02:00:00:00:00:02, src 02:00:00:00:00:01, ethertype 0x0800"],
        ethernet(0x0800),
    )
    v["ethernet_vlan"] = (
        ["Ethernet II + 802.1Q: dst 02:00:00:00:00:02, src 02:00:00:00:00:01, tpid 0x8100,",
         "tci 0x6064 (PCP 3, VID 100), ethertype 0x86dd"],
        ethernet(0x86DD, VLAN_TCI),
    )

    # --- whole MetaRoCE frames ---
    l2_desc = ["L2: dst 02:00:00:00:00:02, src 02:00:00:00:00:01; UDP src 0xd234, dst 4792, checksum 0"]
    data_mr = mbh(T_DATA, 0, 16, 0x0A0B0C, 10, 0x89ABCDEF, 0x01234567) + data_hdr(
        OP_WRITE, DF_FIRST | DF_LAST, 5, 0x00007F0012345000, 0x1234ABCD, 16
    )
    data_desc = [
        "MBH: type DATA, flags 0, payload_len 16, dcid 0x0a0b0c, hlen 10, psn 0x89abcdef, ts 0x01234567",
        "DATA: WRITE, FIRST|LAST, msn 5, addr 0x00007f0012345000, key 0x1234abcd, msg_len 16",
        "payload: 00 01 .. 0f (16 bytes); ICV big-endian",
    ]
    v["frame_data_ipv4"] = (
        ["MetaRoCE DATA frame over IPv4 (dscp 26, ecn 2, ttl 64, 10.0.0.1 -> 10.0.0.2)"] + l2_desc + data_desc,
        metaroce_frame(data_mr, PAYLOAD16, DSCP_DATA),
    )
    v["frame_data_ipv4_vlan"] = (
        ["MetaRoCE DATA frame over IPv4 with 802.1Q tag tci 0x6064"] + l2_desc + data_desc,
        metaroce_frame(data_mr, PAYLOAD16, DSCP_DATA, vlan=VLAN_TCI),
    )
    v["frame_data_ipv6"] = (
        ["MetaRoCE DATA frame over IPv6 (dscp 26, ecn 2, flow 0x12345, hop 64, fd00::1 -> fd00::2)"]
        + l2_desc
        + data_desc,
        metaroce_frame(data_mr, PAYLOAD16, DSCP_DATA, v6=True),
    )
    syn_mr = (
        mbh(T_DATA, F_SYN, 16, 0, 14, 0x89ABCDEF, 0x01234567)
        + data_hdr(OP_WRITE_IMM, DF_FIRST | DF_LAST, 0, 0x00007F0012345000, 0x1234ABCD, 16, 0xDEADBEEF)
        + open_ext(0x00BEEF, 12, 0x89ABCDEF, 0x000011, 12)
    )
    v["frame_data_syn_ipv4"] = (
        ["MetaRoCE first DATA of a connection (0-RTT open) over IPv4 (dscp 26)"]
        + l2_desc
        + [
            "MBH: type DATA, flags 0x80 (SYN), payload_len 16, dcid 0 (unknown), hlen 14, psn 0x89abcdef,",
            "ts 0x01234567",
            "DATA: WRITE_IMM, FIRST|LAST, msn 0, addr 0x00007f0012345000, key 0x1234abcd, msg_len 16,",
            "imm 0xdeadbeef",
            "Open: scid 0x00beef, wlog 12, isn 0x89abcdef, target_qpn 0x000011, mtu_log 12",
            "payload: 00 01 .. 0f (16 bytes); ICV big-endian",
        ],
        metaroce_frame(syn_mr, PAYLOAD16, DSCP_DATA),
    )
    ack_mr = mbh(T_ACK, 0, 0, 0x00BEEF, 16, 0x89ABCDF0, 0x00ABCDEF) + ack_hdr(
        0x0A0B0C, A_ECE, 0x01234567, 0x89ABCDF0, UDP_SRC, 3, SACK_BITS
    )
    v["frame_ack_ipv4"] = (
        ["MetaRoCE ACK frame over IPv4 (dscp 46, ecn 2), UDP src 0xc0de (the acker's EV 0x00de)",
         "MBH: type ACK, flags 0, payload_len 0, dcid 0x00beef, hlen 16, psn (CACK) 0x89abcdf0, ts 0x00abcdef",
         "ACK: scid 0x0a0b0c, ECE, echo_ts 0x01234567, sack_base 0x89abcdf0, echo_ev 0xd234, ce_count 3,",
         "sack bits {0, 1, 9, 31, 100, 255}; no payload; ICV big-endian"],
        metaroce_frame(ack_mr, b"", DSCP_CTRL, sport=0xC0DE),
    )
    nack_mr = mbh(T_NACK, 0, 0, 0x00BEEF, 7, 0x89ABCDEF, 0x00ABCDEF) + nack_hdr(
        0x0A0B0C, NACK_TRIMMED, 0x01234567, 0
    )
    v["frame_nack_trimmed_ipv4"] = (
        ["MetaRoCE NACK (TRIMMED) frame over IPv4 (dscp 46, ecn 2), UDP src 0xc0de",
         "MBH: type NACK, flags 0, payload_len 0, dcid 0x00beef, hlen 7, psn (nacked) 0x89abcdef, ts 0x00abcdef",
         "NACK: scid 0x0a0b0c, code 1 (TRIMMED), echo_ts 0x01234567, aux 0; ICV big-endian"],
        metaroce_frame(nack_mr, b"", DSCP_CTRL, sport=0xC0DE),
    )
    ctrl_mr = mbh(T_CTRL, 0, 0, 0x0A0B0C, 7, 0x89ABCE00, 0x01234567) + ctrl_hdr(
        0x00BEEF, CTRL_CLOSE, 0x00ABCDEF, 0x89ABCE00
    )
    v["frame_ctrl_close_ipv4"] = (
        ["MetaRoCE CTRL CLOSE frame over IPv4 (dscp 46, ecn 2), UDP src 0xd234",
         "MBH: type CTRL, flags 0, payload_len 0, dcid 0x0a0b0c, hlen 7, psn (next PSN) 0x89abce00,",
         "ts 0x01234567",
         "CTRL: scid 0x00beef, code 2 (CLOSE), echo_ts 0x00abcdef, aux 0x89abce00; ICV big-endian"],
        metaroce_frame(ctrl_mr, b"", DSCP_CTRL),
    )
    # A trimming switch cut frame_data_ipv4 to 64 bytes (the base header ends at byte 58), re-marked DSCP 10,
    # fixed the IP and UDP lengths and the IPv4 checksum. The ICV is gone.
    full = v["frame_data_ipv4"][1]
    cut = bytearray(full[:64])
    ip_len = 64 - 14
    cut[14:34] = ipv4(ip_len - 20, DSCP_TRIM)
    cut[34 + 4:34 + 6] = struct.pack(">H", ip_len - 20)
    v["frame_trimmed_ipv4"] = (
        ["frame_data_ipv4 after a trimming switch: cut to 64 bytes, dscp 10 (trim), ecn 2,",
         "IPv4 total_len 50 and checksum fixed, UDP length 30; MBH intact (payload_len still 16);",
         "6 bytes of the DATA header survive; no ICV"],
        bytes(cut),
    )

    # --- the worked examples of the specification (sections 3.13 and 3.14), rebuilt from their field values ---
    ex_mr = (
        mbh(T_DATA, F_SYN, 16, 0, 13, 0x1A2B3C4D, 0x075BCD15)
        + data_hdr(OP_WRITE, DF_FIRST | DF_LAST, 0, 0x00007F0000001000, 0x0000A001, 16)
        + open_ext(0x00ABCD, 12, 0x1A2B3C4D, 0x000011, 12)
    )
    v["spec_example_data_syn"] = (
        ["Specification 3.13: first DATA packet of a connection, IPv4 (dscp 26, ecn 2), UDP src 0xd234",
         "MBH: DATA, SYN, payload_len 16, dcid 0, hlen 13, psn 0x1a2b3c4d, ts 0x075bcd15",
         "DATA: WRITE, FIRST|LAST, msn 0, addr 0x00007f0000001000, key 0x0000a001, msg_len 16",
         "Open: scid 0x00abcd, wlog 12, isn 0x1a2b3c4d, target_qpn 0x000011, mtu_log 12",
         "payload: 'MetaRoCE v0.1 ok'; ICV 0x3c423691"],
        metaroce_frame(ex_mr, b"MetaRoCE v0.1 ok", DSCP_DATA),
    )
    received = [i for i in range(0, 237) if 1064 + i not in (1100, 1101, 1200)]
    ex_ack = mbh(T_ACK, 0, 0, 0x00ABCD, 16, 1000, 0x075BE000) + ack_hdr(
        0x000777, A_ECE, 0x075BD000, 1064, UDP_SRC, 3, received
    )
    v["spec_example_ack"] = (
        ["Specification 3.14: ACK from 10.0.0.2 to 10.0.0.1 (dscp 46, ecn 2), UDP src 0xd234",
         "MBH: ACK, flags 0, payload_len 0, dcid 0x00abcd, hlen 16, psn (CACK) 1000, ts 0x075be000",
         "ACK: scid 0x000777, ECE, echo_ts 0x075bd000, sack_base 1064, echo_ev 0xd234, ce_count 3,",
         "sack bits 0..236 set except 36, 37, 136 (PSNs 1100, 1101, 1200 missing); ICV 0xbfcd6c42"],
        metaroce_frame(ex_ack, b"", DSCP_CTRL, reverse=True),
    )

    # --- RoCEv2 frames ---
    v["roce_write_only_ipv4"] = (
        ["RoCEv2 RC RDMA_WRITE_ONLY over IPv4 (dscp 26, ecn 2), UDP src 0xc0de, dst 4791",
         "BTH: opcode 0x0a, se 0, mig_req 1, pad_cnt 3, tver 0, pkey 0xffff, fecn 0, becn 0,",
         "dest_qp 0x000011, ack_req 1, psn 0x123456",
         "RETH: va 0x00007f0012345000, rkey 0x1234abcd, dma_len 13",
         "payload: a0 a1 .. ac (13 bytes) + 3 zero pad bytes",
         "ICRC: CRC-32 over 8 x ff + masked IP/UDP/BTH + rest, least-significant byte first (as Linux rxe)"],
        roce_frame(
            bth(0x0A, 0, 1, 3, 0, 0xFFFF, 0, 0, 0x000011, 1, 0x123456) + reth(0x00007F0012345000, 0x1234ABCD, 13),
            PAYLOAD13,
            DSCP_DATA,
        ),
    )
    v["spec_example_roce_write_only"] = (
        ["Specification 9.9: the 16-byte write of 3.13 as RoCEv2 RC RDMA_WRITE_ONLY, IPv4 (dscp 26, ecn 2),",
         "UDP src 0xc132 (QPN-derived), dst 4791",
         "BTH: opcode 0x0a, se 0, mig_req 1, pad_cnt 0, tver 0, pkey 0xffff, dest_qp 0x000011, ack_req 1,",
         "psn 0x2b3c4d",
         "RETH: va 0x00007f0000001000, rkey 0x0000a001, dma_len 16; payload 'MetaRoCE v0.1 ok'",
         "ICRC 0x71a7294f, sent least-significant byte first: 4f 29 a7 71"],
        roce_frame(
            bth(0x0A, 0, 1, 0, 0, 0xFFFF, 0, 0, 0x000011, 1, 0x2B3C4D) + reth(0x00007F0000001000, 0x0000A001, 16),
            b"MetaRoCE v0.1 ok",
            DSCP_DATA,
            sport=0xC132,
        ),
    )
    v["roce_ack_ipv4"] = (
        ["RoCEv2 RC ACKNOWLEDGE over IPv4 (dscp 46, ecn 2), UDP src 0xc0df, dst 4791",
         "BTH: opcode 0x11, se 0, mig_req 1, pad_cnt 0, tver 0, pkey 0xffff, fecn 0, becn 0,",
         "dest_qp 0x000012, ack_req 0, psn 0x123456",
         "AETH: syndrome 0x1f (ACK, unlimited credit), msn 0x000001",
         "ICRC least-significant byte first (as Linux rxe)"],
        roce_frame(
            bth(0x11, 0, 1, 0, 0, 0xFFFF, 0, 0, 0x000012, 0, 0x123456) + aeth(0x1F, 1),
            b"",
            DSCP_CTRL,
            sport=0xC0DF,
        ),
    )
    return v


def render(comments, data):
    lines = ["# " + c for c in comments]
    lines.append("# %d bytes" % len(data))
    for i in range(0, len(data), 16):
        lines.append(" ".join("%02x" % b for b in data[i:i + 16]))
    return "\n".join(lines) + "\n"


def main():
    check = "--check" in sys.argv[1:]
    changed = []
    for name, (comments, data) in sorted(vectors().items()):
        path = os.path.join(OUT_DIR, name + ".hex")
        text = render(comments, data)
        old = None
        if os.path.exists(path):
            with open(path) as f:
                old = f.read()
        if old != text:
            changed.append(name)
            if not check:
                with open(path, "w") as f:
                    f.write(text)
    if check and changed:
        print("vectors out of date: " + ", ".join(changed))
        return 1
    print(("would change: " if check else "written: ") + (", ".join(changed) if changed else "nothing"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
