// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pyverbs' dma-buf allocator (the functions of its dmabuf_alloc.h), for
 * the kernel's vgem driver: the test VM has no GPU, and rdma-core 56.1's
 * own allocator knows only amdgpu and i915 render nodes.  scripts/rdma-core
 * builds this file into pyverbs in place of rdma-core's, so the suite's
 * dma-buf tests (test_mr's DmaBufMRTest and DmaBufTestCase) run on a vgem
 * dumb buffer exported with PRIME.
 *
 * GPU unit N is the Nth vgem device; vgem makes one, so unit 0 is it and
 * any other unit, or no vgem, gives ENOENT, which the suite reports as a
 * skip, as it does for a missing render node.  The "gtt" choice means nothing here.
 * Dumb buffers are made on vgem's card node, not its render node (the
 * ioctl is not allowed there); the CPU maps the buffer through that node
 * at the offset DRM_IOCTL_MODE_MAP_DUMB gives, which pyverbs reads back
 * as the buffer's map offset.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "dmabuf_alloc.h"

/* The DRM uapi this needs; Debian ships drm.h only with libdrm-dev. */
struct vgem_create_dumb {
	uint32_t height, width, bpp, flags, handle, pitch;
	uint64_t size;
};

struct vgem_map_dumb {
	uint32_t handle, pad;
	uint64_t offset;
};

struct vgem_prime_handle {
	uint32_t handle, flags;
	int32_t fd;
};

struct vgem_gem_close {
	uint32_t handle, pad;
};

#define VGEM_IOCTL_GEM_CLOSE _IOW('d', 0x09, struct vgem_gem_close)
#define VGEM_IOCTL_PRIME_HANDLE_TO_FD _IOWR('d', 0x2d, struct vgem_prime_handle)
#define VGEM_IOCTL_CREATE_DUMB _IOWR('d', 0xb2, struct vgem_create_dumb)
#define VGEM_IOCTL_MAP_DUMB _IOWR('d', 0xb3, struct vgem_map_dumb)

/* A dumb buffer is width * height * bpp/8 bytes: rows of one page. */
#define VGEM_ROW 4096u

struct dmabuf {
	int card;
	int fd;
	uint32_t handle;
	uint64_t map_offset;
};

/* True if card node N belongs to the vgem device. */
static int is_vgem_card(int n)
{
	char link[64], target[256];
	const char *base;
	ssize_t len;

	snprintf(link, sizeof(link), "/sys/class/drm/card%d/device", n);
	len = readlink(link, target, sizeof(target) - 1);
	if (len <= 0)
		return 0;
	target[len] = 0;
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	/* The platform device "vgem". */
	return !strcmp(base, "vgem");
}

/* The card node of the unit-th vgem device, opened; -1 with errno set. */
static int open_vgem(int unit)
{
	char path[32];
	int n;

	for (n = 0; unit >= 0 && n < 64; n++) {
		if (!is_vgem_card(n) || unit-- > 0)
			continue;
		snprintf(path, sizeof(path), "/dev/dri/card%d", n);
		return open(path, O_RDWR | O_CLOEXEC);
	}
	errno = ENOENT;
	return -1;
}

static void close_handle(int card, uint32_t handle)
{
	struct vgem_gem_close c = { .handle = handle };

	ioctl(card, VGEM_IOCTL_GEM_CLOSE, &c);
}

struct dmabuf *dmabuf_alloc(uint64_t size, int unit, int gtt)
{
	struct vgem_create_dumb cd = {};
	struct vgem_prime_handle ph = {};
	struct vgem_map_dumb md = {};
	struct dmabuf *buf;
	int err;

	(void)gtt;
	/* The kernel's bound: a dumb buffer is at most 4 GiB - 1. */
	if (!size || size > (uint64_t)(UINT32_MAX / VGEM_ROW) * VGEM_ROW) {
		errno = EINVAL;
		return NULL;
	}
	buf = calloc(1, sizeof(*buf));
	if (!buf)
		return NULL;
	buf->card = open_vgem(unit);
	if (buf->card < 0)
		goto out_free;
	cd.width = VGEM_ROW;
	cd.height = (size + VGEM_ROW - 1) / VGEM_ROW;
	cd.bpp = 8;
	if (ioctl(buf->card, VGEM_IOCTL_CREATE_DUMB, &cd))
		goto out_close;
	buf->handle = cd.handle;
	md.handle = cd.handle;
	if (ioctl(buf->card, VGEM_IOCTL_MAP_DUMB, &md))
		goto out_handle;
	buf->map_offset = md.offset;
	ph.handle = cd.handle;
	ph.flags = O_RDWR | O_CLOEXEC;
	if (ioctl(buf->card, VGEM_IOCTL_PRIME_HANDLE_TO_FD, &ph))
		goto out_handle;
	buf->fd = ph.fd;
	return buf;

out_handle:
	err = errno;
	close_handle(buf->card, buf->handle);
	errno = err;
out_close:
	err = errno;
	close(buf->card);
	errno = err;
out_free:
	err = errno;
	free(buf);
	errno = err;
	return NULL;
}

void dmabuf_free(struct dmabuf *buf)
{
	if (!buf)
		return;
	close(buf->fd);
	close_handle(buf->card, buf->handle);
	close(buf->card);
	free(buf);
}

int dmabuf_get_drm_fd(struct dmabuf *buf)
{
	return buf ? buf->card : -1;
}

int dmabuf_get_fd(struct dmabuf *buf)
{
	return buf ? buf->fd : -1;
}

uint64_t dmabuf_get_offset(struct dmabuf *buf)
{
	return buf ? buf->map_offset : (uint64_t)-1;
}
