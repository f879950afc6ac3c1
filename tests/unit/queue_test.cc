// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Host tests of kernel/portable/wookie_queue.c: ring geometry and the
// checks of send and receive WQEs as user space could write them.  The
// WQE under test sits in a slot of exactly wookie_sq_stride() bytes on the
// heap, so that ASan catches a check reading past the slot.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "portable.h"

namespace {

constexpr __u32 kMtu = 1024;

// A send slot of exactly the stride the limits give.
class SqSlot {
public:
	explicit SqSlot(const wookie_sq_limits &lim)
		: size_(wookie_sq_stride(lim.max_sge, lim.max_inline)),
		  mem_(new __u64[size_ / 8])
	{
		std::memset(mem_.get(), 0, size_);
	}

	wookie_sqe *wqe() { return reinterpret_cast<wookie_sqe *>(mem_.get()); }
	wookie_sge *sge() { return reinterpret_cast<wookie_sge *>(wqe() + 1); }
	__u32 size() const { return size_; }

private:
	__u32 size_;
	std::unique_ptr<__u64[]> mem_;
};

wookie_sq_limits Limits(wookie_qp_kind kind, __u32 max_sge = 4,
			__u32 max_inline = 64, bool kernel = false)
{
	wookie_sq_limits lim;

	lim.kind = kind;
	lim.max_sge = max_sge;
	lim.max_inline = max_inline;
	lim.kernel = kernel;
	return lim;
}

bool IsAtomic(unsigned int op)
{
	return op == WOOKIE_WR_ATOMIC_CMP_AND_SWP ||
	       op == WOOKIE_WR_ATOMIC_FETCH_AND_ADD;
}

bool IsLocal(unsigned int op)
{
	return op == WOOKIE_WR_LOCAL_INV || op == WOOKIE_WR_BIND_MW ||
	       op == WOOKIE_WR_REG_MR;
}

// IBTA 1.5's operations carry no SGE: their data is in the WQE.
bool NoSge(unsigned int op)
{
	return IsLocal(op) || op == WOOKIE_WR_ATOMIC_WRITE ||
	       op == WOOKIE_WR_FLUSH;
}

// The message length a minimal WQE of @op states.
__u64 MinimalTotal(unsigned int op)
{
	if (op == WOOKIE_WR_ATOMIC_WRITE)
		return 8;
	if (NoSge(op))
		return 0;
	return IsAtomic(op) ? 8 : 100;
}

// The smallest well-formed WQE of @op: one 100-byte SGE, one 8-byte SGE
// for an atomic, none for a local operation, an ATOMIC WRITE, a FLUSH
// (to global visibility, of a range) or where no SGE fits.
void Minimal(SqSlot &s, unsigned int op)
{
	std::memset(s.wqe(), 0, s.size());
	s.wqe()->wr_id = 0x1234;
	s.wqe()->opcode = __u8(op);
	s.wqe()->flags = WOOKIE_WQE_SIGNALED;
	if (op == WOOKIE_WR_FLUSH)
		s.wqe()->flush.type = WOOKIE_FLUSH_GLOBAL;
	// A slot without room for an SGE (max_sge 0) gets none.
	if (NoSge(op) || s.size() < WOOKIE_SQE_SIZE(1))
		return;
	s.wqe()->num_sge = 1;
	s.sge()[0].addr = 0x10000;
	s.sge()[0].length = IsAtomic(op) ? 8 : 100;
	s.sge()[0].lkey = 0x55;
}

int Check(SqSlot &s, const wookie_sq_limits &lim, __u64 *total,
	  __u32 mtu = kMtu)
{
	*total = 0xdeadbeef;
	return wookie_sqe_check(s.wqe(), &lim, mtu, total);
}

const char *const kOpNames[] = {
	"SEND", "SEND_WITH_IMM", "SEND_WITH_INV", "RDMA_WRITE",
	"RDMA_WRITE_WITH_IMM", "RDMA_READ", "ATOMIC_CMP_AND_SWP",
	"ATOMIC_FETCH_AND_ADD", "LOCAL_INV", "BIND_MW", "REG_MR",
	"ATOMIC_WRITE", "FLUSH",
};

} // namespace

// --- Geometry -----------------------------------------------------------

TEST(Queue, RingEntries)
{
	EXPECT_EQ(wookie_ring_entries(0), 1u);
	EXPECT_EQ(wookie_ring_entries(1), 1u);
	EXPECT_EQ(wookie_ring_entries(2), 2u);
	EXPECT_EQ(wookie_ring_entries(3), 4u);
	EXPECT_EQ(wookie_ring_entries(1000), 1024u);
	EXPECT_EQ(wookie_ring_entries(8193), 16384u);
	EXPECT_EQ(wookie_ring_entries(16384), 16384u);
	EXPECT_EQ(wookie_ring_entries(16385), 0u);
	EXPECT_EQ(wookie_ring_entries(0x80000000u), 0u);
	EXPECT_EQ(wookie_ring_entries(0xffffffffu), 0u);
	EXPECT_EQ(WOOKIE_MAX_RING_ENTRIES, 16384u);

	for (__u32 d = 1; d <= 20000; d++) {
		__u32 n = wookie_ring_entries(d);

		if (d > 16384) {
			ASSERT_EQ(n, 0u) << d;
			continue;
		}
		ASSERT_GE(n, d);
		ASSERT_LT(n / 2, d) << d;
		ASSERT_EQ(n & (n - 1), 0u) << d;
	}
}

TEST(Queue, SqStride)
{
	// 64-byte header, 16-byte SGEs, rounded up to 64.
	EXPECT_EQ(wookie_sq_stride(0, 0), 64u);
	EXPECT_EQ(wookie_sq_stride(1, 0), 128u);
	EXPECT_EQ(wookie_sq_stride(4, 0), 128u);
	EXPECT_EQ(wookie_sq_stride(5, 0), 192u);
	EXPECT_EQ(wookie_sq_stride(32, 0), 576u);
	EXPECT_EQ(wookie_sq_stride(0, 1), 128u);
	EXPECT_EQ(wookie_sq_stride(0, 64), 128u);
	EXPECT_EQ(wookie_sq_stride(0, 65), 192u);
	EXPECT_EQ(wookie_sq_stride(4, 64), 128u);
	EXPECT_EQ(wookie_sq_stride(4, 256), 320u);
	EXPECT_EQ(wookie_sq_stride(16, 128), 320u);
	EXPECT_EQ(wookie_sq_stride(0, 512), 576u);
	EXPECT_EQ(wookie_sq_stride(32, 512), 576u);
	// Limits no QP gets: no wrapped, too small size.
	EXPECT_EQ(wookie_sq_stride(0xffffffffu, 0), 0u);
	EXPECT_EQ(wookie_sq_stride(0, 0xffffffffu), 0u);

	for (__u32 sge = 0; sge <= WOOKIE_MAX_SGE; sge++) {
		for (__u32 inl = 0; inl <= WOOKIE_MAX_INLINE; inl += 7) {
			__u32 s = wookie_sq_stride(sge, inl);

			ASSERT_EQ(s % 64, 0u);
			ASSERT_GE(s, WOOKIE_SQE_SIZE(sge));
			ASSERT_GE(s, sizeof(wookie_sqe) + inl);
			ASSERT_LT(s - 64, std::max<size_t>(WOOKIE_SQE_SIZE(sge),
						       sizeof(wookie_sqe) + inl));
		}
	}
}

TEST(Queue, RqStride)
{
	EXPECT_EQ(wookie_rq_stride(0), 16u);
	EXPECT_EQ(wookie_rq_stride(1), 32u);
	EXPECT_EQ(wookie_rq_stride(4), 80u);
	EXPECT_EQ(wookie_rq_stride(32), 528u);
	EXPECT_EQ(wookie_rq_stride(0xffffffffu), 0u);
	for (__u32 sge = 0; sge <= WOOKIE_MAX_SGE; sge++)
		EXPECT_EQ(wookie_rq_stride(sge), WOOKIE_RQE_SIZE(sge));
}

TEST(Queue, RingArithmetic)
{
	EXPECT_EQ(wookie_ring_bytes(0, 64), 256u);
	EXPECT_EQ(wookie_ring_bytes(16, 64), 256u + 1024u);
	EXPECT_EQ(wookie_ring_bytes(16384, 576), 256u + 16384u * 576u);
	EXPECT_EQ(wookie_ring_count(5, 3), 2u);
	EXPECT_EQ(wookie_ring_count(2, 0xfffffffe), 4u);
	EXPECT_TRUE(wookie_ring_sane(0, 0, 1));
	EXPECT_TRUE(wookie_ring_sane(16, 0, 16));
	EXPECT_FALSE(wookie_ring_sane(17, 0, 16));
	EXPECT_TRUE(wookie_ring_sane(3, 0xfffffff5, 16));
	EXPECT_FALSE(wookie_ring_sane(3, 0xfffffff0, 16));
	// A consumer ahead of the producer is corruption too.
	EXPECT_FALSE(wookie_ring_sane(0, 1, 16));
}

// --- Send WQEs: which opcodes a QP may post -----------------------------

struct OpcodeRow {
	wookie_qp_kind kind;
	bool kernel;
	// Bit n: opcode n is accepted.
	__u32 allowed;
};

#define B(op) (1u << WOOKIE_WR_##op)

const OpcodeRow kOpcodeRows[] = {
	{ WOOKIE_QP_KIND_RC, false,
	  B(SEND) | B(SEND_WITH_IMM) | B(SEND_WITH_INV) | B(RDMA_WRITE) |
	  B(RDMA_WRITE_WITH_IMM) | B(RDMA_READ) | B(ATOMIC_CMP_AND_SWP) |
	  B(ATOMIC_FETCH_AND_ADD) | B(LOCAL_INV) | B(BIND_MW) |
	  B(ATOMIC_WRITE) | B(FLUSH) },
	{ WOOKIE_QP_KIND_RC, true,
	  B(SEND) | B(SEND_WITH_IMM) | B(SEND_WITH_INV) | B(RDMA_WRITE) |
	  B(RDMA_WRITE_WITH_IMM) | B(RDMA_READ) | B(ATOMIC_CMP_AND_SWP) |
	  B(ATOMIC_FETCH_AND_ADD) | B(LOCAL_INV) | B(BIND_MW) | B(REG_MR) |
	  B(ATOMIC_WRITE) | B(FLUSH) },
	{ WOOKIE_QP_KIND_UC, false,
	  B(SEND) | B(SEND_WITH_IMM) | B(RDMA_WRITE) | B(RDMA_WRITE_WITH_IMM) |
	  B(LOCAL_INV) | B(BIND_MW) },
	{ WOOKIE_QP_KIND_UC, true,
	  B(SEND) | B(SEND_WITH_IMM) | B(RDMA_WRITE) | B(RDMA_WRITE_WITH_IMM) |
	  B(LOCAL_INV) | B(BIND_MW) | B(REG_MR) },
	{ WOOKIE_QP_KIND_UD, false, B(SEND) | B(SEND_WITH_IMM) },
	{ WOOKIE_QP_KIND_UD, true, B(SEND) | B(SEND_WITH_IMM) },
	// An XRC initiator sends what RC sends; a target has no SQ.
	{ WOOKIE_QP_KIND_XRC_INI, false,
	  B(SEND) | B(SEND_WITH_IMM) | B(SEND_WITH_INV) | B(RDMA_WRITE) |
	  B(RDMA_WRITE_WITH_IMM) | B(RDMA_READ) | B(ATOMIC_CMP_AND_SWP) |
	  B(ATOMIC_FETCH_AND_ADD) | B(LOCAL_INV) | B(BIND_MW) |
	  B(ATOMIC_WRITE) | B(FLUSH) },
	{ WOOKIE_QP_KIND_XRC_INI, true,
	  B(SEND) | B(SEND_WITH_IMM) | B(SEND_WITH_INV) | B(RDMA_WRITE) |
	  B(RDMA_WRITE_WITH_IMM) | B(RDMA_READ) | B(ATOMIC_CMP_AND_SWP) |
	  B(ATOMIC_FETCH_AND_ADD) | B(LOCAL_INV) | B(BIND_MW) | B(REG_MR) |
	  B(ATOMIC_WRITE) | B(FLUSH) },
	{ WOOKIE_QP_KIND_XRC_TGT, false, 0 },
	{ WOOKIE_QP_KIND_XRC_TGT, true, 0 },
};

#undef B

TEST(Queue, SqeOpcodeMatrix)
{
	for (const OpcodeRow &row : kOpcodeRows) {
		wookie_sq_limits lim = Limits(row.kind, 4, 64, row.kernel);
		SqSlot s(lim);

		for (unsigned int op = 0; op < 256; op++) {
			bool want = op < 32 && (row.allowed >> op & 1);
			__u64 total;

			Minimal(s, op);
			int ret = Check(s, lim, &total);
			SCOPED_TRACE("kind " + std::to_string(row.kind) +
				     (row.kernel ? " kernel" : " user") +
				     " opcode " +
				     (op < WOOKIE_WR_NUM_OPCODES ?
				      kOpNames[op] : std::to_string(op)));
			EXPECT_EQ(ret, want ? 0 : -EINVAL);
			if (want) {
				EXPECT_EQ(total, MinimalTotal(op));
			} else {
				EXPECT_EQ(total, 0xdeadbeefu) << "total written";
			}
		}
	}
}

TEST(Queue, SqeUnknownKind)
{
	wookie_sq_limits lim = Limits(static_cast<wookie_qp_kind>(0x7f));
	SqSlot s(lim);
	__u64 total;

	for (unsigned int op = 0; op < WOOKIE_WR_NUM_OPCODES; op++) {
		Minimal(s, op);
		EXPECT_EQ(Check(s, lim, &total), -EINVAL) << kOpNames[op];
	}
}

TEST(Queue, SqeOpcodeValues)
{
	EXPECT_EQ(WOOKIE_WR_SEND, 0);
	EXPECT_EQ(WOOKIE_WR_REG_MR, 10);
	EXPECT_EQ(WOOKIE_WR_ATOMIC_WRITE, 11);
	EXPECT_EQ(WOOKIE_WR_FLUSH, 12);
	EXPECT_EQ(WOOKIE_WR_NUM_OPCODES, 13);
	EXPECT_EQ(sizeof(kOpNames) / sizeof(kOpNames[0]),
		  size_t(WOOKIE_WR_NUM_OPCODES));
}

// --- IBTA 1.5: ATOMIC WRITE and FLUSH -----------------------------------

// The 8 bytes of an ATOMIC WRITE are in the WQE: no SGE, no inline data.
TEST(Queue, SqeAtomicWrite)
{
	wookie_sq_limits lim = Limits(WOOKIE_QP_KIND_RC);
	SqSlot s(lim);
	__u64 total;

	Minimal(s, WOOKIE_WR_ATOMIC_WRITE);
	std::memcpy(s.wqe()->atomic_write.data, "abcdefgh", 8);
	EXPECT_EQ(Check(s, lim, &total), 0);
	EXPECT_EQ(total, 8u);

	Minimal(s, WOOKIE_WR_ATOMIC_WRITE);
	s.wqe()->num_sge = 1;
	s.sge()[0].length = 8;
	EXPECT_EQ(Check(s, lim, &total), -EINVAL);

	Minimal(s, WOOKIE_WR_ATOMIC_WRITE);
	s.wqe()->flags |= WOOKIE_WQE_INLINE;
	s.wqe()->inline_len = 8;
	EXPECT_EQ(Check(s, lim, &total), -EINVAL);

	Minimal(s, WOOKIE_WR_ATOMIC_WRITE);
	s.wqe()->atomic_write.reserved = 1;
	EXPECT_EQ(Check(s, lim, &total), -EINVAL);
}

// A FLUSH names one or both placement types and a known level, nothing else.
TEST(Queue, SqeFlush)
{
	wookie_sq_limits lim = Limits(WOOKIE_QP_KIND_RC);
	SqSlot s(lim);
	__u64 total;

	for (unsigned int type = 0; type < 256; type++) {
		for (unsigned int level = 0; level < 256; level++) {
			bool want = type >= 1 && type <= 3 && level <= 1;

			Minimal(s, WOOKIE_WR_FLUSH);
			s.wqe()->flush.type = __u8(type);
			s.wqe()->flush.level = __u8(level);
			s.wqe()->flush.length = 0xffffffffu;
			ASSERT_EQ(Check(s, lim, &total), want ? 0 : -EINVAL)
				<< type << " " << level;
			if (want) {
				ASSERT_EQ(total, 0u);
			}
		}
	}
	for (size_t i = 0; i < sizeof(s.wqe()->flush.reserved); i++) {
		Minimal(s, WOOKIE_WR_FLUSH);
		s.wqe()->flush.reserved[i] = 0x80;
		EXPECT_EQ(Check(s, lim, &total), -EINVAL) << i;
	}
	Minimal(s, WOOKIE_WR_FLUSH);
	s.wqe()->num_sge = 1;
	s.sge()[0].length = 8;
	EXPECT_EQ(Check(s, lim, &total), -EINVAL);
}

// --- Flags and reserved fields ------------------------------------------

// An XRC initiator's WQE names a 24-bit XRC SRQ number, 0 included.
TEST(Queue, SqeXrcSrqn)
{
	wookie_sq_limits ini = Limits(WOOKIE_QP_KIND_XRC_INI, 4, 64, true);
	SqSlot s(ini);
	__u64 total;

	for (unsigned int op = 0; op < WOOKIE_WR_NUM_OPCODES; op++) {
		SCOPED_TRACE(kOpNames[op]);
		for (__u32 srqn : { 0u, 1u, 0x123456u, 0xffffffu }) {
			Minimal(s, op);
			s.wqe()->xrc_srqn = srqn;
			EXPECT_EQ(Check(s, ini, &total), 0) << srqn;
		}
		for (__u32 srqn : { 0x1000000u, 0x80000000u, 0xffffffffu }) {
			Minimal(s, op);
			s.wqe()->xrc_srqn = srqn;
			total = 0xdeadbeef;
			EXPECT_EQ(Check(s, ini, &total), -EINVAL) << srqn;
			EXPECT_EQ(total, 0xdeadbeefu);
		}
	}
}

TEST(Queue, SqeFlags)
{
	wookie_sq_limits lim = Limits(WOOKIE_QP_KIND_RC);
	SqSlot s(lim);
	__u64 total;

	for (unsigned int f = 0; f < 256; f++) {
		Minimal(s, WOOKIE_WR_SEND);
		s.wqe()->flags = __u8(f);
		if (f & WOOKIE_WQE_INLINE) {
			s.wqe()->inline_len = 10;
		}
		EXPECT_EQ(Check(s, lim, &total), f < 16 ? 0 : -EINVAL)
			<< "flags " << f;
	}
	EXPECT_EQ(WOOKIE_WQE_SIGNALED | WOOKIE_WQE_SOLICITED |
			  WOOKIE_WQE_FENCE | WOOKIE_WQE_INLINE, 15u);
}

TEST(Queue, SqeReserved)
{
	wookie_sq_limits rc = Limits(WOOKIE_QP_KIND_RC, 4, 64, true);
	wookie_sq_limits ud = Limits(WOOKIE_QP_KIND_UD);
	SqSlot s(rc), u(ud);
	__u64 total;

	// xrc_srqn is reserved on every QP but an XRC initiator.
	for (unsigned int op = 0; op < WOOKIE_WR_NUM_OPCODES; op++) {
		Minimal(s, op);
		s.wqe()->xrc_srqn = 1;
		EXPECT_EQ(Check(s, rc, &total), -EINVAL) << kOpNames[op];
	}
	Minimal(u, WOOKIE_WR_SEND);
	u.wqe()->xrc_srqn = 0x80000000;
	EXPECT_EQ(Check(u, ud, &total), -EINVAL);

	Minimal(s, WOOKIE_WR_RDMA_WRITE);
	s.wqe()->rdma.reserved = 0x80000000;
	EXPECT_EQ(Check(s, rc, &total), -EINVAL);
	Minimal(s, WOOKIE_WR_RDMA_WRITE_WITH_IMM);
	s.wqe()->rdma.reserved = 1;
	EXPECT_EQ(Check(s, rc, &total), -EINVAL);
	Minimal(s, WOOKIE_WR_RDMA_READ);
	s.wqe()->rdma.reserved = 1;
	EXPECT_EQ(Check(s, rc, &total), -EINVAL);
	Minimal(s, WOOKIE_WR_ATOMIC_CMP_AND_SWP);
	s.wqe()->atomic.reserved = 1;
	EXPECT_EQ(Check(s, rc, &total), -EINVAL);
	Minimal(s, WOOKIE_WR_ATOMIC_FETCH_AND_ADD);
	s.wqe()->atomic.reserved = 1;
	EXPECT_EQ(Check(s, rc, &total), -EINVAL);
	Minimal(s, WOOKIE_WR_REG_MR);
	s.wqe()->reg.reserved = 1;
	EXPECT_EQ(Check(s, rc, &total), -EINVAL);
	Minimal(u, WOOKIE_WR_SEND);
	u.wqe()->ud.reserved = 1;
	EXPECT_EQ(Check(u, ud, &total), -EINVAL);
	Minimal(u, WOOKIE_WR_SEND_WITH_IMM);
	u.wqe()->ud.reserved = 1;
	EXPECT_EQ(Check(u, ud, &total), -EINVAL);

	// The same bytes are data of other members: not checked there.
	Minimal(s, WOOKIE_WR_SEND);
	s.wqe()->ud.reserved = 1;
	EXPECT_EQ(Check(s, rc, &total), 0);
	Minimal(s, WOOKIE_WR_BIND_MW);
	s.wqe()->bind.addr = 0xffffffffffffffffull;
	s.wqe()->bind.length = 0xffffffffffffffffull;
	s.wqe()->bind.access = 0xffffffff;
	EXPECT_EQ(Check(s, rc, &total), 0);
	// Atomic operands overlap rdma.reserved.
	Minimal(s, WOOKIE_WR_ATOMIC_CMP_AND_SWP);
	s.wqe()->atomic.compare_add = 0xffffffffffffffffull;
	s.wqe()->atomic.swap = 0xffffffffffffffffull;
	EXPECT_EQ(Check(s, rc, &total), 0);
	// ex is data (immediate, rkey), never checked.
	Minimal(s, WOOKIE_WR_SEND);
	s.wqe()->ex = 0xffffffff;
	EXPECT_EQ(Check(s, rc, &total), 0);
}

// --- SGEs, inline data, lengths -----------------------------------------

TEST(Queue, SqeNumSge)
{
	for (__u32 max = 0; max <= WOOKIE_MAX_SGE; max++) {
		wookie_sq_limits lim = Limits(WOOKIE_QP_KIND_RC, max, 0);
		SqSlot s(lim);
		__u64 total;

		for (__u32 n = 0; n <= max + 1; n++) {
			Minimal(s, WOOKIE_WR_SEND);
			s.wqe()->num_sge = __u16(n);
			for (__u32 i = 0; i < n && i < max; i++)
				s.sge()[i].length = 1000;
			int ret = Check(s, lim, &total);

			if (n <= max) {
				EXPECT_EQ(ret, 0) << n << " of " << max;
				EXPECT_EQ(total, 1000ull * n);
			} else {
				EXPECT_EQ(ret, -EINVAL) << n << " of " << max;
			}
		}
	}
	// Never more than WOOKIE_MAX_SGE, whatever the limits say.
	wookie_sq_limits big = Limits(WOOKIE_QP_KIND_RC, 40, 0);
	SqSlot s(big);
	__u64 total;

	Minimal(s, WOOKIE_WR_SEND);
	s.wqe()->num_sge = WOOKIE_MAX_SGE + 1;
	EXPECT_EQ(Check(s, big, &total), -EINVAL);
	s.wqe()->num_sge = 0xffff;
	EXPECT_EQ(Check(s, big, &total), -EINVAL);
}

TEST(Queue, SqeInline)
{
	wookie_sq_limits lim = Limits(WOOKIE_QP_KIND_RC, 2, 100, true);
	SqSlot s(lim);
	__u64 total;

	for (unsigned int op = 0; op < WOOKIE_WR_NUM_OPCODES; op++) {
		bool ok = op == WOOKIE_WR_SEND || op == WOOKIE_WR_SEND_WITH_IMM ||
			  op == WOOKIE_WR_SEND_WITH_INV ||
			  op == WOOKIE_WR_RDMA_WRITE ||
			  op == WOOKIE_WR_RDMA_WRITE_WITH_IMM;

		Minimal(s, op);
		s.wqe()->flags |= WOOKIE_WQE_INLINE;
		s.wqe()->inline_len = 100;
		std::memset(s.wqe() + 1, 0xee, 100);
		EXPECT_EQ(Check(s, lim, &total), ok ? 0 : -EINVAL)
			<< kOpNames[op];
		if (!ok)
			continue;
		EXPECT_EQ(total, 100u);
		// num_sge is ignored with INLINE.
		s.wqe()->num_sge = 0xffff;
		EXPECT_EQ(Check(s, lim, &total), 0) << kOpNames[op];
		s.wqe()->inline_len = 0;
		EXPECT_EQ(Check(s, lim, &total), 0) << kOpNames[op];
		EXPECT_EQ(total, 0u);
		s.wqe()->inline_len = 101;
		EXPECT_EQ(Check(s, lim, &total), -EINVAL) << kOpNames[op];
		s.wqe()->inline_len = 0xffffffff;
		EXPECT_EQ(Check(s, lim, &total), -EINVAL) << kOpNames[op];
	}

	// inline_len without INLINE.
	Minimal(s, WOOKIE_WR_SEND);
	s.wqe()->inline_len = 1;
	EXPECT_EQ(Check(s, lim, &total), -EINVAL);
	// No inline at all on a QP created without it.
	wookie_sq_limits none = Limits(WOOKIE_QP_KIND_RC, 2, 0);
	SqSlot n(none);

	Minimal(n, WOOKIE_WR_SEND);
	n.wqe()->flags |= WOOKIE_WQE_INLINE;
	n.wqe()->inline_len = 1;
	EXPECT_EQ(Check(n, none, &total), -EINVAL);
	n.wqe()->inline_len = 0;
	EXPECT_EQ(Check(n, none, &total), 0);
	// Never above WOOKIE_MAX_INLINE.
	wookie_sq_limits huge = Limits(WOOKIE_QP_KIND_RC, 2, 1024);
	SqSlot h(huge);

	Minimal(h, WOOKIE_WR_SEND);
	h.wqe()->flags |= WOOKIE_WQE_INLINE;
	h.wqe()->inline_len = WOOKIE_MAX_INLINE;
	EXPECT_EQ(Check(h, huge, &total), 0);
	h.wqe()->inline_len = WOOKIE_MAX_INLINE + 1;
	EXPECT_EQ(Check(h, huge, &total), -EINVAL);
}

TEST(Queue, SqeAtomic)
{
	wookie_sq_limits lim = Limits(WOOKIE_QP_KIND_RC, 4, 0);
	SqSlot s(lim);
	__u64 total;

	for (unsigned int op : { WOOKIE_WR_ATOMIC_CMP_AND_SWP,
				 WOOKIE_WR_ATOMIC_FETCH_AND_ADD }) {
		Minimal(s, op);
		EXPECT_EQ(Check(s, lim, &total), 0);
		EXPECT_EQ(total, 8u);
		for (__u32 len : { 0u, 1u, 4u, 7u, 9u, 16u, 0xffffffffu }) {
			s.sge()[0].length = len;
			EXPECT_EQ(Check(s, lim, &total), -EINVAL) << len;
		}
		Minimal(s, op);
		s.wqe()->num_sge = 0;
		EXPECT_EQ(Check(s, lim, &total), -EINVAL);
		s.wqe()->num_sge = 2;
		s.sge()[1].length = 8;
		EXPECT_EQ(Check(s, lim, &total), -EINVAL);
	}
}

TEST(Queue, SqeLocalOps)
{
	wookie_sq_limits lim = Limits(WOOKIE_QP_KIND_RC, 4, 64, true);
	SqSlot s(lim);
	__u64 total;

	for (unsigned int op : { WOOKIE_WR_LOCAL_INV, WOOKIE_WR_BIND_MW,
				 WOOKIE_WR_REG_MR }) {
		Minimal(s, op);
		EXPECT_EQ(Check(s, lim, &total), 0) << kOpNames[op];
		EXPECT_EQ(total, 0u);
		s.wqe()->num_sge = 1;
		s.sge()[0].length = 0;
		EXPECT_EQ(Check(s, lim, &total), -EINVAL) << kOpNames[op];
	}
}

TEST(Queue, SqeRead)
{
	wookie_sq_limits lim = Limits(WOOKIE_QP_KIND_RC, 4, 64);
	SqSlot s(lim);
	__u64 total;

	Minimal(s, WOOKIE_WR_RDMA_READ);
	s.wqe()->num_sge = 0;
	EXPECT_EQ(Check(s, lim, &total), 0);
	EXPECT_EQ(total, 0u);
	s.wqe()->num_sge = 3;
	s.sge()[0].length = 1;
	s.sge()[1].length = 0;
	s.sge()[2].length = 0x7fffffff;
	EXPECT_EQ(Check(s, lim, &total), 0);
	EXPECT_EQ(total, 0x80000000u);
}

TEST(Queue, SqeMessageSize)
{
	wookie_sq_limits lim = Limits(WOOKIE_QP_KIND_RC, WOOKIE_MAX_SGE, 0);
	SqSlot s(lim);
	__u64 total;

	for (unsigned int op : { WOOKIE_WR_SEND, WOOKIE_WR_RDMA_WRITE,
				 WOOKIE_WR_RDMA_READ }) {
		Minimal(s, op);
		s.sge()[0].length = 0x80000000u;
		EXPECT_EQ(Check(s, lim, &total), 0) << kOpNames[op];
		EXPECT_EQ(total, 0x80000000u);
		s.sge()[0].length = 0x80000001u;
		EXPECT_EQ(Check(s, lim, &total), -EMSGSIZE) << kOpNames[op];
		EXPECT_EQ(total, 0xdeadbeefu);
		// Two halves that add up past 2^31, and then some.
		s.wqe()->num_sge = 2;
		s.sge()[0].length = 0x40000000u;
		s.sge()[1].length = 0x40000001u;
		EXPECT_EQ(Check(s, lim, &total), -EMSGSIZE) << kOpNames[op];
		// 32 maximal SGEs: more than a u32 holds, no wrap to small.
		s.wqe()->num_sge = WOOKIE_MAX_SGE;
		for (unsigned int i = 0; i < WOOKIE_MAX_SGE; i++)
			s.sge()[i].length = 0xffffffffu;
		EXPECT_EQ(Check(s, lim, &total), -EMSGSIZE) << kOpNames[op];
		// 0x100000000 + 0x100000000 ... a sum wrapping a u32 exactly.
		s.wqe()->num_sge = 2;
		s.sge()[0].length = 0x80000000u;
		s.sge()[1].length = 0x80000000u;
		EXPECT_EQ(Check(s, lim, &total), -EMSGSIZE) << kOpNames[op];
	}
}

TEST(Queue, SqeUdMtu)
{
	wookie_sq_limits lim = Limits(WOOKIE_QP_KIND_UD, 2, 256);
	SqSlot s(lim);
	__u64 total;

	Minimal(s, WOOKIE_WR_SEND);
	s.sge()[0].length = kMtu;
	EXPECT_EQ(Check(s, lim, &total), 0);
	EXPECT_EQ(total, kMtu);
	s.sge()[0].length = kMtu + 1;
	EXPECT_EQ(Check(s, lim, &total), -EMSGSIZE);
	s.wqe()->num_sge = 2;
	s.sge()[0].length = kMtu / 2;
	s.sge()[1].length = kMtu / 2 + 1;
	EXPECT_EQ(Check(s, lim, &total), -EMSGSIZE);
	s.sge()[1].length = kMtu / 2;
	EXPECT_EQ(Check(s, lim, &total), 0);

	// Inline data counts too.
	Minimal(s, WOOKIE_WR_SEND_WITH_IMM);
	s.wqe()->flags |= WOOKIE_WQE_INLINE;
	s.wqe()->inline_len = 200;
	EXPECT_EQ(Check(s, lim, &total, 256), 0);
	EXPECT_EQ(Check(s, lim, &total, 200), 0);
	EXPECT_EQ(Check(s, lim, &total, 199), -EMSGSIZE);

	// An RC QP has no such limit.
	wookie_sq_limits rc = Limits(WOOKIE_QP_KIND_RC, 2, 256);
	SqSlot r(rc);

	Minimal(r, WOOKIE_WR_SEND);
	r.sge()[0].length = 1 << 20;
	EXPECT_EQ(Check(r, rc, &total, 256), 0);
}

TEST(Queue, SqeNullTotal)
{
	wookie_sq_limits lim = Limits(WOOKIE_QP_KIND_RC);
	SqSlot s(lim);

	Minimal(s, WOOKIE_WR_SEND);
	EXPECT_EQ(wookie_sqe_check(s.wqe(), &lim, kMtu, nullptr), 0);
	s.wqe()->opcode = 0xff;
	EXPECT_EQ(wookie_sqe_check(s.wqe(), &lim, kMtu, nullptr), -EINVAL);
}

// --- Receive WQEs ---------------------------------------------------------

TEST(Queue, Rqe)
{
	for (__u32 max = 0; max <= WOOKIE_MAX_SGE; max++) {
		__u32 stride = wookie_rq_stride(max);
		std::unique_ptr<__u64[]> mem(new __u64[stride / 8]);
		auto *wqe = reinterpret_cast<wookie_rqe *>(mem.get());
		auto *sge = reinterpret_cast<wookie_sge *>(wqe + 1);
		__u64 total;

		for (__u32 n = 0; n <= max + 1; n++) {
			std::memset(mem.get(), 0, stride);
			wqe->wr_id = n;
			wqe->num_sge = n;
			for (__u32 i = 0; i < n && i < max; i++)
				sge[i].length = 4096;
			total = 0xdeadbeef;
			int ret = wookie_rqe_check(wqe, max, &total);

			if (n <= max) {
				EXPECT_EQ(ret, 0);
				EXPECT_EQ(total, 4096ull * n);
			} else {
				EXPECT_EQ(ret, -EINVAL);
				EXPECT_EQ(total, 0xdeadbeefu);
			}
		}
		std::memset(mem.get(), 0, stride);
		wqe->reserved = 1;
		EXPECT_EQ(wookie_rqe_check(wqe, max, &total), -EINVAL);
		wqe->reserved = 0;
		wqe->num_sge = 0xffffffff;
		EXPECT_EQ(wookie_rqe_check(wqe, max, &total), -EINVAL);
		EXPECT_EQ(wookie_rqe_check(wqe, 0xffffffff, &total), -EINVAL);
	}

	__u32 stride = wookie_rq_stride(WOOKIE_MAX_SGE);
	std::unique_ptr<__u64[]> mem(new __u64[stride / 8]);
	auto *wqe = reinterpret_cast<wookie_rqe *>(mem.get());
	auto *sge = reinterpret_cast<wookie_sge *>(wqe + 1);
	__u64 total;

	std::memset(mem.get(), 0, stride);
	wqe->num_sge = 1;
	sge[0].length = 0x80000000u;
	EXPECT_EQ(wookie_rqe_check(wqe, WOOKIE_MAX_SGE, &total), 0);
	EXPECT_EQ(total, 0x80000000u);
	EXPECT_EQ(wookie_rqe_check(wqe, WOOKIE_MAX_SGE, nullptr), 0);
	sge[0].length = 0x80000001u;
	EXPECT_EQ(wookie_rqe_check(wqe, WOOKIE_MAX_SGE, &total), -EMSGSIZE);
	wqe->num_sge = WOOKIE_MAX_SGE;
	for (unsigned int i = 0; i < WOOKIE_MAX_SGE; i++)
		sge[i].length = 0xffffffffu;
	EXPECT_EQ(wookie_rqe_check(wqe, WOOKIE_MAX_SGE, &total), -EMSGSIZE);
	EXPECT_EQ(wookie_rqe_check(wqe, WOOKIE_MAX_SGE - 1, &total), -EINVAL);
}
