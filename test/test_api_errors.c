/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The error convention of doc/api.md, function by function, over a real
 * nexus and server/client workers on a ring pair: each public function
 * that checks its arguments is called with bad ones (NULL objects, bad
 * session numbers, oversize msgbufs, stale request references, a taken
 * worker id, ...) and must fail as its Doxygen says: a pointer is NULL
 * with rte_errno set to the documented value (cleared before each call),
 * an int is the documented negative errno. Every pool comes back full.
 *
 * Run one case with a cmocka filter: test_api_errors 'nexus'.
 */

#include "pmr_test_rpc.h"

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_mempool.h>

#include "pmr_msgbuf.h"
#include "pmr_nexus.h"
#include "pmr_rpc.h"
#include "pmr_transport.h"

#define T_ECHO 1	/* echoes the request */
#define T_BAD 2		/* misuses its request: see bad_handler() */

static struct pmr_test_env env;

/* A pointer call must give NULL with rte_errno err (cleared first). */
#define ASSERT_NULL_ERRNO(call, err) do { \
	rte_errno = 0; \
	assert_null(call); \
	assert_int_equal(rte_errno, (err)); \
} while (0)

struct result {
	bool done;
	enum pmr_status status;
};

static void
on_resp(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct result *r = tag;

	(void)w;
	r->done = true;
	r->status = resp->status;
}

static void
echo_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_msgbuf *resp = pmr_req_resp_buf(req);

	(void)arg;
	assert_non_null(resp);
	memcpy(resp->data, pmr_req_data(req), pmr_req_len(req));
	assert_int_equal(pmr_msgbuf_resize(resp, pmr_req_len(req)), 0);
	assert_int_equal(pmr_respond(req, resp), 0);
}

/* What bad_handler() saw, checked by the test after the round trip. */
static int bad_ran;

/*
 * Answers its request with a bad status (-EINVAL, the client gets
 * REMOTE_ERROR), then uses the stale reference: every call refuses it as
 * documented.
 */
static void
bad_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_req_ref zero;

	(void)arg;
	memset(&zero, 0, sizeof(zero));
	assert_int_equal(pmr_respond_error(req, PMR_OK), -EINVAL);
	/* Answered: req is stale now. */
	assert_int_equal(pmr_respond(req, NULL), -ESTALE);
	assert_int_equal(pmr_respond_error(req, PMR_E_NOMEM), -ESTALE);
	ASSERT_NULL_ERRNO(pmr_req_resp_buf(req), ESTALE);
	assert_null(pmr_req_data(req));
	assert_int_equal(pmr_req_len(req), 0);
	assert_int_equal(pmr_req_type(req), 0);
	assert_null(pmr_req_worker(req));
	/* A reference never given to a handler. */
	assert_int_equal(pmr_respond(zero, NULL), -EINVAL);
	assert_int_equal(pmr_respond_error(zero, PMR_E_NOMEM), -EINVAL);
	bad_ran++;
}

static void
handlers(struct pmr_nexus *nx)
{
	assert_int_equal(pmr_nexus_register_handler(nx, T_ECHO, echo_handler,
			NULL), 0);
	assert_int_equal(pmr_nexus_register_handler(nx, T_BAD, bad_handler,
			NULL), 0);
}

static int
setup(void **state)
{
	/* A small client: 4 sessions, 4 requests, 4 KiB messages. */
	const struct pmr_worker_conf cli = {
		.nb_msgbufs = 256,
		.max_sessions = 4,
		.max_requests = 4,
		.max_msg_size = 4096,
	};

	(void)state;
	bad_ran = 0;
	pmr_test_env_up(&env, 1, handlers, NULL, &cli);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	pmr_test_env_down(&env);
	return 0;
}

/* Open a session from the client to server worker 0; it must come up. */
static int
connect_ok(void)
{
	struct pmr_test_sess_ev e;
	int s = pmr_test_connect(&env, env.cli[0], 0, &e);

	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	return s;
}

static void
msgbuf(void **state)
{
	char name[RTE_MEMPOOL_NAMESIZE + 8];
	struct rte_mempool *mp, *plain;
	struct pmr_msgbuf *mbs[4], *mb;

	(void)state;
	ASSERT_NULL_ERRNO(pmr_msgbuf_pool_create(NULL, 4, 0, 64, 0,
			SOCKET_ID_ANY), EINVAL);
	ASSERT_NULL_ERRNO(pmr_msgbuf_pool_create("api_mb", 0, 0, 64, 0,
			SOCKET_ID_ANY), EINVAL);
	ASSERT_NULL_ERRNO(pmr_msgbuf_pool_create("api_mb", 4, 0, 0, 0,
			SOCKET_ID_ANY), EINVAL);
	ASSERT_NULL_ERRNO(pmr_msgbuf_pool_create("api_mb", 4, 8, 64, 0,
			SOCKET_ID_ANY), EINVAL);
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	ASSERT_NULL_ERRNO(pmr_msgbuf_pool_create(name, 4, 0, 64, 0,
			SOCKET_ID_ANY), ENAMETOOLONG);
	mp = pmr_msgbuf_pool_create("api_mb", 4, 0, 64, 0, SOCKET_ID_ANY);
	assert_non_null(mp);
	ASSERT_NULL_ERRNO(pmr_msgbuf_pool_create("api_mb", 4, 0, 64, 0,
			SOCKET_ID_ANY), EEXIST);

	/* Pointer: NULL and rte_errno; int: the negative errno. */
	ASSERT_NULL_ERRNO(pmr_msgbuf_alloc(mp, 65), EMSGSIZE);
	assert_int_equal(pmr_msgbuf_alloc_bulk(mp, mbs, 4, 65), -EMSGSIZE);
	assert_int_equal(pmr_msgbuf_alloc_bulk(mp, mbs, 4, 64), 0);
	ASSERT_NULL_ERRNO(pmr_msgbuf_alloc(mp, 1), ENOBUFS);
	assert_int_equal(pmr_msgbuf_alloc_bulk(mp, mbs, 1, 1), -ENOBUFS);
	assert_int_equal(pmr_msgbuf_resize(mbs[0], 65), -EMSGSIZE);
	assert_int_equal(pmr_msgbuf_pool_free(mp), -EBUSY);
	assert_int_equal(pmr_msgbuf_free(mbs[1]), 0);
	mb = pmr_msgbuf_alloc(mp, 64);
	assert_non_null(mb);
	mbs[1] = mb;
	for (unsigned int i = 0; i < 4; i++)
		assert_int_equal(pmr_msgbuf_free(mbs[i]), 0);
	assert_int_equal(pmr_msgbuf_free(NULL), 0);

	/* Not a msgbuf pool. */
	plain = rte_mempool_create("api_plain", 4, 64, 0, 0, NULL, NULL,
			NULL, NULL, SOCKET_ID_ANY, 0);
	assert_non_null(plain);
	assert_int_equal(pmr_msgbuf_pool_free(NULL), -EINVAL);
	assert_int_equal(pmr_msgbuf_pool_free(plain), -EINVAL);
	assert_false(pmr_msgbuf_pool_check(NULL));
	assert_false(pmr_msgbuf_pool_check(plain));
	assert_int_equal(pmr_msgbuf_pool_capacity(plain), 0);
	assert_int_equal(pmr_msgbuf_pool_headroom(plain), 0);
	assert_false(pmr_msgbuf_pool_is_large(plain));
	assert_int_equal(pmr_msgbuf_pool_free_refused(plain), 0);
	assert_int_equal(pmr_msgbuf_pool_chunk_walk(plain, NULL, NULL),
			-EINVAL);
	assert_int_equal(pmr_msgbuf_pool_chunk_walk(mp, NULL, NULL), -EINVAL);
	rte_mempool_free(plain);
	assert_int_equal(pmr_msgbuf_pool_free(mp), 0);
}

static void
transport(void **state)
{
	const struct pmr_transport_driver *eth;
	struct pmr_transport_queue *q = pmr_worker_queue(env.srv[0]);
	struct pmr_transport_caps caps;
	struct pmr_transport_addr addr;
	struct pmr_transport_stats st;
	struct rte_mempool *plain;
	char args[64];

	(void)state;
	ASSERT_NULL_ERRNO(pmr_transport_find("no-such-driver"), ENOENT);
	ASSERT_NULL_ERRNO(pmr_transport_find(NULL), ENOENT);
	eth = pmr_transport_find("eth");
	assert_non_null(eth);
	/* Accessors: a neutral value, rte_errno left alone. */
	rte_errno = 0;
	assert_null(pmr_transport_get(pmr_transport_count()));
	assert_null(pmr_transport_name(NULL));
	assert_int_equal(rte_errno, 0);
	assert_int_equal(pmr_transport_caps_get(NULL, &caps), -EINVAL);
	assert_int_equal(pmr_transport_caps_get(eth, NULL), -EINVAL);

	ASSERT_NULL_ERRNO(pmr_transport_queue_create(NULL, NULL,
			SOCKET_ID_ANY), EINVAL);
	ASSERT_NULL_ERRNO(pmr_transport_queue_create(eth, "no_such_key=1",
			SOCKET_ID_ANY), EINVAL);
	ASSERT_NULL_ERRNO(pmr_transport_queue_create(eth,
			"port=200,ip=10.9.0.1", SOCKET_ID_ANY), ENODEV);
	/* The server worker's port has its queue. */
	snprintf(args, sizeof(args), "port=%u,ip=10.9.0.1", env.port_a[0]);
	ASSERT_NULL_ERRNO(pmr_transport_queue_create(eth, args, SOCKET_ID_ANY),
			EBUSY);
	assert_int_equal(pmr_transport_queue_addr(NULL, &addr), -EINVAL);
	assert_int_equal(pmr_transport_queue_addr(q, NULL), -EINVAL);
	assert_int_equal(pmr_transport_queue_addr(q, &addr), 0);
	ASSERT_NULL_ERRNO(pmr_transport_peer_create(NULL, &addr), EINVAL);
	ASSERT_NULL_ERRNO(pmr_transport_peer_create(q, NULL), EINVAL);
	addr.len++;
	ASSERT_NULL_ERRNO(pmr_transport_peer_create(q, &addr), EINVAL);

	plain = rte_mempool_create("api_plain2", 4, 64, 0, 0, NULL, NULL,
			NULL, NULL, SOCKET_ID_ANY, 0);
	assert_non_null(plain);
	assert_int_equal(pmr_transport_mem_register(NULL,
			pmr_worker_pool(env.srv[0], 0)), -EINVAL);
	assert_int_equal(pmr_transport_mem_register(q, plain), -EINVAL);
	assert_int_equal(pmr_transport_mem_unregister(NULL,
			pmr_worker_pool(env.srv[0], 0)), -EINVAL);
	assert_int_equal(pmr_transport_mem_unregister(q, plain), -EINVAL);
	{
		struct pmr_transport_mkey key;

		assert_int_equal(pmr_transport_mem_key(NULL, &key, 1, &key),
				-EINVAL);
		assert_int_equal(pmr_transport_mem_key(q, NULL, 1, &key),
				-EINVAL);
		assert_int_equal(pmr_transport_mem_key(q, &key, 1, NULL),
				-EINVAL);
	}
	assert_int_equal(pmr_worker_pool_register(NULL,
			pmr_worker_pool(env.srv[0], 0)), -EINVAL);
	assert_int_equal(pmr_worker_pool_register(env.srv[0], plain),
			-EINVAL);
	assert_int_equal(pmr_worker_pool_register(env.srv[0], NULL), -EINVAL);
	assert_int_equal(pmr_worker_pool_unregister(NULL,
			pmr_worker_pool(env.srv[0], 0)), -EINVAL);
	assert_int_equal(pmr_worker_pool_unregister(env.srv[0], plain),
			-EINVAL);
	/* The worker's own pools stay registered while it lives. */
	assert_int_equal(pmr_worker_pool_unregister(env.srv[0],
			pmr_worker_pool(env.srv[0], 0)), -EINVAL);
	rte_mempool_free(plain);
	assert_int_equal(pmr_transport_tx_flush(NULL), -EINVAL);
	assert_int_equal(pmr_transport_stats_get(NULL, &st), -EINVAL);
	assert_int_equal(pmr_transport_stats_get(q, NULL), -EINVAL);
	assert_int_equal(pmr_transport_stats_reset(NULL), -EINVAL);
	assert_int_equal(pmr_transport_stats_reset(q), 0);
	assert_int_equal(pmr_transport_xstats_get(NULL, NULL, 0), -EINVAL);
	assert_int_equal(pmr_transport_xstats_get(q, NULL, 1), -EINVAL);
	assert_true(pmr_transport_xstats_get(q, NULL, 0) > 0);
}

static void
nexus(void **state)
{
	struct pmr_nexus_conf conf = {
		.connect_timeout_ms = 100,
		.connect_retry_ms = 200,
	};
	struct pmr_nexus_stats st;

	(void)state;
	ASSERT_NULL_ERRNO(pmr_nexus_create(NULL, NULL), EINVAL);
	ASSERT_NULL_ERRNO(pmr_nexus_create("no port", NULL), EINVAL);
	ASSERT_NULL_ERRNO(pmr_nexus_create("127.0.0.1:0", &conf), EINVAL);
	ASSERT_NULL_ERRNO(pmr_nexus_create(pmr_nexus_uri(env.nx), NULL),
			EADDRINUSE);
	/* TEST-NET-1: never a local address. */
	ASSERT_NULL_ERRNO(pmr_nexus_create("192.0.2.1:0", NULL),
			EADDRNOTAVAIL);

	rte_errno = 0;
	assert_null(pmr_nexus_uri(NULL));
	assert_int_equal(rte_errno, 0);
	assert_int_equal(pmr_nexus_destroy(NULL), -EINVAL);
	assert_int_equal(pmr_nexus_destroy(env.nx), -EBUSY);
	assert_int_equal(pmr_nexus_register_handler(NULL, 9, echo_handler,
			NULL), -EINVAL);
	assert_int_equal(pmr_nexus_register_handler(env.nx, 9, NULL, NULL),
			-EINVAL);
	/* Workers exist: handlers are closed. */
	assert_int_equal(pmr_nexus_register_handler(env.nx, 9, echo_handler,
			NULL), -EBUSY);
	assert_int_equal(pmr_nexus_stats_get(NULL, &st), -EINVAL);
	assert_int_equal(pmr_nexus_stats_get(env.nx, NULL), -EINVAL);
	assert_int_equal(pmr_nexus_stats_get(env.nx, &st), 0);
}

/* A nexus of its own, no worker yet: a type registered twice. */
static void
nexus_handler_taken(void **state)
{
	struct pmr_nexus *nx = pmr_nexus_create("127.0.0.1:0", NULL);

	(void)state;
	assert_non_null(nx);
	assert_int_equal(pmr_nexus_register_handler(nx, 9, echo_handler,
			NULL), 0);
	assert_int_equal(pmr_nexus_register_handler(nx, 9, echo_handler,
			NULL), -EEXIST);
	assert_int_equal(pmr_nexus_destroy(nx), 0);
}

static void
worker(void **state)
{
	struct pmr_worker_conf conf = { .nb_msgbufs = 64 };
	struct pmr_worker_stats st;
	uint16_t pa, pb;
	uint32_t sid;
	char args[64];

	(void)state;
	assert_int_equal(pmr_faults_check(NULL), 0);
	assert_int_equal(pmr_faults_check(""), 0);
	assert_int_equal(pmr_faults_check("drop_tx=2"), -EINVAL);
	assert_int_equal(pmr_faults_check("nonsense=1"), -EINVAL);

	ASSERT_NULL_ERRNO(pmr_worker_create(NULL, &conf), EINVAL);
	ASSERT_NULL_ERRNO(pmr_worker_create(env.nx, NULL), EINVAL);
	assert_int_equal(pmr_test_ring_pair("api_rp", &pa, &pb), 0);
	snprintf(args, sizeof(args), "port=%u,ip=10.9.0.1", pa);
	conf.devargs = args;
	conf.worker_id = 5;
	conf.max_msg_size = (64u << 20) + 1;
	ASSERT_NULL_ERRNO(pmr_worker_create(env.nx, &conf), EINVAL);
	conf.max_msg_size = 0;
	conf.session_window = 1025;
	ASSERT_NULL_ERRNO(pmr_worker_create(env.nx, &conf), EINVAL);
	conf.session_window = 0;
	conf.faults = "drop_tx=2";
	ASSERT_NULL_ERRNO(pmr_worker_create(env.nx, &conf), EINVAL);
	conf.faults = NULL;
	conf.driver = "no-such-driver";
	ASSERT_NULL_ERRNO(pmr_worker_create(env.nx, &conf), ENOENT);
	conf.driver = NULL;
	conf.worker_id = 0;		/* the server's */
	ASSERT_NULL_ERRNO(pmr_worker_create(env.nx, &conf), EEXIST);
	pmr_test_ring_pair_free("api_rp", pa, pb);

	assert_int_equal(pmr_worker_destroy(NULL), -EINVAL);
	assert_int_equal(pmr_worker_stats_get(NULL, &st), -EINVAL);
	assert_int_equal(pmr_worker_stats_get(env.srv[0], NULL), -EINVAL);
	assert_int_equal(pmr_worker_stats_get(env.srv[0], &st), 0);
	assert_int_equal(pmr_worker_service_register(NULL, &sid), -EINVAL);
	assert_int_equal(pmr_worker_service_register(env.srv[0], NULL),
			-EINVAL);

	rte_errno = 0;
	assert_null(pmr_worker_pool(env.cli[0], 3));
	assert_int_equal(rte_errno, 0);
	/* The largest pool holds 64 KiB (max_msg_size 4 KiB is less). */
	ASSERT_NULL_ERRNO(pmr_worker_msgbuf_alloc(env.cli[0], 65537),
			EMSGSIZE);
	assert_string_equal(pmr_status_str(PMR_STATUS_MAX), "UNKNOWN");
	assert_null(pmr_worker_drop_name(1000));
}

/* Sessions the server worker has (any state but FREE). */
static unsigned int
srv_sessions(void)
{
	unsigned int n = 0;
	int sn;

	for (sn = 0; sn < 256; sn++)	/* the default max_sessions */
		n += pmr_session_state(env.srv[0], sn) != PMR_SESSION_FREE;
	return n;
}

static void
session(void **state)
{
	char uri[PMR_URI_MAX + 1];
	struct pmr_test_sess_ev ev[4];
	int s[4], i;

	(void)state;
	assert_int_equal(pmr_session_create(NULL, pmr_nexus_uri(env.nx), 0,
			NULL, NULL), -EINVAL);
	assert_int_equal(pmr_session_create(env.cli[0], NULL, 0, NULL, NULL),
			-EINVAL);
	memset(uri, '1', sizeof(uri) - 1);
	uri[sizeof(uri) - 1] = '\0';
	assert_int_equal(pmr_session_create(env.cli[0], uri, 0, NULL, NULL),
			-EINVAL);

	/* max_sessions 4: the fifth is refused. */
	memset(ev, 0, sizeof(ev));
	for (i = 0; i < 4; i++) {
		s[i] = pmr_session_create(env.cli[0], pmr_nexus_uri(env.nx), 0,
				pmr_test_on_session, &ev[i]);
		assert_true(s[i] >= 0);
	}
	assert_int_equal(pmr_session_create(env.cli[0], pmr_nexus_uri(env.nx),
			0, NULL, NULL), -ENOSPC);
	PMR_TEST_POLL_UNTIL(&env, ev[0].count > 0 && ev[1].count > 0 &&
			ev[2].count > 0 && ev[3].count > 0);

	assert_int_equal(pmr_session_destroy(NULL, s[0]), -EINVAL);
	assert_int_equal(pmr_session_destroy(env.cli[0], -1), -EINVAL);
	assert_int_equal(pmr_session_destroy(env.cli[0], 4), -EINVAL);
	assert_int_equal(pmr_session_state(NULL, s[0]), PMR_SESSION_FREE);
	assert_int_equal(pmr_session_state(env.cli[0], -1), PMR_SESSION_FREE);
	for (i = 0; i < 4; i++) {
		assert_int_equal(ev[i].ev, PMR_SESSION_EV_CONNECTED);
		assert_int_equal(pmr_session_destroy(env.cli[0], s[i]), 0);
		/* Destroyed already. */
		assert_int_equal(pmr_session_destroy(env.cli[0], s[i]),
				-EINVAL);
		assert_int_equal(pmr_session_state(env.cli[0], s[i]),
				PMR_SESSION_FREE);
	}
	/* The server's sessions go when the client's close reaches it. */
	PMR_TEST_POLL_UNTIL(&env, srv_sessions() == 0);
}

static void
request(void **state)
{
	struct pmr_msgbuf *req, *big, *resp, *more[4];
	struct result r[5];
	struct pmr_req_handle h;
	int s, i;

	(void)state;
	s = connect_ok();
	req = pmr_worker_msgbuf_alloc(env.cli[0], 8);
	resp = pmr_worker_msgbuf_alloc(env.cli[0], 0);
	assert_non_null(req);
	assert_non_null(resp);
	memset(r, 0, sizeof(r));

	assert_int_equal(pmr_request(NULL, s, T_ECHO, req, on_resp, &r[0]),
			-EINVAL);
	assert_int_equal(pmr_request(env.cli[0], -1, T_ECHO, req, on_resp,
			&r[0]), -EINVAL);
	assert_int_equal(pmr_request(env.cli[0], 4, T_ECHO, req, on_resp,
			&r[0]), -EINVAL);
	assert_int_equal(pmr_request(env.cli[0], s, T_ECHO, NULL, on_resp,
			&r[0]), -EINVAL);
	assert_int_equal(pmr_request(env.cli[0], s, T_ECHO, req, NULL,
			&r[0]), -EINVAL);
	/* A server's session number is no client session of the server. */
	assert_int_equal(pmr_request(env.srv[0], 0, T_ECHO, req, on_resp,
			&r[0]), -EINVAL);
	assert_int_equal(pmr_request_start(env.cli[0], s, T_ECHO, req, NULL,
			&h), -EINVAL);
	assert_int_equal(pmr_request_start(env.cli[0], s, T_ECHO, req, resp,
			NULL), -EINVAL);

	/* Over max_msg_size (4 KiB), from the 64 KiB pool. */
	big = pmr_worker_msgbuf_alloc(env.cli[0], 8192);
	assert_non_null(big);
	assert_int_equal(pmr_request(env.cli[0], s, T_ECHO, big, on_resp,
			&r[0]), -EMSGSIZE);
	assert_int_equal(pmr_msgbuf_free(big), 0);

	/* Pending: the msgbuf is the worker's. */
	assert_int_equal(pmr_request(env.cli[0], s, T_ECHO, req, on_resp,
			&r[0]), 0);
	assert_int_equal(pmr_request(env.cli[0], s, T_ECHO, req, on_resp,
			&r[1]), -EBUSY);
	assert_int_equal(pmr_msgbuf_free(req), -EBUSY);
	/* max_requests 4: the fifth pending one is refused. */
	for (i = 1; i < 4; i++) {
		more[i] = pmr_worker_msgbuf_alloc(env.cli[0], 8);
		assert_non_null(more[i]);
		assert_int_equal(pmr_request(env.cli[0], s, T_ECHO, more[i],
				on_resp, &r[i]), 0);
	}
	more[0] = pmr_worker_msgbuf_alloc(env.cli[0], 8);
	assert_non_null(more[0]);
	assert_int_equal(pmr_request(env.cli[0], s, T_ECHO, more[0], on_resp,
			&r[4]), -ENOBUFS);
	PMR_TEST_POLL_UNTIL(&env, r[0].done && r[1].done && r[2].done &&
			r[3].done);
	for (i = 0; i < 4; i++) {
		assert_int_equal(r[i].status, PMR_OK);
		assert_int_equal(pmr_msgbuf_free(more[i]), 0);
	}
	assert_false(r[4].done);
	assert_int_equal(pmr_msgbuf_free(req), 0);
	assert_int_equal(pmr_msgbuf_free(resp), 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

static void
handler(void **state)
{
	struct pmr_msgbuf *req;
	struct result r;
	int s;

	(void)state;
	s = connect_ok();
	req = pmr_worker_msgbuf_alloc(env.cli[0], 8);
	assert_non_null(req);
	memset(&r, 0, sizeof(r));
	assert_int_equal(pmr_request(env.cli[0], s, T_BAD, req, on_resp, &r),
			0);
	PMR_TEST_POLL_UNTIL(&env, r.done);
	assert_int_equal(bad_ran, 1);
	/* pmr_respond_error(req, PMR_OK) answered it nonetheless. */
	assert_int_equal(r.status, PMR_E_REMOTE_ERROR);
	assert_int_equal(pmr_msgbuf_free(req), 0);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(msgbuf, setup, teardown),
		cmocka_unit_test_setup_teardown(transport, setup, teardown),
		cmocka_unit_test_setup_teardown(nexus, setup, teardown),
		cmocka_unit_test(nexus_handler_taken),
		cmocka_unit_test_setup_teardown(worker, setup, teardown),
		cmocka_unit_test_setup_teardown(session, setup, teardown),
		cmocka_unit_test_setup_teardown(request, setup, teardown),
		cmocka_unit_test_setup_teardown(handler, setup, teardown),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("api_errors", tests,
			pmr_test_eal_setup, pmr_test_eal_teardown);
}
