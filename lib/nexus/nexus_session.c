/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Sessions of the workers, the client side of handshakes, and teardown
 * (protocol in pmr_nexus_worker.h), on the nexus thread or under the
 * nexus lock.
 *
 * Client side: a worker's CONNECT becomes a CONNECTING session, resent
 * every connect_retry_ms until an ACCEPT or REFUSE with its handshake id
 * arrives or connect_timeout_ms passes. A COOKIE from the server is put
 * in the request, which goes again at once. A refusal for want of room
 * (PMR_SM_E_NO_RESOURCES) is not final: the request goes again after a
 * backoff (connect_retry_ms, doubling up to NEXUS_REFUSED_BACKOFF_MAX_MS)
 * until the connect timeout, which then fails with that status.
 *
 * Server side: nexus_server.c.
 *
 * An ACCEPT for a handshake the client no longer knows (timed out, given
 * up by the worker) is answered with one DISCONNECT so that the server's
 * session does not linger; duplicates of handled ACCEPTs are ignored.
 *
 * A session that is UP is linked to its remote nexus (nexus_heartbeat.c),
 * which may reset it when that nexus dies; it is unlinked when it leaves
 * that state.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_tailq.h>

#include "nexus_private.h"

/* Session table of a worker. */

struct nexus_session *
nexus_session_get(struct nexus_worker *w, uint16_t local_session)
{
	struct nexus_session **page;

	page = w->sessions[local_session >> NEXUS_SESSION_PAGE_BITS];
	if (page == NULL)
		return NULL;
	return page[local_session & (NEXUS_SESSION_PAGE_SIZE - 1)];
}

int
nexus_session_put(struct nexus_worker *w, struct nexus_session *s)
{
	struct nexus_session ***page;

	page = &w->sessions[s->local_session >> NEXUS_SESSION_PAGE_BITS];
	if (*page == NULL) {
		*page = calloc(NEXUS_SESSION_PAGE_SIZE, sizeof(**page));
		if (*page == NULL)
			return -ENOMEM;
	}
	(*page)[s->local_session & (NEXUS_SESSION_PAGE_SIZE - 1)] = s;
	w->nb_sessions++;
	return 0;
}

/* Forget a session (its peer is the caller's business). */
static void
session_free(struct pmr_nexus *nx, struct nexus_session *s)
{
	struct nexus_worker *w = s->w;
	struct nexus_session **page;

	page = w->sessions[s->local_session >> NEXUS_SESSION_PAGE_BITS];
	if (page != NULL &&
	    page[s->local_session & (NEXUS_SESSION_PAGE_SIZE - 1)] == s) {
		page[s->local_session & (NEXUS_SESSION_PAGE_SIZE - 1)] = NULL;
		w->nb_sessions--;
	}
	if (s->rem != NULL)
		nexus_remote_unlink(nx, s);
	nexus_rc_session_down(nx, s);
	if (s->state == NEXUS_S_CONNECTING)
		TAILQ_REMOVE(&nx->connecting, s, next);
	if (s->src_counted)
		nexus_src_put(nx, &s->remote);
	free(s);
}

bool
nexus_same_addr(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
	return a->sin_addr.s_addr == b->sin_addr.s_addr &&
		a->sin_port == b->sin_port;
}

static void
send_disconnect(struct pmr_nexus *nx, const struct sockaddr_in *to,
		uint64_t hs_id, uint16_t dst_worker, uint16_t dst_session,
		uint16_t src_worker, uint16_t src_session, unsigned int copies)
{
	struct nexus_wire_msg m = {
		.type = NEXUS_WIRE_DISCONNECT,
		.hs_id = hs_id,
		.disc = {
			.dst_worker = dst_worker,
			.dst_session = dst_session,
			.src_worker = src_worker,
			.src_session = src_session,
		},
	};

	while (copies-- > 0)
		nexus_udp_send_msg(nx, to, &m);
}

static void
session_send_disconnect(struct pmr_nexus *nx, const struct nexus_session *s)
{
	send_disconnect(nx, &s->remote, s->hs_id, s->remote_worker,
			s->remote_session, s->w->id, s->local_session,
			NEXUS_DISCONNECT_COPIES);
}

/* Client side. */

static int
client_send_req(struct pmr_nexus *nx, const struct nexus_session *s)
{
	struct nexus_wire_msg m = {
		.type = NEXUS_WIRE_CONNECT_REQ,
		.hs_id = s->hs_id,
		.req = {
			.client_worker = s->w->id,
			.client_session = s->local_session,
			.server_worker = s->remote_worker,
			.credits = s->credits,
			.pkt_size = s->pkt_size,
			.boot_id = nx->boot_id,
			.cookie = s->cookie,
			.addr = s->w->addr,
		},
	};

	memcpy(m.req.driver, s->w->driver, sizeof(m.req.driver));
	memcpy(m.req.secret, s->rx_key, sizeof(m.req.secret));
	return nexus_udp_send_msg(nx, &s->remote, &m);
}

static void
client_fail(struct pmr_nexus *nx, struct nexus_worker *w,
		uint16_t local_session, uint16_t status)
{
	struct pmr_sm_msg out = {
		.type = PMR_SM_CONNECT_FAILED,
		.status = status,
		.local_session = local_session,
	};

	nx->stats.sessions_failed++;
	nexus_worker_send(w, &out);
}

static void
client_connect(struct pmr_nexus *nx, struct nexus_worker *w,
		const struct pmr_sm_msg *msg)
{
	struct nexus_session *s;
	uint64_t now;
	int ret;

	if (nexus_session_get(w, msg->local_session) != NULL) {
		NX_LOG(ERR, "worker %u: CONNECT for session %u in use",
			w->id, msg->local_session);
		client_fail(nx, w, msg->local_session, PMR_SM_E_BAD_REQUEST);
		return;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		client_fail(nx, w, msg->local_session, PMR_SM_E_NO_RESOURCES);
		return;
	}
	if (memchr(msg->uri, '\0', sizeof(msg->uri)) == NULL ||
	    nexus_uri_resolve(msg->uri, &s->remote, false) != 0) {
		NX_LOG(INFO, "worker %u session %u: cannot resolve \"%.*s\"",
			w->id, msg->local_session, (int)sizeof(msg->uri),
			msg->uri);
		free(s);
		client_fail(nx, w, msg->local_session, PMR_SM_E_UNREACHABLE);
		return;
	}
	if (msg->credits == 0 || msg->pkt_size < NEXUS_WIRE_PKT_SIZE_MIN ||
	    msg->pkt_size > NEXUS_WIRE_PKT_SIZE_MAX) {
		NX_LOG(ERR, "worker %u: CONNECT for session %u without "
			"credits or with a packet size of %u", w->id,
			msg->local_session, msg->pkt_size);
		free(s);
		client_fail(nx, w, msg->local_session, PMR_SM_E_BAD_REQUEST);
		return;
	}
	now = nexus_now_ms();
	s->state = NEXUS_S_CONNECTING;
	s->is_client = true;
	s->w = w;
	s->local_session = msg->local_session;
	s->remote_worker = msg->remote_worker;
	s->credits = msg->credits;
	s->pkt_size = msg->pkt_size;
	/* The worker's id, which its TOKEN check expects; else our own. */
	s->hs_id = msg->hs_id;
	while (s->hs_id == 0)
		nexus_random(&s->hs_id, sizeof(s->hs_id));
	/* The heartbeat key we issue the server, kept for its replies. */
	nexus_secret_issue(nx, &s->remote, s->rx_key);
	s->next_retry_ms = now + nx->conf.connect_retry_ms;
	s->deadline_ms = now + nx->conf.connect_timeout_ms;

	ret = client_send_req(nx, s);
	/* A full socket buffer is like a lost datagram: retry later. */
	if (ret < 0 && ret != -EAGAIN && ret != -EWOULDBLOCK &&
	    ret != -ENOBUFS) {
		free(s);
		client_fail(nx, w, msg->local_session, PMR_SM_E_UNREACHABLE);
		return;
	}
	if (nexus_session_put(w, s) != 0) {
		free(s);
		client_fail(nx, w, msg->local_session, PMR_SM_E_NO_RESOURCES);
		return;
	}
	TAILQ_INSERT_TAIL(&nx->connecting, s, next);
}

static void
client_rx_accept(struct pmr_nexus *nx, const struct sockaddr_in *src,
		const struct nexus_wire_msg *m)
{
	const struct nexus_wire_accept *a = &m->accept;
	struct pmr_sm_msg out;
	struct pmr_transport_peer *peer;
	struct nexus_session *s = NULL;
	struct nexus_worker *w;

	w = nexus_worker_find(nx, a->client_worker);
	if (w != NULL)
		s = nexus_session_get(w, a->client_session);
	if (s == NULL || !s->is_client || s->hs_id != m->hs_id) {
		/* Unknown: make sure the server drops its session. */
		nx->stats.rx_msgs++;
		send_disconnect(nx, src, m->hs_id, a->server_worker,
				a->server_session, a->client_worker,
				a->client_session, 1);
		return;
	}
	if (a->server_worker != s->remote_worker) {
		nx->stats.rx_bad++;
		return;
	}
	nx->stats.rx_msgs++;
	if (s->state != NEXUS_S_CONNECTING)
		return;		/* a duplicate */

	peer = pmr_transport_peer_create(w->q, &a->addr);
	if (peer == NULL) {
		NX_LOG(NOTICE, "worker %u session %u: bad server address",
			w->id, s->local_session);
		send_disconnect(nx, src, m->hs_id, a->server_worker,
				a->server_session, a->client_worker,
				a->client_session, NEXUS_DISCONNECT_COPIES);
		session_free(nx, s);
		client_fail(nx, w, a->client_session, PMR_SM_E_BAD_REQUEST);
		return;
	}
	TAILQ_REMOVE(&nx->connecting, s, next);
	s->state = NEXUS_S_UP;
	s->remote_session = a->server_session;
	/* Granted: never more than asked. */
	s->credits = RTE_MIN(a->credits, s->credits);
	s->remote = *src;
	s->remote_boot = a->boot_id;
	memcpy(s->tx_key, a->secret, sizeof(s->tx_key));
	s->peer = peer;
	/* An ACCEPT to our random handshake id: proof of its boot id. */
	nexus_remote_link(nx, s);
	out = (struct pmr_sm_msg){
		.type = PMR_SM_CONNECTED,
		.status = PMR_SM_OK,
		.local_session = s->local_session,
		.remote_session = s->remote_session,
		.remote_worker = s->remote_worker,
		.credits = s->credits,
		.pkt_size = a->pkt_size,
		.cookie = s->hs_id,
		.hs_id = s->hs_id,
		.peer = peer,
	};
	/* The server nexus as resolved, for pmr_session_info_get(). */
	nexus_uri_format(src, out.uri);
	nx->stats.sessions_connected++;
	nexus_worker_send(w, &out);
}

static void
client_rx_refuse(struct pmr_nexus *nx, const struct nexus_wire_msg *m)
{
	const struct nexus_wire_refuse *r = &m->refuse;
	struct nexus_session *s = NULL;
	struct nexus_worker *w;

	w = nexus_worker_find(nx, r->client_worker);
	if (w != NULL)
		s = nexus_session_get(w, r->client_session);
	if (s == NULL || !s->is_client || s->hs_id != m->hs_id) {
		nx->stats.rx_msgs++;	/* unknown or finished: ignored */
		return;
	}
	if (r->server_worker != s->remote_worker) {
		nx->stats.rx_bad++;
		return;
	}
	nx->stats.rx_msgs++;
	if (s->state != NEXUS_S_CONNECTING)
		return;
	if (r->status == PMR_SM_E_NO_RESOURCES) {
		/* Room may come: ask again later, until the deadline. */
		s->backoff_ms = s->backoff_ms == 0 ?
			nx->conf.connect_retry_ms :
			RTE_MIN(2 * s->backoff_ms, RTE_MAX(
				(uint32_t)NEXUS_REFUSED_BACKOFF_MAX_MS,
				nx->conf.connect_retry_ms));
		s->next_retry_ms = nexus_now_ms() + s->backoff_ms;
		return;
	}
	session_free(nx, s);
	client_fail(nx, w, r->client_session, r->status);
}

/*
 * A COOKIE, like an ACCEPT or REFUSE, is authenticated by our random
 * handshake id alone: a server bound to a wildcard address may answer
 * from another of its addresses than the one we asked.
 */
static void
client_rx_cookie(struct pmr_nexus *nx, const struct nexus_wire_msg *m)
{
	const struct nexus_wire_cookie *c = &m->cookie;
	struct nexus_session *s = NULL;
	struct nexus_worker *w;

	w = nexus_worker_find(nx, c->client_worker);
	if (w != NULL)
		s = nexus_session_get(w, c->client_session);
	if (s == NULL || !s->is_client || s->hs_id != m->hs_id ||
	    s->state != NEXUS_S_CONNECTING) {
		nx->stats.rx_bad++;
		return;
	}
	nx->stats.rx_msgs++;
	if (s->cookie == c->cookie)
		return;	/* a duplicate: the retry timer resends */
	s->cookie = c->cookie;
	client_send_req(nx, s);
}

/* Teardown. */

/* Tell the worker that the remote side of an UP session is gone. */
void
nexus_session_tell_closed(struct pmr_nexus *nx, struct nexus_session *s,
		uint16_t status)
{
	struct pmr_sm_msg out = {
		.type = PMR_SM_DISCONNECTED,
		.status = status,
		.local_session = s->local_session,
		.remote_session = s->remote_session,
		.remote_worker = s->remote_worker,
		.token = s->token,
		.cookie = s->hs_id,
		.peer = s->peer,
	};

	if (s->rem != NULL)
		nexus_remote_unlink(nx, s);
	nexus_rc_session_down(nx, s);	/* reset by its remote's death */
	/* From here on, the worker's DISCONNECT sends nothing. */
	s->state = NEXUS_S_REMOTE_CLOSED;
	nexus_worker_send(s->w, &out);
}

static void
local_disconnect(struct pmr_nexus *nx, struct nexus_worker *w,
		const struct pmr_sm_msg *msg)
{
	struct nexus_session *s = nexus_session_get(w, msg->local_session);

	if (s == NULL) {
		NX_LOG(NOTICE, "worker %u: DISCONNECT of unknown session %u",
			w->id, msg->local_session);
		return;
	}
	if (s->state == NEXUS_S_CONNECTING) {
		/* The worker gave up its handshake: just forget it. */
		session_free(nx, s);
		return;
	}
	if (msg->peer != s->peer)
		NX_LOG(WARNING, "worker %u: DISCONNECT of session %u with a "
			"foreign peer", w->id, msg->local_session);
	pmr_transport_peer_destroy(w->q, s->peer);
	if (s->state == NEXUS_S_UP && msg->status != PMR_SM_E_REMOTE)
		session_send_disconnect(nx, s);
	session_free(nx, s);
}

static void
rx_disconnect(struct pmr_nexus *nx, const struct sockaddr_in *src,
		const struct nexus_wire_msg *m)
{
	const struct nexus_wire_disconnect *d = &m->disc;
	struct nexus_session *s = NULL;
	struct nexus_worker *w;

	w = nexus_worker_find(nx, d->dst_worker);
	if (w != NULL)
		s = nexus_session_get(w, d->dst_session);
	if (s == NULL) {
		nx->stats.rx_msgs++;	/* gone already: a duplicate */
		return;
	}
	/* Authenticated by the handshake id, never seen off the path. */
	if (s->hs_id != m->hs_id || s->remote_worker != d->src_worker) {
		nx->stats.rx_bad++;
		return;
	}
	if (s->state == NEXUS_S_CONNECTING) {
		/* The server closed before its ACCEPT got here. */
		nx->stats.rx_msgs++;
		session_free(nx, s);
		client_fail(nx, w, d->dst_session, PMR_SM_E_REMOTE);
		return;
	}
	if (s->remote_session != d->src_session ||
	    !nexus_same_addr(&s->remote, src)) {
		nx->stats.rx_bad++;
		return;
	}
	nx->stats.rx_msgs++;
	if (s->state != NEXUS_S_UP)
		return;		/* a duplicate */
	nexus_session_tell_closed(nx, s, PMR_SM_E_REMOTE);
}

/* Entry points. */

void
nexus_session_rx(struct pmr_nexus *nx, const struct sockaddr_in *src,
		const struct nexus_wire_msg *m)
{
	/*
	 * Only authenticated messages are signs of life (a HEARTBEAT with a
	 * good MAC, a handshake that completes): nexus_heartbeat.c.
	 */
	switch (m->type) {
	case NEXUS_WIRE_HEARTBEAT:
		nexus_remote_rx_heartbeat(nx, src, m);
		break;
	case NEXUS_WIRE_CONNECT_REQ:
		nexus_server_rx_connect_req(nx, src, m);
		break;
	case NEXUS_WIRE_ACCEPT:
		client_rx_accept(nx, src, m);
		break;
	case NEXUS_WIRE_REFUSE:
		client_rx_refuse(nx, m);
		break;
	case NEXUS_WIRE_COOKIE:
		client_rx_cookie(nx, m);
		break;
	case NEXUS_WIRE_DISCONNECT:
		rx_disconnect(nx, src, m);
		break;
	case NEXUS_WIRE_RC_REQ:
	case NEXUS_WIRE_RC_ACK:
		nexus_rc_rx(nx, src, m);
		break;
	default:
		nx->stats.rx_bad++;
		break;
	}
}

void
nexus_session_worker_msg(struct pmr_nexus *nx, struct nexus_worker *w,
		const struct pmr_sm_msg *msg)
{
	switch (msg->type) {
	case PMR_SM_CONNECT:
		client_connect(nx, w, msg);
		break;
	case PMR_SM_ACCEPT:
		nexus_server_accept(nx, w, msg);
		break;
	case PMR_SM_REFUSE:
		nexus_server_refuse(nx, w, msg);
		break;
	case PMR_SM_DISCONNECT:
		local_disconnect(nx, w, msg);
		break;
	case PMR_SM_RC_WANT:
	case PMR_SM_RC_RELEASED:
	case PMR_SM_RC_FAILED:
		nexus_rc_worker_msg(nx, w, msg);
		break;
	case PMR_SM_ALIVE:
		nexus_remote_alive(nx, w, msg);
		break;
	default:
		NX_LOG(WARNING, "worker %u: unexpected message type %u",
			w->id, msg->type);
		break;
	}
}

void
nexus_session_timers(struct pmr_nexus *nx, uint64_t now)
{
	struct nexus_session *s, *tmp;

	RTE_TAILQ_FOREACH_SAFE(s, &nx->connecting, next, tmp) {
		if (now >= s->deadline_ms) {
			struct nexus_worker *w = s->w;
			uint16_t ls = s->local_session;

			/* Refused for want of room until the end: say so. */
			uint16_t status = s->backoff_ms != 0 ?
				PMR_SM_E_NO_RESOURCES : PMR_SM_E_TIMEOUT;

			session_free(nx, s);
			client_fail(nx, w, ls, status);
		} else if (now >= s->next_retry_ms) {
			nx->stats.connect_retries++;
			client_send_req(nx, s);
			s->next_retry_ms = now + (s->backoff_ms != 0 ?
				s->backoff_ms : nx->conf.connect_retry_ms);
		}
	}
	nexus_keys_timers(nx, now);
	nexus_server_timers(nx, now);
	nexus_remote_timers(nx, now);
	nexus_rc_timers(nx, now);
}

void
nexus_session_stalled(struct pmr_nexus *nx, uint64_t stall_ms, uint64_t now)
{
	uint64_t full = now + nx->conf.connect_timeout_ms;
	struct nexus_session *s;

	/* A handshake started after the stall keeps its deadline. */
	TAILQ_FOREACH(s, &nx->connecting, next)
		s->deadline_ms = RTE_MAX(s->deadline_ms,
				RTE_MIN(s->deadline_ms + stall_ms, full));
	nexus_rc_stalled(nx, stall_ms, now);
	nexus_remote_stalled(nx, stall_ms, now);
}

/*
 * A worker is detaching: refuse what it has not answered, close what it
 * left open (its peers die with it), forget its handshakes.
 */
void
nexus_session_worker_gone(struct pmr_nexus *nx, struct nexus_worker *w)
{
	struct nexus_session **page, *s;
	unsigned int i, j, left = 0;

	nexus_server_worker_gone(nx, w);
	nexus_rc_worker_gone(nx, w);
	for (i = 0; i < NEXUS_SESSION_PAGES; i++) {
		page = w->sessions[i];
		if (page == NULL)
			continue;
		for (j = 0; j < NEXUS_SESSION_PAGE_SIZE; j++) {
			s = page[j];
			if (s == NULL)
				continue;
			if (s->state != NEXUS_S_CONNECTING) {
				pmr_transport_peer_destroy(w->q, s->peer);
				left++;
			}
			if (s->state == NEXUS_S_UP)
				session_send_disconnect(nx, s);
			session_free(nx, s);
		}
		free(page);
		w->sessions[i] = NULL;
	}
	if (left > 0)
		NX_LOG(WARNING, "worker %u detached with %u sessions open",
			w->id, left);
}
