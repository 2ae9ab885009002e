/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The software HCA model's own unit tests (issue 14): what the conformance
 * suite cannot see from outside the device: its counters, injected
 * faults, step mode and its determinism, and the strict points asserted
 * through the counters. Linked against the model only (no libibverbs).
 */

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <infiniband/verbs.h>

#include "pmr_hca.h"

#define QKEY 0x22220000u
#define SLOT (40 + 1024)
#define NRECV 16

static struct {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *s, *r;
	struct ibv_ah *ah;
	union ibv_gid ah_attr_gid;
	struct ibv_mr *smr, *rmr;
	uint8_t sbuf[4096];
	uint8_t rbuf[NRECV * SLOT];
} e;

static void
to_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
		.qkey = QKEY };

	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE |
		IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY), 0);
	a.qp_state = IBV_QPS_RTR;
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0);
	a.qp_state = IBV_QPS_RTS;
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE |
		IBV_QP_SQ_PSN), 0);
}

static struct ibv_qp *
mk_qp(uint32_t swr, uint32_t inl)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = e.scq, .recv_cq = e.rcq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = swr, .max_recv_wr = NRECV,
			.max_send_sge = 1, .max_recv_sge = 1,
			.max_inline_data = inl },
	};
	struct ibv_qp *qp = ibv_create_qp(e.pd, &ia);

	assert_non_null(qp);
	to_rts(qp);
	return qp;
}

static int
setup(void **state)
{
	struct ibv_device **l;
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_gid_entry g;
	int n;

	(void)state;
	memset(&e, 0, sizeof(e));
	l = ibv_get_device_list(&n);
	assert_non_null(l);
	assert_int_equal(n, 1);
	e.ctx = ibv_open_device(l[0]);
	ibv_free_device_list(l);
	assert_non_null(e.ctx);
	e.pd = ibv_alloc_pd(e.ctx);
	e.scq = ibv_create_cq(e.ctx, 64, NULL, NULL, 0);
	e.rcq = ibv_create_cq(e.ctx, 64, NULL, NULL, 0);
	assert_non_null(e.pd);
	assert_non_null(e.scq);
	assert_non_null(e.rcq);
	e.s = mk_qp(4, 64);
	e.r = mk_qp(4, 0);
	/* GID 1: the IPv4-mapped one */
	assert_int_equal(ibv_query_gid_ex(e.ctx, 1, 1, &g, 0), 0);
	aa.grh.dgid = g.gid;
	e.ah_attr_gid = g.gid;
	aa.grh.sgid_index = 1;
	aa.grh.hop_limit = 64;
	e.ah = ibv_create_ah(e.pd, &aa);
	assert_non_null(e.ah);
	e.smr = ibv_reg_mr(e.pd, e.sbuf, sizeof(e.sbuf),
		IBV_ACCESS_LOCAL_WRITE);
	e.rmr = ibv_reg_mr(e.pd, e.rbuf, sizeof(e.rbuf),
		IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(e.smr);
	assert_non_null(e.rmr);
	pmr_hca_fault(0, 0, 0);
	pmr_hca_step_mode(0);
	pmr_hca_counters_reset();
	return 0;
}

static int
teardown(void **state)
{
	struct ibv_wc wc[64];

	(void)state;
	/* Drain, so that the AH is free again, then destroy. */
	while (ibv_poll_cq(e.scq, 64, wc) > 0 || ibv_poll_cq(e.rcq, 64, wc) >
			0)
		;
	ibv_destroy_qp(e.s);
	ibv_destroy_qp(e.r);
	assert_int_equal(ibv_destroy_ah(e.ah), 0);
	ibv_dereg_mr(e.smr);
	ibv_dereg_mr(e.rmr);
	ibv_destroy_cq(e.scq);
	ibv_destroy_cq(e.rcq);
	assert_int_equal(ibv_dealloc_pd(e.pd), 0);
	ibv_close_device(e.ctx);
	pmr_hca_step_mode(0);
	pmr_hca_fault(0, 0, 0);
	return 0;
}

static void
recvs(uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)(e.rbuf + i * SLOT),
			.length = SLOT, .lkey = e.rmr->lkey };
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge,
			.num_sge = 1 }, *bad;

		assert_int_equal(ibv_post_recv(e.r, &wr, &bad), 0);
	}
}

/* One UD send of len bytes from p (lkey, or inline). */
static int
send1(struct ibv_qp *qp, void *p, uint32_t len, unsigned int flags,
	uint32_t rqpn, uint32_t qkey, uint64_t id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)p, .length = len,
		.lkey = (flags & IBV_SEND_INLINE) ? 0 : e.smr->lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &sge,
		.num_sge = 1, .opcode = IBV_WR_SEND, .send_flags = flags },
		*bad;

	wr.wr.ud.ah = e.ah;
	wr.wr.ud.remote_qpn = rqpn;
	wr.wr.ud.remote_qkey = qkey;
	return ibv_post_send(qp, &wr, &bad);
}

static int
sendr(void *p, uint32_t len, unsigned int flags, uint64_t id)
{
	return send1(e.s, p, len, flags, e.r->qp_num, QKEY, id);
}

static int
poll_all(struct ibv_cq *cq, struct ibv_wc *wc, int max)
{
	return ibv_poll_cq(cq, max, wc);
}

/* Posts, WQE kinds, the SQ high-water mark, packets, as the device
 * counts them, device-wide and per QP. */
static void
test_counters(void **state)
{
	struct pmr_hca_counters c, q;
	struct ibv_send_wr wr[3], *bad;
	struct ibv_sge sge = { .addr = (uintptr_t)e.sbuf, .length = 8 };
	struct ibv_wc wc[16];
	struct ibv_qp fake;
	int i;

	(void)state;
	sge.lkey = e.smr->lkey;
	recvs(4);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 3; i++) {
		wr[i].wr_id = (uint64_t)i;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].wr.ud.ah = e.ah;
		wr[i].wr.ud.remote_qpn = e.r->qp_num;
		wr[i].wr.ud.remote_qkey = QKEY;
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}
	wr[2].send_flags = IBV_SEND_SIGNALED;
	assert_int_equal(ibv_post_send(e.s, wr, &bad), 0);	/* one call */
	assert_int_equal(sendr(e.sbuf, 16, IBV_SEND_INLINE |
		IBV_SEND_SIGNALED, 9), 0);
	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	assert_int_equal(c.post_send_calls, 2);
	assert_int_equal(c.post_recv_calls, 4);
	assert_int_equal(c.wqe_unsignaled, 2);
	assert_int_equal(c.wqe_signaled, 2);
	assert_int_equal(c.wqe_inline, 1);
	assert_int_equal(c.sq_high_water, 4);
	assert_int_equal(c.tx_packets, 0);	/* nothing polled yet */
	assert_int_equal(poll_all(e.rcq, wc, 16), 4);
	assert_int_equal(poll_all(e.scq, wc, 16), 2);
	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	assert_int_equal(c.tx_packets, 4);
	assert_int_equal(c.rx_packets, 4);
	assert_int_equal(pmr_hca_counters_get(e.s, &q), 0);
	assert_int_equal(q.post_send_calls, 2);
	assert_int_equal(q.wqe_signaled, 2);
	assert_int_equal(q.sq_high_water, 4);
	assert_int_equal(pmr_hca_counters_get(e.r, &q), 0);
	assert_int_equal(q.rx_packets, 4);
	assert_int_equal(q.post_send_calls, 0);
	memset(&fake, 0, sizeof(fake));
	assert_int_equal(pmr_hca_counters_get(&fake, &q), EINVAL);
	pmr_hca_counters_reset();
	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	assert_int_equal(c.post_send_calls + c.tx_packets + c.sq_high_water,
		0);
}

/* Strict: unsignalled WQEs hold their slots until a later signalled
 * completion is polled; without one the SQ overflows (ENOMEM), also
 * after every packet went out and every CQ was polled. */
static void
test_sq_never_signalled(void **state)
{
	struct pmr_hca_counters c;
	struct ibv_wc wc[16];
	int i;

	(void)state;
	recvs(8);
	for (i = 0; i < 4; i++)
		assert_int_equal(sendr(e.sbuf, 8, 0, (uint64_t)i), 0);
	assert_int_equal(poll_all(e.rcq, wc, 16), 4);	/* delivered */
	assert_int_equal(poll_all(e.scq, wc, 16), 0);
	assert_int_equal(sendr(e.sbuf, 8, 0, 4), ENOMEM);
	assert_int_equal(pmr_hca_counters_get(e.s, &c), 0);
	assert_int_equal(c.sq_full, 1);
	assert_int_equal(c.sq_high_water, 4);
	/* The same with the last one signalled: its poll frees all. */
	assert_int_equal(ibv_destroy_qp(e.s), 0);
	e.s = mk_qp(4, 64);
	for (i = 0; i < 4; i++)
		assert_int_equal(sendr(e.sbuf, 8, i == 3 ?
			IBV_SEND_SIGNALED : 0, (uint64_t)i), 0);
	assert_int_equal(sendr(e.sbuf, 8, 0, 4), ENOMEM);
	assert_int_equal(poll_all(e.scq, wc, 16), 1);
	for (i = 0; i < 4; i++)
		assert_int_equal(sendr(e.sbuf, 8, i == 3 ?
			IBV_SEND_SIGNALED : 0, (uint64_t)i), 0);
}

/* Strict: the payload is read when the WQE executes, not at the post;
 * an inline payload is the WQE's own copy. */
static void
test_payload_read_late(void **state)
{
	struct ibv_wc wc[4];
	uint8_t inl[16];

	(void)state;
	recvs(2);
	memset(e.sbuf, 'A', 8);
	assert_int_equal(sendr(e.sbuf, 8, IBV_SEND_SIGNALED, 1), 0);
	memset(e.sbuf, 'B', 8);		/* reused too early */
	memset(inl, 'I', sizeof(inl));
	assert_int_equal(sendr(inl, sizeof(inl), IBV_SEND_INLINE |
		IBV_SEND_SIGNALED, 2), 0);
	memset(inl, 'J', sizeof(inl));	/* inline: allowed */
	assert_int_equal(poll_all(e.rcq, wc, 4), 2);
	assert_int_equal(e.rbuf[40], 'B');
	assert_int_equal(e.rbuf[40 + 7], 'B');
	assert_int_equal(e.rbuf[SLOT + 40], 'I');
	assert_int_equal(e.rbuf[SLOT + 40 + 15], 'I');
}

/* Step mode: polls execute nothing; pmr_hca_step() executes WQEs one by
 * one, in posting order. */
static void
test_step_mode(void **state)
{
	struct ibv_wc wc[4];

	(void)state;
	recvs(3);
	pmr_hca_step_mode(1);
	assert_int_equal(sendr(e.sbuf, 8, IBV_SEND_SIGNALED, 1), 0);
	assert_int_equal(sendr(e.sbuf, 8, IBV_SEND_SIGNALED, 2), 0);
	assert_int_equal(poll_all(e.rcq, wc, 4), 0);
	assert_int_equal(poll_all(e.scq, wc, 4), 0);
	assert_int_equal(pmr_hca_pending(), 2);
	assert_int_equal(pmr_hca_step(1), 1);
	assert_int_equal(pmr_hca_pending(), 1);
	assert_int_equal(poll_all(e.scq, wc, 4), 1);
	assert_int_equal(wc[0].wr_id, 1);
	assert_int_equal(poll_all(e.rcq, wc, 4), 1);
	assert_int_equal(wc[0].wr_id, 0);
	assert_int_equal(pmr_hca_step(5), 1);
	assert_int_equal(pmr_hca_step(5), 0);
	assert_int_equal(poll_all(e.scq, wc, 4), 1);
	assert_int_equal(wc[0].wr_id, 2);
	pmr_hca_step_mode(0);
	assert_int_equal(sendr(e.sbuf, 8, IBV_SEND_SIGNALED, 3), 0);
	assert_int_equal(poll_all(e.scq, wc, 4), 1);	/* polls run again */
}

/* Two runs from one seed give the same GRH bytes; another seed gives
 * other undefined bytes (random, not zero). */
static void
grh_run(uint64_t seed, int step, uint8_t *grh)
{
	struct ibv_wc wc[2];

	pmr_hca_seed(seed);
	recvs(1);
	assert_int_equal(sendr(e.sbuf, 8, IBV_SEND_SIGNALED, 1), 0);
	if (step) {
		assert_int_equal(poll_all(e.rcq, wc, 2), 0);
		assert_int_equal(pmr_hca_step(1), 1);
	}
	assert_int_equal(poll_all(e.rcq, wc, 2), 1);
	assert_int_equal(poll_all(e.scq, wc, 2), 1);
	memcpy(grh, e.rbuf, 40);
}

static void
test_step_determinism(void **state)
{
	uint8_t a[40], b[40], c[40], zero[20] = { 0 };

	(void)state;
	pmr_hca_step_mode(1);
	grh_run(42, 1, a);
	pmr_hca_step_mode(0);
	grh_run(42, 0, b);
	grh_run(43, 0, c);
	assert_memory_equal(a, b, 40);
	assert_memory_not_equal(a, c, 20);
	assert_memory_not_equal(a, zero, 20);
	assert_memory_equal(a + 20, c + 20, 20);	/* the IPv4 header */
}

static void
test_fault_drop(void **state)
{
	struct pmr_hca_counters c;
	struct ibv_wc wc[4];

	(void)state;
	recvs(2);
	pmr_hca_fault(1, 0, 0);
	e.sbuf[0] = 1;
	assert_int_equal(sendr(e.sbuf, 8, IBV_SEND_SIGNALED, 1), 0);
	assert_int_equal(poll_all(e.scq, wc, 4), 1);
	assert_int_equal(wc[0].status, IBV_WC_SUCCESS);	/* as on a wire */
	e.sbuf[0] = 2;
	assert_int_equal(sendr(e.sbuf, 8, IBV_SEND_SIGNALED, 2), 0);
	assert_int_equal(poll_all(e.scq, wc, 4), 1);
	assert_int_equal(poll_all(e.rcq, wc, 4), 1);
	assert_int_equal(e.rbuf[40], 2);
	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	assert_int_equal(c.drop_injected, 1);
	assert_int_equal(c.rx_packets, 1);
	assert_int_equal(c.tx_packets, 2);
}

static void
test_fault_dup(void **state)
{
	struct pmr_hca_counters c;
	struct ibv_wc wc[4];

	(void)state;
	recvs(3);
	pmr_hca_fault(0, 1, 0);
	e.sbuf[0] = 7;
	assert_int_equal(sendr(e.sbuf, 8, IBV_SEND_SIGNALED, 1), 0);
	assert_int_equal(poll_all(e.rcq, wc, 4), 2);
	assert_int_equal(poll_all(e.scq, wc, 4), 1);
	assert_int_equal(e.rbuf[40], 7);
	assert_int_equal(e.rbuf[SLOT + 40], 7);
	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	assert_int_equal(c.dup_injected, 1);
	assert_int_equal(c.rx_packets, 2);
}

static void
test_fault_fail(void **state)
{
	struct pmr_hca_counters c;
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	struct ibv_wc wc[4];

	(void)state;
	recvs(1);
	pmr_hca_fault(0, 0, 1);
	/* Unsignalled: an error completion is reported all the same. */
	assert_int_equal(sendr(e.sbuf, 8, 0, 1), 0);
	assert_int_equal(poll_all(e.scq, wc, 4), 1);
	assert_int_equal(wc[0].status, IBV_WC_GENERAL_ERR);
	assert_int_equal(poll_all(e.rcq, wc, 4), 0);
	assert_int_equal(ibv_query_qp(e.s, &a, IBV_QP_STATE, &ia), 0);
	assert_int_equal(a.qp_state, IBV_QPS_ERR);
	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	assert_int_equal(c.fail_injected, 1);
	assert_int_equal(c.rx_packets, 0);
}

/* Each kind of loss on the way is counted as the device's drop. */
static void
test_drop_counters(void **state)
{
	struct pmr_hca_counters c;
	struct ibv_wc wc[4];

	(void)state;
	/* No receive posted: UD has no RNR, the packet is lost. */
	assert_int_equal(sendr(e.sbuf, 8, IBV_SEND_SIGNALED, 1), 0);
	assert_int_equal(poll_all(e.scq, wc, 4), 1);
	recvs(1);
	assert_int_equal(send1(e.s, e.sbuf, 8, IBV_SEND_SIGNALED,
		e.r->qp_num, QKEY + 1, 2), 0);
	assert_int_equal(send1(e.s, e.sbuf, 8, IBV_SEND_SIGNALED,
		0xfffff0, QKEY, 3), 0);
	assert_int_equal(poll_all(e.scq, wc, 4), 2);
	assert_int_equal(poll_all(e.rcq, wc, 4), 0);
	assert_int_equal(pmr_hca_counters_get(e.s, &c), 0);
	assert_int_equal(c.drop_no_recv, 1);
	assert_int_equal(c.drop_qkey, 1);
	assert_int_equal(c.drop_no_qp, 1);
	assert_int_equal(c.rx_packets, 0);
	/* Over the path MTU: a local length error, not sent. */
	assert_int_equal(sendr(e.sbuf, 1025, 0, 4), 0);
	assert_int_equal(poll_all(e.scq, wc, 4), 1);
	assert_int_equal(wc[0].status, IBV_WC_LOC_LEN_ERR);
	assert_int_equal(pmr_hca_counters_get(e.s, &c), 0);
	assert_int_equal(c.drop_too_long, 1);
	assert_int_equal(poll_all(e.rcq, wc, 4), 0);
}

/* An AH is busy while a WQE not yet freed (by a polled signalled
 * completion) uses it, even once the packet went out. */
static void
test_ah_busy(void **state)
{
	struct ibv_wc wc[4];

	(void)state;
	recvs(2);
	assert_int_equal(sendr(e.sbuf, 8, 0, 1), 0);
	assert_int_equal(poll_all(e.rcq, wc, 4), 1);	/* delivered */
	assert_int_equal(ibv_destroy_ah(e.ah), EBUSY);
	assert_int_equal(sendr(e.sbuf, 8, IBV_SEND_SIGNALED, 2), 0);
	assert_int_equal(ibv_destroy_ah(e.ah), EBUSY);
	assert_int_equal(poll_all(e.scq, wc, 4), 1);
	/* Freed: teardown destroys it (and asserts 0). */
}

/* The nexus's side: AHs created and destroyed, a QP moved through its
 * states, while this thread posts and polls (the model has no thread of
 * its own and one lock). */
static void *
nexus_side(void *arg)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_qp *qp = arg;
	int i;

	aa.grh.dgid = e.ah_attr_gid;
	aa.grh.sgid_index = 1;
	for (i = 0; i < 2000; i++) {
		struct ibv_ah *ah = ibv_create_ah(e.pd, &aa);
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

		struct ibv_qp_attr b = { .qp_state = IBV_QPS_INIT,
			.port_num = 1, .qkey = QKEY };

		/* No cmocka assertion off the main thread: errors return. */
		if (ah == NULL || ibv_destroy_ah(ah) != 0)
			return (void *)1;
		if (ibv_modify_qp(qp, &b, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				IBV_QP_PORT | IBV_QP_QKEY) != 0)
			return (void *)1;
		b.qp_state = IBV_QPS_RTR;
		if (ibv_modify_qp(qp, &b, IBV_QP_STATE) != 0)
			return (void *)1;
		b.qp_state = IBV_QPS_RTS;
		if (ibv_modify_qp(qp, &b, IBV_QP_STATE | IBV_QP_SQ_PSN) != 0)
			return (void *)1;
		if (ibv_modify_qp(qp, &a, IBV_QP_STATE) != 0)
			return (void *)1;
	}
	return NULL;
}

static void
test_threads(void **state)
{
	struct ibv_qp *extra = mk_qp(4, 0);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	struct pmr_hca_counters c;
	struct ibv_wc wc[8];
	pthread_t t;
	void *ret;
	int i, got = 0;

	(void)state;
	assert_int_equal(ibv_modify_qp(extra, &a, IBV_QP_STATE), 0);
	recvs(1);
	assert_int_equal(pthread_create(&t, NULL, nexus_side, extra), 0);
	for (i = 0; i < 2000; i++) {
		int n;

		assert_int_equal(sendr(e.sbuf, 8, IBV_SEND_SIGNALED,
			(uint64_t)i), 0);
		while ((n = poll_all(e.scq, wc, 8)) == 0)
			;
		assert_int_equal(n, 1);
		assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
		n = poll_all(e.rcq, wc, 8);
		got += n;
		if (n > 0)
			recvs(1);
	}
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_null(ret);
	assert_int_equal(got, 2000);
	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	assert_int_equal(c.rx_packets, 2000);
	assert_int_equal(ibv_destroy_qp(extra), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_counters),
		T(test_sq_never_signalled),
		T(test_payload_read_late),
		T(test_step_mode),
		T(test_step_determinism),
		T(test_fault_drop),
		T(test_fault_dup),
		T(test_fault_fail),
		T(test_drop_counters),
		T(test_ah_busy),
		T(test_threads),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
