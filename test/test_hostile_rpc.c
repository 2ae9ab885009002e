/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The worker's request and response state machines against a hostile
 * peer: a client (or server) that opened a real session and sends crafted
 * packets with its valid token, from the session's real source (the
 * worker's own queue). Each group of cases is one defect of issue 10, run
 * as its own meson test through a filter given on the command line.
 */

#include "pmr_test_rpc.h"

#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "rpc_private.h"

#define T_ECHO 1	/* the request back */
#define T_HOLD 2	/* kept by the test, answered later */
#define T_SIZE 3	/* a response of the size in the first 4 bytes */
#define T_NONE 9	/* no handler */

#define KIB 1024u
#define MIB (1u << 20)

static struct pmr_test_env env;
static struct pmr_req_ref held[64];
static unsigned int nb_held;
static uint8_t payload[64 * KIB];

static void
echo_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_worker *w = pmr_req_worker(req);
	uint32_t len = pmr_req_len(req);
	struct pmr_msgbuf *resp;

	(void)arg;
	resp = pmr_worker_msgbuf_alloc(w, len);
	assert_non_null(resp);
	memcpy(resp->data, pmr_req_data(req), len);
	assert_int_equal(pmr_respond(req, resp), 0);
}

static void
hold_handler(struct pmr_req_ref req, void *arg)
{
	(void)arg;
	assert_true(nb_held < RTE_DIM(held));
	held[nb_held++] = req;
}

static void
size_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_msgbuf *resp;
	uint32_t size;

	(void)arg;
	memcpy(&size, pmr_req_data(req), sizeof(size));
	resp = pmr_worker_msgbuf_alloc(pmr_req_worker(req), size);
	assert_non_null(resp);
	memset(resp->data, 0x5a, size);
	assert_int_equal(pmr_respond(req, resp), 0);
}

static void
handlers(struct pmr_nexus *nx)
{
	nb_held = 0;
	assert_int_equal(pmr_nexus_register_handler(nx, T_ECHO, echo_handler,
			NULL), 0);
	assert_int_equal(pmr_nexus_register_handler(nx, T_HOLD, hold_handler,
			NULL), 0);
	assert_int_equal(pmr_nexus_register_handler(nx, T_SIZE, size_handler,
			NULL), 0);
}

/* Answer every request the test holds with an empty response. */
static void
answer_held(void)
{
	unsigned int i;

	for (i = 0; i < nb_held; i++) {
		struct pmr_msgbuf *resp = pmr_req_resp_buf(held[i]);

		assert_non_null(resp);
		assert_int_equal(pmr_respond(held[i], resp), 0);
	}
	nb_held = 0;
}

/* One RPC of a test, and what its continuation saw. */
struct call {
	int runs;
	enum pmr_status status;
	uint32_t len;
};

static void
on_call(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct call *c = tag;

	(void)w;
	c->runs++;
	c->status = resp->status;
	c->len = resp->len;
	pmr_msgbuf_free(resp->req);
}

static void
call_start(struct pmr_worker *cli, int s, uint8_t type, uint32_t len,
		struct call *c)
{
	struct pmr_msgbuf *req = pmr_worker_msgbuf_alloc(cli, len);

	assert_non_null(req);
	memset(req->data, 0x33, len);
	memset(c, 0, sizeof(*c));
	assert_int_equal(pmr_request(cli, s, type, req, on_call, c), 0);
}

/* Run an RPC to its end; its status. */
static enum pmr_status
call_run(struct pmr_worker *cli, int s, uint8_t type, uint32_t len)
{
	struct call c;

	call_start(cli, s, type, len, &c);
	PMR_TEST_POLL_UNTIL(&env, c.runs == 1);
	return c.status;
}

static void
poll_n(unsigned int n)
{
	while (n-- > 0)
		pmr_test_env_poll(&env);
}

/*
 * Send one crafted packet on session sn of w, as w's side of the session
 * would: to its peer, with its token and the peer's session number, from
 * w's own queue.
 */
static void
craft_tx(struct pmr_worker *w, int sn, uint8_t pkt_type, uint8_t req_type,
		uint16_t pkt_num, uint32_t msg_size, uint64_t req_num,
		uint8_t status, uint32_t len)
{
	const struct rpc_session *s = &w->sessions[sn];
	uint8_t hdr[PMR_PKTHDR_LEN];
	struct pmr_tx_pkt p = {
		.peer = s->peer,
		.mb = NULL,
		.data = payload,
		.len = len,
		.hdr = hdr,
		.hdr_len = PMR_PKTHDR_LEN,
	};

	assert_true(len <= sizeof(payload));
	pmr_pkthdr_write(hdr, pkt_type, req_type, s->remote_session, pkt_num,
			msg_size, s->token, req_num, status);
	PMR_TEST_POLL_UNTIL(&env, pmr_transport_tx_burst(w->q, &p, 1) == 1);
}

/* The server side of client session cs (of env.cli[0], on env.srv[0]). */
static int
srv_session_of(int cs)
{
	const struct pmr_worker *srv = env.srv[0];
	uint32_t i;

	for (i = 0; i < srv->max_sessions; i++)
		if (srv->sessions[i].state == PMR_SESSION_CONNECTED &&
		    !srv->sessions[i].client &&
		    srv->sessions[i].remote_session == (uint16_t)cs)
			return (int)i;
	fail_msg("no server session for client session %d", cs);
	return -1;
}

static unsigned int
srv_sessions(void)
{
	const struct pmr_worker *srv = env.srv[0];
	unsigned int i, n = 0;

	for (i = 0; i < srv->max_sessions; i++)
		n += srv->sessions[i].state != PMR_SESSION_FREE &&
			!srv->sessions[i].client;
	return n;
}

static struct pmr_worker_stats
stats(const struct pmr_worker *w)
{
	struct pmr_worker_stats st;

	pmr_worker_stats_get(w, &st);
	return st;
}

/* A drop counter by its name. */
static uint64_t
drops(const struct pmr_worker *w, const char *name)
{
	struct pmr_worker_stats st = stats(w);
	const char *n;
	unsigned int i;

	for (i = 0; i < RTE_DIM(st.drops); i++) {
		n = pmr_worker_drop_name(i);
		if (n != NULL && strcmp(n, name) == 0)
			return st.drops[i];
	}
	fail_msg("no drop reason %s", name);
	return 0;
}

static unsigned int
in_use(const struct pmr_worker *w, unsigned int cls)
{
	return pmr_msgbuf_pool_in_use(pmr_worker_pool(w, cls));
}

static int
teardown(void **state)
{
	(void)state;
	answer_held();
	poll_n(100);
	pmr_test_env_down(&env);
	return 0;
}

static int
setup_default(void **state)
{
	(void)state;
	pmr_test_env_up(&env, 1, handlers, NULL, NULL);
	return 0;
}

/*
 * Defect 1: after a status-only response, a request for the packet past
 * its last (an "ack") must not push a NULL response into the worker's
 * free queue (a crash of the server worker).
 */
static void
defect1_ack_of_status_response(void **state)
{
	struct pmr_test_sess_ev e;
	uint64_t stale;
	int s;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	/* Request 0 (slot 0): no handler, a status-only response. */
	assert_int_equal(call_run(env.cli[0], s, T_NONE, 8),
			PMR_E_REMOTE_ERROR);
	stale = drops(env.srv[0], "stale");
	craft_tx(env.cli[0], s, PMR_PKT_RFR, T_NONE, 1, 0, 0, 0, 0);
	craft_tx(env.cli[0], s, PMR_PKT_RFR, T_NONE, 1, 0, 0, 0, 0);
	poll_n(200);
	/* The server lives on, and counted what it dropped. */
	assert_int_equal(call_run(env.cli[0], s, T_ECHO, 100), PMR_OK);
	assert_true(drops(env.srv[0], "stale") >= stale + 2);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}


/*
 * Defect 8: a server refusing a multi-packet request at its first packet
 * (no buffer) answers with a status the client must take at once: NOMEM,
 * not a timeout after retransmitting.
 */
static int
setup_defect8(void **state)
{
	struct pmr_worker_conf srv = { .nb_msgbufs = 1024,
		.nb_mid_msgbufs = 4 };
	struct pmr_worker_conf cli = { .nb_msgbufs = 1024,
		.rto_us = 3000000, .req_timeout_ms = 8000 };

	(void)state;
	pmr_test_env_up(&env, 1, handlers, &srv, &cli);
	return 0;
}

static struct pmr_msgbuf *mids[16];
static unsigned int nb_mids;

static int
teardown_defect8(void **state)
{
	while (nb_mids > 0)
		pmr_msgbuf_free(mids[--nb_mids]);
	return teardown(state);
}

static void
defect8_nomem_reaches_client(void **state)
{
	struct pmr_test_sess_ev e;
	int s;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	/* Every 64 KiB buffer of the server is out. */
	while ((mids[nb_mids] = pmr_worker_msgbuf_alloc(env.srv[0],
			64 * KIB)) != NULL)
		assert_true(++nb_mids < RTE_DIM(mids));
	assert_true(nb_mids > 0);
	assert_int_equal(call_run(env.cli[0], s, T_ECHO, 20 * KIB),
			PMR_E_NOMEM);
	assert_int_equal(stats(env.cli[0]).retransmissions, 0);
	assert_int_equal(stats(env.cli[0]).timeouts, 0);
	while (nb_mids > 0)
		pmr_msgbuf_free(mids[--nb_mids]);
	/* Buffers back: the same request goes through. */
	assert_int_equal(call_run(env.cli[0], s, T_ECHO, 20 * KIB), PMR_OK);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/*
 * Defect 13: the client validates a response's first packet before it
 * stores anything from it; one packet-count limit on both sides.
 */
static int
setup_defect13(void **state)
{
	struct pmr_worker_conf cli = { .nb_msgbufs = 1024,
		.max_msg_size = MIB, .rto_us = 3000000,
		.req_timeout_ms = 20000 };

	(void)state;
	pmr_test_env_up(&env, 1, handlers, NULL, &cli);
	return 0;
}

/* A response over the client's max_msg_size: refused with a status. */
static void
defect13_resp_over_max(void **state)
{
	struct pmr_test_sess_ev e;
	uint32_t plen = pmr_worker_pkt_size(env.srv[0]);
	struct call c;
	int s, ss;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	ss = srv_session_of(s);
	call_start(env.cli[0], s, T_HOLD, 16, &c);
	PMR_TEST_POLL_UNTIL(&env, nb_held == 1);
	/* Request 0 of the session: its response would be 2 MiB. */
	craft_tx(env.srv[0], ss, PMR_PKT_RESP, T_HOLD, 0, 2 * MIB, 0, 0,
			plen);
	PMR_TEST_POLL_UNTIL(&env, c.runs == 1);
	assert_int_equal(c.status, PMR_E_MSGSIZE);
	assert_int_equal(in_use(env.cli[0], 2), 0);
	answer_held();
	poll_n(100);
	assert_int_equal(call_run(env.cli[0], s, T_ECHO, 100), PMR_OK);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/*
 * A first response packet claiming more packets than the limit (tiny
 * packets): dropped, and nothing of it kept: the client's retransmission
 * is its request alone, no requests for the claimed response packets;
 * the real response then completes the request.
 */
static void
defect13_resp_bad_first_pkt(void **state)
{
	struct pmr_test_sess_ev e;
	uint64_t tx, bad;
	struct call c;
	int s, ss;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	ss = srv_session_of(s);
	/* A request of 3 packets, in the handler's hands. */
	call_start(env.cli[0], s, T_HOLD, 3000, &c);
	PMR_TEST_POLL_UNTIL(&env, nb_held == 1);
	poll_n(100);
	tx = stats(env.cli[0]).tx_pkts;
	bad = drops(env.cli[0], "bad_packet");
	/* 1 MiB (the client's max) in 8-byte packets: 131,072 of them. */
	craft_tx(env.srv[0], ss, PMR_PKT_RESP, T_HOLD, 0, MIB, 0, 0, 8);
	PMR_TEST_POLL_UNTIL(&env, drops(env.cli[0], "bad_packet") > bad);
	PMR_TEST_POLL_UNTIL(&env, stats(env.cli[0]).retransmissions > 0);
	poll_n(200);
	assert_int_equal(stats(env.cli[0]).tx_pkts - tx,
			stats(env.cli[0]).retransmissions);
	assert_int_equal(c.runs, 0);
	answer_held();
	PMR_TEST_POLL_UNTIL(&env, c.runs == 1);
	assert_int_equal(c.status, PMR_OK);
	assert_int_equal(c.len, 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/*
 * The server: a request of 65,536 packets (one over the limit) is
 * dropped at its first packet, no buffer taken.
 */
static int
setup_defect13_srv(void **state)
{
	struct pmr_worker_conf srv = { .nb_msgbufs = 1024,
		.max_msg_size = 32 * MIB, .nb_large_msgbufs = 1 };

	(void)state;
	pmr_test_env_up(&env, 1, handlers, &srv, NULL);
	return 0;
}

static void
defect13_srv_pkts_limit(void **state)
{
	struct pmr_test_sess_ev e;
	uint64_t bad;
	int s;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	bad = drops(env.srv[0], "bad_packet");
	craft_tx(env.cli[0], s, PMR_PKT_REQ, T_ECHO, 0, 65536u * 512, 0, 0,
			512);
	poll_n(300);
	assert_true(drops(env.srv[0], "bad_packet") > bad);
	assert_int_equal(in_use(env.srv[0], 2), 0);
	assert_int_equal(stats(env.srv[0]).reqs_handled, 0);
	/* The slot is not taken: its request goes through. */
	assert_int_equal(call_run(env.cli[0], s, T_ECHO, 100), PMR_OK);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/*
 * Defect 2: a forged request number (a copy of a real request with bit 48
 * of its number flipped) must not take the slot over; a slot whose
 * request was lost keeps working; 8 timeouts in a row on one slot reset
 * the session.
 */
static void
defect2_forged_req_num(void **state)
{
	struct pmr_test_sess_ev e;
	uint64_t handled;
	int s, i;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	assert_int_equal(call_run(env.cli[0], s, T_ECHO, 100), PMR_OK);
	handled = stats(env.srv[0]).reqs_handled;
	/* Slot 0's next number is 8 (window 8): forge 8 + 2^48. */
	craft_tx(env.cli[0], s, PMR_PKT_REQ, T_ECHO, 0, 100,
			8 | UINT64_C(1) << 48, 0, 100);
	poll_n(200);
	for (i = 0; i < 3; i++)
		assert_int_equal(call_run(env.cli[0], s, T_ECHO, 100), PMR_OK);
	assert_int_equal(stats(env.srv[0]).reqs_handled, handled + 3);
	assert_true(drops(env.srv[0], "bad_req_num") >= 1);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

static int
setup_defect2(void **state)
{
	struct pmr_worker_conf cli = { .nb_msgbufs = 1024,
		.req_timeout_ms = 200 };

	(void)state;
	pmr_test_env_up(&env, 1, handlers, NULL, &cli);
	return 0;
}

/* Poll the client only; whatever reaches the server is lost. */
static void
poll_losing(void)
{
	struct pmr_rx_pkt rx[PMR_BURST_MAX];
	uint16_t nb;

	pmr_worker_poll(env.cli[0]);
	nb = pmr_transport_rx_burst(env.srv[0]->q, rx, PMR_BURST_MAX);
	pmr_transport_rx_release(env.srv[0]->q, rx, nb);
}

/* A request of slot 0 lost entirely, until it times out. */
static void
lose_one(int s, struct call *c)
{
	uint64_t deadline = pmr_test_now_ns() + PMR_TEST_WAIT_NS;

	call_start(env.cli[0], s, T_ECHO, 100, c);
	while (c->runs == 0) {
		poll_losing();
		assert_true(pmr_test_now_ns() < deadline);
	}
}

static void
defect2_lost_requests(void **state)
{
	struct pmr_test_sess_ev e;
	struct call c;
	int s, i;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	for (i = 0; i < 3; i++) {
		lose_one(s, &c);
		assert_int_equal(c.status, PMR_E_TIMEOUT);
	}
	/* Numbers 0, 8, 16 of slot 0 never reached the server: 24 does. */
	assert_int_equal(call_run(env.cli[0], s, T_ECHO, 100), PMR_OK);
	for (i = 0; i < 7; i++) {
		lose_one(s, &c);
		assert_int_equal(c.status, PMR_E_TIMEOUT);
	}
	/* A success in between cleared the slot's count: still up. */
	assert_int_equal(e.count, 1);
	assert_int_equal(call_run(env.cli[0], s, T_ECHO, 100), PMR_OK);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

static void
defect2_timeouts_reset_session(void **state)
{
	struct pmr_test_sess_ev e;
	struct call c, other;
	int s, i;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	assert_int_equal(srv_sessions(), 1);
	for (i = 0; i < 7; i++) {
		lose_one(s, &c);
		assert_int_equal(c.status, PMR_E_TIMEOUT);
		assert_int_equal(e.count, 1);
	}
	/* The 8th in a row on slot 0, another request in slot 1. */
	call_start(env.cli[0], s, T_ECHO, 100, &c);
	call_start(env.cli[0], s, T_HOLD, 100, &other);
	while (c.runs == 0)
		poll_losing();
	assert_int_equal(c.status, PMR_E_TIMEOUT);
	assert_int_equal(e.count, 2);
	assert_int_equal(e.ev, PMR_SESSION_EV_RESET);
	assert_int_equal(e.err, -ETIMEDOUT);
	assert_int_equal(other.runs, 1);
	assert_int_equal(other.status, PMR_E_SESSION_RESET);
	assert_int_equal(pmr_session_state(env.cli[0], s), PMR_SESSION_RESET);
	assert_int_equal(stats(env.cli[0]).timeout_resets, 1);
	/* The server was told: its session goes. */
	PMR_TEST_POLL_UNTIL(&env, srv_sessions() == 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/*
 * Defect 7: bounded server state. A peer pinning large buffers with first
 * packets claiming 8 MiB, or never fetching its responses, or sending a
 * tiny first packet for a large message; a victim on another session
 * still gets its 1 MiB RPC through, and the state is reclaimed.
 */
static int
setup_defect7(void **state)
{
	/*
	 * The attacker and the victim are sessions of one client, one
	 * source: its share of the server is all of it here, so that the
	 * per-session bounds alone are tested (test_hostile_share.c tests
	 * the per-source ones).
	 */
	struct pmr_worker_conf srv = { .nb_msgbufs = 1024,
		.req_timeout_ms = 1000, .src_share_pct = 100 };
	struct pmr_worker_conf cli = { .nb_msgbufs = 1024,
		.req_timeout_ms = 20000 };

	(void)state;
	pmr_test_env_up(&env, 1, handlers, &srv, &cli);
	return 0;
}

static void
defect7_pinned_partials(void **state)
{
	uint32_t plen = pmr_worker_pkt_size(env.cli[0]);
	struct pmr_test_sess_ev e;
	int a, v, i;

	(void)state;
	a = pmr_test_connect(&env, env.cli[0], 0, &e);
	v = pmr_test_connect(&env, env.cli[0], 0, &e);
	/* Four first packets claiming 8 MiB each, on slots 0..3. */
	for (i = 0; i < 4; i++)
		craft_tx(env.cli[0], a, PMR_PKT_REQ, T_ECHO, 0, 8 * MIB,
				(uint64_t)i, 0, plen);
	poll_n(200);
	/* The session's share of large buffers is taken: refused. */
	assert_int_equal(stats(env.srv[0]).large_refused, 2);
	/* The victim's 1 MiB RPC goes through meanwhile. */
	assert_int_equal(call_run(env.cli[0], v, T_ECHO, MIB), PMR_OK);
	/* The partial requests are reclaimed after the timeout. */
	PMR_TEST_POLL_UNTIL(&env, in_use(env.srv[0], 2) == 0);
	assert_int_equal(stats(env.srv[0]).srv_reclaimed, 2);
	assert_int_equal(pmr_session_destroy(env.cli[0], a), 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], v), 0);
}

static void
defect7_unfetched_response(void **state)
{
	uint32_t size = 200 * KIB;
	struct pmr_test_sess_ev e;
	uint64_t handled;
	int a;

	(void)state;
	a = pmr_test_connect(&env, env.cli[0], 0, &e);
	/* A 200 KiB response its asker never fetches nor acks. */
	memcpy(payload, &size, sizeof(size));
	craft_tx(env.cli[0], a, PMR_PKT_REQ, T_SIZE, 0, 4, 0, 0, 4);
	PMR_TEST_POLL_UNTIL(&env, stats(env.srv[0]).reqs_handled == 1);
	handled = stats(env.srv[0]).reqs_handled;
	PMR_TEST_POLL_UNTIL(&env, in_use(env.srv[0], 2) == 0);
	assert_int_equal(stats(env.srv[0]).resps_expired, 1);
	/* A late copy of the request is not run again. */
	craft_tx(env.cli[0], a, PMR_PKT_REQ, T_SIZE, 0, 4, 0, 0, 4);
	PMR_TEST_POLL_UNTIL(&env, drops(env.srv[0], "expired") == 1);
	poll_n(200);
	assert_int_equal(stats(env.srv[0]).reqs_handled, handled);
	assert_int_equal(in_use(env.srv[0], 2), 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], a), 0);
}

/*
 * A peer that trickles packets (the next request packet, a request for
 * the same response packet again) keeps nothing beyond the timeout: the
 * state lives srv_state_timeout_ms from its start, however busy its peer.
 */
static void
defect7_trickle_no_renewal(void **state)
{
	uint32_t plen = pmr_worker_pkt_size(env.cli[0]), size = 200 * KIB;
	uint64_t deadline = pmr_test_now_ns() + PMR_TEST_WAIT_NS;
	uint64_t next = 0;
	struct pmr_test_sess_ev e;
	uint16_t k = 1;
	int a;

	(void)state;
	a = pmr_test_connect(&env, env.cli[0], 0, &e);
	/* Slot 0: an 8 MiB request, one more packet every 200 ms. */
	craft_tx(env.cli[0], a, PMR_PKT_REQ, T_ECHO, 0, 8 * MIB, 0, 0, plen);
	/* Slot 1: a 200 KiB response, its packet 1 asked for again. */
	memcpy(payload, &size, sizeof(size));
	craft_tx(env.cli[0], a, PMR_PKT_REQ, T_SIZE, 0, 4, 1, 0, 4);
	while (stats(env.srv[0]).srv_reclaimed +
	       stats(env.srv[0]).resps_expired < 2) {
		pmr_test_env_poll(&env);
		if (pmr_test_now_ns() >= next) {
			craft_tx(env.cli[0], a, PMR_PKT_REQ, T_ECHO, k++,
					8 * MIB, 0, 0, plen);
			craft_tx(env.cli[0], a, PMR_PKT_RFR, T_SIZE, 1,
					size, 1, 0, 0);
			next = pmr_test_now_ns() + 200ull * 1000 * 1000;
		}
		assert_true(pmr_test_now_ns() < deadline);
	}
	PMR_TEST_POLL_UNTIL(&env, in_use(env.srv[0], 2) == 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], a), 0);
}

static void
defect7_tiny_first_pkt(void **state)
{
	struct pmr_test_sess_ev e;
	uint64_t bad;
	int a;

	(void)state;
	a = pmr_test_connect(&env, env.cli[0], 0, &e);
	bad = drops(env.srv[0], "bad_packet");
	/* 16 bytes claiming a 64 KiB request. */
	craft_tx(env.cli[0], a, PMR_PKT_REQ, T_ECHO, 0, 64 * KIB, 0, 0, 16);
	poll_n(300);
	assert_true(drops(env.srv[0], "bad_packet") > bad);
	assert_int_equal(in_use(env.srv[0], 1), 0);
	assert_int_equal(call_run(env.cli[0], a, T_ECHO, 100), PMR_OK);
	assert_int_equal(pmr_session_destroy(env.cli[0], a), 0);
}

/*
 * A worker whose packets could not carry the first packet of a
 * multi-packet message (RPC_FIRST_PKT_MIN) is refused at creation rather
 * than having its messages dropped by every peer.
 */
static void
defect7_small_mtu_refused(void **state)
{
	struct pmr_worker_conf conf = { .worker_id = 40, .nb_msgbufs = 256 };
	uint16_t a, b;
	char args[96];

	(void)state;
	assert_int_equal(pmr_test_ring_pair("hostile_mtu", &a, &b), 0);
	snprintf(args, sizeof(args), "port=%u,ip=10.9.0.1,mtu=400", a);
	conf.devargs = args;
	assert_null(pmr_worker_create(env.nx, &conf));
	assert_int_equal(rte_errno, EINVAL);
	pmr_test_ring_pair_free("hostile_mtu", a, b);
}

/*
 * Defect 5: a session may hold at most its reserved credits of the
 * client's unanswered packets (here requests its handler keeps).
 */
static int
setup_defect5(void **state)
{
	struct pmr_worker_conf cli = { .nb_msgbufs = 1024,
		.session_credits = 4 };

	(void)state;
	pmr_test_env_up(&env, 1, handlers, NULL, &cli);
	return 0;
}

static void
defect5_credits_enforced(void **state)
{
	struct pmr_test_sess_ev e;
	int s, i;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	/* Eight held requests on slots 0..7: four credits. */
	for (i = 0; i < 8; i++)
		craft_tx(env.cli[0], s, PMR_PKT_REQ, T_HOLD, 0, 64,
				(uint64_t)i, 0, 64);
	poll_n(300);
	assert_int_equal(nb_held, 4);
	assert_int_equal(stats(env.srv[0]).reqs_held, 4);
	assert_int_equal(drops(env.srv[0], "over_credits"), 4);
	answer_held();
	poll_n(100);
	assert_int_equal(stats(env.srv[0]).reqs_held, 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/*
 * A correct client is never hurt: requests that timed out while the
 * handler holds them gave their credits back, so the client sends more
 * than the server takes; those are dropped and served once retransmitted.
 */
static int
setup_defect5_client(void **state)
{
	struct pmr_worker_conf cli = { .nb_msgbufs = 1024,
		.session_credits = 2, .req_timeout_ms = 2000 };

	(void)state;
	pmr_test_env_up(&env, 1, handlers, NULL, &cli);
	return 0;
}

static void
defect5_correct_client_served(void **state)
{
	struct pmr_test_sess_ev e;
	struct call a[2], c[2], d[2];
	int s, i;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	/* Slots 0 and 1 answered, 2 and 3 held by the handler. */
	for (i = 0; i < 2; i++)
		call_start(env.cli[0], s, T_ECHO, 64, &a[i]);
	for (i = 0; i < 2; i++)
		call_start(env.cli[0], s, T_HOLD, 64, &c[i]);
	PMR_TEST_POLL_UNTIL(&env, c[0].runs + c[1].runs == 2);
	assert_int_equal(nb_held, 2);
	for (i = 0; i < 2; i++) {
		assert_int_equal(a[i].status, PMR_OK);
		assert_int_equal(c[i].status, PMR_E_TIMEOUT);
	}
	/* Their credits are back: two more requests, in slots 0 and 1. */
	for (i = 0; i < 2; i++)
		call_start(env.cli[0], s, T_ECHO, 64, &d[i]);
	PMR_TEST_POLL_UNTIL(&env, drops(env.srv[0], "over_credits") > 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(d[i].runs, 0);
	/* Served once the server answered the held ones. */
	answer_held();
	PMR_TEST_POLL_UNTIL(&env, d[0].runs + d[1].runs == 2);
	for (i = 0; i < 2; i++)
		assert_int_equal(d[i].status, PMR_OK);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/*
 * Descriptors (issue 17, doc/rendezvous.md "Wire"): a REQ_DESC or
 * RESP_DESC names a message to pull by RDMA READ over the session's RC
 * QP. An eth queue has neither RC nor READ, so its worker reads nothing
 * (no rendezvous state at all): a descriptor, however it is sized, is a
 * packet no correct peer sends it, dropped as bad_packet (never
 * rdv_no_qp: there is no QP to ask for), reading nothing, allocating
 * nothing, taking no slot or credit, running no handler, and leaving the
 * session working.
 */

/* The pools' msgbufs in use, of each class. */
struct pools_use {
	unsigned int n[3];
};

static struct pools_use
pools_use(const struct pmr_worker *w)
{
	struct pools_use u;
	unsigned int i;

	for (i = 0; i < RTE_DIM(u.n); i++)
		u.n[i] = pmr_worker_pool(w, i) != NULL ? in_use(w, i) : 0;
	return u;
}

static void
assert_pools_use(const struct pmr_worker *w, const struct pools_use *u)
{
	struct pools_use now = pools_use(w);
	unsigned int i;

	for (i = 0; i < RTE_DIM(u->n); i++)
		assert_int_equal(now.n[i], u->n[i]);
}

/* The rendezvous counters of w, all 0: nothing read, offered, sent. */
static void
assert_no_rdv(const struct pmr_worker *w)
{
	struct pmr_worker_stats st = stats(w);

	assert_int_equal(st.rdv_descs_sent, 0);
	assert_int_equal(st.rdv_descs_received, 0);
	assert_int_equal(st.rdv_reads, 0);
	assert_int_equal(st.rdv_read_bytes, 0);
	assert_int_equal(st.rdv_read_errors, 0);
	assert_int_equal(st.rdv_offers, 0);
	assert_int_equal(st.rdv_reclaimed, 0);
}

/* A descriptor's payload in payload[]: a message at addr, key rkey. */
static uint32_t
desc_payload(uint64_t addr, uint32_t rkey)
{
	const struct pmr_pkt_desc d = { .addr = addr, .rkey = rkey };

	pmr_pkt_desc_encode(payload, &d);
	return PMR_PKT_DESC_LEN;
}

/*
 * Both workers idle, every session closed: every msgbuf of every pool
 * back (the server freed what its sessions kept).
 */
static void
assert_pools_full(void)
{
	const struct pools_use zero = { { 0 } };

	PMR_TEST_POLL_UNTIL(&env, srv_sessions() == 0);
	poll_n(100);
	assert_pools_use(env.srv[0], &zero);
	assert_pools_use(env.cli[0], &zero);
}

/*
 * REQ_DESC at a server session claiming sizes a READ would carry (one
 * byte over a packet up to the largest message), more (the largest + 1,
 * 4 GiB - 1), and one packet's or less: each dropped at once as a bad
 * packet, nothing allocated; the slots they named then serve real
 * requests.
 */
static void
desc_req_at_server_dropped(void **state)
{
	const uint32_t plen = pmr_worker_pkt_size(env.srv[0]);
	const uint32_t max = pmr_worker_max_msg_size(env.srv[0]);
	const uint32_t size[] = { plen + 1, 4 * plen, MIB, max, max + 1,
		UINT32_MAX, 1, 16, plen };
	struct pmr_worker_stats st0, st;
	struct pmr_test_sess_ev e;
	struct pools_use u;
	uint64_t no_qp, bad;
	unsigned int i, window;
	uint64_t num;
	int s;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	assert_int_equal(call_run(env.cli[0], s, T_ECHO, 100), PMR_OK);
	poll_n(100);
	window = env.cli[0]->window;
	st0 = stats(env.srv[0]);
	u = pools_use(env.srv[0]);
	no_qp = drops(env.srv[0], "rdv_no_qp");
	bad = drops(env.srv[0], "bad_packet");
	/*
	 * Each slot's next number: slot 0 answered request 0, so window;
	 * the others their index. A dropped descriptor leaves it so.
	 */
	for (i = 0; i < RTE_DIM(size); i++) {
		num = i % window == 0 ? window : i % window;
		craft_tx(env.cli[0], s, PMR_PKT_REQ_DESC, T_ECHO, 0, size[i],
				num, 0, desc_payload(
					UINT64_C(0x7f0000001000) + i * 4096,
					0x1234 + i));
	}
	PMR_TEST_POLL_UNTIL(&env, stats(env.srv[0]).rx_drops ==
			st0.rx_drops + RTE_DIM(size));
	poll_n(100);
	st = stats(env.srv[0]);
	assert_int_equal(drops(env.srv[0], "bad_packet") - bad,
			RTE_DIM(size));
	assert_int_equal(drops(env.srv[0], "rdv_no_qp"), no_qp);
	assert_int_equal(st.reqs_handled, st0.reqs_handled);
	assert_int_equal(nb_held, 0);
	assert_int_equal(st.tx_pkts, st0.tx_pkts);
	assert_pools_use(env.srv[0], &u);
	assert_no_rdv(env.srv[0]);
	assert_no_rdv(env.cli[0]);
	/* No slot was taken: a request in each goes through. */
	for (i = 0; i < 2 * window; i++)
		assert_int_equal(call_run(env.cli[0], s, T_ECHO, 100), PMR_OK);
	assert_int_equal(stats(env.srv[0]).reqs_handled,
			st0.reqs_handled + 2 * window);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
	assert_pools_full();
}

/*
 * Copies of one descriptor, as a client's RTO would resend it, and a
 * flood over every slot (64 numbers, each of the 8 slots' next 8): each
 * dropped, none holding a credit or a slot.
 */
static void
desc_req_copies_dropped(void **state)
{
	const uint32_t plen = pmr_worker_pkt_size(env.srv[0]);
	struct pmr_worker_stats st0;
	struct pmr_test_sess_ev e;
	struct pools_use u;
	unsigned int i, n = 0;
	int s;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	st0 = stats(env.srv[0]);
	u = pools_use(env.srv[0]);
	for (i = 0; i < 8; i++, n++)
		craft_tx(env.cli[0], s, PMR_PKT_REQ_DESC, T_HOLD, 0, 8 * plen,
				0, 0, desc_payload(0x10000, 7));
	for (i = 0; i < 64; i++, n++)
		craft_tx(env.cli[0], s, PMR_PKT_REQ_DESC, T_HOLD, 0,
				(i + 2) * plen, i, 0,
				desc_payload(0x10000 + i * plen, 7));
	PMR_TEST_POLL_UNTIL(&env, stats(env.srv[0]).rx_drops ==
			st0.rx_drops + n);
	poll_n(100);
	/* Numbers i: slot i % 8, 1 to 8 windows ahead, all in range. */
	assert_int_equal(drops(env.srv[0], "bad_packet") -
			st0.drops[RPC_DROP_BAD_PKT], n);
	assert_int_equal(nb_held, 0);
	assert_int_equal(stats(env.srv[0]).reqs_handled, st0.reqs_handled);
	assert_int_equal(drops(env.srv[0], "over_credits"), 0);
	assert_int_equal(drops(env.srv[0], "slot_busy"), 0);
	assert_pools_use(env.srv[0], &u);
	assert_no_rdv(env.srv[0]);
	/* Held requests fill every credit: none was taken. */
	for (i = 0; i < env.cli[0]->credits; i++)
		craft_tx(env.cli[0], s, PMR_PKT_REQ, T_HOLD, 0, 64, i, 0, 64);
	PMR_TEST_POLL_UNTIL(&env, nb_held == env.cli[0]->credits);
	answer_held();
	poll_n(100);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
	assert_pools_full();
}

/*
 * A RESP_DESC to a client whose request the server holds: dropped,
 * whatever size it claims; the request neither completes nor fails by
 * it, and the real response completes it.
 */
static void
desc_resp_at_client_dropped(void **state)
{
	const uint32_t plen = pmr_worker_pkt_size(env.cli[0]);
	const uint32_t max = pmr_worker_max_msg_size(env.cli[0]);
	const uint32_t size[] = { plen + 1, MIB, max, max + 1, UINT32_MAX,
		1, plen };
	struct pmr_worker_stats st0;
	struct pmr_test_sess_ev e;
	struct pools_use u;
	struct call c;
	unsigned int i;
	int s, ss;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	ss = srv_session_of(s);
	call_start(env.cli[0], s, T_HOLD, 16, &c);
	PMR_TEST_POLL_UNTIL(&env, nb_held == 1);
	poll_n(100);
	st0 = stats(env.cli[0]);
	u = pools_use(env.cli[0]);
	/* Request 0 of the session, in slot 0. */
	for (i = 0; i < RTE_DIM(size); i++)
		craft_tx(env.srv[0], ss, PMR_PKT_RESP_DESC, T_HOLD, 0,
				size[i], 0, 0,
				desc_payload(0x7f0000002000, 0x99));
	PMR_TEST_POLL_UNTIL(&env, stats(env.cli[0]).rx_drops ==
			st0.rx_drops + RTE_DIM(size));
	poll_n(100);
	assert_int_equal(stats(env.cli[0]).drops[RPC_DROP_BAD_PKT] -
			st0.drops[RPC_DROP_BAD_PKT], RTE_DIM(size));
	assert_int_equal(drops(env.cli[0], "rdv_no_qp"), 0);
	/* The credit the request took is still out; nothing completed. */
	assert_int_equal(env.cli[0]->sessions[s].credits,
			env.cli[0]->credits - 1);
	assert_int_equal(c.runs, 0);
	assert_pools_use(env.cli[0], &u);
	assert_no_rdv(env.cli[0]);
	assert_no_rdv(env.srv[0]);
	answer_held();
	PMR_TEST_POLL_UNTIL(&env, c.runs == 1);
	assert_int_equal(c.status, PMR_OK);
	assert_int_equal(c.len, 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
	assert_pools_full();
}

/*
 * Descriptors the other way round (REQ_DESC to a client, RESP_DESC to a
 * server), and a REQ_DESC whose payload has a reserved byte set: the
 * header alone is valid, the packet is not.
 */
static void
desc_wrong_role_and_payload(void **state)
{
	const uint32_t plen = pmr_worker_pkt_size(env.srv[0]);
	uint64_t role_srv, role_cli, bad;
	struct pmr_test_sess_ev e;
	struct pools_use us, uc;
	int s, ss;

	(void)state;
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	ss = srv_session_of(s);
	us = pools_use(env.srv[0]);
	uc = pools_use(env.cli[0]);
	role_srv = drops(env.srv[0], "wrong_role");
	role_cli = drops(env.cli[0], "wrong_role");
	bad = drops(env.srv[0], "bad_packet");
	craft_tx(env.cli[0], s, PMR_PKT_RESP_DESC, T_ECHO, 0, 4 * plen, 0, 0,
			desc_payload(0x1000, 1));
	craft_tx(env.srv[0], ss, PMR_PKT_REQ_DESC, T_ECHO, 0, 4 * plen, 0, 0,
			desc_payload(0x1000, 1));
	desc_payload(0x1000, 1);
	payload[PMR_PKT_DESC_LEN - 1] = 0x80;
	craft_tx(env.cli[0], s, PMR_PKT_REQ_DESC, T_ECHO, 0, 4 * plen, 0, 0,
			PMR_PKT_DESC_LEN);
	PMR_TEST_POLL_UNTIL(&env, drops(env.cli[0], "wrong_role") ==
			role_cli + 1);
	PMR_TEST_POLL_UNTIL(&env, drops(env.srv[0], "bad_packet") ==
			bad + 1);
	poll_n(100);
	assert_int_equal(drops(env.srv[0], "wrong_role"), role_srv + 1);
	assert_pools_use(env.srv[0], &us);
	assert_pools_use(env.cli[0], &uc);
	assert_no_rdv(env.srv[0]);
	assert_int_equal(call_run(env.cli[0], s, T_ECHO, 100), PMR_OK);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
	assert_pools_full();
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			defect1_ack_of_status_response, setup_default,
			teardown),
		cmocka_unit_test_setup_teardown(
			defect8_nomem_reaches_client, setup_defect8,
			teardown_defect8),
		cmocka_unit_test_setup_teardown(defect13_resp_over_max,
			setup_defect13, teardown),
		cmocka_unit_test_setup_teardown(defect13_resp_bad_first_pkt,
			setup_defect13, teardown),
		cmocka_unit_test_setup_teardown(defect13_srv_pkts_limit,
			setup_defect13_srv, teardown),
		cmocka_unit_test_setup_teardown(defect2_forged_req_num,
			setup_default, teardown),
		cmocka_unit_test_setup_teardown(defect2_lost_requests,
			setup_defect2, teardown),
		cmocka_unit_test_setup_teardown(
			defect2_timeouts_reset_session, setup_defect2,
			teardown),
		cmocka_unit_test_setup_teardown(defect7_pinned_partials,
			setup_defect7, teardown),
		cmocka_unit_test_setup_teardown(defect7_unfetched_response,
			setup_defect7, teardown),
		cmocka_unit_test_setup_teardown(defect7_trickle_no_renewal,
			setup_defect7, teardown),
		cmocka_unit_test_setup_teardown(defect7_tiny_first_pkt,
			setup_defect7, teardown),
		cmocka_unit_test_setup_teardown(defect7_small_mtu_refused,
			setup_default, teardown),
		cmocka_unit_test_setup_teardown(defect5_credits_enforced,
			setup_defect5, teardown),
		cmocka_unit_test_setup_teardown(
			defect5_correct_client_served, setup_defect5_client,
			teardown),
		cmocka_unit_test_setup_teardown(desc_req_at_server_dropped,
			setup_default, teardown),
		cmocka_unit_test_setup_teardown(desc_req_copies_dropped,
			setup_default, teardown),
		cmocka_unit_test_setup_teardown(desc_resp_at_client_dropped,
			setup_default, teardown),
		cmocka_unit_test_setup_teardown(desc_wrong_role_and_payload,
			setup_default, teardown),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("hostile_rpc", tests,
			pmr_test_eal_setup, pmr_test_eal_teardown);
}
