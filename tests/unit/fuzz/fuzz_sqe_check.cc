// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Any bytes as a send or receive WQE, as a hostile user space could write
// into its ring.  The first bytes pick the QP's limits; the rest fill a
// slot of exactly the stride those limits give, on the heap, so that ASan
// catches a check reading past the slot.  What a check accepts must obey
// the rules of wookie_queue.h, recomputed here independently.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

extern "C" {
#include "wookie_queue.h"
}

namespace {

void Check(bool ok)
{
	if (!ok)
		std::abort();
}

constexpr size_t kParams = 8;

void FuzzSqe(const uint8_t *data, size_t size)
{
	wookie_sq_limits lim;
	__u64 total = 0, sum = 0;

	// Limits: kind 0..7 (RC, UC, UD, XRC initiator and target, then no
	// kind), kernel, up to 33 SGEs and 0..520 inline bytes (a little past
	// the maxima), any MTU.
	lim.kind = static_cast<wookie_qp_kind>(data[0] & 7);
	lim.kernel = data[0] & 8;
	lim.max_sge = data[1] % (WOOKIE_MAX_SGE + 2);
	lim.max_inline = (uint32_t(data[2]) << 8 | data[3]) %
			 (WOOKIE_MAX_INLINE + 9);
	__u32 mtu = uint32_t(data[4]) << 8 | data[5];

	size_t stride = wookie_sq_stride(lim.max_sge, lim.max_inline);
	Check(stride >= sizeof(wookie_sqe) && stride % 64 == 0);
	std::unique_ptr<__u64[]> slot(new __u64[stride / 8]);
	std::memset(slot.get(), 0, stride);
	std::memcpy(slot.get(), data + kParams,
		    std::min(size - kParams, stride));
	const auto *wqe = reinterpret_cast<const wookie_sqe *>(slot.get());
	const auto *sge = reinterpret_cast<const wookie_sge *>(wqe + 1);

	int ret = wookie_sqe_check(wqe, &lim, mtu, &total);
	Check(ret == 0 || ret == -EINVAL || ret == -EMSGSIZE);
	Check(wookie_sqe_check(wqe, &lim, mtu, nullptr) == ret);
	if (ret)
		return;

	// An XRC target has no send queue.
	Check(lim.kind <= WOOKIE_QP_KIND_XRC_INI);
	if (lim.kind != WOOKIE_QP_KIND_XRC_INI)
		Check(!wqe->xrc_srqn);
	Check(wqe->opcode < WOOKIE_WR_NUM_OPCODES);
	Check(!(wqe->flags & ~0x0fu));
	if (wqe->opcode == WOOKIE_WR_REG_MR)
		Check(lim.kernel);
	if (lim.kind == WOOKIE_QP_KIND_UD)
		Check(wqe->opcode == WOOKIE_WR_SEND ||
		      wqe->opcode == WOOKIE_WR_SEND_WITH_IMM);
	if (wqe->flags & WOOKIE_WQE_INLINE) {
		Check(wqe->opcode <= WOOKIE_WR_RDMA_WRITE_WITH_IMM);
		Check(wqe->inline_len <= lim.max_inline &&
		      wqe->inline_len <= WOOKIE_MAX_INLINE);
		// Inside the slot.
		Check(sizeof(wookie_sqe) + wqe->inline_len <= stride);
		sum = wqe->inline_len;
	} else {
		Check(!wqe->inline_len);
		Check(wqe->num_sge <= lim.max_sge);
		Check(WOOKIE_SQE_SIZE(wqe->num_sge) <= stride);
		for (unsigned int i = 0; i < wqe->num_sge; i++)
			sum += sge[i].length;
	}
	// An ATOMIC WRITE's 8 bytes are in the WQE, not in SGEs.
	if (wqe->opcode == WOOKIE_WR_ATOMIC_WRITE)
		sum = 8;
	Check(total == sum && total <= 0x80000000ull);
	if (lim.kind == WOOKIE_QP_KIND_UD)
		Check(total <= mtu);
	if (wqe->opcode == WOOKIE_WR_ATOMIC_CMP_AND_SWP ||
	    wqe->opcode == WOOKIE_WR_ATOMIC_FETCH_AND_ADD)
		Check(wqe->num_sge == 1 && total == 8);
	if (wqe->opcode >= WOOKIE_WR_LOCAL_INV)
		Check(wqe->num_sge == 0 &&
		      total == (wqe->opcode == WOOKIE_WR_ATOMIC_WRITE ? 8 : 0));
	if (wqe->opcode == WOOKIE_WR_FLUSH)
		Check(wqe->flush.type >= 1 && wqe->flush.type <= 3 &&
		      wqe->flush.level <= 1);
}

void FuzzRqe(const uint8_t *data, size_t size)
{
	__u32 max_sge = data[1] % (WOOKIE_MAX_SGE + 2);
	size_t stride = wookie_rq_stride(max_sge);
	__u64 total = 0, sum = 0;

	std::unique_ptr<__u64[]> slot(new __u64[stride / 8]);
	std::memset(slot.get(), 0, stride);
	std::memcpy(slot.get(), data + kParams,
		    std::min(size - kParams, stride));
	const auto *wqe = reinterpret_cast<const wookie_rqe *>(slot.get());
	const auto *sge = reinterpret_cast<const wookie_sge *>(wqe + 1);

	int ret = wookie_rqe_check(wqe, max_sge, &total);
	Check(ret == 0 || ret == -EINVAL || ret == -EMSGSIZE);
	if (ret)
		return;
	Check(!wqe->reserved && wqe->num_sge <= max_sge);
	Check(WOOKIE_RQE_SIZE(wqe->num_sge) <= stride);
	for (unsigned int i = 0; i < wqe->num_sge; i++)
		sum += sge[i].length;
	Check(total == sum && total <= 0x80000000ull);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < kParams)
		return 0;
	FuzzSqe(data, size);
	FuzzRqe(data, size);
	return 0;
}
