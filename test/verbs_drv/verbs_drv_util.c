/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#include <string.h>

#include <rte_common.h>

#include "pmr_test.h"
#include "pmr_test_rpc.h"
#include "verbs_drv_util.h"

uint64_t
vd_xstat(struct pmr_transport_queue *q, const char *name)
{
	struct pmr_transport_xstat xs[128];
	int i, n = pmr_transport_xstats_get(q, xs, RTE_DIM(xs));

	assert_true(n > 0 && n <= (int)RTE_DIM(xs));
	for (i = 0; i < n; i++)
		if (strcmp(xs[i].name, name) == 0)
			return xs[i].value;
	fail_msg("no xstat %s", name);
	return 0;
}

struct pmr_transport_peer *
vd_peer_to(struct pmr_transport_queue *from, struct pmr_transport_queue *to)
{
	struct pmr_transport_addr addr;
	struct pmr_transport_peer *p;

	assert_int_equal(pmr_transport_queue_addr(to, &addr), 0);
	p = pmr_transport_peer_create(from, &addr);
	assert_non_null(p);
	return p;
}

void
vd_fill(uint8_t *d, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		d[i] = (uint8_t)(seed * 131 + i * 7 + 3);
}

void
vd_quiesce(struct pmr_transport_queue *a, struct pmr_transport_queue *b,
		unsigned int tries)
{
	uint64_t deadline = pmr_test_now_ns() + PMR_TEST_WAIT_NS;
	struct pmr_rx_pkt rx[PMR_BURST_MAX];
	int fa = 1, fb = 1;
	unsigned int i;
	uint16_t n;

	for (i = 0; tries == 0 || i < tries; i++) {
		if (tries == 0 && pmr_test_now_ns() > deadline)
			break;
		fa = pmr_transport_tx_flush(a);
		fb = pmr_transport_tx_flush(b);
		assert_true(fa >= 0 && fb >= 0);
		n = pmr_transport_rx_burst(a, rx, PMR_BURST_MAX);
		pmr_transport_rx_release(a, rx, n);
		n = pmr_transport_rx_burst(b, rx, PMR_BURST_MAX);
		pmr_transport_rx_release(b, rx, n);
		if (fa == 0 && fb == 0)
			break;
	}
	/* 0: the driver says it holds nothing, and it does not. */
	assert_int_equal(fa, 0);
	assert_int_equal(fb, 0);
	assert_int_equal(vd_xstat(a, "tx_held"), 0);
	assert_int_equal(vd_xstat(b, "tx_held"), 0);
}
