/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_TEST_SRC_H
#define PMR_TEST_SRC_H

/**
 * @file
 * Several sources against one server worker (issue 25): a server nexus on
 * 127.0.0.1 with one server worker (id 0), and client nexuses, each on an
 * address of its own choosing (127.0.0.1, 127.0.0.2, ...: every 127/8
 * address is local), each with its own client workers, all polled by the
 * test's thread. A source, to the server, is a client nexus (its address
 * and port) and an address (its IP), as doc/security.md says.
 *
 * The queues come from the set-up PMR_TEST_SETUP names, as in
 * pmr_test_rpc.h. On eth every client worker must reach the one server
 * queue, which a ring pair cannot do: the set-up is then a star of ring
 * ports (one per worker) whose leaves all send into the server port's
 * receive ring, and whose server port's frames pmr_test_src_poll() hands
 * to the leaf of their destination IP address (as a switch would). On
 * verbs (the model's hca0, or rxe0) every queue reaches every other.
 */

#include <stdbool.h>

#include "pmr_test_rpc.h"

/** Client nexuses at most. */
#define PMR_TEST_SRC_MAX 4
/** Client workers at most, over all client nexuses. */
#define PMR_TEST_SRC_WORKERS 24
/** Client workers on eth at most (one star leaf each). */
#define PMR_TEST_SRC_ETH_WORKERS 8

/** One client nexus and its workers. */
struct pmr_test_src {
	struct pmr_nexus *nx;
	unsigned int nb_workers;
	struct pmr_worker *w[PMR_TEST_SRC_WORKERS];
};

struct pmr_test_src_env {
	const struct pmr_test_setup *setup;
	struct pmr_nexus *srv_nx;
	struct pmr_worker *srv;
	unsigned int nb_src;
	struct pmr_test_src src[PMR_TEST_SRC_MAX];
	/* eth: the star (pmr_test_src.c). */
	char name[16];
	uint16_t hub;			/* the server's port */
	unsigned int nb_leaves;
	uint16_t leaf[PMR_TEST_SRC_ETH_WORKERS];
	struct rte_ring *up;		/* leaves -> hub */
	struct rte_ring *down;		/* hub -> the switch */
	struct rte_ring *leaf_rx[PMR_TEST_SRC_ETH_WORKERS];
	uint64_t switched;		/* frames handed to a leaf */
	uint64_t unswitched;		/* to no leaf: freed */
};

/**
 * Bring up the server (its nexus, handlers, worker 0 with srv's settings;
 * NULL: defaults with 1024 single-packet msgbufs) and nb_src client
 * nexuses, client nexus i on address ips[i] ("127.0.0.2") with
 * workers[i] client workers (ids 100 + 20 i + k) of cli's settings. The
 * settings' devargs, if any, follow the set-up's. Fails the test on any
 * error.
 */
void pmr_test_src_up(struct pmr_test_src_env *env, unsigned int nb_src,
		const char *const *ips, const unsigned int *workers,
		pmr_test_handlers_t handlers,
		const struct pmr_worker_conf *srv,
		const struct pmr_worker_conf *cli);

/** Destroy everything, asserting every worker's pools came back full. */
void pmr_test_src_down(struct pmr_test_src_env *env);

/** Poll every worker once (and, on eth, switch the server's frames). */
void pmr_test_src_poll(struct pmr_test_src_env *env);

/** Poll env until cond holds; fail after PMR_TEST_WAIT_NS. */
#define PMR_TEST_SRC_POLL_UNTIL(env, cond) do { \
	uint64_t deadline_ = pmr_test_now_ns() + PMR_TEST_WAIT_NS; \
	while (!(cond)) { \
		pmr_test_src_poll(env); \
		assert_true(pmr_test_now_ns() < deadline_); \
	} \
} while (0)

/**
 * Open a session from client worker w to the server worker and poll until
 * its first event, recorded in e.
 *
 * @return the session number.
 */
int pmr_test_src_connect(struct pmr_test_src_env *env, struct pmr_worker *w,
		struct pmr_test_sess_ev *e);

#endif /* PMR_TEST_SRC_H */
