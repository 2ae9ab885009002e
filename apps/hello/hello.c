/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The smallest pmrpc program: a server worker on one lcore answers
 * "hello, <name>" to a client worker on the main lcore. Both talk over an
 * in-process ring pair (two ethdev ports wired back to back); the nexus
 * does the session handshake over UDP on 127.0.0.1.
 *
 *   hello -l 0-1 --no-pci --no-huge -m 256 --no-shconf -- world
 */

#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_lcore.h>
#include <rte_ring.h>

#include <pmr_rpc.h>

#define REQ_HELLO 1

static void
hello_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_msgbuf *resp = pmr_req_resp_buf(req);
	int n;

	(void)arg;
	if (resp == NULL) {
		/* Out of buffers: the client is told at once. */
		pmr_respond_error(req, PMR_E_NOMEM);
		return;
	}
	n = snprintf((char *)resp->data, pmr_msgbuf_capacity(resp),
		"hello, %.*s", (int)pmr_req_len(req),
		(const char *)pmr_req_data(req));
	pmr_msgbuf_resize(resp, (uint32_t)n);
	pmr_respond(req, resp);
}

static void
on_reply(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	(void)w;
	printf("%s: %.*s\n", pmr_status_str(resp->status), (int)resp->len,
		(const char *)resp->data);
	pmr_msgbuf_free(resp->req);
	*(int *)tag = 1;
}

int
main(int argc, char **argv)
{
	struct pmr_worker_conf sconf = { .worker_id = 0, .devargs = "port=0" };
	struct pmr_worker_conf cconf = { .worker_id = 1, .devargs = "port=1" };
	struct pmr_worker *server, *client;
	struct rte_ring *r[2];
	struct pmr_nexus *nx;
	struct pmr_msgbuf *req;
	const char *name;
	int n, session, done = 0;

	n = rte_eal_init(argc, argv);
	if (n < 0 || rte_lcore_count() < 2) {
		fprintf(stderr, "hello: needs EAL with 2 lcores (-l 0-1)\n");
		return 1;
	}
	name = argc - n > 1 ? argv[n + 1] : "world";

	/* Ports 0 and 1, each sending into the other's receive ring. */
	r[0] = rte_ring_create("hello0", 1024, SOCKET_ID_ANY, 0);
	r[1] = rte_ring_create("hello1", 1024, SOCKET_ID_ANY, 0);
	rte_eth_from_rings("hello_srv", &r[0], 1, &r[1], 1, SOCKET_ID_ANY);
	rte_eth_from_rings("hello_cli", &r[1], 1, &r[0], 1, SOCKET_ID_ANY);

	nx = pmr_nexus_create("127.0.0.1:0", NULL);
	pmr_nexus_register_handler(nx, REQ_HELLO, hello_handler, NULL);
	server = pmr_worker_create(nx, &sconf);
	client = pmr_worker_create(nx, &cconf);
	if (nx == NULL || server == NULL || client == NULL) {
		fprintf(stderr, "hello: setup failed\n");
		return 1;
	}
	rte_eal_remote_launch(pmr_worker_loop, server,
		rte_get_next_lcore(-1, 1, 0));

	session = pmr_session_create(client, pmr_nexus_uri(nx), 0, NULL, NULL);
	req = pmr_worker_msgbuf_alloc(client, (uint32_t)strlen(name));
	memcpy(req->data, name, req->len);
	pmr_request(client, session, REQ_HELLO, req, on_reply, &done);
	while (!done)
		pmr_worker_poll(client);

	pmr_worker_stop(server);
	rte_eal_mp_wait_lcore();
	pmr_worker_destroy(client);
	pmr_worker_destroy(server);
	pmr_nexus_destroy(nx);
	rte_ring_free(r[0]);
	rte_ring_free(r[1]);
	return rte_eal_cleanup();
}
