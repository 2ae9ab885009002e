/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

#ifndef PMR_MSGBUF_H
#define PMR_MSGBUF_H

/**
 * @file
 * Message buffers on rte_mempool.
 *
 * A msgbuf pool is an ordinary rte_mempool (so rte_mempool_dump(), the
 * per-lcore caches and DPDK's telemetry all apply) whose objects are laid
 * out as
 *
 *     | struct pmr_msgbuf | headroom | data: capacity bytes |
 *
 * The headroom lets a driver (and the RPC engine) write its headers right in
 * front of the data, so a single-packet message goes out as one contiguous
 * region without a copy. The data area is cache-line aligned.
 *
 * Pools whose objects exceed PMR_MSGBUF_LARGE_MIN bytes are created with
 * RTE_MEMPOOL_F_NO_IOVA_CONTIG: their objects are virtually contiguous only,
 * which is what RDMA registration by virtual address needs.
 *
 * Ownership: a msgbuf belongs to one party at a time. While a driver holds a
 * zero-copy reference to it (pmr_msgbuf_tx_pending() is non-zero) it must
 * be neither written nor freed. While a worker holds it (the msgbuf of a
 * pending request, a response kept for retransmissions, a response buffer
 * offered to a handler: PMR_MSGBUF_F_WORKER in its flags) it is not the
 * application's to free or to give away. pmr_msgbuf_free() refuses both,
 * in every build, and counts the refusal in the pool
 * (pmr_msgbuf_pool_free_refused()); the RPC engine refuses a msgbuf a
 * worker holds in pmr_request() and pmr_respond() (pmr_rpc.h).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_mempool.h>

#include "pmr_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A message buffer: the header of each object of a msgbuf pool. */
struct pmr_msgbuf {
	uint8_t *data;		/**< First byte of the message. */
	uint32_t len;		/**< Bytes of message in data. */
	uint32_t capacity;	/**< Largest len this buffer can hold. */
	struct rte_mempool *pool; /**< Pool the buffer returns to. */
	/**
	 * Zero-copy references held by drivers (in-flight TX). Updated with
	 * atomics: a driver's completion may run on another lcore.
	 */
	uint32_t tx_refs;
	uint16_t headroom;	/**< Writable bytes in front of data. */
	/**
	 * Who holds the buffer besides its owner (PMR_MSGBUF_F_*): set and
	 * cleared by the RPC engine on the worker's lcore, 0 when the
	 * buffer is the application's or in its pool.
	 */
	uint16_t flags;
	uint64_t udata;		/**< Free for the owner of the buffer. */
} __rte_cache_aligned;

/**
 * pmr_msgbuf.flags: a worker holds the buffer (a pending request's, a
 * kept response, a handler's offered response buffer).
 */
#define PMR_MSGBUF_F_WORKER RTE_BIT32(0)

/** One virtually contiguous memory chunk of a msgbuf pool. */
struct pmr_msgbuf_chunk {
	void *addr;		/**< Start of the chunk. */
	size_t len;		/**< Length in bytes. */
	rte_iova_t iova;	/**< IO address, RTE_BAD_IOVA if unknown. */
};

/**
 * Callback of pmr_msgbuf_pool_chunk_walk().
 *
 * @return 0 to go on, non-zero to stop the walk with that value.
 */
typedef int (*pmr_msgbuf_chunk_cb_t)(const struct pmr_msgbuf_chunk *chunk,
		void *arg);

/**
 * Create a msgbuf pool.
 *
 * @param name
 *   Name of the underlying rte_mempool (RTE_MEMPOOL_NAMESIZE at most).
 * @param n
 *   Number of msgbufs.
 * @param cache_size
 *   Per-lcore cache size, as for rte_mempool_create(); 0 for none.
 * @param capacity
 *   Data bytes of each msgbuf (at least 1).
 * @param headroom
 *   Bytes needed in front of the data (rounded up to a cache line).
 * @param socket_id
 *   NUMA socket, or SOCKET_ID_ANY.
 * @return
 *   The pool, or NULL with rte_errno set: EINVAL for bad arguments (NULL
 *   name, n 0, capacity 0, cache_size over n or
 *   RTE_MEMPOOL_CACHE_MAX_SIZE, a headroom that rounds up past 65535,
 *   objects over 4 GiB), ENAMETOOLONG, EEXIST
 *   if the name is taken, ENOSPC (no memzone left), ENOMEM if memory is
 *   short.
 *
 * Thread: any (as rte_mempool_create()), usually at set-up.
 */
struct rte_mempool *pmr_msgbuf_pool_create(const char *name, unsigned int n,
		unsigned int cache_size, uint32_t capacity, uint16_t headroom,
		int socket_id);

/**
 * Free a msgbuf pool. All of its msgbufs must have been freed.
 *
 * Thread: any, once no other thread uses the pool.
 *
 * @return 0, -EINVAL if mp is NULL or not a msgbuf pool, -EBUSY if
 *   msgbufs are still out (the pool is then left alone).
 */
int pmr_msgbuf_pool_free(struct rte_mempool *mp);

/**
 * @return true if mp was made by pmr_msgbuf_pool_create() (false for
 *   NULL).
 *
 * Thread: any.
 */
bool pmr_msgbuf_pool_check(const struct rte_mempool *mp);

/**
 * @return data capacity of each msgbuf of the pool, 0 if mp is not a
 *   msgbuf pool.
 *
 * Thread: any.
 */
uint32_t pmr_msgbuf_pool_capacity(const struct rte_mempool *mp);

/**
 * @return headroom of each msgbuf of the pool (after rounding), 0 if mp
 *   is not a msgbuf pool.
 *
 * Thread: any.
 */
uint16_t pmr_msgbuf_pool_headroom(const struct rte_mempool *mp);

/**
 * @return true if the pool's objects need not be IOVA-contiguous (false
 *   if mp is not a msgbuf pool).
 *
 * Thread: any.
 */
bool pmr_msgbuf_pool_is_large(const struct rte_mempool *mp);

/**
 * Number of msgbufs allocated and not yet freed (the per-lcore caches count
 * as free). Tests assert it is 0 to prove that nothing leaked. mp must be
 * a valid mempool.
 *
 * Thread: any; a count of a moment.
 *
 * @return the number of msgbufs out of the pool.
 */
unsigned int pmr_msgbuf_pool_in_use(const struct rte_mempool *mp);

/**
 * @return the number of pmr_msgbuf_free() calls on msgbufs of the pool
 *   refused since it was created (a driver or a worker still held the
 *   msgbuf: a use-after-free or double free averted), 0 if mp is not a
 *   msgbuf pool.
 *
 * Thread: any.
 */
uint64_t pmr_msgbuf_pool_free_refused(const struct rte_mempool *mp);

/**
 * Out of line part of pmr_msgbuf_free(): count a refused free in the
 * msgbuf's pool (and log it, rate limited). Not for applications.
 *
 * Thread: any, as pmr_msgbuf_free().
 *
 * @return -EBUSY.
 */
int pmr_msgbuf_free_refuse(struct pmr_msgbuf *mb);

/**
 * @return true if every msgbuf of the pool is back.
 *
 * Thread: any; the answer of a moment. mp must be a valid mempool.
 */
static inline bool
pmr_msgbuf_pool_full(const struct rte_mempool *mp)
{
	return rte_mempool_full(mp) != 0;
}

/**
 * Call cb for each memory chunk of the pool, in order, so that a driver can
 * register the pool's memory with a NIC once per chunk.
 *
 * Thread: any (cb runs on the caller's thread).
 *
 * @return number of chunks visited, or the first non-zero value cb
 *   returned, or -EINVAL if mp is not a msgbuf pool or cb is NULL.
 */
int pmr_msgbuf_pool_chunk_walk(struct rte_mempool *mp,
		pmr_msgbuf_chunk_cb_t cb, void *arg);

/**
 * Allocate a msgbuf holding len bytes. Data path: mp is not checked (it
 * must be a msgbuf pool).
 *
 * Thread: any (as rte_mempool_get(); an lcore uses its cache).
 *
 * @return the msgbuf, or NULL with rte_errno set to EMSGSIZE if len exceeds
 *   the pool's capacity, or ENOBUFS if the pool is empty.
 */
static inline struct pmr_msgbuf *
pmr_msgbuf_alloc(struct rte_mempool *mp, uint32_t len)
{
	void *obj;
	struct pmr_msgbuf *mb;

	if (unlikely(rte_mempool_get(mp, &obj) != 0)) {
		rte_errno = ENOBUFS;
		return NULL;
	}
	mb = (struct pmr_msgbuf *)obj;
	if (unlikely(len > mb->capacity)) {
		rte_mempool_put(mp, obj);
		rte_errno = EMSGSIZE;
		return NULL;
	}
	mb->len = len;
	return mb;
}

/**
 * Allocate n msgbufs of len bytes each, all or none. Data path: mp is not
 * checked (it must be a msgbuf pool).
 *
 * Returning int, it follows the int convention of doc/api.md (as
 * rte_pktmbuf_alloc_bulk() beside rte_pktmbuf_alloc()): the error is the
 * return value and rte_errno is not set.
 *
 * Thread: any (as rte_mempool_get_bulk()).
 *
 * @return 0, or -EMSGSIZE or -ENOBUFS (nothing allocated).
 */
static inline int
pmr_msgbuf_alloc_bulk(struct rte_mempool *mp, struct pmr_msgbuf **mbs,
		unsigned int n, uint32_t len)
{
	unsigned int i;

	if (unlikely(rte_mempool_get_bulk(mp, (void **)mbs, n) != 0))
		return -ENOBUFS;
	if (unlikely(n > 0 && len > mbs[0]->capacity)) {
		rte_mempool_put_bulk(mp, (void **)mbs, n);
		return -EMSGSIZE;
	}
	for (i = 0; i < n; i++)
		mbs[i]->len = len;
	return 0;
}

/**
 * Return a msgbuf to its pool. A NULL msgbuf is ignored.
 *
 * A msgbuf that is not the caller's to free is left alone, in every
 * build: one a driver still sends (pmr_msgbuf_tx_pending() non-zero) or a
 * worker holds (flags non-zero: the msgbuf of a request whose
 * continuation has not run, a response given to pmr_respond(), a
 * handler's pmr_req_resp_buf()). The refusal is counted in the pool
 * (pmr_msgbuf_pool_free_refused()).
 *
 * Thread: any, by the msgbuf's owner.
 *
 * @return 0, or -EBUSY (not freed).
 */
static inline int
pmr_msgbuf_free(struct pmr_msgbuf *mb)
{
	if (mb == NULL)
		return 0;
	if (unlikely(mb->flags != 0 ||
		     __atomic_load_n(&mb->tx_refs, __ATOMIC_RELAXED) != 0))
		return pmr_msgbuf_free_refuse(mb);
	rte_mempool_put(mb->pool, mb);
	return 0;
}

/**
 * Set the message length of a msgbuf, within its capacity. The data is
 * neither moved nor cleared.
 *
 * Thread: the msgbuf's owner.
 *
 * @return 0, or -EMSGSIZE if len exceeds the capacity.
 */
static inline int
pmr_msgbuf_resize(struct pmr_msgbuf *mb, uint32_t len)
{
	if (unlikely(len > mb->capacity))
		return -EMSGSIZE;
	mb->len = len;
	return 0;
}

/**
 * @return the message bytes of a msgbuf.
 *
 * Thread: the msgbuf's owner.
 */
static inline void *
pmr_msgbuf_data(const struct pmr_msgbuf *mb)
{
	return mb->data;
}

/**
 * @return the message length of a msgbuf.
 *
 * Thread: the msgbuf's owner.
 */
static inline uint32_t
pmr_msgbuf_len(const struct pmr_msgbuf *mb)
{
	return mb->len;
}

/**
 * @return the capacity of a msgbuf.
 *
 * Thread: any.
 */
static inline uint32_t
pmr_msgbuf_capacity(const struct pmr_msgbuf *mb)
{
	return mb->capacity;
}

/**
 * @return the number of zero-copy TX references drivers still hold; the
 *   buffer may be reused or freed only when this is 0.
 *
 * Thread: any.
 */
static inline uint32_t
pmr_msgbuf_tx_pending(const struct pmr_msgbuf *mb)
{
	return __atomic_load_n(&mb->tx_refs, __ATOMIC_ACQUIRE);
}

/**
 * Driver side: take a zero-copy TX reference.
 *
 * Thread: the lcore that sends the msgbuf (its owner's).
 */
static inline void
pmr_msgbuf_tx_ref(struct pmr_msgbuf *mb)
{
	__atomic_fetch_add(&mb->tx_refs, 1, __ATOMIC_RELAXED);
}

/**
 * Driver side: drop a TX reference.
 *
 * Thread: any (a driver's completion may run on another lcore).
 */
static inline void
pmr_msgbuf_tx_unref(struct pmr_msgbuf *mb)
{
	__atomic_fetch_sub(&mb->tx_refs, 1, __ATOMIC_RELEASE);
}

#ifdef __cplusplus
}
#endif

#endif /* PMR_MSGBUF_H */
