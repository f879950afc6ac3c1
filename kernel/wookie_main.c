// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Module entry: `rdma link add NAME type wookie netdev DEV` creates a
 * device, netdev events keep its port in step with the link and remove it
 * with the netdev, and module unload removes whatever is left.
 *
 * wookie keeps its own list of devices: as an out-of-tree driver it has no
 * RDMA_DRIVER_* id, and ib_core's lookups by RDMA_DRIVER_UNKNOWN would reach
 * other drivers' devices.
 */
#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <rdma/rdma_netlink.h>

#include "wookie.h"
#include "portable/wookie_link.h"

MODULE_AUTHOR("The wookie developers");
MODULE_DESCRIPTION("wookie: software RoCEv2 device with a user-space data path");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_VERSION(WOOKIE_VERSION);

/*
 * Lock order: rtnl_lock, then wookie_devices_lock.  A device stays listed
 * (with a reference to its memory) past dealloc_driver, until
 * wookie_reap() has seen ib_core finish unregistering it: module unload
 * then knows that no unregistration still runs this module's code.
 */
static LIST_HEAD(wookie_devices);
static DEFINE_MUTEX(wookie_devices_lock);

/* The live device on @ndev, if any. */
static struct wookie_dev *wookie_find_by_netdev(struct net_device *ndev)
{
	struct wookie_dev *wdev;

	lockdep_assert_held(&wookie_devices_lock);
	list_for_each_entry(wdev, &wookie_devices, list)
		if (!wdev->dealloced && wdev->ndev == ndev)
			return wdev;
	return NULL;
}

static void wookie_device_list_add(struct wookie_dev *wdev)
{
	lockdep_assert_held(&wookie_devices_lock);
	get_device(&wdev->ibdev.dev);
	list_add_tail(&wdev->list, &wookie_devices);
}

/*
 * Drop a device from the list once ib_core is done with it: an
 * unregistration in progress (which called dealloc_driver) holds the
 * device's unregistration lock until it has left our code, and
 * ib_unregister_device() takes that lock (and does nothing more for a
 * device already unregistered).
 */
static void wookie_device_unlist(struct wookie_dev *wdev)
{
	if (wdev->registered)
		ib_unregister_device(&wdev->ibdev);
	put_device(&wdev->ibdev.dev);
}

static void wookie_reap(struct work_struct *work)
{
	struct wookie_dev *wdev, *found;

	do {
		found = NULL;
		mutex_lock(&wookie_devices_lock);
		list_for_each_entry(wdev, &wookie_devices, list) {
			if (wdev->dealloced) {
				found = wdev;
				list_del_init(&wdev->list);
				break;
			}
		}
		mutex_unlock(&wookie_devices_lock);
		if (found)
			wookie_device_unlist(found);
	} while (found);
}

static DECLARE_WORK(wookie_reap_work, wookie_reap);

/* dealloc_driver has run: only the memory is left, for the reaper. */
void wookie_device_dealloced(struct wookie_dev *wdev)
{
	mutex_lock(&wookie_devices_lock);
	wdev->dealloced = true;
	mutex_unlock(&wookie_devices_lock);
	schedule_work(&wookie_reap_work);
}

/*
 * Unregistrations that netdev events ask for, which run under rtnl and so
 * cannot wait for ib_core's clients.  Not ib_unregister_device_queued():
 * it warns when the device's refcount is zero, as it is while `rdma link
 * delete` or a racing rmmod unregisters it, before dealloc_driver tells
 * us; ib_unregister_device() just waits for that unregistration then.
 */
static struct workqueue_struct *wookie_unreg_wq;

static void wookie_unregister_work(struct work_struct *work)
{
	struct wookie_dev *wdev = container_of(work, struct wookie_dev,
					       unregister_work);

	ib_unregister_device(&wdev->ibdev);
	put_device(&wdev->ibdev.dev);
}

/* Called with wookie_devices_lock held, at most once per device. */
static void wookie_queue_unregister(struct wookie_dev *wdev)
{
	lockdep_assert_held(&wookie_devices_lock);
	if (!wdev->registered || wdev->unregister_queued)
		return;
	wdev->unregister_queued = true;
	get_device(&wdev->ibdev.dev);
	queue_work(wookie_unreg_wq, &wdev->unregister_work);
}

static int wookie_check_netdev(struct net_device *ndev)
{
	if (ndev->type != ARPHRD_ETHER) {
		pr_warn_ratelimited("%s: netdev %s is not Ethernet (type %u); RoCEv2 needs Ethernet\n",
				    WOOKIE_DRV_NAME, ndev->name, ndev->type);
		return -EOPNOTSUPP;
	}
	if (!wookie_netdev_mtu_usable(READ_ONCE(ndev->mtu))) {
		pr_warn_ratelimited("%s: netdev %s MTU %u is below the %u bytes a 256-byte RoCEv2 packet needs\n",
				    WOOKIE_DRV_NAME, ndev->name, ndev->mtu,
				    256 + WOOKIE_MAX_ROCE_OVERHEAD);
		return -EINVAL;
	}
	return 0;
}

static int wookie_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct ib_device *existing;
	struct wookie_dev *wdev;
	int err;

	err = wookie_check_netdev(ndev);
	if (err)
		return err;

	/* ib_core would fail a taken name with ENFILE; say what it is. */
	existing = ib_device_get_by_name(ibdev_name, RDMA_DRIVER_UNKNOWN);
	if (existing) {
		ib_device_put(existing);
		pr_warn_ratelimited("%s: an RDMA device named %s exists already\n",
				    WOOKIE_DRV_NAME, ibdev_name);
		return -EEXIST;
	}

	wdev = wookie_device_alloc(ndev);
	if (!wdev)
		return -ENOMEM;

	/* Listed before registering so a concurrent add on ndev fails. */
	mutex_lock(&wookie_devices_lock);
	if (wookie_find_by_netdev(ndev)) {
		mutex_unlock(&wookie_devices_lock);
		pr_warn_ratelimited("%s: netdev %s has a wookie device already\n",
				    WOOKIE_DRV_NAME, ndev->name);
		ib_dealloc_device(&wdev->ibdev);
		return -EEXIST;
	}
	INIT_WORK(&wdev->unregister_work, wookie_unregister_work);
	wookie_device_list_add(wdev);
	mutex_unlock(&wookie_devices_lock);

	/*
	 * Once registered, `rdma link delete` may unregister the device
	 * and the reaper drop the list's reference before we look at it
	 * again below: hold the memory until then.
	 */
	get_device(&wdev->ibdev.dev);
	err = wookie_device_register(wdev, ibdev_name);
	if (err) {
		pr_warn_ratelimited("%s: registering %s on %s failed: %d\n",
				    WOOKIE_DRV_NAME, ibdev_name, ndev->name, err);
		/* Unlists it through dealloc_driver. */
		ib_dealloc_device(&wdev->ibdev);
		put_device(&wdev->ibdev.dev);
		return err;
	}

	/*
	 * The netdev may have started unregistering while we registered;
	 * its NETDEV_UNREGISTER event skipped us then.  Both that event and
	 * this check run under rtnl, so exactly one of them sees the other.
	 * A device unregistered meanwhile (dealloced) is left as it is.
	 */
	rtnl_lock();
	mutex_lock(&wookie_devices_lock);
	if (!wdev->dealloced) {
		wdev->registered = true;
		wdev->port_state = wookie_current_port_state(wdev);
		if (ndev->reg_state != NETREG_REGISTERED)
			wookie_queue_unregister(wdev);
	}
	mutex_unlock(&wookie_devices_lock);
	rtnl_unlock();
	put_device(&wdev->ibdev.dev);
	return 0;
}

static struct rdma_link_ops wookie_link_ops = {
	.type = WOOKIE_DRV_NAME,
	.newlink = wookie_newlink,
};

static int wookie_netdev_event(struct notifier_block *nb, unsigned long event,
			       void *arg)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(arg);
	struct wookie_dev *wdev;

	mutex_lock(&wookie_devices_lock);
	wdev = wookie_find_by_netdev(ndev);
	if (!wdev || !wdev->registered)
		goto out;

	switch (event) {
	case NETDEV_UNREGISTER:
		wookie_queue_unregister(wdev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
		wookie_port_event(wdev, wookie_current_port_state(wdev));
		break;
	default:
		break;
	}
out:
	mutex_unlock(&wookie_devices_lock);
	return NOTIFY_DONE;
}

static struct notifier_block wookie_netdev_notifier = {
	.notifier_call = wookie_netdev_event,
};

/*
 * Unregister every device still listed, and wait for unregistrations
 * already under way (see wookie_device_unlist()).
 */
static void wookie_remove_all(void)
{
	struct wookie_dev *wdev;

	for (;;) {
		mutex_lock(&wookie_devices_lock);
		wdev = list_first_entry_or_null(&wookie_devices,
						struct wookie_dev, list);
		if (wdev)
			list_del_init(&wdev->list);
		mutex_unlock(&wookie_devices_lock);
		if (!wdev)
			break;
		wookie_device_unlist(wdev);
	}
	/* A reaper that took a device before us is done with it after this. */
	flush_work(&wookie_reap_work);
}

static int __init wookie_init(void)
{
	int err;

	wookie_unreg_wq = alloc_workqueue("wookie_unreg", 0, 0);
	if (!wookie_unreg_wq)
		return -ENOMEM;
	err = wookie_pkt_cache_init();
	if (err)
		goto err_wq;
	err = wookie_net_init();
	if (err)
		goto err_cache;
	err = register_netdevice_notifier(&wookie_netdev_notifier);
	if (err)
		goto err_net;
	rdma_link_register(&wookie_link_ops);
	pr_info("%s: loaded, ABI version %u\n", WOOKIE_DRV_NAME,
		WOOKIE_ABI_VERSION);
	return 0;

err_net:
	wookie_net_exit();
err_cache:
	wookie_pkt_cache_exit();
err_wq:
	destroy_workqueue(wookie_unreg_wq);
	return err;
}

static void __exit wookie_exit(void)
{
	/* No new devices: waits for any newlink in progress. */
	rdma_link_unregister(&wookie_link_ops);
	/* No new queued unregistrations. */
	unregister_netdevice_notifier(&wookie_netdev_notifier);
	wookie_remove_all();
	/*
	 * Queued unregistrations find their devices unregistered by now;
	 * they run this module's code until they drop their reference.
	 */
	destroy_workqueue(wookie_unreg_wq);
	/* The last multicast attachments' callbacks run this module's code. */
	rcu_barrier();
	/* Every namespace's sockets went with its last device. */
	wookie_net_exit();
	wookie_pkt_cache_exit();
	pr_info("%s: unloaded\n", WOOKIE_DRV_NAME);
}

module_init(wookie_init);
module_exit(wookie_exit);

MODULE_ALIAS_RDMA_LINK("wookie");
