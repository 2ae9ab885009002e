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

#include <stdio.h>

#include "rpcperf.h"

static int
sessions_run(const struct rpcperf_config *cfg, struct rpcperf_samples *s)
{
	const struct rpcperf_rate_spec spec = {
		.req_type = RPCPERF_REQ_ECHO,
		.sessions = cfg->sessions,
		.partial_ok = true,
		.size = rpcperf_size_fixed,
		.max_size = cfg->size,
	};
	int ret = rpcperf_rate_run(cfg, s, &spec);

	if (ret == 0)
		fprintf(stderr, "rpcperf: sessions: %u sessions, client worker "
			"%zu KiB, %zu bytes per session (fixed pools "
			"included)\n", s->sessions, s->client_heap / 1024,
			s->sessions != 0 ? s->client_heap / s->sessions : 0);
	return ret;
}

const struct rpcperf_workload rpcperf_wl_sessions = {
	.name = "sessions",
	.help = "--sessions sessions (up to 20000), round robin: rate, memory",
	.one_at_a_time = false,
	.run = sessions_run,
};
