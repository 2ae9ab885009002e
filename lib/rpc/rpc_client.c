/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The client side: pmr_request() and its variants, the session window and
 * the backlog beyond it, sending request packets and requests for
 * response packets as credits allow, taking credit returns and response
 * packets in order (go-back-N), what a retransmission or a timeout does
 * to a request (rpc_timers.c says when), and running each continuation
 * exactly once.
 *
 * A request of R packets with a response of S packets is a sequence of
 * R + S - 1 client packets, each answered by one server packet of the same
 * index: request packets 0..R-2 by credit returns, request packet R-1 by
 * response packet 0, and requests for response packets 1..S-1 by those.
 * Each client packet takes a session credit; its answer gives it back.
 */

#include <inttypes.h>
#include <string.h>

#include "rpc_client.h"
#include "rpc_client_rx.h"
#include "rpc_private.h"
#include "rpc_rc.h"
#include "rpc_rdv.h"
#include "rpc_session.h"
#include "rpc_timers.h"
#include "rpc_tx.h"

static struct rpc_creq *
creq_get(struct pmr_worker *w)
{
	if (w->nb_creq_free == 0)
		return NULL;
	return w->creq_free[--w->nb_creq_free];
}

static inline uint32_t
creq_total_tx(const struct rpc_creq *r)
{
	return r->resp.pkts == 0 ? r->req_pkts :
		r->req_pkts + r->resp.pkts - 1;
}

/* creq_tx() for all but a fresh single-packet request. */
static void
creq_tx_slow(struct pmr_worker *w, struct rpc_session *s, struct rpc_creq *r)
{
	uint32_t total = creq_total_tx(r);
	struct pmr_pkthdr h;

	if (r->num_tx >= total)
		return;
	/* By READ: nothing goes before the offer is readable. */
	if (unlikely(r->rdv == RPC_RDV_WAIT))
		return;
	h = (struct pmr_pkthdr){
		.req_type = r->req_type,
		.dest_session = s->remote_session,
		.token = s->token,
		.req_num = r->req_num,
	};
	while (r->num_tx < total) {
		if (s->credits == 0) {
			w->stats.credit_stalls++;
			s->starved = true;
			return;
		}
		s->credits--;
		if (unlikely(r->resp_again)) {
			/* In place of the request's last packet: the
			 * response as datagrams, please (its packet 0). */
			h.pkt_type = PMR_PKT_RFR;
			h.pkt_num = 0;
			h.msg_size = 0;
			rpc_tx_ctrl(w, s, &h);
		} else if (unlikely(r->rdv != RPC_RDV_NONE &&
				    r->num_tx == 0)) {
			rpc_rdv_tx_req_desc(w, s, r);	/* in its place */
		} else if (r->num_tx < r->req_pkts) {
			h.pkt_type = PMR_PKT_REQ;
			h.pkt_num = (uint16_t)r->num_tx;
			h.msg_size = r->mb->len;
			rpc_tx_pkt(w, s, &h, r->mb, s->plen);
		} else {
			h.pkt_type = PMR_PKT_RFR;
			h.pkt_num = (uint16_t)(r->num_tx - r->req_pkts + 1);
			h.msg_size = r->resp.size;
			rpc_tx_ctrl(w, s, &h);
		}
		r->num_tx++;
		r->last_tx = rte_get_timer_cycles();
		r->tx_round = w->tx_bursts;
	}
}

/*
 * Send what r may send: its next packets, while the session has credits.
 * Inline for the common case, the one packet of a fresh single-packet
 * request (which then has nothing more to send: no response yet); not
 * one whose response is asked for again (its packet is an RFR then).
 */
static __rte_always_inline void
creq_tx(struct pmr_worker *w, struct rpc_session *s, struct rpc_creq *r)
{
	if (likely(r->num_tx == 0 && r->req_pkts == 1 && s->credits != 0 &&
		   !r->resp_again && rpc_tx_inplace_ok(w, s, r->mb))) {
		s->credits--;
		rpc_tx_inplace(w, s, r->mb, PMR_PKT_REQ, r->req_type,
				r->req_num, 0, false);
		r->num_tx = 1;
		r->last_tx = rte_get_timer_cycles();
		r->tx_round = w->tx_bursts;
		return;
	}
	creq_tx_slow(w, s, r);
}

/*
 * Give the requests of the window waiting for credits their turn, round
 * robin: each kick starts at the slot after the last one the previous
 * kick reached, so that a request waits at most one round of the window
 * whatever the slots around it do.
 */
void
rpc_session_kick(struct pmr_worker *w, struct rpc_session *s)
{
	uint16_t n, i = s->kick_pos;

	s->starved = false;
	for (n = 0; n < w->window && s->credits != 0; n++) {
		if (s->window[i] != NULL)
			creq_tx(w, s, s->window[i]);
		if (++i == w->window)
			i = 0;
	}
	s->kick_pos = i;
	/* Out of credits before the last slot: some may still wait. */
	if (s->credits == 0)
		s->starved = true;
}

/*
 * Move queued requests into free window slots. Responses complete out of
 * order, so a request takes a free slot i and the next number of that
 * slot (i, i + window, i + 2 window, ...): the server, whose slots are the
 * same, then sees each slot's numbers grow.
 */
static inline void
creq_enter_window(struct pmr_worker *w, struct rpc_session *s,
		struct rpc_creq *r, uint16_t i)
{
	r->req_num = s->slot_req_num[i] & PMR_REQ_NUM_MASK;
	s->slot_req_num[i] += w->window;
	r->slot = i;
	r->in_window = true;
	s->window[i] = r;
	s->in_flight++;
	w->stats.reqs_sent++;
	/* Large: by READ, if it can (rpc_rdv.c decides; 1 packet then). */
	if (unlikely(r->req_pkts > 1) && w->rdv != NULL)
		rpc_rdv_client_prepare(w, r->session, r);
	/*
	 * Requests already waiting for credits go first: a new one takes
	 * its turn with them, or one that keeps being issued as others
	 * complete would take every credit that comes back.
	 */
	if (unlikely(s->starved))
		rpc_session_kick(w, s);
	else
		creq_tx(w, s, r);
}

void
rpc_window_fill(struct pmr_worker *w, uint16_t sn)
{
	struct rpc_session *s = &w->sessions[sn];
	struct rpc_creq *r;
	uint16_t i = 0;

	while (s->in_flight < w->window &&
	       (r = TAILQ_FIRST(&s->backlog)) != NULL) {
		while (s->window[i] != NULL)
			i++;
		TAILQ_REMOVE(&s->backlog, r, next);
		creq_enter_window(w, s, r, i);
	}
}

/*
 * A request, with the worker's req_timeout (ticks 0) at the tail of
 * w->all, or with a deadline of its own (ticks, or an allowance for its
 * size: rpc_timers.h) in w->timed. h: a handle (cont is
 * rpc_req_handle.c's), whose response msgbuf the worker holds too.
 * Inlined in its callers (h == NULL and ticks 0 fold away in two of
 * them).
 */
static __rte_always_inline int
request_submit(struct pmr_worker *w, int session, uint8_t req_type,
		struct pmr_msgbuf *req, pmr_cont_t cont, void *tag,
		struct pmr_req_handle *h, uint64_t ticks)
{
	struct rpc_session *s;
	struct rpc_creq *r;
	uint64_t now, extra;
	uint16_t i;

	if (w == NULL || session < 0 || (uint32_t)session >= w->max_sessions ||
	    req == NULL)
		return -EINVAL;
	s = &w->sessions[session];
	if (!s->client || s->closing ||
	    (s->state != PMR_SESSION_CONNECTING &&
	     s->state != PMR_SESSION_CONNECTED))
		return -EINVAL;
	if (req->len > w->max_msg)
		return -EMSGSIZE;
	if (unlikely(!rpc_msgbuf_free_to_give(req) ||
		     (h != NULL && !rpc_msgbuf_free_to_give(h->resp)))) {
		w->stats.msgbuf_busy++;	/* in a pending request already */
		return -EBUSY;
	}
	r = creq_get(w);
	if (r == NULL)
		return -ENOBUFS;
	rpc_msgbuf_hold(req);		/* until the continuation runs */
	if (h != NULL)
		rpc_msgbuf_hold(h->resp);
	/* Every field, without a memset of the whole record. */
	r->mb = req;
	r->cont = cont;
	r->tag = tag;
	/*
	 * Not here: req_num and slot (set on entering the window, req_num
	 * too on queueing), last_tx (on sending), the response's shape
	 * (with its first packet), status and has_resp (on completion).
	 */
	/*
	 * In packets of the session's size: the worker's until the
	 * handshake says (rpc_session_up() counts a backlog's again).
	 */
	r->req_pkts = rpc_msg_pkts(req->len, s->plen);
	r->resp.pkts = 0;
	r->num_tx = 0;
	r->tx_round = w->tx_bursts - 1;	/* not queued */
	r->num_rx = 0;
	r->session = (uint16_t)session;
	r->req_type = req_type;
	r->in_window = false;
	r->rdv = RPC_RDV_NONE;
	r->rto_shift = 0;
	/* Deadline order is submit order (see pmr_request_timeout()). */
	now = rte_get_timer_cycles();
	rpc_timer_creq_add(w, r, now);
	extra = rpc_timer_allowance(w, req->len);
	if (ticks != 0 || extra != 0)
		rpc_timer_creq_set(w, r, now + extra +
				(ticks != 0 ? ticks : w->req_timeout));
	if (s->state != PMR_SESSION_CONNECTED) {
		r->req_num = 0;		/* logged if it times out queued */
		TAILQ_INSERT_TAIL(&s->backlog, r, next);
		return 0;
	}
	if (likely(s->in_flight < w->window && TAILQ_EMPTY(&s->backlog))) {
		/* Straight into a free slot of the window. */
		for (i = 0; s->window[i] != NULL; i++)
			;
		creq_enter_window(w, s, r, i);
		return 0;
	}
	r->req_num = 0;
	TAILQ_INSERT_TAIL(&s->backlog, r, next);
	rpc_window_fill(w, (uint16_t)session);
	return 0;
}

/* request_submit() out of line, for pmr_request()'s other cases. */
static __rte_noinline int
request_submit_slow(struct pmr_worker *w, int session, uint8_t req_type,
		struct pmr_msgbuf *req, pmr_cont_t cont, void *tag)
{
	return request_submit(w, session, req_type, req, cont, tag, NULL, 0);
}

/*
 * The common case of pmr_request(), straight through: a single-packet
 * request on a connected session with a free window slot, no backlog and
 * a credit, sent in place at once. What request_submit() and creq_tx()
 * would do for it, with one test per condition, no stores that the send
 * overwrites and one clock read for the deadline and last_tx. Anything
 * else (and every error) goes to request_submit(), which checks again.
 */
int
pmr_request(struct pmr_worker *w, int session, uint8_t req_type,
		struct pmr_msgbuf *req, pmr_cont_t cont, void *tag)
{
	struct rpc_session *s;
	struct rpc_creq *r;
	uint64_t now, num;
	uint16_t i;

	/* Unsigned: a negative session is past max_sessions (<= 65536). */
	if (unlikely(w == NULL || cont == NULL || req == NULL ||
		     (uint32_t)session >= w->max_sessions))
		return -EINVAL;
	s = &w->sessions[session];
	/*
	 * rx_accept is RPC_RX_CLIENT for a client session CONNECTED and
	 * not closing, exactly (rpc_session_rx_update() keeps it).
	 */
	if (unlikely(s->rx_accept != RPC_RX_CLIENT ||
		     req->len > s->inplace_max ||
		     req->headroom < w->headroom || req->flags != 0 ||
		     pmr_msgbuf_tx_pending(req) != 0 ||
		     w->nb_creq_free == 0 || s->in_flight >= w->window ||
		     !TAILQ_EMPTY(&s->backlog) || s->starved ||
		     s->credits == 0))
		return request_submit_slow(w, session, req_type, req, cont,
				tag);
	/* The session's counts first: their values die here. */
	s->in_flight++;
	s->credits--;
	w->stats.reqs_sent++;
	r = w->creq_free[--w->nb_creq_free];
	/* r->resp.mb is NULL in a free record (creq_finish()). */
	r->mb = req;
	r->cont = cont;
	r->tag = tag;
	r->req_pkts = 1;
	r->resp.pkts = 0;
	r->num_tx = 1;
	r->num_rx = 0;
	r->session = (uint16_t)session;
	r->req_type = req_type;
	req->flags = PMR_MSGBUF_F_WORKER;	/* rpc_msgbuf_hold(): was 0 */
	for (i = 0; s->window[i] != NULL; i++)
		;
	/* creq_enter_window() */
	num = s->slot_req_num[i] & PMR_REQ_NUM_MASK;
	r->req_num = num;
	s->slot_req_num[i] += w->window;
	r->slot = i;
	r->in_window = true;
	s->window[i] = r;
	/* creq_tx() */
	rpc_tx_inplace(w, s, req, PMR_PKT_REQ, req_type, num, 0, false);
	now = rte_get_timer_cycles();
	r->last_tx = now;
	r->tx_round = w->tx_bursts;
	rpc_timer_creq_add(w, r, now);
	return 0;
}

int
pmr_request_timeout(struct pmr_worker *w, int session, uint8_t req_type,
		struct pmr_msgbuf *req, pmr_cont_t cont, void *tag,
		uint32_t timeout_ms)
{
	uint64_t ticks;

	if (cont == NULL || timeout_ms > PMR_REQ_TIMEOUT_MAX_MS)
		return -EINVAL;
	/* To w->timed, with its own deadline: pmr_request() pays nothing. */
	ticks = rte_get_timer_hz() * timeout_ms / 1000;
	if (w != NULL && ticks == w->req_timeout)
		ticks = 0;
	return request_submit(w, session, req_type, req, cont, tag, NULL,
			ticks);
}

/* request_submit() for a handle (rpc_req_handle.c): cont fills it. */
int
rpc_request_submit_handle(struct pmr_worker *w, int session,
		uint8_t req_type, struct pmr_msgbuf *req, pmr_cont_t cont,
		struct pmr_req_handle *h)
{
	return request_submit(w, session, req_type, req, cont, h, h, 0);
}

/*
 * Run the continuation (a handle's: rpc_req_handle.c), then recycle r.
 * pkt: its single-packet response, if not kept in r.
 */
static inline void
creq_finish(struct pmr_worker *w, struct rpc_creq *r, struct pmr_rx_pkt *pkt)
{
	struct pmr_resp resp = {
		.status = r->status,
		.req = r->mb,
	};

	if (r->status == PMR_OK) {
		if (r->resp.mb != NULL) {
			resp.data = r->resp.mb->data;
			resp.len = r->resp.mb->len;
		} else if (pkt != NULL) {
			resp.data = pkt->data;
			resp.len = pkt->len;
		}
	}
	w->stats.reqs_completed++;
	rpc_msgbuf_unhold(r->mb);		/* the caller's again */
	r->cont(w, &resp, r->tag);
	if (pkt != NULL)
		pmr_transport_rx_release(w->q, pkt, 1);
	if (unlikely(r->resp.mb != NULL)) {
		rpc_msgbuf_put(r->resp.mb);
		r->resp.mb = NULL;	/* as a free record has it */
	}
	r->rdv = RPC_RDV_NONE;		/* offer and reading are done */
	r->rto_shift = 0;
	r->resp_again = false;
	rpc_creq_put(w, r);
}

/*
 * Complete r with status (and its single-packet response, zero-copy).
 * Its msgbuf goes back to the application, so the driver must be done
 * with it first: usually it is; else wait in the completing list.
 */
static __rte_always_inline void
creq_complete_inl(struct pmr_worker *w, struct rpc_creq *r,
		enum pmr_status status, struct pmr_rx_pkt *resp)
{
	struct rpc_session *s = &w->sessions[r->session];

	rpc_timer_creq_del(r);
	if (r->in_window) {
		/* The server answered in this slot: it works. */
		if (status != PMR_E_TIMEOUT && status != PMR_E_SESSION_RESET)
			s->slot_timeouts[r->slot] = 0;
		s->window[r->slot] = NULL;
		s->in_flight--;
		/* Packets still unanswered will not be: their credits back. */
		s->credits += (uint16_t)(r->num_tx - r->num_rx);
		r->in_window = false;
	} else {
		TAILQ_REMOVE(&s->backlog, r, next);
	}
	r->status = status;
	if (unlikely(status != PMR_OK)) {
		rpc_msgbuf_put(r->resp.mb);
		r->resp.mb = NULL;
		if (status == PMR_E_TIMEOUT)
			w->stats.timeouts++;
	}
	/*
	 * A packet of it may still wait in the TX burst (queued in this
	 * poll, or by a call since the last one: bursts go at the end of
	 * each poll): send the burst first, or the application would get its
	 * msgbuf back before the driver has read it. The burst is told by
	 * its flush count, not by the poll count: a poll counts itself at
	 * its start, so a packet a pmr_request() queued between two polls
	 * was of the previous poll's round while it still waited in this
	 * one's burst (a response or a timeout completing it in this poll
	 * gave its msgbuf back unsent).
	 */
	if (unlikely(r->tx_round == w->tx_bursts) && w->nb_tx != 0 &&
	    rpc_tx_queued(w, r->mb))
		rpc_tx_flush(w);
	if (likely(pmr_msgbuf_tx_pending(r->mb) == 0)) {
		creq_finish(w, r, resp);
		return;
	}
	r->has_resp = resp != NULL;
	if (resp != NULL)
		r->resp_pkt = *resp;
	pmr_transport_tx_flush(w->q);
	TAILQ_INSERT_TAIL(&w->completing, r, next);
	w->poll_later = true;
}

/* Out of line for the rarer completions (errors, timeouts, big ones). */
static __rte_noinline void
creq_complete(struct pmr_worker *w, struct rpc_creq *r,
		enum pmr_status status, struct pmr_rx_pkt *resp)
{
	creq_complete_inl(w, r, status, resp);
}

int
rpc_completing_poll(struct pmr_worker *w)
{
	struct rpc_creq *r, *tmp;
	int n = 0;

	pmr_transport_tx_flush(w->q);
	for (r = TAILQ_FIRST(&w->completing); r != NULL; r = tmp) {
		tmp = TAILQ_NEXT(r, next);
		if (pmr_msgbuf_tx_pending(r->mb) != 0) {
			/*
			 * An offer holds a reference until its window is
			 * invalidated: drop it now (once), the reference
			 * goes when that completed.
			 */
			if (unlikely(r->offer != NULL))
				rpc_rdv_creq_done(w, r);
			continue;
		}
		TAILQ_REMOVE(&w->completing, r, next);
		creq_finish(w, r, r->has_resp ? &r->resp_pkt : NULL);
		n++;
	}
	return n;
}

/*
 * The whole multi-packet response arrived: say so (a request for the
 * packet past the last), so the server frees it now rather than when the
 * slot's next request comes. Unanswered, so it takes no credit; if lost,
 * the server frees it then anyway.
 */
static void
creq_ack(struct pmr_worker *w, struct rpc_session *s,
		const struct rpc_creq *r)
{
	struct pmr_pkthdr h = {
		.pkt_type = PMR_PKT_RFR,
		.req_type = r->req_type,
		.dest_session = s->remote_session,
		.pkt_num = (uint16_t)r->resp.pkts,
		.msg_size = r->resp.size,
		.token = s->token,
		.req_num = r->req_num,
	};

	rpc_tx_ctrl(w, s, &h);
}

/*
 * Response packet j of r arrived in order: keep its payload. Packet 0
 * says what the response is: checked before anything of it is kept.
 * -EPROTO: not a packet a server sends (dropped); -EMSGSIZE: a response
 * over our max_msg_size; -ENOMEM: no buffer for it.
 */
static int
creq_rx_resp(struct pmr_worker *w, struct rpc_creq *r,
		const struct pmr_pkthdr *h, struct pmr_rx_pkt *pkt)
{
	uint32_t j = h->pkt_num;

	if (j == 0) {
		if (rpc_msg_rx_shape(&r->resp, h->msg_size, pkt->len) != 0)
			return -EPROTO;
		r->resp_again = false;
		if (h->msg_size > w->max_msg) {
			r->resp.pkts = 0;
			return -EMSGSIZE;
		}
		if (r->resp.pkts == 1)
			return 0;	/* complete: zero-copy */
		r->resp.mb = rpc_msgbuf_alloc(w, h->msg_size);
		if (r->resp.mb == NULL)
			return -ENOMEM;
		/* Its size is known: time to fetch it (once: packet 0). */
		rpc_timer_creq_extend(w, r, h->msg_size);
	}
	if (!rpc_msg_rx_fits(&r->resp, j, h->msg_size, pkt->len))
		return -EPROTO;
	rpc_msg_rx_put(&r->resp, j, pkt->data, pkt->len);
	w->stats.copied_bytes += pkt->len;
	return 0;
}

/*
 * The request may send on, others waiting for the credit get their turn,
 * the window refills: after a reply, r still pending (NULL if completed:
 * it is recycled then). The continuation may have closed the session.
 */
static inline void
session_next(struct pmr_worker *w, struct rpc_session *s, uint16_t sn,
		struct rpc_creq *r)
{
	if (s->state != PMR_SESSION_CONNECTED || s->closing)
		return;
	if (r != NULL)
		creq_tx(w, s, r);
	if (s->starved)
		rpc_session_kick(w, s);
	if (!TAILQ_EMPTY(&s->backlog))
		rpc_window_fill(w, sn);
}

/*
 * r's response cannot be read (its READ failed by the transport, or it is
 * offered on a QP ours is not connected to): ask for it as datagrams, an
 * RFR of its packet 0 in place of the request's last packet; the server
 * sends it from a copy, the next packets as r asks for them.
 */
static void
creq_resp_again(struct pmr_worker *w, struct rpc_session *s,
		struct rpc_creq *r)
{
	rpc_msgbuf_put(r->resp.mb);
	r->resp = (struct rpc_msg_rx){ .mb = NULL };
	r->num_rx = r->req_pkts - 1;
	r->num_tx = r->num_rx;
	r->resp_again = true;
	w->stats.rdv_recovered++;
	if (s->state == PMR_SESSION_CONNECTED && !s->closing)
		creq_tx(w, s, r);
}

/*
 * The server could not read r's request (its READ failed by the
 * transport; it never ran): send it again as datagrams in the same slot,
 * under the slot's next number, so that the server takes it as a new
 * request. The offer goes (the reader is done with it); the deadline
 * stays.
 */
static void
creq_again(struct pmr_worker *w, struct rpc_session *s, struct rpc_creq *r)
{
	rpc_rdv_creq_unoffer(w, r);
	s->credits += (uint16_t)(r->num_tx - r->num_rx);
	r->num_tx = 0;
	r->num_rx = 0;
	r->rdv = RPC_RDV_NONE;
	r->rto_shift = 0;
	r->req_pkts = rpc_msg_pkts(r->mb->len, s->plen);
	r->req_num = s->slot_req_num[r->slot] & PMR_REQ_NUM_MASK;
	s->slot_req_num[r->slot] += w->window;
	w->stats.rdv_recovered++;
}

/*
 * A status alone (the server refused the request, maybe at its first
 * packet while we still send the others): r is done, at whatever point
 * of the exchange.
 */
static bool
creq_rx_status(struct pmr_worker *w, struct rpc_session *s, uint16_t sn,
		struct rpc_creq *r, const struct pmr_pkthdr *h)
{
	if (h->pkt_num != 0 || r->num_tx == 0) {
		rpc_count_drop(w, RPC_DROP_BAD_PKT);
		return false;
	}
	if (h->status == RPC_STATUS_RDV_AGAIN && r->offer != NULL &&
	    r->num_rx == 0) {
		/* Its READ failed by the transport: again, as datagrams. */
		creq_again(w, s, r);
		session_next(w, s, sn, r);
		return false;
	}
	/* Only what a server answers; TIMEOUT and the like are ours. */
	creq_complete(w, r, h->status == PMR_E_NOMEM ||
			h->status == PMR_E_MSGSIZE ?
			(enum pmr_status)h->status : PMR_E_REMOTE_ERROR, NULL);
	session_next(w, s, sn, NULL);
	return false;
}

/*
 * A credit return or response packet for a request of session sn (a
 * client session, the packet authenticated). True if the packet was kept
 * (a single-packet response, handed to the continuation in place, then
 * released); else the caller releases it.
 */
bool
rpc_client_rx(struct pmr_worker *w, uint16_t sn, const struct pmr_pkthdr *h,
		struct pmr_rx_pkt *pkt)
{
	struct rpc_session *s = &w->sessions[sn];
	struct rpc_creq *r = s->window[rpc_slot_of(w, h->req_num)];
	bool kept = false;
	uint32_t idx;
	int ret;

	if (unlikely(r == NULL || r->req_num != h->req_num)) {
		rpc_count_drop(w, RPC_DROP_STALE);
		return false;
	}
	/* The common case (rpc_client_rx_fast() may have looked already). */
	if (likely(rpc_creq_fast_reply(r, h, pkt))) {
		rpc_creq_complete_fast(w, s, sn, r, pkt);
		return true;
	}
	if (unlikely(h->pkt_type == PMR_PKT_RESP && h->status != PMR_OK))
		return creq_rx_status(w, s, sn, r, h);
	idx = h->pkt_type == PMR_PKT_CR ? h->pkt_num :
		r->req_pkts - 1 + h->pkt_num;
	if (unlikely(h->pkt_type == PMR_PKT_CR &&
		     h->pkt_num >= r->req_pkts - 1)) {
		rpc_count_drop(w, RPC_DROP_BAD_PKT);
		return false;
	}
	if (idx != r->num_rx || idx >= r->num_tx) {
		/* A duplicate, or ahead of a lost one: go-back-N. */
		rpc_count_drop(w, idx < r->num_rx ? RPC_DROP_STALE :
				RPC_DROP_ORDER);
		return false;
	}
	if (unlikely(h->pkt_type == PMR_PKT_RESP_DESC)) {
		/* The response by READ: r completes when it is read. */
		if (unlikely(r->resp_again)) {
			/* A late copy: its READ failed, datagrams asked. */
			rpc_count_drop(w, RPC_DROP_STALE);
			return false;
		}
		ret = rpc_rdv_client_read(w, sn, r, h, pkt);
		if (ret == -EPROTO)
			rpc_count_drop(w, RPC_DROP_BAD_PKT);
		if (ret == -EPROTO || ret == -EAGAIN)
			return false;
		r->num_rx++;
		s->credits++;
		if (unlikely(ret == -ESTALE)) {
			/* Offered on another pair's QP, or the session backs
			 * off from READs: as datagrams. */
			creq_resp_again(w, s, r);
			return false;
		}
		if (ret != 0) {
			creq_complete(w, r, ret == -EMSGSIZE ? PMR_E_MSGSIZE :
					PMR_E_NOMEM, NULL);
			r = NULL;
		}
	} else if (h->pkt_type == PMR_PKT_RESP) {
		ret = creq_rx_resp(w, r, h, pkt);
		if (unlikely(ret == -EPROTO)) {
			rpc_count_drop(w, RPC_DROP_BAD_PKT);
			return false;
		}
		r->num_rx++;
		s->credits++;
		if (unlikely(ret != 0)) {
			/* The server frees the response on its timer. */
			creq_complete(w, r, ret == -EMSGSIZE ? PMR_E_MSGSIZE :
					PMR_E_NOMEM, NULL);
			r = NULL;
		} else if (r->resp.pkts == 1) {
			creq_complete(w, r, PMR_OK, pkt);	/* zero-copy */
			r = NULL;
			kept = true;
		} else if (r->num_rx == creq_total_tx(r)) {
			creq_ack(w, s, r);
			creq_complete(w, r, PMR_OK, NULL);
			r = NULL;
		}
	} else {
		r->num_rx++;
		s->credits++;
	}
	session_next(w, s, sn, r);
	return kept;
}

void
rpc_client_rdv_send(struct pmr_worker *w, struct rpc_creq *r)
{
	struct rpc_session *s = &w->sessions[r->session];

	if (r->rdv == RPC_RDV_WAIT && r->offer != NULL)
		r->rdv = RPC_RDV_READY;		/* its BIND completed */
	if (r->in_window && s->state == PMR_SESSION_CONNECTED && !s->closing)
		creq_tx(w, s, r);
}

void
rpc_client_rdv_read_done(struct pmr_worker *w, struct rpc_creq *r,
		unsigned int status)
{
	struct rpc_session *s = &w->sessions[r->session];

	if (!r->in_window)
		return;		/* completed already: completing waits */
	if (unlikely(status != PMR_RC_OK && rpc_rc_status_lost(status) &&
		     s->state == PMR_SESSION_CONNECTED && !s->closing)) {
		/* Lost to the transport (the pair is replaced, the session
		 * stays). */
		creq_resp_again(w, s, r);
		return;
	}
	if (status != PMR_RC_OK) {
		/* Its pair failed: the session is reset next. */
		creq_complete(w, r, PMR_E_SESSION_RESET, NULL);
		return;
	}
	r->resp.mb->len = r->resp.size;
	creq_ack(w, s, r);
	creq_complete(w, r, PMR_OK, NULL);
	session_next(w, s, r->session, NULL);
}

/*
 * RPC_SLOT_TIMEOUTS_MAX requests in a row timed out in one slot of the
 * session: the server skips no more numbers in it (rpc_server_rx()), and
 * something is wrong anyway. Reset the session as if the peer went, and
 * tell the server as for a close.
 */
static void
session_timeout_reset(struct pmr_worker *w, uint16_t sn)
{
	struct rpc_session *s = &w->sessions[sn];

	RPC_LOG(NOTICE, "worker %u: session %u reset: %u timeouts in a row "
		"in a window slot", w->worker_id, sn, RPC_SLOT_TIMEOUTS_MAX);
	w->stats.timeout_resets++;
	s->state = PMR_SESSION_RESET;
	rpc_session_rx_update(s);
	rpc_creq_fail_all(w, s, PMR_E_SESSION_RESET);
	rpc_session_release(w, sn, true);
	if (s->cb != NULL && !s->closing)
		s->cb(w, sn, PMR_SESSION_EV_RESET, -ETIMEDOUT, s->cb_arg);
}

/* r's deadline passed (rpc_timers.c): it completes with PMR_E_TIMEOUT. */
void
rpc_client_expire(struct pmr_worker *w, struct rpc_creq *r)
{
	uint16_t sn = r->session, slot = r->slot;
	bool in_window = r->in_window;
	struct rpc_session *s = &w->sessions[sn];

	RPC_LOG(DEBUG, "worker %u: request %" PRIu64 " of session %u "
		"timed out: %s, packets %u+%u, sent %u, answered %u, "
		"session credits %u; by READ: path %u, offer %s, rto shift "
		"%u, response %s; RC state %u, back-off %s",
		w->worker_id, r->req_num, sn,
		r->in_window ? "in window" : "queued", r->req_pkts,
		r->resp.pkts, r->num_tx, r->num_rx, s->credits, r->rdv,
		r->offer != NULL ? "held" : "none", r->rto_shift,
		r->reading ? "being read" : r->resp_again ?
		"asked again as datagrams" : "not read", s->rc_state,
		s->rdv_off_until > rte_get_timer_cycles() ? "on" : "off");
	creq_complete(w, r, PMR_E_TIMEOUT, NULL);	/* r is gone */
	if (in_window && s->state == PMR_SESSION_CONNECTED && !s->closing &&
	    ++s->slot_timeouts[slot] >= RPC_SLOT_TIMEOUTS_MAX) {
		session_timeout_reset(w, sn);
		return;
	}
	if (s->state == PMR_SESSION_CONNECTED && !s->closing) {
		if (s->starved)
			rpc_session_kick(w, s);	/* its credits */
		rpc_window_fill(w, sn);
	}
}

/*
 * No answer to r's last packets for an RTO (rpc_timers.c): go back to the
 * first unanswered one (go-back-N), taking back the credits of those sent
 * since.
 */
void
rpc_client_retransmit(struct pmr_worker *w, struct rpc_creq *r)
{
	struct rpc_session *s = &w->sessions[r->session];

	s->credits += (uint16_t)(r->num_tx - r->num_rx);
	/*
	 * A descriptor answered by nothing yet: the server may be reading
	 * it, which can take longer than an RTO; resending it sooner gains
	 * nothing. Back off, up to 64 RTOs.
	 */
	if (unlikely(r->rdv != RPC_RDV_NONE) && r->num_rx == 0 &&
	    r->rto_shift < RPC_RDV_RTO_SHIFT_MAX)
		r->rto_shift++;
	r->num_tx = r->num_rx;
	w->stats.retransmissions++;
	creq_tx(w, s, r);
}

/* Complete every request of s, in the window and queued, with status. */
void
rpc_creq_fail_all(struct pmr_worker *w, struct rpc_session *s,
		enum pmr_status status)
{
	struct rpc_creq *r;
	uint16_t i;

	/* A continuation's pmr_session_destroy() waits for the last one. */
	s->failing = true;
	for (i = 0; i < w->window; i++) {
		r = s->window[i];
		if (r != NULL)
			creq_complete(w, r, status, NULL);
	}
	while ((r = TAILQ_FIRST(&s->backlog)) != NULL)
		creq_complete(w, r, status, NULL);
	s->failing = false;
}
