// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The completer: matches ACKs, NAKs and READ/atomic responses with the
 * outstanding WQEs, places READ data and atomic results, rewinds the
 * requester for retransmission (NAK, RNR NAK, ACK timeout), and writes
 * send completions in SQ order.  In the error state it flushes.
 */
#include "wookie.h"
#include "wookie_trace.h"
#include "portable/wookie_psn.h"

/*
 * Responses that may hold the ACK timeout after each progress or
 * retransmission: what one stream can have in flight, a part of a READ
 * beyond a full send window.
 */
#define WOOKIE_COMP_HOLDS (2 * WOOKIE_WINDOW_MAX)

/*
 * READ responses that may wait for the gap before them to fill, and how
 * many waiting make the completer ask again (wookie_read_ooo_wait()).
 */
#define WOOKIE_READ_OOO_MAX 16
#define WOOKIE_READ_OOO_ASK 8

/* One past the last WQE with packets out: the requester's, if started. */
static u32 wookie_sent_end(struct wookie_qp *qp)
{
	if (qp->req.index != qp->req.fetch &&
	    wookie_swqe(qp, qp->req.index)->state == WOOKIE_WQE_SENDING)
		return qp->req.index + 1;
	return qp->req.index;
}

/* The first WQE waiting for a response, and its index; NULL if none. */
static struct wookie_send_wqe *wookie_oldest_sent(struct wookie_qp *qp,
						  u32 *index)
{
	u32 end = wookie_sent_end(qp);
	u32 i;

	for (i = qp->comp.index; i != end; i++) {
		struct wookie_send_wqe *wqe = wookie_swqe(qp, i);

		if (wqe->state == WOOKIE_WQE_SENDING ||
		    wqe->state == WOOKIE_WQE_SENT) {
			*index = i;
			return wqe;
		}
	}
	return NULL;
}

/*
 * The oldest outstanding WQE, when its packets from @psn on are lost:
 * where it is sent again from.  Returns the PSN to send first.
 */
static u32 wookie_rewind_wqe(struct wookie_qp *qp, struct wookie_send_wqe *wqe,
			     u32 psn)
{
	if (wqe->sqe.opcode == WOOKIE_WR_RDMA_READ) {
		/* Ask again for what has not arrived. */
		wqe->done_bytes = rounddown(wqe->done_bytes, qp->mtu_bytes);
		wqe->asked_bytes = wqe->done_bytes;
		wqe->state = WOOKIE_WQE_SENDING;
		return wookie_psn_add(wqe->first_psn,
				      wqe->done_bytes / qp->mtu_bytes);
	}
	if (wookie_is_rd_atomic(wqe->sqe.opcode)) {
		wqe->done_bytes = 0;
		wqe->state = WOOKIE_WQE_SENDING;
		return wqe->first_psn;
	}
	/*
	 * From the packet @psn names, but never past the message's last
	 * packet: the offset stays inside the message (and its inline
	 * data) whatever PSN the peer sent.
	 */
	wqe->done_bytes = wookie_psn_resume(psn, wqe->first_psn,
					    wqe->total_len, qp->mtu_bytes,
					    &psn);
	wqe->state = wqe->done_bytes ? WOOKIE_WQE_SENDING : WOOKIE_WQE_PENDING;
	return psn;
}

/*
 * A retransmission from @psn starts, for @cause: one trace and one count
 * each (netem's lane matches them), and no RTT sample across it.
 */
static void wookie_retransmit_start(struct wookie_qp *qp, u32 psn,
				    const char *cause)
{
	ibdev_dbg(qp->ibqp.device, "qp %u: retransmit from psn %#x (%s)\n",
		  qp->ibqp.qp_num, psn, cause);
	trace_wookie_retransmit(&qp->ibqp, psn, cause);
	wookie_qp_count(qp, WOOKIE_CNT_COMP_RETRY);
	wookie_rtt_cancel(&qp->req.rtt);
}

/*
 * Go back to @psn: the WQE holding it is resent from there, every later
 * one from its start.  @cause names why, for the tracepoint.
 */
static void wookie_rewind(struct wookie_qp *qp, u32 psn, const char *cause)
{
	u32 end = wookie_sent_end(qp);
	bool found = false;
	u32 i;

	wookie_retransmit_start(qp, psn, cause);
	/* The stream gone back on may still arrive before the new one. */
	qp->comp.holds_left = WOOKIE_COMP_HOLDS;
	for (i = qp->comp.index; i != end; i++) {
		struct wookie_send_wqe *wqe = wookie_swqe(qp, i);

		if (wqe->state != WOOKIE_WQE_SENDING &&
		    wqe->state != WOOKIE_WQE_SENT)
			continue;
		if (!found) {
			found = true;
			qp->req.index = i;
			qp->req.psn = wookie_rewind_wqe(qp, wqe, psn);
			continue;
		}
		/* Later WQEs start over; their READ credit is kept. */
		wqe->done_bytes = 0;
		wqe->asked_bytes = 0;
		wqe->state = wookie_is_rd_atomic(wqe->sqe.opcode) ?
			     WOOKIE_WQE_SENDING : WOOKIE_WQE_PENDING;
	}
	if (!found)
		qp->req.psn = qp->comp.psn;
}

/*
 * The peer has every PSN before @end, and the requester has gone back to
 * send some of those again: packets of the first transmission arrived
 * after all (an ACK timeout that a slow peer made spurious).  Move the
 * requester past them instead of sending them again, as far as SENDs and
 * WRITEs go: a READ or atomic ends only with its own response, and a
 * local operation was executed the first time.  The WQEs passed over are
 * SENT, for the caller to complete.
 */
static void wookie_skip_acked(struct wookie_qp *qp, u32 end)
{
	if (wookie_psn_diff(end, qp->req.psn) <= 0)
		return;
	while (qp->req.index != qp->req.fetch) {
		struct wookie_send_wqe *wqe = wookie_swqe(qp, qp->req.index);
		u32 n, left;

		if (wqe->state == WOOKIE_WQE_DONE) {
			qp->req.index++;
			continue;
		}
		if (wookie_is_rd_atomic(wqe->sqe.opcode) ||
		    wookie_is_local_op(wqe->sqe.opcode))
			return;
		n = wookie_psn_covered(qp->req.psn, wqe->done_bytes,
				       wqe->total_len, qp->mtu_bytes, end);
		if (!n)
			return;
		/* Whole or not by count: PSN distances wrap at 2^23. */
		left = wookie_packets_left(wqe->done_bytes, wqe->total_len,
					   qp->mtu_bytes);
		if (wqe->state == WOOKIE_WQE_PENDING) {
			wqe->first_psn = qp->req.psn;
			wqe->state = WOOKIE_WQE_SENDING;
		}
		wqe->done_bytes = min_t(u64, wqe->total_len,
					wqe->done_bytes +
					(u64)n * qp->mtu_bytes);
		qp->req.psn = wookie_psn_add(qp->req.psn, n);
		if (n < left)
			return;
		wqe->last_psn = wookie_psn_add(qp->req.psn, WOOKIE_PSN_MASK);
		wqe->state = WOOKIE_WQE_SENT;
		qp->req.index++;
	}
}

/*
 * An ACK acknowledges every PSN up to @psn.  After a rewind the ACK of a
 * packet sent before it may be ahead of what was sent again, even after
 * wookie_skip_acked() (which stops at a READ or atomic): the oldest
 * unacknowledged PSN then stops where the requester resumed, so that the
 * responses to what it sends again are still in the window.  It never
 * goes back.
 */
static void wookie_comp_ack_psn(struct wookie_qp *qp, u32 psn)
{
	u32 next = wookie_psn_add(psn, 1);

	if (wookie_psn_diff(next, qp->req.psn) > 0)
		next = qp->req.psn;
	if (wookie_psn_diff(next, qp->comp.psn) > 0)
		qp->comp.psn = next;
}

/* A response moved comp.psn forward. */
static void wookie_progress(struct wookie_qp *qp)
{
	ktime_t now = ktime_get();

	wookie_window_acked(&qp->req.window, qp->comp.psn);
	wookie_rtt_acked(&qp->req.rtt, qp->comp.psn, ktime_to_ns(now));
	qp->comp.retry_left = qp->retry_cnt;
	qp->comp.rnr_retry_left = qp->rnr_retry;
	qp->comp.holds_left = WOOKIE_COMP_HOLDS;
	qp->comp.probed = false;
	qp->comp.probe_nak_free = false;
	qp->comp.last_progress = now;
}

/*
 * A response that moves nothing: a late one of a stream the requester
 * went back on, or a replay for a retransmission that proved spurious.
 * It still shows the peer answering and the path delivering, and what
 * the requester waits for is queued behind it.  On a host slower than
 * the ACK timeout, timing out now asks for everything once more and
 * buries the host under yet more duplicates (a 64 MiB READ on the
 * sanitizer kernel never finished).  So it holds the timeout, a bounded
 * number of times: a peer that sends only such packets still meets the
 * retry limit.
 */
static void wookie_comp_hold(struct wookie_qp *qp)
{
	if (!qp->comp.holds_left)
		return;
	qp->comp.holds_left--;
	qp->comp.last_progress = ktime_get();
}

/*
 * Scatter @len bytes at message @offset into the WQE's SGEs; a WC status.
 * An ODP page missing: the completer waits for its fault holding @pkt
 * (-EAGAIN), or it failed before (IB_WC_LOC_PROT_ERR).
 */
static int wookie_scatter(struct wookie_qp *qp, struct wookie_send_wqe *wqe,
			  u64 offset, const struct wookie_src *src, u32 len,
			  struct wookie_pkt *pkt)
{
	struct wookie_odp_miss miss;
	int status;

	status = wookie_sge_place(to_wookie_dev(qp->ibqp.device), wqe->sge,
				  wqe->sqe.num_sge, qp->ibqp.pd,
				  qp->ibqp.qp_num, offset, src, len, &miss);
	if (status != WOOKIE_STATUS_ODP_MISS)
		return status;
	if (wookie_odp_stall(qp, WOOKIE_ODP_COMP, &miss))
		return IB_WC_LOC_PROT_ERR;
	wookie_odp_hold(qp, WOOKIE_ODP_COMP, pkt);
	return -EAGAIN;
}

/*
 * A response of the READ or atomic @wqe went missing (later ones came):
 * ask again from it, once per gap.
 */
static u32 wookie_gap_psn(const struct wookie_qp *qp,
			  const struct wookie_send_wqe *wqe)
{
	return wookie_psn_add(wqe->first_psn, wqe->done_bytes / qp->mtu_bytes);
}

static void wookie_ask_again(struct wookie_qp *qp, struct wookie_send_wqe *wqe,
			     const char *cause)
{
	u32 psn = wookie_gap_psn(qp, wqe);

	if (qp->comp.read_gap && qp->comp.read_gap_psn == psn) {
		wookie_comp_hold(qp);
		return;
	}
	qp->comp.read_gap = true;
	qp->comp.read_gap_psn = psn;
	wookie_window_nak(&qp->req.window, psn, qp->req.psn_end);
	wookie_rewind(qp, psn, cause);
}

static bool wookie_is_read_response(u8 op)
{
	return op >= WOOKIE_OP_READ_RESPONSE_FIRST &&
	       op <= WOOKIE_OP_READ_RESPONSE_ONLY;
}

/* The waiting responses wait for a new gap from now. */
static void wookie_read_ooo_restart(struct wookie_qp *qp)
{
	qp->read_ooo_since = ktime_get();
	wookie_qp_arm_timer(qp, ktime_add_us(qp->read_ooo_since,
					     wookie_reorder_usec(qp)));
}

/*
 * A READ response came ahead of the one the READ or atomic @wqe expects.
 * A link that reorders (netem, ECMP) delivers the missing one a moment
 * later; asking again at once for each gap made the responder start its
 * answer over for every reordered packet, and on the sanitizer kernel
 * under netem's reordering the duplicates buried the host until a READ
 * ran out of retries.  So up to WOOKIE_READ_OOO_MAX of them wait, in PSN
 * order, for the gap to fill; the completer asks again when they are
 * that many, when WOOKIE_READ_OOO_ASK wait, or after the reorder time
 * (wookie_comp_check_timeout()).  Not on the local path, which never
 * reorders (and whose responses would hold the peer's MRs meanwhile).
 * Returns true when it kept @pkt.
 */
static bool wookie_read_ooo_wait(struct wookie_qp *qp,
				 struct wookie_send_wqe *wqe,
				 struct wookie_pkt *pkt)
{
	struct list_head *pos;

	pos = wookie_pkt_list_pos(&qp->read_ooo, pkt->hdrs.bth.psn);
	if (!pos) {
		wookie_comp_hold(qp);	/* a duplicate */
		return false;
	}
	if (qp->local || pkt->ref || pkt->in_buf ||
	    qp->read_ooo_count >= WOOKIE_READ_OOO_MAX) {
		wookie_ask_again(qp, wqe, "read gap");
		return false;
	}
	if (!qp->read_ooo_count)
		wookie_read_ooo_restart(qp);
	list_add_tail(&pkt->list, pos);
	qp->read_ooo_count++;
	if (qp->read_ooo_count >= WOOKIE_READ_OOO_ASK)
		wookie_ask_again(qp, wqe, "read gap");
	return true;
}

/*
 * The next READ response that waited, once nothing before it is missing:
 * its PSN is the one expected, or older (a duplicate now), or the oldest
 * WQE is a SEND or WRITE it acknowledges (whose ACK went missing).
 */
static struct wookie_pkt *wookie_read_ooo_next(struct wookie_qp *qp)
{
	struct wookie_send_wqe *wqe;
	struct wookie_pkt *pkt;
	u32 psn, index;

	pkt = list_first_entry_or_null(&qp->read_ooo, struct wookie_pkt, list);
	if (!pkt)
		return NULL;
	psn = pkt->hdrs.bth.psn;
	if (wookie_psn_diff(psn, qp->comp.psn) > 0) {
		wqe = wookie_oldest_sent(qp, &index);
		if (!wqe || wqe->state != WOOKIE_WQE_SENT ||
		    wookie_is_rd_atomic(wqe->sqe.opcode) ||
		    wookie_psn_diff(psn, wqe->last_psn) <= 0)
			return NULL;
	}
	list_del(&pkt->list);
	qp->read_ooo_count--;
	return pkt;
}

/* With the engine stopped: reset, destroy, a new send PSN. */
void wookie_read_ooo_drop(struct wookie_qp *qp)
{
	wookie_pkt_free_list(&qp->read_ooo);
	qp->read_ooo_count = 0;
}

/* Returns true when it kept @pkt (to be taken up later). */
static bool wookie_read_response(struct wookie_qp *qp,
				 struct wookie_send_wqe *wqe,
				 struct wookie_pkt *pkt)
{
	const struct wookie_hdrs *h = &pkt->hdrs;
	u32 expected = wookie_psn_add(wqe->first_psn,
				      wqe->done_bytes / qp->mtu_bytes);
	/*
	 * What is left of the part the next byte is in: asked for now or
	 * before a rewind (then its late responses are as good).
	 */
	u64 left;
	bool last = h->flags & WOOKIE_OPF_LAST;
	int diff = wookie_psn_diff(h->bth.psn, expected);
	struct wookie_src src;
	int status;

	/* Data lands at done_bytes: never beyond the WQE's length. */
	if (wqe->done_bytes > wqe->total_len) {
		wookie_wqe_finish(qp, wqe, IB_WC_BAD_RESP_ERR);
		return false;
	}
	left = wookie_read_part_end(qp, wqe->total_len, wqe->done_bytes) -
	       wqe->done_bytes;
	if (diff < 0) {
		wookie_comp_hold(qp);	/* a duplicate */
		return false;
	}
	if (diff > 0)
		return wookie_read_ooo_wait(qp, wqe, pkt);
	qp->comp.read_gap = false;
	if (h->payload_len > left ||
	    (last ? h->payload_len != left : h->payload_len != qp->mtu_bytes)) {
		wookie_wqe_finish(qp, wqe, IB_WC_BAD_RESP_ERR);
		return false;
	}
	wookie_pkt_src(pkt, &src);
	status = wookie_scatter(qp, wqe, wqe->done_bytes, &src, h->payload_len,
				pkt);
	if (status == -EAGAIN)
		return true;
	if (status != IB_WC_SUCCESS) {
		wookie_wqe_finish(qp, wqe, status);
		return false;
	}
	wqe->done_bytes += h->payload_len;
	qp->comp.psn = wookie_psn_add(h->bth.psn, 1);
	wookie_progress(qp);
	if (wqe->done_bytes == wqe->total_len)
		wookie_wqe_finish(qp, wqe, IB_WC_SUCCESS);
	return false;
}

/* Returns true when it kept @pkt (to be taken up after a fault). */
static bool wookie_atomic_response(struct wookie_qp *qp,
				   struct wookie_send_wqe *wqe,
				   struct wookie_pkt *pkt)
{
	u64 orig = pkt->hdrs.atomic_orig;
	struct wookie_src src = { .buf = (const u8 *)&orig };
	int status;

	if (pkt->hdrs.bth.psn != wqe->first_psn)
		return false;
	/* The original value lands in host order, as a local u64. */
	status = wookie_scatter(qp, wqe, 0, &src, sizeof(orig), pkt);
	if (status == -EAGAIN)
		return true;
	qp->comp.psn = wookie_psn_add(wqe->first_psn, 1);
	wookie_progress(qp);
	wookie_wqe_finish(qp, wqe, status);
	return false;
}

static void wookie_rnr_nak(struct wookie_qp *qp, struct wookie_send_wqe *wqe,
			   u32 psn, u8 timer_code)
{
	u64 usec = wookie_rnr_timer_usec(timer_code);

	/* rnr_retry 7 means retry for ever. */
	if (qp->rnr_retry != 7) {
		if (!qp->comp.rnr_retry_left) {
			wookie_qp_count(qp, WOOKIE_CNT_RNR_RETRY_EXCEEDED);
			wookie_wqe_finish(qp, wqe, IB_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		qp->comp.rnr_retry_left--;
	}
	wookie_rewind(qp, psn, "rnr");
	/* The peer answered: nothing to probe for until it acknowledges. */
	qp->comp.probed = true;
	qp->req.rnr_wait = true;
	qp->req.rnr_until = ktime_add_us(ktime_get(), usec);
	wookie_qp_arm_timer(qp, qp->req.rnr_until);
}

/*
 * A retransmission for a loss (ACK timeout, sequence NAK) spends a retry;
 * with none left the WQE fails.  Returns false then.
 */
static bool wookie_spend_retry(struct wookie_qp *qp,
			       struct wookie_send_wqe *wqe)
{
	if (!qp->comp.retry_left) {
		wookie_qp_count(qp, WOOKIE_CNT_RETRY_EXCEEDED);
		wookie_wqe_finish(qp, wqe, IB_WC_RETRY_EXC_ERR);
		return false;
	}
	qp->comp.retry_left--;
	return true;
}

/*
 * A sequence NAK names the PSN the responder expects next, so it also
 * acknowledges every PSN before it: inside a SEND or WRITE that is
 * progress, and only a NAK that moves nothing spends a retry.  (Whole
 * WQEs before @psn were completed by the caller; a READ or atomic ends
 * only with its own response.)  A repeat of the NAK already gone back
 * for is a duplicated packet, not a new loss: the ACK timeout covers a
 * retransmission that is lost again.
 */
static void wookie_seq_nak(struct wookie_qp *qp, struct wookie_send_wqe *wqe,
			   u32 psn)
{
	if (qp->comp.nak_rewound && qp->comp.nak_psn == psn)
		return;
	if (!wookie_is_rd_atomic(wqe->sqe.opcode) &&
	    wookie_psn_diff(psn, qp->comp.psn) > 0) {
		wookie_comp_ack_psn(qp, wookie_psn_add(psn, WOOKIE_PSN_MASK));
		wookie_progress(qp);
	} else if (qp->comp.probe_nak_free) {
		/*
		 * The answer to the tail-loss probe's one packet, naming the
		 * loss it looks for: no retry spent, as when the probe sent
		 * the whole window again.  Once until the next progress.
		 */
		qp->comp.probe_nak_free = false;
	} else {
		ibdev_dbg(qp->ibqp.device,
			  "qp %u: NAK moves nothing, %u retries left\n",
			  qp->ibqp.qp_num, qp->comp.retry_left);
		if (!wookie_spend_retry(qp, wqe))
			return;
		/* The retransmission gets a whole timeout, as after one. */
		qp->comp.last_progress = ktime_get();
	}
	qp->comp.nak_rewound = true;
	qp->comp.nak_psn = psn;
	wookie_window_nak(&qp->req.window, psn, qp->req.psn_end);
	wookie_rewind(qp, psn, "nak");
}

static void wookie_nak(struct wookie_qp *qp, struct wookie_send_wqe *wqe,
		       const struct wookie_hdrs *h)
{
	u8 syndrome = h->aeth.syndrome;

	ibdev_dbg(qp->ibqp.device, "qp %u: NAK %#x psn %#x\n",
		  qp->ibqp.qp_num, syndrome, h->bth.psn);
	switch (syndrome & WOOKIE_AETH_TYPE_MASK) {
	case WOOKIE_AETH_RNR_NAK:
		wookie_qp_count(qp, WOOKIE_CNT_RCV_RNR);
		trace_wookie_rnr(&qp->ibqp, h->bth.psn, false,
				 syndrome & WOOKIE_AETH_VALUE_MASK);
		wookie_rnr_nak(qp, wqe, h->bth.psn,
			       syndrome & WOOKIE_AETH_VALUE_MASK);
		return;
	case WOOKIE_AETH_NAK:
		break;
	default:
		/* A reserved AETH type: malformed, dropped. */
		wookie_qp_drop(qp, WOOKIE_CNT_RX_BAD_HDR, &h->bth);
		return;
	}
	switch (syndrome & WOOKIE_AETH_VALUE_MASK) {
	case WOOKIE_NAK_PSN_SEQ_ERROR:
		wookie_qp_count(qp, WOOKIE_CNT_RCV_SEQ_ERR);
		wookie_seq_nak(qp, wqe, h->bth.psn);
		return;
	case WOOKIE_NAK_INVALID_REQUEST:
		wookie_wqe_finish(qp, wqe, IB_WC_REM_INV_REQ_ERR);
		return;
	case WOOKIE_NAK_REMOTE_ACCESS_ERROR:
		wookie_wqe_finish(qp, wqe, IB_WC_REM_ACCESS_ERR);
		return;
	default:
		wookie_wqe_finish(qp, wqe, IB_WC_REM_OP_ERR);
		return;
	}
}

/*
 * The response of an ATOMIC WRITE or a FLUSH: a READ RESPONSE ONLY with
 * no payload at the request's PSN, or a NAK in its AETH.
 */
static void wookie_empty_read_response(struct wookie_qp *qp,
				       struct wookie_send_wqe *wqe,
				       struct wookie_pkt *pkt)
{
	const struct wookie_hdrs *h = &pkt->hdrs;

	if (h->bth.psn != wqe->first_psn) {
		wookie_comp_hold(qp);	/* a duplicate */
		return;
	}
	if ((h->aeth.syndrome & WOOKIE_AETH_TYPE_MASK) != WOOKIE_AETH_ACK) {
		wookie_nak(qp, wqe, h);
		return;
	}
	if ((h->bth.opcode & ~WOOKIE_TRANSPORT_MASK) !=
	    WOOKIE_OP_READ_RESPONSE_ONLY || h->payload_len) {
		wookie_wqe_finish(qp, wqe, IB_WC_BAD_RESP_ERR);
		return;
	}
	qp->comp.read_gap = false;
	qp->comp.psn = wookie_psn_add(wqe->first_psn, 1);
	wookie_progress(qp);
	wookie_wqe_finish(qp, wqe, IB_WC_SUCCESS);
}

static bool wookie_aeth_type_known(const struct wookie_hdrs *h)
{
	switch (h->aeth.syndrome & WOOKIE_AETH_TYPE_MASK) {
	case WOOKIE_AETH_ACK:
	case WOOKIE_AETH_RNR_NAK:
	case WOOKIE_AETH_NAK:
		return true;
	default:
		return false;
	}
}

static void wookie_comp_one(struct wookie_qp *qp, struct wookie_pkt *pkt)
{
	const struct wookie_hdrs *h = &pkt->hdrs;
	u8 op = h->bth.opcode & ~WOOKIE_TRANSPORT_MASK;
	enum ib_qp_state state = READ_ONCE(qp->state);
	struct wookie_send_wqe *wqe;
	enum wookie_psn_class cls;
	u32 index;

	if (!wookie_kind_reliable(qp->kind) ||
	    (state != IB_QPS_RTS && state != IB_QPS_SQD &&
	     state != IB_QPS_SQE))
		goto out;
	/*
	 * Only a response to a packet sent and not acknowledged yet counts:
	 * everything below derives PSNs and offsets from this one.
	 */
	if (op == WOOKIE_OP_ACKNOWLEDGE &&
	    h->aeth.syndrome == (WOOKIE_AETH_NAK | WOOKIE_NAK_PSN_SEQ_ERROR))
		cls = wookie_psn_classify_seq_nak(h->bth.psn, qp->comp.psn,
						  qp->req.psn_end);
	else
		cls = wookie_psn_classify(h->bth.psn, qp->comp.psn,
					  qp->req.psn_end);
	switch (cls) {
	case WOOKIE_PSN_VALID:
		break;
	case WOOKIE_PSN_DUPLICATE:
		/* Late or repeated: lossy links do that. */
		wookie_comp_hold(qp);
		goto out;
	default:
		wookie_qp_drop(qp, WOOKIE_CNT_RX_BAD_PSN, &h->bth);
		goto out;
	}
	/* A reserved AETH type is malformed: dropped before it acks anything. */
	if ((h->flags & WOOKIE_OPF_AETH) && !wookie_aeth_type_known(h)) {
		wookie_qp_drop(qp, WOOKIE_CNT_RX_BAD_HDR, &h->bth);
		goto out;
	}
	if (op == WOOKIE_OP_ACKNOWLEDGE) {
		u8 syndrome = h->aeth.syndrome;

		if ((syndrome & WOOKIE_AETH_TYPE_MASK) == WOOKIE_AETH_ACK)
			wookie_skip_acked(qp, wookie_psn_add(h->bth.psn, 1));
		else if (syndrome ==
			 (WOOKIE_AETH_NAK | WOOKIE_NAK_PSN_SEQ_ERROR))
			wookie_skip_acked(qp, h->bth.psn);
	}

	while ((wqe = wookie_oldest_sent(qp, &index))) {
		bool rd_atomic = wookie_is_rd_atomic(wqe->sqe.opcode);
		bool sent = wqe->state == WOOKIE_WQE_SENT;

		if (wookie_psn_diff(h->bth.psn, wqe->first_psn) < 0) {
			wookie_comp_hold(qp);	/* stale */
			goto out;
		}
		if (sent && wookie_psn_diff(h->bth.psn, wqe->last_psn) > 0) {
			/*
			 * A response to a later packet acknowledges this WQE,
			 * unless it still owes a READ or atomic response: one
			 * of a later READ waits for it (reordered), anything
			 * else means it was lost: ask again.
			 */
			if (rd_atomic) {
				if (wookie_is_read_response(op) &&
				    wookie_read_ooo_wait(qp, wqe, pkt))
					return;
				if (!wookie_is_read_response(op))
					wookie_ask_again(qp, wqe, "read gap");
				goto out;
			}
			wookie_wqe_finish(qp, wqe, IB_WC_SUCCESS);
			qp->comp.psn = wookie_psn_add(wqe->last_psn, 1);
			wookie_progress(qp);
			continue;
		}
		break;
	}
	if (!wqe)
		goto out;

	switch (op) {
	case WOOKIE_OP_ACKNOWLEDGE:
		if ((h->aeth.syndrome & WOOKIE_AETH_TYPE_MASK) !=
		    WOOKIE_AETH_ACK) {
			wookie_nak(qp, wqe, h);
			break;
		}
		/* Only their own responses end READs and atomics. */
		if (wookie_is_rd_atomic(wqe->sqe.opcode))
			break;
		wookie_comp_ack_psn(qp, h->bth.psn);
		wookie_progress(qp);
		if (wqe->state == WOOKIE_WQE_SENT && h->bth.psn == wqe->last_psn)
			wookie_wqe_finish(qp, wqe, IB_WC_SUCCESS);
		break;
	case WOOKIE_OP_READ_RESPONSE_FIRST:
	case WOOKIE_OP_READ_RESPONSE_MIDDLE:
	case WOOKIE_OP_READ_RESPONSE_LAST:
	case WOOKIE_OP_READ_RESPONSE_ONLY:
		if (wookie_is_empty_read_resp(wqe->sqe.opcode)) {
			wookie_empty_read_response(qp, wqe, pkt);
			break;
		}
		if (wqe->sqe.opcode != WOOKIE_WR_RDMA_READ) {
			wookie_wqe_finish(qp, wqe, IB_WC_BAD_RESP_ERR);
			break;
		}
		if ((h->flags & WOOKIE_OPF_AETH) &&
		    (h->aeth.syndrome & WOOKIE_AETH_TYPE_MASK) !=
		    WOOKIE_AETH_ACK) {
			wookie_nak(qp, wqe, h);
			break;
		}
		if (wookie_read_response(qp, wqe, pkt))
			return;
		break;
	case WOOKIE_OP_ATOMIC_ACKNOWLEDGE:
		if (wqe->sqe.opcode != WOOKIE_WR_ATOMIC_CMP_AND_SWP &&
		    wqe->sqe.opcode != WOOKIE_WR_ATOMIC_FETCH_AND_ADD) {
			wookie_wqe_finish(qp, wqe, IB_WC_BAD_RESP_ERR);
			break;
		}
		/* Its AETH may NAK the atomic: then no original value. */
		if ((h->aeth.syndrome & WOOKIE_AETH_TYPE_MASK) !=
		    WOOKIE_AETH_ACK) {
			wookie_nak(qp, wqe, h);
			break;
		}
		if (wookie_atomic_response(qp, wqe, pkt))
			return;
		break;
	default:
		break;
	}
out:
	wookie_pkt_free(pkt);
}

/*
 * A response, then the READ responses that waited for it.  Bounded: each
 * turn takes one off the list; a stale one is dropped, and one that
 * moves nothing (it may wait again) ends the loop.
 */
void wookie_completer(struct wookie_qp *qp, struct wookie_pkt *pkt)
{
	u32 start = qp->comp.psn, psn;
	bool stale;

	wookie_comp_one(qp, pkt);
	/* Not while it waits for an ODP fault (holding the one it missed). */
	while (!wookie_odp_waits(qp, WOOKIE_ODP_COMP) &&
	       (pkt = wookie_read_ooo_next(qp))) {
		psn = qp->comp.psn;
		stale = wookie_psn_diff(pkt->hdrs.bth.psn, psn) < 0;
		wookie_comp_one(qp, pkt);
		if (!stale && qp->comp.psn == psn)
			break;
	}
	/* A gap filled; those still waiting wait for the next one. */
	if (qp->read_ooo_count && qp->comp.psn != start)
		wookie_read_ooo_restart(qp);
}

/*
 * READ responses waited for a gap longer than the reorder time: ask
 * again, once; if that answer goes missing too, the ACK timeout goes back.
 */
static void wookie_read_ooo_check(struct wookie_qp *qp)
{
	struct wookie_send_wqe *wqe;
	ktime_t deadline;
	u32 index;

	if (!qp->read_ooo_count)
		return;
	wqe = wookie_oldest_sent(qp, &index);
	if (!wqe || !wookie_is_rd_atomic(wqe->sqe.opcode))
		return;
	if (qp->comp.read_gap &&
	    qp->comp.read_gap_psn == wookie_gap_psn(qp, wqe))
		return;
	deadline = ktime_add_us(qp->read_ooo_since,
				wookie_reorder_usec(qp));
	if (ktime_before(ktime_get(), deadline))
		wookie_qp_arm_timer(qp, deadline);
	else
		wookie_ask_again(qp, wqe, "read gap");
}

/*
 * When the tail-loss probe (portable/wookie_rtt.h) is due: the probe
 * time after the last progress.  False when none may go: a peer on this
 * device (its packets are delivered in memory, and a probe would only
 * duplicate what its engine has yet to take), no ACK timeout, a probe
 * since the last progress, or no round trip known yet.
 */
bool wookie_comp_probe_due(struct wookie_qp *qp, ktime_t *due)
{
	u64 usec = wookie_ack_timeout_usec(qp->timeout);
	u64 probe_ns;

	if (!wookie_kind_reliable(qp->kind) || qp->av.local || !usec ||
	    qp->comp.probed)
		return false;
	probe_ns = wookie_rtt_probe_ns(&qp->req.rtt,
				       wookie_reorder_usec(qp) * NSEC_PER_USEC,
				       usec * NSEC_PER_USEC / 2);
	if (!probe_ns)
		return false;
	*due = ktime_add_ns(qp->comp.last_progress, probe_ns);
	return true;
}

/*
 * The probe of SENDs and WRITEs: the last packet sent, again, asking for
 * an ACK.  A peer that has it acknowledges everything; one that misses
 * an earlier packet sees a gap and NAKs from there.  Sending the whole
 * window again instead doubled the load of a host slow enough for the
 * probe to fire while the ACKs still waited in its own receive queue
 * (the sanitizer kernel, where a 64-packet message takes longer than
 * the probe time): ACK timeouts followed, and runs of them ended in
 * retry exceeded.  Returns false when the last packet sent is not one a
 * SEND or WRITE holds at the requester's front (it is going back
 * already, or a READ or atomic sent last): the caller goes back instead.
 */
static bool wookie_probe_last(struct wookie_qp *qp)
{
	u32 last = wookie_psn_add(qp->req.psn_end, WOOKIE_PSN_MASK);
	u32 end = wookie_sent_end(qp), index = end;
	struct wookie_send_wqe *wqe;

	/*
	 * Not while the requester goes back, nor when it went back for a
	 * NAK of the oldest PSN already: the retransmission it asked for
	 * was lost too, and the responder's NAKs of it again are ignored.
	 */
	if (qp->req.psn != qp->req.psn_end ||
	    (qp->comp.nak_rewound && qp->comp.nak_psn == qp->comp.psn))
		return false;
	/* Back to the last WQE with packets out; bounded by comp.index. */
	do {
		if (index == qp->comp.index)
			return false;
		wqe = wookie_swqe(qp, --index);
	} while (wqe->state == WOOKIE_WQE_DONE);
	if ((wqe->state != WOOKIE_WQE_SENDING &&
	     wqe->state != WOOKIE_WQE_SENT) ||
	    wookie_is_rd_atomic(wqe->sqe.opcode) ||
	    wookie_is_local_op(wqe->sqe.opcode) ||
	    wookie_psn_diff(last, wqe->first_psn) < 0 ||
	    (wqe->state == WOOKIE_WQE_SENT && wqe->last_psn != last))
		return false;
	wookie_retransmit_start(qp, last, "probe");
	qp->req.index = index;
	qp->req.psn = wookie_rewind_wqe(qp, wqe, last);
	qp->req.ack_next = true;
	qp->comp.probe_nak_free = true;
	return true;
}

/*
 * The tail-loss probe: responses stopped for a few round trips while
 * @wqe, the oldest WQE outstanding, waits for packets on the wire.  Ask
 * again once: SENDs and WRITEs with their last packet sent
 * (wookie_probe_last()), a READ or atomic from its first response
 * missing (even if that was asked for again already: the answer may be
 * lost too), anything else from the oldest PSN not acknowledged.  No
 * retry is spent, and the ACK timeout still counts from the last
 * progress, should the probe be lost too.  Not while READ responses wait
 * for a gap (they have their own deadline), nor while responses that
 * came in time wait for this host.
 */
static void wookie_comp_probe(struct wookie_qp *qp,
			      struct wookie_send_wqe *wqe, ktime_t now)
{
	ktime_t due;

	if (qp->read_ooo_count || qp->comp.psn == qp->req.psn_end ||
	    !wookie_comp_probe_due(qp, &due))
		return;
	if (ktime_before(now, due)) {
		wookie_qp_arm_timer(qp, due);
		return;
	}
	if (wookie_qp_resp_queued_before(qp, due))
		return;
	qp->comp.probed = true;
	wookie_qp_count(qp, WOOKIE_CNT_TAIL_PROBE);
	ibdev_dbg(qp->ibqp.device,
		  "qp %u: tail-loss probe at psn %#x (sent to %#x)\n",
		  qp->ibqp.qp_num, qp->comp.psn, qp->req.psn_end);
	if (wookie_is_rd_atomic(wqe->sqe.opcode)) {
		qp->comp.read_gap = false;
		wookie_ask_again(qp, wqe, "probe");
		return;
	}
	if (wookie_probe_last(qp))
		return;
	wookie_window_nak(&qp->req.window, qp->comp.psn, qp->req.psn_end);
	wookie_rewind(qp, qp->comp.psn, "probe");
}

/*
 * The ACK timeout: nothing came back for outstanding packets in time.
 * Before it, the tail-loss probe.  Also READ responses that waited for a
 * gap longer than the reorder time.
 */
void wookie_comp_check_timeout(struct wookie_qp *qp)
{
	u64 usec = wookie_ack_timeout_usec(qp->timeout);
	struct wookie_send_wqe *wqe;
	ktime_t deadline, now;
	u32 index;

	wookie_read_ooo_check(qp);
	if (!wookie_kind_reliable(qp->kind) || !usec || qp->req.rnr_wait)
		return;
	wqe = wookie_oldest_sent(qp, &index);
	if (!wqe)
		return;
	now = ktime_get();
	deadline = ktime_add_us(qp->comp.last_progress, usec);
	if (ktime_before(now, deadline)) {
		wookie_comp_probe(qp, wqe, now);
		wookie_qp_arm_timer(qp, deadline);
		return;
	}
	/*
	 * A response that came in time counts even if this host was too
	 * slow to look at it yet: the pass that left it queued runs again.
	 * Going back now would ask the peer for everything again and bury
	 * the slow host under duplicates, making the next timeout likelier.
	 */
	if (wookie_qp_resp_queued_before(qp, deadline))
		return;
	ibdev_dbg(qp->ibqp.device,
		  "qp %u: ACK timeout at psn %#x (sent to %#x), %u retries left\n",
		  qp->ibqp.qp_num, qp->comp.psn, qp->req.psn_end,
		  qp->comp.retry_left);
	trace_wookie_ack_timeout(&qp->ibqp, qp->comp.psn, qp->req.psn_end,
				 qp->comp.retry_left);
	if (!wookie_spend_retry(qp, wqe))
		return;
	qp->comp.last_progress = ktime_get();
	/* What is sent again now may have a gap or a NAK of its own. */
	qp->comp.read_gap = false;
	qp->comp.nak_rewound = false;
	qp->comp.probe_nak_free = false;
	wookie_window_timeout(&qp->req.window, qp->req.psn_end);
	wookie_rewind(qp, qp->comp.psn, "timeout");
	/* What waits, waits for the answer to this. */
	if (qp->read_ooo_count)
		wookie_read_ooo_restart(qp);
}

static u8 wookie_cqe_opcode(u8 wr_opcode)
{
	switch (wr_opcode) {
	case WOOKIE_WR_RDMA_WRITE:
	case WOOKIE_WR_RDMA_WRITE_WITH_IMM:
		return WOOKIE_CQE_RDMA_WRITE;
	case WOOKIE_WR_RDMA_READ:
		return WOOKIE_CQE_RDMA_READ;
	case WOOKIE_WR_ATOMIC_CMP_AND_SWP:
		return WOOKIE_CQE_COMP_SWAP;
	case WOOKIE_WR_ATOMIC_FETCH_AND_ADD:
		return WOOKIE_CQE_FETCH_ADD;
	case WOOKIE_WR_ATOMIC_WRITE:
		return WOOKIE_CQE_ATOMIC_WRITE;
	case WOOKIE_WR_FLUSH:
		return WOOKIE_CQE_FLUSH;
	case WOOKIE_WR_LOCAL_INV:
		return WOOKIE_CQE_LOCAL_INV;
	case WOOKIE_WR_BIND_MW:
		return WOOKIE_CQE_BIND_MW;
	case WOOKIE_WR_REG_MR:
		return WOOKIE_CQE_REG_MR;
	default:
		return WOOKIE_CQE_SEND;
	}
}

static void wookie_send_cqe(struct wookie_qp *qp, struct wookie_send_wqe *wqe)
{
	struct wookie_cqe cqe = {
		.wr_id = wqe->sqe.wr_id,
		.status = wqe->status,
		.opcode = wookie_cqe_opcode(wqe->sqe.opcode),
		.qp_num = qp->ibqp.qp_num,
	};

	if (wqe->sqe.opcode == WOOKIE_WR_RDMA_READ ||
	    wookie_is_rd_atomic(wqe->sqe.opcode))
		cqe.byte_len = wqe->total_len;
	if (wookie_cq_post(qp->send_cq, &cqe, false))
		wookie_qp_error(qp, IB_EVENT_QP_FATAL);
}

/*
 * Flush every WQE posted to the ring and not yet fetched.  The producer
 * index is user space's: how many WQEs that is comes from
 * wookie_ring_fetchable(), bounded by the ring, and a producer behind
 * what was already fetched flushes nothing more (and flags the ring).
 */
static void wookie_flush_unfetched(struct wookie_qp *qp)
{
	struct wookie_ring *sq = &qp->sq;
	/* Pairs with the poster's release: the slots are written. */
	u32 producer = smp_load_acquire(&sq->hdr->producer);
	u32 count;

	if (!wookie_ring_fetchable(producer, qp->comp.index, qp->req.fetch,
				   sq->num_entries, &count)) {
		wookie_ring_set_flags(sq, WOOKIE_RING_ERROR, 0);
		count = 0;
	}
	while (count--) {
		struct wookie_send_wqe *wqe = wookie_swqe(qp, qp->req.fetch);

		memcpy(&wqe->sqe, wookie_ring_slot(sq, qp->req.fetch),
		       sizeof(wqe->sqe));
		wqe->total_len = 0;
		wqe->pinned_ah = 0;
		wqe->state = WOOKIE_WQE_DONE;
		wqe->status = IB_WC_WR_FLUSH_ERR;
		qp->req.fetch++;
	}
	qp->req.index = qp->req.fetch;
}

/*
 * A flush is up to a ring's worth of completions on each queue: not in a
 * softirq.  There the QP is kicked instead, which hands it to its work
 * item (a softirq's runner does not run QPs in ERR or SQE).  Returns
 * true when the flush must wait for that.
 */
static bool wookie_comp_flush_later(struct wookie_qp *qp)
{
	if (!qp->runner || gfpflags_allow_blocking(qp->runner->gfp))
		return false;
	wookie_qp_kick(qp);
	return true;
}

void wookie_complete_done(struct wookie_qp *qp)
{
	enum ib_qp_state state = READ_ONCE(qp->state);
	/* The send queue flushes in ERR and in SQE, receives only in ERR. */
	bool error = state == IB_QPS_ERR || state == IB_QPS_SQE;

	if (state == IB_QPS_RESET)
		return;
	/*
	 * An XRC target has no SQ: drained as soon as asked, and in ERR only
	 * the receive WQE it was filling to flush.
	 */
	if (!qp->sq.hdr) {
		if (state == IB_QPS_ERR)
			wookie_flush_recv(qp);
		if (state == IB_QPS_SQD && qp->sq_draining) {
			qp->sq_draining = false;
			if (qp->sqd_notify)
				wookie_qp_event(qp, IB_EVENT_SQ_DRAINED);
		}
		return;
	}
	if (error) {
		if (wookie_comp_flush_later(qp))
			return;
		wookie_flush_unfetched(qp);
	}

	while (qp->comp.index != qp->req.fetch) {
		struct wookie_send_wqe *wqe = wookie_swqe(qp, qp->comp.index);
		bool failed;

		if (wqe->state != WOOKIE_WQE_DONE) {
			if (!error)
				break;
			wookie_wqe_finish(qp, wqe, IB_WC_WR_FLUSH_ERR);
		}
		qp->comp.index++;
		if (qp->req.index == qp->comp.index - 1)
			qp->req.index = qp->comp.index;
		/*
		 * The slot is free before its CQE can be polled: a consumer
		 * that posts once per completion never finds the SQ full.
		 * The CQE comes from the kernel's copy, not from the slot.
		 * Release: we are done reading the slot.
		 */
		smp_store_release(&qp->sq.hdr->consumer, qp->comp.index);
		/*
		 * IBTA: a failed WQE moves an RC QP to the error state, a UC
		 * or UD QP to SQE; either way what follows is flushed.  The
		 * state changes before the CQE is out: a consumer that polls
		 * the error must find the QP in its error state.
		 */
		failed = wqe->status != IB_WC_SUCCESS && !error;
		if (failed) {
			if (wookie_kind_reliable(qp->kind))
				wookie_qp_error(qp, 0);
			else
				wookie_qp_sq_error(qp);
		}
		if (wqe->status != IB_WC_SUCCESS || qp->sq_sig_all ||
		    (wqe->sqe.flags & WOOKIE_WQE_SIGNALED))
			wookie_send_cqe(qp, wqe);
		if (failed) {
			if (wookie_comp_flush_later(qp))
				return;
			error = true;
			wookie_flush_unfetched(qp);
		}
	}

	if (state == IB_QPS_SQD && qp->sq_draining &&
	    qp->comp.index == qp->req.fetch) {
		qp->sq_draining = false;
		if (qp->sqd_notify)
			wookie_qp_event(qp, IB_EVENT_SQ_DRAINED);
	}
	if (READ_ONCE(qp->state) == IB_QPS_ERR) {
		if (wookie_comp_flush_later(qp))
			return;
		wookie_flush_recv(qp);
		if (qp->srq && !qp->last_wqe_reached) {
			qp->last_wqe_reached = true;
			wookie_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
		}
	}
}
