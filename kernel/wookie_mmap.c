// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory shared with user space: rings and the doorbell page are
 * vmalloc_user() memory published as rdma_user_mmap entries; the provider
 * maps them with the key (mmap offset) the kernel hands out.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "wookie.h"

/*
 * Allocate zeroed, page-rounded memory that user space of @ibuc may map.
 * The entry owns the memory: it stays valid until the context removes the
 * entry and the last mapping of it is gone.
 */
void *wookie_mmap_alloc(struct ib_ucontext *ibuc, size_t size, bool writable,
			struct rdma_user_mmap_entry **entry)
{
	struct wookie_mmap_entry *me;
	int err;

	size = PAGE_ALIGN(size);
	me = kzalloc(sizeof(*me), GFP_KERNEL);
	if (!me)
		return NULL;
	me->vaddr = vmalloc_user(size);
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
	err = remap_vmalloc_range(vma, me->vaddr, 0);
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
