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
};

struct rate_state {
	const struct rpcperf_config *cfg;
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

	sl->t0 = rte_rdtsc();
	ret = pmr_request(st->env->client, sl->session, RPCPERF_REQ_ECHO,
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
	if (resp->status != PMR_OK || resp->len != st->cfg->size)
		st->err = -EIO;
	st->done++;
	if (st->done == st->cfg->warmup)
		st->start = rte_rdtsc();
	else if (st->done > st->cfg->warmup)
		rpcperf_sample_add(st->s, rte_rdtsc() - sl->t0);
	if (st->sent < st->total)
		rate_send(st, sl);
}

static int
rate_run(const struct rpcperf_config *cfg, struct rpcperf_samples *s)
{
	struct rate_state st = { .cfg = cfg, .s = s };
	struct rpcperf_env env;
	struct rate_slot *slots;
	uint32_t i;
	int ret;

	slots = calloc(cfg->concurrency, sizeof(*slots));
	if (slots == NULL)
		return -ENOMEM;
	ret = rpcperf_env_up(cfg, &env, cfg->sessions);
	if (ret != 0)
		goto out;
	st.env = &env;
	st.total = cfg->warmup + cfg->iters;
	for (i = 0; i < cfg->concurrency; i++) {
		slots[i].st = &st;
		slots[i].session = env.sessions[i % env.nb_sessions];
		slots[i].req = pmr_worker_msgbuf_alloc(env.client, cfg->size);
		if (slots[i].req == NULL) {
			ret = -ENOBUFS;
			goto out;
		}
		memset(slots[i].req->data, 0x5a, cfg->size);
	}
	if (cfg->warmup == 0)
		st.start = rte_rdtsc();
	for (i = 0; i < cfg->concurrency && st.sent < st.total; i++)
		rate_send(&st, &slots[i]);
	while (st.done < st.sent && st.err == 0)
		pmr_worker_poll(env.client);
	s->elapsed = rte_rdtsc() - st.start;
	ret = st.err;
out:
	for (i = 0; i < cfg->concurrency; i++)
		pmr_msgbuf_free(slots[i].req);
	free(slots);
	rpcperf_env_down(&env, s);
	if (ret != 0)
		fprintf(stderr, "rpcperf: rate: %s\n", strerror(-ret));
	return ret;
}

const struct rpcperf_workload rpcperf_wl_rate = {
	.name = "rate",
	.help = "--concurrency echo RPCs outstanding: RPCs per second",
	.one_at_a_time = false,
	.run = rate_run,
};
