/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * wookie user/kernel ABI: the one header that the kernel module and the
 * rdma-core provider both compile.  Every structure here has a fixed layout
 * (explicit padding, 64-bit fields aligned) so that a 32-bit and a 64-bit
 * user space see the same bytes.
 */
#ifndef WOOKIE_ABI_USER_H
#define WOOKIE_ABI_USER_H

#include <linux/types.h>

/*
 * Bumped on every incompatible change.  The kernel reports it as the uverbs
 * ABI version of the device and in the sysfs attribute below; the provider
 * refuses a device whose version differs from its own.
 */
#define WOOKIE_ABI_VERSION 1

/*
 * Per-device sysfs attribute (/sys/class/infiniband/<ibdev>/<name>) holding
 * WOOKIE_ABI_VERSION in decimal.  Its presence is how the provider recognises
 * a wookie device whatever name the user gave it.
 */
#define WOOKIE_SYSFS_ABI_ATTR "wookie_abi_version"

/* ibv_get_context(): the provider states the ABI it was built for. */
struct wookie_alloc_ucontext_req {
	__u32 abi_version;
	__u32 reserved;
};

/*
 * The kernel's answer.  db_page_key is the mmap offset of the context's
 * doorbell page, mapped read-only with length db_page_size.
 */
struct wookie_alloc_ucontext_resp {
	__u32 abi_version;
	__u32 db_page_size;
	__aligned_u64 db_page_key;
};

/* wookie_db_page.flags: the engine sleeps; a producer must wake it. */
#define WOOKIE_DB_NEED_WAKEUP (1U << 0)

/*
 * The doorbell page: one per user context, written by the kernel, read by
 * the provider.  The kernel engine advertises here whether it is polling the
 * rings or asleep (the io_uring SQPOLL handshake); the page is page sized so
 * later words can be added without changing the mapping.
 */
struct wookie_db_page {
	__u32 flags;
	__u32 reserved[15];
};

#endif /* WOOKIE_ABI_USER_H */
