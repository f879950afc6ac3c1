/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The RoCEv2 invariant CRC (IBTA 1.4 Annex A17.3.3): a CRC-32 over the
 * parts of a packet no router may change.  It starts with 8 bytes of ones
 * for the LRH that RoCEv2 lacks, then covers the IP header with its
 * variant fields set to ones (IPv4: TOS, TTL, header checksum; IPv6:
 * traffic class, flow label, hop limit), the UDP header with its checksum
 * set to ones, the BTH with its reserved byte (resv8a) set to ones, and
 * everything after it up to the end of the pad.  The 4 bytes after the
 * pad carry the result, least significant byte first.
 *
 * Shared by the module, KUnit and the host unit tests, fuzzers and the
 * packet tool.
 */
#ifndef WOOKIE_ICRC_H
#define WOOKIE_ICRC_H

#include "wookie_compat.h"
/* The header sizes: WOOKIE_ICRC_BYTES, WOOKIE_IPV4_HDR_BYTES, ... */
#include "wookie_link.h"

/* The RoCEv2 UDP destination port. */
#define WOOKIE_ROCE_UDP_PORT 4791

/*
 * CRC-32 (IEEE 802.3, reflected) of @len bytes at @buf continuing from
 * @crc, with no inversion before or after: crc32_le() in the kernel.
 */
__u32 wookie_crc32_le(__u32 crc, const __u8 *buf, size_t len);

/*
 * Start the ICRC of a packet whose IP header is at @ip: the masked IP,
 * UDP and BTH headers.  @len is what the caller can read from @ip on.
 * The IP version comes from the first byte; IPv4 must have no options
 * (IHL 5).  On success returns the number of bytes covered (IP + UDP +
 * BTH) and sets *@crc to the running CRC, to continue with
 * wookie_crc32_le() over the rest of the packet up to the end of the pad;
 * the ICRC is then ~*@crc.  Returns -EINVAL when @len is too short or the
 * IP header is not IPv4 without options or IPv6, and then leaves *@crc
 * alone.  Nothing else is checked (protocol, lengths, ports, opcode): that
 * is the parser's job; this never reads past @len bytes.
 */
int wookie_icrc_begin(const __u8 *ip, size_t len, __u32 *crc);

/*
 * The ICRC of a whole packet in one buffer: @len bytes from the IP
 * header to the end of the pad (the ICRC itself not included).  Returns
 * 0 and sets *@icrc, or -EINVAL as wookie_icrc_begin().  On the wire the
 * ICRC follows the pad least significant byte first (put_unaligned_le32()).
 */
int wookie_icrc(const __u8 *ip, size_t len, __u32 *icrc);

#endif /* WOOKIE_ICRC_H */
