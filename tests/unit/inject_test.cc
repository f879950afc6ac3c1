// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Host tests of the packets roce_inject sends (tests/vm/progs/
// roce_packet.h): every kind builds; the good ones, and those wrong in a
// field the parser does not judge, parse back with that field as
// intended; the malformed ones do not parse; datagrams carry a correct
// ICRC (or, for bad-icrc, not), valid IPv4 and UDP checksums, and give
// their transport part back.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "../vm/progs/roce_packet.h"

namespace {

roce::Params Sample()
{
	roce::Params p;

	p.qpn = 0x123456;
	p.psn = 0xfffff0;
	p.rkey = 0x00abcd42;
	p.va = 0x7f0000001000ull;
	p.mr_len = 4096;
	p.qkey = 0x11111111;
	return p;
}

roce::Packet Make(const std::string &kind, const roce::Params &p = Sample())
{
	roce::Packet pkt;
	std::string err;

	EXPECT_TRUE(roce::make(kind, p, pkt, err)) << kind << ": " << err;
	return pkt;
}

wookie_hdrs Parse(const roce::Packet &pkt, int want = 0)
{
	wookie_hdrs h;
	// A copy of exactly its size: ASan sees any read past the end.
	std::vector<uint8_t> t(pkt.transport);

	EXPECT_EQ(want, wookie_hdrs_parse(t.data(), t.size(), &h));
	return h;
}

roce::Endpoints V4()
{
	roce::Endpoints e;
	const uint8_t s[4] = {10, 0, 0, 1}, d[4] = {10, 0, 0, 2};

	std::memcpy(e.src, s, 4);
	std::memcpy(e.dst, d, 4);
	return e;
}

roce::Endpoints V6()
{
	roce::Endpoints e;

	e.v6 = true;
	e.src[0] = e.dst[0] = 0xfd;
	e.src[15] = 1;
	e.dst[15] = 2;
	e.tclass = 0x28;
	e.flow_label = 0xabcde;
	return e;
}

TEST(Inject, EveryKindBuilds)
{
	for (const auto &k : roce::kinds()) {
		roce::Packet pkt = Make(k.name);

		EXPECT_GE(pkt.transport.size(), 4u) << k.name;
	}
	roce::Packet pkt;
	std::string err;
	EXPECT_FALSE(roce::make("no-such-kind", Sample(), pkt, err));
	EXPECT_NE(std::string::npos, err.find("no-such-kind"));
}

TEST(Inject, GoodPacketsParse)
{
	wookie_hdrs h = Parse(Make("good-send"));
	EXPECT_EQ(WOOKIE_OP_SEND_ONLY, h.bth.opcode);
	EXPECT_EQ(0x123456u, h.bth.dest_qp);
	EXPECT_EQ(0xfffff0u, h.bth.psn);
	EXPECT_EQ(0xffff, h.bth.pkey);
	EXPECT_TRUE(h.bth.ack_req);
	EXPECT_EQ(64u, h.payload_len);

	h = Parse(Make("good-write"));
	EXPECT_EQ(WOOKIE_OP_WRITE_ONLY, h.bth.opcode);
	EXPECT_EQ(0x00abcd42u, h.reth.rkey);
	EXPECT_EQ(0x7f0000001000ull, h.reth.va);
	EXPECT_EQ(64u, h.reth.dma_len);

	h = Parse(Make("good-ud"));
	EXPECT_EQ(WOOKIE_TRANSPORT_UD | WOOKIE_OP_SEND_ONLY, h.bth.opcode);
	EXPECT_EQ(0x11111111u, h.deth.qkey);
	EXPECT_EQ(0x123u, h.deth.src_qp);
	EXPECT_FALSE(h.bth.ack_req);

	h = Parse(Make("good-ack"));
	EXPECT_EQ(WOOKIE_OP_ACKNOWLEDGE, h.bth.opcode);
	EXPECT_EQ(WOOKIE_AETH_ACK | WOOKIE_AETH_NO_CREDITS, h.aeth.syndrome);

	h = Parse(Make("good-read-resp"));
	EXPECT_EQ(WOOKIE_OP_READ_RESPONSE_ONLY, h.bth.opcode);
	EXPECT_EQ(64u, h.payload_len);

	roce::Packet pkt = Make("good-atomic-write");
	h = Parse(pkt);
	EXPECT_EQ(WOOKIE_OP_ATOMIC_WRITE, h.bth.opcode);
	EXPECT_EQ(0x7f0000001000ull, h.reth.va);
	EXPECT_EQ(0x00abcd42u, h.reth.rkey);
	EXPECT_EQ(8u, h.reth.dma_len);
	EXPECT_EQ(8u, h.payload_len);
	EXPECT_EQ(0xa5, pkt.transport[h.hdr_len]);
	EXPECT_EQ(0xac, pkt.transport[h.hdr_len + 7]);

	h = Parse(Make("flush"));
	EXPECT_EQ(WOOKIE_OP_FLUSH, h.bth.opcode);
	EXPECT_EQ(1, h.feth.type);
	EXPECT_EQ(0, h.feth.level);
	EXPECT_EQ(64u, h.reth.dma_len);
	EXPECT_EQ(0u, h.payload_len);
}

TEST(Inject, PayloadPattern)
{
	roce::Params p = Sample();

	p.len = 7;
	p.fill = 0xfe;
	roce::Packet pkt = Make("good-send", p);
	wookie_hdrs h = Parse(pkt);
	ASSERT_EQ(7u, h.payload_len);
	EXPECT_EQ(1, h.bth.pad);
	for (unsigned i = 0; i < 7; i++)
		EXPECT_EQ((uint8_t)(0xfe + i), pkt.transport[h.hdr_len + i]);
	EXPECT_EQ(0, pkt.transport.back());
}

TEST(Inject, WrongButParseable)
{
	roce::Params p = Sample();

	EXPECT_EQ(0x3ffff0u, Parse(Make("psn-far")).bth.psn);
	EXPECT_EQ(1152u, Parse(Make("too-long")).payload_len);
	EXPECT_EQ(512u, Parse(Make("read-resp-long")).payload_len);
	EXPECT_EQ(0x1234, Parse(Make("bad-pkey")).bth.pkey);
	EXPECT_EQ(0x40, Parse(Make("aeth-bogus")).aeth.syndrome);
	EXPECT_EQ(0x00abcdbdu, Parse(Make("write-bad-rkey")).reth.rkey);
	EXPECT_EQ(0x00abcdbdu, Parse(Make("read-bad-rkey")).reth.rkey);
	EXPECT_EQ(0x11ee11eeu, Parse(Make("ud-bad-qkey")).deth.qkey);

	wookie_hdrs h = Parse(Make("write-out-of-range"));
	EXPECT_EQ(p.va + p.mr_len + 1, h.reth.va + h.reth.dma_len);

	EXPECT_EQ(p.va + 4, Parse(Make("atomic-write-misaligned")).reth.va);
	EXPECT_EQ(0, Parse(Make("flush-bad-type")).feth.type);

	h = Parse(Make("atomic-misaligned"));
	EXPECT_EQ(WOOKIE_OP_FETCH_ADD, h.bth.opcode);
	EXPECT_EQ(p.va + 4, h.atomic.va);
	EXPECT_EQ(p.rkey, h.atomic.rkey);

	h = Parse(Make("atomic-ack"));
	EXPECT_EQ(WOOKIE_OP_ATOMIC_ACKNOWLEDGE, h.bth.opcode);
	EXPECT_EQ(WOOKIE_AETH_ACK | WOOKIE_AETH_NO_CREDITS, h.aeth.syndrome);
	EXPECT_EQ(0x1122334455667788ULL, h.atomic_orig);

	p.syndrome = 0x7f;
	EXPECT_EQ(0x7f, Parse(Make("aeth-bogus", p)).aeth.syndrome);
	EXPECT_EQ(0x7f, Parse(Make("atomic-ack", p)).aeth.syndrome);
	p.opcode = 0x1f;
	roce::Packet pkt = Make("bad-opcode", p);
	EXPECT_EQ(0x1f, pkt.transport[0]);
}

TEST(Inject, MalformedDoNotParse)
{
	Parse(Make("bad-opcode"), -EINVAL);
	Parse(Make("bad-tver"), -EINVAL);
	Parse(Make("pad-mismatch"), -EINVAL);
	roce::Packet pkt = Make("truncated");
	EXPECT_EQ(20u, pkt.transport.size());
	Parse(pkt, -EINVAL);
	roce::Params p = Sample();
	for (int len = 0; len < 12; len++) {
		p.len = len;
		Parse(Make("pad-mismatch", p), -EINVAL);
	}
}

void CheckDatagram(const roce::Endpoints &e, const roce::Packet &pkt,
		   bool icrc_good)
{
	roce::Bytes d = roce::datagram(e, pkt);
	size_t ip_len = e.v6 ? 40 : 20;

	ASSERT_EQ(ip_len + 8 + pkt.transport.size() + 4, d.size());
	EXPECT_EQ(icrc_good, roce::icrc_ok(d.data(), d.size()));

	roce::Bytes t;
	uint8_t src[16];
	ASSERT_TRUE(roce::roce_transport(d.data(), d.size(), t, src));
	EXPECT_EQ(pkt.transport, t);
	EXPECT_EQ(0, std::memcmp(src, e.src, e.v6 ? 16 : 4));

	const uint8_t *udp = d.data() + ip_len;
	EXPECT_EQ(4791, udp[2] << 8 | udp[3]);
	EXPECT_EQ(d.size() - ip_len, (size_t)(udp[4] << 8 | udp[5]));
	if (!e.v6) {
		// The header checksum checks; no UDP checksum.
		EXPECT_EQ(0, roce::csum_fold(roce::csum_add(0, d.data(), 20)));
		EXPECT_EQ(0, udp[6] | udp[7]);
		EXPECT_EQ(d.size(), (size_t)(d[2] << 8 | d[3]));
		EXPECT_NE(0, d[4] | d[5]);
		return;
	}
	uint8_t pseudo[8] = {0, 0, (uint8_t)(d[4]), d[5], 0, 0, 0, 17};
	uint32_t sum = roce::csum_add(0, d.data() + 8, 32);
	sum = roce::csum_add(sum, pseudo, 8);
	sum = roce::csum_add(sum, udp, d.size() - ip_len);
	EXPECT_EQ(0, roce::csum_fold(sum));
	EXPECT_EQ(0x60 | 0x28 >> 4, d[0]);
	EXPECT_EQ((0x28 & 0xf) << 4 | 0xa, d[1]);
}

TEST(Inject, Datagrams)
{
	for (const auto &k : roce::kinds()) {
		roce::Packet pkt = Make(k.name);
		bool good = std::string(k.name) != "bad-icrc";

		SCOPED_TRACE(k.name);
		CheckDatagram(V4(), pkt, good);
		CheckDatagram(V6(), pkt, good);
	}
}

TEST(Inject, Runt)
{
	roce::Params p = Sample();

	p.cut = 4;
	roce::Packet pkt = Make("truncated", p);
	roce::Bytes d = roce::datagram(V4(), pkt);
	ASSERT_EQ(20u + 8 + 4 + 4, d.size());
	EXPECT_EQ(0u, d[32] | d[33] | d[34] | d[35]);
	EXPECT_FALSE(roce::icrc_ok(d.data(), d.size()));
}

TEST(Inject, NotRoce)
{
	roce::Bytes d = roce::datagram(V4(), Make("good-send"));
	roce::Bytes t;

	d[23] = 0x10;	// UDP destination port 4880
	EXPECT_FALSE(roce::roce_transport(d.data(), d.size(), t));
	d = roce::datagram(V4(), Make("good-send"));
	d[9] = 6;	// TCP
	EXPECT_FALSE(roce::roce_transport(d.data(), d.size(), t));
	for (size_t len = 0; len < 20 + 8 + 4; len++)
		EXPECT_FALSE(roce::roce_transport(d.data(), len, t)) << len;
}

}  // namespace
