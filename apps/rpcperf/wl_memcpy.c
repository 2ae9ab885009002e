/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * memcpy: the baseline for large messages. Copies --size bytes from one
 * buffer to another on the main lcore, as the engine copies each packet
 * of a multi-packet message into its destination once: the bandwidth an
 * RPC of that size cannot beat on this machine.
 */

#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "rpcperf.h"

static int
memcpy_run(const struct rpcperf_config *cfg, struct rpcperf_samples *s)
{
	size_t len = cfg->size != 0 ? cfg->size : 1;
	uint8_t *src, *dst;
	uint64_t i, t0, start = 0;

	src = rte_malloc("rpcperf_src", len, RTE_CACHE_LINE_SIZE);
	dst = rte_malloc("rpcperf_dst", len, RTE_CACHE_LINE_SIZE);
	if (src == NULL || dst == NULL) {
		rte_free(src);
		rte_free(dst);
		return -ENOMEM;
	}
	memset(src, 0x5a, len);
	memset(dst, 0, len);
	for (i = 0; i < cfg->warmup + cfg->iters; i++) {
		if (i == cfg->warmup)
			start = rte_rdtsc();
		t0 = rte_rdtsc();
		src[i % len] = (uint8_t)i;	/* not a copy of a copy */
		memcpy(dst, src, len);
		if (i >= cfg->warmup)
			rpcperf_sample_add(s, rte_rdtsc() - t0);
		rpcperf_progress(cfg, s->workload, i + 1,
				cfg->warmup + cfg->iters);
	}
	s->elapsed = rte_rdtsc() - start;
	if (dst[(i - 1) % len] != (uint8_t)(i - 1))
		fprintf(stderr, "rpcperf: memcpy: copy lost\n");
	rte_free(src);
	rte_free(dst);
	return 0;
}

const struct rpcperf_workload rpcperf_wl_memcpy = {
	.name = "memcpy",
	.help = "baseline: memcpy of --size bytes, for large-message bandwidth",
	.one_at_a_time = false,
	.run = memcpy_run,
};
