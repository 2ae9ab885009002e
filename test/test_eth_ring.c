/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/* The eth driver end to end over an in-process ring pair. */

#include "pmr_test.h"

#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "eth_hdr.h"
#include "pmr_msgbuf.h"
#include "pmr_transport.h"

#define PINGPONG_COUNT 100000
#define POLL_LIMIT 10000000u

/* Two eth queues on a ring pair, each knowing the other as a peer. */
struct pair {
	char name[16];
	uint16_t port_a, port_b;
	struct pmr_transport_queue *qa, *qb;
	struct pmr_transport_peer *a_to_b, *b_to_a;
	struct rte_mempool *pool;
	uint32_t mtu;
};

static unsigned int pair_seq;

/* Zero-copy TX from 1 byte up; a ring pair's default is to copy. */
#define ZC ",tx_copy_max=0"

static void
pair_up(struct pair *p, const char *extra)
{
	const struct pmr_transport_driver *drv = pmr_transport_find("eth");
	struct pmr_transport_addr addr_a, addr_b;
	struct pmr_transport_caps caps;
	char args[128];

	assert_non_null(drv);
	snprintf(p->name, sizeof(p->name), "er%u", pair_seq++);
	assert_int_equal(pmr_test_ring_pair(p->name, &p->port_a, &p->port_b),
			0);
	snprintf(args, sizeof(args), "port=%u,ip=10.0.0.1%s", p->port_a,
			extra);
	p->qa = pmr_transport_queue_create(drv, args, SOCKET_ID_ANY);
	assert_non_null(p->qa);
	snprintf(args, sizeof(args), "port=%u,ip=10.0.0.2%s", p->port_b,
			extra);
	p->qb = pmr_transport_queue_create(drv, args, SOCKET_ID_ANY);
	assert_non_null(p->qb);

	assert_int_equal(pmr_transport_queue_addr(p->qa, &addr_a), 0);
	assert_int_equal(pmr_transport_queue_addr(p->qb, &addr_b), 0);
	p->a_to_b = pmr_transport_peer_create(p->qa, &addr_b);
	p->b_to_a = pmr_transport_peer_create(p->qb, &addr_a);
	assert_non_null(p->a_to_b);
	assert_non_null(p->b_to_a);

	pmr_transport_queue_caps(p->qa, &caps);
	p->mtu = caps.mtu;
	p->pool = pmr_msgbuf_pool_create(p->name, 512, 32, caps.mtu,
			caps.headroom, SOCKET_ID_ANY);
	assert_non_null(p->pool);
}

/* Receive every packet still in flight so their mbufs go back. */
static void
pair_drain(struct pair *p)
{
	struct pmr_rx_pkt rx[PMR_BURST_MAX];
	uint16_t nb;

	while ((nb = pmr_transport_rx_burst(p->qa, rx, PMR_BURST_MAX)) > 0)
		pmr_transport_rx_release(p->qa, rx, nb);
	while ((nb = pmr_transport_rx_burst(p->qb, rx, PMR_BURST_MAX)) > 0)
		pmr_transport_rx_release(p->qb, rx, nb);
}

static void
pair_down(struct pair *p)
{
	pair_drain(p);
	assert_int_equal(pmr_msgbuf_pool_in_use(p->pool), 0);
	assert_int_equal(pmr_msgbuf_pool_free(p->pool), 0);
	pmr_transport_peer_destroy(p->qa, p->a_to_b);
	pmr_transport_peer_destroy(p->qb, p->b_to_a);
	pmr_transport_queue_destroy(p->qa);
	pmr_transport_queue_destroy(p->qb);
	pmr_test_ring_pair_free(p->name, p->port_a, p->port_b);
}

static void
fill(uint8_t *d, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		d[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

static int
check(const uint8_t *d, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (d[i] != (uint8_t)(seed * 31 + i * 7 + (i >> 8)))
			return -1;
	return 0;
}

static void
send_one(struct pmr_transport_queue *q, const struct pmr_transport_peer *to,
		struct pmr_msgbuf *mb)
{
	struct pmr_tx_pkt pkt = {
		.peer = to, .mb = mb, .data = mb->data, .len = mb->len,
	};

	assert_int_equal(pmr_transport_tx_burst(q, &pkt, 1), 1);
}

static void
recv_one(struct pmr_transport_queue *q, struct pmr_rx_pkt *rx)
{
	uint32_t polls = 0;

	while (pmr_transport_rx_burst(q, rx, 1) == 0)
		assert_true(++polls < POLL_LIMIT);
}

/* Wait until a zero-copy send's buffer is free again, then free it. */
static void
free_when_sent(struct pmr_msgbuf *mb)
{
	assert_int_equal(pmr_msgbuf_tx_pending(mb), 0);
	pmr_msgbuf_free(mb);
}

static void
test_pingpong_all_sizes(void **state)
{
	struct pmr_transport_stats sa, sb;
	struct pmr_rx_pkt rx;
	struct pair p;
	uint32_t i;

	(void)state;
	pair_up(&p, ZC);
	for (i = 0; i < PINGPONG_COUNT; i++) {
		uint32_t len = i % (p.mtu + 1);
		struct pmr_msgbuf *req, *resp;

		req = pmr_msgbuf_alloc(p.pool, len);
		assert_non_null(req);
		fill(req->data, len, i);
		send_one(p.qa, p.a_to_b, req);

		recv_one(p.qb, &rx);
		assert_int_equal(rx.len, len);
		assert_int_equal(rx.src, p.b_to_a->src);
		assert_int_equal(check(rx.data, rx.len, i), 0);
		resp = pmr_msgbuf_alloc(p.pool, len);
		assert_non_null(resp);
		/* The answer is the request with every byte inverted. */
		for (uint32_t k = 0; k < len; k++)
			resp->data[k] = (uint8_t)~rx.data[k];
		pmr_transport_rx_release(p.qb, &rx, 1);
		free_when_sent(req);
		send_one(p.qb, p.b_to_a, resp);

		recv_one(p.qa, &rx);
		assert_int_equal(rx.len, len);
		assert_int_equal(rx.src, p.a_to_b->src);
		for (uint32_t k = 0; k < len; k++)
			assert_true(rx.data[k] == (uint8_t)~(uint8_t)
				(i * 31 + k * 7 + (k >> 8)));
		pmr_transport_rx_release(p.qa, &rx, 1);
		free_when_sent(resp);
	}
	assert_int_equal(pmr_transport_stats_get(p.qa, &sa), 0);
	assert_int_equal(pmr_transport_stats_get(p.qb, &sb), 0);
	assert_int_equal(sa.tx_pkts, PINGPONG_COUNT);
	assert_int_equal(sa.rx_pkts, PINGPONG_COUNT);
	assert_int_equal(sb.tx_pkts, PINGPONG_COUNT);
	assert_int_equal(sb.rx_pkts, PINGPONG_COUNT);
	assert_int_equal(sa.rx_dropped + sb.rx_dropped, 0);
	assert_int_equal(sa.tx_full + sb.tx_full, 0);
	/* Both TX paths ran: copies for small sizes, zero-copy above. */
	assert_true(sa.tx_zerocopy > 0 && sa.tx_zerocopy < sa.tx_pkts);
	assert_int_equal(sa.tx_bytes, sb.rx_bytes);
	pair_down(&p);
}

static void
test_burst_keeps_order(void **state)
{
	struct pmr_tx_pkt tx[PMR_BURST_MAX];
	struct pmr_rx_pkt rx[PMR_BURST_MAX];
	struct pmr_msgbuf *mb[PMR_BURST_MAX];
	struct pair p;
	uint16_t got = 0, i;
	uint32_t polls = 0;

	(void)state;
	pair_up(&p, ZC);
	for (i = 0; i < PMR_BURST_MAX; i++) {
		/* Alternate copy and zero-copy sizes within one burst. */
		uint32_t len = (i & 1) ? p.mtu - i : i;

		mb[i] = pmr_msgbuf_alloc(p.pool, len);
		assert_non_null(mb[i]);
		fill(mb[i]->data, len, i);
		tx[i] = (struct pmr_tx_pkt){ .peer = p.a_to_b, .mb = mb[i],
			.data = mb[i]->data, .len = len };
	}
	assert_int_equal(pmr_transport_tx_burst(p.qa, tx, PMR_BURST_MAX),
			PMR_BURST_MAX);
	while (got < PMR_BURST_MAX) {
		got += pmr_transport_rx_burst(p.qb, &rx[got],
				PMR_BURST_MAX - got);
		assert_true(++polls < POLL_LIMIT);
	}
	for (i = 0; i < PMR_BURST_MAX; i++) {
		assert_int_equal(rx[i].len, mb[i]->len);
		assert_int_equal(check(rx[i].data, rx[i].len, i), 0);
	}
	/* Zero-copy buffers stay referenced until the receiver lets go. */
	assert_int_equal(pmr_msgbuf_tx_pending(mb[1]), 1);
	assert_int_equal(pmr_msgbuf_tx_pending(mb[0]), 0);
	pmr_transport_rx_release(p.qb, rx, PMR_BURST_MAX);
	for (i = 0; i < PMR_BURST_MAX; i++)
		free_when_sent(mb[i]);
	pair_down(&p);
}

static void
test_tx_ring_full_refuses(void **state)
{
	struct pmr_transport_stats st;
	struct pmr_tx_pkt tx[PMR_BURST_MAX];
	struct pmr_msgbuf *mb;
	struct pair p;
	uint32_t sent = 0, i;
	uint16_t n;

	(void)state;
	pair_up(&p, ZC);
	/* One zero-copy msgbuf sent over and over: many references. */
	mb = pmr_msgbuf_alloc(p.pool, p.mtu);
	assert_non_null(mb);
	for (i = 0; i < PMR_BURST_MAX; i++)
		tx[i] = (struct pmr_tx_pkt){ .peer = p.a_to_b, .mb = mb,
			.data = mb->data, .len = mb->len };
	/* Nobody receives: the 1024-slot ring fills up. */
	for (i = 0; i < 100; i++) {
		n = pmr_transport_tx_burst(p.qa, tx, PMR_BURST_MAX);
		sent += n;
		if (n < PMR_BURST_MAX)
			break;
	}
	assert_true(n < PMR_BURST_MAX);
	assert_int_equal(pmr_msgbuf_tx_pending(mb), sent);
	assert_int_equal(pmr_transport_stats_get(p.qa, &st), 0);
	assert_int_equal(st.tx_pkts, sent);
	assert_true(st.tx_full > 0);
	pair_drain(&p);
	assert_int_equal(pmr_msgbuf_tx_pending(mb), 0);
	pmr_msgbuf_free(mb);
	pair_down(&p);
}

static void
test_oversize_refused(void **state)
{
	struct pmr_transport_stats st;
	struct pmr_transport_xstat xs[32];
	struct rte_mempool *big;
	struct pmr_msgbuf *mb;
	struct pmr_tx_pkt pkt;
	struct pair p;
	int i, n;
	uint64_t invalid = 0;

	(void)state;
	pair_up(&p, "");
	big = pmr_msgbuf_pool_create("er_big", 4, 0, 4096, 64, SOCKET_ID_ANY);
	assert_non_null(big);
	mb = pmr_msgbuf_alloc(big, p.mtu + 1);
	assert_non_null(mb);
	pkt = (struct pmr_tx_pkt){ .peer = p.a_to_b, .mb = mb,
		.data = mb->data, .len = mb->len };
	assert_int_equal(pmr_transport_tx_burst(p.qa, &pkt, 1), 0);
	assert_int_equal(pmr_msgbuf_tx_pending(mb), 0);
	assert_int_equal(pmr_transport_stats_get(p.qa, &st), 0);
	assert_int_equal(st.tx_pkts, 0);
	n = pmr_transport_xstats_get(p.qa, xs, RTE_DIM(xs));
	assert_true(n > 0 && n <= (int)RTE_DIM(xs));
	for (i = 0; i < n; i++)
		if (strcmp(xs[i].name, "tx_invalid") == 0)
			invalid = xs[i].value;
	assert_int_equal(invalid, 1);
	pmr_msgbuf_free(mb);
	assert_int_equal(pmr_msgbuf_pool_free(big), 0);
	pair_down(&p);
}

/* Send raw frames straight into a's ring port, past the driver. */
static void
inject(struct pair *p, const uint8_t *frame, uint16_t len)
{
	struct rte_mempool *mp = rte_mempool_lookup("er_raw");
	struct rte_mbuf *m;

	if (mp == NULL)
		mp = rte_pktmbuf_pool_create("er_raw", 256, 0, 0,
				RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	assert_non_null(mp);
	m = rte_pktmbuf_alloc(mp);
	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, len), frame, len);
	assert_int_equal(rte_eth_tx_burst(p->port_a, 0, &m, 1), 1);
}

static uint64_t
xstat(struct pmr_transport_queue *q, const char *name)
{
	struct pmr_transport_xstat xs[32];
	int i, n = pmr_transport_xstats_get(q, xs, RTE_DIM(xs));

	for (i = 0; i < n; i++)
		if (strcmp(xs[i].name, name) == 0)
			return xs[i].value;
	fail_msg("no xstat %s", name);
	return 0;
}

static void
test_rx_drops_counted_by_reason(void **state)
{
	struct pmr_eth_endpoint src, dst;
	struct pmr_transport_addr addr;
	struct pmr_transport_stats st;
	struct pmr_rx_pkt rx[4];
	uint8_t frame[PMR_ETH_HDR_LEN + 16];
	struct pair p;
	struct pmr_msgbuf *mb;

	(void)state;
	pair_up(&p, "");
	assert_int_equal(pmr_transport_queue_addr(p.qa, &addr), 0);
	assert_int_equal(pmr_eth_addr_decode(&addr, &src), 0);
	assert_int_equal(pmr_transport_queue_addr(p.qb, &addr), 0);
	assert_int_equal(pmr_eth_addr_decode(&addr, &dst), 0);

	/* Wrong UDP port. */
	dst.port ^= 1;
	pmr_eth_hdr_template(frame, &src, &dst);
	pmr_eth_hdr_set_len(frame, 16, false);
	inject(&p, frame, sizeof(frame));
	dst.port ^= 1;
	/* Bad IP checksum. */
	pmr_eth_hdr_template(frame, &src, &dst);
	pmr_eth_hdr_set_len(frame, 16, false);
	frame[sizeof(struct rte_ether_hdr) + 8] ^= 0x10;	/* TTL */
	inject(&p, frame, sizeof(frame));
	/* Too short. */
	inject(&p, frame, 20);

	assert_int_equal(pmr_transport_rx_burst(p.qb, rx, 4), 0);
	assert_int_equal(xstat(p.qb, "rx_drop_dst_port"), 1);
	assert_int_equal(xstat(p.qb, "rx_drop_ip_cksum"), 1);
	assert_int_equal(xstat(p.qb, "rx_drop_short"), 1);
	assert_int_equal(pmr_transport_stats_get(p.qb, &st), 0);
	assert_int_equal(st.rx_dropped, 3);

	/* Real traffic still flows, then the counters reset. */
	mb = pmr_msgbuf_alloc(p.pool, 5);
	assert_non_null(mb);
	fill(mb->data, 5, 9);
	send_one(p.qa, p.a_to_b, mb);
	recv_one(p.qb, rx);
	assert_int_equal(check(rx[0].data, 5, 9), 0);
	pmr_transport_rx_release(p.qb, rx, 1);
	free_when_sent(mb);
	pmr_transport_stats_reset(p.qb);
	assert_int_equal(pmr_transport_stats_get(p.qb, &st), 0);
	assert_int_equal(st.rx_dropped + st.rx_pkts, 0);
	pair_down(&p);
	assert_true(rte_mempool_full(rte_mempool_lookup("er_raw")));
}

static void
test_bad_devargs(void **state)
{
	const struct pmr_transport_driver *drv = pmr_transport_find("eth");
	struct pmr_transport_queue *q;
	uint16_t a, b;
	char args[RTE_ETH_NAME_MAX_LEN + 8];
	unsigned int i;
	const char *bad[] = {
		"", "ip=10.0.0.1", "port=%u,bogus=1", "port=%u,ip=300.1.1.1",
		"port=%u,ip=0.0.0.0", "port=%u,udp=0", "port=%u,udp=70000",
		"port=%u,rxd=-1", "port=%u,port=%u", "port=%u,tx_copy_max=x",
	};

	(void)state;
	assert_int_equal(pmr_test_ring_pair("erbad", &a, &b), 0);
	for (i = 0; i < RTE_DIM(bad); i++) {
		snprintf(args, sizeof(args), bad[i], a, a);
		q = pmr_transport_queue_create(drv, args, SOCKET_ID_ANY);
		assert_null(q);
		assert_int_equal(rte_errno, EINVAL);
	}
	q = pmr_transport_queue_create(drv, "port=99", SOCKET_ID_ANY);
	assert_null(q);
	assert_int_equal(rte_errno, ENODEV);
	q = pmr_transport_queue_create(drv, "port=no_such_port", SOCKET_ID_ANY);
	assert_null(q);
	assert_int_equal(rte_errno, ENODEV);

	/* A started port belongs to somebody else. */
	snprintf(args, sizeof(args), "port=%u", a);
	q = pmr_transport_queue_create(drv, args, SOCKET_ID_ANY);
	assert_non_null(q);
	strcpy(args, "port=");	/* by name this time */
	assert_int_equal(rte_eth_dev_get_name_by_port(a, args + 5), 0);
	assert_null(pmr_transport_queue_create(drv, args, SOCKET_ID_ANY));
	assert_int_equal(rte_errno, EBUSY);
	pmr_transport_queue_destroy(q);
	pmr_test_ring_pair_free("erbad", a, b);
}

/* hdr + data: gathered into one packet, whatever the copy threshold. */
static void
test_tx_gathers_header(void **state)
{
	struct pmr_transport_caps caps;
	struct pmr_rx_pkt rx;
	struct pmr_msgbuf *mb;
	struct pmr_tx_pkt pkt;
	struct pair p;
	uint8_t hdr[24];
	uint32_t i;

	(void)state;
	pair_up(&p, ZC);
	pmr_transport_queue_caps(p.qa, &caps);
	assert_int_equal(caps.rx_depth, 1024);
	for (i = 0; i < sizeof(hdr); i++)
		hdr[i] = (uint8_t)(0xc0 + i);
	mb = pmr_msgbuf_alloc(p.pool, p.mtu - sizeof(hdr));
	assert_non_null(mb);
	fill(mb->data, mb->len, 11);
	/* Data from the middle of the msgbuf: no headroom in front of it. */
	pkt = (struct pmr_tx_pkt){ .peer = p.a_to_b, .mb = mb,
		.data = mb->data + 100, .len = mb->len - 100, .hdr = hdr,
		.hdr_len = sizeof(hdr) };
	assert_int_equal(pmr_transport_tx_burst(p.qa, &pkt, 1), 1);
	assert_int_equal(pmr_msgbuf_tx_pending(mb), 0);	/* copied */
	recv_one(p.qb, &rx);
	assert_int_equal(rx.len, sizeof(hdr) + mb->len - 100);
	assert_memory_equal(rx.data, hdr, sizeof(hdr));
	assert_memory_equal(rx.data + sizeof(hdr), mb->data + 100,
			mb->len - 100);
	pmr_transport_rx_release(p.qb, &rx, 1);
	/* A header alone, no msgbuf. */
	pkt = (struct pmr_tx_pkt){ .peer = p.a_to_b, .hdr = hdr,
		.hdr_len = sizeof(hdr) };
	assert_int_equal(pmr_transport_tx_burst(p.qa, &pkt, 1), 1);
	recv_one(p.qb, &rx);
	assert_int_equal(rx.len, sizeof(hdr));
	pmr_transport_rx_release(p.qb, &rx, 1);
	/* Header and data over the MTU: refused. */
	pkt = (struct pmr_tx_pkt){ .peer = p.a_to_b, .mb = mb,
		.data = mb->data, .len = mb->len + 1, .hdr = hdr,
		.hdr_len = sizeof(hdr) };
	assert_int_equal(pmr_transport_tx_burst(p.qa, &pkt, 1), 0);
	pmr_msgbuf_free(mb);
	pair_down(&p);
}

static void
test_ring_pair_copies_by_default(void **state)
{
	struct pmr_transport_caps caps;
	struct pmr_transport_stats st;
	struct pmr_rx_pkt rx;
	struct pmr_msgbuf *mb;
	struct pair p;

	(void)state;
	pair_up(&p, "");
	pmr_transport_queue_caps(p.qa, &caps);
	assert_false(caps.flags & PMR_TRANSPORT_CAP_TX_ZEROCOPY);
	mb = pmr_msgbuf_alloc(p.pool, p.mtu);
	assert_non_null(mb);
	fill(mb->data, mb->len, 3);
	send_one(p.qa, p.a_to_b, mb);
	/* The receiver holds the packet, yet the buffer is free already. */
	assert_int_equal(pmr_msgbuf_tx_pending(mb), 0);
	pmr_msgbuf_free(mb);
	recv_one(p.qb, &rx);
	assert_int_equal(check(rx.data, rx.len, 3), 0);
	pmr_transport_rx_release(p.qb, &rx, 1);
	assert_int_equal(pmr_transport_stats_get(p.qa, &st), 0);
	assert_int_equal(st.tx_zerocopy, 0);
	pair_down(&p);
}

static void
test_copy_threshold_devarg(void **state)
{
	struct pmr_transport_stats st;
	struct pmr_transport_caps caps;
	struct pmr_rx_pkt rx;
	struct pmr_msgbuf *mb;
	struct pair p;

	(void)state;
	/* tx_copy_max=0: everything but empty payloads goes zero-copy. */
	pair_up(&p, ",tx_copy_max=0");
	pmr_transport_queue_caps(p.qa, &caps);
	assert_true(caps.flags & PMR_TRANSPORT_CAP_TX_ZEROCOPY);
	mb = pmr_msgbuf_alloc(p.pool, 1);
	assert_non_null(mb);
	mb->data[0] = 0x5a;
	send_one(p.qa, p.a_to_b, mb);
	assert_int_equal(pmr_msgbuf_tx_pending(mb), 1);
	recv_one(p.qb, &rx);
	assert_int_equal(rx.len, 1);
	assert_int_equal(rx.data[0], 0x5a);
	pmr_transport_rx_release(p.qb, &rx, 1);
	free_when_sent(mb);
	assert_int_equal(pmr_transport_stats_get(p.qa, &st), 0);
	assert_int_equal(st.tx_zerocopy, 1);
	pair_down(&p);

	/* tx_copy_max at the MTU: always copy, no zero-copy capability. */
	pair_up(&p, ",tx_copy_max=9000");
	pmr_transport_queue_caps(p.qa, &caps);
	assert_false(caps.flags & PMR_TRANSPORT_CAP_TX_ZEROCOPY);
	mb = pmr_msgbuf_alloc(p.pool, p.mtu);
	assert_non_null(mb);
	send_one(p.qa, p.a_to_b, mb);
	assert_int_equal(pmr_msgbuf_tx_pending(mb), 0);
	pmr_msgbuf_free(mb);
	recv_one(p.qb, &rx);
	assert_int_equal(rx.len, p.mtu);
	pmr_transport_rx_release(p.qb, &rx, 1);
	pair_down(&p);
}

/* Two lcores: b echoes on the worker lcore while a runs on main. */
struct echo_arg {
	struct pair *p;
	uint32_t count;
	int err;
};

static int
echo_loop(void *varg)
{
	struct echo_arg *e = varg;
	struct pair *p = e->p;
	struct pmr_rx_pkt rx[PMR_BURST_MAX];
	uint32_t done = 0;
	uint16_t nb, i;

	while (done < e->count) {
		nb = pmr_transport_rx_burst(p->qb, rx, PMR_BURST_MAX);
		for (i = 0; i < nb; i++) {
			struct pmr_msgbuf *mb;

			while ((mb = pmr_msgbuf_alloc(p->pool,
					rx[i].len)) == NULL)
				;
			memcpy(mb->data, rx[i].data, rx[i].len);
			pmr_transport_rx_release(p->qb, &rx[i], 1);
			while (pmr_transport_tx_burst(p->qb,
				&(struct pmr_tx_pkt){ .peer = p->b_to_a,
					.mb = mb, .data = mb->data,
					.len = mb->len }, 1) == 0)
				;
			/* Freed once a's side has released the packet. */
			while (pmr_msgbuf_tx_pending(mb) != 0)
				pmr_transport_tx_flush(p->qb);
			pmr_msgbuf_free(mb);
			done++;
		}
	}
	return 0;
}

static void
test_two_lcores(void **state)
{
	struct echo_arg e;
	struct pmr_rx_pkt rx;
	struct pair p;
	unsigned int lcore = pmr_test_worker_lcore();
	uint32_t i;

	(void)state;
	if (lcore >= RTE_MAX_LCORE)
		skip();
	pair_up(&p, "");
	e = (struct echo_arg){ .p = &p, .count = 20000 };
	assert_int_equal(rte_eal_remote_launch(echo_loop, &e, lcore), 0);
	for (i = 0; i < e.count; i++) {
		uint32_t len = (i * 37) % (p.mtu + 1);
		struct pmr_msgbuf *mb = pmr_msgbuf_alloc(p.pool, len);

		assert_non_null(mb);
		fill(mb->data, len, i);
		send_one(p.qa, p.a_to_b, mb);
		recv_one(p.qa, &rx);
		assert_int_equal(rx.len, len);
		assert_int_equal(check(rx.data, len, i), 0);
		/* Release first: b's zero-copy buffer waits for it. */
		pmr_transport_rx_release(p.qa, &rx, 1);
		while (pmr_msgbuf_tx_pending(mb) != 0)
			;
		pmr_msgbuf_free(mb);
	}
	assert_int_equal(rte_eal_wait_lcore(lcore), 0);
	pair_down(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pingpong_all_sizes),
		cmocka_unit_test(test_burst_keeps_order),
		cmocka_unit_test(test_tx_ring_full_refuses),
		cmocka_unit_test(test_oversize_refused),
		cmocka_unit_test(test_rx_drops_counted_by_reason),
		cmocka_unit_test(test_bad_devargs),
		cmocka_unit_test(test_tx_gathers_header),
		cmocka_unit_test(test_ring_pair_copies_by_default),
		cmocka_unit_test(test_copy_threshold_devarg),
		cmocka_unit_test(test_two_lcores),
	};

	return cmocka_run_group_tests_name("eth_ring", tests,
			pmr_test_eal_setup, pmr_test_eal_teardown);
}
