/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Known answers for kernel/portable/wookie_wire.c, shared by the KUnit
 * suite (tests/kunit) and the host unit tests (tests/unit).  Plain C that
 * also compiles as C++: no designated initialisers.
 *
 * Packets are assembled by hand, byte by byte, from the layouts of IBTA 1.4
 * chapter 9 (BTH 9.2, DETH 9.3.3, RETH 9.3.4, AtomicETH 9.3.5, AETH 9.3.6,
 * AtomicAckETH 9.3.7, ImmDt 9.3.8, IETH 9.3.9) and the header sequences of
 * its per-opcode tables, and IBTA 1.5's FLUSH (FETH, then RETH) and ATOMIC
 * WRITE (RETH, 8 bytes of payload); header lengths and timer values are
 * written out as numbers, never derived from wookie_wire.c's own tables.
 */
#ifndef WOOKIE_WIRE_VECTORS_H
#define WOOKIE_WIRE_VECTORS_H

#include "wookie_wire.h"

/* Largest test packet: XRCETH and AtomicETH (44 bytes) plus a little. */
#define WOOKIE_TEST_PKT_MAX 64

/* A well-formed packet and what it decodes to. */
struct wookie_wire_pkt_vector {
	const char *name;
	unsigned int len;
	__u8 bytes[WOOKIE_TEST_PKT_MAX];
	/* BTH */
	unsigned int opcode, se, mig_req, pad, pkey, fecn, becn;
	__u32 dest_qp;
	unsigned int ack_req;
	__u32 psn;
	/* RETH */
	__u64 reth_va;
	__u32 reth_rkey, reth_len;
	/* AETH */
	unsigned int syndrome;
	__u32 msn;
	/* AtomicETH */
	__u64 atomic_va;
	__u32 atomic_rkey;
	__u64 swap_add, compare;
	/* AtomicAckETH */
	__u64 atomic_orig;
	/* DETH */
	__u32 qkey, src_qp;
	/* ImmDt as its four wire bytes; IETH */
	__u8 imm[4];
	__u32 ieth_rkey;
	unsigned int hdr_len, payload_len;
	/* Building the decoded fields gives exactly these header bytes. */
	unsigned int rebuilds;
	/* XRCETH (left out, 0, by the vectors of other transports) */
	__u32 xrc_srqn;
	/* FETH (left out, 0, by the vectors of other opcodes) */
	unsigned int feth_type, feth_level;
};

static const struct wookie_wire_pkt_vector wookie_wire_pkt_vectors[] = {
	{ "rc_send_only", 20, {
		0x04, 0xb0, 0xff, 0xff,		/* SEND ONLY; SE, pad 3 */
		0x00, 0x00, 0x00, 0x11,		/* dest QP 0x11 */
		0x80, 0x00, 0x00, 0x2a,		/* AckReq, PSN 42 */
		'a', 'b', 'c', 'd', 'e', 0x00, 0x00, 0x00 },
	  0x04, 1, 0, 3, 0xffff, 0, 0, 0x11, 1, 0x2a,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0,
	  12, 5, 1, 0, 0, 0 },
	{ "rc_send_only_empty", 12, {
		0x04, 0x00, 0x80, 0x00,		/* pkey 0x8000 */
		0x00, 0x00, 0x00, 0x01,
		0x80, 0xff, 0xff, 0xff },	/* PSN 2^24 - 1 */
	  0x04, 0, 0, 0, 0x8000, 0, 0, 0x01, 1, 0xffffff,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0,
	  12, 0, 1, 0, 0, 0 },
	{ "rc_send_first", 24, {
		0x00, 0x00, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x11,
		0x00, 0x00, 0x00, 0x00,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0x09, 0x0a, 0x0b, 0x0c },
	  0x00, 0, 0, 0, 0xffff, 0, 0, 0x11, 0, 0,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0,
	  12, 12, 1, 0, 0, 0 },
	{ "rc_send_last_imm", 20, {
		0x03, 0x20, 0xff, 0xff,		/* pad 2 */
		0x00, 0x00, 0x00, 0x11,
		0x80, 0x00, 0x01, 0x00,
		0x12, 0x34, 0x56, 0x78,		/* ImmDt */
		0xaa, 0xbb, 0x00, 0x00 },
	  0x03, 0, 0, 2, 0xffff, 0, 0, 0x11, 1, 0x100,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	  { 0x12, 0x34, 0x56, 0x78 }, 0,
	  16, 2, 1, 0, 0, 0 },
	{ "rc_write_first", 36, {
		0x06, 0x00, 0xff, 0xff,		/* RDMA WRITE FIRST */
		0x00, 0x12, 0x34, 0x56,		/* dest QP 0x123456 */
		0x00, 0xab, 0xcd, 0xef,		/* PSN 0xabcdef */
		0x00, 0x00, 0x7f, 0x00, 0x12, 0x34, 0x56, 0x78,	/* VA */
		0x00, 0x00, 0x12, 0x34,		/* R_Key */
		0x00, 0x00, 0x10, 0x00,		/* DMA length 4096 */
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08 },
	  0x06, 0, 0, 0, 0xffff, 0, 0, 0x123456, 0, 0xabcdef,
	  0x00007f0012345678ull, 0x1234, 4096,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0,
	  28, 8, 1, 0, 0, 0 },
	{ "rc_write_middle", 16, {
		0x07, 0x00, 0xff, 0xff,
		0x00, 0x12, 0x34, 0x56,
		0x00, 0xab, 0xcd, 0xf0,
		0xde, 0xad, 0xbe, 0xef },
	  0x07, 0, 0, 0, 0xffff, 0, 0, 0x123456, 0, 0xabcdf0,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0,
	  12, 4, 1, 0, 0, 0 },
	{ "rc_write_only_imm", 36, {
		0x0b, 0x00, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x12,
		0x80, 0x00, 0x00, 0x07,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
		0x00, 0x00, 0x00, 0x99,
		0x00, 0x00, 0x00, 0x04,
		0xca, 0xfe, 0xf0, 0x0d,		/* ImmDt after the RETH */
		0x11, 0x22, 0x33, 0x44 },
	  0x0b, 0, 0, 0, 0xffff, 0, 0, 0x12, 1, 7,
	  0x1000, 0x99, 4,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, { 0xca, 0xfe, 0xf0, 0x0d }, 0,
	  32, 4, 1, 0, 0, 0 },
	{ "rc_read_request", 28, {
		0x0c, 0x40, 0x80, 0x01,		/* MigReq, pkey 0x8001 */
		0xc0, 0x00, 0x00, 0x02,		/* FECN, BECN */
		0x80, 0xff, 0xff, 0xff,
		0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
		0xde, 0xad, 0xbe, 0xef,
		0x80, 0x00, 0x00, 0x00 },	/* 2^31 bytes */
	  0x0c, 0, 1, 0, 0x8001, 1, 1, 0x02, 1, 0xffffff,
	  0xfedcba9876543210ull, 0xdeadbeef, 0x80000000,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0,
	  28, 0, 1, 0, 0, 0 },
	{ "rc_read_response_first", 24, {
		0x0d, 0x00, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x21,
		0x00, 0x00, 0x00, 0x30,
		0x1f, 0x00, 0x00, 0x03,		/* AETH: ACK, MSN 3 */
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08 },
	  0x0d, 0, 0, 0, 0xffff, 0, 0, 0x21, 0, 0x30,
	  0, 0, 0, 0x1f, 3, 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0,
	  16, 8, 1, 0, 0, 0 },
	{ "rc_read_response_middle", 20, {
		0x0e, 0x10, 0xff, 0xff,		/* pad 1 */
		0x00, 0x00, 0x00, 0x21,
		0x00, 0x00, 0x00, 0x31,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x00 },
	  0x0e, 0, 0, 1, 0xffff, 0, 0, 0x21, 0, 0x31,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0,
	  12, 7, 1, 0, 0, 0 },
	{ "rc_ack", 16, {
		0x11, 0x00, 0xff, 0xff,
		0x00, 0x00, 0x00, 0xab,
		0x00, 0x00, 0x01, 0x00,
		0x1f, 0x00, 0x00, 0x07 },	/* ACK, no credits, MSN 7 */
	  0x11, 0, 0, 0, 0xffff, 0, 0, 0xab, 0, 0x100,
	  0, 0, 0, 0x1f, 7, 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0,
	  16, 0, 1, 0, 0, 0 },
	{ "rc_nak_psn_seq", 16, {
		0x11, 0x00, 0xff, 0xff,
		0x00, 0x00, 0x00, 0xab,
		0x00, 0x00, 0x01, 0x05,
		0x60, 0x00, 0x00, 0x05 },	/* NAK, PSN sequence error */
	  0x11, 0, 0, 0, 0xffff, 0, 0, 0xab, 0, 0x105,
	  0, 0, 0, 0x60, 5, 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0,
	  16, 0, 1, 0, 0, 0 },
	{ "rc_nak_remote_access", 16, {
		0x11, 0x00, 0xff, 0xff,
		0x00, 0x00, 0x00, 0xab,
		0x00, 0x00, 0x01, 0x06,
		0x62, 0xff, 0xff, 0xff },	/* NAK, remote access error */
	  0x11, 0, 0, 0, 0xffff, 0, 0, 0xab, 0, 0x106,
	  0, 0, 0, 0x62, 0xffffff, 0, 0, 0, 0, 0, 0, 0,
	  { 0, 0, 0, 0 }, 0,
	  16, 0, 1, 0, 0, 0 },
	{ "rc_rnr_nak", 16, {
		0x11, 0x00, 0xff, 0xff,
		0x00, 0x00, 0x00, 0xab,
		0x00, 0x00, 0x01, 0x07,
		0x2e, 0x00, 0x00, 0x04 },	/* RNR NAK, timer 14 */
	  0x11, 0, 0, 0, 0xffff, 0, 0, 0xab, 0, 0x107,
	  0, 0, 0, 0x2e, 4, 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0,
	  16, 0, 1, 0, 0, 0 },
	{ "rc_cmp_swap", 40, {
		0x13, 0x00, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x11,
		0x80, 0x00, 0x00, 0x10,
		0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x08,	/* VA */
		0x00, 0xab, 0xcd, 0xef,				/* R_Key */
		0x11, 0x11, 0x11, 0x11, 0x22, 0x22, 0x22, 0x22,	/* swap */
		0x33, 0x33, 0x33, 0x33, 0x44, 0x44, 0x44, 0x44 }, /* cmp */
	  0x13, 0, 0, 0, 0xffff, 0, 0, 0x11, 1, 0x10,
	  0, 0, 0, 0, 0,
	  0x10000008ull, 0xabcdef, 0x1111111122222222ull,
	  0x3333333344444444ull, 0, 0, 0, { 0, 0, 0, 0 }, 0,
	  40, 0, 1, 0, 0, 0 },
	{ "rc_fetch_add", 40, {
		0x14, 0x00, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x11,
		0x80, 0x00, 0x00, 0x11,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf8,
		0x12, 0x34, 0x56, 0x78,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,	/* add 1 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 },
	  0x14, 0, 0, 0, 0xffff, 0, 0, 0x11, 1, 0x11,
	  0, 0, 0, 0, 0,
	  0xfffffffffffffff8ull, 0x12345678, 1, 0, 0, 0, 0,
	  { 0, 0, 0, 0 }, 0,
	  40, 0, 1, 0, 0, 0 },
	{ "rc_atomic_ack", 24, {
		0x12, 0x00, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x22,
		0x00, 0x00, 0x00, 0x10,
		0x00, 0x00, 0x00, 0x09,		/* ACK, credit 0, MSN 9 */
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef },
	  0x12, 0, 0, 0, 0xffff, 0, 0, 0x22, 0, 0x10,
	  0, 0, 0, 0x00, 9, 0, 0, 0, 0, 0x0123456789abcdefull, 0, 0,
	  { 0, 0, 0, 0 }, 0,
	  24, 0, 1, 0, 0, 0 },
	{ "rc_send_last_inv", 20, {
		0x16, 0x10, 0xff, 0xff,		/* SEND LAST INV, pad 1 */
		0x00, 0x00, 0x00, 0x11,
		0x80, 0x00, 0x01, 0x23,
		0x00, 0xc0, 0xff, 0xee,		/* IETH */
		0x0a, 0x0b, 0x0c, 0x00 },
	  0x16, 0, 0, 1, 0xffff, 0, 0, 0x11, 1, 0x123,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0xc0ffee,
	  16, 3, 1, 0, 0, 0 },
	{ "rc_send_only_inv", 16, {
		0x17, 0x80, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x11,
		0x80, 0x00, 0x01, 0x24,
		0x87, 0x65, 0x43, 0x21 },
	  0x17, 1, 0, 0, 0xffff, 0, 0, 0x11, 1, 0x124,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0x87654321,
	  16, 0, 1, 0, 0, 0 },
	{ "uc_write_only_imm", 36, {
		0x2b, 0x00, 0xff, 0xff,		/* UC RDMA WRITE ONLY IMM */
		0x00, 0x00, 0x00, 0x33,
		0x00, 0x00, 0x00, 0x01,
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x04, 0x00,
		0x00, 0x00, 0x00, 0x04,
		0x00, 0x00, 0x00, 0x01,
		0xa1, 0xa2, 0xa3, 0xa4 },
	  0x2b, 0, 0, 0, 0xffff, 0, 0, 0x33, 0, 1,
	  0x100000000ull, 0x400, 4,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, { 0x00, 0x00, 0x00, 0x01 }, 0,
	  32, 4, 1, 0, 0, 0 },
	{ "uc_send_middle", 16, {
		0x21, 0x00, 0x7f, 0xff,
		0x00, 0x00, 0x00, 0x33,
		0x00, 0x00, 0x00, 0x02,
		0x01, 0x02, 0x03, 0x04 },
	  0x21, 0, 0, 0, 0x7fff, 0, 0, 0x33, 0, 2,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0,
	  12, 4, 1, 0, 0, 0 },
	{ "ud_send_only", 24, {
		0x64, 0x00, 0xff, 0xff,		/* UD SEND ONLY */
		0x00, 0x00, 0x00, 0x01,		/* QP1 */
		0x00, 0x00, 0x00, 0x00,
		0x80, 0x01, 0x00, 0x00,		/* Q_Key 0x80010000 */
		0x00, 0x00, 0x00, 0x01,		/* source QP 1 */
		0x01, 0x02, 0x03, 0x04 },
	  0x64, 0, 0, 0, 0xffff, 0, 0, 0x01, 0, 0,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80010000, 0x01,
	  { 0, 0, 0, 0 }, 0,
	  20, 4, 1, 0, 0, 0 },
	{ "ud_send_only_imm", 28, {
		0x65, 0xa0, 0xff, 0xff,		/* SE, pad 2 */
		0x00, 0x00, 0x00, 0x2a,
		0x00, 0x00, 0x00, 0x00,
		0x11, 0x11, 0x11, 0x11,		/* Q_Key */
		0x00, 0x00, 0x00, 0x33,		/* source QP 0x33 */
		0xde, 0xad, 0xbe, 0xef,		/* ImmDt after the DETH */
		'h', 'i', 0x00, 0x00 },
	  0x65, 1, 0, 2, 0xffff, 0, 0, 0x2a, 0, 0,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x11111111, 0x33,
	  { 0xde, 0xad, 0xbe, 0xef }, 0,
	  24, 2, 1, 0, 0, 0 },
	/* Reserved bits are ignored on receipt and written as 0. */
	{ "rc_send_middle_reserved_bits", 16, {
		0x01, 0x00, 0xff, 0xff,
		0x3f, 0x00, 0x00, 0x11,		/* F|B clear, resv6 set */
		0x7f, 0x00, 0x00, 0x05,		/* A clear, resv7 set */
		0x01, 0x02, 0x03, 0x04 },
	  0x01, 0, 0, 0, 0xffff, 0, 0, 0x11, 0, 5,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0,
	  12, 4, 0, 0, 0, 0 },
	{ "ud_send_only_deth_reserved", 20, {
		0x64, 0x00, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x05,
		0x00, 0x00, 0x00, 0x09,
		0x00, 0x00, 0x00, 0x01,
		0xff, 0x00, 0x00, 0x44 },	/* resv8 set */
	  0x64, 0, 0, 0, 0xffff, 0, 0, 0x05, 0, 9,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x44, { 0, 0, 0, 0 }, 0,
	  20, 0, 0, 0, 0, 0 },
	/* XRC (IBTA 9.3.2): the XRCETH, 8 reserved bits and the SRQ number,
	 * right after the BTH; responses are RC's.
	 */
	{ "xrc_send_only", 24, {
		0xa4, 0x30, 0xff, 0xff,		/* XRC SEND ONLY, pad 3 */
		0x00, 0x00, 0x00, 0x21,		/* dest QP 0x21 (the TGT) */
		0x80, 0x00, 0x00, 0x03,
		0x00, 0xab, 0xcd, 0xef,		/* XRCETH: SRQ 0xabcdef */
		'x', 'r', 'c', 'x', 'r', 0x00, 0x00, 0x00 },
	  0xa4, 0, 0, 3, 0xffff, 0, 0, 0x21, 1, 3,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0,
	  16, 5, 1, 0xabcdef, 0, 0 },
	{ "xrc_send_first_reserved", 20, {
		0xa0, 0x00, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x21,
		0x00, 0x00, 0x00, 0x04,
		0xff, 0x00, 0x00, 0x01,		/* reserved bits set */
		0x01, 0x02, 0x03, 0x04 },
	  0xa0, 0, 0, 0, 0xffff, 0, 0, 0x21, 0, 4,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0,
	  16, 4, 0, 1, 0, 0 },
	{ "xrc_write_only_imm", 40, {
		0xab, 0x00, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x22,
		0x80, 0x00, 0x00, 0x08,
		0x00, 0x00, 0x00, 0x07,		/* XRCETH before the RETH */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00,
		0x00, 0x00, 0x01, 0x99,
		0x00, 0x00, 0x00, 0x04,
		0xca, 0xfe, 0xf0, 0x0d,
		0x11, 0x22, 0x33, 0x44 },
	  0xab, 0, 0, 0, 0xffff, 0, 0, 0x22, 1, 8,
	  0x2000, 0x199, 4,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, { 0xca, 0xfe, 0xf0, 0x0d }, 0,
	  36, 4, 1, 7, 0, 0 },
	{ "xrc_fetch_add", 44, {
		0xb4, 0x00, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x23,
		0x80, 0x00, 0x00, 0x09,
		0x00, 0xff, 0xff, 0xff,		/* SRQ 2^24 - 1 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x30, 0x00,
		0x00, 0x00, 0x02, 0x02,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 },
	  0xb4, 0, 0, 0, 0xffff, 0, 0, 0x23, 1, 9,
	  0, 0, 0, 0, 0,
	  0x3000, 0x202, 5, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0,
	  44, 0, 1, 0xffffff, 0, 0 },
	/* IBTA 1.5: the FETH (placement type in bits 3:0, selectivity level
	 * in 5:4) before the RETH; ATOMIC WRITE is a RETH and 8 bytes.
	 */
	{ "rc_flush_mr", 32, {
		0x1c, 0x00, 0xff, 0xff,		/* FLUSH */
		0x00, 0x00, 0x00, 0x12,
		0x80, 0x00, 0x00, 0x05,
		0x00, 0x00, 0x00, 0x11,		/* level MR, global */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00,
		0x00, 0x00, 0x03, 0x21,
		0x00, 0x00, 0x10, 0x00 },
	  0x1c, 0, 0, 0, 0xffff, 0, 0, 0x12, 1, 5,
	  0x4000, 0x321, 0x1000,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0,
	  32, 0, 1, 0, 1, 1 },
	{ "rc_flush_feth_reserved", 32, {
		0x1c, 0x00, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x12,
		0x80, 0x00, 0x00, 0x06,
		0xff, 0xff, 0xff, 0xc2,		/* reserved set; range, pers. */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x08,
		0x00, 0x00, 0x03, 0x21,
		0x00, 0x00, 0x00, 0x08 },
	  0x1c, 0, 0, 0, 0xffff, 0, 0, 0x12, 1, 6,
	  0x4008, 0x321, 8,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0,
	  32, 0, 0, 0, 2, 0 },
	{ "rc_atomic_write", 36, {
		0x1d, 0x00, 0xff, 0xff,		/* ATOMIC WRITE */
		0x00, 0x00, 0x00, 0x13,
		0x80, 0x00, 0x00, 0x07,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x50, 0x08,
		0x00, 0x00, 0x04, 0x44,
		0x00, 0x00, 0x00, 0x08,
		'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h' },
	  0x1d, 0, 0, 0, 0xffff, 0, 0, 0x13, 1, 7,
	  0x5008, 0x444, 8,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0,
	  28, 8, 1, 0, 0, 0 },
	{ "xrc_flush", 36, {
		0xbc, 0x00, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x24,
		0x80, 0x00, 0x00, 0x0a,
		0x00, 0x00, 0x00, 0x07,		/* XRCETH, then the FETH */
		0x00, 0x00, 0x00, 0x01,		/* level range, global */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x60, 0x00,
		0x00, 0x00, 0x05, 0x55,
		0x00, 0x00, 0x00, 0x40 },
	  0xbc, 0, 0, 0, 0xffff, 0, 0, 0x24, 1, 10,
	  0x6000, 0x555, 0x40,
	  0, 0, 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0,
	  36, 0, 1, 7, 1, 0 },
	{ "xrc_ack", 16, {
		0xb1, 0x00, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x31,		/* to the INI */
		0x00, 0x00, 0x00, 0x09,
		0x00, 0x00, 0x00, 0x03 },	/* no XRCETH */
	  0xb1, 0, 0, 0, 0xffff, 0, 0, 0x31, 0, 9,
	  0, 0, 0, 0x00, 3, 0, 0, 0, 0, 0, 0, 0, { 0, 0, 0, 0 }, 0,
	  16, 0, 1, 0, 0, 0 },
};

/* A packet wookie_hdrs_parse() must refuse. */
struct wookie_wire_bad_vector {
	const char *name;
	unsigned int len;
	__u8 bytes[WOOKIE_TEST_PKT_MAX];
};

/*
 * Each starts with a BTH: opcode, byte 1 (SE, M, pad, TVer), P_Key 0xffff,
 * dest QP 0x11, PSN 1; what follows is zero unless written out.
 */
static const struct wookie_wire_bad_vector wookie_wire_bad_vectors[] = {
	{ "empty", 0, { 0 } },
	{ "one_byte", 1, { 0x04 } },
	{ "short_bth", 11,
	  { 0x04, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "tver_1", 12, { 0x04, 0x01, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "tver_15", 16,
	  { 0x04, 0x0f, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1,
	    1, 2, 3, 4 } },
	{ "rc_reserved_0x15", 16,
	  { 0x15, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1,
	    1, 2, 3, 4 } },
	{ "rc_reserved_0x18", 12,
	  { 0x18, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "rc_reserved_0x1f", 12,
	  { 0x1f, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "uc_read_request", 28,
	  { 0x2c, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "uc_ack", 16, { 0x31, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "uc_cmp_swap", 40,
	  { 0x33, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "uc_send_last_inv", 16,
	  { 0x36, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "rd_send_only", 32,
	  { 0x44, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "ud_send_first", 20,
	  { 0x60, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "ud_write_only", 36,
	  { 0x6a, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "cnp", 28, { 0x81, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "xrc_send_only_no_xrceth", 12,
	  { 0xa4, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "xrc_fetch_add_short", 40,
	  { 0xb4, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "xrc_read_request_payload", 36,
	  { 0xac, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "opcode_0xff", 12,
	  { 0xff, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "write_first_short_reth", 27,
	  { 0x06, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "read_request_short", 27,
	  { 0x0c, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "read_request_payload", 32,
	  { 0x0c, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "read_request_pad", 30,
	  { 0x0c, 0x20, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "read_request_pad_no_bytes", 28,
	  { 0x0c, 0x10, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "ack_short_aeth", 15,
	  { 0x11, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1,
	    0x1f } },
	{ "ack_payload", 17,
	  { 0x11, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1,
	    0x1f, 0, 0, 1, 9 } },
	{ "ack_payload_4", 20,
	  { 0x11, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1,
	    0x1f, 0, 0, 1 } },
	{ "ack_pad", 17,
	  { 0x11, 0x10, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1,
	    0x1f, 0, 0, 1 } },
	{ "atomic_ack_short", 23,
	  { 0x12, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "atomic_ack_payload", 28,
	  { 0x12, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "cmp_swap_short", 39,
	  { 0x13, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "fetch_add_payload", 44,
	  { 0x14, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "send_only_pad_gt_payload", 14,
	  { 0x04, 0x30, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1,
	    'a', 0 } },
	{ "send_only_pad_no_payload", 12,
	  { 0x04, 0x10, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	/* Payload + pad not a multiple of 4: the pad count is wrong. */
	{ "send_only_unpadded", 13,
	  { 0x04, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1,
	    'a' } },
	{ "send_only_pad_too_small", 14,
	  { 0x04, 0x10, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1,
	    'a', 0 } },
	{ "send_only_pad_too_large", 17,
	  { 0x04, 0x20, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1,
	    'a', 'b', 'c', 0, 0 } },
	{ "send_only_pad_3_of_4", 19,
	  { 0x04, 0x30, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1,
	    'a', 'b', 'c', 'd', 0, 0, 0 } },
	{ "write_middle_odd", 15,
	  { 0x07, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1,
	    1, 2, 3 } },
	{ "send_only_imm_short", 15,
	  { 0x05, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1,
	    1, 2, 3 } },
	{ "send_only_imm_pad_short", 17,
	  { 0x05, 0x20, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1,
	    1, 2, 3, 4, 0 } },
	{ "send_last_inv_short", 13,
	  { 0x16, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1,
	    0 } },
	{ "read_response_first_short", 15,
	  { 0x0d, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "ud_send_only_short_deth", 19,
	  { 0x64, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "ud_send_only_imm_short", 23,
	  { 0x65, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
	{ "ud_send_only_pad_short", 21,
	  { 0x64, 0x30, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1 } },
};

/* Every valid opcode, its header length and flags; all others are 0. */
struct wookie_wire_opcode_vector {
	unsigned int opcode;
	unsigned int hdr_len;
	__u32 flags;
};

#define WOOKIE_TEST_SEND (WOOKIE_OPF_SEND | WOOKIE_OPF_REQUEST | \
			  WOOKIE_OPF_PAYLOAD)
#define WOOKIE_TEST_WRITE (WOOKIE_OPF_WRITE | WOOKIE_OPF_REQUEST | \
			   WOOKIE_OPF_PAYLOAD)
#define WOOKIE_TEST_RRESP (WOOKIE_OPF_READ | WOOKIE_OPF_RESPONSE | \
			   WOOKIE_OPF_PAYLOAD)
#define WOOKIE_TEST_ONLY (WOOKIE_OPF_FIRST | WOOKIE_OPF_LAST)

static const struct wookie_wire_opcode_vector wookie_wire_opcode_vectors[] = {
	{ 0x00, 12, WOOKIE_TEST_SEND | WOOKIE_OPF_FIRST },
	{ 0x01, 12, WOOKIE_TEST_SEND | WOOKIE_OPF_MIDDLE },
	{ 0x02, 12, WOOKIE_TEST_SEND | WOOKIE_OPF_LAST },
	{ 0x03, 16, WOOKIE_TEST_SEND | WOOKIE_OPF_LAST | WOOKIE_OPF_IMMDT },
	{ 0x04, 12, WOOKIE_TEST_SEND | WOOKIE_TEST_ONLY },
	{ 0x05, 16, WOOKIE_TEST_SEND | WOOKIE_TEST_ONLY | WOOKIE_OPF_IMMDT },
	{ 0x06, 28, WOOKIE_TEST_WRITE | WOOKIE_OPF_FIRST | WOOKIE_OPF_RETH },
	{ 0x07, 12, WOOKIE_TEST_WRITE | WOOKIE_OPF_MIDDLE },
	{ 0x08, 12, WOOKIE_TEST_WRITE | WOOKIE_OPF_LAST },
	{ 0x09, 16, WOOKIE_TEST_WRITE | WOOKIE_OPF_LAST | WOOKIE_OPF_IMMDT },
	{ 0x0a, 28, WOOKIE_TEST_WRITE | WOOKIE_TEST_ONLY | WOOKIE_OPF_RETH },
	{ 0x0b, 32, WOOKIE_TEST_WRITE | WOOKIE_TEST_ONLY | WOOKIE_OPF_RETH |
		    WOOKIE_OPF_IMMDT },
	{ 0x0c, 28, WOOKIE_OPF_READ | WOOKIE_OPF_REQUEST | WOOKIE_TEST_ONLY |
		    WOOKIE_OPF_RETH },
	{ 0x0d, 16, WOOKIE_TEST_RRESP | WOOKIE_OPF_FIRST | WOOKIE_OPF_AETH },
	{ 0x0e, 12, WOOKIE_TEST_RRESP | WOOKIE_OPF_MIDDLE },
	{ 0x0f, 16, WOOKIE_TEST_RRESP | WOOKIE_OPF_LAST | WOOKIE_OPF_AETH },
	{ 0x10, 16, WOOKIE_TEST_RRESP | WOOKIE_TEST_ONLY | WOOKIE_OPF_AETH },
	{ 0x11, 16, WOOKIE_OPF_ACK | WOOKIE_OPF_RESPONSE | WOOKIE_TEST_ONLY |
		    WOOKIE_OPF_AETH },
	{ 0x12, 24, WOOKIE_OPF_ATOMIC | WOOKIE_OPF_RESPONSE |
		    WOOKIE_TEST_ONLY | WOOKIE_OPF_AETH |
		    WOOKIE_OPF_ATOMIC_ACK_ETH },
	{ 0x13, 40, WOOKIE_OPF_ATOMIC | WOOKIE_OPF_REQUEST |
		    WOOKIE_TEST_ONLY | WOOKIE_OPF_ATOMIC_ETH },
	{ 0x14, 40, WOOKIE_OPF_ATOMIC | WOOKIE_OPF_REQUEST |
		    WOOKIE_TEST_ONLY | WOOKIE_OPF_ATOMIC_ETH },
	{ 0x16, 16, WOOKIE_TEST_SEND | WOOKIE_OPF_LAST | WOOKIE_OPF_IETH },
	{ 0x17, 16, WOOKIE_TEST_SEND | WOOKIE_TEST_ONLY | WOOKIE_OPF_IETH },
	{ 0x1c, 32, WOOKIE_OPF_FLUSH | WOOKIE_OPF_REQUEST | WOOKIE_TEST_ONLY |
		    WOOKIE_OPF_FETH | WOOKIE_OPF_RETH },
	{ 0x1d, 28, WOOKIE_OPF_ATOMIC_WRITE | WOOKIE_OPF_REQUEST |
		    WOOKIE_TEST_ONLY | WOOKIE_OPF_RETH | WOOKIE_OPF_PAYLOAD },
	/* UC: SEND and RDMA WRITE only. */
	{ 0x20, 12, WOOKIE_TEST_SEND | WOOKIE_OPF_FIRST },
	{ 0x21, 12, WOOKIE_TEST_SEND | WOOKIE_OPF_MIDDLE },
	{ 0x22, 12, WOOKIE_TEST_SEND | WOOKIE_OPF_LAST },
	{ 0x23, 16, WOOKIE_TEST_SEND | WOOKIE_OPF_LAST | WOOKIE_OPF_IMMDT },
	{ 0x24, 12, WOOKIE_TEST_SEND | WOOKIE_TEST_ONLY },
	{ 0x25, 16, WOOKIE_TEST_SEND | WOOKIE_TEST_ONLY | WOOKIE_OPF_IMMDT },
	{ 0x26, 28, WOOKIE_TEST_WRITE | WOOKIE_OPF_FIRST | WOOKIE_OPF_RETH },
	{ 0x27, 12, WOOKIE_TEST_WRITE | WOOKIE_OPF_MIDDLE },
	{ 0x28, 12, WOOKIE_TEST_WRITE | WOOKIE_OPF_LAST },
	{ 0x29, 16, WOOKIE_TEST_WRITE | WOOKIE_OPF_LAST | WOOKIE_OPF_IMMDT },
	{ 0x2a, 28, WOOKIE_TEST_WRITE | WOOKIE_TEST_ONLY | WOOKIE_OPF_RETH },
	{ 0x2b, 32, WOOKIE_TEST_WRITE | WOOKIE_TEST_ONLY | WOOKIE_OPF_RETH |
		    WOOKIE_OPF_IMMDT },
	{ 0x64, 20, WOOKIE_TEST_SEND | WOOKIE_TEST_ONLY | WOOKIE_OPF_DETH },
	{ 0x65, 24, WOOKIE_TEST_SEND | WOOKIE_TEST_ONLY | WOOKIE_OPF_DETH |
		    WOOKIE_OPF_IMMDT },
	/* XRC: RC's operations; requests carry the XRCETH after the BTH. */
	{ 0xa0, 16, WOOKIE_TEST_SEND | WOOKIE_OPF_FIRST | WOOKIE_OPF_XRCETH },
	{ 0xa1, 16, WOOKIE_TEST_SEND | WOOKIE_OPF_MIDDLE | WOOKIE_OPF_XRCETH },
	{ 0xa2, 16, WOOKIE_TEST_SEND | WOOKIE_OPF_LAST | WOOKIE_OPF_XRCETH },
	{ 0xa3, 20, WOOKIE_TEST_SEND | WOOKIE_OPF_LAST | WOOKIE_OPF_IMMDT |
		    WOOKIE_OPF_XRCETH },
	{ 0xa4, 16, WOOKIE_TEST_SEND | WOOKIE_TEST_ONLY | WOOKIE_OPF_XRCETH },
	{ 0xa5, 20, WOOKIE_TEST_SEND | WOOKIE_TEST_ONLY | WOOKIE_OPF_IMMDT |
		    WOOKIE_OPF_XRCETH },
	{ 0xa6, 32, WOOKIE_TEST_WRITE | WOOKIE_OPF_FIRST | WOOKIE_OPF_RETH |
		    WOOKIE_OPF_XRCETH },
	{ 0xa7, 16, WOOKIE_TEST_WRITE | WOOKIE_OPF_MIDDLE | WOOKIE_OPF_XRCETH },
	{ 0xa8, 16, WOOKIE_TEST_WRITE | WOOKIE_OPF_LAST | WOOKIE_OPF_XRCETH },
	{ 0xa9, 20, WOOKIE_TEST_WRITE | WOOKIE_OPF_LAST | WOOKIE_OPF_IMMDT |
		    WOOKIE_OPF_XRCETH },
	{ 0xaa, 32, WOOKIE_TEST_WRITE | WOOKIE_TEST_ONLY | WOOKIE_OPF_RETH |
		    WOOKIE_OPF_XRCETH },
	{ 0xab, 36, WOOKIE_TEST_WRITE | WOOKIE_TEST_ONLY | WOOKIE_OPF_RETH |
		    WOOKIE_OPF_IMMDT | WOOKIE_OPF_XRCETH },
	{ 0xac, 32, WOOKIE_OPF_READ | WOOKIE_OPF_REQUEST | WOOKIE_TEST_ONLY |
		    WOOKIE_OPF_RETH | WOOKIE_OPF_XRCETH },
	{ 0xad, 16, WOOKIE_TEST_RRESP | WOOKIE_OPF_FIRST | WOOKIE_OPF_AETH },
	{ 0xae, 12, WOOKIE_TEST_RRESP | WOOKIE_OPF_MIDDLE },
	{ 0xaf, 16, WOOKIE_TEST_RRESP | WOOKIE_OPF_LAST | WOOKIE_OPF_AETH },
	{ 0xb0, 16, WOOKIE_TEST_RRESP | WOOKIE_TEST_ONLY | WOOKIE_OPF_AETH },
	{ 0xb1, 16, WOOKIE_OPF_ACK | WOOKIE_OPF_RESPONSE | WOOKIE_TEST_ONLY |
		    WOOKIE_OPF_AETH },
	{ 0xb2, 24, WOOKIE_OPF_ATOMIC | WOOKIE_OPF_RESPONSE |
		    WOOKIE_TEST_ONLY | WOOKIE_OPF_AETH |
		    WOOKIE_OPF_ATOMIC_ACK_ETH },
	{ 0xb3, 44, WOOKIE_OPF_ATOMIC | WOOKIE_OPF_REQUEST |
		    WOOKIE_TEST_ONLY | WOOKIE_OPF_ATOMIC_ETH | WOOKIE_OPF_XRCETH },
	{ 0xb4, 44, WOOKIE_OPF_ATOMIC | WOOKIE_OPF_REQUEST |
		    WOOKIE_TEST_ONLY | WOOKIE_OPF_ATOMIC_ETH | WOOKIE_OPF_XRCETH },
	{ 0xb6, 20, WOOKIE_TEST_SEND | WOOKIE_OPF_LAST | WOOKIE_OPF_IETH |
		    WOOKIE_OPF_XRCETH },
	{ 0xb7, 20, WOOKIE_TEST_SEND | WOOKIE_TEST_ONLY | WOOKIE_OPF_IETH |
		    WOOKIE_OPF_XRCETH },
	{ 0xbc, 36, WOOKIE_OPF_FLUSH | WOOKIE_OPF_REQUEST | WOOKIE_TEST_ONLY |
		    WOOKIE_OPF_FETH | WOOKIE_OPF_RETH | WOOKIE_OPF_XRCETH },
	{ 0xbd, 32, WOOKIE_OPF_ATOMIC_WRITE | WOOKIE_OPF_REQUEST |
		    WOOKIE_TEST_ONLY | WOOKIE_OPF_RETH | WOOKIE_OPF_PAYLOAD |
		    WOOKIE_OPF_XRCETH },
};

/*
 * Number of opcodes of wookie_wire_opcode_vectors: 25 RC, 12 UC, 2 UD,
 * 25 XRC.
 */
#define WOOKIE_TEST_NUM_OPCODES 64

struct wookie_wire_timer_vector {
	unsigned int code;
	__u64 usec;
};

/* RNR NAK timer codes, IBTA table 45; the code is a 5-bit field. */
static const struct wookie_wire_timer_vector wookie_rnr_vectors[] = {
	{ 0, 655360 }, { 1, 10 }, { 2, 20 }, { 3, 30 },
	{ 4, 40 }, { 5, 60 }, { 6, 80 }, { 7, 120 },
	{ 8, 160 }, { 9, 240 }, { 10, 320 }, { 11, 480 },
	{ 12, 640 }, { 13, 960 }, { 14, 1280 }, { 15, 1920 },
	{ 16, 2560 }, { 17, 3840 }, { 18, 5120 }, { 19, 7680 },
	{ 20, 10240 }, { 21, 15360 }, { 22, 20480 }, { 23, 30720 },
	{ 24, 40960 }, { 25, 61440 }, { 26, 81920 }, { 27, 122880 },
	{ 28, 163840 }, { 29, 245760 }, { 30, 327680 }, { 31, 491520 },
	{ 32, 655360 }, { 33, 10 }, { 63, 491520 }, { 0x85, 60 },
	{ 255, 491520 },
};

/*
 * Local ACK timeout: 4.096 us * 2^t, rounded up to whole microseconds
 * (a timer may fire late, never early); 0 is infinite and returns 0.
 */
static const struct wookie_wire_timer_vector wookie_ack_timeout_vectors[] = {
	{ 0, 0 },
	{ 1, 9 },		/* 8.192 us */
	{ 2, 17 },		/* 16.384 */
	{ 3, 33 },		/* 32.768 */
	{ 8, 1049 },		/* 1048.576 */
	{ 10, 4195 },		/* 4194.304 */
	{ 14, 67109 },		/* 67108.864: the common 67 ms */
	{ 18, 1073742 },	/* 1.07 s */
	{ 20, 4294968 },	/* 4294967.296 */
	{ 31, 8796093023ull },	/* 8796093022.208: 2.4 hours */
	{ 32, 0 },
	{ 33, 9 },
	{ 255, 8796093023ull },
};

struct wookie_psn_vector {
	__u32 a, b;
	__u32 sum;	/* wookie_psn_add(a, b) */
	int diff;	/* wookie_psn_diff(a, b) */
};

static const struct wookie_psn_vector wookie_psn_vectors[] = {
	{ 0, 0, 0, 0 },
	{ 1, 0, 1, 1 },
	{ 0, 1, 1, -1 },
	{ 0xffffff, 1, 0, -2 },			/* wraps */
	{ 1, 0xffffff, 0, 2 },			/* 1 is 2 after 2^24 - 1 */
	{ 0xffffff, 0, 0xffffff, -1 },
	{ 0, 0xffffff, 0xffffff, 1 },
	{ 0xfffffe, 3, 1, -5 },
	{ 0x7fffff, 0, 0x7fffff, 0x7fffff },	/* furthest ahead */
	{ 0x800000, 0, 0x800000, -0x800000 },	/* half way: behind */
	{ 0x123456, 0x123456, 0x2468ac, 0 },
	{ 0x000010, 0xfffff0, 0, 0x20 },
};

struct wookie_npkt_vector {
	__u64 len;
	__u32 mtu;
	__u32 packets;
};

static const struct wookie_npkt_vector wookie_npkt_vectors[] = {
	{ 0, 256, 1 },			/* a zero-byte message is one packet */
	{ 1, 256, 1 },
	{ 256, 256, 1 },
	{ 257, 256, 2 },
	{ 1024, 1024, 1 },
	{ 1025, 1024, 2 },
	{ 4096, 1024, 4 },
	{ 65536, 4096, 16 },
	{ 0x80000000ull, 256, 8388608 },
	{ 0x80000000ull, 4096, 524288 },
};

#endif /* WOOKIE_WIRE_VECTORS_H */
