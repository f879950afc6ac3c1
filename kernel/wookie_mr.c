// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory regions: registration (DMA, user, on-demand paging, dma-buf,
 * device memory), rereg and dereg, fast registration (alloc_mr,
 * map_mr_sg and an SQ's REG_MR) and invalidation (LOCAL_INV and
 * SEND_WITH_INV, of fast MRs and type 2 windows); and the key table
 * that memory windows (wookie_mw.c) share and the engine looks keys up
 * in (wookie_mr_priv.h says how).  Checking a key for a use, and the
 * copies and atomics on registered memory, are wookie_mem.c's.
 */
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "wookie.h"
#include "wookie_mr_priv.h"

/* Hint for xa_alloc_cyclic(), shared by all devices: only a hint. */
static u32 wookie_key_hint;

/*
 * Reserve a key index (the entry reads as NULL until published) and pick
 * a random key part.
 */
int wookie_key_reserve(struct wookie_dev *wdev, u32 *key)
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

/*
 * The object at @key's index with a reference, or NULL.  Only the index
 * is matched here; callers check the key part under the object's lock.
 */
void *wookie_key_get(struct wookie_dev *wdev, u32 key, unsigned long *tag)
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

struct wookie_mr *wookie_mr_lookup(struct wookie_dev *wdev, u32 key)
{
	unsigned long tag;
	void *obj = wookie_key_get(wdev, key, &tag);

	if (obj && tag != WOOKIE_KEY_TAG_MR) {
		wookie_mw_put(obj);
		return NULL;
	}
	return obj;
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
