/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_RPC_CLIENT_RX_H
#define PMR_RPC_CLIENT_RX_H

/*
 * The client's reply fast path, inline: the single-packet OK response
 * that completes a request, what every small RPC's client receives. In a
 * header so that the RX dispatch (rpc_poll.c) can run it without a call
 * (rpc_client_rx_fast()); rpc_client_rx() runs the same code.
 */

#include "rpc_client.h"
#include "rpc_private.h"
#include "rpc_timers.h"
#include "rpc_tx.h"

#pragma GCC visibility push(hidden)

/*
 * rx_accept of a client session CONNECTED and not closing, and of no
 * other (rpc_session_rx_update()): the hot paths test it alone.
 */
#define RPC_RX_CLIENT (RTE_BIT32(PMR_PKT_RESP) | RTE_BIT32(PMR_PKT_CR) | \
		RTE_BIT32(PMR_PKT_RESP_DESC))

void rpc_session_kick(struct pmr_worker *w, struct rpc_session *s);

static inline void
rpc_creq_put(struct pmr_worker *w, struct rpc_creq *r)
{
	w->creq_free[w->nb_creq_free++] = r;
}

/*
 * Does a response whole in one packet, OK, come in order for r: after
 * the last request packet of r, and before any other?
 */
static inline bool
rpc_creq_whole_in_order(const struct rpc_creq *r)
{
	return r->num_rx == r->req_pkts - 1 && r->num_rx < r->num_tx;
}

/*
 * The whole response in one packet, in order, OK, after the last request
 * packet of r (the request h names)?
 */
static inline bool
rpc_creq_fast_reply(const struct rpc_creq *r, const struct pmr_pkthdr *h,
		const struct pmr_rx_pkt *pkt)
{
	return h->pkt_type == PMR_PKT_RESP && h->pkt_num == 0 &&
		h->status == PMR_OK && pkt->len == h->msg_size &&
		rpc_creq_whole_in_order(r);
}

/*
 * creq_complete_inl(w, r, PMR_OK, pkt) then session_next() for the one
 * case rpc_client_rx() takes straight through: the single-packet OK
 * response answering the last packet of r, which is in the window. That
 * answer gives back r's last credit (its others came back with their
 * credit returns), and a single-packet response leaves r no kept
 * response to free.
 */
static __rte_always_inline void
rpc_creq_complete_fast(struct pmr_worker *w, struct rpc_session *s, uint16_t sn,
		struct rpc_creq *r, struct pmr_rx_pkt *pkt)
{
	struct pmr_resp resp;
	uint16_t slot = r->slot;
	pmr_cont_t cont;
	void *tag;

	rpc_timer_creq_del(r);
	/* The server answered in this slot: it works. */
	s->slot_timeouts[slot] = 0;
	s->window[slot] = NULL;
	s->in_flight--;
	s->credits++;
	/* r->in_window stays: nothing reads it before r is submitted again. */
	/* As in creq_complete_inl(): the driver must be done with r->mb. */
	if (unlikely(r->tx_round == w->tx_bursts) && w->nb_tx != 0 &&
	    rpc_tx_queued(w, r->mb))
		rpc_tx_flush(w);
	if (unlikely(pmr_msgbuf_tx_pending(r->mb) != 0)) {
		r->status = PMR_OK;
		r->has_resp = true;
		r->resp_pkt = *pkt;
		pmr_transport_tx_flush(w->q);
		TAILQ_INSERT_TAIL(&w->completing, r, next);
		w->poll_later = true;
	} else {
		/* creq_finish() */
		w->stats.reqs_completed++;
		rpc_msgbuf_unhold(r->mb);	/* the caller's again */
		resp.status = PMR_OK;
		resp.data = pkt->data;
		resp.len = pkt->len;
		resp.req = r->mb;
		/*
		 * r is free before the continuation runs: a request it makes
		 * takes r again, still linked where its timer needs it
		 * (rpc_timer_creq_add()).
		 */
		cont = r->cont;
		tag = r->tag;
		rpc_creq_put(w, r);
		cont(w, &resp, tag);
		pmr_transport_rx_release(w->q, pkt, 1);
	}
	/* session_next(w, s, sn, NULL); rx_accept as in pmr_request(). */
	if (unlikely(s->rx_accept != RPC_RX_CLIENT))
		return;
	if (unlikely(s->starved))
		rpc_session_kick(w, s);
	if (unlikely(!TAILQ_EMPTY(&s->backlog)))
		rpc_window_fill(w, sn);
}

/*
 * rpc_client_rx() with its common case inline, for an OK response whole
 * in its packet (pmr_pkthdr_whole(): packet 0 of msg_size bytes, all of
 * them there, status 0): the RX dispatch calls this instead. Same result;
 * anything but that case goes to rpc_client_rx().
 */
static __rte_always_inline bool
rpc_client_rx_fast(struct pmr_worker *w, uint16_t sn,
		const struct pmr_pkthdr *h, struct pmr_rx_pkt *pkt)
{
	struct rpc_session *s = &w->sessions[sn];
	struct rpc_creq *r = s->window[rpc_slot_of(w, h->req_num)];

	if (likely(r != NULL && r->req_num == h->req_num &&
		   rpc_creq_whole_in_order(r))) {
		rpc_creq_complete_fast(w, s, sn, r, pkt);
		return true;
	}
	/* A copy: the caller's h keeps its address untaken (registers). */
	{
		struct pmr_pkthdr c = *h;

		return rpc_client_rx(w, sn, &c, pkt);
	}
}

#pragma GCC visibility pop

#endif /* PMR_RPC_CLIENT_RX_H */
