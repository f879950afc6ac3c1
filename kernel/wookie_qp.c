// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs on the command channel: create with their rings, the IBTA
 * state machine of modify_qp, query, destroy, and the post verbs of kernel
 * consumers (user space posts by writing the rings itself).
 */
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "wookie.h"
#include "wookie_trace.h"
#include "portable/wookie_link.h"

struct wookie_qp *wookie_qp_get(struct wookie_dev *wdev, u32 qpn)
{
	struct wookie_qp *qp;
	unsigned long flags;

	/* Under xa_lock so destroy, which erases first, never races us. */
	xa_lock_irqsave(&wdev->qps, flags);
	qp = xa_load(&wdev->qps, qpn);
	if (qp && !refcount_inc_not_zero(&qp->refcount))
		qp = NULL;
	xa_unlock_irqrestore(&wdev->qps, flags);
	return qp;
}

void wookie_qp_put(struct wookie_qp *qp)
{
	if (refcount_dec_and_test(&qp->refcount))
		complete(&qp->released);
}

static void wookie_qp_event_now(struct wookie_qp *qp, enum ib_event_type type)
{
	struct ib_event event = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&event, qp->ibqp.qp_context);
}

/* Kernel QPs' events, from the device's upcall work. */
static void wookie_qp_upcall(struct wookie_upcall *up, unsigned int bit)
{
	wookie_qp_event_now(container_of(up, struct wookie_qp, upcall), bit);
}

/*
 * The engine raises events with the QP held: a kernel consumer's handler
 * runs later from the upcall work, where it may destroy or reset the QP.
 * uverbs' handler (user QPs) only queues the event for the process.
 */
void wookie_qp_event(struct wookie_qp *qp, enum ib_event_type type)
{
	if (qp->user) {
		wookie_qp_event_now(qp, type);
		return;
	}
	wookie_upcall_raise(to_wookie_dev(qp->ibqp.device), &qp->upcall, type);
}

/* Under qp->lock: every change of state goes by the tracepoint. */
static void wookie_qp_set_state(struct wookie_qp *qp, enum ib_qp_state new)
{
	lockdep_assert_held(&qp->lock);
	trace_wookie_qp_state(&qp->ibqp, qp->state, new);
	qp->state = new;
}

void wookie_qp_error(struct wookie_qp *qp, enum ib_event_type event)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state == IB_QPS_ERR || qp->state == IB_QPS_RESET) {
		spin_unlock_irqrestore(&qp->lock, flags);
		return;
	}
	wookie_qp_set_state(qp, IB_QPS_ERR);
	spin_unlock_irqrestore(&qp->lock, flags);

	/* Posts from now on need a doorbell so that they are flushed. */
	wookie_ring_set_flags(&qp->sq, WOOKIE_RING_FLUSH, 0);
	wookie_ring_set_flags(&qp->rq, WOOKIE_RING_FLUSH, 0);
	if (event)
		wookie_qp_event(qp, event);
	wookie_qp_kick(qp);
}

/* IBTA 10.3.1: a UC or UD send error stops only the send queue (SQE). */
void wookie_qp_sq_error(struct wookie_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD) {
		spin_unlock_irqrestore(&qp->lock, flags);
		return;
	}
	wookie_qp_set_state(qp, IB_QPS_SQE);
	spin_unlock_irqrestore(&qp->lock, flags);
	wookie_ring_set_flags(&qp->sq, WOOKIE_RING_FLUSH, 0);
	wookie_qp_kick(qp);
}

static enum wookie_qp_kind wookie_qp_kind_of(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_UC:
		return WOOKIE_QP_KIND_UC;
	case IB_QPT_UD:
	case IB_QPT_GSI:
		return WOOKIE_QP_KIND_UD;
	case IB_QPT_XRC_INI:
		return WOOKIE_QP_KIND_XRC_INI;
	case IB_QPT_XRC_TGT:
		return WOOKIE_QP_KIND_XRC_TGT;
	default:
		return WOOKIE_QP_KIND_RC;
	}
}

/* Its own receive queue: not on an SRQ, and not XRC. */
static bool wookie_qp_has_rq(const struct ib_qp_init_attr *init)
{
	return !init->srq && init->qp_type != IB_QPT_XRC_INI &&
	       init->qp_type != IB_QPT_XRC_TGT;
}

static int wookie_check_qp_init(struct wookie_dev *wdev,
				const struct ib_qp_init_attr *init,
				struct ib_udata *udata)
{
	const struct ib_qp_cap *cap = &init->cap;

	/* QP1 carries ib_mad's MADs (the CM on RoCE): a kernel UD QP. */
	if (init->qp_type == IB_QPT_GSI && udata)
		return -EOPNOTSUPP;
	if (init->qp_type != IB_QPT_RC && init->qp_type != IB_QPT_UC &&
	    init->qp_type != IB_QPT_UD && init->qp_type != IB_QPT_GSI &&
	    init->qp_type != IB_QPT_XRC_INI && init->qp_type != IB_QPT_XRC_TGT)
		return -EOPNOTSUPP;
	if (init->create_flags)
		return -EOPNOTSUPP;
	/*
	 * An XRC target has no queue and no CQ of its own: ib_core creates
	 * it (without the caller's udata) in an XRC domain.
	 */
	if (init->qp_type == IB_QPT_XRC_TGT)
		return init->xrcd ? 0 : -EINVAL;
	if (init->sq_sig_type != IB_SIGNAL_ALL_WR &&
	    init->sq_sig_type != IB_SIGNAL_REQ_WR)
		return -EINVAL;
	/*
	 * An XRC initiator sends only: no receive queue, no receive CQ.  A
	 * kernel consumer's could not name an SRQ (ib_send_wr has no field).
	 */
	if (init->qp_type == IB_QPT_XRC_INI) {
		if (!udata)
			return -EOPNOTSUPP;
		if (!init->send_cq || init->srq || cap->max_recv_wr ||
		    cap->max_recv_sge)
			return -EINVAL;
	} else if (!init->send_cq || !init->recv_cq) {
		return -EINVAL;
	}
	if (cap->max_send_wr > WOOKIE_MAX_QP_WR ||
	    cap->max_send_sge > WOOKIE_MAX_SGE ||
	    cap->max_inline_data > WOOKIE_MAX_INLINE)
		return -EINVAL;
	if (wookie_qp_has_rq(init) && (cap->max_recv_wr > WOOKIE_MAX_QP_WR ||
				       cap->max_recv_sge > WOOKIE_MAX_SGE))
		return -EINVAL;
	return 0;
}

static void wookie_qp_free_rings(struct wookie_qp *qp)
{
	if (qp->rq.hdr)
		wookie_ring_free(&qp->rq);
	if (qp->sq.hdr)
		wookie_ring_free(&qp->sq);
	kvfree(qp->swqe);
	kfree(qp->resp.rd_atomic);
}

static int wookie_qp_alloc_rings(struct wookie_qp *qp,
				 struct ib_qp_init_attr *init,
				 struct ib_udata *udata)
{
	struct ib_qp_cap *cap = &init->cap;
	u32 entries, stride;
	int err;

	/* Created by ib_core for a user: charged to that process all the same. */
	if (init->qp_type == IB_QPT_XRC_TGT) {
		memset(cap, 0, sizeof(*cap));
		qp->resp.rd_atomic = kcalloc(WOOKIE_MAX_RD_ATOMIC,
					     sizeof(*qp->resp.rd_atomic),
					     WOOKIE_GFP_UOBJ);
		return qp->resp.rd_atomic ? 0 : -ENOMEM;
	}
	entries = wookie_ring_entries(max(cap->max_send_wr, 1u));
	stride = wookie_sq_stride(cap->max_send_sge, cap->max_inline_data);
	if (!entries || !stride)
		return -EINVAL;
	err = wookie_ring_alloc(&qp->sq, udata, entries, stride);
	if (err)
		return err;
	qp->swqe_payload = min_t(size_t, stride - sizeof(struct wookie_sqe),
				 WOOKIE_SWQE_PAYLOAD_MAX);
	qp->swqe_stride = ALIGN(struct_size_t(struct wookie_send_wqe,
					      inline_data, qp->swqe_payload),
				__alignof__(struct wookie_send_wqe));
	/* entries <= WOOKIE_MAX_RING_ENTRIES: no overflow. */
	qp->swqe = udata ?
		wookie_kvzalloc_uobj((size_t)entries * qp->swqe_stride) :
		kvcalloc(entries, qp->swqe_stride, GFP_KERNEL);
	if (!qp->swqe)
		goto err_nomem;
	qp->resp.rd_atomic = kcalloc(WOOKIE_MAX_RD_ATOMIC,
				     sizeof(*qp->resp.rd_atomic),
				     wookie_gfp(udata));
	if (!qp->resp.rd_atomic)
		goto err_nomem;

	/* What the slot holds is what the QP gets. */
	qp->sq_limits.max_sge = min_t(u32, WOOKIE_MAX_SGE,
				      (stride - sizeof(struct wookie_sqe)) /
				      sizeof(struct wookie_sge));
	qp->sq_limits.max_inline = min_t(u32, WOOKIE_MAX_INLINE,
					 stride - sizeof(struct wookie_sqe));
	cap->max_send_wr = entries;
	cap->max_send_sge = qp->sq_limits.max_sge;
	cap->max_inline_data = qp->sq_limits.max_inline;

	if (!wookie_qp_has_rq(init)) {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
		return 0;
	}
	entries = wookie_ring_entries(max(cap->max_recv_wr, 1u));
	stride = wookie_rq_stride(max(cap->max_recv_sge, 1u));
	if (!entries || !stride) {
		err = -EINVAL;
		goto err_free;
	}
	err = wookie_ring_alloc(&qp->rq, udata, entries, stride);
	if (err)
		goto err_free;
	qp->rq_max_sge = max(cap->max_recv_sge, 1u);
	cap->max_recv_wr = entries;
	cap->max_recv_sge = qp->rq_max_sge;
	return 0;

err_nomem:
	err = -ENOMEM;
err_free:
	wookie_qp_free_rings(qp);
	qp->sq.hdr = NULL;
	qp->swqe = NULL;
	qp->resp.rd_atomic = NULL;
	return err;
}

int wookie_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		     struct ib_udata *udata)
{
	struct wookie_dev *wdev = to_wookie_dev(ibqp->device);
	struct wookie_qp *qp = to_wookie_qp(ibqp);
	struct wookie_create_qp_resp resp = {};
	u32 qpn;
	int err;

	err = wookie_check_qp_init(wdev, init, udata);
	if (err)
		return err;
	if (udata) {
		if (udata->outlen < sizeof(resp))
			return -EINVAL;
		if (udata->inlen &&
		    !ib_is_udata_cleared(udata, 0, udata->inlen))
			return -EOPNOTSUPP;
	}
	if (atomic_inc_return(&wdev->num_qp) > WOOKIE_MAX_QP) {
		err = -ENOMEM;
		goto err_count;
	}

	mutex_init(&qp->modify_lock);
	spin_lock_init(&qp->lock);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	refcount_set(&qp->refcount, 1);
	init_completion(&qp->released);
	INIT_LIST_HEAD(&qp->req_pkts);
	INIT_LIST_HEAD(&qp->resp_pkts);
	INIT_LIST_HEAD(&qp->read_ooo);
	INIT_LIST_HEAD(&qp->resp_ooo);
	INIT_LIST_HEAD(&qp->poll_node);
	INIT_LIST_HEAD(&qp->pd_node);
	wookie_qp_engine_init(qp);
	wookie_upcall_init(&qp->upcall, wookie_qp_upcall);
	wookie_window_init(&qp->req.window);
	qp->state = IB_QPS_RESET;
	qp->user = !!udata;
	qp->kind = wookie_qp_kind_of(init->qp_type);
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->sq_limits.kind = qp->kind;
	qp->sq_limits.kernel = !udata;
	qp->srq = init->srq ? to_wookie_srq(init->srq) : NULL;
	qp->send_cq = init->send_cq ? to_wookie_cq(init->send_cq) : NULL;
	qp->recv_cq = init->recv_cq ? to_wookie_cq(init->recv_cq) : NULL;
	if (init->qp_type == IB_QPT_XRC_TGT) {
		qp->send_cq = NULL;
		qp->recv_cq = NULL;
		qp->srq = NULL;
		qp->xrcd = init->xrcd;
	}
	qp->path_mtu = IB_MTU_1024;
	qp->mtu_bytes = ib_mtu_enum_to_int(qp->path_mtu);
	qp->max_rd_atomic = 1;
	qp->max_dest_rd_atomic = 1;

	err = wookie_qp_alloc_rings(qp, init, udata);
	if (err)
		goto err_count;

	/* Reserve the number; the QP is published once complete. */
	if (init->qp_type == IB_QPT_GSI) {
		qpn = 1;
		err = xa_insert_irq(&wdev->qps, qpn, NULL, GFP_KERNEL);
	} else {
		err = xa_alloc_cyclic_irq(&wdev->qps, &qpn, NULL,
					  XA_LIMIT(WOOKIE_FIRST_QPN,
						   WOOKIE_MCAST_QPN - 1),
					  &wdev->next_qpn, GFP_KERNEL);
	}
	if (err < 0)
		goto err_rings;
	ibqp->qp_num = qpn;

	if (udata) {
		wookie_ring_info(&qp->sq, &resp.sq);
		if (qp->rq.hdr)
			wookie_ring_info(&qp->rq, &resp.rq);
		resp.qp_num = qpn;
		err = wookie_mmap_resp(udata, &resp, sizeof(resp));
		if (err)
			goto err_qpn;
	}
	xa_store_irq(&wdev->qps, qpn, qp, GFP_KERNEL);
	if (qp->kind == WOOKIE_QP_KIND_UD)
		wookie_pd_add_ud(to_wookie_pd(ibqp->pd), qp);
	return 0;

err_qpn:
	xa_erase_irq(&wdev->qps, qpn);
err_rings:
	wookie_qp_free_rings(qp);
err_count:
	atomic_dec(&wdev->num_qp);
	return err;
}

static void wookie_qp_drop_inbound(struct wookie_qp *qp)
{
	unsigned long flags;
	LIST_HEAD(drop);

	spin_lock_irqsave(&qp->lock, flags);
	list_splice_init(&qp->req_pkts, &drop);
	list_splice_tail_init(&qp->resp_pkts, &drop);
	qp->num_inbound = 0;
	spin_unlock_irqrestore(&qp->lock, flags);
	wookie_pkt_free_list(&drop);
	wookie_read_ooo_drop(qp);
	wookie_resp_ooo_drop(qp);
	wookie_odp_qp_reset(qp);
}

/*
 * Stop the engine on this QP: no timer, no work, and RUNNING held so that
 * no inline run starts.  wookie_qp_resume() lets it go again.
 */
static void wookie_qp_quiesce(struct wookie_qp *qp)
{
	hrtimer_cancel(&qp->timer);
	cancel_work_sync(&qp->work);
	wookie_qp_hold(qp);
	/* Held, the engine starts no fault; the last one may kick. */
	wookie_odp_qp_stop(qp);
	hrtimer_cancel(&qp->timer);
	cancel_work_sync(&qp->work);
}

static void wookie_qp_resume(struct wookie_qp *qp)
{
	clear_bit_unlock(WOOKIE_QP_RUNNING, &qp->run_flags);
	wookie_qp_kick(qp);
}

static void wookie_ring_reset(struct wookie_ring *ring)
{
	if (!ring->hdr)
		return;
	WRITE_ONCE(ring->hdr->producer, 0);
	WRITE_ONCE(ring->hdr->consumer, 0);
	WRITE_ONCE(ring->hdr->flags, 0);
}

/* Back to RESET: empty rings, no engine state. */
static void wookie_qp_reset(struct wookie_qp *qp)
{
	u32 i;

	wookie_qp_drop_inbound(qp);
	wookie_ring_reset(&qp->sq);
	wookie_ring_reset(&qp->rq);
	qp->rq_consumer = 0;
	/* Indexes start again at 0: no pin may match a new WQE. */
	for (i = 0; qp->swqe && i < qp->sq.num_entries; i++)
		wookie_swqe(qp, i)->pinned_ah = 0;
	memset(&qp->req, 0, sizeof(qp->req));
	wookie_window_init(&qp->req.window);
	memset(&qp->comp, 0, sizeof(qp->comp));
	wookie_resp_reset(qp);
	qp->sq_draining = false;
	qp->last_wqe_reached = false;
	/* User space cleans its CQs itself (the provider on RESET). */
	if (qp->send_cq)
		wookie_cq_discard_qp(qp->send_cq, qp->ibqp.qp_num);
	if (qp->recv_cq)
		wookie_cq_discard_qp(qp->recv_cq, qp->ibqp.qp_num);
}

static int wookie_check_modify(struct wookie_qp *qp, struct ib_qp_attr *attr,
			       int mask, struct wookie_av *av)
{
	struct wookie_dev *wdev = to_wookie_dev(qp->ibqp.device);

	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) &&
	    attr->pkey_index >= WOOKIE_PKEY_TBL_LEN)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > WOOKIE_MAX_INIT_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > WOOKIE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > WOOKIE_MAX_QPN)
		return -EINVAL;
	/* No alternate path: RoCE has one port, one path. */
	if (mask & IB_QP_ALT_PATH)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MIG_STATE) &&
	    attr->path_mig_state != IB_MIG_MIGRATED)
		return -EINVAL;
	if (mask & IB_QP_AV)
		return wookie_av_from_attr(wdev, av, &attr->ah_attr);
	return 0;
}

/* The path MTU in bytes, never above what the port carries. */
static u32 wookie_qp_mtu_bytes(struct wookie_qp *qp, enum ib_mtu mtu)
{
	struct wookie_dev *wdev = to_wookie_dev(qp->ibqp.device);
	enum wookie_mtu port;

	port = wookie_mtu_for_netdev(READ_ONCE(wdev->ndev->mtu));
	if (port && (int)port < (int)mtu)
		mtu = (enum ib_mtu)port;
	return ib_mtu_enum_to_int(mtu);
}

/*
 * Does an RC QP with address @av and peer @dest_qpn take the local path
 * (packets of WOOKIE_LOCAL_SEG_BYTES, payloads by reference)?  Only if
 * local_path is on, the peer is a QP of this device, and both are user
 * QPs: a reference keeps a user MR's pages pinned, but nothing keeps a
 * kernel consumer's memory (DMA or fast MRs) from being freed once its
 * WQE is flushed.  The first QP of a pair to be given its path decides
 * by local_path, and the second follows it: the two ends must agree on
 * the packet size, whatever local_path did between their modifies (a
 * change applies to connections set up after it).  Not UC: a UC send
 * completes when it is sent, and its buffer must then be the user's
 * again, not still read by the receiver.
 */
static bool wookie_qp_local(struct wookie_qp *qp, const struct wookie_av *av,
			    u32 dest_qpn)
{
	struct wookie_dev *wdev = to_wookie_dev(qp->ibqp.device);
	enum ib_qp_state peer_state;
	struct wookie_qp *peer;
	unsigned long flags;
	bool local, follow;

	if (qp->kind != WOOKIE_QP_KIND_RC || !qp->user || !av->local)
		return false;
	peer = wookie_qp_get(wdev, dest_qpn);
	if (!peer)
		return false;
	/* The peer's modify publishes the three together, under its lock. */
	spin_lock_irqsave(&peer->lock, flags);
	peer_state = peer->state;
	follow = peer->dest_qp_num == qp->ibqp.qp_num &&
		 peer_state != IB_QPS_RESET && peer_state != IB_QPS_INIT;
	local = peer->local;
	spin_unlock_irqrestore(&peer->lock, flags);
	if (!peer->user || peer->kind != WOOKIE_QP_KIND_RC)
		local = false;
	else if (!follow)
		local = wookie_local_path();
	wookie_qp_put(peer);
	return local;
}

static void wookie_apply_modify(struct wookie_qp *qp, struct ib_qp_attr *attr,
				int mask, const struct wookie_av *av)
{
	/* Only the remote rights matter here; other bits are ignored. */
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->qp_access_flags = attr->qp_access_flags &
			(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
			 IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_FLUSH_GLOBAL |
			 IB_ACCESS_FLUSH_PERSISTENT);
	if (mask & IB_QP_PKEY_INDEX)
		qp->pkey_index = attr->pkey_index;
	if (mask & IB_QP_QKEY)
		qp->qkey = attr->qkey;
	if (mask & IB_QP_AV)
		qp->av = *av;
	if (mask & IB_QP_PATH_MTU)
		qp->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		qp->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT) {
		qp->retry_cnt = attr->retry_cnt;
		qp->comp.retry_left = attr->retry_cnt;
	}
	if (mask & IB_QP_RNR_RETRY) {
		qp->rnr_retry = attr->rnr_retry;
		qp->comp.rnr_retry_left = attr->rnr_retry;
	}
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_DEST_QPN)
		qp->dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_SQ_PSN) {
		qp->sq_psn = attr->sq_psn & WOOKIE_PSN_MASK;
		qp->req.psn = qp->sq_psn;
		qp->req.psn_end = qp->sq_psn;
		qp->comp.psn = qp->sq_psn;
	}
	if (mask & IB_QP_RQ_PSN)
		qp->rq_psn = attr->rq_psn & WOOKIE_PSN_MASK;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		qp->sqd_notify = attr->en_sqd_async_notify;
}

int wookie_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		     struct ib_udata *udata)
{
	struct wookie_qp *qp = to_wookie_qp(ibqp);
	enum ib_qp_state cur, new;
	struct wookie_av av = {};
	bool path, local = false;
	unsigned long flags;
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;

	mutex_lock(&qp->modify_lock);
	/*
	 * A handler destroy calls (its QP's last events) may not change
	 * the QP: its engine is stopped for good.
	 */
	if (qp->destroying) {
		err = -EINVAL;
		goto out;
	}
	cur = READ_ONCE(qp->state);
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur &&
	    /* IBTA lets a consumer name SQE or RTS for the current one. */
	    !(cur == IB_QPS_SQE && attr->cur_qp_state == IB_QPS_RTS)) {
		err = -EINVAL;
		goto out;
	}
	new = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (new > IB_QPS_ERR ||
	    !ib_modify_qp_is_ok(cur, new, ibqp->qp_type, mask)) {
		err = -EINVAL;
		goto out;
	}
	err = wookie_check_modify(qp, attr, mask, &av);
	if (err)
		goto out;

	if (new == IB_QPS_RESET) {
		spin_lock_irqsave(&qp->lock, flags);
		wookie_qp_set_state(qp, IB_QPS_RESET);
		spin_unlock_irqrestore(&qp->lock, flags);
		wookie_qp_quiesce(qp);
		wookie_qp_reset(qp);
		wookie_apply_modify(qp, attr, mask, &av);
		wookie_qp_resume(qp);
		goto out;
	}
	if (new == IB_QPS_ERR) {
		wookie_apply_modify(qp, attr, mask, &av);
		wookie_qp_error(qp, 0);
		goto out;
	}

	path = (mask & (IB_QP_PATH_MTU | IB_QP_AV | IB_QP_DEST_QPN)) &&
	       qp->kind != WOOKIE_QP_KIND_UD;
	if (path)
		local = wookie_qp_local(qp, (mask & IB_QP_AV) ? &av : &qp->av,
					(mask & IB_QP_DEST_QPN) ?
					attr->dest_qp_num : qp->dest_qp_num);

	/* The engine reads these: change them with it stopped. */
	wookie_qp_quiesce(qp);
	/*
	 * A new send or receive PSN: what waited is of the old stream.  A
	 * new path: it was checked against the old MTU and locality.
	 */
	if ((mask & IB_QP_SQ_PSN) || path) {
		wookie_read_ooo_drop(qp);
		wookie_odp_drop_held(qp, WOOKIE_ODP_COMP);
	}
	if ((mask & IB_QP_RQ_PSN) || path) {
		wookie_resp_ooo_drop(qp);
		wookie_odp_drop_held(qp, WOOKIE_ODP_RESP);
	}
	spin_lock_irqsave(&qp->lock, flags);
	wookie_apply_modify(qp, attr, mask, &av);
	if (path) {
		qp->local = local;
		qp->mtu_bytes = local ? WOOKIE_LOCAL_SEG_BYTES :
					wookie_qp_mtu_bytes(qp, qp->path_mtu);
	}
	if (cur == IB_QPS_RESET && new == IB_QPS_INIT) {
		/* The engine watches no SQ before a post rings for it. */
		qp->sq_watched = false;
		wookie_ring_set_flags(&qp->sq, WOOKIE_RING_NEED_WAKEUP,
				      WOOKIE_RING_FLUSH);
		wookie_ring_set_flags(&qp->rq, 0, WOOKIE_RING_FLUSH);
		if (qp->kind == WOOKIE_QP_KIND_UD)
			qp->mtu_bytes = wookie_qp_mtu_bytes(qp, IB_MTU_4096);
	}
	if (cur == IB_QPS_SQE && new == IB_QPS_RTS)
		wookie_ring_set_flags(&qp->sq, 0, WOOKIE_RING_FLUSH);
	if (new == IB_QPS_SQD && cur != IB_QPS_SQD)
		qp->sq_draining = true;
	if (new == IB_QPS_RTS)
		qp->sq_draining = false;
	/* Before RTR is published: packets may come right after. */
	if (mask & IB_QP_RQ_PSN)
		wookie_resp_reset(qp);
	wookie_qp_set_state(qp, new);
	spin_unlock_irqrestore(&qp->lock, flags);
	wookie_qp_resume(qp);
out:
	mutex_unlock(&qp->modify_lock);
	return err;
}

int wookie_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_qp_init_attr *init)
{
	struct wookie_qp *qp = to_wookie_qp(ibqp);

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	mutex_lock(&qp->modify_lock);
	attr->qp_state = READ_ONCE(qp->state);
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = qp->path_mtu;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = qp->qkey;
	attr->rq_psn = qp->rq_psn;
	attr->sq_psn = qp->sq_psn;
	attr->dest_qp_num = qp->dest_qp_num;
	attr->qp_access_flags = qp->qp_access_flags;
	attr->cap.max_send_wr = qp->sq.num_entries;
	attr->cap.max_send_sge = qp->sq_limits.max_sge;
	attr->cap.max_inline_data = qp->sq_limits.max_inline;
	if (qp->rq.hdr) {
		attr->cap.max_recv_wr = qp->rq.num_entries;
		attr->cap.max_recv_sge = qp->rq_max_sge;
	}
	if (qp->kind != WOOKIE_QP_KIND_UD)
		wookie_av_to_attr(&qp->av, &attr->ah_attr);
	attr->pkey_index = qp->pkey_index;
	attr->en_sqd_async_notify = qp->sqd_notify;
	attr->sq_draining = qp->sq_draining;
	attr->max_rd_atomic = qp->max_rd_atomic;
	attr->max_dest_rd_atomic = qp->max_dest_rd_atomic;
	attr->min_rnr_timer = qp->min_rnr_timer;
	attr->port_num = 1;
	attr->timeout = qp->timeout;
	attr->retry_cnt = qp->retry_cnt;
	attr->rnr_retry = qp->rnr_retry;
	mutex_unlock(&qp->modify_lock);

	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->xrcd = qp->xrcd;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->qp_type = ibqp->qp_type;
	init->port_num = 1;
	return 0;
}

/*
 * UD and UC wait for no acknowledgment: what was posted before a destroy
 * goes out first, as on a NIC, which has read its SQ long before a
 * destroy command reaches it (rdma-core's mckey destroys its QP right
 * after posting unsignaled sends).  Posting makes no system call, so the
 * engine may not have run yet, or runs elsewhere (a softirq, its work):
 * wait for that pass, then run one here.  At most a ring's worth of WQEs
 * (user space may go on posting), and only while passes make progress.
 */
static void wookie_qp_send_posted(struct wookie_qp *qp)
{
	u32 start = READ_ONCE(qp->req.index), index;
	unsigned int stalled = 0;

	if (wookie_kind_reliable(qp->kind))
		return;
	for (;;) {
		index = READ_ONCE(qp->req.index);
		if (READ_ONCE(qp->state) != IB_QPS_RTS ||
		    READ_ONCE(qp->sq.hdr->producer) == index ||
		    index - start >= qp->sq.num_entries)
			return;
		wookie_qp_hold(qp);
		wookie_qp_unhold(qp);
		wookie_qp_run(qp);
		if (READ_ONCE(qp->req.index) != index)
			stalled = 0;
		else if (++stalled > 2)
			return;
	}
}

int wookie_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct wookie_dev *wdev = to_wookie_dev(ibqp->device);
	struct wookie_qp *qp = to_wookie_qp(ibqp);
	unsigned long flags;

	wookie_qp_send_posted(qp);
	/* No new deliveries, then wait for those in progress. */
	wookie_mcast_detach_all(qp);
	xa_erase_irq(&wdev->qps, ibqp->qp_num);
	if (qp->kind == WOOKIE_QP_KIND_UD)
		wookie_pd_del_ud(to_wookie_pd(ibqp->pd), qp);
	wookie_qp_unpoll(qp);
	wookie_qp_put(qp);
	wait_for_completion(&qp->released);

	mutex_lock(&qp->modify_lock);
	spin_lock_irqsave(&qp->lock, flags);
	qp->state = IB_QPS_RESET;
	qp->destroying = true;
	spin_unlock_irqrestore(&qp->lock, flags);
	/* Stays stopped: RUNNING is never given back. */
	wookie_qp_quiesce(qp);
	wookie_qp_drop_inbound(qp);
	mutex_unlock(&qp->modify_lock);

	/*
	 * With the engine stopped nothing raises upcalls: deliver what it
	 * raised (dropped when this runs in a handler), then have the CQs'
	 * handlers see its completions, before ib_core frees the QP.
	 */
	wookie_upcall_stop(wdev, &qp->upcall, true);
	if (qp->send_cq)
		wookie_cq_upcall_flush(qp->send_cq);
	if (qp->recv_cq && qp->recv_cq != qp->send_cq)
		wookie_cq_upcall_flush(qp->recv_cq);

	wookie_qp_free_rings(qp);
	atomic_dec(&wdev->num_qp);
	return 0;
}

/* Kernel consumers' send WRs, written into the SQ ring as user space would. */
static int wookie_wr_to_sqe(struct wookie_qp *qp, const struct ib_send_wr *wr,
			    struct wookie_sqe *sqe)
{
	struct wookie_sge *sge = (struct wookie_sge *)(sqe + 1);
	int i;

	memset(sqe, 0, sizeof(*sqe));
	sqe->wr_id = wr->wr_id;
	if (wr->send_flags & IB_SEND_SIGNALED)
		sqe->flags |= WOOKIE_WQE_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		sqe->flags |= WOOKIE_WQE_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		sqe->flags |= WOOKIE_WQE_FENCE;

	switch (wr->opcode) {
	case IB_WR_SEND:
		sqe->opcode = WOOKIE_WR_SEND;
		break;
	case IB_WR_SEND_WITH_IMM:
		sqe->opcode = WOOKIE_WR_SEND_WITH_IMM;
		sqe->ex = (__force u32)wr->ex.imm_data;
		break;
	case IB_WR_SEND_WITH_INV:
		sqe->opcode = WOOKIE_WR_SEND_WITH_INV;
		sqe->ex = wr->ex.invalidate_rkey;
		break;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		sqe->opcode = wr->opcode == IB_WR_RDMA_READ ?
			WOOKIE_WR_RDMA_READ : wr->opcode == IB_WR_RDMA_WRITE ?
			WOOKIE_WR_RDMA_WRITE : WOOKIE_WR_RDMA_WRITE_WITH_IMM;
		if (wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM)
			sqe->ex = (__force u32)wr->ex.imm_data;
		sqe->rdma.remote_addr = rdma_wr(wr)->remote_addr;
		sqe->rdma.rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		sqe->opcode = wr->opcode == IB_WR_ATOMIC_CMP_AND_SWP ?
			WOOKIE_WR_ATOMIC_CMP_AND_SWP :
			WOOKIE_WR_ATOMIC_FETCH_AND_ADD;
		sqe->atomic.remote_addr = atomic_wr(wr)->remote_addr;
		sqe->atomic.rkey = atomic_wr(wr)->rkey;
		sqe->atomic.compare_add = atomic_wr(wr)->compare_add;
		sqe->atomic.swap = atomic_wr(wr)->swap;
		break;
	case IB_WR_LOCAL_INV:
		sqe->opcode = WOOKIE_WR_LOCAL_INV;
		sqe->ex = wr->ex.invalidate_rkey;
		return 0;
	case IB_WR_REG_MR:
		sqe->opcode = WOOKIE_WR_REG_MR;
		sqe->reg.lkey = reg_wr(wr)->mr->lkey;
		sqe->reg.key = reg_wr(wr)->key;
		sqe->reg.access = reg_wr(wr)->access;
		return 0;
	default:
		return -EINVAL;
	}

	if (qp->kind == WOOKIE_QP_KIND_UD) {
		if (!ud_wr(wr)->ah)
			return -EINVAL;
		sqe->ud.ah_num = to_wookie_ah(ud_wr(wr)->ah)->ah_num;
		sqe->ud.remote_qpn = ud_wr(wr)->remote_qpn;
		sqe->ud.remote_qkey = ud_wr(wr)->remote_qkey;
	}

	if (wr->send_flags & IB_SEND_INLINE) {
		u8 *dst = (u8 *)(sqe + 1);
		u32 len = 0;

		sqe->flags |= WOOKIE_WQE_INLINE;
		for (i = 0; i < wr->num_sge; i++) {
			if (wr->sg_list[i].length > qp->sq_limits.max_inline - len)
				return -EINVAL;
			/* Virtual DMA: the address is a kernel address. */
			memcpy(dst + len, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			len += wr->sg_list[i].length;
		}
		sqe->inline_len = len;
		return 0;
	}
	if (wr->num_sge > qp->sq_limits.max_sge)
		return -EINVAL;
	sqe->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		sge[i].addr = wr->sg_list[i].addr;
		sge[i].length = wr->sg_list[i].length;
		sge[i].lkey = wr->sg_list[i].lkey;
	}
	return 0;
}

int wookie_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad_wr)
{
	struct wookie_qp *qp = to_wookie_qp(ibqp);
	struct wookie_ring *sq = &qp->sq;
	enum ib_qp_state state;
	unsigned long flags;
	u32 producer;
	int err = 0;

	/* User space writes its ring and calls with no WR as the doorbell. */
	if (qp->user) {
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		wookie_qp_ring_sq(qp);
		return 0;
	}

	state = READ_ONCE(qp->state);
	if (!sq->hdr || state == IB_QPS_RESET || state == IB_QPS_INIT ||
	    state == IB_QPS_RTR) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->sq_lock, flags);
	producer = sq->hdr->producer;
	for (; wr; wr = wr->next) {
		/* Acquire: the engine has finished with the slots it freed. */
		if (producer - smp_load_acquire(&sq->hdr->consumer) >=
		    sq->num_entries) {
			err = -ENOMEM;
			break;
		}
		err = wookie_wr_to_sqe(qp, wr, wookie_ring_slot(sq, producer));
		if (err)
			break;
		producer++;
	}
	/* Release: the WQEs are written before the engine sees them. */
	smp_store_release(&sq->hdr->producer, producer);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (err)
		*bad_wr = wr;
	wookie_qp_kick(qp);
	return err;
}

int wookie_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr)
{
	struct wookie_qp *qp = to_wookie_qp(ibqp);
	unsigned long flags;
	int err;

	if (!qp->rq.hdr) {
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		return 0;
	}
	/* User space: a doorbell with no WR asks for a flush in ERR. */
	if (qp->user) {
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		wookie_qp_run(qp);
		return 0;
	}
	if (READ_ONCE(qp->state) == IB_QPS_RESET) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq_lock, flags);
	err = wookie_ring_post_recv(&qp->rq, qp->rq_max_sge, wr, bad_wr);
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		wookie_qp_kick(qp);
	return err;
}

