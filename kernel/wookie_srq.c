// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues, and taking receive WQEs out of an RQ or SRQ ring.
 * User space posts receives by writing the ring and storing the producer
 * index; the responder takes a WQE when a packet needs one.  Everything
 * read from a user ring is copied first and checked on the copy.
 */
#include <linux/minmax.h>

#include "wookie.h"

/* A receive WQE with room for the most SGEs, as one contiguous copy. */
struct wookie_rqe_copy {
	struct wookie_rqe rqe;
	struct wookie_sge sge[WOOKIE_MAX_SGE];
};

/* SGEs a slot of @stride bytes holds, at most WOOKIE_MAX_SGE. */
static u32 wookie_rq_slot_sges(u32 stride)
{
	if (stride < sizeof(struct wookie_rqe))
		return 0;
	return min_t(u32, (stride - sizeof(struct wookie_rqe)) /
			  sizeof(struct wookie_sge), WOOKIE_MAX_SGE);
}

int wookie_rq_pop(struct wookie_ring *ring, u32 *consumer, u32 max_sge,
		  struct wookie_recv_wqe *out)
{
	struct wookie_ring_hdr *hdr = ring->hdr;
	struct wookie_rqe_copy copy;
	u64 total;
	u32 producer;
	int err;

	/* Acquire: the slot is read only after the index that covers it. */
	producer = smp_load_acquire(&hdr->producer);
	if (!wookie_ring_sane(producer, *consumer, ring->num_entries)) {
		wookie_word_update(&hdr->flags, WOOKIE_RING_ERROR, 0);
		return -EIO;
	}
	if (producer == *consumer)
		return -ENOENT;
	if (ring->stride < sizeof(copy.rqe))
		return -EIO;

	/* Never more SGEs than the slot holds, whatever the caller says. */
	max_sge = min(max_sge, wookie_rq_slot_sges(ring->stride));
	memcpy(&copy, wookie_ring_slot(ring, *consumer),
	       sizeof(copy.rqe) + max_sge * sizeof(copy.sge[0]));
	err = wookie_rqe_check(&copy.rqe, max_sge, &total);
	if (err) {
		err = -EIO;
	} else {
		out->wr_id = copy.rqe.wr_id;
		out->num_sge = copy.rqe.num_sge;
		out->total_len = total;
		memcpy(out->sge, copy.sge, out->num_sge * sizeof(out->sge[0]));
	}

	/* A malformed WQE is consumed too: the next one may be good. */
	++*consumer;
	/* Release: the slot was read before the producer may reuse it. */
	smp_store_release(&hdr->consumer, *consumer);
	return err;
}

static void wookie_srq_limit_event(struct wookie_srq *srq)
{
	struct ib_srq *ibsrq = &srq->ibsrq;
	struct ib_event ev = {
		.device = ibsrq->device,
		.element.srq = ibsrq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};

	if (ibsrq->event_handler)
		ibsrq->event_handler(&ev, ibsrq->srq_context);
}

/* Kernel SRQs' limit event, from the device's upcall work. */
static void wookie_srq_upcall(struct wookie_upcall *up, unsigned int bit)
{
	wookie_srq_limit_event(container_of(up, struct wookie_srq, upcall));
}

struct wookie_srq *wookie_xrc_srq_get(struct wookie_dev *wdev, u32 srqn)
{
	struct wookie_srq *srq;
	unsigned long flags;

	/* Under xa_lock so destroy, which erases first, never races us. */
	xa_lock_irqsave(&wdev->xrc_srqs, flags);
	srq = xa_load(&wdev->xrc_srqs, srqn);
	if (srq && !refcount_inc_not_zero(&srq->refcount))
		srq = NULL;
	xa_unlock_irqrestore(&wdev->xrc_srqs, flags);
	return srq;
}

void wookie_srq_put(struct wookie_srq *srq)
{
	if (refcount_dec_and_test(&srq->refcount))
		complete(&srq->released);
}

int wookie_srq_pop(struct wookie_srq *srq, struct wookie_recv_wqe *out)
{
	struct ib_srq *ibsrq = &srq->ibsrq;
	unsigned long flags;
	bool limit_reached = false;
	int err;

	spin_lock_irqsave(&srq->lock, flags);
	err = wookie_rq_pop(&srq->ring, &srq->consumer, srq->max_sge, out);
	/* The producer index is user space's: it only decides the event. */
	if (!err && srq->limit &&
	    READ_ONCE(srq->ring.hdr->producer) - srq->consumer < srq->limit) {
		srq->limit = 0;
		limit_reached = true;
	}
	spin_unlock_irqrestore(&srq->lock, flags);

	if (!limit_reached)
		return err;
	/* A kernel consumer's handler may destroy things: not from here. */
	if (srq->user)
		wookie_srq_limit_event(srq);
	else
		wookie_upcall_raise(to_wookie_dev(ibsrq->device), &srq->upcall,
				    0);
	return err;
}

/*
 * Kernel rings only: the producer index lives in the header, and the
 * caller serialises posters.  Each WQE is published as soon as written.
 */
int wookie_ring_post_recv(struct wookie_ring *ring, u32 max_sge,
			  const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr)
{
	struct wookie_ring_hdr *hdr = ring->hdr;
	u32 producer = hdr->producer;
	int err = 0;

	for (; wr; wr = wr->next) {
		struct wookie_rqe *rqe;
		struct wookie_sge *sge;
		int i;

		if (wr->num_sge < 0 || (u32)wr->num_sge > max_sge) {
			err = -EINVAL;
			break;
		}
		/* Acquire: the consumer has finished reading the slot. */
		if (producer - smp_load_acquire(&hdr->consumer) >=
		    ring->num_entries) {
			err = -ENOMEM;
			break;
		}

		rqe = wookie_ring_slot(ring, producer);
		rqe->wr_id = wr->wr_id;
		rqe->num_sge = wr->num_sge;
		rqe->reserved = 0;
		sge = (struct wookie_sge *)(rqe + 1);
		for (i = 0; i < wr->num_sge; i++) {
			sge[i].addr = wr->sg_list[i].addr;
			sge[i].length = wr->sg_list[i].length;
			sge[i].lkey = wr->sg_list[i].lkey;
		}
		/* Release: the WQE is visible before the index covering it. */
		smp_store_release(&hdr->producer, ++producer);
	}
	if (err)
		*bad_wr = wr;
	return err;
}

int wookie_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr)
{
	struct wookie_srq *srq = to_wookie_srq(ibsrq);
	unsigned long flags;
	int err;

	/* User space writes its ring itself; a command has nothing to add. */
	if (srq->user) {
		if (!wr)
			return 0;
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&srq->lock, flags);
	err = wookie_ring_post_recv(&srq->ring, srq->max_sge, wr, bad_wr);
	spin_unlock_irqrestore(&srq->lock, flags);
	return err;
}

int wookie_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		      struct ib_udata *udata)
{
	struct wookie_dev *wdev = to_wookie_dev(ibsrq->device);
	struct wookie_srq *srq = to_wookie_srq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	struct wookie_create_srq_resp resp = {};
	u32 num_entries, stride, srqn;
	int err;

	if (init->srq_type != IB_SRQT_BASIC && init->srq_type != IB_SRQT_XRC)
		return -EOPNOTSUPP;
	/* ib_core has set ext.cq and ext.xrc.xrcd from @init already. */
	if (init->srq_type == IB_SRQT_XRC &&
	    (!init->ext.cq || !init->ext.xrc.xrcd))
		return -EINVAL;
	if (attr->max_wr < 1 || attr->max_wr > WOOKIE_MAX_SRQ_WR ||
	    attr->max_sge < 1 || attr->max_sge > WOOKIE_MAX_SGE ||
	    attr->srq_limit > attr->max_wr)
		return -EINVAL;
	if (udata) {
		if (udata->outlen < sizeof(resp))
			return -EINVAL;
		/* No request structure is defined: anything sent must be 0. */
		if (!ib_is_udata_cleared(udata, 0, udata->inlen))
			return -EOPNOTSUPP;
	}
	num_entries = wookie_ring_entries(attr->max_wr);
	stride = wookie_rq_stride(attr->max_sge);
	if (!num_entries || wookie_rq_slot_sges(stride) < attr->max_sge)
		return -EINVAL;

	if (atomic_inc_return(&wdev->num_srq) > WOOKIE_MAX_SRQ) {
		err = -ENOMEM;
		goto err_count;
	}

	spin_lock_init(&srq->lock);
	mutex_init(&srq->resize_lock);
	refcount_set(&srq->refcount, 1);
	init_completion(&srq->released);
	srq->user = !!udata;
	wookie_upcall_init(&srq->upcall, wookie_srq_upcall);
	srq->consumer = 0;
	/* Whatever the slot holds is granted. */
	srq->max_sge = wookie_rq_slot_sges(stride);
	srq->limit = attr->srq_limit;
	err = wookie_ring_alloc(&srq->ring, udata, num_entries, stride);
	if (err)
		goto err_count;

	/* Numbered first, published last: requests may name it at once. */
	if (init->srq_type == IB_SRQT_XRC) {
		err = xa_alloc_cyclic_irq(&wdev->xrc_srqs, &srqn, NULL,
					  XA_LIMIT(1, WOOKIE_XRC_SRQN_MASK),
					  &wdev->next_xrc_srqn, GFP_KERNEL);
		if (err < 0)
			goto err_ring;
		ibsrq->ext.xrc.srq_num = srqn;
	}
	if (udata) {
		wookie_ring_info(&srq->ring, &resp.srq);
		err = wookie_mmap_resp(udata, &resp, sizeof(resp));
		if (err)
			goto err_srqn;
	}
	if (init->srq_type == IB_SRQT_XRC)
		xa_store_irq(&wdev->xrc_srqs, srqn, srq, GFP_KERNEL);
	attr->max_wr = num_entries;
	attr->max_sge = srq->max_sge;
	return 0;

err_srqn:
	if (init->srq_type == IB_SRQT_XRC)
		xa_erase_irq(&wdev->xrc_srqs, srqn);
err_ring:
	wookie_ring_free(&srq->ring);
err_count:
	atomic_dec(&wdev->num_srq);
	return err;
}

/*
 * IB_SRQ_MAX_WR: a new ring replaces the old one, the WQEs not taken yet
 * copied over at the same free-running indices.  A user SRQ learns its new
 * ring through @resp_addr before the swap (the write command has no
 * response); its provider holds its posters off until it has remapped.
 * The copy runs outside the lock (up to megabytes): responders may take
 * WQEs meanwhile, from the old ring, and nothing writes the slots but
 * user space, which must not post now.  The swap, under the lock, takes
 * the consumer as it is then and fails with EAGAIN if the producer moved.
 * @limit, if not NULL, is armed with the swap.
 */
static int wookie_srq_resize(struct wookie_srq *srq, u32 max_wr,
			     const u32 *limit, struct ib_udata *udata,
			     u64 resp_addr)
{
	struct wookie_modify_srq_resp resp = {};
	struct wookie_ring ring, old;
	u32 producer, consumer, i;
	unsigned long flags;
	int err;

	/* One resize at a time: each copies from the ring the last left. */
	mutex_lock(&srq->resize_lock);
	err = wookie_ring_alloc(&ring, udata, wookie_ring_entries(max_wr),
				srq->ring.stride);
	if (err)
		goto out;
	if (udata) {
		/* As a create verb: answer only if the mapping will fit. */
		err = wookie_mmap_headroom();
		if (err)
			goto err_free;
		wookie_ring_info(&ring, &resp.srq);
		if (copy_to_user(u64_to_user_ptr(resp_addr), &resp,
				 sizeof(resp))) {
			err = -EFAULT;
			goto err_free;
		}
	}

	spin_lock_irqsave(&srq->lock, flags);
	/* Acquire: the slots are read only after the index covering them. */
	producer = smp_load_acquire(&srq->ring.hdr->producer);
	consumer = srq->consumer;
	spin_unlock_irqrestore(&srq->lock, flags);
	/* User space's index: it must make sense and the WQEs must fit. */
	if (!wookie_ring_sane(producer, consumer, srq->ring.num_entries) ||
	    producer - consumer > ring.num_entries) {
		err = -EINVAL;
		goto err_free;
	}
	for (i = consumer; i != producer; i++)
		memcpy(wookie_ring_slot(&ring, i),
		       wookie_ring_slot(&srq->ring, i), ring.stride);

	spin_lock_irqsave(&srq->lock, flags);
	if (READ_ONCE(srq->ring.hdr->producer) != producer ||
	    srq->consumer - consumer > producer - consumer) {
		err = -EAGAIN;
	} else if ((limit ? *limit : srq->limit) > ring.num_entries) {
		err = -EINVAL;
	} else {
		ring.hdr->consumer = srq->consumer;
		ring.hdr->flags = READ_ONCE(srq->ring.hdr->flags);
		/* Release: the copied WQEs are visible before the index. */
		smp_store_release(&ring.hdr->producer, producer);
		old = srq->ring;
		srq->ring = ring;
		if (limit)
			srq->limit = *limit;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (err)
		goto err_free;

	wookie_ring_free(&old);
	goto out;

err_free:
	wookie_ring_free(&ring);
out:
	mutex_unlock(&srq->resize_lock);
	return err;
}

int wookie_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		      enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct wookie_srq *srq = to_wookie_srq(ibsrq);
	struct wookie_modify_srq_req req = {};
	unsigned long flags;
	u32 num_entries;
	int err = 0;

	if (udata && udata->inlen) {
		/* A request at all is a whole one. */
		if (udata->inlen < sizeof(req))
			return -EINVAL;
		/* Anything past the request we know must be zero. */
		if (udata->inlen > sizeof(req) &&
		    !ib_is_udata_cleared(udata, sizeof(req),
					 udata->inlen - sizeof(req)))
			return -EOPNOTSUPP;
		err = ib_copy_from_udata(&req, udata, sizeof(req));
		if (err)
			return err;
	}
	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;

	num_entries = READ_ONCE(srq->ring.num_entries);
	if (mask & IB_SRQ_MAX_WR) {
		if (attr->max_wr < 1 || attr->max_wr > WOOKIE_MAX_SRQ_WR)
			return -EINVAL;
		/* A user SRQ must be told where its new ring is. */
		if (udata && !req.resp_addr)
			return -EINVAL;
		num_entries = wookie_ring_entries(attr->max_wr);
		if (!num_entries)
			return -EINVAL;
	} else if (req.resp_addr) {
		return -EINVAL;
	}
	if ((mask & IB_SRQ_LIMIT) && attr->srq_limit > num_entries)
		return -EINVAL;

	if (mask & IB_SRQ_MAX_WR) {
		err = wookie_srq_resize(srq, attr->max_wr,
					mask & IB_SRQ_LIMIT ?
					&attr->srq_limit : NULL,
					udata, req.resp_addr);
		if (!err)
			attr->max_wr = num_entries;
	} else if (mask & IB_SRQ_LIMIT) {
		/* Armed now, fires on the next WQE taken below the limit. */
		spin_lock_irqsave(&srq->lock, flags);
		/* A resize meanwhile may have made the SRQ smaller again. */
		if (attr->srq_limit > srq->ring.num_entries)
			err = -EINVAL;
		else
			srq->limit = attr->srq_limit;
		spin_unlock_irqrestore(&srq->lock, flags);
	}
	return err;
}

int wookie_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct wookie_srq *srq = to_wookie_srq(ibsrq);

	attr->max_wr = READ_ONCE(srq->ring.num_entries);
	attr->max_sge = srq->max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

/*
 * ib_core refuses while QPs use the SRQ, and XRC targets hold it only
 * while they handle a request: no responder takes WQEs once this waited.
 */
int wookie_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct wookie_dev *wdev = to_wookie_dev(ibsrq->device);
	struct wookie_srq *srq = to_wookie_srq(ibsrq);

	/* XRC targets look it up per request: no new lookup, none in use. */
	if (ibsrq->srq_type == IB_SRQT_XRC) {
		xa_erase_irq(&wdev->xrc_srqs, ibsrq->ext.xrc.srq_num);
		wookie_srq_put(srq);
		wait_for_completion(&srq->released);
	}
	/* No event after destroy returns (none pending for a user SRQ). */
	wookie_upcall_stop(wdev, &srq->upcall, false);
	wookie_ring_free(&srq->ring);
	atomic_dec(&wdev->num_srq);
	return 0;
}
