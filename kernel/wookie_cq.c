// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues.  The kernel produces CQEs into a ring; user space
 * polls its mapping of the ring and arms events by storing to the header's
 * arm word, so neither needs a system call.  Kernel consumers poll through
 * poll_cq.  The consumer index of a user CQ is read only to detect
 * overflow: nothing else depends on it.
 */
#include <linux/ktime.h>
#include <linux/minmax.h>

#include "wookie.h"

/* CQEs poll_cq copies out per lock hold; converted with the lock dropped. */
#define WOOKIE_POLL_BATCH 8

enum {
	WOOKIE_CQ_UPCALL_ERR,
	WOOKIE_CQ_UPCALL_COMP,
};

static void wookie_cq_err_event(struct wookie_cq *cq)
{
	struct ib_cq *ibcq = &cq->ibcq;
	struct ib_event ev = {
		.device = ibcq->device,
		.element.cq = ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	if (ibcq->event_handler)
		ibcq->event_handler(&ev, ibcq->cq_context);
}

/* Kernel CQs' handlers, from the device's upcall work. */
static void wookie_cq_upcall(struct wookie_upcall *up, unsigned int bit)
{
	struct wookie_cq *cq = container_of(up, struct wookie_cq, upcall);

	if (bit == WOOKIE_CQ_UPCALL_ERR)
		wookie_cq_err_event(cq);
	else if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

/*
 * A QP of this CQ is being destroyed, its engine stopped: the completion
 * upcalls it raised are delivered before destroy returns, so that none
 * comes after a consumer (ib_free_cq()) stopped listening.  From a
 * handler there is nothing to wait for: the CQ's upcalls run in that
 * same work, after it, and ib_free_cq() drops them (pre_destroy_cq).
 */
void wookie_cq_upcall_flush(struct wookie_cq *cq)
{
	if (!cq->user)
		wookie_upcall_sync(to_wookie_dev(cq->ibcq.device), &cq->upcall);
}

static bool wookie_cq_fires(bool next, bool sol, bool solicited,
			    const struct wookie_cqe *cqe)
{
	return next || (sol && (solicited || cqe->status != IB_WC_SUCCESS));
}

/*
 * User CQ: consume the arm word if this CQE satisfies it.  cmpxchg makes
 * one arming give one event even if the provider re-arms concurrently.
 */
static bool wookie_cq_user_disarm(struct wookie_ring_hdr *hdr, bool solicited,
				  const struct wookie_cqe *cqe)
{
	u32 arm = READ_ONCE(hdr->arm);
	int i;

	for (i = 0; i < WOOKIE_CMPXCHG_TRIES; i++) {
		u32 seen;

		if (!wookie_cq_fires(arm & WOOKIE_CQ_ARM_NEXT,
				     arm & WOOKIE_CQ_ARM_SOLICITED, solicited,
				     cqe))
			return false;
		seen = cmpxchg(&hdr->arm, arm, 0);
		if (seen == arm)
			return true;
		arm = seen;
	}
	return false;
}

/*
 * CQEs not consumed yet, for resize.  A user consumer index that makes no
 * sense counts as a full ring: the CQ can then only grow.
 */
static u32 wookie_cq_unconsumed(struct wookie_cq *cq, u32 *consumer)
{
	u32 cons = cq->user ? READ_ONCE(cq->ring.hdr->consumer) : cq->consumer;

	if (!wookie_ring_sane(cq->producer, cons, cq->ring.num_entries))
		cons = cq->producer - cq->ring.num_entries;
	*consumer = cons;
	return cq->producer - cons;
}

static int wookie_cq_check_udata(struct ib_udata *udata, size_t resp_len)
{
	if (udata->outlen < resp_len)
		return -EINVAL;
	/* No request structure is defined: anything sent must be zero. */
	if (!ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	return 0;
}

int wookie_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		     struct wookie_create_cq_attrs *attrs)
{
	struct ib_udata *udata = wookie_create_cq_udata(attrs);
	struct wookie_dev *wdev = to_wookie_dev(ibcq->device);
	struct wookie_cq *cq = to_wookie_cq(ibcq);
	struct wookie_create_cq_resp resp = {};
	u32 num_entries;
	int err;

	if (attr->cqe < 1 || attr->cqe > WOOKIE_MAX_CQE)
		return -EINVAL;
	if (attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	/* CQEs always carry a timestamp. */
	if (attr->flags & ~IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION)
		return -EOPNOTSUPP;
	if (udata) {
		err = wookie_cq_check_udata(udata, sizeof(resp));
		if (err)
			return err;
	}
	num_entries = wookie_ring_entries(attr->cqe);
	if (!num_entries)
		return -EINVAL;

	if (atomic_inc_return(&wdev->num_cq) > WOOKIE_MAX_CQ) {
		err = -ENOMEM;
		goto err_count;
	}

	spin_lock_init(&cq->lock);
	wookie_upcall_init(&cq->upcall, wookie_cq_upcall);
	cq->user = !!udata;
	cq->producer = 0;
	cq->consumer = 0;
	cq->notify = 0;
	cq->error = false;
	err = wookie_ring_alloc(&cq->ring, udata, num_entries,
				sizeof(struct wookie_cqe));
	if (err)
		goto err_count;
	/* Free-running indices: every slot is usable. */
	ibcq->cqe = num_entries;

	if (udata) {
		wookie_ring_info(&cq->ring, &resp.cq);
		err = wookie_mmap_resp(udata, &resp, sizeof(resp));
		if (err)
			goto err_ring;
	}
	return 0;

err_ring:
	wookie_ring_free(&cq->ring);
err_count:
	atomic_dec(&wdev->num_cq);
	return err;
}

/*
 * ib_free_cq(): no completion handler from now on, before ib_core cancels
 * the CQ's poll work, which a later handler would queue again after the
 * CQ is freed (a QP destroyed from a handler leaves its CQs' upcalls to
 * run after that handler).
 */
int wookie_pre_destroy_cq(struct ib_cq *ibcq)
{
	wookie_upcall_stop(to_wookie_dev(ibcq->device),
			   &to_wookie_cq(ibcq)->upcall, false);
	return 0;
}

/*
 * ib_core refuses while QPs use the CQ, so no CQE is being written.  A
 * handler still to be called is not: the CQ is going away.
 */
int wookie_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct wookie_dev *wdev = to_wookie_dev(ibcq->device);
	struct wookie_cq *cq = to_wookie_cq(ibcq);

	wookie_upcall_stop(wdev, &cq->upcall, false);

	wookie_ring_free(&cq->ring);
	atomic_dec(&wdev->num_cq);
	return 0;
}

/*
 * A new ring replaces the old one with the unconsumed CQEs copied over at
 * the same free-running indices, so the provider keeps its consumer index
 * and only remaps.  The old user mapping stays valid until unmapped.
 */
int wookie_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct wookie_cq *cq = to_wookie_cq(ibcq);
	struct wookie_resize_cq_resp resp = {};
	struct wookie_ring ring, old;
	struct wookie_ring_hdr *hdr;
	unsigned long flags;
	u32 num_entries, consumer, count, i;
	int err;

	if (cqe < 1 || cqe > WOOKIE_MAX_CQE)
		return -EINVAL;
	if (udata) {
		err = wookie_cq_check_udata(udata, sizeof(resp));
		if (err)
			return err;
	}
	num_entries = wookie_ring_entries(cqe);
	if (!num_entries)
		return -EINVAL;

	/* Early answer; checked again below, when it is final. */
	spin_lock_irqsave(&cq->lock, flags);
	count = wookie_cq_unconsumed(cq, &consumer);
	spin_unlock_irqrestore(&cq->lock, flags);
	if (count > num_entries)
		return -EINVAL;

	err = wookie_ring_alloc(&ring, udata, num_entries,
				sizeof(struct wookie_cqe));
	if (err)
		return err;
	/* Before the swap: once swapped, the provider must know the ring. */
	if (udata) {
		wookie_ring_info(&ring, &resp.cq);
		err = wookie_mmap_resp(udata, &resp, sizeof(resp));
		if (err)
			goto err_free;
	}

	spin_lock_irqsave(&cq->lock, flags);
	count = wookie_cq_unconsumed(cq, &consumer);
	if (count > num_entries) {
		spin_unlock_irqrestore(&cq->lock, flags);
		err = -EINVAL;
		goto err_free;
	}
	for (i = 0; i < count; i++)
		memcpy(wookie_ring_slot(&ring, consumer + i),
		       wookie_ring_slot(&cq->ring, consumer + i),
		       sizeof(struct wookie_cqe));
	hdr = cq->ring.hdr;
	ring.hdr->consumer = consumer;
	ring.hdr->arm = READ_ONCE(hdr->arm);
	ring.hdr->flags = READ_ONCE(hdr->flags);
	/* Release: the copied CQEs are visible before the index. */
	smp_store_release(&ring.hdr->producer, cq->producer);
	if (!cq->user)
		cq->consumer = consumer;
	old = cq->ring;
	cq->ring = ring;
	ibcq->cqe = num_entries;
	spin_unlock_irqrestore(&cq->lock, flags);

	wookie_ring_free(&old);
	return 0;

err_free:
	wookie_ring_free(&ring);
	return err;
}

static const u8 wookie_wc_opcode[] = {
	[WOOKIE_CQE_SEND] = IB_WC_SEND,
	[WOOKIE_CQE_RDMA_WRITE] = IB_WC_RDMA_WRITE,
	[WOOKIE_CQE_RDMA_READ] = IB_WC_RDMA_READ,
	[WOOKIE_CQE_COMP_SWAP] = IB_WC_COMP_SWAP,
	[WOOKIE_CQE_FETCH_ADD] = IB_WC_FETCH_ADD,
	[WOOKIE_CQE_BIND_MW] = IB_WC_BIND_MW,
	[WOOKIE_CQE_LOCAL_INV] = IB_WC_LOCAL_INV,
	[WOOKIE_CQE_REG_MR] = IB_WC_REG_MR,
	[WOOKIE_CQE_RECV] = IB_WC_RECV,
	[WOOKIE_CQE_RECV_RDMA_WITH_IMM] = IB_WC_RECV_RDMA_WITH_IMM,
};

static void wookie_cqe_to_wc(struct wookie_dev *wdev,
			     const struct wookie_cqe *cqe, struct ib_wc *wc)
{
	struct wookie_qp *qp;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	if (cqe->opcode < ARRAY_SIZE(wookie_wc_opcode))
		wc->opcode = wookie_wc_opcode[cqe->opcode];
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	if (cqe->flags & WOOKIE_CQE_WITH_IMM) {
		wc->ex.imm_data = (__force __be32)cqe->ex;
		wc->wc_flags |= IB_WC_WITH_IMM;
	} else if (cqe->flags & WOOKIE_CQE_WITH_INV) {
		wc->ex.invalidate_rkey = cqe->ex;
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
	}
	if (cqe->flags & WOOKIE_CQE_GRH)
		wc->wc_flags |= IB_WC_GRH;
	if (cqe->network_hdr_type == WOOKIE_NETWORK_IPV4) {
		wc->network_hdr_type = RDMA_NETWORK_IPV4;
		wc->wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
	} else if (cqe->network_hdr_type == WOOKIE_NETWORK_IPV6) {
		wc->network_hdr_type = RDMA_NETWORK_IPV6;
		wc->wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
	}
	wc->src_qp = cqe->src_qp;
	wc->pkey_index = cqe->pkey_index;
	wc->sl = cqe->sl;
	wc->port_num = 1;

	/*
	 * The QP may have been destroyed since the CQE was written (a kernel
	 * consumer polling after destroying its QP gets wc->qp NULL).  The
	 * pointer is not held: consumers destroy a QP only after draining.
	 */
	qp = wookie_qp_get(wdev, cqe->qp_num);
	if (qp) {
		wc->qp = &qp->ibqp;
		wookie_qp_put(qp);
	}
}

int wookie_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct wookie_dev *wdev = to_wookie_dev(ibcq->device);
	struct wookie_cq *cq = to_wookie_cq(ibcq);
	struct wookie_cqe batch[WOOKIE_POLL_BATCH];
	unsigned long flags;
	int done = 0;

	/* User CQs are polled in user space, from the mapped ring. */
	if (cq->user)
		return -EINVAL;

	while (done < num_entries) {
		int want = min(num_entries - done, WOOKIE_POLL_BATCH);
		int n = 0, i;

		spin_lock_irqsave(&cq->lock, flags);
		while (n < want && cq->consumer != cq->producer) {
			struct wookie_cqe *cqe =
				wookie_ring_slot(&cq->ring, cq->consumer);

			cq->consumer++;
			if (cqe->flags & WOOKIE_CQE_DISCARDED)
				continue;
			memcpy(&batch[n++], cqe, sizeof(batch[0]));
		}
		spin_unlock_irqrestore(&cq->lock, flags);

		/* The QP lookups happen outside the CQ lock. */
		for (i = 0; i < n; i++)
			wookie_cqe_to_wc(wdev, &batch[i], &wc[done + i]);
		done += n;
		if (n < want)
			break;
	}
	return done;
}

/* A kernel consumer's QP went to RESET: hide its unpolled CQEs. */
void wookie_cq_discard_qp(struct wookie_cq *cq, u32 qp_num)
{
	unsigned long flags;
	u32 i;

	if (cq->user)
		return;
	spin_lock_irqsave(&cq->lock, flags);
	for (i = cq->consumer; i != cq->producer; i++) {
		struct wookie_cqe *cqe = wookie_ring_slot(&cq->ring, i);

		if (cqe->qp_num == qp_num)
			cqe->flags |= WOOKIE_CQE_DISCARDED;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
}

int wookie_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct wookie_cq *cq = to_wookie_cq(ibcq);
	struct wookie_ring_hdr *hdr;
	unsigned long irqflags;
	u32 arm = 0;
	int ret = 0;

	if (!cq->user) {
		spin_lock_irqsave(&cq->lock, irqflags);
		cq->notify |= flags & IB_CQ_SOLICITED_MASK;
		if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
		    cq->consumer != cq->producer)
			ret = 1;
		spin_unlock_irqrestore(&cq->lock, irqflags);
		return ret;
	}

	/*
	 * The provider arms by storing the word itself; this is the same
	 * through the command channel.  The lock keeps the ring from being
	 * swapped by a resize meanwhile.
	 */
	if (flags & IB_CQ_NEXT_COMP)
		arm |= WOOKIE_CQ_ARM_NEXT;
	if (flags & IB_CQ_SOLICITED)
		arm |= WOOKIE_CQ_ARM_SOLICITED;
	spin_lock_irqsave(&cq->lock, irqflags);
	hdr = cq->ring.hdr;
	wookie_word_update(&hdr->arm, arm, 0);
	if (flags & IB_CQ_REPORT_MISSED_EVENTS) {
		/* Pairs with the barrier of wookie_cq_post(). */
		smp_mb();
		if (READ_ONCE(hdr->consumer) != cq->producer)
			ret = 1;
	}
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

/*
 * A CQ that ib_core polls (ib_alloc_cq(), the CQ pool): its completion
 * handler only schedules the poll (irq_poll or a work item) and frees
 * nothing, so the engine calls it at once rather than through the upcall
 * work, a kworker's wakeup more for every completion a kernel consumer
 * waits for.  ib_create_cq() leaves wc NULL; a direct CQ is never armed.
 */
static bool wookie_cq_core_polled(const struct wookie_cq *cq)
{
	return cq->ibcq.wc && cq->ibcq.poll_ctx != IB_POLL_DIRECT;
}

int wookie_cq_post(struct wookie_cq *cq, struct wookie_cqe *cqe,
		   bool solicited)
{
	struct ib_cq *ibcq = &cq->ibcq;
	struct wookie_ring_hdr *hdr;
	bool notify = false, overflow = false;
	unsigned long flags;
	u32 consumer;
	int err = 0;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->error) {
		err = -ENOSPC;
		goto unlock;
	}
	hdr = cq->ring.hdr;
	/* A user index out of range also reads as full: the CQ fails. */
	consumer = cq->user ? READ_ONCE(hdr->consumer) : cq->consumer;
	if (cq->producer - consumer >= cq->ring.num_entries) {
		cq->error = true;
		if (cq->user)
			wookie_word_update(&hdr->flags, WOOKIE_RING_ERROR, 0);
		overflow = true;
		err = -ENOSPC;
		goto unlock;
	}

	cqe->timestamp = ktime_get_ns();
	memcpy(wookie_ring_slot(&cq->ring, cq->producer), cqe, sizeof(*cqe));
	cq->producer++;
	/* Release: the CQE is visible before the index that covers it. */
	smp_store_release(&hdr->producer, cq->producer);

	if (cq->user) {
		/*
		 * Store producer, then load arm; the provider stores arm, then
		 * loads producer.  With a full barrier on both sides one of
		 * them sees the other, so no event is lost.
		 */
		smp_mb();
		notify = wookie_cq_user_disarm(hdr, solicited, cqe);
	} else if (wookie_cq_fires(cq->notify & IB_CQ_NEXT_COMP,
				   cq->notify & IB_CQ_SOLICITED, solicited,
				   cqe)) {
		cq->notify = 0;
		notify = true;
	}
unlock:
	spin_unlock_irqrestore(&cq->lock, flags);

	/* The engine runs this: kernel consumers' handlers run later. */
	if (!cq->user) {
		struct wookie_dev *wdev = to_wookie_dev(ibcq->device);

		if (overflow)
			wookie_upcall_raise(wdev, &cq->upcall,
					    WOOKIE_CQ_UPCALL_ERR);
		if (notify && wookie_cq_core_polled(cq))
			ibcq->comp_handler(ibcq, ibcq->cq_context);
		else if (notify)
			wookie_upcall_raise(wdev, &cq->upcall,
					    WOOKIE_CQ_UPCALL_COMP);
		return err;
	}
	if (overflow)
		wookie_cq_err_event(cq);
	if (notify && ibcq->comp_handler)
		ibcq->comp_handler(ibcq, ibcq->cq_context);
	return err;
}
