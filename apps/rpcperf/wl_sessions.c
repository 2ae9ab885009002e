/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * sessions: --sessions sessions from the client lcore (up to 20,000), with
 * --concurrency 32-byte echo RPCs outstanding, each sent on the next
 * session in turn: the rate at that many sessions, and the client worker's
 * memory per session. Sessions the server's receive depth cannot admit
 * (each reserves its credits) are reported, and the run goes on with the
 * admitted ones.
 */

#include "rpcperf.h"

static void
sessions_spec(const struct rpcperf_config *cfg,
		struct rpcperf_rate_spec *spec)
{
	*spec = (struct rpcperf_rate_spec){
		.req_type = RPCPERF_REQ_ECHO,
		.sessions = cfg->sessions,
		.concurrency = cfg->concurrency,
		.partial_ok = true,
		.report_memory = true,
		.size = rpcperf_size_fixed,
		.max_size = cfg->size,
	};
}

const struct rpcperf_workload rpcperf_wl_sessions = {
	.name = "sessions",
	.help = "--sessions sessions (up to 20000), round robin: rate, memory",
	.one_at_a_time = false,
	.spec = sessions_spec,
};
