// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * wookie: command-channel verbs.  Every object is created by the kernel;
 * queues come back as ring geometry (struct wookie_ring_info) that is
 * mapped here and then used without system calls by qp.c and cq.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <infiniband/cmd_ioctl.h>

#include "wookie.h"

/*
 * Map a ring the kernel described, after checking that the description is
 * one the data path can index safely: a power-of-two slot count, 8-byte
 * aligned slots at least min_stride bytes, and a mapping that holds them.
 */
int wookie_queue_map(struct ibv_context *ibctx, struct wookie_queue *q,
		     const struct wookie_ring_info *info, size_t min_stride)
{
	uint32_t n = info->num_entries;
	void *p;
	int ret;

	if (!n || (n & (n - 1)) || info->stride < min_stride ||
	    info->stride % 8 ||
	    info->map_size < WOOKIE_RING_HDR_SIZE + (uint64_t)n * info->stride) {
		verbs_err(verbs_get_ctx(ibctx),
			  "bad ring: %u entries of %u bytes (need %zu) in %u bytes\n",
			  n, info->stride, min_stride, info->map_size);
		return EPROTO;
	}

	p = mmap(NULL, info->map_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 ibctx->cmd_fd, info->key);
	if (p == MAP_FAILED) {
		ret = errno;
		verbs_err(verbs_get_ctx(ibctx), "cannot map a ring: %s\n",
			  strerror(ret));
		return ret;
	}

	q->hdr = p;
	q->slots = (uint8_t *)p + WOOKIE_RING_HDR_SIZE;
	q->map_size = info->map_size;
	q->num_entries = n;
	q->stride = info->stride;
	return 0;
}

void wookie_queue_unmap(struct wookie_queue *q)
{
	if (q->hdr)
		munmap(q->hdr, q->map_size);
	q->hdr = NULL;
	q->slots = NULL;
}

struct ibv_pd *wookie_alloc_pd(struct ibv_context *ibctx)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd = {};
	struct wookie_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}

	ret = ibv_cmd_alloc_pd(ibctx, &pd->ibv_pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return &pd->ibv_pd;
}

/* A PD another context's owner shares through the uverbs file. */
struct ibv_pd *wookie_import_pd(struct ibv_context *ibctx, uint32_t handle)
{
	DECLARE_COMMAND_BUFFER(cmdb, UVERBS_OBJECT_PD, WOOKIE_METHOD_PD_QUERY,
			       1);
	struct wookie_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	fill_attr_in_obj(cmdb, WOOKIE_ATTR_QUERY_PD_HANDLE, handle);
	ret = execute_ioctl(ibctx, cmdb);
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	pd->ibv_pd.context = ibctx;
	pd->ibv_pd.handle = handle;
	return &pd->ibv_pd;
}

/* Only this process's record goes: the PD stays the kernel's. */
void wookie_unimport_pd(struct ibv_pd *ibpd)
{
	free(to_wpd(ibpd));
}

int wookie_dealloc_pd(struct ibv_pd *ibpd)
{
	struct wookie_pd *pd = to_wpd(ibpd);
	int ret;

	if (pd->protection) {
		if (atomic_load(&pd->users))
			return EBUSY;
		atomic_fetch_sub(&pd->protection->parents, 1);
		if (pd->td)
			atomic_fetch_sub(&pd->td->parents, 1);
		free(pd);
		return 0;
	}
	if (atomic_load(&pd->parents))
		return EBUSY;
	ret = ibv_cmd_dealloc_pd(ibpd);
	if (ret)
		return ret;

	free(pd);
	return 0;
}

enum {
	WOOKIE_PARENT_DOMAIN_MASK = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
				    IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
};

struct ibv_pd *wookie_alloc_parent_domain(struct ibv_context *ibctx,
					  struct ibv_parent_domain_init_attr *attr)
{
	struct wookie_pd *protection, *pd;

	if (attr->comp_mask & ~(uint32_t)WOOKIE_PARENT_DOMAIN_MASK) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* A protection domain of this context, and a thread domain too. */
	if (!attr->pd || attr->pd->context != ibctx ||
	    to_wpd(attr->pd)->protection ||
	    (attr->td && attr->td->context != ibctx) ||
	    ((attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) &&
	     (!attr->alloc || !attr->free))) {
		errno = EINVAL;
		return NULL;
	}
	protection = to_wpd(attr->pd);

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	pd->ibv_pd.context = ibctx;
	pd->ibv_pd.handle = protection->ibv_pd.handle;
	pd->protection = protection;
	pd->attr = *attr;
	if (!(attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS)) {
		pd->attr.alloc = NULL;
		pd->attr.free = NULL;
	}
	if (!(attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT))
		pd->attr.pd_context = NULL;
	if (attr->td) {
		pd->td = to_wtd(attr->td);
		atomic_fetch_add(&pd->td->parents, 1);
	}
	atomic_fetch_add(&protection->parents, 1);
	return &pd->ibv_pd;
}

/*
 * Thread domains promise that one thread uses what is created with them;
 * the rings are locked anyway (an uncontended lock costs little).
 */
struct ibv_td *wookie_alloc_td(struct ibv_context *ibctx,
			       struct ibv_td_init_attr *attr)
{
	struct wookie_td *td;

	if (attr->comp_mask) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	td = calloc(1, sizeof(*td));
	if (!td) {
		errno = ENOMEM;
		return NULL;
	}
	td->ibv_td.context = ibctx;
	return &td->ibv_td;
}

int wookie_dealloc_td(struct ibv_td *ibtd)
{
	struct wookie_td *td = to_wtd(ibtd);

	if (atomic_load(&td->parents))
		return EBUSY;
	free(td);
	return 0;
}

struct verbs_mr *wookie_mr_new(void)
{
	struct verbs_mr *vmr = calloc(1, sizeof(*vmr));

	if (!vmr)
		errno = ENOMEM;
	return vmr;
}

/* The end of making an MR's record: @ret is the kernel's answer. */
struct ibv_mr *wookie_mr_done(struct ibv_pd *pd, struct verbs_mr *vmr, int ret)
{
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	wookie_pd_use(pd, 1);
	return &vmr->ibv_mr;
}

struct ibv_mr *wookie_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			     uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd = {};
	struct verbs_mr *vmr;
	int ret;

	vmr = wookie_mr_new();
	if (!vmr)
		return NULL;

	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	return wookie_mr_done(pd, vmr, ret);
}

int wookie_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		    void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_pd *old = vmr->ibv_mr.pd;
	struct ibv_rereg_mr cmd = {};
	int ret;

	ret = ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
			       access, pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		errno = ret;
		return ret;
	}
	if (flags & IBV_REREG_MR_CHANGE_PD) {
		wookie_pd_use(old, -1);
		wookie_pd_use(pd, 1);
	}
	return 0;
}

/* The kernel maps the buffer and reaches it with the CPU. */
struct ibv_mr *wookie_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				    size_t length, uint64_t iova, int fd,
				    int access)
{
	struct verbs_mr *vmr;
	int ret;

	vmr = wookie_mr_new();
	if (!vmr)
		return NULL;
	/*
	 * 56.1's declaration; the distro's libibverbs 44 takes no driver
	 * buffer (the NULL), which the x86-64 calling convention ignores.
	 */
	ret = ibv_cmd_reg_dmabuf_mr(pd, offset, length, iova, fd, access, vmr,
				    NULL);
	return wookie_mr_done(pd, vmr, ret);
}

/* Prefetching ODP MRs is the kernel's work (wookie_advise_mr()). */
int wookie_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		     uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge)
{
	return ibv_cmd_advise_mr(pd, advice, flags, sg_list, num_sge);
}

struct ibv_mr *wookie_import_mr(struct ibv_pd *pd, uint32_t handle)
{
	struct verbs_mr *vmr;
	int ret;

	vmr = wookie_mr_new();
	if (!vmr)
		return NULL;
	ret = ibv_cmd_query_mr(pd, vmr, handle);
	return wookie_mr_done(pd, vmr, ret);
}

void wookie_unimport_mr(struct ibv_mr *mr)
{
	wookie_pd_use(mr->pd, -1);
	free(verbs_get_mr(mr));
}

int wookie_dereg_mr(struct verbs_mr *vmr)
{
	int ret;

	ret = ibv_cmd_dereg_mr(vmr);
	if (ret)
		return ret;

	wookie_pd_use(vmr->ibv_mr.pd, -1);
	free(vmr);
	return 0;
}

struct ibv_mw *wookie_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd = {};
	struct ibv_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}

	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	wookie_pd_use(pd, 1);
	return mw;
}

int wookie_dealloc_mw(struct ibv_mw *mw)
{
	int ret;

	ret = ibv_cmd_dealloc_mw(mw);
	if (ret)
		return ret;

	wookie_pd_use(mw->pd, -1);
	free(mw);
	return 0;
}

/* XRC domains are the kernel's alone: no driver data either way. */
struct ibv_xrcd *wookie_open_xrcd(struct ibv_context *ibctx,
				  struct ibv_xrcd_init_attr *attr)
{
	struct ib_uverbs_open_xrcd_resp resp = {};
	struct ibv_open_xrcd cmd = {};
	struct verbs_xrcd *xrcd;
	int ret;

	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd) {
		errno = ENOMEM;
		return NULL;
	}

	ret = ibv_cmd_open_xrcd(ibctx, xrcd, sizeof(*xrcd), attr, &cmd,
				sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(xrcd);
		errno = ret;
		return NULL;
	}
	return &xrcd->xrcd;
}

int wookie_close_xrcd(struct ibv_xrcd *ibxrcd)
{
	struct verbs_xrcd *xrcd = to_vxrcd(ibxrcd);
	int ret;

	/* EBUSY while an SRQ or QP of this handle uses it: keep it then. */
	ret = ibv_cmd_close_xrcd(xrcd);
	if (ret)
		return ret;

	free(xrcd);
	return 0;
}

/* Map the CQ ring of a create or resize answer and start consuming it. */
static int wookie_cq_map(struct wookie_cq *cq, struct ibv_context *ibctx,
			 const struct wookie_ring_info *info)
{
	int ret;

	ret = wookie_queue_map(ibctx, &cq->q, info, sizeof(struct wookie_cqe));
	if (ret)
		return ret;

	/* After a resize the kernel may have started the copy anywhere. */
	cq->q.index = wookie_load_relaxed(&cq->q.hdr->consumer);
	return 0;
}

struct ibv_cq *wookie_create_cq(struct ibv_context *ibctx, int cqe,
				struct ibv_comp_channel *channel,
				int comp_vector)
{
	struct wookie_create_cq_resp_cmd resp = {};
	struct ibv_create_cq cmd = {};
	struct wookie_cq *cq;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}

	ret = ibv_cmd_create_cq(ibctx, cqe, channel, comp_vector,
				&cq->vcq.cq, &cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;

	ret = wookie_cq_map(cq, ibctx, &resp.drv_payload.cq);
	if (ret)
		goto err_destroy;

	pthread_spin_init(&cq->q.lock, PTHREAD_PROCESS_PRIVATE);
	return &cq->vcq.cq;

err_destroy:
	ibv_cmd_destroy_cq(&cq->vcq.cq);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}

struct ibv_cq_ex *wookie_create_cq_ex(struct ibv_context *ibctx,
				      struct ibv_cq_init_attr_ex *attr)
{
	struct wookie_create_cq_ex_resp_cmd resp = {};
	struct ibv_create_cq_ex cmd = {};
	struct wookie_cq *cq;
	int ret;

	/* SINGLE_THREADED needs nothing, we always lock. */
	if ((attr->wc_flags & ~(uint64_t)WOOKIE_CQ_EX_WC_FLAGS) ||
	    (attr->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS |
					   IBV_CQ_INIT_ATTR_MASK_PD)) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     (attr->flags & ~(uint32_t)(IBV_CREATE_CQ_ATTR_SINGLE_THREADED |
					IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN)))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* A CQ names a parent domain (a CQ has no protection domain). */
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) &&
	    (!attr->parent_domain || attr->parent_domain->context != ibctx ||
	     !to_wpd(attr->parent_domain)->protection)) {
		errno = EINVAL;
		return NULL;
	}

	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}

	ret = ibv_cmd_create_cq_ex(ibctx, attr, &cq->vcq, &cmd, sizeof(cmd),
				   &resp.ibv_resp, sizeof(resp), 0);
	if (ret)
		goto err_free;

	ret = wookie_cq_map(cq, ibctx, &resp.drv_payload.cq);
	if (ret)
		goto err_destroy;

	pthread_spin_init(&cq->q.lock, PTHREAD_PROCESS_PRIVATE);
	cq->wc_flags = attr->wc_flags;
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) {
		cq->parent_domain = attr->parent_domain;
		wookie_pd_use(cq->parent_domain, 1);
	}
	wookie_cq_init_ex_ops(cq);
	return &cq->vcq.cq_ex;

err_destroy:
	ibv_cmd_destroy_cq(&cq->vcq.cq);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}

/*
 * The kernel allocates a new ring and copies the unconsumed CQEs into it;
 * the old mapping stays valid until we drop it.  Polling threads are kept
 * out by the CQ lock for the swap.
 */
int wookie_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct wookie_resize_cq_resp_cmd resp = {};
	struct wookie_cq *cq = to_wcq(ibcq);
	struct ibv_resize_cq cmd = {};
	struct wookie_queue old;
	int ret;

	pthread_spin_lock(&cq->q.lock);
	/* The kernel must see every CQE we consumed before it copies. */
	if (cq->q.hdr)
		wookie_store_release(&cq->q.hdr->consumer, cq->q.index);

	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (ret)
		goto out;

	old = cq->q;
	cq->q.hdr = NULL;
	cq->q.slots = NULL;
	/* On failure the CQ stays unmapped: polls report an error. */
	ret = wookie_cq_map(cq, ibcq->context, &resp.drv_payload.cq);
	wookie_queue_unmap(&old);
out:
	pthread_spin_unlock(&cq->q.lock);
	return ret;
}

int wookie_destroy_cq(struct ibv_cq *ibcq)
{
	struct wookie_cq *cq = to_wcq(ibcq);
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;

	wookie_pd_use(cq->parent_domain, -1);
	wookie_queue_unmap(&cq->q);
	pthread_spin_destroy(&cq->q.lock);
	free(cq);
	return 0;
}

/*
 * After the create command: map the SRQ ring of the answer (XRC SRQs have
 * the same ring as basic ones).  The SRQ is destroyed again on failure.
 */
static int wookie_srq_map(struct wookie_srq *srq, struct ibv_pd *pd,
			  const struct wookie_create_srq_resp *resp,
			  uint32_t max_sge)
{
	int ret;

	srq->max_sge = max_sge;
	ret = wookie_queue_map(pd->context, &srq->q, &resp->srq,
			       WOOKIE_RQE_SIZE(srq->max_sge));
	if (ret) {
		ibv_cmd_destroy_srq(&srq->vsrq.srq);
		return ret;
	}

	srq->q.index = wookie_load_relaxed(&srq->q.hdr->producer);
	pthread_spin_init(&srq->q.lock, PTHREAD_PROCESS_PRIVATE);
	wookie_pd_use(pd, 1);
	return 0;
}

struct ibv_srq *wookie_create_srq(struct ibv_pd *pd,
				  struct ibv_srq_init_attr *attr)
{
	struct wookie_create_srq_resp_cmd resp = {};
	struct ibv_create_srq cmd = {};
	struct wookie_srq *srq;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}

	ret = ibv_cmd_create_srq(pd, &srq->vsrq.srq, attr, &cmd, sizeof(cmd),
				 &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;

	/* attr->attr now holds what the kernel granted. */
	ret = wookie_srq_map(srq, pd, &resp.drv_payload, attr->attr.max_sge);
	if (ret)
		goto err_free;
	return &srq->vsrq.srq;

err_free:
	free(srq);
	errno = ret;
	return NULL;
}

enum {
	WOOKIE_SRQ_INIT_ATTR_MASK = IBV_SRQ_INIT_ATTR_TYPE |
				    IBV_SRQ_INIT_ATTR_PD |
				    IBV_SRQ_INIT_ATTR_XRCD |
				    IBV_SRQ_INIT_ATTR_CQ,
};

/*
 * Basic and XRC SRQs (tag matching is not offered).  libibverbs follows
 * the PD, XRCD and CQ pointers the mask names without looking: they are
 * checked here.
 */
struct ibv_srq *wookie_create_srq_ex(struct ibv_context *ibctx,
				     struct ibv_srq_init_attr_ex *attr)
{
	struct wookie_create_srq_resp_cmd resp = {};
	struct ibv_srq_init_attr_ex a = *attr;
	struct ibv_create_xsrq cmd = {};
	struct wookie_srq *srq;
	int ret;

	if (!(a.comp_mask & IBV_SRQ_INIT_ATTR_TYPE))
		a.srq_type = IBV_SRQT_BASIC;
	if ((a.comp_mask & ~(uint32_t)WOOKIE_SRQ_INIT_ATTR_MASK) ||
	    (a.srq_type != IBV_SRQT_BASIC && a.srq_type != IBV_SRQT_XRC)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(a.comp_mask & IBV_SRQ_INIT_ATTR_PD) || !a.pd ||
	    a.pd->context != ibctx ||
	    ((a.comp_mask & IBV_SRQ_INIT_ATTR_CQ) &&
	     (!a.cq || a.cq->context != ibctx)) ||
	    (a.srq_type == IBV_SRQT_XRC &&
	     (!(a.comp_mask & IBV_SRQ_INIT_ATTR_XRCD) || !a.xrcd ||
	      a.xrcd->context != ibctx ||
	      !(a.comp_mask & IBV_SRQ_INIT_ATTR_CQ)))) {
		errno = EINVAL;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}

	ret = ibv_cmd_create_srq_ex(ibctx, &srq->vsrq, &a, &cmd, sizeof(cmd),
				    &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;
	attr->attr = a.attr;

	/* ibv_create_srq() sets these; ibv_create_srq_ex() leaves them to us. */
	srq->vsrq.srq.pd = a.pd;
	srq->vsrq.srq.srq_context = a.srq_context;
	srq->vsrq.srq.events_completed = 0;
	ret = wookie_srq_map(srq, a.pd, &resp.drv_payload, a.attr.max_sge);
	if (ret)
		goto err_free;
	return &srq->vsrq.srq;

err_free:
	free(srq);
	errno = ret;
	return NULL;
}

/* Only an XRC SRQ has a number that a sender can name. */
int wookie_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
	struct wookie_srq *srq = to_wsrq(ibsrq);

	if (srq->vsrq.srq_type != IBV_SRQT_XRC)
		return EINVAL;
	*srq_num = srq->vsrq.srq_num;
	return 0;
}

/*
 * Map the ring of a resize whose mapping failed, if one did; the SRQ lock
 * held.  Until this succeeds posts fail with the error.
 */
static int wookie_srq_remap_locked(struct wookie_srq *srq)
{
	int ret;

	if (srq->q.hdr)
		return 0;
	ret = wookie_queue_map(srq->vsrq.srq.context, &srq->q, &srq->lost,
			       WOOKIE_RQE_SIZE(srq->max_sge));
	if (!ret)
		srq->q.index = srq->lost_index;
	return ret;
}

int wookie_srq_remap(struct wookie_srq *srq)
{
	int ret;

	pthread_spin_lock(&srq->q.lock);
	ret = wookie_srq_remap_locked(srq);
	pthread_spin_unlock(&srq->q.lock);
	return ret;
}

/*
 * IBV_SRQ_MAX_WR: the kernel copies the WQEs not taken yet into a new ring
 * at the same indices and tells us where it is through resp (the write
 * command has no response).  Posters are held off by the SRQ lock until
 * the new ring is mapped, so our producer index stays right.
 */
int wookie_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		      int attr_mask)
{
	struct wookie_srq *srq = to_wsrq(ibsrq);
	struct wookie_modify_srq_resp resp = {};
	struct wookie_modify_srq_cmd cmd = {};
	struct wookie_queue old;
	int ret;

	if (!(attr_mask & IBV_SRQ_MAX_WR))
		return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd.ibv_cmd,
					  sizeof(cmd.ibv_cmd));

	cmd.drv_payload.resp_addr = (uintptr_t)&resp;
	pthread_spin_lock(&srq->q.lock);
	/* The kernel copies from the ring it knows: ours must be current. */
	ret = wookie_srq_remap_locked(srq);
	if (ret)
		goto out;
	ret = ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd.ibv_cmd,
				 sizeof(cmd));
	if (ret)
		goto out;

	old = srq->q;
	srq->q.hdr = NULL;
	srq->q.slots = NULL;
	srq->lost = resp.srq;
	srq->lost_index = old.index;
	wookie_queue_unmap(&old);
	/* On failure posts report it, and the next post or modify retries. */
	ret = wookie_srq_remap_locked(srq);
out:
	pthread_spin_unlock(&srq->q.lock);
	return ret;
}

int wookie_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd = {};

	return ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
}

int wookie_destroy_srq(struct ibv_srq *ibsrq)
{
	struct wookie_srq *srq = to_wsrq(ibsrq);
	int ret;

	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;

	wookie_pd_use(ibsrq->pd, -1);
	wookie_queue_unmap(&srq->q);
	pthread_spin_destroy(&srq->q.lock);
	free(srq);
	return 0;
}

/*
 * The QP types wookie offers, and what each must be created with.
 * libibverbs follows the PD, CQ and XRCD pointers of a create without
 * looking (a missing send CQ would be a NULL dereference there): they are
 * checked here first.
 */
static int wookie_check_qp_init(struct ibv_context *ibctx,
				const struct ibv_qp_init_attr_ex *attr)
{
	switch (attr->qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
	case IBV_QPT_XRC_SEND:
		break;
	case IBV_QPT_XRC_RECV:
		/* An XRC domain only: no PD, CQ, queue, send ops. */
		if (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !attr->xrcd ||
		    attr->xrcd->context != ibctx ||
		    (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
			return EINVAL;
		return 0;
	default:
		return EOPNOTSUPP;
	}

	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != ibctx || !attr->send_cq ||
	    attr->send_cq->context != ibctx)
		return EINVAL;
	/* XRC_SEND has no receive side: its recv_cq is not looked at. */
	if (attr->qp_type != IBV_QPT_XRC_SEND &&
	    (!attr->recv_cq || attr->recv_cq->context != ibctx))
		return EINVAL;
	return 0;
}

static void wookie_qp_init_locks(struct wookie_qp *qp)
{
	pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE);
}

/*
 * After the create command: map the SQ and the RQ from the answer (no RQ
 * with an SRQ or on XRC_SEND, where the kernel's rq is zero; nothing at all
 * on XRC_RECV, whose answer the kernel never writes) and count the QP in
 * its parent domain.  cap holds the granted limits, which the strides must
 * accommodate.  The QP is destroyed again on failure.
 */
static int wookie_qp_setup(struct wookie_qp *qp, struct ibv_context *ibctx,
			   const struct wookie_create_qp_resp *resp,
			   const struct ibv_qp_cap *cap, bool has_srq,
			   int sq_sig_all)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;
	size_t sq_stride;
	int ret;

	if (ibqp->qp_type == IBV_QPT_XRC_RECV)
		goto out;

	qp->sq_max_sge = cap->max_send_sge;
	qp->sq_max_inline = cap->max_inline_data;
	qp->sq_sig_all = sq_sig_all;
	sq_stride = WOOKIE_SQE_SIZE(qp->sq_max_sge);
	if (sq_stride < sizeof(struct wookie_sqe) + qp->sq_max_inline)
		sq_stride = sizeof(struct wookie_sqe) + qp->sq_max_inline;
	ret = wookie_queue_map(ibctx, &qp->sq, &resp->sq, sq_stride);
	if (ret)
		goto err_destroy;
	qp->sq.index = wookie_load_relaxed(&qp->sq.hdr->producer);

	if (!has_srq && ibqp->qp_type != IBV_QPT_XRC_SEND) {
		qp->rq_max_sge = cap->max_recv_sge;
		ret = wookie_queue_map(ibctx, &qp->rq, &resp->rq,
				       WOOKIE_RQE_SIZE(qp->rq_max_sge));
		if (ret) {
			wookie_queue_unmap(&qp->sq);
			goto err_destroy;
		}
		qp->rq.index = wookie_load_relaxed(&qp->rq.hdr->producer);
	}
	qp->pd = ibqp->pd;
	wookie_pd_use(qp->pd, 1);
out:
	wookie_qp_init_locks(qp);
	return 0;

err_destroy:
	ibv_cmd_destroy_qp(ibqp);
	return ret;
}

struct ibv_qp *wookie_create_qp(struct ibv_pd *pd,
				struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex check = {
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.qp_type = attr->qp_type,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct wookie_create_qp_resp_cmd resp = {};
	struct ibv_create_qp cmd = {};
	struct wookie_qp *qp;
	int ret;

	/* XRC_RECV needs an XRC domain: ibv_create_qp_ex() only. */
	ret = wookie_check_qp_init(pd->context, &check);
	if (ret) {
		errno = ret;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}

	ret = ibv_cmd_create_qp(pd, &qp->vqp.qp, attr, &cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;

	ret = wookie_qp_setup(qp, pd->context, &resp.drv_payload, &attr->cap,
			      attr->srq, attr->sq_sig_all);
	if (ret)
		goto err_free;
	return &qp->vqp.qp;

err_free:
	free(qp);
	errno = ret;
	return NULL;
}

/*
 * libibverbs keeps verbs_qp.comp_mask right after its own struct ibv_qp_ex,
 * which grew after rdma-core 44 (wr_flush): Debian's libibverbs 44 reads and
 * writes it at offsetof(struct ibv_qp_ex, wr_flush) of these headers, a
 * 56.1 library where these headers put it.  Both versions zero the word
 * when they create the QP, so poison both places beforehand and see which
 * one the running library cleared; ibv_qp_to_qp_ex() looks there.
 */
#define WOOKIE_QP_MASK_POISON 0xffffffffu

static uint32_t *wookie_qp_v44_comp_mask(struct wookie_qp *qp)
{
	return (uint32_t *)((uint8_t *)&qp->vqp.qp_ex +
			    offsetof(struct ibv_qp_ex, wr_flush));
}

/* Returns whether the running library's ibv_qp_ex has wr_flush. */
static bool wookie_qp_mark_ex(struct wookie_qp *qp)
{
	uint32_t *v44 = wookie_qp_v44_comp_mask(qp);

	if (*v44 != WOOKIE_QP_MASK_POISON) {
		/* libibverbs 44: the 56.1 word is beyond its structure. */
		*v44 |= VERBS_QP_EX;
		qp->vqp.comp_mask = 0;
		return false;
	}
	/* A library that knows wr_flush: NULL unless it is asked for. */
	qp->vqp.qp_ex.wr_flush = NULL;
	qp->vqp.comp_mask |= VERBS_QP_EX;
	return true;
}

/* Not an ibv_qp_ex: clear the poison, if it is wr_flush. */
static void wookie_qp_unmark_ex(struct wookie_qp *qp)
{
	uint32_t *v44 = wookie_qp_v44_comp_mask(qp);

	if (*v44 == WOOKIE_QP_MASK_POISON)
		*v44 = 0;
}

enum {
	WOOKIE_QP_INIT_ATTR_MASK = IBV_QP_INIT_ATTR_PD |
				   IBV_QP_INIT_ATTR_XRCD |
				   IBV_QP_INIT_ATTR_CREATE_FLAGS |
				   IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
};

struct ibv_qp *wookie_create_qp_ex(struct ibv_context *ibctx,
				   struct ibv_qp_init_attr_ex *attr)
{
	struct wookie_create_qp_ex_resp_cmd resp = {};
	struct ibv_create_qp_ex cmd = {};
	bool send_ops = attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	struct wookie_qp *qp;
	int ret = 0;

	if ((attr->comp_mask & ~(uint32_t)WOOKIE_QP_INIT_ATTR_MASK) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	     attr->create_flags) ||
	    (send_ops &&
	     (attr->send_ops_flags &
	      ~wookie_qp_send_ops(to_wctx(ibctx), attr->qp_type))))
		ret = EOPNOTSUPP;
	if (!ret)
		ret = wookie_check_qp_init(ibctx, attr);
	if (ret) {
		errno = ret;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}

	*wookie_qp_v44_comp_mask(qp) = WOOKIE_QP_MASK_POISON;
	ret = ibv_cmd_create_qp_ex2(ibctx, &qp->vqp, attr, &cmd, sizeof(cmd),
				    &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;
	if (send_ops) {
		bool has_wr_flush = wookie_qp_mark_ex(qp);

		wookie_qp_init_send_ops(qp, attr->send_ops_flags,
					has_wr_flush);
	} else {
		wookie_qp_unmark_ex(qp);
	}

	ret = wookie_qp_setup(qp, ibctx, &resp.drv_payload, &attr->cap,
			      attr->srq, attr->sq_sig_all);
	if (ret)
		goto err_free;
	return &qp->vqp.qp;

err_free:
	free(qp);
	errno = ret;
	return NULL;
}

/*
 * ibv_open_qp(): another handle on an XRC_RECV QP, from any context that
 * has the QP's XRC domain open.  The kernel has no driver data for it: like
 * the QP it stands for it has no rings, and no PD or CQ.
 */
struct ibv_qp *wookie_open_qp(struct ibv_context *ibctx,
			      struct ibv_qp_open_attr *attr)
{
	struct ib_uverbs_create_qp_resp resp = {};
	struct ibv_open_qp cmd = {};
	struct wookie_qp *qp;
	int ret;

	/*
	 * libibverbs follows attr->xrcd without looking, and passes the type
	 * on as one byte: XRC_RECV + 256 would open what it is not.
	 */
	if (((attr->comp_mask & IBV_QP_OPEN_ATTR_XRCD) &&
	     (!attr->xrcd || attr->xrcd->context != ibctx)) ||
	    ((attr->comp_mask & IBV_QP_OPEN_ATTR_TYPE) &&
	     attr->qp_type != IBV_QPT_XRC_RECV)) {
		errno = EINVAL;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}

	ret = ibv_cmd_open_qp(ibctx, &qp->vqp, sizeof(qp->vqp), attr, &cmd,
			      sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(qp);
		errno = ret;
		return NULL;
	}
	wookie_qp_init_locks(qp);
	return &qp->vqp.qp;
}

/* RESET empties the rings: the kernel zeroes their indices, and so do we. */
static void wookie_queue_reset(struct wookie_queue *q)
{
	if (!q->hdr)
		return;
	pthread_spin_lock(&q->lock);
	q->index = 0;
	pthread_spin_unlock(&q->lock);
}

int wookie_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		     int attr_mask)
{
	struct wookie_qp *qp = to_wqp(ibqp);
	struct ibv_modify_qp cmd = {};
	int ret;

	ret = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (ret || !(attr_mask & IBV_QP_STATE) ||
	    attr->qp_state != IBV_QPS_RESET)
		return ret;

	/*
	 * Drop the QP's completions not polled yet.  The CQ pointers of XRC
	 * QPs are whatever the caller passed (libibverbs copies them), not
	 * the QP's: XRC_SEND has no receive CQ, and XRC_RECV (created or
	 * opened) no CQ at all; its receives complete on the CQs of the XRC
	 * SRQs, which it does not know, and stay there (as on mlx5).
	 */
	wookie_queue_reset(&qp->sq);
	wookie_queue_reset(&qp->rq);
	if (ibqp->qp_type == IBV_QPT_XRC_RECV)
		return 0;
	if (ibqp->send_cq)
		wookie_cq_clean(to_wcq(ibqp->send_cq), ibqp->qp_num);
	if (ibqp->qp_type != IBV_QPT_XRC_SEND && ibqp->recv_cq &&
	    ibqp->recv_cq != ibqp->send_cq)
		wookie_cq_clean(to_wcq(ibqp->recv_cq), ibqp->qp_num);
	return 0;
}

int wookie_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd = {};

	return ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

int wookie_destroy_qp(struct ibv_qp *ibqp)
{
	struct wookie_qp *qp = to_wqp(ibqp);
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;

	wookie_pd_use(qp->pd, -1);
	wookie_queue_unmap(&qp->sq);
	wookie_queue_unmap(&qp->rq);
	pthread_spin_destroy(&qp->sq.lock);
	pthread_spin_destroy(&qp->rq.lock);
	free(qp);
	return 0;
}

struct ibv_ah *wookie_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct wookie_create_ah_resp_cmd resp = {};
	struct wookie_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}

	ret = ibv_cmd_create_ah(pd, &ah->ibv_ah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}
	ah->ah_num = resp.drv_payload.ah_num;
	wookie_pd_use(pd, 1);
	return &ah->ibv_ah;
}

int wookie_destroy_ah(struct ibv_ah *ibah)
{
	int ret;

	ret = ibv_cmd_destroy_ah(ibah);
	if (ret)
		return ret;

	wookie_pd_use(ibah->pd, -1);
	free(to_wah(ibah));
	return 0;
}
