#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Check the ICRC of every RoCEv2 packet in a classic pcap file.

An implementation independent of the module's (kernel/portable/
wookie_icrc.c): zlib's CRC-32 over 8 bytes of ones (the LRH RoCEv2 lacks),
the IP header with its variant fields set to ones, the UDP header with its
checksum set to ones, the BTH with resv8a set to ones, and the rest of the
packet up to the ICRC (IBTA 1.4 Annex A17.3.3).

usage: icrc_check.py FILE.pcap
Prints one line per source address: "SRC: N packets, M bad ICRC"; exits 1
if any ICRC is bad or no RoCEv2 packet is found.
"""
import struct
import sys
import zlib

ROCE_PORT = 4791


def masked_icrc_input(ip: bytes) -> bytes:
    """The bytes the ICRC covers, variant fields masked; ip starts at IP."""
    if ip[0] >> 4 == 4:
        ihl = (ip[0] & 0xF) * 4
        if ihl != 20:
            raise ValueError("IPv4 options")
        hdr = bytearray(ip[:28])
        hdr[1] = 0xFF                  # TOS
        hdr[8] = 0xFF                  # TTL
        hdr[10:12] = b"\xff\xff"       # header checksum
        udp = 20
    elif ip[0] >> 4 == 6:
        hdr = bytearray(ip[:48])
        hdr[0] |= 0x0F                 # traffic class, low nibble...
        hdr[1:4] = b"\xff\xff\xff"     # ...its high nibble and flow label
        hdr[7] = 0xFF                  # hop limit
        udp = 40
    else:
        raise ValueError("not IP")
    hdr[udp + 6:udp + 8] = b"\xff\xff"  # UDP checksum
    bth = bytearray(ip[udp + 8:udp + 20])
    bth[4] = 0xFF                      # resv8a
    return b"\xff" * 8 + bytes(hdr[:udp + 8]) + bytes(bth) + ip[udp + 20:-4]


def packets(path):
    """(source address, IP bytes) of each UDP/4791 packet in the pcap."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    linktype = struct.unpack(endian + "I", data[20:24])[0]
    if linktype != 1:
        raise SystemExit(f"{path}: link type {linktype}, want Ethernet")
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack(endian + "I", data[off + 8:off + 12])[0]
        frame = data[off + 16:off + 16 + incl]
        off += 16 + incl
        ethertype = struct.unpack(">H", frame[12:14])[0]
        ip = frame[14:]
        if ethertype == 0x0800 and ip[9] == 17:
            ihl = (ip[0] & 0xF) * 4
            total = struct.unpack(">H", ip[2:4])[0]
            ip = ip[:total]
            src = ".".join(str(b) for b in ip[12:16])
            udp = ihl
        elif ethertype == 0x86DD and ip[6] == 17:
            total = 40 + struct.unpack(">H", ip[4:6])[0]
            ip = ip[:total]
            src = ip[8:24].hex()
            udp = 40
        else:
            continue
        if struct.unpack(">H", ip[udp + 2:udp + 4])[0] == ROCE_PORT:
            yield src, ip


def main():
    counts = {}
    for src, ip in packets(sys.argv[1]):
        good, bad = counts.get(src, (0, 0))
        want = zlib.crc32(masked_icrc_input(ip)) & 0xFFFFFFFF
        got = struct.unpack("<I", ip[-4:])[0]
        counts[src] = (good + (want == got), bad + (want != got))
    for src, (good, bad) in sorted(counts.items()):
        print(f"{src}: {good + bad} packets, {bad} bad ICRC")
    if not counts or any(bad for _, bad in counts.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
