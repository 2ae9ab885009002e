/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * A careless handler and a careless application against a real server
 * and client worker (ring pairs, a nexus on 127.0.0.1): handlers that
 * cannot answer (defect 9 of issue 10), stale request handles and
 * msgbufs used twice (defect 10).
 *
 * Run one group with a cmocka filter: test_hostile_api 'defect9*'.
 */

#include "pmr_test_rpc.h"

#include <string.h>

#include "pmr_nexus.h"
#include "pmr_rpc.h"

#define T_DEFER 1	/* keeps the request; the test answers later */
#define T_ECHO 2	/* echoes into pmr_req_resp_buf(), if it gets one */
#define T_FAIL 3	/* fails it: request byte 0 says how (fail_how) */

/* How T_FAIL fails a request: pmr_respond_error(req, status) or this. */
#define FAIL_NULL_RESP 0xff	/* pmr_respond(req, NULL) */

#define DEFER_MAX 16

static struct pmr_test_env env;

static struct pmr_req_ref deferred[DEFER_MAX];
static unsigned int nb_deferred;
static int fail_ret;		/* what T_FAIL's answer returned */

/* What a continuation saw. */
struct result {
	bool done;
	enum pmr_status status;
	char data[64];
	uint32_t len;
};

static void
on_resp(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct result *r = tag;

	(void)w;
	r->done = true;
	r->status = resp->status;
	r->len = 0;
	if (resp->status == PMR_OK && resp->len <= sizeof(r->data)) {
		memcpy(r->data, resp->data, resp->len);
		r->len = resp->len;
	}
}

static void
defer_handler(struct pmr_req_ref req, void *arg)
{
	(void)arg;
	assert_true(nb_deferred < DEFER_MAX);
	deferred[nb_deferred++] = req;
}

static void
echo_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_msgbuf *resp = pmr_req_resp_buf(req);

	(void)arg;
	if (resp == NULL) {
		assert_int_equal(pmr_respond_error(req, PMR_E_NOMEM), 0);
		return;
	}
	memcpy(resp->data, pmr_req_data(req), pmr_req_len(req));
	resp->len = pmr_req_len(req);
	pmr_respond(req, resp);
}

static void
fail_handler(struct pmr_req_ref req, void *arg)
{
	uint8_t how = *(const uint8_t *)pmr_req_data(req);

	(void)arg;
	if (how == FAIL_NULL_RESP)
		fail_ret = pmr_respond(req, NULL);
	else
		fail_ret = pmr_respond_error(req, (enum pmr_status)how);
	/* Answered, whatever it returned: the reference is stale now. */
	assert_null(pmr_req_data(req));
	assert_int_equal(pmr_respond_error(req, PMR_E_NOMEM), -ESTALE);
}

static void
handlers(struct pmr_nexus *nx)
{
	nb_deferred = 0;
	assert_int_equal(pmr_nexus_register_handler(nx, T_DEFER,
			defer_handler, NULL), 0);
	assert_int_equal(pmr_nexus_register_handler(nx, T_ECHO,
			echo_handler, NULL), 0);
	assert_int_equal(pmr_nexus_register_handler(nx, T_FAIL,
			fail_handler, NULL), 0);
}

#define POLL_UNTIL(cond) PMR_TEST_POLL_UNTIL(&env, cond)

/*
 * One slot per session: each request takes its session's only slot; and
 * one session per worker, so that a new session takes the number of the
 * last one (numbers are handed out in random order).
 */
static int
setup_window1(void **state)
{
	struct pmr_worker_conf conf = {
		.nb_msgbufs = 256,
		.session_window = 1,
		.max_sessions = 1,
	};

	(void)state;
	pmr_test_env_up(&env, 1, handlers, &conf, &conf);
	return 0;
}

static int
setup(void **state)
{
	struct pmr_worker_conf conf = { .nb_msgbufs = 256 };

	(void)state;
	pmr_test_env_up(&env, 1, handlers, &conf, &conf);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	pmr_test_env_down(&env);
	return 0;
}

/* A msgbuf of the client holding str. */
static struct pmr_msgbuf *
cli_msg(const char *str)
{
	struct pmr_msgbuf *mb = pmr_worker_msgbuf_alloc(env.cli[0],
			(uint32_t)strlen(str));

	assert_non_null(mb);
	memcpy(mb->data, str, strlen(str));
	return mb;
}

/* A response msgbuf of the server holding str. */
static struct pmr_msgbuf *
srv_msg(const char *str)
{
	struct pmr_msgbuf *mb = pmr_worker_msgbuf_alloc(env.srv[0],
			(uint32_t)strlen(str));

	assert_non_null(mb);
	memcpy(mb->data, str, strlen(str));
	return mb;
}

static void
assert_result(const struct result *r, const char *str)
{
	assert_true(r->done);
	assert_int_equal(r->status, PMR_OK);
	assert_int_equal(r->len, strlen(str));
	assert_memory_equal(r->data, str, strlen(str));
}

/*
 * Defect 10: a handler keeps its request, answers it, and answers it
 * again after the slot took its next request, from another client
 * session that took the same server session number. The second answer
 * must not reach the new request.
 */
static void
defect10_stale_handle(void **state)
{
	struct pmr_test_sess_ev e;
	struct result ra = { 0 }, rb = { 0 };
	struct pmr_msgbuf *qa, *qb, *again;
	struct pmr_worker_stats st;
	struct pmr_req_ref old;
	int sa, sb, ret;

	(void)state;
	sa = pmr_test_connect(&env, env.cli[0], 0, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	assert_int_equal(pmr_session_state(env.srv[0], 0),
			PMR_SESSION_CONNECTED);
	qa = cli_msg("from A");
	assert_int_equal(pmr_request(env.cli[0], sa, T_DEFER, qa, on_resp,
			&ra), 0);
	POLL_UNTIL(nb_deferred == 1);
	old = deferred[0];
	assert_int_equal(pmr_respond(old, srv_msg("for A")), 0);
	POLL_UNTIL(ra.done);
	assert_result(&ra, "for A");

	/* A goes away; B takes the same server session number. */
	assert_int_equal(pmr_session_destroy(env.cli[0], sa), 0);
	POLL_UNTIL(pmr_session_state(env.srv[0], 0) == PMR_SESSION_FREE);
	sb = pmr_test_connect(&env, env.cli[0], 0, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	assert_int_equal(pmr_session_state(env.srv[0], 0),
			PMR_SESSION_CONNECTED);
	qb = cli_msg("from B");
	assert_int_equal(pmr_request(env.cli[0], sb, T_DEFER, qb, on_resp,
			&rb), 0);
	POLL_UNTIL(nb_deferred == 2);

	/* The careless second answer of A's request. */
	again = srv_msg("for A again");
	ret = pmr_respond(old, again);
	for (int i = 0; i < 100; i++)
		pmr_test_env_poll(&env);
	if (rb.done)
		fail_msg("B's request got A's answer: \"%.*s\"",
				(int)rb.len, rb.data);
	assert_int_equal(ret, -ESTALE);
	/* Every one refused and counted; only the log is rate limited. */
	for (int i = 0; i < 50; i++)
		assert_int_equal(pmr_respond_error(old, PMR_E_NOMEM),
				-ESTALE);
	pmr_worker_stats_get(env.srv[0], &st);
	assert_int_equal(st.stale_refs, 51);
	/* Nothing of B's request through A's reference. */
	assert_null(pmr_req_data(old));
	assert_int_equal(pmr_req_len(old), 0);
	assert_null(pmr_req_worker(old));
	assert_null(pmr_req_resp_buf(old));
	/* A refused response stays the caller's. */
	pmr_msgbuf_free(again);
	assert_int_equal(pmr_respond(deferred[1], srv_msg("for B")), 0);
	POLL_UNTIL(rb.done);
	assert_result(&rb, "for B");
	pmr_msgbuf_free(qa);
	pmr_msgbuf_free(qb);
	assert_int_equal(pmr_session_destroy(env.cli[0], sb), 0);
}

/*
 * Defect 10: freeing a msgbuf a worker holds (a pending request's, a kept
 * response, an offered response buffer) or a driver still sends must be
 * refused and counted, and the buffer left intact.
 */
static void
defect10_free_in_flight(void **state)
{
	struct rte_mempool *cli_mp = pmr_worker_pool(env.cli[0], 0);
	struct rte_mempool *srv_mp = pmr_worker_pool(env.srv[0], 0);
	struct pmr_test_sess_ev e;
	struct result r[2] = { 0 };
	struct pmr_msgbuf *q[2], *resp, *offered, *sent;
	unsigned int in_use;
	int s;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	q[0] = cli_msg("pending");
	q[1] = cli_msg("pending too");
	assert_int_equal(pmr_request(env.cli[0], s, T_DEFER, q[0], on_resp,
			&r[0]), 0);
	assert_int_equal(pmr_request(env.cli[0], s, T_DEFER, q[1], on_resp,
			&r[1]), 0);
	POLL_UNTIL(nb_deferred == 2);

	/* The pending request's msgbuf. */
	in_use = pmr_msgbuf_pool_in_use(cli_mp);
	assert_int_equal(pmr_msgbuf_free(q[0]), -EBUSY);
	assert_int_equal(pmr_msgbuf_pool_in_use(cli_mp), in_use);
	assert_int_equal(pmr_msgbuf_pool_free_refused(cli_mp), 1);

	/* A response given to pmr_respond(), and an offered one. */
	resp = srv_msg("done");
	offered = pmr_req_resp_buf(deferred[1]);
	assert_non_null(offered);
	assert_int_equal(pmr_msgbuf_free(offered), -EBUSY);
	assert_int_equal(pmr_respond(deferred[0], resp), 0);
	assert_int_equal(pmr_msgbuf_free(resp), -EBUSY);
	assert_int_equal(pmr_msgbuf_pool_free_refused(srv_mp), 2);
	memcpy(offered->data, "done too", 8);
	offered->len = 8;
	assert_int_equal(pmr_respond(deferred[1], offered), 0);
	POLL_UNTIL(r[0].done && r[1].done);
	assert_result(&r[0], "done");
	assert_result(&r[1], "done too");

	/* A msgbuf a driver still sends (a zero-copy reference). */
	sent = cli_msg("sent");
	pmr_msgbuf_tx_ref(sent);
	assert_int_equal(pmr_msgbuf_free(sent), -EBUSY);
	assert_int_equal(pmr_msgbuf_pool_free_refused(cli_mp), 2);
	pmr_msgbuf_tx_unref(sent);

	/* Done with: the caller's to free. */
	assert_int_equal(pmr_msgbuf_free(sent), 0);
	assert_int_equal(pmr_msgbuf_free(q[0]), 0);
	assert_int_equal(pmr_msgbuf_free(q[1]), 0);
	assert_int_equal(pmr_msgbuf_pool_free_refused(cli_mp), 2);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/* Defect 10: one msgbuf in two requests at once must be refused. */
static void
defect10_double_request(void **state)
{
	struct pmr_test_sess_ev e;
	struct pmr_worker_stats st;
	struct result r1 = { 0 }, r2 = { 0 };
	struct pmr_req_handle h;
	struct pmr_msgbuf *q, *other;
	int s;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	q = cli_msg("twice");
	other = cli_msg("other");
	assert_int_equal(pmr_request(env.cli[0], s, T_DEFER, q, on_resp, &r1),
			0);
	assert_int_equal(pmr_request(env.cli[0], s, T_DEFER, q, on_resp,
			&r2), -EBUSY);
	/* Nor as the request or the response of a pmr_request_start(). */
	assert_int_equal(pmr_request_start(env.cli[0], s, T_DEFER, q, other,
			&h), -EBUSY);
	assert_int_equal(pmr_request_start(env.cli[0], s, T_DEFER, other, q,
			&h), -EBUSY);
	pmr_worker_stats_get(env.cli[0], &st);
	assert_int_equal(st.msgbuf_busy, 3);
	assert_int_equal(st.reqs_sent, 1);
	POLL_UNTIL(nb_deferred == 1);
	for (int i = 0; i < 100; i++)
		pmr_test_env_poll(&env);
	assert_int_equal(nb_deferred, 1);
	assert_int_equal(pmr_respond(deferred[0], srv_msg("once")), 0);
	POLL_UNTIL(r1.done);
	assert_result(&r1, "once");
	assert_false(r2.done);
	/* Done: the caller's again, for a new request. */
	assert_int_equal(pmr_request(env.cli[0], s, T_ECHO, q, on_resp, &r2),
			0);
	POLL_UNTIL(r2.done);
	assert_result(&r2, "twice");
	pmr_msgbuf_free(q);
	pmr_msgbuf_free(other);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/*
 * Defect 10: a msgbuf that is already another request's response (kept
 * for retransmissions, or offered by pmr_req_resp_buf()) or a pending
 * request's msgbuf must not be sent as this one's. The refused request is
 * still answered.
 */
static void
defect10_respond_other_response(void **state)
{
	struct pmr_test_sess_ev e;
	struct pmr_worker_stats st;
	struct result r[5] = { 0 };
	struct pmr_msgbuf *q[5], *resp, *offered;
	unsigned int i;
	int s;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	for (i = 0; i < RTE_DIM(q); i++) {
		q[i] = cli_msg("q");
		assert_int_equal(pmr_request(env.cli[0], s, T_DEFER, q[i],
				on_resp, &r[i]), 0);
	}
	POLL_UNTIL(nb_deferred == RTE_DIM(q));
	resp = srv_msg("first");
	assert_int_equal(pmr_respond(deferred[0], resp), 0);
	assert_int_equal(pmr_respond(deferred[1], resp), -EBUSY);
	offered = pmr_req_resp_buf(deferred[3]);
	assert_non_null(offered);
	assert_int_equal(pmr_respond(deferred[2], offered), -EBUSY);
	memcpy(offered->data, "fourth", 6);
	offered->len = 6;
	assert_int_equal(pmr_respond(deferred[3], offered), 0);
	/* The client's own pending request (same process, other worker). */
	assert_int_equal(pmr_respond(deferred[4], q[4]), -EBUSY);
	POLL_UNTIL(r[0].done && r[1].done && r[2].done && r[3].done &&
		r[4].done);
	assert_result(&r[0], "first");
	assert_int_equal(r[1].status, PMR_E_REMOTE_ERROR);
	assert_int_equal(r[2].status, PMR_E_REMOTE_ERROR);
	assert_result(&r[3], "fourth");
	assert_int_equal(r[4].status, PMR_E_REMOTE_ERROR);
	pmr_worker_stats_get(env.srv[0], &st);
	assert_int_equal(st.msgbuf_busy, 3);
	for (i = 0; i < RTE_DIM(q); i++)
		pmr_msgbuf_free(q[i]);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/*
 * Defect 9: a handler that cannot answer fails the request; the client
 * sees the failure at once (no timeout), with the handler's status or
 * PMR_E_REMOTE_ERROR for what a handler may not say, and the slot (the
 * session's only one) takes the next request.
 */
static void
defect9_respond_error(void **state)
{
	static const struct {
		unsigned int how;
		enum pmr_status status;	/* what the client sees */
		int ret;		/* what the handler's answer returns */
	} cases[] = {
		{ PMR_E_REMOTE_ERROR, PMR_E_REMOTE_ERROR, 0 },
		{ PMR_E_NOMEM, PMR_E_NOMEM, 0 },
		{ PMR_E_MSGSIZE, PMR_E_MSGSIZE, 0 },
		{ PMR_OK, PMR_E_REMOTE_ERROR, -EINVAL },
		{ PMR_E_TIMEOUT, PMR_E_REMOTE_ERROR, -EINVAL },
		{ PMR_E_SESSION_RESET, PMR_E_REMOTE_ERROR, -EINVAL },
		{ 200, PMR_E_REMOTE_ERROR, -EINVAL },
		{ FAIL_NULL_RESP, PMR_E_REMOTE_ERROR, -EINVAL },
	};
	struct pmr_test_sess_ev e;
	struct pmr_worker_stats st;
	struct result r;
	struct pmr_msgbuf *q;
	unsigned int i;
	int s;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	q = cli_msg("x");
	for (i = 0; i < RTE_DIM(cases); i++) {
		memset(&r, 0, sizeof(r));
		q->data[0] = (uint8_t)cases[i].how;
		fail_ret = 1;
		assert_int_equal(pmr_request(env.cli[0], s, T_FAIL, q,
				on_resp, &r), 0);
		POLL_UNTIL(r.done);
		assert_int_equal(r.status, cases[i].status);
		assert_int_equal(fail_ret, cases[i].ret);
	}
	pmr_worker_stats_get(env.cli[0], &st);
	assert_int_equal(st.timeouts, 0);
	pmr_worker_stats_get(env.srv[0], &st);
	assert_int_equal(st.stale_refs, RTE_DIM(cases));
	assert_int_equal(st.resps_sent, RTE_DIM(cases));

	/* The same (only) slot answers the next request. */
	memset(&r, 0, sizeof(r));
	memcpy(q->data, "echo", 4);
	q->len = 4;
	assert_int_equal(pmr_request(env.cli[0], s, T_ECHO, q, on_resp, &r),
			0);
	POLL_UNTIL(r.done);
	assert_result(&r, "echo");
	pmr_msgbuf_free(q);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/*
 * Defect 9: a handler that finds the single-packet pool empty answers
 * PMR_E_NOMEM rather than leaking the slot.
 */
static void
defect9_alloc_fail(void **state)
{
	struct rte_mempool *mp = pmr_worker_pool(env.srv[0], 0);
	struct pmr_msgbuf *hoard[256];
	struct pmr_test_sess_ev e;
	struct pmr_worker_stats st;
	struct result r = { 0 };
	struct pmr_msgbuf *q;
	unsigned int n = 0, i;
	int s;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	while (n < RTE_DIM(hoard) &&
	       (hoard[n] = pmr_msgbuf_alloc(mp, 0)) != NULL)
		n++;
	assert_true(n > 0);
	assert_null(pmr_msgbuf_alloc(mp, 0));
	q = cli_msg("no memory");
	assert_int_equal(pmr_request(env.cli[0], s, T_ECHO, q, on_resp, &r),
			0);
	POLL_UNTIL(r.done);
	assert_int_equal(r.status, PMR_E_NOMEM);
	pmr_worker_stats_get(env.cli[0], &st);
	assert_int_equal(st.timeouts, 0);

	for (i = 0; i < n; i++)
		pmr_msgbuf_free(hoard[i]);
	memset(&r, 0, sizeof(r));
	assert_int_equal(pmr_request(env.cli[0], s, T_ECHO, q, on_resp, &r),
			0);
	POLL_UNTIL(r.done);
	assert_result(&r, "no memory");
	pmr_msgbuf_free(q);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/*
 * Defect 9: a handler fails a request whose session went away while it
 * had it: the failure goes nowhere, its buffers go back (pools full at
 * teardown) and the server's session is freed.
 */
static void
defect9_orphan_error(void **state)
{
	struct pmr_test_sess_ev e;
	struct result r = { 0 };
	struct pmr_msgbuf *q;
	int s;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	q = cli_msg("orphan");
	assert_int_equal(pmr_request(env.cli[0], s, T_DEFER, q, on_resp, &r),
			0);
	POLL_UNTIL(nb_deferred == 1);
	assert_non_null(pmr_req_resp_buf(deferred[0]));
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
	assert_true(r.done);
	assert_int_equal(r.status, PMR_E_SESSION_RESET);
	assert_int_equal(pmr_msgbuf_free(q), 0);
	/*
	 * The server learns of it (its session reads as FREE, closing); the
	 * session stays while the handler has the request, still valid.
	 */
	POLL_UNTIL(pmr_session_state(env.srv[0], 0) == PMR_SESSION_FREE);
	assert_non_null(pmr_req_data(deferred[0]));
	assert_int_equal(pmr_respond_error(deferred[0], PMR_E_NOMEM), 0);
	assert_int_equal(pmr_respond_error(deferred[0], PMR_E_NOMEM),
			-ESTALE);
	assert_int_equal(pmr_msgbuf_pool_in_use(pmr_worker_pool(env.srv[0],
			0)), 0);
	/* Its number was freed: the next session takes it. */
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	assert_int_equal(pmr_session_state(env.srv[0], 0),
			PMR_SESSION_CONNECTED);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(defect10_stale_handle,
				setup_window1, teardown),
		cmocka_unit_test_setup_teardown(defect10_free_in_flight,
				setup, teardown),
		cmocka_unit_test_setup_teardown(defect10_double_request,
				setup, teardown),
		cmocka_unit_test_setup_teardown(
				defect10_respond_other_response,
				setup, teardown),
		cmocka_unit_test_setup_teardown(defect9_respond_error,
				setup_window1, teardown),
		cmocka_unit_test_setup_teardown(defect9_alloc_fail,
				setup_window1, teardown),
		cmocka_unit_test_setup_teardown(defect9_orphan_error,
				setup_window1, teardown),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("hostile_api", tests,
			pmr_test_eal_setup, pmr_test_eal_teardown);
}
