// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory shared with user space: rings and the doorbell page are zeroed
 * vmalloc memory published as rdma_user_mmap entries; the provider maps
 * them with the key (mmap offset) the kernel hands out.  A ring is
 * charged to the creating process's memory cgroup, which vmalloc_user()
 * cannot do, so the mapping is made page by page here, as
 * remap_vmalloc_range() would.
 */
#include <linux/error-injection.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <rdma/ib_verbs.h>

#include "wookie.h"

/*
 * Allocate zeroed, page-rounded memory that user space of @ibuc may map.
 * The entry owns the memory and frees it when the context removes the
 * entry (no mapping holds the entry); a page still mapped then stays, as
 * the mapping holds a reference to each page (wookie_mmap_pages()), and
 * goes with the last mapping.
 */
void *wookie_mmap_alloc(struct ib_ucontext *ibuc, size_t size, bool writable,
			gfp_t gfp, struct rdma_user_mmap_entry **entry)
{
	struct wookie_mmap_entry *me;
	int err;

	size = PAGE_ALIGN(size);
	me = kzalloc(sizeof(*me), gfp);
	if (!me)
		return NULL;
	me->vaddr = __vmalloc(size, gfp | __GFP_ZERO);
	if (!me->vaddr)
		goto err_free;
	me->writable = writable;

	err = rdma_user_mmap_entry_insert(ibuc, &me->rdma, size);
	if (err)
		goto err_vfree;
	*entry = &me->rdma;
	return me->vaddr;

err_vfree:
	vfree(me->vaddr);
err_free:
	kfree(me);
	return NULL;
}

/*
 * The provider maps what a create verb returns, and mmap() charges the
 * mapping (its VMA, page tables) to the process's memory cgroup with
 * plain GFP_KERNEL, which at the cgroup's limit wakes its OOM killer.
 * So a verb answers only when this much of the limit is still free:
 * at the limit the verb fails with ENOMEM, and after a success the
 * mappings fit (for a single thread of the cgroup; threads racing to its
 * limit may still meet the OOM killer in mmap()).
 */
#define WOOKIE_MMAP_HEADROOM (16 * PAGE_SIZE)

noinline int wookie_mmap_headroom(void)
{
	void *probe;

	probe = __vmalloc(WOOKIE_MMAP_HEADROOM, WOOKIE_GFP_UOBJ);
	if (!probe)
		return -ENOMEM;
	vfree(probe);
	return 0;
}

/* tests/vm/faults.sh fails it: the verb undoes all it did. */
ALLOW_ERROR_INJECTION(wookie_mmap_headroom, ERRNO);

int wookie_mmap_resp(struct ib_udata *udata, void *resp, size_t len)
{
	int err = wookie_mmap_headroom();

	return err ?: ib_copy_to_udata(udata, resp, len);
}

/*
 * kvzalloc() for what user space asks for (charged, ENOMEM at the memory
 * cgroup's limit).  kvmalloc() with __GFP_RETRY_MAYFAIL would try hard
 * (reclaim, compaction) for contiguous memory before its vmalloc
 * fallback; this tries once, cheaply, then takes vmalloc memory.  Freed
 * with kvfree().
 */
noinline void *wookie_kvzalloc_uobj(size_t size)
{
	void *p;

	if (size <= PAGE_SIZE)
		return kzalloc(size, WOOKIE_GFP_UOBJ);
	p = kzalloc(size, GFP_KERNEL_ACCOUNT | __GFP_NORETRY | __GFP_NOWARN);
	return p ?: __vmalloc(size, WOOKIE_GFP_UOBJ | __GFP_ZERO);
}

/* tests/vm/faults.sh fails it: a QP or MR is not created. */
ALLOW_ERROR_INJECTION(wookie_kvzalloc_uobj, NULL);

/* The VMA is exactly the entry's length (rdma_user_mmap_entry_get()). */
static int wookie_mmap_pages(struct vm_area_struct *vma, void *vaddr)
{
	unsigned long uaddr;
	int err;

	for (uaddr = vma->vm_start; uaddr < vma->vm_end;
	     uaddr += PAGE_SIZE, vaddr += PAGE_SIZE) {
		err = vm_insert_page(vma, uaddr, vmalloc_to_page(vaddr));
		if (err)
			return err;
	}
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	return 0;
}

int wookie_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma;
	struct wookie_mmap_entry *me;
	int err;

	/* Checks VM_SHARED, the key and that the length is the entry's. */
	rdma = rdma_user_mmap_entry_get(ibuc, vma);
	if (!rdma)
		return -EINVAL;
	me = to_wookie_mmap_entry(rdma);

	if (!me->writable) {
		if (vma->vm_flags & VM_WRITE) {
			err = -EPERM;
			goto out;
		}
		/* Nor may mprotect() make it writable later. */
		vm_flags_clear(vma, VM_MAYWRITE);
	}
	err = wookie_mmap_pages(vma, me->vaddr);
out:
	rdma_user_mmap_entry_put(rdma);
	return err;
}

void wookie_mmap_free(struct rdma_user_mmap_entry *rdma)
{
	struct wookie_mmap_entry *me = to_wookie_mmap_entry(rdma);

	vfree(me->vaddr);
	kfree(me);
}
