// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite for kernel/portable/wookie_queue.c: ring geometry and the
 * checks of the send and receive WQEs that user space writes into its
 * rings.  Each WQE sits in a kmalloc()ed slot of exactly the stride its
 * limits give, so that KASAN catches a check reading past the slot.
 */
#include <rdma/wookie-abi.h>

#include <kunit/test.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "wookie_queue.h"

#define QUEUE_MTU 1024u
/* What a check leaves in *total_len when it fails. */
#define QUEUE_UNTOUCHED 0xdeadbeefull

struct queue_slot {
	struct wookie_sq_limits lim;
	u32 size;
	struct wookie_sqe *wqe;
	struct wookie_sge *sge;
};

static void queue_slot_init(struct kunit *test, struct queue_slot *s,
			    enum wookie_qp_kind kind, u32 max_sge,
			    u32 max_inline, bool kernel)
{
	s->lim.kind = kind;
	s->lim.max_sge = max_sge;
	s->lim.max_inline = max_inline;
	s->lim.kernel = kernel;
	s->size = wookie_sq_stride(max_sge, max_inline);
	KUNIT_ASSERT_GE(test, s->size, (u32)sizeof(struct wookie_sqe));
	s->wqe = kunit_kzalloc(test, s->size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s->wqe);
	s->sge = (struct wookie_sge *)(s->wqe + 1);
}

static bool queue_is_atomic(unsigned int op)
{
	return op == WOOKIE_WR_ATOMIC_CMP_AND_SWP ||
	       op == WOOKIE_WR_ATOMIC_FETCH_AND_ADD;
}

static bool queue_is_local(unsigned int op)
{
	return op == WOOKIE_WR_LOCAL_INV || op == WOOKIE_WR_BIND_MW ||
	       op == WOOKIE_WR_REG_MR;
}

/* IBTA 1.5's operations carry no SGE: their data is in the WQE. */
static bool queue_no_sge(unsigned int op)
{
	return queue_is_local(op) || op == WOOKIE_WR_ATOMIC_WRITE ||
	       op == WOOKIE_WR_FLUSH;
}

/* The message length of queue_minimal()'s WQE of @op. */
static u64 queue_minimal_total(unsigned int op)
{
	if (op == WOOKIE_WR_ATOMIC_WRITE)
		return 8;
	if (queue_no_sge(op))
		return 0;
	return queue_is_atomic(op) ? 8 : 100;
}

/*
 * The smallest well-formed WQE of @op: one 100-byte SGE, one 8-byte SGE
 * for an atomic, none for a local operation, an ATOMIC WRITE, a FLUSH (to
 * global visibility, of a range) or where no SGE fits.
 */
static void queue_minimal(struct queue_slot *s, unsigned int op)
{
	memset(s->wqe, 0, s->size);
	s->wqe->wr_id = 0x1234;
	s->wqe->opcode = op;
	s->wqe->flags = WOOKIE_WQE_SIGNALED;
	if (op == WOOKIE_WR_FLUSH)
		s->wqe->flush.type = WOOKIE_FLUSH_GLOBAL;
	if (queue_no_sge(op) || s->size < WOOKIE_SQE_SIZE(1))
		return;
	s->wqe->num_sge = 1;
	s->sge[0].addr = 0x10000;
	s->sge[0].length = queue_is_atomic(op) ? 8 : 100;
	s->sge[0].lkey = 0x55;
}

static int queue_check(struct queue_slot *s, u64 *total, u32 mtu)
{
	*total = QUEUE_UNTOUCHED;
	return wookie_sqe_check(s->wqe, &s->lim, mtu, total);
}

/* --- Geometry ---------------------------------------------------------- */

static void wookie_queue_ring_entries(struct kunit *test)
{
	u32 d, n;

	KUNIT_EXPECT_EQ(test, wookie_ring_entries(0), 1u);
	KUNIT_EXPECT_EQ(test, wookie_ring_entries(1), 1u);
	KUNIT_EXPECT_EQ(test, wookie_ring_entries(3), 4u);
	KUNIT_EXPECT_EQ(test, wookie_ring_entries(1000), 1024u);
	KUNIT_EXPECT_EQ(test, wookie_ring_entries(16384), 16384u);
	KUNIT_EXPECT_EQ(test, wookie_ring_entries(16385), 0u);
	KUNIT_EXPECT_EQ(test, wookie_ring_entries(U32_MAX), 0u);

	for (d = 1; d <= 20000; d++) {
		n = wookie_ring_entries(d);
		if (d > WOOKIE_MAX_RING_ENTRIES) {
			KUNIT_EXPECT_EQ(test, n, 0u);
			continue;
		}
		/* As the kernel's own helper computes it. */
		KUNIT_EXPECT_EQ_MSG(test, n, (u32)roundup_pow_of_two(d),
				    "depth %u", d);
	}
}

static void wookie_queue_strides(struct kunit *test)
{
	u32 sge, inl, s;
	size_t want;

	KUNIT_EXPECT_EQ(test, wookie_sq_stride(0, 0), 64u);
	KUNIT_EXPECT_EQ(test, wookie_sq_stride(1, 0), 128u);
	KUNIT_EXPECT_EQ(test, wookie_sq_stride(5, 0), 192u);
	KUNIT_EXPECT_EQ(test, wookie_sq_stride(32, 0), 576u);
	KUNIT_EXPECT_EQ(test, wookie_sq_stride(0, 64), 128u);
	KUNIT_EXPECT_EQ(test, wookie_sq_stride(0, 65), 192u);
	KUNIT_EXPECT_EQ(test, wookie_sq_stride(4, 256), 320u);
	KUNIT_EXPECT_EQ(test, wookie_sq_stride(32, 512), 576u);
	KUNIT_EXPECT_EQ(test, wookie_sq_stride(U32_MAX, 0), 0u);
	KUNIT_EXPECT_EQ(test, wookie_sq_stride(0, U32_MAX), 0u);
	KUNIT_EXPECT_EQ(test, wookie_rq_stride(0), 16u);
	KUNIT_EXPECT_EQ(test, wookie_rq_stride(1), 32u);
	KUNIT_EXPECT_EQ(test, wookie_rq_stride(32), 528u);
	KUNIT_EXPECT_EQ(test, wookie_rq_stride(U32_MAX), 0u);

	for (sge = 0; sge <= WOOKIE_MAX_SGE; sge++) {
		KUNIT_EXPECT_EQ(test, (size_t)wookie_rq_stride(sge),
				WOOKIE_RQE_SIZE(sge));
		for (inl = 0; inl <= WOOKIE_MAX_INLINE; inl += 7) {
			s = wookie_sq_stride(sge, inl);
			KUNIT_EXPECT_EQ(test, s % 64, 0u);
			want = max(WOOKIE_SQE_SIZE(sge),
				   sizeof(struct wookie_sqe) + inl);
			KUNIT_EXPECT_EQ(test, (size_t)s, ALIGN(want, 64));
		}
	}
}

static void wookie_queue_ring_arithmetic(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, wookie_ring_bytes(16, 64), (size_t)(256 + 1024));
	KUNIT_EXPECT_EQ(test, wookie_ring_bytes(16384, 576),
			(size_t)256 + 16384 * 576);
	KUNIT_EXPECT_EQ(test, wookie_ring_count(2, 0xfffffffe), 4u);
	KUNIT_EXPECT_TRUE(test, wookie_ring_sane(16, 0, 16));
	KUNIT_EXPECT_FALSE(test, wookie_ring_sane(17, 0, 16));
	KUNIT_EXPECT_TRUE(test, wookie_ring_sane(3, 0xfffffff5, 16));
	KUNIT_EXPECT_FALSE(test, wookie_ring_sane(3, 0xfffffff0, 16));
	KUNIT_EXPECT_FALSE(test, wookie_ring_sane(0, 1, 16));
	KUNIT_EXPECT_EQ(test, sizeof(struct wookie_ring_hdr),
			(size_t)WOOKIE_RING_HDR_SIZE);
}

/* --- Which opcodes a QP may post ---------------------------------------- */

struct queue_opcode_row {
	enum wookie_qp_kind kind;
	bool kernel;
	/* Bit n: opcode n is accepted. */
	u32 allowed;
	const char *name;
};

#define QUEUE_RC_OPS (BIT(WOOKIE_WR_SEND) | BIT(WOOKIE_WR_SEND_WITH_IMM) | \
		      BIT(WOOKIE_WR_SEND_WITH_INV) |			\
		      BIT(WOOKIE_WR_RDMA_WRITE) |			\
		      BIT(WOOKIE_WR_RDMA_WRITE_WITH_IMM) |		\
		      BIT(WOOKIE_WR_RDMA_READ) |			\
		      BIT(WOOKIE_WR_ATOMIC_CMP_AND_SWP) |		\
		      BIT(WOOKIE_WR_ATOMIC_FETCH_AND_ADD) |		\
		      BIT(WOOKIE_WR_LOCAL_INV) | BIT(WOOKIE_WR_BIND_MW) | \
		      BIT(WOOKIE_WR_ATOMIC_WRITE) | BIT(WOOKIE_WR_FLUSH))
#define QUEUE_UC_OPS (BIT(WOOKIE_WR_SEND) | BIT(WOOKIE_WR_SEND_WITH_IMM) | \
		      BIT(WOOKIE_WR_RDMA_WRITE) |			\
		      BIT(WOOKIE_WR_RDMA_WRITE_WITH_IMM) |		\
		      BIT(WOOKIE_WR_LOCAL_INV) | BIT(WOOKIE_WR_BIND_MW))
#define QUEUE_UD_OPS (BIT(WOOKIE_WR_SEND) | BIT(WOOKIE_WR_SEND_WITH_IMM))

static const struct queue_opcode_row queue_opcode_rows[] = {
	{ WOOKIE_QP_KIND_RC, false, QUEUE_RC_OPS, "rc user" },
	{ WOOKIE_QP_KIND_RC, true, QUEUE_RC_OPS | BIT(WOOKIE_WR_REG_MR),
	  "rc kernel" },
	{ WOOKIE_QP_KIND_UC, false, QUEUE_UC_OPS, "uc user" },
	{ WOOKIE_QP_KIND_UC, true, QUEUE_UC_OPS | BIT(WOOKIE_WR_REG_MR),
	  "uc kernel" },
	{ WOOKIE_QP_KIND_UD, false, QUEUE_UD_OPS, "ud user" },
	{ WOOKIE_QP_KIND_UD, true, QUEUE_UD_OPS, "ud kernel" },
	{ WOOKIE_QP_KIND_XRC_INI, false, QUEUE_RC_OPS, "xrc initiator user" },
	{ WOOKIE_QP_KIND_XRC_INI, true, QUEUE_RC_OPS | BIT(WOOKIE_WR_REG_MR),
	  "xrc initiator kernel" },
	{ WOOKIE_QP_KIND_XRC_TGT, false, 0, "xrc target" },
};

static void queue_row_desc(const struct queue_opcode_row *r, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", r->name);
}

KUNIT_ARRAY_PARAM(queue_rows, queue_opcode_rows, queue_row_desc);

static void wookie_queue_opcode_matrix(struct kunit *test)
{
	const struct queue_opcode_row *row = test->param_value;
	struct queue_slot s;
	unsigned int op;
	bool want;
	u64 total;
	int ret;

	queue_slot_init(test, &s, row->kind, 4, 64, row->kernel);
	for (op = 0; op < 256; op++) {
		want = op < 32 && (row->allowed & BIT(op));
		queue_minimal(&s, op);
		ret = queue_check(&s, &total, QUEUE_MTU);
		KUNIT_EXPECT_EQ_MSG(test, ret, want ? 0 : -EINVAL,
				    "opcode %u", op);
		if (!want) {
			KUNIT_EXPECT_EQ(test, total, QUEUE_UNTOUCHED);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, total, queue_minimal_total(op),
				    "opcode %u", op);
	}
}

/* A FLUSH names one or both placement types and a known level. */
static void wookie_queue_flush(struct kunit *test)
{
	struct queue_slot s;
	unsigned int type, level;
	u64 total;

	queue_slot_init(test, &s, WOOKIE_QP_KIND_RC, 4, 64, false);
	for (type = 0; type < 256; type++) {
		for (level = 0; level < 256; level++) {
			bool want = type >= 1 && type <= 3 && level <= 1;

			queue_minimal(&s, WOOKIE_WR_FLUSH);
			s.wqe->flush.type = type;
			s.wqe->flush.level = level;
			KUNIT_EXPECT_EQ_MSG(test,
					    queue_check(&s, &total, QUEUE_MTU),
					    want ? 0 : -EINVAL, "%u %u", type,
					    level);
		}
	}
	queue_minimal(&s, WOOKIE_WR_FLUSH);
	s.wqe->flush.reserved[5] = 1;
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), -EINVAL);
	/* An ATOMIC WRITE's 8 bytes are in the WQE: no SGE. */
	queue_minimal(&s, WOOKIE_WR_ATOMIC_WRITE);
	s.wqe->num_sge = 1;
	s.sge[0].length = 8;
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), -EINVAL);
}

static void wookie_queue_unknown_kind(struct kunit *test)
{
	struct queue_slot s;
	unsigned int op;
	u64 total;

	queue_slot_init(test, &s, WOOKIE_QP_KIND_RC, 4, 64, true);
	s.lim.kind = (enum wookie_qp_kind)0x7f;
	for (op = 0; op < WOOKIE_WR_NUM_OPCODES; op++) {
		queue_minimal(&s, op);
		KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU),
				-EINVAL);
	}
}

/* --- Flags and reserved fields ------------------------------------------ */

static void wookie_queue_flags(struct kunit *test)
{
	struct queue_slot s;
	unsigned int f;
	u64 total;

	queue_slot_init(test, &s, WOOKIE_QP_KIND_RC, 4, 64, false);
	for (f = 0; f < 256; f++) {
		queue_minimal(&s, WOOKIE_WR_SEND);
		s.wqe->flags = f;
		if (f & WOOKIE_WQE_INLINE)
			s.wqe->inline_len = 10;
		KUNIT_EXPECT_EQ_MSG(test, queue_check(&s, &total, QUEUE_MTU),
				    f < 16 ? 0 : -EINVAL, "flags 0x%x", f);
	}
}

static void wookie_queue_reserved(struct kunit *test)
{
	struct queue_slot s, u;
	unsigned int op;
	u64 total;

	queue_slot_init(test, &s, WOOKIE_QP_KIND_RC, 4, 64, true);
	queue_slot_init(test, &u, WOOKIE_QP_KIND_UD, 4, 64, false);
	/* xrc_srqn: reserved but on an XRC initiator, 24 bits there. */
	for (op = 0; op < WOOKIE_WR_NUM_OPCODES; op++) {
		queue_minimal(&s, op);
		s.wqe->xrc_srqn = 1;
		KUNIT_EXPECT_EQ_MSG(test, queue_check(&s, &total, QUEUE_MTU),
				    -EINVAL, "opcode %u", op);
		s.lim.kind = WOOKIE_QP_KIND_XRC_INI;
		s.wqe->xrc_srqn = WOOKIE_XRC_SRQN_MASK;
		KUNIT_EXPECT_EQ_MSG(test, queue_check(&s, &total, QUEUE_MTU),
				    0, "opcode %u", op);
		s.wqe->xrc_srqn = WOOKIE_XRC_SRQN_MASK + 1;
		KUNIT_EXPECT_EQ_MSG(test, queue_check(&s, &total, QUEUE_MTU),
				    -EINVAL, "opcode %u", op);
		s.lim.kind = WOOKIE_QP_KIND_RC;
	}

	queue_minimal(&s, WOOKIE_WR_RDMA_WRITE);
	s.wqe->rdma.reserved = 1;
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), -EINVAL);
	queue_minimal(&s, WOOKIE_WR_RDMA_READ);
	s.wqe->rdma.reserved = 0x80000000;
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), -EINVAL);
	queue_minimal(&s, WOOKIE_WR_ATOMIC_FETCH_AND_ADD);
	s.wqe->atomic.reserved = 1;
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), -EINVAL);
	queue_minimal(&s, WOOKIE_WR_REG_MR);
	s.wqe->reg.reserved = 1;
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), -EINVAL);
	queue_minimal(&u, WOOKIE_WR_SEND_WITH_IMM);
	u.wqe->ud.reserved = 1;
	KUNIT_EXPECT_EQ(test, queue_check(&u, &total, QUEUE_MTU), -EINVAL);

	/* The same bytes are data of other members: not checked there. */
	queue_minimal(&s, WOOKIE_WR_SEND);
	s.wqe->ud.reserved = 1;
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), 0);
	queue_minimal(&s, WOOKIE_WR_BIND_MW);
	s.wqe->bind.addr = U64_MAX;
	s.wqe->bind.length = U64_MAX;
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), 0);
	queue_minimal(&s, WOOKIE_WR_ATOMIC_CMP_AND_SWP);
	s.wqe->atomic.compare_add = U64_MAX;
	s.wqe->atomic.swap = U64_MAX;
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), 0);
}

/* --- SGEs, inline data, lengths ----------------------------------------- */

static void wookie_queue_num_sge(struct kunit *test)
{
	struct queue_slot s;
	u32 max, n, i;
	u64 total;
	int ret;

	for (max = 0; max <= WOOKIE_MAX_SGE; max++) {
		queue_slot_init(test, &s, WOOKIE_QP_KIND_RC, max, 0, false);
		for (n = 0; n <= max + 1; n++) {
			queue_minimal(&s, WOOKIE_WR_RDMA_WRITE);
			s.wqe->num_sge = n;
			for (i = 0; i < n && i < max; i++)
				s.sge[i].length = 1000;
			ret = queue_check(&s, &total, QUEUE_MTU);
			if (n > max) {
				KUNIT_EXPECT_EQ(test, ret, -EINVAL);
				continue;
			}
			KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%u of %u", n, max);
			KUNIT_EXPECT_EQ(test, total, 1000ull * n);
		}
		kunit_kfree(test, s.wqe);
	}
	/* Never more than WOOKIE_MAX_SGE, whatever the limits say. */
	queue_slot_init(test, &s, WOOKIE_QP_KIND_RC, 40, 0, false);
	queue_minimal(&s, WOOKIE_WR_SEND);
	s.wqe->num_sge = WOOKIE_MAX_SGE + 1;
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), -EINVAL);
	s.wqe->num_sge = 0xffff;
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), -EINVAL);
}

static void wookie_queue_inline(struct kunit *test)
{
	struct queue_slot s;
	unsigned int op;
	u64 total;
	bool ok;

	queue_slot_init(test, &s, WOOKIE_QP_KIND_RC, 2, 100, true);
	for (op = 0; op < WOOKIE_WR_NUM_OPCODES; op++) {
		ok = op == WOOKIE_WR_SEND || op == WOOKIE_WR_SEND_WITH_IMM ||
		     op == WOOKIE_WR_SEND_WITH_INV ||
		     op == WOOKIE_WR_RDMA_WRITE ||
		     op == WOOKIE_WR_RDMA_WRITE_WITH_IMM;
		queue_minimal(&s, op);
		s.wqe->flags |= WOOKIE_WQE_INLINE;
		s.wqe->inline_len = 100;
		memset(s.wqe + 1, 0xee, 100);
		KUNIT_EXPECT_EQ_MSG(test, queue_check(&s, &total, QUEUE_MTU),
				    ok ? 0 : -EINVAL, "opcode %u", op);
		if (!ok)
			continue;
		KUNIT_EXPECT_EQ(test, total, 100ull);
		/* num_sge means nothing with INLINE. */
		s.wqe->num_sge = 0xffff;
		KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), 0);
		s.wqe->inline_len = 101;
		KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU),
				-EINVAL);
		s.wqe->inline_len = U32_MAX;
		KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU),
				-EINVAL);
	}
	/* inline_len without INLINE. */
	queue_minimal(&s, WOOKIE_WR_SEND);
	s.wqe->inline_len = 1;
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), -EINVAL);

	/* Never above WOOKIE_MAX_INLINE, whatever the limits say. */
	queue_slot_init(test, &s, WOOKIE_QP_KIND_RC, 2, 1024, false);
	queue_minimal(&s, WOOKIE_WR_SEND);
	s.wqe->flags |= WOOKIE_WQE_INLINE;
	s.wqe->inline_len = WOOKIE_MAX_INLINE;
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), 0);
	s.wqe->inline_len = WOOKIE_MAX_INLINE + 1;
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), -EINVAL);
}

static void wookie_queue_atomic_and_local(struct kunit *test)
{
	static const u32 bad_len[] = { 0, 1, 4, 7, 9, 16, U32_MAX };
	struct queue_slot s;
	unsigned int op;
	u64 total;
	size_t i;

	queue_slot_init(test, &s, WOOKIE_QP_KIND_RC, 4, 64, true);
	for (op = WOOKIE_WR_ATOMIC_CMP_AND_SWP;
	     op <= WOOKIE_WR_ATOMIC_FETCH_AND_ADD; op++) {
		queue_minimal(&s, op);
		KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), 0);
		KUNIT_EXPECT_EQ(test, total, 8ull);
		for (i = 0; i < ARRAY_SIZE(bad_len); i++) {
			s.sge[0].length = bad_len[i];
			KUNIT_EXPECT_EQ(test,
					queue_check(&s, &total, QUEUE_MTU),
					-EINVAL);
		}
		queue_minimal(&s, op);
		s.wqe->num_sge = 0;
		KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU),
				-EINVAL);
		s.wqe->num_sge = 2;
		s.sge[1].length = 8;
		KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU),
				-EINVAL);
	}
	for (op = WOOKIE_WR_LOCAL_INV; op <= WOOKIE_WR_REG_MR; op++) {
		queue_minimal(&s, op);
		KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), 0);
		KUNIT_EXPECT_EQ(test, total, 0ull);
		s.wqe->num_sge = 1;
		KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU),
				-EINVAL);
	}
	/* A zero-length READ has no SGE. */
	queue_minimal(&s, WOOKIE_WR_RDMA_READ);
	s.wqe->num_sge = 0;
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), 0);
	KUNIT_EXPECT_EQ(test, total, 0ull);
}

static void wookie_queue_message_size(struct kunit *test)
{
	struct queue_slot s;
	unsigned int i;
	u64 total;

	queue_slot_init(test, &s, WOOKIE_QP_KIND_RC, WOOKIE_MAX_SGE, 0, false);
	queue_minimal(&s, WOOKIE_WR_SEND);
	s.sge[0].length = 0x80000000u;
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), 0);
	KUNIT_EXPECT_EQ(test, total, 0x80000000ull);
	s.sge[0].length = 0x80000001u;
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, total, QUEUE_UNTOUCHED);
	/* Two lengths that wrap a u32 to 0. */
	s.wqe->num_sge = 2;
	s.sge[0].length = 0x80000000u;
	s.sge[1].length = 0x80000000u;
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), -EMSGSIZE);
	s.wqe->num_sge = WOOKIE_MAX_SGE;
	for (i = 0; i < WOOKIE_MAX_SGE; i++)
		s.sge[i].length = U32_MAX;
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), -EMSGSIZE);

	/* UD: one packet, at most the path MTU, inline data included. */
	queue_slot_init(test, &s, WOOKIE_QP_KIND_UD, 2, 256, false);
	queue_minimal(&s, WOOKIE_WR_SEND);
	s.sge[0].length = QUEUE_MTU;
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), 0);
	s.sge[0].length = QUEUE_MTU + 1;
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, QUEUE_MTU), -EMSGSIZE);
	queue_minimal(&s, WOOKIE_WR_SEND_WITH_IMM);
	s.wqe->flags |= WOOKIE_WQE_INLINE;
	s.wqe->inline_len = 200;
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, 200), 0);
	KUNIT_EXPECT_EQ(test, queue_check(&s, &total, 199), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, wookie_sqe_check(s.wqe, &s.lim, 200, NULL), 0);
}

static void wookie_queue_rqe(struct kunit *test)
{
	struct wookie_rqe *wqe;
	struct wookie_sge *sge;
	u32 max, n, i, stride;
	u64 total;
	int ret;

	for (max = 0; max <= WOOKIE_MAX_SGE; max++) {
		stride = wookie_rq_stride(max);
		wqe = kunit_kzalloc(test, stride, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, wqe);
		sge = (struct wookie_sge *)(wqe + 1);
		for (n = 0; n <= max + 1; n++) {
			memset(wqe, 0, stride);
			wqe->num_sge = n;
			for (i = 0; i < n && i < max; i++)
				sge[i].length = 4096;
			total = QUEUE_UNTOUCHED;
			ret = wookie_rqe_check(wqe, max, &total);
			if (n > max) {
				KUNIT_EXPECT_EQ(test, ret, -EINVAL);
				KUNIT_EXPECT_EQ(test, total, QUEUE_UNTOUCHED);
			} else {
				KUNIT_EXPECT_EQ(test, ret, 0);
				KUNIT_EXPECT_EQ(test, total, 4096ull * n);
			}
		}
		memset(wqe, 0, stride);
		wqe->reserved = 1;
		KUNIT_EXPECT_EQ(test, wookie_rqe_check(wqe, max, &total),
				-EINVAL);
		wqe->reserved = 0;
		wqe->num_sge = U32_MAX;
		KUNIT_EXPECT_EQ(test, wookie_rqe_check(wqe, U32_MAX, &total),
				-EINVAL);
		if (max != WOOKIE_MAX_SGE) {
			kunit_kfree(test, wqe);
			continue;
		}
		/* The largest slot: lengths that add up past 2^31. */
		wqe->num_sge = 1;
		sge[0].length = 0x80000000u;
		KUNIT_EXPECT_EQ(test, wookie_rqe_check(wqe, max, NULL), 0);
		sge[0].length = 0x80000001u;
		KUNIT_EXPECT_EQ(test, wookie_rqe_check(wqe, max, &total),
				-EMSGSIZE);
		wqe->num_sge = max;
		for (i = 0; i < max; i++)
			sge[i].length = U32_MAX;
		KUNIT_EXPECT_EQ(test, wookie_rqe_check(wqe, max, &total),
				-EMSGSIZE);
	}
}

static struct kunit_case wookie_queue_cases[] = {
	KUNIT_CASE(wookie_queue_ring_entries),
	KUNIT_CASE(wookie_queue_strides),
	KUNIT_CASE(wookie_queue_ring_arithmetic),
	KUNIT_CASE_PARAM(wookie_queue_opcode_matrix, queue_rows_gen_params),
	KUNIT_CASE(wookie_queue_unknown_kind),
	KUNIT_CASE(wookie_queue_flush),
	KUNIT_CASE(wookie_queue_flags),
	KUNIT_CASE(wookie_queue_reserved),
	KUNIT_CASE(wookie_queue_num_sge),
	KUNIT_CASE(wookie_queue_inline),
	KUNIT_CASE(wookie_queue_atomic_and_local),
	KUNIT_CASE(wookie_queue_message_size),
	KUNIT_CASE(wookie_queue_rqe),
	{}
};

static struct kunit_suite wookie_queue_suite = {
	.name = "wookie_queue",
	.test_cases = wookie_queue_cases,
};

kunit_test_suite(wookie_queue_suite);
