/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Stateful fuzz target of the READ path (rendezvous, doc/rendezvous.md;
 * issue 25): real server and client workers on the verbs driver over the
 * software HCA model (test/hca/), which has RC, READ and memory windows,
 * so that large messages go by READ and forged descriptors are read. Two
 * pairs of workers: pair 0 on hca0, whose windows bound a READ exactly,
 * pair 1 on hca1, without windows (doc/fuzzing.md, "The worker_rdv
 * target"). Each input opens two sessions per pair (through the real
 * nexus handshake, their RC QP ready at both ends: one the operations
 * act on and close, one kept, so that the pair outlives a close) and
 * then runs a sequence of operations: requests, on either session, of
 * any size around the packet size,
 * the threshold and the limits, whose handlers answer at once or later
 * with responses of any size (by READ too); REQ_DESC and RESP_DESC forged
 * with the session's token (sizes from 0 to over the largest message,
 * keys and addresses random, zero, or those of local-only memory, request
 * numbers of the slot or not); polls of one side only (a reader that
 * never says done); time passing past the RTO and the timeouts; the
 * model dropping, duplicating or failing what is sent; sessions closed
 * mid-READ.
 *
 * Then the input is drained (handlers answer, time passes until every
 * request completed) and these must hold, else abort:
 * - each continuation ran exactly once; a response with PMR_OK is the one
 *   its request asked for, whole and intact;
 * - no request number of a server session ran twice (at most once), and
 *   none of a REQ_DESC forged with a key of memory not exposed;
 * - every free session number once on its worker's free stack;
 * - no 64 KiB or largest buffer left out of its pool at either end, no
 *   one-sided operation outstanding, once the servers' kept state timed
 *   out and the sessions closed.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include "pmr_fuzz.h"
#include "pmr_hca.h"
#include "pmr_msgbuf.h"
#include "pmr_nexus.h"
#include "pmr_pkthdr.h"
#include "pmr_rpc.h"
#include "rpc_private.h"
#include "rpc_rc.h"
#include "rpc_rdv.h"
#include "rpc_server.h"
#include "rpc_timers.h"

#define RD_PAIRS 2
#define RD_MAX_MSG (1u << 20)
#define RD_MAX_REQS 64
#define RD_MAX_HELD 32
#define RD_MAX_OPS 256
#define RD_EXEC_LOG 1024
#define RD_MAGIC_REQ 0x51564452u	/* "RDVQ" */
#define RD_MAGIC_RESP 0x50564452u	/* "RDVP" */
#define RD_HDR 12			/* magic, id, response size */

enum { T_ECHO = 1, T_HOLD = 2 };

enum rd_op {
	OP_REQUEST,	/* pair, request size, response size, flags
			 * (1: held, 2: on the kept session) */
	OP_FORGE_REQ,	/* pair, size, key, address, number */
	OP_FORGE_RESP,	/* pair, size, key, address, which request */
	OP_POLL,	/* who, how many */
	OP_TIME,	/* pair and who, which timeout */
	OP_ANSWER,	/* which held request, how */
	OP_FAULT,	/* drops, duplicates, failures */
	OP_CLOSE,	/* 0xa0 | pair: its session closed, opened again */
	OP_MAX
};

struct rd_pair {
	struct pmr_worker *srv;
	struct pmr_worker *cli;
	int s;				/* the client's session, or -1 */
	int keep;			/* a second one, never closed */
};

struct rd_req {
	bool used;
	uint8_t pair;
	int runs;
	uint32_t resp_len;
	enum pmr_status status;
	bool bad;			/* PMR_OK, but not its response */
};

/* A request number run by a handler, of a server session (its number
 * and its token: a session made again may get the same number). */
struct rd_exec {
	const struct pmr_worker *w;
	uint16_t session;
	uint64_t token;
	uint64_t req_num;
};

static struct {
	struct pmr_nexus *nx;
	struct rd_pair p[RD_PAIRS];
	const uint8_t *in;
	size_t in_len, in_pos;
	struct rd_req reqs[RD_MAX_REQS];
	uint32_t nb_reqs;
	struct pmr_req_ref held[RD_MAX_HELD];
	unsigned int nb_held;
	struct rd_exec exec[RD_EXEC_LOG];
	unsigned int nb_exec;
	/* Fresh request numbers of REQ_DESCs forged with a key that
	 * reaches nothing (server worker, client session's token): no
	 * handler may run one. */
	struct rd_exec forged[RD_MAX_OPS];
	unsigned int nb_forged;
	uint8_t pkt[RD_MAX_MSG];
	bool verbose;
} rd;

static uint8_t
in_u8(void)
{
	return rd.in_pos < rd.in_len ? rd.in[rd.in_pos++] : 0;
}

static uint32_t
in_u32(void)
{
	uint32_t v = 0;
	unsigned int i;

	for (i = 0; i < 4; i++)
		v |= (uint32_t)in_u8() << (8 * i);
	return v;
}

static uint32_t
get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Byte i of message id's payload (request or response). */
static uint8_t
pattern(uint32_t id, uint32_t i)
{
	return (uint8_t)(id * 31 + i * 7 + 1);
}

/* A size of class c for pair p's sessions: around the packet size, the
 * threshold (1: every multi-packet message by READ) and the limits. */
static uint32_t
size_of(const struct rd_pair *p, uint8_t c, bool forged)
{
	uint32_t plen = pmr_worker_pkt_size(p->cli);
	const uint32_t sizes[] = { RD_HDR, 100, plen - 1, plen, plen + 1,
		2 * plen + 3, 16 * 1024, 64 * 1024, 64 * 1024 + 1, 300000,
		RD_MAX_MSG - 1, RD_MAX_MSG };
	const uint32_t odd[] = { 0, 1, RD_MAX_MSG + 1, UINT32_MAX };

	if (forged && c >= RTE_DIM(sizes))
		return odd[c % RTE_DIM(odd)];
	return sizes[c % RTE_DIM(sizes)];
}

/* Handlers. */

/* A request number of a server session ran: never twice. */
static void
exec_note(struct pmr_req_ref ref)
{
	const struct pmr_srv_slot *slot = ref.slot;
	unsigned int i;

	for (i = 0; i < rd.nb_exec; i++)
		FUZZ_CHECK(rd.exec[i].w != slot->w ||
			   rd.exec[i].session != slot->session ||
			   rd.exec[i].token != slot->s->token ||
			   rd.exec[i].req_num != slot->req_num);
	for (i = 0; i < rd.nb_forged; i++)
		FUZZ_CHECK(rd.forged[i].w != slot->w ||
			   rd.forged[i].token != slot->s->token ||
			   rd.forged[i].req_num != slot->req_num);
	if (rd.nb_exec < RD_EXEC_LOG)
		rd.exec[rd.nb_exec++] = (struct rd_exec){ .w = slot->w,
			.session = slot->session, .token = slot->s->token,
			.req_num = slot->req_num };
}

/* Answer a request: the response its header asks for, or an error if
 * it is not one of ours (a forged request's bytes). */
static void
answer(struct pmr_req_ref req, bool fail)
{
	const uint8_t *d = pmr_req_data(req);
	uint32_t len = pmr_req_len(req), id, n, i;
	struct pmr_msgbuf *resp;

	if (fail || d == NULL || len < RD_HDR ||
	    get32(d) != RD_MAGIC_REQ) {
		pmr_respond_error(req, PMR_E_REMOTE_ERROR);
		return;
	}
	id = get32(d + 4);
	n = RTE_MAX(get32(d + 8), (uint32_t)RD_HDR);
	n = RTE_MIN(n, RD_MAX_MSG);
	resp = pmr_worker_msgbuf_alloc(pmr_req_worker(req), n);
	if (resp == NULL) {
		pmr_respond_error(req, PMR_E_NOMEM);
		return;
	}
	put32(resp->data, RD_MAGIC_RESP);
	put32(resp->data + 4, id);
	put32(resp->data + 8, n);
	for (i = RD_HDR; i < n; i++)
		resp->data[i] = pattern(id, i);
	pmr_msgbuf_resize(resp, n);
	pmr_respond(req, resp);
}

static void
echo_handler(struct pmr_req_ref req, void *arg)
{
	(void)arg;
	exec_note(req);
	answer(req, false);
}

static void
hold_handler(struct pmr_req_ref req, void *arg)
{
	(void)arg;
	exec_note(req);
	if (rd.nb_held == RD_MAX_HELD) {
		answer(req, false);
		return;
	}
	rd.held[rd.nb_held++] = req;
}

static void
on_resp(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct rd_req *r = &rd.reqs[(uintptr_t)tag];
	const uint8_t *d = resp->data;
	uint32_t id = (uint32_t)(uintptr_t)tag, i;

	(void)w;
	r->runs++;
	r->status = resp->status;
	if (resp->status == PMR_OK) {
		r->bad = resp->len != r->resp_len || get32(d) !=
			RD_MAGIC_RESP || get32(d + 4) != id;
		for (i = RD_HDR; !r->bad && i < resp->len; i++)
			r->bad = d[i] != pattern(id, i);
	}
	pmr_msgbuf_free(resp->req);
}

/* Polls and sessions. */

static void
poll_all(unsigned int n)
{
	unsigned int k;

	while (n-- > 0)
		for (k = 0; k < RD_PAIRS; k++) {
			pmr_worker_poll(rd.p[k].srv);
			pmr_worker_poll(rd.p[k].cli);
		}
}

/*
 * The server end of client session cs of pair p, or -1: of this session,
 * not of an earlier one of the same number whose server end is still
 * closing (a handler holds one of its requests): the same token.
 */
static int
srv_session(const struct rd_pair *p, int cs)
{
	const struct pmr_worker *w = p->srv;
	uint64_t token = p->cli->sessions[cs].token;
	uint32_t sn;

	for (sn = 0; sn < w->max_sessions; sn++)
		if (w->sessions[sn].state == PMR_SESSION_CONNECTED &&
		    !w->sessions[sn].client &&
		    !w->sessions[sn].closing &&
		    w->sessions[sn].remote_session == (uint16_t)cs &&
		    w->sessions[sn].token == token)
			return (int)sn;
	return -1;
}

/* Open a session of pair p in *sp, and wait for its RC QP at both ends. */
static void
session_open(struct rd_pair *p, int *sp)
{
	uint64_t deadline = rte_get_timer_cycles() + 20 * rte_get_timer_hz();
	int ss = -1, s;

	s = pmr_session_create(p->cli, pmr_nexus_uri(rd.nx), p->srv->worker_id,
			NULL, NULL);
	FUZZ_CHECK(s >= 0);
	while (pmr_session_state(p->cli, s) != PMR_SESSION_CONNECTED ||
	       rpc_rc_state(p->cli, s) != RPC_RC_READY ||
	       (ss = srv_session(p, s)) < 0 ||
	       rpc_rc_state(p->srv, ss) != RPC_RC_READY) {
		if (rte_get_timer_cycles() >= deadline)
			fprintf(stderr, "session_open: pair %u session %d: "
				"state %d, rc %d; server session %d, rc %d "
				"(%d)\n", (unsigned int)(p - rd.p), s,
				pmr_session_state(p->cli, s),
				rpc_rc_state(p->cli, s), ss, ss < 0 ? -1 :
				rpc_rc_state(p->srv, ss), ss < 0 ? 0 :
				rpc_rc_error(p->srv, ss));
		FUZZ_CHECK(rte_get_timer_cycles() < deadline);
		FUZZ_CHECK(pmr_session_state(p->cli, s) ==
			PMR_SESSION_CONNECTING ||
			pmr_session_state(p->cli, s) ==
			PMR_SESSION_CONNECTED);
		poll_all(1);
	}
	*sp = s;
}

/*
 * Open pair p's sessions: the one operations use, and the one kept (it
 * holds the pair's RC QP while the other closes; made again if the pair
 * failed since, which resets every session of the pair).
 */
static void
pair_open(struct rd_pair *p)
{
	if (p->keep >= 0 &&
	    pmr_session_state(p->cli, p->keep) != PMR_SESSION_CONNECTED) {
		FUZZ_CHECK(pmr_session_destroy(p->cli, p->keep) == 0);
		p->keep = -1;
	}
	if (p->keep < 0)
		session_open(p, &p->keep);
	if (p->s < 0)
		session_open(p, &p->s);
}

/*
 * w's free sessions: each number once on its free stack, and FREE (a
 * session freed twice, say from a reset nested in its own reset, is
 * there twice, and two later sessions share it).
 */
static void
sessions_check(const struct pmr_worker *w)
{
	static uint8_t seen[UINT16_MAX + 1];
	uint32_t i, sn;

	FUZZ_CHECK(w->nb_sess_free <= w->max_sessions);
	memset(seen, 0, w->max_sessions);
	for (i = 0; i < w->nb_sess_free; i++) {
		sn = w->sess_free[i];
		FUZZ_CHECK(sn < w->max_sessions && !seen[sn]);
		seen[sn] = 1;
		FUZZ_CHECK(w->sessions[sn].state == PMR_SESSION_FREE);
	}
}

/* Whether pair p's session s is gone at both ends. */
static bool
session_gone(const struct rd_pair *p, int s)
{
	uint32_t sn;

	if (pmr_session_state(p->cli, s) != PMR_SESSION_FREE)
		return false;
	for (sn = 0; sn < p->srv->max_sessions; sn++)
		if (p->srv->sessions[sn].state != PMR_SESSION_FREE &&
		    p->srv->sessions[sn].remote_session == (uint16_t)s)
			return false;
	return true;
}

/*
 * Close pair p's session (all: both, and wait for the pair's QPs to go);
 * the server end goes too, once its handlers answered (the held requests
 * are answered: they go nowhere now).
 */
static void
pair_close(struct rd_pair *p, bool all)
{
	uint64_t deadline = rte_get_timer_cycles() + 20 * rte_get_timer_hz();
	int s = p->s;

	if (p->s >= 0)
		FUZZ_CHECK(pmr_session_destroy(p->cli, p->s) == 0);
	p->s = -1;
	if (all && p->keep >= 0) {
		FUZZ_CHECK(pmr_session_destroy(p->cli, p->keep) == 0);
		p->keep = -1;
	}
	while (all ? rpc_rc_nb_qps(p->cli) != 0 ||
		     rpc_rc_nb_qps(p->srv) != 0 ||
		     p->srv->rx_reserved != 0 :
		     s >= 0 && !session_gone(p, s)) {
		FUZZ_CHECK(rte_get_timer_cycles() < deadline);
		while (rd.nb_held > 0)
			answer(rd.held[--rd.nb_held], false);
		poll_all(1);
	}
	sessions_check(p->srv);
	sessions_check(p->cli);
}

/* Time passes for w: its RTO, or its timeouts, client and server. */
static void
time_pass(struct pmr_worker *w, bool timeouts)
{
	/*
	 * Past every RTO (a descriptor's backs off to rto << shift max)
	 * and, with timeouts, every deadline (a large message's has its
	 * timeout_per_mib_ms allowance on top: issue 26).
	 */
	uint64_t now = rte_get_timer_cycles();
	uint64_t big = rpc_timer_allowance(w, RD_MAX_MSG);

	rpc_timers_client(w, now + (timeouts ? w->req_timeout + 2 * big :
			w->rto << RPC_RDV_RTO_SHIFT_MAX) + 1);
	if (timeouts)
		rpc_timers_server(w, now + w->srv_timeout + big + 1);
}

/* Operations. */

static void
op_request(void)
{
	struct rd_pair *p = &rd.p[in_u8() % RD_PAIRS];
	uint8_t sc = in_u8(), rc = in_u8(), flags = in_u8();
	uint32_t len = size_of(p, sc, false), i, id = rd.nb_reqs;
	int sn = flags & 2 ? p->keep : p->s;
	struct pmr_msgbuf *mb;

	if (sn < 0 || id == RD_MAX_REQS)
		return;
	mb = pmr_worker_msgbuf_alloc(p->cli, len);
	if (mb == NULL)
		return;
	rd.reqs[id] = (struct rd_req){ .used = true,
		.pair = (uint8_t)(p - rd.p),
		.resp_len = size_of(p, rc, false) };
	put32(mb->data, RD_MAGIC_REQ);
	put32(mb->data + 4, id);
	put32(mb->data + 8, rd.reqs[id].resp_len);
	for (i = RD_HDR; i < len; i++)
		mb->data[i] = pattern(id, i);
	if (pmr_request(p->cli, sn, flags & 1 ? T_HOLD : T_ECHO, mb,
			on_resp, (void *)(uintptr_t)id) != 0) {
		rd.reqs[id].used = false;
		pmr_msgbuf_free(mb);
		return;
	}
	rd.nb_reqs++;
}

/* A descriptor's key and address, by mode: random, 0, or the sender's
 * own local-only registration (a pool its worker never exposes). */
static void
forge_key(struct pmr_worker *w, uint8_t km, uint8_t am,
		struct pmr_pkt_desc *d)
{
	struct pmr_transport_mkey key = { 0 };
	struct pmr_msgbuf *mb;
	uint32_t r = in_u32();

	mb = pmr_worker_msgbuf_alloc(w, 1);
	if (mb != NULL) {
		pmr_transport_mem_key(w->q, mb->data, 1, &key);
		d->addr = (uintptr_t)mb->data;
		pmr_msgbuf_free(mb);
	}
	switch (km % 3) {
	case 0: d->rkey = r; break;
	case 1: d->rkey = 0; break;
	default: d->rkey = key.rkey; break;
	}
	switch (am % 3) {
	case 0: d->addr = ((uint64_t)in_u32() << 32) | in_u32(); break;
	case 1: d->addr = 0; break;
	default: break;	/* the local-only buffer's */
	}
}

/* Send a descriptor of session sn of w, with its token, from its queue. */
static void
forge_tx(struct pmr_worker *w, int sn, uint8_t type, uint32_t size,
		uint64_t req_num, const struct pmr_pkt_desc *d)
{
	const struct rpc_session *s = &w->sessions[sn];
	uint8_t hdr[PMR_PKTHDR_LEN];
	struct pmr_tx_pkt p = {
		.peer = s->peer,
		.data = rd.pkt,
		.len = PMR_PKT_DESC_LEN,
		.hdr = hdr,
		.hdr_len = PMR_PKTHDR_LEN,
	};
	unsigned int tries;

	if (s->peer == NULL)
		return;
	pmr_pkt_desc_encode(rd.pkt, d);
	pmr_pkthdr_write(hdr, type, type == PMR_PKT_REQ_DESC ? T_ECHO : 0,
			s->remote_session, 0, size, s->token, req_num, 0);
	for (tries = 0; tries < 64; tries++) {
		if (pmr_transport_tx_burst(w->q, &p, 1) == 1)
			return;
		poll_all(1);
	}
}

/* A REQ_DESC from pair p's client: the slot's next number, taken from
 * the client (so that its own requests skip it), or one it never sent. */
static void
op_forge_req(void)
{
	struct rd_pair *p = &rd.p[in_u8() % RD_PAIRS];
	uint8_t sc = in_u8(), km = in_u8(), am = in_u8(), nm = in_u8();
	struct pmr_pkt_desc d = { 0 };
	struct rpc_session *s;
	uint64_t num;
	uint32_t slot;

	if (p->s < 0)
		return;
	s = &p->cli->sessions[p->s];
	slot = (nm >> 2) % p->cli->window;
	forge_key(p->cli, km, am, &d);
	switch (nm & 3) {
	case 0:
	case 1:
		num = s->slot_req_num[slot] & PMR_REQ_NUM_MASK;
		s->slot_req_num[slot] += p->cli->window;
		break;
	case 2:
		num = (s->slot_req_num[slot] - p->cli->window) &
			PMR_REQ_NUM_MASK;	/* its last: a copy */
		break;
	default:
		num = in_u32() & PMR_REQ_NUM_MASK;
		break;
	}
	/*
	 * The client's local-only registration is not exposed: a READ with
	 * its key fails whatever the address (other keys may be ones the
	 * client did expose, its pair region's say: its own memory).
	 */
	if (km % 3 == 2 && (nm & 3) < 2 && rd.nb_forged < RD_MAX_OPS)
		rd.forged[rd.nb_forged++] = (struct rd_exec){ .w = p->srv,
			.token = s->token, .req_num = num };
	forge_tx(p->cli, p->s, PMR_PKT_REQ_DESC, size_of(p, sc, true), num,
			&d);
}

/* A RESP_DESC from pair p's server, for one of the client's requests or
 * another number. */
static void
op_forge_resp(void)
{
	struct rd_pair *p = &rd.p[in_u8() % RD_PAIRS];
	uint8_t sc = in_u8(), km = in_u8(), am = in_u8(), which = in_u8();
	struct pmr_pkt_desc d = { 0 };
	struct rpc_session *cs;
	uint64_t num;
	int ss;

	if (p->s < 0 || (ss = srv_session(p, p->s)) < 0)
		return;
	cs = &p->cli->sessions[p->s];
	forge_key(p->srv, km, am, &d);
	if (which & 0x80)
		num = in_u32() & PMR_REQ_NUM_MASK;
	else	/* the last number the slot's requests used */
		num = (cs->slot_req_num[which % p->cli->window] -
			p->cli->window) & PMR_REQ_NUM_MASK;
	forge_tx(p->srv, ss, PMR_PKT_RESP_DESC, size_of(p, sc, true), num,
			&d);
}

static void
op_poll(void)
{
	uint8_t who = in_u8(), n = (uint8_t)(in_u8() % 16 + 1);
	struct rd_pair *p = &rd.p[(who >> 2) % RD_PAIRS];

	while (n-- > 0) {
		if ((who & 3) != 1)
			pmr_worker_poll(p->srv);
		if ((who & 3) != 2)
			pmr_worker_poll(p->cli);
	}
}

static void
op_time(void)
{
	uint8_t who = in_u8(), which = in_u8();
	struct rd_pair *p = &rd.p[(who >> 1) % RD_PAIRS];

	time_pass(who & 1 ? p->srv : p->cli, which & 1);
}

static void
op_answer(void)
{
	uint8_t which = in_u8(), how = in_u8();
	unsigned int i;

	if (rd.nb_held == 0)
		return;
	i = which % rd.nb_held;
	answer(rd.held[i], how & 1);
	rd.held[i] = rd.held[--rd.nb_held];
}

static void
op_fault(void)
{
	uint8_t a = in_u8(), b = in_u8(), c = in_u8();

	pmr_hca_fault(a % 4, b % 4, c % 2);
}

/* Only if the high nibble is 0xa: making a session and its QP again
 * costs the nexus tens of milliseconds, which random inputs would spend
 * at every eighth byte. */
static void
op_close(void)
{
	uint8_t a = in_u8();
	struct rd_pair *p = &rd.p[a % RD_PAIRS];

	if ((a & 0xf0) != 0xa0)
		return;
	pair_close(p, false);
	pair_open(p);
}

/* The drain and the properties. */

static bool
all_done(void)
{
	uint32_t i;

	for (i = 0; i < rd.nb_reqs; i++)
		if (rd.reqs[i].used && rd.reqs[i].runs == 0)
			return false;
	return true;
}

static void
drain(void)
{
	unsigned int round, k;

	pmr_hca_fault(0, 0, 0);
	while (rd.nb_held > 0)
		answer(rd.held[--rd.nb_held], false);
	for (round = 0; round < 4096 && !all_done(); round++) {
		poll_all(4);
		if (round % 16 == 15)
			for (k = 0; k < RD_PAIRS; k++) {
				time_pass(rd.p[k].cli, round % 256 == 255);
				time_pass(rd.p[k].srv, round % 256 == 255);
			}
		while (rd.nb_held > 0)
			answer(rd.held[--rd.nb_held], false);
	}
	FUZZ_CHECK(all_done());
}

/* Every 64 KiB and largest msgbuf back in its pool, at both ends. */
static bool
pools_back(void)
{
	unsigned int k, c;

	for (k = 0; k < RD_PAIRS; k++)
		for (c = 1; c < 3; c++)
			if (pmr_msgbuf_pool_in_use(pmr_worker_pool(
					rd.p[k].srv, c)) != 0 ||
			    pmr_msgbuf_pool_in_use(pmr_worker_pool(
					rd.p[k].cli, c)) != 0)
				return false;
	return true;
}

static void
check(void)
{
	uint32_t i, ops;
	unsigned int k, c;
	uint32_t ready, draining;

	for (i = 0; i < rd.nb_reqs; i++) {
		const struct rd_req *r = &rd.reqs[i];

		if (!r->used)
			continue;
		FUZZ_CHECK(r->runs == 1);
		FUZZ_CHECK(r->status != PMR_OK || !r->bad);
		if (rd.verbose)
			printf("request %u (pair %u): status %d\n", i, r->pair,
				r->status);
	}
	/* Kept responses and offers go at the servers' state timeout. */
	for (k = 0; k < RD_PAIRS; k++) {
		time_pass(rd.p[k].srv, true);
		time_pass(rd.p[k].cli, true);
		pair_close(&rd.p[k], true);
	}
	/* What the drivers still send (kept responses going back) goes. */
	for (k = 0; k < 1000 && !pools_back(); k++)
		poll_all(1);
	for (k = 0; k < RD_PAIRS; k++) {
		struct pmr_worker *w[2] = { rd.p[k].srv, rd.p[k].cli };
		unsigned int e;

		for (e = 0; e < 2; e++) {
			for (c = 1; c < 3; c++) {
				unsigned int n = pmr_msgbuf_pool_in_use(
					pmr_worker_pool(w[e], c));

				if (n != 0 || rd.verbose) {
					struct pmr_worker_stats st;

					pmr_worker_stats_get(w[e], &st);
					fprintf(stderr, "pair %u %s: %u msgbufs "
						"of class %u out; descs %" PRIu64
						"/%" PRIu64 ", reads %" PRIu64
						" (%" PRIu64 " failed), offers %"
						PRIu64 " (%" PRIu64 " taken "
						"back), fallbacks %" PRIu64 "\n",
						k, e == 0 ? "server" : "client",
						n, c, st.rdv_descs_sent,
						st.rdv_descs_received,
						st.rdv_reads, st.rdv_read_errors,
						st.rdv_offers, st.rdv_reclaimed,
						st.rdv_fallbacks);
				}
				FUZZ_CHECK(n == 0);
			}
			rpc_rc_counts(w[e], &ready, &draining, &ops);
			FUZZ_CHECK(ops == 0);
			FUZZ_CHECK(ready + draining == 0);
		}
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

static void
teardown(void)
{
	unsigned int k;

	for (k = 0; k < RD_PAIRS; k++) {
		pair_close(&rd.p[k], true);
		pmr_worker_destroy(rd.p[k].cli);
		pmr_worker_destroy(rd.p[k].srv);
	}
	pmr_nexus_destroy(rd.nx);
	rte_eal_cleanup();
}

static struct pmr_worker *
worker_new(uint16_t id, const char *dev)
{
	char args[64];
	struct pmr_worker_conf conf = {
		.worker_id = id,
		.driver = "verbs",
		.devargs = args,
		.max_sessions = 8,
		.max_requests = 2 * RD_MAX_REQS,
		.max_msg_size = RD_MAX_MSG,
		.nb_msgbufs = 512,
		.nb_mid_msgbufs = 16,
		.nb_large_msgbufs = 8,
		.rdv_threshold = 1,	/* every multi-packet message by READ */
		/* Time passes only when an input says so (OP_TIME). */
		.rto_us = 1000000,
		.req_timeout_ms = 100000,
		.srv_state_timeout_ms = 100000,
	};
	struct pmr_worker *w;

	snprintf(args, sizeof(args), "dev=%s", dev);
	w = pmr_worker_create(rd.nx, &conf);
	if (w == NULL) {
		fprintf(stderr, "fuzz_worker_rdv: worker %u: %s\n", id,
			rte_strerror(rte_errno));
		abort();
	}
	return w;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char *eal_args[] = {
		"fuzz_worker_rdv", "-l", "0", "--no-pci", "--no-huge", "-m",
		"512", "--no-shconf", "--no-telemetry", "--log-level=*:error",
		NULL,
	};
	struct pmr_nexus_conf nconf = {
		.connect_timeout_ms = 5000,
		.poll_interval_ms = 1,
		.heartbeat_interval_ms = 1000,
		/* Never in a run: the nexus talks to itself. */
		.peer_timeout_ms = 24 * 3600 * 1000,
	};
	struct pmr_hca_dev_config devs[2];
	char err[128];
	unsigned int k;

	(void)argc;
	(void)argv;
	rd.verbose = getenv("PMR_FUZZ_VERBOSE") != NULL;
	/* hca0 with windows, hca1 without (the other way of exposure). */
	FUZZ_CHECK(pmr_hca_config_parse("dev=hca0,mw=1 dev=hca1", devs, 2,
			err, sizeof(err)) == 2);
	FUZZ_CHECK(pmr_hca_configure(devs, 2) == 0);
	if (rte_eal_init((int)RTE_DIM(eal_args) - 1, eal_args) < 0) {
		fprintf(stderr, "fuzz_worker_rdv: EAL: %s\n",
			rte_strerror(rte_errno));
		abort();
	}
	rd.nx = pmr_nexus_create("127.0.0.1:0", &nconf);
	FUZZ_CHECK(rd.nx != NULL);
	FUZZ_CHECK(pmr_nexus_register_handler(rd.nx, T_ECHO, echo_handler,
			NULL) == 0);
	FUZZ_CHECK(pmr_nexus_register_handler(rd.nx, T_HOLD, hold_handler,
			NULL) == 0);
	for (k = 0; k < RD_PAIRS; k++) {
		rd.p[k].srv = worker_new((uint16_t)k, k == 0 ? "hca0" : "hca1");
		rd.p[k].cli = worker_new((uint16_t)(10 + k),
				k == 0 ? "hca0" : "hca1");
		rd.p[k].s = -1;
		rd.p[k].keep = -1;
	}
	atexit(teardown);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int nb_ops = 0, k;

	rd.in = data;
	rd.in_len = size;
	rd.in_pos = 0;
	rd.nb_reqs = 0;
	rd.nb_held = 0;
	rd.nb_exec = 0;
	rd.nb_forged = 0;
	memset(rd.reqs, 0, sizeof(rd.reqs));
	/* Fresh sessions and QPs: an input does the same alone as after
	 * any other. */
	for (k = 0; k < RD_PAIRS; k++)
		pair_open(&rd.p[k]);
	while (rd.in_pos < rd.in_len && nb_ops++ < RD_MAX_OPS) {
		switch ((enum rd_op)(in_u8() % OP_MAX)) {
		case OP_REQUEST: op_request(); break;
		case OP_FORGE_REQ: op_forge_req(); break;
		case OP_FORGE_RESP: op_forge_resp(); break;
		case OP_POLL: op_poll(); break;
		case OP_TIME: op_time(); break;
		case OP_ANSWER: op_answer(); break;
		case OP_FAULT: op_fault(); break;
		case OP_CLOSE: op_close(); break;
		default: break;
		}
	}
	drain();
	check();
	return 0;
}
