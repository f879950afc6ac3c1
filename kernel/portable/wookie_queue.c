// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Ring geometry and the checks of WQEs copied out of user-writable rings;
 * see wookie_queue.h.
 */
#include "wookie_queue.h"

/* IBTA: a message is at most 2^31 bytes. */
#define WOOKIE_MAX_MSG_BYTES 0x80000000ull

#define WOOKIE_WQE_KNOWN_FLAGS (WOOKIE_WQE_SIGNALED | WOOKIE_WQE_SOLICITED | \
				WOOKIE_WQE_FENCE | WOOKIE_WQE_INLINE)

__u32 wookie_ring_entries(__u32 depth)
{
	__u32 n = 1;

	if (depth > WOOKIE_MAX_RING_ENTRIES)
		return 0;
	while (n < depth)
		n <<= 1;
	return n;
}

/* @to is a power of two. */
static __u64 wookie_round_up(__u64 v, __u64 to)
{
	return (v + to - 1) & ~(to - 1);
}

/* 0 for limits no QP gets, rather than a wrapped size. */
__u32 wookie_sq_stride(__u32 max_sge, __u32 max_inline)
{
	__u64 sges = WOOKIE_SQE_SIZE((__u64)max_sge);
	__u64 data = sizeof(struct wookie_sqe) + (__u64)max_inline;
	__u64 stride = wookie_round_up(sges > data ? sges : data, 64);

	return stride > 0xffffffffull ? 0 : (__u32)stride;
}

__u32 wookie_rq_stride(__u32 max_sge)
{
	__u64 stride = wookie_round_up(WOOKIE_RQE_SIZE((__u64)max_sge), 16);

	return stride > 0xffffffffull ? 0 : (__u32)stride;
}

/* May a QP of @lim post @opcode at all? */
static bool wookie_sq_opcode_ok(const struct wookie_sq_limits *lim,
				__u8 opcode)
{
	switch (opcode) {
	case WOOKIE_WR_SEND:
	case WOOKIE_WR_SEND_WITH_IMM:
		return lim->kind == WOOKIE_QP_KIND_RC ||
		       lim->kind == WOOKIE_QP_KIND_UC ||
		       lim->kind == WOOKIE_QP_KIND_UD ||
		       lim->kind == WOOKIE_QP_KIND_XRC_INI;
	case WOOKIE_WR_RDMA_WRITE:
	case WOOKIE_WR_RDMA_WRITE_WITH_IMM:
	case WOOKIE_WR_LOCAL_INV:
	case WOOKIE_WR_BIND_MW:
		return lim->kind == WOOKIE_QP_KIND_RC ||
		       lim->kind == WOOKIE_QP_KIND_UC ||
		       lim->kind == WOOKIE_QP_KIND_XRC_INI;
	case WOOKIE_WR_SEND_WITH_INV:
	case WOOKIE_WR_RDMA_READ:
	case WOOKIE_WR_ATOMIC_CMP_AND_SWP:
	case WOOKIE_WR_ATOMIC_FETCH_AND_ADD:
	case WOOKIE_WR_ATOMIC_WRITE:
	case WOOKIE_WR_FLUSH:
		return lim->kind == WOOKIE_QP_KIND_RC ||
		       lim->kind == WOOKIE_QP_KIND_XRC_INI;
	case WOOKIE_WR_REG_MR:
		return lim->kernel && (lim->kind == WOOKIE_QP_KIND_RC ||
				       lim->kind == WOOKIE_QP_KIND_UC ||
				       lim->kind == WOOKIE_QP_KIND_XRC_INI);
	default:
		return false;
	}
}

/* Sum of @n SGE lengths, or -EMSGSIZE above a message's 2^31 bytes. */
static int wookie_sge_total(const struct wookie_sge *sge, __u32 n,
			    __u64 *total)
{
	__u64 sum = 0;
	__u32 i;

	/* At most WOOKIE_MAX_SGE u32 terms: the u64 cannot overflow. */
	for (i = 0; i < n; i++)
		sum += sge[i].length;
	if (sum > WOOKIE_MAX_MSG_BYTES)
		return -EMSGSIZE;
	*total = sum;
	return 0;
}

int wookie_sqe_check(const struct wookie_sqe *wqe,
		     const struct wookie_sq_limits *lim, __u32 mtu,
		     __u64 *total_len)
{
	const struct wookie_sge *sge = (const struct wookie_sge *)(wqe + 1);
	bool inl = wqe->flags & WOOKIE_WQE_INLINE;
	bool inline_ok = false, sges_ok = true;
	__u32 reserved = 0;
	__u64 total = 0;
	unsigned int i;
	int ret;

	if (!wookie_sq_opcode_ok(lim, wqe->opcode))
		return -EINVAL;
	if (wqe->flags & ~WOOKIE_WQE_KNOWN_FLAGS)
		return -EINVAL;
	if (lim->kind == WOOKIE_QP_KIND_XRC_INI ?
	    wqe->xrc_srqn > WOOKIE_XRC_SRQN_MASK : wqe->xrc_srqn != 0)
		return -EINVAL;

	/* Per opcode: the union member it uses, and what it may carry. */
	switch (wqe->opcode) {
	case WOOKIE_WR_SEND:
	case WOOKIE_WR_SEND_WITH_IMM:
		if (lim->kind == WOOKIE_QP_KIND_UD)
			reserved = wqe->ud.reserved;
		inline_ok = true;
		break;
	case WOOKIE_WR_SEND_WITH_INV:
		inline_ok = true;
		break;
	case WOOKIE_WR_RDMA_WRITE:
	case WOOKIE_WR_RDMA_WRITE_WITH_IMM:
		reserved = wqe->rdma.reserved;
		inline_ok = true;
		break;
	case WOOKIE_WR_RDMA_READ:
		reserved = wqe->rdma.reserved;
		break;
	case WOOKIE_WR_ATOMIC_CMP_AND_SWP:
	case WOOKIE_WR_ATOMIC_FETCH_AND_ADD:
		reserved = wqe->atomic.reserved;
		break;
	case WOOKIE_WR_ATOMIC_WRITE:
		/* The 8 bytes are in the WQE itself. */
		reserved = wqe->atomic_write.reserved;
		sges_ok = false;
		break;
	case WOOKIE_WR_FLUSH:
		if (!wqe->flush.type ||
		    wqe->flush.type & ~(WOOKIE_FLUSH_GLOBAL |
					WOOKIE_FLUSH_PERSISTENT) ||
		    wqe->flush.level > WOOKIE_FLUSH_LEVEL_MR)
			return -EINVAL;
		for (i = 0; i < sizeof(wqe->flush.reserved); i++)
			reserved |= wqe->flush.reserved[i];
		sges_ok = false;
		break;
	case WOOKIE_WR_REG_MR:
		reserved = wqe->reg.reserved;
		sges_ok = false;
		break;
	default:
		/* LOCAL_INV, BIND_MW: no reserved word in their member. */
		sges_ok = false;
		break;
	}
	if (reserved)
		return -EINVAL;
	if (inl && !inline_ok)
		return -EINVAL;

	if (inl) {
		/* num_sge means nothing here: the slot holds bytes. */
		if (wqe->inline_len > lim->max_inline ||
		    wqe->inline_len > WOOKIE_MAX_INLINE)
			return -EINVAL;
		total = wqe->inline_len;
	} else {
		if (wqe->inline_len)
			return -EINVAL;
		if (wqe->num_sge > lim->max_sge ||
		    wqe->num_sge > WOOKIE_MAX_SGE)
			return -EINVAL;
		if (!sges_ok && wqe->num_sge)
			return -EINVAL;
		if (wqe->opcode == WOOKIE_WR_ATOMIC_CMP_AND_SWP ||
		    wqe->opcode == WOOKIE_WR_ATOMIC_FETCH_AND_ADD) {
			if (wqe->num_sge != 1 || sge[0].length != 8)
				return -EINVAL;
		}
		ret = wookie_sge_total(sge, wqe->num_sge, &total);
		if (ret)
			return ret;
		if (wqe->opcode == WOOKIE_WR_ATOMIC_WRITE)
			total = sizeof(wqe->atomic_write.data);
	}

	if (lim->kind == WOOKIE_QP_KIND_UD && total > mtu)
		return -EMSGSIZE;
	if (total_len)
		*total_len = total;
	return 0;
}

int wookie_rqe_check(const struct wookie_rqe *wqe, __u32 max_sge,
		     __u64 *total_len)
{
	const struct wookie_sge *sge = (const struct wookie_sge *)(wqe + 1);
	__u64 total;
	int ret;

	if (wqe->reserved || wqe->num_sge > max_sge ||
	    wqe->num_sge > WOOKIE_MAX_SGE)
		return -EINVAL;
	ret = wookie_sge_total(sge, wqe->num_sge, &total);
	if (ret)
		return ret;
	if (total_len)
		*total_len = total;
	return 0;
}
