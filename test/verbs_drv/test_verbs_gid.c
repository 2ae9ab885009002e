/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The verbs driver's pure helpers (drivers/transport/verbs/verbs_gid.c),
 * linked alone: the GID choice over GID tables, the address encoding,
 * the source key and the GRH parse.
 */

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "verbs_gid.h"

static void
gid_v4(struct pmr_verbs_gid_ent *e, uint8_t type, uint8_t a, uint8_t b,
		uint8_t c, uint8_t d)
{
	memset(e, 0, sizeof(*e));
	e->valid = true;
	e->type = type;
	e->raw[10] = 0xff;
	e->raw[11] = 0xff;
	e->raw[12] = a;
	e->raw[13] = b;
	e->raw[14] = c;
	e->raw[15] = d;
}

static void
gid_v6(struct pmr_verbs_gid_ent *e, uint8_t type, uint8_t b0, uint8_t b1,
		uint8_t last)
{
	memset(e, 0, sizeof(*e));
	e->valid = true;
	e->type = type;
	e->raw[0] = b0;
	e->raw[1] = b1;
	e->raw[15] = last;
}

/* rxe: 0 link-local v2, 1 IPv4-mapped v2 (and v1 twins on older). */
static void
test_choose_rxe(void **state)
{
	struct pmr_verbs_gid_ent t[4];
	const char *why = NULL;

	(void)state;
	memset(t, 0, sizeof(t));
	gid_v6(&t[0], PMR_VERBS_GID_ROCE_V2, 0xfe, 0x80, 1);
	gid_v4(&t[1], PMR_VERBS_GID_ROCE_V2, 10, 0, 0, 1);
	assert_int_equal(pmr_verbs_gid_choose(t, 4, PMR_VERBS_GID_AUTO,
			&why), 1);
	assert_non_null(strstr(why, "IPv4"));
	/* Named, a link-local one is taken. */
	assert_int_equal(pmr_verbs_gid_choose(t, 4, 0, &why), 0);
}

/* The v4-mapped RoCE v2 GID wins over an earlier global IPv6 one and
 * over a v4-mapped RoCE v1 one. */
static void
test_choose_order(void **state)
{
	struct pmr_verbs_gid_ent t[6];

	(void)state;
	memset(t, 0, sizeof(t));
	gid_v6(&t[0], PMR_VERBS_GID_ROCE_V1, 0xfe, 0x80, 1);
	gid_v6(&t[1], PMR_VERBS_GID_ROCE_V1, 0x20, 0x01, 2);
	gid_v6(&t[2], PMR_VERBS_GID_ROCE_V2, 0x20, 0x01, 3);
	gid_v4(&t[3], PMR_VERBS_GID_ROCE_V1, 10, 0, 0, 1);
	gid_v4(&t[4], PMR_VERBS_GID_ROCE_V2, 10, 0, 0, 1);
	assert_int_equal(pmr_verbs_gid_choose(t, 6, -1, NULL), 4);
	/* Without it: the global IPv6 RoCE v2, then v1. */
	t[4].valid = false;
	assert_int_equal(pmr_verbs_gid_choose(t, 6, -1, NULL), 2);
	t[2].valid = false;
	assert_int_equal(pmr_verbs_gid_choose(t, 6, -1, NULL), 1);
	/* An IPv4-mapped RoCE v1 GID alone is not chosen. */
	t[1].valid = false;
	assert_int_equal(pmr_verbs_gid_choose(t, 6, -1, NULL),
		-EADDRNOTAVAIL);
}

static void
test_choose_errors(void **state)
{
	struct pmr_verbs_gid_ent t[3];
	const char *why = NULL;

	(void)state;
	memset(t, 0, sizeof(t));
	/* Empty table. */
	assert_int_equal(pmr_verbs_gid_choose(t, 3, -1, &why),
		-EADDRNOTAVAIL);
	/* Link-local only: a clear error naming the rule. */
	gid_v6(&t[0], PMR_VERBS_GID_ROCE_V2, 0xfe, 0x80, 1);
	assert_int_equal(pmr_verbs_gid_choose(t, 3, -1, &why),
		-EADDRNOTAVAIL);
	assert_non_null(strstr(why, "link-local"));
	/* IB GIDs are never chosen automatically, zero GIDs neither. */
	gid_v6(&t[1], PMR_VERBS_GID_IB, 0x20, 0x01, 1);
	t[2].valid = true;
	t[2].type = PMR_VERBS_GID_ROCE_V2;
	assert_int_equal(pmr_verbs_gid_choose(t, 3, -1, NULL),
		-EADDRNOTAVAIL);
	/* Named: past the table, an empty slot. */
	assert_int_equal(pmr_verbs_gid_choose(t, 3, 3, &why), -EINVAL);
	t[2].valid = false;
	assert_int_equal(pmr_verbs_gid_choose(t, 3, 2, &why), -ENODATA);
	assert_non_null(strstr(why, "empty"));
}

static void
test_addr(void **state)
{
	uint8_t out[PMR_VERBS_ADDR_LEN], gid[16], back[16];
	uint32_t qpn, qkey;
	unsigned int i;

	(void)state;
	for (i = 0; i < 16; i++)
		gid[i] = (uint8_t)(i * 7 + 1);
	pmr_verbs_addr_encode(out, gid, 0x123456, 0x7abcdef0);
	assert_int_equal(pmr_verbs_addr_decode(out, sizeof(out), back, &qpn,
			&qkey), 0);
	assert_memory_equal(back, gid, 16);
	assert_int_equal(qpn, 0x123456);
	assert_int_equal(qkey, 0x7abcdef0);
	assert_int_equal(pmr_verbs_addr_decode(out, sizeof(out) - 1, back,
			&qpn, &qkey), -EINVAL);
	out[0] = 9;
	assert_int_equal(pmr_verbs_addr_decode(out, sizeof(out), back, &qpn,
			&qkey), -EINVAL);
	/* A QPN over 24 bits. */
	pmr_verbs_addr_encode(out, gid, 0x1000000, 1);
	assert_int_equal(pmr_verbs_addr_decode(out, sizeof(out), back, &qpn,
			&qkey), -EINVAL);
}

static void
test_src_key(void **state)
{
	struct pmr_verbs_gid_ent a, b;

	(void)state;
	gid_v4(&a, PMR_VERBS_GID_ROCE_V2, 192, 0, 2, 1);
	gid_v4(&b, PMR_VERBS_GID_ROCE_V2, 192, 0, 2, 2);
	assert_int_equal(pmr_verbs_src_key(a.raw, 17),
		(uint64_t)0xc0000201 << 24 | 17);
	assert_true(pmr_verbs_src_key(a.raw, 17) !=
		pmr_verbs_src_key(b.raw, 17));
	assert_true(pmr_verbs_src_key(a.raw, 17) !=
		pmr_verbs_src_key(a.raw, 18));
	/* Only 24 bits of QPN. */
	assert_int_equal(pmr_verbs_src_key(a.raw, 0x1000011),
		pmr_verbs_src_key(a.raw, 17));
	gid_v6(&a, PMR_VERBS_GID_ROCE_V2, 0x20, 0x01, 1);
	gid_v6(&b, PMR_VERBS_GID_ROCE_V2, 0x20, 0x01, 2);
	assert_true(pmr_verbs_src_key(a.raw, 17) >> 63);
	assert_true(pmr_verbs_src_key(a.raw, 17) !=
		pmr_verbs_src_key(b.raw, 17));
}

static void
test_grh_src(void **state)
{
	uint8_t grh[40], gid[16];
	struct pmr_verbs_gid_ent e;

	(void)state;
	/* RoCE v2 over IPv4: bytes 0..19 undefined, IPv4 header after. */
	memset(grh, 0x55, sizeof(grh));
	grh[20] = 0x45;
	grh[32] = 198;
	grh[33] = 51;
	grh[34] = 100;
	grh[35] = 7;
	assert_int_equal(pmr_verbs_grh_src(grh, true, gid), 0);
	gid_v4(&e, 0, 198, 51, 100, 7);
	assert_memory_equal(gid, e.raw, 16);
	/* The same bytes read as IPv6: version 6 at byte 0 only. */
	assert_int_equal(pmr_verbs_grh_src(grh, false, gid), -1);
	memset(grh, 0, sizeof(grh));
	grh[0] = 0x60;
	grh[8] = 0x20;
	grh[9] = 0x01;
	grh[23] = 5;
	assert_int_equal(pmr_verbs_grh_src(grh, false, gid), 0);
	gid_v6(&e, 0, 0x20, 0x01, 5);
	assert_memory_equal(gid, e.raw, 16);
	/* Local IPv4 and an IPv6 header: refused, not misread. */
	assert_int_equal(pmr_verbs_grh_src(grh, true, gid), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_choose_rxe),
		cmocka_unit_test(test_choose_order),
		cmocka_unit_test(test_choose_errors),
		cmocka_unit_test(test_addr),
		cmocka_unit_test(test_src_key),
		cmocka_unit_test(test_grh_src),
	};

	return cmocka_run_group_tests_name("verbs_gid", tests, NULL, NULL);
}
