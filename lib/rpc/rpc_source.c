/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * What each source holds of a server worker (rpc_source.h): a hash of
 * sources by address (DPDK's rte_hash, on the worker's lcore only), each
 * with its counts, and the share of each resource one source may hold.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_malloc.h>

#include "rpc_source.h"

struct rpc_src_table {
	struct rte_hash *hash;		/* address -> struct rpc_src */
	uint64_t log_next;		/* TSC: the next refusal logged */
	uint64_t log_quiet;		/* refusals not logged since */
	uint32_t size;			/* entries */
	uint32_t nb_free;
	struct rpc_src **free;		/* a stack of unused entries */
	struct rpc_src *ents;
	uint32_t share[RPC_SRC_NB_RES];
};

int
rpc_src_init(struct pmr_worker *w, const struct pmr_worker_conf *conf,
		const uint32_t total[RPC_SRC_NB_RES])
{
	uint32_t pct = conf->src_share_pct != 0 ? conf->src_share_pct :
		RPC_SRC_SHARE_PCT_DEFAULT;
	struct rte_hash_parameters hp = {
		.key_len = RPC_SRC_ADDR_LEN,
		.hash_func = rte_jhash,
		.socket_id = conf->socket_id,
	};
	char name[RTE_HASH_NAMESIZE];
	struct rpc_src_table *t;
	uint32_t i, r;

	if (pct > 100) {
		RPC_LOG(ERR, "worker %u: src_share_pct %u: 1 to 100",
			w->worker_id, pct);
		return -EINVAL;
	}
	t = rte_zmalloc_socket("pmr_src", sizeof(*t), 0, conf->socket_id);
	if (t == NULL)
		return -ENOMEM;
	w->src = t;
	/*
	 * Every source has a session, but those whose last session went
	 * while a READ of theirs still runs (its buffer still counts):
	 * at most one per session, and as many again.
	 */
	t->size = RTE_MAX(2 * w->max_sessions, 64u);
	snprintf(name, sizeof(name), "pmr_w%u_src", w->worker_id);
	hp.name = name;
	hp.entries = t->size;
	t->hash = rte_hash_create(&hp);
	t->ents = rte_zmalloc_socket("pmr_src_ents", sizeof(*t->ents) *
			t->size, 0, conf->socket_id);
	t->free = rte_zmalloc_socket("pmr_src_free", sizeof(*t->free) *
			t->size, 0, conf->socket_id);
	if (t->hash == NULL || t->ents == NULL || t->free == NULL)
		return -ENOMEM;
	for (i = 0; i < t->size; i++)
		t->free[i] = &t->ents[t->size - 1 - i];
	t->nb_free = t->size;
	for (r = 0; r < RPC_SRC_NB_RES; r++)
		t->share[r] = RTE_MAX(1u,
			(uint32_t)((uint64_t)total[r] * pct / 100));
	/* At least one session's reservation: one session of each source. */
	t->share[RPC_SRC_RX] = RTE_MAX(t->share[RPC_SRC_RX], w->credits);
	return 0;
}

void
rpc_src_fini(struct pmr_worker *w)
{
	struct rpc_src_table *t = w->src;

	if (t == NULL)
		return;
	if (t->nb_free != t->size)
		RPC_LOG(ERR, "worker %u: %u sources still counted at destroy",
			w->worker_id, t->size - t->nb_free);
	rte_hash_free(t->hash);
	rte_free(t->ents);
	rte_free(t->free);
	rte_free(t);
	w->src = NULL;
}

/* The address of uri "a.b.c.d:port", IPv4-mapped. */
static int
src_addr(const char *uri, uint8_t addr[RPC_SRC_ADDR_LEN])
{
	char host[INET_ADDRSTRLEN];
	const char *colon = strrchr(uri, ':');
	size_t n = colon != NULL ? (size_t)(colon - uri) : strlen(uri);

	if (n == 0 || n >= sizeof(host))
		return -EINVAL;
	memcpy(host, uri, n);
	host[n] = '\0';
	memset(addr, 0, RPC_SRC_ADDR_LEN);
	addr[10] = 0xff;
	addr[11] = 0xff;
	return inet_pton(AF_INET, host, &addr[12]) == 1 ? 0 : -EINVAL;
}

struct rpc_src *
rpc_src_get(struct pmr_worker *w, const char *uri)
{
	struct rpc_src_table *t = w->src;
	uint8_t addr[RPC_SRC_ADDR_LEN];
	struct rpc_src *src;
	void *data;

	if (src_addr(uri, addr) != 0) {
		RPC_LOG(ERR, "worker %u: a session from '%s': not an address",
			w->worker_id, uri);
		return NULL;
	}
	if (rte_hash_lookup_data(t->hash, addr, &data) >= 0) {
		src = data;
		src->refs++;
		return src;
	}
	if (t->nb_free == 0)
		return NULL;
	src = t->free[--t->nb_free];
	memset(src, 0, sizeof(*src));
	memcpy(src->addr, addr, sizeof(src->addr));
	if (rte_hash_add_key_data(t->hash, src->addr, src) != 0) {
		t->free[t->nb_free++] = src;
		return NULL;
	}
	src->refs = 1;
	return src;
}

/* Forget src once nothing names it. */
static void
src_maybe_free(struct pmr_worker *w, struct rpc_src *src)
{
	struct rpc_src_table *t = w->src;
	unsigned int r;

	if (src->refs != 0)
		return;
	for (r = 0; r < RPC_SRC_NB_RES; r++)
		if (src->held[r] != 0)
			return;
	rte_hash_del_key(t->hash, src->addr);
	t->free[t->nb_free++] = src;
}

void
rpc_src_put(struct pmr_worker *w, struct rpc_src *src)
{
	if (src->refs == 0) {
		RPC_LOG(ERR, "worker %u: a source's references below zero",
			w->worker_id);
		return;
	}
	src->refs--;
	src_maybe_free(w, src);
}

uint32_t
rpc_src_share(const struct pmr_worker *w, enum rpc_src_res res)
{
	return w->src->share[res];
}

bool
rpc_src_may(const struct pmr_worker *w, const struct rpc_src *src,
		enum rpc_src_res res, uint32_t n)
{
	return src->held[res] + n <= w->src->share[res];
}

void
rpc_src_take(struct rpc_src *src, enum rpc_src_res res, uint32_t n)
{
	src->held[res] += n;
}

void
rpc_src_drop(struct pmr_worker *w, struct rpc_src *src, enum rpc_src_res res,
		uint32_t n)
{
	if (src->held[res] < n) {
		RPC_LOG(ERR, "worker %u: a source's count %u below zero",
			w->worker_id, res);
		n = src->held[res];
	}
	src->held[res] -= n;
	src_maybe_free(w, src);
}

static const char *const res_names[RPC_SRC_NB_RES] = {
	[RPC_SRC_SESSIONS] = "sessions",
	[RPC_SRC_RX] = "receive slots",
	[RPC_SRC_MID] = "64 KiB buffers",
	[RPC_SRC_LARGE] = "largest buffers",
};

void
rpc_src_refused(struct pmr_worker *w, const struct rpc_src *src,
		enum rpc_src_res res)
{
	struct rpc_src_table *t = w->src;
	uint64_t now = rte_get_timer_cycles();
	char a[INET6_ADDRSTRLEN];

	if (res == RPC_SRC_SESSIONS || res == RPC_SRC_RX)
		w->stats.src_sessions_refused++;
	else
		w->stats.src_refused++;
	if (now < t->log_next) {
		t->log_quiet++;
		return;
	}
	t->log_next = now + rte_get_timer_hz();
	rpc_src_addr_str(src, a, sizeof(a));
	RPC_LOG(NOTICE, "worker %u: %s from %s refused: that address holds "
		"%u of the %u %s one source may have (src_share_pct)%s",
		w->worker_id, res == RPC_SRC_SESSIONS || res == RPC_SRC_RX ?
		"a session" : "a request", a, src->held[res], t->share[res],
		res_names[res], t->log_quiet != 0 ?
		"; refusals in the last second not logged" : "");
	t->log_quiet = 0;
}

void
rpc_src_addr_str(const struct rpc_src *src, char *buf, size_t size)
{
	if (inet_ntop(AF_INET, &src->addr[12], buf, (socklen_t)size) == NULL)
		snprintf(buf, size, "?");
}
