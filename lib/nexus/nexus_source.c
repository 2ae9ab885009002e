/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Server sessions and pending handshakes per source IP address, on the
 * nexus thread or under the nexus lock: one host may hold at most
 * max_sessions_per_source of them (pmr_nexus_conf). A handshake counts
 * from the moment its cookie-checked CONNECT_REQ is taken until it is
 * refused, or, accepted, until its session is gone. An address is
 * forgotten when its count drops to zero.
 */

#include <errno.h>
#include <stdlib.h>

#include <rte_jhash.h>

#include "nexus_private.h"

static unsigned int
src_bucket(const struct pmr_nexus *nx, uint32_t ip)
{
	return rte_jhash_1word(ip, nx->shs_seed) & (NEXUS_SRC_BUCKETS - 1);
}

static struct nexus_src *
src_find(struct pmr_nexus *nx, uint32_t ip)
{
	struct nexus_src *c;

	LIST_FOREACH(c, &nx->src_hash[src_bucket(nx, ip)], hash)
		if (c->ip == ip)
			return c;
	return NULL;
}

uint32_t
nexus_src_count(struct pmr_nexus *nx, const struct sockaddr_in *src)
{
	struct nexus_src *c = src_find(nx, src->sin_addr.s_addr);

	return c != NULL ? c->count : 0;
}

/* Count one more for src's IP. @return 0 or -ENOMEM. */
int
nexus_src_take(struct pmr_nexus *nx, const struct sockaddr_in *src)
{
	uint32_t ip = src->sin_addr.s_addr;
	struct nexus_src *c = src_find(nx, ip);

	if (c == NULL) {
		c = calloc(1, sizeof(*c));
		if (c == NULL)
			return -ENOMEM;
		c->ip = ip;
		LIST_INSERT_HEAD(&nx->src_hash[src_bucket(nx, ip)], c, hash);
	}
	c->count++;
	return 0;
}

void
nexus_src_put(struct pmr_nexus *nx, const struct sockaddr_in *src)
{
	struct nexus_src *c = src_find(nx, src->sin_addr.s_addr);

	if (c == NULL) {
		NX_LOG(ERR, "per-source count below zero");
		return;
	}
	if (--c->count == 0) {
		LIST_REMOVE(c, hash);
		free(c);
	}
}
