// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ib_device: registration on a netdev, its ops table, and the queries
 * (device, port, P_Key) that report the link as a RoCEv2 port.
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <rdma/ib_mad.h>

#include "wookie.h"
#include "portable/wookie_link.h"

/*
 * On-demand paging, as the engine does it: every access to an MR goes
 * through the same copies (wookie_mem.c), whatever the transport, and an
 * implicit MR (the whole address space) is faulted in as any other.
 */
static void wookie_odp_caps(struct ib_device_attr *attr)
{
	u32 rc = IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
		 IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ |
		 IB_ODP_SUPPORT_ATOMIC | IB_ODP_SUPPORT_SRQ_RECV;

	if (!IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING))
		return;
	attr->kernel_cap_flags |= IBK_ON_DEMAND_PAGING;
	attr->odp_caps.general_caps = IB_ODP_SUPPORT |
				      IB_ODP_SUPPORT_IMPLICIT;
	attr->odp_caps.per_transport_caps.rc_odp_caps = rc;
	attr->odp_caps.per_transport_caps.uc_odp_caps =
		IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
		IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_SRQ_RECV;
	attr->odp_caps.per_transport_caps.ud_odp_caps =
		IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
		IB_ODP_SUPPORT_SRQ_RECV;
	/* An XRC initiator sends, the target receives into its SRQ. */
	attr->odp_caps.per_transport_caps.xrc_odp_caps =
		rc & ~IB_ODP_SUPPORT_RECV;
}

static int wookie_query_device(struct ib_device *ibdev,
			       struct ib_device_attr *attr,
			       struct ib_udata *udata)
{
	/* No vendor-specific input or output is defined. */
	if (udata->inlen || udata->outlen)
		return -EINVAL;

	attr->fw_ver = WOOKIE_FW_VER;
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = WOOKIE_MAX_MR_SIZE;
	attr->max_dm_size = WOOKIE_MAX_DM_SIZE;
	attr->page_size_cap = PAGE_SIZE;
	attr->vendor_id = WOOKIE_VENDOR_ID;
	attr->vendor_part_id = WOOKIE_VENDOR_PART_ID;
	attr->hw_ver = 0;
	attr->max_qp = WOOKIE_MAX_QP;
	attr->max_qp_wr = WOOKIE_MAX_QP_WR;
	attr->device_cap_flags = IB_DEVICE_BAD_PKEY_CNTR |
		IB_DEVICE_BAD_QKEY_CNTR | IB_DEVICE_CURR_QP_STATE_MOD |
		IB_DEVICE_SYS_IMAGE_GUID | IB_DEVICE_RC_RNR_NAK_GEN |
		IB_DEVICE_PORT_ACTIVE_EVENT | IB_DEVICE_N_NOTIFY_CQ |
		IB_DEVICE_MEM_WINDOW | IB_DEVICE_MEM_MGT_EXTENSIONS |
		IB_DEVICE_MEM_WINDOW_TYPE_2B | IB_DEVICE_SRQ_RESIZE |
		IB_DEVICE_XRC | WOOKIE_DEVICE_FLUSH_GLOBAL;
	/* One 8-byte store: a word a 32-bit CPU cannot write at once. */
	if (IS_ENABLED(CONFIG_64BIT))
		attr->device_cap_flags |= IB_DEVICE_ATOMIC_WRITE;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	wookie_odp_caps(attr);
	attr->max_send_sge = WOOKIE_MAX_SGE;
	attr->max_recv_sge = WOOKIE_MAX_SGE;
	attr->max_sge_rd = WOOKIE_MAX_SGE;
	attr->max_cq = WOOKIE_MAX_CQ;
	attr->max_cqe = WOOKIE_MAX_CQE;
	attr->max_mr = WOOKIE_MAX_MR;
	attr->max_mw = WOOKIE_MAX_MW;
	attr->max_pd = WOOKIE_MAX_PD;
	attr->max_qp_rd_atom = WOOKIE_MAX_RD_ATOMIC;
	attr->max_qp_init_rd_atom = WOOKIE_MAX_INIT_RD_ATOMIC;
	attr->max_res_rd_atom = WOOKIE_MAX_RD_ATOMIC * WOOKIE_MAX_QP;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->max_srq = WOOKIE_MAX_SRQ;
	attr->max_srq_wr = WOOKIE_MAX_SRQ_WR;
	attr->max_srq_sge = WOOKIE_MAX_SGE;
	attr->max_fast_reg_page_list_len = WOOKIE_MAX_FAST_REG_PAGES;
	attr->max_pkeys = WOOKIE_PKEY_TBL_LEN;
	attr->local_ca_ack_delay = 15;
	attr->max_ah = WOOKIE_MAX_AH;
	attr->max_mcast_grp = WOOKIE_MAX_MCAST_GRP;
	attr->max_mcast_qp_attach = WOOKIE_MAX_MCAST_QP_ATTACH;
	attr->max_total_mcast_qp_attach = WOOKIE_MAX_TOTAL_MCAST_QP_ATTACH;
	return 0;
}

/* The port follows its netdev: up with carrier and a usable MTU. */
int wookie_current_port_state(struct wookie_dev *wdev)
{
	struct net_device *ndev = wdev->ndev;

	return wookie_port_state(netif_running(ndev) &&
				 wookie_netdev_mtu_usable(READ_ONCE(ndev->mtu)),
				 netif_carrier_ok(ndev));
}

static int wookie_query_port(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_attr *attr)
{
	struct net_device *ndev = to_wookie_dev(ibdev)->ndev;
	bool running = netif_running(ndev);
	bool carrier = netif_carrier_ok(ndev);
	unsigned int mtu = READ_ONCE(ndev->mtu);

	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = (enum ib_mtu)wookie_mtu_for_netdev(mtu);
	if (!attr->active_mtu) {
		/* Too small for any IB MTU: the port cannot carry packets. */
		attr->active_mtu = IB_MTU_256;
		running = false;
	}
	attr->phys_mtu = mtu;
	attr->state = wookie_port_state(running, carrier);
	attr->phys_state = wookie_phys_state(running, carrier);
	attr->gid_tbl_len = WOOKIE_GID_TBL_LEN;
	attr->pkey_tbl_len = WOOKIE_PKEY_TBL_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = WOOKIE_MAX_MSG_SIZE;
	attr->max_vl_num = 1;
	return ib_get_eth_speed(ibdev, port_num, &attr->active_speed,
				&attr->active_width);
}

/* RoCE has one P_Key, the default full-membership one. */
static int wookie_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
			     u16 *pkey)
{
	if (index >= WOOKIE_PKEY_TBL_LEN)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static enum rdma_link_layer wookie_get_link_layer(struct ib_device *ibdev,
						  u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}

/* RoCEv2 only: ib_core then fills the GID table from the netdev's IPs. */
static int wookie_get_port_immutable(struct ib_device *ibdev, u32 port_num,
				     struct ib_port_immutable *immutable)
{
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->gid_tbl_len = WOOKIE_GID_TBL_LEN;
	immutable->pkey_tbl_len = WOOKIE_PKEY_TBL_LEN;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static void wookie_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	strscpy(str, WOOKIE_VERSION, IB_FW_VERSION_NAME_MAX);
}

/* Called by ib_core once the device is unregistered, or on a failed add. */
static void wookie_dealloc_driver(struct ib_device *ibdev)
{
	struct wookie_dev *wdev = to_wookie_dev(ibdev);

	wookie_net_detach(wdev);
	wookie_poller_stop(wdev);
	if (wdev->wq)
		destroy_workqueue(wdev->wq);
	if (wdev->odp_wq)
		destroy_workqueue(wdev->odp_wq);
	xa_destroy(&wdev->keys);
	xa_destroy(&wdev->qps);
	xa_destroy(&wdev->xrc_srqs);
	xa_destroy(&wdev->ahs);
	wookie_counters_fini(wdev);
	wookie_mcast_dev_fini(wdev);
	netdev_put(wdev->ndev, &wdev->ndev_tracker);
	wookie_device_dealloced(wdev);
}

static ssize_t parent_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	struct wookie_dev *wdev =
		rdma_device_to_drv_device(device, struct wookie_dev, ibdev);

	return sysfs_emit(buf, "%s\n", netdev_name(wdev->ndev));
}
static DEVICE_ATTR_RO(parent);

/* What the provider matches on; see WOOKIE_SYSFS_ABI_ATTR. */
static ssize_t wookie_abi_version_show(struct device *device,
				       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", WOOKIE_ABI_VERSION);
}
static DEVICE_ATTR_RO(wookie_abi_version);

static struct attribute *wookie_dev_attrs[] = {
	&dev_attr_parent.attr,
	&dev_attr_wookie_abi_version.attr,
	NULL,
};

static const struct attribute_group wookie_dev_attr_group = {
	.attrs = wookie_dev_attrs,
};

static const struct ib_device_ops wookie_dev_ops = {
	.owner = THIS_MODULE,
	.uverbs_abi_ver = WOOKIE_ABI_VERSION,
	/*
	 * sysfs rather than netlink: the provider matches devices on an
	 * attribute before it can open them (rdma-core's match_device).
	 */
	.device_group = &wookie_dev_attr_group,

	.alloc_hw_port_stats = wookie_alloc_hw_port_stats,
#if IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING)
	.advise_mr = wookie_advise_mr,
#endif
	.alloc_dm = wookie_alloc_dm,
	.alloc_mr = wookie_alloc_mr,
	.alloc_mw = wookie_alloc_mw,
	.alloc_pd = wookie_alloc_pd,
	.alloc_ucontext = wookie_alloc_ucontext,
	.alloc_xrcd = wookie_alloc_xrcd,
	.attach_mcast = wookie_attach_mcast,
	.counter_alloc_stats = wookie_counter_alloc_stats,
	.counter_bind_qp = wookie_counter_bind_qp,
	.counter_dealloc = wookie_counter_dealloc,
	.counter_unbind_qp = wookie_counter_unbind_qp,
	.counter_update_stats = wookie_counter_update_stats,
	.create_ah = wookie_create_ah,
	.create_cq = wookie_create_cq,
	.create_qp = wookie_create_qp,
	.create_srq = wookie_create_srq,
	.create_user_ah = wookie_create_ah,
	.dealloc_dm = wookie_dealloc_dm,
	.dealloc_driver = wookie_dealloc_driver,
	.dealloc_mw = wookie_dealloc_mw,
	.dealloc_pd = wookie_dealloc_pd,
	.dealloc_ucontext = wookie_dealloc_ucontext,
	.dealloc_xrcd = wookie_dealloc_xrcd,
	.dereg_mr = wookie_dereg_mr,
	.destroy_ah = wookie_destroy_ah,
	.destroy_cq = wookie_destroy_cq,
	.pre_destroy_cq = wookie_pre_destroy_cq,
	.destroy_qp = wookie_destroy_qp,
	.destroy_srq = wookie_destroy_srq,
	.detach_mcast = wookie_detach_mcast,
	.disassociate_ucontext = wookie_disassociate_ucontext,
	.fill_res_cq_entry = wookie_fill_res_cq_entry,
	.fill_res_mr_entry = wookie_fill_res_mr_entry,
	.fill_res_qp_entry = wookie_fill_res_qp_entry,
	.get_dev_fw_str = wookie_get_dev_fw_str,
	.get_dma_mr = wookie_get_dma_mr,
	.get_hw_stats = wookie_get_hw_stats,
	.get_link_layer = wookie_get_link_layer,
	.get_port_immutable = wookie_get_port_immutable,
	.map_mr_sg = wookie_map_mr_sg,
	.mmap = wookie_mmap,
	.mmap_free = wookie_mmap_free,
	.modify_qp = wookie_modify_qp,
	.modify_srq = wookie_modify_srq,
	.poll_cq = wookie_poll_cq,
	.post_recv = wookie_post_recv,
	.post_send = wookie_post_send,
	.post_srq_recv = wookie_post_srq_recv,
	.query_ah = wookie_query_ah,
	.query_device = wookie_query_device,
	.query_pkey = wookie_query_pkey,
	.query_port = wookie_query_port,
	.query_qp = wookie_query_qp,
	.query_srq = wookie_query_srq,
	.query_ucontext = wookie_query_ucontext,
	.reg_dm_mr = wookie_reg_dm_mr,
	.reg_user_mr = wookie_reg_user_mr,
	.reg_user_mr_dmabuf = wookie_reg_user_mr_dmabuf,
	.req_notify_cq = wookie_req_notify_cq,
	.rereg_user_mr = wookie_rereg_user_mr,
	.resize_cq = wookie_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, wookie_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, wookie_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, wookie_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, wookie_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, wookie_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, wookie_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, wookie_ucontext, ibuc),
	INIT_RDMA_OBJ_SIZE(ib_xrcd, wookie_xrcd, ibxrcd),
};

/* Driver attributes and methods: device memory's mmap key, import. */
static const struct uapi_definition wookie_uapi_defs[] = {
	UAPI_DEF_CHAIN(wookie_ucontext_defs),
	UAPI_DEF_CHAIN(wookie_dm_defs),
	{},
};

struct wookie_dev *wookie_device_alloc(struct net_device *ndev)
{
	struct wookie_dev *wdev;
	u8 guid[8];

	wdev = ib_alloc_device(wookie_dev, ibdev);
	if (!wdev)
		return NULL;
	xa_init_flags(&wdev->keys, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&wdev->qps, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&wdev->ahs, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&wdev->xrc_srqs, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	wookie_counters_init(wdev);
	spin_lock_init(&wdev->atomic_lock);
	wookie_mcast_dev_init(wdev);
	wookie_upcall_dev_init(wdev);
	wdev->ndev = ndev;
	netdev_hold(ndev, &wdev->ndev_tracker, GFP_KERNEL);
	wdev->net = dev_net(ndev);
	INIT_LIST_HEAD(&wdev->list);
	INIT_LIST_HEAD(&wdev->net_list);
	atomic_set(&wdev->num_ucontext, 0);
	atomic_set(&wdev->num_pd, 0);
	atomic_set(&wdev->num_ah, 0);
	atomic_set(&wdev->num_srq, 0);
	atomic_set(&wdev->num_qp, 0);
	atomic_set(&wdev->num_cq, 0);
	atomic_set(&wdev->num_mw, 0);
	atomic_set(&wdev->num_mr, 0);
	atomic_set(&wdev->num_xrcd, 0);
	wdev->port_state = WOOKIE_PORT_DOWN;

	wdev->ibdev.node_type = RDMA_NODE_IB_CA;
	wdev->ibdev.phys_port_cnt = 1;
	wdev->ibdev.num_comp_vectors = 1;
	/* Doorbells: post with no WR tells the engine to read the rings. */
	wdev->ibdev.uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				       BIT_ULL(IB_USER_VERBS_CMD_POST_RECV) |
				       BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	wookie_guid_from_mac(ndev->dev_addr, guid);
	memcpy(&wdev->ibdev.node_guid, guid, sizeof(guid));
	strscpy(wdev->ibdev.node_desc, WOOKIE_DRV_NAME,
		sizeof(wdev->ibdev.node_desc));
	ib_set_device_ops(&wdev->ibdev, &wookie_dev_ops);
	wdev->ibdev.driver_def = wookie_uapi_defs;

	/*
	 * Reclaim may wait on kernel consumers' I/O that this runs.  Not
	 * WQ_HIGHPRI: a nice -20 worker kept busy by traffic starved the
	 * RCU kthread for 25 s on a one-CPU host.
	 */
	wdev->wq = alloc_workqueue("wookie", WQ_MEM_RECLAIM, 0);
	wdev->odp_wq = alloc_workqueue("wookie_odp", WQ_UNBOUND, 0);
	if (!wdev->wq || !wdev->odp_wq || wookie_poller_start(wdev)) {
		/* dealloc_driver undoes the rest. */
		ib_dealloc_device(&wdev->ibdev);
		return NULL;
	}
	return wdev;
}

/* On failure the caller still owns @wdev and must ib_dealloc_device() it. */
int wookie_device_register(struct wookie_dev *wdev, const char *name)
{
	int err;

	err = ib_device_set_netdev(&wdev->ibdev, wdev->ndev, 1);
	if (err)
		return err;
	err = wookie_net_attach(wdev, name);
	if (err)
		return err;
	ib_mark_name_assigned_by_user(&wdev->ibdev);
	return ib_register_device(&wdev->ibdev, name, NULL);
}

/* Tell consumers when the port goes ACTIVE or leaves it. */
void wookie_port_event(struct wookie_dev *wdev, int new_state)
{
	struct ib_event event = {
		.device = &wdev->ibdev,
		.element.port_num = 1,
	};

	if (new_state == wdev->port_state)
		return;
	wdev->port_state = new_state;
	event.event = new_state == WOOKIE_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
							IB_EVENT_PORT_ERR;
	if (event.event == IB_EVENT_PORT_ERR)
		wookie_count(wdev, WOOKIE_CNT_LINK_DOWNED);
	ib_dispatch_event(&event);
}
