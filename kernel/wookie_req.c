// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The requester: takes WQEs from the SQ ring (copying and checking each
 * one first), executes local operations, and turns messages into packets
 * of at most the path MTU, each with the next PSN.  What is sent but not
 * acknowledged stays in the kernel's WQE copies for the completer, which
 * may rewind the requester to retransmit.
 */
#include "wookie.h"
#include "portable/wookie_psn.h"

/*
 * Copy the next WQE out of the ring.  0: fetched, -ECANCELED: fetched
 * and DONE with an error status (its check or its AH failed), -ENOENT:
 * the ring is empty, -EIO: the ring's producer index is corrupt.
 */
static int wookie_fetch_wqe(struct wookie_qp *qp)
{
	struct wookie_dev *wdev = to_wookie_dev(qp->ibqp.device);
	struct wookie_ring *sq = &qp->sq;
	struct wookie_send_wqe *wqe;
	u32 producer, count, index = qp->req.fetch;
	bool pinned;
	u8 *slot;
	size_t len;
	int err;

	/* Pairs with the poster's release: the slots are written. */
	producer = smp_load_acquire(&sq->hdr->producer);
	if (!wookie_ring_fetchable(producer, qp->comp.index, qp->req.fetch,
				   sq->num_entries, &count))
		return -EIO;
	if (!count)
		return -ENOENT;

	wqe = wookie_swqe(qp, qp->req.fetch);
	slot = wookie_ring_slot(sq, qp->req.fetch);
	/* The header, then its SGEs or inline data, as far as the slot goes. */
	len = min_t(size_t, sq->stride - sizeof(wqe->sqe), qp->swqe_payload);
	memcpy(&wqe->sqe, slot, sizeof(wqe->sqe));
	memcpy(wqe->inline_data, slot + sizeof(wqe->sqe), len);
	pinned = wqe->pinned_ah && wqe->pinned_ah == wqe->sqe.ud.ah_num &&
		 wqe->pinned_index == index;
	wqe->pinned_ah = 0;
	qp->req.fetch++;
	wqe->state = WOOKIE_WQE_PENDING;
	wqe->status = IB_WC_SUCCESS;
	wqe->done_bytes = 0;
	wqe->asked_bytes = 0;
	wqe->atomic_orig = 0;

	err = wookie_sqe_check(&wqe->sqe, &qp->sq_limits, qp->mtu_bytes,
			       &wqe->total_len);
	if (err) {
		wookie_wqe_finish(qp, wqe, err == -EMSGSIZE ? IB_WC_LOC_LEN_ERR :
							   IB_WC_LOC_QP_OP_ERR);
		return -ECANCELED;
	}
	if (qp->kind == WOOKIE_QP_KIND_UD && !pinned &&
	    wookie_ah_lookup(wdev, wqe->sqe.ud.ah_num, qp->ibqp.pd, &wqe->av)) {
		wookie_wqe_finish(qp, wqe, IB_WC_LOC_QP_OP_ERR);
		return -ECANCELED;
	}
	return 0;
}

/*
 * AH @ah_num is being destroyed: give its address vector to the WQEs
 * posted on UD QP @qp that name it and are not fetched yet.  A NIC reads
 * the AV when the WQE is posted, so a consumer may destroy the AH right
 * after its last post (rdma-core's mckey does); posting here makes no
 * system call, and the requester may fetch those WQEs later.  The count
 * bounds the loop, as in a fetch; a slot rewritten after this is the
 * poster's own business.
 */
void wookie_req_pin_av(struct wookie_qp *qp, u32 ah_num,
		       const struct wookie_av *av)
{
	struct wookie_ring *sq = &qp->sq;
	u32 producer, count, i;

	wookie_qp_hold(qp);
	/* Pairs with the poster's release: the slots are written. */
	producer = smp_load_acquire(&sq->hdr->producer);
	if (!wookie_ring_fetchable(producer, qp->comp.index, qp->req.fetch,
				   sq->num_entries, &count))
		count = 0;
	for (i = qp->req.fetch; count; i++, count--) {
		const struct wookie_sqe *sqe = wookie_ring_slot(sq, i);
		struct wookie_send_wqe *wqe;

		if (READ_ONCE(sqe->ud.ah_num) != ah_num)
			continue;
		wqe = wookie_swqe(qp, i);
		wqe->av = *av;
		wqe->pinned_ah = ah_num;
		wqe->pinned_index = i;
	}
	wookie_qp_unhold(qp);
}

/*
 * A WQE failed before anything of it went out (its check at fetch, its
 * AH, its gather or a local operation): nothing after it may go out.
 * The QP leaves RTS now, not when the completer reaches the WQE in SQ
 * order.  Returns -EIO for the caller to stop on.
 */
static int wookie_req_local_error(struct wookie_qp *qp)
{
	if (wookie_kind_reliable(qp->kind))
		wookie_qp_error(qp, 0);
	else
		wookie_qp_sq_error(qp);
	return -EIO;
}

/*
 * Gather @len bytes of the message at @offset into @dst; a WC status or
 * WOOKIE_STATUS_ODP_MISS.
 */
static int wookie_gather(struct wookie_qp *qp, struct wookie_send_wqe *wqe,
			 u64 offset, u8 *dst, u32 len,
			 struct wookie_odp_miss *miss)
{
	if (wqe->sqe.flags & WOOKIE_WQE_INLINE) {
		/* The checked inline length, whatever offset a rewind gave. */
		if (offset > wqe->sqe.inline_len ||
		    len > wqe->sqe.inline_len - offset)
			return IB_WC_LOC_LEN_ERR;
		memcpy(dst, wqe->inline_data + offset, len);
		return IB_WC_SUCCESS;
	}
	return wookie_sge_gather(to_wookie_dev(qp->ibqp.device), wqe->sge,
				 wqe->sqe.num_sge, qp->ibqp.pd, qp->ibqp.qp_num,
				 offset, dst, len, miss);
}

static u8 wookie_send_opcode(u8 wr_opcode, bool first, bool last)
{
	bool imm = wr_opcode == WOOKIE_WR_SEND_WITH_IMM;
	bool inv = wr_opcode == WOOKIE_WR_SEND_WITH_INV;

	if (first && last)
		return imm ? WOOKIE_OP_SEND_ONLY_IMM :
		       inv ? WOOKIE_OP_SEND_ONLY_INV : WOOKIE_OP_SEND_ONLY;
	if (first)
		return WOOKIE_OP_SEND_FIRST;
	if (!last)
		return WOOKIE_OP_SEND_MIDDLE;
	return imm ? WOOKIE_OP_SEND_LAST_IMM :
	       inv ? WOOKIE_OP_SEND_LAST_INV : WOOKIE_OP_SEND_LAST;
}

static u8 wookie_write_opcode(u8 wr_opcode, bool first, bool last)
{
	bool imm = wr_opcode == WOOKIE_WR_RDMA_WRITE_WITH_IMM;

	if (first && last)
		return imm ? WOOKIE_OP_WRITE_ONLY_IMM : WOOKIE_OP_WRITE_ONLY;
	if (first)
		return WOOKIE_OP_WRITE_FIRST;
	if (!last)
		return WOOKIE_OP_WRITE_MIDDLE;
	return imm ? WOOKIE_OP_WRITE_LAST_IMM : WOOKIE_OP_WRITE_LAST;
}

/*
 * A packet that asks for a response goes out: time it, unless a packet
 * is timed already or this one was sent before (a response to a packet
 * sent twice times neither).  Not for a peer on this device, which is
 * never probed (wookie_comp_probe_due()).
 */
static void wookie_req_time(struct wookie_qp *qp, u32 psn)
{
	if (!qp->av.local && !qp->req.rtt.timing &&
	    wookie_psn_diff(psn, qp->req.psn_end) >= 0)
		wookie_rtt_sent(&qp->req.rtt, psn, ktime_get_ns());
}

/*
 * One packet of a SEND or RDMA WRITE.  -EAGAIN: an ODP page of the
 * payload is being faulted in, nothing was done.
 */
static int wookie_send_data_packet(struct wookie_qp *qp,
				   struct wookie_send_wqe *wqe)
{
	const struct wookie_sqe *sqe = &wqe->sqe;
	u64 left = wqe->total_len - wqe->done_bytes;
	bool first = wqe->done_bytes == 0;
	bool last = left <= qp->mtu_bytes;
	u32 len = min_t(u64, left, qp->mtu_bytes);
	bool write = sqe->opcode == WOOKIE_WR_RDMA_WRITE ||
		     sqe->opcode == WOOKIE_WR_RDMA_WRITE_WITH_IMM;
	const struct wookie_av *av = &qp->av;
	struct wookie_odp_miss miss;
	struct wookie_hdrs h = {};
	struct wookie_pkt *pkt;
	u8 op;
	int status;

	op = write ? wookie_write_opcode(sqe->opcode, first, last) :
		     wookie_send_opcode(sqe->opcode, first, last);
	h.bth.opcode = wookie_transport_of(qp->kind) | op;
	h.bth.psn = qp->req.psn;
	h.bth.dest_qp = qp->dest_qp_num;
	/* Written only on XRC, whose WQEs alone may carry one. */
	h.xrc_srqn = sqe->xrc_srqn;
	if (last && (sqe->flags & WOOKIE_WQE_SOLICITED))
		h.bth.solicited = true;
	/*
	 * An ACK at the end of a message, every WOOKIE_ACK_REQ_EVERY
	 * packets, for the packet that fills the send window (the
	 * requester waits for that one), and for a tail-loss probe.
	 */
	if (wookie_kind_reliable(qp->kind))
		h.bth.ack_req = last || qp->req.ack_next ||
			(wookie_psn_diff(qp->req.psn, wqe->first_psn) %
			 WOOKIE_ACK_REQ_EVERY) == WOOKIE_ACK_REQ_EVERY - 1 ||
			!wookie_window_open(&qp->req.window,
					    wookie_psn_add(qp->req.psn, 1),
					    qp->comp.psn);
	if (qp->kind == WOOKIE_QP_KIND_UD) {
		av = &wqe->av;
		h.bth.dest_qp = sqe->ud.remote_qpn & WOOKIE_PSN_MASK;
		/* A Q_Key with the high bit set means "use the QP's own". */
		h.deth.qkey = (sqe->ud.remote_qkey & 0x80000000u) ?
			      qp->qkey : sqe->ud.remote_qkey;
		h.deth.src_qp = qp->ibqp.qp_num;
	}
	if (write && first) {
		h.reth.va = sqe->rdma.remote_addr;
		h.reth.rkey = sqe->rdma.rkey;
		h.reth.dma_len = wqe->total_len;
	}
	if (last && (sqe->opcode == WOOKIE_WR_SEND_WITH_IMM ||
		     sqe->opcode == WOOKIE_WR_RDMA_WRITE_WITH_IMM))
		h.imm_be = sqe->ex;
	if (last && sqe->opcode == WOOKIE_WR_SEND_WITH_INV)
		h.ieth_rkey = sqe->ex;

	status = WOOKIE_STATUS_NO_REF;
	if (qp->local && len > WOOKIE_LOCAL_COPY_MAX &&
	    !(sqe->flags & WOOKIE_WQE_INLINE)) {
		/* The receiver copies from our MRs: no copy here. */
		pkt = wookie_pkt_build_ref(qp, &h);
		if (!pkt)
			return -ENOMEM;
		status = wookie_sge_ref(to_wookie_dev(qp->ibqp.device),
					wqe->sge, wqe->sqe.num_sge,
					qp->ibqp.pd, qp->ibqp.qp_num,
					wqe->done_bytes, len, pkt->ref);
		if (status == WOOKIE_STATUS_NO_REF)
			wookie_pkt_free(pkt);
	}
	if (status == WOOKIE_STATUS_NO_REF) {
		pkt = wookie_pkt_build(qp, &h, len);
		if (!pkt)
			return -ENOMEM;
		status = wookie_gather(qp, wqe, wqe->done_bytes,
				       pkt->data + pkt->hdrs.hdr_len, len,
				       &miss);
	}
	if (status == WOOKIE_STATUS_ODP_MISS) {
		wookie_pkt_free(pkt);
		status = wookie_odp_stall(qp, WOOKIE_ODP_REQ, &miss);
		if (!status)
			return -EAGAIN;
		status = IB_WC_LOC_PROT_ERR;
		pkt = NULL;
	}
	if (status != IB_WC_SUCCESS) {
		if (pkt)
			wookie_pkt_free(pkt);
		wookie_wqe_finish(qp, wqe, status);
		qp->req.index++;
		return wookie_req_local_error(qp);
	}

	if (first)
		wqe->state = WOOKIE_WQE_SENDING;
	if (write && first)
		wookie_qp_count(qp, WOOKIE_CNT_RDMA_SEND);
	if (h.bth.ack_req)
		wookie_req_time(qp, h.bth.psn);
	qp->req.ack_next = false;
	wqe->done_bytes += len;
	qp->req.psn = wookie_psn_add(qp->req.psn, 1);
	qp->req.psn_end = wookie_psn_sent_end(qp->req.psn_end, h.bth.psn,
					      qp->req.psn);
	if (last) {
		wqe->last_psn = h.bth.psn;
		qp->req.index++;
		/* Unreliable: done once it is sent. */
		if (wookie_kind_reliable(qp->kind))
			wqe->state = WOOKIE_WQE_SENT;
		else
			wookie_wqe_finish(qp, wqe, IB_WC_SUCCESS);
	}
	wookie_net_xmit(qp, av, pkt);
	return 0;
}

/*
 * The request of an RDMA READ (its remainder after a rewind), an atomic,
 * an ATOMIC WRITE or a FLUSH.
 */
static int wookie_send_rd_atomic(struct wookie_qp *qp,
				 struct wookie_send_wqe *wqe)
{
	const struct wookie_sqe *sqe = &wqe->sqe;
	struct wookie_hdrs h = {};
	struct wookie_pkt *pkt;
	u32 npkts = 1, payload = 0;

	/*
	 * Sent again after a rewind: from the first response still missing,
	 * which may have arrived since the rewind chose where to resume.
	 */
	if (wqe->state != WOOKIE_WQE_PENDING)
		qp->req.psn = wookie_psn_add(wqe->first_psn,
					     wqe->done_bytes / qp->mtu_bytes);
	h.bth.psn = qp->req.psn;
	h.bth.dest_qp = qp->dest_qp_num;
	h.bth.ack_req = true;
	h.xrc_srqn = sqe->xrc_srqn;
	if (sqe->opcode == WOOKIE_WR_RDMA_READ) {
		u64 end = wookie_read_part_end(qp, wqe->total_len,
					       wqe->done_bytes);
		u64 len = end - wqe->done_bytes;

		h.bth.opcode = wookie_transport_of(qp->kind) |
			       WOOKIE_OP_READ_REQUEST;
		h.reth.va = sqe->rdma.remote_addr + wqe->done_bytes;
		h.reth.rkey = sqe->rdma.rkey;
		h.reth.dma_len = len;
		npkts = wookie_num_packets(len, qp->mtu_bytes);
		wqe->asked_bytes = end;
	} else if (sqe->opcode == WOOKIE_WR_ATOMIC_WRITE) {
		h.bth.opcode = wookie_transport_of(qp->kind) |
			       WOOKIE_OP_ATOMIC_WRITE;
		h.reth.va = sqe->atomic_write.remote_addr;
		h.reth.rkey = sqe->atomic_write.rkey;
		h.reth.dma_len = WOOKIE_ATOMIC_WRITE_BYTES;
		payload = WOOKIE_ATOMIC_WRITE_BYTES;
	} else if (sqe->opcode == WOOKIE_WR_FLUSH) {
		h.bth.opcode = wookie_transport_of(qp->kind) | WOOKIE_OP_FLUSH;
		h.feth.type = sqe->flush.type;
		h.feth.level = sqe->flush.level;
		h.reth.va = sqe->flush.remote_addr;
		h.reth.rkey = sqe->flush.rkey;
		h.reth.dma_len = sqe->flush.length;
	} else {
		h.bth.opcode = wookie_transport_of(qp->kind) |
			(sqe->opcode == WOOKIE_WR_ATOMIC_CMP_AND_SWP ?
			 WOOKIE_OP_CMP_SWAP : WOOKIE_OP_FETCH_ADD);
		h.atomic.va = sqe->atomic.remote_addr;
		h.atomic.rkey = sqe->atomic.rkey;
		if (sqe->opcode == WOOKIE_WR_ATOMIC_CMP_AND_SWP) {
			h.atomic.compare = sqe->atomic.compare_add;
			h.atomic.swap_add = sqe->atomic.swap;
		} else {
			h.atomic.swap_add = sqe->atomic.compare_add;
		}
	}

	pkt = wookie_pkt_build(qp, &h, payload);
	if (!pkt)
		return -ENOMEM;
	/* The checked copy's bytes, as the consumer gave them. */
	if (payload)
		memcpy(pkt->data + pkt->hdrs.hdr_len, sqe->atomic_write.data,
		       payload);
	if (wqe->state == WOOKIE_WQE_PENDING) {
		wqe->first_psn = qp->req.psn;
		qp->req.rd_atomic_inflight++;
		if (sqe->opcode == WOOKIE_WR_RDMA_READ)
			wookie_qp_count(qp, WOOKIE_CNT_RDMA_SEND);
	}
	wookie_req_time(qp, h.bth.psn);
	qp->req.psn = wookie_psn_add(qp->req.psn, npkts);
	qp->req.psn_end = wookie_psn_sent_end(qp->req.psn_end, h.bth.psn,
					      qp->req.psn);
	wqe->last_psn = wookie_psn_add(qp->req.psn, WOOKIE_PSN_MASK);
	/* A READ with parts still to ask for stays the requester's. */
	if (sqe->opcode == WOOKIE_WR_RDMA_READ &&
	    wqe->asked_bytes < wqe->total_len) {
		wqe->state = WOOKIE_WQE_SENDING;
	} else {
		wqe->state = WOOKIE_WQE_SENT;
		qp->req.index++;
	}
	wookie_net_xmit(qp, &qp->av, pkt);
	return 0;
}

static void wookie_do_local_op(struct wookie_qp *qp,
			       struct wookie_send_wqe *wqe)
{
	int status;

	switch (wqe->sqe.opcode) {
	case WOOKIE_WR_LOCAL_INV:
		status = wookie_local_invalidate(qp, wqe->sqe.ex);
		break;
	case WOOKIE_WR_BIND_MW:
		status = wookie_bind_mw(qp, &wqe->sqe);
		break;
	default:
		status = wookie_fast_reg_mr(qp, &wqe->sqe);
		break;
	}
	wookie_wqe_finish(qp, wqe, status);
}

/*
 * Packets went out: arm the ACK timer, if the QP has one.  @idle: nothing
 * was outstanding before them, so the ACK timeout counts from now.
 */
static void wookie_req_arm_timer(struct wookie_qp *qp, bool idle)
{
	u64 usec = wookie_ack_timeout_usec(qp->timeout);
	ktime_t due;

	if (!wookie_kind_reliable(qp->kind) || !usec)
		return;
	if (idle)
		qp->comp.last_progress = ktime_get();
	wookie_qp_arm_timer(qp, ktime_add_us(qp->comp.last_progress, usec));
	/* Nothing else runs the QP before then if no response comes. */
	if (wookie_comp_probe_due(qp, &due))
		wookie_qp_arm_timer(qp, due);
}

/*
 * Does a READ or atomic before SQ index @index still wait for its
 * response?  Not the credit count: going back, later READs keep theirs,
 * and a fenced WQE sent again ahead of them must not wait for them.
 */
static bool wookie_rd_atomic_before(struct wookie_qp *qp, u32 index)
{
	u32 i;

	for (i = qp->comp.index; i != index; i++) {
		struct wookie_send_wqe *wqe = wookie_swqe(qp, i);

		if (wookie_is_rd_atomic(wqe->sqe.opcode) &&
		    (wqe->state == WOOKIE_WQE_SENDING ||
		     wqe->state == WOOKIE_WQE_SENT))
			return true;
	}
	return false;
}

bool wookie_requester(struct wookie_qp *qp)
{
	enum ib_qp_state state = READ_ONCE(qp->state);
	int budget = wookie_qp_budget(qp);
	/* Every PSN sent so far is acknowledged. */
	bool idle = qp->comp.psn == qp->req.psn_end;
	struct wookie_send_wqe *wqe;
	bool sent = false, faulting = false;
	int err;

	qp->req.drained = false;
	/* An XRC target has no SQ. */
	if ((state != IB_QPS_RTS && state != IB_QPS_SQD) || !qp->sq.hdr)
		return true;
	/* The fault work kicks the QP when the page is in. */
	if (!wookie_odp_ready(qp, WOOKIE_ODP_REQ))
		return true;
	if (qp->req.rnr_wait) {
		/* The timer may have fired for an earlier expiry: wait on. */
		if (ktime_before(ktime_get(), qp->req.rnr_until)) {
			wookie_qp_arm_timer(qp, qp->req.rnr_until);
			return true;
		}
		qp->req.rnr_wait = false;
		/*
		 * The peer answered: what goes again now gets a whole ACK
		 * timeout.  Counted from the last ACK instead, an RNR wait
		 * (or a series of them: a responder's long ODP fault) spent
		 * the transport's retries.
		 */
		qp->comp.last_progress = ktime_get();
	}

	while (budget > 0) {
		if (qp->req.index == qp->req.fetch) {
			/* SQD: finish what was started, start nothing new. */
			if (state == IB_QPS_SQD)
				break;
			err = wookie_fetch_wqe(qp);
			if (err == -ENOENT) {
				qp->req.drained = true;
				break;
			}
			if (err == -ECANCELED) {
				qp->req.index++;
				wookie_req_local_error(qp);
				return true;
			}
			if (err) {
				wookie_ring_set_flags(&qp->sq,
						      WOOKIE_RING_ERROR, 0);
				wookie_qp_error(qp, IB_EVENT_QP_FATAL);
				return true;
			}
		}
		wqe = wookie_swqe(qp, qp->req.index);
		if (wqe->state == WOOKIE_WQE_DONE) {
			/*
			 * A READ, atomic, ATOMIC WRITE or FLUSH gone back to
			 * whose first response came after all: its PSNs are
			 * acknowledged, and the next WQE must not take them.
			 */
			if (wookie_psn_diff(qp->comp.psn, qp->req.psn) > 0)
				qp->req.psn = qp->comp.psn;
			qp->req.index++;
			budget--;
			continue;
		}
		/* A fence waits for every earlier READ and atomic. */
		if ((wqe->sqe.flags & WOOKIE_WQE_FENCE) &&
		    wqe->state == WOOKIE_WQE_PENDING &&
		    qp->req.rd_atomic_inflight &&
		    wookie_rd_atomic_before(qp, qp->req.index))
			break;
		if (wookie_is_local_op(wqe->sqe.opcode)) {
			wookie_do_local_op(qp, wqe);
			qp->req.index++;
			if (wqe->status != IB_WC_SUCCESS) {
				wookie_req_local_error(qp);
				return true;
			}
			budget--;
			continue;
		}
		if (wookie_kind_reliable(qp->kind) &&
		    !wookie_window_open(&qp->req.window, qp->req.psn,
					qp->comp.psn))
			break;
		if (wookie_is_rd_atomic(wqe->sqe.opcode)) {
			if (wqe->state == WOOKIE_WQE_PENDING &&
			    qp->req.rd_atomic_inflight >=
			    max_t(u32, qp->max_rd_atomic, 1))
				break;
			/* The next part of a READ once the last one is in. */
			if (wqe->state == WOOKIE_WQE_SENDING &&
			    wqe->done_bytes < wqe->asked_bytes)
				break;
			err = wookie_send_rd_atomic(qp, wqe);
		} else {
			if (wqe->state == WOOKIE_WQE_PENDING)
				wqe->first_psn = qp->req.psn;
			err = wookie_send_data_packet(qp, wqe);
		}
		/* Waiting for an ODP fault: the work kicks the QP. */
		if (err == -EAGAIN) {
			faulting = true;
			break;
		}
		if (err)
			return false;
		sent = true;
		budget--;
	}
	if (sent)
		wookie_req_arm_timer(qp, idle);
	return faulting || budget > 0;
}
