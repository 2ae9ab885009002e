/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_RPC_RDV_H
#define PMR_RPC_RDV_H

/*
 * Large messages by RDMA READ (rendezvous, doc/rendezvous.md): which path
 * a message takes, offers (a buffer exposed in place by an exact window
 * bound on the pair's RC QP, or copied into the pair's region) and their
 * reclaim, and the READs that pull offered messages. The client and the server call
 * in here from their slow paths only; small messages never do.
 */

#include "rpc_client.h"
#include "rpc_private.h"
#include "rpc_server.h"

#pragma GCC visibility push(hidden)

/* A client request's path (rpc_creq.rdv). */
enum rpc_rdv_path {
	RPC_RDV_NONE = 0,	/* datagrams */
	RPC_RDV_WAIT,		/* by READ: its QP or BIND not there yet */
	RPC_RDV_READY,		/* by READ: the descriptor may go */
};

/* A descriptor's RTO backs off to rto << this at most (rpc_client.c). */
#define RPC_RDV_RTO_SHIFT_MAX 6

/* Offers at once per worker (both roles). */
#define RPC_RDV_OFFERS_MAX 1024

/* Largest region per RC QP (nb_offer_msgbufs x max_msg_size). */
#define RPC_RDV_REGION_MAX (1u << 30)

/*
 * Response status (wire only, past enum pmr_status and within what a
 * header carries) of a request whose READ failed by the transport
 * (rpc_rc_status_lost()): not an answer; the handler never ran, and the
 * client sends the request again as datagrams under its slot's next
 * number (doc/rendezvous.md, "When things fail").
 */
#define RPC_STATUS_RDV_AGAIN 15

struct rpc_offer;

/*
 * Would a message of len bytes on s go by READ (its size alone: the QP
 * and the exposure are checked when it goes)? w->rdv_threshold is
 * UINT32_MAX on a worker that cannot READ.
 */
/*
 * Is s backing off from READs (its pair lost to the transport lately)?
 * Then its large messages go as datagrams, and it asks for its peer's as
 * datagrams rather than read them.
 */
static inline bool
rpc_rdv_backing_off(const struct rpc_session *s)
{
	return unlikely(s->rdv_off_until != 0) &&
		rte_get_timer_cycles() < s->rdv_off_until;
}

static inline bool
rpc_rdv_wanted(const struct pmr_worker *w, const struct rpc_session *s,
		uint32_t len)
{
	return len > s->plen && len > w->rdv_threshold &&
		!rpc_rdv_backing_off(s);
}

/* rpc_worker.c: the path and the regions' size, at worker create/destroy. */
int rpc_rdv_init(struct pmr_worker *w, const struct pmr_worker_conf *conf,
		uint64_t caps);
void rpc_rdv_destroy(struct pmr_worker *w);

/* The session's RC QP came (or will not come): go on with what waits. */
void rpc_rdv_session_rc(struct pmr_worker *w, uint16_t sn);

/*
 * Client: r (in its window slot, nothing sent) goes by READ if it can:
 * then req_pkts is 1 and r->rdv says whether its descriptor may go.
 */
void rpc_rdv_client_prepare(struct pmr_worker *w, uint16_t sn,
		struct rpc_creq *r);
/* Client: r completed (any status): its offer goes (completing poll). */
void rpc_rdv_creq_done(struct pmr_worker *w, struct rpc_creq *r);
/* Client: queue r's descriptor (r->rdv READY). */
void rpc_rdv_tx_req_desc(struct pmr_worker *w, const struct rpc_session *s,
		const struct rpc_creq *r);
/*
 * Client: a RESP_DESC for r, in order. 0: r reads its response; -EPROTO:
 * not what a server sends; -EAGAIN: no QP yet (asked: dropped);
 * -EMSGSIZE, -ENOMEM: r completes with that.
 */
int rpc_rdv_client_read(struct pmr_worker *w, uint16_t sn,
		struct rpc_creq *r, const struct pmr_pkthdr *h,
		const struct pmr_rx_pkt *pkt);

/*
 * Server: read the request a REQ_DESC offers into mb (the slot's, of
 * msg_size bytes). 0: the READ is posted; -EAGAIN: no QP yet (asked);
 * -ENOBUFS: it could not be posted.
 */
int rpc_rdv_srv_read(struct pmr_worker *w, uint16_t sn,
		struct pmr_srv_slot *req, const struct pmr_pkt_desc *d);
/*
 * Server: offer the response resp of the slot by READ. True: the offer
 * owns resp (slot->offer); false: send it as datagrams.
 */
bool rpc_rdv_srv_offer(struct pmr_worker *w, uint16_t sn,
		struct pmr_srv_slot *req, struct pmr_msgbuf *resp);
/* Server: queue the slot's RESP_DESC if its offer is ready. */
void rpc_rdv_tx_resp_desc(struct pmr_worker *w, const struct rpc_session *s,
		const struct pmr_srv_slot *req);
/*
 * Was o's BIND failed (its QP failed under it)? Then no descriptor of it
 * ever went, and none can.
 */
bool rpc_rdv_offer_broken(const struct rpc_offer *o);
/*
 * The owner lets go of an offer: done (the reader said so) or taken back
 * (reclaimed first: the window invalidated, or the QP failed, before the
 * buffer goes back).
 */
void rpc_rdv_offer_drop(struct pmr_worker *w, struct rpc_offer *o,
		bool done);

/*
 * The server could not read r's request (RPC_STATUS_RDV_AGAIN): its offer
 * goes, r stays (sent again as datagrams, rpc_client.c).
 */
void rpc_rdv_creq_unoffer(struct pmr_worker *w, struct rpc_creq *r);

/* rpc_server.c: the slot's offer is ready (send) or failed. */
void rpc_server_rdv_ready(struct pmr_worker *w, struct pmr_srv_slot *req);
/* rpc_server.c: the slot's READ completed (enum pmr_transport_rc_status). */
void rpc_server_rdv_read_done(struct pmr_worker *w, struct pmr_srv_slot *req,
		unsigned int status);
/*
 * rpc_server.c: the client could not read the slot's response: a copy of
 * its offered bytes in a msgbuf of the worker's (NULL: none to be had,
 * the offer stays), the offer dropped.
 */
struct pmr_msgbuf *rpc_rdv_srv_unoffer(struct pmr_worker *w,
		struct pmr_srv_slot *req);
/* rpc_client.c: r's offer is ready: send its descriptor. */
void rpc_client_rdv_send(struct pmr_worker *w, struct rpc_creq *r);
/* rpc_client.c: r's READ of its response completed (its status). */
void rpc_client_rdv_read_done(struct pmr_worker *w, struct rpc_creq *r,
		unsigned int status);

#pragma GCC visibility pop

#endif /* PMR_RPC_RDV_H */
