/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/* The nexus object: create and destroy, URI, request handlers, counters. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "nexus_private.h"

RTE_LOG_REGISTER(pmr_nexus_logtype, pmr.nexus, NOTICE);

static uint32_t nexus_seq;	/* unique ring names per process */

/*
 * Apply defaults; a default retry interval shrinks to a shorter timeout.
 * A setting is bad if handshakes could never be resent: connect_retry_ms
 * above connect_timeout_ms; or if a live remote could be declared dead
 * between two of its heartbeats: peer_timeout_ms not above
 * heartbeat_interval_ms.
 */
static int
conf_init(struct pmr_nexus_conf *c, const struct pmr_nexus_conf *user)
{
	if (user != NULL)
		*c = *user;
	else
		memset(c, 0, sizeof(*c));
	if (c->connect_timeout_ms == 0)
		c->connect_timeout_ms = NEXUS_CONNECT_TIMEOUT_MS_DEFAULT;
	if (c->connect_retry_ms == 0)
		c->connect_retry_ms = RTE_MIN(
			(uint32_t)NEXUS_CONNECT_RETRY_MS_DEFAULT,
			c->connect_timeout_ms);
	if (c->poll_interval_ms == 0)
		c->poll_interval_ms = NEXUS_POLL_INTERVAL_MS_DEFAULT;
	if (c->heartbeat_interval_ms == 0)
		c->heartbeat_interval_ms = NEXUS_HEARTBEAT_INTERVAL_MS_DEFAULT;
	if (c->peer_timeout_ms == 0)
		c->peer_timeout_ms = NEXUS_PEER_TIMEOUT_MS_DEFAULT;
	if (c->max_sessions_per_source == 0)
		c->max_sessions_per_source =
			NEXUS_MAX_SESSIONS_PER_SOURCE_DEFAULT;
	if (c->connect_retry_ms > c->connect_timeout_ms ||
	    c->peer_timeout_ms <= c->heartbeat_interval_ms)
		return -EINVAL;
	return 0;
}

/* Bind the UDP socket and record the URI with the actual port. */
static int
nexus_bind(struct pmr_nexus *nx, const char *uri)
{
	char host[PMR_URI_MAX];
	socklen_t len = sizeof(nx->local);
	int rcvbuf = NEXUS_SOCK_RCVBUF;
	uint16_t port;
	int ret;

	if (nexus_uri_split(uri, host, sizeof(host), &port) != 0 ||
	    nexus_uri_resolve(uri, &nx->local, true) != 0)
		return -EINVAL;
	nx->sock = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			0);
	if (nx->sock < 0)
		return -errno;
	/*
	 * Room for bursts: thousands of sessions closed at once make as
	 * many DISCONNECT datagrams (NEXUS_DISCONNECT_COPIES each). Best
	 * effort: the kernel caps it at net.core.rmem_max.
	 */
	if (setsockopt(nx->sock, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
			sizeof(rcvbuf)) != 0)
		NX_LOG(DEBUG, "SO_RCVBUF: %s", strerror(errno));
	if (bind(nx->sock, (const struct sockaddr *)&nx->local,
			sizeof(nx->local)) != 0 ||
	    getsockname(nx->sock, (struct sockaddr *)&nx->local, &len) != 0) {
		ret = -errno;
		NX_LOG(ERR, "cannot bind %s: %s", uri, strerror(-ret));
		return ret;
	}
	ret = snprintf(nx->uri, sizeof(nx->uri), "%s:%u", host,
			ntohs(nx->local.sin_port));
	if (ret < 0 || (size_t)ret >= sizeof(nx->uri))
		return -EINVAL;
	return 0;
}

struct pmr_nexus *
pmr_nexus_create(const char *uri, const struct pmr_nexus_conf *conf)
{
	struct pmr_nexus *nx;
	bool mk = false;
	unsigned int i;
	int ret;

	nx = calloc(1, sizeof(*nx));
	if (nx == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	nx->sock = -1;
	nx->stop_fd = -1;
	pthread_mutex_init(&nx->lock, NULL);
	TAILQ_INIT(&nx->workers);
	TAILQ_INIT(&nx->connecting);
	TAILQ_INIT(&nx->answered);
	for (i = 0; i < NEXUS_SHS_BUCKETS; i++)
		LIST_INIT(&nx->shs_hash[i]);
	TAILQ_INIT(&nx->remotes);
	TAILQ_INIT(&nx->rc_pairs);
	for (i = 0; i < NEXUS_REMOTE_BUCKETS; i++)
		LIST_INIT(&nx->remote_hash[i]);
	for (i = 0; i < NEXUS_SRC_BUCKETS; i++)
		LIST_INIT(&nx->src_hash[i]);
	nexus_keys_init(nx, nexus_now_ms());
	nx->seq = __atomic_fetch_add(&nexus_seq, 1, __ATOMIC_RELAXED);
	nexus_random(&nx->shs_seed, sizeof(nx->shs_seed));
	/* Zero means "none" on the wire. */
	while (nx->boot_id == 0)
		nexus_random(&nx->boot_id, sizeof(nx->boot_id));

	ret = conf_init(&nx->conf, conf);
	if (ret == 0)
		ret = nexus_bind(nx, uri);
	if (ret == 0) {
		nx->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (nx->stop_fd < 0)
			ret = -errno;
	}
	if (ret == 0) {
		ret = nexus_rc_make_init(nx);
		if (ret == 0)
			mk = true;
	}
	if (ret == 0)
		ret = nexus_thread_start(nx);
	if (ret != 0) {
		if (mk)
			nexus_rc_make_fini(nx);
		if (nx->stop_fd >= 0)
			close(nx->stop_fd);
		if (nx->sock >= 0)
			close(nx->sock);
		pthread_mutex_destroy(&nx->lock);
		free(nx);
		rte_errno = -ret;
		return NULL;
	}
	NX_LOG(INFO, "nexus %u on %s, boot id %016" PRIx64, nx->seq, nx->uri,
		nx->boot_id);
	return nx;
}

int
pmr_nexus_destroy(struct pmr_nexus *nx)
{
	unsigned int nb_workers;

	if (nx == NULL)
		return -EINVAL;
	pthread_mutex_lock(&nx->lock);
	nb_workers = nx->nb_workers;
	pthread_mutex_unlock(&nx->lock);
	if (nb_workers != 0)
		return -EBUSY;
	nexus_thread_stop(nx);
	close(nx->stop_fd);
	close(nx->sock);
	nexus_rc_free_all(nx);
	nexus_rc_make_fini(nx);
	nexus_session_free_all(nx);
	pthread_mutex_destroy(&nx->lock);
	free(nx);
	return 0;
}

uint32_t
pmr_nexus_heartbeat_ms(const struct pmr_nexus *nx)
{
	return nx->conf.heartbeat_interval_ms;
}

const char *
pmr_nexus_uri(const struct pmr_nexus *nx)
{
	return nx != NULL ? nx->uri : NULL;
}

int
pmr_nexus_register_handler(struct pmr_nexus *nx, uint8_t req_type,
		pmr_req_handler_t handler, void *arg)
{
	int ret = 0;

	if (nx == NULL || handler == NULL)
		return -EINVAL;
	pthread_mutex_lock(&nx->lock);
	if (nx->handlers_closed)
		ret = -EBUSY;
	else if (nx->handlers[req_type].fn != NULL)
		ret = -EEXIST;
	else
		nx->handlers[req_type] = (struct pmr_nexus_handler){
			.fn = handler, .arg = arg,
		};
	pthread_mutex_unlock(&nx->lock);
	return ret;
}

void
pmr_nexus_handlers_get(struct pmr_nexus *nx, struct pmr_nexus_handler *table)
{
	if (nx == NULL || table == NULL)
		return;
	pthread_mutex_lock(&nx->lock);
	memcpy(table, nx->handlers, sizeof(nx->handlers));
	nx->handlers_closed = true;
	pthread_mutex_unlock(&nx->lock);
}

int
pmr_nexus_stats_get(struct pmr_nexus *nx, struct pmr_nexus_stats *st)
{
	if (nx == NULL || st == NULL)
		return -EINVAL;
	pthread_mutex_lock(&nx->lock);
	*st = nx->stats;
	pthread_mutex_unlock(&nx->lock);
	return 0;
}
