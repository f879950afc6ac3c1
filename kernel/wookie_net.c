// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The wire: RoCEv2 packets in UDP datagrams to port 4791, IPv4 or IPv6.
 *
 * Each network namespace with a wookie device has one UDP tunnel socket
 * per IP version, opened for its first device and released after its
 * last.  Packets arrive in softirq on the socket's encap_rcv hook: the
 * device is found by the destination address among the namespace's
 * devices (RCU, preferring the one on the receiving netdev), the ICRC is
 * checked, and the packet is queued on its QP, whose engine runs right
 * there (wookie_qp_run_rx()).
 *
 * Sending builds the UDP and IP headers in front of the packet (routed
 * with the namespace's routes out of the device's netdev), appends the
 * ICRC and hands the skb to the IP layer.
 */
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_addr.h>

#include "wookie.h"
#include "portable/wookie_icrc.h"

struct wookie_net {
	/* Serialises attach and detach: the sockets and the device list. */
	struct mutex lock;
	/* wookie_dev.net_list; read under RCU on receive. */
	struct list_head devs;
	unsigned int num_devs;
	/* The tunnel sockets; NULL when not open (or the port is taken). */
	struct socket *sock4;
	struct socket *sock6;
	/* The namespace's exit waits here for its last device to go. */
	wait_queue_head_t gone;
};

static unsigned int wookie_net_id;

static struct wookie_net *wookie_net(struct net *net)
{
	return net_generic(net, wookie_net_id);
}

/* ---- Receive ---- */

/*
 * The device @dgid belongs to, with a reference (ib_device_try_get), or
 * NULL: the one on the receiving netdev first, then any of the namespace
 * (a packet to another local address arrives on the loopback device).
 * With @mcast (@dgid is a multicast group) it is the receiving netdev's:
 * the IP layer passed the packet up because that interface is a member.
 */
static struct wookie_dev *wookie_net_find_dev(struct wookie_net *wn,
					      struct net_device *ndev,
					      const union ib_gid *dgid,
					      bool mcast)
{
	struct wookie_dev *wdev, *found = NULL;
	int pass;

	rcu_read_lock();
	for (pass = 0; pass < (mcast ? 1 : 2) && !found; pass++) {
		list_for_each_entry_rcu(wdev, &wn->devs, net_list) {
			if (!pass && wdev->ndev != ndev)
				continue;
			if (!mcast && !wookie_gid_is_local(wdev, dgid))
				continue;
			if (ib_device_try_get(&wdev->ibdev))
				found = wdev;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * The network header's fields into @pkt (GIDs, hop limit, traffic class,
 * flow label).  Returns false for a header RoCEv2 does not use, IPv4
 * options or IPv6 extension headers, which the ICRC cannot cover; the
 * addresses are read even then, to count the drop on the right device.
 */
static bool wookie_net_read_ip(struct sk_buff *skb, struct wookie_pkt *pkt)
{
	int ip_len = skb_transport_offset(skb) - skb_network_offset(skb);

	if (skb->protocol == htons(ETH_P_IP)) {
		const struct iphdr *iph = ip_hdr(skb);

		ipv6_addr_set_v4mapped(iph->saddr,
				       (struct in6_addr *)pkt->sgid.raw);
		ipv6_addr_set_v4mapped(iph->daddr,
				       (struct in6_addr *)pkt->dgid.raw);
		pkt->network_type = RDMA_NETWORK_IPV4;
		pkt->hop_limit = iph->ttl;
		pkt->traffic_class = iph->tos;
		pkt->flow_label = 0;
		return iph->ihl == 5 && ip_len == sizeof(*iph);
	}
	if (skb->protocol == htons(ETH_P_IPV6)) {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		memcpy(pkt->sgid.raw, &ip6h->saddr, sizeof(pkt->sgid.raw));
		memcpy(pkt->dgid.raw, &ip6h->daddr, sizeof(pkt->dgid.raw));
		pkt->network_type = RDMA_NETWORK_IPV6;
		pkt->hop_limit = ip6h->hop_limit;
		pkt->traffic_class = ip6_tclass(ip6_flowinfo(ip6h));
		pkt->flow_label = be32_to_cpu(ip6_flowlabel(ip6h));
		return ip6h->nexthdr == IPPROTO_UDP &&
		       ip_len == sizeof(*ip6h);
	}
	memset(&pkt->dgid, 0, sizeof(pkt->dgid));
	return false;
}

/* Is the ICRC after the packet's pad the one its bytes give? */
static bool wookie_net_icrc_ok(struct sk_buff *skb)
{
	const u8 *ip = skb_network_header(skb);
	size_t len = skb_tail_pointer(skb) - ip - WOOKIE_ICRC_BYTES;
	u32 icrc;

	if (wookie_icrc(ip, len, &icrc))
		return false;
	return icrc == get_unaligned_le32(ip + len);
}

/*
 * encap_rcv of the tunnel sockets, in softirq: skb->data is the UDP
 * header, whose length and checksum UDP has checked.  Always consumes
 * the skb (returns 0).  Drops are counted on the device the destination
 * address names; a packet for no device here is just dropped.
 */
static int wookie_udp_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct wookie_net *wn = wookie_net(sock_net(sk));
	struct wookie_pkt *pkt;
	struct wookie_dev *wdev;
	struct wookie_qp *qp;
	bool ip_ok, mcast;

	/* The ICRC and the engine read the packet as one buffer. */
	if (skb_linearize(skb)) {
		kfree_skb(skb);
		return 0;
	}
	skb_pull(skb, sizeof(struct udphdr));
	pkt = wookie_pkt_wrap(skb, 0, GFP_ATOMIC);
	if (!pkt) {
		kfree_skb(skb);
		return 0;
	}
	ip_ok = wookie_net_read_ip(skb, pkt);
	mcast = rdma_is_multicast_addr((struct in6_addr *)pkt->dgid.raw);
	wdev = wookie_net_find_dev(wn, skb->dev, &pkt->dgid, mcast);
	if (!wdev) {
		wookie_pkt_free(pkt);
		return 0;
	}
	if (!ip_ok || skb->len < WOOKIE_BTH_BYTES + WOOKIE_ICRC_BYTES) {
		wookie_drop(wdev, WOOKIE_CNT_RX_BAD_HDR, NULL);
		goto drop;
	}
	if (!wookie_net_icrc_ok(skb)) {
		wookie_drop(wdev, WOOKIE_CNT_RX_ICRC_ERR, NULL);
		goto drop;
	}
	pkt->len = skb->len - WOOKIE_ICRC_BYTES;
	if (mcast) {
		wookie_mcast_deliver(wdev, pkt);
		ib_device_put(&wdev->ibdev);
		return 0;
	}
	qp = wookie_pkt_deliver(wdev, pkt);
	if (qp) {
		wookie_qp_run_rx(qp);
		wookie_qp_put(qp);
	}
	ib_device_put(&wdev->ibdev);
	return 0;

drop:
	wookie_pkt_free(pkt);
	ib_device_put(&wdev->ibdev);
	return 0;
}

/* ---- Send ---- */

/* The UDP header in front of @pkt's BTH; the ICRC's room behind its pad. */
static void wookie_udp_push(struct wookie_qp *qp, const struct wookie_av *av,
			    struct wookie_pkt *pkt)
{
	struct sk_buff *skb = pkt->skb;
	struct udphdr *uh;

	skb_put(skb, WOOKIE_ICRC_BYTES);
	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	/* Flows spread by QP pair, or by the flow label the AV sets. */
	uh->source = htons(rdma_get_udp_sport(av->flow_label, qp->ibqp.qp_num,
					      pkt->hdrs.bth.dest_qp));
	uh->dest = htons(WOOKIE_ROCE_UDP_PORT);
	uh->len = htons(skb->len);
	/* RoCEv2 leaves the UDP checksum to the ICRC (IBTA A17.3.1). */
	uh->check = 0;
}

/* The ICRC over the headers just built, into the room behind the pad. */
static void wookie_icrc_put(struct sk_buff *skb)
{
	size_t len = skb->len - WOOKIE_ICRC_BYTES;
	u32 icrc = 0;

	/* Cannot fail: the headers are ours. */
	wookie_icrc(skb_network_header(skb), len, &icrc);
	put_unaligned_le32(icrc, skb->data + len);
}

/* Route and send; the skb is consumed either way.  0 or no route. */
static int wookie_xmit4(struct wookie_dev *wdev, struct wookie_net *wn,
			const struct wookie_av *av, struct sk_buff *skb)
{
	struct flowi4 fl = {
		.flowi4_oif = wdev->ndev->ifindex,
		.flowi4_proto = IPPROTO_UDP,
		.flowi4_tos = RT_TOS(av->traffic_class),
	};
	struct rtable *rt;
	struct iphdr *iph;

	memcpy(&fl.daddr, &av->dgid.raw[12], sizeof(fl.daddr));
	memcpy(&fl.saddr, &av->sgid.raw[12], sizeof(fl.saddr));
	rt = ip_route_output_key(wdev->net, &fl);
	if (IS_ERR(rt)) {
		kfree_skb(skb);
		return PTR_ERR(rt);
	}
	skb_dst_set(skb, &rt->dst);

	iph = skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) / 4;
	iph->tos = av->traffic_class;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->hop_limit ?: ip4_dst_hoplimit(&rt->dst);
	iph->protocol = IPPROTO_UDP;
	iph->saddr = fl.saddr;
	iph->daddr = fl.daddr;
	__ip_select_ident(wdev->net, iph, 1);
	skb->protocol = htons(ETH_P_IP);
	wookie_icrc_put(skb);
	/* Sets the header checksum, which the ICRC does not cover. */
	ip_local_out(wdev->net, wn->sock4->sk, skb);
	return 0;
}

static int wookie_xmit6(struct wookie_dev *wdev, struct wookie_net *wn,
			const struct wookie_av *av, struct sk_buff *skb)
{
	struct flowi6 fl6 = {
		.flowi6_oif = wdev->ndev->ifindex,
		.flowi6_proto = IPPROTO_UDP,
		.flowlabel = ip6_make_flowinfo(av->traffic_class,
					       cpu_to_be32(av->flow_label)),
	};
	struct dst_entry *dst;
	struct ipv6hdr *ip6h;

	memcpy(&fl6.daddr, av->dgid.raw, sizeof(fl6.daddr));
	memcpy(&fl6.saddr, av->sgid.raw, sizeof(fl6.saddr));
	dst = ipv6_stub->ipv6_dst_lookup_flow(wdev->net, wn->sock6->sk, &fl6,
					      NULL);
	if (IS_ERR(dst)) {
		kfree_skb(skb);
		return PTR_ERR(dst);
	}
	skb_dst_set(skb, dst);

	ip6h = skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6_flow_hdr(ip6h, av->traffic_class, cpu_to_be32(av->flow_label));
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = av->hop_limit ?: ip6_dst_hoplimit(dst);
	ip6h->saddr = fl6.saddr;
	ip6h->daddr = fl6.daddr;
	skb->protocol = htons(ETH_P_IPV6);
	wookie_icrc_put(skb);
	ip6_local_out(wdev->net, wn->sock6->sk, skb);
	return 0;
}

void wookie_udp_xmit(struct wookie_qp *qp, const struct wookie_av *av,
		     struct wookie_pkt *pkt)
{
	struct wookie_dev *wdev = to_wookie_dev(qp->ibqp.device);
	struct wookie_net *wn = wookie_net(wdev->net);
	bool v4 = av->network_type == RDMA_NETWORK_IPV4;
	struct wookie_bth bth = pkt->hdrs.bth;
	struct sk_buff *skb = pkt->skb;
	int err;

	/* No socket: no answer could come back (the port is taken). */
	if (!wdev->net_attached || !(v4 ? wn->sock4 : wn->sock6)) {
		wookie_qp_drop(qp, WOOKIE_CNT_TX_NO_ROUTE, &bth);
		wookie_pkt_free(pkt);
		return;
	}
	wookie_udp_push(qp, av, pkt);
	/* The skb goes to the IP layer, which frees it; not the packet. */
	pkt->skb = NULL;
	wookie_pkt_free(pkt);

	/*
	 * Routed, or dropped for no route.  Once the IP layer has it, a
	 * drop (full queue, no neighbour) is a loss like any on the link.
	 */
	err = v4 ? wookie_xmit4(wdev, wn, av, skb) :
		   wookie_xmit6(wdev, wn, av, skb);
	if (err)
		wookie_qp_drop(qp, WOOKIE_CNT_TX_NO_ROUTE, &bth);
	else
		wookie_qp_count(qp, WOOKIE_CNT_SENT_PKTS);
}

/* ---- Sockets and devices per namespace ---- */

static struct socket *wookie_udp_open(struct net *net, bool ipv6)
{
	struct udp_tunnel_sock_cfg tunnel = {
		.encap_type = 1,
		.encap_rcv = wookie_udp_rcv,
	};
	struct udp_port_cfg cfg = {
		.local_udp_port = htons(WOOKIE_ROCE_UDP_PORT),
	};
	struct socket *sock;
	int one = 1;
	int err;

	if (ipv6) {
		cfg.family = AF_INET6;
		cfg.ipv6_v6only = 1;
		cfg.local_ip6 = in6addr_any;
	} else {
		cfg.family = AF_INET;
		cfg.local_ip.s_addr = htonl(INADDR_ANY);
	}
	err = udp_sock_create(net, &cfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(net, sock, &tunnel);
	/*
	 * Multicast a QP sends reaches the QPs of this host attached to the
	 * group by the IP layer's loopback, as a NIC loops it back to its
	 * own QPs.  The tunnel setup turns IPv4's off; IPv6's stays on.
	 */
	if (!ipv6) {
		err = sock->ops->setsockopt(sock, SOL_IP, IP_MULTICAST_LOOP,
					    KERNEL_SOCKPTR(&one), sizeof(one));
		if (err) {
			udp_tunnel_sock_release(sock);
			return ERR_PTR(err);
		}
	}
	return sock;
}

static void wookie_udp_close(struct socket **sock)
{
	if (*sock)
		udp_tunnel_sock_release(*sock);
	*sock = NULL;
}

/* Open the namespace's sockets; the port may be taken (rdma_rxe). */
static int wookie_net_open(struct wookie_net *wn, struct net *net,
			   const char *name)
{
	struct socket *sock;
	int i;

	for (i = 0; i < 2; i++) {
		bool ipv6 = i;

		/* A kernel without IPv6 sockets still has IPv4. */
		if (ipv6 && !ipv6_mod_enabled())
			break;
		sock = wookie_udp_open(net, ipv6);
		if (IS_ERR(sock)) {
			if (PTR_ERR(sock) != -EADDRINUSE) {
				wookie_udp_close(&wn->sock4);
				return PTR_ERR(sock);
			}
			pr_warn("%s: %s: UDP port %u (IPv%c) is taken in this network namespace (by rdma_rxe?): only QPs of this device are reachable\n",
				WOOKIE_DRV_NAME, name, WOOKIE_ROCE_UDP_PORT,
				ipv6 ? '6' : '4');
			continue;
		}
		if (ipv6)
			wn->sock6 = sock;
		else
			wn->sock4 = sock;
	}
	return 0;
}

int wookie_net_attach(struct wookie_dev *wdev, const char *name)
{
	struct wookie_net *wn = wookie_net(wdev->net);
	int err = 0;

	mutex_lock(&wn->lock);
	if (!wn->num_devs) {
		err = wookie_net_open(wn, wdev->net, name);
		if (err)
			goto out;
	}
	wn->num_devs++;
	list_add_tail_rcu(&wdev->net_list, &wn->devs);
	wdev->net_attached = true;
out:
	mutex_unlock(&wn->lock);
	return err;
}

void wookie_net_detach(struct wookie_dev *wdev)
{
	struct wookie_net *wn;

	if (!wdev->net_attached)
		return;
	wn = wookie_net(wdev->net);
	mutex_lock(&wn->lock);
	list_del_rcu(&wdev->net_list);
	wdev->net_attached = false;
	if (!--wn->num_devs) {
		/* Waits for receivers in flight (synchronize_rcu). */
		wookie_udp_close(&wn->sock4);
		wookie_udp_close(&wn->sock6);
		wake_up_all(&wn->gone);
	}
	mutex_unlock(&wn->lock);
	/* No receiver still walks past this device. */
	synchronize_rcu();
}

static int __net_init wookie_net_init_ns(struct net *net)
{
	struct wookie_net *wn = wookie_net(net);

	mutex_init(&wn->lock);
	INIT_LIST_HEAD(&wn->devs);
	init_waitqueue_head(&wn->gone);
	return 0;
}

/*
 * The namespace is going: its netdevs are gone already (device ops exit
 * before subsystems'), and with them our devices, whose unregistration
 * ib_core may still be running.  Their sockets must be released before
 * the namespace is freed: wait for the last device.
 */
static void __net_exit wookie_net_exit_ns(struct net *net)
{
	struct wookie_net *wn = wookie_net(net);

	wait_event(wn->gone, !READ_ONCE(wn->num_devs));
}

static struct pernet_operations wookie_net_ops = {
	.init = wookie_net_init_ns,
	.exit = wookie_net_exit_ns,
	.id = &wookie_net_id,
	.size = sizeof(struct wookie_net),
};

int wookie_net_init(void)
{
	return register_pernet_subsys(&wookie_net_ops);
}

void wookie_net_exit(void)
{
	unregister_pernet_subsys(&wookie_net_ops);
}
