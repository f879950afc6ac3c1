// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite for kernel/portable/wookie_icrc.c: the RoCEv2 ICRC, on the
 * vectors shared with the host tests (ICRCs computed with zlib, and one
 * captured from a ConnectX-4 Lx), checked against a reference built here
 * from the kernel's crc32_le() and the field table of the vectors, and for
 * which header fields it covers.  Packets sit in kmalloc()ed buffers of
 * exactly their length, so that KASAN catches a read past them.
 */
#include <kunit/test.h>
#include <linux/crc32.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/unaligned.h>

#include "wookie_icrc.h"
#include "wookie_icrc_vectors.h"

/* A value no ICRC function may leave behind when it fails. */
#define ICRC_UNTOUCHED 0xa5a5a5a5u

/* A copy of @len bytes in a block of exactly that size (never NULL). */
static u8 *icrc_exact(struct kunit *test, const u8 *bytes, size_t len)
{
	u8 *p = kunit_kmalloc(test, len ? len : 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	if (len)
		memcpy(p, bytes, len);
	return p;
}

/* The bytes the ICRC covers: all but the ICRC itself. */
static size_t icrc_covered(const struct wookie_icrc_vector *v)
{
	return v->len - WOOKIE_ICRC_BYTES;
}

static bool icrc_field_applies(const struct wookie_icrc_field *f,
			       unsigned int version, size_t covered)
{
	if (f->ip_version && f->ip_version != version)
		return false;
	if (f->base == WOOKIE_ICRC_FROM_END)
		return f->offset >= f->len && f->offset <= covered;
	return f->offset + f->len <= covered;
}

/* Offset of the field's first byte in a packet of @covered bytes. */
static size_t icrc_field_start(const struct wookie_icrc_field *f,
			       size_t covered)
{
	return f->base == WOOKIE_ICRC_FROM_END ? covered - f->offset :
		f->offset;
}

/* The bits of byte @off of an IPv@version packet that are of @kind. */
static u8 icrc_bits(unsigned int version, size_t off,
		    enum wookie_icrc_field_kind kind)
{
	const struct wookie_icrc_field *f;
	u8 bits = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(wookie_icrc_fields); i++) {
		f = &wookie_icrc_fields[i];
		if (f->kind == kind && f->base == WOOKIE_ICRC_FROM_IP &&
		    f->ip_version == version && off >= f->offset &&
		    off < f->offset + f->len)
			bits |= f->mask;
	}
	return bits;
}

/*
 * The ICRC as the vectors' field table describes it, with the kernel's
 * crc32_le(): variant bits set, 8 bytes of ones in front.
 */
static u32 icrc_reference(struct kunit *test, const u8 *pkt, size_t len)
{
	static const u8 lrh[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	unsigned int version = pkt[0] >> 4;
	u8 *m = icrc_exact(test, pkt, len);
	size_t i;
	u32 crc;

	for (i = 0; i < len; i++)
		m[i] |= icrc_bits(version, i, WOOKIE_ICRC_VARIANT);
	crc = crc32_le(~0u, lrh, sizeof(lrh));
	crc = crc32_le(crc, m, len);
	kunit_kfree(test, m);
	return ~crc;
}

static void icrc_vector_desc(const struct wookie_icrc_vector *v, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", v->name);
}

KUNIT_ARRAY_PARAM(icrc_vectors, wookie_icrc_vectors, icrc_vector_desc);

/* The known answer, its wire bytes, and what begin covers. */
static void wookie_icrc_known(struct kunit *test)
{
	const struct wookie_icrc_vector *v = test->param_value;
	size_t covered = icrc_covered(v);
	u8 *buf = icrc_exact(test, v->bytes, covered);
	u32 icrc = ICRC_UNTOUCHED, crc = ICRC_UNTOUCHED;
	u8 wire[WOOKIE_ICRC_BYTES];

	/* The vector itself: its last 4 bytes are its ICRC, LSB first. */
	KUNIT_ASSERT_EQ(test, get_unaligned_le32(v->bytes + covered), v->icrc);

	KUNIT_ASSERT_EQ(test, wookie_icrc(buf, covered, &icrc), 0);
	KUNIT_EXPECT_EQ_MSG(test, icrc, v->icrc, "got 0x%08x, want 0x%08x",
			    icrc, v->icrc);
	put_unaligned_le32(icrc, wire);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(wire, v->bytes + covered, 4), 0,
			    "wire %4ph, want %4ph", wire, v->bytes + covered);
	KUNIT_EXPECT_EQ(test, icrc_reference(test, buf, covered), v->icrc);

	KUNIT_EXPECT_EQ(test, wookie_icrc_begin(buf, covered, &crc),
			(int)v->hdr_len);
	KUNIT_EXPECT_EQ(test, ~crc32_le(crc, buf + v->hdr_len,
					covered - v->hdr_len), v->icrc);
}

/* xorshift64: the same sequence on every run. */
static u64 icrc_rand(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* begin, then wookie_crc32_le() over the rest in any chunks. */
static void wookie_icrc_chunks(struct kunit *test)
{
	const struct wookie_icrc_vector *v = test->param_value;
	size_t covered = icrc_covered(v);
	u8 *buf = icrc_exact(test, v->bytes, covered);
	u64 seed = 0xc4c32ull + v->len;
	size_t off, chunk;
	int round, n;
	u32 crc;

	for (round = 0; round < 50; round++) {
		n = wookie_icrc_begin(buf, covered, &crc);
		KUNIT_ASSERT_EQ(test, n, (int)v->hdr_len);
		for (off = n; off < covered; off += chunk) {
			KUNIT_EXPECT_EQ(test, wookie_crc32_le(crc, buf + off, 0),
					crc);
			chunk = 1 + icrc_rand(&seed) % (covered - off);
			if (round == 0)
				chunk = 1;
			crc = wookie_crc32_le(crc, buf + off, chunk);
		}
		KUNIT_EXPECT_EQ_MSG(test, ~crc, v->icrc, "round %d", round);
	}
}

/* Each named field: variant ones leave the ICRC alone, others change it. */
static void wookie_icrc_fields_change(struct kunit *test)
{
	const struct wookie_icrc_vector *v = test->param_value;
	unsigned int version = v->bytes[0] >> 4;
	size_t covered = icrc_covered(v);
	u8 *buf = icrc_exact(test, v->bytes, covered);
	const struct wookie_icrc_field *f;
	unsigned int tried = 0;
	size_t i, j, start;
	u32 icrc;
	int ret;

	for (i = 0; i < ARRAY_SIZE(wookie_icrc_fields); i++) {
		f = &wookie_icrc_fields[i];
		if (!icrc_field_applies(f, version, covered))
			continue;
		tried++;
		start = icrc_field_start(f, covered);
		for (j = 0; j < f->len; j++)
			buf[start + j] ^= f->mask;
		icrc = ICRC_UNTOUCHED;
		ret = wookie_icrc(buf, covered, &icrc);
		switch (f->kind) {
		case WOOKIE_ICRC_VARIANT:
			KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s", f->name);
			KUNIT_EXPECT_EQ_MSG(test, icrc, v->icrc, "%s", f->name);
			/* All ones, then all zeroes. */
			for (j = 0; j < f->len; j++)
				buf[start + j] |= f->mask;
			KUNIT_EXPECT_EQ(test, wookie_icrc(buf, covered, &icrc),
					0);
			KUNIT_EXPECT_EQ_MSG(test, icrc, v->icrc, "%s ones",
					    f->name);
			for (j = 0; j < f->len; j++)
				buf[start + j] &= ~f->mask;
			KUNIT_EXPECT_EQ(test, wookie_icrc(buf, covered, &icrc),
					0);
			KUNIT_EXPECT_EQ_MSG(test, icrc, v->icrc, "%s zeroes",
					    f->name);
			break;
		case WOOKIE_ICRC_INVARIANT:
			KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s", f->name);
			KUNIT_EXPECT_NE_MSG(test, icrc, v->icrc, "%s", f->name);
			break;
		case WOOKIE_ICRC_REFUSED:
			KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "%s", f->name);
			KUNIT_EXPECT_EQ_MSG(test, icrc, ICRC_UNTOUCHED, "%s",
					    f->name);
			break;
		}
		memcpy(buf, v->bytes, covered);
	}
	KUNIT_EXPECT_GE(test, tried, 20u);
}

/*
 * Every single bit of the packet: a variant one leaves the ICRC alone, an
 * invariant one changes it, a version bit has the packet refused (or, if
 * it makes another valid IP version, changes the ICRC).
 */
static void wookie_icrc_bit_flips(struct kunit *test)
{
	const struct wookie_icrc_vector *v = test->param_value;
	unsigned int version = v->bytes[0] >> 4;
	size_t covered = icrc_covered(v);
	u8 *buf = icrc_exact(test, v->bytes, covered);
	u8 variant, refused, bit;
	size_t off;
	u32 icrc;
	int ret;

	for (off = 0; off < covered; off++) {
		variant = icrc_bits(version, off, WOOKIE_ICRC_VARIANT);
		refused = icrc_bits(version, off, WOOKIE_ICRC_REFUSED);
		for (bit = 1; bit; bit <<= 1) {
			buf[off] ^= bit;
			icrc = ICRC_UNTOUCHED;
			ret = wookie_icrc(buf, covered, &icrc);
			if (refused & bit) {
				if (ret)
					KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL,
							    "byte %zu bit 0x%02x",
							    off, bit);
				else
					KUNIT_EXPECT_NE_MSG(test, icrc, v->icrc,
							    "byte %zu bit 0x%02x",
							    off, bit);
			} else if (variant & bit) {
				KUNIT_EXPECT_EQ(test, ret, 0);
				KUNIT_EXPECT_EQ_MSG(test, icrc, v->icrc,
						    "byte %zu bit 0x%02x", off,
						    bit);
			} else {
				KUNIT_EXPECT_EQ(test, ret, 0);
				KUNIT_EXPECT_NE_MSG(test, icrc, v->icrc,
						    "byte %zu bit 0x%02x", off,
						    bit);
			}
			buf[off] ^= bit;
		}
	}
}

/*
 * Every prefix, in a block of exactly its size: refused while shorter
 * than IP + UDP + BTH, else the reference's ICRC of those bytes.
 */
static void wookie_icrc_truncated(struct kunit *test)
{
	const struct wookie_icrc_vector *v = test->param_value;
	size_t covered = icrc_covered(v);
	u32 icrc, crc;
	size_t n;
	int ret;
	u8 *buf;

	/* No byte at all: not even the version may be read. */
	buf = icrc_exact(test, v->bytes, 1);
	icrc = ICRC_UNTOUCHED;
	crc = ICRC_UNTOUCHED;
	KUNIT_EXPECT_EQ(test, wookie_icrc(buf + 1, 0, &icrc), -EINVAL);
	KUNIT_EXPECT_EQ(test, wookie_icrc_begin(buf + 1, 0, &crc), -EINVAL);
	KUNIT_EXPECT_EQ(test, icrc, ICRC_UNTOUCHED);
	KUNIT_EXPECT_EQ(test, crc, ICRC_UNTOUCHED);
	kunit_kfree(test, buf);

	for (n = 1; n <= covered; n++) {
		buf = icrc_exact(test, v->bytes, n);
		icrc = ICRC_UNTOUCHED;
		crc = ICRC_UNTOUCHED;
		ret = wookie_icrc(buf, n, &icrc);
		if (n < v->hdr_len) {
			KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "%zu bytes", n);
			KUNIT_EXPECT_EQ(test, icrc, ICRC_UNTOUCHED);
			KUNIT_EXPECT_EQ_MSG(test,
					    wookie_icrc_begin(buf, n, &crc),
					    -EINVAL, "%zu bytes", n);
			KUNIT_EXPECT_EQ(test, crc, ICRC_UNTOUCHED);
		} else {
			KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%zu bytes", n);
			KUNIT_EXPECT_EQ_MSG(test, icrc,
					    icrc_reference(test, buf, n),
					    "%zu bytes", n);
			KUNIT_EXPECT_EQ_MSG(test,
					    wookie_icrc_begin(buf, n, &crc),
					    (int)v->hdr_len, "%zu bytes", n);
		}
		kunit_kfree(test, buf);
	}
}

/* Every first byte: only IPv4 with IHL 5 and IPv6 are accepted. */
static void wookie_icrc_first_byte(struct kunit *test)
{
	const struct wookie_icrc_vector *v = test->param_value;
	size_t covered = icrc_covered(v);
	u8 *buf = icrc_exact(test, v->bytes, covered);
	unsigned int b;
	bool ok;
	u32 icrc;
	int ret;

	for (b = 0; b < 256; b++) {
		buf[0] = b;
		ok = (b == 0x45 && covered >= 40) ||
		     ((b >> 4) == 6 && covered >= 60);
		icrc = ICRC_UNTOUCHED;
		ret = wookie_icrc(buf, covered, &icrc);
		KUNIT_EXPECT_EQ_MSG(test, ret, ok ? 0 : -EINVAL,
				    "first byte 0x%02x", b);
		if (ok)
			KUNIT_EXPECT_EQ_MSG(test, icrc,
					    icrc_reference(test, buf, covered),
					    "first byte 0x%02x", b);
		else
			KUNIT_EXPECT_EQ(test, icrc, ICRC_UNTOUCHED);
	}
}

/* The CRC primitive: check values, and the seed rxe starts from. */
static void wookie_icrc_crc32(struct kunit *test)
{
	static const u8 ones[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	const struct wookie_crc32_vector *c;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(wookie_crc32_vectors); i++) {
		c = &wookie_crc32_vectors[i];
		KUNIT_EXPECT_EQ_MSG(test,
				    ~wookie_crc32_le(~0u, (const u8 *)c->text,
						     strlen(c->text)),
				    c->crc, "\"%s\"", c->text);
	}
	KUNIT_EXPECT_EQ(test, wookie_crc32_le(~0u, ones, sizeof(ones)),
			WOOKIE_ICRC_LRH_SEED);
	KUNIT_EXPECT_EQ(test, wookie_crc32_le(0x12345678u, ones, 0),
			0x12345678u);
}

/* Random packets of both IP versions against the reference. */
static void wookie_icrc_random(struct kunit *test)
{
	u64 seed = 0x1c4cull;
	unsigned int i;
	size_t len, j;
	u32 icrc;
	u8 *pkt;
	int ret;

	for (i = 0; i < 2000; i++) {
		len = icrc_rand(&seed) % 128;
		pkt = kunit_kmalloc(test, len ? len : 1, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pkt);
		for (j = 0; j < len; j++)
			pkt[j] = icrc_rand(&seed);
		if (len && (i & 1))
			pkt[0] = (i & 2) ? 0x45 : 0x60 | (pkt[0] & 0x0f);
		icrc = ICRC_UNTOUCHED;
		ret = wookie_icrc(pkt, len, &icrc);
		if (len && ((pkt[0] == 0x45 && len >= 40) ||
			    ((pkt[0] >> 4) == 6 && len >= 60))) {
			KUNIT_EXPECT_EQ(test, ret, 0);
			KUNIT_EXPECT_EQ(test, icrc,
					icrc_reference(test, pkt, len));
		} else {
			KUNIT_EXPECT_EQ(test, ret, -EINVAL);
			KUNIT_EXPECT_EQ(test, icrc, ICRC_UNTOUCHED);
		}
		kunit_kfree(test, pkt);
	}
}

static struct kunit_case wookie_icrc_cases[] = {
	KUNIT_CASE_PARAM(wookie_icrc_known, icrc_vectors_gen_params),
	KUNIT_CASE_PARAM(wookie_icrc_chunks, icrc_vectors_gen_params),
	KUNIT_CASE_PARAM(wookie_icrc_fields_change, icrc_vectors_gen_params),
	KUNIT_CASE_PARAM(wookie_icrc_bit_flips, icrc_vectors_gen_params),
	KUNIT_CASE_PARAM(wookie_icrc_truncated, icrc_vectors_gen_params),
	KUNIT_CASE_PARAM(wookie_icrc_first_byte, icrc_vectors_gen_params),
	KUNIT_CASE(wookie_icrc_crc32),
	KUNIT_CASE(wookie_icrc_random),
	{}
};

static struct kunit_suite wookie_icrc_suite = {
	.name = "wookie_icrc",
	.test_cases = wookie_icrc_cases,
};

kunit_test_suite(wookie_icrc_suite);
