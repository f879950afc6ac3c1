// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ABI header compiled as C, as the provider compiles it: linked into
 * the unit tests (LP64), and compiled alone with -m32 by the CTest test
 * abi_static_checks_i386.
 */
#include "abi_static_checks.h"

#ifdef WOOKIE_EXPECT_ILP32
/* Make sure -m32 took: there, a plain __u64 after a __u32 sits at 4. */
struct wookie_test_natural_u64 {
	__u32 a;
	__u64 b;
};

WOOKIE_STATIC_ASSERT(sizeof(long) == 4);
WOOKIE_STATIC_ASSERT(offsetof(struct wookie_test_natural_u64, b) == 4);
#else
WOOKIE_STATIC_ASSERT(sizeof(long) == 8);
#endif
