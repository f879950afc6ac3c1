// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Link-to-port mapping of a wookie device; see wookie_link.h.
 */
#include "wookie_link.h"

unsigned int wookie_mtu_to_bytes(enum wookie_mtu mtu)
{
	if (mtu < WOOKIE_MTU_256 || mtu > WOOKIE_MTU_4096)
		return 0;
	return 128u << mtu;
}

/*
 * The largest IB path MTU whose packets, with the largest RoCEv2 headers
 * (IPv6, AtomicETH), fit in one frame of the netdev: 1500 gives 1024 and
 * 9000 gives 4096, as for any RoCE NIC.  Returns 0 when not even 256 fits.
 */
enum wookie_mtu wookie_mtu_for_netdev(unsigned int netdev_mtu)
{
	enum wookie_mtu mtu;

	for (mtu = WOOKIE_MTU_4096; mtu >= WOOKIE_MTU_256; mtu--)
		if (wookie_mtu_to_bytes(mtu) + WOOKIE_MAX_ROCE_OVERHEAD <=
		    netdev_mtu)
			return mtu;
	return 0;
}

bool wookie_netdev_mtu_usable(unsigned int netdev_mtu)
{
	return wookie_mtu_for_netdev(netdev_mtu) != 0;
}

/*
 * Modified EUI-64 from a 48-bit MAC (RFC 4291, appendix A): insert FF:FE in
 * the middle and invert the universal/local bit.  The GUID is kept in
 * network byte order, as ib_device.node_guid is.
 */
void wookie_guid_from_mac(const __u8 mac[6], __u8 guid[8])
{
	guid[0] = mac[0] ^ 0x02;
	guid[1] = mac[1];
	guid[2] = mac[2];
	guid[3] = 0xff;
	guid[4] = 0xfe;
	guid[5] = mac[3];
	guid[6] = mac[4];
	guid[7] = mac[5];
}

/* A port is ACTIVE while its netdev is up and has carrier. */
int wookie_port_state(bool running, bool carrier)
{
	return running && carrier ? WOOKIE_PORT_ACTIVE : WOOKIE_PORT_DOWN;
}

int wookie_phys_state(bool running, bool carrier)
{
	return running && carrier ? WOOKIE_PHYS_LINK_UP : WOOKIE_PHYS_DISABLED;
}
