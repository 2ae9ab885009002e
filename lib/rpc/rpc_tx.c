/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The TX path, out of line: the flush that applies injected faults and
 * copes with a full queue, packets of a message gathered from a header
 * kept here and the payload in the msgbuf, and the FIFO of msgbufs that
 * go back to their pool once the driver lets go of them. The inline half
 * (queueing a packet, the common flush) is in rpc_tx.h.
 */

#include <inttypes.h>

#include <rte_malloc.h>
#include <rte_pause.h>

#include "rpc_private.h"
#include "rpc_tx.h"

/* Tries before a burst the queue will not take is dropped. */
#define RPC_TX_TRIES 64

/*
 * How long rpc_txfree_push() waits for the driver to let go of the oldest
 * msgbuf when the FIFO is full and cannot grow: a driver that holds a
 * sent buffer that long is broken, and the worker must not spin for ever.
 */
#define RPC_TXFREE_WAIT_MS 1000

/* Entries the FIFO may grow to (msgbufs of the application's pools). */
#define RPC_TXFREE_MAX (1u << 24)

/*
 * Is mb still needed for sending: a driver holds it, or it waits in the
 * burst not sent yet (no driver reference then). The poll drains the
 * FIFO once its burst is sent; a full FIFO (txfree_make_room()) is
 * drained in the middle of a poll, where a kept response sent again and
 * then dropped from its slot can be both in the burst and in the FIFO.
 */
static inline bool
txfree_busy(const struct pmr_worker *w, const struct pmr_msgbuf *mb)
{
	return pmr_msgbuf_tx_pending(mb) != 0 ||
		(w->nb_tx != 0 && rpc_tx_queued(w, mb));
}

/* Free sent msgbufs the driver is done with, oldest first. */
void
rpc_txfree_poll(struct pmr_worker *w)
{
	struct rpc_txfree *f = &w->txfree;

	while (f->head != f->tail) {
		struct pmr_msgbuf *mb = f->mbs[f->head & (f->size - 1)];

		if (txfree_busy(w, mb))
			break;
		rpc_msgbuf_put(mb);
		f->head++;
	}
}

/* Twice the entries, in order from 0; false if there is no memory. */
static bool
txfree_grow(struct pmr_worker *w)
{
	struct rpc_txfree *f = &w->txfree;
	struct pmr_msgbuf **mbs;
	uint32_t i, n = f->tail - f->head;

	if (f->size >= RPC_TXFREE_MAX)
		return false;
	mbs = rte_malloc_socket("pmr_txfree", 2 * (size_t)f->size *
			sizeof(*mbs), 0, SOCKET_ID_ANY);
	if (mbs == NULL)
		return false;
	for (i = 0; i < n; i++)
		mbs[i] = f->mbs[(f->head + i) & (f->size - 1)];
	rte_free(f->mbs);
	f->mbs = mbs;
	f->size *= 2;
	f->head = 0;
	f->tail = n;
	w->stats.txfree_grown++;
	return true;
}

/*
 * The FIFO is full. It is sized for every msgbuf of the worker's pools,
 * but responses may come from the application's own: free what the driver
 * let go of, else grow, else wait a bounded time for the oldest and give
 * it up if the driver still holds it, or it still waits in the burst
 * (logged: lost, never a hang, never freed while it may still be sent).
 */
static void __rte_noinline
txfree_make_room(struct pmr_worker *w)
{
	struct rpc_txfree *f = &w->txfree;
	uint64_t deadline;
	struct pmr_msgbuf *mb;

	rpc_txfree_poll(w);
	if (f->tail - f->head < f->size || txfree_grow(w))
		return;
	mb = f->mbs[f->head & (f->size - 1)];
	deadline = rte_get_timer_cycles() +
		rte_get_timer_hz() * RPC_TXFREE_WAIT_MS / 1000;
	while (txfree_busy(w, mb)) {
		if (rte_get_timer_cycles() > deadline) {
			RPC_LOG(ERR, "worker %u: the driver holds a sent "
				"msgbuf over %u ms: left to it",
				w->worker_id, RPC_TXFREE_WAIT_MS);
			w->stats.txfree_abandoned++;
			f->head++;
			return;
		}
		pmr_transport_tx_flush(w->q);
		rte_pause();
	}
	rpc_msgbuf_put(mb);
	f->head++;
}

/*
 * mb is done with: free it once the driver lets go of it, and not before
 * the end of this poll, as packets queued for the next burst may still
 * point into it.
 */
void
rpc_txfree_push(struct pmr_worker *w, struct pmr_msgbuf *mb)
{
	struct rpc_txfree *f = &w->txfree;

	if (unlikely(f->tail - f->head == f->size))
		txfree_make_room(w);
	f->mbs[f->tail++ & (f->size - 1)] = mb;
	w->poll_later = true;
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
	w->nb_tx_free = w->faults.on;	/* the next burst comes here too */
	/* All false again (rpc_tx_next() sets only the true ones). */
	memset(w->tx_free, 0, sizeof(w->tx_free));
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
 * header kept here and the payload in mb.
 */
void
rpc_tx_pkt(struct pmr_worker *w, const struct rpc_session *s,
		const struct pmr_pkthdr *h, struct pmr_msgbuf *mb,
		uint32_t plen)
{
	struct pmr_tx_pkt *p;
	uint32_t len = 0;
	uint16_t idx;

	p = rpc_tx_next(w, false);
	idx = (uint16_t)(p - w->tx);
	p->peer = s->peer;
	p->mb = mb;
	if (mb != NULL && (h->pkt_type == PMR_PKT_REQ ||
			   h->pkt_type == PMR_PKT_RESP))
		len = rpc_msg_pkt_len(mb->len, plen, h->pkt_num);
	if (mb != NULL && rpc_tx_inplace_ok(w, s, mb)) {
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
	w->stats.tx_bytes += len;
}

/*
 * Queue a descriptor (rpc_rdv.c): header and payload gathered from the
 * burst's header slot, no msgbuf.
 */
void
rpc_tx_desc(struct pmr_worker *w, const struct rpc_session *s,
		const struct pmr_pkthdr *h, const struct pmr_pkt_desc *d)
{
	struct pmr_tx_pkt *p = rpc_tx_next(w, false);
	uint16_t idx = (uint16_t)(p - w->tx);

	pmr_pkthdr_encode(w->tx_hdr[idx], h);
	pmr_pkt_desc_encode(w->tx_hdr[idx] + PMR_PKTHDR_LEN, d);
	p->peer = s->peer;
	p->mb = NULL;
	p->data = NULL;
	p->len = 0;
	p->hdr = w->tx_hdr[idx];
	p->hdr_len = PMR_PKTHDR_LEN + PMR_PKT_DESC_LEN;
}

/* Is mb in the TX burst not sent yet? */
bool
rpc_tx_queued(const struct pmr_worker *w, const struct pmr_msgbuf *mb)
{
	uint16_t i;

	for (i = 0; i < w->nb_tx; i++)
		if (w->tx[i].mb == mb)
			return true;
	return false;
}
