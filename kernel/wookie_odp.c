// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * On-demand paging: MRs whose pages are faulted in when the engine needs
 * them and dropped when the process's mapping changes (the engine's waits
 * for those faults are in wookie_odp_wait.c).
 *
 * ib_core's ib_umem_odp does the faulting (hmm_range_fault) and gets the
 * MMU interval notifier's invalidations; its lists are guarded by a mutex
 * the engine cannot take (it runs in softirq too).  So each umem of an
 * ODP MR has a table of its own, map[]: per page the kernel address of
 * the page the process maps there, with a read and a write bit, or 0.
 * The engine reads it under odp->lock, a spinlock, and keeps no address
 * past the unlock.  Entries are set by a fault, inside the umem_mutex
 * section that follows a successful hmm_range_fault() (so after
 * mmu_interval_read_retry() passed), and cleared by an invalidation
 * before it returns, that is before the mm changes the PTE, frees or
 * migrates the page: no write reaches a page the process no longer maps
 * there.  Faults are taken for write only by accesses that write: a page
 * read through the zero page or a COW page stays read-only here until a
 * write faults it in for write.
 *
 * An explicit MR has one umem.  An implicit one (ibv_reg_mr(pd, NULL,
 * SIZE_MAX, ...): the process's whole address space) has a root umem
 * that maps nothing and a child umem per 2 MiB of address space, made by
 * the first fault there that maps something and kept until dereg; a page
 * whose child does not exist yet is a miss like any other.  One odp->lock
 * covers all of an MR's tables, so an access across two children is
 * checked and done as one against invalidations of both.
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

#if IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING)

#define WOOKIE_ODP_R 1UL
#define WOOKIE_ODP_W 2UL
/* map[] entries cleared per hold of odp->lock by an invalidation. */
#define WOOKIE_ODP_CLEAR_BATCH 512
/* A fault that failed for a reason that may pass: tries, and the wait. */
#define WOOKIE_ODP_FAULT_TRIES 3
#define WOOKIE_ODP_FAULT_WAIT_MS 10
/*
 * An implicit MR's child umems: one per this much of the address space.
 * Each costs about 12 KiB (ib_core's two lists and map[]), so a few
 * touched pages far apart cost little.
 */
#define WOOKIE_ODP_CHILD_SHIFT 21
#define WOOKIE_ODP_CHILD_SIZE BIT_ULL(WOOKIE_ODP_CHILD_SHIFT)
#define WOOKIE_ODP_CHILD_PAGES (WOOKIE_ODP_CHILD_SIZE >> PAGE_SHIFT)
/*
 * Faulted in pieces of this many bytes, mmap_lock dropped between; aligned
 * so that a piece of an implicit MR stays inside one child.
 */
#define WOOKIE_ODP_FAULT_CHUNK WOOKIE_ODP_CHILD_SIZE
/* Asynchronous prefetches in flight per device; more run synchronously. */
#define WOOKIE_ODP_MAX_PREFETCHES 256
/*
 * The bytes one asynchronous prefetch may name: a kworker's time is
 * nobody's, so a larger one runs in its caller, charged and killable.
 */
#define WOOKIE_ODP_ASYNC_PREFETCH_BYTES SZ_64M

/* One umem's pages, as the engine reads them. */
struct wookie_odp_table {
	struct ib_umem_odp *umem;
	struct wookie_odp *odp;
	/* Per page of the umem: kernel address | WOOKIE_ODP_R | _W, or 0. */
	unsigned long *map;
};

struct wookie_odp {
	/* Every map[] of the MR against the engine's reads; irqs off. */
	spinlock_t lock;
	/* An explicit MR's umem and table; an implicit MR's root (no map). */
	struct wookie_odp_table one;
	bool implicit;
	/*
	 * Implicit: the children's tables by address >> CHILD_SHIFT, kept
	 * until dereg (the engine looks them up with no lock but odp->lock).
	 */
	struct xarray children;
	/* Implicit: the root umem keeps the mm without a reference. */
	struct mm_struct *mm;
	/* Implicit: children are charged to it, whoever faults them in. */
	struct mem_cgroup *memcg;
};

/* Pages of ODP MRs one device may register: ib_core's lists are not charged. */
static unsigned long wookie_odp_budget(void)
{
	return totalram_pages();
}

static struct wookie_dev *wookie_odp_dev(struct wookie_odp *odp)
{
	return to_wookie_dev(odp->one.umem->umem.ibdev);
}

/* The process address of @va of @mr. */
static u64 wookie_odp_uva(struct wookie_mr *mr, u64 va)
{
	return va - mr->iova + mr->odp->one.umem->umem.address;
}

/* The table that maps @uva, if it exists; a child's may not yet. */
static struct wookie_odp_table *wookie_odp_table(struct wookie_odp *odp,
						 u64 uva)
{
	if (!odp->implicit)
		return &odp->one;
	return xa_load(&odp->children, uva >> WOOKIE_ODP_CHILD_SHIFT);
}

/* Index of @uva's page in @t's umem. */
static unsigned long wookie_odp_index(struct wookie_odp_table *t, u64 uva)
{
	return (uva - ib_umem_start(t->umem)) >> PAGE_SHIFT;
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
	u64 uva = wookie_odp_uva(mr, va);
	u64 end = PAGE_ALIGN(uva + (len ? len : 1));
	struct wookie_odp_table *t = NULL;
	unsigned long e, first = 0;
	u64 p;

	lockdep_assert_held(&odp->lock);
	for (p = uva & PAGE_MASK; p < end; p += PAGE_SIZE) {
		/* A new child's table at its first page, or the first page. */
		if (!t || !(p & (WOOKIE_ODP_CHILD_SIZE - 1))) {
			t = wookie_odp_table(odp, p);
			if (!t)
				return NULL;
		}
		e = READ_ONCE(t->map[wookie_odp_index(t, p)]);
		if ((e & need) != need)
			return NULL;
		if (p == (uva & PAGE_MASK))
			first = e;
	}
	return (void *)((first & PAGE_MASK) + offset_in_page(uva));
}

static bool wookie_odp_invalidate(struct mmu_interval_notifier *mni,
				  const struct mmu_notifier_range *range,
				  unsigned long cur_seq)
{
	struct ib_umem_odp *umem = container_of(mni, struct ib_umem_odp,
						notifier);
	struct wookie_odp_table *t;
	unsigned long flags, i, end, stop;
	u64 start, last;

	/* Only the OOM reaper asks without letting us sleep. */
	if (!mmu_notifier_range_blockable(range))
		return false;
	mutex_lock(&umem->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	t = umem->private;
	/* Nothing mapped (the MR or the child may not even be set up yet). */
	if (!umem->npages || !t)
		goto out;
	start = max_t(u64, ib_umem_start(umem), range->start);
	last = min_t(u64, ib_umem_end(umem), range->end);
	if (start >= last)
		goto out;
	i = wookie_odp_index(t, start);
	end = wookie_odp_index(t, PAGE_ALIGN(last));
	/* In batches: readers hold the lock with interrupts off. */
	while (i < end) {
		stop = min(end, i + WOOKIE_ODP_CLEAR_BATCH);
		spin_lock_irqsave(&t->odp->lock, flags);
		for (; i < stop; i++)
			WRITE_ONCE(t->map[i], 0);
		spin_unlock_irqrestore(&t->odp->lock, flags);
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

static struct wookie_odp *wookie_odp_alloc(void)
{
	struct wookie_odp *odp;

	odp = kzalloc(sizeof(*odp), WOOKIE_GFP_UOBJ);
	if (!odp)
		return NULL;
	spin_lock_init(&odp->lock);
	odp->one.odp = odp;
	xa_init(&odp->children);
	return odp;
}

/* Nothing is mapped before the first fault, which needs the table. */
static void wookie_odp_publish(struct wookie_odp_table *t)
{
	mutex_lock(&t->umem->umem_mutex);
	t->umem->private = t;
	mutex_unlock(&t->umem->umem_mutex);
}

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
	odp = wookie_odp_alloc();
	if (!odp) {
		err = -ENOMEM;
		goto err_budget;
	}
	/* Pages of PAGE_SIZE whatever backs them: no HUGETLB page shift. */
	umem = ib_umem_odp_get(&wdev->ibdev, start, length,
			       access & ~IB_ACCESS_HUGETLB, &wookie_odp_mn_ops);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		goto err_free;
	}
	odp->one.umem = umem;
	odp->one.map = wookie_kvzalloc_uobj(array_size(ib_umem_odp_num_pages(umem),
						       sizeof(*odp->one.map)));
	if (!odp->one.map) {
		err = -ENOMEM;
		goto err_release;
	}
	wookie_odp_publish(&odp->one);
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

/*
 * An implicit MR: the root umem only, nothing charged yet (each child is).
 * Returns the end of the process's address space, the MR's length inside
 * the device.
 */
int wookie_odp_reg_implicit(struct wookie_dev *wdev, struct wookie_mr *mr,
			    int access, u64 *limit)
{
	struct ib_umem_odp *root;
	struct wookie_odp *odp;

	if (!current->mm)
		return -EINVAL;
	odp = wookie_odp_alloc();
	if (!odp)
		return -ENOMEM;
	root = ib_umem_odp_alloc_implicit(&wdev->ibdev,
					  access & ~IB_ACCESS_HUGETLB);
	if (IS_ERR(root)) {
		kfree(odp);
		return PTR_ERR(root);
	}
	odp->implicit = true;
	odp->one.umem = root;
	/* Children are made with it, perhaps after the process exited. */
	mmgrab(current->mm);
	odp->mm = current->mm;
	odp->memcg = get_mem_cgroup_from_mm(current->mm);
	*limit = current->mm->task_size;
	mr->odp = odp;
	mr->umem = &root->umem;
	return 0;
}

static void wookie_odp_child_free(struct wookie_dev *wdev,
				  struct wookie_odp_table *t)
{
	/* Removes the notifier, waiting for an invalidation that runs. */
	ib_umem_odp_release(t->umem);
	kvfree(t->map);
	kfree(t);
	atomic_long_sub(WOOKIE_ODP_CHILD_PAGES, &wdev->odp_pages);
}

/* A new child of an implicit MR for the 2 MiB at @idx, not published. */
static struct wookie_odp_table *wookie_odp_child_new(struct wookie_odp *odp,
						     unsigned long idx)
{
	struct wookie_dev *wdev = wookie_odp_dev(odp);
	struct ib_umem_odp *umem;
	struct wookie_odp_table *t;
	int err;

	/* Not tried again: it lasts until an MR is deregistered. */
	if (atomic_long_add_return(WOOKIE_ODP_CHILD_PAGES, &wdev->odp_pages) >
	    wookie_odp_budget()) {
		err = -ENOSPC;
		goto err_budget;
	}
	err = -ENOMEM;
	t = kzalloc(sizeof(*t), WOOKIE_GFP_UOBJ);
	if (!t)
		goto err_budget;
	t->odp = odp;
	t->map = wookie_kvzalloc_uobj(WOOKIE_ODP_CHILD_PAGES * sizeof(*t->map));
	if (!t->map)
		goto err_table;
	umem = ib_umem_odp_alloc_child(odp->one.umem,
				       idx << WOOKIE_ODP_CHILD_SHIFT,
				       WOOKIE_ODP_CHILD_SIZE, &wookie_odp_mn_ops);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		goto err_map;
	}
	t->umem = umem;
	wookie_odp_publish(t);
	return t;

err_map:
	kvfree(t->map);
err_table:
	kfree(t);
err_budget:
	atomic_long_sub(WOOKIE_ODP_CHILD_PAGES, &wdev->odp_pages);
	return ERR_PTR(err);
}

/* With no engine reference left on @mr (dereg quiesced it). */
void wookie_odp_release(struct wookie_dev *wdev, struct wookie_mr *mr)
{
	struct wookie_odp *odp = mr->odp;
	struct ib_umem_odp *umem = odp->one.umem;
	struct wookie_odp_table *t;
	unsigned long start, num, idx;

	if (odp->implicit) {
		xa_for_each(&odp->children, idx, t)
			wookie_odp_child_free(wdev, t);
		xa_destroy(&odp->children);
		ib_umem_odp_release(umem);
		mem_cgroup_put(odp->memcg);
		mmdrop(odp->mm);
	} else {
		start = umem->umem.address;
		num = (PAGE_ALIGN(start + umem->umem.length) -
		       (start & PAGE_MASK)) >> PAGE_SHIFT;
		ib_umem_odp_release(umem);
		kvfree(odp->one.map);
		atomic_long_sub(num, &wdev->odp_pages);
	}
	kfree(odp);
	mr->odp = NULL;
	mr->umem = NULL;
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

/* Fault [uva, uva + len) of @t's umem in, and set its entries. */
static int wookie_odp_map_table(struct wookie_odp *odp,
				struct wookie_odp_table *t, u64 uva, u64 len,
				bool write, bool fault)
{
	u64 access = ODP_READ_ALLOWED_BIT | (write ? ODP_WRITE_ALLOWED_BIT : 0);
	struct ib_umem_odp *umem = t->umem;
	u64 start = uva & PAGE_MASK;
	unsigned long first, end, i, flags;
	dma_addr_t dma;
	int ret;

	ret = ib_umem_odp_map_dma_and_lock(umem, start,
					   PAGE_ALIGN(uva + len) - start,
					   access, fault);
	if (ret < 0)
		return ret;
	/* umem_mutex held: no invalidation of these pages meanwhile. */
	first = wookie_odp_index(t, start);
	end = wookie_odp_index(t, PAGE_ALIGN(uva + len));
	for (i = first; i < end; i++) {
		/*
		 * ib_core set a mapped page's bits to what this fault asked
		 * for: a read would take back the write bit of a page written
		 * through map[] (still the same page: an invalidation clears
		 * both), and unmapping it would then not dirty it.
		 */
		if (READ_ONCE(t->map[i]) & WOOKIE_ODP_W)
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
		WRITE_ONCE(t->map[i], (unsigned long)(dma & PAGE_MASK) |
			   WOOKIE_ODP_R |
			   ((dma & ODP_WRITE_ALLOWED_BIT) ? WOOKIE_ODP_W : 0));
	}
	spin_unlock_irqrestore(&odp->lock, flags);
	mutex_unlock(&umem->umem_mutex);
	return 0;
}

/*
 * A range of an implicit MR that no child maps yet: a new child, faulted
 * in before anyone else sees it and kept only if that mapped something,
 * so that faults of unmapped addresses (a peer's, a NO_FAULT prefetch's)
 * leave no child behind.  Two faults that race each make one; the first
 * published is kept, and the other's miss finds it.
 */
static int wookie_odp_map_child(struct wookie_odp *odp, u64 uva, u64 len,
				bool write, bool fault)
{
	struct wookie_dev *wdev = wookie_odp_dev(odp);
	unsigned long idx = uva >> WOOKIE_ODP_CHILD_SHIFT;
	struct wookie_odp_table *t;
	struct mem_cgroup *old;
	int ret;

	old = set_active_memcg(odp->memcg);
	t = wookie_odp_child_new(odp, idx);
	if (IS_ERR(t)) {
		ret = PTR_ERR(t);
		goto out;
	}
	ret = wookie_odp_map_table(odp, t, uva, len, write, fault);
	/* The store publishes a whole table, its entries set. */
	if (!ret && READ_ONCE(t->umem->npages)) {
		ret = xa_insert(&odp->children, idx, t, GFP_KERNEL_ACCOUNT);
		if (!ret) {
			wookie_count(wdev, WOOKIE_CNT_ODP_CHILDREN);
			goto out;
		}
		if (ret == -EBUSY)
			ret = 0;
	}
	wookie_odp_child_free(wdev, t);
out:
	set_active_memcg(old);
	return ret;
}

/* One try of wookie_odp_fault(), inside one table. */
static int wookie_odp_map(struct wookie_mr *mr, u64 va, u64 len, bool write,
			  bool fault)
{
	struct wookie_odp *odp = mr->odp;
	u64 uva = wookie_odp_uva(mr, va);
	struct wookie_odp_table *t = wookie_odp_table(odp, uva);

	if (!t)
		return wookie_odp_map_child(odp, uva, len, write, fault);
	return wookie_odp_map_table(odp, t, uva, len, write, fault);
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
	u64 bytes = 0;
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
		bytes += sg_list[i].length;
		pf->num++;
	}
	sync = (flags & IB_UVERBS_ADVISE_MR_FLAG_FLUSH) ||
	       bytes > WOOKIE_ODP_ASYNC_PREFETCH_BYTES ||
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

