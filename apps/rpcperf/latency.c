/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/* Round-trip samples and their percentiles. */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpcperf.h"

int
rpcperf_samples_init(struct rpcperf_samples *s, uint64_t cap)
{
	memset(s, 0, sizeof(*s));
	s->workload = "?";
	s->cycles = calloc(cap != 0 ? cap : 1, sizeof(*s->cycles));
	if (s->cycles == NULL)
		return -1;
	s->cap = cap;
	return 0;
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

	r->iters = s->n;
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
		(double)s->n / ((double)s->elapsed / (double)hz) / 1e6 : 0;
	r->gbps = s->bytes != 0 && s->elapsed != 0 ?
		(double)s->bytes * 8 / ((double)s->elapsed / (double)hz) / 1e9 :
		r->mrps * 1e6 * r->size * 8 / 1e9;
	r->retransmissions = s->retransmissions;
	r->sessions = s->sessions;
	r->client_heap = s->client_heap;
}

void
rpcperf_print_header(void)
{
	printf("%-12s %8s %9s %8s %8s %8s %8s %8s %8s %8s %8s %7s\n",
		"workload", "bytes", "iters", "min_us", "p50_us", "p90_us",
		"p99_us", "p99.9_us", "max_us", "Mrps", "Gb/s", "retrans");
}

void
rpcperf_print_result(const struct rpcperf_result *r)
{
	printf("%-12s %8u %9" PRIu64 " %8.3f %8.3f %8.3f %8.3f %8.3f "
		"%8.2f %8.3f %8.2f %7" PRIu64 "\n", r->workload, r->size,
		r->iters, r->min, r->p50, r->p90, r->p99, r->p999, r->max,
		r->mrps, r->gbps, r->retransmissions);
}
