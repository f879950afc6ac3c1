/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Known answers for kernel/portable/wookie_psn.h and for
 * wookie_ring_fetchable() (wookie_queue.h): the decisions the engine
 * takes on PSNs a peer sends and on indices user space writes.  Shared by
 * the KUnit suite (tests/kunit) and the host unit tests (tests/unit).
 * Plain C that also compiles as C++: no designated initialisers, and
 * enumerations stored as unsigned int.  Values are written out, never
 * derived from the code under test.
 */
#ifndef WOOKIE_PSN_VECTORS_H
#define WOOKIE_PSN_VECTORS_H

#include "wookie_psn.h"
#include "wookie_queue.h"

struct wookie_psn_class_vector {
	__u32 psn;
	__u32 oldest;
	__u32 sent_end;
	unsigned int expected;	/* enum wookie_psn_class */
	const char *what;
};

static const struct wookie_psn_class_vector wookie_psn_class_vectors[] = {
	/* Window [100, 110): ten PSNs sent and not acknowledged. */
	{ 100, 100, 110, WOOKIE_PSN_VALID, "oldest unacknowledged" },
	{ 109, 100, 110, WOOKIE_PSN_VALID, "highest sent" },
	{ 110, 100, 110, WOOKIE_PSN_UNSENT, "next to send" },
	{ 111, 100, 110, WOOKIE_PSN_UNSENT, "beyond next" },
	{ 0x7fffff, 100, 110, WOOKIE_PSN_UNSENT, "far ahead" },
	{ 99, 100, 110, WOOKIE_PSN_DUPLICATE, "just acknowledged" },
	{ 0, 100, 110, WOOKIE_PSN_DUPLICATE, "zero, behind" },
	{ 0xffffff, 100, 110, WOOKIE_PSN_DUPLICATE, "behind, wrapped" },
	{ 0x800063, 100, 110, WOOKIE_PSN_UNSENT, "half circle - 1 ahead" },
	/* 2^23 ahead is as far behind: the sign says behind. */
	{ 0x800064, 100, 110, WOOKIE_PSN_DUPLICATE, "half circle ahead" },
	{ 0x800065, 100, 110, WOOKIE_PSN_DUPLICATE, "half circle - 1 behind" },
	/* Nothing outstanding: no response is expected at all. */
	{ 100, 100, 100, WOOKIE_PSN_UNSENT, "empty window, at oldest" },
	{ 99, 100, 100, WOOKIE_PSN_DUPLICATE, "empty window, behind" },
	/* The window across 2^24. */
	{ 0xfffff0, 0xfffff0, 0x10, WOOKIE_PSN_VALID, "wrap: oldest" },
	{ 0xffffff, 0xfffff0, 0x10, WOOKIE_PSN_VALID, "wrap: 2^24 - 1" },
	{ 0, 0xfffff0, 0x10, WOOKIE_PSN_VALID, "wrap: 0" },
	{ 0xf, 0xfffff0, 0x10, WOOKIE_PSN_VALID, "wrap: highest sent" },
	{ 0x10, 0xfffff0, 0x10, WOOKIE_PSN_UNSENT, "wrap: next to send" },
	{ 0xffffef, 0xfffff0, 0x10, WOOKIE_PSN_DUPLICATE, "wrap: behind" },
	{ 0xfffff0, 0xfffff0, 0xfffff0, WOOKIE_PSN_UNSENT, "wrap: empty" },
	{ 0xffffff, 0, 1, WOOKIE_PSN_DUPLICATE, "2^24 - 1 behind 0" },
	{ 0xffffff, 0xffffff, 0, WOOKIE_PSN_VALID, "only 2^24 - 1 sent" },
	{ 0, 0xffffff, 0, WOOKIE_PSN_UNSENT, "0 after 2^24 - 1" },
	/* A large READ: 2^23 PSNs outstanding, then almost all of them. */
	{ 0x7fffff, 0, 0x800000, WOOKIE_PSN_VALID, "2^23 window: last" },
	{ 0x800000, 0, 0x800000, WOOKIE_PSN_DUPLICATE, "2^23 window: end" },
	{ 0xfffffe, 0, 0xffffff, WOOKIE_PSN_VALID, "2^24 - 1 window" },
	{ 0xffffff, 0, 0xffffff, WOOKIE_PSN_DUPLICATE, "2^24 - 1 window end" },
	/* Only 24 bits count, of every argument. */
	{ 0xff000069, 100, 110, WOOKIE_PSN_VALID, "high bits of psn" },
	{ 105, 0xab000064, 0xcd00006e, WOOKIE_PSN_VALID, "high bits of window" },
	{ 0xff00006e, 100, 110, WOOKIE_PSN_UNSENT, "high bits, unsent" },
};

/*
 * wookie_psn_classify_seq_nak(): the PSN a sequence NAK names may also
 * be the next to send (everything sent arrived).
 */
static const struct wookie_psn_class_vector wookie_psn_seq_nak_vectors[] = {
	{ 100, 100, 110, WOOKIE_PSN_VALID, "NAK at oldest: it was lost" },
	{ 105, 100, 110, WOOKIE_PSN_VALID, "NAK inside: acknowledges 100-104" },
	{ 109, 100, 110, WOOKIE_PSN_VALID, "NAK at highest sent" },
	{ 110, 100, 110, WOOKIE_PSN_VALID, "NAK at next: all arrived" },
	{ 111, 100, 110, WOOKIE_PSN_UNSENT, "NAK beyond next" },
	{ 99, 100, 110, WOOKIE_PSN_DUPLICATE, "NAK behind" },
	{ 100, 100, 100, WOOKIE_PSN_DUPLICATE, "NAK at next, none outstanding" },
	{ 101, 100, 100, WOOKIE_PSN_UNSENT, "NAK beyond, none outstanding" },
	{ 0x10, 0xfffff0, 0x10, WOOKIE_PSN_VALID, "wrap: NAK at next" },
	{ 0, 0xffffff, 0, WOOKIE_PSN_VALID, "wrap: next is 0" },
	{ 0xff00006e, 100, 110, WOOKIE_PSN_VALID, "high bits of psn" },
	{ 110, 0xab000064, 0xcd00006e, WOOKIE_PSN_VALID, "high bits of window" },
	{ 0xab000064, 100, 0xcd000064, WOOKIE_PSN_DUPLICATE,
	  "high bits, none outstanding" },
};

struct wookie_psn_resume_vector {
	__u32 psn;
	__u32 first_psn;
	__u64 total_len;
	__u32 mtu;
	__u64 offset;		/* expected return value */
	__u32 resume_psn;	/* expected *resume_psn */
	const char *what;
};

static const struct wookie_psn_resume_vector wookie_psn_resume_vectors[] = {
	/* 3000 bytes at 1024: packets 10, 11 and 12. */
	{ 10, 10, 3000, 1024, 0, 10, "first packet" },
	{ 11, 10, 3000, 1024, 1024, 11, "second packet" },
	{ 12, 10, 3000, 1024, 2048, 12, "last packet" },
	{ 13, 10, 3000, 1024, 2048, 12, "one past the message" },
	{ 1000, 10, 3000, 1024, 2048, 12, "far past the message" },
	{ 0x80000a - 1, 10, 3000, 1024, 2048, 12, "2^23 - 1 past" },
	{ 9, 10, 3000, 1024, 0, 10, "before the message" },
	{ 0x80000a, 10, 3000, 1024, 0, 10, "half circle away" },
	/* An exact multiple of the MTU: 4 packets. */
	{ 14, 10, 4096, 1024, 3072, 13, "multiple of mtu, past" },
	{ 13, 10, 4096, 1024, 3072, 13, "multiple of mtu, last" },
	/* One packet: always from its start. */
	{ 11, 10, 100, 1024, 0, 10, "inline-sized, past" },
	{ 0x7fffff, 10, 512, 256, 256, 11, "512 inline bytes at 256" },
	{ 10, 10, 0, 1024, 0, 10, "empty message" },
	{ 20, 10, 0, 1024, 0, 10, "empty message, past" },
	{ 20, 10, 3000, 0, 0, 10, "no mtu" },
	/* Across 2^24. */
	{ 1, 0xfffffe, 4096, 1024, 3072, 1, "wrap: last packet" },
	{ 0, 0xfffffe, 4096, 1024, 2048, 0, "wrap: third packet" },
	{ 5, 0xfffffe, 4096, 1024, 3072, 1, "wrap: past" },
	{ 0xfffffd, 0xfffffe, 4096, 1024, 0, 0xfffffe, "wrap: before" },
	/* The largest message at the smallest MTU: 2^23 packets. */
	{ 0x7fffff, 0, 0x80000000ull, 256, 0x7fffff00ull, 0x7fffff,
	  "2^31 bytes, last packet" },
	{ 0x12345, 0, 0x80000000ull, 256, 0x1234500ull, 0x12345,
	  "2^31 bytes, middle" },
	/* Only 24 bits count. */
	{ 0xff00000b, 0xee00000a, 3000, 1024, 1024, 11, "high bits" },
};

struct wookie_ring_fetch_vector {
	__u32 producer;
	__u32 done;
	__u32 taken;
	__u32 num_entries;
	bool ok;
	__u32 count;		/* when ok */
	const char *what;
};

static const struct wookie_ring_fetch_vector wookie_ring_fetch_vectors[] = {
	{ 0, 0, 0, 16, true, 0, "empty" },
	{ 5, 0, 3, 16, true, 2, "two new" },
	{ 16, 0, 0, 16, true, 16, "full, none taken" },
	{ 17, 0, 0, 16, false, 0, "one beyond full" },
	{ 16, 0, 10, 16, true, 6, "full, ten held" },
	{ 17, 0, 10, 16, false, 0, "beyond full, ten held" },
	{ 10, 0, 10, 16, true, 0, "all taken" },
	/* The producer rewritten back between done and taken. */
	{ 4, 2, 6, 16, false, 0, "behind taken, ahead of done" },
	{ 5, 2, 6, 16, false, 0, "one behind taken" },
	{ 2, 2, 6, 16, false, 0, "back to done" },
	{ 1, 2, 6, 16, false, 0, "behind done" },
	{ 0x80000000u, 2, 6, 16, false, 0, "far ahead" },
	/* Free-running indices across 2^32. */
	{ 5, 0xfffffffeu, 2, 16, true, 3, "wrap" },
	{ 1, 0xfffffffeu, 2, 16, false, 0, "wrap, behind taken" },
	{ 14, 0xfffffffeu, 0xfffffffeu, 16, true, 16, "wrap, full" },
	{ 15, 0xfffffffeu, 0xfffffffeu, 16, false, 0, "wrap, beyond full" },
	/* The kernel's own indices inconsistent: nothing to take. */
	{ 20, 0, 17, 16, false, 0, "held beyond the ring" },
	{ 1, 0, 0, 1, true, 1, "one-entry ring" },
	{ 2, 0, 1, 1, false, 0, "one-entry ring, beyond" },
	{ 0x4000, 0, 0, 0x4000, true, 0x4000, "largest ring, full" },
};

struct wookie_psn_covered_vector {
	__u32 next;
	__u64 done;
	__u64 total_len;
	__u32 mtu;
	__u32 end;
	__u32 covered;		/* expected return value */
	const char *what;
};

static const struct wookie_psn_covered_vector wookie_psn_covered_vectors[] = {
	/* 3000 bytes at 1024: packets 10, 11 and 12. */
	{ 10, 0, 3000, 1024, 10, 0, "nothing before the next packet" },
	{ 10, 0, 3000, 1024, 11, 1, "the first packet" },
	{ 10, 0, 3000, 1024, 13, 3, "the whole message" },
	{ 10, 0, 3000, 1024, 1000, 3, "past the message: what it has" },
	{ 10, 0, 3000, 1024, 9, 0, "behind the next packet" },
	{ 11, 1024, 3000, 1024, 13, 2, "resumed at the second packet" },
	{ 12, 2048, 3000, 1024, 20, 1, "only the last packet left" },
	{ 13, 3000, 3000, 1024, 20, 0, "all sent, the last packet short" },
	{ 13, 3072, 3072, 1024, 20, 0, "all sent, the last packet full" },
	{ 13, 3072, 3000, 1024, 20, 0, "nothing left" },
	{ 10, 0, 3000, 1024, 0x80000a, 0, "half circle away" },
	{ 10, 0, 3000, 1024, 0x800009, 3, "2^23 - 1 ahead" },
	/* One packet, even when empty. */
	{ 10, 0, 0, 1024, 11, 1, "empty message" },
	{ 10, 0, 100, 1024, 50, 1, "inline-sized" },
	{ 10, 0, 3000, 0, 20, 0, "no mtu" },
	/* Across 2^24. */
	{ 0xffffff, 0, 4096, 1024, 2, 3, "wrap: three of four" },
	{ 0xfffffe, 0, 4096, 1024, 5, 4, "wrap: all four" },
	/* The largest message at the smallest MTU: 2^23 packets. */
	{ 0x101, 256, 0x80000000ull, 256, 0x800100, 0x7fffff,
	  "2^31 bytes from packet 1: all the rest" },
	{ 0x101, 256, 0x80000000ull, 256, 0x800101, 0,
	  "2^31 bytes: 2^23 ahead is behind" },
	/* Only 24 bits count. */
	{ 0xff00000a, 0, 3000, 1024, 0xee00000c, 2, "high bits" },
};

#endif /* WOOKIE_PSN_VECTORS_H */
