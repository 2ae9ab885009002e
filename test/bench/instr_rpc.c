/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Instructions per small RPC, for callgrind: devtools/bench-instructions.sh
 * runs this under valgrind --tool=callgrind --instr-atstart=no
 * --collect-atstart=no and splits what it counted (doc/benchmarks.md).
 *
 *   instr_rpc -l 0 --no-pci --no-huge -m 256 --no-shconf -- [-n N] [-w W]
 *		[-d D] [-s SIZE] [-D DRIVER] [-a DEVARGS]
 *
 * One thread polls a server worker and a client worker on an in-process
 * ring pair (-D eth, the default), or on a queue each of one device
 * (-D verbs -a dev=hca0: the software HCA model, preloaded, or any
 * device), one session between them; the server echoes SIZE-byte
 * (default 32) requests with pmr_req_resp_buf(). D requests (default 1)
 * are outstanding at any time: each continuation issues the next request
 * on the same msgbuf, so pmr_request() runs inside the client's poll.
 *
 * No poll is idle in steady state. A client poll receives the D responses,
 * runs their continuations (each issuing one request) and sends the D new
 * requests; the ring pair delivers at once (the model delivers at the
 * receiver's next CQ poll), so the server poll that follows receives
 * all D of them, runs the handler, and sends the D
 * responses, which the next client poll receives. Each measured pair of
 * polls is one server poll and one client poll and completes exactly D
 * RPCs. A poll that returns 0 anyway is counted (idle_polls, printed) and
 * the script warns about it.
 *
 * The measured region is W RPCs into the run (warm-up, not instrumented)
 * and covers N RPCs: N pmr_request() calls and N continuations.
 * poll_server() and poll_client() are never inlined so that callgrind's
 * caller contexts tell the two workers apart.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <getopt.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ring.h>

#include <valgrind/callgrind.h>

#include <pmr_rpc.h>

#define REQ_ECHO 1
#define SETUP_WAIT_MS (120 * 1000)	/* valgrind is slow */
#define RTO_US (1000 * 1000)
#define REQ_TIMEOUT_MS (600 * 1000)

struct bench {
	struct pmr_worker *srv;
	struct pmr_worker *cli;
	int session;
	uint32_t size;
	uint64_t limit;		/* requests to issue in all */
	uint64_t issued;
	uint64_t completed;
	uint64_t errors;
	uint64_t idle_polls;
};

static struct bench bench;

static void
echo_handler(struct pmr_req_ref req, void *arg)
{
	struct bench *b = arg;
	struct pmr_msgbuf *resp = pmr_req_resp_buf(req);
	uint32_t len = pmr_req_len(req);

	if (resp == NULL) {
		b->errors++;
		pmr_respond_error(req, PMR_E_NOMEM);
		return;
	}
	memcpy(resp->data, pmr_req_data(req), len);
	pmr_msgbuf_resize(resp, len);
	if (pmr_respond(req, resp) != 0)
		b->errors++;
}

static void on_resp(struct pmr_worker *w, const struct pmr_resp *resp,
		void *tag);

static int
issue(struct bench *b, struct pmr_msgbuf *req)
{
	int ret;

	ret = pmr_request(b->cli, b->session, REQ_ECHO, req, on_resp, b);
	if (ret != 0) {
		b->errors++;
		return ret;
	}
	b->issued++;
	return 0;
}

/* Count the response, then send the next request on the same msgbuf. */
static void
on_resp(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct bench *b = tag;

	RTE_SET_USED(w);
	b->completed++;
	if (resp->status != PMR_OK || resp->len != b->size)
		b->errors++;
	if (b->issued < b->limit && issue(b, resp->req) == 0)
		return;
	pmr_msgbuf_free(resp->req);
}

static __rte_noinline void
poll_server(struct bench *b)
{
	if (pmr_worker_poll(b->srv) == 0)
		b->idle_polls++;
}

static __rte_noinline void
poll_client(struct bench *b)
{
	if (pmr_worker_poll(b->cli) == 0)
		b->idle_polls++;
}

/* Ports port[0] (server) and port[1] (client) back to back. */
static void
ring_pair(struct rte_ring *r[2], int port[2])
{
	r[0] = rte_ring_create("instr_ab", 1024, SOCKET_ID_ANY,
			RING_F_SP_ENQ | RING_F_SC_DEQ);
	r[1] = rte_ring_create("instr_ba", 1024, SOCKET_ID_ANY,
			RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (r[0] == NULL || r[1] == NULL)
		return;
	/* Port srv receives ring ba and sends into ab; cli the reverse. */
	port[0] = rte_eth_from_rings("instr_srv", &r[1], 1, &r[0], 1,
			SOCKET_ID_ANY);
	port[1] = rte_eth_from_rings("instr_cli", &r[0], 1, &r[1], 1,
			SOCKET_ID_ANY);
	if (port[0] < 0 || port[1] < 0) {
		rte_ring_free(r[0]);
		rte_ring_free(r[1]);
		r[0] = NULL;
		r[1] = NULL;
	}
}

static int
connect_session(struct bench *b, struct pmr_nexus *nx)
{
	uint64_t waited_us = 0;

	b->session = pmr_session_create(b->cli, pmr_nexus_uri(nx), 0, NULL,
			NULL);
	if (b->session < 0)
		return b->session;
	while (pmr_session_state(b->cli, b->session) ==
	       PMR_SESSION_CONNECTING) {
		pmr_worker_poll(b->srv);
		pmr_worker_poll(b->cli);
		usleep(100);	/* let the nexus thread run */
		waited_us += 100;
		if (waited_us > SETUP_WAIT_MS * 1000ull)
			return -ETIMEDOUT;
	}
	return pmr_session_state(b->cli, b->session) ==
		PMR_SESSION_CONNECTED ? 0 : -ECONNREFUSED;
}

/* Poll in turn until `completed` reaches until (or nothing is left). */
static void
run_until(struct bench *b, uint64_t until)
{
	while (b->completed < until && b->completed < b->issued) {
		poll_server(b);
		poll_client(b);
	}
}

static void
usage(void)
{
	fprintf(stderr, "usage: instr_rpc EAL-args -- [-n rpcs] [-w warmup] "
		"[-d outstanding (1-8)] [-s size] [-D driver] [-a devargs]\n");
}

int
main(int argc, char **argv)
{
	/*
	 * Timers run by the clock, and valgrind runs some 50 times slower:
	 * a long RTO keeps the retransmission timer from firing (and its
	 * check from running) far more often per RPC than natively.
	 */
	struct pmr_worker_conf sconf = {
		.worker_id = 0,
		.nb_msgbufs = 1024,
		.rto_us = RTO_US,
		.req_timeout_ms = REQ_TIMEOUT_MS,
	};
	struct pmr_worker_conf cconf = {
		.worker_id = 1,
		.nb_msgbufs = 1024,
		.rto_us = RTO_US,
		.req_timeout_ms = REQ_TIMEOUT_MS,
	};
	/* The nexus thread gets little time under valgrind: be patient. */
	struct pmr_nexus_conf nconf = {
		.connect_timeout_ms = SETUP_WAIT_MS,
		.heartbeat_interval_ms = 1000,
		.peer_timeout_ms = REQ_TIMEOUT_MS,
	};
	const char *driver = "eth", *devargs = "";
	char sargs[256], cargs[256];
	int port[2] = { -1, -1 };
	struct pmr_worker_stats ss0, cs0, ss, cs;
	struct bench *b = &bench;
	struct pmr_nexus *nx = NULL;
	struct rte_ring *r[2] = { NULL, NULL };
	struct pmr_msgbuf *req;
	uint64_t rpcs = 10000, warmup = 1000, depth = 1, i;
	uint64_t start, measured, idle;
	int n, opt, ret = 1;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "instr_rpc: EAL init failed\n");
		return 1;
	}
	argc -= n;
	argv += n;
	optind = 1;
	while ((opt = getopt(argc, argv, "n:w:d:s:D:a:")) != -1) {
		switch (opt) {
		case 'n':
			rpcs = strtoull(optarg, NULL, 0);
			break;
		case 'w':
			warmup = strtoull(optarg, NULL, 0);
			break;
		case 'd':
			depth = strtoull(optarg, NULL, 0);
			break;
		case 's':
			b->size = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'D':
			driver = optarg;
			break;
		case 'a':
			devargs = optarg;
			break;
		default:
			usage();
			goto out;
		}
	}
	if (b->size == 0)
		b->size = 32;
	if (rpcs == 0 || depth == 0 || depth > 8 || rpcs % depth != 0 ||
	    warmup % depth != 0) {
		fprintf(stderr, "instr_rpc: need 1 <= d <= 8, dividing n and "
			"w\n");
		usage();
		goto out;
	}

	/* eth: a ring pair; another driver: the queues from -a alone. */
	snprintf(sargs, sizeof(sargs), "%s", devargs);
	snprintf(cargs, sizeof(cargs), "%s", devargs);
	if (strcmp(driver, "eth") == 0) {
		ring_pair(r, port);
		if (r[0] == NULL) {
			fprintf(stderr, "instr_rpc: ring pair failed\n");
			goto out;
		}
		snprintf(sargs, sizeof(sargs), "port=%d,ip=198.18.1.1%s%s",
			port[0], devargs[0] != '\0' ? "," : "", devargs);
		snprintf(cargs, sizeof(cargs), "port=%d,ip=198.18.1.2%s%s",
			port[1], devargs[0] != '\0' ? "," : "", devargs);
	}
	sconf.driver = driver;
	cconf.driver = driver;
	sconf.devargs = sargs;
	cconf.devargs = cargs;
	nx = pmr_nexus_create("127.0.0.1:0", &nconf);
	if (nx == NULL ||
	    pmr_nexus_register_handler(nx, REQ_ECHO, echo_handler, b) != 0) {
		fprintf(stderr, "instr_rpc: nexus failed\n");
		goto out;
	}
	b->srv = pmr_worker_create(nx, &sconf);
	b->cli = pmr_worker_create(nx, &cconf);
	if (b->srv == NULL || b->cli == NULL) {
		fprintf(stderr, "instr_rpc: %s workers on '%s' failed: %s\n",
			driver, sargs, rte_strerror(rte_errno));
		goto out;
	}
	if (connect_session(b, nx) != 0) {
		fprintf(stderr, "instr_rpc: session failed\n");
		goto out;
	}

	/* D requests, then each continuation issues the next one. */
	b->limit = warmup + rpcs + depth;
	for (i = 0; i < depth; i++) {
		req = pmr_worker_msgbuf_alloc(b->cli, b->size);
		if (req == NULL) {
			fprintf(stderr, "instr_rpc: no msgbuf\n");
			goto out;
		}
		memset(req->data, 0x5a, req->len);
		if (issue(b, req) != 0) {
			pmr_msgbuf_free(req);
			fprintf(stderr, "instr_rpc: first requests failed\n");
			goto out;
		}
	}
	poll_client(b);		/* sends them: idle, not measured */
	run_until(b, warmup);
	b->idle_polls = 0;

	start = b->completed;
	pmr_worker_stats_get(b->srv, &ss0);
	pmr_worker_stats_get(b->cli, &cs0);
	CALLGRIND_START_INSTRUMENTATION;
	CALLGRIND_TOGGLE_COLLECT;
	run_until(b, start + rpcs);
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_STOP_INSTRUMENTATION;
	measured = b->completed - start;
	idle = b->idle_polls;
	pmr_worker_stats_get(b->srv, &ss);
	pmr_worker_stats_get(b->cli, &cs);

	/* What happened in the measured region only. */
	printf("instr_rpc: rpcs %" PRIu64 " size %u outstanding %" PRIu64
		" warmup %" PRIu64 " idle_polls %" PRIu64 " pkts %" PRIu64
		" retransmissions %" PRIu64 " timeouts %" PRIu64
		" drops %" PRIu64 "\n", measured, b->size, depth, warmup,
		idle, cs.tx_pkts - cs0.tx_pkts + ss.tx_pkts - ss0.tx_pkts,
		cs.retransmissions - cs0.retransmissions,
		cs.timeouts - cs0.timeouts,
		cs.rx_drops - cs0.rx_drops + ss.rx_drops - ss0.rx_drops);
	/* Drain: every msgbuf comes back. */
	run_until(b, b->limit);
	if (measured == rpcs && b->errors == 0 && b->completed == b->issued)
		ret = 0;
	else
		fprintf(stderr, "instr_rpc: %" PRIu64 " of %" PRIu64
			" RPCs measured, %" PRIu64 " errors\n", measured,
			rpcs, b->errors);
out:
	if (b->cli != NULL && pmr_worker_destroy(b->cli) != 0)
		ret = 1;
	if (b->srv != NULL && pmr_worker_destroy(b->srv) != 0)
		ret = 1;
	if (nx != NULL)
		pmr_nexus_destroy(nx);
	rte_ring_free(r[0]);
	rte_ring_free(r[1]);
	rte_eal_cleanup();
	return ret;
}
