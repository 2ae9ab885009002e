/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_RPC_SOURCE_H
#define PMR_RPC_SOURCE_H

/*
 * What each source holds of a server worker (rpc_source.c; issue 25,
 * doc/security.md "What one source may hold"). A source is the address
 * of a client nexus: every nexus (process) on one address counts
 * together, so that a client cannot get more by opening more of them.
 * A source may hold at most pmr_worker_conf.src_share_pct percent (50 by
 * default, at least one) of each resource the worker has: its server
 * sessions, the receive slots they reserve, and the 64 KiB and
 * max_msg_size buffers its requests hold (partial, being read, with
 * their handlers); the rest is kept for other sources. Client sessions
 * are the worker's own business: not counted.
 *
 * Slow paths only (a session accepted or freed, a multi-packet request or
 * a descriptor taken, its buffer let go): a single-packet request never
 * comes here.
 */

#include <stdbool.h>
#include <stdint.h>

#include "rpc_private.h"

#pragma GCC visibility push(hidden)

/* pmr_worker_conf.src_share_pct's default. */
#define RPC_SRC_SHARE_PCT_DEFAULT 50

/* What a source holds (struct rpc_src.held). */
enum rpc_src_res {
	RPC_SRC_SESSIONS,	/* server sessions */
	RPC_SRC_RX,		/* receive slots they reserve (credits) */
	RPC_SRC_MID,		/* 64 KiB buffers of its requests */
	RPC_SRC_LARGE,		/* max_msg_size buffers of its requests */
	RPC_SRC_NB_RES,
};

/* An address, IPv4-mapped: room for IPv6 sources. */
#define RPC_SRC_ADDR_LEN 16

/* A source: its address and what it holds. */
struct rpc_src {
	uint8_t addr[RPC_SRC_ADDR_LEN];
	/* Sessions and held buffers naming it: freed at 0. */
	uint32_t refs;
	uint32_t held[RPC_SRC_NB_RES];
};

/* Worker create: the table and the shares of each resource. */
int rpc_src_init(struct pmr_worker *w, const struct pmr_worker_conf *conf,
		const uint32_t total[RPC_SRC_NB_RES]);
void rpc_src_fini(struct pmr_worker *w);

/*
 * The source of a nexus URI "a.b.c.d:port" (a CONNECT_IN's), made if new
 * and referenced: release it with rpc_src_put(). NULL: no room in the
 * table (it holds max_sessions sources) or an address it cannot parse.
 */
struct rpc_src *rpc_src_get(struct pmr_worker *w, const char *uri);
void rpc_src_put(struct pmr_worker *w, struct rpc_src *src);

/* May src take n more of res (its share not exceeded)? */
bool rpc_src_may(const struct pmr_worker *w, const struct rpc_src *src,
		enum rpc_src_res res, uint32_t n);

/* src holds n more (or, rpc_src_drop(), n fewer) of res. */
void rpc_src_take(struct rpc_src *src, enum rpc_src_res res, uint32_t n);
void rpc_src_drop(struct pmr_worker *w, struct rpc_src *src,
		enum rpc_src_res res, uint32_t n);

/*
 * src was refused one more of res: counted (pmr_worker_stats
 * src_sessions_refused or src_refused) and logged, at most once a
 * second (the count has them all).
 */
void rpc_src_refused(struct pmr_worker *w, const struct rpc_src *src,
		enum rpc_src_res res);

/* The most one source may hold of res. */
uint32_t rpc_src_share(const struct pmr_worker *w, enum rpc_src_res res);

/* src's address as text, for logs. */
void rpc_src_addr_str(const struct rpc_src *src, char *buf, size_t size);

#pragma GCC visibility pop

#endif /* PMR_RPC_SOURCE_H */
