/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Issue 25, defect 0 on real Soft-RoCE: two VMs of devtools/vm/run2.sh
 * (test/vm/ud_err_two_vms.sh runs one side in each), their rxe0s of
 * different MTUs. The server (argv[1] "vm_server", VM A, eth0 at 1500:
 * rxe0's active MTU 1024) runs a worker on rxe0; the client ("vm_client",
 * VM B, eth0 raised to 4200: active MTU 4096) opens a session to it and:
 *
 * - sends one 1,200-byte UD datagram straight to the server worker's
 *   queue (the session's peer: its QPN and QKey, which every client
 *   learns in the handshake); rxe places it in whatever receive is next,
 *   so a receive of the GRH plus 1024 bytes completes in error and the
 *   server's QP goes to ERR. The server must serve on;
 * - asks the server to move its own UD QP to ERR (ibv_modify_qp, from a
 *   handler, with other requests in flight): the driver must find it,
 *   tell the application and recover the QP, and the client's requests
 *   complete (what was lost retransmitted);
 * - asks the server for its verdict (a CHECK request): its QP in RTS, the
 *   datagram dropped by its driver as too long (rx_drop_long), one
 *   failure and one recovery told (PMR_WORKER_EV_QP_FATAL, then
 *   PMR_WORKER_EV_QP_RECOVERED), and closes the session. Each side
 *   checks its pools full at the end. Exit 0 on success.
 */

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>

#include "pmr_msgbuf.h"
#include "pmr_nexus.h"
#include "pmr_rpc.h"
#include "pmr_test.h"
#include "pmr_test_rpc.h"
#include "pmr_transport.h"
#include "rpc_private.h"
#include "verbs_drv_util.h"
#include "verbs_private.h"

#define SRV_NEXUS "192.0.2.1:31850"
#define REQ_ECHO 7
#define REQ_CHECK 8
#define REQ_BREAK 9
#define VERDICT_MAX 512

/* The server's state, seen by its handlers (one worker, one thread). */
static struct {
	struct pmr_worker *w;
	bool broke;			/* REQ_BREAK ran */
	bool checked;			/* REQ_CHECK ran */
	bool passed;			/* and its verdict was PASS */
	unsigned int closed;		/* sessions reset after the check */
	unsigned int nev;
	enum pmr_worker_event_type ev[8];
} srv;

static unsigned int cli_events;

static void
on_event(struct pmr_worker *w, const struct pmr_worker_event *ev, void *arg)
{
	(void)arg;
	fprintf(stderr, "# worker %s: event %d (port %u)\n",
		w == srv.w ? "server" : "client", (int)ev->type, ev->port);
	if (w != srv.w) {
		cli_events++;
		return;
	}
	if (srv.nev < RTE_DIM(srv.ev))
		srv.ev[srv.nev] = ev->type;
	srv.nev++;
}

static enum ibv_qp_state
ud_state(struct pmr_worker *w)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(verbs_queue(pmr_worker_queue(w))->qp, &a,
			IBV_QP_STATE, &ia) != 0)
		return IBV_QPS_UNKNOWN;
	return a.qp_state;
}

/* Answer req with len bytes of data (an echo: its first byte
 * inverted, if invert). */
static void
respond(struct pmr_req_ref req, const void *data, uint32_t len, bool invert)
{
	struct pmr_worker *w = pmr_req_worker(req);
	struct pmr_msgbuf *resp = len <= pmr_worker_pkt_size(w) ?
		pmr_req_resp_buf(req) : pmr_worker_msgbuf_alloc(w, len);

	if (resp == NULL) {
		pmr_respond_error(req, PMR_E_NOMEM);
		return;
	}
	memcpy(resp->data, data, len);
	if (invert && len > 0)
		((uint8_t *)resp->data)[0] ^= 0xff;
	pmr_msgbuf_resize(resp, len);
	pmr_respond(req, resp);
}

static void
echo_handler(struct pmr_req_ref req, void *arg)
{
	(void)arg;
	respond(req, pmr_req_data(req), pmr_req_len(req), true);
}

/* Answer, then move the worker's own UD QP to ERR: "for any reason". */
static void
break_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_worker *w = pmr_req_worker(req);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	int ret;

	(void)arg;
	respond(req, pmr_req_data(req), pmr_req_len(req), true);
	if (srv.broke)
		return;
	srv.broke = true;
	ret = ibv_modify_qp(verbs_queue(pmr_worker_queue(w))->qp, &a,
			IBV_QP_STATE);
	fprintf(stderr, "# server: UD QP moved to ERR by the test: %s\n",
		strerror(ret));
}

/* The server's verdict, as text: "PASS ..." or "FAIL: ...". */
static void
check_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_worker *w = pmr_req_worker(req);
	struct pmr_transport_queue *q = pmr_worker_queue(w);
	struct pmr_worker_stats st;
	char v[VERDICT_MAX];
	const char *why = NULL;
	enum ibv_qp_state s = ud_state(w);
	uint64_t longs = vd_xstat(q, "rx_drop_long");
	uint64_t status = vd_xstat(q, "rx_drop_status");

	(void)arg;
	pmr_worker_stats_get(w, &st);
	if (s != IBV_QPS_RTS)
		why = "the UD QP is not in RTS";
	else if (longs != 1)
		why = "rx_drop_long is not 1";
	else if (st.qp_fatal != 1 || st.qp_recovered != 1 ||
		 st.qp_recovery_failed != 0)
		why = "not one failure and one recovery counted";
	else if (srv.nev != 2 || srv.ev[0] != PMR_WORKER_EV_QP_FATAL ||
		 srv.ev[1] != PMR_WORKER_EV_QP_RECOVERED)
		why = "not told QP_FATAL then QP_RECOVERED, once each";
	snprintf(v, sizeof(v), "%s%s: QP state %d, rx_drop_long %" PRIu64
		", rx_drop_status %" PRIu64 ", rx_flushed %" PRIu64
		", qp_fatal %" PRIu64 ", qp_recovered %" PRIu64
		", qp_recovery_failed %" PRIu64 ", events told %u",
		why == NULL ? "PASS" : "FAIL: ", why == NULL ? "" : why,
		(int)s, longs, status, vd_xstat(q, "rx_flushed"), st.qp_fatal,
		st.qp_recovered, st.qp_recovery_failed, srv.nev);
	fprintf(stderr, "# server verdict: %s\n", v);
	srv.checked = true;
	srv.passed = why == NULL;
	respond(req, v, (uint32_t)strlen(v) + 1, false);
}

static int
on_server_session(struct pmr_worker *w, int session,
		enum pmr_session_event ev, int err, void *arg)
{
	(void)w;
	(void)arg;
	fprintf(stderr, "# server: session %d event %d (%d)\n", session,
		(int)ev, err);
	if (ev == PMR_SESSION_EV_RESET && srv.checked)
		srv.closed++;
	return 0;
}

static void
conf_fill(struct pmr_worker_conf *c, uint16_t id)
{
	memset(c, 0, sizeof(*c));
	c->worker_id = id;
	c->driver = "verbs";
	c->devargs = "dev=rxe0";
	c->nb_msgbufs = 512;
	c->nb_mid_msgbufs = 8;
	c->nb_large_msgbufs = 2;
	c->max_msg_size = 64 * 1024;
	c->req_timeout_ms = 10000;
	c->event_cb = on_event;
}

/* Poll w until cond or the deadline, yielding when idle (one vCPU: the
 * nexus thread and rxe's kernel work share it). */
#define POLL_UNTIL(w, cond, deadline, what) do { \
	while (!(cond)) { \
		if (pmr_test_now_ns() > (deadline)) \
			fail_msg("timed out: %s", what); \
		if (pmr_worker_poll(w) == 0) \
			sched_yield(); \
	} \
} while (0)

static void
pools_full(struct pmr_worker *w, uint64_t deadline)
{
	unsigned int cls;

	for (cls = 0; cls < 3; cls++)
		POLL_UNTIL(w, pmr_msgbuf_pool_full(pmr_worker_pool(w, cls)),
			deadline, "the worker's pools full again");
}

static void
vm_server(void **state)
{
	struct pmr_worker_conf conf;
	struct pmr_transport_caps caps;
	struct pmr_nexus *nx;
	uint64_t deadline = pmr_test_now_ns() + PMR_TEST_WAIT_NS;

	(void)state;
	nx = pmr_nexus_create(SRV_NEXUS, NULL);
	if (nx == NULL)
		fail_msg("nexus at %s: %s", SRV_NEXUS,
			rte_strerror(rte_errno));
	assert_int_equal(pmr_nexus_register_handler(nx, REQ_ECHO,
			echo_handler, NULL), 0);
	assert_int_equal(pmr_nexus_register_handler(nx, REQ_CHECK,
			check_handler, NULL), 0);
	assert_int_equal(pmr_nexus_register_handler(nx, REQ_BREAK,
			break_handler, NULL), 0);
	conf_fill(&conf, 0);
	conf.server_session_cb = on_server_session;
	srv.w = pmr_worker_create(nx, &conf);
	if (srv.w == NULL)
		fail_msg("worker on rxe0: %s", rte_strerror(rte_errno));
	pmr_transport_queue_caps(pmr_worker_queue(srv.w), &caps);
	fprintf(stderr, "# server: rxe0's active MTU %u\n", caps.mtu);
	if (caps.mtu != 1024)
		fail_msg("the server VM's rxe0: active MTU %u, not 1024",
			caps.mtu);
	/* Until the client checked and closed its session. */
	POLL_UNTIL(srv.w, srv.closed > 0, deadline,
		"the client's check and close");
	fprintf(stderr, "# server: dropped %" PRIu64 " long, %" PRIu64
		" flushed, %" PRIu64 " WRs reclaimed, QP %d\n",
		vd_xstat(pmr_worker_queue(srv.w), "rx_drop_long"),
		vd_xstat(pmr_worker_queue(srv.w), "rx_flushed"),
		vd_xstat(pmr_worker_queue(srv.w), "qp_reclaimed"),
		(int)ud_state(srv.w));
	pools_full(srv.w, deadline);
	assert_int_equal(pmr_worker_destroy(srv.w), 0);
	assert_int_equal(pmr_nexus_destroy(nx), 0);
	if (!srv.passed)
		fail_msg("the server's own verdict was FAIL");
}

/* What a client request came back with. */
struct reply {
	int done;
	int status;
	uint32_t len;
	uint8_t first;
	char text[VERDICT_MAX];
};

static void
on_reply(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct reply *r = tag;

	(void)w;
	r->status = resp->status;
	r->len = resp->len;
	r->first = resp->len > 0 ? ((const uint8_t *)resp->data)[0] : 0;
	if (resp->len > 0 && resp->len <= sizeof(r->text)) {
		memcpy(r->text, resp->data, resp->len);
		r->text[resp->len - 1] = '\0';
	}
	pmr_msgbuf_free(resp->req);
	r->done++;
}

/* Send request type of len bytes filled with fill; r gets the answer. */
static void
request(struct pmr_worker *w, int s, uint16_t type, uint32_t len,
		uint8_t fill, struct reply *r)
{
	struct pmr_msgbuf *req = pmr_worker_msgbuf_alloc(w, len);

	assert_non_null(req);
	memset(req->data, fill, len);
	memset(r, 0, sizeof(*r));
	assert_int_equal(pmr_request(w, s, type, req, on_reply, r), 0);
}

static void
echo_check(const struct reply *r, uint32_t len, uint8_t fill,
		const char *what, unsigned int i)
{
	if (r->status != PMR_OK)
		fail_msg("%s RPC %u: status %d", what, i, r->status);
	assert_int_equal(r->len, len);
	assert_int_equal(r->first, fill ^ 0xff);
}

/* n echo RPCs one after another, of sizes from one to several packets. */
static void
echoes(struct pmr_worker *w, int s, unsigned int n, const char *what,
		uint64_t deadline)
{
	struct reply r;
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint32_t len = i % 4 == 3 ? 3000 : 40 + i;

		request(w, s, REQ_ECHO, len, (uint8_t)(i + 1), &r);
		POLL_UNTIL(w, r.done != 0, deadline, what);
		echo_check(&r, len, (uint8_t)(i + 1), what, i);
	}
}

/* One datagram of len bytes to the session's peer (the server worker's
 * queue), straight through the driver. */
static void
raw_send(struct pmr_worker *w, int s, uint32_t len, uint64_t deadline)
{
	struct pmr_transport_queue *q = pmr_worker_queue(w);
	struct pmr_msgbuf *mb = pmr_worker_msgbuf_alloc(w, len);
	struct pmr_tx_pkt pkt;

	assert_non_null(mb);
	vd_fill(mb->data, len, 25);
	memset(&pkt, 0, sizeof(pkt));
	pkt.peer = w->sessions[s].peer;
	pkt.mb = mb;
	pkt.data = mb->data;
	pkt.len = len;
	assert_non_null(pkt.peer);
	assert_int_equal(pmr_transport_tx_burst(q, &pkt, 1), 1);
	while (pmr_msgbuf_tx_pending(mb) != 0) {
		if (pmr_test_now_ns() > deadline)
			fail_msg("the client's driver holds the datagram");
		assert_true(pmr_transport_tx_flush(q) >= 0);
		if (pmr_worker_poll(w) == 0)
			sched_yield();
	}
	assert_int_equal(pmr_msgbuf_free(mb), 0);
	fprintf(stderr, "# client: sent one datagram of %u bytes to the "
		"server's queue\n", len);
}

static void
vm_client(void **state)
{
	struct pmr_worker_conf conf;
	struct pmr_transport_caps caps;
	struct pmr_worker_stats st;
	struct reply rs[8], check;
	struct pmr_nexus *nx;
	struct pmr_worker *w;
	uint64_t deadline = pmr_test_now_ns() + PMR_TEST_WAIT_NS;
	unsigned int i, tries;
	int s = -1;

	(void)state;
	nx = pmr_nexus_create("192.0.2.2:0", NULL);
	assert_non_null(nx);
	conf_fill(&conf, 1);
	w = pmr_worker_create(nx, &conf);
	if (w == NULL)
		fail_msg("worker on rxe0: %s", rte_strerror(rte_errno));
	pmr_transport_queue_caps(pmr_worker_queue(w), &caps);
	fprintf(stderr, "# client: rxe0's active MTU %u\n", caps.mtu);
	if (caps.mtu != 4096)
		fail_msg("the client VM's rxe0: active MTU %u, not 4096",
			caps.mtu);
	/* The VMs boot together: retry until the server listens. */
	for (tries = 0; s < 0 && pmr_test_now_ns() < deadline; tries++) {
		s = pmr_session_connect(w, SRV_NEXUS, 0, 5000);
		if (s < 0)
			rte_delay_us_sleep(500 * 1000);
	}
	if (s < 0)
		fail_msg("no session to %s after %u tries: %s", SRV_NEXUS,
			tries, strerror(-s));
	echoes(w, s, 10, "before the datagram", deadline);

	raw_send(w, s, 1200, deadline);
	echoes(w, s, 50, "after the datagram", deadline);

	/* The server's QP to ERR, seven echoes in flight beside. */
	request(w, s, REQ_BREAK, 100, 0x42, &rs[0]);
	for (i = 1; i < RTE_DIM(rs); i++)
		request(w, s, REQ_ECHO, i % 2 ? 48 : 3000, (uint8_t)(0x42 + i),
			&rs[i]);
	for (i = 0; i < RTE_DIM(rs); i++) {
		POLL_UNTIL(w, rs[i].done != 0, deadline,
			"the requests around the server's QP failing");
		echo_check(&rs[i], i == 0 ? 100 : i % 2 ? 48 : 3000,
			(uint8_t)(0x42 + i), "around the failure", i);
	}
	echoes(w, s, 50, "after the recovery", deadline);

	request(w, s, REQ_CHECK, 8, 0, &check);
	POLL_UNTIL(w, check.done != 0, deadline, "the server's verdict");
	assert_int_equal(check.status, PMR_OK);
	fprintf(stderr, "# client: the server says: %s\n", check.text);
	pmr_worker_stats_get(w, &st);
	fprintf(stderr, "# client: %" PRIu64 " requests, %" PRIu64
		" retransmissions, %" PRIu64 " timeouts\n", st.reqs_sent,
		st.retransmissions, st.timeouts);
	if (strncmp(check.text, "PASS", 4) != 0)
		fail_msg("the server: %s", check.text);
	/* The failure lost packets: they were sent again. */
	assert_true(st.retransmissions > 0);
	assert_int_equal(st.timeouts, 0);
	assert_int_equal(cli_events, 0);
	assert_int_equal(pmr_session_destroy(w, s), 0);
	pools_full(w, deadline);
	assert_int_equal(pmr_worker_destroy(w), 0);
	assert_int_equal(pmr_nexus_destroy(nx), 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vm_server),
		cmocka_unit_test(vm_client),
	};

	if (argc != 2 || (strcmp(argv[1], "vm_server") != 0 &&
			strcmp(argv[1], "vm_client") != 0)) {
		fprintf(stderr, "usage: %s vm_server|vm_client\n", argv[0]);
		return 2;
	}
	cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("verbs_ud_err_vm", tests,
		pmr_test_eal_setup, pmr_test_eal_teardown);
}
