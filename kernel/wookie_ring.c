// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Ring memory.  A user ring is zeroed vmalloc memory, charged to the
 * creating process (wookie_mmap_alloc()), owned by an mmap
 * entry of the creating context, so it outlives the queue for as long as
 * user space keeps it mapped; a kernel consumer's ring is plain vzalloc()
 * memory.  Both start with struct wookie_ring_hdr.
 */
#include <linux/error-injection.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "wookie.h"

noinline int wookie_ring_alloc(struct wookie_ring *ring,
			       struct ib_udata *udata, u32 num_entries,
			       u32 stride)
{
	struct wookie_ucontext *uc;
	size_t bytes;
	void *start;

	memset(ring, 0, sizeof(*ring));
	if (!num_entries || num_entries > WOOKIE_MAX_RING_ENTRIES ||
	    !is_power_of_2(num_entries) || !stride)
		return -EINVAL;
	bytes = wookie_ring_bytes(num_entries, stride);
	/* wookie_ring_info.map_size is 32 bits. */
	if (PAGE_ALIGN(bytes) > U32_MAX)
		return -EINVAL;

	if (udata) {
		uc = rdma_udata_to_drv_context(udata, struct wookie_ucontext,
					       ibuc);
		if (!uc)
			return -EINVAL;
		start = wookie_mmap_alloc(&uc->ibuc, bytes, true,
					  WOOKIE_GFP_UOBJ, &ring->mmap_entry);
	} else {
		start = vzalloc(bytes);
	}
	if (!start)
		return -ENOMEM;

	ring->hdr = start;
	ring->slots = start + WOOKIE_RING_HDR_SIZE;
	ring->num_entries = num_entries;
	ring->stride = stride;
	ring->bytes = bytes;
	return 0;
}

/* tests/vm/faults.sh fails it: the verb creating the queue fails. */
ALLOW_ERROR_INJECTION(wookie_ring_alloc, ERRNO);

/*
 * A user ring is only unpublished here: its memory goes with the last
 * mapping.  Either way the kernel must not touch the ring afterwards.
 */
void wookie_ring_free(struct wookie_ring *ring)
{
	if (!ring->hdr)
		return;
	if (ring->mmap_entry)
		rdma_user_mmap_entry_remove(ring->mmap_entry);
	else
		vfree(ring->hdr);
	memset(ring, 0, sizeof(*ring));
}

void wookie_ring_info(const struct wookie_ring *ring,
		      struct wookie_ring_info *info)
{
	memset(info, 0, sizeof(*info));
	if (ring->mmap_entry)
		info->key = rdma_user_mmap_get_offset(ring->mmap_entry);
	/* The mapping covers whole pages, as the entry was inserted. */
	info->map_size = PAGE_ALIGN(ring->bytes);
	info->num_entries = ring->num_entries;
	info->stride = ring->stride;
}

void wookie_word_update(u32 *word, u32 set, u32 clear)
{
	u32 old = READ_ONCE(*word);
	int i;

	for (i = 0; i < WOOKIE_CMPXCHG_TRIES; i++) {
		u32 seen = cmpxchg(word, old, (old | set) & ~clear);

		if (seen == old)
			return;
		old = seen;
	}
}

void wookie_ring_set_flags(struct wookie_ring *ring, u32 set, u32 clear)
{
	if (ring->hdr)
		wookie_word_update(&ring->hdr->flags, set, clear);
}
