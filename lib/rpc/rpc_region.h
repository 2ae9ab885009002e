/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef RPC_REGION_H
#define RPC_REGION_H

/*
 * A pair's region (pmr_transport_rc_region(): memory registered with the
 * pair's RC QP for its peer alone) and the extents of it that offers
 * hold (rpc_rdv.c copies an offered message into one). First fit over
 * the gaps between the extents in use, kept in address order: freeing an
 * extent merges the gaps on both sides of it. The worker's lcore only.
 */

#include <stdint.h>
#include <sys/queue.h>

#include "pmr_transport_rc.h"

#pragma GCC visibility push(hidden)

/* Extents start on cache lines. */
#define RPC_REGION_ALIGN 64

struct rpc_extent {
	TAILQ_ENTRY(rpc_extent) next;
	uint64_t off;		/* from the region's first byte */
	uint64_t len;		/* bytes held: the request, aligned up */
};
TAILQ_HEAD(rpc_extent_list, rpc_extent);

struct rpc_region {
	uint8_t *base;
	uint64_t len;
	uint32_t lkey;
	uint32_t rkey;
	struct rpc_extent_list used;	/* by offset */
};

/* r describes reg, with nothing in use. */
void rpc_region_init(struct rpc_region *r,
		const struct pmr_transport_rc_region *reg);

/*
 * Take len bytes (1 or more) of r into e: the lowest gap they fit in.
 * @return 0 (e->off set), -ENOSPC (no gap that large), -EINVAL (len 0).
 */
int rpc_region_alloc(struct rpc_region *r, struct rpc_extent *e,
		uint64_t len);

/* Give e (taken from r) back. */
void rpc_region_free(struct rpc_region *r, struct rpc_extent *e);

/* The first byte of e. */
static inline uint8_t *
rpc_region_addr(const struct rpc_region *r, const struct rpc_extent *e)
{
	return r->base + e->off;
}

#pragma GCC visibility pop

#endif /* RPC_REGION_H */
