/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Server-side session events (issue 11): a server worker's
 * server_session_cb accepts or refuses each session a client opens and
 * hears of its end once (the client closed it, the client's nexus died,
 * the worker was destroyed); pmr_session_info_get() at both ends;
 * pmr_req_session() from a handler; pmr_session_connect().
 *
 * Two nexuses on 127.0.0.1, A (the client worker's) and B (the server
 * worker's), so that the URIs each end reports are told apart and A can
 * be silenced (its thread held) to play a dead client nexus. argv[1], if
 * given, is a cmocka filter (one test() per group in meson).
 */

#include "pmr_test_rpc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nexus_private.h"

#define SRV_ID 0
#define CLI_ID 10
#define REQ_INFO 7		/* handler: who sent this? */
#define HB_MS 50
#define PEER_TIMEOUT_MS 600
#define SRV_SESSIONS 4

/* What the server worker's callback saw. */
struct srv_log {
	int accepts, resets;
	int refuse;			/* what ACCEPT returns */
	int session;			/* of the last event */
	int reset_err;
	int reset_session;
	int accept_info_rc, reset_info_rc;
	struct pmr_session_info accept_info, reset_info;
	int connect_rc;		/* pmr_session_connect() from it */
	bool try_connect;
	const char *connect_uri;
};

/* What the REQ_INFO handler saw. */
struct handler_log {
	int calls;
	int session;
	int info_rc;
	struct pmr_session_info info;
	int stale_rc;		/* pmr_req_session() once answered */
	int connect_rc;		/* pmr_session_connect() from it */
};

struct senv {
	char pair[16];
	uint16_t pa, pb;
	struct pmr_nexus *a, *b;
	struct pmr_worker *cli, *srv;
	struct srv_log log;
};

static unsigned int senv_seq;
static struct handler_log hlog;

static int
on_server_session(struct pmr_worker *w, int session,
		enum pmr_session_event ev, int err, void *arg)
{
	struct srv_log *l = arg;

	l->session = session;
	switch (ev) {
	case PMR_SESSION_EV_ACCEPT:
		assert_int_equal(err, 0);
		l->accepts++;
		l->accept_info_rc = pmr_session_info_get(w, session,
				&l->accept_info);
		/* A server session is not the server's to destroy. */
		assert_int_equal(pmr_session_destroy(w, session), -EINVAL);
		if (l->try_connect)
			l->connect_rc = pmr_session_connect(w,
					l->connect_uri, SRV_ID, 1000);
		return l->refuse;
	case PMR_SESSION_EV_RESET:
		l->resets++;
		l->reset_err = err;
		l->reset_session = session;
		l->reset_info_rc = pmr_session_info_get(w, session,
				&l->reset_info);
		return 0;
	default:
		fail_msg("server event %d", ev);
		return 0;
	}
}

static void
info_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_worker *w = pmr_req_worker(req);

	(void)arg;
	hlog.calls++;
	hlog.session = pmr_req_session(req);
	hlog.info_rc = pmr_session_info_get(w, hlog.session, &hlog.info);
	hlog.connect_rc = pmr_session_connect(w, "127.0.0.1:1", SRV_ID, 10);
	assert_int_equal(pmr_respond_error(req, PMR_E_REMOTE_ERROR), 0);
	hlog.stale_rc = pmr_req_session(req);
}

static struct pmr_worker *
worker_on(struct pmr_nexus *nx, uint16_t id, uint16_t port, const char *ip,
		struct srv_log *log, uint32_t max_sessions)
{
	struct pmr_worker_conf conf = {
		.worker_id = id,
		.nb_msgbufs = 1024,
		.max_sessions = max_sessions,
	};
	struct pmr_worker *w;
	char args[64];

	if (log != NULL) {
		conf.server_session_cb = on_server_session;
		conf.server_session_arg = log;
	}
	snprintf(args, sizeof(args), "port=%u,ip=%s", port, ip);
	conf.devargs = args;
	w = pmr_worker_create(nx, &conf);
	assert_non_null(w);
	return w;
}

static void
senv_up_cli(struct senv *e, uint32_t cli_sessions)
{
	struct pmr_nexus_conf conf = {
		.connect_timeout_ms = 20000,
		.heartbeat_interval_ms = HB_MS,
		.peer_timeout_ms = PEER_TIMEOUT_MS,
	};

	memset(e, 0, sizeof(*e));
	memset(&hlog, 0, sizeof(hlog));
	snprintf(e->pair, sizeof(e->pair), "ss%u", senv_seq++);
	assert_int_equal(pmr_test_ring_pair(e->pair, &e->pa, &e->pb), 0);
	e->a = pmr_nexus_create("127.0.0.1:0", &conf);
	assert_non_null(e->a);
	e->b = pmr_nexus_create("127.0.0.1:0", &conf);
	assert_non_null(e->b);
	assert_int_equal(pmr_nexus_register_handler(e->b, REQ_INFO,
			info_handler, NULL), 0);
	e->cli = worker_on(e->a, CLI_ID, e->pa, "10.9.1.1", NULL,
			cli_sessions);
	e->srv = worker_on(e->b, SRV_ID, e->pb, "10.9.1.2", &e->log,
			SRV_SESSIONS);
}

static void
senv_up(struct senv *e)
{
	senv_up_cli(e, 0);
}

static void
senv_poll(struct senv *e)
{
	if (e->cli != NULL)
		pmr_worker_poll(e->cli);
	if (e->srv != NULL)
		pmr_worker_poll(e->srv);
}

#define SENV_POLL_UNTIL(e, cond) do { \
	uint64_t deadline_ = pmr_test_now_ns() + PMR_TEST_WAIT_NS; \
	while (!(cond)) { \
		senv_poll(e); \
		assert_true(pmr_test_now_ns() < deadline_); \
	} \
} while (0)

/* Poll for ms milliseconds. */
static void
senv_poll_for(struct senv *e, unsigned int ms)
{
	uint64_t end = pmr_test_now_ns() + ms * 1000000ull;

	while (pmr_test_now_ns() < end) {
		senv_poll(e);
		usleep(100);
	}
}

/* Destroy it all; pmr_worker_destroy() checks that the pools are full. */
static void
senv_down(struct senv *e)
{
	if (e->cli != NULL)
		assert_int_equal(pmr_worker_destroy(e->cli), 0);
	if (e->srv != NULL)
		assert_int_equal(pmr_worker_destroy(e->srv), 0);
	assert_int_equal(pmr_nexus_destroy(e->a), 0);
	assert_int_equal(pmr_nexus_destroy(e->b), 0);
	pmr_test_ring_pair_free(e->pair, e->pa, e->pb);
}

static struct pmr_nexus_stats
nstats(struct pmr_nexus *nx)
{
	struct pmr_nexus_stats st;

	assert_int_equal(pmr_nexus_stats_get(nx, &st), 0);
	return st;
}

/* Open a session from the client worker and poll until its first event. */
static int
senv_connect(struct senv *e, struct pmr_test_sess_ev *ev)
{
	int s;

	memset(ev, 0, sizeof(*ev));
	s = pmr_session_create(e->cli, pmr_nexus_uri(e->b), SRV_ID,
			pmr_test_on_session, ev);
	assert_true(s >= 0);
	SENV_POLL_UNTIL(e, ev->count > 0);
	return s;
}

/* Connect, check both ends' info; return the client's session. */
static int
connect_accepted(struct senv *e, struct pmr_test_sess_ev *ev)
{
	struct pmr_session_info ci, si;
	int cs, accepts = e->log.accepts;

	cs = senv_connect(e, ev);
	assert_int_equal(ev->ev, PMR_SESSION_EV_CONNECTED);
	assert_int_equal(e->log.accepts, accepts + 1);
	/* The callback ran before the answer, with the session's info. */
	assert_int_equal(e->log.accept_info_rc, 0);
	assert_int_equal(e->log.accept_info.role, PMR_SESSION_SERVER);
	assert_int_equal(e->log.accept_info.state, PMR_SESSION_CONNECTING);
	assert_int_equal(e->log.accept_info.remote_worker, CLI_ID);
	assert_string_equal(e->log.accept_info.remote_uri,
			pmr_nexus_uri(e->a));

	assert_int_equal(pmr_session_info_get(e->cli, cs, &ci), 0);
	assert_int_equal(ci.role, PMR_SESSION_CLIENT);
	assert_int_equal(ci.state, PMR_SESSION_CONNECTED);
	assert_int_equal(ci.remote_worker, SRV_ID);
	assert_string_equal(ci.remote_uri, pmr_nexus_uri(e->b));
	assert_true(ci.credits > 0);

	assert_int_equal(pmr_session_info_get(e->srv, e->log.session, &si),
			0);
	assert_int_equal(si.role, PMR_SESSION_SERVER);
	assert_int_equal(si.state, PMR_SESSION_CONNECTED);
	assert_int_equal(si.credits, ci.credits);
	return cs;
}

/* Accepted; closed by the client: one RESET, -ECONNRESET. */
static void
accept_close(void **state)
{
	struct pmr_session_info info;
	struct pmr_test_sess_ev ev;
	struct senv e;
	int cs, ss;

	(void)state;
	senv_up(&e);
	/* Bad arguments. */
	assert_int_equal(pmr_session_info_get(NULL, 0, &info), -EINVAL);
	assert_int_equal(pmr_session_info_get(e.cli, 0, NULL), -EINVAL);
	assert_int_equal(pmr_session_info_get(e.cli, -1, &info), -EINVAL);
	assert_int_equal(pmr_session_info_get(e.cli, 0, &info), -EINVAL);

	/* Connect-and-wait polls: refused inside a session callback. */
	e.log.try_connect = true;
	e.log.connect_uri = pmr_nexus_uri(e.b);
	cs = connect_accepted(&e, &ev);
	assert_int_equal(e.log.connect_rc, -EDEADLK);
	e.log.try_connect = false;
	ss = e.log.session;
	assert_int_equal(nstats(e.b).sessions_accepted, 1);
	assert_int_equal(e.log.resets, 0);
	assert_int_equal(pmr_session_destroy(e.cli, cs), 0);
	assert_int_equal(pmr_session_info_get(e.cli, cs, &info), -EINVAL);
	SENV_POLL_UNTIL(&e, e.log.resets > 0);
	assert_int_equal(e.log.reset_err, -ECONNRESET);
	assert_int_equal(e.log.reset_session, ss);
	/* Its number still named it in the callback, not after. */
	assert_int_equal(e.log.reset_info_rc, 0);
	assert_int_equal(e.log.reset_info.role, PMR_SESSION_SERVER);
	assert_int_equal(e.log.reset_info.state, PMR_SESSION_RESET);
	assert_int_equal(e.log.reset_info.remote_worker, CLI_ID);
	assert_int_equal(pmr_session_info_get(e.srv, ss, &info), -EINVAL);
	/* Once, and not again at destroy. */
	senv_poll_for(&e, 200);
	assert_int_equal(pmr_worker_destroy(e.srv), 0);
	e.srv = NULL;
	assert_int_equal(e.log.resets, 1);
	senv_down(&e);
}

/*
 * Refused by the callback: the client fails with -ECONNREFUSED at once
 * (final: no retry until connect_timeout_ms), the server hears nothing
 * more of it, and nothing is kept at either end: more refusals than the
 * server has sessions, then an accepted one.
 */
static void
refuse(void **state)
{
	struct pmr_test_sess_ev ev;
	struct senv e;
	int i, cs;

	(void)state;
	senv_up(&e);
	e.log.refuse = -EPERM;
	for (i = 0; i < 2 * SRV_SESSIONS; i++) {
		cs = senv_connect(&e, &ev);
		assert_int_equal(ev.ev, PMR_SESSION_EV_CONNECT_FAILED);
		assert_int_equal(ev.err, -ECONNREFUSED);
		assert_int_equal(e.log.accepts, i + 1);
		assert_int_equal(pmr_session_state(e.cli, cs),
				PMR_SESSION_FAILED);
		assert_int_equal(pmr_session_destroy(e.cli, cs), 0);
	}
	/* The session the callback saw is free again. */
	assert_int_equal(pmr_session_info_get(e.srv, e.log.session, NULL),
			-EINVAL);
	assert_int_equal(nstats(e.b).sessions_refused,
			(uint64_t)2 * SRV_SESSIONS);
	assert_int_equal(nstats(e.b).sessions_accepted, 0);
	assert_int_equal(nstats(e.a).sessions_failed,
			(uint64_t)2 * SRV_SESSIONS);

	e.log.refuse = 0;
	cs = connect_accepted(&e, &ev);
	assert_int_equal(pmr_session_destroy(e.cli, cs), 0);
	SENV_POLL_UNTIL(&e, e.log.resets > 0);
	senv_poll_for(&e, 200);
	assert_int_equal(pmr_worker_destroy(e.srv), 0);
	e.srv = NULL;
	/* One RESET: the accepted session's, none for the refused. */
	assert_int_equal(e.log.resets, 1);
	assert_int_equal(e.log.accepts, 2 * SRV_SESSIONS + 1);
	senv_down(&e);
}

/* The client's nexus goes silent: RESET with -ETIMEDOUT. */
static void
client_nexus_dead(void **state)
{
	struct pmr_test_sess_ev ev;
	struct senv e;
	int cs;

	(void)state;
	senv_up(&e);
	cs = connect_accepted(&e, &ev);
	pthread_mutex_lock(&e.a->lock);
	SENV_POLL_UNTIL(&e, e.log.resets > 0);
	pthread_mutex_unlock(&e.a->lock);
	assert_int_equal(e.log.reset_err, -ETIMEDOUT);
	assert_int_equal(e.log.reset_info_rc, 0);
	assert_int_equal(e.log.reset_info.state, PMR_SESSION_RESET);
	assert_true(nstats(e.b).peers_dead >= 1);
	/* A, back, finds B gone quiet in turn. */
	SENV_POLL_UNTIL(&e, pmr_session_state(e.cli, cs) ==
			PMR_SESSION_RESET);
	assert_int_equal(pmr_session_destroy(e.cli, cs), 0);
	senv_poll_for(&e, 200);
	assert_int_equal(pmr_worker_destroy(e.srv), 0);
	e.srv = NULL;
	assert_int_equal(e.log.resets, 1);
	senv_down(&e);
}

/* pmr_worker_destroy(): RESET with -ESHUTDOWN; the client is told. */
static void
worker_destroyed(void **state)
{
	struct pmr_test_sess_ev ev;
	struct senv e;
	int cs, ss;

	(void)state;
	senv_up(&e);
	cs = connect_accepted(&e, &ev);
	ss = e.log.session;
	assert_int_equal(pmr_worker_destroy(e.srv), 0);
	e.srv = NULL;
	assert_int_equal(e.log.resets, 1);
	assert_int_equal(e.log.reset_err, -ESHUTDOWN);
	assert_int_equal(e.log.reset_session, ss);
	assert_int_equal(e.log.reset_info_rc, 0);
	assert_int_equal(e.log.reset_info.role, PMR_SESSION_SERVER);
	SENV_POLL_UNTIL(&e, ev.ev == PMR_SESSION_EV_RESET);
	assert_int_equal(ev.err, -ECONNRESET);
	assert_int_equal(pmr_session_destroy(e.cli, cs), 0);
	senv_down(&e);
}

static void
on_info_resp(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	int *done = tag;

	assert_int_equal(resp->status, PMR_E_REMOTE_ERROR);
	assert_int_equal(pmr_msgbuf_free(resp->req), 0);
	(void)w;
	*done = 1;
}

/* A continuation run by pmr_session_destroy() tries to connect. */
static void
on_reset_resp(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	int *rc = tag;

	assert_int_equal(resp->status, PMR_E_SESSION_RESET);
	assert_int_equal(pmr_msgbuf_free(resp->req), 0);
	*rc = pmr_session_connect(w, "127.0.0.1:1", SRV_ID, 10);
}

/* A handler tells which session, and whose, its request came on. */
static void
req_session(void **state)
{
	struct pmr_req_ref none = { .slot = NULL, .gen = 0 };
	struct pmr_test_sess_ev ev;
	struct pmr_msgbuf *mb;
	struct senv e;
	int cs, done = 0;

	(void)state;
	senv_up(&e);
	assert_int_equal(pmr_req_session(none), -ESTALE);
	cs = connect_accepted(&e, &ev);
	mb = pmr_worker_msgbuf_alloc(e.cli, 8);
	assert_non_null(mb);
	assert_int_equal(pmr_request(e.cli, cs, REQ_INFO, mb, on_info_resp,
			&done), 0);
	SENV_POLL_UNTIL(&e, done);
	assert_int_equal(hlog.calls, 1);
	assert_int_equal(hlog.session, e.log.session);
	assert_int_equal(hlog.info_rc, 0);
	assert_int_equal(hlog.info.role, PMR_SESSION_SERVER);
	assert_int_equal(hlog.info.state, PMR_SESSION_CONNECTED);
	assert_int_equal(hlog.info.remote_worker, CLI_ID);
	assert_string_equal(hlog.info.remote_uri, pmr_nexus_uri(e.a));
	/* Answered: the reference is stale. */
	assert_int_equal(hlog.stale_rc, -ESTALE);
	/* Connect-and-wait polls: refused inside a handler. */
	assert_int_equal(hlog.connect_rc, -EDEADLK);
	/* Nor from a continuation that pmr_session_destroy() runs. */
	mb = pmr_worker_msgbuf_alloc(e.cli, 8);
	assert_non_null(mb);
	done = 1;
	assert_int_equal(pmr_request(e.cli, cs, REQ_INFO, mb, on_reset_resp,
			&done), 0);
	assert_int_equal(pmr_session_destroy(e.cli, cs), 0);
	assert_int_equal(done, -EDEADLK);
	SENV_POLL_UNTIL(&e, e.log.resets > 0);
	senv_down(&e);
}

/* The server worker polled by a thread of its own. */
struct srv_thread {
	pthread_t tid;
	struct pmr_worker *w;
	bool stop;
};

static void *
srv_thread_main(void *arg)
{
	struct srv_thread *t = arg;

	while (!__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE))
		pmr_worker_poll(t->w);
	return NULL;
}

/*
 * pmr_session_connect(), the client worker on the test's thread, the
 * server's on another: connected; refused (more times than the client has
 * sessions: none kept); no such worker; nobody answering.
 */
static void
connect_wait(void **state)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	socklen_t salen = sizeof(sa);
	struct pmr_session_info info;
	struct srv_thread t;
	char silent[PMR_URI_MAX];
	struct senv e;
	uint64_t t0;
	int cs, fd, i;

	(void)state;
	senv_up_cli(&e, 2);
	assert_int_equal(pmr_session_connect(NULL, pmr_nexus_uri(e.b), SRV_ID,
			1000), -EINVAL);
	assert_int_equal(pmr_session_connect(e.cli, NULL, SRV_ID, 1000),
			-EINVAL);
	memset(&t, 0, sizeof(t));
	t.w = e.srv;
	assert_int_equal(pthread_create(&t.tid, NULL, srv_thread_main, &t), 0);

	/* Refused: final, at once, whatever the time left. */
	__atomic_store_n(&e.log.refuse, -EACCES, __ATOMIC_RELEASE);
	for (i = 0; i < 3; i++)
		assert_int_equal(pmr_session_connect(e.cli,
				pmr_nexus_uri(e.b), SRV_ID, 60000),
				-ECONNREFUSED);
	__atomic_store_n(&e.log.refuse, 0, __ATOMIC_RELEASE);

	/* Connected. */
	cs = pmr_session_connect(e.cli, pmr_nexus_uri(e.b), SRV_ID, 60000);
	assert_true(cs >= 0);
	assert_int_equal(pmr_session_state(e.cli, cs), PMR_SESSION_CONNECTED);
	assert_int_equal(pmr_session_info_get(e.cli, cs, &info), 0);
	assert_string_equal(info.remote_uri, pmr_nexus_uri(e.b));
	assert_int_equal(pmr_session_destroy(e.cli, cs), 0);

	/* No such worker: the nexus answers. */
	assert_int_equal(pmr_session_connect(e.cli, pmr_nexus_uri(e.b), 99,
			60000), -ENOENT);

	/* Nobody answers on that port: -ETIMEDOUT after the timeout. */
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &salen), 0);
	snprintf(silent, sizeof(silent), "127.0.0.1:%u", ntohs(sa.sin_port));
	t0 = pmr_test_now_ns();
	assert_int_equal(pmr_session_connect(e.cli, silent, SRV_ID, 300),
			-ETIMEDOUT);
	assert_true(pmr_test_now_ns() - t0 >= 300 * 1000000ull);
	close(fd);

	__atomic_store_n(&t.stop, true, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(t.tid, NULL), 0);
	/* 3 refused, 1 accepted and closed. */
	assert_int_equal(e.log.accepts, 4);
	SENV_POLL_UNTIL(&e, e.log.resets == 1);
	/* 3 by the callback, 1 for no such worker. */
	assert_int_equal(nstats(e.b).sessions_refused, 4);
	senv_down(&e);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(accept_close),
		cmocka_unit_test(refuse),
		cmocka_unit_test(client_nexus_dead),
		cmocka_unit_test(worker_destroyed),
		cmocka_unit_test(req_session),
		cmocka_unit_test(connect_wait),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("server_session", tests,
			pmr_test_eal_setup, pmr_test_eal_teardown);
}
