/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_RPC_SERVER_H
#define PMR_RPC_SERVER_H

/* The server side (rpc_server.c): slots, handlers, responses. */

#include "rpc_msg.h"
#include "rpc_private.h"

#pragma GCC visibility push(hidden)

/* Server slot states. */
enum rpc_srv_state {
	SRV_FREE = 0,
	SRV_RECEIVING,		/* packets of a multi-packet request */
	SRV_HANDLING,		/* with the handler */
	SRV_RESPONDED,		/* response kept for retransmissions */
	SRV_READING,		/* a READ of the request outstanding */
};

/*
 * A server slot (session, req_num % window): the request from its first
 * packet to pmr_respond(), then the response until the slot's next request.
 * pmr_req_ref names one (pmr_rpc.h).
 */
struct pmr_srv_slot {
	struct pmr_worker *w;		/* fixed, as session */
	struct rpc_session *s;		/* &w->sessions[session] */
	/*
	 * A handler's pmr_req_ref carries the generation of its request,
	 * made while the slot is HANDLING it; the generation changes when
	 * the slot stops HANDLING it (answered, or dropped): a reference
	 * of another generation is stale, and one of this generation is
	 * to a HANDLING slot.
	 */
	uint32_t gen;
	/*
	 * The timer (rpc_timers.h) runs while RECEIVING or RESPONDED, from
	 * tstamp; the slot is in w->srv_timed while tepoch is not 0.
	 */
	TAILQ_ENTRY(pmr_srv_slot) tnext;
	uint64_t tstamp;		/* TSC: timer start */
	uint64_t tepoch;		/* last TSC of the link's epoch */
	uint64_t req_num;
	uint16_t session;		/* fixed: the slot's session */
	uint8_t req_type;
	uint8_t state;			/* enum rpc_srv_state */
	bool orphaned;			/* session reset while handling */
	bool has_pkt;			/* pkt holds a single-packet request */
	uint8_t resp_status;		/* of the response; PMR_OK before */
	/*
	 * The request: in pkt (single-packet, has_pkt) or reassembled in
	 * req.mb; pkt.data and pkt.len are what the handler reads in both.
	 */
	struct rpc_msg_rx req;
	struct pmr_rx_pkt pkt;
	struct pmr_msgbuf *resp_buf;	/* offered, lazily allocated */
	/* response */
	struct pmr_msgbuf *resp_mb;	/* NULL for an empty or error one */
	uint32_t resp_pkts;		/* set when RESPONDED */
	uint32_t tx_round;		/* w->tx_bursts when queued in place */
	/* The response offered by READ (resp_mb NULL then), or NULL. */
	struct rpc_offer *offer;
	/*
	 * req.mb counted as held by this source (rpc_source.h), as
	 * req_res, or NULL: kept here, as a READ may outlive its session.
	 */
	struct rpc_src *req_src;
	uint8_t req_res;
};

/*
 * The slot of a handler's reference to a request it has not answered
 * yet, or NULL: a NULL, answered or recycled one. The generation tells
 * (struct pmr_srv_slot): a reference of the slot's generation is to the
 * request the slot is HANDLING.
 */
static inline struct pmr_srv_slot *
rpc_srv_ref_slot(struct pmr_req_ref ref)
{
	struct pmr_srv_slot *req = ref.slot;

	if (unlikely(req == NULL || req->gen != ref.gen))
		return NULL;
	RTE_ASSERT(req->state == SRV_HANDLING);
	return req;
}

/*
 * rpc_req_ref.c: a handler answered through a stale reference: count it,
 * log it now and then, refuse it (-ESTALE; -EINVAL for a NULL one).
 */
int rpc_srv_ref_stale(struct pmr_req_ref ref, const char *what);

bool rpc_server_rx(struct pmr_worker *w, uint16_t sn,
		const struct pmr_pkthdr *h, struct pmr_rx_pkt *pkt);
void rpc_server_expire(struct pmr_worker *w, struct pmr_srv_slot *slot);
void rpc_server_session_init(struct pmr_worker *w, struct rpc_session *s);
void rpc_server_session_clear(struct pmr_worker *w, struct rpc_session *s);
void rpc_server_session_orphan(struct pmr_worker *w, struct rpc_session *s);

#pragma GCC visibility pop

#endif /* PMR_RPC_SERVER_H */
