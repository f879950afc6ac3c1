// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * LD_PRELOAD stand-in for the wookie kernel module, for host tests of the
 * provider without a kernel: a uverbs character device is faked by a node
 * with /dev/full's numbers (so ioctl() fails with ENOTTY and libibverbs
 * falls back to write(), and any command not handled here fails loudly),
 * and this library answers the write() commands and the mmap()s.
 *
 * Beyond the context it is a small loopback "kernel": CQs, QPs and SRQs get
 * real shared rings (memfds the provider maps with the key of the create
 * answer), and a doorbell (post_send with no WR) executes the SQ at once
 * within the process: SENDs land in the destination QP's RQ or SRQ, RDMA
 * and atomics act on the addresses directly, CQEs are written as the
 * module writes them.  It checks every WQE the way the module's WQE check
 * does (reserved bytes zero, opcode, flags, SGE count, XRC SRQ number) and
 * reports a bad one with a LOC_QP_OP_ERR completion and a "fake: bad WQE"
 * line.  XRC: domains (shared by the handles opened on one file), XRC SRQs
 * with numbers, XRC_SEND QPs whose requests land in the XRC SRQ each WQE
 * names (REM_INV_REQ_ERR, and the target QP in ERR, if it has none in the
 * target's domain), XRC_RECV QPs without rings, created or opened, alive
 * while a handle on them is.
 *
 * Environment: FAKE_UVERBS_ABI (resp abi_version, default WOOKIE_ABI_VERSION),
 * FAKE_UVERBS_DB_SIZE (default 4096), FAKE_UVERBS_MMAP_FAIL=1,
 * FAKE_UVERBS_PD=1 (alloc_pd succeeds; otherwise EOPNOTSUPP as a kernel
 * without it), FAKE_UVERBS_WAKEUP (SQ ring header flags, default
 * WOOKIE_RING_NEED_WAKEUP),
 * FAKE_UVERBS_FLUSH=1 (RQ rings say WOOKIE_RING_FLUSH),
 * FAKE_UVERBS_BAD_STRIDE=1 (create answers with an 8-byte stride).  Live
 * mappings left at exit are reported on stderr.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/wookie-abi.h>

#define FAKE_KEY 0x10000
#define MAX_OBJ 64
#define MAX_MAPS 256

static ssize_t (*real_write)(int, const void *, size_t);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_munmap)(void *, size_t);

static unsigned long env_ul(const char *name, unsigned long def)
{
	const char *s = getenv(name);

	return s ? strtoul(s, NULL, 0) : def;
}

static int is_fake(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISCHR(st.st_mode) &&
	       st.st_rdev == makedev(1, 7);
}

static void resolve(void)
{
	if (!real_write) {
		real_write = dlsym(RTLD_NEXT, "write");
		real_mmap = dlsym(RTLD_NEXT, "mmap");
		real_munmap = dlsym(RTLD_NEXT, "munmap");
	}
}

/* Mappings handed to the provider, to report leaks. */
static struct {
	void *addr;
	size_t len;
} maps[MAX_MAPS];

static void map_track(void *addr, size_t len)
{
	int i;

	for (i = 0; i < MAX_MAPS; i++)
		if (!maps[i].addr) {
			maps[i].addr = addr;
			maps[i].len = len;
			return;
		}
}

/* Memory shared with the provider: a memfd, our mapping, its key. */
struct shm {
	int fd;
	void *p;
	size_t size;
	uint64_t key;
	bool writable;
};

static uint64_t next_key = FAKE_KEY;
static struct shm *shms[MAX_OBJ * 4];

static struct shm *shm_new(size_t size, bool writable)
{
	struct shm *s = calloc(1, sizeof(*s));
	unsigned int i;

	s->fd = memfd_create("fake-uverbs", MFD_CLOEXEC);
	if (s->fd < 0 || ftruncate(s->fd, size)) {
		perror("fake: memfd");
		exit(2);
	}
	s->p = real_mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			 s->fd, 0);
	s->size = size;
	s->key = next_key;
	next_key += 0x1000 * ((size + 0xfff) / 0x1000);
	s->writable = writable;
	for (i = 0; i < sizeof(shms) / sizeof(shms[0]); i++)
		if (!shms[i]) {
			shms[i] = s;
			break;
		}
	return s;
}

/* The kernel object is gone; the provider's mapping keeps the memory. */
static void shm_free(struct shm *s)
{
	unsigned int i;

	if (!s)
		return;
	for (i = 0; i < sizeof(shms) / sizeof(shms[0]); i++)
		if (shms[i] == s)
			shms[i] = NULL;
	real_munmap(s->p, s->size);
	close(s->fd);
	free(s);
}

struct ring {
	struct shm *shm;
	struct wookie_ring_hdr *hdr;
	uint8_t *slots;
	uint32_t n, stride;
	/* The kernel's own index: consumer of SQ/RQ/SRQ, producer of CQ. */
	uint32_t index;
};

static uint32_t pow2(uint32_t v)
{
	uint32_t n = 1;

	while (n < v)
		n <<= 1;
	return n;
}

static void ring_init(struct ring *r, uint32_t depth, uint32_t stride)
{
	r->n = pow2(depth ? depth : 1);
	r->stride = stride;
	r->shm = shm_new(WOOKIE_RING_HDR_SIZE + (size_t)r->n * stride, true);
	r->hdr = r->shm->p;
	r->slots = (uint8_t *)r->shm->p + WOOKIE_RING_HDR_SIZE;
	r->index = 0;
}

static void ring_info(const struct ring *r, struct wookie_ring_info *info)
{
	memset(info, 0, sizeof(*info));
	info->key = r->shm->key;
	info->map_size = r->shm->size;
	info->num_entries = r->n;
	info->stride = r->stride;
	/* A ring whose slots cannot hold the CQE/WQE it is for. */
	if (env_ul("FAKE_UVERBS_BAD_STRIDE", 0))
		info->stride = 8;
}

static void *ring_slot(const struct ring *r, uint32_t i)
{
	return r->slots + (size_t)(i & (r->n - 1)) * r->stride;
}

static uint32_t load_acq(const __u32 *p)
{
	return atomic_load_explicit((const _Atomic uint32_t *)p,
				    memory_order_acquire);
}

static void store_rel(__u32 *p, uint32_t v)
{
	atomic_store_explicit((_Atomic uint32_t *)p, v, memory_order_release);
}

static struct shm *db_page;

static struct fcq {
	bool used;
	struct ring r;
} cqs[MAX_OBJ];

/* An XRCD handle: handles opened on one file share a domain. */
static struct fxrcd {
	bool used;
	int domain;
	dev_t dev;
	ino_t ino;
	bool has_inode;
	/* SRQs and QPs created or opened through this handle. */
	int users;
} xrcds[MAX_OBJ];

static int next_domain = 1;

static struct fsrq {
	bool used;
	struct ring r;
	uint32_t max_sge;
	/* XRC SRQs: the handle they were made with, its domain, their CQ. */
	int xrcd, domain, cq;
} srqs[MAX_OBJ];

static struct fqp {
	bool used;
	uint8_t type;
	bool sig_all;
	bool has_rq;
	struct ring sq, rq;
	int send_cq, recv_cq, srq;
	uint32_t max_sge, max_inline, rq_max_sge, dest_qpn, state;
	/* XRC_RECV: the XRCD handle, its domain; opened: the QP it is. */
	int xrcd, domain, alias_of;
	/* XRC_RECV whose creator's handle is gone, kept for the openers. */
	bool orphan;
} qps[MAX_OBJ];

#define QPN(h) (0x100 + (h))
#define SRQN(h) (0x40u + (unsigned int)(h))
#define AH_NUM(h) (0x700u + (unsigned int)(h))

static int mws, mrs, ahs;

static int alloc_handle(void *tab, size_t elem)
{
	int i;

	for (i = 0; i < MAX_OBJ; i++)
		if (!*(bool *)((uint8_t *)tab + i * elem))
			return i;
	fprintf(stderr, "fake: out of objects\n");
	exit(2);
}

static void cq_post(int h, const struct wookie_cqe *in)
{
	struct fcq *cq = &cqs[h];
	struct wookie_cqe *cqe;
	struct timespec ts;
	uint32_t arm;

	if (cq->r.index - load_acq(&cq->r.hdr->consumer) >= cq->r.n) {
		fprintf(stderr, "fake: cq %d overflow\n", h);
		return;
	}
	cqe = ring_slot(&cq->r, cq->r.index);
	*cqe = *in;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	cqe->timestamp = ts.tv_sec * 1000000000ull + ts.tv_nsec;
	store_rel(&cq->r.hdr->producer, ++cq->r.index);
	atomic_thread_fence(memory_order_seq_cst);
	arm = load_acq(&cq->r.hdr->arm);
	if (arm) {
		store_rel(&cq->r.hdr->arm, 0);
		fprintf(stderr, "fake: cq %d event (arm %u)\n", h, arm);
	}
}

static bool all_zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len--)
		if (*b++)
			return false;
	return true;
}

/* The module's WQE check, as far as the provider must get it right. */
static const char *sqe_check(const struct fqp *qp, const struct wookie_sqe *s)
{
	static const size_t used[] = {
		[WOOKIE_WR_SEND] = 0,
		[WOOKIE_WR_SEND_WITH_IMM] = 0,
		[WOOKIE_WR_SEND_WITH_INV] = 0,
		[WOOKIE_WR_RDMA_WRITE] = 12,
		[WOOKIE_WR_RDMA_WRITE_WITH_IMM] = 12,
		[WOOKIE_WR_RDMA_READ] = 12,
		[WOOKIE_WR_ATOMIC_CMP_AND_SWP] = 28,
		[WOOKIE_WR_ATOMIC_FETCH_AND_ADD] = 28,
		[WOOKIE_WR_LOCAL_INV] = 0,
		[WOOKIE_WR_BIND_MW] = 32,
	};
	size_t u;

	if (s->opcode >= WOOKIE_WR_REG_MR)
		return "opcode";
	if (s->flags & ~0xfu)
		return "flags";
	if (qp->type == IBV_QPT_XRC_SEND ? s->xrc_srqn > 0xffffff :
					   s->xrc_srqn != 0)
		return "xrc_srqn";
	u = used[s->opcode];
	if (qp->type == IBV_QPT_UD) {
		if (s->opcode > WOOKIE_WR_SEND_WITH_IMM)
			return "UD opcode";
		u = 12;
	}
	if (qp->type == IBV_QPT_UC &&
	    (s->opcode == WOOKIE_WR_RDMA_READ ||
	     s->opcode == WOOKIE_WR_SEND_WITH_INV ||
	     s->opcode == WOOKIE_WR_ATOMIC_CMP_AND_SWP ||
	     s->opcode == WOOKIE_WR_ATOMIC_FETCH_AND_ADD))
		return "UC opcode";
	if (!all_zero(s->raw + u, sizeof(s->raw) - u))
		return "union reserved";
	if (!(s->flags & WOOKIE_WQE_INLINE) && s->inline_len)
		return "inline_len";
	if ((s->flags & WOOKIE_WQE_INLINE) &&
	    (s->num_sge || s->inline_len > qp->max_inline ||
	     s->opcode > WOOKIE_WR_RDMA_WRITE_WITH_IMM ||
	     s->opcode == WOOKIE_WR_RDMA_READ))
		return "inline";
	if (s->num_sge > qp->max_sge)
		return "num_sge";
	if ((s->opcode == WOOKIE_WR_ATOMIC_CMP_AND_SWP ||
	     s->opcode == WOOKIE_WR_ATOMIC_FETCH_AND_ADD) &&
	    (s->num_sge != 1 ||
	     ((const struct wookie_sge *)(s + 1))->length != 8))
		return "atomic sge";
	if (s->opcode != WOOKIE_WR_SEND_WITH_IMM &&
	    s->opcode != WOOKIE_WR_RDMA_WRITE_WITH_IMM &&
	    s->opcode != WOOKIE_WR_SEND_WITH_INV &&
	    s->opcode != WOOKIE_WR_LOCAL_INV && s->ex)
		return "ex";
	return NULL;
}

/* Gather a send WQE's payload. */
static uint32_t sqe_gather(const struct wookie_sqe *s, uint8_t *buf)
{
	const struct wookie_sge *sge = (const void *)(s + 1);
	uint32_t len = 0;
	int i;

	if (s->flags & WOOKIE_WQE_INLINE) {
		memcpy(buf, s + 1, s->inline_len);
		return s->inline_len;
	}
	for (i = 0; i < s->num_sge; i++) {
		memcpy(buf + len, (void *)(uintptr_t)sge[i].addr,
		       sge[i].length);
		len += sge[i].length;
	}
	return len;
}

static void scatter(const struct wookie_sge *sge, uint32_t num,
		    const uint8_t *buf, uint32_t len)
{
	uint32_t i, n;

	for (i = 0; i < num && len; i++) {
		n = sge[i].length < len ? sge[i].length : len;
		memcpy((void *)(uintptr_t)sge[i].addr, buf, n);
		buf += n;
		len -= n;
	}
}

/* Take a receive WQE of ring r (an RQ or SRQ); false if none. */
static bool recv_pop(struct ring *r, struct wookie_rqe **rqe)
{
	if (r->index == load_acq(&r->hdr->producer))
		return false;
	*rqe = ring_slot(r, r->index++);
	return true;
}

static void recv_done(struct ring *r)
{
	store_rel(&r->hdr->consumer, r->index);
}

static struct fqp *qp_by_qpn(uint32_t qpn)
{
	uint32_t h = qpn - QPN(0);

	return h < MAX_OBJ && qps[h].used && qps[h].alias_of < 0 ? &qps[h] :
								    NULL;
}

static bool qp_opened(int h)
{
	int i;

	for (i = 0; i < MAX_OBJ; i++)
		if (qps[i].used && qps[i].alias_of == h)
			return true;
	return false;
}

/*
 * The XRC_RECV QP and XRC SRQ an XRC request of qp reaches, or the error
 * its requester sees: the SRQ must exist and share the QP's domain.
 */
static uint8_t xrc_target(const struct fqp *qp, const struct wookie_sqe *s,
			  struct fqp **dst, int *srq)
{
	int i;

	*dst = qp_by_qpn(qp->dest_qpn);
	if (!*dst || (*dst)->type != IBV_QPT_XRC_RECV)
		return IBV_WC_RETRY_EXC_ERR;
	for (i = 0; i < MAX_OBJ; i++)
		if (srqs[i].used && srqs[i].xrcd >= 0 &&
		    SRQN(i) == s->xrc_srqn)
			break;
	if (i == MAX_OBJ || srqs[i].domain != (*dst)->domain) {
		fprintf(stderr, "fake: XRC srqn %#x refused: %s\n", s->xrc_srqn,
			i == MAX_OBJ ? "no such XRC SRQ" : "another domain");
		/* The target NAKs and enters the error state. */
		(*dst)->state = IBV_QPS_ERR;
		return IBV_WC_REM_INV_REQ_ERR;
	}
	*srq = i;
	fprintf(stderr, "fake: XRC to qpn %#x srqn %#x\n", qp->dest_qpn,
		s->xrc_srqn);
	return IBV_WC_SUCCESS;
}

/* Execute one WQE of QP h; returns the send CQE status. */
static uint8_t sqe_exec(int h, const struct wookie_sqe *s, uint32_t *byte_len)
{
	static uint8_t buf[1 << 20];
	struct fqp *qp = &qps[h], *dst;
	const struct wookie_sge *sge = (const void *)(s + 1);
	struct wookie_cqe rc = {};
	struct wookie_rqe *rqe;
	struct ring *rq;
	uint64_t *p, orig;
	const char *bad;
	uint32_t len;
	int xsrq = -1, rcq;
	uint8_t st;

	bad = sqe_check(qp, s);
	if (bad) {
		fprintf(stderr, "fake: bad WQE on qp %d: %s\n", h, bad);
		return IBV_WC_LOC_QP_OP_ERR;
	}
	/* Every XRC request names an XRC SRQ, which the target checks. */
	if (qp->type == IBV_QPT_XRC_SEND && s->opcode != WOOKIE_WR_LOCAL_INV &&
	    s->opcode != WOOKIE_WR_BIND_MW) {
		st = xrc_target(qp, s, &dst, &xsrq);
		if (st)
			return st;
	}

	switch (s->opcode) {
	case WOOKIE_WR_RDMA_READ:
		len = 0;
		scatter(sge, s->num_sge, (void *)(uintptr_t)s->rdma.remote_addr,
			UINT32_MAX);
		for (int i = 0; i < s->num_sge; i++)
			len += sge[i].length;
		*byte_len = len;
		return IBV_WC_SUCCESS;
	case WOOKIE_WR_ATOMIC_CMP_AND_SWP:
	case WOOKIE_WR_ATOMIC_FETCH_AND_ADD:
		p = (uint64_t *)(uintptr_t)s->atomic.remote_addr;
		orig = *p;
		if (s->opcode == WOOKIE_WR_ATOMIC_FETCH_AND_ADD)
			*p += s->atomic.compare_add;
		else if (orig == s->atomic.compare_add)
			*p = s->atomic.swap;
		memcpy((void *)(uintptr_t)sge[0].addr, &orig, 8);
		*byte_len = 8;
		return IBV_WC_SUCCESS;
	case WOOKIE_WR_LOCAL_INV:
		fprintf(stderr, "fake: local_inv %#x\n", s->ex);
		return IBV_WC_SUCCESS;
	case WOOKIE_WR_BIND_MW:
		fprintf(stderr,
			"fake: bind mw %#x -> rkey %#x mr %#x addr %#llx len %llu access %#x\n",
			s->bind.mw_rkey, s->bind.rkey, s->bind.mr_lkey,
			(unsigned long long)s->bind.addr,
			(unsigned long long)s->bind.length, s->bind.access);
		return IBV_WC_SUCCESS;
	}

	len = sqe_gather(s, buf);
	*byte_len = len;
	if (s->opcode == WOOKIE_WR_RDMA_WRITE ||
	    s->opcode == WOOKIE_WR_RDMA_WRITE_WITH_IMM)
		memcpy((void *)(uintptr_t)s->rdma.remote_addr, buf, len);
	if (s->opcode == WOOKIE_WR_RDMA_WRITE)
		return IBV_WC_SUCCESS;

	if (qp->type == IBV_QPT_UD) {
		if (s->ud.ah_num < AH_NUM(0) || s->ud.ah_num >= AH_NUM(ahs)) {
			fprintf(stderr, "fake: bad ah_num %#x\n", s->ud.ah_num);
			return IBV_WC_LOC_QP_OP_ERR;
		}
		dst = qp_by_qpn(s->ud.remote_qpn);
		fprintf(stderr, "fake: UD to qpn %#x qkey %#x via ah %#x\n",
			s->ud.remote_qpn, s->ud.remote_qkey, s->ud.ah_num);
	} else if (xsrq < 0) {
		dst = qp_by_qpn(qp->dest_qpn);
	}
	if (!dst)
		return IBV_WC_RETRY_EXC_ERR;
	/* XRC: the SRQ the WQE named, and that SRQ's CQ. */
	rq = xsrq >= 0 ? &srqs[xsrq].r :
	     dst->srq >= 0 ? &srqs[dst->srq].r : &dst->rq;
	rcq = xsrq >= 0 ? srqs[xsrq].cq : dst->recv_cq;
	if (!recv_pop(rq, &rqe))
		return IBV_WC_RNR_RETRY_EXC_ERR;

	rc.wr_id = rqe->wr_id;
	rc.status = IBV_WC_SUCCESS;
	rc.qp_num = QPN(dst - qps);
	rc.src_qp = QPN(h);
	rc.sl = 3;
	rc.ex = s->ex;
	rc.byte_len = len;
	if (s->opcode == WOOKIE_WR_RDMA_WRITE_WITH_IMM) {
		rc.opcode = WOOKIE_CQE_RECV_RDMA_WITH_IMM;
		rc.flags = WOOKIE_CQE_WITH_IMM;
	} else {
		rc.opcode = WOOKIE_CQE_RECV;
		if (s->opcode == WOOKIE_WR_SEND_WITH_IMM)
			rc.flags = WOOKIE_CQE_WITH_IMM;
		if (s->opcode == WOOKIE_WR_SEND_WITH_INV)
			rc.flags = WOOKIE_CQE_WITH_INV;
		if (dst->type == IBV_QPT_UD) {
			/* A zeroed 40-byte GRH in front of the payload. */
			memmove(buf + 40, buf, len);
			memset(buf, 0, 40);
			len += 40;
			rc.byte_len = len;
			rc.flags |= WOOKIE_CQE_GRH;
		}
		scatter((const void *)(rqe + 1), rqe->num_sge, buf, len);
	}
	recv_done(rq);
	cq_post(rcq, &rc);
	return IBV_WC_SUCCESS;
}

static const uint8_t cqe_opcode[] = {
	[WOOKIE_WR_SEND] = WOOKIE_CQE_SEND,
	[WOOKIE_WR_SEND_WITH_IMM] = WOOKIE_CQE_SEND,
	[WOOKIE_WR_SEND_WITH_INV] = WOOKIE_CQE_SEND,
	[WOOKIE_WR_RDMA_WRITE] = WOOKIE_CQE_RDMA_WRITE,
	[WOOKIE_WR_RDMA_WRITE_WITH_IMM] = WOOKIE_CQE_RDMA_WRITE,
	[WOOKIE_WR_RDMA_READ] = WOOKIE_CQE_RDMA_READ,
	[WOOKIE_WR_ATOMIC_CMP_AND_SWP] = WOOKIE_CQE_COMP_SWAP,
	[WOOKIE_WR_ATOMIC_FETCH_AND_ADD] = WOOKIE_CQE_FETCH_ADD,
	[WOOKIE_WR_LOCAL_INV] = WOOKIE_CQE_LOCAL_INV,
	[WOOKIE_WR_BIND_MW] = WOOKIE_CQE_BIND_MW,
};

/* The doorbell: run the SQ of QP h up to its producer. */
static void sq_run(int h)
{
	struct fqp *qp = &qps[h];
	uint32_t prod = load_acq(&qp->sq.hdr->producer);
	const struct wookie_sqe *s;
	struct wookie_cqe c;
	uint32_t n = 0;

	if (prod - qp->sq.index > qp->sq.n) {
		fprintf(stderr, "fake: qp %d producer %u insane\n", h, prod);
		return;
	}
	while (qp->sq.index != prod) {
		s = ring_slot(&qp->sq, qp->sq.index);
		memset(&c, 0, sizeof(c));
		c.status = sqe_exec(h, s, &c.byte_len);
		c.wr_id = s->wr_id;
		c.opcode = s->opcode < sizeof(cqe_opcode) ? cqe_opcode[s->opcode] : 0;
		c.qp_num = QPN(h);
		c.vendor_err = c.status ? 0x77 : 0;
		if (c.status || (s->flags & WOOKIE_WQE_SIGNALED))
			cq_post(qp->send_cq, &c);
		qp->sq.index++;
		n++;
	}
	store_rel(&qp->sq.hdr->consumer, qp->sq.index);
	fprintf(stderr, "fake: doorbell qp %d ran %u WQEs\n", h, n);
}

/* ib_uverbs_cmd_hdr, optional ib_uverbs_ex_cmd_hdr, then the core request. */
struct cmd {
	uint32_t op;
	bool ex;
	const void *req;
	size_t in_len;
	void *resp;
	size_t out_len;
};

static void cq_create(bool ex, uint32_t cqe, struct wookie_create_cq_resp *drv,
		      uint32_t *handle_cqe)
{
	int h = alloc_handle(cqs, sizeof(cqs[0]));

	cqs[h].used = true;
	ring_init(&cqs[h].r, cqe + 1, sizeof(struct wookie_cqe));
	ring_info(&cqs[h].r, &drv->cq);
	handle_cqe[0] = h;
	handle_cqe[1] = cqs[h].r.n - 1;
	fprintf(stderr, "fake: create_cq %d cqe %u -> %u entries%s\n", h, cqe,
		cqs[h].r.n, ex ? " (ex)" : "");
}

static int qp_create(const struct ib_uverbs_create_qp *q, bool ex,
		     struct ib_uverbs_create_qp_resp *base,
		     struct wookie_create_qp_resp *drv)
{
	int h = alloc_handle(qps, sizeof(qps[0]));
	struct fqp *qp = &qps[h];
	uint32_t stride;

	memset(qp, 0, sizeof(*qp));
	qp->type = q->qp_type;
	qp->xrcd = -1;
	qp->alias_of = -1;
	/*
	 * An XRC_RECV QP: created in the domain pd_handle names, with no
	 * rings, and without the caller's udata (drv is not written).
	 */
	if (qp->type == IBV_QPT_XRC_RECV) {
		if (q->pd_handle >= MAX_OBJ || !xrcds[q->pd_handle].used)
			return EINVAL;
		qp->used = true;
		qp->xrcd = q->pd_handle;
		qp->domain = xrcds[qp->xrcd].domain;
		qp->srq = -1;
		xrcds[qp->xrcd].users++;
		base->qp_handle = h;
		base->qpn = QPN(h);
		/* An XRC_RECV QP has no queue. */
		base->max_send_wr = 0;
		base->max_recv_wr = 0;
		base->max_send_sge = 0;
		base->max_recv_sge = 0;
		base->max_inline_data = 0;
		fprintf(stderr, "fake: create_qp %d type %u%s in xrcd %d\n", h,
			qp->type, ex ? " (ex)" : "", qp->xrcd);
		return 0;
	}
	if (qp->type == IBV_QPT_XRC_SEND &&
	    (q->is_srq || q->max_recv_wr || q->max_recv_sge))
		return EINVAL;
	qp->used = true;
	qp->has_rq = !q->is_srq && qp->type != IBV_QPT_XRC_SEND;
	qp->sig_all = q->sq_sig_all;
	qp->send_cq = q->send_cq_handle;
	qp->recv_cq = q->recv_cq_handle;
	qp->srq = q->is_srq ? (int)q->srq_handle : -1;
	qp->max_sge = q->max_send_sge ? q->max_send_sge : 1;
	qp->max_inline = q->max_inline_data < 64 ? 64 : q->max_inline_data;
	qp->rq_max_sge = q->max_recv_sge ? q->max_recv_sge : 1;

	stride = sizeof(struct wookie_sqe) +
		 (qp->max_sge * 16 > qp->max_inline ? qp->max_sge * 16 :
						      qp->max_inline);
	stride = (stride + 63) & ~63u;
	ring_init(&qp->sq, q->max_send_wr, stride);
	ring_info(&qp->sq, &drv->sq);
	qp->sq.hdr->flags = env_ul("FAKE_UVERBS_WAKEUP", WOOKIE_RING_NEED_WAKEUP);
	if (qp->has_rq) {
		ring_init(&qp->rq, q->max_recv_wr,
			  WOOKIE_RQE_SIZE(qp->rq_max_sge));
		ring_info(&qp->rq, &drv->rq);
		if (env_ul("FAKE_UVERBS_FLUSH", 0))
			qp->rq.hdr->flags = WOOKIE_RING_FLUSH;
	}
	drv->qp_num = QPN(h);

	base->qp_handle = h;
	base->qpn = QPN(h);
	base->max_send_wr = qp->sq.n;
	base->max_recv_wr = qp->has_rq ? qp->rq.n : 0;
	base->max_send_sge = qp->max_sge;
	base->max_recv_sge = qp->has_rq ? qp->rq_max_sge : 0;
	base->max_inline_data = qp->max_inline;
	fprintf(stderr,
		"fake: create_qp %d type %u%s sq %u x %u rq %u srq %d inline %u\n",
		h, qp->type, ex ? " (ex)" : "", qp->sq.n, stride,
		qp->has_rq ? qp->rq.n : 0, qp->srq, qp->max_inline);
	return 0;
}

static int handle(struct cmd *c)
{
	void *out = c->resp;
	int h;

	switch (c->op) {
	case IB_USER_VERBS_CMD_QUERY_DEVICE: {
		struct ib_uverbs_ex_query_device_resp *r = out;

		memset(r, 0, c->out_len);
		if (c->ex)
			r->response_length = c->out_len;
		r->base.max_qp = 64;
		r->base.hw_ver = 1;
		/* A kernel that does not know the clock reports 0. */
		return 0;
	}
	case IB_USER_VERBS_CMD_ALLOC_PD: {
		struct ib_uverbs_alloc_pd_resp *r = out;

		if (!env_ul("FAKE_UVERBS_PD", 0))
			return EOPNOTSUPP;
		r->pd_handle = 42;
		return 0;
	}
	case IB_USER_VERBS_CMD_DEALLOC_PD:
		return 0;
	case IB_USER_VERBS_CMD_REG_MR: {
		const struct ib_uverbs_reg_mr *q = c->req;
		struct ib_uverbs_reg_mr_resp *r = out;

		r->mr_handle = mrs;
		r->lkey = 0x1000 + (mrs << 8);
		r->rkey = 0x1000 + (mrs << 8) + 1;
		fprintf(stderr, "fake: reg_mr %d len %llu access %#x\n", mrs,
			(unsigned long long)q->length, q->access_flags);
		mrs++;
		return 0;
	}
	case IB_USER_VERBS_CMD_REREG_MR: {
		const struct ib_uverbs_rereg_mr *q = c->req;
		struct ib_uverbs_rereg_mr_resp *r = out;

		r->lkey = 0x9000 + q->mr_handle;
		r->rkey = 0x9001 + q->mr_handle;
		fprintf(stderr, "fake: rereg_mr %u flags %#x access %#x\n",
			q->mr_handle, q->flags, q->access_flags);
		return 0;
	}
	case IB_USER_VERBS_CMD_DEREG_MR:
		return 0;
	case IB_USER_VERBS_CMD_ALLOC_MW: {
		const struct ib_uverbs_alloc_mw *q = c->req;
		struct ib_uverbs_alloc_mw_resp *r = out;

		r->mw_handle = mws;
		r->rkey = 0x5000 + (mws << 8);
		fprintf(stderr, "fake: alloc_mw %d type %u\n", mws, q->mw_type);
		mws++;
		return 0;
	}
	case IB_USER_VERBS_CMD_DEALLOC_MW:
		return 0;
	case IB_USER_VERBS_CMD_CREATE_AH: {
		struct {
			struct ib_uverbs_create_ah_resp core;
			struct wookie_create_ah_resp drv;
		} *r = out;

		if (c->out_len < sizeof(*r))
			return EINVAL;
		r->core.ah_handle = ahs;
		r->drv.ah_num = AH_NUM(ahs);
		ahs++;
		return 0;
	}
	case IB_USER_VERBS_CMD_DESTROY_AH:
		return 0;
	case IB_USER_VERBS_CMD_CREATE_CQ: {
		struct {
			uint32_t handle_cqe[2];
			struct wookie_create_cq_resp drv;
		} *r = out;
		struct {
			uint32_t handle_cqe[4];
			struct wookie_create_cq_resp drv;
		} *rx = out;
		uint32_t cqe;

		if (c->ex) {
			const struct ib_uverbs_ex_create_cq *q = c->req;

			if (c->out_len < sizeof(*rx))
				return EINVAL;
			cqe = q->cqe;
			fprintf(stderr, "fake: create_cq flags %#x\n", q->flags);
			cq_create(true, cqe, &rx->drv, rx->handle_cqe);
			rx->handle_cqe[3] = c->out_len;
		} else {
			const struct ib_uverbs_create_cq *q = c->req;

			if (c->out_len < sizeof(*r))
				return EINVAL;
			cq_create(false, q->cqe, &r->drv, r->handle_cqe);
		}
		return 0;
	}
	case IB_USER_VERBS_CMD_RESIZE_CQ: {
		const struct ib_uverbs_resize_cq *q = c->req;
		struct {
			struct ib_uverbs_resize_cq_resp core;
			struct wookie_resize_cq_resp drv;
		} *r = out;
		struct fcq *cq = &cqs[q->cq_handle];
		struct ring old = cq->r;
		uint32_t i, cons = load_acq(&old.hdr->consumer);

		if (c->out_len < sizeof(*r))
			return EINVAL;
		if (old.index - cons > q->cqe)
			return EINVAL;
		ring_init(&cq->r, q->cqe + 1, sizeof(struct wookie_cqe));
		/* Unconsumed CQEs keep their indices in the new ring. */
		cq->r.index = cons;
		cq->r.hdr->consumer = cons;
		for (i = cons; i != old.index; i++)
			memcpy(ring_slot(&cq->r, cq->r.index++),
			       ring_slot(&old, i), sizeof(struct wookie_cqe));
		cq->r.hdr->producer = cq->r.index;
		shm_free(old.shm);
		ring_info(&cq->r, &r->drv.cq);
		r->core.cqe = cq->r.n - 1;
		fprintf(stderr, "fake: resize_cq %u -> %u entries, %u moved\n",
			q->cq_handle, cq->r.n, old.index - cons);
		return 0;
	}
	case IB_USER_VERBS_CMD_DESTROY_CQ: {
		const struct ib_uverbs_destroy_cq *q = c->req;

		memset(out, 0, c->out_len);
		cqs[q->cq_handle].used = false;
		shm_free(cqs[q->cq_handle].r.shm);
		return 0;
	}
	case IB_USER_VERBS_CMD_CREATE_SRQ: {
		const struct ib_uverbs_create_srq *q = c->req;
		struct {
			struct ib_uverbs_create_srq_resp core;
			struct wookie_create_srq_resp drv;
		} *r = out;

		if (c->out_len < sizeof(*r))
			return EINVAL;
		h = alloc_handle(srqs, sizeof(srqs[0]));
		srqs[h].used = true;
		srqs[h].xrcd = -1;
		srqs[h].max_sge = q->max_sge ? q->max_sge : 1;
		ring_init(&srqs[h].r, q->max_wr,
			  WOOKIE_RQE_SIZE(srqs[h].max_sge));
		ring_info(&srqs[h].r, &r->drv.srq);
		r->core.srq_handle = h;
		r->core.max_wr = srqs[h].r.n;
		r->core.max_sge = srqs[h].max_sge;
		fprintf(stderr, "fake: create_srq %d %u entries\n", h,
			srqs[h].r.n);
		return 0;
	}
	case IB_USER_VERBS_CMD_MODIFY_SRQ: {
		const struct ib_uverbs_modify_srq *q = c->req;
		const struct wookie_modify_srq_req *d = (const void *)(q + 1);
		struct fsrq *srq = &srqs[q->srq_handle];
		struct wookie_modify_srq_resp *r;
		struct ring old = srq->r;
		uint32_t i, prod;

		if (!(q->attr_mask & IBV_SRQ_MAX_WR))
			return 0;
		if (c->in_len < sizeof(*q) + sizeof(*d) || !d->resp_addr)
			return EINVAL;
		prod = load_acq(&old.hdr->producer);
		if (!q->max_wr || prod - old.index > pow2(q->max_wr))
			return EINVAL;
		/* Posted WQEs keep their indices in the new ring. */
		ring_init(&srq->r, q->max_wr, old.stride);
		srq->r.index = old.index;
		srq->r.hdr->consumer = old.index;
		for (i = old.index; i != prod; i++)
			memcpy(ring_slot(&srq->r, i), ring_slot(&old, i),
			       old.stride);
		srq->r.hdr->producer = prod;
		shm_free(old.shm);
		r = (void *)(uintptr_t)d->resp_addr;
		ring_info(&srq->r, &r->srq);
		fprintf(stderr, "fake: resize_srq %u -> %u entries, %u moved\n",
			q->srq_handle, srq->r.n, prod - old.index);
		return 0;
	}
	case IB_USER_VERBS_CMD_CREATE_XSRQ: {
		const struct ib_uverbs_create_xsrq *q = c->req;
		struct {
			struct ib_uverbs_create_srq_resp core;
			struct wookie_create_srq_resp drv;
		} *r = out;

		if (c->out_len < sizeof(*r))
			return EINVAL;
		if (q->srq_type != IBV_SRQT_XRC)
			return EOPNOTSUPP;
		if (q->xrcd_handle >= MAX_OBJ || !xrcds[q->xrcd_handle].used ||
		    q->cq_handle >= MAX_OBJ || !cqs[q->cq_handle].used)
			return EINVAL;
		h = alloc_handle(srqs, sizeof(srqs[0]));
		srqs[h].used = true;
		srqs[h].xrcd = q->xrcd_handle;
		srqs[h].domain = xrcds[q->xrcd_handle].domain;
		srqs[h].cq = q->cq_handle;
		xrcds[q->xrcd_handle].users++;
		srqs[h].max_sge = q->max_sge ? q->max_sge : 1;
		ring_init(&srqs[h].r, q->max_wr,
			  WOOKIE_RQE_SIZE(srqs[h].max_sge));
		ring_info(&srqs[h].r, &r->drv.srq);
		r->core.srq_handle = h;
		r->core.max_wr = srqs[h].r.n;
		r->core.max_sge = srqs[h].max_sge;
		r->core.srqn = SRQN(h);
		fprintf(stderr, "fake: create_srq %d XRC srqn %#x xrcd %u cq %u\n",
			h, SRQN(h), q->xrcd_handle, q->cq_handle);
		return 0;
	}
	case IB_USER_VERBS_CMD_DESTROY_SRQ: {
		const struct ib_uverbs_destroy_srq *q = c->req;

		memset(out, 0, c->out_len);
		if (srqs[q->srq_handle].xrcd >= 0)
			xrcds[srqs[q->srq_handle].xrcd].users--;
		srqs[q->srq_handle].used = false;
		shm_free(srqs[q->srq_handle].r.shm);
		return 0;
	}
	case IB_USER_VERBS_CMD_CREATE_QP:
		if (c->ex) {
			struct {
				struct ib_uverbs_ex_create_qp_resp core;
				struct wookie_create_qp_resp drv;
			} *r = out;
			const struct ib_uverbs_ex_create_qp *x = c->req;
			struct ib_uverbs_create_qp q = {
				.send_cq_handle = x->send_cq_handle,
				.recv_cq_handle = x->recv_cq_handle,
				.srq_handle = x->srq_handle,
				.max_send_wr = x->max_send_wr,
				.max_recv_wr = x->max_recv_wr,
				.max_send_sge = x->max_send_sge,
				.max_recv_sge = x->max_recv_sge,
				.max_inline_data = x->max_inline_data,
				.sq_sig_all = x->sq_sig_all,
				.qp_type = x->qp_type,
				.is_srq = x->is_srq,
				.pd_handle = x->pd_handle,
			};

			if (c->out_len < sizeof(*r))
				return EINVAL;
			r->core.response_length = c->out_len;
			return qp_create(&q, true, &r->core.base, &r->drv);
		} else {
			struct {
				struct ib_uverbs_create_qp_resp core;
				struct wookie_create_qp_resp drv;
			} *r = out;

			if (c->out_len < sizeof(*r))
				return EINVAL;
			return qp_create(c->req, false, &r->core, &r->drv);
		}
	case IB_USER_VERBS_CMD_MODIFY_QP: {
		const struct ib_uverbs_modify_qp *q = c->req;
		struct fqp *qp = &qps[q->qp_handle];

		/* An opened QP is a handle on the one it opened. */
		if (qp->alias_of >= 0)
			qp = &qps[qp->alias_of];
		if (q->attr_mask & IBV_QP_DEST_QPN)
			qp->dest_qpn = q->dest_qp_num;
		if (q->attr_mask & IBV_QP_STATE)
			qp->state = q->qp_state;
		return 0;
	}
	case IB_USER_VERBS_CMD_QUERY_QP: {
		const struct ib_uverbs_query_qp *q = c->req;
		struct ib_uverbs_query_qp_resp *r = out;
		struct fqp *qp = &qps[q->qp_handle];

		if (c->out_len < sizeof(*r))
			return EINVAL;
		if (qp->alias_of >= 0)
			qp = &qps[qp->alias_of];
		memset(r, 0, sizeof(*r));
		r->qp_state = qp->state;
		r->dest_qp_num = qp->dest_qpn;
		return 0;
	}
	case IB_USER_VERBS_CMD_DESTROY_QP: {
		const struct ib_uverbs_destroy_qp *q = c->req;
		struct fqp *qp = &qps[q->qp_handle];
		int real = qp->alias_of;

		memset(out, 0, c->out_len);
		if (qp->xrcd >= 0) {
			/* An XRC_RECV QP lives while a handle is open. */
			xrcds[qp->xrcd].users--;
			qp->xrcd = -1;
			if (real < 0 && qp_opened(q->qp_handle)) {
				qp->orphan = true;
				return 0;
			}
			qp->used = false;
			if (real >= 0 && qps[real].orphan && !qp_opened(real))
				qps[real].used = false;
			return 0;
		}
		qp->used = false;
		shm_free(qp->sq.shm);
		if (qp->has_rq)
			shm_free(qp->rq.shm);
		return 0;
	}
	case IB_USER_VERBS_CMD_OPEN_QP: {
		const struct ib_uverbs_open_qp *q = c->req;
		struct ib_uverbs_create_qp_resp *r = out;
		struct fqp *real = qp_by_qpn(q->qpn);

		if (c->out_len < sizeof(*r))
			return EINVAL;
		if (q->qp_type != IBV_QPT_XRC_RECV || q->pd_handle >= MAX_OBJ ||
		    !xrcds[q->pd_handle].used || !real ||
		    real->type != IBV_QPT_XRC_RECV ||
		    real->domain != xrcds[q->pd_handle].domain)
			return EINVAL;
		h = alloc_handle(qps, sizeof(qps[0]));
		memset(&qps[h], 0, sizeof(qps[h]));
		qps[h].used = true;
		qps[h].type = IBV_QPT_XRC_RECV;
		qps[h].xrcd = q->pd_handle;
		qps[h].domain = real->domain;
		qps[h].alias_of = real - qps;
		qps[h].srq = -1;
		xrcds[q->pd_handle].users++;
		memset(r, 0, sizeof(*r));
		r->qp_handle = h;
		r->qpn = q->qpn;
		fprintf(stderr, "fake: open_qp %#x as %d in xrcd %u\n", q->qpn, h,
			q->pd_handle);
		return 0;
	}
	case IB_USER_VERBS_CMD_OPEN_XRCD: {
		const struct ib_uverbs_open_xrcd *q = c->req;
		struct ib_uverbs_open_xrcd_resp *r = out;
		struct stat st;
		int i, domain = 0;

		if (c->out_len < sizeof(*r))
			return EINVAL;
		/* As ib_core: a file names a domain, fd -1 a new one. */
		if ((int)q->fd != -1) {
			if (fstat(q->fd, &st))
				return EBADF;
			for (i = 0; i < MAX_OBJ; i++)
				if (xrcds[i].used && xrcds[i].has_inode &&
				    xrcds[i].dev == st.st_dev &&
				    xrcds[i].ino == st.st_ino)
					domain = xrcds[i].domain;
			if (!domain && !(q->oflags & O_CREAT))
				return EAGAIN;
			if (domain && (q->oflags & O_EXCL))
				return EINVAL;
		}
		h = alloc_handle(xrcds, sizeof(xrcds[0]));
		memset(&xrcds[h], 0, sizeof(xrcds[h]));
		xrcds[h].used = true;
		xrcds[h].domain = domain ? domain : next_domain++;
		if ((int)q->fd != -1) {
			xrcds[h].has_inode = true;
			xrcds[h].dev = st.st_dev;
			xrcds[h].ino = st.st_ino;
		}
		r->xrcd_handle = h;
		fprintf(stderr, "fake: open_xrcd %d domain %d\n", h,
			xrcds[h].domain);
		return 0;
	}
	case IB_USER_VERBS_CMD_CLOSE_XRCD: {
		const struct ib_uverbs_close_xrcd *q = c->req;

		/* No response: out is not a pointer here. */
		if (q->xrcd_handle >= MAX_OBJ || !xrcds[q->xrcd_handle].used)
			return EINVAL;
		if (xrcds[q->xrcd_handle].users)
			return EBUSY;
		xrcds[q->xrcd_handle].used = false;
		fprintf(stderr, "fake: close_xrcd %u\n", q->xrcd_handle);
		return 0;
	}
	case IB_USER_VERBS_CMD_POST_SEND: {
		const struct ib_uverbs_post_send *q = c->req;

		memset(out, 0, c->out_len);
		if (q->wr_count)
			return EINVAL;
		sq_run(q->qp_handle);
		return 0;
	}
	case IB_USER_VERBS_CMD_POST_RECV:
	case IB_USER_VERBS_CMD_POST_SRQ_RECV: {
		const struct ib_uverbs_post_recv *q = c->req;

		memset(out, 0, c->out_len);
		if (q->wr_count)
			return EINVAL;
		fprintf(stderr, "fake: %s doorbell %u\n",
			c->op == IB_USER_VERBS_CMD_POST_RECV ? "post_recv" :
							       "post_srq_recv",
			q->qp_handle);
		return 0;
	}
	}
	fprintf(stderr, "fake: unexpected command %#x%s\n", c->op,
		c->ex ? " (ex)" : "");
	return EOPNOTSUPP;
}

ssize_t write(int fd, const void *buf, size_t len)
{
	const struct ib_uverbs_cmd_hdr *hdr = buf;
	const uint64_t *core = (const void *)(hdr + 1);
	struct cmd c = {};
	int ret;

	resolve();
	if (len < sizeof(*hdr) || !is_fake(fd))
		return real_write(fd, buf, len);

	c.op = hdr->command & IB_USER_VERBS_CMD_COMMAND_MASK;
	c.ex = hdr->command & IB_USER_VERBS_CMD_FLAG_EXTENDED;
	if (c.ex) {
		const struct ib_uverbs_ex_cmd_hdr *ex = (const void *)(hdr + 1);

		c.req = ex + 1;
		c.in_len = (hdr->in_words + ex->provider_in_words) * 8;
		c.resp = (void *)(uintptr_t)ex->response;
		c.out_len = (hdr->out_words + ex->provider_out_words) * 8;
	} else {
		c.req = core;
		c.in_len = hdr->in_words * 4 - sizeof(*hdr);
		c.resp = (void *)(uintptr_t)core[0];
		c.out_len = hdr->out_words * 4;
	}

	if (c.op == IB_USER_VERBS_CMD_GET_CONTEXT) {
		const struct wookie_alloc_ucontext_req *req = (const void *)(core + 1);
		struct {
			struct ib_uverbs_get_context_resp core;
			struct wookie_alloc_ucontext_resp drv;
		} *resp = c.resp;
		size_t db_size = env_ul("FAKE_UVERBS_DB_SIZE", 4096);

		fprintf(stderr, "fake: get_context in %u words, out %u words, abi %u\n",
			hdr->in_words, hdr->out_words, req->abi_version);
		memset(resp, 0, c.out_len);
		resp->core.async_fd = eventfd(0, EFD_CLOEXEC);
		resp->core.num_comp_vectors = 1;
		resp->drv.abi_version = env_ul("FAKE_UVERBS_ABI", WOOKIE_ABI_VERSION);
		resp->drv.db_page_size = db_size;
		resp->drv.db_page_key = FAKE_KEY;
		if (!db_page) {
			db_page = shm_new(db_size < 4096 ? 4096 : db_size, false);
			db_page->key = FAKE_KEY;
		}
		return len;
	}

	ret = handle(&c);
	if (ret) {
		errno = ret;
		return -1;
	}
	return len;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct shm *s = NULL;
	unsigned int i;
	void *p;

	resolve();
	if (fd < 0 || !is_fake(fd))
		return real_mmap(addr, len, prot, flags, fd, off);

	fprintf(stderr, "fake: mmap len %zu prot %#x flags %#x key %#llx\n",
		len, prot, flags, (unsigned long long)off);
	for (i = 0; i < sizeof(shms) / sizeof(shms[0]); i++)
		if (shms[i] && shms[i]->key == (uint64_t)off)
			s = shms[i];
	if (env_ul("FAKE_UVERBS_MMAP_FAIL", 0) || !s || !(flags & MAP_SHARED) ||
	    len != (s == db_page ? env_ul("FAKE_UVERBS_DB_SIZE", 4096) : s->size) ||
	    ((prot & PROT_WRITE) && !s->writable)) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	p = real_mmap(addr, len, prot, flags, s->fd, 0);
	if (p != MAP_FAILED)
		map_track(p, len);
	return p;
}

int munmap(void *addr, size_t len)
{
	int i;

	resolve();
	for (i = 0; i < MAX_MAPS; i++)
		if (maps[i].addr == addr) {
			if (maps[i].len != len)
				fprintf(stderr, "fake: munmap of %zu bytes, mapped %zu\n",
					len, maps[i].len);
			maps[i].addr = NULL;
		}
	return real_munmap(addr, len);
}

static void __attribute__((destructor)) fake_report(void)
{
	int i, n = 0;

	for (i = 0; i < MAX_MAPS; i++)
		if (maps[i].addr)
			n++;
	if (n)
		fprintf(stderr, "fake: %d mapping(s) leaked\n", n);
}
