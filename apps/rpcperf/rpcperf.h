/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef RPCPERF_H
#define RPCPERF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ring.h>

#include "pmr_rpc.h"

#define RPCPERF_NAME_MAX 32
#define RPCPERF_MAX_WORKLOADS 8

/* What the user asked for (the arguments after "--"). */
struct rpcperf_config {
	const char *workloads[RPCPERF_MAX_WORKLOADS];
	unsigned int nb_workloads;
	uint32_t size;		/* payload bytes */
	uint64_t iters;		/* measured round trips */
	uint64_t warmup;	/* round trips before measuring */
	const char *eth_args;	/* extra eth devargs ("tx_copy_max=0") */
	uint32_t concurrency;	/* rate: requests kept outstanding */
	uint32_t sessions;	/* rate: sessions they are spread over */
	const char *faults;	/* fault injection on both workers */
	uint16_t credits;	/* session credits, 0: the default */
	uint32_t rto_us;	/* retransmission timeout, 0: the default */
	unsigned int server_lcore;
	bool quiet;
	bool json;		/* results as JSON on stdout */
	const char *histogram;	/* CSV of the latency CDFs, or NULL */
};

/* Round-trip samples of one run, in TSC cycles. */
struct rpcperf_samples {
	uint64_t *cycles;
	uint64_t n;
	uint64_t cap;
	uint64_t elapsed;	/* cycles from first send to last receive */
	uint64_t retransmissions; /* the client worker's, RPC workloads */
	const char *workload;	/* its name, for messages */
	uint32_t sessions;	/* sessions the run used */
	uint64_t bytes;		/* request bytes measured, 0: size each */
	size_t client_heap;	/* bytes the client worker took */
};

/* Summary of a run, in microseconds (rate in million round trips/s). */
struct rpcperf_result {
	char workload[RPCPERF_NAME_MAX];
	bool one_at_a_time;
	uint32_t size;
	uint64_t iters;
	double min, p50, p90, p99, p999, max, mean;
	double mrps;
	double gbps;		/* payload bits per second, one way */
	uint64_t retransmissions;
	uint32_t sessions;
	size_t client_heap;
};

/*
 * A workload, in the manner of testpmd's forwarding engines: one file
 * each. run() sets up what it needs on the main lcore and the server lcore,
 * measures cfg->iters round trips into samples, and tears down.
 */
struct rpcperf_workload {
	const char *name;
	const char *help;
	/* One round trip at a time: comparable with the ring baseline. */
	bool one_at_a_time;
	int (*run)(const struct rpcperf_config *cfg,
			struct rpcperf_samples *samples);
};

extern const struct rpcperf_workload rpcperf_wl_ring;
extern const struct rpcperf_workload rpcperf_wl_drv_latency;
extern const struct rpcperf_workload rpcperf_wl_latency;
extern const struct rpcperf_workload rpcperf_wl_rate;
extern const struct rpcperf_workload rpcperf_wl_memcpy;
extern const struct rpcperf_workload rpcperf_wl_bandwidth;
extern const struct rpcperf_workload rpcperf_wl_mixed;
extern const struct rpcperf_workload rpcperf_wl_sessions;

/* rpc_env.c: the in-process server and client the RPC workloads use. */
#define RPCPERF_MAX_SESSIONS 20000
#define RPCPERF_REQ_ECHO 1	/* the request back */
#define RPCPERF_REQ_SINK 2	/* an empty response */

struct rpcperf_env {
	struct rte_ring *ab, *ba;
	int port_s, port_c;
	struct pmr_nexus *nx;
	struct pmr_worker *server;	/* polled on server_lcore */
	struct pmr_worker *client;	/* polled on the main lcore */
	unsigned int server_lcore;
	bool server_running;
	int *sessions;
	unsigned int nb_sessions;	/* connected */
	int session_err;		/* why the next one was refused */
	size_t client_heap;		/* bytes the client worker took */
};

int rpcperf_env_up(const struct rpcperf_config *cfg, struct rpcperf_env *env,
		unsigned int nb_sessions, bool partial_ok, uint32_t max_size);

/* wl_rate.c: the rate loop the rate, bandwidth, mixed and sessions
 * workloads share. */
struct rpcperf_rate_spec {
	uint8_t req_type;	/* RPCPERF_REQ_* */
	uint32_t sessions;	/* to open */
	bool partial_ok;	/* go on with those admitted */
	uint32_t max_size;	/* largest request size() returns */
	/* Request size of call i. */
	uint32_t (*size)(const struct rpcperf_config *cfg, uint64_t i);
};
int rpcperf_rate_run(const struct rpcperf_config *cfg,
		struct rpcperf_samples *s, const struct rpcperf_rate_spec *spec);
uint32_t rpcperf_size_fixed(const struct rpcperf_config *cfg, uint64_t i);
void rpcperf_env_down(struct rpcperf_env *env, struct rpcperf_samples *s);

/* args.c */
int rpcperf_parse_args(int argc, char **argv, struct rpcperf_config *cfg);
const struct rpcperf_workload *rpcperf_workload_find(const char *name);
void rpcperf_usage(const char *prog);
/* Name of long option i, NULL past the last (the tests check --help). */
const char *rpcperf_option_name(unsigned int i);

/* latency.c */
int rpcperf_samples_init(struct rpcperf_samples *s, uint64_t cap);
void rpcperf_samples_free(struct rpcperf_samples *s);
static inline void
rpcperf_sample_add(struct rpcperf_samples *s, uint64_t cycles)
{
	if (s->n < s->cap)
		s->cycles[s->n++] = cycles;
}
void rpcperf_summarize(struct rpcperf_samples *s, uint64_t hz,
		struct rpcperf_result *r);
double rpcperf_percentile(const uint64_t *sorted, uint64_t n, double pct);
void rpcperf_print_header(void);
void rpcperf_print_result(const struct rpcperf_result *r);

/* output.c: --json and --histogram (doc/rpcperf.md). */
#define RPCPERF_CDF_POINTS 1000	/* CDF steps from 0 to 100 percent */
const struct rpcperf_result *rpcperf_baseline(const struct rpcperf_result *r,
		unsigned int n);
int rpcperf_print_json(FILE *f, const struct rpcperf_config *cfg,
		const struct rpcperf_result *r, unsigned int n);
int rpcperf_cdf_write(FILE *f, const char *wl, const uint64_t *sorted,
		uint64_t n, uint64_t hz);
int rpcperf_rate_path(const char *histogram, char *buf, size_t len);

/*
 * progress.c: workloads call rpcperf_progress() from their loops, outside
 * what they time, with round trips done (warmup included) out of total.
 * It costs a decrement on most calls; it prints a line to stderr each
 * second unless --quiet, and with --histogram records the rate every
 * 100 ms. main.c calls begin and end around each workload.
 */
void rpcperf_progress_begin(const struct rpcperf_config *cfg);
void rpcperf_progress(const struct rpcperf_config *cfg, const char *wl,
		uint64_t done, uint64_t total);
int rpcperf_progress_end(FILE *rate_csv, const char *wl);

#endif /* RPCPERF_H */
