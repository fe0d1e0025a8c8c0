#!/usr/bin/env python3
"""Recompute the RoCEv2 ICRC of every packet in a pcap with scapy's RoCE layer and fail on any mismatch.

This is an independent check of the reference model's RoCEv2 encoder (spec section 9.4, MR-ROCE-10 and MR-ROCE-11):
scapy (scapy.contrib.roce, BTH.compute_icrc) masks the variant fields, prepends the 8 0xFF bytes that stand for
the InfiniBand LRH, runs CRC-32 and appends the result least-significant byte first. The script compares that
with the 4 bytes at the end of each packet's UDP payload.

Usage:
    roce_icrc_check.py CAPTURE.pcap [--port 4791] [--expect N]
    roce_icrc_check.py --self-test

Exit status: 0 if every packet is a RoCEv2 packet whose ICRC matches (and, with --expect, there are exactly N
packets); 1 on any mismatch or undecodable packet; 2 on usage errors, an unreadable capture, or when scapy is missing.
"""

import argparse
import struct
import sys
import tempfile
import zlib

try:
    import scapy
    from scapy.all import Ether, IP, IPv6, UDP, Raw, rdpcap, wrpcap  # noqa: F401
    from scapy.contrib.roce import BTH, AETH, cnp  # noqa: F401
    from scapy.compat import raw
    from scapy.packet import bind_layers
    from scapy.error import Scapy_Exception
except ImportError as exc:  # pragma: no cover - reported to the caller
    print(f"roce_icrc_check: scapy is not available: {exc}", file=sys.stderr)
    sys.exit(2)


def check_packet(index, pkt, port):
    """Returns (ok, message) for one packet (index is 1-based, as tshark's frame.number)."""
    if UDP not in pkt:
        return False, f"frame {index}: no UDP layer"
    udp = pkt[UDP]
    if udp.dport != port:
        return False, f"frame {index}: UDP destination port {udp.dport}, expected {port}"
    if BTH not in pkt:
        return False, f"frame {index}: scapy did not decode a BTH"
    bth = pkt[BTH]
    udp_payload = raw(udp.payload)
    if len(udp_payload) < 12 + 4:
        return False, f"frame {index}: UDP payload of {len(udp_payload)} bytes is too short for BTH + ICRC"
    stored = udp_payload[-4:]
    computed = bth.compute_icrc(None)
    opcode = bth.opcode
    if stored == computed:
        return True, f"frame {index}: opcode 0x{opcode:02x} qp 0x{bth.dqpn:06x} psn {bth.psn} icrc {stored.hex()} ok"
    msg = (f"frame {index}: opcode 0x{opcode:02x} ICRC MISMATCH: packet carries {stored.hex()}, "
           f"scapy computes {computed.hex()}")
    if stored == computed[::-1]:
        msg += " (same CRC value, opposite byte order: scapy appends it least-significant byte first)"
    return False, msg


def check_file(path, port, expect):
    try:
        packets = rdpcap(path)
    except (OSError, ValueError, Scapy_Exception) as exc:
        print(f"cannot read {path}: {exc}", file=sys.stderr)
        return 2
    failures = 0
    for i, pkt in enumerate(packets, start=1):
        ok, msg = check_packet(i, pkt, port)
        print(msg)
        if not ok:
            failures += 1
    if expect is not None and len(packets) != expect:
        print(f"expected {expect} packets, found {len(packets)}")
        failures += 1
    if not packets:
        print("no packets in capture")
        failures += 1
    print(f"scapy {scapy.VERSION}: {len(packets)} packets, {failures} failures")
    return 0 if failures == 0 else 1


def self_test():
    """Checks the checker: scapy-built packets pass, a flipped payload bit and a byte-swapped ICRC fail."""
    base = (Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
            / IP(src="10.0.0.1", dst="10.0.0.2", tos=0x68, ttl=64, flags="DF")
            / UDP(sport=0xC123, dport=4791, chksum=0))
    good = [
        base / BTH(opcode=0x0A, dqpn=0x12, psn=7) / Raw(bytes(16) + b"payload!"),
        base / BTH(opcode=0x11, dqpn=0x12, psn=7) / AETH(syndrome=0, msn=1),
        base / cnp(0x12),
    ]
    v6 = (Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") / IPv6(src="fd00::1", dst="fd00::2", tc=0x68, fl=0x12345, hlim=64)
          / UDP(sport=0xC001, dport=4791, chksum=0) / BTH(opcode=0x04, dqpn=3, psn=1) / Raw(b"x" * 8))
    good.append(v6)
    frames = [Ether(raw(p)) for p in good]
    # Independent cross-check of scapy's own IPv4 result with zlib.
    f0 = raw(good[0])
    ip = bytearray(f0[14:34])
    ip[1] = 0xFF
    ip[8] = 0xFF
    ip[10:12] = b"\xff\xff"
    udp = bytearray(f0[34:42])
    udp[6:8] = b"\xff\xff"
    bth = bytearray(f0[42:-4])
    bth[4] = 0xFF
    crc = zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(bth)) & 0xFFFFFFFF
    assert f0[-4:] == struct.pack("<I", crc), "scapy's ICRC disagrees with the zlib cross-check"
    with tempfile.TemporaryDirectory() as d:
        ok_path = f"{d}/ok.pcap"
        wrpcap(ok_path, frames)
        assert check_file(ok_path, 4791, len(frames)) == 0, "valid packets rejected"
        flipped = bytearray(raw(good[0]))
        flipped[-6] ^= 0x01
        swapped = bytearray(raw(good[1]))
        swapped[-4:] = swapped[-4:][::-1]
        bad_path = f"{d}/bad.pcap"
        wrpcap(bad_path, [Ether(bytes(flipped)), Ether(bytes(swapped))])
        assert check_file(bad_path, 4791, 2) == 1, "corrupted packets accepted"
    print("self-test passed")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pcap", nargs="?", help="capture to check")
    ap.add_argument("--port", type=int, default=4791, help="RoCEv2 UDP destination port (default 4791)")
    ap.add_argument("--expect", type=int, default=None, help="exact number of packets expected")
    ap.add_argument("--self-test", action="store_true", help="check the checker on scapy-built packets")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    if not args.pcap:
        ap.print_usage(sys.stderr)
        return 2
    if args.port != 4791:
        bind_layers(UDP, BTH, dport=args.port)
    return check_file(args.pcap, args.port, args.expect)


if __name__ == "__main__":
    sys.exit(main())
