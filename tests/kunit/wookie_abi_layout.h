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

/* The fields of each structure, in order, with nothing left out. */
static const struct wookie_abi_field wookie_abi_fields[] = {
	WOOKIE_ABI_FIELD(wookie_alloc_ucontext_req, 0, 4, abi_version),
	WOOKIE_ABI_FIELD(wookie_alloc_ucontext_req, 4, 4, reserved),

	WOOKIE_ABI_FIELD(wookie_alloc_ucontext_resp, 0, 4, abi_version),
	WOOKIE_ABI_FIELD(wookie_alloc_ucontext_resp, 4, 4, db_page_size),
	WOOKIE_ABI_FIELD(wookie_alloc_ucontext_resp, 8, 8, db_page_key),

	WOOKIE_ABI_FIELD(wookie_db_page, 0, 4, flags),
	WOOKIE_ABI_FIELD(wookie_db_page, 4, 60, reserved),
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

/* Every structure of the ABI: size, and alignment 8 iff it holds a u64. */
static const struct wookie_abi_struct wookie_abi_structs[] = {
	WOOKIE_ABI_STRUCT(wookie_alloc_ucontext_req, 8, 4),
	WOOKIE_ABI_STRUCT(wookie_alloc_ucontext_resp, 16, 8),
	WOOKIE_ABI_STRUCT(wookie_db_page, 64, 4),
};

/* The smallest page size of any architecture the ABI serves. */
#define WOOKIE_ABI_MIN_PAGE_SIZE 4096

#endif /* WOOKIE_ABI_LAYOUT_H */
