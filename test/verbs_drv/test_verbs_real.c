/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The verbs driver on a real device (rxe0 in the VM of devtools/vm/, or
 * PMR_VERBS_DEV): what test_verbs_drv.c checks on the model that does
 * not need the model's counters. Two queues on the device exchange
 * packets (inline, zero-copy, gathered headers), the flush leaves
 * nothing held, a peer destroyed with sends in flight loses its AH only
 * later, then one end-to-end RPC. Exits 77 (skip) without the device.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "pmr_msgbuf.h"
#include "pmr_nexus.h"
#include "pmr_rpc.h"
#include "pmr_test.h"
#include "pmr_test_rpc.h"
#include "pmr_transport.h"

static const struct pmr_transport_driver *drv;
static struct rte_mempool *pool;
static char devargs[64];

static uint64_t
xstat(struct pmr_transport_queue *q, const char *name)
{
	struct pmr_transport_xstat xs[64];
	int i, n = pmr_transport_xstats_get(q, xs, RTE_DIM(xs));

	assert_true(n > 0 && n <= (int)RTE_DIM(xs));
	for (i = 0; i < n; i++)
		if (strcmp(xs[i].name, name) == 0)
			return xs[i].value;
	fail_msg("no xstat %s", name);
	return 0;
}

static struct pmr_transport_peer *
peer_to(struct pmr_transport_queue *from, struct pmr_transport_queue *to)
{
	struct pmr_transport_addr addr;
	struct pmr_transport_peer *p;

	assert_int_equal(pmr_transport_queue_addr(to, &addr), 0);
	p = pmr_transport_peer_create(from, &addr);
	assert_non_null(p);
	return p;
}

static void
fill(uint8_t *d, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		d[i] = (uint8_t)(seed * 131 + i * 7 + 3);
}

/* Poll both queues' RX (dropping) and flush until neither holds a send. */
static void
quiesce(struct pmr_transport_queue *a, struct pmr_transport_queue *b)
{
	struct pmr_rx_pkt rx[PMR_BURST_MAX];
	uint64_t deadline = pmr_test_now_ns() + PMR_TEST_WAIT_NS;
	uint16_t n;

	while (pmr_test_now_ns() < deadline) {
		assert_true(pmr_transport_tx_flush(a) >= 0);
		assert_true(pmr_transport_tx_flush(b) >= 0);
		n = pmr_transport_rx_burst(a, rx, PMR_BURST_MAX);
		pmr_transport_rx_release(a, rx, n);
		n = pmr_transport_rx_burst(b, rx, PMR_BURST_MAX);
		pmr_transport_rx_release(b, rx, n);
		if (xstat(a, "tx_pending") == 0 && xstat(b, "tx_pending") == 0)
			break;
	}
	assert_int_equal(xstat(a, "tx_pending"), 0);
	assert_int_equal(xstat(b, "tx_pending"), 0);
}

static void
test_exchange(void **state)
{
	struct pmr_transport_queue *a, *b;
	struct pmr_transport_peer *a2b, *b2a;
	struct pmr_transport_caps caps;
	struct pmr_transport_addr addr;
	struct pmr_msgbuf *mbs[PMR_BURST_MAX];
	struct pmr_tx_pkt pkts[PMR_BURST_MAX];
	struct pmr_rx_pkt rx[PMR_BURST_MAX];
	uint8_t hdr[40], want[2048];
	unsigned int round, i, got;
	uint64_t deadline;

	(void)state;
	a = pmr_transport_queue_create(drv, devargs, SOCKET_ID_ANY);
	if (a == NULL)
		fail_msg("queue on '%s': %s", devargs, rte_strerror(rte_errno));
	b = pmr_transport_queue_create(drv, devargs, SOCKET_ID_ANY);
	assert_non_null(b);
	pmr_transport_queue_caps(a, &caps);
	fprintf(stderr, "# %s: MTU %u, rx_depth %u\n", devargs, caps.mtu,
		caps.rx_depth);
	assert_true(caps.mtu >= 256 && caps.mtu <= 4096);
	/* The automatic GID on rxe: the IPv4-mapped one. */
	assert_int_equal(pmr_transport_queue_addr(a, &addr), 0);
	assert_int_equal(addr.bytes[12 + 10], 0xff);
	assert_int_equal(addr.bytes[12 + 11], 0xff);
	assert_int_equal(pmr_transport_mem_register(a, pool), 0);
	assert_int_equal(pmr_transport_mem_register(b, pool), 0);
	a2b = peer_to(a, b);
	b2a = peer_to(b, a);
	fill(hdr, sizeof(hdr), 77);

	for (round = 0; round < 8; round++) {
		/* Inline-sized, then zero-copy; every other with hdr. */
		uint32_t len = (round & 1) ? 40 : 600 + round;
		uint16_t n = 0;

		assert_int_equal(pmr_msgbuf_alloc_bulk(pool, mbs,
				PMR_BURST_MAX, len), 0);
		for (i = 0; i < PMR_BURST_MAX; i++) {
			fill(pmr_msgbuf_data(mbs[i]), len, round * 64 + i);
			memset(&pkts[i], 0, sizeof(pkts[i]));
			pkts[i].peer = a2b;
			pkts[i].mb = mbs[i];
			pkts[i].data = pmr_msgbuf_data(mbs[i]);
			pkts[i].len = len;
			if (i & 1) {
				pkts[i].hdr = hdr;
				pkts[i].hdr_len = sizeof(hdr);
			}
		}
		deadline = pmr_test_now_ns() + PMR_TEST_WAIT_NS;
		for (got = 0; got < PMR_BURST_MAX;) {
			uint16_t k;

			assert_true(pmr_test_now_ns() < deadline);
			if (n < PMR_BURST_MAX)
				n += pmr_transport_tx_burst(a, pkts + n,
						PMR_BURST_MAX - n);
			k = pmr_transport_rx_burst(b, rx, PMR_BURST_MAX);
			for (i = 0; i < k; i++, got++) {
				uint32_t h = (got & 1) ? sizeof(hdr) : 0;

				/* UD on one rxe: in order, none lost. */
				assert_int_equal(rx[i].len, h + len);
				memcpy(want, hdr, h);
				fill(want + h, len, round * 64 + got);
				assert_memory_equal(rx[i].data, want, h + len);
				assert_true(rx[i].src == b2a->src);
			}
			pmr_transport_rx_release(b, rx, k);
		}
		quiesce(a, b);
		for (i = 0; i < PMR_BURST_MAX; i++)
			assert_int_equal(pmr_msgbuf_free(mbs[i]), 0);
	}
	assert_true(xstat(a, "tx_inline") > 0);
	assert_true(xstat(a, "tx_signaled") < 8 * PMR_BURST_MAX);

	/* A peer destroyed with sends in flight: its AH outlives it. */
	assert_int_equal(pmr_msgbuf_alloc_bulk(pool, mbs, 4, 700), 0);
	for (i = 0; i < 4; i++) {
		memset(&pkts[i], 0, sizeof(pkts[i]));
		pkts[i].peer = a2b;
		pkts[i].mb = mbs[i];
		pkts[i].data = pmr_msgbuf_data(mbs[i]);
		pkts[i].len = 700;
	}
	assert_int_equal(pmr_transport_tx_burst(a, pkts, 4), 4);
	pmr_transport_peer_destroy(a, a2b);
	quiesce(a, b);
	assert_int_equal(xstat(a, "ahs_live"), 0);
	assert_int_equal(xstat(a, "ah_destroy_busy"), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(pmr_msgbuf_free(mbs[i]), 0);
	pmr_transport_peer_destroy(b, b2a);
	quiesce(a, b);
	assert_int_equal(xstat(b, "ahs_live"), 0);
	assert_int_equal(xstat(b, "ah_destroy_busy"), 0);
	pmr_transport_queue_destroy(a);
	pmr_transport_queue_destroy(b);
	assert_true(pmr_msgbuf_pool_full(pool));
}

#define E2E_REQ 7

static void
e2e_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_worker *w = pmr_req_worker(req);
	uint32_t len = pmr_req_len(req);
	struct pmr_msgbuf *resp = len <= pmr_worker_pkt_size(w) ?
		pmr_req_resp_buf(req) : pmr_worker_msgbuf_alloc(w, len);

	(void)arg;
	if (resp == NULL) {
		pmr_respond_error(req, PMR_E_NOMEM);
		return;
	}
	memcpy(resp->data, pmr_req_data(req), len);
	pmr_msgbuf_resize(resp, len);
	pmr_respond(req, resp);
}

static void
e2e_on_reply(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	int *st = tag;

	(void)w;
	*st = resp->status == PMR_OK ? (int)resp->len : -1;
	pmr_msgbuf_free(resp->req);
}

static void
test_e2e_rpc(void **state)
{
	struct pmr_nexus_conf nconf = { .connect_timeout_ms = 5000,
		.peer_timeout_ms = 30000 };
	struct pmr_worker_conf conf = {
		.driver = "verbs", .devargs = devargs, .nb_msgbufs = 256,
		.max_msg_size = 64 * 1024, .nb_mid_msgbufs = 4,
		.nb_large_msgbufs = 2, .rto_us = 200000,
	};
	struct pmr_worker *srv, *cli;
	struct pmr_test_sess_ev ev;
	struct pmr_nexus *nx;
	struct pmr_msgbuf *req;
	uint64_t deadline;
	unsigned int i;
	int s, st;

	(void)state;
	nx = pmr_nexus_create("127.0.0.1:0", &nconf);
	assert_non_null(nx);
	assert_int_equal(pmr_nexus_register_handler(nx, E2E_REQ, e2e_handler,
			NULL), 0);
	conf.worker_id = 0;
	srv = pmr_worker_create(nx, &conf);
	if (srv == NULL)
		fail_msg("server worker: %s", rte_strerror(rte_errno));
	conf.worker_id = 1;
	cli = pmr_worker_create(nx, &conf);
	assert_non_null(cli);
	memset(&ev, 0, sizeof(ev));
	s = pmr_session_create(cli, pmr_nexus_uri(nx), 0, pmr_test_on_session,
			&ev);
	assert_true(s >= 0);
	deadline = pmr_test_now_ns() + PMR_TEST_WAIT_NS;
	while (ev.count == 0 && pmr_test_now_ns() < deadline) {
		pmr_worker_poll(srv);
		pmr_worker_poll(cli);
	}
	assert_int_equal(ev.count, 1);
	assert_int_equal(ev.ev, PMR_SESSION_EV_CONNECTED);
	for (i = 0; i < 2; i++) {
		uint32_t len = i == 0 ? 100 : 5000;

		st = 0;
		req = pmr_worker_msgbuf_alloc(cli, len);
		assert_non_null(req);
		memset(req->data, 0x5a, len);
		assert_int_equal(pmr_request(cli, s, E2E_REQ, req,
				e2e_on_reply, &st), 0);
		while (st == 0 && pmr_test_now_ns() < deadline) {
			pmr_worker_poll(srv);
			pmr_worker_poll(cli);
		}
		assert_int_equal(st, (int)len);
	}
	assert_int_equal(pmr_worker_destroy(cli), 0);
	assert_int_equal(pmr_worker_destroy(srv), 0);
	assert_int_equal(pmr_nexus_destroy(nx), 0);
}

static int
setup(void **state)
{
	if (pmr_test_eal_setup(state) != 0)
		return -1;
	drv = pmr_transport_find("verbs");
	pool = pmr_msgbuf_pool_create("vr_pool", 511, 0, 2048, 64,
			SOCKET_ID_ANY);
	return drv != NULL && pool != NULL ? 0 : -1;
}

static int
teardown(void **state)
{
	pmr_msgbuf_pool_free(pool);
	return pmr_test_eal_teardown(state);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exchange),
		cmocka_unit_test(test_e2e_rpc),
	};
	const char *dev = getenv("PMR_VERBS_DEV");
	char path[128];
	FILE *f;

	if (dev == NULL)
		dev = "rxe0";
	/* No device, no test: 77 (the VM's harness checks it exists). */
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s", dev);
	f = fopen(path, "r");
	if (f == NULL) {
		fprintf(stderr, "no %s: skipped\n", path);
		return 77;
	}
	fclose(f);
	snprintf(devargs, sizeof(devargs), "dev=%s", dev);
	return cmocka_run_group_tests_name("verbs_real", tests, setup,
		teardown);
}
