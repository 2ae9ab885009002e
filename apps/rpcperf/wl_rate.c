/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * rate: --concurrency echo RPCs kept outstanding over --sessions sessions;
 * each continuation sends the next request at once, so requests and
 * responses travel in bursts. Reports RPCs per second and the latency of
 * each RPC under that load.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>

#include "rpcperf.h"

struct rate_slot {
	struct rate_state *st;
	struct pmr_msgbuf *req;
	uint64_t t0;
	int session;
	uint32_t next_session;	/* for many sessions: round robin */
};

struct rate_state {
	const struct rpcperf_config *cfg;
	const struct rpcperf_rate_spec *spec;
	struct rpcperf_env *env;
	struct rpcperf_samples *s;
	uint64_t sent;
	uint64_t done;
	uint64_t total;
	uint64_t start;
	int err;
};

static void rate_cont(struct pmr_worker *w, const struct pmr_resp *resp,
		void *tag);

static void
rate_send(struct rate_state *st, struct rate_slot *sl)
{
	int ret;

	pmr_msgbuf_resize(sl->req, st->spec->size(st->cfg, st->sent));
	/* Many sessions: each request goes to the next one in turn. */
	if (st->env->nb_sessions > st->cfg->concurrency)
		sl->session = st->env->sessions[st->sent %
			st->env->nb_sessions];
	sl->t0 = rte_rdtsc();
	ret = pmr_request(st->env->client, sl->session, st->spec->req_type,
			sl->req, rate_cont, sl);
	if (ret != 0)
		st->err = ret;
	else
		st->sent++;
}

static void
rate_cont(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct rate_slot *sl = tag;
	struct rate_state *st = sl->st;

	(void)w;
	if (resp->status != PMR_OK ||
	    (st->spec->req_type == RPCPERF_REQ_ECHO &&
	     resp->len != resp->req->len))
		st->err = -EIO;
	st->done++;
	if (st->done == st->cfg->warmup)
		st->start = rte_rdtsc();
	else if (st->done > st->cfg->warmup) {
		rpcperf_sample_add(st->s, rte_rdtsc() - sl->t0);
		st->s->bytes += resp->req->len;
	}
	if (st->sent < st->total)
		rate_send(st, sl);
}

uint32_t
rpcperf_size_fixed(const struct rpcperf_config *cfg, uint64_t i)
{
	(void)i;
	return cfg->size;
}

int
rpcperf_rate_run(const struct rpcperf_config *cfg, struct rpcperf_samples *s,
		const struct rpcperf_rate_spec *spec)
{
	struct rate_state st = { .cfg = cfg, .s = s };
	struct rpcperf_env env;
	struct rate_slot *slots;
	uint32_t i;
	int ret;

	slots = calloc(cfg->concurrency, sizeof(*slots));
	if (slots == NULL)
		return -ENOMEM;
	st.spec = spec;
	ret = rpcperf_env_up(cfg, &env, spec->sessions, spec->partial_ok,
			spec->max_size);
	if (ret != 0)
		goto out;
	if (env.nb_sessions < spec->sessions)
		fprintf(stderr, "rpcperf: %s: %u of %u sessions admitted (%s), "
			"going on with those\n", s->workload, env.nb_sessions,
			spec->sessions, strerror(-env.session_err));
	s->sessions = env.nb_sessions;
	s->client_heap = env.client_heap;
	st.env = &env;
	st.total = cfg->warmup + cfg->iters;
	for (i = 0; i < cfg->concurrency; i++) {
		slots[i].st = &st;
		slots[i].session = env.sessions[i % env.nb_sessions];
		slots[i].req = pmr_worker_msgbuf_alloc(env.client,
				spec->max_size);
		if (slots[i].req == NULL) {
			ret = -ENOBUFS;
			goto out;
		}
		memset(slots[i].req->data, 0x5a, slots[i].req->len);
	}
	if (cfg->warmup == 0)
		st.start = rte_rdtsc();
	for (i = 0; i < cfg->concurrency && st.sent < st.total; i++)
		rate_send(&st, &slots[i]);
	while (st.done < st.sent && st.err == 0) {
		pmr_worker_poll(env.client);
		rpcperf_progress(cfg, s->workload, st.done, st.total);
	}
	s->elapsed = rte_rdtsc() - st.start;
	ret = st.err;
out:
	for (i = 0; i < cfg->concurrency; i++)
		pmr_msgbuf_free(slots[i].req);
	free(slots);
	rpcperf_env_down(&env, s);
	if (ret != 0)
		fprintf(stderr, "rpcperf: %s: %s\n", s->workload,
			strerror(-ret));
	return ret;
}

static int
rate_run(const struct rpcperf_config *cfg, struct rpcperf_samples *s)
{
	const struct rpcperf_rate_spec spec = {
		.req_type = RPCPERF_REQ_ECHO,
		.sessions = cfg->sessions,
		.size = rpcperf_size_fixed,
		.max_size = cfg->size,
	};

	return rpcperf_rate_run(cfg, s, &spec);
}

const struct rpcperf_workload rpcperf_wl_rate = {
	.name = "rate",
	.help = "--concurrency echo RPCs outstanding: RPCs per second",
	.one_at_a_time = false,
	.run = rate_run,
};
