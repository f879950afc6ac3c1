// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Command-channel verbs: what user space and kernel consumers create
 * through ib_core.  Every attribute from user space is checked here before
 * anything is allocated.
 */
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <rdma/uverbs_ioctl.h>

#define UVERBS_MODULE_NAME wookie_ib
#include <rdma/uverbs_named_ioctl.h>

#include "wookie.h"

/*
 * When alloc_ucontext fails, ib_core's ioctl GET_CONTEXT (6.1 and 6.12)
 * frees the context without dropping the task reference its resource
 * tracking took, leaking the task; the write path drops it through the
 * entry's kref.  Dropping it here and clearing the pointer is right for
 * both (and for an ib_core that drops it itself): restrack's release puts
 * only a task still there.  The entry was never added, so nothing else
 * looks at it.
 */
static void wookie_ucontext_drop_task(struct ib_ucontext *ibuc)
{
	struct task_struct *task = ibuc->res.task;

	if (task && !ibuc->res.valid) {
		ibuc->res.task = NULL;
		put_task_struct(task);
	}
}

/* What a context's provider learns of it, at creation or on import. */
static void wookie_ucontext_resp(struct wookie_ucontext *uc,
				 struct wookie_alloc_ucontext_resp *resp)
{
	resp->abi_version = WOOKIE_ABI_VERSION;
	resp->db_page_size = PAGE_SIZE;
	resp->db_page_key = rdma_user_mmap_get_offset(uc->db_entry);
	resp->caps = WOOKIE_CAP_DM | WOOKIE_CAP_ATOMIC_WRITE_FLUSH;
}

static int wookie_init_ucontext(struct ib_ucontext *ibuc,
				struct ib_udata *udata)
{
	struct wookie_dev *wdev = to_wookie_dev(ibuc->device);
	struct wookie_ucontext *uc = to_wookie_uc(ibuc);
	struct wookie_alloc_ucontext_resp resp = {};
	struct wookie_alloc_ucontext_req req;
	int err;

	/* ib_core creates no kernel ucontexts; this is user space's call. */
	if (udata->inlen < sizeof(req))
		return -EINVAL;
	err = ib_copy_from_udata(&req, udata, sizeof(req));
	if (err)
		return err;
	if (req.reserved ||
	    !ib_is_udata_cleared(udata, sizeof(req), udata->inlen - sizeof(req)))
		return -EOPNOTSUPP;
	if (req.abi_version != WOOKIE_ABI_VERSION) {
		ibdev_warn_ratelimited(&wdev->ibdev,
				       "provider ABI %u, kernel ABI %u: install matching module and provider\n",
				       req.abi_version, WOOKIE_ABI_VERSION);
		return -EPROTO;
	}
	/* After the version: an older provider's shorter answer gets EPROTO. */
	if (udata->outlen < sizeof(resp))
		return -EINVAL;

	if (atomic_inc_return(&wdev->num_ucontext) > WOOKIE_MAX_UCONTEXT) {
		err = -ENOMEM;
		goto err_count;
	}

	uc->db_page = wookie_mmap_alloc(ibuc, PAGE_SIZE, false,
					WOOKIE_GFP_UOBJ, &uc->db_entry);
	if (!uc->db_page) {
		err = -ENOMEM;
		goto err_count;
	}
	wookie_ucontext_resp(uc, &resp);
	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (err)
		goto err_entry;
	return 0;

err_entry:
	rdma_user_mmap_entry_remove(uc->db_entry);
err_count:
	atomic_dec(&wdev->num_ucontext);
	return err;
}

int wookie_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	int err = wookie_init_ucontext(ibuc, udata);

	if (err)
		wookie_ucontext_drop_task(ibuc);
	return err;
}

/* ibv_import_device(): the context's answer again, for a new provider. */
int wookie_query_ucontext(struct ib_ucontext *ibuc,
			  struct uverbs_attr_bundle *attrs)
{
	struct wookie_alloc_ucontext_resp resp = {};

	wookie_ucontext_resp(to_wookie_uc(ibuc), &resp);
	return uverbs_copy_to_struct_or_zero(attrs,
					     WOOKIE_ATTR_QUERY_CONTEXT_RESP,
					     &resp, sizeof(resp));
}

#define WOOKIE_UCTX_RESP \
	UVERBS_ATTR_STRUCT(struct wookie_alloc_ucontext_resp, caps)

ADD_UVERBS_ATTRIBUTES_SIMPLE(wookie_query_context, UVERBS_OBJECT_DEVICE,
			     UVERBS_METHOD_QUERY_CONTEXT,
			     UVERBS_ATTR_PTR_OUT(WOOKIE_ATTR_QUERY_CONTEXT_RESP,
						 WOOKIE_UCTX_RESP, UA_MANDATORY));

/* ibv_import_pd(): ib_core looks the handle up; nothing more to say. */
static int UVERBS_HANDLER(WOOKIE_METHOD_PD_QUERY)(struct uverbs_attr_bundle *attrs)
{
	struct ib_pd *pd = uverbs_attr_get_obj(attrs,
					       WOOKIE_ATTR_QUERY_PD_HANDLE);

	return PTR_ERR_OR_ZERO(pd);
}

DECLARE_UVERBS_NAMED_METHOD(WOOKIE_METHOD_PD_QUERY,
			    UVERBS_ATTR_IDR(WOOKIE_ATTR_QUERY_PD_HANDLE,
					    UVERBS_OBJECT_PD,
					    UVERBS_ACCESS_READ, UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_PD,
			      &UVERBS_METHOD(WOOKIE_METHOD_PD_QUERY));

const struct uapi_definition wookie_ucontext_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &wookie_query_context),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_PD),
	{},
};

void wookie_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	struct wookie_dev *wdev = to_wookie_dev(ibuc->device);
	struct wookie_ucontext *uc = to_wookie_uc(ibuc);

	/* A page still mapped goes with its last mapping. */
	rdma_user_mmap_entry_remove(uc->db_entry);
	atomic_dec(&wdev->num_ucontext);
}

/*
 * The device is going away with the context still open.  Everything the
 * context shares with user space is pages its mappings hold themselves
 * (wookie_mmap_pages()): they stay valid, unused by the kernel, until
 * the last mapping goes; there is no engine state to quiesce yet.  Having this op
 * lets `rdma link delete` and rmmod proceed instead of waiting for users.
 */
void wookie_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

int wookie_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct wookie_dev *wdev = to_wookie_dev(ibpd->device);
	struct wookie_pd *pd = to_wookie_pd(ibpd);

	spin_lock_init(&pd->ud_lock);
	INIT_LIST_HEAD(&pd->ud_qps);
	mutex_init(&pd->pin_mutex);

	/* A PD takes no attributes: there is nothing to read from udata. */
	if (atomic_inc_return(&wdev->num_pd) > WOOKIE_MAX_PD) {
		atomic_dec(&wdev->num_pd);
		return -ENOMEM;
	}
	return 0;
}

int wookie_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct wookie_dev *wdev = to_wookie_dev(ibpd->device);

	mutex_destroy(&to_wookie_pd(ibpd)->pin_mutex);
	atomic_dec(&wdev->num_pd);
	return 0;
}

/*
 * An XRC domain is only a name that XRC SRQs and targets share: ib_core
 * keeps its targets and users, nothing here but the count.
 */
int wookie_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct wookie_dev *wdev = to_wookie_dev(ibxrcd->device);

	if (atomic_inc_return(&wdev->num_xrcd) > WOOKIE_MAX_XRCD) {
		atomic_dec(&wdev->num_xrcd);
		return -ENOMEM;
	}
	return 0;
}

int wookie_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	atomic_dec(&to_wookie_dev(ibxrcd->device)->num_xrcd);
	return 0;
}
