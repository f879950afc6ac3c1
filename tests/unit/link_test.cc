// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Host tests of kernel/portable/wookie_link.c, on the vectors shared with
// the KUnit suite (tests/kunit/wookie_link_vectors.h).  The cross-checks
// against the kernel's own definitions (enum ib_mtu, iboe_get_mtu(), ...)
// need kernel headers and live in the KUnit suite only.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>

#include "portable.h"

namespace {

// Netdev MTUs swept exhaustively, past the 64 KiB of loopback.
constexpr unsigned int kSweepEnd = 70000;

std::string Hex(const __u8 *p, size_t n)
{
	std::ostringstream s;

	for (size_t i = 0; i < n; i++)
		s << (i ? ":" : "") << std::hex << std::setw(2)
		  << std::setfill('0') << unsigned(p[i]);
	return s.str();
}

// A test name from free text: letters and digits, the rest '_'.
std::string Identifier(const std::string &text)
{
	std::string id = text;

	std::replace_if(id.begin(), id.end(),
			[](unsigned char c) { return !std::isalnum(c); }, '_');
	return id;
}

// The answer computed the slow way: the largest size that fits.
unsigned int ExpectedMtu(unsigned int netdev_mtu)
{
	for (unsigned int code = 5; code >= 1; code--)
		if ((128u << code) + WOOKIE_TEST_ROCE_OVERHEAD <= netdev_mtu)
			return code;
	return 0;
}

} // namespace

// How gtest shows the vectors in failure messages.
void PrintTo(const wookie_mtu_vector &v, std::ostream *os)
{
	*os << "netdev mtu " << v.netdev_mtu << " -> code " << v.ib_mtu
	    << " (" << v.ib_mtu_bytes << " bytes)";
}

void PrintTo(const wookie_mtu_code_vector &v, std::ostream *os)
{
	*os << "code " << v.code << " -> " << v.bytes << " bytes";
}

void PrintTo(const wookie_guid_vector &v, std::ostream *os)
{
	*os << "mac " << Hex(v.mac, 6) << " -> guid " << Hex(v.guid, 8);
}

void PrintTo(const wookie_port_vector &v, std::ostream *os)
{
	*os << "running " << v.running << " carrier " << v.carrier;
}

void PrintTo(const wookie_hdr_vector &v, std::ostream *os)
{
	*os << v.name << ": " << v.bytes << " (spec " << v.spec << ")";
}

void PrintTo(const wookie_ext_hdr_set &v, std::ostream *os)
{
	*os << v.name << ": " << v.bytes;
}

// --- Path MTU from the netdev MTU --------------------------------------

class MtuForNetdev : public testing::TestWithParam<wookie_mtu_vector> {};

TEST_P(MtuForNetdev, Vector)
{
	const wookie_mtu_vector &v = GetParam();
	enum wookie_mtu mtu = wookie_mtu_for_netdev(v.netdev_mtu);

	EXPECT_EQ(unsigned(mtu), v.ib_mtu);
	EXPECT_EQ(wookie_mtu_to_bytes(mtu), v.ib_mtu_bytes);
	EXPECT_EQ(wookie_netdev_mtu_usable(v.netdev_mtu), v.ib_mtu != 0);
}

INSTANTIATE_TEST_SUITE_P(
	Link, MtuForNetdev, testing::ValuesIn(wookie_mtu_vectors),
	[](const testing::TestParamInfo<wookie_mtu_vector> &info) {
		return "netdev_mtu_" + std::to_string(info.param.netdev_mtu);
	});

TEST(Link, MtuForNetdevSweep)
{
	unsigned int prev = 0, bad = 0;

	for (unsigned int n = 0; n < kSweepEnd; n++) {
		unsigned int got = wookie_mtu_for_netdev(n);

		if (got != ExpectedMtu(n) || got < prev ||
		    wookie_netdev_mtu_usable(n) != (got != 0)) {
			if (!bad++)
				ADD_FAILURE() << "netdev mtu " << n << ": got "
					      << got << ", want "
					      << ExpectedMtu(n);
		}
		prev = got;
	}
	EXPECT_EQ(bad, 0u) << bad << " netdev MTUs mapped wrongly";
}

// Exactly the five IBTA sizes are reachable, each from its threshold on.
TEST(Link, MtuThresholds)
{
	for (unsigned int code = 1; code <= 5; code++) {
		unsigned int bytes = 128u << code;
		unsigned int threshold = bytes + WOOKIE_TEST_ROCE_OVERHEAD;

		EXPECT_EQ(unsigned(wookie_mtu_for_netdev(threshold)), code);
		EXPECT_EQ(unsigned(wookie_mtu_for_netdev(threshold - 1)),
			  code - 1);
		EXPECT_EQ(wookie_mtu_to_bytes(wookie_mtu_for_netdev(threshold)),
			  bytes);
	}
}

// --- MTU codes --------------------------------------------------------

class MtuToBytes : public testing::TestWithParam<wookie_mtu_code_vector> {};

TEST_P(MtuToBytes, Code)
{
	const wookie_mtu_code_vector &v = GetParam();

	EXPECT_EQ(wookie_test_mtu_to_bytes_raw(v.code), v.bytes);
	if (!v.bytes)
		return;
	// Round trip: the smallest netdev MTU that carries this size.
	EXPECT_EQ(unsigned(wookie_mtu_for_netdev(v.bytes +
						 WOOKIE_TEST_ROCE_OVERHEAD)),
		  v.code);
	EXPECT_EQ(unsigned(wookie_mtu_for_netdev(v.bytes +
						 WOOKIE_TEST_ROCE_OVERHEAD - 1)),
		  v.code - 1);
}

INSTANTIATE_TEST_SUITE_P(
	Link, MtuToBytes, testing::ValuesIn(wookie_mtu_code_vectors),
	[](const testing::TestParamInfo<wookie_mtu_code_vector> &info) {
		return "code_" + std::to_string(info.param.code);
	});

// The values of enum ib_mtu / enum ibv_mtu (IBTA: 1 is 256 ... 5 is 4096).
TEST(Link, MtuEnumValues)
{
	EXPECT_EQ(WOOKIE_MTU_256, 1);
	EXPECT_EQ(WOOKIE_MTU_512, 2);
	EXPECT_EQ(WOOKIE_MTU_1024, 3);
	EXPECT_EQ(WOOKIE_MTU_2048, 4);
	EXPECT_EQ(WOOKIE_MTU_4096, 5);
	EXPECT_EQ(wookie_mtu_to_bytes(WOOKIE_MTU_256), 256u);
	EXPECT_EQ(wookie_mtu_to_bytes(WOOKIE_MTU_4096), 4096u);
}

// --- GUID from MAC ----------------------------------------------------

class GuidFromMac : public testing::TestWithParam<wookie_guid_vector> {};

TEST_P(GuidFromMac, Vector)
{
	const wookie_guid_vector &v = GetParam();
	__u8 mac[6], buf[10];

	std::memcpy(mac, v.mac, sizeof(mac));
	std::memset(buf, 0xa5, sizeof(buf));
	wookie_guid_from_mac(mac, buf + 1);

	EXPECT_EQ(Hex(buf + 1, 8), Hex(v.guid, 8));
	EXPECT_EQ(buf[0], 0xa5) << "wrote before the GUID";
	EXPECT_EQ(buf[9], 0xa5) << "wrote past the GUID";
	EXPECT_EQ(std::memcmp(mac, v.mac, sizeof(mac)), 0) << "MAC changed";

	// The U/L bit flips, whichever way it was; nothing else moves.
	EXPECT_EQ(buf[1] ^ mac[0], 0x02);
	EXPECT_EQ(buf[2], mac[1]);
	EXPECT_EQ(buf[3], mac[2]);
	EXPECT_EQ(buf[4], 0xff);
	EXPECT_EQ(buf[5], 0xfe);
	EXPECT_EQ(buf[6], mac[3]);
	EXPECT_EQ(buf[7], mac[4]);
	EXPECT_EQ(buf[8], mac[5]);
}

INSTANTIATE_TEST_SUITE_P(
	Link, GuidFromMac, testing::ValuesIn(wookie_guid_vectors),
	[](const testing::TestParamInfo<wookie_guid_vector> &info) {
		std::string hex = Hex(info.param.mac, 6);

		hex.erase(std::remove(hex.begin(), hex.end(), ':'), hex.end());
		return "mac_" + hex;
	});

TEST(Link, GuidUniversalLocalBit)
{
	__u8 mac[6] = { 0, 0x11, 0x22, 0x33, 0x44, 0x55 };
	__u8 guid[8];

	for (unsigned int b = 0; b < 256; b++) {
		mac[0] = __u8(b);
		wookie_guid_from_mac(mac, guid);
		EXPECT_EQ(guid[0], __u8(b ^ 0x02)) << "first byte " << b;
		// Flipping the bit back recovers the MAC.
		const __u8 back[6] = { __u8(guid[0] ^ 0x02), guid[1], guid[2],
				       guid[5], guid[6], guid[7] };
		EXPECT_EQ(std::memcmp(back, mac, 6), 0) << "first byte " << b;
	}
}

// ib_device.node_guid is __be64: the bytes are in network order.
TEST(Link, GuidByteOrder)
{
	static const __u8 mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	__u8 guid[8];
	uint64_t be = 0;

	wookie_guid_from_mac(mac, guid);
	for (unsigned int i = 0; i < 8; i++)
		be = be << 8 | guid[i];
	EXPECT_EQ(be, 0x505400fffe123456ULL);
}

// --- Port state -------------------------------------------------------

class PortState : public testing::TestWithParam<wookie_port_vector> {};

TEST_P(PortState, Table)
{
	const wookie_port_vector &v = GetParam();
	int port = wookie_port_state(v.running, v.carrier);
	int phys = wookie_phys_state(v.running, v.carrier);

	EXPECT_EQ(port, v.port_state);
	EXPECT_EQ(phys, v.phys_state);
	// ACTIVE and LINK_UP always go together.
	EXPECT_EQ(port == 4, phys == 5);
}

INSTANTIATE_TEST_SUITE_P(
	Link, PortState, testing::ValuesIn(wookie_port_vectors),
	[](const testing::TestParamInfo<wookie_port_vector> &info) {
		return std::string(info.param.running ? "running" : "stopped") +
		       (info.param.carrier ? "_carrier" : "_no_carrier");
	});

// IB_PORT_DOWN, IB_PORT_ACTIVE, IB_PORT_PHYS_STATE_DISABLED and _LINK_UP.
TEST(Link, PortConstants)
{
	EXPECT_EQ(WOOKIE_PORT_DOWN, 1);
	EXPECT_EQ(WOOKIE_PORT_ACTIVE, 4);
	EXPECT_EQ(WOOKIE_PHYS_DISABLED, 3);
	EXPECT_EQ(WOOKIE_PHYS_LINK_UP, 5);
}

// --- Header sizes -----------------------------------------------------

class HeaderSize : public testing::TestWithParam<wookie_hdr_vector> {};

TEST_P(HeaderSize, MatchesSpec)
{
	EXPECT_EQ(GetParam().bytes, GetParam().spec);
}

INSTANTIATE_TEST_SUITE_P(
	Link, HeaderSize, testing::ValuesIn(wookie_hdr_vectors),
	[](const testing::TestParamInfo<wookie_hdr_vector> &info) {
		return Identifier(info.param.name);
	});

TEST(Link, MaxExtendedHeaders)
{
	unsigned int largest = 0;

	for (const wookie_ext_hdr_set &s : wookie_ext_hdr_sets) {
		EXPECT_LE(s.bytes, unsigned(WOOKIE_MAX_EXT_HDR_BYTES)) << s.name;
		largest = std::max(largest, s.bytes);
	}
	// No more reserved than some packet needs.
	EXPECT_EQ(largest, unsigned(WOOKIE_MAX_EXT_HDR_BYTES));
	EXPECT_EQ(unsigned(WOOKIE_MAX_ROCE_OVERHEAD),
		  unsigned(WOOKIE_IPV6_HDR_BYTES + WOOKIE_UDP_HDR_BYTES +
			   WOOKIE_BTH_BYTES + WOOKIE_MAX_EXT_HDR_BYTES +
			   WOOKIE_ICRC_BYTES));
}
