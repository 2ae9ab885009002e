/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_RPC_TX_H
#define PMR_RPC_TX_H

/*
 * The TX path: every packet the worker sends is queued in w->tx[] with one
 * of the calls below and leaves in a burst, at the end of the poll or when
 * the burst is full (rpc_tx.c has the rest: the slow flush, packets of a
 * message gathered from a kept header, and the FIFO of msgbufs freed once
 * the driver lets go of them).
 */

#include "rpc_msg.h"
#include "rpc_private.h"

#pragma GCC visibility push(hidden)

void rpc_tx_flush_slow(struct pmr_worker *w, uint16_t sent);
void rpc_tx_flush_full(struct pmr_worker *w);
void rpc_tx_pkt(struct pmr_worker *w, const struct rpc_session *s,
		const struct pmr_pkthdr *h, struct pmr_msgbuf *mb,
		uint32_t plen);
void rpc_tx_desc(struct pmr_worker *w, const struct rpc_session *s,
		const struct pmr_pkthdr *h, const struct pmr_pkt_desc *d);
void rpc_txfree_push(struct pmr_worker *w, struct pmr_msgbuf *mb);
void rpc_txfree_poll(struct pmr_worker *w);
bool rpc_tx_queued(const struct pmr_worker *w, const struct pmr_msgbuf *mb);

/*
 * Send the queued burst: one driver call when the queue takes it all and
 * nothing is to be freed once sent (no faults); else rpc_tx_flush_slow().
 */
static inline void
rpc_tx_flush(struct pmr_worker *w)
{
	uint16_t sent = 0;

	/* What is queued from now on goes in the next burst. */
	w->tx_bursts++;
	/* Counted per burst, not per packet queued (sent or dropped). */
	w->stats.tx_pkts += w->nb_tx;
	if (likely(w->nb_tx_free == 0)) {	/* and no faults */
		sent = pmr_transport_tx_burst(w->q, w->tx, w->nb_tx);
		if (likely(sent == w->nb_tx)) {
			w->nb_tx = 0;
			return;
		}
	}
	rpc_tx_flush_slow(w, sent);
}

/* The next free entry of the TX burst (flushing a full one first). */
static inline struct pmr_tx_pkt *
rpc_tx_next(struct pmr_worker *w, bool free_after)
{
	if (unlikely(w->nb_tx == PMR_BURST_MAX))
		rpc_tx_flush_full(w);
	/* tx_free[] is all false but in a burst with nb_tx_free != 0. */
	if (free_after) {
		w->tx_free[w->nb_tx] = true;
		w->nb_tx_free++;
	}
	return &w->tx[w->nb_tx++];
}

/*
 * May mb go out in place as one packet (rpc_tx_inplace()): a
 * single-packet message of session s, room for the headers in front of it, and no
 * driver still holding it?
 */
static inline bool
rpc_tx_inplace_ok(const struct pmr_worker *w, const struct rpc_session *s,
		const struct pmr_msgbuf *mb)
{
	return mb->len <= s->plen && mb->headroom >= w->headroom &&
		pmr_msgbuf_tx_pending(mb) == 0;
}

/*
 * Queue the single packet of the message in mb to the session's peer,
 * its header written in the headroom. free_after: mb is the worker's, to
 * free once sent.
 */
static inline void
rpc_tx_inplace(struct pmr_worker *w, const struct rpc_session *s,
		struct pmr_msgbuf *mb, uint8_t pkt_type, uint8_t req_type,
		uint64_t req_num, uint8_t status, bool free_after)
{
	/*
	 * The burst entry first: a caller that checked the burst has room
	 * then has no flush call on its path (and no registers saved for
	 * one).
	 */
	struct pmr_tx_pkt *p = rpc_tx_next(w, free_after);
	uint8_t *hdr = mb->data - PMR_PKTHDR_LEN;
	uint32_t len = mb->len;

	p->peer = s->peer;
	p->mb = mb;
	p->data = hdr;
	p->len = PMR_PKTHDR_LEN + len;
	p->hdr_len = 0;		/* hdr is not read then */
	w->stats.tx_bytes += len;
	pmr_pkthdr_write(hdr, pkt_type, req_type, s->remote_session, 0, len,
			s->token, req_num, status);
}

/*
 * Queue a header alone (credit return, request for response, a status):
 * h's fields, to the session's peer.
 */
static inline void
rpc_tx_ctrl(struct pmr_worker *w, const struct rpc_session *s,
		const struct pmr_pkthdr *h)
{
	rpc_tx_pkt(w, s, h, NULL, 0);
}

#pragma GCC visibility pop

#endif /* PMR_RPC_TX_H */
