/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What wookie_mr.c (keys and memory regions), wookie_mw.c (memory
 * windows) and wookie_mem.c (keys checked for a use, copies, atomics)
 * share, and no other file needs: the key format and the helpers of
 * the key table, the key an MR honours, and what MRs and windows may
 * grant.
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
#ifndef WOOKIE_MR_PRIV_H
#define WOOKIE_MR_PRIV_H

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
 * Every MR is allocated by wookie_mr_alloc(), so it can carry what the
 * shared struct does not: the key the device honours.  A kernel consumer
 * changes ibmr.lkey and ibmr.rkey (ib_update_fast_reg_key) before it posts
 * the REG_MR that makes the new key valid, often behind a LOCAL_INV of the
 * old key in the same chain, so ibmr's keys run ahead of the device.
 */
struct wookie_mr_priv {
	struct wookie_mr mr;
	/* Under mr.lock; the index part never changes. */
	u32 key;
};

static inline struct wookie_mr_priv *to_mr_priv(struct wookie_mr *mr)
{
	return container_of(mr, struct wookie_mr_priv, mr);
}

static inline u32 wookie_key_index(u32 key)
{
	return key >> 8;
}

/* Storing into a reserved slot allocates nothing, so it cannot fail. */
static inline void wookie_key_publish(struct wookie_dev *wdev, u32 key,
				      void *obj, unsigned long tag)
{
	xa_store_irq(&wdev->keys, wookie_key_index(key),
		     xa_tag_pointer(obj, tag), GFP_KERNEL);
}

static inline void wookie_mw_put(struct wookie_mw *mw)
{
	if (refcount_dec_and_test(&mw->refcount))
		complete(&mw->released);
}

/* [va, va + len) inside [start, start + length), without overflow. */
static inline bool wookie_in_range(u64 va, u64 len, u64 start, u64 length)
{
	u64 off;

	if (va < start)
		return false;
	off = va - start;
	return off <= length && len <= length - off;
}

/* wookie_mr.c */
int wookie_key_reserve(struct wookie_dev *wdev, u32 *key);
void *wookie_key_get(struct wookie_dev *wdev, u32 key, unsigned long *tag);
struct wookie_mr *wookie_mr_lookup(struct wookie_dev *wdev, u32 key);

/* wookie_mw.c */
struct wookie_mr *wookie_mw_unbind_locked(struct wookie_mw *mw);
void wookie_mw_release_mr(struct wookie_mr *mr);

#endif /* WOOKIE_MR_PRIV_H */
