/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_RPC_PRIVATE_H
#define PMR_RPC_PRIVATE_H

#include <sys/queue.h>

#include <rte_log.h>
#include <rte_ring.h>

#include "pmr_nexus_worker.h"
#include "pmr_pkthdr.h"
#include "pmr_rpc.h"

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
	RPC_DROP_STALE,		/* response to no outstanding request */
	RPC_DROP_WINDOW,	/* request beyond the session window */
	RPC_DROP_NOMEM,		/* no buffer to answer */
	RPC_DROP_MAX
};

/* A client request: in the session window, queued, or completing. */
struct rpc_creq {
	TAILQ_ENTRY(rpc_creq) next;
	struct pmr_msgbuf *mb;
	pmr_cont_t cont;
	void *tag;
	struct pmr_req_handle *h;	/* instead of cont */
	uint64_t req_num;
	uint16_t session;
	uint8_t req_type;
	/* Completing: waiting for the driver to let go of mb. */
	enum pmr_status status;
	struct pmr_rx_pkt resp_pkt;	/* valid if has_resp */
	bool has_resp;
};
TAILQ_HEAD(rpc_creq_list, rpc_creq);

/* A server request, from receipt to pmr_respond(). */
struct pmr_req {
	struct pmr_worker *w;
	struct pmr_rx_pkt pkt;		/* holds data zero-copy */
	struct pmr_msgbuf *resp_buf;	/* offered, lazily allocated */
	const uint8_t *data;
	uint32_t len;
	uint64_t req_num;
	uint16_t session;
	uint8_t req_type;
	bool active;
	bool orphaned;			/* session reset while handling */
};

struct rpc_session {
	enum pmr_session_state state;
	bool client;
	uint16_t remote_session;
	uint16_t remote_worker;
	uint32_t token;
	struct pmr_transport_peer *peer;
	pmr_session_cb_t cb;
	void *cb_arg;
	/* client */
	uint64_t next_req_num;
	uint16_t in_flight;
	struct rpc_creq **window;	/* [session_window] by req_num */
	struct rpc_creq_list backlog;	/* beyond the window, in order */
	/* server */
	struct pmr_req *srv;		/* [session_window] by req_num */
	uint16_t srv_active;
	bool closing;			/* free once srv_active is 0 */
};

/* Msgbufs sent zero-copy, freed once the driver lets go (FIFO). */
struct rpc_txfree {
	struct pmr_msgbuf **mbs;
	uint32_t size;			/* power of 2 */
	uint32_t head, tail;
};

struct pmr_worker {
	/* Data path. */
	struct pmr_transport_queue *q;
	struct rpc_session *sessions;
	uint32_t max_sessions;
	uint16_t *sess_free;		/* free session numbers (stack) */
	uint32_t nb_sess_free;
	uint16_t window;
	uint16_t headroom;		/* driver + pkthdr */
	uint32_t max_msg;
	struct rte_mempool *pool;
	struct pmr_tx_pkt tx[PMR_BURST_MAX];
	bool tx_free[PMR_BURST_MAX];	/* free tx[i].mb once sent */
	uint16_t nb_tx;
	struct rpc_txfree txfree;
	struct rpc_creq_list completing;
	struct pmr_nexus_handler handlers[256];
	struct pmr_worker_stats stats;

	/* Request contexts: a free stack. */
	struct rpc_creq *creqs;
	struct rpc_creq **creq_free;
	uint32_t nb_creq_free;
	uint32_t max_requests;

	/* Control. */
	struct pmr_nexus *nx;
	struct rte_ring *to_worker;
	struct rte_ring *from_worker;
	struct pmr_sm_msg outbox[64];	/* for a full from_worker ring */
	uint32_t nb_outbox;
	uint16_t worker_id;
	bool idle_yield;
	bool stop;
	uint32_t service_id;
	bool has_service;
};

/* rpc_worker.c */
void rpc_tx_flush(struct pmr_worker *w);
void rpc_tx_enqueue(struct pmr_worker *w, struct rpc_session *s,
		struct pmr_msgbuf *mb, const struct pmr_pkthdr *h,
		bool free_after);
void rpc_sm_send(struct pmr_worker *w, const struct pmr_sm_msg *m);

/* rpc_session.c */
int rpc_sm_poll(struct pmr_worker *w);
void rpc_session_reset(struct pmr_worker *w, uint16_t sn,
		enum pmr_session_state state);
void rpc_session_release(struct pmr_worker *w, uint16_t sn, bool notify);

/* rpc_req.c (client) */
void rpc_creq_complete(struct pmr_worker *w, struct rpc_creq *r,
		enum pmr_status status, struct pmr_rx_pkt *resp);
void rpc_creq_fail_all(struct pmr_worker *w, struct rpc_session *s,
		enum pmr_status status);
void rpc_window_fill(struct pmr_worker *w, uint16_t sn);
int rpc_completing_poll(struct pmr_worker *w);
void rpc_rx_resp(struct pmr_worker *w, uint16_t sn,
		const struct pmr_pkthdr *h, struct pmr_rx_pkt *pkt);

/* rpc_resp.c (server) */
void rpc_rx_req(struct pmr_worker *w, uint16_t sn,
		const struct pmr_pkthdr *h, struct pmr_rx_pkt *pkt);
void rpc_srv_drop_all(struct pmr_worker *w, struct rpc_session *s);

#endif /* PMR_RPC_PRIVATE_H */
