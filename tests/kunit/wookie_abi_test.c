// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite for include/uapi/rdma/wookie-abi.h: the layout of every
 * structure shared with the rdma-core provider, as the kernel's compiler
 * lays it out, against the frozen table in wookie_abi_layout.h.
 */
#include <rdma/wookie-abi.h>

#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/string.h>

#include "wookie_abi_layout.h"

static void abi_struct_desc(const struct wookie_abi_struct *s, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "struct %s", s->type);
}

KUNIT_ARRAY_PARAM(abi_structs, wookie_abi_structs, abi_struct_desc);

static void wookie_abi_struct_size(struct kunit *test)
{
	const struct wookie_abi_struct *s = test->param_value;

	KUNIT_EXPECT_EQ(test, s->size, s->want_size);
	KUNIT_EXPECT_EQ(test, s->align, s->want_align);
	/* Arrays of it and 32-bit user space see the same size. */
	KUNIT_EXPECT_EQ(test, s->size % 8, (size_t)0);
}

static void abi_field_desc(const struct wookie_abi_field *f, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s.%s", f->type, f->field);
}

KUNIT_ARRAY_PARAM(abi_fields, wookie_abi_fields, abi_field_desc);

static void wookie_abi_field_layout(struct kunit *test)
{
	const struct wookie_abi_field *f = test->param_value;

	KUNIT_EXPECT_EQ(test, f->offset, f->want_offset);
	KUNIT_EXPECT_EQ(test, f->size, f->want_size);
	KUNIT_EXPECT_LE(test, f->offset + f->size, f->type_size);
	/* A 64-bit field is 8-byte aligned, in the structure and in memory. */
	if (f->size == 8) {
		KUNIT_EXPECT_EQ(test, f->offset % 8, (size_t)0);
		KUNIT_EXPECT_EQ(test, f->type_align, (size_t)8);
	}
}

/*
 * The fields of each structure, in table order, cover it exactly: no
 * padding the compiler added and no field the table forgot.
 */
static void wookie_abi_no_holes(struct kunit *test)
{
	size_t i, j, end = 0;
	const char *type = NULL;

	for (i = 0; i < ARRAY_SIZE(wookie_abi_fields); i++) {
		const struct wookie_abi_field *f = &wookie_abi_fields[i];

		if (!type || strcmp(type, f->type)) {
			if (type)
				KUNIT_EXPECT_EQ_MSG(test, end,
						    wookie_abi_fields[i - 1].type_size,
						    "struct %s", type);
			type = f->type;
			end = 0;
		}
		KUNIT_EXPECT_EQ_MSG(test, f->offset, end, "%s.%s",
				    f->type, f->field);
		end = f->offset + f->size;
	}
	if (type)
		KUNIT_EXPECT_EQ_MSG(test, end,
				    wookie_abi_fields[i - 1].type_size,
				    "struct %s", type);

	/* Every structure has its fields listed, and only those. */
	for (i = 0; i < ARRAY_SIZE(wookie_abi_structs); i++) {
		bool found = false;

		for (j = 0; j < ARRAY_SIZE(wookie_abi_fields); j++)
			if (!strcmp(wookie_abi_structs[i].type,
				    wookie_abi_fields[j].type))
				found = true;
		KUNIT_EXPECT_TRUE_MSG(test, found, "struct %s has no fields",
				      wookie_abi_structs[i].type);
	}
	for (j = 0; j < ARRAY_SIZE(wookie_abi_fields); j++) {
		bool found = false;

		for (i = 0; i < ARRAY_SIZE(wookie_abi_structs); i++)
			if (!strcmp(wookie_abi_structs[i].type,
				    wookie_abi_fields[j].type))
				found = true;
		KUNIT_EXPECT_TRUE_MSG(test, found, "struct %s not listed",
				      wookie_abi_fields[j].type);
	}
}

static void wookie_abi_db_page(struct kunit *test)
{
	/* ABI 3 defines no word of it: it must still fit the smallest page. */
	KUNIT_EXPECT_LE(test, sizeof(struct wookie_db_page), PAGE_SIZE);
	KUNIT_EXPECT_LE(test, sizeof(struct wookie_db_page),
			(size_t)WOOKIE_ABI_MIN_PAGE_SIZE);
}

/*
 * Numbers user space has already compiled in: changing one is an ABI break
 * and must come with a new WOOKIE_ABI_VERSION (and a new row here).
 */
static void wookie_abi_constants(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, WOOKIE_ABI_VERSION, 3);
	KUNIT_EXPECT_EQ(test, WOOKIE_RING_HDR_SIZE, 256);
	KUNIT_EXPECT_EQ(test, WOOKIE_CQ_ARM_NEXT, 1U);
	KUNIT_EXPECT_EQ(test, WOOKIE_CQ_ARM_SOLICITED, 2U);
	KUNIT_EXPECT_EQ(test, WOOKIE_RING_FLUSH, 2U);
	KUNIT_EXPECT_EQ(test, WOOKIE_RING_NEED_WAKEUP, 4U);
	KUNIT_EXPECT_EQ(test, WOOKIE_WQE_INLINE, 8U);
	KUNIT_EXPECT_STREQ(test, WOOKIE_SYSFS_ABI_ATTR, "wookie_abi_version");
	/* A sysfs file name: no slash, not empty. */
	KUNIT_EXPECT_NULL(test, strchr(WOOKIE_SYSFS_ABI_ATTR, '/'));
	KUNIT_EXPECT_GT(test, strlen(WOOKIE_SYSFS_ABI_ATTR), (size_t)0);
}

static struct kunit_case wookie_abi_cases[] = {
	KUNIT_CASE_PARAM(wookie_abi_struct_size, abi_structs_gen_params),
	KUNIT_CASE_PARAM(wookie_abi_field_layout, abi_fields_gen_params),
	KUNIT_CASE(wookie_abi_no_holes),
	KUNIT_CASE(wookie_abi_db_page),
	KUNIT_CASE(wookie_abi_constants),
	{}
};

static struct kunit_suite wookie_abi_suite = {
	.name = "wookie_abi",
	.test_cases = wookie_abi_cases,
};

kunit_test_suite(wookie_abi_suite);

MODULE_DESCRIPTION("KUnit tests for wookie's portable code and ABI");
MODULE_LICENSE("Dual BSD/GPL");
