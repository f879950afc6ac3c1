/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * wookie: rdma-core provider for the wookie software RoCEv2 device.
 */
#ifndef WOOKIE_H
#define WOOKIE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#include <infiniband/driver.h>
#include <infiniband/kern-abi.h>
#include <util/compiler.h>
#include <rdma/wookie-abi.h>

/*
 * Command wrappers: the core uverbs structure followed directly by ours, the
 * layout ibv_cmd_*() expects (as DECLARE_DRV_CMD would build it; we have no
 * generated kernel-abi/ header, so they are spelled out here).  The driver
 * part of each becomes the kernel's udata.  Only alloc_ucontext and
 * modify_srq have a driver request; the other commands have a driver
 * response at most (XRC domains and ibv_open_qp have none).
 */
#define WOOKIE_DRV_CMD(name, core, drv)                                        \
	struct name {                                                          \
		core ibv_cmd;                                                  \
		drv drv_payload;                                               \
	};                                                                     \
	static_assert(offsetof(struct name, drv_payload) == sizeof(core),      \
		      "padding before the driver part of " #name);             \
	static_assert(sizeof(struct name) == sizeof(core) + sizeof(drv),       \
		      "padding after the driver part of " #name)

#define WOOKIE_DRV_RESP(name, core, drv)                                       \
	struct name {                                                          \
		core ibv_resp;                                                 \
		drv drv_payload;                                               \
	};                                                                     \
	static_assert(offsetof(struct name, drv_payload) == sizeof(core),      \
		      "padding before the driver part of " #name);             \
	static_assert(sizeof(struct name) == sizeof(core) + sizeof(drv),       \
		      "padding after the driver part of " #name)

WOOKIE_DRV_CMD(wookie_get_context, struct ibv_get_context,
	       struct wookie_alloc_ucontext_req);
WOOKIE_DRV_RESP(wookie_get_context_resp, struct ib_uverbs_get_context_resp,
		struct wookie_alloc_ucontext_resp);
WOOKIE_DRV_RESP(wookie_create_cq_resp_cmd, struct ib_uverbs_create_cq_resp,
		struct wookie_create_cq_resp);
WOOKIE_DRV_RESP(wookie_create_cq_ex_resp_cmd,
		struct ib_uverbs_ex_create_cq_resp,
		struct wookie_create_cq_resp);
WOOKIE_DRV_RESP(wookie_resize_cq_resp_cmd, struct ib_uverbs_resize_cq_resp,
		struct wookie_resize_cq_resp);
WOOKIE_DRV_RESP(wookie_create_qp_resp_cmd, struct ib_uverbs_create_qp_resp,
		struct wookie_create_qp_resp);
WOOKIE_DRV_RESP(wookie_create_qp_ex_resp_cmd,
		struct ib_uverbs_ex_create_qp_resp,
		struct wookie_create_qp_resp);
WOOKIE_DRV_RESP(wookie_create_srq_resp_cmd, struct ib_uverbs_create_srq_resp,
		struct wookie_create_srq_resp);
WOOKIE_DRV_CMD(wookie_modify_srq_cmd, struct ibv_modify_srq,
	       struct wookie_modify_srq_req);
WOOKIE_DRV_RESP(wookie_create_ah_resp_cmd, struct ib_uverbs_create_ah_resp,
		struct wookie_create_ah_resp);

static_assert(sizeof(struct wookie_ring_hdr) == WOOKIE_RING_HDR_SIZE,
	      "ring header size");

/* Completion timestamps are CLOCK_MONOTONIC nanoseconds: a 1 GHz clock. */
#define WOOKIE_HCA_CORE_CLOCK_KHZ 1000000

/* The XRCETH carries 24 bits: the kernel refuses a WQE naming more. */
#define WOOKIE_XRC_SRQN_MAX 0xffffffu

struct wookie_device {
	struct verbs_device ibv_dev;
};

struct wookie_context {
	struct verbs_context ibv_ctx;
	/* Read-only doorbell page shared with the kernel engine. */
	const struct wookie_db_page *db_page;
	size_t db_page_size;
	/* WOOKIE_CAP_* the kernel offers. */
	uint64_t caps;
};

/*
 * One mapped ring (SQ, RQ, SRQ or CQ).  index is this side's own
 * free-running index: the producer of an SQ/RQ/SRQ, the consumer of a CQ;
 * the header's copy is only ever written from it.  lock serialises the
 * threads that use this side of the ring.
 */
struct wookie_queue {
	struct wookie_ring_hdr *hdr;	/* NULL when not mapped */
	uint8_t *slots;
	size_t map_size;
	uint32_t num_entries;
	uint32_t stride;
	uint32_t index;
	pthread_spinlock_t lock;
};

struct wookie_cq {
	struct verbs_cq vcq;
	struct wookie_queue q;
	/* ibv_cq_ex polling: the CQE start/next_poll returned, else NULL. */
	const struct wookie_cqe *cur;
	/* CLOCK_REALTIME - CLOCK_MONOTONIC at start_poll, for wallclock. */
	int64_t wallclock_offset;
	uint64_t wc_flags;
	/* The parent domain it was created on, if any. */
	struct ibv_pd *parent_domain;
};

/*
 * A protection domain, or a parent domain standing for one
 * (ibv_alloc_parent_domain): a parent domain carries its protection
 * domain's handle, so a command naming it reaches the kernel's PD, and the
 * kernel never sees it.  Its allocators are kept but not called: every
 * queue is kernel memory mapped into the process, not the provider's.
 */
struct wookie_pd {
	struct ibv_pd ibv_pd;
	/* NULL for a protection domain: the one a parent domain stands for. */
	struct wookie_pd *protection;
	/* A protection domain's parent domains: it outlives them. */
	atomic_int parents;
	/* A parent domain's QPs, SRQs, CQs, MRs, MWs, AHs: as above. */
	atomic_int users;
	struct wookie_td *td;
	struct ibv_parent_domain_init_attr attr;
};

/* A thread domain: it outlives the parent domains naming it. */
struct wookie_td {
	struct ibv_td ibv_td;
	atomic_int parents;
};

/* verbs_srq: libibverbs keeps an XRC SRQ's type, domain and number. */
struct wookie_srq {
	struct verbs_srq vsrq;
	struct wookie_queue q;
	uint32_t max_sge;
	/*
	 * A resize whose new ring we failed to map (q.hdr NULL): the ring
	 * to map at the next post or modify, and our producer index.
	 */
	struct wookie_ring_info lost;
	uint32_t lost_index;
};

/*
 * A QP, or an XRC_RECV QP created or opened in an XRC domain: that one has
 * no rings at all (the kernel's responder takes its receives from the XRC
 * SRQ each request names), and no PD or CQ of its own.
 */
struct wookie_qp {
	struct verbs_qp vqp;
	/* Not mapped (hdr NULL) on an XRC_RECV QP. */
	struct wookie_queue sq;
	/* Not mapped when the QP uses an SRQ, or is XRC. */
	struct wookie_queue rq;
	/* The parent domain the QP counts in (wookie_pd_use), if any. */
	struct ibv_pd *pd;
	/* As granted by the kernel at create. */
	uint32_t sq_max_sge;
	uint32_t sq_max_inline;
	uint32_t rq_max_sge;
	bool sq_sig_all;
	/*
	 * The ibv_qp_ex wr_* sequence, under the SQ lock from wr_start to
	 * wr_complete/wr_abort: the next slot to fill, the WQE the setters
	 * complete, and the first error (reported by wr_complete).
	 */
	uint32_t wr_index;
	struct wookie_sqe *wr_cur;
	int wr_err;
};

struct wookie_ah {
	struct ibv_ah ibv_ah;
	uint32_t ah_num;
};

static inline struct wookie_device *to_wdev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct wookie_device, ibv_dev.device);
}

static inline struct wookie_context *to_wctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct wookie_context, ibv_ctx.context);
}

static inline struct wookie_pd *to_wpd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct wookie_pd, ibv_pd);
}

static inline struct wookie_td *to_wtd(struct ibv_td *ibtd)
{
	return container_of(ibtd, struct wookie_td, ibv_td);
}

/* An object made on @ibpd, or gone from it: a parent domain counts them. */
static inline void wookie_pd_use(struct ibv_pd *ibpd, int n)
{
	if (ibpd && to_wpd(ibpd)->protection)
		atomic_fetch_add(&to_wpd(ibpd)->users, n);
}

static inline struct wookie_cq *to_wcq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct wookie_cq, vcq.cq);
}

static inline struct wookie_cq *to_wcq_ex(struct ibv_cq_ex *ibcq)
{
	return container_of(ibcq, struct wookie_cq, vcq.cq_ex);
}

static inline struct wookie_srq *to_wsrq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct wookie_srq, vsrq.srq);
}

static inline struct verbs_xrcd *to_vxrcd(struct ibv_xrcd *ibxrcd)
{
	return container_of(ibxrcd, struct verbs_xrcd, xrcd);
}

static inline struct wookie_qp *to_wqp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct wookie_qp, vqp.qp);
}

static inline struct wookie_qp *to_wqp_ex(struct ibv_qp_ex *ibqp)
{
	return container_of(ibqp, struct wookie_qp, vqp.qp_ex);
}

static inline struct wookie_ah *to_wah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct wookie_ah, ibv_ah);
}

/*
 * Ring indices are plain __u32 in the ABI header; the kernel reads and
 * writes them with READ_ONCE/smp_load_acquire/smp_store_release, we with
 * C11 atomics on the same words.
 */
static inline uint32_t wookie_load_acquire(const __u32 *p)
{
	return atomic_load_explicit((const _Atomic uint32_t *)p,
				    memory_order_acquire);
}

static inline uint32_t wookie_load_relaxed(const __u32 *p)
{
	return atomic_load_explicit((const _Atomic uint32_t *)p,
				    memory_order_relaxed);
}

static inline void wookie_store_release(__u32 *p, uint32_t v)
{
	atomic_store_explicit((_Atomic uint32_t *)p, v, memory_order_release);
}

static inline void *wookie_queue_slot(const struct wookie_queue *q,
				      uint32_t index)
{
	return q->slots + (size_t)(index & (q->num_entries - 1)) * q->stride;
}

/* verbs.c: command-channel verbs and ring mapping */
int wookie_queue_map(struct ibv_context *ibctx, struct wookie_queue *q,
		     const struct wookie_ring_info *info, size_t min_stride);
void wookie_queue_unmap(struct wookie_queue *q);
struct ibv_pd *wookie_alloc_pd(struct ibv_context *ibctx);
int wookie_dealloc_pd(struct ibv_pd *pd);
struct ibv_pd *wookie_alloc_parent_domain(struct ibv_context *ibctx,
					  struct ibv_parent_domain_init_attr *attr);
struct ibv_td *wookie_alloc_td(struct ibv_context *ibctx,
			       struct ibv_td_init_attr *attr);
int wookie_dealloc_td(struct ibv_td *td);
struct verbs_mr *wookie_mr_new(void);
struct ibv_mr *wookie_mr_done(struct ibv_pd *pd, struct verbs_mr *vmr, int ret);
struct ibv_mr *wookie_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			     uint64_t hca_va, int access);
int wookie_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		    void *addr, size_t length, int access);
int wookie_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		     uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge);
int wookie_dereg_mr(struct verbs_mr *vmr);
struct ibv_mr *wookie_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				    size_t length, uint64_t iova, int fd,
				    int access);
struct ibv_dm *wookie_alloc_dm(struct ibv_context *ibctx,
			       struct ibv_alloc_dm_attr *attr);
int wookie_free_dm(struct ibv_dm *ibdm);
struct ibv_dm *wookie_import_dm(struct ibv_context *ibctx, uint32_t handle);
void wookie_unimport_dm(struct ibv_dm *ibdm);
struct ibv_pd *wookie_import_pd(struct ibv_context *ibctx, uint32_t handle);
void wookie_unimport_pd(struct ibv_pd *ibpd);
struct ibv_mr *wookie_import_mr(struct ibv_pd *pd, uint32_t handle);
void wookie_unimport_mr(struct ibv_mr *mr);
struct ibv_mr *wookie_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *ibdm,
				uint64_t dm_offset, size_t length,
				unsigned int access);
struct ibv_mw *wookie_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int wookie_dealloc_mw(struct ibv_mw *mw);
struct ibv_xrcd *wookie_open_xrcd(struct ibv_context *ibctx,
				  struct ibv_xrcd_init_attr *attr);
int wookie_close_xrcd(struct ibv_xrcd *ibxrcd);
struct ibv_cq *wookie_create_cq(struct ibv_context *ibctx, int cqe,
				struct ibv_comp_channel *channel,
				int comp_vector);
struct ibv_cq_ex *wookie_create_cq_ex(struct ibv_context *ibctx,
				      struct ibv_cq_init_attr_ex *attr);
int wookie_resize_cq(struct ibv_cq *ibcq, int cqe);
int wookie_destroy_cq(struct ibv_cq *ibcq);
struct ibv_srq *wookie_create_srq(struct ibv_pd *pd,
				  struct ibv_srq_init_attr *attr);
struct ibv_srq *wookie_create_srq_ex(struct ibv_context *ibctx,
				     struct ibv_srq_init_attr_ex *attr);
int wookie_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num);
int wookie_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		      int attr_mask);
int wookie_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int wookie_srq_remap(struct wookie_srq *srq);
int wookie_destroy_srq(struct ibv_srq *ibsrq);
struct ibv_qp *wookie_create_qp(struct ibv_pd *pd,
				struct ibv_qp_init_attr *attr);
struct ibv_qp *wookie_create_qp_ex(struct ibv_context *ibctx,
				   struct ibv_qp_init_attr_ex *attr);
struct ibv_qp *wookie_open_qp(struct ibv_context *ibctx,
			      struct ibv_qp_open_attr *attr);
int wookie_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		     int attr_mask);
int wookie_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask, struct ibv_qp_init_attr *init_attr);
int wookie_destroy_qp(struct ibv_qp *ibqp);
struct ibv_ah *wookie_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int wookie_destroy_ah(struct ibv_ah *ah);

/* qp.c: the send and receive paths */
int wookie_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		     struct ibv_send_wr **bad_wr);
int wookie_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr);
int wookie_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
int wookie_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		   struct ibv_mw_bind *mw_bind);
/* IBV_QP_EX_WITH_* a QP of this type supports through the wr_* API. */
uint64_t wookie_qp_send_ops(struct wookie_context *ctx, enum ibv_qp_type type);
void wookie_qp_init_send_ops(struct wookie_qp *qp, uint64_t send_ops_flags,
			     bool has_wr_flush);

/* cq.c: completions */
void wookie_cq_clean(struct wookie_cq *cq, uint32_t qp_num);
int wookie_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc);
int wookie_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
/* IBV_WC_EX_WITH_* the ibv_cq_ex readers support. */
/*
 * TM_INFO is accepted although the device has no tag matching (tm_caps
 * are 0, so no SRQ is a TM SRQ): no completion is then a tag-matching
 * one, and ibv_wc_read_tm_info() reads tag 0.  mlx5 accepts it on devices
 * without tag matching too; rdma-core's tag-matching tests ask for it
 * before they look at tm_caps.
 */
#define WOOKIE_CQ_EX_WC_FLAGS                                                  \
	(IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |         \
	 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK |                       \
	 IBV_WC_EX_WITH_TM_INFO)
void wookie_cq_init_ex_ops(struct wookie_cq *cq);

#endif /* WOOKIE_H */
