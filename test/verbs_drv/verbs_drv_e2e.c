/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The engine end to end on the verbs driver over the model, through the
 * public API: a nexus, a server and a client worker, polled by the test
 * (the nexus thread creates the peers meanwhile).
 */

#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "pmr_hca.h"
#include "pmr_msgbuf.h"
#include "pmr_test.h"
#include "pmr_test_rpc.h"
#include "verbs_drv_e2e.h"
#include "verbs_drv_util.h"

void
vd_objects_none(void)
{
	struct pmr_hca_objects o;

	assert_int_equal(pmr_hca_objects_get(NULL, &o), 0);
	if (o.contexts + o.pds + o.mrs + o.cqs + o.qps + o.ahs != 0)
		fail_msg("left on the model: %u contexts, %u PDs, %u MRs, "
			"%u CQs, %u QPs, %u AHs", o.contexts, o.pds, o.mrs,
			o.cqs, o.qps, o.ahs);
}

void
vd_fabric(const char *spec)
{
	struct pmr_hca_dev_config devs[PMR_HCA_MAX_DEVICES];
	char err[256];
	int n;

	vd_objects_none();
	assert_int_equal(pmr_hca_reset(), 0);
	if (spec == NULL) {
		pmr_hca_config_default(&devs[0]);
		n = 1;
	} else {
		n = pmr_hca_config_parse(spec, devs, RTE_DIM(devs), err,
				sizeof(err));
		if (n < 0)
			fail_msg("bad spec: %s", err);
	}
	assert_int_equal(pmr_hca_configure(devs, (unsigned int)n), 0);
}

/* The echo: the request's bytes, the first one inverted. */
static void
e2e_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_worker *w = pmr_req_worker(req);
	uint32_t len = pmr_req_len(req);
	struct pmr_msgbuf *resp = len <= pmr_worker_pkt_size(w) ?
		pmr_req_resp_buf(req) : pmr_worker_msgbuf_alloc(w, len);

	(void)arg;
	if (resp == NULL) {
		pmr_respond_error(req, PMR_E_NOMEM);
		return;
	}
	memcpy(resp->data, pmr_req_data(req), pmr_req_len(req));
	((uint8_t *)resp->data)[0] ^= 0xff;
	pmr_msgbuf_resize(resp, pmr_req_len(req));
	pmr_respond(req, resp);
}

void
vd_e2e_on_reply(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct vd_e2e_reply *r = tag;

	(void)w;
	r->status = resp->status;
	r->len = resp->len;
	r->first = resp->len > 0 ? ((const uint8_t *)resp->data)[0] : 0;
	pmr_msgbuf_free(resp->req);
	r->done++;
}

void
vd_e2e_up(struct vd_e2e *e, struct pmr_worker_conf *conf,
		const char *cli_devargs)
{
	/* The default peer timeout: a stalled nexus does not judge itself
	 * dead (issue 26). */
	struct pmr_nexus_conf nconf = { .connect_timeout_ms = 2000 };
	struct pmr_test_sess_ev ev;
	const char *srv_devargs = conf->devargs;

	e->nx = pmr_nexus_create("127.0.0.1:0", &nconf);
	assert_non_null(e->nx);
	assert_int_equal(pmr_nexus_register_handler(e->nx, VD_E2E_REQ,
			e2e_handler, NULL), 0);
	conf->worker_id = 0;
	e->srv = pmr_worker_create(e->nx, conf);
	if (e->srv == NULL)
		fail_msg("server worker on verbs: %s", rte_strerror(rte_errno));
	conf->worker_id = 1;
	if (cli_devargs != NULL)
		conf->devargs = cli_devargs;
	e->cli = pmr_worker_create(e->nx, conf);
	conf->devargs = srv_devargs;
	if (e->cli == NULL)
		fail_msg("client worker on verbs: %s", rte_strerror(rte_errno));
	memset(&ev, 0, sizeof(ev));
	e->s = pmr_session_create(e->cli, pmr_nexus_uri(e->nx), 0,
			pmr_test_on_session, &ev);
	assert_true(e->s >= 0);
	e->deadline = pmr_test_now_ns() + PMR_TEST_WAIT_NS;
	while (ev.count == 0 && pmr_test_now_ns() < e->deadline) {
		pmr_worker_poll(e->srv);
		pmr_worker_poll(e->cli);
	}
	assert_int_equal(ev.count, 1);
	if (ev.ev != PMR_SESSION_EV_CONNECTED)
		fail_msg("session event %d, error %d", ev.ev, ev.err);
}

void
vd_e2e_call(struct vd_e2e *e, struct rte_mempool *mp, uint32_t len)
{
	struct pmr_msgbuf *req = mp != NULL ? pmr_msgbuf_alloc(mp, len) :
		pmr_worker_msgbuf_alloc(e->cli, len);
	struct vd_e2e_reply r = { 0 };

	assert_non_null(req);
	memset(req->data, 0x5a, len);
	assert_int_equal(pmr_request(e->cli, e->s, VD_E2E_REQ, req,
			vd_e2e_on_reply, &r), 0);
	while (r.done == 0) {
		if (pmr_test_now_ns() > e->deadline)
			fail_msg("a request of %u bytes not answered", len);
		pmr_worker_poll(e->srv);
		pmr_worker_poll(e->cli);
	}
	assert_int_equal(r.status, PMR_OK);
	assert_int_equal(r.len, len);
	assert_int_equal(r.first, 0x5a ^ 0xff);
}

unsigned int
vd_e2e_quiesce(struct vd_e2e *e)
{
	unsigned int i;

	for (i = 0; i < 1000; i++) {
		pmr_worker_poll(e->srv);
		pmr_worker_poll(e->cli);
		if (vd_xstat(pmr_worker_queue(e->srv), "tx_held") == 0 &&
		    vd_xstat(pmr_worker_queue(e->cli), "tx_held") == 0)
			break;
	}
	assert_int_equal(vd_xstat(pmr_worker_queue(e->srv), "tx_held"), 0);
	assert_int_equal(vd_xstat(pmr_worker_queue(e->cli), "tx_held"), 0);
	return i;
}

void
vd_e2e_pools_full(struct vd_e2e *e)
{
	unsigned int cls;

	for (cls = 0; cls < 3; cls++) {
		while (!pmr_msgbuf_pool_full(pmr_worker_pool(e->srv, cls)) ||
		       !pmr_msgbuf_pool_full(pmr_worker_pool(e->cli, cls))) {
			if (pmr_test_now_ns() > e->deadline)
				fail_msg("pools of class %u not full: %u, %u "
					"in use", cls,
					pmr_msgbuf_pool_in_use(pmr_worker_pool(
						e->srv, cls)),
					pmr_msgbuf_pool_in_use(pmr_worker_pool(
						e->cli, cls)));
			pmr_worker_poll(e->srv);
			pmr_worker_poll(e->cli);
		}
	}
}

void
vd_e2e_down(struct vd_e2e *e)
{
	assert_int_equal(pmr_worker_destroy(e->cli), 0);
	assert_int_equal(pmr_worker_destroy(e->srv), 0);
	assert_int_equal(pmr_nexus_destroy(e->nx), 0);
	vd_objects_none();
}
