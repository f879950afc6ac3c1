// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The RoCEv2 invariant CRC; see wookie_icrc.h.
 */
#include "wookie_icrc.h"

/* The BTH: its byte 4 is FECN, BECN and resv6, masked whole (resv8a). */
#define WOOKIE_ICRC_BTH_BYTES 12
#define WOOKIE_ICRC_BTH_RESV8A 4

/* Offsets of the variant fields in the IP and UDP headers. */
#define WOOKIE_IPV4_TOS 1
#define WOOKIE_IPV4_TTL 8
#define WOOKIE_IPV4_CHECK 10
#define WOOKIE_IPV6_HOP_LIMIT 7
#define WOOKIE_UDP_CHECK 6

/* The masked LRH of RoCEv2: 8 bytes of ones. */
#define WOOKIE_ICRC_LRH_BYTES 8

#ifdef __KERNEL__

__u32 wookie_crc32_le(__u32 crc, const __u8 *buf, size_t len)
{
	return crc32_le(crc, buf, len);
}

#else /* !__KERNEL__ */

/* The IEEE 802.3 polynomial, bit-reversed. */
#define WOOKIE_CRC32_POLY_LE 0xedb88320u

/* wookie_crc32_table[b]: the CRC of byte b, filled once at load time. */
static __u32 wookie_crc32_table[256];

static void __attribute__((constructor)) wookie_crc32_init(void)
{
	unsigned int b, bit;
	__u32 c;

	for (b = 0; b < 256; b++) {
		c = b;
		for (bit = 0; bit < 8; bit++)
			c = (c >> 1) ^ (WOOKIE_CRC32_POLY_LE & -(c & 1));
		wookie_crc32_table[b] = c;
	}
}

__u32 wookie_crc32_le(__u32 crc, const __u8 *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		crc = (crc >> 8) ^ wookie_crc32_table[(crc ^ buf[i]) & 0xff];
	return crc;
}

#endif /* __KERNEL__ */

int wookie_icrc_begin(const __u8 *ip, size_t len, __u32 *crc)
{
	static const __u8 lrh[WOOKIE_ICRC_LRH_BYTES] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	__u8 hdr[WOOKIE_IPV6_HDR_BYTES + WOOKIE_UDP_HDR_BYTES +
		 WOOKIE_ICRC_BTH_BYTES];
	size_t ip_bytes, n;
	__u8 *udp;
	__u32 c;

	if (!len)
		return -EINVAL;
	switch (ip[0] >> 4) {
	case 4:
		if ((ip[0] & 0x0f) != WOOKIE_IPV4_HDR_BYTES / 4)
			return -EINVAL;
		ip_bytes = WOOKIE_IPV4_HDR_BYTES;
		break;
	case 6:
		ip_bytes = WOOKIE_IPV6_HDR_BYTES;
		break;
	default:
		return -EINVAL;
	}
	n = ip_bytes + WOOKIE_UDP_HDR_BYTES + WOOKIE_ICRC_BTH_BYTES;
	if (len < n)
		return -EINVAL;

	memcpy(hdr, ip, n);
	if (ip_bytes == WOOKIE_IPV4_HDR_BYTES) {
		hdr[WOOKIE_IPV4_TOS] = 0xff;
		hdr[WOOKIE_IPV4_TTL] = 0xff;
		hdr[WOOKIE_IPV4_CHECK] = 0xff;
		hdr[WOOKIE_IPV4_CHECK + 1] = 0xff;
	} else {
		/*
		 * Version (4 bits), traffic class (8), flow label (20): all
		 * but the version.
		 */
		hdr[0] |= 0x0f;
		hdr[1] = 0xff;
		hdr[2] = 0xff;
		hdr[3] = 0xff;
		hdr[WOOKIE_IPV6_HOP_LIMIT] = 0xff;
	}
	udp = hdr + ip_bytes;
	udp[WOOKIE_UDP_CHECK] = 0xff;
	udp[WOOKIE_UDP_CHECK + 1] = 0xff;
	udp[WOOKIE_UDP_HDR_BYTES + WOOKIE_ICRC_BTH_RESV8A] = 0xff;

	c = wookie_crc32_le(~0u, lrh, sizeof(lrh));
	*crc = wookie_crc32_le(c, hdr, n);
	return (int)n;
}

int wookie_icrc(const __u8 *ip, size_t len, __u32 *icrc)
{
	__u32 crc;
	int n;

	n = wookie_icrc_begin(ip, len, &crc);
	if (n < 0)
		return n;
	crc = wookie_crc32_le(crc, ip + n, len - n);
	*icrc = ~crc;
	return 0;
}
