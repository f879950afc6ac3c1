/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Compile-time checks of the layout of <rdma/wookie-abi.h>, included from C
 * (LP64 and ILP32) and from C++.  The run-time tests walk the full table in
 * tests/kunit/wookie_abi_layout.h; these make a broken layout fail the build
 * and cover 32-bit user space, where an unaligned __u64 packs at 4 bytes.
 */
#ifndef WOOKIE_ABI_STATIC_CHECKS_H
#define WOOKIE_ABI_STATIC_CHECKS_H

#include <stddef.h>
#include <rdma/wookie-abi.h>

#ifdef __cplusplus
#define WOOKIE_STATIC_ASSERT(expr) static_assert(expr, #expr)
#else
#define WOOKIE_STATIC_ASSERT(expr) _Static_assert(expr, #expr)
#endif

#define WOOKIE_ASSERT_FIELD(type, off, size, member)			\
	WOOKIE_STATIC_ASSERT(offsetof(struct type, member) == (off) &&	\
			     sizeof(((struct type *)0)->member) == (size))

WOOKIE_STATIC_ASSERT(sizeof(struct wookie_alloc_ucontext_req) == 8);
WOOKIE_ASSERT_FIELD(wookie_alloc_ucontext_req, 0, 4, abi_version);
WOOKIE_ASSERT_FIELD(wookie_alloc_ucontext_req, 4, 4, reserved);

WOOKIE_STATIC_ASSERT(sizeof(struct wookie_alloc_ucontext_resp) == 24);
WOOKIE_STATIC_ASSERT(__alignof__(struct wookie_alloc_ucontext_resp) == 8);
WOOKIE_ASSERT_FIELD(wookie_alloc_ucontext_resp, 0, 4, abi_version);
WOOKIE_ASSERT_FIELD(wookie_alloc_ucontext_resp, 4, 4, db_page_size);
WOOKIE_ASSERT_FIELD(wookie_alloc_ucontext_resp, 8, 8, db_page_key);
WOOKIE_ASSERT_FIELD(wookie_alloc_ucontext_resp, 16, 8, caps);

WOOKIE_STATIC_ASSERT(sizeof(struct wookie_db_page) == 64);
WOOKIE_STATIC_ASSERT(sizeof(struct wookie_db_page) <= 4096);
WOOKIE_ASSERT_FIELD(wookie_db_page, 0, 4, flags);
WOOKIE_ASSERT_FIELD(wookie_db_page, 4, 60, reserved);

WOOKIE_STATIC_ASSERT(sizeof(struct wookie_ring_hdr) == 256);
WOOKIE_STATIC_ASSERT(sizeof(struct wookie_ring_hdr) == WOOKIE_RING_HDR_SIZE);
WOOKIE_ASSERT_FIELD(wookie_ring_hdr, 0, 4, producer);
WOOKIE_ASSERT_FIELD(wookie_ring_hdr, 4, 60, reserved0);
WOOKIE_ASSERT_FIELD(wookie_ring_hdr, 64, 4, consumer);
WOOKIE_ASSERT_FIELD(wookie_ring_hdr, 68, 60, reserved1);
WOOKIE_ASSERT_FIELD(wookie_ring_hdr, 128, 4, arm);
WOOKIE_ASSERT_FIELD(wookie_ring_hdr, 132, 60, reserved2);
WOOKIE_ASSERT_FIELD(wookie_ring_hdr, 192, 4, flags);
WOOKIE_ASSERT_FIELD(wookie_ring_hdr, 196, 60, reserved3);

WOOKIE_STATIC_ASSERT(sizeof(struct wookie_sge) == 16);
WOOKIE_STATIC_ASSERT(__alignof__(struct wookie_sge) == 8);
WOOKIE_ASSERT_FIELD(wookie_sge, 0, 8, addr);
WOOKIE_ASSERT_FIELD(wookie_sge, 8, 4, length);
WOOKIE_ASSERT_FIELD(wookie_sge, 12, 4, lkey);

WOOKIE_STATIC_ASSERT(sizeof(struct wookie_sqe) == 64);
WOOKIE_STATIC_ASSERT(__alignof__(struct wookie_sqe) == 8);
WOOKIE_ASSERT_FIELD(wookie_sqe, 0, 8, wr_id);
WOOKIE_ASSERT_FIELD(wookie_sqe, 8, 1, opcode);
WOOKIE_ASSERT_FIELD(wookie_sqe, 9, 1, flags);
WOOKIE_ASSERT_FIELD(wookie_sqe, 10, 2, num_sge);
WOOKIE_ASSERT_FIELD(wookie_sqe, 12, 4, ex);
WOOKIE_ASSERT_FIELD(wookie_sqe, 16, 4, inline_len);
WOOKIE_ASSERT_FIELD(wookie_sqe, 20, 4, xrc_srqn);
WOOKIE_ASSERT_FIELD(wookie_sqe, 24, 40, raw);
WOOKIE_ASSERT_FIELD(wookie_sqe, 24, 16, rdma);
WOOKIE_ASSERT_FIELD(wookie_sqe, 24, 8, rdma.remote_addr);
WOOKIE_ASSERT_FIELD(wookie_sqe, 32, 4, rdma.rkey);
WOOKIE_ASSERT_FIELD(wookie_sqe, 36, 4, rdma.reserved);
WOOKIE_ASSERT_FIELD(wookie_sqe, 24, 32, atomic);
WOOKIE_ASSERT_FIELD(wookie_sqe, 24, 8, atomic.remote_addr);
WOOKIE_ASSERT_FIELD(wookie_sqe, 32, 8, atomic.compare_add);
WOOKIE_ASSERT_FIELD(wookie_sqe, 40, 8, atomic.swap);
WOOKIE_ASSERT_FIELD(wookie_sqe, 48, 4, atomic.rkey);
WOOKIE_ASSERT_FIELD(wookie_sqe, 52, 4, atomic.reserved);
WOOKIE_ASSERT_FIELD(wookie_sqe, 24, 16, ud);
WOOKIE_ASSERT_FIELD(wookie_sqe, 24, 4, ud.ah_num);
WOOKIE_ASSERT_FIELD(wookie_sqe, 28, 4, ud.remote_qpn);
WOOKIE_ASSERT_FIELD(wookie_sqe, 32, 4, ud.remote_qkey);
WOOKIE_ASSERT_FIELD(wookie_sqe, 36, 4, ud.reserved);
WOOKIE_ASSERT_FIELD(wookie_sqe, 24, 32, bind);
WOOKIE_ASSERT_FIELD(wookie_sqe, 24, 8, bind.addr);
WOOKIE_ASSERT_FIELD(wookie_sqe, 32, 8, bind.length);
WOOKIE_ASSERT_FIELD(wookie_sqe, 40, 4, bind.rkey);
WOOKIE_ASSERT_FIELD(wookie_sqe, 44, 4, bind.mw_rkey);
WOOKIE_ASSERT_FIELD(wookie_sqe, 48, 4, bind.mr_lkey);
WOOKIE_ASSERT_FIELD(wookie_sqe, 52, 4, bind.access);
WOOKIE_ASSERT_FIELD(wookie_sqe, 24, 16, reg);
WOOKIE_ASSERT_FIELD(wookie_sqe, 24, 4, reg.lkey);
WOOKIE_ASSERT_FIELD(wookie_sqe, 28, 4, reg.key);
WOOKIE_ASSERT_FIELD(wookie_sqe, 32, 4, reg.access);
WOOKIE_ASSERT_FIELD(wookie_sqe, 36, 4, reg.reserved);

WOOKIE_STATIC_ASSERT(sizeof(struct wookie_rqe) == 16);
WOOKIE_STATIC_ASSERT(__alignof__(struct wookie_rqe) == 8);
WOOKIE_ASSERT_FIELD(wookie_rqe, 0, 8, wr_id);
WOOKIE_ASSERT_FIELD(wookie_rqe, 8, 4, num_sge);
WOOKIE_ASSERT_FIELD(wookie_rqe, 12, 4, reserved);

/* The slot sizes user space computes from the same macros. */
WOOKIE_STATIC_ASSERT(WOOKIE_SQE_SIZE(0) == 64);
WOOKIE_STATIC_ASSERT(WOOKIE_SQE_SIZE(4) == 128);
WOOKIE_STATIC_ASSERT(WOOKIE_RQE_SIZE(0) == 16);
WOOKIE_STATIC_ASSERT(WOOKIE_RQE_SIZE(4) == 80);

WOOKIE_STATIC_ASSERT(sizeof(struct wookie_cqe) == 64);
WOOKIE_STATIC_ASSERT(__alignof__(struct wookie_cqe) == 8);
WOOKIE_ASSERT_FIELD(wookie_cqe, 0, 8, wr_id);
WOOKIE_ASSERT_FIELD(wookie_cqe, 8, 1, status);
WOOKIE_ASSERT_FIELD(wookie_cqe, 9, 1, opcode);
WOOKIE_ASSERT_FIELD(wookie_cqe, 10, 1, flags);
WOOKIE_ASSERT_FIELD(wookie_cqe, 11, 1, network_hdr_type);
WOOKIE_ASSERT_FIELD(wookie_cqe, 12, 4, byte_len);
WOOKIE_ASSERT_FIELD(wookie_cqe, 16, 4, ex);
WOOKIE_ASSERT_FIELD(wookie_cqe, 20, 4, qp_num);
WOOKIE_ASSERT_FIELD(wookie_cqe, 24, 4, src_qp);
WOOKIE_ASSERT_FIELD(wookie_cqe, 28, 4, vendor_err);
WOOKIE_ASSERT_FIELD(wookie_cqe, 32, 2, pkey_index);
WOOKIE_ASSERT_FIELD(wookie_cqe, 34, 1, sl);
WOOKIE_ASSERT_FIELD(wookie_cqe, 35, 1, reserved0);
WOOKIE_ASSERT_FIELD(wookie_cqe, 36, 4, reserved1);
WOOKIE_ASSERT_FIELD(wookie_cqe, 40, 8, timestamp);
WOOKIE_ASSERT_FIELD(wookie_cqe, 48, 16, reserved2);

WOOKIE_STATIC_ASSERT(sizeof(struct wookie_ring_info) == 24);
WOOKIE_STATIC_ASSERT(__alignof__(struct wookie_ring_info) == 8);
WOOKIE_ASSERT_FIELD(wookie_ring_info, 0, 8, key);
WOOKIE_ASSERT_FIELD(wookie_ring_info, 8, 4, map_size);
WOOKIE_ASSERT_FIELD(wookie_ring_info, 12, 4, num_entries);
WOOKIE_ASSERT_FIELD(wookie_ring_info, 16, 4, stride);
WOOKIE_ASSERT_FIELD(wookie_ring_info, 20, 4, reserved);

WOOKIE_STATIC_ASSERT(sizeof(struct wookie_create_cq_resp) == 24);
WOOKIE_ASSERT_FIELD(wookie_create_cq_resp, 0, 24, cq);
WOOKIE_STATIC_ASSERT(sizeof(struct wookie_resize_cq_resp) == 24);
WOOKIE_ASSERT_FIELD(wookie_resize_cq_resp, 0, 24, cq);
WOOKIE_STATIC_ASSERT(sizeof(struct wookie_create_qp_resp) == 56);
WOOKIE_ASSERT_FIELD(wookie_create_qp_resp, 0, 24, sq);
WOOKIE_ASSERT_FIELD(wookie_create_qp_resp, 24, 24, rq);
WOOKIE_ASSERT_FIELD(wookie_create_qp_resp, 48, 4, qp_num);
WOOKIE_ASSERT_FIELD(wookie_create_qp_resp, 52, 4, reserved);
WOOKIE_STATIC_ASSERT(sizeof(struct wookie_create_srq_resp) == 24);
WOOKIE_ASSERT_FIELD(wookie_create_srq_resp, 0, 24, srq);
WOOKIE_STATIC_ASSERT(sizeof(struct wookie_create_ah_resp) == 8);
WOOKIE_ASSERT_FIELD(wookie_create_ah_resp, 0, 4, ah_num);
WOOKIE_ASSERT_FIELD(wookie_create_ah_resp, 4, 4, reserved);

WOOKIE_STATIC_ASSERT(WOOKIE_ABI_VERSION == 3);
WOOKIE_STATIC_ASSERT(WOOKIE_RING_NEED_WAKEUP == 4);

#endif /* WOOKIE_ABI_STATIC_CHECKS_H */
