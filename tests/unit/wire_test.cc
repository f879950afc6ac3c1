// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Host tests of kernel/portable/wookie_wire.c, on the vectors shared with
// the KUnit suite (tests/kunit/wookie_wire_vectors.h), plus sweeps the
// vectors cannot hold: every opcode, every truncation of every packet,
// random headers built and parsed back.  Packets are copied into buffers
// of exactly their size, so that ASan catches any read past the end.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <iomanip>
#include <memory>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "portable.h"

namespace {

std::string Hex(const __u8 *p, size_t n)
{
	std::ostringstream s;

	for (size_t i = 0; i < n; i++)
		s << (i ? " " : "") << std::hex << std::setw(2)
		  << std::setfill('0') << unsigned(p[i]);
	return s.str();
}

// The vector's bytes in a heap block of exactly @len bytes.
std::unique_ptr<__u8[]> Exact(const __u8 *bytes, size_t len)
{
	std::unique_ptr<__u8[]> p(new __u8[len ? len : 1]);

	if (len)
		std::memcpy(p.get(), bytes, len);
	return p;
}

const wookie_wire_opcode_vector *FindOpcode(unsigned int opcode)
{
	for (const wookie_wire_opcode_vector &o : wookie_wire_opcode_vectors)
		if (o.opcode == opcode)
			return &o;
	return nullptr;
}

// The decoded headers a vector promises.
wookie_hdrs Decoded(const wookie_wire_pkt_vector &v)
{
	wookie_hdrs h;

	std::memset(&h, 0, sizeof(h));
	h.bth.opcode = __u8(v.opcode);
	h.bth.solicited = v.se;
	h.bth.mig_req = v.mig_req;
	h.bth.pad = __u8(v.pad);
	h.bth.pkey = __u16(v.pkey);
	h.bth.fecn = v.fecn;
	h.bth.becn = v.becn;
	h.bth.dest_qp = v.dest_qp;
	h.bth.ack_req = v.ack_req;
	h.bth.psn = v.psn;
	h.reth.va = v.reth_va;
	h.reth.rkey = v.reth_rkey;
	h.reth.dma_len = v.reth_len;
	h.aeth.syndrome = __u8(v.syndrome);
	h.aeth.msn = v.msn;
	h.atomic.va = v.atomic_va;
	h.atomic.rkey = v.atomic_rkey;
	h.atomic.swap_add = v.swap_add;
	h.atomic.compare = v.compare;
	h.atomic_orig = v.atomic_orig;
	h.deth.qkey = v.qkey;
	h.deth.src_qp = v.src_qp;
	std::memcpy(&h.imm_be, v.imm, 4);
	h.ieth_rkey = v.ieth_rkey;
	h.xrc_srqn = v.xrc_srqn;
	h.feth.type = __u8(v.feth_type);
	h.feth.level = __u8(v.feth_level);
	h.hdr_len = v.hdr_len;
	h.payload_len = v.payload_len;
	const wookie_wire_opcode_vector *o = FindOpcode(v.opcode);
	h.flags = o ? o->flags : 0;
	return h;
}

// Field by field (the structure has padding), each with its name.
void ExpectSameHdrs(const wookie_hdrs &got, const wookie_hdrs &want)
{
#define WOOKIE_EXPECT_FIELD(f) EXPECT_EQ(uint64_t(got.f), uint64_t(want.f)) << #f
	WOOKIE_EXPECT_FIELD(bth.opcode);
	WOOKIE_EXPECT_FIELD(bth.solicited);
	WOOKIE_EXPECT_FIELD(bth.mig_req);
	WOOKIE_EXPECT_FIELD(bth.pad);
	WOOKIE_EXPECT_FIELD(bth.tver);
	WOOKIE_EXPECT_FIELD(bth.pkey);
	WOOKIE_EXPECT_FIELD(bth.fecn);
	WOOKIE_EXPECT_FIELD(bth.becn);
	WOOKIE_EXPECT_FIELD(bth.dest_qp);
	WOOKIE_EXPECT_FIELD(bth.ack_req);
	WOOKIE_EXPECT_FIELD(bth.psn);
	WOOKIE_EXPECT_FIELD(flags);
	WOOKIE_EXPECT_FIELD(reth.va);
	WOOKIE_EXPECT_FIELD(reth.rkey);
	WOOKIE_EXPECT_FIELD(reth.dma_len);
	WOOKIE_EXPECT_FIELD(aeth.syndrome);
	WOOKIE_EXPECT_FIELD(aeth.msn);
	WOOKIE_EXPECT_FIELD(atomic.va);
	WOOKIE_EXPECT_FIELD(atomic.rkey);
	WOOKIE_EXPECT_FIELD(atomic.swap_add);
	WOOKIE_EXPECT_FIELD(atomic.compare);
	WOOKIE_EXPECT_FIELD(atomic_orig);
	WOOKIE_EXPECT_FIELD(deth.qkey);
	WOOKIE_EXPECT_FIELD(deth.src_qp);
	WOOKIE_EXPECT_FIELD(imm_be);
	WOOKIE_EXPECT_FIELD(ieth_rkey);
	WOOKIE_EXPECT_FIELD(xrc_srqn);
	WOOKIE_EXPECT_FIELD(feth.type);
	WOOKIE_EXPECT_FIELD(feth.level);
	WOOKIE_EXPECT_FIELD(hdr_len);
	WOOKIE_EXPECT_FIELD(payload_len);
#undef WOOKIE_EXPECT_FIELD
}

} // namespace

void PrintTo(const wookie_wire_pkt_vector &v, std::ostream *os)
{
	*os << v.name << ": " << Hex(v.bytes, v.len);
}

void PrintTo(const wookie_wire_bad_vector &v, std::ostream *os)
{
	*os << v.name << ": " << Hex(v.bytes, v.len);
}

void PrintTo(const wookie_wire_opcode_vector &v, std::ostream *os)
{
	*os << "opcode 0x" << std::hex << v.opcode << std::dec << ": "
	    << v.hdr_len << " bytes, flags 0x" << std::hex << v.flags;
}

void PrintTo(const wookie_wire_timer_vector &v, std::ostream *os)
{
	*os << "code " << v.code << " -> " << v.usec << " us";
}

// --- Known packets ----------------------------------------------------

class WirePacket : public testing::TestWithParam<wookie_wire_pkt_vector> {};

TEST_P(WirePacket, Parse)
{
	const wookie_wire_pkt_vector &v = GetParam();
	auto buf = Exact(v.bytes, v.len);
	wookie_hdrs h;

	ASSERT_EQ(wookie_hdrs_parse(buf.get(), v.len, &h), 0);
	ExpectSameHdrs(h, Decoded(v));
	EXPECT_EQ(h.hdr_len + h.payload_len + h.bth.pad, v.len);
	EXPECT_EQ(h.hdr_len, wookie_hdrs_len(__u8(v.opcode)));
	EXPECT_EQ(h.flags, wookie_opcode_flags(__u8(v.opcode)));
}

TEST_P(WirePacket, Build)
{
	const wookie_wire_pkt_vector &v = GetParam();
	wookie_hdrs h = Decoded(v);
	std::vector<__u8> out(v.hdr_len + 8, 0xa5);
	int ret;

	h.flags = 0;	// ignored by build
	h.bth.pad = 3;	// computed by build from payload_len
	ret = wookie_hdrs_build(out.data(), v.hdr_len, &h);
	ASSERT_EQ(ret, int(v.hdr_len));
	for (size_t i = v.hdr_len; i < out.size(); i++)
		EXPECT_EQ(out[i], 0xa5) << "wrote byte " << i;
	if (v.rebuilds) {
		EXPECT_EQ(Hex(out.data(), v.hdr_len), Hex(v.bytes, v.hdr_len));
	}
	EXPECT_EQ((out[1] >> 4) & 3, v.pad) << "pad count";

	// Built headers + the vector's payload and pad parse back.
	std::vector<__u8> pkt(out.begin(), out.begin() + v.hdr_len);
	pkt.insert(pkt.end(), v.bytes + v.hdr_len, v.bytes + v.len);
	auto exact = Exact(pkt.data(), pkt.size());
	wookie_hdrs back;

	ASSERT_EQ(wookie_hdrs_parse(exact.get(), pkt.size(), &back), 0);
	ExpectSameHdrs(back, Decoded(v));
}

// Every shorter prefix of a packet: refused while it cannot hold the
// headers and the pad or is not a multiple of 4 bytes, else a packet with
// less payload.
TEST_P(WirePacket, Truncated)
{
	const wookie_wire_pkt_vector &v = GetParam();

	for (unsigned int n = 0; n < v.len; n++) {
		auto buf = Exact(v.bytes, n);
		wookie_hdrs h;
		int ret = wookie_hdrs_parse(buf.get(), n, &h);

		if (n < v.hdr_len + v.pad || n % 4) {
			EXPECT_EQ(ret, -EINVAL) << n << " bytes";
		} else {
			ASSERT_EQ(ret, 0) << n << " bytes";
			EXPECT_EQ(h.payload_len, n - v.hdr_len - v.pad);
		}
	}
}

// Extra bytes after the packet: more payload in steps of 4 bytes, or
// refused if it has none.
TEST_P(WirePacket, Extended)
{
	const wookie_wire_pkt_vector &v = GetParam();
	std::vector<__u8> pkt(v.bytes, v.bytes + v.len);
	bool payload = wookie_opcode_flags(__u8(v.opcode)) & WOOKIE_OPF_PAYLOAD;

	for (unsigned int extra = 1; extra <= 8; extra++) {
		pkt.push_back(0);
		auto buf = Exact(pkt.data(), pkt.size());
		wookie_hdrs h;
		int ret = wookie_hdrs_parse(buf.get(), pkt.size(), &h);

		if (!payload || extra % 4) {
			EXPECT_EQ(ret, -EINVAL) << extra << " extra bytes";
		} else {
			ASSERT_EQ(ret, 0) << extra << " extra bytes";
			EXPECT_EQ(h.payload_len, v.payload_len + extra);
		}
	}
}

// Every pad count on every length of a SEND ONLY: only the one that
// makes the packet a multiple of 4 bytes passes.
TEST(Wire, PadSweep)
{
	for (unsigned int payload = 0; payload < 12; payload++) {
		for (unsigned int pad = 0; pad < 4; pad++) {
			std::vector<__u8> pkt(12 + payload + pad, 0);
			wookie_hdrs h;

			pkt[0] = 0x04;
			pkt[1] = __u8(pad << 4);
			auto buf = Exact(pkt.data(), pkt.size());
			int ret = wookie_hdrs_parse(buf.get(), pkt.size(), &h);

			if ((payload + pad) % 4) {
				EXPECT_EQ(ret, -EINVAL) << payload << "+" << pad;
			} else {
				ASSERT_EQ(ret, 0) << payload << "+" << pad;
				EXPECT_EQ(h.payload_len, payload);
				EXPECT_EQ(h.bth.pad, pad);
			}
		}
	}
}

INSTANTIATE_TEST_SUITE_P(
	Wire, WirePacket, testing::ValuesIn(wookie_wire_pkt_vectors),
	[](const testing::TestParamInfo<wookie_wire_pkt_vector> &info) {
		return std::string(info.param.name);
	});

class WireMalformed : public testing::TestWithParam<wookie_wire_bad_vector> {};

TEST_P(WireMalformed, Refused)
{
	const wookie_wire_bad_vector &v = GetParam();
	auto buf = Exact(v.bytes, v.len);
	wookie_hdrs h;

	EXPECT_EQ(wookie_hdrs_parse(buf.get(), v.len, &h), -EINVAL);
}

INSTANTIATE_TEST_SUITE_P(
	Wire, WireMalformed, testing::ValuesIn(wookie_wire_bad_vectors),
	[](const testing::TestParamInfo<wookie_wire_bad_vector> &info) {
		return std::string(info.param.name);
	});

// --- Opcodes ----------------------------------------------------------

class WireOpcode : public testing::TestWithParam<wookie_wire_opcode_vector> {};

TEST_P(WireOpcode, FlagsAndLength)
{
	const wookie_wire_opcode_vector &v = GetParam();
	__u32 f = wookie_opcode_flags(__u8(v.opcode));

	EXPECT_EQ(f, v.flags);
	EXPECT_EQ(wookie_hdrs_len(__u8(v.opcode)), v.hdr_len);
	// Exactly one class, one direction, and FIRST/MIDDLE/LAST sane.
	unsigned int classes = !!(f & WOOKIE_OPF_SEND) + !!(f & WOOKIE_OPF_WRITE) +
		!!(f & WOOKIE_OPF_READ) + !!(f & WOOKIE_OPF_ATOMIC) +
		!!(f & WOOKIE_OPF_ACK) + !!(f & WOOKIE_OPF_FLUSH) +
		!!(f & WOOKIE_OPF_ATOMIC_WRITE);
	EXPECT_EQ(classes, 1u);
	EXPECT_NE(!(f & WOOKIE_OPF_REQUEST), !(f & WOOKIE_OPF_RESPONSE));
	if (f & WOOKIE_OPF_MIDDLE) {
		EXPECT_FALSE(f & (WOOKIE_OPF_FIRST | WOOKIE_OPF_LAST));
	} else {
		EXPECT_TRUE(f & (WOOKIE_OPF_FIRST | WOOKIE_OPF_LAST));
	}
	// DETH exactly on UD.
	EXPECT_EQ((v.opcode & 0xe0) == 0x60, bool(f & WOOKIE_OPF_DETH));
}

INSTANTIATE_TEST_SUITE_P(
	Wire, WireOpcode, testing::ValuesIn(wookie_wire_opcode_vectors),
	[](const testing::TestParamInfo<wookie_wire_opcode_vector> &info) {
		std::ostringstream s;

		s << "opcode_0x" << std::hex << std::setw(2) << std::setfill('0')
		  << info.param.opcode;
		return s.str();
	});

// All 256 codes: the table's, and nothing else.
TEST(Wire, OpcodeSweep)
{
	unsigned int valid = 0;

	for (unsigned int op = 0; op < 256; op++) {
		const wookie_wire_opcode_vector *v = FindOpcode(op);
		__u32 f = wookie_opcode_flags(__u8(op));

		EXPECT_EQ(f, v ? v->flags : 0u) << "opcode " << op;
		EXPECT_EQ(wookie_hdrs_len(__u8(op)), v ? v->hdr_len : 0u)
			<< "opcode " << op;
		valid += f != 0;
	}
	EXPECT_EQ(valid, unsigned(WOOKIE_TEST_NUM_OPCODES));
	EXPECT_EQ(sizeof(wookie_wire_opcode_vectors) /
			  sizeof(wookie_wire_opcode_vectors[0]),
		  size_t(WOOKIE_TEST_NUM_OPCODES));
}

// The enum values are IBTA's (table 38).
TEST(Wire, OpcodeValues)
{
	EXPECT_EQ(WOOKIE_TRANSPORT_RC | WOOKIE_OP_SEND_ONLY, 0x04);
	EXPECT_EQ(WOOKIE_TRANSPORT_UC | WOOKIE_OP_WRITE_ONLY_IMM, 0x2b);
	EXPECT_EQ(WOOKIE_TRANSPORT_UD | WOOKIE_OP_SEND_ONLY_IMM, 0x65);
	EXPECT_EQ(WOOKIE_TRANSPORT_XRC | WOOKIE_OP_SEND_ONLY_INV, 0xb7);
	EXPECT_EQ(WOOKIE_OP_READ_REQUEST, 0x0c);
	EXPECT_EQ(WOOKIE_OP_ACKNOWLEDGE, 0x11);
	EXPECT_EQ(WOOKIE_OP_ATOMIC_ACKNOWLEDGE, 0x12);
	EXPECT_EQ(WOOKIE_OP_CMP_SWAP, 0x13);
	EXPECT_EQ(WOOKIE_OP_FETCH_ADD, 0x14);
	EXPECT_EQ(WOOKIE_OP_SEND_LAST_INV, 0x16);
	EXPECT_EQ(WOOKIE_OP_SEND_ONLY_INV, 0x17);
	EXPECT_EQ(WOOKIE_OP_FLUSH, 0x1c);
	EXPECT_EQ(WOOKIE_OP_ATOMIC_WRITE, 0x1d);
	EXPECT_EQ(WOOKIE_AETH_RNR_NAK, 0x20);
	EXPECT_EQ(WOOKIE_AETH_NAK | WOOKIE_NAK_REMOTE_ACCESS_ERROR, 0x62);
}

// Every opcode with TVer 1..15 is refused; TVer 0 is accepted.
TEST(Wire, TverSweep)
{
	for (const wookie_wire_opcode_vector &o : wookie_wire_opcode_vectors) {
		std::vector<__u8> pkt(o.hdr_len, 0);

		pkt[0] = __u8(o.opcode);
		for (unsigned int tver = 0; tver < 16; tver++) {
			wookie_hdrs h;

			pkt[1] = __u8(tver);
			auto buf = Exact(pkt.data(), pkt.size());
			EXPECT_EQ(wookie_hdrs_parse(buf.get(), pkt.size(), &h),
				  tver ? -EINVAL : 0)
				<< "opcode " << o.opcode << " tver " << tver;
		}
	}
}

// --- Building ---------------------------------------------------------

TEST(Wire, BuildInvalidOpcode)
{
	wookie_hdrs h;
	__u8 buf[64];

	std::memset(&h, 0, sizeof(h));
	for (unsigned int op = 0; op < 256; op++) {
		h.bth.opcode = __u8(op);
		std::memset(buf, 0xa5, sizeof(buf));
		int ret = wookie_hdrs_build(buf, sizeof(buf), &h);

		if (FindOpcode(op)) {
			EXPECT_EQ(ret, int(FindOpcode(op)->hdr_len));
		} else {
			EXPECT_EQ(ret, -EINVAL) << "opcode " << op;
			EXPECT_EQ(buf[0], 0xa5) << "opcode " << op;
		}
	}
}

// A buffer one byte short is refused and left alone.
TEST(Wire, BuildCapacity)
{
	for (const wookie_wire_opcode_vector &o : wookie_wire_opcode_vectors) {
		wookie_hdrs h;

		std::memset(&h, 0, sizeof(h));
		h.bth.opcode = __u8(o.opcode);
		for (unsigned int cap = 0; cap <= o.hdr_len; cap++) {
			std::vector<__u8> buf(o.hdr_len + 1, 0xa5);
			int ret = wookie_hdrs_build(buf.data(), cap, &h);

			if (cap < o.hdr_len) {
				EXPECT_EQ(ret, -EINVAL);
				EXPECT_EQ(buf[0], 0xa5);
			} else {
				EXPECT_EQ(ret, int(o.hdr_len));
				EXPECT_EQ(buf[o.hdr_len], 0xa5);
			}
		}
	}
}

// Pad = what rounds the payload up to 4 bytes; none without payload.
TEST(Wire, BuildPad)
{
	wookie_hdrs h;
	__u8 buf[64];

	std::memset(&h, 0, sizeof(h));
	for (__u32 len = 0; len < 16; len++) {
		h.payload_len = len;
		h.bth.opcode = 0x04;
		ASSERT_EQ(wookie_hdrs_build(buf, sizeof(buf), &h), 12);
		EXPECT_EQ((buf[1] >> 4) & 3, (4 - len % 4) % 4) << len;
		EXPECT_EQ((len + ((buf[1] >> 4) & 3)) % 4, 0u);
		h.bth.opcode = 0x11;
		ASSERT_EQ(wookie_hdrs_build(buf, sizeof(buf), &h), 16);
		EXPECT_EQ(buf[1], 0) << len;
	}
	h.payload_len = 0xffffffff;
	h.bth.opcode = 0x0e;
	ASSERT_EQ(wookie_hdrs_build(buf, sizeof(buf), &h), 12);
	EXPECT_EQ((buf[1] >> 4) & 3, 1);
}

// Fields wider than the wire's are cut to their bits, not spilled over.
TEST(Wire, BuildMasks)
{
	wookie_hdrs h, back;
	__u8 buf[28];

	std::memset(&h, 0, sizeof(h));
	h.bth.opcode = 0x65;
	h.bth.tver = 0x10;	// 4 bits: 0 on the wire
	h.bth.dest_qp = 0xff123456;
	h.bth.psn = 0xfe654321;
	h.deth.qkey = 0xffffffff;
	h.deth.src_qp = 0xabcdef01;
	h.payload_len = 4;
	ASSERT_EQ(wookie_hdrs_build(buf, 24, &h), 24);
	EXPECT_EQ(Hex(buf, 24), "65 00 00 00 00 12 34 56 00 65 43 21 "
				"ff ff ff ff 00 cd ef 01 00 00 00 00");
	std::memset(buf + 24, 0, 4);
	ASSERT_EQ(wookie_hdrs_parse(buf, sizeof(buf), &back), 0);
	EXPECT_EQ(back.bth.dest_qp, 0x123456u);
	EXPECT_EQ(back.bth.psn, 0x654321u);
	EXPECT_EQ(back.deth.src_qp, 0xcdef01u);

	h.bth.opcode = 0x11;
	h.aeth.syndrome = 0x7f;
	h.aeth.msn = 0x1000002;
	ASSERT_EQ(wookie_hdrs_build(buf, 16, &h), 16);
	EXPECT_EQ(Hex(buf + 12, 4), "7f 00 00 02");
}

// Random headers for every opcode: build, parse, same fields.
TEST(Wire, RandomRoundTrip)
{
	std::mt19937_64 rng(0x600d5eed);
	unsigned int runs = 0;

	for (int round = 0; round < 200; round++) {
		for (const wookie_wire_opcode_vector &o :
		     wookie_wire_opcode_vectors) {
			wookie_hdrs h, back;
			__u32 payload = (o.flags & WOOKIE_OPF_PAYLOAD) ?
				__u32(rng() % 64) : 0;
			__u8 pad = __u8(-payload & 3);

			std::memset(&h, 0, sizeof(h));
			h.bth.opcode = __u8(o.opcode);
			h.bth.solicited = rng() & 1;
			h.bth.mig_req = rng() & 1;
			h.bth.pkey = __u16(rng());
			h.bth.fecn = rng() & 1;
			h.bth.becn = rng() & 1;
			h.bth.dest_qp = __u32(rng()) & 0xffffff;
			h.bth.ack_req = rng() & 1;
			h.bth.psn = __u32(rng()) & 0xffffff;
			if (o.flags & WOOKIE_OPF_RETH) {
				h.reth.va = rng();
				h.reth.rkey = __u32(rng());
				h.reth.dma_len = __u32(rng());
			}
			if (o.flags & WOOKIE_OPF_AETH) {
				h.aeth.syndrome = __u8(rng());
				h.aeth.msn = __u32(rng()) & 0xffffff;
			}
			if (o.flags & WOOKIE_OPF_ATOMIC_ETH) {
				h.atomic.va = rng();
				h.atomic.rkey = __u32(rng());
				h.atomic.swap_add = rng();
				h.atomic.compare = rng();
			}
			if (o.flags & WOOKIE_OPF_ATOMIC_ACK_ETH)
				h.atomic_orig = rng();
			if (o.flags & WOOKIE_OPF_DETH) {
				h.deth.qkey = __u32(rng());
				h.deth.src_qp = __u32(rng()) & 0xffffff;
			}
			if (o.flags & WOOKIE_OPF_IMMDT)
				h.imm_be = __u32(rng());
			if (o.flags & WOOKIE_OPF_IETH)
				h.ieth_rkey = __u32(rng());
			if (o.flags & WOOKIE_OPF_XRCETH)
				h.xrc_srqn = __u32(rng()) & 0xffffff;
			if (o.flags & WOOKIE_OPF_FETH) {
				h.feth.type = __u8(rng() & 0xf);
				h.feth.level = __u8(rng() & 3);
			}
			h.payload_len = payload;

			std::vector<__u8> pkt(o.hdr_len + payload + pad);
			ASSERT_EQ(wookie_hdrs_build(pkt.data(), pkt.size(), &h),
				  int(o.hdr_len));
			auto buf = Exact(pkt.data(), pkt.size());
			ASSERT_EQ(wookie_hdrs_parse(buf.get(), pkt.size(), &back),
				  0);
			h.bth.pad = pad;
			h.flags = o.flags;
			h.hdr_len = o.hdr_len;
			ExpectSameHdrs(back, h);
			runs++;
		}
	}
	EXPECT_EQ(runs, 200u * WOOKIE_TEST_NUM_OPCODES);
}

// Random bytes never crash the parser, and what it accepts is consistent.
TEST(Wire, RandomBytes)
{
	std::mt19937_64 rng(12345);
	unsigned int accepted = 0;

	for (int i = 0; i < 100000; i++) {
		// Mostly multiples of 4, as real packets are.
		size_t len = (i & 4) ? rng() % 80 : (rng() % 20) * 4;
		std::vector<__u8> pkt(len);
		wookie_hdrs h;

		for (__u8 &b : pkt)
			b = __u8(rng());
		// Often a valid opcode and TVer, to get past the first checks.
		if (len && (i & 1))
			pkt[0] = __u8(wookie_wire_opcode_vectors
				[rng() % WOOKIE_TEST_NUM_OPCODES].opcode);
		if (len > 1 && (i & 2))
			pkt[1] &= 0xf0;
		auto buf = Exact(pkt.data(), len);
		if (wookie_hdrs_parse(buf.get(), len, &h))
			continue;
		accepted++;
		ASSERT_EQ(size_t(h.hdr_len) + h.payload_len + h.bth.pad, len);
		ASSERT_EQ(len % 4, 0u);
		ASSERT_EQ(h.flags, wookie_opcode_flags(pkt[0]));
		ASSERT_EQ(h.hdr_len, wookie_hdrs_len(pkt[0]));
	}
	EXPECT_GT(accepted, 1000u);
}

// --- Timers and PSN arithmetic -----------------------------------------

class WireRnr : public testing::TestWithParam<wookie_wire_timer_vector> {};

TEST_P(WireRnr, Code)
{
	EXPECT_EQ(wookie_rnr_timer_usec(__u8(GetParam().code)),
		  GetParam().usec);
}

INSTANTIATE_TEST_SUITE_P(
	Wire, WireRnr, testing::ValuesIn(wookie_rnr_vectors),
	[](const testing::TestParamInfo<wookie_wire_timer_vector> &info) {
		return "code_" + std::to_string(info.param.code);
	});

// Codes 1..31 grow monotonically; 0 is the longest of all.
TEST(Wire, RnrMonotonic)
{
	for (unsigned int c = 2; c < 32; c++)
		EXPECT_GT(wookie_rnr_timer_usec(__u8(c)),
			  wookie_rnr_timer_usec(__u8(c - 1)));
	EXPECT_GT(wookie_rnr_timer_usec(0), wookie_rnr_timer_usec(31));
}

class WireAckTimeout
	: public testing::TestWithParam<wookie_wire_timer_vector> {};

TEST_P(WireAckTimeout, Code)
{
	EXPECT_EQ(wookie_ack_timeout_usec(__u8(GetParam().code)),
		  GetParam().usec);
}

INSTANTIATE_TEST_SUITE_P(
	Wire, WireAckTimeout, testing::ValuesIn(wookie_ack_timeout_vectors),
	[](const testing::TestParamInfo<wookie_wire_timer_vector> &info) {
		return "timeout_" + std::to_string(info.param.code);
	});

// Every code against the formula, computed in nanoseconds.
TEST(Wire, AckTimeoutFormula)
{
	for (unsigned int t = 0; t < 256; t++) {
		unsigned int m = t & 31;
		uint64_t ns = 4096ull << m;
		uint64_t want = m ? (ns + 999) / 1000 : 0;

		EXPECT_EQ(wookie_ack_timeout_usec(__u8(t)), want) << t;
		if (m) {
			EXPECT_GE(wookie_ack_timeout_usec(__u8(t)) * 1000, ns);
		}
	}
}

TEST(Wire, Psn)
{
	for (const wookie_psn_vector &v : wookie_psn_vectors) {
		EXPECT_EQ(wookie_psn_add(v.a, v.b), v.sum) << v.a << "+" << v.b;
		EXPECT_EQ(wookie_psn_diff(v.a, v.b), v.diff)
			<< v.a << "-" << v.b;
	}
	// diff undoes add for every distance in range.
	for (int d = -(1 << 23); d < (1 << 23); d += 4099) {
		__u32 base = 0xfff000;

		EXPECT_EQ(wookie_psn_diff(wookie_psn_add(base, __u32(d)), base),
			  d);
	}
}

TEST(Wire, NumPackets)
{
	for (const wookie_npkt_vector &v : wookie_npkt_vectors)
		EXPECT_EQ(wookie_num_packets(v.len, v.mtu), v.packets)
			<< v.len << " bytes at " << v.mtu;
}
