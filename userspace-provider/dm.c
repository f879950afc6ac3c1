// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * wookie: device memory.  The kernel allocates it and answers with an
 * mmap key (struct wookie_alloc_dm_resp, a driver attribute of the
 * DM_ALLOC ioctl); it is mapped here, and ibv_memcpy_to_dm() and
 * ibv_memcpy_from_dm() copy with no system call.  Offsets and lengths of
 * copies are multiples of WOOKIE_DM_ALIGN inside the length asked for,
 * as on the NICs applications are written for.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <infiniband/cmd_ioctl.h>

#include "wookie.h"

struct wookie_dm {
	struct verbs_dm vdm;
	void *addr;
	size_t map_size;
	uint64_t length;
};

static struct wookie_dm *to_wdm(struct ibv_dm *ibdm)
{
	return container_of(ibdm, struct wookie_dm, vdm.dm);
}

static int wookie_dm_check(struct wookie_dm *dm, uint64_t offset,
			   size_t length)
{
	if (offset % WOOKIE_DM_ALIGN || length % WOOKIE_DM_ALIGN)
		return EINVAL;
	if (offset > dm->length || length > dm->length - offset)
		return EFAULT;
	return 0;
}

static int wookie_memcpy_to_dm(struct ibv_dm *ibdm, uint64_t dm_offset,
			       const void *host_addr, size_t length)
{
	struct wookie_dm *dm = to_wdm(ibdm);
	int ret = wookie_dm_check(dm, dm_offset, length);

	if (!ret)
		memcpy((char *)dm->addr + dm_offset, host_addr, length);
	return ret;
}

static int wookie_memcpy_from_dm(void *host_addr, struct ibv_dm *ibdm,
				 uint64_t dm_offset, size_t length)
{
	struct wookie_dm *dm = to_wdm(ibdm);
	int ret = wookie_dm_check(dm, dm_offset, length);

	if (!ret)
		memcpy(host_addr, (char *)dm->addr + dm_offset, length);
	return ret;
}

/* A DM's record, if the kernel offers device memory. */
static struct wookie_dm *wookie_dm_new(struct ibv_context *ibctx)
{
	struct wookie_dm *dm;

	if (!(to_wctx(ibctx)->caps & WOOKIE_CAP_DM)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	dm = calloc(1, sizeof(*dm));
	if (!dm)
		errno = ENOMEM;
	return dm;
}

/*
 * Map what the kernel answered for a DM (allocated or imported) and fill
 * its record; an errno if the answer does not hold its length or the
 * mapping fails.
 */
static int wookie_dm_map(struct wookie_dm *dm, struct ibv_context *ibctx,
			 uint32_t handle, uint64_t key, uint64_t map_size,
			 uint64_t length)
{
	void *addr;

	if (map_size < length) {
		verbs_err(verbs_get_ctx(ibctx),
			  "device memory of %llu bytes mapped in %llu\n",
			  (unsigned long long)length,
			  (unsigned long long)map_size);
		return EPROTO;
	}
	addr = mmap(NULL, map_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    ibctx->cmd_fd, key);
	if (addr == MAP_FAILED)
		return errno;
	dm->addr = addr;
	dm->map_size = map_size;
	dm->length = length;
	dm->vdm.handle = handle;
	dm->vdm.dm.handle = handle;
	dm->vdm.dm.comp_mask = IBV_DM_MASK_HANDLE;
	dm->vdm.dm.context = ibctx;
	dm->vdm.dm.memcpy_to_dm = wookie_memcpy_to_dm;
	dm->vdm.dm.memcpy_from_dm = wookie_memcpy_from_dm;
	return 0;
}

struct ibv_dm *wookie_alloc_dm(struct ibv_context *ibctx,
			       struct ibv_alloc_dm_attr *attr)
{
	DECLARE_COMMAND_BUFFER(cmdb, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC,
			       1);
	struct wookie_alloc_dm_resp resp = {};
	struct wookie_dm *dm;
	int ret;

	if (attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	dm = wookie_dm_new(ibctx);
	if (!dm)
		return NULL;
	fill_attr_out(cmdb, WOOKIE_ATTR_ALLOC_DM_RESP, &resp, sizeof(resp));
	ret = ibv_cmd_alloc_dm(ibctx, attr, &dm->vdm, cmdb);
	if (ret) {
		free(dm);
		errno = ret;
		return NULL;
	}
	ret = wookie_dm_map(dm, ibctx, dm->vdm.handle, resp.key, resp.map_size,
			    attr->length);
	if (ret)
		goto err_free;
	return &dm->vdm.dm;

err_free:
	ibv_cmd_free_dm(&dm->vdm);
	free(dm);
	errno = ret;
	return NULL;
}

/* A DM another context's owner shares through the uverbs file. */
struct ibv_dm *wookie_import_dm(struct ibv_context *ibctx, uint32_t handle)
{
	DECLARE_COMMAND_BUFFER(cmdb, UVERBS_OBJECT_DM, WOOKIE_METHOD_DM_QUERY,
			       2);
	struct wookie_query_dm_resp resp = {};
	struct wookie_dm *dm;
	int ret;

	dm = wookie_dm_new(ibctx);
	if (!dm)
		return NULL;
	fill_attr_in_obj(cmdb, WOOKIE_ATTR_QUERY_DM_HANDLE, handle);
	fill_attr_out(cmdb, WOOKIE_ATTR_QUERY_DM_RESP, &resp, sizeof(resp));
	ret = execute_ioctl(ibctx, cmdb) ?:
	      wookie_dm_map(dm, ibctx, handle, resp.key, resp.map_size,
			    resp.length);
	if (ret)
		goto err_free;
	return &dm->vdm.dm;

err_free:
	free(dm);
	errno = ret;
	return NULL;
}

/* Only this process's mapping and record go: the DM stays the kernel's. */
void wookie_unimport_dm(struct ibv_dm *ibdm)
{
	struct wookie_dm *dm = to_wdm(ibdm);

	munmap(dm->addr, dm->map_size);
	free(dm);
}

int wookie_free_dm(struct ibv_dm *ibdm)
{
	struct wookie_dm *dm = to_wdm(ibdm);
	int ret;

	/* EBUSY while an MR is on it: then it stays mapped and usable. */
	ret = ibv_cmd_free_dm(&dm->vdm);
	if (ret)
		return ret;
	munmap(dm->addr, dm->map_size);
	free(dm);
	return 0;
}

struct ibv_mr *wookie_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *ibdm,
				uint64_t dm_offset, size_t length,
				unsigned int access)
{
	struct verbs_mr *vmr;
	int ret;

	vmr = wookie_mr_new();
	if (!vmr)
		return NULL;
	ret = ibv_cmd_reg_dm_mr(pd, &to_wdm(ibdm)->vdm, dm_offset, length,
				access, vmr, NULL);
	return wookie_mr_done(pd, vmr, ret);
}
