/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * ring: the baseline. A raw rte_ring ping-pong between the same two lcores
 * the other workloads use: the client enqueues a pointer, the server moves
 * it to the reply ring. No payload is touched; this is the floor a
 * cross-core round trip costs on this machine.
 */

#include <stdio.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "rpcperf.h"

struct ring_pair {
	struct rte_ring *req;
	struct rte_ring *resp;
	bool stop;
};

static int
ring_server(void *arg)
{
	struct ring_pair *rp = arg;
	void *obj;

	while (!__atomic_load_n(&rp->stop, __ATOMIC_RELAXED)) {
		if (rte_ring_sc_dequeue(rp->req, &obj) != 0)
			continue;
		while (rte_ring_sp_enqueue(rp->resp, obj) != 0)
			rte_pause();
	}
	return 0;
}

static int
ring_run(const struct rpcperf_config *cfg, struct rpcperf_samples *s)
{
	struct ring_pair rp = { 0 };
	uint64_t i, t0, start = 0;
	void *obj;
	int ret = -1;

	rp.req = rte_ring_create("rpcperf_req", 64, rte_socket_id(),
			RING_F_SP_ENQ | RING_F_SC_DEQ);
	rp.resp = rte_ring_create("rpcperf_resp", 64, rte_socket_id(),
			RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (rp.req == NULL || rp.resp == NULL) {
		fprintf(stderr, "rpcperf: ring: %s\n",
			rte_strerror(rte_errno));
		goto out;
	}
	if (rte_eal_remote_launch(ring_server, &rp,
			cfg->server_lcores[0]) != 0) {
		fprintf(stderr, "rpcperf: lcore %u is busy\n",
			cfg->server_lcores[0]);
		goto out;
	}
	for (i = 0; i < cfg->warmup + cfg->iters; i++) {
		if (i == cfg->warmup)
			start = rte_rdtsc();
		t0 = rte_rdtsc();
		while (rte_ring_sp_enqueue(rp.req, (void *)(uintptr_t)(i + 1))
				!= 0)
			rte_pause();
		while (rte_ring_sc_dequeue(rp.resp, &obj) != 0)
			;
		if (i >= cfg->warmup)
			rpcperf_sample_add(s, rte_rdtsc() - t0);
		rpcperf_progress(cfg, s->workload, i + 1,
				cfg->warmup + cfg->iters);
		if (obj != (void *)(uintptr_t)(i + 1)) {
			fprintf(stderr, "rpcperf: ring: wrong reply\n");
			break;
		}
	}
	s->elapsed = rte_rdtsc() - start;
	__atomic_store_n(&rp.stop, true, __ATOMIC_RELAXED);
	rte_eal_wait_lcore(cfg->server_lcores[0]);
	ret = i == cfg->warmup + cfg->iters ? 0 : -1;
out:
	rte_ring_free(rp.req);
	rte_ring_free(rp.resp);
	return ret;
}

const struct rpcperf_workload rpcperf_wl_ring = {
	.name = "ring",
	.help = "baseline: raw rte_ring ping-pong between the two lcores",
	.one_at_a_time = true,
	.eth_only = true,
	.run = ring_run,
};
