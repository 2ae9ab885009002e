/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * latency: one RPC at a time over one session; each sample is the time
 * from pmr_request() to its continuation. The server echoes the payload.
 */

#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>

#include "rpcperf.h"

struct lat_state {
	bool done;
	enum pmr_status status;
	uint32_t len;
};

static void
lat_cont(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct lat_state *st = tag;

	(void)w;
	st->status = resp->status;
	st->len = resp->len;
	st->done = true;
}

static int
latency_run(const struct rpcperf_config *cfg, struct rpcperf_samples *s)
{
	struct rpcperf_env env;
	struct lat_state st;
	struct pmr_msgbuf *req = NULL;
	uint64_t i, t0, start = 0;
	int ret;

	ret = rpcperf_env_up(cfg, &env, 1, false, cfg->size);
	if (ret != 0)
		goto out;
	req = pmr_worker_msgbuf_alloc(env.client, cfg->size);
	if (req == NULL) {
		ret = -ENOBUFS;
		goto out;
	}
	memset(req->data, 0x5a, req->len);
	for (i = 0; i < cfg->warmup + cfg->iters; i++) {
		if (i == cfg->warmup)
			start = rte_rdtsc();
		st.done = false;
		t0 = rte_rdtsc();
		ret = pmr_request(env.client, env.sessions[0],
				RPCPERF_REQ_ECHO, req, lat_cont, &st);
		if (ret != 0)
			break;
		while (!st.done)
			pmr_worker_poll(env.client);
		if (i >= cfg->warmup)
			rpcperf_sample_add(s, rte_rdtsc() - t0);
		rpcperf_progress(cfg, s->workload, i + 1,
				cfg->warmup + cfg->iters);
		if (st.status != PMR_OK || st.len != cfg->size) {
			fprintf(stderr, "rpcperf: latency: %s, %u bytes\n",
				pmr_status_str(st.status), st.len);
			ret = -EIO;
			break;
		}
	}
	s->elapsed = rte_rdtsc() - start;
out:
	pmr_msgbuf_free(req);
	rpcperf_env_down(&env, s);
	if (ret != 0)
		fprintf(stderr, "rpcperf: latency: %s\n", strerror(-ret));
	return ret;
}

const struct rpcperf_workload rpcperf_wl_latency = {
	.name = "latency",
	.help = "one echo RPC at a time: round-trip percentiles",
	.one_at_a_time = true,
	.run = latency_run,
};
