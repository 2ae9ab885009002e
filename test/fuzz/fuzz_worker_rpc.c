/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The worker fuzz target's view of lib/rpc internals (fuzz_worker_rpc.h):
 * the only file of the target that includes rpc_private.h.
 */

#include <errno.h>

#include <rte_cycles.h>

#include "fuzz_worker_rpc.h"
#include "pmr_fuzz.h"
#include "rpc_client.h"
#include "rpc_private.h"
#include "rpc_server.h"
#include "rpc_timers.h"
#include "rpc_tx.h"

uint32_t
fz_hdr_len(void)
{
	return PMR_PKTHDR_LEN;
}

void
fz_hdr_write(uint8_t *buf, const struct fz_hdr *h)
{
	pmr_pkthdr_write(buf, h->pkt_type, h->req_type, h->dest_session,
			h->pkt_num, h->msg_size, h->token,
			h->req_num, h->status);
}

uint32_t
fz_desc_len(void)
{
	return PMR_PKT_DESC_LEN;
}

void
fz_desc_write(uint8_t *buf, uint64_t addr, uint32_t rkey, bool bad)
{
	const struct pmr_pkt_desc d = { .addr = addr, .rkey = rkey };

	pmr_pkt_desc_encode(buf, &d);
	if (bad)
		buf[PMR_PKT_DESC_LEN - 1] = 0x80;
}

bool
fz_hdr_read(const uint8_t *buf, uint32_t len, struct fz_hdr *h)
{
	struct pmr_pkthdr d;

	if (pmr_pkthdr_decode(buf, len, &d) != PMR_PKTHDR_OK)
		return false;
	h->pkt_type = d.pkt_type;
	h->req_type = d.req_type;
	h->dest_session = d.dest_session;
	h->pkt_num = d.pkt_num;
	h->msg_size = d.msg_size;
	h->token = d.token;
	h->req_num = d.req_num;
	h->status = d.status;
	return true;
}

static void
fz_handler(struct pmr_req_ref req, void *arg)
{
	struct fz_req r = { .req = req };

	fz_on_request(r, pmr_req_data(req), pmr_req_len(req),
			pmr_req_type(req), arg);
}

int
fz_register_handler(struct pmr_nexus *nx, uint8_t type, void *arg)
{
	return pmr_nexus_register_handler(nx, type, fz_handler, arg);
}

struct pmr_msgbuf *
fz_req_resp_buf(struct fz_req r)
{
	return pmr_req_resp_buf(r.req);
}

int
fz_respond(struct fz_req r, struct pmr_msgbuf *mb)
{
	return pmr_respond(r.req, mb);
}

int
fz_respond_error(struct fz_req r, enum pmr_status status)
{
	return pmr_respond_error(r.req, status);
}

uint64_t
fz_session_token(const struct pmr_worker *w, uint16_t sn)
{
	return w->sessions[sn].token;
}

uint16_t
fz_session_remote(const struct pmr_worker *w, uint16_t sn)
{
	return w->sessions[sn].remote_session;
}

bool
fz_tx_queued(const struct pmr_worker *w, const struct pmr_msgbuf *mb)
{
	return rpc_tx_queued(w, mb);
}

uint16_t
fz_window(const struct pmr_worker *w)
{
	return w->window;
}

void
fz_srv_slot(const struct pmr_worker *w, uint16_t sn, uint16_t i,
		struct fz_srv_slot *v)
{
	const struct pmr_srv_slot *req = &w->sessions[sn].srv[i];

	v->busy = req->state != SRV_FREE;
	v->req_num = req->req_num;
	v->req_size = req->req.size;
	v->num_rx = req->req.num_rx;
	v->resp_pkts = req->state == SRV_RESPONDED ? req->resp_pkts : 0;
	v->status_only = v->resp_pkts != 0 && req->resp_mb == NULL;
}

void
fz_cli_slot(const struct pmr_worker *w, uint16_t sn, uint16_t i,
		struct fz_cli_slot *v)
{
	const struct rpc_session *s = &w->sessions[sn];
	const struct rpc_creq *r = s->window[i];

	v->next_num = s->slot_req_num[i] & PMR_REQ_NUM_MASK;
	v->busy = r != NULL;
	if (r == NULL) {
		v->req_num = (s->slot_req_num[i] - w->window) &
			PMR_REQ_NUM_MASK;
		v->req_pkts = v->resp_pkts = v->resp_size = 0;
		v->num_tx = v->num_rx = 0;
		return;
	}
	v->req_num = r->req_num;
	v->req_pkts = r->req_pkts;
	v->resp_pkts = r->resp.pkts;
	/* Set with the first response packet: stale until then. */
	v->resp_size = r->resp.pkts != 0 ? r->resp.size : 0;
	v->num_tx = r->num_tx;
	v->num_rx = r->num_rx;
}

void
fz_advance_time(struct pmr_worker *w, enum fz_time t)
{
	uint64_t later = t == FZ_TIME_RTO ? w->rto + 1 : w->req_timeout + 1;
	uint64_t now = rte_get_timer_cycles();

	/* The timer scans take the time: a time hook. */
	rpc_timers_client(w, now + later);
	if (t != FZ_TIME_RTO)
		rpc_timers_server(w, now + w->srv_timeout + 1);
	if (w->nb_tx != 0)
		rpc_tx_flush(w);
}

unsigned int
fz_srv_partial(const struct pmr_worker *w)
{
	unsigned int n = 0;
	uint32_t sn;
	uint16_t i;

	for (sn = 0; sn < w->max_sessions; sn++)
		for (i = 0; i < w->window; i++)
			n += w->sessions[sn].srv[i].state == SRV_RECEIVING;
	return n;
}

uint64_t
fz_rx_accounted(const struct pmr_worker_stats *st)
{
	uint64_t n = st->rx_pkts;
	unsigned int i;

	/* rpc_rx_one()'s drops: decode errors, then the session checks. */
	for (i = 0; i <= RPC_DROP_ROLE; i++)
		n += st->drops[i];
	/* TOKEN packets (rpc_hs_rx_token()): taken, or dropped. */
	return n + st->tokens_received + st->drops[RPC_DROP_TOKEN_PKT];
}

void
fz_rdv_check_none(const struct pmr_worker_stats *st)
{
	FUZZ_CHECK(st->rdv_descs_sent == 0 && st->rdv_descs_received == 0);
	FUZZ_CHECK(st->rdv_reads == 0 && st->rdv_read_bytes == 0 &&
		st->rdv_read_errors == 0);
	FUZZ_CHECK(st->rdv_offers == 0 && st->rdv_reclaimed == 0);
	FUZZ_CHECK(st->drops[RPC_DROP_RDV_NO_QP] == 0);
}

void
fz_sessions_check(const struct pmr_worker *w)
{
	uint32_t i, reserved = 0;
	uint8_t free_seen[UINT16_MAX + 1u] = { 0 };

	FUZZ_CHECK(w->nb_sess_free <= w->max_sessions);
	for (i = 0; i < w->nb_sess_free; i++) {
		uint16_t sn = w->sess_free[i];

		FUZZ_CHECK(sn < w->max_sessions && !free_seen[sn]);
		FUZZ_CHECK(w->sessions[sn].state == PMR_SESSION_FREE);
		free_seen[sn] = 1;
	}
	for (i = 0; i < w->max_sessions; i++)
		if (!free_seen[i])
			reserved += w->sessions[i].rx_reserve;
	FUZZ_CHECK(reserved == w->rx_reserved);
}

void
fz_sessions_resync(struct pmr_worker *srv, struct pmr_worker *cli,
		const int *cli_sessions, unsigned int n)
{
	unsigned int k;
	uint32_t sn;
	uint16_t i;

	for (sn = 0; sn < srv->max_sessions; sn++) {
		struct rpc_session *s = &srv->sessions[sn];

		if (s->state != PMR_SESSION_CONNECTED || s->client)
			continue;
		FUZZ_CHECK(s->srv_active == 0);
		for (i = 0; i < srv->window; i++) {
			FUZZ_CHECK(s->srv[i].state != SRV_HANDLING);
			if (s->srv[i].state == SRV_FREE &&
			    s->srv[i].resp_buf != NULL) {
				/* A recycled response buffer: the slot's. */
				rpc_msgbuf_put(s->srv[i].resp_buf);
				s->srv[i].resp_buf = NULL;
			}
			/* What a free slot keeps of its last request. */
			s->srv[i].req.size = 0;
			s->srv[i].req.num_rx = 0;
			s->srv[i].resp_pkts = 0;
		}
		/*
		 * As a new session's (session_alloc()): each slot takes its
		 * index as its first request number, as the client's
		 * slot_req_num[] below; no timeouts counted.
		 */
		rpc_server_session_init(srv, s);
	}
	for (k = 0; k < n; k++) {
		struct rpc_session *s;

		if (cli_sessions[k] < 0)
			continue;
		s = &cli->sessions[cli_sessions[k]];
		/* Idle: nothing in the window, every credit back. */
		FUZZ_CHECK(s->in_flight == 0);
		FUZZ_CHECK(TAILQ_EMPTY(&s->backlog));
		FUZZ_CHECK(s->credits == cli->credits);
		for (i = 0; i < cli->window; i++) {
			FUZZ_CHECK(s->window[i] == NULL);
			s->slot_req_num[i] = i;
			/* Timeouts in a row (the session resets at 8). */
			s->slot_timeouts[i] = 0;
		}
		s->starved = false;
		s->kick_pos = 0;
	}
}
