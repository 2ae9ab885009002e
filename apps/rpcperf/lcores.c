/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Which lcores run the server and the client: --server-lcores and
 * --client-lcores ("1,3-4"), their defaults, and the checks against the
 * lcores EAL was given.
 */

#define _GNU_SOURCE	/* cpu sets */
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>

#include "rpcperf.h"

static bool
listed(const unsigned int *ids, unsigned int n, unsigned int id)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

static int
lcore_num(const char **p, unsigned int *out)
{
	unsigned long v;
	char *end;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	v = strtoul(*p, &end, 10);
	if (errno != 0 || v >= RTE_MAX_LCORE)
		return -EINVAL;
	*p = end;
	*out = (unsigned int)v;
	return 0;
}

/* "1", "0,2", "2-5,7": ids in the order given, no repeats. */
int
rpcperf_lcores_parse(const char *opt, const char *list, unsigned int *ids,
		unsigned int *n)
{
	const char *p = list;
	unsigned int a, b, id;

	*n = 0;
	for (;;) {
		if (lcore_num(&p, &a) != 0)
			goto bad;
		b = a;
		if (*p == '-') {
			p++;
			if (lcore_num(&p, &b) != 0 || b < a)
				goto bad;
		}
		for (id = a; id <= b; id++) {
			if (listed(ids, *n, id)) {
				fprintf(stderr, "rpcperf: --%s=%s: lcore %u "
					"twice\n", opt, list, id);
				return -EINVAL;
			}
			if (*n == RPCPERF_MAX_LCORES) {
				fprintf(stderr, "rpcperf: --%s=%s: at most %d "
					"lcores\n", opt, list,
					RPCPERF_MAX_LCORES);
				return -EINVAL;
			}
			ids[(*n)++] = id;
		}
		if (*p == '\0')
			return 0;
		if (*p++ != ',')
			goto bad;
	}
bad:
	fprintf(stderr, "rpcperf: --%s=%s: expected lcore ids below %d, "
		"like 1 or 1,3-4\n", opt, list, RTE_MAX_LCORE);
	return -EINVAL;
}

/* The first n enabled lcores not in taken[] (the main one if main_ok). */
static void
lcores_pick(unsigned int *ids, unsigned int *n, unsigned int want,
		const unsigned int *taken, unsigned int nb_taken, bool main_ok)
{
	unsigned int id;

	*n = 0;
	RTE_LCORE_FOREACH(id) {
		if (*n == want)
			break;
		if ((!main_ok && id == rte_get_main_lcore()) ||
		    listed(taken, nb_taken, id))
			continue;
		ids[(*n)++] = id;
	}
}

static int
lcores_check(const char *opt, const unsigned int *ids, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!rte_lcore_is_enabled(ids[i])) {
			fprintf(stderr, "rpcperf: --%s: lcore %u is not one "
				"of EAL's (-l, --lcores)\n", opt, ids[i]);
			return -EINVAL;
		}
	return 0;
}

/* Fewer CPUs than lcores (--lcores='(0-3)@(0-1)'): pollers must yield. */
static bool
oversubscribed(void)
{
	rte_cpuset_t cpus, one;
	unsigned int id;
	int c;

	CPU_ZERO(&cpus);
	RTE_LCORE_FOREACH(id) {
		one = rte_lcore_cpuset(id);
		for (c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &one))
				CPU_SET(c, &cpus);
	}
	return (unsigned int)CPU_COUNT(&cpus) < rte_lcore_count();
}

static int
resolve_server(struct rpcperf_config *cfg)
{
	if (cfg->nb_server_lcores == 0)
		lcores_pick(cfg->server_lcores, &cfg->nb_server_lcores,
			RTE_MIN(cfg->nb_devargs, rte_lcore_count()), NULL, 0,
			true);
	if (cfg->nb_server_lcores > cfg->nb_devargs) {
		fprintf(stderr, "rpcperf: --server: %u server lcores for %u "
			"workers (--devargs): one worker per lcore at least\n",
			cfg->nb_server_lcores, cfg->nb_devargs);
		return -EINVAL;
	}
	return 0;
}

/*
 * --connect: the server's worker of each client lcore. --remote-worker
 * gives one for all or one each; without it, client lcore k talks to
 * worker k % --remote-workers.
 */
static int
remote_workers_resolve(struct rpcperf_config *cfg)
{
	unsigned int k, n = cfg->nb_remote_worker;

	if (n > 1 && n != cfg->nb_client_lcores) {
		fprintf(stderr, "rpcperf: --remote-worker: %u worker ids for "
			"%u client lcores: one for all, or one each\n", n,
			cfg->nb_client_lcores);
		return -EINVAL;
	}
	for (k = 0; k < cfg->nb_client_lcores; k++)
		cfg->remote_worker[k] = n == 0 ? k % cfg->remote_workers :
			cfg->remote_worker[n == 1 ? 0 : k];
	cfg->nb_remote_worker = cfg->nb_client_lcores;
	return 0;
}

int
rpcperf_lcores_resolve(struct rpcperf_config *cfg)
{
	unsigned int main_lcore = rte_get_main_lcore(), i;
	int ret;

	ret = lcores_check("server-lcores", cfg->server_lcores,
			cfg->nb_server_lcores);
	if (ret == 0)
		ret = lcores_check("client-lcores", cfg->client_lcores,
				cfg->nb_client_lcores);
	if (ret != 0)
		return ret;
	cfg->yield = oversubscribed();
	if (cfg->mode == RPCPERF_SERVER)
		return resolve_server(cfg);

	/* In-process, the server first: it takes the first free lcore. */
	if (cfg->mode == RPCPERF_INPROC && cfg->nb_server_lcores == 0)
		lcores_pick(cfg->server_lcores, &cfg->nb_server_lcores, 1,
			cfg->client_lcores, cfg->nb_client_lcores, false);
	if (cfg->nb_client_lcores == 0) {
		if (cfg->interactive)
			lcores_pick(cfg->client_lcores, &cfg->nb_client_lcores,
				1, cfg->server_lcores, cfg->nb_server_lcores,
				false);
		else
			cfg->client_lcores[cfg->nb_client_lcores++] =
				main_lcore;
	}
	if (cfg->mode == RPCPERF_INPROC && cfg->nb_server_lcores == 0) {
		fprintf(stderr, "rpcperf: needs a server lcore besides the "
			"main one (EAL -l 0-1, or --server-lcores)\n");
		return -EINVAL;
	}
	if (cfg->nb_client_lcores == 0) {
		fprintf(stderr, "rpcperf: -i needs a client lcore besides "
			"the main one, which runs the prompt, and the server's "
			"(EAL -l 0-2, or --lcores='0@0,1@1,2@0' on two "
			"cores)\n");
		return -EINVAL;
	}
	for (i = 0; i < cfg->nb_server_lcores; i++) {
		if (cfg->server_lcores[i] == main_lcore) {
			fprintf(stderr, "rpcperf: --server-lcores: not the "
				"main lcore %u in-process: it runs the "
				"baselines' client\n", main_lcore);
			return -EINVAL;
		}
		if (listed(cfg->client_lcores, cfg->nb_client_lcores,
				cfg->server_lcores[i])) {
			fprintf(stderr, "rpcperf: lcore %u is in both "
				"--server-lcores and --client-lcores\n",
				cfg->server_lcores[i]);
			return -EINVAL;
		}
	}
	if (cfg->interactive &&
	    listed(cfg->client_lcores, cfg->nb_client_lcores, main_lcore)) {
		fprintf(stderr, "rpcperf: -i: the main lcore %u runs the "
			"prompt, not a client\n", main_lcore);
		return -EINVAL;
	}
	if (cfg->mode == RPCPERF_CLIENT &&
	    cfg->nb_devargs != cfg->nb_client_lcores) {
		fprintf(stderr, "rpcperf: --connect: %u --devargs for %u "
			"client lcores: one each\n", cfg->nb_devargs,
			cfg->nb_client_lcores);
		return -EINVAL;
	}
	if (cfg->mode == RPCPERF_CLIENT)
		return remote_workers_resolve(cfg);
	return 0;
}
