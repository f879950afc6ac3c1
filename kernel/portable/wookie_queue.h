/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Ring arithmetic and the checks of what user space writes into a ring:
 * indices and WQEs are read from memory that user space can change at any
 * time, so the kernel copies a slot first and validates the copy with
 * these functions.  Shared by the module, KUnit and the host tests.
 */
#ifndef WOOKIE_QUEUE_H
#define WOOKIE_QUEUE_H

#include "wookie_compat.h"
#include <rdma/wookie-abi.h>

/* Largest number of SGEs of a WQE, and of inline bytes. */
#define WOOKIE_MAX_SGE 32
#define WOOKIE_MAX_INLINE 512
/* Largest ring; a power of two. */
#define WOOKIE_MAX_RING_ENTRIES 16384u

/* Entries ready to consume; valid only when wookie_ring_sane(). */
static inline __u32 wookie_ring_count(__u32 producer, __u32 consumer)
{
	return producer - consumer;
}

/* A producer index further than the ring size ahead is corruption. */
static inline bool wookie_ring_sane(__u32 producer, __u32 consumer,
				    __u32 num_entries)
{
	return producer - consumer <= num_entries;
}

/*
 * Entries the kernel may take next from a ring user space produces into.
 * @producer is user space's index (any value); @done is the oldest entry
 * the kernel still holds (its published consumer index) and @taken the
 * next entry it takes, both the kernel's own.  Every loop over new
 * entries is bounded by *@count, never by @producer: the count is at most
 * @num_entries less the entries taken and not done.  Returns false, with
 * *@count untouched, for an impossible producer: more than @num_entries
 * ahead of @done, or behind @taken (taken entries cannot be unposted).
 */
static inline bool wookie_ring_fetchable(__u32 producer, __u32 done,
					 __u32 taken, __u32 num_entries,
					 __u32 *count)
{
	__u32 held = taken - done;
	__u32 ahead = producer - done;

	if (held > num_entries || ahead > num_entries || ahead < held)
		return false;
	*count = ahead - held;
	return true;
}

/* Bytes of a ring of @num_entries slots of @stride bytes, header included. */
static inline size_t wookie_ring_bytes(__u32 num_entries, __u32 stride)
{
	return WOOKIE_RING_HDR_SIZE + (size_t)num_entries * stride;
}

/*
 * Ring geometry for a requested depth: the next power of two at least
 * @depth (and at least 1), 0 if that exceeds WOOKIE_MAX_RING_ENTRIES.
 */
__u32 wookie_ring_entries(__u32 depth);

/* The SQ slot size for @max_sge SGEs and @max_inline inline bytes. */
__u32 wookie_sq_stride(__u32 max_sge, __u32 max_inline);
/* The RQ/SRQ slot size for @max_sge SGEs. */
__u32 wookie_rq_stride(__u32 max_sge);

/* QP types as the send-WQE checks know them. */
enum wookie_qp_kind {
	WOOKIE_QP_KIND_RC,
	WOOKIE_QP_KIND_UC,
	WOOKIE_QP_KIND_UD,
	/* XRC initiator: RC's requester and completer, no receive side. */
	WOOKIE_QP_KIND_XRC_INI,
	/* XRC target: RC's responder only, receiving into XRC SRQs. */
	WOOKIE_QP_KIND_XRC_TGT,
};

/* The XRCETH's SRQ number is 24 bits. */
#define WOOKIE_XRC_SRQN_MASK 0xffffffu

/* Kinds that acknowledge and retransmit: RC and both XRC halves. */
static inline bool wookie_kind_reliable(enum wookie_qp_kind kind)
{
	return kind == WOOKIE_QP_KIND_RC || kind == WOOKIE_QP_KIND_XRC_INI ||
	       kind == WOOKIE_QP_KIND_XRC_TGT;
}

/* What a send queue was created with. */
struct wookie_sq_limits {
	enum wookie_qp_kind kind;
	__u32 max_sge;
	__u32 max_inline;
	/* A kernel consumer's QP: REG_MR allowed. */
	bool kernel;
};

/*
 * Check a send WQE, copied out of the ring together with its SGEs or
 * inline data (the copy holds wookie_sq_stride() bytes).  Returns:
 *   0          valid; *total_len (if not NULL) is its message length
 *              (8 for an ATOMIC WRITE, 0 for a FLUSH)
 *   -EINVAL    malformed: unknown opcode or one the QP type cannot post,
 *              unknown flags, num_sge above the limit, inline data above
 *              the limit or on an opcode without payload, nonzero
 *              reserved fields, an XRC SRQ number on a QP that is not an
 *              XRC initiator or above 24 bits, an atomic whose one SGE is
 *              not 8 bytes, SGEs on an ATOMIC WRITE (its 8 bytes are in
 *              the WQE) or a FLUSH, a FLUSH of no or an unknown placement
 *              type or selectivity level (LOC_QP_OP_ERR)
 *   -EMSGSIZE  the SGE lengths add up to more than 2^31 bytes, or a UD
 *              message above @mtu (LOC_LEN_ERR)
 */
int wookie_sqe_check(const struct wookie_sqe *wqe,
		     const struct wookie_sq_limits *lim, __u32 mtu,
		     __u64 *total_len);

/*
 * Check a receive WQE copied with its SGEs: 0, -EINVAL for num_sge above
 * @max_sge or nonzero reserved, -EMSGSIZE for lengths above 2^31 in sum.
 */
int wookie_rqe_check(const struct wookie_rqe *wqe, __u32 max_sge,
		     __u64 *total_len);

#endif /* WOOKIE_QUEUE_H */
