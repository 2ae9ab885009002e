/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/* The control path of a queue: thin checks around the driver's calls. */

#include <errno.h>

#include <rte_errno.h>

#include "pmr_transport_driver.h"

struct pmr_transport_queue *
pmr_transport_queue_create(const struct pmr_transport_driver *drv,
		const char *devargs, int socket_id)
{
	struct pmr_transport_queue *q;

	if (drv == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	q = drv->queue_create(drv, devargs, socket_id);
	if (q == NULL)
		return NULL;
	q->driver = drv;
	return q;
}

void
pmr_transport_queue_destroy(struct pmr_transport_queue *q)
{
	if (q != NULL)
		q->driver->queue_destroy(q);
}

int
pmr_transport_queue_addr(struct pmr_transport_queue *q,
		struct pmr_transport_addr *addr)
{
	if (q == NULL || addr == NULL)
		return -EINVAL;
	return q->driver->queue_addr(q, addr);
}

struct pmr_transport_peer *
pmr_transport_peer_create(struct pmr_transport_queue *q,
		const struct pmr_transport_addr *addr)
{
	if (q == NULL || addr == NULL || addr->len != q->caps.addr_len) {
		rte_errno = EINVAL;
		return NULL;
	}
	return q->driver->peer_create(q, addr);
}

void
pmr_transport_peer_destroy(struct pmr_transport_queue *q,
		struct pmr_transport_peer *peer)
{
	if (q != NULL && peer != NULL)
		q->driver->peer_destroy(q, peer);
}

struct mem_reg {
	struct pmr_transport_queue *q;
	unsigned int found;	/* chunks that had a registration */
};

static int
mem_register_chunk(const struct pmr_msgbuf_chunk *chunk, void *arg)
{
	struct mem_reg *r = arg;

	return r->q->driver->mem_register(r->q, chunk);
}

static int
mem_unregister_chunk(const struct pmr_msgbuf_chunk *chunk, void *arg)
{
	struct mem_reg *r = arg;
	int ret = r->q->driver->mem_unregister(r->q, chunk);

	if (ret == 0)
		r->found++;
	/* A chunk without one: go on with the others. */
	return ret == -ENOENT ? 0 : ret;
}

int
pmr_transport_mem_register(struct pmr_transport_queue *q,
		struct rte_mempool *mp)
{
	struct mem_reg r = { .q = q };
	int ret;

	if (q == NULL || !pmr_msgbuf_pool_check(mp))
		return -EINVAL;
	/*
	 * Only a queue that says it needs registration gets it: the flag,
	 * not the callback, is the contract (pmr_transport_register()
	 * refuses a driver with the flag and no callback).
	 */
	if ((q->caps.flags & PMR_TRANSPORT_CAP_MEM_REG) == 0 ||
	    q->driver->mem_register == NULL)
		return 0;
	ret = pmr_msgbuf_pool_chunk_walk(mp, mem_register_chunk, &r);
	return ret < 0 ? ret : 0;
}

int
pmr_transport_mem_unregister(struct pmr_transport_queue *q,
		struct rte_mempool *mp)
{
	struct mem_reg r = { .q = q };
	int ret;

	if (q == NULL || !pmr_msgbuf_pool_check(mp))
		return -EINVAL;
	if ((q->caps.flags & PMR_TRANSPORT_CAP_MEM_REG) == 0)
		return 0;
	ret = pmr_msgbuf_pool_chunk_walk(mp, mem_unregister_chunk, &r);
	if (ret < 0)
		return ret;
	return r.found != 0 ? 0 : -ENOENT;
}

int
pmr_transport_mem_key(struct pmr_transport_queue *q, const void *addr,
		size_t len, struct pmr_transport_mkey *key)
{
	if (q == NULL || addr == NULL || key == NULL)
		return -EINVAL;
	if ((q->caps.flags & PMR_TRANSPORT_CAP_MEM_REG) == 0)
		return -ENOTSUP;
	return q->driver->mem_key(q, addr, len, key);
}

int
pmr_transport_tx_flush(struct pmr_transport_queue *q)
{
	if (q == NULL)
		return -EINVAL;
	if (q->driver->tx_flush == NULL)
		return 0;
	return q->driver->tx_flush(q);
}

int
pmr_transport_stats_get(struct pmr_transport_queue *q,
		struct pmr_transport_stats *stats)
{
	if (q == NULL || stats == NULL)
		return -EINVAL;
	return q->driver->stats_get(q, stats);
}

int
pmr_transport_stats_reset(struct pmr_transport_queue *q)
{
	if (q == NULL)
		return -EINVAL;
	q->driver->stats_reset(q);
	return 0;
}

int
pmr_transport_xstats_get(struct pmr_transport_queue *q,
		struct pmr_transport_xstat *xstats, unsigned int n)
{
	if (q == NULL || (xstats == NULL && n > 0))
		return -EINVAL;
	if (q->driver->xstats_get == NULL)
		return 0;
	return q->driver->xstats_get(q, xstats, n);
}

int
pmr_transport_queue_event_read(struct pmr_transport_queue *q,
		struct pmr_transport_event *ev, unsigned int n)
{
	if (q == NULL || (ev == NULL && n > 0))
		return -EINVAL;
	if (q->driver->queue_event_read == NULL || n == 0)
		return 0;
	return q->driver->queue_event_read(q, ev, n);
}
