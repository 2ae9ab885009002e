/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * bandwidth: large requests one way, --concurrency outstanding, each
 * answered with an empty response: the message bandwidth (Gb/s column) of
 * multi-packet transfers, next to the memcpy baseline. Use -s for the
 * message size (e.g. -s 1048576).
 */

#include "rpcperf.h"

static void
bandwidth_spec(const struct rpcperf_config *cfg,
		struct rpcperf_rate_spec *spec)
{
	*spec = (struct rpcperf_rate_spec){
		.req_type = RPCPERF_REQ_SINK,
		.sessions = cfg->sessions,
		.concurrency = cfg->concurrency,
		.size = rpcperf_size_fixed,
		.max_size = cfg->size,
	};
}

const struct rpcperf_workload rpcperf_wl_bandwidth = {
	.name = "bandwidth",
	.help = "--size-byte requests one way, empty responses: Gb/s",
	.one_at_a_time = false,
	.path_counters = true,
	.spec = bandwidth_spec,
};
