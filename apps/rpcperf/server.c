/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * --server: the server side alone, for clients in other processes or on
 * other hosts (--connect). A nexus on --nexus, the echo and sink handlers,
 * a worker per --devargs (ids 0, 1, ...) spread over the server lcores,
 * until SIGINT or SIGTERM or --duration. A line of counts each second
 * (not with --quiet), a table per worker at the end.
 */

#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "pmr_config.h"
#include "rpcperf.h"

struct server {
	const struct rpcperf_config *cfg;
	struct pmr_nexus *nx;
	struct pmr_worker *w[RPCPERF_MAX_LCORES];
	unsigned int nb_workers;
	struct rpcperf_poller p[RPCPERF_MAX_LCORES];
	bool launched[RPCPERF_MAX_LCORES];
	bool stop;
};

static uint64_t
handled(const struct server *sv)
{
	struct pmr_worker_stats st;
	uint64_t n = 0;
	unsigned int k;

	for (k = 0; k < sv->nb_workers; k++) {
		pmr_worker_stats_get(sv->w[k], &st);
		n += st.reqs_handled;
	}
	return n;
}

static int
server_up(struct server *sv)
{
	const struct rpcperf_config *cfg = sv->cfg;
	struct pmr_worker_conf conf;
	char uri[64];
	unsigned int k;

	/* Sized as the clients are, by -s (mixed: 256 KiB) and -c. */
	rpcperf_worker_conf(cfg, RTE_MAX(cfg->size, 256u * 1024),
			cfg->concurrency, 1023, &conf);

	if (cfg->nexus == NULL)
		snprintf(uri, sizeof(uri), "127.0.0.1:%d", RPCPERF_NEXUS_PORT);
	/*
	 * A benchmark server serves one client process at a time, which may
	 * open up to 20,000 sessions per lcore (--sessions): the per-source
	 * cap is lifted; the workers' max_sessions still bound them.
	 */
	sv->nx = rpcperf_nexus_create(cfg, cfg->nexus != NULL ? cfg->nexus :
			uri, true);
	if (sv->nx == NULL) {
		fprintf(stderr, "rpcperf: nexus on %s: %s\n",
			cfg->nexus != NULL ? cfg->nexus : uri,
			rte_strerror(rte_errno));
		return -1;
	}
	if (rpcperf_handlers_register(sv->nx) != 0)
		return -1;
	for (k = 0; k < cfg->nb_devargs; k++) {
		conf.worker_id = (uint16_t)k;
		conf.devargs = cfg->devargs[k];
		sv->w[k] = pmr_worker_create(sv->nx, &conf);
		if (sv->w[k] == NULL) {
			fprintf(stderr, "rpcperf: %s worker %u on '%s': %s\n",
				cfg->driver, k, cfg->devargs[k],
				rte_strerror(rte_errno));
			return -1;
		}
		sv->nb_workers = k + 1;
	}
	/* Worker k on server lcore k % nb_server_lcores. */
	for (k = 0; k < cfg->nb_server_lcores; k++) {
		sv->p[k].lcore = cfg->server_lcores[k];
		sv->p[k].yield = cfg->yield;
		sv->p[k].stop = &sv->stop;
	}
	for (k = 0; k < sv->nb_workers; k++) {
		struct rpcperf_poller *p = &sv->p[k % cfg->nb_server_lcores];

		p->w[p->n++] = sv->w[k];
	}
	return 0;
}

/*
 * The table per worker, and the nexus's line; returns the requests of
 * --verify clients that differed from their pattern, all workers.
 */
static uint64_t
print_table(const struct server *sv, double secs)
{
	static const struct pmr_worker_stats zero;
	struct rpcperf_drv_drops drv[RPCPERF_MAX_LCORES];
	struct pmr_worker_stats st, sum;
	struct pmr_nexus_stats nst;
	struct rpcperf_path path;
	uint64_t drv_sum = 0, verr, verr_sum = 0;
	unsigned int k, i;
	char who[32];

	memset(&sum, 0, sizeof(sum));
	memset(&path, 0, sizeof(path));
	printf("%-8s %6s %12s %12s %12s %12s %10s %10s %10s\n", "worker",
		"lcore", "requests", "responses", "rx_pkts", "tx_pkts",
		"rx_drops", "Mrps", "verify_err");
	for (k = 0; k < sv->nb_workers; k++) {
		unsigned int lcore = sv->p[k % sv->cfg->nb_server_lcores].lcore;

		pmr_worker_stats_get(sv->w[k], &st);
		/* Its drops and its driver's. */
		rpcperf_drv_drops_get(sv->w[k], &drv[k]);
		drv_sum += drv[k].total;
		verr = rpcperf_server_verify_errors((uint16_t)k);
		verr_sum += verr;
		printf("%-8u %6u %12" PRIu64 " %12" PRIu64 " %12" PRIu64
			" %12" PRIu64 " %10" PRIu64 " %10.3f %10" PRIu64 "\n",
			k, lcore, st.reqs_handled, st.resps_sent, st.rx_pkts,
			st.tx_pkts, st.rx_drops + drv[k].total,
			secs > 0 ? st.reqs_handled / secs / 1e6 : 0, verr);
		sum.reqs_handled += st.reqs_handled;
		sum.resps_sent += st.resps_sent;
		sum.rx_pkts += st.rx_pkts;
		sum.tx_pkts += st.tx_pkts;
		sum.rx_drops += st.rx_drops;
		rpcperf_path_add(&path, sv->w[k], &zero);
		for (i = 0; i < RTE_DIM(st.drops); i++)
			sum.drops[i] += st.drops[i];
	}
	printf("%-8s %6s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12"
		PRIu64 " %10" PRIu64 " %10.3f %10" PRIu64 "\n", "total", "",
		sum.reqs_handled, sum.resps_sent, sum.rx_pkts, sum.tx_pkts,
		sum.rx_drops + drv_sum,
		secs > 0 ? sum.reqs_handled / secs / 1e6 : 0, verr_sum);
	/* Remotes (clients' nexuses) found dead, and why sessions went. */
	memset(&nst, 0, sizeof(nst));
	pmr_nexus_stats_get(sv->nx, &nst);
	printf("nexus: peers_dead %" PRIu64 ", sessions_reset %" PRIu64
		", alive_by_data %" PRIu64 ", sessions_accepted %" PRIu64
		"\n", nst.peers_dead, nst.sessions_reset, nst.alive_by_data,
		nst.sessions_accepted);
	/* Requests read by READ, responses offered, over the uptime. */
	printf("path: reads %" PRIu64 ", read_bytes %" PRIu64
		", read_errors %" PRIu64 ", descs_sent %" PRIu64
		", fallbacks %" PRIu64 ", copied_bytes %" PRIu64 "\n",
		path.reads, path.read_bytes, path.read_errors,
		path.descs_sent, path.fallbacks, path.copied_bytes);
	rpcperf_drops_print("server", &sum, &zero);
	for (k = 0; k < sv->nb_workers; k++) {
		snprintf(who, sizeof(who), "server worker %u", k);
		rpcperf_drv_drops_print(who, &drv[k], NULL);
	}
	return verr_sum;
}

/*
 * The main lcore: its own workers if it is a server lcore, else a sleep;
 * the clock, the signals and the progress line either way.
 */
static void
main_loop(struct server *sv, const struct rpcperf_poller *mine)
{
	const struct rpcperf_config *cfg = sv->cfg;
	uint64_t hz = rte_get_tsc_hz(), start = rte_rdtsc();
	uint64_t next = start + hz, end = 0, last = 0, now, n;
	unsigned int i, polls = 0;

	if (cfg->duration != 0)
		end = start + cfg->duration * hz;
	while (!rpcperf_stop_asked()) {
		if (mine != NULL) {
			unsigned int work = 0;

			for (i = 0; i < mine->n; i++)
				work += pmr_worker_poll(mine->w[i]);
			if (work == 0 && mine->yield)
				sched_yield();
			if (++polls % 1024 != 0)
				continue;
		} else {
			usleep(10000);
		}
		now = rte_rdtsc();
		if (end != 0 && now >= end)
			break;
		if (now < next)
			continue;
		next += hz;
		n = handled(sv);
		if (!cfg->quiet)
			fprintf(stderr, "rpcperf: server: %" PRIu64 " requests, "
				"%.3f M/s\n", n, (double)(n - last) / 1e6);
		last = n;
	}
}

int
rpcperf_server_main(const struct rpcperf_config *cfg)
{
	struct server sv = { .cfg = cfg };
	const struct rpcperf_poller *mine = NULL;
	unsigned int k, main_lcore = rte_get_main_lcore();
	uint64_t start;
	int status = 0;

	rpcperf_stop_signals();
	if (server_up(&sv) != 0) {
		status = 2;
		goto out;
	}
	for (k = 0; k < cfg->nb_server_lcores; k++) {
		if (sv.p[k].lcore == main_lcore) {
			mine = &sv.p[k];
			continue;
		}
		if (rte_eal_remote_launch(rpcperf_poll_loop, &sv.p[k],
				sv.p[k].lcore) != 0) {
			fprintf(stderr, "rpcperf: lcore %u is busy\n",
				sv.p[k].lcore);
			status = 2;
			goto out;
		}
		sv.launched[k] = true;
	}
	/* Scripts wait for this line. */
	printf("ready: nexus %s, %u workers on %u lcores\n",
		pmr_nexus_uri(sv.nx), sv.nb_workers, cfg->nb_server_lcores);
	fflush(stdout);
	start = rte_rdtsc();
	main_loop(&sv, mine);
	__atomic_store_n(&sv.stop, true, __ATOMIC_RELAXED);
	for (k = 0; k < cfg->nb_server_lcores; k++)
		if (sv.launched[k])
			rte_eal_wait_lcore(sv.p[k].lcore);
	/* A --verify client's request that differed fails the server too. */
	if (print_table(&sv, (double)(rte_rdtsc() - start) /
			(double)rte_get_tsc_hz()) != 0)
		status = 1;
	memset(sv.launched, 0, sizeof(sv.launched));
out:
	__atomic_store_n(&sv.stop, true, __ATOMIC_RELAXED);
	for (k = 0; k < cfg->nb_server_lcores; k++)
		if (sv.launched[k])
			rte_eal_wait_lcore(sv.p[k].lcore);
	for (k = 0; k < sv.nb_workers; k++)
		if (pmr_worker_destroy(sv.w[k]) != 0) {
			fprintf(stderr, "rpcperf: server worker %u: msgbufs "
				"leaked\n", k);
			status = 1;
		}
	if (sv.nx != NULL)
		pmr_nexus_destroy(sv.nx);
	return status;
}
