/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * mixed: echo RPCs of sizes drawn from a fixed distribution, as a service
 * with mostly small calls and some bulk sees: 80% 32 B, 15% 1 KiB (still
 * one packet), 4% 16 KiB, 1% 256 KiB; --concurrency outstanding. The
 * Gb/s column uses the mean size (about 3.5 KiB).
 */

#include "rpcperf.h"

static uint32_t
mixed_size(const struct rpcperf_config *cfg, uint64_t i)
{
	/* A fixed pseudo-random order, the same in every run. */
	uint32_t r = (uint32_t)((i * 2654435761u) >> 7) % 100;

	(void)cfg;
	if (r < 80)
		return 32;
	if (r < 95)
		return 1024;
	if (r < 99)
		return 16 * 1024;
	return 256 * 1024;
}

static void
mixed_spec(const struct rpcperf_config *cfg, struct rpcperf_rate_spec *spec)
{
	*spec = (struct rpcperf_rate_spec){
		.req_type = RPCPERF_REQ_ECHO,
		.sessions = cfg->sessions,
		.concurrency = cfg->concurrency,
		.size = mixed_size,
		.max_size = 256 * 1024,
	};
}

const struct rpcperf_workload rpcperf_wl_mixed = {
	.name = "mixed",
	.help = "echo RPCs: 80% 32 B, 15% 1 KiB, 4% 16 KiB, 1% 256 KiB",
	.one_at_a_time = false,
	.path_counters = true,
	.spec = mixed_spec,
};
