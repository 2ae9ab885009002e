/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The "Thread: any" rules of doc/api.md, exercised: while a server worker
 * runs pmr_worker_loop() on its lcore and the test's thread drives a
 * client through echo RPCs, a plain pthread (not an EAL thread) reads
 * the server's counters, the nexus's and the driver's, allocates and
 * frees msgbufs from the server's pools, and in the end stops the
 * worker. Every call succeeds, the counters it reads never go back and
 * never pass the final ones, and every pool comes back full.
 */

#include "pmr_test_rpc.h"

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "pmr_msgbuf.h"
#include "pmr_nexus.h"
#include "pmr_rpc.h"
#include "pmr_transport.h"

#define T_ECHO 1
#define NB_RPCS 2000
#define NB_ROUNDS 100	/* reader rounds while RPCs run, at least */

static struct pmr_test_env env;

static void
echo_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_msgbuf *resp = pmr_req_resp_buf(req);

	(void)arg;
	if (resp == NULL) {
		pmr_respond_error(req, PMR_E_NOMEM);
		return;
	}
	memcpy(resp->data, pmr_req_data(req), pmr_req_len(req));
	pmr_msgbuf_resize(resp, pmr_req_len(req));
	pmr_respond(req, resp);
}

static void
handlers(struct pmr_nexus *nx)
{
	assert_int_equal(pmr_nexus_register_handler(nx, T_ECHO, echo_handler,
			NULL), 0);
}

/* What the reader thread saw; the test checks it after the join. */
struct reader {
	struct pmr_worker *srv;
	bool done;		/* set by the test: stop reading */
	unsigned int rounds;
	unsigned int failures;	/* a call that failed, a counter going back */
	uint64_t max_handled;
	uint64_t max_rx_pkts;
	uint64_t max_nx_msgs;
};

static void *
reader_main(void *arg)
{
	struct reader *r = arg;
	struct pmr_transport_queue *q = pmr_worker_queue(r->srv);
	struct pmr_worker_stats st;
	struct pmr_nexus_stats nst;
	struct pmr_transport_stats ts;
	struct pmr_msgbuf *mb;

	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) {
		if (pmr_worker_stats_get(r->srv, &st) != 0 ||
		    st.reqs_handled < r->max_handled)
			r->failures++;
		r->max_handled = st.reqs_handled;
		if (pmr_nexus_stats_get(env.nx, &nst) != 0 ||
		    nst.rx_msgs < r->max_nx_msgs)
			r->failures++;
		r->max_nx_msgs = nst.rx_msgs;
		if (pmr_transport_stats_get(q, &ts) != 0 ||
		    ts.rx_pkts < r->max_rx_pkts)
			r->failures++;
		r->max_rx_pkts = ts.rx_pkts;
		if (pmr_worker_id(r->srv) != 0 ||
		    pmr_worker_max_msg_size(r->srv) == 0)
			r->failures++;
		/* The server's own pools, from a non-EAL thread. */
		mb = pmr_worker_msgbuf_alloc(r->srv, 100);
		if (mb == NULL || pmr_msgbuf_free(mb) != 0)
			r->failures++;
		__atomic_fetch_add(&r->rounds, 1, __ATOMIC_RELEASE);
		sched_yield();
	}
	pmr_worker_stop(r->srv);
	return NULL;
}

/* Continuations run, and those that did not end PMR_OK. */
struct outcome {
	unsigned int done;
	unsigned int not_ok;
	enum pmr_status last_bad;
};

static void
on_resp(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct outcome *o = tag;

	(void)w;
	o->done++;
	if (resp->status != PMR_OK) {
		o->not_ok++;
		o->last_bad = resp->status;
	}
}

static void
any_thread(void **state)
{
	unsigned int lcore = pmr_test_worker_lcore();
	struct pmr_worker *srv = env.srv[0];
	struct pmr_worker *cli = env.cli[0];
	struct reader r = { .srv = srv };
	struct pmr_test_sess_ev e;
	struct pmr_worker_stats st;
	struct pmr_msgbuf *req;
	struct pmr_transport_stats ts;
	struct outcome o = { .done = 0 };
	uint64_t deadline;
	unsigned int sent;
	int req_ret = 0;
	bool late = false;
	pthread_t t;
	int s;

	(void)state;
	if (lcore >= RTE_MAX_LCORE)
		skip();
	s = pmr_test_connect(&env, cli, 0, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	req = pmr_worker_msgbuf_alloc(cli, 32);
	assert_non_null(req);
	memset(req->data, 0x5a, req->len);
	assert_int_equal(rte_eal_remote_launch(pmr_worker_loop, srv, lcore),
			0);
	env.srv[0] = NULL;	/* its lcore polls it now */
	if (pthread_create(&t, NULL, reader_main, &r) != 0) {
		pmr_worker_stop(srv);
		rte_eal_wait_lcore(lcore);
		env.srv[0] = srv;
		fail_msg("pthread_create");
	}
	/*
	 * Round trips while the reader reads, NB_RPCS at least; no assert
	 * until the reader and the server's lcore are stopped (they use
	 * this frame), a deadline instead.
	 */
	deadline = pmr_test_now_ns() + PMR_TEST_WAIT_NS;
	for (sent = 0; o.not_ok == 0 && (sent < NB_RPCS ||
	     __atomic_load_n(&r.rounds, __ATOMIC_ACQUIRE) < NB_ROUNDS);
	     sent++) {
		req_ret = pmr_request(cli, s, T_ECHO, req, on_resp, &o);
		if (req_ret != 0)
			break;
		while (o.done != sent + 1 && pmr_test_now_ns() < deadline)
			pmr_worker_poll(cli);
		if (o.done != sent + 1) {
			late = true;
			break;
		}
	}
	__atomic_store_n(&r.done, true, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(t, NULL), 0);
	/* The reader stopped the worker: its loop returns. */
	assert_int_equal(rte_eal_wait_lcore(lcore), 0);
	env.srv[0] = srv;

	if (o.not_ok != 0 || late) {
		assert_int_equal(pmr_worker_stats_get(cli, &st), 0);
		print_error("RPC %u of %u: %s%s; client: %" PRIu64
			" retransmissions, %" PRIu64 " timeouts, %" PRIu64
			" TX drops, %" PRIu64 " RX drops\n", o.done, sent,
			late ? "no answer in time" : "",
			o.not_ok != 0 ? pmr_status_str(o.last_bad) : "",
			st.retransmissions, st.timeouts, st.tx_dropped,
			st.rx_drops);
	}
	assert_int_equal(req_ret, 0);
	assert_int_equal(o.not_ok, 0);
	assert_false(late);
	assert_true(sent >= NB_RPCS);
	assert_int_equal(o.done, sent);
	assert_int_equal(r.failures, 0);
	assert_true(r.rounds >= NB_ROUNDS);
	assert_int_equal(pmr_worker_stats_get(srv, &st), 0);
	assert_int_equal(st.reqs_handled, sent);
	assert_true(r.max_handled <= st.reqs_handled);
	assert_int_equal(pmr_transport_stats_get(pmr_worker_queue(srv), &ts),
			0);
	assert_true(r.max_rx_pkts <= ts.rx_pkts);
	assert_int_equal(pmr_msgbuf_free(req), 0);
	assert_int_equal(pmr_session_destroy(cli, s), 0);
}

static int
setup(void **state)
{
	/* A loaded machine may hold the server's lcore back a while. */
	const struct pmr_worker_conf cli = {
		.nb_msgbufs = 1024,
		.req_timeout_ms = 30000,
	};

	(void)state;
	pmr_test_env_up(&env, 1, handlers, NULL, &cli);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	pmr_test_env_down(&env);
	return 0;
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(any_thread, setup, teardown),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("api_threads", tests,
			pmr_test_eal_setup, pmr_test_eal_teardown);
}
