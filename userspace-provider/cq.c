// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * wookie: completions.  The kernel writes CQEs into the mmapped CQ ring and
 * publishes its producer index with a release store; polling reads them and
 * hands slots back by a release store of the consumer index.  Arming is a
 * store to the ring header that the kernel checks when it writes a CQE.
 * None of this makes a system call.
 */
#include <errno.h>
#include <time.h>

#include "wookie.h"

static enum ibv_wc_opcode wookie_wc_opcode(uint8_t opcode)
{
	switch (opcode) {
	case WOOKIE_CQE_SEND:
		return IBV_WC_SEND;
	case WOOKIE_CQE_RDMA_WRITE:
		return IBV_WC_RDMA_WRITE;
	case WOOKIE_CQE_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case WOOKIE_CQE_COMP_SWAP:
		return IBV_WC_COMP_SWAP;
	case WOOKIE_CQE_FETCH_ADD:
		return IBV_WC_FETCH_ADD;
	case WOOKIE_CQE_BIND_MW:
		return IBV_WC_BIND_MW;
	case WOOKIE_CQE_LOCAL_INV:
		return IBV_WC_LOCAL_INV;
	case WOOKIE_CQE_RECV:
		return IBV_WC_RECV;
	case WOOKIE_CQE_RECV_RDMA_WITH_IMM:
		return IBV_WC_RECV_RDMA_WITH_IMM;
	case WOOKIE_CQE_ATOMIC_WRITE:
		return IBV_WC_ATOMIC_WRITE;
	case WOOKIE_CQE_FLUSH:
		return IBV_WC_FLUSH;
	default:
		/* REG_MR only exists on kernel consumers' CQs. */
		return IBV_WC_DRIVER1;
	}
}

static unsigned int wookie_wc_flags(uint8_t flags)
{
	unsigned int wc_flags = 0;

	if (flags & WOOKIE_CQE_WITH_IMM)
		wc_flags |= IBV_WC_WITH_IMM;
	if (flags & WOOKIE_CQE_WITH_INV)
		wc_flags |= IBV_WC_WITH_INV;
	if (flags & WOOKIE_CQE_GRH)
		wc_flags |= IBV_WC_GRH;
	return wc_flags;
}

/* The CQE at the consumer index, or NULL if the kernel has not written it. */
static const struct wookie_cqe *wookie_cq_next(struct wookie_cq *cq)
{
	struct wookie_queue *q = &cq->q;
	const struct wookie_cqe *cqe;

	for (;;) {
		/* The acquire pairs with the kernel's release of the CQE. */
		if (q->index == wookie_load_acquire(&q->hdr->producer))
			return NULL;
		cqe = wookie_queue_slot(q, q->index);
		if (!(cqe->flags & WOOKIE_CQE_DISCARDED))
			return cqe;
		/* A CQE of a QP that was reset since. */
		q->index++;
		wookie_store_release(&q->hdr->consumer, q->index);
	}
}

/*
 * A QP went to RESET: its completions must not show up any more.  The
 * slots between consumer and producer are ours to change; the kernel
 * writes only beyond the producer.
 */
void wookie_cq_clean(struct wookie_cq *cq, uint32_t qp_num)
{
	struct wookie_queue *q = &cq->q;
	struct wookie_cqe *cqe;
	uint32_t i, producer;

	pthread_spin_lock(&q->lock);
	if (q->hdr) {
		producer = wookie_load_acquire(&q->hdr->producer);
		for (i = q->index; i != producer; i++) {
			cqe = wookie_queue_slot(q, i);
			if (cqe->qp_num == qp_num)
				cqe->flags |= WOOKIE_CQE_DISCARDED;
		}
	}
	pthread_spin_unlock(&q->lock);
}

static void wookie_wc_from_cqe(struct ibv_wc *wc, const struct wookie_cqe *cqe)
{
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = wookie_wc_opcode(cqe->opcode);
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	/* imm_data (big endian) and invalidated_rkey share the field. */
	wc->imm_data = (__force __be32)cqe->ex;
	wc->qp_num = cqe->qp_num;
	wc->src_qp = cqe->src_qp;
	wc->wc_flags = wookie_wc_flags(cqe->flags);
	wc->pkey_index = cqe->pkey_index;
	wc->slid = 0;
	wc->sl = cqe->sl;
	wc->dlid_path_bits = 0;
}

int wookie_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct wookie_cq *cq = to_wcq(ibcq);
	const struct wookie_cqe *cqe;
	int n = 0;

	pthread_spin_lock(&cq->q.lock);
	if (unlikely(!cq->q.hdr)) {
		/* A resize lost its new ring. */
		pthread_spin_unlock(&cq->q.lock);
		return -EIO;
	}
	for (; n < ne; n++) {
		cqe = wookie_cq_next(cq);
		if (!cqe)
			break;
		wookie_wc_from_cqe(&wc[n], cqe);
		cq->q.index++;
	}
	/* Hands the slots back after the CQEs were copied out. */
	if (n)
		wookie_store_release(&cq->q.hdr->consumer, cq->q.index);
	pthread_spin_unlock(&cq->q.lock);
	return n;
}

/*
 * The kernel writes a CQE, publishes the producer, then reads arm; we store
 * arm, then read the producer when the application polls next.  The full
 * fence (with the kernel's smp_mb() between its two steps) makes sure one
 * side sees the other, so no completion goes both unpolled and unsignalled.
 * No lock: the application may arm inside a start_poll/end_poll sequence,
 * and only a concurrent resize (its own race) could move the ring.
 */
int wookie_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct wookie_ring_hdr *hdr = to_wcq(ibcq)->q.hdr;

	if (unlikely(!hdr))
		return EIO;
	wookie_store_release(&hdr->arm, solicited_only ?
						WOOKIE_CQ_ARM_SOLICITED :
						WOOKIE_CQ_ARM_NEXT);
	atomic_thread_fence(memory_order_seq_cst);
	return 0;
}

/*
 * ibv_cq_ex: start_poll takes the CQ lock and leaves it held for next_poll
 * and end_poll (released at once if there is nothing to poll); cq->cur is
 * the CQE the read_* callbacks look at.
 */
static void wookie_cq_ex_set_cur(struct wookie_cq *cq,
				 const struct wookie_cqe *cqe)
{
	cq->cur = cqe;
	cq->vcq.cq_ex.wr_id = cqe->wr_id;
	cq->vcq.cq_ex.status = cqe->status;
}

static int64_t wookie_wallclock_offset(void)
{
	struct timespec mono, real;

	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	return (int64_t)(real.tv_sec - mono.tv_sec) * 1000000000 +
	       (real.tv_nsec - mono.tv_nsec);
}

static int wookie_start_poll(struct ibv_cq_ex *ibcq,
			     struct ibv_poll_cq_attr *attr)
{
	struct wookie_cq *cq = to_wcq_ex(ibcq);
	const struct wookie_cqe *cqe;

	if (unlikely(attr->comp_mask))
		return EINVAL;

	pthread_spin_lock(&cq->q.lock);
	if (unlikely(!cq->q.hdr)) {
		pthread_spin_unlock(&cq->q.lock);
		return EIO;
	}
	cqe = wookie_cq_next(cq);
	if (!cqe) {
		pthread_spin_unlock(&cq->q.lock);
		return ENOENT;
	}
	if (cq->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
		cq->wallclock_offset = wookie_wallclock_offset();
	wookie_cq_ex_set_cur(cq, cqe);
	return 0;
}

static int wookie_next_poll(struct ibv_cq_ex *ibcq)
{
	struct wookie_cq *cq = to_wcq_ex(ibcq);
	const struct wookie_cqe *cqe;

	if (cq->cur) {
		cq->q.index++;
		wookie_store_release(&cq->q.hdr->consumer, cq->q.index);
		cq->cur = NULL;
	}
	cqe = wookie_cq_next(cq);
	if (!cqe)
		return ENOENT;
	wookie_cq_ex_set_cur(cq, cqe);
	return 0;
}

static void wookie_end_poll(struct ibv_cq_ex *ibcq)
{
	struct wookie_cq *cq = to_wcq_ex(ibcq);

	if (cq->cur) {
		cq->q.index++;
		wookie_store_release(&cq->q.hdr->consumer, cq->q.index);
		cq->cur = NULL;
	}
	pthread_spin_unlock(&cq->q.lock);
}

static enum ibv_wc_opcode wookie_read_opcode(struct ibv_cq_ex *ibcq)
{
	return wookie_wc_opcode(to_wcq_ex(ibcq)->cur->opcode);
}

static uint32_t wookie_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return to_wcq_ex(ibcq)->cur->vendor_err;
}

static uint32_t wookie_read_byte_len(struct ibv_cq_ex *ibcq)
{
	return to_wcq_ex(ibcq)->cur->byte_len;
}

/* Also ibv_wc_read_invalidated_rkey(): one field for both. */
static __be32 wookie_read_imm_data(struct ibv_cq_ex *ibcq)
{
	return (__force __be32)to_wcq_ex(ibcq)->cur->ex;
}

static uint32_t wookie_read_qp_num(struct ibv_cq_ex *ibcq)
{
	return to_wcq_ex(ibcq)->cur->qp_num;
}

static uint32_t wookie_read_src_qp(struct ibv_cq_ex *ibcq)
{
	return to_wcq_ex(ibcq)->cur->src_qp;
}

static unsigned int wookie_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	return wookie_wc_flags(to_wcq_ex(ibcq)->cur->flags);
}

static uint32_t wookie_read_slid(struct ibv_cq_ex *ibcq
				 __attribute__((unused)))
{
	return 0;
}

static uint8_t wookie_read_sl(struct ibv_cq_ex *ibcq)
{
	return to_wcq_ex(ibcq)->cur->sl;
}

static uint8_t wookie_read_dlid_path_bits(struct ibv_cq_ex *ibcq
					  __attribute__((unused)))
{
	return 0;
}

/* In hca_core_clock ticks: nanoseconds of CLOCK_MONOTONIC. */
static uint64_t wookie_read_completion_ts(struct ibv_cq_ex *ibcq)
{
	return to_wcq_ex(ibcq)->cur->timestamp;
}

static uint64_t wookie_read_completion_wallclock_ns(struct ibv_cq_ex *ibcq)
{
	struct wookie_cq *cq = to_wcq_ex(ibcq);

	return cq->cur->timestamp + cq->wallclock_offset;
}

/* No completion is a tag-matching one (WOOKIE_CQ_EX_WC_FLAGS). */
static void wookie_read_tm_info(struct ibv_cq_ex *ibcq __attribute__((unused)),
				struct ibv_wc_tm_info *tm_info)
{
	tm_info->tag = 0;
	tm_info->priv = 0;
}

/*
 * Every reader is set whatever wc_flags asked for: they all read the same
 * CQE, and an unrequested one then returns a value rather than crashing.
 */
void wookie_cq_init_ex_ops(struct wookie_cq *cq)
{
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;

	cqx->start_poll = wookie_start_poll;
	cqx->next_poll = wookie_next_poll;
	cqx->end_poll = wookie_end_poll;
	cqx->read_opcode = wookie_read_opcode;
	cqx->read_vendor_err = wookie_read_vendor_err;
	cqx->read_byte_len = wookie_read_byte_len;
	cqx->read_imm_data = wookie_read_imm_data;
	cqx->read_qp_num = wookie_read_qp_num;
	cqx->read_src_qp = wookie_read_src_qp;
	cqx->read_wc_flags = wookie_read_wc_flags;
	cqx->read_slid = wookie_read_slid;
	cqx->read_sl = wookie_read_sl;
	cqx->read_dlid_path_bits = wookie_read_dlid_path_bits;
	cqx->read_completion_ts = wookie_read_completion_ts;
	cqx->read_completion_wallclock_ns =
		wookie_read_completion_wallclock_ns;
	cqx->read_tm_info = wookie_read_tm_info;
}
