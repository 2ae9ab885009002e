/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The results as JSON (--json) and the latency CDFs as CSV (--histogram).
 * The schema and the CSV columns are in doc/rpcperf.md: change them there
 * too, and bump RPCPERF_JSON_VERSION when a field changes meaning or goes.
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rpcperf.h"

#define RPCPERF_JSON_VERSION 2

const struct rpcperf_result *
rpcperf_baseline(const struct rpcperf_result *r, unsigned int n)
{
	const struct rpcperf_result *base = NULL;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (strcmp(r[i].workload, "ring") == 0 && r[i].iters != 0)
			base = &r[i];
	return base;
}

static void
json_str(FILE *f, const char *s)
{
	const unsigned char *p;

	if (s == NULL) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* JSON has no NaN or infinity: those are null. */
static void
json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.9g", v);
	else
		fputs("null", f);
}

static void
json_lcores(FILE *f, const char *name, const unsigned int *ids,
		unsigned int n)
{
	unsigned int i;

	fprintf(f, "    \"%s\": [", name);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%u", i != 0 ? ", " : "", ids[i]);
	fputs("],\n", f);
}

static void
json_config(FILE *f, const struct rpcperf_config *cfg)
{
	unsigned int i;

	fputs("  \"config\": {\n    \"workloads\": [", f);
	for (i = 0; i < cfg->nb_workloads; i++) {
		if (i != 0)
			fputs(", ", f);
		json_str(f, cfg->workloads[i]);
	}
	fprintf(f, "],\n    \"size\": %" PRIu32 ",\n"
		"    \"iters\": %" PRIu64 ",\n    \"warmup\": %" PRIu64 ",\n"
		"    \"concurrency\": %" PRIu32 ",\n"
		"    \"sessions\": %" PRIu32 ",\n"
		"    \"credits\": %u,\n    \"rto_us\": %" PRIu32 ",\n"
		"    \"faults\": ", cfg->size, cfg->iters, cfg->warmup,
		cfg->concurrency, cfg->sessions, cfg->credits, cfg->rto_us);
	json_str(f, cfg->faults);
	/* 0: the engine's defaults; "off": no allowance for size. */
	fprintf(f, ",\n    \"req_timeout_ms\": %" PRIu32
		",\n    \"timeout_per_mib_ms\": ", cfg->req_timeout_ms);
	if (cfg->timeout_per_mib_ms == PMR_TIMEOUT_PER_MIB_NONE)
		json_str(f, "off");
	else
		fprintf(f, "%" PRIu32, cfg->timeout_per_mib_ms);
	fprintf(f, ",\n    \"peer_timeout_ms\": %" PRIu32,
		cfg->peer_timeout_ms);
	/* null: the engine's default; "off": never by READ. */
	fputs(",\n    \"rdv_threshold\": ", f);
	if (cfg->rdv_threshold == PMR_RDV_OFF)
		json_str(f, "off");
	else if (cfg->rdv_threshold == 0)
		fputs("null", f);
	else
		fprintf(f, "%" PRIu32, cfg->rdv_threshold);
	fputs(",\n    \"driver\": ", f);
	json_str(f, cfg->driver);
	fputs(",\n    \"driver_args\": ", f);
	json_str(f, cfg->driver_args);
	/* The older name, kept for readers of earlier documents. */
	fputs(",\n    \"eth_args\": ", f);
	json_str(f, strcmp(cfg->driver, "eth") == 0 ? cfg->driver_args : "");
	fputs(",\n    \"mode\": ", f);
	json_str(f, cfg->mode == RPCPERF_SERVER ? "server" :
		cfg->mode == RPCPERF_CLIENT ? "client" : "in-process");
	fputs(",\n    \"nexus\": ", f);
	json_str(f, cfg->nexus);
	fputs(",\n    \"connect\": ", f);
	json_str(f, cfg->connect);
	fputs(",\n    \"devargs\": [", f);
	for (i = 0; i < cfg->nb_devargs; i++) {
		if (i != 0)
			fputs(", ", f);
		json_str(f, cfg->devargs[i]);
	}
	fprintf(f, "],\n    \"remote_workers\": %u,\n", cfg->remote_workers);
	json_lcores(f, "remote_worker", cfg->remote_worker,
		cfg->nb_remote_worker);
	json_lcores(f, "server_lcores", cfg->server_lcores,
		cfg->nb_server_lcores);
	json_lcores(f, "client_lcores", cfg->client_lcores,
		cfg->nb_client_lcores);
	fprintf(f, "    \"duration\": %" PRIu32 ",\n"
		"    \"interactive\": %s,\n", cfg->duration,
		cfg->interactive ? "true" : "false");
	fprintf(f, "    \"quiet\": %s,\n"
		"    \"json\": %s,\n    \"verify\": %s,\n"
		"    \"histogram\": ",
		cfg->quiet ? "true" : "false", cfg->json ? "true" : "false",
		cfg->verify ? "true" : "false");
	json_str(f, cfg->histogram);
	fputs("\n  },\n", f);
}

/* ', "name": v', or null when !have. */
static void
json_count(FILE *f, const char *name, bool have, uint64_t v)
{
	if (have)
		fprintf(f, ", \"%s\": %" PRIu64, name, v);
	else
		fprintf(f, ", \"%s\": null", name);
}

static void
json_stats(FILE *f, const struct rpcperf_result *r)
{
	const struct {
		const char *name;
		double v;
	} nums[] = {
		{ "min_us", r->min }, { "p50_us", r->p50 },
		{ "p90_us", r->p90 }, { "p99_us", r->p99 },
		{ "p999_us", r->p999 }, { "max_us", r->max },
		{ "mean_us", r->mean }, { "mrps", r->mrps },
		{ "gbps", r->gbps },
	};
	unsigned int i;

	fprintf(f, "\"bytes\": %" PRIu32 ", \"iters\": %" PRIu64, r->size,
		r->iters);
	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		fprintf(f, ", \"%s\": ", nums[i].name);
		json_num(f, nums[i].v);
	}
	fprintf(f, ", \"retransmissions\": %" PRIu64 ", \"drops\": %" PRIu64,
		r->retransmissions, r->drops);
	/* RPC workloads' counters, null for baselines (and unverified). */
	json_count(f, "done", r->rpc, r->done);
	json_count(f, "timeouts", r->rpc, r->timeouts);
	json_count(f, "sessions_reset", r->rpc, r->sessions_reset);
	json_count(f, "verify_errors", r->rpc && r->verified,
		r->verify_errors);
}

static void
json_result(FILE *f, const struct rpcperf_result *r)
{
	unsigned int k;

	fputs("    {\"workload\": ", f);
	json_str(f, r->workload);
	fputs(", ", f);
	json_stats(f, r);
	/* Every RPC workload's; the table's line, bandwidth's and mixed's. */
	if (r->has_path || r->rpc)
		fprintf(f, ", \"path\": {\"reads\": %" PRIu64
			", \"read_bytes\": %" PRIu64
			", \"read_errors\": %" PRIu64
			", \"descs_sent\": %" PRIu64
			", \"fallbacks\": %" PRIu64
			", \"copied_bytes\": %" PRIu64 "}",
			r->path.reads, r->path.read_bytes,
			r->path.read_errors, r->path.descs_sent,
			r->path.fallbacks, r->path.copied_bytes);
	if (r->rpc)
		fprintf(f, ", \"nexus\": {\"peers_dead\": %" PRIu64
			", \"sessions_reset\": %" PRIu64
			", \"alive_by_data\": %" PRIu64 "}",
			r->nexus.peers_dead, r->nexus.sessions_reset,
			r->nexus.alive_by_data);
	else
		fputs(", \"nexus\": null", f);
	/* RPC workloads: a row per client lcore. */
	fputs(", \"lcores\": [", f);
	for (k = 0; k < r->nb_lcores; k++) {
		fprintf(f, "%s\n      {\"lcore\": %d, ", k != 0 ? "," : "",
			r->lcores[k].lcore);
		json_stats(f, &r->lcores[k]);
		fputs("}", f);
	}
	fputs(r->nb_lcores != 0 ? "\n    ]}" : "]}", f);
}

int
rpcperf_print_json(FILE *f, const struct rpcperf_config *cfg,
		const struct rpcperf_result *r, unsigned int n)
{
	const struct rpcperf_result *base = rpcperf_baseline(r, n);
	const char *sep = "\n";
	unsigned int i;

	fprintf(f, "{\n  \"version\": %d,\n  \"tool\": \"rpcperf\",\n",
		RPCPERF_JSON_VERSION);
	json_config(f, cfg);
	fputs("  \"results\": [", f);
	for (i = 0; i < n; i++) {
		fputs(sep, f);
		json_result(f, &r[i]);
		sep = ",\n";
	}
	fputs(n != 0 ? "\n  ],\n" : "],\n", f);
	fputs("  \"ratios\": [", f);
	sep = "\n";
	for (i = 0; base != NULL && i < n; i++) {
		if (&r[i] == base || r[i].iters == 0 || !r[i].one_at_a_time)
			continue;
		fputs(sep, f);
		fputs("    {\"workload\": ", f);
		json_str(f, r[i].workload);
		fputs(", \"baseline\": \"ring\", \"p50\": ", f);
		json_num(f, r[i].p50 / base->p50);
		fputs(", \"p99\": ", f);
		json_num(f, r[i].p99 / base->p99);
		fputs("}", f);
		sep = ",\n";
	}
	fputs(sep[0] == ',' ? "\n  ]\n}\n" : "]\n}\n", f);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

static int
cdf_row(FILE *f, const char *wl, const uint64_t *sorted, uint64_t n,
		double us, double pct)
{
	return fprintf(f, "%s,%.10g,%.9g\n", wl, pct,
		rpcperf_percentile(sorted, n, pct) * us) < 0 ? -EIO : 0;
}

/*
 * Percentiles 0 to 100 in 1/RPCPERF_CDF_POINTS steps; between 99.9 and
 * 100 also 99.91 to 99.99 when there are 10^4 samples or more, and 99.991
 * to 99.999 from 10^5, for the tail.
 */
int
rpcperf_cdf_write(FILE *f, const char *wl, const uint64_t *sorted,
		uint64_t n, uint64_t hz)
{
	double us = 1e6 / (double)hz;
	unsigned int i, j;
	int ret = 0;

	for (i = 0; n != 0 && i <= RPCPERF_CDF_POINTS && ret == 0; i++) {
		if (i == RPCPERF_CDF_POINTS && n >= 10000)
			for (j = 1; j <= 9 && ret == 0; j++)
				ret = cdf_row(f, wl, sorted, n, us,
						99.9 + j / 100.0);
		if (i == RPCPERF_CDF_POINTS && n >= 100000)
			for (j = 1; j <= 9 && ret == 0; j++)
				ret = cdf_row(f, wl, sorted, n, us,
						99.99 + j / 1000.0);
		if (ret == 0)
			ret = cdf_row(f, wl, sorted, n, us,
					100.0 * i / RPCPERF_CDF_POINTS);
	}
	return ret;
}

int
rpcperf_rate_path(const char *histogram, char *buf, size_t len)
{
	size_t n = strlen(histogram);
	int ret;

	if (n > 4 && strcmp(histogram + n - 4, ".csv") == 0)
		n -= 4;
	ret = snprintf(buf, len, "%.*s.rate.csv", (int)n, histogram);
	return ret < 0 || (size_t)ret >= len ? -ENAMETOOLONG : 0;
}
