/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Reliable messages over datagrams: multi-packet requests and responses,
 * credits and admission, and RPCs under injected loss, duplication and
 * reordering, each request executed exactly once and every buffer back.
 */

#include "pmr_test_rpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>

#define T_ECHO 1	/* the request with every byte inverted */
#define T_COUNT 2	/* counts executions of request id (first 4 bytes) */
#define T_SIZE 3	/* a response of the size in the first 4 bytes */

#define MIB (1u << 20)
#define MAX_IDS 200000

static struct pmr_test_env env;
static uint8_t exec_count[MAX_IDS];

static uint8_t
pattern(uint32_t seed, uint32_t i)
{
	return (uint8_t)(seed * 131 + i * 7 + (i >> 9));
}

static void
respond_inverted(struct pmr_req_ref req)
{
	const uint8_t *in = pmr_req_data(req);
	uint32_t i, len = pmr_req_len(req);
	struct pmr_msgbuf *resp;

	resp = len <= pmr_worker_pkt_size(pmr_req_worker(req)) ?
		pmr_req_resp_buf(req) :
		pmr_worker_msgbuf_alloc(pmr_req_worker(req), len);
	assert_non_null(resp);
	assert_int_equal(pmr_msgbuf_resize(resp, len), 0);
	for (i = 0; i < len; i++)
		resp->data[i] = (uint8_t)~in[i];
	assert_int_equal(pmr_respond(req, resp), 0);
}

static void
echo_handler(struct pmr_req_ref req, void *arg)
{
	(void)arg;
	respond_inverted(req);
}

static void
count_handler(struct pmr_req_ref req, void *arg)
{
	uint32_t id;

	(void)arg;
	assert_true(pmr_req_len(req) >= sizeof(id));
	memcpy(&id, pmr_req_data(req), sizeof(id));
	assert_true(id < MAX_IDS);
	exec_count[id]++;
	respond_inverted(req);
}

static void
size_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_msgbuf *resp;
	uint32_t size, i;

	(void)arg;
	memcpy(&size, pmr_req_data(req), sizeof(size));
	resp = pmr_worker_msgbuf_alloc(pmr_req_worker(req), size);
	assert_non_null(resp);
	for (i = 0; i < size; i++)
		resp->data[i] = pattern(size, i);
	assert_int_equal(pmr_respond(req, resp), 0);
}

static void
handlers(struct pmr_nexus *nx)
{
	memset(exec_count, 0, sizeof(exec_count));
	assert_int_equal(pmr_nexus_register_handler(nx, T_ECHO, echo_handler,
			NULL), 0);
	assert_int_equal(pmr_nexus_register_handler(nx, T_COUNT,
			count_handler, NULL), 0);
	assert_int_equal(pmr_nexus_register_handler(nx, T_SIZE, size_handler,
			NULL), 0);
}

/* One outstanding RPC of a test, and what its continuation saw. */
struct call {
	uint32_t id;
	uint32_t req_len;
	uint32_t seed;
	uint8_t type;
	int session;
	int runs;
	enum pmr_status status;
	int bad;
};

static bool
resp_ok(const struct call *c, const struct pmr_resp *resp)
{
	const uint8_t *d = resp->data, *q = resp->req->data;
	uint32_t i, want;

	if (c->type == T_SIZE) {
		memcpy(&want, q, sizeof(want));
		if (resp->len != want)
			return false;
		for (i = 0; i < want; i++)
			if (d[i] != pattern(want, i))
				return false;
		return true;
	}
	if (resp->len != resp->req->len)
		return false;
	for (i = 0; i < resp->len; i++)
		if ((uint8_t)(d[i] + q[i]) != 0xff)
			return false;
	return true;
}

static void
on_call(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct call *c = tag;

	(void)w;
	c->runs++;
	c->status = resp->status;
	if (resp->status == PMR_OK && !resp_ok(c, resp))
		c->bad++;
	pmr_msgbuf_free(resp->req);
}

/* Start c: a request of c->req_len bytes, id in front, pattern after. */
static void
call_start(struct pmr_worker *cli, struct call *c)
{
	struct pmr_msgbuf *req = pmr_worker_msgbuf_alloc(cli, c->req_len);
	uint32_t i;

	assert_non_null(req);
	for (i = 0; i < c->req_len; i++)
		req->data[i] = pattern(c->seed, i);
	if (c->req_len >= sizeof(c->id))
		memcpy(req->data, &c->id, sizeof(c->id));
	c->runs = 0;
	assert_int_equal(pmr_request(cli, c->session, c->type, req, on_call,
			c), 0);
}

static void
assert_pools_full(struct pmr_worker *w)
{
	unsigned int c;
	struct rte_mempool *mp;

	for (c = 0; (mp = pmr_worker_pool(w, c)) != NULL; c++)
		assert_int_equal(pmr_msgbuf_pool_in_use(mp), 0);
}

static int
teardown(void **state)
{
	(void)state;
	pmr_test_env_down(&env);
	return 0;
}

/* 1 MiB and 8 MiB requests and responses, payloads verified. */
static int
setup_large(void **state)
{
	struct pmr_worker_conf conf = { .nb_msgbufs = 1024 };

	(void)state;
	pmr_test_env_up(&env, 1, handlers, &conf, &conf);
	return 0;
}

static void
test_large_messages(void **state)
{
	struct pmr_test_sess_ev e;
	struct call c[] = {
		{ .type = T_ECHO, .req_len = MIB, .seed = 1 },
		{ .type = T_ECHO, .req_len = 8 * MIB, .seed = 2 },
		{ .type = T_SIZE, .req_len = 4, .id = 8 * MIB },
		{ .type = T_SIZE, .req_len = 8 * MIB, .id = 1, .seed = 4 },
		{ .type = T_SIZE, .req_len = 4, .id = MIB + 1 },
		{ .type = T_ECHO, .req_len = 1449, .seed = 6 },	/* 2 pkts */
		{ .type = T_ECHO, .req_len = 2 * 1448, .seed = 7 },
	};
	struct pmr_worker_stats st;
	unsigned int i;
	int s;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	for (i = 0; i < RTE_DIM(c); i++) {
		c[i].session = s;
		call_start(env.cli[0], &c[i]);
		PMR_TEST_POLL_UNTIL(&env, c[i].runs == 1);
		assert_int_equal(c[i].status, PMR_OK);
		assert_int_equal(c[i].bad, 0);
	}
	pmr_worker_stats_get(env.cli[0], &st);
	assert_true(st.tx_pkts > 2 * 8 * MIB / 1448);
	/*
	 * Requests and responses the server keeps are freed on ack, once
	 * the driver let go of them (verbs: at a signalled completion, which
	 * the engine's quiet flush asks for; eth: at once).
	 */
	PMR_TEST_POLL_UNTIL(&env, pmr_msgbuf_pool_in_use(
			pmr_worker_pool(env.srv[0], 2)) == 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
	assert_pools_full(env.cli[0]);
}

/* Many multi-packet RPCs at once, on several sessions. */
static void
test_concurrent_large(void **state)
{
	struct pmr_test_sess_ev e;
	struct call c[16];
	unsigned int i, done;
	int s[4];

	(void)state;
	for (i = 0; i < RTE_DIM(s); i++)
		s[i] = pmr_test_connect(&env, env.cli[0], 0, &e);
	memset(c, 0, sizeof(c));
	for (i = 0; i < RTE_DIM(c); i++) {
		c[i].type = T_ECHO;
		c[i].req_len = 1000 + (i * 40503u) % (60 * 1024);
		c[i].seed = i;
		c[i].session = s[i % RTE_DIM(s)];
		call_start(env.cli[0], &c[i]);
	}
	do {
		pmr_test_env_poll(&env);
		for (i = 0, done = 0; i < RTE_DIM(c); i++)
			done += c[i].runs;
	} while (done < RTE_DIM(c));
	for (i = 0; i < RTE_DIM(c); i++) {
		assert_int_equal(c[i].runs, 1);
		assert_int_equal(c[i].status, PMR_OK);
		assert_int_equal(c[i].bad, 0);
	}
	for (i = 0; i < RTE_DIM(s); i++)
		assert_int_equal(pmr_session_destroy(env.cli[0], s[i]), 0);
}

/*
 * Admission: each session reserves its credits of the receive depth (the
 * server grants at most its own session_credits). The client (depth 1024)
 * fits two sessions of 400 credits; the server, with 512 descriptors, only
 * one: the second is refused, -ENOSPC.
 */
static int
setup_admission(void **state)
{
	struct pmr_worker_conf srv = { .nb_msgbufs = 256, .devargs = "rxd=512",
		.session_credits = 400 };
	struct pmr_worker_conf cli = { .nb_msgbufs = 256,
		.session_credits = 400 };

	(void)state;
	pmr_test_env_up(&env, 1, handlers, &srv, &cli);
	return 0;
}

static void
test_admission_at_limit(void **state)
{
	struct pmr_test_sess_ev e1, e2;
	struct call c = { .type = T_ECHO, .req_len = 64 * 1024, .seed = 9 };
	int s1, s2, s3;

	(void)state;
	s1 = pmr_test_connect(&env, env.cli[0], 0, &e1);
	assert_int_equal(e1.ev, PMR_SESSION_EV_CONNECTED);
	s2 = pmr_test_connect(&env, env.cli[0], 0, &e2);
	assert_int_equal(e2.ev, PMR_SESSION_EV_CONNECT_FAILED);
	assert_int_equal(e2.err, -ENOSPC);
	/* The client's own depth: two sessions fit, a third does not. */
	s3 = pmr_session_create(env.cli[0], pmr_nexus_uri(env.nx), 0, NULL,
			NULL);
	assert_int_equal(s3, -ENOSPC);
	assert_int_equal(pmr_session_destroy(env.cli[0], s2), 0);
	/* The admitted session works, with up to 400 packets in flight. */
	c.session = s1;
	call_start(env.cli[0], &c);
	PMR_TEST_POLL_UNTIL(&env, c.runs == 1);
	assert_int_equal(c.status, PMR_OK);
	assert_int_equal(c.bad, 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], s1), 0);
	/* Freed reservations can be taken again. */
	for (int i = 0; i < 100; i++)
		pmr_test_env_poll(&env);
	s1 = pmr_test_connect(&env, env.cli[0], 0, &e1);
	assert_int_equal(e1.ev, PMR_SESSION_EV_CONNECTED);
	assert_int_equal(pmr_session_destroy(env.cli[0], s1), 0);
}

/* RPCs under faults: small ones in a stream, then large ones. */
#define LOSSY_SESSIONS 4
#define LOSSY_SMALL 100000
#define LOSSY_LARGE 200
#define LOSSY_CONC 32

static char faults_spec[2][128];

/*
 * In the VM (rxe under TCG, about 20 times slower, and the VM suite's
 * budget) a fifth of them: the faults are the engine's own injection,
 * run in full on eth and on the model.
 */
static uint32_t
lossy_count(uint32_t n)
{
	return getenv("PMR_VM_GUEST") != NULL ? n / 5 : n;
}

static int
setup_lossy(double loss)
{
	struct pmr_worker_conf srv = { .nb_msgbufs = 1024,
		.nb_mid_msgbufs = 64, .nb_large_msgbufs = 32,
		.max_msg_size = MIB, .rto_us = 2000,
		.req_timeout_ms = 5000 };
	struct pmr_worker_conf cli = srv;

	snprintf(faults_spec[0], sizeof(faults_spec[0]),
		"drop_tx=%g,drop_rx=%g,dup_tx=0.01,reorder_tx=0.01,"
		"reorder_rx=0.01,seed=11", loss / 2, loss / 2);
	snprintf(faults_spec[1], sizeof(faults_spec[1]),
		"drop_tx=%g,drop_rx=%g,dup_tx=0.01,reorder_tx=0.01,"
		"reorder_rx=0.01,seed=22", loss / 2, loss / 2);
	srv.faults = faults_spec[0];
	cli.faults = faults_spec[1];
	pmr_test_env_up(&env, 1, handlers, &srv, &cli);
	return 0;
}

static int
setup_loss1(void **state)
{
	(void)state;
	return setup_lossy(0.01);
}

static int
setup_loss10(void **state)
{
	(void)state;
	return setup_lossy(0.10);
}

static struct call calls[LOSSY_CONC];

/* Run total RPCs of sizes from size(i), conc at a time. */
static void
run_lossy(uint32_t total, uint32_t (*size)(uint32_t i), uint32_t conc)
{
	struct pmr_worker_stats cs, ss;
	struct pmr_test_sess_ev e;
	uint32_t started = 0, done = 0, i, k;
	int s[LOSSY_SESSIONS];

	for (i = 0; i < LOSSY_SESSIONS; i++)
		s[i] = pmr_test_connect(&env, env.cli[0], 0, &e);
	memset(calls, 0, sizeof(calls));
	for (k = 0; k < conc && started < total; k++, started++) {
		calls[k] = (struct call){ .type = T_COUNT, .id = started,
			.seed = started, .req_len = size(started),
			.session = s[k % LOSSY_SESSIONS] };
		call_start(env.cli[0], &calls[k]);
	}
	while (done < total) {
		uint64_t deadline = pmr_test_now_ns() + PMR_TEST_WAIT_NS;

		pmr_test_env_poll(&env);
		for (k = 0; k < conc; k++) {
			struct call *c = &calls[k];

			if (c->runs == 0 || c->req_len == 0)
				continue;
			assert_int_equal(c->runs, 1);
			assert_int_equal(c->status, PMR_OK);
			assert_int_equal(c->bad, 0);
			done++;
			c->req_len = 0;
			if (started < total) {
				*c = (struct call){ .type = T_COUNT,
					.id = started, .seed = started,
					.req_len = size(started),
					.session = c->session };
				started++;
				call_start(env.cli[0], c);
			}
		}
		assert_true(pmr_test_now_ns() < deadline);
	}
	/* Each request ran exactly once at the server. */
	for (i = 0; i < total; i++)
		if (exec_count[i] != 1)
			fail_msg("request %u ran %u times", i, exec_count[i]);
	pmr_worker_stats_get(env.cli[0], &cs);
	pmr_worker_stats_get(env.srv[0], &ss);
	assert_int_equal(ss.reqs_handled, total);
	assert_int_equal(cs.reqs_completed, total);
	assert_true(cs.retransmissions > 0);
	assert_true(cs.fault_dropped + ss.fault_dropped > 0);
	assert_true(cs.fault_duplicated + ss.fault_duplicated > 0);
	assert_true(cs.fault_reordered + ss.fault_reordered > 0);
	fprintf(stderr, "# %u RPCs: %lu retransmissions, %lu+%lu dropped, "
		"%lu answered from kept responses\n", total,
		(unsigned long)cs.retransmissions,
		(unsigned long)cs.fault_dropped,
		(unsigned long)ss.fault_dropped,
		(unsigned long)ss.dup_answered);
	for (i = 0; i < LOSSY_SESSIONS; i++)
		assert_int_equal(pmr_session_destroy(env.cli[0], s[i]), 0);
	assert_pools_full(env.cli[0]);
}

static uint32_t
small_size(uint32_t i)
{
	return 4 + (i * 37) % 200;
}

static uint32_t
large_size(uint32_t i)
{
	return 16 * 1024 + (i * 7919u) % (240 * 1024);
}

static void
test_small_rpcs_under_faults(void **state)
{
	(void)state;
	run_lossy(lossy_count(LOSSY_SMALL), small_size, LOSSY_CONC);
}

static void
test_large_rpcs_under_faults(void **state)
{
	(void)state;
	run_lossy(lossy_count(LOSSY_LARGE), large_size, 8);
}

/* A server that stops answering: TIMEOUT, every buffer back. */
static int
setup_timeout(void **state)
{
	struct pmr_worker_conf srv = { .nb_msgbufs = 256 };
	struct pmr_worker_conf cli = { .nb_msgbufs = 256,
		.req_timeout_ms = 300, .rto_us = 20000 };

	(void)state;
	pmr_test_env_up(&env, 1, handlers, &srv, &cli);
	return 0;
}

static void
test_server_silent_timeout(void **state)
{
	struct pmr_worker *srv = env.srv[0];
	struct pmr_worker_stats st;
	struct pmr_test_sess_ev e;
	struct call c[12];
	unsigned int i;
	uint64_t t0;
	int s;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	env.srv[0] = NULL;	/* nobody polls the server now */
	memset(c, 0, sizeof(c));
	t0 = pmr_test_now_ns();
	for (i = 0; i < RTE_DIM(c); i++) {
		c[i] = (struct call){ .type = T_ECHO, .seed = i,
			.req_len = i % 2 ? 100 : 20 * 1024, .session = s };
		call_start(env.cli[0], &c[i]);
	}
	/* The 20 KiB ones have an allowance for their size: later. */
	for (i = 0; i < RTE_DIM(c); i++)
		PMR_TEST_POLL_UNTIL(&env, c[i].runs == 1);
	assert_true(pmr_test_now_ns() - t0 >= 300ull * 1000 * 1000);
	for (i = 0; i < RTE_DIM(c); i++) {
		assert_int_equal(c[i].runs, 1);
		assert_int_equal(c[i].status, PMR_E_TIMEOUT);
	}
	pmr_worker_stats_get(env.cli[0], &st);
	assert_int_equal(st.timeouts, RTE_DIM(c));
	assert_pools_full(env.cli[0]);

	/* The server wakes up: its late answers are dropped, and the
	 * session still works. */
	env.srv[0] = srv;
	for (i = 0; i < 200; i++)
		pmr_test_env_poll(&env);
	c[0] = (struct call){ .type = T_ECHO, .seed = 99, .req_len = 3000,
		.session = s };
	call_start(env.cli[0], &c[0]);
	PMR_TEST_POLL_UNTIL(&env, c[0].runs == 1);
	assert_int_equal(c[0].status, PMR_OK);
	assert_int_equal(c[0].bad, 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
	assert_pools_full(env.cli[0]);
}

static void
test_bad_faults_spec(void **state)
{
	struct pmr_worker_conf conf = { .worker_id = 50, .faults = "drop=0.1",
		.devargs = "port=0" };

	(void)state;
	assert_null(pmr_worker_create(env.nx, &conf));
	assert_int_equal(rte_errno, EINVAL);
	conf.faults = "drop_tx=1.5";
	assert_null(pmr_worker_create(env.nx, &conf));
	assert_int_equal(rte_errno, EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_large_messages,
			setup_large, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_large,
			setup_large, teardown),
		cmocka_unit_test_setup_teardown(test_admission_at_limit,
			setup_admission, teardown),
		cmocka_unit_test_setup_teardown(test_server_silent_timeout,
			setup_timeout, teardown),
		cmocka_unit_test_setup_teardown(test_small_rpcs_under_faults,
			setup_loss1, teardown),
		cmocka_unit_test_setup_teardown(test_small_rpcs_under_faults,
			setup_loss10, teardown),
		cmocka_unit_test_setup_teardown(test_large_rpcs_under_faults,
			setup_loss1, teardown),
		cmocka_unit_test_setup_teardown(test_large_rpcs_under_faults,
			setup_loss10, teardown),
		cmocka_unit_test_setup_teardown(test_bad_faults_spec,
			setup_timeout, teardown),
	};

	/*
	 * Reliable messages over datagrams: large ones go as packets here
	 * whatever the driver (test_rdv.c has the READ path), unless the
	 * environment says otherwise.
	 */
	setenv("PMR_TEST_RDV_THRESHOLD", "off", 0);
	return cmocka_run_group_tests_name("rpc_reliable", tests,
			pmr_test_eal_setup, pmr_test_eal_teardown);
}
