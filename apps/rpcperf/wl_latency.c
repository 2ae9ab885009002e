/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * latency: one echo RPC at a time over one session, per client lcore; each
 * sample is the time from pmr_request() to its continuation, which sends
 * the next one. Comparable with the ring baseline.
 */

#include "rpcperf.h"

static void
latency_spec(const struct rpcperf_config *cfg,
		struct rpcperf_rate_spec *spec)
{
	*spec = (struct rpcperf_rate_spec){
		.req_type = RPCPERF_REQ_ECHO,
		.sessions = 1,
		.concurrency = 1,
		.size = rpcperf_size_fixed,
		.max_size = cfg->size,
	};
}

const struct rpcperf_workload rpcperf_wl_latency = {
	.name = "latency",
	.help = "one echo RPC at a time: round-trip percentiles",
	.one_at_a_time = true,
	.spec = latency_spec,
};
