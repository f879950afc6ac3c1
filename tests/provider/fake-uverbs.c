// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * LD_PRELOAD stand-in for the wookie kernel module, for host tests of the
 * provider without a kernel: a uverbs character device is faked by a node
 * with /dev/full's numbers (so any command not handled here fails loudly),
 * and this library answers the legacy write() commands the provider sends
 * and the doorbell mmap().
 *
 * Environment: FAKE_UVERBS_ABI (resp abi_version, default 1),
 * FAKE_UVERBS_DB_SIZE (default 4096), FAKE_UVERBS_MMAP_FAIL=1,
 * FAKE_UVERBS_PD=1 (alloc_pd succeeds; otherwise EOPNOTSUPP as a kernel
 * without it).  Live mappings left at exit are reported on stderr.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <rdma/ib_user_verbs.h>
#include <rdma/wookie-abi.h>

#define FAKE_KEY 0x10000

static int live_maps;

static unsigned long env_ul(const char *name, unsigned long def)
{
	const char *s = getenv(name);

	return s ? strtoul(s, NULL, 0) : def;
}

static int is_fake(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISCHR(st.st_mode) &&
	       st.st_rdev == makedev(1, 7);
}

ssize_t write(int fd, const void *buf, size_t len)
{
	static ssize_t (*real_write)(int, const void *, size_t);
	const struct ib_uverbs_cmd_hdr *hdr = buf;
	const uint64_t *core = (const void *)(hdr + 1);

	if (!real_write)
		real_write = dlsym(RTLD_NEXT, "write");
	if (len < sizeof(*hdr) || !is_fake(fd))
		return real_write(fd, buf, len);

	switch (hdr->command) {
	case IB_USER_VERBS_CMD_GET_CONTEXT: {
		const struct wookie_alloc_ucontext_req *req = (const void *)(core + 1);
		struct {
			struct ib_uverbs_get_context_resp core;
			struct wookie_alloc_ucontext_resp drv;
		} *resp = (void *)(uintptr_t)core[0];

		fprintf(stderr, "fake: get_context in %u words, out %u words, abi %u\n",
			hdr->in_words, hdr->out_words, req->abi_version);
		memset(resp, 0, hdr->out_words * 4);
		resp->core.async_fd = eventfd(0, EFD_CLOEXEC);
		resp->core.num_comp_vectors = 1;
		resp->drv.abi_version = env_ul("FAKE_UVERBS_ABI", WOOKIE_ABI_VERSION);
		resp->drv.db_page_size = env_ul("FAKE_UVERBS_DB_SIZE", 4096);
		resp->drv.db_page_key = FAKE_KEY;
		return len;
	}
	case IB_USER_VERBS_CMD_ALLOC_PD: {
		struct ib_uverbs_alloc_pd_resp *resp = (void *)(uintptr_t)core[0];

		if (!env_ul("FAKE_UVERBS_PD", 0)) {
			errno = EOPNOTSUPP;
			return -1;
		}
		resp->pd_handle = 42;
		return len;
	}
	case IB_USER_VERBS_CMD_DEALLOC_PD:
		return len;
	}
	fprintf(stderr, "fake: unexpected command %#x\n", hdr->command);
	errno = EOPNOTSUPP;
	return -1;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
	void *p;

	if (!real_mmap)
		real_mmap = dlsym(RTLD_NEXT, "mmap");
	if (fd < 0 || !is_fake(fd))
		return real_mmap(addr, len, prot, flags, fd, off);

	fprintf(stderr, "fake: mmap len %zu prot %#x flags %#x key %#llx\n",
		len, prot, flags, (unsigned long long)off);
	if (env_ul("FAKE_UVERBS_MMAP_FAIL", 0) || off != FAKE_KEY ||
	    (prot & PROT_WRITE) || !(flags & MAP_SHARED)) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	p = real_mmap(addr, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED)
		live_maps++;
	return p;
}

int munmap(void *addr, size_t len)
{
	static int (*real_munmap)(void *, size_t);

	if (!real_munmap)
		real_munmap = dlsym(RTLD_NEXT, "munmap");
	/* Only the provider unmaps pages of this size in the tests. */
	if (len == env_ul("FAKE_UVERBS_DB_SIZE", 4096) && live_maps)
		live_maps--;
	return real_munmap(addr, len);
}

static void __attribute__((destructor)) fake_report(void)
{
	if (live_maps)
		fprintf(stderr, "fake: %d doorbell mapping(s) leaked\n", live_maps);
}
