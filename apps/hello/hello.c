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
 *
 * Exit status: 0 when the answer came, 1 when the RPC or the setup
 * failed, 2 on a bad argument or an EAL that cannot run it.
 */

#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_lcore.h>
#include <rte_ring.h>

#include <pmr_rpc.h>

#define REQ_HELLO 1
#define GREETING "hello, "
#define CONNECT_TIMEOUT_MS 1000

static void
hello_handler(struct pmr_req_ref req, void *arg)
{
	struct pmr_worker *w = pmr_req_worker(req);
	uint32_t len = (uint32_t)strlen(GREETING) + pmr_req_len(req);
	struct pmr_msgbuf *resp;

	(void)arg;
	/* One packet's buffer, or one of the right size for a long name. */
	resp = len <= pmr_worker_pkt_size(w) ? pmr_req_resp_buf(req) :
		pmr_worker_msgbuf_alloc(w, len);
	if (resp == NULL) {
		/* Out of buffers: the client is told at once. */
		pmr_respond_error(req, PMR_E_NOMEM);
		return;
	}
	memcpy(resp->data, GREETING, strlen(GREETING));
	memcpy(resp->data + strlen(GREETING), pmr_req_data(req),
		pmr_req_len(req));
	pmr_msgbuf_resize(resp, len);
	pmr_respond(req, resp);
}

struct reply {
	bool done;
	uint32_t want;		/* bytes of the whole greeting */
	int status;		/* exit status */
};

static void
on_reply(struct pmr_worker *w, const struct pmr_resp *resp, void *tag)
{
	struct reply *r = tag;

	(void)w;
	printf("%s: %.*s\n", pmr_status_str(resp->status), (int)resp->len,
		(const char *)resp->data);
	if (resp->status != PMR_OK)
		r->status = 1;
	else if (resp->len != r->want) {
		fprintf(stderr, "hello: %u bytes in the answer, not %u\n",
			resp->len, r->want);
		r->status = 1;
	}
	pmr_msgbuf_free(resp->req);
	r->done = true;
}

static void
usage(FILE *f, const char *prog)
{
	fprintf(f, "Usage: %s [EAL options] -- [-h] [NAME]\n"
		"Say hello to NAME (default: world) over pmrpc, in one "
		"process:\na server worker on the second lcore, the client on "
		"the main one.\nEAL needs 2 lcores, e.g. -l 0-1 --no-pci "
		"--no-huge -m 256 --no-shconf.\n"
		"  -h, --help  this text\n"
		"Exit status: 0 answered, 1 the RPC or the setup failed, 2 bad "
		"arguments or EAL.\n", prog);
}

/* The name from hello's own arguments; 0, or the exit status. */
static int
parse_args(int argc, char **argv, const char **name)
{
	int i;

	*name = "world";
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "--help") == 0) {
			usage(stdout, "hello");
			return -1;
		}
	}
	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '-' && argv[i][1] != '\0') {
			fprintf(stderr, "hello: unknown option '%s'\n",
				argv[i]);
			usage(stderr, "hello");
			return 2;
		}
		if (i > 1) {
			fprintf(stderr, "hello: unexpected argument '%s'\n",
				argv[i]);
			usage(stderr, "hello");
			return 2;
		}
		*name = argv[i];
	}
	return 0;
}

static int
hello(const char *name)
{
	struct pmr_worker_conf sconf = { .worker_id = 0 };
	struct pmr_worker_conf cconf = { .worker_id = 1 };
	struct pmr_worker *server = NULL, *client = NULL;
	char sargs[32], cargs[32];
	int sport, cport;
	struct reply r = { .status = 1 };
	struct pmr_nexus *nx = NULL;
	struct rte_ring *ring[2];
	struct pmr_msgbuf *req;
	size_t len = strlen(name);
	int session;

	/* Ports 0 and 1, each sending into the other's receive ring. */
	ring[0] = rte_ring_create("hello0", 1024, SOCKET_ID_ANY, 0);
	ring[1] = rte_ring_create("hello1", 1024, SOCKET_ID_ANY, 0);
	sport = cport = -1;
	if (ring[0] != NULL && ring[1] != NULL) {
		sport = rte_eth_from_rings("hello_srv", &ring[0], 1, &ring[1],
				1, SOCKET_ID_ANY);
		cport = rte_eth_from_rings("hello_cli", &ring[1], 1, &ring[0],
				1, SOCKET_ID_ANY);
	}
	if (sport < 0 || cport < 0) {
		fprintf(stderr, "hello: ring pair: %s\n",
			rte_strerror(rte_errno));
		goto out;
	}
	snprintf(sargs, sizeof(sargs), "port=%d", sport);
	snprintf(cargs, sizeof(cargs), "port=%d", cport);
	sconf.devargs = sargs;
	cconf.devargs = cargs;

	nx = pmr_nexus_create("127.0.0.1:0", NULL);
	if (nx == NULL ||
	    pmr_nexus_register_handler(nx, REQ_HELLO, hello_handler,
			NULL) != 0) {
		fprintf(stderr, "hello: nexus: %s\n", rte_strerror(rte_errno));
		goto out;
	}
	server = pmr_worker_create(nx, &sconf);
	client = server != NULL ? pmr_worker_create(nx, &cconf) : NULL;
	if (client == NULL) {
		fprintf(stderr, "hello: worker: %s\n", rte_strerror(rte_errno));
		goto out;
	}
	if (len + strlen(GREETING) > pmr_worker_max_msg_size(server)) {
		fprintf(stderr, "hello: a name of %zu bytes is over the "
			"largest message, %u\n", len,
			pmr_worker_max_msg_size(server));
		goto out;
	}
	rte_eal_remote_launch(pmr_worker_loop, server,
		rte_get_next_lcore(-1, 1, 0));

	/* Connected, or why not, within a second. */
	session = pmr_session_connect(client, pmr_nexus_uri(nx), 0,
			CONNECT_TIMEOUT_MS);
	req = session >= 0 ? pmr_worker_msgbuf_alloc(client,
			(uint32_t)len) : NULL;
	if (session < 0 || req == NULL) {
		fprintf(stderr, "hello: %s: %s\n", session < 0 ? "session" :
			"request buffer", session < 0 ? strerror(-session) :
			rte_strerror(rte_errno));
		pmr_msgbuf_free(req);
	} else {
		memcpy(req->data, name, len);
		r.want = (uint32_t)(strlen(GREETING) + len);
		r.status = 0;
		if (pmr_request(client, session, REQ_HELLO, req, on_reply,
				&r) != 0) {
			fprintf(stderr, "hello: request failed\n");
			pmr_msgbuf_free(req);
			r.status = 1;
			r.done = true;
		}
		while (!r.done)
			pmr_worker_poll(client);
	}
	pmr_worker_stop(server);
	rte_eal_mp_wait_lcore();
out:
	if (client != NULL)
		pmr_worker_destroy(client);
	if (server != NULL)
		pmr_worker_destroy(server);
	if (nx != NULL)
		pmr_nexus_destroy(nx);
	rte_ring_free(ring[0]);
	rte_ring_free(ring[1]);
	return r.status;
}

int
main(int argc, char **argv)
{
	const char *name;
	int i, n, ret;

	/* Usage without EAL, before "--" too. */
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "--help") == 0) {
			usage(stdout, "hello");
			return 0;
		}

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "hello: EAL init failed: %s\n",
			rte_strerror(rte_errno));
		return 2;
	}
	argv[n] = argv[0];
	ret = parse_args(argc - n, argv + n, &name);
	if (ret == 0 && rte_lcore_count() < 2) {
		fprintf(stderr, "hello: needs 2 lcores, EAL has %u (-l 0-1)\n",
			rte_lcore_count());
		ret = 2;
	}
	if (ret == 0)
		ret = hello(name);
	rte_eal_cleanup();
	return ret < 0 ? 0 : ret;
}
