/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * drv-latency: a driver-level ping-pong between two queues of --driver:
 * eth over an in-process ring pair, verbs (or another driver) two queues
 * made from --driver-args (two QPs of one device). The server lcore
 * echoes each packet from a fresh msgbuf; the client sends one packet at
 * a time and waits for its echo. This is the transport's share of an
 * RPC's round trip.
 */

#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_ring.h>

#include "pmr_msgbuf.h"
#include "pmr_transport.h"
#include "rpcperf.h"

#define SENT_MAX 64	/* server msgbufs waiting for zero-copy release */

struct drv_pair {
	struct rte_ring *ab, *ba;
	int port_a, port_b;
	struct pmr_transport_queue *qa, *qb;
	struct pmr_transport_peer *a_to_b, *b_to_a;
	struct rte_mempool *pool_a, *pool_b;
	bool stop;
	int server_err;
};

static int
drv_server(void *arg)
{
	struct drv_pair *dp = arg;
	struct pmr_rx_pkt rx[PMR_BURST_MAX];
	struct pmr_msgbuf *sent[SENT_MAX];
	unsigned int head = 0, tail = 0;
	uint16_t nb, i;

	while (!__atomic_load_n(&dp->stop, __ATOMIC_RELAXED)) {
		/* Free echoes the client's side has let go of, in order. */
		while (head != tail &&
		       pmr_msgbuf_tx_pending(sent[head % SENT_MAX]) == 0)
			pmr_msgbuf_free(sent[head++ % SENT_MAX]);
		/*
		 * All held: a driver that signals one send in N (verbs)
		 * lets go of them only once asked to flush.
		 */
		if (tail - head == SENT_MAX) {
			pmr_transport_tx_flush(dp->qb);
			continue;
		}
		nb = pmr_transport_rx_burst(dp->qb, rx, PMR_BURST_MAX);
		for (i = 0; i < nb; i++) {
			struct pmr_msgbuf *mb;
			struct pmr_tx_pkt pkt;

			mb = pmr_msgbuf_alloc(dp->pool_b, rx[i].len);
			if (mb == NULL || tail - head == SENT_MAX) {
				pmr_msgbuf_free(mb);
				dp->server_err = -ENOBUFS;
				pmr_transport_rx_release(dp->qb, &rx[i], 1);
				continue;
			}
			memcpy(mb->data, rx[i].data, rx[i].len);
			pmr_transport_rx_release(dp->qb, &rx[i], 1);
			pkt = (struct pmr_tx_pkt){ .peer = dp->b_to_a,
				.mb = mb, .data = mb->data, .len = mb->len };
			while (pmr_transport_tx_burst(dp->qb, &pkt, 1) == 0)
				;
			sent[tail++ % SENT_MAX] = mb;
		}
	}
	while (head != tail) {
		while (pmr_msgbuf_tx_pending(sent[head % SENT_MAX]) != 0)
			pmr_transport_tx_flush(dp->qb);
		pmr_msgbuf_free(sent[head++ % SENT_MAX]);
	}
	return 0;
}

static void
drv_pair_down(struct drv_pair *dp)
{
	struct pmr_rx_pkt rx[PMR_BURST_MAX];
	uint16_t nb;

	if (dp->qa != NULL)
		while ((nb = pmr_transport_rx_burst(dp->qa, rx,
				PMR_BURST_MAX)) > 0)
			pmr_transport_rx_release(dp->qa, rx, nb);
	if (dp->qb != NULL)
		while ((nb = pmr_transport_rx_burst(dp->qb, rx,
				PMR_BURST_MAX)) > 0)
			pmr_transport_rx_release(dp->qb, rx, nb);
	pmr_transport_peer_destroy(dp->qa, dp->a_to_b);
	pmr_transport_peer_destroy(dp->qb, dp->b_to_a);
	pmr_transport_queue_destroy(dp->qa);
	pmr_transport_queue_destroy(dp->qb);
	if (dp->pool_a != NULL && pmr_msgbuf_pool_free(dp->pool_a) != 0)
		fprintf(stderr, "rpcperf: client msgbufs leaked\n");
	if (dp->pool_b != NULL && pmr_msgbuf_pool_free(dp->pool_b) != 0)
		fprintf(stderr, "rpcperf: server msgbufs leaked\n");
	/* The queues closed their ports; close any left, free the rings. */
	if (dp->qa == NULL && dp->port_a >= 0)
		rte_eth_dev_close((uint16_t)dp->port_a);
	if (dp->qb == NULL && dp->port_b >= 0)
		rte_eth_dev_close((uint16_t)dp->port_b);
	rte_ring_free(dp->ab);
	rte_ring_free(dp->ba);
}

/* Not eth: two queues from --driver-args alone. */
static int
drv_queues_up(const struct rpcperf_config *cfg, struct drv_pair *dp)
{
	const struct pmr_transport_driver *drv =
		pmr_transport_find(cfg->driver);

	dp->qa = pmr_transport_queue_create(drv, cfg->driver_args,
			(int)rte_socket_id());
	dp->qb = pmr_transport_queue_create(drv, cfg->driver_args,
			(int)rte_socket_id());
	if (dp->qa == NULL || dp->qb == NULL) {
		fprintf(stderr, "rpcperf: %s queue on '%s': %s\n", cfg->driver,
			cfg->driver_args, rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

static int
drv_pair_up(const struct rpcperf_config *cfg, struct drv_pair *dp)
{
	const struct pmr_transport_driver *eth = pmr_transport_find("eth");
	struct pmr_transport_addr addr_a, addr_b;
	struct pmr_transport_caps caps;
	static unsigned int seq;	/* ethdev names stay taken */
	char args[256], name[32];
	int ret;

	seq++;
	if (strcmp(cfg->driver, "eth") != 0) {
		ret = drv_queues_up(cfg, dp);
		if (ret != 0)
			return ret;
		goto queues;
	}
	snprintf(name, sizeof(name), "rpcperf_dab%u", seq);
	dp->ab = rte_ring_create(name, 1024, rte_socket_id(),
			RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "rpcperf_dba%u", seq);
	dp->ba = rte_ring_create(name, 1024, rte_socket_id(),
			RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (eth == NULL || dp->ab == NULL || dp->ba == NULL)
		return -ENOMEM;
	snprintf(name, sizeof(name), "rpcperf_da%u", seq);
	dp->port_a = rte_eth_from_rings(name, &dp->ba, 1, &dp->ab, 1,
			rte_socket_id());
	snprintf(name, sizeof(name), "rpcperf_db%u", seq);
	dp->port_b = rte_eth_from_rings(name, &dp->ab, 1, &dp->ba, 1,
			rte_socket_id());
	if (dp->port_a < 0 || dp->port_b < 0)
		return -ENODEV;

	snprintf(args, sizeof(args), "port=%d,ip=198.18.0.1%s%s", dp->port_a,
		cfg->driver_args[0] != '\0' ? "," : "", cfg->driver_args);
	dp->qa = pmr_transport_queue_create(eth, args, rte_socket_id());
	snprintf(args, sizeof(args), "port=%d,ip=198.18.0.2%s%s", dp->port_b,
		cfg->driver_args[0] != '\0' ? "," : "", cfg->driver_args);
	dp->qb = pmr_transport_queue_create(eth, args, rte_socket_id());
	if (dp->qa == NULL || dp->qb == NULL) {
		fprintf(stderr, "rpcperf: eth queue: %s\n",
			rte_strerror(rte_errno));
		return -rte_errno;
	}
queues:
	pmr_transport_queue_caps(dp->qa, &caps);
	if (cfg->size > caps.mtu) {
		fprintf(stderr, "rpcperf: drv-latency: --size=%u is over the "
			"payload MTU %u\n", cfg->size, caps.mtu);
		return -EMSGSIZE;
	}
	if (pmr_transport_queue_addr(dp->qa, &addr_a) != 0 ||
	    pmr_transport_queue_addr(dp->qb, &addr_b) != 0)
		return -EINVAL;
	dp->a_to_b = pmr_transport_peer_create(dp->qa, &addr_b);
	dp->b_to_a = pmr_transport_peer_create(dp->qb, &addr_a);
	snprintf(name, sizeof(name), "rpcperf_dcli%u", seq);
	dp->pool_a = pmr_msgbuf_pool_create(name, 256, 0, caps.mtu,
			caps.headroom, rte_socket_id());
	snprintf(name, sizeof(name), "rpcperf_dsrv%u", seq);
	dp->pool_b = pmr_msgbuf_pool_create(name, 256, 32, caps.mtu,
			caps.headroom, rte_socket_id());
	if (dp->a_to_b == NULL || dp->b_to_a == NULL || dp->pool_a == NULL ||
	    dp->pool_b == NULL)
		return -ENOMEM;
	/* Each queue sends from its pool (a no-op on eth). */
	ret = pmr_transport_mem_register(dp->qa, dp->pool_a);
	if (ret == 0)
		ret = pmr_transport_mem_register(dp->qb, dp->pool_b);
	if (ret != 0)
		fprintf(stderr, "rpcperf: drv-latency: registering the "
			"pools: %s\n", strerror(-ret));
	return ret;
}

static int
drv_latency_run(const struct rpcperf_config *cfg, struct rpcperf_samples *s)
{
	struct drv_pair dp = { .port_a = -1, .port_b = -1 };
	struct pmr_msgbuf *req = NULL;
	struct pmr_tx_pkt pkt;
	struct pmr_rx_pkt rx;
	uint64_t i, t0, start = 0;
	int ret;

	ret = drv_pair_up(cfg, &dp);
	if (ret != 0)
		goto out;
	req = pmr_msgbuf_alloc(dp.pool_a, cfg->size);
	if (req == NULL) {
		ret = -ENOBUFS;
		goto out;
	}
	memset(req->data, 0xa5, req->len);
	pkt = (struct pmr_tx_pkt){ .peer = dp.a_to_b, .mb = req,
		.data = req->data, .len = req->len };
	if (rte_eal_remote_launch(drv_server, &dp,
			cfg->server_lcores[0]) != 0) {
		fprintf(stderr, "rpcperf: lcore %u is busy\n",
			cfg->server_lcores[0]);
		ret = -EBUSY;
		goto out;
	}
	for (i = 0; i < cfg->warmup + cfg->iters; i++) {
		if (i == cfg->warmup)
			start = rte_rdtsc();
		/*
		 * The echo arrived: on eth the server has let go of req;
		 * a driver that signals one send in N holds it until asked
		 * to flush (verbs, when req was not sent inline).
		 */
		while (pmr_msgbuf_tx_pending(req) != 0)
			pmr_transport_tx_flush(dp.qa);
		req->data[0] = (uint8_t)i;
		t0 = rte_rdtsc();
		while (pmr_transport_tx_burst(dp.qa, &pkt, 1) == 0)
			;
		while (pmr_transport_rx_burst(dp.qa, &rx, 1) == 0)
			;
		if (i >= cfg->warmup)
			rpcperf_sample_add(s, rte_rdtsc() - t0);
		rpcperf_progress(cfg, s->workload, i + 1,
				cfg->warmup + cfg->iters);
		if (rx.len != req->len || (rx.len > 0 &&
				rx.data[0] != (uint8_t)i)) {
			fprintf(stderr, "rpcperf: drv-latency: bad echo\n");
			pmr_transport_rx_release(dp.qa, &rx, 1);
			ret = -EIO;
			break;
		}
		pmr_transport_rx_release(dp.qa, &rx, 1);
	}
	s->elapsed = rte_rdtsc() - start;
	__atomic_store_n(&dp.stop, true, __ATOMIC_RELAXED);
	rte_eal_wait_lcore(cfg->server_lcores[0]);
	if (ret == 0 && dp.server_err != 0)
		ret = dp.server_err;
out:
	if (req != NULL) {
		while (pmr_msgbuf_tx_pending(req) != 0)
			pmr_transport_tx_flush(dp.qa);
		pmr_msgbuf_free(req);
	}
	drv_pair_down(&dp);
	if (ret != 0)
		fprintf(stderr, "rpcperf: drv-latency: %s\n", strerror(-ret));
	return ret;
}

const struct rpcperf_workload rpcperf_wl_drv_latency = {
	.name = "drv-latency",
	.help = "driver ping-pong: eth over a ring pair, verbs two QPs",
	.one_at_a_time = true,
	.run = drv_latency_run,
};
