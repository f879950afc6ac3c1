// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// RoCEv2 packets for roce_inject, good and deliberately malformed: the
// transport part (BTH to pad) from the portable wire code, wrapped in IPv4
// or IPv6 and UDP with the ICRC of kernel/portable/wookie_icrc.c (or a
// wrong one).  Header-only, no I/O, so that it can be tested on its own.

#ifndef WOOKIE_ROCE_PACKET_H
#define WOOKIE_ROCE_PACKET_H

#include <netinet/in.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "wookie_icrc.h"
#include "wookie_wire.h"
}

namespace roce {

using Bytes = std::vector<uint8_t>;

// The fields a packet kind may use; each kind says which it reads.
struct Params {
	uint32_t qpn = 0;
	uint32_t psn = 0;
	// Payload bytes (SEND, WRITE, READ response) or DMA length (READ).
	int64_t len = -1;
	uint32_t rkey = 0;
	uint64_t va = 0;
	// Length of the target MR from va on (write-out-of-range).
	uint64_t mr_len = 4096;
	uint32_t qkey = 0x11111111;
	uint32_t src_qpn = 0x123;
	uint32_t msn = 0;
	// psn-far: added to psn.
	uint32_t far = 0x400000;
	int opcode = -1;
	int syndrome = -1;
	int pkey = -1;
	int tver = -1;
	// truncated: bytes of the transport part kept.
	int cut = -1;
	// The AckReq bit of a request: 0 or 1; -1: set on RC requests.
	int ack_req = -1;
	// Payload byte i is (fill + i) & 0xff.
	uint8_t fill = 0xa5;
};

// A transport part to send: BTH to pad, and what to do about the ICRC.
struct Packet {
	Bytes transport;
	enum { ICRC_GOOD, ICRC_BAD } icrc = ICRC_GOOD;
};

struct KindInfo {
	const char *name;
	const char *what;
};

// Every kind make() knows, in the order --help lists them.
inline const std::vector<KindInfo> &kinds()
{
	static const std::vector<KindInfo> k = {
		{"good-send", "RC SEND ONLY, --len bytes (64), ACK requested"},
		{"good-write", "RC RDMA WRITE ONLY of --len bytes (64) at --va with --rkey"},
		{"good-ud", "UD SEND ONLY with --qkey, from --src-qpn"},
		{"good-ack", "RC ACKNOWLEDGE (ACK, no credits) for --psn, --msn"},
		{"good-read-resp", "RC RDMA READ RESPONSE ONLY of --len bytes (64)"},
		{"bad-icrc", "good-send with one ICRC bit flipped"},
		{"truncated", "good-write cut to --cut bytes (20: BTH and half a RETH), ICRC over what is left"},
		{"bad-opcode", "good-send with opcode --opcode (0x15, reserved)"},
		{"bad-tver", "good-send with TVer --tver (1)"},
		{"bad-pkey", "good-send with P_Key --pkey (0x1234)"},
		{"unknown-qp", "good-send, to a QPN that should not exist"},
		{"pad-mismatch", "good-send of --len bytes (6) whose PadCnt counts pad bytes that are missing"},
		{"too-long", "good-send of --len bytes (1152: above a 1024-byte path MTU)"},
		{"psn-far", "good-send at --psn + --far (0x400000): far outside the window"},
		{"ack-unsent", "good-ack, for a --psn the requester never sent"},
		{"read-resp-long", "good-read-resp of --len bytes (512: more than asked)"},
		{"aeth-bogus", "RC ACKNOWLEDGE with AETH syndrome --syndrome (0x40, a reserved type)"},
		{"atomic-ack", "RC ATOMIC ACKNOWLEDGE for --psn, --msn, original value 0x1122334455667788, AETH syndrome --syndrome (ACK)"},
		{"write-bad-rkey", "good-write with the low 8 bits (the key) of --rkey flipped"},
		{"write-out-of-range", "good-write ending 1 byte past --va + --mr-len (4096)"},
		{"read-bad-rkey", "RC RDMA READ request for --len (64) at --va, --rkey's key flipped"},
		{"atomic-misaligned", "RC FETCH & ADD at --va + 4 with --rkey"},
		{"ud-bad-qkey", "good-ud with --qkey's bits flipped (xor 0x00ff00ff)"},
		{"good-atomic-write", "RC ATOMIC WRITE of 8 bytes at --va with --rkey"},
		{"atomic-write-misaligned", "good-atomic-write at --va + 4"},
		{"flush", "RC FLUSH to global visibility of --len (64) at --va with --rkey"},
		{"flush-bad-type", "flush with placement type 0 (none)"},
	};
	return k;
}

inline void put_payload(Bytes &out, size_t len, uint8_t fill)
{
	for (size_t i = 0; i < len; i++)
		out.push_back((uint8_t)(fill + i));
}

// Headers of @h, then @len payload bytes and the pad; false if the
// portable code refuses the headers.
inline bool build(const wookie_hdrs &h, size_t len, uint8_t fill, Bytes &out)
{
	uint8_t hdr[WOOKIE_BTH_BYTES + WOOKIE_MAX_EXT_HDR_BYTES + 16];
	wookie_hdrs copy = h;

	copy.payload_len = (uint32_t)len;
	int n = wookie_hdrs_build(hdr, sizeof(hdr), &copy);
	if (n < 0)
		return false;
	out.assign(hdr, hdr + n);
	if (!(wookie_opcode_flags(h.bth.opcode) & WOOKIE_OPF_PAYLOAD))
		return true;
	put_payload(out, len, fill);
	out.resize(out.size() + (-len & 3), 0);
	return true;
}

inline wookie_hdrs request(uint8_t opcode, const Params &p)
{
	wookie_hdrs h;

	std::memset(&h, 0, sizeof(h));
	h.bth.opcode = opcode;
	h.bth.pkey = 0xffff;
	h.bth.dest_qp = p.qpn & WOOKIE_PSN_MASK;
	h.bth.psn = p.psn & WOOKIE_PSN_MASK;
	h.bth.ack_req = p.ack_req >= 0 ? p.ack_req != 0 :
				       !(opcode & WOOKIE_TRANSPORT_MASK);
	return h;
}

inline size_t len_or(const Params &p, size_t dflt)
{
	return p.len >= 0 ? (size_t)p.len : dflt;
}

// The packet of @kind; false (and *err) for an unknown kind.
inline bool make(const std::string &kind, const Params &p, Packet &pkt,
		 std::string &err)
{
	const uint8_t rc = WOOKIE_TRANSPORT_RC, ud = WOOKIE_TRANSPORT_UD;
	wookie_hdrs h;
	size_t len = len_or(p, 64);
	bool ok;

	pkt = Packet{};
	if (kind == "good-send" || kind == "bad-icrc" || kind == "bad-opcode" ||
	    kind == "bad-tver" || kind == "bad-pkey" || kind == "unknown-qp" ||
	    kind == "too-long" || kind == "psn-far") {
		h = request(rc | WOOKIE_OP_SEND_ONLY, p);
		if (kind == "too-long")
			len = len_or(p, 1152);
		if (kind == "psn-far")
			h.bth.psn = wookie_psn_add(h.bth.psn, p.far);
		if (kind == "bad-tver")
			h.bth.tver = (uint8_t)(p.tver >= 0 ? p.tver : 1);
		if (kind == "bad-pkey")
			h.bth.pkey = (uint16_t)(p.pkey >= 0 ? p.pkey : 0x1234);
		else if (p.pkey >= 0)
			h.bth.pkey = (uint16_t)p.pkey;
		ok = build(h, len, p.fill, pkt.transport);
		if (ok && kind == "bad-opcode")
			pkt.transport[0] = (uint8_t)(p.opcode >= 0 ? p.opcode : 0x15);
		if (kind == "bad-icrc")
			pkt.icrc = Packet::ICRC_BAD;
	} else if (kind == "pad-mismatch") {
		// PadCnt as the length asks, the pad bytes left out: the
		// packet is no multiple of 4 bytes.
		h = request(rc | WOOKIE_OP_SEND_ONLY, p);
		len = len_or(p, 6);
		if (!(len & 3))
			len++;
		ok = build(h, len, p.fill, pkt.transport);
		if (ok)
			pkt.transport.resize(WOOKIE_BTH_BYTES + len);
	} else if (kind == "good-write" || kind == "truncated" ||
		   kind == "write-bad-rkey" || kind == "write-out-of-range") {
		h = request(rc | WOOKIE_OP_WRITE_ONLY, p);
		h.reth.va = p.va;
		h.reth.rkey = p.rkey;
		if (kind == "write-bad-rkey")
			h.reth.rkey ^= 0xff;
		if (kind == "write-out-of-range")
			h.reth.va = p.va + p.mr_len - len + 1;
		h.reth.dma_len = (uint32_t)len;
		ok = build(h, len, p.fill, pkt.transport);
		if (ok && kind == "truncated")
			pkt.transport.resize(p.cut >= 0 ? (size_t)p.cut : 20);
	} else if (kind == "read-bad-rkey") {
		h = request(rc | WOOKIE_OP_READ_REQUEST, p);
		h.reth.va = p.va;
		h.reth.rkey = p.rkey ^ 0xff;
		h.reth.dma_len = (uint32_t)len;
		ok = build(h, 0, p.fill, pkt.transport);
	} else if (kind == "atomic-misaligned") {
		h = request(rc | WOOKIE_OP_FETCH_ADD, p);
		h.atomic.va = p.va + 4;
		h.atomic.rkey = p.rkey;
		h.atomic.swap_add = 1;
		ok = build(h, 0, p.fill, pkt.transport);
	} else if (kind == "good-atomic-write" ||
		   kind == "atomic-write-misaligned") {
		h = request(rc | WOOKIE_OP_ATOMIC_WRITE, p);
		h.reth.va = p.va + (kind == "good-atomic-write" ? 0 : 4);
		h.reth.rkey = p.rkey;
		h.reth.dma_len = WOOKIE_ATOMIC_WRITE_BYTES;
		ok = build(h, WOOKIE_ATOMIC_WRITE_BYTES, p.fill, pkt.transport);
	} else if (kind == "flush" || kind == "flush-bad-type") {
		h = request(rc | WOOKIE_OP_FLUSH, p);
		h.feth.type = kind == "flush" ? 1 : 0;
		h.feth.level = 0;
		h.reth.va = p.va;
		h.reth.rkey = p.rkey;
		h.reth.dma_len = (uint32_t)len;
		ok = build(h, 0, p.fill, pkt.transport);
	} else if (kind == "good-ud" || kind == "ud-bad-qkey") {
		h = request(ud | WOOKIE_OP_SEND_ONLY, p);
		h.deth.qkey = p.qkey;
		if (kind == "ud-bad-qkey")
			h.deth.qkey ^= 0x00ff00ff;
		h.deth.src_qp = p.src_qpn & WOOKIE_PSN_MASK;
		ok = build(h, len, p.fill, pkt.transport);
	} else if (kind == "good-ack" || kind == "ack-unsent" ||
		   kind == "aeth-bogus") {
		h = request(rc | WOOKIE_OP_ACKNOWLEDGE, p);
		h.aeth.syndrome = WOOKIE_AETH_ACK | WOOKIE_AETH_NO_CREDITS;
		if (kind == "aeth-bogus")
			h.aeth.syndrome = (uint8_t)(p.syndrome >= 0 ?
						    p.syndrome : 0x40);
		else if (p.syndrome >= 0)
			h.aeth.syndrome = (uint8_t)p.syndrome;
		h.aeth.msn = p.msn & WOOKIE_PSN_MASK;
		ok = build(h, 0, p.fill, pkt.transport);
	} else if (kind == "atomic-ack") {
		h = request(rc | WOOKIE_OP_ATOMIC_ACKNOWLEDGE, p);
		h.aeth.syndrome = (uint8_t)(p.syndrome >= 0 ? p.syndrome :
					    WOOKIE_AETH_ACK | WOOKIE_AETH_NO_CREDITS);
		h.aeth.msn = p.msn & WOOKIE_PSN_MASK;
		h.atomic_orig = 0x1122334455667788ULL;
		ok = build(h, 0, p.fill, pkt.transport);
	} else if (kind == "good-read-resp" || kind == "read-resp-long") {
		h = request(rc | WOOKIE_OP_READ_RESPONSE_ONLY, p);
		h.aeth.syndrome = WOOKIE_AETH_ACK | WOOKIE_AETH_NO_CREDITS;
		h.aeth.msn = p.msn & WOOKIE_PSN_MASK;
		if (kind == "read-resp-long")
			len = len_or(p, 512);
		ok = build(h, len, p.fill, pkt.transport);
	} else {
		err = "unknown packet kind '" + kind + "'";
		return false;
	}
	if (!ok)
		err = "cannot build the headers of " + kind;
	return ok;
}

// Where a datagram goes: addresses (IPv4 in the first 4 bytes unless v6).
struct Endpoints {
	bool v6 = false;
	uint8_t src[16] = {};
	uint8_t dst[16] = {};
	uint16_t sport = 49152;
	uint8_t ttl = 64;
	uint8_t tclass = 0;
	uint32_t flow_label = 0;
	// IPv4 identification: covered by the ICRC, so never left for the
	// kernel to choose.
	uint16_t ip_id = 1;
};

inline void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

// The Internet checksum of @len bytes, continuing @sum.
inline uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

inline uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

// IP and UDP headers around @pkt's transport part, then its ICRC: the
// datagram as the IP layer sends it.  IPv4 has its header checksum and no
// UDP checksum (RoCEv2 leaves it to the ICRC); IPv6 must have a UDP
// checksum, which the ICRC does not cover.  A transport part shorter than
// a BTH gets 4 zero bytes for an ICRC.
inline Bytes datagram(const Endpoints &e, const Packet &pkt)
{
	size_t ip_len = e.v6 ? WOOKIE_IPV6_HDR_BYTES : WOOKIE_IPV4_HDR_BYTES;
	size_t udp_len = WOOKIE_UDP_HDR_BYTES + pkt.transport.size() +
			 WOOKIE_ICRC_BYTES;
	Bytes d(ip_len + udp_len, 0);
	uint8_t *ip = d.data(), *udp = ip + ip_len;

	if (e.v6) {
		ip[0] = (uint8_t)(0x60 | e.tclass >> 4);
		ip[1] = (uint8_t)(e.tclass << 4 | (e.flow_label >> 16 & 0x0f));
		put16(ip + 2, e.flow_label & 0xffff);
		put16(ip + 4, (uint32_t)udp_len);
		ip[6] = IPPROTO_UDP;
		ip[7] = e.ttl;
		std::memcpy(ip + 8, e.src, 16);
		std::memcpy(ip + 24, e.dst, 16);
	} else {
		ip[0] = 0x45;
		ip[1] = e.tclass;
		put16(ip + 2, (uint32_t)d.size());
		put16(ip + 4, e.ip_id);
		ip[6] = 0x40;	// DF
		ip[8] = e.ttl;
		ip[9] = IPPROTO_UDP;
		std::memcpy(ip + 12, e.src, 4);
		std::memcpy(ip + 16, e.dst, 4);
		put16(ip + 10, csum_fold(csum_add(0, ip, ip_len)));
	}
	put16(udp, e.sport);
	put16(udp + 2, WOOKIE_ROCE_UDP_PORT);
	put16(udp + 4, (uint32_t)udp_len);
	std::copy(pkt.transport.begin(), pkt.transport.end(),
		  udp + WOOKIE_UDP_HDR_BYTES);

	size_t covered = d.size() - WOOKIE_ICRC_BYTES;
	uint32_t icrc = 0;
	if (pkt.transport.size() >= WOOKIE_BTH_BYTES &&
	    !wookie_icrc(ip, covered, &icrc)) {
		if (pkt.icrc == Packet::ICRC_BAD)
			icrc ^= 1;
		for (int i = 0; i < 4; i++)
			d[covered + i] = (uint8_t)(icrc >> (8 * i));
	}
	if (e.v6) {
		uint8_t pseudo[8] = {0, 0, 0, 0, 0, 0, 0, IPPROTO_UDP};
		uint32_t sum;

		pseudo[2] = (uint8_t)(udp_len >> 8);
		pseudo[3] = (uint8_t)udp_len;
		sum = csum_add(0, ip + 8, 32);
		sum = csum_add(sum, pseudo, sizeof(pseudo));
		sum = csum_add(sum, udp, udp_len);
		uint16_t c = csum_fold(sum);
		put16(udp + 6, c ? c : 0xffff);
	}
	return d;
}

// The transport part (BTH to pad, no ICRC) of a captured UDP/4791
// datagram whose IP header is at @ip; false if it is not one.  *@src
// gets the source address (16 bytes; IPv4 in the first 4).
inline bool roce_transport(const uint8_t *ip, size_t len, Bytes &out,
			   uint8_t *src = nullptr)
{
	size_t ip_len, total;

	if (len < 1)
		return false;
	if (ip[0] >> 4 == 4) {
		ip_len = (size_t)(ip[0] & 0x0f) * 4;
		if (len < 20 || ip_len < 20 || ip[9] != IPPROTO_UDP)
			return false;
		total = (size_t)ip[2] << 8 | ip[3];
		if (src) {
			std::memset(src, 0, 16);
			std::memcpy(src, ip + 12, 4);
		}
	} else if (ip[0] >> 4 == 6) {
		ip_len = WOOKIE_IPV6_HDR_BYTES;
		if (len < ip_len || ip[6] != IPPROTO_UDP)
			return false;
		total = ip_len + ((size_t)ip[4] << 8 | ip[5]);
		if (src)
			std::memcpy(src, ip + 8, 16);
	} else {
		return false;
	}
	if (total > len)
		total = len;
	if (total < ip_len + WOOKIE_UDP_HDR_BYTES)
		return false;
	const uint8_t *udp = ip + ip_len;
	size_t udp_len = (size_t)udp[4] << 8 | udp[5];
	if (((size_t)udp[2] << 8 | udp[3]) != WOOKIE_ROCE_UDP_PORT ||
	    udp_len < WOOKIE_UDP_HDR_BYTES + WOOKIE_ICRC_BYTES ||
	    udp_len > total - ip_len)
		return false;
	out.assign(udp + WOOKIE_UDP_HDR_BYTES,
		   udp + udp_len - WOOKIE_ICRC_BYTES);
	return true;
}

// Does the ICRC at the end of the datagram at @ip (@len bytes, IP header
// first) check?
inline bool icrc_ok(const uint8_t *ip, size_t len)
{
	uint32_t icrc, got = 0;

	if (len < WOOKIE_ICRC_BYTES ||
	    wookie_icrc(ip, len - WOOKIE_ICRC_BYTES, &icrc))
		return false;
	for (int i = 0; i < 4; i++)
		got |= (uint32_t)ip[len - 4 + i] << (8 * i);
	return got == icrc;
}

}  // namespace roce

#endif  // WOOKIE_ROCE_PACKET_H
