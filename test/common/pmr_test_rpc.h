/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_TEST_RPC_H
#define PMR_TEST_RPC_H

/**
 * @file
 * The RPC tests' environment: a nexus on 127.0.0.1, and pairs of a server
 * worker (ids 0, 1, ...) and a client worker (ids 10, 11, ...) on ring
 * pairs, all polled by the test's thread unless it says otherwise.
 */

#include "pmr_test.h"

#include "pmr_nexus.h"
#include "pmr_rpc.h"

#define PMR_TEST_MAX_PAIRS 2
/** Longest wait for a condition: generous for ASan on 2 cores. */
#define PMR_TEST_WAIT_NS (60ull * 1000 * 1000 * 1000)

struct pmr_test_env {
	struct pmr_nexus *nx;
	char pair[PMR_TEST_MAX_PAIRS][16];
	uint16_t port_a[PMR_TEST_MAX_PAIRS], port_b[PMR_TEST_MAX_PAIRS];
	struct pmr_worker *srv[PMR_TEST_MAX_PAIRS];	/* polled if set */
	struct pmr_worker *cli[PMR_TEST_MAX_PAIRS];	/* polled if set */
	unsigned int nb_pairs;
};

/** Registers the test's handlers on a new nexus. */
typedef void (*pmr_test_handlers_t)(struct pmr_nexus *nx);

/**
 * Bring up a nexus and nb_pairs server/client pairs. srv and cli give the
 * workers' settings (worker_id and devargs are filled in; NULL: defaults
 * with 1024 single-packet msgbufs).
 */
void pmr_test_env_up(struct pmr_test_env *env, unsigned int nb_pairs,
		pmr_test_handlers_t handlers,
		const struct pmr_worker_conf *srv,
		const struct pmr_worker_conf *cli);

/** Destroy what env_up made, asserting every pool came back full. */
void pmr_test_env_down(struct pmr_test_env *env);

/** Poll every worker of env once. */
void pmr_test_env_poll(struct pmr_test_env *env);

/** CLOCK_MONOTONIC in nanoseconds. */
uint64_t pmr_test_now_ns(void);

/** Poll env until cond holds; fail after PMR_TEST_WAIT_NS. */
#define PMR_TEST_POLL_UNTIL(env, cond) do { \
	uint64_t deadline_ = pmr_test_now_ns() + PMR_TEST_WAIT_NS; \
	while (!(cond)) { \
		pmr_test_env_poll(env); \
		assert_true(pmr_test_now_ns() < deadline_); \
	} \
} while (0)

/** The last session event a pmr_test_on_session callback saw. */
struct pmr_test_sess_ev {
	int count;
	int session;
	enum pmr_session_event ev;
	int err;
};

/** Session callback recording into a struct pmr_test_sess_ev (arg). */
void pmr_test_on_session(struct pmr_worker *w, int session,
		enum pmr_session_event ev, int err, void *arg);

/**
 * Open a session from cli to remote worker remote of env's nexus and
 * poll until its first event, recorded in e.
 *
 * @return the session number.
 */
int pmr_test_connect(struct pmr_test_env *env, struct pmr_worker *cli,
		uint16_t remote, struct pmr_test_sess_ev *e);

#endif /* PMR_TEST_RPC_H */
