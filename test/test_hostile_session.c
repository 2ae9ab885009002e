/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Sessions against a hostile network (issue 10): the data-plane half of
 * the session proof. A real nexus on 127.0.0.1 and workers on ring pairs;
 * forged frames are written straight onto the ring the victim reads.
 *
 * Groups (argv[1] is a cmocka test filter, test/meson.build runs each
 * group as its own test):
 * - defect11*: 64-bit tokens, session numbers in random order, wrong
 *   tokens dropped and counted without hurting valid traffic;
 * - defect6*: the token reaches the client only in a TOKEN packet on the
 *   data path, forged TOKEN packets are dropped and counted, a client
 *   whose data address cannot be reached fails with -ENETUNREACH;
 * - defect5*: a client asking for more credits than the server grants
 *   gets the server's, and does not lock other sessions out.
 */

#include "pmr_test_rpc.h"

#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "eth_hdr.h"
#include "pmr_pkthdr.h"
#include "pmr_rpc.h"
#include "rpc_private.h"
#include "rpc_session.h"

#define T_ECHO 1

/* The TOKEN packet's type and payload, written here by hand. */
#define TOKEN_TYPE 5
#define TOKEN_PLEN 16

/* The workers' data addresses (pmr_test_env_up(): 10.2.<pair>.1/.2). */
#define SRV_IP RTE_BE32(0x0a020001)
#define CLI_IP RTE_BE32(0x0a020002)
#define NOBODY_IP RTE_BE32(0x0a020063)	/* 10.2.0.99: nobody there */
#define DATA_UDP RTE_BE16(31850)

static struct pmr_test_env env;

static void
echo_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_msgbuf *resp;
	const uint8_t *in = pmr_req_data(req);
	uint32_t i, len = pmr_req_len(req);

	(void)arg;
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
handlers(struct pmr_nexus *nx)
{
	assert_int_equal(pmr_nexus_register_handler(nx, T_ECHO, echo_handler,
			NULL), 0);
}

static int
teardown(void **state)
{
	(void)state;
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

/* The server drops everything it sends: the client's data path is dead. */
static int
setup_srv_mute(void **state)
{
	struct pmr_worker_conf srv = { .nb_msgbufs = 1024,
		.faults = "drop_tx=1" };
	struct pmr_worker_conf cli = { .nb_msgbufs = 1024,
		.req_timeout_ms = 1000 };

	(void)state;
	pmr_test_env_up(&env, 1, handlers, &srv, &cli);
	return 0;
}

/*
 * The credit hog: a client worker asking for 1024 credits per session
 * (its queue deep enough for several such sessions), a server with the
 * default 8 on the default 1024-slot queue.
 */
static int
setup_hog(void **state)
{
	struct pmr_worker_conf cli = { .nb_msgbufs = 1024,
		.nb_mid_msgbufs = 16, .session_credits = 1024,
		.devargs = "rxd=4096" };

	(void)state;
	pmr_test_env_up(&env, 1, handlers, NULL, &cli);
	return 0;
}

/* Counters by name. */
static uint64_t
drops(struct pmr_worker *w, const char *name)
{
	struct pmr_worker_stats st;
	unsigned int i;

	pmr_worker_stats_get(w, &st);
	for (i = 0; i < RTE_DIM(st.drops); i++)
		if (pmr_worker_drop_name(i) != NULL &&
		    strcmp(pmr_worker_drop_name(i), name) == 0)
			return st.drops[i];
	fail_msg("no drop reason %s", name);
	return 0;
}

#define wstat(w, f) stat_get(w, offsetof(struct pmr_worker_stats, f))

static uint64_t
stat_get(struct pmr_worker *w, size_t off)
{
	struct pmr_worker_stats st;

	pmr_worker_stats_get(w, &st);
	return *(const uint64_t *)((const uint8_t *)&st + off);
}

static unsigned int
sessions_in_use(struct pmr_worker *w)
{
	unsigned int sn, n = 0;

	for (sn = 0; sn < w->max_sessions; sn++)
		n += pmr_session_state(w, (int)sn) != PMR_SESSION_FREE;
	return n;
}

static struct rpc_session *
sess(struct pmr_worker *w, int sn)
{
	assert_true(sn >= 0 && (uint32_t)sn < w->max_sessions);
	return &w->sessions[sn];
}

static void
poll_n(unsigned int n)
{
	while (n-- > 0)
		pmr_test_env_poll(&env);
}

/*
 * Put a frame from src (IP, data UDP port) to dst on the ring that the
 * worker at dst reads: out of port, the other end of its ring pair. The
 * RPC header is hdr (PMR_PKTHDR_LEN bytes), then payload.
 */
static void
inject(uint16_t port, rte_be32_t src_ip, rte_be32_t dst_ip,
		const uint8_t *hdr, const void *payload, uint32_t plen)
{
	struct pmr_eth_endpoint src = { .ip = src_ip, .port = DATA_UDP },
		dst = { .ip = dst_ip, .port = DATA_UDP };
	struct rte_mempool *mp = rte_mempool_lookup("hostile_raw");
	struct rte_mbuf *m;
	uint8_t *f;

	/* The driver's MACs for ports without one: 02:00 and the IP. */
	src.mac.addr_bytes[0] = 0x02;
	memcpy(&src.mac.addr_bytes[2], &src.ip, 4);
	dst.mac.addr_bytes[0] = 0x02;
	memcpy(&dst.mac.addr_bytes[2], &dst.ip, 4);
	if (mp == NULL)
		mp = rte_pktmbuf_pool_create("hostile_raw", 512, 0, 0,
				RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	assert_non_null(mp);
	m = rte_pktmbuf_alloc(mp);
	assert_non_null(m);
	f = (uint8_t *)rte_pktmbuf_append(m, PMR_ETH_HDR_LEN +
			PMR_PKTHDR_LEN + plen);
	assert_non_null(f);
	memset(f, 0, m->data_len);
	pmr_eth_hdr_template(f, &src, &dst);
	pmr_eth_hdr_set_len(f, (uint16_t)(PMR_PKTHDR_LEN + plen), false);
	memcpy(f + PMR_ETH_HDR_LEN, hdr, PMR_PKTHDR_LEN);
	if (plen != 0)
		memcpy(f + PMR_ETH_HDR_LEN + PMR_PKTHDR_LEN, payload, plen);
	assert_int_equal(rte_eth_tx_burst(port, 0, &m, 1), 1);
}

static void
put_le(uint8_t *p, uint64_t v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * A TOKEN packet to client session sn as the server would send it, from
 * src: token in the header; hs_id, the server's session and the granted
 * credits in the payload.
 */
static void
inject_token(rte_be32_t src_ip, uint16_t sn, uint64_t token, uint64_t hs_id,
		uint16_t srv_session, uint16_t credits)
{
	uint8_t hdr[PMR_PKTHDR_LEN], pl[TOKEN_PLEN];

	pmr_pkthdr_write(hdr, TOKEN_TYPE, 0, sn, 0, TOKEN_PLEN, token, 0, 0);
	memset(pl, 0, sizeof(pl));
	put_le(pl, hs_id, 8);
	put_le(pl + 8, srv_session, 2);
	put_le(pl + 10, credits, 2);
	inject(env.port_a[0], src_ip, CLI_IP, hdr, pl, sizeof(pl));
}

/* A one-packet request to server session sn with the given token. */
static void
inject_req(uint16_t sn, uint64_t token, uint64_t req_num)
{
	uint8_t hdr[PMR_PKTHDR_LEN], pl[8];

	memset(pl, 0x77, sizeof(pl));
	pmr_pkthdr_write(hdr, PMR_PKT_REQ, T_ECHO, sn, 0, sizeof(pl), token,
			req_num, 0);
	inject(env.port_b[0], CLI_IP, SRV_IP, hdr, pl, sizeof(pl));
}

/* An echo RPC of len bytes on session s, which must succeed. */
struct call {
	int runs;
	enum pmr_status status;
	uint32_t len;
	int bad;
	uint8_t seed;
};

static void
on_echo(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct call *c = tag;
	const uint8_t *d = resp->data;
	uint32_t i;

	(void)w;
	c->runs++;
	c->status = resp->status;
	if (resp->status == PMR_OK) {
		if (resp->len != c->len)
			c->bad++;
		for (i = 0; i < resp->len && i < c->len; i++)
			if (d[i] != (uint8_t)~(uint8_t)(c->seed + i * 13))
				c->bad++;
	}
	pmr_msgbuf_free(resp->req);
}

static void
echo_ok(struct pmr_worker *cli, int s, uint32_t len, uint8_t seed)
{
	struct call c = { .len = len, .seed = seed };
	struct pmr_msgbuf *req = pmr_worker_msgbuf_alloc(cli, len);
	uint32_t i;

	assert_non_null(req);
	for (i = 0; i < len; i++)
		req->data[i] = (uint8_t)(seed + i * 13);
	assert_int_equal(pmr_request(cli, s, T_ECHO, req, on_echo, &c), 0);
	PMR_TEST_POLL_UNTIL(&env, c.runs == 1);
	assert_int_equal(c.status, PMR_OK);
	assert_int_equal(c.bad, 0);
}

/* The one session of w in use, or -1. */
static int
only_session(struct pmr_worker *w)
{
	unsigned int sn;

	for (sn = 0; sn < w->max_sessions; sn++)
		if (pmr_session_state(w, (int)sn) != PMR_SESSION_FREE)
			return (int)sn;
	return -1;
}

/* The ring the client's port reads: what the server sent. */
static struct rte_ring *
to_client_ring(void)
{
	char name[RTE_RING_NAMESIZE];
	struct rte_ring *r;

	snprintf(name, sizeof(name), "%s_ab", env.pair[0]);
	r = rte_ring_lookup(name);
	assert_non_null(r);
	return r;
}

/*
 * Defect 11: wrong tokens, each differing from the session's in one bit
 * of 64, are all dropped and counted; valid requests on the same session
 * around them are answered.
 */
static void
defect11_wrong_tokens_dropped(void **state)
{
	struct pmr_worker *cli = env.cli[0], *srv = env.srv[0];
	struct pmr_test_sess_ev e;
	uint64_t tok, before;
	uint16_t ssn;
	unsigned int bit;
	int s;

	(void)state;
	s = pmr_test_connect(&env, cli, 0, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	echo_ok(cli, s, 100, 1);
	ssn = sess(cli, s)->remote_session;
	tok = sess(srv, ssn)->token;
	assert_true(tok == sess(cli, s)->token);
	before = drops(srv, "bad_token");
	for (bit = 0; bit < 64; bit++) {
		inject_req(ssn, tok ^ (UINT64_C(1) << bit), 1000 + bit);
		if (bit % 8 == 0)
			echo_ok(cli, s, 64 + bit, (uint8_t)bit);
	}
	poll_n(50);
	assert_int_equal(drops(srv, "bad_token") - before, 64);
	/* Nothing of them reached a handler: the session still works. */
	echo_ok(cli, s, 1000, 5);
	echo_ok(cli, s, 20000, 6);
	assert_true(sess(srv, ssn)->token == tok);
	assert_int_equal(pmr_session_destroy(cli, s), 0);
	PMR_TEST_POLL_UNTIL(&env, sessions_in_use(srv) == 0);
}

/* Defect 11: session numbers are not handed out lowest first. */
#define NUM_SESSIONS 12

static void
defect11_session_numbers_random(void **state)
{
	struct pmr_worker *cli = env.cli[0], *srv = env.srv[0];
	struct pmr_test_sess_ev e[NUM_SESSIONS];
	int c[NUM_SESSIONS], sv[NUM_SESSIONS];
	unsigned int i, j, c_seq = 0, s_seq = 0;

	(void)state;
	for (i = 0; i < NUM_SESSIONS; i++) {
		c[i] = pmr_test_connect(&env, cli, 0, &e[i]);
		assert_int_equal(e[i].ev, PMR_SESSION_EV_CONNECTED);
		sv[i] = sess(cli, c[i])->remote_session;
		for (j = 0; j < i; j++) {
			assert_int_not_equal(c[i], c[j]);
			assert_int_not_equal(sv[i], sv[j]);
		}
		c_seq += c[i] == (int)i;
		s_seq += sv[i] == (int)i;
	}
	/* 0, 1, 2, ... on either side is a guessable session number. */
	if (c_seq == NUM_SESSIONS || s_seq == NUM_SESSIONS)
		fail_msg("session numbers handed out lowest first (client %u, "
			"server %u of %u)", c_seq, s_seq, NUM_SESSIONS);
	for (i = 0; i < NUM_SESSIONS; i++)
		echo_ok(cli, c[i], 10, (uint8_t)i);
	for (i = 0; i < NUM_SESSIONS; i++)
		assert_int_equal(pmr_session_destroy(cli, c[i]), 0);
	PMR_TEST_POLL_UNTIL(&env, sessions_in_use(srv) == 0);
}

/*
 * Defect 6: the server's data path to the client is dead (its TX
 * dropped): the client never learns the token, fails -ENETUNREACH, and
 * the server's session is reclaimed. Forged TOKEN packets meanwhile (a
 * wrong handshake id, another session, a bad payload, even from the
 * server's own address) change nothing and are counted.
 */
static void
defect6_unreachable_data_path(void **state)
{
	struct pmr_worker *cli = env.cli[0], *srv = env.srv[0];
	struct pmr_test_sess_ev e = { 0 };
	uint8_t hdr[PMR_PKTHDR_LEN], pl[TOKEN_PLEN];
	uint16_t other;
	int s;

	(void)state;
	s = pmr_session_create(cli, pmr_nexus_uri(env.nx), 0,
			pmr_test_on_session, &e);
	assert_true(s >= 0);
	/* The nexus has answered: the server session exists. */
	PMR_TEST_POLL_UNTIL(&env, sess(cli, s)->peer != NULL || e.count > 0);
	assert_int_equal(sessions_in_use(srv), 1);
	other = (uint16_t)((s + 1) % cli->max_sessions);
	inject_token(SRV_IP, (uint16_t)s, 0x1234, 0x5678,
			sess(cli, s)->remote_session, 8);	/* wrong hs_id */
	inject_token(NOBODY_IP, (uint16_t)s, 0x1234, 0x5678,
			sess(cli, s)->remote_session, 8);
	inject_token(SRV_IP, other, 0x1234, 0x5678, 0, 8);	/* free one */
	/* A TOKEN packet of the wrong size. */
	pmr_pkthdr_write(hdr, TOKEN_TYPE, 0, (uint16_t)s, 0, 8, 0x1234, 0, 0);
	memset(pl, 0, sizeof(pl));
	inject(env.port_a[0], SRV_IP, CLI_IP, hdr, pl, 8);
	poll_n(50);
	assert_int_equal(e.count, 0);
	assert_int_equal(pmr_session_state(cli, s), PMR_SESSION_CONNECTING);
	assert_int_equal(drops(cli, "bad_token_pkt"), 3);
	assert_int_equal(drops(cli, "hdr_msg_size"), 1);

	PMR_TEST_POLL_UNTIL(&env, e.count > 0);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECT_FAILED);
	assert_int_equal(e.err, -ENETUNREACH);
	assert_int_equal(pmr_session_state(cli, s), PMR_SESSION_FAILED);
	/* The server session and its receive slots are given back. */
	PMR_TEST_POLL_UNTIL(&env, sessions_in_use(srv) == 0);
	assert_int_equal(srv->rx_reserved, 0);
	assert_int_equal(pmr_session_destroy(cli, s), 0);
	assert_int_equal(cli->rx_reserved, 0);
	assert_int_equal(drops(cli, "bad_token_pkt"), 3);
	/* The address the client named got RPC_TOKEN_COPIES, no more. */
	assert_int_equal(wstat(srv, tokens_sent), RPC_TOKEN_COPIES);
	assert_int_equal(wstat(cli, tokens_received), 0);
	assert_int_equal(wstat(cli, connects_unreachable), 1);
}

/*
 * The server's first TOKEN copies can find its TX dead for a while: a
 * memif port whose peer connected only at the control level (its link
 * flag lags under load: the copies are dropped at the port), a full
 * queue. The copies go on long enough to outlive such a stall: here the
 * server's TX ring stays full for 60 ms after it took the session (the
 * first 4 copies, after 0, 5, 15 and 35 ms, are dropped at the port) and
 * the session still comes up, with a later copy.
 */
static void
defect6_token_outlives_tx_stall(void **state)
{
	struct pmr_worker *cli = env.cli[0], *srv = env.srv[0];
	struct pmr_test_sess_ev e = { 0 };
	char name[RTE_RING_NAMESIZE];
	struct rte_ring *r;
	void *junk[64];
	unsigned int n, filled = 0;
	uint64_t until;
	int s;

	(void)state;
	/* The server sends into ring <pair>_ab (test/common). */
	snprintf(name, sizeof(name), "%s_ab", env.pair[0]);
	r = rte_ring_lookup(name);
	assert_non_null(r);
	for (n = 0; n < RTE_DIM(junk); n++)
		junk[n] = (void *)(uintptr_t)(0x1000 + n);
	while (rte_ring_free_count(r) > 0)
		filled += rte_ring_enqueue_burst(r, junk,
			RTE_MIN(RTE_DIM(junk), rte_ring_free_count(r)), NULL);
	s = pmr_session_create(cli, pmr_nexus_uri(env.nx), 0,
			pmr_test_on_session, &e);
	assert_true(s >= 0);
	/* Only the server runs (the client must not take the junk). */
	until = pmr_test_now_ns() + PMR_TEST_WAIT_NS;
	while (sessions_in_use(srv) == 0) {
		pmr_worker_poll(srv);
		assert_true(pmr_test_now_ns() < until);
	}
	until = pmr_test_now_ns() + 60 * 1000 * 1000;
	while (pmr_test_now_ns() < until)
		pmr_worker_poll(srv);
	assert_true(wstat(srv, tokens_sent) >= 1);
	assert_true(wstat(srv, tx_dropped) >= wstat(srv, tokens_sent));
	while (filled > 0)
		filled -= rte_ring_dequeue_burst(r, junk, RTE_DIM(junk), NULL);
	PMR_TEST_POLL_UNTIL(&env, e.count > 0);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	assert_int_equal(e.err, 0);
	assert_true(wstat(cli, tokens_received) >= 1);
	echo_ok(cli, s, 500, 3);
	assert_int_equal(pmr_session_destroy(cli, s), 0);
	PMR_TEST_POLL_UNTIL(&env, sessions_in_use(srv) == 0);
}

/*
 * Defect 6: the client's token is the one of the TOKEN packet, never the
 * nexus's: a TOKEN packet (the server's TX is dead, the test sends it, as
 * only the real server address could) with another token than the server
 * session's connects the client with that token.
 */
static void
defect6_token_only_from_data_path(void **state)
{
	struct pmr_worker *cli = env.cli[0], *srv = env.srv[0];
	struct pmr_test_sess_ev e = { 0 };
	struct rpc_session *cs;
	uint64_t tok;
	int s, ssn;

	(void)state;
	s = pmr_session_create(cli, pmr_nexus_uri(env.nx), 0,
			pmr_test_on_session, &e);
	assert_true(s >= 0);
	cs = sess(cli, s);
	PMR_TEST_POLL_UNTIL(&env, cs->peer != NULL);
	ssn = only_session(srv);
	assert_int_equal(ssn, cs->remote_session);
	tok = ~sess(srv, ssn)->token;
	inject_token(SRV_IP, (uint16_t)s, tok, cs->hs_id, (uint16_t)ssn, 3);
	PMR_TEST_POLL_UNTIL(&env, e.count > 0);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	assert_true(cs->token == tok);
	/* The grant too: 3 of its 8 credits, 3 receive slots. */
	assert_int_equal(cs->credits, 3);
	assert_int_equal(cs->rx_reserve, 3);
	assert_int_equal(wstat(cli, tokens_received), 1);
	assert_int_equal(pmr_session_destroy(cli, s), 0);
	PMR_TEST_POLL_UNTIL(&env, sessions_in_use(srv) == 0);
}

/*
 * Defect 6: TOKEN packets to a connected session (from the server's own
 * address, with another token or handshake id) are dropped and counted
 * and leave the session's token alone.
 */
static void
defect6_forged_token_after_connected(void **state)
{
	struct pmr_worker *cli = env.cli[0];
	struct pmr_test_sess_ev e;
	uint64_t tok;
	uint16_t ssn;
	int s;

	(void)state;
	s = pmr_test_connect(&env, cli, 0, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	tok = sess(cli, s)->token;
	ssn = sess(cli, s)->remote_session;
	inject_token(SRV_IP, (uint16_t)s, tok ^ 1, 0x5678, ssn, 8);
	inject_token(SRV_IP, (uint16_t)s, ~tok, 0, ssn, 1);
	inject_token(NOBODY_IP, (uint16_t)s, tok + 99, 0x5678, ssn, 1024);
	poll_n(50);
	assert_int_equal(drops(cli, "bad_token_pkt"), 3);
	assert_true(sess(cli, s)->token == tok);
	assert_int_equal(pmr_session_state(cli, s), PMR_SESSION_CONNECTED);
	/*
	 * The client has sent nothing yet: the server sends all its
	 * copies, which are the real token and no drops.
	 */
	PMR_TEST_POLL_UNTIL(&env,
			wstat(env.srv[0], tokens_sent) == RPC_TOKEN_COPIES &&
			wstat(cli, tokens_received) == RPC_TOKEN_COPIES);
	echo_ok(cli, s, 500, 3);
	poll_n(50);
	assert_int_equal(drops(cli, "bad_token_pkt"), 3);
	assert_int_equal(wstat(env.srv[0], tokens_sent), RPC_TOKEN_COPIES);
	assert_int_equal(pmr_session_destroy(cli, s), 0);
}

/*
 * Defect 6, both orders: the server's TOKEN packet reaches the client
 * before the nexus's CONNECTED, or after it (held back on the wire); a
 * TOKEN with the right handshake id from the wrong address, taken before
 * CONNECTED, is thrown away at CONNECTED and the real one still wins.
 */
static void
defect6_token_either_order(void **state)
{
	struct pmr_worker *cli = env.cli[0], *srv = env.srv[0];
	struct pmr_test_sess_ev e = { 0 };
	struct rpc_session *cs;
	struct rte_mbuf *held = NULL;
	uint64_t deadline;
	int s, ssn;

	(void)state;
	/* Token first: only the server runs until it has sent it. */
	s = pmr_session_create(cli, pmr_nexus_uri(env.nx), 0,
			pmr_test_on_session, &e);
	assert_true(s >= 0);
	cs = sess(cli, s);
	deadline = pmr_test_now_ns() + PMR_TEST_WAIT_NS;
	while (only_session(srv) < 0) {
		pmr_worker_poll(srv);
		assert_true(pmr_test_now_ns() < deadline);
	}
	/* The poll that took CONNECT_IN sent the TOKEN; no copy yet. */
	cli->rare_in = 2;			/* RX, not the nexus ring */
	pmr_worker_poll(cli);
	assert_true(cs->has_token);
	assert_null(cs->peer);
	assert_int_equal(pmr_session_state(cli, s), PMR_SESSION_CONNECTING);
	PMR_TEST_POLL_UNTIL(&env, e.count > 0);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	ssn = only_session(srv);
	assert_true(cs->token == sess(srv, ssn)->token);
	echo_ok(cli, s, 100, 1);
	assert_int_equal(pmr_session_destroy(cli, s), 0);
	PMR_TEST_POLL_UNTIL(&env, sessions_in_use(srv) == 0);

	/*
	 * CONNECTED first: the server's TOKEN is taken off the wire, a forged
	 * one with the right handshake id comes from elsewhere first.
	 */
	memset(&e, 0, sizeof(e));
	s = pmr_session_create(cli, pmr_nexus_uri(env.nx), 0,
			pmr_test_on_session, &e);
	assert_true(s >= 0);
	cs = sess(cli, s);
	deadline = pmr_test_now_ns() + PMR_TEST_WAIT_NS;
	while (only_session(srv) < 0) {
		pmr_worker_poll(srv);
		assert_true(pmr_test_now_ns() < deadline);
	}
	ssn = only_session(srv);
	assert_int_equal(rte_ring_count(to_client_ring()), 1);
	assert_int_equal(rte_ring_dequeue(to_client_ring(), (void **)&held),
			0);
	inject_token(NOBODY_IP, (uint16_t)s, 0xbad, cs->hs_id, (uint16_t)ssn,
			8);
	cli->rare_in = 2;
	pmr_worker_poll(cli);
	assert_true(cs->has_token);		/* nothing to check it by yet */
	assert_null(cs->peer);
	/* The client alone runs: the server sends no copy meanwhile. */
	deadline = pmr_test_now_ns() + PMR_TEST_WAIT_NS;
	while (cs->peer == NULL) {
		pmr_worker_poll(cli);
		assert_true(pmr_test_now_ns() < deadline);
	}
	assert_false(cs->has_token);		/* not from the server */
	assert_int_equal(drops(cli, "bad_token_pkt"), 1);
	assert_int_equal(pmr_session_state(cli, s), PMR_SESSION_CONNECTING);
	assert_int_equal(e.count, 0);
	assert_int_equal(rte_ring_enqueue(to_client_ring(), held), 0);
	PMR_TEST_POLL_UNTIL(&env, e.count > 0);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	assert_true(cs->token == sess(srv, ssn)->token);
	assert_true(cs->token != 0xbad);
	echo_ok(cli, s, 3000, 2);
	assert_int_equal(pmr_session_destroy(cli, s), 0);
	PMR_TEST_POLL_UNTIL(&env, sessions_in_use(srv) == 0);
}

/*
 * Defect 5: the hog asks for 1024 credits; the server grants its own 8,
 * reserves only those, and the hog's session uses 8 and reserves 8 of its
 * own queue. More sessions still connect, and all of them work,
 * multi-packet messages included.
 */
#define HOG_SESSIONS 4

static void
defect5_credit_hog(void **state)
{
	struct pmr_worker *cli = env.cli[0], *srv = env.srv[0];
	struct pmr_test_sess_ev e[HOG_SESSIONS];
	int s[HOG_SESSIONS];
	unsigned int i;
	uint16_t ssn;

	(void)state;
	for (i = 0; i < HOG_SESSIONS; i++) {
		s[i] = pmr_test_connect(&env, cli, 0, &e[i]);
		assert_int_equal(e[i].ev, PMR_SESSION_EV_CONNECTED);
		ssn = sess(cli, s[i])->remote_session;
		assert_int_equal(sess(srv, ssn)->rx_reserve, 8);
		assert_int_equal(sess(cli, s[i])->rx_reserve, 8);
		assert_true(sess(cli, s[i])->credits <= 8);
	}
	assert_int_equal(srv->rx_reserved, 8 * HOG_SESSIONS);
	assert_int_equal(cli->rx_reserved, 8 * HOG_SESSIONS);
	for (i = 0; i < HOG_SESSIONS; i++) {
		echo_ok(cli, s[i], 30000, (uint8_t)i);
		/* Every credit came back: no more than the grant were out. */
		assert_int_equal(sess(cli, s[i])->credits, 8);
	}
	for (i = 0; i < HOG_SESSIONS; i++)
		assert_int_equal(pmr_session_destroy(cli, s[i]), 0);
	PMR_TEST_POLL_UNTIL(&env, sessions_in_use(srv) == 0);
	assert_int_equal(srv->rx_reserved, 0);
	assert_int_equal(cli->rx_reserved, 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(defect11_wrong_tokens_dropped,
			setup_default, teardown),
		cmocka_unit_test_setup_teardown(
			defect11_session_numbers_random, setup_default,
			teardown),
		cmocka_unit_test_setup_teardown(defect6_unreachable_data_path,
			setup_srv_mute, teardown),
		cmocka_unit_test_setup_teardown(
			defect6_forged_token_after_connected, setup_default,
			teardown),
		cmocka_unit_test_setup_teardown(
			defect6_token_only_from_data_path, setup_srv_mute,
			teardown),
		cmocka_unit_test_setup_teardown(defect6_token_either_order,
			setup_default, teardown),
		cmocka_unit_test_setup_teardown(
			defect6_token_outlives_tx_stall, setup_default,
			teardown),
		cmocka_unit_test_setup_teardown(defect5_credit_hog,
			setup_hog, teardown),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("hostile_session", tests,
			pmr_test_eal_setup, pmr_test_eal_teardown);
}
