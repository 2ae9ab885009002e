/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pmr_test_rpc.h"

#include <rte_errno.h>

static unsigned int pair_seq;

uint64_t
pmr_test_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void
pmr_test_env_poll(struct pmr_test_env *env)
{
	unsigned int i;

	for (i = 0; i < env->nb_pairs; i++) {
		if (env->srv[i] != NULL)
			pmr_worker_poll(env->srv[i]);
		if (env->cli[i] != NULL)
			pmr_worker_poll(env->cli[i]);
	}
}

static struct pmr_worker *
worker_on(struct pmr_test_env *env, const struct pmr_worker_conf *base,
		uint16_t id, uint16_t port, const char *ip)
{
	struct pmr_worker_conf conf = { .nb_msgbufs = 1024 };
	struct pmr_worker *w;
	char args[128];

	if (base != NULL)
		conf = *base;
	conf.worker_id = id;
	snprintf(args, sizeof(args), "port=%u,ip=%s%s%s", port, ip,
		base != NULL && base->devargs != NULL ? "," : "",
		base != NULL && base->devargs != NULL ? base->devargs : "");
	conf.devargs = args;
	w = pmr_worker_create(env->nx, &conf);
	if (w == NULL)
		fail_msg("worker %u (%s): %s", id, args, rte_strerror(rte_errno));
	return w;
}

void
pmr_test_env_up(struct pmr_test_env *env, unsigned int nb_pairs,
		pmr_test_handlers_t handlers,
		const struct pmr_worker_conf *srv,
		const struct pmr_worker_conf *cli)
{
	/*
	 * The nexus talks to itself here, and none of these tests is about
	 * a dead peer (test_nexus and test_hostile_nexus are): a peer
	 * timeout far above the default keeps a nexus thread starved for
	 * 0.6 s on a loaded 2-core machine (a sanitizer build beside
	 * another) from resetting every session of the test.
	 */
	struct pmr_nexus_conf conf = { .connect_timeout_ms = 500,
		.peer_timeout_ms = 10000 };
	unsigned int i;
	char ip[32];

	assert_true(nb_pairs <= PMR_TEST_MAX_PAIRS);
	memset(env, 0, sizeof(*env));
	env->nx = pmr_nexus_create("127.0.0.1:0", &conf);
	assert_non_null(env->nx);
	if (handlers != NULL)
		handlers(env->nx);
	for (i = 0; i < nb_pairs; i++) {
		snprintf(env->pair[i], sizeof(env->pair[i]), "rp%u",
			pair_seq++);
		assert_int_equal(pmr_test_ring_pair(env->pair[i],
				&env->port_a[i], &env->port_b[i]), 0);
		snprintf(ip, sizeof(ip), "10.2.%u.1", i);
		env->srv[i] = worker_on(env, srv, (uint16_t)i,
				env->port_a[i], ip);
		snprintf(ip, sizeof(ip), "10.2.%u.2", i);
		env->cli[i] = worker_on(env, cli, (uint16_t)(10 + i),
				env->port_b[i], ip);
		env->nb_pairs++;
	}
}

void
pmr_test_env_down(struct pmr_test_env *env)
{
	unsigned int i;

	for (i = 0; i < env->nb_pairs; i++) {
		if (env->cli[i] != NULL)
			assert_int_equal(pmr_worker_destroy(env->cli[i]), 0);
		env->cli[i] = NULL;
		if (env->srv[i] != NULL)
			assert_int_equal(pmr_worker_destroy(env->srv[i]), 0);
		env->srv[i] = NULL;
		pmr_test_ring_pair_free(env->pair[i], env->port_a[i],
				env->port_b[i]);
	}
	assert_int_equal(pmr_nexus_destroy(env->nx), 0);
}

void
pmr_test_on_session(struct pmr_worker *w, int session,
		enum pmr_session_event ev, int err, void *arg)
{
	struct pmr_test_sess_ev *e = arg;

	(void)w;
	e->count++;
	e->session = session;
	e->ev = ev;
	e->err = err;
}

int
pmr_test_connect(struct pmr_test_env *env, struct pmr_worker *cli,
		uint16_t remote, struct pmr_test_sess_ev *e)
{
	int s;

	memset(e, 0, sizeof(*e));
	s = pmr_session_create(cli, pmr_nexus_uri(env->nx), remote,
			pmr_test_on_session, e);
	assert_true(s >= 0);
	assert_int_equal(pmr_session_state(cli, s), PMR_SESSION_CONNECTING);
	PMR_TEST_POLL_UNTIL(env, e->count > 0);
	return s;
}
