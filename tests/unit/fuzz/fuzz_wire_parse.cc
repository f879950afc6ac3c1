// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Any bytes as a packet: wookie_hdrs_parse() must stay inside them (ASan
// watches; libFuzzer hands over a buffer of exactly @size bytes), and what
// it accepts must be consistent and survive wookie_hdrs_build() unchanged:
// rebuilt headers are the input's with the reserved bits cleared, and
// parse back to the same fields.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
#include "wookie_wire.h"
}

namespace {

void Check(bool ok)
{
	if (!ok)
		std::abort();
}

bool SameHdrs(const wookie_hdrs &a, const wookie_hdrs &b)
{
	return a.bth.opcode == b.bth.opcode &&
	       a.bth.solicited == b.bth.solicited &&
	       a.bth.mig_req == b.bth.mig_req && a.bth.pad == b.bth.pad &&
	       a.bth.tver == b.bth.tver && a.bth.pkey == b.bth.pkey &&
	       a.bth.fecn == b.bth.fecn && a.bth.becn == b.bth.becn &&
	       a.bth.dest_qp == b.bth.dest_qp &&
	       a.bth.ack_req == b.bth.ack_req && a.bth.psn == b.bth.psn &&
	       a.flags == b.flags && a.reth.va == b.reth.va &&
	       a.reth.rkey == b.reth.rkey &&
	       a.reth.dma_len == b.reth.dma_len &&
	       a.aeth.syndrome == b.aeth.syndrome &&
	       a.aeth.msn == b.aeth.msn && a.atomic.va == b.atomic.va &&
	       a.atomic.rkey == b.atomic.rkey &&
	       a.atomic.swap_add == b.atomic.swap_add &&
	       a.atomic.compare == b.atomic.compare &&
	       a.atomic_orig == b.atomic_orig &&
	       a.deth.qkey == b.deth.qkey &&
	       a.deth.src_qp == b.deth.src_qp && a.imm_be == b.imm_be &&
	       a.ieth_rkey == b.ieth_rkey && a.xrc_srqn == b.xrc_srqn &&
	       a.feth.type == b.feth.type && a.feth.level == b.feth.level &&
	       a.hdr_len == b.hdr_len &&
	       a.payload_len == b.payload_len;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	wookie_hdrs h;

	if (wookie_hdrs_parse(data, size, &h))
		return 0;

	// What was accepted adds up and matches the opcode table.
	Check(h.flags && h.flags == wookie_opcode_flags(data[0]));
	Check(h.hdr_len == wookie_hdrs_len(data[0]));
	Check(size_t(h.hdr_len) + h.payload_len + h.bth.pad == size);
	Check(size % 4 == 0 && h.hdr_len % 4 == 0);
	Check(h.bth.tver == 0 && h.bth.pad < 4);
	Check(h.bth.dest_qp <= WOOKIE_PSN_MASK && h.bth.psn <= WOOKIE_PSN_MASK);
	Check(h.aeth.msn <= 0xffffff && h.deth.src_qp <= 0xffffff);
	if (!(h.flags & WOOKIE_OPF_PAYLOAD))
		Check(h.payload_len == 0 && h.bth.pad == 0);

	// Rebuild: too small a buffer is refused, the right one filled.
	std::vector<uint8_t> out(h.hdr_len);
	Check(wookie_hdrs_build(out.data(), h.hdr_len - 1, &h) == -EINVAL);
	Check(wookie_hdrs_build(out.data(), out.size(), &h) == int(h.hdr_len));

	// The input's headers with reserved bits cleared: BTH byte 4 (F, B),
	// byte 8 (A), the DETH byte before the source QP.
	std::vector<uint8_t> want(data, data + h.hdr_len);
	want[4] &= 0xc0;
	want[8] &= 0x80;
	if (h.flags & WOOKIE_OPF_DETH)
		want[16] = 0;
	// The XRCETH's first byte; the FETH but its low 6 bits.
	if (h.flags & WOOKIE_OPF_XRCETH)
		want[12] = 0;
	if (h.flags & WOOKIE_OPF_FETH) {
		size_t f = (h.flags & WOOKIE_OPF_XRCETH) ? 16 : 12;

		want[f] = want[f + 1] = want[f + 2] = 0;
		want[f + 3] &= 0x3f;
	}
	// The pad count is recomputed from payload_len: the input's must be
	// that one, as parse wants a packet of a multiple of 4 bytes.
	Check(std::memcmp(out.data(), want.data(), h.hdr_len) == 0);

	// Rebuilt headers + the input's payload and pad parse the same.
	std::vector<uint8_t> pkt(out);
	pkt.insert(pkt.end(), data + h.hdr_len, data + size);
	wookie_hdrs back;
	uint8_t *exact = new uint8_t[pkt.size()];
	std::memcpy(exact, pkt.data(), pkt.size());
	Check(wookie_hdrs_parse(exact, pkt.size(), &back) == 0);
	delete[] exact;
	Check(SameHdrs(h, back));
	return 0;
}
