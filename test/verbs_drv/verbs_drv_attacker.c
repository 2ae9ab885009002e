/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * A hostile sender on the model's fabric (verbs_drv_attacker.h): a UD QP
 * of the test's own on any device, with the server worker's QPN and QKey.
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include <rte_common.h>

#include "pmr_hca.h"
#include "pmr_pkthdr.h"
#include "pmr_test.h"
#include "pmr_test_rpc.h"
#include "pmr_transport.h"
#include "verbs_drv_attacker.h"
#include "verbs_drv_util.h"

static uint64_t hostile_rng = 0x9e3779b97f4a7c15ull;

static uint64_t
hostile_rand(void)
{
	hostile_rng ^= hostile_rng << 13;
	hostile_rng ^= hostile_rng >> 7;
	hostile_rng ^= hostile_rng << 17;
	return hostile_rng;
}

struct attacker {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	uint8_t buf[VD_ATTACKER_MAX];
};

static void
attacker_up(struct attacker *a, const char *dev, const uint8_t gid[16])
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;
	struct ibv_ah_attr ah;
	struct ibv_device **list;
	int n, i;

	list = ibv_get_device_list(&n);
	assert_non_null(list);
	for (i = 0; i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), dev) == 0)
			break;
	assert_true(i < n);
	a->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	assert_non_null(a->ctx);
	a->pd = ibv_alloc_pd(a->ctx);
	a->cq = ibv_create_cq(a->ctx, 64, NULL, NULL, 0);
	assert_non_null(a->pd);
	assert_non_null(a->cq);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = a->cq;
	ia.recv_cq = a->cq;
	ia.qp_type = IBV_QPT_UD;
	ia.cap.max_send_wr = 32;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	a->qp = ibv_create_qp(a->pd, &ia);
	assert_non_null(a->qp);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = 1;
	qa.qkey = 0x1234;
	assert_int_equal(ibv_modify_qp(a->qp, &qa, IBV_QP_STATE |
			IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY), 0);
	qa.qp_state = IBV_QPS_RTR;
	assert_int_equal(ibv_modify_qp(a->qp, &qa, IBV_QP_STATE), 0);
	qa.qp_state = IBV_QPS_RTS;
	assert_int_equal(ibv_modify_qp(a->qp, &qa, IBV_QP_STATE |
			IBV_QP_SQ_PSN), 0);
	a->mr = ibv_reg_mr(a->pd, a->buf, sizeof(a->buf), 0);
	assert_non_null(a->mr);
	memset(&ah, 0, sizeof(ah));
	ah.is_global = 1;
	memcpy(ah.grh.dgid.raw, gid, 16);
	ah.grh.sgid_index = 1;
	ah.grh.hop_limit = 64;
	ah.port_num = 1;
	a->ah = ibv_create_ah(a->pd, &ah);
	assert_non_null(a->ah);
}

static void
attacker_send(struct attacker *a, uint32_t len, uint32_t qpn, uint32_t qkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)a->buf, .length = len,
		.lkey = a->mr->lkey };
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_wc wc;

	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = len != 0;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = a->ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = qkey;
	assert_int_equal(ibv_post_send(a->qp, &wr, &bad), 0);
	/* One at a time: the buffer is rewritten for the next. */
	while (ibv_poll_cq(a->cq, 1, &wc) == 0)
		;
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
}

static void
attacker_down(struct attacker *a)
{
	assert_int_equal(ibv_destroy_ah(a->ah), 0);
	assert_int_equal(ibv_destroy_qp(a->qp), 0);
	assert_int_equal(ibv_dereg_mr(a->mr), 0);
	assert_int_equal(ibv_destroy_cq(a->cq), 0);
	assert_int_equal(ibv_dealloc_pd(a->pd), 0);
	assert_int_equal(ibv_close_device(a->ctx), 0);
}

/* The k-th datagram's length: up to max_len; past 1024, every second
 * one over it, the first two at the edges (max_len, then 1025). */
static uint32_t
hostile_len(unsigned int k, uint32_t max_len)
{
	if (max_len <= 1024)
		return (uint32_t)(hostile_rand() % (max_len + 1));
	if (k == 0)
		return max_len;
	if (k == 1)
		return 1025;
	if (k % 2 == 1)
		return 1025 + (uint32_t)(hostile_rand() % (max_len - 1024));
	return (uint32_t)(hostile_rand() % (max_len + 1));
}

void
vd_hostile_run(struct vd_e2e *e, const char *dev, uint32_t max_len,
		unsigned int n)
{
	struct pmr_worker_stats sst0, sst;
	struct pmr_transport_addr addr;
	struct pmr_transport_queue *q = pmr_worker_queue(e->srv);
	struct pmr_hca_counters c;
	struct pmr_transport_caps caps;
	struct attacker *a;
	struct vd_e2e_reply r;
	struct pmr_msgbuf *req;
	uint32_t qpn, qkey, wrong_qkey = 0, rpcs = 0, len, over = 0;
	uint32_t largest = 0;
	uint64_t delivered, drv_drops;
	unsigned int k;

	assert_true(max_len <= VD_ATTACKER_MAX);
	pmr_transport_queue_caps(q, &caps);
	/* The server queue's QPN and QKey, as an on-path attacker sees. */
	assert_int_equal(pmr_transport_queue_addr(q, &addr), 0);
	qpn = (uint32_t)addr.bytes[4] << 24 | (uint32_t)addr.bytes[5] << 16 |
		(uint32_t)addr.bytes[6] << 8 | addr.bytes[7];
	qkey = (uint32_t)addr.bytes[8] << 24 | (uint32_t)addr.bytes[9] << 16 |
		(uint32_t)addr.bytes[10] << 8 | addr.bytes[11];
	a = calloc(1, sizeof(*a));
	assert_non_null(a);
	attacker_up(a, dev, addr.bytes + 12);
	pmr_hca_counters_reset();
	pmr_worker_stats_get(e->srv, &sst0);

	for (k = 0; k < n; k++) {
		struct pmr_pkthdr h;
		unsigned int i, kind = k % 8;

		len = hostile_len(k, max_len);
		for (i = 0; i < len; i++)
			a->buf[i] = (uint8_t)hostile_rand();
		if (kind >= 2 && kind < 7 && len < PMR_PKTHDR_LEN)
			len = PMR_PKTHDR_LEN + len;
		if (kind >= 2 && kind < 7) {
			/* A pmrpc header, fields random, at the session. */
			memset(&h, 0, sizeof(h));
			h.pkt_type = (uint8_t)(hostile_rand() % 8);
			h.req_type = VD_E2E_REQ;
			h.dest_session = (uint16_t)(hostile_rand() % 3);
			h.pkt_num = (uint16_t)(hostile_rand() % 4);
			h.msg_size = kind == 2 ? len - PMR_PKTHDR_LEN :
				(uint32_t)hostile_rand() % 70000;
			h.token = hostile_rand();
			h.req_num = hostile_rand() & 0xffff;
			pmr_pkthdr_encode(a->buf, &h);
			if (kind == 6)	/* and one bit flipped */
				a->buf[hostile_rand() % PMR_PKTHDR_LEN] ^=
					(uint8_t)(1u << (hostile_rand() % 8));
		}
		if (kind == 7) {	/* the device drops it */
			attacker_send(a, len, qpn, qkey ^ 0x5a5a);
			wrong_qkey++;
		} else {
			attacker_send(a, len, qpn, qkey);
			over += len > caps.mtu;
			largest = RTE_MAX(largest, len);
		}
		pmr_worker_poll(e->srv);
		/* An RPC every 16 datagrams, checked. */
		if (k % 16 == 15) {
			memset(&r, 0, sizeof(r));
			len = k % 64 == 63 ? 3000 : 40;
			req = pmr_worker_msgbuf_alloc(e->cli, len);
			assert_non_null(req);
			memset(req->data, 0x5a, len);
			assert_int_equal(pmr_request(e->cli, e->s, VD_E2E_REQ,
					req, vd_e2e_on_reply, &r), 0);
			while (r.done == 0) {
				if (pmr_test_now_ns() > e->deadline)
					fail_msg("RPC %u (after datagram %u) "
						"not answered", rpcs, k);
				pmr_worker_poll(e->srv);
				pmr_worker_poll(e->cli);
			}
			if (r.status != PMR_OK)
				fail_msg("RPC %u (after datagram %u, the "
					"largest yet %u bytes): status %d",
					rpcs, k, largest, r.status);
			assert_int_equal(r.len, len);
			assert_int_equal(r.first, 0x5a ^ 0xff);
			rpcs++;
		}
	}
	for (k = 0; k < 64; k++)
		pmr_worker_poll(e->srv);

	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	assert_int_equal(c.drop_qkey, wrong_qkey);
	/* Nothing lost on the way: the device placed every other one. */
	assert_int_equal(c.drop_too_long, 0);
	pmr_worker_stats_get(e->srv, &sst);
	/* Only the client's requests reached the handler. */
	assert_int_equal(sst.reqs_handled - sst0.reqs_handled, rpcs);
	/*
	 * Every datagram the device delivered was dropped by the driver
	 * (too short for a GRH; over the queue's MTU) or by the engine,
	 * each counted by reason.
	 */
	delivered = n - wrong_qkey;
	drv_drops = vd_xstat(q, "rx_drop_short");
	if (over > 0) {
		assert_int_equal(vd_xstat(q, "rx_drop_long"), over);
		drv_drops += over;
	}
	fprintf(stderr, "# %u datagrams to %u bytes (%u over the MTU), %"
		PRIu64 " delivered, %" PRIu64 " engine drops, %" PRIu64
		" driver drops, %u RPCs\n", n, max_len, over, delivered,
		sst.rx_drops - sst0.rx_drops, drv_drops, rpcs);
	assert_int_equal(sst.rx_drops - sst0.rx_drops + drv_drops, delivered);

	attacker_down(a);
	free(a);
}
