// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Host tests of kernel/portable/wookie_rtt.h (the requester's round trip,
// for the tail-loss probe): the script shared with the KUnit suite
// (tests/kunit/wookie_rtt_vectors.h), then its bounds under random
// samples.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

extern "C" {
#include "wookie_rtt.h"
}

#include "wookie_rtt_vectors.h"

namespace {

TEST(Rtt, Script)
{
	struct wookie_rtt r = {};

	for (const auto &s : wookie_rtt_steps) {
		switch (s.op) {
		case WOOKIE_RSTEP_SENT:
			wookie_rtt_sent(&r, s.psn, s.ns);
			break;
		case WOOKIE_RSTEP_ACKED:
			wookie_rtt_acked(&r, s.psn, s.ns);
			break;
		default:
			wookie_rtt_cancel(&r);
			break;
		}
		EXPECT_EQ(r.srtt_ns, s.srtt) << s.what;
		EXPECT_EQ(r.rttvar_ns, s.rttvar) << s.what;
		EXPECT_EQ(static_cast<unsigned int>(r.timing), s.timing) << s.what;
		EXPECT_EQ(wookie_rtt_probe_ns(&r, WOOKIE_RTT_TEST_FLOOR,
					      WOOKIE_RTT_TEST_CAP),
			  s.probe)
			<< s.what;
	}
}

// Whatever the samples (any PSNs, clocks that jump either way), the
// smoothed time stays within the samples' range once there is one, and
// the probe within its bounds.
TEST(Rtt, BoundedUnderRandomSamples)
{
	std::mt19937_64 rng(20261124);
	struct wookie_rtt r = {};
	uint64_t now = 1000, lo = UINT64_MAX, hi = 0;

	for (int i = 0; i < 100000; i++) {
		__u32 psn = rng() & 0xffffff;

		now += rng() % 3000000;
		switch (rng() % 4) {
		case 0:
			wookie_rtt_sent(&r, psn, now);
			break;
		case 1:
		case 2: {
			// Case 2: a clock read before the packet was timed.
			uint64_t t = rng() % 4 ? now : now - rng() % 5000;
			bool timed = r.timing;
			uint64_t sent = r.sent_ns;

			wookie_rtt_acked(&r, psn, t);
			if (timed && !r.timing) {
				uint64_t s = t > sent ? t - sent : 1;

				s = std::min<uint64_t>(s, WOOKIE_RTT_MAX_NS);
				lo = std::min(lo, s);
				hi = std::max(hi, s);
			}
			break;
		}
		default:
			wookie_rtt_cancel(&r);
			break;
		}
		if (!r.srtt_ns) {
			EXPECT_EQ(wookie_rtt_probe_ns(&r, 10, 1000000), 0u);
			continue;
		}
		ASSERT_GE(r.srtt_ns, lo);
		ASSERT_LE(r.srtt_ns, hi);
		uint64_t p = wookie_rtt_probe_ns(&r, 4000, 2000000);
		ASSERT_GE(p, 4000u);
		ASSERT_LE(p, 2000000u);
	}
	EXPECT_GT(hi, 0u);
}

} // namespace
