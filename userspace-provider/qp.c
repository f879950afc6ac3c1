// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * wookie: the send and receive paths.  Work requests become WQEs written
 * straight into the mmapped SQ, RQ and SRQ rings, published by a release
 * store of the producer index.  The kernel engine is woken by one empty
 * post_send command only while the SQ's header says that it does not
 * watch the SQ (WOOKIE_RING_NEED_WAKEUP); receive WQEs are picked up when
 * packets arrive and need no call at all, except to have a QP in the
 * error state flush them.
 */
#include <errno.h>
#include <string.h>

#include <ccan/array_size.h>

#include "wookie.h"

static_assert(sizeof(struct ibv_sge) == sizeof(struct wookie_sge) &&
		      offsetof(struct ibv_sge, addr) ==
			      offsetof(struct wookie_sge, addr) &&
		      offsetof(struct ibv_sge, length) ==
			      offsetof(struct wookie_sge, length) &&
		      offsetof(struct ibv_sge, lkey) ==
			      offsetof(struct wookie_sge, lkey),
	      "struct ibv_sge and struct wookie_sge differ");

#define WR_BIT(op) (1u << (op))

/* What a WQE of each opcode carries, as the kernel's WQE check sees it. */
#define WOOKIE_OPS_PAYLOAD                                                     \
	(WR_BIT(WOOKIE_WR_SEND) | WR_BIT(WOOKIE_WR_SEND_WITH_IMM) |            \
	 WR_BIT(WOOKIE_WR_SEND_WITH_INV) | WR_BIT(WOOKIE_WR_RDMA_WRITE) |      \
	 WR_BIT(WOOKIE_WR_RDMA_WRITE_WITH_IMM))
#define WOOKIE_OPS_ATOMIC                                                      \
	(WR_BIT(WOOKIE_WR_ATOMIC_CMP_AND_SWP) |                                \
	 WR_BIT(WOOKIE_WR_ATOMIC_FETCH_AND_ADD))
/* Opcodes whose SGEs describe local memory (gather or scatter). */
#define WOOKIE_OPS_SGE                                                         \
	(WOOKIE_OPS_PAYLOAD | WR_BIT(WOOKIE_WR_RDMA_READ) | WOOKIE_OPS_ATOMIC)

/* Opcodes each transport can post (IBTA: UC has no READ, atomics, INV). */
#define WOOKIE_OPS_UD (WR_BIT(WOOKIE_WR_SEND) | WR_BIT(WOOKIE_WR_SEND_WITH_IMM))
#define WOOKIE_OPS_UC                                                          \
	(WOOKIE_OPS_UD | WR_BIT(WOOKIE_WR_RDMA_WRITE) |                        \
	 WR_BIT(WOOKIE_WR_RDMA_WRITE_WITH_IMM) | WR_BIT(WOOKIE_WR_LOCAL_INV) | \
	 WR_BIT(WOOKIE_WR_BIND_MW))
#define WOOKIE_OPS_RC                                                          \
	(WOOKIE_OPS_UC | WR_BIT(WOOKIE_WR_SEND_WITH_INV) |                     \
	 WR_BIT(WOOKIE_WR_RDMA_READ) | WOOKIE_OPS_ATOMIC)
/* IBTA 1.5, RC and XRC, the wr_* API only; a kernel that offers them. */
#define WOOKIE_OPS_IBTA15                                                      \
	(WR_BIT(WOOKIE_WR_ATOMIC_WRITE) | WR_BIT(WOOKIE_WR_FLUSH))

static uint32_t wookie_qp_opcodes(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
	case IBV_QPT_XRC_SEND:
		/* XRC_SEND is RC's requester: the same operations. */
		return WOOKIE_OPS_RC;
	case IBV_QPT_UC:
		return WOOKIE_OPS_UC;
	case IBV_QPT_UD:
		return WOOKIE_OPS_UD;
	default:
		return 0;
	}
}

uint64_t wookie_qp_send_ops(struct wookie_context *ctx, enum ibv_qp_type type)
{
	static const struct {
		enum wookie_wr_opcode op;
		uint64_t flag;
	} map[] = {
		{ WOOKIE_WR_SEND, IBV_QP_EX_WITH_SEND },
		{ WOOKIE_WR_SEND_WITH_IMM, IBV_QP_EX_WITH_SEND_WITH_IMM },
		{ WOOKIE_WR_SEND_WITH_INV, IBV_QP_EX_WITH_SEND_WITH_INV },
		{ WOOKIE_WR_RDMA_WRITE, IBV_QP_EX_WITH_RDMA_WRITE },
		{ WOOKIE_WR_RDMA_WRITE_WITH_IMM,
		  IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM },
		{ WOOKIE_WR_RDMA_READ, IBV_QP_EX_WITH_RDMA_READ },
		{ WOOKIE_WR_ATOMIC_CMP_AND_SWP,
		  IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP },
		{ WOOKIE_WR_ATOMIC_FETCH_AND_ADD,
		  IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD },
		{ WOOKIE_WR_LOCAL_INV, IBV_QP_EX_WITH_LOCAL_INV },
		{ WOOKIE_WR_BIND_MW, IBV_QP_EX_WITH_BIND_MW },
		{ WOOKIE_WR_ATOMIC_WRITE, IBV_QP_EX_WITH_ATOMIC_WRITE },
		{ WOOKIE_WR_FLUSH, IBV_QP_EX_WITH_FLUSH },
	};
	uint32_t ops = wookie_qp_opcodes(type);
	uint64_t flags = 0;
	size_t i;

	if ((ctx->caps & WOOKIE_CAP_ATOMIC_WRITE_FLUSH) &&
	    (ops & WR_BIT(WOOKIE_WR_RDMA_READ)))
		ops |= WOOKIE_OPS_IBTA15;

	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (ops & WR_BIT(map[i].op))
			flags |= map[i].flag;
	return flags;
}

/* The WOOKIE_WR_* of an IBV_WR_*, or -1 for one wookie does not do. */
static int wookie_wr_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND:
		return WOOKIE_WR_SEND;
	case IBV_WR_SEND_WITH_IMM:
		return WOOKIE_WR_SEND_WITH_IMM;
	case IBV_WR_SEND_WITH_INV:
		return WOOKIE_WR_SEND_WITH_INV;
	case IBV_WR_RDMA_WRITE:
		return WOOKIE_WR_RDMA_WRITE;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return WOOKIE_WR_RDMA_WRITE_WITH_IMM;
	case IBV_WR_RDMA_READ:
		return WOOKIE_WR_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return WOOKIE_WR_ATOMIC_CMP_AND_SWP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return WOOKIE_WR_ATOMIC_FETCH_AND_ADD;
	case IBV_WR_LOCAL_INV:
		return WOOKIE_WR_LOCAL_INV;
	case IBV_WR_BIND_MW:
		return WOOKIE_WR_BIND_MW;
	default:
		return -1;
	}
}

/* WQE flags of a work request's send flags (IBV_SEND_INLINE aside). */
static uint8_t wookie_wqe_flags(const struct wookie_qp *qp,
				unsigned int send_flags)
{
	uint8_t flags = 0;

	if ((send_flags & IBV_SEND_SIGNALED) || qp->sq_sig_all)
		flags |= WOOKIE_WQE_SIGNALED;
	if (send_flags & IBV_SEND_SOLICITED)
		flags |= WOOKIE_WQE_SOLICITED;
	if (send_flags & IBV_SEND_FENCE)
		flags |= WOOKIE_WQE_FENCE;
	return flags;
}

static void wookie_sqe_set_bind(struct wookie_sqe *sqe, const struct ibv_mw *mw,
				uint32_t rkey,
				const struct ibv_mw_bind_info *info)
{
	sqe->bind.addr = info->addr;
	sqe->bind.length = info->length;
	sqe->bind.rkey = rkey;
	sqe->bind.mw_rkey = mw->rkey;
	/* No MR: unbind a type 1 window. */
	sqe->bind.mr_lkey = info->mr ? info->mr->lkey : 0;
	sqe->bind.access = info->mw_access_flags;
}

static int wookie_sqe_inline(struct wookie_qp *qp, struct wookie_sqe *sqe,
			     const struct ibv_sge *sg, int num_sge)
{
	uint8_t *data = (uint8_t *)(sqe + 1);
	uint64_t len = 0;
	int i;

	for (i = 0; i < num_sge; i++)
		len += sg[i].length;
	if (len > qp->sq_max_inline)
		return EINVAL;

	for (i = 0; i < num_sge; i++) {
		if (!sg[i].length)
			continue;
		memcpy(data, (void *)(uintptr_t)sg[i].addr, sg[i].length);
		data += sg[i].length;
	}
	sqe->flags |= WOOKIE_WQE_INLINE;
	sqe->inline_len = len;
	return 0;
}

/*
 * Write one work request into an SQ slot, rejecting what the kernel's WQE
 * check would (which would move the QP to the error state).
 */
static int wookie_sqe_from_wr(struct wookie_qp *qp, struct wookie_sqe *sqe,
			      const struct ibv_send_wr *wr)
{
	const unsigned int known = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |
				   IBV_SEND_FENCE | IBV_SEND_INLINE;
	enum ibv_qp_type type = qp->vqp.qp.qp_type;
	bool inl = wr->send_flags & IBV_SEND_INLINE;
	int op = wookie_wr_opcode(wr->opcode);
	uint32_t bit;

	if (op < 0 || !(wookie_qp_opcodes(type) & WR_BIT(op)) ||
	    (wr->send_flags & ~known) || wr->num_sge < 0)
		return EINVAL;
	bit = WR_BIT(op);
	if (inl && !(bit & WOOKIE_OPS_PAYLOAD))
		return EINVAL;
	if (!inl && (bit & WOOKIE_OPS_SGE) &&
	    (uint32_t)wr->num_sge > qp->sq_max_sge)
		return EINVAL;
	if ((bit & WOOKIE_OPS_ATOMIC) &&
	    (wr->num_sge != 1 || wr->sg_list[0].length != sizeof(uint64_t)))
		return EINVAL;
	if (type == IBV_QPT_UD && !wr->wr.ud.ah)
		return EINVAL;
	if (type == IBV_QPT_XRC_SEND &&
	    wr->qp_type.xrc.remote_srqn > WOOKIE_XRC_SRQN_MAX)
		return EINVAL;

	memset(sqe, 0, sizeof(*sqe));
	sqe->wr_id = wr->wr_id;
	sqe->opcode = op;
	sqe->flags = wookie_wqe_flags(qp, wr->send_flags);
	/* Every XRC WQE names its SRQ; the kernel wants 0 elsewhere. */
	if (type == IBV_QPT_XRC_SEND)
		sqe->xrc_srqn = wr->qp_type.xrc.remote_srqn;

	switch (op) {
	case WOOKIE_WR_SEND_WITH_IMM:
	case WOOKIE_WR_RDMA_WRITE_WITH_IMM:
		sqe->ex = (__force uint32_t)wr->imm_data;
		break;
	case WOOKIE_WR_SEND_WITH_INV:
	case WOOKIE_WR_LOCAL_INV:
		sqe->ex = wr->invalidate_rkey;
		break;
	}

	switch (op) {
	case WOOKIE_WR_RDMA_WRITE:
	case WOOKIE_WR_RDMA_WRITE_WITH_IMM:
	case WOOKIE_WR_RDMA_READ:
		sqe->rdma.remote_addr = wr->wr.rdma.remote_addr;
		sqe->rdma.rkey = wr->wr.rdma.rkey;
		break;
	case WOOKIE_WR_ATOMIC_CMP_AND_SWP:
	case WOOKIE_WR_ATOMIC_FETCH_AND_ADD:
		sqe->atomic.remote_addr = wr->wr.atomic.remote_addr;
		sqe->atomic.compare_add = wr->wr.atomic.compare_add;
		sqe->atomic.swap = wr->wr.atomic.swap;
		sqe->atomic.rkey = wr->wr.atomic.rkey;
		break;
	case WOOKIE_WR_BIND_MW:
		wookie_sqe_set_bind(sqe, wr->bind_mw.mw, wr->bind_mw.rkey,
				    &wr->bind_mw.bind_info);
		break;
	case WOOKIE_WR_SEND:
	case WOOKIE_WR_SEND_WITH_IMM:
		if (type == IBV_QPT_UD) {
			sqe->ud.ah_num = to_wah(wr->wr.ud.ah)->ah_num;
			sqe->ud.remote_qpn = wr->wr.ud.remote_qpn;
			sqe->ud.remote_qkey = wr->wr.ud.remote_qkey;
		}
		break;
	}

	if (!(bit & WOOKIE_OPS_SGE))
		return 0;
	if (inl)
		return wookie_sqe_inline(qp, sqe, wr->sg_list, wr->num_sge);
	sqe->num_sge = wr->num_sge;
	if (wr->num_sge)
		memcpy(sqe + 1, wr->sg_list,
		       wr->num_sge * sizeof(struct wookie_sge));
	return 0;
}

/*
 * Wake the kernel engine for WQEs just published, unless it watches the
 * SQ.  The full fence orders the producer store before the load of
 * NEED_WAKEUP; the engine sets the flag, fences, and re-reads the
 * producer before it stops watching, so one side always sees the other
 * (the io_uring SQPOLL rule).  FLUSH: the QP is in error and flushes
 * what is posted when rung.
 */
static int wookie_sq_doorbell(struct wookie_qp *qp)
{
	struct ibv_send_wr *bad;

	atomic_thread_fence(memory_order_seq_cst);
	if (!(wookie_load_relaxed(&qp->sq.hdr->flags) &
	      (WOOKIE_RING_NEED_WAKEUP | WOOKIE_RING_FLUSH)))
		return 0;
	return ibv_cmd_post_send(&qp->vqp.qp, NULL, &bad);
}

/* Room for one more WQE at index?  Re-reads the consumer only if full. */
static bool wookie_queue_room(const struct wookie_queue *q, uint32_t index,
			      uint32_t *consumer)
{
	if (index - *consumer < q->num_entries)
		return true;
	*consumer = wookie_load_acquire(&q->hdr->consumer);
	return index - *consumer < q->num_entries;
}

/*
 * IBTA: no sends before RTS, no receives in RESET.  libibverbs keeps
 * ibv_qp.state from our modify_qp; the kernel's own moves to ERR (and
 * SQE) still accept posts, which it flushes.
 */
static bool wookie_sq_postable(struct ibv_qp *ibqp)
{
	return ibqp->state != IBV_QPS_RESET && ibqp->state != IBV_QPS_INIT &&
	       ibqp->state != IBV_QPS_RTR;
}

int wookie_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		     struct ibv_send_wr **bad_wr)
{
	struct wookie_qp *qp = to_wqp(ibqp);
	struct wookie_queue *sq = &qp->sq;
	uint32_t index, consumer;
	bool posted = false;
	int ret = 0;

	/* An XRC_RECV QP has no SQ. */
	if (!sq->hdr || !wookie_sq_postable(ibqp)) {
		*bad_wr = wr;
		return EINVAL;
	}

	pthread_spin_lock(&sq->lock);
	index = sq->index;
	consumer = wookie_load_acquire(&sq->hdr->consumer);
	for (; wr; wr = wr->next) {
		if (!wookie_queue_room(sq, index, &consumer)) {
			ret = ENOMEM;
			break;
		}
		ret = wookie_sqe_from_wr(qp, wookie_queue_slot(sq, index), wr);
		if (ret)
			break;
		index++;
		wookie_store_release(&sq->hdr->producer, index);
		posted = true;
	}
	sq->index = index;
	pthread_spin_unlock(&sq->lock);

	/*
	 * The WQEs before wr are posted whatever the doorbell does: the next
	 * doorbell or the polling engine picks them up.  A failed doorbell
	 * (the device gone, the SQ's flags scribbled over) is not reported:
	 * a post that returns an error must name its first WR not posted,
	 * and there is none; the completions, or their absence, tell.
	 */
	if (posted)
		wookie_sq_doorbell(qp);
	*bad_wr = ret ? wr : NULL;
	return ret;
}

/* Append receive WRs to an RQ or SRQ ring; *flush: the ring asks for one. */
static int wookie_post_rq(struct wookie_queue *q, uint32_t max_sge,
			  struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr,
			  bool *flush)
{
	uint32_t index, consumer;
	struct wookie_rqe *rqe;
	bool posted = false;
	int ret = 0;

	pthread_spin_lock(&q->lock);
	if (unlikely(!q->hdr)) {
		/* Unmapped by an SRQ resize meanwhile. */
		pthread_spin_unlock(&q->lock);
		*flush = false;
		*bad_wr = wr;
		return EIO;
	}
	index = q->index;
	consumer = wookie_load_acquire(&q->hdr->consumer);
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge) {
			ret = EINVAL;
			break;
		}
		if (!wookie_queue_room(q, index, &consumer)) {
			ret = ENOMEM;
			break;
		}
		rqe = wookie_queue_slot(q, index);
		rqe->wr_id = wr->wr_id;
		rqe->num_sge = wr->num_sge;
		rqe->reserved = 0;
		if (wr->num_sge)
			memcpy(rqe + 1, wr->sg_list,
			       wr->num_sge * sizeof(struct wookie_sge));
		index++;
		wookie_store_release(&q->hdr->producer, index);
		posted = true;
	}
	q->index = index;

	/*
	 * The kernel sets FLUSH and then flushes up to the producer it
	 * reads: the fence makes sure that either it saw our producer or we
	 * see its flag.  Under the lock: an SRQ resize unmaps the old ring.
	 */
	*flush = false;
	if (posted) {
		atomic_thread_fence(memory_order_seq_cst);
		*flush = wookie_load_relaxed(&q->hdr->flags) & WOOKIE_RING_FLUSH;
	}
	pthread_spin_unlock(&q->lock);
	*bad_wr = ret ? wr : NULL;
	return ret;
}

int wookie_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr)
{
	struct wookie_qp *qp = to_wqp(ibqp);
	struct ibv_recv_wr *bad;
	bool flush;
	int ret;

	/* The QP receives through an SRQ or XRC SRQs, or is in RESET. */
	if (!qp->rq.hdr || ibqp->state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}

	ret = wookie_post_rq(&qp->rq, qp->rq_max_sge, wr, bad_wr, &flush);
	/* A failed flush doorbell is not reported, as for a send. */
	if (flush)
		ibv_cmd_post_recv(ibqp, NULL, &bad);
	return ret;
}

int wookie_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr)
{
	struct wookie_srq *srq = to_wsrq(ibsrq);
	struct ibv_recv_wr *bad;
	bool flush;
	int ret;

	/* A resize whose ring we could not map: try again. */
	if (unlikely(!srq->q.hdr)) {
		ret = wookie_srq_remap(srq);
		if (ret) {
			*bad_wr = wr;
			return ret;
		}
	}
	ret = wookie_post_rq(&srq->q, srq->max_sge, wr, bad_wr, &flush);
	/* A failed flush doorbell is not reported, as for a send. */
	if (flush)
		ibv_cmd_post_srq_recv(ibsrq, NULL, &bad);
	return ret;
}

/* ibv_bind_mw(): type 1 windows, bound by a WQE on the SQ. */
int wookie_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		   struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {}, *bad;
	int ret;

	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;

	ret = wookie_post_send(ibqp, &wr, &bad);
	/* Posted: the window has its new rkey once the WQE succeeds. */
	if (!bad)
		mw->rkey = wr.bind_mw.rkey;
	return ret;
}

/*
 * The ibv_qp_ex wr_* API.  wr_start takes the SQ lock; each builder fills
 * the next slot beyond the producer and the setters complete it; nothing
 * is visible to the kernel until wr_complete publishes the producer.  The
 * first error sticks and is returned by wr_complete, which then discards
 * the whole sequence, as wr_abort does.
 */
static struct wookie_sqe *wookie_wr_new(struct ibv_qp_ex *ibqp,
					enum wookie_wr_opcode op)
{
	struct wookie_qp *qp = to_wqp_ex(ibqp);
	struct wookie_queue *sq = &qp->sq;
	struct wookie_sqe *sqe;
	uint32_t consumer;

	if (qp->wr_err)
		return NULL;

	consumer = wookie_load_acquire(&sq->hdr->consumer);
	if (qp->wr_index - consumer >= sq->num_entries) {
		qp->wr_err = ENOMEM;
		qp->wr_cur = NULL;
		return NULL;
	}

	sqe = wookie_queue_slot(sq, qp->wr_index);
	memset(sqe, 0, sizeof(*sqe));
	sqe->wr_id = ibqp->wr_id;
	sqe->opcode = op;
	/* IBV_SEND_INLINE means nothing here: wr_set_inline_data does. */
	sqe->flags = wookie_wqe_flags(qp, ibqp->wr_flags);
	qp->wr_index++;
	qp->wr_cur = sqe;
	return sqe;
}

/* The WQE a setter completes, or NULL (error recorded). */
static struct wookie_sqe *wookie_wr_cur(struct wookie_qp *qp)
{
	if (qp->wr_err)
		return NULL;
	if (!qp->wr_cur)
		qp->wr_err = EINVAL;
	return qp->wr_cur;
}

static void wookie_wr_fail(struct wookie_qp *qp, int err)
{
	qp->wr_err = err;
	qp->wr_cur = NULL;
}

static void wookie_wr_send(struct ibv_qp_ex *ibqp)
{
	wookie_wr_new(ibqp, WOOKIE_WR_SEND);
}

static void wookie_wr_send_imm(struct ibv_qp_ex *ibqp, __be32 imm_data)
{
	struct wookie_sqe *sqe = wookie_wr_new(ibqp, WOOKIE_WR_SEND_WITH_IMM);

	if (sqe)
		sqe->ex = (__force uint32_t)imm_data;
}

static void wookie_wr_send_inv(struct ibv_qp_ex *ibqp,
			       uint32_t invalidate_rkey)
{
	struct wookie_sqe *sqe = wookie_wr_new(ibqp, WOOKIE_WR_SEND_WITH_INV);

	if (sqe)
		sqe->ex = invalidate_rkey;
}

static void wookie_wr_rdma(struct ibv_qp_ex *ibqp, enum wookie_wr_opcode op,
			   uint32_t rkey, uint64_t remote_addr, uint32_t ex)
{
	struct wookie_sqe *sqe = wookie_wr_new(ibqp, op);

	if (!sqe)
		return;
	sqe->ex = ex;
	sqe->rdma.remote_addr = remote_addr;
	sqe->rdma.rkey = rkey;
}

static void wookie_wr_rdma_write(struct ibv_qp_ex *ibqp, uint32_t rkey,
				 uint64_t remote_addr)
{
	wookie_wr_rdma(ibqp, WOOKIE_WR_RDMA_WRITE, rkey, remote_addr, 0);
}

static void wookie_wr_rdma_write_imm(struct ibv_qp_ex *ibqp, uint32_t rkey,
				     uint64_t remote_addr, __be32 imm_data)
{
	wookie_wr_rdma(ibqp, WOOKIE_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr,
		       (__force uint32_t)imm_data);
}

static void wookie_wr_rdma_read(struct ibv_qp_ex *ibqp, uint32_t rkey,
				uint64_t remote_addr)
{
	wookie_wr_rdma(ibqp, WOOKIE_WR_RDMA_READ, rkey, remote_addr, 0);
}

static void wookie_wr_atomic(struct ibv_qp_ex *ibqp, enum wookie_wr_opcode op,
			     uint32_t rkey, uint64_t remote_addr,
			     uint64_t compare_add, uint64_t swap)
{
	struct wookie_sqe *sqe = wookie_wr_new(ibqp, op);

	if (!sqe)
		return;
	sqe->atomic.remote_addr = remote_addr;
	sqe->atomic.compare_add = compare_add;
	sqe->atomic.swap = swap;
	sqe->atomic.rkey = rkey;
}

static void wookie_wr_atomic_cmp_swp(struct ibv_qp_ex *ibqp, uint32_t rkey,
				     uint64_t remote_addr, uint64_t compare,
				     uint64_t swap)
{
	wookie_wr_atomic(ibqp, WOOKIE_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr,
			 compare, swap);
}

static void wookie_wr_atomic_fetch_add(struct ibv_qp_ex *ibqp, uint32_t rkey,
				       uint64_t remote_addr, uint64_t add)
{
	wookie_wr_atomic(ibqp, WOOKIE_WR_ATOMIC_FETCH_AND_ADD, rkey,
			 remote_addr, add, 0);
}

static void wookie_wr_atomic_write(struct ibv_qp_ex *ibqp, uint32_t rkey,
				   uint64_t remote_addr, const void *atomic_wr)
{
	struct wookie_sqe *sqe = wookie_wr_new(ibqp, WOOKIE_WR_ATOMIC_WRITE);

	if (!sqe)
		return;
	sqe->atomic_write.remote_addr = remote_addr;
	memcpy(sqe->atomic_write.data, atomic_wr,
	       sizeof(sqe->atomic_write.data));
	sqe->atomic_write.rkey = rkey;
	sqe->atomic_write.reserved = 0;
}

static void wookie_wr_flush(struct ibv_qp_ex *ibqp, uint32_t rkey,
			    uint64_t remote_addr, size_t len, uint8_t type,
			    uint8_t level)
{
	struct wookie_qp *qp = to_wqp_ex(ibqp);
	struct wookie_sqe *sqe = wookie_wr_new(ibqp, WOOKIE_WR_FLUSH);

	if (!sqe)
		return;
	/* The kernel refuses these too; here wr_complete says EINVAL. */
	if (!type || (type & ~(IBV_FLUSH_GLOBAL | IBV_FLUSH_PERSISTENT)) ||
	    (level != IBV_FLUSH_RANGE && level != IBV_FLUSH_MR) ||
	    (level == IBV_FLUSH_RANGE && len > UINT32_MAX)) {
		wookie_wr_fail(qp, EINVAL);
		return;
	}
	memset(&sqe->flush, 0, sizeof(sqe->flush));
	sqe->flush.type = type;
	sqe->flush.level = level;
	/* The whole MR: address and length mean nothing, send none. */
	if (level == IBV_FLUSH_RANGE) {
		sqe->flush.remote_addr = remote_addr;
		sqe->flush.length = len;
	}
	sqe->flush.rkey = rkey;
}

static void wookie_wr_bind_mw(struct ibv_qp_ex *ibqp, struct ibv_mw *mw,
			      uint32_t rkey,
			      const struct ibv_mw_bind_info *info)
{
	struct wookie_sqe *sqe = wookie_wr_new(ibqp, WOOKIE_WR_BIND_MW);

	if (sqe)
		wookie_sqe_set_bind(sqe, mw, rkey, info);
}

static void wookie_wr_local_inv(struct ibv_qp_ex *ibqp,
				uint32_t invalidate_rkey)
{
	struct wookie_sqe *sqe = wookie_wr_new(ibqp, WOOKIE_WR_LOCAL_INV);

	if (sqe)
		sqe->ex = invalidate_rkey;
}

/* Can the current WQE take num_sge SGEs? */
static bool wookie_wr_sge_ok(struct wookie_qp *qp, struct wookie_sqe *sqe,
			     size_t num_sge, const struct ibv_sge *sg)
{
	uint32_t bit = WR_BIT(sqe->opcode);

	if (!(bit & WOOKIE_OPS_SGE) || num_sge > qp->sq_max_sge)
		return false;
	if ((bit & WOOKIE_OPS_ATOMIC) &&
	    (num_sge != 1 || sg[0].length != sizeof(uint64_t)))
		return false;
	return true;
}

static void wookie_wr_set_sge_list(struct ibv_qp_ex *ibqp, size_t num_sge,
				   const struct ibv_sge *sg_list)
{
	struct wookie_qp *qp = to_wqp_ex(ibqp);
	struct wookie_sqe *sqe = wookie_wr_cur(qp);

	if (!sqe)
		return;
	if (!wookie_wr_sge_ok(qp, sqe, num_sge, sg_list)) {
		wookie_wr_fail(qp, EINVAL);
		return;
	}
	sqe->flags &= ~WOOKIE_WQE_INLINE;
	sqe->inline_len = 0;
	sqe->num_sge = num_sge;
	if (num_sge)
		memcpy(sqe + 1, sg_list, num_sge * sizeof(struct wookie_sge));
}

static void wookie_wr_set_sge(struct ibv_qp_ex *ibqp, uint32_t lkey,
			      uint64_t addr, uint32_t length)
{
	const struct ibv_sge sge = {
		.addr = addr,
		.length = length,
		.lkey = lkey,
	};

	wookie_wr_set_sge_list(ibqp, 1, &sge);
}

static void wookie_wr_set_inline_data_list(struct ibv_qp_ex *ibqp,
					   size_t num_buf,
					   const struct ibv_data_buf *buf_list)
{
	struct wookie_qp *qp = to_wqp_ex(ibqp);
	struct wookie_sqe *sqe = wookie_wr_cur(qp);
	uint8_t *data;
	uint64_t len = 0;
	size_t i;

	if (!sqe)
		return;
	for (i = 0; i < num_buf; i++)
		len += buf_list[i].length;
	if (!(WR_BIT(sqe->opcode) & WOOKIE_OPS_PAYLOAD) ||
	    len > qp->sq_max_inline) {
		wookie_wr_fail(qp, EINVAL);
		return;
	}

	data = (uint8_t *)(sqe + 1);
	for (i = 0; i < num_buf; i++) {
		if (!buf_list[i].length)
			continue;
		memcpy(data, buf_list[i].addr, buf_list[i].length);
		data += buf_list[i].length;
	}
	sqe->flags |= WOOKIE_WQE_INLINE;
	sqe->inline_len = len;
	sqe->num_sge = 0;
}

static void wookie_wr_set_inline_data(struct ibv_qp_ex *ibqp, void *addr,
				      size_t length)
{
	const struct ibv_data_buf buf = {
		.addr = addr,
		.length = length,
	};

	wookie_wr_set_inline_data_list(ibqp, 1, &buf);
}

static void wookie_wr_set_ud_addr(struct ibv_qp_ex *ibqp, struct ibv_ah *ah,
				  uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct wookie_qp *qp = to_wqp_ex(ibqp);
	struct wookie_sqe *sqe = wookie_wr_cur(qp);

	if (!sqe)
		return;
	if (qp->vqp.qp.qp_type != IBV_QPT_UD || !ah) {
		wookie_wr_fail(qp, EINVAL);
		return;
	}
	sqe->ud.ah_num = to_wah(ah)->ah_num;
	sqe->ud.remote_qpn = remote_qpn;
	sqe->ud.remote_qkey = remote_qkey;
}

static void wookie_wr_set_xrc_srqn(struct ibv_qp_ex *ibqp,
				   uint32_t remote_srqn)
{
	struct wookie_qp *qp = to_wqp_ex(ibqp);
	struct wookie_sqe *sqe = wookie_wr_cur(qp);

	if (!sqe)
		return;
	if (qp->vqp.qp.qp_type != IBV_QPT_XRC_SEND ||
	    remote_srqn > WOOKIE_XRC_SRQN_MAX) {
		wookie_wr_fail(qp, EINVAL);
		return;
	}
	sqe->xrc_srqn = remote_srqn;
}

static void wookie_wr_start(struct ibv_qp_ex *ibqp)
{
	struct wookie_qp *qp = to_wqp_ex(ibqp);

	pthread_spin_lock(&qp->sq.lock);
	qp->wr_index = qp->sq.index;
	qp->wr_cur = NULL;
	qp->wr_err = 0;
}

static int wookie_wr_complete(struct ibv_qp_ex *ibqp)
{
	struct wookie_qp *qp = to_wqp_ex(ibqp);
	struct wookie_queue *sq = &qp->sq;
	bool posted;
	int ret = qp->wr_err;

	if (!ret && !wookie_sq_postable(&qp->vqp.qp))
		ret = EINVAL;

	posted = !ret && qp->wr_index != sq->index;
	if (posted) {
		sq->index = qp->wr_index;
		wookie_store_release(&sq->hdr->producer, sq->index);
	}
	qp->wr_cur = NULL;
	pthread_spin_unlock(&sq->lock);

	if (posted)
		ret = wookie_sq_doorbell(qp);
	return ret;
}

static void wookie_wr_abort(struct ibv_qp_ex *ibqp)
{
	struct wookie_qp *qp = to_wqp_ex(ibqp);

	/* The slots beyond the producer are simply reused. */
	qp->wr_cur = NULL;
	pthread_spin_unlock(&qp->sq.lock);
}

/*
 * Fill the ibv_qp_ex operations; the builders not asked for stay NULL as
 * they would on hardware without them.  wr_flush only where the running
 * libibverbs has it (@has_wr_flush): libibverbs 44's struct ends before
 * it, and keeps its own word there (see wookie_qp_mark_ex()).
 */
void wookie_qp_init_send_ops(struct wookie_qp *qp, uint64_t send_ops_flags,
			     bool has_wr_flush)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	if (send_ops_flags & IBV_QP_EX_WITH_SEND)
		qpx->wr_send = wookie_wr_send;
	if (send_ops_flags & IBV_QP_EX_WITH_SEND_WITH_IMM)
		qpx->wr_send_imm = wookie_wr_send_imm;
	if (send_ops_flags & IBV_QP_EX_WITH_SEND_WITH_INV)
		qpx->wr_send_inv = wookie_wr_send_inv;
	if (send_ops_flags & IBV_QP_EX_WITH_RDMA_WRITE)
		qpx->wr_rdma_write = wookie_wr_rdma_write;
	if (send_ops_flags & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		qpx->wr_rdma_write_imm = wookie_wr_rdma_write_imm;
	if (send_ops_flags & IBV_QP_EX_WITH_RDMA_READ)
		qpx->wr_rdma_read = wookie_wr_rdma_read;
	if (send_ops_flags & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		qpx->wr_atomic_cmp_swp = wookie_wr_atomic_cmp_swp;
	if (send_ops_flags & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		qpx->wr_atomic_fetch_add = wookie_wr_atomic_fetch_add;
	if (send_ops_flags & IBV_QP_EX_WITH_BIND_MW)
		qpx->wr_bind_mw = wookie_wr_bind_mw;
	if (send_ops_flags & IBV_QP_EX_WITH_LOCAL_INV)
		qpx->wr_local_inv = wookie_wr_local_inv;
	if (send_ops_flags & IBV_QP_EX_WITH_ATOMIC_WRITE)
		qpx->wr_atomic_write = wookie_wr_atomic_write;
	if ((send_ops_flags & IBV_QP_EX_WITH_FLUSH) && has_wr_flush)
		qpx->wr_flush = wookie_wr_flush;

	qpx->wr_set_sge = wookie_wr_set_sge;
	qpx->wr_set_sge_list = wookie_wr_set_sge_list;
	qpx->wr_set_inline_data = wookie_wr_set_inline_data;
	qpx->wr_set_inline_data_list = wookie_wr_set_inline_data_list;
	qpx->wr_set_ud_addr = wookie_wr_set_ud_addr;
	qpx->wr_set_xrc_srqn = wookie_wr_set_xrc_srqn;
	qpx->wr_start = wookie_wr_start;
	qpx->wr_complete = wookie_wr_complete;
	qpx->wr_abort = wookie_wr_abort;
}
