/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Deadlines that grow with the bytes they wait for
 * (pmr_worker_conf.timeout_per_mib_ms, issue 26): a large request or
 * response whose transfer takes longer than req_timeout_ms, or than the
 * server's srv_state_timeout_ms, completes, where a fixed deadline sized
 * to a fast machine failed it (the VM suite's 8 MiB echo on rxe under
 * TCG). The transfer is made slow for certain, not by luck: one side is
 * not polled for STALL_MS, three times the fixed deadline, at the point
 * where that deadline runs. Each case checks the other way too: with
 * PMR_TIMEOUT_PER_MIB_NONE the same stall fails the request, so the
 * stall does hold the transfer up.
 *
 * An engine-suite executable: eth (datagrams) and the verbs model (the
 * large messages by READ at the default threshold).
 */

#include "pmr_test_rpc.h"

#include <string.h>

#include <rte_errno.h>

#include "pmr_msgbuf.h"
#include "pmr_nexus.h"
#include "pmr_rpc.h"
#include "pmr_rpc_stats.h"

#define T_SIZE 1	/* answers as many bytes as its first 4 say */

#define MIB (1u << 20)
#define FIXED_MS 100	/* the fixed deadlines of these workers */
#define STALL_MS 300
#define PER_MIB_MS 20000 /* 1 MiB: 20 s more, far over any machine's */

static struct pmr_test_env env;

/* What the continuation saw. */
struct call {
	int runs;
	enum pmr_status status;
	uint32_t len;
	bool bad;
};

static uint8_t
pattern(uint32_t size, uint32_t i)
{
	return (uint8_t)(size * 7 + i * 13 + (i >> 8));
}

static void
size_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_msgbuf *resp;
	uint32_t size, i;

	(void)arg;
	assert_true(pmr_req_len(req) >= sizeof(size));
	memcpy(&size, pmr_req_data(req), sizeof(size));
	resp = pmr_worker_msgbuf_alloc(pmr_req_worker(req), size);
	assert_non_null(resp);
	for (i = 0; i < size; i++)
		resp->data[i] = pattern(size, i);
	assert_int_equal(pmr_respond(req, resp), 0);
}

static void
handlers(struct pmr_nexus *nx)
{
	assert_int_equal(pmr_nexus_register_handler(nx, T_SIZE, size_handler,
			NULL), 0);
}

static void
on_resp(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct call *c = tag;
	uint32_t i;

	(void)w;
	c->runs++;
	c->status = resp->status;
	c->len = resp->len;
	if (resp->status == PMR_OK)
		for (i = 0; i < resp->len; i++)
			if (((const uint8_t *)resp->data)[i] !=
			    pattern(resp->len, i)) {
				c->bad = true;
				break;
			}
	pmr_msgbuf_free(resp->req);
}

/*
 * Workers whose fixed deadlines are FIXED_MS: the client's request
 * timeout (cli) or the server's state timeout (srv, the client's then
 * long), per_mib the allowance of both.
 */
static void
env_up(bool short_client, uint32_t per_mib)
{
	struct pmr_worker_conf srv = {
		.nb_msgbufs = 256,
		.srv_state_timeout_ms = short_client ? 0 : FIXED_MS,
		.req_timeout_ms = short_client ? FIXED_MS : 0,
		.timeout_per_mib_ms = per_mib,
	};
	struct pmr_worker_conf cli = {
		.nb_msgbufs = 256,
		.req_timeout_ms = short_client ? FIXED_MS : 60000,
		.timeout_per_mib_ms = per_mib,
	};

	pmr_test_env_up(&env, 1, handlers, &srv, &cli);
}

static int
teardown(void **state)
{
	(void)state;
	pmr_test_env_down(&env);
	return 0;
}

/* Poll w alone for ms: its peer stands still. */
static void
poll_alone(struct pmr_worker *w, uint64_t ms)
{
	uint64_t end = pmr_test_now_ns() + ms * 1000000;

	while (pmr_test_now_ns() < end)
		pmr_worker_poll(w);
}

/* Poll both until w counted more than base packets received. */
static void
poll_until_rx(struct pmr_worker *w, uint64_t base)
{
	struct pmr_worker_stats st;

	PMR_TEST_POLL_UNTIL(&env, (pmr_worker_stats_get(w, &st),
			st.rx_pkts + st.rdv_descs_received > base));
}

static uint64_t
rx_of(struct pmr_worker *w)
{
	struct pmr_worker_stats st;

	pmr_worker_stats_get(w, &st);
	return st.rx_pkts + st.rdv_descs_received;
}

/* A request of req_len bytes asking for resp_len. */
static void
call_start(int s, uint32_t req_len, uint32_t resp_len, struct call *c)
{
	struct pmr_msgbuf *req = pmr_worker_msgbuf_alloc(env.cli[0],
			req_len);

	assert_non_null(req);
	memset(req->data, 0x5a, req_len);
	memcpy(req->data, &resp_len, sizeof(resp_len));
	memset(c, 0, sizeof(*c));
	assert_int_equal(pmr_request(env.cli[0], s, T_SIZE, req, on_resp, c),
			0);
}

/*
 * Open the session and warm its path up with a large call of a long
 * deadline of its own: the first one may set up what the measured calls
 * must not pay for in their FIXED_MS (RC QPs the nexus makes on first
 * use, say).
 */
static int
connect_warm(void)
{
	/* The session's callback keeps it: it outlives this call. */
	static struct pmr_test_sess_ev e;
	struct pmr_msgbuf *req;
	uint32_t len = MIB;
	struct call c;
	int s;

	s = pmr_test_connect(&env, env.cli[0], 0, &e);
	assert_int_equal(e.ev, PMR_SESSION_EV_CONNECTED);
	req = pmr_worker_msgbuf_alloc(env.cli[0], MIB);
	assert_non_null(req);
	memcpy(req->data, &len, sizeof(len));
	memset(&c, 0, sizeof(c));
	assert_int_equal(pmr_request_timeout(env.cli[0], s, T_SIZE, req,
			on_resp, &c, 60000), 0);
	PMR_TEST_POLL_UNTIL(&env, c.runs == 1);
	assert_int_equal(c.status, PMR_OK);
	assert_false(c.bad);
	return s;
}

/* Wait for c; with or without an allowance, the status it must have. */
static void
call_end(struct call *c, uint32_t resp_len, bool allowance)
{
	PMR_TEST_POLL_UNTIL(&env, c->runs == 1);
	if (allowance) {
		assert_int_equal(c->status, PMR_OK);
		assert_int_equal(c->len, resp_len);
		assert_false(c->bad);
	} else {
		assert_int_equal(c->status, PMR_E_TIMEOUT);
	}
}

/*
 * The client's deadline, request side: a 1 MiB request whose server is
 * not polled for STALL_MS after it was sent.
 */
static void
client_request(bool allowance)
{
	struct call c;
	int s;

	env_up(true, allowance ? PER_MIB_MS : PMR_TIMEOUT_PER_MIB_NONE);
	s = connect_warm();
	call_start(s, MIB, 4, &c);
	poll_alone(env.cli[0], STALL_MS);
	call_end(&c, 4, allowance);
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/*
 * The client's deadline, response side: a 4-byte request (no allowance)
 * for a 1 MiB response, the server not polled for STALL_MS once the
 * client has the response's first packet or descriptor (which moves the
 * deadline). The server's kept response has the same allowance.
 */
static void
client_response(bool allowance)
{
	struct call c;
	uint64_t base;
	int s;

	env_up(true, allowance ? PER_MIB_MS : PMR_TIMEOUT_PER_MIB_NONE);
	s = connect_warm();
	base = rx_of(env.cli[0]);
	call_start(s, 4, MIB, &c);
	poll_until_rx(env.cli[0], base);
	poll_alone(env.cli[0], STALL_MS);
	/*
	 * A READ does not need the server's CPU: the client reads the
	 * offered response meanwhile, no stall (the model, as hardware).
	 */
	call_end(&c, MIB, allowance || !pmr_test_setup_is_eth());
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
}

/*
 * The server's state timer of a partial request: its first packet is
 * there, then the client is not polled for STALL_MS. The client's own
 * deadline is a minute: it does not end the request here.
 */
static void
server_partial(bool allowance)
{
	struct pmr_worker_stats st;
	struct call c;
	uint64_t base;
	int s;

	env_up(false, allowance ? PER_MIB_MS : PMR_TIMEOUT_PER_MIB_NONE);
	s = connect_warm();
	base = rx_of(env.srv[0]);
	call_start(s, MIB, 4, &c);
	poll_until_rx(env.srv[0], base);
	poll_alone(env.srv[0], STALL_MS);
	/* Freed or not: the server's count says at once. */
	PMR_TEST_POLL_UNTIL(&env, c.runs == 1 ||
			(pmr_worker_stats_get(env.srv[0], &st),
			 st.srv_reclaimed + st.rdv_reclaimed != 0));
	pmr_worker_stats_get(env.srv[0], &st);
	if (allowance) {
		call_end(&c, 4, true);
		assert_int_equal(st.srv_reclaimed, 0);
	} else if (pmr_test_setup_is_eth()) {
		/* By READ the server held no partial request to free. */
		assert_int_equal(st.srv_reclaimed, 1);
	}
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
	PMR_TEST_POLL_UNTIL(&env, c.runs == 1);
}

/*
 * The server's state timer of a kept (or offered) 1 MiB response: the
 * client has its first packet or descriptor, then is not polled for
 * STALL_MS.
 */
static void
server_response(bool allowance)
{
	struct pmr_worker_stats st;
	struct call c;
	uint64_t base;
	int s;

	env_up(false, allowance ? PER_MIB_MS : PMR_TIMEOUT_PER_MIB_NONE);
	s = connect_warm();
	base = rx_of(env.cli[0]);
	call_start(s, 4, MIB, &c);
	poll_until_rx(env.cli[0], base);
	poll_alone(env.srv[0], STALL_MS);
	PMR_TEST_POLL_UNTIL(&env, c.runs == 1 ||
			(pmr_worker_stats_get(env.srv[0], &st),
			 st.resps_expired != 0));
	pmr_worker_stats_get(env.srv[0], &st);
	if (allowance) {
		call_end(&c, MIB, true);
		assert_int_equal(st.resps_expired, 0);
	} else if (c.runs == 0) {
		/* Freed: the rest never comes (a READ may have been done). */
		assert_int_equal(st.resps_expired, 1);
	}
	assert_int_equal(pmr_session_destroy(env.cli[0], s), 0);
	PMR_TEST_POLL_UNTIL(&env, c.runs == 1);
}

static void
test_client_request(void **state)
{
	(void)state;
	client_request(true);
}

static void
test_client_request_fixed(void **state)
{
	(void)state;
	client_request(false);
}

static void
test_client_response(void **state)
{
	(void)state;
	client_response(true);
}

static void
test_client_response_fixed(void **state)
{
	(void)state;
	client_response(false);
}

static void
test_server_partial(void **state)
{
	(void)state;
	server_partial(true);
}

static void
test_server_partial_fixed(void **state)
{
	(void)state;
	server_partial(false);
}

static void
test_server_response(void **state)
{
	(void)state;
	server_response(true);
}

static void
test_server_response_fixed(void **state)
{
	(void)state;
	server_response(false);
}

/* A bad allowance is refused; PMR_TIMEOUT_PER_MIB_NONE is not. */
static void
test_bad_conf(void **state)
{
	struct pmr_worker_conf conf = {
		.nb_msgbufs = 64,
		.timeout_per_mib_ms = PMR_TIMEOUT_PER_MIB_MAX + 1,
	};

	(void)state;
	env_up(true, PMR_TIMEOUT_PER_MIB_MAX);
	conf.worker_id = 99;
	conf.driver = env.setup->driver;
	assert_null(pmr_worker_create(env.nx, &conf));
	assert_int_equal(rte_errno, EINVAL);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_client_request, teardown),
		cmocka_unit_test_teardown(test_client_request_fixed,
				teardown),
		cmocka_unit_test_teardown(test_client_response, teardown),
		cmocka_unit_test_teardown(test_client_response_fixed,
				teardown),
		cmocka_unit_test_teardown(test_server_partial, teardown),
		cmocka_unit_test_teardown(test_server_partial_fixed,
				teardown),
		cmocka_unit_test_teardown(test_server_response, teardown),
		cmocka_unit_test_teardown(test_server_response_fixed,
				teardown),
		cmocka_unit_test_teardown(test_bad_conf, teardown),
	};

	(void)argc;
	(void)argv;
	return cmocka_run_group_tests_name("deadline_size", tests,
			pmr_test_eal_setup, pmr_test_eal_teardown);
}
