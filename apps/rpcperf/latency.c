/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/* Round-trip samples and their percentiles. */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "rpcperf.h"

int
rpcperf_samples_init(struct rpcperf_samples *s, uint64_t cap)
{
	/*
	 * The latest RPCPERF_SAMPLES_MAX at most (a ring, as with -i):
	 * -n 1000000000 would otherwise zero 8 GB before the first round
	 * trip (and take minutes where MALLOC_PERTURB_ makes calloc write
	 * every page).
	 */
	cap = RTE_MIN(cap, (uint64_t)RPCPERF_SAMPLES_MAX);
	memset(s, 0, sizeof(*s));
	s->workload = "?";
	s->cycles = calloc(cap != 0 ? cap : 1, sizeof(*s->cycles));
	if (s->cycles == NULL)
		return -1;
	s->cap = cap;
	return 0;
}

void
rpcperf_samples_reset(struct rpcperf_samples *s)
{
	s->n = 0;
	s->pos = 0;
	s->count = 0;
	s->bytes = 0;
}

void
rpcperf_samples_free(struct rpcperf_samples *s)
{
	free(s->cycles);
	memset(s, 0, sizeof(*s));
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Nearest-rank percentile: the smallest sample with at least pct percent
 * of the samples at or below it. The rank is computed in integers, pct in
 * millionths of a percent: in doubles, 99.9 / 100 * 1000 is a hair over
 * 999 and its ceiling took the max for p99.9 of 1000 samples.
 */
double
rpcperf_percentile(const uint64_t *sorted, uint64_t n, double pct)
{
	const uint64_t scale = 100000000;	/* 100 percent */
	unsigned __int128 k;
	uint64_t rank;

	if (n == 0)
		return 0;
	if (!(pct > 0))		/* NaN too */
		k = 0;
	else if (pct >= 100)
		k = scale;
	else
		k = (uint64_t)llround(pct * 1000000);
	rank = (uint64_t)((k * n + scale - 1) / scale);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return (double)sorted[rank - 1];
}

void
rpcperf_summarize(struct rpcperf_samples *s, uint64_t hz,
		struct rpcperf_result *r)
{
	double us = 1e6 / (double)hz;
	long double sum = 0;
	uint64_t i;

	r->iters = s->count;
	r->lcore = -1;
	/* What the workers saw, measured or not. */
	r->retransmissions = s->retransmissions;
	r->drops = s->drops;
	r->sessions = s->sessions;
	r->client_heap = s->client_heap;
	r->done = s->done;
	r->timeouts = s->timeouts;
	r->sessions_reset = s->sessions_reset;
	r->verify_errors = s->verify_errors;
	if (s->n == 0)
		return;
	qsort(s->cycles, s->n, sizeof(*s->cycles), cmp_u64);
	for (i = 0; i < s->n; i++)
		sum += s->cycles[i];
	r->min = (double)s->cycles[0] * us;
	r->max = (double)s->cycles[s->n - 1] * us;
	r->mean = (double)(sum / s->n) * us;
	r->p50 = rpcperf_percentile(s->cycles, s->n, 50) * us;
	r->p90 = rpcperf_percentile(s->cycles, s->n, 90) * us;
	r->p99 = rpcperf_percentile(s->cycles, s->n, 99) * us;
	r->p999 = rpcperf_percentile(s->cycles, s->n, 99.9) * us;
	r->mrps = s->elapsed != 0 ?
		(double)s->count / ((double)s->elapsed / (double)hz) / 1e6 : 0;
	r->gbps = s->bytes != 0 && s->elapsed != 0 ?
		(double)s->bytes * 8 / ((double)s->elapsed / (double)hz) / 1e9 :
		r->mrps * 1e6 * r->size * 8 / 1e9;
}

int
rpcperf_merge(struct rpcperf_samples *rows, unsigned int n, uint64_t hz,
		struct rpcperf_result *total, FILE *cdf_csv)
{
	struct rpcperf_samples all;
	uint64_t kept = 0, elapsed = 0;
	unsigned int k;
	int ret = 0;

	total->lcores = calloc(n != 0 ? n : 1, sizeof(*total->lcores));
	if (total->lcores == NULL)
		return -ENOMEM;
	total->nb_lcores = n;
	for (k = 0; k < n; k++)
		kept += rows[k].n;
	if (rpcperf_samples_init(&all, kept) != 0)
		return -ENOMEM;
	for (k = 0; k < n; k++) {
		struct rpcperf_result *r = &total->lcores[k];

		memcpy(all.cycles + all.n, rows[k].cycles,
			rows[k].n * sizeof(*all.cycles));
		all.n += rows[k].n;
		all.count += rows[k].count;
		all.bytes += rows[k].bytes;
		all.retransmissions += rows[k].retransmissions;
		all.drops += rows[k].drops;
		all.sessions += rows[k].sessions;
		all.client_heap += rows[k].client_heap;
		all.done += rows[k].done;
		all.timeouts += rows[k].timeouts;
		all.sessions_reset += rows[k].sessions_reset;
		all.verify_errors += rows[k].verify_errors;
		elapsed = RTE_MAX(elapsed, rows[k].elapsed);
		memcpy(r->workload, total->workload, sizeof(r->workload));
		r->one_at_a_time = total->one_at_a_time;
		r->size = total->size;
		rpcperf_summarize(&rows[k], hz, r);
	}
	all.elapsed = elapsed;
	rpcperf_summarize(&all, hz, total);
	/* Each lcore's rate over its own time: their sum is the total. */
	total->mrps = 0;
	total->gbps = 0;
	for (k = 0; k < n; k++) {
		total->mrps += total->lcores[k].mrps;
		total->gbps += total->lcores[k].gbps;
	}
	if (cdf_csv != NULL)
		ret = rpcperf_cdf_write(cdf_csv, total->workload, all.cycles,
				all.n, hz);
	rpcperf_samples_free(&all);
	return ret;
}

void
rpcperf_result_free(struct rpcperf_result *r)
{
	free(r->lcores);
	r->lcores = NULL;
	r->nb_lcores = 0;
}

void
rpcperf_print_header(bool verify)
{
	printf("%-16s %8s %9s %8s %8s %8s %8s %8s %8s %8s %8s %7s %7s%s\n",
		"workload", "bytes", "iters", "min_us", "p50_us", "p90_us",
		"p99_us", "p99.9_us", "max_us", "Mrps", "Gb/s", "retrans",
		"drops", verify ? "  verify_err" : "");
}

static void
print_row(const char *name, const struct rpcperf_result *r, bool verify)
{
	printf("%-16s %8u %9" PRIu64 " %8.3f %8.3f %8.3f %8.3f %8.3f "
		"%8.2f %8.3f %8.2f %7" PRIu64 " %7" PRIu64, name, r->size,
		r->iters, r->min, r->p50, r->p90, r->p99, r->p999, r->max,
		r->mrps, r->gbps, r->retransmissions, r->drops);
	/* A baseline has no RPC payload to check: "-". */
	if (verify && r->verified)
		printf(" %12" PRIu64, r->verify_errors);
	else if (verify)
		printf(" %12s", "-");
	printf("\n");
}

void
rpcperf_print_result(const struct rpcperf_result *r, bool verify)
{
	char name[RPCPERF_NAME_MAX + 16];
	unsigned int k;

	/* perftest-like: a row per client lcore, then their total. */
	for (k = 0; r->nb_lcores > 1 && k < r->nb_lcores; k++) {
		snprintf(name, sizeof(name), "%s@%d", r->workload,
			r->lcores[k].lcore);
		print_row(name, &r->lcores[k], verify);
	}
	print_row(r->workload, r, verify);
}

void
rpcperf_print_ratios(const struct rpcperf_result *r, unsigned int n)
{
	const struct rpcperf_result *base = rpcperf_baseline(r, n);
	unsigned int i;

	for (i = 0; base != NULL && i < n; i++) {
		if (&r[i] == base || r[i].iters == 0 || !r[i].one_at_a_time)
			continue;
		printf("%s/ring: p50 %.2fx, p99 %.2fx\n", r[i].workload,
			r[i].p50 / base->p50, r[i].p99 / base->p99);
	}
}

void
rpcperf_print_paths(const struct rpcperf_result *r, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct rpcperf_path *p = &r[i].path;
		/* Another RPC workload's when it went by READ (or tried). */
		bool used = p->reads != 0 || p->read_errors != 0 ||
			p->descs_sent != 0 || p->fallbacks != 0;

		if (!r[i].has_path && !(r[i].rpc && used))
			continue;
		printf("%s path: reads %" PRIu64 ", read_bytes %" PRIu64
			", read_errors %" PRIu64 ", descs_sent %" PRIu64
			", fallbacks %" PRIu64 ", copied_bytes %" PRIu64 "\n",
			r[i].workload, p->reads, p->read_bytes,
			p->read_errors, p->descs_sent, p->fallbacks,
			p->copied_bytes);
	}
}
