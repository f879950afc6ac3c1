// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Packets between QPs.  A packet holds the RoCEv2 transport headers and
 * payload exactly as they travel in a UDP datagram; for now every packet is
 * delivered to a QP of the sending device, parsed on arrival as if it had
 * come from the wire, so the engine never relies on its sender's memory.
 */
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>

#include "wookie.h"
#include "portable/wookie_link.h"

/* BTH plus the largest set of extended headers (AtomicETH). */
#define WOOKIE_MAX_HDR_BYTES (WOOKIE_BTH_BYTES + WOOKIE_MAX_EXT_HDR_BYTES)

struct wookie_pkt *wookie_pkt_alloc(u32 payload_len, gfp_t gfp)
{
	u32 cap = WOOKIE_MAX_HDR_BYTES + payload_len + 3;
	struct wookie_pkt *pkt;

	pkt = kmalloc(struct_size(pkt, data, cap), gfp);
	if (!pkt)
		return NULL;
	INIT_LIST_HEAD(&pkt->list);
	pkt->cap = cap;
	pkt->len = 0;
	return pkt;
}

void wookie_pkt_free(struct wookie_pkt *pkt)
{
	kfree(pkt);
}

struct wookie_pkt *wookie_pkt_build(struct wookie_qp *qp,
				    struct wookie_hdrs *h, u32 payload_len)
{
	u32 pad = (4 - (payload_len & 3)) & 3;
	struct wookie_pkt *pkt;
	int hdr_len;

	h->bth.pkey = IB_DEFAULT_PKEY_FULL;
	h->bth.tver = 0;
	h->bth.pad = pad;
	h->payload_len = payload_len;
	pkt = wookie_pkt_alloc(payload_len, GFP_KERNEL | __GFP_NOWARN);
	if (!pkt)
		return NULL;
	hdr_len = wookie_hdrs_build(pkt->data, pkt->cap, h);
	if (hdr_len < 0) {
		wookie_pkt_free(pkt);
		return NULL;
	}
	h->hdr_len = hdr_len;
	pkt->hdrs = *h;
	memset(pkt->data + hdr_len + payload_len, 0, pad);
	pkt->len = hdr_len + payload_len + pad;
	return pkt;
}

/* Queue a packet on its QP, as the receive path of the wire will. */
static void wookie_net_receive(struct wookie_dev *wdev,
			       struct wookie_pkt *pkt)
{
	struct wookie_hdrs *h = &pkt->hdrs;
	enum ib_qp_state state;
	struct wookie_qp *qp;
	unsigned long flags;

	if (wookie_hdrs_parse(pkt->data, pkt->len, h)) {
		atomic64_inc(&wdev->rx_bad_hdr);
		goto drop;
	}
	/* The only P_Key is the default one; membership bit aside. */
	if ((h->bth.pkey & 0x7fff) != (IB_DEFAULT_PKEY_FULL & 0x7fff)) {
		atomic64_inc(&wdev->rx_bad_pkey);
		goto drop;
	}
	qp = wookie_qp_get(wdev, h->bth.dest_qp);
	if (!qp) {
		atomic64_inc(&wdev->rx_no_qp);
		goto drop;
	}
	if ((h->bth.opcode & WOOKIE_TRANSPORT_MASK) !=
	    wookie_transport_of(qp->kind)) {
		atomic64_inc(&wdev->rx_bad_hdr);
		goto drop_put;
	}

	spin_lock_irqsave(&qp->lock, flags);
	state = qp->state;
	if (state == IB_QPS_RESET || state == IB_QPS_INIT ||
	    state == IB_QPS_ERR || qp->num_inbound >= WOOKIE_MAX_INBOUND_PKTS) {
		spin_unlock_irqrestore(&qp->lock, flags);
		atomic64_inc(&wdev->rx_qp_busy);
		goto drop_put;
	}
	qp->num_inbound++;
	if (h->flags & WOOKIE_OPF_RESPONSE)
		list_add_tail(&pkt->list, &qp->resp_pkts);
	else
		list_add_tail(&pkt->list, &qp->req_pkts);
	spin_unlock_irqrestore(&qp->lock, flags);
	wookie_qp_run(qp);
	wookie_qp_put(qp);
	return;

drop_put:
	wookie_qp_put(qp);
drop:
	atomic64_inc(&wdev->rx_dropped);
	wookie_pkt_free(pkt);
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

	pkt->sgid = av->sgid;
	pkt->dgid = av->dgid;
	pkt->network_type = av->network_type;
	/* Until packets go on the network, only local QPs are reachable. */
	if (!av->local) {
		atomic64_inc(&wdev->tx_no_route);
		wookie_pkt_free(pkt);
		return;
	}
	wookie_net_receive(wdev, pkt);
}
