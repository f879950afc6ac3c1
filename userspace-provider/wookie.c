// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * wookie: rdma-core provider for the wookie software RoCEv2 device.
 *
 * Device matching, the user context (with the read-only doorbell page) and
 * device queries.  The verbs live in verbs.c (commands), qp.c (posting) and
 * cq.c (polling); every verb not set in wookie_ctx_ops falls through to
 * libibverbs' dummy ops, which fail with EOPNOTSUPP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

#include <infiniband/cmd_ioctl.h>

#include "wookie.h"

static int wookie_query_device_ex(struct ibv_context *ibctx,
				  const struct ibv_query_device_ex_input *input,
				  struct ibv_device_attr_ex *attr,
				  size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw_ver;
	int ret;

	ret = ibv_cmd_query_device_any(ibctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;

	fw_ver = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw_ver >> 32) & 0xffff,
		 (unsigned int)(fw_ver >> 16) & 0xffff,
		 (unsigned int)fw_ver & 0xffff);

	/* CQE timestamps are nanoseconds of a 64-bit clock. */
	if (attr_size >= offsetof(struct ibv_device_attr_ex, hca_core_clock) +
				 sizeof(attr->hca_core_clock)) {
		attr->completion_timestamp_mask = UINT64_MAX;
		attr->hca_core_clock = WOOKIE_HCA_CORE_CLOCK_KHZ;
	}
	return 0;
}

/* The clock of read_completion_ts(): CLOCK_MONOTONIC, as the kernel's. */
static int wookie_query_rt_values(struct ibv_context *ibctx
				  __attribute__((unused)),
				  struct ibv_values_ex *values)
{
	uint32_t mask = values->comp_mask;

	values->comp_mask = 0;
	if (mask & IBV_VALUES_MASK_RAW_CLOCK) {
		if (clock_gettime(CLOCK_MONOTONIC, &values->raw_clock))
			return errno;
		values->comp_mask |= IBV_VALUES_MASK_RAW_CLOCK;
	}
	return 0;
}

static int wookie_query_port(struct ibv_context *ibctx, uint8_t port,
			     struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd = {};

	return ibv_cmd_query_port(ibctx, port, attr, &cmd, sizeof(cmd));
}

static void wookie_free_context(struct ibv_context *ibctx)
{
	struct wookie_context *ctx = to_wctx(ibctx);

	munmap((void *)ctx->db_page, ctx->db_page_size);
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
}

static const struct verbs_context_ops wookie_ctx_ops = {
	.advise_mr = wookie_advise_mr,
	.alloc_dm = wookie_alloc_dm,
	.alloc_mw = wookie_alloc_mw,
	.alloc_parent_domain = wookie_alloc_parent_domain,
	.alloc_pd = wookie_alloc_pd,
	.alloc_td = wookie_alloc_td,
	.attach_mcast = ibv_cmd_attach_mcast,
	.bind_mw = wookie_bind_mw,
	.close_xrcd = wookie_close_xrcd,
	.create_ah = wookie_create_ah,
	.create_cq = wookie_create_cq,
	.create_cq_ex = wookie_create_cq_ex,
	.create_qp = wookie_create_qp,
	.create_qp_ex = wookie_create_qp_ex,
	.create_srq = wookie_create_srq,
	.create_srq_ex = wookie_create_srq_ex,
	.dealloc_mw = wookie_dealloc_mw,
	.dealloc_pd = wookie_dealloc_pd,
	.dealloc_td = wookie_dealloc_td,
	.dereg_mr = wookie_dereg_mr,
	.destroy_ah = wookie_destroy_ah,
	.destroy_cq = wookie_destroy_cq,
	.destroy_qp = wookie_destroy_qp,
	.destroy_srq = wookie_destroy_srq,
	.detach_mcast = ibv_cmd_detach_mcast,
	.free_context = wookie_free_context,
	.free_dm = wookie_free_dm,
	.get_srq_num = wookie_get_srq_num,
	.import_dm = wookie_import_dm,
	.import_mr = wookie_import_mr,
	.import_pd = wookie_import_pd,
	.modify_qp = wookie_modify_qp,
	.modify_srq = wookie_modify_srq,
	.open_qp = wookie_open_qp,
	.open_xrcd = wookie_open_xrcd,
	.poll_cq = wookie_poll_cq,
	.post_recv = wookie_post_recv,
	.post_send = wookie_post_send,
	.post_srq_recv = wookie_post_srq_recv,
	.query_device_ex = wookie_query_device_ex,
	.query_port = wookie_query_port,
	.query_qp = wookie_query_qp,
	.query_rt_values = wookie_query_rt_values,
	.query_srq = wookie_query_srq,
	.reg_dm_mr = wookie_reg_dm_mr,
	.reg_dmabuf_mr = wookie_reg_dmabuf_mr,
	.reg_mr = wookie_reg_mr,
	.req_notify_cq = wookie_req_notify_cq,
	.rereg_mr = wookie_rereg_mr,
	.resize_cq = wookie_resize_cq,
	.unimport_dm = wookie_unimport_dm,
	.unimport_mr = wookie_unimport_mr,
	.unimport_pd = wookie_unimport_pd,
};

/* Check the kernel's answer, map the doorbell page, set the ops. */
static int wookie_context_setup(struct wookie_context *ctx,
				const struct wookie_alloc_ucontext_resp *resp)
{
	struct ibv_context *ibctx = &ctx->ibv_ctx.context;
	void *db_page;

	if (resp->abi_version != WOOKIE_ABI_VERSION) {
		fprintf(stderr,
			"wookie: device %s answered with ABI %u, this provider ABI %u; install the matching module and provider\n",
			ibctx->device->name, resp->abi_version,
			WOOKIE_ABI_VERSION);
		errno = EPROTO;
		return -1;
	}
	if (resp->db_page_size < sizeof(struct wookie_db_page)) {
		verbs_err(&ctx->ibv_ctx, "doorbell page too small (%u bytes)\n",
			  resp->db_page_size);
		errno = EPROTO;
		return -1;
	}
	db_page = mmap(NULL, resp->db_page_size, PROT_READ, MAP_SHARED,
		       ibctx->cmd_fd, resp->db_page_key);
	if (db_page == MAP_FAILED) {
		verbs_err(&ctx->ibv_ctx, "cannot map the doorbell page: %m\n");
		return -1;
	}
	ctx->db_page = db_page;
	ctx->db_page_size = resp->db_page_size;
	ctx->caps = resp->caps;
	verbs_set_ops(&ctx->ibv_ctx, &wookie_ctx_ops);
	return 0;
}

/*
 * The end of creating or importing a context: @ret is the command's.  On
 * failure cmd_fd is closed (the kernel then releases a new ucontext).
 */
static struct verbs_context *
wookie_context_done(struct wookie_context *ctx, int ret,
		    const struct wookie_alloc_ucontext_resp *resp)
{
	if (ret)
		errno = ret;
	else if (!wookie_context_setup(ctx, resp))
		return &ctx->ibv_ctx;
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
	return NULL;
}

static struct verbs_context *wookie_alloc_context(struct ibv_device *ibdev,
						  int cmd_fd,
						  void *private_data
						  __attribute__((unused)))
{
	struct wookie_get_context_resp resp = {};
	struct wookie_get_context cmd = {};
	struct wookie_context *ctx;
	int ret;

	/* On failure this closes cmd_fd, which is ours from here on. */
	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	cmd.drv_payload.abi_version = WOOKIE_ABI_VERSION;
	ret = ibv_cmd_get_context(&ctx->ibv_ctx, &cmd.ibv_cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	return wookie_context_done(ctx, ret, &resp.drv_payload);
}

/*
 * ibv_import_device(): a context over a uverbs file another process (or
 * this one) opened, the kernel's context shared; its doorbell page is
 * mapped again here.  On failure cmd_fd is closed, as by alloc_context.
 */
static struct verbs_context *wookie_import_context(struct ibv_device *ibdev,
						   int cmd_fd)
{
	DECLARE_COMMAND_BUFFER_LINK(driver_attr, UVERBS_OBJECT_DEVICE,
				    UVERBS_METHOD_QUERY_CONTEXT, 1, NULL);
	struct wookie_alloc_ucontext_resp resp = {};
	struct wookie_context *ctx;
	int ret;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;
	fill_attr_out_ptr(driver_attr, WOOKIE_ATTR_QUERY_CONTEXT_RESP, &resp);
	ret = ibv_cmd_query_context(&ctx->ibv_ctx.context, driver_attr);
	return wookie_context_done(ctx, ret, &resp);
}

/*
 * A device is ours if it has the wookie ABI attribute, whatever its name;
 * kernel drivers outside the tree all report RDMA_DRIVER_UNKNOWN, so there is
 * no driver id to match on.
 */
static bool wookie_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	unsigned long abi;
	char buf[32];
	char *end;
	int len;

	len = ibv_read_ibdev_sysfs_file(buf, sizeof(buf), sysfs_dev, "%s",
					WOOKIE_SYSFS_ABI_ATTR);
	if (len < 0)
		return false;	/* not a wookie device */

	errno = 0;
	abi = len > 0 ? strtoul(buf, &end, 10) : 0;
	if (len == 0 || errno || end == buf || *end) {
		fprintf(stderr,
			"wookie: device %s has an unreadable %s; install the matching module and provider\n",
			sysfs_dev->ibdev_name, WOOKIE_SYSFS_ABI_ATTR);
		return false;
	}

	if (abi != WOOKIE_ABI_VERSION) {
		fprintf(stderr,
			"wookie: device %s speaks ABI %lu, this provider ABI %u; install the matching module and provider\n",
			sysfs_dev->ibdev_name, abi, WOOKIE_ABI_VERSION);
		return false;
	}

	/*
	 * libibverbs checks the uverbs ABI against match_{min,max}_abi_version
	 * only after this returns true; the kernel reports the same number
	 * there, so a difference means a broken module: say so ourselves.
	 */
	if (sysfs_dev->abi_ver != WOOKIE_ABI_VERSION) {
		fprintf(stderr,
			"wookie: device %s speaks ABI %lu but uverbs ABI %u, this provider ABI %u; install the matching module and provider\n",
			sysfs_dev->ibdev_name, abi, sysfs_dev->abi_ver,
			WOOKIE_ABI_VERSION);
		return false;
	}
	return true;
}

static struct verbs_device *
wookie_alloc_device(struct verbs_sysfs_dev *sysfs_dev __attribute__((unused)))
{
	struct wookie_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	return &dev->ibv_dev;
}

static void wookie_uninit_device(struct verbs_device *vdev)
{
	free(to_wdev(&vdev->device));
}

/* No driver id or name to match: wookie devices match by sysfs attribute. */
static const struct verbs_match_ent wookie_match_table[] = {
	{},
};

static const struct verbs_device_ops wookie_dev_ops = {
	.name = "wookie",
	/*
	 * Checked by libibverbs against the uverbs ABI of the device
	 * (ib_device_ops.uverbs_abi_ver) after wookie_match_device() has
	 * accepted it, which it only does for this same version.
	 */
	.match_min_abi_version = WOOKIE_ABI_VERSION,
	.match_max_abi_version = WOOKIE_ABI_VERSION,
	/*
	 * libibverbs walks every provider's table for devices that report a
	 * driver id (rxe, NICs) without checking for NULL: an empty one.
	 */
	.match_table = wookie_match_table,
	.match_device = wookie_match_device,
	.alloc_device = wookie_alloc_device,
	.uninit_device = wookie_uninit_device,
	.alloc_context = wookie_alloc_context,
	.import_context = wookie_import_context,
};

PROVIDER_DRIVER(wookie, wookie_dev_ops);
