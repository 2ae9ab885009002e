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
 *            [--faults=SPEC] [--peer-timeout-ms=MS] [--spin]
 *   pmr_peer [EAL args] -- --client --churn --uri=HOST:0 --devargs=D
 *            [--devargs=D]... --connect=HOST:PORT [...]
 *
 * A server runs one worker per --devargs (ids 0, 1, ...) on the main lcore
 * and echoes every request with its bytes inverted, until SIGTERM/SIGINT;
 * it prints "ready" once up and its counters at exit. A client sends
 * --count requests of sizes 0..--max-size, --conc at a time, verifies each
 * echo, and prints one "result" line. With --until-reset it runs until its
 * session is reset (the server died), reports how long after the last
 * answer that was noticed, then reconnects within --reconnect-ms and runs
 * --count more. Either side yields its CPU after a poll with nothing to
 * do, unless --spin.
 *
 * --churn: a worker per --devargs, worker k with a session to the server's
 * worker --remote-worker + k, all sending without end until SIGTERM or
 * SIGINT, through any number of server deaths. It prints "up E" when the
 * sessions of epoch E are up, "served E N" once each answered N (--count)
 * requests, and "end E WHY" when a session was reset, a port's link went
 * down (its memif server went) or SIGUSR1 came. It then destroys the
 * sessions and the workers (which close their ports), unplugs and plugs
 * each port's vdev again (a net_memif client connects only when its port
 * starts) and starts the next epoch, retrying until a server listens
 * again, the links are up and the sessions connect, or --reconnect-ms
 * have passed.
 *
 * Exit status 0 only if everything checked out and every buffer came back
 * (with --churn, at each worker's destroy).
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

#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
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
	bool churn;
	bool spin;		/* poll without yielding when idle */
};

static volatile sig_atomic_t quit;
static volatile sig_atomic_t restart;	/* SIGUSR1 (--churn) */

static void
on_signal(int sig)
{
	if (sig == SIGUSR1)
		restart = 1;
	else
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
		if (work == 0 && !o->spin)
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
struct client;

struct call {
	struct client *c;
	struct pmr_msgbuf *req;
	uint64_t t0;
	uint64_t t0_ns;
	bool busy;
};

struct client {
	const struct opts *o;
	struct pmr_worker *w;
	uint16_t remote_worker;
	int session;
	struct call calls[MAX_CONC];
	uint32_t sent, ok, bad, reset, timeout, other;
	uint32_t ok_epoch;	/* --churn: answered in this session */
	bool stop;		/* --churn: send no more */
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

static void
client_init(struct client *c, const struct opts *o, uint16_t remote_worker)
{
	uint32_t i;

	memset(c, 0, sizeof(*c));
	c->o = o;
	c->remote_worker = remote_worker;
	for (i = 0; i < RTE_DIM(c->calls); i++)
		c->calls[i].c = c;
}

static void
on_call(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct call *k = tag;
	struct client *c = k->c;
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
		c->ok_epoch++;
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
				c->remote_worker, on_session, c);
		if (c->session < 0)
			return c->session;
		while (c->sess_state == 0)
			pmr_worker_poll(c->w);
		if (c->sess_state == 1)
			return 0;
		pmr_session_destroy(c->w, c->session);
		c->session = -1;
		/* --churn starts its port again for a dead data path. */
		if (now_us() > deadline || (o->churn &&
				c->sess_state == -ENETUNREACH))
			return c->sess_state;
		usleep(50 * 1000);
	}
}

/*
 * Send on every free call of c, unless its session was reset, SIGTERM came
 * or (!until_reset) target requests were sent; true while any is in
 * flight.
 */
static bool
client_issue(struct client *c, bool until_reset, uint32_t target)
{
	const struct opts *o = c->o;
	bool busy = false;
	uint32_t i;

	for (i = 0; i < o->conc; i++) {
		struct call *k = &c->calls[i];
		uint32_t len, b;

		if (k->busy) {
			busy = true;
			continue;
		}
		if (c->reset != 0 || c->stop || quit || (!until_reset &&
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
	return busy;
}

/* Run count calls, or until the session is reset. */
static void
client_run(struct client *c, uint32_t count, bool until_reset)
{
	uint32_t target = c->sent + count;

	for (;;) {
		bool busy = client_issue(c, until_reset, target);

		if (!busy && (c->reset != 0 || c->sent >= target || quit))
			break;
		if (pmr_worker_poll(c->w) == 0 && !c->o->spin)
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
	struct client c;
	int ret;

	client_init(&c, o, o->remote_worker);
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

/*
 * --churn: a client's port, to plug again once its worker closed it: its
 * vdev's name and arguments, read before the first worker closes it.
 */
struct churn_port {
	char name[RTE_DEV_NAME_MAX_LEN];
	char args[512];
};

/* The port devargs names (port=<id or name>, as the eth driver takes). */
static int
churn_port_get(const char *devargs, struct churn_port *cp)
{
	const struct rte_devargs *da;
	struct rte_eth_dev_info info;
	char name[RTE_DEV_NAME_MAX_LEN];
	const char *p = strstr(devargs, "port=");
	uint16_t port;
	char *end;

	if (p == NULL || (p != devargs && p[-1] != ','))
		goto bad;
	snprintf(name, sizeof(name), "%s", p + strlen("port="));
	name[strcspn(name, ",")] = '\0';
	port = (uint16_t)strtoul(name, &end, 0);
	if ((*end != '\0' || end == name) &&
	    rte_eth_dev_get_port_by_name(name, &port) != 0)
		goto bad;
	if (rte_eth_dev_info_get(port, &info) != 0 || info.device == NULL)
		goto bad;
	da = rte_dev_devargs(info.device);
	snprintf(cp->name, sizeof(cp->name), "%s", rte_dev_name(info.device));
	snprintf(cp->args, sizeof(cp->args), "%s",
		da != NULL && da->args != NULL ? da->args : "");
	return 0;
bad:
	fprintf(stderr, "pmr_peer: no port in '%s'\n", devargs);
	return -1;
}

/* The port closed (or never started): its vdev again, as at start. */
static int
churn_replug(const struct churn_port *cp)
{
	int ret;

	rte_eal_hotplug_remove("vdev", cp->name);
	ret = rte_eal_hotplug_add("vdev", cp->name, cp->args);
	if (ret != 0)
		fprintf(stderr, "pmr_peer: plug %s,%s: %s\n", cp->name,
			cp->args, strerror(-ret));
	return ret;
}

/* Is the port's link up within ms (a memif client: connected)? */
static bool
churn_link_up(const struct churn_port *cp, uint32_t ms)
{
	uint64_t deadline = now_us() + (uint64_t)ms * 1000;
	struct rte_eth_link link;
	uint16_t port;

	if (rte_eth_dev_get_port_by_name(cp->name, &port) != 0)
		return false;
	do {
		if (rte_eth_link_get_nowait(port, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			return true;
		usleep(10 * 1000);
	} while (now_us() < deadline && !quit);
	return false;
}

/*
 * Every client's session closed and worker destroyed (which closes its
 * port), every buffer back; then each port plugged again if replug.
 */
static int
churn_down(struct client *c, const struct churn_port *cp, unsigned int n,
		bool replug)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		if (c[i].w == NULL)
			continue;
		if (c[i].session >= 0)
			pmr_session_destroy(c[i].w, c[i].session);
		c[i].session = -1;
		if (pmr_worker_destroy(c[i].w) != 0) {
			fprintf(stderr, "pmr_peer: client %u: buffers "
				"leaked\n", i);
			ret = -1;
		}
		c[i].w = NULL;
	}
	for (i = 0; ret == 0 && replug && i < n; i++)
		ret = churn_replug(&cp[i]);
	return ret;
}

/*
 * A worker on each port, its link up and its session connected, by the
 * deadline. A memif client whose server listened but had not started its
 * port yet was turned away ("ID not found") and never tries again; one
 * whose server died meanwhile has no data path: the ports are plugged
 * again and started anew.
 */
static int
churn_up(struct pmr_nexus *nx, const struct opts *o, struct client *c,
		const struct churn_port *cp, unsigned int n, uint64_t deadline)
{
	unsigned int i;
	int err;

	for (;;) {
		err = 0;
		for (i = 0; i < n && err == 0; i++) {
			c[i].w = worker_up(nx, o, (uint16_t)i, o->devargs[i]);
			if (c[i].w == NULL)
				err = -rte_errno;
			else if (!churn_link_up(&cp[i], 2000))
				err = -ENETUNREACH;
		}
		for (i = 0; i < n && err == 0; i++)
			err = client_connect(&c[i]);
		if (err == 0)
			return 0;
		if (churn_down(c, cp, n, true) != 0)
			return -EIO;
		if ((err != -ECONNREFUSED && err != -ENETUNREACH) || quit ||
		    now_us() > deadline)
			return err;
		usleep(50 * 1000);
	}
}

/* Has any of the n ports lost its link (a memif peer closed it)? */
static bool
churn_link_down(const struct churn_port *cp, unsigned int n)
{
	struct rte_eth_link link;
	unsigned int i;
	uint16_t port;

	for (i = 0; i < n; i++)
		if (rte_eth_dev_get_port_by_name(cp[i].name, &port) != 0 ||
		    rte_eth_link_get_nowait(port, &link) != 0 ||
		    link.link_status != RTE_ETH_LINK_UP)
			return true;
	return false;
}

/*
 * Requests on every session until one is reset, a port's link goes down
 * or SIGUSR1 (at once: destroying the sessions ends what is in flight),
 * or SIGTERM. Why it ended.
 */
static const char *
churn_run(struct client *c, const struct churn_port *cp, unsigned int n,
		uint32_t epoch)
{
	const struct opts *o = c[0].o;
	bool served = false, reset = false, busy;
	unsigned int i, work, low, polls = 0;

	for (;;) {
		busy = false;
		work = 0;
		low = UINT32_MAX;
		for (i = 0; i < n; i++) {
			/* A reset of one: the others stop sending too. */
			c[i].stop = reset;
			busy |= client_issue(&c[i], true, 0);
			work += pmr_worker_poll(c[i].w);
			reset |= c[i].reset != 0;
			low = RTE_MIN(low, c[i].ok_epoch);
		}
		if (!served && low >= o->count) {
			printf("served %u %u\n", epoch, low);
			fflush(stdout);
			served = true;
		}
		if (restart) {
			restart = 0;
			return "restart";
		}
		if (++polls % 64 == 0 && churn_link_down(cp, n))
			return "down";
		if (!busy && (reset || quit))
			return reset ? "reset" : "quit";
		if (work == 0 && !o->spin)
			sched_yield();
	}
}

static int
run_churn(struct pmr_nexus *nx, const struct opts *o)
{
	struct client c[MAX_WORKERS];
	struct churn_port cp[MAX_WORKERS];
	unsigned int i, n = o->nb_devargs;
	uint32_t epoch = 0, sent = 0, ok = 0, bad = 0, resets = 0;
	uint32_t timeouts = 0, other = 0, low;
	const char *why;
	uint64_t last_ok;
	int ret = 0, err;

	for (i = 0; i < n; i++) {
		client_init(&c[i], o, (uint16_t)(o->remote_worker + i));
		c[i].session = -1;
		if (churn_port_get(o->devargs[i], &cp[i]) != 0)
			return 1;
	}
	while (!quit) {
		err = churn_up(nx, o, c, cp, n, now_us() +
				(uint64_t)o->reconnect_ms * 1000);
		if (err != 0) {
			if (!quit)
				fprintf(stderr, "pmr_peer: connect %s: %s\n",
					o->connect, strerror(-err));
			ret = !quit;
			break;
		}
		printf("up %u\n", ++epoch);
		fflush(stdout);
		for (i = 0; i < n; i++) {
			c[i].ok_epoch = 0;
			c[i].reset = 0;
			c[i].stop = false;
		}
		why = churn_run(c, cp, n, epoch);
		low = UINT32_MAX;
		last_ok = 0;
		for (i = 0; i < n; i++) {
			low = RTE_MIN(low, c[i].ok_epoch);
			last_ok = RTE_MAX(last_ok, c[i].last_ok_us);
		}
		printf("end %u %s after %" PRIu64 " ms, %u answered on each "
			"session\n", epoch, why, (now_us() - last_ok) / 1000,
			low);
		fflush(stdout);
		/*
		 * Every buffer back, each time: the sessions end what is in
		 * flight (SESSION_RESET), the ports close with the workers.
		 */
		if (churn_down(c, cp, n, !quit) != 0) {
			ret = 1;
			break;
		}
		for (i = 0; i < n; i++)
			resets += c[i].reset;
	}
	for (i = 0; i < n; i++) {
		sent += c[i].sent;
		ok += c[i].ok;
		bad += c[i].bad;
		timeouts += c[i].timeout;
		other += c[i].other;
	}
	printf("result sent %u ok %u bad %u reset %u timeout %u other %u "
		"epochs %u\n", sent, ok, bad, resets, timeouts, other, epoch);
	return ret != 0 || bad != 0 || other != 0;
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
		{ "churn", no_argument, NULL, 'K' },
		{ "spin", no_argument, NULL, 'P' },
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
		case 'K': o->churn = true; break;
		case 'P': o->spin = true; break;
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
	signal(SIGUSR1, on_signal);
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
	ret = o.server ? run_server(nx, &o) : o.churn ? run_churn(nx, &o) :
		run_client(nx, &o);
	if (pmr_nexus_destroy(nx) != 0)
		ret = 1;
	rte_eal_cleanup();
	return ret;
}
