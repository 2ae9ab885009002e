/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef RPCPERF_H
#define RPCPERF_H

#include <stdbool.h>
#include <stdint.h>

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
};

/* Round-trip samples of one run, in TSC cycles. */
struct rpcperf_samples {
	uint64_t *cycles;
	uint64_t n;
	uint64_t cap;
	uint64_t elapsed;	/* cycles from first send to last receive */
	uint64_t retransmissions; /* the client worker's, RPC workloads */
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

/* rpc_env.c: the in-process server and client the RPC workloads use. */
#define RPCPERF_MAX_SESSIONS 64
#define RPCPERF_REQ_ECHO 1

struct rpcperf_env {
	struct rte_ring *ab, *ba;
	int port_s, port_c;
	struct pmr_nexus *nx;
	struct pmr_worker *server;	/* polled on server_lcore */
	struct pmr_worker *client;	/* polled on the main lcore */
	unsigned int server_lcore;
	bool server_running;
	int sessions[RPCPERF_MAX_SESSIONS];
	unsigned int nb_sessions;
};

int rpcperf_env_up(const struct rpcperf_config *cfg, struct rpcperf_env *env,
		unsigned int nb_sessions);
void rpcperf_env_down(struct rpcperf_env *env, struct rpcperf_samples *s);

/* args.c */
int rpcperf_parse_args(int argc, char **argv, struct rpcperf_config *cfg);
const struct rpcperf_workload *rpcperf_workload_find(const char *name);
void rpcperf_usage(const char *prog);

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

#endif /* RPCPERF_H */
