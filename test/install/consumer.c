/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * A program outside the source tree, built against an installed pmrpc
 * with pkg-config alone (test/install/check_install.sh): one worker on a
 * net_ring vdev port whose transmit ring is its receive ring, a session
 * from the worker to itself through the nexus, and an echo RPC over it.
 * The worker names no driver: it gets the default, eth, which the link
 * must have kept. It uses only the installed headers and exported
 * functions.
 *
 * Usage: consumer [EAL options], e.g. -l 0 --no-pci --no-huge -m 256
 * --no-shconf --vdev=net_ring0. Exit status 0 when the echo came back
 * whole and every buffer went back to its pool.
 */

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include <pmr_rpc.h>

#define REQ_ECHO 1
#define MSG "hello from outside the tree"
#define WAIT_S 30

struct reply {
	bool done;
	enum pmr_status status;
	bool same;
};

static void
echo_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_msgbuf *resp = pmr_req_resp_buf(req);

	(void)arg;
	if (resp == NULL) {
		pmr_respond_error(req, PMR_E_NOMEM);
		return;
	}
	memcpy(resp->data, pmr_req_data(req), pmr_req_len(req));
	pmr_msgbuf_resize(resp, pmr_req_len(req));
	pmr_respond(req, resp);
}

static void
on_reply(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct reply *r = tag;

	(void)w;
	r->status = resp->status;
	r->same = resp->status == PMR_OK && resp->len == strlen(MSG) &&
		memcmp(resp->data, MSG, strlen(MSG)) == 0;
	pmr_msgbuf_free(resp->req);
	r->done = true;
}

static int
echo(void)
{
	struct pmr_worker_conf conf = {
		.worker_id = 0,
		.devargs = "port=0",
		.max_msg_size = 1 << 16,
		.nb_msgbufs = 256,
		.nb_mid_msgbufs = 4,
		.nb_large_msgbufs = 1,
	};
	struct reply r = { .done = false };
	struct pmr_worker *w = NULL;
	struct pmr_nexus *nx;
	struct pmr_msgbuf *req;
	time_t end;
	unsigned int cls, in_use;
	int session, ret = 1;

	nx = pmr_nexus_create("127.0.0.1:0", NULL);
	if (nx == NULL ||
	    pmr_nexus_register_handler(nx, REQ_ECHO, echo_handler, NULL) != 0) {
		fprintf(stderr, "consumer: nexus: %s\n",
			rte_strerror(rte_errno));
		goto out;
	}
	/* The library's drivers came with the link (shared or static, no
	 * --whole-archive), and a worker that names none gets the first,
	 * eth. */
	if (pmr_transport_find("eth") == NULL || pmr_transport_count() == 0) {
		fprintf(stderr, "consumer: no eth driver (%u drivers)\n",
			pmr_transport_count());
		goto out;
	}
	w = pmr_worker_create(nx, &conf);
	if (w == NULL) {
		fprintf(stderr, "consumer: worker: %s\n",
			rte_strerror(rte_errno));
		goto out;
	}
	if (pmr_worker_queue(w)->driver != pmr_transport_get(0) ||
	    strcmp(pmr_transport_name(pmr_worker_queue(w)->driver),
		    "eth") != 0) {
		fprintf(stderr, "consumer: the worker's driver is %s, not "
			"the default eth\n",
			pmr_transport_name(pmr_worker_queue(w)->driver));
		goto out;
	}
	session = pmr_session_create(w, pmr_nexus_uri(nx), 0, NULL, NULL);
	req = pmr_worker_msgbuf_alloc(w, strlen(MSG));
	if (session < 0 || req == NULL) {
		fprintf(stderr, "consumer: session %d, request buffer %p\n",
			session, (void *)req);
		pmr_msgbuf_free(req);
		goto out;
	}
	memcpy(req->data, MSG, strlen(MSG));
	if (pmr_request(w, session, REQ_ECHO, req, on_reply, &r) != 0) {
		fprintf(stderr, "consumer: request refused\n");
		pmr_msgbuf_free(req);
		goto out;
	}
	end = time(NULL) + WAIT_S;
	while (!r.done && time(NULL) < end)
		pmr_worker_poll(w);
	if (!r.done) {
		fprintf(stderr, "consumer: no reply in %d s\n", WAIT_S);
		goto out;
	}
	printf("consumer: echo %s, %s\n", pmr_status_str(r.status),
		r.same ? "same bytes" : "other bytes");
	if (r.status != PMR_OK || !r.same)
		goto out;
	/* The server side lets go of its response once the client side's
	 * close reaches it through the nexus. */
	pmr_session_destroy(w, session);
	end = time(NULL) + WAIT_S;
	do {
		pmr_worker_poll(w);
		in_use = 0;
		for (cls = 0; pmr_worker_pool(w, cls) != NULL; cls++)
			in_use += pmr_msgbuf_pool_in_use(pmr_worker_pool(w, cls));
	} while (in_use != 0 && time(NULL) < end);
	if (in_use != 0) {
		fprintf(stderr, "consumer: %u msgbufs still out\n", in_use);
		goto out;
	}
	ret = 0;
out:
	if (w != NULL && pmr_worker_destroy(w) != 0)
		ret = 1;
	if (nx != NULL && pmr_nexus_destroy(nx) != 0)
		ret = 1;
	return ret;
}

int
main(int argc, char **argv)
{
	int ret;

	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "consumer: EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	ret = echo();
	rte_eal_cleanup();
	if (ret == 0)
		printf("consumer: OK\n");
	return ret;
}
