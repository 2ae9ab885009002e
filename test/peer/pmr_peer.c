/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * pmr_peer: one side of the multi-process tests (test/multiproc/).
 *
 *   pmr_peer [EAL args] -- --server --uri=HOST:PORT --devargs=D [--devargs=D]...
 *   pmr_peer [EAL args] -- --client --uri=HOST:0 --devargs=D
 *            --connect=HOST:PORT [--remote-worker=N] [--count=N] [--conc=N]
 *            [--max-size=B | --size=B] [--until-reset] [--reconnect-ms=MS]
 *            [--faults=SPEC] [--peer-timeout-ms=MS]
 *
 * A server runs one worker per --devargs (ids 0, 1, ...) on the main lcore
 * and echoes every request with its bytes inverted, until SIGTERM/SIGINT;
 * it prints "ready" once up and its counters at exit. A client sends
 * --count requests of sizes 0..--max-size, --conc at a time, verifies each
 * echo, and prints one "result" line. With --until-reset it runs until its
 * session is reset (the server died), reports how long after the last
 * answer that was noticed, then reconnects within --reconnect-ms and runs
 * --count more. Exit status 0 only if everything checked out and every
 * buffer came back.
 */

#include <errno.h>
#include <sched.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "pmr_rpc.h"

#define REQ_ECHO 1
#define MAX_WORKERS 8
#define MAX_CONC 64

struct opts {
	bool server;
	const char *uri;
	const char *devargs[MAX_WORKERS];
	unsigned int nb_devargs;
	const char *connect;
	uint16_t remote_worker;
	uint32_t count;
	uint32_t conc;
	uint32_t max_size;
	int32_t size;		/* fixed request size, -1: mixed */
	bool until_reset;
	uint32_t reconnect_ms;
	const char *faults;
	uint32_t peer_timeout_ms;
};

static volatile sig_atomic_t quit;

static void
on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

static uint64_t
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void
echo_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_worker *w = pmr_req_worker(req);
	const uint8_t *in = pmr_req_data(req);
	uint32_t i, len = pmr_req_len(req);
	struct pmr_msgbuf *resp;

	(void)arg;
	resp = len <= pmr_worker_pkt_size(w) ? pmr_req_resp_buf(req) :
		pmr_worker_msgbuf_alloc(w, len);
	if (resp == NULL) {
		pmr_respond_error(req, PMR_E_NOMEM);
		return;
	}
	pmr_msgbuf_resize(resp, len);
	for (i = 0; i < len; i++)
		resp->data[i] = (uint8_t)~in[i];
	pmr_respond(req, resp);
}

static struct pmr_worker *
worker_up(struct pmr_nexus *nx, const struct opts *o, uint16_t id,
		const char *devargs)
{
	struct pmr_worker_conf conf = {
		.worker_id = id,
		.devargs = devargs,
		.nb_msgbufs = 2048,
		.max_msg_size = 1u << 20,
		.nb_large_msgbufs = 8,
		.faults = o->faults,
		.req_timeout_ms = 5000,
	};
	struct pmr_worker *w = pmr_worker_create(nx, &conf);

	if (w == NULL)
		fprintf(stderr, "pmr_peer: worker %u on '%s': %s\n", id,
			devargs, rte_strerror(rte_errno));
	return w;
}

static uint64_t
drops_named(const struct pmr_worker_stats *st, const char *name)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(st->drops); i++)
		if (pmr_worker_drop_name(i) != NULL &&
		    strcmp(pmr_worker_drop_name(i), name) == 0)
			return st->drops[i];
	return 0;
}

static int
run_server(struct pmr_nexus *nx, const struct opts *o)
{
	struct pmr_worker *w[MAX_WORKERS];
	struct pmr_worker_stats st;
	uint64_t handled = 0, drops = 0;
	unsigned int i, n = o->nb_devargs;
	int ret = 0;

	pmr_nexus_register_handler(nx, REQ_ECHO, echo_handler, NULL);
	for (i = 0; i < n; i++) {
		w[i] = worker_up(nx, o, (uint16_t)i, o->devargs[i]);
		if (w[i] == NULL) {
			n = i;
			ret = 1;
			goto out;
		}
	}
	printf("ready %s\n", pmr_nexus_uri(nx));
	fflush(stdout);
	while (!quit) {
		int work = 0;

		for (i = 0; i < n; i++)
			work += pmr_worker_poll(w[i]);
		/* Many processes share few cores in these tests. */
		if (work == 0)
			sched_yield();
	}
out:
	for (i = 0; i < n; i++) {
		pmr_worker_stats_get(w[i], &st);
		printf("worker %u handled %" PRIu64 " drops %" PRIu64
			" bad_source %" PRIu64 " bad_token %" PRIu64 "\n", i,
			st.reqs_handled, st.rx_drops,
			drops_named(&st, "bad_source"),
			drops_named(&st, "bad_token"));
		handled += st.reqs_handled;
		drops += st.rx_drops;
		if (pmr_worker_destroy(w[i]) != 0)
			ret = 1;
	}
	printf("server handled %" PRIu64 " drops %" PRIu64 "\n", handled,
		drops);
	return ret;
}

/* Client side. */
struct call {
	struct pmr_msgbuf *req;
	uint64_t t0;
	uint64_t t0_ns;
	bool busy;
};

struct client {
	const struct opts *o;
	struct pmr_worker *w;
	int session;
	struct call calls[MAX_CONC];
	uint32_t sent, ok, bad, reset, timeout, other;
	uint64_t last_ok_us;
	uint64_t reset_us;
	uint64_t rtt_sum_us;
	uint32_t *rtt_ns;	/* one per answered call, for percentiles */
	uint32_t nb_rtt, cap_rtt;
	int sess_state;		/* 1 up, <0 failed */
};

static void
on_session(struct pmr_worker *w, int session, enum pmr_session_event ev,
		int err, void *arg)
{
	struct client *c = arg;

	(void)w;
	(void)session;
	if (ev == PMR_SESSION_EV_CONNECTED)
		c->sess_state = 1;
	else
		c->sess_state = err != 0 ? err : -1;
}

static struct client *the_client;

static void
on_call(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct client *c = the_client;
	struct call *k = tag;
	const uint8_t *d = resp->data, *q = resp->req->data;
	uint32_t i;

	(void)w;
	k->busy = false;
	switch (resp->status) {
	case PMR_OK:
		for (i = 0; i < resp->len; i++)
			if ((uint8_t)(d[i] + q[i]) != 0xff)
				break;
		if (resp->len != resp->req->len || i != resp->len) {
			c->bad++;
			break;
		}
		c->ok++;
		c->last_ok_us = now_us();
		c->rtt_sum_us += c->last_ok_us - k->t0;
		if (c->nb_rtt < c->cap_rtt)
			c->rtt_ns[c->nb_rtt++] = (uint32_t)RTE_MIN(
				(now_ns() - k->t0_ns), (uint64_t)UINT32_MAX);
		break;
	case PMR_E_SESSION_RESET:
		if (c->reset++ == 0)
			c->reset_us = now_us();
		break;
	case PMR_E_TIMEOUT:
		c->timeout++;
		break;
	default:
		c->other++;
		break;
	}
	pmr_msgbuf_free(resp->req);
}

static int
client_connect(struct client *c)
{
	const struct opts *o = c->o;
	uint64_t deadline = now_us() + (uint64_t)o->reconnect_ms * 1000;

	for (;;) {
		c->sess_state = 0;
		c->session = pmr_session_create(c->w, o->connect,
				o->remote_worker, on_session, c);
		if (c->session < 0)
			return c->session;
		while (c->sess_state == 0)
			pmr_worker_poll(c->w);
		if (c->sess_state == 1)
			return 0;
		pmr_session_destroy(c->w, c->session);
		if (now_us() > deadline)
			return c->sess_state;
		usleep(50 * 1000);
	}
}

/* Run count calls, or until the session is reset. */
static void
client_run(struct client *c, uint32_t count, bool until_reset)
{
	const struct opts *o = c->o;
	uint32_t target = c->sent + count, i;

	for (;;) {
		bool busy = false;

		for (i = 0; i < o->conc; i++) {
			struct call *k = &c->calls[i];
			uint32_t len, b;

			if (k->busy) {
				busy = true;
				continue;
			}
			if (c->reset != 0 || (!until_reset &&
					       c->sent >= target))
				continue;
			len = o->size >= 0 ? (uint32_t)o->size :
				o->max_size != 0 ?
				(c->sent * 2654435761u) % (o->max_size + 1) : 0;
			k->req = pmr_worker_msgbuf_alloc(c->w, len);
			if (k->req == NULL)
				continue;
			for (b = 0; b < len; b++)
				k->req->data[b] = (uint8_t)(c->sent + b * 7);
			k->t0 = now_us();
			k->t0_ns = now_ns();
			if (pmr_request(c->w, c->session, REQ_ECHO, k->req,
					on_call, k) != 0) {
				pmr_msgbuf_free(k->req);
				continue;
			}
			k->busy = true;
			busy = true;
			c->sent++;
		}
		if (!busy && (c->reset != 0 || c->sent >= target || quit))
			break;
		if (pmr_worker_poll(c->w) == 0)
			sched_yield();
	}
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static double
pct_us(const struct client *c, double pct)
{
	uint32_t i;

	if (c->nb_rtt == 0)
		return 0;
	i = (uint32_t)(pct / 100.0 * (c->nb_rtt - 1) + 0.5);
	return c->rtt_ns[i] / 1000.0;
}

static int
run_client(struct pmr_nexus *nx, const struct opts *o)
{
	struct client c = { .o = o };
	int ret;

	the_client = &c;
	c.cap_rtt = o->count;
	c.rtt_ns = calloc(c.cap_rtt != 0 ? c.cap_rtt : 1, sizeof(*c.rtt_ns));
	if (c.rtt_ns == NULL)
		return 1;
	c.w = worker_up(nx, o, 0, o->devargs[0]);
	if (c.w == NULL)
		return 1;
	ret = client_connect(&c);
	if (ret != 0) {
		fprintf(stderr, "pmr_peer: connect %s: %s\n", o->connect,
			strerror(-ret));
		pmr_worker_destroy(c.w);
		return 1;
	}
	client_run(&c, o->count, o->until_reset);
	if (o->until_reset) {
		printf("reset after %" PRIu64 " ms (%u requests reset)\n",
			c.reset != 0 ? (c.reset_us - c.last_ok_us) / 1000 : 0,
			c.reset);
		fflush(stdout);
		pmr_session_destroy(c.w, c.session);
		ret = client_connect(&c);
		if (ret != 0) {
			fprintf(stderr, "pmr_peer: reconnect: %s\n",
				strerror(-ret));
			c.bad++;
		} else {
			c.reset = 0;
			client_run(&c, o->count, false);
			printf("reconnected\n");
		}
	}
	pmr_session_destroy(c.w, c.session);
	qsort(c.rtt_ns, c.nb_rtt, sizeof(*c.rtt_ns), cmp_u32);
	printf("result sent %u ok %u bad %u reset %u timeout %u other %u "
		"rtt_avg_us %.1f p50_us %.2f p99_us %.2f\n", c.sent, c.ok,
		c.bad, c.reset, c.timeout, c.other,
		c.ok != 0 ? (double)c.rtt_sum_us / c.ok : 0, pct_us(&c, 50),
		pct_us(&c, 99));
	free(c.rtt_ns);
	if (pmr_worker_destroy(c.w) != 0) {
		fprintf(stderr, "pmr_peer: buffers leaked\n");
		return 1;
	}
	return c.bad == 0 && c.other == 0 &&
		(o->until_reset || c.ok == c.sent) ? 0 : 1;
}

static int
parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "server", no_argument, NULL, 's' },
		{ "client", no_argument, NULL, 'c' },
		{ "uri", required_argument, NULL, 'u' },
		{ "devargs", required_argument, NULL, 'd' },
		{ "connect", required_argument, NULL, 'C' },
		{ "remote-worker", required_argument, NULL, 'r' },
		{ "count", required_argument, NULL, 'n' },
		{ "conc", required_argument, NULL, 'k' },
		{ "max-size", required_argument, NULL, 'm' },
		{ "size", required_argument, NULL, 'S' },
		{ "until-reset", no_argument, NULL, 'R' },
		{ "reconnect-ms", required_argument, NULL, 'T' },
		{ "faults", required_argument, NULL, 'f' },
		{ "peer-timeout-ms", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	memset(o, 0, sizeof(*o));
	o->count = 1000;
	o->conc = 8;
	o->max_size = 2000;
	o->size = -1;
	o->reconnect_ms = 10000;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (opt) {
		case 's': o->server = true; break;
		case 'c': o->server = false; break;
		case 'u': o->uri = optarg; break;
		case 'd':
			if (o->nb_devargs == MAX_WORKERS)
				return -1;
			o->devargs[o->nb_devargs++] = optarg;
			break;
		case 'C': o->connect = optarg; break;
		case 'r': o->remote_worker = (uint16_t)atoi(optarg); break;
		case 'n': o->count = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'k': o->conc = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'm': o->max_size = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'S': o->size = atoi(optarg); break;
		case 'R': o->until_reset = true; break;
		case 'T': o->reconnect_ms = (uint32_t)atoi(optarg); break;
		case 'f': o->faults = optarg; break;
		case 'p': o->peer_timeout_ms = (uint32_t)atoi(optarg); break;
		default: return -1;
		}
	}
	if (o->uri == NULL || o->nb_devargs == 0 || o->conc == 0 ||
	    o->conc > MAX_CONC || (!o->server && o->connect == NULL))
		return -1;
	return 0;
}

int
main(int argc, char **argv)
{
	struct pmr_nexus_conf nconf = { .connect_timeout_ms = 2000 };
	struct pmr_nexus *nx;
	struct opts o;
	int n, ret;

	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGPIPE, SIG_IGN);
	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "pmr_peer: EAL: %s\n", rte_strerror(rte_errno));
		return 2;
	}
	argc -= n;
	argv += n;
	if (parse(argc, argv, &o) != 0) {
		fprintf(stderr, "pmr_peer: bad arguments (see the comment at "
			"the top of test/peer/pmr_peer.c)\n");
		rte_eal_cleanup();
		return 2;
	}
	if (o.peer_timeout_ms != 0) {
		nconf.peer_timeout_ms = o.peer_timeout_ms;
		nconf.heartbeat_interval_ms = o.peer_timeout_ms / 5;
	}
	nx = pmr_nexus_create(o.uri, &nconf);
	if (nx == NULL) {
		fprintf(stderr, "pmr_peer: nexus %s: %s\n", o.uri,
			rte_strerror(rte_errno));
		rte_eal_cleanup();
		return 2;
	}
	ret = o.server ? run_server(nx, &o) : run_client(nx, &o);
	if (pmr_nexus_destroy(nx) != 0)
		ret = 1;
	rte_eal_cleanup();
	return ret;
}
