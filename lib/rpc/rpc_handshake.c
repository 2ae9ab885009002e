/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The handshake's data-path half (issue 10): a server session sends its
 * token to the client's claimed data address in TOKEN packets, never in a
 * nexus datagram, so that only a client that receives there can use the
 * session; the client takes the token only with its handshake id, from
 * the server's address, and is up once it has both the nexus's CONNECTED
 * and the token. The timers resend copies and give up on a token that
 * never comes.
 */

#include <rte_cycles.h>

#include "rpc_private.h"
#include "rpc_session.h"
#include "rpc_tx.h"

/* Put s on the list of handshakes with a deadline (hs_deadline). */
static void
hs_pending_add(struct pmr_worker *w, struct rpc_session *s)
{
	if (TAILQ_EMPTY(&w->hs_pending) || s->hs_deadline < w->hs_next)
		w->hs_next = s->hs_deadline;
	if (!s->hs_pending)
		TAILQ_INSERT_TAIL(&w->hs_pending, s, hs_next);
	s->hs_pending = true;
	rpc_session_rx_max_update(s);
}

/* Take s off it: the handshake is over, one way or the other. */
void
rpc_hs_stop(struct pmr_worker *w, struct rpc_session *s)
{
	if (s->hs_pending)
		TAILQ_REMOVE(&w->hs_pending, s, hs_next);
	s->hs_pending = false;
	rpc_session_rx_max_update(s);
	s->token_left = 0;
}

/*
 * Send server session sn's token to the client in a TOKEN packet, if a
 * copy is due (hs_deadline); schedule the next one, rto later than the
 * last gap, or stop after RPC_TOKEN_COPIES.
 */
static void
token_send(struct pmr_worker *w, uint16_t sn)
{
	struct rpc_session *s = &w->sessions[sn];
	struct pmr_pkt_token t = {
		.hs_id = s->hs_id,
		.server_session = sn,
		.credits = s->rx_reserve,
	};
	struct pmr_msgbuf *mb;
	unsigned int sent;

	if (s->peer == NULL || s->closing || s->token_left == 0) {
		rpc_hs_stop(w, s);
		return;
	}
	mb = rpc_msgbuf_alloc(w, PMR_PKT_TOKEN_LEN);
	if (mb != NULL) {
		/* One packet, in place, the msgbuf freed once sent. */
		pmr_pkt_token_encode(mb->data, &t);
		rpc_tx_inplace(w, s, mb, PMR_PKT_TOKEN, 0, 0, 0, true);
		w->stats.tokens_sent++;
		s->token_left--;
	}
	/* No msgbuf: try again at the next deadline. */
	if (s->token_left == 0) {
		rpc_hs_stop(w, s);
		return;
	}
	sent = RPC_TOKEN_COPIES - s->token_left;
	s->hs_deadline += w->rto << (sent != 0 ? sent - 1 : 0);
	hs_pending_add(w, s);
}

/*
 * Server session sn was just accepted: the token goes to the client now,
 * and copies follow until its first valid packet.
 */
void
rpc_hs_server_start(struct pmr_worker *w, uint16_t sn)
{
	struct rpc_session *s = &w->sessions[sn];

	s->token_left = RPC_TOKEN_COPIES;
	s->hs_deadline = rte_get_timer_cycles();
	token_send(w, sn);
}

/*
 * Client session s has the nexus's CONNECTED but not the token yet: it has
 * a request timeout to arrive (server copies included).
 */
void
rpc_hs_client_wait(struct pmr_worker *w, struct rpc_session *s)
{
	s->hs_deadline = rte_get_timer_cycles() + w->req_timeout;
	hs_pending_add(w, s);
}

/*
 * A TOKEN packet (header decoded, h->dest_session in range, not checked
 * further). Taken only by a client session of ours still connecting whose
 * handshake id it carries and, once the nexus has answered, from the
 * server's address naming the server's session; a copy of the token
 * taken already is harmless. Everything else is dropped and counted.
 * The caller releases the packet.
 */
void
rpc_hs_rx_token(struct pmr_worker *w, const struct pmr_pkthdr *h,
		const struct pmr_rx_pkt *pkt)
{
	uint16_t sn = h->dest_session;
	struct rpc_session *s = &w->sessions[sn];
	struct pmr_pkt_token t;
	bool same;

	if (!s->client || s->closing ||
	    pmr_pkt_token_decode(pkt->data + PMR_PKTHDR_LEN,
			pkt->len - PMR_PKTHDR_LEN, &t) != 0 ||
	    t.hs_id != s->hs_id)
		goto forged;
	if (s->peer != NULL && (pkt->src != s->peer_src ||
				t.server_session != s->remote_session))
		goto forged;
	same = s->has_token && h->token == s->token &&
		pkt->src == s->token_src && t.server_session == s->token_session;
	if (s->state == PMR_SESSION_CONNECTED) {
		if (!same)
			goto forged;
		/* A later copy: the server has not heard from us yet. */
		w->stats.tokens_received++;
		return;
	}
	if (s->state != PMR_SESSION_CONNECTING || (s->has_token && !same))
		goto forged;
	w->stats.tokens_received++;
	s->token = h->token;
	s->token_src = pkt->src;
	s->token_session = t.server_session;
	s->granted = t.credits;
	s->has_token = true;
	if (s->peer != NULL)
		rpc_session_up(w, sn);
	return;
forged:
	rpc_log_forged(w, RPC_DROP_TOKEN_PKT, sn, pkt->src);
	rpc_count_drop(w, RPC_DROP_TOKEN_PKT);
}

/* Handshakes due: TOKEN copies to send, tokens that never came. */
void
rpc_hs_timers(struct pmr_worker *w)
{
	uint64_t now = rte_get_timer_cycles();
	struct rpc_session *s, *next;
	uint64_t first = UINT64_MAX;
	uint16_t sn;

	if (now < w->hs_next)
		return;
	for (s = TAILQ_FIRST(&w->hs_pending); s != NULL; s = next) {
		next = TAILQ_NEXT(s, hs_next);
		if (now < s->hs_deadline)
			continue;
		sn = (uint16_t)(s - w->sessions);
		if (!s->client) {
			/* Leaves s on the list with a later deadline, or not. */
			token_send(w, sn);
			continue;
		}
		/* The nexus answered, the data path did not. */
		w->stats.connects_unreachable++;
		RPC_LOG(NOTICE, "worker %u: session %u: no token came on the "
			"data path: unreachable", w->worker_id, sn);
		rpc_session_connect_fail(w, sn, true, -ENETUNREACH);
		/* The callback may have closed others: from the top again. */
		next = TAILQ_FIRST(&w->hs_pending);
	}
	TAILQ_FOREACH(s, &w->hs_pending, hs_next)
		first = RTE_MIN(first, s->hs_deadline);
	w->hs_next = first;
}
