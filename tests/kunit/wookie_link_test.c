// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite for kernel/portable/wookie_link.c: path MTU from the netdev
 * MTU, GUID from the MAC address, port state from the link state, and the
 * constants behind them, checked against known answers and against the
 * kernel's own definitions (enum ib_mtu, iboe_get_mtu(), ib_pack.h,
 * addrconf_addr_eui48()).
 */
#include <kunit/test.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/string.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_hdrs.h>
#include <rdma/ib_pack.h>
#include <rdma/ib_verbs.h>
#include <asm/unaligned.h>

#include "wookie_link.h"
#include "wookie_link_vectors.h"

/* Netdev MTUs swept exhaustively, past the 64 KiB of loopback. */
#define SWEEP_END 70000u

static void mtu_vector_desc(const struct wookie_mtu_vector *v, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "netdev mtu %u", v->netdev_mtu);
}

KUNIT_ARRAY_PARAM(mtu_vectors, wookie_mtu_vectors, mtu_vector_desc);

static void wookie_mtu_for_netdev_vectors(struct kunit *test)
{
	const struct wookie_mtu_vector *v = test->param_value;
	enum wookie_mtu mtu = wookie_mtu_for_netdev(v->netdev_mtu);

	KUNIT_EXPECT_EQ(test, (unsigned int)mtu, v->ib_mtu);
	KUNIT_EXPECT_EQ(test, wookie_mtu_to_bytes(mtu), v->ib_mtu_bytes);
	KUNIT_EXPECT_EQ(test, wookie_netdev_mtu_usable(v->netdev_mtu),
			v->ib_mtu != 0);
}

/* The answer computed the slow way: the largest size that fits. */
static unsigned int expected_mtu(unsigned int netdev_mtu)
{
	unsigned int code;

	for (code = 5; code >= 1; code--)
		if ((128u << code) + WOOKIE_TEST_ROCE_OVERHEAD <= netdev_mtu)
			return code;
	return 0;
}

static void wookie_mtu_for_netdev_sweep(struct kunit *test)
{
	unsigned int n, prev = 0, bad = 0;

	for (n = 0; n < SWEEP_END; n++) {
		unsigned int got = wookie_mtu_for_netdev(n);

		if (got != expected_mtu(n) || got < prev ||
		    wookie_netdev_mtu_usable(n) != !!got) {
			if (!bad++)
				KUNIT_FAIL(test, "netdev mtu %u: got %u, want %u",
					   n, got, expected_mtu(n));
		}
		prev = got;
	}
	KUNIT_EXPECT_EQ_MSG(test, bad, 0u, "%u netdev MTUs mapped wrongly", bad);
}

static void mtu_code_desc(const struct wookie_mtu_code_vector *v, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "code %u", v->code);
}

KUNIT_ARRAY_PARAM(mtu_codes, wookie_mtu_code_vectors, mtu_code_desc);

static void wookie_mtu_to_bytes_codes(struct kunit *test)
{
	const struct wookie_mtu_code_vector *v = test->param_value;
	unsigned int overhead = WOOKIE_TEST_ROCE_OVERHEAD;

	KUNIT_EXPECT_EQ(test, wookie_mtu_to_bytes(v->code), v->bytes);
	if (!v->bytes)
		return;
	/* Round trip: the smallest netdev MTU that carries this size. */
	KUNIT_EXPECT_EQ(test, (unsigned int)wookie_mtu_for_netdev(v->bytes +
								    overhead),
			v->code);
	KUNIT_EXPECT_EQ(test,
			(unsigned int)wookie_mtu_for_netdev(v->bytes +
							    overhead - 1),
			v->code - 1);
}

/* enum wookie_mtu is enum ib_mtu; only invalid codes differ (0, not -1). */
static void wookie_mtu_matches_ib_mtu(struct kunit *test)
{
	unsigned int code;

	KUNIT_EXPECT_EQ(test, WOOKIE_MTU_256, IB_MTU_256);
	KUNIT_EXPECT_EQ(test, WOOKIE_MTU_512, IB_MTU_512);
	KUNIT_EXPECT_EQ(test, WOOKIE_MTU_1024, IB_MTU_1024);
	KUNIT_EXPECT_EQ(test, WOOKIE_MTU_2048, IB_MTU_2048);
	KUNIT_EXPECT_EQ(test, WOOKIE_MTU_4096, IB_MTU_4096);

	for (code = 0; code <= 8; code++) {
		int ib = ib_mtu_enum_to_int((enum ib_mtu)code);
		unsigned int bytes = wookie_mtu_to_bytes(code);

		if (ib < 0) {
			KUNIT_EXPECT_EQ_MSG(test, bytes, 0u, "code %u", code);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, bytes, (unsigned int)ib,
				    "code %u", code);
		KUNIT_EXPECT_EQ_MSG(test, (unsigned int)ib_mtu_int_to_enum(ib),
				    code, "code %u", code);
	}
}

/*
 * iboe_get_mtu() is what RoCE NIC drivers (mlx4, mlx5, ...) use.  It also
 * reserves the 4-byte XRCETH that an XRC atomic carries on top of the
 * AtomicETH; wookie does no XRC, so within 4 bytes above each threshold it
 * grants the next size up where iboe_get_mtu() does not.  Everywhere else,
 * including every MTU seen in the field, both agree.
 */
static void wookie_mtu_vs_iboe_get_mtu(struct kunit *test)
{
	static const unsigned int common[] = {
		576, 1280, 1492, 1500, 2048, 4096, 4200, 9000, 9216, 65535,
	};
	unsigned int i, n, bad = 0;

	for (i = 0; i < ARRAY_SIZE(common); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    (unsigned int)wookie_mtu_for_netdev(common[i]),
				    (unsigned int)iboe_get_mtu(common[i]),
				    "netdev mtu %u", common[i]);

	for (n = 0; n < SWEEP_END; n++) {
		unsigned int ours = wookie_mtu_for_netdev(n);
		unsigned int theirs = iboe_get_mtu(n);
		unsigned int xrc = iboe_get_mtu(n + IB_EXT_XRC_BYTES);
		bool near = ours &&
			n - (wookie_mtu_to_bytes(ours) +
			     WOOKIE_MAX_ROCE_OVERHEAD) < IB_EXT_XRC_BYTES;

		if (ours != xrc || (ours != theirs &&
				    (!near || ours != theirs + 1))) {
			if (!bad++)
				KUNIT_FAIL(test,
					   "netdev mtu %u: wookie %u, iboe_get_mtu %u (%u with XRCETH)",
					   n, ours, theirs, xrc);
		}
	}
	KUNIT_EXPECT_EQ_MSG(test, bad, 0u, "%u netdev MTUs disagree", bad);
}

static void guid_vector_desc(const struct wookie_guid_vector *v, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "mac %pM", v->mac);
}

KUNIT_ARRAY_PARAM(guid_vectors, wookie_guid_vectors, guid_vector_desc);

static void wookie_guid_from_mac_vectors(struct kunit *test)
{
	const struct wookie_guid_vector *v = test->param_value;
	u8 mac[6], buf[10], eui[8];
	unsigned int i;

	memcpy(mac, v->mac, sizeof(mac));
	memset(buf, 0xa5, sizeof(buf));
	wookie_guid_from_mac(mac, buf + 1);

	KUNIT_EXPECT_EQ_MSG(test, memcmp(buf + 1, v->guid, 8), 0,
			    "got %8phC, want %8phC", buf + 1, v->guid);
	KUNIT_EXPECT_EQ(test, buf[0], 0xa5);
	KUNIT_EXPECT_EQ(test, buf[9], 0xa5);
	KUNIT_EXPECT_EQ(test, memcmp(mac, v->mac, sizeof(mac)), 0);

	/* The U/L bit flips, whichever way it was; nothing else moves. */
	KUNIT_EXPECT_EQ(test, buf[1] ^ mac[0], 0x02);
	for (i = 1; i < 3; i++)
		KUNIT_EXPECT_EQ(test, buf[1 + i], mac[i]);
	KUNIT_EXPECT_EQ(test, buf[4], 0xff);
	KUNIT_EXPECT_EQ(test, buf[5], 0xfe);
	for (i = 3; i < 6; i++)
		KUNIT_EXPECT_EQ(test, buf[3 + i], mac[i]);

	/* What IPv6 and rdma_rxe derive from the same MAC. */
	addrconf_addr_eui48(eui, (const char *)mac);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(buf + 1, eui, 8), 0,
			    "got %8phC, addrconf_addr_eui48 %8phC",
			    buf + 1, eui);
}

static void wookie_guid_ul_bit(struct kunit *test)
{
	u8 mac[6] = { 0, 0x11, 0x22, 0x33, 0x44, 0x55 };
	u8 guid[8], eui[8];
	unsigned int b;

	for (b = 0; b < 256; b++) {
		mac[0] = b;
		wookie_guid_from_mac(mac, guid);
		addrconf_addr_eui48(eui, (const char *)mac);
		KUNIT_EXPECT_EQ_MSG(test, guid[0], (u8)(b ^ 0x02),
				    "first byte %#04x", b);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(guid, eui, 8), 0,
				    "first byte %#04x", b);
		/* Flipping the bit back recovers the MAC. */
		KUNIT_EXPECT_EQ(test, (u8)(guid[0] ^ 0x02), mac[0]);
	}
}

/* ib_device.node_guid is __be64: the bytes are in network order. */
static void wookie_guid_byte_order(struct kunit *test)
{
	static const u8 mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	__be64 guid;

	wookie_guid_from_mac(mac, (u8 *)&guid);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(guid), 0x505400fffe123456ULL);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(&guid), 0x505400fffe123456ULL);
}

static void port_vector_desc(const struct wookie_port_vector *v, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "running %d carrier %d",
		 v->running, v->carrier);
}

KUNIT_ARRAY_PARAM(port_vectors, wookie_port_vectors, port_vector_desc);

static void wookie_port_state_table(struct kunit *test)
{
	const struct wookie_port_vector *v = test->param_value;
	int port = wookie_port_state(v->running, v->carrier);
	int phys = wookie_phys_state(v->running, v->carrier);

	KUNIT_EXPECT_EQ(test, port, v->port_state);
	KUNIT_EXPECT_EQ(test, phys, v->phys_state);
	/* ACTIVE and LINK_UP always go together. */
	KUNIT_EXPECT_EQ(test, port == IB_PORT_ACTIVE,
			phys == IB_PORT_PHYS_STATE_LINK_UP);
}

static void wookie_port_constants(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, WOOKIE_PORT_DOWN, IB_PORT_DOWN);
	KUNIT_EXPECT_EQ(test, WOOKIE_PORT_ACTIVE, IB_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, WOOKIE_PHYS_DISABLED,
			IB_PORT_PHYS_STATE_DISABLED);
	KUNIT_EXPECT_EQ(test, WOOKIE_PHYS_LINK_UP, IB_PORT_PHYS_STATE_LINK_UP);
}

static void hdr_vector_desc(const struct wookie_hdr_vector *v, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", v->name);
}

KUNIT_ARRAY_PARAM(hdr_vectors, wookie_hdr_vectors, hdr_vector_desc);

static void wookie_hdr_sizes(struct kunit *test)
{
	const struct wookie_hdr_vector *v = test->param_value;

	KUNIT_EXPECT_EQ(test, v->bytes, v->spec);
}

/* The same sizes as the kernel's own headers and structures define them. */
static void wookie_hdr_sizes_match_kernel(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, WOOKIE_IPV4_HDR_BYTES, IB_IP4_BYTES);
	KUNIT_EXPECT_EQ(test, WOOKIE_IPV4_HDR_BYTES, sizeof(struct iphdr));
	KUNIT_EXPECT_EQ(test, WOOKIE_IPV6_HDR_BYTES, IB_GRH_BYTES);
	KUNIT_EXPECT_EQ(test, WOOKIE_IPV6_HDR_BYTES, sizeof(struct ipv6hdr));
	KUNIT_EXPECT_EQ(test, WOOKIE_IPV6_HDR_BYTES, sizeof(struct ib_grh));
	KUNIT_EXPECT_EQ(test, WOOKIE_UDP_HDR_BYTES, IB_UDP_BYTES);
	KUNIT_EXPECT_EQ(test, WOOKIE_UDP_HDR_BYTES, sizeof(struct udphdr));
	KUNIT_EXPECT_EQ(test, WOOKIE_BTH_BYTES, IB_BTH_BYTES);
	KUNIT_EXPECT_EQ(test, WOOKIE_BTH_BYTES,
			sizeof_field(struct ib_other_headers, bth));
	KUNIT_EXPECT_EQ(test, WOOKIE_DETH_BYTES, IB_DETH_BYTES);
	KUNIT_EXPECT_EQ(test, WOOKIE_DETH_BYTES, sizeof_field(union ib_ehdrs, ud.deth));
	KUNIT_EXPECT_EQ(test, WOOKIE_RETH_BYTES, sizeof(struct ib_reth));
	KUNIT_EXPECT_EQ(test, WOOKIE_ATOMIC_ETH_BYTES, IB_EXT_ATOMICETH_BYTES);
	KUNIT_EXPECT_EQ(test, WOOKIE_ATOMIC_ETH_BYTES,
			sizeof(struct ib_atomic_eth));
	KUNIT_EXPECT_EQ(test, WOOKIE_AETH_BYTES, sizeof_field(union ib_ehdrs, aeth));
	KUNIT_EXPECT_EQ(test, WOOKIE_ATOMIC_ACK_ETH_BYTES,
			sizeof_field(union ib_ehdrs, at.atomic_ack_eth));
	KUNIT_EXPECT_EQ(test, WOOKIE_AETH_BYTES + WOOKIE_ATOMIC_ACK_ETH_BYTES,
			sizeof_field(union ib_ehdrs, at));
	KUNIT_EXPECT_EQ(test, WOOKIE_IMMDT_BYTES, sizeof_field(union ib_ehdrs, imm_data));
	KUNIT_EXPECT_EQ(test, WOOKIE_IETH_BYTES, sizeof_field(union ib_ehdrs, ieth));
	KUNIT_EXPECT_EQ(test, WOOKIE_ICRC_BYTES, IB_ICRC_BYTES);
	KUNIT_EXPECT_EQ(test, WOOKIE_XRCETH_BYTES, IB_EXT_XRC_BYTES);

	/* iboe_get_mtu()'s overhead is ours plus the XRCETH. */
	KUNIT_EXPECT_EQ(test, WOOKIE_MAX_ROCE_OVERHEAD + IB_EXT_XRC_BYTES,
			IB_GRH_BYTES + IB_UDP_BYTES + IB_BTH_BYTES +
			IB_EXT_XRC_BYTES + IB_EXT_ATOMICETH_BYTES +
			IB_ICRC_BYTES);
}

static void wookie_max_ext_hdr(struct kunit *test)
{
	unsigned int i, largest = 0;

	for (i = 0; i < ARRAY_SIZE(wookie_ext_hdr_sets); i++) {
		const struct wookie_ext_hdr_set *s = &wookie_ext_hdr_sets[i];

		KUNIT_EXPECT_LE_MSG(test, s->bytes,
				    (unsigned int)WOOKIE_MAX_EXT_HDR_BYTES,
				    "%s", s->name);
		largest = max(largest, s->bytes);
	}
	/* No more reserved than some packet needs. */
	KUNIT_EXPECT_EQ(test, largest, (unsigned int)WOOKIE_MAX_EXT_HDR_BYTES);
}

static struct kunit_case wookie_link_cases[] = {
	KUNIT_CASE_PARAM(wookie_mtu_for_netdev_vectors, mtu_vectors_gen_params),
	KUNIT_CASE(wookie_mtu_for_netdev_sweep),
	KUNIT_CASE_PARAM(wookie_mtu_to_bytes_codes, mtu_codes_gen_params),
	KUNIT_CASE(wookie_mtu_matches_ib_mtu),
	KUNIT_CASE(wookie_mtu_vs_iboe_get_mtu),
	KUNIT_CASE_PARAM(wookie_guid_from_mac_vectors, guid_vectors_gen_params),
	KUNIT_CASE(wookie_guid_ul_bit),
	KUNIT_CASE(wookie_guid_byte_order),
	KUNIT_CASE_PARAM(wookie_port_state_table, port_vectors_gen_params),
	KUNIT_CASE(wookie_port_constants),
	KUNIT_CASE_PARAM(wookie_hdr_sizes, hdr_vectors_gen_params),
	KUNIT_CASE(wookie_hdr_sizes_match_kernel),
	KUNIT_CASE(wookie_max_ext_hdr),
	{}
};

static struct kunit_suite wookie_link_suite = {
	.name = "wookie_link",
	.test_cases = wookie_link_cases,
};

kunit_test_suite(wookie_link_suite);
