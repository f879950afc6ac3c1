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
#include <rdma/ib_user_ioctl_cmds.h>

/*
 * Bumped on every incompatible change.  The kernel reports it as the uverbs
 * ABI version of the device and in the sysfs attribute below; the provider
 * refuses a device whose version differs from its own.
 */
#define WOOKIE_ABI_VERSION 3

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
 * doorbell page, mapped read-only with length db_page_size.  caps holds
 * WOOKIE_CAP_* bits: what this kernel offers beyond its ABI version, so
 * that an addition needs no new version; a provider uses a feature only
 * if its bit is set and ignores bits it does not know.
 */
struct wookie_alloc_ucontext_resp {
	__u32 abi_version;
	__u32 db_page_size;
	__aligned_u64 db_page_key;
	__aligned_u64 caps;
};

/* Device memory: ibv_alloc_dm() answers with struct wookie_alloc_dm_resp. */
#define WOOKIE_CAP_DM (1ULL << 0)
/* IBTA 1.5: WOOKIE_WR_ATOMIC_WRITE and WOOKIE_WR_FLUSH WQEs are executed. */
#define WOOKIE_CAP_ATOMIC_WRITE_FLUSH (1ULL << 1)

/*
 * ibv_import_device(): UVERBS_METHOD_QUERY_CONTEXT answers in this driver
 * attribute with the context's struct wookie_alloc_ucontext_resp, so that
 * a process given the uverbs file maps the same doorbell page.
 */
#define WOOKIE_ATTR_QUERY_CONTEXT_RESP (1U << UVERBS_ID_NS_SHIFT)

/*
 * Device memory.  ibv_alloc_dm() is an ioctl with no driver data of its
 * own: the kernel answers in this driver attribute of
 * UVERBS_METHOD_DM_ALLOC (ID namespace 1, as drivers' attributes are).
 * The memory is mapped read-write, shared, at key with length map_size
 * (length rounded up to pages).  Copies to and from it (memcpy_to_dm,
 * memcpy_from_dm) take offsets and lengths that are multiples of
 * WOOKIE_DM_ALIGN, inside the length asked for.
 */
#define WOOKIE_ATTR_ALLOC_DM_RESP (1U << UVERBS_ID_NS_SHIFT)
#define WOOKIE_DM_ALIGN 4

struct wookie_alloc_dm_resp {
	__aligned_u64 key;
	__aligned_u64 map_size;
};

/*
 * ibv_import_dm(): the driver method WOOKIE_METHOD_DM_QUERY on a DM's
 * handle (WOOKIE_ATTR_QUERY_DM_HANDLE) answers with its mapping and the
 * length it was allocated with.
 */
/*
 * ibv_import_pd(): the driver method WOOKIE_METHOD_PD_QUERY checks that
 * the handle (WOOKIE_ATTR_QUERY_PD_HANDLE) names a PD of the context; a
 * PD has nothing else to tell.
 */
enum wookie_pd_methods {
	WOOKIE_METHOD_PD_QUERY = (1U << UVERBS_ID_NS_SHIFT),
};

enum wookie_pd_query_attrs {
	WOOKIE_ATTR_QUERY_PD_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
};

enum wookie_dm_methods {
	WOOKIE_METHOD_DM_QUERY = (1U << UVERBS_ID_NS_SHIFT),
};

enum wookie_dm_query_attrs {
	WOOKIE_ATTR_QUERY_DM_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
	WOOKIE_ATTR_QUERY_DM_RESP,
};

struct wookie_query_dm_resp {
	__aligned_u64 key;
	__aligned_u64 map_size;
	__aligned_u64 length;
};

/*
 * The doorbell page: one per user context, written by the kernel, read by
 * the provider, page sized so that later per-context words can be added
 * without changing the mapping.  ABI 3 defines none (the NEED_WAKEUP flag
 * of ABI 2 is per SQ now, WOOKIE_RING_NEED_WAKEUP): the words read 0.
 */
struct wookie_db_page {
	__u32 flags;
	__u32 reserved[15];
};

/*
 * Rings.  Every queue (SQ, RQ, SRQ, CQ) is one memory area that the kernel
 * allocates and the provider maps read-write with the key of the create
 * response: a struct wookie_ring_hdr, then num_entries slots of "stride"
 * bytes.  num_entries is a power of two.  Indices are free-running 32-bit
 * counters; slot = index & (num_entries - 1).
 *
 * SQ, RQ, SRQ: the provider produces (writes the slot, then stores producer
 * with release semantics), the kernel consumes and advances consumer when a
 * slot may be reused.  CQ: the kernel produces, the provider consumes.  The
 * kernel never trusts a value it reads from a ring: an index out of range
 * or a malformed WQE moves only that queue's QP to the error state.
 */
struct wookie_ring_hdr {
	/* Own cache lines: producer and consumer run on different CPUs. */
	__u32 producer;
	__u32 reserved0[15];
	__u32 consumer;
	__u32 reserved1[15];
	/* CQ: WOOKIE_CQ_ARM_* stored by the provider, cleared by the kernel. */
	__u32 arm;
	__u32 reserved2[15];
	/* Kernel-written WOOKIE_RING_* status bits. */
	__u32 flags;
	__u32 reserved3[15];
};

#define WOOKIE_RING_HDR_SIZE 256

/* wookie_ring_hdr.arm: request an event for the next completion... */
#define WOOKIE_CQ_ARM_NEXT (1U << 0)
/* ... or for the next solicited (or failed) one. */
#define WOOKIE_CQ_ARM_SOLICITED (1U << 1)

/* wookie_ring_hdr.flags: the kernel found the ring corrupted. */
#define WOOKIE_RING_ERROR (1U << 0)
/*
 * The QP is in the error state: WQEs posted now complete with a flush
 * error once the provider rings the doorbell (post_send, or a post_recv
 * command with no WR), which it otherwise never does for receives.
 */
#define WOOKIE_RING_FLUSH (1U << 1)
/*
 * SQ: the engine does not watch this SQ now; a WQE posted makes it run
 * only with a doorbell (post_send with no WR).  The provider publishes
 * the producer index, then a full fence, then reads this flag; the
 * engine sets it, then a full fence, then reads the producer (the
 * io_uring SQPOLL handshake).  Clear while the kernel's SQ poller watches
 * the SQ: posts then make no system call at all.
 */
#define WOOKIE_RING_NEED_WAKEUP (1U << 2)

/* A scatter/gather element, of WQEs and receive WQEs. */
struct wookie_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/* wookie_sqe.opcode */
enum wookie_wr_opcode {
	WOOKIE_WR_SEND = 0,
	WOOKIE_WR_SEND_WITH_IMM = 1,
	WOOKIE_WR_SEND_WITH_INV = 2,
	WOOKIE_WR_RDMA_WRITE = 3,
	WOOKIE_WR_RDMA_WRITE_WITH_IMM = 4,
	WOOKIE_WR_RDMA_READ = 5,
	WOOKIE_WR_ATOMIC_CMP_AND_SWP = 6,
	WOOKIE_WR_ATOMIC_FETCH_AND_ADD = 7,
	WOOKIE_WR_LOCAL_INV = 8,
	WOOKIE_WR_BIND_MW = 9,
	/* Kernel consumers only (IB_WR_REG_MR): never valid on a user ring. */
	WOOKIE_WR_REG_MR = 10,
	/* IBTA 1.5, RC and XRC; only with WOOKIE_CAP_ATOMIC_WRITE_FLUSH. */
	WOOKIE_WR_ATOMIC_WRITE = 11,
	WOOKIE_WR_FLUSH = 12,
	WOOKIE_WR_NUM_OPCODES
};

/* wookie_sqe.flags */
#define WOOKIE_WQE_SIGNALED (1U << 0)
#define WOOKIE_WQE_SOLICITED (1U << 1)
#define WOOKIE_WQE_FENCE (1U << 2)
/* The payload follows the header as bytes, not as SGEs. */
#define WOOKIE_WQE_INLINE (1U << 3)

/*
 * A send queue WQE: this header, then num_sge struct wookie_sge or, with
 * WOOKIE_WQE_INLINE, inline_len bytes of data.  The slot size (stride) of
 * the SQ holds the largest of both the QP was created with.
 */
struct wookie_sqe {
	__aligned_u64 wr_id;
	__u8 opcode;
	__u8 flags;
	__u16 num_sge;
	/* Immediate data (big endian, as in ibv_send_wr) or the rkey to
	 * invalidate (SEND_WITH_INV, LOCAL_INV).
	 */
	__u32 ex;
	__u32 inline_len;
	/*
	 * XRC_SEND QPs: the XRC SRQ number at the target, below 2^24
	 * (ibv_send_wr.qp_type.xrc.remote_srqn).  0 on other QPs.
	 */
	__u32 xrc_srqn;
	union {
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 reserved;
		} rdma;
		struct {
			__aligned_u64 remote_addr;
			__aligned_u64 compare_add;
			__aligned_u64 swap;
			__u32 rkey;
			__u32 reserved;
		} atomic;
		struct {
			/* From the create_ah response. */
			__u32 ah_num;
			__u32 remote_qpn;
			__u32 remote_qkey;
			__u32 reserved;
		} ud;
		struct {
			__aligned_u64 remote_addr;
			/*
			 * The 8 bytes to write, as they are to land in the
			 * remote memory (no byte order applied).
			 */
			__u8 data[8];
			__u32 rkey;
			__u32 reserved;
		} atomic_write;
		struct {
			/* The range; ignored with WOOKIE_FLUSH_LEVEL_MR. */
			__aligned_u64 remote_addr;
			__u32 length;
			__u32 rkey;
			/* WOOKIE_FLUSH_GLOBAL and/or WOOKIE_FLUSH_PERSISTENT */
			__u8 type;
			/* WOOKIE_FLUSH_LEVEL_* */
			__u8 level;
			__u8 reserved[6];
		} flush;
		struct {
			__aligned_u64 addr;
			__aligned_u64 length;
			/* The rkey the window gets. */
			__u32 rkey;
			/* Window to bind, and the MR it is bound to. */
			__u32 mw_rkey;
			__u32 mr_lkey;
			/* IBV_ACCESS_* of the window. */
			__u32 access;
		} bind;
		struct {
			/* An MR of the kernel consumer, mapped by map_mr_sg. */
			__u32 lkey;
			__u32 key;
			__u32 access;
			__u32 reserved;
		} reg;
		__u8 raw[40];
	};
};

/*
 * wookie_sqe.flush: the placement type and the selectivity level, the
 * values of the FETH (IBTA 1.5), ibv_wr_flush()'s and the kernel's
 * IB_FLUSH_*.
 */
#define WOOKIE_FLUSH_GLOBAL (1U << 0)
#define WOOKIE_FLUSH_PERSISTENT (1U << 1)
#define WOOKIE_FLUSH_LEVEL_RANGE 0
#define WOOKIE_FLUSH_LEVEL_MR 1

/* A receive WQE, on an RQ or SRQ: this header, then num_sge SGEs. */
struct wookie_rqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
};

/* wookie_cqe.opcode */
enum wookie_cqe_opcode {
	WOOKIE_CQE_SEND = 0,
	WOOKIE_CQE_RDMA_WRITE = 1,
	WOOKIE_CQE_RDMA_READ = 2,
	WOOKIE_CQE_COMP_SWAP = 3,
	WOOKIE_CQE_FETCH_ADD = 4,
	WOOKIE_CQE_BIND_MW = 5,
	WOOKIE_CQE_LOCAL_INV = 6,
	WOOKIE_CQE_REG_MR = 7,
	WOOKIE_CQE_RECV = 8,
	WOOKIE_CQE_RECV_RDMA_WITH_IMM = 9,
	WOOKIE_CQE_ATOMIC_WRITE = 10,
	WOOKIE_CQE_FLUSH = 11,
};

/* wookie_cqe.flags */
#define WOOKIE_CQE_WITH_IMM (1U << 0)
#define WOOKIE_CQE_WITH_INV (1U << 1)
#define WOOKIE_CQE_GRH (1U << 2)
#define WOOKIE_CQE_SOLICITED (1U << 3)
/*
 * Never written by the kernel: the provider marks the CQEs of a QP it
 * resets, which its poll then skips (as mlx5 cleans its CQs on reset).
 */
#define WOOKIE_CQE_DISCARDED (1U << 7)

/* wookie_cqe.network_hdr_type, for UD receives with a GRH */
#define WOOKIE_NETWORK_IPV4 1
#define WOOKIE_NETWORK_IPV6 2

/* A completion.  status is an enum ibv_wc_status value. */
struct wookie_cqe {
	__aligned_u64 wr_id;
	__u8 status;
	__u8 opcode;
	__u8 flags;
	__u8 network_hdr_type;
	__u32 byte_len;
	/* Immediate data (big endian) or the invalidated rkey. */
	__u32 ex;
	__u32 qp_num;
	__u32 src_qp;
	__u32 vendor_err;
	__u16 pkey_index;
	__u8 sl;
	__u8 reserved0;
	__u32 reserved1;
	/* CLOCK_MONOTONIC nanoseconds when the CQE was written. */
	__aligned_u64 timestamp;
	__aligned_u64 reserved2[2];
};

/* Ring geometry in create responses: where to map and how to index. */
struct wookie_ring_info {
	__aligned_u64 key;
	__u32 map_size;
	__u32 num_entries;
	__u32 stride;
	__u32 reserved;
};

/* ibv_create_cq(): the CQ ring, stride sizeof(struct wookie_cqe). */
struct wookie_create_cq_resp {
	struct wookie_ring_info cq;
};

/* ibv_resize_cq(): a new ring replaces the old one, unconsumed CQEs
 * copied over; the old mapping stays valid until unmapped.
 */
struct wookie_resize_cq_resp {
	struct wookie_ring_info cq;
};

/*
 * ibv_create_qp(): an RQ ring unless the QP uses an SRQ.  The SQ stride
 * holds max_send_sge SGEs and max_inline_data bytes, both returned in the
 * core response as granted.
 */
struct wookie_create_qp_resp {
	struct wookie_ring_info sq;
	struct wookie_ring_info rq;
	__u32 qp_num;
	__u32 reserved;
};

/* ibv_create_srq() */
struct wookie_create_srq_resp {
	struct wookie_ring_info srq;
};

/*
 * ibv_modify_srq() with IBV_SRQ_MAX_WR.  The write command has no response,
 * so the kernel writes a struct wookie_modify_srq_resp to resp_addr (the
 * caller's memory) before the new ring replaces the old one.  The WQEs not
 * taken yet are copied over at the same free-running indices: the provider
 * keeps its producer index, maps the new ring and unmaps the old one, with
 * its posters held off meanwhile.  Without IBV_SRQ_MAX_WR the request is
 * empty or zero.
 */
struct wookie_modify_srq_req {
	__aligned_u64 resp_addr;
};

struct wookie_modify_srq_resp {
	struct wookie_ring_info srq;
};

/* ibv_create_ah(): the number a UD WQE names the AH with. */
struct wookie_create_ah_resp {
	__u32 ah_num;
	__u32 reserved;
};

/* Sizes of a send slot and a receive slot for a number of SGEs. */
#define WOOKIE_SQE_SIZE(nsge) \
	(sizeof(struct wookie_sqe) + (nsge) * sizeof(struct wookie_sge))
#define WOOKIE_RQE_SIZE(nsge) \
	(sizeof(struct wookie_rqe) + (nsge) * sizeof(struct wookie_sge))

#endif /* WOOKIE_ABI_USER_H */
