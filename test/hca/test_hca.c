/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The software HCA model's own unit tests (issue 14): what the conformance
 * suite cannot see from outside the device: its counters, injected
 * faults, step mode and its determinism, and the strict points asserted
 * through the counters; RC (issue 16) and memory windows (issue 17).
 * Linked against the model only (no libibverbs).
 */

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
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

/* --- configuration and the fabric (issue 14 part 2) ------------------ */

/* One endpoint on the fabric: a device (by name), a port, a UD QP with
 * its own CQ, registered buffers. */
struct node {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t buf[4 * SLOT];
};

static struct ibv_context *
open_by_name(const char *name)
{
	struct ibv_device **l;
	struct ibv_context *ctx = NULL;
	int n, i;

	l = ibv_get_device_list(&n);
	assert_non_null(l);
	for (i = 0; i < n; i++)
		if (strcmp(ibv_get_device_name(l[i]), name) == 0)
			ctx = ibv_open_device(l[i]);
	ibv_free_device_list(l);
	assert_non_null(ctx);
	return ctx;
}

static void
node_open(struct node *nd, const char *dev, uint8_t port)
{
	struct ibv_qp_init_attr ia = { .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			.max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = port,
		.qkey = QKEY };
	int i;

	memset(nd, 0, sizeof(*nd));
	nd->ctx = open_by_name(dev);
	nd->pd = ibv_alloc_pd(nd->ctx);
	nd->cq = ibv_create_cq(nd->ctx, 16, NULL, NULL, 0);
	assert_non_null(nd->pd);
	assert_non_null(nd->cq);
	ia.send_cq = nd->cq;
	ia.recv_cq = nd->cq;
	nd->qp = ibv_create_qp(nd->pd, &ia);
	assert_non_null(nd->qp);
	assert_int_equal(ibv_modify_qp(nd->qp, &a, IBV_QP_STATE |
		IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY), 0);
	a.qp_state = IBV_QPS_RTR;
	assert_int_equal(ibv_modify_qp(nd->qp, &a, IBV_QP_STATE), 0);
	a.qp_state = IBV_QPS_RTS;
	assert_int_equal(ibv_modify_qp(nd->qp, &a, IBV_QP_STATE |
		IBV_QP_SQ_PSN), 0);
	nd->mr = ibv_reg_mr(nd->pd, nd->buf, sizeof(nd->buf),
		IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(nd->mr);
	memset(nd->buf, 0xee, sizeof(nd->buf));
	for (i = 0; i < 2; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)(nd->buf +
			(size_t)(i + 1) * SLOT), .length = SLOT,
			.lkey = nd->mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = 100 + (uint64_t)i,
			.sg_list = &sge, .num_sge = 1 }, *bad;

		assert_int_equal(ibv_post_recv(nd->qp, &wr, &bad), 0);
	}
}

static void
node_close(struct node *nd)
{
	struct ibv_wc wc[16];

	while (ibv_poll_cq(nd->cq, 16, wc) > 0)
		;
	assert_int_equal(ibv_destroy_qp(nd->qp), 0);
	assert_int_equal(ibv_dereg_mr(nd->mr), 0);
	assert_int_equal(ibv_destroy_cq(nd->cq), 0);
	assert_int_equal(ibv_dealloc_pd(nd->pd), 0);
	assert_int_equal(ibv_close_device(nd->ctx), 0);
}

/* Send 8 bytes ('P') from a to QP rqpn through an AH of aa, signalled;
 * returns the send's completion status. */
static enum ibv_wc_status
node_send(struct node *a, struct ibv_ah_attr *aa, uint32_t rqpn)
{
	struct ibv_ah *ah = ibv_create_ah(a->pd, aa);
	struct ibv_sge sge = { .addr = (uintptr_t)a->buf, .length = 8 };
	struct ibv_send_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED },
		*bad;
	struct ibv_wc wc;
	int n;

	assert_non_null(ah);
	memset(a->buf, 'P', 8);
	sge.lkey = a->mr->lkey;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = rqpn;
	wr.wr.ud.remote_qkey = QKEY;
	assert_int_equal(ibv_post_send(a->qp, &wr, &bad), 0);
	/* Sends complete on a's CQ; a receive there would be a self send,
	 * which these tests do not make. */
	while ((n = ibv_poll_cq(a->cq, 1, &wc)) == 0)
		;
	assert_int_equal(n, 1);
	assert_int_equal(wc.opcode, IBV_WC_SEND);
	assert_int_equal(ibv_destroy_ah(ah), 0);
	return wc.status;
}

/* The receive completion on b, or 0 if none. */
static int
node_recv(struct node *b, struct ibv_wc *wc)
{
	return ibv_poll_cq(b->cq, 1, wc);
}

static void
gid_of(struct node *nd, uint8_t port, int idx, union ibv_gid *g)
{
	struct ibv_gid_entry e;

	assert_int_equal(ibv_query_gid_ex(nd->ctx, port, (uint32_t)idx, &e,
		0), 0);
	*g = e.gid;
}

/* Back to the environment's (default) configuration. */
static int
reset_teardown(void **state)
{
	(void)state;
	assert_int_equal(pmr_hca_reset(), 0);
	return 0;
}

/* The default configuration is part 1's device, exactly. */
static void
test_config_default(void **state)
{
	struct pmr_hca_dev_config d, p;
	char err[128];
	struct ibv_port_attr pa;
	struct ibv_device_attr da;
	struct ibv_gid_entry g;
	struct ibv_context *ctx;
	struct ibv_device **l;
	int n;

	(void)state;
	pmr_hca_config_default(&d);
	assert_string_equal(d.name, "hca0");
	assert_int_equal(d.nports, 1);
	assert_int_equal(d.mw, 0);
	/* The spec of one device with no details gives the same. */
	assert_int_equal(pmr_hca_config_parse("dev=hca0", &p, 1, err,
		sizeof(err)), 1);
	assert_memory_equal(&d, &p, sizeof(d));
	assert_int_equal(pmr_hca_reset(), 0);
	l = ibv_get_device_list(&n);
	assert_non_null(l);
	ibv_free_device_list(l);
	assert_int_equal(n, 1);
	ctx = open_by_name("hca0");
	assert_int_equal(ibv_query_port(ctx, 1, &pa), 0);
	assert_int_equal(pa.state, IBV_PORT_ACTIVE);
	assert_int_equal(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
	assert_int_equal(pa.active_mtu, IBV_MTU_1024);
	assert_int_equal(pa.max_mtu, IBV_MTU_4096);
	assert_int_equal(ibv_query_gid_ex(ctx, 1, 1, &g, 0), 0);
	assert_int_equal(g.gid_type, IBV_GID_TYPE_ROCE_V2);
	assert_int_equal(g.gid.raw[12], 192);
	assert_int_equal(g.gid.raw[15], 1);
	assert_int_equal(ibv_query_gid_ex(ctx, 1, 2, &g, 0), ENODATA);
	/* Honest capabilities: no windows unless configured. */
	assert_int_equal(ibv_query_device(ctx, &da), 0);
	assert_int_equal(da.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B,
		0);
	assert_int_equal(da.max_mw, 0);
	assert_int_equal(ibv_close_device(ctx), 0);
}

/* The spec is parsed strictly: each mistake is an error with a message
 * naming it, never a silent default. */
static void
test_config_parse(void **state)
{
	static const struct {
		const char *spec, *msg;
	} bad[] = {
		{ "", "no dev=" },
		{ "link=ib", "before the first dev=" },
		{ "dev=a,bogus=1", "unknown key" },
		{ "dev=a,mtu=1500", "mtu=1500" },
		{ "dev=a,state=up", "state=up" },
		{ "dev=a,port=2", "port=2" },
		{ "dev=a,port=1,port=2,port=3", "port=3" },
		{ "dev=a,link=ib,gid0=v2/fe80::9", "RoCE GID on an" },
		{ "dev=a,gid0=ib/fe80::9", "IB GID on an" },
		{ "dev=a,gid16=v2/fe80::9", "gid16" },
		{ "dev=a,gid0=v3/fe80::9", "gid0=v3" },
		{ "dev=a,gid0=v2/fe80::zz", "gid0=v2/fe80::zz" },
		{ "dev=a dev=a", "two devices" },
		{ "dev=a dev=b,gid0=v2/fe80::1", "also on a" },
		{ "dev=a,link=ib dev=b,link=ib,lid=1", "LID 1 also on a" },
		{ "dev=a,link=eth,lid=3", "Ethernet has no LID" },
		{ "dev=a,mtu=4096,max_mtu=2048", "MTUs" },
		{ "dev=a,mw=2", "mw=2" },
		{ "dev=a,rxe=yes", "rxe=yes" },
		{ "dev=a dev=b dev=c dev=d dev=e", "more than 4" },
		{ "dev=a noequals", "not key=value" },
	};
	struct pmr_hca_dev_config d[PMR_HCA_MAX_DEVICES];
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(pmr_hca_config_parse(bad[i].spec, d,
			PMR_HCA_MAX_DEVICES, err, sizeof(err)), -1);
		if (strstr(err, bad[i].msg) == NULL)
			fail_msg("spec '%s': message '%s' lacks '%s'",
				bad[i].spec, err, bad[i].msg);
	}
	/* A full one. */
	assert_int_equal(pmr_hca_config_parse("dev=r0,mw=1; port=1 "
		"link=roce state=down mtu=4096 gid3=v1/fe80::77 "
		"gid4=v2/10.0.0.7; port=2,link=ib,lid=0x20,mtu=256,"
		"gid0=ib/fe80::1:2; dev=i1,link=ib,gids=none", d,
		PMR_HCA_MAX_DEVICES, err, sizeof(err)), 2);
	assert_string_equal(d[0].name, "r0");
	assert_int_equal(d[0].mw, 1);
	assert_int_equal(d[0].rxe, 0);
	assert_int_equal(d[0].nports, 2);
	assert_int_equal(d[0].port[0].state, IBV_PORT_DOWN);
	assert_int_equal(d[0].port[0].active_mtu, IBV_MTU_4096);
	assert_int_equal(d[0].port[0].gid[0].type, PMR_HCA_GID_EMPTY);
	assert_int_equal(d[0].port[0].gid[3].type, PMR_HCA_GID_ROCE_V1);
	assert_int_equal(d[0].port[0].gid[4].type, PMR_HCA_GID_ROCE_V2);
	assert_int_equal(d[0].port[0].gid[4].gid.raw[10], 0xff);
	assert_int_equal(d[0].port[0].gid[4].gid.raw[12], 10);
	assert_int_equal(d[0].port[0].gid[4].gid.raw[15], 7);
	assert_int_equal(d[0].port[1].link_layer, IBV_LINK_LAYER_INFINIBAND);
	assert_int_equal(d[0].port[1].lid, 0x20);
	assert_int_equal(d[0].port[1].active_mtu, IBV_MTU_256);
	assert_int_equal(d[0].port[1].gid[0].type, PMR_HCA_GID_IB);
	assert_int_equal(d[1].nports, 1);
	assert_int_equal(d[1].port[0].lid, 3);	/* its ordinal */
	for (i = 0; i < PMR_HCA_GID_TABLE; i++)
		assert_int_equal(d[1].port[0].gid[i].type, PMR_HCA_GID_EMPTY);
}

/* The C API: only before the devices are listed, or after a reset, which
 * refuses while anything is alive; a bad configuration is refused. */
static void
test_config_busy(void **state)
{
	struct pmr_hca_dev_config d[2];
	struct ibv_device **l;
	struct ibv_context *ctx;
	int n;

	(void)state;
	pmr_hca_config_default(&d[0]);
	d[1] = d[0];
	assert_int_equal(pmr_hca_reset(), 0);
	/* Two devices of one name, and the same GIDs: refused. */
	assert_int_equal(pmr_hca_configure(d, 2), EINVAL);
	snprintf(d[1].name, sizeof(d[1].name), "hca1");
	d[1].port[0].gid[0].gid.raw[15] = 2;
	d[1].port[0].gid[1].gid.raw[15] = 2;
	assert_int_equal(pmr_hca_configure(d, 2), 0);
	l = ibv_get_device_list(&n);
	assert_non_null(l);
	assert_int_equal(n, 2);
	assert_string_equal(ibv_get_device_name(l[1]), "hca1");
	assert_int_equal(ibv_get_device_index(l[1]), 1);
	assert_true(ibv_get_device_guid(l[0]) != ibv_get_device_guid(l[1]));
	ctx = ibv_open_device(l[1]);
	ibv_free_device_list(l);
	assert_non_null(ctx);
	assert_int_equal(pmr_hca_configure(d, 1), EBUSY);	/* listed */
	assert_int_equal(pmr_hca_reset(), EBUSY);		/* open */
	assert_int_equal(ibv_close_device(ctx), 0);
	assert_int_equal(pmr_hca_reset(), 0);
	assert_int_equal(pmr_hca_configure(d, 1), 0);
	assert_non_null(l = ibv_get_device_list(&n));
	assert_int_equal(n, 1);
	ibv_free_device_list(l);
}

/* PMR_HCA_CONFIG for unmodified binaries: read at the first listing; a
 * bad spec gives no devices (EINVAL) rather than a guess. The old
 * variables still work, and conflict with it. */
static void
test_config_env(void **state)
{
	struct ibv_device **l;
	struct ibv_context *ctx;
	struct ibv_port_attr pa;
	int n;

	(void)state;
	assert_int_equal(pmr_hca_reset(), 0);
	setenv("PMR_HCA_CONFIG", "dev=x0 dev=x1,link=ib,mtu=2048", 1);
	l = ibv_get_device_list(&n);
	assert_non_null(l);
	assert_int_equal(n, 2);
	ibv_free_device_list(l);
	ctx = open_by_name("x1");
	assert_int_equal(ibv_query_port(ctx, 1, &pa), 0);
	assert_int_equal(pa.link_layer, IBV_LINK_LAYER_INFINIBAND);
	assert_int_equal(pa.active_mtu, IBV_MTU_2048);
	assert_int_equal(pa.lid, 2);
	assert_int_equal(ibv_close_device(ctx), 0);
	assert_int_equal(pmr_hca_reset(), 0);
	setenv("PMR_HCA_CONFIG", "dev=x0,mtu=9000", 1);
	errno = 0;
	assert_null(ibv_get_device_list(&n));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(pmr_hca_reset(), 0);
	setenv("PMR_HCA_MTU", "2048", 1);
	setenv("PMR_HCA_CONFIG", "dev=x0", 1);
	assert_null(ibv_get_device_list(&n));		/* both: which? */
	assert_int_equal(pmr_hca_reset(), 0);
	unsetenv("PMR_HCA_CONFIG");
	setenv("PMR_HCA_DEVICE", "old0", 1);
	ctx = open_by_name("old0");
	assert_int_equal(ibv_query_port(ctx, 1, &pa), 0);
	assert_int_equal(pa.active_mtu, IBV_MTU_2048);
	assert_int_equal(ibv_close_device(ctx), 0);
	unsetenv("PMR_HCA_DEVICE");
	unsetenv("PMR_HCA_MTU");
}

/* Configure spec (checked) as the fabric. */
static void
fabric(const char *spec)
{
	struct pmr_hca_dev_config d[PMR_HCA_MAX_DEVICES];
	char err[256];
	int n;

	assert_int_equal(pmr_hca_reset(), 0);
	n = pmr_hca_config_parse(spec, d, PMR_HCA_MAX_DEVICES, err,
		sizeof(err));
	if (n < 0)
		fail_msg("%s: %s", spec, err);
	assert_int_equal(pmr_hca_configure(d, (unsigned int)n), 0);
	pmr_hca_counters_reset();
}

/* RoCE across two devices: the destination GID finds hca1's port; the
 * counters are per device; a GID nobody has is lost (drop_no_port). */
static void
test_fabric_roce(void **state)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct pmr_hca_counters c0, c1;
	struct pmr_hca_objects o;
	struct node a, b;
	struct ibv_wc wc;

	(void)state;
	fabric("dev=hca0 dev=hca1");
	node_open(&a, "hca0", 1);
	node_open(&b, "hca1", 1);
	assert_int_equal(pmr_hca_objects_get("hca1", &o), 0);
	assert_int_equal(o.contexts + o.pds + o.cqs + o.qps + o.mrs, 5);
	assert_int_equal(o.ahs, 0);
	gid_of(&b, 1, 1, &aa.grh.dgid);
	aa.grh.sgid_index = 1;
	aa.grh.hop_limit = 1;
	assert_int_equal(node_send(&a, &aa, b.qp->qp_num), IBV_WC_SUCCESS);
	assert_int_equal(node_recv(&b, &wc), 1);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.src_qp, a.qp->qp_num);
	assert_true((wc.wc_flags & IBV_WC_GRH) != 0);
	assert_int_equal(b.buf[SLOT + 40], 'P');
	/* The GRH's IPv4 addresses: a's and b's. */
	assert_int_equal(b.buf[SLOT + 20 + 15], 1);
	assert_int_equal(b.buf[SLOT + 20 + 19], 2);
	assert_int_equal(pmr_hca_dev_counters_get("hca0", &c0), 0);
	assert_int_equal(pmr_hca_dev_counters_get("hca1", &c1), 0);
	assert_int_equal(c0.tx_packets, 1);
	assert_int_equal(c0.rx_packets, 0);
	assert_int_equal(c1.tx_packets, 0);
	assert_int_equal(c1.rx_packets, 1);
	assert_int_equal(pmr_hca_dev_counters_get("nope", &c1), ENODEV);
	/* The right GID, the QPN of another device's QP: no such QP. */
	assert_int_equal(node_send(&a, &aa, a.qp->qp_num), IBV_WC_SUCCESS);
	assert_int_equal(pmr_hca_counters_get(a.qp, &c0), 0);
	assert_int_equal(c0.drop_no_qp, 1);
	/* A GID nobody has. */
	aa.grh.dgid.raw[15] = 99;
	assert_int_equal(node_send(&a, &aa, b.qp->qp_num), IBV_WC_SUCCESS);
	assert_int_equal(node_recv(&b, &wc), 0);
	assert_int_equal(pmr_hca_counters_get(a.qp, &c0), 0);
	assert_int_equal(c0.drop_no_port, 1);
	node_close(&a);
	node_close(&b);
	assert_int_equal(pmr_hca_objects_get(NULL, &o), 0);
	assert_int_equal(o.contexts + o.pds + o.cqs + o.qps + o.mrs + o.ahs,
		0);
}

/* InfiniBand: routed by DLID; without a GRH the receive has no
 * IBV_WC_GRH and its first 40 bytes are random; with one, the IBA GRH
 * (next header 0x1b). RoCE and IB do not mix, nor RoCE v1 and v2. */
static void
test_fabric_ib(void **state)
{
	struct ibv_ah_attr aa = { .port_num = 1 };
	struct pmr_hca_counters c;
	struct node a, b, r;
	struct ibv_port_attr pa;
	struct ibv_wc wc;
	uint8_t first[40];
	int i, same;

	(void)state;
	fabric("dev=ib0,link=ib,lid=5 dev=ib1,link=ib,lid=6 "
		"dev=roce0,gid0=v1/fe80::30,gid1=v2/fe80::31");
	node_open(&a, "ib0", 1);
	node_open(&b, "ib1", 1);
	node_open(&r, "roce0", 1);
	assert_int_equal(ibv_query_port(b.ctx, 1, &pa), 0);
	assert_int_equal(pa.link_layer, IBV_LINK_LAYER_INFINIBAND);
	assert_int_equal(pa.lid, 6);
	/* An IB AH needs a DLID; a RoCE AH a GRH. */
	assert_null(ibv_create_ah(a.pd, &aa));
	assert_int_equal(errno, EINVAL);
	aa.dlid = 6;
	assert_null(ibv_create_ah(r.pd, &aa));
	assert_int_equal(errno, EINVAL);
	/* No GRH. */
	assert_int_equal(node_send(&a, &aa, b.qp->qp_num), IBV_WC_SUCCESS);
	assert_int_equal(node_recv(&b, &wc), 1);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.wc_flags & IBV_WC_GRH, 0);
	assert_int_equal(wc.slid, 5);
	assert_int_equal(wc.byte_len, 40 + 8);
	assert_int_equal(b.buf[SLOT + 40], 'P');
	for (i = 0, same = 0; i < 40; i++)
		same += b.buf[SLOT + i] == 0xee;
	assert_true(same < 8);		/* written, and not a pattern */
	memcpy(first, b.buf + SLOT, 40);
	/* With a GRH: the DGID must be the destination port's. */
	aa.is_global = 1;
	gid_of(&b, 1, 0, &aa.grh.dgid);
	aa.grh.hop_limit = 3;
	assert_int_equal(node_send(&a, &aa, b.qp->qp_num), IBV_WC_SUCCESS);
	assert_int_equal(node_recv(&b, &wc), 1);
	assert_true((wc.wc_flags & IBV_WC_GRH) != 0);
	assert_int_equal(b.buf[2 * SLOT] >> 4, 6);
	assert_int_equal(b.buf[2 * SLOT + 6], 0x1b);
	assert_int_equal(b.buf[2 * SLOT + 7], 3);
	assert_memory_equal(b.buf + 2 * SLOT + 24, &aa.grh.dgid, 16);
	assert_memory_not_equal(first, b.buf + 2 * SLOT, 40);
	/* IB to a RoCE port's GID: the wrong wire. */
	gid_of(&r, 1, 1, &aa.grh.dgid);
	aa.dlid = 0x77;
	assert_int_equal(node_send(&a, &aa, r.qp->qp_num), IBV_WC_SUCCESS);
	assert_int_equal(pmr_hca_counters_get(a.qp, &c), 0);
	assert_int_equal(c.drop_link_layer, 1);
	/* An unknown DLID. */
	aa.is_global = 0;
	assert_int_equal(node_send(&a, &aa, b.qp->qp_num), IBV_WC_SUCCESS);
	assert_int_equal(pmr_hca_counters_get(a.qp, &c), 0);
	assert_int_equal(c.drop_no_port, 1);
	/* RoCE to an IB port's GID, and RoCE v1 to a v2-only GID. */
	memset(&aa, 0, sizeof(aa));
	aa.is_global = 1;
	aa.port_num = 1;
	gid_of(&b, 1, 0, &aa.grh.dgid);
	aa.grh.sgid_index = 1;
	assert_int_equal(node_send(&r, &aa, b.qp->qp_num), IBV_WC_SUCCESS);
	aa.grh.sgid_index = 0;		/* v1 */
	gid_of(&r, 1, 1, &aa.grh.dgid);	/* v2 */
	assert_int_equal(node_send(&r, &aa, r.qp->qp_num), IBV_WC_SUCCESS);
	assert_int_equal(pmr_hca_counters_get(r.qp, &c), 0);
	assert_int_equal(c.drop_link_layer, 2);
	assert_int_equal(c.rx_packets, 0);
	node_close(&a);
	node_close(&b);
	node_close(&r);
}

/* Port state at run time: nothing leaves or reaches a port that is not
 * ACTIVE (the send still completes, as rxe's does when its netdev is
 * down); QP transitions do not depend on it (as rxe and the kernel). */
static void
test_port_state(void **state)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct pmr_hca_counters c;
	struct ibv_port_attr pa;
	struct node a, b;
	struct ibv_wc wc;

	(void)state;
	fabric("dev=hca0 dev=hca1,state=init");
	node_open(&a, "hca0", 1);
	node_open(&b, "hca1", 1);	/* QPs to RTS on an INIT port */
	assert_int_equal(ibv_query_port(b.ctx, 1, &pa), 0);
	assert_int_equal(pa.state, IBV_PORT_INIT);
	gid_of(&b, 1, 1, &aa.grh.dgid);
	aa.grh.sgid_index = 1;
	assert_int_equal(node_send(&a, &aa, b.qp->qp_num), IBV_WC_SUCCESS);
	assert_int_equal(node_recv(&b, &wc), 0);
	assert_int_equal(pmr_hca_counters_get(a.qp, &c), 0);
	assert_int_equal(c.drop_dest_down, 1);
	assert_int_equal(pmr_hca_port_set_state("hca1", 1, IBV_PORT_ACTIVE),
		0);
	assert_int_equal(node_send(&a, &aa, b.qp->qp_num), IBV_WC_SUCCESS);
	assert_int_equal(node_recv(&b, &wc), 1);
	assert_int_equal(pmr_hca_port_set_state("hca0", 1, IBV_PORT_DOWN),
		0);
	assert_int_equal(ibv_query_port(a.ctx, 1, &pa), 0);
	assert_int_equal(pa.state, IBV_PORT_DOWN);
	assert_int_equal(node_send(&a, &aa, b.qp->qp_num), IBV_WC_SUCCESS);
	assert_int_equal(node_recv(&b, &wc), 0);
	assert_int_equal(pmr_hca_counters_get(a.qp, &c), 0);
	assert_int_equal(c.drop_port_down, 1);
	assert_int_equal(c.tx_packets, 3);
	assert_int_equal(pmr_hca_port_set_state("hca0", 2, IBV_PORT_DOWN),
		EINVAL);
	assert_int_equal(pmr_hca_port_set_state("hca0", 1, IBV_PORT_NOP),
		EINVAL);
	assert_int_equal(pmr_hca_port_set_state("hcaX", 1, IBV_PORT_DOWN),
		ENODEV);
	node_close(&a);
	node_close(&b);
}

/* Two ports on one device: port 2's QP is reached by port 2's GID only;
 * a QP on port 1 is not found through port 2's address. */
static void
test_two_ports(void **state)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_device_attr da;
	struct pmr_hca_counters c;
	struct node a, b;
	struct ibv_wc wc;
	struct ibv_ah *ah;
	struct ibv_sge sge = { .addr = (uintptr_t)a.buf, .length = 8 };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND }, *bad;

	(void)state;
	fabric("dev=hca0,mw=1,port=1,port=2");
	node_open(&a, "hca0", 1);
	node_open(&b, "hca0", 2);
	assert_int_equal(ibv_query_device(a.ctx, &da), 0);
	assert_int_equal(da.phys_port_cnt, 2);
	assert_int_equal(da.vendor_id, 0);	/* strict: not rxe's */
	assert_true((da.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B) !=
		0);
	assert_true(da.max_mw > 0);
	gid_of(&b, 2, 1, &aa.grh.dgid);
	aa.grh.sgid_index = 1;
	assert_int_equal(node_send(&a, &aa, b.qp->qp_num), IBV_WC_SUCCESS);
	assert_int_equal(node_recv(&b, &wc), 1);
	assert_int_equal(b.buf[SLOT + 20 + 19], 2);	/* ...192.0.2.2 */
	gid_of(&a, 1, 1, &aa.grh.dgid);
	assert_int_equal(node_send(&a, &aa, b.qp->qp_num), IBV_WC_SUCCESS);
	assert_int_equal(pmr_hca_counters_get(a.qp, &c), 0);
	assert_int_equal(c.drop_no_qp, 1);
	/* An AH of port 2 on port 1's QP: refused at the post. */
	aa.port_num = 2;
	ah = ibv_create_ah(a.pd, &aa);
	assert_non_null(ah);
	sge.lkey = a.mr->lkey;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = b.qp->qp_num;
	wr.wr.ud.remote_qkey = QKEY;
	assert_int_equal(ibv_post_send(a.qp, &wr, &bad), EINVAL);
	assert_int_equal(ibv_destroy_ah(ah), 0);
	node_close(&a);
	node_close(&b);
}

/* The rxe personality (rxe=1) identifies itself as rxe does: rxe's
 * vendor id, which the strict device does not report. */
static void
test_rxe_identity(void **state)
{
	struct ibv_device_attr da;
	struct node a;

	(void)state;
	fabric("dev=hca0,rxe=1");
	node_open(&a, "hca0", 1);
	assert_int_equal(ibv_query_device(a.ctx, &da), 0);
	assert_int_equal(da.vendor_id, 0xffffff);
	node_close(&a);
}

/* Move nd's QP through RESET back to RTS (its receives dropped) and
 * post one receive of len bytes at buf, registered as mr. */
static void
node_rearm(struct node *nd, struct ibv_mr *mr, uint8_t *buf, uint32_t len)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = len,
		.lkey = mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 200, .sg_list = &sge,
		.num_sge = 1 }, *bad;
	struct ibv_wc wc[4];

	while (ibv_poll_cq(nd->cq, 4, wc) > 0)
		;
	assert_int_equal(ibv_modify_qp(nd->qp, &a, IBV_QP_STATE), 0);
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = QKEY;
	assert_int_equal(ibv_modify_qp(nd->qp, &a, IBV_QP_STATE |
		IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY), 0);
	a.qp_state = IBV_QPS_RTR;
	assert_int_equal(ibv_modify_qp(nd->qp, &a, IBV_QP_STATE), 0);
	a.qp_state = IBV_QPS_RTS;
	assert_int_equal(ibv_modify_qp(nd->qp, &a, IBV_QP_STATE |
		IBV_QP_SQ_PSN), 0);
	memset(buf, 0xee, len);
	assert_int_equal(ibv_post_recv(nd->qp, &wr, &bad), 0);
}

/* Send len bytes (byte i is i * 7) from a's QP to QP rqpn on gid, through
 * an AH of a's port 1, signalled; the send's completion status. */
static enum ibv_wc_status
node_send_len(struct node *a, const union ibv_gid *gid, uint32_t rqpn,
	uint8_t *buf, struct ibv_mr *mr, uint32_t len)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = len,
		.lkey = mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 9, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED },
		*bad;
	struct ibv_wc wc;
	struct ibv_ah *ah;
	uint32_t i;
	int n;

	aa.grh.dgid = *gid;
	aa.grh.sgid_index = 1;
	aa.grh.hop_limit = 64;
	ah = ibv_create_ah(a->pd, &aa);
	assert_non_null(ah);
	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = rqpn;
	wr.wr.ud.remote_qkey = QKEY;
	assert_int_equal(ibv_post_send(a->qp, &wr, &bad), 0);
	while ((n = ibv_poll_cq(a->cq, 1, &wc)) == 0)
		;
	assert_int_equal(n, 1);
	assert_int_equal(wc.opcode, IBV_WC_SEND);
	assert_int_equal(ibv_destroy_ah(ah), 0);
	return wc.status;
}

/*
 * A UD packet over the receiving port's active MTU (issue 25): the
 * strict device loses it on the way (drop_too_long); the rxe personality
 * places it, as rxe does (its netdev carries the frame), up to the
 * receiving port's max_mtu. hca1 sends with an active MTU of 4096 to
 * hca0, active 1024, max 2048.
 */
static void
rxe_over_mtu(int rxe)
{
	static uint8_t sbuf[4096], rbuf[40 + 4096];
	struct pmr_hca_counters c;
	struct ibv_mr *smr, *rmr;
	union ibv_gid g;
	struct node a, b;
	struct ibv_wc wc;
	uint32_t i;

	fabric(rxe ? "dev=hca0,rxe=1,mtu=1024,max_mtu=2048 "
		"dev=hca1,rxe=1,mtu=4096" :
		"dev=hca0,mtu=1024,max_mtu=2048 dev=hca1,mtu=4096");
	node_open(&a, "hca1", 1);
	node_open(&b, "hca0", 1);
	smr = ibv_reg_mr(a.pd, sbuf, sizeof(sbuf), 0);
	rmr = ibv_reg_mr(b.pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(smr);
	assert_non_null(rmr);
	gid_of(&b, 1, 1, &g);

	/* 2000 bytes: over hca0's active MTU, within its max. */
	node_rearm(&b, rmr, rbuf, sizeof(rbuf));
	assert_int_equal(node_send_len(&a, &g, b.qp->qp_num, sbuf, smr, 2000),
		IBV_WC_SUCCESS);
	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	if (!rxe) {
		assert_int_equal(node_recv(&b, &wc), 0);
		assert_int_equal(c.drop_too_long, 1);
		assert_int_equal(c.rx_packets, 0);
		goto out;
	}
	assert_int_equal(node_recv(&b, &wc), 1);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 200);
	assert_int_equal(wc.byte_len, 40 + 2000);
	for (i = 0; i < 2000; i++)
		if (rbuf[40 + i] != (uint8_t)(i * 7))
			fail_msg("byte %u: %#x", i, rbuf[40 + i]);
	assert_int_equal(rbuf[40 + 2000], 0xee);
	assert_int_equal(c.drop_too_long, 0);
	assert_int_equal(c.rx_packets, 1);

	/* 2049 bytes: over hca0's max_mtu, lost even so. */
	node_rearm(&b, rmr, rbuf, sizeof(rbuf));
	assert_int_equal(node_send_len(&a, &g, b.qp->qp_num, sbuf, smr, 2049),
		IBV_WC_SUCCESS);
	assert_int_equal(node_recv(&b, &wc), 0);
	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	assert_int_equal(c.drop_too_long, 1);
	assert_int_equal(c.rx_packets, 1);
out:
	assert_int_equal(ibv_dereg_mr(smr), 0);
	assert_int_equal(ibv_dereg_mr(rmr), 0);
	node_close(&a);
	node_close(&b);
}

static void
test_rxe_ud_over_mtu(void **state)
{
	(void)state;
	rxe_over_mtu(0);
	rxe_over_mtu(1);
}

/*
 * A UD message into a receive too short for it: the strict device
 * completes the receive LOC_LEN_ERR (the specification), the rxe
 * personality LOC_QP_OP_ERR (rxe's status); either way the QP goes to
 * ERR and the receive behind it is flushed. Here 2000 bytes from hca1
 * (active MTU 4096) into hca0's first receive of 40 + 1024.
 */
static void
rxe_short_recv(int rxe)
{
	static uint8_t sbuf[2000];
	struct pmr_hca_counters c;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	struct ibv_mr *smr;
	union ibv_gid g;
	struct node a, b;
	struct ibv_wc wc;

	fabric(rxe ? "dev=hca0,rxe=1 dev=hca1,rxe=1,mtu=4096" :
		"dev=hca0,mtu=1024,max_mtu=4096 dev=hca1,mtu=1024");
	node_open(&a, "hca1", 1);
	node_open(&b, "hca0", 1);
	smr = ibv_reg_mr(a.pd, sbuf, sizeof(sbuf), 0);
	assert_non_null(smr);
	gid_of(&b, 1, 1, &g);
	/* Strict: a packet within the MTU (1000 bytes) into 40 + 960. */
	if (!rxe) {
		struct ibv_qp_attr a0 = { .qp_state = IBV_QPS_RESET };
		struct ibv_sge sge = { .addr = (uintptr_t)(b.buf + SLOT),
			.length = 40 + 960, .lkey = b.mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = 100, .sg_list = &sge,
			.num_sge = 1 }, *bad;

		assert_int_equal(ibv_modify_qp(b.qp, &a0, IBV_QP_STATE), 0);
		a0.qp_state = IBV_QPS_INIT;
		a0.port_num = 1;
		a0.qkey = QKEY;
		assert_int_equal(ibv_modify_qp(b.qp, &a0, IBV_QP_STATE |
			IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY), 0);
		a0.qp_state = IBV_QPS_RTR;
		assert_int_equal(ibv_modify_qp(b.qp, &a0, IBV_QP_STATE), 0);
		a0.qp_state = IBV_QPS_RTS;
		assert_int_equal(ibv_modify_qp(b.qp, &a0, IBV_QP_STATE |
			IBV_QP_SQ_PSN), 0);
		assert_int_equal(ibv_post_recv(b.qp, &wr, &bad), 0);
		sge.addr = (uintptr_t)(b.buf + 2 * SLOT);
		sge.length = SLOT;
		wr.wr_id = 101;
		assert_int_equal(ibv_post_recv(b.qp, &wr, &bad), 0);
	}
	assert_int_equal(node_send_len(&a, &g, b.qp->qp_num, sbuf, smr,
		rxe ? 2000 : 1000), IBV_WC_SUCCESS);
	assert_int_equal(node_recv(&b, &wc), 1);
	assert_int_equal(wc.wr_id, 100);
	assert_int_equal(wc.status, rxe ? IBV_WC_LOC_QP_OP_ERR :
		IBV_WC_LOC_LEN_ERR);
	assert_int_equal(node_recv(&b, &wc), 1);
	assert_int_equal(wc.wr_id, 101);
	assert_int_equal(wc.status, IBV_WC_WR_FLUSH_ERR);
	assert_int_equal(node_recv(&b, &wc), 0);
	assert_int_equal(ibv_query_qp(b.qp, &qa, IBV_QP_STATE, &qi), 0);
	assert_int_equal(qa.qp_state, IBV_QPS_ERR);
	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	assert_int_equal(c.rx_packets, 0);
	assert_int_equal(c.drop_too_long, 0);
	assert_int_equal(ibv_dereg_mr(smr), 0);
	node_close(&a);
	node_close(&b);
}

static void
test_rxe_ud_short_recv(void **state)
{
	(void)state;
	rxe_short_recv(0);
	rxe_short_recv(1);
}

/* What the model does not model fails cleanly, in each call's own
 * convention, never a crash in rdma-core's code or a NULL op. */
static void
test_unmodelled(void **state)
{
	struct ibv_cq_init_attr_ex cqa = { .cqe = 4 };
	struct ibv_qp_init_attr_ex qpa = { .qp_type = IBV_QPT_UD,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			IBV_QP_INIT_ATTR_SEND_OPS_FLAGS };
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 1,
		.max_sge = 1 } };
	struct ibv_td_init_attr ta = { 0 };
	struct ibv_xrcd_init_attr xa = { 0 };
	struct ibv_values_ex rv = { 0 };
	struct ibv_wc wc = { 0 };
	struct ibv_ah_attr aa;

	(void)state;
	qpa.pd = e.pd;
	qpa.send_cq = e.scq;
	qpa.recv_cq = e.rcq;
	errno = 0;
	assert_null(ibv_create_comp_channel(e.ctx));
	assert_int_equal(errno, EOPNOTSUPP);
	assert_int_equal(ibv_req_notify_cq(e.scq, 0), EOPNOTSUPP);
	errno = 0;
	assert_null(ibv_create_cq_ex(e.ctx, &cqa));
	assert_int_equal(errno, EOPNOTSUPP);
	errno = 0;
	assert_null(ibv_create_qp_ex(e.ctx, &qpa));
	assert_int_equal(errno, EOPNOTSUPP);
	assert_null(ibv_qp_to_qp_ex(e.s));
	errno = 0;
	assert_null(ibv_alloc_mw(e.pd, IBV_MW_TYPE_2));
	assert_int_equal(errno, EOPNOTSUPP);
	errno = 0;
	assert_null(ibv_create_srq(e.pd, &sa));
	assert_int_equal(errno, EOPNOTSUPP);
	errno = 0;
	assert_null(ibv_alloc_td(e.ctx, &ta));
	assert_int_equal(errno, EOPNOTSUPP);
	errno = 0;
	assert_null(ibv_open_xrcd(e.ctx, &xa));
	assert_int_equal(errno, EOPNOTSUPP);
	assert_int_equal(ibv_query_rt_values_ex(e.ctx, &rv), EOPNOTSUPP);
	assert_int_equal(ibv_resize_cq(e.scq, 8), EOPNOTSUPP);
	assert_int_equal(ibv_attach_mcast(e.r, &e.ah_attr_gid, 0),
		EOPNOTSUPP);
	errno = 0;
	assert_int_equal(ibv_init_ah_from_wc(e.ctx, 1, &wc, NULL, &aa), -1);
	assert_int_equal(errno, EOPNOTSUPP);
	assert_int_equal(ibv_rereg_mr(e.smr, IBV_REREG_MR_CHANGE_ACCESS,
		NULL, NULL, 0, 0), IBV_REREG_MR_ERR_INPUT);
	/* The pure helpers work. */
	assert_int_equal(ibv_rate_to_mult(IBV_RATE_10_GBPS), 4);
	assert_int_equal(mult_to_ibv_rate(4), IBV_RATE_10_GBPS);
	assert_int_equal(ibv_rate_to_mbps(IBV_RATE_100_GBPS), 100000);
	assert_int_equal(mbps_to_ibv_rate(25000), IBV_RATE_25_GBPS);
	assert_string_equal(ibv_port_state_str(IBV_PORT_ACTIVE),
		"PORT_ACTIVE");
	assert_string_equal(ibv_wc_status_str(IBV_WC_SUCCESS), "success");
	assert_int_equal(ibv_get_pkey_index(e.ctx, 1, htobe16(0xffff)), 0);
}

/* Live objects per device: what a driver test asserts to show sharing
 * ("2 peers, 1 AH") and that nothing leaked. */
static void
test_objects(void **state)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct pmr_hca_objects o;
	struct ibv_ah *ah;

	(void)state;
	assert_int_equal(pmr_hca_objects_get("hca0", &o), 0);
	assert_int_equal(o.contexts, 1);
	assert_int_equal(o.pds, 1);
	assert_int_equal(o.cqs, 2);
	assert_int_equal(o.qps, 2);
	assert_int_equal(o.mrs, 2);
	assert_int_equal(o.ahs, 1);
	aa.grh.dgid = e.ah_attr_gid;
	aa.grh.sgid_index = 1;
	ah = ibv_create_ah(e.pd, &aa);
	assert_non_null(ah);
	assert_int_equal(pmr_hca_objects_get(NULL, &o), 0);
	assert_int_equal(o.ahs, 2);
	assert_int_equal(ibv_destroy_ah(ah), 0);
	assert_int_equal(pmr_hca_objects_get("hca0", &o), 0);
	assert_int_equal(o.ahs, 1);
	assert_int_equal(pmr_hca_objects_get("hca9", &o), ENODEV);
}

/* Many QPs, some destroyed: the QPN lookup finds each live one and none
 * of the dead; work pending on several QPs runs in arrival order. */
static void
test_many_qps(void **state)
{
	enum { NQ = 600 };
	struct ibv_qp **q = calloc(NQ, sizeof(*q));
	struct pmr_hca_counters c;
	struct ibv_wc wc[4];
	uint32_t dead;
	int i;

	(void)state;
	assert_non_null(q);
	for (i = 0; i < NQ; i++)
		q[i] = mk_qp(1, 0);
	dead = q[NQ / 2]->qp_num;
	for (i = 0; i < NQ; i += 2)
		assert_int_equal(ibv_destroy_qp(q[i]), 0);
	/* e.r receives from e.s; then an odd QP of the many receives. */
	recvs(1);
	{
		struct ibv_sge sge = { .addr = (uintptr_t)(e.rbuf + SLOT),
			.length = SLOT, .lkey = e.rmr->lkey };
		struct ibv_recv_wr wr = { .wr_id = 55, .sg_list = &sge,
			.num_sge = 1 }, *bad;

		assert_int_equal(ibv_post_recv(q[NQ - 1], &wr, &bad), 0);
	}
	pmr_hca_step_mode(1);
	assert_int_equal(send1(q[1], e.sbuf, 8, 0, e.r->qp_num, QKEY, 2),
		0);
	assert_int_equal(send1(e.s, e.sbuf, 8, 0, q[NQ - 1]->qp_num, QKEY,
		1), 0);
	assert_int_equal(send1(e.s, e.sbuf, 8, IBV_SEND_SIGNALED, dead,
		QKEY, 3), 0);
	assert_int_equal(pmr_hca_pending(), 3);
	/* q[1] got work first (though created after e.s): it runs first,
	 * then both of e.s's WQEs. */
	assert_int_equal(pmr_hca_step(1), 1);
	assert_int_equal(pmr_hca_counters_get(q[1], &c), 0);
	assert_int_equal(c.tx_packets, 1);
	assert_int_equal(pmr_hca_counters_get(e.s, &c), 0);
	assert_int_equal(c.tx_packets, 0);
	assert_int_equal(pmr_hca_pending(), 2);
	assert_int_equal(pmr_hca_step(5), 2);
	assert_int_equal(pmr_hca_counters_get(e.s, &c), 0);
	assert_int_equal(c.tx_packets, 2);
	assert_int_equal(c.drop_no_qp, 1);
	assert_int_equal(pmr_hca_step(5), 0);
	pmr_hca_step_mode(0);
	assert_int_equal(poll_all(e.rcq, wc, 4), 2);
	assert_int_equal(pmr_hca_counters_get(q[NQ - 1], &c), 0);
	assert_int_equal(c.rx_packets, 1);
	assert_int_equal(pmr_hca_counters_get(e.r, &c), 0);
	assert_int_equal(c.rx_packets, 1);
	assert_int_equal(poll_all(e.scq, wc, 4), 1);	/* e.s's signal */
	assert_int_equal(wc[0].wr_id, 3);
	for (i = 1; i < NQ; i += 2)
		assert_int_equal(ibv_destroy_qp(q[i]), 0);
	free(q);
}

static sigjmp_buf crash_jmp;

static void
on_segv(int sig)
{
	(void)sig;
	siglongjmp(crash_jmp, 1);
}

/* A test that crashes inside the model (holding its lock) must still be
 * able to tear down: cmocka longjmps out of the signal handler into its
 * teardown, on the same thread. Checked in a child, with an alarm that
 * kills a deadlocked one. */
static void
test_crash_teardown(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct ibv_send_wr *bad;

		signal(SIGSEGV, on_segv);
		alarm(5);
		if (sigsetjmp(crash_jmp, 1) == 0)
			(void)ibv_post_send(e.s,
				(struct ibv_send_wr *)(uintptr_t)8, &bad);
		/* Recovered: the model's lock can be taken again. */
		(void)pmr_hca_pending();
		_exit(ibv_destroy_qp(e.s) == 0 ? 0 : 2);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* --- RC (issue 16) ---------------------------------------------------- */

#define RC_ALL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | \
	IBV_ACCESS_REMOTE_WRITE)
#define RC_BUF 8192

struct rc {
	struct ibv_cq *acq, *bcq;
	struct ibv_qp *a, *b;	/* a: requester, b: responder */
	uint8_t *abuf, *bbuf;
	struct ibv_mr *amr, *bmr;
};

static struct ibv_qp *
rc_qp(struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = { .send_cq = cq, .recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			.max_send_sge = 4, .max_recv_sge = 4 } };
	struct ibv_qp *qp = ibv_create_qp(e.pd, &ia);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = RC_ALL };

	assert_non_null(qp);
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE |
		IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0);
	return qp;
}

static void
rc_rtr_attr(struct ibv_qp_attr *a, uint32_t dqpn, int max_dest)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTR;
	a->path_mtu = IBV_MTU_1024;
	a->dest_qp_num = dqpn;
	a->max_dest_rd_atomic = (uint8_t)max_dest;
	a->min_rnr_timer = 1;
	a->ah_attr.is_global = 1;
	a->ah_attr.port_num = 1;
	a->ah_attr.grh.dgid = e.ah_attr_gid;
	a->ah_attr.grh.sgid_index = 1;
	a->ah_attr.grh.hop_limit = 64;
}

#define RC_RTR (IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | \
	IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | \
	IBV_QP_MIN_RNR_TIMER)
#define RC_RTS (IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | \
	IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)

static void
rc_connect(struct ibv_qp *qp, uint32_t dqpn, int max_rd, int max_dest,
	int rnr_retry)
{
	struct ibv_qp_attr a;

	rc_rtr_attr(&a, dqpn, max_dest);
	assert_int_equal(ibv_modify_qp(qp, &a, RC_RTR), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = (uint8_t)rnr_retry;
	a.max_rd_atomic = (uint8_t)max_rd;
	assert_int_equal(ibv_modify_qp(qp, &a, RC_RTS), 0);
}

static void
rc_open(struct rc *r, int max_rd, int max_dest, int rnr_retry,
	int b_access)
{
	memset(r, 0, sizeof(*r));
	r->acq = ibv_create_cq(e.ctx, 64, NULL, NULL, 0);
	r->bcq = ibv_create_cq(e.ctx, 64, NULL, NULL, 0);
	assert_non_null(r->acq);
	assert_non_null(r->bcq);
	r->a = rc_qp(r->acq);
	r->b = rc_qp(r->bcq);
	rc_connect(r->a, r->b->qp_num, max_rd, 1, rnr_retry);
	rc_connect(r->b, r->a->qp_num, 1, max_dest, rnr_retry);
	r->abuf = calloc(1, RC_BUF);
	r->bbuf = calloc(1, RC_BUF);
	assert_non_null(r->abuf);
	assert_non_null(r->bbuf);
	r->amr = ibv_reg_mr(e.pd, r->abuf, RC_BUF, RC_ALL);
	r->bmr = ibv_reg_mr(e.pd, r->bbuf, RC_BUF, b_access);
	assert_non_null(r->amr);
	assert_non_null(r->bmr);
}

static void
rc_close(struct rc *r)
{
	struct ibv_wc wc[64];

	while (ibv_poll_cq(r->acq, 64, wc) > 0 ||
			ibv_poll_cq(r->bcq, 64, wc) > 0)
		;
	if (r->a != NULL)
		assert_int_equal(ibv_destroy_qp(r->a), 0);
	if (r->b != NULL)
		assert_int_equal(ibv_destroy_qp(r->b), 0);
	assert_int_equal(ibv_dereg_mr(r->amr), 0);
	assert_int_equal(ibv_dereg_mr(r->bmr), 0);
	assert_int_equal(ibv_destroy_cq(r->acq), 0);
	assert_int_equal(ibv_destroy_cq(r->bcq), 0);
	free(r->abuf);
	free(r->bbuf);
}

static int
rc_post(struct ibv_qp *qp, enum ibv_wr_opcode op, void *p, uint32_t len,
	uint32_t lkey, void *rp, uint32_t rkey, unsigned int flags,
	uint64_t id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)p, .length = len,
		.lkey = lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &sge,
		.num_sge = len > 0, .opcode = op, .send_flags = flags },
		*bad;

	wr.wr.rdma.remote_addr = (uintptr_t)rp;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(qp, &wr, &bad);
}

static int
rc_recv(struct ibv_qp *qp, void *p, uint32_t len, uint32_t lkey,
	uint64_t id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)p, .length = len,
		.lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge,
		.num_sge = 1 }, *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

/* One completion from cq (the model completes within a poll). */
static struct ibv_wc
wc1(struct ibv_cq *cq)
{
	struct ibv_wc wc;

	memset(&wc, 0, sizeof(wc));
	assert_int_equal(ibv_poll_cq(cq, 1, &wc), 1);
	return wc;
}

static enum ibv_qp_state
state_of(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	assert_int_equal(ibv_query_qp(qp, &a, IBV_QP_STATE, &ia), 0);
	return a.qp_state;
}

/* The RC column of the state table: required and optional attributes,
 * the limits, what is not modelled. */
static void
test_rc_states(void **state)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_init_attr cia = { .send_cq = NULL, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4 } };
	struct ibv_qp *qp, *peer;

	(void)state;
	cia.send_cq = e.scq;
	cia.recv_cq = e.scq;
	qp = ibv_create_qp(e.pd, &cia);
	peer = rc_qp(e.scq);
	assert_non_null(qp);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	/* RESET->INIT needs the access flags; a QKey is UD's */
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE |
		IBV_QP_PKEY_INDEX | IBV_QP_PORT), EINVAL);
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE |
		IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS |
		IBV_QP_QKEY), EINVAL);
	a.qp_access_flags = RC_ALL;
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE |
		IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0);
	/* INIT->RTS skips RTR */
	a.qp_state = IBV_QPS_RTS;
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE), EINVAL);
	rc_rtr_attr(&a, peer->qp_num, 2);
	assert_int_equal(ibv_modify_qp(qp, &a, RC_RTR & ~IBV_QP_RQ_PSN),
		EINVAL);
	assert_int_equal(ibv_modify_qp(qp, &a, RC_RTR &
		~IBV_QP_MIN_RNR_TIMER), EINVAL);
	assert_int_equal(ibv_modify_qp(qp, &a, RC_RTR | IBV_QP_ALT_PATH),
		EINVAL);
	a.max_dest_rd_atomic = 129;
	assert_int_equal(ibv_modify_qp(qp, &a, RC_RTR), EINVAL);
	rc_rtr_attr(&a, peer->qp_num, 2);
	a.path_mtu = IBV_MTU_4096 + 1;
	assert_int_equal(ibv_modify_qp(qp, &a, RC_RTR), EINVAL);
	rc_rtr_attr(&a, peer->qp_num, 2);
	a.ah_attr.grh.sgid_index = 5;	/* empty */
	assert_int_equal(ibv_modify_qp(qp, &a, RC_RTR), ENODATA);
	rc_rtr_attr(&a, peer->qp_num, 2);
	a.ah_attr.is_global = 0;	/* RoCE needs a GRH */
	assert_int_equal(ibv_modify_qp(qp, &a, RC_RTR), EINVAL);
	assert_int_equal(state_of(qp), IBV_QPS_INIT);
	rc_rtr_attr(&a, peer->qp_num, 2);
	assert_int_equal(ibv_modify_qp(qp, &a, RC_RTR), 0);
	/* posting before RTS is refused */
	assert_int_equal(rc_post(qp, IBV_WR_SEND, NULL, 0, 0, NULL, 0, 0, 1),
		EINVAL);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 8;
	a.rnr_retry = 7;
	a.max_rd_atomic = 3;
	a.sq_psn = 0x123456;
	assert_int_equal(ibv_modify_qp(qp, &a, RC_RTS), EINVAL);
	a.retry_cnt = 7;
	assert_int_equal(ibv_modify_qp(qp, &a, RC_RTS & ~IBV_QP_RNR_RETRY),
		EINVAL);
	assert_int_equal(ibv_modify_qp(qp, &a, RC_RTS), 0);
	a.qp_state = IBV_QPS_SQD;
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE), EOPNOTSUPP);
	/* RTS->RTS: only the optional ones */
	a.qp_state = IBV_QPS_RTS;
	a.min_rnr_timer = 12;
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE |
		IBV_QP_MIN_RNR_TIMER), 0);
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE |
		IBV_QP_SQ_PSN), EINVAL);
	assert_int_equal(ibv_query_qp(qp, &a, 0, &ia), 0);
	assert_int_equal(a.qp_state, IBV_QPS_RTS);
	assert_int_equal(a.dest_qp_num, peer->qp_num);
	assert_int_equal(a.max_rd_atomic, 3);
	assert_int_equal(a.max_dest_rd_atomic, 2);
	assert_int_equal(a.min_rnr_timer, 12);
	assert_int_equal(a.rnr_retry, 7);
	assert_int_equal(a.timeout, 14);
	assert_int_equal(a.sq_psn, 0x123456);
	assert_int_equal(a.qp_access_flags, RC_ALL);
	assert_int_equal(a.path_mtu, IBV_MTU_1024);
	assert_memory_equal(a.ah_attr.grh.dgid.raw, e.ah_attr_gid.raw, 16);
	assert_int_equal(ia.qp_type, IBV_QPT_RC);
	a.qp_state = IBV_QPS_RESET;
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0);
	assert_int_equal(ibv_destroy_qp(qp), 0);
	assert_int_equal(ibv_destroy_qp(peer), 0);
}

/* SEND, WRITE, READ: bytes where they belong, read when executed, each
 * counted on the requester (bytes too). */
static void
test_rc_ops(void **state)
{
	struct pmr_hca_counters c;
	struct ibv_wc wc;
	struct rc r;

	(void)state;
	rc_open(&r, 4, 4, 7, RC_ALL);
	assert_int_equal(rc_recv(r.b, r.bbuf, 4096, r.bmr->lkey, 9), 0);
	memset(r.abuf, 'a', 3000);
	pmr_hca_step_mode(1);
	assert_int_equal(rc_post(r.a, IBV_WR_SEND, r.abuf, 3000, r.amr->lkey,
		NULL, 0, IBV_SEND_SIGNALED, 1), 0);
	/* read at execution, not at the post */
	memset(r.abuf, 'b', 3000);
	assert_int_equal(pmr_hca_pending(), 1);
	assert_int_equal(pmr_hca_step(8), 1);
	pmr_hca_step_mode(0);
	wc = wc1(r.acq);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_SEND);
	wc = wc1(r.bcq);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_RECV);
	assert_int_equal(wc.byte_len, 3000);	/* no GRH on RC */
	assert_int_equal(wc.wr_id, 9);
	assert_int_equal(r.bbuf[0], 'b');
	assert_int_equal(r.bbuf[2999], 'b');
	assert_int_equal(r.bbuf[3000], 0);
	/* WRITE unsignalled, then READ it back signalled */
	memset(r.abuf, 'w', 5000);
	assert_int_equal(rc_post(r.a, IBV_WR_RDMA_WRITE, r.abuf, 5000,
		r.amr->lkey, r.bbuf + 10, r.bmr->rkey, 0, 2), 0);
	assert_int_equal(rc_post(r.a, IBV_WR_RDMA_READ, r.abuf + 6000, 100,
		r.amr->lkey, r.bbuf + 5000, r.bmr->rkey, IBV_SEND_SIGNALED, 3),
		0);
	wc = wc1(r.acq);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_RDMA_READ);
	assert_int_equal(wc.wr_id, 3);
	assert_int_equal(wc.byte_len, 100);
	assert_int_equal(r.bbuf[9], 'b');
	assert_int_equal(r.bbuf[10], 'w');
	assert_int_equal(r.bbuf[5009], 'w');
	assert_int_equal(r.abuf[6000 + 9], 'w');	/* bbuf[5009] */
	assert_int_equal(r.abuf[6000 + 10], 0);		/* bbuf[5010] */
	assert_int_equal(ibv_poll_cq(r.bcq, 1, &wc), 0);
	assert_int_equal(pmr_hca_counters_get(r.a, &c), 0);
	assert_int_equal(c.rc_sends, 1);
	assert_int_equal(c.rc_writes, 1);
	assert_int_equal(c.rc_reads, 1);
	assert_int_equal(c.bytes_written, 5000);
	assert_int_equal(c.bytes_read, 100);
	assert_int_equal(pmr_hca_counters_get(r.b, &c), 0);
	assert_int_equal(c.rx_packets, 1);
	assert_int_equal(c.rd_credits_high_water, 1);
	/* a READ into a wrong lkey: a local protection error, the
	 * responder unaffected */
	assert_int_equal(rc_post(r.a, IBV_WR_RDMA_READ, r.abuf, 16,
		r.amr->lkey ^ 0x100, r.bbuf, r.bmr->rkey, 0, 4), 0);
	wc = wc1(r.acq);
	assert_int_equal(wc.status, IBV_WC_LOC_PROT_ERR);
	assert_int_equal(state_of(r.a), IBV_QPS_ERR);
	assert_int_equal(state_of(r.b), IBV_QPS_RTS);
	rc_close(&r);
}

/* RNR: rnr_retry retries, one per pass, then RNR_RETRY_EXC_ERR; 7
 * waits for ever and delivers once a receive is posted. */
static void
test_rc_rnr(void **state)
{
	struct pmr_hca_counters c;
	struct ibv_wc wc;
	struct rc r;
	int i;

	(void)state;
	rc_open(&r, 1, 1, 2, RC_ALL);
	assert_int_equal(rc_post(r.a, IBV_WR_SEND, r.abuf, 8, r.amr->lkey,
		NULL, 0, IBV_SEND_SIGNALED, 1), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(ibv_poll_cq(r.acq, 1, &wc), 0);
		assert_int_equal(pmr_hca_pending(), 1);
	}
	wc = wc1(r.acq);
	assert_int_equal(wc.status, IBV_WC_RNR_RETRY_EXC_ERR);
	assert_int_equal(state_of(r.a), IBV_QPS_ERR);
	assert_int_equal(pmr_hca_counters_get(r.a, &c), 0);
	assert_int_equal(c.rnr_retries, 2);
	assert_int_equal(c.rnr_retry_exc, 1);
	rc_close(&r);

	rc_open(&r, 1, 1, 7, RC_ALL);
	assert_int_equal(rc_post(r.a, IBV_WR_SEND, r.abuf, 8, r.amr->lkey,
		NULL, 0, IBV_SEND_SIGNALED, 1), 0);
	for (i = 0; i < 20; i++)
		assert_int_equal(ibv_poll_cq(r.acq, 1, &wc), 0);
	assert_int_equal(rc_recv(r.b, r.bbuf, 64, r.bmr->lkey, 2), 0);
	wc = wc1(r.acq);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc1(r.bcq).byte_len, 8);
	assert_int_equal(pmr_hca_counters_get(r.a, &c), 0);
	assert_int_equal(c.rnr_retries, 20);
	rc_close(&r);
}

/* Read credits: READs back to back are in flight together up to the
 * requester's max_rd_atomic; more than the responder's
 * max_dest_rd_atomic is an Invalid Request that ends both QPs. */
static void
test_rc_read_credits(void **state)
{
	struct pmr_hca_counters c;
	struct ibv_async_event ev;
	struct ibv_wc wc[8];
	struct rc r;
	int i;

	(void)state;
	/* 6 READs, requester cap 2, responder 2: all served */
	rc_open(&r, 2, 2, 7, RC_ALL);
	for (i = 0; i < 6; i++)
		assert_int_equal(rc_post(r.a, IBV_WR_RDMA_READ, r.abuf, 64,
			r.amr->lkey, r.bbuf, r.bmr->rkey, IBV_SEND_SIGNALED,
			(uint64_t)i), 0);
	assert_int_equal(ibv_poll_cq(r.acq, 8, wc), 6);
	for (i = 0; i < 6; i++) {
		assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
		assert_int_equal(wc[i].wr_id, (uint64_t)i);
	}
	assert_int_equal(pmr_hca_counters_get(r.b, &c), 0);
	assert_int_equal(c.rd_credits_high_water, 2);
	assert_int_equal(c.rd_credit_err, 0);
	rc_close(&r);
	/* requester cap 4, responder 2: the third in flight is refused */
	rc_open(&r, 4, 2, 7, RC_ALL);
	for (i = 0; i < 4; i++)
		assert_int_equal(rc_post(r.a, IBV_WR_RDMA_READ, r.abuf, 64,
			r.amr->lkey, r.bbuf, r.bmr->rkey, IBV_SEND_SIGNALED,
			(uint64_t)i), 0);
	assert_int_equal(ibv_poll_cq(r.acq, 8, wc), 4);
	assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
	assert_int_equal(wc[1].status, IBV_WC_SUCCESS);
	assert_int_equal(wc[2].status, IBV_WC_REM_INV_REQ_ERR);
	assert_int_equal(wc[3].status, IBV_WC_WR_FLUSH_ERR);
	assert_int_equal(state_of(r.a), IBV_QPS_ERR);
	assert_int_equal(state_of(r.b), IBV_QPS_ERR);
	assert_int_equal(pmr_hca_counters_get(r.b, &c), 0);
	assert_int_equal(c.rd_credit_err, 1);
	fcntl(e.ctx->async_fd, F_SETFL, O_NONBLOCK);
	assert_int_equal(ibv_get_async_event(e.ctx, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_QP_REQ_ERR);
	assert_ptr_equal(ev.element.qp, r.b);
	ibv_ack_async_event(&ev);
	rc_close(&r);
}

/* A bad rkey: REM_ACCESS_ERR, both QPs in ERR, QP_ACCESS_ERR on the
 * responder through a readable async fd; its destroy is refused until
 * the event is acked. */
static void
test_rc_access_event(void **state)
{
	struct pmr_hca_counters c;
	struct ibv_async_event ev;
	struct pollfd pfd = { .fd = e.ctx->async_fd, .events = POLLIN };
	struct ibv_wc wc;
	struct rc r;

	(void)state;
	fcntl(e.ctx->async_fd, F_SETFL, O_NONBLOCK);
	errno = 0;
	assert_int_equal(ibv_get_async_event(e.ctx, &ev), -1);
	assert_int_equal(errno, EAGAIN);
	assert_int_equal(poll(&pfd, 1, 0), 0);
	rc_open(&r, 1, 1, 7, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	/* the MR has no REMOTE_WRITE */
	assert_int_equal(rc_post(r.a, IBV_WR_RDMA_WRITE, r.abuf, 16,
		r.amr->lkey, r.bbuf, r.bmr->rkey, IBV_SEND_SIGNALED, 1), 0);
	assert_int_equal(rc_post(r.a, IBV_WR_RDMA_WRITE, r.abuf, 16,
		r.amr->lkey, r.bbuf, r.bmr->rkey, 0, 2), 0);
	assert_int_equal(rc_recv(r.b, r.bbuf, 16, r.bmr->lkey, 3), 0);
	wc = wc1(r.acq);
	assert_int_equal(wc.status, IBV_WC_REM_ACCESS_ERR);
	wc = wc1(r.acq);
	assert_int_equal(wc.status, IBV_WC_WR_FLUSH_ERR);
	assert_int_equal(wc.wr_id, 2);
	wc = wc1(r.bcq);
	assert_int_equal(wc.status, IBV_WC_WR_FLUSH_ERR);
	assert_int_equal(state_of(r.b), IBV_QPS_ERR);
	assert_int_equal(r.bbuf[0], 0);
	assert_int_equal(pmr_hca_counters_get(r.b, &c), 0);
	assert_int_equal(c.access_err, 1);
	assert_int_equal(poll(&pfd, 1, 0), 1);
	assert_int_equal(ibv_get_async_event(e.ctx, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_QP_ACCESS_ERR);
	assert_ptr_equal(ev.element.qp, r.b);
	assert_int_equal(poll(&pfd, 1, 0), 0);
	assert_int_equal(ibv_get_async_event(e.ctx, &ev), -1);
	/* handed out, not acked: destroy refused (rdma-core would block) */
	assert_int_equal(ibv_destroy_qp(r.b), EBUSY);
	ev.event_type = IBV_EVENT_QP_ACCESS_ERR;
	ev.element.qp = r.b;
	ibv_ack_async_event(&ev);
	/* a WQE posted in ERR completes WR_FLUSH_ERR */
	assert_int_equal(rc_post(r.a, IBV_WR_SEND, r.abuf, 4, r.amr->lkey,
		NULL, 0, 0, 5), 0);
	wc = wc1(r.acq);
	assert_int_equal(wc.status, IBV_WC_WR_FLUSH_ERR);
	assert_int_equal(wc.wr_id, 5);
	rc_close(&r);
}

/* A peer destroyed, or forced to ERR: RETRY_EXC_ERR at once; the forced
 * QP flushes its work and raises QP_FATAL. */
static void
test_rc_peer_gone(void **state)
{
	struct pmr_hca_counters c;
	struct ibv_async_event ev;
	struct ibv_wc wc;
	struct rc r;

	(void)state;
	fcntl(e.ctx->async_fd, F_SETFL, O_NONBLOCK);
	rc_open(&r, 1, 1, 7, RC_ALL);
	assert_int_equal(rc_recv(r.b, r.bbuf, 16, r.bmr->lkey, 3), 0);
	assert_int_equal(pmr_hca_qp_force_err(r.b), 0);
	wc = wc1(r.bcq);
	assert_int_equal(wc.status, IBV_WC_WR_FLUSH_ERR);
	assert_int_equal(ibv_get_async_event(e.ctx, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_QP_FATAL);
	assert_ptr_equal(ev.element.qp, r.b);
	ibv_ack_async_event(&ev);
	assert_int_equal(rc_post(r.a, IBV_WR_RDMA_WRITE, r.abuf, 16,
		r.amr->lkey, r.bbuf, r.bmr->rkey, IBV_SEND_SIGNALED, 1), 0);
	wc = wc1(r.acq);
	assert_int_equal(wc.status, IBV_WC_RETRY_EXC_ERR);
	assert_int_equal(state_of(r.a), IBV_QPS_ERR);
	assert_int_equal(pmr_hca_counters_get(r.a, &c), 0);
	assert_int_equal(c.retry_exc, 1);
	assert_int_equal(pmr_hca_qp_force_err(NULL), EINVAL);
	rc_close(&r);
	/* destroyed */
	rc_open(&r, 1, 1, 7, RC_ALL);
	assert_int_equal(ibv_destroy_qp(r.b), 0);
	r.b = NULL;
	assert_int_equal(rc_post(r.a, IBV_WR_RDMA_READ, r.abuf, 16,
		r.amr->lkey, r.bbuf, r.bmr->rkey, IBV_SEND_SIGNALED, 1), 0);
	wc = wc1(r.acq);
	assert_int_equal(wc.status, IBV_WC_RETRY_EXC_ERR);
	rc_close(&r);
}

/* Two RC connections on one shared CQ (a driver's worker CQ): each
 * completion names its QP, each connection's bytes go to its peer. */
static void
test_rc_shared_cq(void **state)
{
	struct ibv_cq *cq = ibv_create_cq(e.ctx, 16, NULL, NULL, 0);
	struct ibv_qp *a[2], *b[2];
	struct ibv_mr *mr;
	struct ibv_wc wc[4];
	uint8_t *buf = calloc(1, 4096);
	int i, n;

	(void)state;
	assert_non_null(cq);
	assert_non_null(buf);
	mr = ibv_reg_mr(e.pd, buf, 4096, RC_ALL);
	assert_non_null(mr);
	for (i = 0; i < 2; i++) {
		a[i] = rc_qp(cq);
		b[i] = rc_qp(e.rcq);
	}
	for (i = 0; i < 2; i++) {
		rc_connect(a[i], b[i]->qp_num, 4, 1, 7);
		rc_connect(b[i], a[i]->qp_num, 1, 4, 7);
	}
	memset(buf, 'x', 64);
	for (i = 0; i < 2; i++)
		assert_int_equal(rc_post(a[i], IBV_WR_RDMA_WRITE, buf, 64,
			mr->lkey, buf + 1024 * (i + 1), mr->rkey,
			IBV_SEND_SIGNALED, (uint64_t)i), 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(rc_post(a[i], IBV_WR_RDMA_READ, buf + 3072 +
			64 * i, 64, mr->lkey, buf + 1024 * (i + 1), mr->rkey,
			IBV_SEND_SIGNALED, (uint64_t)(10 + i)), 0);
	n = ibv_poll_cq(cq, 4, wc);
	assert_int_equal(n, 4);
	for (i = 0; i < n; i++) {
		assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
		assert_int_equal(wc[i].qp_num, a[wc[i].wr_id % 10]->qp_num);
	}
	assert_int_equal(buf[1024], 'x');
	assert_int_equal(buf[2048 + 63], 'x');
	assert_int_equal(buf[3072 + 127], 'x');
	assert_int_equal(buf[3072 + 128], 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(ibv_destroy_qp(a[i]), 0);
		assert_int_equal(ibv_destroy_qp(b[i]), 0);
	}
	assert_int_equal(ibv_dereg_mr(mr), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	free(buf);
}

/* --- memory windows (issue 17) ---------------------------------------- */

/* The default device, with windows (mw=1); setup() on it. */
static int
setup_mw(void **state)
{
	struct pmr_hca_dev_config d;

	assert_int_equal(pmr_hca_reset(), 0);
	pmr_hca_config_default(&d);
	d.mw = 1;
	assert_int_equal(pmr_hca_configure(&d, 1), 0);
	return setup(state);
}

static int
teardown_mw(void **state)
{
	teardown(state);
	assert_int_equal(pmr_hca_reset(), 0);
	return 0;
}

#define MW_MR (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND)

/* Post a BIND_MW of mw over [p, p + len) of mr on qp (key: the new
 * rkey; 0: ibv_inc_rkey(mw->rkey)), signalled; returns the completion's
 * status (its opcode checked on success). */
static enum ibv_wc_status
mw_bind(struct ibv_qp *qp, struct ibv_cq *cq, struct ibv_mw *mw,
	struct ibv_mr *mr, void *p, uint64_t len, int access, uint32_t key)
{
	struct ibv_send_wr wr = { .wr_id = 50, .opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = key != 0 ? key : ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info.mr = mr;
	wr.bind_mw.bind_info.addr = (uintptr_t)p;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = access;
	assert_int_equal(ibv_post_send(qp, &wr, &bad), 0);
	wc = wc1(cq);
	assert_int_equal(wc.wr_id, 50);
	if (wc.status == IBV_WC_SUCCESS)
		assert_int_equal(wc.opcode, IBV_WC_BIND_MW);
	return wc.status;
}

static enum ibv_wc_status
mw_local_inv(struct ibv_qp *qp, struct ibv_cq *cq, uint32_t rkey)
{
	struct ibv_send_wr wr = { .wr_id = 51, .opcode = IBV_WR_LOCAL_INV,
		.send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;

	wr.invalidate_rkey = rkey;
	assert_int_equal(ibv_post_send(qp, &wr, &bad), 0);
	wc = wc1(cq);
	assert_int_equal(wc.wr_id, 51);
	assert_int_equal(wc.opcode, IBV_WC_LOCAL_INV);
	return wc.status;
}

/* A signalled READ of len bytes at rp with rkey into abuf; its status. */
static enum ibv_wc_status
mw_read(struct rc *r, void *rp, uint32_t rkey, uint32_t len)
{
	assert_int_equal(rc_post(r->a, IBV_WR_RDMA_READ, r->abuf, len,
		r->amr->lkey, rp, rkey, IBV_SEND_SIGNALED, 60), 0);
	return wc1(r->acq).status;
}

/* Allocation: type 2 only, its key's index fixed and distinct from every
 * MR's; ibv_bind_mw (type 1) refused; counted as objects; holds its PD. */
static void
test_mw_alloc(void **state)
{
	struct ibv_mw_bind b = { 0 };
	struct pmr_hca_objects o;
	struct ibv_device_attr da;
	struct ibv_mw *mw, *mw2;

	(void)state;
	assert_int_equal(ibv_query_device(e.ctx, &da), 0);
	assert_true(da.max_mw > 0);
	assert_true((da.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B) !=
		0);
	errno = 0;
	assert_null(ibv_alloc_mw(e.pd, IBV_MW_TYPE_1));
	assert_int_equal(errno, EOPNOTSUPP);
	mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	mw2 = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	assert_non_null(mw);
	assert_non_null(mw2);
	assert_int_equal(mw->type, IBV_MW_TYPE_2);
	assert_ptr_equal(mw->pd, e.pd);
	assert_ptr_equal(mw->context, e.ctx);
	assert_int_not_equal(mw->rkey >> 8, mw2->rkey >> 8);
	assert_int_not_equal(mw->rkey >> 8, e.smr->rkey >> 8);
	assert_int_not_equal(mw->rkey >> 8, e.rmr->rkey >> 8);
	b.bind_info.mr = e.smr;
	b.bind_info.addr = (uintptr_t)e.sbuf;
	b.bind_info.length = 64;
	b.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
	assert_int_equal(ibv_bind_mw(e.s, mw, &b), EINVAL);
	assert_int_equal(pmr_hca_objects_get("hca0", &o), 0);
	assert_int_equal(o.mws, 2);
	assert_int_equal(ibv_dealloc_pd(e.pd), EBUSY);
	assert_int_equal(pmr_hca_reset(), EBUSY);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
	assert_int_equal(ibv_dealloc_mw(mw2), 0);
	assert_int_equal(pmr_hca_objects_get("hca0", &o), 0);
	assert_int_equal(o.mws, 0);
}

/* Binding is the bind WQE's execution, in send-queue order, not its
 * post: a READ executed before it is refused, one after it reads the
 * window; BIND then LOCAL_INV chained in one post complete in order and
 * leave the window unbound. */
static void
test_mw_bind_order(void **state)
{
	struct ibv_send_wr bw = { .wr_id = 1, .opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED }, iw = { .wr_id = 2,
		.opcode = IBV_WR_LOCAL_INV, .send_flags = IBV_SEND_SIGNALED },
		*bad;
	struct pmr_hca_counters c;
	struct ibv_wc wc[2];
	struct ibv_mw *mw;
	struct rc r;
	uint32_t key;

	(void)state;
	rc_open(&r, 4, 4, 7, MW_MR);
	mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	assert_non_null(mw);
	memset(r.bbuf + 256, 'm', 128);
	key = ibv_inc_rkey(mw->rkey);
	bw.bind_mw.mw = mw;
	bw.bind_mw.rkey = key;
	bw.bind_mw.bind_info.mr = r.bmr;
	bw.bind_mw.bind_info.addr = (uintptr_t)r.bbuf + 256;
	bw.bind_mw.bind_info.length = 128;
	bw.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
	pmr_hca_step_mode(1);
	/* The BIND posted, not executed: a READ executed first fails. */
	assert_int_equal(rc_post(r.a, IBV_WR_RDMA_READ, r.abuf, 128,
		r.amr->lkey, r.bbuf + 256, key, IBV_SEND_SIGNALED, 3), 0);
	assert_int_equal(ibv_post_send(r.b, &bw, &bad), 0);
	assert_int_equal(pmr_hca_step(1), 1);
	pmr_hca_step_mode(0);
	wc[0] = wc1(r.acq);
	assert_int_equal(wc[0].status, IBV_WC_REM_ACCESS_ERR);
	rc_close(&r);
	assert_int_equal(ibv_dealloc_mw(mw), 0);

	rc_open(&r, 4, 4, 7, MW_MR);
	mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	assert_non_null(mw);
	memset(r.bbuf + 256, 'm', 128);
	key = ibv_inc_rkey(mw->rkey);
	bw.bind_mw.mw = mw;
	bw.bind_mw.rkey = key;
	bw.bind_mw.bind_info.mr = r.bmr;
	bw.bind_mw.bind_info.addr = (uintptr_t)r.bbuf + 256;
	pmr_hca_step_mode(1);
	/* The BIND first (its QP got work first), then the READ. */
	assert_int_equal(ibv_post_send(r.b, &bw, &bad), 0);
	assert_int_equal(rc_post(r.a, IBV_WR_RDMA_READ, r.abuf, 128,
		r.amr->lkey, r.bbuf + 256, key, IBV_SEND_SIGNALED, 3), 0);
	assert_int_equal(pmr_hca_step(2), 2);
	pmr_hca_step_mode(0);
	wc[0] = wc1(r.bcq);
	assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
	assert_int_equal(wc[0].opcode, IBV_WC_BIND_MW);
	wc[0] = wc1(r.acq);
	assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
	assert_int_equal(r.abuf[0], 'm');
	assert_int_equal(r.abuf[127], 'm');
	/* Unbind, rebind and invalidate in one post: in order. A rebind
	 * names the key bound last (rxe compares mw->rkey with it). */
	assert_int_equal(mw_local_inv(r.b, r.bcq, key), IBV_WC_SUCCESS);
	mw->rkey = key;
	key = ibv_inc_rkey(key);
	bw.bind_mw.rkey = key;
	iw.invalidate_rkey = key;
	bw.next = &iw;
	assert_int_equal(ibv_post_send(r.b, &bw, &bad), 0);
	assert_int_equal(ibv_poll_cq(r.bcq, 2, wc), 2);
	assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
	assert_int_equal(wc[0].opcode, IBV_WC_BIND_MW);
	assert_int_equal(wc[1].status, IBV_WC_SUCCESS);
	assert_int_equal(wc[1].opcode, IBV_WC_LOCAL_INV);
	assert_int_equal(wc[1].wr_id, 2);
	assert_int_equal(mw_read(&r, r.bbuf + 256, key, 16),
		IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(pmr_hca_counters_get(r.b, &c), 0);
	assert_int_equal(c.mw_binds, 2);
	assert_int_equal(c.mw_invalidates, 2);
	assert_int_equal(c.mw_reads, 1);
	assert_int_equal(c.mw_access_err, 1);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
	rc_close(&r);
}

/* Each refused bind: MW_BIND_ERR, the binding QP in ERR, the window
 * still free (a fresh pair binds it), counted. */
static void
test_mw_bind_checks(void **state)
{
	struct {
		const char *what;
		int mr_access;	/* the MR's */
		uint64_t off, len;
		int access;	/* the window's */
		int key_delta;	/* added to the new key's index */
	} bad[] = {
		{ "MR without MW_BIND", IBV_ACCESS_LOCAL_WRITE, 0, 64,
			IBV_ACCESS_REMOTE_READ, 0 },
		{ "REMOTE_WRITE on an MR without LOCAL_WRITE",
			IBV_ACCESS_MW_BIND, 0, 64, IBV_ACCESS_REMOTE_WRITE,
			0 },
		{ "past the MR's end", MW_MR, RC_BUF - 32, 64,
			IBV_ACCESS_REMOTE_READ, 0 },
		{ "zero length", MW_MR, 0, 0, IBV_ACCESS_REMOTE_READ, 0 },
		{ "a key with another index", MW_MR, 0, 64,
			IBV_ACCESS_REMOTE_READ, 1 },
		{ "zero-based (not modelled)", MW_MR, 0, 64,
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_ZERO_BASED, 0 },
	};
	struct pmr_hca_counters c;
	struct ibv_mw *mw;
	struct ibv_pd *pd2;
	struct rc r;
	unsigned int i;
	uint32_t key;

	(void)state;
	mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	assert_non_null(mw);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rc_open(&r, 4, 4, 7, bad[i].mr_access);
		key = ibv_inc_rkey(mw->rkey) + ((uint32_t)bad[i].key_delta <<
			8);
		print_message("%s\n", bad[i].what);
		assert_int_equal(mw_bind(r.b, r.bcq, mw, r.bmr, r.bbuf +
			bad[i].off, bad[i].len, bad[i].access, key),
			IBV_WC_MW_BIND_ERR);
		assert_int_equal(state_of(r.b), IBV_QPS_ERR);
		assert_int_equal(pmr_hca_counters_get(r.b, &c), 0);
		assert_int_equal(c.mw_bind_err, 1);
		assert_int_equal(c.mw_binds, 0);
		rc_close(&r);
	}
	/* Still free: it binds; bound, it does not bind again. */
	rc_open(&r, 4, 4, 7, MW_MR);
	assert_int_equal(mw_bind(r.b, r.bcq, mw, r.bmr, r.bbuf, 64,
		IBV_ACCESS_REMOTE_READ, 0), IBV_WC_SUCCESS);
	assert_int_equal(ibv_dereg_mr(r.bmr), EBUSY);	/* bound to it */
	mw->rkey = ibv_inc_rkey(mw->rkey);
	assert_int_equal(mw_bind(r.b, r.bcq, mw, r.bmr, r.bbuf, 64,
		IBV_ACCESS_REMOTE_READ, 0), IBV_WC_MW_BIND_ERR);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
	rc_close(&r);
	/* The ibv_mw's rkey must be the window's current key (rxe's
	 * kernel compares them): a rebind that did not store the key it
	 * bound last fails, one that did succeeds. */
	rc_open(&r, 4, 4, 7, MW_MR);
	mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	assert_non_null(mw);
	key = ibv_inc_rkey(mw->rkey);
	assert_int_equal(mw_bind(r.b, r.bcq, mw, r.bmr, r.bbuf, 64,
		IBV_ACCESS_REMOTE_READ, key), IBV_WC_SUCCESS);
	assert_int_equal(mw_local_inv(r.b, r.bcq, key), IBV_WC_SUCCESS);
	assert_int_equal(mw_bind(r.b, r.bcq, mw, r.bmr, r.bbuf, 64,
		IBV_ACCESS_REMOTE_READ, 0), IBV_WC_MW_BIND_ERR);
	rc_close(&r);
	rc_open(&r, 4, 4, 7, MW_MR);
	mw->rkey = key;
	assert_int_equal(mw_bind(r.b, r.bcq, mw, r.bmr, r.bbuf, 64,
		IBV_ACCESS_REMOTE_READ, 0), IBV_WC_SUCCESS);
	assert_int_equal(mw_read(&r, r.bbuf, ibv_inc_rkey(key), 64),
		IBV_WC_SUCCESS);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
	/* A window of another PD: refused. */
	pd2 = ibv_alloc_pd(e.ctx);
	assert_non_null(pd2);
	mw = ibv_alloc_mw(pd2, IBV_MW_TYPE_2);
	assert_non_null(mw);
	assert_int_equal(mw_bind(r.b, r.bcq, mw, r.bmr, r.bbuf, 64,
		IBV_ACCESS_REMOTE_READ, 0), IBV_WC_MW_BIND_ERR);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
	assert_int_equal(ibv_dealloc_pd(pd2), 0);
	rc_close(&r);
}

/* Remote access through a window: inside it, with its access, from the
 * peer of the QP that bound it; anything else REM_ACCESS_ERR with both
 * QPs in ERR, counted on the responder. */
static void
test_mw_access(void **state)
{
	struct pmr_hca_counters c;
	struct ibv_wc wc;
	struct ibv_mw *mw;
	struct rc r, q;
	uint32_t key;

	(void)state;
	/* Past the window (inside the MR): strict, refused. */
	rc_open(&r, 4, 4, 7, MW_MR);
	mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	assert_non_null(mw);
	key = ibv_inc_rkey(mw->rkey);
	assert_int_equal(mw_bind(r.b, r.bcq, mw, r.bmr, r.bbuf + 512, 256,
		IBV_ACCESS_REMOTE_READ, key), IBV_WC_SUCCESS);
	assert_int_equal(mw_read(&r, r.bbuf + 512, key, 256), IBV_WC_SUCCESS);
	assert_int_equal(mw_read(&r, r.bbuf + 640, key, 128), IBV_WC_SUCCESS);
	assert_int_equal(mw_read(&r, r.bbuf + 640, key, 129),
		IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(state_of(r.a), IBV_QPS_ERR);
	assert_int_equal(state_of(r.b), IBV_QPS_ERR);
	assert_int_equal(pmr_hca_counters_get(r.b, &c), 0);
	assert_int_equal(c.mw_reads, 2);
	assert_int_equal(c.mw_access_err, 1);
	assert_int_equal(c.access_err, 1);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
	rc_close(&r);
	/* Before the window's start; a WRITE through a READ window. */
	rc_open(&r, 4, 4, 7, MW_MR);
	mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	assert_non_null(mw);
	key = ibv_inc_rkey(mw->rkey);
	assert_int_equal(mw_bind(r.b, r.bcq, mw, r.bmr, r.bbuf + 512, 256,
		IBV_ACCESS_REMOTE_READ, key), IBV_WC_SUCCESS);
	assert_int_equal(mw_read(&r, r.bbuf + 511, key, 8),
		IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
	rc_close(&r);
	rc_open(&r, 4, 4, 7, MW_MR);
	mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	assert_non_null(mw);
	key = ibv_inc_rkey(mw->rkey);
	assert_int_equal(mw_bind(r.b, r.bcq, mw, r.bmr, r.bbuf, 256,
		IBV_ACCESS_REMOTE_READ, key), IBV_WC_SUCCESS);
	assert_int_equal(rc_post(r.a, IBV_WR_RDMA_WRITE, r.abuf, 8,
		r.amr->lkey, r.bbuf, key, IBV_SEND_SIGNALED, 4), 0);
	assert_int_equal(wc1(r.acq).status, IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
	rc_close(&r);
	/* A window granting REMOTE_WRITE takes WRITEs, inside it. */
	rc_open(&r, 4, 4, 7, MW_MR);
	mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	assert_non_null(mw);
	key = ibv_inc_rkey(mw->rkey);
	assert_int_equal(mw_bind(r.b, r.bcq, mw, r.bmr, r.bbuf + 1024, 64,
		IBV_ACCESS_REMOTE_WRITE, key), IBV_WC_SUCCESS);
	memset(r.abuf, 'w', 64);
	assert_int_equal(rc_post(r.a, IBV_WR_RDMA_WRITE, r.abuf, 64,
		r.amr->lkey, r.bbuf + 1024, key, IBV_SEND_SIGNALED, 5), 0);
	wc = wc1(r.acq);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(r.bbuf[1024 + 63], 'w');
	assert_int_equal(r.bbuf[1024 + 64], 0);
	assert_int_equal(pmr_hca_counters_get(r.b, &c), 0);
	assert_int_equal(c.mw_writes, 1);
	/* No READ through a WRITE-only window. */
	assert_int_equal(mw_read(&r, r.bbuf + 1024, key, 8),
		IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
	rc_close(&r);
	/* Another pair on the same PD: its responder did not bind. */
	rc_open(&r, 4, 4, 7, MW_MR);
	rc_open(&q, 4, 4, 7, RC_ALL);
	mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	assert_non_null(mw);
	key = ibv_inc_rkey(mw->rkey);
	assert_int_equal(mw_bind(r.b, r.bcq, mw, r.bmr, r.bbuf, 256,
		IBV_ACCESS_REMOTE_READ, key), IBV_WC_SUCCESS);
	assert_int_equal(rc_post(q.a, IBV_WR_RDMA_READ, q.abuf, 64,
		q.amr->lkey, r.bbuf, key, IBV_SEND_SIGNALED, 6), 0);
	assert_int_equal(wc1(q.acq).status, IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(state_of(q.b), IBV_QPS_ERR);
	assert_int_equal(pmr_hca_counters_get(q.b, &c), 0);
	assert_int_equal(c.mw_access_err, 1);
	assert_int_equal(mw_read(&r, r.bbuf, key, 64), IBV_WC_SUCCESS);
	/* The MR's own key gives no remote access (the MR has none). */
	assert_int_equal(mw_read(&r, r.bbuf, r.bmr->rkey, 64),
		IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
	rc_close(&q);
	rc_close(&r);
}

/* LOCAL_INV: only by the QP the window is bound to, only its current
 * key; SEND_WITH_INV: the receiver's completion says so (IBV_WC_WITH_INV,
 * invalidated_rkey) and the window is gone; a bad key there ends both
 * QPs. */
static void
test_mw_invalidate(void **state)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .wr_id = 7, .opcode = IBV_WR_SEND_WITH_INV,
		.send_flags = IBV_SEND_SIGNALED, .sg_list = &sge,
		.num_sge = 1 }, *bad;
	struct pmr_hca_counters c;
	struct ibv_wc wc;
	struct ibv_mw *mw;
	struct rc r;
	uint32_t key;

	(void)state;
	rc_open(&r, 4, 4, 7, MW_MR);
	mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	assert_non_null(mw);
	key = ibv_inc_rkey(mw->rkey);
	assert_int_equal(mw_bind(r.b, r.bcq, mw, r.bmr, r.bbuf, 256,
		IBV_ACCESS_REMOTE_READ, key), IBV_WC_SUCCESS);
	/* The peer QP cannot invalidate it (strict: type 2B windows
	 * belong to their QP). */
	assert_int_equal(mw_local_inv(r.a, r.acq, key),
		IBV_WC_LOC_QP_OP_ERR);
	assert_int_equal(state_of(r.a), IBV_QPS_ERR);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
	rc_close(&r);
	/* A stale key (the allocation's): refused. */
	rc_open(&r, 4, 4, 7, MW_MR);
	mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	assert_non_null(mw);
	key = ibv_inc_rkey(mw->rkey);
	assert_int_equal(mw_bind(r.b, r.bcq, mw, r.bmr, r.bbuf, 256,
		IBV_ACCESS_REMOTE_READ, key), IBV_WC_SUCCESS);
	assert_int_equal(mw_local_inv(r.b, r.bcq, mw->rkey),
		IBV_WC_LOC_QP_OP_ERR);
	assert_int_equal(state_of(r.b), IBV_QPS_ERR);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
	rc_close(&r);
	/* The current key: done, once. */
	rc_open(&r, 4, 4, 7, MW_MR);
	mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	assert_non_null(mw);
	key = ibv_inc_rkey(mw->rkey);
	assert_int_equal(mw_bind(r.b, r.bcq, mw, r.bmr, r.bbuf, 256,
		IBV_ACCESS_REMOTE_READ, key), IBV_WC_SUCCESS);
	assert_int_equal(mw_local_inv(r.b, r.bcq, key), IBV_WC_SUCCESS);
	assert_int_equal(mw_local_inv(r.b, r.bcq, key),
		IBV_WC_LOC_QP_OP_ERR);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
	rc_close(&r);
	/* SEND_WITH_INV. */
	rc_open(&r, 4, 4, 7, MW_MR);
	mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	assert_non_null(mw);
	key = ibv_inc_rkey(mw->rkey);
	assert_int_equal(mw_bind(r.b, r.bcq, mw, r.bmr, r.bbuf, 256,
		IBV_ACCESS_REMOTE_READ, key), IBV_WC_SUCCESS);
	assert_int_equal(rc_recv(r.b, r.bbuf + 1024, 64, r.bmr->lkey, 9), 0);
	sge.addr = (uintptr_t)r.abuf;
	sge.length = 8;
	sge.lkey = r.amr->lkey;
	wr.invalidate_rkey = key;
	assert_int_equal(ibv_post_send(r.a, &wr, &bad), 0);
	wc = wc1(r.acq);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_SEND);
	wc = wc1(r.bcq);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_RECV);
	assert_int_equal(wc.byte_len, 8);
	assert_int_equal(wc.wc_flags, IBV_WC_WITH_INV);
	assert_int_equal(wc.invalidated_rkey, key);
	assert_int_equal(pmr_hca_counters_get(r.b, &c), 0);
	assert_int_equal(c.mw_invalidates, 1);
	assert_int_equal(mw_read(&r, r.bbuf, key, 8), IBV_WC_REM_ACCESS_ERR);
	rc_close(&r);
	/* Again, now that it is free: a bad key at the receiver. */
	rc_open(&r, 4, 4, 7, MW_MR);
	assert_int_equal(rc_recv(r.b, r.bbuf + 1024, 64, r.bmr->lkey, 9), 0);
	sge.lkey = r.amr->lkey;
	sge.addr = (uintptr_t)r.abuf;
	assert_int_equal(ibv_post_send(r.a, &wr, &bad), 0);
	assert_int_equal(wc1(r.acq).status, IBV_WC_REM_INV_REQ_ERR);
	wc = wc1(r.bcq);
	assert_int_equal(wc.status, IBV_WC_REM_INV_REQ_ERR);
	assert_int_equal(state_of(r.a), IBV_QPS_ERR);
	assert_int_equal(state_of(r.b), IBV_QPS_ERR);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
	rc_close(&r);
}

/* A window's QP in ERR: LOCAL_INV there is flushed; the bound window is
 * deallocated (unbinding it, so that its MR may go); a window whose QP
 * was destroyed stays bound to nothing and is deallocated too. */
static void
test_mw_qp_err(void **state)
{
	struct pmr_hca_objects o;
	struct ibv_wc wc;
	struct ibv_send_wr wr = { .wr_id = 8, .opcode = IBV_WR_LOCAL_INV },
		*bad;
	struct ibv_mw *mw;
	struct rc r;
	uint32_t key;

	(void)state;
	rc_open(&r, 4, 4, 7, MW_MR);
	mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	assert_non_null(mw);
	key = ibv_inc_rkey(mw->rkey);
	assert_int_equal(mw_bind(r.b, r.bcq, mw, r.bmr, r.bbuf, 256,
		IBV_ACCESS_REMOTE_READ, key), IBV_WC_SUCCESS);
	assert_int_equal(pmr_hca_qp_force_err(r.b), 0);
	wr.invalidate_rkey = key;
	assert_int_equal(ibv_post_send(r.b, &wr, &bad), 0);
	wc = wc1(r.bcq);
	assert_int_equal(wc.status, IBV_WC_WR_FLUSH_ERR);
	assert_int_equal(wc.opcode, IBV_WC_LOCAL_INV);
	assert_int_equal(wc.wr_id, 8);
	assert_int_equal(ibv_dereg_mr(r.bmr), EBUSY);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
	assert_int_equal(pmr_hca_objects_get("hca0", &o), 0);
	assert_int_equal(o.mws, 0);
	rc_close(&r);	/* deregisters bmr: unbound now */
	/* Its QP destroyed first. */
	rc_open(&r, 4, 4, 7, MW_MR);
	mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	assert_non_null(mw);
	assert_int_equal(mw_bind(r.b, r.bcq, mw, r.bmr, r.bbuf, 256,
		IBV_ACCESS_REMOTE_READ, 0), IBV_WC_SUCCESS);
	assert_int_equal(ibv_destroy_qp(r.b), 0);
	r.b = NULL;
	assert_int_equal(ibv_dealloc_mw(mw), 0);
	rc_close(&r);
}

/* The rxe personality (rxe=1) on the same device with windows. */
static int
setup_mw_rxe(void **state)
{
	struct pmr_hca_dev_config d;

	assert_int_equal(pmr_hca_reset(), 0);
	pmr_hca_config_default(&d);
	d.mw = 1;
	d.rxe = 1;
	assert_int_equal(pmr_hca_configure(&d, 1), 0);
	return setup(state);
}

/* The rxe personality checks a READ through a window against the MR the
 * window is bound in, not the window (rxe's responder checks the MR's
 * range): the rest of the MR is read through a window of 256 bytes, not
 * a byte past it. What else makes the key good holds as strictly: the
 * peer of the QP that bound it only, the window's access, its current
 * key, bound. */
static void
test_mw_rxe_range(void **state)
{
	struct pmr_hca_counters c;
	struct ibv_mw *mw;
	struct rc r, q;
	uint32_t key, i;

	(void)state;
	rc_open(&r, 4, 4, 7, MW_MR);
	rc_open(&q, 4, 4, 7, RC_ALL);
	for (i = 0; i < RC_BUF; i++)
		r.bbuf[i] = (uint8_t)(i * 7 + 1);
	mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	assert_non_null(mw);
	key = ibv_inc_rkey(mw->rkey);
	assert_int_equal(mw_bind(r.b, r.bcq, mw, r.bmr, r.bbuf + 512, 256,
		IBV_ACCESS_REMOTE_READ, key), IBV_WC_SUCCESS);
	/* Before the window and up to the MR's last byte: read. */
	assert_int_equal(mw_read(&r, r.bbuf, key, 512), IBV_WC_SUCCESS);
	assert_memory_equal(r.abuf, r.bbuf, 512);
	assert_int_equal(mw_read(&r, r.bbuf + 768, key, RC_BUF - 768),
		IBV_WC_SUCCESS);
	assert_memory_equal(r.abuf, r.bbuf + 768, RC_BUF - 768);
	assert_int_equal(pmr_hca_counters_get(r.b, &c), 0);
	assert_int_equal(c.mw_reads, 2);
	/* Another QP of the PD: the window is bound to r.b's. */
	assert_int_equal(rc_post(q.a, IBV_WR_RDMA_READ, q.abuf, 64,
		q.amr->lkey, r.bbuf + 512, key, IBV_SEND_SIGNALED, 6), 0);
	assert_int_equal(wc1(q.acq).status, IBV_WC_REM_ACCESS_ERR);
	/* No WRITE through a READ window, even inside it. */
	assert_int_equal(rc_post(r.a, IBV_WR_RDMA_WRITE, r.abuf, 8,
		r.amr->lkey, r.bbuf + 512, key, IBV_SEND_SIGNALED, 4), 0);
	assert_int_equal(wc1(r.acq).status, IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
	rc_close(&q);
	rc_close(&r);
	/* One byte past the MR; an invalidated window's key. */
	rc_open(&r, 4, 4, 7, MW_MR);
	mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	assert_non_null(mw);
	key = ibv_inc_rkey(mw->rkey);
	assert_int_equal(mw_bind(r.b, r.bcq, mw, r.bmr, r.bbuf, 256,
		IBV_ACCESS_REMOTE_READ, key), IBV_WC_SUCCESS);
	assert_int_equal(mw_read(&r, r.bbuf + RC_BUF - 64, key, 65),
		IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(state_of(r.b), IBV_QPS_ERR);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
	rc_close(&r);
	rc_open(&r, 4, 4, 7, MW_MR);
	mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	assert_non_null(mw);
	key = ibv_inc_rkey(mw->rkey);
	assert_int_equal(mw_bind(r.b, r.bcq, mw, r.bmr, r.bbuf, 256,
		IBV_ACCESS_REMOTE_READ, key), IBV_WC_SUCCESS);
	assert_int_equal(mw_local_inv(r.b, r.bcq, key), IBV_WC_SUCCESS);
	assert_int_equal(mw_read(&r, r.bbuf + 1024, key, 64),
		IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
	rc_close(&r);
}

static void *
blocking_get(void *arg)
{
	static struct ibv_async_event ev;

	(void)arg;
	if (ibv_get_async_event(e.ctx, &ev) != 0)
		return NULL;
	return &ev;
}

/* Port, GID and raised events reach the context; a blocking fd blocks
 * until one comes; a CQ overrun raises CQ_ERR from the fd alone. */
static void
test_events(void **state)
{
	struct ibv_async_event ev, *evp;
	struct ibv_gid_entry ge;
	struct pmr_hca_gid_config g = { .type = PMR_HCA_GID_ROCE_V2 };
	struct pollfd pfd = { .fd = e.ctx->async_fd, .events = POLLIN };
	pthread_t th;
	void *ret;
	int i, n;

	(void)state;
	/* blocking (the default): a thread waits for the port event */
	assert_int_equal(fcntl(e.ctx->async_fd, F_GETFL) & O_NONBLOCK, 0);
	assert_int_equal(pthread_create(&th, NULL, blocking_get, NULL), 0);
	usleep(20000);
	assert_int_equal(pmr_hca_port_set_state("hca0", 1, IBV_PORT_DOWN),
		0);
	assert_int_equal(pthread_join(th, &ret), 0);
	assert_non_null(ret);
	evp = ret;
	assert_int_equal(evp->event_type, IBV_EVENT_PORT_ERR);
	assert_int_equal(evp->element.port_num, 1);
	ibv_ack_async_event(evp);
	fcntl(e.ctx->async_fd, F_SETFL, O_NONBLOCK);
	/* the same state again: no event */
	assert_int_equal(pmr_hca_port_set_state("hca0", 1, IBV_PORT_DOWN),
		0);
	assert_int_equal(poll(&pfd, 1, 0), 0);
	assert_int_equal(pmr_hca_port_set_state("hca0", 1, IBV_PORT_ACTIVE),
		0);
	assert_int_equal(ibv_get_async_event(e.ctx, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_PORT_ACTIVE);
	ibv_ack_async_event(&ev);
	/* a GID added, then deleted */
	memcpy(g.gid.raw, "\0\0\0\0\0\0\0\0\0\0\xff\xff\xc0\x00\x02\x63", 16);
	assert_int_equal(pmr_hca_gid_set("hca0", 1, 3, &g), 0);
	assert_int_equal(ibv_get_async_event(e.ctx, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_GID_CHANGE);
	ibv_ack_async_event(&ev);
	assert_int_equal(ibv_query_gid_ex(e.ctx, 1, 3, &ge, 0), 0);
	assert_memory_equal(ge.gid.raw, g.gid.raw, 16);
	assert_int_equal(pmr_hca_gid_set("hca0", 1, 4, &g), EINVAL); /* dup */
	g.type = PMR_HCA_GID_IB;	/* not on Ethernet */
	assert_int_equal(pmr_hca_gid_set("hca0", 1, 4, &g), EINVAL);
	g.type = PMR_HCA_GID_EMPTY;
	assert_int_equal(pmr_hca_gid_set("hca0", 1, 3, &g), 0);
	assert_int_equal(ibv_query_gid_ex(e.ctx, 1, 3, &ge, 0), ENODATA);
	assert_int_equal(pmr_hca_gid_set("hcaX", 1, 3, &g), ENODEV);
	assert_int_equal(ibv_get_async_event(e.ctx, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_GID_CHANGE);
	ibv_ack_async_event(&ev);
	/* raised on request */
	memset(&ev, 0, sizeof(ev));
	ev.event_type = IBV_EVENT_LID_CHANGE;
	ev.element.port_num = 1;
	assert_int_equal(pmr_hca_event_raise("hca0", &ev), 0);
	ev.element.port_num = 2;
	assert_int_equal(pmr_hca_event_raise("hca0", &ev), EINVAL);
	ev.event_type = IBV_EVENT_COMM_EST;
	ev.element.qp = e.s;
	assert_int_equal(pmr_hca_event_raise(NULL, &ev), 0);
	ev.event_type = IBV_EVENT_SRQ_ERR;
	assert_int_equal(pmr_hca_event_raise("hca0", &ev), EINVAL);
	assert_int_equal(ibv_get_async_event(e.ctx, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_LID_CHANGE);
	ibv_ack_async_event(&ev);
	assert_int_equal(ibv_get_async_event(e.ctx, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_COMM_EST);
	assert_ptr_equal(ev.element.qp, e.s);
	ibv_ack_async_event(&ev);
	/* a CQ overrun seen through the fd alone: the fd reads readable
	 * once sends have been pending for a while (nobody polls), the get
	 * executes them */
	{
		struct ibv_cq *cq = ibv_create_cq(e.ctx, 1, NULL, NULL, 0);
		struct ibv_qp_init_attr ia = { .send_cq = NULL,
			.qp_type = IBV_QPT_UD, .sq_sig_all = 1,
			.cap = { .max_send_wr = 8, .max_recv_wr = 1,
				.max_send_sge = 1, .max_recv_sge = 1 } };
		struct ibv_qp *qp;

		assert_non_null(cq);
		ia.send_cq = cq;
		ia.recv_cq = cq;
		qp = ibv_create_qp(e.pd, &ia);
		assert_non_null(qp);
		to_rts(qp);
		for (i = 0; i < 3; i++)
			assert_int_equal(send1(qp, e.sbuf, 8, 0, 0xfffff0,
				QKEY, (uint64_t)i), 0);
		assert_int_equal(poll(&pfd, 1, 5000), 1);
		for (n = 0; ibv_get_async_event(e.ctx, &ev) == 0; n++) {
			assert_int_equal(ev.event_type, IBV_EVENT_CQ_ERR);
			assert_ptr_equal(ev.element.cq, cq);
			if (n == 0)
				assert_int_equal(ibv_destroy_cq(cq), EBUSY);
			ibv_ack_async_event(&ev);
		}
		assert_int_equal(n, 2);
		assert_int_equal(poll(&pfd, 1, 0), 0);
		assert_int_equal(ibv_destroy_qp(qp), 0);
		assert_int_equal(ibv_destroy_cq(cq), 0);
	}
}

/*
 * Stop 23: while the application polls its CQs, which execute its work,
 * the async fd stays quiet. It used to read readable at every post, so
 * the event reader (the engine's nexus) woke and ran the model at every
 * send, a third thread contending for it with the two pollers. Now work
 * makes the fd readable only once it has waited about a millisecond
 * (HCA_IDLE_WORK_NS) unexecuted, and the reader it wakes stops the timer:
 * at most one wake-up per millisecond, whatever the rate of posts.
 */
static void
test_events_quiet_while_polled(void **state)
{
	struct pollfd pfd = { .fd = e.ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	struct timespec t0, t1;
	unsigned int i, wakes = 0;
	struct ibv_wc wc;
	double ms;

	(void)state;
	assert_int_equal(fcntl(e.ctx->async_fd, F_SETFL, O_NONBLOCK), 0);
	/* The fd is read: nothing yet. */
	assert_int_equal(ibv_get_async_event(e.ctx, &ev), -1);
	assert_int_equal(errno, EAGAIN);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 2000; i++) {
		/* To nobody's QP: the model drops it; no receive used. */
		assert_int_equal(send1(e.s, e.sbuf, 8, IBV_SEND_SIGNALED,
			0xfffff0, QKEY, i), 0);
		if (poll(&pfd, 1, 0) == 1) {
			/* A wake-up: the reader executes the send, the fd
			 * goes quiet. */
			wakes++;
			assert_int_equal(ibv_get_async_event(e.ctx, &ev), -1);
			assert_int_equal(poll(&pfd, 1, 0), 0);
		}
		while (ibv_poll_cq(e.scq, 1, &wc) == 0)
			;
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		(double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	print_message("2000 sends in %.1f ms: %u wake-ups\n", ms, wakes);
	assert_true(wakes <= (unsigned int)ms + 2);
	/* Work nobody executes still wakes the reader, which executes it. */
	assert_int_equal(send1(e.s, e.sbuf, 8, IBV_SEND_SIGNALED, 0xfffff0,
		QKEY, 9999), 0);
	assert_int_equal(poll(&pfd, 1, 5000), 1);
	assert_int_equal(ibv_get_async_event(e.ctx, &ev), -1);
	assert_int_equal(poll(&pfd, 1, 0), 0);
	assert_int_equal(ibv_poll_cq(e.scq, 1, &wc), 1);
	assert_int_equal(wc.wr_id, 9999);
	assert_int_equal(fcntl(e.ctx->async_fd, F_SETFL, 0), 0);
}

/* RC between two InfiniBand devices (AV by DLID, no GRH), and a port
 * going down under a connection: RETRY_EXC_ERR, PORT_ERR on the
 * device's context. */
static void
test_rc_ib(void **state)
{
	struct ibv_qp_init_attr ia = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			.max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp_attr at;
	struct ibv_async_event ev;
	struct node nd[2];
	struct ibv_qp *q[2];
	struct ibv_mr *m[2];
	struct ibv_wc wc;
	int i;

	(void)state;
	fabric("dev=ib0,link=ib,lid=5 dev=ib1,link=ib,lid=6");
	node_open(&nd[0], "ib0", 1);
	node_open(&nd[1], "ib1", 1);
	for (i = 0; i < 2; i++) {
		ia.send_cq = nd[i].cq;
		ia.recv_cq = nd[i].cq;
		q[i] = ibv_create_qp(nd[i].pd, &ia);
		assert_non_null(q[i]);
		m[i] = ibv_reg_mr(nd[i].pd, nd[i].buf, SLOT, RC_ALL);
		assert_non_null(m[i]);
		memset(&at, 0, sizeof(at));
		at.qp_state = IBV_QPS_INIT;
		at.port_num = 1;
		at.qp_access_flags = RC_ALL;
		assert_int_equal(ibv_modify_qp(q[i], &at, IBV_QP_STATE |
			IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			IBV_QP_ACCESS_FLAGS), 0);
	}
	for (i = 0; i < 2; i++) {
		memset(&at, 0, sizeof(at));
		at.qp_state = IBV_QPS_RTR;
		at.path_mtu = IBV_MTU_2048;
		at.dest_qp_num = q[1 - i]->qp_num;
		at.max_dest_rd_atomic = 1;
		at.ah_attr.port_num = 1;
		at.ah_attr.dlid = 0;	/* IB needs a DLID */
		assert_int_equal(ibv_modify_qp(q[i], &at, RC_RTR), EINVAL);
		at.ah_attr.dlid = (uint16_t)(6 - i);
		assert_int_equal(ibv_modify_qp(q[i], &at, RC_RTR), 0);
		memset(&at, 0, sizeof(at));
		at.qp_state = IBV_QPS_RTS;
		at.max_rd_atomic = 1;
		at.rnr_retry = 7;
		assert_int_equal(ibv_modify_qp(q[i], &at, RC_RTS), 0);
	}
	memset(nd[1].buf, 'Q', 100);
	assert_int_equal(rc_post(q[0], IBV_WR_RDMA_READ, nd[0].buf, 100,
		m[0]->lkey, nd[1].buf, m[1]->rkey, IBV_SEND_SIGNALED, 1), 0);
	while (ibv_poll_cq(nd[0].cq, 1, &wc) == 0)
		;
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.qp_num, q[0]->qp_num);
	assert_int_equal(nd[0].buf[99], 'Q');
	fcntl(nd[1].ctx->async_fd, F_SETFL, O_NONBLOCK);
	assert_int_equal(pmr_hca_port_set_state("ib1", 1, IBV_PORT_DOWN), 0);
	assert_int_equal(ibv_get_async_event(nd[1].ctx, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_PORT_ERR);
	ibv_ack_async_event(&ev);
	assert_int_equal(rc_post(q[0], IBV_WR_RDMA_WRITE, nd[0].buf, 8,
		m[0]->lkey, nd[1].buf, m[1]->rkey, IBV_SEND_SIGNALED, 2), 0);
	while (ibv_poll_cq(nd[0].cq, 1, &wc) == 0)
		;
	assert_int_equal(wc.status, IBV_WC_RETRY_EXC_ERR);
	for (i = 0; i < 2; i++) {
		assert_int_equal(ibv_destroy_qp(q[i]), 0);
		assert_int_equal(ibv_dereg_mr(m[i]), 0);
		node_close(&nd[i]);
	}
}

/* DEVICE_FATAL: every context hears it, the QPs end in ERR, nothing new
 * is created until the model is reset. */
static void
test_device_fatal(void **state)
{
	struct ibv_async_event ev;
	struct node a;
	struct ibv_wc wc;
	struct ibv_qp_init_attr ia = { .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1 } };

	(void)state;
	fabric("dev=hca0");
	node_open(&a, "hca0", 1);
	fcntl(a.ctx->async_fd, F_SETFL, O_NONBLOCK);
	assert_int_equal(pmr_hca_device_fatal("hcaX"), ENODEV);
	assert_int_equal(pmr_hca_device_fatal("hca0"), 0);
	assert_int_equal(ibv_get_async_event(a.ctx, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_DEVICE_FATAL);
	ibv_ack_async_event(&ev);
	/* its two receives flushed */
	assert_int_equal(ibv_poll_cq(a.cq, 1, &wc), 1);
	assert_int_equal(wc.status, IBV_WC_WR_FLUSH_ERR);
	ia.send_cq = a.cq;
	ia.recv_cq = a.cq;
	errno = 0;
	assert_null(ibv_create_qp(a.pd, &ia));
	assert_int_equal(errno, EIO);
	node_close(&a);
}

/*
 * A READ retried (pmr_hca_fault_read_retry()) with a BIND_MW posted
 * behind it on the same QP. Strict: both complete, the retry unseen. rxe:
 * the BIND runs while the READ is in flight and again at its retry,
 * refused; the QP completes nothing, whatever is polled, until moved to
 * ERR, which flushes the READ and the BIND, in order.
 */
static void
read_retry_bind(int rxe)
{
	struct ibv_send_wr bw = { .wr_id = 2, .opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct pmr_hca_counters c;
	struct ibv_wc wc[4];
	struct ibv_mr *wmr;
	struct ibv_mw *mw;
	struct rc r;
	int i;

	rc_open(&r, 4, 4, 7, RC_ALL);
	wmr = ibv_reg_mr(e.pd, r.abuf + RC_BUF / 2, RC_BUF / 2, MW_MR);
	assert_non_null(wmr);
	mw = ibv_alloc_mw(e.pd, IBV_MW_TYPE_2);
	assert_non_null(mw);
	for (i = 0; i < 1024; i++)
		r.bbuf[i] = (uint8_t)(i * 5 + 3);
	bw.bind_mw.mw = mw;
	bw.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	bw.bind_mw.bind_info.mr = wmr;
	bw.bind_mw.bind_info.addr = (uintptr_t)r.abuf + RC_BUF / 2;
	bw.bind_mw.bind_info.length = 256;
	bw.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
	pmr_hca_counters_reset();
	pmr_hca_fault_read_retry(1);
	assert_int_equal(rc_post(r.a, IBV_WR_RDMA_READ, r.abuf, 1024,
		r.amr->lkey, r.bbuf, r.bmr->rkey, IBV_SEND_SIGNALED, 1), 0);
	assert_int_equal(ibv_post_send(r.a, &bw, &bad), 0);
	if (!rxe) {
		assert_int_equal(ibv_poll_cq(r.acq, 4, wc), 2);
		assert_int_equal(wc[0].wr_id, 1);
		assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
		assert_int_equal(wc[0].opcode, IBV_WC_RDMA_READ);
		assert_int_equal(wc[1].wr_id, 2);
		assert_int_equal(wc[1].status, IBV_WC_SUCCESS);
		assert_int_equal(wc[1].opcode, IBV_WC_BIND_MW);
		assert_memory_equal(r.abuf, r.bbuf, 1024);
	} else {
		for (i = 0; i < 3; i++)
			assert_int_equal(ibv_poll_cq(r.acq, 4, wc), 0);
		assert_int_equal(state_of(r.a), IBV_QPS_RTS);
		assert_int_equal(ibv_modify_qp(r.a, &a, IBV_QP_STATE), 0);
		assert_int_equal(ibv_poll_cq(r.acq, 4, wc), 2);
		assert_int_equal(wc[0].wr_id, 1);
		assert_int_equal(wc[0].status, IBV_WC_WR_FLUSH_ERR);
		assert_int_equal(wc[1].wr_id, 2);
		assert_int_equal(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	}
	assert_int_equal(pmr_hca_counters_get(r.a, &c), 0);
	assert_int_equal(c.rd_retried, 1);
	assert_int_equal(c.retry_stalls, rxe ? 1 : 0);
	assert_int_equal(c.mw_binds, rxe ? 0 : 1);
	pmr_hca_fault_read_retry(0);
	rc_close(&r);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
	assert_int_equal(ibv_dereg_mr(wmr), 0);
}

static void
test_mw_read_retry(void **state)
{
	(void)state;
	read_retry_bind(0);
}

static void
test_mw_read_retry_rxe(void **state)
{
	(void)state;
	read_retry_bind(1);
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
		T(test_unmodelled),
		T(test_objects),
		T(test_many_qps),
		T(test_crash_teardown),
		T(test_rc_states),
		T(test_rc_ops),
		T(test_rc_rnr),
		T(test_rc_read_credits),
		T(test_rc_access_event),
		T(test_rc_peer_gone),
		T(test_rc_shared_cq),
		T(test_events),
		T(test_events_quiet_while_polled),
#undef T
#define M(f) cmocka_unit_test_setup_teardown(f, setup_mw, teardown_mw)
		M(test_mw_alloc),
		M(test_mw_bind_order),
		M(test_mw_bind_checks),
		M(test_mw_access),
		M(test_mw_invalidate),
		M(test_mw_qp_err),
		M(test_mw_read_retry),
		cmocka_unit_test_setup_teardown(test_mw_rxe_range,
			setup_mw_rxe, teardown_mw),
		cmocka_unit_test_setup_teardown(test_mw_read_retry_rxe,
			setup_mw_rxe, teardown_mw),
#undef M
#define R(f) cmocka_unit_test_teardown(f, reset_teardown)
		R(test_config_default),
		R(test_config_parse),
		R(test_config_busy),
		R(test_config_env),
		R(test_fabric_roce),
		R(test_fabric_ib),
		R(test_port_state),
		R(test_two_ports),
		R(test_device_fatal),
		R(test_rc_ib),
		R(test_rxe_identity),
		R(test_rxe_ud_over_mtu),
		R(test_rxe_ud_short_recv),
#undef R
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
