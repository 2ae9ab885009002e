/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * RC queue pairs between workers, on the nexus thread or under the nexus
 * lock (ring messages in pmr_nexus_worker.h, wire messages in
 * nexus_wire.h, the sequence in doc/architecture.md).
 *
 * A pair is (local worker, remote worker, remote nexus address, its boot
 * id): one RC QP, shared by every session UP between the two workers
 * (each such session is bound to it while UP). It is made when a session
 * first asks (RC_WANT): its nexus initiates, creates a QP in INIT and
 * sends RC_REQ with the QP's attributes, again every connect_retry_ms
 * until the RC_ACK of that generation comes or connect_timeout_ms passes.
 * The other nexus creates its QP, connects it (RTR, then RTS) and answers
 * with its attributes; only then does the initiator connect its own and
 * hand it to the sessions that asked (RC_READY). When both ask at once,
 * both RC_REQs cross: the side with the lower (boot id, worker id) stays
 * the initiator and ignores the other's; the other connects the QP it had
 * made to the initiator's attributes and answers as a responder.
 *
 * Authentication: RC_REQ and RC_ACK carry a MAC under the heartbeat key
 * the receiver issued to the sender (nexus_wire_rc_mac()), and must name
 * both boot ids as the receiver knows them; an RC_REQ needs sessions UP
 * between the two workers. Replays: a remote's RC_REQ generations only
 * grow (nexus_remote.rc_rx_gen); the one acted on last is answered again
 * from the ACK kept, older ones are dropped.
 *
 * Teardown: when a pair's last session leaves UP (closed at either end,
 * reset because its remote nexus died or restarted), a QP the worker was
 * given goes back through RC_DOWN / RC_RELEASED before it is destroyed;
 * one it never had is destroyed at once. A detaching worker's are
 * destroyed at once (pmr_worker_destroy() drained them).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_tailq.h>

#include "nexus_private.h"

/*
 * Longest an initiator waits for a responder that answers BUSY (its QP
 * is still being made: a large region on a slow host), from its first
 * RC_REQ; connect_timeout_ms after the last BUSY otherwise.
 */
#define NX_RC_BUSY_MAX_MS 30000

enum nexus_rc_state {
	NX_RC_MAKING,	/* its QP being made (nexus_rc_make.c) */
	NX_RC_REQ_SENT,	/* initiator: QP in INIT, RC_REQ resent */
	NX_RC_UP,	/* connected */
	NX_RC_DOWN,	/* RC_DOWN sent, RC_RELEASED awaited */
};

struct nexus_rc_pair {
	TAILQ_ENTRY(nexus_rc_pair) next;	/* nexus.rc_pairs */
	enum nexus_rc_state state;
	struct nexus_worker *w;
	uint16_t remote_worker;
	struct sockaddr_in remote;
	uint64_t remote_boot;
	uint64_t id;			/* for the worker, non-zero */
	uint32_t generation;		/* of the RC_REQ that made it */
	bool initiator;
	bool handed;			/* an RC_READY went to the worker */
	struct pmr_transport_rc *rc;
	struct pmr_transport_rc_attr local;
	uint32_t remote_qpn;		/* UP: the QP ours is connected to */
	uint8_t tx_key[NEXUS_WIRE_SECRET_LEN];	/* the remote's to us */
	uint64_t next_retry_ms;		/* REQ_SENT */
	uint64_t deadline_ms;		/* REQ_SENT */
	uint64_t wait_end_ms;		/* REQ_SENT: the latest BUSY allows */
	struct nexus_rc_job *job;	/* MAKING */
	struct nexus_wire_rc req;	/* MAKING, responder: to answer */
	struct nexus_wire_msg ack;	/* responder: to send again */
	TAILQ_HEAD(, nexus_session) sessions;	/* bound, UP */
	unsigned int nb_sessions;
};

static struct nexus_rc_pair *
pair_find(struct pmr_nexus *nx, const struct nexus_worker *w,
		uint16_t remote_worker, const struct sockaddr_in *remote,
		uint64_t remote_boot)
{
	struct nexus_rc_pair *p;

	TAILQ_FOREACH(p, &nx->rc_pairs, next)
		if (p->w == w && p->remote_worker == remote_worker &&
		    p->remote_boot == remote_boot &&
		    p->state != NX_RC_DOWN &&
		    nexus_same_addr(&p->remote, remote))
			return p;
	return NULL;
}

/* Bind every UP session of w with the pair's remote worker to p. */
static void
pair_bind_all(struct pmr_nexus *nx, struct nexus_rc_pair *p)
{
	struct nexus_remote *r = nexus_remote_find(nx, &p->remote);
	struct nexus_session *s;

	if (r == NULL)
		return;
	TAILQ_FOREACH(s, &r->sessions, rnext)
		if (s->rc == NULL && s->w == p->w &&
		    s->remote_worker == p->remote_worker &&
		    s->remote_boot == p->remote_boot) {
			s->rc = p;
			TAILQ_INSERT_TAIL(&p->sessions, s, rc_next);
			p->nb_sessions++;
		}
}

static struct nexus_rc_pair *
pair_new(struct pmr_nexus *nx, const struct nexus_session *s)
{
	struct nexus_rc_pair *p = calloc(1, sizeof(*p));
	int ret;

	if (p == NULL)
		return NULL;
	p->w = s->w;
	p->remote_worker = s->remote_worker;
	p->remote = s->remote;
	p->remote_boot = s->remote_boot;
	p->id = ++nx->rc_next_id;
	memcpy(p->tx_key, s->tx_key, sizeof(p->tx_key));
	TAILQ_INIT(&p->sessions);
	/* Made off this thread: it may take a second (nexus_rc_make.c). */
	p->state = NX_RC_MAKING;
	p->job = calloc(1, sizeof(*p->job));
	if (p->job == NULL) {
		free(p);
		rte_errno = ENOMEM;
		return NULL;
	}
	p->job->q = s->w->q;
	p->job->owner = p;
	ret = nexus_rc_make_start(nx, p->job);
	if (ret != 0) {
		free(p->job);
		free(p);
		rte_errno = ENOMEM;
		return NULL;
	}
	TAILQ_INSERT_TAIL(&nx->rc_pairs, p, next);
	pair_bind_all(nx, p);
	return p;
}

/*
 * May a remote at addr make w hold one more RC QP? Its address may hold
 * w->rc_share_pct percent of the QPs w's queue can have (at least one):
 * the rest is kept for other sources (doc/security.md). Pairs going down
 * count until their QP is destroyed.
 */
static bool
share_ok(const struct pmr_nexus *nx, const struct nexus_worker *w,
		const struct sockaddr_in *addr)
{
	uint32_t total = w->q->caps.rc_max, share, held = 0;
	const struct nexus_rc_pair *p;

	if (total == 0)
		return true;	/* the driver sets no limit of its own */
	share = RTE_MAX(1u, (uint32_t)((uint64_t)total *
			w->rc_share_pct / 100));
	TAILQ_FOREACH(p, &nx->rc_pairs, next)
		held += p->w == w &&
			p->remote.sin_addr.s_addr == addr->sin_addr.s_addr;
	return held < share;
}

/*
 * Is the QP between w and remote_worker at r the remote's doing, to be
 * held to its share? Not if w has a client session with that worker: w
 * opened it, and the QP serves w's own requests.
 */
static bool
share_applies(const struct nexus_remote *r, const struct nexus_worker *w,
		uint16_t remote_worker)
{
	const struct nexus_session *s;

	TAILQ_FOREACH(s, &r->sessions, rnext)
		if (s->w == w && s->remote_worker == remote_worker &&
		    s->is_client)
			return false;
	return true;
}

/* A QP refused to a source over its share: counted, logged at debug. */
static void
share_refused(struct pmr_nexus *nx, const struct nexus_worker *w,
		uint16_t remote_worker, const struct sockaddr_in *addr)
{
	char uri[PMR_URI_MAX];

	nx->stats.rc_share_refused++;
	nexus_uri_format(addr, uri);
	NX_LOG(DEBUG, "worker %u: no RC QP with worker %u at %s: that "
		"address holds its share of the worker's QPs", w->id,
		remote_worker, uri);
}

static void
pair_free(struct pmr_nexus *nx, struct nexus_rc_pair *p)
{
	struct nexus_session *s;

	while ((s = TAILQ_FIRST(&p->sessions)) != NULL) {
		TAILQ_REMOVE(&p->sessions, s, rc_next);
		s->rc = NULL;
		s->rc_wanted = false;
	}
	if (p->job != NULL)
		nexus_rc_make_abandon(nx, p->job);
	if (p->rc != NULL)
		pmr_transport_rc_destroy(p->w->q, p->rc);
	TAILQ_REMOVE(&nx->rc_pairs, p, next);
	free(p);
}

/*
 * Answer session local_session's RC_WANT, of handshake hs_id: the worker
 * takes the answer only for the session that asked, not for one made
 * under its number since.
 */
static void
send_ready(struct nexus_worker *w, uint16_t local_session, uint64_t hs_id,
		uint16_t status, const struct nexus_rc_pair *p)
{
	struct pmr_sm_msg out = {
		.type = PMR_SM_RC_READY,
		.status = status,
		.local_session = local_session,
		.hs_id = hs_id,
	};

	if (p != NULL) {
		out.remote_worker = p->remote_worker;
		if (status == 0) {
			out.cookie = p->id;
			out.rc = p->rc;
			out.token = p->local.qpn |
				(uint64_t)p->remote_qpn << 32;
		}
	}
	nexus_worker_send(w, &out);
}

/* The pair is connected: hand its QP to each session that asked. */
static void
pair_hand_over(struct nexus_rc_pair *p)
{
	struct nexus_session *s;

	TAILQ_FOREACH(s, &p->sessions, rc_next)
		if (s->rc_wanted) {
			s->rc_wanted = false;
			p->handed = true;
			send_ready(p->w, s->local_session, s->hs_id, 0, p);
		}
}

/* No QP for this pair after all: tell who asked, forget it. */
static void
pair_fail(struct pmr_nexus *nx, struct nexus_rc_pair *p, uint16_t status)
{
	struct nexus_session *s;

	NX_LOG(INFO, "worker %u: no RC QP with worker %u (status %u)",
		p->w->id, p->remote_worker, status);
	TAILQ_FOREACH(s, &p->sessions, rc_next)
		if (s->rc_wanted)
			send_ready(p->w, s->local_session, s->hs_id, status,
					p);
	pair_free(nx, p);
}

/*
 * The pair is not wanted any more, or its QP failed (status not 0: the
 * worker resets the pair's sessions first): take it back from the worker.
 */
static void
pair_down(struct pmr_nexus *nx, struct nexus_rc_pair *p, uint16_t status)
{
	struct pmr_sm_msg out = {
		.type = PMR_SM_RC_DOWN,
		.status = status,
	};
	struct nexus_session *s;

	if (!p->handed) {
		pair_free(nx, p);
		return;
	}
	while ((s = TAILQ_FIRST(&p->sessions)) != NULL) {
		TAILQ_REMOVE(&p->sessions, s, rc_next);
		s->rc = NULL;
		s->rc_wanted = false;
	}
	p->nb_sessions = 0;
	p->state = NX_RC_DOWN;
	out.cookie = p->id;
	out.rc = p->rc;
	out.remote_worker = p->remote_worker;
	nexus_worker_send(p->w, &out);
}

/* Send an RC datagram, through the test faults if any are set. */
static void
rc_send(struct pmr_nexus *nx, const struct sockaddr_in *to,
		const struct nexus_wire_msg *m)
{
	if (likely(nx->rc_drop + nx->rc_dup + nx->rc_hold == 0)) {
		nexus_udp_send_msg(nx, to, m);
		return;
	}
	if (nx->rc_drop > 0) {
		nx->rc_drop--;
		return;
	}
	if (nx->rc_hold > 0 && !nx->rc_held) {
		nx->rc_hold--;
		nx->rc_held = true;
		nx->rc_held_to = *to;
		nx->rc_held_msg = *m;
		return;
	}
	nexus_udp_send_msg(nx, to, m);
	if (nx->rc_dup > 0) {
		nx->rc_dup--;
		nexus_udp_send_msg(nx, to, m);
	}
	if (nx->rc_held) {
		nx->rc_held = false;
		nexus_udp_send_msg(nx, &nx->rc_held_to, &nx->rc_held_msg);
	}
}

void
nexus_rc_faults(struct pmr_nexus *nx, uint32_t drop, uint32_t dup,
		uint32_t hold)
{
	pthread_mutex_lock(&nx->lock);
	nx->rc_drop = drop;
	nx->rc_dup = dup;
	nx->rc_hold = hold;
	pthread_mutex_unlock(&nx->lock);
}

static void
send_req(struct pmr_nexus *nx, const struct nexus_rc_pair *p)
{
	struct nexus_wire_msg m = {
		.type = NEXUS_WIRE_RC_REQ,
		.rc = {
			.src_worker = p->w->id,
			.dst_worker = p->remote_worker,
			.generation = p->generation,
			.boot_id = nx->boot_id,
			.peer_boot_id = p->remote_boot,
			.attr = p->local,
		},
	};

	m.rc.mac = nexus_wire_rc_mac(p->tx_key, &m);
	rc_send(nx, &p->remote, &m);
}

/* An RC_ACK from this nexus to src, MACed under key. */
static void
send_ack(struct pmr_nexus *nx, const struct sockaddr_in *to,
		const uint8_t key[NEXUS_WIRE_SECRET_LEN],
		const struct nexus_wire_rc *req, uint16_t status,
		const struct pmr_transport_rc_attr *attr,
		struct nexus_wire_msg *keep)
{
	struct nexus_wire_msg m = {
		.type = NEXUS_WIRE_RC_ACK,
		.rc = {
			.src_worker = req->dst_worker,
			.dst_worker = req->src_worker,
			.status = status,
			.generation = req->generation,
			.boot_id = nx->boot_id,
			.peer_boot_id = req->boot_id,
		},
	};

	if (status == 0)
		m.rc.attr = *attr;
	m.rc.mac = nexus_wire_rc_mac(key, &m);
	if (keep != NULL)
		*keep = m;
	rc_send(nx, to, &m);
}

static uint16_t
create_status(int err)
{
	return err == ENOTSUP ? PMR_SM_E_FAMILY : PMR_SM_E_NO_RESOURCES;
}

/*
 * Does (boot id, worker id) of this end come before the other's? That
 * end initiates when both ask at once.
 */
static bool
we_lead(const struct pmr_nexus *nx, const struct nexus_rc_pair *p)
{
	if (nx->boot_id != p->remote_boot)
		return nx->boot_id < p->remote_boot;
	return p->w->id < p->remote_worker;
}

/* Responder, its QP made: connect it to p->req's, answer, hand it over. */
static void
answer(struct pmr_nexus *nx, const struct nexus_remote *r,
		struct nexus_rc_pair *p)
{
	if (pmr_transport_rc_connect(p->w->q, p->rc, &p->req.attr) != 0) {
		send_ack(nx, &p->remote, r->tx_key, &p->req,
				PMR_SM_E_BAD_REQUEST, NULL, NULL);
		pair_fail(nx, p, PMR_SM_E_BAD_REQUEST);
		return;
	}
	p->state = NX_RC_UP;
	p->remote_qpn = p->req.attr.qpn;
	send_ack(nx, &p->remote, r->tx_key, &p->req, 0, &p->local, &p->ack);
	pair_hand_over(p);
}

/* Initiator, its QP made: RC_REQ, sent again until answered. */
static void
initiate(struct pmr_nexus *nx, struct nexus_rc_pair *p)
{
	uint64_t now = nexus_now_ms();

	p->state = NX_RC_REQ_SENT;
	p->generation = ++nx->rc_gen;
	if (p->generation == 0)	/* never 0 on the wire */
		p->generation = ++nx->rc_gen;
	p->next_retry_ms = now + nx->conf.connect_retry_ms;
	p->deadline_ms = now + nx->conf.connect_timeout_ms;
	p->wait_end_ms = now + NX_RC_BUSY_MAX_MS;
	send_req(nx, p);
}

void
nexus_rc_made(struct pmr_nexus *nx, struct nexus_rc_job *j)
{
	struct nexus_rc_pair *p = j->owner;
	const struct nexus_remote *r = nexus_remote_find(nx, &p->remote);
	uint64_t ms = j->ms;
	int err = j->err;

	p->job = NULL;
	p->rc = j->rc;
	p->local = j->attr;
	free(j);
	if (ms >= nx->conf.heartbeat_interval_ms)
		NX_LOG(INFO, "worker %u: RC QP with worker %u made in %" PRIu64
			" ms, off the nexus thread", p->w->id,
			p->remote_worker, ms);
	if (p->rc == NULL) {
		if (!p->initiator && r != NULL)
			send_ack(nx, &p->remote, r->tx_key, &p->req,
					create_status(err), NULL, NULL);
		pair_fail(nx, p, create_status(err));
		return;
	}
	if (p->initiator)
		initiate(nx, p);
	else if (r != NULL)
		answer(nx, r, p);
	else
		pair_fail(nx, p, PMR_SM_E_PEER_DEAD);	/* cannot be: unbound */
}

static void
rx_req(struct pmr_nexus *nx, const struct sockaddr_in *src,
		struct nexus_remote *r, const struct nexus_wire_rc *req)
{
	struct nexus_worker *w = nexus_worker_find(nx, req->dst_worker);
	struct nexus_session *s, *any = NULL;
	struct nexus_rc_pair *p;

	if (req->generation < r->rc_rx_gen) {
		nx->stats.rx_bad++;	/* older than one acted on */
		return;
	}
	if (w != NULL)
		TAILQ_FOREACH(s, &r->sessions, rnext)
			if (s->w == w && s->remote_worker == req->src_worker) {
				any = s;
				break;
			}
	if (any == NULL) {
		/* No session between the two workers: nothing made. */
		nx->stats.rx_msgs++;
		send_ack(nx, src, r->tx_key, req, PMR_SM_E_NO_WORKER, NULL,
				NULL);
		return;
	}
	p = pair_find(nx, w, req->src_worker, src, r->boot_id);
	if (req->generation == r->rc_rx_gen) {
		/* A repeat of the one acted on: the same answer. */
		nx->stats.rx_msgs++;
		if (p != NULL && !p->initiator &&
		    p->generation == req->generation) {
			if (p->state == NX_RC_MAKING)
				send_ack(nx, src, r->tx_key, req,
						PMR_SM_E_BUSY, NULL, NULL);
			else
				rc_send(nx, src, &p->ack);
		}
		return;
	}
	if (p != NULL && p->initiator &&
	    (p->state == NX_RC_REQ_SENT || p->state == NX_RC_MAKING)) {
		if (we_lead(nx, p)) {
			/* Ours stands: the other side answers it. */
			nx->stats.rx_msgs++;
			return;
		}
		/* Theirs stands: our QP answers it (once made). */
		p->initiator = false;
	} else if (p != NULL && p->state == NX_RC_MAKING) {
		/* Still making ours: the newest RC_REQ is the one answered. */
	} else if (p != NULL) {
		/*
		 * A new generation for a pair we have: the other side wants
		 * a fresh QP. Ours goes first; its next RC_REQ makes one.
		 */
		nx->stats.rx_msgs++;
		if (p->state == NX_RC_UP)
			pair_down(nx, p, 0);
		return;
	} else {
		if (share_applies(r, w, req->src_worker) &&
		    !share_ok(nx, w, src)) {
			/* Its address holds its share: refused, once a gen. */
			nx->stats.rx_msgs++;
			r->rc_rx_gen = req->generation;
			share_refused(nx, w, req->src_worker, src);
			send_ack(nx, src, r->tx_key, req, PMR_SM_E_SHARE, NULL,
					NULL);
			return;
		}
		p = pair_new(nx, any);
		if (p == NULL) {
			nx->stats.rx_msgs++;
			r->rc_rx_gen = req->generation;
			send_ack(nx, src, r->tx_key, req,
					create_status(rte_errno), NULL, NULL);
			return;
		}
	}
	nx->stats.rx_msgs++;
	r->rc_rx_gen = req->generation;
	p->generation = req->generation;
	p->req = *req;
	if (p->state != NX_RC_MAKING)
		answer(nx, r, p);
	/* Else answered once made (nexus_rc_made()); BUSY to its copies. */
}

static void
rx_ack(struct pmr_nexus *nx, const struct sockaddr_in *src,
		struct nexus_remote *r, const struct nexus_wire_rc *ack)
{
	struct nexus_worker *w = nexus_worker_find(nx, ack->dst_worker);
	struct nexus_rc_pair *p = NULL;

	if (w != NULL)
		p = pair_find(nx, w, ack->src_worker, src, r->boot_id);
	nx->stats.rx_msgs++;
	/* Only the answer to the RC_REQ outstanding: others are late. */
	if (p == NULL || p->state != NX_RC_REQ_SENT || !p->initiator ||
	    p->generation != ack->generation)
		return;
	if (ack->status == PMR_SM_E_BUSY) {
		/* Its QP is being made: wait for it, up to a bound. */
		p->deadline_ms = RTE_MAX(p->deadline_ms,
				RTE_MIN(nexus_now_ms() +
					nx->conf.connect_timeout_ms,
					p->wait_end_ms));
		return;
	}
	if (ack->status != 0) {
		if (ack->status == PMR_SM_E_SHARE && !r->rc_share_told) {
			char uri[PMR_URI_MAX];

			/* Once per remote: clearly, not only a count. */
			r->rc_share_told = true;
			nexus_uri_format(src, uri);
			NX_LOG(WARNING, "%s refused an RC QP between our worker "
				"%u and its worker %u: our address holds its share "
				"of that worker's RC QPs; large messages between "
				"them go as datagrams (said once per remote nexus)",
				uri, w->id, ack->src_worker);
		}
		pair_fail(nx, p, ack->status);
		return;
	}
	if (pmr_transport_rc_connect(w->q, p->rc, &ack->attr) != 0) {
		pair_fail(nx, p, PMR_SM_E_BAD_REQUEST);
		return;
	}
	p->state = NX_RC_UP;
	p->remote_qpn = ack->attr.qpn;
	pair_hand_over(p);
}

void
nexus_rc_rx(struct pmr_nexus *nx, const struct sockaddr_in *src,
		const struct nexus_wire_msg *m)
{
	struct nexus_remote *r = nexus_remote_find(nx, src);

	/*
	 * From a nexus with sessions UP with this one, of the incarnation
	 * that handshook, to this one, under the key we issued it: else
	 * forged, replayed from another incarnation, or late. Nothing made.
	 */
	if (r == NULL || m->rc.boot_id != r->boot_id ||
	    m->rc.peer_boot_id != nx->boot_id ||
	    m->rc.mac != nexus_wire_rc_mac(r->rx_key, m)) {
		nx->stats.rx_bad++;
		return;
	}
	if (m->type == NEXUS_WIRE_RC_REQ)
		rx_req(nx, src, r, &m->rc);
	else
		rx_ack(nx, src, r, &m->rc);
}

static void
worker_want(struct pmr_nexus *nx, struct nexus_worker *w,
		const struct pmr_sm_msg *msg)
{
	struct nexus_session *s = nexus_session_get(w, msg->local_session);
	struct nexus_rc_pair *p;

	if (s == NULL || s->state != NEXUS_S_UP || s->rem == NULL) {
		send_ready(w, msg->local_session, msg->hs_id,
				PMR_SM_E_BAD_REQUEST, NULL);
		return;
	}
	p = s->rc;
	if (p == NULL)
		p = pair_find(nx, w, s->remote_worker, &s->remote,
				s->remote_boot);
	if (p == NULL) {
		if (share_applies(s->rem, w, s->remote_worker) &&
		    !share_ok(nx, w, &s->remote)) {
			share_refused(nx, w, s->remote_worker, &s->remote);
			send_ready(w, msg->local_session, msg->hs_id,
					PMR_SM_E_SHARE, NULL);
			return;
		}
		p = pair_new(nx, s);
		if (p == NULL) {
			send_ready(w, msg->local_session, msg->hs_id,
					create_status(rte_errno), NULL);
			return;
		}
		p->initiator = true;	/* RC_REQ once made: initiate() */
	}
	if (s->rc == NULL) {
		/* Cannot be: pair_bind_all() took every UP session. */
		send_ready(w, msg->local_session, msg->hs_id,
				PMR_SM_E_BAD_REQUEST, NULL);
		return;
	}
	s->rc_wanted = true;
	if (p->state == NX_RC_UP)
		pair_hand_over(p);
}

static void
worker_released(struct pmr_nexus *nx, struct nexus_worker *w,
		const struct pmr_sm_msg *msg)
{
	struct nexus_rc_pair *p;

	TAILQ_FOREACH(p, &nx->rc_pairs, next)
		if (p->w == w && p->id == msg->cookie &&
		    p->state == NX_RC_DOWN) {
			pair_free(nx, p);
			return;
		}
	NX_LOG(WARNING, "worker %u: RC_RELEASED of unknown pair %" PRIu64,
		w->id, msg->cookie);
}

/*
 * The worker's QP of the pair failed by the transport (RC_FAILED): take
 * it back, the sessions staying UP; their next RC_WANT makes a new pair
 * (pair_find() passes over one going down), whose RC_REQ, of a new
 * generation, makes the remote nexus take its end back too.
 */
static void
worker_failed(struct pmr_nexus *nx, struct nexus_worker *w,
		const struct pmr_sm_msg *msg)
{
	struct nexus_rc_pair *p;

	TAILQ_FOREACH(p, &nx->rc_pairs, next)
		if (p->w == w && p->id == msg->cookie) {
			if (p->state != NX_RC_UP)
				return;	/* going down already */
			NX_LOG(INFO, "worker %u: the RC QP with worker %u "
				"failed by the transport: replaced, its "
				"sessions go on", w->id, p->remote_worker);
			nx->stats.rc_replaced++;
			pair_down(nx, p, 0);
			return;
		}
}

void
nexus_rc_worker_msg(struct pmr_nexus *nx, struct nexus_worker *w,
		const struct pmr_sm_msg *msg)
{
	if (msg->type == PMR_SM_RC_WANT)
		worker_want(nx, w, msg);
	else if (msg->type == PMR_SM_RC_FAILED)
		worker_failed(nx, w, msg);
	else
		worker_released(nx, w, msg);
}

/* s has just become UP: it shares its workers' pair, if there is one. */
void
nexus_rc_session_up(struct pmr_nexus *nx, struct nexus_session *s)
{
	struct nexus_rc_pair *p = pair_find(nx, s->w, s->remote_worker,
			&s->remote, s->remote_boot);

	if (p == NULL || s->rc != NULL)
		return;
	s->rc = p;
	TAILQ_INSERT_TAIL(&p->sessions, s, rc_next);
	p->nb_sessions++;
}

/* s leaves UP: its pair goes with its last session. */
void
nexus_rc_session_down(struct pmr_nexus *nx, struct nexus_session *s)
{
	struct nexus_rc_pair *p = s->rc;

	if (p == NULL)
		return;
	TAILQ_REMOVE(&p->sessions, s, rc_next);
	s->rc = NULL;
	s->rc_wanted = false;
	if (--p->nb_sessions > 0)
		return;
	if (p->state == NX_RC_REQ_SENT || p->state == NX_RC_MAKING)
		pair_free(nx, p);
	else
		pair_down(nx, p, 0);
}

void
nexus_rc_timers(struct pmr_nexus *nx, uint64_t now)
{
	struct nexus_rc_pair *p, *tmp;

	RTE_TAILQ_FOREACH_SAFE(p, &nx->rc_pairs, next, tmp) {
		if (p->state != NX_RC_REQ_SENT)
			continue;
		if (now >= p->deadline_ms) {
			pair_fail(nx, p, PMR_SM_E_TIMEOUT);
		} else if (now >= p->next_retry_ms) {
			send_req(nx, p);
			p->next_retry_ms = now + nx->conf.connect_retry_ms;
		}
	}
}

void
nexus_rc_stalled(struct pmr_nexus *nx, uint64_t stall_ms, uint64_t now)
{
	uint64_t full = now + nx->conf.connect_timeout_ms;
	struct nexus_rc_pair *p;

	TAILQ_FOREACH(p, &nx->rc_pairs, next)
		if (p->state == NX_RC_REQ_SENT)
			p->deadline_ms = RTE_MAX(p->deadline_ms,
					RTE_MIN(p->deadline_ms + stall_ms,
						full));
}

/* w detaches, its QPs drained (pmr_worker_destroy()): destroy them. */
void
nexus_rc_worker_gone(struct pmr_nexus *nx, struct nexus_worker *w)
{
	struct nexus_rc_pair *p, *tmp;

	RTE_TAILQ_FOREACH_SAFE(p, &nx->rc_pairs, next, tmp)
		if (p->w == w)
			pair_free(nx, p);
	/* A QP of w's queue being made: not past the queue's life. */
	nexus_rc_make_wait(nx, w->q);
}

void
nexus_rc_free_all(struct pmr_nexus *nx)
{
	struct nexus_rc_pair *p;

	while ((p = TAILQ_FIRST(&nx->rc_pairs)) != NULL)
		pair_free(nx, p);
}

/*
 * A device event says w's RC QP rc failed (QP fatal, access error), maybe
 * with no operation on it to fail: the pair is taken back with a status,
 * so that the worker resets the pair's sessions (onto a fresh QP, as when
 * an operation fails) before it drains and releases it.
 */
bool
nexus_rc_qp_failed(struct pmr_nexus *nx, struct nexus_worker *w,
		const struct pmr_transport_rc *rc)
{
	struct nexus_rc_pair *p;

	TAILQ_FOREACH(p, &nx->rc_pairs, next) {
		if (p->w != w || p->rc != rc)
			continue;
		if (p->state == NX_RC_DOWN)
			return false;
		NX_LOG(NOTICE, "worker %u: the RC QP with worker %u failed: "
			"its sessions reset", w->id, p->remote_worker);
		if (!p->handed)
			pair_fail(nx, p, PMR_SM_E_REMOTE);
		else
			pair_down(nx, p, PMR_SM_E_REMOTE);
		return true;
	}
	return false;
}
