// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Engine scheduling: who runs a QP's engine pass (completer, responder,
 * requester), when and where.  A doorbell's system call runs it at once;
 * so does the engine of a QP that delivers a packet to another QP of the
 * device, through the runner of its context (below), and the softirq
 * that received a packet from the wire; timers and work left over go to
 * the QP's work item.
 */
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>

#include "wookie.h"

static unsigned int sq_poll_idle_us;
module_param(sq_poll_idle_us, uint, 0644);
MODULE_PARM_DESC(sq_poll_idle_us,
		 "Microseconds the SQ poller watches a user SQ after its last post before the provider must ring again (default 0: no poller, every idle SQ needs a doorbell)");

/*
 * One context at a time holds WOOKIE_QP_RUNNING; whoever finds it taken
 * sets WOOKIE_QP_AGAIN, which the holder checks before letting go, so no
 * request to run is lost.
 */
void wookie_qp_kick(struct wookie_qp *qp)
{
	set_bit(WOOKIE_QP_AGAIN, &qp->run_flags);
	/* AGAIN before RUNNING is read; the runner orders them the other way. */
	smp_mb__after_atomic();
	if (!test_bit(WOOKIE_QP_RUNNING, &qp->run_flags))
		queue_work(to_wookie_dev(qp->ibqp.device)->wq, &qp->work);
}

/*
 * Keep the engine off @qp for a short look at its state from process
 * context: RUNNING held as a pass holds it, waiting out the pass that
 * holds it now.  Kicks meanwhile only set AGAIN: unhold runs them.
 */
void wookie_qp_hold(struct wookie_qp *qp)
{
	might_sleep();
	while (test_and_set_bit_lock(WOOKIE_QP_RUNNING, &qp->run_flags))
		usleep_range(10, 100);
}

void wookie_qp_unhold(struct wookie_qp *qp)
{
	clear_bit_unlock(WOOKIE_QP_RUNNING, &qp->run_flags);
	/* RUNNING cleared before AGAIN is read: see wookie_qp_kick(). */
	smp_mb__after_atomic();
	if (test_bit(WOOKIE_QP_AGAIN, &qp->run_flags))
		queue_work(to_wookie_dev(qp->ibqp.device)->wq, &qp->work);
}

static struct wookie_pkt *wookie_qp_dequeue(struct wookie_qp *qp,
					    struct list_head *list)
{
	struct wookie_pkt *pkt;
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	pkt = list_first_entry_or_null(list, struct wookie_pkt, list);
	if (pkt) {
		list_del(&pkt->list);
		qp->num_inbound--;
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	return pkt;
}

/* Is a response that arrived before @t still queued for the completer? */
bool wookie_qp_resp_queued_before(struct wookie_qp *qp, ktime_t t)
{
	struct wookie_pkt *pkt;
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&qp->lock, flags);
	pkt = list_first_entry_or_null(&qp->resp_pkts, struct wookie_pkt,
				       list);
	ret = pkt && ktime_before(pkt->arrived, t);
	spin_unlock_irqrestore(&qp->lock, flags);
	return ret;
}

/*
 * A packet's share of a pass's budget: one, and one more per page of
 * payload, so that a pass copies about as much whatever the packets'
 * size (the local path's are up to 64 KiB).
 */
static int wookie_pkt_cost(const struct wookie_pkt *pkt)
{
	return 1 + (pkt->hdrs.payload_len >> PAGE_SHIFT);
}

/*
 * The NEED_WAKEUP handshake of a user SQ (as io_uring's SQPOLL): the
 * provider publishes its producer index, fences, and makes the doorbell
 * call only if the SQ's WOOKIE_RING_NEED_WAKEUP is set.  While the poller
 * watches the SQ, the flag is clear and posts make no system call.
 * Otherwise the flag is set; the pass that sets it reads the producer
 * once more: a WQE published before the flag was visible is seen here,
 * one after it rings.  Returns true when such a WQE needs another pass,
 * which fetches it: only when this pass's requester stopped because the
 * SQ was empty.  Held by the send window, credits or a fence, it runs
 * again when the responses it waits for come (an RNR wait: when its timer
 * fires); asking for passes meanwhile would spin.
 *
 * Not cleared while WQEs are merely outstanding, though their ACKs are
 * sure to run a pass that would fetch new posts: a post would then wait
 * for a response (a round trip, or an ACK timeout after a loss) instead
 * of going out at once.  The flag is in memory user space writes too;
 * the engine only ever trusts sq_watched.
 */
static bool wookie_sq_watch(struct wookie_qp *qp)
{
	enum ib_qp_state state = READ_ONCE(qp->state);

	if (!qp->user)
		return false;
	if ((state == IB_QPS_RTS || state == IB_QPS_SQD) &&
	    READ_ONCE(qp->sq_polled)) {
		if (!qp->sq_watched) {
			qp->sq_watched = true;
			wookie_ring_set_flags(&qp->sq, 0,
					      WOOKIE_RING_NEED_WAKEUP);
		}
		return false;
	}
	/*
	 * Set all along: a post after this pass's requester read the
	 * producer saw the flag and rang.  Only the pass that sets it needs
	 * to look again, and only if its requester drained the SQ: a held
	 * one reads the producer again in the pass that frees it.
	 */
	if (!qp->sq_watched)
		return false;
	qp->sq_watched = false;
	wookie_ring_set_flags(&qp->sq, WOOKIE_RING_NEED_WAKEUP, 0);
	if (state != IB_QPS_RTS || !qp->req.drained)
		return false;
	/* The flag is visible before the producer is read (the provider's fence). */
	smp_mb();
	return READ_ONCE(qp->sq.hdr->producer) != qp->req.fetch;
}

/*
 * One pass of the engine on a QP: responses first (they free SQ slots and
 * the send window), then requests from peers, then new packets from the
 * SQ.  Only the holder of WOOKIE_QP_RUNNING runs it, so the engine state
 * needs no lock.  A part waiting for an ODP fault is left alone (its
 * packets stay queued) until the fault work kicks the QP; it takes up the
 * packet it held first.  Returns true when work is left for another pass.
 */
static bool wookie_qp_pass(struct wookie_qp *qp)
{
	int budget = wookie_qp_budget(qp);
	struct wookie_pkt *pkt;
	bool more = false;

	if (READ_ONCE(qp->state) == IB_QPS_RESET)
		return false;

	if (wookie_odp_ready(qp, WOOKIE_ODP_COMP)) {
		pkt = wookie_odp_take(qp, WOOKIE_ODP_COMP);
		if (pkt) {
			budget -= wookie_pkt_cost(pkt);
			wookie_completer(qp, pkt);
		}
		while (budget > 0 && !wookie_odp_waits(qp, WOOKIE_ODP_COMP) &&
		       (pkt = wookie_qp_dequeue(qp, &qp->resp_pkts))) {
			budget -= wookie_pkt_cost(pkt);
			wookie_completer(qp, pkt);
		}
		if (budget <= 0)
			more = true;
		/*
		 * A response held for a fault is not a lost one; nor is the
		 * ACK of packets sent before the requester's own fault, which
		 * came before it could ask for one (it asks every 16).
		 */
		if (!wookie_odp_waits(qp, WOOKIE_ODP_COMP) &&
		    wookie_odp_ready(qp, WOOKIE_ODP_REQ))
			wookie_comp_check_timeout(qp);
	}
	wookie_complete_done(qp);

	budget = wookie_qp_budget(qp);
	while (budget > 0 && wookie_odp_ready(qp, WOOKIE_ODP_RESP)) {
		if (!wookie_responder_continue(qp)) {
			if (!wookie_odp_waits(qp, WOOKIE_ODP_RESP))
				more = true;
			break;
		}
		pkt = wookie_odp_take(qp, WOOKIE_ODP_RESP);
		if (!pkt)
			pkt = wookie_qp_dequeue(qp, &qp->req_pkts);
		if (!pkt)
			break;
		budget -= wookie_pkt_cost(pkt);
		wookie_responder(qp, pkt);
	}
	/* After the requests that came: one may fill the gap they wait on. */
	if (budget > 0 && !wookie_odp_waits(qp, WOOKIE_ODP_RESP))
		wookie_resp_ooo_check(qp);
	/* Held too long for a fault, a request is RNR NAKed: on to the next. */
	if (wookie_resp_odp_wait(qp))
		more = true;
	wookie_resp_flush_ack(qp);
	if (budget <= 0)
		more = true;

	if (!wookie_requester(qp))
		more = true;
	wookie_odp_pass_end(qp);
	wookie_complete_done(qp);
	if (!more && wookie_sq_watch(qp))
		more = true;
	return more;
}

/*
 * A runner: the context that runs engines (a doorbell's system call, the
 * work item) also runs the QPs they deliver to, one after the other, so a
 * round trip between QPs of the device completes in the system call that
 * started it.  Nesting them instead would bound the depth, and past it
 * hand the rest to a kworker, which on a host busy with processes polling
 * their CQs waits for the scheduler: milliseconds per round trip.  The
 * queue and the passes are bounded; what does not fit goes to the work.
 */
static void wookie_runner_add(struct wookie_runner *r, struct wookie_qp *qp)
{
	set_bit(WOOKIE_QP_AGAIN, &qp->run_flags);
	/* As in wookie_qp_kick(): a holder of RUNNING will see AGAIN. */
	smp_mb__after_atomic();
	if (test_bit(WOOKIE_QP_RUNNING, &qp->run_flags))
		return;
	/* Queued already, here or in another runner: that run sees AGAIN. */
	if (test_and_set_bit(WOOKIE_QP_QUEUED, &qp->run_flags))
		return;
	/*
	 * No reference left: the QP's own work item ran this pass while
	 * destroy waits for it, and quiesces it next.
	 */
	if (!r->passes_left || r->tail - r->head >= WOOKIE_RUNNER_QPS ||
	    !refcount_inc_not_zero(&qp->refcount)) {
		clear_bit(WOOKIE_QP_QUEUED, &qp->run_flags);
		wookie_qp_kick(qp);
		return;
	}
	r->qps[r->tail++ % WOOKIE_RUNNER_QPS] = qp;
}

static bool wookie_runner_may_run(const struct wookie_runner *r,
				  const struct wookie_qp *qp)
{
	enum ib_qp_state state = READ_ONCE(qp->state);

	return gfpflags_allow_blocking(r->gfp) ||
	       (state != IB_QPS_ERR && state != IB_QPS_SQE);
}

/*
 * Run passes while asked to; when a pass leaves work behind, run it again
 * later from the runner, or from the work item once the runner's passes
 * are spent, so that no caller runs for long.  A softirq leaves a QP in
 * the error states to the work item too: flushing a ring is up to a
 * ring's worth of completions.
 */
static void wookie_qp_process(struct wookie_qp *qp, struct wookie_runner *r)
{
	bool more;

	for (;;) {
		if (!r->passes_left || !wookie_runner_may_run(r, qp)) {
			/* Whoever runs it now runs it again, or the work. */
			wookie_qp_kick(qp);
			return;
		}
		if (test_and_set_bit_lock(WOOKIE_QP_RUNNING, &qp->run_flags))
			return;
		qp->runner = r;
		more = false;
		while (!more && r->passes_left && wookie_runner_may_run(r, qp) &&
		       test_and_clear_bit(WOOKIE_QP_AGAIN, &qp->run_flags)) {
			r->passes_left--;
			more = wookie_qp_pass(qp);
			if (time_after(jiffies, r->end))
				r->passes_left = 0;
		}
		qp->runner = NULL;
		clear_bit_unlock(WOOKIE_QP_RUNNING, &qp->run_flags);
		if (more) {
			wookie_runner_add(r, qp);
			return;
		}
		/* RUNNING cleared before AGAIN is read: see wookie_qp_kick(). */
		smp_mb__after_atomic();
		if (!test_bit(WOOKIE_QP_AGAIN, &qp->run_flags))
			return;
	}
}

/* Run @qp, then every QP queued meanwhile, in this context. */
static void wookie_runner_run(struct wookie_qp *qp, unsigned int passes,
			      int budget, gfp_t gfp)
{
	struct wookie_runner r = {
		.passes_left = passes,
		.end = jiffies + msecs_to_jiffies(WOOKIE_RUNNER_MS),
		.budget = budget,
		.gfp = gfp,
	};
	struct wookie_qp *next;

	wookie_qp_process(qp, &r);
	while (r.head != r.tail) {
		next = r.qps[r.head++ % WOOKIE_RUNNER_QPS];
		clear_bit(WOOKIE_QP_QUEUED, &next->run_flags);
		/* QUEUED cleared before AGAIN is read: see wookie_runner_add(). */
		smp_mb__after_atomic();
		wookie_qp_process(next, &r);
		wookie_qp_put(next);
	}
	/*
	 * Not between QPs: one queued here waits for this context, which
	 * must not give up the CPU (passes and time bound it instead).
	 */
	if (gfpflags_allow_blocking(gfp))
		cond_resched();
}

/* The engine of @from delivered a packet to @qp: run it from here too. */
void wookie_qp_schedule(struct wookie_qp *from, struct wookie_qp *qp)
{
	if (from->runner)
		wookie_runner_add(from->runner, qp);
	else
		wookie_qp_kick(qp);
}

/* A doorbell's system call: run the engine now, in this context. */
void wookie_qp_run(struct wookie_qp *qp)
{
	might_sleep();
	/* What the caller stored (sq_polled) is seen by the pass it asks for. */
	smp_mb__before_atomic();
	set_bit(WOOKIE_QP_AGAIN, &qp->run_flags);
	/* AGAIN before RUNNING is read: see wookie_qp_kick(). */
	smp_mb__after_atomic();
	wookie_runner_run(qp, WOOKIE_RUNNER_PASSES, WOOKIE_WORK_BUDGET,
			  GFP_KERNEL);
}

/*
 * A packet from the wire was queued on @qp, in the softirq that received
 * it: run the engine here rather than wake a kworker, which on a host
 * whose CPUs are busy with processes polling their CQs waits for the
 * scheduler.  Between two devices of one host, that softirq runs in the
 * sender's own system call (the veth's receive), so a round trip needs no
 * other context.  A QP run elsewhere now is only told to run again; a
 * run that exceeds the softirq's few passes goes on from the work item.
 */
void wookie_qp_run_rx(struct wookie_qp *qp)
{
	set_bit(WOOKIE_QP_AGAIN, &qp->run_flags);
	/* AGAIN before RUNNING is read: see wookie_qp_kick(). */
	smp_mb__after_atomic();
	wookie_runner_run(qp, WOOKIE_RUNNER_RX_PASSES, WOOKIE_RX_BUDGET,
			  GFP_ATOMIC);
}

/*
 * The SQ poller: with sq_poll_idle_us set, a device's kernel thread
 * watches the user SQs that were rung lately, runs the engine of one
 * whose producer index moved, and lets an SQ go once it saw no post for
 * that long.  A watched SQ's NEED_WAKEUP is clear (wookie_sq_watch()), so
 * posts make no system call; the QP's engine sets it again in the pass
 * the poller runs when it lets the SQ go.  The thread sleeps while it
 * watches nothing: an idle device uses no CPU.  Only SQs that were rung
 * are on the list; nothing scans every ring.
 */
#define WOOKIE_POLLER_BATCH 32

void wookie_qp_ring_sq(struct wookie_qp *qp)
{
	struct wookie_dev *wdev = to_wookie_dev(qp->ibqp.device);
	unsigned int idle_us = READ_ONCE(sq_poll_idle_us);
	bool added = false;

	/* uverbs runs no post_send during destroy: no unpoll races this. */
	if (idle_us && !READ_ONCE(qp->sq_polled)) {
		spin_lock(&wdev->poll_lock);
		if (!qp->sq_polled) {
			qp->sq_polled = true;
			qp->poll_seen = READ_ONCE(qp->sq.hdr->producer);
			qp->poll_active = ktime_get();
			refcount_inc(&qp->refcount);
			list_add_tail(&qp->poll_node, &wdev->poll_list);
			wdev->poll_count++;
			added = true;
		}
		spin_unlock(&wdev->poll_lock);
		if (added)
			wake_up_process(wdev->poller);
	}
	wookie_qp_run(qp);
}

/* The QP is being destroyed: off the list, its reference dropped. */
void wookie_qp_unpoll(struct wookie_qp *qp)
{
	struct wookie_dev *wdev = to_wookie_dev(qp->ibqp.device);
	bool was;

	spin_lock(&wdev->poll_lock);
	was = qp->sq_polled;
	if (was) {
		list_del_init(&qp->poll_node);
		wdev->poll_count--;
		WRITE_ONCE(qp->sq_polled, false);
	}
	spin_unlock(&wdev->poll_lock);
	if (was)
		wookie_qp_put(qp);
}

/*
 * How long a watched SQ may see no post before the poller lets it go.
 * Longer while WQEs are outstanding: a streaming poster waits for their
 * completions, which take longer than the idle time over a link, and
 * posts again as soon as they come; an SQ let go then makes it ring.
 * Still bounded: a peer that never answers does not keep the poller on
 * an SQ for good.  The engine's indexes are read racily: a hint.
 */
#define WOOKIE_POLL_BUSY_FACTOR 64

static u64 wookie_poll_idle_ns(const struct wookie_qp *qp, u64 idle_ns)
{
	if (READ_ONCE(qp->req.fetch) != READ_ONCE(qp->comp.index))
		return idle_ns * WOOKIE_POLL_BUSY_FACTOR;
	return idle_ns;
}

/*
 * One look at up to WOOKIE_POLLER_BATCH watched SQs, taken from the head
 * of the list and moved to its tail (each gets its turn): those whose
 * producer moved, and those idle for too long (taken off the list), go
 * into @batch with a reference.  Returns how many; *@empty: the list is
 * empty, and the thread's state was set to sleep under the lock.
 */
static unsigned int wookie_poll_scan(struct wookie_dev *wdev,
				     struct wookie_qp **batch, bool *empty)
{
	u64 idle_ns = (u64)READ_ONCE(sq_poll_idle_us) * NSEC_PER_USEC;
	unsigned int n = 0, i, count;
	ktime_t now = ktime_get();
	struct wookie_qp *qp;
	u32 producer;

	spin_lock(&wdev->poll_lock);
	count = min_t(unsigned int, wdev->poll_count, WOOKIE_POLLER_BATCH);
	for (i = 0; i < count; i++) {
		qp = list_first_entry(&wdev->poll_list, struct wookie_qp,
				      poll_node);
		producer = READ_ONCE(qp->sq.hdr->producer);
		if (producer != qp->poll_seen) {
			qp->poll_seen = producer;
			qp->poll_active = now;
			list_move_tail(&qp->poll_node, &wdev->poll_list);
			refcount_inc(&qp->refcount);
			batch[n++] = qp;
		} else if (ktime_to_ns(ktime_sub(now, qp->poll_active)) >=
			   wookie_poll_idle_ns(qp, idle_ns)) {
			/* The list's reference goes with it into the batch. */
			list_del_init(&qp->poll_node);
			wdev->poll_count--;
			WRITE_ONCE(qp->sq_polled, false);
			batch[n++] = qp;
		} else {
			list_move_tail(&qp->poll_node, &wdev->poll_list);
		}
	}
	*empty = list_empty(&wdev->poll_list);
	if (*empty && !n)
		set_current_state(TASK_INTERRUPTIBLE);
	spin_unlock(&wdev->poll_lock);
	return n;
}

static int wookie_sq_poller(void *arg)
{
	struct wookie_qp *batch[WOOKIE_POLLER_BATCH];
	struct wookie_dev *wdev = arg;
	unsigned int n, i;
	bool empty;

	while (!kthread_should_stop()) {
		n = wookie_poll_scan(wdev, batch, &empty);
		for (i = 0; i < n; i++) {
			wookie_qp_run(batch[i]);
			wookie_qp_put(batch[i]);
		}
		/* kthread_stop() after the check above: no sleep then. */
		if (empty && !n && !kthread_should_stop())
			schedule();
		else
			cond_resched();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

int wookie_poller_start(struct wookie_dev *wdev)
{
	struct task_struct *t;

	spin_lock_init(&wdev->poll_lock);
	INIT_LIST_HEAD(&wdev->poll_list);
	t = kthread_create(wookie_sq_poller, wdev, "wookie_sq/%s",
			   wdev->ndev->name);
	if (IS_ERR(t))
		return PTR_ERR(t);
	wdev->poller = t;
	wake_up_process(t);
	return 0;
}

/* Every QP is gone: the list is empty. */
void wookie_poller_stop(struct wookie_dev *wdev)
{
	if (!wdev->poller)
		return;
	WARN_ON_ONCE(!list_empty(&wdev->poll_list));
	kthread_stop(wdev->poller);
	wdev->poller = NULL;
}

static void wookie_qp_work(struct work_struct *work)
{
	struct wookie_qp *qp = container_of(work, struct wookie_qp, work);

	wookie_runner_run(qp, WOOKIE_RUNNER_PASSES, WOOKIE_WORK_BUDGET,
			  GFP_KERNEL);
}

/*
 * Make the QP's timer fire no later than @expires.  Absolute, because a
 * relative time computed from a deadline that passed a moment ago is
 * negative, and hrtimer takes a negative relative time as "never" (it
 * saturates): that left a lost ACK without a retransmission.  A timer
 * already due earlier stays: the engine re-checks when it fires.  Only
 * the engine arms the timer, so nothing else moves its expiry meanwhile.
 */
void wookie_qp_arm_timer(struct wookie_qp *qp, ktime_t expires)
{
	if (qp->destroying)
		return;
	if (hrtimer_is_queued(&qp->timer) &&
	    ktime_compare(hrtimer_get_expires(&qp->timer), expires) <= 0)
		return;
	hrtimer_start(&qp->timer, expires, HRTIMER_MODE_ABS);
}

static enum hrtimer_restart wookie_qp_timer(struct hrtimer *timer)
{
	struct wookie_qp *qp = container_of(timer, struct wookie_qp, timer);

	wookie_qp_kick(qp);
	return HRTIMER_NORESTART;
}

void wookie_qp_engine_init(struct wookie_qp *qp)
{
	INIT_WORK(&qp->work, wookie_qp_work);
	wookie_odp_qp_init(qp);
	hrtimer_init(&qp->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	qp->timer.function = wookie_qp_timer;
}
