// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The provider's data path against fake-uverbs.so's loopback "kernel": CQs,
 * QPs (RC, UD, with an SRQ, XRC), posting and polling through the rings, the
 * ibv_qp_ex wr_* API and ibv_cq_ex, memory windows, CQ resize and arming.
 * Built twice by host-check: with the distro's libibverbs 44 and with
 * rdma-core 56.1's, whose struct verbs_qp layouts differ.
 *
 * Usage: datapath <ibdev> [nowake]
 *   nowake: the SQ header says the engine watches it; only check that the SQ
 *   fills up and that no doorbell is rung.
 * Prints one FAIL line per failed check and "datapath: N checks, M failed".
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

static int checks, fails;

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		checks++;                                                      \
		if (!(cond)) {                                                 \
			fails++;                                               \
			printf("FAIL %s:%d: %s: ", __func__, __LINE__, #cond); \
			printf(__VA_ARGS__);                                   \
			printf("\n");                                          \
		}                                                              \
	} while (0)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr_a, *mr_b;
static uint8_t buf_a[8192] __attribute__((aligned(64)));
static uint8_t buf_b[8192] __attribute__((aligned(64)));

/* The provider refuses posts before RTS; the fake kernel has no states. */
static void to_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_RTS };

	CHECK(!ibv_modify_qp(qp, &attr, IBV_QP_STATE), "modify_qp to RTS");
}

static struct ibv_qp *make_qp(enum ibv_qp_type type, struct ibv_cq *scq,
			      struct ibv_cq *rcq, struct ibv_srq *srq,
			      uint32_t depth)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = scq,
		.recv_cq = rcq,
		.srq = srq,
		.cap = {
			.max_send_wr = depth,
			.max_recv_wr = depth,
			.max_send_sge = 2,
			.max_recv_sge = 2,
			.max_inline_data = 64,
		},
		.qp_type = type,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &attr);

	CHECK(qp, "create_qp: %s", strerror(errno));
	if (qp)
		to_rts(qp);
	return qp;
}

static void connect_qp(struct ibv_qp *qp, struct ibv_qp *peer)
{
	struct ibv_qp_attr attr = { .dest_qp_num = peer->qp_num };

	CHECK(!ibv_modify_qp(qp, &attr, IBV_QP_DEST_QPN), "modify_qp");
}

static int poll(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	int got = 0, r;

	while (got < n) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		if (r <= 0)
			break;
		got += r;
	}
	return got;
}

static int post_recv(struct ibv_qp *qp, uint64_t id, void *addr, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = mr_b->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

static void test_rc(void)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp *qa, *qb;
	struct ibv_sge sge[3];
	struct ibv_send_wr wr, *bad;
	struct ibv_wc wc[4];
	uint64_t *target = (uint64_t *)(buf_b + 4096);
	int ret;

	CHECK(cq, "create_cq: %s", strerror(errno));
	if (!cq)
		return;
	qa = make_qp(IBV_QPT_RC, cq, cq, NULL, 8);
	qb = make_qp(IBV_QPT_RC, cq, cq, NULL, 8);
	if (!qa || !qb)
		return;
	connect_qp(qa, qb);
	connect_qp(qb, qa);

	/* SEND gathered from two SGEs. */
	memcpy(buf_a, "hello ", 6);
	memcpy(buf_a + 100, "world", 5);
	CHECK(!post_recv(qb, 0xb1, buf_b, 100), "post_recv");
	sge[0] = (struct ibv_sge){ (uintptr_t)buf_a, 6, mr_a->lkey };
	sge[1] = (struct ibv_sge){ (uintptr_t)buf_a + 100, 5, mr_a->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0xa1;
	wr.sg_list = sge;
	wr.num_sge = 2;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	ret = ibv_post_send(qa, &wr, &bad);
	CHECK(!ret, "post_send: %s", strerror(ret));
	CHECK(poll(cq, wc, 2) == 2, "two completions");
	CHECK(wc[0].wr_id == 0xb1 && wc[0].opcode == IBV_WC_RECV &&
		      wc[0].status == IBV_WC_SUCCESS && wc[0].byte_len == 11 &&
		      wc[0].qp_num == qb->qp_num &&
		      wc[0].src_qp == qa->qp_num && wc[0].wc_flags == 0 &&
		      wc[0].sl == 3 && wc[0].slid == 0,
	      "recv wc: id %#llx op %d status %d len %u qp %#x src %#x flags %#x",
	      (unsigned long long)wc[0].wr_id, wc[0].opcode, wc[0].status,
	      wc[0].byte_len, wc[0].qp_num, wc[0].src_qp, wc[0].wc_flags);
	CHECK(!memcmp(buf_b, "hello world", 11), "received data");
	CHECK(wc[1].wr_id == 0xa1 && wc[1].opcode == IBV_WC_SEND &&
		      wc[1].status == IBV_WC_SUCCESS && wc[1].byte_len == 11,
	      "send wc: id %#llx op %d len %u", (unsigned long long)wc[1].wr_id,
	      wc[1].opcode, wc[1].byte_len);

	/* SEND with immediate, inline; then an unsignaled SEND. */
	CHECK(!post_recv(qb, 0xb2, buf_b + 200, 100), "post_recv");
	CHECK(!post_recv(qb, 0xb3, buf_b + 300, 100), "post_recv");
	memcpy(buf_a + 200, "inline!", 7);
	sge[0] = (struct ibv_sge){ (uintptr_t)buf_a + 200, 7, 0 };
	wr.wr_id = 0xa2;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.imm_data = htobe32(0x12345678);
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	ret = ibv_post_send(qa, &wr, &bad);
	CHECK(!ret, "post_send inline: %s", strerror(ret));
	memset(buf_a + 200, 0, 7);	/* inline: copied at post time */
	wr.wr_id = 0xa3;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_INLINE;
	ret = ibv_post_send(qa, &wr, &bad);
	CHECK(!ret, "post_send unsignaled: %s", strerror(ret));
	CHECK(poll(cq, wc, 4) == 3, "three completions");
	CHECK(wc[0].wr_id == 0xb2 && (wc[0].wc_flags & IBV_WC_WITH_IMM) &&
		      wc[0].imm_data == htobe32(0x12345678) &&
		      wc[0].byte_len == 7,
	      "imm recv: flags %#x imm %#x", wc[0].wc_flags, wc[0].imm_data);
	CHECK(!memcmp(buf_b + 200, "inline!", 7), "inline data");
	CHECK(wc[1].wr_id == 0xa2 && wc[2].wr_id == 0xb3, "ids %#llx %#llx",
	      (unsigned long long)wc[1].wr_id, (unsigned long long)wc[2].wr_id);

	/* RDMA WRITE with immediate, READ, atomics. */
	CHECK(!post_recv(qb, 0xb4, buf_b + 400, 0), "post_recv");
	memcpy(buf_a + 1000, "written", 7);
	sge[0] = (struct ibv_sge){ (uintptr_t)buf_a + 1000, 7, mr_a->lkey };
	wr.wr_id = 0xa4;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.imm_data = htobe32(7);
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)buf_b + 1000;
	wr.wr.rdma.rkey = mr_b->rkey;
	CHECK(!ibv_post_send(qa, &wr, &bad), "post write_imm");
	CHECK(poll(cq, wc, 2) == 2, "write completions");
	CHECK(wc[0].opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
		      wc[0].imm_data == htobe32(7) && wc[0].byte_len == 7,
	      "write_imm recv: op %d", wc[0].opcode);
	CHECK(wc[1].opcode == IBV_WC_RDMA_WRITE, "write wc op %d",
	      wc[1].opcode);
	CHECK(!memcmp(buf_b + 1000, "written", 7), "written data");

	memcpy(buf_b + 2000, "remote", 6);
	sge[0] = (struct ibv_sge){ (uintptr_t)buf_a + 2000, 6, mr_a->lkey };
	wr.wr_id = 0xa5;
	wr.opcode = IBV_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = (uintptr_t)buf_b + 2000;
	CHECK(!ibv_post_send(qa, &wr, &bad), "post read");
	CHECK(poll(cq, wc, 1) == 1 && wc[0].opcode == IBV_WC_RDMA_READ &&
		      wc[0].byte_len == 6,
	      "read wc");
	CHECK(!memcmp(buf_a + 2000, "remote", 6), "read data");

	*target = 40;
	sge[0] = (struct ibv_sge){ (uintptr_t)buf_a + 4096, 8, mr_a->lkey };
	wr.wr_id = 0xa6;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = (uintptr_t)target;
	wr.wr.atomic.compare_add = 2;
	wr.wr.atomic.rkey = mr_b->rkey;
	CHECK(!ibv_post_send(qa, &wr, &bad), "post fetch_add");
	CHECK(poll(cq, wc, 1) == 1 && wc[0].opcode == IBV_WC_FETCH_ADD,
	      "fetch_add wc");
	CHECK(*target == 42 && *(uint64_t *)(buf_a + 4096) == 40,
	      "fetch_add: %llu", (unsigned long long)*target);
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 42;
	wr.wr.atomic.swap = 7;
	CHECK(!ibv_post_send(qa, &wr, &bad), "post cmp_swp");
	CHECK(poll(cq, wc, 1) == 1 && wc[0].opcode == IBV_WC_COMP_SWAP,
	      "cmp_swp wc");
	CHECK(*target == 7, "cmp_swp: %llu", (unsigned long long)*target);

	/* What the kernel's WQE check would refuse is refused at post. */
	sge[0].length = 4;
	bad = NULL;
	CHECK(ibv_post_send(qa, &wr, &bad) == EINVAL && bad == &wr,
	      "4-byte atomic");
	wr.opcode = IBV_WR_RDMA_READ;
	wr.send_flags = IBV_SEND_INLINE;
	CHECK(ibv_post_send(qa, &wr, &bad) == EINVAL, "inline READ");
	wr.opcode = IBV_WR_SEND;
	wr.num_sge = 3;
	wr.send_flags = 0;
	sge[1] = sge[2] = sge[0];
	CHECK(ibv_post_send(qa, &wr, &bad) == EINVAL, "3 SGEs");
	wr.num_sge = 1;
	sge[0].length = 4096;
	wr.send_flags = IBV_SEND_INLINE;
	CHECK(ibv_post_send(qa, &wr, &bad) == EINVAL, "inline too long");
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_IP_CSUM;
	CHECK(ibv_post_send(qa, &wr, &bad) == EINVAL, "IP_CSUM");
	CHECK(poll(cq, wc, 1) == 0, "nothing posted");

	/* A chain stops at the first bad WR; the ones before are posted. */
	{
		struct ibv_send_wr w2 = wr;

		sge[0].length = 1;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr_id = 0xa7;
		wr.next = &w2;
		w2.opcode = IBV_WR_RDMA_READ;
		w2.send_flags = IBV_SEND_INLINE;
		CHECK(!post_recv(qb, 0xb5, buf_b, 100), "post_recv");
		CHECK(ibv_post_send(qa, &wr, &bad) == EINVAL && bad == &w2,
		      "chain");
		CHECK(poll(cq, wc, 3) == 2, "first of chain done");
		wr.next = NULL;
	}

	/* The SRQ-less QP refuses nothing on post_recv... SRQ QPs do. */
	CHECK(!ibv_destroy_qp(qa), "destroy qa");
	CHECK(!ibv_destroy_qp(qb), "destroy qb");
	CHECK(!ibv_destroy_cq(cq), "destroy cq");
}

static void test_nowake(void)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp_init_attr attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_sge sge = { (uintptr_t)buf_a, 8, 0 };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
	}, *bad;
	struct ibv_qp *qp = ibv_create_qp(pd, &attr);
	unsigned int n = 0;
	int ret;

	CHECK(qp, "create_qp");
	if (!qp)
		return;
	to_rts(qp);
	while ((ret = ibv_post_send(qp, &wr, &bad)) == 0 && n < 100)
		n++;
	CHECK(ret == ENOMEM && bad == &wr, "full SQ: %s", strerror(ret));
	CHECK(n == attr.cap.max_send_wr, "%u WQEs fit, max_send_wr %u", n,
	      attr.cap.max_send_wr);
	CHECK(!ibv_destroy_qp(qp), "destroy qp");
	CHECK(!ibv_destroy_cq(cq), "destroy cq");
}

static void test_ex(void)
{
	struct ibv_cq_init_attr_ex cq_attr = {
		.cqe = 32,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
			    IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP |
			    IBV_WC_EX_WITH_SL |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK |
			    IBV_WC_EX_WITH_TM_INFO,
	};
	struct ibv_qp_init_attr_ex qp_attr = {
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 32 },
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_SEND_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_BIND_MW |
				  IBV_QP_EX_WITH_LOCAL_INV,
	};
	struct ibv_poll_cq_attr pattr = {};
	struct ibv_device_attr_ex dattr;
	struct ibv_values_ex values = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	struct ibv_mw_bind_info bind;
	struct ibv_qp *qp, *peer;
	struct ibv_cq_ex *cqx;
	struct ibv_qp_ex *qpx;
	struct ibv_sge sgl[3];
	struct ibv_mw *mw;
	struct timespec now;
	uint64_t ids[8], ts_prev = 0;
	int n = 0, ret;

	CHECK(!ibv_query_device_ex(ctx, NULL, &dattr), "query_device_ex");
	CHECK(dattr.hca_core_clock == 1000000 &&
		      dattr.completion_timestamp_mask == UINT64_MAX,
	      "hca_core_clock %llu", (unsigned long long)dattr.hca_core_clock);
	CHECK(!ibv_query_rt_values_ex(ctx, &values) &&
		      values.comp_mask == IBV_VALUES_MASK_RAW_CLOCK &&
		      values.raw_clock.tv_sec,
	      "query_rt_values");

	cq_attr.wc_flags |= IBV_WC_EX_WITH_CVLAN;
	CHECK(!ibv_create_cq_ex(ctx, &cq_attr) && errno == EOPNOTSUPP,
	      "cvlan refused");
	cq_attr.wc_flags &= ~IBV_WC_EX_WITH_CVLAN;
	cqx = ibv_create_cq_ex(ctx, &cq_attr);
	CHECK(cqx, "create_cq_ex: %s", strerror(errno));
	if (!cqx)
		return;
	qp_attr.send_cq = qp_attr.recv_cq = ibv_cq_ex_to_cq(cqx);

	qp_attr.send_ops_flags |= IBV_QP_EX_WITH_TSO;
	CHECK(!ibv_create_qp_ex(ctx, &qp_attr) && errno == EOPNOTSUPP,
	      "TSO refused");
	qp_attr.send_ops_flags &= ~IBV_QP_EX_WITH_TSO;
	qp = ibv_create_qp_ex(ctx, &qp_attr);
	CHECK(qp, "create_qp_ex: %s", strerror(errno));
	if (qp)
		to_rts(qp);
	peer = make_qp(IBV_QPT_RC, ibv_cq_ex_to_cq(cqx),
		       ibv_cq_ex_to_cq(cqx), NULL, 8);
	if (!qp || !peer)
		return;
	CHECK(!ibv_qp_to_qp_ex(peer), "plain QP has no qp_ex");
	qpx = ibv_qp_to_qp_ex(qp);
	CHECK(qpx, "ibv_qp_to_qp_ex");
	if (!qpx)
		return;
	connect_qp(qp, peer);
	connect_qp(peer, qp);
	CHECK(!post_recv(peer, 0xc1, buf_b, 100), "post_recv");
	CHECK(!post_recv(peer, 0xc2, buf_b + 100, 100), "post_recv");

	memcpy(buf_a, "abcdefgh", 8);
	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, mr_a->lkey, (uintptr_t)buf_a, 4);
	qpx->wr_id = 2;
	ibv_wr_send_imm(qpx, htobe32(99));
	ibv_wr_set_inline_data(qpx, "xyz", 3);
	qpx->wr_id = 3;
	ibv_wr_rdma_write(qpx, mr_b->rkey, (uintptr_t)buf_b + 500);
	sgl[0] = (struct ibv_sge){ (uintptr_t)buf_a, 2, mr_a->lkey };
	sgl[1] = (struct ibv_sge){ (uintptr_t)buf_a + 6, 2, mr_a->lkey };
	ibv_wr_set_sge_list(qpx, 2, sgl);
	ret = ibv_wr_complete(qpx);
	CHECK(!ret, "wr_complete: %s", strerror(ret));
	CHECK(!memcmp(buf_b, "abcd", 4) && !memcmp(buf_b + 100, "xyz", 3) &&
		      !memcmp(buf_b + 500, "abgh", 4),
	      "wr_* data");

	clock_gettime(CLOCK_REALTIME, &now);
	ret = ibv_start_poll(cqx, &pattr);
	CHECK(!ret, "start_poll: %s", strerror(ret));
	while (!ret && n < 8) {
		uint64_t ts = ibv_wc_read_completion_ts(cqx);
		int64_t wall = ibv_wc_read_completion_wallclock_ns(cqx) -
			       (now.tv_sec * 1000000000ll + now.tv_nsec);

		ids[n++] = cqx->wr_id;
		CHECK(cqx->status == IBV_WC_SUCCESS, "status %d", cqx->status);
		CHECK(ts && ts >= ts_prev, "timestamp %llu",
		      (unsigned long long)ts);
		CHECK(wall > -5000000000ll && wall < 5000000000ll,
		      "wallclock off by %lld ns", (long long)wall);
		ts_prev = ts;
		if (cqx->wr_id == 0xc2) {
			struct ibv_wc_tm_info tm = { .tag = 1, .priv = 1 };

			/* No tag matching: no completion carries a tag. */
			ibv_wc_read_tm_info(cqx, &tm);
			CHECK(!tm.tag && !tm.priv, "tm_info of a plain RECV");
			CHECK(ibv_wc_read_opcode(cqx) == IBV_WC_RECV &&
				      ibv_wc_read_byte_len(cqx) == 3 &&
				      (ibv_wc_read_wc_flags(cqx) &
				       IBV_WC_WITH_IMM) &&
				      ibv_wc_read_imm_data(cqx) == htobe32(99) &&
				      ibv_wc_read_qp_num(cqx) == peer->qp_num &&
				      ibv_wc_read_src_qp(cqx) == qp->qp_num &&
				      ibv_wc_read_sl(cqx) == 3,
			      "cq_ex readers");
		}
		if (cqx->wr_id == 3)
			CHECK(ibv_wc_read_opcode(cqx) == IBV_WC_RDMA_WRITE &&
				      ibv_wc_read_byte_len(cqx) == 4,
			      "write via cq_ex");
		ret = ibv_next_poll(cqx);
	}
	CHECK(ret == ENOENT, "next_poll end: %d", ret);
	ibv_end_poll(cqx);
	CHECK(n == 5 && ids[0] == 0xc1 && ids[1] == 1 && ids[2] == 0xc2 &&
		      ids[3] == 2 && ids[4] == 3,
	      "%d completions in order", n);
	CHECK(ibv_start_poll(cqx, &pattr) == ENOENT, "CQ drained");

	/* Errors stick to wr_complete, which posts nothing then. */
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	sgl[2] = sgl[0];
	ibv_wr_set_sge_list(qpx, 3, sgl);
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, mr_a->lkey, (uintptr_t)buf_a, 1);
	CHECK(ibv_wr_complete(qpx) == EINVAL, "too many SGEs");
	ibv_wr_start(qpx);
	ibv_wr_set_sge(qpx, mr_a->lkey, (uintptr_t)buf_a, 1);
	CHECK(ibv_wr_complete(qpx) == EINVAL, "setter without a WR");
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_xrc_srqn(qpx, 1);
	ibv_wr_set_sge(qpx, mr_a->lkey, (uintptr_t)buf_a, 1);
	CHECK(ibv_wr_complete(qpx) == EINVAL, "XRC SRQ number on RC");
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data(qpx, buf_a, qp_attr.cap.max_inline_data + 1);
	CHECK(ibv_wr_complete(qpx) == EINVAL, "inline above max");
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, mr_a->lkey, (uintptr_t)buf_a, 1);
	ibv_wr_abort(qpx);
	ibv_wr_start(qpx);
	CHECK(!ibv_wr_complete(qpx), "empty sequence");
	CHECK(ibv_start_poll(cqx, &pattr) == ENOENT, "nothing was posted");

	/* Memory windows: type 1 via ibv_bind_mw, type 2 via wr_bind_mw. */
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	CHECK(mw && mw->rkey == 0x5000, "alloc_mw");
	if (mw) {
		struct ibv_mw_bind mwb = {
			.wr_id = 0xd1,
			.send_flags = IBV_SEND_SIGNALED,
			.bind_info = {
				.mr = mr_a,
				.addr = (uintptr_t)buf_a,
				.length = 64,
				.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
			},
		};

		ret = ibv_bind_mw(qp, mw, &mwb);
		CHECK(!ret, "bind_mw: %s", strerror(ret));
		CHECK(mw->rkey == 0x5001, "new rkey %#x", mw->rkey);
		CHECK(!ibv_start_poll(cqx, &pattr) && cqx->wr_id == 0xd1 &&
			      ibv_wc_read_opcode(cqx) == IBV_WC_BIND_MW,
		      "bind wc");
		ibv_end_poll(cqx);
		CHECK(!ibv_dealloc_mw(mw), "dealloc_mw");
	}
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	CHECK(mw, "alloc_mw 2");
	if (mw) {
		bind = (struct ibv_mw_bind_info){
			.mr = mr_a, .addr = (uintptr_t)buf_a + 64,
			.length = 128, .mw_access_flags = IBV_ACCESS_REMOTE_READ,
		};
		ibv_wr_start(qpx);
		qpx->wr_id = 0xd2;
		ibv_wr_bind_mw(qpx, mw, ibv_inc_rkey(mw->rkey), &bind);
		qpx->wr_id = 0xd3;
		ibv_wr_local_inv(qpx, ibv_inc_rkey(mw->rkey));
		CHECK(!ibv_wr_complete(qpx), "bind type 2");
		CHECK(!ibv_start_poll(cqx, &pattr) && cqx->wr_id == 0xd2 &&
			      ibv_wc_read_opcode(cqx) == IBV_WC_BIND_MW &&
			      !ibv_next_poll(cqx) && cqx->wr_id == 0xd3 &&
			      ibv_wc_read_opcode(cqx) == IBV_WC_LOCAL_INV,
		      "bind 2 and local_inv wc");
		ibv_end_poll(cqx);
		CHECK(!ibv_dealloc_mw(mw), "dealloc_mw 2");
	}

	CHECK(!ibv_destroy_qp(qp), "destroy qp_ex");
	CHECK(!ibv_destroy_qp(peer), "destroy peer");
	CHECK(!ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), "destroy cq_ex");
}

/*
 * Receives posted before a resize are taken after it, in order, and the
 * new room is usable: the provider kept its index and remapped.
 */
static void test_srq_resize(struct ibv_srq *srq, struct ibv_qp *qa,
			    struct ibv_qp *qs, struct ibv_cq *cq)
{
	struct ibv_srq_attr attr = { .max_wr = 32 };
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_recv_wr rwr = {}, *rbad;
	struct ibv_sge sge;
	struct ibv_wc wc[2];
	int i, n = 0;

	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	for (i = 0; i < 6; i++) {
		sge = (struct ibv_sge){ (uintptr_t)buf_b + 100 + 8 * i, 8,
					mr_b->lkey };
		rwr.wr_id = 0x100 + i;
		CHECK(!ibv_post_srq_recv(srq, &rwr, &rbad), "post_srq_recv %d",
		      i);
	}
	attr.max_wr = 4;
	CHECK(ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR) == EINVAL,
	      "resize below what is posted");
	attr.max_wr = 32;
	CHECK(!ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR), "resize SRQ");
	for (; i < 20; i++) {
		sge = (struct ibv_sge){ (uintptr_t)buf_b + 100 + 8 * i, 8,
					mr_b->lkey };
		rwr.wr_id = 0x100 + i;
		CHECK(!ibv_post_srq_recv(srq, &rwr, &rbad),
		      "post_srq_recv %d after resize", i);
	}
	sge = (struct ibv_sge){ (uintptr_t)buf_a, 8, mr_a->lkey };
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	for (i = 0; i < 20; i++) {
		snprintf((char *)buf_a, 8, "r%d", i);
		wr.wr_id = 0x200 + i;
		CHECK(!ibv_post_send(qa, &wr, &bad), "send %d", i);
		n = poll(cq, wc, 2);
		CHECK(n == 1 && wc[0].wr_id == 0x100 + (uint64_t)i &&
			      wc[0].qp_num == qs->qp_num &&
			      !strcmp((char *)buf_b + 100 + 8 * i,
				      (char *)buf_a),
		      "receive %d after resize: %d completions, wr_id %#llx",
		      i, n, n ? (unsigned long long)wc[0].wr_id : 0ULL);
	}
}

#define UNUSED __attribute__((unused))

static void *pd_alloc(struct ibv_pd *ibpd UNUSED, void *pd_context,
		      size_t size UNUSED, size_t alignment UNUSED,
		      uint64_t resource_type UNUSED)
{
	(*(int *)pd_context)++;
	return IBV_ALLOCATOR_USE_DEFAULT;
}

static void pd_free(struct ibv_pd *ibpd UNUSED, void *pd_context,
		    void *ptr UNUSED, uint64_t resource_type UNUSED)
{
	(*(int *)pd_context)++;
}

/*
 * A parent domain stands for its protection domain in every command (its
 * QP, CQ and MR work); the protection domain and the thread domain
 * outlive it; malformed requests are refused.
 */
static void test_parent_domain(void)
{
	struct ibv_td_init_attr tattr = {};
	struct ibv_parent_domain_init_attr pattr = {};
	struct ibv_cq_init_attr_ex cattr = { .cqe = 16 };
	struct ibv_qp_init_attr_ex qattr = {};
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_pd *parent, *bad_parent;
	struct ibv_qp *qa, *qb;
	struct ibv_cq_ex *cqx;
	struct ibv_mr *mr;
	struct ibv_sge sge;
	struct ibv_wc wc[2];
	struct ibv_td *td;
	int calls = 0;

	td = ibv_alloc_td(ctx, &tattr);
	CHECK(td, "alloc_td: %s", strerror(errno));
	if (!td)
		return;
	pattr.pd = pd;
	pattr.td = td;
	pattr.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			  IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
	pattr.alloc = pd_alloc;
	pattr.free = pd_free;
	pattr.pd_context = &calls;
	parent = ibv_alloc_parent_domain(ctx, &pattr);
	CHECK(parent && parent->handle == pd->handle,
	      "alloc_parent_domain: %s", strerror(errno));
	if (!parent)
		return;

	/* Refused: a parent of a parent, no PD, unknown mask bits. */
	pattr.pd = parent;
	bad_parent = ibv_alloc_parent_domain(ctx, &pattr);
	CHECK(!bad_parent && errno == EINVAL, "parent of a parent");
	pattr.pd = NULL;
	bad_parent = ibv_alloc_parent_domain(ctx, &pattr);
	CHECK(!bad_parent && errno == EINVAL, "parent without a PD");
	pattr.pd = pd;
	pattr.comp_mask |= 1u << 7;
	bad_parent = ibv_alloc_parent_domain(ctx, &pattr);
	CHECK(!bad_parent && errno == EOPNOTSUPP, "unknown mask bit");

	/* A CQ names a parent domain, not a protection domain. */
	cattr.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
	cattr.parent_domain = pd;
	cqx = ibv_create_cq_ex(ctx, &cattr);
	CHECK(!cqx && errno == EINVAL, "CQ on a protection domain");
	cattr.parent_domain = parent;
	cqx = ibv_create_cq_ex(ctx, &cattr);
	CHECK(cqx, "create_cq_ex on a parent domain: %s", strerror(errno));
	if (!cqx)
		return;

	qattr.qp_type = IBV_QPT_RC;
	qattr.send_cq = ibv_cq_ex_to_cq(cqx);
	qattr.recv_cq = ibv_cq_ex_to_cq(cqx);
	qattr.cap.max_send_wr = 4;
	qattr.cap.max_recv_wr = 4;
	qattr.cap.max_send_sge = 1;
	qattr.cap.max_recv_sge = 1;
	qattr.comp_mask = IBV_QP_INIT_ATTR_PD;
	qattr.pd = parent;
	qa = ibv_create_qp_ex(ctx, &qattr);
	qb = ibv_create_qp_ex(ctx, &qattr);
	CHECK(qa && qb, "create_qp_ex on a parent domain: %s", strerror(errno));
	mr = ibv_reg_mr(parent, buf_a + 6000, 64, IBV_ACCESS_LOCAL_WRITE);
	CHECK(mr, "reg_mr on a parent domain: %s", strerror(errno));
	if (!qa || !qb || !mr)
		return;
	to_rts(qa);
	to_rts(qb);
	connect_qp(qa, qb);
	connect_qp(qb, qa);
	CHECK(!post_recv(qb, 0xd1, buf_b + 6000, 16), "post_recv");
	memcpy(buf_a + 6000, "parent", 6);
	sge = (struct ibv_sge){ (uintptr_t)buf_a + 6000, 6, mr->lkey };
	wr.wr_id = 0xd0;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	CHECK(!ibv_post_send(qa, &wr, &bad), "send on a parent domain");
	CHECK(poll(ibv_cq_ex_to_cq(cqx), wc, 2) == 2 &&
		      !memcmp(buf_b + 6000, "parent", 6),
	      "traffic on a parent domain");
	/* Queues are kernel memory: the allocators are never asked. */
	CHECK(!calls, "allocator called %d times", calls);

	CHECK(ibv_dealloc_pd(pd) == EBUSY, "protection domain of a parent");
	CHECK(ibv_dealloc_td(td) == EBUSY, "thread domain of a parent");
	CHECK(ibv_dealloc_pd(parent) == EBUSY, "parent domain with objects");
	CHECK(!ibv_dereg_mr(mr), "dereg_mr");
	CHECK(!ibv_destroy_qp(qa) && !ibv_destroy_qp(qb), "destroy_qp");
	CHECK(ibv_dealloc_pd(parent) == EBUSY, "parent domain with a CQ");
	CHECK(!ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), "destroy cq_ex");
	CHECK(!ibv_dealloc_pd(parent), "dealloc parent domain");
	CHECK(!ibv_dealloc_td(td), "dealloc_td");
}

static void test_srq_ud(void)
{
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 8,
						     .max_sge = 1 } };
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_ah_attr ah_attr = { .is_global = 1, .port_num = 1 };
	struct ibv_qp *qa, *qs, *ua, *ub;
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_recv_wr rwr = {}, *rbad;
	struct ibv_sge sge;
	struct ibv_srq *srq;
	struct ibv_wc wc[2];
	struct ibv_ah *ah;

	srq = ibv_create_srq(pd, &sattr);
	CHECK(srq && sattr.attr.max_wr == 8, "create_srq: %s",
	      strerror(errno));
	if (!srq || !cq)
		return;
	qa = make_qp(IBV_QPT_RC, cq, cq, NULL, 8);
	qs = make_qp(IBV_QPT_RC, cq, cq, srq, 8);
	if (!qa || !qs)
		return;
	connect_qp(qa, qs);
	CHECK(post_recv(qs, 1, buf_b, 10) == EINVAL, "post_recv on SRQ QP");
	sge = (struct ibv_sge){ (uintptr_t)buf_b + 10, 10, mr_b->lkey };
	rwr.wr_id = 0xe1;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	CHECK(!ibv_post_srq_recv(srq, &rwr, &rbad), "post_srq_recv");
	rwr.num_sge = 2;
	CHECK(ibv_post_srq_recv(srq, &rwr, &rbad) == EINVAL && rbad == &rwr,
	      "2 SGEs on a 1-SGE SRQ");
	memcpy(buf_a, "srq", 3);
	sge = (struct ibv_sge){ (uintptr_t)buf_a, 3, mr_a->lkey };
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	CHECK(!ibv_post_send(qa, &wr, &bad), "send to SRQ QP");
	CHECK(poll(cq, wc, 2) == 1 && wc[0].wr_id == 0xe1 &&
		      wc[0].qp_num == qs->qp_num,
	      "SRQ completion");
	CHECK(!memcmp(buf_b + 10, "srq", 3), "SRQ data");
	test_srq_resize(srq, qa, qs, cq);

	ua = make_qp(IBV_QPT_UD, cq, cq, NULL, 4);
	ub = make_qp(IBV_QPT_UD, cq, cq, NULL, 4);
	ah = ibv_create_ah(pd, &ah_attr);
	CHECK(ah, "create_ah: %s", strerror(errno));
	if (ua && ub && ah) {
		CHECK(!post_recv(ub, 0xf1, buf_b + 1024, 100), "post_recv");
		memcpy(buf_a, "datagram", 8);
		sge.length = 8;
		wr.wr_id = 0xf0;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = ub->qp_num;
		wr.wr.ud.remote_qkey = 0x11111111;
		CHECK(!ibv_post_send(ua, &wr, &bad), "UD send");
		CHECK(poll(cq, wc, 2) == 2 && wc[0].wr_id == 0xf1 &&
			      (wc[0].wc_flags & IBV_WC_GRH) &&
			      wc[0].byte_len == 48 && wc[1].wr_id == 0xf0,
		      "UD completions");
		CHECK(!memcmp(buf_b + 1024 + 40, "datagram", 8), "UD data");
		wr.opcode = IBV_WR_RDMA_WRITE;
		CHECK(ibv_post_send(ua, &wr, &bad) == EINVAL, "UD WRITE");
		wr.opcode = IBV_WR_SEND;
		wr.wr.ud.ah = NULL;
		CHECK(ibv_post_send(ua, &wr, &bad) == EINVAL, "UD without AH");
	}
	if (ah)
		CHECK(!ibv_destroy_ah(ah), "destroy_ah");
	if (ua)
		CHECK(!ibv_destroy_qp(ua), "destroy ua");
	if (ub)
		CHECK(!ibv_destroy_qp(ub), "destroy ub");
	CHECK(!ibv_destroy_qp(qa), "destroy qa");
	CHECK(!ibv_destroy_qp(qs), "destroy qs");
	CHECK(!ibv_destroy_srq(srq), "destroy_srq");
	CHECK(!ibv_destroy_cq(cq), "destroy cq");
}

static void post_xrc(struct ibv_qp *qp, struct ibv_send_wr *wr,
		     enum ibv_wr_opcode op, uint32_t srqn, uint64_t id)
{
	struct ibv_send_wr *bad = NULL;
	int ret;

	wr->opcode = op;
	wr->wr_id = id;
	wr->send_flags = IBV_SEND_SIGNALED;
	wr->qp_type.xrc.remote_srqn = srqn;
	ret = ibv_post_send(qp, wr, &bad);
	CHECK(!ret && !bad, "post_send op %d srqn %#x: %s", op, srqn,
	      strerror(ret));
}

/*
 * XRC through the fake: a domain shared by the handles opened on one file,
 * XRC SRQs and their numbers, XRC_RECV QPs without rings (created, and
 * opened from a second context), XRC_SEND QPs without an RQ (ibv_create_qp
 * and ibv_create_qp_ex), the SRQ number every WQE carries (ibv_post_send
 * and wr_set_xrc_srqn; the fake delivers by it), and the errors of create,
 * post and close.
 */
static void test_xrc(void)
{
	char path[] = "/tmp/wookie-xrcd.XXXXXX";
	struct ibv_xrcd_init_attr xattr = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct ibv_srq_init_attr_ex sattr = {};
	struct ibv_qp_init_attr_ex xqattr = {};
	struct ibv_qp_init_attr qattr = {};
	struct ibv_qp_open_attr oattr = {};
	struct ibv_xrcd *xrcd, *xrcd_other, *xrcd2;
	struct ibv_srq *xsrq, *xsrq_other, *bsrq, *srq;
	struct ibv_qp *recv, *send, *sendx = NULL, *opened, *qp;
	struct ibv_context *ctx2 = NULL;
	struct ibv_device **list;
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_recv_wr rwr = {}, *rbad;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct ibv_cq *cq, *scq;
	struct ibv_qp_ex *qpx;
	struct ibv_sge sge;
	struct ibv_wc wc[4];
	uint32_t srqn = 0, srqn_other = 0, n;
	uint64_t *target = (uint64_t *)(buf_b + 5800);
	int fd, i, ret;

	fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp: %s", strerror(errno));
	if (fd < 0)
		return;
	xattr.fd = fd;
	xrcd = ibv_open_xrcd(ctx, &xattr);
	CHECK(xrcd, "open_xrcd: %s", strerror(errno));
	xattr.fd = -1;
	xrcd_other = ibv_open_xrcd(ctx, &xattr);
	CHECK(xrcd_other, "open_xrcd without a file: %s", strerror(errno));
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	scq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!xrcd || !xrcd_other || !cq || !scq)
		goto out_file;

	/* XRC SRQs: numbers; a basic one has none; TM and bad attrs refused. */
	sattr.attr.max_wr = 8;
	sattr.attr.max_sge = 1;
	sattr.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			  IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
	sattr.srq_type = IBV_SRQT_XRC;
	sattr.pd = pd;
	sattr.xrcd = xrcd;
	sattr.cq = cq;
	xsrq = ibv_create_srq_ex(ctx, &sattr);
	CHECK(xsrq && sattr.attr.max_wr == 8, "create XRC SRQ: %s",
	      strerror(errno));
	sattr.xrcd = xrcd_other;
	xsrq_other = ibv_create_srq_ex(ctx, &sattr);
	CHECK(xsrq_other, "create XRC SRQ: %s", strerror(errno));
	if (!xsrq || !xsrq_other)
		goto out_cq;
	CHECK(!ibv_get_srq_num(xsrq, &srqn) && srqn,
	      "get_srq_num: srqn %#x", srqn);
	CHECK(!ibv_get_srq_num(xsrq_other, &srqn_other) &&
		      srqn_other != srqn,
	      "get_srq_num: srqn %#x", srqn_other);
	CHECK(xsrq->pd == pd && xsrq->context == ctx, "XRC SRQ's pd, context");

	sattr.comp_mask &= ~IBV_SRQ_INIT_ATTR_XRCD;
	sattr.srq_type = IBV_SRQT_BASIC;
	bsrq = ibv_create_srq_ex(ctx, &sattr);
	CHECK(bsrq, "create_srq_ex basic: %s", strerror(errno));
	if (bsrq) {
		CHECK(ibv_get_srq_num(bsrq, &n) == EINVAL,
		      "basic SRQ has no number");
		CHECK(!ibv_destroy_srq(bsrq), "destroy basic SRQ");
	}
	sattr.srq_type = IBV_SRQT_TM;
	srq = ibv_create_srq_ex(ctx, &sattr);
	CHECK(!srq && errno == EOPNOTSUPP, "TM SRQ refused");
	sattr.srq_type = IBV_SRQT_XRC;
	srq = ibv_create_srq_ex(ctx, &sattr);
	CHECK(!srq && errno == EINVAL, "XRC SRQ without an XRCD");
	sattr.comp_mask |= IBV_SRQ_INIT_ATTR_XRCD;
	sattr.xrcd = NULL;
	srq = ibv_create_srq_ex(ctx, &sattr);
	CHECK(!srq && errno == EINVAL, "XRC SRQ with a NULL XRCD");
	sattr.xrcd = xrcd;
	sattr.comp_mask &= ~IBV_SRQ_INIT_ATTR_CQ;
	srq = ibv_create_srq_ex(ctx, &sattr);
	CHECK(!srq && errno == EINVAL, "XRC SRQ without a CQ");

	/* QP create errors: what each XRC type needs. */
	xqattr.qp_type = IBV_QPT_XRC_RECV;
	qp = ibv_create_qp_ex(ctx, &xqattr);
	CHECK(!qp && errno == EINVAL, "XRC_RECV without an XRCD");
	xqattr.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	qp = ibv_create_qp_ex(ctx, &xqattr);
	CHECK(!qp && errno == EINVAL, "XRC_RECV with a NULL XRCD");
	qattr.qp_type = IBV_QPT_XRC_RECV;
	qattr.send_cq = qattr.recv_cq = scq;
	qp = ibv_create_qp(pd, &qattr);
	CHECK(!qp && errno == EINVAL, "XRC_RECV through ibv_create_qp");
	qattr.qp_type = IBV_QPT_XRC_SEND;
	qattr.send_cq = NULL;
	qp = ibv_create_qp(pd, &qattr);
	CHECK(!qp && errno == EINVAL, "XRC_SEND without a send CQ");
	xqattr.qp_type = IBV_QPT_XRC_SEND;
	xqattr.comp_mask = 0;
	xqattr.send_cq = scq;
	qp = ibv_create_qp_ex(ctx, &xqattr);
	CHECK(!qp && errno == EINVAL, "XRC_SEND without a PD");

	/*
	 * XRC_RECV: no rings, so nothing to post; RESET needs no CQ.  The
	 * CQs passed are not the QP's (the kernel ignores them).
	 */
	memset(&xqattr, 0, sizeof(xqattr));
	xqattr.qp_type = IBV_QPT_XRC_RECV;
	xqattr.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	xqattr.xrcd = xrcd;
	xqattr.send_cq = xqattr.recv_cq = cq;
	recv = ibv_create_qp_ex(ctx, &xqattr);
	CHECK(recv, "create XRC_RECV: %s", strerror(errno));
	if (!recv)
		goto out_srq;
	CHECK(!ibv_qp_to_qp_ex(recv), "XRC_RECV has no qp_ex");
	attr.qp_state = IBV_QPS_RESET;
	CHECK(!ibv_modify_qp(recv, &attr, IBV_QP_STATE), "XRC_RECV to RESET");
	to_rts(recv);
	sge = (struct ibv_sge){ (uintptr_t)buf_b + 5000, 64, mr_b->lkey };
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	rbad = NULL;
	CHECK(ibv_post_recv(recv, &rwr, &rbad) == EINVAL && rbad == &rwr,
	      "post_recv on XRC_RECV");
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	bad = NULL;
	CHECK(ibv_post_send(recv, &wr, &bad) == EINVAL && bad == &wr,
	      "post_send on XRC_RECV");

	/* XRC_SEND through ibv_create_qp: an SQ, no RQ. */
	memset(&qattr, 0, sizeof(qattr));
	qattr.qp_type = IBV_QPT_XRC_SEND;
	qattr.send_cq = scq;
	qattr.cap.max_send_wr = 8;
	qattr.cap.max_send_sge = 2;
	qattr.cap.max_inline_data = 64;
	send = ibv_create_qp(pd, &qattr);
	CHECK(send && !qattr.cap.max_recv_wr, "create XRC_SEND: %s",
	      strerror(errno));
	if (!send)
		goto out_recv;
	to_rts(send);
	connect_qp(send, recv);
	CHECK(ibv_post_recv(send, &rwr, &rbad) == EINVAL && rbad == &rwr,
	      "post_recv on XRC_SEND");

	/* SEND, SEND_WITH_IMM: into the XRC SRQ, completed on its CQ. */
	for (i = 0; i < 2; i++) {
		sge = (struct ibv_sge){ (uintptr_t)buf_b + 5000 + 100 * i, 100,
					mr_b->lkey };
		rwr.wr_id = 0x500 + i;
		CHECK(!ibv_post_srq_recv(xsrq, &rwr, &rbad), "post_srq_recv");
	}
	memcpy(buf_a + 5000, "xrc send", 8);
	sge = (struct ibv_sge){ (uintptr_t)buf_a + 5000, 8, mr_a->lkey };
	post_xrc(send, &wr, IBV_WR_SEND, srqn, 0x510);
	wr.imm_data = htobe32(0xabc);
	post_xrc(send, &wr, IBV_WR_SEND_WITH_IMM, srqn, 0x511);
	/* Its receives are the SRQ's: a reset of the QP leaves them. */
	attr.qp_state = IBV_QPS_RESET;
	CHECK(!ibv_modify_qp(recv, &attr, IBV_QP_STATE), "XRC_RECV to RESET");
	to_rts(recv);
	CHECK(poll(cq, wc, 3) == 2, "two receives on the XRC SRQ's CQ");
	for (i = 0; i < 2; i++)
		CHECK(wc[i].wr_id == 0x500u + i && wc[i].opcode == IBV_WC_RECV &&
			      wc[i].status == IBV_WC_SUCCESS &&
			      wc[i].qp_num == recv->qp_num &&
			      wc[i].byte_len == 8,
		      "XRC recv %d: id %#llx qp %#x len %u", i,
		      (unsigned long long)wc[i].wr_id, wc[i].qp_num,
		      wc[i].byte_len);
	CHECK((wc[1].wc_flags & IBV_WC_WITH_IMM) &&
		      wc[1].imm_data == htobe32(0xabc),
	      "XRC imm: flags %#x", wc[1].wc_flags);
	CHECK(!memcmp(buf_b + 5000, "xrc send", 8) &&
		      !memcmp(buf_b + 5100, "xrc send", 8),
	      "XRC send data");
	CHECK(poll(scq, wc, 3) == 2 && wc[0].wr_id == 0x510 &&
		      wc[1].wr_id == 0x511 && !wc[0].status && !wc[1].status,
	      "XRC send completions");

	/* RDMA WRITE, READ, FETCH_ADD: each WQE names the SRQ too. */
	memcpy(buf_a + 5200, "xrc write", 9);
	sge = (struct ibv_sge){ (uintptr_t)buf_a + 5200, 9, mr_a->lkey };
	wr.wr.rdma.remote_addr = (uintptr_t)buf_b + 5200;
	wr.wr.rdma.rkey = mr_b->rkey;
	post_xrc(send, &wr, IBV_WR_RDMA_WRITE, srqn, 0x520);
	memcpy(buf_b + 5300, "xrc read", 8);
	sge = (struct ibv_sge){ (uintptr_t)buf_a + 5300, 8, mr_a->lkey };
	wr.wr.rdma.remote_addr = (uintptr_t)buf_b + 5300;
	post_xrc(send, &wr, IBV_WR_RDMA_READ, srqn, 0x521);
	*target = 100;
	sge = (struct ibv_sge){ (uintptr_t)buf_a + 5800, 8, mr_a->lkey };
	wr.wr.atomic.remote_addr = (uintptr_t)target;
	wr.wr.atomic.rkey = mr_b->rkey;
	wr.wr.atomic.compare_add = 5;
	post_xrc(send, &wr, IBV_WR_ATOMIC_FETCH_AND_ADD, srqn, 0x522);
	CHECK(poll(scq, wc, 4) == 3 && !wc[0].status && !wc[1].status &&
		      !wc[2].status && wc[2].opcode == IBV_WC_FETCH_ADD,
	      "XRC write, read, fetch_add completions");
	CHECK(!memcmp(buf_b + 5200, "xrc write", 9) &&
		      !memcmp(buf_a + 5300, "xrc read", 8) && *target == 105 &&
		      *(uint64_t *)(buf_a + 5800) == 100,
	      "XRC write, read, fetch_add data");
	CHECK(poll(cq, wc, 1) == 0, "no receive for those");

	/* A number beyond 24 bits is refused at post; unknown ones remotely. */
	wr.opcode = IBV_WR_SEND;
	wr.qp_type.xrc.remote_srqn = 1u << 24;
	bad = NULL;
	CHECK(ibv_post_send(send, &wr, &bad) == EINVAL && bad == &wr,
	      "25-bit SRQ number");
	post_xrc(send, &wr, IBV_WR_SEND, srqn_other, 0x530);
	post_xrc(send, &wr, IBV_WR_SEND, 0x12345, 0x531);
	CHECK(poll(scq, wc, 3) == 2 &&
		      wc[0].status == IBV_WC_REM_INV_REQ_ERR &&
		      wc[1].status == IBV_WC_REM_INV_REQ_ERR,
	      "XRC to another domain's SRQ and to none: %d %d",
	      wc[0].status, wc[1].status);
	/* The target refused them and went to ERR: reset it, and reuse it. */
	CHECK(!ibv_query_qp(recv, &attr, IBV_QP_STATE, &init) &&
		      attr.qp_state == IBV_QPS_ERR,
	      "XRC_RECV in ERR: state %d", attr.qp_state);
	attr.qp_state = IBV_QPS_RESET;
	CHECK(!ibv_modify_qp(recv, &attr, IBV_QP_STATE), "XRC_RECV to RESET");
	to_rts(recv);

	/* XRC_SEND through ibv_create_qp_ex, posting with wr_*. */
	memset(&xqattr, 0, sizeof(xqattr));
	xqattr.qp_type = IBV_QPT_XRC_SEND;
	xqattr.comp_mask = IBV_QP_INIT_ATTR_PD |
			   IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	xqattr.pd = pd;
	xqattr.send_cq = scq;
	xqattr.cap = qattr.cap;
	xqattr.send_ops_flags =
		IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
		IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_RDMA_WRITE |
		IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |
		IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
		IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW;
	sendx = ibv_create_qp_ex(ctx, &xqattr);
	CHECK(sendx, "create XRC_SEND qp_ex: %s", strerror(errno));
	qpx = sendx ? ibv_qp_to_qp_ex(sendx) : NULL;
	CHECK(qpx, "XRC_SEND qp_ex");
	if (qpx) {
		to_rts(sendx);
		connect_qp(sendx, recv);
		sge = (struct ibv_sge){ (uintptr_t)buf_b + 5400, 100,
					mr_b->lkey };
		rwr.wr_id = 0x540;
		CHECK(!ibv_post_srq_recv(xsrq, &rwr, &rbad), "post_srq_recv");
		memcpy(buf_a + 5400, "wr_send", 7);
		memcpy(buf_a + 5500, "wr_write", 8);
		ibv_wr_start(qpx);
		qpx->wr_id = 0x541;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(qpx);
		ibv_wr_set_xrc_srqn(qpx, srqn);
		ibv_wr_set_sge(qpx, mr_a->lkey, (uintptr_t)buf_a + 5400, 7);
		qpx->wr_id = 0x542;
		ibv_wr_rdma_write(qpx, mr_b->rkey, (uintptr_t)buf_b + 5500);
		ibv_wr_set_xrc_srqn(qpx, srqn);
		ibv_wr_set_sge(qpx, mr_a->lkey, (uintptr_t)buf_a + 5500, 8);
		ret = ibv_wr_complete(qpx);
		CHECK(!ret, "wr_complete: %s", strerror(ret));
		CHECK(poll(cq, wc, 2) == 1 && wc[0].wr_id == 0x540 &&
			      wc[0].qp_num == recv->qp_num &&
			      !memcmp(buf_b + 5400, "wr_send", 7),
		      "wr_send through XRC");
		CHECK(poll(scq, wc, 3) == 2 && !wc[0].status &&
			      !wc[1].status &&
			      !memcmp(buf_b + 5500, "wr_write", 8),
		      "wr_rdma_write through XRC");
		ibv_wr_start(qpx);
		ibv_wr_send(qpx);
		ibv_wr_set_xrc_srqn(qpx, 1u << 24);
		ibv_wr_set_sge(qpx, mr_a->lkey, (uintptr_t)buf_a, 1);
		CHECK(ibv_wr_complete(qpx) == EINVAL, "wr: 25-bit SRQ number");
		ibv_wr_start(qpx);
		ibv_wr_set_xrc_srqn(qpx, srqn);
		CHECK(ibv_wr_complete(qpx) == EINVAL, "wr: SRQ number, no WR");
		CHECK(poll(scq, wc, 1) == 0, "nothing posted");
	}

	/* ibv_open_qp from a second context on the same domain file. */
	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (list[i] == ctx->device)
			ctx2 = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	CHECK(ctx2, "second context");
	if (!ctx2)
		goto out_sendx;
	xattr.fd = fd;
	xattr.oflags = 0;
	xrcd2 = ibv_open_xrcd(ctx2, &xattr);
	CHECK(xrcd2, "open_xrcd on the same file: %s", strerror(errno));
	if (!xrcd2)
		goto out_ctx2;
	oattr.comp_mask = IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_NUM |
			  IBV_QP_OPEN_ATTR_TYPE;
	oattr.qp_type = IBV_QPT_XRC_RECV;
	oattr.qp_num = send->qp_num;
	oattr.xrcd = xrcd2;
	qp = ibv_open_qp(ctx2, &oattr);
	CHECK(!qp && errno == EINVAL, "open_qp of an XRC_SEND QP");
	oattr.xrcd = NULL;
	qp = ibv_open_qp(ctx2, &oattr);
	CHECK(!qp && errno == EINVAL, "open_qp with a NULL XRCD");
	oattr.xrcd = xrcd_other;
	oattr.qp_num = recv->qp_num;
	qp = ibv_open_qp(ctx, &oattr);
	CHECK(!qp && errno == EINVAL, "open_qp in another domain");
	oattr.xrcd = xrcd2;
	opened = ibv_open_qp(ctx2, &oattr);
	CHECK(opened && opened->qp_num == recv->qp_num &&
		      opened->qp_type == IBV_QPT_XRC_RECV &&
		      opened->context == ctx2,
	      "open_qp: %s", strerror(errno));
	if (opened) {
		CHECK(!ibv_query_qp(opened, &attr, IBV_QP_STATE, &init) &&
			      attr.qp_state == IBV_QPS_RTS,
		      "query the opened QP: state %d", attr.qp_state);
		CHECK(ibv_post_send(opened, &wr, &bad) == EINVAL &&
			      ibv_post_recv(opened, &rwr, &rbad) == EINVAL,
		      "posts on the opened QP");
		attr.qp_state = IBV_QPS_RESET;
		CHECK(!ibv_modify_qp(opened, &attr, IBV_QP_STATE),
		      "opened QP to RESET");
		to_rts(opened);
		CHECK(ibv_close_xrcd(xrcd2) == EBUSY, "close_xrcd, QP opened");
		CHECK(!ibv_destroy_qp(opened), "destroy the opened QP");
	}
	CHECK(!ibv_close_xrcd(xrcd2), "close the second XRCD");
out_ctx2:
	CHECK(!ibv_close_device(ctx2), "close the second context");
out_sendx:
	if (sendx)
		CHECK(!ibv_destroy_qp(sendx), "destroy XRC_SEND qp_ex");
	CHECK(!ibv_destroy_qp(send), "destroy XRC_SEND");
out_recv:
	CHECK(ibv_close_xrcd(xrcd) == EBUSY, "close_xrcd in use");
	CHECK(!ibv_destroy_qp(recv), "destroy XRC_RECV");
out_srq:
	CHECK(ibv_close_xrcd(xrcd) == EBUSY, "close_xrcd, SRQ in use");
	CHECK(!ibv_destroy_srq(xsrq) && !ibv_destroy_srq(xsrq_other),
	      "destroy XRC SRQs");
out_cq:
	CHECK(!ibv_destroy_cq(cq) && !ibv_destroy_cq(scq), "destroy CQs");
out_file:
	if (xrcd)
		CHECK(!ibv_close_xrcd(xrcd), "close_xrcd");
	if (xrcd_other)
		CHECK(!ibv_close_xrcd(xrcd_other), "close the other XRCD");
	close(fd);
	unlink(path);
}

static void test_resize_arm(void)
{
	struct ibv_cq *scq = ibv_create_cq(ctx, 3, NULL, NULL, 0);
	struct ibv_cq *rcq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_sge sge = { (uintptr_t)buf_a, 1, mr_a->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc[8];
	struct ibv_qp *qp;
	int i;

	if (!scq || !rcq)
		return;
	CHECK(scq->cqe == 3, "cqe %d", scq->cqe);
	qp = make_qp(IBV_QPT_RC, scq, rcq, NULL, 8);
	if (!qp)
		return;
	wr.wr.rdma.remote_addr = (uintptr_t)buf_b;
	wr.wr.rdma.rkey = mr_b->rkey;
	for (i = 0; i < 3; i++) {
		wr.wr_id = 0x100 + i;
		CHECK(!ibv_post_send(qp, &wr, &bad), "post %d", i);
	}
	CHECK(poll(scq, wc, 1) == 1 && wc[0].wr_id == 0x100, "first");
	CHECK(!ibv_resize_cq(scq, 20), "resize_cq");
	CHECK(scq->cqe == 31, "resized cqe %d", scq->cqe);
	for (i = 3; i < 6; i++) {
		wr.wr_id = 0x100 + i;
		CHECK(!ibv_post_send(qp, &wr, &bad), "post %d", i);
	}
	CHECK(poll(scq, wc, 8) == 5, "5 after resize");
	for (i = 0; i < 5; i++)
		CHECK(wc[i].wr_id == 0x101u + i, "order %d: %#llx", i,
		      (unsigned long long)wc[i].wr_id);

	CHECK(!ibv_req_notify_cq(scq, 0), "arm next");
	CHECK(!ibv_post_send(qp, &wr, &bad), "post armed");
	CHECK(!ibv_req_notify_cq(scq, 1), "arm solicited");
	CHECK(!ibv_post_send(qp, &wr, &bad), "post armed");
	CHECK(poll(scq, wc, 8) == 2, "armed completions");

	CHECK(!ibv_destroy_qp(qp), "destroy qp");
	CHECK(!ibv_destroy_cq(scq), "destroy scq");
	CHECK(!ibv_destroy_cq(rcq), "destroy rcq");
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	int i, n;

	if (argc < 2) {
		fprintf(stderr, "usage: %s <ibdev> [nowake]\n", argv[0]);
		return 2;
	}
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ctx) {
		printf("datapath: cannot open %s\n", argv[1]);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	mr_a = pd ? ibv_reg_mr(pd, buf_a, sizeof(buf_a),
			       IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_REMOTE_WRITE |
				       IBV_ACCESS_MW_BIND) : NULL;
	mr_b = pd ? ibv_reg_mr(pd, buf_b, sizeof(buf_b),
			       IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_REMOTE_WRITE |
				       IBV_ACCESS_REMOTE_READ |
				       IBV_ACCESS_REMOTE_ATOMIC) : NULL;
	CHECK(mr_a && mr_b, "reg_mr: %s", strerror(errno));
	if (!mr_a || !mr_b)
		goto out;

	if (argc > 2 && !strcmp(argv[2], "nowake")) {
		test_nowake();
	} else {
		CHECK(!ibv_rereg_mr(mr_a, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				    NULL, 0,
				    IBV_ACCESS_LOCAL_WRITE |
					    IBV_ACCESS_REMOTE_WRITE |
					    IBV_ACCESS_MW_BIND),
		      "rereg_mr");
		CHECK(mr_a->lkey == 0x9000, "rereg lkey %#x", mr_a->lkey);
		test_rc();
		test_ex();
		test_srq_ud();
		test_resize_arm();
		test_parent_domain();
		test_xrc();
	}

	CHECK(!ibv_dereg_mr(mr_a), "dereg_mr");
	CHECK(!ibv_dereg_mr(mr_b), "dereg_mr");
out:
	if (pd)
		CHECK(!ibv_dealloc_pd(pd), "dealloc_pd");
	CHECK(!ibv_close_device(ctx), "close");
	printf("datapath: %d checks, %d failed\n", checks, fails);
	return fails ? 1 : 0;
}
