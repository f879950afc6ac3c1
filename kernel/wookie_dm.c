// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device memory (ibv_alloc_dm).  A soft device has no memory of its own:
 * a DM is zeroed kernel memory charged to the process's memory cgroup,
 * owned by an rdma_user_mmap entry that the provider maps read-write, so
 * that ibv_memcpy_to_dm() and ibv_memcpy_from_dm() are plain copies in
 * user space.  MRs on it (wookie_reg_dm_mr()) reach the same pages and
 * keep the entry, hence the memory, until they are deregistered.
 *
 * ib_core's DM_ALLOC carries no driver data: the mmap key goes back in
 * the driver attribute WOOKIE_ATTR_ALLOC_DM_RESP.  A process that shares
 * the uverbs file (ibv_import_dm()) asks for it again with the driver
 * method WOOKIE_METHOD_DM_QUERY.
 */
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#define UVERBS_MODULE_NAME wookie_ib
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/uverbs_std_types.h>

#include "wookie.h"

struct wookie_dm {
	struct ib_dm ibdm;
	struct wookie_ucontext *uc;
	struct rdma_user_mmap_entry *entry;
	void *vaddr;
	/* The length asked for, and what is mapped (whole pages). */
	u64 length;
	u64 size;
};

static struct wookie_dm *to_wookie_dm(struct ib_dm *ibdm)
{
	return container_of(ibdm, struct wookie_dm, ibdm);
}

struct ib_dm *wookie_alloc_dm(struct ib_device *ibdev,
			      struct ib_ucontext *ibuc,
			      struct ib_dm_alloc_attr *attr,
			      struct uverbs_attr_bundle *attrs)
{
	struct wookie_ucontext *uc = to_wookie_uc(ibuc);
	struct wookie_alloc_dm_resp resp = {};
	struct wookie_dm *dm;
	int err;

	/* ib_dm's length is 32 bits: checked before ib_core truncates it. */
	if (!attr->length || attr->length > WOOKIE_MAX_DM_SIZE ||
	    attr->alignment > PAGE_SHIFT || attr->flags)
		return ERR_PTR(-EINVAL);
	dm = kzalloc(sizeof(*dm), WOOKIE_GFP_UOBJ);
	if (!dm)
		return ERR_PTR(-ENOMEM);
	dm->uc = uc;
	dm->length = attr->length;
	dm->size = PAGE_ALIGN(attr->length);
	if (atomic64_add_return(dm->size, &uc->dm_bytes) >
	    WOOKIE_MAX_DM_PER_CONTEXT) {
		err = -ENOMEM;
		goto err_count;
	}
	dm->vaddr = wookie_mmap_alloc(ibuc, dm->size, true, WOOKIE_GFP_UOBJ,
				      &dm->entry);
	if (!dm->vaddr) {
		err = -ENOMEM;
		goto err_count;
	}
	resp.key = rdma_user_mmap_get_offset(dm->entry);
	resp.map_size = dm->size;
	err = wookie_mmap_headroom() ?:
	      uverbs_copy_to(attrs, WOOKIE_ATTR_ALLOC_DM_RESP, &resp,
			     sizeof(resp));
	if (err)
		goto err_entry;
	return &dm->ibdm;

err_entry:
	rdma_user_mmap_entry_remove(dm->entry);
err_count:
	atomic64_sub(dm->size, &uc->dm_bytes);
	kfree(dm);
	return ERR_PTR(err);
}

/* ib_core refuses while an MR is on it (dm->usecnt). */
int wookie_dealloc_dm(struct ib_dm *ibdm, struct uverbs_attr_bundle *attrs)
{
	struct wookie_dm *dm = to_wookie_dm(ibdm);

	/*
	 * The memory goes with the entry's last reference (an MR's keeps it);
	 * pages still mapped stay with their mappings, charged to the memory
	 * cgroup but no longer to the context's DM limit.
	 */
	rdma_user_mmap_entry_remove(dm->entry);
	atomic64_sub(dm->size, &dm->uc->dm_bytes);
	kfree(dm);
	return 0;
}

/*
 * The pages of [offset, offset + length) of a DM for an MR on it, and a
 * reference to the entry that owns them (wookie_dm_put()); ib_core
 * checked the range against the DM's length.
 */
int wookie_dm_get(struct ib_dm *ibdm, u64 offset, u64 length,
		  struct page ***pagesp, unsigned int *num_pagesp,
		  struct rdma_user_mmap_entry **entryp)
{
	struct wookie_dm *dm = to_wookie_dm(ibdm);
	unsigned int i, num;
	struct page **pages;
	void *p;

	if (offset > dm->length || length > dm->length - offset)
		return -EINVAL;
	num = (PAGE_ALIGN(offset + length) - round_down(offset, PAGE_SIZE)) >>
	      PAGE_SHIFT;
	pages = wookie_kvzalloc_uobj(array_size(max(num, 1U), sizeof(*pages)));
	if (!pages)
		return -ENOMEM;
	p = dm->vaddr + round_down(offset, PAGE_SIZE);
	for (i = 0; i < num; i++, p += PAGE_SIZE)
		pages[i] = vmalloc_to_page(p);
	kref_get(&dm->entry->ref);
	*pagesp = pages;
	*num_pagesp = num;
	*entryp = dm->entry;
	return 0;
}

void wookie_dm_put(struct rdma_user_mmap_entry *entry)
{
	rdma_user_mmap_entry_put(entry);
}

static int UVERBS_HANDLER(WOOKIE_METHOD_DM_QUERY)(struct uverbs_attr_bundle *attrs)
{
	struct ib_dm *ibdm = uverbs_attr_get_obj(attrs,
						 WOOKIE_ATTR_QUERY_DM_HANDLE);
	struct wookie_query_dm_resp resp = {};
	struct wookie_dm *dm;

	if (IS_ERR(ibdm))
		return PTR_ERR(ibdm);
	dm = to_wookie_dm(ibdm);
	resp.key = rdma_user_mmap_get_offset(dm->entry);
	resp.map_size = dm->size;
	resp.length = dm->length;
	return uverbs_copy_to_struct_or_zero(attrs, WOOKIE_ATTR_QUERY_DM_RESP,
					     &resp, sizeof(resp));
}

DECLARE_UVERBS_NAMED_METHOD(WOOKIE_METHOD_DM_QUERY,
			    UVERBS_ATTR_IDR(WOOKIE_ATTR_QUERY_DM_HANDLE,
					    UVERBS_OBJECT_DM,
					    UVERBS_ACCESS_READ, UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(WOOKIE_ATTR_QUERY_DM_RESP,
						UVERBS_ATTR_STRUCT(struct wookie_query_dm_resp,
								   length),
						UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_DM,
			      &UVERBS_METHOD(WOOKIE_METHOD_DM_QUERY));

ADD_UVERBS_ATTRIBUTES_SIMPLE(wookie_dm_alloc, UVERBS_OBJECT_DM,
			     UVERBS_METHOD_DM_ALLOC,
			     UVERBS_ATTR_PTR_OUT(WOOKIE_ATTR_ALLOC_DM_RESP,
						 UVERBS_ATTR_STRUCT(struct wookie_alloc_dm_resp,
								    map_size),
						 UA_MANDATORY));

const struct uapi_definition wookie_dm_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DM, &wookie_dm_alloc),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_DM),
	{},
};
