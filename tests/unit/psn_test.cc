// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Host tests of kernel/portable/wookie_psn.h (which responses the completer
// accepts, where a retransmission resumes) and of wookie_ring_fetchable()
// (how many WQEs the kernel may take from a ring whose producer index user
// space writes): the vectors shared with the KUnit suite
// (tests/kunit/wookie_psn_vectors.h), then properties checked against a
// slow reference on random and on every small input.

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <random>

extern "C" {
#include "wookie_psn.h"
#include "wookie_queue.h"
}

#include "wookie_psn_vectors.h"

namespace {

constexpr __u32 kMask = 0xffffff;

// Where @psn lies relative to @oldest, as a number in [0, 2^24).
__u32 Ahead(__u32 psn, __u32 oldest)
{
	return (psn - oldest) & kMask;
}

// The classification the slow way: walk the window PSN by PSN.
unsigned int ReferenceClass(__u32 psn, __u32 oldest, __u32 sent_end)
{
	psn &= kMask;
	for (__u32 p = oldest & kMask; p != (sent_end & kMask);
	     p = (p + 1) & kMask)
		if (p == psn)
			return WOOKIE_PSN_VALID;
	// Outside: behind when it is less than half the circle behind.
	return Ahead(oldest, psn) <= 0x800000 && psn != (oldest & kMask) ?
		       WOOKIE_PSN_DUPLICATE : WOOKIE_PSN_UNSENT;
}

} // namespace

void PrintTo(const wookie_psn_class_vector &v, std::ostream *os)
{
	*os << v.what << ": psn " << std::hex << v.psn << " window ["
	    << v.oldest << ", " << v.sent_end << ")";
}

void PrintTo(const wookie_psn_resume_vector &v, std::ostream *os)
{
	*os << v.what << ": psn " << std::hex << v.psn << " first "
	    << v.first_psn << std::dec << " len " << v.total_len << " mtu "
	    << v.mtu;
}

void PrintTo(const wookie_psn_covered_vector &v, std::ostream *os)
{
	*os << v.what << ": next " << std::hex << v.next << " end " << v.end
	    << std::dec << " done " << v.done << " len " << v.total_len
	    << " mtu " << v.mtu;
}

void PrintTo(const wookie_ring_fetch_vector &v, std::ostream *os)
{
	*os << v.what << ": producer " << std::hex << v.producer << " done "
	    << v.done << " taken " << v.taken << std::dec << " of "
	    << v.num_entries;
}

// --- Vectors ---------------------------------------------------------------

class PsnClass : public ::testing::TestWithParam<wookie_psn_class_vector> {};

TEST_P(PsnClass, Vector)
{
	const auto &v = GetParam();

	EXPECT_EQ((unsigned int)wookie_psn_classify(v.psn, v.oldest,
						    v.sent_end),
		  v.expected);
}

INSTANTIATE_TEST_SUITE_P(Vectors, PsnClass,
			 ::testing::ValuesIn(wookie_psn_class_vectors));

class PsnSeqNak : public ::testing::TestWithParam<wookie_psn_class_vector> {};

TEST_P(PsnSeqNak, Vector)
{
	const auto &v = GetParam();

	EXPECT_EQ((unsigned int)wookie_psn_classify_seq_nak(v.psn, v.oldest,
							    v.sent_end),
		  v.expected);
}

INSTANTIATE_TEST_SUITE_P(Vectors, PsnSeqNak,
			 ::testing::ValuesIn(wookie_psn_seq_nak_vectors));

class PsnResume : public ::testing::TestWithParam<wookie_psn_resume_vector> {};

TEST_P(PsnResume, Vector)
{
	const auto &v = GetParam();
	__u32 resume = 0xdeadbeef;

	EXPECT_EQ(wookie_psn_resume(v.psn, v.first_psn, v.total_len, v.mtu,
				    &resume),
		  v.offset);
	EXPECT_EQ(resume, v.resume_psn);
}

INSTANTIATE_TEST_SUITE_P(Vectors, PsnResume,
			 ::testing::ValuesIn(wookie_psn_resume_vectors));

class PsnCovered : public ::testing::TestWithParam<wookie_psn_covered_vector> {
};

TEST_P(PsnCovered, Vector)
{
	const auto &v = GetParam();

	EXPECT_EQ(wookie_psn_covered(v.next, v.done, v.total_len, v.mtu, v.end),
		  v.covered);
}

INSTANTIATE_TEST_SUITE_P(Vectors, PsnCovered,
			 ::testing::ValuesIn(wookie_psn_covered_vectors));

class RingFetch : public ::testing::TestWithParam<wookie_ring_fetch_vector> {};

TEST_P(RingFetch, Vector)
{
	const auto &v = GetParam();
	__u32 count = 0xdeadbeef;

	ASSERT_EQ(wookie_ring_fetchable(v.producer, v.done, v.taken,
					v.num_entries, &count),
		  v.ok);
	EXPECT_EQ(count, v.ok ? v.count : 0xdeadbeef);
}

INSTANTIATE_TEST_SUITE_P(Vectors, RingFetch,
			 ::testing::ValuesIn(wookie_ring_fetch_vectors));

// --- Properties --------------------------------------------------------------

// Small windows at every position around 2^24, every PSN near them.
TEST(Psn, ClassifyMatchesReferenceAroundWrap)
{
	const __u32 bases[] = { 0, 1, 100, 0x7fffff, 0x800000, 0xfffff0,
				0xfffffe, 0xffffff };

	for (__u32 base : bases)
		for (__u32 span = 0; span <= 20; span++)
			for (int d = -40; d <= 40; d++) {
				__u32 oldest = base;
				__u32 end = (base + span) & kMask;
				__u32 psn = (base + d) & kMask;

				ASSERT_EQ((unsigned int)wookie_psn_classify(
						  psn, oldest, end),
					  ReferenceClass(psn, oldest, end))
					<< std::hex << "psn " << psn
					<< " window [" << oldest << ", " << end
					<< ")";
			}
}

// A sequence NAK is classified as any response (checked against the slow
// reference above), except that the next PSN to send is valid too while
// anything is outstanding.
TEST(Psn, ClassifySeqNakRandom)
{
	std::mt19937 rng(25);

	for (int i = 0; i < 200000; i++) {
		__u32 oldest = rng() & kMask;
		__u32 span = i % 4 ? rng() & kMask : rng() % 3;
		__u32 end = (oldest + span) & kMask;
		__u32 psn = i % 3 ? rng() : end + (rng() % 3) - 1;
		unsigned int c = wookie_psn_classify_seq_nak(psn, oldest, end);
		unsigned int want = wookie_psn_classify(psn, oldest, end);

		if ((psn & kMask) == end)
			want = span ? WOOKIE_PSN_VALID : WOOKIE_PSN_DUPLICATE;
		ASSERT_EQ(c, want) << std::hex << psn << " " << oldest << " "
				   << end;
	}
}

TEST(Psn, ClassifyRandom)
{
	std::mt19937 rng(24);

	for (int i = 0; i < 200000; i++) {
		__u32 oldest = rng() & kMask;
		__u32 span = rng() & kMask;
		__u32 psn = rng();
		__u32 end = (oldest + span) & kMask;
		unsigned int c = wookie_psn_classify(psn, oldest, end);

		// Valid exactly when inside the window, whatever its size.
		ASSERT_EQ(c == WOOKIE_PSN_VALID, Ahead(psn, oldest) < span)
			<< std::hex << psn << " " << oldest << " " << end;
		// Ignores the bits above 24.
		ASSERT_EQ(c, (unsigned int)wookie_psn_classify(
				     psn & kMask, oldest | 0xff000000u,
				     end | 0x5a000000u));
	}
}

// Sending moves the end forward, a retransmission never moves it back.
TEST(Psn, SentEnd)
{
	// New packets: the end follows.
	EXPECT_EQ(wookie_psn_sent_end(100, 100, 101), 101u);
	EXPECT_EQ(wookie_psn_sent_end(100, 100, 164), 164u);
	// Sent again after a rewind to 90: still 100.
	EXPECT_EQ(wookie_psn_sent_end(100, 90, 91), 100u);
	EXPECT_EQ(wookie_psn_sent_end(100, 99, 100), 100u);
	// Past the old end while retransmitting.
	EXPECT_EQ(wookie_psn_sent_end(100, 99, 102), 102u);
	// Across 2^24.
	EXPECT_EQ(wookie_psn_sent_end(0xffffff, 0xffffff, 0), 0u);
	EXPECT_EQ(wookie_psn_sent_end(0xfffffe, 0xfffffe, 3), 3u);
	EXPECT_EQ(wookie_psn_sent_end(3, 0xfffffe, 0xffffff), 3u);
	// A READ of 2^23 packets at once.
	EXPECT_EQ(wookie_psn_sent_end(10, 10, 0x80000a), 0x80000au);
	// High bits ignored.
	EXPECT_EQ(wookie_psn_sent_end(0xff000064, 0xee000064, 0x65), 0x65u);
}

// A stream of sends and rewinds: the end is always one past the highest
// PSN sent, and every PSN sent is in the window from the oldest on.
TEST(Psn, SentEndModel)
{
	std::mt19937 rng(7);

	for (int run = 0; run < 200; run++) {
		__u32 start = rng() & kMask;
		__u32 next = start, end = start, oldest = start;
		uint64_t highest = 0;	// PSNs sent, counted from start

		for (int step = 0; step < 2000; step++) {
			uint64_t next_rel = Ahead(next, start);
			__u32 n = 1 + rng() % 8;

			if (rng() % 10 == 0) {
				// Rewind somewhere in [oldest, next].
				__u32 back = rng() % (Ahead(next, oldest) + 1);

				next = (next - back) & kMask;
				continue;
			}
			end = wookie_psn_sent_end(end, next, (next + n) & kMask);
			next = (next + n) & kMask;
			if (next_rel + n > highest)
				highest = next_rel + n;
			ASSERT_EQ(end, (start + highest) & kMask);
			// Acknowledge some, never past what was sent again.
			if (rng() % 3 == 0)
				oldest = (oldest + rng() % (Ahead(next, oldest) + 1)) &
					 kMask;
			ASSERT_EQ(wookie_psn_classify((end - 1) & kMask, oldest,
						      end),
				  oldest == end ? WOOKIE_PSN_DUPLICATE :
						  WOOKIE_PSN_VALID);
			ASSERT_NE(wookie_psn_classify(end, oldest, end),
				  WOOKIE_PSN_VALID);
			// Keep the window well under 2^23.
			if (highest > 0x1000) {
				start = end;
				next = oldest = end;
				highest = 0;
			}
		}
	}
}

// A random message (MTU 0 included, mostly short, sometimes up to 2^31
// bytes), a random PSN of its, and a PSN a peer names: anywhere, or near.
struct RandomMessage {
	__u32 mtu;
	__u64 len;
	__u32 psn;
	__u32 named;

	explicit RandomMessage(std::mt19937_64 &rng)
	{
		static const __u32 mtus[] = { 0, 256, 512, 1024, 2048, 4096 };

		mtu = mtus[rng() % 6];
		len = rng() % 4 ? rng() % 20000 : rng() % 0x80000001ull;
		psn = (__u32)rng();
		named = rng() % 2 ? (__u32)rng() :
				    psn + (__u32)(rng() % 64) - 8;
	}
};

// Whatever PSN an acknowledgment names, a skip covers no more packets
// than the message has left, and none unless the PSN is ahead.
TEST(Psn, CoveredStaysInsideTheMessage)
{
	std::mt19937_64 rng(37);

	for (int i = 0; i < 300000; i++) {
		RandomMessage m(rng);
		__u32 mtu = m.mtu, next = m.psn, end = m.named;
		__u64 len = m.len;
		__u32 total = mtu ? wookie_num_packets(len, mtu) : 0;
		__u64 done = mtu ? (rng() % (total + 2)) * mtu : 0;
		__u32 n = wookie_psn_covered(next, done, len, mtu, end);
		int diff = wookie_psn_diff(end & kMask, next & kMask);

		if (!mtu || diff <= 0 || done / mtu >= total) {
			ASSERT_EQ(n, 0u);
			continue;
		}
		ASSERT_LE(n, total - done / mtu);
		ASSERT_LE(n, (__u32)diff);
		ASSERT_TRUE(n == (__u32)diff || n == total - done / mtu);
	}
}

// The resume offset is always that of a packet of the message, whatever
// PSN the peer names: the bug was an offset of (psn - first) * mtu.
TEST(Psn, ResumeStaysInsideTheMessage)
{
	std::mt19937_64 rng(31);

	for (int i = 0; i < 300000; i++) {
		RandomMessage m(rng);
		__u32 mtu = m.mtu, first = m.psn, psn = m.named;
		__u64 len = m.len;
		__u32 resume = 0xdeadbeef;
		__u64 off = wookie_psn_resume(psn, first, len, mtu, &resume);

		if (!mtu) {
			ASSERT_EQ(off, 0u);
		} else {
			ASSERT_EQ(off % mtu, 0u);
			ASSERT_TRUE(off == 0 || off < len)
				<< off << " " << len << " " << mtu;
		}
		ASSERT_EQ(resume, (first + (mtu ? off / mtu : 0)) & kMask);
		// The packet named, when it is one of the message's.
		int diff = wookie_psn_diff(psn & kMask, first & kMask);

		if (mtu && diff >= 0 && (__u64)diff * mtu < len) {
			ASSERT_EQ(off, (__u64)diff * mtu);
		}
		if (diff <= 0) {
			ASSERT_EQ(off, 0u);
		}
	}
}

// An inline WQE (at most 512 bytes) never resumes past its data.
TEST(Psn, ResumeInline)
{
	for (__u32 len = 0; len <= 512; len++)
		for (__u32 d = 0; d < 4096; d += 7) {
			__u32 resume;
			__u64 off = wookie_psn_resume(5 + d, 5, len, 256,
						      &resume);

			ASSERT_LE(off, len ? len - 1 : 0) << len << " " << d;
		}
}

// Every small ring, every consistent pair of kernel indices, producers
// all around them: the count never takes a slot the kernel still holds.
TEST(Psn, RingFetchableExhaustive)
{
	const __u32 bases[] = { 0, 5, 0x7ffffffe, 0xfffffff0, 0xffffffff };

	for (__u32 n = 1; n <= 32; n *= 2)
		for (__u32 base : bases)
			for (__u32 held = 0; held <= n + 1; held++)
				for (int d = -(int)n - 3; d <= 2 * (int)n + 3;
				     d++) {
					__u32 done = base, taken = base + held;
					__u32 producer = taken + d;
					__u32 count = 0xdeadbeef;
					bool ok = wookie_ring_fetchable(
						producer, done, taken, n, &count);
					bool want = held <= n && d >= 0 &&
						    held + d <= n;

					ASSERT_EQ(ok, want)
						<< n << " " << base << " "
						<< held << " " << d;
					if (ok) {
						ASSERT_EQ(count, (__u32)d);
					} else {
						ASSERT_EQ(count, 0xdeadbeef);
					}
				}
	// A producer anywhere: never more than the ring's free part.
	std::mt19937 rng(3);
	for (int i = 0; i < 100000; i++) {
		__u32 n = 1u << (rng() % 15);
		__u32 done = rng(), held = rng() % (n + 1), count;

		if (wookie_ring_fetchable(rng(), done, done + held, n,
					  &count)) {
			ASSERT_LE(count, n - held);
		}
	}
}
