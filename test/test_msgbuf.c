/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/* Msgbuf pools: layout, allocation, exhaustion, large pools, chunk walk. */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_mempool.h>

#include "pmr_msgbuf.h"
#include "pmr_test.h"

#define MIB (1024u * 1024u)
#define MAX_CHUNKS 256

/*
 * Allocate one msgbuf or fail the test. Not returning on failure also tells
 * the compiler the result is not NULL (cmocka's asserts do not).
 */
static struct pmr_msgbuf *
alloc_or_fail(struct rte_mempool *mp, uint32_t len)
{
	struct pmr_msgbuf *mb = pmr_msgbuf_alloc(mp, len);

	if (mb == NULL) {
		fail_msg("pmr_msgbuf_alloc(%u): %s", len,
				rte_strerror(rte_errno));
		abort();	/* not reached: fail_msg() jumps out */
	}
	return mb;
}

/* Fill the headroom and the whole data area of a msgbuf. */
static void
fill_msgbuf(struct pmr_msgbuf *mb, uint8_t pattern)
{
	uint8_t *data = pmr_msgbuf_data(mb);

	memset(data - mb->headroom, pattern ^ 0xff, mb->headroom);
	memset(data, pattern, pmr_msgbuf_capacity(mb));
}

/* @return true if the headroom and data area still hold fill_msgbuf(). */
static bool
check_msgbuf(const struct pmr_msgbuf *mb, uint8_t pattern)
{
	const uint8_t *data = pmr_msgbuf_data(mb);
	const uint8_t *head = data - mb->headroom;
	const uint8_t inv = pattern ^ 0xff;
	uint32_t i;

	for (i = 0; i < mb->headroom; i++)
		if (head[i] != inv)
			return false;
	for (i = 0; i < pmr_msgbuf_capacity(mb); i++)
		if (data[i] != pattern)
			return false;
	return true;
}

/* Header fields that must survive any write to another msgbuf's data. */
static void
check_header(const struct rte_mempool *mp, const struct pmr_msgbuf *mb)
{
	uint16_t hr = pmr_msgbuf_pool_headroom(mp);

	assert_ptr_equal(mb->pool, mp);
	assert_int_equal(mb->capacity, pmr_msgbuf_pool_capacity(mp));
	assert_int_equal(mb->headroom, hr);
	assert_ptr_equal(mb->data, (const uint8_t *)mb + sizeof(*mb) + hr);
}

static void
test_create_alloc_free(void **state)
{
	const uint32_t capacity = 2000;	/* not a cache-line multiple */
	const unsigned int n = 64, nb = 8;
	struct pmr_msgbuf *mbs[8];
	struct rte_mempool *mp;
	unsigned int i;

	(void)state;
	mp = pmr_msgbuf_pool_create("mb_basic", n, 0, capacity, 42,
			SOCKET_ID_ANY);
	assert_non_null(mp);
	assert_true(pmr_msgbuf_pool_check(mp));
	assert_false(pmr_msgbuf_pool_is_large(mp));
	assert_int_equal(pmr_msgbuf_pool_capacity(mp), capacity);
	assert_int_equal(pmr_msgbuf_pool_headroom(mp), 64);
	assert_int_equal(pmr_msgbuf_pool_in_use(mp), 0);
	assert_true(pmr_msgbuf_pool_full(mp));
	assert_ptr_equal(rte_mempool_lookup("mb_basic"), mp);

	for (i = 0; i < nb; i++) {
		mbs[i] = pmr_msgbuf_alloc(mp, 100 + i);
		assert_non_null(mbs[i]);
		assert_int_equal(pmr_msgbuf_pool_in_use(mp), i + 1);
		assert_false(pmr_msgbuf_pool_full(mp));
		check_header(mp, mbs[i]);
		assert_int_equal(pmr_msgbuf_len(mbs[i]), 100 + i);
		assert_int_equal(pmr_msgbuf_capacity(mbs[i]), capacity);
		assert_int_equal(pmr_msgbuf_tx_pending(mbs[i]), 0);
		assert_int_equal((uintptr_t)mbs[i] % RTE_CACHE_LINE_SIZE, 0);
		assert_int_equal((uintptr_t)pmr_msgbuf_data(mbs[i]) %
				RTE_CACHE_LINE_SIZE, 0);
		assert_ptr_equal(pmr_msgbuf_data(mbs[i]),
				(uint8_t *)(mbs[i] + 1) + 64);
		fill_msgbuf(mbs[i], (uint8_t)(0x10 + i));
	}
	/* Writing every byte of one buffer left its neighbours intact. */
	for (i = 0; i < nb; i++) {
		check_header(mp, mbs[i]);
		assert_true(check_msgbuf(mbs[i], (uint8_t)(0x10 + i)));
	}
	for (i = 0; i < nb; i++) {
		pmr_msgbuf_free(mbs[i]);
		assert_int_equal(pmr_msgbuf_pool_in_use(mp), nb - i - 1);
	}
	assert_true(pmr_msgbuf_pool_full(mp));
	assert_int_equal(pmr_msgbuf_pool_free(mp), 0);
	assert_null(rte_mempool_lookup("mb_basic"));
}

static void
test_headroom_rounding(void **state)
{
	static const struct {
		uint16_t in;
		uint16_t out;
	} cases[] = {
		{ 0, 0 }, { 1, 64 }, { 42, 64 }, { 64, 64 }, { 65, 128 },
		{ 200, 256 },
	};
	struct pmr_msgbuf *mb;
	struct rte_mempool *mp;
	unsigned int i;

	(void)state;
	RTE_BUILD_BUG_ON(RTE_CACHE_LINE_SIZE != 64);
	for (i = 0; i < RTE_DIM(cases); i++) {
		mp = pmr_msgbuf_pool_create("mb_hr", 4, 0, 64, cases[i].in,
				SOCKET_ID_ANY);
		assert_non_null(mp);
		assert_int_equal(pmr_msgbuf_pool_headroom(mp), cases[i].out);
		mb = pmr_msgbuf_alloc(mp, 64);
		assert_non_null(mb);
		assert_int_equal(mb->headroom, cases[i].out);
		assert_ptr_equal(pmr_msgbuf_data(mb),
				(uint8_t *)(mb + 1) + cases[i].out);
		assert_int_equal((uintptr_t)pmr_msgbuf_data(mb) %
				RTE_CACHE_LINE_SIZE, 0);
		fill_msgbuf(mb, 0x5a);
		pmr_msgbuf_free(mb);
		assert_int_equal(pmr_msgbuf_pool_free(mp), 0);
	}
}

static void
test_exhaustion(void **state)
{
	const unsigned int n = 64;
	struct pmr_msgbuf *mbs[64 + 1];
	struct rte_mempool *mp;
	unsigned int i, j;

	(void)state;
	mp = pmr_msgbuf_pool_create("mb_exhaust", n, 32, 256, 0,
			SOCKET_ID_ANY);
	assert_non_null(mp);

	/* Twice, so that the second round starts with a warm cache. */
	for (j = 0; j < 2; j++) {
		for (i = 0; i < n; i++) {
			mbs[i] = pmr_msgbuf_alloc(mp, 1);
			assert_non_null(mbs[i]);
		}
		assert_int_equal(pmr_msgbuf_pool_in_use(mp), n);
		rte_errno = 0;
		assert_null(pmr_msgbuf_alloc(mp, 1));
		assert_int_equal(rte_errno, ENOBUFS);
		assert_int_equal(pmr_msgbuf_pool_in_use(mp), n);
		/* All distinct. */
		for (i = 1; i < n; i++)
			assert_ptr_not_equal(mbs[i - 1], mbs[i]);
		for (i = 0; i < n; i++)
			pmr_msgbuf_free(mbs[i]);
		assert_int_equal(pmr_msgbuf_pool_in_use(mp), 0);
		assert_true(pmr_msgbuf_pool_full(mp));
	}

	/* Bulk: all or nothing. */
	assert_int_equal(pmr_msgbuf_alloc_bulk(mp, mbs, n + 1, 8), -ENOBUFS);
	assert_int_equal(pmr_msgbuf_pool_in_use(mp), 0);
	for (i = 0; i < n - 3; i++) {
		mbs[i] = pmr_msgbuf_alloc(mp, 1);
		assert_non_null(mbs[i]);
	}
	assert_int_equal(pmr_msgbuf_alloc_bulk(mp, &mbs[n - 3], 4, 8),
			-ENOBUFS);
	assert_int_equal(pmr_msgbuf_pool_in_use(mp), n - 3);
	assert_int_equal(pmr_msgbuf_alloc_bulk(mp, &mbs[n - 3], 3, 8), 0);
	assert_int_equal(pmr_msgbuf_pool_in_use(mp), n);
	for (i = n - 3; i < n; i++)
		assert_int_equal(pmr_msgbuf_len(mbs[i]), 8);
	assert_int_equal(pmr_msgbuf_alloc_bulk(mp, &mbs[n], 1, 8), -ENOBUFS);
	for (i = 0; i < n; i++)
		pmr_msgbuf_free(mbs[i]);
	assert_true(pmr_msgbuf_pool_full(mp));

	/* A bulk of the whole pool at once, then of nothing. */
	assert_int_equal(pmr_msgbuf_alloc_bulk(mp, mbs, n, 256), 0);
	assert_int_equal(pmr_msgbuf_pool_in_use(mp), n);
	for (i = 0; i < n; i++)
		pmr_msgbuf_free(mbs[i]);
	assert_int_equal(pmr_msgbuf_alloc_bulk(mp, mbs, 0, 8), 0);
	assert_int_equal(pmr_msgbuf_pool_in_use(mp), 0);
	assert_true(pmr_msgbuf_pool_full(mp));
	assert_int_equal(pmr_msgbuf_pool_free(mp), 0);
}

static void
test_too_big(void **state)
{
	const uint32_t capacity = 100;
	struct pmr_msgbuf *mbs[4];
	struct rte_mempool *mp;
	unsigned int i;

	(void)state;
	mp = pmr_msgbuf_pool_create("mb_toobig", 16, 4, capacity, 0,
			SOCKET_ID_ANY);
	assert_non_null(mp);

	rte_errno = 0;
	assert_null(pmr_msgbuf_alloc(mp, capacity + 1));
	assert_int_equal(rte_errno, EMSGSIZE);
	assert_int_equal(pmr_msgbuf_pool_in_use(mp), 0);
	rte_errno = 0;
	assert_null(pmr_msgbuf_alloc(mp, UINT32_MAX));
	assert_int_equal(rte_errno, EMSGSIZE);
	assert_int_equal(pmr_msgbuf_pool_in_use(mp), 0);

	assert_int_equal(pmr_msgbuf_alloc_bulk(mp, mbs, RTE_DIM(mbs),
			capacity + 1), -EMSGSIZE);
	assert_int_equal(pmr_msgbuf_pool_in_use(mp), 0);
	assert_true(pmr_msgbuf_pool_full(mp));

	/* Exactly the capacity fits, one buffer and a bulk. */
	mbs[0] = pmr_msgbuf_alloc(mp, capacity);
	assert_non_null(mbs[0]);
	assert_int_equal(pmr_msgbuf_len(mbs[0]), capacity);
	pmr_msgbuf_free(mbs[0]);
	assert_int_equal(pmr_msgbuf_alloc_bulk(mp, mbs, RTE_DIM(mbs),
			capacity), 0);
	for (i = 0; i < RTE_DIM(mbs); i++)
		pmr_msgbuf_free(mbs[i]);

	assert_true(pmr_msgbuf_pool_full(mp));
	assert_int_equal(pmr_msgbuf_pool_free(mp), 0);
}

static void
test_resize(void **state)
{
	const uint32_t capacity = 300;
	struct pmr_msgbuf *mb;
	struct rte_mempool *mp;
	uint8_t pattern[64];
	uint8_t *data;
	unsigned int i;

	(void)state;
	mp = pmr_msgbuf_pool_create("mb_resize", 8, 0, capacity, 0,
			SOCKET_ID_ANY);
	assert_non_null(mp);
	mb = pmr_msgbuf_alloc(mp, sizeof(pattern));
	assert_non_null(mb);
	data = pmr_msgbuf_data(mb);
	for (i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 7 + 3);
	memcpy(data, pattern, sizeof(pattern));

	assert_int_equal(pmr_msgbuf_resize(mb, capacity), 0);
	assert_int_equal(pmr_msgbuf_len(mb), capacity);
	assert_ptr_equal(pmr_msgbuf_data(mb), data);
	assert_memory_equal(pmr_msgbuf_data(mb), pattern, sizeof(pattern));

	assert_int_equal(pmr_msgbuf_resize(mb, 10), 0);
	assert_int_equal(pmr_msgbuf_len(mb), 10);
	assert_ptr_equal(pmr_msgbuf_data(mb), data);
	assert_memory_equal(pmr_msgbuf_data(mb), pattern, sizeof(pattern));

	assert_int_equal(pmr_msgbuf_resize(mb, capacity + 1), -EMSGSIZE);
	assert_int_equal(pmr_msgbuf_len(mb), 10);
	assert_int_equal(pmr_msgbuf_resize(mb, UINT32_MAX), -EMSGSIZE);
	assert_int_equal(pmr_msgbuf_len(mb), 10);
	assert_ptr_equal(pmr_msgbuf_data(mb), data);
	assert_memory_equal(pmr_msgbuf_data(mb), pattern, sizeof(pattern));

	assert_int_equal(pmr_msgbuf_resize(mb, 0), 0);
	assert_int_equal(pmr_msgbuf_len(mb), 0);

	pmr_msgbuf_free(mb);
	assert_true(pmr_msgbuf_pool_full(mp));
	assert_int_equal(pmr_msgbuf_pool_free(mp), 0);
}

static void
test_free_null(void **state)
{
	struct pmr_msgbuf *mb;
	struct rte_mempool *mp;

	(void)state;
	mp = pmr_msgbuf_pool_create("mb_freenull", 8, 0, 64, 0,
			SOCKET_ID_ANY);
	assert_non_null(mp);
	pmr_msgbuf_free(NULL);
	assert_int_equal(pmr_msgbuf_pool_in_use(mp), 0);
	mb = pmr_msgbuf_alloc(mp, 1);
	assert_non_null(mb);
	pmr_msgbuf_free(NULL);
	assert_int_equal(pmr_msgbuf_pool_in_use(mp), 1);
	pmr_msgbuf_free(mb);
	assert_true(pmr_msgbuf_pool_full(mp));
	assert_int_equal(pmr_msgbuf_pool_free(mp), 0);
}

static void
test_pool_free_busy(void **state)
{
	struct pmr_msgbuf *mb, *mb2;
	struct rte_mempool *mp;

	(void)state;
	mp = pmr_msgbuf_pool_create("mb_busy", 16, 4, 128, 0, SOCKET_ID_ANY);
	assert_non_null(mp);
	mb = pmr_msgbuf_alloc(mp, 16);
	assert_non_null(mb);
	assert_int_equal(pmr_msgbuf_pool_free(mp), -EBUSY);

	/* The pool was left alone and still works. */
	assert_ptr_equal(rte_mempool_lookup("mb_busy"), mp);
	assert_true(pmr_msgbuf_pool_check(mp));
	assert_int_equal(pmr_msgbuf_pool_in_use(mp), 1);
	mb2 = pmr_msgbuf_alloc(mp, 16);
	assert_non_null(mb2);
	assert_ptr_not_equal(mb, mb2);
	memset(pmr_msgbuf_data(mb), 0xab, pmr_msgbuf_capacity(mb));
	pmr_msgbuf_free(mb2);
	assert_int_equal(pmr_msgbuf_pool_free(mp), -EBUSY);

	pmr_msgbuf_free(mb);
	assert_true(pmr_msgbuf_pool_full(mp));
	assert_int_equal(pmr_msgbuf_pool_free(mp), 0);
	assert_null(rte_mempool_lookup("mb_busy"));
}

static void
test_pool_free_not_msgbuf(void **state)
{
	struct rte_mempool *plain, *plain_priv;

	(void)state;
	assert_int_equal(pmr_msgbuf_pool_free(NULL), -EINVAL);
	assert_false(pmr_msgbuf_pool_check(NULL));

	plain = rte_mempool_create("mb_plain", 63, 128, 0, 0, NULL, NULL,
			NULL, NULL, SOCKET_ID_ANY, 0);
	assert_non_null(plain);
	assert_false(pmr_msgbuf_pool_check(plain));
	assert_false(pmr_msgbuf_pool_is_large(plain));
	assert_int_equal(pmr_msgbuf_pool_capacity(plain), 0);
	assert_int_equal(pmr_msgbuf_pool_headroom(plain), 0);
	assert_int_equal(pmr_msgbuf_pool_free(plain), -EINVAL);
	assert_ptr_equal(rte_mempool_lookup("mb_plain"), plain);

	/* Private data as big as a msgbuf pool's, but not one. */
	plain_priv = rte_mempool_create("mb_plain_priv", 63, 128, 0, 64,
			NULL, NULL, NULL, NULL, SOCKET_ID_ANY, 0);
	assert_non_null(plain_priv);
	assert_false(pmr_msgbuf_pool_check(plain_priv));
	assert_int_equal(pmr_msgbuf_pool_free(plain_priv), -EINVAL);
	assert_ptr_equal(rte_mempool_lookup("mb_plain_priv"), plain_priv);

	rte_mempool_free(plain_priv);
	rte_mempool_free(plain);
}

static void
test_bad_args(void **state)
{
	struct rte_mempool *mp;

	(void)state;
	rte_errno = 0;
	assert_null(pmr_msgbuf_pool_create(NULL, 8, 0, 64, 0, SOCKET_ID_ANY));
	assert_int_equal(rte_errno, EINVAL);

	rte_errno = 0;
	assert_null(pmr_msgbuf_pool_create("mb_bad", 0, 0, 64, 0,
			SOCKET_ID_ANY));
	assert_int_equal(rte_errno, EINVAL);

	rte_errno = 0;
	assert_null(pmr_msgbuf_pool_create("mb_bad", 8, 0, 0, 0,
			SOCKET_ID_ANY));
	assert_int_equal(rte_errno, EINVAL);

	rte_errno = 0;
	assert_null(pmr_msgbuf_pool_create("mb_bad", 4096,
			RTE_MEMPOOL_CACHE_MAX_SIZE + 1, 64, 0, SOCKET_ID_ANY));
	assert_int_equal(rte_errno, EINVAL);

	/* Headroom that cannot be rounded up within 16 bits. */
	rte_errno = 0;
	assert_null(pmr_msgbuf_pool_create("mb_bad", 8, 0, 64, UINT16_MAX,
			SOCKET_ID_ANY));
	assert_int_equal(rte_errno, EINVAL);

	/* An object size beyond 32 bits. */
	rte_errno = 0;
	assert_null(pmr_msgbuf_pool_create("mb_bad", 8, 0, UINT32_MAX, 0,
			SOCKET_ID_ANY));
	assert_int_equal(rte_errno, EINVAL);

	/* None of these left anything behind. */
	assert_null(rte_mempool_lookup("mb_bad"));

	mp = pmr_msgbuf_pool_create("mb_dup", 8, 0, 64, 0, SOCKET_ID_ANY);
	assert_non_null(mp);
	rte_errno = 0;
	assert_null(pmr_msgbuf_pool_create("mb_dup", 8, 0, 64, 0,
			SOCKET_ID_ANY));
	assert_int_equal(rte_errno, EEXIST);
	/* The first pool is unharmed. */
	assert_ptr_equal(rte_mempool_lookup("mb_dup"), mp);
	assert_true(pmr_msgbuf_pool_check(mp));
	assert_true(pmr_msgbuf_pool_full(mp));
	assert_int_equal(pmr_msgbuf_pool_free(mp), 0);
}

static void
check_large_pool(const char *name, uint32_t capacity, unsigned int n)
{
	struct pmr_msgbuf *mbs[16];
	struct rte_mempool *mp;
	uint8_t *data;
	unsigned int i;

	assert_true(n <= RTE_DIM(mbs));
	mp = pmr_msgbuf_pool_create(name, n, 0, capacity, 64, SOCKET_ID_ANY);
	assert_non_null(mp);
	assert_true(pmr_msgbuf_pool_is_large(mp));
	assert_true((mp->flags & RTE_MEMPOOL_F_NO_IOVA_CONTIG) != 0);
	assert_int_equal(pmr_msgbuf_pool_capacity(mp), capacity);

	for (i = 0; i < n; i++) {
		mbs[i] = pmr_msgbuf_alloc(mp, capacity);
		assert_non_null(mbs[i]);
		assert_int_equal(pmr_msgbuf_len(mbs[i]), capacity);
		data = pmr_msgbuf_data(mbs[i]);
		assert_int_equal((uintptr_t)data % RTE_CACHE_LINE_SIZE, 0);
		data[0] = (uint8_t)(0xa0 + i);
		data[capacity - 1] = (uint8_t)(0x50 + i);
		data[-1] = (uint8_t)(0xc0 + i);	/* last headroom byte */
	}
	rte_errno = 0;
	assert_null(pmr_msgbuf_alloc(mp, 1));
	assert_int_equal(rte_errno, ENOBUFS);
	for (i = 0; i < n; i++) {
		check_header(mp, mbs[i]);
		data = pmr_msgbuf_data(mbs[i]);
		assert_int_equal(data[0], (uint8_t)(0xa0 + i));
		assert_int_equal(data[capacity - 1], (uint8_t)(0x50 + i));
		assert_int_equal(data[-1], (uint8_t)(0xc0 + i));
	}
	for (i = 0; i < n; i++)
		pmr_msgbuf_free(mbs[i]);
	assert_int_equal(pmr_msgbuf_pool_in_use(mp), 0);
	assert_true(pmr_msgbuf_pool_full(mp));
	assert_int_equal(pmr_msgbuf_pool_free(mp), 0);
}

/* One large object is one chunk: hugepages rarely make that IOVA-contiguous. */
static int
count_chunk(const struct pmr_msgbuf_chunk *chunk, void *arg)
{
	*(size_t *)arg += chunk->len;
	return 0;
}

static void
test_large_single_object_pool(void **state)
{
	struct rte_mempool *mp;
	struct pmr_msgbuf *mb;
	size_t covered = 0;

	(void)state;
	mp = pmr_msgbuf_pool_create("mb_large1", 1, 0, (8u << 20) + 1, 64,
			SOCKET_ID_ANY);
	assert_non_null(mp);
	assert_true(pmr_msgbuf_pool_is_large(mp));
	mb = pmr_msgbuf_alloc(mp, (8u << 20) + 1);
	assert_non_null(mb);
	mb->data[0] = 1;
	mb->data[mb->len - 1] = 2;
	assert_int_equal(mb->data[0] + mb->data[mb->len - 1], 3);
	assert_null(pmr_msgbuf_alloc(mp, 1));
	assert_int_equal(rte_errno, ENOBUFS);
	assert_true(pmr_msgbuf_pool_chunk_walk(mp, count_chunk, &covered) > 0);
	assert_true(covered >= (8u << 20) + 1);
	pmr_msgbuf_free(mb);
	assert_int_equal(pmr_msgbuf_pool_free(mp), 0);
}

static void
test_large_pools(void **state)
{
	(void)state;
	check_large_pool("mb_large1m", MIB, 16);
	check_large_pool("mb_large8m", 8 * MIB, 4);
}

static void
test_large_threshold(void **state)
{
	/* Objects of exactly PMR_MSGBUF_LARGE_MIN bytes are still small. */
	const uint32_t cap = PMR_MSGBUF_LARGE_MIN - sizeof(struct pmr_msgbuf);
	struct rte_mempool *mp;

	(void)state;
	mp = pmr_msgbuf_pool_create("mb_small", 16, 0, 2048, 64,
			SOCKET_ID_ANY);
	assert_non_null(mp);
	assert_false(pmr_msgbuf_pool_is_large(mp));
	assert_int_equal(pmr_msgbuf_pool_free(mp), 0);

	mp = pmr_msgbuf_pool_create("mb_edge", 4, 0, cap, 0, SOCKET_ID_ANY);
	assert_non_null(mp);
	assert_false(pmr_msgbuf_pool_is_large(mp));
	assert_int_equal(pmr_msgbuf_pool_free(mp), 0);

	mp = pmr_msgbuf_pool_create("mb_edge1", 4, 0, cap + 1, 0,
			SOCKET_ID_ANY);
	assert_non_null(mp);
	assert_true(pmr_msgbuf_pool_is_large(mp));
	assert_int_equal(pmr_msgbuf_pool_free(mp), 0);
}

struct chunk_list {
	struct pmr_msgbuf_chunk chunks[MAX_CHUNKS];
	unsigned int n;		/* callbacks */
	unsigned int stop_at;	/* callback index that returns 7 */
	unsigned int objs;	/* objects seen by obj_iter */
	unsigned int bad;	/* objects not in exactly one chunk */
};

static int
collect_chunk(const struct pmr_msgbuf_chunk *chunk, void *arg)
{
	struct chunk_list *cl = arg;

	if (cl->n < MAX_CHUNKS)
		cl->chunks[cl->n] = *chunk;
	return cl->n++ == cl->stop_at ? 7 : 0;
}

static void
check_obj(struct rte_mempool *mp __rte_unused, void *opaque, void *obj,
		unsigned int idx __rte_unused)
{
	struct chunk_list *cl = opaque;
	const struct pmr_msgbuf *mb = obj;
	uintptr_t start = (uintptr_t)obj;
	uintptr_t end = (uintptr_t)mb->data + mb->capacity;
	unsigned int i, in = 0;

	cl->objs++;
	for (i = 0; i < cl->n && i < MAX_CHUNKS; i++) {
		uintptr_t cs = (uintptr_t)cl->chunks[i].addr;
		uintptr_t ce = cs + cl->chunks[i].len;

		if (start >= cs && end <= ce)
			in++;
	}
	if (in != 1)
		cl->bad++;
}

static void
check_chunk_walk(const char *name, unsigned int n, uint32_t capacity)
{
	struct chunk_list cl;
	struct rte_mempool *mp;
	unsigned int i, j;
	int ret;

	mp = pmr_msgbuf_pool_create(name, n, 0, capacity, 64, SOCKET_ID_ANY);
	assert_non_null(mp);

	memset(&cl, 0, sizeof(cl));
	cl.stop_at = UINT32_MAX;
	ret = pmr_msgbuf_pool_chunk_walk(mp, collect_chunk, &cl);
	assert_true(ret >= 1);
	assert_int_equal((unsigned int)ret, cl.n);
	assert_true(cl.n <= MAX_CHUNKS);
	assert_int_equal(cl.n, mp->nb_mem_chunks);
	for (i = 0; i < cl.n; i++) {
		assert_non_null(cl.chunks[i].addr);
		assert_true(cl.chunks[i].len > 0);
		/* Chunks do not overlap. */
		for (j = 0; j < i; j++) {
			uintptr_t a = (uintptr_t)cl.chunks[i].addr;
			uintptr_t b = (uintptr_t)cl.chunks[j].addr;

			assert_true(a + cl.chunks[i].len <= b ||
					b + cl.chunks[j].len <= a);
		}
	}
	assert_int_equal(rte_mempool_obj_iter(mp, check_obj, &cl), n);
	assert_int_equal(cl.objs, n);
	assert_int_equal(cl.bad, 0);

	/* A non-zero return stops the walk on the spot. */
	memset(&cl, 0, sizeof(cl));
	cl.stop_at = 0;
	assert_int_equal(pmr_msgbuf_pool_chunk_walk(mp, collect_chunk, &cl),
			7);
	assert_int_equal(cl.n, 1);

	/* On the last chunk too. */
	i = mp->nb_mem_chunks - 1;
	memset(&cl, 0, sizeof(cl));
	cl.stop_at = i;
	assert_int_equal(pmr_msgbuf_pool_chunk_walk(mp, collect_chunk, &cl),
			7);
	assert_int_equal(cl.n, i + 1);

	assert_int_equal(pmr_msgbuf_pool_chunk_walk(mp, NULL, &cl), -EINVAL);

	assert_true(pmr_msgbuf_pool_full(mp));
	assert_int_equal(pmr_msgbuf_pool_free(mp), 0);
}

static void
test_chunk_walk(void **state)
{
	struct rte_mempool *plain;
	struct chunk_list cl;

	(void)state;
	check_chunk_walk("mb_walk_small", 512, 2000);
	check_chunk_walk("mb_walk_large", 8, MIB);

	memset(&cl, 0, sizeof(cl));
	assert_int_equal(pmr_msgbuf_pool_chunk_walk(NULL, collect_chunk, &cl),
			-EINVAL);
	plain = rte_mempool_create("mb_walk_plain", 63, 128, 0, 0, NULL, NULL,
			NULL, NULL, SOCKET_ID_ANY, 0);
	assert_non_null(plain);
	assert_int_equal(pmr_msgbuf_pool_chunk_walk(plain, collect_chunk,
			&cl), -EINVAL);
	assert_int_equal(cl.n, 0);
	rte_mempool_free(plain);
}

static void
test_tx_refs(void **state)
{
	struct pmr_msgbuf *mb;
	struct rte_mempool *mp;

	(void)state;
	mp = pmr_msgbuf_pool_create("mb_txref", 8, 0, 64, 0, SOCKET_ID_ANY);
	assert_non_null(mp);
	mb = alloc_or_fail(mp, 32);
	assert_int_equal(pmr_msgbuf_tx_pending(mb), 0);
	pmr_msgbuf_tx_ref(mb);
	assert_int_equal(pmr_msgbuf_tx_pending(mb), 1);
	pmr_msgbuf_tx_ref(mb);
	assert_int_equal(pmr_msgbuf_tx_pending(mb), 2);
	pmr_msgbuf_tx_unref(mb);
	assert_int_equal(pmr_msgbuf_tx_pending(mb), 1);
	pmr_msgbuf_tx_unref(mb);
	assert_int_equal(pmr_msgbuf_tx_pending(mb), 0);
	pmr_msgbuf_free(mb);

	/* A reused buffer starts without references. */
	mb = alloc_or_fail(mp, 32);
	assert_int_equal(pmr_msgbuf_tx_pending(mb), 0);
	pmr_msgbuf_free(mb);
	assert_true(pmr_msgbuf_pool_full(mp));
	assert_int_equal(pmr_msgbuf_pool_free(mp), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_alloc_free),
		cmocka_unit_test(test_headroom_rounding),
		cmocka_unit_test(test_exhaustion),
		cmocka_unit_test(test_too_big),
		cmocka_unit_test(test_resize),
		cmocka_unit_test(test_free_null),
		cmocka_unit_test(test_pool_free_busy),
		cmocka_unit_test(test_pool_free_not_msgbuf),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_large_pools),
		cmocka_unit_test(test_large_single_object_pool),
		cmocka_unit_test(test_large_threshold),
		cmocka_unit_test(test_chunk_walk),
		cmocka_unit_test(test_tx_refs),
	};

	return cmocka_run_group_tests_name("msgbuf", tests,
			pmr_test_eal_setup, pmr_test_eal_teardown);
}
