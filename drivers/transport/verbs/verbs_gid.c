/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The verbs driver's pure helpers (verbs_gid.h): no libibverbs, no EAL,
 * unit-tested alone (test/verbs_drv/test_verbs_gid.c).
 */

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "verbs_gid.h"

bool
pmr_verbs_gid_is_v4(const uint8_t raw[16])
{
	static const uint8_t prefix[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
	};

	return memcmp(raw, prefix, sizeof(prefix)) == 0;
}

bool
pmr_verbs_gid_is_link_local(const uint8_t raw[16])
{
	return raw[0] == 0xfe && (raw[1] & 0xc0) == 0x80;
}

static bool
gid_is_zero(const uint8_t raw[16])
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		if (raw[i] != 0)
			return false;
	return true;
}

/* 1 (best) to 3, or 0: never chosen automatically. */
static int
gid_rank(const struct pmr_verbs_gid_ent *e)
{
	if (!e->valid || gid_is_zero(e->raw) ||
	    pmr_verbs_gid_is_link_local(e->raw))
		return 0;
	if (e->type == PMR_VERBS_GID_ROCE_V2 && pmr_verbs_gid_is_v4(e->raw))
		return 1;
	if (pmr_verbs_gid_is_v4(e->raw))
		return 0;	/* IPv4-mapped on RoCE v1: not routable */
	if (e->type == PMR_VERBS_GID_ROCE_V2)
		return 2;
	if (e->type == PMR_VERBS_GID_ROCE_V1)
		return 3;
	return 0;
}

int
pmr_verbs_gid_choose(const struct pmr_verbs_gid_ent *tbl, unsigned int n,
		int want, const char **why)
{
	const char *dummy;
	unsigned int i;
	int best = -1, best_rank = 0;

	if (why == NULL)
		why = &dummy;
	if (want >= 0) {
		if ((unsigned int)want >= n) {
			*why = "past the port's GID table";
			return -EINVAL;
		}
		if (!tbl[want].valid) {
			*why = "an empty GID slot";
			return -ENODATA;
		}
		*why = "given by gid_index";
		return want;
	}
	for (i = 0; i < n; i++) {
		int r = gid_rank(&tbl[i]);

		if (r != 0 && (best < 0 || r < best_rank)) {
			best = (int)i;
			best_rank = r;
		}
	}
	if (best < 0) {
		*why = "no IPv4-mapped RoCE v2 or global IPv6 GID "
			"(link-local GIDs only if gid_index names one)";
		return -EADDRNOTAVAIL;
	}
	*why = best_rank == 1 ? "IPv4-mapped RoCE v2" :
		best_rank == 2 ? "global IPv6 RoCE v2" : "global IPv6 RoCE v1";
	return best;
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		(uint32_t)p[2] << 8 | p[3];
}

void
pmr_verbs_addr_encode(uint8_t out[PMR_VERBS_ADDR_LEN], const uint8_t gid[16],
		uint32_t qpn, uint32_t qkey)
{
	memset(out, 0, PMR_VERBS_ADDR_LEN);
	out[0] = PMR_VERBS_ADDR_VERSION;
	put32(out + 4, qpn);
	put32(out + 8, qkey);
	memcpy(out + 12, gid, 16);
}

int
pmr_verbs_addr_decode(const uint8_t *in, unsigned int len, uint8_t gid[16],
		uint32_t *qpn, uint32_t *qkey)
{
	if (len != PMR_VERBS_ADDR_LEN || in[0] != PMR_VERBS_ADDR_VERSION)
		return -EINVAL;
	*qpn = get32(in + 4);
	if (*qpn > 0xffffffu)
		return -EINVAL;
	*qkey = get32(in + 8);
	memcpy(gid, in + 12, 16);
	return 0;
}

uint64_t
pmr_verbs_src_key(const uint8_t gid[16], uint32_t qpn)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a, 64 bits */
	unsigned int i;

	qpn &= 0xffffffu;
	if (pmr_verbs_gid_is_v4(gid))
		return (uint64_t)get32(gid + 12) << 24 | qpn;
	for (i = 0; i < 16; i++) {
		h ^= gid[i];
		h *= 0x100000001b3ull;
	}
	return 1ull << 63 | (h & ((1ull << 39) - 1)) << 24 | qpn;
}

int
pmr_verbs_grh_src(const uint8_t grh[40], bool local_v4, uint8_t gid[16])
{
	if (local_v4) {
		if ((grh[20] >> 4) != 4)
			return -1;
		memset(gid, 0, 10);
		gid[10] = 0xff;
		gid[11] = 0xff;
		memcpy(gid + 12, grh + 20 + 12, 4);
		return 0;
	}
	if ((grh[0] >> 4) != 6)
		return -1;
	memcpy(gid, grh + 8, 16);
	return 0;
}
