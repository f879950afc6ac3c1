/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * wookie: a software RoCEv2 device whose data path runs in user space.
 * Objects of the command channel and what the module's files share.
 */
#ifndef WOOKIE_H
#define WOOKIE_H

#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/stringify.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/refcount.h>
#include <linux/xarray.h>
#include <linux/workqueue.h>
#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/iosys-map.h>
#include <linux/if_ether.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_umem.h>
#include "wookie_kcompat.h"

#include <rdma/wookie-abi.h>
#include "portable/wookie_queue.h"
#include "portable/wookie_wire.h"
#include "portable/wookie_rtt.h"
#include "portable/wookie_window.h"

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
#define WOOKIE_MAX_MR 0x10000
#define WOOKIE_MAX_MW 0x10000
#define WOOKIE_MAX_CQ 0x4000
#define WOOKIE_MAX_CQE (WOOKIE_MAX_RING_ENTRIES - 1)
#define WOOKIE_MAX_QP 0x4000
#define WOOKIE_MAX_QP_WR (WOOKIE_MAX_RING_ENTRIES - 1)
#define WOOKIE_MAX_SRQ 0x4000
#define WOOKIE_MAX_SRQ_WR (WOOKIE_MAX_RING_ENTRIES - 1)
#define WOOKIE_MAX_AH 0x10000
/* XRC domains (XRC SRQ numbers: 1 to WOOKIE_XRC_SRQN_MASK). */
#define WOOKIE_MAX_XRCD 0x10000
/* READs and atomics a QP answers (resources kept for duplicates)... */
#define WOOKIE_MAX_RD_ATOMIC 16
/* ... and has outstanding as a requester: a counter, as rdma_rxe's. */
#define WOOKIE_MAX_INIT_RD_ATOMIC 128
#define WOOKIE_GID_TBL_LEN 256
#define WOOKIE_PKEY_TBL_LEN 1
#define WOOKIE_MAX_MSG_SIZE 0x80000000u
#define WOOKIE_MAX_MR_SIZE 0x80000000ull
#define WOOKIE_MAX_FAST_REG_PAGES 512
/* Device memory: one DM (max_dm_size), and all of one context's. */
#define WOOKIE_MAX_DM_SIZE SZ_1M
#define WOOKIE_MAX_DM_PER_CONTEXT (8 * SZ_1M)
/* No IEEE OUI: all ones, as rdma_rxe; rdma-core expects a nonzero id. */
#define WOOKIE_VENDOR_ID 0xffffff
#define WOOKIE_VENDOR_PART_ID 0x776b
/*
 * The requester asks for an ACK at least every this many packets: half its
 * smallest send window at most (portable/wookie_window.h).
 */
#define WOOKIE_ACK_REQ_EVERY 16
static_assert(2 * WOOKIE_ACK_REQ_EVERY <= WOOKIE_WINDOW_MIN);
/*
 * Packets a READ asks for at once (wookie_read_part_end()).  Its
 * responses come back to back, unpaced by any ACK: between two TCG
 * guests, parts of 128 packets overran the receiving side's buffers and
 * about 5% of them were lost, each loss a part asked for again; parts
 * of 32 lost almost none, and READ bandwidth over a veth was no lower.
 */
#define WOOKIE_READ_PART_PKTS 32
/* Packets one QP handles in one pass of its work before yielding. */
#define WOOKIE_WORK_BUDGET 64
/* Inbound packets a QP queues at most before dropping. */
#define WOOKIE_MAX_INBOUND_PKTS 4096
/*
 * RC between QPs of one device (wookie_qp_set_mtu()): the payload of a
 * packet, which no link limits, and the payload that is still copied into
 * the packet rather than referenced in the sender's MRs.
 */
#define WOOKIE_LOCAL_SEG_BYTES 0x10000
#define WOOKIE_LOCAL_COPY_MAX 512
/* Headers (at most 64 bytes), a copied payload and its pad. */
#define WOOKIE_PKT_BUF_BYTES (64 + WOOKIE_LOCAL_COPY_MAX + 4)
/* QPNs 0 and 1 are the special QPs RoCE does not use here. */
#define WOOKIE_FIRST_QPN 0x10
#define WOOKIE_MAX_QPN 0xffffff
/* The destination QPN of a multicast packet, never a QP's. */
#define WOOKIE_MCAST_QPN 0xffffff
/*
 * Multicast (wookie_mcast.c): groups, QPs per group and attachments in
 * all, each a small object charged to the process that attaches.
 */
#define WOOKIE_MAX_MCAST_GRP 8192
#define WOOKIE_MAX_MCAST_QP_ATTACH 64
#define WOOKIE_MAX_TOTAL_MCAST_QP_ATTACH 16384

/*
 * The port's counters, as `rdma statistic show` lists them: rdma_rxe's
 * fifteen first (same names, same meaning), then packets dropped on
 * receive by reason and on send, then tail-loss probes.  Names in
 * wookie_device.c.
 */
enum wookie_counter {
	WOOKIE_CNT_SENT_PKTS,
	WOOKIE_CNT_RCVD_PKTS,
	WOOKIE_CNT_DUP_REQ,
	WOOKIE_CNT_OUT_OF_SEQ_REQ,
	WOOKIE_CNT_RCV_RNR,
	WOOKIE_CNT_SND_RNR,
	WOOKIE_CNT_RCV_SEQ_ERR,
	WOOKIE_CNT_ACK_DEFERRED,
	WOOKIE_CNT_RETRY_EXCEEDED,
	WOOKIE_CNT_RNR_RETRY_EXCEEDED,
	WOOKIE_CNT_COMP_RETRY,
	WOOKIE_CNT_SEND_ERR,
	WOOKIE_CNT_LINK_DOWNED,
	WOOKIE_CNT_RDMA_SEND,
	WOOKIE_CNT_RDMA_RECV,
	WOOKIE_CNT_RX_ICRC_ERR,
	WOOKIE_CNT_RX_BAD_HDR,
	WOOKIE_CNT_RX_NO_QP,
	WOOKIE_CNT_RX_BAD_PSN,
	WOOKIE_CNT_RX_BAD_RKEY,
	WOOKIE_CNT_RX_BAD_QKEY,
	WOOKIE_CNT_RX_BAD_PKEY,
	WOOKIE_CNT_RX_TOO_LONG,
	WOOKIE_CNT_RX_QP_BUSY,
	WOOKIE_CNT_TX_NO_ROUTE,
	WOOKIE_CNT_TAIL_PROBE,
	WOOKIE_CNT_ODP_FAULTS,
	WOOKIE_CNT_ODP_INVALIDATIONS,
	WOOKIE_CNT_ODP_PREFETCHES,
	WOOKIE_CNT_ODP_CHILDREN,
	WOOKIE_NUM_COUNTERS
};

struct wookie_dev {
	struct ib_device ibdev;
	/* Held from allocation to dealloc_driver. */
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	/*
	 * The netdev's namespace, fixed for the device's life: a netdev
	 * that changes namespace unregisters first, and so does the device.
	 */
	struct net *net;
	/* Entry in its namespace's device list (wookie_net.c), under RCU. */
	struct list_head net_list;
	bool net_attached;
	/*
	 * Entry in wookie_devices, under wookie_devices_lock, from
	 * allocation until the module reaps it after dealloc_driver; the
	 * list holds a reference to the ib_device's memory.
	 */
	struct list_head list;
	/* Under wookie_devices_lock: ib_register_device() has succeeded... */
	bool registered;
	/* ... and an unregistration has been queued, as this work... */
	bool unregister_queued;
	struct work_struct unregister_work;
	/* ... and dealloc_driver has run: only the memory is left. */
	bool dealloced;
	/* Last port state reported with an event, under wookie_devices_lock. */
	int port_state;
	atomic_t num_ucontext;
	atomic_t num_pd;
	atomic_t num_mr;
	atomic_t num_mw;
	atomic_t num_cq;
	atomic_t num_qp;
	atomic_t num_srq;
	atomic_t num_ah;
	atomic_t num_xrcd;

	/*
	 * Key index (key >> 8) -> struct wookie_mr or struct wookie_mw,
	 * told apart by the low bit of the entry (xa_tag_pointer() tag
	 * WOOKIE_KEY_TAG_*); lookups under RCU take a reference.
	 */
	struct xarray keys;
	/* QPN -> struct wookie_qp, for delivery; lookups take a reference. */
	struct xarray qps;
	u32 next_qpn;
	/* ah_num -> struct wookie_ah */
	struct xarray ahs;
	/* XRC SRQ number -> struct wookie_srq; lookups take a reference. */
	struct xarray xrc_srqs;
	u32 next_xrc_srqn;
	/*
	 * Multicast groups by GID (wookie_mcast.c): read under RCU,
	 * changed under mcast_lock, which also guards the counts.
	 */
	struct mutex mcast_lock;
	DECLARE_HASHTABLE(mcgs, 8);
	unsigned int num_mcg;
	unsigned int num_mca;
	/* Serialises atomic operations on memory, as one HCA would. */
	spinlock_t atomic_lock;
	/* Runs each QP's engine work; ordered per QP by the work item. */
	struct workqueue_struct *wq;
	/*
	 * ODP faults and prefetches: they may wait for reclaim, so not on
	 * wq, which reclaim may wait for.  odp_pages: pages of the ODP MRs
	 * registered, within a budget (wookie_odp.c).
	 */
	struct workqueue_struct *odp_wq;
	atomic_long_t odp_pages;
	/* ibv_advise_mr prefetches queued on odp_wq, bounded. */
	atomic_t odp_prefetches;
	/* The SQ poller (wookie_sched.c) and the user SQs it watches... */
	struct task_struct *poller;
	/* ... on poll_list, which this protects with poll_count. */
	spinlock_t poll_lock;
	struct list_head poll_list;
	unsigned int poll_count;
	/*
	 * Kernel consumers' handlers: objects with upcalls pending, and
	 * the one work that delivers them all, one at a time.
	 */
	spinlock_t upcall_lock;
	struct list_head upcalls;
	struct work_struct upcall_work;
	/* The upcall being delivered, under upcall_lock. */
	struct wookie_upcall *upcall_cur;
	/*
	 * rdma statistic (hw_stats): enum wookie_counter; the events of QPs
	 * bound to an rdma_counter are in its set instead.
	 */
	atomic64_t counters[WOOKIE_NUM_COUNTERS];
	/* rdma_counter id -> struct wookie_counter_set (wookie_counters.c) */
	struct xarray counter_sets;
};

/*
 * The values of one rdma_counter (`rdma statistic qp`): the QPs bound to
 * it count here; freed after a grace period, as the engine may be
 * counting in it when the last QP is unbound.
 */
struct wookie_counter_set {
	struct rcu_head rcu;
	/* QPs bound, under the rdma_counter's lock. */
	unsigned int num_qps;
	atomic64_t values[WOOKIE_NUM_COUNTERS];
};

#define WOOKIE_KEY_TAG_MR 0
#define WOOKIE_KEY_TAG_MW 1

struct wookie_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	/* Zeroed vmalloc memory owned by the entry, freed in mmap_free. */
	void *vaddr;
	bool writable;
};

struct wookie_ucontext {
	struct ib_ucontext ibuc;
	struct wookie_db_page *db_page;
	struct rdma_user_mmap_entry *db_entry;
	/* Device memory allocated (whole pages), within a limit. */
	atomic64_t dm_bytes;
};

struct wookie_xrcd {
	struct ib_xrcd ibxrcd;
};

struct wookie_pd {
	struct ib_pd ibpd;
	/*
	 * The PD's UD QPs, for destroy_ah to pin an AH's address vector in
	 * the WQEs posted on them (wookie_ah_pin_posted()).
	 */
	spinlock_t ud_lock;
	struct list_head ud_qps;
	/* One walk at a time: a QP's pin_gen says which walk saw it last. */
	struct mutex pin_mutex;
	u64 pin_gen;
};

/*
 * A ring as the kernel sees it.  User rings live in the vmalloc memory
 * owned by their mmap entry; kernel rings in vzalloc() memory.  The
 * kernel's own indices are kept in the owning object, never read back
 * from the header.
 */
struct wookie_ring {
	struct wookie_ring_hdr *hdr;
	void *slots;
	u32 num_entries;
	u32 stride;
	size_t bytes;
	/* User rings: the mapping's entry; NULL for kernel rings. */
	struct rdma_user_mmap_entry *mmap_entry;
};

static inline void *wookie_ring_slot(const struct wookie_ring *ring, u32 index)
{
	return ring->slots +
	       (size_t)(index & (ring->num_entries - 1)) * ring->stride;
}

/* Address vector: where a packet goes and how it is addressed. */
struct wookie_av {
	union ib_gid sgid;
	union ib_gid dgid;
	u32 sgid_index;
	u32 flow_label;
	u8 hop_limit;
	u8 traffic_class;
	u8 sl;
	/* RDMA_NETWORK_IPV4 or RDMA_NETWORK_IPV6 */
	u8 network_type;
	u8 dmac[ETH_ALEN];
	/* dgid is an address of this device (wookie_av_from_attr). */
	bool local;
};

struct wookie_ah {
	struct ib_ah ibah;
	struct wookie_av av;
	u32 ah_num;
};

enum wookie_mr_kind {
	/* reg_user_mr: pinned user pages. */
	WOOKIE_MR_USER,
	/* get_dma_mr: all kernel memory, addresses are kernel virtual. */
	WOOKIE_MR_DMA,
	/* alloc_mr: pages set by map_mr_sg, made valid by a REG_MR WR. */
	WOOKIE_MR_FAST,
	/* reg_user_mr with IB_ACCESS_ON_DEMAND: pages faulted in on use. */
	WOOKIE_MR_ODP,
	/* reg_dm_mr: device memory's pages, kept by its mmap entry. */
	WOOKIE_MR_DM,
	/* reg_user_mr_dmabuf: a dma-buf mapped into the kernel, page_addrs. */
	WOOKIE_MR_DMABUF,
};

enum wookie_key_state {
	WOOKIE_KEY_INVALID,
	WOOKIE_KEY_FREE,
	WOOKIE_KEY_VALID,
};

struct wookie_mr {
	struct ib_mr ibmr;
	enum wookie_mr_kind kind;
	/* Dropped by lookups' users; dereg waits for the last one. */
	refcount_t refcount;
	struct completion released;
	/* Protects state, rkey changes and the page list. */
	spinlock_t lock;
	enum wookie_key_state state;
	/* IB_ACCESS_* */
	int access;
	u64 iova;
	u64 length;
	/* WOOKIE_MR_USER, WOOKIE_MR_ODP (the ib_umem_odp's) */
	struct ib_umem *umem;
	/* WOOKIE_MR_ODP: the pages mapped now (wookie_odp.c). */
	struct wookie_odp *odp;
	/* WOOKIE_MR_DM: the DM's entry, a reference that keeps its pages. */
	struct rdma_user_mmap_entry *dm_entry;
	/* WOOKIE_MR_DMABUF: the buffer and its kernel mapping. */
	struct dma_buf *dmabuf;
	struct iosys_map dmabuf_map;
	/* Pages covering [iova, iova + length), the first at page_offset. */
	struct page **pages;
	/* FAST, DMABUF: kernel virtual address of each page (virt DMA). */
	u64 *page_addrs;
	unsigned int num_pages;
	unsigned int max_pages;
	unsigned int page_shift;
	unsigned int page_offset;
	/* Windows bound to this MR; dereg refuses while any is. */
	atomic_t num_mw;
};

struct wookie_mw {
	struct ib_mw ibmw;
	refcount_t refcount;
	struct completion released;
	/* Protects state and the binding. */
	spinlock_t lock;
	enum wookie_key_state state;
	/* Bound to (a reference held); NULL when not bound. */
	struct wookie_mr *mr;
	/* Type 2: the QP it was bound through; only it may use the rkey. */
	u32 qp_num;
	int access;
	u64 addr;
	u64 length;
};

/* What a memory access is for, as wookie_mem_get() checks it. */
enum wookie_mem_use {
	WOOKIE_MEM_LOCAL_READ,		/* lkey, data read from memory */
	WOOKIE_MEM_LOCAL_WRITE,		/* lkey, data written to memory */
	WOOKIE_MEM_REMOTE_READ,		/* rkey */
	WOOKIE_MEM_REMOTE_WRITE,	/* rkey */
	WOOKIE_MEM_REMOTE_ATOMIC,	/* rkey */
	WOOKIE_MEM_FLUSH_GLOBAL,	/* rkey, FLUSH to global visibility */
	WOOKIE_MEM_FLUSH_PERSISTENT,	/* rkey, FLUSH to persistence */
};

/*
 * The handlers of kernel consumers (QP events, CQ completion and error
 * events, the SRQ limit event) run from the device's upcall work, never
 * from the engine, so that one may destroy or reset any object, the one
 * it is told about included (wookie_upcall.c).  Bits are what is to be
 * delivered, lowest first; the device's upcall_lock guards them.
 */
struct wookie_upcall;
typedef void (*wookie_upcall_fn)(struct wookie_upcall *up, unsigned int bit);

struct wookie_upcall {
	/* On the device's upcalls list while a bit is pending. */
	struct list_head node;
	unsigned long pending;
	/* The owner is being destroyed: nothing is raised any more. */
	bool off;
	/* Calls the owner's handler for one bit. */
	wookie_upcall_fn deliver;
};

struct wookie_cq {
	struct ib_cq ibcq;
	/* Writers of CQEs, resize, and kernel poll_cq. */
	spinlock_t lock;
	struct wookie_ring ring;
	/* The kernel's producer index; the header's is a copy for users. */
	u32 producer;
	/* Kernel consumers: poll_cq's index. */
	u32 consumer;
	/* Kernel consumers: IB_CQ_SOLICITED / IB_CQ_NEXT_COMP armed. */
	u32 notify;
	/* Overflowed: the CQ error event was raised, no more CQEs. */
	bool error;
	bool user;
	/* Kernel CQs: completion and error handlers (wookie_upcall.c). */
	struct wookie_upcall upcall;
};

struct wookie_srq {
	struct ib_srq ibsrq;
	/* Consumers: the responders of every QP on this SRQ. */
	spinlock_t lock;
	/* Serialises resizes (wookie_modify_srq()). */
	struct mutex resize_lock;
	struct wookie_ring ring;
	u32 consumer;
	u32 max_sge;
	/* Armed limit (0: not armed) for IB_EVENT_SRQ_LIMIT_REACHED. */
	u32 limit;
	bool user;
	/* Kernel SRQs: the limit event (wookie_upcall.c). */
	struct wookie_upcall upcall;
	/*
	 * XRC SRQs: held by each lookup from the number (the responder of
	 * an XRC target, per request); destroy waits for the last.
	 */
	refcount_t refcount;
	struct completion released;
};

/* A receive WQE copied out of an RQ or SRQ and checked. */
struct wookie_recv_wqe {
	u64 wr_id;
	u32 num_sge;
	u64 total_len;
	struct wookie_sge sge[WOOKIE_MAX_SGE];
};

/* Bytes of an MR, held by a reference to it. */
struct wookie_mr_seg {
	struct wookie_mr *mr;
	u64 va;
	u32 len;
};

/*
 * The payload of a packet on the local path, left in the sender's memory:
 * the receiver copies it from there, the one copy of its bytes.  The
 * references keep the MRs (and their pages) until the packet is freed.
 */
struct wookie_pkt_ref {
	u32 num_segs;
	u32 len;
	struct wookie_mr_seg seg[WOOKIE_MAX_SGE];
};

/* Bytes to place: in a buffer, or by reference. */
struct wookie_src {
	const u8 *buf;
	const struct wookie_pkt_ref *ref;
};

/*
 * A packet between two QPs: the transport headers from the BTH on, the
 * payload and the pad, exactly as they travel in the UDP datagram.  On
 * the wire they are an sk_buff's linear data, with room in front for the
 * UDP, IP and link headers and behind for the ICRC.  On the local path a
 * packet has no sk_buff: they are in buf[] (in_buf), or the headers only
 * and the payload by reference (ref).
 */
struct wookie_pkt {
	struct list_head list;
	struct sk_buff *skb;
	/*
	 * The BTH (in the skb's data or in buf[]); len bytes up to the end
	 * of the pad.  With @ref, the headers only: the payload is there.
	 */
	u8 *data;
	u32 len;
	struct wookie_pkt_ref *ref;
	/*
	 * The network header as received (or, between QPs of one device,
	 * as the sender's address vector would have written it).
	 */
	union ib_gid sgid;
	union ib_gid dgid;
	/* RDMA_NETWORK_IPV4 or RDMA_NETWORK_IPV6 */
	u8 network_type;
	u8 hop_limit;
	u8 traffic_class;
	u32 flow_label;
	/* The receiving side's decode of data. */
	struct wookie_hdrs hdrs;
	/* A response: when it was queued to its QP, for the ACK timeout. */
	ktime_t arrived;
	/*
	 * No sk_buff: data is buf[], WOOKIE_PKT_BUF_BYTES of it (a packet
	 * of a QP on the local path, which never reaches the UDP socket).
	 */
	bool in_buf;
	/* Sent in memory by a QP of this device (wookie_net_xmit()). */
	bool local;
	u8 buf[];
};

/* Progress of a send WQE in the requester and completer. */
enum wookie_wqe_state {
	/* Copied and checked, not started. */
	WOOKIE_WQE_PENDING,
	/* Some packets sent. */
	WOOKIE_WQE_SENDING,
	/* All sent; waiting for the ACK or the READ/atomic response. */
	WOOKIE_WQE_SENT,
	/* Done with status; completes in SQ order. */
	WOOKIE_WQE_DONE,
};

/*
 * The kernel's copy of an SQ slot: what was checked is what is used, even
 * if user space rewrites the slot meanwhile.
 */
struct wookie_send_wqe {
	/* UD: the AH's address vector, copied when the WQE is fetched. */
	struct wookie_av av;
	/*
	 * UD, not fetched yet: @av is already that of AH @pinned_ah, which
	 * was destroyed after the WQE at SQ index @pinned_index named it
	 * (wookie_req_pin_av()).  0: nothing pinned.
	 */
	u32 pinned_ah;
	u32 pinned_index;
	u64 total_len;
	enum wookie_wqe_state state;
	/* enum ib_wc_status once DONE */
	u8 status;
	u32 first_psn;
	u32 last_psn;
	/* Bytes sent (requests) or placed (READ responses) so far. */
	u64 done_bytes;
	/*
	 * READ: bytes asked for so far.  A READ is asked for a part at a
	 * time, each at most WOOKIE_READ_PART_PKTS packets and ending on a
	 * multiple of it, so that its responses never flood the link and
	 * a part asked again ends where it ended the first time.
	 */
	u64 asked_bytes;
	/* Atomic responses: the original value. */
	u64 atomic_orig;
	/*
	 * Last: the slot's header, then its SGEs or inline data right after
	 * it as in the slot (wookie_sqe_check() reads them so), only as many
	 * bytes as the QP's slot holds (wookie_qp.swqe_payload): a QP's
	 * copies cost what it asked for, not the device's maximum.
	 */
	struct wookie_sqe sqe;
	union {
		DECLARE_FLEX_ARRAY(struct wookie_sge, sge);
		DECLARE_FLEX_ARRAY(u8, inline_data);
	};
};

/*
 * Memory a user object asks for is charged to the creating process's
 * memory cgroup; at the cgroup's limit the verb fails with ENOMEM rather
 * than waking the cgroup's OOM killer, and, as user space can cause the
 * failure at will, it logs nothing.  A kernel consumer's objects are the
 * kernel's own.
 */
#define WOOKIE_GFP_UOBJ (GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

static inline gfp_t wookie_gfp(const struct ib_udata *udata)
{
	return udata ? WOOKIE_GFP_UOBJ : GFP_KERNEL;
}

static_assert(offsetof(struct wookie_send_wqe, sge) ==
	      offsetof(struct wookie_send_wqe, sqe) + sizeof(struct wookie_sqe));

/* The most a send WQE copy carries after its fixed part. */
#define WOOKIE_SWQE_PAYLOAD_MAX \
	max_t(size_t, WOOKIE_MAX_SGE * sizeof(struct wookie_sge), \
	      WOOKIE_MAX_INLINE)

/* An RDMA READ or atomic the responder executed, kept for duplicates. */
/* What a responder resource answered. */
enum wookie_res_kind {
	WOOKIE_RES_READ,
	WOOKIE_RES_ATOMIC,
	WOOKIE_RES_ATOMIC_WRITE,
	WOOKIE_RES_FLUSH,
};

struct wookie_rd_atomic {
	bool valid;
	/* enum wookie_res_kind */
	u8 kind;
	u32 first_psn;
	u32 last_psn;
	/* READ: rkey, start address and length of the request. */
	u32 rkey;
	u64 va;
	u32 length;
	/* Atomic: the result sent. */
	u64 atomic_orig;
	/* XRC target: the SRQ of the request, whose PD checks the rkey. */
	u32 xrc_srqn;
};

/* Requester state; only the QP's work touches it. */
struct wookie_req {
	/* Next SQ index to copy from the ring. */
	u32 fetch;
	/* WQE being sent. */
	u32 index;
	/* PSN of the next packet. */
	u32 psn;
	/*
	 * One past the highest PSN ever sent: psn goes back for a
	 * retransmission, this does not.  Responses beyond it are forged.
	 */
	u32 psn_end;
	/* READ and atomic requests outstanding. */
	u32 rd_atomic_inflight;
	/* PSNs that may be outstanding (RC). */
	struct wookie_window window;
	/* Round trips, for the tail-loss probe (RC). */
	struct wookie_rtt rtt;
	/*
	 * The last pass stopped because the SQ was empty, not because
	 * something held it (window, credits, fence, RNR wait, budget).
	 */
	bool drained;
	/* Paused by an RNR NAK until this time. */
	bool rnr_wait;
	/* The next data packet asks for an ACK: a tail-loss probe. */
	bool ack_next;
	ktime_t rnr_until;
};

/* Completer state; only the QP's work touches it. */
struct wookie_comp {
	/* Oldest WQE not completed: the consumer index published. */
	u32 index;
	/* PSN the next response is expected with. */
	u32 psn;
	u8 retry_left;
	u8 rnr_retry_left;
	/*
	 * A READ response was missing: its PSN, asked for again.  Later
	 * responses of the stream that lost it do not ask again.
	 */
	bool read_gap;
	u32 read_gap_psn;
	/*
	 * The requester went back for a sequence NAK naming nak_psn: a
	 * repeat of it (a duplicated packet) is no new loss.
	 */
	bool nak_rewound;
	u32 nak_psn;
	/* Last time a response made progress, for the ACK timeout. */
	ktime_t last_progress;
	/* The tail-loss probe went out since (wookie_comp_probe()). */
	bool probed;
	/*
	 * It sent its last packet only: the sequence NAK that answers it
	 * spends no retry (wookie_seq_nak()).
	 */
	bool probe_nak_free;
	/* Responses that may still hold the ACK timeout (wookie_comp_hold). */
	u32 holds_left;
};

/* Responder state; only the QP's work touches it. */
struct wookie_resp {
	/* PSN expected next. */
	u32 psn;
	/* Message sequence number of the last completed message. */
	u32 msn;
	/* Inside a multi-packet SEND or WRITE: which, and where. */
	u32 in_msg_flags;
	/* SEND: the receive WQE being filled, and bytes placed. */
	bool have_rqe;
	struct wookie_recv_wqe rqe;
	/* XRC target: the SRQ rqe came from, and the one of the message. */
	u32 rqe_srqn;
	u32 msg_srqn;
	/*
	 * XRC target: the SRQ the XRCETH of the request in hand names (a
	 * reference held while it is handled), or NULL if none is usable.
	 */
	struct wookie_srq *xrc_srq;
	/*
	 * A receive that failed: its CQE, posted once the failure has
	 * moved the QP to its error state (if it does), so that whoever
	 * polls the error finds the QP there.
	 */
	struct wookie_cqe err_cqe;
	bool err_cqe_pending;
	u64 recv_bytes;
	/* WRITE: target of the next packet, and bytes left in the RETH. */
	u32 write_rkey;
	u64 write_va;
	u64 write_left;
	u32 write_total;
	/*
	 * A PSN sequence error (or, nak_rnr, an RNR) was NAKed: silent
	 * until the expected PSN, but for requests that ask for an ACK
	 * (resp_seq_nak_again()).
	 */
	bool nak_sent;
	bool nak_rnr;
	/*
	 * An ACK of every request up to ack_psn is owed: sent before the
	 * responder's next packet, at the end of the pass, or once it
	 * would cover WOOKIE_ACK_REQ_EVERY requests, so the requests of a
	 * pass share few ACKs.  ack_msn: the MSN when it was owed.
	 * ack_held: requests (duplicates too) since the last ACK.
	 */
	bool ack_due;
	u32 ack_psn;
	u32 ack_msn;
	u32 ack_held;
	/* UC: dropping the rest of a message after an error or a gap. */
	bool uc_drop;
	/* READ/atomic resources, a ring of max_dest_rd_atomic entries. */
	struct wookie_rd_atomic *rd_atomic;
	u32 rd_atomic_next;
	/* READ being answered: the resource, and the next response PSN. */
	struct wookie_rd_atomic *read_cur;
	u32 read_psn;
	u64 read_sent;
};

/* wookie_qp.run_flags (wookie_sched.c) */
enum {
	/* Held by the one context that runs the QP's engine now... */
	WOOKIE_QP_RUNNING,
	/* ... which runs another pass when this is set meanwhile. */
	WOOKIE_QP_AGAIN,
	/* On a runner's queue. */
	WOOKIE_QP_QUEUED,
};

/*
 * QPs one runner queues, and engine passes it runs, at most (fewer in
 * the softirq that receives from the wire).
 */
#define WOOKIE_RUNNER_QPS 16
#define WOOKIE_RUNNER_PASSES 64
#define WOOKIE_RUNNER_RX_PASSES 8
/* ... and for about this long (up to two jiffies more). */
#define WOOKIE_RUNNER_MS 4
/* WOOKIE_WORK_BUDGET in that softirq. */
#define WOOKIE_RX_BUDGET 8

/* A context running engines, and the QPs it runs next (wookie_sched.c). */
struct wookie_runner {
	struct wookie_qp *qps[WOOKIE_RUNNER_QPS];
	unsigned int head;
	unsigned int tail;
	unsigned int passes_left;
	/*
	 * Jiffies after which no pass starts: on a slow host (a sanitizer
	 * kernel under emulation) the passes alone took seconds, and the
	 * work item's CPU was the RCU kthread's too.
	 */
	unsigned long end;
	/* Packets a pass handles per queue (wookie_qp_budget()). */
	int budget;
	/* What the engine may allocate with here: no sleep in a softirq. */
	gfp_t gfp;
};

/*
 * Pages of an ODP MR the engine needs but finds absent (or read-only, for
 * a write): the range to fault in, with a reference on the MR.
 */
struct wookie_odp_miss {
	struct wookie_mr *mr;
	u64 va;
	u64 len;
	bool write;
};

/* The parts of the engine that stop, each on its own, for an ODP fault. */
enum wookie_odp_side {
	WOOKIE_ODP_REQ,
	WOOKIE_ODP_RESP,
	WOOKIE_ODP_COMP,
	WOOKIE_ODP_SIDES,
};

enum wookie_odp_state {
	WOOKIE_ODP_IDLE,
	/* The fault work has the miss (and its MR reference). */
	WOOKIE_ODP_PENDING,
	/* Faulted in: the side does again what missed. */
	WOOKIE_ODP_DONE,
	/*
	 * The fault failed with err (the MR still referenced): the side's
	 * miss of the same pages in this pass fails its operation.
	 */
	WOOKIE_ODP_FAILED,
};

struct wookie_odp_slot {
	/* Written by the engine before PENDING, by the work before DONE. */
	int state;
	int err;
	/* FAILED, and the side was ready to try again in this pass. */
	bool failed_seen;
	/*
	 * PENDING, but the side runs on: the responder RNR NAKed the
	 * request it held (wookie_resp_odp_wait()).  Engine only.
	 */
	bool let_go;
	/*
	 * When the state began: the miss (PENDING), or the failure first
	 * seen by a side let go (FAILED, kept WOOKIE_ODP_FAILED_KEEP_MS).
	 */
	ktime_t since;
	struct wookie_odp_miss miss;
	/* Responder, completer: the packet to take up again first. */
	struct wookie_pkt *pkt;
};

struct wookie_qp_odp {
	/* On wdev->odp_wq: faults each PENDING slot in, then kicks the QP. */
	struct work_struct work;
	struct wookie_odp_slot slot[WOOKIE_ODP_SIDES];
};

struct wookie_qp {
	struct ib_qp ibqp;
	/* Serialises modify_qp and destroy against each other. */
	struct mutex modify_lock;
	/*
	 * Protects state and the attributes below as the engine reads them,
	 * and the inbound packet lists.
	 */
	spinlock_t lock;
	enum ib_qp_state state;
	/* Reference for delivery lookups; destroy waits for the last. */
	refcount_t refcount;
	struct completion released;
	bool user;
	bool sq_sig_all;
	enum wookie_qp_kind kind;

	struct wookie_ring sq;
	/* Kernel copies of the SQ's slots, num_entries, @swqe_stride apart. */
	void *swqe;
	u32 swqe_stride;
	/* Bytes of SGEs or inline data a copy holds. */
	u32 swqe_payload;
	struct wookie_sq_limits sq_limits;
	/* RQ when there is no SRQ. */
	struct wookie_ring rq;
	u32 rq_consumer;
	u32 rq_max_sge;
	struct wookie_srq *srq;
	/* NULL on the side an XRC QP lacks (initiator: receive; target: both). */
	struct wookie_cq *send_cq;
	struct wookie_cq *recv_cq;
	/* XRC target: its domain, which the SRQ of each request must share. */
	struct ib_xrcd *xrcd;

	/* Attributes from modify_qp. */
	u32 dest_qp_num;
	u32 qkey;
	int qp_access_flags;
	enum ib_mtu path_mtu;
	/*
	 * Payload bytes per packet: the path MTU, or WOOKIE_LOCAL_SEG_BYTES
	 * on the local path (then @local).
	 */
	u32 mtu_bytes;
	bool local;
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	u32 sq_psn;
	u32 rq_psn;
	u16 pkey_index;
	struct wookie_av av;
	/* SQD: draining; the SQ drained event is asked for (and not sent). */
	bool sq_draining;
	bool sqd_notify;
	/* Serialises kernel consumers' posters of the SQ. */
	spinlock_t sq_lock;
	/* Serialises kernel consumers' posters of the RQ. */
	spinlock_t rq_lock;
	/* Being destroyed: the timer must not be armed again. */
	bool destroying;
	/* The set of its rdma_counter, if bound to one; else NULL. */
	struct wookie_counter_set __rcu *counter_set;
	/* Packets on req_pkts and resp_pkts, bounded. */
	u32 num_inbound;
	/* Multicast groups it is attached to, under the device's mcast_lock. */
	u32 num_mcast;

	/* Inbound packets: requests for the responder, responses for the
	 * completer; under lock.
	 */
	struct list_head req_pkts;
	struct list_head resp_pkts;
	/*
	 * READ responses that came ahead of the one expected, in PSN order,
	 * and since when they wait for the gap (wookie_comp.c); only the
	 * engine touches them, or a modify or destroy with it stopped.
	 */
	struct list_head read_ooo;
	u32 read_ooo_count;
	ktime_t read_ooo_since;
	/*
	 * The same for requests that came ahead of a gap (wookie_resp.c),
	 * and the PSN expected when they started to wait for it.
	 */
	struct list_head resp_ooo;
	u32 resp_ooo_count;
	ktime_t resp_ooo_since;
	u32 resp_ooo_psn;
	/* Runs completer, responder and requester, in that order. */
	struct work_struct work;
	/* Who runs the engine now; see wookie_sched.c. */
	unsigned long run_flags;
	/* While RUNNING is held: the runner of that context. */
	struct wookie_runner *runner;
	/*
	 * User SQs: the engine is sure to run again and fetch what is
	 * posted, so WOOKIE_RING_NEED_WAKEUP is clear (wookie_sq_watch()).
	 */
	bool sq_watched;
	/* On the poller's list (under the device's poll_lock)... */
	bool sq_polled;
	struct list_head poll_node;
	/* ... with the producer it saw last, and when it moved. */
	u32 poll_seen;
	ktime_t poll_active;
	/* UD: on its PD's ud_qps (under ud_lock), and the walk that saw it. */
	struct list_head pd_node;
	u64 pin_gen;
	/* RNR and ACK timeouts queue the work. */
	struct hrtimer timer;
	/* The last WQE reached event was raised (SRQ QPs in ERR). */
	bool last_wqe_reached;
	/* Kernel QPs: async events for the handler (wookie_upcall.c). */
	struct wookie_upcall upcall;

	struct wookie_req req;
	struct wookie_comp comp;
	struct wookie_resp resp;
	/* ODP faults the engine waits for (wookie_odp_wait.c). */
	struct wookie_qp_odp odp;
};

static inline struct wookie_dev *to_wookie_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct wookie_dev, ibdev);
}

static inline void wookie_count(struct wookie_dev *wdev,
				enum wookie_counter counter)
{
	atomic64_inc(&wdev->counters[counter]);
}

/* rdma statistic's name of @counter. */
const char *wookie_counter_name(enum wookie_counter counter);
/*
 * wookie_trace.c: a packet dropped, counted in @reason and traced (with
 * its BTH when it was parsed, else @bth is NULL).
 */
void wookie_drop(struct wookie_dev *wdev, enum wookie_counter reason,
		 const struct wookie_bth *bth);

static inline struct wookie_pd *to_wookie_pd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct wookie_pd, ibpd);
}

static inline struct wookie_mr *to_wookie_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct wookie_mr, ibmr);
}

static inline struct wookie_mw *to_wookie_mw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct wookie_mw, ibmw);
}

static inline struct wookie_cq *to_wookie_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct wookie_cq, ibcq);
}

static inline struct wookie_srq *to_wookie_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct wookie_srq, ibsrq);
}

/*
 * Packets one pass of @qp's engine handles at most per queue (inbound
 * responses, inbound requests, READ responses sent, WQEs): fewer in a
 * softirq.  Called by the engine, which runs with qp->runner set.
 */
static inline int wookie_qp_budget(const struct wookie_qp *qp)
{
	return qp->runner ? qp->runner->budget : WOOKIE_WORK_BUDGET;
}

static inline struct wookie_qp *to_wookie_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct wookie_qp, ibqp);
}

/* An event of @qp: in its rdma_counter's set if it has one, else the port's. */
static inline void wookie_qp_count(struct wookie_qp *qp,
				   enum wookie_counter counter)
{
	struct wookie_counter_set *set;

	rcu_read_lock();
	set = rcu_dereference(qp->counter_set);
	if (set)
		atomic64_inc(&set->values[counter]);
	else
		wookie_count(to_wookie_dev(qp->ibqp.device), counter);
	rcu_read_unlock();
}

/* wookie_trace.c: a packet for @qp dropped, counted as wookie_qp_count(). */
void wookie_qp_drop(struct wookie_qp *qp, enum wookie_counter reason,
		    const struct wookie_bth *bth);

static inline struct wookie_ah *to_wookie_ah(struct ib_ah *ibah)
{
	return container_of(ibah, struct wookie_ah, ibah);
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
void wookie_device_dealloced(struct wookie_dev *wdev);

/* wookie_device.c: registration and queries */
struct wookie_dev *wookie_device_alloc(struct net_device *ndev);
int wookie_device_register(struct wookie_dev *wdev, const char *name);
int wookie_current_port_state(struct wookie_dev *wdev);
void wookie_port_event(struct wookie_dev *wdev, int new_state);

/* wookie_verbs.c: command-channel verbs */
int wookie_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata);
void wookie_dealloc_ucontext(struct ib_ucontext *ibuc);
int wookie_query_ucontext(struct ib_ucontext *ibuc,
			  struct uverbs_attr_bundle *attrs);
extern const struct uapi_definition wookie_ucontext_defs[];
void wookie_disassociate_ucontext(struct ib_ucontext *ibuc);
int wookie_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int wookie_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int wookie_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
int wookie_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);

/* wookie_ring.c: ring memory */
int wookie_ring_alloc(struct wookie_ring *ring, struct ib_udata *udata,
		      u32 num_entries, u32 stride);
void wookie_ring_free(struct wookie_ring *ring);
void wookie_ring_info(const struct wookie_ring *ring,
		      struct wookie_ring_info *info);
/* Attempts at updating a word user space may be rewriting at that time. */
#define WOOKIE_CMPXCHG_TRIES 16
/*
 * Set and clear bits of a header word user space may be rewriting: a
 * bounded cmpxchg loop, so a user that keeps rewriting it only loses the
 * (advisory) bits, and never keeps the kernel spinning.
 */
void wookie_word_update(u32 *word, u32 set, u32 clear);
/* wookie_word_update() on the ring's flags; nothing for no ring. */
void wookie_ring_set_flags(struct wookie_ring *ring, u32 set, u32 clear);

/* wookie_odp.c: on-demand paging MRs */
#if IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING)
int wookie_odp_reg(struct wookie_dev *wdev, struct wookie_mr *mr, u64 start,
		   u64 length, int access);
int wookie_odp_reg_implicit(struct wookie_dev *wdev, struct wookie_mr *mr,
			    int access, u64 *limit);
void wookie_odp_release(struct wookie_dev *wdev, struct wookie_mr *mr);
/*
 * Under the returned lock: the kernel address of the byte at @va of an
 * ODP MR, or NULL if one page of [va, va + len) is absent (or read-only,
 * for @write).  Pages stay mapped until wookie_odp_unlock().
 */
unsigned long wookie_odp_lock(struct wookie_mr *mr)
	__acquires(&mr->odp->lock);
void wookie_odp_unlock(struct wookie_mr *mr, unsigned long flags)
	__releases(&mr->odp->lock);
void *wookie_odp_addr(struct wookie_mr *mr, u64 va, u64 len, bool write);
int wookie_odp_fault(struct wookie_mr *mr, u64 va, u64 len, bool write,
		     bool fault);
int wookie_advise_mr(struct ib_pd *ibpd,
		     enum ib_uverbs_advise_mr_advice advice, u32 flags,
		     struct ib_sge *sg_list, u32 num_sge,
		     struct uverbs_attr_bundle *attrs);
#else
static inline int wookie_odp_reg(struct wookie_dev *wdev,
				 struct wookie_mr *mr, u64 start, u64 length,
				 int access)
{
	return -EOPNOTSUPP;
}

static inline int wookie_odp_reg_implicit(struct wookie_dev *wdev,
					  struct wookie_mr *mr, int access,
					  u64 *limit)
{
	return -EOPNOTSUPP;
}

static inline void wookie_odp_release(struct wookie_dev *wdev,
				      struct wookie_mr *mr)
{
}

static inline unsigned long wookie_odp_lock(struct wookie_mr *mr)
{
	return 0;
}

static inline void wookie_odp_unlock(struct wookie_mr *mr,
				     unsigned long flags)
{
}

static inline void *wookie_odp_addr(struct wookie_mr *mr, u64 va, u64 len,
				    bool write)
{
	return NULL;
}
#endif

/* wookie_odp_wait.c: the engine's waits for ODP faults */
void wookie_odp_miss_set(struct wookie_odp_miss *miss, struct wookie_mr *mr,
			 u64 va, u64 len, bool write);
/* wookie_odp_stall(): the side was let go, and the fault goes on. */
#define WOOKIE_ODP_BUSY 1
int wookie_odp_stall(struct wookie_qp *qp, enum wookie_odp_side side,
		     struct wookie_odp_miss *miss);
struct wookie_pkt *wookie_odp_let_go(struct wookie_qp *qp,
				     enum wookie_odp_side side);
void wookie_odp_rejoin(struct wookie_qp *qp, enum wookie_odp_side side);
bool wookie_odp_pending(struct wookie_qp *qp, enum wookie_odp_side side);
bool wookie_odp_waits(struct wookie_qp *qp, enum wookie_odp_side side);
bool wookie_odp_ready(struct wookie_qp *qp, enum wookie_odp_side side);
void wookie_odp_pass_end(struct wookie_qp *qp);
void wookie_odp_drop_held(struct wookie_qp *qp, enum wookie_odp_side side);
void wookie_odp_hold(struct wookie_qp *qp, enum wookie_odp_side side,
		     struct wookie_pkt *pkt);
struct wookie_pkt *wookie_odp_take(struct wookie_qp *qp,
				   enum wookie_odp_side side);
void wookie_odp_qp_init(struct wookie_qp *qp);
void wookie_odp_qp_stop(struct wookie_qp *qp);
void wookie_odp_qp_reset(struct wookie_qp *qp);

/*
 * An MR whose pages[] the MR itself keeps for its whole life (pinned user
 * pages, device memory): reachable through pages[], and safe to reference
 * from a packet that holds the MR.
 */
static inline bool wookie_mr_paged(const struct wookie_mr *mr)
{
	return mr->kind == WOOKIE_MR_USER || mr->kind == WOOKIE_MR_DM;
}

/* wookie_mr.c: memory regions */
struct ib_mr *wookie_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *wookie_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				 u64 iova, int access, struct ib_udata *udata);
struct ib_mr *wookie_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				   u64 length, u64 iova, int access,
				   struct ib_pd *ibpd, struct ib_udata *udata);
int wookie_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *wookie_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			      u32 max_num_sg);
int wookie_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		     unsigned int *sg_offset);
struct ib_mr *wookie_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
					u64 length, u64 iova, int fd,
					int access,
					struct wookie_dmabuf_mr_attrs *attrs);
struct ib_mr *wookie_reg_dm_mr(struct ib_pd *ibpd, struct ib_dm *ibdm,
			       struct ib_dm_mr_attr *attr,
			       struct uverbs_attr_bundle *attrs);
void wookie_mr_put(struct wookie_mr *mr);

/* wookie_mw.c: memory windows */
int wookie_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int wookie_dealloc_mw(struct ib_mw *ibmw);

/* wookie_dmabuf.c: dma-buf MRs */
int wookie_dmabuf_map(struct wookie_mr *mr, int fd, u64 offset, u64 length,
		      bool write);
void wookie_dmabuf_unmap(struct wookie_mr *mr);

/* wookie_dm.c: device memory */
struct ib_dm *wookie_alloc_dm(struct ib_device *ibdev,
			      struct ib_ucontext *ibuc,
			      struct ib_dm_alloc_attr *attr,
			      struct uverbs_attr_bundle *attrs);
int wookie_dealloc_dm(struct ib_dm *ibdm, struct uverbs_attr_bundle *attrs);
int wookie_dm_get(struct ib_dm *ibdm, u64 offset, u64 length,
		  struct page ***pagesp, unsigned int *num_pagesp,
		  struct rdma_user_mmap_entry **entryp);
void wookie_dm_put(struct rdma_user_mmap_entry *entry);
extern const struct uapi_definition wookie_dm_defs[];

/* wookie_mem.c: keys checked for a use, copies, atomics */
/*
 * Find the memory behind @key for @len bytes at @va, used as @use by a
 * QP of @pd (@qp_num: type 2 windows).  Returns the MR with a reference
 * (a window resolves to its MR), or an ERR_PTR: -EINVAL no such valid key,
 * -EACCES wrong PD, access or QP, -ERANGE outside the region.
 */
struct wookie_mr *wookie_mem_get(struct wookie_dev *wdev, u32 key,
				 struct ib_pd *pd, u32 qp_num,
				 enum wookie_mem_use use, u64 va, u64 len);
/* The same for the whole MR or window: a FLUSH of selectivity level MR. */
struct wookie_mr *wookie_mem_get_whole(struct wookie_dev *wdev, u32 key,
				       struct ib_pd *pd, u32 qp_num,
				       enum wookie_mem_use use);
/*
 * What the SGE walks below return besides an enum ib_wc_status: an ODP
 * page was missing (*miss says which, with an MR reference: fault it in
 * and do the same again; nothing was left half done in that MR), and an
 * SGE that cannot be sent by reference (an ODP MR: copy it instead).
 */
#define WOOKIE_STATUS_ODP_MISS 0x100
#define WOOKIE_STATUS_NO_REF 0x101
/*
 * Copy @len bytes between @buf and the memory of an SGE list, starting
 * @offset bytes into it, each SGE's lkey checked (for @pd and @qp_num) for
 * the bytes it takes; @to_sges writes the SGEs' memory.  Returns
 * IB_WC_SUCCESS, IB_WC_LOC_PROT_ERR, IB_WC_LOC_LEN_ERR when the SGEs
 * hold less than @offset + @len bytes, or WOOKIE_STATUS_ODP_MISS.
 */
int wookie_sge_place(struct wookie_dev *wdev, const struct wookie_sge *sge,
		     u32 num_sge, struct ib_pd *pd, u32 qp_num, u64 offset,
		     const struct wookie_src *src, u32 len,
		     struct wookie_odp_miss *miss);
/* ... or WOOKIE_STATUS_NO_REF. */
int wookie_sge_ref(struct wookie_dev *wdev, const struct wookie_sge *sge,
		   u32 num_sge, struct ib_pd *pd, u32 qp_num, u64 offset,
		   u32 len, struct wookie_pkt_ref *ref);
int wookie_sge_gather(struct wookie_dev *wdev, const struct wookie_sge *sge,
		      u32 num_sge, struct ib_pd *pd, u32 qp_num, u64 offset,
		      void *buf, u32 len, struct wookie_odp_miss *miss);
/*
 * Copies and atomics on an MR (range already checked): 0, or -EAGAIN
 * with *@miss filled (an MR reference taken) for an ODP page missing.
 */
int wookie_mr_place(struct wookie_mr *mr, u64 va,
		    const struct wookie_src *src, u64 len,
		    struct wookie_odp_miss *miss);
int wookie_mr_copy_from(struct wookie_mr *mr, u64 va, void *dst, u64 len,
			struct wookie_odp_miss *miss);
/* An 8-byte operation at an aligned address, as the responder runs it. */
struct wookie_atomic {
	enum {
		WOOKIE_ATOMIC_CMP_SWAP,
		WOOKIE_ATOMIC_FETCH_ADD,
		/* ATOMIC WRITE: swap is stored. */
		WOOKIE_ATOMIC_STORE,
	} kind;
	u64 compare_add;
	u64 swap;
};

/*
 * @op at @va (aligned, range checked); *@orig: the original value (0 for
 * a store).  0, -EAGAIN as above, -EINVAL where the MR's memory is not
 * aligned there, -EFAULT where a fast MR no longer maps it.
 */
int wookie_mr_atomic(struct wookie_dev *wdev, struct wookie_mr *mr, u64 va,
		     const struct wookie_atomic *op, u64 *orig,
		     struct wookie_odp_miss *miss);

/*
 * wookie_mr.c (binds: wookie_mw.c): local operations of an SQ; each
 * returns an enum ib_wc_status.
 */
int wookie_local_invalidate(struct wookie_qp *qp, u32 key);
int wookie_remote_invalidate(struct wookie_qp *qp, struct ib_pd *pd, u32 rkey);
int wookie_bind_mw(struct wookie_qp *qp, const struct wookie_sqe *wqe);
int wookie_fast_reg_mr(struct wookie_qp *qp, const struct wookie_sqe *wqe);

/* wookie_cq.c */
int wookie_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		     struct wookie_create_cq_attrs *attrs);
int wookie_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int wookie_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int wookie_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int wookie_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
/*
 * Write one CQE (its timestamp is filled here) and raise the completion
 * event if armed.  Returns 0, or -ENOSPC when the CQ is full: the CQ then
 * is in error and IB_EVENT_CQ_ERR was raised.
 */
int wookie_cq_post(struct wookie_cq *cq, struct wookie_cqe *cqe,
		   bool solicited);
/* Kernel CQs: hide the unpolled CQEs of a QP that went to RESET. */
void wookie_cq_discard_qp(struct wookie_cq *cq, u32 qp_num);
/* wookie_upcall.c: kernel consumers' handlers (see struct wookie_upcall) */
void wookie_upcall_dev_init(struct wookie_dev *wdev);
void wookie_upcall_init(struct wookie_upcall *up, wookie_upcall_fn deliver);
void wookie_upcall_raise(struct wookie_dev *wdev, struct wookie_upcall *up,
			 unsigned int bit);
/*
 * The owner is being destroyed: nothing is raised from now on, and its
 * handler is not running elsewhere when this returns.  @deliver: what is
 * pending is delivered first (not when called from a handler: dropped
 * then); else it is dropped.
 */
void wookie_upcall_stop(struct wookie_dev *wdev, struct wookie_upcall *up,
			bool deliver);
/* What @up has pending is delivered when this returns (unless in a handler). */
void wookie_upcall_sync(struct wookie_dev *wdev, struct wookie_upcall *up);
/*
 * A QP is being destroyed: its CQs' handlers have seen all it raised
 * (outside a handler; from one, they run after it).
 */
void wookie_cq_upcall_flush(struct wookie_cq *cq);
int wookie_pre_destroy_cq(struct ib_cq *ibcq);

/* wookie_srq.c */
int wookie_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		      struct ib_udata *udata);
int wookie_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		      enum ib_srq_attr_mask mask, struct ib_udata *udata);
int wookie_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int wookie_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int wookie_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr);
/*
 * Take the next receive WQE of an RQ or SRQ ring into @out.  Returns 0,
 * -ENOENT when empty, -EIO when the ring is corrupt (index out of range
 * or a malformed WQE, which is consumed).
 */
int wookie_rq_pop(struct wookie_ring *ring, u32 *consumer, u32 max_sge,
		  struct wookie_recv_wqe *out);
/* The SRQ variant: its lock, its limit event. */
int wookie_srq_pop(struct wookie_srq *srq, struct wookie_recv_wqe *out);
/* XRC SRQ number @srqn, with a reference; NULL if there is none. */
struct wookie_srq *wookie_xrc_srq_get(struct wookie_dev *wdev, u32 srqn);
void wookie_srq_put(struct wookie_srq *srq);

/* Kernel consumers' post_recv for an RQ or SRQ ring. */
int wookie_ring_post_recv(struct wookie_ring *ring, u32 max_sge,
			  const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr);

/* wookie_ah.c */
int wookie_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		     struct ib_udata *udata);
int wookie_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int wookie_destroy_ah(struct ib_ah *ibah, u32 flags);
/* Fill an address vector from verbs attributes; -EINVAL if unusable. */
int wookie_av_from_attr(struct wookie_dev *wdev, struct wookie_av *av,
			const struct rdma_ah_attr *attr);
void wookie_av_to_attr(const struct wookie_av *av, struct rdma_ah_attr *attr);
void wookie_pd_add_ud(struct wookie_pd *pd, struct wookie_qp *qp);
void wookie_pd_del_ud(struct wookie_pd *pd, struct wookie_qp *qp);
/* Copy the AV of AH @ah_num if it belongs to @pd; -EINVAL otherwise. */
int wookie_ah_lookup(struct wookie_dev *wdev, u32 ah_num, struct ib_pd *pd,
		     struct wookie_av *av);

/* wookie_counters.c: the port's counters and rdma_counter sets */
struct rdma_hw_stats *wookie_alloc_hw_port_stats(struct ib_device *ibdev,
						 u32 port_num);
int wookie_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			u32 port, int index);
struct rdma_hw_stats *wookie_counter_alloc_stats(struct rdma_counter *counter);
int wookie_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp);
int wookie_counter_unbind_qp(struct ib_qp *ibqp);
int wookie_counter_dealloc(struct rdma_counter *counter);
int wookie_counter_update_stats(struct rdma_counter *counter);
void wookie_counters_init(struct wookie_dev *wdev);
void wookie_counters_fini(struct wookie_dev *wdev);

/* wookie_qp.c: QP verbs and state */
int wookie_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		     struct ib_udata *udata);
int wookie_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		     struct ib_udata *udata);
int wookie_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int wookie_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);
int wookie_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr);
int wookie_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_qp_init_attr *init);
int wookie_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int wookie_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad_wr);
int wookie_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr);
struct wookie_qp *wookie_qp_get(struct wookie_dev *wdev, u32 qpn);
void wookie_qp_put(struct wookie_qp *qp);
/* Move to ERR (from the engine): flush, async event @event if not 0. */
void wookie_qp_error(struct wookie_qp *qp, enum ib_event_type event);
void wookie_qp_event(struct wookie_qp *qp, enum ib_event_type event);
/* UC and UD: a send error moves the QP to SQE (the RQ keeps working). */
void wookie_qp_sq_error(struct wookie_qp *qp);

/* wookie_sched.c: engine scheduling */
void wookie_qp_engine_init(struct wookie_qp *qp);
/* Have the engine run on the QP soon, from its work item. */
void wookie_qp_kick(struct wookie_qp *qp);
void wookie_qp_hold(struct wookie_qp *qp);
void wookie_qp_unhold(struct wookie_qp *qp);
/* Run the engine on the QP now (process context, no locks held). */
void wookie_qp_run(struct wookie_qp *qp);
/* The same from the softirq that received a packet for the QP. */
void wookie_qp_run_rx(struct wookie_qp *qp);
/* The send doorbell of a user QP: run it, and have the poller watch it. */
void wookie_qp_ring_sq(struct wookie_qp *qp);
void wookie_qp_unpoll(struct wookie_qp *qp);
int wookie_poller_start(struct wookie_dev *wdev);
void wookie_poller_stop(struct wookie_dev *wdev);
/*
 * The engine of @from (running) delivered to @qp: @qp runs next in the
 * same context, or from its work item.
 */
void wookie_qp_schedule(struct wookie_qp *from, struct wookie_qp *qp);
void wookie_qp_arm_timer(struct wookie_qp *qp, ktime_t expires);
bool wookie_qp_resp_queued_before(struct wookie_qp *qp, ktime_t t);

/* wookie_pkt.c: packets, and their delivery to a QP */
/* Is the local_path module parameter on (it may change at any time)? */
bool wookie_local_path(void);
int wookie_pkt_cache_init(void);
void wookie_pkt_cache_exit(void);
/*
 * A packet of @len bytes from the BTH to the end of the pad, with room
 * for the headers in front of it and the ICRC behind.  NULL on failure.
 */
struct wookie_pkt *wookie_pkt_alloc(struct wookie_dev *wdev, u32 len,
				    gfp_t gfp);
/* A packet around @skb, whose data holds @len bytes from the BTH on. */
struct wookie_pkt *wookie_pkt_wrap(struct sk_buff *skb, u32 len, gfp_t gfp);
void wookie_pkt_free(struct wookie_pkt *pkt);
void wookie_pkt_free_list(struct list_head *list);
struct list_head *wookie_pkt_list_pos(struct list_head *list, u32 psn);
/*
 * Allocate a packet and write the headers of @h into it (P_Key, TVer and
 * pad are filled here; @h->bth.opcode, psn, dest_qp and the extended
 * headers are the caller's).  pkt->hdrs is a copy of @h as written;
 * the caller copies @payload_len bytes to pkt->data + pkt->hdrs.hdr_len.
 */
struct wookie_pkt *wookie_pkt_build(struct wookie_qp *qp,
				    struct wookie_hdrs *h, u32 payload_len);
/*
 * wookie_pkt_build() for the local path, with an empty pkt->ref for the
 * caller to fill: the payload stays in the sender's MRs.
 */
struct wookie_pkt *wookie_pkt_build_ref(struct wookie_qp *qp,
					struct wookie_hdrs *h);
/* Where the payload of a received @pkt is. */
static inline void wookie_pkt_src(const struct wookie_pkt *pkt,
				  struct wookie_src *src)
{
	src->ref = pkt->ref;
	src->buf = pkt->ref ? NULL : pkt->data + pkt->hdrs.hdr_len;
}

/*
 * Check a received packet (pkt->data, pkt->len and its network fields)
 * and queue it on its QP.  Returns the QP, with a reference, for the
 * caller to run or kick and put; NULL when the packet was dropped (and
 * freed and counted).
 */
struct wookie_qp *wookie_pkt_deliver(struct wookie_dev *wdev,
				     struct wookie_pkt *pkt);
/* wookie_pkt_deliver() in two: the checks of any packet... */
bool wookie_pkt_parse(struct wookie_dev *wdev, struct wookie_pkt *pkt);
/*
 * ... and the queueing on @qp (the caller holds a reference), which
 * consumes @pkt; false when it was dropped.
 */
bool wookie_pkt_enqueue(struct wookie_dev *wdev, struct wookie_qp *qp,
			struct wookie_pkt *pkt);
struct wookie_pkt *wookie_pkt_clone(const struct wookie_pkt *pkt, gfp_t gfp);
/*
 * Hand a packet built by @qp to its destination (it owns @pkt from now):
 * @av says where, the BTH which QP.  A QP of the same device gets it
 * directly, anything else through the UDP tunnel.  Malformed or
 * undeliverable packets are dropped and counted.
 */
void wookie_net_xmit(struct wookie_qp *qp, const struct wookie_av *av,
		     struct wookie_pkt *pkt);
/* Is @gid one of this device's RoCEv2 addresses? */
bool wookie_gid_is_local(struct wookie_dev *wdev, const union ib_gid *gid);

/* wookie_mcast.c: multicast groups of UD QPs */
void wookie_mcast_dev_init(struct wookie_dev *wdev);
int wookie_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int wookie_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
void wookie_mcast_detach_all(struct wookie_qp *qp);
void wookie_mcast_dev_fini(struct wookie_dev *wdev);
/* A received packet to multicast GID pkt->dgid; consumes @pkt. */
void wookie_mcast_deliver(struct wookie_dev *wdev, struct wookie_pkt *pkt);

/* wookie_net.c: RoCEv2 in UDP, one tunnel socket per network namespace */
int wookie_net_init(void);
void wookie_net_exit(void);
/*
 * Make @wdev reachable from the wire of its netdev's namespace, opening
 * the namespace's UDP sockets if it is the first device there.  A port
 * taken by another driver (rdma_rxe) leaves the device local-only.
 */
int wookie_net_attach(struct wookie_dev *wdev, const char *name);
/* Undo wookie_net_attach(); nothing if it did not succeed. */
void wookie_net_detach(struct wookie_dev *wdev);
/* Send @pkt, built by @qp, to @av over UDP; the tunnel owns it from now. */
void wookie_udp_xmit(struct wookie_qp *qp, const struct wookie_av *av,
		     struct wookie_pkt *pkt);

/* wookie_req.c, wookie_comp.c, wookie_resp.c: the engine */
/* The BTH transport of a QP kind. */
static inline u8 wookie_transport_of(enum wookie_qp_kind kind)
{
	switch (kind) {
	case WOOKIE_QP_KIND_UC:
		return WOOKIE_TRANSPORT_UC;
	case WOOKIE_QP_KIND_UD:
		return WOOKIE_TRANSPORT_UD;
	case WOOKIE_QP_KIND_XRC_INI:
	case WOOKIE_QP_KIND_XRC_TGT:
		return WOOKIE_TRANSPORT_XRC;
	default:
		return WOOKIE_TRANSPORT_RC;
	}
}

/*
 * Where the part of a READ that holds byte @done ends (see asked_bytes):
 * parts are WOOKIE_READ_PART_PKTS packets on a fixed grid, so a part
 * asked for again ends where the lost one did, and late responses to it
 * still fit.
 */
static inline u64 wookie_read_part_end(const struct wookie_qp *qp,
				       u64 total_len, u64 done)
{
	u64 part = (u64)WOOKIE_READ_PART_PKTS * qp->mtu_bytes;

	return min(total_len, (done / part + 1) * part);
}

/*
 * Requests that wait for a response of their own and take a responder
 * resource (max_rd_atomic): READ, the atomics, and IBTA 1.5's ATOMIC
 * WRITE and FLUSH.
 */
static inline bool wookie_is_rd_atomic(u8 wr_opcode)
{
	return wr_opcode == WOOKIE_WR_RDMA_READ ||
	       wr_opcode == WOOKIE_WR_ATOMIC_CMP_AND_SWP ||
	       wr_opcode == WOOKIE_WR_ATOMIC_FETCH_AND_ADD ||
	       wr_opcode == WOOKIE_WR_ATOMIC_WRITE ||
	       wr_opcode == WOOKIE_WR_FLUSH;
}

/* Answered by a READ RESPONSE ONLY without payload (IBTA 1.5). */
static inline bool wookie_is_empty_read_resp(u8 wr_opcode)
{
	return wr_opcode == WOOKIE_WR_ATOMIC_WRITE ||
	       wr_opcode == WOOKIE_WR_FLUSH;
}

/* Executed by the requester itself, no packet. */
static inline bool wookie_is_local_op(u8 wr_opcode)
{
	return wr_opcode == WOOKIE_WR_LOCAL_INV ||
	       wr_opcode == WOOKIE_WR_BIND_MW || wr_opcode == WOOKIE_WR_REG_MR;
}

/* The kernel's copy of SQ slot @index. */
static inline struct wookie_send_wqe *wookie_swqe(struct wookie_qp *qp,
						  u32 index)
{
	return qp->swqe +
	       (size_t)(index & (qp->sq.num_entries - 1)) * qp->swqe_stride;
}

/*
 * A WQE is done with @status; the completer reports it in SQ order.  A
 * READ or atomic that was sent gives its credit back.
 */
static inline void wookie_wqe_finish(struct wookie_qp *qp,
				     struct wookie_send_wqe *wqe, u8 status)
{
	if (wookie_is_rd_atomic(wqe->sqe.opcode) &&
	    (wqe->state == WOOKIE_WQE_SENDING || wqe->state == WOOKIE_WQE_SENT))
		qp->req.rd_atomic_inflight--;
	wqe->state = WOOKIE_WQE_DONE;
	wqe->status = status;
}

/* Requester: send what the SQ holds; false when it must run again. */
bool wookie_requester(struct wookie_qp *qp);
void wookie_req_pin_av(struct wookie_qp *qp, u32 ah_num,
		       const struct wookie_av *av);
/* Completer: process one response packet (consumed). */
void wookie_completer(struct wookie_qp *qp, struct wookie_pkt *pkt);
void wookie_read_ooo_drop(struct wookie_qp *qp);

/*
 * How long packets that came ahead of a gap wait for it before the gap
 * counts as a loss: an eighth of the QP's ACK timeout, within 50 us..4
 * ms; 4 ms with no timeout.
 */
static inline u64 wookie_reorder_usec(const struct wookie_qp *qp)
{
	u64 usec = wookie_ack_timeout_usec(qp->timeout);

	return usec ? clamp_t(u64, usec / 8, 50, 4000) : 4000;
}

/* Write completions of finished WQEs in SQ order; flush when in ERR. */
void wookie_complete_done(struct wookie_qp *qp);
/* Retransmit or fail when the ACK timeout passed; re-arm otherwise. */
void wookie_comp_check_timeout(struct wookie_qp *qp);
/* When the tail-loss probe is due, if one may go. */
bool wookie_comp_probe_due(struct wookie_qp *qp, ktime_t *due);
/* Responder: process one request packet (consumed). */
void wookie_responder(struct wookie_qp *qp, struct wookie_pkt *pkt);
/* Responder: continue an RDMA READ's responses; false if more to send. */
bool wookie_responder_continue(struct wookie_qp *qp);
/* Responder: send an ACK or NAK with @syndrome for @psn. */
void wookie_send_ack(struct wookie_qp *qp, u8 syndrome, u32 psn);
/* Responder: send the ACK its pass owes (coalesced ACK requests). */
void wookie_resp_flush_ack(struct wookie_qp *qp);
/* Responder: take up requests that waited for a gap, or NAK it. */
void wookie_resp_ooo_check(struct wookie_qp *qp);
void wookie_resp_ooo_drop(struct wookie_qp *qp);
/* Responder waiting for an ODP fault: true when it RNR NAKed and runs on. */
bool wookie_resp_odp_wait(struct wookie_qp *qp);
/* Reset the engine state for RESET / INIT. */
void wookie_resp_reset(struct wookie_qp *qp);
/* Flush the RQ (not an SRQ) with IB_WC_WR_FLUSH_ERR. */
void wookie_flush_recv(struct wookie_qp *qp);

/* wookie_mmap.c: memory shared with user space */
/* ENOMEM unless the memory cgroup leaves room for the provider's mmap(). */
int wookie_mmap_headroom(void);
int wookie_mmap_resp(struct ib_udata *udata, void *resp, size_t len);
void *wookie_kvzalloc_uobj(size_t size);
void *wookie_mmap_alloc(struct ib_ucontext *ibuc, size_t size, bool writable,
			gfp_t gfp,
			struct rdma_user_mmap_entry **entry);
int wookie_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void wookie_mmap_free(struct rdma_user_mmap_entry *rdma);

#endif /* WOOKIE_H */
