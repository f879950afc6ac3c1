// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The tracepoints (wookie_trace.h) are defined here, and the path every
 * dropped packet takes: counted, then traced with its counter's name.
 */
#include "wookie.h"

#define CREATE_TRACE_POINTS
#include "wookie_trace.h"

static void wookie_trace_dropped(struct wookie_dev *wdev,
				 enum wookie_counter reason,
				 const struct wookie_bth *bth)
{
	if (trace_wookie_drop_enabled())
		trace_wookie_drop(&wdev->ibdev, wookie_counter_name(reason),
				  bth, bth ? bth->dest_qp : 0,
				  bth ? bth->opcode : 0, bth ? bth->psn : 0);
}

void wookie_drop(struct wookie_dev *wdev, enum wookie_counter reason,
		 const struct wookie_bth *bth)
{
	wookie_count(wdev, reason);
	wookie_trace_dropped(wdev, reason, bth);
}

void wookie_qp_drop(struct wookie_qp *qp, enum wookie_counter reason,
		    const struct wookie_bth *bth)
{
	wookie_qp_count(qp, reason);
	wookie_trace_dropped(to_wookie_dev(qp->ibqp.device), reason, bth);
}
