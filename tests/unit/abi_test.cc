// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Host tests of include/uapi/rdma/wookie-abi.h compiled as C++: the layout
// table shared with the KUnit suite (tests/kunit/wookie_abi_layout.h), the
// same compile-time checks as the C and 32-bit builds (abi_static_checks.h).

// First, alone: the header must compile with nothing before it.
#include <rdma/wookie-abi.h>

#include <gtest/gtest.h>

#include <cstring>
#include <ostream>
#include <set>
#include <string>

#include "abi_static_checks.h"
#include "wookie_abi_layout.h"

void PrintTo(const wookie_abi_struct &s, std::ostream *os)
{
	*os << "struct " << s.type << " (size " << s.size << ", align "
	    << s.align << ")";
}

void PrintTo(const wookie_abi_field &f, std::ostream *os)
{
	*os << f.type << "." << f.field << " (offset " << f.offset
	    << ", size " << f.size << ")";
}

class AbiStruct : public testing::TestWithParam<wookie_abi_struct> {};

TEST_P(AbiStruct, SizeAndAlignment)
{
	const wookie_abi_struct &s = GetParam();

	EXPECT_EQ(s.size, s.want_size);
	EXPECT_EQ(s.align, s.want_align);
	// Arrays of it and 32-bit user space see the same size.
	EXPECT_EQ(s.size % 8, 0u);
}

INSTANTIATE_TEST_SUITE_P(
	Abi, AbiStruct, testing::ValuesIn(wookie_abi_structs),
	[](const testing::TestParamInfo<wookie_abi_struct> &info) {
		return std::string(info.param.type);
	});

class AbiField : public testing::TestWithParam<wookie_abi_field> {};

TEST_P(AbiField, OffsetAndSize)
{
	const wookie_abi_field &f = GetParam();

	EXPECT_EQ(f.offset, f.want_offset);
	EXPECT_EQ(f.size, f.want_size);
	EXPECT_LE(f.offset + f.size, f.type_size);
	// A 64-bit field is 8-byte aligned, in the structure and in memory.
	if (f.size == 8) {
		EXPECT_EQ(f.offset % 8, 0u);
		EXPECT_EQ(f.type_align, 8u);
	}
}

INSTANTIATE_TEST_SUITE_P(
	Abi, AbiField, testing::ValuesIn(wookie_abi_fields),
	[](const testing::TestParamInfo<wookie_abi_field> &info) {
		return std::string(info.param.type) + "_" + info.param.field;
	});

// The fields of each structure, in table order, cover it exactly.
TEST(Abi, NoHoles)
{
	std::set<std::string> with_fields, listed;
	const char *type = nullptr;
	size_t end = 0, type_size = 0;

	for (const wookie_abi_field &f : wookie_abi_fields) {
		if (!type || std::strcmp(type, f.type)) {
			if (type) {
				EXPECT_EQ(end, type_size) << "struct " << type;
			}
			type = f.type;
			type_size = f.type_size;
			end = 0;
			EXPECT_TRUE(with_fields.insert(type).second)
				<< "struct " << type << " listed twice";
		}
		EXPECT_EQ(f.offset, end) << f.type << "." << f.field;
		end = f.offset + f.size;
	}
	if (type) {
		EXPECT_EQ(end, type_size) << "struct " << type;
	}

	for (const wookie_abi_struct &s : wookie_abi_structs)
		listed.insert(s.type);
	EXPECT_EQ(with_fields, listed);
}

TEST(Abi, DoorbellPage)
{
	struct wookie_db_page page;

	// ABI 3 defines no word of it: it must still fit the smallest page.
	EXPECT_LE(sizeof(page), size_t(WOOKIE_ABI_MIN_PAGE_SIZE));
}

// Numbers user space has already compiled in.
TEST(Abi, Constants)
{
	EXPECT_EQ(WOOKIE_ABI_VERSION, 3);
	EXPECT_EQ(WOOKIE_RING_HDR_SIZE, 256);
	EXPECT_EQ(WOOKIE_CQ_ARM_NEXT, 1u);
	EXPECT_EQ(WOOKIE_CQ_ARM_SOLICITED, 2u);
	EXPECT_EQ(WOOKIE_RING_ERROR, 1u);
	EXPECT_EQ(WOOKIE_RING_FLUSH, 2u);
	EXPECT_EQ(WOOKIE_RING_NEED_WAKEUP, 4u);
	EXPECT_EQ(WOOKIE_WQE_SIGNALED, 1u);
	EXPECT_EQ(WOOKIE_WQE_SOLICITED, 2u);
	EXPECT_EQ(WOOKIE_WQE_FENCE, 4u);
	EXPECT_EQ(WOOKIE_WQE_INLINE, 8u);
	EXPECT_EQ(WOOKIE_WR_REG_MR, 10);
	EXPECT_EQ(WOOKIE_CQE_RECV_RDMA_WITH_IMM, 9);
	EXPECT_EQ(WOOKIE_CQE_ATOMIC_WRITE, 10);
	EXPECT_EQ(WOOKIE_CQE_FLUSH, 11);
	EXPECT_STREQ(WOOKIE_SYSFS_ABI_ATTR, "wookie_abi_version");
	EXPECT_EQ(std::strchr(WOOKIE_SYSFS_ABI_ATTR, '/'), nullptr);
}
