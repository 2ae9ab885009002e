/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The pmrpc authors
 */

/*
 * The verbs driver's memory: msgbuf pools registered per chunk (local
 * access, or remote for one-sided operations), their keys, and the bounce
 * area for sends from memory no chunk holds.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_malloc.h>

#include "verbs_private.h"

/*
 * One chunk of a msgbuf pool, registered for local access (sends read
 * it), plus, on a queue with memory windows, the right to bind windows on
 * it when it has no remote rights of its own (doc/rendezvous.md,
 * "Exposure": local access plus the right to bind windows). The lkey is
 * found on the data path by address (verbs_lkey(): the last hit first,
 * then the table); a chunk already covered is skipped.
 * Called at set-up; an entry is filled before the count publishes it, so
 * a running data path sees it whole or not at all.
 */
int
verbs_mem_register_access(struct pmr_transport_queue *q,
		const struct pmr_msgbuf_chunk *chunk, uint32_t flags)
{
	struct verbs_queue *vq = verbs_queue(q);
	uintptr_t start = (uintptr_t)chunk->addr;
	struct verbs_mr *m;
	struct ibv_mr *mr;
	unsigned int i, n = vq->nb_mrs;
	int access = IBV_ACCESS_LOCAL_WRITE;

	if ((flags & PMR_TRANSPORT_ACCESS_REMOTE_READ) != 0)
		access |= IBV_ACCESS_REMOTE_READ;
	if ((flags & PMR_TRANSPORT_ACCESS_REMOTE_WRITE) != 0)
		access |= IBV_ACCESS_REMOTE_WRITE;
	/* MW_BIND gives nothing remote by itself: only a window bound on
	 * an RC QP (a BIND op) exposes bytes of the chunk. */
	if (flags == 0 && vq->mw_on)
		access |= IBV_ACCESS_MW_BIND;
	/* Covered already: fine with the same rights; other rights would
	 * make a local-only pool remotely reachable, or the other way. */
	for (i = 0; i < n; i++)
		if (start >= vq->mrs[i].start &&
		    start + chunk->len <= vq->mrs[i].end)
			return vq->mrs[i].access == (uint32_t)access ?
				0 : -EEXIST;
	if (n == VERBS_MR_MAX) {
		VERBS_LOG(ERR, "qp %u: more than %u memory chunks", vq->qpn,
			VERBS_MR_MAX);
		return -ENOSPC;
	}
	mr = ibv_reg_mr(vq->dev->pd, chunk->addr, chunk->len, access);
	if (mr == NULL) {
		int ret = errno != 0 ? errno : ENOMEM;

		VERBS_LOG(ERR, "qp %u: ibv_reg_mr(%zu bytes): %s", vq->qpn,
			chunk->len, strerror(ret));
		return -ret;
	}
	m = &vq->mrs[n];
	m->start = start;
	m->end = start + chunk->len;
	m->lkey = mr->lkey;
	m->access = (uint32_t)access;
	m->mr = mr;
	__atomic_store_n(&vq->nb_mrs, n + 1, __ATOMIC_RELEASE);
	return 0;
}

/* Local access only: the worker's msgbuf pools. */
int
verbs_mem_register(struct pmr_transport_queue *q,
		const struct pmr_msgbuf_chunk *chunk)
{
	return verbs_mem_register_access(q, chunk, 0);
}

/*
 * The data path is idle (pmr_transport_mem_unregister()'s rule): the
 * table is compacted under it, the last entry moving into the hole. A
 * chunk with a window bound in it stays (-EBUSY).
 */
int
verbs_mem_unregister(struct pmr_transport_queue *q,
		const struct pmr_msgbuf_chunk *chunk)
{
	struct verbs_queue *vq = verbs_queue(q);
	uintptr_t start = (uintptr_t)chunk->addr;
	unsigned int i, n = vq->nb_mrs;
	int ret;

	for (i = 0; i < n; i++)
		if (vq->mrs[i].start == start &&
		    vq->mrs[i].end == start + chunk->len)
			break;
	if (i == n)
		return -ENOENT;
	if (verbs_mw_in(vq, vq->mrs[i].mr)) {
		VERBS_LOG(ERR, "qp %u: a memory window is bound in the chunk "
			"(%zu bytes): give it back first", vq->qpn,
			chunk->len);
		return -EBUSY;
	}
	ret = ibv_dereg_mr(vq->mrs[i].mr);
	if (ret != 0) {
		VERBS_LOG(ERR, "qp %u: ibv_dereg_mr(%zu bytes): %s", vq->qpn,
			chunk->len, strerror(ret));
		return -ret;
	}
	vq->mrs[i] = vq->mrs[n - 1];
	vq->mr_hint = 0;
	__atomic_store_n(&vq->nb_mrs, n - 1, __ATOMIC_RELEASE);
	return 0;
}

int
verbs_mem_key(struct pmr_transport_queue *q, const void *addr, size_t len,
		struct pmr_transport_mkey *key)
{
	struct verbs_queue *vq = verbs_queue(q);
	unsigned int i, n = __atomic_load_n(&vq->nb_mrs, __ATOMIC_ACQUIRE);
	uintptr_t a = (uintptr_t)addr;

	for (i = 0; i < n; i++) {
		if (a >= vq->mrs[i].start && a + len <= vq->mrs[i].end) {
			key->lkey = vq->mrs[i].lkey;
			key->rkey = vq->mrs[i].mr->rkey;
			return 0;
		}
	}
	return -ENOENT;
}

/* Slow enough for a BIND: the table, no hint. */
struct ibv_mr *
verbs_mr_bindable(struct verbs_queue *vq, const void *addr, size_t len)
{
	unsigned int i, n = __atomic_load_n(&vq->nb_mrs, __ATOMIC_ACQUIRE);
	uintptr_t a = (uintptr_t)addr;

	for (i = 0; i < n; i++)
		if (a >= vq->mrs[i].start && a + len <= vq->mrs[i].end &&
		    (vq->mrs[i].access & IBV_ACCESS_MW_BIND) != 0)
			return vq->mrs[i].mr;
	return NULL;
}

/*
 * The bounce area: one MTU per send descriptor, for packets whose data no
 * registered chunk holds (a msgbuf pool the worker never registered: the
 * engine lets an application send from any pool). Made on the queue's
 * lcore at the first such send, since most queues never see one; a
 * failure is logged once and such packets are then refused.
 */
int
verbs_bounce_setup(struct verbs_queue *vq)
{
	size_t len = (size_t)vq->pub.caps.mtu * vq->sq_size;
	uint8_t *b;

	b = rte_zmalloc("pmr_verbs_bounce", len, RTE_CACHE_LINE_SIZE);
	if (b != NULL)
		vq->bounce_mr = ibv_reg_mr(vq->dev->pd, b, len, 0);
	if (b == NULL || vq->bounce_mr == NULL) {
		int ret = b == NULL ? ENOMEM : (errno != 0 ? errno : ENOMEM);

		rte_free(b);
		vq->bounce_failed = true;
		VERBS_LOG(ERR, "qp %u: no bounce area for sends from "
			"unregistered memory (%zu bytes): %s; such sends are "
			"refused (tx_unregistered)", vq->qpn, len,
			strerror(ret));
		return -ret;
	}
	vq->bounce_lkey = vq->bounce_mr->lkey;
	vq->bounce = b;
	VERBS_LOG(INFO, "qp %u: sends from unregistered memory are copied "
		"(tx_bounced): register the pool to send it without a copy",
		vq->qpn);
	return 0;
}
