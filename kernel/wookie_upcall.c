// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Upcalls: the handlers of kernel consumers (QP events, CQ completion and
 * error events, the SRQ limit event) are called from one work item per
 * device, with no QP's engine running and no reference held, because a
 * handler may destroy or reset any object, the one it is told about
 * included.  (uverbs' handlers of user objects only queue an event for the
 * process and are called where the event happens, and so are those of CQs
 * that ib_core polls, which only schedule the poll: wookie_cq_post().)
 *
 * One work for the whole device, as a NIC's event queue: handlers of one
 * device never run at the same time, so a handler that destroys an object
 * has no other handler to wait for, and one outside a handler waits for
 * that work alone.  With a work per object, a CQ handler destroying a QP
 * waited for the QP's work while the QP's handler, destroying a QP of that
 * CQ, waited for the CQ's: a deadlock, which lockdep reported.
 *
 * What a handler must not do: wait for another upcall of its device, as
 * ib_drain_qp() does (it waits for the drain WR's completion handler,
 * which runs after it), or destroy an object of another wookie device
 * from a handler of this one while that device's handler does the same.
 */
#include "wookie.h"

/*
 * Upcalls one run of the work delivers; then it queues itself again, so
 * that a flush (destroy) waits for a bounded run, not for a list that
 * traffic on other objects keeps filling.
 */
#define WOOKIE_UPCALL_BATCH 64

static void wookie_upcall_work(struct work_struct *work)
{
	struct wookie_dev *wdev = container_of(work, struct wookie_dev,
					       upcall_work);
	unsigned int budget = WOOKIE_UPCALL_BATCH;
	struct wookie_upcall *up;
	unsigned long flags;
	unsigned int bit;

	spin_lock_irqsave(&wdev->upcall_lock, flags);
	while ((up = list_first_entry_or_null(&wdev->upcalls,
					      struct wookie_upcall, node))) {
		if (!budget--) {
			queue_work(wdev->wq, &wdev->upcall_work);
			break;
		}
		bit = __ffs(up->pending);
		__clear_bit(bit, &up->pending);
		/* Others take their turn before its next bit. */
		list_del_init(&up->node);
		if (up->pending)
			list_add_tail(&up->node, &wdev->upcalls);
		wdev->upcall_cur = up;
		spin_unlock_irqrestore(&wdev->upcall_lock, flags);
		/* Not touched after this: the handler may free its owner. */
		up->deliver(up, bit);
		cond_resched();
		spin_lock_irqsave(&wdev->upcall_lock, flags);
		wdev->upcall_cur = NULL;
	}
	spin_unlock_irqrestore(&wdev->upcall_lock, flags);
}

void wookie_upcall_dev_init(struct wookie_dev *wdev)
{
	spin_lock_init(&wdev->upcall_lock);
	INIT_LIST_HEAD(&wdev->upcalls);
	INIT_WORK(&wdev->upcall_work, wookie_upcall_work);
}

void wookie_upcall_init(struct wookie_upcall *up, wookie_upcall_fn deliver)
{
	INIT_LIST_HEAD(&up->node);
	up->pending = 0;
	up->off = false;
	up->deliver = deliver;
}

void wookie_upcall_raise(struct wookie_dev *wdev, struct wookie_upcall *up,
			 unsigned int bit)
{
	unsigned long flags;

	if (bit >= BITS_PER_LONG)
		return;
	spin_lock_irqsave(&wdev->upcall_lock, flags);
	if (!up->off) {
		__set_bit(bit, &up->pending);
		if (list_empty(&up->node))
			list_add_tail(&up->node, &wdev->upcalls);
		queue_work(wdev->wq, &wdev->upcall_work);
	}
	spin_unlock_irqrestore(&wdev->upcall_lock, flags);
}

static bool wookie_upcall_in_handler(struct wookie_dev *wdev)
{
	return current_work() == &wdev->upcall_work;
}

void wookie_upcall_stop(struct wookie_dev *wdev, struct wookie_upcall *up,
			bool deliver)
{
	bool in_handler = wookie_upcall_in_handler(wdev);
	unsigned long flags;

	spin_lock_irqsave(&wdev->upcall_lock, flags);
	up->off = true;
	/*
	 * In a handler, nothing of this device's runs elsewhere, and what
	 * is pending would run after the owner is gone: dropped.
	 */
	if (!deliver || in_handler) {
		up->pending = 0;
		list_del_init(&up->node);
	}
	spin_unlock_irqrestore(&wdev->upcall_lock, flags);
	/* Nothing raises it any more: once delivered, it stays idle. */
	if (!in_handler)
		wookie_upcall_sync(wdev, up);
}

/*
 * Each flush waits for one bounded run of the work; @up moves up the
 * list with each run (new upcalls join behind it), so few are needed.
 */
void wookie_upcall_sync(struct wookie_dev *wdev, struct wookie_upcall *up)
{
	unsigned long flags;
	bool wait;

	if (wookie_upcall_in_handler(wdev))
		return;
	for (;;) {
		spin_lock_irqsave(&wdev->upcall_lock, flags);
		wait = !list_empty(&up->node) || wdev->upcall_cur == up;
		spin_unlock_irqrestore(&wdev->upcall_lock, flags);
		if (!wait)
			return;
		flush_work(&wdev->upcall_work);
	}
}
