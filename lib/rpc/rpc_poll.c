/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The worker's hot path, top to bottom: pmr_worker_poll() takes session
 * events from the nexus, receives a burst, checks every packet against its
 * session, hands requests to handlers and responses to continuations, and
 * sends what they produced in one burst.
 */

#include <sched.h>

#include "rpc_private.h"

/* mb was sent: free it once the driver lets go of it. */
static void
rpc_txfree_push(struct pmr_worker *w, struct pmr_msgbuf *mb)
{
	struct rpc_txfree *f = &w->txfree;

	if (pmr_msgbuf_tx_pending(mb) == 0 && f->head == f->tail) {
		pmr_msgbuf_free(mb);
		return;
	}
	if (unlikely(f->tail - f->head == f->size)) {
		/* Full: the oldest must go first. */
		while (pmr_msgbuf_tx_pending(f->mbs[f->head & (f->size - 1)]))
			pmr_transport_tx_flush(w->q);
		pmr_msgbuf_free(f->mbs[f->head++ & (f->size - 1)]);
	}
	f->mbs[f->tail++ & (f->size - 1)] = mb;
}

/* Free sent msgbufs the driver is done with, oldest first. */
static inline void
rpc_txfree_poll(struct pmr_worker *w)
{
	struct rpc_txfree *f = &w->txfree;

	while (f->head != f->tail) {
		struct pmr_msgbuf *mb = f->mbs[f->head & (f->size - 1)];

		if (pmr_msgbuf_tx_pending(mb) != 0)
			break;
		pmr_msgbuf_free(mb);
		f->head++;
	}
}

void
rpc_tx_flush(struct pmr_worker *w)
{
	uint16_t sent = 0, i;

	while (sent < w->nb_tx) {
		uint16_t n = pmr_transport_tx_burst(w->q, &w->tx[sent],
				w->nb_tx - sent);

		for (i = sent; i < sent + n; i++)
			if (w->tx_free[i])
				rpc_txfree_push(w, w->tx[i].mb);
		if (n == 0) {
			/* Queue full: let completions and the peer catch up. */
			w->stats.tx_stalls++;
			pmr_transport_tx_flush(w->q);
			rpc_txfree_poll(w);
		}
		sent += n;
	}
	w->nb_tx = 0;
}

/*
 * Put the header in front of mb's data and queue it for the next burst;
 * free_after: mb is the worker's, to be freed once sent.
 */
void
rpc_tx_enqueue(struct pmr_worker *w, struct rpc_session *s,
		struct pmr_msgbuf *mb, const struct pmr_pkthdr *h,
		bool free_after)
{
	struct pmr_tx_pkt *p;

	if (w->nb_tx == PMR_BURST_MAX)
		rpc_tx_flush(w);
	pmr_pkthdr_encode(mb->data - PMR_PKTHDR_LEN, h);
	w->tx_free[w->nb_tx] = free_after;
	p = &w->tx[w->nb_tx++];
	p->peer = s->peer;
	p->mb = mb;
	p->data = mb->data - PMR_PKTHDR_LEN;
	p->len = PMR_PKTHDR_LEN + mb->len;
	w->stats.tx_pkts++;
	w->stats.tx_bytes += mb->len;
}

static inline void
rpc_drop(struct pmr_worker *w, unsigned int why, struct pmr_rx_pkt *pkt)
{
	w->stats.drops[why]++;
	w->stats.rx_drops++;
	pmr_transport_rx_release(w->q, pkt, 1);
}

static inline void
rpc_rx_one(struct pmr_worker *w, struct pmr_rx_pkt *pkt)
{
	struct pmr_pkthdr h;
	struct rpc_session *s;
	enum pmr_pkthdr_err err;

	err = pmr_pkthdr_decode(pkt->data, pkt->len, &h);
	if (unlikely(err != PMR_PKTHDR_OK)) {
		rpc_drop(w, err, pkt);
		return;
	}
	if (unlikely(h.dest_session >= w->max_sessions)) {
		rpc_drop(w, RPC_DROP_NO_SESSION, pkt);
		return;
	}
	s = &w->sessions[h.dest_session];
	if (unlikely(s->state != PMR_SESSION_CONNECTED || s->closing)) {
		rpc_drop(w, RPC_DROP_NO_SESSION, pkt);
		return;
	}
	if (unlikely(h.token != s->token)) {
		rpc_drop(w, RPC_DROP_TOKEN, pkt);
		return;
	}
	if (unlikely(pkt->src != s->peer->src)) {
		rpc_drop(w, RPC_DROP_SOURCE, pkt);
		return;
	}
	if (unlikely(s->client != (h.pkt_type == PMR_PKT_RESP))) {
		rpc_drop(w, RPC_DROP_ROLE, pkt);
		return;
	}
	w->stats.rx_pkts++;
	w->stats.rx_bytes += h.msg_size;
	pkt->data += PMR_PKTHDR_LEN;
	pkt->len = h.msg_size;
	if (h.pkt_type == PMR_PKT_REQ)
		rpc_rx_req(w, h.dest_session, &h, pkt);
	else
		rpc_rx_resp(w, h.dest_session, &h, pkt);
}

int
pmr_worker_poll(struct pmr_worker *w)
{
	struct pmr_rx_pkt rx[PMR_BURST_MAX];
	uint16_t nb, i;
	int work;

	work = rpc_sm_poll(w);
	if (unlikely(!TAILQ_EMPTY(&w->completing)))
		work += rpc_completing_poll(w);

	nb = pmr_transport_rx_burst(w->q, rx, PMR_BURST_MAX);
	for (i = 0; i < nb; i++)
		rpc_rx_one(w, &rx[i]);
	work += nb;

	if (w->nb_tx != 0)
		rpc_tx_flush(w);
	rpc_txfree_poll(w);
	return work;
}

int
pmr_worker_loop(void *arg)
{
	struct pmr_worker *w = arg;

	while (!__atomic_load_n(&w->stop, __ATOMIC_RELAXED)) {
		if (pmr_worker_poll(w) == 0 && w->idle_yield)
			sched_yield();
	}
	return 0;
}
