/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The in-process setup the RPC workloads share: a ring pair, a nexus on
 * 127.0.0.1, an echo handler, a server worker polled by its own lcore and
 * a client worker polled by the main lcore, and the client's sessions.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "rpcperf.h"

static void
echo_handler(struct pmr_req *req, void *arg)
{
	struct pmr_worker *w = pmr_req_worker(req);
	uint32_t len = pmr_req_len(req);
	struct pmr_msgbuf *resp;

	(void)arg;
	resp = len <= pmr_worker_pkt_size(w) ? pmr_req_resp_buf(req) :
		pmr_worker_msgbuf_alloc(w, len);
	if (resp == NULL)
		return;		/* the client times out, and says so */
	pmr_msgbuf_resize(resp, len);
	memcpy(resp->data, pmr_req_data(req), len);
	pmr_respond(req, resp);
}

static void
sink_handler(struct pmr_req *req, void *arg)
{
	struct pmr_msgbuf *resp = pmr_req_resp_buf(req);

	(void)arg;
	if (resp != NULL)
		pmr_respond(req, resp);
}

static void
on_session(struct pmr_worker *w, int session, enum pmr_session_event ev,
		int err, void *arg)
{
	int *state = arg;

	(void)w;
	(void)session;
	*state = ev == PMR_SESSION_EV_CONNECTED ? 1 : err;
}

/* Poll until every session opened so far has come up or failed. */
static void
sessions_wait(struct rpcperf_env *env, const int *up)
{
	unsigned int k;

	for (k = 0; k < env->nb_sessions; k++)
		while (up[k] == 0)
			pmr_worker_poll(env->client);
}

int
rpcperf_env_up(const struct rpcperf_config *cfg, struct rpcperf_env *env,
		unsigned int nb_sessions, bool partial_ok, uint32_t max_size)
{
	/* Enough buffers of the message's class for every one in flight. */
	uint32_t inflight = 2 * cfg->concurrency + 8;
	struct pmr_worker_conf conf = {
		.nb_msgbufs = 8192,
		.max_msg_size = RTE_MAX(max_size, 64u * 1024),
		.nb_mid_msgbufs = RTE_MAX(inflight, 64u),
		.nb_large_msgbufs = max_size > 64 * 1024 ? inflight : 1,
		.faults = cfg->faults,
		.session_credits = cfg->credits,
		.rto_us = cfg->rto_us,
		.max_sessions = RTE_MAX(nb_sessions + 1, 256u),
		.max_requests = RTE_MAX(4096u, 2 * cfg->concurrency),
	};
	struct rte_malloc_socket_stats before, after;
	static unsigned int seq;	/* ethdev names stay taken */
	char args[256], name[32];
	unsigned int i, n;
	int *up;

	memset(env, 0, sizeof(*env));
	env->port_s = -1;
	env->port_c = -1;
	env->server_lcore = cfg->server_lcore;
	if (nb_sessions == 0 || nb_sessions > RPCPERF_MAX_SESSIONS)
		return -EINVAL;
	env->sessions = calloc(nb_sessions, sizeof(*env->sessions));
	if (env->sessions == NULL)
		return -ENOMEM;
	seq++;
	snprintf(name, sizeof(name), "rpcperf_ab%u", seq);
	env->ab = rte_ring_create(name, 1024, rte_socket_id(),
			RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "rpcperf_ba%u", seq);
	env->ba = rte_ring_create(name, 1024, rte_socket_id(),
			RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (env->ab == NULL || env->ba == NULL)
		return -ENOMEM;
	snprintf(name, sizeof(name), "rpcperf_srv%u", seq);
	env->port_s = rte_eth_from_rings(name, &env->ba, 1, &env->ab, 1,
			rte_socket_id());
	snprintf(name, sizeof(name), "rpcperf_cli%u", seq);
	env->port_c = rte_eth_from_rings(name, &env->ab, 1, &env->ba, 1,
			rte_socket_id());
	if (env->port_s < 0 || env->port_c < 0)
		return -ENODEV;

	env->nx = pmr_nexus_create("127.0.0.1:0", NULL);
	if (env->nx == NULL)
		return -rte_errno;
	pmr_nexus_register_handler(env->nx, RPCPERF_REQ_ECHO, echo_handler,
			NULL);
	pmr_nexus_register_handler(env->nx, RPCPERF_REQ_SINK, sink_handler,
			NULL);

	conf.worker_id = 0;
	snprintf(args, sizeof(args), "port=%d,ip=198.18.1.1%s%s",
		env->port_s, cfg->eth_args[0] != '\0' ? "," : "",
		cfg->eth_args);
	conf.devargs = args;
	env->server = pmr_worker_create(env->nx, &conf);
	if (env->server == NULL)
		return -rte_errno;
	conf.worker_id = 1;
	snprintf(args, sizeof(args), "port=%d,ip=198.18.1.2%s%s",
		env->port_c, cfg->eth_args[0] != '\0' ? "," : "",
		cfg->eth_args);
	rte_malloc_get_socket_stats(rte_socket_id(), &before);
	env->client = pmr_worker_create(env->nx, &conf);
	if (env->client == NULL)
		return -rte_errno;
	rte_malloc_get_socket_stats(rte_socket_id(), &after);
	env->client_heap = after.heap_allocsz_bytes - before.heap_allocsz_bytes;
	if (max_size > pmr_worker_max_msg_size(env->client)) {
		fprintf(stderr, "rpcperf: %u bytes is over the largest "
			"message, %u\n", max_size,
			pmr_worker_max_msg_size(env->client));
		return -EMSGSIZE;
	}
	if (rte_eal_remote_launch(pmr_worker_loop, env->server,
			cfg->server_lcore) != 0)
		return -EBUSY;
	env->server_running = true;

	/* Open them in batches, so the nexus rings never overflow. */
	up = calloc(nb_sessions, sizeof(*up));
	if (up == NULL)
		return -ENOMEM;
	for (i = 0; i < nb_sessions; i++) {
		int sn = pmr_session_create(env->client,
				pmr_nexus_uri(env->nx), 0, on_session,
				&up[env->nb_sessions]);

		if (sn < 0) {
			env->session_err = sn;
			break;
		}
		env->sessions[env->nb_sessions++] = sn;
		if (env->nb_sessions % 256 == 0)
			sessions_wait(env, up);
	}
	sessions_wait(env, up);
	/* Keep only the sessions that came up. */
	for (i = 0, n = 0; i < env->nb_sessions; i++) {
		if (up[i] == 1) {
			env->sessions[n++] = env->sessions[i];
			continue;
		}
		if (env->session_err == 0)
			env->session_err = up[i];
		pmr_session_destroy(env->client, env->sessions[i]);
	}
	env->nb_sessions = n;
	free(up);
	if (env->session_err != 0 && (!partial_ok || env->nb_sessions == 0))
		return env->session_err;
	return 0;
}

/* Say why packets were dropped, if any were. */
static void
print_drops(const char *who, struct pmr_worker *w)
{
	struct pmr_worker_stats st;
	unsigned int i;

	pmr_worker_stats_get(w, &st);
	if (st.rx_drops == 0)
		return;
	fprintf(stderr, "rpcperf: %s dropped %" PRIu64 " packets:", who,
		st.rx_drops);
	for (i = 0; i < RTE_DIM(st.drops); i++)
		if (st.drops[i] != 0)
			fprintf(stderr, " %s %" PRIu64, pmr_worker_drop_name(i),
				st.drops[i]);
	fprintf(stderr, "\n");
}

void
rpcperf_env_down(struct rpcperf_env *env, struct rpcperf_samples *s)
{
	struct pmr_worker_stats st;
	unsigned int i;

	if (env->client != NULL && s != NULL) {
		pmr_worker_stats_get(env->client, &st);
		s->retransmissions = st.retransmissions;
		print_drops("client", env->client);
	}
	if (env->server != NULL)
		print_drops("server", env->server);

	for (i = 0; i < env->nb_sessions; i++)
		pmr_session_destroy(env->client, env->sessions[i]);
	if (env->server_running) {
		/* Let the server see the sessions go, then stop it. */
		for (i = 0; i < 1000; i++)
			pmr_worker_poll(env->client);
		pmr_worker_stop(env->server);
		rte_eal_wait_lcore(env->server_lcore);
	}
	if (env->client != NULL && pmr_worker_destroy(env->client) != 0)
		fprintf(stderr, "rpcperf: client msgbufs leaked\n");
	if (env->server != NULL && pmr_worker_destroy(env->server) != 0)
		fprintf(stderr, "rpcperf: server msgbufs leaked\n");
	if (env->nx != NULL)
		pmr_nexus_destroy(env->nx);
	if (env->server == NULL && env->port_s >= 0)
		rte_eth_dev_close((uint16_t)env->port_s);
	if (env->client == NULL && env->port_c >= 0)
		rte_eth_dev_close((uint16_t)env->port_c);
	rte_ring_free(env->ab);
	rte_ring_free(env->ba);
	free(env->sessions);
	memset(env, 0, sizeof(*env));
}
