/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Known answers for kernel/portable/wookie_rtt.h: a script of packets
 * sent and acknowledged on one requester, with the smoothed round trip,
 * its deviation and the probe time (floor 1000 ns, cap 1 s) after each.
 * Shared by the KUnit suite (tests/kunit) and the host unit tests
 * (tests/unit).  Plain C that also compiles as C++; values worked out by
 * hand from RFC 6298, never derived from the code.
 */
#ifndef WOOKIE_RTT_VECTORS_H
#define WOOKIE_RTT_VECTORS_H

#include "wookie_rtt.h"

enum {
	WOOKIE_RSTEP_SENT,	/* wookie_rtt_sent(psn, ns) */
	WOOKIE_RSTEP_ACKED,	/* wookie_rtt_acked(psn, ns) */
	WOOKIE_RSTEP_CANCEL,	/* wookie_rtt_cancel() */
};

#define WOOKIE_RTT_TEST_FLOOR 1000ULL
#define WOOKIE_RTT_TEST_CAP 1000000000ULL

struct wookie_rtt_step {
	unsigned int op;
	__u32 psn;
	__u64 ns;
	__u64 srtt;
	__u64 rttvar;
	unsigned int timing;
	__u64 probe;
	const char *what;
};

static const struct wookie_rtt_step wookie_rtt_steps[] = {
	{ WOOKIE_RSTEP_SENT, 10, 0, 0, 0, 1, 0, "no sample: no probe" },
	{ WOOKIE_RSTEP_SENT, 11, 100, 0, 0, 1, 0, "one packet timed" },
	{ WOOKIE_RSTEP_ACKED, 10, 500, 0, 0, 1, 0, "not past the timed" },
	{ WOOKIE_RSTEP_ACKED, 11, 1000, 1000, 500, 0, 4000, "first sample" },
	{ WOOKIE_RSTEP_SENT, 20, 2000, 1000, 500, 1, 4000, "timed again" },
	{ WOOKIE_RSTEP_ACKED, 30, 4000, 1125, 625, 0, 4750, "smoothed" },
	{ WOOKIE_RSTEP_SENT, 40, 5000, 1125, 625, 1, 4750, "timed" },
	{ WOOKIE_RSTEP_CANCEL, 0, 0, 1125, 625, 0, 4750, "went back" },
	{ WOOKIE_RSTEP_ACKED, 50, 100000, 1125, 625, 0, 4750, "Karn: none" },
	{ WOOKIE_RSTEP_SENT, 0xfffffe, 10000, 1125, 625, 1, 4750, "wrap" },
	{ WOOKIE_RSTEP_ACKED, 1, 10800, 1085, 550, 0, 4370, "wrap: sample" },
	{ WOOKIE_RSTEP_SENT, 5, 20000, 1085, 550, 1, 4370, "a long stall" },
	{ WOOKIE_RSTEP_ACKED, 6, 20000020000ULL, 1250000950ULL, 2500000141ULL,
	  0, 1000000000ULL, "clamped to 10 s, probe at the cap" },
};

#endif /* WOOKIE_RTT_VECTORS_H */
