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

WOOKIE_STATIC_ASSERT(sizeof(struct wookie_alloc_ucontext_resp) == 16);
WOOKIE_STATIC_ASSERT(__alignof__(struct wookie_alloc_ucontext_resp) == 8);
WOOKIE_ASSERT_FIELD(wookie_alloc_ucontext_resp, 0, 4, abi_version);
WOOKIE_ASSERT_FIELD(wookie_alloc_ucontext_resp, 4, 4, db_page_size);
WOOKIE_ASSERT_FIELD(wookie_alloc_ucontext_resp, 8, 8, db_page_key);

WOOKIE_STATIC_ASSERT(sizeof(struct wookie_db_page) == 64);
WOOKIE_STATIC_ASSERT(sizeof(struct wookie_db_page) <= 4096);
WOOKIE_ASSERT_FIELD(wookie_db_page, 0, 4, flags);
WOOKIE_ASSERT_FIELD(wookie_db_page, 4, 60, reserved);

WOOKIE_STATIC_ASSERT(WOOKIE_ABI_VERSION == 1);
WOOKIE_STATIC_ASSERT(WOOKIE_DB_NEED_WAKEUP == 1);

#endif /* WOOKIE_ABI_STATIC_CHECKS_H */
