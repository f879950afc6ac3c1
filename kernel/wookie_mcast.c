// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Multicast groups of UD QPs: attach_mcast and detach_mcast, and the
 * delivery of a packet to a group.
 *
 * A group is named by its GID, an IPv4-mapped or IPv6 multicast address.
 * The first QP attached joins that IP group on the netdev (IGMP or MLD)
 * and the last one detached leaves it: the IP layer passes a multicast
 * datagram up only on an interface that is a member, as a NIC's filter
 * would.  rdma_cm joins IPv4 groups itself too; the IP layer counts both.
 *
 * The membership is the IP layer's from then on: it goes with the
 * interface's IPv6 state if the netdev's MTU drops below 1280 (this
 * group then receives no more IPv6 packets), and ip_mc_inc_group() says
 * nothing when it cannot allocate.
 *
 * Packets to a group come in on the tunnel socket like any other (those
 * a QP of this host sends to a group it is a member of, too: the IP
 * layer loops multicast back) and each QP attached gets its own copy.
 * Readers walk the groups under RCU; an attachment holds a reference to
 * its QP until a grace period after it is gone.  Changes take rtnl (for
 * the IP layer), then mcast_lock.
 */
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/jhash.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>

#include "wookie.h"

struct wookie_mcg {
	/* In wookie_dev.mcgs. */
	struct hlist_node node;
	union ib_gid gid;
	/* struct wookie_mca: the QPs attached, under RCU. */
	struct list_head qps;
	unsigned int num_qps;
	/* Whether joining the IP group worked, so leaving it is ours. */
	bool ip_joined;
	struct rcu_head rcu;
};

struct wookie_mca {
	struct list_head list;
	/* Holds a reference, dropped a grace period after detach. */
	struct wookie_qp *qp;
	/*
	 * Attaches of the QP to the group: ib_core counts each one that
	 * succeeds (the QP cannot be destroyed until as many detaches), and
	 * uverbs tells attaches apart by their LID, which RoCE ignores.
	 */
	u32 count;
	struct rcu_head rcu;
};

void wookie_mcast_dev_init(struct wookie_dev *wdev)
{
	mutex_init(&wdev->mcast_lock);
	hash_init(wdev->mcgs);
}

static u32 wookie_mcg_hash(const union ib_gid *gid)
{
	return jhash(gid->raw, sizeof(gid->raw), 0);
}

/* Under RCU or mcast_lock. */
static struct wookie_mcg *wookie_mcg_find(struct wookie_dev *wdev,
					  const union ib_gid *gid)
{
	struct wookie_mcg *mcg;

	hash_for_each_possible_rcu(wdev->mcgs, mcg, node, wookie_mcg_hash(gid),
				   lockdep_is_held(&wdev->mcast_lock)) {
		if (!memcmp(&mcg->gid, gid, sizeof(*gid)))
			return mcg;
	}
	return NULL;
}

/* @qp's attachment to @mcg, or NULL; under mcast_lock. */
static struct wookie_mca *wookie_mca_find(struct wookie_mcg *mcg,
					  struct wookie_qp *qp)
{
	struct wookie_mca *mca;

	list_for_each_entry(mca, &mcg->qps, list) {
		if (mca->qp == qp)
			return mca;
	}
	return NULL;
}

/* Join or leave @gid's IP group on the device's netdev; under rtnl. */
static int wookie_mcast_ip(struct wookie_dev *wdev, const union ib_gid *gid,
			   bool join)
{
	const struct in6_addr *addr = (const struct in6_addr *)gid->raw;
	struct net_device *ndev = wdev->ndev;
	struct in_device *in_dev;
	int err = 0;

	ASSERT_RTNL();
	if (ipv6_addr_v4mapped(addr)) {
		in_dev = __in_dev_get_rtnl(ndev);
		if (!in_dev)
			err = -ENODEV;
		else if (join)
			ip_mc_inc_group(in_dev, addr->s6_addr32[3]);
		else
			ip_mc_dec_group(in_dev, addr->s6_addr32[3]);
	} else if (!IS_REACHABLE(CONFIG_IPV6)) {
		err = -EAFNOSUPPORT;
	} else {
		err = join ? ipv6_dev_mc_inc(ndev, addr) :
			     ipv6_dev_mc_dec(ndev, addr);
	}
	return err;
}

static void wookie_mca_free(struct rcu_head *head)
{
	struct wookie_mca *mca = container_of(head, struct wookie_mca, rcu);

	wookie_qp_put(mca->qp);
	kfree(mca);
}

int wookie_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct wookie_dev *wdev = to_wookie_dev(ibqp->device);
	struct wookie_qp *qp = to_wookie_qp(ibqp);
	struct wookie_mcg *mcg;
	struct wookie_mca *mca;
	int err = 0;

	/* ib_core checks these for every caller; the engine relies on them. */
	if (qp->kind != WOOKIE_QP_KIND_UD ||
	    !rdma_is_multicast_addr((struct in6_addr *)gid->raw))
		return -EINVAL;

	rtnl_lock();
	mutex_lock(&wdev->mcast_lock);
	mcg = wookie_mcg_find(wdev, gid);
	if (mcg) {
		mca = wookie_mca_find(mcg, qp);
		if (mca) {
			mca->count++;
			goto out;
		}
		if (mcg->num_qps >= WOOKIE_MAX_MCAST_QP_ATTACH) {
			err = -ENOMEM;
			goto out;
		}
	} else if (wdev->num_mcg >= WOOKIE_MAX_MCAST_GRP) {
		err = -ENOMEM;
		goto out;
	}
	if (wdev->num_mca >= WOOKIE_MAX_TOTAL_MCAST_QP_ATTACH) {
		err = -ENOMEM;
		goto out;
	}
	mca = kzalloc(sizeof(*mca), GFP_KERNEL_ACCOUNT);
	if (!mca) {
		err = -ENOMEM;
		goto out;
	}
	if (!mcg) {
		mcg = kzalloc(sizeof(*mcg), GFP_KERNEL_ACCOUNT);
		if (!mcg) {
			kfree(mca);
			err = -ENOMEM;
			goto out;
		}
		mcg->gid = *gid;
		INIT_LIST_HEAD(&mcg->qps);
		/*
		 * A netdev without the address family's configuration takes
		 * no part in its multicast: nothing could arrive.
		 */
		err = wookie_mcast_ip(wdev, gid, true);
		if (err) {
			kfree(mcg);
			kfree(mca);
			goto out;
		}
		mcg->ip_joined = true;
		hash_add_rcu(wdev->mcgs, &mcg->node, wookie_mcg_hash(gid));
		wdev->num_mcg++;
	}
	/* The QP is live (ib_core holds it for the verb): cannot be 0. */
	refcount_inc(&qp->refcount);
	mca->qp = qp;
	mca->count = 1;
	list_add_tail_rcu(&mca->list, &mcg->qps);
	mcg->num_qps++;
	WRITE_ONCE(qp->num_mcast, qp->num_mcast + 1);
	wdev->num_mca++;
out:
	mutex_unlock(&wdev->mcast_lock);
	rtnl_unlock();
	return err;
}

/* Under rtnl and mcast_lock. */
static void wookie_mca_remove(struct wookie_dev *wdev, struct wookie_mcg *mcg,
			      struct wookie_mca *mca)
{
	list_del_rcu(&mca->list);
	WRITE_ONCE(mca->qp->num_mcast, mca->qp->num_mcast - 1);
	wdev->num_mca--;
	call_rcu(&mca->rcu, wookie_mca_free);
	if (--mcg->num_qps)
		return;
	hash_del_rcu(&mcg->node);
	wdev->num_mcg--;
	if (mcg->ip_joined)
		wookie_mcast_ip(wdev, &mcg->gid, false);
	kfree_rcu(mcg, rcu);
}

int wookie_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct wookie_dev *wdev = to_wookie_dev(ibqp->device);
	struct wookie_qp *qp = to_wookie_qp(ibqp);
	struct wookie_mcg *mcg;
	struct wookie_mca *mca;
	int err = -EINVAL;

	rtnl_lock();
	mutex_lock(&wdev->mcast_lock);
	mcg = wookie_mcg_find(wdev, gid);
	mca = mcg ? wookie_mca_find(mcg, qp) : NULL;
	if (mca) {
		if (!--mca->count)
			wookie_mca_remove(wdev, mcg, mca);
		err = 0;
	}
	mutex_unlock(&wdev->mcast_lock);
	rtnl_unlock();
	return err;
}

/*
 * A QP being destroyed leaves its groups.  ib_core refuses to destroy an
 * attached QP, so this finds none (and takes no lock: nothing attaches a
 * QP being destroyed) unless that changes; a walk of every group is fine
 * then.
 */
void wookie_mcast_detach_all(struct wookie_qp *qp)
{
	struct wookie_dev *wdev = to_wookie_dev(qp->ibqp.device);
	struct hlist_node *tmp;
	struct wookie_mcg *mcg;
	struct wookie_mca *mca;
	int bkt;

	if (!READ_ONCE(qp->num_mcast))
		return;
	rtnl_lock();
	mutex_lock(&wdev->mcast_lock);
	/* Safe: removing the last attachment frees the group. */
	hash_for_each_safe(wdev->mcgs, bkt, tmp, mcg, node) {
		mca = wookie_mca_find(mcg, qp);
		if (mca)
			wookie_mca_remove(wdev, mcg, mca);
	}
	mutex_unlock(&wdev->mcast_lock);
	rtnl_unlock();
}

/* The device goes: its QPs, and with them their attachments, are gone. */
void wookie_mcast_dev_fini(struct wookie_dev *wdev)
{
	WARN_ON_ONCE(!hash_empty(wdev->mcgs) || wdev->num_mca);
	mutex_destroy(&wdev->mcast_lock);
}

/* Queue @pkt on @qp and run it there. */
static void wookie_mcast_deliver_one(struct wookie_dev *wdev,
				     struct wookie_qp *qp,
				     struct wookie_pkt *pkt)
{
	if (wookie_pkt_enqueue(wdev, qp, pkt))
		wookie_qp_run_rx(qp);
}

/*
 * A packet to multicast GID pkt->dgid, from the wire: a copy for each QP
 * attached (the last one gets @pkt itself), run there as a unicast
 * packet would be; each counts as a packet received.  Consumes @pkt.
 * Bounded by the attachments (at most WOOKIE_MAX_MCAST_QP_ATTACH).
 */
void wookie_mcast_deliver(struct wookie_dev *wdev, struct wookie_pkt *pkt)
{
	const struct wookie_hdrs *h = &pkt->hdrs;
	struct wookie_qp *prev = NULL;
	struct wookie_pkt *copy;
	struct wookie_mcg *mcg;
	struct wookie_mca *mca;

	if (!wookie_pkt_parse(wdev, pkt))
		return;
	/* Only UD goes to a group, and to QPN 0xffffff (IBTA 10.5.2). */
	if (h->bth.dest_qp != WOOKIE_MCAST_QPN ||
	    (h->bth.opcode & WOOKIE_TRANSPORT_MASK) !=
	    wookie_transport_of(WOOKIE_QP_KIND_UD)) {
		wookie_drop(wdev, WOOKIE_CNT_RX_BAD_HDR, &h->bth);
		goto out;
	}
	rcu_read_lock();
	mcg = wookie_mcg_find(wdev, &pkt->dgid);
	if (!mcg) {
		/* The group was left while the packet was on its way. */
		wookie_drop(wdev, WOOKIE_CNT_RX_NO_QP, &h->bth);
		goto unlock;
	}
	/*
	 * A QP whose attachment goes meanwhile stays valid until the
	 * grace period ends: its reference goes with the attachment.
	 */
	list_for_each_entry_rcu(mca, &mcg->qps, list) {
		if (prev) {
			copy = wookie_pkt_clone(pkt, GFP_ATOMIC);
			if (copy)
				wookie_mcast_deliver_one(wdev, prev, copy);
		}
		prev = mca->qp;
	}
	if (prev) {
		wookie_mcast_deliver_one(wdev, prev, pkt);
		pkt = NULL;
	}
unlock:
	rcu_read_unlock();
out:
	if (pkt)
		wookie_pkt_free(pkt);
}
