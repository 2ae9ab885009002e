/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Per-request deadlines (pmr_request_timeout(), issue 11) against a real
 * server and client worker (ring pairs, a nexus on 127.0.0.1), the
 * server's handler keeping the requests it is sent so that they are never
 * answered in time: a short deadline fires before the worker's default, a
 * long one outlives it (and is still answered), 0 takes the default, one
 * over PMR_REQ_TIMEOUT_MAX_MS is refused, mixed deadlines complete in
 * deadline order, requests queued behind the window or for a connecting
 * session time out at their own deadline, and short deadlines count
 * toward the 8-timeouts-in-a-row reset of a window slot; a request that
 * times out while the server holds its zero-copy packet completes when
 * the server lets go. Every
 * continuation runs exactly once; every pool comes back full.
 *
 * Margins are generous (a loaded 2-core machine): 200 ms against 5 s.
 * Run one case with a cmocka filter: test_deadline 'deadline_short'.
 */

#include "pmr_test_rpc.h"

#include <inttypes.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <rte_errno.h>

#include "pmr_msgbuf.h"
#include "pmr_nexus.h"
#include "pmr_rpc.h"

#define T_DEFER 1	/* keeps the request; the test answers later */
#define T_ECHO 2	/* echoes it at once */

#define DEFER_MAX 32
#define MS 1000000ull	/* ns */

static struct pmr_test_env env;

/* Requests the server's T_DEFER handler keeps, and their first byte. */
static struct pmr_req_ref deferred[DEFER_MAX];
static uint8_t deferred_tag[DEFER_MAX];
static unsigned int nb_deferred;

/* Continuations in the order they ran. */
static unsigned int completions;

/* What a continuation saw. */
struct result {
	unsigned int calls;	/* exactly 1 in the end */
	unsigned int seq;	/* completions before it, + 1 */
	enum pmr_status status;
	uint64_t at_ns;		/* when it ran */
	char data[64];
	uint32_t len;
};

static void
on_resp(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct result *r = tag;

	(void)w;
	r->calls++;
	r->seq = ++completions;
	r->status = resp->status;
	r->at_ns = pmr_test_now_ns();
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
	deferred_tag[nb_deferred] = pmr_req_len(req) != 0 ?
		*(const uint8_t *)pmr_req_data(req) : 0;
	deferred[nb_deferred++] = req;
}

static void
echo_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_msgbuf *resp = pmr_req_resp_buf(req);

	(void)arg;
	assert_non_null(resp);
	memcpy(resp->data, pmr_req_data(req), pmr_req_len(req));
	resp->len = pmr_req_len(req);
	assert_int_equal(pmr_respond(req, resp), 0);
}

static void
handlers(struct pmr_nexus *nx)
{
	nb_deferred = 0;
	completions = 0;
	assert_int_equal(pmr_nexus_register_handler(nx, T_DEFER,
			defer_handler, NULL), 0);
	assert_int_equal(pmr_nexus_register_handler(nx, T_ECHO,
			echo_handler, NULL), 0);
}

#define POLL_UNTIL(cond) PMR_TEST_POLL_UNTIL(&env, cond)

/* Workers whose default request timeout is timeout_ms, window requests
 * in flight per session. */
static void
env_up(uint32_t timeout_ms, uint16_t window)
{
	struct pmr_worker_conf conf = {
		.nb_msgbufs = 256,
		.req_timeout_ms = timeout_ms,
		.session_window = window,
	};

	pmr_test_env_up(&env, 1, handlers, &conf, &conf);
}

static int
setup_5s(void **state)
{
	(void)state;
	env_up(5000, 8);
	return 0;
}

static int
setup_1s(void **state)
{
	(void)state;
	env_up(1000, 8);
	return 0;
}

static int
setup_5s_window1(void **state)
{
	(void)state;
	env_up(5000, 1);
	return 0;
}

/* 5 s, and every payload sent zero-copy from its msgbuf (eth devarg). */
static int
setup_5s_zerocopy(void **state)
{
	struct pmr_worker_conf conf = {
		.nb_msgbufs = 256,
		.req_timeout_ms = 5000,
		.session_window = 8,
		.devargs = "tx_copy_max=0",
	};

	(void)state;
	pmr_test_env_up(&env, 1, handlers, &conf, &conf);
	return 0;
}

static int
setup_300ms(void **state)
{
	(void)state;
	env_up(300, 8);
	return 0;
}

static unsigned int
pools_in_use(struct pmr_worker *w)
{
	struct rte_mempool *mp;
	unsigned int c, n = 0;

	for (c = 0; (mp = pmr_worker_pool(w, c)) != NULL; c++)
		n += pmr_msgbuf_pool_in_use(mp);
	return n;
}

/*
 * Answer what the server still keeps (late: the client gave up on it, or
 * its session is gone), then check every pool is full.
 */
static int
teardown(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < nb_deferred; i++)
		(void)pmr_respond_error(deferred[i], PMR_E_NOMEM);
	/* Kept responses go when the server learns the session closed. */
	POLL_UNTIL(pools_in_use(env.cli[0]) == 0 &&
			pools_in_use(env.srv[0]) == 0);
	pmr_test_env_down(&env);
	return 0;
}

/* A msgbuf of the client of len bytes, the first one tag. */
static struct pmr_msgbuf *
cli_msg(uint8_t tag, uint32_t len)
{
	struct pmr_msgbuf *mb = pmr_worker_msgbuf_alloc(env.cli[0], len);

	assert_non_null(mb);
	memset(mb->data, tag, len);
	return mb;
}

static int
connect0(void)
{
	struct pmr_test_sess_ev e;
	int s = pmr_test_connect(&env, env.cli[0], 0, &e);

	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	return s;
}

/* The server's kept request of tag, answered with its own bytes. */
static void
answer_deferred(uint8_t tag)
{
	struct pmr_msgbuf *resp;
	unsigned int i;

	for (i = 0; i < nb_deferred; i++)
		if (deferred_tag[i] == tag)
			break;
	assert_true(i < nb_deferred);
	resp = pmr_worker_msgbuf_alloc(env.srv[0], 4);
	assert_non_null(resp);
	memset(resp->data, tag, 4);
	assert_int_equal(pmr_respond(deferred[i], resp), 0);
}

static void
poll_ms(uint64_t ms)
{
	uint64_t end = pmr_test_now_ns() + ms * MS;

	while (pmr_test_now_ns() < end)
		pmr_test_env_poll(&env);
}

static uint64_t
retransmissions(void)
{
	struct pmr_worker_stats st;

	pmr_worker_stats_get(env.cli[0], &st);
	return st.retransmissions;
}

/*
 * A 200 ms deadline on a server that never answers fires long before the
 * worker's 5 s default: a default request sent first is still pending
 * when it does. The short one was sent again until then.
 */
static void
deadline_short(void **state)
{
	struct result rd = { 0 }, rs = { 0 };
	struct pmr_msgbuf *qd, *qs;
	uint64_t t0;
	int s;

	(void)state;
	s = connect0();
	qd = cli_msg('d', 8);
	qs = cli_msg('s', 8);
	t0 = pmr_test_now_ns();
	assert_int_equal(pmr_request(env.cli[0], s, T_DEFER, qd, on_resp,
			&rd), 0);
	assert_int_equal(pmr_request_timeout(env.cli[0], s, T_DEFER, qs,
			on_resp, &rs, 200), 0);
	POLL_UNTIL(rs.calls != 0);
	assert_int_equal(rs.status, PMR_E_TIMEOUT);
	assert_true(rs.at_ns - t0 >= 200 * MS);
	/* The default one is still pending: the short one went first. */
	assert_int_equal(rd.calls, 0);
	assert_int_equal(nb_deferred, 2);	/* both reached the server */
	assert_true(retransmissions() > 0);
	/* The default one times out at the default, not before. */
	POLL_UNTIL(rd.calls != 0);
	assert_int_equal(rd.status, PMR_E_TIMEOUT);
	assert_true(rd.at_ns - t0 >= 5000 * MS);
	assert_int_equal(rs.calls, 1);
	assert_int_equal(pmr_msgbuf_free(qd), 0);
	assert_int_equal(pmr_msgbuf_free(qs), 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/*
 * A request that times out while the server still holds its packet: sent
 * zero-copy, the server's kept packet is the client's msgbuf (a ring pair
 * hands the mbuf over). Its continuation waits (the msgbuf is not the
 * application's again until the driver lets go), and runs once the
 * server answers and releases it, with the timeout.
 */
static void
deadline_driver_holds(void **state)
{
	struct result r = { 0 };
	struct pmr_worker_stats st;
	struct pmr_msgbuf *q;
	int s;

	(void)state;
	s = connect0();
	q = cli_msg('z', 64);
	assert_int_equal(pmr_request_timeout(env.cli[0], s, T_DEFER, q,
			on_resp, &r, 200), 0);
	POLL_UNTIL(nb_deferred == 1);
	assert_true(pmr_msgbuf_tx_pending(q) != 0);	/* zero-copy */
	POLL_UNTIL(pmr_worker_stats_get(env.cli[0], &st) == 0 &&
			st.timeouts == 1);
	poll_ms(100);
	assert_int_equal(r.calls, 0);		/* the server holds q */
	assert_true(pmr_msgbuf_tx_pending(q) != 0);
	assert_int_equal(pmr_respond_error(deferred[0], PMR_E_NOMEM), 0);
	POLL_UNTIL(r.calls != 0);
	assert_int_equal(r.status, PMR_E_TIMEOUT);
	assert_int_equal(pmr_msgbuf_tx_pending(q), 0);
	poll_ms(50);
	assert_int_equal(r.calls, 1);
	assert_int_equal(pmr_msgbuf_free(q), 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/*
 * A 5 s deadline outlives the worker's 1 s default: retransmissions go
 * on past the default, and the server's answer at about 2 s reaches it.
 */
static void
deadline_long(void **state)
{
	struct result rd = { 0 }, rl = { 0 };
	struct pmr_msgbuf *qd, *ql;
	uint64_t t0, rtx;
	int s;

	(void)state;
	s = connect0();
	qd = cli_msg('d', 8);
	ql = cli_msg('l', 8);
	t0 = pmr_test_now_ns();
	assert_int_equal(pmr_request(env.cli[0], s, T_DEFER, qd, on_resp,
			&rd), 0);
	assert_int_equal(pmr_request_timeout(env.cli[0], s, T_DEFER, ql,
			on_resp, &rl, 5000), 0);
	POLL_UNTIL(rd.calls != 0);
	assert_int_equal(rd.status, PMR_E_TIMEOUT);
	assert_true(rd.at_ns - t0 >= 1000 * MS);
	assert_int_equal(rl.calls, 0);
	/* Past the default, the long one is still sent again. */
	rtx = retransmissions();
	POLL_UNTIL(retransmissions() > rtx);
	poll_ms(500);
	assert_int_equal(rl.calls, 0);
	answer_deferred('l');
	POLL_UNTIL(rl.calls != 0);
	assert_int_equal(rl.status, PMR_OK);
	assert_int_equal(rl.len, 4);
	assert_memory_equal(rl.data, "llll", 4);
	assert_true(rl.at_ns - t0 >= 1000 * MS);
	assert_int_equal(rd.calls, 1);
	assert_int_equal(pmr_msgbuf_free(qd), 0);
	assert_int_equal(pmr_msgbuf_free(ql), 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/*
 * 0 takes the worker's default (300 ms): it times out after that, and
 * before a 5 s deadline sent at the same time.
 */
static void
deadline_zero(void **state)
{
	struct result rz = { 0 }, rl = { 0 };
	struct pmr_msgbuf *qz, *ql;
	uint64_t t0;
	int s;

	(void)state;
	s = connect0();
	qz = cli_msg('z', 8);
	ql = cli_msg('l', 8);
	t0 = pmr_test_now_ns();
	assert_int_equal(pmr_request_timeout(env.cli[0], s, T_DEFER, ql,
			on_resp, &rl, 5000), 0);
	assert_int_equal(pmr_request_timeout(env.cli[0], s, T_DEFER, qz,
			on_resp, &rz, 0), 0);
	POLL_UNTIL(rz.calls != 0);
	assert_int_equal(rz.status, PMR_E_TIMEOUT);
	assert_true(rz.at_ns - t0 >= 300 * MS);
	assert_int_equal(rl.calls, 0);
	POLL_UNTIL(rl.calls != 0);
	assert_int_equal(rl.status, PMR_E_TIMEOUT);
	assert_true(rl.at_ns - t0 >= 5000 * MS);
	assert_int_equal(rz.calls, 1);
	assert_int_equal(pmr_msgbuf_free(qz), 0);
	assert_int_equal(pmr_msgbuf_free(ql), 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/*
 * Over PMR_REQ_TIMEOUT_MAX_MS: -EINVAL, the continuation never runs, the
 * msgbuf stays the caller's. PMR_REQ_TIMEOUT_MAX_MS itself is taken.
 */
static void
deadline_einval(void **state)
{
	struct result r = { 0 }, rmax = { 0 };
	struct pmr_worker_stats st;
	struct pmr_msgbuf *q;
	int s;

	(void)state;
	s = connect0();
	q = cli_msg('x', 8);
	assert_int_equal(pmr_request_timeout(env.cli[0], s, T_ECHO, q,
			on_resp, &r, PMR_REQ_TIMEOUT_MAX_MS + 1), -EINVAL);
	assert_int_equal(pmr_request_timeout(env.cli[0], s, T_ECHO, q,
			on_resp, &r, UINT32_MAX), -EINVAL);
	/* The usual refusals hold as for pmr_request(). */
	assert_int_equal(pmr_request_timeout(env.cli[0], s, T_ECHO, q,
			NULL, &r, 100), -EINVAL);
	assert_int_equal(pmr_request_timeout(env.cli[0], 4000, T_ECHO, q,
			on_resp, &r, 100), -EINVAL);
	poll_ms(50);
	assert_int_equal(r.calls, 0);
	pmr_worker_stats_get(env.cli[0], &st);
	assert_int_equal(st.reqs_sent, 0);
	/* Still the caller's: it can be freed, or sent. */
	assert_int_equal(pmr_request_timeout(env.cli[0], s, T_ECHO, q,
			on_resp, &rmax, PMR_REQ_TIMEOUT_MAX_MS), 0);
	POLL_UNTIL(rmax.calls != 0);
	assert_int_equal(rmax.status, PMR_OK);
	assert_int_equal(rmax.len, 8);
	assert_memory_equal(rmax.data, "xxxxxxxx", 8);
	poll_ms(20);
	assert_int_equal(r.calls, 0);
	assert_int_equal(rmax.calls, 1);
	assert_int_equal(pmr_msgbuf_free(q), 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/*
 * Requests sent on one session with deadlines of 2000, default (1000),
 * 600, 1400 and 200 ms complete in deadline order, not the order they
 * were sent: 200, 600, default, 1400, 2000.
 */
static void
deadline_order(void **state)
{
	static const uint32_t ms[] = { 2000, 0, 600, 1400, 200 };
	static const unsigned int rank[] = { 5, 3, 2, 4, 1 };
	struct result r[RTE_DIM(ms)];
	struct pmr_msgbuf *q[RTE_DIM(ms)];
	unsigned int i;
	uint64_t t0;
	int s;

	(void)state;
	memset(r, 0, sizeof(r));
	s = connect0();
	t0 = pmr_test_now_ns();
	for (i = 0; i < RTE_DIM(ms); i++) {
		q[i] = cli_msg((uint8_t)('a' + i), 8);
		if (ms[i] == 0)
			assert_int_equal(pmr_request(env.cli[0], s, T_DEFER,
					q[i], on_resp, &r[i]), 0);
		else
			assert_int_equal(pmr_request_timeout(env.cli[0], s,
					T_DEFER, q[i], on_resp, &r[i], ms[i]),
					0);
	}
	POLL_UNTIL(completions == RTE_DIM(ms));
	for (i = 0; i < RTE_DIM(ms); i++) {
		uint64_t want = ms[i] != 0 ? ms[i] : 1000;

		assert_int_equal(r[i].calls, 1);
		assert_int_equal(r[i].status, PMR_E_TIMEOUT);
		if (r[i].seq != rank[i])
			fail_msg("request %u (%" PRIu32 " ms) completed %u-th,"
				" not %u-th", i, ms[i], r[i].seq, rank[i]);
		assert_true(r[i].at_ns - t0 >= want * MS);
		assert_int_equal(pmr_msgbuf_free(q[i]), 0);
	}
	assert_int_equal(nb_deferred, RTE_DIM(ms));
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/*
 * Window of 1: a request queued behind one the server keeps (default
 * 5 s) times out at its own 200 ms deadline without ever being sent; the
 * next one after it is sent once the window frees.
 */
static void
deadline_queued(void **state)
{
	struct result ra = { 0 }, rb = { 0 }, rc = { 0 };
	struct pmr_msgbuf *qa, *qb, *qc;
	struct pmr_worker_stats st;
	uint64_t t0;
	int s;

	(void)state;
	s = connect0();
	qa = cli_msg('a', 8);
	qb = cli_msg('b', 8);
	qc = cli_msg('c', 8);
	t0 = pmr_test_now_ns();
	assert_int_equal(pmr_request(env.cli[0], s, T_DEFER, qa, on_resp,
			&ra), 0);
	assert_int_equal(pmr_request_timeout(env.cli[0], s, T_ECHO, qb,
			on_resp, &rb, 200), 0);
	POLL_UNTIL(rb.calls != 0);
	assert_int_equal(rb.status, PMR_E_TIMEOUT);
	assert_true(rb.at_ns - t0 >= 200 * MS);
	assert_int_equal(ra.calls, 0);
	pmr_worker_stats_get(env.cli[0], &st);
	assert_int_equal(st.reqs_sent, 1);	/* b never entered the window */
	/* Once a is answered, the window takes the next one. */
	assert_int_equal(pmr_request_timeout(env.cli[0], s, T_ECHO, qc,
			on_resp, &rc, 4000), 0);
	answer_deferred('a');
	POLL_UNTIL(rc.calls != 0);
	assert_int_equal(ra.status, PMR_OK);
	assert_int_equal(rc.status, PMR_OK);
	assert_memory_equal(rc.data, "cccccccc", 8);
	assert_true(ra.seq < rc.seq);
	assert_int_equal(ra.calls, 1);
	assert_int_equal(rb.calls, 1);
	assert_int_equal(pmr_msgbuf_free(qa), 0);
	assert_int_equal(pmr_msgbuf_free(qb), 0);
	assert_int_equal(pmr_msgbuf_free(qc), 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/*
 * A request for a session still connecting (to a nexus that never
 * answers) times out at its own 200 ms deadline, the session still
 * connecting, before one sent first with the default 5 s. The client is
 * a worker of a nexus of its own that tries for 60 s, so that the
 * deadline comes first however slowly this runs.
 */
static void
deadline_connecting(void **state)
{
	struct pmr_nexus_conf nconf = { .connect_timeout_ms = 60000 };
	struct pmr_worker_conf wconf = {
		.worker_id = 20,	/* not one of env's (0, 10) */
		.nb_msgbufs = 256,
		.req_timeout_ms = 5000,
	};
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	struct pmr_test_sess_ev e = { 0 };
	struct result r = { 0 }, rd = { 0 };
	struct pmr_msgbuf *q, *qd;
	struct pmr_nexus *nx;
	struct pmr_worker *w;
	uint16_t pa, pb;
	char uri[64], args[64];
	uint64_t t0;
	int fd, s;

	(void)state;
	/* A UDP socket nobody reads: a silent nexus. */
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(fd >= 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	snprintf(uri, sizeof(uri), "127.0.0.1:%u", ntohs(sa.sin_port));

	nx = pmr_nexus_create("127.0.0.1:0", &nconf);
	assert_non_null(nx);
	assert_int_equal(pmr_test_ring_pair("dlconn", &pa, &pb), 0);
	snprintf(args, sizeof(args), "port=%u,ip=10.3.0.2", pa);
	wconf.devargs = args;
	w = pmr_worker_create(nx, &wconf);
	if (w == NULL)
		fail_msg("pmr_worker_create: %s", rte_strerror(rte_errno));

	s = pmr_session_create(w, uri, 0, pmr_test_on_session, &e);
	assert_true(s >= 0);
	q = pmr_worker_msgbuf_alloc(w, 8);
	qd = pmr_worker_msgbuf_alloc(w, 8);
	assert_non_null(q);
	assert_non_null(qd);
	memset(q->data, 'q', 8);
	memset(qd->data, 'd', 8);
	t0 = pmr_test_now_ns();
	/* One with the default deadline first: it is still queued after. */
	assert_int_equal(pmr_request(w, s, T_ECHO, qd, on_resp, &rd), 0);
	assert_int_equal(pmr_request_timeout(w, s, T_ECHO, q, on_resp, &r,
			200), 0);
	while (r.calls == 0) {
		pmr_worker_poll(w);
		assert_true(pmr_test_now_ns() - t0 < PMR_TEST_WAIT_NS);
	}
	assert_int_equal(r.status, PMR_E_TIMEOUT);
	assert_true(r.at_ns - t0 >= 200 * MS);
	assert_int_equal(rd.calls, 0);
	assert_int_equal(e.count, 0);
	assert_int_equal(pmr_session_state(w, s), PMR_SESSION_CONNECTING);
	assert_int_equal(pmr_session_destroy(w, s), 0);
	assert_int_equal(rd.calls, 1);
	assert_int_equal(rd.status, PMR_E_SESSION_RESET);
	for (int i = 0; i < 100; i++)
		pmr_worker_poll(w);
	assert_int_equal(r.calls, 1);
	assert_int_equal(rd.calls, 1);
	assert_int_equal(pmr_msgbuf_free(q), 0);
	assert_int_equal(pmr_msgbuf_free(qd), 0);
	assert_int_equal(pools_in_use(w), 0);
	assert_int_equal(pmr_worker_destroy(w), 0);
	pmr_test_ring_pair_free("dlconn", pa, pb);
	assert_int_equal(pmr_nexus_destroy(nx), 0);
	close(fd);
}

/*
 * Short deadlines count toward RPC_SLOT_TIMEOUTS_MAX: with a window of
 * 1, the server keeping the first request, 8 requests of 200 ms timing
 * out in a row (the server skipped a request number for each of the 7
 * it dropped) reset the session, the 7th not yet. Late answers reach no
 * continuation a second time.
 */
static void
deadline_slot_resets(void **state)
{
	struct result r[8];
	struct pmr_msgbuf *q[8];
	struct pmr_test_sess_ev e;
	struct pmr_worker_stats st;
	unsigned int i;
	int s;

	(void)state;
	memset(r, 0, sizeof(r));
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	for (i = 0; i < 8; i++) {
		q[i] = cli_msg((uint8_t)('a' + i), 8);
		assert_int_equal(pmr_request_timeout(env.cli[0], s, T_DEFER,
				q[i], on_resp, &r[i], 200), 0);
		POLL_UNTIL(r[i].calls != 0);
		if (i < 7) {
			assert_int_equal(r[i].status, PMR_E_TIMEOUT);
			assert_int_equal(pmr_session_state(env.cli[0], s),
					PMR_SESSION_CONNECTED);
			assert_int_equal(e.count, 1);
		}
		/* The server keeps the first: its slot stays busy. */
		assert_int_equal(nb_deferred, 1);
	}
	assert_int_equal(r[7].status, PMR_E_TIMEOUT);
	assert_int_equal(e.count, 2);
	assert_int_equal(e.ev, PMR_SESSION_EV_RESET);
	assert_int_equal(e.err, -ETIMEDOUT);
	pmr_worker_stats_get(env.cli[0], &st);
	assert_int_equal(st.timeout_resets, 1);
	assert_int_equal(st.timeouts, 8);
	poll_ms(50);
	for (i = 0; i < 8; i++) {
		assert_int_equal(r[i].calls, 1);
		assert_int_equal(pmr_msgbuf_free(q[i]), 0);
	}
	(void)pmr_session_destroy(env.cli[0], s);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(deadline_short,
				setup_5s, teardown),
		cmocka_unit_test_setup_teardown(deadline_long,
				setup_1s, teardown),
		cmocka_unit_test_setup_teardown(deadline_driver_holds,
				setup_5s_zerocopy, teardown),
		cmocka_unit_test_setup_teardown(deadline_zero,
				setup_300ms, teardown),
		cmocka_unit_test_setup_teardown(deadline_einval,
				setup_5s, teardown),
		cmocka_unit_test_setup_teardown(deadline_order,
				setup_1s, teardown),
		cmocka_unit_test_setup_teardown(deadline_queued,
				setup_5s_window1, teardown),
		cmocka_unit_test_setup_teardown(deadline_connecting,
				setup_5s, teardown),
		cmocka_unit_test_setup_teardown(deadline_slot_resets,
				setup_5s_window1, teardown),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("deadline", tests,
			pmr_test_eal_setup, pmr_test_eal_teardown);
}
