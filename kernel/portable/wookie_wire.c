// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RoCEv2 transport headers; see wookie_wire.h.  Fields are read and
 * written a byte at a time, so that the code needs no alignment and no
 * byte-order helper on any compiler it is built with.
 */
#include "wookie_wire.h"
#include "wookie_link.h"

#define OPF_SEND_PKT	(WOOKIE_OPF_PAYLOAD | WOOKIE_OPF_REQUEST | \
			 WOOKIE_OPF_SEND)
#define OPF_WRITE_PKT	(WOOKIE_OPF_PAYLOAD | WOOKIE_OPF_REQUEST | \
			 WOOKIE_OPF_WRITE)
#define OPF_READ_RESP	(WOOKIE_OPF_PAYLOAD | WOOKIE_OPF_RESPONSE | \
			 WOOKIE_OPF_READ)
#define OPF_ONLY	(WOOKIE_OPF_FIRST | WOOKIE_OPF_LAST)

/*
 * The RC meaning of each operation code (IBTA table 38); 0 is reserved.
 * A packet that is a whole message by itself (READ request, atomics, the
 * acknowledges) is FIRST | LAST.  ATOMIC ACKNOWLEDGE belongs to the
 * ATOMIC class as a READ RESPONSE belongs to READ: the completer matches
 * a response to its request by class; ACK is the plain acknowledge only.
 */
static const __u32 wookie_rc_op_flags[32] = {
	[WOOKIE_OP_SEND_FIRST] = OPF_SEND_PKT | WOOKIE_OPF_FIRST,
	[WOOKIE_OP_SEND_MIDDLE] = OPF_SEND_PKT | WOOKIE_OPF_MIDDLE,
	[WOOKIE_OP_SEND_LAST] = OPF_SEND_PKT | WOOKIE_OPF_LAST,
	[WOOKIE_OP_SEND_LAST_IMM] = OPF_SEND_PKT | WOOKIE_OPF_LAST |
		WOOKIE_OPF_IMMDT,
	[WOOKIE_OP_SEND_ONLY] = OPF_SEND_PKT | OPF_ONLY,
	[WOOKIE_OP_SEND_ONLY_IMM] = OPF_SEND_PKT | OPF_ONLY |
		WOOKIE_OPF_IMMDT,
	[WOOKIE_OP_WRITE_FIRST] = OPF_WRITE_PKT | WOOKIE_OPF_FIRST |
		WOOKIE_OPF_RETH,
	[WOOKIE_OP_WRITE_MIDDLE] = OPF_WRITE_PKT | WOOKIE_OPF_MIDDLE,
	[WOOKIE_OP_WRITE_LAST] = OPF_WRITE_PKT | WOOKIE_OPF_LAST,
	[WOOKIE_OP_WRITE_LAST_IMM] = OPF_WRITE_PKT | WOOKIE_OPF_LAST |
		WOOKIE_OPF_IMMDT,
	[WOOKIE_OP_WRITE_ONLY] = OPF_WRITE_PKT | OPF_ONLY | WOOKIE_OPF_RETH,
	[WOOKIE_OP_WRITE_ONLY_IMM] = OPF_WRITE_PKT | OPF_ONLY |
		WOOKIE_OPF_RETH | WOOKIE_OPF_IMMDT,
	[WOOKIE_OP_READ_REQUEST] = WOOKIE_OPF_REQUEST | WOOKIE_OPF_READ |
		OPF_ONLY | WOOKIE_OPF_RETH,
	[WOOKIE_OP_READ_RESPONSE_FIRST] = OPF_READ_RESP | WOOKIE_OPF_FIRST |
		WOOKIE_OPF_AETH,
	[WOOKIE_OP_READ_RESPONSE_MIDDLE] = OPF_READ_RESP | WOOKIE_OPF_MIDDLE,
	[WOOKIE_OP_READ_RESPONSE_LAST] = OPF_READ_RESP | WOOKIE_OPF_LAST |
		WOOKIE_OPF_AETH,
	[WOOKIE_OP_READ_RESPONSE_ONLY] = OPF_READ_RESP | OPF_ONLY |
		WOOKIE_OPF_AETH,
	[WOOKIE_OP_ACKNOWLEDGE] = WOOKIE_OPF_RESPONSE | WOOKIE_OPF_ACK |
		OPF_ONLY | WOOKIE_OPF_AETH,
	[WOOKIE_OP_ATOMIC_ACKNOWLEDGE] = WOOKIE_OPF_RESPONSE |
		WOOKIE_OPF_ATOMIC | OPF_ONLY | WOOKIE_OPF_AETH |
		WOOKIE_OPF_ATOMIC_ACK_ETH,
	[WOOKIE_OP_CMP_SWAP] = WOOKIE_OPF_REQUEST | WOOKIE_OPF_ATOMIC |
		OPF_ONLY | WOOKIE_OPF_ATOMIC_ETH,
	[WOOKIE_OP_FETCH_ADD] = WOOKIE_OPF_REQUEST | WOOKIE_OPF_ATOMIC |
		OPF_ONLY | WOOKIE_OPF_ATOMIC_ETH,
	[WOOKIE_OP_SEND_LAST_INV] = OPF_SEND_PKT | WOOKIE_OPF_LAST |
		WOOKIE_OPF_IETH,
	[WOOKIE_OP_SEND_ONLY_INV] = OPF_SEND_PKT | OPF_ONLY | WOOKIE_OPF_IETH,
	[WOOKIE_OP_FLUSH] = WOOKIE_OPF_REQUEST | WOOKIE_OPF_FLUSH | OPF_ONLY |
		WOOKIE_OPF_FETH | WOOKIE_OPF_RETH,
	[WOOKIE_OP_ATOMIC_WRITE] = WOOKIE_OPF_REQUEST |
		WOOKIE_OPF_ATOMIC_WRITE | OPF_ONLY | WOOKIE_OPF_RETH |
		WOOKIE_OPF_PAYLOAD,
};

__u32 wookie_opcode_flags(__u8 opcode)
{
	unsigned int op = opcode & ~WOOKIE_TRANSPORT_MASK;

	switch (opcode & WOOKIE_TRANSPORT_MASK) {
	case WOOKIE_TRANSPORT_RC:
		return wookie_rc_op_flags[op];
	case WOOKIE_TRANSPORT_UC:
		/* SEND and RDMA WRITE only, without invalidate. */
		if (op > WOOKIE_OP_WRITE_ONLY_IMM)
			return 0;
		return wookie_rc_op_flags[op];
	case WOOKIE_TRANSPORT_UD:
		if (op != WOOKIE_OP_SEND_ONLY && op != WOOKIE_OP_SEND_ONLY_IMM)
			return 0;
		return wookie_rc_op_flags[op] | WOOKIE_OPF_DETH;
	case WOOKIE_TRANSPORT_XRC:
		/* Requests name the SRQ; responses are RC's. */
		if (wookie_rc_op_flags[op] & WOOKIE_OPF_REQUEST)
			return wookie_rc_op_flags[op] | WOOKIE_OPF_XRCETH;
		return wookie_rc_op_flags[op];
	default:
		/* RD, CNP and the reserved transports. */
		return 0;
	}
}

static unsigned int wookie_flags_hdr_len(__u32 flags)
{
	unsigned int len = WOOKIE_BTH_BYTES;

	if (flags & WOOKIE_OPF_XRCETH)
		len += WOOKIE_XRCETH_BYTES;
	if (flags & WOOKIE_OPF_DETH)
		len += WOOKIE_DETH_BYTES;
	if (flags & WOOKIE_OPF_FETH)
		len += WOOKIE_FETH_BYTES;
	if (flags & WOOKIE_OPF_RETH)
		len += WOOKIE_RETH_BYTES;
	if (flags & WOOKIE_OPF_ATOMIC_ETH)
		len += WOOKIE_ATOMIC_ETH_BYTES;
	if (flags & WOOKIE_OPF_AETH)
		len += WOOKIE_AETH_BYTES;
	if (flags & WOOKIE_OPF_ATOMIC_ACK_ETH)
		len += WOOKIE_ATOMIC_ACK_ETH_BYTES;
	if (flags & WOOKIE_OPF_IMMDT)
		len += WOOKIE_IMMDT_BYTES;
	if (flags & WOOKIE_OPF_IETH)
		len += WOOKIE_IETH_BYTES;
	return len;
}

unsigned int wookie_hdrs_len(__u8 opcode)
{
	__u32 flags = wookie_opcode_flags(opcode);

	return flags ? wookie_flags_hdr_len(flags) : 0;
}

/* Big-endian fields, the caller having checked the bounds. */
static __u32 wookie_get24(const __u8 *p)
{
	return (__u32)p[0] << 16 | (__u32)p[1] << 8 | p[2];
}

static __u32 wookie_get32(const __u8 *p)
{
	return (__u32)p[0] << 24 | wookie_get24(p + 1);
}

static __u64 wookie_get64(const __u8 *p)
{
	return (__u64)wookie_get32(p) << 32 | wookie_get32(p + 4);
}

static void wookie_put24(__u8 *p, __u32 v)
{
	p[0] = (__u8)(v >> 16);
	p[1] = (__u8)(v >> 8);
	p[2] = (__u8)v;
}

static void wookie_put32(__u8 *p, __u32 v)
{
	p[0] = (__u8)(v >> 24);
	wookie_put24(p + 1, v);
}

static void wookie_put64(__u8 *p, __u64 v)
{
	wookie_put32(p, (__u32)(v >> 32));
	wookie_put32(p + 4, (__u32)v);
}

/* BTH byte 1: SE | M | PadCnt(2) | TVer(4). */
#define BTH_SE		0x80
#define BTH_MIGREQ	0x40
#define BTH_PAD_SHIFT	4
#define BTH_TVER_MASK	0x0f
/* BTH byte 4: F | B | reserved; byte 8: A | reserved. */
#define BTH_FECN	0x80
#define BTH_BECN	0x40
#define BTH_ACKREQ	0x80
/* FETH: reserved bits, selectivity level in bits 5:4, placement type 3:0. */
#define FETH_TYPE_MASK		0x0f
#define FETH_LEVEL_SHIFT	4
#define FETH_LEVEL_MASK		0x03

int wookie_hdrs_build(__u8 *buf, size_t cap, const struct wookie_hdrs *h)
{
	__u32 flags = wookie_opcode_flags(h->bth.opcode);
	unsigned int len;
	__u8 pad = 0;
	__u8 *p;

	if (!flags)
		return -EINVAL;
	len = wookie_flags_hdr_len(flags);
	if (cap < len)
		return -EINVAL;
	/* An opcode without payload gets no pad, whatever payload_len says. */
	if (flags & WOOKIE_OPF_PAYLOAD)
		pad = (__u8)(-h->payload_len & 3);

	memset(buf, 0, len);
	buf[0] = h->bth.opcode;
	buf[1] = (h->bth.solicited ? BTH_SE : 0) |
		 (h->bth.mig_req ? BTH_MIGREQ : 0) |
		 pad << BTH_PAD_SHIFT | (h->bth.tver & BTH_TVER_MASK);
	buf[2] = (__u8)(h->bth.pkey >> 8);
	buf[3] = (__u8)h->bth.pkey;
	buf[4] = (h->bth.fecn ? BTH_FECN : 0) | (h->bth.becn ? BTH_BECN : 0);
	wookie_put24(buf + 5, h->bth.dest_qp);
	buf[8] = h->bth.ack_req ? BTH_ACKREQ : 0;
	wookie_put24(buf + 9, h->bth.psn);
	p = buf + WOOKIE_BTH_BYTES;

	/* XRCETH first: 8 reserved bits, then the SRQ number. */
	if (flags & WOOKIE_OPF_XRCETH) {
		wookie_put24(p + 1, h->xrc_srqn);
		p += WOOKIE_XRCETH_BYTES;
	}
	if (flags & WOOKIE_OPF_DETH) {
		wookie_put32(p, h->deth.qkey);
		wookie_put24(p + 5, h->deth.src_qp);
		p += WOOKIE_DETH_BYTES;
	}
	if (flags & WOOKIE_OPF_FETH) {
		wookie_put32(p, (__u32)(h->feth.level & FETH_LEVEL_MASK) <<
				FETH_LEVEL_SHIFT | (h->feth.type & FETH_TYPE_MASK));
		p += WOOKIE_FETH_BYTES;
	}
	if (flags & WOOKIE_OPF_RETH) {
		wookie_put64(p, h->reth.va);
		wookie_put32(p + 8, h->reth.rkey);
		wookie_put32(p + 12, h->reth.dma_len);
		p += WOOKIE_RETH_BYTES;
	}
	if (flags & WOOKIE_OPF_ATOMIC_ETH) {
		wookie_put64(p, h->atomic.va);
		wookie_put32(p + 8, h->atomic.rkey);
		wookie_put64(p + 12, h->atomic.swap_add);
		wookie_put64(p + 20, h->atomic.compare);
		p += WOOKIE_ATOMIC_ETH_BYTES;
	}
	if (flags & WOOKIE_OPF_AETH) {
		p[0] = h->aeth.syndrome;
		wookie_put24(p + 1, h->aeth.msn);
		p += WOOKIE_AETH_BYTES;
	}
	if (flags & WOOKIE_OPF_ATOMIC_ACK_ETH) {
		wookie_put64(p, h->atomic_orig);
		p += WOOKIE_ATOMIC_ACK_ETH_BYTES;
	}
	if (flags & WOOKIE_OPF_IMMDT) {
		/* Already in network byte order. */
		memcpy(p, &h->imm_be, WOOKIE_IMMDT_BYTES);
		p += WOOKIE_IMMDT_BYTES;
	}
	if (flags & WOOKIE_OPF_IETH)
		wookie_put32(p, h->ieth_rkey);
	return (int)len;
}

/*
 * Reserved bits are ignored, as IBTA asks of a receiver.  Every read is of
 * a header whose end was checked against @len first.
 */
int wookie_hdrs_parse(const __u8 *buf, size_t len, struct wookie_hdrs *h)
{
	unsigned int hlen;
	const __u8 *p;
	size_t rest;
	__u32 flags;

	memset(h, 0, sizeof(*h));
	if (len < WOOKIE_BTH_BYTES)
		return -EINVAL;
	flags = wookie_opcode_flags(buf[0]);
	if (!flags || (buf[1] & BTH_TVER_MASK))
		return -EINVAL;
	hlen = wookie_flags_hdr_len(flags);

	h->bth.opcode = buf[0];
	h->bth.solicited = !!(buf[1] & BTH_SE);
	h->bth.mig_req = !!(buf[1] & BTH_MIGREQ);
	h->bth.pad = (buf[1] >> BTH_PAD_SHIFT) & 3;
	h->bth.tver = 0;
	h->bth.pkey = (__u16)(buf[2] << 8 | buf[3]);
	h->bth.fecn = !!(buf[4] & BTH_FECN);
	h->bth.becn = !!(buf[4] & BTH_BECN);
	h->bth.dest_qp = wookie_get24(buf + 5);
	h->bth.ack_req = !!(buf[8] & BTH_ACKREQ);
	h->bth.psn = wookie_get24(buf + 9);

	if (len < (size_t)hlen + h->bth.pad)
		return -EINVAL;
	rest = len - hlen - h->bth.pad;
	/*
	 * No payload means no pad either: a pad count on an ACK or a READ
	 * request is as malformed as stray bytes after its headers.
	 */
	if (!(flags & WOOKIE_OPF_PAYLOAD) && (rest || h->bth.pad))
		return -EINVAL;
	/*
	 * The pad makes the packet a multiple of 4 bytes (the headers are):
	 * any other pad count is as malformed.  More than a u32 can count is
	 * no RoCE packet either.
	 */
	if ((len & 3) || rest > 0xffffffffu)
		return -EINVAL;

	p = buf + WOOKIE_BTH_BYTES;
	if (flags & WOOKIE_OPF_XRCETH) {
		h->xrc_srqn = wookie_get24(p + 1);
		p += WOOKIE_XRCETH_BYTES;
	}
	if (flags & WOOKIE_OPF_DETH) {
		h->deth.qkey = wookie_get32(p);
		h->deth.src_qp = wookie_get24(p + 5);
		p += WOOKIE_DETH_BYTES;
	}
	if (flags & WOOKIE_OPF_FETH) {
		__u32 feth = wookie_get32(p);

		h->feth.type = feth & FETH_TYPE_MASK;
		h->feth.level = (feth >> FETH_LEVEL_SHIFT) & FETH_LEVEL_MASK;
		p += WOOKIE_FETH_BYTES;
	}
	if (flags & WOOKIE_OPF_RETH) {
		h->reth.va = wookie_get64(p);
		h->reth.rkey = wookie_get32(p + 8);
		h->reth.dma_len = wookie_get32(p + 12);
		p += WOOKIE_RETH_BYTES;
	}
	if (flags & WOOKIE_OPF_ATOMIC_ETH) {
		h->atomic.va = wookie_get64(p);
		h->atomic.rkey = wookie_get32(p + 8);
		h->atomic.swap_add = wookie_get64(p + 12);
		h->atomic.compare = wookie_get64(p + 20);
		p += WOOKIE_ATOMIC_ETH_BYTES;
	}
	if (flags & WOOKIE_OPF_AETH) {
		h->aeth.syndrome = p[0];
		h->aeth.msn = wookie_get24(p + 1);
		p += WOOKIE_AETH_BYTES;
	}
	if (flags & WOOKIE_OPF_ATOMIC_ACK_ETH) {
		h->atomic_orig = wookie_get64(p);
		p += WOOKIE_ATOMIC_ACK_ETH_BYTES;
	}
	if (flags & WOOKIE_OPF_IMMDT) {
		memcpy(&h->imm_be, p, WOOKIE_IMMDT_BYTES);
		p += WOOKIE_IMMDT_BYTES;
	}
	if (flags & WOOKIE_OPF_IETH)
		h->ieth_rkey = wookie_get32(p);

	h->flags = flags;
	h->hdr_len = hlen;
	h->payload_len = (__u32)rest;
	return 0;
}

/* IBTA table 45 in microseconds: code 0 is the longest, 655.36 ms. */
static const __u32 wookie_rnr_usec[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120,
	160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

unsigned int wookie_rnr_timer_usec(__u8 code)
{
	/* The field is 5 bits wide wherever it travels. */
	return wookie_rnr_usec[code & 0x1f];
}

/*
 * 4.096 us << timeout, rounded up so that a timer never fires before the
 * time the peer was promised: ceil(2^(12 + timeout) / 1000).  A table, as
 * a 64-bit division is not portable kernel code.
 */
static const __u64 wookie_ack_timeout_tab[32] = {
	0ull, 9ull, 17ull, 33ull,
	66ull, 132ull, 263ull, 525ull,
	1049ull, 2098ull, 4195ull, 8389ull,
	16778ull, 33555ull, 67109ull, 134218ull,
	268436ull, 536871ull, 1073742ull, 2147484ull,
	4294968ull, 8589935ull, 17179870ull, 34359739ull,
	68719477ull, 137438954ull, 274877907ull, 549755814ull,
	1099511628ull, 2199023256ull, 4398046512ull, 8796093023ull,
};

/* timeout is a 5-bit field, masked as the RNR code is; 0 is infinite. */
__u64 wookie_ack_timeout_usec(__u8 timeout)
{
	return wookie_ack_timeout_tab[timeout & 0x1f];
}
