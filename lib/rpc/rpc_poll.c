/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The worker's hot path, top to bottom: pmr_worker_poll() receives a
 * burst, checks every packet against its session (the RX dispatch:
 * header, session, token, source, role), hands request packets to the
 * server side and replies to the client side, takes session events from
 * the nexus and runs the timers every few polls, sends what all of that
 * produced in one burst, and then looks at what waits on the driver
 * (rpc_poll_later()). Received packets go back to the driver here, in
 * one call per burst, but for those the client or the server kept
 * (zero-copy).
 */

#include <inttypes.h>
#include <sched.h>

#include "pmr_transport_driver.h"
#include "rpc_client.h"
#include "rpc_client_rx.h"
#include "rpc_private.h"
#include "rpc_rc.h"
#include "rpc_server.h"
#include "rpc_server_rx.h"
#include "rpc_session.h"
#include "rpc_timers.h"
#include "rpc_tx.h"

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

/*
 * A packet the session does not take in its state (h->dest_session in
 * range): a TOKEN packet for the handshake, else counted as for no
 * session or the wrong role. h by value: the fast lane's header then
 * never has its address taken (it stays in registers).
 */
static void __rte_noinline
rpc_rx_unexpected(struct pmr_worker *w, const struct rpc_session *s,
		struct pmr_pkthdr h, const struct pmr_rx_pkt *pkt)
{
	if (h.pkt_type == PMR_PKT_TOKEN)
		rpc_hs_rx_token(w, &h, pkt);
	else if (s->state != PMR_SESSION_CONNECTED || s->closing)
		rpc_count_drop(w, RPC_DROP_NO_SESSION);
	else if (h.token != s->token)
		rpc_count_drop(w, RPC_DROP_TOKEN);
	else if (pkt->src != s->peer_src)
		rpc_count_drop(w, RPC_DROP_SOURCE);
	else
		rpc_count_drop(w, RPC_DROP_ROLE);
}

/*
 * The session of a packet with a valid header h: it exists, takes
 * packets of h's type now, and h's token and the packet's source are its.
 * NULL if not (the packet counted as dropped); else the session, with its
 * handshake's TOKEN copies stopped, and the packet accepted: counted, its
 * data past the header.
 */
static __rte_always_inline struct rpc_session *
rpc_rx_session(struct pmr_worker *w, const struct pmr_pkthdr *h,
		struct pmr_rx_pkt *pkt)
{
	struct rpc_session *s;

	if (unlikely(h->dest_session >= w->max_sessions)) {
		rpc_count_drop(w, RPC_DROP_NO_SESSION);
		return NULL;
	}
	s = &w->sessions[h->dest_session];
	if (unlikely(!(s->rx_accept & RTE_BIT32(h->pkt_type)))) {
		rpc_rx_unexpected(w, s, *h, pkt);
		return NULL;
	}
	if (unlikely(h->token != s->token)) {
		rpc_log_forged(w, RPC_DROP_TOKEN, h->dest_session, pkt->src);
		rpc_count_drop(w, RPC_DROP_TOKEN);
		return NULL;
	}
	if (unlikely(pkt->src != s->peer_src)) {
		rpc_log_forged(w, RPC_DROP_SOURCE, h->dest_session, pkt->src);
		rpc_count_drop(w, RPC_DROP_SOURCE);
		return NULL;
	}
	/*
	 * One test for two rare cases (rx_max is 0 while hs_pending): the
	 * first packet after a handshake, and a packet over the session's
	 * size (the smaller of both ends'), which no correct sender sends,
	 * whatever the queue took.
	 */
	if (unlikely(pkt->len > s->rx_max)) {
		/* The client has the token: the server's TOKEN copies stop. */
		if (s->hs_pending)
			rpc_hs_stop(w, s);
		if (pkt->len > s->rx_max) {
			rpc_count_drop(w, RPC_DROP_PKT_SIZE);
			return NULL;
		}
	}
	pkt->data += PMR_PKTHDR_LEN;
	pkt->len -= PMR_PKTHDR_LEN;
	s->rx_live = true;	/* its peer is alive (rpc_live.c) */
	w->stats.rx_pkts++;
	w->stats.rx_bytes += pkt->len;
	return s;
}

/*
 * The general lane of rpc_rx_one(): any header but the common shape,
 * decoded in full, to the client's or the server's general code.
 */
static __rte_noinline bool
rpc_rx_general(struct pmr_worker *w, struct pmr_rx_pkt *pkt)
{
	struct pmr_pkthdr h;
	struct rpc_session *s;
	enum pmr_pkthdr_err err;

	err = pmr_pkthdr_decode(pkt->data, pkt->len, &h);
	if (unlikely(err != PMR_PKTHDR_OK)) {
		rpc_count_drop(w, err);
		return false;
	}
	s = rpc_rx_session(w, &h, pkt);
	if (s == NULL)
		return false;
	if (s->client)
		return rpc_client_rx(w, h.dest_session, &h, pkt);
	return rpc_server_rx(w, h.dest_session, &h, pkt);
}

/*
 * One received packet: true if the client or the server kept it (it is
 * theirs to release), false if the caller releases it.
 *
 * Two lanes: a request or response whole in one packet
 * (pmr_pkthdr_whole()) goes to the client's or server's inline fast path,
 * which then need not test its shape again; any other header is decoded
 * in full and goes to their general code (rpc_rx_general()). The fast
 * lane's header never has its address taken (the slow calls get copies),
 * so that it stays in registers.
 */
static inline bool
rpc_rx_one(struct pmr_worker *w, struct pmr_rx_pkt *pkt)
{
	struct pmr_pkthdr h;
	uint8_t whole;

	whole = pmr_pkthdr_whole(pkt->data, pkt->len, &h);
	if (unlikely(whole == 0))
		return rpc_rx_general(w, pkt);
	if (unlikely(rpc_rx_session(w, &h, pkt) == NULL))
		return false;
	/*
	 * rx_accept took the type: a response is for a client session, a
	 * request for a server session.
	 */
	if (whole == PMR_PKT_RESP)
		return rpc_client_rx_fast(w, h.dest_session, &h, pkt);
	return rpc_server_rx_fast(w, h.dest_session, &h, pkt);
}

/*
 * After the poll's burst went out: what waits for the driver to let go of
 * sent msgbufs. Requests to complete (what their continuations queue goes
 * out at once), then msgbufs to free. Only after every burst of the poll
 * is sent: a msgbuf queued in a burst has no driver reference yet (it
 * reads as not pending), and may be in the FIFO already (a kept response
 * sent again, its slot cleared in the same poll), so freeing it before
 * its burst left would send a msgbuf back in its pool.
 */
static __rte_noinline int
rpc_poll_later(struct pmr_worker *w)
{
	int work = 0;

	if (!TAILQ_EMPTY(&w->completing)) {
		work = rpc_completing_poll(w);
		if (w->nb_tx != 0)
			rpc_tx_flush(w);
	}
	if (w->txfree.head != w->txfree.tail)
		rpc_txfree_poll(w);
	w->poll_later = !TAILQ_EMPTY(&w->completing) ||
		w->txfree.head != w->txfree.tail;
	return work;
}

/*
 * What a poll looks at every RPC_SM_POLL_EVERY polls only: session events
 * from the nexus, what the queue found of its own QP, the timers (the
 * finest, rto, is milliseconds; polls are microseconds apart), handshake
 * timers (TOKEN copies are rto apart). Their packets go in this poll's
 * burst.
 */
static __rte_noinline int
rpc_poll_rare(struct pmr_worker *w)
{
	int work = 0;

	if (!rte_ring_empty(w->to_worker) || !rte_ring_empty(w->outbox))
		work = rpc_sm_poll(w);	/* not called for nothing */
	/* A driver that watches its own QP: failures, recoveries. */
	if (w->q->driver->queue_event_read != NULL)
		work += rpc_queue_events(w);
	rpc_timers_poll(w);
	rpc_live_poll(w);
	rpc_rc_watch(w);
	if (!TAILQ_EMPTY(&w->hs_pending))
		rpc_hs_timers(w);
	/*
	 * A queue that sent nothing for a whole rare period is quiet: flush
	 * it, each rare period until the driver holds nothing, so that a
	 * driver that signals one send in N (verbs) completes the last ones
	 * and lets go of their msgbufs (kept responses, retransmissions:
	 * doc/drivers.md, "The flush"). Not
	 * again before the queue sends.
	 */
	if (likely(w->tx_bursts != w->quiet_mark))
		w->quiet_mark = w->tx_bursts;
	else if (w->quiet_clean != w->tx_bursts &&
		 pmr_transport_tx_flush(w->q) <= 0)
		w->quiet_clean = w->tx_bursts;
	return work;
}

int
pmr_worker_poll(struct pmr_worker *w)
{
	struct pmr_rx_pkt rx[PMR_BURST_MAX + 1];	/* + one delayed */
	uint16_t nb, i;
	int work;

	w->polling++;	/* see pmr_session_connect() */
	nb = pmr_transport_rx_burst(w->q, rx, PMR_BURST_MAX);
	if (unlikely(w->faults.on))
		nb = rpc_faults_rx(w, rx, nb);
	/* What neither side kept goes back in one call. */
	for (i = 0; i < nb; i++)
		if (!rpc_rx_one(w, &rx[i]))
			w->rx_rel[w->nb_rx_rel++] = rx[i];
	if (w->nb_rx_rel != 0) {
		pmr_transport_rx_release(w->q, w->rx_rel, w->nb_rx_rel);
		w->nb_rx_rel = 0;
	}
	work = nb;

	/* One instruction and a branch: a count down, from 1 at creation. */
	if (unlikely(--w->rare_in == 0)) {
		w->rare_in = RPC_SM_POLL_EVERY;
		work += rpc_poll_rare(w);
	}

	if (unlikely(w->rc != NULL))
		work += rpc_rc_poll(w);
	if (w->nb_tx != 0)
		rpc_tx_flush(w);
	if (unlikely(w->poll_later))
		work += rpc_poll_later(w);
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
