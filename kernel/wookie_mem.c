// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Registered memory as the engine reaches it: a key checked for a use
 * (state, PD, access and bounds; a window resolved to its MR), the
 * copies between MRs and buffers, packets or SGE lists (an SGE list
 * also referenced, for a local packet), and the 8-byte operations the
 * responder runs (atomics, ATOMIC WRITE).  An ODP page missing is not
 * faulted in here: *miss tells the caller which.
 */
#include <linux/highmem.h>
#include <linux/mm.h>

#include "wookie.h"
#include "wookie_mr_priv.h"

static int wookie_use_access(enum wookie_mem_use use)
{
	switch (use) {
	case WOOKIE_MEM_LOCAL_READ:
		return 0;
	case WOOKIE_MEM_LOCAL_WRITE:
		return IB_ACCESS_LOCAL_WRITE;
	case WOOKIE_MEM_REMOTE_READ:
		return IB_ACCESS_REMOTE_READ;
	case WOOKIE_MEM_REMOTE_WRITE:
		return IB_ACCESS_REMOTE_WRITE;
	case WOOKIE_MEM_REMOTE_ATOMIC:
		return IB_ACCESS_REMOTE_ATOMIC;
	case WOOKIE_MEM_FLUSH_GLOBAL:
		return IB_ACCESS_FLUSH_GLOBAL;
	case WOOKIE_MEM_FLUSH_PERSISTENT:
		return IB_ACCESS_FLUSH_PERSISTENT;
	}
	return -1;
}

static bool wookie_use_is_local(enum wookie_mem_use use)
{
	return use == WOOKIE_MEM_LOCAL_READ || use == WOOKIE_MEM_LOCAL_WRITE;
}

/*
 * Under mr->lock: may @pd use the MR for @need over [va, va + len), or
 * (@whole) anywhere in it?
 */
static int wookie_mr_check_locked(struct wookie_mr *mr, u32 key,
				  struct ib_pd *pd, int need, u64 va, u64 len,
				  bool whole)
{
	if (mr->state != WOOKIE_KEY_VALID || to_mr_priv(mr)->key != key)
		return -EINVAL;
	if (READ_ONCE(mr->ibmr.pd) != pd || (mr->access & need) != need)
		return -EACCES;
	if (!whole && !wookie_in_range(va, len, mr->iova, mr->length))
		return -ERANGE;
	return 0;
}

/* Resolve a window to its MR, with a reference on the MR. */
static struct wookie_mr *wookie_mw_resolve(struct wookie_mw *mw, u32 key,
					   struct ib_pd *pd, u32 qp_num,
					   int need, u64 va, u64 len,
					   bool whole)
{
	struct wookie_mr *mr;
	unsigned long flags;
	int err;

	spin_lock_irqsave(&mw->lock, flags);
	if (mw->state != WOOKIE_KEY_VALID || mw->ibmw.rkey != key || !mw->mr) {
		err = -EINVAL;
	} else if (mw->ibmw.pd != pd ||
		   (mw->ibmw.type == IB_MW_TYPE_2 && mw->qp_num != qp_num) ||
		   (mw->access & need) != need) {
		err = -EACCES;
	} else if (!whole && !wookie_in_range(va, len, mw->addr, mw->length)) {
		err = -ERANGE;
	} else {
		err = 0;
		mr = mw->mr;
		/* The window holds a reference: the count is not zero. */
		refcount_inc(&mr->refcount);
	}
	spin_unlock_irqrestore(&mw->lock, flags);
	if (err)
		return ERR_PTR(err);

	/* Bound windows keep the MR valid; check anyway, cheaply. */
	spin_lock_irqsave(&mr->lock, flags);
	if (mr->state != WOOKIE_KEY_VALID ||
	    (!whole && !wookie_in_range(va, len, mr->iova, mr->length)))
		err = -EINVAL;
	spin_unlock_irqrestore(&mr->lock, flags);
	if (err) {
		wookie_mr_put(mr);
		return ERR_PTR(err);
	}
	return mr;
}

static struct wookie_mr *__wookie_mem_get(struct wookie_dev *wdev, u32 key,
					  struct ib_pd *pd, u32 qp_num,
					  enum wookie_mem_use use, u64 va,
					  u64 len, bool whole)
{
	int need = wookie_use_access(use);
	struct wookie_mr *mr;
	struct wookie_mw *mw;
	unsigned long flags;
	unsigned long tag;
	void *obj;
	int err;

	if (need < 0)
		return ERR_PTR(-EINVAL);
	obj = wookie_key_get(wdev, key, &tag);
	if (!obj)
		return ERR_PTR(-EINVAL);

	if (tag == WOOKIE_KEY_TAG_MR) {
		mr = obj;
		spin_lock_irqsave(&mr->lock, flags);
		err = wookie_mr_check_locked(mr, key, pd, need, va, len,
					     whole);
		spin_unlock_irqrestore(&mr->lock, flags);
		if (err) {
			wookie_mr_put(mr);
			return ERR_PTR(err);
		}
		return mr;
	}

	mw = obj;
	/* A window is an rkey only. */
	if (wookie_use_is_local(use))
		mr = ERR_PTR(-EINVAL);
	else
		mr = wookie_mw_resolve(mw, key, pd, qp_num, need, va, len,
				       whole);
	wookie_mw_put(mw);
	return mr;
}

struct wookie_mr *wookie_mem_get(struct wookie_dev *wdev, u32 key,
				 struct ib_pd *pd, u32 qp_num,
				 enum wookie_mem_use use, u64 va, u64 len)
{
	return __wookie_mem_get(wdev, key, pd, qp_num, use, va, len, false);
}

struct wookie_mr *wookie_mem_get_whole(struct wookie_dev *wdev, u32 key,
				       struct ib_pd *pd, u32 qp_num,
				       enum wookie_mem_use use)
{
	return __wookie_mem_get(wdev, key, pd, qp_num, use, 0, 0, true);
}

/* A consistent view of where an MR's bytes are. */
struct wookie_mr_map {
	u64 iova;
	unsigned int num_pages;
	unsigned int page_shift;
	unsigned int page_offset;
};

/*
 * User MRs change only while nobody holds a reference (rereg drains);
 * a fast MR's list may be rewritten by map_mr_sg meanwhile, so take its
 * geometry under the lock once.
 */
static void wookie_mr_map_get(struct wookie_mr *mr, struct wookie_mr_map *map)
{
	unsigned long flags;

	spin_lock_irqsave(&mr->lock, flags);
	map->iova = mr->iova;
	map->num_pages = mr->num_pages;
	map->page_shift = mr->page_shift;
	map->page_offset = mr->page_offset;
	spin_unlock_irqrestore(&mr->lock, flags);
}

/*
 * Kernel address of the byte at @va and how many bytes follow it in the
 * same page, or NULL when @va is outside the map (only a consumer
 * remapping a fast MR under a copy gets there).  A user page is mapped
 * with kmap_local_page() and returned in *@page: kunmap_local() it.
 */
static void *wookie_mr_addr(struct wookie_mr *mr,
			    const struct wookie_mr_map *map, u64 va,
			    u64 *avail, struct page **page)
{
	u64 off = va - map->iova + map->page_offset;
	u64 idx = off >> map->page_shift;
	u64 in = off & ((1ULL << map->page_shift) - 1);

	*page = NULL;
	if (va < map->iova || idx >= map->num_pages)
		return NULL;
	*avail = (1ULL << map->page_shift) - in;
	if (wookie_mr_paged(mr)) {
		*page = mr->pages[idx];
		return kmap_local_page(*page) + in;
	}
	return (void *)(uintptr_t)(READ_ONCE(mr->page_addrs[idx]) + in);
}

static void wookie_mr_unmap(struct page *page, void *p, bool written)
{
	if (!page)
		return;
	if (written)
		flush_dcache_page(page);
	kunmap_local(p);
}

/*
 * An ODP MR's pages for [va, va + len), all present (for writing if
 * @to_mr), copied under its lock; else nothing is, and *@miss says what
 * to fault in.
 */
static int wookie_odp_copy(struct wookie_mr *mr, u64 va, void *buf, u64 len,
			   bool to_mr, struct wookie_odp_miss *miss)
{
	unsigned long flags;
	u64 n;
	void *p;

	flags = wookie_odp_lock(mr);
	if (!wookie_odp_addr(mr, va, len, to_mr)) {
		wookie_odp_unlock(mr, flags);
		wookie_odp_miss_set(miss, mr, va, len, to_mr);
		return -EAGAIN;
	}
	while (len) {
		p = wookie_odp_addr(mr, va, 1, to_mr);
		n = min_t(u64, len, PAGE_SIZE - offset_in_page(p));
		if (to_mr)
			memcpy(p, buf, n);
		else
			memcpy(buf, p, n);
		va += n;
		buf += n;
		len -= n;
	}
	wookie_odp_unlock(mr, flags);
	return 0;
}

static int wookie_mr_copy(struct wookie_mr *mr, u64 va, void *buf, u64 len,
			  bool to_mr, struct wookie_odp_miss *miss)
{
	struct wookie_mr_map map;
	struct page *page;
	u64 avail, n;
	void *p;

	if (mr->kind == WOOKIE_MR_ODP)
		return wookie_odp_copy(mr, va, buf, len, to_mr, miss);
	if (mr->kind == WOOKIE_MR_DMA) {
		p = (void *)(uintptr_t)va;
		if (to_mr)
			memcpy(p, buf, len);
		else
			memcpy(buf, p, len);
		return 0;
	}

	wookie_mr_map_get(mr, &map);
	while (len) {
		p = wookie_mr_addr(mr, &map, va, &avail, &page);
		if (!p) {
			/* Never hand out stale kernel bytes. */
			if (!to_mr)
				memset(buf, 0, len);
			return 0;
		}
		n = min(len, avail);
		if (to_mr)
			memcpy(p, buf, n);
		else
			memcpy(buf, p, n);
		wookie_mr_unmap(page, p, to_mr);
		va += n;
		buf += n;
		len -= n;
	}
	return 0;
}

/*
 * Walk @len bytes at byte @offset of an SGE list, each SGE's lkey checked
 * for @use over the bytes it takes (none for no bytes): @fn gets each
 * piece with its MR and the offset of the piece in the walk.  A WC status,
 * or the WOOKIE_STATUS_* @fn returns as -EAGAIN (an ODP miss) or -EXDEV
 * (no reference).
 */
static int wookie_sge_walk(struct wookie_dev *wdev,
			   const struct wookie_sge *sge, u32 num_sge,
			   struct ib_pd *pd, u32 qp_num, u64 offset, u32 len,
			   enum wookie_mem_use use,
			   int (*fn)(struct wookie_mr *mr, u64 va, u32 done,
				     u32 n, void *arg),
			   void *arg)
{
	u32 done = 0;
	u32 i;

	for (i = 0; i < num_sge && done < len; i++, sge++) {
		struct wookie_mr *mr;
		u32 n;
		int ret;

		if (offset >= sge->length) {
			offset -= sge->length;
			continue;
		}
		n = min_t(u64, sge->length - offset, len - done);
		mr = wookie_mem_get(wdev, sge->lkey, pd, qp_num, use,
				    sge->addr + offset, n);
		if (IS_ERR(mr))
			return IB_WC_LOC_PROT_ERR;
		/* fn keeps the reference when it returns 1. */
		ret = fn(mr, sge->addr + offset, done, n, arg);
		if (ret <= 0)
			wookie_mr_put(mr);
		if (ret == -EAGAIN)
			return WOOKIE_STATUS_ODP_MISS;
		if (ret == -EXDEV)
			return WOOKIE_STATUS_NO_REF;
		if (ret < 0)
			return IB_WC_LOC_PROT_ERR;
		done += n;
		offset = 0;
	}
	return done < len ? IB_WC_LOC_LEN_ERR : IB_WC_SUCCESS;
}

/* Where a copy goes, and where its ODP miss does. */
struct wookie_copy_arg {
	void *buf;
	const struct wookie_src *src;
	struct wookie_odp_miss *miss;
};

static int wookie_sge_gather_fn(struct wookie_mr *mr, u64 va, u32 done,
				u32 n, void *arg)
{
	struct wookie_copy_arg *a = arg;

	return wookie_mr_copy(mr, va, a->buf + done, n, false, a->miss);
}

/* Copy @len bytes at byte @offset of an SGE list to @buf; a WC status. */
int wookie_sge_gather(struct wookie_dev *wdev, const struct wookie_sge *sge,
		      u32 num_sge, struct ib_pd *pd, u32 qp_num, u64 offset,
		      void *buf, u32 len, struct wookie_odp_miss *miss)
{
	struct wookie_copy_arg a = { .buf = buf, .miss = miss };

	return wookie_sge_walk(wdev, sge, num_sge, pd, qp_num, offset, len,
			       WOOKIE_MEM_LOCAL_READ, wookie_sge_gather_fn,
			       &a);
}

/*
 * Kernel address of the byte at @va of any kind of MR, as wookie_mr_addr()
 * (@map is unused for a DMA MR, whose addresses are kernel ones, and for
 * an ODP one, whose table is read under its lock).
 */
static void *wookie_mr_at(struct wookie_mr *mr, const struct wookie_mr_map *map,
			  u64 va, u64 *avail, struct page **page)
{
	void *p;

	/* Under its lock; only ever a destination (written). */
	if (mr->kind == WOOKIE_MR_ODP) {
		*page = NULL;
		p = wookie_odp_addr(mr, va, 1, true);
		*avail = PAGE_SIZE - offset_in_page(p);
		return p;
	}
	if (mr->kind == WOOKIE_MR_DMA) {
		*page = NULL;
		*avail = U64_MAX;
		return (void *)(uintptr_t)va;
	}
	return wookie_mr_addr(mr, map, va, avail, page);
}

/*
 * Copy @len bytes at @sva of @src to @dva of @dst, page by page, with no
 * buffer in between: the one copy of the local path.  @src is pinned (a
 * packet's reference); an ODP @dst is written under its lock, all of the
 * range present, or nothing is (-EAGAIN, *@miss filled).
 */
static void wookie_mr_copy_mr_pages(struct wookie_mr *dst, u64 dva,
				    struct wookie_mr *src, u64 sva, u64 len)
{
	struct wookie_mr_map dmap = {}, smap = {};
	struct page *dpage, *spage;
	u64 davail, savail, n;
	void *d, *s;

	if (dst->kind != WOOKIE_MR_DMA && dst->kind != WOOKIE_MR_ODP)
		wookie_mr_map_get(dst, &dmap);
	if (src->kind != WOOKIE_MR_DMA)
		wookie_mr_map_get(src, &smap);
	while (len) {
		d = wookie_mr_at(dst, &dmap, dva, &davail, &dpage);
		if (!d)
			break;
		n = min(len, davail);
		s = wookie_mr_at(src, &smap, sva, &savail, &spage);
		if (s) {
			n = min(n, savail);
			memcpy(d, s, n);
			wookie_mr_unmap(spage, s, false);
		} else {
			/* Never hand out stale kernel bytes. */
			memset(d, 0, n);
		}
		wookie_mr_unmap(dpage, d, true);
		dva += n;
		sva += n;
		len -= n;
	}
}

static int wookie_mr_copy_mr(struct wookie_mr *dst, u64 dva,
			     struct wookie_mr *src, u64 sva, u64 len,
			     struct wookie_odp_miss *miss)
{
	unsigned long flags;

	if (dst->kind != WOOKIE_MR_ODP) {
		wookie_mr_copy_mr_pages(dst, dva, src, sva, len);
		return 0;
	}
	flags = wookie_odp_lock(dst);
	if (!wookie_odp_addr(dst, dva, len, true)) {
		wookie_odp_unlock(dst, flags);
		wookie_odp_miss_set(miss, dst, dva, len, true);
		return -EAGAIN;
	}
	wookie_mr_copy_mr_pages(dst, dva, src, sva, len);
	wookie_odp_unlock(dst, flags);
	return 0;
}

/*
 * Copy @len bytes at byte @off of @src to @va of @mr.  An ODP miss may
 * come after some segments were copied: doing it again copies the same.
 */
static int wookie_mr_copy_src(struct wookie_mr *mr, u64 va,
			      const struct wookie_src *src, u64 off, u64 len,
			      struct wookie_odp_miss *miss)
{
	const struct wookie_pkt_ref *ref = src->ref;
	int err;
	u32 i;

	if (!ref)
		return wookie_mr_copy(mr, va, (void *)(src->buf + off), len,
				      true, miss);
	for (i = 0; i < ref->num_segs && len; i++) {
		const struct wookie_mr_seg *seg = &ref->seg[i];
		u64 n;

		if (off >= seg->len) {
			off -= seg->len;
			continue;
		}
		n = min_t(u64, seg->len - off, len);
		err = wookie_mr_copy_mr(mr, va, seg->mr, seg->va + off, n,
					miss);
		if (err)
			return err;
		va += n;
		len -= n;
		off = 0;
	}
	return 0;
}

int wookie_mr_place(struct wookie_mr *mr, u64 va,
		    const struct wookie_src *src, u64 len,
		    struct wookie_odp_miss *miss)
{
	return wookie_mr_copy_src(mr, va, src, 0, len, miss);
}

static int wookie_sge_place_fn(struct wookie_mr *mr, u64 va, u32 done,
			       u32 n, void *arg)
{
	struct wookie_copy_arg *a = arg;

	return wookie_mr_copy_src(mr, va, a->src, done, n, a->miss);
}

/* wookie_sge_gather()'s other way, from a buffer or by reference. */
int wookie_sge_place(struct wookie_dev *wdev, const struct wookie_sge *sge,
		     u32 num_sge, struct ib_pd *pd, u32 qp_num, u64 offset,
		     const struct wookie_src *src, u32 len,
		     struct wookie_odp_miss *miss)
{
	struct wookie_copy_arg a = { .src = src, .miss = miss };

	return wookie_sge_walk(wdev, sge, num_sge, pd, qp_num, offset, len,
			       WOOKIE_MEM_LOCAL_WRITE, wookie_sge_place_fn,
			       &a);
}

static int wookie_sge_ref_fn(struct wookie_mr *mr, u64 va, u32 done, u32 n,
			     void *arg)
{
	struct wookie_pkt_ref *ref = arg;
	struct wookie_mr_seg *seg;

	/*
	 * Only pages the MR keeps stay valid by the reference.  An ODP MR's
	 * may go at any time, and the receiver could not fault them in; a
	 * mapped MR (dma-buf) has no page list: those are copied.
	 */
	if (!wookie_mr_paged(mr))
		return -EXDEV;
	if (ref->num_segs >= ARRAY_SIZE(ref->seg))
		return -1;
	seg = &ref->seg[ref->num_segs++];
	seg->mr = mr;
	seg->va = va;
	seg->len = n;
	ref->len += n;
	return 1;
}

/*
 * Reference @len bytes at byte @offset of an SGE list in @ref, each
 * SGE's lkey checked for reading: the payload of a local packet.  On
 * failure @ref may hold some references still: the packet's release
 * drops them.  A WC status.
 */
int wookie_sge_ref(struct wookie_dev *wdev, const struct wookie_sge *sge,
		   u32 num_sge, struct ib_pd *pd, u32 qp_num, u64 offset,
		   u32 len, struct wookie_pkt_ref *ref)
{
	return wookie_sge_walk(wdev, sge, num_sge, pd, qp_num, offset, len,
			       WOOKIE_MEM_LOCAL_READ, wookie_sge_ref_fn, ref);
}

int wookie_mr_copy_from(struct wookie_mr *mr, u64 va, void *dst, u64 len,
			struct wookie_odp_miss *miss)
{
	return wookie_mr_copy(mr, va, dst, len, false, miss);
}

/*
 * The lock orders our atomics against each other (one HCA); cmpxchg
 * keeps them atomic against the CPU too, and an aligned 8-byte store is
 * single-copy atomic on every 64-bit architecture.  The store releases:
 * an ATOMIC WRITE is the flag after data a WRITE placed before it, and a
 * CPU that reads the flag with acquire must see that data.
 */
static u64 wookie_atomic_at(struct wookie_dev *wdev, u64 *p,
			    const struct wookie_atomic *op)
{
	unsigned long flags;
	u64 orig, old;

	spin_lock_irqsave(&wdev->atomic_lock, flags);
	switch (op->kind) {
	case WOOKIE_ATOMIC_CMP_SWAP:
		orig = cmpxchg64(p, op->compare_add, op->swap);
		break;
	case WOOKIE_ATOMIC_FETCH_ADD:
		old = READ_ONCE(*p);
		do {
			orig = old;
			old = cmpxchg64(p, orig, orig + op->compare_add);
		} while (old != orig);
		break;
	default:
		orig = 0;
		/* After the data placed before it (see above). */
		smp_store_release(p, op->swap);
		break;
	}
	spin_unlock_irqrestore(&wdev->atomic_lock, flags);
	return orig;
}

int wookie_mr_atomic(struct wookie_dev *wdev, struct wookie_mr *mr, u64 va,
		     const struct wookie_atomic *op, u64 *orig,
		     struct wookie_odp_miss *miss)
{
	struct page *page = NULL;
	struct wookie_mr_map map;
	unsigned long flags;
	u64 avail;
	u64 *p;

	*orig = 0;
	if (mr->kind == WOOKIE_MR_DMA) {
		*orig = wookie_atomic_at(wdev, (u64 *)(uintptr_t)va, op);
		return 0;
	}
	if (mr->kind == WOOKIE_MR_ODP) {
		/* The page stays while its lock is held. */
		flags = wookie_odp_lock(mr);
		p = wookie_odp_addr(mr, va, sizeof(u64), true);
		if (p)
			*orig = wookie_atomic_at(wdev, p, op);
		wookie_odp_unlock(mr, flags);
		if (p)
			return 0;
		wookie_odp_miss_set(miss, mr, va, sizeof(u64), true);
		return -EAGAIN;
	}
	wookie_mr_map_get(mr, &map);
	p = wookie_mr_addr(mr, &map, va, &avail, &page);
	if (!p)
		return -EFAULT;
	/*
	 * An MR that grants atomics starts aligned in its DM; one that
	 * grants only the RDMA WRITE an ATOMIC WRITE needs may not, and an
	 * aligned iova is then an unaligned address, where no store is one
	 * write (nor within one page).
	 */
	if (!IS_ALIGNED((uintptr_t)p, sizeof(u64)) || avail < sizeof(u64)) {
		wookie_mr_unmap(page, p, false);
		return -EINVAL;
	}
	*orig = wookie_atomic_at(wdev, p, op);
	wookie_mr_unmap(page, p, true);
	return 0;
}
