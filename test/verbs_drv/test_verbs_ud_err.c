/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * A verbs worker's UD QP and the error state (issue 25, defect 0), over
 * real workers on the software HCA model. On rxe a receive buffer of the
 * GRH plus the port's active MTU is too short for a datagram from a peer
 * whose link MTU is larger: rxe places it (the rxe personality, rxe=1,
 * does as rxe), completes it in error and moves the QP to ERR, and the
 * worker's data path stopped for good, silently. The cases, each its own
 * meson test (the cmocka filter is argv[1]):
 *
 * - ud_err_oversize: one 1,200-byte datagram from a client whose port's
 *   active MTU is 4096 to a server worker whose port's is 1024: the
 *   server's QP stays in RTS, the driver drops the datagram (counted by
 *   reason), RPCs keep completing, nothing is reported, nothing lost.
 * - ud_err_hostile_rxe: the hostile-datagram test to the largest a frame
 *   carries (4096 bytes) on rxe=1 devices.
 * - ud_err_recover: the server's UD QP forced to ERR mid-traffic
 *   (pmr_hca_qp_force_err(): flushed work and IBV_EVENT_QP_FATAL): the
 *   driver recovers it, the application is told once that it failed and
 *   once that it recovered, the lost packets are retransmitted and every
 *   RPC before and after completes with its payload; a late QP event of
 *   a QP that works is not told; pools full, nothing left on the model.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>

#include "pmr_hca.h"
#include "pmr_msgbuf.h"
#include "pmr_nexus.h"
#include "pmr_rpc.h"
#include "pmr_test.h"
#include "pmr_test_rpc.h"
#include "pmr_transport.h"
#include "rpc_private.h"
#include "verbs_drv_attacker.h"
#include "verbs_drv_e2e.h"
#include "verbs_drv_util.h"
#include "verbs_private.h"

/* hca0: active MTU 1024, max 4096 (the defaults), as rxe0 on a 1500-byte
 * link; hca1: active 4096, as rxe0 on a link of 4200. Both rxe. */
#define RXE_FABRIC "dev=hca0,rxe=1 dev=hca1,rxe=1,mtu=4096"

#define EV_MAX 16

/* What a worker's event_cb saw. */
struct seen {
	const struct pmr_worker *w;
	unsigned int n;
	enum pmr_worker_event_type ev[EV_MAX];
};

static struct seen seen_srv, seen_cli;

static void
on_event(struct pmr_worker *w, const struct pmr_worker_event *ev, void *arg)
{
	struct seen *s = w == seen_srv.w ? &seen_srv : &seen_cli;

	(void)arg;
	if (s->n < EV_MAX)
		s->ev[s->n] = ev->type;
	s->n++;
}

static void
seen_reset(void)
{
	memset(&seen_srv, 0, sizeof(seen_srv));
	memset(&seen_cli, 0, sizeof(seen_cli));
}

static enum ibv_qp_state
ud_state(struct pmr_worker *w)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	assert_int_equal(ibv_query_qp(verbs_queue(pmr_worker_queue(w))->qp,
			&a, IBV_QP_STATE, &ia), 0);
	return a.qp_state;
}

static struct pmr_worker_stats
wstats(struct pmr_worker *w)
{
	struct pmr_worker_stats st;

	assert_int_equal(pmr_worker_stats_get(w, &st), 0);
	return st;
}

/* Poll both workers a while: what is in flight lands. */
static void
settle(struct vd_e2e *e, unsigned int polls)
{
	unsigned int i;

	for (i = 0; i < polls; i++) {
		pmr_worker_poll(e->srv);
		pmr_worker_poll(e->cli);
		if (i % 100 == 99)
			rte_delay_us_sleep(200);
	}
}

/*
 * One datagram of len bytes from the client worker's queue to its
 * session's peer (the server worker's queue), straight through the
 * driver, as any client that knows the server's QPN and QKey (from the
 * handshake) can send; the client's driver done with it before return.
 */
static void
raw_send(struct vd_e2e *e, uint32_t len)
{
	struct pmr_transport_queue *q = pmr_worker_queue(e->cli);
	struct pmr_msgbuf *mb = pmr_worker_msgbuf_alloc(e->cli, len);
	struct pmr_tx_pkt pkt;

	assert_non_null(mb);
	vd_fill(mb->data, len, 25);
	memset(&pkt, 0, sizeof(pkt));
	pkt.peer = e->cli->sessions[e->s].peer;
	pkt.mb = mb;
	pkt.data = mb->data;
	pkt.len = len;
	assert_non_null(pkt.peer);
	assert_int_equal(pmr_transport_tx_burst(q, &pkt, 1), 1);
	while (pmr_msgbuf_tx_pending(mb) != 0) {
		if (pmr_test_now_ns() > e->deadline)
			fail_msg("the client's driver holds the datagram");
		assert_true(pmr_transport_tx_flush(q) >= 0);
		pmr_worker_poll(e->cli);
	}
	assert_int_equal(pmr_msgbuf_free(mb), 0);
}

static void
ud_err_oversize(void **state)
{
	struct pmr_worker_conf conf = {
		.driver = "verbs", .devargs = "dev=hca0", .nb_msgbufs = 256,
		.max_msg_size = 64 * 1024, .nb_mid_msgbufs = 8,
		.nb_large_msgbufs = 2, .event_cb = on_event,
	};
	struct pmr_transport_caps caps;
	struct pmr_worker_stats st;
	struct pmr_hca_counters c;
	struct vd_e2e e;
	unsigned int i;

	(void)state;
	seen_reset();
	vd_fabric(RXE_FABRIC);
	vd_e2e_up(&e, &conf, "dev=hca1");
	seen_srv.w = e.srv;
	pmr_transport_queue_caps(pmr_worker_queue(e.srv), &caps);
	assert_int_equal(caps.mtu, 1024);
	pmr_transport_queue_caps(pmr_worker_queue(e.cli), &caps);
	assert_int_equal(caps.mtu, 4096);
	vd_e2e_call(&e, NULL, 100);
	vd_e2e_call(&e, NULL, 5000);

	pmr_hca_counters_reset();
	raw_send(&e, 1200);
	settle(&e, 64);
	/* Nothing lost it on the way (rxe carries it): it reached the
	 * server's QP. */
	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	assert_int_equal(c.drop_too_long + c.drop_no_qp + c.drop_qkey +
		c.drop_no_recv, 0);
	if (ud_state(e.srv) != IBV_QPS_RTS)
		fail_msg("one datagram of 1200 bytes moved the server's UD QP "
			"to %d (ERR is %d)", ud_state(e.srv), IBV_QPS_ERR);

	/* The server serves on, single- and multi-packet. */
	for (i = 0; i < 50; i++)
		vd_e2e_call(&e, NULL, i % 5 == 4 ? 3000 : 40 + i);
	/* Dropped by the driver, by reason; nothing failed, nothing told. */
	assert_int_equal(vd_xstat(pmr_worker_queue(e.srv), "rx_drop_long"),
			1);
	assert_int_equal(vd_xstat(pmr_worker_queue(e.srv), "rx_drop_status"),
			0);
	st = wstats(e.srv);
	assert_int_equal(st.qp_fatal, 0);
	assert_int_equal(seen_srv.n, 0);
	assert_int_equal(seen_cli.n, 0);

	vd_e2e_quiesce(&e);
	assert_int_equal(pmr_session_destroy(e.cli, e.s), 0);
	vd_e2e_pools_full(&e);
	vd_e2e_down(&e);
	vd_fabric(NULL);
}

static void
ud_err_hostile_rxe(void **state)
{
	struct pmr_worker_conf conf = {
		.driver = "verbs", .devargs = "dev=hca0", .nb_msgbufs = 512,
		.max_msg_size = 64 * 1024, .nb_mid_msgbufs = 8,
		.nb_large_msgbufs = 2, .event_cb = on_event,
	};
	struct vd_e2e e;

	(void)state;
	seen_reset();
	vd_fabric(RXE_FABRIC);
	vd_e2e_up(&e, &conf, NULL);
	seen_srv.w = e.srv;
	/* From hca1: its active MTU, 4096, is the largest a frame there
	 * carries, and hca0's max_mtu. */
	vd_hostile_run(&e, "hca1", VD_ATTACKER_MAX, 3000);
	assert_int_equal(ud_state(e.srv), IBV_QPS_RTS);
	assert_int_equal(wstats(e.srv).qp_fatal, 0);
	assert_int_equal(seen_srv.n, 0);
	assert_int_equal(pmr_session_destroy(e.cli, e.s), 0);
	vd_e2e_pools_full(&e);
	vd_e2e_down(&e);
	vd_fabric(NULL);
}

/* Requests in flight at once in ud_err_recover, and in all. */
#define REC_DEPTH 8
#define REC_RPCS 600

struct rec_call {
	struct vd_e2e_reply r;
	uint32_t len;
	uint8_t fill;
};

/* Keep REC_DEPTH requests in flight until done of them came back, each
 * checked; the request after number fail_at is sent, the QP is forced to
 * ERR (fail_at UINT32_MAX: never). */
static void
rec_run(struct vd_e2e *e, struct rec_call *calls, unsigned int *started,
		unsigned int *done, unsigned int until, unsigned int fail_at)
{
	struct pmr_msgbuf *req;
	unsigned int i;

	while (*done < until) {
		if (pmr_test_now_ns() > e->deadline)
			fail_msg("%u of %u RPCs completed", *done, until);
		for (i = 0; i < REC_DEPTH; i++) {
			struct rec_call *rc = &calls[i];

			if (rc->r.done == 0)
				continue;
			if (rc->len != 0) {	/* one came back: check it */
				if (rc->r.status != PMR_OK)
					fail_msg("RPC %u: status %d", *done,
						rc->r.status);
				assert_int_equal(rc->r.len, rc->len);
				assert_int_equal(rc->r.first, rc->fill ^ 0xff);
				rc->len = 0;
				(*done)++;
			}
			if (*started == until)
				continue;
			rc->len = *started % 5 == 4 ? 3000 : 48;
			rc->fill = (uint8_t)(*started * 13 + 1);
			memset(&rc->r, 0, sizeof(rc->r));
			req = pmr_worker_msgbuf_alloc(e->cli, rc->len);
			assert_non_null(req);
			memset(req->data, rc->fill, rc->len);
			assert_int_equal(pmr_request(e->cli, e->s, VD_E2E_REQ,
					req, vd_e2e_on_reply, &rc->r), 0);
			(*started)++;
		}
		/* The client posts what it has; the server's QP fails
		 * with those requests on their way to it. */
		pmr_worker_poll(e->cli);
		if (*started > fail_at) {
			fail_at = UINT32_MAX;
			assert_int_equal(pmr_hca_qp_force_err(verbs_queue(
				pmr_worker_queue(e->srv))->qp), 0);
		}
		pmr_worker_poll(e->srv);
	}
}

/* The first n events of s are exactly want[]. */
static void
seen_is(const struct seen *s, const enum pmr_worker_event_type *want,
		unsigned int n)
{
	unsigned int i;

	if (s->n != n)
		fail_msg("%u events told, want %u (first: %d)", s->n, n,
			s->n > 0 ? (int)s->ev[0] : 0);
	for (i = 0; i < n; i++)
		if (s->ev[i] != want[i])
			fail_msg("event %u: %d, want %d", i, (int)s->ev[i],
				(int)want[i]);
}

static void
ud_err_recover(void **state)
{
	static const enum pmr_worker_event_type want[] = {
		PMR_WORKER_EV_QP_FATAL, PMR_WORKER_EV_QP_RECOVERED,
	};
	struct pmr_worker_conf conf = {
		.driver = "verbs", .devargs = "dev=hca0", .nb_msgbufs = 512,
		.max_msg_size = 64 * 1024, .nb_mid_msgbufs = 32,
		.nb_large_msgbufs = 2, .rto_us = 2000, .event_cb = on_event,
	};
	struct rec_call calls[REC_DEPTH];
	struct pmr_transport_queue *sq;
	struct pmr_transport_addr a0, a1;
	struct pmr_worker_stats sst, cst;
	struct pmr_nexus_stats nst;
	struct ibv_async_event ae;
	unsigned int started = 0, done = 0, i;
	struct vd_e2e e;

	(void)state;
	seen_reset();
	vd_e2e_up(&e, &conf, NULL);
	seen_srv.w = e.srv;
	sq = pmr_worker_queue(e.srv);
	assert_int_equal(pmr_transport_queue_addr(sq, &a0), 0);
	memset(calls, 0, sizeof(calls));
	for (i = 0; i < REC_DEPTH; i++)
		calls[i].r.done = 1;	/* free slots */

	/* A third, the QP forced to ERR with requests on the way, the
	 * rest. */
	rec_run(&e, calls, &started, &done, REC_RPCS, REC_RPCS / 3);
	assert_int_equal(ud_state(e.srv), IBV_QPS_RTS);

	/* The nexus's QP event arrives too: counted, not told again. */
	while (wstats(e.srv).dev_events == 0) {
		if (pmr_test_now_ns() > e.deadline)
			fail_msg("the device's QP event never came");
		pmr_worker_poll(e.srv);
		pmr_worker_poll(e.cli);
	}
	settle(&e, 2000);
	seen_is(&seen_srv, want, RTE_DIM(want));
	seen_is(&seen_cli, NULL, 0);
	sst = wstats(e.srv);
	cst = wstats(e.cli);
	assert_int_equal(sst.qp_fatal, 1);
	assert_int_equal(sst.qp_recovered, 1);
	assert_int_equal(sst.qp_recovery_failed, 0);
	assert_int_equal(sst.dev_events, 1);
	assert_int_equal(cst.qp_fatal, 0);
	/* What the failure lost came back by retransmission. */
	assert_true(cst.retransmissions > 0);
	assert_int_equal(vd_xstat(sq, "qp_err"), 1);
	assert_int_equal(vd_xstat(sq, "qp_recovered"), 1);
	assert_true(vd_xstat(sq, "rx_flushed") > 0);
	assert_int_equal(pmr_nexus_stats_get(e.nx, &nst), 0);
	assert_int_equal(nst.dev_events_qp, 1);
	/* Same QPN and QKey: peers keep the address they have. */
	assert_int_equal(pmr_transport_queue_addr(sq, &a1), 0);
	assert_memory_equal(a0.bytes, a1.bytes, a0.len);
	fprintf(stderr, "# %u RPCs, %" PRIu64 " retransmissions, %" PRIu64
		" receives flushed, %" PRIu64 " WRs reclaimed\n", done,
		cst.retransmissions, vd_xstat(sq, "rx_flushed"),
		vd_xstat(sq, "qp_reclaimed"));

	/* A QP event of a QP that works (a late one): not told. */
	memset(&ae, 0, sizeof(ae));
	ae.event_type = IBV_EVENT_QP_FATAL;
	ae.element.qp = verbs_queue(sq)->qp;
	assert_int_equal(pmr_hca_event_raise("hca0", &ae), 0);
	while (wstats(e.srv).dev_events < 2) {
		if (pmr_test_now_ns() > e.deadline)
			fail_msg("the raised QP event never came");
		pmr_worker_poll(e.srv);
		pmr_worker_poll(e.cli);
	}
	settle(&e, 2000);
	seen_is(&seen_srv, want, RTE_DIM(want));
	assert_int_equal(wstats(e.srv).qp_fatal, 1);
	assert_int_equal(ud_state(e.srv), IBV_QPS_RTS);
	rec_run(&e, calls, &started, &done, REC_RPCS + 100, UINT32_MAX);

	vd_e2e_quiesce(&e);
	assert_int_equal(pmr_session_destroy(e.cli, e.s), 0);
	vd_e2e_pools_full(&e);
	vd_e2e_down(&e);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ud_err_oversize),
		cmocka_unit_test(ud_err_hostile_rxe),
		cmocka_unit_test(ud_err_recover),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("verbs_ud_err", tests,
		pmr_test_eal_setup, pmr_test_eal_teardown);
}
