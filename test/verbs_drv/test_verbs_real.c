/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The verbs driver on a real device (rxe0 in the VM of devtools/vm/, or
 * PMR_VERBS_DEV): what test_verbs_drv.c checks on the model that does
 * not need the model's counters. Two queues on the device exchange
 * packets (inline, zero-copy, gathered headers), the flush leaves
 * nothing held, a peer destroyed with sends in flight loses its AH only
 * later. (The engine end to end on the real device is the engine suite's
 * "verbs" set-up: meson test vm_engine_verbs.) Exits 77 (skip) without
 * the device.
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
#include "verbs_drv_util.h"

static const struct pmr_transport_driver *drv;
static struct rte_mempool *pool;
static char devargs[64];




/* Flush and poll both until neither holds a msgbuf or a dead AH. */
static void
quiesce(struct pmr_transport_queue *a, struct pmr_transport_queue *b)
{
	vd_quiesce(a, b, 0);
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
	a2b = vd_peer_to(a, b);
	b2a = vd_peer_to(b, a);
	vd_fill(hdr, sizeof(hdr), 77);

	for (round = 0; round < 8; round++) {
		/* Inline-sized, then zero-copy; every other with hdr. */
		uint32_t len = (round & 1) ? 40 : 600 + round;
		uint16_t n = 0;

		assert_int_equal(pmr_msgbuf_alloc_bulk(pool, mbs,
				PMR_BURST_MAX, len), 0);
		for (i = 0; i < PMR_BURST_MAX; i++) {
			vd_fill(pmr_msgbuf_data(mbs[i]), len, round * 64 + i);
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
				vd_fill(want + h, len, round * 64 + got);
				assert_memory_equal(rx[i].data, want, h + len);
				assert_true(rx[i].src == b2a->src);
			}
			pmr_transport_rx_release(b, rx, k);
		}
		quiesce(a, b);
		for (i = 0; i < PMR_BURST_MAX; i++)
			assert_int_equal(pmr_msgbuf_free(mbs[i]), 0);
	}
	assert_true(vd_xstat(a, "tx_inline") > 0);
	assert_true(vd_xstat(a, "tx_signaled") < 8 * PMR_BURST_MAX);

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
	assert_int_equal(vd_xstat(a, "ahs_live"), 0);
	assert_int_equal(vd_xstat(a, "ah_destroy_busy"), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(pmr_msgbuf_free(mbs[i]), 0);
	pmr_transport_peer_destroy(b, b2a);
	quiesce(a, b);
	assert_int_equal(vd_xstat(b, "ahs_live"), 0);
	assert_int_equal(vd_xstat(b, "ah_destroy_busy"), 0);
	pmr_transport_queue_destroy(a);
	pmr_transport_queue_destroy(b);
	assert_true(pmr_msgbuf_pool_full(pool));
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
