/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Client requests: the session window, the backlog beyond it, matching
 * responses, and running each continuation exactly once.
 */

#include <string.h>

#include "rpc_private.h"

static struct rpc_creq *
creq_get(struct pmr_worker *w)
{
	if (w->nb_creq_free == 0)
		return NULL;
	return w->creq_free[--w->nb_creq_free];
}

static void
creq_put(struct pmr_worker *w, struct rpc_creq *r)
{
	w->creq_free[w->nb_creq_free++] = r;
}

/* Send r now: it has a window slot. */
static void
creq_send(struct pmr_worker *w, struct rpc_session *s, uint16_t sn,
		struct rpc_creq *r)
{
	struct pmr_pkthdr h = {
		.pkt_type = PMR_PKT_REQ,
		.req_type = r->req_type,
		.dest_session = s->remote_session,
		.msg_size = r->mb->len,
		.token = s->token,
	};

	r->req_num = s->next_req_num++ & PMR_REQ_NUM_MASK;
	h.req_num = r->req_num;
	s->window[r->req_num % w->window] = r;
	s->in_flight++;
	RTE_SET_USED(sn);
	rpc_tx_enqueue(w, s, r->mb, &h, false);
	w->stats.reqs_sent++;
}

/* Move queued requests into the window while there is room. */
void
rpc_window_fill(struct pmr_worker *w, uint16_t sn)
{
	struct rpc_session *s = &w->sessions[sn];
	struct rpc_creq *r;

	while (s->in_flight < w->window &&
	       (r = TAILQ_FIRST(&s->backlog)) != NULL) {
		TAILQ_REMOVE(&s->backlog, r, next);
		creq_send(w, s, sn, r);
	}
}

static int
request_submit(struct pmr_worker *w, int session, uint8_t req_type,
		struct pmr_msgbuf *req, pmr_cont_t cont, void *tag,
		struct pmr_req_handle *h)
{
	struct rpc_session *s;
	struct rpc_creq *r;

	if (session < 0 || (uint32_t)session >= w->max_sessions ||
	    req == NULL)
		return -EINVAL;
	s = &w->sessions[session];
	if (!s->client || (s->state != PMR_SESSION_CONNECTING &&
			   s->state != PMR_SESSION_CONNECTED))
		return -EINVAL;
	if (req->len > w->max_msg)
		return -EMSGSIZE;
	if (req->headroom < w->headroom || pmr_msgbuf_tx_pending(req) != 0)
		return -EINVAL;
	r = creq_get(w);
	if (r == NULL)
		return -ENOBUFS;
	r->mb = req;
	r->cont = cont;
	r->tag = tag;
	r->h = h;
	r->session = (uint16_t)session;
	r->req_type = req_type;
	r->has_resp = false;
	TAILQ_INSERT_TAIL(&s->backlog, r, next);
	if (s->state == PMR_SESSION_CONNECTED)
		rpc_window_fill(w, (uint16_t)session);
	return 0;
}

int
pmr_request(struct pmr_worker *w, int session, uint8_t req_type,
		struct pmr_msgbuf *req, pmr_cont_t cont, void *tag)
{
	if (cont == NULL)
		return -EINVAL;
	return request_submit(w, session, req_type, req, cont, tag, NULL);
}

int
pmr_request_start(struct pmr_worker *w, int session, uint8_t req_type,
		struct pmr_msgbuf *req, struct pmr_msgbuf *resp,
		struct pmr_req_handle *h)
{
	if (h == NULL || resp == NULL)
		return -EINVAL;
	h->done = false;
	h->status = PMR_OK;
	h->resp = resp;
	h->resp_len = 0;
	return request_submit(w, session, req_type, req, NULL, NULL, h);
}

enum pmr_status
pmr_request_wait(struct pmr_worker *w, struct pmr_req_handle *h)
{
	while (!pmr_request_done(h))
		pmr_worker_poll(w);
	return h->status;
}

/* Run the continuation (or finish the handle), then recycle r. */
static void
creq_finish(struct pmr_worker *w, struct rpc_creq *r)
{
	struct pmr_resp resp = {
		.status = r->status,
		.req = r->mb,
	};

	if (r->has_resp && r->status == PMR_OK) {
		resp.data = r->resp_pkt.data;
		resp.len = r->resp_pkt.len;
	}
	w->stats.reqs_completed++;
	if (r->h != NULL) {
		struct pmr_req_handle *h = r->h;

		h->status = resp.status;
		if (resp.status == PMR_OK) {
			if (pmr_msgbuf_resize(h->resp, resp.len) == 0) {
				memcpy(h->resp->data, resp.data, resp.len);
				h->resp_len = resp.len;
			} else {
				h->status = PMR_E_MSGSIZE;
			}
		}
		__atomic_store_n(&h->done, true, __ATOMIC_RELEASE);
	} else {
		r->cont(w, &resp, r->tag);
	}
	if (r->has_resp)
		pmr_transport_rx_release(w->q, &r->resp_pkt, 1);
	creq_put(w, r);
}

/*
 * Complete r: its msgbuf goes back to the application, so the driver must
 * be done with it first. Usually it is (the server released our request
 * before answering); else wait for it in the completing list.
 */
void
rpc_creq_complete(struct pmr_worker *w, struct rpc_creq *r,
		enum pmr_status status, struct pmr_rx_pkt *resp)
{
	r->status = status;
	if (resp != NULL) {
		r->resp_pkt = *resp;
		r->has_resp = true;
	}
	if (likely(pmr_msgbuf_tx_pending(r->mb) == 0)) {
		creq_finish(w, r);
		return;
	}
	pmr_transport_tx_flush(w->q);
	TAILQ_INSERT_TAIL(&w->completing, r, next);
}

int
rpc_completing_poll(struct pmr_worker *w)
{
	struct rpc_creq *r, *tmp;
	int n = 0;

	pmr_transport_tx_flush(w->q);
	for (r = TAILQ_FIRST(&w->completing); r != NULL; r = tmp) {
		tmp = TAILQ_NEXT(r, next);
		if (pmr_msgbuf_tx_pending(r->mb) != 0)
			continue;
		TAILQ_REMOVE(&w->completing, r, next);
		creq_finish(w, r);
		n++;
	}
	return n;
}

void
rpc_rx_resp(struct pmr_worker *w, uint16_t sn, const struct pmr_pkthdr *h,
		struct pmr_rx_pkt *pkt)
{
	struct rpc_session *s = &w->sessions[sn];
	struct rpc_creq **slot = &s->window[h->req_num % w->window];
	struct rpc_creq *r = *slot;

	if (unlikely(r == NULL || r->req_num != h->req_num)) {
		w->stats.drops[RPC_DROP_STALE]++;
		w->stats.rx_drops++;
		pmr_transport_rx_release(w->q, pkt, 1);
		return;
	}
	*slot = NULL;
	s->in_flight--;
	if (unlikely(h->status != PMR_OK)) {
		pmr_transport_rx_release(w->q, pkt, 1);
		rpc_creq_complete(w, r, (enum pmr_status)h->status, NULL);
	} else {
		rpc_creq_complete(w, r, PMR_OK, pkt);
	}
	/* The continuation may have closed the session. */
	if (s->state == PMR_SESSION_CONNECTED)
		rpc_window_fill(w, sn);
}

/* Complete every request of s, in the window and queued, with status. */
void
rpc_creq_fail_all(struct pmr_worker *w, struct rpc_session *s,
		enum pmr_status status)
{
	struct rpc_creq *r;
	uint16_t i;

	for (i = 0; i < w->window; i++) {
		r = s->window[i];
		if (r == NULL)
			continue;
		s->window[i] = NULL;
		s->in_flight--;
		rpc_creq_complete(w, r, status, NULL);
	}
	while ((r = TAILQ_FIRST(&s->backlog)) != NULL) {
		TAILQ_REMOVE(&s->backlog, r, next);
		rpc_creq_complete(w, r, status, NULL);
	}
}
