/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * RC queue pairs set up by the nexus and handed to workers through their
 * rings (issue 16; lib/nexus/nexus_rc.c, lib/rpc/rpc_rc.c), on the verbs
 * driver over the HCA model (PMR_TEST_SETUP=verbs_hca: every worker on
 * dev=hca0, the model linked ahead of libibverbs). One nexus in the
 * process talks to itself over UDP, so both ends of each pair are here:
 * each pair of workers has two QPs on the model, one per end.
 *
 * Built with PMR_TEST_RC_DEVICE, the same cases run on a real device
 * (PMR_TEST_SETUP=verbs, PMR_TEST_VERBS_DEV=rxe0 in the VM of
 * devtools/vm/): the device's QPs are counted with the rdma tool
 * ("rdma resource show qp") instead of the model's counters, which count
 * the device's own QPs (rxe's QP1) too, so only differences are checked;
 * the QP state is the driver's ibv_query_qp(); the case that forces a QP
 * to ERR through the model is left out.
 */

#include "pmr_test_rpc.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_ring.h>

#include "nexus_private.h"
#include "nexus_wire.h"
#ifndef PMR_TEST_RC_DEVICE
#include "pmr_hca.h"
#endif
#include "pmr_msgbuf.h"
#include "pmr_nexus.h"
#include "pmr_transport_rc.h"
#include "rpc_private.h"
#include "rpc_rc.h"
#ifndef PMR_TEST_RC_DEVICE
#include "verbs_private.h"	/* struct verbs_rc: the model's QP of one */
#endif

#define BUF 8192u

static struct rte_mempool *rpool;	/* remote access, on a server */
static struct rte_mempool *lpool;	/* local, on a client */

#ifdef PMR_TEST_RC_DEVICE
/* QPs on the device before the first case: rxe's own (QP1). */
static uint32_t dev_qps0;

/* The device's QPs, of every process, as the kernel's restrack has them. */
static uint32_t
dev_qps(void)
{
	const char *dev = getenv("PMR_TEST_VERBS_DEV");
	/* Not filtered by port: a QP before INIT has none ("rxe0/-"). */
	const char *cmd = "rdma resource show qp 2>&1";
	char name[64], line[512];
	uint32_t n = 0;
	FILE *f;

	snprintf(name, sizeof(name), "link %s/", dev != NULL ? dev : "rxe0");
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strstr(line, "lqpn") == NULL)
			fail_msg("%s: %s", cmd, line);
		if (strstr(line, name) != NULL)
			n++;
	}
	assert_int_equal(pclose(f), 0);
	return n;
}

/* This process's QPs: the device's less what was there before. */
static uint32_t
live_qps(void)
{
	uint32_t n = dev_qps();

	assert_true(n >= dev_qps0);
	return n - dev_qps0;
}
#else
static uint32_t
live_qps(void)
{
	struct pmr_hca_objects o;

	assert_int_equal(pmr_hca_objects_get("hca0", &o), 0);
	return o.qps;
}
#endif

/* Ask for s's QP, which must not block; poll until the nexus answers. */
static void
want_ready(struct pmr_test_env *env, struct pmr_worker *w, int s)
{
	assert_int_equal(rpc_rc_want(w, s), 0);
	assert_int_equal(rpc_rc_state(w, s), RPC_RC_WANTED);
	PMR_TEST_POLL_UNTIL(env, rpc_rc_state(w, s) != RPC_RC_WANTED);
	assert_int_equal(rpc_rc_state(w, s), RPC_RC_READY);
	assert_int_equal(pmr_transport_rc_state(w->q, rpc_rc_qp(w, s)),
			PMR_RC_STATE_RTS);
}

struct op_done {
	int count;
	unsigned int status;
};

static void
on_op(struct pmr_worker *w, int session, unsigned int status, void *arg)
{
	struct op_done *d = arg;

	(void)w;
	(void)session;
	d->count++;
	d->status = status;
}

/* One READ or WRITE of len bytes, to completion. */
static unsigned int
one_op(struct pmr_test_env *env, struct pmr_worker *w, int s, uint8_t type,
		void *local, uint32_t lkey, const void *remote, uint32_t rkey,
		uint32_t len)
{
	struct pmr_transport_rc_op op = {
		.type = type,
		.local = local,
		.lkey = lkey,
		.remote = (uint64_t)(uintptr_t)remote,
		.rkey = rkey,
		.len = len,
	};
	struct op_done d = { 0 };

	assert_int_equal(rpc_rc_post(w, s, &op, on_op, &d), 0);
	PMR_TEST_POLL_UNTIL(env, d.count > 0);
	assert_int_equal(d.count, 1);
	return d.status;
}

/* The server's side: a msgbuf of rpool its clients may read and write. */
struct mem {
	struct pmr_msgbuf *mb;
	uint8_t *p;
	struct pmr_transport_mkey key;
};

static void
mem_get(struct mem *m, struct rte_mempool *mp, struct pmr_transport_queue *q)
{
	m->mb = pmr_msgbuf_alloc(mp, BUF);
	assert_non_null(m->mb);
	m->p = pmr_msgbuf_data(m->mb);
	assert_int_equal(pmr_transport_mem_key(q, m->p, BUF, &m->key), 0);
}

/*
 * Set-up on demand, observed through the rings: the worker asks and goes
 * on; RC_READY gives it a QP in RTS; a READ and a WRITE of known bytes;
 * the other end's sessions share the pair (its ask makes no QP); the
 * pair goes with the last session, both QPs destroyed.
 */
static void
test_rc_ready(void **state)
{
	struct pmr_test_env env;
	struct pmr_test_sess_ev e;
	uint32_t ready, draining, ops;
	struct mem r, l;
	uint32_t base, i;
	int s, s2, ss;

	(void)state;
	pmr_test_env_up(&env, 1, NULL, NULL, NULL);
	assert_int_equal(pmr_transport_mem_register_access(env.srv[0]->q,
		rpool, PMR_TRANSPORT_ACCESS_REMOTE_READ |
		PMR_TRANSPORT_ACCESS_REMOTE_WRITE), 0);
	assert_int_equal(pmr_transport_mem_register(env.cli[0]->q, lpool), 0);
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	base = live_qps();
	assert_int_equal(rpc_rc_state(env.cli[0], s), RPC_RC_NONE);
	assert_null(rpc_rc_qp(env.cli[0], s));
	want_ready(&env, env.cli[0], s);
	assert_int_equal(live_qps(), base + 2);
	assert_int_equal(rpc_rc_nb_qps(env.cli[0]), 1);
	/* The server's QP exists, but its worker never asked for it. */
	assert_int_equal(rpc_rc_nb_qps(env.srv[0]), 0);
	/* What telemetry shows (rpc_telemetry.c reads the same). */
	rpc_rc_counts(env.cli[0], &ready, &draining, &ops);
	assert_int_equal(ready, 1);
	assert_int_equal(draining, 0);
	assert_int_equal(ops, 0);
	rpc_rc_counts(env.srv[0], &ready, &draining, &ops);
	assert_int_equal(ready + draining + ops, 0);

	mem_get(&r, rpool, env.srv[0]->q);
	mem_get(&l, lpool, env.cli[0]->q);
	for (i = 0; i < BUF; i++) {
		r.p[i] = (uint8_t)(i * 7 + 1);
		l.p[i] = 0;
	}
	assert_int_equal(one_op(&env, env.cli[0], s, PMR_RC_OP_READ, l.p,
		l.key.lkey, r.p, r.key.rkey, BUF), PMR_RC_OK);
	assert_memory_equal(l.p, r.p, BUF);
	for (i = 0; i < BUF; i++)
		l.p[i] = (uint8_t)(i * 13 + 5);
	assert_int_equal(one_op(&env, env.cli[0], s, PMR_RC_OP_WRITE, l.p,
		l.key.lkey, r.p + 100, r.key.rkey, BUF - 200), PMR_RC_OK);
	assert_memory_equal(r.p + 100, l.p, BUF - 200);
	assert_int_equal(r.p[99], (uint8_t)(99 * 7 + 1));
	assert_int_equal(r.p[BUF - 100], (uint8_t)((BUF - 100) * 7 + 1));

	/* A second session of the same workers shares the QP. */
	s2 = pmr_test_connect(&env, env.cli[0], 0, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	want_ready(&env, env.cli[0], s2);
	assert_ptr_equal(rpc_rc_qp(env.cli[0], s2), rpc_rc_qp(env.cli[0], s));
	assert_int_equal(live_qps(), base + 2);
	/* The server's ask gets the QP the nexus made: no new one. */
	for (ss = 0; ss < (int)env.srv[0]->max_sessions; ss++)
		if (env.srv[0]->sessions[ss].state ==
		    PMR_SESSION_CONNECTED)
			break;
	assert_true(ss < (int)env.srv[0]->max_sessions);
	want_ready(&env, env.srv[0], ss);
	assert_int_equal(live_qps(), base + 2);
	assert_int_equal(rpc_rc_nb_qps(env.srv[0]), 1);

	/* One session closes: the pair stays for the other. */
	assert_int_equal(pmr_session_destroy(env.cli[0], s2), 0);
	assert_int_equal(rpc_rc_state(env.cli[0], s), RPC_RC_READY);
	/* The last one: the QPs go back (RC_DOWN, RC_RELEASED), destroyed. */
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
	PMR_TEST_POLL_UNTIL(&env, live_qps() == base &&
			rpc_rc_nb_qps(env.cli[0]) == 0 &&
			rpc_rc_nb_qps(env.srv[0]) == 0);
	rpc_rc_counts(env.cli[0], &ready, &draining, &ops);
	assert_int_equal(ready + draining + ops, 0);

	assert_int_equal(pmr_msgbuf_free(r.mb), 0);
	assert_int_equal(pmr_msgbuf_free(l.mb), 0);
	assert_int_equal(pmr_transport_mem_unregister(env.srv[0]->q, rpool),
			0);
	assert_int_equal(pmr_transport_mem_unregister(env.cli[0]->q, lpool),
			0);
	pmr_test_env_down(&env);
	assert_true(pmr_msgbuf_pool_full(rpool));
	assert_true(pmr_msgbuf_pool_full(lpool));
}

/*
 * Two workers on each side, each client with sessions to both servers
 * (one pair with two sessions): four pairs, a QP at each end of each,
 * not more; each client holds two.
 */
static void
test_rc_four_pairs(void **state)
{
	struct pmr_test_env env;
	struct pmr_test_sess_ev e;
	int s[2][3], c, k;
	uint32_t base;

	(void)state;
	pmr_test_env_up(&env, 2, NULL, NULL, NULL);
	for (c = 0; c < 2; c++) {
		for (k = 0; k < 3; k++) {
			s[c][k] = pmr_test_connect(&env, env.cli[c],
					(uint16_t)(k % 2), &e);
			assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
		}
	}
	base = live_qps();
	/* All ask at once, then poll. */
	for (c = 0; c < 2; c++)
		for (k = 0; k < 3; k++)
			assert_int_equal(rpc_rc_want(env.cli[c], s[c][k]), 0);
	PMR_TEST_POLL_UNTIL(&env,
		rpc_rc_state(env.cli[0], s[0][0]) != RPC_RC_WANTED &&
		rpc_rc_state(env.cli[0], s[0][1]) != RPC_RC_WANTED &&
		rpc_rc_state(env.cli[0], s[0][2]) != RPC_RC_WANTED &&
		rpc_rc_state(env.cli[1], s[1][0]) != RPC_RC_WANTED &&
		rpc_rc_state(env.cli[1], s[1][1]) != RPC_RC_WANTED &&
		rpc_rc_state(env.cli[1], s[1][2]) != RPC_RC_WANTED);
	for (c = 0; c < 2; c++) {
		for (k = 0; k < 3; k++)
			assert_int_equal(rpc_rc_state(env.cli[c], s[c][k]),
					RPC_RC_READY);
		assert_int_equal(rpc_rc_nb_qps(env.cli[c]), 2);
		assert_ptr_equal(rpc_rc_qp(env.cli[c], s[c][0]),
				rpc_rc_qp(env.cli[c], s[c][2]));
		assert_ptr_not_equal(rpc_rc_qp(env.cli[c], s[c][0]),
				rpc_rc_qp(env.cli[c], s[c][1]));
	}
	assert_int_equal(live_qps(), base + 8);
	/* Workers destroyed with their QPs up: everything released. */
	pmr_test_env_down(&env);
	assert_int_equal(live_qps(), 0);
}

/*
 * Both ends ask at once: the RC_REQs cross, the lower (boot id, worker
 * id) initiates, the other answers with the QP it had made. One QP at
 * each end, both handed over, and they reach each other.
 */
static void
test_rc_both_ask(void **state)
{
	struct pmr_test_env env;
	struct pmr_test_sess_ev e;
	struct mem r, l;
	uint32_t base;
	int s, ss;

	(void)state;
	pmr_test_env_up(&env, 1, NULL, NULL, NULL);
	assert_int_equal(pmr_transport_mem_register_access(env.cli[0]->q,
		rpool, PMR_TRANSPORT_ACCESS_REMOTE_READ |
		PMR_TRANSPORT_ACCESS_REMOTE_WRITE), 0);
	assert_int_equal(pmr_transport_mem_register(env.srv[0]->q, lpool), 0);
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	for (ss = 0; ss < (int)env.srv[0]->max_sessions; ss++)
		if (env.srv[0]->sessions[ss].state == PMR_SESSION_CONNECTED)
			break;
	assert_true(ss < (int)env.srv[0]->max_sessions);
	base = live_qps();
	assert_int_equal(rpc_rc_want(env.srv[0], ss), 0);
	assert_int_equal(rpc_rc_want(env.cli[0], s), 0);
	PMR_TEST_POLL_UNTIL(&env,
		rpc_rc_state(env.srv[0], ss) != RPC_RC_WANTED &&
		rpc_rc_state(env.cli[0], s) != RPC_RC_WANTED);
	assert_int_equal(rpc_rc_state(env.srv[0], ss), RPC_RC_READY);
	assert_int_equal(rpc_rc_state(env.cli[0], s), RPC_RC_READY);
	assert_int_equal(live_qps(), base + 2);
	assert_int_equal(pmr_transport_rc_state(env.srv[0]->q,
		rpc_rc_qp(env.srv[0], ss)), PMR_RC_STATE_RTS);

	/* The server reads from the client. */
	mem_get(&r, rpool, env.cli[0]->q);
	mem_get(&l, lpool, env.srv[0]->q);
	memset(r.p, 0xc3, BUF);
	memset(l.p, 0, BUF);
	assert_int_equal(one_op(&env, env.srv[0], ss, PMR_RC_OP_READ, l.p,
		l.key.lkey, r.p, r.key.rkey, BUF), PMR_RC_OK);
	assert_memory_equal(l.p, r.p, BUF);
	assert_int_equal(pmr_msgbuf_free(r.mb), 0);
	assert_int_equal(pmr_msgbuf_free(l.mb), 0);

	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
	PMR_TEST_POLL_UNTIL(&env, live_qps() == base &&
			rpc_rc_nb_qps(env.cli[0]) == 0 &&
			rpc_rc_nb_qps(env.srv[0]) == 0);
	assert_int_equal(pmr_transport_mem_unregister(env.cli[0]->q, rpool),
			0);
	assert_int_equal(pmr_transport_mem_unregister(env.srv[0]->q, lpool),
			0);
	pmr_test_env_down(&env);
}

/*
 * RC_REQs from outside: from an address with no session (a forgery, or a
 * MAC under no key of ours) and from the nexus's own address with a bad
 * MAC. Nothing made, counted as bad; the real set-up still works.
 */
static void
test_rc_spoofed(void **state)
{
	struct pmr_test_env env;
	struct pmr_test_sess_ev e;
	struct pmr_nexus_stats st0, st1;
	struct nexus_wire_msg m = {
		.type = NEXUS_WIRE_RC_REQ,
		.rc = {
			.src_worker = 10,
			.dst_worker = 0,
			.generation = 1000,
			.boot_id = 1,
			.peer_boot_id = 1,
			.attr = {
				.qpn = 1, .psn = 1, .mtu = 1024,
				.rd_credits = 1, .max_rd_atomic = 1,
			},
			.mac = 0x1234,
		},
	};
	uint8_t buf[NEXUS_WIRE_MAX_LEN];
	struct sockaddr_in to;
	char host[64];
	uint32_t base;
	int s, fd, len, i;
	char *colon;

	(void)state;
	pmr_test_env_up(&env, 1, NULL, NULL, NULL);
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	base = live_qps();
	snprintf(host, sizeof(host), "%s", pmr_nexus_uri(env.nx));
	colon = strrchr(host, ':');
	assert_non_null(colon);
	*colon = '\0';
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_port = htons((uint16_t)atoi(colon + 1));
	assert_int_equal(inet_pton(AF_INET, host, &to.sin_addr), 1);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(pmr_nexus_stats_get(env.nx, &st0), 0);
	for (i = 0; i < 4; i++) {
		m.rc.generation = 1000 + (uint32_t)i;
		len = nexus_wire_encode(&m, buf, sizeof(buf));
		assert_true(len > 0);
		assert_int_equal(sendto(fd, buf, (size_t)len, 0,
			(struct sockaddr *)&to, sizeof(to)), len);
	}
	PMR_TEST_POLL_UNTIL(&env, pmr_nexus_stats_get(env.nx, &st1) == 0 &&
			st1.rx_bad >= st0.rx_bad + 4);
	close(fd);
	assert_int_equal(live_qps(), base);
	/* The real one. */
	want_ready(&env, env.cli[0], s);
	assert_int_equal(live_qps(), base + 2);
	pmr_test_env_down(&env);
}

/*
 * A READ with a bad rkey: the operation fails with remote_access, both
 * QPs of that pair go to ERR, and every session between those two workers
 * is reset (the one that never asked for the QP too), at both ends. The
 * pair's QPs are destroyed; a session made again gets a fresh QP that
 * works. Another pair of workers is untouched throughout.
 */
static void
test_rc_bad_rkey(void **state)
{
	struct pmr_test_sess_ev ea, eb, e1, en;
	struct pmr_test_env env;
	struct mem r0, l0, r1, l1;
	uint32_t base;
	int sa, sb, s1, sn;

	(void)state;
	pmr_test_env_up(&env, 2, NULL, NULL, NULL);
	assert_int_equal(pmr_transport_mem_register_access(env.srv[0]->q,
		rpool, PMR_TRANSPORT_ACCESS_REMOTE_READ |
		PMR_TRANSPORT_ACCESS_REMOTE_WRITE), 0);
	assert_int_equal(pmr_transport_mem_register(env.cli[0]->q, lpool), 0);
	assert_int_equal(pmr_transport_mem_register_access(env.srv[1]->q,
		rpool, PMR_TRANSPORT_ACCESS_REMOTE_READ), 0);
	assert_int_equal(pmr_transport_mem_register(env.cli[1]->q, lpool), 0);
	sa = pmr_test_connect(&env, env.cli[0], 0, &ea);
	sb = pmr_test_connect(&env, env.cli[0], 0, &eb);
	s1 = pmr_test_connect(&env, env.cli[1], 1, &e1);
	assert_int_equal(ea.ev, PMR_SESSION_EV_CONNECTED);
	assert_int_equal(eb.ev, PMR_SESSION_EV_CONNECTED);
	assert_int_equal(e1.ev, PMR_SESSION_EV_CONNECTED);
	base = live_qps();
	want_ready(&env, env.cli[0], sa);
	want_ready(&env, env.cli[1], s1);
	assert_int_equal(live_qps(), base + 4);
	mem_get(&r0, rpool, env.srv[0]->q);
	mem_get(&l0, lpool, env.cli[0]->q);
	mem_get(&r1, rpool, env.srv[1]->q);
	mem_get(&l1, lpool, env.cli[1]->q);
	memset(r0.p, 0x11, BUF);
	memset(r1.p, 0x22, BUF);

	assert_int_equal(one_op(&env, env.cli[0], sa, PMR_RC_OP_READ, l0.p,
		l0.key.lkey, r0.p, r0.key.rkey ^ 0x5a5a00, 64),
		PMR_RC_REMOTE_ACCESS);
	/* Both sessions of the pair reset, with -ECONNRESET. */
	PMR_TEST_POLL_UNTIL(&env, ea.count == 2 && eb.count == 2);
	assert_int_equal(ea.ev, PMR_SESSION_EV_RESET);
	assert_int_equal(ea.err, -ECONNRESET);
	assert_int_equal(eb.ev, PMR_SESSION_EV_RESET);
	assert_int_equal(rpc_rc_state(env.cli[0], sa), RPC_RC_NONE);
	assert_int_equal(rpc_rc_post(env.cli[0], sa, &(struct
		pmr_transport_rc_op){ .type = PMR_RC_OP_READ, .local = l0.p,
		.lkey = l0.key.lkey, .remote = (uintptr_t)r0.p,
		.rkey = r0.key.rkey, .len = 64 }, on_op, NULL), -ENOTCONN);
	/* Its QPs go, at both ends; the other pair's stay. */
	PMR_TEST_POLL_UNTIL(&env, live_qps() == base + 2 &&
			rpc_rc_nb_qps(env.cli[0]) == 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], sa), 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], sb), 0);

	/* The other pair: untouched, and works. */
	assert_int_equal(e1.count, 1);
	assert_int_equal(pmr_session_state(env.cli[1], s1),
			PMR_SESSION_CONNECTED);
	memset(l1.p, 0, BUF);
	assert_int_equal(one_op(&env, env.cli[1], s1, PMR_RC_OP_READ, l1.p,
		l1.key.lkey, r1.p, r1.key.rkey, BUF), PMR_RC_OK);
	assert_memory_equal(l1.p, r1.p, BUF);

	/* A new session: a fresh QP, which works. */
	sn = pmr_test_connect(&env, env.cli[0], 0, &en);
	assert_int_equal(en.ev, PMR_SESSION_EV_CONNECTED);
	want_ready(&env, env.cli[0], sn);
	assert_int_equal(live_qps(), base + 4);
	memset(l0.p, 0, BUF);
	assert_int_equal(one_op(&env, env.cli[0], sn, PMR_RC_OP_READ, l0.p,
		l0.key.lkey, r0.p, r0.key.rkey, BUF), PMR_RC_OK);
	assert_memory_equal(l0.p, r0.p, BUF);

	assert_int_equal(pmr_session_destroy(env.cli[0], sn), 0);
	assert_int_equal(pmr_session_destroy(env.cli[1], s1), 0);
	PMR_TEST_POLL_UNTIL(&env, live_qps() == base);
	assert_int_equal(pmr_msgbuf_free(r0.mb), 0);
	assert_int_equal(pmr_msgbuf_free(l0.mb), 0);
	assert_int_equal(pmr_msgbuf_free(r1.mb), 0);
	assert_int_equal(pmr_msgbuf_free(l1.mb), 0);
	assert_int_equal(pmr_transport_mem_unregister(env.srv[0]->q, rpool),
			0);
	assert_int_equal(pmr_transport_mem_unregister(env.cli[0]->q, lpool),
			0);
	assert_int_equal(pmr_transport_mem_unregister(env.srv[1]->q, rpool),
			0);
	assert_int_equal(pmr_transport_mem_unregister(env.cli[1]->q, lpool),
			0);
	pmr_test_env_down(&env);
	assert_true(pmr_msgbuf_pool_full(rpool));
	assert_true(pmr_msgbuf_pool_full(lpool));
}

/*
 * Set-up datagrams lost, duplicated and reordered (the nexus's test
 * faults on its RC datagrams, RC_REQ and RC_ACK alike): the set-up still
 * ends in one QP at each end, handed over once, and it works.
 */
static void
test_rc_lossy(void **state)
{
	static const uint32_t faults[][3] = {
		{ 1, 0, 0 },	/* the first RC_REQ lost: resent */
		{ 2, 0, 0 },	/* RC_REQ and its first copy lost */
		{ 0, 4, 0 },	/* each sent twice */
		{ 0, 0, 1 },	/* the first held back past the next */
		{ 1, 2, 1 },
	};
	struct pmr_test_env env;
	struct pmr_test_sess_ev e;
	struct mem r, l;
	uint32_t base, ready, draining, ops;
	unsigned int i;
	int s;

	(void)state;
	pmr_test_env_up(&env, 1, NULL, NULL, NULL);
	assert_int_equal(pmr_transport_mem_register_access(env.srv[0]->q,
		rpool, PMR_TRANSPORT_ACCESS_REMOTE_READ), 0);
	assert_int_equal(pmr_transport_mem_register(env.cli[0]->q, lpool), 0);
	mem_get(&r, rpool, env.srv[0]->q);
	mem_get(&l, lpool, env.cli[0]->q);
	for (i = 0; i < RTE_DIM(faults); i++) {
		s = pmr_test_connect(&env, env.cli[0], 0, &e);
		assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
		base = live_qps();
		nexus_rc_faults(env.nx, faults[i][0], faults[i][1],
				faults[i][2]);
		want_ready(&env, env.cli[0], s);
		assert_int_equal(live_qps(), base + 2);
		rpc_rc_counts(env.cli[0], &ready, &draining, &ops);
		assert_int_equal(ready, 1);
		memset(r.p, (int)(0x30 + i), BUF);
		memset(l.p, 0, BUF);
		assert_int_equal(one_op(&env, env.cli[0], s, PMR_RC_OP_READ,
			l.p, l.key.lkey, r.p, r.key.rkey, BUF), PMR_RC_OK);
		assert_memory_equal(l.p, r.p, BUF);
		/* Late copies make nothing either. */
		nexus_rc_faults(env.nx, 0, 0, 0);
		assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
		PMR_TEST_POLL_UNTIL(&env, live_qps() == base &&
				rpc_rc_nb_qps(env.cli[0]) == 0);
	}
	assert_int_equal(pmr_msgbuf_free(r.mb), 0);
	assert_int_equal(pmr_msgbuf_free(l.mb), 0);
	assert_int_equal(pmr_transport_mem_unregister(env.srv[0]->q, rpool),
			0);
	assert_int_equal(pmr_transport_mem_unregister(env.cli[0]->q, lpool),
			0);
	pmr_test_env_down(&env);
}

/*
 * The peer worker is destroyed with the pair's QP up: the survivor's
 * sessions with it reset, its QP is taken back and destroyed, and its
 * sessions with another worker go on. After every worker is destroyed,
 * no QP is left on the device.
 */
static void
test_rc_peer_destroyed(void **state)
{
	struct pmr_test_sess_ev e0, e1;
	struct pmr_test_env env;
	struct mem r, l;
	uint32_t base;
	int s0, s1;

	(void)state;
	pmr_test_env_up(&env, 2, NULL, NULL, NULL);
	assert_int_equal(pmr_transport_mem_register_access(env.srv[1]->q,
		rpool, PMR_TRANSPORT_ACCESS_REMOTE_READ), 0);
	assert_int_equal(pmr_transport_mem_register(env.cli[0]->q, lpool), 0);
	s0 = pmr_test_connect(&env, env.cli[0], 0, &e0);
	s1 = pmr_test_connect(&env, env.cli[0], 1, &e1);
	assert_int_equal(e0.ev, PMR_SESSION_EV_CONNECTED);
	assert_int_equal(e1.ev, PMR_SESSION_EV_CONNECTED);
	base = live_qps();
	want_ready(&env, env.cli[0], s0);
	want_ready(&env, env.cli[0], s1);
	assert_int_equal(live_qps(), base + 4);
	assert_int_equal(rpc_rc_nb_qps(env.cli[0]), 2);

	/* Server 0 goes, its QP with it (its queue's UD QP too). */
	assert_int_equal(pmr_worker_destroy(env.srv[0]), 0);
	env.srv[0] = NULL;
	PMR_TEST_POLL_UNTIL(&env, e0.count == 2);
	assert_int_equal(e0.ev, PMR_SESSION_EV_RESET);
	PMR_TEST_POLL_UNTIL(&env, rpc_rc_nb_qps(env.cli[0]) == 1 &&
			live_qps() == base + 4 - 3);	/* its UD, two RC */
	assert_int_equal(pmr_session_destroy(env.cli[0], s0), 0);

	/* The survivor serves its other session, on its own QP. */
	assert_int_equal(e1.count, 1);
	mem_get(&r, rpool, env.srv[1]->q);
	mem_get(&l, lpool, env.cli[0]->q);
	memset(r.p, 0x77, BUF);
	memset(l.p, 0, BUF);
	assert_int_equal(one_op(&env, env.cli[0], s1, PMR_RC_OP_READ, l.p,
		l.key.lkey, r.p, r.key.rkey, BUF), PMR_RC_OK);
	assert_memory_equal(l.p, r.p, BUF);
	assert_int_equal(pmr_msgbuf_free(r.mb), 0);
	assert_int_equal(pmr_msgbuf_free(l.mb), 0);
	assert_int_equal(pmr_transport_mem_unregister(env.srv[1]->q, rpool),
			0);
	assert_int_equal(pmr_transport_mem_unregister(env.cli[0]->q, lpool),
			0);
	/* Destroyed with that QP up: nothing left after. */
	pmr_test_env_down(&env);
	assert_int_equal(live_qps(), 0);
	assert_true(pmr_msgbuf_pool_full(rpool));
	assert_true(pmr_msgbuf_pool_full(lpool));
}

/*
 * Issue 26: a QP whose making takes long (its region registered on a slow
 * host: here 600 ms of CPU time at each end, spun by the maker) is made
 * off the nexus thread, which meanwhile heartbeats and reads its socket:
 * the session with the nexus's own peer is not reset (the nexus thread
 * busy 1.2 s would have sent no heartbeat past the 500 ms peer timeout),
 * and the initiator, answered BUSY while the responder makes its QP,
 * waits past connect_timeout_ms (500 ms here) for it.
 */
static void
test_rc_slow_make(void **state)
{
	struct pmr_nexus_stats st;
	struct pmr_test_env env;
	struct pmr_test_sess_ev e;
	struct mem r, l;
	uint32_t base;
	int s;

	(void)state;
	pmr_test_env_up(&env, 1, NULL, NULL, NULL);
	assert_int_equal(pmr_transport_mem_register_access(env.srv[0]->q,
		rpool, PMR_TRANSPORT_ACCESS_REMOTE_READ), 0);
	assert_int_equal(pmr_transport_mem_register(env.cli[0]->q, lpool), 0);
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	base = live_qps();
	nexus_rc_make_spin(env.nx, 600);
	want_ready(&env, env.cli[0], s);
	nexus_rc_make_spin(env.nx, 0);
	assert_int_equal(live_qps(), base + 2);
	assert_int_equal(e.count, 1);	/* no reset */
	assert_int_equal(pmr_nexus_stats_get(env.nx, &st), 0);
	assert_int_equal(st.peers_dead, 0);

	mem_get(&r, rpool, env.srv[0]->q);
	mem_get(&l, lpool, env.cli[0]->q);
	memset(r.p, 0x5a, BUF);
	memset(l.p, 0, BUF);
	assert_int_equal(one_op(&env, env.cli[0], s, PMR_RC_OP_READ, l.p,
		l.key.lkey, r.p, r.key.rkey, BUF), PMR_RC_OK);
	assert_memory_equal(l.p, r.p, BUF);
	assert_int_equal(pmr_msgbuf_free(r.mb), 0);
	assert_int_equal(pmr_msgbuf_free(l.mb), 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
	PMR_TEST_POLL_UNTIL(&env, live_qps() == base &&
			rpc_rc_nb_qps(env.cli[0]) == 0);
	assert_int_equal(pmr_transport_mem_unregister(env.srv[0]->q, rpool),
			0);
	assert_int_equal(pmr_transport_mem_unregister(env.cli[0]->q, lpool),
			0);
	pmr_test_env_down(&env);
}

/*
 * A QP's making outlives what it was for: the session closes while its
 * QP is being made (the QP, once made, is destroyed, never handed out),
 * then the worker is destroyed while another is being made (its destroy
 * waits for the making, and the QP goes before its queue). No QP is left.
 */
static void
test_rc_make_abandoned(void **state)
{
	struct pmr_test_env env;
	struct pmr_test_sess_ev e;
	uint64_t end;
	uint32_t base;
	int s;

	(void)state;
	pmr_test_env_up(&env, 1, NULL, NULL, NULL);
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	base = live_qps();
	nexus_rc_make_spin(env.nx, 300);
	assert_int_equal(rpc_rc_want(env.cli[0], s), 0);
	/* Let the nexus take RC_WANT and the maker start on it. */
	end = pmr_test_now_ns() + 100 * 1000000ull;
	while (pmr_test_now_ns() < end)
		pmr_test_env_poll(&env);
	assert_int_equal(rpc_rc_state(env.cli[0], s), RPC_RC_WANTED);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
	PMR_TEST_POLL_UNTIL(&env, live_qps() == base);

	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	assert_int_equal(rpc_rc_want(env.cli[0], s), 0);
	end = pmr_test_now_ns() + 100 * 1000000ull;
	while (pmr_test_now_ns() < end)
		pmr_test_env_poll(&env);
	assert_int_equal(rpc_rc_state(env.cli[0], s), RPC_RC_WANTED);
	assert_int_equal(pmr_worker_destroy(env.cli[0]), 0);
	env.cli[0] = NULL;
	nexus_rc_make_spin(env.nx, 0);
	pmr_test_env_down(&env);
	assert_int_equal(live_qps(), 0);
}

/* The server's session (the first connected one) of server worker w. */
static int
srv_session(const struct pmr_worker *w)
{
	int ss;

	for (ss = 0; ss < (int)w->max_sessions; ss++)
		if (w->sessions[ss].state == PMR_SESSION_CONNECTED)
			return ss;
	fail_msg("no connected session on worker %u", w->worker_id);
	return -1;
}

/*
 * A session asks and closes at once, the QP already made (the server
 * initiated): the nexus hands it over (RC_READY) and takes it back
 * (RC_DOWN) before the worker reads either; the worker gives back what it
 * never linked, and no QP is left.
 */
static void
test_rc_ask_and_close(void **state)
{
	struct pmr_test_env env;
	struct pmr_test_sess_ev e;
	uint32_t base;
	int s, ss;

	(void)state;
	pmr_test_env_up(&env, 1, NULL, NULL, NULL);
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	base = live_qps();
	ss = srv_session(env.srv[0]);
	want_ready(&env, env.srv[0], ss);
	assert_int_equal(live_qps(), base + 2);
	assert_int_equal(rpc_rc_want(env.cli[0], s), 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
	PMR_TEST_POLL_UNTIL(&env, live_qps() == base &&
			rpc_rc_nb_qps(env.srv[0]) == 0 &&
			rpc_rc_nb_qps(env.cli[0]) == 0);
	pmr_test_env_down(&env);
	assert_int_equal(live_qps(), 0);
}

/* Poll only w until n messages wait on w's ring from the nexus. */
static void
cli_poll_until_queued(struct pmr_worker *cli, const struct pmr_worker *w,
		unsigned int n)
{
	uint64_t deadline = pmr_test_now_ns() + pmr_test_wait_ns();

	while (rte_ring_count(w->to_worker) < n) {
		pmr_worker_poll(cli);
		assert_true(pmr_test_now_ns() < deadline);
	}
}

/*
 * The answer to an ask of a session closed since reaches the session
 * that has its number by then (issue 26, found by fuzz_worker_rdv): the
 * server worker asks for the QP of a session whose client closed it (its
 * DISCONNECTED not read yet), so the nexus refuses; a new session's
 * CONNECT_IN comes between the two, and takes the number (the only one)
 * the moment the old session is freed. The refusal is the old session's: the new one,
 * asking at once, gets its QP (it was failed for good before).
 */
static void
test_rc_ready_stale(void **state)
{
	/* One session: the new one has the old one's number. */
	const struct pmr_worker_conf one = {
		.nb_msgbufs = 1024,
		.max_sessions = 1,
	};
	struct pmr_test_env env;
	struct pmr_test_sess_ev e, e2 = { 0 };
	struct pmr_worker *srv;
	unsigned int queued;
	int s, s2, ss;

	(void)state;
	pmr_test_env_up(&env, 1, NULL, &one, NULL);
	srv = env.srv[0];
	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	ss = srv_session(srv);
	PMR_TEST_POLL_UNTIL(&env, rte_ring_count(srv->to_worker) == 0);
	queued = rte_ring_count(srv->to_worker);
	/* The server is not polled from here: its nexus messages wait. */
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
	cli_poll_until_queued(env.cli[0], srv, queued + 1);	/* DISCONNECTED */
	s2 = pmr_session_create(env.cli[0], pmr_nexus_uri(env.nx), 0,
			pmr_test_on_session, &e2);
	assert_true(s2 >= 0);
	cli_poll_until_queued(env.cli[0], srv, queued + 2);	/* CONNECT_IN */
	assert_int_equal(rpc_rc_want(srv, ss), 0);
	cli_poll_until_queued(env.cli[0], srv, queued + 3);	/* RC_READY */
	/* The new session asks for its QP as soon as it is accepted. */
	srv->rdv_eager = true;
	while (rte_ring_count(srv->to_worker) > 0)
		pmr_worker_poll(srv);	/* the three, in one rare poll */
	assert_int_equal(srv->sessions[ss].state, PMR_SESSION_CONNECTED);
	assert_int_equal(srv->sessions[ss].remote_session, s2);
	assert_int_not_equal(rpc_rc_state(srv, ss), RPC_RC_FAILED);
	PMR_TEST_POLL_UNTIL(&env, e2.count > 0 &&
			rpc_rc_state(srv, ss) != RPC_RC_WANTED);
	assert_int_equal(e2.ev, PMR_SESSION_EV_CONNECTED);
	assert_int_equal(rpc_rc_state(srv, ss), RPC_RC_READY);
	srv->rdv_eager = false;
	assert_int_equal(pmr_session_destroy(env.cli[0], s2), 0);
	PMR_TEST_POLL_UNTIL(&env, rpc_rc_nb_qps(srv) == 0);
	pmr_test_env_down(&env);
	assert_int_equal(live_qps(), 0);
}

/*
 * Eager set-up (internal flag on a session): set while the session
 * connects, the QP is asked for when it is connected, without an
 * rpc_rc_want(), and is there soon after.
 */
static void
test_rc_eager(void **state)
{
	struct pmr_test_env env;
	struct pmr_test_sess_ev e = { 0 };
	uint32_t base;
	int s;

	(void)state;
	pmr_test_env_up(&env, 1, NULL, NULL, NULL);
	base = live_qps();
	s = pmr_session_create(env.cli[0], pmr_nexus_uri(env.nx), 0,
			pmr_test_on_session, &e);
	assert_true(s >= 0);
	assert_int_equal(rpc_rc_eager(env.cli[0], s), 0);
	assert_int_equal(rpc_rc_state(env.cli[0], s), RPC_RC_NONE);
	assert_int_equal(rpc_rc_eager(env.cli[0], -1), -EINVAL);
	PMR_TEST_POLL_UNTIL(&env, e.count > 0);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	assert_int_not_equal(rpc_rc_state(env.cli[0], s), RPC_RC_NONE);
	PMR_TEST_POLL_UNTIL(&env,
		rpc_rc_state(env.cli[0], s) == RPC_RC_READY);
	assert_int_equal(live_qps(), base + 2);
	/* On a connected session: the same as rpc_rc_want(). */
	assert_int_equal(rpc_rc_eager(env.cli[0], s), 0);
	assert_int_equal(rpc_rc_state(env.cli[0], s), RPC_RC_READY);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
	PMR_TEST_POLL_UNTIL(&env, live_qps() == base);
	pmr_test_env_down(&env);
}

#ifndef PMR_TEST_RC_DEVICE
/*
 * The server's QP forced to ERR (the model's pmr_hca_qp_force_err(): as if
 * its end failed): the client's next operation fails (retries exceeded),
 * the sessions of that pair reset at both ends, and both QPs are taken
 * back and destroyed, the server's through RC_DOWN / RC_RELEASED as its
 * worker had it. The client's session with another server goes on.
 */
static void
test_rc_qp_err(void **state)
{
	struct pmr_test_sess_ev e0, e1;
	struct pmr_test_env env;
	struct mem r, l;
	struct verbs_rc *vrc;
	unsigned int st;
	uint32_t base;
	int s0, s1, ss;

	(void)state;
	pmr_test_env_up(&env, 2, NULL, NULL, NULL);
	assert_int_equal(pmr_transport_mem_register_access(env.srv[0]->q,
		rpool, PMR_TRANSPORT_ACCESS_REMOTE_READ), 0);
	assert_int_equal(pmr_transport_mem_register(env.cli[0]->q, lpool), 0);
	s0 = pmr_test_connect(&env, env.cli[0], 0, &e0);
	s1 = pmr_test_connect(&env, env.cli[0], 1, &e1);
	assert_int_equal(e0.ev, PMR_SESSION_EV_CONNECTED);
	assert_int_equal(e1.ev, PMR_SESSION_EV_CONNECTED);
	base = live_qps();
	want_ready(&env, env.cli[0], s0);
	want_ready(&env, env.cli[0], s1);
	ss = srv_session(env.srv[0]);
	want_ready(&env, env.srv[0], ss);
	assert_int_equal(live_qps(), base + 4);
	assert_int_equal(rpc_rc_nb_qps(env.srv[0]), 1);

	vrc = (struct verbs_rc *)rpc_rc_qp(env.srv[0], ss);
	assert_int_equal(pmr_hca_qp_force_err(vrc->qp), 0);
	assert_int_equal(pmr_transport_rc_state(env.srv[0]->q,
		rpc_rc_qp(env.srv[0], ss)), PMR_RC_STATE_ERR);
	mem_get(&r, rpool, env.srv[0]->q);
	mem_get(&l, lpool, env.cli[0]->q);
	st = one_op(&env, env.cli[0], s0, PMR_RC_OP_READ, l.p, l.key.lkey,
		r.p, r.key.rkey, 64);
	assert_int_not_equal(st, PMR_RC_OK);
	PMR_TEST_POLL_UNTIL(&env, e0.count == 2);
	assert_int_equal(e0.ev, PMR_SESSION_EV_RESET);
	/* Both ends' QPs destroyed, the server's given back by its worker. */
	PMR_TEST_POLL_UNTIL(&env, live_qps() == base + 2 &&
			rpc_rc_nb_qps(env.srv[0]) == 0 &&
			rpc_rc_nb_qps(env.cli[0]) == 1);
	assert_int_equal(pmr_session_destroy(env.cli[0], s0), 0);
	/* The other session, on its own QP: untouched. */
	assert_int_equal(e1.count, 1);
	assert_int_equal(rpc_rc_state(env.cli[0], s1), RPC_RC_READY);
	assert_int_equal(pmr_transport_rc_state(env.cli[0]->q,
		rpc_rc_qp(env.cli[0], s1)), PMR_RC_STATE_RTS);

	assert_int_equal(pmr_msgbuf_free(r.mb), 0);
	assert_int_equal(pmr_msgbuf_free(l.mb), 0);
	assert_int_equal(pmr_transport_mem_unregister(env.srv[0]->q, rpool),
			0);
	assert_int_equal(pmr_transport_mem_unregister(env.cli[0]->q, lpool),
			0);
	pmr_test_env_down(&env);
	assert_int_equal(live_qps(), 0);
}

/*
 * The server's QP fails while idle (forced to ERR: the model raises
 * QP_FATAL on the server's device): no operation is there to fail, yet
 * the device event resets the sessions of that worker pair at both ends,
 * and both QPs are taken back and destroyed; a session made again gets a
 * fresh pair; the client's session with another server keeps its QP.
 */
static void
test_rc_qp_event(void **state)
{
	struct pmr_test_sess_ev e0, e1, e2;
	struct pmr_test_env env;
	struct verbs_rc *vrc;
	uint32_t base;
	int s0, s1, s2, ss;

	(void)state;
	pmr_test_env_up(&env, 2, NULL, NULL, NULL);
	s0 = pmr_test_connect(&env, env.cli[0], 0, &e0);
	s1 = pmr_test_connect(&env, env.cli[0], 1, &e1);
	assert_int_equal(e0.ev, PMR_SESSION_EV_CONNECTED);
	assert_int_equal(e1.ev, PMR_SESSION_EV_CONNECTED);
	base = live_qps();
	want_ready(&env, env.cli[0], s0);
	want_ready(&env, env.cli[0], s1);
	ss = srv_session(env.srv[0]);
	want_ready(&env, env.srv[0], ss);
	assert_int_equal(live_qps(), base + 4);

	vrc = (struct verbs_rc *)rpc_rc_qp(env.srv[0], ss);
	assert_int_equal(pmr_hca_qp_force_err(vrc->qp), 0);
	/* No operation: the event alone resets the pair's sessions. */
	PMR_TEST_POLL_UNTIL(&env, e0.count == 2);
	assert_int_equal(e0.ev, PMR_SESSION_EV_RESET);
	PMR_TEST_POLL_UNTIL(&env, live_qps() == base + 2 &&
			rpc_rc_nb_qps(env.srv[0]) == 0 &&
			rpc_rc_nb_qps(env.cli[0]) == 1);
	assert_int_equal(pmr_session_destroy(env.cli[0], s0), 0);
	/* The other pair: untouched. */
	assert_int_equal(e1.count, 1);
	assert_int_equal(rpc_rc_state(env.cli[0], s1), RPC_RC_READY);
	/* A session made again gets a fresh pair, in RTS. */
	s2 = pmr_test_connect(&env, env.cli[0], 0, &e2);
	assert_int_equal(e2.ev, PMR_SESSION_EV_CONNECTED);
	want_ready(&env, env.cli[0], s2);
	assert_int_equal(pmr_transport_rc_state(env.cli[0]->q,
		rpc_rc_qp(env.cli[0], s2)), PMR_RC_STATE_RTS);
	assert_int_equal(pmr_session_destroy(env.cli[0], s2), 0);
	pmr_test_env_down(&env);
	assert_int_equal(live_qps(), 0);
}
#endif /* !PMR_TEST_RC_DEVICE: the model's forced ERR */

static int
setup(void **state)
{
	if (pmr_test_eal_setup(state) != 0)
		return -1;
#ifdef PMR_TEST_RC_DEVICE
	dev_qps0 = dev_qps();
#endif
	rpool = pmr_msgbuf_pool_create("rcs_remote", 4, 0, BUF, 64,
			SOCKET_ID_ANY);
	lpool = pmr_msgbuf_pool_create("rcs_local", 4, 0, BUF, 64,
			SOCKET_ID_ANY);
	return rpool != NULL && lpool != NULL ? 0 : -1;
}

static int
teardown(void **state)
{
	pmr_msgbuf_pool_free(rpool);
	pmr_msgbuf_pool_free(lpool);
	return pmr_test_eal_teardown(state);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rc_ready),
		cmocka_unit_test(test_rc_four_pairs),
		cmocka_unit_test(test_rc_both_ask),
		cmocka_unit_test(test_rc_spoofed),
		cmocka_unit_test(test_rc_bad_rkey),
		cmocka_unit_test(test_rc_lossy),
		cmocka_unit_test(test_rc_slow_make),
		cmocka_unit_test(test_rc_make_abandoned),
		cmocka_unit_test(test_rc_peer_destroyed),
#ifndef PMR_TEST_RC_DEVICE
		cmocka_unit_test(test_rc_qp_err),
		cmocka_unit_test(test_rc_qp_event),
#endif
		cmocka_unit_test(test_rc_eager),
		cmocka_unit_test(test_rc_ask_and_close),
		cmocka_unit_test(test_rc_ready_stale),
	};

	/*
	 * The RC QPs these cases count are the ones they ask for: no
	 * eager set-up for large messages (doc/rendezvous.md).
	 */
	setenv("PMR_TEST_RDV_THRESHOLD", "off", 1);
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("rc_setup", tests, setup,
			teardown);
}
