/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * rpcperf: pmrpc's benchmark, in the manner of testpmd and perftest.
 * EAL arguments, then "--", then rpcperf's own (see --help).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "pmr_config.h"
#include "rpcperf.h"

static int
run_one(const struct rpcperf_config *cfg, const struct rpcperf_workload *wl,
		struct rpcperf_result *r)
{
	struct rpcperf_samples s;
	int ret;

	if (rpcperf_samples_init(&s, cfg->iters) != 0) {
		fprintf(stderr, "rpcperf: no memory for %lu samples\n",
			(unsigned long)cfg->iters);
		return -1;
	}
	if (!cfg->quiet)
		fprintf(stderr, "rpcperf: running %s (%lu round trips)...\n",
			wl->name, (unsigned long)(cfg->warmup + cfg->iters));
	memset(r, 0, sizeof(*r));
	ret = wl->run(cfg, &s);
	snprintf(r->workload, sizeof(r->workload), "%s", wl->name);
	r->one_at_a_time = wl->one_at_a_time;
	r->size = cfg->size;
	if (ret == 0)
		rpcperf_summarize(&s, rte_get_tsc_hz(), r);
	rpcperf_samples_free(&s);
	return ret;
}

int
main(int argc, char **argv)
{
	struct rpcperf_result results[RPCPERF_MAX_WORKLOADS];
	const struct rpcperf_result *base = NULL;
	struct rpcperf_config cfg;
	unsigned int i;
	int ret, failed = 0;

	/* --help works without EAL. */
	for (i = 1; i < (unsigned int)argc; i++)
		if (strcmp(argv[i], "--") == 0)
			break;
	for (i = i + 1; i < (unsigned int)argc; i++)
		if (strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "--help") == 0) {
			rpcperf_usage(argv[0]);
			return 0;
		}

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "rpcperf: EAL init failed: %s\n",
			rte_strerror(rte_errno));
		return 2;
	}
	argc -= ret;
	argv += ret;
	argv[0] = (char *)(uintptr_t)"rpcperf";
	ret = rpcperf_parse_args(argc, argv, &cfg);
	if (ret != 0) {
		rte_eal_cleanup();
		return ret > 0 ? 0 : 2;
	}
	if (cfg.server_lcore == RTE_MAX_LCORE)
		cfg.server_lcore = rte_get_next_lcore(-1, 1, 0);
	if (cfg.server_lcore >= RTE_MAX_LCORE ||
	    !rte_lcore_is_enabled(cfg.server_lcore) ||
	    cfg.server_lcore == rte_get_main_lcore()) {
		fprintf(stderr, "rpcperf: needs a server lcore besides the "
			"main one (EAL -l 0-1, or --server-lcore)\n");
		rte_eal_cleanup();
		return 2;
	}
	if (!cfg.quiet)
		fprintf(stderr, "rpcperf %s: client on lcore %u, server on "
			"lcore %u, %u-byte payload, TSC %.3f GHz\n",
			PMR_VERSION_STR, rte_lcore_id(), cfg.server_lcore,
			cfg.size, rte_get_tsc_hz() / 1e9);

	for (i = 0; i < cfg.nb_workloads; i++) {
		const struct rpcperf_workload *wl =
			rpcperf_workload_find(cfg.workloads[i]);

		if (run_one(&cfg, wl, &results[i]) != 0)
			failed++;
	}

	rpcperf_print_header();
	for (i = 0; i < cfg.nb_workloads; i++) {
		rpcperf_print_result(&results[i]);
		if (strcmp(results[i].workload, "ring") == 0 &&
		    results[i].iters != 0)
			base = &results[i];
	}
	for (i = 0; base != NULL && i < cfg.nb_workloads; i++) {
		if (&results[i] == base || results[i].iters == 0 ||
		    !results[i].one_at_a_time)
			continue;
		printf("%s/ring: p50 %.2fx, p99 %.2fx\n",
			results[i].workload, results[i].p50 / base->p50,
			results[i].p99 / base->p99);
	}
	rte_eal_cleanup();
	return failed != 0 ? 1 : 0;
}
