// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite for kernel/portable/wookie_wire.c: the RoCEv2 transport
 * headers, on the vectors shared with the host tests, and cross-checked
 * against the kernel's own view of the same bytes (ib_pack.h opcodes,
 * ib_hdrs.h accessors, enum ib_rnr_timeout).  Packets sit in kmalloc()ed
 * buffers of exactly their length, so that KASAN catches a read past them.
 */
#include <kunit/test.h>
#include <linux/bitops.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_hdrs.h>
#include <rdma/ib_pack.h>
#include <rdma/ib_verbs.h>
#include <asm/unaligned.h>

#include "wookie_wire.h"
#include "wookie_wire_vectors.h"

/* A copy of @len bytes in a block of exactly that size (never NULL). */
static u8 *wire_exact(struct kunit *test, const u8 *bytes, size_t len)
{
	u8 *p = kunit_kmalloc(test, len ? len : 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	if (len)
		memcpy(p, bytes, len);
	return p;
}

static const struct wookie_wire_opcode_vector *wire_find_opcode(unsigned int op)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(wookie_wire_opcode_vectors); i++)
		if (wookie_wire_opcode_vectors[i].opcode == op)
			return &wookie_wire_opcode_vectors[i];
	return NULL;
}

/* The decoded headers a vector promises. */
static void wire_decoded(const struct wookie_wire_pkt_vector *v,
			 struct wookie_hdrs *h)
{
	const struct wookie_wire_opcode_vector *o = wire_find_opcode(v->opcode);

	memset(h, 0, sizeof(*h));
	h->bth.opcode = v->opcode;
	h->bth.solicited = v->se;
	h->bth.mig_req = v->mig_req;
	h->bth.pad = v->pad;
	h->bth.pkey = v->pkey;
	h->bth.fecn = v->fecn;
	h->bth.becn = v->becn;
	h->bth.dest_qp = v->dest_qp;
	h->bth.ack_req = v->ack_req;
	h->bth.psn = v->psn;
	h->flags = o ? o->flags : 0;
	h->reth.va = v->reth_va;
	h->reth.rkey = v->reth_rkey;
	h->reth.dma_len = v->reth_len;
	h->aeth.syndrome = v->syndrome;
	h->aeth.msn = v->msn;
	h->atomic.va = v->atomic_va;
	h->atomic.rkey = v->atomic_rkey;
	h->atomic.swap_add = v->swap_add;
	h->atomic.compare = v->compare;
	h->atomic_orig = v->atomic_orig;
	h->deth.qkey = v->qkey;
	h->deth.src_qp = v->src_qp;
	memcpy(&h->imm_be, v->imm, 4);
	h->ieth_rkey = v->ieth_rkey;
	h->xrc_srqn = v->xrc_srqn;
	h->feth.type = v->feth_type;
	h->feth.level = v->feth_level;
	h->hdr_len = v->hdr_len;
	h->payload_len = v->payload_len;
}

static void wire_expect_field(struct kunit *test, const char *name, u64 got,
			      u64 want)
{
	KUNIT_EXPECT_EQ_MSG(test, got, want, "%s", name);
}

static void wire_expect_same(struct kunit *test, const struct wookie_hdrs *got,
			     const struct wookie_hdrs *want)
{
	wire_expect_field(test, "bth.opcode", got->bth.opcode,
			  want->bth.opcode);
	wire_expect_field(test, "bth.solicited", got->bth.solicited,
			  want->bth.solicited);
	wire_expect_field(test, "bth.mig_req", got->bth.mig_req,
			  want->bth.mig_req);
	wire_expect_field(test, "bth.pad", got->bth.pad,
			  want->bth.pad);
	wire_expect_field(test, "bth.tver", got->bth.tver,
			  want->bth.tver);
	wire_expect_field(test, "bth.pkey", got->bth.pkey,
			  want->bth.pkey);
	wire_expect_field(test, "bth.fecn", got->bth.fecn,
			  want->bth.fecn);
	wire_expect_field(test, "bth.becn", got->bth.becn,
			  want->bth.becn);
	wire_expect_field(test, "bth.dest_qp", got->bth.dest_qp,
			  want->bth.dest_qp);
	wire_expect_field(test, "bth.ack_req", got->bth.ack_req,
			  want->bth.ack_req);
	wire_expect_field(test, "bth.psn", got->bth.psn,
			  want->bth.psn);
	wire_expect_field(test, "flags", got->flags,
			  want->flags);
	wire_expect_field(test, "reth.va", got->reth.va,
			  want->reth.va);
	wire_expect_field(test, "reth.rkey", got->reth.rkey,
			  want->reth.rkey);
	wire_expect_field(test, "reth.dma_len", got->reth.dma_len,
			  want->reth.dma_len);
	wire_expect_field(test, "aeth.syndrome", got->aeth.syndrome,
			  want->aeth.syndrome);
	wire_expect_field(test, "aeth.msn", got->aeth.msn,
			  want->aeth.msn);
	wire_expect_field(test, "atomic.va", got->atomic.va,
			  want->atomic.va);
	wire_expect_field(test, "atomic.rkey", got->atomic.rkey,
			  want->atomic.rkey);
	wire_expect_field(test, "atomic.swap_add", got->atomic.swap_add,
			  want->atomic.swap_add);
	wire_expect_field(test, "atomic.compare", got->atomic.compare,
			  want->atomic.compare);
	wire_expect_field(test, "atomic_orig", got->atomic_orig,
			  want->atomic_orig);
	wire_expect_field(test, "deth.qkey", got->deth.qkey,
			  want->deth.qkey);
	wire_expect_field(test, "deth.src_qp", got->deth.src_qp,
			  want->deth.src_qp);
	wire_expect_field(test, "imm_be", got->imm_be,
			  want->imm_be);
	wire_expect_field(test, "ieth_rkey", got->ieth_rkey,
			  want->ieth_rkey);
	wire_expect_field(test, "xrc_srqn", got->xrc_srqn,
			  want->xrc_srqn);
	wire_expect_field(test, "feth.type", got->feth.type,
			  want->feth.type);
	wire_expect_field(test, "feth.level", got->feth.level,
			  want->feth.level);
	wire_expect_field(test, "hdr_len", got->hdr_len,
			  want->hdr_len);
	wire_expect_field(test, "payload_len", got->payload_len,
			  want->payload_len);
}

static void wire_pkt_desc(const struct wookie_wire_pkt_vector *v, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", v->name);
}

KUNIT_ARRAY_PARAM(wire_pkts, wookie_wire_pkt_vectors, wire_pkt_desc);

static void wookie_wire_parse_vectors(struct kunit *test)
{
	const struct wookie_wire_pkt_vector *v = test->param_value;
	u8 *buf = wire_exact(test, v->bytes, v->len);
	struct wookie_hdrs h, want;

	KUNIT_ASSERT_EQ(test, wookie_hdrs_parse(buf, v->len, &h), 0);
	wire_decoded(v, &want);
	wire_expect_same(test, &h, &want);
	KUNIT_EXPECT_EQ(test, h.hdr_len + h.payload_len + h.bth.pad, v->len);
	KUNIT_EXPECT_EQ(test, h.hdr_len, wookie_hdrs_len(v->opcode));
}

/*
 * The same bytes as the kernel's ib_hdrs.h reads them: each extended
 * header where IBTA (and hfi1, qib, rdmavt) place it for the opcode.
 */
static void wookie_wire_kernel_view(struct kunit *test)
{
	const struct wookie_wire_pkt_vector *v = test->param_value;
	const struct wookie_wire_opcode_vector *o = wire_find_opcode(v->opcode);
	union {
		struct ib_other_headers oh;
		u8 bytes[WOOKIE_TEST_PKT_MAX];
	} *p;
	struct ib_other_headers *oh;
	u32 aeth;

	KUNIT_ASSERT_NOT_NULL(test, o);
	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	memcpy(p->bytes, v->bytes, v->len);
	/*
	 * The kernel's struct ib_other_headers has no XRCETH: check it here
	 * and hand the rest to the kernel's view as if it followed the BTH.
	 */
	if (o->flags & WOOKIE_OPF_XRCETH) {
		KUNIT_EXPECT_EQ(test, get_unaligned_be32(v->bytes + IB_BTH_BYTES) &
				IB_QPN_MASK, v->xrc_srqn);
		memmove(p->bytes + IB_BTH_BYTES,
			p->bytes + IB_BTH_BYTES + IB_EXT_XRC_BYTES,
			v->len - IB_BTH_BYTES - IB_EXT_XRC_BYTES);
	}
	/* Nor a FETH (6.1 has no FLUSH): the same, after the XRCETH. */
	if (o->flags & WOOKIE_OPF_FETH) {
		u32 feth = get_unaligned_be32(p->bytes + IB_BTH_BYTES);

		KUNIT_EXPECT_EQ(test, feth & 0xf, v->feth_type);
		KUNIT_EXPECT_EQ(test, (feth >> 4) & 3, v->feth_level);
		memmove(p->bytes + IB_BTH_BYTES, p->bytes + IB_BTH_BYTES + 4,
			v->len - IB_BTH_BYTES - 4);
	}
	oh = &p->oh;

	KUNIT_EXPECT_EQ(test, ib_bth_get_opcode(oh), v->opcode);
	KUNIT_EXPECT_EQ(test, ib_bth_get_se(oh), v->se);
	KUNIT_EXPECT_EQ(test, ib_bth_is_solicited(oh), !!v->se);
	KUNIT_EXPECT_EQ(test, ib_bth_get_migreq(oh), v->mig_req);
	KUNIT_EXPECT_EQ(test, ib_bth_get_pad(oh), v->pad);
	KUNIT_EXPECT_EQ(test, ib_bth_get_tver(oh), 0);
	KUNIT_EXPECT_EQ(test, ib_bth_get_pkey(oh), v->pkey);
	KUNIT_EXPECT_EQ(test, ib_bth_get_fecn(oh), !!v->fecn);
	KUNIT_EXPECT_EQ(test, ib_bth_get_becn(oh), !!v->becn);
	KUNIT_EXPECT_EQ(test, ib_bth_get_qpn(oh), v->dest_qp);
	KUNIT_EXPECT_EQ(test, ib_bth_get_ackreq(oh), v->ack_req);
	KUNIT_EXPECT_EQ(test, ib_bth_get_psn(oh) & IB_MSN_MASK, v->psn);

	if (o->flags & WOOKIE_OPF_DETH) {
		KUNIT_EXPECT_EQ(test, ib_get_qkey(oh), v->qkey);
		KUNIT_EXPECT_EQ(test, ib_get_sqpn(oh), v->src_qp);
		if (o->flags & WOOKIE_OPF_IMMDT)
			KUNIT_EXPECT_EQ(test, be32_to_cpu(oh->u.ud.imm_data),
					get_unaligned_be32(v->imm));
	} else if (o->flags & WOOKIE_OPF_RETH) {
		KUNIT_EXPECT_EQ(test, get_ib_reth_vaddr(&oh->u.rc.reth),
				v->reth_va);
		KUNIT_EXPECT_EQ(test, be32_to_cpu(oh->u.rc.reth.rkey),
				v->reth_rkey);
		KUNIT_EXPECT_EQ(test, be32_to_cpu(oh->u.rc.reth.length),
				v->reth_len);
		if (o->flags & WOOKIE_OPF_IMMDT)
			KUNIT_EXPECT_EQ(test, be32_to_cpu(oh->u.rc.imm_data),
					get_unaligned_be32(v->imm));
	} else if (o->flags & WOOKIE_OPF_ATOMIC_ETH) {
		KUNIT_EXPECT_EQ(test, get_ib_ateth_vaddr(&oh->u.atomic_eth),
				v->atomic_va);
		KUNIT_EXPECT_EQ(test, be32_to_cpu(oh->u.atomic_eth.rkey),
				v->atomic_rkey);
		KUNIT_EXPECT_EQ(test, get_ib_ateth_swap(&oh->u.atomic_eth),
				v->swap_add);
		KUNIT_EXPECT_EQ(test, get_ib_ateth_compare(&oh->u.atomic_eth),
				v->compare);
	} else if (o->flags & WOOKIE_OPF_ATOMIC_ACK_ETH) {
		aeth = be32_to_cpu(oh->u.at.aeth);
		KUNIT_EXPECT_EQ(test, aeth >> 24, v->syndrome);
		KUNIT_EXPECT_EQ(test, aeth & IB_MSN_MASK, v->msn);
		KUNIT_EXPECT_EQ(test, get_unaligned_be64(p->bytes + 16),
				v->atomic_orig);
	} else if (o->flags & WOOKIE_OPF_AETH) {
		aeth = be32_to_cpu(oh->u.aeth);
		KUNIT_EXPECT_EQ(test, aeth >> 24, v->syndrome);
		KUNIT_EXPECT_EQ(test, aeth & IB_MSN_MASK, v->msn);
	} else if (o->flags & WOOKIE_OPF_IMMDT) {
		KUNIT_EXPECT_EQ(test, be32_to_cpu(oh->u.imm_data),
				get_unaligned_be32(v->imm));
	} else if (o->flags & WOOKIE_OPF_IETH) {
		KUNIT_EXPECT_EQ(test, be32_to_cpu(oh->u.ieth), v->ieth_rkey);
	}
}

static void wookie_wire_build_vectors(struct kunit *test)
{
	const struct wookie_wire_pkt_vector *v = test->param_value;
	struct wookie_hdrs h, back, want;
	u8 *out, *pkt;
	size_t i;

	out = kunit_kmalloc(test, v->hdr_len + 8, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, out);
	memset(out, 0xa5, v->hdr_len + 8);
	wire_decoded(v, &h);
	h.flags = 0;	/* ignored by build */
	h.bth.pad = 3;	/* computed by build */
	KUNIT_ASSERT_EQ(test, wookie_hdrs_build(out, v->hdr_len, &h),
			(int)v->hdr_len);
	for (i = v->hdr_len; i < v->hdr_len + 8; i++)
		KUNIT_EXPECT_EQ_MSG(test, out[i], 0xa5, "wrote byte %zu", i);
	if (v->rebuilds)
		KUNIT_EXPECT_EQ_MSG(test, memcmp(out, v->bytes, v->hdr_len), 0,
				    "built %*ph, want %*ph", (int)v->hdr_len,
				    out, (int)v->hdr_len, v->bytes);
	KUNIT_EXPECT_EQ(test, (out[1] >> 4) & 3, v->pad);

	/* Built headers + the vector's payload and pad parse back. */
	pkt = kunit_kmalloc(test, v->len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pkt);
	memcpy(pkt, out, v->hdr_len);
	memcpy(pkt + v->hdr_len, v->bytes + v->hdr_len, v->len - v->hdr_len);
	KUNIT_ASSERT_EQ(test, wookie_hdrs_parse(pkt, v->len, &back), 0);
	wire_decoded(v, &want);
	wire_expect_same(test, &back, &want);
}

/* Every prefix: refused while too short or unaligned, else less payload. */
static void wookie_wire_truncated(struct kunit *test)
{
	const struct wookie_wire_pkt_vector *v = test->param_value;
	struct wookie_hdrs h;
	unsigned int n;
	int ret;
	u8 *buf;

	for (n = 0; n < v->len; n++) {
		buf = wire_exact(test, v->bytes, n);
		ret = wookie_hdrs_parse(buf, n, &h);
		if (n < v->hdr_len + v->pad || n % 4) {
			KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "%u bytes", n);
		} else {
			KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%u bytes", n);
			KUNIT_EXPECT_EQ(test, h.payload_len,
					n - v->hdr_len - v->pad);
		}
		kunit_kfree(test, buf);
	}
}

static void wire_bad_desc(const struct wookie_wire_bad_vector *v, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", v->name);
}

KUNIT_ARRAY_PARAM(wire_bad, wookie_wire_bad_vectors, wire_bad_desc);

static void wookie_wire_malformed(struct kunit *test)
{
	const struct wookie_wire_bad_vector *v = test->param_value;
	u8 *buf = wire_exact(test, v->bytes, v->len);
	struct wookie_hdrs h;

	KUNIT_EXPECT_EQ(test, wookie_hdrs_parse(buf, v->len, &h), -EINVAL);
}

static void wire_op_desc(const struct wookie_wire_opcode_vector *v, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "opcode 0x%02x", v->opcode);
}

KUNIT_ARRAY_PARAM(wire_ops, wookie_wire_opcode_vectors, wire_op_desc);

static void wookie_wire_opcode(struct kunit *test)
{
	const struct wookie_wire_opcode_vector *v = test->param_value;
	u32 f = wookie_opcode_flags(v->opcode);

	KUNIT_EXPECT_EQ(test, f, v->flags);
	KUNIT_EXPECT_EQ(test, wookie_hdrs_len(v->opcode), v->hdr_len);
	/* One class, one direction; MIDDLE excludes FIRST and LAST. */
	KUNIT_EXPECT_EQ(test, hweight32(f & (WOOKIE_OPF_SEND |
		WOOKIE_OPF_WRITE | WOOKIE_OPF_READ | WOOKIE_OPF_ATOMIC |
		WOOKIE_OPF_ACK | WOOKIE_OPF_FLUSH | WOOKIE_OPF_ATOMIC_WRITE)),
		1u);
	KUNIT_EXPECT_EQ(test, hweight32(f & (WOOKIE_OPF_REQUEST |
		WOOKIE_OPF_RESPONSE)), 1u);
	if (f & WOOKIE_OPF_MIDDLE)
		KUNIT_EXPECT_FALSE(test,
				   f & (WOOKIE_OPF_FIRST | WOOKIE_OPF_LAST));
	else
		KUNIT_EXPECT_TRUE(test,
				  f & (WOOKIE_OPF_FIRST | WOOKIE_OPF_LAST));
	KUNIT_EXPECT_EQ(test, (v->opcode & 0xe0) == 0x60,
			!!(f & WOOKIE_OPF_DETH));
}

static void wookie_wire_opcode_sweep(struct kunit *test)
{
	const struct wookie_wire_opcode_vector *v;
	unsigned int op, valid = 0;

	for (op = 0; op < 256; op++) {
		v = wire_find_opcode(op);
		KUNIT_EXPECT_EQ_MSG(test, wookie_opcode_flags(op),
				    v ? v->flags : 0u, "opcode 0x%02x", op);
		KUNIT_EXPECT_EQ_MSG(test, wookie_hdrs_len(op),
				    v ? v->hdr_len : 0u, "opcode 0x%02x", op);
		valid += !!wookie_opcode_flags(op);
	}
	KUNIT_EXPECT_EQ(test, valid, (unsigned int)WOOKIE_TEST_NUM_OPCODES);
	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(wookie_wire_opcode_vectors),
			(size_t)WOOKIE_TEST_NUM_OPCODES);
}

/* Our opcode and header numbers are the kernel's (ib_pack.h, ib_hdrs.h). */
static void wookie_wire_kernel_constants(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, WOOKIE_TRANSPORT_RC, IB_OPCODE_RC);
	KUNIT_EXPECT_EQ(test, WOOKIE_TRANSPORT_UC, IB_OPCODE_UC);
	KUNIT_EXPECT_EQ(test, WOOKIE_TRANSPORT_UD, IB_OPCODE_UD);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_SEND_FIRST, IB_OPCODE_SEND_FIRST);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_SEND_MIDDLE, IB_OPCODE_SEND_MIDDLE);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_SEND_LAST, IB_OPCODE_SEND_LAST);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_SEND_LAST_IMM,
			IB_OPCODE_SEND_LAST_WITH_IMMEDIATE);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_SEND_ONLY, IB_OPCODE_SEND_ONLY);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_SEND_ONLY_IMM,
			IB_OPCODE_SEND_ONLY_WITH_IMMEDIATE);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_WRITE_FIRST,
			IB_OPCODE_RDMA_WRITE_FIRST);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_WRITE_MIDDLE,
			IB_OPCODE_RDMA_WRITE_MIDDLE);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_WRITE_LAST, IB_OPCODE_RDMA_WRITE_LAST);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_WRITE_LAST_IMM,
			IB_OPCODE_RDMA_WRITE_LAST_WITH_IMMEDIATE);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_WRITE_ONLY, IB_OPCODE_RDMA_WRITE_ONLY);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_WRITE_ONLY_IMM,
			IB_OPCODE_RDMA_WRITE_ONLY_WITH_IMMEDIATE);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_READ_REQUEST,
			IB_OPCODE_RDMA_READ_REQUEST);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_READ_RESPONSE_FIRST,
			IB_OPCODE_RDMA_READ_RESPONSE_FIRST);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_READ_RESPONSE_MIDDLE,
			IB_OPCODE_RDMA_READ_RESPONSE_MIDDLE);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_READ_RESPONSE_LAST,
			IB_OPCODE_RDMA_READ_RESPONSE_LAST);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_READ_RESPONSE_ONLY,
			IB_OPCODE_RDMA_READ_RESPONSE_ONLY);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_ACKNOWLEDGE, IB_OPCODE_ACKNOWLEDGE);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_ATOMIC_ACKNOWLEDGE,
			IB_OPCODE_ATOMIC_ACKNOWLEDGE);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_CMP_SWAP, IB_OPCODE_COMPARE_SWAP);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_FETCH_ADD, IB_OPCODE_FETCH_ADD);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_SEND_LAST_INV,
			IB_OPCODE_SEND_LAST_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, WOOKIE_OP_SEND_ONLY_INV,
			IB_OPCODE_SEND_ONLY_WITH_INVALIDATE);

	KUNIT_EXPECT_EQ(test, wookie_hdrs_len(IB_OPCODE_RC_SEND_ONLY),
			(unsigned int)IB_BTH_BYTES);
	KUNIT_EXPECT_EQ(test, wookie_hdrs_len(IB_OPCODE_UD_SEND_ONLY),
			(unsigned int)(IB_BTH_BYTES + IB_DETH_BYTES));
	KUNIT_EXPECT_EQ(test, wookie_hdrs_len(IB_OPCODE_RC_COMPARE_SWAP),
			(unsigned int)(IB_BTH_BYTES + IB_EXT_ATOMICETH_BYTES));
	KUNIT_EXPECT_EQ(test, wookie_hdrs_len(IB_OPCODE_RC_RDMA_WRITE_FIRST),
			(unsigned int)(IB_BTH_BYTES + sizeof(struct ib_reth)));
	KUNIT_EXPECT_EQ(test, sizeof(struct ib_atomic_eth), (size_t)28);
	/* Not ours to parse: CNP and the reserved transports. */
	KUNIT_EXPECT_EQ(test, wookie_opcode_flags(IB_OPCODE_CNP), 0u);
	KUNIT_EXPECT_EQ(test, wookie_opcode_flags(IB_OPCODE_RD_SEND_ONLY), 0u);
	KUNIT_EXPECT_EQ(test, wookie_opcode_flags(IB_OPCODE_UC +
						  IB_OPCODE_RDMA_READ_REQUEST),
			0u);

	KUNIT_EXPECT_EQ(test, WOOKIE_AETH_RNR_NAK, IB_RNR_NAK);
	KUNIT_EXPECT_EQ(test, WOOKIE_AETH_NAK | WOOKIE_NAK_PSN_SEQ_ERROR,
			IB_NAK_PSN_ERROR);
	KUNIT_EXPECT_EQ(test, WOOKIE_AETH_NAK | WOOKIE_NAK_INVALID_REQUEST,
			IB_NAK_INVALID_REQUEST);
	KUNIT_EXPECT_EQ(test, WOOKIE_AETH_NAK | WOOKIE_NAK_REMOTE_ACCESS_ERROR,
			IB_NAK_REMOTE_ACCESS_ERROR);
	KUNIT_EXPECT_EQ(test, WOOKIE_AETH_NAK | WOOKIE_NAK_REMOTE_OP_ERROR,
			IB_NAK_REMOTE_OPERATIONAL_ERROR);
	KUNIT_EXPECT_EQ(test, WOOKIE_AETH_NAK | WOOKIE_NAK_INVALID_RD_REQUEST,
			IB_NAK_INVALID_RD_REQUEST);
	KUNIT_EXPECT_EQ(test, WOOKIE_AETH_NO_CREDITS, IB_AETH_CREDIT_INVAL);
	KUNIT_EXPECT_EQ(test, WOOKIE_PSN_MASK, (u32)IB_MSN_MASK);
}

/* A buffer one byte short is refused and left alone. */
static void wookie_wire_build_capacity(struct kunit *test)
{
	struct wookie_hdrs h;
	unsigned int cap;
	size_t i;
	u8 buf[WOOKIE_TEST_PKT_MAX];

	for (i = 0; i < ARRAY_SIZE(wookie_wire_opcode_vectors); i++) {
		const struct wookie_wire_opcode_vector *o =
			&wookie_wire_opcode_vectors[i];

		memset(&h, 0, sizeof(h));
		h.bth.opcode = o->opcode;
		for (cap = 0; cap <= o->hdr_len; cap++) {
			memset(buf, 0xa5, sizeof(buf));
			if (cap < o->hdr_len) {
				KUNIT_EXPECT_EQ(test,
						wookie_hdrs_build(buf, cap, &h),
						-EINVAL);
				KUNIT_EXPECT_EQ(test, buf[0], 0xa5);
			} else {
				KUNIT_EXPECT_EQ(test,
						wookie_hdrs_build(buf, cap, &h),
						(int)o->hdr_len);
				KUNIT_EXPECT_EQ(test, buf[o->hdr_len], 0xa5);
			}
		}
	}
	for (cap = 0; cap < 256; cap++) {
		memset(&h, 0, sizeof(h));
		h.bth.opcode = cap;
		if (!wire_find_opcode(cap))
			KUNIT_EXPECT_EQ(test,
					wookie_hdrs_build(buf, sizeof(buf), &h),
					-EINVAL);
	}
}

/* xorshift64: the same sequence on every run. */
static u64 wire_rand(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Random headers for every opcode: build, parse, same fields. */
static void wookie_wire_random_round_trip(struct kunit *test)
{
	struct wookie_hdrs h, back;
	u64 seed = 0x600d5eedull;
	u32 payload;
	size_t i;
	int round;
	u8 *pkt;
	u8 pad;

	for (round = 0; round < 50; round++) {
		for (i = 0; i < ARRAY_SIZE(wookie_wire_opcode_vectors); i++) {
			const struct wookie_wire_opcode_vector *o =
				&wookie_wire_opcode_vectors[i];

			payload = (o->flags & WOOKIE_OPF_PAYLOAD) ?
				wire_rand(&seed) % 64 : 0;
			pad = -payload & 3;
			memset(&h, 0, sizeof(h));
			h.bth.opcode = o->opcode;
			h.bth.solicited = wire_rand(&seed) & 1;
			h.bth.mig_req = wire_rand(&seed) & 1;
			h.bth.pkey = wire_rand(&seed);
			h.bth.fecn = wire_rand(&seed) & 1;
			h.bth.becn = wire_rand(&seed) & 1;
			h.bth.dest_qp = wire_rand(&seed) & 0xffffff;
			h.bth.ack_req = wire_rand(&seed) & 1;
			h.bth.psn = wire_rand(&seed) & 0xffffff;
			if (o->flags & WOOKIE_OPF_RETH) {
				h.reth.va = wire_rand(&seed);
				h.reth.rkey = wire_rand(&seed);
				h.reth.dma_len = wire_rand(&seed);
			}
			if (o->flags & WOOKIE_OPF_AETH) {
				h.aeth.syndrome = wire_rand(&seed);
				h.aeth.msn = wire_rand(&seed) & 0xffffff;
			}
			if (o->flags & WOOKIE_OPF_ATOMIC_ETH) {
				h.atomic.va = wire_rand(&seed);
				h.atomic.rkey = wire_rand(&seed);
				h.atomic.swap_add = wire_rand(&seed);
				h.atomic.compare = wire_rand(&seed);
			}
			if (o->flags & WOOKIE_OPF_ATOMIC_ACK_ETH)
				h.atomic_orig = wire_rand(&seed);
			if (o->flags & WOOKIE_OPF_DETH) {
				h.deth.qkey = wire_rand(&seed);
				h.deth.src_qp = wire_rand(&seed) & 0xffffff;
			}
			if (o->flags & WOOKIE_OPF_IMMDT)
				h.imm_be = wire_rand(&seed);
			if (o->flags & WOOKIE_OPF_IETH)
				h.ieth_rkey = wire_rand(&seed);
			if (o->flags & WOOKIE_OPF_XRCETH)
				h.xrc_srqn = wire_rand(&seed) & 0xffffff;
			if (o->flags & WOOKIE_OPF_FETH) {
				h.feth.type = wire_rand(&seed) & 0xf;
				h.feth.level = wire_rand(&seed) & 3;
			}
			h.payload_len = payload;

			pkt = kunit_kzalloc(test, o->hdr_len + payload + pad,
					    GFP_KERNEL);
			KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pkt);
			KUNIT_ASSERT_EQ(test,
					wookie_hdrs_build(pkt, o->hdr_len, &h),
					(int)o->hdr_len);
			KUNIT_ASSERT_EQ(test,
					wookie_hdrs_parse(pkt, o->hdr_len +
							  payload + pad, &back),
					0);
			h.bth.pad = pad;
			h.flags = o->flags;
			h.hdr_len = o->hdr_len;
			wire_expect_same(test, &back, &h);
			kunit_kfree(test, pkt);
		}
	}
}

/* Random bytes: never outside the buffer (KASAN), accepted ones add up. */
static void wookie_wire_random_bytes(struct kunit *test)
{
	unsigned int i, accepted = 0;
	struct wookie_hdrs h;
	u64 seed = 12345;
	size_t len, j;
	u8 *pkt;

	for (i = 0; i < 20000; i++) {
		len = (i & 4) ? wire_rand(&seed) % 80 :
			(wire_rand(&seed) % 20) * 4;
		pkt = kunit_kmalloc(test, len ? len : 1, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pkt);
		for (j = 0; j < len; j++)
			pkt[j] = wire_rand(&seed);
		if (len && (i & 1))
			pkt[0] = wookie_wire_opcode_vectors[wire_rand(&seed) %
				WOOKIE_TEST_NUM_OPCODES].opcode;
		if (len > 1 && (i & 2))
			pkt[1] &= 0xf0;
		if (!wookie_hdrs_parse(pkt, len, &h)) {
			accepted++;
			KUNIT_EXPECT_EQ(test, (size_t)h.hdr_len +
					h.payload_len + h.bth.pad, len);
			KUNIT_EXPECT_EQ(test, h.flags,
					wookie_opcode_flags(pkt[0]));
		}
		kunit_kfree(test, pkt);
	}
	KUNIT_EXPECT_GT(test, accepted, 200u);
}

static void wire_timer_desc(const struct wookie_wire_timer_vector *v,
			    char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "code %u", v->code);
}

KUNIT_ARRAY_PARAM(wire_rnr, wookie_rnr_vectors, wire_timer_desc);
KUNIT_ARRAY_PARAM(wire_ack_timeout, wookie_ack_timeout_vectors,
		  wire_timer_desc);

static void wookie_wire_rnr_timer(struct kunit *test)
{
	const struct wookie_wire_timer_vector *v = test->param_value;

	KUNIT_EXPECT_EQ(test, (u64)wookie_rnr_timer_usec(v->code), v->usec);
}

static void wookie_wire_ack_timeout(struct kunit *test)
{
	const struct wookie_wire_timer_vector *v = test->param_value;

	KUNIT_EXPECT_EQ(test, wookie_ack_timeout_usec(v->code), v->usec);
}

/* The codes of enum ib_rnr_timeout, whose names are the milliseconds. */
static void wookie_wire_rnr_kernel_enum(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, wookie_rnr_timer_usec(IB_RNR_TIMER_655_36),
			655360u);
	KUNIT_EXPECT_EQ(test, wookie_rnr_timer_usec(IB_RNR_TIMER_000_01), 10u);
	KUNIT_EXPECT_EQ(test, wookie_rnr_timer_usec(IB_RNR_TIMER_000_06), 60u);
	KUNIT_EXPECT_EQ(test, wookie_rnr_timer_usec(IB_RNR_TIMER_000_96), 960u);
	KUNIT_EXPECT_EQ(test, wookie_rnr_timer_usec(IB_RNR_TIMER_001_28),
			1280u);
	KUNIT_EXPECT_EQ(test, wookie_rnr_timer_usec(IB_RNR_TIMER_007_68),
			7680u);
	KUNIT_EXPECT_EQ(test, wookie_rnr_timer_usec(IB_RNR_TIMER_040_96),
			40960u);
	KUNIT_EXPECT_EQ(test, wookie_rnr_timer_usec(IB_RNR_TIMER_122_88),
			122880u);
	KUNIT_EXPECT_EQ(test, wookie_rnr_timer_usec(IB_RNR_TIMER_491_52),
			491520u);
}

/* Every ACK timeout code against the formula, in nanoseconds. */
static void wookie_wire_ack_timeout_formula(struct kunit *test)
{
	unsigned int t, m;
	u64 ns;

	for (t = 0; t < 256; t++) {
		m = t & 31;
		ns = 4096ull << m;
		if (!m) {
			KUNIT_EXPECT_EQ(test, wookie_ack_timeout_usec(t), 0ull);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, wookie_ack_timeout_usec(t),
				    div_u64(ns + 999, 1000), "timeout %u", t);
	}
}

static void wookie_wire_psn(struct kunit *test)
{
	const struct wookie_psn_vector *v;
	__u32 base = 0xfff000;
	size_t i;
	int d;

	for (i = 0; i < ARRAY_SIZE(wookie_psn_vectors); i++) {
		v = &wookie_psn_vectors[i];
		KUNIT_EXPECT_EQ_MSG(test, wookie_psn_add(v->a, v->b), v->sum,
				    "0x%x + 0x%x", v->a, v->b);
		KUNIT_EXPECT_EQ_MSG(test, wookie_psn_diff(v->a, v->b), v->diff,
				    "0x%x - 0x%x", v->a, v->b);
	}
	for (d = -(1 << 23); d < (1 << 23); d += 4099)
		KUNIT_EXPECT_EQ(test,
				wookie_psn_diff(wookie_psn_add(base, d), base),
				d);
}

static void wookie_wire_num_packets(struct kunit *test)
{
	const struct wookie_npkt_vector *v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(wookie_npkt_vectors); i++) {
		v = &wookie_npkt_vectors[i];
		KUNIT_EXPECT_EQ_MSG(test, wookie_num_packets(v->len, v->mtu),
				    v->packets, "%llu bytes at %u",
				    (unsigned long long)v->len, v->mtu);
	}
}

static struct kunit_case wookie_wire_cases[] = {
	KUNIT_CASE_PARAM(wookie_wire_parse_vectors, wire_pkts_gen_params),
	KUNIT_CASE_PARAM(wookie_wire_kernel_view, wire_pkts_gen_params),
	KUNIT_CASE_PARAM(wookie_wire_build_vectors, wire_pkts_gen_params),
	KUNIT_CASE_PARAM(wookie_wire_truncated, wire_pkts_gen_params),
	KUNIT_CASE_PARAM(wookie_wire_malformed, wire_bad_gen_params),
	KUNIT_CASE_PARAM(wookie_wire_opcode, wire_ops_gen_params),
	KUNIT_CASE(wookie_wire_opcode_sweep),
	KUNIT_CASE(wookie_wire_kernel_constants),
	KUNIT_CASE(wookie_wire_build_capacity),
	KUNIT_CASE(wookie_wire_random_round_trip),
	KUNIT_CASE(wookie_wire_random_bytes),
	KUNIT_CASE_PARAM(wookie_wire_rnr_timer, wire_rnr_gen_params),
	KUNIT_CASE_PARAM(wookie_wire_ack_timeout, wire_ack_timeout_gen_params),
	KUNIT_CASE(wookie_wire_rnr_kernel_enum),
	KUNIT_CASE(wookie_wire_ack_timeout_formula),
	KUNIT_CASE(wookie_wire_psn),
	KUNIT_CASE(wookie_wire_num_packets),
	{}
};

static struct kunit_suite wookie_wire_suite = {
	.name = "wookie_wire",
	.test_cases = wookie_wire_cases,
};

kunit_test_suite(wookie_wire_suite);
