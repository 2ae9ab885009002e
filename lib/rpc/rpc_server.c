/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The server side. Each session has a slot per window position; a request
 * takes the slot of its request number from its first packet (packets are
 * taken in order, each but the last answered by a credit return), goes to
 * its handler zero-copy (single-packet) or reassembled once (multi-packet),
 * and its response stays in the slot until the client's next request there
 * shows it arrived. A retransmitted request is answered from the slot and
 * never runs twice.
 */

#include <string.h>

#include "rpc_private.h"
#include "rpc_rc.h"
#include "rpc_rdv.h"
#include "rpc_server.h"
#include "rpc_server_rx.h"
#include "rpc_session.h"
#include "rpc_source.h"
#include "rpc_timers.h"
#include "rpc_tx.h"

static void srv_resp_again(struct pmr_worker *w, struct rpc_session *s,
		struct pmr_srv_slot *req);

/* srv_tx_resp() for all but a single-packet response. */
static void
srv_tx_resp_slow(struct pmr_worker *w, struct rpc_session *s,
		struct pmr_srv_slot *req, uint16_t j)
{
	struct pmr_pkthdr h;

	if (unlikely(req->offer != NULL)) {
		/*
		 * By READ: its descriptor, once the window is bound; as
		 * datagrams if the BIND failed with its QP, lost to the
		 * transport (the session stays).
		 */
		if (rpc_rdv_offer_broken(req->offer))
			srv_resp_again(w, s, req);
		else
			rpc_rdv_tx_resp_desc(w, s, req);
		return;
	}
	h = (struct pmr_pkthdr){
		.pkt_type = PMR_PKT_RESP,
		.req_type = req->req_type,
		.dest_session = s->remote_session,
		.pkt_num = j,
		.msg_size = req->resp_mb != NULL ? req->resp_mb->len : 0,
		.token = s->token,
		.req_num = req->req_num,
		.status = req->resp_status,
	};

	rpc_tx_pkt(w, s, &h, req->resp_mb, s->plen);
}

/* Send packet j of the slot's response (the header alone for errors). */
static __rte_always_inline void
srv_tx_resp(struct pmr_worker *w, struct rpc_session *s,
		struct pmr_srv_slot *req, uint16_t j)
{
	if (likely(j == 0 && req->resp_mb != NULL &&
		   rpc_tx_inplace_ok(w, s, req->resp_mb))) {
		rpc_tx_inplace(w, s, req->resp_mb, PMR_PKT_RESP, req->req_type,
				req->req_num, req->resp_status, false);
		req->tx_round = w->tx_bursts;
		return;
	}
	srv_tx_resp_slow(w, s, req, j);
	req->tx_round = w->tx_bursts;
}

static void
srv_tx_cr(struct pmr_worker *w, struct rpc_session *s,
		struct pmr_srv_slot *req, uint16_t k)
{
	struct pmr_pkthdr h = {
		.pkt_type = PMR_PKT_CR,
		.req_type = req->req_type,
		.dest_session = s->remote_session,
		.pkt_num = k,
		.msg_size = req->req.size,
		.token = s->token,
		.req_num = req->req_num,
	};

	rpc_tx_ctrl(w, s, &h);
}

/*
 * The request's buffer (reassembly, or READ) goes back to its pool, and
 * stops counting as held by its source.
 */
static inline void
srv_req_buf_put(struct pmr_worker *w, struct pmr_srv_slot *req)
{
	rpc_msgbuf_put(req->req.mb);
	req->req.mb = NULL;
	if (req->req_src != NULL) {
		rpc_src_drop(w, req->req_src, req->req_res, 1);
		req->req_src = NULL;
	}
}

/*
 * The request's input goes back: its packet to the driver (single-packet)
 * or its reassembly buffer to the pool.
 */
static inline void
srv_input_release(struct pmr_worker *w, struct pmr_srv_slot *req)
{
	if (req->has_pkt)
		pmr_transport_rx_release(w->q, &req->pkt, 1);
	req->has_pkt = false;
	srv_req_buf_put(w, req);
}

/* Forget the slot's request and response: its buffers go back. */
static void
srv_slot_clear(struct pmr_worker *w, struct pmr_srv_slot *req)
{
	if (unlikely(req->state == SRV_READING)) {
		/* A READ writes into req.mb: its completion frees it. */
		req->orphaned = true;
		return;
	}
	rpc_timer_slot_stop(w, req);
	if (unlikely(req->offer != NULL)) {
		/* Taken back: the reader did not say it was done. */
		struct rpc_offer *o = req->offer;

		/* First: dropping may reset the session (no window). */
		req->offer = NULL;
		rpc_rdv_offer_drop(w, o, false);
	}
	srv_input_release(w, req);
	rpc_msgbuf_put(req->resp_buf);
	req->resp_buf = NULL;
	if (req->resp_mb != NULL)
		rpc_txfree_push(w, req->resp_mb);	/* maybe still sent */
	req->resp_mb = NULL;
	req->state = SRV_FREE;
	req->gen++;		/* a handler's reference is stale now */
}

/*
 * The slots of a new session: none used, so that the first number each
 * takes is its index (cur + window, k = 1, see rpc_server_rx()); no
 * client timeouts counted.
 */
void
rpc_server_session_init(struct pmr_worker *w, struct rpc_session *s)
{
	uint16_t i;

	for (i = 0; i < w->window; i++) {
		struct pmr_srv_slot *req = &s->srv[i];

		if (req->state != SRV_FREE)
			srv_slot_clear(w, req);
		req->req_num = ((uint64_t)i - w->window) & PMR_REQ_NUM_MASK;
		req->orphaned = false;
		s->slot_timeouts[i] = 0;
	}
}

/* Every slot of s forgets its request and response. */
void
rpc_server_session_clear(struct pmr_worker *w, struct rpc_session *s)
{
	uint16_t i;

	for (i = 0; i < w->window; i++)
		if (s->srv[i].state != SRV_FREE)
			srv_slot_clear(w, &s->srv[i]);
}

/*
 * The slot's timer expired (rpc_timers.c): free what the client left
 * behind, a partial request (never run: a late copy is dropped all the
 * same) or a kept response. A slot's state lives srv_state_timeout_ms at
 * most. The slot keeps its request number, so that request never runs
 * again.
 */
void
rpc_server_expire(struct pmr_worker *w, struct pmr_srv_slot *req)
{
	if (req->state == SRV_RECEIVING)
		w->stats.srv_reclaimed++;
	else if (req->resp_mb != NULL || req->offer != NULL)
		w->stats.resps_expired++;	/* not a status, nor acked */
	srv_slot_clear(w, req);
}

/*
 * The slot's next request is here: as rpc_srv_slot_clear(), but the
 * response buffer, if nothing refers to it any more, stays as the slot's
 * next pmr_req_resp_buf() rather than going back to the pool.
 */
static inline void
srv_slot_recycle(struct pmr_worker *w, struct pmr_srv_slot *req)
{
	struct pmr_msgbuf *mb = req->resp_mb;

	if (unlikely(req->offer != NULL)) {
		/*
		 * The client sends the slot's next request only once it
		 * read this response: the reader is done.
		 */
		struct rpc_offer *o = req->offer;

		/* First: dropping may reset the session (no window). */
		req->offer = NULL;
		rpc_rdv_offer_drop(w, o, true);
	}
	/*
	 * RESPONDED: the request's input and the offered buffer are gone
	 * (pmr_respond()). A single-packet response was queued in place
	 * (tx_round): still in the unsent burst if that is the current one.
	 */
	if (likely(req->state == SRV_RESPONDED && mb != NULL &&
		   mb->pool == w->pools[0] && req->tx_round != w->tx_bursts &&
		   pmr_msgbuf_tx_pending(mb) == 0)) {
		/* Its timer stops: the slot is no longer RESPONDED. */
		mb->len = 0;
		req->resp_buf = mb;
		req->resp_mb = NULL;
		req->state = SRV_FREE;
		return;
	}
	srv_slot_clear(w, req);
}

/* Answer in the slot without running a handler (no handler, no memory). */
static void
srv_answer_status(struct pmr_worker *w, struct rpc_session *s,
		struct pmr_srv_slot *req, enum pmr_status status)
{
	req->state = SRV_RESPONDED;
	req->resp_status = (uint8_t)status;
	req->resp_pkts = 1;
	rpc_timer_slot_start(w, req);
	srv_tx_resp(w, s, req, 0);
	w->stats.resps_sent++;
}

/* The whole request is there: hand it to its handler. */
static inline void
srv_handle(struct pmr_worker *w, struct rpc_session *s,
		struct pmr_srv_slot *req)
{
	const struct pmr_nexus_handler *hd = &w->handlers[req->req_type];

	if (unlikely(hd->fn == NULL)) {
		srv_input_release(w, req);
		srv_answer_status(w, s, req, PMR_E_REMOTE_ERROR);
		return;
	}
	req->state = SRV_HANDLING;
	req->orphaned = false;
	s->srv_active++;
	w->stats.reqs_handled++;
	hd->fn((struct pmr_req_ref){ .slot = req, .gen = req->gen }, hd->arg);
}

/*
 * May the session hold one more of its client's packets unanswered (the
 * last packet of a request, until the handler answers)? At most its
 * reserved receive slots: a correct client never has more packets
 * unanswered than its credits, but for requests it gave up on while the
 * handler still holds them; the packet dropped here is then sent again,
 * and served once the handler answers.
 */
static inline bool
srv_may_hold(struct pmr_worker *w, const struct rpc_session *s)
{
	if (likely(s->srv_active < s->rx_reserve))
		return true;
	rpc_count_drop(w, RPC_DROP_CREDITS);
	return false;
}

/* Multi-packet requests of s holding a large (max_msg_size) buffer. */
static uint32_t
srv_large_held(const struct pmr_worker *w, const struct rpc_session *s)
{
	uint32_t i, n = 0;

	for (i = 0; i < w->window; i++)
		n += s->srv[i].req.mb != NULL &&
			s->srv[i].req.mb->pool == w->pools[RPC_NB_CLASSES - 1];
	return n;
}

/*
 * A buffer for the size-byte request (multi-packet, or read) of slot req
 * of session s, or NULL: over max_msg_size, the session's
 * max_large_per_session taken, its source's share of the class taken
 * (rpc_source.h), or the pool empty. Counted as held by the source until
 * srv_req_buf_put().
 */
static struct pmr_msgbuf *
srv_req_buf(struct pmr_worker *w, struct rpc_session *s,
		struct pmr_srv_slot *req, uint32_t size)
{
	enum rpc_src_res res = size > w->pool_cap[RPC_NB_CLASSES - 2] ?
		RPC_SRC_LARGE : RPC_SRC_MID;
	struct pmr_msgbuf *mb;

	if (size > w->max_msg)
		return NULL;
	if (res == RPC_SRC_LARGE && srv_large_held(w, s) >= w->max_large_sess) {
		w->stats.large_refused++;	/* the session's share */
		return NULL;
	}
	if (s->src != NULL && !rpc_src_may(w, s->src, res, 1)) {
		rpc_src_refused(w, s->src, res);
		return NULL;
	}
	mb = rpc_msgbuf_alloc(w, size);
	if (mb != NULL && s->src != NULL) {
		rpc_src_take(s->src, res, 1);
		req->req_src = s->src;
		req->req_res = (uint8_t)res;
	}
	return mb;
}

/*
 * A REQ_DESC: a new request of the slot, sent by READ. The slot takes its
 * number now (at most once), reads it into a msgbuf of its own and hands
 * it to the handler when the READ completed (rpc_server_rdv_read_done()).
 * Nothing is kept of a descriptor dropped.
 */
static bool
srv_desc_start(struct pmr_worker *w, struct rpc_session *s,
		struct pmr_srv_slot *req, const struct pmr_pkthdr *h,
		const struct pmr_rx_pkt *pkt)
{
	struct pmr_pkt_desc d;
	struct pmr_msgbuf *mb = NULL;

	/* Only what a correct client sends: more than one packet. */
	if (w->rdv == NULL || h->msg_size <= s->plen ||
	    pmr_pkt_desc_decode(pkt->data, pkt->len, &d) != 0) {
		rpc_count_drop(w, RPC_DROP_BAD_PKT);
		return false;
	}
	if (rpc_rc_pair_of(w, req->session) == NULL) {
		if (s->rc_state != RPC_RC_WANTED)
			rpc_rc_want(w, req->session);
		rpc_count_drop(w, RPC_DROP_RDV_NO_QP);
		return false;
	}
	if (unlikely(!srv_may_hold(w, s)))
		return false;
	if (req->state != SRV_FREE)
		srv_slot_recycle(w, req);
	req->req_num = h->req_num;
	req->req_type = h->req_type;
	req->resp_status = PMR_OK;
	req->resp_pkts = 0;
	req->orphaned = false;
	/* One packet taken: a copy of it is a duplicate (srv_rx_same()). */
	req->req = (struct rpc_msg_rx){ .size = h->msg_size, .pkts = 1,
		.num_rx = 1 };
	w->stats.rdv_descs_received++;
	if (unlikely(d.qpn != rpc_rc_pair_remote_qpn(
			rpc_rc_pair_of(w, req->session)) ||
		     rpc_rdv_backing_off(s))) {
		/*
		 * Offered on a QP ours is not connected to: one end has
		 * replaced the pair before the other (rpc_rc.c). Never
		 * read through another QP: as datagrams, please. The
		 * same while the session backs off from READs.
		 */
		srv_answer_status(w, s, req, RPC_STATUS_RDV_AGAIN);
		return false;
	}
	mb = srv_req_buf(w, s, req, h->msg_size);
	req->req.mb = mb;
	if (mb == NULL || rpc_rdv_srv_read(w, req->session, req, &d) != 0) {
		srv_req_buf_put(w, req);
		srv_answer_status(w, s, req, PMR_E_NOMEM);
		return false;
	}
	req->state = SRV_READING;
	s->srv_active++;	/* as a handler's: the session waits for it */
	return false;
}

void
rpc_server_rdv_read_done(struct pmr_worker *w, struct pmr_srv_slot *req,
		unsigned int status)
{
	struct rpc_session *s = &w->sessions[req->session];

	if (s->srv_active != 0)	/* 0: the worker is going */
		s->srv_active--;
	if (unlikely(!req->orphaned && rpc_rc_status_lost(status) &&
		     s->state == PMR_SESSION_CONNECTED && !s->closing)) {
		/*
		 * Lost to the transport (the pair is replaced, the session
		 * stays): never run; the client sends it again as
		 * datagrams, told by this answer.
		 */
		srv_req_buf_put(w, req);
		srv_answer_status(w, s, req, RPC_STATUS_RDV_AGAIN);
		return;
	}
	if (unlikely(req->orphaned || status != PMR_RC_OK)) {
		/*
		 * Its session went, or its pair failed (the session is
		 * reset next): never run; a copy of it is dropped.
		 */
		srv_req_buf_put(w, req);
		/*
		 * The slot's own response buffer too: a recycled slot keeps
		 * its last response as one (srv_slot_recycle()), and a FREE
		 * slot is never cleared again.
		 */
		rpc_msgbuf_put(req->resp_buf);
		req->resp_buf = NULL;
		req->state = SRV_FREE;
		req->gen++;
		if (req->orphaned && s->closing && s->srv_active == 0 &&
		    s->state != PMR_SESSION_FREE)
			rpc_session_release(w, req->session, false);
		return;
	}
	/* What the handler reads (pmr_req_data()): in place, no copy. */
	req->has_pkt = false;
	req->pkt.data = req->req.mb->data;
	req->pkt.len = req->req.size;
	srv_handle(w, s, req);
}

void
rpc_server_rdv_ready(struct pmr_worker *w, struct pmr_srv_slot *req)
{
	struct rpc_session *s = &w->sessions[req->session];

	if (req->state == SRV_RESPONDED && s->state == PMR_SESSION_CONNECTED)
		srv_tx_resp(w, s, req, 0);
}

/*
 * Packet 0 of a new request in its slot, with the slot's previous request
 * untouched if it is dropped. True if the packet was kept (a
 * single-packet request, read in place by the handler).
 */
static inline bool
srv_req_start(struct pmr_worker *w, struct rpc_session *s,
		struct pmr_srv_slot *req, const struct pmr_pkthdr *h,
		struct pmr_rx_pkt *pkt)
{
	bool single = pkt->len == h->msg_size;
	struct rpc_msg_rx m = { .pkts = 1 };

	if (unlikely(h->pkt_type == PMR_PKT_REQ_DESC))
		return srv_desc_start(w, s, req, h, pkt);
	if (single) {
		if (unlikely(!srv_may_hold(w, s)))
			return false;
	} else if (unlikely(rpc_msg_rx_shape(&m, h->msg_size,
			pkt->len) != 0)) {
		rpc_count_drop(w, RPC_DROP_BAD_PKT);
		return false;
	}
	if (req->state != SRV_FREE)
		srv_slot_recycle(w, req);
	/* References to the last request went stale when it ended. */
	req->req_num = h->req_num;
	req->req_type = h->req_type;
	req->resp_status = PMR_OK;
	req->resp_pkts = 0;
	if (single) {
		/* Single-packet: the handler reads it in place. */
		req->req.size = h->msg_size;
		req->req.pkts = 1;
		req->req.num_rx = 1;
		req->pkt = *pkt;
		req->has_pkt = true;
		srv_handle(w, s, req);
		return true;
	}
	req->req = m;
	req->req.mb = srv_req_buf(w, s, req, h->msg_size);
	if (req->req.mb == NULL) {
		/*
		 * Refused before it ran: at most once still holds. The
		 * client takes the status whatever it sent meanwhile.
		 */
		srv_answer_status(w, s, req, PMR_E_NOMEM);
		return false;
	}
	rpc_msg_rx_put(&req->req, 0, pkt->data, pkt->len);
	w->stats.copied_bytes += pkt->len;
	req->state = SRV_RECEIVING;
	rpc_timer_slot_start_len(w, req, h->msg_size);
	srv_tx_cr(w, s, req, 0);
	return false;
}

/* Packet k of the request in the slot, in order. */
static void
srv_req_more(struct pmr_worker *w, struct rpc_session *s,
		struct pmr_srv_slot *req, const struct pmr_pkthdr *h,
		struct pmr_rx_pkt *pkt)
{
	uint32_t k = h->pkt_num;

	if (h->req_type != req->req_type ||
	    !rpc_msg_rx_fits(&req->req, k, h->msg_size, pkt->len)) {
		rpc_count_drop(w, RPC_DROP_BAD_PKT);
		return;
	}
	if (k + 1 == req->req.pkts && !srv_may_hold(w, s))
		return;
	w->stats.copied_bytes += pkt->len;
	if (!rpc_msg_rx_put(&req->req, k, pkt->data, pkt->len)) {
		srv_tx_cr(w, s, req, (uint16_t)k);
		return;
	}
	/* What the handler reads (pmr_req_data()): no packet is kept. */
	req->pkt.data = req->req.mb->data;
	req->pkt.len = req->req.size;
	rpc_timer_slot_stop(w, req);	/* the partial request's */
	srv_handle(w, s, req);
}

/* A retransmitted request packet: answer it again from the slot. */
static void
srv_req_dup(struct pmr_worker *w, struct rpc_session *s,
		struct pmr_srv_slot *req, const struct pmr_pkthdr *h)
{
	if (h->pkt_num + 1u < req->req.pkts) {
		srv_tx_cr(w, s, req, h->pkt_num);
	} else if (req->state == SRV_RESPONDED && req->resp_pkts != 0) {
		srv_tx_resp(w, s, req, 0);
		w->stats.dup_answered++;
	}
	/* else: with the handler; the response is on its way. */
}

/*
 * The client could not read the slot's response (its READ failed by the
 * transport, RFR of packet 0): send it as datagrams, packet 0 now, the
 * others as the client asks for them. No buffer: dropped, the client
 * asks again at its RTO.
 */
static void
srv_resp_again(struct pmr_worker *w, struct rpc_session *s,
		struct pmr_srv_slot *req)
{
	struct pmr_msgbuf *mb = rpc_rdv_srv_unoffer(w, req);

	if (mb == NULL)
		return;
	req->resp_mb = mb;
	req->resp_pkts = rpc_msg_pkts(mb->len, s->plen);
	w->stats.rdv_recovered++;
	srv_tx_resp(w, s, req, 0);
}

/* A request for response packet (or the ack past the last) of the slot. */
static void
srv_rx_rfr(struct pmr_worker *w, struct rpc_session *s,
		struct pmr_srv_slot *req, const struct pmr_pkthdr *h)
{
	struct rpc_offer *o = req->offer;

	if (unlikely(o != NULL && req->state == SRV_RESPONDED)) {
		/*
		 * By READ: the ack (packet 1) says it was read; packet 0
		 * that the client's READ failed by the transport: the
		 * response goes as datagrams, from a copy of it.
		 */
		if (h->pkt_num == 0) {
			srv_resp_again(w, s, req);
			return;
		}
		if (h->pkt_num != 1) {
			rpc_count_drop(w, RPC_DROP_STALE);
			return;
		}
		req->offer = NULL;	/* first: see srv_slot_clear() */
		rpc_rdv_offer_drop(w, o, true);
		req->resp_pkts = 0;
		return;
	}
	if (h->pkt_num == 0 && req->state == SRV_RESPONDED &&
	    req->resp_mb != NULL && req->resp_pkts != 0) {
		/* Sent again as datagrams (srv_resp_again()), its packet 0
		 * lost: once more. */
		srv_tx_resp(w, s, req, 0);
		w->stats.dup_answered++;
	} else if (req->state != SRV_RESPONDED || req->resp_mb == NULL ||
	    h->pkt_num == 0 || h->pkt_num > req->resp_pkts) {
		/* Not for a kept response of several packets. */
		rpc_count_drop(w, RPC_DROP_STALE);
	} else if (h->pkt_num == req->resp_pkts) {
		/* The client has it all: free the response now. */
		rpc_txfree_push(w, req->resp_mb);
		req->resp_mb = NULL;
		req->resp_pkts = 0;
	} else {
		srv_tx_resp(w, s, req, h->pkt_num);
	}
}

/* A packet of the request the slot holds (or held), in any state. */
static void
srv_rx_same(struct pmr_worker *w, struct rpc_session *s,
		struct pmr_srv_slot *req, const struct pmr_pkthdr *h,
		struct pmr_rx_pkt *pkt)
{
	if (h->pkt_type == PMR_PKT_RFR) {
		srv_rx_rfr(w, s, req, h);
	} else if (req->state == SRV_READING) {
		rpc_count_drop(w, RPC_DROP_BUSY);	/* read already */
	} else if (req->state == SRV_RECEIVING &&
		   h->pkt_num == req->req.num_rx) {
		srv_req_more(w, s, req, h, pkt);
	} else if (req->state == SRV_RESPONDED && req->resp_mb == NULL &&
		   req->offer == NULL && req->resp_pkts != 0) {
		/*
		 * Refused with a status, maybe at its first packet: the
		 * client's go-back-N sends packet 0 again if it was lost.
		 * (A response by READ has no resp_mb either: its offer
		 * holds it, and a copy of the request's last packet is
		 * answered with its descriptor, below.)
		 */
		if (h->pkt_num == 0) {
			srv_tx_resp(w, s, req, 0);
			w->stats.dup_answered++;
		} else {
			rpc_count_drop(w, RPC_DROP_STALE);
		}
	} else if (h->pkt_num < req->req.num_rx) {
		srv_req_dup(w, s, req, h);
	} else {
		rpc_count_drop(w, RPC_DROP_ORDER);
	}
}

/*
 * A request packet or a request for response, for session sn (a server
 * session, the packet authenticated). A slot takes request number
 * cur + k * window for 1 <= k <= RPC_REQ_SKIP_MAX (cur its last one): the
 * client skips a number for each request that timed out there unseen,
 * and resets the session before it skips more. Anything further is forged
 * or from another life of the session. True if the packet was kept (a
 * single-packet request, until pmr_respond()); else the caller releases
 * it.
 *
 * The RX dispatch runs the fast path, srv_req_start() of a single-packet
 * request with srv_slot_recycle() and srv_handle() for a slot and a
 * session that take it as they are, inline (rpc_server_rx_fast()); this
 * is everything else, and whatever the fast path declined.
 */
bool __rte_noinline
rpc_server_rx(struct pmr_worker *w, uint16_t sn,
		const struct pmr_pkthdr *h, struct pmr_rx_pkt *pkt)
{
	struct rpc_session *s = &w->sessions[sn];
	struct pmr_srv_slot *req = &s->srv[rpc_slot_of(w, h->req_num)];
	uint64_t d = (h->req_num - req->req_num) & PMR_REQ_NUM_MASK;

	/* The common case first: the first packet of a new request. */
	if (likely(d - w->window <= (RPC_REQ_SKIP_MAX - 1u) * w->window)) {
		if (likely((h->pkt_type == PMR_PKT_REQ ||
			    h->pkt_type == PMR_PKT_REQ_DESC) &&
			   h->pkt_num == 0 && req->state != SRV_HANDLING &&
			   req->state != SRV_READING))
			return srv_req_start(w, s, req, h, pkt);
		if (req->state == SRV_HANDLING || req->state == SRV_READING)
			/* The client gave up on it; its slot is still busy. */
			rpc_count_drop(w, RPC_DROP_BUSY);
		else
			rpc_count_drop(w, h->pkt_type == PMR_PKT_RFR ?
					RPC_DROP_STALE : RPC_DROP_ORDER);
	} else if (d == 0 && req->state != SRV_FREE) {
		srv_rx_same(w, s, req, h, pkt);
	} else if (d == 0) {
		/* Its state timed out: it never runs (again). */
		rpc_count_drop(w, RPC_DROP_EXPIRED);
	} else if (d > PMR_REQ_NUM_MASK / 2) {
		rpc_count_drop(w, RPC_DROP_STALE);	/* behind the slot */
	} else {
		rpc_count_drop(w, RPC_DROP_REQ_NUM);
	}
	return false;
}

/* The handler is done: give back the request's packet or buffer. */
static void
srv_req_end(struct pmr_worker *w, struct rpc_session *s,
		struct pmr_srv_slot *req)
{
	srv_input_release(w, req);
	s->srv_active--;
	req->gen++;		/* answered: the handler's reference is stale */
}

/*
 * The handler's request went away with its session: the answer goes
 * nowhere; the slot is free, and so is the session once it was the last.
 */
static void
srv_req_orphan_end(struct pmr_worker *w, struct rpc_session *s,
		struct pmr_srv_slot *req)
{
	req->state = SRV_FREE;
	if (s->closing && s->srv_active == 0)
		rpc_session_release(w, req->session, false);
}

/* Answer a handler's request with a status alone. */
static void
srv_req_fail(struct pmr_worker *w, struct pmr_srv_slot *req,
		enum pmr_status status)
{
	struct rpc_session *s = &w->sessions[req->session];

	rpc_msgbuf_put(req->resp_buf);
	req->resp_buf = NULL;
	srv_req_end(w, s, req);
	if (unlikely(req->orphaned)) {
		srv_req_orphan_end(w, s, req);
		return;
	}
	srv_answer_status(w, s, req, status);
}

/* pmr_respond() for all but srv_respond_fast_ok()'s case. */
static __rte_noinline int
srv_respond_slow(struct pmr_req_ref ref, struct pmr_msgbuf *resp)
{
	struct pmr_srv_slot *req = rpc_srv_ref_slot(ref);
	struct pmr_worker *w;
	struct rpc_session *s;
	uint32_t len;

	if (unlikely(req == NULL))
		return rpc_srv_ref_stale(ref, "pmr_respond");
	w = req->w;
	if (unlikely(resp == NULL)) {
		srv_req_fail(w, req, PMR_E_REMOTE_ERROR);
		return -EINVAL;
	}
	if (resp != req->resp_buf) {
		/*
		 * Not the slot's own: refuse what the worker holds or a
		 * driver still sends (another request's response, a pending
		 * request's msgbuf), and answer anyway.
		 */
		if (unlikely(!rpc_msgbuf_free_to_give(resp))) {
			w->stats.msgbuf_busy++;
			srv_req_fail(w, req, PMR_E_REMOTE_ERROR);
			return -EBUSY;
		}
		rpc_msgbuf_hold(resp);
		rpc_msgbuf_put(req->resp_buf);
	}
	req->resp_buf = NULL;
	s = &w->sessions[req->session];
	/*
	 * Release the request before the response leaves: the client then
	 * finds its request buffer free when the response arrives.
	 */
	srv_req_end(w, s, req);

	if (unlikely(req->orphaned)) {
		/* The session went away while the handler had it. */
		rpc_msgbuf_put(resp);
		srv_req_orphan_end(w, s, req);
		return 0;
	}
	if (unlikely(resp->len > w->max_msg)) {
		rpc_msgbuf_put(resp);
		srv_answer_status(w, s, req, PMR_E_REMOTE_ERROR);
		return -EMSGSIZE;
	}
	req->state = SRV_RESPONDED;
	len = resp->len;	/* an offer may let go of resp at once */
	if (unlikely(rpc_rdv_wanted(w, s, resp->len)) &&
	    rpc_rdv_srv_offer(w, req->session, req, resp)) {
		/* By READ: the offer owns resp; one descriptor answers. */
		req->resp_mb = NULL;
		req->resp_pkts = 1;
	} else {
		req->resp_mb = resp;
		req->resp_pkts = rpc_msg_pkts(resp->len, s->plen);
	}
	rpc_timer_slot_start_len(w, req, len);
	srv_tx_resp(w, s, req, 0);
	w->stats.resps_sent++;
	return 0;
}

/*
 * Does pmr_respond() take the fast path: a valid reference to a
 * single-packet request, answered in the slot's own response buffer
 * (pmr_req_resp_buf(): of pools[0], whose headroom is w->headroom, held
 * by the worker so that no driver sends it) with one packet that
 * max_msg_size allows, its session still there?
 */
static __rte_always_inline bool
srv_respond_fast_ok(struct pmr_req_ref ref, const struct pmr_msgbuf *resp,
		uint64_t now)
{
	const struct pmr_srv_slot *req = ref.slot;

	return likely(req != NULL && req->gen == ref.gen &&
		      resp != NULL &&
		      resp == req->resp_buf && req->has_pkt &&
		      !req->orphaned &&
		      resp->len <= req->s->inplace_max &&
		      req->tepoch == (now | req->w->srv_tmask) &&
		      req->w->nb_tx < PMR_BURST_MAX);
}

int
pmr_respond(struct pmr_req_ref ref, struct pmr_msgbuf *resp)
{
	struct pmr_srv_slot *req = ref.slot;
	uint64_t now = rte_get_timer_cycles();
	struct pmr_worker *w;
	struct rpc_session *s;

	/*
	 * Also: the slot is on the timer list for this epoch already, and
	 * the TX burst has room.
	 */
	if (unlikely(!srv_respond_fast_ok(ref, resp, now)))
		return srv_respond_slow(ref, resp);
	w = req->w;
	s = req->s;
	/* The burst has room (srv_respond_fast_ok()): no flush, no call. */
	rpc_tx_inplace(w, s, resp, PMR_PKT_RESP, req->req_type, req->req_num,
			PMR_OK, false);
	/* srv_req_end(), the packet's release last (below) */
	req->resp_buf = NULL;
	s->srv_active--;
	req->gen = ref.gen + 1;	/* answered: the reference is stale */
	/*
	 * Four bytes side by side, one store: orphaned was false, and
	 * resp_status PMR_OK since the request started.
	 */
	req->state = SRV_RESPONDED;
	req->orphaned = false;
	req->has_pkt = false;
	req->resp_status = PMR_OK;
	req->resp_mb = resp;
	req->resp_pkts = 1;
	req->tstamp = now;	/* rpc_timer_slot_start() */
	req->tx_round = w->tx_bursts;
	w->stats.resps_sent++;
	/*
	 * The request's packet goes back before the response leaves (it
	 * is only queued): the client then finds its request buffer free
	 * when the response arrives.
	 */
	pmr_transport_rx_release(w->q, &req->pkt, 1);
	return 0;
}

int
pmr_respond_error(struct pmr_req_ref ref, enum pmr_status status)
{
	struct pmr_srv_slot *req = rpc_srv_ref_slot(ref);
	bool ok = status == PMR_E_REMOTE_ERROR || status == PMR_E_NOMEM ||
		status == PMR_E_MSGSIZE;

	if (unlikely(req == NULL))
		return rpc_srv_ref_stale(ref, "pmr_respond_error");
	srv_req_fail(req->w, req, ok ? status : PMR_E_REMOTE_ERROR);
	return ok ? 0 : -EINVAL;
}

/*
 * The session is going away: requests still with handlers are orphaned
 * (their answer goes nowhere), the other slots forget theirs.
 */
void
rpc_server_session_orphan(struct pmr_worker *w, struct rpc_session *s)
{
	uint16_t i;

	for (i = 0; i < w->window; i++) {
		struct pmr_srv_slot *req = &s->srv[i];

		if (req->state == SRV_HANDLING || req->state == SRV_READING)
			req->orphaned = true;
		else if (req->state != SRV_FREE)
			srv_slot_clear(w, req);
	}
}
