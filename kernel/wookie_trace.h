/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * wookie's tracepoints, wookie:* (perf trace, trace-cmd, tracefs): QP
 * state changes, packets sent and received, packets dropped with the
 * counter that counts them, retransmissions with their cause, ACK
 * timeouts and RNR NAKs.  Every event names its device; a packet's QPN
 * is the one in its BTH (the destination), and the QP that sent it for
 * wookie_tx.  Off, each costs a not-taken branch.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM wookie

#if !defined(_WOOKIE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _WOOKIE_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>

/* The device's name, copied: __assign_str() differs between 6.1 and 6.12. */
#define WOOKIE_TRACE_DEV __array(char, dev, IB_DEVICE_NAME_MAX)
#define WOOKIE_TRACE_DEV_ASSIGN(ibdev) \
	strscpy(__entry->dev, dev_name(&(ibdev)->dev), IB_DEVICE_NAME_MAX)

TRACE_DEFINE_ENUM(IB_QPS_RESET);
TRACE_DEFINE_ENUM(IB_QPS_INIT);
TRACE_DEFINE_ENUM(IB_QPS_RTR);
TRACE_DEFINE_ENUM(IB_QPS_RTS);
TRACE_DEFINE_ENUM(IB_QPS_SQD);
TRACE_DEFINE_ENUM(IB_QPS_SQE);
TRACE_DEFINE_ENUM(IB_QPS_ERR);

#define wookie_show_qp_state(state)					\
	__print_symbolic(state, { IB_QPS_RESET, "RESET" },		\
			 { IB_QPS_INIT, "INIT" }, { IB_QPS_RTR, "RTR" },	\
			 { IB_QPS_RTS, "RTS" }, { IB_QPS_SQD, "SQD" },	\
			 { IB_QPS_SQE, "SQE" }, { IB_QPS_ERR, "ERR" })

TRACE_EVENT(wookie_qp_state,
	TP_PROTO(const struct ib_qp *ibqp, enum ib_qp_state old,
		 enum ib_qp_state new),
	TP_ARGS(ibqp, old, new),
	TP_STRUCT__entry(
		WOOKIE_TRACE_DEV
		__field(u32, qpn)
		__field(int, old)
		__field(int, new)
	),
	TP_fast_assign(
		WOOKIE_TRACE_DEV_ASSIGN(ibqp->device);
		__entry->qpn = ibqp->qp_num;
		__entry->old = old;
		__entry->new = new;
	),
	TP_printk("%s qpn %u %s -> %s", __entry->dev, __entry->qpn,
		  wookie_show_qp_state(__entry->old),
		  wookie_show_qp_state(__entry->new))
);

DECLARE_EVENT_CLASS(wookie_pkt_class,
	TP_PROTO(const struct ib_device *ibdev, u32 qpn, u8 opcode, u32 psn,
		 u32 len, bool local),
	TP_ARGS(ibdev, qpn, opcode, psn, len, local),
	TP_STRUCT__entry(
		WOOKIE_TRACE_DEV
		__field(u32, qpn)
		__field(u32, psn)
		__field(u32, len)
		__field(u8, opcode)
		__field(bool, local)
	),
	TP_fast_assign(
		WOOKIE_TRACE_DEV_ASSIGN(ibdev);
		__entry->qpn = qpn;
		__entry->psn = psn;
		__entry->len = len;
		__entry->opcode = opcode;
		__entry->local = local;
	),
	TP_printk("%s qpn %u opcode %#04x psn %#08x len %u%s", __entry->dev,
		  __entry->qpn, __entry->opcode, __entry->psn, __entry->len,
		  __entry->local ? " local" : "")
);

/* A packet leaves: to the wire, or in memory to a QP of this device. */
DEFINE_EVENT(wookie_pkt_class, wookie_tx,
	TP_PROTO(const struct ib_device *ibdev, u32 qpn, u8 opcode, u32 psn,
		 u32 len, bool local),
	TP_ARGS(ibdev, qpn, opcode, psn, len, local));

/* A packet was queued for its QP (from the wire, or @local). */
DEFINE_EVENT(wookie_pkt_class, wookie_rx,
	TP_PROTO(const struct ib_device *ibdev, u32 qpn, u8 opcode, u32 psn,
		 u32 len, bool local),
	TP_ARGS(ibdev, qpn, opcode, psn, len, local));

/*
 * A packet dropped, @reason the counter that counts it.  @parsed is false
 * when its headers were not read (yet, or could not be): no QPN, opcode
 * or PSN then.
 */
TRACE_EVENT(wookie_drop,
	TP_PROTO(const struct ib_device *ibdev, const char *reason,
		 bool parsed, u32 qpn, u8 opcode, u32 psn),
	TP_ARGS(ibdev, reason, parsed, qpn, opcode, psn),
	TP_STRUCT__entry(
		WOOKIE_TRACE_DEV
		__array(char, reason, 24)
		__field(u32, qpn)
		__field(u32, psn)
		__field(u8, opcode)
		__field(bool, parsed)
	),
	TP_fast_assign(
		WOOKIE_TRACE_DEV_ASSIGN(ibdev);
		strscpy(__entry->reason, reason, sizeof(__entry->reason));
		__entry->parsed = parsed;
		__entry->qpn = parsed ? qpn : 0;
		__entry->opcode = parsed ? opcode : 0;
		__entry->psn = parsed ? psn : 0;
	),
	TP_printk("%s %s%s qpn %u opcode %#04x psn %#08x", __entry->dev,
		  __entry->reason, __entry->parsed ? "" : " (not parsed)",
		  __entry->qpn, __entry->opcode, __entry->psn)
);

/*
 * The requester goes back to @psn: a sequence NAK, an ACK timeout, a
 * tail-loss probe, an RNR NAK, or a READ response missing.
 */
TRACE_EVENT(wookie_retransmit,
	TP_PROTO(const struct ib_qp *ibqp, u32 psn, const char *cause),
	TP_ARGS(ibqp, psn, cause),
	TP_STRUCT__entry(
		WOOKIE_TRACE_DEV
		__array(char, cause, 12)
		__field(u32, qpn)
		__field(u32, psn)
	),
	TP_fast_assign(
		WOOKIE_TRACE_DEV_ASSIGN(ibqp->device);
		strscpy(__entry->cause, cause, sizeof(__entry->cause));
		__entry->qpn = ibqp->qp_num;
		__entry->psn = psn;
	),
	TP_printk("%s qpn %u from psn %#08x (%s)", __entry->dev,
		  __entry->qpn, __entry->psn, __entry->cause)
);

/* No response in time for PSNs @psn up to @psn_end. */
TRACE_EVENT(wookie_ack_timeout,
	TP_PROTO(const struct ib_qp *ibqp, u32 psn, u32 psn_end,
		 u32 retries_left),
	TP_ARGS(ibqp, psn, psn_end, retries_left),
	TP_STRUCT__entry(
		WOOKIE_TRACE_DEV
		__field(u32, qpn)
		__field(u32, psn)
		__field(u32, psn_end)
		__field(u32, retries_left)
	),
	TP_fast_assign(
		WOOKIE_TRACE_DEV_ASSIGN(ibqp->device);
		__entry->qpn = ibqp->qp_num;
		__entry->psn = psn;
		__entry->psn_end = psn_end;
		__entry->retries_left = retries_left;
	),
	TP_printk("%s qpn %u psn %#08x sent to %#08x, %u retries left",
		  __entry->dev, __entry->qpn, __entry->psn, __entry->psn_end,
		  __entry->retries_left)
);

/* An RNR NAK for @psn, sent (no receive WQE here) or received. */
TRACE_EVENT(wookie_rnr,
	TP_PROTO(const struct ib_qp *ibqp, u32 psn, bool sent, u8 timer),
	TP_ARGS(ibqp, psn, sent, timer),
	TP_STRUCT__entry(
		WOOKIE_TRACE_DEV
		__field(u32, qpn)
		__field(u32, psn)
		__field(bool, sent)
		__field(u8, timer)
	),
	TP_fast_assign(
		WOOKIE_TRACE_DEV_ASSIGN(ibqp->device);
		__entry->qpn = ibqp->qp_num;
		__entry->psn = psn;
		__entry->sent = sent;
		__entry->timer = timer;
	),
	TP_printk("%s qpn %u psn %#08x %s, timer code %u", __entry->dev,
		  __entry->qpn, __entry->psn,
		  __entry->sent ? "sent" : "received", __entry->timer)
);

#endif /* _WOOKIE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE wookie_trace
#include <trace/define_trace.h>
