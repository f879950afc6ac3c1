/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The wire format: RoCEv2 transport headers (BTH and the extended headers
 * that follow it) built and parsed in one place, as IBTA 1.4 chapter 9
 * lays them out.  Pure functions on byte buffers, shared by the module,
 * KUnit and the host unit tests and fuzzers.
 */
#ifndef WOOKIE_WIRE_H
#define WOOKIE_WIRE_H

#include "wookie_compat.h"

/* BTH.OpCode: transport in the top 3 bits, operation in the low 5. */
enum {
	WOOKIE_TRANSPORT_RC = 0x00,
	WOOKIE_TRANSPORT_UC = 0x20,
	WOOKIE_TRANSPORT_UD = 0x60,
	WOOKIE_TRANSPORT_XRC = 0xa0,
	WOOKIE_TRANSPORT_MASK = 0xe0,
};

/* The operation part of the opcode (IBTA table 38). */
enum wookie_op {
	WOOKIE_OP_SEND_FIRST = 0x00,
	WOOKIE_OP_SEND_MIDDLE = 0x01,
	WOOKIE_OP_SEND_LAST = 0x02,
	WOOKIE_OP_SEND_LAST_IMM = 0x03,
	WOOKIE_OP_SEND_ONLY = 0x04,
	WOOKIE_OP_SEND_ONLY_IMM = 0x05,
	WOOKIE_OP_WRITE_FIRST = 0x06,
	WOOKIE_OP_WRITE_MIDDLE = 0x07,
	WOOKIE_OP_WRITE_LAST = 0x08,
	WOOKIE_OP_WRITE_LAST_IMM = 0x09,
	WOOKIE_OP_WRITE_ONLY = 0x0a,
	WOOKIE_OP_WRITE_ONLY_IMM = 0x0b,
	WOOKIE_OP_READ_REQUEST = 0x0c,
	WOOKIE_OP_READ_RESPONSE_FIRST = 0x0d,
	WOOKIE_OP_READ_RESPONSE_MIDDLE = 0x0e,
	WOOKIE_OP_READ_RESPONSE_LAST = 0x0f,
	WOOKIE_OP_READ_RESPONSE_ONLY = 0x10,
	WOOKIE_OP_ACKNOWLEDGE = 0x11,
	WOOKIE_OP_ATOMIC_ACKNOWLEDGE = 0x12,
	WOOKIE_OP_CMP_SWAP = 0x13,
	WOOKIE_OP_FETCH_ADD = 0x14,
	WOOKIE_OP_SEND_LAST_INV = 0x16,
	WOOKIE_OP_SEND_ONLY_INV = 0x17,
	/* IBTA 1.5: answered by a READ RESPONSE ONLY with no payload. */
	WOOKIE_OP_FLUSH = 0x1c,
	WOOKIE_OP_ATOMIC_WRITE = 0x1d,
};

/* What an opcode is and which headers follow its BTH. */
enum {
	WOOKIE_OPF_RETH = 1u << 0,
	WOOKIE_OPF_AETH = 1u << 1,
	WOOKIE_OPF_ATOMIC_ETH = 1u << 2,
	WOOKIE_OPF_ATOMIC_ACK_ETH = 1u << 3,
	WOOKIE_OPF_IMMDT = 1u << 4,
	WOOKIE_OPF_IETH = 1u << 5,
	WOOKIE_OPF_DETH = 1u << 6,
	/* Carries payload (possibly zero bytes). */
	WOOKIE_OPF_PAYLOAD = 1u << 7,
	/* Sent by a requester / by a responder. */
	WOOKIE_OPF_REQUEST = 1u << 8,
	WOOKIE_OPF_RESPONSE = 1u << 9,
	/*
	 * Position in its message; ONLY is FIRST | LAST, and so is every
	 * packet that is a whole message (READ request, atomics, ACKs).
	 */
	WOOKIE_OPF_FIRST = 1u << 10,
	WOOKIE_OPF_MIDDLE = 1u << 11,
	WOOKIE_OPF_LAST = 1u << 12,
	/*
	 * The operation class; READ responses are READ, ATOMIC
	 * ACKNOWLEDGE is ATOMIC, only ACKNOWLEDGE is ACK.
	 */
	WOOKIE_OPF_SEND = 1u << 13,
	WOOKIE_OPF_WRITE = 1u << 14,
	WOOKIE_OPF_READ = 1u << 15,
	WOOKIE_OPF_ATOMIC = 1u << 16,
	WOOKIE_OPF_ACK = 1u << 17,
	/* XRC requests: the XRCETH (the target SRQ) follows the BTH. */
	WOOKIE_OPF_XRCETH = 1u << 18,
	/* FLUSH: the FETH comes before its RETH. */
	WOOKIE_OPF_FETH = 1u << 19,
	/* The IBTA 1.5 classes; their responses are of the READ class. */
	WOOKIE_OPF_FLUSH = 1u << 20,
	WOOKIE_OPF_ATOMIC_WRITE = 1u << 21,
};

/* The payload of an ATOMIC WRITE, and the RETH length it states. */
#define WOOKIE_ATOMIC_WRITE_BYTES 8

/*
 * Flags of a full opcode (transport | operation), 0 for an opcode that is
 * not valid on its transport (e.g. RDMA READ on UC, anything but SEND ONLY
 * on UD, every reserved code).  XRC has RC's operations.
 */
__u32 wookie_opcode_flags(__u8 opcode);

/* Decoded headers; the BTH always, the others as the opcode says. */
struct wookie_bth {
	__u8 opcode;
	bool solicited;
	bool mig_req;
	/* Pad bytes after the payload, 0-3. */
	__u8 pad;
	__u8 tver;
	__u16 pkey;
	bool fecn;
	bool becn;
	/* 24 bits */
	__u32 dest_qp;
	bool ack_req;
	/* 24 bits */
	__u32 psn;
};

struct wookie_reth {
	__u64 va;
	__u32 rkey;
	__u32 dma_len;
};

/* AETH syndrome: the top 3 bits say ACK, RNR NAK or NAK (IBTA 9.7.5.1.1). */
enum {
	WOOKIE_AETH_ACK = 0x00,
	WOOKIE_AETH_RNR_NAK = 0x20,
	WOOKIE_AETH_NAK = 0x60,
	WOOKIE_AETH_TYPE_MASK = 0xe0,
	/* ACK: credit count; RNR NAK: timer code; NAK: one of below. */
	WOOKIE_AETH_VALUE_MASK = 0x1f,
	WOOKIE_NAK_PSN_SEQ_ERROR = 0,
	WOOKIE_NAK_INVALID_REQUEST = 1,
	WOOKIE_NAK_REMOTE_ACCESS_ERROR = 2,
	WOOKIE_NAK_REMOTE_OP_ERROR = 3,
	WOOKIE_NAK_INVALID_RD_REQUEST = 4,
	/* Credit field value meaning "no end-to-end credits". */
	WOOKIE_AETH_NO_CREDITS = 0x1f,
};

struct wookie_aeth {
	__u8 syndrome;
	/* 24 bits */
	__u32 msn;
};

struct wookie_atomic_eth {
	__u64 va;
	__u32 rkey;
	__u64 swap_add;
	__u64 compare;
};

/* FETH: what a FLUSH makes durable, and over what. */
struct wookie_feth {
	/* Placement type, 4 bits: WOOKIE_FLUSH_GLOBAL, _PERSISTENT. */
	__u8 type;
	/* Selectivity level, 2 bits: WOOKIE_FLUSH_LEVEL_RANGE or _MR. */
	__u8 level;
};

struct wookie_deth {
	__u32 qkey;
	/* 24 bits */
	__u32 src_qp;
};

/* A packet's transport headers, decoded; the unused parts are zero. */
struct wookie_hdrs {
	struct wookie_bth bth;
	/* wookie_opcode_flags(bth.opcode) */
	__u32 flags;
	struct wookie_reth reth;
	struct wookie_feth feth;
	struct wookie_aeth aeth;
	struct wookie_atomic_eth atomic;
	/* AtomicAckETH: the original remote value. */
	__u64 atomic_orig;
	struct wookie_deth deth;
	/* ImmDt as it is on the wire (network byte order), as verbs keep it. */
	__u32 imm_be;
	/* IETH: the rkey to invalidate. */
	__u32 ieth_rkey;
	/* XRCETH: the XRC SRQ the request is for (24 bits). */
	__u32 xrc_srqn;
	/* Bytes from the start of the BTH to the payload. */
	__u32 hdr_len;
	/* Payload bytes, pad excluded. */
	__u32 payload_len;
};

/* Bytes of the headers @opcode carries, BTH included; 0 if invalid. */
unsigned int wookie_hdrs_len(__u8 opcode);

/*
 * Write the headers of @h (bth.opcode selects which; h->flags is ignored)
 * to @buf, computing bth.pad from h->payload_len.  Returns the header
 * length, or -EINVAL for an invalid opcode or a too small buffer.  The
 * payload and the pad bytes are the caller's, after the headers.
 */
int wookie_hdrs_build(__u8 *buf, size_t cap, const struct wookie_hdrs *h);

/*
 * Decode a packet of @len bytes starting with its BTH and ending with its
 * pad (no ICRC).  Fills @h, including flags, hdr_len and payload_len.
 * Returns 0, or -EINVAL for anything malformed: an invalid opcode, TVer
 * not 0, a packet shorter than its headers and pad or whose length is not
 * a multiple of 4, payload or pad on an opcode that carries none.
 */
int wookie_hdrs_parse(const __u8 *buf, size_t len, struct wookie_hdrs *h);

/* PSNs are 24-bit serial numbers. */
#define WOOKIE_PSN_MASK 0xffffffu

static inline __u32 wookie_psn_add(__u32 psn, __u32 n)
{
	return (psn + n) & WOOKIE_PSN_MASK;
}

/* a - b as a signed distance in the 24-bit circle (-2^23 .. 2^23 - 1). */
static inline int wookie_psn_diff(__u32 a, __u32 b)
{
	return (int)((a - b) << 8) >> 8;
}

/* Packets a message of @len bytes takes at a path MTU of @mtu bytes. */
static inline __u32 wookie_num_packets(__u64 len, __u32 mtu)
{
	return len ? (__u32)((len + mtu - 1) / mtu) : 1;
}

/* RNR NAK timer codes (IBTA table 45) in microseconds; code 0 is 655.36 ms. */
unsigned int wookie_rnr_timer_usec(__u8 code);

/* Local ACK timeout: 4.096 us * 2^timeout, 0 meaning infinite (returns 0). */
__u64 wookie_ack_timeout_usec(__u8 timeout);

#endif /* WOOKIE_WIRE_H */
