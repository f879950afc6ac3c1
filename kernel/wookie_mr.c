// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory regions and memory windows: registration, the key table the
 * engine looks keys up in, the local operations of an SQ (REG_MR,
 * BIND_MW, LOCAL_INV) and copies to and from registered memory.
 *
 * Keys: index (key >> 8) into wdev->keys, plus an 8-bit variable part.
 * The table is XA_FLAGS_LOCK_IRQ: its writers here use the _irq calls.
 * Lookups run under RCU only and take a reference; whoever destroys an object
 * unpublishes it, drops the initial reference and waits for the others.
 * MR memory is freed after an RCU grace period; MW memory belongs to
 * ib_core, which frees it as soon as dealloc_mw returns, so dealloc_mw
 * waits for a grace period itself.
 *
 * Lock order: mw->lock, then mr->lock.  Both are taken with interrupts
 * off because map_mr_sg may come from any context of a kernel consumer.
 */
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "wookie.h"

#define WOOKIE_KEY_INDEX_MAX 0xffffff
#define WOOKIE_KEY_PART 0xffu

/*
 * What an MR may grant; everything else is refused or (optional) ignored.
 * FLUSH to global visibility (from 6.2, whose ib_core has it), not to
 * persistence: no memory wookie reaches is persistent (no device reports
 * IB_DEVICE_FLUSH_PERSISTENT).
 */
#define WOOKIE_MR_ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			  IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
			  IB_ACCESS_MW_BIND | IB_ACCESS_ON_DEMAND | \
			  WOOKIE_ACCESS_FLUSH_GLOBAL)
#define WOOKIE_REMOTE_ACCESS (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ | \
			      IB_ACCESS_REMOTE_ATOMIC | \
			      WOOKIE_ACCESS_FLUSH_GLOBAL)
/* Hints a software device can ignore. */
#define WOOKIE_ACCESS_IGNORED (IB_ACCESS_OPTIONAL | IB_ACCESS_HUGETLB)

/*
 * Every MR is allocated here, so it can carry what the shared struct does
 * not: the key the device honours.  A kernel consumer changes ibmr.lkey
 * and ibmr.rkey (ib_update_fast_reg_key) before it posts the REG_MR that
 * makes the new key valid, often behind a LOCAL_INV of the old key in the
 * same chain, so ibmr's keys run ahead of the device.
 */
struct wookie_mr_priv {
	struct wookie_mr mr;
	/* Under mr.lock; the index part never changes. */
	u32 key;
};

static struct wookie_mr_priv *to_mr_priv(struct wookie_mr *mr)
{
	return container_of(mr, struct wookie_mr_priv, mr);
}

/* Hint for xa_alloc_cyclic(), shared by all devices: only a hint. */
static u32 wookie_key_hint;

static inline u32 wookie_key_index(u32 key)
{
	return key >> 8;
}

/*
 * Reserve a key index (the entry reads as NULL until published) and pick
 * a random key part.
 */
static int wookie_key_reserve(struct wookie_dev *wdev, u32 *key)
{
	u32 next = READ_ONCE(wookie_key_hint);
	u32 index;
	int err;

	err = xa_alloc_cyclic_irq(&wdev->keys, &index, NULL,
				  XA_LIMIT(1, WOOKIE_KEY_INDEX_MAX), &next,
				  GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;
	WRITE_ONCE(wookie_key_hint, next);
	*key = index << 8 | (get_random_u32() & WOOKIE_KEY_PART);
	return 0;
}

/* Storing into a reserved slot allocates nothing, so it cannot fail. */
static void wookie_key_publish(struct wookie_dev *wdev, u32 key, void *obj,
			       unsigned long tag)
{
	xa_store_irq(&wdev->keys, wookie_key_index(key),
		     xa_tag_pointer(obj, tag), GFP_KERNEL);
}

/* Keep the index reserved but make lookups miss. */
static void wookie_key_unpublish(struct wookie_dev *wdev, u32 key)
{
	xa_store_irq(&wdev->keys, wookie_key_index(key), NULL, GFP_KERNEL);
}

void wookie_mr_put(struct wookie_mr *mr)
{
	if (refcount_dec_and_test(&mr->refcount))
		complete(&mr->released);
}

static void wookie_mw_put(struct wookie_mw *mw)
{
	if (refcount_dec_and_test(&mw->refcount))
		complete(&mw->released);
}

/*
 * The object at @key's index with a reference, or NULL.  Only the index
 * is matched here; callers check the key part under the object's lock.
 */
static void *wookie_key_get(struct wookie_dev *wdev, u32 key,
			    unsigned long *tag)
{
	void *entry, *obj = NULL;

	rcu_read_lock();
	entry = xa_load(&wdev->keys, wookie_key_index(key));
	if (entry) {
		*tag = xa_pointer_tag(entry);
		obj = xa_untag_pointer(entry);
		if (*tag == WOOKIE_KEY_TAG_MR) {
			struct wookie_mr *mr = obj;

			if (!refcount_inc_not_zero(&mr->refcount))
				obj = NULL;
		} else if (*tag == WOOKIE_KEY_TAG_MW) {
			struct wookie_mw *mw = obj;

			if (!refcount_inc_not_zero(&mw->refcount))
				obj = NULL;
		} else {
			obj = NULL;
		}
	}
	rcu_read_unlock();
	return obj;
}

static struct wookie_mr *wookie_mr_lookup(struct wookie_dev *wdev, u32 key)
{
	unsigned long tag;
	void *obj = wookie_key_get(wdev, key, &tag);

	if (obj && tag != WOOKIE_KEY_TAG_MR) {
		wookie_mw_put(obj);
		return NULL;
	}
	return obj;
}

/* [va, va + len) inside [start, start + length), without overflow. */
static bool wookie_in_range(u64 va, u64 len, u64 start, u64 length)
{
	u64 off;

	if (va < start)
		return false;
	off = va - start;
	return off <= length && len <= length - off;
}

/* Validate user MR access flags; returns the flags kept, or -errno. */
static int wookie_mr_access(int access)
{
	if ((access & IB_ACCESS_ON_DEMAND) &&
	    !IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING))
		return -EOPNOTSUPP;
	/* Zero-based regions come as iova 0, never as this flag. */
	if (access & IB_ZERO_BASED)
		return -EOPNOTSUPP;
	access &= ~WOOKIE_ACCESS_IGNORED;
	if (access & IB_ACCESS_FLUSH_PERSISTENT)
		return -EOPNOTSUPP;
	if (access & ~WOOKIE_MR_ACCESS)
		return -EINVAL;
	/* IBTA: remote write or atomic needs local write. */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return access;
}

static struct wookie_mr_priv *wookie_mr_alloc(struct wookie_dev *wdev,
					      struct ib_pd *ibpd,
					      enum wookie_mr_kind kind,
					      gfp_t gfp)
{
	struct wookie_mr_priv *priv;
	struct wookie_mr *mr;

	if (atomic_inc_return(&wdev->num_mr) > WOOKIE_MAX_MR) {
		atomic_dec(&wdev->num_mr);
		return ERR_PTR(-ENOMEM);
	}
	priv = kzalloc(sizeof(*priv), gfp);
	if (!priv) {
		atomic_dec(&wdev->num_mr);
		return ERR_PTR(-ENOMEM);
	}
	mr = &priv->mr;
	mr->kind = kind;
	refcount_set(&mr->refcount, 1);
	init_completion(&mr->released);
	spin_lock_init(&mr->lock);
	mr->state = WOOKIE_KEY_INVALID;
	atomic_set(&mr->num_mw, 0);
	mr->page_shift = PAGE_SHIFT;
	/* ib_core sets these after we return; lookups need them before. */
	mr->ibmr.device = &wdev->ibdev;
	mr->ibmr.pd = ibpd;
	return priv;
}

/* Undo wookie_mr_alloc() for an MR that was never published. */
static void wookie_mr_free_unpublished(struct wookie_dev *wdev,
				       struct wookie_mr_priv *priv)
{
	kvfree(priv->mr.page_addrs);
	kfree(priv);
	atomic_dec(&wdev->num_mr);
}

/* Reserve a key, make the MR valid in @state, then publish it. */
static int wookie_mr_publish(struct wookie_dev *wdev,
			     struct wookie_mr_priv *priv,
			     enum wookie_key_state state)
{
	struct wookie_mr *mr = &priv->mr;
	int err;
	u32 key;

	err = wookie_key_reserve(wdev, &key);
	if (err)
		return err;
	priv->key = key;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	mr->state = state;
	wookie_key_publish(wdev, key, mr, WOOKIE_KEY_TAG_MR);
	return 0;
}

struct ib_mr *wookie_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct wookie_dev *wdev = to_wookie_dev(ibpd->device);
	struct wookie_mr_priv *priv;
	int err;

	priv = wookie_mr_alloc(wdev, ibpd, WOOKIE_MR_DMA, GFP_KERNEL);
	if (IS_ERR(priv))
		return ERR_CAST(priv);
	/*
	 * A kernel caller: taken as given.  ib_alloc_pd() asks for remote
	 * access without local write for an unsafe global rkey.
	 */
	priv->mr.access = access & WOOKIE_MR_ACCESS & ~IB_ACCESS_ON_DEMAND;
	priv->mr.iova = 0;
	priv->mr.length = U64_MAX;
	err = wookie_mr_publish(wdev, priv, WOOKIE_KEY_VALID);
	if (err) {
		wookie_mr_free_unpublished(wdev, priv);
		return ERR_PTR(err);
	}
	return &priv->mr.ibmr;
}

/* Pin [start, start + length) and list its pages (a user MR: charged). */
static int wookie_pin(struct wookie_dev *wdev, u64 start, u64 length,
		      int access, struct ib_umem **umemp, struct page ***pagesp,
		      unsigned int *num_pagesp)
{
	struct sg_page_iter piter;
	struct ib_umem *umem;
	struct page **pages;
	unsigned int num, i = 0;

	/* length <= WOOKIE_MAX_MR_SIZE, so the count fits. */
	num = (offset_in_page(start) + length + PAGE_SIZE - 1) >> PAGE_SHIFT;
	umem = ib_umem_get(&wdev->ibdev, start, length, access);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	pages = wookie_kvzalloc_uobj(array_size(num, sizeof(*pages)));
	if (!pages) {
		ib_umem_release(umem);
		return -ENOMEM;
	}
	for_each_sgtable_page(&umem->sgt_append.sgt, &piter, 0) {
		if (i == num)
			break;
		pages[i++] = sg_page_iter_page(&piter);
	}
	if (i != num) {
		kvfree(pages);
		ib_umem_release(umem);
		return -EFAULT;
	}
	*umemp = umem;
	*pagesp = pages;
	*num_pagesp = num;
	return 0;
}

/* Undo wookie_pin() or wookie_odp_reg(), with no reference left. */
static void wookie_mr_unpin(struct wookie_dev *wdev, struct wookie_mr *mr)
{
	if (mr->kind == WOOKIE_MR_ODP) {
		wookie_odp_release(wdev, mr);
		return;
	}
	kvfree(mr->pages);
	ib_umem_release(mr->umem);
}

static int wookie_check_user_range(u64 start, u64 length, u64 iova)
{
	u64 end;

	if (!length || length > WOOKIE_MAX_MR_SIZE)
		return -EINVAL;
	if (offset_in_page(start) != offset_in_page(iova))
		return -EINVAL;
	if (check_add_overflow(start, length, &end) ||
	    check_add_overflow(iova, length, &end))
		return -EINVAL;
	return 0;
}

struct ib_mr *wookie_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				 u64 iova, int access, struct ib_udata *udata)
{
	struct wookie_dev *wdev = to_wookie_dev(ibpd->device);
	struct wookie_mr_priv *priv;
	struct wookie_mr *mr;
	bool implicit;
	u64 limit;
	int err;

	err = wookie_mr_access(access);
	if (err < 0)
		return ERR_PTR(err);
	access = err;
	/* Implicit ODP: the whole address space, addressed as it is. */
	implicit = (access & IB_ACCESS_ON_DEMAND) && !start &&
		   length == U64_MAX;
	if (implicit && iova)
		return ERR_PTR(-EINVAL);
	if (!implicit) {
		err = wookie_check_user_range(start, length, iova);
		if (err)
			return ERR_PTR(err);
	}

	priv = wookie_mr_alloc(wdev, ibpd, (access & IB_ACCESS_ON_DEMAND) ?
			       WOOKIE_MR_ODP : WOOKIE_MR_USER, WOOKIE_GFP_UOBJ);
	if (IS_ERR(priv))
		return ERR_CAST(priv);
	mr = &priv->mr;
	limit = length;
	if (implicit)
		err = wookie_odp_reg_implicit(wdev, mr, access, &limit);
	else if (mr->kind == WOOKIE_MR_ODP)
		err = wookie_odp_reg(wdev, mr, start, length, access);
	else
		err = wookie_pin(wdev, start, length, access, &mr->umem,
				 &mr->pages, &mr->num_pages);
	if (err)
		goto err_free;
	mr->access = access;
	mr->iova = iova;
	/*
	 * An implicit MR ends where user space does: no address past it is
	 * the process's, and no end computed from the MR overflows.
	 */
	mr->length = limit;
	mr->max_pages = mr->num_pages;
	mr->page_offset = ib_umem_offset(mr->umem);
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.page_size = PAGE_SIZE;

	err = wookie_mr_publish(wdev, priv, WOOKIE_KEY_VALID);
	if (err)
		goto err_unpin;
	return &mr->ibmr;

err_unpin:
	wookie_mr_unpin(wdev, mr);
err_free:
	wookie_mr_free_unpublished(wdev, priv);
	return ERR_PTR(err);
}

/*
 * An MR on a dma-buf: [offset, offset + length) of the buffer at @iova
 * (ib_core checked their in-page offsets agree), reached through a
 * kernel mapping of the buffer (wookie_dmabuf.c).
 */
struct ib_mr *wookie_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
					u64 length, u64 iova, int fd,
					int access,
					struct wookie_dmabuf_mr_attrs *attrs)
{
	struct wookie_dev *wdev = to_wookie_dev(ibpd->device);
	struct wookie_mr_priv *priv;
	struct wookie_mr *mr;
	int err;

	/* ib_core let through no ON_DEMAND, MW_BIND or ZERO_BASED. */
	err = wookie_mr_access(access);
	if (err < 0)
		return ERR_PTR(err);
	access = err;
	err = wookie_check_user_range(offset, length, iova);
	if (err)
		return ERR_PTR(err);
	priv = wookie_mr_alloc(wdev, ibpd, WOOKIE_MR_DMABUF, WOOKIE_GFP_UOBJ);
	if (IS_ERR(priv))
		return ERR_CAST(priv);
	mr = &priv->mr;
	err = wookie_dmabuf_map(mr, fd, offset, length,
				ib_access_writable(access));
	if (err)
		goto err_free;
	mr->access = access;
	mr->iova = iova;
	mr->length = length;
	mr->max_pages = mr->num_pages;
	mr->page_offset = offset_in_page(offset);
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.page_size = PAGE_SIZE;
	err = wookie_mr_publish(wdev, priv, WOOKIE_KEY_VALID);
	if (err)
		goto err_unmap;
	return &mr->ibmr;

err_unmap:
	wookie_dmabuf_unmap(mr);
err_free:
	wookie_mr_free_unpublished(wdev, priv);
	return ERR_PTR(err);
}

/*
 * An MR on device memory: zero based (ib_core insists), over pages the DM
 * owns; length 0 is allowed, as ib_core allows it.
 */
struct ib_mr *wookie_reg_dm_mr(struct ib_pd *ibpd, struct ib_dm *ibdm,
			       struct ib_dm_mr_attr *attr,
			       struct uverbs_attr_bundle *attrs)
{
	struct wookie_dev *wdev = to_wookie_dev(ibpd->device);
	struct wookie_mr_priv *priv;
	struct wookie_mr *mr;
	int access, err;

	access = wookie_mr_access(attr->access_flags & ~IB_ZERO_BASED);
	if (access < 0)
		return ERR_PTR(access);
	if (access & IB_ACCESS_ON_DEMAND)
		return ERR_PTR(-EINVAL);
	/*
	 * An atomic's kernel address is aligned only if the offset is: an
	 * atomic MR, or one a window may grant atomics on, must be.
	 */
	if ((access & (IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_MW_BIND)) &&
	    !IS_ALIGNED(attr->offset, 8))
		return ERR_PTR(-EINVAL);
	priv = wookie_mr_alloc(wdev, ibpd, WOOKIE_MR_DM, WOOKIE_GFP_UOBJ);
	if (IS_ERR(priv))
		return ERR_CAST(priv);
	mr = &priv->mr;
	err = wookie_dm_get(ibdm, attr->offset, attr->length, &mr->pages,
			    &mr->num_pages, &mr->dm_entry);
	if (err)
		goto err_free;
	mr->access = access;
	mr->iova = 0;
	mr->length = attr->length;
	mr->max_pages = mr->num_pages;
	mr->page_offset = offset_in_page(attr->offset);
	mr->ibmr.iova = 0;
	mr->ibmr.length = attr->length;
	mr->ibmr.page_size = PAGE_SIZE;
	err = wookie_mr_publish(wdev, priv, WOOKIE_KEY_VALID);
	if (err)
		goto err_put;
	return &mr->ibmr;

err_put:
	kvfree(mr->pages);
	wookie_dm_put(mr->dm_entry);
err_free:
	wookie_mr_free_unpublished(wdev, priv);
	return ERR_PTR(err);
}

/*
 * Make an MR unreachable and wait until nobody uses it: refused while
 * windows are bound (they hold references for as long as they are).  On
 * success the MR is INVALID, unpublished (@erase: its index freed) and
 * holds no reference.
 */
static int wookie_mr_quiesce(struct wookie_dev *wdev, struct wookie_mr *mr,
			     bool erase)
{
	u32 key = to_mr_priv(mr)->key;
	unsigned long flags;

	spin_lock_irqsave(&mr->lock, flags);
	if (atomic_read(&mr->num_mw)) {
		spin_unlock_irqrestore(&mr->lock, flags);
		return -EBUSY;
	}
	/* A bind racing with us now fails: it checks state under lock. */
	mr->state = WOOKIE_KEY_INVALID;
	spin_unlock_irqrestore(&mr->lock, flags);

	if (erase)
		xa_erase_irq(&wdev->keys, wookie_key_index(key));
	else
		wookie_key_unpublish(wdev, key);
	wookie_mr_put(mr);
	wait_for_completion(&mr->released);
	return 0;
}

/*
 * In place: build the new pinning first (a failure leaves the MR as it
 * was), then take the MR out of the key table, wait for the engine to
 * drop its references, swap, and publish it again with the same key.
 */
struct ib_mr *wookie_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				   u64 length, u64 iova, int access,
				   struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct wookie_dev *wdev = to_wookie_dev(ibmr->device);
	struct wookie_mr *mr = to_wookie_mr(ibmr);
	struct ib_umem *umem = NULL, *old_umem;
	struct page **pages = NULL, **old_pages;
	unsigned int num_pages = 0;
	unsigned long irqflags;
	bool repin;
	int err;

	if (mr->kind != WOOKIE_MR_USER && mr->kind != WOOKIE_MR_ODP)
		return ERR_PTR(-EINVAL);
	if (flags & ~(IB_MR_REREG_TRANS | IB_MR_REREG_PD | IB_MR_REREG_ACCESS))
		return ERR_PTR(-EOPNOTSUPP);
	/* Not done yet: an ODP MR's translation or paging changing. */
	if ((mr->kind == WOOKIE_MR_ODP &&
	     (flags & (IB_MR_REREG_TRANS | IB_MR_REREG_ACCESS))) ||
	    ((flags & IB_MR_REREG_ACCESS) && (access & IB_ACCESS_ON_DEMAND)))
		return ERR_PTR(-EOPNOTSUPP);

	/* uverbs holds the MR exclusively: nothing else rewrites these. */
	if (flags & IB_MR_REREG_ACCESS) {
		err = wookie_mr_access(access);
		if (err < 0)
			return ERR_PTR(err);
		access = err;
	} else {
		access = mr->access;
	}
	if (flags & IB_MR_REREG_TRANS) {
		err = wookie_check_user_range(start, length, iova);
		if (err)
			return ERR_PTR(err);
	} else {
		start = mr->umem->address;
		length = mr->length;
		iova = mr->iova;
	}
	if (!(flags & IB_MR_REREG_PD))
		ibpd = mr->ibmr.pd;

	/* Pages pinned read-only cannot become writable: pin again. */
	repin = (flags & IB_MR_REREG_TRANS) ||
		(ib_access_writable(access) && !mr->umem->writable);
	if (repin) {
		err = wookie_pin(wdev, start, length, access, &umem, &pages,
				 &num_pages);
		if (err)
			return ERR_PTR(err);
	}

	err = wookie_mr_quiesce(wdev, mr, false);
	if (err) {
		if (repin) {
			kvfree(pages);
			ib_umem_release(umem);
		}
		return ERR_PTR(err);
	}

	old_umem = mr->umem;
	old_pages = mr->pages;
	mr->access = access;
	mr->iova = iova;
	mr->length = length;
	/* Else as they were: an implicit MR's length is not mr->length. */
	if (flags & IB_MR_REREG_TRANS) {
		mr->ibmr.iova = iova;
		mr->ibmr.length = length;
	}
	WRITE_ONCE(mr->ibmr.pd, ibpd);
	refcount_set(&mr->refcount, 1);
	reinit_completion(&mr->released);
	spin_lock_irqsave(&mr->lock, irqflags);
	if (repin) {
		mr->umem = umem;
		mr->pages = pages;
		mr->num_pages = num_pages;
		mr->max_pages = num_pages;
		mr->page_offset = ib_umem_offset(umem);
	}
	mr->state = WOOKIE_KEY_VALID;
	spin_unlock_irqrestore(&mr->lock, irqflags);
	wookie_key_publish(wdev, to_mr_priv(mr)->key, mr, WOOKIE_KEY_TAG_MR);

	if (repin) {
		kvfree(old_pages);
		ib_umem_release(old_umem);
	}
	return NULL;
}

int wookie_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct wookie_dev *wdev = to_wookie_dev(ibmr->device);
	struct wookie_mr *mr = to_wookie_mr(ibmr);
	int err;

	err = wookie_mr_quiesce(wdev, mr, true);
	if (err)
		return err;

	if (mr->umem)
		wookie_mr_unpin(wdev, mr);
	if (mr->kind == WOOKIE_MR_DM) {
		kvfree(mr->pages);
		wookie_dm_put(mr->dm_entry);
	}
	if (mr->kind == WOOKIE_MR_DMABUF)
		wookie_dmabuf_unmap(mr);
	kvfree(mr->page_addrs);
	atomic_dec(&wdev->num_mr);
	/* Lookups that read the entry before the erase may still look. */
	kfree_rcu_mightsleep(to_mr_priv(mr));
	return 0;
}

struct ib_mr *wookie_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			      u32 max_num_sg)
{
	struct wookie_dev *wdev = to_wookie_dev(ibpd->device);
	struct wookie_mr_priv *priv;
	struct wookie_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG || !max_num_sg ||
	    max_num_sg > WOOKIE_MAX_FAST_REG_PAGES)
		return ERR_PTR(-EINVAL);

	priv = wookie_mr_alloc(wdev, ibpd, WOOKIE_MR_FAST, GFP_KERNEL);
	if (IS_ERR(priv))
		return ERR_CAST(priv);
	mr = &priv->mr;
	mr->page_addrs = kcalloc(max_num_sg, sizeof(*mr->page_addrs),
				 GFP_KERNEL);
	if (!mr->page_addrs) {
		err = -ENOMEM;
		goto err_free;
	}
	mr->max_pages = max_num_sg;
	err = wookie_mr_publish(wdev, priv, WOOKIE_KEY_FREE);
	if (err)
		goto err_free;
	return &mr->ibmr;

err_free:
	wookie_mr_free_unpublished(wdev, priv);
	return ERR_PTR(err);
}

/* Called by ib_sg_to_pages() with mr->lock held. */
static int wookie_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct wookie_mr *mr = to_wookie_mr(ibmr);

	if (mr->num_pages >= mr->max_pages)
		return -ENOMEM;
	/* Virtual DMA: the "DMA address" is a kernel virtual address. */
	mr->page_addrs[mr->num_pages++] = addr;
	return 0;
}

int wookie_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		     unsigned int *sg_offset)
{
	struct wookie_mr *mr = to_wookie_mr(ibmr);
	unsigned int page_shift;
	unsigned long flags;
	int n;

	if (mr->kind != WOOKIE_MR_FAST || !is_power_of_2(ibmr->page_size) ||
	    ibmr->page_size < SZ_512)
		return -EINVAL;
	page_shift = ilog2(ibmr->page_size);

	spin_lock_irqsave(&mr->lock, flags);
	/*
	 * A consumer may map the next pages while the MR is still valid
	 * (iSER chains LOCAL_INV and REG_MR).  A copy through the old key
	 * then reads addresses of the new list, still the consumer's; a
	 * different page size would make it read past them.
	 */
	if (mr->state == WOOKIE_KEY_VALID && page_shift != mr->page_shift) {
		spin_unlock_irqrestore(&mr->lock, flags);
		return -EBUSY;
	}
	mr->num_pages = 0;
	mr->page_shift = page_shift;
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, wookie_set_page);
	mr->page_offset = ibmr->iova & (ibmr->page_size - 1);
	spin_unlock_irqrestore(&mr->lock, flags);
	return n;
}

int wookie_fast_reg_mr(struct wookie_qp *qp, const struct wookie_sqe *wqe)
{
	struct wookie_dev *wdev = to_wookie_dev(qp->ibqp.device);
	u32 key = wqe->reg.key;
	int access = wqe->reg.access;
	struct wookie_mr_priv *priv;
	struct wookie_mr *mr;
	unsigned long flags;
	u64 iova, length, covered, end, used;
	int status = IB_WC_MW_BIND_ERR;

	/* By index: the consumer already changed the key part in ibmr. */
	if (wookie_key_index(wqe->reg.lkey) != wookie_key_index(key))
		return IB_WC_MW_BIND_ERR;
	mr = wookie_mr_lookup(wdev, key);
	if (!mr)
		return IB_WC_MW_BIND_ERR;
	priv = to_mr_priv(mr);

	access = wookie_mr_access(access);

	spin_lock_irqsave(&mr->lock, flags);
	if (mr->kind != WOOKIE_MR_FAST ||
	    (mr->state != WOOKIE_KEY_FREE && mr->state != WOOKIE_KEY_VALID))
		goto out_unlock;
	if (READ_ONCE(mr->ibmr.pd) != qp->ibqp.pd) {
		status = IB_WC_LOC_PROT_ERR;
		goto out_unlock;
	}
	/* Windows bound to it rely on the current mapping. */
	if (access < 0 || atomic_read(&mr->num_mw))
		goto out_unlock;
	/* Set by map_mr_sg; the pages must cover the whole range. */
	iova = READ_ONCE(mr->ibmr.iova);
	length = READ_ONCE(mr->ibmr.length);
	covered = (u64)mr->num_pages << mr->page_shift;
	if (check_add_overflow(iova, length, &end) ||
	    check_add_overflow(length, (u64)mr->page_offset, &used) ||
	    used > covered)
		goto out_unlock;

	mr->iova = iova;
	mr->length = length;
	mr->access = access;
	priv->key = key;
	mr->state = WOOKIE_KEY_VALID;
	status = IB_WC_SUCCESS;
out_unlock:
	spin_unlock_irqrestore(&mr->lock, flags);
	wookie_mr_put(mr);
	return status;
}

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
static struct wookie_mr *wookie_mw_unbind_locked(struct wookie_mw *mw)
{
	struct wookie_mr *mr = mw->mr;

	mw->mr = NULL;
	mw->qp_num = 0;
	mw->access = 0;
	mw->addr = 0;
	mw->length = 0;
	return mr;
}

static void wookie_mw_release_mr(struct wookie_mr *mr)
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

/*
 * LOCAL_INV and SEND_WITH_INV: fast MRs and type 2 windows, matched by
 * the full key and @pd (the QP's, or an XRC target's SRQ's).  Invalidating
 * what is already free is allowed.  @remote: a type 2 window only through
 * the QP it is bound to.
 */
static int wookie_invalidate(struct wookie_qp *qp, struct ib_pd *pd, u32 key,
			     bool remote)
{
	struct wookie_dev *wdev = to_wookie_dev(qp->ibqp.device);
	struct wookie_mr *mr, *old_mr = NULL;
	struct wookie_mw *mw;
	unsigned long flags;
	unsigned long tag;
	int err = -EINVAL;
	void *obj;

	obj = wookie_key_get(wdev, key, &tag);
	if (!obj)
		return -EINVAL;

	if (tag == WOOKIE_KEY_TAG_MR) {
		mr = obj;
		spin_lock_irqsave(&mr->lock, flags);
		if (mr->kind == WOOKIE_MR_FAST &&
		    mr->state != WOOKIE_KEY_INVALID &&
		    to_mr_priv(mr)->key == key &&
		    READ_ONCE(mr->ibmr.pd) == pd &&
		    !atomic_read(&mr->num_mw)) {
			mr->state = WOOKIE_KEY_FREE;
			err = 0;
		}
		spin_unlock_irqrestore(&mr->lock, flags);
		wookie_mr_put(mr);
		return err;
	}

	mw = obj;
	spin_lock_irqsave(&mw->lock, flags);
	/* o10-37.2.26: type 1 windows are unbound by a zero-length bind. */
	if (mw->ibmw.type == IB_MW_TYPE_2 &&
	    mw->state != WOOKIE_KEY_INVALID &&
	    mw->ibmw.rkey == key && mw->ibmw.pd == pd &&
	    (!remote || mw->state != WOOKIE_KEY_VALID ||
	     mw->qp_num == qp->ibqp.qp_num)) {
		old_mr = wookie_mw_unbind_locked(mw);
		mw->state = WOOKIE_KEY_FREE;
		err = 0;
	}
	spin_unlock_irqrestore(&mw->lock, flags);
	wookie_mw_release_mr(old_mr);
	wookie_mw_put(mw);
	return err;
}

/* As rxe: a failed LOCAL_INV is a local QP operation error. */
int wookie_local_invalidate(struct wookie_qp *qp, u32 key)
{
	return wookie_invalidate(qp, qp->ibqp.pd, key, false) ?
	       IB_WC_LOC_QP_OP_ERR : IB_WC_SUCCESS;
}

/* As rxe: the responder completes with a remote invalid request error. */
int wookie_remote_invalidate(struct wookie_qp *qp, struct ib_pd *pd, u32 rkey)
{
	return wookie_invalidate(qp, pd, rkey, true) ? IB_WC_REM_INV_REQ_ERR :
						       IB_WC_SUCCESS;
}

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
