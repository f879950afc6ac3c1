/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Known answers for kernel/portable/wookie_link.c, shared by the KUnit
 * suite (tests/kunit) and the host unit tests (tests/unit) so that both
 * check the same vectors.  Plain C that also compiles as C++: no designated
 * initialisers, and enumerations stored as unsigned int.
 *
 * The expected values are written out as numbers from the specifications
 * (IBTA 1.4 and its RoCEv2 annex A17, RFC 4291), never derived from the
 * constants of wookie_link.h, so that a wrong constant cannot hide itself.
 */
#ifndef WOOKIE_LINK_VECTORS_H
#define WOOKIE_LINK_VECTORS_H

#include "wookie_link.h"

/*
 * RoCEv2 headers around the payload in the worst case wookie sends:
 * IPv6 (40) + UDP (8) + BTH (12) + AtomicETH (28) + ICRC (4).
 */
#define WOOKIE_TEST_ROCE_OVERHEAD 92

struct wookie_mtu_vector {
	unsigned int netdev_mtu;
	unsigned int ib_mtu;		/* enum wookie_mtu; 0: unusable */
	unsigned int ib_mtu_bytes;	/* 0 when unusable */
};

/*
 * Path MTU for a netdev MTU: each IB MTU needs its size plus 92 bytes, so
 * the thresholds are 348, 604, 1116, 2140 and 4188.  Every threshold is
 * tested right at and one below, plus the MTUs seen in the field.
 */
static const struct wookie_mtu_vector wookie_mtu_vectors[] = {
	{ 0, 0, 0 },
	{ 1, 0, 0 },
	{ 68, 0, 0 },		/* IPv4 minimum */
	{ 92, 0, 0 },		/* headers only */
	{ 256, 0, 0 },
	{ 347, 0, 0 },
	{ 348, 1, 256 },
	{ 349, 1, 256 },
	{ 576, 1, 256 },	/* IPv4 minimum reassembly size */
	{ 603, 1, 256 },
	{ 604, 2, 512 },
	{ 1024, 2, 512 },
	{ 1115, 2, 512 },
	{ 1116, 3, 1024 },
	{ 1280, 3, 1024 },	/* IPv6 minimum */
	{ 1492, 3, 1024 },	/* PPPoE */
	{ 1500, 3, 1024 },	/* Ethernet */
	{ 2048, 3, 1024 },
	{ 2139, 3, 1024 },
	{ 2140, 4, 2048 },
	{ 4096, 4, 2048 },
	{ 4187, 4, 2048 },
	{ 4188, 5, 4096 },
	{ 4200, 5, 4096 },
	{ 9000, 5, 4096 },	/* jumbo */
	{ 9216, 5, 4096 },
	{ 65535, 5, 4096 },	/* loopback */
	{ 65536, 5, 4096 },
	{ 0x7fffffff, 5, 4096 },
	{ 0xffffffff, 5, 4096 },
};

struct wookie_mtu_code_vector {
	unsigned int code;	/* enum wookie_mtu */
	unsigned int bytes;	/* 0: not a valid code */
};

/* IBTA path MTU codes and the codes that must be rejected. */
static const struct wookie_mtu_code_vector wookie_mtu_code_vectors[] = {
	{ 1, 256 },
	{ 2, 512 },
	{ 3, 1024 },
	{ 4, 2048 },
	{ 5, 4096 },
	{ 0, 0 },
	{ 6, 0 },		/* OPA 8192, not IB */
	{ 7, 0 },		/* OPA 10240 */
	{ 8, 0 },
	{ 31, 0 },
	{ 32, 0 },
	{ 255, 0 },
	{ 0x7fffffff, 0 },
	{ 0x80000000, 0 },
	{ 0xffffffff, 0 },
};

struct wookie_guid_vector {
	__u8 mac[6];
	__u8 guid[8];
};

/*
 * Modified EUI-64 (RFC 4291, appendix A): FF:FE inserted in the middle and
 * the universal/local bit (0x02 of the first byte) inverted, whichever way
 * it was set; the group bit (0x01) is left alone.
 */
static const struct wookie_guid_vector wookie_guid_vectors[] = {
	{ { 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 },
	  { 0x02, 0x00, 0x00, 0xff, 0xfe, 0x00, 0x00, 0x00 } },
	{ { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 },	/* QEMU, local */
	  { 0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x56 } },
	{ { 0x00, 0x1b, 0x21, 0x0a, 0x0b, 0x0c },	/* Intel OUI, global */
	  { 0x02, 0x1b, 0x21, 0xff, 0xfe, 0x0a, 0x0b, 0x0c } },
	{ { 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde },
	  { 0x36, 0x56, 0x78, 0xff, 0xfe, 0x9a, 0xbc, 0xde } },
	{ { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 },	/* local, set */
	  { 0x00, 0x00, 0x00, 0xff, 0xfe, 0x00, 0x00, 0x01 } },
	{ { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 },	/* group bit kept */
	  { 0x03, 0x00, 0x5e, 0xff, 0xfe, 0x00, 0x00, 0x01 } },
	{ { 0xfc, 0xff, 0xff, 0xff, 0xff, 0xff },
	  { 0xfe, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff, 0xff } },
	{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	  { 0xfd, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff, 0xff } },
	{ { 0xa0, 0x36, 0x9f, 0xff, 0xfe, 0x01 },	/* FF:FE in the MAC */
	  { 0xa2, 0x36, 0x9f, 0xff, 0xfe, 0xff, 0xfe, 0x01 } },
};

struct wookie_port_vector {
	bool running;
	bool carrier;
	int port_state;		/* IB_PORT_DOWN 1, IB_PORT_ACTIVE 4 */
	int phys_state;		/* DISABLED 3, LINK_UP 5 */
};

static const struct wookie_port_vector wookie_port_vectors[] = {
	{ false, false, 1, 3 },
	{ false, true, 1, 3 },
	{ true, false, 1, 3 },
	{ true, true, 4, 5 },
};

struct wookie_hdr_vector {
	const char *name;
	unsigned int bytes;	/* from wookie_link.h */
	unsigned int spec;	/* from the specification */
};

/* Header sizes on the wire (IBTA 1.4 chapter 9 and annex A17). */
static const struct wookie_hdr_vector wookie_hdr_vectors[] = {
	{ "IPv4", WOOKIE_IPV4_HDR_BYTES, 20 },
	{ "IPv6", WOOKIE_IPV6_HDR_BYTES, 40 },
	{ "UDP", WOOKIE_UDP_HDR_BYTES, 8 },
	{ "BTH", WOOKIE_BTH_BYTES, 12 },
	{ "RETH", WOOKIE_RETH_BYTES, 16 },
	{ "AETH", WOOKIE_AETH_BYTES, 4 },
	{ "AtomicETH", WOOKIE_ATOMIC_ETH_BYTES, 28 },
	{ "AtomicAckETH", WOOKIE_ATOMIC_ACK_ETH_BYTES, 8 },
	{ "ImmDt", WOOKIE_IMMDT_BYTES, 4 },
	{ "IETH", WOOKIE_IETH_BYTES, 4 },
	{ "DETH", WOOKIE_DETH_BYTES, 8 },
	{ "ICRC", WOOKIE_ICRC_BYTES, 4 },
	{ "XRCETH", WOOKIE_XRCETH_BYTES, 4 },
	{ "largest extended headers", WOOKIE_MAX_EXT_HDR_BYTES, 28 },
	{ "RoCEv2 overhead", WOOKIE_MAX_ROCE_OVERHEAD,
	  WOOKIE_TEST_ROCE_OVERHEAD },
};

struct wookie_ext_hdr_set {
	const char *name;
	unsigned int bytes;
};

/*
 * The extended headers that one packet carries together, for every packet
 * type wookie sends with payload, and atomic requests (no payload, but
 * the largest RC headers): WOOKIE_MAX_EXT_HDR_BYTES must cover them.  An
 * XRC atomic request (XRCETH + AtomicETH, 32 bytes) carries no payload, so
 * it is not here: it is smaller than any packet carrying a path MTU.
 */
static const struct wookie_ext_hdr_set wookie_ext_hdr_sets[] = {
	{ "SEND", 0 },
	{ "SEND with immediate", WOOKIE_IMMDT_BYTES },
	{ "SEND with invalidate", WOOKIE_IETH_BYTES },
	{ "RDMA WRITE first", WOOKIE_RETH_BYTES },
	{ "RDMA WRITE only with immediate",
	  WOOKIE_RETH_BYTES + WOOKIE_IMMDT_BYTES },
	{ "RDMA READ request", WOOKIE_RETH_BYTES },
	{ "RDMA READ response", WOOKIE_AETH_BYTES },
	{ "ACK", WOOKIE_AETH_BYTES },
	{ "ATOMIC request", WOOKIE_ATOMIC_ETH_BYTES },
	{ "ATOMIC ACK", WOOKIE_AETH_BYTES + WOOKIE_ATOMIC_ACK_ETH_BYTES },
	{ "UD SEND", WOOKIE_DETH_BYTES },
	{ "UD SEND with immediate", WOOKIE_DETH_BYTES + WOOKIE_IMMDT_BYTES },
	{ "XRC SEND with invalidate", WOOKIE_XRCETH_BYTES + WOOKIE_IETH_BYTES },
	{ "XRC RDMA WRITE only with immediate", WOOKIE_XRCETH_BYTES +
	  WOOKIE_RETH_BYTES + WOOKIE_IMMDT_BYTES },
};

#endif /* WOOKIE_LINK_VECTORS_H */
