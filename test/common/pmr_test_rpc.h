/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_TEST_RPC_H
#define PMR_TEST_RPC_H

/**
 * @file
 * The RPC tests' environment: a nexus on 127.0.0.1, and pairs of a server
 * worker (ids 0, 1, ...) and a client worker (ids 10, 11, ...), all polled
 * by the test's thread unless it says otherwise.
 *
 * The workers' queues come from a driver set-up (struct pmr_test_setup),
 * chosen at run time by the environment variable PMR_TEST_SETUP (its
 * name; unset or empty: the first, "eth", eth queues on in-process ring
 * pairs), so that one test executable is the engine suite of every
 * driver. An unknown name fails the test.
 *
 * Adding a set-up (say "verbs_hca", verbs on the software HCA model):
 * write, in a file of its own under test/common/, a
 * const struct pmr_test_setup pmr_test_setup_<name> whose link_up makes
 * what two queues of pair i need to reach each other (the model's device
 * and ports), link_down undoes it, and devargs gives each worker's
 * ("dev=hca0,port=1"...); list it in setups[] of pmr_test_rpc.c under
 * #ifdef PMR_TEST_SETUP_<NAME>; and build test_common (or a second copy
 * of it) with that file and -DPMR_TEST_SETUP_<NAME> for the executables
 * linked with what the set-up needs (the model ahead of libibverbs).
 * Then test/meson.build runs them again with
 * env: ['PMR_TEST_SETUP=<name>'] in a suite of their own.
 */

#include <stdbool.h>

#include "pmr_test.h"

#include "pmr_nexus.h"
#include "pmr_rpc.h"

#define PMR_TEST_MAX_PAIRS 2
/**
 * Longest wait for a condition: 60 s, generous for ASan on 2 cores; five
 * times that inside the Soft-RoCE VM (PMR_VM_GUEST set by devtools/vm/:
 * TCG runs about 20 times slower), or PMR_TEST_WAIT_SCALE times.
 */
#define PMR_TEST_WAIT_NS (pmr_test_wait_ns())

/** PMR_TEST_WAIT_NS's value. */
uint64_t pmr_test_wait_ns(void);

struct pmr_test_env;

/** A way to make the queues of the environment's workers. */
struct pmr_test_setup {
	const char *name;	/**< PMR_TEST_SETUP's value for it. */
	/** pmr_worker_conf.driver of every worker; NULL: the default. */
	const char *driver;
	/**
	 * Make what pair i's two queues need to reach each other
	 * (env->pair[i] holds a unique name for it). 0 or -errno.
	 */
	int (*link_up)(struct pmr_test_env *env, unsigned int i);
	/** Undo link_up, after both workers of pair i are gone. */
	void (*link_down)(struct pmr_test_env *env, unsigned int i);
	/**
	 * Write the devargs of pair i's server (end 0) or client (end 1)
	 * worker to buf; the test's own devargs, if any, follow after a
	 * comma. 0, or -ENOSPC if size is too small.
	 */
	int (*devargs)(const struct pmr_test_env *env, unsigned int i,
			unsigned int end, char *buf, size_t size);
};

/** The set-up PMR_TEST_SETUP names (fails the test if none). */
const struct pmr_test_setup *pmr_test_setup_get(void);

/**
 * Is the set-up eth over ring pairs? (Then env.port_a and port_b are the
 * pairs' ports, and eth's devargs, such as "mtu=", may be given.)
 */
bool pmr_test_setup_is_eth(void);

/*
 * PMR_TEST_RDV_THRESHOLD: a worker's rdv_threshold when its test's conf
 * leaves it 0 ("off": PMR_RDV_OFF; a number; unset: 0, the default).
 */
uint32_t pmr_test_rdv_threshold(void);

#ifdef PMR_TEST_SETUP_VERBS
extern const struct pmr_test_setup pmr_test_setup_verbs;
#endif
#ifdef PMR_TEST_SETUP_VERBS_HCA
extern const struct pmr_test_setup pmr_test_setup_verbs_hca;
#endif

struct pmr_test_env {
	struct pmr_nexus *nx;
	const struct pmr_test_setup *setup;
	char pair[PMR_TEST_MAX_PAIRS][16];
	/* eth set-up: the ring pair's ports (server's, client's). */
	uint16_t port_a[PMR_TEST_MAX_PAIRS], port_b[PMR_TEST_MAX_PAIRS];
	struct pmr_worker *srv[PMR_TEST_MAX_PAIRS];	/* polled if set */
	struct pmr_worker *cli[PMR_TEST_MAX_PAIRS];	/* polled if set */
	unsigned int nb_pairs;
};

/** Registers the test's handlers on a new nexus. */
typedef void (*pmr_test_handlers_t)(struct pmr_nexus *nx);

/**
 * Bring up a nexus and nb_pairs server/client pairs on the set-up
 * pmr_test_setup_get() names. srv and cli give the workers' settings
 * (worker_id and devargs are filled in, the set-up's devargs first, then
 * theirs; driver, if NULL, is the set-up's; NULL: defaults with 1024
 * single-packet msgbufs).
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
