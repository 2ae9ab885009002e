/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_RPC_PRIVATE_H
#define PMR_RPC_PRIVATE_H

/*
 * The worker's state, shared by every file of lib/rpc: struct pmr_worker
 * and struct rpc_session, the drop reasons, msgbuf ownership. What each
 * concern does with it is declared in its own header: rpc_tx.h (the TX
 * burst), rpc_msg.h (messages in packets), rpc_client.h, rpc_server.h,
 * rpc_timers.h, rpc_session.h, rpc_faults.h.
 */

#include <sys/queue.h>

#include <rte_cycles.h>
#include <rte_log.h>
#include <rte_ring.h>

#include "pmr_nexus_worker.h"
#include "pmr_pkthdr.h"
#include "pmr_rpc.h"
#include "rpc_faults.h"

/* Internal to libpmrpc: direct calls, not through the PLT. */
#pragma GCC visibility push(hidden)

extern int pmr_rpc_logtype;
#define RPC_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, pmr_rpc_logtype, "pmr.rpc: " fmt "\n", \
		##__VA_ARGS__)

/* Why a received packet was dropped (pmr_worker_stats.drops). */
enum rpc_drop {
	/* 0 .. PMR_PKTHDR_E_MAX-1: header decode errors (0 unused) */
	RPC_DROP_NO_SESSION = PMR_PKTHDR_E_MAX,	/* unknown/closed session */
	RPC_DROP_TOKEN,		/* wrong session token */
	RPC_DROP_SOURCE,	/* not from the session's peer */
	RPC_DROP_ROLE,		/* request to a client, response to a server */
	RPC_DROP_STALE,		/* for no request outstanding, or a duplicate */
	RPC_DROP_ORDER,		/* ahead of the next expected (go-back-N) */
	RPC_DROP_BUSY,		/* new request while a handler holds the slot */
	RPC_DROP_BAD_PKT,	/* size or position inconsistent with message */
	RPC_DROP_TOKEN_PKT,	/* TOKEN packet for no handshake of ours */
	RPC_DROP_REQ_NUM,	/* request number past cur + RPC_REQ_SKIP_MAX
				 * windows of its slot */
	RPC_DROP_CREDITS,	/* the session holds rx_reserve unanswered */
	RPC_DROP_EXPIRED,	/* for a request whose slot state timed out */
	RPC_DROP_PKT_SIZE,	/* payload over the session's packet size */
	RPC_DROP_RDV_NO_QP,	/* a descriptor for a session without its RC
				 * QP yet (asked for; sent again at the RTO) */
	RPC_DROP_MAX
};

/*
 * A server slot takes request number cur + k * window, 1 <= k <= this:
 * a client skips a number of a slot for each request that timed out
 * there before the server saw it, and resets the session after
 * RPC_SLOT_TIMEOUTS_MAX of them in a row.
 */
#define RPC_REQ_SKIP_MAX 8
#define RPC_SLOT_TIMEOUTS_MAX RPC_REQ_SKIP_MAX

/* Polls between two looks at the nexus ring. */
#define RPC_SM_POLL_EVERY 16

/* Message buffer classes of a worker. */
#define RPC_NB_CLASSES 3
#define RPC_MID_SIZE (64 * 1024)

/* A client request (rpc_client.h) and a server slot (rpc_server.h). */
struct rpc_creq;
struct pmr_srv_slot;
struct rpc_rc;
struct rpc_rc_pair;
struct rpc_rdv;
struct rpc_src;
struct rpc_src_table;
TAILQ_HEAD(rpc_creq_list, rpc_creq);
TAILQ_HEAD(rpc_srv_list, pmr_srv_slot);

struct rpc_session {
	/*
	 * Packet types the session takes on the data path, a bit per
	 * type (rpc_session_rx_update()): one test in the RX dispatch for
	 * its state, closing flag and role.
	 */
	uint8_t rx_accept;
	enum pmr_session_state state;
	bool client;
	/* Its peer's packet or a READ of it since the last rpc_live_report(). */
	bool rx_live;
	uint16_t remote_session;
	uint16_t remote_worker;
	uint64_t token;
	struct pmr_transport_peer *peer;
	uint64_t peer_src;		/* peer->src, for the RX check */
	/*
	 * Packet payload size: the smaller of both workers' (exchanged in
	 * the handshake; the worker's own until then). TX cuts messages
	 * by it, RX drops a packet with more payload.
	 */
	uint32_t plen;
	uint32_t inplace_max;		/* min(plen, worker's max_msg) */
	/*
	 * The longest packet (header included) the RX dispatch takes
	 * without a second look: plen + PMR_PKTHDR_LEN, or 0 while
	 * hs_pending, so that one test on the hot path sends both a packet
	 * over the session's size and the first packet after a handshake
	 * to the slow branch (rpc_session_rx_max_update()).
	 */
	uint32_t rx_max;
	pmr_session_cb_t cb;
	void *cb_arg;
	/* client */
	uint64_t *slot_req_num;		/* [session_window]: next number */
	uint8_t *slot_timeouts;		/* [session_window]: in a row */
	uint16_t in_flight;		/* requests in the window */
	uint16_t credits;		/* packets we may still send */
	bool starved;			/* a request waits for credits */
	uint16_t kick_pos;		/* window slot the next kick starts at */
	uint16_t rx_reserve;		/* receive slots reserved for it */
	struct rpc_creq **window;	/* [session_window] by req_num */
	struct rpc_creq_list backlog;	/* beyond the window, in order */
	/* server */
	struct pmr_srv_slot *srv;	/* [session_window] by req_num */
	uint16_t srv_active;		/* slots with handlers */
	bool closing;			/* free once srv_active is 0 */
	bool failing;			/* in rpc_creq_fail_all() */
	/*
	 * The handshake's data-path half (issue 10, rpc_handshake.c): the
	 * server sends the token to the client's data address in TOKEN
	 * packets; the client is CONNECTED once it has both the nexus's
	 * CONNECTED and the token.
	 */
	uint64_t hs_id;			/* the client worker's handshake id */
	uint64_t hs_deadline;		/* TSC: next TOKEN copy / give up */
	uint64_t token_src;		/* client: where the TOKEN came from */
	uint16_t token_session;		/* client: server session it named */
	uint16_t granted;		/* client: credits the TOKEN granted */
	uint16_t nx_granted;		/* client: CONNECTED.credits, 0: none */
	uint8_t token_left;		/* server: TOKEN copies still to send */
	bool has_token;			/* client: took a TOKEN packet */
	bool hs_pending;		/* on the worker's hs_pending list */
	TAILQ_ENTRY(rpc_session) hs_next;
	/* Its workers' RC QP (rpc_rc.c): enum rpc_rc_state, the pair. */
	uint8_t rc_state;
	bool rc_eager;			/* ask as soon as it is connected */
	int rc_err;			/* RPC_RC_FAILED: why */
	struct rpc_rc_pair *rc;		/* RPC_RC_READY */
	/*
	 * Its pair was lost to the transport: large messages go as
	 * datagrams both ways until rdv_off_until (TSC; 0: never was), a
	 * back-off that doubles with each loss (rdv_backoff) until READs
	 * have gone well for as long again (rpc_rc_read_ok()).
	 */
	uint64_t rdv_off_until;
	uint8_t rdv_backoff;
	/* server: accepted, its PMR_SESSION_EV_RESET is still owed */
	bool accepted;
	/* server: its source, what it holds counted there (rpc_source.h) */
	struct rpc_src *src;
	char remote_uri[PMR_URI_MAX];	/* pmr_session_info.remote_uri */
};
TAILQ_HEAD(rpc_session_list, rpc_session);

/* Msgbufs sent zero-copy, freed once the driver lets go (rpc_tx.c). */
struct rpc_txfree {
	struct pmr_msgbuf **mbs;
	uint32_t size;			/* power of 2 */
	uint32_t head, tail;
};

/*
 * Refusals the outbox may hold; past that, rpc_sm_poll() leaves the
 * nexus's messages in the ring until it has taken some.
 */
#define RPC_OUTBOX_REFUSES 64

struct pmr_worker {
	/* Data path. */
	struct pmr_transport_queue *q;
	struct rpc_session *sessions;
	uint32_t max_sessions;
	uint16_t window;
	bool window_pow2;		/* slot = req_num & (window - 1) */
	uint16_t credits;		/* per session */
	uint16_t headroom;		/* driver + pkthdr */
	/* Payload of a packet of the queue; a session's may be less. */
	uint32_t plen;
	uint32_t max_msg;
	struct rte_mempool *pools[RPC_NB_CLASSES];
	uint32_t pool_cap[RPC_NB_CLASSES];
	/* The next TX burst (rpc_tx.h); twice the size for duplicates. */
	struct pmr_tx_pkt tx[2 * PMR_BURST_MAX];
	/*
	 * Free tx[i].mb once sent. All false but in a burst that goes
	 * through rpc_tx_flush_slow() (nb_tx_free != 0), which clears it.
	 */
	bool tx_free[2 * PMR_BURST_MAX];
	/* Headers gathered with a payload slice, or with a descriptor. */
	uint8_t tx_hdr[PMR_BURST_MAX][PMR_PKTHDR_LEN + PMR_PKT_DESC_LEN];
	/* Received packets neither side kept: released once per poll. */
	struct pmr_rx_pkt rx_rel[PMR_BURST_MAX + 1];
	uint16_t nb_rx_rel;
	uint16_t nb_tx;
	/*
	 * tx_free[] set among tx[0..nb_tx), plus 1 while faults are on:
	 * not zero sends the burst through rpc_tx_flush_slow().
	 */
	uint16_t nb_tx_free;
	uint32_t tx_bursts;		/* rpc_tx_flush() calls: burst id */
	uint32_t rare_in;		/* polls to the next rpc_poll_rare() */
	struct rpc_txfree txfree;
	struct rpc_creq_list completing;
	/*
	 * txfree or completing may not be empty: the poll looks at both
	 * (one test a poll for the two). Set by whatever adds to them,
	 * cleared only by the poll when it found both empty.
	 */
	bool poll_later;
	/*
	 * Pending requests by deadline (rpc_timers.h): those with the
	 * worker's req_timeout in all (submit order is deadline order:
	 * O(1)), those with their own (pmr_request_timeout()) in timed,
	 * sorted on insertion from the tail (O(1) when they come in
	 * deadline order). The retransmission scan walks them too.
	 */
	struct rpc_creq_list all;
	struct rpc_creq_list timed;
	uint64_t rto;			/* TSC */
	uint64_t req_timeout;		/* TSC */
	/* Deadlines' allowance for size (rpc_timer_allowance()). */
	uint64_t tmo_per_mib;		/* TSC per MiB; 0: none */
	uint32_t tmo_min_len;		/* bytes: smaller, no allowance */
	uint64_t next_timer;		/* TSC of the next timer scan */
	/* Server slots with a timer (partial requests, stored responses),
	 * oldest first. */
	struct rpc_srv_list srv_timed;
	/* Those whose timer has an allowance for size, unordered. */
	struct rpc_srv_list srv_long;
	uint64_t srv_timeout;		/* TSC */
	uint32_t max_large_sess;	/* large request buffers per session */
	uint64_t srv_tmask;		/* TSC: server timer epoch - 1 */
	uint32_t inplace_max;		/* min(plen, max_msg) */
	struct rpc_faults faults;
	/* Rate limit of the log of forged packets (the counters count all). */
	uint64_t forged_log_next;	/* TSC */
	uint64_t forged_log_quiet;	/* not logged since the last line */
	/* Quiet flush (rpc_poll_rare()): tx_bursts at the last rare poll,
	 * and at the last flush after which the driver held nothing. */
	uint32_t quiet_mark;
	uint32_t quiet_clean;
	struct pmr_nexus_handler handlers[256];
	struct pmr_worker_stats stats;

	/* Request contexts: a free stack. */
	struct rpc_creq *creqs;
	struct rpc_creq **creq_free;
	uint32_t nb_creq_free;
	uint32_t max_requests;

	/* Sessions: free numbers, and receive slots reserved for them. */
	uint16_t *sess_free;
	uint32_t nb_sess_free;
	uint32_t rx_budget;
	uint32_t rx_reserved;
	/* Sessions resending a TOKEN (server) or waiting for one (client). */
	struct rpc_session_list hs_pending;
	uint64_t hs_next;		/* TSC: earliest hs_deadline on it */

	/* RC QPs and one-sided operations (rpc_rc.c), NULL until asked. */
	struct rpc_rc *rc;
	/*
	 * Large messages by READ (rpc_rdv.c): offers; NULL on a queue that
	 * cannot READ. Messages over rdv_threshold go so (UINT32_MAX:
	 * none); rdv_eager: sessions ask for their QP as soon as they are
	 * connected; rdv_mw: exposed by windows; rdv_copy: copied into the
	 * pair's region first (windows not exact, or none), else exposed
	 * where they are.
	 */
	struct rpc_rdv *rdv;
	uint32_t rdv_threshold;
	bool rdv_eager;
	bool rdv_mw;
	bool rdv_copy;

	/* What each source of server sessions holds (rpc_source.c). */
	struct rpc_src_table *src;

	/* Control. */
	struct pmr_nexus *nx;
	struct rte_ring *to_worker;
	struct rte_ring *from_worker;
	/*
	 * Session messages for the nexus that did not fit in the
	 * from_worker ring, in order: a private ring sized so that it never
	 * overflows (rpc_outbox_size()).
	 */
	struct rte_ring *outbox;
	uint32_t outbox_refuses;	/* PMR_SM_REFUSE in the outbox */
	/* Signs of life for the nexus (rpc_live.c), TSC. */
	uint64_t live_next;
	uint64_t live_period;
	uint16_t worker_id;
	/* Server session events (pmr_worker_conf.server_session_cb). */
	pmr_server_session_cb_t srv_cb;
	void *srv_cb_arg;
	/* Device events (pmr_worker_conf.event_cb). */
	pmr_worker_event_cb_t ev_cb;
	void *ev_cb_arg;
	/*
	 * In pmr_worker_poll() (nested calls counted) or in a callback run
	 * outside it: pmr_session_connect() would poll from inside a poll.
	 */
	uint32_t polling;
	bool idle_yield;
	bool stop;
	uint32_t service_id;
	bool has_service;
};

/*
 * After a change of s's state, closing flag or role: a connected server
 * session takes requests (and their descriptors) and requests for
 * response, a connected client one responses (and their descriptors) and
 * credit returns; others none.
 */
static inline void
rpc_session_rx_update(struct rpc_session *s)
{
	if (s->state != PMR_SESSION_CONNECTED || s->closing)
		s->rx_accept = 0;
	else if (s->client)
		s->rx_accept = RTE_BIT32(PMR_PKT_RESP) | RTE_BIT32(PMR_PKT_CR) |
			RTE_BIT32(PMR_PKT_RESP_DESC);
	else
		s->rx_accept = RTE_BIT32(PMR_PKT_REQ) | RTE_BIT32(PMR_PKT_RFR) |
			RTE_BIT32(PMR_PKT_REQ_DESC);
}

/* After a change of s's plen or hs_pending: its rx_max. */
static inline void
rpc_session_rx_max_update(struct rpc_session *s)
{
	s->rx_max = s->hs_pending ? 0 : s->plen + PMR_PKTHDR_LEN;
}

static inline void
rpc_count_drop(struct pmr_worker *w, unsigned int why)
{
	w->stats.drops[why]++;
	w->stats.rx_drops++;
}

/* rpc_poll.c: log a dropped forgery, at most once a second. */
void rpc_log_forged(struct pmr_worker *w, unsigned int why, uint16_t sn,
		uint64_t src);

/*
 * Msgbuf ownership (pmr_msgbuf.flags): the worker holds a pending
 * request's msgbuf, a kept response and an offered response buffer, so
 * that the application can neither free them (pmr_msgbuf_free() refuses)
 * nor give them to the worker again (-EBUSY). A flag store on the hot
 * path.
 */
static inline void
rpc_msgbuf_hold(struct pmr_msgbuf *mb)
{
	mb->flags |= PMR_MSGBUF_F_WORKER;
}

/* The application's again. */
static inline void
rpc_msgbuf_unhold(struct pmr_msgbuf *mb)
{
	mb->flags &= (uint16_t)~PMR_MSGBUF_F_WORKER;
}

/* May the application give mb to the worker (not held, not in flight)? */
static inline bool
rpc_msgbuf_free_to_give(const struct pmr_msgbuf *mb)
{
	return mb->flags == 0 && pmr_msgbuf_tx_pending(mb) == 0;
}

/*
 * The engine frees a msgbuf of its own, held or not: every free inside
 * the engine goes through here, as pmr_msgbuf_free() refuses a held one.
 */
static inline void
rpc_msgbuf_put(struct pmr_msgbuf *mb)
{
	if (mb == NULL)
		return;
	mb->flags = 0;
	pmr_msgbuf_free(mb);
}

/* rpc_worker.c: a msgbuf of the smallest class that holds len bytes. */
struct pmr_msgbuf *rpc_msgbuf_alloc(struct pmr_worker *w, uint32_t len);

/* Window slot of a request number (client and server alike). */
static inline uint32_t
rpc_slot_of(const struct pmr_worker *w, uint64_t req_num)
{
	if (likely(w->window_pow2))
		return (uint32_t)(req_num & (w->window - 1u));
	return (uint32_t)(req_num % w->window);
}

#pragma GCC visibility pop

#endif /* PMR_RPC_PRIVATE_H */
