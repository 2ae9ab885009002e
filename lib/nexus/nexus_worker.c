/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * Workers attached to the nexus: their two rings, and a backlog for
 * messages to a worker whose to_worker ring is full (such messages are
 * never dropped; they go out, in order, as the worker makes room).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ring_elem.h>

#include "nexus_private.h"
#include "pmr_transport_driver.h"

struct nexus_worker *
nexus_worker_find(struct pmr_nexus *nx, uint16_t id)
{
	struct nexus_worker *w;

	TAILQ_FOREACH(w, &nx->workers, next)
		if (w->id == id)
			return w;
	return NULL;
}

int
nexus_worker_try_send(struct nexus_worker *w, const struct pmr_sm_msg *msg)
{
	/* The ring API takes a non-const pointer but only reads it. */
	if (!STAILQ_EMPTY(&w->backlog) ||
	    rte_ring_enqueue_elem(w->to_worker, (void *)(uintptr_t)msg,
			sizeof(*msg)) != 0)
		return -ENOBUFS;
	return 0;
}

int
nexus_worker_send(struct nexus_worker *w, const struct pmr_sm_msg *msg)
{
	struct nexus_backlog *b;

	if (nexus_worker_try_send(w, msg) == 0)
		return 0;
	b = malloc(sizeof(*b));
	if (b == NULL) {
		NX_LOG(ERR, "worker %u: message type %u lost (no memory)",
			w->id, msg->type);
		return -ENOMEM;
	}
	b->msg = *msg;
	STAILQ_INSERT_TAIL(&w->backlog, b, next);
	return 0;
}

static void
backlog_flush(struct nexus_worker *w)
{
	struct nexus_backlog *b;

	while ((b = STAILQ_FIRST(&w->backlog)) != NULL) {
		if (rte_ring_enqueue_elem(w->to_worker, &b->msg,
				sizeof(b->msg)) != 0)
			return;
		STAILQ_REMOVE_HEAD(&w->backlog, next);
		free(b);
	}
}

/* Take up to budget messages; true if the ring still has some. */
static bool
drain_from_worker(struct pmr_nexus *nx, struct nexus_worker *w,
		unsigned int budget)
{
	struct pmr_sm_msg msg;

	while (budget-- > 0) {
		if (rte_ring_dequeue_elem(w->from_worker, &msg,
				sizeof(msg)) != 0)
			return false;
		nexus_session_worker_msg(nx, w, &msg);
	}
	return !rte_ring_empty(w->from_worker);
}

bool
nexus_workers_poll(struct pmr_nexus *nx)
{
	struct nexus_worker *w;
	bool more = false;

	TAILQ_FOREACH(w, &nx->workers, next) {
		backlog_flush(w);
		if (drain_from_worker(nx, w, NEXUS_WORKER_BUDGET))
			more = true;
	}
	return more;
}

static struct rte_ring *
worker_ring(struct pmr_nexus *nx, uint16_t worker_id, const char *dir)
{
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "pmrnx%u_%u_%s", nx->seq, worker_id,
			dir);
	return rte_ring_create_elem(name, sizeof(struct pmr_sm_msg),
			PMR_NEXUS_RING_SIZE, SOCKET_ID_ANY,
			RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
}

static void
worker_free(struct nexus_worker *w)
{
	struct nexus_backlog *b;

	while ((b = STAILQ_FIRST(&w->backlog)) != NULL) {
		STAILQ_REMOVE_HEAD(&w->backlog, next);
		free(b);
	}
	rte_ring_free(w->to_worker);
	rte_ring_free(w->from_worker);
	free(w);
}

int
pmr_nexus_worker_attach(struct pmr_nexus *nx, uint16_t worker_id,
		struct pmr_transport_queue *q, struct rte_ring **to_worker,
		struct rte_ring **from_worker)
{
	struct nexus_worker *w;
	const char *drv;
	int ret;

	if (nx == NULL || q == NULL || to_worker == NULL ||
	    from_worker == NULL)
		return -EINVAL;
	/* The handshake compares families (nexus_wire.h), not names. */
	drv = q->driver == NULL ? NULL : q->driver->family != NULL ?
		q->driver->family : q->driver->name;
	if (drv == NULL || strlen(drv) >= PMR_TRANSPORT_NAME_MAX)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return -ENOMEM;
	w->id = worker_id;
	w->rc_share_pct = 50;
	w->q = q;
	strcpy(w->driver, drv);
	TAILQ_INIT(&w->pending);
	STAILQ_INIT(&w->backlog);
	ret = pmr_transport_queue_addr(q, &w->addr);
	if (ret != 0) {
		free(w);
		return ret < 0 ? ret : -EINVAL;
	}
	if (w->addr.len != q->caps.addr_len) {
		free(w);
		return -EINVAL;
	}

	pthread_mutex_lock(&nx->lock);
	if (nexus_worker_find(nx, worker_id) != NULL) {
		ret = -EEXIST;
		goto fail;
	}
	w->to_worker = worker_ring(nx, worker_id, "to");
	w->from_worker = worker_ring(nx, worker_id, "from");
	if (w->to_worker == NULL || w->from_worker == NULL) {
		ret = rte_errno == EEXIST ? -EEXIST : -ENOMEM;
		goto fail;
	}
	TAILQ_INSERT_TAIL(&nx->workers, w, next);
	nx->nb_workers++;
	nx->handlers_closed = true;
	pthread_mutex_unlock(&nx->lock);
	*to_worker = w->to_worker;
	*from_worker = w->from_worker;
	NX_LOG(DEBUG, "worker %u attached (%s)", worker_id, drv);
	return 0;
fail:
	pthread_mutex_unlock(&nx->lock);
	worker_free(w);
	return ret;
}

int
pmr_nexus_worker_share(struct pmr_nexus *nx, uint16_t worker_id, uint8_t pct)
{
	struct nexus_worker *w;
	int ret = 0;

	if (nx == NULL || pct == 0 || pct > 100)
		return -EINVAL;
	pthread_mutex_lock(&nx->lock);
	w = nexus_worker_find(nx, worker_id);
	if (w != NULL)
		w->rc_share_pct = pct;
	else
		ret = -ENOENT;
	pthread_mutex_unlock(&nx->lock);
	return ret;
}

void
pmr_nexus_worker_detach(struct pmr_nexus *nx, uint16_t worker_id)
{
	struct nexus_worker *w;
	struct pmr_sm_msg msg;

	if (nx == NULL)
		return;
	pthread_mutex_lock(&nx->lock);
	w = nexus_worker_find(nx, worker_id);
	if (w == NULL) {
		pthread_mutex_unlock(&nx->lock);
		NX_LOG(WARNING, "detach of unknown worker %u", worker_id);
		return;
	}
	/* What the worker said last still counts (its DISCONNECTs). */
	drain_from_worker(nx, w, UINT32_MAX);
	/*
	 * What it was not told any more: the records behind those messages
	 * (pending handshakes, sessions) are cleaned up just below.
	 */
	while (rte_ring_dequeue_elem(w->to_worker, &msg, sizeof(msg)) == 0)
		;
	nexus_session_worker_gone(nx, w);
	TAILQ_REMOVE(&nx->workers, w, next);
	nx->nb_workers--;
	pthread_mutex_unlock(&nx->lock);
	worker_free(w);
	NX_LOG(DEBUG, "worker %u detached", worker_id);
}
