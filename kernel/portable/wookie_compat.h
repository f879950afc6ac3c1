/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The few definitions portable code needs, from the kernel when built in
 * the kernel (module, KUnit) and from libc when built on the host (unit
 * tests, fuzzers).  Code under kernel/portable/ includes nothing else.
 */
#ifndef WOOKIE_COMPAT_H
#define WOOKIE_COMPAT_H

#include <linux/types.h>

#ifdef __KERNEL__
#include <linux/crc32.h>
#include <linux/errno.h>
#include <linux/string.h>
#else
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#endif

#endif /* WOOKIE_COMPAT_H */
