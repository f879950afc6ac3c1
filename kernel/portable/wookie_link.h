/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * How a wookie port presents its Ethernet link to RDMA: path MTU from the
 * netdev MTU, GUIDs from the MAC address, port state from the link state.
 * Pure functions, shared by the module, KUnit and the host unit tests.
 */
#ifndef WOOKIE_LINK_H
#define WOOKIE_LINK_H

#include "wookie_compat.h"

/* RoCEv2 header sizes on the wire, in bytes (IBTA 1.4, Annex A17). */
enum {
	WOOKIE_IPV4_HDR_BYTES = 20,
	WOOKIE_IPV6_HDR_BYTES = 40,
	WOOKIE_UDP_HDR_BYTES = 8,
	WOOKIE_BTH_BYTES = 12,
	WOOKIE_RETH_BYTES = 16,
	WOOKIE_AETH_BYTES = 4,
	WOOKIE_ATOMIC_ETH_BYTES = 28,
	WOOKIE_ATOMIC_ACK_ETH_BYTES = 8,
	WOOKIE_IMMDT_BYTES = 4,
	WOOKIE_IETH_BYTES = 4,
	WOOKIE_DETH_BYTES = 8,
	WOOKIE_XRCETH_BYTES = 4,
	WOOKIE_FETH_BYTES = 4,
	WOOKIE_ICRC_BYTES = 4,
	/*
	 * The largest set of extended headers one packet carries: AtomicETH.
	 * An XRC atomic request (XRCETH + AtomicETH) is larger but carries
	 * no payload; XRC packets with payload carry 24 bytes at most.
	 */
	WOOKIE_MAX_EXT_HDR_BYTES = WOOKIE_ATOMIC_ETH_BYTES,
	/* Everything a packet adds to its payload inside an Ethernet frame. */
	WOOKIE_MAX_ROCE_OVERHEAD = WOOKIE_IPV6_HDR_BYTES +
		WOOKIE_UDP_HDR_BYTES + WOOKIE_BTH_BYTES +
		WOOKIE_MAX_EXT_HDR_BYTES + WOOKIE_ICRC_BYTES,
};

/* IBTA path MTU codes; the values of enum ib_mtu and enum ibv_mtu. */
enum wookie_mtu {
	WOOKIE_MTU_256 = 1,
	WOOKIE_MTU_512 = 2,
	WOOKIE_MTU_1024 = 3,
	WOOKIE_MTU_2048 = 4,
	WOOKIE_MTU_4096 = 5,
};

/* IBTA port states and physical port states (enum ib_port_state et al.). */
enum {
	WOOKIE_PORT_DOWN = 1,
	WOOKIE_PORT_ACTIVE = 4,
	WOOKIE_PHYS_DISABLED = 3,
	WOOKIE_PHYS_LINK_UP = 5,
};

unsigned int wookie_mtu_to_bytes(enum wookie_mtu mtu);
enum wookie_mtu wookie_mtu_for_netdev(unsigned int netdev_mtu);
bool wookie_netdev_mtu_usable(unsigned int netdev_mtu);
void wookie_guid_from_mac(const __u8 mac[6], __u8 guid[8]);
int wookie_port_state(bool running, bool carrier);
int wookie_phys_state(bool running, bool carrier);

#endif /* WOOKIE_LINK_H */
