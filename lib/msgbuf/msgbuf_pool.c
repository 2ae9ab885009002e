/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_memzone.h>
#include <rte_mempool.h>

#include "pmr_msgbuf.h"

RTE_LOG_REGISTER(pmr_msgbuf_logtype, pmr.msgbuf, NOTICE);

#define MSGBUF_POOL_MAGIC 0x706d724d53474246ULL /* "pmrMSGBF" */

/* Private data of a msgbuf pool's rte_mempool. */
struct msgbuf_pool_priv {
	uint64_t magic;
	uint32_t capacity;
	uint16_t headroom;
	uint16_t large;
	uint64_t free_refused;	/* pmr_msgbuf_free() refusals (atomic) */
};

static struct msgbuf_pool_priv *
pool_priv(const struct rte_mempool *mp)
{
	struct msgbuf_pool_priv *priv;

	if (mp == NULL || mp->private_data_size < sizeof(*priv))
		return NULL;
	priv = rte_mempool_get_priv((struct rte_mempool *)(uintptr_t)mp);
	return priv->magic == MSGBUF_POOL_MAGIC ? priv : NULL;
}

static void
msgbuf_init(struct rte_mempool *mp, void *arg __rte_unused, void *obj,
		unsigned int idx __rte_unused)
{
	const struct msgbuf_pool_priv *priv = pool_priv(mp);
	struct pmr_msgbuf *mb = obj;

	memset(mb, 0, sizeof(*mb));
	mb->pool = mp;
	mb->headroom = priv->headroom;
	mb->capacity = priv->capacity;
	mb->data = (uint8_t *)obj + sizeof(*mb) + priv->headroom;
}

static void
memzone_release(struct rte_mempool_memhdr *memhdr __rte_unused, void *opaque)
{
	rte_memzone_free(opaque);
}

/*
 * DPDK's default population asks for IOVA-contiguous memory when the
 * whole pool is one chunk (one large object), which hugepages rarely
 * give. Large objects need only virtual contiguity: reserve that.
 */
static int
populate_virt(struct rte_mempool *mp)
{
	size_t size = (size_t)mp->size * (mp->header_size + mp->elt_size +
			mp->trailer_size);
	const struct rte_memzone *mz;
	char name[RTE_MEMZONE_NAMESIZE];
	int ret;

	snprintf(name, sizeof(name), "pmrv_%.24s", mp->name);
	mz = rte_memzone_reserve_aligned(name, size, mp->socket_id, 0,
			RTE_CACHE_LINE_SIZE);
	if (mz == NULL)
		return -rte_errno;
	ret = rte_mempool_populate_virt(mp, mz->addr, mz->len, mz->hugepage_sz,
			memzone_release, (void *)(uintptr_t)mz);
	if (ret < 0) {
		rte_memzone_free(mz);
		return ret;
	}
	return (unsigned int)ret == mp->size ? 0 : -ENOMEM;
}

struct rte_mempool *
pmr_msgbuf_pool_create(const char *name, unsigned int n,
		unsigned int cache_size, uint32_t capacity, uint16_t headroom,
		int socket_id)
{
	struct msgbuf_pool_priv *priv;
	struct rte_mempool *mp;
	uint32_t hr = RTE_ALIGN_CEIL((uint32_t)headroom, RTE_CACHE_LINE_SIZE);
	uint64_t elt_size;
	unsigned int flags = 0;

	if (name == NULL || n == 0 || capacity == 0 ||
	    hr > UINT16_MAX || cache_size > RTE_MEMPOOL_CACHE_MAX_SIZE ||
	    cache_size > n) {
		rte_errno = EINVAL;
		return NULL;
	}
	elt_size = sizeof(struct pmr_msgbuf) + hr +
		RTE_ALIGN_CEIL((uint64_t)capacity, RTE_CACHE_LINE_SIZE);
	if (elt_size > UINT32_MAX) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (elt_size > PMR_MSGBUF_LARGE_MIN)
		flags |= RTE_MEMPOOL_F_NO_IOVA_CONTIG;

	mp = rte_mempool_create_empty(name, n, (unsigned int)elt_size,
			cache_size, sizeof(*priv), socket_id, flags);
	if (mp == NULL)
		return NULL;	/* rte_errno set */
	priv = rte_mempool_get_priv(mp);
	memset(priv, 0, sizeof(*priv));
	priv->magic = MSGBUF_POOL_MAGIC;
	priv->capacity = capacity;
	priv->headroom = (uint16_t)hr;
	priv->large = (flags & RTE_MEMPOOL_F_NO_IOVA_CONTIG) != 0;

	if (rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(),
			NULL) != 0 ||
	    (rte_mempool_populate_default(mp) < 0 &&
	     (!priv->large || populate_virt(mp) != 0))) {
		int err = rte_errno != 0 ? rte_errno : ENOMEM;

		rte_mempool_free(mp);
		rte_errno = err;
		return NULL;
	}
	rte_mempool_obj_iter(mp, msgbuf_init, NULL);
	return mp;
}

int
pmr_msgbuf_pool_free(struct rte_mempool *mp)
{
	if (pool_priv(mp) == NULL)
		return -EINVAL;
	if (!rte_mempool_full(mp))
		return -EBUSY;
	rte_mempool_free(mp);
	return 0;
}

bool
pmr_msgbuf_pool_check(const struct rte_mempool *mp)
{
	return pool_priv(mp) != NULL;
}

uint32_t
pmr_msgbuf_pool_capacity(const struct rte_mempool *mp)
{
	const struct msgbuf_pool_priv *priv = pool_priv(mp);

	return priv != NULL ? priv->capacity : 0;
}

uint16_t
pmr_msgbuf_pool_headroom(const struct rte_mempool *mp)
{
	const struct msgbuf_pool_priv *priv = pool_priv(mp);

	return priv != NULL ? priv->headroom : 0;
}

bool
pmr_msgbuf_pool_is_large(const struct rte_mempool *mp)
{
	const struct msgbuf_pool_priv *priv = pool_priv(mp);

	return priv != NULL && priv->large != 0;
}

unsigned int
pmr_msgbuf_pool_in_use(const struct rte_mempool *mp)
{
	return rte_mempool_in_use_count(mp);
}

uint64_t
pmr_msgbuf_pool_free_refused(const struct rte_mempool *mp)
{
	const struct msgbuf_pool_priv *priv = pool_priv(mp);

	return priv != NULL ?
		__atomic_load_n(&priv->free_refused, __ATOMIC_RELAXED) : 0;
}

/* Refused frees: at most one log line a second, any lcore. */
static uint64_t refuse_log_tsc;

int
pmr_msgbuf_free_refuse(struct pmr_msgbuf *mb)
{
	struct msgbuf_pool_priv *priv = pool_priv(mb->pool);
	uint64_t now = rte_get_timer_cycles();
	uint64_t last = __atomic_load_n(&refuse_log_tsc, __ATOMIC_RELAXED);

	if (priv != NULL)
		__atomic_fetch_add(&priv->free_refused, 1, __ATOMIC_RELAXED);
	if (now - last >= rte_get_timer_hz() &&
	    __atomic_compare_exchange_n(&refuse_log_tsc, &last, now, false,
			__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		rte_log(RTE_LOG_ERR, pmr_msgbuf_logtype, "pmr.msgbuf: free "
			"of a msgbuf of %s refused: %s (counted in "
			"pmr_msgbuf_pool_free_refused())\n", mb->pool->name,
			mb->flags != 0 ? "a worker holds it" :
			"a driver still sends it");
	return -EBUSY;
}

struct chunk_walk {
	pmr_msgbuf_chunk_cb_t cb;
	void *arg;
	int count;
	int ret;
};

static void
chunk_visit(struct rte_mempool *mp __rte_unused, void *opaque,
		struct rte_mempool_memhdr *memhdr, unsigned int idx __rte_unused)
{
	struct chunk_walk *w = opaque;
	struct pmr_msgbuf_chunk chunk = {
		.addr = memhdr->addr,
		.len = memhdr->len,
		.iova = memhdr->iova,
	};

	/* rte_mempool_mem_iter() cannot be stopped: skip after a stop. */
	if (w->ret != 0)
		return;
	w->ret = w->cb(&chunk, w->arg);
	w->count++;
}

int
pmr_msgbuf_pool_chunk_walk(struct rte_mempool *mp,
		pmr_msgbuf_chunk_cb_t cb, void *arg)
{
	struct chunk_walk w = { .cb = cb, .arg = arg };

	if (pool_priv(mp) == NULL || cb == NULL)
		return -EINVAL;
	rte_mempool_mem_iter(mp, chunk_visit, &w);
	return w.ret != 0 ? w.ret : w.count;
}
