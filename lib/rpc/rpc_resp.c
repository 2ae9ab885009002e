/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Server side: a request goes to its handler zero-copy and stays valid
 * until the handler (now or later) calls pmr_respond().
 */

#include "rpc_private.h"

/* Answer a request with an error status and no payload. */
static void
srv_send_error(struct pmr_worker *w, struct rpc_session *s,
		const struct pmr_pkthdr *req, enum pmr_status status)
{
	struct pmr_msgbuf *mb = pmr_msgbuf_alloc(w->pool, 0);
	struct pmr_pkthdr h = {
		.pkt_type = PMR_PKT_RESP,
		.req_type = req->req_type,
		.dest_session = s->remote_session,
		.token = s->token,
		.req_num = req->req_num,
		.status = (uint8_t)status,
	};

	if (mb == NULL) {
		w->stats.drops[RPC_DROP_NOMEM]++;
		w->stats.rx_drops++;
		return;
	}
	rpc_tx_enqueue(w, s, mb, &h, true);
	w->stats.resps_sent++;
}

void
rpc_rx_req(struct pmr_worker *w, uint16_t sn, const struct pmr_pkthdr *h,
		struct pmr_rx_pkt *pkt)
{
	struct rpc_session *s = &w->sessions[sn];
	const struct pmr_nexus_handler *hd = &w->handlers[h->req_type];
	struct pmr_req *req = &s->srv[h->req_num % w->window];

	if (unlikely(req->active)) {
		/* The client never has more than a window outstanding. */
		w->stats.drops[RPC_DROP_WINDOW]++;
		w->stats.rx_drops++;
		pmr_transport_rx_release(w->q, pkt, 1);
		return;
	}
	if (unlikely(hd->fn == NULL)) {
		pmr_transport_rx_release(w->q, pkt, 1);
		srv_send_error(w, s, h, PMR_E_REMOTE_ERROR);
		return;
	}
	req->w = w;
	req->pkt = *pkt;
	req->resp_buf = NULL;
	req->data = pkt->data;
	req->len = pkt->len;
	req->req_num = h->req_num;
	req->session = sn;
	req->req_type = h->req_type;
	req->orphaned = false;
	req->active = true;
	s->srv_active++;
	w->stats.reqs_handled++;
	hd->fn(req, hd->arg);
}

const void *
pmr_req_data(const struct pmr_req *req)
{
	return req->data;
}

uint32_t
pmr_req_len(const struct pmr_req *req)
{
	return req->len;
}

uint8_t
pmr_req_type(const struct pmr_req *req)
{
	return req->req_type;
}

struct pmr_worker *
pmr_req_worker(const struct pmr_req *req)
{
	return req->w;
}

struct pmr_msgbuf *
pmr_req_resp_buf(struct pmr_req *req)
{
	if (req->resp_buf == NULL)
		req->resp_buf = pmr_msgbuf_alloc(req->w->pool, 0);
	return req->resp_buf;
}

/* The request is done with: give back its packet and offered buffer. */
static void
srv_req_end(struct pmr_worker *w, struct rpc_session *s, struct pmr_req *req)
{
	pmr_transport_rx_release(w->q, &req->pkt, 1);
	req->active = false;
	s->srv_active--;
	if (s->closing && s->srv_active == 0)
		rpc_session_release(w, req->session, false);
}

int
pmr_respond(struct pmr_req *req, struct pmr_msgbuf *resp)
{
	struct pmr_worker *w;
	struct rpc_session *s;
	struct pmr_pkthdr h;
	int ret = 0;

	if (req == NULL || !req->active || resp == NULL)
		return -EINVAL;
	w = req->w;
	s = &w->sessions[req->session];
	if (req->resp_buf != NULL && req->resp_buf != resp)
		pmr_msgbuf_free(req->resp_buf);
	req->resp_buf = NULL;

	if (unlikely(req->orphaned)) {
		/* The session went away while the handler had it. */
		pmr_msgbuf_free(resp);
		srv_req_end(w, s, req);
		return 0;
	}
	h = (struct pmr_pkthdr){
		.pkt_type = PMR_PKT_RESP,
		.req_type = req->req_type,
		.dest_session = s->remote_session,
		.token = s->token,
		.req_num = req->req_num,
	};
	if (unlikely(resp->len > w->max_msg ||
		     resp->headroom < w->headroom)) {
		struct pmr_pkthdr rh = { .req_type = req->req_type,
			.req_num = req->req_num };

		pmr_msgbuf_free(resp);
		srv_send_error(w, s, &rh, PMR_E_REMOTE_ERROR);
		ret = -EMSGSIZE;
	} else {
		h.msg_size = resp->len;
		rpc_tx_enqueue(w, s, resp, &h, true);
		w->stats.resps_sent++;
	}
	/*
	 * Release the request before the response leaves: the client then
	 * finds its request buffer free when the response arrives.
	 */
	srv_req_end(w, s, req);
	return ret;
}

/* The session is going away: orphan requests still with handlers. */
void
rpc_srv_drop_all(struct pmr_worker *w, struct rpc_session *s)
{
	uint16_t i;

	for (i = 0; i < w->window; i++)
		if (s->srv[i].active)
			s->srv[i].orphaned = true;
}
