// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite for kernel/portable/wookie_psn.h (which responses the
 * completer accepts, where a retransmission resumes) and for
 * wookie_ring_fetchable() (how many WQEs the kernel may take from a ring
 * whose producer index user space writes), on the vectors shared with the
 * host tests, plus the properties the engine relies on.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/random.h>

#include "wookie_psn.h"
#include "wookie_queue.h"
#include "wookie_psn_vectors.h"

#define PSN_MASK 0xffffffu

static void wookie_psn_class_vectors_test(struct kunit *test)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(wookie_psn_class_vectors); i++) {
		const struct wookie_psn_class_vector *v =
			&wookie_psn_class_vectors[i];

		KUNIT_EXPECT_EQ_MSG(test,
				    (unsigned int)wookie_psn_classify(v->psn,
								      v->oldest,
								      v->sent_end),
				    v->expected, "%s", v->what);
	}
}

static void wookie_psn_seq_nak_vectors_test(struct kunit *test)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(wookie_psn_seq_nak_vectors); i++) {
		const struct wookie_psn_class_vector *v =
			&wookie_psn_seq_nak_vectors[i];

		KUNIT_EXPECT_EQ_MSG(test,
				    (unsigned int)
				    wookie_psn_classify_seq_nak(v->psn,
								v->oldest,
								v->sent_end),
				    v->expected, "%s", v->what);
	}
}

static void wookie_psn_covered_vectors_test(struct kunit *test)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(wookie_psn_covered_vectors); i++) {
		const struct wookie_psn_covered_vector *v =
			&wookie_psn_covered_vectors[i];

		KUNIT_EXPECT_EQ_MSG(test,
				    wookie_psn_covered(v->next, v->done,
						       v->total_len, v->mtu,
						       v->end),
				    v->covered, "%s", v->what);
	}
}

static void wookie_psn_resume_vectors_test(struct kunit *test)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(wookie_psn_resume_vectors); i++) {
		const struct wookie_psn_resume_vector *v =
			&wookie_psn_resume_vectors[i];
		u32 resume = 0xdeadbeef;

		KUNIT_EXPECT_EQ_MSG(test,
				    wookie_psn_resume(v->psn, v->first_psn,
						      v->total_len, v->mtu,
						      &resume),
				    v->offset, "%s", v->what);
		KUNIT_EXPECT_EQ_MSG(test, resume, v->resume_psn, "%s",
				    v->what);
	}
}

static void wookie_ring_fetch_vectors_test(struct kunit *test)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(wookie_ring_fetch_vectors); i++) {
		const struct wookie_ring_fetch_vector *v =
			&wookie_ring_fetch_vectors[i];
		u32 count = 0xdeadbeef;
		bool ok = wookie_ring_fetchable(v->producer, v->done, v->taken,
						v->num_entries, &count);

		KUNIT_EXPECT_EQ_MSG(test, ok, v->ok, "%s", v->what);
		KUNIT_EXPECT_EQ_MSG(test, count, v->ok ? v->count : 0xdeadbeef,
				    "%s", v->what);
	}
}

/* Valid exactly inside the window, for windows across 2^24. */
static void wookie_psn_window_wrap(struct kunit *test)
{
	static const u32 bases[] = { 0, 0x7fffff, 0xfffff0, 0xffffff };
	size_t b;
	u32 span;
	int d;

	for (b = 0; b < ARRAY_SIZE(bases); b++)
		for (span = 0; span <= 16; span++)
			for (d = -24; d <= 24; d++) {
				u32 oldest = bases[b];
				u32 end = (oldest + span) & PSN_MASK;
				u32 psn = (oldest + d) & PSN_MASK;
				enum wookie_psn_class c;

				c = wookie_psn_classify(psn, oldest, end);
				KUNIT_ASSERT_EQ_MSG(test,
						    c == WOOKIE_PSN_VALID,
						    d >= 0 && d < (int)span,
						    "psn %#x window [%#x, %#x)",
						    psn, oldest, end);
				if (d < 0)
					KUNIT_ASSERT_EQ(test, c,
							WOOKIE_PSN_DUPLICATE);
				if (d >= (int)span)
					KUNIT_ASSERT_EQ(test, c,
							WOOKIE_PSN_UNSENT);
			}
}

/* Whatever PSN a peer names, the offset is a packet of the message. */
static void wookie_psn_resume_bounded(struct kunit *test)
{
	static const u32 mtus[] = { 256, 1024, 4096 };
	int i;

	for (i = 0; i < 20000; i++) {
		u32 mtu = mtus[get_random_u32() % ARRAY_SIZE(mtus)];
		u64 len = get_random_u32() % 70000;
		u32 first = get_random_u32(), psn = get_random_u32(), resume;
		u64 off = wookie_psn_resume(psn, first, len, mtu, &resume);

		KUNIT_ASSERT_EQ(test, off % mtu, 0ull);
		KUNIT_ASSERT_TRUE_MSG(test, off == 0 || off < len,
				      "offset %llu of %llu bytes", off, len);
		KUNIT_ASSERT_EQ(test, resume,
				(u32)((first + off / mtu) & PSN_MASK));
	}
}

/* A producer anywhere never yields more than the ring's free part. */
static void wookie_ring_fetch_bounded(struct kunit *test)
{
	int i;

	for (i = 0; i < 20000; i++) {
		u32 n = 1u << (get_random_u32() % 15);
		u32 done = get_random_u32();
		u32 held = get_random_u32() % (n + 1);
		u32 producer = get_random_u32() % 2 ? get_random_u32() :
			       done + get_random_u32() % (2 * n + 2);
		u32 count;

		if (wookie_ring_fetchable(producer, done, done + held, n,
					  &count)) {
			KUNIT_ASSERT_LE(test, count, n - held);
			KUNIT_ASSERT_EQ(test, producer, done + held + count);
		} else {
			KUNIT_ASSERT_TRUE(test, producer - done < held ||
					  producer - done > n);
		}
	}
}

static struct kunit_case wookie_psn_cases[] = {
	KUNIT_CASE(wookie_psn_class_vectors_test),
	KUNIT_CASE(wookie_psn_seq_nak_vectors_test),
	KUNIT_CASE(wookie_psn_resume_vectors_test),
	KUNIT_CASE(wookie_psn_covered_vectors_test),
	KUNIT_CASE(wookie_ring_fetch_vectors_test),
	KUNIT_CASE(wookie_psn_window_wrap),
	KUNIT_CASE(wookie_psn_resume_bounded),
	KUNIT_CASE(wookie_ring_fetch_bounded),
	{}
};

static struct kunit_suite wookie_psn_suite = {
	.name = "wookie_psn",
	.test_cases = wookie_psn_cases,
};

kunit_test_suite(wookie_psn_suite);
