/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The verbs driver's RC QPs and one-sided operations (pmr_transport_rc.h),
 * through the transport interface only, so that one source runs on real
 * Soft-RoCE (test_verbs_rc_real: rxe0 in the VM of devtools/vm/) and on
 * the software HCA model (test_verbs_rc_model). Two queues on one device,
 * RC QPs connected between them: their states; READ and WRITE of known
 * bytes from 1 B to 4 MiB with the WR size capped at 64 KiB (rc_max_msg)
 * so that READs split, and 4 read credits (rc_rd) so that the credit limit
 * is hit; bursts; a bad rkey (and memory registered local-only) failing
 * cleanly with both ends in ERR while another pair on the same queues
 * goes on, then a fresh pair working; destroy with ops outstanding
 * releasing everything. Memory windows (a device with type-2B windows:
 * rxe, the model configured with mw=1): a window bound to a buffer is
 * READ through by the peer QP with exact bytes, invalidated, then READ
 * no more; a rebinding has a new key; a BIND on a QP in ERR completes
 * flushed and its window is deallocated; a BIND posted behind READs that
 * wait for read credits waits behind them too; rc_fail flushes what is
 * posted and what waits; mw=0 takes the windows away. Windows are exact
 * (PMR_TRANSPORT_CAP_MW_EXACT) unless on rxe or with mw_exact=0. An RC
 * QP's region (rc_region_conf): made with it, read by its peer through
 * its key (remote-readable) or through a window bound in it (bind
 * rights only), not a byte past it, by no BIND of another QP; gone with
 * the QP. On rxe (the model's rxe personality with a READ retried) a
 * BIND behind a READ waits for it, elsewhere not, and both complete.
 *
 * A device that cannot bring an RC QP to RTS (the model before it has RC)
 * skips the whole program (77), unless PMR_RC_REQUIRE=1 or in the VM
 * (PMR_VM_GUEST), where it fails. A device without windows skips the
 * window cases, unless PMR_MW_REQUIRE=1 or in the VM (rxe has them).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "pmr_msgbuf.h"
#include "pmr_test.h"
#include "pmr_transport.h"
#include "pmr_transport_rc.h"
#include "verbs_drv_util.h"
#ifdef VRC_MODEL
#include "pmr_hca.h"
#endif

#define BIG (4u << 20)
/* Room past the largest op: a guard byte checks no op writes beyond. */
#define CAP (BIG + 64)
#define MAX_MSG 65536u
#define RD_CREDITS 4u
#define WAIT_SECS 20
/* Window pool: local-only registration, with the right to bind. */
#define WIN_CAP (256u << 10)

static const struct pmr_transport_driver *drv;
static struct rte_mempool *pool;	/* 3 msgbufs of BIG: remote access */
static struct rte_mempool *pool_local;	/* registered local-only */
static struct rte_mempool *pool_win;	/* local-only: windows bind in it */
static char devargs[160];
/* The device has windows (a queue with default devargs has CAP_MW). */
static bool mw_avail;
static bool mw_require;

/* A connected pair of RC QPs between two queues. */
struct rc_pair {
	struct pmr_transport_queue *qa, *qb;
	struct pmr_transport_rc *a, *b;
	uint32_t qpn_a, qpn_b;		/* the QPs' numbers */
};

/* Memory of one side: a msgbuf and its keys on its queue. */
struct side {
	struct pmr_msgbuf *mb;
	uint8_t *p;
	struct pmr_transport_mkey key;
};

static struct pmr_transport_queue *
queue(void)
{
	struct pmr_transport_queue *q;

	q = pmr_transport_queue_create(drv, devargs, SOCKET_ID_ANY);
	if (q == NULL)
		fail_msg("queue '%s': %s", devargs, rte_strerror(rte_errno));
	assert_int_equal(pmr_transport_mem_register_access(q, pool,
		PMR_TRANSPORT_ACCESS_REMOTE_READ |
		PMR_TRANSPORT_ACCESS_REMOTE_WRITE), 0);
	assert_int_equal(pmr_transport_mem_register(q, pool_local), 0);
	assert_int_equal(pmr_transport_mem_register(q, pool_win), 0);
	return q;
}

static void
queue_close(struct pmr_transport_queue *q)
{
	assert_int_equal(vd_xstat(q, "rc_qps"), 0);
	assert_int_equal(vd_xstat(q, "rc_ops_outstanding"), 0);
	assert_int_equal(pmr_transport_mem_unregister(q, pool), 0);
	assert_int_equal(pmr_transport_mem_unregister(q, pool_local), 0);
	assert_int_equal(pmr_transport_mem_unregister(q, pool_win), 0);
	/* Every window given back, none lost: what is alive is cached. */
	assert_int_equal(vd_xstat(q, "mw_live"), vd_xstat(q, "mw_cached"));
	assert_int_equal(vd_xstat(q, "mw_allocated") -
		vd_xstat(q, "mw_deallocated"), vd_xstat(q, "mw_live"));
	pmr_transport_queue_destroy(q);
}

static void
pair_open(struct rc_pair *p, struct pmr_transport_queue *qa,
		struct pmr_transport_queue *qb)
{
	struct pmr_transport_rc_attr aa, ab;

	p->qa = qa;
	p->qb = qb;
	p->a = pmr_transport_rc_create(qa, &aa);
	p->b = pmr_transport_rc_create(qb, &ab);
	assert_non_null(p->a);
	assert_non_null(p->b);
	p->qpn_a = aa.qpn;
	p->qpn_b = ab.qpn;
	assert_int_equal(pmr_transport_rc_state(qa, p->a), PMR_RC_STATE_INIT);
	assert_int_equal(pmr_transport_rc_connect(qa, p->a, &ab), 0);
	assert_int_equal(pmr_transport_rc_connect(qb, p->b, &aa), 0);
	assert_int_equal(pmr_transport_rc_state(qa, p->a), PMR_RC_STATE_RTS);
	assert_int_equal(pmr_transport_rc_state(qb, p->b), PMR_RC_STATE_RTS);
}

static void
pair_close(struct rc_pair *p)
{
	assert_int_equal(pmr_transport_rc_destroy(p->qa, p->a), 0);
	assert_int_equal(pmr_transport_rc_destroy(p->qb, p->b), 0);
}

static void
side_get(struct side *s, struct pmr_transport_queue *q)
{
	s->mb = pmr_msgbuf_alloc(pool, CAP);
	assert_non_null(s->mb);
	s->p = pmr_msgbuf_data(s->mb);
	assert_int_equal(pmr_transport_mem_key(q, s->p, CAP, &s->key), 0);
}

static void
side_put(struct side *s)
{
	assert_int_equal(pmr_msgbuf_free(s->mb), 0);
}

/* Poll q until want completions arrived (in cpl), or fail. */
static void
poll_n(struct pmr_transport_queue *q, struct pmr_transport_rc_cpl *cpl,
		unsigned int want)
{
	uint64_t end = rte_get_timer_cycles() + WAIT_SECS * rte_get_timer_hz();
	unsigned int got = 0;

	while (got < want) {
		uint16_t n = RTE_MIN(want - got, 64u);

		got += pmr_transport_rc_poll(q, cpl + got, n);
		if (rte_get_timer_cycles() > end)
			fail_msg("%u of %u completions after %d s", got, want,
				WAIT_SECS);
	}
	/* Nothing more than that. */
	assert_int_equal(pmr_transport_rc_poll(q, cpl, 1), 0);
}

static void
one_op(struct rc_pair *p, uint8_t type, void *local, uint32_t lkey,
		uint64_t remote, uint32_t rkey, uint32_t len, uint8_t want)
{
	struct pmr_transport_rc_op op = {
		.type = type, .local = local, .lkey = lkey, .remote = remote,
		.rkey = rkey, .len = len, .cookie = 0xc0de0000u + len,
	};
	struct pmr_transport_rc_cpl c;

	assert_int_equal(pmr_transport_rc_post(p->qa, p->a, &op, 1), 1);
	poll_n(p->qa, &c, 1);
	if (c.status != want)
		fail_msg("%s of %u bytes: %s, not %s",
			type == PMR_RC_OP_READ ? "READ" : "WRITE", len,
			pmr_transport_rc_status_str(c.status),
			pmr_transport_rc_status_str(want));
	assert_true(c.rc == p->a);
	assert_int_equal(c.cookie, op.cookie);
}

/* Wait for rc's state to be want (a remote's ERR comes when it comes). */
static void
wait_state(struct pmr_transport_queue *q, struct pmr_transport_rc *rc,
		int want)
{
	uint64_t end = rte_get_timer_cycles() + WAIT_SECS * rte_get_timer_hz();
	int st;

	while ((st = pmr_transport_rc_state(q, rc)) != want) {
		if (rte_get_timer_cycles() > end)
			fail_msg("QP state %d, not %d", st, want);
		rte_delay_ms(1);
	}
}

/* The RC devargs: out of range is refused at queue_create. */
static void
test_rc_devargs(void **state)
{
	static const char *const bad[] = {
		"rc_sq=3", "rc_sq=8192", "rc_sq=100", "rc_rd=0", "rc_rd=256",
		"rc_max_msg=100", "rc_sq=8,rc_sq=16", "mw=2", "mw=-1",
		"mw_exact=2", "mw_exact=x", "rc_timeout=0", "rc_timeout=32",
		"rc_retry=8", "rc_retry=-1", "rc_timeout=14,rc_timeout=15",
	};
	const char *dev = getenv("PMR_VERBS_DEV");
	char da[128];
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(bad); i++) {
		snprintf(da, sizeof(da), "%s%s%s%s", dev != NULL ? "dev=" : "",
			dev != NULL ? dev : "", dev != NULL ? "," : "", bad[i]);
#ifdef VRC_REAL
		if (dev == NULL)
			snprintf(da, sizeof(da), "dev=rxe0,%s", bad[i]);
#endif
		rte_errno = 0;
		assert_null(pmr_transport_queue_create(drv, da,
			SOCKET_ID_ANY));
		assert_int_equal(rte_errno, EINVAL);
	}
}

/* The RC QP's transport timeout and retries: the driver's (67 ms, 6), or
 * the rc_timeout and rc_retry devargs, on the QP in RTS (the model says
 * which; on rxe the pair comes up with them). */
static void
rc_timing(const char *extra, uint8_t timeout, uint8_t retry)
{
	char saved[sizeof(devargs)];
	struct pmr_transport_queue *qa, *qb;
	struct rc_pair p;

	memcpy(saved, devargs, sizeof(saved));
	if (extra[0] != '\0' && (size_t)snprintf(devargs, sizeof(devargs),
			"%.100s,%.50s", saved, extra) >= sizeof(devargs))
		fail_msg("devargs too long");
	qa = queue();
	qb = queue();
	memcpy(devargs, saved, sizeof(devargs));
	pair_open(&p, qa, qb);
#ifdef VRC_MODEL
	{
		struct ibv_qp_attr at;

		assert_int_equal(pmr_hca_qp_attr(p.qpn_a, &at), 0);
		assert_int_equal(at.qp_state, IBV_QPS_RTS);
		assert_int_equal(at.timeout, timeout);
		assert_int_equal(at.retry_cnt, retry);
		assert_int_equal(at.rnr_retry, 7);
		assert_int_equal(pmr_hca_qp_attr(p.qpn_b, &at), 0);
		assert_int_equal(at.timeout, timeout);
		assert_int_equal(at.retry_cnt, retry);
	}
#else
	(void)timeout;
	(void)retry;
#endif
	pair_close(&p);
	queue_close(qa);
	queue_close(qb);
}

static void
test_rc_timeout_retry(void **state)
{
	(void)state;
	rc_timing("", 14, 6);
	rc_timing("rc_timeout=18,rc_retry=7", 18, 7);
	rc_timing("rc_timeout=1,rc_retry=0", 1, 0);
}

static void
test_rc_attr_state(void **state)
{
	struct pmr_transport_queue *qa, *qb;
	struct pmr_transport_rc_attr aa, ab, bad;
	struct pmr_transport_rc *a, *b;
	struct pmr_transport_addr addr;
	struct pmr_transport_caps caps;

	(void)state;
	qa = queue();
	qb = queue();
	pmr_transport_queue_caps(qa, &caps);
	assert_true((caps.flags & PMR_TRANSPORT_CAP_RC) != 0);
	a = pmr_transport_rc_create(qa, &aa);
	b = pmr_transport_rc_create(qb, &ab);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(vd_xstat(qa, "rc_qps"), 1);
	assert_int_equal(pmr_transport_rc_state(qa, a), PMR_RC_STATE_INIT);
	/* The attributes: the queue's GID, 24-bit numbers, the devargs'
	 * credits and WR size. */
	assert_int_equal(pmr_transport_queue_addr(qa, &addr), 0);
	/* The verbs address: version, reserved, QPN, QKey, then the GID. */
	assert_int_equal(addr.len, 28);
	assert_memory_equal(aa.gid, addr.bytes + 12, 16);
	assert_true(aa.qpn != 0 && aa.qpn <= 0xffffff && aa.qpn != ab.qpn);
	assert_true(aa.psn <= 0xffffff && ab.psn <= 0xffffff);
	assert_int_equal(aa.mtu, caps.mtu);
	assert_int_equal(aa.rd_credits, RD_CREDITS);
	assert_int_equal(aa.max_rd_atomic, RD_CREDITS);
	assert_int_equal(aa.max_msg_size, MAX_MSG);
	fprintf(stderr, "# rc qp %u psn %u mtu %u credits %u/%u max_msg %u\n",
		aa.qpn, aa.psn, aa.mtu, aa.rd_credits, aa.max_rd_atomic,
		aa.max_msg_size);
	/* Bad remote attributes change nothing. */
	bad = ab;
	bad.mtu = 1000;
	assert_int_equal(pmr_transport_rc_connect(qa, a, &bad), -EINVAL);
	bad = ab;
	bad.qpn = 1u << 24;
	assert_int_equal(pmr_transport_rc_connect(qa, a, &bad), -EINVAL);
	bad = ab;
	bad.rd_credits = 0;
	assert_int_equal(pmr_transport_rc_connect(qa, a, &bad), -EINVAL);
	bad = ab;
	bad.max_msg_size = 100;	/* WRs that small: refused */
	assert_int_equal(pmr_transport_rc_connect(qa, a, &bad), -EINVAL);
	assert_int_equal(pmr_transport_rc_state(qa, a), PMR_RC_STATE_INIT);
	/* Not connected: nothing is accepted. */
	{
		struct side s;
		struct pmr_transport_rc_op op = { .type = PMR_RC_OP_WRITE,
			.len = 8 };

		side_get(&s, qa);
		op.local = s.p;
		op.lkey = s.key.lkey;
		assert_int_equal(pmr_transport_rc_post(qa, a, &op, 1), 0);
		side_put(&s);
	}
	assert_int_equal(pmr_transport_rc_connect(qa, a, &ab), 0);
	assert_int_equal(pmr_transport_rc_connect(qb, b, &aa), 0);
	assert_int_equal(pmr_transport_rc_state(qa, a), PMR_RC_STATE_RTS);
	assert_int_equal(pmr_transport_rc_state(qb, b), PMR_RC_STATE_RTS);
	/* A pool already registered local-only keeps its rights. */
	assert_int_equal(pmr_transport_mem_register_access(qa, pool_local,
		PMR_TRANSPORT_ACCESS_REMOTE_READ), -EEXIST);
	assert_int_equal(pmr_transport_rc_destroy(qa, a), 0);
	assert_int_equal(pmr_transport_rc_destroy(qb, b), 0);
	/* A queue has a bounded number of RC QPs (16, fewer if its
	 * device's CQ cannot hold all their SQs): then ENOSPC. */
	{
		struct pmr_transport_rc *many[17];
		unsigned int n = 0;

		while (n < RTE_DIM(many) &&
		       (many[n] = pmr_transport_rc_create(qa, &aa)) != NULL)
			n++;
		assert_true(n >= 2 && n <= 16);
		assert_int_equal(rte_errno, ENOSPC);
		assert_int_equal(vd_xstat(qa, "rc_qps"), n);
		while (n > 0)
			assert_int_equal(pmr_transport_rc_destroy(qa,
				many[--n]), 0);
	}
	queue_close(qa);
	queue_close(qb);
}

static void
test_rc_read_write(void **state)
{
	static const uint32_t sizes[] = {
		1, 7, 4096, MAX_MSG - 1, MAX_MSG, MAX_MSG + 1,
		3 * MAX_MSG + 5, (1u << 20) + 3, BIG,
	};
	struct pmr_transport_queue *qa, *qb;
	struct rc_pair p;
	struct side src, dst, rem;
	unsigned int i;

	(void)state;
#ifdef VRC_HCA_RD_COUNTERS
	pmr_hca_counters_reset();
#endif
	qa = queue();
	qb = queue();
	pair_open(&p, qa, qb);
	side_get(&src, qa);
	side_get(&dst, qa);
	side_get(&rem, qb);
	for (i = 0; i < RTE_DIM(sizes); i++) {
		uint32_t len = sizes[i];

		/* WRITE src -> rem, then READ rem -> dst. */
		vd_fill(src.p, len, 100 + i);
		memset(rem.p, 0, len + 1);
		memset(dst.p, 0, len + 1);
		one_op(&p, PMR_RC_OP_WRITE, src.p, src.key.lkey,
			(uintptr_t)rem.p, rem.key.rkey, len, PMR_RC_OK);
		assert_memory_equal(rem.p, src.p, len);
		assert_int_equal(rem.p[len], 0);
		one_op(&p, PMR_RC_OP_READ, dst.p, dst.key.lkey,
			(uintptr_t)rem.p, rem.key.rkey, len, PMR_RC_OK);
		assert_memory_equal(dst.p, src.p, len);
		assert_int_equal(dst.p[len], 0);
	}
	/* READs over 64 KiB were split; never more than the credits of
	 * READ WRs outstanding, and the 4 MiB one had to wait for them. */
	fprintf(stderr, "# split %" PRIu64 ", rd_max_seen %" PRIu64
		", rd_wait %" PRIu64 ", wrs %" PRIu64 "\n",
		vd_xstat(qa, "rc_reads_split"), vd_xstat(qa, "rc_rd_max_seen"),
		vd_xstat(qa, "rc_rd_wait"), vd_xstat(qa, "rc_wrs"));
	assert_true(vd_xstat(qa, "rc_reads_split") >= 8);
	assert_int_equal(vd_xstat(qa, "rc_rd_max_seen"), RD_CREDITS);
	assert_true(vd_xstat(qa, "rc_rd_wait") > 0);
#ifdef VRC_HCA_RD_COUNTERS
	{
		/* The model's responder side: never more READs at once than
		 * it granted, and none over its max_dest_rd_atomic. */
		struct pmr_hca_counters hc;

		assert_int_equal(pmr_hca_counters_get(NULL, &hc), 0);
		fprintf(stderr, "# model: rd_credits_high_water %" PRIu64
			", rd_credit_err %" PRIu64 "\n",
			hc.rd_credits_high_water, hc.rd_credit_err);
		assert_true(hc.rd_credits_high_water >= 1 &&
			hc.rd_credits_high_water <= RD_CREDITS);
		assert_int_equal(hc.rd_credit_err, 0);
	}
#endif
	assert_int_equal(vd_xstat(qa, "rc_cpl_err"), 0);
	assert_int_equal(vd_xstat(qa, "rc_ops_outstanding"), 0);
	side_put(&src);
	side_put(&dst);
	side_put(&rem);
	pair_close(&p);
	queue_close(qa);
	queue_close(qb);
}

/* A burst of 96 ops, READs and WRITEs alternating on disjoint ranges. */
static void
test_rc_burst(void **state)
{
	enum { NB = 96, LEN = 3000, STRIDE = 4096 };
	struct pmr_transport_rc_op ops[NB];
	struct pmr_transport_rc_cpl cpl[NB];
	struct pmr_transport_queue *qa, *qb;
	struct rc_pair p;
	struct side loc, rem;
	unsigned int i;

	(void)state;
	qa = queue();
	qb = queue();
	pair_open(&p, qa, qb);
	side_get(&loc, qa);
	side_get(&rem, qb);
	for (i = 0; i < NB; i++) {
		bool rd = i % 2 == 0;
		uint8_t *l = loc.p + (size_t)i * STRIDE;
		uint8_t *r = rem.p + (size_t)i * STRIDE;

		/* What a READ fetches is in rem; what a WRITE puts, in loc. */
		vd_fill(rd ? r : l, LEN, 500 + i);
		memset(rd ? l : r, 0, LEN);
		ops[i] = (struct pmr_transport_rc_op){
			.type = rd ? PMR_RC_OP_READ : PMR_RC_OP_WRITE,
			.local = l, .lkey = loc.key.lkey,
			.remote = (uintptr_t)r, .rkey = rem.key.rkey,
			.len = LEN, .cookie = 1000 + i,
		};
	}
	assert_int_equal(pmr_transport_rc_post(qa, p.a, ops, NB), NB);
	poll_n(qa, cpl, NB);
	/* One completion each, in posting order. */
	for (i = 0; i < NB; i++) {
		assert_int_equal(cpl[i].cookie, 1000 + i);
		assert_int_equal(cpl[i].status, PMR_RC_OK);
		assert_memory_equal(loc.p + (size_t)i * STRIDE,
			rem.p + (size_t)i * STRIDE, LEN);
	}
	/* 96 ops in a few posts (linked lists), not one post each. */
	assert_true(vd_xstat(qa, "rc_posts") < NB / 2);
	assert_true(vd_xstat(qa, "rc_rd_max_seen") <= RD_CREDITS);
	side_put(&loc);
	side_put(&rem);
	pair_close(&p);
	queue_close(qa);
	queue_close(qb);
}

/*
 * A bad rkey: the op fails with REMOTE_ACCESS, those behind it FLUSHED,
 * both ends in ERR; another pair on the same queues is unaffected; a
 * fresh pair works. Memory registered local-only is refused the same way.
 */
static void
test_rc_bad_rkey(void **state)
{
	struct pmr_transport_queue *qa, *qb;
	struct rc_pair p1, p2;
	struct pmr_transport_rc_op ops[4];
	struct pmr_transport_rc_cpl cpl[4];
	struct pmr_transport_mkey lk;
	struct pmr_msgbuf *lmb;
	struct side loc, rem;
	unsigned int i;

	(void)state;
	qa = queue();
	qb = queue();
	pair_open(&p1, qa, qb);
	pair_open(&p2, qa, qb);
	side_get(&loc, qa);
	side_get(&rem, qb);
	for (i = 0; i < 4; i++)
		ops[i] = (struct pmr_transport_rc_op){
			.type = PMR_RC_OP_READ, .local = loc.p + i * 8192,
			.lkey = loc.key.lkey,
			.remote = (uintptr_t)rem.p + i * 8192,
			.rkey = i == 0 ? rem.key.rkey ^ 0x5a5a00 :
				rem.key.rkey,
			.len = 8192, .cookie = 77 + i,
		};
	assert_int_equal(pmr_transport_rc_post(qa, p1.a, ops, 4), 4);
	poll_n(qa, cpl, 4);
	fprintf(stderr, "# bad rkey: %s\n",
		pmr_transport_rc_status_str(cpl[0].status));
	assert_int_equal(cpl[0].cookie, 77);
	assert_int_equal(cpl[0].status, PMR_RC_REMOTE_ACCESS);
	for (i = 1; i < 4; i++) {
		assert_int_equal(cpl[i].cookie, 77 + i);
		assert_int_equal(cpl[i].status, PMR_RC_FLUSHED);
	}
	assert_int_equal(pmr_transport_rc_state(qa, p1.a), PMR_RC_STATE_ERR);
	wait_state(qb, p1.b, PMR_RC_STATE_ERR);
	/* A QP in ERR takes nothing more. */
	assert_int_equal(pmr_transport_rc_post(qa, p1.a, ops + 1, 1), 0);
	assert_int_equal(vd_xstat(qa, "rc_ops_outstanding"), 0);

	/* The other pair on the same queues and CQ. */
	assert_int_equal(pmr_transport_rc_state(qa, p2.a), PMR_RC_STATE_RTS);
	assert_int_equal(pmr_transport_rc_state(qb, p2.b), PMR_RC_STATE_RTS);
	vd_fill(rem.p, 5000, 9);
	one_op(&p2, PMR_RC_OP_READ, loc.p, loc.key.lkey, (uintptr_t)rem.p,
		rem.key.rkey, 5000, PMR_RC_OK);
	assert_memory_equal(loc.p, rem.p, 5000);

	/* Memory the remote registered local-only: no READ of it. */
	lmb = pmr_msgbuf_alloc(pool_local, 64);
	assert_non_null(lmb);
	assert_int_equal(pmr_transport_mem_key(qb, pmr_msgbuf_data(lmb), 64,
		&lk), 0);
	one_op(&p2, PMR_RC_OP_READ, loc.p, loc.key.lkey,
		(uintptr_t)pmr_msgbuf_data(lmb), lk.rkey, 64,
		PMR_RC_REMOTE_ACCESS);
	assert_int_equal(pmr_msgbuf_free(lmb), 0);
	assert_int_equal(pmr_transport_rc_state(qa, p2.a), PMR_RC_STATE_ERR);
	wait_state(qb, p2.b, PMR_RC_STATE_ERR);
	pair_close(&p1);
	pair_close(&p2);

	/* Fresh QPs work. */
	pair_open(&p1, qa, qb);
	vd_fill(loc.p, 70000, 10);
	one_op(&p1, PMR_RC_OP_WRITE, loc.p, loc.key.lkey, (uintptr_t)rem.p,
		rem.key.rkey, 70000, PMR_RC_OK);
	assert_memory_equal(loc.p, rem.p, 70000);
	pair_close(&p1);
	assert_int_equal(vd_xstat(qa, "rc_cpl_err"), 5);
	side_put(&loc);
	side_put(&rem);
	queue_close(qa);
	queue_close(qb);
}

/*
 * The peer's QP destroyed under a connected QP (a peer gone): its READ
 * ends in retry_exceeded after the retries, the op behind it flushed,
 * the QP in ERR.
 */
static void
test_rc_peer_gone(void **state)
{
	struct pmr_transport_queue *qa, *qb;
	struct pmr_transport_rc_op ops[2];
	struct pmr_transport_rc_cpl cpl[2];
	struct rc_pair p;
	struct side loc, rem;
	unsigned int i;

	(void)state;
	qa = queue();
	qb = queue();
	pair_open(&p, qa, qb);
	side_get(&loc, qa);
	side_get(&rem, qb);
	assert_int_equal(pmr_transport_rc_destroy(qb, p.b), 0);
	for (i = 0; i < 2; i++)
		ops[i] = (struct pmr_transport_rc_op){
			.type = PMR_RC_OP_READ, .local = loc.p,
			.lkey = loc.key.lkey, .remote = (uintptr_t)rem.p,
			.rkey = rem.key.rkey, .len = 100, .cookie = 5 + i,
		};
	assert_int_equal(pmr_transport_rc_post(qa, p.a, ops, 2), 2);
	poll_n(qa, cpl, 2);
	fprintf(stderr, "# peer gone: %s\n",
		pmr_transport_rc_status_str(cpl[0].status));
	assert_int_equal(cpl[0].cookie, 5);
	assert_int_equal(cpl[0].status, PMR_RC_RETRY_EXCEEDED);
	assert_int_equal(cpl[1].cookie, 6);
	assert_int_equal(cpl[1].status, PMR_RC_FLUSHED);
	assert_int_equal(pmr_transport_rc_state(qa, p.a), PMR_RC_STATE_ERR);
	assert_int_equal(pmr_transport_rc_destroy(qa, p.a), 0);
	side_put(&loc);
	side_put(&rem);
	queue_close(qa);
	queue_close(qb);
}

/* Destroy with ops outstanding (posted and waiting for credits). */
static void
test_rc_destroy_outstanding(void **state)
{
	enum { NB = 24 };
	struct pmr_transport_rc_op ops[NB];
	struct pmr_transport_rc_cpl c;
	struct pmr_transport_queue *qa, *qb;
	struct rte_malloc_socket_stats before, after;
	struct rc_pair p;
	struct side loc, rem;
	unsigned int i;
#ifdef VRC_MODEL
	struct pmr_hca_objects o0, o1;
#endif

	(void)state;
	qa = queue();
	qb = queue();
	side_get(&loc, qa);
	side_get(&rem, qb);
	assert_int_equal(rte_malloc_get_socket_stats(rte_socket_id(),
		&before), 0);
#ifdef VRC_MODEL
	assert_int_equal(pmr_hca_objects_get(NULL, &o0), 0);
#endif
	pair_open(&p, qa, qb);
	for (i = 0; i < NB; i++)
		ops[i] = (struct pmr_transport_rc_op){
			.type = PMR_RC_OP_READ, .local = loc.p,
			.lkey = loc.key.lkey, .remote = (uintptr_t)rem.p,
			.rkey = rem.key.rkey, .len = 2 * MAX_MSG,
			.cookie = i,
		};
	assert_int_equal(pmr_transport_rc_post(qa, p.a, ops, NB), NB);
	assert_int_equal(vd_xstat(qa, "rc_ops_outstanding"), NB);
	/* Never polled: all NB are dropped, without completions. */
	assert_int_equal(pmr_transport_rc_destroy(qa, p.a), NB);
	assert_int_equal(pmr_transport_rc_destroy(qb, p.b), 0);
	assert_int_equal(vd_xstat(qa, "rc_ops_outstanding"), 0);
	assert_int_equal(vd_xstat(qa, "rc_qps"), 0);
	/* Late CQEs of the dead QP are no completions. */
	rte_delay_ms(50);
	assert_int_equal(pmr_transport_rc_poll(qa, &c, 1), 0);
	assert_int_equal(rte_malloc_get_socket_stats(rte_socket_id(),
		&after), 0);
	assert_int_equal(after.alloc_count, before.alloc_count);
#ifdef VRC_MODEL
	/* The model's own count: no QP or MR left behind. */
	assert_int_equal(pmr_hca_objects_get(NULL, &o1), 0);
	assert_int_equal(o1.qps, o0.qps);
	assert_int_equal(o1.mrs, o0.mrs);
#endif
	/* A destroyed QP cannot be destroyed again. */
	assert_int_equal(pmr_transport_rc_destroy(qa, p.a), -EINVAL);
	side_put(&loc);
	side_put(&rem);
	queue_close(qa);
	queue_close(qb);
	assert_true(pmr_msgbuf_pool_full(pool));
	assert_true(pmr_msgbuf_pool_full(pool_local));
#ifdef VRC_MODEL
	assert_int_equal(pmr_hca_objects_get(NULL, &o1), 0);
	assert_int_equal(o1.qps, 0);
	assert_int_equal(o1.cqs, 0);
	assert_int_equal(o1.mrs, 0);
#endif
}

/* Post one op on rc of q and wait for its completion: its status. */
static uint8_t
op_wait(struct pmr_transport_queue *q, struct pmr_transport_rc *rc,
		const struct pmr_transport_rc_op *op)
{
	struct pmr_transport_rc_cpl c;

	assert_int_equal(pmr_transport_rc_post(q, rc, op, 1), 1);
	poll_n(q, &c, 1);
	assert_true(c.rc == rc);
	assert_int_equal(c.cookie, op->cookie);
	return c.status;
}

static struct pmr_transport_rc_op
bind_op(struct pmr_transport_mw *mw, void *local, uint32_t len,
		uint64_t cookie)
{
	return (struct pmr_transport_rc_op){ .type = PMR_RC_OP_BIND,
		.local = local, .len = len, .mw = mw, .cookie = cookie };
}

static struct pmr_transport_rc_op
inval_op(struct pmr_transport_mw *mw, uint64_t cookie)
{
	return (struct pmr_transport_rc_op){ .type = PMR_RC_OP_INVALIDATE,
		.mw = mw, .cookie = cookie };
}

static bool
queue_has_mw(struct pmr_transport_queue *q)
{
	struct pmr_transport_caps caps;

	pmr_transport_queue_caps(q, &caps);
	return (caps.flags & PMR_TRANSPORT_CAP_MW) != 0;
}

/* The window cases need a device with windows: skip, or fail where it
 * must have them. */
static void
need_mw(void)
{
	if (mw_avail)
		return;
	if (mw_require)
		fail_msg("%s: no memory windows (PMR_TRANSPORT_CAP_MW)",
			devargs);
	skip();
}

#ifdef VRC_HCA_MW
/* The model's windows alive on every device. */
static uint32_t
model_mws(void)
{
	struct pmr_hca_objects o;

	assert_int_equal(pmr_hca_objects_get(NULL, &o), 0);
	return o.mws;
}
#endif

/*
 * A window bound on qb's RC QP to bytes of a local-only buffer: qa's QP
 * (its peer) READs exactly them through its key, not through the
 * buffer's own rkey; invalidated, the key reads nothing and the pair is
 * in ERR. The window, FREE again, goes back to the cache; bound again on
 * a fresh pair it has a new key, and the old one reads nothing.
 */
static void
test_rc_mw_bind_read(void **state)
{
	enum { OFF = 100, LEN = 5000 };
	struct pmr_transport_queue *qa, *qb;
	struct pmr_transport_rc_op op;
	struct pmr_transport_mkey wk;
	struct pmr_transport_mw *mw;
	struct pmr_msgbuf *wb;
	struct rc_pair p;
	struct side dst, rem;
	uint64_t live0, cached0;
	uint32_t rkey, rkey2;
	uint8_t *win, stack_buf[64];

	(void)state;
	need_mw();
	qa = queue();
	qb = queue();
	assert_true(queue_has_mw(qa) && queue_has_mw(qb));
	pair_open(&p, qa, qb);
	side_get(&dst, qa);
	side_get(&rem, qb);
	wb = pmr_msgbuf_alloc(pool_win, WIN_CAP);
	assert_non_null(wb);
	win = pmr_msgbuf_data(wb);
	vd_fill(win, WIN_CAP, 41);
	assert_int_equal(pmr_transport_mem_key(qb, win, WIN_CAP, &wk), 0);
	/* Windows made at set-up, all in the cache. */
	live0 = vd_xstat(qb, "mw_live");
	cached0 = vd_xstat(qb, "mw_cached");
	assert_true(live0 >= 1);
	assert_int_equal(cached0, live0);
	mw = pmr_transport_mw_alloc(qb);
	assert_non_null(mw);
	assert_int_equal(vd_xstat(qb, "mw_cached"), cached0 - 1);
	assert_int_equal(vd_xstat(qb, "mw_grown"), 0);

	/* Refused at post, nothing posted: bytes registered with remote
	 * rights of their own (no right to bind), memory not registered,
	 * no bytes, no window; an INVALIDATE of a window not bound. */
	op = bind_op(mw, rem.p, 64, 1);
	assert_int_equal(pmr_transport_rc_post(qb, p.b, &op, 1), 0);
	op = bind_op(mw, stack_buf, sizeof(stack_buf), 2);
	assert_int_equal(pmr_transport_rc_post(qb, p.b, &op, 1), 0);
	op = bind_op(mw, win, 0, 3);
	assert_int_equal(pmr_transport_rc_post(qb, p.b, &op, 1), 0);
	op = bind_op(NULL, win, 64, 4);
	assert_int_equal(pmr_transport_rc_post(qb, p.b, &op, 1), 0);
	op = inval_op(mw, 5);
	assert_int_equal(pmr_transport_rc_post(qb, p.b, &op, 1), 0);
	assert_int_equal(vd_xstat(qb, "mw_refused"), 5);
	assert_int_equal(vd_xstat(qb, "rc_ops_outstanding"), 0);
	assert_int_equal(vd_xstat(qb, "rc_wrs"), 0);

	op = bind_op(mw, win + OFF, LEN, 10);
	assert_int_equal(op_wait(qb, p.b, &op), PMR_RC_OK);
	/* A bound window cannot be bound again. */
	assert_int_equal(pmr_transport_rc_post(qb, p.b, &op, 1), 0);
	rkey = pmr_transport_mw_rkey(qb, mw);
	fprintf(stderr, "# window rkey 0x%x, its MR's 0x%x\n", rkey,
		wk.rkey);
	assert_true(rkey != wk.rkey);
	/* The peer READs exactly the window's bytes. */
	memset(dst.p, 0, LEN + 1);
	one_op(&p, PMR_RC_OP_READ, dst.p, dst.key.lkey,
		(uintptr_t)win + OFF, rkey, LEN, PMR_RC_OK);
	assert_memory_equal(dst.p, win + OFF, LEN);
	assert_int_equal(dst.p[LEN], 0);
	memset(dst.p, 0, 64);
	one_op(&p, PMR_RC_OP_READ, dst.p, dst.key.lkey,
		(uintptr_t)win + OFF + 1000, rkey, 64, PMR_RC_OK);
	assert_memory_equal(dst.p, win + OFF + 1000, 64);
	/* Invalidated: the key reads nothing, and the READ fails the pair
	 * as any remote access error does. */
	op = inval_op(mw, 11);
	assert_int_equal(op_wait(qb, p.b, &op), PMR_RC_OK);
	one_op(&p, PMR_RC_OP_READ, dst.p, dst.key.lkey,
		(uintptr_t)win + OFF, rkey, 64, PMR_RC_REMOTE_ACCESS);
	assert_int_equal(pmr_transport_rc_state(qa, p.a), PMR_RC_STATE_ERR);
	wait_state(qb, p.b, PMR_RC_STATE_ERR);
	assert_int_equal(vd_xstat(qb, "mw_binds"), 1);
	assert_int_equal(vd_xstat(qb, "mw_invalidates"), 1);
	/* Invalidated OK: back to the cache, not deallocated. */
	pmr_transport_mw_free(qb, mw);
	assert_int_equal(vd_xstat(qb, "mw_cached"), cached0);
	assert_int_equal(vd_xstat(qb, "mw_deallocated"), 0);
	pair_close(&p);

	/* Bound again (the cache's window: no new one), on a fresh pair:
	 * a new key; the old key reads nothing. */
	pair_open(&p, qa, qb);
	mw = pmr_transport_mw_alloc(qb);
	assert_non_null(mw);
	assert_int_equal(vd_xstat(qb, "mw_grown"), 0);
	op = bind_op(mw, win, 4096, 12);
	assert_int_equal(op_wait(qb, p.b, &op), PMR_RC_OK);
	rkey2 = pmr_transport_mw_rkey(qb, mw);
	assert_true(rkey2 != wk.rkey);
	memset(dst.p, 0, 4096);
	one_op(&p, PMR_RC_OP_READ, dst.p, dst.key.lkey, (uintptr_t)win,
		rkey2, 4096, PMR_RC_OK);
	assert_memory_equal(dst.p, win, 4096);
	/* The buffer's own rkey gives nothing (no remote rights). */
	one_op(&p, PMR_RC_OP_READ, dst.p, dst.key.lkey, (uintptr_t)win,
		wk.rkey, 64, PMR_RC_REMOTE_ACCESS);
	wait_state(qb, p.b, PMR_RC_STATE_ERR);
	pair_close(&p);
	pair_open(&p, qa, qb);
	/* Another pair: the window is bound on the old one's QP only. */
	one_op(&p, PMR_RC_OP_READ, dst.p, dst.key.lkey, (uintptr_t)win,
		rkey2, 64, PMR_RC_REMOTE_ACCESS);
	wait_state(qb, p.b, PMR_RC_STATE_ERR);
	pair_close(&p);
	/* A fresh pair, maybe in the slots of the one the window is bound
	 * on: it takes no INVALIDATE of it. */
	pair_open(&p, qa, qb);
	op = inval_op(mw, 13);
	assert_int_equal(pmr_transport_rc_post(qb, p.b, &op, 1), 0);
#ifdef VRC_MODEL
	{
		/* The model limits a READ to the window's bytes (rxe to its
		 * MR's: doc/testing.md): a fresh window, and a READ running
		 * 32 bytes past it. */
		struct pmr_transport_mw *w2 = pmr_transport_mw_alloc(qb);

		assert_non_null(w2);
		op = bind_op(w2, win, 4096, 14);
		assert_int_equal(op_wait(qb, p.b, &op), PMR_RC_OK);
		one_op(&p, PMR_RC_OP_READ, dst.p, dst.key.lkey,
			(uintptr_t)win + 4096 - 32, pmr_transport_mw_rkey(qb,
			w2), 64, PMR_RC_REMOTE_ACCESS);
		wait_state(qb, p.b, PMR_RC_STATE_ERR);
		pmr_transport_mw_free(qb, w2);
		assert_int_equal(vd_xstat(qb, "mw_deallocated"), 1);
		live0--;
	}
#endif
	/* Still bound (its QP gone): deallocated, never cached. */
	pmr_transport_mw_free(qb, mw);
	assert_int_equal(vd_xstat(qb, "mw_live"), live0 - 1);
	assert_int_equal(vd_xstat(qb, "mw_cached"), live0 - 1);
	assert_int_equal(vd_xstat(qb, "mw_allocated") -
		vd_xstat(qb, "mw_deallocated"), live0 - 1);
	pair_close(&p);
	assert_int_equal(pmr_msgbuf_free(wb), 0);
	side_put(&dst);
	side_put(&rem);
	queue_close(qa);
	queue_close(qb);
#ifdef VRC_HCA_MW
	assert_int_equal(model_mws(), 0);
#endif
}

/*
 * Windows whose QP is in ERR: a BIND on a QP that went to ERR (its peer's
 * bad READ; the driver does not know it yet) completes flushed, an
 * INVALIDATE on a QP known in ERR is refused; either window is then
 * deallocated by mw_free, never cached. The cache grows on demand, and
 * queue destroy deallocates the windows still held.
 */
static void
test_rc_mw_err_qp(void **state)
{
	struct pmr_transport_queue *qa, *qb;
	struct pmr_transport_rc_op op;
	struct pmr_transport_mw *mw, *held[12];
	struct pmr_msgbuf *wb;
	struct rc_pair p, p2;
	struct side dst, rem;
	uint64_t live0;
	unsigned int i;
	uint8_t *win;

	(void)state;
	need_mw();
	qa = queue();
	qb = queue();
	live0 = vd_xstat(qb, "mw_live");
	pair_open(&p, qa, qb);
	pair_open(&p2, qa, qb);
	side_get(&dst, qa);
	side_get(&rem, qb);
	wb = pmr_msgbuf_alloc(pool_win, WIN_CAP);
	assert_non_null(wb);
	win = pmr_msgbuf_data(wb);

	/* qb's QP of p goes to ERR by its peer's bad READ. */
	one_op(&p, PMR_RC_OP_READ, dst.p, dst.key.lkey, (uintptr_t)rem.p,
		rem.key.rkey ^ 0x5a5a00, 64, PMR_RC_REMOTE_ACCESS);
	wait_state(qb, p.b, PMR_RC_STATE_ERR);
	mw = pmr_transport_mw_alloc(qb);
	assert_non_null(mw);
	op = bind_op(mw, win, 4096, 20);
	assert_int_equal(op_wait(qb, p.b, &op), PMR_RC_FLUSHED);
	assert_int_equal(vd_xstat(qb, "mw_bind_err"), 1);
	pmr_transport_mw_free(qb, mw);
	assert_int_equal(vd_xstat(qb, "mw_deallocated"), 1);
	assert_int_equal(vd_xstat(qb, "mw_live"), live0 - 1);

	/* Bound on p2, then p2 failed: no INVALIDATE is taken; freed, the
	 * window is deallocated. */
	mw = pmr_transport_mw_alloc(qb);
	assert_non_null(mw);
	op = bind_op(mw, win, 4096, 21);
	assert_int_equal(op_wait(qb, p2.b, &op), PMR_RC_OK);
	assert_int_equal(pmr_transport_rc_fail(qb, p2.b), 0);
	op = inval_op(mw, 22);
	assert_int_equal(pmr_transport_rc_post(qb, p2.b, &op, 1), 0);
	pmr_transport_mw_free(qb, mw);
	assert_int_equal(vd_xstat(qb, "mw_deallocated"), 2);
	assert_int_equal(vd_xstat(qb, "mw_live"), live0 - 2);
	pair_close(&p);
	pair_close(&p2);

	/* More windows than the cache holds: the driver allocates more
	 * (mw_grown); held ones, one of them bound, go at queue destroy. */
	for (i = 0; i < RTE_DIM(held); i++) {
		held[i] = pmr_transport_mw_alloc(qb);
		assert_non_null(held[i]);
	}
	assert_int_equal(vd_xstat(qb, "mw_cached"), 0);
	assert_int_equal(vd_xstat(qb, "mw_grown"),
		RTE_DIM(held) - (live0 - 2));
	pair_open(&p, qa, qb);
	op = bind_op(held[0], win, 4096, 23);
	assert_int_equal(op_wait(qb, p.b, &op), PMR_RC_OK);
	assert_int_equal(pmr_transport_rc_destroy(qa, p.a), 0);
	assert_int_equal(pmr_transport_rc_destroy(qb, p.b), 0);
	assert_int_equal(pmr_msgbuf_free(wb), 0);
	side_put(&dst);
	side_put(&rem);
	queue_close(qa);
	/* Not queue_close(): windows are still held; destroy takes them,
	 * and the registrations. A pool with a window bound in it cannot
	 * be unregistered before. */
	assert_int_equal(pmr_transport_mem_unregister(qb, pool_win), -EBUSY);
	assert_int_equal(vd_xstat(qb, "mw_live"), RTE_DIM(held));
	pmr_transport_queue_destroy(qb);
#ifdef VRC_HCA_MW
	assert_int_equal(model_mws(), 0);
#endif
}

/*
 * A BIND posted behind READs that wait in the driver for read credits
 * waits behind them too: nothing of it reaches the device before them,
 * and the completions come in posting order. Then the peer READs
 * through the window.
 */
static void
test_rc_mw_order(void **state)
{
	enum { NB = 8 };
	struct pmr_transport_rc_op ops[NB + 2];
	struct pmr_transport_rc_cpl cpl[NB + 2];
	struct pmr_transport_queue *qa, *qb;
	struct pmr_transport_rc_op op;
	struct pmr_transport_mw *mw;
	struct pmr_msgbuf *wb;
	struct rc_pair p;
	struct side loc, rem, dst;
	struct rc_pair back;
	unsigned int i;
	uint8_t *win;

	(void)state;
	need_mw();
	qa = queue();
	qb = queue();
	pair_open(&p, qa, qb);
	side_get(&loc, qa);
	side_get(&rem, qb);
	side_get(&dst, qb);
	wb = pmr_msgbuf_alloc(pool_win, WIN_CAP);
	assert_non_null(wb);
	win = pmr_msgbuf_data(wb);
	vd_fill(win, WIN_CAP, 43);
	vd_fill(rem.p, NB * 2 * MAX_MSG, 44);
	mw = pmr_transport_mw_alloc(qa);
	assert_non_null(mw);
	/* NB READs of two WRs each against 4 credits, the BIND, a READ. */
	for (i = 0; i < NB; i++)
		ops[i] = (struct pmr_transport_rc_op){
			.type = PMR_RC_OP_READ,
			.local = loc.p + (size_t)i * 2 * MAX_MSG,
			.lkey = loc.key.lkey,
			.remote = (uintptr_t)rem.p + (size_t)i * 2 * MAX_MSG,
			.rkey = rem.key.rkey, .len = 2 * MAX_MSG,
			.cookie = i,
		};
	ops[NB] = bind_op(mw, win + 8, 3000, 100);
	ops[NB + 1] = (struct pmr_transport_rc_op){
		.type = PMR_RC_OP_READ, .local = loc.p + BIG - 64,
		.lkey = loc.key.lkey, .remote = (uintptr_t)rem.p,
		.rkey = rem.key.rkey, .len = 64, .cookie = 101,
	};
	assert_int_equal(pmr_transport_rc_post(qa, p.a, ops, NB + 2),
		NB + 2);
	/* Only the READ WRs the credits allow are on the device: the
	 * BIND waits behind the READs. */
	assert_int_equal(vd_xstat(qa, "rc_wrs"), RD_CREDITS);
	assert_true(vd_xstat(qa, "rc_rd_wait") > 0);
	poll_n(qa, cpl, NB + 2);
	for (i = 0; i < NB + 2; i++) {
		assert_int_equal(cpl[i].cookie, ops[i].cookie);
		assert_int_equal(cpl[i].status, PMR_RC_OK);
	}
	assert_memory_equal(loc.p, rem.p, NB * 2 * MAX_MSG);
	/* The window, bound on qa's QP: qb's end of the pair reads it. */
	back = (struct rc_pair){ .qa = qb, .qb = qa, .a = p.b, .b = p.a };
	memset(dst.p, 0, 3000);
	one_op(&back, PMR_RC_OP_READ, dst.p, dst.key.lkey,
		(uintptr_t)win + 8, pmr_transport_mw_rkey(qa, mw), 3000,
		PMR_RC_OK);
	assert_memory_equal(dst.p, win + 8, 3000);
	op = inval_op(mw, 102);
	assert_int_equal(op_wait(qa, p.a, &op), PMR_RC_OK);
	pmr_transport_mw_free(qa, mw);
	assert_int_equal(vd_xstat(qa, "mw_deallocated"), 0);
	assert_int_equal(pmr_msgbuf_free(wb), 0);
	side_put(&loc);
	side_put(&rem);
	side_put(&dst);
	pair_close(&p);
	queue_close(qa);
	queue_close(qb);
}

/*
 * rc_fail: the QP to ERR; what was posted to the device and what waits
 * in the driver for credits (a BIND among them, where there are windows)
 * complete PMR_RC_FLUSHED, in order, once each; the QP takes nothing
 * more. A QP with nothing outstanding just goes to ERR.
 */
static void
test_rc_fail(void **state)
{
	enum { NB = 8 };
	struct pmr_transport_rc_op ops[NB + 2];
	struct pmr_transport_rc_cpl cpl[NB + 2];
	struct pmr_transport_queue *qa, *qb;
	struct pmr_transport_mw *mw = NULL;
	struct pmr_msgbuf *wb;
	struct rc_pair p;
	struct side loc, rem;
	unsigned int i, n = NB;

	(void)state;
	qa = queue();
	qb = queue();
	pair_open(&p, qa, qb);
	side_get(&loc, qa);
	side_get(&rem, qb);
	wb = pmr_msgbuf_alloc(pool_win, WIN_CAP);
	assert_non_null(wb);
	for (i = 0; i < NB; i++)
		ops[i] = (struct pmr_transport_rc_op){
			.type = PMR_RC_OP_READ,
			.local = loc.p + (size_t)i * 2 * MAX_MSG,
			.lkey = loc.key.lkey,
			.remote = (uintptr_t)rem.p + (size_t)i * 2 * MAX_MSG,
			.rkey = rem.key.rkey, .len = 2 * MAX_MSG,
			.cookie = 300 + i,
		};
	if (queue_has_mw(qa)) {
		mw = pmr_transport_mw_alloc(qa);
		assert_non_null(mw);
		ops[n] = bind_op(mw, pmr_msgbuf_data(wb), 512, 300 + n);
		n++;
	}
	ops[n] = (struct pmr_transport_rc_op){ .type = PMR_RC_OP_WRITE,
		.local = loc.p, .lkey = loc.key.lkey,
		.remote = (uintptr_t)rem.p, .rkey = rem.key.rkey, .len = 8,
		.cookie = 300 + n };
	n++;
	assert_int_equal(pmr_transport_rc_post(qa, p.a, ops, n), n);
	/* Some posted, the rest waiting for credits. */
	assert_int_equal(vd_xstat(qa, "rc_wrs"), RD_CREDITS);
	assert_int_equal(pmr_transport_rc_fail(qa, p.a), 0);
	assert_int_equal(pmr_transport_rc_state(qa, p.a), PMR_RC_STATE_ERR);
	/* Known in ERR at once: nothing more is taken. */
	assert_int_equal(pmr_transport_rc_post(qa, p.a, ops, 1), 0);
	poll_n(qa, cpl, n);
	for (i = 0; i < n; i++) {
		assert_true(cpl[i].rc == p.a);
		assert_int_equal(cpl[i].cookie, 300 + i);
		assert_int_equal(cpl[i].status, PMR_RC_FLUSHED);
	}
	assert_int_equal(vd_xstat(qa, "rc_ops_outstanding"), 0);
	assert_int_equal(vd_xstat(qa, "rc_fails"), 1);
	/* Nothing more is taken; failing it again changes nothing. */
	assert_int_equal(pmr_transport_rc_post(qa, p.a, ops, 1), 0);
	assert_int_equal(pmr_transport_rc_fail(qa, p.a), 0);
	assert_int_equal(pmr_transport_rc_poll(qa, cpl, 1), 0);
	if (mw != NULL) {
		/* Its BIND flushed: deallocated, not cached. */
		pmr_transport_mw_free(qa, mw);
		assert_int_equal(vd_xstat(qa, "mw_deallocated"), 1);
	}
	/* Late CQEs of the failed QP are no completions. */
	rte_delay_ms(50);
	assert_int_equal(pmr_transport_rc_poll(qa, cpl, 1), 0);
	pair_close(&p);

	/* Nothing outstanding: ERR, no completion. */
	pair_open(&p, qa, qb);
	assert_int_equal(pmr_transport_rc_fail(qb, p.b), 0);
	assert_int_equal(pmr_transport_rc_state(qb, p.b), PMR_RC_STATE_ERR);
	{
		struct side s;
		struct pmr_transport_rc_op op = { .type = PMR_RC_OP_WRITE,
			.len = 8 };

		side_get(&s, qb);
		op.local = s.p;
		op.lkey = s.key.lkey;
		op.remote = (uintptr_t)loc.p;
		op.rkey = loc.key.rkey;
		assert_int_equal(pmr_transport_rc_post(qb, p.b, &op, 1), 0);
		side_put(&s);
	}
	rte_delay_ms(10);
	assert_int_equal(pmr_transport_rc_poll(qb, cpl, 1), 0);
	assert_int_equal(pmr_transport_rc_fail(NULL, p.b), -EINVAL);
	assert_int_equal(pmr_transport_rc_fail(qb, NULL), -EINVAL);
	pair_close(&p);
	assert_int_equal(pmr_msgbuf_free(wb), 0);
	side_put(&loc);
	side_put(&rem);
	queue_close(qa);
	queue_close(qb);
}

/* mw=0: no windows on a device that has them; BINDs refused. */
static void
test_rc_mw_off(void **state)
{
	struct pmr_transport_queue *q;
	struct pmr_transport_rc_attr aa, ab;
	struct pmr_transport_rc *a, *b;
	struct pmr_transport_rc_op op;
	struct pmr_msgbuf *wb;
	char da[sizeof(devargs) + 8];

	(void)state;
	snprintf(da, sizeof(da), "%s,mw=0", devargs);
	q = pmr_transport_queue_create(drv, da, SOCKET_ID_ANY);
	assert_non_null(q);
	assert_false(queue_has_mw(q));
	assert_int_equal(vd_xstat(q, "mw_live"), 0);
	rte_errno = 0;
	assert_null(pmr_transport_mw_alloc(q));
	assert_int_equal(rte_errno, ENOTSUP);
	assert_int_equal(pmr_transport_mem_register(q, pool_win), 0);
	a = pmr_transport_rc_create(q, &aa);
	b = pmr_transport_rc_create(q, &ab);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(pmr_transport_rc_connect(q, a, &ab), 0);
	assert_int_equal(pmr_transport_rc_connect(q, b, &aa), 0);
	wb = pmr_msgbuf_alloc(pool_win, 64);
	assert_non_null(wb);
	/* No window to name: refused whatever it points to. */
	op = bind_op((struct pmr_transport_mw *)wb, pmr_msgbuf_data(wb), 64,
		1);
	assert_int_equal(pmr_transport_rc_post(q, a, &op, 1), 0);
	assert_int_equal(vd_xstat(q, "mw_refused"), 1);
	assert_int_equal(pmr_msgbuf_free(wb), 0);
	assert_int_equal(pmr_transport_rc_destroy(q, a), 0);
	assert_int_equal(pmr_transport_rc_destroy(q, b), 0);
	assert_int_equal(pmr_transport_mem_unregister(q, pool_win), 0);
	pmr_transport_queue_destroy(q);
	/* The same device without the devarg: windows where it has them. */
	q = pmr_transport_queue_create(drv, devargs, SOCKET_ID_ANY);
	assert_non_null(q);
	assert_int_equal(queue_has_mw(q), mw_avail);
	assert_int_equal(vd_xstat(q, "mw_live") != 0, mw_avail);
	pmr_transport_queue_destroy(q);
}

static bool
queue_has_mw_exact(struct pmr_transport_queue *q)
{
	struct pmr_transport_caps caps;

	pmr_transport_queue_caps(q, &caps);
	return (caps.flags & PMR_TRANSPORT_CAP_MW_EXACT) != 0;
}

/* The queue of devargs plus extra: does it have exact windows? */
static bool
exact_with(const char *extra)
{
	struct pmr_transport_queue *q;
	char da[sizeof(devargs) + 32];
	bool exact;

	snprintf(da, sizeof(da), "%s%s", devargs, extra);
	q = pmr_transport_queue_create(drv, da, SOCKET_ID_ANY);
	if (q == NULL)
		fail_msg("queue '%s': %s", da, rte_strerror(rte_errno));
	exact = queue_has_mw_exact(q);
	/* Never exact without windows. */
	assert_true(!exact || queue_has_mw(q));
	pmr_transport_queue_destroy(q);
	return exact;
}

/*
 * PMR_TRANSPORT_CAP_MW_EXACT: with windows, unless the device is rxe
 * (its vendor id: rxe0, the model's rxe personality), which bounds a
 * window's access by its MR only, whatever mw_exact says; mw_exact=0
 * takes it away anywhere.
 */
static void
test_rc_mw_exact(void **state)
{
	(void)state;
	need_mw();
	assert_false(exact_with(",mw_exact=0"));
	assert_false(exact_with(",mw=0"));
#ifdef VRC_REAL
	/* rxe0. */
	assert_false(exact_with(""));
	assert_false(exact_with(",mw_exact=1"));
#else
	assert_true(exact_with(""));
	assert_true(exact_with(",mw_exact=1"));
#endif
#ifdef VRC_MODEL
	{
		struct pmr_hca_dev_config d;

		/* The rxe personality: rxe's vendor id. */
		pmr_hca_config_default(&d);
		d.mw = 1;
		d.rxe = 1;
		assert_int_equal(pmr_hca_reset(), 0);
		assert_int_equal(pmr_hca_configure(&d, 1), 0);
		assert_false(exact_with(""));
		assert_false(exact_with(",mw_exact=1"));
		d.rxe = 0;
		assert_int_equal(pmr_hca_reset(), 0);
		assert_int_equal(pmr_hca_configure(&d, 1), 0);
		assert_true(exact_with(""));
	}
#endif
}

/*
 * A region with remote read (rc_region_conf before the QPs): each QP of
 * the queue has its own, page-rounded, page-aligned; its peer READs it
 * through its key, not a byte past it; a QP of a queue without the conf
 * has none; the conf is refused once the queue has QPs, and for rights
 * other than remote read; the region goes with its QP.
 */
static void
test_rc_region(void **state)
{
	enum { LEN = 100000 };
	struct pmr_transport_queue *qa, *qb;
	struct pmr_transport_rc_region reg, reg2;
	struct rc_pair p, p2;
	struct side dst;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
#ifdef VRC_MODEL
	struct pmr_hca_objects o0, o1;
#endif

	(void)state;
	qa = queue();
	qb = queue();
#ifdef VRC_MODEL
	assert_int_equal(pmr_hca_objects_get(NULL, &o0), 0);
#endif
	assert_int_equal(pmr_transport_rc_region_conf(qb, LEN,
			PMR_TRANSPORT_ACCESS_REMOTE_WRITE), -EINVAL);
	assert_int_equal(pmr_transport_rc_region_conf(qb, (1u << 30) + 1,
			PMR_TRANSPORT_ACCESS_REMOTE_READ), -EINVAL);
	assert_int_equal(pmr_transport_rc_region_conf(qb, LEN,
			PMR_TRANSPORT_ACCESS_REMOTE_READ), 0);
	pair_open(&p, qa, qb);
	pair_open(&p2, qa, qb);
	assert_int_equal(pmr_transport_rc_region_conf(qb, LEN,
			PMR_TRANSPORT_ACCESS_REMOTE_READ), -EBUSY);
	assert_int_equal(pmr_transport_rc_region(qa, p.a, &reg), -ENOENT);
	assert_int_equal(pmr_transport_rc_region(qb, p.b, &reg), 0);
	assert_int_equal(pmr_transport_rc_region(qb, p2.b, &reg2), 0);
	assert_int_equal(reg.len, RTE_ALIGN_CEIL((size_t)LEN, page));
	assert_int_equal((uintptr_t)reg.addr % page, 0);
	assert_true(reg.addr + reg.len <= reg2.addr ||
		reg2.addr + reg2.len <= reg.addr);
	assert_true(reg.rkey != reg2.rkey);
	vd_fill(reg.addr, (uint32_t)reg.len, 7);
#ifdef VRC_MODEL
	assert_int_equal(pmr_hca_objects_get(NULL, &o1), 0);
	assert_int_equal(o1.mrs, o0.mrs + 2);
#endif
	side_get(&dst, qa);
	memset(dst.p, 0, reg.len + 1);
	one_op(&p, PMR_RC_OP_READ, dst.p, dst.key.lkey,
		(uintptr_t)reg.addr, reg.rkey, (uint32_t)reg.len, PMR_RC_OK);
	assert_memory_equal(dst.p, reg.addr, reg.len);
	assert_int_equal(dst.p[reg.len], 0);
	/* A byte past it: refused, the pair in ERR. */
	one_op(&p, PMR_RC_OP_READ, dst.p, dst.key.lkey,
		(uintptr_t)reg.addr + reg.len - 64, reg.rkey, 65,
		PMR_RC_REMOTE_ACCESS);
	wait_state(qb, p.b, PMR_RC_STATE_ERR);
	side_put(&dst);
	pair_close(&p);
	pair_close(&p2);
#ifdef VRC_MODEL
	/* The regions went with their QPs. */
	assert_int_equal(pmr_hca_objects_get(NULL, &o1), 0);
	assert_int_equal(o1.mrs, o0.mrs);
#endif
	queue_close(qa);
	queue_close(qb);
}

/*
 * A region with bind rights only (flags 0, a queue with windows): its own
 * key reads nothing; a window bound in it on its QP is read by the peer,
 * exactly its bytes with exact windows, the rest of the region but not a
 * byte past it without (rxe); a BIND in it on another QP is refused. On
 * the model, again with the rxe personality.
 */
static void
region_mw(void)
{
	struct pmr_transport_queue *qa, *qb;
	struct pmr_transport_rc_region reg;
	struct pmr_transport_rc_op op;
	struct pmr_transport_mw *mw;
	struct rc_pair p, p2;
	struct side dst;
	uint32_t rkey;
	bool exact;

	qa = queue();
	qb = queue();
	exact = queue_has_mw_exact(qb);
	assert_int_equal(pmr_transport_rc_region_conf(qb, 3 * 4096, 0), 0);
	pair_open(&p, qa, qb);
	pair_open(&p2, qa, qb);
	assert_int_equal(pmr_transport_rc_region(qb, p.b, &reg), 0);
	vd_fill(reg.addr, (uint32_t)reg.len, 9);
	side_get(&dst, qa);
	/* Another QP may not bind in it. */
	mw = pmr_transport_mw_alloc(qb);
	assert_non_null(mw);
	op = bind_op(mw, reg.addr, 256, 1);
	assert_int_equal(pmr_transport_rc_post(qb, p2.b, &op, 1), 0);
	assert_int_equal(vd_xstat(qb, "mw_refused"), 1);
	/* Its QP may: 256 bytes at 4096. */
	op = bind_op(mw, reg.addr + 4096, 256, 2);
	assert_int_equal(op_wait(qb, p.b, &op), PMR_RC_OK);
	rkey = pmr_transport_mw_rkey(qb, mw);
	memset(dst.p, 0, 256);
	one_op(&p, PMR_RC_OP_READ, dst.p, dst.key.lkey,
		(uintptr_t)reg.addr + 4096, rkey, 256, PMR_RC_OK);
	assert_memory_equal(dst.p, reg.addr + 4096, 256);
	if (!exact) {
		/* rxe: the whole region through the window... */
		one_op(&p, PMR_RC_OP_READ, dst.p, dst.key.lkey,
			(uintptr_t)reg.addr, rkey, (uint32_t)reg.len,
			PMR_RC_OK);
		assert_memory_equal(dst.p, reg.addr, reg.len);
		/* ... not a byte past it. */
		one_op(&p, PMR_RC_OP_READ, dst.p, dst.key.lkey,
			(uintptr_t)reg.addr + reg.len - 64, rkey, 65,
			PMR_RC_REMOTE_ACCESS);
	} else {
		one_op(&p, PMR_RC_OP_READ, dst.p, dst.key.lkey,
			(uintptr_t)reg.addr + 4096 + 256 - 32, rkey, 64,
			PMR_RC_REMOTE_ACCESS);
	}
	wait_state(qb, p.b, PMR_RC_STATE_ERR);
	/* Bound on a QP in ERR: deallocated. */
	pmr_transport_mw_free(qb, mw);
	pair_close(&p);
	/* The region's own key reads nothing (no remote rights). */
	assert_int_equal(pmr_transport_rc_region(qb, p2.b, &reg), 0);
	one_op(&p2, PMR_RC_OP_READ, dst.p, dst.key.lkey,
		(uintptr_t)reg.addr, reg.rkey, 64, PMR_RC_REMOTE_ACCESS);
	wait_state(qb, p2.b, PMR_RC_STATE_ERR);
	pair_close(&p2);
	side_put(&dst);
	queue_close(qa);
	queue_close(qb);
#ifdef VRC_HCA_MW
	assert_int_equal(model_mws(), 0);
#endif
}

static void
test_rc_region_mw(void **state)
{
	(void)state;
	need_mw();
	region_mw();
#ifdef VRC_MODEL
	{
		struct pmr_hca_dev_config d;

		pmr_hca_config_default(&d);
		d.mw = 1;
		d.rxe = 1;
		assert_int_equal(pmr_hca_reset(), 0);
		assert_int_equal(pmr_hca_configure(&d, 1), 0);
		region_mw();
		d.rxe = 0;
		assert_int_equal(pmr_hca_reset(), 0);
		assert_int_equal(pmr_hca_configure(&d, 1), 0);
	}
#endif
}

#ifdef VRC_MODEL
/*
 * A BIND behind a READ whose response is lost (issue 26). rxe executes a
 * BIND at once, ahead of the responses of the READs before it, and again
 * when it retries one of them: refused, its requester stops and the READ
 * never completes (pmr_hca_fault_read_retry() has the model's rxe
 * personality do the same). So on rxe the driver posts a BIND only once
 * no READ is outstanding on its QP; elsewhere at once. Both complete, in
 * order, either way.
 */
static void
bind_behind_read(uint8_t rxe)
{
	struct pmr_transport_rc_op ops[2], op;
	struct pmr_transport_rc_cpl cpl[2];
	struct pmr_transport_queue *qa, *qb;
	struct pmr_hca_dev_config d;
	struct pmr_hca_counters c;
	struct pmr_transport_mw *mw;
	struct pmr_msgbuf *wb;
	struct side loc, rem;
	struct rc_pair p;

	pmr_hca_config_default(&d);
	d.mw = 1;
	d.rxe = rxe;
	assert_int_equal(pmr_hca_reset(), 0);
	assert_int_equal(pmr_hca_configure(&d, 1), 0);
	qa = queue();
	qb = queue();
	pair_open(&p, qa, qb);
	side_get(&loc, qa);
	side_get(&rem, qb);
	wb = pmr_msgbuf_alloc(pool_win, WIN_CAP);
	assert_non_null(wb);
	mw = pmr_transport_mw_alloc(qa);
	assert_non_null(mw);
	vd_fill(rem.p, 2 * MAX_MSG, 45);
	ops[0] = (struct pmr_transport_rc_op){
		.type = PMR_RC_OP_READ, .local = loc.p, .lkey = loc.key.lkey,
		.remote = (uintptr_t)rem.p, .rkey = rem.key.rkey,
		.len = 2 * MAX_MSG, .cookie = 1,
	};
	ops[1] = bind_op(mw, pmr_msgbuf_data(wb), 3000, 2);
	pmr_hca_counters_reset();
	pmr_hca_fault_read_retry(1);
	assert_int_equal(pmr_transport_rc_post(qa, p.a, ops, 2), 2);
	/* rxe: the READ's two WRs on the device, the BIND waits. */
	assert_int_equal(vd_xstat(qa, "rc_wrs"), rxe ? 2 : 3);
	assert_int_equal(vd_xstat(qa, "rc_bind_wait") > 0, rxe);
	poll_n(qa, cpl, 2);
	assert_int_equal(cpl[0].cookie, 1);
	assert_int_equal(cpl[0].status, PMR_RC_OK);
	assert_int_equal(cpl[1].cookie, 2);
	assert_int_equal(cpl[1].status, PMR_RC_OK);
	assert_memory_equal(loc.p, rem.p, 2 * MAX_MSG);
	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	assert_int_equal(c.rd_retried, 1);
	assert_int_equal(c.retry_stalls, 0);
	op = inval_op(mw, 3);
	assert_int_equal(op_wait(qa, p.a, &op), PMR_RC_OK);
	pmr_transport_mw_free(qa, mw);
	assert_int_equal(pmr_msgbuf_free(wb), 0);
	side_put(&loc);
	side_put(&rem);
	pair_close(&p);
	queue_close(qa);
	queue_close(qb);
	pmr_hca_fault_read_retry(0);
}

/* Model only: a lost response cannot be asked of a real device. */
static void
test_rc_bind_after_read(void **state)
{
	(void)state;
	need_mw();
	bind_behind_read(1);
	bind_behind_read(0);
}
#endif

static int
setup(void **state)
{
	if (pmr_test_eal_setup(state) != 0)
		return -1;
	drv = pmr_transport_find("verbs");
	if (drv == NULL)
		return -1;
	pool = pmr_msgbuf_pool_create("rc_pool", 3, 0, CAP, 64,
			SOCKET_ID_ANY);
	pool_local = pmr_msgbuf_pool_create("rc_local", 63, 0, 2048, 64,
			SOCKET_ID_ANY);
	pool_win = pmr_msgbuf_pool_create("rc_win", 3, 0, WIN_CAP, 64,
			SOCKET_ID_ANY);
	return pool != NULL && pool_local != NULL && pool_win != NULL ?
		0 : -1;
}

static int
teardown(void **state)
{
	pmr_msgbuf_pool_free(pool);
	pmr_msgbuf_pool_free(pool_local);
	pmr_msgbuf_pool_free(pool_win);
	return pmr_test_eal_teardown(state);
}

/* Can the device bring an RC QP pair to RTS? 1, 0, or -1 (no queue). */
static int
rc_probe(void)
{
	struct pmr_transport_queue *q;
	struct pmr_transport_rc_attr aa, ab;
	struct pmr_transport_rc *a, *b;
	int ok = 0;

	q = pmr_transport_queue_create(drv, devargs, SOCKET_ID_ANY);
	if (q == NULL)
		return -1;
	a = pmr_transport_rc_create(q, &aa);
	b = pmr_transport_rc_create(q, &ab);
	if (a != NULL && b != NULL &&
	    pmr_transport_rc_connect(q, a, &ab) == 0 &&
	    pmr_transport_rc_connect(q, b, &aa) == 0)
		ok = 1;
	if (a != NULL)
		pmr_transport_rc_destroy(q, a);
	if (b != NULL)
		pmr_transport_rc_destroy(q, b);
	mw_avail = queue_has_mw(q);
	pmr_transport_queue_destroy(q);
	return ok;
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rc_devargs),
		cmocka_unit_test(test_rc_timeout_retry),
		cmocka_unit_test(test_rc_attr_state),
		cmocka_unit_test(test_rc_read_write),
		cmocka_unit_test(test_rc_burst),
		cmocka_unit_test(test_rc_bad_rkey),
		cmocka_unit_test(test_rc_peer_gone),
		cmocka_unit_test(test_rc_destroy_outstanding),
		cmocka_unit_test(test_rc_fail),
		cmocka_unit_test(test_rc_mw_bind_read),
		cmocka_unit_test(test_rc_mw_err_qp),
		cmocka_unit_test(test_rc_mw_order),
		cmocka_unit_test(test_rc_mw_off),
		cmocka_unit_test(test_rc_mw_exact),
		cmocka_unit_test(test_rc_region),
		cmocka_unit_test(test_rc_region_mw),
#ifdef VRC_MODEL
		cmocka_unit_test(test_rc_bind_after_read),
#endif
	};
	const char *dev = getenv("PMR_VERBS_DEV");
	const char *req = getenv("PMR_RC_REQUIRE");
	const char *mreq = getenv("PMR_MW_REQUIRE");
	bool require = (req != NULL && strcmp(req, "1") == 0) ||
		getenv("PMR_VM_GUEST") != NULL;
	int ret;

#ifdef VRC_REAL
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
#endif
	snprintf(devargs, sizeof(devargs), "%s%s%src_max_msg=%u,rc_rd=%u",
		dev != NULL ? "dev=" : "", dev != NULL ? dev : "",
		dev != NULL ? "," : "", MAX_MSG, RD_CREDITS);
	/* rxe has type-2B windows: in the VM, none is a failure. */
	mw_require = (mreq != NULL && strcmp(mreq, "1") == 0) ||
		getenv("PMR_VM_GUEST") != NULL;
#ifdef VRC_MODEL
	{
		/* The model's default device, with windows advertised (a
		 * model without them leaves the queues without CAP_MW). */
		struct pmr_hca_dev_config d;

		pmr_hca_config_default(&d);
		d.mw = 1;
		if (pmr_hca_configure(&d, 1) != 0) {
			fprintf(stderr, "pmr_hca_configure failed\n");
			return 1;
		}
	}
#endif
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	/* The probe needs the EAL: set up once here, torn down at the
	 * end (the group has no setup of its own). */
	if (setup(NULL) != 0) {
		fprintf(stderr, "setup failed\n");
		return 1;
	}
	ret = rc_probe();
	if (ret != 1) {
		fprintf(stderr, "%s: %s\n", devargs, ret < 0 ?
			"no queue" : "no RC QP reaches RTS on this device");
		teardown(NULL);
		return require ? 1 : 77;
	}
	ret = cmocka_run_group_tests_name("verbs_rc", tests, NULL, NULL);
	teardown(NULL);
	return ret;
}
