// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * On-demand paging: MRs whose pages are faulted in when the engine needs
 * them and dropped when the process's mapping changes, and the engine's
 * waits for those faults.
 *
 * ib_core's ib_umem_odp does the faulting (hmm_range_fault) and gets the
 * MMU interval notifier's invalidations; its lists are guarded by a mutex
 * the engine cannot take (it runs in softirq too).  So an ODP MR has a
 * table of its own, map[]: per page the kernel address of the page the
 * process maps there, with a read and a write bit, or 0.  The engine reads
 * it under odp->lock, a spinlock, and keeps no address past the unlock.
 * Entries are set by a fault, inside the umem_mutex section that follows
 * a successful hmm_range_fault() (so after mmu_interval_read_retry()
 * passed), and cleared by an invalidation before it returns, that is
 * before the mm changes the PTE, frees or migrates the page: no write
 * reaches a page the process no longer maps there.  Faults are taken for
 * write only by accesses that write: a page read through the zero page or
 * a COW page stays read-only here until a write faults it in for write.
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
 *
 * Lock order: mmap_lock, umem_mutex, odp->lock, wdev->atomic_lock.
 * Nothing allocates or sleeps under odp->lock, and nothing faults with
 * umem_mutex or odp->lock held.
 */
#include <linux/hmm.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/sched/mm.h>
#include <rdma/ib_umem_odp.h>
#include <rdma/uverbs_ioctl.h>

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

#if IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING)

#define WOOKIE_ODP_R 1UL
#define WOOKIE_ODP_W 2UL
/* map[] entries cleared per hold of odp->lock by an invalidation. */
#define WOOKIE_ODP_CLEAR_BATCH 512
/* A fault that failed for a reason that may pass: tries, and the wait. */
#define WOOKIE_ODP_FAULT_TRIES 3
#define WOOKIE_ODP_FAULT_WAIT_MS 10
/* Faulted in pieces of this many bytes, mmap_lock dropped between. */
#define WOOKIE_ODP_FAULT_CHUNK SZ_2M
/* Asynchronous prefetches in flight per device; more run synchronously. */
#define WOOKIE_ODP_MAX_PREFETCHES 256

struct wookie_odp {
	/* map[] against the engine's reads; taken with interrupts off. */
	spinlock_t lock;
	struct ib_umem_odp *umem;
	/* Per page of the umem: kernel address | WOOKIE_ODP_R | _W, or 0. */
	unsigned long *map;
	unsigned long num_pages;
};

/* Pages of ODP MRs one device may register: ib_core's lists are not charged. */
static unsigned long wookie_odp_budget(void)
{
	return totalram_pages();
}

/* [va, va + len) of @mr as page indexes of its umem. */
static void wookie_odp_span(struct wookie_mr *mr, u64 va, u64 len,
			    unsigned long *first, unsigned long *end)
{
	struct ib_umem_odp *umem = mr->odp->umem;
	u64 uva = va - mr->iova + umem->umem.address;

	*first = (uva - ib_umem_start(umem)) >> PAGE_SHIFT;
	*end = (PAGE_ALIGN(uva + len) - ib_umem_start(umem)) >> PAGE_SHIFT;
}

unsigned long wookie_odp_lock(struct wookie_mr *mr)
	__acquires(&mr->odp->lock)
{
	unsigned long flags;

	spin_lock_irqsave(&mr->odp->lock, flags);
	return flags;
}

void wookie_odp_unlock(struct wookie_mr *mr, unsigned long flags)
	__releases(&mr->odp->lock)
{
	spin_unlock_irqrestore(&mr->odp->lock, flags);
}

void *wookie_odp_addr(struct wookie_mr *mr, u64 va, u64 len, bool write)
{
	struct wookie_odp *odp = mr->odp;
	unsigned long need = WOOKIE_ODP_R | (write ? WOOKIE_ODP_W : 0);
	unsigned long first, end, i, e;
	u64 uva = va - mr->iova + odp->umem->umem.address;

	lockdep_assert_held(&odp->lock);
	wookie_odp_span(mr, va, len ? len : 1, &first, &end);
	for (i = first; i < end; i++) {
		e = READ_ONCE(odp->map[i]);
		if ((e & need) != need)
			return NULL;
	}
	e = READ_ONCE(odp->map[first]);
	return (void *)((e & PAGE_MASK) + offset_in_page(uva));
}

static bool wookie_odp_invalidate(struct mmu_interval_notifier *mni,
				  const struct mmu_notifier_range *range,
				  unsigned long cur_seq)
{
	struct ib_umem_odp *umem = container_of(mni, struct ib_umem_odp,
						notifier);
	struct wookie_odp *odp;
	unsigned long flags, i, end, stop;
	u64 start, last;

	/* Only the OOM reaper asks without letting us sleep. */
	if (!mmu_notifier_range_blockable(range))
		return false;
	mutex_lock(&umem->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	odp = umem->private;
	/* Nothing mapped (the MR may not even be set up yet). */
	if (!umem->npages || !odp)
		goto out;
	start = max_t(u64, ib_umem_start(umem), range->start);
	last = min_t(u64, ib_umem_end(umem), range->end);
	if (start >= last)
		goto out;
	i = (start - ib_umem_start(umem)) >> PAGE_SHIFT;
	end = (PAGE_ALIGN(last) - ib_umem_start(umem)) >> PAGE_SHIFT;
	/* In batches: readers hold the lock with interrupts off. */
	while (i < end) {
		stop = min(end, i + WOOKIE_ODP_CLEAR_BATCH);
		spin_lock_irqsave(&odp->lock, flags);
		for (; i < stop; i++)
			WRITE_ONCE(odp->map[i], 0);
		spin_unlock_irqrestore(&odp->lock, flags);
	}
	/* It may dirty pages, which takes locks odp->lock must not nest. */
	ib_umem_odp_unmap_dma_pages(umem, start, last);
	wookie_count(to_wookie_dev(umem->umem.ibdev),
		     WOOKIE_CNT_ODP_INVALIDATIONS);
out:
	mutex_unlock(&umem->umem_mutex);
	return true;
}

static const struct mmu_interval_notifier_ops wookie_odp_mn_ops = {
	.invalidate = wookie_odp_invalidate,
};

int wookie_odp_reg(struct wookie_dev *wdev, struct wookie_mr *mr, u64 start,
		   u64 length, int access)
{
	struct ib_umem_odp *umem;
	struct wookie_odp *odp;
	unsigned long num;
	int err;

	/* A kernel caller has no process to fault pages in for. */
	if (!current->mm)
		return -EINVAL;
	num = (PAGE_ALIGN(start + length) - (start & PAGE_MASK)) >> PAGE_SHIFT;
	if (atomic_long_add_return(num, &wdev->odp_pages) >
	    wookie_odp_budget()) {
		err = -ENOMEM;
		goto err_budget;
	}
	odp = kzalloc(sizeof(*odp), WOOKIE_GFP_UOBJ);
	if (!odp) {
		err = -ENOMEM;
		goto err_budget;
	}
	spin_lock_init(&odp->lock);
	/* Pages of PAGE_SIZE whatever backs them: no HUGETLB page shift. */
	umem = ib_umem_odp_get(&wdev->ibdev, start, length,
			       access & ~IB_ACCESS_HUGETLB, &wookie_odp_mn_ops);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		goto err_free;
	}
	odp->umem = umem;
	odp->num_pages = ib_umem_odp_num_pages(umem);
	odp->map = wookie_kvzalloc_uobj(array_size(odp->num_pages,
						   sizeof(*odp->map)));
	if (!odp->map) {
		err = -ENOMEM;
		goto err_release;
	}
	/* Nothing is mapped before the first fault, which needs the MR. */
	mutex_lock(&umem->umem_mutex);
	umem->private = odp;
	mutex_unlock(&umem->umem_mutex);
	mr->odp = odp;
	mr->umem = &umem->umem;
	return 0;

err_release:
	ib_umem_odp_release(umem);
err_free:
	kfree(odp);
err_budget:
	atomic_long_sub(num, &wdev->odp_pages);
	return err;
}

/* With no engine reference left on @mr (dereg quiesced it). */
void wookie_odp_release(struct wookie_dev *wdev, struct wookie_mr *mr)
{
	struct wookie_odp *odp = mr->odp;
	struct ib_umem_odp *umem = odp->umem;
	unsigned long start = umem->umem.address;
	unsigned long num;

	num = (PAGE_ALIGN(start + umem->umem.length) - (start & PAGE_MASK)) >>
	      PAGE_SHIFT;
	/* Removes the notifier, waiting for an invalidation that runs. */
	ib_umem_odp_release(umem);
	kvfree(odp->map);
	kfree(odp);
	mr->odp = NULL;
	mr->umem = NULL;
	atomic_long_sub(num, &wdev->odp_pages);
}

/*
 * Pages the CPU cannot reach through the kernel's direct map: memfd_secret
 * removes them from it (GUP refuses them; hmm_range_fault() does not).
 */
static bool wookie_odp_page_hidden(struct page *page)
{
	struct address_space *mapping = folio_mapping(page_folio(page));

	return mapping && mapping->host &&
	       mapping->host->i_sb->s_magic == SECRETMEM_MAGIC;
}

/* One try of wookie_odp_fault(). */
static int wookie_odp_map(struct wookie_mr *mr, u64 va, u64 len, bool write,
			  bool fault)
{
	struct wookie_odp *odp = mr->odp;
	struct ib_umem_odp *umem = odp->umem;
	u64 uva = va - mr->iova + umem->umem.address;
	u64 access = ODP_READ_ALLOWED_BIT | (write ? ODP_WRITE_ALLOWED_BIT : 0);
	unsigned long first, end, i, flags;
	u64 start = uva & PAGE_MASK;
	dma_addr_t dma;
	int ret;

	ret = ib_umem_odp_map_dma_and_lock(umem, start,
					   PAGE_ALIGN(uva + len) - start,
					   access, fault);
	if (ret < 0)
		return ret;
	/* umem_mutex held: no invalidation of these pages meanwhile. */
	wookie_odp_span(mr, va, len, &first, &end);
	for (i = first; i < end; i++) {
		/*
		 * ib_core set a mapped page's bits to what this fault asked
		 * for: a read would take back the write bit of a page written
		 * through map[] (still the same page: an invalidation clears
		 * both), and unmapping it would then not dirty it.
		 */
		if (READ_ONCE(odp->map[i]) & WOOKIE_ODP_W)
			umem->dma_list[i] |= ODP_WRITE_ALLOWED_BIT;
		if ((umem->dma_list[i] & ODP_READ_ALLOWED_BIT) &&
		    wookie_odp_page_hidden(hmm_pfn_to_page(umem->pfn_list[i]))) {
			mutex_unlock(&umem->umem_mutex);
			return -EFAULT;
		}
	}
	spin_lock_irqsave(&odp->lock, flags);
	for (i = first; i < end; i++) {
		dma = umem->dma_list[i];
		/* Not present (a fault=false snapshot): stays absent. */
		if (!(dma & ODP_READ_ALLOWED_BIT))
			continue;
		/* Virtual DMA: the address is the page's kernel address. */
		WRITE_ONCE(odp->map[i], (unsigned long)(dma & PAGE_MASK) |
			   WOOKIE_ODP_R |
			   ((dma & ODP_WRITE_ALLOWED_BIT) ? WOOKIE_ODP_W : 0));
	}
	spin_unlock_irqrestore(&odp->lock, flags);
	mutex_unlock(&umem->umem_mutex);
	return 0;
}

/* One piece of wookie_odp_fault(), tried again if that may help. */
static int wookie_odp_fault_piece(struct wookie_mr *mr, u64 va, u64 len,
				  bool write, bool fault)
{
	int tries = WOOKIE_ODP_FAULT_TRIES;
	int ret;

	for (;;) {
		ret = wookie_odp_map(mr, va, len, write, fault);
		if ((ret != -EBUSY && ret != -ENOMEM && ret != -EAGAIN) ||
		    !--tries || fatal_signal_pending(current))
			return ret;
		msleep(WOOKIE_ODP_FAULT_WAIT_MS);
	}
}

/*
 * Fault [va, va + len) of @mr (its range, checked) in for @write, or
 * with @fault false only take what the process has mapped already.
 * Sleeps.  -EFAULT or -EPERM when the process has no such mapping (or no
 * writable one); an invalidation storm or a short allocation is tried
 * again a few times.  A dereg (or a fatal signal) stops a long one.
 */
noinline int wookie_odp_fault(struct wookie_mr *mr, u64 va, u64 len,
			      bool write, bool fault)
{
	u64 n;
	int ret;

	while (len) {
		if (READ_ONCE(mr->state) != WOOKIE_KEY_VALID ||
		    fatal_signal_pending(current))
			return -EINTR;
		n = min_t(u64, len, WOOKIE_ODP_FAULT_CHUNK -
			  (va & (WOOKIE_ODP_FAULT_CHUNK - 1)));
		ret = wookie_odp_fault_piece(mr, va, n, write, fault);
		if (ret)
			return ret;
		va += n;
		len -= n;
		cond_resched();
	}
	return 0;
}

/* tests/vm/faults.sh fails it: the operation that missed fails. */
ALLOW_ERROR_INJECTION(wookie_odp_fault, ERRNO);

/* ---- ibv_advise_mr ---- */

struct wookie_prefetch_frag {
	struct wookie_mr *mr;
	u64 va;
	u64 len;
};

struct wookie_prefetch {
	struct work_struct work;
	struct wookie_dev *wdev;
	bool write;
	bool fault;
	u32 num;
	struct wookie_prefetch_frag frag[];
};

/*
 * The ODP MR an SGE of an advice names, with a reference, as the man
 * page's errors say: ENOENT no such lkey, EPERM another PD or a write
 * prefetch of a read-only MR, EFAULT outside the MR, EINVAL not ODP.
 */
static int wookie_prefetch_get(struct wookie_dev *wdev, struct ib_pd *pd,
			       const struct ib_sge *sge, bool write,
			       struct wookie_prefetch_frag *frag)
{
	struct wookie_mr *mr;

	mr = wookie_mem_get(wdev, sge->lkey, pd, 0,
			    write ? WOOKIE_MEM_LOCAL_WRITE :
				    WOOKIE_MEM_LOCAL_READ,
			    sge->addr, sge->length);
	if (IS_ERR(mr)) {
		switch (PTR_ERR(mr)) {
		case -EACCES:
			return -EPERM;
		case -ERANGE:
			return -EFAULT;
		default:
			return -ENOENT;
		}
	}
	if (mr->kind != WOOKIE_MR_ODP) {
		wookie_mr_put(mr);
		return -EINVAL;
	}
	frag->mr = mr;
	frag->va = sge->addr;
	frag->len = sge->length;
	return 0;
}

static void wookie_prefetch_put(struct wookie_prefetch *pf)
{
	u32 i;

	for (i = 0; i < pf->num; i++)
		wookie_mr_put(pf->frag[i].mr);
	atomic_dec(&pf->wdev->odp_prefetches);
	kvfree(pf);
}

/* The asynchronous advice: what it faults in is a hint, errors unseen. */
static void wookie_prefetch_work(struct work_struct *work)
{
	struct wookie_prefetch *pf = container_of(work, struct wookie_prefetch,
						  work);
	int err;
	u32 i;

	for (i = 0; i < pf->num; i++) {
		err = wookie_odp_fault(pf->frag[i].mr, pf->frag[i].va,
				       pf->frag[i].len, pf->write, pf->fault);
		/* An MR being deregistered waits for this. */
		if (err == -EINTR)
			break;
		if (!err)
			wookie_count(pf->wdev, WOOKIE_CNT_ODP_PREFETCHES);
	}
	wookie_prefetch_put(pf);
}

int wookie_advise_mr(struct ib_pd *ibpd,
		     enum ib_uverbs_advise_mr_advice advice, u32 flags,
		     struct ib_sge *sg_list, u32 num_sge,
		     struct uverbs_attr_bundle *attrs)
{
	struct wookie_dev *wdev = to_wookie_dev(ibpd->device);
	bool write = advice == IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE;
	bool fault = advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT;
	struct wookie_prefetch *pf;
	bool sync;
	int err = 0;
	u32 i;

	if (advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH &&
	    advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE &&
	    advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT)
		return -EOPNOTSUPP;
	pf = kvzalloc(struct_size(pf, frag, num_sge), GFP_KERNEL_ACCOUNT);
	if (!pf)
		return -ENOMEM;
	pf->wdev = wdev;
	pf->write = write;
	pf->fault = fault;
	atomic_inc(&wdev->odp_prefetches);
	/* Every SGE checked first: the errors are the caller's. */
	for (i = 0; i < num_sge; i++) {
		if (!sg_list[i].length)
			continue;
		err = wookie_prefetch_get(wdev, ibpd, &sg_list[i], write,
					  &pf->frag[pf->num]);
		if (err)
			goto out;
		pf->num++;
	}
	sync = (flags & IB_UVERBS_ADVISE_MR_FLAG_FLUSH) ||
	       atomic_read(&wdev->odp_prefetches) > WOOKIE_ODP_MAX_PREFETCHES;
	if (!sync) {
		INIT_WORK(&pf->work, wookie_prefetch_work);
		queue_work(wdev->odp_wq, &pf->work);
		return 0;
	}
	for (i = 0; i < pf->num; i++) {
		err = wookie_odp_fault(pf->frag[i].mr, pf->frag[i].va,
				       pf->frag[i].len, write, fault);
		if (err)
			break;
		wookie_count(wdev, WOOKIE_CNT_ODP_PREFETCHES);
	}
	/* Asked to flush: the caller waits, and hears why it failed. */
	if (!(flags & IB_UVERBS_ADVISE_MR_FLAG_FLUSH))
		err = 0;
out:
	wookie_prefetch_put(pf);
	return err;
}

#endif /* CONFIG_INFINIBAND_ON_DEMAND_PAGING */

/* ---- The engine's waits ---- */

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
		 * wait: the failure is kept for it that long.
		 */
		if (slot->let_go && !slot->failed_seen) {
			slot->since = ktime_get();
			wookie_qp_arm_timer(qp,
					    ktime_add_ms(slot->since,
							 WOOKIE_ODP_FAILED_KEEP_MS));
		}
		slot->failed_seen = true;
		return true;
	default:
		return true;
	}
}

/*
 * A failure its side was ready to see in this pass is not kept longer,
 * but for a side let go: until its time is up (the QP's timer runs a
 * pass then), as the slot holds the MR that dereg waits for.
 */
void wookie_odp_pass_end(struct wookie_qp *qp)
{
	struct wookie_odp_slot *slot;
	int i;

	for (i = 0; i < WOOKIE_ODP_SIDES; i++) {
		slot = &qp->odp.slot[i];
		if (!slot->failed_seen)
			continue;
		if (slot->let_go &&
		    ktime_before(ktime_get(),
				 ktime_add_ms(slot->since,
					      WOOKIE_ODP_FAILED_KEEP_MS)))
			continue;
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
