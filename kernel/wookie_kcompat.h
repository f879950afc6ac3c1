/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel API differences between the two lines wookie builds for,
 * Debian 12's 6.1 and 6.12: one #if per difference, and none elsewhere.
 */
#ifndef WOOKIE_KCOMPAT_H
#define WOOKIE_KCOMPAT_H

#include <linux/version.h>
#include <linux/mm.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/*
 * 6.11: ib_device_ops.create_cq takes the uverbs_attr_bundle (NULL for a
 * kernel CQ), whose driver_udata is what it took before.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define wookie_create_cq_attrs uverbs_attr_bundle
static inline struct ib_udata *
wookie_create_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define wookie_create_cq_attrs ib_udata
static inline struct ib_udata *wookie_create_cq_udata(struct ib_udata *udata)
{
	return udata;
}
#endif

/*
 * 6.3: vma->vm_flags became const, changed through vm_flags_clear() and
 * vm_flags_set() (which also take the VMA's write lock).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
static inline void vm_flags_clear(struct vm_area_struct *vma,
				  vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}

static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

/*
 * 6.11: a device named by "rdma link add" is marked so (rxe and siw do
 * it), and netlink reports the name as the user's.  Nothing before.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 11, 0)
static inline void ib_mark_name_assigned_by_user(struct ib_device *ibdev)
{
}
#endif

/*
 * 6.11 (with create_cq): ib_device_ops.reg_user_mr_dmabuf takes the
 * uverbs_attr_bundle instead of the udata.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define wookie_dmabuf_mr_attrs uverbs_attr_bundle
#else
#define wookie_dmabuf_mr_attrs ib_udata
#endif

/*
 * 6.2: dma_buf_vmap() wants the buffer's reservation lock held; an
 * importer that holds none calls the _unlocked variants.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define wookie_dma_buf_vmap dma_buf_vmap_unlocked
#define wookie_dma_buf_vunmap dma_buf_vunmap_unlocked
#else
#define wookie_dma_buf_vmap dma_buf_vmap
#define wookie_dma_buf_vunmap dma_buf_vunmap
#endif

/*
 * Before 6.14, udmabuf's kernel mapping (vmap_udmabuf()) maps each
 * folio's first page for every page of it: on a memfd of huge pages an
 * importer reading through it would copy the wrong bytes.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 14, 0)
#define WOOKIE_UDMABUF_VMAP_BROKEN true
#else
#define WOOKIE_UDMABUF_VMAP_BROKEN false
#endif

/* 6.12: <asm/unaligned.h> moved to <linux/unaligned.h>. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * 6.2: IBTA 1.5's FLUSH access rights and device capabilities, and ATOMIC
 * WRITE's, with the values of the uAPI.  6.1's ib_core refuses an MR with
 * a FLUSH right (ib_check_mr_access()), so none exists there and nothing
 * reports FLUSH; it passes the capability word to user space whole.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define IB_ACCESS_FLUSH_GLOBAL BIT(8)
#define IB_ACCESS_FLUSH_PERSISTENT BIT(9)
#define IB_DEVICE_ATOMIC_WRITE BIT_ULL(40)
/* What an MR or window may grant, and the device reports. */
#define WOOKIE_ACCESS_FLUSH_GLOBAL 0
#define WOOKIE_DEVICE_FLUSH_GLOBAL 0
#else
#define WOOKIE_ACCESS_FLUSH_GLOBAL IB_ACCESS_FLUSH_GLOBAL
#define WOOKIE_DEVICE_FLUSH_GLOBAL IB_DEVICE_FLUSH_GLOBAL
#endif

#endif /* WOOKIE_KCOMPAT_H */
