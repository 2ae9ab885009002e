/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * What one source may take of a server worker (issue 25, "hold, part 2"):
 * a client with ordinary, authenticated sessions, from one client nexus
 * or from several on one address, against an honest client on another
 * address (pmr_test_src.h). Each group of cases is one defect, run as its
 * own meson test through a filter given on the command line, on eth (a
 * star of ring ports) and on verbs (the HCA model's hca0; rxe0 in the
 * VM). Every bound is the default's: the server worker's conf is zero
 * but for what the case says.
 */

#include "pmr_test_src.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "pmr_msgbuf.h"
#include "pmr_pkthdr.h"
#include "rpc_private.h"
#include "rpc_rc.h"
#include "rpc_tx.h"

#define T_ECHO 1	/* the request back */
#define T_HOLD 2	/* kept by the test, answered at the end */

#define KIB 1024u
#define MIB (1u << 20)

static struct pmr_test_src_env env;
static struct pmr_req_ref held[256];
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
	if (resp == NULL) {
		pmr_respond_error(req, PMR_E_NOMEM);
		return;
	}
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
handlers(struct pmr_nexus *nx)
{
	nb_held = 0;
	assert_int_equal(pmr_nexus_register_handler(nx, T_ECHO, echo_handler,
			NULL), 0);
	assert_int_equal(pmr_nexus_register_handler(nx, T_HOLD, hold_handler,
			NULL), 0);
}

/* Answer what the hold handler kept: the server's slots let go. */
static void
answer_held(void)
{
	unsigned int i;

	for (i = 0; i < nb_held; i++)
		pmr_respond_error(held[i], PMR_E_REMOTE_ERROR);
	nb_held = 0;
}

static void
poll_n(unsigned int n)
{
	while (n-- > 0)
		pmr_test_src_poll(&env);
}

struct call {
	int runs;
	enum pmr_status status;
	uint32_t len;
	bool bad;
};

static void
on_call(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	const uint8_t *data = resp->data;
	struct call *c = tag;
	uint32_t i;

	(void)w;
	c->runs++;
	c->status = resp->status;
	c->len = resp->len;
	for (i = 0; resp->status == PMR_OK && i < resp->len; i++)
		if (data[i] != (uint8_t)(i * 7 + 1)) {
			c->bad = true;
			break;
		}
	pmr_msgbuf_free(resp->req);
}

/* An echo of len patterned bytes from w on session s, to its end. */
static enum pmr_status
call_run(struct pmr_worker *w, int s, uint32_t len)
{
	struct pmr_msgbuf *req = pmr_worker_msgbuf_alloc(w, len);
	struct call c = { 0 };
	uint32_t i;

	assert_non_null(req);
	for (i = 0; i < len; i++)
		req->data[i] = (uint8_t)(i * 7 + 1);
	assert_int_equal(pmr_request(w, s, T_ECHO, req, on_call, &c), 0);
	PMR_TEST_SRC_POLL_UNTIL(&env, c.runs == 1);
	assert_false(c.bad);
	if (c.status == PMR_OK)
		assert_int_equal(c.len, len);
	return c.status;
}

/*
 * The next request number of window slot slot of w's session sn, taken
 * from the client so that its own requests never reuse it.
 */
static uint64_t
take_req_num(struct pmr_worker *w, int sn, unsigned int slot)
{
	struct rpc_session *s = &w->sessions[sn];
	uint64_t n = s->slot_req_num[slot] & PMR_REQ_NUM_MASK;

	s->slot_req_num[slot] += w->window;
	return n;
}

/*
 * Send one crafted packet of w's session sn, as its side would (to its
 * peer, with its token, from its queue): len bytes of payload[].
 */
static void
craft_tx(struct pmr_worker *w, int sn, uint8_t pkt_type, uint8_t req_type,
		uint32_t msg_size, uint64_t req_num, uint32_t len)
{
	const struct rpc_session *s = &w->sessions[sn];
	uint8_t hdr[PMR_PKTHDR_LEN];
	struct pmr_tx_pkt p = {
		.peer = s->peer,
		.data = payload,
		.len = len,
		.hdr = hdr,
		.hdr_len = PMR_PKTHDR_LEN,
	};

	assert_true(len <= sizeof(payload));
	pmr_pkthdr_write(hdr, pkt_type, req_type, s->remote_session, 0,
			msg_size, s->token, req_num, 0);
	PMR_TEST_SRC_POLL_UNTIL(&env,
			pmr_transport_tx_burst(w->q, &p, 1) == 1);
}

/* The first packet of a msg_size request on each of n slots of sn. */
static void
partials(struct pmr_worker *w, int sn, unsigned int n, uint32_t msg_size)
{
	uint32_t plen = w->sessions[sn].plen;
	unsigned int i;

	for (i = 0; i < n; i++)
		craft_tx(w, sn, PMR_PKT_REQ, T_ECHO, msg_size,
				take_req_num(w, sn, i), plen);
}

static unsigned int
in_use(const struct pmr_worker *w, unsigned int cls)
{
	return pmr_msgbuf_pool_in_use(pmr_worker_pool(w, cls));
}

static struct pmr_worker_stats
stats(const struct pmr_worker *w)
{
	struct pmr_worker_stats st;

	pmr_worker_stats_get(w, &st);
	return st;
}

static unsigned int
srv_sessions(void)
{
	const struct pmr_worker *srv = env.srv;
	unsigned int i, n = 0;

	for (i = 0; i < srv->max_sessions; i++)
		n += srv->sessions[i].state != PMR_SESSION_FREE &&
			!srv->sessions[i].client;
	return n;
}

/* Close sessions s[0..n) of w. */
static void
close_all(struct pmr_worker *w, const int *s, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		assert_int_equal(pmr_session_destroy(w, s[i]), 0);
}

/* Sessions a case left open (it failed) go with their workers. */
static int
teardown(void **state)
{
	(void)state;
	answer_held();
	poll_n(10);
	pmr_test_src_down(&env);
	return 0;
}

/* Two attacker nexuses on 127.0.0.1, the honest client on 127.0.0.2. */
static const char *const ips3[] = { "127.0.0.1", "127.0.0.1", "127.0.0.2" };
static const unsigned int one3[] = { 1, 1, 1 };

static int
setup3(void **state)
{
	/*
	 * The server at its defaults; the clients patient, and able to
	 * hold more sessions than the server admits.
	 */
	struct pmr_worker_conf srv = { 0 };
	struct pmr_worker_conf cli = { .nb_msgbufs = 1024,
		.req_timeout_ms = 30000, .max_sessions = 2048,
		.devargs = "rxd=8192" };

	(void)state;
	pmr_test_src_up(&env, 3, ips3, one3, handlers, &srv, &cli);
	return 0;
}

#define ATTACK_SESSIONS 10

/*
 * One attacker nexus's sessions take what the attacker took: on
 * two sessions, four first packets of 8 MiB requests each (the largest
 * class: four buffers by default, at most two per session); on eight
 * more, eight first packets of 32 KiB requests each (the 64 KiB class:
 * 64 buffers by default). Never the rest of any.
 */
static void
attack_partials(struct pmr_worker *w, int *s)
{
	struct pmr_test_sess_ev e;
	unsigned int i;

	for (i = 0; i < ATTACK_SESSIONS; i++) {
		s[i] = pmr_test_src_connect(&env, w, &e);
		assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	}
	for (i = 0; i < ATTACK_SESSIONS; i++) {
		if (i < 2)
			partials(w, s[i], 4, 8 * MIB);
		else
			partials(w, s[i], 8, 32 * KIB);
	}
	poll_n(300);
}

/*
 * Defect 1: large buffers pinned across sessions. Two attacker nexuses
 * on one address hold partial requests on many sessions; the honest
 * client on another address still gets its 1 MiB and 32 KiB requests
 * through (each answered from a buffer of the same class), every time;
 * the attackers' address holds at most half of each buffer class; the
 * state timeout reclaims what they held.
 */
static void
defect1_partials(void **state)
{
	struct pmr_worker *a1 = env.src[0].w[0], *a2 = env.src[1].w[0];
	struct pmr_worker *b = env.src[2].w[0];
	int s1[ATTACK_SESSIONS], s2[ATTACK_SESSIONS], sb;
	struct pmr_test_sess_ev e;
	unsigned int i;

	(void)state;
	attack_partials(a1, s1);
	attack_partials(a2, s2);
	/* Half of each class at most, both nexuses together (one
	 * address): the rest is kept for other sources. */
	assert_true(in_use(env.srv, 2) <= 2);
	assert_true(in_use(env.srv, 1) <= 32);
	sb = pmr_test_src_connect(&env, b, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	for (i = 0; i < 3; i++) {
		assert_int_equal(call_run(b, sb, MIB), PMR_OK);
		assert_int_equal(call_run(b, sb, 32 * KIB), PMR_OK);
	}
	/* The attackers' partial requests go at the state timeout. */
	PMR_TEST_SRC_POLL_UNTIL(&env, in_use(env.srv, 1) == 0 &&
			in_use(env.srv, 2) == 0);
	assert_true(stats(env.srv).srv_reclaimed > 0);
	close_all(a1, s1, ATTACK_SESSIONS);
	close_all(a2, s2, ATTACK_SESSIONS);
	assert_int_equal(pmr_session_destroy(b, sb), 0);
}

/*
 * Defect 2: forged descriptors. The attacker's sessions send REQ_DESCs
 * of its own making for requests the server's handler then keeps (a slow
 * handler: T_HOLD), offering memory the attacker registered for remote
 * reads itself, so every READ succeeds: 1 MiB on two sessions, 32 KiB on
 * eight more. The honest client on another address still gets its 1 MiB
 * and 32 KiB requests by READ through.
 */
static void
defect2_descs(void **state)
{
	struct pmr_worker *a = env.src[0].w[0], *b = env.src[2].w[0];
	struct pmr_transport_mkey key;
	struct pmr_test_sess_ev e;
	int s[ATTACK_SESSIONS], sb;
	struct rte_mempool *mp;
	struct pmr_msgbuf *mb;
	struct pmr_pkt_desc d;
	unsigned int i, k;
	uint32_t size;

	(void)state;
	if (a->rdv == NULL)
		skip();		/* a queue that cannot READ */
	mp = pmr_msgbuf_pool_create("pmrt_share_rd", 1, 0, MIB, 0,
			SOCKET_ID_ANY);
	assert_non_null(mp);
	assert_int_equal(pmr_transport_mem_register_access(a->q, mp,
			PMR_TRANSPORT_ACCESS_REMOTE_READ), 0);
	mb = pmr_msgbuf_alloc(mp, MIB);
	assert_non_null(mb);
	memset(mb->data, 0x44, MIB);
	assert_int_equal(pmr_transport_mem_key(a->q, mb->data, MIB, &key), 0);
	for (i = 0; i < ATTACK_SESSIONS; i++) {
		s[i] = pmr_test_src_connect(&env, a, &e);
		assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
		/* A real request by READ first: the pair's QP at both ends. */
		assert_int_equal(call_run(a, s[i], 200 * KIB), PMR_OK);
	}
	/* Offered on the pair's QP (the one all of a's sessions share):
	 * the server reads it. */
	d = (struct pmr_pkt_desc){ .addr = (uintptr_t)mb->data,
		.rkey = key.rkey,
		.qpn = rpc_rc_pair_qpn(rpc_rc_pair_of(a, s[0])) };
	pmr_pkt_desc_encode(payload, &d);
	for (i = 0; i < ATTACK_SESSIONS; i++) {
		size = i < 2 ? MIB : 32 * KIB;
		for (k = 0; k < (i < 2 ? 4u : 8u); k++)
			craft_tx(a, s[i], PMR_PKT_REQ_DESC, T_HOLD, size,
					take_req_num(a, s[i], k),
					PMR_PKT_DESC_LEN);
	}
	poll_n(300);
	assert_true(nb_held > 0);
	assert_true(in_use(env.srv, 2) <= 2);
	assert_true(in_use(env.srv, 1) <= 32);
	sb = pmr_test_src_connect(&env, b, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	for (i = 0; i < 3; i++) {
		assert_int_equal(call_run(b, sb, MIB), PMR_OK);
		assert_int_equal(call_run(b, sb, 32 * KIB), PMR_OK);
	}
	assert_true(stats(env.srv).rdv_reads > 0);
	answer_held();
	close_all(a, s, ATTACK_SESSIONS);
	assert_int_equal(pmr_session_destroy(b, sb), 0);
	PMR_TEST_SRC_POLL_UNTIL(&env, srv_sessions() == 0);
	poll_n(100);
	pmr_msgbuf_free(mb);
	assert_int_equal(pmr_transport_mem_unregister(a->q, mp), 0);
	assert_int_equal(pmr_msgbuf_pool_free(mp), 0);
}

/*
 * Defect 4: one client takes every session. An attacker nexus opens
 * sessions to the server worker until one is refused, a second one on
 * the same address does the same; the honest client on another address
 * still connects. The two nexuses together (one address) got at most half
 * of what the worker admits.
 */
static unsigned int
open_until_refused(struct pmr_worker *w, int *s, unsigned int max)
{
	struct pmr_test_sess_ev e;
	unsigned int n;

	for (n = 0; n < max; n++) {
		s[n] = pmr_test_src_connect(&env, w, &e);
		if (e.ev != PMR_SESSION_EV_CONNECTED) {
			assert_int_equal(e.ev, PMR_SESSION_EV_CONNECT_FAILED);
			assert_int_equal(e.err, -ENOSPC);
			assert_int_equal(pmr_session_destroy(w, s[n]), 0);
			return n;
		}
	}
	fail_msg("%u sessions and none refused", max);
	return 0;
}

static void
defect4_sessions(void **state)
{
	struct pmr_worker *a1 = env.src[0].w[0], *a2 = env.src[1].w[0];
	struct pmr_worker *b = env.src[2].w[0];
	const struct pmr_worker *srv = env.srv;
	/* What the server worker admits: sessions, and receive slots. */
	unsigned int admit = RTE_MIN(srv->max_sessions,
			srv->rx_budget / srv->credits);
	static int s1[1024], s2[1024];
	struct pmr_test_sess_ev e;
	unsigned int n1, n2;
	int sb;

	(void)state;
	n1 = open_until_refused(a1, s1, RTE_DIM(s1));
	n2 = open_until_refused(a2, s2, RTE_DIM(s2));
	printf("admits %u: nexus 1 got %u, nexus 2 got %u\n", admit, n1, n2);
	sb = pmr_test_src_connect(&env, b, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	/* Half of them at most, both nexuses together (one address). */
	assert_true(n1 > 0);
	assert_true(n1 + n2 <= admit / 2);
	assert_int_equal(call_run(b, sb, 100), PMR_OK);
	close_all(a1, s1, n1);
	close_all(a2, s2, n2);
	assert_int_equal(pmr_session_destroy(b, sb), 0);
}

/* Sixteen attacker workers on one nexus, the honest one on 127.0.0.2. */
static const char *const ips2[] = { "127.0.0.1", "127.0.0.2" };
static const unsigned int rc_workers[] = { 16, 1 };

static int
setup_rc(void **state)
{
	/* Small pools: eighteen workers in one process (or one VM). */
	struct pmr_worker_conf srv = { .nb_msgbufs = 512,
		.nb_mid_msgbufs = 8, .nb_large_msgbufs = 4,
		.max_msg_size = 2 * MIB };
	struct pmr_worker_conf cli = { .nb_msgbufs = 256,
		.nb_mid_msgbufs = 4, .nb_large_msgbufs = 2,
		.max_msg_size = 2 * MIB, .req_timeout_ms = 30000 };

	(void)state;
	if (pmr_test_setup_is_eth())
		return 0;	/* no RC QPs on eth: the case skips */
	pmr_test_src_up(&env, 2, ips2, rc_workers, handlers, &srv, &cli);
	return 0;
}

static int
teardown_rc(void **state)
{
	if (pmr_test_setup_is_eth())
		return 0;
	return teardown(state);
}

/* Log lines of the pmr types, while captured. */
static char *log_buf;
static size_t log_len;
static FILE *log_stream;

static void
log_capture(void)
{
	log_stream = open_memstream(&log_buf, &log_len);
	assert_non_null(log_stream);
	assert_int_equal(rte_openlog_stream(log_stream), 0);
}

/* Stop capturing: how many lines contain what. */
static unsigned int
log_count(const char *what)
{
	unsigned int n = 0;
	const char *p;

	rte_openlog_stream(NULL);
	fclose(log_stream);
	for (p = log_buf; (p = strstr(p, what)) != NULL; p++)
		n++;
	fputs(log_buf, stderr);
	free(log_buf);
	log_buf = NULL;
	return n;
}

/*
 * Defect 3: one client takes every RC QP. Sixteen workers of one client
 * process each open a session to the server worker, whose verbs queue
 * has sixteen RC QPs; the honest client on another address still gets
 * its QP and sends a 1 MiB request by READ. The attacker gets at most its
 * share; a worker of its refused one is told why (-EDQUOT), and its
 * process says so once in its log.
 */
static void
defect3_rc_qps(void **state)
{
	struct pmr_worker *b = env.src[1].w[0];
	struct pmr_test_sess_ev ev[16], e;
	unsigned int i, ready = 0, refused = 0;
	struct pmr_worker_stats st0;
	int s[16], sb;

	(void)state;
	if (pmr_test_setup_is_eth())
		skip();
	log_capture();
	for (i = 0; i < 16; i++) {
		s[i] = pmr_test_src_connect(&env, env.src[0].w[i], &ev[i]);
		assert_int_equal(ev[i].ev, PMR_SESSION_EV_CONNECTED);
	}
	for (i = 0; i < 16; i++) {
		struct pmr_worker *w = env.src[0].w[i];

		PMR_TEST_SRC_POLL_UNTIL(&env,
				rpc_rc_state(w, s[i]) != RPC_RC_WANTED);
		if (rpc_rc_state(w, s[i]) == RPC_RC_READY) {
			ready++;
		} else {
			assert_int_equal(rpc_rc_state(w, s[i]),
					RPC_RC_FAILED);
			assert_int_equal(rpc_rc_error(w, s[i]), -EDQUOT);
			refused++;
		}
	}
	sb = pmr_test_src_connect(&env, b, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	PMR_TEST_SRC_POLL_UNTIL(&env, rpc_rc_state(b, sb) != RPC_RC_WANTED);
	assert_int_equal(rpc_rc_state(b, sb), RPC_RC_READY);
	st0 = stats(env.srv);
	assert_int_equal(call_run(b, sb, MIB), PMR_OK);
	assert_int_equal(stats(env.srv).rdv_reads, st0.rdv_reads + 1);
	assert_int_equal(stats(b).rdv_fallbacks, 0);
	printf("attacker: %u QPs, %u refused\n", ready, refused);
	/* Half of the queue's sixteen at most. */
	assert_true(ready > 0);
	assert_true(ready <= 8);
	assert_true(refused > 0);
	assert_int_equal(log_count("refused an RC QP"), 1);
	for (i = 0; i < 16; i++)
		assert_int_equal(pmr_session_destroy(env.src[0].w[i], s[i]),
				0);
	assert_int_equal(pmr_session_destroy(b, sb), 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(defect1_partials, setup3,
			teardown),
		cmocka_unit_test_setup_teardown(defect2_descs, setup3,
			teardown),
		cmocka_unit_test_setup_teardown(defect3_rc_qps, setup_rc,
			teardown_rc),
		cmocka_unit_test_setup_teardown(defect4_sessions, setup3,
			teardown),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("hostile_share", tests,
			pmr_test_eal_setup, pmr_test_eal_teardown);
}
