/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The frozen layout of every structure in <rdma/wookie-abi.h>, shared by the
 * KUnit suite (tests/kunit) and the host unit tests (tests/unit).  Plain C
 * that also compiles as C++.
 *
 * Each row pairs what the compiler made of a field with the offset and size
 * the ABI promises; the tests check both agree, that the fields of each
 * structure tile it with no hidden padding and that 64-bit fields sit on
 * 8-byte boundaries.  A structure added to the ABI gets its rows here; a
 * field whose layout changes breaks every provider already built, so the
 * numbers below change only together with WOOKIE_ABI_VERSION.
 */
#ifndef WOOKIE_ABI_LAYOUT_H
#define WOOKIE_ABI_LAYOUT_H

#ifdef __KERNEL__
#include <linux/stddef.h>
#else
#include <stddef.h>
#endif
#include <rdma/wookie-abi.h>

struct wookie_abi_field {
	const char *type;
	size_t type_size;
	size_t type_align;
	const char *field;
	size_t offset;
	size_t size;
	size_t want_offset;
	size_t want_size;
};

/*
 * WOOKIE_ABI_FIELD(type, want_offset, want_size, member): the member comes
 * last, as the variadic argument, so that a nested designator (hdr.len) or
 * an array element (slot[1]) works as well as a plain name.
 */
#define WOOKIE_ABI_FIELD(type, want_offset, want_size, ...)		\
	{ #type, sizeof(struct type), __alignof__(struct type),		\
	  #__VA_ARGS__, offsetof(struct type, __VA_ARGS__),		\
	  sizeof(((struct type *)0)->__VA_ARGS__), want_offset, want_size }

/*
 * A union member of a structure, such as wookie_sqe.rdma, is listed as a
 * view of its own, "wookie_sqe_rdma": the bytes before the union (head),
 * the member's fields (rdma_rkey ...) and the rest of the union (tail), so
 * that each view tiles the whole structure like any other.  Names are
 * identifiers, as the host tests name their cases after them; the
 * designator (rdma.rkey) comes last, as in WOOKIE_ABI_FIELD.
 */
#define WOOKIE_ABI_VIEW_FIELD(view, type, name, want_offset, want_size, ...) \
	{ #view, sizeof(struct type), __alignof__(struct type),		\
	  #name, offsetof(struct type, __VA_ARGS__),			\
	  sizeof(((struct type *)0)->__VA_ARGS__), want_offset, want_size }

/* The bytes of @type before its union member (the designator). */
#define WOOKIE_ABI_VIEW_HEAD(view, type, want_size, ...)		\
	{ #view, sizeof(struct type), __alignof__(struct type),		\
	  "head", 0, offsetof(struct type, __VA_ARGS__), 0, want_size }

/* The bytes of @type after its union member (the designator). */
#define WOOKIE_ABI_VIEW_TAIL(view, type, want_offset, want_size, ...)	\
	{ #view, sizeof(struct type), __alignof__(struct type), "tail",	\
	  offsetof(struct type, __VA_ARGS__) +				\
		sizeof(((struct type *)0)->__VA_ARGS__),		\
	  sizeof(struct type) - offsetof(struct type, __VA_ARGS__) -	\
		sizeof(((struct type *)0)->__VA_ARGS__),		\
	  want_offset, want_size }

/* The fields of each structure, in order, with nothing left out. */
static const struct wookie_abi_field wookie_abi_fields[] = {
	WOOKIE_ABI_FIELD(wookie_alloc_ucontext_req, 0, 4, abi_version),
	WOOKIE_ABI_FIELD(wookie_alloc_ucontext_req, 4, 4, reserved),

	WOOKIE_ABI_FIELD(wookie_alloc_ucontext_resp, 0, 4, abi_version),
	WOOKIE_ABI_FIELD(wookie_alloc_ucontext_resp, 4, 4, db_page_size),
	WOOKIE_ABI_FIELD(wookie_alloc_ucontext_resp, 8, 8, db_page_key),
	WOOKIE_ABI_FIELD(wookie_alloc_ucontext_resp, 16, 8, caps),

	WOOKIE_ABI_FIELD(wookie_alloc_dm_resp, 0, 8, key),
	WOOKIE_ABI_FIELD(wookie_alloc_dm_resp, 8, 8, map_size),

	WOOKIE_ABI_FIELD(wookie_query_dm_resp, 0, 8, key),
	WOOKIE_ABI_FIELD(wookie_query_dm_resp, 8, 8, map_size),
	WOOKIE_ABI_FIELD(wookie_query_dm_resp, 16, 8, length),

	WOOKIE_ABI_FIELD(wookie_db_page, 0, 4, flags),
	WOOKIE_ABI_FIELD(wookie_db_page, 4, 60, reserved),

	WOOKIE_ABI_FIELD(wookie_ring_hdr, 0, 4, producer),
	WOOKIE_ABI_FIELD(wookie_ring_hdr, 4, 60, reserved0),
	WOOKIE_ABI_FIELD(wookie_ring_hdr, 64, 4, consumer),
	WOOKIE_ABI_FIELD(wookie_ring_hdr, 68, 60, reserved1),
	WOOKIE_ABI_FIELD(wookie_ring_hdr, 128, 4, arm),
	WOOKIE_ABI_FIELD(wookie_ring_hdr, 132, 60, reserved2),
	WOOKIE_ABI_FIELD(wookie_ring_hdr, 192, 4, flags),
	WOOKIE_ABI_FIELD(wookie_ring_hdr, 196, 60, reserved3),

	WOOKIE_ABI_FIELD(wookie_sge, 0, 8, addr),
	WOOKIE_ABI_FIELD(wookie_sge, 8, 4, length),
	WOOKIE_ABI_FIELD(wookie_sge, 12, 4, lkey),

	WOOKIE_ABI_FIELD(wookie_sqe, 0, 8, wr_id),
	WOOKIE_ABI_FIELD(wookie_sqe, 8, 1, opcode),
	WOOKIE_ABI_FIELD(wookie_sqe, 9, 1, flags),
	WOOKIE_ABI_FIELD(wookie_sqe, 10, 2, num_sge),
	WOOKIE_ABI_FIELD(wookie_sqe, 12, 4, ex),
	WOOKIE_ABI_FIELD(wookie_sqe, 16, 4, inline_len),
	WOOKIE_ABI_FIELD(wookie_sqe, 20, 4, xrc_srqn),
	WOOKIE_ABI_FIELD(wookie_sqe, 24, 40, raw),

	WOOKIE_ABI_VIEW_HEAD(wookie_sqe_rdma, wookie_sqe, 24, rdma),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_rdma, wookie_sqe, rdma_remote_addr,
			      24, 8, rdma.remote_addr),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_rdma, wookie_sqe, rdma_rkey,
			      32, 4, rdma.rkey),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_rdma, wookie_sqe, rdma_reserved,
			      36, 4, rdma.reserved),
	WOOKIE_ABI_VIEW_TAIL(wookie_sqe_rdma, wookie_sqe, 40, 24, rdma),

	WOOKIE_ABI_VIEW_HEAD(wookie_sqe_atomic, wookie_sqe, 24, atomic),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_atomic, wookie_sqe, atomic_remote_addr,
			      24, 8, atomic.remote_addr),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_atomic, wookie_sqe, atomic_compare_add,
			      32, 8, atomic.compare_add),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_atomic, wookie_sqe, atomic_swap,
			      40, 8, atomic.swap),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_atomic, wookie_sqe, atomic_rkey,
			      48, 4, atomic.rkey),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_atomic, wookie_sqe, atomic_reserved,
			      52, 4, atomic.reserved),
	WOOKIE_ABI_VIEW_TAIL(wookie_sqe_atomic, wookie_sqe, 56, 8, atomic),

	WOOKIE_ABI_VIEW_HEAD(wookie_sqe_ud, wookie_sqe, 24, ud),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_ud, wookie_sqe, ud_ah_num,
			      24, 4, ud.ah_num),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_ud, wookie_sqe, ud_remote_qpn,
			      28, 4, ud.remote_qpn),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_ud, wookie_sqe, ud_remote_qkey,
			      32, 4, ud.remote_qkey),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_ud, wookie_sqe, ud_reserved,
			      36, 4, ud.reserved),
	WOOKIE_ABI_VIEW_TAIL(wookie_sqe_ud, wookie_sqe, 40, 24, ud),

	WOOKIE_ABI_VIEW_HEAD(wookie_sqe_atomic_write, wookie_sqe, 24,
			     atomic_write),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_atomic_write, wookie_sqe,
			      atomic_write_remote_addr, 24, 8,
			      atomic_write.remote_addr),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_atomic_write, wookie_sqe,
			      atomic_write_data, 32, 8, atomic_write.data),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_atomic_write, wookie_sqe,
			      atomic_write_rkey, 40, 4, atomic_write.rkey),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_atomic_write, wookie_sqe,
			      atomic_write_reserved, 44, 4,
			      atomic_write.reserved),
	WOOKIE_ABI_VIEW_TAIL(wookie_sqe_atomic_write, wookie_sqe, 48, 16,
			     atomic_write),

	WOOKIE_ABI_VIEW_HEAD(wookie_sqe_flush, wookie_sqe, 24, flush),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_flush, wookie_sqe, flush_remote_addr,
			      24, 8, flush.remote_addr),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_flush, wookie_sqe, flush_length,
			      32, 4, flush.length),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_flush, wookie_sqe, flush_rkey,
			      36, 4, flush.rkey),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_flush, wookie_sqe, flush_type,
			      40, 1, flush.type),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_flush, wookie_sqe, flush_level,
			      41, 1, flush.level),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_flush, wookie_sqe, flush_reserved,
			      42, 6, flush.reserved),
	WOOKIE_ABI_VIEW_TAIL(wookie_sqe_flush, wookie_sqe, 48, 16, flush),

	WOOKIE_ABI_VIEW_HEAD(wookie_sqe_bind, wookie_sqe, 24, bind),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_bind, wookie_sqe, bind_addr,
			      24, 8, bind.addr),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_bind, wookie_sqe, bind_length,
			      32, 8, bind.length),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_bind, wookie_sqe, bind_rkey,
			      40, 4, bind.rkey),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_bind, wookie_sqe, bind_mw_rkey,
			      44, 4, bind.mw_rkey),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_bind, wookie_sqe, bind_mr_lkey,
			      48, 4, bind.mr_lkey),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_bind, wookie_sqe, bind_access,
			      52, 4, bind.access),
	WOOKIE_ABI_VIEW_TAIL(wookie_sqe_bind, wookie_sqe, 56, 8, bind),

	WOOKIE_ABI_VIEW_HEAD(wookie_sqe_reg, wookie_sqe, 24, reg),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_reg, wookie_sqe, reg_lkey,
			      24, 4, reg.lkey),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_reg, wookie_sqe, reg_key,
			      28, 4, reg.key),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_reg, wookie_sqe, reg_access,
			      32, 4, reg.access),
	WOOKIE_ABI_VIEW_FIELD(wookie_sqe_reg, wookie_sqe, reg_reserved,
			      36, 4, reg.reserved),
	WOOKIE_ABI_VIEW_TAIL(wookie_sqe_reg, wookie_sqe, 40, 24, reg),

	WOOKIE_ABI_FIELD(wookie_rqe, 0, 8, wr_id),
	WOOKIE_ABI_FIELD(wookie_rqe, 8, 4, num_sge),
	WOOKIE_ABI_FIELD(wookie_rqe, 12, 4, reserved),

	WOOKIE_ABI_FIELD(wookie_cqe, 0, 8, wr_id),
	WOOKIE_ABI_FIELD(wookie_cqe, 8, 1, status),
	WOOKIE_ABI_FIELD(wookie_cqe, 9, 1, opcode),
	WOOKIE_ABI_FIELD(wookie_cqe, 10, 1, flags),
	WOOKIE_ABI_FIELD(wookie_cqe, 11, 1, network_hdr_type),
	WOOKIE_ABI_FIELD(wookie_cqe, 12, 4, byte_len),
	WOOKIE_ABI_FIELD(wookie_cqe, 16, 4, ex),
	WOOKIE_ABI_FIELD(wookie_cqe, 20, 4, qp_num),
	WOOKIE_ABI_FIELD(wookie_cqe, 24, 4, src_qp),
	WOOKIE_ABI_FIELD(wookie_cqe, 28, 4, vendor_err),
	WOOKIE_ABI_FIELD(wookie_cqe, 32, 2, pkey_index),
	WOOKIE_ABI_FIELD(wookie_cqe, 34, 1, sl),
	WOOKIE_ABI_FIELD(wookie_cqe, 35, 1, reserved0),
	WOOKIE_ABI_FIELD(wookie_cqe, 36, 4, reserved1),
	WOOKIE_ABI_FIELD(wookie_cqe, 40, 8, timestamp),
	WOOKIE_ABI_FIELD(wookie_cqe, 48, 16, reserved2),

	WOOKIE_ABI_FIELD(wookie_ring_info, 0, 8, key),
	WOOKIE_ABI_FIELD(wookie_ring_info, 8, 4, map_size),
	WOOKIE_ABI_FIELD(wookie_ring_info, 12, 4, num_entries),
	WOOKIE_ABI_FIELD(wookie_ring_info, 16, 4, stride),
	WOOKIE_ABI_FIELD(wookie_ring_info, 20, 4, reserved),

	WOOKIE_ABI_FIELD(wookie_create_cq_resp, 0, 24, cq),

	WOOKIE_ABI_FIELD(wookie_resize_cq_resp, 0, 24, cq),

	WOOKIE_ABI_FIELD(wookie_create_qp_resp, 0, 24, sq),
	WOOKIE_ABI_FIELD(wookie_create_qp_resp, 24, 24, rq),
	WOOKIE_ABI_FIELD(wookie_create_qp_resp, 48, 4, qp_num),
	WOOKIE_ABI_FIELD(wookie_create_qp_resp, 52, 4, reserved),

	WOOKIE_ABI_FIELD(wookie_create_srq_resp, 0, 24, srq),

	WOOKIE_ABI_FIELD(wookie_create_ah_resp, 0, 4, ah_num),
	WOOKIE_ABI_FIELD(wookie_create_ah_resp, 4, 4, reserved),
};

struct wookie_abi_struct {
	const char *type;
	size_t size;
	size_t align;
	size_t want_size;
	size_t want_align;
};

#define WOOKIE_ABI_STRUCT(type, want_size, want_align)			\
	{ #type, sizeof(struct type), __alignof__(struct type),		\
	  want_size, want_align }

/* A view of a union member (see WOOKIE_ABI_VIEW_FIELD): the whole type. */
#define WOOKIE_ABI_VIEW_STRUCT(view, type, want_size, want_align)	\
	{ #view, sizeof(struct type), __alignof__(struct type),		\
	  want_size, want_align }

/* Every structure of the ABI: size, and alignment 8 iff it holds a u64. */
static const struct wookie_abi_struct wookie_abi_structs[] = {
	WOOKIE_ABI_STRUCT(wookie_alloc_ucontext_req, 8, 4),
	WOOKIE_ABI_STRUCT(wookie_alloc_ucontext_resp, 24, 8),
	WOOKIE_ABI_STRUCT(wookie_alloc_dm_resp, 16, 8),
	WOOKIE_ABI_STRUCT(wookie_query_dm_resp, 24, 8),
	WOOKIE_ABI_STRUCT(wookie_db_page, 64, 4),
	WOOKIE_ABI_STRUCT(wookie_ring_hdr, 256, 4),
	WOOKIE_ABI_STRUCT(wookie_sge, 16, 8),
	WOOKIE_ABI_STRUCT(wookie_sqe, 64, 8),
	WOOKIE_ABI_VIEW_STRUCT(wookie_sqe_rdma, wookie_sqe, 64, 8),
	WOOKIE_ABI_VIEW_STRUCT(wookie_sqe_atomic, wookie_sqe, 64, 8),
	WOOKIE_ABI_VIEW_STRUCT(wookie_sqe_atomic_write, wookie_sqe, 64, 8),
	WOOKIE_ABI_VIEW_STRUCT(wookie_sqe_flush, wookie_sqe, 64, 8),
	WOOKIE_ABI_VIEW_STRUCT(wookie_sqe_ud, wookie_sqe, 64, 8),
	WOOKIE_ABI_VIEW_STRUCT(wookie_sqe_bind, wookie_sqe, 64, 8),
	WOOKIE_ABI_VIEW_STRUCT(wookie_sqe_reg, wookie_sqe, 64, 8),
	WOOKIE_ABI_STRUCT(wookie_rqe, 16, 8),
	WOOKIE_ABI_STRUCT(wookie_cqe, 64, 8),
	WOOKIE_ABI_STRUCT(wookie_ring_info, 24, 8),
	WOOKIE_ABI_STRUCT(wookie_create_cq_resp, 24, 8),
	WOOKIE_ABI_STRUCT(wookie_resize_cq_resp, 24, 8),
	WOOKIE_ABI_STRUCT(wookie_create_qp_resp, 56, 8),
	WOOKIE_ABI_STRUCT(wookie_create_srq_resp, 24, 8),
	WOOKIE_ABI_STRUCT(wookie_create_ah_resp, 8, 4),
};

/* The smallest page size of any architecture the ABI serves. */
#define WOOKIE_ABI_MIN_PAGE_SIZE 4096

#endif /* WOOKIE_ABI_LAYOUT_H */
