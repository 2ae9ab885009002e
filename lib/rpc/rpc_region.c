/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Extents of a pair's region (rpc_region.h). An extent is allocated per
 * offer on the copy path and a pair has at most as many as the worker
 * has offers (RPC_RDV_OFFERS_MAX), usually a few: a walk of the list is
 * cheaper than the copy it precedes.
 */

#include <errno.h>

#include <rte_common.h>

#include "rpc_region.h"

void
rpc_region_init(struct rpc_region *r, const struct pmr_transport_rc_region *reg)
{
	r->base = reg->addr;
	r->len = reg->len;
	r->lkey = reg->lkey;
	r->rkey = reg->rkey;
	TAILQ_INIT(&r->used);
}

int
rpc_region_alloc(struct rpc_region *r, struct rpc_extent *e, uint64_t len)
{
	struct rpc_extent *x;
	uint64_t at = 0;

	if (len == 0)
		return -EINVAL;
	len = RTE_ALIGN_CEIL(len, (uint64_t)RPC_REGION_ALIGN);
	TAILQ_FOREACH(x, &r->used, next) {
		if (x->off - at >= len)
			break;		/* the gap before x */
		at = x->off + x->len;
	}
	if (x == NULL && (at > r->len || r->len - at < len))
		return -ENOSPC;
	e->off = at;
	e->len = len;
	if (x != NULL)
		TAILQ_INSERT_BEFORE(x, e, next);
	else
		TAILQ_INSERT_TAIL(&r->used, e, next);
	return 0;
}

void
rpc_region_free(struct rpc_region *r, struct rpc_extent *e)
{
	TAILQ_REMOVE(&r->used, e, next);
	e->len = 0;
}
