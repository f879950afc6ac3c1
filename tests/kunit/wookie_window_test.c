// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite for kernel/portable/wookie_window.h (the RC requester's
 * send window) on the script shared with the host tests, plus its
 * bounds.
 */
#include <kunit/test.h>
#include <linux/kernel.h>

#include "wookie_window.h"
#include "wookie_window_vectors.h"

static void wookie_window_script_test(struct kunit *test)
{
	struct wookie_window w;
	size_t i;

	wookie_window_init(&w);
	KUNIT_EXPECT_EQ(test, w.size, (u32)WOOKIE_WINDOW_MAX);
	for (i = 0; i < ARRAY_SIZE(wookie_window_steps); i++) {
		const struct wookie_window_step *s = &wookie_window_steps[i];
		unsigned int halved = 0;

		switch (s->op) {
		case WOOKIE_WSTEP_NAK:
			halved = wookie_window_nak(&w, s->psn, s->sent_end);
			break;
		case WOOKIE_WSTEP_TIMEOUT:
			wookie_window_timeout(&w, s->sent_end);
			break;
		default:
			wookie_window_acked(&w, s->psn);
			break;
		}
		KUNIT_EXPECT_EQ_MSG(test, halved, s->halved, "%s", s->what);
		KUNIT_EXPECT_EQ_MSG(test, w.size, s->size, "%s", s->what);
	}
}

/* Open for exactly size PSNs from the oldest, across 2^24. */
static void wookie_window_open_test(struct kunit *test)
{
	static const u32 oldest[] = { 0, 100, 0xffffff, 0xfffff8 };
	struct wookie_window w;
	size_t i;
	u32 k, o;

	wookie_window_init(&w);
	for (i = 0; i < ARRAY_SIZE(oldest); i++) {
		o = oldest[i];
		for (k = 0; k < WOOKIE_WINDOW_MAX; k++)
			KUNIT_EXPECT_TRUE(test, wookie_window_open(&w, o + k, o));
		KUNIT_EXPECT_FALSE(test,
				   wookie_window_open(&w, o + WOOKIE_WINDOW_MAX,
						      o));
	}
	/* A requester behind the oldest PSN may always send. */
	KUNIT_EXPECT_TRUE(test, wookie_window_open(&w, 99, 100));
}

static struct kunit_case wookie_window_cases[] = {
	KUNIT_CASE(wookie_window_script_test),
	KUNIT_CASE(wookie_window_open_test),
	{}
};

static struct kunit_suite wookie_window_suite = {
	.name = "wookie_window",
	.test_cases = wookie_window_cases,
};

kunit_test_suite(wookie_window_suite);
