// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Counters: the port's (`rdma statistic show link`) and per QP
 * (`rdma statistic qp set link X/1 auto type on`, `... bind ... lqpn N`).
 *
 * ib_core allocates an rdma_counter and asks the driver to bind QPs to
 * it; as on a NIC with QP counters, a bound QP then counts its events in
 * its counter's set instead of the port's.  ib_core adds every counter
 * (and what unbound counters counted) to the port's figures, so each
 * event is counted once in `rdma statistic show link` either way.
 * Events without a QP (bad ICRC, unknown QPN, bad P_Key) are the port's.
 */
#include <rdma/rdma_counter.h>

#include "wookie.h"

static const struct rdma_stat_desc wookie_counter_descs[] = {
	[WOOKIE_CNT_SENT_PKTS].name = "sent_pkts",
	[WOOKIE_CNT_RCVD_PKTS].name = "rcvd_pkts",
	[WOOKIE_CNT_DUP_REQ].name = "duplicate_request",
	[WOOKIE_CNT_OUT_OF_SEQ_REQ].name = "out_of_seq_request",
	[WOOKIE_CNT_RCV_RNR].name = "rcvd_rnr_err",
	[WOOKIE_CNT_SND_RNR].name = "send_rnr_err",
	[WOOKIE_CNT_RCV_SEQ_ERR].name = "rcvd_seq_err",
	[WOOKIE_CNT_ACK_DEFERRED].name = "ack_deferred",
	[WOOKIE_CNT_RETRY_EXCEEDED].name = "retry_exceeded_err",
	[WOOKIE_CNT_RNR_RETRY_EXCEEDED].name = "retry_rnr_exceeded_err",
	[WOOKIE_CNT_COMP_RETRY].name = "completer_retry_err",
	[WOOKIE_CNT_SEND_ERR].name = "send_err",
	[WOOKIE_CNT_LINK_DOWNED].name = "link_downed",
	[WOOKIE_CNT_RDMA_SEND].name = "rdma_sends",
	[WOOKIE_CNT_RDMA_RECV].name = "rdma_recvs",
	[WOOKIE_CNT_RX_ICRC_ERR].name = "rx_icrc_err",
	[WOOKIE_CNT_RX_BAD_HDR].name = "rx_drop_bad_hdr",
	[WOOKIE_CNT_RX_NO_QP].name = "rx_drop_no_qp",
	[WOOKIE_CNT_RX_BAD_PSN].name = "rx_drop_bad_psn",
	[WOOKIE_CNT_RX_BAD_RKEY].name = "rx_drop_bad_rkey",
	[WOOKIE_CNT_RX_BAD_QKEY].name = "rx_drop_bad_qkey",
	[WOOKIE_CNT_RX_BAD_PKEY].name = "rx_drop_bad_pkey",
	[WOOKIE_CNT_RX_TOO_LONG].name = "rx_drop_too_long",
	[WOOKIE_CNT_RX_QP_BUSY].name = "rx_drop_qp_busy",
	[WOOKIE_CNT_TX_NO_ROUTE].name = "tx_drop_no_route",
	[WOOKIE_CNT_TAIL_PROBE].name = "tail_loss_probes",
	[WOOKIE_CNT_ODP_FAULTS].name = "odp_faults",
	[WOOKIE_CNT_ODP_INVALIDATIONS].name = "odp_invalidations",
	[WOOKIE_CNT_ODP_PREFETCHES].name = "odp_prefetches",
	[WOOKIE_CNT_ODP_CHILDREN].name = "odp_implicit_children",
};

static_assert(ARRAY_SIZE(wookie_counter_descs) == WOOKIE_NUM_COUNTERS);

const char *wookie_counter_name(enum wookie_counter counter)
{
	return wookie_counter_descs[counter].name;
}

static struct rdma_hw_stats *wookie_alloc_stats(void)
{
	return rdma_alloc_hw_stats_struct(wookie_counter_descs,
					  ARRAY_SIZE(wookie_counter_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

struct rdma_hw_stats *wookie_alloc_hw_port_stats(struct ib_device *ibdev,
						 u32 port_num)
{
	return wookie_alloc_stats();
}

int wookie_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			u32 port, int index)
{
	struct wookie_dev *wdev = to_wookie_dev(ibdev);
	int i;

	for (i = 0; i < WOOKIE_NUM_COUNTERS; i++)
		stats->value[i] = atomic64_read(&wdev->counters[i]);
	return WOOKIE_NUM_COUNTERS;
}

struct rdma_hw_stats *wookie_counter_alloc_stats(struct rdma_counter *counter)
{
	return wookie_alloc_stats();
}

/*
 * ib_core calls this under counter->lock, once per QP.  A counter's first
 * QP finds its id 0: the set is made then, and its index is the id
 * (which ib_core's resource tracking takes as the counter's number).
 * ib_core checks that the QP is unbound before it takes the lock, so two
 * binds of one QP (two threads modifying it to INIT in auto mode, or two
 * `rdma statistic qp bind`) can both get here: the second is refused.
 */
int wookie_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp)
{
	struct wookie_dev *wdev = to_wookie_dev(counter->device);
	struct wookie_qp *qp = to_wookie_qp(ibqp);
	struct wookie_counter_set *set;
	bool made = false;
	u32 id;
	int err;

	if (counter->id) {
		set = xa_load(&wdev->counter_sets, counter->id);
		if (!set)
			return -EINVAL;
	} else {
		set = kzalloc(sizeof(*set), GFP_KERNEL_ACCOUNT);
		if (!set)
			return -ENOMEM;
		err = xa_alloc(&wdev->counter_sets, &id, set, xa_limit_31b,
			       GFP_KERNEL_ACCOUNT);
		if (err) {
			kfree(set);
			return err;
		}
		counter->id = id;
		made = true;
	}
	mutex_lock(&qp->modify_lock);
	if (ibqp->counter) {
		mutex_unlock(&qp->modify_lock);
		/* ib_core frees a counter whose first bind fails itself. */
		if (made) {
			xa_erase(&wdev->counter_sets, counter->id);
			kfree(set);
			counter->id = 0;
		}
		return -EBUSY;
	}
	set->num_qps++;
	rcu_assign_pointer(qp->counter_set, set);
	ibqp->counter = counter;
	mutex_unlock(&qp->modify_lock);
	return 0;
}

/*
 * What the QP counted stays in the counter's set.  ib_core reads the set
 * one last time once its last QP is gone (into the port's history): an
 * engine pass still counting through the old pointer must be over by
 * then, or its event would be in neither.
 */
int wookie_counter_unbind_qp(struct ib_qp *ibqp)
{
	struct wookie_qp *qp = to_wookie_qp(ibqp);
	struct wookie_counter_set *set;

	mutex_lock(&qp->modify_lock);
	set = rcu_dereference_protected(qp->counter_set,
					lockdep_is_held(&qp->modify_lock));
	if (!ibqp->counter || !set) {
		mutex_unlock(&qp->modify_lock);
		return -EINVAL;
	}
	RCU_INIT_POINTER(qp->counter_set, NULL);
	ibqp->counter = NULL;
	mutex_unlock(&qp->modify_lock);
	/* Under counter->lock, as every bind and unbind of this set. */
	if (!--set->num_qps)
		synchronize_rcu();
	return 0;
}

/* After the last unbind and a final counter_update_stats. */
int wookie_counter_dealloc(struct rdma_counter *counter)
{
	struct wookie_dev *wdev = to_wookie_dev(counter->device);
	struct wookie_counter_set *set;

	if (!counter->id)
		return 0;
	set = xa_erase(&wdev->counter_sets, counter->id);
	/* An engine pass that read the pointer before unbind may count. */
	if (set)
		kfree_rcu(set, rcu);
	return 0;
}

/* Under counter->lock: the counter and its set stay. */
int wookie_counter_update_stats(struct rdma_counter *counter)
{
	struct wookie_dev *wdev = to_wookie_dev(counter->device);
	struct wookie_counter_set *set;
	int i;

	set = xa_load(&wdev->counter_sets, counter->id);
	if (!set)
		return -EINVAL;
	for (i = 0; i < WOOKIE_NUM_COUNTERS; i++)
		counter->stats->value[i] = atomic64_read(&set->values[i]);
	return 0;
}

void wookie_counters_init(struct wookie_dev *wdev)
{
	xa_init_flags(&wdev->counter_sets, XA_FLAGS_ALLOC1);
}

/* ib_core has released every counter of the device by now. */
void wookie_counters_fini(struct wookie_dev *wdev)
{
	struct wookie_counter_set *set;
	unsigned long id;

	xa_for_each(&wdev->counter_sets, id, set)
		kfree(set);
	xa_destroy(&wdev->counter_sets);
}
