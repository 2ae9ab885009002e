/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_RPC_CLIENT_H
#define PMR_RPC_CLIENT_H

/* The client side (rpc_client.c): requests, their windows and replies. */

#include "rpc_msg.h"
#include "rpc_private.h"

#pragma GCC visibility push(hidden)

/* A client request: in the session window, queued, or completing. */
struct rpc_creq {
	TAILQ_ENTRY(rpc_creq) next;	/* backlog, or completing list */
	TAILQ_ENTRY(rpc_creq) all;	/* in *tlist, by deadline */
	struct rpc_creq_list *tlist;	/* &w->all, &w->timed or NULL */
	bool timer_on;			/* deadline and RTO armed (rpc_timers.h) */
	struct pmr_msgbuf *mb;
	pmr_cont_t cont;		/* handle_done() for a handle */
	void *tag;			/* the handle for a handle */
	uint64_t req_num;
	uint64_t deadline;		/* TSC: the request times out */
	uint64_t last_tx;		/* TSC of the last packet sent */
	uint32_t tx_round;		/* w->tx_bursts when last queued */
	uint32_t req_pkts;		/* packets of the request */
	uint32_t num_tx;		/* next packet index to send */
	uint32_t num_rx;		/* replies received, in order */
	/* The response; resp.pkts is 0 until its packet 0 came. */
	struct rpc_msg_rx resp;
	uint16_t session;
	uint16_t slot;			/* in the session window */
	uint8_t req_type;
	bool in_window;
	/* Completing: waiting for the driver to let go of mb. */
	enum pmr_status status;
	struct pmr_rx_pkt resp_pkt;	/* valid if has_resp */
	bool has_resp;
	/*
	 * By READ (rpc_rdv.h): enum rpc_rdv_path, the request's offer, a
	 * READ of the response outstanding. NONE, NULL, false in a free
	 * record (creq_finish()).
	 */
	uint8_t rdv;
	bool reading;
	/* Its READ of the response failed by the transport: the response
	 * is asked for as datagrams (an RFR of packet 0); false in a free
	 * record. */
	bool resp_again;
	/*
	 * The RTO of its next retransmission is w->rto << rto_shift: a
	 * descriptor's doubles each time (a READ may take longer than the
	 * RTO); 0 for every other request and in a free record.
	 */
	uint8_t rto_shift;
	struct rpc_offer *offer;
};

bool rpc_client_rx(struct pmr_worker *w, uint16_t sn,
		const struct pmr_pkthdr *h, struct pmr_rx_pkt *pkt);
void rpc_client_expire(struct pmr_worker *w, struct rpc_creq *r);
void rpc_client_retransmit(struct pmr_worker *w, struct rpc_creq *r);
void rpc_creq_fail_all(struct pmr_worker *w, struct rpc_session *s,
		enum pmr_status status);
void rpc_window_fill(struct pmr_worker *w, uint16_t sn);
int rpc_request_submit_handle(struct pmr_worker *w, int session,
		uint8_t req_type, struct pmr_msgbuf *req, pmr_cont_t cont,
		struct pmr_req_handle *h);
int rpc_completing_poll(struct pmr_worker *w);

#pragma GCC visibility pop

#endif /* PMR_RPC_CLIENT_H */
