/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Known answers for kernel/portable/wookie_icrc.c, shared by the KUnit
 * suite (tests/kunit) and the host unit tests (tests/unit).  Plain C that
 * also compiles as C++: no designated initialisers.
 *
 * Each packet runs from the IP header to the end of the ICRC.  All but the
 * last one were assembled by hand in Python (IPv4 header checksums
 * computed, everything else written out) and their ICRC computed there,
 * with zlib, independently of wookie_icrc.c and of any kernel code, as
 * IBTA 1.4 Annex A17.3.3 defines it:
 *
 *   def icrc(pkt):                     # IP header .. end of the pad
 *       m = bytearray(pkt)
 *       if m[0] >> 4 == 4:             # TOS, TTL, header checksum
 *           ip = 20
 *           m[1] = m[8] = m[10] = m[11] = 0xff
 *       else:                          # traffic class, flow label, hop limit
 *           ip = 40
 *           m[0] |= 0x0f
 *           m[1] = m[2] = m[3] = m[7] = 0xff
 *       m[ip + 6] = m[ip + 7] = 0xff   # UDP checksum
 *       m[ip + 12] = 0xff              # BTH resv8a (FECN, BECN, resv6)
 *       return zlib.crc32(b'\xff' * 8 + bytes(m))
 *
 * zlib.crc32() starts from ~0 and inverts its result, so this is the ICRC
 * itself; the 4 bytes after the pad are icrc(pkt).to_bytes(4, 'little').
 *
 * The last packet is a real one: a CNP (congestion notification, opcode
 * 0x81) captured on a Mellanox ConnectX-4 Lx, from Scapy's RoCE tests
 * (github.com/secdev/scapy, test/contrib/roce.uts, "RoCE CNP captured on
 * ConnectX-4 Lx"), without its 14-byte Ethernet header.  Its last 4 bytes
 * are the NIC's ICRC as captured (82 fd 00 2a), which the function above
 * reproduces.
 */
#ifndef WOOKIE_ICRC_VECTORS_H
#define WOOKIE_ICRC_VECTORS_H

#include "wookie_icrc.h"

/* Largest test packet: IPv6, RETH and 16 bytes of payload, plus ICRC. */
#define WOOKIE_ICRC_PKT_MAX 112

struct wookie_icrc_vector {
	const char *name;
	/* Bytes from the IP header to the end of the ICRC. */
	unsigned int len;
	__u8 bytes[WOOKIE_ICRC_PKT_MAX];
	/* The ICRC as a number: the last 4 bytes, little-endian. */
	__u32 icrc;
	/* IP + UDP + BTH: what wookie_icrc_begin() covers and returns. */
	unsigned int hdr_len;
};

static const struct wookie_icrc_vector wookie_icrc_vectors[] = {
	/* RC SEND ONLY, SE, pad 3, 5 bytes "abcde"; ECT(0), TTL 64. */
	{ "ipv4_rc_send_only", 52, {
		0x45, 0x02, 0x00, 0x34, 0x12, 0x34, 0x40, 0x00,
		0x40, 0x11, 0x14, 0x81, 0x0a, 0x00, 0x00, 0x01,
		0x0a, 0x00, 0x00, 0x02, 0xc0, 0x00, 0x12, 0xb7,
		0x00, 0x20, 0x00, 0x00, 0x04, 0xb0, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x11, 0x80, 0x00, 0x00, 0x2a,
		0x61, 0x62, 0x63, 0x64, 0x65, 0x00, 0x00, 0x00,
		0x2f, 0x00, 0x8f, 0xf6 },
	  0xf68f002f, 40 },
	/* RC SEND ONLY without payload; P_Key 0x8000, PSN 2^24 - 1. */
	{ "ipv4_rc_send_only_empty", 44, {
		0x45, 0x00, 0x00, 0x2c, 0x00, 0x01, 0x40, 0x00,
		0x40, 0x11, 0x26, 0xbe, 0x0a, 0x00, 0x00, 0x01,
		0x0a, 0x00, 0x00, 0x02, 0xc0, 0x01, 0x12, 0xb7,
		0x00, 0x18, 0x00, 0x00, 0x04, 0x00, 0x80, 0x00,
		0x00, 0x00, 0x00, 0x01, 0x80, 0xff, 0xff, 0xff,
		0xef, 0x9e, 0x35, 0x3f },
	  0x3f359eef, 40 },
	/*
	 * RC ACKNOWLEDGE, AETH 0x1f (ACK, credit 31) MSN 1; a UDP
	 * checksum, TTL 255.
	 */
	{ "ipv4_rc_ack", 48, {
		0x45, 0x00, 0x00, 0x30, 0xbe, 0xef, 0x40, 0x00,
		0xff, 0x11, 0xa8, 0xca, 0x0a, 0x00, 0x00, 0x01,
		0x0a, 0x00, 0x00, 0x02, 0xd2, 0xf1, 0x12, 0xb7,
		0x00, 0x1c, 0x12, 0x34, 0x11, 0x00, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x22, 0x00, 0x00, 0x00, 0x2a,
		0x1f, 0x00, 0x00, 0x01, 0x0f, 0x24, 0xb1, 0x7b },
	  0x7bb1240f, 40 },
	/*
	 * UD SEND ONLY: DETH Q_Key 0x11111111, source QP 0x456; 6
	 * bytes, pad 2; DSCP 46 with CE, FECN and BECN set.
	 */
	{ "ipv4_ud_send_only", 60, {
		0x45, 0xbb, 0x00, 0x3c, 0x04, 0x00, 0x40, 0x00,
		0x11, 0x11, 0x50, 0xf4, 0x0a, 0x00, 0x00, 0x01,
		0x0a, 0x00, 0x00, 0x02, 0xe1, 0x23, 0x12, 0xb7,
		0x00, 0x28, 0x00, 0x00, 0x64, 0x20, 0xff, 0xff,
		0xc0, 0x00, 0x01, 0x23, 0x00, 0x12, 0x34, 0x56,
		0x11, 0x11, 0x11, 0x11, 0x00, 0x00, 0x04, 0x56,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x00, 0x00,
		0x43, 0x01, 0xe7, 0x11 },
	  0x11e70143, 40 },
	/*
	 * RC RDMA WRITE FIRST: RETH VA 0x7f0012345678, R_Key
	 * 0x1234, length 4096; 16 bytes.  Traffic class 0x02, flow label
	 * 0x12345.
	 */
	{ "ipv6_rc_write_first", 96, {
		0x60, 0x21, 0x23, 0x45, 0x00, 0x38, 0x11, 0x40,
		0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
		0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
		0xc0, 0xde, 0x12, 0xb7, 0x00, 0x38, 0x00, 0x00,
		0x06, 0x00, 0xff, 0xff, 0x00, 0x12, 0x34, 0x56,
		0x00, 0xab, 0xcd, 0xef, 0x00, 0x00, 0x7f, 0x00,
		0x12, 0x34, 0x56, 0x78, 0x00, 0x00, 0x12, 0x34,
		0x00, 0x00, 0x10, 0x00, 0x10, 0x11, 0x12, 0x13,
		0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b,
		0x1c, 0x1d, 0x1e, 0x1f, 0x64, 0x56, 0xdd, 0xda },
	  0xdadd5664, 60 },
	/*
	 * RC ACKNOWLEDGE, AETH 0x2e (RNR NAK) MSN 0x123456; traffic
	 * class 0xb8, flow label 0xfedcb, hop limit 1, a UDP checksum.
	 */
	{ "ipv6_rc_ack", 68, {
		0x6b, 0x8f, 0xed, 0xcb, 0x00, 0x1c, 0x11, 0x01,
		0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
		0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
		0xc0, 0xdf, 0x12, 0xb7, 0x00, 0x1c, 0xab, 0xcd,
		0x11, 0x00, 0xff, 0xff, 0x00, 0x00, 0x07, 0x77,
		0x00, 0x00, 0x01, 0x00, 0x2e, 0x12, 0x34, 0x56,
		0xbc, 0x50, 0xf0, 0xf1 },
	  0xf1f050bc, 60 },
	/*
	 * UD SEND ONLY WITH IMMEDIATE: DETH, ImmDt 0xcafef00d, 3
	 * bytes "xyz", pad 1; every variant field already all ones.
	 */
	{ "ipv6_ud_send_only_imm", 80, {
		0x6f, 0xff, 0xff, 0xff, 0x00, 0x28, 0x11, 0xff,
		0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
		0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
		0xff, 0xff, 0x12, 0xb7, 0x00, 0x28, 0xff, 0xff,
		0x65, 0x90, 0x7f, 0xff, 0x00, 0x00, 0x00, 0x01,
		0x80, 0x00, 0x00, 0x00, 0x80, 0x01, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x02, 0xca, 0xfe, 0xf0, 0x0d,
		0x78, 0x79, 0x7a, 0x00, 0x33, 0x8b, 0xbe, 0xde },
	  0xdebe8b33, 60 },
	/*
	 * The ConnectX-4 Lx capture (see above): CNP with BECN, dest
	 * QP 0x118, 16 reserved bytes; TOS 0xc2.
	 */
	{ "cx4lx_cnp_capture", 60, {
		0x45, 0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00,
		0x40, 0x11, 0x91, 0x61, 0x0a, 0x00, 0x11, 0x01,
		0x0a, 0x00, 0x12, 0x01, 0x00, 0x00, 0x12, 0xb7,
		0x00, 0x28, 0x00, 0x00, 0x81, 0x00, 0xff, 0xff,
		0x40, 0x00, 0x01, 0x18, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x82, 0xfd, 0x00, 0x2a },
	  0x2a00fd82, 40 },
};

/* What a change to a header field does to the ICRC. */
enum wookie_icrc_field_kind {
	/* Masked: the ICRC stays the same whatever the field holds. */
	WOOKIE_ICRC_VARIANT,
	/* Covered: the ICRC changes (CRC-32 catches any one-byte change). */
	WOOKIE_ICRC_INVARIANT,
	/* The IP version (and IHL): the packet is refused with -EINVAL. */
	WOOKIE_ICRC_REFUSED,
};

/* Where a field's offset counts from. */
enum wookie_icrc_field_base {
	/* From the IP header. */
	WOOKIE_ICRC_FROM_IP,
	/* Back from the end of the pad: 1 is the last byte before the ICRC. */
	WOOKIE_ICRC_FROM_END,
};

/*
 * A field of the packet, by offsets taken from RFC 791 (IPv4), RFC 8200
 * (IPv6), RFC 768 (UDP) and IBTA 1.4 section 9.2 (BTH), written out as
 * numbers.  Each byte of it is changed by XOR with @mask.  @ip_version 0
 * means both.  A field that does not fit in a packet is skipped for it.
 * Every byte not in a VARIANT or REFUSED field of its IP version (at
 * WOOKIE_ICRC_FROM_IP) is invariant.
 */
struct wookie_icrc_field {
	const char *name;
	unsigned int ip_version;
	enum wookie_icrc_field_base base;
	unsigned int offset, len;
	__u8 mask;
	enum wookie_icrc_field_kind kind;
};

static const struct wookie_icrc_field wookie_icrc_fields[] = {
	{ "ipv4 version, ihl", 4, WOOKIE_ICRC_FROM_IP, 0, 1, 0xff,
	  WOOKIE_ICRC_REFUSED },
	{ "ipv4 tos (dscp, ecn)", 4, WOOKIE_ICRC_FROM_IP, 1, 1, 0xff,
	  WOOKIE_ICRC_VARIANT },
	{ "ipv4 ecn", 4, WOOKIE_ICRC_FROM_IP, 1, 1, 0x03,
	  WOOKIE_ICRC_VARIANT },
	{ "ipv4 total length", 4, WOOKIE_ICRC_FROM_IP, 2, 2, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv4 identification", 4, WOOKIE_ICRC_FROM_IP, 4, 2, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv4 flags, fragment offset", 4, WOOKIE_ICRC_FROM_IP, 6, 2, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv4 ttl", 4, WOOKIE_ICRC_FROM_IP, 8, 1, 0xff,
	  WOOKIE_ICRC_VARIANT },
	{ "ipv4 protocol", 4, WOOKIE_ICRC_FROM_IP, 9, 1, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv4 header checksum", 4, WOOKIE_ICRC_FROM_IP, 10, 2, 0xff,
	  WOOKIE_ICRC_VARIANT },
	{ "ipv4 source address", 4, WOOKIE_ICRC_FROM_IP, 12, 4, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv4 destination address", 4, WOOKIE_ICRC_FROM_IP, 16, 4, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv4 udp source port", 4, WOOKIE_ICRC_FROM_IP, 20, 2, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv4 udp destination port", 4, WOOKIE_ICRC_FROM_IP, 22, 2, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv4 udp length", 4, WOOKIE_ICRC_FROM_IP, 24, 2, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv4 udp checksum", 4, WOOKIE_ICRC_FROM_IP, 26, 2, 0xff,
	  WOOKIE_ICRC_VARIANT },
	{ "ipv4 bth opcode", 4, WOOKIE_ICRC_FROM_IP, 28, 1, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv4 bth se, m, pad, tver", 4, WOOKIE_ICRC_FROM_IP, 29, 1, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv4 bth p_key", 4, WOOKIE_ICRC_FROM_IP, 30, 2, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv4 bth resv8a (fecn, becn)", 4, WOOKIE_ICRC_FROM_IP, 32, 1, 0xff,
	  WOOKIE_ICRC_VARIANT },
	{ "ipv4 bth dest qp", 4, WOOKIE_ICRC_FROM_IP, 33, 3, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv4 bth ackreq, resv7", 4, WOOKIE_ICRC_FROM_IP, 36, 1, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv4 bth psn", 4, WOOKIE_ICRC_FROM_IP, 37, 3, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv4 first byte after the bth", 4, WOOKIE_ICRC_FROM_IP, 40, 1, 0xff,
	  WOOKIE_ICRC_INVARIANT },

	{ "ipv6 version", 6, WOOKIE_ICRC_FROM_IP, 0, 1, 0xf0,
	  WOOKIE_ICRC_REFUSED },
	{ "ipv6 traffic class, high nibble", 6, WOOKIE_ICRC_FROM_IP, 0, 1, 0x0f,
	  WOOKIE_ICRC_VARIANT },
	{ "ipv6 traffic class, low nibble", 6, WOOKIE_ICRC_FROM_IP, 1, 1, 0xf0,
	  WOOKIE_ICRC_VARIANT },
	{ "ipv6 ecn", 6, WOOKIE_ICRC_FROM_IP, 1, 1, 0x30,
	  WOOKIE_ICRC_VARIANT },
	{ "ipv6 flow label, high nibble", 6, WOOKIE_ICRC_FROM_IP, 1, 1, 0x0f,
	  WOOKIE_ICRC_VARIANT },
	{ "ipv6 flow label, low 16 bits", 6, WOOKIE_ICRC_FROM_IP, 2, 2, 0xff,
	  WOOKIE_ICRC_VARIANT },
	{ "ipv6 payload length", 6, WOOKIE_ICRC_FROM_IP, 4, 2, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv6 next header", 6, WOOKIE_ICRC_FROM_IP, 6, 1, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv6 hop limit", 6, WOOKIE_ICRC_FROM_IP, 7, 1, 0xff,
	  WOOKIE_ICRC_VARIANT },
	{ "ipv6 source address", 6, WOOKIE_ICRC_FROM_IP, 8, 16, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv6 destination address", 6, WOOKIE_ICRC_FROM_IP, 24, 16, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv6 udp source port", 6, WOOKIE_ICRC_FROM_IP, 40, 2, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv6 udp destination port", 6, WOOKIE_ICRC_FROM_IP, 42, 2, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv6 udp length", 6, WOOKIE_ICRC_FROM_IP, 44, 2, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv6 udp checksum", 6, WOOKIE_ICRC_FROM_IP, 46, 2, 0xff,
	  WOOKIE_ICRC_VARIANT },
	{ "ipv6 bth opcode", 6, WOOKIE_ICRC_FROM_IP, 48, 1, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv6 bth se, m, pad, tver", 6, WOOKIE_ICRC_FROM_IP, 49, 1, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv6 bth p_key", 6, WOOKIE_ICRC_FROM_IP, 50, 2, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv6 bth resv8a (fecn, becn)", 6, WOOKIE_ICRC_FROM_IP, 52, 1, 0xff,
	  WOOKIE_ICRC_VARIANT },
	{ "ipv6 bth dest qp", 6, WOOKIE_ICRC_FROM_IP, 53, 3, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv6 bth ackreq, resv7", 6, WOOKIE_ICRC_FROM_IP, 56, 1, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv6 bth psn", 6, WOOKIE_ICRC_FROM_IP, 57, 3, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "ipv6 first byte after the bth", 6, WOOKIE_ICRC_FROM_IP, 60, 1, 0xff,
	  WOOKIE_ICRC_INVARIANT },

	{ "last byte before the icrc (pad)", 0, WOOKIE_ICRC_FROM_END, 1, 1, 0xff,
	  WOOKIE_ICRC_INVARIANT },
	{ "one bit of the last byte", 0, WOOKIE_ICRC_FROM_END, 1, 1, 0x80,
	  WOOKIE_ICRC_INVARIANT },
};

/*
 * Known CRC-32 values (IEEE 802.3, as zlib.crc32() and `crc32` compute
 * them: initial ~0, final inversion).
 */
struct wookie_crc32_vector {
	const char *text;
	__u32 crc;
};

static const struct wookie_crc32_vector wookie_crc32_vectors[] = {
	{ "", 0x00000000 },
	{ "a", 0xe8b7be43 },
	{ "123456789", 0xcbf43926 },
	{ "The quick brown fox jumps over the lazy dog", 0x414fa339 },
};

/*
 * The CRC of the 8 bytes of ones standing for the LRH, from ~0 and not
 * inverted: the seed rdma_rxe starts its ICRC with.
 */
#define WOOKIE_ICRC_LRH_SEED 0xdebb20e3u

#endif /* WOOKIE_ICRC_VECTORS_H */
