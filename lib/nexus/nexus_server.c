/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The server side of session handshakes (protocol in pmr_nexus_worker.h),
 * on the nexus thread or under the nexus lock.
 *
 * A CONNECT_REQ without a valid cookie gets a COOKIE and nothing else (no
 * state, no worker message, nothing larger than the request). One with a
 * valid cookie is held to the per-source cap (nexus_source.c), then gets
 * a record keyed by (source address, handshake id), pending at the worker
 * asked. While the worker has not answered, retransmissions are ignored;
 * once answered, they get the same reply again, until the record expires
 * (NEXUS_ANSWER_LINGER_TIMEOUTS connect timeouts), except a refusal for
 * want of room, which is forgotten at once so that the client's next try
 * is weighed again.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_jhash.h>

#include "nexus_private.h"

static unsigned int
shs_bucket(const struct pmr_nexus *nx, const struct sockaddr_in *src,
		uint64_t hs_id)
{
	return rte_jhash_3words((uint32_t)hs_id, (uint32_t)(hs_id >> 32),
			src->sin_addr.s_addr ^ src->sin_port, nx->shs_seed) &
		(NEXUS_SHS_BUCKETS - 1);
}

static struct nexus_shs *
shs_find(struct pmr_nexus *nx, const struct sockaddr_in *src, uint64_t hs_id)
{
	struct nexus_shs *h;

	LIST_FOREACH(h, &nx->shs_hash[shs_bucket(nx, src, hs_id)], hash)
		if (h->hs_id == hs_id && nexus_same_addr(&h->src, src))
			return h;
	return NULL;
}

/* Free an answered record, or one in no list yet. */
static void
shs_free(struct pmr_nexus *nx, struct nexus_shs *h)
{
	if (h->src_counted)
		nexus_src_put(nx, &h->src);
	LIST_REMOVE(h, hash);
	if (h->answered)
		TAILQ_REMOVE(&nx->answered, h, next);
	nx->nb_shs--;
	free(h);
}

/* A new record, in the hash but in no list; NULL if none can be had. */
static struct nexus_shs *
shs_new(struct pmr_nexus *nx, const struct sockaddr_in *src,
		const struct nexus_wire_msg *m)
{
	struct nexus_shs *h;

	if (nx->nb_shs >= NEXUS_SHS_MAX) {
		h = TAILQ_FIRST(&nx->answered);
		if (h == NULL)
			return NULL;
		shs_free(nx, h);
	}
	h = calloc(1, sizeof(*h));
	if (h == NULL)
		return NULL;
	h->hs_id = m->hs_id;
	h->src = *src;
	h->client_worker = m->req.client_worker;
	h->client_session = m->req.client_session;
	h->client_boot = m->req.boot_id;
	h->credits = m->req.credits;
	h->pkt_size = m->req.pkt_size;
	memcpy(h->client_key, m->req.secret, sizeof(h->client_key));
	LIST_INSERT_HEAD(&nx->shs_hash[shs_bucket(nx, src, m->hs_id)], h,
			hash);
	nx->nb_shs++;
	return h;
}

/*
 * Record the reply of a handshake (not pending anywhere) and send it; a
 * record not to linger is sent and freed.
 */
static void
shs_answer(struct pmr_nexus *nx, struct nexus_shs *h,
		const struct nexus_wire_msg *reply, bool linger)
{
	int len;

	/* Not pending any more (an accepted session counts on its own). */
	if (h->src_counted) {
		nexus_src_put(nx, &h->src);
		h->src_counted = false;
	}
	len = nexus_wire_encode(reply, h->reply, sizeof(h->reply));
	if (!linger) {
		if (len > 0)
			nexus_udp_send(nx, &h->src, h->reply, (size_t)len);
		shs_free(nx, h);
		return;
	}
	h->reply_len = len > 0 ? (uint16_t)len : 0;
	h->answered = true;
	h->w = NULL;
	h->peer = NULL;
	h->expire_ms = nexus_now_ms() + (uint64_t)nx->conf.connect_timeout_ms *
		NEXUS_ANSWER_LINGER_TIMEOUTS;
	TAILQ_INSERT_TAIL(&nx->answered, h, next);
	if (h->reply_len > 0)
		nexus_udp_send(nx, &h->src, h->reply, h->reply_len);
}

static void
refuse_msg(struct nexus_wire_msg *reply, uint64_t hs_id,
		uint16_t client_worker, uint16_t client_session,
		uint16_t server_worker, uint16_t status)
{
	*reply = (struct nexus_wire_msg){
		.type = NEXUS_WIRE_REFUSE,
		.hs_id = hs_id,
		.refuse = {
			.client_worker = client_worker,
			.client_session = client_session,
			.server_worker = server_worker,
			.status = status,
		},
	};
}

static void
shs_refuse(struct pmr_nexus *nx, struct nexus_shs *h, uint16_t server_worker,
		uint16_t status)
{
	struct nexus_wire_msg reply;

	refuse_msg(&reply, h->hs_id, h->client_worker, h->client_session,
			server_worker, status);
	nx->stats.sessions_refused++;
	/* A want of room may pass: the client's next try is weighed anew. */
	shs_answer(nx, h, &reply, status != PMR_SM_E_NO_RESOURCES);
}

/* Refuse a request for want of room, keeping nothing. */
static void
refuse_stateless(struct pmr_nexus *nx, const struct sockaddr_in *src,
		const struct nexus_wire_msg *m)
{
	struct nexus_wire_msg reply;

	refuse_msg(&reply, m->hs_id, m->req.client_worker,
			m->req.client_session, m->req.server_worker,
			PMR_SM_E_NO_RESOURCES);
	nx->stats.sessions_refused++;
	nexus_udp_send_msg(nx, src, &reply);
}

/* The stateless answer to a request without a good cookie. */
static void
send_cookie(struct pmr_nexus *nx, const struct sockaddr_in *src,
		const struct nexus_wire_msg *m)
{
	struct nexus_wire_msg reply = {
		.type = NEXUS_WIRE_COOKIE,
		.hs_id = m->hs_id,
		.cookie = {
			.client_worker = m->req.client_worker,
			.client_session = m->req.client_session,
			.cookie = nexus_cookie_make(nx, src, m->hs_id),
		},
	};

	if (nexus_udp_send_msg(nx, src, &reply) == 0)
		nx->stats.cookies_sent++;
}

void
nexus_server_rx_connect_req(struct pmr_nexus *nx, const struct sockaddr_in *src,
		const struct nexus_wire_msg *m)
{
	const struct nexus_wire_connect_req *r = &m->req;
	struct pmr_sm_msg out;
	struct nexus_worker *w;
	struct nexus_shs *h;

	nx->stats.rx_msgs++;
	/* Before anything else: does the sender receive at src? */
	if (!nexus_cookie_valid(nx, src, m->hs_id, r->cookie)) {
		send_cookie(nx, src, m);
		return;
	}
	h = shs_find(nx, src, m->hs_id);
	if (h != NULL) {
		/* A retransmission: same answer, or wait for the worker. */
		if (h->answered && h->reply_len > 0)
			nexus_udp_send(nx, src, h->reply, h->reply_len);
		return;
	}
	if (nexus_src_count(nx, src) >= nx->conf.max_sessions_per_source) {
		nx->stats.refused_per_source++;
		refuse_stateless(nx, src, m);
		return;
	}
	h = shs_new(nx, src, m);
	if (h == NULL) {
		NX_LOG(WARNING, "handshake table full, refusing");
		refuse_stateless(nx, src, m);
		return;
	}
	if (nexus_src_take(nx, src) != 0) {
		shs_free(nx, h);
		refuse_stateless(nx, src, m);
		return;
	}
	h->src_counted = true;
	w = nexus_worker_find(nx, r->server_worker);
	if (w == NULL) {
		shs_refuse(nx, h, r->server_worker, PMR_SM_E_NO_WORKER);
		return;
	}
	if (strcmp(r->driver, w->driver) != 0) {
		NX_LOG(INFO, "worker %u: refused a client of driver family "
			"\"%s\", not \"%s\"", w->id, r->driver, w->driver);
		shs_refuse(nx, h, w->id, PMR_SM_E_FAMILY);
		return;
	}
	if (r->addr.len != w->q->caps.addr_len) {
		NX_LOG(INFO, "worker %u: refused a client address of %u "
			"bytes", w->id, r->addr.len);
		shs_refuse(nx, h, w->id, PMR_SM_E_BAD_REQUEST);
		return;
	}
	h->peer = pmr_transport_peer_create(w->q, &r->addr);
	if (h->peer == NULL) {
		shs_refuse(nx, h, w->id, PMR_SM_E_BAD_REQUEST);
		return;
	}
	nexus_random(&h->token, sizeof(h->token));
	h->cookie = ++nx->next_cookie;
	h->w = w;
	out = (struct pmr_sm_msg){
		.type = PMR_SM_CONNECT_IN,
		.status = PMR_SM_OK,
		.remote_session = r->client_session,
		.remote_worker = r->client_worker,
		.credits = r->credits,
		.pkt_size = r->pkt_size,
		.token = h->token,
		.cookie = h->cookie,
		.hs_id = h->hs_id,
		.peer = h->peer,
	};
	/* Who asks, for pmr_session_info_get() at the server. */
	nexus_uri_format(src, out.uri);
	if (nexus_worker_try_send(w, &out) != 0) {
		pmr_transport_peer_destroy(w->q, h->peer);
		shs_refuse(nx, h, w->id, PMR_SM_E_NO_RESOURCES);
		return;
	}
	TAILQ_INSERT_TAIL(&w->pending, h, next);
}

static struct nexus_shs *
pending_take(struct nexus_worker *w, uint64_t cookie)
{
	struct nexus_shs *h;

	TAILQ_FOREACH(h, &w->pending, next)
		if (h->cookie == cookie) {
			TAILQ_REMOVE(&w->pending, h, next);
			return h;
		}
	NX_LOG(WARNING, "worker %u: answer to unknown handshake %" PRIu64,
		w->id, cookie);
	return NULL;
}

void
nexus_server_accept(struct pmr_nexus *nx, struct nexus_worker *w,
		const struct pmr_sm_msg *msg)
{
	struct nexus_wire_msg reply;
	struct nexus_session *s;
	struct nexus_shs *h;
	uint16_t credits;

	h = pending_take(w, msg->cookie);
	if (h == NULL)
		return;
	if (msg->pkt_size < NEXUS_WIRE_PKT_SIZE_MIN ||
	    msg->pkt_size > NEXUS_WIRE_PKT_SIZE_MAX) {
		/* A worker bug: as below, the peer is the worker's. */
		NX_LOG(ERR, "worker %u: ACCEPT of session %u with a packet "
			"size of %u", w->id, msg->local_session,
			msg->pkt_size);
		shs_refuse(nx, h, w->id, PMR_SM_E_NO_RESOURCES);
		return;
	}
	/*
	 * What the worker granted, never more than asked; 0 from a worker
	 * that does not say: it reserved what was asked.
	 */
	credits = msg->credits != 0 ? RTE_MIN(msg->credits, h->credits) :
		h->credits;
	s = NULL;
	if (nexus_session_get(w, msg->local_session) != NULL)
		NX_LOG(ERR, "worker %u: ACCEPT as session %u in use",
			w->id, msg->local_session);
	else
		s = calloc(1, sizeof(*s));
	if (s != NULL) {
		s->state = NEXUS_S_UP;
		s->w = w;
		s->local_session = msg->local_session;
		s->remote_worker = h->client_worker;
		s->remote_session = h->client_session;
		s->token = h->token;
		s->hs_id = h->hs_id;
		s->remote = h->src;
		s->remote_boot = h->client_boot;
		s->credits = credits;
		memcpy(s->tx_key, h->client_key, sizeof(s->tx_key));
		s->peer = h->peer;
		if (nexus_session_put(w, s) != 0) {
			free(s);
			s = NULL;
		}
	}
	if (s == NULL) {
		/*
		 * A worker bug or no memory: the client is refused, and the
		 * peer, which the worker holds, is left alone (and lost).
		 */
		NX_LOG(ERR, "worker %u: cannot record session %u",
			w->id, msg->local_session);
		shs_refuse(nx, h, w->id, PMR_SM_E_NO_RESOURCES);
		return;
	}
	reply = (struct nexus_wire_msg){
		.type = NEXUS_WIRE_ACCEPT,
		.hs_id = h->hs_id,
		.accept = {
			.client_worker = h->client_worker,
			.client_session = h->client_session,
			.server_worker = w->id,
			.server_session = msg->local_session,
			.credits = credits,
			.pkt_size = msg->pkt_size,
			.boot_id = nx->boot_id,
			.addr = w->addr,
		},
	};
	nexus_secret_issue(nx, &h->src, s->rx_key);
	memcpy(reply.accept.secret, s->rx_key, sizeof(reply.accept.secret));
	/* The pending handshake's count goes to the session. */
	h->src_counted = false;
	s->src_counted = true;
	nx->stats.sessions_accepted++;
	/* Cookie-checked and accepted: proof of the client's boot id. */
	nexus_remote_link(nx, s);
	shs_answer(nx, h, &reply, true);
}

void
nexus_server_refuse(struct pmr_nexus *nx, struct nexus_worker *w,
		const struct pmr_sm_msg *msg)
{
	struct nexus_shs *h;
	uint16_t status = msg->status;

	h = pending_take(w, msg->cookie);
	if (h == NULL)
		return;
	pmr_transport_peer_destroy(w->q, h->peer);
	if (!nexus_wire_refuse_status_valid(status))
		status = PMR_SM_E_NO_RESOURCES;
	shs_refuse(nx, h, w->id, status);
}

/* Forget the answered records that expired. */
void
nexus_server_timers(struct pmr_nexus *nx, uint64_t now)
{
	struct nexus_shs *h;

	while ((h = TAILQ_FIRST(&nx->answered)) != NULL && h->expire_ms <= now)
		shs_free(nx, h);
}

/* A worker is detaching: refuse what it has not answered. */
void
nexus_server_worker_gone(struct pmr_nexus *nx, struct nexus_worker *w)
{
	struct nexus_shs *h;

	while ((h = TAILQ_FIRST(&w->pending)) != NULL) {
		TAILQ_REMOVE(&w->pending, h, next);
		pmr_transport_peer_destroy(w->q, h->peer);
		shs_refuse(nx, h, w->id, PMR_SM_E_NO_WORKER);
	}
}

/* Free every record (no worker is attached any more). */
void
nexus_session_free_all(struct pmr_nexus *nx)
{
	struct nexus_shs *h;
	unsigned int i;

	while ((h = TAILQ_FIRST(&nx->answered)) != NULL)
		shs_free(nx, h);
	for (i = 0; i < NEXUS_SHS_BUCKETS; i++)
		while ((h = LIST_FIRST(&nx->shs_hash[i])) != NULL)
			shs_free(nx, h);
}
