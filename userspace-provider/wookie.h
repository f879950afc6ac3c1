/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * wookie: rdma-core provider for the wookie software RoCEv2 device.
 */
#ifndef WOOKIE_H
#define WOOKIE_H

#include <stddef.h>
#include <stdint.h>
#include <assert.h>

#include <infiniband/driver.h>
#include <infiniband/kern-abi.h>
#include <rdma/wookie-abi.h>

/*
 * Command wrappers: the core uverbs structure followed directly by ours, the
 * layout ibv_cmd_*() expects (as DECLARE_DRV_CMD would build it; we have no
 * generated kernel-abi/ header, so they are spelled out here).  The driver
 * part of each becomes the kernel's udata.
 */
struct wookie_get_context {
	struct ibv_get_context ibv_cmd;
	struct wookie_alloc_ucontext_req drv_payload;
};

struct wookie_get_context_resp {
	struct ib_uverbs_get_context_resp ibv_resp;
	struct wookie_alloc_ucontext_resp drv_payload;
};

/* No implicit padding between or after the two halves. */
static_assert(offsetof(struct wookie_get_context, drv_payload) ==
		      sizeof(struct ibv_get_context),
	      "padding before wookie_alloc_ucontext_req");
static_assert(sizeof(struct wookie_get_context) ==
		      sizeof(struct ibv_get_context) +
			      sizeof(struct wookie_alloc_ucontext_req),
	      "padding after wookie_alloc_ucontext_req");
static_assert(offsetof(struct wookie_get_context_resp, drv_payload) ==
		      sizeof(struct ib_uverbs_get_context_resp),
	      "padding before wookie_alloc_ucontext_resp");
static_assert(sizeof(struct wookie_get_context_resp) ==
		      sizeof(struct ib_uverbs_get_context_resp) +
			      sizeof(struct wookie_alloc_ucontext_resp),
	      "padding after wookie_alloc_ucontext_resp");

struct wookie_device {
	struct verbs_device ibv_dev;
};

struct wookie_context {
	struct verbs_context ibv_ctx;
	/* Read-only doorbell page shared with the kernel engine. */
	const struct wookie_db_page *db_page;
	size_t db_page_size;
};

static inline struct wookie_device *to_wdev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct wookie_device, ibv_dev.device);
}

static inline struct wookie_context *to_wctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct wookie_context, ibv_ctx.context);
}

#endif /* WOOKIE_H */
