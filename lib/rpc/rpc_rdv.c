/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Large messages by RDMA READ (doc/rendezvous.md). An offer exposes one
 * message to the peer of its session's RC QP, and no byte that any other
 * peer's message ever occupies (doc/rendezvous.md, "Exposure"):
 *
 * - where windows are exact (PMR_TRANSPORT_CAP_MW_EXACT), a type-2
 *   window bound to exactly its bytes where they are: no copy;
 * - elsewhere a copy of it in the pair's region (rpc_region.h: memory
 *   registered with the pair's QP for its peer alone, made and freed
 *   with the QP by the nexus), exposed by a type-2 window bound to
 *   exactly the copy (rxe: its key reaches the region, which only ever
 *   holds that pair's messages) or, without windows, by the region's
 *   own remote-readable key.
 *
 * A BIND is posted, signalled, on the pair's QP, and the descriptor goes
 * once it completed. The owner (a client request, a server slot's
 * response) drops the offer when the reader is done or when it gives
 * up; the offer then invalidates its window (or, without one, fails the
 * QP if the reader was not done) and only once that completed gives the
 * buffer, or the region's extent, back. An offer pins its pair, so that
 * the QP it is bound on, and the region it is copied into, are not given
 * back while they may still be read.
 *
 * A client offer holds a TX reference on the request's msgbuf: the
 * request then completes through the completing list (rpc_client.c),
 * which waits for the reference, so the application never gets back a
 * buffer a READ may still see. A client READ of a response holds one
 * too, for the buffer it reads into.
 */

#include <inttypes.h>
#include <string.h>

#include <rte_malloc.h>

#include "rpc_rc.h"
#include "rpc_rdv.h"
#include "rpc_region.h"
#include "rpc_timers.h"
#include "rpc_tx.h"

enum offer_state {
	OFFER_FREE,
	OFFER_BINDING,		/* BIND posted */
	OFFER_BOUND,		/* readable: the descriptor may go */
	OFFER_INVALIDATING,	/* dropped, LOCAL_INV posted */
	OFFER_BROKEN,		/* the BIND failed: the QP is in ERR */
};

struct rpc_offer {
	struct rpc_rc_pair *pair;	/* pinned */
	struct pmr_transport_mw *mw;	/* NULL: the region's own key */
	uint8_t *addr;			/* the exposed bytes (len) */
	struct pmr_msgbuf *mb;		/* in place: the message's */
	struct rpc_extent ext;		/* a copy: its place in the region */
	/* Client: the request's msgbuf, a TX reference held on it. */
	struct pmr_msgbuf *ref_mb;
	struct rpc_creq *creq;		/* owner (client) until dropped */
	struct pmr_srv_slot *slot;	/* owner (server), until dropped */
	uint32_t len;
	uint32_t rkey;
	uint16_t session;
	uint8_t state;
	bool client;			/* a request's, else a response's */
	bool copy;			/* in the pair's region */
	bool dropped;
	bool done;			/* the reader said so */
};

struct rpc_rdv {
	uint32_t nb_free;
	struct rpc_offer *free[RPC_RDV_OFFERS_MAX];
	struct rpc_offer offers[RPC_RDV_OFFERS_MAX];
};

int
rpc_rdv_init(struct pmr_worker *w, const struct pmr_worker_conf *conf,
		uint64_t caps)
{
	const uint64_t need = PMR_TRANSPORT_CAP_RC |
		PMR_TRANSPORT_CAP_RDMA_READ;
	struct rpc_rdv *rdv;
	uint64_t len;
	uint32_t i;
	int ret;

	w->rdv_threshold = UINT32_MAX;
	if ((caps & need) != need)
		return 0;
	rdv = rte_zmalloc_socket("pmr_rdv", sizeof(*rdv), 0,
			conf->socket_id);
	if (rdv == NULL)
		return -ENOMEM;
	for (i = 0; i < RPC_RDV_OFFERS_MAX; i++)
		rdv->free[i] = &rdv->offers[RPC_RDV_OFFERS_MAX - 1 - i];
	rdv->nb_free = RPC_RDV_OFFERS_MAX;
	w->rdv = rdv;
	w->rdv_mw = (caps & PMR_TRANSPORT_CAP_MW) != 0;
	w->rdv_copy = !w->rdv_mw || (caps & PMR_TRANSPORT_CAP_MW_EXACT) == 0;
	if (conf->rdv_threshold == PMR_RDV_OFF)
		return 0;	/* offers nothing: no regions */
	if (w->rdv_copy) {
		len = (uint64_t)(conf->nb_offer_msgbufs != 0 ?
			conf->nb_offer_msgbufs : 1) * w->max_msg;
		if (len > RPC_RDV_REGION_MAX) {
			RPC_LOG(ERR, "worker %u: nb_offer_msgbufs %u of %u "
				"bytes: a region of over %u MiB per RC QP",
				w->worker_id, conf->nb_offer_msgbufs,
				w->max_msg, RPC_RDV_REGION_MAX >> 20);
			return -EINVAL;
		}
		ret = pmr_transport_rc_region_conf(w->q, (size_t)len,
				w->rdv_mw ? 0 :
				PMR_TRANSPORT_ACCESS_REMOTE_READ);
		if (ret == -ENOTSUP) {
			RPC_LOG(NOTICE, "worker %u: its driver makes no "
				"regions for RC QPs: it offers nothing by READ "
				"(it reads what peers offer)", w->worker_id);
			return 0;
		}
		if (ret != 0) {
			RPC_LOG(ERR, "worker %u: RC QPs' regions of %" PRIu64
				" bytes: %s", w->worker_id, len,
				strerror(-ret));
			return ret;
		}
	}
	w->rdv_eager = true;
	w->rdv_threshold = conf->rdv_threshold != 0 ? conf->rdv_threshold :
		PMR_RDV_THRESHOLD_DEFAULT;
	RPC_LOG(INFO, "worker %u: messages over %u bytes by RDMA READ, %s",
		w->worker_id, w->rdv_threshold, !w->rdv_copy ?
		"exposed in place by memory windows" : w->rdv_mw ?
		"copied into the pair's region, exposed by memory windows" :
		"copied into the pair's remote-readable region");
	return 0;
}

static struct rpc_offer *
offer_get(struct pmr_worker *w)
{
	struct rpc_rdv *rdv = w->rdv;

	if (rdv->nb_free == 0)
		return NULL;
	return rdv->free[--rdv->nb_free];
}

static void
offer_put(struct pmr_worker *w, struct rpc_offer *o)
{
	memset(o, 0, sizeof(*o));
	w->rdv->free[w->rdv->nb_free++] = o;
}

/*
 * The offer is over: the window goes back (to the cache if invalidated,
 * deallocated if still bound on a failed QP), the buffer too, the pair
 * is unpinned.
 */
static void
offer_finish(struct pmr_worker *w, struct rpc_offer *o)
{
	if (o->mw != NULL)
		pmr_transport_mw_free(w->q, o->mw);
	if (o->ref_mb != NULL)
		pmr_msgbuf_tx_unref(o->ref_mb);
	if (o->copy)
		rpc_region_free(rpc_rc_pair_region(o->pair), &o->ext);
	else if (!o->client)
		rpc_msgbuf_put(o->mb);	/* a response: ours */
	/* (A request in place is the application's.) */
	rpc_rc_pair_unpin(w, o->pair);
	offer_put(w, o);
}

static void
inval_done(struct pmr_worker *w, int session, unsigned int status,
		void *arg)
{
	struct rpc_offer *o = arg;

	RTE_SET_USED(session);
	if (status != PMR_RC_OK)
		RPC_LOG(DEBUG, "worker %u: a window's invalidate: %s",
			w->worker_id, pmr_transport_rc_status_str(status));
	offer_finish(w, o);	/* mw_free() deallocates a failed one */
}

/*
 * A dropped offer, readable: close it. A window is invalidated on its QP
 * (a QP that failed serves no READ: the window is deallocated). A copy
 * the region's key exposes, taken back before the reader was done,
 * fails the QP first: no late READ sees the pair's next message there.
 */
static void
offer_close(struct pmr_worker *w, struct rpc_offer *o)
{
	struct pmr_transport_rc_op op = {
		.type = PMR_RC_OP_INVALIDATE,
		.mw = o->mw,
	};

	if (o->mw == NULL) {
		if (!o->done && !rpc_rc_pair_broken(o->pair))
			rpc_rc_pair_fail(w, o->pair);
		offer_finish(w, o);
		return;
	}
	if (rpc_rc_pair_post(w, o->pair, o->session, &op, inval_done,
			o) == 0) {
		o->state = OFFER_INVALIDATING;
		return;
	}
	/* Not posted: its QP failed, or the operation table is full. */
	if (!rpc_rc_pair_broken(o->pair))
		rpc_rc_pair_fail(w, o->pair);
	offer_finish(w, o);
}

static void client_unbound(struct pmr_worker *w, struct rpc_creq *r);

static void
bind_done(struct pmr_worker *w, int session, unsigned int status, void *arg)
{
	struct rpc_offer *o = arg;

	RTE_SET_USED(session);
	if (status != PMR_RC_OK) {
		o->state = OFFER_BROKEN;
		if (o->dropped) {
			offer_finish(w, o);
		} else if (rpc_rc_status_lost(status)) {
			/*
			 * Flushed with its pair, lost to the transport (a
			 * stuck READ before it on the QP): the sessions stay,
			 * and no descriptor of it went. The message goes as
			 * datagrams.
			 */
			if (o->creq != NULL)
				client_unbound(w, o->creq);
			else
				rpc_server_rdv_ready(w, o->slot);
		}
		/* Else the QP is in ERR: its sessions are reset next. */
		return;
	}
	o->state = OFFER_BOUND;
	o->rkey = pmr_transport_mw_rkey(w->q, o->mw);
	if (o->dropped)
		offer_close(w, o);
	else if (o->creq != NULL)
		rpc_client_rdv_send(w, o->creq);
	else
		rpc_server_rdv_ready(w, o->slot);
}

/*
 * Expose len bytes of mb to the peer of pair, and nothing else: in place
 * with a window (exact windows), or copied into the pair's region, there
 * with a window, or the region's key (BINDING, or BOUND). 0, or -errno:
 * nothing done.
 */
static int
offer_expose(struct pmr_worker *w, uint16_t sn, struct rpc_offer *o,
		struct rpc_rc_pair *pair, struct pmr_msgbuf *mb, uint32_t len)
{
	struct pmr_transport_mkey key;
	struct pmr_transport_rc_op op = {
		.type = PMR_RC_OP_BIND,
		.len = len,
	};
	struct rpc_region *reg = NULL;
	int ret;

	o->session = sn;
	o->len = len;
	if (w->rdv_copy) {
		reg = rpc_rc_pair_region(pair);
		if (reg == NULL)
			return -ENOTSUP;	/* its QP came without one */
		if (rpc_region_alloc(reg, &o->ext, len) != 0)
			return -ENOBUFS;	/* the pair's offers fill it */
		o->addr = rpc_region_addr(reg, &o->ext);
		memcpy(o->addr, mb->data, len);
		op.lkey = reg->lkey;
	} else {
		if (pmr_transport_mem_key(w->q, mb->data, len, &key) != 0)
			return -ENOENT;	/* unregistered: no window */
		o->addr = mb->data;
		op.lkey = key.lkey;
	}
	if (w->rdv_mw) {
		op.local = o->addr;
		op.mw = pmr_transport_mw_alloc(w->q);
		ret = op.mw == NULL ? -ENOMEM :
			rpc_rc_pair_post(w, pair, sn, &op, bind_done, o);
		if (ret != 0) {
			pmr_transport_mw_free(w->q, op.mw);
			if (reg != NULL)
				rpc_region_free(reg, &o->ext);
			return ret;
		}
		o->mw = op.mw;
		o->state = OFFER_BINDING;
	} else {
		o->rkey = reg->rkey;
		o->state = OFFER_BOUND;
	}
	if (reg != NULL) {
		o->copy = true;
		w->stats.copied_bytes += len;
	} else {
		o->mb = mb;
	}
	o->pair = pair;
	rpc_rc_pair_pin(pair);
	w->stats.rdv_offers++;
	return 0;
}

void
rpc_rdv_offer_drop(struct pmr_worker *w, struct rpc_offer *o, bool done)
{
	o->dropped = true;
	o->done = done;
	if (!done)
		w->stats.rdv_reclaimed++;
	switch (o->state) {
	case OFFER_BOUND:
		offer_close(w, o);
		break;
	case OFFER_BROKEN:
		offer_finish(w, o);
		break;
	default:	/* BINDING, INVALIDATING: their completion does it */
		break;
	}
}

/* Queue a descriptor of o: h's fields with o's address and key. */
static void
tx_desc(struct pmr_worker *w, const struct rpc_session *s,
		struct pmr_pkthdr *h, const struct rpc_offer *o)
{
	struct pmr_pkt_desc d = {
		.addr = (uintptr_t)o->addr,
		.rkey = o->rkey,
		.qpn = rpc_rc_pair_qpn(o->pair),
	};

	h->dest_session = s->remote_session;
	h->token = s->token;
	h->pkt_num = 0;
	h->msg_size = o->len;
	rpc_tx_desc(w, s, h, &d);
	w->stats.rdv_descs_sent++;
}

/* Client. */

/* r's request goes as datagrams after all. */
static void
client_fallback(struct pmr_worker *w, struct rpc_session *s,
		struct rpc_creq *r)
{
	r->rdv = RPC_RDV_NONE;
	r->req_pkts = rpc_msg_pkts(r->mb->len, s->plen);
	w->stats.rdv_fallbacks++;
}

/*
 * r's offer could not be bound: its pair was lost under the BIND. No
 * descriptor of r went, so the server has not seen its number: r goes as
 * datagrams under it.
 */
static void
client_unbound(struct pmr_worker *w, struct rpc_creq *r)
{
	struct rpc_offer *o = r->offer;

	r->offer = NULL;
	o->creq = NULL;
	rpc_rdv_offer_drop(w, o, true);		/* never readable */
	client_fallback(w, &w->sessions[r->session], r);
	rpc_client_rdv_send(w, r);
}

/* Offer r's request if its QP is there; ask for it if not. */
static void
client_try(struct pmr_worker *w, uint16_t sn, struct rpc_creq *r)
{
	struct rpc_session *s = &w->sessions[sn];
	struct rpc_rc_pair *pair;
	struct rpc_offer *o;

	switch (s->rc_state) {
	case RPC_RC_NONE:
		if (rpc_rc_want(w, sn) != 0)
			client_fallback(w, s, r);
		return;
	case RPC_RC_WANTED:
		return;
	case RPC_RC_READY:
		break;
	default:
		client_fallback(w, s, r);
		return;
	}
	pair = rpc_rc_pair_of(w, sn);
	o = pair != NULL ? offer_get(w) : NULL;
	if (o == NULL) {
		client_fallback(w, s, r);
		return;
	}
	if (offer_expose(w, sn, o, pair, r->mb, r->mb->len) != 0) {
		offer_put(w, o);
		client_fallback(w, s, r);
		return;
	}
	o->creq = r;
	o->client = true;
	o->ref_mb = r->mb;
	pmr_msgbuf_tx_ref(r->mb);
	r->offer = o;
	if (o->state == OFFER_BOUND)
		r->rdv = RPC_RDV_READY;
}

void
rpc_rdv_client_prepare(struct pmr_worker *w, uint16_t sn, struct rpc_creq *r)
{
	if (!rpc_rdv_wanted(w, &w->sessions[sn], r->mb->len))
		return;
	r->rdv = RPC_RDV_WAIT;
	r->req_pkts = 1;
	client_try(w, sn, r);
}

void
rpc_rdv_session_rc(struct pmr_worker *w, uint16_t sn)
{
	struct rpc_session *s = &w->sessions[sn];
	struct rpc_creq *r;
	uint16_t i;

	if (w->rdv == NULL || !s->client ||
	    s->state != PMR_SESSION_CONNECTED || s->closing)
		return;
	for (i = 0; i < w->window; i++) {
		r = s->window[i];
		if (r == NULL || r->rdv != RPC_RDV_WAIT || r->offer != NULL)
			continue;
		client_try(w, sn, r);
		if (r->rdv != RPC_RDV_WAIT)
			rpc_client_rdv_send(w, r);
	}
}

void
rpc_rdv_tx_req_desc(struct pmr_worker *w, const struct rpc_session *s,
		const struct rpc_creq *r)
{
	struct pmr_pkthdr h = {
		.pkt_type = PMR_PKT_REQ_DESC,
		.req_type = r->req_type,
		.req_num = r->req_num,
	};

	tx_desc(w, s, &h, r->offer);
}

void
rpc_rdv_creq_done(struct pmr_worker *w, struct rpc_creq *r)
{
	struct rpc_offer *o = r->offer;

	r->offer = NULL;
	o->creq = NULL;
	/*
	 * Any answer of the server's says it read the request. The request
	 * completes once the offer is over, a copy's too: its extent is
	 * free by then, so that a client sending one request after another
	 * finds the region as it left it.
	 */
	rpc_rdv_offer_drop(w, o, r->status != PMR_E_TIMEOUT &&
			r->status != PMR_E_SESSION_RESET);
}

void
rpc_rdv_creq_unoffer(struct pmr_worker *w, struct rpc_creq *r)
{
	struct rpc_offer *o = r->offer;

	r->offer = NULL;
	o->creq = NULL;
	rpc_rdv_offer_drop(w, o, true);	/* its READ failed: no late one */
}

static void
client_read_done(struct pmr_worker *w, int session, unsigned int status,
		void *arg)
{
	struct rpc_creq *r = arg;

	RTE_SET_USED(session);
	r->reading = false;
	pmr_msgbuf_tx_unref(r->mb);
	if (status == PMR_RC_OK) {
		w->stats.rdv_read_bytes += r->resp.size;
		w->sessions[r->session].rx_live = true;	/* rpc_live.c */
		rpc_rc_read_ok(&w->sessions[r->session]);
	} else {
		w->stats.rdv_read_errors++;
		RPC_LOG(NOTICE, "worker %u: READ of a %u-byte response of "
			"session %u: %s", w->worker_id, r->resp.size,
			r->session, pmr_transport_rc_status_str(status));
	}
	rpc_client_rdv_read_done(w, r, status);
}

/* A READ of d's len bytes into mb, for session sn's pair. */
static int
post_read(struct pmr_worker *w, uint16_t sn, struct rpc_rc_pair *pair,
		struct pmr_msgbuf *mb, uint32_t len,
		const struct pmr_pkt_desc *d, rpc_rc_cb_t cb, void *arg)
{
	struct pmr_transport_mkey key;
	struct pmr_transport_rc_op op = {
		.type = PMR_RC_OP_READ,
		.local = mb->data,
		.remote = d->addr,
		.rkey = d->rkey,
		.len = len,
	};
	int ret;

	ret = pmr_transport_mem_key(w->q, mb->data, len, &key);
	if (ret != 0)
		return ret;
	op.lkey = key.lkey;
	ret = rpc_rc_pair_post(w, pair, sn, &op, cb, arg);
	if (ret == 0)
		w->stats.rdv_reads++;
	return ret;
}

/* The session's QP is not there (yet): ask for it; the packet drops. */
static int
no_qp(struct pmr_worker *w, uint16_t sn)
{
	struct rpc_session *s = &w->sessions[sn];

	if (s->rc_state != RPC_RC_WANTED && s->rc_state != RPC_RC_READY)
		rpc_rc_want(w, sn);
	rpc_count_drop(w, RPC_DROP_RDV_NO_QP);
	return -EAGAIN;
}

int
rpc_rdv_client_read(struct pmr_worker *w, uint16_t sn, struct rpc_creq *r,
		const struct pmr_pkthdr *h, const struct pmr_rx_pkt *pkt)
{
	struct rpc_session *s = &w->sessions[sn];
	struct rpc_rc_pair *pair;
	struct pmr_pkt_desc d;
	struct pmr_msgbuf *mb;

	if (w->rdv == NULL || h->msg_size <= s->plen || r->resp.pkts != 0 ||
	    r->reading || pmr_pkt_desc_decode(pkt->data, pkt->len, &d) != 0)
		return -EPROTO;
	if (h->msg_size > w->max_msg)
		return -EMSGSIZE;
	pair = rpc_rc_pair_of(w, sn);
	if (pair == NULL)
		return no_qp(w, sn);
	/* Offered on a QP ours is not connected to, or backing off: as
	 * datagrams, please. */
	if (d.qpn != rpc_rc_pair_remote_qpn(pair) || rpc_rdv_backing_off(s))
		return -ESTALE;
	mb = rpc_msgbuf_alloc(w, h->msg_size);
	if (mb == NULL)
		return -ENOMEM;
	if (post_read(w, sn, pair, mb, h->msg_size, &d, client_read_done,
			r) != 0) {
		rpc_msgbuf_put(mb);
		return no_qp(w, sn);
	}
	w->stats.rdv_descs_received++;
	r->resp.mb = mb;
	r->resp.size = h->msg_size;
	r->resp.plen = 0;
	r->resp.pkts = 1;
	r->resp.num_rx = 0;
	r->reading = true;
	pmr_msgbuf_tx_ref(r->mb);	/* completes only once read */
	/* Its size is known: time to read it (once: resp.pkts was 0). */
	rpc_timer_creq_extend(w, r, h->msg_size);
	return 0;
}

/* Server. */

static void
srv_read_done(struct pmr_worker *w, int session, unsigned int status,
		void *arg)
{
	struct pmr_srv_slot *req = arg;

	RTE_SET_USED(session);
	if (status == PMR_RC_OK) {
		w->stats.rdv_read_bytes += req->req.size;
		w->sessions[req->session].rx_live = true;	/* rpc_live.c */
		rpc_rc_read_ok(&w->sessions[req->session]);
	} else {
		w->stats.rdv_read_errors++;
		RPC_LOG(NOTICE, "worker %u: READ of a %u-byte request of "
			"session %u: %s", w->worker_id, req->req.size,
			req->session, pmr_transport_rc_status_str(status));
	}
	rpc_server_rdv_read_done(w, req, status);
}

int
rpc_rdv_srv_read(struct pmr_worker *w, uint16_t sn, struct pmr_srv_slot *req,
		const struct pmr_pkt_desc *d)
{
	struct rpc_rc_pair *pair = rpc_rc_pair_of(w, sn);

	if (pair == NULL)
		return -EAGAIN;
	return post_read(w, sn, pair, req->req.mb, req->req.size, d,
			srv_read_done, req);
}

bool
rpc_rdv_srv_offer(struct pmr_worker *w, uint16_t sn, struct pmr_srv_slot *req,
		struct pmr_msgbuf *resp)
{
	struct rpc_session *s = &w->sessions[sn];
	struct rpc_rc_pair *pair = rpc_rc_pair_of(w, sn);
	struct rpc_offer *o;

	if (pair == NULL) {
		if (s->rc_state == RPC_RC_NONE || s->rc_state == RPC_RC_FAILED)
			rpc_rc_want(w, sn);	/* for the next one */
		w->stats.rdv_fallbacks++;
		return false;
	}
	o = offer_get(w);
	if (o == NULL || offer_expose(w, sn, o, pair, resp, resp->len) != 0) {
		if (o != NULL)
			offer_put(w, o);
		w->stats.rdv_fallbacks++;
		return false;
	}
	if (o->copy)
		rpc_msgbuf_put(resp);	/* copied */
	o->slot = req;
	req->offer = o;
	return true;
}

struct pmr_msgbuf *
rpc_rdv_srv_unoffer(struct pmr_worker *w, struct pmr_srv_slot *req)
{
	struct rpc_offer *o = req->offer;
	struct pmr_msgbuf *mb = rpc_msgbuf_alloc(w, o->len);

	if (mb == NULL)
		return NULL;
	/* The offered bytes: the response in place, or its copy. */
	memcpy(mb->data, o->addr, o->len);
	mb->len = o->len;
	w->stats.copied_bytes += o->len;
	req->offer = NULL;	/* first: see srv_slot_clear() */
	rpc_rdv_offer_drop(w, o, true);	/* its READ failed: no late one */
	return mb;
}

void
rpc_rdv_tx_resp_desc(struct pmr_worker *w, const struct rpc_session *s,
		const struct pmr_srv_slot *req)
{
	struct pmr_pkthdr h = {
		.pkt_type = PMR_PKT_RESP_DESC,
		.req_type = req->req_type,
		.req_num = req->req_num,
	};

	if (req->offer->state == OFFER_BOUND)
		tx_desc(w, s, &h, req->offer);
}

bool
rpc_rdv_offer_broken(const struct rpc_offer *o)
{
	return o->state == OFFER_BROKEN;
}

/*
 * The worker goes: what is still offered (nothing, once every session
 * dropped its offers and the QPs drained) is freed as it is. Its pairs
 * are gone already (rpc_rc_destroy()); their regions go with their QPs.
 */
void
rpc_rdv_destroy(struct pmr_worker *w)
{
	struct rpc_rdv *rdv = w->rdv;
	struct rpc_offer *o;
	uint32_t i, left = 0;

	if (rdv == NULL)
		return;
	for (i = 0; i < RPC_RDV_OFFERS_MAX; i++) {
		o = &rdv->offers[i];
		if (o->state == OFFER_FREE)
			continue;
		left++;
		if (o->mw != NULL)
			pmr_transport_mw_free(w->q, o->mw);
		if (o->ref_mb != NULL)
			pmr_msgbuf_tx_unref(o->ref_mb);
		if (!o->copy && !o->client)
			rpc_msgbuf_put(o->mb);
	}
	if (left != 0)
		RPC_LOG(ERR, "worker %u: %u offers left at destroy",
			w->worker_id, left);
	rte_free(rdv);
	w->rdv = NULL;
}
