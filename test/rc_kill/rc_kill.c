/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * A peer killed with RC QPs up (issue 16), in two processes on a real
 * device (rc_kill_vm.sh runs it in the VM of devtools/vm/ on rxe0).
 * "test_rc_kill_server" brings up a nexus and a worker whose memory its
 * clients may read, writes its URI, the address and the rkey to the file
 * RC_KILL_FILE names, and serves until killed. "test_rc_kill_client"
 * connects to it and to a worker of its own nexus (a session to itself),
 * gets an RC QP for each pair and READs known bytes through both, writes
 * RC_KILL_FILE.ready and waits: the script kills the server with SIGKILL.
 * The client's session with it is then reset after the peer timeout, the
 * QP it held for it is released (the worker's counts, which telemetry
 * shows, and the device's QPs of this process, as the kernel has them),
 * its session to itself goes on working, and after all is closed nothing
 * of this process is left on the device and its pools are full.
 */

#include "pmr_test_rpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmr_msgbuf.h"
#include "pmr_nexus.h"
#include "pmr_transport_rc.h"
#include "rpc_private.h"
#include "rpc_rc.h"

#define BUF 8192u

static struct rte_mempool *rpool;	/* remote access */
static struct rte_mempool *lpool;	/* local */
static uint8_t expect[BUF];

static const char *
kill_file(void)
{
	const char *f = getenv("RC_KILL_FILE");

	assert_non_null(f);
	return f;
}

/*
 * This process's QPs on the device, as the kernel's restrack has them.
 * Its "pid" is the thread's that made the QP (the nexus thread makes the
 * RC ones), so a QP is ours when that thread is one of ours.
 */
static uint32_t
my_qps(void)
{
	const char *cmd = "rdma resource show qp 2>&1";
	char task[64], line[512];
	uint32_t n = 0;
	const char *p;
	FILE *f;
	int tid;

	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strstr(line, "lqpn") == NULL)
			fail_msg("%s: %s", cmd, line);
		p = strstr(line, " pid ");
		if (p == NULL || sscanf(p, " pid %d", &tid) != 1)
			continue;	/* the kernel's (QP1) */
		snprintf(task, sizeof(task), "/proc/self/task/%d", tid);
		if (access(task, F_OK) == 0)
			n++;
	}
	assert_int_equal(pclose(f), 0);
	return n;
}

static void
want_ready(struct pmr_test_env *env, struct pmr_worker *w, int s)
{
	assert_int_equal(rpc_rc_want(w, s), 0);
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

static unsigned int
one_read(struct pmr_test_env *env, struct pmr_worker *w, int s,
		void *local, uint32_t lkey, uint64_t remote, uint32_t rkey)
{
	struct pmr_transport_rc_op op = {
		.type = PMR_RC_OP_READ,
		.local = local,
		.lkey = lkey,
		.remote = remote,
		.rkey = rkey,
		.len = BUF,
	};
	struct op_done d = { 0 };

	assert_int_equal(rpc_rc_post(w, s, &op, on_op, &d), 0);
	PMR_TEST_POLL_UNTIL(env, d.count > 0);
	return d.status;
}

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

static void
fill(uint8_t *p, uint8_t seed)
{
	uint32_t i;

	for (i = 0; i < BUF; i++)
		p[i] = (uint8_t)(i * 7 + seed);
}

static void
test_rc_kill_server(void **state)
{
	struct pmr_test_env env;
	char tmp[512];
	struct mem r;
	FILE *f;

	(void)state;
	pmr_test_env_up(&env, 1, NULL, NULL, NULL);
	assert_int_equal(pmr_transport_mem_register_access(env.srv[0]->q,
		rpool, PMR_TRANSPORT_ACCESS_REMOTE_READ), 0);
	mem_get(&r, rpool, env.srv[0]->q);
	fill(r.p, 3);
	/* Written whole, then renamed: the client never reads half. */
	snprintf(tmp, sizeof(tmp), "%s.tmp", kill_file());
	f = fopen(tmp, "w");
	assert_non_null(f);
	fprintf(f, "%s %llu %u\n", pmr_nexus_uri(env.nx),
		(unsigned long long)(uintptr_t)r.p, r.key.rkey);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rename(tmp, kill_file()), 0);
	fprintf(stderr, "rc_kill: server up at %s\n", pmr_nexus_uri(env.nx));
	for (;;) {
		pmr_test_env_poll(&env);
		usleep(200);
	}
}

static void
test_rc_kill_client(void **state)
{
	struct pmr_test_sess_ev er = { 0 }, es;
	uint32_t base, ready, draining, ops, rkey;
	unsigned long long raddr;
	struct pmr_test_env env;
	char uri[128], path[512];
	struct mem l, own;
	uint64_t t0, t1;
	int sr, ss;
	FILE *f;

	(void)state;
	pmr_test_env_up(&env, 1, NULL, NULL, NULL);
	assert_int_equal(pmr_transport_mem_register(env.cli[0]->q, lpool), 0);
	assert_int_equal(pmr_transport_mem_register_access(env.srv[0]->q,
		rpool, PMR_TRANSPORT_ACCESS_REMOTE_READ), 0);
	PMR_TEST_POLL_UNTIL(&env, access(kill_file(), R_OK) == 0);
	f = fopen(kill_file(), "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%127s %llu %u", uri, &raddr, &rkey), 3);
	fclose(f);

	sr = pmr_session_create(env.cli[0], uri, 0, pmr_test_on_session,
			&er);
	assert_true(sr >= 0);
	PMR_TEST_POLL_UNTIL(&env, er.count > 0);
	assert_int_equal(er.ev, PMR_SESSION_EV_CONNECTED);
	ss = pmr_test_connect(&env, env.cli[0], 0, &es);
	assert_int_equal(es.ev, PMR_SESSION_EV_CONNECTED);
	base = my_qps();
	want_ready(&env, env.cli[0], sr);
	want_ready(&env, env.cli[0], ss);
	/* One QP here for the other process, both ends of our own pair. */
	assert_int_equal(my_qps(), base + 3);
	assert_int_equal(rpc_rc_nb_qps(env.cli[0]), 2);

	mem_get(&l, lpool, env.cli[0]->q);
	mem_get(&own, rpool, env.srv[0]->q);
	memset(l.p, 0, BUF);
	assert_int_equal(one_read(&env, env.cli[0], sr, l.p, l.key.lkey,
		raddr, rkey), PMR_RC_OK);
	fill(expect, 3);	/* what the server filled its buffer with */
	assert_memory_equal(l.p, expect, BUF);
	fill(own.p, 9);
	memset(l.p, 0, BUF);
	assert_int_equal(one_read(&env, env.cli[0], ss, l.p, l.key.lkey,
		(uintptr_t)own.p, own.key.rkey), PMR_RC_OK);
	assert_memory_equal(l.p, own.p, BUF);

	/* Ready: the script kills the server now. */
	snprintf(path, sizeof(path), "%s.ready", kill_file());
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fclose(f), 0);
	t0 = pmr_test_now_ns();
	PMR_TEST_POLL_UNTIL(&env, er.count > 1);
	t1 = pmr_test_now_ns();
	assert_int_equal(er.ev, PMR_SESSION_EV_RESET);
	fprintf(stderr, "rc_kill: reset %llu ms after ready\n",
		(unsigned long long)((t1 - t0) / 1000000));
	/* What it held for the dead peer is released. */
	PMR_TEST_POLL_UNTIL(&env, rpc_rc_nb_qps(env.cli[0]) == 1 &&
			my_qps() == base + 2);
	rpc_rc_counts(env.cli[0], &ready, &draining, &ops);
	assert_int_equal(ready, 1);
	assert_int_equal(draining, 0);
	assert_int_equal(ops, 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], sr), 0);

	/* The session to itself goes on, on its own QP. */
	assert_int_equal(es.count, 1);
	assert_int_equal(rpc_rc_state(env.cli[0], ss), RPC_RC_READY);
	fill(own.p, 11);
	memset(l.p, 0, BUF);
	assert_int_equal(one_read(&env, env.cli[0], ss, l.p, l.key.lkey,
		(uintptr_t)own.p, own.key.rkey), PMR_RC_OK);
	assert_memory_equal(l.p, own.p, BUF);

	assert_int_equal(pmr_session_destroy(env.cli[0], ss), 0);
	PMR_TEST_POLL_UNTIL(&env, my_qps() == base &&
			rpc_rc_nb_qps(env.cli[0]) == 0 &&
			rpc_rc_nb_qps(env.srv[0]) == 0);
	assert_int_equal(pmr_msgbuf_free(l.mb), 0);
	assert_int_equal(pmr_msgbuf_free(own.mb), 0);
	assert_int_equal(pmr_transport_mem_unregister(env.cli[0]->q, lpool),
			0);
	assert_int_equal(pmr_transport_mem_unregister(env.srv[0]->q, rpool),
			0);
	pmr_test_env_down(&env);
	assert_int_equal(my_qps(), 0);
	assert_true(pmr_msgbuf_pool_full(rpool));
	assert_true(pmr_msgbuf_pool_full(lpool));
}

static int
setup(void **state)
{
	if (pmr_test_eal_setup(state) != 0)
		return -1;
	rpool = pmr_msgbuf_pool_create("rck_remote", 4, 0, BUF, 64,
			SOCKET_ID_ANY);
	lpool = pmr_msgbuf_pool_create("rck_local", 4, 0, BUF, 64,
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
		cmocka_unit_test(test_rc_kill_server),
		cmocka_unit_test(test_rc_kill_client),
	};

	/*
	 * The RC QPs these cases count are the ones they ask for: no
	 * eager set-up for large messages (doc/rendezvous.md).
	 */
	setenv("PMR_TEST_RDV_THRESHOLD", "off", 1);
	/* One of the two, named: they are the two ends of one test. */
	if (argc != 2)
		return 2;
	cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("rc_kill", tests, setup,
			teardown);
}
