/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The setup RPC workloads run on. In-process: a nexus on 127.0.0.1 and,
 * per client lcore, a server worker (polled by a server lcore, several
 * per lcore when there are more clients than server lcores) and the
 * client worker: with eth at the two ends of a ring pair, with verbs
 * (or any other driver) each on a queue of its own made from
 * --driver-args (two QPs of one device). With --connect: a
 * client worker per client lcore on its --devargs, with sessions to the
 * server's nexus. Then the clients run rpcperf_client_loop() (wl_rate.c),
 * and their samples become per-lcore rows and a total; the counters
 * read along the way are counters.c's.
 */

#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "rpcperf.h"

/* The request back; verified: --verify's (for the tests' hook). */
static void
echo(struct pmr_req_ref req, bool verified)
{
	struct pmr_worker *w = pmr_req_worker(req);
	uint32_t len = pmr_req_len(req);
	struct pmr_msgbuf *resp;

	resp = len <= pmr_worker_pkt_size(w) ? pmr_req_resp_buf(req) :
		pmr_worker_msgbuf_alloc(w, len);
	if (resp == NULL) {
		/* The client sees PMR_E_NOMEM at once, not a timeout. */
		pmr_respond_error(req, PMR_E_NOMEM);
		return;
	}
	pmr_msgbuf_resize(resp, len);
	memcpy(resp->data, pmr_req_data(req), len);
	/* Tests only (rpcperf_corrupt): a byte of the echo changed. */
	if (verified && rpcperf_test_corrupt != NULL)
		rpcperf_test_corrupt(RPCPERF_CORRUPT_RESP, resp->data, len);
	pmr_respond(req, resp);
}

static void
echo_handler(struct pmr_req_ref req, void *arg)
{
	(void)arg;
	echo(req, false);
}

static void
sink_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_msgbuf *resp = pmr_req_resp_buf(req);

	(void)arg;
	if (resp != NULL)
		pmr_respond(req, resp);
	else
		pmr_respond_error(req, PMR_E_NOMEM);
}

/*
 * --verify's requests that differed from their pattern, by server worker
 * id. Each worker's lcore adds to its own; the main lcore reads.
 */
static uint64_t srv_verify_errors[RPCPERF_MAX_LCORES];
/* The first few are told on stderr, the rest counted. */
#define VERIFY_TOLD_MAX 5
static uint32_t srv_verify_told;

uint64_t
rpcperf_server_verify_errors(uint16_t id)
{
	return id < RTE_DIM(srv_verify_errors) ?
		__atomic_load_n(&srv_verify_errors[id], __ATOMIC_RELAXED) : 0;
}

/*
 * A request of a verified type against the pattern its seed gives: true
 * if it holds it, else counted, told (the first few), *at the offset of
 * the first byte that differs.
 */
static bool
request_intact(struct pmr_req_ref req, uint32_t *at)
{
	uint16_t id = pmr_worker_id(pmr_req_worker(req));
	const uint8_t *p = pmr_req_data(req);
	uint32_t len = pmr_req_len(req);
	uint64_t seed;

	if (rpcperf_pattern_check_self(p, len, &seed, at))
		return true;
	if (id < RTE_DIM(srv_verify_errors))
		__atomic_fetch_add(&srv_verify_errors[id], 1,
			__ATOMIC_RELAXED);
	if (__atomic_fetch_add(&srv_verify_told, 1, __ATOMIC_RELAXED) <
			VERIFY_TOLD_MAX)
		fprintf(stderr, "rpcperf: --verify: server worker %u: request "
			"of %u bytes (its seed: client lcore %u, request %"
			PRIu64 ") differs from its pattern at byte %u: 0x%02x, "
			"not 0x%02x\n", id, len, (unsigned int)(seed >> 48),
			seed & ((UINT64_C(1) << 48) - 1), *at, p[*at],
			rpcperf_pattern_byte(seed, *at));
	return false;
}

/* An echo whose request was checked; echoed as it came, either way. */
static void
echo_verify_handler(struct pmr_req_ref req, void *arg)
{
	uint32_t at;

	(void)arg;
	request_intact(req, &at);
	echo(req, true);
}

/* A sink whose request was checked: 4 bytes, the offset, if it differed. */
static void
sink_verify_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_msgbuf *resp;
	uint32_t at, v;

	(void)arg;
	if (request_intact(req, &at)) {
		sink_handler(req, NULL);
		return;
	}
	resp = pmr_req_resp_buf(req);
	if (resp == NULL) {
		pmr_respond_error(req, PMR_E_NOMEM);
		return;
	}
	v = rte_cpu_to_le_32(at);
	pmr_msgbuf_resize(resp, sizeof(v));
	memcpy(resp->data, &v, sizeof(v));
	pmr_respond(req, resp);
}

int
rpcperf_handlers_register(struct pmr_nexus *nx)
{
	static const struct {
		uint8_t type;
		pmr_req_handler_t fn;
	} h[] = {
		{ RPCPERF_REQ_ECHO, echo_handler },
		{ RPCPERF_REQ_SINK, sink_handler },
		{ RPCPERF_REQ_ECHO_VERIFY, echo_verify_handler },
		{ RPCPERF_REQ_SINK_VERIFY, sink_verify_handler },
	};
	unsigned int i;
	int ret = 0;

	for (i = 0; i < RTE_DIM(h) && ret == 0; i++)
		ret = pmr_nexus_register_handler(nx, h[i].type, h[i].fn, NULL);
	return ret;
}

int
rpcperf_poll_loop(void *arg)
{
	struct rpcperf_poller *p = arg;
	unsigned int i, work;

	while (!__atomic_load_n(p->stop, __ATOMIC_RELAXED)) {
		work = 0;
		for (i = 0; i < p->n; i++)
			work += pmr_worker_poll(p->w[i]);
		if (work == 0 && p->yield)
			sched_yield();
	}
	return 0;
}

/*
 * Runs on the client's lcore. The session's arg outlives it: a reset may
 * come at any time until the session is destroyed.
 */
static void
on_session(struct pmr_worker *w, int session, enum pmr_session_event ev,
		int err, void *arg)
{
	struct rpcperf_session *rs = arg;

	(void)w;
	if (ev == PMR_SESSION_EV_RESET) {
		fprintf(stderr, "rpcperf: lcore %u: session %d to %s worker %u "
			"reset: %s\n", rs->c->lcore, session, rs->uri,
			rs->remote, strerror(-err));
		rs->state = err;
		rs->c->resets++;
		return;
	}
	rs->state = ev == PMR_SESSION_EV_CONNECTED ? 1 : err;
}

/* Poll until every session opened so far has come up or failed. */
static void
sessions_wait(struct rpcperf_client *c, unsigned int n)
{
	unsigned int k;

	for (k = 0; k < n; k++)
		while (c->sess[k].state == 0)
			pmr_worker_poll(c->worker);
}

/* Open the client's sessions to remote worker rw of uri. */
static int
sessions_open(struct rpcperf_run *run, struct rpcperf_client *c,
		const char *uri, uint16_t rw)
{
	uint32_t want = run->spec.sessions;
	unsigned int i, n, opened = 0;

	c->sessions = calloc(want, sizeof(*c->sessions));
	c->sess = calloc(want, sizeof(*c->sess));
	if (c->sessions == NULL || c->sess == NULL)
		return -ENOMEM;
	/* In batches, so that the nexus rings never overflow. */
	for (i = 0; i < want; i++) {
		struct rpcperf_session *rs = &c->sess[opened];
		int sn;

		rs->c = c;
		rs->uri = uri;
		rs->remote = rw;
		sn = pmr_session_create(c->worker, uri, rw, on_session, rs);
		if (sn < 0) {
			c->session_err = sn;
			break;
		}
		rs->sn = sn;
		opened++;
		if (opened % 256 == 0)
			sessions_wait(c, opened);
	}
	sessions_wait(c, opened);
	/* Keep only the sessions that came up. */
	for (i = 0, n = 0; i < opened; i++) {
		if (c->sess[i].state == 1) {
			c->sessions[n++] = c->sess[i].sn;
			continue;
		}
		if (c->session_err == 0)
			c->session_err = c->sess[i].state;
		pmr_session_destroy(c->worker, c->sess[i].sn);
	}
	c->nb_sessions = n;
	if (c->session_err != 0 &&
	    (!run->spec.partial_ok || c->nb_sessions == 0)) {
		fprintf(stderr, "rpcperf: %s: lcore %u: session to %s worker "
			"%u: %s%s\n", run->workload, c->lcore, uri, rw,
			strerror(-c->session_err),
			c->session_err == -ENOSPC ? " (each session reserves "
			"--credits of the worker's receive slots at both ends; "
			"the sessions workload goes on with those admitted)" :
			"");
		return c->session_err;
	}
	if (c->nb_sessions < want)
		fprintf(stderr, "rpcperf: %s: lcore %u: %u of %u sessions "
			"admitted (%s%s%s), going on with those\n",
			run->workload, c->lcore, c->nb_sessions, want,
			strerror(-c->session_err),
			c->session_err == -ENOSPC ? ": each reserves --credits "
			"of the receive queue at both ends; fewer credits or a "
			"deeper queue admit more, e.g. --credits=1 "
			"--driver-args=rxd=" : "",
			c->session_err != -ENOSPC ? "" :
			strcmp(run->cfg->driver, "eth") == 0 ? "32768" :
			"16384");
	return 0;
}

void
rpcperf_worker_conf(const struct rpcperf_config *cfg, uint32_t max_size,
		uint32_t concurrency, uint32_t sessions,
		struct pmr_worker_conf *conf)
{
	/*
	 * Enough buffers of the message's class for every one in flight:
	 * a server keeps a response in its slot until the slot's next
	 * request, so each outstanding request may hold a request buffer
	 * and a response buffer.
	 */
	uint32_t inflight = 2 * concurrency + 8;

	memset(conf, 0, sizeof(*conf));
	conf->driver = cfg->driver;
	conf->nb_msgbufs = 8192;
	conf->max_msg_size = RTE_MAX(max_size, 64u * 1024);
	conf->nb_mid_msgbufs = RTE_MAX(inflight, 64u);
	conf->nb_large_msgbufs = max_size > 64 * 1024 ? inflight : 1;
	conf->faults = cfg->faults;
	conf->session_credits = cfg->credits;
	conf->rto_us = cfg->rto_us;
	conf->req_timeout_ms = cfg->req_timeout_ms;
	conf->timeout_per_mib_ms = cfg->timeout_per_mib_ms;
	conf->rdv_threshold = cfg->rdv_threshold;
	/*
	 * Without exact memory windows a message goes by READ only from a
	 * copy in its pair's region: room for as many as may be in flight,
	 * or large messages fall back to datagrams (the engine's default
	 * is one max_msg_size message).
	 */
	conf->nb_offer_msgbufs = (uint16_t)RTE_MIN(inflight,
			(uint32_t)UINT16_MAX);
	conf->max_sessions = RTE_MAX(sessions + 1, 256u);
	conf->max_requests = RTE_MAX(4096u, 2 * concurrency);
	/*
	 * A benchmark server serves one client process at a time (as
	 * server.c's nexus lifts its per-source cap): that one source may
	 * hold all of a worker, no share kept for others.
	 */
	conf->src_share_pct = 100;
}

struct pmr_nexus *
rpcperf_nexus_create(const struct rpcperf_config *cfg, const char *uri,
		bool no_source_cap)
{
	struct pmr_nexus_conf conf = {
		.peer_timeout_ms = cfg->peer_timeout_ms,
		.max_sessions_per_source = no_source_cap ? UINT32_MAX : 0,
	};
	struct pmr_nexus *nx = pmr_nexus_create(uri, &conf);

	/* The one setting of ours the nexus may refuse: say so. */
	if (nx == NULL && rte_errno == EINVAL && cfg->peer_timeout_ms != 0)
		fprintf(stderr, "rpcperf: --peer-timeout-ms=%" PRIu32 ": the "
			"nexus wants more than its heartbeat interval (100 ms)"
			"\n", cfg->peer_timeout_ms);
	return nx;
}

static struct pmr_worker *
worker_up(struct rpcperf_run *run, uint16_t id, const char *devargs,
		bool server, size_t *heap)
{
	struct rte_malloc_socket_stats before, after;
	struct pmr_worker_conf conf;
	struct pmr_worker *w;

	rpcperf_worker_conf(run->cfg, run->spec.max_size,
			run->spec.concurrency, run->spec.sessions, &conf);
	/*
	 * A server keeps each session's last response until the session's
	 * next request (at-most-once): a buffer per session on top.
	 */
	if (server)
		conf.nb_msgbufs += run->spec.sessions;
	conf.worker_id = id;
	conf.devargs = devargs;
	rte_malloc_get_socket_stats(rte_socket_id(), &before);
	w = pmr_worker_create(run->nx, &conf);
	if (w == NULL) {
		/* ECONNREFUSED: a memif client with no server yet. */
		fprintf(stderr, "rpcperf: %s worker %u on '%s': %s%s\n",
			run->cfg->driver, id, devargs, rte_strerror(rte_errno),
			rte_errno == ECONNREFUSED ?
			" (no server on its port's memif socket: start the "
			"server first)" : "");
		return NULL;
	}
	rte_malloc_get_socket_stats(rte_socket_id(), &after);
	if (heap != NULL)
		*heap = after.heap_allocsz_bytes - before.heap_allocsz_bytes;
	if (run->spec.max_size > pmr_worker_max_msg_size(w)) {
		fprintf(stderr, "rpcperf: %u bytes is over the largest "
			"message, %u\n", run->spec.max_size,
			pmr_worker_max_msg_size(w));
		pmr_worker_destroy(w);
		return NULL;
	}
	return w;
}

/* A ring pair; the server's end as port 2k, the client's as 2k+1. */
static int
ring_pair_up(struct rpcperf_run *run, unsigned int k)
{
	static unsigned int seq;	/* ethdev and ring names stay taken */
	struct rte_ring **r = &run->rings[2 * k];
	char name[32];

	seq++;
	snprintf(name, sizeof(name), "rpcperf_ab%u", seq);
	r[0] = rte_ring_create(name, 1024, rte_socket_id(),
			RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "rpcperf_ba%u", seq);
	r[1] = rte_ring_create(name, 1024, rte_socket_id(),
			RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (r[0] == NULL || r[1] == NULL)
		return -ENOMEM;
	snprintf(name, sizeof(name), "rpcperf_srv%u", seq);
	run->ports[2 * k] = rte_eth_from_rings(name, &r[1], 1, &r[0], 1,
			rte_socket_id());
	snprintf(name, sizeof(name), "rpcperf_cli%u", seq);
	run->ports[2 * k + 1] = rte_eth_from_rings(name, &r[0], 1, &r[1], 1,
			rte_socket_id());
	run->nb_ports = 2 * k + 2;
	if (run->ports[2 * k] < 0 || run->ports[2 * k + 1] < 0)
		return -ENODEV;
	return 0;
}

/* In-process: a server worker per client, on its own ring pair. */
static int
inproc_up(struct rpcperf_run *run)
{
	const struct rpcperf_config *cfg = run->cfg;
	const char *sep = cfg->driver_args[0] != '\0' ? "," : "";
	bool eth = strcmp(cfg->driver, "eth") == 0;
	unsigned int k, nc = cfg->nb_client_lcores;
	char args[256];
	int ret;

	/*
	 * The benchmark talks to itself: every session comes from this
	 * process's own address, up to 20,000 per client lcore, so the
	 * per-source cap (a defence against other hosts) is lifted.
	 */
	run->nx = rpcperf_nexus_create(cfg, "127.0.0.1:0", true);
	if (run->nx == NULL)
		return -rte_errno;
	ret = rpcperf_handlers_register(run->nx);
	if (ret != 0)
		return ret;
	for (k = 0; k < nc; k++) {
		/* Not eth: both workers' queues from --driver-args alone. */
		snprintf(args, sizeof(args), "%s", cfg->driver_args);
		ret = eth ? ring_pair_up(run, k) : 0;
		if (ret != 0)
			return ret;
		if (eth)
			snprintf(args, sizeof(args),
				"port=%d,ip=198.18.%u.1%s%s",
				run->ports[2 * k], k + 1, sep,
				cfg->driver_args);
		run->servers[k] = worker_up(run, (uint16_t)k, args, true,
				NULL);
		if (run->servers[k] == NULL)
			return -EINVAL;
		run->nb_servers = k + 1;
		if (eth)
			snprintf(args, sizeof(args),
				"port=%d,ip=198.18.%u.2%s%s",
				run->ports[2 * k + 1], k + 1, sep,
				cfg->driver_args);
		run->clients[k].worker = worker_up(run, (uint16_t)(nc + k),
				args, false, &run->clients[k].heap);
		if (run->clients[k].worker == NULL)
			return -EINVAL;
		run->nb_clients = k + 1;
	}
	/* Server worker k on server lcore k % nb_server_lcores. */
	run->pollers = calloc(cfg->nb_server_lcores, sizeof(*run->pollers));
	if (run->pollers == NULL)
		return -ENOMEM;
	for (k = 0; k < cfg->nb_server_lcores; k++) {
		run->pollers[k].lcore = cfg->server_lcores[k];
		run->pollers[k].yield = cfg->yield;
		run->pollers[k].stop = &run->stop_servers;
	}
	for (k = 0; k < nc; k++) {
		struct rpcperf_poller *p =
			&run->pollers[k % cfg->nb_server_lcores];

		p->w[p->n++] = run->servers[k];
	}
	for (k = 0; k < cfg->nb_server_lcores && k < nc; k++) {
		if (rte_eal_remote_launch(rpcperf_poll_loop, &run->pollers[k],
				run->pollers[k].lcore) != 0) {
			fprintf(stderr, "rpcperf: server lcore %u is busy\n",
				run->pollers[k].lcore);
			run->nb_running = k;
			return -EBUSY;
		}
		run->nb_running = k + 1;
	}
	for (k = 0; k < nc; k++) {
		ret = sessions_open(run, &run->clients[k],
				pmr_nexus_uri(run->nx), (uint16_t)k);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/*
 * --connect: the nexus and a client worker per --devargs, made at the
 * first run and kept to the last (rpcperf_run_cleanup()): a worker's
 * port goes when the worker does. Sized for what any workload asks.
 */
static struct {
	struct pmr_nexus *nx;
	struct pmr_worker *w[RPCPERF_MAX_LCORES];
	size_t heap[RPCPERF_MAX_LCORES];
	unsigned int n;
} remote;

int
rpcperf_client_setup(const struct rpcperf_config *cfg)
{
	struct rpcperf_run sizing = { .cfg = cfg };
	unsigned int k;

	/* Made at an earlier run: all of them, or that run said why not. */
	if (remote.nx != NULL)
		return remote.n == cfg->nb_client_lcores ? 0 : -ENODEV;
	remote.nx = rpcperf_nexus_create(cfg, cfg->nexus != NULL ?
			cfg->nexus : "127.0.0.1:0", false);
	if (remote.nx == NULL) {
		fprintf(stderr, "rpcperf: nexus on %s: %s\n",
			cfg->nexus != NULL ? cfg->nexus : "127.0.0.1:0",
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	/* Room for -s, mixed's 256 KiB, -c and --sessions. */
	sizing.nx = remote.nx;
	sizing.spec.max_size = RTE_MAX(cfg->size, 256u * 1024);
	sizing.spec.concurrency = cfg->concurrency;
	sizing.spec.sessions = cfg->sessions;
	for (k = 0; k < cfg->nb_client_lcores; k++) {
		remote.w[k] = worker_up(&sizing, (uint16_t)k, cfg->devargs[k],
				false, &remote.heap[k]);
		if (remote.w[k] == NULL)
			return -EINVAL;
		remote.n = k + 1;
	}
	return 0;
}

void
rpcperf_run_cleanup(void)
{
	unsigned int k;

	for (k = 0; k < remote.n; k++)
		if (pmr_worker_destroy(remote.w[k]) != 0)
			fprintf(stderr, "rpcperf: client worker %u: msgbufs "
				"leaked\n", k);
	if (remote.nx != NULL)
		pmr_nexus_destroy(remote.nx);
	memset(&remote, 0, sizeof(remote));
}

static int
client_up(struct rpcperf_run *run)
{
	const struct rpcperf_config *cfg = run->cfg;
	unsigned int k;
	int ret;

	ret = rpcperf_client_setup(cfg);
	if (ret != 0)
		return ret;
	if (run->spec.max_size > pmr_worker_max_msg_size(remote.w[0])) {
		fprintf(stderr, "rpcperf: %u bytes is over the client "
			"workers' largest message, %u (they were made for "
			"-s at start)\n", run->spec.max_size,
			pmr_worker_max_msg_size(remote.w[0]));
		return -EMSGSIZE;
	}
	for (k = 0; k < cfg->nb_client_lcores; k++) {
		run->clients[k].worker = remote.w[k];
		run->clients[k].heap = remote.heap[k];
		run->nb_clients = k + 1;
	}
	for (k = 0; k < cfg->nb_client_lcores; k++) {
		ret = sessions_open(run, &run->clients[k], cfg->connect,
				(uint16_t)cfg->remote_worker[k]);
		if (ret != 0)
			return ret;
	}
	return 0;
}

void
rpcperf_client_counts_reset(struct rpcperf_run *run, unsigned int k)
{
	struct rpcperf_client *c = &run->clients[k];

	pmr_worker_stats_get(c->worker, &c->st0);
	rpcperf_drv_drops_get(c->worker, &c->drv0);
	/* In-process, server k answers client k. */
	if (k < run->nb_servers) {
		pmr_worker_stats_get(run->servers[k], &c->srv0);
		rpcperf_drv_drops_get(run->servers[k], &c->srvdrv0);
	}
}

/* The nexus of the run's client workers. */
static struct pmr_nexus *
run_nexus(const struct rpcperf_run *run)
{
	return run->cfg->mode == RPCPERF_CLIENT ? remote.nx : run->nx;
}

int
rpcperf_run_up(struct rpcperf_run *run, const struct rpcperf_config *cfg,
		const struct rpcperf_workload *wl, bool until_stop)
{
	unsigned int k;
	int ret;

	memset(run, 0, sizeof(*run));
	run->cfg = cfg;
	run->workload = wl->name;
	wl->spec(cfg, &run->spec);
	/* --verify: patterns the server checks too (RPCPERF_REQ_*). */
	if (cfg->verify)
		run->spec.req_type = rpcperf_req_echoes(run->spec.req_type) ?
			RPCPERF_REQ_ECHO_VERIFY : RPCPERF_REQ_SINK_VERIFY;
	run->total = until_stop ? UINT64_MAX : cfg->warmup + cfg->iters;
	run->wrap = until_stop;
	if (run->spec.sessions == 0 ||
	    run->spec.sessions > RPCPERF_MAX_SESSIONS)
		return -EINVAL;
	for (k = 0; k < cfg->nb_client_lcores; k++) {
		struct rpcperf_client *c = &run->clients[k];

		c->run = run;
		c->idx = k;
		c->lcore = cfg->client_lcores[k];
		if (rpcperf_samples_init(&c->s, cfg->iters) != 0) {
			fprintf(stderr, "rpcperf: no memory for %" PRIu64
				" samples\n", cfg->iters);
			return -ENOMEM;
		}
		c->s.workload = wl->name;
	}
	/*
	 * Before the sessions: one may reset while they come up. (An
	 * in-process run's nexus is made in inproc_up(): from 0.)
	 */
	if (cfg->mode == RPCPERF_CLIENT && rpcperf_client_setup(cfg) == 0)
		pmr_nexus_stats_get(remote.nx, &run->nx0);
	ret = cfg->mode == RPCPERF_CLIENT ? client_up(run) : inproc_up(run);
	if (ret != 0)
		return ret;
	for (k = 0; k < run->nb_clients; k++)
		rpcperf_client_counts_reset(run, k);
	if (run->spec.report_memory)
		for (k = 0; k < run->nb_clients; k++)
			fprintf(stderr, "rpcperf: %s: lcore %u: %u sessions, "
				"client worker %zu KiB, %zu bytes per session "
				"(fixed pools included)\n", wl->name,
				run->clients[k].lcore,
				run->clients[k].nb_sessions,
				run->clients[k].heap / 1024,
				run->clients[k].heap /
				RTE_MAX(run->clients[k].nb_sessions, 1u));
	return 0;
}

int
rpcperf_run_start(struct rpcperf_run *run)
{
	unsigned int k, main_lcore = rte_get_main_lcore();

	for (k = 0; k < run->nb_clients; k++) {
		struct rpcperf_client *c = &run->clients[k];

		if (c->lcore == main_lcore)
			continue;
		if (rte_eal_remote_launch(rpcperf_client_loop, c,
				c->lcore) != 0) {
			fprintf(stderr, "rpcperf: client lcore %u is busy\n",
				c->lcore);
			c->ret = -EBUSY;
			continue;
		}
		c->launched = true;
	}
	return 0;
}

/* What the client nexus counted since the run began. */
static void
nexus_counts(struct rpcperf_run *run)
{
	struct pmr_nexus_stats nst;

	if (pmr_nexus_stats_get(run_nexus(run), &nst) != 0)
		return;
	run->nexus.peers_dead = nst.peers_dead - run->nx0.peers_dead;
	run->nexus.sessions_reset = nst.sessions_reset -
		run->nx0.sessions_reset;
	run->nexus.alive_by_data = nst.alive_by_data - run->nx0.alive_by_data;
}

int
rpcperf_run_wait(struct rpcperf_run *run)
{
	unsigned int k, main_lcore = rte_get_main_lcore();
	struct pmr_worker_stats st;
	int ret = 0;

	for (k = 0; k < run->nb_clients; k++)
		if (run->clients[k].lcore == main_lcore)
			run->clients[k].ret =
				rpcperf_client_loop(&run->clients[k]);
	for (k = 0; k < run->nb_clients; k++) {
		struct rpcperf_client *c = &run->clients[k];

		if (c->launched) {
			/* Asleep: the main lcore may share a CPU with it. */
			while (rte_eal_get_lcore_state(c->lcore) == RUNNING)
				usleep(1000);
			/* rpcperf_client_loop()'s: a failed run fails. */
			c->ret = rte_eal_wait_lcore(c->lcore);
			c->launched = false;
		}
		if (c->ret != 0 && ret == 0)
			ret = c->ret;
		pmr_worker_stats_get(c->worker, &st);
		c->s.retransmissions = st.retransmissions -
			c->st0.retransmissions;
		c->s.timeouts = st.timeouts - c->st0.timeouts;
		c->s.done = c->done;
		c->s.sessions_reset = c->resets;
		c->s.drops = rpcperf_client_drops(run, k);
		c->s.sessions = c->nb_sessions;
		c->s.client_heap = c->heap;
		memset(&c->s.path, 0, sizeof(c->s.path));
		rpcperf_path_add(&c->s.path, c->worker, &c->st0);
		/* In-process, server k answers client k. */
		if (k < run->nb_servers)
			rpcperf_path_add(&c->s.path, run->servers[k], &c->srv0);
	}
	nexus_counts(run);
	return ret;
}

uint64_t
rpcperf_run_done(const struct rpcperf_run *run)
{
	uint64_t done = 0;
	unsigned int k;

	for (k = 0; k < run->nb_clients; k++)
		done += __atomic_load_n(&run->clients[k].done,
				__ATOMIC_RELAXED);
	return done;
}

void
rpcperf_run_down(struct rpcperf_run *run)
{
	unsigned int i, k;

	for (k = 0; k < run->nb_clients; k++) {
		struct rpcperf_client *c = &run->clients[k];

		rpcperf_worker_drops_print("client lcore", c->lcore, c->worker, &c->st0,
				&c->drv0);
		for (i = 0; i < c->nb_sessions; i++)
			pmr_session_destroy(c->worker, c->sessions[i]);
		c->nb_sessions = 0;
	}
	/* In-process, server k answers client k. */
	for (k = 0; k < run->nb_servers && k < run->nb_clients; k++)
		rpcperf_worker_drops_print("server worker", k, run->servers[k],
				&run->clients[k].srv0,
				&run->clients[k].srvdrv0);
	if (run->nb_running != 0) {
		/* Let the servers see the sessions go, then stop them. */
		for (i = 0; i < 1000; i++)
			for (k = 0; k < run->nb_clients; k++)
				pmr_worker_poll(run->clients[k].worker);
		__atomic_store_n(&run->stop_servers, true, __ATOMIC_RELAXED);
		for (k = 0; k < run->nb_running; k++)
			rte_eal_wait_lcore(run->pollers[k].lcore);
	} else if (run->cfg->mode == RPCPERF_CLIENT) {
		/* Let the session closes go out. */
		for (i = 0; i < 1000; i++)
			for (k = 0; k < run->nb_clients; k++)
				pmr_worker_poll(run->clients[k].worker);
	}
	for (k = 0; k < RPCPERF_MAX_LCORES; k++)
		rpcperf_samples_free(&run->clients[k].s);
	for (k = 0; k < run->nb_clients; k++) {
		struct rpcperf_client *c = &run->clients[k];

		/* --connect: the workers stay for the next run. */
		if (run->cfg->mode != RPCPERF_CLIENT &&
		    pmr_worker_destroy(c->worker) != 0)
			fprintf(stderr, "rpcperf: client lcore %u: msgbufs "
				"leaked\n", c->lcore);
		free(c->sessions);
		c->sessions = NULL;
		/* Destroyed, or their worker is: no callback any more. */
		free(c->sess);
		c->sess = NULL;
	}
	for (k = 0; k < run->nb_servers; k++)
		if (pmr_worker_destroy(run->servers[k]) != 0)
			fprintf(stderr, "rpcperf: server worker %u: msgbufs "
				"leaked\n", k);
	if (run->nx != NULL)
		pmr_nexus_destroy(run->nx);
	/* A worker closes its port; those of workers never made are ours. */
	for (k = 0; k < run->nb_ports; k++) {
		bool closed = k % 2 == 0 ? k / 2 < run->nb_servers :
			k / 2 < run->nb_clients;

		if (!closed && run->ports[k] >= 0)
			rte_eth_dev_close((uint16_t)run->ports[k]);
	}
	for (k = 0; k < 2 * RPCPERF_MAX_LCORES; k++)
		rte_ring_free(run->rings[k]);
	free(run->pollers);
	run->pollers = NULL;
	run->nb_clients = 0;
	run->nb_servers = 0;
	run->nb_ports = 0;
	run->nx = NULL;
}

int
rpcperf_run_results(struct rpcperf_run *run, struct rpcperf_result *r,
		FILE *cdf_csv)
{
	struct rpcperf_samples rows[RPCPERF_MAX_LCORES];
	unsigned int k;
	int ret;

	for (k = 0; k < run->nb_clients; k++)
		rows[k] = run->clients[k].s;
	ret = rpcperf_merge(rows, run->nb_clients, rte_get_tsc_hz(), r,
			cdf_csv);
	for (k = 0; k < run->nb_clients && r->lcores != NULL; k++) {
		r->lcores[k].lcore = (int)run->clients[k].lcore;
		r->lcores[k].rpc = true;
		r->lcores[k].verified = run->cfg->verify;
	}
	r->rpc = true;
	r->verified = run->cfg->verify;
	r->nexus = run->nexus;
	memset(&r->path, 0, sizeof(r->path));
	for (k = 0; k < run->nb_clients; k++) {
		const struct rpcperf_path *p = &run->clients[k].s.path;

		r->path.reads += p->reads;
		r->path.read_bytes += p->read_bytes;
		r->path.read_errors += p->read_errors;
		r->path.descs_sent += p->descs_sent;
		r->path.fallbacks += p->fallbacks;
		r->path.copied_bytes += p->copied_bytes;
	}
	return ret;
}

/* A failed run's row: its counters stay, no figures. */
static void
figures_clear(struct rpcperf_result *r)
{
	r->iters = 0;
	r->min = 0;
	r->p50 = 0;
	r->p90 = 0;
	r->p99 = 0;
	r->p999 = 0;
	r->max = 0;
	r->mean = 0;
	r->mrps = 0;
	r->gbps = 0;
}

int
rpcperf_run_counts(struct rpcperf_run *run, struct rpcperf_result *r)
{
	unsigned int k;
	int ret;

	/* Failed setting up (no rpcperf_run_wait()): resets then. */
	for (k = 0; k < run->nb_clients; k++) {
		struct rpcperf_client *c = &run->clients[k];

		c->s.sessions_reset = c->resets;
		c->s.done = c->done;
	}
	nexus_counts(run);
	ret = rpcperf_run_results(run, r, NULL);
	figures_clear(r);
	for (k = 0; k < r->nb_lcores && r->lcores != NULL; k++)
		figures_clear(&r->lcores[k]);
	return ret;
}
