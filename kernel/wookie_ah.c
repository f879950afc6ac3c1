// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Address handles and address vectors.  A UD WQE names its AH by the
 * number the create response gave (ah_num), so AHs live in an xarray the
 * requester looks them up in; the AV is copied out under the xarray lock,
 * which destroy_ah also takes, so the AH may go away right after.
 */
#include <net/ipv6.h>

#include "wookie.h"

/* The IPv6 flow label field. */
#define WOOKIE_FLOW_LABEL_MASK 0xfffff
/* The largest service level. */
#define WOOKIE_MAX_SL 15

int wookie_av_from_attr(struct wookie_dev *wdev, struct wookie_av *av,
			const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh;
	const struct ib_gid_attr *sgid_attr;
	int net_type;
	bool sgid_v4, dgid_v4;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);
	sgid_attr = grh->sgid_attr;
	/* RoCEv2 only: the packets are UDP/IP. */
	if (!sgid_attr || sgid_attr->device != &wdev->ibdev ||
	    sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;
	if (grh->flow_label & ~WOOKIE_FLOW_LABEL_MASK ||
	    rdma_ah_get_sl(attr) > WOOKIE_MAX_SL)
		return -EINVAL;

	/* Source and destination must be of the same IP version. */
	net_type = rdma_gid_attr_network_type(sgid_attr);
	sgid_v4 = net_type == RDMA_NETWORK_IPV4;
	dgid_v4 = ipv6_addr_v4mapped((const struct in6_addr *)grh->dgid.raw);
	if (sgid_v4 != dgid_v4)
		return -EINVAL;

	memset(av, 0, sizeof(*av));
	av->sgid = sgid_attr->gid;
	av->dgid = grh->dgid;
	av->sgid_index = sgid_attr->index;
	av->flow_label = grh->flow_label;
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	av->sl = rdma_ah_get_sl(attr);
	av->network_type = net_type;
	memcpy(av->dmac, attr->roce.dmac, ETH_ALEN);
	/* Once here rather than per packet or WQE. */
	av->local = wookie_gid_is_local(wdev, &av->dgid);
	return 0;
}

void wookie_av_to_attr(const struct wookie_av *av, struct rdma_ah_attr *attr)
{
	union ib_gid dgid = av->dgid;

	memset(attr, 0, sizeof(*attr));
	attr->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(attr, 1);
	rdma_ah_set_sl(attr, av->sl);
	rdma_ah_set_grh(attr, &dgid, av->flow_label, av->sgid_index,
			av->hop_limit, av->traffic_class);
	memcpy(attr->roce.dmac, av->dmac, ETH_ALEN);
}

int wookie_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		     struct ib_udata *udata)
{
	struct wookie_dev *wdev = to_wookie_dev(ibah->device);
	struct wookie_ah *ah = to_wookie_ah(ibah);
	struct wookie_create_ah_resp resp = {};
	gfp_t gfp = init->flags & RDMA_CREATE_AH_SLEEPABLE ? GFP_KERNEL :
							    GFP_ATOMIC;
	unsigned long flags;
	int err;

	if (udata) {
		if (udata->outlen < sizeof(resp))
			return -EINVAL;
		/* No request structure is defined: anything sent must be 0. */
		if (!ib_is_udata_cleared(udata, 0, udata->inlen))
			return -EOPNOTSUPP;
	}
	err = wookie_av_from_attr(wdev, &ah->av, init->ah_attr);
	if (err)
		return err;

	if (atomic_inc_return(&wdev->num_ah) > WOOKIE_MAX_AH) {
		err = -ENOMEM;
		goto err_count;
	}
	/*
	 * Callers that cannot sleep may also have interrupts off: irqsave,
	 * and with GFP_ATOMIC __xa_alloc() never drops the lock.
	 */
	xa_lock_irqsave(&wdev->ahs, flags);
	err = __xa_alloc(&wdev->ahs, &ah->ah_num, ah,
			 XA_LIMIT(1, WOOKIE_MAX_AH), gfp);
	xa_unlock_irqrestore(&wdev->ahs, flags);
	if (err)
		goto err_count;

	if (udata) {
		resp.ah_num = ah->ah_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_erase;
	}
	return 0;

err_erase:
	xa_lock_irqsave(&wdev->ahs, flags);
	__xa_erase(&wdev->ahs, ah->ah_num);
	xa_unlock_irqrestore(&wdev->ahs, flags);
err_count:
	atomic_dec(&wdev->num_ah);
	return err;
}

int wookie_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	wookie_av_to_attr(&to_wookie_ah(ibah)->av, attr);
	return 0;
}

void wookie_pd_add_ud(struct wookie_pd *pd, struct wookie_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&pd->ud_lock, flags);
	list_add_tail(&qp->pd_node, &pd->ud_qps);
	spin_unlock_irqrestore(&pd->ud_lock, flags);
}

void wookie_pd_del_ud(struct wookie_pd *pd, struct wookie_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&pd->ud_lock, flags);
	list_del_init(&qp->pd_node);
	spin_unlock_irqrestore(&pd->ud_lock, flags);
}

/*
 * Pin @ah's address vector in the unfetched WQEs of the UD QPs of its PD
 * (wookie_req_pin_av()), one QP at a time, each held by a reference taken
 * under ud_lock (destroy_qp takes the QP off the list, then waits for its
 * references).  A walk goes on from the QP it held, or from the head if
 * that one left the list; pin_gen skips those it saw.  Only QPs with WQEs
 * posted and not fetched are held: the AH is in use on few of them.
 */
static void wookie_ah_pin_posted(struct wookie_pd *pd, struct wookie_ah *ah)
{
	struct wookie_qp *qp, *held = NULL;
	unsigned long flags;
	u64 gen;

	mutex_lock(&pd->pin_mutex);
	gen = ++pd->pin_gen;
	for (;;) {
		spin_lock_irqsave(&pd->ud_lock, flags);
		qp = held;
		if (held && list_empty(&held->pd_node))
			qp = NULL;
		qp = list_prepare_entry(qp, &pd->ud_qps, pd_node);
		if (held)
			wookie_qp_put(held);
		held = NULL;
		list_for_each_entry_continue(qp, &pd->ud_qps, pd_node) {
			if (qp->pin_gen == gen)
				continue;
			qp->pin_gen = gen;
			/* Pairs with the poster's release, as a fetch. */
			if (smp_load_acquire(&qp->sq.hdr->producer) !=
			    READ_ONCE(qp->req.fetch) &&
			    refcount_inc_not_zero(&qp->refcount)) {
				held = qp;
				break;
			}
		}
		spin_unlock_irqrestore(&pd->ud_lock, flags);
		if (!held)
			break;
		wookie_req_pin_av(held, ah->ah_num, &ah->av);
	}
	mutex_unlock(&pd->pin_mutex);
}

/* Not sleepable unless @flags say RDMA_DESTROY_AH_SLEEPABLE: irqsave. */
int wookie_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct wookie_dev *wdev = to_wookie_dev(ibah->device);
	struct wookie_ah *ah = to_wookie_ah(ibah);
	unsigned long irqflags;

	/*
	 * Kernel consumers that cannot sleep here keep their AHs until the
	 * sends that name them complete, as the ones in the tree do.
	 */
	if (flags & RDMA_DESTROY_AH_SLEEPABLE)
		wookie_ah_pin_posted(to_wookie_pd(ibah->pd), ah);
	xa_lock_irqsave(&wdev->ahs, irqflags);
	__xa_erase(&wdev->ahs, ah->ah_num);
	xa_unlock_irqrestore(&wdev->ahs, irqflags);
	atomic_dec(&wdev->num_ah);
	return 0;
}

int wookie_ah_lookup(struct wookie_dev *wdev, u32 ah_num, struct ib_pd *pd,
		     struct wookie_av *av)
{
	struct wookie_ah *ah;
	unsigned long flags;
	int err = -EINVAL;

	xa_lock_irqsave(&wdev->ahs, flags);
	ah = xa_load(&wdev->ahs, ah_num);
	if (ah && ah->ibah.pd == pd) {
		*av = ah->av;
		err = 0;
	}
	xa_unlock_irqrestore(&wdev->ahs, flags);
	return err;
}
