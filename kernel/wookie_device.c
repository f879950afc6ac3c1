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

static int wookie_query_device(struct ib_device *ibdev,
			       struct ib_device_attr *attr,
			       struct ib_udata *udata)
{
	/* No vendor-specific input or output is defined. */
	if (udata->inlen || udata->outlen)
		return -EINVAL;

	/* ib_core hands a zeroed attr: objects not implemented yet stay 0. */
	attr->fw_ver = WOOKIE_FW_VER;
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = 0;
	attr->page_size_cap = PAGE_SIZE;
	attr->vendor_id = WOOKIE_VENDOR_ID;
	attr->vendor_part_id = WOOKIE_VENDOR_PART_ID;
	attr->hw_ver = 0;
	attr->max_pd = WOOKIE_MAX_PD;
	attr->max_pkeys = WOOKIE_PKEY_TBL_LEN;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
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

	wookie_device_list_remove(wdev);
	netdev_put(wdev->ndev, &wdev->ndev_tracker);
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

	.alloc_pd = wookie_alloc_pd,
	.alloc_ucontext = wookie_alloc_ucontext,
	.dealloc_driver = wookie_dealloc_driver,
	.dealloc_pd = wookie_dealloc_pd,
	.dealloc_ucontext = wookie_dealloc_ucontext,
	.disassociate_ucontext = wookie_disassociate_ucontext,
	.get_dev_fw_str = wookie_get_dev_fw_str,
	.get_link_layer = wookie_get_link_layer,
	.get_port_immutable = wookie_get_port_immutable,
	.mmap = wookie_mmap,
	.mmap_free = wookie_mmap_free,
	.query_device = wookie_query_device,
	.query_pkey = wookie_query_pkey,
	.query_port = wookie_query_port,

	INIT_RDMA_OBJ_SIZE(ib_pd, wookie_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, wookie_ucontext, ibuc),
};

struct wookie_dev *wookie_device_alloc(struct net_device *ndev)
{
	struct wookie_dev *wdev;
	u8 guid[8];

	wdev = ib_alloc_device(wookie_dev, ibdev);
	if (!wdev)
		return NULL;
	wdev->ndev = ndev;
	netdev_hold(ndev, &wdev->ndev_tracker, GFP_KERNEL);
	INIT_LIST_HEAD(&wdev->list);
	atomic_set(&wdev->num_ucontext, 0);
	atomic_set(&wdev->num_pd, 0);
	wdev->port_state = WOOKIE_PORT_DOWN;

	wdev->ibdev.node_type = RDMA_NODE_IB_CA;
	wdev->ibdev.phys_port_cnt = 1;
	wdev->ibdev.num_comp_vectors = 1;
	wookie_guid_from_mac(ndev->dev_addr, guid);
	memcpy(&wdev->ibdev.node_guid, guid, sizeof(guid));
	strscpy(wdev->ibdev.node_desc, WOOKIE_DRV_NAME,
		sizeof(wdev->ibdev.node_desc));
	ib_set_device_ops(&wdev->ibdev, &wookie_dev_ops);
	return wdev;
}

/* On failure the caller still owns @wdev and must ib_dealloc_device() it. */
int wookie_device_register(struct wookie_dev *wdev, const char *name)
{
	int err;

	err = ib_device_set_netdev(&wdev->ibdev, wdev->ndev, 1);
	if (err)
		return err;
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
	ib_dispatch_event(&event);
}
