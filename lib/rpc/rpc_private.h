/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_RPC_PRIVATE_H
#define PMR_RPC_PRIVATE_H

#include <sys/queue.h>

#include <rte_cycles.h>
#include <rte_log.h>
#include <rte_ring.h>

#include "pmr_nexus_worker.h"
#include "pmr_pkthdr.h"
#include "pmr_rpc.h"

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
	RPC_DROP_MAX
};

/*
 * TOKEN packets a server session sends at most (issue 10): one on
 * CONNECT_IN, then again after gaps of rto, 2 rto, 4 rto, ... 64 rto
 * (0.6 s at the default rto) until the client's first valid packet
 * arrives. The span outlives a TX path that is dead for a while when the
 * session is taken: a memif port whose link flag lags its peer's connect
 * under load dropped the first copies, and 4 copies over 35 ms lost them
 * all (test hostile_session_defect6, token_outlives_tx_stall).
 */
#define RPC_TOKEN_COPIES 8

/*
 * Packets of a message, at most, on both sides: pkt_num is 16 bits and the
 * client's ack of a response is "packet resp_pkts", so 65,535.
 */
#define RPC_MSG_PKTS_MAX UINT16_MAX

/*
 * Payload of the first packet of a multi-packet message, at least (a
 * sender's packets are all the same size but the last; a tiny first packet
 * claiming a large message would pin a large buffer cheaply). A worker
 * whose packets are smaller is refused at creation.
 */
#define RPC_FIRST_PKT_MIN 512

/*
 * A server slot takes request number cur + k * window, 1 <= k <= this:
 * a client skips a number of a slot for each request that timed out
 * there before the server saw it, and resets the session after
 * RPC_SLOT_TIMEOUTS_MAX of them in a row.
 */
#define RPC_REQ_SKIP_MAX 8
#define RPC_SLOT_TIMEOUTS_MAX RPC_REQ_SKIP_MAX

/* Polls between two looks at the nexus ring (a power of 2). */
#define RPC_SM_POLL_EVERY 8

/* Tries before a burst the queue will not take is dropped. */
#define RPC_TX_TRIES 64

/* Message buffer classes of a worker. */
#define RPC_NB_CLASSES 3
#define RPC_MID_SIZE (64 * 1024)

/* A client request: in the session window, queued, or completing. */
struct rpc_creq;
TAILQ_HEAD(rpc_creq_list, rpc_creq);
struct rpc_creq {
	TAILQ_ENTRY(rpc_creq) next;	/* backlog, or completing list */
	TAILQ_ENTRY(rpc_creq) all;	/* in *tlist, by deadline */
	TAILQ_ENTRY(rpc_creq) active;	/* in a window: retransmission */
	struct rpc_creq_list *tlist;	/* &w->all or &w->timed */
	struct pmr_msgbuf *mb;
	pmr_cont_t cont;
	void *tag;
	struct pmr_req_handle *h;	/* instead of cont */
	uint64_t req_num;
	uint64_t deadline;		/* TSC: the request times out */
	uint64_t last_tx;		/* TSC of the last packet sent */
	uint32_t tx_round;		/* w->tx_bursts when last queued */
	uint32_t req_pkts;		/* packets of the request */
	uint32_t resp_pkts;		/* of the response; 0 until known */
	uint32_t num_tx;		/* next packet index to send */
	uint32_t num_rx;		/* replies received, in order */
	uint32_t resp_size;
	uint32_t resp_plen;		/* payload of a response packet */
	struct pmr_msgbuf *resp_mb;	/* multi-packet response */
	uint16_t session;
	uint16_t slot;			/* in the session window */
	uint8_t req_type;
	bool in_window;
	/* Completing: waiting for the driver to let go of mb. */
	enum pmr_status status;
	struct pmr_rx_pkt resp_pkt;	/* valid if has_resp */
	bool has_resp;
};

/* Server slot states. */
enum rpc_srv_state {
	SRV_FREE = 0,
	SRV_RECEIVING,		/* packets of a multi-packet request */
	SRV_HANDLING,		/* with the handler */
	SRV_RESPONDED,		/* response kept for retransmissions */
};

/*
 * A server slot (session, req_num % window): the request from its first
 * packet to pmr_respond(), then the response until the slot's next request.
 */
struct pmr_req {
	struct pmr_worker *w;
	/*
	 * Changes when the slot takes a request and when that request is
	 * answered or dropped: a pmr_req_ref of another generation is stale.
	 */
	uint32_t gen;
	TAILQ_ENTRY(pmr_req) tnext;	/* in w->srv_timed, if timed */
	uint64_t tstamp;		/* TSC: timer start, if timed */
	bool timed;			/* RECEIVING or RESPONDED: a timer */
	uint64_t req_num;
	uint16_t session;
	uint8_t req_type;
	uint8_t state;			/* enum rpc_srv_state */
	bool orphaned;			/* session reset while handling */
	bool has_pkt;			/* pkt holds a single-packet request */
	/* request */
	uint32_t req_size;
	uint32_t req_pkts;
	uint32_t req_plen;		/* payload of a request packet */
	uint32_t num_rx;		/* request packets received, in order */
	struct pmr_msgbuf *req_mb;	/* multi-packet request */
	struct pmr_rx_pkt pkt;
	const uint8_t *data;
	uint32_t len;
	struct pmr_msgbuf *resp_buf;	/* offered, lazily allocated */
	/* response */
	struct pmr_msgbuf *resp_mb;	/* NULL for an empty or error one */
	uint32_t resp_pkts;
	uint8_t resp_status;
};
TAILQ_HEAD(rpc_srv_list, pmr_req);

struct rpc_session {
	enum pmr_session_state state;
	bool client;
	uint16_t remote_session;
	uint16_t remote_worker;
	uint64_t token;
	struct pmr_transport_peer *peer;
	uint64_t peer_src;		/* peer->src, for the RX check */
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
	struct pmr_req *srv;		/* [session_window] by req_num */
	uint16_t srv_active;		/* slots with handlers */
	bool closing;			/* free once srv_active is 0 */
	bool failing;			/* in rpc_creq_fail_all() */
	/*
	 * The handshake's data-path half (issue 10): the server sends the
	 * token to the client's data address in TOKEN packets; the client
	 * is CONNECTED once it has both the nexus's CONNECTED and the token.
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
	/* server: accepted, its PMR_SESSION_EV_RESET is still owed */
	bool accepted;
	char remote_uri[PMR_URI_MAX];	/* pmr_session_info.remote_uri */
};
TAILQ_HEAD(rpc_session_list, rpc_session);

/* Msgbufs sent zero-copy, freed once the driver lets go (FIFO). */
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

/* Fault injection: fractions scaled to 2^32, 0 for none. */
struct rpc_faults {
	uint32_t drop_tx, drop_rx, dup_tx, reorder_tx, reorder_rx;
	uint64_t rng;			/* xorshift64* state */
	bool on;
	struct pmr_rx_pkt held;		/* RX packet delayed to next poll */
	bool has_held;
};

struct pmr_worker {
	/* Data path. */
	struct pmr_transport_queue *q;
	struct rpc_session *sessions;
	uint32_t max_sessions;
	uint16_t window;
	bool window_pow2;		/* slot = req_num & (window - 1) */
	uint16_t credits;		/* per session */
	uint16_t headroom;		/* driver + pkthdr */
	uint32_t plen;			/* payload of a packet */
	uint32_t max_msg;
	struct rte_mempool *pools[RPC_NB_CLASSES];
	uint32_t pool_cap[RPC_NB_CLASSES];
	/* The next TX burst; twice the size for injected duplicates. */
	struct pmr_tx_pkt tx[2 * PMR_BURST_MAX];
	bool tx_free[2 * PMR_BURST_MAX];	/* free tx[i].mb once sent */
	uint8_t tx_hdr[PMR_BURST_MAX][PMR_PKTHDR_LEN];
	uint16_t nb_tx;
	uint16_t nb_tx_free;		/* tx_free[] set among tx[0..nb_tx) */
	uint32_t tx_bursts;		/* rpc_tx_flush() calls: burst id */
	uint32_t nb_polls;
	struct rpc_txfree txfree;
	struct rpc_creq_list completing;
	/*
	 * Pending requests by deadline, for their timeouts: those with the
	 * worker's req_timeout in all (submit order is deadline order: O(1)),
	 * those with their own (pmr_request_timeout()) in timed, sorted on
	 * insertion from the tail (O(1) when they come in deadline order).
	 */
	struct rpc_creq_list all;
	struct rpc_creq_list timed;
	struct rpc_creq_list active;	/* in windows */
	uint64_t rto;			/* TSC */
	uint64_t req_timeout;		/* TSC */
	uint64_t next_timer;		/* TSC of the next timer scan */
	/* Server slots with a timer (partial requests, stored responses),
	 * oldest first. */
	struct rpc_srv_list srv_timed;
	uint64_t srv_timeout;		/* TSC */
	uint32_t max_large_sess;	/* large request buffers per session */
	struct rpc_faults faults;
	/* Rate limit of the log of forged packets (the counters count all). */
	uint64_t forged_log_next;	/* TSC */
	uint64_t forged_log_quiet;	/* not logged since the last line */
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
	uint16_t worker_id;
	/* Server session events (pmr_worker_conf.server_session_cb). */
	pmr_server_session_cb_t srv_cb;
	void *srv_cb_arg;
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

static inline void
rpc_count_drop(struct pmr_worker *w, unsigned int why)
{
	w->stats.drops[why]++;
	w->stats.rx_drops++;
}

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

/* Packets of a message of size bytes, in packets of plen payload. */
static inline uint32_t
rpc_msg_pkts(uint32_t size, uint32_t plen)
{
	return size <= plen ? 1 : (size + plen - 1) / plen;
}

/* Window slot of a request number (client and server alike). */
static inline uint32_t
rpc_slot_of(const struct pmr_worker *w, uint64_t req_num)
{
	if (likely(w->window_pow2))
		return (uint32_t)(req_num & (w->window - 1u));
	return (uint32_t)(req_num % w->window);
}

/* rpc_poll.c */
void rpc_log_forged(struct pmr_worker *w, unsigned int why, uint16_t sn,
		uint64_t src);
void rpc_tx_flush_slow(struct pmr_worker *w, uint16_t sent);
void rpc_tx_flush_full(struct pmr_worker *w);
void rpc_tx_msg_pkt(struct pmr_worker *w, struct rpc_session *s,
		const struct pmr_pkthdr *h, struct pmr_msgbuf *mb,
		uint32_t plen, bool free_after);
void rpc_txfree_push(struct pmr_worker *w, struct pmr_msgbuf *mb);
struct pmr_msgbuf *rpc_msgbuf_alloc(struct pmr_worker *w, uint32_t len);

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
	if (likely(!w->faults.on && w->nb_tx_free == 0)) {
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
	w->tx_free[w->nb_tx] = free_after;
	w->nb_tx_free += free_after;
	return &w->tx[w->nb_tx++];
}

/*
 * May mb go out in place as one packet (rpc_tx_inplace()): a
 * single-packet message, room for the headers in front of it, and no
 * driver still holding it?
 */
static inline bool
rpc_tx_inplace_ok(const struct pmr_worker *w, const struct pmr_msgbuf *mb)
{
	return mb->len <= w->plen && mb->headroom >= w->headroom &&
		pmr_msgbuf_tx_pending(mb) == 0;
}

/*
 * Queue the single packet of the message in mb, its header written in
 * the headroom (as rpc_tx_msg_pkt() does for packet 0 of such a message,
 * minus the generality).
 */
static inline void
rpc_tx_inplace(struct pmr_worker *w, const struct rpc_session *s,
		struct pmr_msgbuf *mb, uint8_t pkt_type, uint8_t req_type,
		uint64_t req_num, uint8_t status)
{
	uint8_t *hdr = mb->data - PMR_PKTHDR_LEN;
	uint32_t len = mb->len;
	struct pmr_tx_pkt *p;

	pmr_pkthdr_write(hdr, pkt_type, req_type, s->remote_session, 0, len,
			s->token, req_num, status);
	p = rpc_tx_next(w, false);
	p->peer = s->peer;
	p->mb = mb;
	p->data = hdr;
	p->len = PMR_PKTHDR_LEN + len;
	p->hdr = NULL;
	p->hdr_len = 0;
	w->stats.tx_pkts++;
	w->stats.tx_bytes += len;
}

/* Is mb in the TX burst not sent yet? */
static inline bool
rpc_tx_queued(const struct pmr_worker *w, const struct pmr_msgbuf *mb)
{
	uint16_t i;

	for (i = 0; i < w->nb_tx; i++)
		if (w->tx[i].mb == mb)
			return true;
	return false;
}

/* rpc_faults.c */
int rpc_faults_parse(struct rpc_faults *f, const char *spec,
		uint16_t worker_id);
uint16_t rpc_faults_tx(struct pmr_worker *w, struct pmr_tx_pkt *pkts,
		bool *free_after, uint16_t n);
uint16_t rpc_faults_rx(struct pmr_worker *w, struct pmr_rx_pkt *pkts,
		uint16_t n);

/* rpc_session.c */
uint32_t rpc_outbox_size(uint32_t max_sessions);
bool rpc_outbox_flush(struct pmr_worker *w);
void rpc_sm_send(struct pmr_worker *w, const struct pmr_sm_msg *m);
int rpc_sm_poll(struct pmr_worker *w);
void rpc_session_reset(struct pmr_worker *w, uint16_t sn,
		enum pmr_session_state state);
void rpc_session_release(struct pmr_worker *w, uint16_t sn, bool notify);
void rpc_rx_token(struct pmr_worker *w, const struct pmr_pkthdr *h,
		struct pmr_rx_pkt *pkt);
void rpc_hs_timers(struct pmr_worker *w);
void rpc_hs_stop(struct pmr_worker *w, struct rpc_session *s);
void rpc_server_reset_event(struct pmr_worker *w, uint16_t sn, int err);

/* rpc_req.c (client) */
void rpc_creq_fail_all(struct pmr_worker *w, struct rpc_session *s,
		enum pmr_status status);
void rpc_window_fill(struct pmr_worker *w, uint16_t sn);
int rpc_completing_poll(struct pmr_worker *w);
void rpc_rx_reply(struct pmr_worker *w, uint16_t sn,
		const struct pmr_pkthdr *h, struct pmr_rx_pkt *pkt);
void rpc_timers(struct pmr_worker *w, uint64_t now);

/* rpc_resp.c (server) */
void rpc_rx_req(struct pmr_worker *w, uint16_t sn,
		const struct pmr_pkthdr *h, struct pmr_rx_pkt *pkt);
void rpc_srv_drop_all(struct pmr_worker *w, struct rpc_session *s);
void rpc_srv_slot_clear(struct pmr_worker *w, struct pmr_req *req);
void rpc_srv_timers(struct pmr_worker *w, uint64_t now);
void rpc_slots_init(struct pmr_worker *w, struct rpc_session *s);

#pragma GCC visibility pop

#endif /* PMR_RPC_PRIVATE_H */
