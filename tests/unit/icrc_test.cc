// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Host tests of kernel/portable/wookie_icrc.c, on the vectors shared with
// the KUnit suite (tests/kunit/wookie_icrc_vectors.h: ICRCs computed with
// zlib, and one captured from a ConnectX-4 Lx), plus what the vectors
// cannot hold: every bit of every packet flipped, every truncation, every
// first byte, random chunking and random packets, all against a bitwise
// reference CRC written here.  Packets are copied into buffers of exactly
// their size, so that ASan catches any read past the end.

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

// What no ICRC function may leave behind when it fails.
constexpr __u32 kUntouched = 0xa5a5a5a5;

std::string Hex(const __u8 *p, size_t n)
{
	std::ostringstream s;

	for (size_t i = 0; i < n; i++)
		s << (i ? " " : "") << std::hex << std::setw(2)
		  << std::setfill('0') << unsigned(p[i]);
	return s.str();
}

// @len bytes in a heap block of exactly that size; for 0 bytes, a block
// of 1 byte, which Data() points just past.
class Exact {
public:
	Exact(const __u8 *bytes, size_t len)
		: len_(len), p_(new __u8[len ? len : 1])
	{
		if (len)
			std::memcpy(p_.get(), bytes, len);
	}
	__u8 *Data() { return len_ ? p_.get() : p_.get() + 1; }
	__u8 &operator[](size_t i) { return p_[i]; }

private:
	size_t len_;
	std::unique_ptr<__u8[]> p_;
};

size_t Covered(const wookie_icrc_vector &v)
{
	return v.len - WOOKIE_ICRC_BYTES;
}

// CRC-32, reflected, bit by bit: no table, no inversion.
__u32 BitwiseCrc(__u32 crc, const __u8 *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int bit = 0; bit < 8; bit++)
			crc = (crc & 1) ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
	}
	return crc;
}

// The bits of byte @off of an IPv@version packet that are of @kind.
__u8 Bits(unsigned int version, size_t off, wookie_icrc_field_kind kind)
{
	__u8 bits = 0;

	for (const wookie_icrc_field &f : wookie_icrc_fields)
		if (f.kind == kind && f.base == WOOKIE_ICRC_FROM_IP &&
		    f.ip_version == version && off >= f.offset &&
		    off < f.offset + f.len)
			bits |= f.mask;
	return bits;
}

// The ICRC as the vectors' field table describes it: variant bits set,
// 8 bytes of ones in front, bitwise CRC.
__u32 Reference(const __u8 *pkt, size_t len)
{
	std::vector<__u8> m(8, 0xff);
	unsigned int version = pkt[0] >> 4;

	for (size_t i = 0; i < len; i++)
		m.push_back(pkt[i] | Bits(version, i, WOOKIE_ICRC_VARIANT));
	return ~BitwiseCrc(~0u, m.data(), m.size());
}

bool Applies(const wookie_icrc_field &f, unsigned int version, size_t covered)
{
	if (f.ip_version && f.ip_version != version)
		return false;
	if (f.base == WOOKIE_ICRC_FROM_END)
		return f.offset >= f.len && f.offset <= covered;
	return f.offset + f.len <= covered;
}

size_t Start(const wookie_icrc_field &f, size_t covered)
{
	return f.base == WOOKIE_ICRC_FROM_END ? covered - f.offset : f.offset;
}

bool Accepted(const __u8 *pkt, size_t len)
{
	return len && ((pkt[0] == 0x45 && len >= 40) ||
		       ((pkt[0] >> 4) == 6 && len >= 60));
}

} // namespace

void PrintTo(const wookie_icrc_vector &v, std::ostream *os)
{
	*os << v.name << ": " << Hex(v.bytes, v.len);
}

// --- The CRC primitive ------------------------------------------------

TEST(Crc32, CheckValues)
{
	for (const wookie_crc32_vector &c : wookie_crc32_vectors) {
		const __u8 *p = reinterpret_cast<const __u8 *>(c.text);
		size_t n = std::strlen(c.text);
		Exact buf(p, n);

		EXPECT_EQ(~wookie_crc32_le(~0u, buf.Data(), n), c.crc)
			<< '"' << c.text << '"';
	}
}

// "123456789" is the CRC catalogue's check string.
TEST(Crc32, Check123456789)
{
	static const char text[] = "123456789";

	EXPECT_EQ(~wookie_crc32_le(~0u, reinterpret_cast<const __u8 *>(text),
				   9),
		  0xcbf43926u);
	// No inversion inside: the raw register value.
	EXPECT_EQ(wookie_crc32_le(~0u, reinterpret_cast<const __u8 *>(text),
				  9),
		  ~0xcbf43926u);
}

TEST(Crc32, LrhSeed)
{
	static const __u8 ones[8] = { 0xff, 0xff, 0xff, 0xff,
				      0xff, 0xff, 0xff, 0xff };

	EXPECT_EQ(wookie_crc32_le(~0u, ones, 8), WOOKIE_ICRC_LRH_SEED);
}

TEST(Crc32, Empty)
{
	Exact buf(nullptr, 0);

	EXPECT_EQ(wookie_crc32_le(0x12345678u, buf.Data(), 0), 0x12345678u);
}

// Every single byte value from many registers, and random buffers split
// anywhere, against the bitwise CRC.
TEST(Crc32, MatchesBitwise)
{
	std::mt19937 rng(42);

	for (unsigned int b = 0; b < 256; b++) {
		__u8 byte = __u8(b);
		__u32 crc = rng();

		EXPECT_EQ(wookie_crc32_le(crc, &byte, 1),
			  BitwiseCrc(crc, &byte, 1)) << "byte " << b;
	}
	for (int round = 0; round < 200; round++) {
		size_t n = rng() % 300;
		std::vector<__u8> data(n);

		for (__u8 &d : data)
			d = __u8(rng());
		Exact buf(data.data(), n);
		size_t cut = n ? rng() % (n + 1) : 0;
		__u32 crc = rng();
		__u32 got = wookie_crc32_le(crc, buf.Data(), cut);

		got = wookie_crc32_le(got, buf.Data() + cut, n - cut);
		EXPECT_EQ(got, BitwiseCrc(crc, data.data(), n));
	}
}

// --- Known packets ----------------------------------------------------

class IcrcPacket : public testing::TestWithParam<wookie_icrc_vector> {};

// The known ICRC, its wire bytes, and what begin covers.
TEST_P(IcrcPacket, Known)
{
	const wookie_icrc_vector &v = GetParam();
	size_t covered = Covered(v);
	Exact buf(v.bytes, covered);
	__u32 icrc = kUntouched, crc = kUntouched;

	// The vector itself: the last 4 bytes are its ICRC, LSB first.
	const __u8 *wire = v.bytes + covered;
	ASSERT_EQ(__u32(wire[0]) | __u32(wire[1]) << 8 | __u32(wire[2]) << 16 |
			  __u32(wire[3]) << 24,
		  v.icrc);

	ASSERT_EQ(wookie_icrc(buf.Data(), covered, &icrc), 0);
	EXPECT_EQ(icrc, v.icrc) << std::hex << "got 0x" << icrc << ", want 0x"
				<< v.icrc;
	__u8 out[4] = { __u8(icrc), __u8(icrc >> 8), __u8(icrc >> 16),
			__u8(icrc >> 24) };
	EXPECT_EQ(Hex(out, 4), Hex(wire, 4));
	EXPECT_EQ(Reference(buf.Data(), covered), v.icrc);

	EXPECT_EQ(wookie_icrc_begin(buf.Data(), covered, &crc), int(v.hdr_len));
	EXPECT_EQ(~wookie_crc32_le(crc, buf.Data() + v.hdr_len,
				   covered - v.hdr_len),
		  v.icrc);
}

// begin, then wookie_crc32_le() over the rest in arbitrary chunks.
TEST_P(IcrcPacket, Chunks)
{
	const wookie_icrc_vector &v = GetParam();
	size_t covered = Covered(v);
	Exact buf(v.bytes, covered);
	std::mt19937 rng(v.len);

	for (int round = 0; round < 100; round++) {
		__u32 crc;
		int n = wookie_icrc_begin(buf.Data(), covered, &crc);

		ASSERT_EQ(n, int(v.hdr_len));
		for (size_t off = size_t(n), chunk; off < covered; off += chunk) {
			chunk = round ? rng() % (covered - off + 1) : 1;
			crc = wookie_crc32_le(crc, buf.Data() + off, chunk);
		}
		EXPECT_EQ(~crc, v.icrc) << "round " << round;
	}
}

// Each named field: variant ones leave the ICRC alone, invariant ones
// change it, the IP version has the packet refused.
TEST_P(IcrcPacket, Fields)
{
	const wookie_icrc_vector &v = GetParam();
	unsigned int version = v.bytes[0] >> 4;
	size_t covered = Covered(v);
	Exact buf(v.bytes, covered);
	unsigned int tried = 0;

	for (const wookie_icrc_field &f : wookie_icrc_fields) {
		if (!Applies(f, version, covered))
			continue;
		tried++;
		size_t start = Start(f, covered);
		auto each = [&](auto op) {
			for (size_t j = 0; j < f.len; j++)
				buf[start + j] = op(buf[start + j]);
		};
		__u32 icrc = kUntouched;

		each([&](__u8 b) { return __u8(b ^ f.mask); });
		int ret = wookie_icrc(buf.Data(), covered, &icrc);
		switch (f.kind) {
		case WOOKIE_ICRC_VARIANT:
			EXPECT_EQ(ret, 0) << f.name;
			EXPECT_EQ(icrc, v.icrc) << f.name;
			each([&](__u8 b) { return __u8(b | f.mask); });
			EXPECT_EQ(wookie_icrc(buf.Data(), covered, &icrc), 0);
			EXPECT_EQ(icrc, v.icrc) << f.name << " all ones";
			each([&](__u8 b) { return __u8(b & ~f.mask); });
			EXPECT_EQ(wookie_icrc(buf.Data(), covered, &icrc), 0);
			EXPECT_EQ(icrc, v.icrc) << f.name << " all zeroes";
			break;
		case WOOKIE_ICRC_INVARIANT:
			EXPECT_EQ(ret, 0) << f.name;
			EXPECT_NE(icrc, v.icrc) << f.name;
			break;
		case WOOKIE_ICRC_REFUSED:
			EXPECT_EQ(ret, -EINVAL) << f.name;
			EXPECT_EQ(icrc, kUntouched) << f.name;
			break;
		}
		std::memcpy(buf.Data(), v.bytes, covered);
	}
	EXPECT_GE(tried, 20u);
}

// Every single bit: a variant one leaves the ICRC alone, an invariant one
// changes it, a version bit has the packet refused (or, if that makes
// another valid IP header, changes the ICRC).
TEST_P(IcrcPacket, BitFlips)
{
	const wookie_icrc_vector &v = GetParam();
	unsigned int version = v.bytes[0] >> 4;
	size_t covered = Covered(v);
	Exact buf(v.bytes, covered);
	unsigned int variant_bits = 0;

	for (size_t off = 0; off < covered; off++) {
		__u8 variant = Bits(version, off, WOOKIE_ICRC_VARIANT);
		__u8 refused = Bits(version, off, WOOKIE_ICRC_REFUSED);

		for (unsigned int bit = 1; bit < 0x100; bit <<= 1) {
			__u32 icrc = kUntouched;

			buf[off] ^= __u8(bit);
			int ret = wookie_icrc(buf.Data(), covered, &icrc);
			if (refused & bit) {
				if (ret) {
					EXPECT_EQ(ret, -EINVAL);
				} else {
					EXPECT_NE(icrc, v.icrc);
				}
			} else if (variant & bit) {
				variant_bits++;
				EXPECT_EQ(ret, 0);
				EXPECT_EQ(icrc, v.icrc);
			} else {
				EXPECT_EQ(ret, 0);
				EXPECT_NE(icrc, v.icrc);
			}
			buf[off] ^= __u8(bit);
			if (HasFailure()) {
				ADD_FAILURE() << "byte " << off << " bit 0x"
					      << std::hex << bit;
				return;
			}
		}
	}
	// IPv4: TOS, TTL, checksum, UDP checksum, resv8a; IPv6: 28 bits of
	// traffic class and flow label, hop limit, UDP checksum, resv8a.
	EXPECT_EQ(variant_bits, version == 4 ? 7u * 8 : 28u + 4 * 8);
}

// Every prefix, in a block of exactly its size: refused while shorter
// than IP + UDP + BTH, with nothing written; else the reference's ICRC.
TEST_P(IcrcPacket, Truncated)
{
	const wookie_icrc_vector &v = GetParam();
	size_t covered = Covered(v);

	for (size_t n = 0; n <= covered; n++) {
		Exact buf(v.bytes, n);
		__u32 icrc = kUntouched, crc = kUntouched;
		int ret = wookie_icrc(buf.Data(), n, &icrc);
		int begin = wookie_icrc_begin(buf.Data(), n, &crc);

		if (n < v.hdr_len) {
			EXPECT_EQ(ret, -EINVAL) << n << " bytes";
			EXPECT_EQ(begin, -EINVAL) << n << " bytes";
			EXPECT_EQ(icrc, kUntouched) << n << " bytes";
			EXPECT_EQ(crc, kUntouched) << n << " bytes";
		} else {
			EXPECT_EQ(ret, 0) << n << " bytes";
			EXPECT_EQ(begin, int(v.hdr_len)) << n << " bytes";
			EXPECT_EQ(icrc, Reference(buf.Data(), n)) << n << " bytes";
		}
	}
}

// Every first byte: only IPv4 with IHL 5 and IPv6 are accepted.
TEST_P(IcrcPacket, FirstByte)
{
	const wookie_icrc_vector &v = GetParam();
	size_t covered = Covered(v);
	Exact buf(v.bytes, covered);

	for (unsigned int b = 0; b < 256; b++) {
		__u32 icrc = kUntouched;

		buf[0] = __u8(b);
		bool ok = Accepted(buf.Data(), covered);
		int ret = wookie_icrc(buf.Data(), covered, &icrc);
		EXPECT_EQ(ret, ok ? 0 : -EINVAL) << "first byte " << b;
		if (ok) {
			EXPECT_EQ(icrc, Reference(buf.Data(), covered))
				<< "first byte " << b;
		} else {
			EXPECT_EQ(icrc, kUntouched) << "first byte " << b;
		}
	}
}

INSTANTIATE_TEST_SUITE_P(
	Icrc, IcrcPacket, testing::ValuesIn(wookie_icrc_vectors),
	[](const testing::TestParamInfo<wookie_icrc_vector> &info) {
		return std::string(info.param.name);
	});

// IPv4 with options (IHL 6 and up, even with room for them) is refused.
TEST(Icrc, Ipv4Options)
{
	const wookie_icrc_vector &v = wookie_icrc_vectors[0];
	std::vector<__u8> pkt(v.bytes, v.bytes + Covered(v));

	ASSERT_EQ(pkt[0], 0x45);
	pkt.insert(pkt.begin() + 20, 40, 0x01);	// 40 bytes of NOP options
	for (unsigned int ihl = 0; ihl < 16; ihl++) {
		Exact buf(pkt.data(), pkt.size());
		__u32 icrc = kUntouched;

		buf[0] = __u8(0x40 | ihl);
		EXPECT_EQ(wookie_icrc(buf.Data(), pkt.size(), &icrc),
			  ihl == 5 ? 0 : -EINVAL)
			<< "IHL " << ihl;
	}
}

// Random packets of both IP versions, of any length, against the
// reference.
TEST(Icrc, Random)
{
	std::mt19937 rng(7);
	unsigned int accepted = 0;

	for (int i = 0; i < 20000; i++) {
		size_t len = rng() % 128;
		std::vector<__u8> pkt(len);

		for (__u8 &b : pkt)
			b = __u8(rng());
		if (len && (i & 1))
			pkt[0] = (i & 2) ? 0x45 : __u8(0x60 | (pkt[0] & 0x0f));
		Exact buf(pkt.data(), len);
		__u32 icrc = kUntouched;
		int ret = wookie_icrc(buf.Data(), len, &icrc);

		if (Accepted(pkt.data(), len)) {
			accepted++;
			ASSERT_EQ(ret, 0);
			ASSERT_EQ(icrc, Reference(pkt.data(), len));
		} else {
			ASSERT_EQ(ret, -EINVAL);
			ASSERT_EQ(icrc, kUntouched);
		}
	}
	EXPECT_GT(accepted, 4000u);
}
