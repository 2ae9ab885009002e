/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The verbs driver on the software HCA model (test/hca/, strict: SQ slots
 * freed only by a polled signalled completion, payloads read at
 * execution): devargs, two queues on hca0 exchanging packets, batching,
 * signaling and inline asserted from the model's own counters, the
 * flush rule, loss, deferred AH destroy. Linked with the model ahead of
 * libibverbs (meson.build).
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>

#include "pmr_hca.h"
#include "pmr_msgbuf.h"
#include "pmr_pkthdr.h"
#include "pmr_nexus.h"
#include "pmr_rpc.h"
#include "pmr_test.h"
#include "pmr_test_rpc.h"
#include "pmr_transport.h"
#include "verbs_drv_attacker.h"
#include "verbs_drv_e2e.h"
#include "verbs_drv_util.h"

#define SIG_EVERY 16

static const struct pmr_transport_driver *drv;
static struct rte_mempool *pool;
static struct rte_mempool *pool_unreg;

struct pair {
	struct pmr_transport_queue *a;
	struct pmr_transport_queue *b;
	struct pmr_transport_peer *a2b;	/* on a, to b */
	struct pmr_transport_peer *b2a;	/* on b, to a */
};


static void
pair_open2(struct pair *p, const char *devargs_a, const char *devargs_b)
{
	p->a = pmr_transport_queue_create(drv, devargs_a, SOCKET_ID_ANY);
	assert_non_null(p->a);
	p->b = pmr_transport_queue_create(drv, devargs_b, SOCKET_ID_ANY);
	assert_non_null(p->b);
	assert_int_equal(pmr_transport_mem_register(p->a, pool), 0);
	assert_int_equal(pmr_transport_mem_register(p->b, pool), 0);
	p->a2b = vd_peer_to(p->a, p->b);
	p->b2a = vd_peer_to(p->b, p->a);
	pmr_hca_counters_reset();
}

static void
pair_open(struct pair *p, const char *devargs)
{
	pair_open2(p, devargs, devargs);
}

/* Flush and poll both until neither holds a msgbuf or a dead AH. */
static void
pair_quiesce(struct pair *p)
{
	vd_quiesce(p->a, p->b, 100);
}

static void
pair_close(struct pair *p)
{
	pair_quiesce(p);
	pmr_transport_peer_destroy(p->a, p->a2b);
	pmr_transport_peer_destroy(p->b, p->b2a);
	p->a2b = NULL;
	p->b2a = NULL;
	pair_quiesce(p);
	assert_int_equal(vd_xstat(p->a, "ahs_live"), 0);
	assert_int_equal(vd_xstat(p->b, "ahs_live"), 0);
	assert_int_equal(vd_xstat(p->a, "ah_destroy_busy"), 0);
	assert_int_equal(vd_xstat(p->b, "ah_destroy_busy"), 0);
	pmr_transport_queue_destroy(p->a);
	pmr_transport_queue_destroy(p->b);
	assert_true(pmr_msgbuf_pool_full(pool));
	vd_objects_none();
}

/* Receive want packets on q (bounded polls), copying payloads out. */
static unsigned int
recv_n(struct pmr_transport_queue *q, unsigned int want, uint8_t (*bufs)[2048],
		uint32_t *lens, uint64_t *srcs)
{
	struct pmr_rx_pkt rx[PMR_BURST_MAX];
	unsigned int got = 0, tries;
	uint16_t n, i;

	for (tries = 0; tries < 1000 && got < want; tries++) {
		n = pmr_transport_rx_burst(q, rx, PMR_BURST_MAX);
		for (i = 0; i < n; i++) {
			if (got < want) {
				assert_true(rx[i].len <= 2048);
				memcpy(bufs[got], rx[i].data, rx[i].len);
				lens[got] = rx[i].len;
				srcs[got] = rx[i].src;
			}
			got++;
		}
		pmr_transport_rx_release(q, rx, n);
	}
	return got;
}


/* Fill a pkts array of n packets of len bytes from fresh msgbufs. */
static void
pkts_make(struct pmr_tx_pkt *pkts, struct pmr_msgbuf **mbs, unsigned int n,
		struct pmr_transport_peer *peer, uint32_t len)
{
	unsigned int i;

	assert_int_equal(pmr_msgbuf_alloc_bulk(pool, mbs, n, len), 0);
	for (i = 0; i < n; i++) {
		vd_fill(pmr_msgbuf_data(mbs[i]), len, i);
		memset(&pkts[i], 0, sizeof(pkts[i]));
		pkts[i].peer = peer;
		pkts[i].mb = mbs[i];
		pkts[i].data = pmr_msgbuf_data(mbs[i]);
		pkts[i].len = len;
	}
}

static void
test_devargs_errors(void **state)
{
	static const struct {
		const char *args;
		int err;
	} bad[] = {
		{ "dev=nope", ENODEV },
		{ "gid_index=16", EINVAL },	/* past the table of 16 */
		{ "gid_index=5", EINVAL },	/* an empty slot */
		{ "gid_index=-1", EINVAL },
		{ "foo=1", EINVAL },		/* unknown key */
		{ "dev=hca0,dev=hca0", EINVAL },
		{ "port=2", EINVAL },
		{ "port=0", EINVAL },
		{ "sig_every=0", EINVAL },
		{ "txd=512,sig_every=300", EINVAL },
		{ "txd=100", EINVAL },		/* not a power of two */
		{ "rxd=8", EINVAL },
	};
	struct pmr_transport_queue *q;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(bad); i++) {
		rte_errno = 0;
		q = pmr_transport_queue_create(drv, bad[i].args,
				SOCKET_ID_ANY);
		if (q != NULL)
			fail_msg("'%s' accepted", bad[i].args);
		if (rte_errno != bad[i].err)
			fail_msg("'%s': rte_errno %d, want %d", bad[i].args,
				rte_errno, bad[i].err);
	}
	/* Named, the link-local GID 0 is taken. */
	q = pmr_transport_queue_create(drv, "dev=hca0,port=1,gid_index=0",
			SOCKET_ID_ANY);
	assert_non_null(q);
	pmr_transport_queue_destroy(q);
}

static void
test_caps_addr(void **state)
{
	static const uint8_t gid1[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1,
	};
	struct pmr_transport_queue *q, *q0;
	struct pmr_transport_caps caps;
	struct pmr_transport_addr addr, addr0;

	(void)state;
	q = pmr_transport_queue_create(drv, NULL, SOCKET_ID_ANY);
	assert_non_null(q);
	pmr_transport_queue_caps(q, &caps);
	assert_int_equal(caps.mtu, 1024);	/* the model's active MTU */
	assert_int_equal(caps.rx_depth, 1024 - 32 - 1);
	assert_int_equal(caps.addr_len, 28);
	assert_true(caps.flags & PMR_TRANSPORT_CAP_MEM_REG);
	assert_int_equal(pmr_transport_queue_addr(q, &addr), 0);
	assert_int_equal(addr.len, 28);
	/* Automatic: GID 1, IPv4-mapped RoCE v2, not link-local GID 0. */
	assert_memory_equal(addr.bytes + 12, gid1, 16);
	/* A second queue: another QPN, another (random) QKey. */
	q0 = pmr_transport_queue_create(drv, "dev=hca0", SOCKET_ID_ANY);
	assert_non_null(q0);
	assert_int_equal(pmr_transport_queue_addr(q0, &addr0), 0);
	assert_memory_not_equal(addr.bytes + 4, addr0.bytes + 4, 4);
	assert_memory_not_equal(addr.bytes + 8, addr0.bytes + 8, 4);
	/* A malformed address is refused. */
	addr0.len = 27;
	assert_null(pmr_transport_peer_create(q, &addr0));
	assert_int_equal(rte_errno, EINVAL);
	pmr_transport_queue_destroy(q0);
	pmr_transport_queue_destroy(q);
}

/* One packet a to b, with or without hdr, of len bytes, checked. */
static void
one(struct pair *p, uint16_t hdr_len, uint32_t len, uint32_t seed)
{
	static uint8_t bufs[1][2048];
	uint8_t hdr[128], want[2048];
	uint32_t lens[1];
	uint64_t srcs[1];
	struct pmr_msgbuf *mb = pmr_msgbuf_alloc(pool, len);
	struct pmr_tx_pkt pkt;

	assert_non_null(mb);
	vd_fill(hdr, hdr_len, seed + 1);
	vd_fill(pmr_msgbuf_data(mb), len, seed);
	memcpy(want, hdr, hdr_len);
	memcpy(want + hdr_len, pmr_msgbuf_data(mb), len);
	memset(&pkt, 0, sizeof(pkt));
	pkt.peer = p->a2b;
	pkt.mb = mb;
	pkt.data = pmr_msgbuf_data(mb);
	pkt.len = len;
	pkt.hdr = hdr_len != 0 ? hdr : NULL;
	pkt.hdr_len = hdr_len;
	assert_int_equal(pmr_transport_tx_burst(p->a, &pkt, 1), 1);
	/* hdr need only be valid during the call. */
	memset(hdr, 0xee, sizeof(hdr));
	assert_int_equal(recv_n(p->b, 1, bufs, lens, srcs), 1);
	assert_int_equal(lens[0], hdr_len + len);
	assert_memory_equal(bufs[0], want, hdr_len + len);
	/* The source is the peer b made for a. */
	assert_true(srcs[0] == p->b2a->src);
	pair_quiesce(p);
	assert_int_equal(pmr_msgbuf_tx_pending(mb), 0);
	assert_int_equal(pmr_msgbuf_free(mb), 0);
}

static void
test_single(void **state)
{
	struct pmr_hca_counters c;
	struct pair p;

	(void)state;
	pair_open(&p, "dev=hca0");
	one(&p, 0, 64, 1);		/* inline, no hdr */
	one(&p, 24, 64, 2);		/* inline, hdr */
	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	assert_int_equal(c.wqe_inline, 2);
	one(&p, 0, 900, 3);		/* zero-copy */
	one(&p, 40, 900, 4);		/* zero-copy, hdr in a slot */
	one(&p, 128, 896, 5);		/* the largest hdr, a full MTU */
	one(&p, 0, 0, 6);		/* empty */
	assert_int_equal(vd_xstat(p.a, "tx_invalid"), 0);
	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	assert_int_equal(c.wqe_inline, 3);
	assert_int_equal(c.drop_no_recv + c.drop_qkey + c.drop_no_qp, 0);
	pair_close(&p);
}

/* Bursts both ways under load: batching and signaling from the model. */
static void
test_bursts(void **state)
{
	static uint8_t bufs[PMR_BURST_MAX][2048];
	const unsigned int rounds = 40;
	static struct pmr_msgbuf *held[40 * PMR_BURST_MAX];
	struct pmr_msgbuf *mbs[PMR_BURST_MAX];
	struct pmr_tx_pkt pkts[PMR_BURST_MAX];
	struct pmr_hca_counters c;
	unsigned int nb_held = 0;
	uint32_t lens[PMR_BURST_MAX];
	uint64_t srcs[PMR_BURST_MAX], sends = 0, sent_small = 0;
	unsigned int r, i;
	struct pair p;
	uint8_t hdr[16];

	(void)state;
	pair_open(&p, "dev=hca0,sig_every=16,txd=256");
	vd_fill(hdr, sizeof(hdr), 99);
	for (r = 0; r < rounds; r++) {
		uint16_t n = 0, k;

		/* Odd rounds: small packets (inline); even: zero-copy. */
		uint32_t len = (r & 1) ? 32 : 700 + r;

		assert_int_equal(pmr_msgbuf_alloc_bulk(pool, mbs,
				PMR_BURST_MAX, len), 0);
		for (i = 0; i < PMR_BURST_MAX; i++) {
			vd_fill(pmr_msgbuf_data(mbs[i]), len, r * 100 + i);
			memset(&pkts[i], 0, sizeof(pkts[i]));
			pkts[i].peer = p.a2b;
			pkts[i].mb = mbs[i];
			pkts[i].data = pmr_msgbuf_data(mbs[i]);
			pkts[i].len = len;
			if (i & 1) {
				pkts[i].hdr = hdr;
				pkts[i].hdr_len = sizeof(hdr);
			}
		}
		while (n < PMR_BURST_MAX) {
			k = pmr_transport_tx_burst(p.a, pkts + n,
					PMR_BURST_MAX - n);
			n += k;
		}
		sends += n;
		if (r & 1)
			sent_small += n;
		assert_int_equal(recv_n(p.b, PMR_BURST_MAX, bufs, lens, srcs),
			PMR_BURST_MAX);
		for (i = 0; i < PMR_BURST_MAX; i++) {
			uint32_t h = (i & 1) ? sizeof(hdr) : 0;
			uint8_t want[2048];

			assert_int_equal(lens[i], h + len);
			memcpy(want, hdr, h);
			vd_fill(want + h, len, r * 100 + i);
			assert_memory_equal(bufs[i], want, h + len);
			assert_true(srcs[i] == p.b2a->src);
		}
		/* Freed once the driver lets go; some may still be held
		 * (the unsignalled tail): those are freed after the
		 * quiesce below. */
		for (i = 0; i < PMR_BURST_MAX; i++)
			if (pmr_msgbuf_tx_pending(mbs[i]) == 0)
				assert_int_equal(pmr_msgbuf_free(mbs[i]), 0);
			else
				held[nb_held++] = mbs[i];
	}
	/* Some were held (unsignalled tails), not all. */
	assert_true(nb_held > 0 && nb_held < sends);
	pair_quiesce(&p);
	for (i = 0; i < nb_held; i++)
		assert_int_equal(pmr_msgbuf_free(held[i]), 0);
	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	/* Every WQE the model accepted, from both queues. */
	assert_int_equal(c.wqe_signaled + c.wqe_unsignaled,
		sends + vd_xstat(p.a, "tx_flushes") + vd_xstat(p.b, "tx_flushes"));
	assert_true(c.wqe_signaled <= sends / SIG_EVERY +
		vd_xstat(p.a, "tx_flushes") + vd_xstat(p.b, "tx_flushes") + 1);
	/* Batching: more than one WQE per post. */
	assert_true(c.post_send_calls * 2 <= sends);
	/* Small packets inline, all of them. */
	assert_int_equal(c.wqe_inline, sent_small);
	assert_true(c.sq_high_water <= 256);
	assert_int_equal(c.sq_full, 0);
	assert_int_equal(vd_xstat(p.a, "tx_signaled"), c.wqe_signaled -
		vd_xstat(p.b, "tx_flushes"));
	pair_close(&p);
	/* The tail freed by the flush: every msgbuf back. */
	assert_true(pmr_msgbuf_pool_full(pool));
}

/*
 * A quiet queue: fewer sends than sig_every are all unsignalled; the
 * flush (a signalled self-send) frees them and is dropped on our own RX.
 */
static void
test_quiet_flush(void **state)
{
	static uint8_t bufs[4][2048];
	struct pmr_msgbuf *mbs[4];
	struct pmr_tx_pkt pkts[4];
	struct pmr_hca_counters c;
	uint32_t lens[4];
	uint64_t srcs[4];
	struct pair p;
	unsigned int i;

	(void)state;
	pair_open(&p, "dev=hca0,sig_every=64");
	pkts_make(pkts, mbs, 4, p.a2b, 800);
	assert_int_equal(pmr_transport_tx_burst(p.a, pkts, 4), 4);
	assert_int_equal(recv_n(p.b, 4, bufs, lens, srcs), 4);
	/* Delivered, but the driver cannot know: no signalled WQE. */
	for (i = 0; i < 4; i++)
		assert_int_equal(pmr_msgbuf_tx_pending(mbs[i]), 1);
	assert_true(vd_xstat(p.a, "tx_pending") > 0);
	/* 1: still held, flush again later. */
	assert_int_equal(pmr_transport_tx_flush(p.a), 1);
	/* At most one flush outstanding (this one may reap the first:
	 * the model executes WQEs inside the poll of the send CQ). */
	assert_true(pmr_transport_tx_flush(p.a) >= 0);
	assert_int_equal(vd_xstat(p.a, "tx_flushes"), 1);
	pair_quiesce(&p);
	assert_int_equal(vd_xstat(p.a, "tx_pending"), 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(pmr_msgbuf_tx_pending(mbs[i]), 0);
		assert_int_equal(pmr_msgbuf_free(mbs[i]), 0);
	}
	/* Its own flush send, dropped on receipt, but no packet lost. */
	assert_int_equal(vd_xstat(p.a, "rx_self_flush"), 1);
	{
		struct pmr_transport_stats st;

		assert_int_equal(pmr_transport_stats_get(p.a, &st), 0);
		assert_int_equal(st.rx_dropped, 0);
	}
	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	assert_int_equal(c.wqe_signaled, 1);
	assert_int_equal(c.wqe_unsignaled, 4);
	/* Flushing a drained queue posts nothing, and says so. */
	assert_int_equal(pmr_transport_tx_flush(p.a), 0);
	assert_int_equal(vd_xstat(p.a, "tx_flushes"), 1);
	/*
	 * A tail of inline sends holds no buffer: no flush send for it (on
	 * rxe one per quiet period doubled the round trip), though its WRs
	 * are not known complete yet.
	 */
	pkts_make(pkts, mbs, 3, p.a2b, 40);
	assert_int_equal(pmr_transport_tx_burst(p.a, pkts, 3), 3);
	assert_int_equal(recv_n(p.b, 3, bufs, lens, srcs), 3);
	assert_int_equal(pmr_transport_tx_flush(p.a), 0);
	assert_int_equal(vd_xstat(p.a, "tx_flushes"), 1);
	assert_int_equal(vd_xstat(p.a, "tx_held"), 0);
	assert_int_equal(vd_xstat(p.a, "tx_pending"), 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(pmr_msgbuf_tx_pending(mbs[i]), 0);
		assert_int_equal(pmr_msgbuf_free(mbs[i]), 0);
	}
	pair_close(&p);
}

/* Memory outside any registered chunk: refused and counted. */
static void
test_unregistered(void **state)
{
	struct pmr_msgbuf *mb, *ok;
	struct pmr_tx_pkt pkts[2];
	struct pair p;

	(void)state;
	pair_open(&p, "dev=hca0");
	ok = pmr_msgbuf_alloc(pool, 600);
	mb = pmr_msgbuf_alloc(pool_unreg, 600);
	assert_non_null(ok);
	assert_non_null(mb);
	memset(pkts, 0, sizeof(pkts));
	pkts[0].peer = p.a2b;
	pkts[0].mb = ok;
	pkts[0].data = pmr_msgbuf_data(ok);
	pkts[0].len = 600;
	pkts[1] = pkts[0];
	pkts[1].mb = mb;
	pkts[1].data = pmr_msgbuf_data(mb);
	vd_fill(pmr_msgbuf_data(mb), 600, 11);
	/* Both go: the second is copied into the bounce area (made now,
	 * registered), so the driver keeps no reference on it, and the
	 * caller may reuse it at once. */
	assert_int_equal(pmr_transport_tx_burst(p.a, pkts, 2), 2);
	assert_int_equal(vd_xstat(p.a, "tx_bounced"), 1);
	assert_int_equal(vd_xstat(p.a, "tx_unregistered"), 0);
	assert_int_equal(pmr_msgbuf_tx_pending(mb), 0);
	assert_int_equal(pmr_msgbuf_tx_pending(ok), 1);
	{
		static uint8_t bufs[2][2048];
		uint8_t want[600];
		uint32_t lens[2];
		uint64_t srcs[2];

		memcpy(want, pmr_msgbuf_data(mb), 600);
		memset(pmr_msgbuf_data(mb), 0xee, 600);	/* reused at once */
		assert_int_equal(recv_n(p.b, 2, bufs, lens, srcs), 2);
		assert_int_equal(lens[1], 600);
		assert_memory_equal(bufs[1], want, 600);
	}
	/* Small enough to go inline, it needs no key and no copy. */
	pkts[1].len = 64;
	assert_int_equal(pmr_transport_tx_burst(p.a, &pkts[1], 1), 1);
	assert_int_equal(vd_xstat(p.a, "tx_bounced"), 1);
	/* Over the MTU: refused. */
	pkts[0].len = 1025;
	assert_int_equal(pmr_transport_tx_burst(p.a, pkts, 1), 0);
	assert_int_equal(vd_xstat(p.a, "tx_invalid"), 1);
	pair_quiesce(&p);
	assert_int_equal(pmr_msgbuf_free(mb), 0);
	assert_int_equal(pmr_msgbuf_free(ok), 0);
	pair_close(&p);
}

/* The model's injected drops: the receiver sees fewer, the model counts
 * them; the sender's buffers are still freed. */
static void
test_loss(void **state)
{
	static uint8_t bufs[PMR_BURST_MAX][2048];
	struct pmr_msgbuf *mbs[PMR_BURST_MAX];
	struct pmr_tx_pkt pkts[PMR_BURST_MAX];
	struct pmr_hca_counters c;
	uint32_t lens[PMR_BURST_MAX];
	uint64_t srcs[PMR_BURST_MAX];
	struct pair p;
	unsigned int i;

	(void)state;
	pair_open(&p, "dev=hca0");
	pkts_make(pkts, mbs, 20, p.a2b, 500);
	pmr_hca_fault(3, 0, 0);
	assert_int_equal(pmr_transport_tx_burst(p.a, pkts, 20), 20);
	assert_int_equal(recv_n(p.b, 20, bufs, lens, srcs), 17);
	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	assert_int_equal(c.drop_injected, 3);
	pair_quiesce(&p);
	for (i = 0; i < 20; i++)
		assert_int_equal(pmr_msgbuf_free(mbs[i]), 0);
	assert_int_equal(vd_xstat(p.b, "rx_drop_status"), 0);
	pair_close(&p);
}

/*
 * Peers share an AH per remote GID; a peer destroyed with unsignalled
 * sends still in the SQ keeps its AH alive until a signalled completion
 * covers them (the model refuses an early ibv_destroy_ah with EBUSY,
 * which the driver counts in ah_destroy_busy).
 */
static void
test_peer_destroy_in_flight(void **state)
{
	static uint8_t bufs[8][2048];
	struct pmr_msgbuf *mbs[8];
	struct pmr_tx_pkt pkts[8];
	struct pmr_transport_peer *extra;
	uint32_t lens[8];
	uint64_t srcs[8];
	struct pair p;
	unsigned int i;

	(void)state;
	pair_open(&p, "dev=hca0,sig_every=64");
	/* A second peer to the same GID (b's), another QPN (a's own). */
	extra = vd_peer_to(p.a, p.a);
	assert_int_equal(vd_xstat(p.a, "ahs_live"), 1);
	pmr_transport_peer_destroy(p.a, extra);
	assert_int_equal(vd_xstat(p.a, "ahs_live"), 1);

	pkts_make(pkts, mbs, 8, p.a2b, 600);
	assert_int_equal(pmr_transport_tx_burst(p.a, pkts, 8), 8);
	assert_int_equal(recv_n(p.b, 8, bufs, lens, srcs), 8);
	/* Executed, but the SQ slots (and the AH's uses) are held until a
	 * signalled completion is polled. */
	pmr_transport_peer_destroy(p.a, p.a2b);
	p.a2b = NULL;
	assert_int_equal(vd_xstat(p.a, "ahs_live"), 1);
	assert_int_equal(vd_xstat(p.a, "ah_destroy_busy"), 0);
	pair_quiesce(&p);
	assert_int_equal(vd_xstat(p.a, "ahs_live"), 0);
	assert_int_equal(vd_xstat(p.a, "ah_destroy_busy"), 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(pmr_msgbuf_free(mbs[i]), 0);
	/* A new peer to the same GID gets a fresh AH. */
	p.a2b = vd_peer_to(p.a, p.b);
	assert_int_equal(vd_xstat(p.a, "ahs_live"), 1);
	pair_close(&p);
}

/*
 * A small SQ under bursts larger than it: the driver refuses what does
 * not fit (tx_full) and the strict model never sees a full SQ.
 */
static void
test_sq_small(void **state)
{
	static uint8_t bufs[PMR_BURST_MAX][2048];
	struct pmr_msgbuf *mbs[PMR_BURST_MAX];
	struct pmr_tx_pkt pkts[PMR_BURST_MAX];
	struct pmr_hca_counters c;
	uint32_t lens[PMR_BURST_MAX];
	uint64_t srcs[PMR_BURST_MAX];
	unsigned int r, i, got = 0, sent = 0;
	struct pmr_transport_stats st;
	struct pair p;

	(void)state;
	pair_open(&p, "dev=hca0,txd=16,sig_every=8");
	for (r = 0; r < 20; r++) {
		uint16_t n = 0, k, tries = 0;

		pkts_make(pkts, mbs, PMR_BURST_MAX, p.a2b, 300);
		while (n < PMR_BURST_MAX) {
			k = pmr_transport_tx_burst(p.a, pkts + n,
					PMR_BURST_MAX - n);
			/* Never more than the SQ can hold at once. */
			assert_true(k <= 15);
			n += k;
			got += recv_n(p.b, k, bufs, lens, srcs);
			assert_true(++tries < 1000);
		}
		sent += n;
		pair_quiesce(&p);
		for (i = 0; i < PMR_BURST_MAX; i++)
			assert_int_equal(pmr_msgbuf_free(mbs[i]), 0);
	}
	assert_int_equal(got, sent);
	/* Bursts of 32 into an SQ of 16: some refused for room. */
	assert_int_equal(pmr_transport_stats_get(p.a, &st), 0);
	assert_true(st.tx_full > 0);
	assert_int_equal(st.tx_pkts, sent);
	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	assert_int_equal(c.sq_full, 0);
	assert_true(c.sq_high_water <= 16);
	assert_int_equal(vd_xstat(p.a, "tx_post_err"), 0);
	pair_close(&p);
}

/*
 * A device slow to execute (the model's step mode): bursts fill the SQ
 * less one slot, the flush takes the last; a burst then finds no room
 * (not a negative one) and the strict model never refuses a post.
 */
static void
test_sq_full_then_flush(void **state)
{
	struct pmr_msgbuf *mbs[16];
	struct pmr_tx_pkt pkts[16];
	struct pmr_hca_counters c;
	struct pmr_transport_stats st;
	struct pair p;
	unsigned int i;

	(void)state;
	pair_open(&p, "dev=hca0,txd=16,sig_every=8");
	pkts_make(pkts, mbs, 16, p.a2b, 300);
	pmr_hca_step_mode(1);
	assert_int_equal(pmr_transport_tx_burst(p.a, pkts, 16), 15);
	assert_int_equal(pmr_transport_tx_flush(p.a), 1);
	assert_int_equal(vd_xstat(p.a, "tx_flushes"), 1);
	assert_int_equal(pmr_transport_tx_burst(p.a, &pkts[15], 1), 0);
	assert_int_equal(pmr_transport_stats_get(p.a, &st), 0);
	assert_int_equal(st.tx_full, 2);
	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	assert_int_equal(c.sq_full, 0);
	assert_int_equal(c.sq_high_water, 16);
	assert_int_equal(vd_xstat(p.a, "tx_post_err"), 0);
	pmr_hca_step_mode(0);
	pair_quiesce(&p);
	/* Room again: the last one goes. */
	assert_int_equal(pmr_transport_tx_burst(p.a, &pkts[15], 1), 1);
	pair_quiesce(&p);
	for (i = 0; i < 16; i++)
		assert_int_equal(pmr_msgbuf_free(mbs[i]), 0);
	pair_close(&p);
}

/*
 * The threading rule: peers created and destroyed on another thread (as
 * the nexus does) while this one runs the data path. The other thread's
 * peers go to b (sharing the AH a2b uses) and to c (GID 0: an AH of
 * their own, created and left to die over and over, also to a peer that
 * gets one packet on the data path per round).
 */
struct churn {
	struct pmr_transport_queue *q;
	struct pmr_transport_addr to_b;
	struct pmr_transport_addr to_c;
	int stop;		/* atomics: the two threads share them */
	unsigned int rounds;
};

static void *
churn_main(void *arg)
{
	struct churn *ch = arg;

	while (!__atomic_load_n(&ch->stop, __ATOMIC_ACQUIRE)) {
		struct pmr_transport_peer *pb, *pc;

		pb = pmr_transport_peer_create(ch->q, &ch->to_b);
		pc = pmr_transport_peer_create(ch->q, &ch->to_c);
		if (pb == NULL || pc == NULL)
			abort();
		pmr_transport_peer_destroy(ch->q, pc);
		pmr_transport_peer_destroy(ch->q, pb);
		__atomic_fetch_add(&ch->rounds, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void
test_peer_churn_threads(void **state)
{
	static uint8_t bufs[PMR_BURST_MAX][2048];
	struct pmr_msgbuf *mbs[PMR_BURST_MAX];
	struct pmr_tx_pkt pkts[PMR_BURST_MAX];
	uint32_t lens[PMR_BURST_MAX];
	uint64_t srcs[PMR_BURST_MAX];
	struct pmr_transport_queue *c;
	struct pmr_transport_peer *a2c;
	struct churn ch;
	uint64_t deadline;
	pthread_t t;
	unsigned int r, i;
	struct pair p;

	(void)state;
	pair_open(&p, "dev=hca0,sig_every=8");
	c = pmr_transport_queue_create(drv, "dev=hca0,gid_index=0",
			SOCKET_ID_ANY);
	assert_non_null(c);
	memset(&ch, 0, sizeof(ch));
	ch.q = p.a;
	assert_int_equal(pmr_transport_queue_addr(p.b, &ch.to_b), 0);
	assert_int_equal(pmr_transport_queue_addr(c, &ch.to_c), 0);
	assert_int_equal(pthread_create(&t, NULL, churn_main, &ch), 0);
	/* Both at once: wait for the other thread to start (2 shared
	 * cores), and go on until it has done enough rounds too. */
	deadline = pmr_test_now_ns() + PMR_TEST_WAIT_NS;
	while (__atomic_load_n(&ch.rounds, __ATOMIC_ACQUIRE) == 0)
		assert_true(pmr_test_now_ns() < deadline);
	for (r = 0; r < 200 ||
	     __atomic_load_n(&ch.rounds, __ATOMIC_ACQUIRE) < 1000; r++) {
		assert_true(pmr_test_now_ns() < deadline);
		uint16_t n = 0;

		/* A peer of this thread's to c: its AH may be a zombie
		 * the other thread revives, or one it left behind. */
		a2c = pmr_transport_peer_create(p.a, &ch.to_c);
		assert_non_null(a2c);
		pkts_make(pkts, mbs, 8, p.a2b, 200 + r % 512);
		pkts[7].peer = a2c;
		while (n < 8)
			n += pmr_transport_tx_burst(p.a, pkts + n, 8 - n);
		assert_int_equal(recv_n(p.b, 7, bufs, lens, srcs), 7);
		assert_int_equal(recv_n(c, 1, bufs, lens, srcs), 1);
		assert_int_equal(lens[0], 200 + r % 512);
		pmr_transport_peer_destroy(p.a, a2c);
		/*
		 * The driver lets go of this round's msgbufs. Not a full
		 * quiesce: the other thread keeps leaving dead AHs behind,
		 * so the flush may go on saying 1 until it stops.
		 */
		for (i = 0; i < 100 && vd_xstat(p.a, "tx_held") != 0; i++)
			assert_true(pmr_transport_tx_flush(p.a) >= 0);
		assert_int_equal(vd_xstat(p.a, "tx_held"), 0);
		for (i = 0; i < 8; i++)
			assert_int_equal(pmr_msgbuf_free(mbs[i]), 0);
	}
	__atomic_store_n(&ch.stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(t, NULL), 0);
	fprintf(stderr, "# %u peer rounds on the other thread, %u here\n",
		ch.rounds, r);
	assert_int_equal(vd_xstat(p.a, "ah_destroy_busy"), 0);
	pmr_transport_queue_destroy(c);
	pair_close(&p);
}

/* Duplicates from the model are delivered as such (the engine drops
 * them); a failed send moves the QP to ERR without stranding buffers. */
static void
test_dup_and_fail(void **state)
{
	static uint8_t bufs[PMR_BURST_MAX][2048];
	struct pmr_msgbuf *mbs[PMR_BURST_MAX];
	struct pmr_tx_pkt pkts[PMR_BURST_MAX];
	uint32_t lens[PMR_BURST_MAX];
	uint64_t srcs[PMR_BURST_MAX];
	struct pmr_hca_counters c;
	struct pair p;
	unsigned int i;

	(void)state;
	pair_open(&p, "dev=hca0");
	pkts_make(pkts, mbs, 8, p.a2b, 500);
	pmr_hca_fault(0, 2, 0);
	assert_int_equal(pmr_transport_tx_burst(p.a, pkts, 8), 8);
	assert_int_equal(recv_n(p.b, 10, bufs, lens, srcs), 10);
	pair_quiesce(&p);
	for (i = 0; i < 8; i++)
		assert_int_equal(pmr_msgbuf_free(mbs[i]), 0);

	/* The third of 8 sends fails: GENERAL_ERR, QP to ERR. */
	pkts_make(pkts, mbs, 8, p.a2b, 500);
	pmr_hca_fault(0, 0, 1);
	assert_int_equal(pmr_transport_tx_burst(p.a, pkts, 8), 8);
	assert_int_equal(recv_n(p.b, 8, bufs, lens, srcs), 0);
	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	assert_int_equal(c.fail_injected, 1);
	/* Reap: every WQE completes (in error or flushed); nothing is
	 * held, although the queue can no longer send. */
	for (i = 0; i < 10 && vd_xstat(p.a, "tx_pending") != 0; i++)
		(void)pmr_transport_tx_flush(p.a);
	assert_int_equal(vd_xstat(p.a, "tx_pending"), 0);
	assert_true(vd_xstat(p.a, "tx_cqe_err") >= 1);
	for (i = 0; i < 8; i++)
		assert_int_equal(pmr_msgbuf_free(mbs[i]), 0);
	pmr_transport_peer_destroy(p.a, p.a2b);
	pmr_transport_peer_destroy(p.b, p.b2a);
	pmr_transport_queue_destroy(p.a);
	pmr_transport_queue_destroy(p.b);
	assert_true(pmr_msgbuf_pool_full(pool));
}

/*
 * One end-to-end RPC through the public API on the verbs driver: a nexus,
 * a server and a client worker with driver "verbs" on hca0, polled here
 * (the nexus thread creates the peers meanwhile). Seam problems show
 * here first; what broke is in the report of issue 15's driver part.
 */
static void
test_e2e_rpc(void **state)
{
	struct pmr_worker_conf conf = {
		.driver = "verbs", .devargs = "dev=hca0", .nb_msgbufs = 256,
		.max_msg_size = 64 * 1024, .nb_mid_msgbufs = 4,
		.nb_large_msgbufs = 2,
	};
	struct vd_e2e_reply r = { 0 };
	struct pmr_msgbuf *req;
	struct pmr_hca_counters c;
	struct vd_e2e e;
	unsigned int i;

	(void)state;
	pmr_hca_counters_reset();
	vd_e2e_up(&e, &conf, NULL);

	/* Single-packet, then multi-packet (MTU 1024 on the model). */
	for (i = 0; i < 2; i++) {
		uint32_t len = i == 0 ? 100 : 5000;

		memset(&r, 0, sizeof(r));
		req = pmr_worker_msgbuf_alloc(e.cli, len);
		assert_non_null(req);
		memset(req->data, 0x5a, len);
		assert_int_equal(pmr_request(e.cli, e.s, VD_E2E_REQ, req,
				vd_e2e_on_reply, &r), 0);
		while (r.done == 0 && pmr_test_now_ns() < e.deadline) {
			pmr_worker_poll(e.srv);
			pmr_worker_poll(e.cli);
		}
		assert_int_equal(r.done, 1);
		assert_int_equal(r.status, PMR_OK);
		assert_int_equal(r.len, len);
		assert_int_equal(r.first, 0x5a ^ 0xff);
	}
	/* The sends went through the model (not some other driver). */
	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	assert_true(c.rx_packets >= 2 + 2 * (5000 / 1024));
	/*
	 * Quiet now: the engine's own polling flushes a quiet queue
	 * (rpc_poll_rare()), so the driver lets go of every send (kept
	 * responses included) without any flush from here, long before
	 * teardown.
	 */
	fprintf(stderr, "# idle polls until the driver held nothing: %u\n",
		vd_e2e_quiesce(&e));
	assert_true(vd_xstat(pmr_worker_queue(e.srv), "tx_flushes") > 0);
	vd_e2e_down(&e);
}

/*
 * The engine under load on verbs, loss and duplicates from the model
 * itself (not the engine's fault injection): every RPC completes with
 * its payload, the model counts what it dropped and the engine
 * retransmitted; batching, selective signaling and inline sends are
 * asserted from the model's counters (the device's side).
 */
#define LOAD_RPCS 3000
#define LOAD_DEPTH 8
#define LOAD_SIG 16

struct load_call {
	struct vd_e2e_reply r;
	uint32_t len;
};

static void
test_e2e_load_loss(void **state)
{
	struct pmr_worker_conf conf = {
		.driver = "verbs", .devargs = "dev=hca0,sig_every=16",
		.nb_msgbufs = 512, .max_msg_size = 64 * 1024,
		.nb_mid_msgbufs = 32, .nb_large_msgbufs = 2, .rto_us = 2000,
	};
	struct load_call calls[LOAD_DEPTH];
	struct pmr_worker_stats cst, sst;
	struct pmr_hca_counters c;
	struct pmr_msgbuf *req;
	unsigned int started = 0, done = 0, i;
	uint64_t wqes;
	struct vd_e2e e;

	(void)state;
	vd_e2e_up(&e, &conf, NULL);
	pmr_hca_counters_reset();

	memset(calls, 0, sizeof(calls));
	for (i = 0; i < LOAD_DEPTH; i++)
		calls[i].r.done = 1;	/* free slots */
	while (done < LOAD_RPCS) {
		assert_true(pmr_test_now_ns() < e.deadline);
		for (i = 0; i < LOAD_DEPTH; i++) {
			struct load_call *lc = &calls[i];

			if (lc->r.done == 0)
				continue;
			if (lc->len != 0) {	/* one came back: check it */
				assert_int_equal(lc->r.status, PMR_OK);
				assert_int_equal(lc->r.len, lc->len);
				assert_int_equal(lc->r.first, 0x5a ^ 0xff);
				lc->len = 0;
				done++;
			}
			if (started == LOAD_RPCS)
				continue;
			/* Mostly small (inline), every fifth multi-packet. */
			lc->len = started % 5 == 4 ? 3000 : 48;
			memset(&lc->r, 0, sizeof(lc->r));
			req = pmr_worker_msgbuf_alloc(e.cli, lc->len);
			assert_non_null(req);
			memset(req->data, 0x5a, lc->len);
			assert_int_equal(pmr_request(e.cli, e.s,
					VD_E2E_REQ, req, vd_e2e_on_reply,
					&lc->r), 0);
			/* Loss and duplicates from the device, mid-run. */
			if (started == LOAD_RPCS / 3)
				pmr_hca_fault(6, 0, 0);
			if (started == 2 * LOAD_RPCS / 3)
				pmr_hca_fault(0, 4, 0);
			started++;
		}
		pmr_worker_poll(e.srv);
		pmr_worker_poll(e.cli);
	}

	assert_int_equal(pmr_hca_counters_get(NULL, &c), 0);
	assert_int_equal(c.drop_injected, 6);
	assert_int_equal(c.dup_injected, 4);
	pmr_worker_stats_get(e.cli, &cst);
	pmr_worker_stats_get(e.srv, &sst);
	fprintf(stderr, "# model: %" PRIu64 " WQEs in %" PRIu64 " posts, %"
		PRIu64 " signalled, %" PRIu64 " inline; engine: %" PRIu64
		" retransmissions, %" PRIu64 " answered again; flushes %"
		PRIu64 " (server), %" PRIu64 " (client)\n",
		c.wqe_signaled + c.wqe_unsignaled, c.post_send_calls,
		c.wqe_signaled, c.wqe_inline, cst.retransmissions,
		sst.dup_answered, vd_xstat(pmr_worker_queue(e.srv), "tx_flushes"),
		vd_xstat(pmr_worker_queue(e.cli), "tx_flushes"));
	/* The engine recovered the device's losses by retransmitting. */
	assert_true(cst.retransmissions > 0);
	/* Batching: more than one WQE per ibv_post_send under load. */
	wqes = c.wqe_signaled + c.wqe_unsignaled;
	assert_true(wqes > c.post_send_calls);
	/* Signaling: one in sig_every, plus flushes, plus one. */
	assert_true(c.wqe_signaled <= wqes / LOAD_SIG +
		vd_xstat(pmr_worker_queue(e.srv), "tx_flushes") +
		vd_xstat(pmr_worker_queue(e.cli), "tx_flushes") + 1);
	/* The small requests and their responses went inline. */
	assert_true(c.wqe_inline >= LOAD_RPCS * 4 / 5);

	/* Quiet: the driver lets go of everything, then teardown. */
	vd_e2e_quiesce(&e);
	assert_int_equal(pmr_session_destroy(e.cli, e.s), 0);
	vd_e2e_down(&e);
}

/*
 * An application's own msgbuf pool: sent from as is, its packets are
 * copied (bounced) by the verbs driver; registered with the worker, they
 * go zero-copy, under the lkey the model's MR has; unregistered (refused
 * while the driver holds one of its msgbufs), copied again.
 */
static void
test_app_pool_register(void **state)
{
	/*
	 * Nothing by READ: the session's RC QP would come at a time of its
	 * own with its region, an MR too (doc/rendezvous.md), and the MRs
	 * counted here are the pool's.
	 */
	struct pmr_worker_conf conf = {
		.driver = "verbs", .devargs = "dev=hca0", .nb_msgbufs = 256,
		.max_msg_size = 64 * 1024, .nb_mid_msgbufs = 4,
		.nb_large_msgbufs = 2, .rdv_threshold = PMR_RDV_OFF,
	};
	struct pmr_transport_queue *q;
	struct pmr_transport_stats st;
	struct pmr_transport_mkey key;
	struct pmr_hca_objects o0, o;
	struct vd_e2e_reply r = { 0 };
	struct rte_mempool *mp;
	struct pmr_msgbuf *mb;
	uint64_t bounced, zc;
	struct vd_e2e e;

	(void)state;
	vd_e2e_up(&e, &conf, NULL);
	q = pmr_worker_queue(e.cli);
	mp = pmr_msgbuf_pool_create("vd_app", 63, 0, 4096, 0, SOCKET_ID_ANY);
	assert_non_null(mp);

	/* Not registered: works, copied. */
	bounced = vd_xstat(q, "tx_bounced");
	vd_e2e_call(&e, mp, 900);
	assert_true(vd_xstat(q, "tx_bounced") > bounced);
	mb = pmr_msgbuf_alloc(mp, 8);
	assert_non_null(mb);
	assert_int_equal(pmr_transport_mem_key(q, mb->data, 8, &key),
			-ENOENT);
	assert_int_equal(pmr_worker_pool_unregister(e.cli, mp), -ENOENT);

	/* Registered: its chunks are MRs on the model, sent zero-copy. */
	assert_int_equal(pmr_hca_objects_get("hca0", &o0), 0);
	assert_int_equal(pmr_worker_pool_register(e.cli, mp), 0);
	assert_int_equal(pmr_worker_pool_register(e.cli, mp), 0); /* no-op */
	assert_int_equal(pmr_hca_objects_get("hca0", &o), 0);
	assert_true(o.mrs > o0.mrs);
	assert_int_equal(pmr_transport_mem_key(q, mb->data, 8, &key), 0);
	assert_true(key.lkey != 0);
	assert_int_equal(pmr_msgbuf_free(mb), 0);
	bounced = vd_xstat(q, "tx_bounced");
	assert_int_equal(pmr_transport_stats_get(q, &st), 0);
	zc = st.tx_zerocopy;
	vd_e2e_call(&e, mp, 900);
	assert_int_equal(vd_xstat(q, "tx_bounced"), bounced);
	assert_int_equal(pmr_transport_stats_get(q, &st), 0);
	assert_int_equal(st.tx_zerocopy, zc + 1);

	/* Refused while the driver holds one of its msgbufs. */
	mb = pmr_msgbuf_alloc(mp, 900);
	assert_non_null(mb);
	memset(mb->data, 0x5a, 900);
	assert_int_equal(pmr_request(e.cli, e.s, VD_E2E_REQ, mb,
			vd_e2e_on_reply, &r), 0);
	pmr_worker_poll(e.cli);		/* sent, not yet completed */
	assert_true(pmr_msgbuf_tx_pending(mb) != 0);
	assert_int_equal(pmr_worker_pool_unregister(e.cli, mp), -EBUSY);
	while (r.done == 0) {
		assert_true(pmr_test_now_ns() < e.deadline);
		pmr_worker_poll(e.srv);
		pmr_worker_poll(e.cli);
	}
	assert_int_equal(r.status, PMR_OK);
	vd_e2e_quiesce(&e);

	/* Unregistered: the MRs are gone, its packets copied again. */
	assert_int_equal(pmr_worker_pool_unregister(e.cli, mp), 0);
	assert_int_equal(pmr_hca_objects_get("hca0", &o), 0);
	assert_int_equal(o.mrs, o0.mrs);
	assert_int_equal(pmr_worker_pool_unregister(e.cli, mp), -ENOENT);
	bounced = vd_xstat(q, "tx_bounced");
	vd_e2e_call(&e, mp, 900);
	assert_true(vd_xstat(q, "tx_bounced") > bounced);

	vd_e2e_quiesce(&e);
	assert_int_equal(pmr_session_destroy(e.cli, e.s), 0);
	vd_e2e_down(&e);
	assert_int_equal(pmr_msgbuf_pool_free(mp), 0);
}

/*
 * Hostile datagrams: a QP of the test's own on hca0 (anyone on the
 * fabric) sends the server worker's queue, whose QPN and QKey it knows
 * (an attacker on the path sees both), thousands of datagrams up to the
 * MTU while a client runs RPCs (vd_hostile_run()). Every RPC completes
 * with its payload, the server hands its handler exactly the client's
 * requests, and each datagram that reached the engine is counted as a
 * drop; nothing is left behind.
 */
#define HOSTILE_DGRAMS 6000

static void
test_hostile_datagrams(void **state)
{
	struct pmr_worker_conf conf = {
		.driver = "verbs", .devargs = "dev=hca0", .nb_msgbufs = 512,
		.max_msg_size = 64 * 1024, .nb_mid_msgbufs = 8,
		.nb_large_msgbufs = 2,
	};
	struct vd_e2e e;

	(void)state;
	vd_e2e_up(&e, &conf, NULL);
	vd_hostile_run(&e, "hca0", 1024, HOSTILE_DGRAMS);
	assert_int_equal(pmr_session_destroy(e.cli, e.s), 0);
	/* The server hears of it through the nexus and lets go of what it
	 * kept; the drivers of what they sent (the quiet flush). */
	vd_e2e_pools_full(&e);
	vd_e2e_down(&e);
}

/*
 * Several devices on the model's fabric: what dev=, port= and the
 * automatic GID choice pick, the refusals of a port that is down, an
 * InfiniBand port and a table of link-local GIDs only, traffic between
 * two devices, and one context and PD per device, shared by its queues
 * and closed with the last one.
 */
static const char fabric_spec[] =
	"dev=hca0 "
	"dev=ib0 port=1,link=ib "
	"dev=mix port=1,gids=none,gid0=v2/fe80::99 "
	"port=2,gids=none,gid0=v2/fe80::98,gid1=v1/2001:db8::97,"
	"gid2=v2/2001:db8::98 "
	"dev=two port=1 port=2,state=down";

/* The GID a queue made with devargs advertises in its address. */
static void
queue_gid(const char *devargs, uint8_t gid[16])
{
	struct pmr_transport_queue *q;
	struct pmr_transport_addr addr;

	q = pmr_transport_queue_create(drv, devargs, SOCKET_ID_ANY);
	if (q == NULL)
		fail_msg("'%s' refused: %s", devargs,
			rte_strerror(rte_errno));
	assert_int_equal(pmr_transport_queue_addr(q, &addr), 0);
	memcpy(gid, addr.bytes + 12, 16);
	pmr_transport_queue_destroy(q);
}

static void
test_fabric(void **state)
{
	static const struct {
		const char *args;
		int err;
	} bad[] = {
		{ "dev=two,port=2", ENETDOWN },
		{ "dev=ib0", ENOTSUP },
		{ "dev=mix", EADDRNOTAVAIL },	/* port 1: link-local only */
		{ "dev=hca0,port=2", EINVAL },	/* hca0 has one port */
	};
	static const uint8_t v6_global[16] = {
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x98,
	};
	static const uint8_t ll99[16] = {
		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x99,
	};
	struct pmr_transport_queue *q1, *q2;
	struct pmr_hca_objects o;
	uint8_t gid_a[16], gid_b[16];
	struct pair p;
	unsigned int i;

	(void)state;
	vd_fabric(fabric_spec);
	for (i = 0; i < RTE_DIM(bad); i++) {
		rte_errno = 0;
		if (pmr_transport_queue_create(drv, bad[i].args,
				SOCKET_ID_ANY) != NULL)
			fail_msg("'%s' accepted", bad[i].args);
		if (rte_errno != bad[i].err)
			fail_msg("'%s': rte_errno %d, want %d", bad[i].args,
				rte_errno, bad[i].err);
	}
	vd_objects_none();	/* a refused queue leaves nothing open */

	/* A link-local GID only when gid_index names it. */
	queue_gid("dev=mix,gid_index=0", gid_a);
	assert_memory_equal(gid_a, ll99, 16);
	/* No IPv4-mapped GID: the global RoCE v2 one, not v1, not LL. */
	queue_gid("dev=mix,port=2", gid_a);
	assert_memory_equal(gid_a, v6_global, 16);
	/* The two ports of one device have their own GIDs. */
	assert_int_equal(pmr_hca_port_set_state("two", 2, IBV_PORT_ACTIVE),
			0);
	queue_gid("dev=two,port=1", gid_a);
	queue_gid("dev=two,port=2", gid_b);
	assert_memory_not_equal(gid_a, gid_b, 16);

	/* One context and one PD for the queues of a device. */
	q1 = pmr_transport_queue_create(drv, "dev=two,port=1", SOCKET_ID_ANY);
	q2 = pmr_transport_queue_create(drv, "dev=two,port=2", SOCKET_ID_ANY);
	assert_non_null(q1);
	assert_non_null(q2);
	assert_int_equal(pmr_hca_objects_get("two", &o), 0);
	assert_int_equal(o.contexts, 1);
	assert_int_equal(o.pds, 1);
	assert_int_equal(o.qps, 2);
	pmr_transport_queue_destroy(q1);
	assert_int_equal(pmr_hca_objects_get("two", &o), 0);
	assert_int_equal(o.contexts, 1);
	assert_int_equal(o.qps, 1);
	pmr_transport_queue_destroy(q2);
	vd_objects_none();

	/* Traffic between devices, and between the ports of one. */
	pair_open2(&p, "dev=hca0", "dev=two,port=2");
	one(&p, 0, 64, 7);
	one(&p, 40, 900, 8);
	pair_close(&p);
	pair_open2(&p, "dev=two,port=1", "dev=mix,port=2");
	one(&p, 24, 512, 9);
	pair_close(&p);

	vd_fabric(NULL);
}

static int
setup(void **state)
{
	if (pmr_test_eal_setup(state) != 0)
		return -1;
	drv = pmr_transport_find("verbs");
	if (drv == NULL) {
		fprintf(stderr, "no verbs driver in this build\n");
		return -1;
	}
	pool = pmr_msgbuf_pool_create("vd_pool", 1023, 0, 2048, 64,
			SOCKET_ID_ANY);
	pool_unreg = pmr_msgbuf_pool_create("vd_unreg", 63, 0, 2048, 64,
			SOCKET_ID_ANY);
	return pool != NULL && pool_unreg != NULL ? 0 : -1;
}

static int
teardown(void **state)
{
	pmr_msgbuf_pool_free(pool);
	pmr_msgbuf_pool_free(pool_unreg);
	return pmr_test_eal_teardown(state);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devargs_errors),
		cmocka_unit_test(test_caps_addr),
		cmocka_unit_test(test_single),
		cmocka_unit_test(test_bursts),
		cmocka_unit_test(test_quiet_flush),
		cmocka_unit_test(test_unregistered),
		cmocka_unit_test(test_loss),
		cmocka_unit_test(test_peer_destroy_in_flight),
		cmocka_unit_test(test_sq_small),
		cmocka_unit_test(test_sq_full_then_flush),
		cmocka_unit_test(test_peer_churn_threads),
		cmocka_unit_test(test_dup_and_fail),
		cmocka_unit_test(test_e2e_load_loss),
		cmocka_unit_test(test_app_pool_register),
		cmocka_unit_test(test_hostile_datagrams),
		cmocka_unit_test(test_fabric),
		cmocka_unit_test(test_e2e_rpc),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("verbs_drv", tests, setup,
		teardown);
}
