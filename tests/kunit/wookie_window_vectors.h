/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Known answers for kernel/portable/wookie_window.h: a script of events
 * on one send window and the size after each.  Shared by the KUnit suite
 * (tests/kunit) and the host unit tests (tests/unit).  Plain C that also
 * compiles as C++; values written out, never derived from the code.
 */
#ifndef WOOKIE_WINDOW_VECTORS_H
#define WOOKIE_WINDOW_VECTORS_H

#include "wookie_window.h"

enum {
	WOOKIE_WSTEP_NAK,	/* wookie_window_nak(psn, sent_end) */
	WOOKIE_WSTEP_TIMEOUT,	/* wookie_window_timeout(sent_end) */
	WOOKIE_WSTEP_ACKED,	/* wookie_window_acked(psn) */
};

struct wookie_window_step {
	unsigned int op;
	__u32 psn;
	__u32 sent_end;
	/* What nak returns (1: halved); 0 for the others. */
	unsigned int halved;
	__u32 size;
	const char *what;
};

static const struct wookie_window_step wookie_window_steps[] = {
	{ WOOKIE_WSTEP_NAK, 100, 228, 1, 64, "first loss halves" },
	{ WOOKIE_WSTEP_NAK, 150, 228, 0, 64, "same event: before 228" },
	{ WOOKIE_WSTEP_NAK, 227, 230, 0, 64, "same event: 227" },
	{ WOOKIE_WSTEP_NAK, 228, 260, 1, 32, "sent after the halving" },
	{ WOOKIE_WSTEP_ACKED, 240, 0, 0, 33, "an ACK grows it by one" },
	{ WOOKIE_WSTEP_NAK, 250, 270, 0, 33, "still the event of 260" },
	{ WOOKIE_WSTEP_ACKED, 260, 0, 0, 34, "acknowledged past 260" },
	{ WOOKIE_WSTEP_NAK, 262, 290, 1, 32, "recovered: a new event" },
	{ WOOKIE_WSTEP_ACKED, 290, 0, 0, 33, "recovered again" },
	{ WOOKIE_WSTEP_NAK, 300, 320, 1, 32, "never below the minimum" },
	{ WOOKIE_WSTEP_NAK, 330, 340, 1, 32, "at the minimum" },
	{ WOOKIE_WSTEP_ACKED, 345, 0, 0, 33, "grows again" },
	{ WOOKIE_WSTEP_TIMEOUT, 0, 400, 0, 32, "a timeout: the minimum" },
	{ WOOKIE_WSTEP_NAK, 399, 410, 0, 32, "NAK of the timeout's event" },
	{ WOOKIE_WSTEP_ACKED, 400, 0, 0, 33, "past the timeout's event" },
	/* Across 2^24. */
	{ WOOKIE_WSTEP_NAK, 0xfffff0, 0x20, 1, 32, "wrap: new event" },
	{ WOOKIE_WSTEP_NAK, 0x10, 0x30, 0, 32, "wrap: before 0x20" },
	{ WOOKIE_WSTEP_ACKED, 0xfffff8, 0, 0, 33, "wrap: ACK before 0x20" },
	{ WOOKIE_WSTEP_NAK, 0x1f, 0x30, 0, 33, "wrap: still recovering" },
	{ WOOKIE_WSTEP_ACKED, 0x20, 0, 0, 34, "wrap: recovered" },
	{ WOOKIE_WSTEP_NAK, 0x21, 0x40, 1, 32, "wrap: new event again" },
};

#endif /* WOOKIE_WINDOW_VECTORS_H */
