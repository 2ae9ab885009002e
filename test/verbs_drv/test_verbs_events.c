/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Device async events (issue 16) on the software HCA model: the model
 * raises them on its async fd; the nexus thread reads and acknowledges
 * them and hands them to the workers concerned, whose event_cb sees them
 * inside pmr_worker_poll(). Two workers on hca0 share the device: port,
 * GID and device fatal events reach both, a QP (UD or RC) forced to ERR
 * or a CQ error only its owner (a UD QP's failure told once, by its
 * driver, which recovers it). Nothing hangs on teardown (an
 * unacknowledged event would make the model's destroy fail with EBUSY,
 * and the device stay open), and the nexus's and workers' counters say
 * what was read.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>

#include "pmr_hca.h"
#include "pmr_nexus.h"
#include "pmr_rpc.h"
#include "pmr_test.h"
#include "pmr_test_rpc.h"
#include "pmr_transport_rc.h"
#include "verbs_private.h"

#define EV_MAX 32

/* What one worker's event_cb saw. */
struct seen {
	unsigned int n;
	struct pmr_worker_event ev[EV_MAX];
};

static void
on_event(struct pmr_worker *w, const struct pmr_worker_event *ev, void *arg)
{
	struct seen *s = arg;

	assert_non_null(w);
	if (s->n < EV_MAX)
		s->ev[s->n] = *ev;
	s->n++;
}

struct env {
	struct pmr_nexus *nx;
	struct pmr_worker *w[2];
	struct seen seen[2];
};

static void
env_up(struct env *e)
{
	struct pmr_worker_conf conf;
	unsigned int i;

	memset(e, 0, sizeof(*e));
	e->nx = pmr_nexus_create("127.0.0.1:0", NULL);
	assert_non_null(e->nx);
	for (i = 0; i < 2; i++) {
		memset(&conf, 0, sizeof(conf));
		conf.worker_id = (uint16_t)i;
		conf.driver = "verbs";
		conf.devargs = "dev=hca0";
		conf.nb_msgbufs = 256;
		conf.nb_mid_msgbufs = 4;
		conf.nb_large_msgbufs = 1;
		conf.max_msg_size = 1 << 20;
		conf.event_cb = on_event;
		conf.event_arg = &e->seen[i];
		e->w[i] = pmr_worker_create(e->nx, &conf);
		if (e->w[i] == NULL)
			fail_msg("worker on verbs: %s",
				rte_strerror(rte_errno));
	}
}

/* Poll both workers until each saw at least want[i] events. */
static void
env_wait(struct env *e, const unsigned int want[2])
{
	uint64_t deadline = pmr_test_now_ns() + PMR_TEST_WAIT_NS;

	while ((e->seen[0].n < want[0] || e->seen[1].n < want[1]) &&
	       pmr_test_now_ns() < deadline) {
		pmr_worker_poll(e->w[0]);
		pmr_worker_poll(e->w[1]);
	}
	if (e->seen[0].n < want[0] || e->seen[1].n < want[1])
		fail_msg("events seen %u and %u, wanted %u and %u",
			e->seen[0].n, e->seen[1].n, want[0], want[1]);
}

/* Poll both workers until cond holds (or fail). */
#define POLL_EVENTS(e, cond) do { \
	uint64_t dl_ = pmr_test_now_ns() + PMR_TEST_WAIT_NS; \
	while (!(cond) && pmr_test_now_ns() < dl_) { \
		pmr_worker_poll((e)->w[0]); \
		pmr_worker_poll((e)->w[1]); \
	} \
	if (!(cond)) \
		fail_msg("not seen: %s", #cond); \
} while (0)

/* Poll a while longer: nothing more may come. */
static void
env_settle(struct env *e, const unsigned int want[2])
{
	unsigned int i;

	for (i = 0; i < 2000; i++) {
		pmr_worker_poll(e->w[0]);
		pmr_worker_poll(e->w[1]);
		if ((i % 100) == 0)
			rte_delay_us_sleep(500);
	}
	assert_int_equal(e->seen[0].n, want[0]);
	assert_int_equal(e->seen[1].n, want[1]);
}

static struct pmr_nexus_stats
nstats(struct env *e)
{
	struct pmr_nexus_stats st;

	assert_int_equal(pmr_nexus_stats_get(e->nx, &st), 0);
	return st;
}

static uint64_t
wstat_events(struct pmr_worker *w)
{
	struct pmr_worker_stats st;

	assert_int_equal(pmr_worker_stats_get(w, &st), 0);
	return st.dev_events;
}

/* Destroy everything; the device closes (every event acknowledged). */
static void
env_down(struct env *e)
{
	struct pmr_hca_objects o;

	pmr_worker_destroy(e->w[0]);
	pmr_worker_destroy(e->w[1]);
	assert_int_equal(pmr_nexus_destroy(e->nx), 0);
	assert_int_equal(pmr_hca_objects_get("hca0", &o), 0);
	assert_int_equal(o.contexts, 0);
	assert_int_equal(o.qps, 0);
	assert_int_equal(o.cqs, 0);
}

static void
test_port_down_up(void **state)
{
	const unsigned int two[2] = { 2, 2 };
	struct pmr_nexus_stats st;
	struct env e;
	unsigned int i;

	(void)state;
	env_up(&e);
	assert_int_equal(pmr_hca_port_set_state("hca0", 1, IBV_PORT_DOWN), 0);
	assert_int_equal(pmr_hca_port_set_state("hca0", 1, IBV_PORT_ACTIVE),
			0);
	env_wait(&e, two);
	env_settle(&e, two);
	for (i = 0; i < 2; i++) {
		assert_int_equal(e.seen[i].ev[0].type,
				PMR_WORKER_EV_PORT_DOWN);
		assert_int_equal(e.seen[i].ev[0].port, 1);
		assert_int_equal(e.seen[i].ev[1].type, PMR_WORKER_EV_PORT_UP);
		assert_int_equal(e.seen[i].ev[1].port, 1);
		assert_int_equal(wstat_events(e.w[i]), 2);
	}
	/* The device's events read once, for both workers. */
	st = nstats(&e);
	assert_int_equal(st.dev_events, 2);
	assert_int_equal(st.dev_events_port, 2);
	assert_int_equal(st.dev_events_orphan, 0);
	env_down(&e);
}

static void
test_gid_change(void **state)
{
	const unsigned int two[2] = { 2, 2 };
	struct pmr_hca_gid_config g;
	struct pmr_nexus_stats st;
	struct env e;
	unsigned int i;

	(void)state;
	env_up(&e);
	memset(&g, 0, sizeof(g));
	g.type = PMR_HCA_GID_ROCE_V2;
	/* ::ffff:10.99.0.1, an address nobody else has. */
	g.gid.raw[10] = 0xff;
	g.gid.raw[11] = 0xff;
	g.gid.raw[12] = 10;
	g.gid.raw[13] = 99;
	g.gid.raw[15] = 1;
	assert_int_equal(pmr_hca_gid_set("hca0", 1, PMR_HCA_GID_TABLE - 1,
			&g), 0);
	g.type = PMR_HCA_GID_EMPTY;
	assert_int_equal(pmr_hca_gid_set("hca0", 1, PMR_HCA_GID_TABLE - 1,
			&g), 0);
	env_wait(&e, two);
	env_settle(&e, two);
	for (i = 0; i < 2; i++) {
		assert_int_equal(e.seen[i].ev[0].type,
				PMR_WORKER_EV_GID_CHANGE);
		assert_int_equal(e.seen[i].ev[0].port, 1);
		assert_int_equal(e.seen[i].ev[1].type,
				PMR_WORKER_EV_GID_CHANGE);
	}
	st = nstats(&e);
	assert_int_equal(st.dev_events, 2);
	assert_int_equal(st.dev_events_gid, 2);
	env_down(&e);
}

/*
 * Worker 0's UD QP forced to ERR: worker 0 alone is told, once, that it
 * failed (the device's QP event and the driver's flushed completions are
 * one failure), then that its driver recovered it.
 */
static void
test_qp_fatal(void **state)
{
	const unsigned int want[2] = { 2, 0 };
	struct verbs_queue *vq;
	struct pmr_nexus_stats st;
	struct env e;

	(void)state;
	env_up(&e);
	vq = verbs_queue(pmr_worker_queue(e.w[0]));
	assert_int_equal(pmr_hca_qp_force_err(vq->qp), 0);
	env_wait(&e, want);
	/* The device's event reaches the worker too (counted). */
	POLL_EVENTS(&e, wstat_events(e.w[0]) == 1);
	env_settle(&e, want);
	assert_int_equal(e.seen[0].ev[0].type, PMR_WORKER_EV_QP_FATAL);
	assert_int_equal(e.seen[0].ev[0].port, 0);
	assert_int_equal(e.seen[0].ev[1].type, PMR_WORKER_EV_QP_RECOVERED);
	assert_int_equal(wstat_events(e.w[0]), 1);
	assert_int_equal(wstat_events(e.w[1]), 0);
	st = nstats(&e);
	assert_int_equal(st.dev_events, 1);
	assert_int_equal(st.dev_events_qp, 1);
	assert_int_equal(st.dev_events_orphan, 0);
	env_down(&e);
}

/*
 * An RC QP of worker 1's queue forced to ERR: mapped to it (the nexus's
 * RC hook counts it, dev_events_rc) and told to no worker (its operations
 * fail on their own); the QP's destroy does not find an unacknowledged
 * event (EBUSY on the model, a hang on rdma-core).
 */
static void
test_rc_qp_fatal(void **state)
{
	const unsigned int none[2] = { 0, 0 };
	struct pmr_transport_rc_attr attr;
	struct pmr_transport_queue *q;
	struct pmr_transport_rc *rc;
	struct pmr_nexus_stats st;
	struct env e;

	(void)state;
	env_up(&e);
	q = pmr_worker_queue(e.w[1]);
	memset(&attr, 0, sizeof(attr));
	rc = pmr_transport_rc_create(q, &attr);
	if (rc == NULL)
		fail_msg("rc_create: %s", rte_strerror(rte_errno));
	assert_int_equal(pmr_hca_qp_force_err(((struct verbs_rc *)rc)->qp),
			0);
	POLL_EVENTS(&e, nstats(&e).dev_events == 1);
	env_settle(&e, none);
	st = nstats(&e);
	assert_int_equal(st.dev_events_qp, 1);
	assert_int_equal(st.dev_events_rc, 1);
	assert_int_equal(st.dev_events_orphan, 0);
	assert_int_equal(pmr_transport_rc_destroy(q, rc), 0);
	env_down(&e);
}

/* A CQ error on worker 0's send CQ: worker 0 alone is told. */
static void
test_cq_err(void **state)
{
	const unsigned int want[2] = { 1, 0 };
	struct ibv_async_event ae;
	struct pmr_nexus_stats st;
	struct env e;

	(void)state;
	env_up(&e);
	memset(&ae, 0, sizeof(ae));
	ae.event_type = IBV_EVENT_CQ_ERR;
	ae.element.cq = verbs_queue(pmr_worker_queue(e.w[0]))->scq;
	assert_int_equal(pmr_hca_event_raise("hca0", &ae), 0);
	env_wait(&e, want);
	env_settle(&e, want);
	assert_int_equal(e.seen[0].ev[0].type, PMR_WORKER_EV_CQ_ERR);
	st = nstats(&e);
	assert_int_equal(st.dev_events_cq, 1);
	assert_int_equal(st.dev_events_orphan, 0);
	env_down(&e);
}

/* How many of s's events are of type t. */
static unsigned int
seen_count(const struct seen *s, enum pmr_worker_event_type t)
{
	unsigned int i, n = 0;

	for (i = 0; i < s->n && i < EV_MAX; i++)
		n += s->ev[i].type == t;
	return n;
}

/*
 * Last: the device stays dead until pmr_hca_reset(). Every QP of the
 * device went to ERR too; the model raises no QP event for that (only
 * DEVICE_FATAL), but each worker's driver finds its own QP in ERR and
 * cannot recover it (the dead device refuses RESET to RTS): each worker
 * sees the device's event, and its QP failing then not recovered, in
 * whichever order the nexus and its driver got there first.
 */
static void
test_device_fatal(void **state)
{
	const unsigned int want[2] = { 3, 3 };
	struct pmr_worker_stats ws;
	struct pmr_nexus_stats st;
	struct env e;
	unsigned int i;

	(void)state;
	env_up(&e);
	assert_int_equal(pmr_hca_device_fatal("hca0"), 0);
	env_wait(&e, want);
	env_settle(&e, want);
	for (i = 0; i < 2; i++) {
		assert_int_equal(seen_count(&e.seen[i],
				PMR_WORKER_EV_DEVICE_FATAL), 1);
		assert_int_equal(seen_count(&e.seen[i],
				PMR_WORKER_EV_QP_FATAL), 1);
		assert_int_equal(seen_count(&e.seen[i],
				PMR_WORKER_EV_QP_RECOVERY_FAILED), 1);
		assert_int_equal(pmr_worker_stats_get(e.w[i], &ws), 0);
		assert_int_equal(ws.qp_fatal, 1);
		assert_int_equal(ws.qp_recovered, 0);
		assert_int_equal(ws.qp_recovery_failed, 1);
	}
	st = nstats(&e);
	assert_int_equal(st.dev_events_fatal, 1);
	env_down(&e);
	assert_int_equal(pmr_hca_reset(), 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port_down_up),
		cmocka_unit_test(test_gid_change),
		cmocka_unit_test(test_qp_fatal),
		cmocka_unit_test(test_rc_qp_fatal),
		cmocka_unit_test(test_cq_err),
		cmocka_unit_test(test_device_fatal),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("verbs_events", tests,
		pmr_test_eal_setup, pmr_test_eal_teardown);
}
