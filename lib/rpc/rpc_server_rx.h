/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_RPC_SERVER_RX_H
#define PMR_RPC_SERVER_RX_H

/*
 * The server's request fast path, inline: a single-packet request that
 * its slot and session take as they are, what every small RPC's server
 * receives. In a header so that the RX dispatch (rpc_poll.c) runs it
 * without a call (rpc_server_rx_fast()) on a request whole in one packet
 * (pmr_pkthdr_whole()); everything else is rpc_server_rx() (rpc_server.c).
 */

#include "rpc_private.h"
#include "rpc_server.h"

#pragma GCC visibility push(hidden)

/*
 * Does srv_req_start() take the packet (a new request's first, d in
 * range) as a single-packet request, for a handler, with no more than
 * the slot's own response to recycle (srv_slot_recycle()'s fast case)?
 * Then the fast path below does what it would. Only tests: the slot and
 * the session are untouched.
 */
static __rte_always_inline bool
rpc_srv_rx_fast_ok(const struct pmr_worker *w, const struct rpc_session *s,
		const struct pmr_srv_slot *req, const struct pmr_pkthdr *h,
		uint64_t d)
{
	const struct pmr_msgbuf *mb = req->resp_mb;

	if (unlikely(d - w->window > (RPC_REQ_SKIP_MAX - 1u) * w->window))
		return false;
	/*
	 * The slot first: the atomic load of tx_pending would make the
	 * compiler load the header's fields again after it.
	 */
	if (req->state != SRV_FREE &&
	    unlikely(req->state != SRV_RESPONDED || mb == NULL ||
		     mb->pool != w->pools[0] ||
		     req->tx_round == w->tx_bursts ||
		     pmr_msgbuf_tx_pending(mb) != 0))
		return false;
	return likely(s->srv_active < s->rx_reserve &&
		      w->handlers[h->req_type].fn != NULL);
}

/*
 * rpc_server_rx() with its common case inline, for a request whole in
 * its packet (pmr_pkthdr_whole(): packet 0 of msg_size bytes, all of
 * them there): the RX dispatch calls this instead. Same result; anything
 * but that case goes to rpc_server_rx().
 */
static __rte_always_inline bool
rpc_server_rx_fast(struct pmr_worker *w, uint16_t sn,
		const struct pmr_pkthdr *h, struct pmr_rx_pkt *pkt)
{
	struct rpc_session *s = &w->sessions[sn];
	struct pmr_srv_slot *req = &s->srv[rpc_slot_of(w, h->req_num)];
	uint64_t d = (h->req_num - req->req_num) & PMR_REQ_NUM_MASK;
	const struct pmr_nexus_handler *hd;
	struct pmr_msgbuf *mb;
	uint32_t gen;
	bool recycle;

	if (unlikely(!rpc_srv_rx_fast_ok(w, s, req, h, d))) {
		/* A copy: the caller's h keeps its address untaken. */
		struct pmr_pkthdr c = *h;

		return rpc_server_rx(w, sn, &c, pkt);
	}
	/* Loads first: the stores below could alias them for the compiler. */
	hd = &w->handlers[h->req_type];
	recycle = req->state == SRV_RESPONDED;
	mb = req->resp_mb;
	gen = req->gen;		/* see srv_req_start() */
	req->req_num = h->req_num;
	req->req_type = h->req_type;
	/* Single-packet: the handler reads it in place. */
	req->req.size = h->msg_size;
	req->pkt = *pkt;
	req->req.pkts = 1;
	req->req.num_rx = 1;
	/* resp_pkts is only read when RESPONDED, and set to get there. */
	if (recycle) {
		/*
		 * srv_slot_recycle(): the response msgbuf is the slot's next
		 * pmr_req_resp_buf(); the timer stops (rpc_timers.h).
		 */
		mb->len = 0;
		req->resp_buf = mb;
		req->resp_mb = NULL;
	}
	/* srv_handle(); four bytes side by side: one store */
	req->state = SRV_HANDLING;
	req->orphaned = false;
	req->has_pkt = true;
	req->resp_status = PMR_OK;
	s->srv_active++;
	w->stats.reqs_handled++;
	hd->fn((struct pmr_req_ref){ .slot = req, .gen = gen }, hd->arg);
	return true;
}

#pragma GCC visibility pop

#endif /* PMR_RPC_SERVER_RX_H */
