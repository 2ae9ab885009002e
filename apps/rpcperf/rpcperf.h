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
#define RPCPERF_MAX_LCORES 16	/* client or server lcores; --devargs */
#define RPCPERF_NEXUS_PORT 31850	/* --server's default nexus port */

/* Where the server and the client run. */
enum rpcperf_mode {
	RPCPERF_INPROC,		/* both, in this process (default) */
	RPCPERF_SERVER,		/* --server: the server side only */
	RPCPERF_CLIENT,		/* --connect: the client side only */
};

/* What the user asked for (the arguments after "--"). */
struct rpcperf_config {
	const char *workloads[RPCPERF_MAX_WORKLOADS];
	unsigned int nb_workloads;
	uint32_t size;		/* payload bytes */
	uint64_t iters;		/* measured round trips, per client lcore */
	uint64_t warmup;	/* round trips before measuring */
	/*
	 * The transport driver of every worker ("eth", "verbs"); with
	 * --driver-args (or --eth-args, eth only) the devargs in-process
	 * workers get ("tx_copy_max=0", "dev=rxe0"; "": none).
	 */
	const char *driver;
	const char *driver_args;
	uint32_t concurrency;	/* rate: requests kept outstanding */
	uint32_t sessions;	/* rate: sessions they are spread over */
	const char *faults;	/* fault injection on both workers */
	uint16_t credits;	/* session credits, 0: the default */
	uint32_t rto_us;	/* retransmission timeout, 0: the default */
	/* Deadlines (pmr_worker_conf, pmr_nexus_conf), 0: the defaults. */
	uint32_t req_timeout_ms;
	uint32_t timeout_per_mib_ms;	/* PMR_TIMEOUT_PER_MIB_NONE: off */
	uint32_t peer_timeout_ms;
	/*
	 * --rdv-threshold: pmr_worker_conf.rdv_threshold of every worker
	 * (0: the engine's default, PMR_RDV_OFF: --rdv-threshold=off).
	 */
	uint32_t rdv_threshold;
	enum rpcperf_mode mode;
	const char *nexus;	/* this process's nexus, NULL: the default */
	const char *connect;	/* --connect: the server's nexus */
	/* --devargs: one queue per worker, with --server/--connect. */
	const char *devargs[RPCPERF_MAX_LCORES];
	unsigned int nb_devargs;
	uint16_t remote_workers; /* --connect: the server's workers */
	uint32_t duration;	/* --server: seconds, 0: until a signal */
	/* Lcore lists; empty until rpcperf_lcores_resolve() fills them. */
	unsigned int server_lcores[RPCPERF_MAX_LCORES];
	unsigned int nb_server_lcores;
	unsigned int client_lcores[RPCPERF_MAX_LCORES];
	unsigned int nb_client_lcores;
	bool yield;		/* lcores share CPUs: idle pollers yield */
	bool interactive;	/* -i */
	bool quiet;
	bool json;		/* results as JSON on stdout */
	const char *histogram;	/* CSV of the latency CDFs, or NULL */
	bool verify;		/* --verify: payload patterns checked */
	/*
	 * --connect: the server's worker each client lcore's sessions go
	 * to, by client lcore index; --remote-worker's list until
	 * rpcperf_lcores_resolve() makes it one per client lcore.
	 */
	unsigned int remote_worker[RPCPERF_MAX_LCORES];
	unsigned int nb_remote_worker;
};

/*
 * The path large messages took in a run (doc/rendezvous.md): the
 * pmr_worker_stats counters of the run's workers, client and in-process
 * server, summed, as they moved during the run.
 */
struct rpcperf_path {
	uint64_t reads;		/* rdv_reads: messages fetched by READ */
	uint64_t read_bytes;	/* rdv_read_bytes */
	uint64_t read_errors;	/* rdv_read_errors */
	uint64_t descs_sent;	/* rdv_descs_sent */
	uint64_t fallbacks;	/* rdv_fallbacks: over the threshold, sent
				 * as datagrams all the same */
	uint64_t copied_bytes;	/* copied_bytes: reassembly, offers */
};

/*
 * What the nexus of the client process counted during a run: remote
 * nexuses found dead (silent for the peer timeout, or restarted), the
 * sessions that reset for them, and remotes kept alive by their
 * sessions' traffic rather than by heartbeats (pmr_nexus_stats).
 */
struct rpcperf_nexus_counts {
	uint64_t peers_dead;
	uint64_t sessions_reset;
	uint64_t alive_by_data;
};

/*
 * Round-trip samples of one run, in TSC cycles. Up to cap are kept; past
 * that (interactive runs, which go on until "stop") the oldest are
 * overwritten, so the percentiles are those of the latest cap.
 */
struct rpcperf_samples {
	uint64_t *cycles;
	uint64_t n;		/* kept */
	uint64_t cap;
	uint64_t pos;		/* next to overwrite once n == cap */
	uint64_t count;		/* measured, kept or not */
	uint64_t elapsed;	/* cycles from first send to last receive */
	uint64_t retransmissions; /* the client worker's, RPC workloads */
	uint64_t drops;		/* packets dropped on receipt, both ends */
	const char *workload;	/* its name, for messages */
	uint32_t sessions;	/* sessions the run used */
	uint64_t bytes;		/* request bytes measured, 0: size each */
	size_t client_heap;	/* bytes the client worker took */
	struct rpcperf_path path; /* RPC workloads */
	/* RPC workloads, warmup included, measured or not: */
	uint64_t done;		/* continuations run */
	uint64_t timeouts;	/* the client worker's PMR_E_TIMEOUTs */
	uint64_t sessions_reset; /* sessions reset under the client */
	uint64_t verify_errors;	/* --verify: RPCs whose check failed */
};

/* Summary of a run, in microseconds (rate in million round trips/s). */
struct rpcperf_result {
	char workload[RPCPERF_NAME_MAX];
	bool one_at_a_time;
	int lcore;		/* a client lcore's row; -1: the total */
	uint32_t size;
	uint64_t iters;
	double min, p50, p90, p99, p999, max, mean;
	double mrps;
	double gbps;		/* payload bits per second, one way */
	uint64_t retransmissions;
	uint64_t drops;
	uint32_t sessions;
	size_t client_heap;
	/* RPC workloads: counted whether the run completed or failed. */
	bool rpc;
	uint64_t done;
	uint64_t timeouts;
	uint64_t sessions_reset;
	bool verified;		/* --verify checked its payloads */
	uint64_t verify_errors;
	struct rpcperf_nexus_counts nexus; /* the client process's nexus */
	/* RPC workloads with path counters (bandwidth, mixed). */
	bool has_path;
	struct rpcperf_path path;
	/* The total's rows per client lcore (RPC workloads), or NULL. */
	struct rpcperf_result *lcores;
	unsigned int nb_lcores;
};

struct rpcperf_rate_spec;

/*
 * A workload, in the manner of testpmd's forwarding engines: one file
 * each. A baseline has run(): it sets up what it needs on the main lcore
 * and the first server lcore, measures cfg->iters round trips into
 * samples, and tears down. An RPC workload has spec() instead: what each
 * client lcore sends, over pmrpc, in-process or to a --connect server.
 */
struct rpcperf_workload {
	const char *name;
	const char *help;
	/* One round trip at a time: comparable with the ring baseline. */
	bool one_at_a_time;
	/*
	 * A baseline of the eth ring-pair setup (ring): what it measures
	 * is only the floor of that setup, so not run with another
	 * --driver.
	 */
	bool eth_only;
	/*
	 * Its table says the path large messages took, always (others: when
	 * they went by READ; the JSON has every RPC workload's).
	 */
	bool path_counters;
	int (*run)(const struct rpcperf_config *cfg,
			struct rpcperf_samples *samples);
	void (*spec)(const struct rpcperf_config *cfg,
			struct rpcperf_rate_spec *spec);
};

extern const struct rpcperf_workload rpcperf_wl_ring;
extern const struct rpcperf_workload rpcperf_wl_drv_latency;
extern const struct rpcperf_workload rpcperf_wl_latency;
extern const struct rpcperf_workload rpcperf_wl_rate;
extern const struct rpcperf_workload rpcperf_wl_memcpy;
extern const struct rpcperf_workload rpcperf_wl_bandwidth;
extern const struct rpcperf_workload rpcperf_wl_mixed;
extern const struct rpcperf_workload rpcperf_wl_sessions;

#define RPCPERF_MAX_SESSIONS 20000
#define RPCPERF_REQ_ECHO 1	/* the request back */
#define RPCPERF_REQ_SINK 2	/* an empty response */
/*
 * --verify: the same, the server checking the request's pattern first
 * (verify.c). A sink whose request differed answers 4 bytes, the offset
 * of the first byte that did, little-endian; an echo echoes it as it came.
 */
#define RPCPERF_REQ_ECHO_VERIFY 3
#define RPCPERF_REQ_SINK_VERIFY 4

static inline bool
rpcperf_req_echoes(uint8_t req_type)
{
	return req_type == RPCPERF_REQ_ECHO ||
		req_type == RPCPERF_REQ_ECHO_VERIFY;
}

/* What the client lcores of an RPC workload send. */
struct rpcperf_rate_spec {
	uint8_t req_type;	/* RPCPERF_REQ_* */
	uint32_t sessions;	/* to open, per client lcore */
	uint32_t concurrency;	/* requests kept outstanding, per lcore */
	bool partial_ok;	/* go on with those admitted */
	bool report_memory;	/* say the client worker's memory */
	uint32_t max_size;	/* largest request size() returns */
	/* Request size of call i. */
	uint32_t (*size)(const struct rpcperf_config *cfg, uint64_t i);
};
uint32_t rpcperf_size_fixed(const struct rpcperf_config *cfg, uint64_t i);

/* Named driver counters kept (the eth driver has 16). */
#define RPCPERF_DRV_XSTATS_MAX 32

/*
 * The frames a worker's driver dropped before the worker saw them (not
 * for this queue, malformed: pmr_worker_queue()), in all and its named
 * counters, read when asked: never on the data path.
 */
struct rpcperf_drv_drops {
	uint64_t total;	/* rx_dropped, less verbs self flushes */
	unsigned int n;			/* counters in x */
	struct pmr_transport_xstat x[RPCPERF_DRV_XSTATS_MAX];
};
void rpcperf_drv_drops_get(struct pmr_worker *w,
		struct rpcperf_drv_drops *d);
/* Why w's driver dropped frames (d against d0, NULL: none), if it did. */
void rpcperf_drv_drops_print(const char *who,
		const struct rpcperf_drv_drops *d,
		const struct rpcperf_drv_drops *d0);

/*
 * A session of a client lcore, its callback's arg: lives as long as the
 * session (freed after pmr_session_destroy() or the worker's end).
 */
struct rpcperf_session {
	struct rpcperf_client *c;
	const char *uri;	/* of the remote nexus */
	uint16_t remote;	/* its worker */
	int sn;
	int state;		/* 0 connecting, 1 up, else -errno */
};

/* One client lcore of an RPC run: its worker, sessions and samples. */
struct rpcperf_client {
	struct rpcperf_run *run;
	unsigned int idx;
	unsigned int lcore;
	struct pmr_worker *worker;
	int *sessions;
	unsigned int nb_sessions;	/* connected */
	struct rpcperf_session *sess;	/* every one opened, by creation */
	int session_err;		/* why the next one was refused */
	size_t heap;			/* bytes its worker took */
	struct rpcperf_samples s;
	uint64_t done;		/* round trips, read by other lcores */
	uint64_t start;		/* TSC when measuring began (or clear) */
	bool launched;		/* on a remote lcore */
	int ret;
	uint64_t resets;	/* its sessions reset (on_session()) */
	struct pmr_worker_stats st0;	/* its worker's counters before */
	struct pmr_worker_stats srv0;	/* in-process: its server's */
	struct rpcperf_drv_drops drv0;	/* its worker's driver's before */
	struct rpcperf_drv_drops srvdrv0; /* in-process: its server's */
};

/*
 * An RPC run (rpc_env.c): in-process, a server worker per client lcore
 * (eth: on a ring pair with the client; verbs: a queue each on the
 * --driver-args device), polled by the server lcores; with
 * --connect, client workers on --devargs and sessions to the server.
 */
struct rpcperf_run {
	const struct rpcperf_config *cfg;
	struct rpcperf_rate_spec spec;
	const char *workload;
	uint64_t total;		/* round trips per client, warmup included */
	bool wrap;		/* samples: keep the latest (until stop) */
	struct pmr_nexus *nx;
	struct rte_ring *rings[2 * RPCPERF_MAX_LCORES];
	int ports[2 * RPCPERF_MAX_LCORES];
	unsigned int nb_ports;
	struct pmr_worker *servers[RPCPERF_MAX_LCORES];
	unsigned int nb_servers;
	struct rpcperf_poller *pollers;	/* one per server lcore */
	unsigned int nb_running;	/* pollers launched */
	bool stop_servers;
	struct rpcperf_client clients[RPCPERF_MAX_LCORES];
	unsigned int nb_clients;
	bool stop;		/* clients: finish what is in flight */
	uint32_t clear;		/* clients: restart measuring when it moves */
	struct pmr_nexus_stats nx0;	/* the client nexus's before */
	struct rpcperf_nexus_counts nexus; /* ...and what moved, at wait */
};

/* Workers one lcore polls until *stop (server lcores). */
struct rpcperf_poller {
	struct pmr_worker *w[RPCPERF_MAX_LCORES];
	unsigned int n;
	unsigned int lcore;
	bool yield;
	const bool *stop;
};
int rpcperf_poll_loop(void *arg);

/*
 * Worker settings for messages up to max_size, concurrency outstanding
 * and sessions sessions, with cfg's credits, RTO, deadlines and faults.
 */
void rpcperf_worker_conf(const struct rpcperf_config *cfg, uint32_t max_size,
		uint32_t concurrency, uint32_t sessions,
		struct pmr_worker_conf *conf);
/*
 * A nexus on uri with cfg's peer timeout; no_source_cap: no cap on the
 * sessions of one source (the benchmark talks to itself, or a --server
 * serves one client process). NULL and rte_errno set on failure.
 */
struct pmr_nexus *rpcperf_nexus_create(const struct rpcperf_config *cfg,
		const char *uri, bool no_source_cap);
/*
 * Count client k's drops (and in-process its server's) from now on:
 * the worker and driver counters now.
 */
void rpcperf_client_counts_reset(struct rpcperf_run *run, unsigned int k);
/*
 * Packets client k's worker and driver (and in-process its server's)
 * dropped since rpcperf_client_counts_reset().
 */
uint64_t rpcperf_client_drops(const struct rpcperf_run *run, unsigned int k);
/* Why a worker dropped packets (st against st0), on stderr, if it did. */
void rpcperf_drops_print(const char *who, const struct pmr_worker_stats *st,
		const struct pmr_worker_stats *st0);
/* Why w or its driver dropped packets since st0 and d0, if they did:
 * "<who> <id> ..." lines on stderr. */
void rpcperf_worker_drops_print(const char *who, unsigned int id,
		struct pmr_worker *w, const struct pmr_worker_stats *st0,
		const struct rpcperf_drv_drops *d0);
/* Add what w's path counters moved by since st0 to p. */
void rpcperf_path_add(struct rpcperf_path *p, struct pmr_worker *w,
		const struct pmr_worker_stats *st0);

/* The handlers every rpcperf server registers (RPCPERF_REQ_*). */
int rpcperf_handlers_register(struct pmr_nexus *nx);
/*
 * Requests of the verified types server worker id found differing from
 * their pattern, since the process started (ids below
 * RPCPERF_MAX_LCORES; any lcore may read).
 */
uint64_t rpcperf_server_verify_errors(uint16_t id);

int rpcperf_run_up(struct rpcperf_run *run, const struct rpcperf_config *cfg,
		const struct rpcperf_workload *wl, bool until_stop);
/* Launch the clients on their lcores; the main lcore's runs in wait(). */
int rpcperf_run_start(struct rpcperf_run *run);
/* Run the main lcore's client if it has one, and wait for the others. */
int rpcperf_run_wait(struct rpcperf_run *run);
/* Round trips done so far, all clients (any lcore). */
uint64_t rpcperf_run_done(const struct rpcperf_run *run);
void rpcperf_run_down(struct rpcperf_run *run);
/*
 * --connect: the nexus and the client workers, for every run after (made
 * at the first run if not before). 0 or -errno, said on stderr.
 */
int rpcperf_client_setup(const struct rpcperf_config *cfg);
/* At exit: what --connect runs keep from one run to the next. */
void rpcperf_run_cleanup(void);
/* wl_rate.c: the client lcores' loop (lcore_function_t). */
int rpcperf_client_loop(void *arg);
/* Results of a finished run: per-lcore rows and the total. */
int rpcperf_run_results(struct rpcperf_run *run, struct rpcperf_result *r,
		FILE *cdf_csv);
/*
 * A failed run's counters (retransmissions, drops, path, done, timeouts,
 * resets, verify errors, nexus) into r, its iters and figures 0.
 */
int rpcperf_run_counts(struct rpcperf_run *run, struct rpcperf_result *r);

/*
 * stop.c: from rpcperf_stop_signals() on, the first SIGINT or SIGTERM
 * makes rpcperf_stop_asked() true: clients send no more and finish what
 * is in flight, a --server stops (not -i, which has "stop"); the second
 * ends the process.
 */
void rpcperf_stop_signals(void);
bool rpcperf_stop_asked(void);

/* server.c: --server. Returns the exit status. */
int rpcperf_server_main(const struct rpcperf_config *cfg);

/* interactive.c: -i. Returns the exit status. */
int rpcperf_interactive(struct rpcperf_config *cfg);

/* lcores.c: the lcore lists, checked against EAL's; 0 or -EINVAL. */
int rpcperf_lcores_parse(const char *opt, const char *list,
		unsigned int *ids, unsigned int *n);
int rpcperf_lcores_resolve(struct rpcperf_config *cfg);

/* args.c */
int rpcperf_parse_args(int argc, char **argv, struct rpcperf_config *cfg);
const struct rpcperf_workload *rpcperf_workload_find(const char *name);
void rpcperf_usage(const char *prog);
/* Name of long option i, NULL past the last (the tests check --help). */
const char *rpcperf_option_name(unsigned int i);

/* latency.c */
/* Samples kept per lcore at most: 16 Mi (128 MiB); percentiles are those
 * of the latest so many round trips. */
#define RPCPERF_SAMPLES_MAX (1u << 24)
int rpcperf_samples_init(struct rpcperf_samples *s, uint64_t cap);
void rpcperf_samples_free(struct rpcperf_samples *s);
static inline void
rpcperf_sample_add(struct rpcperf_samples *s, uint64_t cycles)
{
	s->count++;
	if (s->n < s->cap) {
		s->cycles[s->n++] = cycles;
	} else if (s->cap != 0) {
		s->cycles[s->pos] = cycles;
		if (++s->pos == s->cap)
			s->pos = 0;
	}
}
/* Forget the samples (interactive "clear stats"). */
void rpcperf_samples_reset(struct rpcperf_samples *s);
void rpcperf_summarize(struct rpcperf_samples *s, uint64_t hz,
		struct rpcperf_result *r);
double rpcperf_percentile(const uint64_t *sorted, uint64_t n, double pct);
/*
 * The rows of rows[0..n) into total->lcores (allocated) and their total
 * into total: samples merged, rates summed. With cdf_csv, the total's CDF.
 */
int rpcperf_merge(struct rpcperf_samples *rows, unsigned int n, uint64_t hz,
		struct rpcperf_result *total, FILE *cdf_csv);
void rpcperf_result_free(struct rpcperf_result *r);
/* With verify, a last column: --verify's errors. */
void rpcperf_print_header(bool verify);
/*
 * r's row, and its per-lcore rows first when it has more than one; with
 * verify (the header's), its --verify errors last.
 */
void rpcperf_print_result(const struct rpcperf_result *r, bool verify);
void rpcperf_print_ratios(const struct rpcperf_result *r, unsigned int n);
/* The path counters of the results that have them, a line each. */
void rpcperf_print_paths(const struct rpcperf_result *r, unsigned int n);

/*
 * verify.c: --verify's payload pattern. A message's first 8 bytes are
 * its seed (rpcperf_verify_seed()), the words after it follow from the
 * seed and their position, all little-endian, cut at the message's
 * length: the client checks an echo against the seed it sent, a server
 * checks a request against the seed in it.
 */
static inline uint64_t
rpcperf_verify_seed(unsigned int lcore, uint64_t seq)
{
	return (uint64_t)lcore << 48 | (seq & ((UINT64_C(1) << 48) - 1));
}
void rpcperf_pattern_fill(void *data, uint32_t len, uint64_t seed);
/* The byte the pattern of seed has at off. */
uint8_t rpcperf_pattern_byte(uint64_t seed, uint32_t off);
/* true if data holds the pattern of seed; else false, *at the offset of
 * the first byte that differs. */
bool rpcperf_pattern_check(const void *data, uint32_t len, uint64_t seed,
		uint32_t *at);
/* The same with the seed data begins with (under 8 bytes: true). */
bool rpcperf_pattern_check_self(const void *data, uint32_t len,
		uint64_t *seed, uint32_t *at);

/*
 * Tests only. test/rpcperf/corrupt.c defines it in the rpcperf_corrupt
 * binary (as its RPCPERF_CORRUPT says) to change a byte of a request
 * once its pattern is written (RPCPERF_CORRUPT_REQ, the client) or of an
 * echo once its bytes are copied (RPCPERF_CORRUPT_RESP, a server), both
 * with --verify only: the tests see that --verify catches each.
 * rpcperf itself does not define it, so it is NULL and never called.
 */
enum rpcperf_corrupt_at {
	RPCPERF_CORRUPT_REQ,
	RPCPERF_CORRUPT_RESP,
};
void rpcperf_test_corrupt(enum rpcperf_corrupt_at at, void *data,
		uint32_t len) __rte_weak;

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
