/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * A peer killed mid-READ (issue 17, doc/rendezvous.md "When things
 * fail"), in two processes on a real device: rdv_kill_vm.sh runs them in
 * the VM of devtools/vm/ on rxe0, 8 MiB requests by READ at the workers'
 * default threshold, rxe's type-2 windows exposing them.
 *
 * The two processes meet through files named after RDV_KILL_FILE (F):
 * the server writes F (its URI), whole (renamed into place); the process
 * to be killed writes F.ready when it should be; the script kills it
 * with SIGKILL and then writes F.killed.
 *
 * Reader killed: "reader_server" serves 8 MiB requests, which it READs;
 * it answers the first and holds the rest in its handler (on rxe a READ
 * may complete within the poll that posted it). Once it has posted the
 * READ of the second (rdv_reads over its answers: the READ still out, or
 * the handler holding the request) it stops polling and writes F.ready.
 * "reader_client" sends 8 MiB requests to it one after another until one
 * fails: that one was offered (a window bound on the
 * pair's QP) when the server died. It fails at the peer timeout (the
 * session reset) or at its own timeout; the offer is taken back
 * (rdv_reclaimed: the window invalidated, or deallocated on a QP in ERR),
 * the pools come back full, and a session to a worker of its own process
 * still moves 8 MiB by READ.
 *
 * Offerer killed: "offerer_client" sends one 8 MiB request by READ (both
 * ends' QPs up) and writes F.armed; "offerer_server" answers 128 small
 * requests of its own client worker (so that the slot of that first
 * request recycles its answer's buffer for the next), stops polling its
 * serving worker, so that it cannot read the next request before the
 * client dies, and writes F.frozen; the client then offers a second
 * request, writes F.ready once its descriptor went (rdv_descs_sent), and
 * keeps polling (sending the descriptor again) until it is killed. Once
 * F.killed is there the server polls again: it takes the descriptor,
 * posts its READ, which fails (retries exhausted, or flushed when the
 * session is reset at the peer timeout; or the reset comes first and the
 * descriptor is dropped unread); every buffer comes back, the
 * handler never ran for that request, and it serves a request of 8 MiB
 * from a live client (a worker of its own process) by READ.
 */

#include "pmr_test_rpc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmr_msgbuf.h"
#include "pmr_nexus.h"
#include "rpc_private.h"

#define T_SUM 1		/* checks the payload, counts, answers 8 bytes */
#define T_PING 2	/* answers its request */
#define BIG (8u << 20)
#define MAX_IDS 1024

static struct pmr_test_env env;
static uint32_t exec_count[MAX_IDS];
static uint32_t handled;	/* handler runs, all ids */
static uint32_t answered;	/* of those, answered */
static uint32_t hold_from = MAX_IDS;	/* ids from this one: held */
static uint32_t bad_payloads;
static uint32_t srv_resets;	/* server sessions reset (not destroyed) */

static int
on_srv_session(struct pmr_worker *w, int session, enum pmr_session_event ev,
		int err, void *arg)
{
	(void)w;
	(void)session;
	(void)arg;
	if (ev == PMR_SESSION_EV_RESET && err != -ESHUTDOWN)
		srv_resets++;
	return 0;
}

static const char *
kill_file(void)
{
	const char *f = getenv("RDV_KILL_FILE");

	assert_non_null(f);
	return f;
}

static bool
exists(const char *suffix)
{
	char path[512];

	snprintf(path, sizeof(path), "%s%s", kill_file(), suffix);
	return access(path, F_OK) == 0;
}

/* Write F<suffix> whole, then rename it: the reader never sees half. */
static void
put_file(const char *suffix, const char *text)
{
	char path[512], tmp[520];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", kill_file(), suffix);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rename(tmp, path), 0);
}

static uint8_t
pattern(uint32_t id, uint32_t i)
{
	return (uint8_t)(id * 131 + i * 7 + (i >> 12));
}

static void
sum_handler(struct pmr_req_ref req, void *arg)
{
	const uint8_t *d = pmr_req_data(req);
	uint32_t id, i, len = pmr_req_len(req);
	struct pmr_msgbuf *resp;

	(void)arg;
	assert_true(len == BIG);
	memcpy(&id, d, sizeof(id));
	assert_true(id < MAX_IDS);
	for (i = sizeof(id); i < len; i++)
		if (d[i] != pattern(id, i))
			break;
	if (i != len)
		bad_payloads++;
	exec_count[id]++;
	handled++;
	if (id >= hold_from)
		return;	/* never answered: the process dies holding it */
	answered++;
	resp = pmr_req_resp_buf(req);
	assert_non_null(resp);
	assert_int_equal(pmr_msgbuf_resize(resp, 8), 0);
	memcpy(resp->data, &id, sizeof(id));
	memcpy(resp->data + 4, &len, sizeof(len));
	assert_int_equal(pmr_respond(req, resp), 0);
}

static void
ping_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_msgbuf *resp = pmr_req_resp_buf(req);

	(void)arg;
	assert_non_null(resp);
	assert_int_equal(pmr_msgbuf_resize(resp, 0), 0);
	assert_int_equal(pmr_respond(req, resp), 0);
}

static void
handlers(struct pmr_nexus *nx)
{
	memset(exec_count, 0, sizeof(exec_count));
	handled = 0;
	answered = 0;
	bad_payloads = 0;
	assert_int_equal(pmr_nexus_register_handler(nx, T_SUM, sum_handler,
			NULL), 0);
	assert_int_equal(pmr_nexus_register_handler(nx, T_PING, ping_handler,
			NULL), 0);
}

struct call {
	uint32_t id;
	int session;
	int runs;
	enum pmr_status status;
	int bad;
};

static void
on_call(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct call *c = tag;
	uint32_t v[2];

	(void)w;
	c->runs++;
	c->status = resp->status;
	if (resp->status == PMR_OK) {
		if (resp->len != sizeof(v))
			c->bad++;
		else {
			memcpy(v, resp->data, sizeof(v));
			if (v[0] != c->id || v[1] != BIG)
				c->bad++;
		}
	}
	pmr_msgbuf_free(resp->req);
}

static void
call_start(struct pmr_worker *cli, struct call *c)
{
	struct pmr_msgbuf *req = pmr_worker_msgbuf_alloc(cli, BIG);
	uint32_t i;

	assert_non_null(req);
	for (i = 0; i < BIG; i++)
		req->data[i] = pattern(c->id, i);
	memcpy(req->data, &c->id, sizeof(c->id));
	c->runs = 0;
	assert_int_equal(pmr_request(cli, c->session, T_SUM, req, on_call,
			c), 0);
}

static struct pmr_worker_stats
stats(struct pmr_worker *w)
{
	struct pmr_worker_stats st;

	assert_int_equal(pmr_worker_stats_get(w, &st), 0);
	return st;
}

static bool
pools_full(struct pmr_worker *w)
{
	struct rte_mempool *mp;
	unsigned int c;

	for (c = 0; (mp = pmr_worker_pool(w, c)) != NULL; c++)
		if (pmr_msgbuf_pool_in_use(mp) != 0)
			return false;
	return true;
}

/* Poll until w's pools are full; fail after 30 s, saying what is out. */
static void
wait_pools_full(struct pmr_worker *w)
{
	uint64_t deadline = pmr_test_now_ns() + 30000000000ull;
	struct rte_mempool *mp;
	unsigned int c;

	while (!pools_full(w)) {
		pmr_test_env_poll(&env);
		if (pmr_test_now_ns() < deadline)
			continue;
		for (c = 0; (mp = pmr_worker_pool(w, c)) != NULL; c++)
			fprintf(stderr, "rdv_kill: worker %u pool %u: %u "
				"in use\n", pmr_worker_id(w), c,
				pmr_msgbuf_pool_in_use(mp));
		fail_msg("pools not full");
	}
}

static void
up(void)
{
	/*
	 * The requests' own timeout well past the peer timeout (10 s): an
	 * 8 MiB READ on rxe under TCG must not time out while it runs.
	 */
	struct pmr_worker_conf conf = { .req_timeout_ms = 30000,
		.srv_state_timeout_ms = 30000,
		.server_session_cb = on_srv_session };

	srv_resets = 0;

	pmr_test_env_up(&env, 1, handlers, &conf, &conf);
	/* The default threshold, and a device with windows (rxe). */
	assert_int_equal(env.cli[0]->rdv_threshold,
			PMR_RDV_THRESHOLD_DEFAULT);
	assert_non_null(env.cli[0]->rdv);
	assert_true(env.cli[0]->rdv_mw);
}

static void
serve_uri(void)
{
	char text[256];

	snprintf(text, sizeof(text), "%s\n", pmr_nexus_uri(env.nx));
	put_file("", text);
}

/* Connect env.cli[0] to the server process's worker 0. */
static int
connect_remote(struct pmr_test_sess_ev *e)
{
	char uri[128];
	FILE *f;
	int s;

	PMR_TEST_POLL_UNTIL(&env, exists(""));
	f = fopen(kill_file(), "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%127s", uri), 1);
	fclose(f);
	memset(e, 0, sizeof(*e));
	s = pmr_session_create(env.cli[0], uri, 0, pmr_test_on_session, e);
	assert_true(s >= 0);
	PMR_TEST_POLL_UNTIL(&env, e->count > 0);
	if (e->ev != PMR_SESSION_EV_CONNECTED)
		fail_msg("connect to %s: event %d, err %d", uri, e->ev,
			e->err);
	return s;
}

/* One 8 MiB request to a live peer, by READ, answered right. */
static void
call_ok(int session, uint32_t id, struct pmr_worker *reader)
{
	struct pmr_worker_stats c0 = stats(env.cli[0]), r0 = { 0 };
	struct call c = { .id = id, .session = session };

	if (reader != NULL)
		r0 = stats(reader);

	call_start(env.cli[0], &c);
	PMR_TEST_POLL_UNTIL(&env, c.runs == 1);
	assert_int_equal(c.status, PMR_OK);
	assert_int_equal(c.bad, 0);
	assert_true(stats(env.cli[0]).rdv_descs_sent > c0.rdv_descs_sent);
	assert_int_equal(stats(env.cli[0]).rdv_fallbacks, c0.rdv_fallbacks);
	if (reader != NULL) {
		assert_int_equal(stats(reader).rdv_reads, r0.rdv_reads + 1);
		assert_int_equal(stats(reader).rdv_read_bytes,
				r0.rdv_read_bytes + BIG);
	}
}

static void
test_rdv_kill_reader_server(void **state)
{
	struct pmr_worker_stats st;

	(void)state;
	/*
	 * Request 0 answered, then 1 read: on rxe its READ may complete
	 * within the poll that posted it, and the handler keeps it, so the
	 * client's offer of it stands whichever the server dies in.
	 */
	hold_from = 1;
	up();
	serve_uri();
	fprintf(stderr, "rdv_kill: server up at %s\n",
		pmr_nexus_uri(env.nx));
	do {
		pmr_test_env_poll(&env);
		st = stats(env.srv[0]);
	} while (answered == 0 || st.rdv_reads <= answered);
	/* A READ posted, its request unanswered: stop here, die here. */
	put_file(".ready", "");
	fprintf(stderr, "rdv_kill: READ %llu posted after %u answered, "
		"%s, %u bad\n", (unsigned long long)st.rdv_reads, answered,
		handled > answered ? "the handler holds it" :
		"its completion not taken", bad_payloads);
	for (;;)
		pause();
}

static void
test_rdv_kill_reader_client(void **state)
{
	struct pmr_test_sess_ev er, es;
	struct pmr_worker_stats c0;
	uint64_t deadline, tk = 0, t1;
	struct call c;
	uint32_t id, ok = 0;
	unsigned int n = 0;
	int sr, ss;

	(void)state;
	up();
	sr = connect_remote(&er);
	ss = pmr_test_connect(&env, env.cli[0], 0, &es);
	assert_int_equal(es.ev, PMR_SESSION_EV_CONNECTED);

	/* 8 MiB requests one after another, until one fails. */
	for (id = 0;; id++) {
		assert_true(id < MAX_IDS);
		c = (struct call){ .id = id, .session = sr };
		call_start(env.cli[0], &c);
		deadline = pmr_test_now_ns() + PMR_TEST_WAIT_NS;
		while (c.runs == 0) {
			pmr_test_env_poll(&env);
			if (tk == 0 && (++n & 1023) == 0 && exists(".killed"))
				tk = pmr_test_now_ns();
			assert_true(pmr_test_now_ns() < deadline);
		}
		if (c.status != PMR_OK)
			break;
		assert_int_equal(c.bad, 0);
		ok++;
	}
	t1 = pmr_test_now_ns();
	fprintf(stderr, "rdv_kill: request %u failed (%s) %lld ms after "
		"the kill, %u answered before\n", id,
		c.status == PMR_E_SESSION_RESET ? "session reset" :
		c.status == PMR_E_TIMEOUT ? "timeout" : "other",
		tk != 0 ? (long long)((t1 - tk) / 1000000) : -1LL, ok);
	assert_true(c.status == PMR_E_SESSION_RESET ||
			c.status == PMR_E_TIMEOUT);
	/* The server died with a READ of a later request posted. */
	assert_true(ok >= 1);
	c0 = stats(env.cli[0]);
	assert_true(c0.rdv_descs_sent >= ok + 1);
	assert_int_equal(c0.rdv_fallbacks, 0);
	/* Its offer was taken back, not given up as read. */
	assert_true(c0.rdv_reclaimed >= 1);
	/* The session resets at the peer timeout, if it had not yet. */
	PMR_TEST_POLL_UNTIL(&env, er.count > 1);
	assert_int_equal(er.ev, PMR_SESSION_EV_RESET);
	/* Window invalidated (or deallocated): the buffer is back. */
	wait_pools_full(env.cli[0]);
	assert_int_equal(pmr_session_destroy(env.cli[0], sr), 0);

	/* The other session, to a live worker, still moves 8 MiB by READ. */
	assert_int_equal(es.count, 1);
	call_ok(ss, 1000, env.srv[0]);
	assert_int_equal(exec_count[1000], 1);
	assert_int_equal(bad_payloads, 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], ss), 0);
	PMR_TEST_POLL_UNTIL(&env, pools_full(env.cli[0]) &&
			pools_full(env.srv[0]));
	pmr_test_env_down(&env);	/* asserts every pool full */
}

static void
on_ping(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	int *n = tag;

	(void)w;
	assert_int_equal(resp->status, PMR_OK);
	pmr_msgbuf_free(resp->req);
	(*n)++;
}

/* n small requests from env.cli[0] to env.srv[0], one at a time. */
static void
pings(struct pmr_test_sess_ev *e, int n)
{
	struct pmr_msgbuf *req;
	int s, i, done = 0;

	s = pmr_test_connect(&env, env.cli[0], 0, e);
	assert_int_equal(e->ev, PMR_SESSION_EV_CONNECTED);
	for (i = 0; i < n; i++) {
		req = pmr_worker_msgbuf_alloc(env.cli[0], 8);
		assert_non_null(req);
		assert_int_equal(pmr_request(env.cli[0], s, T_PING, req,
				on_ping, &done), 0);
		PMR_TEST_POLL_UNTIL(&env, done == i + 1);
	}
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

static void
test_rdv_kill_offerer_server(void **state)
{
	struct pmr_worker_stats s0, s1;
	struct pmr_worker *srv;
	uint32_t r0;
	struct pmr_test_sess_ev e;
	uint64_t deadline, t0;
	int s;

	(void)state;
	up();
	serve_uri();
	fprintf(stderr, "rdv_kill: server up at %s\n",
		pmr_nexus_uri(env.nx));
	PMR_TEST_POLL_UNTIL(&env, exists(".armed"));
	/* The client's first request went by READ and ran. */
	assert_int_equal(exec_count[0], 1);
	assert_int_equal(stats(env.srv[0]).rdv_reads, 1);
	/*
	 * Send more from the server worker (answers to a client of this
	 * process), so that the driver has let go of its answer to the
	 * dead client's first request: the slot that request used then
	 * keeps that buffer for its next request (srv_slot_recycle()),
	 * which is the one whose READ will fail.
	 */
	pings(&e, 128);

	/* Read nothing more until the client is dead. */
	srv = env.srv[0];
	env.srv[0] = NULL;
	put_file(".frozen", "");
	deadline = pmr_test_now_ns() + PMR_TEST_WAIT_NS;
	while (!exists(".killed")) {
		pmr_test_env_poll(&env);
		usleep(1000);
		assert_true(pmr_test_now_ns() < deadline);
	}
	env.srv[0] = srv;
	s0 = stats(srv);
	r0 = srv_resets;
	t0 = pmr_test_now_ns();
	/*
	 * Its descriptor is taken and its READ fails; or, if the worker
	 * learns first that the nexus reset the session at the peer timeout
	 * (the script waits for the client to be reaped, which takes rxe
	 * longer), the descriptor is dropped unread.
	 */
	PMR_TEST_POLL_UNTIL(&env, stats(srv).rdv_read_errors >
			s0.rdv_read_errors || (srv_resets > r0 &&
			stats(srv).rdv_reads == s0.rdv_reads));
	s1 = stats(srv);
	fprintf(stderr, "rdv_kill: %s %llu ms after the kill\n",
		s1.rdv_reads > s0.rdv_reads ? "READ failed" :
		"session reset, descriptor unread",
		(unsigned long long)((pmr_test_now_ns() - t0) / 1000000));
	assert_true(s1.rdv_reads - s0.rdv_reads <= 1);
	assert_int_equal(s1.rdv_read_errors - s0.rdv_read_errors,
			s1.rdv_reads - s0.rdv_reads);
	assert_int_equal(s1.rdv_read_bytes, s0.rdv_read_bytes);
	/* The session with the dead client goes, either way. */
	PMR_TEST_POLL_UNTIL(&env, srv_resets > r0);
	/*
	 * The buffer it read into is back, and the rest (the slot's
	 * response buffer, kept from the first request); the handler never
	 * ran for it.
	 */
	wait_pools_full(srv);
	fprintf(stderr, "rdv_kill: pools full %llu ms after the kill\n",
		(unsigned long long)((pmr_test_now_ns() - t0) / 1000000));
	assert_int_equal(exec_count[1], 0);
	assert_int_equal(stats(srv).reqs_handled, s0.reqs_handled);

	/* And it serves a live client, by READ. */
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	call_ok(s, 2, srv);
	assert_int_equal(exec_count[2], 1);
	assert_int_equal(exec_count[1], 0);
	assert_int_equal(bad_payloads, 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
	wait_pools_full(env.cli[0]);
	wait_pools_full(srv);
	fprintf(stderr, "rdv_kill: a live client served, %llu ms after the "
		"kill\n",
		(unsigned long long)((pmr_test_now_ns() - t0) / 1000000));
	pmr_test_env_down(&env);	/* asserts every pool full */
	fprintf(stderr, "rdv_kill: down %llu ms after the kill\n",
		(unsigned long long)((pmr_test_now_ns() - t0) / 1000000));
}

static void
test_rdv_kill_offerer_client(void **state)
{
	struct pmr_worker_stats c0;
	struct pmr_test_sess_ev er;
	uint64_t deadline;
	struct call c;
	int sr;

	(void)state;
	up();
	sr = connect_remote(&er);
	/* Both ends' QPs up, the path proven. */
	call_ok(sr, 0, NULL);
	put_file(".armed", "");
	PMR_TEST_POLL_UNTIL(&env, exists(".frozen"));
	c0 = stats(env.cli[0]);
	c = (struct call){ .id = 1, .session = sr };
	call_start(env.cli[0], &c);
	PMR_TEST_POLL_UNTIL(&env, stats(env.cli[0]).rdv_descs_sent >
			c0.rdv_descs_sent);
	put_file(".ready", "");
	fprintf(stderr, "rdv_kill: request offered\n");
	/* Offered until killed; sending its descriptor again meanwhile. */
	deadline = pmr_test_now_ns() + PMR_TEST_WAIT_NS;
	while (pmr_test_now_ns() < deadline) {
		pmr_test_env_poll(&env);
		assert_int_equal(c.runs, 0);
	}
	fail_msg("not killed");
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rdv_kill_reader_server),
		cmocka_unit_test(test_rdv_kill_reader_client),
		cmocka_unit_test(test_rdv_kill_offerer_server),
		cmocka_unit_test(test_rdv_kill_offerer_client),
	};

	/* The workers' default threshold: every 8 MiB message by READ. */
	unsetenv("PMR_TEST_RDV_THRESHOLD");
	/* One of the four, named: two of them make one test. */
	if (argc != 2)
		return 2;
	cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("rdv_kill", tests,
			pmr_test_eal_setup, pmr_test_eal_teardown);
}
