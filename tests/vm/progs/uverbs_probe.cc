// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// uverbs_probe DEVICE [hold]: exercises a wookie device through the distro's
// libibverbs and the wookie provider, the way an application would, and
// checks every answer: contexts, queries, PDs, a CQ, an MR and a QP, dma-buf
// registrations of what is no dma-buf, device memory's limits and errors,
// the mmap keys of the doorbell page, and how an implicit ODP MR is
// registered.  Prints one line per check and exits non-zero if any failed.
// With "hold" it opens a context, maps the doorbell page, allocates PDs, a
// CQ, an MR and a QP, prints "holding" and sleeps, for tests that kill it.
// (tests/vm/pyverbs/ covers every verb in depth.)
#include <infiniband/verbs.h>
#include <rdma/wookie-abi.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace {

int failures;

void check(bool ok, const std::string &what)
{
	std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
	if (!ok)
		++failures;
}

ibv_context *open_by_name(const char *name)
{
	int n = 0;
	ibv_device **list = ibv_get_device_list(&n);
	ibv_context *ctx = nullptr;

	for (int i = 0; list && i < n; i++)
		if (!std::strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

// dma-buf MRs need an exporter (dmabuf_check has vgem's): here only what
// is no dma-buf is refused.
void check_dmabuf_refused(ibv_context *ctx)
{
	ibv_pd *pd = ibv_alloc_pd(ctx);

	if (!pd)
		return;
	for (int fd : { -1, ctx->cmd_fd }) {
		errno = 0;
		ibv_mr *mr = ibv_reg_dmabuf_mr(pd, 0, 4096, 0, fd,
					       IBV_ACCESS_LOCAL_WRITE);
		int err = errno;

		check(!mr && err == (fd < 0 ? EBADF : EINVAL),
		      std::string("reg_dmabuf_mr of fd ") + std::to_string(fd) +
			      ": " + std::strerror(err));
		if (mr)
			ibv_dereg_mr(mr);
	}
	ibv_dealloc_pd(pd);
}

void check_mmap(ibv_context *ctx)
{
	const long page = sysconf(_SC_PAGESIZE);
	// The kernel hands out the doorbell page as the context's first key.
	const off_t key = 0;
	void *p;

	p = mmap(nullptr, page, PROT_READ, MAP_SHARED, ctx->cmd_fd, key);
	check(p != MAP_FAILED, "doorbell page maps read-only");
	if (p != MAP_FAILED) {
		const auto *db = static_cast<const wookie_db_page *>(p);
		bool zero = true;

		for (unsigned int r : db->reserved)
			zero = zero && !r;
		// ABI 3 defines no word of the page.
		check(!db->flags && zero, "doorbell page: every word zero");
		check(mprotect(p, page, PROT_READ | PROT_WRITE) != 0,
		      "mprotect cannot make it writable");
		munmap(p, page);
	}

	errno = 0;
	p = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_SHARED,
		 ctx->cmd_fd, key);
	check(p == MAP_FAILED && errno == EPERM, "writable mapping: EPERM");
	errno = 0;
	p = mmap(nullptr, 2 * page, PROT_READ, MAP_SHARED, ctx->cmd_fd, key);
	check(p == MAP_FAILED && errno == EINVAL, "wrong length: EINVAL");
	errno = 0;
	p = mmap(nullptr, page, PROT_READ, MAP_PRIVATE, ctx->cmd_fd, key);
	check(p == MAP_FAILED && errno == EINVAL, "private mapping: EINVAL");
	errno = 0;
	p = mmap(nullptr, page, PROT_READ, MAP_SHARED, ctx->cmd_fd,
		 1000 * page);
	check(p == MAP_FAILED && errno == EINVAL, "unknown key: EINVAL");
	errno = 0;
	p = mmap(nullptr, page, PROT_READ, MAP_SHARED, ctx->cmd_fd,
		 (off_t)1 << 44);
	check(p == MAP_FAILED && errno == EINVAL, "huge key: EINVAL");
}

void check_queries(ibv_context *ctx)
{
	ibv_device_attr_ex dev = {};
	ibv_port_attr port = {};
	ibv_gid_entry gid = {};
	uint16_t pkey = 0;

	check(!ibv_query_device_ex(ctx, nullptr, &dev), "query_device_ex");
	check(dev.orig_attr.phys_port_cnt == 1, "one port");
	check(dev.orig_attr.max_pd > 0, "max_pd reported");
	check(!ibv_query_port(ctx, 1, &port), "query_port 1");
	check(port.link_layer == IBV_LINK_LAYER_ETHERNET, "Ethernet link layer");
	check(port.state == IBV_PORT_ACTIVE, "port ACTIVE");
	check(ibv_query_port(ctx, 2, &port) != 0, "query_port 2 fails");
	check(!ibv_query_pkey(ctx, 1, 0, &pkey) && pkey == 0xffff,
	      "P_Key 0 is 0xffff");
	check(ibv_query_pkey(ctx, 1, 1, &pkey) != 0, "P_Key 1 does not exist");
	check(!ibv_query_gid_ex(ctx, 1, 1, &gid, 0) &&
		      gid.gid_type == IBV_GID_TYPE_ROCE_V2,
	      "GID 1 is RoCEv2");
}

void check_pds(ibv_context *ctx)
{
	ibv_pd *pd[8];
	bool ok = true;

	for (auto &p : pd) {
		p = ibv_alloc_pd(ctx);
		ok = ok && p;
	}
	check(ok, "alloc 8 PDs");
	for (auto &p : pd)
		ok = ok && p && !ibv_dealloc_pd(p);
	check(ok, "dealloc 8 PDs");
}

// The objects an application starts with: a CQ, an MR, an RC QP brought
// to RTS on itself, and their destruction in the usual order.
// Device memory: its limits and errors, as the verbs' callers see them.
void check_dm(ibv_context *ctx)
{
	ibv_device_attr_ex dev = {};
	ibv_alloc_dm_attr attr = {};
	ibv_dm *dm[16] = {};
	char buf[64] = "wookie device memory";
	char back[64] = {};
	ibv_pd *pd = ibv_alloc_pd(ctx);
	int n = 0;

	check(!ibv_query_device_ex(ctx, nullptr, &dev) &&
	      dev.max_dm_size == 1 << 20, "max_dm_size 1 MiB");
	attr.length = dev.max_dm_size + 1;
	errno = 0;
	check(!ibv_alloc_dm(ctx, &attr) && errno == EINVAL,
	      "DM over max_dm_size: EINVAL");
	attr.length = 100;
	attr.comp_mask = 1;
	errno = 0;
	check(!ibv_alloc_dm(ctx, &attr) && errno == EINVAL,
	      "DM with an unknown comp_mask: EINVAL");
	attr.comp_mask = 0;
	attr.log_align_req = 13;
	errno = 0;
	check(!ibv_alloc_dm(ctx, &attr) && errno == EINVAL,
	      "DM aligned past a page: EINVAL");
	attr.log_align_req = 6;
	dm[0] = ibv_alloc_dm(ctx, &attr);
	check(dm[0], "alloc_dm of 100 bytes");
	if (!dm[0] || !pd) {
		if (dm[0])
			ibv_free_dm(dm[0]);
		if (pd)
			ibv_dealloc_pd(pd);
		return;
	}
	check(!ibv_memcpy_to_dm(dm[0], 96, buf, 4) &&
	      !ibv_memcpy_from_dm(back, dm[0], 96, 4) && !memcmp(buf, back, 4),
	      "copy to and from DM");
	check(ibv_memcpy_to_dm(dm[0], 2, buf, 4) == EINVAL &&
	      ibv_memcpy_from_dm(back, dm[0], 0, 6) == EINVAL,
	      "unaligned DM copies: EINVAL");
	check(ibv_memcpy_to_dm(dm[0], 100, buf, 4) == EFAULT &&
	      ibv_memcpy_from_dm(back, dm[0], 0, 104) == EFAULT,
	      "DM copies past its length: EFAULT");
	const unsigned int zb = IBV_ACCESS_ZERO_BASED | IBV_ACCESS_LOCAL_WRITE;
	ibv_mr *mr = ibv_reg_dm_mr(pd, dm[0], 0, 0, zb);
	check(mr, "MR of length 0 on DM");
	errno = 0;
	ibv_mr *bad = ibv_reg_dm_mr(pd, dm[0], 4, 100, zb);
	check(!bad && errno == EINVAL, "MR past the DM's end: EINVAL");
	errno = 0;
	bad = ibv_reg_dm_mr(pd, dm[0], 4, 8, zb | IBV_ACCESS_REMOTE_WRITE |
						   IBV_ACCESS_REMOTE_ATOMIC);
	check(!bad && errno == EINVAL, "atomic MR at an unaligned offset: EINVAL");
	check(ibv_free_dm(dm[0]) == EBUSY, "free DM with an MR on it: EBUSY");
	if (mr)
		check(!ibv_dereg_mr(mr), "dereg DM MR");
	check(!ibv_free_dm(dm[0]), "free DM");
	// A context holds 8 MiB of device memory at most.
	attr.length = dev.max_dm_size;
	attr.log_align_req = 0;
	while (n < 16 && (dm[n] = ibv_alloc_dm(ctx, &attr)))
		n++;
	check(n == 8 && errno == ENOMEM,
	      "8 DMs of max_dm_size per context, the 9th ENOMEM (" +
		      std::to_string(n) + ")");
	while (n--)
		ibv_free_dm(dm[n]);
	ibv_dealloc_pd(pd);
}

// The whole address space as one MR: only on demand, and only at iova 0
// (pyverbs cannot ask for another iova).
void implicit_odp(ibv_pd *pd)
{
	const int odp = IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE;
	ibv_mr *mr;

	mr = ibv_reg_mr(pd, nullptr, SIZE_MAX, odp);
	check(mr && mr->length == SIZE_MAX && !mr->addr,
	      "implicit ODP MR: length SIZE_MAX");
	if (mr)
		check(!ibv_dereg_mr(mr), "dereg implicit MR");
	errno = 0;
	mr = ibv_reg_mr_iova(pd, nullptr, SIZE_MAX, 4096, odp);
	check(!mr && errno == EINVAL, "implicit MR at iova 4096: EINVAL");
	if (mr)
		ibv_dereg_mr(mr);
	errno = 0;
	mr = ibv_reg_mr(pd, nullptr, SIZE_MAX, IBV_ACCESS_LOCAL_WRITE);
	check(!mr && errno == EINVAL, "whole address space pinned: EINVAL");
	if (mr)
		ibv_dereg_mr(mr);
}

void check_objects(ibv_context *ctx)
{
	static char buf[8192];
	ibv_pd *pd = ibv_alloc_pd(ctx);
	ibv_cq *cq = ibv_create_cq(ctx, 16, nullptr, nullptr, 0);
	ibv_mr *mr = nullptr;
	ibv_qp *qp = nullptr;

	check(pd, "alloc_pd");
	check(cq && cq->cqe >= 16, "create_cq with 16 entries");
	if (pd)
		mr = ibv_reg_mr(pd, buf, sizeof(buf),
				IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_REMOTE_WRITE |
					IBV_ACCESS_REMOTE_READ);
	check(mr && mr->length == sizeof(buf), "reg_mr");
	if (pd && cq) {
		ibv_qp_init_attr attr = {};

		attr.send_cq = cq;
		attr.recv_cq = cq;
		attr.qp_type = IBV_QPT_RC;
		attr.cap.max_send_wr = 4;
		attr.cap.max_recv_wr = 4;
		attr.cap.max_send_sge = 1;
		attr.cap.max_recv_sge = 1;
		qp = ibv_create_qp(pd, &attr);
	}
	check(qp && qp->qp_num > 1 && qp->state == IBV_QPS_RESET,
	      "create_qp (RC, in RESET)");
	if (qp) {
		ibv_qp_attr a = {};

		a.qp_state = IBV_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		check(!ibv_modify_qp(qp, &a,
				     IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
		      "modify_qp to INIT");
		check(!ibv_destroy_qp(qp), "destroy_qp");
	}
	if (mr)
		check(!ibv_dereg_mr(mr), "dereg_mr");
	if (pd)
		implicit_odp(pd);
	if (cq)
		check(!ibv_destroy_cq(cq), "destroy_cq");
	if (pd)
		check(!ibv_dealloc_pd(pd), "dealloc_pd");
}

int hold(ibv_context *ctx)
{
	const long page = sysconf(_SC_PAGESIZE);

	if (mmap(nullptr, page, PROT_READ, MAP_SHARED, ctx->cmd_fd, 0) ==
	    MAP_FAILED)
		return 1;
	ibv_pd *pd = nullptr;
	for (int i = 0; i < 4; i++)
		if (!(pd = ibv_alloc_pd(ctx)))
			return 1;
	static char buf[4096];
	ibv_cq *cq = ibv_create_cq(ctx, 16, nullptr, nullptr, 0);
	ibv_qp_init_attr attr = {};
	attr.send_cq = cq;
	attr.recv_cq = cq;
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = 1;
	attr.cap.max_recv_wr = 1;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	if (!cq || !ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) ||
	    !ibv_create_qp(pd, &attr))
		return 1;
	std::printf("holding\n");
	std::fflush(stdout);
	for (;;)
		pause();
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 2 && !(argc == 3 && !std::strcmp(argv[2], "hold"))) {
		std::fprintf(stderr, "usage: %s DEVICE [hold]\n", argv[0]);
		return 2;
	}
	ibv_context *ctx = open_by_name(argv[1]);
	check(ctx, std::string("open ") + argv[1]);
	if (!ctx)
		return 1;
	if (argc == 3)
		return hold(ctx);
	ibv_context *ctx2 = open_by_name(argv[1]);
	check(ctx2, "a second context on the same device");

	check_queries(ctx);
	check_pds(ctx);
	check_mmap(ctx);

	check_objects(ctx);
	check_dm(ctx);
	check_dmabuf_refused(ctx);

	if (ctx2)
		check(!ibv_close_device(ctx2), "close second context");
	check(!ibv_close_device(ctx), "close context");
	std::printf("%s\n", failures ? "uverbs_probe: FAILED" : "uverbs_probe: all ok");
	return failures ? 1 : 0;
}
