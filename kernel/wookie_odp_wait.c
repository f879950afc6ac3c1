// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The engine's waits for on-demand paging faults (wookie_odp.c has the
 * MRs and the faulting).
 *
 * The engine never faults (it may run in softirq, and its work queue is
 * one reclaim may wait for).  A side of a QP's engine (requester,
 * responder, completer) that finds a page missing does nothing of the
 * operation, hands the range to the QP's fault work on wdev->odp_wq, and
 * waits: its packets stay queued, the one in hand is held.  The work
 * faults the range in and kicks the QP; the side does the same again.  A
 * fault that fails makes that side's next miss of the range fail the
 * operation (wookie_odp_stall()).  An RC responder does not wait long: a
 * requester would count the silence as lost packets and run out of
 * retries.  It RNR NAKs the request it held and is let go, the fault
 * going on for the request's retry (wookie_resp_odp_wait()).
 */
#include "wookie.h"

void wookie_odp_miss_set(struct wookie_odp_miss *miss, struct wookie_mr *mr,
			 u64 va, u64 len, bool write)
{
	refcount_inc(&mr->refcount);
	miss->mr = mr;
	miss->va = va;
	miss->len = len;
	miss->write = write;
}

/*
 * How long a failed fault waits for the retry of the request RNR NAKed
 * while it ran: past the longest RNR timer (655 ms) and a round trip.
 */
#define WOOKIE_ODP_FAILED_KEEP_MS 1000

static void wookie_odp_work(struct work_struct *work)
{
	struct wookie_qp *qp = container_of(work, struct wookie_qp, odp.work);
	struct wookie_odp_slot *slot;
	struct wookie_mr *mr;
	int i, err;

	for (i = 0; i < WOOKIE_ODP_SIDES; i++) {
		slot = &qp->odp.slot[i];
		/* Pairs with the engine's release: the miss is filled. */
		if (smp_load_acquire(&slot->state) != WOOKIE_ODP_PENDING)
			continue;
		mr = slot->miss.mr;
#if IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING)
		err = wookie_odp_fault(mr, slot->miss.va, slot->miss.len,
				       slot->miss.write, true);
#else
		err = -EFAULT;
#endif
		slot->err = err;
		/* A failed slot keeps the MR: its miss is compared again. */
		if (!err)
			wookie_mr_put(mr);
		/* err before the state: the engine reads it after. */
		smp_store_release(&slot->state, err ? WOOKIE_ODP_FAILED :
						      WOOKIE_ODP_DONE);
	}
	wookie_qp_kick(qp);
}

/* Do two misses name the same pages? */
static bool wookie_odp_same(const struct wookie_odp_miss *a,
			    const struct wookie_odp_miss *b)
{
	return a->mr == b->mr && a->va < b->va + b->len &&
	       b->va < a->va + a->len;
}

/* Forget a failed fault: its operation was not tried again. */
static void wookie_odp_forget(struct wookie_odp_slot *slot)
{
	if (slot->state != WOOKIE_ODP_FAILED)
		return;
	wookie_mr_put(slot->miss.mr);
	slot->failed_seen = false;
	WRITE_ONCE(slot->state, WOOKIE_ODP_IDLE);
}

/*
 * A side of the engine missed *@miss (its MR reference is taken over):
 * 0 when the side now waits for the fault (the caller stops, with nothing
 * of the operation done), WOOKIE_ODP_BUSY when the side was let go and
 * its fault still runs (nothing done either), or the error the fault of
 * these pages failed with, in this pass (the caller fails the operation).
 */
int wookie_odp_stall(struct wookie_qp *qp, enum wookie_odp_side side,
		     struct wookie_odp_miss *miss)
{
	struct wookie_odp_slot *slot = &qp->odp.slot[side];
	int state, err;

	/*
	 * The side's caller checked wookie_odp_ready(): only a side let go
	 * misses while its fault goes on (the work may end it now: the
	 * acquire pairs with its release of err).  The miss waits its turn.
	 */
	state = smp_load_acquire(&slot->state);
	if (state == WOOKIE_ODP_PENDING) {
		wookie_mr_put(miss->mr);
		if (WARN_ON_ONCE(!slot->let_go))
			return -EIO;
		return WOOKIE_ODP_BUSY;
	}
	if (state == WOOKIE_ODP_FAILED && wookie_odp_same(&slot->miss, miss)) {
		err = slot->err;
		wookie_odp_forget(slot);
		wookie_mr_put(miss->mr);
		return err;
	}
	wookie_odp_forget(slot);
	wookie_qp_count(qp, WOOKIE_CNT_ODP_FAULTS);
	slot->miss = *miss;
	slot->let_go = false;
	slot->since = ktime_get();
	/* The miss before the state: the work reads it after. */
	smp_store_release(&slot->state, WOOKIE_ODP_PENDING);
	queue_work(to_wookie_dev(qp->ibqp.device)->odp_wq, &qp->odp.work);
	return 0;
}

/* Does @side wait for a fault? */
bool wookie_odp_pending(struct wookie_qp *qp, enum wookie_odp_side side)
{
	struct wookie_odp_slot *slot = &qp->odp.slot[side];

	/* Pairs with the work's release: its err and the MR it mapped. */
	return smp_load_acquire(&slot->state) == WOOKIE_ODP_PENDING &&
	       !slot->let_go;
}

/*
 * @side stops waiting for its fault, which goes on (to be used by a
 * retry): it runs on, and misses meanwhile get WOOKIE_ODP_BUSY.  Returns
 * the packet it held, now the caller's.
 */
struct wookie_pkt *wookie_odp_let_go(struct wookie_qp *qp,
				     enum wookie_odp_side side)
{
	qp->odp.slot[side].let_go = true;
	return wookie_odp_take(qp, side);
}

/* @side, let go, waits for its fault again: it has work only that can. */
void wookie_odp_rejoin(struct wookie_qp *qp, enum wookie_odp_side side)
{
	qp->odp.slot[side].let_go = false;
}

/*
 * Does @side wait: for a fault, or to take up the packet it held?  For
 * what the engine does besides the side's own work (timeouts, the wait
 * for gaps to fill), which must not act as if that packet were lost.
 */
bool wookie_odp_waits(struct wookie_qp *qp, enum wookie_odp_side side)
{
	return wookie_odp_pending(qp, side) || qp->odp.slot[side].pkt;
}

/*
 * May @side run, at the start of its part of a pass?  Not while it waits
 * for a fault, unless it was let go; once the requester's or completer's
 * fault is done, the ACK timeout counts from now (no ACK timeout runs
 * while either waits: wookie_qp_pass()).
 * A failed fault is kept for the side's miss of the same pages in this
 * pass, and forgotten at its end (wookie_odp_pass_end()).
 */
bool wookie_odp_ready(struct wookie_qp *qp, enum wookie_odp_side side)
{
	struct wookie_odp_slot *slot = &qp->odp.slot[side];

	/* Pairs with the work's release: its err and the MR it mapped. */
	switch (smp_load_acquire(&slot->state)) {
	case WOOKIE_ODP_PENDING:
		return slot->let_go;
	case WOOKIE_ODP_DONE:
		WRITE_ONCE(slot->state, WOOKIE_ODP_IDLE);
		if (side != WOOKIE_ODP_RESP)
			qp->comp.last_progress = ktime_get();
		return true;
	case WOOKIE_ODP_FAILED:
		/*
		 * The request a side let go of comes back after its RNR
		 * wait: the failure is kept for it that long (the pass's
		 * end arms the timer for it).
		 */
		if (slot->let_go && !slot->failed_seen)
			slot->since = ktime_get();
		slot->failed_seen = true;
		return true;
	default:
		return true;
	}
}

/*
 * A failure its side was ready to see in this pass is not kept longer,
 * but for a side let go: until its time is up, as the slot holds the MR
 * that dereg waits for.  The QP's one timer keeps only the earliest
 * deadline, so each pass that keeps the failure arms it again: a pass
 * run by an earlier deadline must not leave this one unarmed.
 */
void wookie_odp_pass_end(struct wookie_qp *qp)
{
	struct wookie_odp_slot *slot;
	ktime_t until;
	int i;

	for (i = 0; i < WOOKIE_ODP_SIDES; i++) {
		slot = &qp->odp.slot[i];
		if (!slot->failed_seen)
			continue;
		until = ktime_add_ms(slot->since, WOOKIE_ODP_FAILED_KEEP_MS);
		if (slot->let_go && ktime_before(ktime_get(), until)) {
			wookie_qp_arm_timer(qp, until);
			continue;
		}
		wookie_odp_forget(slot);
	}
}

/* The packet @side missed on, taken up again once the fault is done. */
void wookie_odp_hold(struct wookie_qp *qp, enum wookie_odp_side side,
		     struct wookie_pkt *pkt)
{
	WARN_ON_ONCE(qp->odp.slot[side].pkt);
	qp->odp.slot[side].pkt = pkt;
}

struct wookie_pkt *wookie_odp_take(struct wookie_qp *qp,
				   enum wookie_odp_side side)
{
	struct wookie_pkt *pkt = qp->odp.slot[side].pkt;

	qp->odp.slot[side].pkt = NULL;
	return pkt;
}

/* With the engine stopped: @side's held packet is of a stream gone. */
void wookie_odp_drop_held(struct wookie_qp *qp, enum wookie_odp_side side)
{
	struct wookie_pkt *pkt = wookie_odp_take(qp, side);

	if (pkt)
		wookie_pkt_free(pkt);
}

void wookie_odp_qp_init(struct wookie_qp *qp)
{
	INIT_WORK(&qp->odp.work, wookie_odp_work);
}

/*
 * With the engine held (wookie_qp_quiesce()): no fault work runs after
 * this.  A fault it did not get to is forgotten; the side misses again
 * when the engine resumes.  Held packets stay.
 */
void wookie_odp_qp_stop(struct wookie_qp *qp)
{
	struct wookie_odp_slot *slot;
	int i;

	cancel_work_sync(&qp->odp.work);
	for (i = 0; i < WOOKIE_ODP_SIDES; i++) {
		slot = &qp->odp.slot[i];
		if (slot->state == WOOKIE_ODP_PENDING ||
		    slot->state == WOOKIE_ODP_FAILED)
			wookie_mr_put(slot->miss.mr);
		slot->failed_seen = false;
		slot->let_go = false;
		WRITE_ONCE(slot->state, WOOKIE_ODP_IDLE);
	}
}

/* Stopped, and back to RESET (or destroyed): no packet is held either. */
void wookie_odp_qp_reset(struct wookie_qp *qp)
{
	int i;

	for (i = 0; i < WOOKIE_ODP_SIDES; i++)
		wookie_odp_drop_held(qp, i);
}
