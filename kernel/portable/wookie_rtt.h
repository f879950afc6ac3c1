/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The RC requester's round-trip time, for the tail-loss probe.  A loss at
 * the end of a burst (the last responses of a READ, a READ request, the
 * last packets of a WRITE) leaves nothing behind it to reveal the gap: no
 * later response, no sequence NAK.  Only the ACK timeout would resend it,
 * and that is seconds with rdma_cm's defaults; a host writing to a disk
 * over NVMe-oF (whose target READs the data) waited that long per loss.
 * So once responses have stopped for a few round trips, the completer
 * asks again, once (TCP's tail loss probe does the same).
 *
 * One packet at a time is timed, from its first transmission to the
 * first response past it; going back cancels the timing, so that a
 * response to a packet sent twice times neither (Karn).  Smoothed as
 * TCP's retransmission timer (RFC 6298), in nanoseconds.  Shared by the
 * module, KUnit and the host unit tests.
 */
#ifndef WOOKIE_RTT_H
#define WOOKIE_RTT_H

#include "wookie_wire.h"

/* A sample is at most this long: a QP stalled for minutes skews nothing. */
#define WOOKIE_RTT_MAX_NS 10000000000ULL

struct wookie_rtt {
	/* Smoothed round trip and its mean deviation; srtt_ns 0: none yet. */
	__u64 srtt_ns;
	__u64 rttvar_ns;
	/* The packet timed, and when it was sent. */
	__u64 sent_ns;
	__u32 psn;
	bool timing;
};

/* A packet with @psn, never sent before, goes out at @now_ns. */
static inline void wookie_rtt_sent(struct wookie_rtt *r, __u32 psn,
				   __u64 now_ns)
{
	if (r->timing)
		return;
	r->timing = true;
	r->psn = psn & WOOKIE_PSN_MASK;
	r->sent_ns = now_ns;
}

/* The requester goes back: what comes next may answer either sending. */
static inline void wookie_rtt_cancel(struct wookie_rtt *r)
{
	r->timing = false;
}

/*
 * Responses arrived up to, not including, @next at @now_ns: a sample once
 * they are past the packet timed.
 */
static inline void wookie_rtt_acked(struct wookie_rtt *r, __u32 next,
				    __u64 now_ns)
{
	__u64 sample, err;

	if (!r->timing ||
	    wookie_psn_diff(next & WOOKIE_PSN_MASK, r->psn) <= 0)
		return;
	r->timing = false;
	sample = now_ns > r->sent_ns ? now_ns - r->sent_ns : 0;
	if (sample > WOOKIE_RTT_MAX_NS)
		sample = WOOKIE_RTT_MAX_NS;
	/* 0 means no sample: the first one is at least a nanosecond. */
	if (!sample)
		sample = 1;
	if (!r->srtt_ns) {
		r->srtt_ns = sample;
		r->rttvar_ns = sample / 2;
		return;
	}
	err = sample > r->srtt_ns ? sample - r->srtt_ns : r->srtt_ns - sample;
	r->rttvar_ns = r->rttvar_ns - r->rttvar_ns / 4 + err / 4;
	r->srtt_ns = r->srtt_ns - r->srtt_ns / 8 + sample / 8;
	if (!r->srtt_ns)
		r->srtt_ns = 1;
}

/*
 * How long responses may stop before the completer probes: two round
 * trips and four deviations, within [@floor_ns, @cap_ns].  0, no probe,
 * before the first sample: how long a round trip takes is not known then,
 * and a peer that never answered is left to the ACK timeout alone.
 */
static inline __u64 wookie_rtt_probe_ns(const struct wookie_rtt *r,
					__u64 floor_ns, __u64 cap_ns)
{
	__u64 t;

	if (!r->srtt_ns)
		return 0;
	t = 2 * r->srtt_ns + 4 * r->rttvar_ns;
	if (t < floor_ns)
		t = floor_ns;
	if (t > cap_ns)
		t = cap_ns;
	return t;
}

#endif /* WOOKIE_RTT_H */
