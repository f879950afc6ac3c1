// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Packets: built by the requester and the responder (sk_buffs, except
 * between QPs on the local path, whose small packets live in their
 * descriptor and large payloads stay in the sender's MR), and their
 * delivery to a QP, whether they come from a QP of the same device or
 * from the wire (wookie_net.c).  Either way a packet is parsed on arrival
 * as if it had come from the network, so the engine never relies on its
 * sender's memory.
 */
#include <linux/error-injection.h>
#include <linux/local_lock.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/skbuff.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>

#include "wookie.h"
#include "wookie_trace.h"
#include "portable/wookie_psn.h"
#include "portable/wookie_icrc.h"

/* The three objects a packet may be made of, each from its own cache. */
enum wookie_pkt_kind {
	/* A descriptor around an sk_buff. */
	WOOKIE_PKT_SKB,
	/* A descriptor with the packet in it (the local path). */
	WOOKIE_PKT_BUF,
	/* The MR segments of a payload sent by reference (the local path). */
	WOOKIE_PKT_REF,
	WOOKIE_PKT_KINDS,
};

static struct kmem_cache *wookie_pkt_caches[WOOKIE_PKT_KINDS];

/*
 * Freed packet objects, kept per CPU for the next packet: a round trip
 * allocated and freed three or four of them, and the slab allocator
 * zeroes each object it hands out (init_on_alloc, on in Debian's
 * kernels), the largest item of the kernel's share in the local latency
 * profiles.  A local_lock with irqs off: packets are built and freed in
 * system calls, kworkers and softirqs.
 */
#define WOOKIE_PKT_STASH_MAX 16

struct wookie_pkt_stash {
	local_lock_t lock;
	unsigned int count[WOOKIE_PKT_KINDS];
	void *obj[WOOKIE_PKT_KINDS][WOOKIE_PKT_STASH_MAX];
};

static DEFINE_PER_CPU(struct wookie_pkt_stash, wookie_pkt_stash) = {
	.lock = INIT_LOCAL_LOCK(lock),
};

/*
 * Not under KASAN or KMSAN, which should see every use after free of a
 * packet, nor with init_on_free, whose freed bytes (user data) must go.
 */
static bool wookie_pkt_stash_on(void)
{
	return !IS_ENABLED(CONFIG_KASAN) && !IS_ENABLED(CONFIG_KMSAN) &&
	       !want_init_on_free();
}

static void *wookie_pkt_obj_alloc(enum wookie_pkt_kind kind, gfp_t gfp)
{
	struct wookie_pkt_stash *stash;
	unsigned long flags;
	void *obj = NULL;

	if (!wookie_pkt_stash_on())
		return kmem_cache_alloc(wookie_pkt_caches[kind], gfp);
	local_lock_irqsave(&wookie_pkt_stash.lock, flags);
	stash = this_cpu_ptr(&wookie_pkt_stash);
	if (stash->count[kind])
		obj = stash->obj[kind][--stash->count[kind]];
	local_unlock_irqrestore(&wookie_pkt_stash.lock, flags);
	return obj ?: kmem_cache_alloc(wookie_pkt_caches[kind], gfp);
}

static void wookie_pkt_obj_free(enum wookie_pkt_kind kind, void *obj)
{
	struct wookie_pkt_stash *stash;
	unsigned long flags;

	if (!wookie_pkt_stash_on()) {
		kmem_cache_free(wookie_pkt_caches[kind], obj);
		return;
	}
	local_lock_irqsave(&wookie_pkt_stash.lock, flags);
	stash = this_cpu_ptr(&wookie_pkt_stash);
	if (stash->count[kind] < WOOKIE_PKT_STASH_MAX) {
		stash->obj[kind][stash->count[kind]++] = obj;
		obj = NULL;
	}
	local_unlock_irqrestore(&wookie_pkt_stash.lock, flags);
	if (obj)
		kmem_cache_free(wookie_pkt_caches[kind], obj);
}

/*
 * Off: packets between QPs of one device go through the UDP socket too
 * (out and back in through the loopback device), so whatever runs on one
 * device also tests the wire's encapsulation, ICRC and receive path, and
 * tcpdump on "lo" sees the traffic.  Read per packet: it may change at
 * any time.
 */
static bool local_path = true;
module_param(local_path, bool, 0644);
MODULE_PARM_DESC(local_path,
		 "Deliver packets between QPs of one device directly, without UDP (default: on)");

bool wookie_local_path(void)
{
	return READ_ONCE(local_path);
}

int wookie_pkt_cache_init(void)
{
	struct kmem_cache **c = wookie_pkt_caches;

	c[WOOKIE_PKT_SKB] = KMEM_CACHE(wookie_pkt, 0);
	c[WOOKIE_PKT_BUF] = kmem_cache_create("wookie_pkt_buf",
					      sizeof(struct wookie_pkt) +
					      WOOKIE_PKT_BUF_BYTES,
					      0, 0, NULL);
	c[WOOKIE_PKT_REF] = KMEM_CACHE(wookie_pkt_ref, 0);
	if (!c[WOOKIE_PKT_SKB] || !c[WOOKIE_PKT_BUF] || !c[WOOKIE_PKT_REF]) {
		wookie_pkt_cache_exit();
		return -ENOMEM;
	}
	return 0;
}

/* After the last device: no packet is left but those in the stashes. */
void wookie_pkt_cache_exit(void)
{
	struct wookie_pkt_stash *stash;
	unsigned int n;
	int cpu, kind;

	for_each_possible_cpu(cpu) {
		stash = per_cpu_ptr(&wookie_pkt_stash, cpu);
		for (kind = 0; kind < WOOKIE_PKT_KINDS; kind++) {
			while (stash->count[kind]) {
				n = --stash->count[kind];
				kmem_cache_free(wookie_pkt_caches[kind],
						stash->obj[kind][n]);
			}
		}
	}
	for (kind = 0; kind < WOOKIE_PKT_KINDS; kind++) {
		kmem_cache_destroy(wookie_pkt_caches[kind]);
		wookie_pkt_caches[kind] = NULL;
	}
}

static void wookie_pkt_init(struct wookie_pkt *pkt, struct sk_buff *skb,
			    u8 *data, u32 len)
{
	INIT_LIST_HEAD(&pkt->list);
	pkt->ref = NULL;
	pkt->skb = skb;
	pkt->data = data;
	pkt->len = len;
	pkt->in_buf = !skb;
	pkt->local = false;
}

noinline struct wookie_pkt *wookie_pkt_wrap(struct sk_buff *skb, u32 len,
					   gfp_t gfp)
{
	struct wookie_pkt *pkt;

	pkt = wookie_pkt_obj_alloc(WOOKIE_PKT_SKB, gfp);
	if (pkt)
		wookie_pkt_init(pkt, skb, skb->data, len);
	return pkt;
}

/* tests/vm/faults.sh fails it: a received packet is dropped. */
ALLOW_ERROR_INJECTION(wookie_pkt_wrap, NULL);

/*
 * A packet between QPs of one device needs no sk_buff: allocating,
 * zeroing and freeing one per packet and per ACK was the largest item of
 * the kernel's share in the local latency profiles.
 */
static struct wookie_pkt *wookie_pkt_alloc_buf(u32 len, gfp_t gfp)
{
	struct wookie_pkt *pkt;

	pkt = wookie_pkt_obj_alloc(WOOKIE_PKT_BUF, gfp);
	if (pkt)
		wookie_pkt_init(pkt, NULL, pkt->buf, len);
	return pkt;
}

struct wookie_pkt *wookie_pkt_alloc(struct wookie_dev *wdev, u32 len,
				    gfp_t gfp)
{
	/* The largest of the headers wookie_udp_xmit() puts in front. */
	unsigned int headroom = LL_RESERVED_SPACE(wdev->ndev) +
				sizeof(struct ipv6hdr) + sizeof(struct udphdr);
	struct wookie_pkt *pkt;
	struct sk_buff *skb;

	skb = alloc_skb(headroom + len + WOOKIE_ICRC_BYTES, gfp);
	if (!skb)
		return NULL;
	skb_reserve(skb, headroom);
	skb_put(skb, len);
	pkt = wookie_pkt_wrap(skb, len, gfp);
	if (!pkt)
		kfree_skb(skb);
	return pkt;
}

void wookie_pkt_free(struct wookie_pkt *pkt)
{
	struct wookie_pkt_ref *ref = pkt->ref;
	u32 i;

	if (ref) {
		for (i = 0; i < ref->num_segs; i++)
			wookie_mr_put(ref->seg[i].mr);
		wookie_pkt_obj_free(WOOKIE_PKT_REF, ref);
	}
	if (pkt->in_buf) {
		wookie_pkt_obj_free(WOOKIE_PKT_BUF, pkt);
		return;
	}
	consume_skb(pkt->skb);
	wookie_pkt_obj_free(WOOKIE_PKT_SKB, pkt);
}

/*
 * Where a packet with @psn goes in @list, which the reorder buffers keep
 * in PSN order: the entry to insert it before (the head when it goes
 * last), or NULL when the list holds that PSN already.
 */
struct list_head *wookie_pkt_list_pos(struct list_head *list, u32 psn)
{
	struct wookie_pkt *pos;
	int d;

	list_for_each_entry(pos, list, list) {
		d = wookie_psn_diff(psn, pos->hdrs.bth.psn);
		if (!d)
			return NULL;
		if (d < 0)
			return &pos->list;
	}
	return list;
}

/* Free every packet on @list (linked by pkt->list). */
void wookie_pkt_free_list(struct list_head *list)
{
	struct wookie_pkt *pkt, *next;

	list_for_each_entry_safe(pkt, next, list, list) {
		list_del(&pkt->list);
		wookie_pkt_free(pkt);
	}
}

/*
 * The engine's allocations: a run in a softirq may not sleep.  Only the
 * engine builds packets, with qp->runner set; without one, assume the
 * worst.  A kernel consumer's QP may carry the very writeback that
 * reclaim waits for (NVMe-oF, iSER, NFS over RDMA, swap on them): its
 * packets never wait for reclaim that does I/O or enters a file system.
 */
static gfp_t wookie_engine_gfp(const struct wookie_qp *qp)
{
	gfp_t gfp = qp->runner ? qp->runner->gfp : GFP_ATOMIC;

	if (!qp->user)
		gfp &= ~(__GFP_IO | __GFP_FS);
	return gfp | __GFP_NOWARN;
}

/*
 * Without a wait for reclaim first: under voluntary preemption an
 * allocation that may sleep is where a busy host's scheduler takes the
 * CPU from a doorbell's system call, in the middle of a round trip whose
 * other half is queued on its runner (milliseconds of latency).  Only
 * when memory is short does the engine wait.
 */
static gfp_t wookie_engine_gfp_nowait(gfp_t gfp)
{
	return gfp & ~__GFP_DIRECT_RECLAIM;
}

/* Out of line: tests/vm/faults.sh fails it, on both paths. */
static noinline struct wookie_pkt *wookie_pkt_new(struct wookie_qp *qp,
						  u32 len, gfp_t gfp)
{
	/* Only a QP on the local path is sure to keep to it (net_xmit). */
	if (qp->local && len <= WOOKIE_PKT_BUF_BYTES)
		return wookie_pkt_alloc_buf(len, gfp);
	return wookie_pkt_alloc(to_wookie_dev(qp->ibqp.device), len, gfp);
}

ALLOW_ERROR_INJECTION(wookie_pkt_new, NULL);

struct wookie_pkt *wookie_pkt_build(struct wookie_qp *qp,
				    struct wookie_hdrs *h, u32 payload_len)
{
	u32 pad = (4 - (payload_len & 3)) & 3;
	unsigned int hdr_len = wookie_hdrs_len(h->bth.opcode);
	gfp_t gfp = wookie_engine_gfp(qp);
	struct wookie_pkt *pkt;
	int ret;

	if (!hdr_len)
		return NULL;
	h->bth.pkey = IB_DEFAULT_PKEY_FULL;
	h->bth.tver = 0;
	h->bth.pad = pad;
	h->payload_len = payload_len;
	pkt = wookie_pkt_new(qp, hdr_len + payload_len + pad,
			     wookie_engine_gfp_nowait(gfp));
	if (!pkt && gfpflags_allow_blocking(gfp))
		pkt = wookie_pkt_new(qp, hdr_len + payload_len + pad, gfp);
	if (!pkt) {
		/* The requester retries; a response is lost like on a link. */
		wookie_qp_count(qp, WOOKIE_CNT_SEND_ERR);
		return NULL;
	}
	ret = wookie_hdrs_build(pkt->data, pkt->len, h);
	if (ret < 0) {
		wookie_pkt_free(pkt);
		return NULL;
	}
	h->hdr_len = ret;
	pkt->hdrs = *h;
	memset(pkt->data + hdr_len + payload_len, 0, pad);
	return pkt;
}

struct wookie_pkt *wookie_pkt_build_ref(struct wookie_qp *qp,
					struct wookie_hdrs *h)
{
	struct wookie_pkt *pkt;
	gfp_t gfp;

	/* Headers with no pad: the parse on arrival sees no payload. */
	pkt = wookie_pkt_build(qp, h, 0);
	if (!pkt)
		return NULL;
	gfp = wookie_engine_gfp(qp);
	pkt->ref = wookie_pkt_obj_alloc(WOOKIE_PKT_REF,
					wookie_engine_gfp_nowait(gfp));
	if (!pkt->ref && gfpflags_allow_blocking(gfp))
		pkt->ref = wookie_pkt_obj_alloc(WOOKIE_PKT_REF, gfp);
	if (!pkt->ref) {
		wookie_qp_count(qp, WOOKIE_CNT_SEND_ERR);
		wookie_pkt_free(pkt);
		return NULL;
	}
	pkt->ref->num_segs = 0;
	pkt->ref->len = 0;
	return pkt;
}

/*
 * Parse @pkt's headers and check what does not depend on its QP.  False
 * when it was dropped (freed and counted).
 */
bool wookie_pkt_parse(struct wookie_dev *wdev, struct wookie_pkt *pkt)
{
	struct wookie_hdrs *h = &pkt->hdrs;

	if (wookie_hdrs_parse(pkt->data, pkt->len, h)) {
		wookie_drop(wdev, WOOKIE_CNT_RX_BAD_HDR, NULL);
		goto drop;
	}
	if (pkt->ref) {
		if (!(h->flags & WOOKIE_OPF_PAYLOAD)) {
			wookie_drop(wdev, WOOKIE_CNT_RX_BAD_HDR, &h->bth);
			goto drop;
		}
		h->payload_len = pkt->ref->len;
	}
	/* The only P_Key is the default one; membership bit aside. */
	if ((h->bth.pkey & 0x7fff) != (IB_DEFAULT_PKEY_FULL & 0x7fff)) {
		wookie_drop(wdev, WOOKIE_CNT_RX_BAD_PKEY, &h->bth);
		goto drop;
	}
	return true;

drop:
	wookie_pkt_free(pkt);
	return false;
}

bool wookie_pkt_enqueue(struct wookie_dev *wdev, struct wookie_qp *qp,
			struct wookie_pkt *pkt)
{
	struct wookie_hdrs *h = &pkt->hdrs;
	enum ib_qp_state state;
	unsigned long flags;

	if ((h->bth.opcode & WOOKIE_TRANSPORT_MASK) !=
	    wookie_transport_of(qp->kind)) {
		wookie_qp_drop(qp, WOOKIE_CNT_RX_BAD_HDR, &h->bth);
		goto drop;
	}
	/* An XRC initiator has no responder, a target no requester. */
	if ((qp->kind == WOOKIE_QP_KIND_XRC_INI &&
	     !(h->flags & WOOKIE_OPF_RESPONSE)) ||
	    (qp->kind == WOOKIE_QP_KIND_XRC_TGT &&
	     (h->flags & WOOKIE_OPF_RESPONSE))) {
		wookie_qp_drop(qp, WOOKIE_CNT_RX_BAD_HDR, &h->bth);
		goto drop;
	}
	/*
	 * No link carries more than the path MTU (UD: the port's), nor a
	 * wire packet more than RoCE's largest MTU, even to a QP whose peer
	 * is on this device (the local path's segments are larger).
	 */
	if (h->payload_len > READ_ONCE(qp->mtu_bytes) ||
	    (!pkt->local && h->payload_len > ib_mtu_enum_to_int(IB_MTU_4096))) {
		wookie_qp_drop(qp, WOOKIE_CNT_RX_TOO_LONG, &h->bth);
		goto drop;
	}

	spin_lock_irqsave(&qp->lock, flags);
	state = qp->state;
	if (state == IB_QPS_RESET || state == IB_QPS_INIT ||
	    state == IB_QPS_ERR || qp->num_inbound >= WOOKIE_MAX_INBOUND_PKTS) {
		spin_unlock_irqrestore(&qp->lock, flags);
		wookie_qp_drop(qp, WOOKIE_CNT_RX_QP_BUSY, &h->bth);
		goto drop;
	}
	qp->num_inbound++;
	/*
	 * Traced before it is queued: once it is, the engine on another
	 * CPU may take and free it before this one unlocks.
	 */
	trace_wookie_rx(&wdev->ibdev, h->bth.dest_qp, h->bth.opcode,
			h->bth.psn, h->payload_len, pkt->local);
	if (h->flags & WOOKIE_OPF_RESPONSE) {
		/*
		 * Only the ACK timeout reads it.  Under the lock: the queue
		 * is in order of arrival times.
		 */
		pkt->arrived = ktime_get();
		list_add_tail(&pkt->list, &qp->resp_pkts);
	} else {
		list_add_tail(&pkt->list, &qp->req_pkts);
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	wookie_qp_count(qp, WOOKIE_CNT_RCVD_PKTS);
	return true;

drop:
	wookie_pkt_free(pkt);
	return false;
}

struct wookie_qp *wookie_pkt_deliver(struct wookie_dev *wdev,
				     struct wookie_pkt *pkt)
{
	struct wookie_qp *qp;

	if (!wookie_pkt_parse(wdev, pkt))
		return NULL;
	qp = wookie_qp_get(wdev, pkt->hdrs.bth.dest_qp);
	if (!qp) {
		wookie_drop(wdev, WOOKIE_CNT_RX_NO_QP, &pkt->hdrs.bth);
		wookie_pkt_free(pkt);
		return NULL;
	}
	if (!wookie_pkt_enqueue(wdev, qp, pkt)) {
		wookie_qp_put(qp);
		return NULL;
	}
	return qp;
}

/*
 * Another packet with @pkt's bytes (shared, read only) and its decode,
 * for one more QP of a multicast group.  Received packets only.
 */
struct wookie_pkt *wookie_pkt_clone(const struct wookie_pkt *pkt, gfp_t gfp)
{
	struct wookie_pkt *copy;
	struct sk_buff *skb;

	if (WARN_ON_ONCE(!pkt->skb || pkt->ref))
		return NULL;
	skb = skb_clone(pkt->skb, gfp);
	if (!skb)
		return NULL;
	copy = wookie_pkt_wrap(skb, pkt->len, gfp);
	if (!copy) {
		kfree_skb(skb);
		return NULL;
	}
	/* A clone's data is the same buffer at the same address. */
	copy->data = pkt->data;
	copy->sgid = pkt->sgid;
	copy->dgid = pkt->dgid;
	copy->network_type = pkt->network_type;
	copy->hop_limit = pkt->hop_limit;
	copy->traffic_class = pkt->traffic_class;
	copy->flow_label = pkt->flow_label;
	copy->hdrs = pkt->hdrs;
	copy->local = pkt->local;
	return copy;
}

/* Is @gid one of this device's addresses (a destination we can reach)? */
bool wookie_gid_is_local(struct wookie_dev *wdev, const union ib_gid *gid)
{
	const struct ib_gid_attr *attr;

	attr = rdma_find_gid_by_port(&wdev->ibdev, gid,
				     IB_GID_TYPE_ROCE_UDP_ENCAP, 1, NULL);
	if (IS_ERR(attr))
		return false;
	rdma_put_gid_attr(attr);
	return true;
}

void wookie_net_xmit(struct wookie_qp *qp, const struct wookie_av *av,
		     struct wookie_pkt *pkt)
{
	struct wookie_dev *wdev = to_wookie_dev(qp->ibqp.device);
	struct wookie_qp *dest;

	/*
	 * A QP on the local path keeps to it whatever local_path says now:
	 * its packets must not overtake each other.
	 */
	if (!av->local || (!qp->local && !READ_ONCE(local_path))) {
		/*
		 * A payload by reference exists on this device only; a
		 * packet without an sk_buff cannot be sent either.
		 */
		if (pkt->ref || pkt->in_buf) {
			wookie_qp_count(qp, WOOKIE_CNT_SEND_ERR);
			wookie_pkt_free(pkt);
			return;
		}
		trace_wookie_tx(&wdev->ibdev, qp->ibqp.qp_num,
				pkt->hdrs.bth.opcode, pkt->hdrs.bth.psn,
				pkt->hdrs.payload_len, false);
		wookie_udp_xmit(qp, av, pkt);
		return;
	}
	/* What the IP header would have said. */
	pkt->sgid = av->sgid;
	pkt->dgid = av->dgid;
	pkt->network_type = av->network_type;
	pkt->hop_limit = av->hop_limit;
	pkt->traffic_class = av->traffic_class;
	pkt->flow_label = av->flow_label;
	pkt->local = true;
	wookie_qp_count(qp, WOOKIE_CNT_SENT_PKTS);
	trace_wookie_tx(&wdev->ibdev, qp->ibqp.qp_num, pkt->hdrs.bth.opcode,
			pkt->hdrs.bth.psn, pkt->hdrs.payload_len, true);
	dest = wookie_pkt_deliver(wdev, pkt);
	if (dest) {
		wookie_qp_schedule(qp, dest);
		wookie_qp_put(dest);
	}
}
