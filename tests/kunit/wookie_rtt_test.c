// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite for kernel/portable/wookie_rtt.h (the requester's round
 * trip, for the tail-loss probe) on the script shared with the host
 * tests, plus the probe time's bounds.
 */
#include <kunit/test.h>
#include <linux/kernel.h>

#include "wookie_rtt.h"
#include "wookie_rtt_vectors.h"

static void wookie_rtt_script_test(struct kunit *test)
{
	struct wookie_rtt r = {};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(wookie_rtt_steps); i++) {
		const struct wookie_rtt_step *s = &wookie_rtt_steps[i];

		switch (s->op) {
		case WOOKIE_RSTEP_SENT:
			wookie_rtt_sent(&r, s->psn, s->ns);
			break;
		case WOOKIE_RSTEP_ACKED:
			wookie_rtt_acked(&r, s->psn, s->ns);
			break;
		default:
			wookie_rtt_cancel(&r);
			break;
		}
		KUNIT_EXPECT_EQ_MSG(test, r.srtt_ns, s->srtt, "%s", s->what);
		KUNIT_EXPECT_EQ_MSG(test, r.rttvar_ns, s->rttvar, "%s", s->what);
		KUNIT_EXPECT_EQ_MSG(test, (unsigned int)r.timing, s->timing,
				    "%s", s->what);
		KUNIT_EXPECT_EQ_MSG(test,
				    wookie_rtt_probe_ns(&r, WOOKIE_RTT_TEST_FLOOR,
							WOOKIE_RTT_TEST_CAP),
				    s->probe, "%s", s->what);
	}
}

/* A round trip shorter than the floor probes at the floor; 0 ns is 1. */
static void wookie_rtt_bounds_test(struct kunit *test)
{
	struct wookie_rtt r = {};

	wookie_rtt_sent(&r, 1, 5000);
	wookie_rtt_acked(&r, 2, 5010);
	KUNIT_EXPECT_EQ(test, r.srtt_ns, 10ULL);
	KUNIT_EXPECT_EQ(test, wookie_rtt_probe_ns(&r, 1000, 5000), 1000ULL);

	memset(&r, 0, sizeof(r));
	wookie_rtt_sent(&r, 1, 5000);
	wookie_rtt_acked(&r, 2, 4000);	/* a clock that went back */
	KUNIT_EXPECT_EQ(test, r.srtt_ns, 1ULL);
	/* Its deviation rounds to 0: two round trips. */
	KUNIT_EXPECT_EQ(test, wookie_rtt_probe_ns(&r, 0, 5000), 2ULL);
}

static struct kunit_case wookie_rtt_cases[] = {
	KUNIT_CASE(wookie_rtt_script_test),
	KUNIT_CASE(wookie_rtt_bounds_test),
	{}
};

static struct kunit_suite wookie_rtt_suite = {
	.name = "wookie_rtt",
	.test_cases = wookie_rtt_cases,
};

kunit_test_suite(wookie_rtt_suite);
