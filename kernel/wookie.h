/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * wookie: a software RoCEv2 device whose data path runs in user space.
 * Objects of the command channel and what the module's files share.
 */
#ifndef WOOKIE_H
#define WOOKIE_H

#include <linux/list.h>
#include <linux/stringify.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>

#include <rdma/wookie-abi.h>

#define WOOKIE_DRV_NAME "wookie"
/* The module version, also reported as the firmware version. */
#define WOOKIE_VERSION_MAJOR 0
#define WOOKIE_VERSION_MINOR 1
#define WOOKIE_VERSION_SUB 0
#define WOOKIE_VERSION __stringify(WOOKIE_VERSION_MAJOR.WOOKIE_VERSION_MINOR.WOOKIE_VERSION_SUB)
/* ib_device_attr.fw_ver packing, as the provider unpacks it. */
#define WOOKIE_FW_VER ((u64)WOOKIE_VERSION_MAJOR << 32 | \
		       (u64)WOOKIE_VERSION_MINOR << 16 | WOOKIE_VERSION_SUB)

/*
 * Device limits: what the module enforces today.  Objects whose verbs are
 * not implemented yet report 0.  Documentation/wookie/abi.rst lists them.
 */
#define WOOKIE_MAX_UCONTEXT 512
#define WOOKIE_MAX_PD 0x10000
#define WOOKIE_GID_TBL_LEN 256
#define WOOKIE_PKEY_TBL_LEN 1
#define WOOKIE_MAX_MSG_SIZE 0x80000000u
#define WOOKIE_VENDOR_ID 0
#define WOOKIE_VENDOR_PART_ID 0x776b

struct wookie_dev {
	struct ib_device ibdev;
	/* Held from allocation to dealloc_driver. */
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	/* Entry in wookie_devices, under wookie_devices_lock. */
	struct list_head list;
	/* Under wookie_devices_lock: ib_register_device() has succeeded... */
	bool registered;
	/* ... and an unregistration has been queued. */
	bool unregister_queued;
	/* Last port state reported with an event, under wookie_devices_lock. */
	int port_state;
	atomic_t num_ucontext;
	atomic_t num_pd;
};

struct wookie_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	/* vmalloc_user() memory owned by the entry, freed in mmap_free. */
	void *vaddr;
	bool writable;
};

struct wookie_ucontext {
	struct ib_ucontext ibuc;
	struct wookie_db_page *db_page;
	struct rdma_user_mmap_entry *db_entry;
};

struct wookie_pd {
	struct ib_pd ibpd;
};

static inline struct wookie_dev *to_wookie_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct wookie_dev, ibdev);
}

static inline struct wookie_ucontext *to_wookie_uc(struct ib_ucontext *ibuc)
{
	return container_of(ibuc, struct wookie_ucontext, ibuc);
}

static inline struct wookie_mmap_entry *
to_wookie_mmap_entry(struct rdma_user_mmap_entry *rdma)
{
	return container_of(rdma, struct wookie_mmap_entry, rdma);
}

/* wookie_main.c: the device list */
void wookie_device_list_remove(struct wookie_dev *wdev);

/* wookie_device.c: registration and queries */
struct wookie_dev *wookie_device_alloc(struct net_device *ndev);
int wookie_device_register(struct wookie_dev *wdev, const char *name);
int wookie_current_port_state(struct wookie_dev *wdev);
void wookie_port_event(struct wookie_dev *wdev, int new_state);

/* wookie_verbs.c: command-channel verbs */
int wookie_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata);
void wookie_dealloc_ucontext(struct ib_ucontext *ibuc);
void wookie_disassociate_ucontext(struct ib_ucontext *ibuc);
int wookie_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int wookie_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

/* wookie_mmap.c: memory shared with user space */
void *wookie_mmap_alloc(struct ib_ucontext *ibuc, size_t size, bool writable,
			struct rdma_user_mmap_entry **entry);
int wookie_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void wookie_mmap_free(struct rdma_user_mmap_entry *rdma);

#endif /* WOOKIE_H */
