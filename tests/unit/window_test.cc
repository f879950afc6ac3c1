// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Host tests of kernel/portable/wookie_window.h (the RC requester's send
// window): the script shared with the KUnit suite
// (tests/kunit/wookie_window_vectors.h), then its bounds under random
// events.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

extern "C" {
#include "wookie_window.h"
}

#include "wookie_window_vectors.h"

namespace {

constexpr __u32 kMask = 0xffffff;

TEST(Window, Script)
{
	struct wookie_window w;

	wookie_window_init(&w);
	EXPECT_EQ(w.size, (__u32)WOOKIE_WINDOW_MAX);
	for (const auto &s : wookie_window_steps) {
		unsigned int halved = 0;

		switch (s.op) {
		case WOOKIE_WSTEP_NAK:
			halved = wookie_window_nak(&w, s.psn, s.sent_end);
			break;
		case WOOKIE_WSTEP_TIMEOUT:
			wookie_window_timeout(&w, s.sent_end);
			break;
		default:
			wookie_window_acked(&w, s.psn);
			break;
		}
		EXPECT_EQ(halved, s.halved) << s.what;
		EXPECT_EQ(w.size, s.size) << s.what;
	}
}

TEST(Window, OpenExactlySizePsns)
{
	struct wookie_window w;

	wookie_window_init(&w);
	for (__u32 oldest : { 0u, 100u, kMask, 0xfffff8u }) {
		for (__u32 k = 0; k < WOOKIE_WINDOW_MAX; k++)
			EXPECT_TRUE(wookie_window_open(&w, oldest + k, oldest));
		EXPECT_FALSE(wookie_window_open(&w, oldest + WOOKIE_WINDOW_MAX,
						oldest));
	}
	w.size = WOOKIE_WINDOW_MIN;
	EXPECT_TRUE(wookie_window_open(&w, 100 + WOOKIE_WINDOW_MIN - 1, 100));
	EXPECT_FALSE(wookie_window_open(&w, 100 + WOOKIE_WINDOW_MIN, 100));
	// Behind the oldest PSN (never in the engine): open, not wrapped.
	EXPECT_TRUE(wookie_window_open(&w, 99, 100));
}

// Whatever a peer's NAKs and ACKs say, the size stays in bounds, a NAK
// never grows it, an ACK never shrinks it, and a NAK halves it at most
// once until an ACK reaches what was sent when it did.
TEST(Window, BoundsUnderRandomEvents)
{
	std::mt19937 rng(7);
	struct wookie_window w;

	wookie_window_init(&w);
	for (int i = 0; i < 200000; i++) {
		__u32 before = w.size;
		__u32 psn = rng();
		__u32 end = rng();

		switch (rng() % 3) {
		case 0: {
			bool recovering = w.recovering;
			__u32 recover = w.recover_psn;
			bool halved = wookie_window_nak(&w, psn, end);

			ASSERT_LE(w.size, before);
			if (recovering &&
			    wookie_psn_diff(psn & kMask, recover) < 0)
				ASSERT_FALSE(halved);
			else
				ASSERT_TRUE(halved);
			break;
		}
		case 1:
			if (rng() % 16 == 0)
				wookie_window_timeout(&w, end);
			break;
		default:
			wookie_window_acked(&w, psn);
			ASSERT_GE(w.size, before);
			break;
		}
		ASSERT_GE(w.size, (__u32)WOOKIE_WINDOW_MIN);
		ASSERT_LE(w.size, (__u32)WOOKIE_WINDOW_MAX);
		ASSERT_LE(w.recover_psn, kMask);
	}
}

} // namespace
