/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Sessions: the table, opening and closing them through the nexus, the
 * session events the nexus sends (pmr_nexus_worker.h has the protocol).
 * The outbox of messages to the nexus is in rpc_outbox.c, the TOKEN
 * packets of the handshake in rpc_handshake.c.
 */

#include <string.h>

#include <rte_cycles.h>
#include <rte_random.h>

#include "rpc_client.h"
#include "rpc_private.h"
#include "rpc_server.h"
#include "rpc_rc.h"
#include "rpc_session.h"
#include "rpc_source.h"
#include "rpc_tx.h"

static int
sm_status_errno(uint16_t status)
{
	switch (status) {
	case PMR_SM_E_NO_WORKER:
		return -ENOENT;
	case PMR_SM_E_NO_RESOURCES:
		return -ENOSPC;
	case PMR_SM_E_TIMEOUT:
		return -ETIMEDOUT;
	case PMR_SM_E_UNREACHABLE:
		return -EHOSTUNREACH;
	case PMR_SM_E_REMOTE:
		return -ECONNRESET;
	case PMR_SM_E_PEER_DEAD:
		return -ETIMEDOUT;
	case PMR_SM_E_REFUSED:
		return -ECONNREFUSED;
	case PMR_SM_E_MSG_SIZE:
		return -EMSGSIZE;
	case PMR_SM_E_FAMILY:
		return -EPROTONOSUPPORT;
	default:
		return -EPROTO;
	}
}

/* Copy a nexus's "a.b.c.d:port", NUL-terminated whatever it holds. */
static void
uri_copy(char *dst, const char *src)
{
	size_t n = strnlen(src, PMR_URI_MAX - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/*
 * An accepted server session goes away (err): its one
 * PMR_SESSION_EV_RESET, while its number still names it (state RESET).
 * Never for a refused session, never twice.
 */
void
rpc_server_reset_event(struct pmr_worker *w, uint16_t sn, int err)
{
	struct rpc_session *s = &w->sessions[sn];

	if (s->client || !s->accepted)
		return;
	s->accepted = false;
	s->state = PMR_SESSION_RESET;
	rpc_session_rx_update(s);
	if (w->srv_cb != NULL)
		w->srv_cb(w, sn, PMR_SESSION_EV_RESET, err, w->srv_cb_arg);
}

/*
 * Take a session, and reserve reserve of the queue's receive slots: the
 * peer may have that many packets in flight toward us (a client's are
 * answers to its own credits, a server's what the client says it sends).
 */
static int
session_alloc(struct pmr_worker *w, bool client, uint16_t reserve)
{
	struct rpc_session *s;
	uint32_t idx;
	uint16_t sn;

	if (w->nb_sess_free == 0 ||
	    w->rx_reserved + reserve > w->rx_budget)
		return -ENOSPC;
	/* A random one of the free numbers (see worker_alloc_tables()). */
	idx = (uint32_t)rte_rand_max(w->nb_sess_free);
	sn = w->sess_free[idx];
	w->sess_free[idx] = w->sess_free[--w->nb_sess_free];
	w->rx_reserved += reserve;
	s = &w->sessions[sn];
	s->rx_reserve = reserve;
	s->client = client;
	s->closing = false;
	rpc_session_rx_update(s);
	s->failing = false;
	s->in_flight = 0;
	s->credits = w->credits;
	s->starved = false;
	s->kick_pos = 0;
	s->srv_active = 0;
	for (uint16_t i = 0; i < w->window; i++)
		s->slot_req_num[i] = i;
	rpc_server_session_init(w, s);
	s->peer = NULL;
	s->cb = NULL;
	s->cb_arg = NULL;
	s->token = 0;
	s->hs_id = 0;
	s->has_token = false;
	s->granted = 0;
	s->nx_granted = 0;
	s->token_left = 0;
	s->accepted = false;
	rpc_rc_session_gone(w, s);
	s->remote_uri[0] = '\0';
	/* The worker's own until the handshake gives the other end's. */
	s->plen = w->plen;
	s->inplace_max = w->inplace_max;
	rpc_session_rx_max_update(s);
	TAILQ_INIT(&s->backlog);
	return sn;
}

/*
 * A server session reserving reserve receive slots stops counting as
 * src's (rpc_source.h): it went, or was not made after all.
 */
static void
session_src_release(struct pmr_worker *w, struct rpc_src *src,
		uint16_t reserve)
{
	rpc_src_drop(w, src, RPC_SRC_RX, reserve);
	rpc_src_drop(w, src, RPC_SRC_SESSIONS, 1);
	rpc_src_put(w, src);
}

static void
session_free(struct pmr_worker *w, uint16_t sn)
{
	struct rpc_session *s = &w->sessions[sn];

	rpc_server_session_clear(w, s);
	rpc_hs_stop(w, s);
	if (s->src != NULL)
		session_src_release(w, s->src, s->rx_reserve);
	s->src = NULL;
	s->state = PMR_SESSION_FREE;
	rpc_session_rx_update(s);
	s->peer = NULL;
	w->rx_reserved -= s->rx_reserve;
	w->sess_free[w->nb_sess_free++] = sn;
}

/*
 * The source of a CONNECT_IN (its client nexus's address), if it may
 * have one more session reserving reserve receive slots; else NULL and
 * why (-ENOSPC: its share is taken, or no room to count it).
 */
static struct rpc_src *
session_src_get(struct pmr_worker *w, const struct pmr_sm_msg *m,
		uint16_t reserve, int *err)
{
	struct rpc_src *src = rpc_src_get(w, m->uri);

	*err = -ENOSPC;
	if (src == NULL)
		return NULL;
	if (!rpc_src_may(w, src, RPC_SRC_SESSIONS, 1)) {
		rpc_src_refused(w, src, RPC_SRC_SESSIONS);
	} else if (!rpc_src_may(w, src, RPC_SRC_RX, reserve)) {
		rpc_src_refused(w, src, RPC_SRC_RX);
	} else {
		rpc_src_take(src, RPC_SRC_SESSIONS, 1);
		rpc_src_take(src, RPC_SRC_RX, reserve);
		*err = 0;
		return src;
	}
	rpc_src_put(w, src);
	return NULL;
}

/*
 * Give the session's peer back to the nexus, which destroys it and, if
 * notify, tells the remote side.
 */
static void
session_return_peer(struct pmr_worker *w, uint16_t sn, bool notify)
{
	struct rpc_session *s = &w->sessions[sn];
	struct pmr_sm_msg m = {
		.type = PMR_SM_DISCONNECT,
		.status = notify ? PMR_SM_OK : PMR_SM_E_REMOTE,
		.local_session = sn,
		.remote_session = s->remote_session,
		.remote_worker = s->remote_worker,
		.token = s->token,
	};

	rpc_rc_session_gone(w, s);
	if (s->peer != NULL) {
		/* Packets queued for this peer leave before it goes. */
		if (w->nb_tx != 0)
			rpc_tx_flush(w);
		m.peer = s->peer;
		s->peer = NULL;
		rpc_sm_send(w, &m);
	}
}

/*
 * Release a session's peer; a client session then stays in its state for
 * the application to destroy, a server (or destroyed) one is freed.
 */
void
rpc_session_release(struct pmr_worker *w, uint16_t sn, bool notify)
{
	struct rpc_session *s = &w->sessions[sn];

	session_return_peer(w, sn, notify);
	if (!s->client || s->closing)
		session_free(w, sn);
}

int
pmr_session_create(struct pmr_worker *w, const char *uri,
		uint16_t remote_worker, pmr_session_cb_t cb, void *arg)
{
	struct pmr_sm_msg m = { .type = PMR_SM_CONNECT };
	struct rpc_session *s;
	int sn;

	if (w == NULL || uri == NULL || strlen(uri) >= sizeof(m.uri))
		return -EINVAL;
	if (rte_ring_full(w->outbox))
		return -EAGAIN;	/* not reached: see rpc_outbox_size() */
	sn = session_alloc(w, true, w->credits);
	if (sn < 0)
		return sn;
	s = &w->sessions[sn];
	s->state = PMR_SESSION_CONNECTING;
	rpc_session_rx_update(s);
	s->remote_worker = remote_worker;
	s->cb = cb;
	s->cb_arg = arg;
	m.local_session = (uint16_t)sn;
	m.remote_worker = remote_worker;
	m.credits = w->credits;
	m.pkt_size = w->plen;
	do
		m.hs_id = rte_rand();
	while (m.hs_id == 0);
	/* The TOKEN packet must carry it: a forger does not know it. */
	s->hs_id = m.hs_id;
	strcpy(m.uri, uri);
	strcpy(s->remote_uri, uri);	/* resolved once CONNECTED */
	rpc_sm_send(w, &m);
	return sn;
}

int
pmr_session_destroy(struct pmr_worker *w, int session)
{
	struct rpc_session *s;

	if (w == NULL || session < 0 || (uint32_t)session >= w->max_sessions)
		return -EINVAL;
	s = &w->sessions[session];
	if (!s->client || s->closing || s->state == PMR_SESSION_FREE)
		return -EINVAL;
	/* Continuations run below: no pmr_session_connect() from them. */
	w->polling++;
	switch (s->state) {
	case PMR_SESSION_CONNECTING:
		s->closing = true;
		rpc_session_rx_update(s);
		rpc_creq_fail_all(w, s, PMR_E_SESSION_RESET);
		/*
		 * Freed when the nexus answers the handshake; if it has (the
		 * token has not come yet), now.
		 */
		if (s->peer != NULL) {
			rpc_hs_stop(w, s);
			rpc_session_release(w, (uint16_t)session, true);
		}
		break;
	case PMR_SESSION_CONNECTED:
		/*
		 * Closing before the continuations run: one that issues a
		 * request on it or destroys it again is refused (-EINVAL).
		 */
		s->closing = true;
		rpc_session_rx_update(s);
		rpc_creq_fail_all(w, s, PMR_E_SESSION_RESET);
		rpc_session_release(w, (uint16_t)session, true);
		break;
	default:	/* FAILED, RESET: the peer is gone already */
		if (s->failing) {
			/*
			 * From a continuation of the session's failing
			 * requests: freed after the last one (its caller
			 * still walks the session).
			 */
			s->closing = true;
			rpc_session_rx_update(s);
			break;
		}
		session_free(w, (uint16_t)session);
		break;
	}
	w->polling--;
	return 0;
}

enum pmr_session_state
pmr_session_state(const struct pmr_worker *w, int session)
{
	if (w == NULL || session < 0 || (uint32_t)session >= w->max_sessions)
		return PMR_SESSION_FREE;
	if (w->sessions[session].closing)
		return PMR_SESSION_FREE;
	return w->sessions[session].state;
}

int
pmr_session_info_get(const struct pmr_worker *w, int session,
		struct pmr_session_info *info)
{
	const struct rpc_session *s;

	if (w == NULL || info == NULL || session < 0 ||
	    (uint32_t)session >= w->max_sessions)
		return -EINVAL;
	s = &w->sessions[session];
	/*
	 * A destroyed client session is gone for its owner; a server one
	 * that was reset keeps its number (state RESET) while handlers of
	 * its requests run.
	 */
	if (s->state == PMR_SESSION_FREE || (s->client && s->closing))
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	info->role = s->client ? PMR_SESSION_CLIENT : PMR_SESSION_SERVER;
	info->state = s->state;
	info->remote_worker = s->remote_worker;
	/* What the session reserved: the grant, once it is known. */
	if (!s->client || s->state == PMR_SESSION_CONNECTED)
		info->credits = s->rx_reserve;
	memcpy(info->remote_uri, s->remote_uri, sizeof(info->remote_uri));
	return 0;
}

/* What pmr_session_connect() waits for. */
struct connect_wait {
	bool done;
	int err;
};

static void
connect_wait_cb(struct pmr_worker *w __rte_unused, int session __rte_unused,
		enum pmr_session_event ev, int err, void *arg)
{
	struct connect_wait *cw = arg;

	cw->done = true;
	cw->err = ev == PMR_SESSION_EV_CONNECTED ? 0 :
		err != 0 ? err : -ECONNRESET;
}

int
pmr_session_connect(struct pmr_worker *w, const char *uri,
		uint16_t remote_worker, uint32_t timeout_ms)
{
	struct connect_wait cw = { .done = false, .err = 0 };
	struct rpc_session *s;
	uint64_t deadline;
	int sn;

	if (w == NULL)
		return -EINVAL;
	/*
	 * From a handler, continuation or session callback of w: polling
	 * here would run w's receive path inside itself.
	 */
	if (w->polling != 0)
		return -EDEADLK;
	sn = pmr_session_create(w, uri, remote_worker, connect_wait_cb, &cw);
	if (sn < 0)
		return sn;
	s = &w->sessions[sn];
	deadline = rte_get_timer_cycles() +
		rte_get_timer_hz() * (uint64_t)timeout_ms / 1000;
	for (;;) {
		pmr_worker_poll(w);
		if (cw.done || rte_get_timer_cycles() >= deadline)
			break;
	}
	/* cw lives on this stack: no callback of this session after. */
	s->cb = NULL;
	s->cb_arg = NULL;
	if (!cw.done) {
		pmr_session_destroy(w, sn);
		return -ETIMEDOUT;
	}
	if (cw.err != 0) {
		pmr_session_destroy(w, sn);
		return cw.err;
	}
	return sn;
}

/*
 * The remote side is gone (or, if notify, this side gives up the session
 * and tells it): fail what is pending, release the peer; err is for the
 * session callback.
 */
static void
session_reset(struct pmr_worker *w, uint16_t sn,
		enum pmr_session_state state, int err, bool notify)
{
	struct rpc_session *s = &w->sessions[sn];

	if (s->client) {
		/*
		 * A continuation that destroys the session only marks it
		 * (closing): the release below frees it.
		 */
		s->state = state;
		rpc_session_rx_update(s);
		rpc_creq_fail_all(w, s, PMR_E_SESSION_RESET);
		rpc_session_release(w, sn, notify);
		if (s->cb != NULL && !s->closing)
			s->cb(w, sn, PMR_SESSION_EV_RESET, err, s->cb_arg);
		return;
	}
	/*
	 * Out of CONNECTED before its slots are cleared: dropping an offer
	 * the reader never said done with fails the pair's RC QP
	 * (rpc_rdv.c), which resets the pair's connected sessions, and
	 * this one must not be reset (and freed) again from inside.
	 */
	s->state = state;
	rpc_session_rx_update(s);
	rpc_server_session_orphan(w, s);
	rpc_server_reset_event(w, sn, err);
	if (s->srv_active == 0) {
		rpc_session_release(w, sn, notify);
	} else {
		/* Freed by the last pmr_respond(); its peer goes now. */
		s->closing = true;
		rpc_session_rx_update(s);
		session_return_peer(w, sn, notify);
	}
}

/* This side resets connected session sn (its RC QP failed, rpc_rc.c). */
void
rpc_session_reset_local(struct pmr_worker *w, uint16_t sn, int err)
{
	struct rpc_session *s = &w->sessions[sn];

	if (s->state == PMR_SESSION_CONNECTED && !s->closing)
		session_reset(w, sn, PMR_SESSION_RESET, err, true);
}

/*
 * Session s's packet size from the other end's (pkt_size, from the
 * handshake): the smaller of the two. -EMSGSIZE, s unchanged, if the
 * worker's max_msg_size does not fit in the packets a message may have
 * then: the worker could not send (nor take) its largest message on it.
 */
static int
session_set_pkt_size(struct pmr_worker *w, struct rpc_session *s,
		uint32_t pkt_size)
{
	uint32_t plen = RTE_MIN(w->plen, pkt_size);

	if (plen < RPC_FIRST_PKT_MIN ||
	    rpc_msg_pkts(w->max_msg, plen) > RPC_MSG_PKTS_MAX) {
		RPC_LOG(INFO, "worker %u: a session with packets of %u "
			"bytes (the other end's %u) cannot carry a %u-byte "
			"message in %u packets: refused", w->worker_id, plen,
			pkt_size, w->max_msg, RPC_MSG_PKTS_MAX);
		return -EMSGSIZE;
	}
	s->plen = plen;
	s->inplace_max = RTE_MIN(plen, w->max_msg);
	rpc_session_rx_max_update(s);
	return 0;
}

/*
 * Client session sn has the nexus's CONNECTED and the token: it is up,
 * with the credits the server granted (at most its own), and reserves no
 * more receive slots than those.
 */
void
rpc_session_up(struct pmr_worker *w, uint16_t sn)
{
	struct rpc_session *s = &w->sessions[sn];
	uint16_t c = w->credits;
	struct rpc_creq *r;

	if (s->granted != 0 && s->granted < c)
		c = s->granted;
	if (s->nx_granted != 0 && s->nx_granted < c)
		c = s->nx_granted;
	if (c < s->rx_reserve) {
		w->rx_reserved -= s->rx_reserve - c;
		s->rx_reserve = c;
	}
	/* Nothing was sent yet: every credit is there. */
	s->credits = c;
	/* Requests queued while connecting, in the session's packets. */
	TAILQ_FOREACH(r, &s->backlog, next)
		r->req_pkts = rpc_msg_pkts(r->mb->len, s->plen);
	rpc_hs_stop(w, s);
	s->state = PMR_SESSION_CONNECTED;
	rpc_session_rx_update(s);
	/*
	 * Before the application hears of it: its QP is on the way (asked
	 * for every session of a worker that sends large messages by READ,
	 * doc/rendezvous.md).
	 */
	if (unlikely(s->rc_eager || w->rdv_eager))
		rpc_rc_want(w, sn);
	if (s->cb != NULL)
		s->cb(w, sn, PMR_SESSION_EV_CONNECTED, 0, s->cb_arg);
	if (s->state == PMR_SESSION_CONNECTED && !s->closing)
		rpc_window_fill(w, sn);
}

/*
 * Client session sn's handshake failed after the nexus answered: fail
 * what waits, give the peer back (the server is told), and say why.
 */
void
rpc_session_connect_fail(struct pmr_worker *w, uint16_t sn, bool notify,
		int err)
{
	struct rpc_session *s = &w->sessions[sn];

	rpc_hs_stop(w, s);
	s->state = PMR_SESSION_FAILED;
	rpc_session_rx_update(s);
	rpc_creq_fail_all(w, s, PMR_E_SESSION_RESET);
	rpc_session_release(w, sn, notify);	/* frees it if closing */
	if (s->cb != NULL && !s->closing)
		s->cb(w, sn, PMR_SESSION_EV_CONNECT_FAILED, err, s->cb_arg);
}

static void
sm_connect_in(struct pmr_worker *w, const struct pmr_sm_msg *m)
{
	struct pmr_sm_msg r = { .cookie = m->cookie };
	uint16_t reserve = RTE_MIN(m->credits, w->credits);
	struct rpc_src *src = NULL;
	struct rpc_session *s;
	int sn;

	/*
	 * The client's credits are its say, not ours: grant (and reserve)
	 * at most our own session_credits, so that one asker cannot take
	 * the whole receive budget. The client uses what is granted (the
	 * TOKEN packet and the ACCEPT say how many). Its source may hold
	 * only its share of our sessions and receive slots.
	 */
	if (m->credits == 0)
		sn = -EINVAL;
	else
		src = session_src_get(w, m, reserve, &sn);
	if (src != NULL) {
		sn = session_alloc(w, false, reserve);
		if (sn >= 0)
			w->sessions[sn].src = src;
		else
			session_src_release(w, src, reserve);
	}
	/* Before anyone is asked: can the session carry our messages? */
	if (sn >= 0 && session_set_pkt_size(w, &w->sessions[sn],
			m->pkt_size) != 0) {
		session_free(w, (uint16_t)sn);
		sn = -EMSGSIZE;
	}
	if (sn < 0) {
		r.type = PMR_SM_REFUSE;
		r.status = sn == -ENOSPC ? PMR_SM_E_NO_RESOURCES :
			sn == -EMSGSIZE ? PMR_SM_E_MSG_SIZE :
			PMR_SM_E_BAD_REQUEST;
		r.peer = m->peer;
		rpc_sm_send(w, &r);
		return;
	}
	s = &w->sessions[sn];
	s->remote_session = m->remote_session;
	s->remote_worker = m->remote_worker;
	uri_copy(s->remote_uri, m->uri);
	if (w->srv_cb != NULL) {
		/* Asked before anything is answered, in state CONNECTING. */
		s->state = PMR_SESSION_CONNECTING;
		rpc_session_rx_update(s);
		if (w->srv_cb(w, sn, PMR_SESSION_EV_ACCEPT, 0,
				w->srv_cb_arg) != 0) {
			/* The nexus destroys the peer it made for it. */
			session_free(w, (uint16_t)sn);
			r.type = PMR_SM_REFUSE;
			r.status = PMR_SM_E_REFUSED;
			r.peer = m->peer;
			rpc_sm_send(w, &r);
			return;
		}
	}
	s->accepted = true;
	s->peer = m->peer;
	s->peer_src = m->peer != NULL ? m->peer->src : 0;
	s->token = m->token;
	s->hs_id = m->hs_id;
	s->state = PMR_SESSION_CONNECTED;
	rpc_session_rx_update(s);
	r.type = PMR_SM_ACCEPT;
	r.local_session = (uint16_t)sn;
	r.credits = s->rx_reserve;
	r.pkt_size = w->plen;
	rpc_sm_send(w, &r);
	rpc_hs_server_start(w, (uint16_t)sn);
	/* After the ACCEPT: the nexus has the session UP then. */
	if (w->rdv_eager)
		rpc_rc_want(w, (uint16_t)sn);
}

static void
sm_connected(struct pmr_worker *w, const struct pmr_sm_msg *m)
{
	struct rpc_session *s = &w->sessions[m->local_session];

	if (s->state != PMR_SESSION_CONNECTING) {
		/* The nexus answers each CONNECT once: a bug if seen. */
		RPC_LOG(ERR, "worker %u: CONNECTED for session %u in state %d",
			w->worker_id, m->local_session, s->state);
		return;
	}
	s->peer = m->peer;
	s->peer_src = m->peer != NULL ? m->peer->src : 0;
	s->remote_session = m->remote_session;
	if (m->uri[0] != '\0')
		uri_copy(s->remote_uri, m->uri);
	/* Not m->token: the token is believed only from the data path. */
	if (s->closing) {
		/* Destroyed while connecting: close it at once. */
		rpc_session_release(w, m->local_session, true);
		return;
	}
	s->nx_granted = m->credits;
	/*
	 * The server checked its own max_msg_size against the session's
	 * packet size; we check ours, and a server that lies about its
	 * size does not make us send packets it would drop.
	 */
	if (session_set_pkt_size(w, s, m->pkt_size) != 0) {
		rpc_session_connect_fail(w, m->local_session, true,
				-EMSGSIZE);
		return;
	}
	if (s->has_token && (s->token_src != s->peer_src ||
			     s->token_session != s->remote_session)) {
		/* Came before, from elsewhere: not the server's. */
		rpc_log_forged(w, RPC_DROP_TOKEN_PKT, m->local_session,
				s->token_src);
		rpc_count_drop(w, RPC_DROP_TOKEN_PKT);
		s->has_token = false;
	}
	if (s->has_token) {
		rpc_session_up(w, m->local_session);
		return;
	}
	rpc_hs_client_wait(w, s);
}

static void
sm_connect_failed(struct pmr_worker *w, const struct pmr_sm_msg *m)
{
	struct rpc_session *s = &w->sessions[m->local_session];

	if (s->state != PMR_SESSION_CONNECTING)
		return;
	if (s->closing) {
		session_free(w, m->local_session);
		return;
	}
	s->state = PMR_SESSION_FAILED;
	rpc_session_rx_update(s);
	rpc_creq_fail_all(w, s, PMR_E_SESSION_RESET);
	if (s->closing) {
		/* A continuation destroyed it. */
		session_free(w, m->local_session);
		return;
	}
	if (s->cb != NULL)
		s->cb(w, m->local_session, PMR_SESSION_EV_CONNECT_FAILED,
			sm_status_errno(m->status), s->cb_arg);
}

static void
sm_disconnected(struct pmr_worker *w, const struct pmr_sm_msg *m)
{
	struct rpc_session *s = &w->sessions[m->local_session];

	if (s->closing)
		return;
	if (s->state == PMR_SESSION_CONNECTED)
		session_reset(w, m->local_session, PMR_SESSION_RESET,
				sm_status_errno(m->status), false);
	else if (s->client && s->state == PMR_SESSION_CONNECTING &&
		 s->peer != NULL)
		/* Gone while we waited for the token. */
		rpc_session_connect_fail(w, m->local_session, false,
				sm_status_errno(m->status));
}

/* Take session events from the nexus. */
int
rpc_sm_poll(struct pmr_worker *w)
{
	struct pmr_sm_msg m;
	int n = 0;

	if (unlikely(!rte_ring_empty(w->outbox)))
		rpc_outbox_flush(w);
	/* Each message may be answered with a REFUSE: room for it first. */
	while (likely(w->outbox_refuses < RPC_OUTBOX_REFUSES) &&
	       rte_ring_dequeue_elem(w->to_worker, &m, sizeof(m)) == 0) {
		n++;
		if (m.type == PMR_SM_DEVICE_EVENT) {
			rpc_device_event(w, &m);
			continue;
		}
		if (m.type != PMR_SM_CONNECT_IN &&
		    m.local_session >= w->max_sessions) {
			RPC_LOG(ERR, "worker %u: bad session %u from nexus",
				w->worker_id, m.local_session);
			continue;
		}
		switch (m.type) {
		case PMR_SM_CONNECT_IN:
			sm_connect_in(w, &m);
			break;
		case PMR_SM_CONNECTED:
			sm_connected(w, &m);
			break;
		case PMR_SM_CONNECT_FAILED:
			sm_connect_failed(w, &m);
			break;
		case PMR_SM_DISCONNECTED:
			sm_disconnected(w, &m);
			break;
		case PMR_SM_RC_READY:
		case PMR_SM_RC_DOWN:
			rpc_rc_sm_msg(w, &m);
			break;
		default:
			RPC_LOG(ERR, "worker %u: unexpected nexus message %u",
				w->worker_id, m.type);
			break;
		}
	}
	return n;
}
