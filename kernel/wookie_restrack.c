// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Driver details for rdma's resource tracking: `rdma resource show qp -dd`
 * prints the engine's state of each QP, which is what one needs to see
 * when traffic stops (which PSN each side waits for, whether the timer is
 * armed, what the rings hold); `... cq -dd` what a CQ holds and whether
 * it is armed; `... mr -dd` what kind of memory an MR is and its state.
 */
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "wookie.h"

struct wookie_res_u32 {
	const char *name;
	u32 value;
};

struct wookie_res_str {
	const char *name;
	const char *value;
};

/* The driver's nest of a resource's entry: @ns strings, then @n numbers. */
static int wookie_res_put(struct sk_buff *msg,
			  const struct wookie_res_u32 *vals, unsigned int n,
			  const struct wookie_res_str *strs, unsigned int ns)
{
	struct nlattr *table;
	unsigned int i;

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	for (i = 0; i < ns; i++)
		if (rdma_nl_put_driver_string(msg, strs[i].name, strs[i].value))
			goto cancel;
	for (i = 0; i < n; i++)
		if (rdma_nl_put_driver_u32(msg, vals[i].name, vals[i].value))
			goto cancel;
	nla_nest_end(msg, table);
	return 0;

cancel:
	nla_nest_cancel(msg, table);
	return -EMSGSIZE;
}

/* A ring's index as user space (producer) or the kernel left it. */
static u32 wookie_res_index(const struct wookie_ring_hdr *hdr, bool producer)
{
	if (!hdr)
		return 0;
	return producer ? READ_ONCE(hdr->producer) : READ_ONCE(hdr->consumer);
}

/* Microseconds, clamped to what a u32 attribute holds (0 if negative). */
static u32 wookie_res_us(ktime_t t)
{
	s64 us = ktime_to_us(t);

	return us < 0 ? 0 : min_t(s64, us, U32_MAX);
}

/* The state of the oldest WQE not completed, or U32_MAX if none. */
static u32 wookie_res_oldest_state(struct wookie_qp *qp)
{
	u32 index = READ_ONCE(qp->comp.index);

	if (!qp->swqe || index == READ_ONCE(qp->req.fetch))
		return U32_MAX;
	return READ_ONCE(wookie_swqe(qp, index)->state);
}

/*
 * A snapshot without the engine's exclusion: the engine may run on another
 * CPU meanwhile, and a diagnostic must not wait for it.  The caller holds
 * modify_lock, so the rings are there.
 */
static int wookie_res_put_qp(struct sk_buff *msg, struct wookie_qp *qp)
{
	const struct wookie_res_u32 vals[] = {
		{ "sq_prod", wookie_res_index(qp->sq.hdr, true) },
		{ "sq_cons", wookie_res_index(qp->sq.hdr, false) },
		{ "req_fetch", READ_ONCE(qp->req.fetch) },
		{ "req_index", READ_ONCE(qp->req.index) },
		{ "req_psn", READ_ONCE(qp->req.psn) },
		{ "req_psn_end", READ_ONCE(qp->req.psn_end) },
		{ "req_rd_atomic", READ_ONCE(qp->req.rd_atomic_inflight) },
		{ "req_window", READ_ONCE(qp->req.window.size) },
		{ "req_rnr_wait", READ_ONCE(qp->req.rnr_wait) },
		{ "req_srtt_us",
		  wookie_res_us(ns_to_ktime(READ_ONCE(qp->req.rtt.srtt_ns))) },
		{ "comp_index", READ_ONCE(qp->comp.index) },
		{ "comp_psn", READ_ONCE(qp->comp.psn) },
		{ "comp_retry_left", READ_ONCE(qp->comp.retry_left) },
		{ "comp_read_gap", READ_ONCE(qp->comp.read_gap) },
		{ "comp_nak_rewound", READ_ONCE(qp->comp.nak_rewound) },
		{ "comp_holds_left", READ_ONCE(qp->comp.holds_left) },
		{ "comp_probed", READ_ONCE(qp->comp.probed) },
		{ "resp_psn", READ_ONCE(qp->resp.psn) },
		{ "resp_msn", READ_ONCE(qp->resp.msn) },
		{ "resp_in_msg", READ_ONCE(qp->resp.in_msg_flags) },
		{ "resp_have_rqe", READ_ONCE(qp->resp.have_rqe) },
		{ "resp_nak_sent", READ_ONCE(qp->resp.nak_sent) },
		{ "rq_prod", wookie_res_index(qp->rq.hdr, true) },
		{ "rq_cons", READ_ONCE(qp->rq_consumer) },
		{ "inbound", READ_ONCE(qp->num_inbound) },
		{ "read_ooo", READ_ONCE(qp->read_ooo_count) },
		{ "resp_ooo", READ_ONCE(qp->resp_ooo_count) },
		{ "run_flags", (u32)READ_ONCE(qp->run_flags) },
		{ "timer_armed", hrtimer_active(&qp->timer) },
		{ "timer_left_us", wookie_res_us(hrtimer_get_remaining(&qp->timer)) },
		{ "progress_age_us",
		  wookie_res_us(ktime_sub(ktime_get(),
					  READ_ONCE(qp->comp.last_progress))) },
		{ "oldest_state", wookie_res_oldest_state(qp) },
	};

	return wookie_res_put(msg, vals, ARRAY_SIZE(vals), NULL, 0);
}

int wookie_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct wookie_qp *qp = to_wookie_qp(ibqp);
	int err = 0;

	/*
	 * ib_core calls destroy_qp before it takes the QP out of resource
	 * tracking: a QP being destroyed shows no details, as its rings may
	 * be freed already.
	 */
	mutex_lock(&qp->modify_lock);
	if (!qp->destroying)
		err = wookie_res_put_qp(msg, qp);
	mutex_unlock(&qp->modify_lock);
	return err;
}

/*
 * ib_core takes a CQ out of resource tracking, waiting for dumps, before
 * destroy_cq; the lock keeps resize from swapping the ring meanwhile.
 */
int wookie_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct wookie_cq *cq = to_wookie_cq(ibcq);
	struct wookie_res_u32 vals[] = {
		{ "cq_prod" }, { "cq_cons" }, { "cq_slots" }, { "cq_arm" },
		{ "cq_overflow" },
	};
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	vals[0].value = cq->producer;
	vals[1].value = cq->user ? wookie_res_index(cq->ring.hdr, false) :
				   cq->consumer;
	vals[2].value = cq->ring.num_entries;
	/* User CQs: the arm word the provider writes; else IB_CQ_* bits. */
	vals[3].value = cq->user ? READ_ONCE(cq->ring.hdr->arm) : cq->notify;
	vals[4].value = cq->error;
	spin_unlock_irqrestore(&cq->lock, flags);
	return wookie_res_put(msg, vals, ARRAY_SIZE(vals), NULL, 0);
}

static const char *const wookie_mr_kind_names[] = {
	[WOOKIE_MR_USER] = "user",
	[WOOKIE_MR_DMA] = "dma",
	[WOOKIE_MR_FAST] = "fast",
	[WOOKIE_MR_DM] = "dm",
	[WOOKIE_MR_DMABUF] = "dmabuf",
	[WOOKIE_MR_ODP] = "odp",
};

static const char *const wookie_key_state_names[] = {
	[WOOKIE_KEY_INVALID] = "invalid",
	[WOOKIE_KEY_FREE] = "free",
	[WOOKIE_KEY_VALID] = "valid",
};

/* ib_core takes an MR out of resource tracking before dereg_mr. */
int wookie_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct wookie_mr *mr = to_wookie_mr(ibmr);
	struct wookie_res_u32 vals[] = {
		{ "pages" }, { "page_shift" }, { "max_pages" }, { "windows" },
	};
	struct wookie_res_str strs[] = {
		{ "kind", wookie_mr_kind_names[mr->kind] }, { "state" },
	};
	unsigned long flags;

	spin_lock_irqsave(&mr->lock, flags);
	strs[1].value = wookie_key_state_names[mr->state];
	vals[0].value = mr->num_pages;
	vals[1].value = mr->page_shift;
	vals[2].value = mr->max_pages;
	spin_unlock_irqrestore(&mr->lock, flags);
	vals[3].value = atomic_read(&mr->num_mw);
	return wookie_res_put(msg, vals, ARRAY_SIZE(vals), strs,
			      ARRAY_SIZE(strs));
}
