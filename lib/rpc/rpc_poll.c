/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The worker's hot path, top to bottom: pmr_worker_poll() takes session
 * events from the nexus, receives a burst, checks every packet against its
 * session, hands request packets to the server side and replies to the
 * client side, runs the timers now and then, and sends what all of that
 * produced in one burst.
 */

#include <inttypes.h>
#include <sched.h>

#include <rte_pause.h>

#include "rpc_private.h"

/*
 * mb is done with: free it once the driver lets go of it, and not before
 * the end of this poll, as packets queued for the next burst may still
 * point into it. The FIFO holds every msgbuf of the worker's pools.
 */
void
rpc_txfree_push(struct pmr_worker *w, struct pmr_msgbuf *mb)
{
	struct rpc_txfree *f = &w->txfree;

	if (unlikely(f->tail - f->head == f->size)) {
		/* Full: the oldest must go first. */
		while (pmr_msgbuf_tx_pending(f->mbs[f->head & (f->size - 1)]))
			pmr_transport_tx_flush(w->q);
		rpc_msgbuf_put(f->mbs[f->head++ & (f->size - 1)]);
	}
	f->mbs[f->tail++ & (f->size - 1)] = mb;
}

/* Free sent msgbufs the driver is done with, oldest first. */
static inline void
rpc_txfree_poll(struct pmr_worker *w)
{
	struct rpc_txfree *f = &w->txfree;

	while (unlikely(f->head != f->tail)) {
		struct pmr_msgbuf *mb = f->mbs[f->head & (f->size - 1)];

		if (pmr_msgbuf_tx_pending(mb) != 0)
			break;
		rpc_msgbuf_put(mb);
		f->head++;
	}
}

/*
 * Send the rest of the queued burst, tx[sent..nb_tx) (rpc_tx_flush() sent
 * the first ones), applying injected faults first if sent is 0. A queue
 * that stays full (a peer that stopped reading, a link that went down)
 * does not hold the worker: after a few tries the rest is dropped, as the
 * wire would, and recovered as any loss.
 */
void
rpc_tx_flush_slow(struct pmr_worker *w, uint16_t sent)
{
	uint16_t n = w->nb_tx, i, tries = 0;

	if (unlikely(w->faults.on) && sent == 0)
		n = rpc_faults_tx(w, w->tx, w->tx_free, n);
	while (sent < n) {
		uint16_t k = pmr_transport_tx_burst(w->q, &w->tx[sent],
				n - sent);

		if (w->nb_tx_free != 0 || w->faults.on)
			for (i = sent; i < sent + k; i++)
				if (w->tx_free[i])
					rpc_txfree_push(w, w->tx[i].mb);
		sent += k;
		if (k != 0 || sent == n)
			continue;
		/* Queue full: let completions and the peer catch up. */
		w->stats.tx_stalls++;
		if (++tries == RPC_TX_TRIES) {
			w->stats.tx_dropped += n - sent;
			for (i = sent; i < n; i++)
				if (w->tx_free[i])
					rpc_txfree_push(w, w->tx[i].mb);
			break;
		}
		pmr_transport_tx_flush(w->q);
		rte_pause();
	}
	w->nb_tx = 0;
	w->nb_tx_free = 0;
}

/* The burst is full: send it (out of line, for rpc_tx_next()). */
void
rpc_tx_flush_full(struct pmr_worker *w)
{
	rpc_tx_flush(w);
}

/*
 * Queue packet h->pkt_num of the message in mb (packets of plen payload),
 * or a header alone (mb NULL). A single-packet message goes in place, its
 * header in the msgbuf's headroom; other packets are gathered from a
 * header kept here and the payload in mb. free_after: mb is the worker's,
 * to free once sent.
 */
void
rpc_tx_msg_pkt(struct pmr_worker *w, struct rpc_session *s,
		const struct pmr_pkthdr *h, struct pmr_msgbuf *mb,
		uint32_t plen, bool free_after)
{
	struct pmr_tx_pkt *p;
	uint32_t off, len = 0;
	uint16_t idx;

	p = rpc_tx_next(w, free_after);
	idx = (uint16_t)(p - w->tx);
	p->peer = s->peer;
	p->mb = mb;
	if (mb != NULL && (h->pkt_type == PMR_PKT_REQ ||
			   h->pkt_type == PMR_PKT_RESP)) {
		off = h->pkt_num * plen;
		len = RTE_MIN(plen, mb->len - off);
	}
	if (mb != NULL && mb->len <= plen && mb->headroom >= w->headroom &&
	    pmr_msgbuf_tx_pending(mb) == 0) {
		pmr_pkthdr_encode(mb->data - PMR_PKTHDR_LEN, h);
		p->data = mb->data - PMR_PKTHDR_LEN;
		p->len = PMR_PKTHDR_LEN + len;
		p->hdr = NULL;
		p->hdr_len = 0;
	} else {
		pmr_pkthdr_encode(w->tx_hdr[idx], h);
		p->data = mb != NULL ? mb->data + h->pkt_num * plen : NULL;
		p->len = len;
		p->hdr = w->tx_hdr[idx];
		p->hdr_len = PMR_PKTHDR_LEN;
	}
	w->stats.tx_pkts++;
	w->stats.tx_bytes += len;
}

struct pmr_msgbuf *
rpc_msgbuf_alloc(struct pmr_worker *w, uint32_t len)
{
	unsigned int c;

	for (c = 0; c < RPC_NB_CLASSES; c++)
		if (len <= w->pool_cap[c])
			return pmr_msgbuf_alloc(w->pools[c], len);
	rte_errno = EMSGSIZE;
	return NULL;
}

/*
 * A packet that failed an authentication check (why: a drop reason) was
 * dropped and counted: log it, at most once a second. Only the log is
 * limited, never the checks or the delivery of valid packets, and not per
 * source (a spoofer would get its victim's address throttled).
 */
void __rte_noinline
rpc_log_forged(struct pmr_worker *w, unsigned int why, uint16_t sn,
		uint64_t src)
{
	uint64_t now = rte_get_timer_cycles();

	if (now < w->forged_log_next) {
		w->forged_log_quiet++;
		return;
	}
	RPC_LOG(WARNING, "worker %u: dropped a packet for session %u from "
		"0x%" PRIx64 ": %s (%" PRIu64 " more not logged since the "
		"last such line)", w->worker_id, sn, src,
		pmr_worker_drop_name(why), w->forged_log_quiet);
	w->forged_log_next = now + rte_get_timer_hz();
	w->forged_log_quiet = 0;
}

static inline void
rpc_drop(struct pmr_worker *w, unsigned int why, struct pmr_rx_pkt *pkt)
{
	rpc_count_drop(w, why);
	pmr_transport_rx_release(w->q, pkt, 1);
}

static inline void
rpc_rx_one(struct pmr_worker *w, struct pmr_rx_pkt *pkt)
{
	struct pmr_pkthdr h;
	struct rpc_session *s;
	enum pmr_pkthdr_err err;
	bool reply;

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
	if (unlikely(s->state != PMR_SESSION_CONNECTED || s->closing ||
		     h.pkt_type == PMR_PKT_TOKEN)) {
		if (h.pkt_type == PMR_PKT_TOKEN)
			rpc_rx_token(w, &h, pkt);
		else
			rpc_drop(w, RPC_DROP_NO_SESSION, pkt);
		return;
	}
	if (unlikely(h.token != s->token)) {
		rpc_log_forged(w, RPC_DROP_TOKEN, h.dest_session, pkt->src);
		rpc_drop(w, RPC_DROP_TOKEN, pkt);
		return;
	}
	if (unlikely(pkt->src != s->peer_src)) {
		rpc_log_forged(w, RPC_DROP_SOURCE, h.dest_session, pkt->src);
		rpc_drop(w, RPC_DROP_SOURCE, pkt);
		return;
	}
	reply = h.pkt_type == PMR_PKT_RESP || h.pkt_type == PMR_PKT_CR;
	if (unlikely(s->client != reply)) {
		rpc_drop(w, RPC_DROP_ROLE, pkt);
		return;
	}
	/* The client has the token: the server's TOKEN copies stop. */
	if (unlikely(s->hs_pending))
		rpc_hs_stop(w, s);
	pkt->data += PMR_PKTHDR_LEN;
	pkt->len -= PMR_PKTHDR_LEN;
	w->stats.rx_pkts++;
	w->stats.rx_bytes += pkt->len;
	if (reply)
		rpc_rx_reply(w, h.dest_session, &h, pkt);
	else
		rpc_rx_req(w, h.dest_session, &h, pkt);
}

int
pmr_worker_poll(struct pmr_worker *w)
{
	struct pmr_rx_pkt rx[PMR_BURST_MAX + 1];	/* + one delayed */
	uint64_t now;
	uint16_t nb, i;
	int work;

	w->polling++;	/* see pmr_session_connect() */
	/* Session events are rare: look for them every few polls. */
	work = (w->nb_polls++ & (RPC_SM_POLL_EVERY - 1)) == 0 ?
		rpc_sm_poll(w) : 0;
	if (unlikely(!TAILQ_EMPTY(&w->completing)))
		work += rpc_completing_poll(w);

	nb = pmr_transport_rx_burst(w->q, rx, PMR_BURST_MAX);
	if (unlikely(w->faults.on))
		nb = rpc_faults_rx(w, rx, nb);
	for (i = 0; i < nb; i++)
		rpc_rx_one(w, &rx[i]);
	work += nb;

	/*
	 * Client requests have timers of rto_us; the server's timers
	 * (srv_state_timeout_ms) are coarse: a look every few polls.
	 */
	if (!TAILQ_EMPTY(&w->all) || !TAILQ_EMPTY(&w->timed) ||
	    (!TAILQ_EMPTY(&w->srv_timed) &&
	     (w->nb_polls & (RPC_SM_POLL_EVERY - 1)) == 1)) {
		now = rte_get_timer_cycles();
		if (unlikely(now >= w->next_timer)) {
			rpc_timers(w, now);
			rpc_srv_timers(w, now);
		}
	}
	if (unlikely(!TAILQ_EMPTY(&w->hs_pending)))
		rpc_hs_timers(w);
	if (w->nb_tx != 0)
		rpc_tx_flush(w);
	rpc_txfree_poll(w);
	w->polling--;
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
