// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module for tests/vm/handler-teardown.sh: a kernel consumer
 * whose handlers destroy or reset their own QP, which ib_core allows.
 * On load it finds the RDMA device named by device= (the test's wookie
 * device) and runs five scenarios, each on a fresh PD, two CQs and two RC
 * QPs connected to each other through GID index 1 (the device's own
 * IPv4-mapped address, so the packets loop back):
 *
 *   cq-destroy    QP 0 SENDs to QP 1; the completion handler of QP 0's
 *                 CQ (armed IB_CQ_NEXT_COMP) destroys QP 0.
 *   cq-reset      the same, the handler moves QP 0 to RESET.
 *   event-destroy QP 0 WRITEs with a bad rkey to QP 1, which raises
 *                 IB_EVENT_QP_ACCESS_ERR; QP 1's event handler destroys
 *                 QP 1.
 *   event-reset   the same, the handler moves QP 1 to RESET.
 *   srq-destroy   QP 1 receives from an SRQ with its limit armed at 2
 *                 and two receives posted; QP 0 SENDs, so QP 1 takes
 *                 one and IB_EVENT_SRQ_LIMIT_REACHED is raised; the
 *                 SRQ's event handler destroys QP 1.
 *
 * Every wait is bounded (timeout_ms=): a handler that never returns is
 * reported, never waited for, and the next scenario runs.  The result goes to the kernel log, one
 * "wookie_handler_test: PASS name" or "... FAIL name: why" line per
 * scenario and a last "wookie_handler_test: N passed, N failed".  Load
 * fails (-EIO) when a scenario failed and everything was cleaned up.
 * When a handler is stuck the module stays loaded and pins itself (its
 * code is still running), leaking the objects of that scenario.
 */
#include <linux/completion.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#define HT "wookie_handler_test: "

static char *device = "zz0";
module_param(device, charp, 0444);
MODULE_PARM_DESC(device, "RDMA device to test (default zz0)");

static unsigned int timeout_ms = 15000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "bound of each wait, in ms (default 15000)");

enum ht_action {
	HT_DESTROY,
	HT_RESET,
};

/* Which handler acts. */
enum ht_by {
	HT_BY_COMPLETION,
	HT_BY_QP_EVENT,
	HT_BY_SRQ_EVENT,
};

struct ht_scenario {
	const char *name;
	enum ht_by by;
	enum ht_action action;
};

static const struct ht_scenario ht_scenarios[] = {
	{ "cq-destroy", HT_BY_COMPLETION, HT_DESTROY },
	{ "cq-reset", HT_BY_COMPLETION, HT_RESET },
	{ "event-destroy", HT_BY_QP_EVENT, HT_DESTROY },
	{ "event-reset", HT_BY_QP_EVENT, HT_RESET },
	{ "srq-destroy", HT_BY_SRQ_EVENT, HT_DESTROY },
};

struct ht_pair {
	const struct ht_scenario *sc;
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq[2];
	struct ib_qp *qp[2];
	/* srq-*: QP 1's receive queue. */
	struct ib_srq *srq;
	/* QP 0 sends from buf, QP 1 receives at buf + PAGE_SIZE / 2. */
	void *buf;
	u64 dma;
	/* Which QP the handler acts on. */
	int victim;
	/* Set by the handler. */
	atomic_t calls;
	enum ib_event_type event;
	int action_ret;
	struct completion done;
};

/* Do the scenario's action on the victim QP, once; from a handler. */
static void ht_act(struct ht_pair *p)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RESET };
	struct ib_qp *qp = p->qp[p->victim];

	if (atomic_inc_return(&p->calls) != 1)
		return;
	if (p->sc->action == HT_DESTROY) {
		p->action_ret = ib_destroy_qp(qp);
		if (!p->action_ret)
			WRITE_ONCE(p->qp[p->victim], NULL);
	} else {
		p->action_ret = ib_modify_qp(qp, &attr, IB_QP_STATE);
	}
	complete(&p->done);
}

static void ht_comp_handler(struct ib_cq *cq, void *ctx)
{
	ht_act(ctx);
}

static void ht_qp_event(struct ib_event *ev, void *ctx)
{
	struct ht_pair *p = ctx;

	switch (ev->event) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
	case IB_EVENT_QP_LAST_WQE_REACHED:
		if (ev->element.qp != p->qp[p->victim])
			return;
		if (atomic_read(&p->calls) == 0)
			p->event = ev->event;
		ht_act(p);
		return;
	default:
		return;
	}
}

static void ht_srq_event(struct ib_event *ev, void *ctx)
{
	struct ht_pair *p = ctx;

	if (ev->event != IB_EVENT_SRQ_LIMIT_REACHED)
		return;
	if (atomic_read(&p->calls) == 0)
		p->event = ev->event;
	ht_act(p);
}

static int ht_connect(struct ht_pair *p, int i, union ib_gid *gid)
{
	struct ib_qp_attr a = {};
	int err;

	a.qp_state = IB_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	err = ib_modify_qp(p->qp[i], &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (err)
		return err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	a.path_mtu = IB_MTU_1024;
	a.dest_qp_num = p->qp[!i]->qp_num;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.type = rdma_ah_find_type(p->dev, 1);
	rdma_ah_set_port_num(&a.ah_attr, 1);
	rdma_ah_set_grh(&a.ah_attr, gid, 0, 1, 1, 0);
	err = ib_modify_qp(p->qp[i], &a, IB_QP_STATE | IB_QP_AV |
			   IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (err)
		return err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ib_modify_qp(p->qp[i], &a, IB_QP_STATE | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			    IB_QP_SQ_PSN | IB_QP_MAX_QP_RD_ATOMIC);
}

static int ht_setup(struct ht_pair *p)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 16 };
	union ib_gid gid;
	int i, err;

	err = rdma_query_gid(p->dev, 1, 1, &gid);
	if (err)
		return err;
	p->pd = ib_alloc_pd(p->dev, 0);
	if (IS_ERR(p->pd)) {
		err = PTR_ERR(p->pd);
		p->pd = NULL;
		return err;
	}
	p->buf = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!p->buf)
		return -ENOMEM;
	p->dma = ib_dma_map_single(p->dev, p->buf, PAGE_SIZE,
				   DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(p->dev, p->dma)) {
		p->dma = 0;
		return -ENOMEM;
	}
	for (i = 0; i < 2; i++) {
		/* Only QP 0's CQ has a completion handler, and only for cq-*. */
		bool handler = i == 0 && p->sc->by == HT_BY_COMPLETION;

		p->cq[i] = ib_create_cq(p->dev,
					handler ? ht_comp_handler : NULL,
					NULL, p, &cq_attr);
		if (IS_ERR(p->cq[i])) {
			err = PTR_ERR(p->cq[i]);
			p->cq[i] = NULL;
			return err;
		}
	}
	if (p->sc->by == HT_BY_SRQ_EVENT) {
		struct ib_srq_init_attr srq_init = {
			.event_handler = ht_srq_event,
			.srq_context = p,
			.attr = { .max_wr = 4, .max_sge = 1 },
			.srq_type = IB_SRQT_BASIC,
		};

		p->srq = ib_create_srq(p->pd, &srq_init);
		if (IS_ERR(p->srq)) {
			err = PTR_ERR(p->srq);
			p->srq = NULL;
			return err;
		}
	}
	for (i = 0; i < 2; i++) {
		struct ib_qp_init_attr init = {
			.event_handler = ht_qp_event,
			.qp_context = p,
			.send_cq = p->cq[i],
			.recv_cq = p->cq[i],
			.cap = {
				.max_send_wr = 4,
				.max_recv_wr = 4,
				.max_send_sge = 1,
				.max_recv_sge = 1,
			},
			.sq_sig_type = IB_SIGNAL_ALL_WR,
			.qp_type = IB_QPT_RC,
			.srq = i == 1 ? p->srq : NULL,
		};

		p->qp[i] = ib_create_qp(p->pd, &init);
		if (IS_ERR(p->qp[i])) {
			err = PTR_ERR(p->qp[i]);
			p->qp[i] = NULL;
			return err;
		}
	}
	for (i = 0; i < 2; i++) {
		err = ht_connect(p, i, &gid);
		if (err)
			return err;
	}
	return 0;
}

static void ht_teardown(struct ht_pair *p)
{
	int i;

	for (i = 0; i < 2; i++)
		if (p->qp[i] && ib_destroy_qp(p->qp[i]))
			pr_err(HT "%s: destroying QP %d failed\n", p->sc->name,
			       i);
	if (p->srq)
		ib_destroy_srq(p->srq);
	for (i = 0; i < 2; i++)
		if (p->cq[i])
			ib_destroy_cq(p->cq[i]);
	if (p->dma)
		ib_dma_unmap_single(p->dev, p->dma, PAGE_SIZE,
				    DMA_BIDIRECTIONAL);
	kfree(p->buf);
	if (p->pd)
		ib_dealloc_pd(p->pd);
}

/* Start the traffic whose completion or event makes the handler act. */
static int ht_trigger(struct ht_pair *p)
{
	struct ib_sge rsge = {
		.addr = p->dma + PAGE_SIZE / 2,
		.length = 64,
		.lkey = p->pd->local_dma_lkey,
	};
	struct ib_sge ssge = {
		.addr = p->dma,
		.length = 64,
		.lkey = p->pd->local_dma_lkey,
	};
	struct ib_recv_wr rwr = { .wr_id = 1, .sg_list = &rsge, .num_sge = 1 };
	struct ib_rdma_wr wwr = {
		.wr = {
			.wr_id = 2,
			.sg_list = &ssge,
			.num_sge = 1,
			.send_flags = IB_SEND_SIGNALED,
		},
		/* No such key: the responder's QP fails with an access error. */
		.remote_addr = p->dma,
		.rkey = 0xdead0000,
	};
	struct ib_srq_attr srq_attr = { .srq_limit = 2 };
	const struct ib_recv_wr *rbad;
	const struct ib_send_wr *sbad;
	int err, i;

	switch (p->sc->by) {
	case HT_BY_COMPLETION:
		err = ib_req_notify_cq(p->cq[0], IB_CQ_NEXT_COMP);
		if (err < 0)
			return err;
		err = ib_post_recv(p->qp[1], &rwr, &rbad);
		if (err)
			return err;
		wwr.wr.opcode = IB_WR_SEND;
		break;
	case HT_BY_QP_EVENT:
		wwr.wr.opcode = IB_WR_RDMA_WRITE;
		break;
	case HT_BY_SRQ_EVENT:
		/* Two posted, limit 2: taking one reaches it. */
		for (i = 0; i < 2; i++) {
			err = ib_post_srq_recv(p->srq, &rwr, &rbad);
			if (err)
				return err;
		}
		err = ib_modify_srq(p->srq, &srq_attr, IB_SRQ_LIMIT);
		if (err)
			return err;
		wwr.wr.opcode = IB_WR_SEND;
		break;
	}
	return ib_post_send(p->qp[0], &wwr.wr, &sbad);
}

/* Returns 0 (passed), 1 (failed, cleaned up) or -1 (a handler is stuck). */
static int ht_run(const struct ht_scenario *sc, struct ib_device *dev)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	struct ht_pair *p;
	int err, ret = 1;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return 1;
	p->sc = sc;
	p->dev = dev;
	p->victim = sc->by == HT_BY_COMPLETION ? 0 : 1;
	atomic_set(&p->calls, 0);
	init_completion(&p->done);

	err = ht_setup(p);
	if (err) {
		pr_err(HT "FAIL %s: setup: %d\n", sc->name, err);
		goto out;
	}
	err = ht_trigger(p);
	if (err) {
		pr_err(HT "FAIL %s: posting: %d\n", sc->name, err);
		goto out;
	}
	if (!wait_for_completion_timeout(&p->done,
					 msecs_to_jiffies(timeout_ms))) {
		/* The handler never came back, or never came: stop here. */
		pr_err(HT "FAIL %s: the handler did not return within %u ms (%d calls)\n",
		       sc->name, timeout_ms, atomic_read(&p->calls));
		if (atomic_read(&p->calls))
			return -1;	/* p and its objects stay: in use */
		goto out;
	}
	if (p->action_ret) {
		pr_err(HT "FAIL %s: %s from the handler returned %d\n",
		       sc->name,
		       sc->action == HT_DESTROY ? "destroy" : "modify to RESET",
		       p->action_ret);
		goto out;
	}
	if ((sc->by == HT_BY_QP_EVENT && p->event != IB_EVENT_QP_ACCESS_ERR) ||
	    (sc->by == HT_BY_SRQ_EVENT &&
	     p->event != IB_EVENT_SRQ_LIMIT_REACHED)) {
		pr_err(HT "FAIL %s: event %d\n", sc->name, p->event);
		goto out;
	}
	if (sc->action == HT_RESET) {
		err = ib_query_qp(p->qp[p->victim], &attr, IB_QP_STATE, &init);
		if (err || attr.qp_state != IB_QPS_RESET) {
			pr_err(HT "FAIL %s: query: %d, state %d, not RESET\n",
			       sc->name, err, attr.qp_state);
			goto out;
		}
	}
	pr_info(HT "PASS %s\n", sc->name);
	ret = 0;
out:
	ht_teardown(p);
	kfree(p);
	return ret;
}

static int __init ht_init(void)
{
	struct ib_device *dev;
	int passed = 0, failed = 0, stuck = 0;
	size_t i;

	dev = ib_device_get_by_name(device, RDMA_DRIVER_UNKNOWN);
	if (!dev) {
		pr_err(HT "FAIL no RDMA device %s\n", device);
		return -ENODEV;
	}
	for (i = 0; i < ARRAY_SIZE(ht_scenarios); i++) {
		int r = ht_run(&ht_scenarios[i], dev);

		if (!r) {
			passed++;
			continue;
		}
		failed++;
		/* The others use objects of their own: go on. */
		if (r < 0)
			stuck++;
	}
	pr_info(HT "%d passed, %d failed\n", passed, failed);
	if (stuck) {
		/* Its code is running in a stuck handler: never unload. */
		__module_get(THIS_MODULE);
		pr_err(HT "%d handler(s) stuck: the module stays loaded\n",
		       stuck);
		return 0;
	}
	ib_device_put(dev);
	return failed ? -EIO : 0;
}

static void __exit ht_exit(void)
{
}

module_init(ht_init);
module_exit(ht_exit);

MODULE_DESCRIPTION("wookie VM test: handlers that destroy or reset their QP");
MODULE_LICENSE("GPL");
