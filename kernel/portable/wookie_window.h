/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The RC requester's send window: how many PSNs it may have sent and not
 * had acknowledged.  Recovery is go-back-N, so every packet sent after a
 * lost one is sent again; on a lossy or congested link a full window
 * multiplies the traffic (and, on a veth, overflows the receive backlog
 * that dropped the packet in the first place).  So the window shrinks on
 * loss and grows back with acknowledgments: halved once per loss event
 * (a sequence NAK for a PSN sent after the last halving), back to the
 * minimum after an ACK timeout, one PSN larger per acknowledgment that
 * moves forward.  The packet that fills the window asks for an ACK.
 * Shared by the module, KUnit and the host unit tests.
 */
#ifndef WOOKIE_WINDOW_H
#define WOOKIE_WINDOW_H

#include "wookie_wire.h"

enum {
	/*
	 * Twice the distance between two packets that ask for an ACK
	 * (WOOKIE_ACK_REQ_EVERY): the window slides on the ACK of its first
	 * half while the second is sent, and a lost packet is followed by
	 * others, whose arrival NAKs it, rather than by the ACK timeout.
	 */
	WOOKIE_WINDOW_MIN = 32,
	WOOKIE_WINDOW_MAX = 128,
};

struct wookie_window {
	/* PSNs that may be outstanding: WOOKIE_WINDOW_MIN..MAX. */
	__u32 size;
	/*
	 * After a halving: one past the highest PSN sent then.  A NAK for a
	 * PSN before it is the same loss event.
	 */
	__u32 recover_psn;
	bool recovering;
};

static inline void wookie_window_init(struct wookie_window *w)
{
	w->size = WOOKIE_WINDOW_MAX;
	w->recover_psn = 0;
	w->recovering = false;
}

/*
 * A sequence NAK for @psn made the requester go back, with @sent_end one
 * past the highest PSN it sent.  Returns true when this halved the
 * window (a new loss event).
 */
static inline bool wookie_window_nak(struct wookie_window *w, __u32 psn,
				     __u32 sent_end)
{
	if (w->recovering &&
	    wookie_psn_diff(psn & WOOKIE_PSN_MASK, w->recover_psn) < 0)
		return false;
	w->size /= 2;
	if (w->size < WOOKIE_WINDOW_MIN)
		w->size = WOOKIE_WINDOW_MIN;
	w->recover_psn = sent_end & WOOKIE_PSN_MASK;
	w->recovering = true;
	return true;
}

/* The ACK timeout fired with @sent_end one past the highest PSN sent. */
static inline void wookie_window_timeout(struct wookie_window *w,
					 __u32 sent_end)
{
	w->size = WOOKIE_WINDOW_MIN;
	w->recover_psn = sent_end & WOOKIE_PSN_MASK;
	w->recovering = true;
}

/* An acknowledgment moved the oldest unacknowledged PSN to @oldest. */
static inline void wookie_window_acked(struct wookie_window *w, __u32 oldest)
{
	if (w->recovering &&
	    wookie_psn_diff(oldest & WOOKIE_PSN_MASK, w->recover_psn) >= 0)
		w->recovering = false;
	if (w->size < WOOKIE_WINDOW_MAX)
		w->size++;
}

/* May a packet with PSN @next be sent while @oldest is unacknowledged? */
static inline bool wookie_window_open(const struct wookie_window *w,
				      __u32 next, __u32 oldest)
{
	return wookie_psn_diff(next & WOOKIE_PSN_MASK,
			       oldest & WOOKIE_PSN_MASK) < (int)w->size;
}

#endif /* WOOKIE_WINDOW_H */
