// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Any bytes as a packet from the IP header on: wookie_icrc() and
// wookie_icrc_begin() must stay inside them (ASan watches; libFuzzer hands
// over a buffer of exactly @size bytes), agree with each other, accept
// exactly IPv4 without options and IPv6 long enough for IP + UDP + BTH,
// leave their output alone when they refuse, and ignore the variant
// fields: setting those to ones gives the same ICRC.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
#include "wookie_icrc.h"
}

namespace {

constexpr uint32_t kUntouched = 0xa5a5a5a5;

void Check(bool ok)
{
	if (!ok)
		std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t icrc = kUntouched, crc = kUntouched;
	int ret = wookie_icrc(data, size, &icrc);
	int begin = wookie_icrc_begin(data, size, &crc);
	size_t hdr = 0;

	if (size && data[0] == 0x45)
		hdr = WOOKIE_IPV4_HDR_BYTES + WOOKIE_UDP_HDR_BYTES + 12;
	else if (size && data[0] >> 4 == 6)
		hdr = WOOKIE_IPV6_HDR_BYTES + WOOKIE_UDP_HDR_BYTES + 12;
	if (!hdr || size < hdr) {
		Check(ret == -EINVAL && begin == -EINVAL);
		Check(icrc == kUntouched && crc == kUntouched);
		return 0;
	}
	Check(ret == 0 && begin == int(hdr));

	// begin + the rest, in two pieces split anywhere, is the ICRC.
	size_t cut = hdr + (size > hdr ? data[size - 1] % (size - hdr + 1) : 0);
	uint32_t c = wookie_crc32_le(crc, data + hdr, cut - hdr);
	c = wookie_crc32_le(c, data + cut, size - cut);
	Check(~c == icrc);

	// The variant fields set to ones: the same ICRC.
	std::vector<uint8_t> m(data, data + size);
	size_t ip = hdr - WOOKIE_UDP_HDR_BYTES - 12;
	if (ip == WOOKIE_IPV4_HDR_BYTES) {
		m[1] = m[8] = m[10] = m[11] = 0xff;
	} else {
		m[0] |= 0x0f;
		m[1] = m[2] = m[3] = m[7] = 0xff;
	}
	m[ip + 6] = m[ip + 7] = 0xff;
	m[ip + WOOKIE_UDP_HDR_BYTES + 4] = 0xff;
	uint8_t *exact = new uint8_t[size];
	std::memcpy(exact, m.data(), size);
	uint32_t masked = kUntouched;
	Check(wookie_icrc(exact, size, &masked) == 0);
	delete[] exact;
	Check(masked == icrc);
	return 0;
}
