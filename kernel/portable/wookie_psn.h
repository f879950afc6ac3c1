/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The requester's decisions on PSNs that come back from the wire: which
 * responses (ACKs, NAKs, READ responses, atomic ACKs) the completer
 * accepts, and where a retransmission resumes inside a message.  A peer
 * writes these PSNs, so nothing the engine does may follow from them
 * unchecked.  Shared by the module, KUnit and the host unit tests.
 */
#ifndef WOOKIE_PSN_H
#define WOOKIE_PSN_H

#include "wookie_wire.h"

/* What the PSN of a response is to the requester. */
enum wookie_psn_class {
	/* From the oldest unacknowledged PSN to the highest sent: process. */
	WOOKIE_PSN_VALID,
	/* At most half the circle before the oldest unacknowledged: old. */
	WOOKIE_PSN_DUPLICATE,
	/* Any other: a PSN never sent, so a forged or corrupt response. */
	WOOKIE_PSN_UNSENT,
};

/*
 * Classify the PSN of a response for a requester whose oldest
 * unacknowledged PSN is @oldest and which has sent every PSN before
 * @sent_end: one past the highest PSN it ever sent, which a rewind for
 * retransmission does not move back (a response to a packet sent before
 * the rewind is still a response to a packet sent).  The window is taken
 * modulo 2^24 without a sign, so it may span up to 2^24 - 1 PSNs; an
 * empty window (@oldest == @sent_end) accepts nothing.  Only the low 24
 * bits of each argument count.
 */
static inline enum wookie_psn_class
wookie_psn_classify(__u32 psn, __u32 oldest, __u32 sent_end)
{
	__u32 span = (sent_end - oldest) & WOOKIE_PSN_MASK;
	__u32 off = (psn - oldest) & WOOKIE_PSN_MASK;

	if (off < span)
		return WOOKIE_PSN_VALID;
	if (wookie_psn_diff(psn & WOOKIE_PSN_MASK, oldest & WOOKIE_PSN_MASK) < 0)
		return WOOKIE_PSN_DUPLICATE;
	return WOOKIE_PSN_UNSENT;
}

/*
 * The same for the PSN a sequence NAK names, which is the PSN the
 * responder expects next: it may also be @sent_end itself (everything
 * sent arrived, and the responder saw a stray request), which then
 * acknowledges all that is outstanding; with nothing outstanding it
 * tells nothing new.
 */
static inline enum wookie_psn_class
wookie_psn_classify_seq_nak(__u32 psn, __u32 oldest, __u32 sent_end)
{
	if (((psn ^ sent_end) & WOOKIE_PSN_MASK) == 0)
		return ((oldest ^ sent_end) & WOOKIE_PSN_MASK) ?
		       WOOKIE_PSN_VALID : WOOKIE_PSN_DUPLICATE;
	return wookie_psn_classify(psn, oldest, sent_end);
}

/*
 * @sent_end after the requester has sent the PSNs from @from up to (not
 * including) @next: @next if that is further from @from than @sent_end
 * is, else @sent_end, which a retransmission does not move back.  @from
 * is where the packets just sent start, never beyond @sent_end (the
 * requester sends the next new PSN or one it sent before), and
 * @next - @from is at most 2^23, so that neither distance is ambiguous.
 */
static inline __u32 wookie_psn_sent_end(__u32 sent_end, __u32 from,
					__u32 next)
{
	if (((next - from) & WOOKIE_PSN_MASK) >
	    ((sent_end - from) & WOOKIE_PSN_MASK))
		return next & WOOKIE_PSN_MASK;
	return sent_end & WOOKIE_PSN_MASK;
}

/*
 * Where a message of @total_len bytes, sent @mtu bytes per packet from
 * @first_psn on, resumes when it must be sent again from PSN @psn on:
 * returns the byte offset of the packet to send first and stores its PSN
 * in *@resume_psn.  A @psn at or before the first packet resumes at the
 * start; one past the message's last packet resumes at its last packet.
 * So the offset is always that of a packet of the message (0 for an empty
 * message, or for an @mtu of 0), never a PSN distance times the MTU.
 */
static inline __u64 wookie_psn_resume(__u32 psn, __u32 first_psn,
				      __u64 total_len, __u32 mtu,
				      __u32 *resume_psn)
{
	int diff = wookie_psn_diff(psn & WOOKIE_PSN_MASK,
				   first_psn & WOOKIE_PSN_MASK);
	__u32 k = 0;

	if (diff > 0 && mtu) {
		__u32 last = wookie_num_packets(total_len, mtu) - 1;

		k = (__u32)diff < last ? (__u32)diff : last;
	}
	*resume_psn = wookie_psn_add(first_psn, k);
	return (__u64)k * mtu;
}

/*
 * Packets of a message of @total_len bytes, sent @mtu bytes a packet, not
 * sent yet when @done bytes are (0 once all are, or for an @mtu of 0; a
 * message of 0 bytes is one packet).
 */
static inline __u32 wookie_packets_left(__u64 done, __u64 total_len,
					__u32 mtu)
{
	__u32 total;
	__u64 sent;

	if (!mtu || (total_len && done >= total_len))
		return 0;
	total = wookie_num_packets(total_len, mtu);
	sent = done / mtu;
	return sent < total ? total - (__u32)sent : 0;
}

/*
 * A message of @total_len bytes, sent @mtu bytes a packet, whose next
 * packet to send (at byte offset @done) has PSN @next, when the peer has
 * everything before PSN @end: how many of the message's packets from
 * @next on that covers, at most all it has left.  0 when @end is not
 * ahead of @next (by less than 2^23), or for an @mtu of 0.
 */
static inline __u32 wookie_psn_covered(__u32 next, __u64 done,
				       __u64 total_len, __u32 mtu, __u32 end)
{
	int diff = wookie_psn_diff(end & WOOKIE_PSN_MASK,
				   next & WOOKIE_PSN_MASK);
	__u32 left = wookie_packets_left(done, total_len, mtu);

	if (diff <= 0)
		return 0;
	return (__u32)diff < left ? (__u32)diff : left;
}

#endif /* WOOKIE_PSN_H */
