/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Several sources against one server worker (pmr_test_src.h): the
 * nexuses, the workers, and on eth the star of ring ports with its switch.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_eth_ring.h>
#include <rte_ring.h>

#include "pmr_test_src.h"

static unsigned int star_seq;

/* Ring ports: the hub receives what every leaf sends; the switch moves
 * the hub's frames to their leaf. */
static void
star_up(struct pmr_test_src_env *env, unsigned int nb_leaves)
{
	char rname[RTE_RING_NAMESIZE], pname[RTE_ETH_NAME_MAX_LEN];
	unsigned int i;
	int p;

	assert_true(nb_leaves <= PMR_TEST_SRC_ETH_WORKERS);
	snprintf(env->name, sizeof(env->name), "st%u", star_seq++);
	snprintf(rname, sizeof(rname), "%s_up", env->name);
	/* Many leaves enqueue (one thread here, but any could). */
	env->up = rte_ring_create(rname, 4096, SOCKET_ID_ANY, RING_F_SC_DEQ);
	snprintf(rname, sizeof(rname), "%s_dn", env->name);
	env->down = rte_ring_create(rname, 4096, SOCKET_ID_ANY,
			RING_F_SP_ENQ | RING_F_SC_DEQ);
	assert_non_null(env->up);
	assert_non_null(env->down);
	snprintf(pname, sizeof(pname), "%s_hub", env->name);
	p = rte_eth_from_rings(pname, &env->up, 1, &env->down, 1,
			SOCKET_ID_ANY);
	assert_true(p >= 0);
	env->hub = (uint16_t)p;
	for (i = 0; i < nb_leaves; i++) {
		snprintf(rname, sizeof(rname), "%s_l%u", env->name, i);
		env->leaf_rx[i] = rte_ring_create(rname, 1024, SOCKET_ID_ANY,
				RING_F_SP_ENQ | RING_F_SC_DEQ);
		assert_non_null(env->leaf_rx[i]);
		snprintf(pname, sizeof(pname), "%s_l%u", env->name, i);
		p = rte_eth_from_rings(pname, &env->leaf_rx[i], 1, &env->up,
				1, SOCKET_ID_ANY);
		assert_true(p >= 0);
		env->leaf[i] = (uint16_t)p;
		env->nb_leaves++;
	}
}

static void
port_close(uint16_t port)
{
	/* Already closed if an eth queue owned it: then a no-op. */
	if (rte_eth_dev_is_valid_port(port)) {
		rte_eth_dev_stop(port);
		rte_eth_dev_close(port);
	}
}

static void
ring_drain_free(struct rte_ring *r)
{
	struct rte_mbuf *m;

	if (r == NULL)
		return;
	while (rte_ring_dequeue(r, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(r);
}

static void
star_down(struct pmr_test_src_env *env)
{
	unsigned int i;

	if (env->up == NULL)
		return;
	port_close(env->hub);
	for (i = 0; i < env->nb_leaves; i++) {
		port_close(env->leaf[i]);
		ring_drain_free(env->leaf_rx[i]);
	}
	ring_drain_free(env->up);
	ring_drain_free(env->down);
	env->up = env->down = NULL;
}

/* The IPv4 address of star leaf k, 10.3.1.(k + 1) (devargs_of()). */
static void
leaf_ip(unsigned int k, uint8_t ip[4])
{
	ip[0] = 10;
	ip[1] = 3;
	ip[2] = 1;
	ip[3] = (uint8_t)(k + 1);
}

/*
 * The hub's frames to the leaf of their destination IPv4 address (the
 * eth driver makes its MAC address of its IP, not the port's): an L3
 * switch for one subnet.
 */
static void
star_switch(struct pmr_test_src_env *env)
{
	struct rte_mbuf *m[32];
	unsigned int n, i, k;

	while ((n = rte_ring_dequeue_burst(env->down, (void **)m,
			RTE_DIM(m), NULL)) > 0) {
		for (i = 0; i < n; i++) {
			const uint8_t *f = rte_pktmbuf_mtod(m[i],
					const uint8_t *);
			uint8_t ip[4];

			k = env->nb_leaves;
			/* Ethernet (14), then IPv4: destination at 16. */
			if (rte_pktmbuf_data_len(m[i]) >= 14 + 20)
				for (k = 0; k < env->nb_leaves; k++) {
					leaf_ip(k, ip);
					if (memcmp(f + 14 + 16, ip, 4) == 0)
						break;
				}
			if (k < env->nb_leaves &&
			    rte_ring_enqueue(env->leaf_rx[k], m[i]) == 0) {
				env->switched++;
				continue;
			}
			env->unswitched++;
			rte_pktmbuf_free(m[i]);
		}
	}
}

static struct pmr_worker *
worker_make(struct pmr_test_src_env *env, struct pmr_nexus *nx,
		const struct pmr_worker_conf *base, uint16_t id,
		const char *devargs)
{
	struct pmr_worker_conf conf = { .nb_msgbufs = 1024 };
	struct pmr_worker *w;
	char args[512];
	int n;

	if (base != NULL)
		conf = *base;
	/* The set-up's devargs first, then the test's. */
	n = snprintf(args, sizeof(args), "%s%s%s", devargs,
			conf.devargs != NULL && devargs[0] != '\0' ? "," : "",
			conf.devargs != NULL ? conf.devargs : "");
	assert_true(n > 0 && (size_t)n < sizeof(args));
	conf.worker_id = id;
	if (conf.driver == NULL)
		conf.driver = env->setup->driver;
	if (conf.rdv_threshold == 0)
		conf.rdv_threshold = pmr_test_rdv_threshold();
	conf.devargs = args;
	w = pmr_worker_create(nx, &conf);
	if (w == NULL)
		fail_msg("worker %u (%s): %s", id, args,
			rte_strerror(rte_errno));
	return w;
}

/* Devargs of the server (leaf -1) or of a star leaf, or the set-up's. */
static void
devargs_of(struct pmr_test_src_env *env, int leaf, char *buf, size_t size)
{
	struct pmr_test_env dummy;
	int n;

	if (env->up != NULL) {
		uint8_t ip[4] = { 10, 3, 0, 1 };

		if (leaf >= 0)
			leaf_ip((unsigned int)leaf, ip);
		n = snprintf(buf, size, "port=%u,ip=%u.%u.%u.%u",
				leaf < 0 ? env->hub : env->leaf[leaf], ip[0],
				ip[1], ip[2], ip[3]);
		assert_true(n > 0 && (size_t)n < size);
		return;
	}
	memset(&dummy, 0, sizeof(dummy));
	dummy.setup = env->setup;
	assert_int_equal(env->setup->devargs(&dummy, 0, leaf < 0 ? 0 : 1,
			buf, size), 0);
}

void
pmr_test_src_up(struct pmr_test_src_env *env, unsigned int nb_src,
		const char *const *ips, const unsigned int *workers,
		pmr_test_handlers_t handlers,
		const struct pmr_worker_conf *srv,
		const struct pmr_worker_conf *cli)
{
	/*
	 * As pmr_test_env_up(): the nexuses talk to each other on one
	 * machine, at the default peer timeout.
	 */
	struct pmr_nexus_conf nconf = { .connect_timeout_ms = 500 };
	unsigned int i, k, total = 0;
	char uri[64], args[256];
	int leaf = 0;

	assert_true(nb_src <= PMR_TEST_SRC_MAX);
	memset(env, 0, sizeof(*env));
	env->setup = pmr_test_setup_get();
	for (i = 0; i < nb_src; i++)
		total += workers[i];
	assert_true(total <= PMR_TEST_SRC_WORKERS);
	if (pmr_test_setup_is_eth())
		star_up(env, total);
	env->srv_nx = pmr_nexus_create("127.0.0.1:0", &nconf);
	assert_non_null(env->srv_nx);
	if (handlers != NULL)
		handlers(env->srv_nx);
	devargs_of(env, -1, args, sizeof(args));
	env->srv = worker_make(env, env->srv_nx, srv, 0, args);
	for (i = 0; i < nb_src; i++) {
		snprintf(uri, sizeof(uri), "%s:0", ips[i]);
		env->src[i].nx = pmr_nexus_create(uri, &nconf);
		if (env->src[i].nx == NULL)
			fail_msg("nexus on %s: %s", uri,
				rte_strerror(rte_errno));
		env->nb_src++;
		for (k = 0; k < workers[i]; k++) {
			devargs_of(env, leaf++, args, sizeof(args));
			env->src[i].w[k] = worker_make(env, env->src[i].nx,
					cli, (uint16_t)(100 + 20 * i + k), args);
			env->src[i].nb_workers++;
		}
	}
}

void
pmr_test_src_down(struct pmr_test_src_env *env)
{
	unsigned int i, k;

	for (i = 0; i < env->nb_src; i++) {
		for (k = 0; k < env->src[i].nb_workers; k++)
			assert_int_equal(pmr_worker_destroy(env->src[i].w[k]),
					0);
		assert_int_equal(pmr_nexus_destroy(env->src[i].nx), 0);
	}
	env->nb_src = 0;
	if (env->srv != NULL)
		assert_int_equal(pmr_worker_destroy(env->srv), 0);
	env->srv = NULL;
	assert_int_equal(pmr_nexus_destroy(env->srv_nx), 0);
	star_down(env);
}

void
pmr_test_src_poll(struct pmr_test_src_env *env)
{
	unsigned int i, k;

	pmr_worker_poll(env->srv);
	if (env->up != NULL)
		star_switch(env);
	for (i = 0; i < env->nb_src; i++)
		for (k = 0; k < env->src[i].nb_workers; k++)
			pmr_worker_poll(env->src[i].w[k]);
}

int
pmr_test_src_connect(struct pmr_test_src_env *env, struct pmr_worker *w,
		struct pmr_test_sess_ev *e)
{
	int s;

	memset(e, 0, sizeof(*e));
	s = pmr_session_create(w, pmr_nexus_uri(env->srv_nx), 0,
			pmr_test_on_session, e);
	assert_true(s >= 0);
	PMR_TEST_SRC_POLL_UNTIL(env, e->count > 0);
	return s;
}
