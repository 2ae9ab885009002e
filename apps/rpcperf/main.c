/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * rpcperf: pmrpc's benchmark, in the manner of testpmd and perftest.
 * EAL arguments, then "--", then rpcperf's own (see --help).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "pmr_config.h"
#include "pmr_transport.h"
#include "rpcperf.h"

/* --histogram: the CDF file and the rate file, or NULL. */
static FILE *cdf_csv;
static FILE *rate_csv;
static char rate_path[4096];

static int
histogram_open(const char *path)
{
	if (rpcperf_rate_path(path, rate_path, sizeof(rate_path)) != 0) {
		fprintf(stderr, "rpcperf: --histogram=%s: name too long\n",
			path);
		return -1;
	}
	cdf_csv = fopen(path, "w");
	if (cdf_csv == NULL) {
		fprintf(stderr, "rpcperf: --histogram=%s: %s\n", path,
			strerror(errno));
		return -1;
	}
	rate_csv = fopen(rate_path, "w");
	if (rate_csv == NULL) {
		fprintf(stderr, "rpcperf: %s: %s\n", rate_path,
			strerror(errno));
		fclose(cdf_csv);
		cdf_csv = NULL;
		return -1;
	}
	fprintf(cdf_csv, "workload,percentile,latency_us\n");
	fprintf(rate_csv, "workload,time_s,done,mrps\n");
	return 0;
}

/* Close f; -1 if anything written to it was lost. */
static int
csv_close(FILE *f, const char *path)
{
	int bad;

	if (f == NULL)
		return 0;
	bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		fprintf(stderr, "rpcperf: %s: write failed\n", path);
		return -1;
	}
	return 0;
}

static int
histogram_close(const char *path)
{
	int ret;

	ret = csv_close(cdf_csv, path);
	ret |= csv_close(rate_csv, rate_path);
	cdf_csv = NULL;
	rate_csv = NULL;
	return ret;
}

/* A baseline: the whole run in its run(). */
static int
run_baseline(const struct rpcperf_config *cfg,
		const struct rpcperf_workload *wl, struct rpcperf_result *r)
{
	struct rpcperf_samples s;
	int ret;

	if (rpcperf_samples_init(&s, cfg->iters) != 0) {
		fprintf(stderr, "rpcperf: no memory for %lu samples\n",
			(unsigned long)cfg->iters);
		return -1;
	}
	s.workload = wl->name;
	rpcperf_progress_begin(cfg);
	ret = wl->run(cfg, &s);
	rpcperf_progress_end(ret == 0 ? rate_csv : NULL, wl->name);
	if (ret == 0) {
		s.sessions = 0;
		ret = rpcperf_merge(&s, 1, rte_get_tsc_hz(), r, cdf_csv);
		r->lcores[0].lcore = (int)rte_get_main_lcore();
	}
	rpcperf_samples_free(&s);
	return ret;
}

/* An RPC workload: its clients on the client lcores. */
static int
run_rpc(const struct rpcperf_config *cfg, const struct rpcperf_workload *wl,
		struct rpcperf_result *r)
{
	struct rpcperf_run run;
	int ret;

	ret = rpcperf_run_up(&run, cfg, wl, false);
	if (ret == 0) {
		rpcperf_progress_begin(cfg);
		rpcperf_run_start(&run);
		ret = rpcperf_run_wait(&run);
		if (ret == 0 && rpcperf_stop_asked()) {
			fprintf(stderr, "rpcperf: %s: stopped by a signal after "
				"%" PRIu64 " of %" PRIu64 " round trips\n",
				wl->name, rpcperf_run_done(&run),
				run.total * run.nb_clients);
			ret = -EINTR;
		}
		rpcperf_progress_end(ret == 0 ? rate_csv : NULL, wl->name);
	} else {
		fprintf(stderr, "rpcperf: %s: %s\n", wl->name,
			strerror(-ret));
	}
	if (ret == 0)
		ret = rpcperf_run_results(&run, r, cdf_csv);
	else if (run.nb_clients != 0)
		/* What it counted before failing says why: resets, ... */
		rpcperf_run_counts(&run, r);
	r->has_path = wl->path_counters;
	rpcperf_run_down(&run);
	if (ret == 0 && r->verify_errors != 0) {
		fprintf(stderr, "rpcperf: %s: --verify: %" PRIu64 " RPCs "
			"failed their check\n", wl->name, r->verify_errors);
		ret = -EBADMSG;
	}
	return ret;
}

static int
run_one(const struct rpcperf_config *cfg, const struct rpcperf_workload *wl,
		struct rpcperf_result *r)
{
	/* Named even when it fails: the table and the JSON list it. */
	memset(r, 0, sizeof(*r));
	snprintf(r->workload, sizeof(r->workload), "%s", wl->name);
	r->one_at_a_time = wl->one_at_a_time;
	r->size = cfg->size;
	r->lcore = -1;
	if (!cfg->quiet)
		fprintf(stderr, "rpcperf: running %s (%lu round trips%s)...\n",
			wl->name, (unsigned long)(cfg->warmup + cfg->iters),
			wl->run == NULL && cfg->nb_client_lcores > 1 ?
			" per client lcore" : "");
	return wl->run != NULL ? run_baseline(cfg, wl, r) :
		run_rpc(cfg, wl, r);
}

static void
lcores_str(char *buf, size_t len, const unsigned int *ids, unsigned int n)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u",
			i != 0 ? "," : "", ids[i]);
}

static void
banner(const struct rpcperf_config *cfg)
{
	char cl[128], sl[128];

	lcores_str(cl, sizeof(cl), cfg->client_lcores, cfg->nb_client_lcores);
	lcores_str(sl, sizeof(sl), cfg->server_lcores, cfg->nb_server_lcores);
	if (cfg->mode == RPCPERF_SERVER)
		fprintf(stderr, "rpcperf %s: server, %u %s workers on lcores "
			"%s, TSC %.3f GHz\n", PMR_VERSION_STR, cfg->nb_devargs,
			cfg->driver, sl, rte_get_tsc_hz() / 1e9);
	else if (cfg->mode == RPCPERF_CLIENT)
		fprintf(stderr, "rpcperf %s: client of %s on lcores %s, %s, "
			"%u-byte payload, TSC %.3f GHz\n", PMR_VERSION_STR,
			cfg->connect, cl, cfg->driver, cfg->size,
			rte_get_tsc_hz() / 1e9);
	else
		fprintf(stderr, "rpcperf %s: clients on lcores %s, servers on "
			"lcores %s, %s, %u-byte payload, TSC %.3f GHz%s\n",
			PMR_VERSION_STR, cl, sl, cfg->driver, cfg->size,
			rte_get_tsc_hz() / 1e9,
			cfg->yield ? ", lcores share CPUs (idle polls yield)" :
			"");
}

/*
 * In-process, every worker's queue is made from --driver-args alone: one
 * queue made and destroyed now says whether they can work, once, before
 * any run, as a bad --devargs does with --connect.
 */
static int
driver_probe(const struct rpcperf_config *cfg)
{
	struct pmr_transport_queue *q;

	q = pmr_transport_queue_create(pmr_transport_find(cfg->driver),
			cfg->driver_args, (int)rte_socket_id());
	if (q == NULL) {
		fprintf(stderr, "rpcperf: --driver=%s --driver-args='%s': no "
			"queue: %s (doc/drivers.md; pmr-devinfo lists the "
			"devices)\n", cfg->driver, cfg->driver_args,
			rte_strerror(rte_errno));
		return -1;
	}
	pmr_transport_queue_destroy(q);
	return 0;
}

/*
 * rte_eal_init() with its stdout held back: on a bad EAL option it prints
 * its whole usage there (~80 lines) after the one line on stderr that
 * says what is wrong. Kept and passed on when it succeeds, dropped when
 * it fails. Returns what rte_eal_init() does, -rte_errno on failure.
 */
static int
eal_init(int argc, char **argv)
{
	FILE *held = tmpfile();
	int saved = -1, ret;
	char buf[4096];
	size_t n;

	fflush(stdout);
	if (held != NULL) {
		saved = dup(STDOUT_FILENO);
		if (saved >= 0 &&
		    dup2(fileno(held), STDOUT_FILENO) < 0) {
			close(saved);
			saved = -1;
		}
	}
	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		ret = -rte_errno;
	fflush(stdout);
	if (saved >= 0) {
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
	if (held != NULL) {
		if (ret >= 0) {
			rewind(held);
			while ((n = fread(buf, 1, sizeof(buf), held)) > 0)
				fwrite(buf, 1, n, stdout);
			fflush(stdout);
		}
		fclose(held);
	}
	return ret;
}

int
main(int argc, char **argv)
{
	struct rpcperf_result results[RPCPERF_MAX_WORKLOADS];
	struct rpcperf_config cfg;
	unsigned int i;
	int ret, failed = 0;

	/*
	 * --help works without EAL, before "--" too: "rpcperf --help" is
	 * rpcperf's usage, not EAL's (which the usage points to).
	 */
	for (i = 1; i < (unsigned int)argc; i++)
		if (strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "--help") == 0) {
			rpcperf_usage(argv[0]);
			return 0;
		}

	ret = eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "rpcperf: EAL init failed: %s (EAL options: "
			"rpcperf -h, then DPDK's EAL guide)\n",
			rte_strerror(-ret));
		return 2;
	}
	argc -= ret;
	argv += ret;
	argv[0] = (char *)(uintptr_t)"rpcperf";
	ret = rpcperf_parse_args(argc, argv, &cfg);
	/* Before anything runs, as every other bad value. */
	if (ret == 0 && pmr_faults_check(cfg.faults) != 0) {
		fprintf(stderr, "rpcperf: --faults=%s: not a fault "
			"specification: key=value,... with drop_tx, "
			"drop_rx, dup_tx, reorder_tx, reorder_rx (0 to 1) "
			"and seed, each once (doc/faults.md)\n", cfg.faults);
		ret = -EINVAL;
	}
	if (ret == 0 && rpcperf_lcores_resolve(&cfg) != 0)
		ret = -EINVAL;
	if (ret != 0) {
		rte_eal_cleanup();
		return ret > 0 ? 0 : 2;
	}
	if (!cfg.quiet)
		banner(&cfg);
	if (cfg.mode == RPCPERF_SERVER) {
		ret = rpcperf_server_main(&cfg);
		rte_eal_cleanup();
		return ret;
	}
	/* So are --driver-args that make no queue (eth's need a port). */
	if (cfg.mode == RPCPERF_INPROC && strcmp(cfg.driver, "eth") != 0 &&
	    driver_probe(&cfg) != 0) {
		rte_eal_cleanup();
		return 2;
	}
	/* A --devargs or --nexus that cannot work is a setup error. */
	if (cfg.mode == RPCPERF_CLIENT && rpcperf_client_setup(&cfg) != 0) {
		rpcperf_run_cleanup();
		rte_eal_cleanup();
		return 2;
	}
	if (cfg.interactive) {
		ret = rpcperf_interactive(&cfg);
		rpcperf_run_cleanup();
		rte_eal_cleanup();
		return ret;
	}
	if (cfg.histogram != NULL && histogram_open(cfg.histogram) != 0) {
		rte_eal_cleanup();
		return 2;
	}

	rpcperf_stop_signals();
	for (i = 0; i < cfg.nb_workloads && !rpcperf_stop_asked(); i++) {
		const struct rpcperf_workload *wl =
			rpcperf_workload_find(cfg.workloads[i]);

		if (run_one(&cfg, wl, &results[i]) != 0)
			failed++;
	}
	/* Stopped: the table and the JSON have the workloads that ran. */
	if (i < cfg.nb_workloads) {
		failed++;
		cfg.nb_workloads = i;
	}

	if (cfg.json) {
		if (rpcperf_print_json(stdout, &cfg, results,
				cfg.nb_workloads) != 0)
			failed++;
		goto out;
	}
	rpcperf_print_header(cfg.verify);
	for (i = 0; i < cfg.nb_workloads; i++)
		rpcperf_print_result(&results[i], cfg.verify);
	rpcperf_print_ratios(results, cfg.nb_workloads);
	rpcperf_print_paths(results, cfg.nb_workloads);
out:
	for (i = 0; i < cfg.nb_workloads; i++)
		rpcperf_result_free(&results[i]);
	rpcperf_run_cleanup();
	if (histogram_close(cfg.histogram) != 0)
		failed++;
	rte_eal_cleanup();
	return failed != 0 ? 1 : 0;
}
