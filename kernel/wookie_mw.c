// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory windows: allocation, deallocation, and an SQ's BIND_MW, which
 * binds a window to a range of an MR or (type 1, zero length) unbinds
 * it.  A bound window holds a reference on its MR, and the MR can be
 * neither deregistered nor registered again while it is held.  A type 2
 * window is invalidated with fast MRs (wookie_mr.c); wookie_mem.c
 * resolves a window's rkey to its MR for an access.
 */
#include <linux/overflow.h>
#include <linux/rcupdate.h>

#include "wookie.h"
#include "wookie_mr_priv.h"

int wookie_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct wookie_dev *wdev = to_wookie_dev(ibmw->device);
	struct wookie_mw *mw = to_wookie_mw(ibmw);
	u32 key;
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	if (atomic_inc_return(&wdev->num_mw) > WOOKIE_MAX_MW) {
		err = -ENOMEM;
		goto err_count;
	}
	refcount_set(&mw->refcount, 1);
	init_completion(&mw->released);
	spin_lock_init(&mw->lock);
	/* Both types start unbound; a bind makes them valid. */
	mw->state = WOOKIE_KEY_FREE;
	mw->mr = NULL;

	err = wookie_key_reserve(wdev, &key);
	if (err)
		goto err_count;
	ibmw->rkey = key;
	wookie_key_publish(wdev, key, mw, WOOKIE_KEY_TAG_MW);
	return 0;

err_count:
	atomic_dec(&wdev->num_mw);
	return err;
}

/* Under mw->lock: detach the window; the caller releases the MR. */
struct wookie_mr *wookie_mw_unbind_locked(struct wookie_mw *mw)
{
	struct wookie_mr *mr = mw->mr;

	mw->mr = NULL;
	mw->qp_num = 0;
	mw->access = 0;
	mw->addr = 0;
	mw->length = 0;
	return mr;
}

void wookie_mw_release_mr(struct wookie_mr *mr)
{
	if (mr) {
		atomic_dec(&mr->num_mw);
		wookie_mr_put(mr);
	}
}

int wookie_dealloc_mw(struct ib_mw *ibmw)
{
	struct wookie_dev *wdev = to_wookie_dev(ibmw->device);
	struct wookie_mw *mw = to_wookie_mw(ibmw);
	struct wookie_mr *mr;
	unsigned long flags;

	/* Only the key part of rkey ever changes. */
	xa_erase_irq(&wdev->keys, wookie_key_index(READ_ONCE(ibmw->rkey)));
	wookie_mw_put(mw);
	wait_for_completion(&mw->released);

	spin_lock_irqsave(&mw->lock, flags);
	mr = wookie_mw_unbind_locked(mw);
	mw->state = WOOKIE_KEY_INVALID;
	spin_unlock_irqrestore(&mw->lock, flags);
	wookie_mw_release_mr(mr);

	/* ib_core frees the window when we return: let lookups finish. */
	synchronize_rcu();
	atomic_dec(&wdev->num_mw);
	return 0;
}

/* Window access from a bind WQE: only what a window can grant. */
static int wookie_mw_access(u32 access)
{
	access &= ~WOOKIE_ACCESS_IGNORED;
	/* Local write and bind rights mean nothing for a window. */
	if (access & ~WOOKIE_MR_ACCESS)
		return -EINVAL;
	return access & WOOKIE_REMOTE_ACCESS;
}

int wookie_bind_mw(struct wookie_qp *qp, const struct wookie_sqe *wqe)
{
	struct wookie_dev *wdev = to_wookie_dev(qp->ibqp.device);
	u64 addr = wqe->bind.addr, length = wqe->bind.length, end;
	u32 new_rkey = wqe->bind.rkey;
	struct wookie_mr *mr = NULL, *old_mr = NULL;
	unsigned long flags, mrflags;
	struct wookie_mw *mw;
	unsigned long tag;
	int status = IB_WC_MW_BIND_ERR;
	int access;
	void *obj;

	access = wookie_mw_access(wqe->bind.access);
	if (access < 0)
		return IB_WC_MW_BIND_ERR;
	/* Only the key part of the rkey is the consumer's to choose. */
	if (wookie_key_index(new_rkey) != wookie_key_index(wqe->bind.mw_rkey))
		return IB_WC_MW_BIND_ERR;
	if (check_add_overflow(addr, length, &end))
		return IB_WC_MW_BIND_ERR;

	obj = wookie_key_get(wdev, wqe->bind.mw_rkey, &tag);
	if (!obj)
		return IB_WC_MW_BIND_ERR;
	if (tag != WOOKIE_KEY_TAG_MW) {
		wookie_mr_put(obj);
		return IB_WC_MW_BIND_ERR;
	}
	mw = obj;
	/*
	 * Found by index: the bind names the window, whose current key part
	 * user space may not track (type 2).  The PD check keeps it to the
	 * owner's QPs.
	 */
	if (mw->ibmw.pd != qp->ibqp.pd)
		goto out_put_mw;
	/* o10-37.2.40: a type 2 window is invalidated, not unbound. */
	if (!length && mw->ibmw.type == IB_MW_TYPE_2)
		goto out_put_mw;

	if (length) {
		mr = wookie_mr_lookup(wdev, wqe->bind.mr_lkey);
		if (!mr)
			goto out_put_mw;
	}

	spin_lock_irqsave(&mw->lock, flags);
	if (mw->state == WOOKIE_KEY_INVALID ||
	    (mw->ibmw.type == IB_MW_TYPE_2 && mw->state != WOOKIE_KEY_FREE))
		goto out_unlock;
	if (mr) {
		spin_lock_irqsave(&mr->lock, mrflags);
		if (mr->state != WOOKIE_KEY_VALID ||
		    to_mr_priv(mr)->key != wqe->bind.mr_lkey ||
		    READ_ONCE(mr->ibmr.pd) != qp->ibqp.pd ||
		    /* C10-73 */
		    !(mr->access & IB_ACCESS_MW_BIND) ||
		    /* C10-74 */
		    ((access & (IB_ACCESS_REMOTE_WRITE |
				IB_ACCESS_REMOTE_ATOMIC)) &&
		     !(mr->access & IB_ACCESS_LOCAL_WRITE)) ||
		    /* C10-75 */
		    !wookie_in_range(addr, length, mr->iova, mr->length)) {
			spin_unlock_irqrestore(&mr->lock, mrflags);
			goto out_unlock;
		}
		/* The window's reference; dereg refuses while it is held. */
		atomic_inc(&mr->num_mw);
		refcount_inc(&mr->refcount);
		spin_unlock_irqrestore(&mr->lock, mrflags);
	}

	old_mr = wookie_mw_unbind_locked(mw);
	WRITE_ONCE(mw->ibmw.rkey, (mw->ibmw.rkey & ~WOOKIE_KEY_PART) |
				  (new_rkey & WOOKIE_KEY_PART));
	if (mr) {
		mw->mr = mr;
		mw->access = access;
		mw->addr = addr;
		mw->length = length;
		if (mw->ibmw.type == IB_MW_TYPE_2)
			mw->qp_num = qp->ibqp.qp_num;
		mw->state = WOOKIE_KEY_VALID;
	} else {
		/* Type 1, zero length: unbound. */
		mw->state = WOOKIE_KEY_FREE;
	}
	status = IB_WC_SUCCESS;
out_unlock:
	spin_unlock_irqrestore(&mw->lock, flags);
	wookie_mw_release_mr(old_mr);
	if (mr)
		wookie_mr_put(mr);
out_put_mw:
	wookie_mw_put(mw);
	return status;
}
