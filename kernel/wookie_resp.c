// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The responder (IBTA 1.4 chapter 9): executes the requests a QP receives
 * (RC: SEND, RDMA WRITE, RDMA READ, atomics, and IBTA 1.5's ATOMIC WRITE
 * and FLUSH; UC: SEND, RDMA WRITE; UD: SEND), places their data, writes
 * receive completions and answers RC requesters with ACKs, NAKs, READ
 * responses and atomic acknowledgments.
 *
 * An RC or UC packet goes through check_psn -> check_op_seq ->
 * check_access -> check_length -> execute -> acknowledge.  A step that
 * fails returns why, and resp_fail() does what the QP's transport does
 * about it: NAK and error state on RC, dropping the message on UC.
 */
#include <linux/udp.h>
#include <net/ip.h>

#include "wookie.h"
#include "wookie_trace.h"

/* Outcome of a step. */
enum resp_res {
	RESP_OK,
	/* Drop the packet; whatever answer was due has been sent. */
	RESP_DROP,
	/* Kept to be taken up later (resp_ooo_wait()): not freed. */
	RESP_KEPT,
	/*
	 * An ODP page is being faulted in: nothing of the request was done,
	 * and it is taken up again (wookie_odp_hold()) once it is in.
	 */
	RESP_STALL,
	/* No receive WQE for a SEND or a WRITE with immediate. */
	RESP_RNR,
	/* Malformed request: sequence, length, access of the QP. */
	RESP_ERR_INVALID,
	/* R_Key, its access rights or its range do not allow the request. */
	RESP_ERR_ACCESS,
	/* The receive WQE is too small; completed with LOC_LEN_ERR. */
	RESP_ERR_LENGTH,
	/* The receive WQE cannot be used; completed with its error. */
	RESP_ERR_RECV,
	/* SEND with invalidate: the invalidation failed; completed so. */
	RESP_ERR_INV_RKEY,
	/* Local fault: corrupt receive ring, CQ overflow. */
	RESP_ERR_FATAL,
};

/* The operation classes of wookie_opcode_flags(). */
#define RESP_OPF_CLASS (WOOKIE_OPF_SEND | WOOKIE_OPF_WRITE | \
			WOOKIE_OPF_READ | WOOKIE_OPF_ATOMIC | \
			RESP_OPF_IBTA15)
/*
 * IBTA 1.5's requests: single packets that take a responder resource and
 * are answered by a READ RESPONSE ONLY without payload.
 */
#define RESP_OPF_IBTA15 (WOOKIE_OPF_FLUSH | WOOKIE_OPF_ATOMIC_WRITE)
/* The requests answered by a response of their own, not an ACK. */
#define RESP_OPF_RD_ATOMIC (WOOKIE_OPF_READ | WOOKIE_OPF_ATOMIC | \
			    RESP_OPF_IBTA15)
#define RESP_OPF_ONLY (WOOKIE_OPF_FIRST | WOOKIE_OPF_LAST)
/* The syndrome of a positive acknowledgment. */
#define RESP_AETH_ACK (WOOKIE_AETH_ACK | WOOKIE_AETH_NO_CREDITS)
/* Bytes of a UD receive buffer taken by the network header. */
#define RESP_GRH_LEN sizeof(union rdma_network_hdr)
/* RoCEv2 ICRC, on the wire after the pad. */
#define RESP_ICRC_LEN 4
/*
 * How long an RC request waits held for an ODP fault before it is RNR
 * NAKed (wookie_resp_odp_wait()): well inside a requester's ACK timeout
 * (67 ms at perftest's 14), long enough for most faults to end first.
 */
#define RESP_ODP_HOLD_USEC 4000
/*
 * A WRITE that misses faults in up to this much of what it has left: a
 * work round trip per packet would be slow, a long fault an RNR NAK.
 */
#define RESP_ODP_AHEAD SZ_256K

/*
 * Requests that may wait ahead of a gap for it to fill, and how many
 * waiting make the responder NAK the gap (resp_ooo_wait()).
 */
#define WOOKIE_RESP_OOO_MAX 16
#define WOOKIE_RESP_OOO_NAK 8

static inline struct wookie_dev *resp_wdev(struct wookie_qp *qp)
{
	return to_wookie_dev(qp->ibqp.device);
}

static bool resp_state_ok(struct wookie_qp *qp)
{
	switch (READ_ONCE(qp->state)) {
	case IB_QPS_RTR:
	case IB_QPS_RTS:
	case IB_QPS_SQD:
	case IB_QPS_SQE:
		return true;
	default:
		return false;
	}
}

/* ---- XRC targets: the SRQ a request names ---- */

/*
 * XRC SRQ @srqn if it is in the target's XRC domain, with a reference; a
 * number may have been reused by an SRQ of another domain meanwhile.
 */
static struct wookie_srq *resp_xrc_srq_get(struct wookie_qp *qp, u32 srqn)
{
	struct wookie_srq *srq = wookie_xrc_srq_get(resp_wdev(qp), srqn);

	if (srq && srq->ibsrq.ext.xrc.xrcd != qp->xrcd) {
		wookie_srq_put(srq);
		srq = NULL;
	}
	return srq;
}

/*
 * The receive queue of a request: the QP's SRQ, or on an XRC target the
 * SRQ its XRCETH named (NULL if unusable); NULL for the QP's own RQ.
 */
static struct wookie_srq *resp_srq(struct wookie_qp *qp)
{
	return qp->kind == WOOKIE_QP_KIND_XRC_TGT ? qp->resp.xrc_srq : qp->srq;
}

/*
 * The PD that R_Keys are checked in: an XRC target has none of its own
 * and uses its SRQ's; no SRQ, no PD, and no key matches.
 */
static struct ib_pd *resp_pd(struct wookie_qp *qp)
{
	if (qp->kind != WOOKIE_QP_KIND_XRC_TGT)
		return qp->ibqp.pd;
	return qp->resp.xrc_srq ? qp->resp.xrc_srq->ibsrq.pd : NULL;
}

/*
 * Post a receive CQE: to the receive CQ, or on an XRC target to the CQ
 * of the SRQ the WQE came from, unless that SRQ has gone since.
 */
static int resp_cq_post(struct wookie_qp *qp, struct wookie_cqe *cqe,
			bool solicited)
{
	struct wookie_srq *srq = qp->resp.xrc_srq;
	int err;

	if (qp->kind != WOOKIE_QP_KIND_XRC_TGT)
		return wookie_cq_post(qp->recv_cq, cqe, solicited);
	if (srq && srq->ibsrq.ext.xrc.srq_num == qp->resp.rqe_srqn)
		return wookie_cq_post(to_wookie_cq(srq->ibsrq.ext.cq), cqe,
				      solicited);
	srq = resp_xrc_srq_get(qp, qp->resp.rqe_srqn);
	if (!srq)
		return 0;
	err = wookie_cq_post(to_wookie_cq(srq->ibsrq.ext.cq), cqe, solicited);
	wookie_srq_put(srq);
	return err;
}

/* ---- Packets the responder sends ---- */

static void resp_xmit_ack(struct wookie_qp *qp, u8 syndrome, u32 psn,
			  u32 msn)
{
	struct wookie_hdrs h = {};
	struct wookie_pkt *pkt;

	h.bth.opcode = wookie_transport_of(qp->kind) |
		       WOOKIE_OP_ACKNOWLEDGE;
	h.bth.dest_qp = qp->dest_qp_num;
	h.bth.psn = psn & WOOKIE_PSN_MASK;
	h.aeth.syndrome = syndrome;
	h.aeth.msn = msn;
	qp->resp.ack_held = 0;
	pkt = wookie_pkt_build(qp, &h, 0);
	/* Out of memory: the requester's retry stands in for a lost ACK. */
	if (pkt)
		wookie_net_xmit(qp, &qp->av, pkt);
}

/*
 * Packets leave the responder in the order it decided them: an owed ACK
 * goes before anything else it sends.
 */
void wookie_resp_flush_ack(struct wookie_qp *qp)
{
	if (!qp->resp.ack_due)
		return;
	qp->resp.ack_due = false;
	resp_xmit_ack(qp, RESP_AETH_ACK, qp->resp.ack_psn, qp->resp.ack_msn);
}

void wookie_send_ack(struct wookie_qp *qp, u8 syndrome, u32 psn)
{
	wookie_resp_flush_ack(qp);
	resp_xmit_ack(qp, syndrome, psn, qp->resp.msn);
}

/*
 * A positive ACK up to @psn, coalesced with the others of this pass (IBTA
 * 9.7.5.1.1: an ACK acknowledges every earlier PSN); the pass sends it.
 * Not for more than a run of requests, though: a pass of a slow host (or
 * one preempted before its end) held a whole window's ACK past the
 * requester's timeout, which then sent the window again.
 */
static void resp_ack_later(struct wookie_qp *qp, u32 psn)
{
	if (qp->resp.ack_due)
		wookie_qp_count(qp, WOOKIE_CNT_ACK_DEFERRED);
	qp->resp.ack_due = true;
	qp->resp.ack_psn = psn & WOOKIE_PSN_MASK;
	/* The MSN of then: a READ or atomic after it raises resp.msn. */
	qp->resp.ack_msn = qp->resp.msn;
	if (qp->resp.ack_held >= WOOKIE_ACK_REQ_EVERY)
		wookie_resp_flush_ack(qp);
}

static void resp_nak(struct wookie_qp *qp, u8 code, u32 psn)
{
	wookie_send_ack(qp, WOOKIE_AETH_NAK | code, psn);
}

/*
 * A response without payload sent at once: an ATOMIC ACKNOWLEDGE with
 * @orig, or (@op READ RESPONSE ONLY) the answer of an IBTA 1.5 request.
 */
static void resp_send_single(struct wookie_qp *qp, u8 op, u32 psn, u64 orig)
{
	struct wookie_hdrs h = {};
	struct wookie_pkt *pkt;

	h.bth.opcode = wookie_transport_of(qp->kind) | op;
	h.bth.dest_qp = qp->dest_qp_num;
	h.bth.psn = psn;
	h.aeth.syndrome = RESP_AETH_ACK;
	h.aeth.msn = qp->resp.msn;
	h.atomic_orig = orig;
	wookie_resp_flush_ack(qp);
	pkt = wookie_pkt_build(qp, &h, 0);
	/* Lost like on the wire: the requester's retry gets the saved one. */
	if (pkt)
		wookie_net_xmit(qp, &qp->av, pkt);
}

static u8 resp_read_opcode(bool first, bool last)
{
	if (first && last)
		return WOOKIE_OP_READ_RESPONSE_ONLY;
	if (first)
		return WOOKIE_OP_READ_RESPONSE_FIRST;
	if (last)
		return WOOKIE_OP_READ_RESPONSE_LAST;
	return WOOKIE_OP_READ_RESPONSE_MIDDLE;
}

/*
 * The MR a READ response reads, checked again: the QP's PD, or on an XRC
 * target the PD of the SRQ the request named, looked up again as the
 * responses may go out after it was handled.
 */
static struct wookie_mr *resp_read_mr(struct wookie_qp *qp,
				      const struct wookie_rd_atomic *res,
				      u64 va, u32 len)
{
	struct wookie_srq *srq;
	struct wookie_mr *mr;

	if (qp->kind != WOOKIE_QP_KIND_XRC_TGT)
		return wookie_mem_get(resp_wdev(qp), res->rkey, qp->ibqp.pd,
				      qp->ibqp.qp_num, WOOKIE_MEM_REMOTE_READ,
				      va, len);
	srq = resp_xrc_srq_get(qp, res->xrc_srqn);
	if (!srq)
		return ERR_PTR(-EINVAL);
	mr = wookie_mem_get(resp_wdev(qp), res->rkey, srq->ibsrq.pd,
			    qp->ibqp.qp_num, WOOKIE_MEM_REMOTE_READ, va, len);
	wookie_srq_put(srq);
	return mr;
}

/*
 * Send up to @budget responses of the READ in resp.read_cur.  Returns true
 * when none remains (done, or given up on an error that ends the QP).
 */
static bool resp_read_send(struct wookie_qp *qp, u32 budget)
{
	struct wookie_resp *resp = &qp->resp;

	if (resp->read_cur)
		wookie_resp_flush_ack(qp);
	for (; resp->read_cur && budget; budget--) {
		struct wookie_rd_atomic *res = resp->read_cur;
		u64 left = res->length - resp->read_sent;
		u32 len = min_t(u64, left, qp->mtu_bytes);
		u64 va = res->va + resp->read_sent;
		bool last = len == left;
		struct wookie_odp_miss miss;
		struct wookie_hdrs h = {};
		struct wookie_pkt *pkt;
		struct wookie_mr *mr;
		bool by_ref;
		int err;

		h.bth.opcode = wookie_transport_of(qp->kind) |
			       resp_read_opcode(!resp->read_sent, last);
		h.bth.dest_qp = qp->dest_qp_num;
		h.bth.psn = resp->read_psn;
		/* Written only on FIRST, LAST and ONLY, as the opcode says. */
		h.aeth.syndrome = RESP_AETH_ACK;
		h.aeth.msn = resp->msn;
		mr = NULL;
		if (len) {
			/* The MR may have gone since the request was checked. */
			mr = resp_read_mr(qp, res, va, len);
			if (IS_ERR(mr)) {
				resp->read_cur = NULL;
				resp_nak(qp, WOOKIE_NAK_REMOTE_ACCESS_ERROR,
					 resp->read_psn);
				wookie_qp_error(qp, IB_EVENT_QP_ACCESS_ERR);
				return true;
			}
		}
		/* Only pages an MR keeps stay valid by the reference. */
		by_ref = mr && qp->local && len > WOOKIE_LOCAL_COPY_MAX &&
			 wookie_mr_paged(mr);
		if (by_ref)
			pkt = wookie_pkt_build_ref(qp, &h);
		else
			pkt = wookie_pkt_build(qp, &h, len);
		if (!pkt) {
			if (mr)
				wookie_mr_put(mr);
			return false;
		}
		if (by_ref) {
			/* The requester copies from here. */
			pkt->ref->seg[0].mr = mr;
			pkt->ref->seg[0].va = va;
			pkt->ref->seg[0].len = len;
			pkt->ref->num_segs = 1;
			pkt->ref->len = len;
		} else if (mr) {
			err = wookie_mr_copy_from(mr, va,
						  pkt->data + pkt->hdrs.hdr_len,
						  len, &miss);
			wookie_mr_put(mr);
			if (err) {
				/* Sent once the page is in: the work kicks. */
				wookie_pkt_free(pkt);
				err = wookie_odp_stall(qp, WOOKIE_ODP_RESP,
						       &miss);
				/* No NAK for responses: wait for the fault. */
				if (err == WOOKIE_ODP_BUSY)
					wookie_odp_rejoin(qp, WOOKIE_ODP_RESP);
				if (!err || err == WOOKIE_ODP_BUSY)
					return false;
				resp->read_cur = NULL;
				resp_nak(qp, WOOKIE_NAK_REMOTE_ACCESS_ERROR,
					 resp->read_psn);
				wookie_qp_error(qp, IB_EVENT_QP_ACCESS_ERR);
				return true;
			}
		}
		wookie_net_xmit(qp, &qp->av, pkt);

		resp->read_sent += len;
		resp->read_psn = wookie_psn_add(resp->read_psn, 1);
		if (last)
			resp->read_cur = NULL;
	}
	return !resp->read_cur;
}

bool wookie_responder_continue(struct wookie_qp *qp)
{
	if (wookie_odp_pending(qp, WOOKIE_ODP_RESP))
		return false;
	if (!qp->resp.read_cur)
		return true;
	if (!resp_state_ok(qp)) {
		qp->resp.read_cur = NULL;
		return true;
	}
	return resp_read_send(qp, wookie_qp_budget(qp));
}

/* ---- Receive WQEs and completions ---- */

static void resp_cqe_init(struct wookie_qp *qp, struct wookie_cqe *cqe,
			  u64 wr_id, enum ib_wc_status status)
{
	memset(cqe, 0, sizeof(*cqe));
	cqe->wr_id = wr_id;
	cqe->status = status;
	cqe->opcode = WOOKIE_CQE_RECV;
	cqe->qp_num = qp->ibqp.qp_num;
	cqe->pkey_index = qp->pkey_index;
}

/*
 * The receive WQE in flight, if any, ends with the error @status; its CQE
 * waits in resp.err_cqe for resp_fail() to post it.
 */
static void resp_complete_error(struct wookie_qp *qp, enum ib_wc_status status)
{
	if (!qp->resp.have_rqe)
		return;
	qp->resp.have_rqe = false;
	resp_cqe_init(qp, &qp->resp.err_cqe, qp->resp.rqe.wr_id, status);
	qp->resp.err_cqe_pending = true;
}

/* The receive WQE failed with @status: complete it and say how it failed. */
static enum resp_res resp_recv_error(struct wookie_qp *qp,
				     enum ib_wc_status status)
{
	resp_complete_error(qp, status);
	return status == IB_WC_LOC_LEN_ERR ? RESP_ERR_LENGTH : RESP_ERR_RECV;
}

/* Take a receive WQE for a new message into resp.rqe. */
static enum resp_res resp_get_rqe(struct wookie_qp *qp)
{
	struct wookie_resp *resp = &qp->resp;
	struct wookie_srq *srq = resp_srq(qp);
	int err;

	/* UC keeps the WQE of a dropped message for the next one. */
	if (resp->have_rqe)
		return RESP_OK;
	/* An XRC target without its SRQ: resp_check_access() refused. */
	if (!srq && qp->kind == WOOKIE_QP_KIND_XRC_TGT)
		return RESP_ERR_FATAL;
	if (srq) {
		err = wookie_srq_pop(srq, &resp->rqe);
		if (qp->kind == WOOKIE_QP_KIND_XRC_TGT)
			resp->rqe_srqn = srq->ibsrq.ext.xrc.srq_num;
	} else {
		err = wookie_rq_pop(&qp->rq, &qp->rq_consumer, qp->rq_max_sge,
				    &resp->rqe);
	}
	if (err == -ENOENT)
		return RESP_RNR;
	if (err)
		return RESP_ERR_FATAL;
	resp->have_rqe = true;
	resp->recv_bytes = 0;
	return RESP_OK;
}

/* Receive buffers posted to an SRQ belong to the SRQ's PD (as siw). */
static struct ib_pd *resp_recv_pd(struct wookie_qp *qp)
{
	struct wookie_srq *srq = resp_srq(qp);

	return srq ? srq->ibsrq.pd : resp_pd(qp);
}

/*
 * The responder missed an ODP page of the request in hand, which it did
 * nothing of: RESP_STALL to hold it while the fault runs, RESP_RNR to NAK
 * it while an earlier request's fault still runs, or @fail when the fault
 * of these pages failed.
 */
static enum resp_res resp_odp_miss(struct wookie_qp *qp,
				   struct wookie_odp_miss *miss,
				   enum resp_res fail)
{
	int err = wookie_odp_stall(qp, WOOKIE_ODP_RESP, miss);

	if (!err)
		return RESP_STALL;
	return err == WOOKIE_ODP_BUSY ? RESP_RNR : fail;
}

/*
 * Write @len bytes at byte @offset of resp.rqe's buffers, each SGE's lkey
 * checked for the bytes it takes (none for no bytes): RESP_OK, RESP_STALL
 * (an ODP page being faulted in), or the receive WQE's failure.
 */
static enum resp_res resp_place(struct wookie_qp *qp, u64 offset,
				const struct wookie_src *src, u32 len)
{
	const struct wookie_recv_wqe *rqe = &qp->resp.rqe;
	struct wookie_odp_miss miss;
	enum resp_res res;
	int status;

	status = wookie_sge_place(resp_wdev(qp), rqe->sge,
				  min_t(u32, rqe->num_sge, WOOKIE_MAX_SGE),
				  resp_recv_pd(qp), qp->ibqp.qp_num, offset, src,
				  len, &miss);
	if (status == WOOKIE_STATUS_ODP_MISS) {
		res = resp_odp_miss(qp, &miss, RESP_OK);
		if (res != RESP_OK)
			return res;
		status = IB_WC_LOC_PROT_ERR;
	}
	if (status != IB_WC_SUCCESS)
		return resp_recv_error(qp, status);
	return RESP_OK;
}

/* The payload of @pkt at byte @offset of resp.rqe's buffers. */
static enum resp_res resp_place_pkt(struct wookie_qp *qp, u64 offset,
				    const struct wookie_pkt *pkt)
{
	struct wookie_src src;

	wookie_pkt_src(pkt, &src);
	return resp_place(qp, offset, &src, pkt->hdrs.payload_len);
}

static void resp_flush_one(struct wookie_qp *qp, u64 wr_id, int *err)
{
	struct wookie_cqe cqe;

	resp_cqe_init(qp, &cqe, wr_id, IB_WC_WR_FLUSH_ERR);
	*err = resp_cq_post(qp, &cqe, false);
}

void wookie_flush_recv(struct wookie_qp *qp)
{
	struct wookie_recv_wqe rqe;
	int err = 0;
	u32 n;

	if (qp->resp.have_rqe) {
		qp->resp.have_rqe = false;
		resp_flush_one(qp, qp->resp.rqe.wr_id, &err);
	}
	if (!qp->rq.hdr)
		return;
	/*
	 * A full CQ is in error: later flush CQEs would be lost anyway.  At
	 * most a ring's worth per pass: user space may keep posting (and
	 * polling) as fast as this flushes; its next doorbell flushes more.
	 */
	for (n = 0; n < qp->rq.num_entries && !err; n++) {
		if (wookie_rq_pop(&qp->rq, &qp->rq_consumer, qp->rq_max_sge,
				  &rqe))
			break;
		resp_flush_one(qp, rqe.wr_id, &err);
	}
}

void wookie_resp_reset(struct wookie_qp *qp)
{
	struct wookie_rd_atomic *rd_atomic = qp->resp.rd_atomic;

	memset(&qp->resp, 0, sizeof(qp->resp));
	qp->resp.rd_atomic = rd_atomic;
	if (rd_atomic)
		memset(rd_atomic, 0, WOOKIE_MAX_RD_ATOMIC * sizeof(*rd_atomic));
	qp->resp.psn = qp->rq_psn & WOOKIE_PSN_MASK;
}

/* ---- READ and atomic resources ---- */

static struct wookie_rd_atomic *resp_new_res(struct wookie_qp *qp)
{
	struct wookie_resp *resp = &qp->resp;
	u32 n = clamp_t(u32, qp->max_dest_rd_atomic, 1, WOOKIE_MAX_RD_ATOMIC);
	struct wookie_rd_atomic *res;

	/* max_dest_rd_atomic may have shrunk since the last request. */
	if (resp->rd_atomic_next >= n)
		resp->rd_atomic_next = 0;
	res = &resp->rd_atomic[resp->rd_atomic_next];
	resp->rd_atomic_next = (resp->rd_atomic_next + 1) % n;
	memset(res, 0, sizeof(*res));
	res->valid = true;
	return res;
}

/* The resource of a request of @kind whose PSNs include @psn, if kept. */
static struct wookie_rd_atomic *resp_find_res(struct wookie_qp *qp, u32 psn,
					      enum wookie_res_kind kind)
{
	struct wookie_rd_atomic *res;
	unsigned int i;

	if (!qp->resp.rd_atomic)
		return NULL;
	for (i = 0; i < WOOKIE_MAX_RD_ATOMIC; i++) {
		res = &qp->resp.rd_atomic[i];
		if (res->valid && res->kind == kind &&
		    wookie_psn_diff(psn, res->first_psn) >= 0 &&
		    wookie_psn_diff(res->last_psn, psn) >= 0)
			return res;
	}
	return NULL;
}

/* Check the RETH of a READ request (new or duplicate). */
static enum resp_res resp_read_check(struct wookie_qp *qp,
				     const struct wookie_reth *reth)
{
	struct wookie_mr *mr;

	if (!qp->resp.rd_atomic || reth->dma_len > WOOKIE_MAX_MSG_SIZE)
		return RESP_ERR_INVALID;
	/* A zero-length READ names no memory: no R_Key check. */
	if (!reth->dma_len)
		return RESP_OK;
	mr = wookie_mem_get(resp_wdev(qp), reth->rkey, resp_pd(qp),
			    qp->ibqp.qp_num, WOOKIE_MEM_REMOTE_READ, reth->va,
			    reth->dma_len);
	if (IS_ERR(mr))
		return RESP_ERR_ACCESS;
	wookie_mr_put(mr);
	return RESP_OK;
}

/* Answer @reth from @psn on, through @res. */
static void resp_read_start(struct wookie_qp *qp, struct wookie_rd_atomic *res,
			    u32 psn, const struct wookie_reth *reth)
{
	struct wookie_resp *resp = &qp->resp;

	res->rkey = reth->rkey;
	res->va = reth->va;
	res->length = reth->dma_len;
	if (resp->xrc_srq)
		res->xrc_srqn = resp->xrc_srq->ibsrq.ext.xrc.srq_num;
	resp->read_cur = res;
	resp->read_psn = psn;
	resp->read_sent = 0;
	resp_read_send(qp, wookie_qp_budget(qp));
}

/* ---- RC and UC: the checks ---- */

/* UC: forget a partial message; its receive WQE serves the next one. */
static void resp_uc_abort(struct wookie_qp *qp)
{
	qp->resp.in_msg_flags = 0;
	qp->resp.recv_bytes = 0;
}

static enum resp_res resp_duplicate_read(struct wookie_qp *qp,
					 struct wookie_pkt *pkt)
{
	const struct wookie_hdrs *h = &pkt->hdrs;
	struct wookie_rd_atomic *res;
	enum resp_res ret;
	u32 npkts;

	/* Overwritten by newer requests: the requester must give up. */
	res = resp_find_res(qp, h->bth.psn, WOOKIE_RES_READ);
	if (!res)
		return RESP_DROP;
	ret = resp_read_check(qp, &h->reth);
	if (ret != RESP_OK)
		return ret;
	/* A retry asks for what is left of the original, no more. */
	npkts = wookie_num_packets(h->reth.dma_len, qp->mtu_bytes);
	if (wookie_psn_diff(res->last_psn,
			    wookie_psn_add(h->bth.psn, npkts - 1)) < 0)
		return RESP_ERR_INVALID;
	resp_read_start(qp, res, h->bth.psn, &h->reth);
	return RESP_DROP;
}

/* The answer to an ATOMIC WRITE or a FLUSH: an empty READ RESPONSE ONLY. */
static void resp_ibta15_answer(struct wookie_qp *qp,
			       struct wookie_rd_atomic *res, u32 psn)
{
	const struct wookie_reth none = {};

	resp_read_start(qp, res, psn, &none);
}

static enum resp_res resp_flush_check(struct wookie_qp *qp,
				      const struct wookie_hdrs *h);

/* A FLUSH's placement type and selectivity level are ones IBTA defines. */
static bool resp_flush_valid(const struct wookie_hdrs *h)
{
	return h->feth.type &&
	       !(h->feth.type & ~(WOOKIE_FLUSH_GLOBAL |
				  WOOKIE_FLUSH_PERSISTENT)) &&
	       h->feth.level <= WOOKIE_FLUSH_LEVEL_MR;
}

/* The access rights a FLUSH of placement type @type needs. */
static int resp_flush_access(u8 type)
{
	int need = 0;

	if (type & WOOKIE_FLUSH_GLOBAL)
		need |= IB_ACCESS_FLUSH_GLOBAL;
	if (type & WOOKIE_FLUSH_PERSISTENT)
		need |= IB_ACCESS_FLUSH_PERSISTENT;
	return need;
}

/*
 * resp_check_access()'s verdict on a FLUSH, without its side effect (an
 * XRC target's message SRQ): a duplicate must leave a message in
 * progress as it was.
 */
static bool resp_flush_allowed(struct wookie_qp *qp, u8 type)
{
	int need = resp_flush_access(type);

	if (qp->kind == WOOKIE_QP_KIND_XRC_TGT && !qp->resp.xrc_srq)
		return false;
	return (READ_ONCE(qp->qp_access_flags) & need) == need;
}

/*
 * An ATOMIC WRITE is not executed again (a later write may have changed
 * the word since): its response is sent again while its resource is
 * kept, and one overwritten by newer requests gets none, as a READ's.
 * A FLUSH is idempotent: one whose resource is gone is answered again if
 * its rights still hold.  rxe's requester spends no credit on a FLUSH,
 * so it may have more outstanding than this QP keeps resources for.
 */
static enum resp_res resp_duplicate_ibta15(struct wookie_qp *qp,
					   struct wookie_pkt *pkt)
{
	const struct wookie_hdrs *h = &pkt->hdrs;
	bool flush = h->flags & WOOKIE_OPF_FLUSH;
	struct wookie_rd_atomic *res;

	res = resp_find_res(qp, h->bth.psn, flush ? WOOKIE_RES_FLUSH :
						    WOOKIE_RES_ATOMIC_WRITE);
	if (res && res->first_psn == h->bth.psn) {
		resp_ibta15_answer(qp, res, h->bth.psn);
		return RESP_DROP;
	}
	if (!flush || !resp_flush_valid(h) ||
	    !resp_flush_allowed(qp, h->feth.type) ||
	    resp_flush_check(qp, h) != RESP_OK)
		return RESP_DROP;
	/* No READ answer is in progress (wookie_responder_continue()). */
	resp_send_single(qp, WOOKIE_OP_READ_RESPONSE_ONLY, h->bth.psn, 0);
	return RESP_DROP;
}

/* RC: a request with a PSN already executed. */
static enum resp_res resp_duplicate(struct wookie_qp *qp,
				    struct wookie_pkt *pkt)
{
	const struct wookie_hdrs *h = &pkt->hdrs;
	struct wookie_rd_atomic *res;

	wookie_qp_count(qp, WOOKIE_CNT_DUP_REQ);
	if (h->flags & (WOOKIE_OPF_SEND | WOOKIE_OPF_WRITE)) {
		/*
		 * Its ACK was lost or late: acknowledge everything done so
		 * far, where the requester asked.  Every run of packets it
		 * sends ends with one that asks, so one ACK per run is enough;
		 * one per packet doubled the work of a slow peer after a
		 * spurious timeout and made the next timeout likelier.
		 */
		qp->resp.ack_held++;
		if (h->bth.ack_req)
			resp_ack_later(qp, wookie_psn_add(qp->resp.psn,
							  WOOKIE_PSN_MASK));
		return RESP_DROP;
	}
	if (h->flags & WOOKIE_OPF_READ)
		return resp_duplicate_read(qp, pkt);
	if (h->flags & RESP_OPF_IBTA15)
		return resp_duplicate_ibta15(qp, pkt);
	/* An atomic is never executed twice: resend what it returned. */
	res = resp_find_res(qp, h->bth.psn, WOOKIE_RES_ATOMIC);
	if (res && res->first_psn == h->bth.psn)
		resp_send_single(qp, WOOKIE_OP_ATOMIC_ACKNOWLEDGE,
				 h->bth.psn, res->atomic_orig);
	return RESP_DROP;
}

/* UC: a PSN gap loses the message; the next FIRST or ONLY resyncs. */
static enum resp_res resp_check_psn_uc(struct wookie_qp *qp,
				       struct wookie_pkt *pkt, int diff)
{
	struct wookie_resp *resp = &qp->resp;
	const struct wookie_hdrs *h = &pkt->hdrs;

	if (!diff && !resp->uc_drop)
		return RESP_OK;
	resp_uc_abort(qp);
	if (h->flags & WOOKIE_OPF_FIRST) {
		resp->uc_drop = false;
		resp->psn = h->bth.psn;
		return RESP_OK;
	}
	resp->uc_drop = true;
	resp->psn = wookie_psn_add(h->bth.psn, 1);
	return RESP_DROP;
}

/* One NAK per gap: the requester resends from resp.psn. */
static void resp_seq_nak(struct wookie_qp *qp)
{
	if (qp->resp.nak_sent)
		return;
	qp->resp.nak_sent = true;
	qp->resp.nak_rnr = false;
	resp_nak(qp, WOOKIE_NAK_PSN_SEQ_ERROR, qp->resp.psn);
}

/*
 * A request beyond the gap NAKed already asks for an ACK: the
 * requester's tail-loss probe (its last packet sent again), or a burst's.
 * Silent, the responder would leave a lost NAK, or a lost retransmission
 * of the gap, to the ACK timeout (seconds with rdma_cm's defaults), since
 * the probe resends no more than that one packet.  So the gap is NAKed
 * again, as often as the requester asks (a requester that went back for
 * it ignores the repeats).  Not after an RNR NAK: a sequence NAK would
 * cut the RNR wait short.
 */
static void resp_seq_nak_again(struct wookie_qp *qp,
			       const struct wookie_pkt *pkt)
{
	if (qp->resp.nak_sent && !qp->resp.nak_rnr && pkt->hdrs.bth.ack_req)
		resp_nak(qp, WOOKIE_NAK_PSN_SEQ_ERROR, qp->resp.psn);
}

/* The waiting requests wait for the gap at resp.psn from now. */
static void resp_ooo_restart(struct wookie_qp *qp)
{
	qp->resp_ooo_psn = qp->resp.psn;
	qp->resp_ooo_since = ktime_get();
	wookie_qp_arm_timer(qp, ktime_add_us(qp->resp_ooo_since,
					     wookie_reorder_usec(qp)));
}

/*
 * An RC request came @diff PSNs ahead of the one expected.  A link that
 * reorders (netem, ECMP) delivers the missing one a moment later, but a
 * sequence NAK at once sends the requester back over everything after
 * it, and the packets of the first try still on their way then arrive
 * ahead of those sent again, each gap another NAK: on the sanitizer
 * kernel under netem's reordering the retransmissions buried the host
 * until a WRITE ran out of retries.  So up to WOOKIE_RESP_OOO_MAX
 * requests at most a send window ahead wait, in PSN order, for the gap
 * to fill; the gap is NAKed when WOOKIE_RESP_OOO_NAK wait, or after the
 * reorder time (wookie_resp_ooo_check()).  Not on the local path, which
 * never reorders and whose packets hold the peer's memory.
 */
static enum resp_res resp_ooo_wait(struct wookie_qp *qp,
				   struct wookie_pkt *pkt, int diff)
{
	struct list_head *pos;

	/* Beyond any send window: no requester asks for this. */
	if (qp->local || pkt->ref || pkt->in_buf ||
	    diff >= WOOKIE_WINDOW_MAX) {
		resp_seq_nak(qp);
		return RESP_DROP;
	}
	/* Sent again, new (the probe's packet may be lost too) or no room. */
	resp_seq_nak_again(qp, pkt);
	pos = wookie_pkt_list_pos(&qp->resp_ooo, pkt->hdrs.bth.psn);
	if (!pos)
		return RESP_DROP;	/* sent again: one waits */
	if (qp->resp_ooo_count >= WOOKIE_RESP_OOO_MAX) {
		resp_seq_nak(qp);
		return RESP_DROP;
	}
	if (!qp->resp_ooo_count)
		resp_ooo_restart(qp);
	list_add_tail(&pkt->list, pos);
	qp->resp_ooo_count++;
	if (qp->resp_ooo_count >= WOOKIE_RESP_OOO_NAK)
		resp_seq_nak(qp);
	return RESP_KEPT;
}

static enum resp_res resp_check_psn(struct wookie_qp *qp,
				    struct wookie_pkt *pkt)
{
	struct wookie_resp *resp = &qp->resp;
	u32 psn = pkt->hdrs.bth.psn;
	int diff = wookie_psn_diff(psn, resp->psn);

	if (qp->kind == WOOKIE_QP_KIND_UC)
		return resp_check_psn_uc(qp, pkt, diff);
	if (diff > 0) {
		wookie_qp_count(qp, WOOKIE_CNT_OUT_OF_SEQ_REQ);
		return resp_ooo_wait(qp, pkt, diff);
	}
	if (diff < 0)
		return resp_duplicate(qp, pkt);
	resp->nak_sent = false;
	resp->nak_rnr = false;
	return RESP_OK;
}

/* Inside a message only its MIDDLE and LAST packets may come. */
static enum resp_res resp_check_op_seq(struct wookie_qp *qp,
				       struct wookie_pkt *pkt)
{
	u32 flags = pkt->hdrs.flags;
	u32 in_msg = qp->resp.in_msg_flags;
	bool ok;

	if (in_msg)
		ok = (flags & RESP_OPF_CLASS) == in_msg &&
		     !(flags & WOOKIE_OPF_FIRST);
	else
		ok = (flags & WOOKIE_OPF_FIRST) ||
		     (flags & RESP_OPF_RD_ATOMIC);
	if (ok)
		return RESP_OK;
	/* UC: the LAST of the partial message was lost; start afresh. */
	if (qp->kind == WOOKIE_QP_KIND_UC && (flags & WOOKIE_OPF_FIRST)) {
		resp_uc_abort(qp);
		return RESP_OK;
	}
	return RESP_ERR_INVALID;
}

/* The QP must allow the remote operation. */
static enum resp_res resp_check_access(struct wookie_qp *qp,
				       struct wookie_pkt *pkt)
{
	int access = READ_ONCE(qp->qp_access_flags);
	u32 flags = pkt->hdrs.flags;
	int need = 0;

	if (qp->kind == WOOKIE_QP_KIND_XRC_TGT) {
		/* No such XRC SRQ in the target's domain: an access error. */
		if (!qp->resp.xrc_srq)
			return RESP_ERR_ACCESS;
		/* A message goes to one SRQ, named by each of its packets. */
		if (flags & WOOKIE_OPF_FIRST)
			qp->resp.msg_srqn = pkt->hdrs.xrc_srqn;
		else if (qp->resp.in_msg_flags &&
			 qp->resp.msg_srqn != pkt->hdrs.xrc_srqn)
			return RESP_ERR_INVALID;
	}

	if (flags & (WOOKIE_OPF_WRITE | WOOKIE_OPF_ATOMIC_WRITE))
		need = IB_ACCESS_REMOTE_WRITE;
	else if (flags & WOOKIE_OPF_READ)
		need = IB_ACCESS_REMOTE_READ;
	else if (flags & WOOKIE_OPF_ATOMIC)
		need = IB_ACCESS_REMOTE_ATOMIC;
	else if (flags & WOOKIE_OPF_FLUSH)
		/* As rxe: the QP too must allow each placement type asked. */
		need = resp_flush_access(pkt->hdrs.feth.type);
	return (access & need) == need ? RESP_OK : RESP_ERR_INVALID;
}

/* FIRST and MIDDLE packets are full, LAST and ONLY at most full. */
static enum resp_res resp_check_length(struct wookie_qp *qp,
				       struct wookie_pkt *pkt)
{
	const struct wookie_hdrs *h = &pkt->hdrs;
	bool ok;

	if (!(h->flags & (WOOKIE_OPF_SEND | WOOKIE_OPF_WRITE)))
		return RESP_OK;
	if (h->flags & WOOKIE_OPF_LAST)
		ok = h->payload_len <= qp->mtu_bytes;
	else
		ok = h->payload_len == qp->mtu_bytes;
	return ok ? RESP_OK : RESP_ERR_INVALID;
}

/* ---- RC and UC: execution ---- */

static enum resp_res resp_complete_send(struct wookie_qp *qp,
					struct wookie_pkt *pkt)
{
	const struct wookie_hdrs *h = &pkt->hdrs;
	struct wookie_resp *resp = &qp->resp;
	enum ib_wc_status status = IB_WC_SUCCESS;
	bool se = h->bth.solicited;
	struct wookie_cqe cqe;

	if (h->flags & WOOKIE_OPF_IETH)
		status = wookie_remote_invalidate(qp, resp_pd(qp),
						  h->ieth_rkey);
	resp_cqe_init(qp, &cqe, resp->rqe.wr_id, status);
	cqe.byte_len = resp->recv_bytes;
	if (h->flags & WOOKIE_OPF_IMMDT) {
		cqe.flags |= WOOKIE_CQE_WITH_IMM;
		cqe.ex = h->imm_be;
	}
	if (h->flags & WOOKIE_OPF_IETH) {
		cqe.flags |= WOOKIE_CQE_WITH_INV;
		cqe.ex = h->ieth_rkey;
	}
	if (se)
		cqe.flags |= WOOKIE_CQE_SOLICITED;
	resp->have_rqe = false;
	resp->msn = wookie_psn_add(resp->msn, 1);
	if (status != IB_WC_SUCCESS) {
		resp->err_cqe = cqe;
		resp->err_cqe_pending = true;
		return RESP_ERR_INV_RKEY;
	}
	if (resp_cq_post(qp, &cqe, se))
		return RESP_ERR_FATAL;
	return RESP_OK;
}

static enum resp_res resp_execute_send(struct wookie_qp *qp,
				       struct wookie_pkt *pkt)
{
	const struct wookie_hdrs *h = &pkt->hdrs;
	struct wookie_resp *resp = &qp->resp;
	enum resp_res res;

	if (h->flags & WOOKIE_OPF_FIRST) {
		res = resp_get_rqe(qp);
		if (res != RESP_OK)
			return res;
		resp->recv_bytes = 0;
	}
	res = resp_place_pkt(qp, resp->recv_bytes, pkt);
	if (res != RESP_OK)
		return res;
	resp->recv_bytes += h->payload_len;
	if (!(h->flags & WOOKIE_OPF_LAST)) {
		resp->in_msg_flags = WOOKIE_OPF_SEND;
		return RESP_OK;
	}
	resp->in_msg_flags = 0;
	return resp_complete_send(qp, pkt);
}

/* WRITE FIRST or ONLY: check the whole RETH range once. */
static enum resp_res resp_write_start(struct wookie_qp *qp,
				      const struct wookie_reth *reth)
{
	struct wookie_resp *resp = &qp->resp;
	struct wookie_mr *mr;

	if (reth->dma_len > WOOKIE_MAX_MSG_SIZE)
		return RESP_ERR_INVALID;
	resp->write_rkey = reth->rkey;
	resp->write_va = reth->va;
	resp->write_left = reth->dma_len;
	resp->write_total = reth->dma_len;
	/* A zero-length WRITE names no memory: no R_Key check. */
	if (!reth->dma_len)
		return RESP_OK;
	mr = wookie_mem_get(resp_wdev(qp), reth->rkey, resp_pd(qp),
			    qp->ibqp.qp_num, WOOKIE_MEM_REMOTE_WRITE, reth->va,
			    reth->dma_len);
	if (IS_ERR(mr))
		return RESP_ERR_ACCESS;
	wookie_mr_put(mr);
	return RESP_OK;
}

static enum resp_res resp_complete_write_imm(struct wookie_qp *qp,
					     struct wookie_pkt *pkt)
{
	const struct wookie_hdrs *h = &pkt->hdrs;
	bool se = h->bth.solicited;
	struct wookie_cqe cqe;

	resp_cqe_init(qp, &cqe, qp->resp.rqe.wr_id, IB_WC_SUCCESS);
	cqe.opcode = WOOKIE_CQE_RECV_RDMA_WITH_IMM;
	cqe.byte_len = qp->resp.write_total;
	cqe.flags = WOOKIE_CQE_WITH_IMM;
	cqe.ex = h->imm_be;
	if (se)
		cqe.flags |= WOOKIE_CQE_SOLICITED;
	qp->resp.have_rqe = false;
	if (resp_cq_post(qp, &cqe, se))
		return RESP_ERR_FATAL;
	return RESP_OK;
}

/* Fault in up to RESP_ODP_AHEAD from the miss on, before @end, in its MR. */
static void resp_odp_ahead(struct wookie_odp_miss *miss, u64 end)
{
	const struct wookie_mr *mr = miss->mr;

	end = min3(end, miss->va + RESP_ODP_AHEAD, mr->iova + mr->length);
	if (end > miss->va + miss->len)
		miss->len = end - miss->va;
}

static enum resp_res resp_execute_write(struct wookie_qp *qp,
					struct wookie_pkt *pkt)
{
	const struct wookie_hdrs *h = &pkt->hdrs;
	struct wookie_resp *resp = &qp->resp;
	u32 len = h->payload_len;
	struct wookie_odp_miss miss;
	struct wookie_src src;
	struct wookie_mr *mr;
	enum resp_res res;
	int err;

	/* Again after an ODP fault: the same, as nothing moved. */
	if (h->flags & WOOKIE_OPF_FIRST) {
		res = resp_write_start(qp, &h->reth);
		if (res != RESP_OK)
			return res;
	}
	/* The packets must add up to the RETH's length exactly. */
	if (len > resp->write_left ||
	    ((h->flags & WOOKIE_OPF_LAST) && len != resp->write_left))
		return RESP_ERR_INVALID;
	/* Before placing any data: an RNR NAK must leave nothing done. */
	if (h->flags & WOOKIE_OPF_IMMDT) {
		res = resp_get_rqe(qp);
		if (res != RESP_OK)
			return res;
	}
	if (len) {
		/* Each packet rechecks: the MR may be gone since FIRST. */
		mr = wookie_mem_get(resp_wdev(qp), resp->write_rkey,
				    resp_pd(qp), qp->ibqp.qp_num,
				    WOOKIE_MEM_REMOTE_WRITE, resp->write_va,
				    len);
		if (IS_ERR(mr))
			return RESP_ERR_ACCESS;
		wookie_pkt_src(pkt, &src);
		err = wookie_mr_place(mr, resp->write_va, &src, len, &miss);
		wookie_mr_put(mr);
		if (err) {
			resp_odp_ahead(&miss,
				       resp->write_va + resp->write_left);
			return resp_odp_miss(qp, &miss, RESP_ERR_ACCESS);
		}
		resp->write_va += len;
		resp->write_left -= len;
	}
	if (h->flags & WOOKIE_OPF_FIRST)
		wookie_qp_count(qp, WOOKIE_CNT_RDMA_RECV);
	if (!(h->flags & WOOKIE_OPF_LAST)) {
		resp->in_msg_flags = WOOKIE_OPF_WRITE;
		return RESP_OK;
	}
	resp->in_msg_flags = 0;
	resp->msn = wookie_psn_add(resp->msn, 1);
	if (h->flags & WOOKIE_OPF_IMMDT)
		return resp_complete_write_imm(qp, pkt);
	return RESP_OK;
}

static enum resp_res resp_execute_read(struct wookie_qp *qp,
				       struct wookie_pkt *pkt)
{
	const struct wookie_hdrs *h = &pkt->hdrs;
	struct wookie_resp *resp = &qp->resp;
	struct wookie_rd_atomic *res;
	enum resp_res ret;
	u32 npkts;

	ret = resp_read_check(qp, &h->reth);
	if (ret != RESP_OK)
		return ret;
	wookie_qp_count(qp, WOOKIE_CNT_RDMA_RECV);
	npkts = wookie_num_packets(h->reth.dma_len, qp->mtu_bytes);
	res = resp_new_res(qp);
	res->first_psn = h->bth.psn;
	res->last_psn = wookie_psn_add(h->bth.psn, npkts - 1);
	/* The responses use the PSNs up to last_psn. */
	resp->psn = wookie_psn_add(h->bth.psn, npkts);
	resp->msn = wookie_psn_add(resp->msn, 1);
	resp_read_start(qp, res, h->bth.psn, &h->reth);
	return RESP_OK;
}

static enum resp_res resp_execute_atomic(struct wookie_qp *qp,
					 struct wookie_pkt *pkt)
{
	const struct wookie_hdrs *h = &pkt->hdrs;
	const struct wookie_atomic_eth *ae = &h->atomic;
	struct wookie_dev *wdev = resp_wdev(qp);
	struct wookie_resp *resp = &qp->resp;
	struct wookie_atomic op = {};
	struct wookie_odp_miss miss;
	struct wookie_rd_atomic *res;
	struct wookie_mr *mr;
	u64 orig;
	int err;

	if (!resp->rd_atomic || ae->va & 7)
		return RESP_ERR_INVALID;
	mr = wookie_mem_get(wdev, ae->rkey, resp_pd(qp), qp->ibqp.qp_num,
			    WOOKIE_MEM_REMOTE_ATOMIC, ae->va, sizeof(u64));
	if (IS_ERR(mr))
		return RESP_ERR_ACCESS;
	if ((h->bth.opcode & ~WOOKIE_TRANSPORT_MASK) == WOOKIE_OP_CMP_SWAP) {
		op.kind = WOOKIE_ATOMIC_CMP_SWAP;
		op.compare_add = ae->compare;
		op.swap = ae->swap_add;
	} else {
		op.kind = WOOKIE_ATOMIC_FETCH_ADD;
		op.compare_add = ae->swap_add;
	}
	err = wookie_mr_atomic(wdev, mr, ae->va, &op, &orig, &miss);
	wookie_mr_put(mr);
	if (err == -EAGAIN)
		return resp_odp_miss(qp, &miss, RESP_ERR_ACCESS);
	if (err)
		return err == -EFAULT ? RESP_ERR_ACCESS : RESP_ERR_INVALID;

	res = resp_new_res(qp);
	res->kind = WOOKIE_RES_ATOMIC;
	res->xrc_srqn = h->xrc_srqn;
	res->first_psn = h->bth.psn;
	res->last_psn = h->bth.psn;
	res->rkey = ae->rkey;
	res->va = ae->va;
	res->length = sizeof(u64);
	res->atomic_orig = orig;
	resp->psn = wookie_psn_add(h->bth.psn, 1);
	resp->msn = wookie_psn_add(resp->msn, 1);
	resp_send_single(qp, WOOKIE_OP_ATOMIC_ACKNOWLEDGE, h->bth.psn, orig);
	return RESP_OK;
}

/* A new resource for the IBTA 1.5 request @h, which is done: answer it. */
static void resp_ibta15_done(struct wookie_qp *qp, const struct wookie_hdrs *h,
			     enum wookie_res_kind kind)
{
	struct wookie_resp *resp = &qp->resp;
	struct wookie_rd_atomic *res;

	res = resp_new_res(qp);
	res->kind = kind;
	res->first_psn = h->bth.psn;
	res->last_psn = h->bth.psn;
	resp->psn = wookie_psn_add(h->bth.psn, 1);
	resp->msn = wookie_psn_add(resp->msn, 1);
	resp_ibta15_answer(qp, res, h->bth.psn);
}

/*
 * ATOMIC WRITE (IBTA 1.5): 8 bytes to an aligned address at once, with
 * RDMA WRITE's rights; answered as a READ of nothing.
 */
static enum resp_res resp_execute_atomic_write(struct wookie_qp *qp,
					       struct wookie_pkt *pkt)
{
	const struct wookie_hdrs *h = &pkt->hdrs;
	struct wookie_atomic op = { .kind = WOOKIE_ATOMIC_STORE };
	struct wookie_odp_miss miss;
	struct wookie_mr *mr;
	u64 orig;
	int err;

	if (!IS_ENABLED(CONFIG_64BIT) || !qp->resp.rd_atomic || pkt->ref)
		return RESP_ERR_INVALID;
	/* As rxe: the rkey and the range first, then length and alignment. */
	mr = wookie_mem_get(resp_wdev(qp), h->reth.rkey, resp_pd(qp),
			    qp->ibqp.qp_num, WOOKIE_MEM_REMOTE_WRITE, h->reth.va,
			    h->reth.dma_len);
	if (IS_ERR(mr))
		return RESP_ERR_ACCESS;
	if (h->reth.dma_len != WOOKIE_ATOMIC_WRITE_BYTES ||
	    h->payload_len != WOOKIE_ATOMIC_WRITE_BYTES || (h->reth.va & 7)) {
		wookie_mr_put(mr);
		return RESP_ERR_INVALID;
	}
	/* As the requester put them: the bytes land as they travel. */
	memcpy(&op.swap, pkt->data + h->hdr_len, sizeof(op.swap));
	err = wookie_mr_atomic(resp_wdev(qp), mr, h->reth.va, &op, &orig,
			       &miss);
	wookie_mr_put(mr);
	if (err == -EAGAIN)
		return resp_odp_miss(qp, &miss, RESP_ERR_ACCESS);
	if (err)
		return err == -EFAULT ? RESP_ERR_ACCESS : RESP_ERR_INVALID;
	wookie_qp_count(qp, WOOKIE_CNT_RDMA_RECV);
	resp_ibta15_done(qp, h, WOOKIE_RES_ATOMIC_WRITE);
	return RESP_OK;
}

/*
 * The MR or window a FLUSH names must grant each placement type it asks
 * for, over its range or (selectivity level MR) anywhere.
 */
static enum resp_res resp_flush_check(struct wookie_qp *qp,
				      const struct wookie_hdrs *h)
{
	static const struct {
		u8 type;
		enum wookie_mem_use use;
	} rights[] = {
		{ WOOKIE_FLUSH_GLOBAL, WOOKIE_MEM_FLUSH_GLOBAL },
		{ WOOKIE_FLUSH_PERSISTENT, WOOKIE_MEM_FLUSH_PERSISTENT },
	};
	const struct wookie_reth *reth = &h->reth;
	struct wookie_mr *mr;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rights); i++) {
		if (!(h->feth.type & rights[i].type))
			continue;
		if (h->feth.level == WOOKIE_FLUSH_LEVEL_MR)
			mr = wookie_mem_get_whole(resp_wdev(qp), reth->rkey,
						  resp_pd(qp), qp->ibqp.qp_num,
						  rights[i].use);
		else
			mr = wookie_mem_get(resp_wdev(qp), reth->rkey,
					    resp_pd(qp), qp->ibqp.qp_num,
					    rights[i].use, reth->va,
					    reth->dma_len);
		if (IS_ERR(mr))
			return RESP_ERR_ACCESS;
		wookie_mr_put(mr);
	}
	return RESP_OK;
}

/*
 * FLUSH (IBTA 1.5).  Every request before it was placed by the CPU, in
 * PSN order, before it came up: to global visibility there is nothing
 * left to do but order those stores before the response.  Persistence
 * is never granted (no MR has IB_ACCESS_FLUSH_PERSISTENT): such a FLUSH
 * fails its access check.
 */
static enum resp_res resp_execute_flush(struct wookie_qp *qp,
					struct wookie_pkt *pkt)
{
	const struct wookie_hdrs *h = &pkt->hdrs;
	enum resp_res ret;

	if (!qp->resp.rd_atomic || !resp_flush_valid(h))
		return RESP_ERR_INVALID;
	ret = resp_flush_check(qp, h);
	if (ret != RESP_OK)
		return ret;
	/* The placements before it, ahead of the response's stores. */
	smp_mb();
	resp_ibta15_done(qp, h, WOOKIE_RES_FLUSH);
	return RESP_OK;
}

static enum resp_res resp_execute(struct wookie_qp *qp, struct wookie_pkt *pkt)
{
	u32 flags = pkt->hdrs.flags;

	if (flags & WOOKIE_OPF_SEND)
		return resp_execute_send(qp, pkt);
	if (flags & WOOKIE_OPF_WRITE)
		return resp_execute_write(qp, pkt);
	if (!wookie_kind_reliable(qp->kind))
		return RESP_DROP;
	if (flags & WOOKIE_OPF_READ)
		return resp_execute_read(qp, pkt);
	if (flags & WOOKIE_OPF_ATOMIC)
		return resp_execute_atomic(qp, pkt);
	if (flags & WOOKIE_OPF_ATOMIC_WRITE)
		return resp_execute_atomic_write(qp, pkt);
	if (flags & WOOKIE_OPF_FLUSH)
		return resp_execute_flush(qp, pkt);
	return RESP_DROP;
}

/* SEND and WRITE packets; the others were answered by execute. */
static void resp_acknowledge(struct wookie_qp *qp, struct wookie_pkt *pkt)
{
	const struct wookie_bth *bth = &pkt->hdrs.bth;

	if (!(pkt->hdrs.flags & (WOOKIE_OPF_SEND | WOOKIE_OPF_WRITE)))
		return;
	qp->resp.psn = wookie_psn_add(bth->psn, 1);
	if (!wookie_kind_reliable(qp->kind))
		return;
	qp->resp.ack_held++;
	if (bth->ack_req)
		resp_ack_later(qp, bth->psn);
	else
		wookie_qp_count(qp, WOOKIE_CNT_ACK_DEFERRED);
}

/* ---- Errors ---- */

/* The request at @psn is not done: the requester sends it again later. */
static void resp_rnr_nak(struct wookie_qp *qp, u32 psn)
{
	u8 timer = qp->min_rnr_timer & WOOKIE_AETH_VALUE_MASK;

	/*
	 * The rest of the burst is dropped silently until the retry of this
	 * PSN: a sequence NAK would cut the RNR wait short.
	 */
	qp->resp.nak_sent = true;
	qp->resp.nak_rnr = true;
	wookie_qp_count(qp, WOOKIE_CNT_SND_RNR);
	trace_wookie_rnr(&qp->ibqp, psn, true, timer);
	wookie_send_ack(qp, WOOKIE_AETH_RNR_NAK | timer, psn);
}

static void resp_fail_rc(struct wookie_qp *qp, struct wookie_pkt *pkt,
			 enum resp_res res)
{
	u32 psn = pkt->hdrs.bth.psn;

	switch (res) {
	case RESP_RNR:
		resp_rnr_nak(qp, psn);
		return;
	case RESP_ERR_INVALID:
		resp_nak(qp, WOOKIE_NAK_INVALID_REQUEST, psn);
		resp_complete_error(qp, IB_WC_REM_INV_REQ_ERR);
		wookie_qp_error(qp, IB_EVENT_QP_REQ_ERR);
		return;
	case RESP_ERR_ACCESS:
		wookie_qp_drop(qp, WOOKIE_CNT_RX_BAD_RKEY, &pkt->hdrs.bth);
		resp_nak(qp, WOOKIE_NAK_REMOTE_ACCESS_ERROR, psn);
		resp_complete_error(qp, IB_WC_REM_ACCESS_ERR);
		wookie_qp_error(qp, IB_EVENT_QP_ACCESS_ERR);
		return;
	/* The error completion tells the consumer: no event. */
	case RESP_ERR_LENGTH:
	case RESP_ERR_INV_RKEY:
		resp_nak(qp, WOOKIE_NAK_INVALID_REQUEST, psn);
		wookie_qp_error(qp, 0);
		return;
	case RESP_ERR_RECV:
		resp_nak(qp, WOOKIE_NAK_REMOTE_OP_ERROR, psn);
		wookie_qp_error(qp, 0);
		return;
	case RESP_ERR_FATAL:
		resp_nak(qp, WOOKIE_NAK_REMOTE_OP_ERROR, psn);
		wookie_qp_error(qp, IB_EVENT_QP_FATAL);
		return;
	default:
		return;
	}
}

/*
 * What a failed step means.  UC and UD requesters hear nothing: a UC
 * message is dropped up to the next FIRST, a UD one is just lost; only
 * an unusable receive WQE or a local fault ends the QP.
 */
static void resp_fail_state(struct wookie_qp *qp, struct wookie_pkt *pkt,
			    enum resp_res res)
{
	if (res == RESP_OK || res == RESP_DROP || res == RESP_KEPT)
		return;
	if (wookie_kind_reliable(qp->kind)) {
		resp_fail_rc(qp, pkt, res);
		return;
	}
	switch (res) {
	case RESP_ERR_RECV:
	case RESP_ERR_INV_RKEY:
		wookie_qp_error(qp, 0);
		return;
	case RESP_ERR_FATAL:
		wookie_qp_error(qp, IB_EVENT_QP_FATAL);
		return;
	default:
		if (res == RESP_ERR_ACCESS)
			wookie_qp_drop(qp, WOOKIE_CNT_RX_BAD_RKEY,
				       &pkt->hdrs.bth);
		if (qp->kind == WOOKIE_QP_KIND_UC) {
			resp_uc_abort(qp);
			qp->resp.uc_drop = true;
		}
		return;
	}
}

/* The state follows the failure first, then its CQE goes out. */
static void resp_fail(struct wookie_qp *qp, struct wookie_pkt *pkt,
		      enum resp_res res)
{
	resp_fail_state(qp, pkt, res);
	if (!qp->resp.err_cqe_pending)
		return;
	qp->resp.err_cqe_pending = false;
	if (resp_cq_post(qp, &qp->resp.err_cqe, false))
		wookie_qp_error(qp, IB_EVENT_QP_FATAL);
}

/* ---- UD ---- */

/*
 * The network header a UD receive buffer starts with: a GRH-sized area
 * holding the IPv6 header, or the IPv4 header in its last 20 bytes, as
 * the packet arrived (between QPs of one device, as the sender's address
 * vector would have written it).
 */
static void resp_build_grh(const struct wookie_pkt *pkt,
			   union rdma_network_hdr *grh)
{
	const struct wookie_hdrs *h = &pkt->hdrs;
	u32 udp_len = sizeof(struct udphdr) + h->hdr_len + h->payload_len +
		      h->bth.pad + RESP_ICRC_LEN;
	struct iphdr *iph = &grh->roce4grh;

	memset(grh, 0, sizeof(*grh));
	if (pkt->network_type == RDMA_NETWORK_IPV4) {
		iph->version = 4;
		iph->ihl = sizeof(*iph) / 4;
		iph->tos = pkt->traffic_class;
		iph->tot_len = htons(min_t(u32, sizeof(*iph) + udp_len,
					   U16_MAX));
		iph->frag_off = htons(IP_DF);
		iph->ttl = pkt->hop_limit;
		iph->protocol = IPPROTO_UDP;
		/* IPv4-mapped GIDs: the address is the last 4 bytes. */
		memcpy(&iph->saddr, &pkt->sgid.raw[12], sizeof(iph->saddr));
		memcpy(&iph->daddr, &pkt->dgid.raw[12], sizeof(iph->daddr));
		/* ib_core tells IPv4 from IPv6 by this checksum. */
		iph->check = ip_fast_csum(iph, iph->ihl);
		return;
	}
	grh->ibgrh.version_tclass_flow =
		cpu_to_be32(6U << 28 | (u32)pkt->traffic_class << 20 |
			    (pkt->flow_label & 0xfffff));
	grh->ibgrh.paylen = htons(min_t(u32, udp_len, U16_MAX));
	grh->ibgrh.next_hdr = IPPROTO_UDP;
	grh->ibgrh.hop_limit = pkt->hop_limit;
	grh->ibgrh.sgid = pkt->sgid;
	grh->ibgrh.dgid = pkt->dgid;
}

static enum resp_res resp_execute_ud(struct wookie_qp *qp,
				     struct wookie_pkt *pkt)
{
	const struct wookie_hdrs *h = &pkt->hdrs;
	struct wookie_resp *resp = &qp->resp;
	bool se = h->bth.solicited;
	union rdma_network_hdr grh;
	struct wookie_src grh_src;
	struct wookie_cqe cqe;
	enum resp_res res;

	/* UD messages are single packets. */
	if ((h->flags & (WOOKIE_OPF_SEND | RESP_OPF_ONLY)) !=
	    (WOOKIE_OPF_SEND | RESP_OPF_ONLY))
		return RESP_DROP;
	if (h->deth.qkey != READ_ONCE(qp->qkey)) {
		wookie_qp_drop(qp, WOOKIE_CNT_RX_BAD_QKEY, &h->bth);
		return RESP_DROP;
	}
	res = resp_get_rqe(qp);
	if (res != RESP_OK)
		return res;

	/* Too small: the WQE is used up with the error, as rxe does. */
	if (RESP_GRH_LEN + h->payload_len > resp->rqe.total_len)
		return resp_recv_error(qp, IB_WC_LOC_LEN_ERR);
	resp_build_grh(pkt, &grh);
	grh_src.buf = (const u8 *)&grh;
	grh_src.ref = NULL;
	res = resp_place(qp, 0, &grh_src, RESP_GRH_LEN);
	if (res == RESP_OK)
		res = resp_place_pkt(qp, RESP_GRH_LEN, pkt);
	if (res != RESP_OK)
		return res;

	resp_cqe_init(qp, &cqe, resp->rqe.wr_id, IB_WC_SUCCESS);
	cqe.byte_len = RESP_GRH_LEN + h->payload_len;
	cqe.flags = WOOKIE_CQE_GRH;
	cqe.src_qp = h->deth.src_qp;
	cqe.network_hdr_type = pkt->network_type == RDMA_NETWORK_IPV4 ?
			       WOOKIE_NETWORK_IPV4 : WOOKIE_NETWORK_IPV6;
	if (h->flags & WOOKIE_OPF_IMMDT) {
		cqe.flags |= WOOKIE_CQE_WITH_IMM;
		cqe.ex = h->imm_be;
	}
	if (se)
		cqe.flags |= WOOKIE_CQE_SOLICITED;
	resp->have_rqe = false;
	if (resp_cq_post(qp, &cqe, se))
		return RESP_ERR_FATAL;
	return RESP_OK;
}

/* ---- Entry ---- */

/* What the delivery code checked, and what the state machine relies on. */
static bool resp_accepts(struct wookie_qp *qp, const struct wookie_pkt *pkt)
{
	const struct wookie_hdrs *h = &pkt->hdrs;

	/* Delivery matched the transport to the QP and sorted out responses. */
	if (!resp_state_ok(qp) || !(h->flags & WOOKIE_OPF_REQUEST))
		return false;
	/* RC and UC packet sizes are checked against the path MTU. */
	return qp->kind == WOOKIE_QP_KIND_UD || qp->mtu_bytes;
}

/*
 * RESP_KEPT when it kept @pkt (to be taken up later), RESP_STALL when the
 * caller is to hold it for an ODP fault.
 */
static enum resp_res resp_rc_uc(struct wookie_qp *qp, struct wookie_pkt *pkt)
{
	enum resp_res res;

	/* Held while this request is handled, not longer: see wookie_srq. */
	if (qp->kind == WOOKIE_QP_KIND_XRC_TGT)
		qp->resp.xrc_srq = resp_xrc_srq_get(qp, pkt->hdrs.xrc_srqn);
	res = resp_check_psn(qp, pkt);
	if (res == RESP_OK)
		res = resp_check_op_seq(qp, pkt);
	if (res == RESP_OK)
		res = resp_check_access(qp, pkt);
	if (res == RESP_OK)
		res = resp_check_length(qp, pkt);
	if (res == RESP_OK)
		res = resp_execute(qp, pkt);
	if (res == RESP_OK)
		resp_acknowledge(qp, pkt);
	else if (res != RESP_STALL)
		resp_fail(qp, pkt, res);
	if (qp->resp.xrc_srq) {
		wookie_srq_put(qp->resp.xrc_srq);
		qp->resp.xrc_srq = NULL;
	}
	return res;
}

/*
 * With the engine stopped (reset, destroy, a new receive PSN or path), or
 * from it once the QP left the states that take requests.
 */
void wookie_resp_ooo_drop(struct wookie_qp *qp)
{
	wookie_pkt_free_list(&qp->resp_ooo);
	qp->resp_ooo_count = 0;
}

/*
 * Take up the requests that waited, as far as the gap before them has
 * filled; drop those the stream has passed.  Bounded: each turn takes
 * one off the list.
 */
static void resp_ooo_drain(struct wookie_qp *qp)
{
	struct wookie_pkt *pkt;
	int diff;

	while (!wookie_odp_waits(qp, WOOKIE_ODP_RESP) &&
	       (pkt = list_first_entry_or_null(&qp->resp_ooo,
					       struct wookie_pkt, list))) {
		diff = wookie_psn_diff(pkt->hdrs.bth.psn, qp->resp.psn);
		if (diff > 0)
			break;
		if (!diff && !wookie_responder_continue(qp))
			return;
		list_del(&pkt->list);
		qp->resp_ooo_count--;
		/* Never kept again: at the expected PSN, or a duplicate. */
		if (!diff && resp_state_ok(qp) &&
		    resp_rc_uc(qp, pkt) == RESP_STALL) {
			wookie_odp_hold(qp, WOOKIE_ODP_RESP, pkt);
			return;
		}
		wookie_pkt_free(pkt);
	}
}

/*
 * At the end of the engine's pass over the requests that came: those
 * that waited past the reorder time make the gap a loss, NAKed once.
 * The time counts from the last move of the expected PSN: a gap that
 * fills one packet at a time (the requester sending it again after a
 * NAK) is not a new loss at each.
 */
void wookie_resp_ooo_check(struct wookie_qp *qp)
{
	struct wookie_pkt *head;
	ktime_t deadline;

	if (!qp->resp_ooo_count)
		return;
	if (!resp_state_ok(qp)) {
		wookie_resp_ooo_drop(qp);
		return;
	}
	resp_ooo_drain(qp);
	if (!qp->resp_ooo_count)
		return;
	if (qp->resp.psn != qp->resp_ooo_psn)
		resp_ooo_restart(qp);
	/*
	 * No NAK while an earlier READ's responses go out (it would
	 * overtake them) or hold back the request expected, which waits
	 * here: the passes that send them come back to it.
	 */
	head = list_first_entry(&qp->resp_ooo, struct wookie_pkt, list);
	if (qp->resp.nak_sent || qp->resp.read_cur ||
	    wookie_psn_diff(head->hdrs.bth.psn, qp->resp.psn) <= 0)
		return;
	deadline = ktime_add_us(qp->resp_ooo_since, wookie_reorder_usec(qp));
	if (ktime_before(ktime_get(), deadline))
		wookie_qp_arm_timer(qp, deadline);
	else
		resp_seq_nak(qp);
}

/*
 * The responder waits for an ODP fault.  An RC requester counts the
 * silence as loss, and a fault can outlast its ACK timeouts times its
 * retries (a loaded host, swap, a slow file).  So a request held
 * RESP_ODP_HOLD_USEC is RNR NAKed and dropped, as a NIC does on a page
 * fault; the fault goes on, and requests that miss before it ends are
 * NAKed so too.  The requester's RNR retries (7: for ever) pace the
 * wait.  UC and UD requesters wait for nothing: their requests stay
 * held.  Returns true when it let the responder go.
 */
bool wookie_resp_odp_wait(struct wookie_qp *qp)
{
	struct wookie_odp_slot *slot = &qp->odp.slot[WOOKIE_ODP_RESP];
	struct wookie_pkt *pkt = slot->pkt;
	ktime_t deadline;

	if (!pkt || !wookie_kind_reliable(qp->kind) ||
	    !wookie_odp_pending(qp, WOOKIE_ODP_RESP))
		return false;
	/* PENDING: since the miss. */
	deadline = ktime_add_us(slot->since, RESP_ODP_HOLD_USEC);
	if (ktime_before(ktime_get(), deadline)) {
		wookie_qp_arm_timer(qp, deadline);
		return false;
	}
	pkt = wookie_odp_let_go(qp, WOOKIE_ODP_RESP);
	if (resp_state_ok(qp))
		resp_rnr_nak(qp, pkt->hdrs.bth.psn);
	wookie_pkt_free(pkt);
	return true;
}

/* An RC READ request for PSNs already executed: a retry. */
static bool resp_read_retry(struct wookie_qp *qp, const struct wookie_pkt *pkt)
{
	return wookie_kind_reliable(qp->kind) &&
	       (pkt->hdrs.flags & WOOKIE_OPF_READ) &&
	       (pkt->hdrs.flags & WOOKIE_OPF_REQUEST) &&
	       wookie_psn_diff(pkt->hdrs.bth.psn, qp->resp.psn) < 0;
}

void wookie_responder(struct wookie_qp *qp, struct wookie_pkt *pkt)
{
	enum resp_res res;

	if (!resp_accepts(qp, pkt))
		goto out;
	/*
	 * Responses of an earlier READ go out before anything this packet
	 * causes.  The work calls wookie_responder_continue() first; if
	 * they still cannot all go, drop the packet: the requester's
	 * sequence NAK or timeout brings it back.  A READ asked again is
	 * the exception: the requester lost responses and wants them from
	 * that PSN on, so the answer in progress is abandoned for it.
	 */
	if (!resp_read_retry(qp, pkt) && !wookie_responder_continue(qp))
		goto out;
	if (qp->kind == WOOKIE_QP_KIND_UD) {
		res = resp_execute_ud(qp, pkt);
		if (res != RESP_STALL)
			resp_fail(qp, pkt, res);
	} else {
		res = resp_rc_uc(qp, pkt);
		if (res == RESP_KEPT)
			return;
		if (res != RESP_STALL && qp->resp_ooo_count)
			resp_ooo_drain(qp);
	}
	if (res == RESP_STALL) {
		wookie_odp_hold(qp, WOOKIE_ODP_RESP, pkt);
		return;
	}
out:
	wookie_pkt_free(pkt);
}
