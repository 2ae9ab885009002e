/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmr_test_rpc.h"

#include <rte_common.h>
#include <rte_errno.h>

static unsigned int pair_seq;

/* eth over an in-process ring pair: the server on port a, client on b. */
static int
eth_link_up(struct pmr_test_env *env, unsigned int i)
{
	return pmr_test_ring_pair(env->pair[i], &env->port_a[i],
			&env->port_b[i]);
}

static void
eth_link_down(struct pmr_test_env *env, unsigned int i)
{
	pmr_test_ring_pair_free(env->pair[i], env->port_a[i], env->port_b[i]);
}

static int
eth_devargs(const struct pmr_test_env *env, unsigned int i, unsigned int end,
		char *buf, size_t size)
{
	int n = snprintf(buf, size, "port=%u,ip=10.2.%u.%u",
			end == 0 ? env->port_a[i] : env->port_b[i], i, end + 1);

	return n < 0 || (size_t)n >= size ? -ENOSPC : 0;
}

static const struct pmr_test_setup eth_setup = {
	.name = "eth",
	.driver = NULL,		/* the default driver, eth */
	.link_up = eth_link_up,
	.link_down = eth_link_down,
	.devargs = eth_devargs,
};

/* The first is the default. */
static const struct pmr_test_setup *const setups[] = {
	&eth_setup,
#ifdef PMR_TEST_SETUP_VERBS
	&pmr_test_setup_verbs,
#endif
#ifdef PMR_TEST_SETUP_VERBS_HCA
	&pmr_test_setup_verbs_hca,
#endif
};

const struct pmr_test_setup *
pmr_test_setup_get(void)
{
	const char *name = getenv("PMR_TEST_SETUP");
	unsigned int i;

	if (name == NULL || name[0] == '\0')
		return setups[0];
	for (i = 0; i < RTE_DIM(setups); i++)
		if (strcmp(setups[i]->name, name) == 0)
			return setups[i];
	fail_msg("PMR_TEST_SETUP=%s: no such set-up in this executable", name);
	return NULL;
}

uint32_t
pmr_test_rdv_threshold(void)
{
	const char *s = getenv("PMR_TEST_RDV_THRESHOLD");

	if (s == NULL || s[0] == '\0')
		return 0;
	if (strcmp(s, "off") == 0)
		return PMR_RDV_OFF;
	return (uint32_t)strtoul(s, NULL, 0);
}

bool
pmr_test_setup_is_eth(void)
{
	return pmr_test_setup_get() == &eth_setup;
}

uint64_t
pmr_test_wait_ns(void)
{
	static uint64_t wait;
	const char *s;

	if (wait == 0) {
		unsigned long scale = 1;

		s = getenv("PMR_TEST_WAIT_SCALE");
		if (s != NULL && s[0] != '\0')
			scale = strtoul(s, NULL, 10);
		else if (getenv("PMR_VM_GUEST") != NULL)
			scale = 5;
		if (scale == 0 || scale > 100)
			scale = 1;
		wait = scale * 60ull * 1000 * 1000 * 1000;
	}
	return wait;
}

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
		uint16_t id, unsigned int pair, unsigned int end)
{
	struct pmr_worker_conf conf = { .nb_msgbufs = 1024 };
	struct pmr_worker *w;
	char args[256];
	size_t n;

	if (base != NULL)
		conf = *base;
	conf.worker_id = id;
	if (conf.driver == NULL)
		conf.driver = env->setup->driver;
	if (conf.rdv_threshold == 0)
		conf.rdv_threshold = pmr_test_rdv_threshold();
	assert_int_equal(env->setup->devargs(env, pair, end, args,
			sizeof(args)), 0);
	n = strlen(args);
	if (base != NULL && base->devargs != NULL)
		assert_true((size_t)snprintf(args + n, sizeof(args) - n,
				"%s%s", n != 0 ? "," : "", base->devargs) <
				sizeof(args) - n);
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
	 * The nexus talks to itself here, at the default peer timeout: a
	 * nexus thread starved on a loaded machine does not hold that time
	 * against itself (issue 26; it once reset 3360 sessions of a test).
	 */
	struct pmr_nexus_conf conf = { .connect_timeout_ms = 500 };
	unsigned int i;

	assert_true(nb_pairs <= PMR_TEST_MAX_PAIRS);
	memset(env, 0, sizeof(*env));
	env->setup = pmr_test_setup_get();
	env->nx = pmr_nexus_create("127.0.0.1:0", &conf);
	assert_non_null(env->nx);
	if (handlers != NULL)
		handlers(env->nx);
	for (i = 0; i < nb_pairs; i++) {
		snprintf(env->pair[i], sizeof(env->pair[i]), "rp%u",
			pair_seq++);
		assert_int_equal(env->setup->link_up(env, i), 0);
		/* Counted now: env_down undoes the link of a failed pair. */
		env->nb_pairs++;
		env->srv[i] = worker_on(env, srv, (uint16_t)i, i, 0);
		env->cli[i] = worker_on(env, cli, (uint16_t)(10 + i), i, 1);
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
		env->setup->link_down(env, i);
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
